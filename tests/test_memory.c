/* SPDX-License-Identifier: MIT */
/* tests/test_memory.c - mf_memory_plan (<minifloat/memory.h>) against published figures, and against what
 * the training demo actually allocates.
 *
 * Published figures reproduced (docs/memory.md has each with its source):
 *   - DeepSpeed's estimators, its docs' examples: t5-3b on one node of 8 GPUs, "cold" (2851e6 parameters,
 *     largest layer 32e6) and "live" (the model's own counts, derived below from its configuration);
 *     printed there as bytes / 2^30 with two decimals;
 *   - the ZeRO paper (arXiv 1910.02054, figure 1): 7.5B parameters, 64 GPUs, mixed-precision Adam,
 *     120 / 31.4 / 16.6 / 1.9 GB for stages 0-3 (GB = 1e9 bytes);
 *   - HF accelerate's estimate-memory (estimate_training_usage) for the same t5-3b, in its own rounding
 *     (convert_bytes: /1024 until below 1024, round to two decimals);
 *   - Korthikanti et al. (arXiv 2205.05198), table 2: activation bytes per layer under each of tensor
 *     parallelism, sequence parallelism, selective and full recomputation, for GPT-3 175B's shape.
 * Measured rather than trusted: the demo's allocations (counted at each calloc) equal the plan for its
 * model and each configuration. */
#include <stdio.h>
#include <string.h>

#include <minifloat/lab.h>

#include "mf_test.h"
#include "trainer.h"

#define GIB 1073741824.0

static void gib2(char *buf, uint64_t bytes) { snprintf(buf, 32, "%.2f", (double)bytes / GIB); }

/* A model given by its counts alone, as DeepSpeed's "cold" estimators take it. */
static mf_memory_model counts(uint64_t params, uint64_t largest)
{
    mf_memory_model m;
    memset(&m, 0, sizeof m);
    m.params = params;
    m.largest_layer_params = largest;
    return m;
}

/* DeepSpeed's setup: fp16 mixed precision (its factors: 2-byte parameters and gradients, FP32 master,
 * moments and gradient partition), one node of `gpus`. */
static void ds_plan(const mf_memory_model *m, int gpus, int stage, int off_opt, int off_par, int zero_init,
                    mf_memory_report *rep)
{
    mf_memory_recipe r;
    mf_memory_cluster c;
    ck_assert_int_eq(mf_memory_recipe_preset("fp16-amp", &r), MF_OK);
    r.loss_scaler = 0; /* DeepSpeed's estimator counts no scaler state */
    mf_memory_cluster_default(&c);
    c.gpus_per_node = (uint32_t)gpus;
    c.zero_stage = stage;
    c.zero_rule = MF_MEMORY_ZERO_DEEPSPEED;
    c.offload_optimizer = off_opt;
    c.offload_params = off_par;
    c.zero_init = zero_init;
    ck_assert_int_eq(mf_memory_plan(m, &r, &c, rep), MF_OK);
}

static void expect_ds(const mf_memory_model *m, int stage, int off_opt, int off_par, int zero_init, const char *cpu,
                      const char *gpu)
{
    mf_memory_report rep;
    char b1[32], b2[32];
    ds_plan(m, 8, stage, off_opt, off_par, zero_init, &rep);
    gib2(b1, rep.cpu_node);
    gib2(b2, rep.gpu_total);
    ck_assert_msg(strcmp(b1, cpu) == 0 && strcmp(b2, gpu) == 0,
                  "stage %d offload %d/%d init %d: cpu %s gpu %s, DeepSpeed prints %s %s", stage, off_opt, off_par,
                  zero_init, b1, b2, cpu, gpu);
}

/* The rows of DeepSpeed's printed tables, in its order: ZeRO-2 with and without optimizer offload, then
 * ZeRO-3: offload params + optimizer, optimizer alone, none; each with zero_init 1 then 0.
 * {stage, offload_optimizer, offload_params, zero_init} */
