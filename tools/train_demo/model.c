/* SPDX-License-Identifier: MIT */
/* tools/train_demo/model.c - the demo's data and network: spirals, rounded forward/backward passes, evaluation. */
#include "trainer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEMO_N_CLASSES 2
#define DEMO_N_INPUT 2

/* ---- random numbers: the library's Philox, one key per purpose --------------------------------- */

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

enum { STREAM_TRAIN = 1, STREAM_TEST, STREAM_INIT, STREAM_SHUFFLE };

static demo_rng rng_make(uint64_t seed, int stream)
{
    demo_rng r;
    r.key = splitmix64(seed ^ splitmix64((uint64_t)stream));
    r.idx = 0;
    return r;
}

static uint32_t rng_u32(demo_rng *r) { return mf_sr_bits(r->key, r->idx++); }

/* Uniform in (0, 1), 24 random bits. */
static double rng_uniform(demo_rng *r) { return ((double)(rng_u32(r) >> 8) + 0.5) * (1.0 / 16777216.0); }

/* Standard normal (Box-Muller). */
static double rng_normal(demo_rng *r)
{
    double u1 = rng_uniform(r), u2 = rng_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(2.0 * DEMO_PI * u2);
}

/* Uniform integer in [0, n) (n small: the modulo bias is below 2^-20). */
static uint32_t rng_below(demo_rng *r, uint32_t n) { return rng_u32(r) % n; }

/* Two interleaved spirals: point i belongs to class i % 2; arm radius grows from 0.05 to 1. */
static void make_spirals(float *x, int *y, int n, float turns, float noise, demo_rng *r)
{
    int i;
    for (i = 0; i < n; i++) {
        int c = i & 1;
        double t = rng_uniform(r);
        double rad = 0.05 + 0.95 * t;
        double th = turns * 2.0 * DEMO_PI * t + c * DEMO_PI;
        double nx = rng_normal(r), ny = rng_normal(r);
        x[2 * i] = (float)(rad * cos(th) + noise * nx);
        x[2 * i + 1] = (float)(rad * sin(th) + noise * ny);
        y[i] = c;
    }
}

/* ---- the trainer -------------------------------------------------------------------------------- */

enum { T_ACT, T_WEIGHT, T_BIAS, T_OUT, T_GRAD, T_GRADW };

/* calloc that counts the bytes it was asked for into *count */
static void *xcalloc(size_t n, size_t size, int *fail, uint64_t *count)
{
    void *q = calloc(n ? n : 1, size);
    if (!q)
        *fail = 1;
    else
        *count += (uint64_t)(n ? n : 1) * size;
    return q;
}

void demo_trainer_free(demo_trainer *t)
{
    int l;
    for (l = 0; l < t->nl; l++) {
        demo_layer *y = &t->L[l];
        free(y->w), free(y->b), free(y->mw), free(y->vw), free(y->mb), free(y->vb);
        free(y->wq), free(y->bq), free(y->wt), free(y->gw), free(y->gb);
        free(y->xq), free(y->z), free(y->dz);
    }
    free(t->xtrain), free(t->xtest), free(t->ytrain), free(t->ytest), free(t->perm);
    free(t->xb), free(t->yb), free(t->dx), free(t->tmp), free(t->u16), free(t->u8), free(t->u8b);
    free(t->scales), free(t->eval_a), free(t->eval_b), free(t->states);
    memset(t, 0, sizeof *t);
}

