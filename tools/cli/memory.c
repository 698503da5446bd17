/* SPDX-License-Identifier: MIT */
/* tools/cli/memory.c - `minifloat memory`: what a training run keeps in memory per GPU, per precision
 * recipe (mf_memory_plan, <minifloat/memory.h>); a block per recipe, CSV, or a stacked-bar SVG.
 * docs/memory.md explains every line; docs/cli.md the options. */
#include <stdlib.h>
#include <string.h>

#include <minifloat/lab.h>

#include "cli_util.h"
#include "commands.h"
#include "svg.h"

static const cli_voice voice = {"minifloat memory: ", "minifloat memory"};

#define MEM_MAX_RECIPES 8
#define GIB 1073741824.0

static const char mem_usage[] =
    "usage: minifloat memory [options]\n"
    "\n"
    "What training keeps in memory on each GPU, per precision recipe: FP32 master weights, parameters,\n"
    "cast weight copies (FP8, MX, NVFP4), gradients, Adam moments, FP8 scaling state, activations\n"
    "(Korthikanti et al.) and ZeRO's sharding; every byte from the library's format sizes\n"
    "(mf_memory_plan; docs/memory.md). GiB = 2^30 bytes.\n"
    "\n"
    "model\n"
    "  --model NAME       gpt2 llama2-7b llama2-13b llama2-70b llama3-8b llama3-70b (default llama2-7b)\n"
    "  --params N         a model given by its parameter count alone (no activations), with\n"
    "  --largest-layer N  the parameters of its largest module (ZeRO-3)\n"
    "  --seq N            sequence length (default: the model's context)\n"
    "  --micro-batch N    sequences per GPU per step (default 1)\n"
    "  --layers N, --hidden N, --heads N, --kv-heads N, --ffn N, --vocab N   change the shape\n"
    "recipes\n"
    "  --recipes LIST     comma-separated: fp32 bf16-amp fp16-amp bf16-pure te-fp8-delayed\n"
    "                     te-fp8-current mxfp8 nvfp4, or all (default all)\n"
    "  --grad-accum       add an FP32 gradient buffer to every recipe (Megatron's main_grad)\n"
    "  --optimizer KIND   Adam m and v as f32, bf16, or 8bit (one byte each plus an FP32 absmax\n"
    "                     per 2048, bitsandbytes' block-wise states), in every recipe\n"
    "  --amax-history N   FP8 delayed scaling history length (default 1024)\n"
    "GPUs\n"
    "  --gpu NAME         a100-40 a100-80 h100-80 h200 b200 rtx4090 rtx5090 (default h100-80)\n"
    "  --gpu-mem GIB      the GPU's memory in GiB instead\n"
    "  --reserve GIB      per GPU, taken before the plan (CUDA context, NCCL buffers; default 0)\n"
    "  --gpus N           GPUs in all (default 1), --gpus-per-node N (default min(N, 8))\n"
    "  --tp T             tensor parallelism (default 1); --sp: sequence parallelism too\n"
    "  --zero S           ZeRO stage 0-3 over the data-parallel ranks (default 0)\n"
    "  --zero-rule R      paper (default: the ZeRO paper's sharding) or deepspeed (its estimators)\n"
    "  --offload WHAT     none, optimizer, or params (and optimizer; ZeRO 3)\n"
    "  --zero-init        deepspeed rule, ZeRO 3: the model is built partitioned (zero.Init)\n"
    "  --recompute KIND   none (default), selective (the attention core) or full\n"
    "  --flash            FlashAttention: no s^2 attention activations\n";
static const char mem_usage_tail[] =
    "output\n"
    "  --csv              CSV on stdout (bytes) instead of the tables\n"
    "  --plot FILE.svg    a stacked bar per recipe, GiB per GPU\n"
    "  -h, --help         this text\n"
    "\n"
    "exit status: 0 success, 1 a figure overflows 64 bits or a file cannot be written, 2 usage error\n";

