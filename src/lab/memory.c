/* SPDX-License-Identifier: MIT */
/* src/lab/memory.c - mf_memory_plan: the memory of a training run, part by part, per GPU.
 *
 * Every tensor is a count of elements (or rows x cols where a block format needs the shape), turned
 * into bytes by mf_storage_bytes, mf_mx_sizes or mf_nvfp4_sizes; all arithmetic is on uint64_t with a
 * sticky overflow flag (MF_E_SIZE), so no figure silently wraps. docs/memory.md derives each term. */
#include <math.h>
#include <string.h>

#include "../internal.h"
#include <minifloat/fp8_scaling.h>
#include <minifloat/loss_scale.h>
#include <minifloat/memory.h>
#include <minifloat/mx.h>

#define MAX_GPUS 65536u
#define BLOCK_DEFAULT 2048u

/* ---- checked arithmetic --------------------------------------------------------------------- */

typedef struct plan_ctx {
    int err; /* first error, MF_OK while none */
} plan_ctx;

static void fail(plan_ctx *c, int code)
{
    if (c->err == MF_OK)
        c->err = code;
}

static uint64_t mul(plan_ctx *c, uint64_t a, uint64_t b)
{
    if (a != 0 && b > UINT64_MAX / a) {
        fail(c, MF_E_SIZE);
        return 0;
    }
    return a * b;
}

static uint64_t add(plan_ctx *c, uint64_t a, uint64_t b)
{
    if (b > UINT64_MAX - a) {
        fail(c, MF_E_SIZE);
        return 0;
    }
    return a + b;
}

static uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

/* ---- bytes of tensors, from the library's size functions --------------------------------------- */

static int format_storable(mf_format f)
{
    return (int)f >= 0 && (int)f < MF_FORMAT_COUNT && f != MF_FP64 && f != MF_E8M0;
}

static int mx_type_of(mf_format f, mf_mx_type *t)
{
    switch (f) {
    case MF_FP8_E4M3: *t = MF_MXFP8_E4M3; return 1;
    case MF_FP8_E5M2: *t = MF_MXFP8_E5M2; return 1;
    case MF_FP6_E2M3: *t = MF_MXFP6_E2M3; return 1;
    case MF_FP6_E3M2: *t = MF_MXFP6_E3M2; return 1;
    case MF_FP4_E2M1: *t = MF_MXFP4_E2M1; return 1;
    default: return 0;
    }
}

/* n elements of a plain format. */
static uint64_t plain_bytes(plan_ctx *c, mf_format f, uint64_t n)
{
    size_t b;
    if (n == 0)
        return 0;
    if (n > (uint64_t)SIZE_MAX) {
        fail(c, MF_E_SIZE);
        return 0;
    }
    b = mf_storage_bytes(f, (size_t)n);
    if (b == 0)
        fail(c, MF_E_SIZE);
    return (uint64_t)b;
}

/* A rows x cols tensor (cols contiguous) stored as t says. */
static uint64_t tensor_bytes(plan_ctx *c, const mf_memory_tensor *t, uint64_t rows, uint64_t cols)
{
    uint64_t n = mul(c, rows, cols);
    size_t eb = 0, sc = 0;
    mf_mx_type mt = MF_MXFP8_E4M3;
    int rc;
    if (c->err != MF_OK || n == 0)
        return 0;
    if (rows > (uint64_t)SIZE_MAX || cols > (uint64_t)SIZE_MAX) {
        fail(c, MF_E_SIZE);
        return 0;
    }
    switch (t->scaling) {
    case MF_MEMORY_SCALE_NONE:
    case MF_MEMORY_SCALE_TENSOR:
        return plain_bytes(c, t->format, n);
    case MF_MEMORY_SCALE_MX:
        if (!mx_type_of(t->format, &mt)) { /* checked in check_tensor */
            fail(c, MF_E_FORMAT);
            return 0;
        }
        rc = mf_mx_sizes(mt, MF_MX_ROWWISE, 0, (size_t)rows, (size_t)cols, &eb, &sc);
        if (rc != MF_OK) {
            fail(c, rc);
            return 0;
        }
        return add(c, (uint64_t)eb, plain_bytes(c, MF_E8M0, (uint64_t)sc));
    case MF_MEMORY_SCALE_NVFP4:
        rc = mf_nvfp4_sizes(MF_MX_ROWWISE, (size_t)rows, (size_t)cols, &eb, &sc);
        if (rc != MF_OK) {
            fail(c, rc);
            return 0;
        }
        /* elements, one e4m3 scale per 16, one FP32 tensor scale */
        return add(c, add(c, (uint64_t)eb, plain_bytes(c, MF_FP8_E4M3, (uint64_t)sc)), plain_bytes(c, MF_FP32, 1));
    case MF_MEMORY_SCALE_BLOCK: {
        uint64_t block = t->block_size ? t->block_size : BLOCK_DEFAULT;
        return add(c, plain_bytes(c, t->format, n), plain_bytes(c, MF_FP32, ceil_div(n, block)));
    }
    }
    fail(c, MF_E_ARG);
    return 0;
}