static const int DS_ROWS[8][4] = {{2, 1, 0, 0}, {2, 0, 0, 0}, {3, 1, 1, 1}, {3, 1, 1, 0},
                                  {3, 1, 0, 1}, {3, 1, 0, 0}, {3, 0, 0, 1}, {3, 0, 0, 0}};

static void expect_ds_table(const mf_memory_model *m, const char *const cpu[8], const char *const gpu[8])
{
    int i;
    for (i = 0; i < 8; i++)
        expect_ds(m, DS_ROWS[i][0], DS_ROWS[i][1], DS_ROWS[i][2], DS_ROWS[i][3], cpu[i], gpu[i]);
}

START_TEST(test_deepspeed_cold)
{
    /* DeepSpeed docs (memory.rst), estimate_zero2/3_model_states_mem_needs_all_cold(total_params=2851e6,
     * largest_layer_params=32e6, num_gpus_per_node=8): per CPU | per GPU */
    static const char *const cpu[8] = {"127.45", "127.45", "71.69", "127.45", "63.72", "127.45", "1.43", "127.45"};
    static const char *const gpu[8] = {"5.31", "15.93", "0.12", "0.12", "0.78", "0.78", "6.09", "6.09"};
    mf_memory_model m = counts(2851000000ull, 32000000ull);
    mf_memory_report rep;
    expect_ds_table(&m, cpu, gpu);
    /* to the byte: ZeRO-2 4P + 16P/N, ZeRO-3 4*largest + 18P/N (both products exact here) */
    ds_plan(&m, 8, 2, 0, 0, 0, &rep);
    ck_assert_uint_eq(rep.gpu_total, 4ull * 2851000000ull + 16ull * 2851000000ull / 8);
    ck_assert_uint_eq(rep.cpu_node, 2851000000ull * 4 * 8 * 3 / 2);
    ds_plan(&m, 8, 3, 0, 0, 1, &rep);
    ck_assert_uint_eq(rep.gpu_total, 4ull * 32000000ull + 18ull * 2851000000ull / 8);
    ck_assert_uint_eq(rep.gpu[MF_MEMORY_PART_GATHER], 4ull * 32000000ull);
    ck_assert_uint_eq(rep.gpu[MF_MEMORY_PART_ACTIVATIONS], 0); /* a model without a shape */
}
END_TEST

START_TEST(test_deepspeed_live)
{
    /* t5-3b as AutoModel loads it (T5Model: shared embedding, encoder, decoder; no lm_head), from its
     * configuration d_model 1024, d_ff 16384, 24 + 24 layers, 32 heads of d_kv 128, vocab 32128:
     *   shared                          32128 * 1024                               =    32,899,072
     *   encoder block: attention 4 * 1024 * 4096, FFN 2 * 1024 * 16384, 2 norms     =    50,333,696
     *   decoder block: 2 attentions, FFN, 3 norms                                   =    67,111,936
     *   each stack: relative attention bias 32 * 32, final norm 1024
     *   total 32,899,072 + 24 * 50,333,696 + 2048 + 24 * 67,111,936 + 2048          = 2,851,598,336
     * largest module: the shared embedding, 32,899,072 ("2851M total params, 32M largest layer"). */
    const uint64_t enc = 4ull * 1024 * 4096 + 2ull * 1024 * 16384 + 2 * 1024;
    const uint64_t dec = 8ull * 1024 * 4096 + 2ull * 1024 * 16384 + 3 * 1024;
    const uint64_t P = 32128ull * 1024 + 24 * enc + 2048 + 24 * dec + 2048;
    static const char *const cpu[8] = {"127.48", "127.48", "71.71", "127.48", "63.74", "127.48", "1.47", "127.48"};
    static const char *const gpu[8] = {"5.31", "15.93", "0.12", "0.12", "0.79", "0.79", "6.10", "6.10"};
    mf_memory_model m;
    ck_assert_uint_eq(P, 2851598336ull);
    m = counts(P, 32128ull * 1024);
    /* estimate_zero2_model_states_mem_needs_all_live and estimate_zero3_..._all_live(model,
     * num_gpus_per_node=8), rows as DS_ROWS */
    expect_ds_table(&m, cpu, gpu);
}
END_TEST