typedef struct mem_options {
    mf_memory_model model;
    mf_memory_cluster cluster;
    int nrecipes;
    int recipes[MEM_MAX_RECIPES];
    const char *gpu_name;
    int grad_accum;
    int optimizer; /* 0 recipe's, 1 f32, 2 bf16, 3 8bit */
    int amax_history; /* -1: recipe's */
    int csv;
    const char *plot;
} mem_options;

static int recipe_lookup(const char *name, int *item)
{
    int i;
    const char *n;
    for (i = 0; (n = mf_memory_name(1, i)) != NULL; i++)
        if (cli_name_eq(name, n)) {
            *item = i;
            return 1;
        }
    return 0;
}

/* The names of kind (mf_memory_name) separated by spaces, for messages. */
static const char *names_of(int kind, char *buf, size_t size)
{
    int i;
    const char *n;
    size_t len = 0;
    buf[0] = 0;
    for (i = 0; (n = mf_memory_name(kind, i)) != NULL && len + strlen(n) + 2 < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? " " : "", n);
    return buf;
}

/* A positive count up to max, or a usage error naming opt. */
static int parse_count(const char *opt, const char *val, uint64_t max, uint64_t *out)
{
    uint64_t u;
    if (!val || !cli_parse_uint(val, max, &u) || u == 0)
        return cli_usage_error(&voice, "%s needs a whole number from 1 to %llu", opt, (unsigned long long)max);
    *out = u;
    return 0;
}

/* GiB as a number of bytes: 0 <= x, x * 2^30 below 2^63. */
static int parse_gib(const char *opt, const char *val, int allow_zero, uint64_t *out)
{
    double d;
    if (!val || !cli_parse_double(val, &d) || !(d >= 0) || (d == 0 && !allow_zero) || d * GIB >= 9.2e18)
        return cli_usage_error(&voice, "%s needs a number of GiB%s", opt, allow_zero ? " (0 or more)" : " above 0");
    *out = (uint64_t)(d * GIB);
    return 0;
}