/* A flat vector of n elements (parameters, optimizer states): one row. */
static uint64_t vector_bytes(plan_ctx *c, const mf_memory_tensor *t, uint64_t n)
{
    return tensor_bytes(c, t, 1, n);
}

static int check_tensor(const mf_memory_tensor *t)
{
    mf_mx_type mt;
    if ((int)t->scaling < 0 || (int)t->scaling >= MF_MEMORY_SCALING_COUNT)
        return MF_E_ARG;
    if (!format_storable(t->format))
        return MF_E_FORMAT;
    if (t->scaling == MF_MEMORY_SCALE_MX && !mx_type_of(t->format, &mt))
        return MF_E_FORMAT;
    if (t->scaling == MF_MEMORY_SCALE_NVFP4 && t->format != MF_FP4_E2M1)
        return MF_E_FORMAT;
    return MF_OK;
}

/* ---- the model's shape -------------------------------------------------------------------------- */

typedef struct shape {
    int has_shape;                  /* 0: a model given by its counts alone (no activations) */
    uint64_t L, h, a, kv, hkv, f, V, s, b, nin, nout;
    uint64_t params, largest, linear; /* totals (before tensor parallelism) */
    uint64_t linear_modules;        /* GEMMs per model (FP8 scaling states) */
} shape;

static void derive_transformer(plan_ctx *c, const mf_memory_model *m, shape *g)
{
    uint64_t h = g->h, hkv = g->hkv, f = g->f, mats = m->gated_ffn ? 3 : 2;
    uint64_t attn = add(c, mul(c, 2, mul(c, h, h)), mul(c, 2, mul(c, h, hkv)));
    uint64_t mlp = mul(c, mats, mul(c, h, f));
    uint64_t lin = add(c, attn, mlp);
    uint64_t other = mul(c, m->biases ? 4 : 2, h); /* two norms: weight (and bias) */
    uint64_t qkv_out = add(c, h, mul(c, 2, hkv)), per_layer, total, emb, ffn_mod, qkv_mod;
    if (m->biases)
        other = add(c, other, add(c, add(c, qkv_out, h), add(c, mul(c, mats - 1, f), h)));
    per_layer = add(c, lin, other);
    emb = mul(c, g->V, h);
    total = add(c, mul(c, g->L, per_layer), emb);
    total = add(c, total, mul(c, m->biases ? 2 : 1, h)); /* final norm */
    if (m->biases)
        total = add(c, total, mul(c, g->s, h)); /* learned positions */
    if (!m->tied_embeddings)
        total = add(c, total, emb); /* output projection */
    g->linear = mul(c, g->L, lin);
    g->linear_modules = mul(c, g->L, 4); /* QKV, output projection, FC1 (gate and up fused), FC2 */
    if (m->params == 0)
        g->params = total;
    /* largest module, as Hugging Face's GPT-2 (fused c_attn) and Llama (q_proj ...) implement them */
    qkv_mod = m->biases ? add(c, mul(c, h, qkv_out), qkv_out) : mul(c, h, h);
    ffn_mod = add(c, mul(c, h, f), m->biases ? f : 0);
    g->largest = emb;
    if (qkv_mod > g->largest)
        g->largest = qkv_mod;
    if (ffn_mod > g->largest)
        g->largest = ffn_mod;
    if (m->biases && mul(c, g->s, h) > g->largest)
        g->largest = mul(c, g->s, h);
}

/* MLP: linear l maps in_l -> out_l; in_0 = inputs, out_last = outputs, hidden elsewhere. */
static uint64_t mlp_in(const shape *g, uint64_t l) { return l == 0 ? g->nin : g->h; }
static uint64_t mlp_out(const shape *g, uint64_t l) { return l == g->L ? g->nout : g->h; }

static void derive_mlp(plan_ctx *c, shape *g)
{
    uint64_t l, total = 0, lin = 0, largest = 0;
    for (l = 0; l <= g->L && c->err == MF_OK; l++) {
        uint64_t w = mul(c, mlp_in(g, l), mlp_out(g, l)), mod = add(c, w, mlp_out(g, l));
        lin = add(c, lin, w);
        total = add(c, total, mod);
        if (mod > largest)
            largest = mod;
    }
    g->linear = lin;
    g->linear_modules = g->L + 1;
    g->params = total;
    g->largest = largest;
}