/* accelerate's convert_bytes: divide by 1024 until below 1024, then f"{round(x, 2)} {unit}" (Python's
 * shortest repr: "125.5", "9.0") */
static void accel_bytes(char *buf, double x)
{
    static const char *const unit[] = {"bytes", "KB", "MB", "GB", "TB"};
    char num[32];
    size_t len;
    int i = 0;
    while (x >= 1024.0 && i < 4)
        x /= 1024.0, i++;
    snprintf(num, sizeof num, "%.2f", x);
    len = strlen(num);
    if (num[len - 1] == '0')
        num[len - 1] = 0;
    snprintf(buf, 32, "%s %s", num, unit[i]);
}

START_TEST(test_accelerate)
{
    /* accelerate estimate-memory: "Total Size" is the float32 model's bytes; "Training using Adam" is the
     * largest of model, gradients, optimizer and step (not their sum): float32 step = 4 x model;
     * float16/bfloat16 the optimizer's 2 x the float32 size. The planner's parts give each. */
    mf_memory_model m = counts(2851598336ull, 32128ull * 1024);
    mf_memory_recipe r32, r16;
    mf_memory_cluster c;
    mf_memory_report a, b;
    char buf[32];
    mf_memory_cluster_default(&c);
    mf_memory_recipe_preset("fp32", &r32);
    mf_memory_recipe_preset("bf16-amp", &r16);
    ck_assert_int_eq(mf_memory_plan(&m, &r32, &c, &a), MF_OK);
    ck_assert_int_eq(mf_memory_plan(&m, &r16, &c, &b), MF_OK);
    accel_bytes(buf, (double)a.gpu[MF_MEMORY_PART_PARAMS]);
    ck_assert_str_eq(buf, "10.62 GB");
    accel_bytes(buf, (double)a.gpu_total); /* weights + gradients + moments = 4 x the model */
    ck_assert_str_eq(buf, "42.49 GB");
    accel_bytes(buf, (double)b.gpu[MF_MEMORY_PART_OPTIMIZER]); /* its float16 figure: one part, the largest */
    ck_assert_str_eq(buf, "21.25 GB");
    ck_assert_uint_eq(b.gpu_total, 2 * b.gpu[MF_MEMORY_PART_OPTIMIZER]); /* the sum it leaves out: 16 bytes */
    accel_bytes(buf, 4.0 * (double)m.largest_layer_params);
    ck_assert_str_eq(buf, "125.5 MB");
}
END_TEST

START_TEST(test_zero_paper)
{
    /* ZeRO figure 1: 7.5B parameters, K = 12, N_d = 64: (2 + 2 + K) psi = 120 GB; P_os 31.4 GB; P_os+g
     * 16.6 GB; P_os+g+p 1.9 GB (GB = 1e9, the model states alone: the gathered layer is left out) */
    static const char *const want[4] = {"120.0", "31.4", "16.6", "1.9"};
    mf_memory_model m = counts(7500000000ull, 0);
    mf_memory_recipe r;
    mf_memory_cluster c;
    mf_memory_report rep;
    char buf[32];
    int z;
    mf_memory_recipe_preset("bf16-amp", &r);
    mf_memory_cluster_default(&c);
    c.gpus_per_node = 8;
    c.nodes = 8;
    for (z = 0; z <= 3; z++) {
        c.zero_stage = z;
        ck_assert_int_eq(mf_memory_plan(&m, &r, &c, &rep), MF_OK);
        snprintf(buf, sizeof buf, "%.1f", (double)(rep.gpu_total - rep.gpu[MF_MEMORY_PART_GATHER]) / 1e9);
        ck_assert_str_eq(buf, want[z]);
    }
    /* exactly: 16 psi, 4 psi + 12 psi / 64, 2 psi + 14 psi / 64, 16 psi / 64 */
    ck_assert_uint_eq(rep.gpu_total, 16ull * 7500000000ull / 64);
}
END_TEST