static int parse_options(int argc, char **argv, mem_options *o)
{
    int i, r, rc, have_model = 0, have_params = 0;
    uint64_t u, gpus = 1, per_node = 0, gpu_mem = 0, largest = 0;
    const char *val, *shape_opt = NULL;
    uint64_t shape[8];
    int shape_set[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    static const char *const shape_names[8] = {"--layers", "--hidden", "--heads", "--kv-heads",
                                               "--ffn",    "--vocab",  "--seq",   "--micro-batch"};
    char names[160];
    memset(o, 0, sizeof *o);
    mf_memory_cluster_default(&o->cluster);
    mf_memory_model_preset("llama2-7b", &o->model);
    o->gpu_name = "h100-80";
    o->amax_history = -1;
    o->nrecipes = 0;
    for (i = 2; i < argc; i++) {
        const char *a = argv[i];
        int k, matched = 0;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(mem_usage, stdout);
            fputs(mem_usage_tail, stdout);
            return -1;
        }
        for (k = 0; k < 8 && !matched; k++)
            if ((r = cli_opt_value(argc, argv, &i, shape_names[k], NULL, &val)) != 0) {
                if ((rc = parse_count(shape_names[k], r < 0 ? NULL : val, 1ull << 40, &shape[k])) != 0)
                    return rc;
                shape_set[k] = matched = 1;
                if (k < 6)
                    shape_opt = shape_names[k];
            }
        if (matched)
            continue;
        if ((r = cli_opt_value(argc, argv, &i, "--model", NULL, &val)) != 0) {
            if (r < 0)
                return cli_usage_error(&voice, "option '%s' needs a value", a);
            if (mf_memory_model_preset(val, &o->model) != MF_OK)
                return cli_usage_error(&voice, "--model: unknown model '%s' (%s)", val, names_of(0, names, sizeof names));
            have_model = 1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--params", NULL, &val)) != 0) {
            if ((rc = parse_count("--params", r < 0 ? NULL : val, UINT64_MAX, &u)) != 0)
                return rc;
            o->model.params = u;
            have_params = 1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--largest-layer", NULL, &val)) != 0) {
            if ((rc = parse_count("--largest-layer", r < 0 ? NULL : val, UINT64_MAX, &largest)) != 0)
                return rc;
        } else if ((r = cli_opt_value(argc, argv, &i, "--recipes", NULL, &val)) != 0) {
            if (r < 0)
                return cli_usage_error(&voice, "option '%s' needs a value", a);
            if (cli_name_eq(val, "all"))
                o->nrecipes = 0;
            else if ((rc = cli_parse_list(&voice, "--recipes", "recipe", val, recipe_lookup,
                                          names_of(1, names, sizeof names), o->recipes, MEM_MAX_RECIPES,
                                          &o->nrecipes)) != 0)
                return rc;
        } else if (strcmp(a, "--grad-accum") == 0) {
            o->grad_accum = 1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--optimizer", NULL, &val)) != 0) {
            if (r < 0)
                return cli_usage_error(&voice, "option '%s' needs a value", a);
            if (cli_name_eq(val, "f32"))
                o->optimizer = 1;
            else if (cli_name_eq(val, "bf16"))
                o->optimizer = 2;
            else if (cli_name_eq(val, "8bit"))
                o->optimizer = 3;
            else
                return cli_usage_error(&voice, "--optimizer: unknown kind '%s' (f32 bf16 8bit)", val);
        } else if ((r = cli_opt_value(argc, argv, &i, "--amax-history", NULL, &val)) != 0) {
            if ((rc = parse_count("--amax-history", r < 0 ? NULL : val, 1u << 20, &u)) != 0)
                return rc;
            o->amax_history = (int)u;
        } else if ((r = cli_opt_value(argc, argv, &i, "--gpu", NULL, &val)) != 0) {
            if (r < 0)
                return cli_usage_error(&voice, "option '%s' needs a value", a);
            if (mf_memory_gpu_preset(val, &u) != MF_OK)
                return cli_usage_error(&voice, "--gpu: unknown GPU '%s' (%s)", val, names_of(2, names, sizeof names));
            o->gpu_name = mf_memory_name(2, 0); /* replaced below by the matching name */
            for (k = 0; mf_memory_name(2, k); k++)
                if (cli_name_eq(val, mf_memory_name(2, k)))
                    o->gpu_name = mf_memory_name(2, k);
        } else if ((r = cli_opt_value(argc, argv, &i, "--gpu-mem", NULL, &val)) != 0) {
            if ((rc = parse_gib("--gpu-mem", r < 0 ? NULL : val, 0, &gpu_mem)) != 0)
                return rc;
        } else if ((r = cli_opt_value(argc, argv, &i, "--reserve", NULL, &val)) != 0) {
            if ((rc = parse_gib("--reserve", r < 0 ? NULL : val, 1, &o->cluster.reserve_bytes)) != 0)
                return rc;
        } else if ((r = cli_opt_value(argc, argv, &i, "--gpus", NULL, &val)) != 0) {
            if ((rc = parse_count("--gpus", r < 0 ? NULL : val, 65536, &gpus)) != 0)
                return rc;
        } else if ((r = cli_opt_value(argc, argv, &i, "--gpus-per-node", NULL, &val)) != 0) {
            if ((rc = parse_count("--gpus-per-node", r < 0 ? NULL : val, 65536, &per_node)) != 0)
                return rc;
        } else if ((r = cli_opt_value(argc, argv, &i, "--tp", NULL, &val)) != 0) {
            if ((rc = parse_count("--tp", r < 0 ? NULL : val, 65536, &u)) != 0)
                return rc;
            o->cluster.tensor_parallel = (uint32_t)u;
        } else if (strcmp(a, "--sp") == 0) {
            o->cluster.sequence_parallel = 1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--zero", NULL, &val)) != 0) {
            if (r < 0 || !cli_parse_int(val, 0, 3, &o->cluster.zero_stage))
                return cli_usage_error(&voice, "--zero needs a stage from 0 to 3");
        } else if ((r = cli_opt_value(argc, argv, &i, "--zero-rule", NULL, &val)) != 0) {
            if (r < 0)
                return cli_usage_error(&voice, "option '%s' needs a value", a);
            if (cli_name_eq(val, "paper"))
                o->cluster.zero_rule = MF_MEMORY_ZERO_PAPER;
            else if (cli_name_eq(val, "deepspeed"))
                o->cluster.zero_rule = MF_MEMORY_ZERO_DEEPSPEED;
            else
                return cli_usage_error(&voice, "--zero-rule: unknown rule '%s' (paper deepspeed)", val);
        } else if ((r = cli_opt_value(argc, argv, &i, "--offload", NULL, &val)) != 0) {
            if (r < 0)
                return cli_usage_error(&voice, "option '%s' needs a value", a);
            if (cli_name_eq(val, "none"))
                o->cluster.offload_optimizer = o->cluster.offload_params = 0;
            else if (cli_name_eq(val, "optimizer"))
                o->cluster.offload_optimizer = 1, o->cluster.offload_params = 0;
            else if (cli_name_eq(val, "params"))
                o->cluster.offload_optimizer = o->cluster.offload_params = 1;
            else
                return cli_usage_error(&voice, "--offload: unknown part '%s' (none optimizer params)", val);
        } else if (strcmp(a, "--zero-init") == 0) {
            o->cluster.zero_init = 1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--recompute", NULL, &val)) != 0) {
            if (r < 0)
                return cli_usage_error(&voice, "option '%s' needs a value", a);
            if (cli_name_eq(val, "none"))
                o->cluster.recompute = MF_MEMORY_RECOMPUTE_NONE;
            else if (cli_name_eq(val, "selective"))
                o->cluster.recompute = MF_MEMORY_RECOMPUTE_SELECTIVE;
            else if (cli_name_eq(val, "full"))
                o->cluster.recompute = MF_MEMORY_RECOMPUTE_FULL;
            else
                return cli_usage_error(&voice, "--recompute: unknown kind '%s' (none selective full)", val);
        } else if (strcmp(a, "--flash") == 0) {
            o->cluster.flash_attention = 1;
        } else if (strcmp(a, "--csv") == 0) {
            o->csv = 1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--plot", NULL, &val)) != 0) {
            if ((rc = cli_parse_svg_path(&voice, "--plot", r, val, &o->plot)) != 0)
                return rc;
        } else if (a[0] == '-') {
            return cli_usage_error(&voice, "unknown option '%s'", a);
        } else {
            return cli_usage_error(&voice, "unexpected argument '%s'", a);
        }
    }
    if (have_params && have_model)
        return cli_usage_error(&voice, "--params and --model exclude each other (--params describes a model by its "
                                       "counts alone)");
    if (largest && !have_params)
        return cli_usage_error(&voice, "--largest-layer needs --params");
    if (have_params) {
        uint64_t params = o->model.params;
        if (shape_opt)
            return cli_usage_error(&voice, "%s and --params exclude each other", shape_opt);
        memset(&o->model, 0, sizeof o->model);
        o->model.name = "--params";
        o->model.params = params;
        o->model.largest_layer_params = largest;
        if (largest > params)
            return cli_usage_error(&voice, "--largest-layer %llu is more than --params %llu",
                                   (unsigned long long)largest, (unsigned long long)params);
    } else {
        uint64_t *f[8];
        int k;
        f[0] = &o->model.layers, f[1] = &o->model.hidden, f[2] = &o->model.heads, f[3] = &o->model.kv_heads;
        f[4] = &o->model.ffn, f[5] = &o->model.vocab, f[6] = &o->model.seq, f[7] = &o->model.micro_batch;
        for (k = 0; k < 8; k++)
            if (shape_set[k])
                *f[k] = shape[k];
    }
    if (per_node == 0)
        per_node = gpus < 8 ? gpus : 8;
    if (gpus % per_node != 0)
        return cli_usage_error(&voice, "--gpus %llu is not a multiple of --gpus-per-node %llu",
                               (unsigned long long)gpus, (unsigned long long)per_node);
    o->cluster.gpus_per_node = (uint32_t)per_node;
    o->cluster.nodes = (uint32_t)(gpus / per_node);
    if (gpus % o->cluster.tensor_parallel != 0)
        return cli_usage_error(&voice, "--gpus %llu is not a multiple of --tp %u", (unsigned long long)gpus,
                               o->cluster.tensor_parallel);
    if (o->cluster.offload_params && o->cluster.zero_stage != 3)
        return cli_usage_error(&voice, "--offload params needs --zero 3");
    if (gpu_mem)
        o->gpu_name = NULL;
    else
        mf_memory_gpu_preset(o->gpu_name, &gpu_mem);
    o->cluster.gpu_bytes = gpu_mem;
    if (o->nrecipes == 0) {
        int k;
        for (k = 0; k < MEM_MAX_RECIPES && mf_memory_name(1, k); k++)
            o->recipes[k] = k;
        o->nrecipes = k;
    }
    return 0;
}