static int check_model(const mf_memory_model *m, const mf_memory_cluster *cl, plan_ctx *c, shape *g)
{
    uint64_t t = cl->tensor_parallel;
    memset(g, 0, sizeof *g);
    if ((int)m->arch != MF_MEMORY_TRANSFORMER && (int)m->arch != MF_MEMORY_MLP)
        return MF_E_ARG;
    g->L = m->layers;
    g->h = m->hidden;
    g->b = m->micro_batch ? m->micro_batch : 1;
    if (m->layers == 0) { /* counts alone */
        if (m->params == 0 || m->params < m->largest_layer_params)
            return MF_E_ARG;
        g->params = m->params;
        g->largest = m->largest_layer_params;
        return MF_OK;
    }
    g->has_shape = 1;
    if (m->hidden == 0)
        return MF_E_ARG;
    if (m->arch == MF_MEMORY_MLP) {
        if (m->inputs == 0 || m->outputs == 0 || t != 1)
            return MF_E_ARG;
        g->nin = m->inputs;
        g->nout = m->outputs;
        derive_mlp(c, g);
    } else {
        g->a = m->heads;
        g->kv = m->kv_heads ? m->kv_heads : m->heads;
        g->f = m->ffn ? m->ffn : 4 * m->hidden;
        g->V = m->vocab;
        g->s = m->seq;
        if (g->a == 0 || g->s == 0 || g->V == 0 || g->h % g->a != 0 || g->a % g->kv != 0 ||
            m->ffn > UINT64_MAX / 4 || m->hidden > UINT64_MAX / 4)
            return m->hidden > UINT64_MAX / 4 ? MF_E_SIZE : MF_E_ARG;
        if (g->a % t != 0 || g->kv % t != 0 || g->f % t != 0 || g->V % t != 0 ||
            (cl->sequence_parallel && mul(c, g->s, g->b) % t != 0))
            return MF_E_ARG;
        g->hkv = g->kv * (g->h / g->a);
        derive_transformer(c, m, g);
    }
    if (m->params != 0)
        g->params = m->params;
    if (m->largest_layer_params != 0)
        g->largest = m->largest_layer_params;
    if (c->err != MF_OK)
        return c->err;
    if (g->params < g->largest || g->params < g->linear)
        return MF_E_ARG;
    return MF_OK;
}

/* ---- activations (Korthikanti et al., arXiv 2205.05198, section 4) ----------------------------- */

/* One transformer layer's stored activations on one GPU. With e-byte 16-bit activations, no
 * parallelism and dropout, this is s*b*h*(34 + 5*a*s/h) bytes: GEMM inputs (QKV, output projection,
 * FC1: sbh each; FC2: sbf), Q K V (sbh + 2 s b hkv), softmax output (a s^2 b) with its dropout mask
 * (a s^2 b bytes) and output (a s^2 b), GeLU input (sbf; SwiGLU: gate and up, 2 sbf), two norm inputs
 * (2 sbh), two dropout masks (2 sbh bytes). Tensor parallelism t shards the attention and MLP
 * internals; sequence parallelism the rest too. */
static uint64_t layer_activations(plan_ctx *c, const mf_memory_model *m, const mf_memory_recipe *r,
                                  const mf_memory_cluster *cl, const shape *g)
{
    uint64_t t = cl->tensor_parallel, S = mul(c, g->s, g->b);
    uint64_t Sr = cl->sequence_parallel ? S / t : S; /* rows of the tensors TP alone leaves whole */
    uint64_t h = g->h, ht = g->h / t, hkvt = g->hkv / t, ft = g->f / t, at = g->a / t, sum = 0;
    mf_memory_tensor other = {r->act_other, MF_MEMORY_SCALE_NONE, 0};
    if (cl->recompute == MF_MEMORY_RECOMPUTE_FULL)
        return tensor_bytes(c, &other, Sr, h); /* the layer's input */
    /* GEMM inputs: QKV and FC1 (whole rows without SP), output projection and FC2 (sharded) */
    sum = add(c, sum, mul(c, 2, tensor_bytes(c, &r->act_gemm, Sr, h)));
    sum = add(c, sum, tensor_bytes(c, &r->act_gemm, S, ht));
    sum = add(c, sum, tensor_bytes(c, &r->act_gemm, S, ft));
    /* attention core inputs Q, K, V */
    sum = add(c, sum, tensor_bytes(c, &other, S, ht));
    sum = add(c, sum, mul(c, 2, tensor_bytes(c, &other, S, hkvt)));
    if (cl->flash_attention) { /* softmax statistics: one FP32 logsumexp per head and row */
        sum = add(c, sum, plain_bytes(c, MF_FP32, mul(c, at, S)));
    } else if (cl->recompute != MF_MEMORY_RECOMPUTE_SELECTIVE) {
        uint64_t as2b = mul(c, mul(c, at, g->s), S);
        sum = add(c, sum, plain_bytes(c, r->act_other, as2b)); /* softmax output */
        if (m->dropout) {
            sum = add(c, sum, as2b);                               /* its dropout mask, a byte each */
            sum = add(c, sum, plain_bytes(c, r->act_other, as2b)); /* dropout output */
        }
    }
    /* MLP activation input(s) */
    sum = add(c, sum, mul(c, m->gated_ffn ? 2 : 1, tensor_bytes(c, &other, S, ft)));
    /* two norm inputs, two dropout masks (a byte each) */
    sum = add(c, sum, mul(c, 2, tensor_bytes(c, &other, Sr, h)));
    if (m->dropout)
        sum = add(c, sum, mul(c, 2, mul(c, Sr, h)));
    return sum;
}