/* GPT-3 175B's layer (Korthikanti et al., table 3): a 96, h 12288, s 2048, b 1, dropout, GeLU MLP 4h. */
static mf_memory_model gpt3(void)
{
    mf_memory_model m;
    memset(&m, 0, sizeof m);
    m.layers = 96, m.hidden = 12288, m.heads = 96, m.vocab = 51200, m.seq = 2048, m.micro_batch = 1;
    m.biases = m.dropout = 1, m.tied_embeddings = 1;
    return m;
}

static uint64_t layer_bytes(int t, int sp, mf_memory_recompute rc, int flash)
{
    mf_memory_model m = gpt3();
    mf_memory_recipe r;
    mf_memory_cluster c;
    mf_memory_report rep;
    mf_memory_recipe_preset("bf16-amp", &r);
    mf_memory_cluster_default(&c);
    c.gpus_per_node = (uint32_t)t, c.tensor_parallel = (uint32_t)t, c.sequence_parallel = sp;
    c.recompute = rc, c.flash_attention = flash;
    ck_assert_int_eq(mf_memory_plan(&m, &r, &c, &rep), MF_OK);
    return rep.activation_per_layer;
}

START_TEST(test_korthikanti)
{
    const uint64_t s = 2048, b = 1, h = 12288, a = 96, t = 8, sbh = s * b * h, as2b = a * s * s * b;
    /* table 2, bytes per layer (the paper's formulas multiplied out; all exact integers here) */
    ck_assert_uint_eq(layer_bytes(1, 0, MF_MEMORY_RECOMPUTE_NONE, 0), 34 * sbh + 5 * as2b); /* sbh(34 + 5as/h) */
    ck_assert_uint_eq(layer_bytes(8, 0, MF_MEMORY_RECOMPUTE_NONE, 0), 10 * sbh + 24 * sbh / t + 5 * as2b / t);
    ck_assert_uint_eq(layer_bytes(8, 1, MF_MEMORY_RECOMPUTE_NONE, 0), (34 * sbh + 5 * as2b) / t);
    ck_assert_uint_eq(layer_bytes(8, 0, MF_MEMORY_RECOMPUTE_SELECTIVE, 0), 10 * sbh + 24 * sbh / t);
    ck_assert_uint_eq(layer_bytes(8, 1, MF_MEMORY_RECOMPUTE_SELECTIVE, 0), 34 * sbh / t);
    ck_assert_uint_eq(layer_bytes(1, 0, MF_MEMORY_RECOMPUTE_FULL, 0), 2 * sbh);
    ck_assert_uint_eq(layer_bytes(8, 1, MF_MEMORY_RECOMPUTE_FULL, 0), 2 * sbh / t);
    /* FlashAttention: no s^2 term; the FP32 logsumexp of each head and row instead */
    ck_assert_uint_eq(layer_bytes(1, 0, MF_MEMORY_RECOMPUTE_NONE, 1), 34 * sbh + 4 * a * s * b);
    /* the paper's headline: 175B, t = 8, SP + selective is 5x below TP alone (table 4's ratio ~ 0.2) */
    ck_assert(layer_bytes(8, 1, MF_MEMORY_RECOMPUTE_SELECTIVE, 0) * 5 < layer_bytes(8, 0, MF_MEMORY_RECOMPUTE_NONE, 0));
}
END_TEST