/* ---- one recipe ------------------------------------------------------------------------------- */

static void apply_options(const mem_options *o, mf_memory_recipe *r)
{
    if (o->grad_accum)
        r->grad_accum = 1;
    if (o->optimizer == 1 || o->optimizer == 2) {
        r->adam_m.format = r->adam_v.format = o->optimizer == 1 ? MF_FP32 : MF_BF16;
        r->adam_m.scaling = r->adam_v.scaling = MF_MEMORY_SCALE_NONE;
    } else if (o->optimizer == 3) { /* one byte per element (any 8-bit code), FP32 absmax per 2048 */
        r->adam_m.format = r->adam_v.format = MF_FP8_E4M3;
        r->adam_m.scaling = r->adam_v.scaling = MF_MEMORY_SCALE_BLOCK;
        r->adam_m.block_size = r->adam_v.block_size = 2048;
    }
    if (o->amax_history > 0 && r->amax_history > 1)
        r->amax_history = (uint32_t)o->amax_history;
}

static void tensor_desc(char *buf, size_t size, const mf_memory_tensor *t)
{
    switch (t->scaling) {
    case MF_MEMORY_SCALE_TENSOR: snprintf(buf, size, "%s, per-tensor scale", mf_format_name(t->format)); break;
    case MF_MEMORY_SCALE_MX: snprintf(buf, size, "MX %s + e8m0 per 32", mf_format_name(t->format)); break;
    case MF_MEMORY_SCALE_NVFP4: snprintf(buf, size, "NVFP4 e2m1 + e4m3 per 16"); break;
    case MF_MEMORY_SCALE_BLOCK:
        snprintf(buf, size, "8-bit + f32 absmax per %u", t->block_size ? t->block_size : 2048u);
        break;
    default: snprintf(buf, size, "%s", mf_format_name(t->format)); break;
    }
}