/* Everything stored besides the layers: the final norm's input, the output projection's input and its
 * logits (the loss's input, vocab-parallel under t), and the embedding dropout mask. */
static uint64_t head_activations(plan_ctx *c, const mf_memory_model *m, const mf_memory_recipe *r,
                                 const mf_memory_cluster *cl, const shape *g)
{
    uint64_t t = cl->tensor_parallel, S = mul(c, g->s, g->b), Sr = cl->sequence_parallel ? S / t : S, sum;
    mf_memory_tensor other = {r->act_other, MF_MEMORY_SCALE_NONE, 0};
    sum = mul(c, 2, tensor_bytes(c, &other, Sr, g->h));
    sum = add(c, sum, tensor_bytes(c, &other, S, g->V / t));
    if (m->dropout)
        sum = add(c, sum, mul(c, Sr, g->h));
    return sum;
}

/* The MLP of tools/train_demo keeps, per linear layer, its input (act_gemm), its output and the
 * output's gradient (act_other), and one gradient buffer of the hidden width. */
static uint64_t mlp_layer_activations(plan_ctx *c, const mf_memory_recipe *r, const shape *g, uint64_t l)
{
    mf_memory_tensor other = {r->act_other, MF_MEMORY_SCALE_NONE, 0};
    uint64_t sum = tensor_bytes(c, &r->act_gemm, g->b, mlp_in(g, l));
    return add(c, sum, mul(c, 2, tensor_bytes(c, &other, g->b, mlp_out(g, l))));
}

/* ---- weight casts ---------------------------------------------------------------------------- */

/* The cast copy of every linear layer's weight on one GPU: W is out x in with blocks along in (the
 * GEMM's K); the transposed copy is in x out, blocks along out. */
static uint64_t one_cast(plan_ctx *c, const mf_memory_recipe *r, uint64_t out, uint64_t in)
{
    uint64_t b = r->gemm_copy ? tensor_bytes(c, &r->gemm_weights, out, in) : 0;
    if (r->gemm_transposed)
        b = add(c, b, tensor_bytes(c, &r->gemm_weights, in, out));
    return b;
}

static uint64_t weight_casts(plan_ctx *c, const mf_memory_model *m, const mf_memory_recipe *r,
                             const mf_memory_cluster *cl, const shape *g)
{
    uint64_t t = cl->tensor_parallel, sum = 0, l;
    if ((!r->gemm_copy && !r->gemm_transposed) || !g->has_shape)
        return 0;
    if (m->arch == MF_MEMORY_MLP) {
        for (l = 0; l <= g->L && c->err == MF_OK; l++)
            sum = add(c, sum, one_cast(c, r, mlp_out(g, l), mlp_in(g, l)));
        return sum;
    }
    /* column-parallel QKV and FC1 (outputs split), row-parallel projection and FC2 (inputs split) */
    sum = add(c, sum, one_cast(c, r, (g->h + 2 * g->hkv) / t, g->h));
    sum = add(c, sum, one_cast(c, r, g->h, g->h / t));
    sum = add(c, sum, one_cast(c, r, mul(c, m->gated_ffn ? 2 : 1, g->f / t), g->h));
    sum = add(c, sum, one_cast(c, r, g->h, g->f / t));
    return mul(c, g->L, sum);
}

/* ---- the plan ------------------------------------------------------------------------------- */