START_TEST(test_presets)
{
    /* published parameter counts, derived from the shapes */
    static const struct {
        const char *name;
        uint64_t params;
    } want[] = {{"gpt2", 124439808ull},         {"llama2-7b", 6738415616ull},  {"llama2-13b", 13015864320ull},
                {"llama2-70b", 68976648192ull}, {"llama3-8b", 8030261248ull}, {"llama3-70b", 70553706496ull}};
    size_t i;
    mf_memory_recipe r;
    mf_memory_cluster c;
    mf_memory_report rep;
    uint64_t gpu;
    mf_memory_recipe_preset("bf16-amp", &r);
    mf_memory_cluster_default(&c);
    for (i = 0; i < sizeof want / sizeof want[0]; i++) {
        mf_memory_model m;
        ck_assert_str_eq(mf_memory_name(0, (int)i), want[i].name);
        ck_assert_int_eq(mf_memory_model_preset(want[i].name, &m), MF_OK);
        ck_assert_int_eq(mf_memory_plan(&m, &r, &c, &rep), MF_OK);
        ck_assert_msg(rep.params == want[i].params, "%s: %llu", want[i].name, (unsigned long long)rep.params);
        /* mixed-precision Adam: 16 bytes a parameter (2 + 2 + 4 + 8) */
        ck_assert_uint_eq(rep.gpu_total - rep.gpu[MF_MEMORY_PART_ACTIVATIONS], 16 * want[i].params);
    }
    ck_assert_int_eq(mf_memory_model_preset("LLAMA2-7B", &(mf_memory_model){0}), MF_OK);
    ck_assert_int_eq(mf_memory_gpu_preset("H100-80", &gpu), MF_OK);
    ck_assert_uint_eq(gpu, 80ull << 30);
    ck_assert_int_eq(mf_memory_gpu_preset("h200", &gpu), MF_OK);
    ck_assert_uint_eq(gpu, 141ull << 30);
    ck_assert_ptr_null(mf_memory_name(1, 8));
    ck_assert_str_eq(mf_memory_name(3, MF_MEMORY_PART_GATHER), "gather");
    ck_assert_ptr_null(mf_memory_name(4, 0));
    ck_assert_ptr_null(mf_memory_name(0, -1));
}
END_TEST

/* Bytes of the block formats come from the library's size functions: MXFP8 is 8.25 bits an element,
 * NVFP4 4.5 bits and one FP32 tensor scale, 8-bit block states one byte and an FP32 per block. */
START_TEST(test_block_formats)
{
    mf_memory_model m;
    mf_memory_recipe r;
    mf_memory_cluster c;
    mf_memory_report rep;
    const uint64_t P = 1ull << 20;
    mf_memory_cluster_default(&c);
    memset(&m, 0, sizeof m);
    /* an MLP 64 -> 64 (one hidden layer, 32 x 64 batch), to see the GEMM copy alone */
    m.arch = MF_MEMORY_MLP, m.layers = 1, m.hidden = 64, m.inputs = 64, m.outputs = 64, m.micro_batch = 32;
    mf_memory_recipe_preset("mxfp8", &r);
    ck_assert_int_eq(mf_memory_plan(&m, &r, &c, &rep), MF_OK);
    ck_assert_uint_eq(rep.gpu[MF_MEMORY_PART_GEMM_COPY], 2 * 2 * (64 * 64 + 64 * 64 / 32)); /* W, W^T */
    mf_memory_recipe_preset("nvfp4", &r);
    ck_assert_int_eq(mf_memory_plan(&m, &r, &c, &rep), MF_OK);
    ck_assert_uint_eq(rep.gpu[MF_MEMORY_PART_GEMM_COPY], 2 * 2 * (64 * 64 / 2 + 64 * 64 / 16 + 4));
    /* 8-bit block-quantized Adam states */
    m = counts(P, 0);
    mf_memory_recipe_preset("bf16-amp", &r);
    r.adam_m.format = r.adam_v.format = MF_FP8_E4M3;
    r.adam_m.scaling = r.adam_v.scaling = MF_MEMORY_SCALE_BLOCK;
    ck_assert_int_eq(mf_memory_plan(&m, &r, &c, &rep), MF_OK);
    ck_assert_uint_eq(rep.gpu[MF_MEMORY_PART_OPTIMIZER], 2 * (P + 4 * (P / 2048)));
    /* FP8 delayed scaling state: TE's layout, history + scale + scale_inv in FP32, per scaled tensor */
    mf_memory_model_preset("gpt2", &m);
    mf_memory_recipe_preset("te-fp8-delayed", &r);
    ck_assert_int_eq(mf_memory_plan(&m, &r, &c, &rep), MF_OK);
    ck_assert_uint_eq(rep.gpu[MF_MEMORY_PART_SCALING], 12 * 4 * 5 * (1024 + 2) * 4);
    /* fp16-amp: the loss scaler */
    mf_memory_recipe_preset("fp16-amp", &r);
    ck_assert_int_eq(mf_memory_plan(&m, &r, &c, &rep), MF_OK);
    ck_assert_uint_eq(rep.gpu[MF_MEMORY_PART_SCALING], sizeof(mf_loss_scaler));
}
END_TEST