int demo_trainer_init(demo_trainer *t, const demo_params *p, demo_config cfg)
{
    int fail = 0, l;
    size_t B = (size_t)p->batch, H = (size_t)p->hidden, maxn;
    demo_rng r;
    memset(t, 0, sizeof *t);
    t->p = *p;
    t->cfg = cfg;
    t->nl = p->layers + 1;
    for (l = 0; l < t->nl; l++) {
        demo_layer *y = &t->L[l];
        size_t nw;
        y->in = l == 0 ? DEMO_N_INPUT : p->hidden;
        y->out = l == t->nl - 1 ? DEMO_N_CLASSES : p->hidden;
        nw = (size_t)y->in * (size_t)y->out;
        y->w = xcalloc(nw, sizeof(float), &fail, &t->mem.master);
        y->mw = xcalloc(nw, sizeof(float), &fail, &t->mem.optimizer);
        y->vw = xcalloc(nw, sizeof(float), &fail, &t->mem.optimizer);
        y->wq = xcalloc(nw, sizeof(float), &fail, &t->mem.params);
        y->wt = xcalloc(nw, sizeof(float), &fail, &t->mem.transposed);
        y->gw = xcalloc(nw, sizeof(float), &fail, &t->mem.grads);
        y->b = xcalloc((size_t)y->out, sizeof(float), &fail, &t->mem.master);
        y->mb = xcalloc((size_t)y->out, sizeof(float), &fail, &t->mem.optimizer);
        y->vb = xcalloc((size_t)y->out, sizeof(float), &fail, &t->mem.optimizer);
        y->bq = xcalloc((size_t)y->out, sizeof(float), &fail, &t->mem.params);
        y->gb = xcalloc((size_t)y->out, sizeof(float), &fail, &t->mem.grads);
        y->xq = xcalloc(B * (size_t)y->in, sizeof(float), &fail, &t->mem.activations);
        y->z = xcalloc(B * (size_t)y->out, sizeof(float), &fail, &t->mem.activations);
        y->dz = xcalloc(B * (size_t)y->out, sizeof(float), &fail, &t->mem.activations);
    }
    maxn = B * H > H * H ? B * H : H * H;
    t->xtrain = xcalloc((size_t)p->n_train * DEMO_N_INPUT, sizeof(float), &fail, &t->mem.other);
    t->ytrain = xcalloc((size_t)p->n_train, sizeof(int), &fail, &t->mem.other);
    t->xtest = xcalloc((size_t)p->n_test * DEMO_N_INPUT, sizeof(float), &fail, &t->mem.other);
    t->ytest = xcalloc((size_t)p->n_test, sizeof(int), &fail, &t->mem.other);
    t->perm = xcalloc((size_t)p->n_train, sizeof(int), &fail, &t->mem.other);
    t->xb = xcalloc(B * DEMO_N_INPUT, sizeof(float), &fail, &t->mem.other);
    t->yb = xcalloc(B, sizeof(int), &fail, &t->mem.other);
    t->dx = xcalloc(B * H, sizeof(float), &fail, &t->mem.activations);
    t->tmp = xcalloc(maxn, sizeof(float), &fail, &t->mem.other);
    t->u16 = xcalloc(maxn, sizeof(uint16_t), &fail, &t->mem.other);
    t->u8 = xcalloc(maxn, 1, &fail, &t->mem.other);
    t->u8b = xcalloc(maxn, 1, &fail, &t->mem.other);
    t->scales = xcalloc(maxn / 32 + 1, 1, &fail, &t->mem.other);
    t->eval_a = xcalloc(B * H, sizeof(float), &fail, &t->mem.other);
    t->eval_b = xcalloc(B * H, sizeof(float), &fail, &t->mem.other);
    if (cfg == DEMO_FP8)
        t->states = xcalloc((size_t)t->nl * 3, sizeof(mf_fp8_delayed), &fail, &t->mem.scaling);
    if (fail) {
        demo_trainer_free(t);
        return MF_E_SIZE;
    }

    /* Same data, weights and batch order for every configuration. */
    r = rng_make(p->seed, STREAM_TRAIN);
    make_spirals(t->xtrain, t->ytrain, p->n_train, p->turns, p->noise, &r);
    r = rng_make(p->seed, STREAM_TEST);
    make_spirals(t->xtest, t->ytest, p->n_test, p->turns, p->noise, &r);
    t->shuffle = rng_make(p->seed, STREAM_SHUFFLE);
    for (l = 0; l < p->n_train; l++)
        t->perm[l] = l;
    r = rng_make(p->seed, STREAM_INIT);
    for (l = 0; l < t->nl; l++) {
        demo_layer *y = &t->L[l];
        size_t i, nw = (size_t)y->in * (size_t)y->out;
        for (i = 0; i < nw; i++)
            y->w[i] = (float)(p->init_std * rng_normal(&r));
    }

    if (cfg == DEMO_FP16_LS) {
        mf_loss_scaler_config lc = mf_loss_scaler_config_default();
        int rc;
        lc.growth_interval = p->ls_growth_interval;
        rc = mf_loss_scaler_init(&t->scaler, &lc);
        t->mem.scaling += sizeof t->scaler; /* held in the trainer, not allocated */
        if (rc != MF_OK) {
            demo_trainer_free(t);
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
                demo_trainer_free(t);
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

void demo_note(demo_trainer *t, int rc)
{
    if (rc != MF_OK && !t->err)
        t->err = rc;
}

/* Round the rows x cols tensor x in place as configuration t->cfg stores a tensor of class cls
 * (st: its delayed-scaling state under fp8), and count the events. */
static void quant(demo_trainer *t, int cls, float *x, size_t rows, size_t cols, mf_fp8_delayed *st)
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
        demo_note(t, mf_convert(f, t->u16, MF_FP32, x, n, &o));
        demo_note(t, mf_convert(MF_FP32, x, f, t->u16, n, NULL));
        break;
    }
    case DEMO_FP8: {
        float scale;
        if (cls != T_ACT && cls != T_WEIGHT && cls != T_GRAD)
            return; /* biases, GEMM outputs and weight gradients stay f32 */
        scale = st->scale;
        demo_note(t, mf_fp8_delayed_quantize(st, t->u8, MF_FP32, x, n));
        /* The events of the cast: the same binary32 product and saturating rn conversion that
         * mf_fp8_quantize documents, done again through mf_convert for its counters. */
        for (i = 0; i < n; i++)
            t->tmp[i] = x[i] * scale;
        o.overflow = MF_OVERFLOW_SATURATE;
        demo_note(t, mf_convert(st->cfg.fmt, t->u8b, MF_FP32, t->tmp, n, &o));
        demo_note(t, mf_fp8_dequantize(MF_FP32, x, st->cfg.fmt, t->u8, n, st->scale_inv));
        break;
    }
    case DEMO_MXFP8: {
        mf_mx_type type = is_grad ? MF_MXFP8_E5M2 : MF_MXFP8_E4M3;
        /* Blocks along the contiguous axis where it holds whole blocks (hidden widths), else down the
         * columns (the batch axis of the 2-wide input and logits tensors). */
        mf_mx_axis axis = cols % MF_MX_BLOCK == 0 ? MF_MX_ROWWISE : MF_MX_COLWISE;
        if (cls != T_ACT && cls != T_WEIGHT && cls != T_GRAD)
            return;
        demo_note(t, mf_mx_quantize(type, MF_MX_SCALE_RCEIL, axis, 0, x, rows, cols, t->u8, t->scales, &o));
        demo_note(t, mf_mx_dequantize(type, axis, 0, t->u8, t->scales, rows, cols, x));
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
int demo_eval_correct(demo_trainer *t, const float *x, const int *y, int n)
{
    int correct = 0, start, l;
    for (start = 0; start < n; start += t->p.batch) {
        int m = n - start < t->p.batch ? n - start : t->p.batch, i;
        const float *in = x + (size_t)start * DEMO_N_INPUT;
        float *out = t->eval_a;
        for (l = 0; l < t->nl; l++) {
            demo_layer *ly = &t->L[l];
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

void demo_shuffle(demo_trainer *t)
{
    int s;
    /* Fisher-Yates: the same order for every configuration */
    for (s = t->p.n_train - 1; s > 0; s--) {
        int j = (int)rng_below(&t->shuffle, (uint32_t)s + 1), tmpi = t->perm[s];
        t->perm[s] = t->perm[j];
        t->perm[j] = tmpi;
    }
}

void demo_load_batch(demo_trainer *t, int s)
{
    int i;
    for (i = 0; i < t->p.batch; i++) {
        int k = t->perm[s * t->p.batch + i];
        t->xb[2 * i] = t->xtrain[2 * k];
        t->xb[2 * i + 1] = t->xtrain[2 * k + 1];
        t->yb[i] = t->ytrain[k];
    }
}

/*
 * One forward and backward pass on t->xb / t->yb of configuration X (B = batch, L = layers, a = ReLU);
 * returns the batch loss (unscaled).
 *
 *   forward, layer l:   Xq_l = Q_act(A_l)    (A_0 = the batch of points, A_l = a(Z_{l-1}))
 *                       Wq_l = Q_w(W_l)      bq_l = Q_b(b_l)        (W_l, b_l: f32 master weights)
 *                       Z_l  = Q_out(Xq_l Wq_l + bq_l)              (product in f32)
 *   loss:               softmax cross-entropy of Z_{L-1}, mean over the batch, in f32
 *   backward:           dZ_{L-1} = Q_g(scale/B * (softmax - onehot))
 *                       dW_l = Q_gw(Xq_l^T dZ_l)   db_l = Q_gw(sum_b dZ_l)
 *                       dZ_{l-1} = Q_g((dZ_l Wq_l^T) * a'(Z_{l-1}))
 *
 * Q_* is the identity for fp32; for bf16/fp16 every Q_* rounds to the format with mf_convert (rn,
 * IEEE overflow: inf), Q_act only at layer 0 since a(Z) of a rounded Z is already representable; for
 * fp8 and mxfp8 Q_act and Q_w quantize to e4m3 and Q_g to e5m2 (the GEMM operands, as Transformer
 * Engine does) while biases, GEMM outputs and weight gradients stay f32. The update is optimizer.c.
 */
double demo_forward_backward(demo_trainer *t)
{
    const int B = t->rows ? t->rows : t->p.batch, nl = t->nl;
    const int is16 = t->cfg == DEMO_BF16 || t->cfg == DEMO_FP16 || t->cfg == DEMO_FP16_LS;
    float scale = t->cfg == DEMO_FP16_LS ? mf_loss_scaler_scale(&t->scaler) : 1.0f;
    float gscale = scale / (float)(t->grad_batch ? t->grad_batch : B);
    double loss = 0;
    int l, i;

    /* forward */
    for (l = 0; l < nl; l++) {
        demo_layer *y = &t->L[l];
        size_t nw = (size_t)y->in * (size_t)y->out, k;
        if (l == 0)
            memcpy(y->xq, t->xb, (size_t)B * DEMO_N_INPUT * sizeof(float));
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
        demo_layer *y = &t->L[nl - 1];
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
        quant(t, T_GRAD, y->dz, (size_t)B, DEMO_N_CLASSES, y->st_dz);
    }

    /* backward */
    for (l = nl - 1; l >= 0; l--) {
        demo_layer *y = &t->L[l];
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
            demo_layer *prev = &t->L[l - 1];
            size_t k;
            for (k = 0; k < (size_t)B * y->in; k++)
                prev->dz[k] = prev->z[k] > 0 ? t->dx[k] : 0.0f;
            quant(t, T_GRAD, prev->dz, (size_t)B, (size_t)prev->out, prev->st_dz);
        }
    }
    return loss;
}