static int check_recipe(const mf_memory_recipe *r)
{
    int rc;
    const mf_memory_tensor *ts[4];
    int i;
    ts[0] = &r->gemm_weights, ts[1] = &r->adam_m, ts[2] = &r->adam_v, ts[3] = &r->act_gemm;
    for (i = 0; i < 4; i++)
        if (i != 0 || r->gemm_copy || r->gemm_transposed)
            if ((rc = check_tensor(ts[i])) != MF_OK)
                return rc;
    if (!format_storable(r->params) || !format_storable(r->grads) || !format_storable(r->act_other))
        return MF_E_FORMAT;
    return MF_OK;
}

static int check_cluster(const mf_memory_cluster *cl)
{
    uint64_t gpus = (uint64_t)cl->gpus_per_node * cl->nodes;
    if (cl->gpus_per_node == 0 || cl->nodes == 0 || cl->tensor_parallel == 0 || gpus > MAX_GPUS ||
        gpus % cl->tensor_parallel != 0)
        return MF_E_ARG;
    if (cl->zero_stage < 0 || cl->zero_stage > 3 || ((int)cl->zero_rule != MF_MEMORY_ZERO_PAPER &&
                                                     (int)cl->zero_rule != MF_MEMORY_ZERO_DEEPSPEED))
        return MF_E_ARG;
    if ((int)cl->recompute < 0 || (int)cl->recompute > MF_MEMORY_RECOMPUTE_FULL)
        return MF_E_ARG;
    if (cl->offload_params && cl->zero_stage != 3)
        return MF_E_ARG;
    if (!(cl->cpu_buffer_factor >= 0) || !isfinite(cl->cpu_buffer_factor))
        return MF_E_ARG;
    return MF_OK;
}