START_TEST(test_fit)
{
    mf_memory_model m;
    mf_memory_recipe r;
    mf_memory_cluster c;
    mf_memory_report rep, at;
    mf_memory_model_preset("llama2-7b", &m);
    mf_memory_recipe_preset("bf16-amp", &r);
    mf_memory_cluster_default(&c);
    mf_memory_gpu_preset("a100-40", &c.gpu_bytes);
    c.zero_stage = 3;
    c.recompute = MF_MEMORY_RECOMPUTE_FULL;
    ck_assert_int_eq(mf_memory_plan(&m, &r, &c, &rep), MF_OK);
    ck_assert_int_eq(rep.fits, 0);
    ck_assert_uint_gt(rep.min_gpus, 1);
    /* the fewest: it fits there and not on one fewer */
    c.gpus_per_node = rep.min_gpus;
    ck_assert_int_eq(mf_memory_plan(&m, &r, &c, &at), MF_OK);
    ck_assert_int_eq(at.fits, 1);
    c.gpus_per_node = rep.min_gpus - 1;
    ck_assert_int_eq(mf_memory_plan(&m, &r, &c, &at), MF_OK);
    ck_assert_int_eq(at.fits, 0);
    /* stage 0 replicates everything: more GPUs never help */
    c.zero_stage = 0, c.gpus_per_node = 1;
    ck_assert_int_eq(mf_memory_plan(&m, &r, &c, &rep), MF_OK);
    ck_assert_int_eq(rep.fits, 0);
    ck_assert_uint_eq(rep.min_gpus, 0);
    /* the reserve counts */
    c.gpu_bytes = 0, c.reserve_bytes = 1000;
    ck_assert_int_eq(mf_memory_plan(&m, &r, &c, &at), MF_OK);
    ck_assert_uint_eq(at.gpu_total, rep.gpu_total + 1000);
}
END_TEST