/* The label of part p of recipe r. */
static void part_label(char *buf, size_t size, int p, const mf_memory_recipe *r, const mf_memory_cluster *cl)
{
    char t1[48], t2[24];
    switch (p) {
    case MF_MEMORY_PART_MASTER: snprintf(buf, size, "master weights (f32)"); break;
    case MF_MEMORY_PART_PARAMS: snprintf(buf, size, "parameters (%s)", mf_format_name(r->params)); break;
    case MF_MEMORY_PART_GEMM_COPY:
        tensor_desc(t1, sizeof t1, &r->gemm_weights);
        snprintf(buf, size, "weight casts%s (%s)",
                 r->gemm_copy && r->gemm_transposed ? " + transposed" : r->gemm_transposed ? ", transposed" : "", t1);
        break;
    case MF_MEMORY_PART_GRADS: snprintf(buf, size, "gradients (%s)", mf_format_name(r->grads)); break;
    case MF_MEMORY_PART_GRAD_ACCUM: snprintf(buf, size, "gradient buffer (f32)"); break;
    case MF_MEMORY_PART_OPTIMIZER:
        tensor_desc(t1, sizeof t1, &r->adam_m);
        snprintf(buf, size, "Adam m, v (%s)", t1);
        break;
    case MF_MEMORY_PART_SCALING:
        snprintf(buf, size, "%s", r->loss_scaler ? "loss scaler" : r->amax_history > 1 ? "amax histories, scales" : "amax, scales");
        break;
    case MF_MEMORY_PART_ACTIVATIONS:
        tensor_desc(t1, sizeof t1, &r->act_gemm);
        snprintf(t2, sizeof t2, "%s", mf_format_name(r->act_other));
        snprintf(buf, size, "activations (GEMM inputs %s; %s)", t1, t2);
        break;
    default: snprintf(buf, size, "ZeRO-3 gathered layer"); break;
    }
    (void)cl;
}