/* The GPU parts and host bytes for dp data-parallel ranks (the only thing min_gpus varies). */
static void plan_parts(plan_ctx *c, const mf_memory_model *m, const mf_memory_recipe *r,
                       const mf_memory_cluster *cl, const shape *g, uint64_t dp, uint64_t gpus_per_node,
                       uint64_t nodes, uint64_t part[MF_MEMORY_PART_COUNT], uint64_t *cpu, uint64_t *act_layer)
{
    uint64_t t = cl->tensor_parallel, P = ceil_div(g->params, t), LL = ceil_div(g->largest, t);
    int z = cl->zero_stage, ds = cl->zero_rule == MF_MEMORY_ZERO_DEEPSPEED;
    uint64_t P_opt = z >= 1 ? ceil_div(P, dp) : P;                  /* optimizer-state shard */
    uint64_t P_grad = z >= 2 && !ds ? ceil_div(P, dp) : P;         /* 16-bit gradient shard */
    uint64_t P_par = z >= 3 ? ceil_div(P, dp) : P;                 /* parameter shard */
    mf_memory_tensor f32 = {MF_FP32, MF_MEMORY_SCALE_NONE, 0};
    uint64_t host = 0, scaled = 0, l;
    int accum = r->grad_accum || ds; /* DeepSpeed always steps from an FP32 gradient partition */
    memset(part, 0, sizeof(uint64_t) * MF_MEMORY_PART_COUNT);
    *act_layer = 0;

    part[MF_MEMORY_PART_MASTER] = r->master ? plain_bytes(c, MF_FP32, P_opt) : 0;
    part[MF_MEMORY_PART_PARAMS] = plain_bytes(c, r->params, P_par);
    part[MF_MEMORY_PART_GEMM_COPY] = weight_casts(c, m, r, cl, g);
    if (z >= 3)
        part[MF_MEMORY_PART_GEMM_COPY] = ceil_div(part[MF_MEMORY_PART_GEMM_COPY], dp);
    part[MF_MEMORY_PART_GRADS] = z >= 3 && ds ? 0 : plain_bytes(c, r->grads, P_grad);
    part[MF_MEMORY_PART_GRAD_ACCUM] = accum ? plain_bytes(c, MF_FP32, P_opt) : 0;
    part[MF_MEMORY_PART_OPTIMIZER] = add(c, vector_bytes(c, &r->adam_m, P_opt), vector_bytes(c, &r->adam_v, P_opt));
    if (r->act_gemm.scaling == MF_MEMORY_SCALE_TENSOR ||
        ((r->gemm_copy || r->gemm_transposed) && r->gemm_weights.scaling == MF_MEMORY_SCALE_TENSOR))
        scaled = mul(c, g->linear_modules, r->scaled_per_linear);
    part[MF_MEMORY_PART_SCALING] =
        mul(c, scaled, r->scale_state_bytes ? r->scale_state_bytes
                                            : plain_bytes(c, MF_FP32, add(c, r->amax_history, 2)));
    if (r->loss_scaler)
        part[MF_MEMORY_PART_SCALING] = add(c, part[MF_MEMORY_PART_SCALING], sizeof(mf_loss_scaler));
    if (g->has_shape && m->arch == MF_MEMORY_MLP) {
        mf_memory_tensor other = {r->act_other, MF_MEMORY_SCALE_NONE, 0};
        uint64_t sum = tensor_bytes(c, &other, g->b, g->h); /* the input-gradient buffer */
        for (l = 0; l <= g->L; l++)
            sum = add(c, sum, mlp_layer_activations(c, r, g, l));
        part[MF_MEMORY_PART_ACTIVATIONS] = sum;
        *act_layer = mlp_layer_activations(c, r, g, g->L > 1 ? 1 : 0);
    } else if (g->has_shape) {
        *act_layer = layer_activations(c, m, r, cl, g);
        part[MF_MEMORY_PART_ACTIVATIONS] = add(c, mul(c, g->L, *act_layer), head_activations(c, m, r, cl, g));
    }
    if (z >= 3) /* one gathered layer: its parameters and gradients */
        part[MF_MEMORY_PART_GATHER] = add(c, plain_bytes(c, r->params, LL), plain_bytes(c, r->grads, LL));

    /* offload: the optimizer side (master, moments, gradients, held in FP32 on the host) leaves the GPU */
    if (cl->offload_optimizer) {
        host = add(c, add(c, part[MF_MEMORY_PART_MASTER], part[MF_MEMORY_PART_OPTIMIZER]),
                   vector_bytes(c, &f32, P_opt));
        part[MF_MEMORY_PART_MASTER] = part[MF_MEMORY_PART_OPTIMIZER] = 0;
        part[MF_MEMORY_PART_GRADS] = part[MF_MEMORY_PART_GRAD_ACCUM] = 0;
    }
    if (cl->offload_params) {
        host = add(c, host, part[MF_MEMORY_PART_PARAMS]);
        part[MF_MEMORY_PART_PARAMS] = 0;
        part[MF_MEMORY_PART_GEMM_COPY] = 0;
    }
    host = mul(c, host, gpus_per_node);
    if (ds) { /* DeepSpeed's estimator, in its own order of operations (binary64, then int()) */
        double Pd = (double)P, f = cl->cpu_buffer_factor > 0 ? cl->cpu_buffer_factor : 1.5, v;
        double G = (double)gpus_per_node, T = (double)(gpus_per_node * nodes), gf = 1.0 / (double)nodes;
        if (z <= 2)
            v = cl->offload_optimizer ? Pd * (4 * T > 16 ? 4 * T : 16) * f : Pd * 4 * G * f;
        else if (cl->offload_optimizer && cl->offload_params)
            v = cl->zero_init ? Pd * 18 * gf * f : Pd * (4 * G > 18 * gf ? 4 * G : 18 * gf) * f;
        else if (cl->offload_optimizer)
            v = cl->zero_init ? Pd * 16 * gf * f : Pd * (4 * G > 16 * gf ? 4 * G : 16 * gf) * f;
        else
            v = cl->zero_init ? (double)LL * 4 * G * f : Pd * 4 * G * f;
        if (!(v < 18446744073709551616.0))
            fail(c, MF_E_SIZE);
        else
            host = (uint64_t)v;
    }
    *cpu = host;
}

static uint64_t sum_parts(plan_ctx *c, const uint64_t part[MF_MEMORY_PART_COUNT], uint64_t reserve)
{
    uint64_t s = reserve;
    int i;
    for (i = 0; i < MF_MEMORY_PART_COUNT; i++)
        s = add(c, s, part[i]);
    return s;
}

