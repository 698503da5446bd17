/* tools/train_demo/model.c - see train_demo.h and docs/overflow.md, "Training with narrow formats".
 *
 * One training step of configuration X (B = batch, L = layers, a = ReLU):
 *
 *   forward, layer l:   Xq_l = Q_act(A_l)    (A_0 = the batch of points, A_l = a(Z_{l-1}))
 *                       Wq_l = Q_w(W_l)      bq_l = Q_b(b_l)        (W_l, b_l: f32 master weights)
 *                       Z_l  = Q_out(Xq_l Wq_l + bq_l)              (product in f32)
 *   loss:               softmax cross-entropy of Z_{L-1}, mean over the batch, in f32
 *   backward:           dZ_{L-1} = Q_g(scale/B * (softmax - onehot))
 *                       dW_l = Q_gw(Xq_l^T dZ_l)   db_l = Q_gw(sum_b dZ_l)
 *                       dZ_{l-1} = Q_g((dZ_l Wq_l^T) * a'(Z_{l-1}))
 *   update:             (fp16-ls: unscale and check, maybe skip) Adam on the f32 master weights
 *
 * Q_* is the identity for fp32; for bf16/fp16 every Q_* rounds to the format with mf_convert (rn,
 * IEEE overflow: inf), Q_act only at layer 0 since a(Z) of a rounded Z is already representable; for
 * fp8 and mxfp8 Q_act and Q_w quantize to e4m3 and Q_g to e5m2 (the GEMM operands, as Transformer
 * Engine does) while biases, GEMM outputs and weight gradients stay f32.
 */
#include "train_demo.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "svg.h"

#define PI 3.14159265358979323846
#define N_CLASSES 2
#define N_INPUT 2

/* ---- configurations --------------------------------------------------------------------------- */

static const char *const config_names[DEMO_CONFIG_COUNT] = {"fp32", "bf16", "fp16", "fp16-ls", "fp8", "mxfp8"};
static const char *const config_titles[DEMO_CONFIG_COUNT] = {
    "FP32 everywhere (the reference)",
    "BF16 activations, weights and gradients",
    "FP16 activations, weights and gradients, no loss scaling",
    "FP16 with dynamic loss scaling (mf_loss_scaler, GradScaler rules)",
    "FP8: e4m3 activations/weights, e5m2 gradients, delayed per-tensor scaling",
    "MXFP8: e4m3 activations/weights, e5m2 gradients, 32-element blocks, E8M0 scales"};

const char *demo_config_name(demo_config c)
{
    return (unsigned)c < DEMO_CONFIG_COUNT ? config_names[c] : NULL;
}

const char *demo_config_title(demo_config c)
{
    return (unsigned)c < DEMO_CONFIG_COUNT ? config_titles[c] : NULL;
}

/* The name for printing: never NULL (a bad value prints as "?"). */
static const char *cname(demo_config c)
{
    const char *s = demo_config_name(c);
    return s ? s : "?";
}

static int name_eq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char ca = *a, cb = *b;
        if (ca >= 'A' && ca <= 'Z')
            ca = (char)(ca - 'A' + 'a');
        if (cb >= 'A' && cb <= 'Z')
            cb = (char)(cb - 'A' + 'a');
        if (ca != cb)
            return 0;
    }
    return *a == *b;
}

int demo_config_from_name(const char *name, demo_config *out)
{
    static const struct {
        const char *name;
        demo_config c;
    } aliases[] = {{"fp32", DEMO_FP32},        {"f32", DEMO_FP32},      {"bf16", DEMO_BF16},
                   {"fp16", DEMO_FP16},        {"f16", DEMO_FP16},      {"fp16-ls", DEMO_FP16_LS},
                   {"fp16+ls", DEMO_FP16_LS},  {"fp16_ls", DEMO_FP16_LS}, {"fp8", DEMO_FP8},
                   {"fp8-delayed", DEMO_FP8},  {"mxfp8", DEMO_MXFP8},   {"mx", DEMO_MXFP8}};
    size_t i;
    if (!name || !out)
        return MF_E_NULL;
    for (i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (name_eq(name, aliases[i].name)) {
            *out = aliases[i].c;
            return MF_OK;
        }
    return MF_E_ARG;
}

/* ---- parameters ------------------------------------------------------------------------------- */

demo_params demo_params_default(int quick)
{
    demo_params p;
    memset(&p, 0, sizeof p);
    p.seed = 1;
    p.epochs = quick ? 16 : 40;
    p.n_train = quick ? 2048 : 4096;
    p.n_test = 2048;
    p.batch = 512;
    p.hidden = 64;
    p.layers = 3;
    p.lr = 0.01f;
    p.init_std = 0.02f;
    p.turns = 1.25f;
    p.noise = 0.03f;
    p.ls_growth_interval = 100;
    p.fp8_history = 16;
    return p;
}

static int bad_param(char *msg, size_t msg_size, const char *fmt, ...)
{
    if (msg && msg_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, msg_size, fmt, ap);
        va_end(ap);
    }
    return MF_E_ARG;
}

int demo_params_check(const demo_params *p, char *msg, size_t msg_size)
{
    if (!p)
        return MF_E_NULL;
    if (p->epochs < 1 || p->epochs > DEMO_MAX_EPOCHS)
        return bad_param(msg, msg_size, "epochs must be 1 .. %d", DEMO_MAX_EPOCHS);
    if (p->batch < 32 || p->batch % 32 || p->batch > (1 << 16))
        return bad_param(msg, msg_size, "batch must be a multiple of 32 from 32 to 65536");
    if (p->n_train < p->batch || p->n_train > (1 << 22))
        return bad_param(msg, msg_size, "the training set must hold from one batch to 4194304 points");
    if (p->n_test < 2 || p->n_test > (1 << 22))
        return bad_param(msg, msg_size, "the test set must hold 2 .. 4194304 points");
    if (p->hidden < 32 || p->hidden % 32 || p->hidden > 1024)
        return bad_param(msg, msg_size, "hidden must be a multiple of 32 from 32 to 1024");
    if (p->layers < 1 || p->layers > DEMO_MAX_LAYERS)
        return bad_param(msg, msg_size, "layers must be 1 .. %d", DEMO_MAX_LAYERS);
    if (!(p->lr > 0 && p->lr <= 10))
        return bad_param(msg, msg_size, "lr must be in (0, 10]");
    if (!(p->init_std > 0 && p->init_std <= 10))
        return bad_param(msg, msg_size, "init-std must be in (0, 10]");
    if (!(p->turns > 0 && p->turns <= 10))
        return bad_param(msg, msg_size, "turns must be in (0, 10]");
    if (!(p->noise >= 0 && p->noise <= 10))
        return bad_param(msg, msg_size, "noise must be in [0, 10]");
    if (p->ls_growth_interval < 1)
        return bad_param(msg, msg_size, "the loss-scale growth interval must be >= 1");
    if (p->fp8_history < 1 || p->fp8_history > MF_FP8_HISTORY_MAX)
        return bad_param(msg, msg_size, "the fp8 amax history must be 1 .. %d", MF_FP8_HISTORY_MAX);
    return MF_OK;
}

/* ---- random numbers: the library's Philox, one key per purpose --------------------------------- */

typedef struct rng {
    uint64_t key;
    uint64_t idx;
} rng;

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

enum { STREAM_TRAIN = 1, STREAM_TEST, STREAM_INIT, STREAM_SHUFFLE };

static rng rng_make(uint64_t seed, int stream)
{
    rng r;
    r.key = splitmix64(seed ^ splitmix64((uint64_t)stream));
    r.idx = 0;
    return r;
}

static uint32_t rng_u32(rng *r) { return mf_sr_bits(r->key, r->idx++); }

/* Uniform in (0, 1), 24 random bits. */
static double rng_uniform(rng *r) { return ((double)(rng_u32(r) >> 8) + 0.5) * (1.0 / 16777216.0); }