static const char *const part_colours[MF_MEMORY_PART_COUNT] = {"#1f77b4", "#aec7e8", "#17becf", "#ff7f0e", "#ffbb78",
                                                               "#2ca02c", "#d62728", "#9467bd", "#8c564b"};

static void print_header(const mem_options *o, const mf_memory_report *rep)
{
    const mf_memory_model *m = &o->model;
    const mf_memory_cluster *c = &o->cluster;
    static const char *const rec[] = {"none", "selective", "full"};
    printf("model      %s: %llu parameters", m->name ? m->name : "custom", (unsigned long long)rep->params);
    if (m->layers)
        printf(" (linear layers %llu, largest layer %llu); seq %llu, micro-batch %llu\n",
               (unsigned long long)rep->linear_params, (unsigned long long)rep->largest_layer_params,
               (unsigned long long)m->seq, (unsigned long long)(m->micro_batch ? m->micro_batch : 1));
    else
        printf(" (largest layer %llu); no shape, no activations\n", (unsigned long long)rep->largest_layer_params);
    printf("GPUs       %u x %s (%.2f GiB)", rep->gpus, o->gpu_name ? o->gpu_name : "--gpu-mem", (double)c->gpu_bytes / GIB);
    if (c->nodes > 1)
        printf(", %u nodes of %u", c->nodes, c->gpus_per_node);
    printf("; tensor parallel %u%s, data parallel %u\n", c->tensor_parallel, c->sequence_parallel ? " + sequence" : "",
           rep->data_parallel);
    printf("training   ZeRO %d (%s rule), offload %s%s, recompute %s%s\n", c->zero_stage,
           c->zero_rule == MF_MEMORY_ZERO_DEEPSPEED ? "deepspeed" : "paper",
           c->offload_params ? "params+optimizer" : c->offload_optimizer ? "optimizer" : "none",
           c->zero_init ? ", zero.Init" : "", rec[c->recompute], c->flash_attention ? ", FlashAttention" : "");
    if (c->reserve_bytes)
        printf("reserve    %.2f GiB per GPU\n", (double)c->reserve_bytes / GIB);
}

/* bytes as GiB with two decimals; "<0.01" for a nonzero amount below that */
static const char *gib(char *buf, double bytes)
{
    if (bytes > 0 && bytes / GIB < 0.005)
        return "<0.01";
    snprintf(buf, 32, "%.2f", bytes / GIB);
    return buf;
}