int mf_memory_plan(const mf_memory_model *model, const mf_memory_recipe *recipe, const mf_memory_cluster *cluster,
                   mf_memory_report *report)
{
    plan_ctx c = {MF_OK};
    shape g;
    mf_memory_report r;
    uint64_t gpus, dp, cpu, act_layer;
    int rc;
    if (!model || !recipe || !cluster || !report)
        return MF_E_NULL;
    if ((rc = check_cluster(cluster)) != MF_OK)
        return rc;
    if ((rc = check_model(model, cluster, &c, &g)) != MF_OK)
        return rc;
    if ((rc = check_recipe(recipe)) != MF_OK)
        return rc;
    memset(&r, 0, sizeof r);
    gpus = (uint64_t)cluster->gpus_per_node * cluster->nodes;
    dp = gpus / cluster->tensor_parallel;
    plan_parts(&c, model, recipe, cluster, &g, dp, cluster->gpus_per_node, cluster->nodes, r.gpu, &cpu, &act_layer);
    r.params = g.params;
    r.largest_layer_params = g.largest;
    r.linear_params = g.linear;
    r.gpus = (uint32_t)gpus;
    r.data_parallel = (uint32_t)dp;
    r.gpu_total = sum_parts(&c, r.gpu, cluster->reserve_bytes);
    r.cpu_node = cpu;
    r.cluster_total = mul(&c, r.gpu_total, gpus);
    r.activation_per_layer = act_layer;
    if (c.err != MF_OK)
        return c.err;
    if (cluster->gpu_bytes != 0) {
        uint64_t lo = 1, hi = MAX_GPUS / cluster->tensor_parallel, part[MF_MEMORY_PART_COUNT];
        r.fits = r.gpu_total <= cluster->gpu_bytes;
        /* the per-GPU total never grows with the data-parallel ranks: bisect on them */
        plan_parts(&c, model, recipe, cluster, &g, hi, hi * cluster->tensor_parallel, 1, part, &cpu, &act_layer);
        if (c.err == MF_OK && sum_parts(&c, part, cluster->reserve_bytes) <= cluster->gpu_bytes) {
            while (lo < hi && c.err == MF_OK) {
                uint64_t mid = lo + (hi - lo) / 2;
                plan_parts(&c, model, recipe, cluster, &g, mid, mid * cluster->tensor_parallel, 1, part, &cpu,
                           &act_layer);
                if (sum_parts(&c, part, cluster->reserve_bytes) <= cluster->gpu_bytes)
                    hi = mid;
                else
                    lo = mid + 1;
            }
            r.min_gpus = (uint32_t)(lo * cluster->tensor_parallel);
        }
        if (c.err != MF_OK)
            return c.err;
    }
    memcpy(report, &r, sizeof r);
    return MF_OK;
}

/* ---- presets ---------------------------------------------------------------------------------- */

int mf_memory_cluster_default(mf_memory_cluster *cl)
{
    if (!cl)
        return MF_E_NULL;
    memset(cl, 0, sizeof *cl);
    cl->gpus_per_node = cl->nodes = cl->tensor_parallel = 1;
    cl->zero_rule = MF_MEMORY_ZERO_PAPER;
    cl->recompute = MF_MEMORY_RECOMPUTE_NONE;
    cl->cpu_buffer_factor = 1.5;
    return MF_OK;
}

/* name, layers, hidden, heads, kv heads, ffn, vocab, seq, gated, tied, biases+dropout (published
 * configurations: GPT-2 small; Llama 2 and Llama 3 model cards and config.json) */
typedef struct model_row {
    const char *name;
    uint64_t layers, hidden, heads, kv, ffn, vocab, seq;
    int gated, tied, gpt2;
} model_row;

static const model_row MODELS[] = {
    {"gpt2", 12, 768, 12, 12, 3072, 50257, 1024, 0, 1, 1},
    {"llama2-7b", 32, 4096, 32, 32, 11008, 32000, 4096, 1, 0, 0},
    {"llama2-13b", 40, 5120, 40, 40, 13824, 32000, 4096, 1, 0, 0},
    {"llama2-70b", 80, 8192, 64, 8, 28672, 32000, 4096, 1, 0, 0},
    {"llama3-8b", 32, 4096, 32, 8, 14336, 128256, 8192, 1, 0, 0},
    {"llama3-70b", 80, 8192, 64, 8, 28672, 128256, 8192, 1, 0, 0},
};
#define N_MODELS (sizeof MODELS / sizeof MODELS[0])

static const char *const RECIPES[] = {"fp32", "bf16-amp", "fp16-amp", "bf16-pure", "te-fp8-delayed",
                                      "te-fp8-current", "mxfp8", "nvfp4"};
#define N_RECIPES (sizeof RECIPES / sizeof RECIPES[0])

static const struct {
    const char *name;
    uint64_t gib;
} GPUS[] = {{"a100-40", 40}, {"a100-80", 80}, {"h100-80", 80}, {"h200", 141},
            {"b200", 192},   {"rtx4090", 24}, {"rtx5090", 32}};
#define N_GPUS (sizeof GPUS / sizeof GPUS[0])

static const char *const PARTS[MF_MEMORY_PART_COUNT] = {"master", "params", "gemm_copy", "grads", "grad_accum",
                                                        "optimizer", "scaling", "activations", "gather"};

static int name_eq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
        if (x != *b)
            return 0;
    }
    return *a == *b;
}