/* Standard normal (Box-Muller). */
static double rng_normal(rng *r)
{
    double u1 = rng_uniform(r), u2 = rng_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(2.0 * PI * u2);
}

/* Uniform integer in [0, n) (n small: the modulo bias is below 2^-20). */
static uint32_t rng_below(rng *r, uint32_t n) { return rng_u32(r) % n; }

/* Two interleaved spirals: point i belongs to class i % 2; arm radius grows from 0.05 to 1. */
static void make_spirals(float *x, int *y, int n, float turns, float noise, rng *r)
{
    int i;
    for (i = 0; i < n; i++) {
        int c = i & 1;
        double t = rng_uniform(r);
        double rad = 0.05 + 0.95 * t;
        double th = turns * 2.0 * PI * t + c * PI;
        double nx = rng_normal(r), ny = rng_normal(r);
        x[2 * i] = (float)(rad * cos(th) + noise * nx);
        x[2 * i + 1] = (float)(rad * sin(th) + noise * ny);
        y[i] = c;
    }
}

/* ---- the trainer -------------------------------------------------------------------------------- */

enum { T_ACT, T_WEIGHT, T_BIAS, T_OUT, T_GRAD, T_GRADW };

typedef struct layer {
    int in, out;
    float *w, *b;              /* master weights [in*out] row-major (in rows), [out] */
    float *mw, *vw, *mb, *vb;  /* Adam moments */
    float *wq, *bq, *wt;       /* rounded copies; wt = wq transposed [out*in] */
    float *gw, *gb;            /* gradients */
    float *xq;                 /* [B*in] the rounded layer input */
    float *z;                  /* [B*out] pre-activation */
    float *dz;                 /* [B*out] gradient of the loss w.r.t. z */
    mf_fp8_delayed *st_x, *st_w, *st_dz; /* fp8 delayed-scaling states of the three GEMM operands */
} layer;

typedef struct trainer {
    demo_params p;
    demo_config cfg;
    int nl; /* linear layers = p.layers + 1 */
    layer L[DEMO_MAX_LAYERS + 1];
    float *xtrain, *xtest;
    int *ytrain, *ytest;
    int *perm;
    float *xb;        /* [B*2] batch inputs */
    int *yb;          /* [B] */
    float *dx;        /* [B*hidden] */
    float *tmp;       /* scratch f32, max tensor */
    uint16_t *u16;    /* scratch 16-bit codes */
    uint8_t *u8, *u8b; /* scratch 8-bit codes */
    uint8_t *scales;  /* MX scales */
    float *eval_a, *eval_b; /* [B*hidden] evaluation ping-pong */
    mf_fp8_delayed *states;
    mf_loss_scaler scaler;
    demo_epoch ep; /* the epoch being run */
    int mx_min, mx_max, mx_seen;
    int err;           /* first library error */
} trainer;

static void *xcalloc(size_t n, size_t size, int *fail)
{
    void *q = calloc(n ? n : 1, size);
    if (!q)
        *fail = 1;
    return q;
}

static void trainer_free(trainer *t)
{
    int l;
    for (l = 0; l < t->nl; l++) {
        layer *y = &t->L[l];
        free(y->w), free(y->b), free(y->mw), free(y->vw), free(y->mb), free(y->vb);
        free(y->wq), free(y->bq), free(y->wt), free(y->gw), free(y->gb);
        free(y->xq), free(y->z), free(y->dz);
    }
    free(t->xtrain), free(t->xtest), free(t->ytrain), free(t->ytest), free(t->perm);
    free(t->xb), free(t->yb), free(t->dx), free(t->tmp), free(t->u16), free(t->u8), free(t->u8b);
    free(t->scales), free(t->eval_a), free(t->eval_b), free(t->states);
    memset(t, 0, sizeof *t);
}

static int trainer_init(trainer *t, const demo_params *p, demo_config cfg)
{
    int fail = 0, l;
    size_t B = (size_t)p->batch, H = (size_t)p->hidden, maxn;
    rng r;
    memset(t, 0, sizeof *t);
    t->p = *p;
    t->cfg = cfg;
    t->nl = p->layers + 1;
    for (l = 0; l < t->nl; l++) {
        layer *y = &t->L[l];
        size_t nw;
        y->in = l == 0 ? N_INPUT : p->hidden;
        y->out = l == t->nl - 1 ? N_CLASSES : p->hidden;
        nw = (size_t)y->in * (size_t)y->out;
        y->w = xcalloc(nw, sizeof(float), &fail);
        y->mw = xcalloc(nw, sizeof(float), &fail);
        y->vw = xcalloc(nw, sizeof(float), &fail);
        y->wq = xcalloc(nw, sizeof(float), &fail);
        y->wt = xcalloc(nw, sizeof(float), &fail);
        y->gw = xcalloc(nw, sizeof(float), &fail);
        y->b = xcalloc((size_t)y->out, sizeof(float), &fail);
        y->mb = xcalloc((size_t)y->out, sizeof(float), &fail);
        y->vb = xcalloc((size_t)y->out, sizeof(float), &fail);
        y->bq = xcalloc((size_t)y->out, sizeof(float), &fail);
        y->gb = xcalloc((size_t)y->out, sizeof(float), &fail);
        y->xq = xcalloc(B * (size_t)y->in, sizeof(float), &fail);
        y->z = xcalloc(B * (size_t)y->out, sizeof(float), &fail);
        y->dz = xcalloc(B * (size_t)y->out, sizeof(float), &fail);
    }
    maxn = B * H > H * H ? B * H : H * H;
    t->xtrain = xcalloc((size_t)p->n_train * N_INPUT, sizeof(float), &fail);
    t->ytrain = xcalloc((size_t)p->n_train, sizeof(int), &fail);
    t->xtest = xcalloc((size_t)p->n_test * N_INPUT, sizeof(float), &fail);
    t->ytest = xcalloc((size_t)p->n_test, sizeof(int), &fail);
    t->perm = xcalloc((size_t)p->n_train, sizeof(int), &fail);
    t->xb = xcalloc(B * N_INPUT, sizeof(float), &fail);
    t->yb = xcalloc(B, sizeof(int), &fail);
    t->dx = xcalloc(B * H, sizeof(float), &fail);
    t->tmp = xcalloc(maxn, sizeof(float), &fail);
    t->u16 = xcalloc(maxn, sizeof(uint16_t), &fail);
    t->u8 = xcalloc(maxn, 1, &fail);
    t->u8b = xcalloc(maxn, 1, &fail);
    t->scales = xcalloc(maxn / 32 + 1, 1, &fail);
    t->eval_a = xcalloc(B * H, sizeof(float), &fail);
    t->eval_b = xcalloc(B * H, sizeof(float), &fail);
    if (cfg == DEMO_FP8)
        t->states = xcalloc((size_t)t->nl * 3, sizeof(mf_fp8_delayed), &fail);
    if (fail) {
        trainer_free(t);
        return MF_E_SIZE;
    }

    /* Same data, weights and batch order for every configuration. */
    r = rng_make(p->seed, STREAM_TRAIN);
    make_spirals(t->xtrain, t->ytrain, p->n_train, p->turns, p->noise, &r);
    r = rng_make(p->seed, STREAM_TEST);
    make_spirals(t->xtest, t->ytest, p->n_test, p->turns, p->noise, &r);
    r = rng_make(p->seed, STREAM_INIT);
    for (l = 0; l < t->nl; l++) {
        layer *y = &t->L[l];
        size_t i, nw = (size_t)y->in * (size_t)y->out;
        for (i = 0; i < nw; i++)
            y->w[i] = (float)(p->init_std * rng_normal(&r));
    }

    if (cfg == DEMO_FP16_LS) {
        mf_loss_scaler_config lc = mf_loss_scaler_config_default();
        int rc;
        lc.growth_interval = p->ls_growth_interval;
        rc = mf_loss_scaler_init(&t->scaler, &lc);
        if (rc != MF_OK) {
            trainer_free(t);
            return rc;
        }
    }
    if (cfg == DEMO_FP8) {
        for (l = 0; l < t->nl; l++) {
            mf_fp8_delayed_cfg fwd = mf_fp8_delayed_default(MF_FP8_E4M3);
            mf_fp8_delayed_cfg bwd = mf_fp8_delayed_default(MF_FP8_E5M2);
            int rc;
            fwd.history_len = bwd.history_len = (size_t)p->fp8_history;
            t->L[l].st_x = &t->states[3 * l];
            t->L[l].st_w = &t->states[3 * l + 1];
            t->L[l].st_dz = &t->states[3 * l + 2];
            rc = mf_fp8_delayed_init(t->L[l].st_x, &fwd);
            if (rc == MF_OK)
                rc = mf_fp8_delayed_init(t->L[l].st_w, &fwd);
            if (rc == MF_OK)
                rc = mf_fp8_delayed_init(t->L[l].st_dz, &bwd);
            if (rc != MF_OK) {
                trainer_free(t);
                return rc;
            }
        }
    }
    return MF_OK;
}