static void print_recipe(const mem_options *o, const mf_memory_recipe *r, const mf_memory_report *rep)
{
    char label[160], g1[32], g2[32];
    int p;
    printf("\n%-58s %12s %14s\n", r->name, "GiB per GPU", "GiB all GPUs");
    for (p = 0; p < MF_MEMORY_PART_COUNT; p++) {
        if (rep->gpu[p] == 0)
            continue;
        part_label(label, sizeof label, p, r, &o->cluster);
        printf("  %-56s %12s %14s\n", label, gib(g1, rep->gpu[p]), gib(g2, (double)rep->gpu[p] * rep->gpus));
    }
    if (o->cluster.reserve_bytes)
        printf("  %-56s %12.2f %14.2f\n", "reserve", (double)o->cluster.reserve_bytes / GIB,
               (double)o->cluster.reserve_bytes * rep->gpus / GIB);
    printf("  %-56s %12.2f %14.2f\n", "total", (double)rep->gpu_total / GIB, (double)rep->cluster_total / GIB);
    if (rep->cpu_node)
        printf("  %-56s %12.2f\n", "host memory per node", (double)rep->cpu_node / GIB);
    if (rep->fits)
        printf("  fits: yes");
    else
        printf("  fits: no");
    if (rep->min_gpus)
        printf("; fewest GPUs it fits on: %u\n", rep->min_gpus);
    else
        printf("; on no number of GPUs at ZeRO %d with tensor parallel %u\n", o->cluster.zero_stage,
               o->cluster.tensor_parallel);
}

static void print_csv(const mf_memory_recipe *r, const mf_memory_report *rep, const mem_options *o)
{
    int p;
    printf("%s", r->name);
    for (p = 0; p < MF_MEMORY_PART_COUNT; p++)
        printf(",%llu", (unsigned long long)rep->gpu[p]);
    printf(",%llu,%llu,%llu,%llu,%d,%u\n", (unsigned long long)o->cluster.reserve_bytes,
           (unsigned long long)rep->gpu_total, (unsigned long long)rep->cpu_node,
           (unsigned long long)rep->cluster_total, rep->fits, rep->min_gpus);
}

/* ---- the picture ------------------------------------------------------------------------------ */

static int write_plot(const mem_options *o, const mf_memory_recipe *rec, const mf_memory_report *rep, int n)
{
    const double W = 960, H = 560, x0 = 90, y0 = 70, pw = 600, ph = 400;
    double top = (double)o->cluster.gpu_bytes / GIB, step, v;
    char buf[160];
    cli_out out;
    FILE *f;
    int i, p;
    for (i = 0; i < n; i++)
        if ((double)rep[i].gpu_total / GIB > top)
            top = (double)rep[i].gpu_total / GIB;
    if (top <= 0)
        top = 1;
    for (step = 1; top / step > 10; step *= (step == 1 || (int)step % 10 == 0 ? 2 : 2.5))
        ;
    top = step * ((long long)(top / step) + 1);
    if (cli_out_open(&out, o->plot) != 0)
        return -1;
    f = out.f;
    cli_svg_begin(f, W, H);
    snprintf(buf, sizeof buf, "%s: memory per GPU by recipe", o->model.name ? o->model.name : "model");
    cli_svg_text(f, W / 2, 28, buf, 16, "middle", 0, "#000000");
    snprintf(buf, sizeof buf, "%u GPU(s), tensor parallel %u, ZeRO %d, recompute %s; minifloat memory", rep[0].gpus,
             o->cluster.tensor_parallel, o->cluster.zero_stage,
             o->cluster.recompute == MF_MEMORY_RECOMPUTE_FULL        ? "full"
             : o->cluster.recompute == MF_MEMORY_RECOMPUTE_SELECTIVE ? "selective"
                                                                     : "none");
    cli_svg_text(f, W / 2, 48, buf, 12, "middle", 0, "#333333");
    for (v = 0; v <= top + step / 2; v += step) {
        double y = y0 + ph - v / top * ph;
        cli_svg_line(f, x0, y, x0 + pw, y, "#e0e0e0", 0.8, 0);
        snprintf(buf, sizeof buf, "%g", v);
        cli_svg_text(f, x0 - 8, y + 4, buf, 11, "end", 0, "#333333");
    }
    cli_svg_text(f, x0 - 52, y0 + ph / 2, "GiB per GPU", 13, "middle", -90, "#111111");
    for (i = 0; i < n; i++) {
        double bw = pw / n * 0.6, bx = x0 + pw / n * (i + 0.2), acc = 0;
        for (p = 0; p < MF_MEMORY_PART_COUNT; p++) {
            double hgt = (double)rep[i].gpu[p] / GIB / top * ph;
            if (rep[i].gpu[p] == 0)
                continue;
            cli_svg_rect(f, bx, y0 + ph - acc - hgt, bw, hgt, part_colours[p], 1.0);
            acc += hgt;
        }
        snprintf(buf, sizeof buf, "%.1f", (double)rep[i].gpu_total / GIB);
        cli_svg_text(f, bx + bw / 2, y0 + ph - acc - 6, buf, 11, "middle", 0, "#111111");
        cli_svg_text(f, bx + bw / 2, y0 + ph + 16, rec[i].name, 11, "end", -30, "#111111");
    }
    if (o->cluster.gpu_bytes) {
        double y = y0 + ph - (double)o->cluster.gpu_bytes / GIB / top * ph;
        cli_svg_line(f, x0, y, x0 + pw, y, "#000000", 1.5, 6);
        snprintf(buf, sizeof buf, "%s %.0f GiB", o->gpu_name ? o->gpu_name : "GPU", (double)o->cluster.gpu_bytes / GIB);
        cli_svg_text(f, x0 + pw - 4, y - 6, buf, 11, "end", 0, "#000000");
    }
    cli_svg_line(f, x0, y0 + ph, x0 + pw, y0 + ph, "#333333", 1.2, 0);
    cli_svg_line(f, x0, y0, x0, y0 + ph, "#333333", 1.2, 0);
    for (p = 0; p < MF_MEMORY_PART_COUNT; p++) {
        double ly = y0 + 10 + 22 * p;
        cli_svg_rect(f, x0 + pw + 30, ly - 10, 14, 14, part_colours[p], 1.0);
        cli_svg_text(f, x0 + pw + 52, ly + 2, mf_memory_name(3, p), 12, "start", 0, "#111111");
    }
    cli_svg_end(f);
    return cli_out_commit(&out);
}