START_TEST(test_errors)
{
    mf_memory_model m, good;
    mf_memory_recipe r;
    mf_memory_cluster c;
    mf_memory_report rep, untouched;
    mf_memory_model_preset("gpt2", &good);
    mf_memory_recipe_preset("bf16-amp", &r);
    mf_memory_cluster_default(&c);
    memset(&rep, 0xA5, sizeof rep);
    untouched = rep;
    ck_assert_int_eq(mf_memory_plan(NULL, &r, &c, &rep), MF_E_NULL);
    ck_assert_int_eq(mf_memory_plan(&good, NULL, &c, &rep), MF_E_NULL);
    ck_assert_int_eq(mf_memory_plan(&good, &r, NULL, &rep), MF_E_NULL);
    ck_assert_int_eq(mf_memory_plan(&good, &r, &c, NULL), MF_E_NULL);
    ck_assert_int_eq(mf_memory_model_preset("gpt5", &m), MF_E_ARG);
    ck_assert_int_eq(mf_memory_model_preset(NULL, &m), MF_E_NULL);
    ck_assert_int_eq(mf_memory_recipe_preset("fp8", &r), MF_E_ARG);
    ck_assert_int_eq(mf_memory_gpu_preset("v100", &c.gpu_bytes), MF_E_ARG);
    ck_assert_int_eq(mf_memory_cluster_default(NULL), MF_E_NULL);
    /* zero sizes */
    m = good, m.hidden = 0;
    ck_assert_int_eq(mf_memory_plan(&m, &r, &c, &rep), MF_E_ARG);
    m = good, m.heads = 0;
    ck_assert_int_eq(mf_memory_plan(&m, &r, &c, &rep), MF_E_ARG);
    m = good, m.seq = 0;
    ck_assert_int_eq(mf_memory_plan(&m, &r, &c, &rep), MF_E_ARG);
    m = counts(0, 0);
    ck_assert_int_eq(mf_memory_plan(&m, &r, &c, &rep), MF_E_ARG);
    m = counts(10, 11); /* largest layer above the total */
    ck_assert_int_eq(mf_memory_plan(&m, &r, &c, &rep), MF_E_ARG);
    m = good, m.heads = 7; /* 768 not divisible by 7 */
    ck_assert_int_eq(mf_memory_plan(&m, &r, &c, &rep), MF_E_ARG);
    /* overflow in products */
    m = counts(UINT64_MAX / 2, 0);
    ck_assert_int_eq(mf_memory_plan(&m, &r, &c, &rep), MF_E_SIZE);
    m = good, m.hidden = 1ull << 40, m.heads = 1, m.kv_heads = 1;
    ck_assert_int_eq(mf_memory_plan(&m, &r, &c, &rep), MF_E_SIZE);
    m = good, m.seq = 1ull << 40;
    ck_assert_int_eq(mf_memory_plan(&m, &r, &c, &rep), MF_E_SIZE);
    /* the cluster */
    c.gpus_per_node = 0;
    ck_assert_int_eq(mf_memory_plan(&good, &r, &c, &rep), MF_E_ARG);
    mf_memory_cluster_default(&c), c.zero_stage = 4;
    ck_assert_int_eq(mf_memory_plan(&good, &r, &c, &rep), MF_E_ARG);
    mf_memory_cluster_default(&c), c.offload_params = 1, c.zero_stage = 2;
    ck_assert_int_eq(mf_memory_plan(&good, &r, &c, &rep), MF_E_ARG);
    mf_memory_cluster_default(&c), c.tensor_parallel = 5, c.gpus_per_node = 5; /* 12 heads */
    ck_assert_int_eq(mf_memory_plan(&good, &r, &c, &rep), MF_E_ARG);
    mf_memory_cluster_default(&c), c.tensor_parallel = 2; /* 1 GPU */
    ck_assert_int_eq(mf_memory_plan(&good, &r, &c, &rep), MF_E_ARG);
    mf_memory_cluster_default(&c), c.cpu_buffer_factor = -1;
    ck_assert_int_eq(mf_memory_plan(&good, &r, &c, &rep), MF_E_ARG);
    mf_memory_cluster_default(&c), c.recompute = (mf_memory_recompute)7;
    ck_assert_int_eq(mf_memory_plan(&good, &r, &c, &rep), MF_E_ARG);
    /* formats a tensor class cannot take */
    mf_memory_cluster_default(&c);
    r.params = MF_FP64;
    ck_assert_int_eq(mf_memory_plan(&good, &r, &c, &rep), MF_E_FORMAT);
    mf_memory_recipe_preset("mxfp8", &r);
    r.act_gemm.format = MF_BF16; /* not an MX element format */
    ck_assert_int_eq(mf_memory_plan(&good, &r, &c, &rep), MF_E_FORMAT);
    mf_memory_recipe_preset("nvfp4", &r);
    r.gemm_weights.format = MF_FP8_E4M3;
    ck_assert_int_eq(mf_memory_plan(&good, &r, &c, &rep), MF_E_FORMAT);
    mf_memory_recipe_preset("mxfp8", &r);
    m = good, m.hidden = 96, m.heads = 3, m.kv_heads = 3, m.ffn = 100; /* 100 is no multiple of 32 */
    ck_assert_int_eq(mf_memory_plan(&m, &r, &c, &rep), MF_E_ARG);
    ck_assert_mem_eq(&rep, &untouched, sizeof rep); /* nothing written on error */
}
END_TEST