static void counts_add(demo_counts *c, const mf_stats *s, size_t n)
{
    c->elems += n;
    c->overflow += s->overflow;
    c->underflow += s->underflow;
    c->subnormal += s->subnormal;
    c->nan += s->nan;
}

static void note(trainer *t, int rc)
{
    if (rc != MF_OK && !t->err)
        t->err = rc;
}

/* Round the rows x cols tensor x in place as configuration t->cfg stores a tensor of class cls
 * (st: its delayed-scaling state under fp8), and count the events. */
static void quant(trainer *t, int cls, float *x, size_t rows, size_t cols, mf_fp8_delayed *st)
{
    size_t n = rows * cols, i;
    int is_grad = cls == T_GRAD || cls == T_GRADW;
    mf_stats s;
    mf_opts o;
    memset(&s, 0, sizeof s);
    memset(&o, 0, sizeof o);
    o.stats = &s;
    switch (t->cfg) {
    case DEMO_FP32:
        return;
    case DEMO_BF16:
    case DEMO_FP16:
    case DEMO_FP16_LS: {
        mf_format f = t->cfg == DEMO_BF16 ? MF_BF16 : MF_FP16;
        note(t, mf_convert(f, t->u16, MF_FP32, x, n, &o));
        note(t, mf_convert(MF_FP32, x, f, t->u16, n, NULL));
        break;
    }
    case DEMO_FP8: {
        float scale;
        if (cls != T_ACT && cls != T_WEIGHT && cls != T_GRAD)
            return; /* biases, GEMM outputs and weight gradients stay f32 */
        scale = st->scale;
        note(t, mf_fp8_delayed_quantize(st, t->u8, MF_FP32, x, n));
        /* The events of the cast: the same binary32 product and saturating rn conversion that
         * mf_fp8_quantize documents, done again through mf_convert for its counters. */
        for (i = 0; i < n; i++)
            t->tmp[i] = x[i] * scale;
        o.overflow = MF_OVERFLOW_SATURATE;
        note(t, mf_convert(st->cfg.fmt, t->u8b, MF_FP32, t->tmp, n, &o));
        note(t, mf_fp8_dequantize(MF_FP32, x, st->cfg.fmt, t->u8, n, st->scale_inv));
        break;
    }
    case DEMO_MXFP8: {
        mf_mx_type type = is_grad ? MF_MXFP8_E5M2 : MF_MXFP8_E4M3;
        /* Blocks along the contiguous axis where it holds whole blocks (hidden widths), else down the
         * columns (the batch axis of the 2-wide input and logits tensors). */
        mf_mx_axis axis = cols % MF_MX_BLOCK == 0 ? MF_MX_ROWWISE : MF_MX_COLWISE;
        if (cls != T_ACT && cls != T_WEIGHT && cls != T_GRAD)
            return;
        note(t, mf_mx_quantize(type, MF_MX_SCALE_RCEIL, axis, 0, x, rows, cols, t->u8, t->scales, &o));
        note(t, mf_mx_dequantize(type, axis, 0, t->u8, t->scales, rows, cols, x));
        if (is_grad) {
            for (i = 0; i < n / MF_MX_BLOCK; i++) {
                int e = (int)t->scales[i] - 127;
                if (!t->mx_seen || e < t->mx_min)
                    t->mx_min = e;
                if (!t->mx_seen || e > t->mx_max)
                    t->mx_max = e;
                t->mx_seen = 1;
            }
        }
        break;
    }
    }
    counts_add(is_grad ? &t->ep.grad : &t->ep.fwd, &s, n);
}

/* C[m x n] = A[m x k] B[k x n] (+ bias[n]), accumulated in f32 in a fixed order. */
static void matmul(float *C, const float *A, const float *Bm, const float *bias, int m, int k, int n)
{
    int i, kk, j;
    for (i = 0; i < m; i++) {
        float *c = C + (size_t)i * n;
        for (j = 0; j < n; j++)
            c[j] = bias ? bias[j] : 0.0f;
        for (kk = 0; kk < k; kk++) {
            float a = A[(size_t)i * k + kk];
            const float *b = Bm + (size_t)kk * n;
            for (j = 0; j < n; j++)
                c[j] += a * b[j];
        }
    }
}

/* G[k x n] = A[m x k]^T D[m x n] and g[n] = column sums of D. */
static void matmul_tn(float *G, float *g, const float *A, const float *D, int m, int k, int n)
{
    int i, kk, j;
    memset(G, 0, (size_t)k * n * sizeof(float));
    memset(g, 0, (size_t)n * sizeof(float));
    for (i = 0; i < m; i++) {
        const float *d = D + (size_t)i * n;
        for (kk = 0; kk < k; kk++) {
            float a = A[(size_t)i * k + kk];
            float *gr = G + (size_t)kk * n;
            for (j = 0; j < n; j++)
                gr[j] += a * d[j];
        }
        for (j = 0; j < n; j++)
            g[j] += d[j];
    }
}

/* Forward through the f32 master weights (evaluation); returns the number of correct predictions. */
static int eval_correct(trainer *t, const float *x, const int *y, int n)
{
    int correct = 0, start, l;
    for (start = 0; start < n; start += t->p.batch) {
        int m = n - start < t->p.batch ? n - start : t->p.batch, i;
        const float *in = x + (size_t)start * N_INPUT;
        float *out = t->eval_a;
        for (l = 0; l < t->nl; l++) {
            layer *ly = &t->L[l];
            size_t k;
            out = (l & 1) ? t->eval_b : t->eval_a;
            matmul(out, in, ly->w, ly->b, m, ly->in, ly->out);
            if (l < t->nl - 1)
                for (k = 0; k < (size_t)m * ly->out; k++)
                    out[k] = out[k] > 0 ? out[k] : 0.0f;
            in = out;
        }
        for (i = 0; i < m; i++)
            correct += (out[2 * i + 1] > out[2 * i]) == (y[start + i] == 1);
    }
    return correct;
}

static void adam(float *w, float *m, float *v, const float *g, size_t n, float lr, float c1, float c2)
{
    const float b1 = 0.9f, b2 = 0.999f, eps = 1e-8f; /* PyTorch's defaults */
    size_t i;
    for (i = 0; i < n; i++) {
        m[i] = b1 * m[i] + (1.0f - b1) * g[i];
        v[i] = b2 * v[i] + (1.0f - b2) * g[i] * g[i];
        w[i] -= lr * (m[i] / c1) / (sqrtf(v[i] / c2) + eps);
    }
}