/* ---- the command ------------------------------------------------------------------------------ */

static int plan_error(const mf_memory_recipe *r, int rc)
{
    if (rc == MF_E_SIZE)
        return cli_data_error(&voice, "%s: a figure does not fit in 64 bits (%s)", r->name, mf_strerror(rc));
    return cli_usage_error(&voice,
                           "%s: the planner refused the shape or layout: hidden must divide by heads, heads by "
                           "kv-heads, heads, kv-heads, ffn and vocab by --tp, a block format's widths by its block "
                           "(docs/memory.md)",
                           r->name);
}

int cli_memory_main(int argc, char **argv)
{
    mem_options o;
    mf_memory_recipe rec[MEM_MAX_RECIPES];
    mf_memory_report rep[MEM_MAX_RECIPES];
    int i, rc = parse_options(argc, argv, &o);
    if (rc != 0)
        return rc < 0 ? 0 : rc;
    for (i = 0; i < o.nrecipes; i++) {
        mf_memory_recipe_preset(mf_memory_name(1, o.recipes[i]), &rec[i]);
        apply_options(&o, &rec[i]);
        if ((rc = mf_memory_plan(&o.model, &rec[i], &o.cluster, &rep[i])) != MF_OK)
            return plan_error(&rec[i], rc);
    }
    if (o.csv) {
        int p;
        printf("recipe");
        for (p = 0; p < MF_MEMORY_PART_COUNT; p++)
            printf(",%s", mf_memory_name(3, p));
        printf(",reserve,gpu_total,cpu_node,cluster_total,fits,min_gpus\n");
        for (i = 0; i < o.nrecipes; i++)
            print_csv(&rec[i], &rep[i], &o);
    } else {
        print_header(&o, &rep[0]);
        for (i = 0; i < o.nrecipes; i++)
            print_recipe(&o, &rec[i], &rep[i]);
    }
    if (o.plot) {
        if (write_plot(&o, rec, rep, o.nrecipes) != 0)
            return cli_data_error(&voice, "cannot write %s", o.plot);
        if (!o.csv)
            printf("\nwrote %s\n", o.plot);
    }
    return 0;
}