/* The demo's recipe: it emulates every format in binary32 (rounded values in float arrays), keeps FP32
 * master weights (w, b), a rounded copy of every parameter (wq, bq), a transposed copy of each rounded
 * weight (wt), FP32 gradients and moments; fp8 adds three delayed-scaling states per linear layer
 * (each a mf_fp8_delayed), fp16-ls the loss scaler. */
static void demo_recipe(demo_config cfg, mf_memory_recipe *r)
{
    mf_memory_recipe_preset("fp32", r);
    r->name = "demo";
    r->master = 1;
    r->gemm_transposed = 1;
    r->gemm_weights.format = MF_FP32;
    r->gemm_weights.scaling = MF_MEMORY_SCALE_NONE;
    if (cfg == DEMO_FP8) {
        r->act_gemm.scaling = MF_MEMORY_SCALE_TENSOR;
        r->scaled_per_linear = 3;
        r->scale_state_bytes = sizeof(mf_fp8_delayed);
    }
    r->loss_scaler = cfg == DEMO_FP16_LS;
}

START_TEST(test_demo_allocations)
{
    static const int shapes[][3] = {{64, 3, 512}, {32, 1, 32}, {128, 8, 96}}; /* hidden, layers, batch */
    size_t k;
    for (k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        int cfg;
        for (cfg = 0; cfg < DEMO_CONFIG_COUNT; cfg++) {
            demo_params p = demo_params_default(1);
            demo_trainer t;
            mf_memory_model m;
            mf_memory_recipe r;
            mf_memory_cluster c;
            mf_memory_report rep;
            p.hidden = shapes[k][0], p.layers = shapes[k][1], p.batch = shapes[k][2];
            ck_assert_int_eq(demo_params_check(&p, NULL, 0), MF_OK);
            ck_assert_int_eq(demo_trainer_init(&t, &p, (demo_config)cfg), MF_OK);
            memset(&m, 0, sizeof m);
            m.arch = MF_MEMORY_MLP;
            m.layers = (uint64_t)p.layers, m.hidden = (uint64_t)p.hidden, m.micro_batch = (uint64_t)p.batch;
            m.inputs = 2, m.outputs = 2;
            demo_recipe((demo_config)cfg, &r);
            mf_memory_cluster_default(&c);
            ck_assert_int_eq(mf_memory_plan(&m, &r, &c, &rep), MF_OK);
            ck_assert_uint_eq(t.mem.master, rep.gpu[MF_MEMORY_PART_MASTER]);
            ck_assert_uint_eq(t.mem.params, rep.gpu[MF_MEMORY_PART_PARAMS]);
            ck_assert_uint_eq(t.mem.transposed, rep.gpu[MF_MEMORY_PART_GEMM_COPY]);
            ck_assert_uint_eq(t.mem.grads, rep.gpu[MF_MEMORY_PART_GRADS]);
            ck_assert_uint_eq(t.mem.optimizer, rep.gpu[MF_MEMORY_PART_OPTIMIZER]);
            ck_assert_uint_eq(t.mem.scaling, rep.gpu[MF_MEMORY_PART_SCALING]);
            ck_assert_uint_eq(t.mem.activations, rep.gpu[MF_MEMORY_PART_ACTIVATIONS]);
            ck_assert_uint_eq(rep.gpu[MF_MEMORY_PART_GRAD_ACCUM] + rep.gpu[MF_MEMORY_PART_GATHER], 0);
            demo_trainer_free(&t);
        }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("memory");
    TCase *tc = tcase_create("memory");
    tcase_add_test(tc, test_deepspeed_cold);
    tcase_add_test(tc, test_deepspeed_live);
    tcase_add_test(tc, test_accelerate);
    tcase_add_test(tc, test_zero_paper);
    tcase_add_test(tc, test_korthikanti);
    tcase_add_test(tc, test_presets);
    tcase_add_test(tc, test_block_formats);
    tcase_add_test(tc, test_fit);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_demo_allocations);
    tcase_set_timeout(tc, 30);
    suite_add_tcase(s, tc);
    return mf_run_suite(s);
}