/* One step on t->xb / t->yb; returns the batch loss (unscaled). */
static double train_step(trainer *t, long long step, long long total_steps, long long *adam_t)
{
    const int B = t->p.batch, nl = t->nl;
    const int is16 = t->cfg == DEMO_BF16 || t->cfg == DEMO_FP16 || t->cfg == DEMO_FP16_LS;
    float scale = t->cfg == DEMO_FP16_LS ? mf_loss_scaler_scale(&t->scaler) : 1.0f;
    float gscale = scale / (float)B;
    double loss = 0;
    int l, i, take = 1;

    /* forward */
    for (l = 0; l < nl; l++) {
        layer *y = &t->L[l];
        size_t nw = (size_t)y->in * (size_t)y->out, k;
        if (l == 0)
            memcpy(y->xq, t->xb, (size_t)B * N_INPUT * sizeof(float));
        else
            for (k = 0; k < (size_t)B * y->in; k++)
                y->xq[k] = t->L[l - 1].z[k] > 0 ? t->L[l - 1].z[k] : 0.0f;
        if (l == 0 || !is16)
            quant(t, T_ACT, y->xq, (size_t)B, (size_t)y->in, y->st_x);
        memcpy(y->wq, y->w, nw * sizeof(float));
        quant(t, T_WEIGHT, y->wq, (size_t)y->in, (size_t)y->out, y->st_w);
        memcpy(y->bq, y->b, (size_t)y->out * sizeof(float));
        quant(t, T_BIAS, y->bq, 1, (size_t)y->out, NULL);
        matmul(y->z, y->xq, y->wq, y->bq, B, y->in, y->out);
        quant(t, T_OUT, y->z, (size_t)B, (size_t)y->out, NULL);
    }

    /* loss and its gradient */
    {
        layer *y = &t->L[nl - 1];
        for (i = 0; i < B; i++) {
            float z0 = y->z[2 * i], z1 = y->z[2 * i + 1];
            float m = z0 > z1 ? z0 : z1;
            float lse = m + logf(expf(z0 - m) + expf(z1 - m));
            float p1 = expf(z1 - lse);
            float p0 = expf(z0 - lse);
            int c = t->yb[i];
            loss += (double)(lse - (c ? z1 : z0));
            y->dz[2 * i] = (p0 - (c == 0)) * gscale;
            y->dz[2 * i + 1] = (p1 - (c == 1)) * gscale;
        }
        loss /= B;
        quant(t, T_GRAD, y->dz, (size_t)B, N_CLASSES, y->st_dz);
    }

    /* backward */
    for (l = nl - 1; l >= 0; l--) {
        layer *y = &t->L[l];
        size_t nw = (size_t)y->in * (size_t)y->out;
        int a, o;
        matmul_tn(y->gw, y->gb, y->xq, y->dz, B, y->in, y->out);
        quant(t, T_GRADW, y->gw, (size_t)y->in, (size_t)y->out, NULL);
        quant(t, T_GRADW, y->gb, 1, (size_t)y->out, NULL);
        if (l == 0)
            break;
        for (a = 0; a < y->in; a++)
            for (o = 0; o < y->out; o++)
                y->wt[(size_t)o * y->in + a] = y->wq[(size_t)a * y->out + o];
        matmul(t->dx, y->dz, y->wt, NULL, B, y->out, y->in);
        {
            layer *prev = &t->L[l - 1];
            size_t k;
            for (k = 0; k < (size_t)B * y->in; k++)
                prev->dz[k] = prev->z[k] > 0 ? t->dx[k] : 0.0f;
            quant(t, T_GRAD, prev->dz, (size_t)B, (size_t)prev->out, prev->st_dz);
        }
        (void)nw;
    }

    /* unscale (fp16-ls), then the optimizer on the f32 master weights */
    if (t->cfg == DEMO_FP16_LS) {
        mf_tensor ts[2 * (DEMO_MAX_LAYERS + 1)];
        int found;
        for (l = 0; l < nl; l++) {
            ts[2 * l].data = t->L[l].gw;
            ts[2 * l].format = MF_FP32;
            ts[2 * l].n = (size_t)t->L[l].in * (size_t)t->L[l].out;
            ts[2 * l + 1].data = t->L[l].gb;
            ts[2 * l + 1].format = MF_FP32;
            ts[2 * l + 1].n = (size_t)t->L[l].out;
        }
        found = mf_unscale_check_tensors(&t->scaler, ts, (size_t)(2 * nl));
        if (found < 0) {
            note(t, found);
            found = 1;
        }
        take = mf_loss_scaler_update(&t->scaler, found);
        if (take < 0) {
            note(t, take);
            take = 0;
        }
    }
    if (take) {
        /* cosine decay from lr to lr/20 over the run */
        float lr_min = t->p.lr / 20.0f;
        float lr = lr_min + 0.5f * (t->p.lr - lr_min) * (1.0f + (float)cos(PI * step / total_steps));
        float c1, c2;
        ++*adam_t;
        c1 = 1.0f - (float)pow(0.9, *adam_t);
        c2 = 1.0f - (float)pow(0.999, *adam_t);
        for (l = 0; l < nl; l++) {
            layer *y = &t->L[l];
            adam(y->w, y->mw, y->vw, y->gw, (size_t)y->in * (size_t)y->out, lr, c1, c2);
            adam(y->b, y->mb, y->vb, y->gb, (size_t)y->out, lr, c1, c2);
        }
    } else {
        t->ep.skipped++;
    }
    t->ep.steps++;

    /* delayed scaling: new scales from the amax history, for the next step */
    if (t->cfg == DEMO_FP8)
        for (l = 0; l < 3 * nl; l++)
            note(t, mf_fp8_delayed_update(&t->states[l]));
    return loss;
}

static void counts_sum(demo_counts *a, const demo_counts *b)
{
    a->elems += b->elems;
    a->overflow += b->overflow;
    a->underflow += b->underflow;
    a->subnormal += b->subnormal;
    a->nan += b->nan;
}

int demo_run(const demo_params *p, demo_config c, demo_result *r, demo_progress_fn progress,
                 void *progress_ctx)
{
    trainer *t;
    int rc, e, s, steps_per_epoch;
    long long total_steps, adam_t = 0; /* up to 2^17 steps an epoch times 100000 epochs: beyond int */
    clock_t t0 = clock();
    rng shuf;
    if (!p || !r)
        return MF_E_NULL;
    if ((unsigned)c >= DEMO_CONFIG_COUNT)
        return MF_E_ARG;
    rc = demo_params_check(p, NULL, 0);
    if (rc != MF_OK)
        return rc;
    t = malloc(sizeof *t);
    if (!t)
        return MF_E_SIZE;
    rc = trainer_init(t, p, c);
    if (rc != MF_OK) {
        free(t);
        return rc;
    }
    memset(r, 0, sizeof *r);
    r->epoch = calloc((size_t)p->epochs, sizeof *r->epoch);
    if (!r->epoch) {
        trainer_free(t);
        free(t);
        return MF_E_SIZE;
    }
    r->config = c;
    r->epochs = p->epochs;
    steps_per_epoch = p->n_train / p->batch;
    total_steps = (long long)steps_per_epoch * p->epochs;
    shuf = rng_make(p->seed, STREAM_SHUFFLE);
    for (s = 0; s < p->n_train; s++)
        t->perm[s] = s;

    for (e = 0; e < p->epochs; e++) {
        double sum = 0;
        memset(&t->ep, 0, sizeof t->ep);
        t->mx_seen = 0;
        /* Fisher-Yates: the same order for every configuration */
        for (s = p->n_train - 1; s > 0; s--) {
            int j = (int)rng_below(&shuf, (uint32_t)s + 1), tmpi = t->perm[s];
            t->perm[s] = t->perm[j];
            t->perm[j] = tmpi;
        }
        for (s = 0; s < steps_per_epoch; s++) {
            int i;
            for (i = 0; i < p->batch; i++) {
                int k = t->perm[s * p->batch + i];
                t->xb[2 * i] = t->xtrain[2 * k];
                t->xb[2 * i + 1] = t->xtrain[2 * k + 1];
                t->yb[i] = t->ytrain[k];
            }
            if (c == DEMO_MXFP8)
                t->mx_seen = 0; /* keep the block exponents of the last step only */
            sum += train_step(t, (long long)e * steps_per_epoch + s, total_steps, &adam_t);
        }
        t->ep.loss = sum / steps_per_epoch;
        t->ep.test_acc = (double)eval_correct(t, t->xtest, t->ytest, p->n_test) / p->n_test;
        if (c == DEMO_FP16_LS)
            t->ep.loss_scale = mf_loss_scaler_scale(&t->scaler);
        if (c == DEMO_FP8) {
            t->ep.fp8_scale_out = t->L[t->nl - 1].st_dz->scale;
            t->ep.fp8_scale_in = t->L[0].st_dz->scale;
        }
        if (c == DEMO_MXFP8) {
            t->ep.mx_exp_min = t->mx_min;
            t->ep.mx_exp_max = t->mx_max;
        }
        r->epoch[e] = t->ep;
        counts_sum(&r->fwd, &t->ep.fwd);
        counts_sum(&r->grad, &t->ep.grad);
        r->steps += (uint64_t)t->ep.steps;
        r->skipped += (uint64_t)t->ep.skipped;
        if (t->err)
            break;
        if (progress)
            progress(progress_ctx, c, e + 1, p->epochs);
    }
    rc = t->err;
    if (rc == MF_OK) {
        r->final_loss = r->epoch[p->epochs - 1].loss;
        r->test_acc = r->epoch[p->epochs - 1].test_acc;
        r->train_acc = (double)eval_correct(t, t->xtrain, t->ytrain, p->n_train) / p->n_train;
        if (c == DEMO_FP16_LS)
            r->final_loss_scale = mf_loss_scaler_scale(&t->scaler);
        r->seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
    } else {
        free(r->epoch);
        memset(r, 0, sizeof *r);
    }
    trainer_free(t);
    free(t);
    return rc;
}