int mf_memory_model_preset(const char *name, mf_memory_model *model)
{
    size_t i;
    if (!name || !model)
        return MF_E_NULL;
    for (i = 0; i < N_MODELS; i++) {
        const model_row *w = &MODELS[i];
        if (!name_eq(name, w->name))
            continue;
        memset(model, 0, sizeof *model);
        model->name = w->name;
        model->arch = MF_MEMORY_TRANSFORMER;
        model->layers = w->layers, model->hidden = w->hidden, model->heads = w->heads;
        model->kv_heads = w->kv, model->ffn = w->ffn, model->vocab = w->vocab, model->seq = w->seq;
        model->micro_batch = 1;
        model->gated_ffn = w->gated, model->tied_embeddings = w->tied;
        model->biases = model->dropout = w->gpt2;
        return MF_OK;
    }
    return MF_E_ARG;
}

static mf_memory_tensor plain(mf_format f)
{
    mf_memory_tensor t;
    t.format = f;
    t.scaling = MF_MEMORY_SCALE_NONE;
    t.block_size = 0;
    return t;
}

int mf_memory_recipe_preset(const char *name, mf_memory_recipe *r)
{
    size_t i;
    mf_memory_recipe x;
    if (!name || !r)
        return MF_E_NULL;
    for (i = 0; i < N_RECIPES && !name_eq(name, RECIPES[i]); i++)
        ;
    if (i == N_RECIPES)
        return MF_E_ARG;
    memset(&x, 0, sizeof x);
    x.name = RECIPES[i];
    /* mixed precision: 16-bit parameters and gradients, FP32 master weights and Adam moments */
    x.master = 1;
    x.params = x.grads = x.act_other = MF_BF16;
    x.adam_m = x.adam_v = plain(MF_FP32);
    x.act_gemm = plain(MF_BF16);
    x.gemm_weights = plain(MF_BF16);
    switch (i) {
    case 0: /* fp32 */
        x.master = 0;
        x.params = x.grads = x.act_other = MF_FP32;
        x.act_gemm = plain(MF_FP32);
        break;
    case 1: /* bf16-amp */
        break;
    case 2: /* fp16-amp */
        x.params = x.grads = x.act_other = MF_FP16;
        x.act_gemm = plain(MF_FP16);
        x.loss_scaler = 1;
        break;
    case 3: /* bf16-pure: no master, Adam moments in bf16 */
        x.master = 0;
        x.adam_m = x.adam_v = plain(MF_BF16);
        break;
    case 4: /* te-fp8-delayed */
    case 5: /* te-fp8-current */
        x.gemm_copy = x.gemm_transposed = 1;
        x.gemm_weights.format = MF_FP8_E4M3;
        x.gemm_weights.scaling = MF_MEMORY_SCALE_TENSOR;
        x.act_gemm = x.gemm_weights;
        x.amax_history = i == 4 ? MF_FP8_HISTORY_MAX : 1;
        x.scaled_per_linear = 5; /* forward: input, weight, output; backward: two gradients */
        break;
    case 6: /* mxfp8 */
        x.gemm_copy = x.gemm_transposed = 1;
        x.gemm_weights.format = MF_FP8_E4M3;
        x.gemm_weights.scaling = MF_MEMORY_SCALE_MX;
        x.act_gemm = x.gemm_weights;
        break;
    default: /* nvfp4 */
        x.gemm_copy = x.gemm_transposed = 1;
        x.gemm_weights.format = MF_FP4_E2M1;
        x.gemm_weights.scaling = MF_MEMORY_SCALE_NVFP4;
        x.act_gemm = x.gemm_weights;
        break;
    }
    *r = x;
    return MF_OK;
}

int mf_memory_gpu_preset(const char *name, uint64_t *bytes)
{
    size_t i;
    if (!name || !bytes)
        return MF_E_NULL;
    for (i = 0; i < N_GPUS; i++)
        if (name_eq(name, GPUS[i].name)) {
            *bytes = GPUS[i].gib << 30;
            return MF_OK;
        }
    return MF_E_ARG;
}

const char *mf_memory_name(int kind, int i)
{
    if (i < 0)
        return NULL;
    switch (kind) {
    case 0: return (size_t)i < N_MODELS ? MODELS[i].name : NULL;
    case 1: return (size_t)i < N_RECIPES ? RECIPES[i] : NULL;
    case 2: return (size_t)i < N_GPUS ? GPUS[i].name : NULL;
    case 3: return i < MF_MEMORY_PART_COUNT ? PARTS[i] : NULL;
    default: return NULL;
    }
}