void demo_result_free(demo_result *r)
{
    if (!r)
        return;
    free(r->epoch);
    r->epoch = NULL;
    r->epochs = 0;
}

/* ---- CSV ---------------------------------------------------------------------------------------- */

int demo_write_csv(FILE *f, const demo_result *res, int n)
{
    int i, e;
    fputs("config,epoch,train_loss,test_acc,steps,skipped,loss_scale,fp8_scale_dlogits,fp8_scale_dz1,"
          "mx_grad_exp_min,mx_grad_exp_max,fwd_elems,fwd_overflow,fwd_underflow,fwd_subnormal,fwd_nan,"
          "grad_elems,grad_overflow,grad_underflow,grad_subnormal,grad_nan\n",
          f);
    for (i = 0; i < n; i++) {
        const demo_result *r = &res[i];
        for (e = 0; e < r->epochs; e++) {
            const demo_epoch *p = &r->epoch[e];
            fprintf(f, "%s,%d,%.17g,%.6f,%d,%d,", demo_config_name(r->config), e + 1, p->loss, p->test_acc,
                    p->steps, p->skipped);
            if (r->config == DEMO_FP16_LS)
                fprintf(f, "%.9g", p->loss_scale);
            fputc(',', f);
            if (r->config == DEMO_FP8)
                fprintf(f, "%.9g,%.9g", p->fp8_scale_out, p->fp8_scale_in);
            else
                fputc(',', f);
            fputc(',', f);
            if (r->config == DEMO_MXFP8)
                fprintf(f, "%d,%d", p->mx_exp_min, p->mx_exp_max);
            else
                fputc(',', f);
            fprintf(f, ",%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n", (unsigned long long)p->fwd.elems,
                    (unsigned long long)p->fwd.overflow, (unsigned long long)p->fwd.underflow,
                    (unsigned long long)p->fwd.subnormal, (unsigned long long)p->fwd.nan,
                    (unsigned long long)p->grad.elems, (unsigned long long)p->grad.overflow,
                    (unsigned long long)p->grad.underflow, (unsigned long long)p->grad.subnormal,
                    (unsigned long long)p->grad.nan);
        }
    }
    return ferror(f) ? -1 : 0;
}

/* ---- the plot ----------------------------------------------------------------------------------- */

/* Okabe-Ito colours (distinguishable with colour-blindness), one per configuration. */
static const char *const config_colors[DEMO_CONFIG_COUNT] = {"#000000", "#0072B2", "#D55E00",
                                                                 "#009E73", "#CC79A7", "#E69F00"};
static const double config_widths[DEMO_CONFIG_COUNT] = {3.2, 2.0, 2.4, 2.0, 1.8, 1.8};

/* A polyline with a dash pattern (svg.h draws solid polylines only). */
static void dashed_polyline(FILE *f, const double *xs, const double *ys, int n, const char *stroke, double width,
                            const char *dash)
{
    int i;
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%.2f\" stroke-dasharray=\"%s\" "
               "stroke-linejoin=\"round\" points=\"",
            stroke, width, dash);
    for (i = 0; i < n; i++)
        fprintf(f, "%s%.2f,%.2f", i ? " " : "", xs[i], ys[i]);
    fputs("\"/>\n", f);
}

static const char *config_dash(demo_config c)
{
    switch (c) {
    case DEMO_FP16_LS: return "8 4";
    case DEMO_FP8: return "2 3";
    case DEMO_MXFP8: return "10 3 2 3";
    default: return NULL;
    }
}

typedef struct panel {
    double x0, y0, w, h;  /* plot area in pixels */
    double xmin, xmax, ymin, ymax;
    int logy;
} panel;

static double px(const panel *p, double x) { return p->x0 + (x - p->xmin) / (p->xmax - p->xmin) * p->w; }

static double py(const panel *p, double y)
{
    double v = p->logy ? log10(y) : y;
    double lo = p->logy ? log10(p->ymin) : p->ymin, hi = p->logy ? log10(p->ymax) : p->ymax;
    if (v < lo)
        v = lo;
    if (v > hi)
        v = hi;
    return p->y0 + p->h - (v - lo) / (hi - lo) * p->h;
}

static void panel_frame(FILE *f, const panel *p, const char *title, const char *ylabel)
{
    cli_svg_rect(f, p->x0, p->y0, p->w, p->h, "#f7f7f7", 1.0);
    cli_svg_line(f, p->x0, p->y0 + p->h, p->x0 + p->w, p->y0 + p->h, "#333333", 1.2, 0);
    cli_svg_line(f, p->x0, p->y0, p->x0, p->y0 + p->h, "#333333", 1.2, 0);
    cli_svg_text(f, p->x0 + p->w / 2, p->y0 - 10, title, 15, "middle", 0, "#111111");
    cli_svg_text(f, p->x0 - 52, p->y0 + p->h / 2, ylabel, 13, "middle", -90, "#111111");
    cli_svg_text(f, p->x0 + p->w / 2, p->y0 + p->h + 38, "epoch", 13, "middle", 0, "#111111");
}

static double nice_step(double range, int target)
{
    double raw = range / target, mag = pow(10, floor(log10(raw))), f = raw / mag;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

static void x_ticks(FILE *f, const panel *p)
{
    double st = nice_step(p->xmax - p->xmin, 8), x;
    char buf[32];
    for (x = ceil(p->xmin / st) * st; x <= p->xmax + 1e-9; x += st) {
        cli_svg_line(f, px(p, x), p->y0 + p->h, px(p, x), p->y0 + p->h + 5, "#333333", 1, 0);
        cli_svg_line(f, px(p, x), p->y0, px(p, x), p->y0 + p->h, "#dddddd", 0.8, 0);
        snprintf(buf, sizeof buf, "%g", x);
        cli_svg_text(f, px(p, x), p->y0 + p->h + 19, buf, 12, "middle", 0, "#333333");
    }
}

int demo_plot_svg(const char *path, const demo_result *res, int n, const demo_params *prm,
                      const char *title)
{
    const double W = 1100, H = 520;
    panel lp, ap;
    FILE *f;
    int i, e, maxe = 1, k;
    double lmin = 1e300, lmax = 0, amin = 1.0;
    double *xs, *ys;
    char buf[256];

    for (i = 0; i < n; i++) {
        if (res[i].epochs > maxe)
            maxe = res[i].epochs;
        for (e = 0; e < res[i].epochs; e++) {
            double l = res[i].epoch[e].loss, a = res[i].epoch[e].test_acc;
            if (l > 0 && l < 1e30) {
                if (l < lmin)
                    lmin = l;
                if (l > lmax)
                    lmax = l;
            }
            if (a < amin)
                amin = a;
        }
    }
    if (!(lmax > 0)) {
        lmin = 0.01;
        lmax = 1;
    }
    xs = malloc((size_t)maxe * sizeof *xs);
    ys = malloc((size_t)maxe * sizeof *ys);
    f = (xs && ys) ? fopen(path, "w") : NULL;
    if (!f) {
        free(xs);
        free(ys);
        return -1;
    }
    cli_svg_begin(f, W, H);
    if (!title) {
        snprintf(buf, sizeof buf, "Two spirals, MLP 2-%d x%d-2, batch %d, %d epochs, seed %llu: one model, six number formats",
                 prm ? prm->hidden : 0, prm ? prm->layers : 0, prm ? prm->batch : 0, maxe,
                 (unsigned long long)(prm ? prm->seed : 0));
        title = buf;
    }
    cli_svg_text(f, W / 2, 26, title, 16, "middle", 0, "#000000");

    /* left: training loss, log scale over whole decades */
    lp.x0 = 80, lp.y0 = 70, lp.w = 420, lp.h = 340;
    lp.xmin = 0, lp.xmax = maxe, lp.logy = 1;
    lp.ymin = pow(10, floor(log10(lmin)));
    lp.ymax = pow(10, ceil(log10(lmax)));
    panel_frame(f, &lp, "training loss (cross-entropy, log scale)", "loss");
    x_ticks(f, &lp);
    for (k = (int)floor(log10(lp.ymin)); k <= (int)ceil(log10(lp.ymax)); k++) {
        int m;
        for (m = 1; m <= 9; m++) {
            double v = m * pow(10, k);
            if (v < lp.ymin * 0.999 || v > lp.ymax * 1.001)
                continue;
            cli_svg_line(f, lp.x0, py(&lp, v), lp.x0 + lp.w, py(&lp, v), m == 1 ? "#cfcfcf" : "#e8e8e8", 0.8, 0);
            if (m == 1 || m == 2 || m == 5) {
                snprintf(buf, sizeof buf, "%g", v);
                cli_svg_text(f, lp.x0 - 8, py(&lp, v) + 4, buf, 12, "end", 0, "#333333");
            }
        }
    }

    /* right: test accuracy */
    ap.x0 = 620, ap.y0 = 70, ap.w = 420, ap.h = 340;
    ap.xmin = 0, ap.xmax = maxe, ap.logy = 0;
    ap.ymin = amin < 0.5 ? floor(amin * 10) * 10 : 50;
    ap.ymax = 100;
    panel_frame(f, &ap, "test accuracy (FP32 master weights)", "accuracy (%)");
    x_ticks(f, &ap);
    {
        double st = nice_step(ap.ymax - ap.ymin, 6), v;
        for (v = ceil(ap.ymin / st) * st; v <= ap.ymax + 1e-9; v += st) {
            cli_svg_line(f, ap.x0, py(&ap, v), ap.x0 + ap.w, py(&ap, v), "#dddddd", 0.8, 0);
            snprintf(buf, sizeof buf, "%g", v);
            cli_svg_text(f, ap.x0 - 8, py(&ap, v) + 4, buf, 12, "end", 0, "#333333");
        }
    }

    /* curves: fp32 first (widest, underneath) */
    for (i = 0; i < n; i++) {
        const demo_result *r = &res[i];
        const char *col = config_colors[r->config], *dash = config_dash(r->config);
        double wdt = config_widths[r->config];
        int m = 0;
        for (e = 0; e < r->epochs; e++) {
            double l = r->epoch[e].loss;
            if (!(l > 0 && l < 1e30))
                break; /* a NaN loss ends the curve */
            xs[m] = px(&lp, e + 1);
            ys[m] = py(&lp, l);
            m++;
        }
        if (dash)
            dashed_polyline(f, xs, ys, m, col, wdt, dash);
        else
            cli_svg_polyline(f, xs, ys, m, col, wdt);
        for (e = 0; e < r->epochs; e++) {
            xs[e] = px(&ap, e + 1);
            ys[e] = py(&ap, 100 * r->epoch[e].test_acc);
        }
        if (dash)
            dashed_polyline(f, xs, ys, r->epochs, col, wdt, dash);
        else
            cli_svg_polyline(f, xs, ys, r->epochs, col, wdt);
    }

    /* legend below the panels: name, final test accuracy, gradient underflow */
    for (i = 0; i < n; i++) {
        const demo_result *r = &res[i];
        double lx = 80 + (i % 3) * 340, ly = H - 52 + (i / 3) * 24;
        const char *col = config_colors[r->config], *dash = config_dash(r->config);
        double lxs[2], lys[2];
        lxs[0] = lx, lxs[1] = lx + 36, lys[0] = lys[1] = ly - 4;
        if (dash)
            dashed_polyline(f, lxs, lys, 2, col, config_widths[r->config], dash);
        else
            cli_svg_polyline(f, lxs, lys, 2, col, config_widths[r->config]);
        snprintf(buf, sizeof buf, "%s: %.1f%% test, grad underflow %.1f%%", cname(r->config),
                 100 * r->test_acc, r->grad.elems ? 100.0 * (double)r->grad.underflow / (double)r->grad.elems : 0.0);
        cli_svg_text(f, lx + 44, ly, buf, 13, "start", 0, "#111111");
    }
    cli_svg_end(f);
    free(xs);
    free(ys);
    if (ferror(f)) {
        fclose(f);
        return -1;
    }
    return fclose(f) == 0 ? 0 : -1;
}

/* ---- the command ------------------------------------------------------------------------------- */

#define EXIT_DATA 1
#define EXIT_USAGE 2

static const char train_usage[] =
    "usage: minifloat train-demo [options]\n"
    "\n"
    "Train one small MLP on two spirals in FP32, BF16, FP16 without and with loss scaling, FP8\n"
    "(delayed scaling) and MXFP8; print per-epoch loss, accuracy, overflow/underflow counts and\n"
    "scale histories. The same seed gives the same numbers, bit for bit.\n"
    "\n"
    "  --config LIST      comma-separated configurations (default all):\n"
    "                     fp32 bf16 fp16 fp16-ls fp8 mxfp8\n"
    "  --epochs N         epochs (default 40; --quick: 16)\n"
    "  --seed S           data, initial weights and batch order (default 1)\n"
    "  --quick            a short run (2048 training points, 16 epochs)\n"
    "  --plot FILE        write the loss and accuracy curves as SVG\n"
    "  --csv FILE         write every epoch of every configuration as CSV ('-' = stdout)\n"
    "  --every N          print every N-th epoch in the loss table (default: about 20 rows)\n"
    "  --quiet            no progress lines on stderr\n"
    "model and data (defaults in brackets):\n"
    "  --train N          training points [4096; --quick 2048]\n"
    "  --test N           test points [2048]\n"
    "  --batch N          points per step, a multiple of 32 [512]\n"
    "  --hidden N         hidden width, a multiple of 32 [64]\n"
    "  --layers N         hidden layers, 1..8 [3]\n"
    "  --lr X             Adam learning rate, cosine decay to lr/20 [0.01]\n"
    "  --init-std X       initial weights ~ N(0, X^2) [0.02]\n"
    "  --turns X          turns of each spiral [1.25]\n"
    "  --noise X          coordinate noise [0.03]\n"
    "  --growth-interval N  loss-scaler growth interval in steps [100]\n"
    "  --fp8-history N    FP8 delayed-scaling amax history length [16]\n"
    "  -h, --help         this text\n"
    "\n"
    "exit status: 0 success, 1 I/O error, 2 usage error\n";

static int usage_err(const char *fmt, ...)
{
    va_list ap;
    fputs("minifloat train-demo: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nTry 'minifloat train-demo --help' for more information.\n", stderr);
    return EXIT_USAGE;
}

static int parse_int(const char *s, long lo, long hi, int *out)
{
    char *end;
    long v;
    if (!s || !*s)
        return -1;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;
    if (!s || !*s || *s == '-' || *s == '+')
        return -1;
    errno = 0;
    v = strtoull(s, &end, 0);
    if (errno || *end)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

static int parse_float(const char *s, float *out)
{
    char *end;
    double v;
    if (!s || !*s)
        return -1;
    errno = 0;
    v = strtod(s, &end);
    if (errno || *end || !(v == v) || v > FLT_MAX || v < -FLT_MAX)
        return -1;
    *out = (float)v;
    return 0;
}

typedef struct progress_ctx {
    FILE *f;
    int index, count;
    clock_t last;
} progress_ctx;

static void progress_cb(void *vctx, demo_config c, int epoch, int epochs)
{
    progress_ctx *ctx = vctx;
    clock_t now = clock();
    if (!ctx->f)
        return;
    /* a line every ~2 s of CPU time (the time never touches a result) */
    if (epoch < epochs && (double)(now - ctx->last) / CLOCKS_PER_SEC >= 2.0) {
        fprintf(ctx->f, "train-demo: [%d/%d] %-7s epoch %d/%d\n", ctx->index, ctx->count, demo_config_name(c),
                epoch, epochs);
        fflush(ctx->f);
        ctx->last = now;
    }
}

static double pct(uint64_t a, uint64_t b) { return b ? 100.0 * (double)a / (double)b : 0.0; }

static void print_log2(char *buf, size_t size, float v)
{
    if (v > 0)
        snprintf(buf, size, "2^%.1f", log2((double)v));
    else
        snprintf(buf, size, "-");
}

static void print_report(FILE *o, const demo_params *p, const demo_result *res, int n, int every)
{
    int i, e, k, has_ls = -1, has_fp8 = -1, has_mx = -1;
    char a[32], b[32];
    fprintf(o, "minifloat train-demo: two spirals (%d training / %d test points, %.2f turns, noise %.3g),\n", p->n_train,
            p->n_test, p->turns, p->noise);
    fprintf(o, "MLP 2");
    for (k = 0; k < p->layers; k++)
        fprintf(o, "-%d", p->hidden);
    fprintf(o, "-2 (ReLU), softmax cross-entropy averaged over the batch, Adam lr %g (cosine), batch %d,\n", p->lr,
            p->batch);
    fprintf(o, "initial weights N(0, %g^2), %d epoch%s of %d step%s, seed %llu; FP32 master weights.\n",
            p->init_std, p->epochs, p->epochs == 1 ? "" : "s", p->n_train / p->batch,
            p->n_train / p->batch == 1 ? "" : "s", (unsigned long long)p->seed);
    fprintf(o, "Every configuration starts from the same weights and sees the same batches.\n\n");

    fprintf(o, "training loss (mean over the epoch)\n  epoch");
    for (i = 0; i < n; i++)
        fprintf(o, " %10s", cname(res[i].config));
    fputc('\n', o);
    for (e = 0; e < p->epochs; e++) {
        if (!(e == 0 || (e + 1) % every == 0 || e == p->epochs - 1))
            continue;
        fprintf(o, "  %5d", e + 1);
        for (i = 0; i < n; i++)
            fprintf(o, " %10.5f", res[i].epoch[e].loss);
        fputc('\n', o);
    }

    fprintf(o, "\nresults (accuracy of the FP32 master weights after the last epoch)\n");
    fprintf(o, "  %-8s %9s %9s %10s %8s  %s\n", "config", "test acc", "train acc", "final loss", "skipped", "");
    for (i = 0; i < n; i++)
        fprintf(o, "  %-8s %8.2f%% %8.2f%% %10.5f %8llu  %s\n", cname(res[i].config),
                100 * res[i].test_acc, 100 * res[i].train_acc, res[i].final_loss,
                (unsigned long long)res[i].skipped, demo_config_title(res[i].config));

    fprintf(o, "\nrounding events (mf_stats), summed over all steps; %% of the elements rounded\n");
    fprintf(o, "  %-8s %-9s %12s %18s %18s %18s %8s\n", "config", "tensors", "elements", "overflow", "underflow",
            "subnormal", "nan");
    for (i = 0; i < n; i++) {
        const demo_result *r = &res[i];
        for (k = 0; k < 2; k++) {
            const demo_counts *c = k ? &r->grad : &r->fwd;
            if (r->config == DEMO_FP32) {
                if (k == 0)
                    fprintf(o, "  %-8s %-9s %12s\n", "fp32", "all", "(not rounded)");
                continue;
            }
            fprintf(o, "  %-8s %-9s %12llu %9llu (%5.1f%%) %9llu (%5.1f%%) %9llu (%5.1f%%) %8llu\n",
                    k ? "" : demo_config_name(r->config), k ? "gradient" : "forward",
                    (unsigned long long)c->elems, (unsigned long long)c->overflow, pct(c->overflow, c->elems),
                    (unsigned long long)c->underflow, pct(c->underflow, c->elems), (unsigned long long)c->subnormal,
                    pct(c->subnormal, c->elems), (unsigned long long)c->nan);
        }
    }

    for (i = 0; i < n; i++) {
        if (res[i].config == DEMO_FP16_LS)
            has_ls = i;
        if (res[i].config == DEMO_FP8)
            has_fp8 = i;
        if (res[i].config == DEMO_MXFP8)
            has_mx = i;
    }
    if (has_ls >= 0 || has_fp8 >= 0 || has_mx >= 0) {
        fprintf(o, "\nscale history (end of epoch)\n  epoch");
        if (has_ls >= 0)
            fprintf(o, " %12s %8s", "loss scale", "skipped");
        if (has_fp8 >= 0)
            fprintf(o, " %16s %16s", "fp8 dlogits", "fp8 dZ layer 1");
        if (has_mx >= 0)
            fprintf(o, "  %s", "mxfp8 grad block exponents");
        fputc('\n', o);
        for (e = 0; e < p->epochs; e++) {
            if (!(e == 0 || (e + 1) % every == 0 || e == p->epochs - 1))
                continue;
            fprintf(o, "  %5d", e + 1);
            if (has_ls >= 0) {
                print_log2(a, sizeof a, res[has_ls].epoch[e].loss_scale);
                fprintf(o, " %12s %8d", a, res[has_ls].epoch[e].skipped);
            }
            if (has_fp8 >= 0) {
                print_log2(a, sizeof a, res[has_fp8].epoch[e].fp8_scale_out);
                print_log2(b, sizeof b, res[has_fp8].epoch[e].fp8_scale_in);
                fprintf(o, " %16s %16s", a, b);
            }
            if (has_mx >= 0)
                fprintf(o, "  2^%d .. 2^%d", res[has_mx].epoch[e].mx_exp_min, res[has_mx].epoch[e].mx_exp_max);
            fputc('\n', o);
        }
        if (has_ls >= 0)
            fprintf(o, "  loss scale: GradScaler rules (x2 after %d clean steps, x0.5 and skip on inf/NaN)\n",
                    p->ls_growth_interval);
        if (has_fp8 >= 0)
            fprintf(o, "  fp8: e5m2 scale = 57344 / max(amax history of %d steps), for the logits gradient and"
                       " the first layer's output gradient\n",
                    p->fp8_history);
        if (has_mx >= 0)
            fprintf(o, "  mxfp8: range of the E8M0 block scales of the gradient tensors in the epoch's last step\n");
    }
}

int cli_train_demo_main(int argc, char **argv)
{
    demo_params p;
    demo_config list[DEMO_CONFIG_COUNT];
    demo_result res[DEMO_CONFIG_COUNT];
    int nconf = 0, quick = 0, quiet = 0, every = 0, i, rc, status = 0, epochs_set = 0, train_set = 0;
    const char *plot = NULL, *csv = NULL, *configs = NULL;
    progress_ctx pc;
    char msg[160];

    /* --quick changes the defaults, so look for it first */
    for (i = 1; i < argc; i++)
        if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
    p = demo_params_default(quick);

    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *val = NULL, *eq;
        char opt[64];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(train_usage, stdout);
            return 0;
        }
        if (strncmp(a, "--", 2) != 0)
            return usage_err("unexpected argument '%s'", a);
        eq = strchr(a, '=');
        if (eq) {
            size_t len = (size_t)(eq - a);
            if (len >= sizeof opt)
                return usage_err("unknown option '%s'", a);
            memcpy(opt, a, len);
            opt[len] = '\0';
            val = eq + 1;
        } else {
            snprintf(opt, sizeof opt, "%s", a);
        }
        if (strcmp(opt, "--quick") == 0 || strcmp(opt, "--quiet") == 0) {
            if (val)
                return usage_err("option '%s' takes no value", opt);
            if (strcmp(opt, "--quiet") == 0)
                quiet = 1;
            continue;
        }
        {
            static const char *const known[] = {"--config", "--configs", "--plot",  "--csv",   "--epochs",
                                                "--seed",   "--every",   "--train", "--test",  "--batch",
                                                "--hidden", "--layers",  "--lr",    "--init-std", "--turns",
                                                "--noise",  "--growth-interval", "--fp8-history"};
            size_t k = 0;
            while (k < sizeof known / sizeof known[0] && strcmp(opt, known[k]) != 0)
                k++;
            if (k == sizeof known / sizeof known[0])
                return usage_err("unknown option '%s'", opt);
        }
        if (!val) {
            if (i + 1 >= argc)
                return usage_err("option '%s' needs a value", opt);
            val = argv[++i];
        }
        if (strcmp(opt, "--config") == 0 || strcmp(opt, "--configs") == 0)
            configs = val;
        else if (strcmp(opt, "--plot") == 0)
            plot = val;
        else if (strcmp(opt, "--csv") == 0)
            csv = val;
        else if (strcmp(opt, "--epochs") == 0) {
            if (parse_int(val, 1, DEMO_MAX_EPOCHS, &p.epochs))
                return usage_err("--epochs needs a number from 1 to %d", DEMO_MAX_EPOCHS);
            epochs_set = 1;
        } else if (strcmp(opt, "--seed") == 0) {
            if (parse_u64(val, &p.seed))
                return usage_err("--seed needs an unsigned 64-bit number");
        } else if (strcmp(opt, "--every") == 0) {
            if (parse_int(val, 1, DEMO_MAX_EPOCHS, &every))
                return usage_err("--every needs a positive number");
        } else if (strcmp(opt, "--train") == 0) {
            if (parse_int(val, 1, 1 << 22, &p.n_train))
                return usage_err("--train needs a number from 1 to 4194304");
            train_set = 1;
        } else if (strcmp(opt, "--test") == 0) {
            if (parse_int(val, 2, 1 << 22, &p.n_test))
                return usage_err("--test needs a number from 2 to 4194304");
        } else if (strcmp(opt, "--batch") == 0) {
            if (parse_int(val, 1, 1 << 16, &p.batch))
                return usage_err("--batch needs a number");
        } else if (strcmp(opt, "--hidden") == 0) {
            if (parse_int(val, 1, 1024, &p.hidden))
                return usage_err("--hidden needs a number");
        } else if (strcmp(opt, "--layers") == 0) {
            if (parse_int(val, 1, DEMO_MAX_LAYERS, &p.layers))
                return usage_err("--layers needs a number from 1 to %d", DEMO_MAX_LAYERS);
        } else if (strcmp(opt, "--lr") == 0) {
            if (parse_float(val, &p.lr))
                return usage_err("--lr needs a number");
        } else if (strcmp(opt, "--init-std") == 0) {
            if (parse_float(val, &p.init_std))
                return usage_err("--init-std needs a number");
        } else if (strcmp(opt, "--turns") == 0) {
            if (parse_float(val, &p.turns))
                return usage_err("--turns needs a number");
        } else if (strcmp(opt, "--noise") == 0) {
            if (parse_float(val, &p.noise))
                return usage_err("--noise needs a number");
        } else if (strcmp(opt, "--growth-interval") == 0) {
            if (parse_int(val, 1, 1 << 30, &p.ls_growth_interval))
                return usage_err("--growth-interval needs a positive number");
        } else if (strcmp(opt, "--fp8-history") == 0) {
            if (parse_int(val, 1, MF_FP8_HISTORY_MAX, &p.fp8_history))
                return usage_err("--fp8-history needs a number from 1 to %d", MF_FP8_HISTORY_MAX);
        } else
            return usage_err("unknown option '%s'", opt);
    }
    (void)epochs_set;
    (void)train_set;
    if (demo_params_check(&p, msg, sizeof msg) != MF_OK)
        return usage_err("%s", msg);

    if (!configs || name_eq(configs, "all")) {
        for (i = 0; i < DEMO_CONFIG_COUNT; i++)
            list[nconf++] = (demo_config)i;
    } else {
        const char *s = configs;
        while (1) {
            char name[32];
            size_t len = strcspn(s, ",");
            demo_config c;
            int j;
            if (len == 0 || len >= sizeof name)
                return usage_err("--config: bad list '%s' (names: fp32 bf16 fp16 fp16-ls fp8 mxfp8)", configs);
            memcpy(name, s, len);
            name[len] = '\0';
            if (demo_config_from_name(name, &c) != MF_OK)
                return usage_err("--config: unknown configuration '%s' (fp32 bf16 fp16 fp16-ls fp8 mxfp8)", name);
            for (j = 0; j < nconf; j++)
                if (list[j] == c)
                    return usage_err("--config: '%s' given twice", name);
            list[nconf++] = c;
            if (!s[len])
                break;
            s += len + 1;
        }
    }
    if (!every)
        every = p.epochs <= 25 ? 1 : (p.epochs + 19) / 20;

    pc.f = quiet ? NULL : stderr;
    pc.count = nconf;
    memset(res, 0, sizeof res);
    for (i = 0; i < nconf; i++) {
        pc.index = i + 1;
        pc.last = clock();
        rc = demo_run(&p, list[i], &res[i], progress_cb, &pc);
        if (rc != MF_OK) {
            fprintf(stderr, "minifloat train-demo: %s failed: %s\n", demo_config_name(list[i]), mf_strerror(rc));
            while (--i >= 0)
                demo_result_free(&res[i]);
            return EXIT_DATA;
        }
        if (pc.f) {
            fprintf(pc.f, "train-demo: [%d/%d] %-7s done: test accuracy %.2f%% (%.1f s)\n", i + 1, nconf,
                    demo_config_name(list[i]), 100 * res[i].test_acc, res[i].seconds);
            fflush(pc.f);
        }
    }

    print_report(stdout, &p, res, nconf, every);
    if (csv) {
        FILE *f = strcmp(csv, "-") == 0 ? stdout : fopen(csv, "w");
        if (!f || demo_write_csv(f, res, nconf) != 0 || (f != stdout && fclose(f) != 0)) {
            fprintf(stderr, "minifloat train-demo: cannot write '%s': %s\n", csv, strerror(errno));
            status = EXIT_DATA;
        } else if (f != stdout)
            printf("\nwrote %s\n", csv);
    }
    if (plot) {
        if (demo_plot_svg(plot, res, nconf, &p, NULL) != 0) {
            fprintf(stderr, "minifloat train-demo: cannot write '%s': %s\n", plot, strerror(errno));
            status = EXIT_DATA;
        } else
            printf("%swrote %s\n", csv ? "" : "\n", plot);
    }
    for (i = 0; i < nconf; i++)
        demo_result_free(&res[i]);
    if (fflush(stdout) != 0)
        status = EXIT_DATA;
    return status;
}
