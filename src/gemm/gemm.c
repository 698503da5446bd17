/* SPDX-License-Identifier: MIT */
/* src/gemm/gemm.c - mf_gemm: argument checks, the portable kernels and the exact epilogue.
 *
 * Every element of C is computed the same way whatever the kernel: a dot product (a binary32
 * accumulator summed in k order with fma, or an exact fixed-point sum), then the one rounding of
 * alpha * scales * dot + beta * c, formed exactly in a big fixed-point integer (bigacc.h) and rounded by
 * the library's round-and-pack core.
 */
#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if MF_HAVE_PTHREADS
#include <pthread.h>
#endif

#include <minifloat.h>
#include <minifloat/detail/arith.h>
#include <minifloat/gemm.h>

#include "../internal.h"
#include "bigacc.h"
#include "kernels.h"
#include "tc.h"

/* ---- element access ---------------------------------------------------------------------------- */

/* An operand's block scales (kinds BLOCK_*, MX, NVFP4): the stored array seen as a row-major tensor of
 * lines of cols elements, element (r, c) at array index r * ld + c, its block (r >> bh, c >> bw) scaled by
 * f[...] or lut[u8[...]] at (r >> bh) * scols + (c >> bw). */
typedef struct bscale {
    size_t ld, cols, scols;
    unsigned bh, bw; /* log2 of the block's height and width */
    const float *f;
    const uint8_t *u8;
    float lut[256]; /* MX: 2^(code - 127), NaN for 0xFF; NVFP4: e4m3(code) * amax * (1 / 2688) */
} bscale;

static float bs_at(const bscale *s, size_t r, size_t c)
{
    const size_t q = (r >> s->bh) * s->scols + (c >> s->bw);
    return s->f ? s->f[q] : s->lut[s->u8[q]];
}

/* out[0], out[ostep], ... (count values of the array's elements from index idx on, step apart) times
 * their scales: each a binary32 product rounded to nearest, as the scaling API's dequantize functions */
static void bs_apply(float *out, size_t ostep, const bscale *s, size_t idx, size_t step, size_t count)
{
    size_t r = idx / s->ld, c = idx % s->ld;
    const int along_c = step == 1 && s->ld > 1;
    for (size_t q = 0; q < count; q++) {
        out[q * ostep] *= bs_at(s, r, c);
        if (along_c)
            c++;
        else
            r++;
    }
}

/* op(X)'s element (r, c) of a stored matrix is element r * rs + c * cs of its array. */
typedef struct mat {
    const void *base;
    mf_format fmt;
    size_t rs, cs;
    const bscale *bs; /* block scales, or NULL */
} mat;

/* the element's value as binary32 bits (exact: every element format widens exactly) */
/* element idx of an array of format f, as binary32 bits (exact: every element format widens exactly) */
static uint32_t value_bits(const void *base, mf_format f, size_t idx)
{
    const uint32_t code = mf__gemm_code_at(base, f, idx);
    return f == MF_FP32 ? code : mf__f32_bits(mf_to_f32(f, code));
}

/* op(X)(r, c)'s value, block scale applied, as binary32 bits */
static uint32_t elem_bits(const mat *x, size_t r, size_t c)
{
    const size_t idx = r * x->rs + c * x->cs;
    const uint32_t v = value_bits(x->base, x->fmt, idx);
    float f;
    if (!x->bs)
        return v;
    memcpy(&f, &v, 4);
    bs_apply(&f, 1, x->bs, idx, 1, 1);
    return mf__f32_bits(f);
}

/* ---- exact values with IEEE specials ------------------------------------------------------------ */

enum { XV_FIN, XV_INF, XV_NAN };
typedef struct xval {
    int cls; /* XV_FIN: v holds the value; XV_INF: an infinity of sign neg */
    int neg;
    big v;
} xval;

static int bits_nan(uint32_t b) { return (b & 0x7FFFFFFFu) > 0x7F800000u; }
static int bits_inf(uint32_t b) { return (b & 0x7FFFFFFFu) == 0x7F800000u; }
static int bits_zero(uint32_t b) { return (b & 0x7FFFFFFFu) == 0; }

/* x += a * b for binary32 bits a, b (exact; specials by IEEE rules) */
static void xv_fma(xval *x, uint32_t a, uint32_t b)
{
    if (x->cls == XV_NAN)
        return;
    if (bits_nan(a) || bits_nan(b) || (bits_inf(a) && bits_zero(b)) || (bits_zero(a) && bits_inf(b))) {
        x->cls = XV_NAN;
        return;
    }
    if (bits_inf(a) || bits_inf(b)) {
        const int neg = (int)((a ^ b) >> 31);
        if (x->cls == XV_INF && x->neg != neg)
            x->cls = XV_NAN;
        else
            x->cls = XV_INF, x->neg = neg;
        return;
    }
    if (x->cls == XV_FIN) {
        const f32parts pa = f32_parts(a), pb = f32_parts(b);
        big_add(&x->v, pa.neg ^ pb.neg, (uint64_t)pa.sig * pb.sig, pa.exp + pb.exp);
    }
}

/* x *= f for binary32 bits f */
static void xv_scale(xval *x, uint32_t f)
{
    if (x->cls == XV_NAN)
        return;
    if (bits_nan(f)) {
        x->cls = XV_NAN;
        return;
    }
    if (x->cls == XV_INF) {
        if (bits_zero(f))
            x->cls = XV_NAN;
        else
            x->neg ^= (int)(f >> 31);
        return;
    }
    if (bits_inf(f)) {
        if (big_is_zero(&x->v))
            x->cls = XV_NAN;
        else
            x->cls = XV_INF, x->neg = big_negative(&x->v) ^ (int)(f >> 31);
        return;
    }
    {
        const f32parts p = f32_parts(f);
        if (p.sig == 0)
            big_zero(&x->v);
        else
            big_mul(&x->v, p.neg, p.sig, p.exp);
    }
}

/* ---- the call ----------------------------------------------------------------------------------- */

typedef struct gemm {
    size_t m, n, k;
    uint32_t alpha, beta; /* binary32 bits */
    mat a, b;
    const float *sa, *sb;    /* per-row / per-column scales, or NULL */
    size_t sa_step, sb_step; /* 0: one scale for the tensor, 1: a vector */
    void *c;
    mf_format fmt_c;
    size_t c_rs, c_cs;
    const mf_gemm_opts *o;
    int products; /* alpha != 0 and k > 0: the dot products are formed */
    int direct;   /* alpha = 1, no scales, beta = 0: C is the accumulator rounded once */
    int scaled_rn; /* f32 C, rn, IEEE, beta = 0, no stats, alpha * scales one binary32 factor: C = fl(acc * factor) */
    bscale bsa, bsb; /* block scales (a.bs, b.bs point here) */
    mf__tc tc;       /* a tensor-core model's parameters */
    int tc_c_in;   /* ... and C is its first block's input (alpha = beta = 1, f32 C, no scales) */
    float factor;
} gemm;

static void count_events(mf_stats *st, unsigned ev)
{
    st->overflow += (ev & MF__EV_OVERFLOW) != 0;
    st->underflow += (ev & MF__EV_UNDERFLOW) != 0;
    st->subnormal += (ev & MF__EV_SUBNORMAL) != 0;
    st->nan += (ev & MF__EV_NAN) != 0;
    st->inexact += (ev & MF__EV_INEXACT) != 0;
}

/* the random bits of C(i, j) under stochastic rounding (0 otherwise) */
static uint32_t c_rbits(const gemm *g, size_t i, size_t j)
{
    return g->o->round == MF_ROUND_STOCHASTIC
               ? mf_sr_rbits(g->o->seed, g->o->sr_offset + i * g->n + j, mf_sr_width(g->fmt_c))
               : 0;
}

/* store code as C's element idx, and count its events */
static void c_store(const gemm *g, size_t idx, uint32_t code, unsigned ev, mf_stats *st)
{
    unsigned char *cb = (unsigned char *)g->c;
    if (g->fmt_c == MF_FP32) {
        memcpy(cb + 4 * idx, &code, 4);
    } else {
        const uint16_t h = (uint16_t)code;
        memcpy(cb + 2 * idx, &h, 2);
    }
    if (st && ev)
        count_events(st, ev);
}

/* Round alpha * scales * dot + beta * c into C(i, j). */
static void finish(const gemm *g, xval *x, size_t i, size_t j, mf_stats *st)
{
    const mf__fmt f = mf__fmt_get(g->fmt_c);
    const size_t idx = i * g->c_rs + j * g->c_cs;
    mf__unpacked u;
    unsigned ev = 0;
    uint32_t code;

    if (g->products) {
        xv_scale(x, g->alpha);
        if (g->sa)
            xv_scale(x, mf__f32_bits(g->sa[i * g->sa_step]));
        if (g->sb)
            xv_scale(x, mf__f32_bits(g->sb[j * g->sb_step]));
    } else {
        x->cls = XV_FIN;
        big_zero(&x->v);
    }
    if (!bits_zero(g->beta)) {
        const uint32_t cv = value_bits(g->c, g->fmt_c, idx);
        xv_fma(x, g->beta, cv);
    }
    if (x->cls == XV_NAN) {
        u.cls = MF__CLS_NAN, u.sign = 0, u.exp = 0, u.sig = 0;
    } else if (x->cls == XV_INF) {
        u.cls = MF__CLS_INF, u.sign = (uint32_t)x->neg, u.exp = 0, u.sig = 0;
    } else {
        u = big_unpack(&x->v);
    }
    code = mf__round_pack(f, u, g->o->round, g->o->overflow, c_rbits(g, i, j), &ev);
    c_store(g, idx, code, ev, st);
}

/* ---- MF_ACCUM_EXACT in integers (exact_int.h) ------------------------------------------------------ */
#include "exact_int.h"

static void epi_one(const gemm *g, float s, size_t i, size_t j, mf_stats *st);

/* v * 2^exp as a binary32 number, where it is one exactly (1 = yes) */
static int xi_f32(int64_t v, int exp, float *out)
{
    uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    uint32_t bits;
    int lead;
    if (!mag) {
        *out = 0.0f;
        return 1;
    }
    while (!(mag & 1))
        mag >>= 1, exp++;
    if (mag >> 24 || exp < -149)
        return 0;
    lead = 63 - mf__clz64(mag);
    if (lead + exp > 127)
        return 0;
    if (lead + exp >= -126) /* normal */
        bits = (uint32_t)(lead + exp + 127) << 23 | ((uint32_t)mag << (23 - lead) & 0x7FFFFFu);
    else /* subnormal: its units are 2^-149 */
        bits = (uint32_t)mag << (exp + 149);
    bits |= v < 0 ? 0x80000000u : 0;
    memcpy(out, &bits, 4);
    return 1;
}

/* C(i, j .. j + cnt - 1) from the exact dot products v[q] * 2^exp: where one is a binary32 number s, through the
 * FP32 path's own epilogue (epi_one rounds alpha * scales * s + beta * c once, exactly as finish does; with
 * scaled_rn and a normal s, fl(s * factor) is that one rounding), otherwise through the big accumulator and
 * finish. For |v| < 2^24 and exp in [-126, 103], s = (float)v * 2^exp is exact and normal (or zero). */
static void xi_emit(void *ctx, size_t i, size_t j, size_t cnt, const int64_t *v, int exp, mf_stats *st)
{
    const gemm *g = (const gemm *)ctx;
    const int quick = exp >= -126 && exp <= 103;
    float p2 = 0.0f, s;
    if (quick) {
        const uint32_t pb = (uint32_t)(exp + 127) << 23;
        memcpy(&p2, &pb, 4);
    }
    if (quick && g->fmt_c == MF_FP32 && (g->scaled_rn || g->direct) && g->c_cs == 1) {
        float *dst = (float *)g->c + i * g->c_rs + j;
        const float f = g->scaled_rn ? g->factor : 1.0f; /* direct: s itself (normal: no events) */
        int64_t bad = 0;
        for (size_t q = 0; q < cnt; q++)
            bad |= (v[q] + (1 << 24) - 1) >> 25; /* zero iff -2^24 < v <= 2^24: (float)v exact */
        if (!bad) {
            for (size_t q = 0; q < cnt; q++) {
                const float r = (float)v[q] * p2 * f; /* the first product exact: one rounding */
                dst[q] = v[q] == 0 ? 0.0f : r;        /* an exact zero is +0 */
            }
            return;
        }
    }
    for (size_t q = 0; q < cnt; q++) {
        if (quick && v[q] > -(1 << 24) && v[q] < (1 << 24)) {
            s = (float)v[q] * p2;
            if (g->scaled_rn) {
                const float r = s == 0.0f ? 0.0f : s * g->factor; /* an exact zero is +0 */
                memcpy((float *)g->c + i * g->c_rs + (j + q) * g->c_cs, &r, 4);
                continue;
            }
            epi_one(g, s, i, j + q, st);
        } else if (xi_f32(v[q], exp, &s)) {
            epi_one(g, s, i, j + q, st);
        } else {
            xval x;
            x.cls = XV_FIN, x.neg = 0;
            big_zero(&x.v);
            big_add(&x.v, v[q] < 0, v[q] < 0 ? 0 - (uint64_t)v[q] : (uint64_t)v[q], exp);
            finish(g, &x, i, j + q, st);
        }
    }
}

/* An operand's MX scale exponents per (line, block of 32 along k), for mf__xi_run: NULL where its blocks do not
 * run along k or some block's elements are not exact (scale NaN, or v * 2^x below 2^-149's grid or beyond
 * binary32's range), so that every element's value is its integer times 2^(x - sh). No block scale: zeros. */
static int16_t *xi_mx_exps(const gemm *g, const mat *x, const mf_gemm_scale *sk, size_t lines, size_t ls, size_t ks)
{
    const size_t nbk = g->k / MF__XI_MX_BLOCK;
    const bscale *bs = x->bs;
    const int sh = x->fmt == MF_FP4_E2M1 ? 1 : x->fmt == MF_FP6_E2M3 ? 3 : 4;
    const double maxv = x->fmt == MF_FP4_E2M1 ? 6.0 : x->fmt == MF_FP6_E2M3 ? 7.5 : 28.0;
    int16_t *e;
    if (g->k % MF__XI_MX_BLOCK || (bs && sk->kind != MF_GEMM_SCALE_MX))
        return NULL;
    if (bs && !(sk->axis == MF_MX_ROWWISE ? ks == 1 && ls == bs->ld : ls == 1 && ks == bs->ld))
        return NULL;
    e = (int16_t *)calloc(lines * nbk + 1, sizeof *e);
    if (!e || !bs)
        return e;
    for (size_t t = 0; t < lines; t++)
        for (size_t q = 0; q < nbk; q++) {
            const size_t idx = t * ls + q * MF__XI_MX_BLOCK * ks, r = idx / bs->ld, c = idx % bs->ld;
            const uint8_t code = bs->u8[(r >> bs->bh) * bs->scols + (c >> bs->bw)];
            const int xe = (int)code - 127;
            if (code == 0xFF || xe - sh < -149 || ldexp(maxv, xe) > 0x1.fffffep127) {
                free(e);
                return NULL;
            }
            e[t * nbk + q] = (int16_t)xe;
        }
    return e;
}

/* The integer path where the formats have one: MF_OK, or not taken (then nothing was written). */
static int exact_int(const gemm *g, mf_stats *st)
{
    mf__xi_call c;
    int16_t *ea = NULL, *eb = NULL;
    int rc;
    if (!mf__xi_takes(g->a.fmt, g->b.fmt))
        return MF__XI_DECLINED;
    memset(&c, 0, sizeof c);
    c.m = g->m, c.n = g->n, c.k = g->k;
    c.a.base = g->a.base, c.a.fmt = g->a.fmt, c.a.ls = g->a.rs, c.a.ks = g->a.cs;
    c.b.base = g->b.base, c.b.fmt = g->b.fmt, c.b.ls = g->b.cs, c.b.ks = g->b.rs;
    if (g->a.bs || g->b.bs) {
        ea = xi_mx_exps(g, &g->a, &g->o->scale_a, g->m, g->a.rs, g->a.cs);
        eb = xi_mx_exps(g, &g->b, &g->o->scale_b, g->n, g->b.cs, g->b.rs);
        if (!ea || !eb) {
            free(ea), free(eb);
            return MF__XI_DECLINED;
        }
        c.a.bexp = ea, c.b.bexp = eb;
    }
    c.threads = g->o->threads, c.emit = xi_emit, c.ctx = (void *)(uintptr_t)g, c.st = st;
    rc = mf__xi_run(&c);
    free(ea), free(eb);
    return rc;
}

/* MF_ACCUM_EXACT: the integer path where the formats have one (e2m1, e2m3, e3m2, plain or MX-scaled along k:
 * exact_int.c, on opts.threads); otherwise one element at a time, each product added exactly, on this thread */
static void run_exact(const gemm *g, mf_stats *st)
{
    xval x;
    if (g->products && exact_int(g, st) == MF_OK)
        return;
    for (size_t i = 0; i < g->m; i++)
        for (size_t j = 0; j < g->n; j++) {
            x.cls = XV_FIN, x.neg = 0;
            big_zero(&x.v);
            if (g->products)
                for (size_t p = 0; p < g->k; p++)
                    xv_fma(&x, elem_bits(&g->a, i, p), elem_bits(&g->b, p, j));
            finish(g, &x, i, j, st);
        }
}

/* ---- MF_ACCUM_FP32: packed panels and a micro-kernel ------------------------------------------------
 *
 * The blocking of BLIS / GotoBLAS: for each block of NC columns, all of op(B) is widened to binary32
 * once, in slivers of NR columns per KC rows; for each block of MC rows, op(A) is widened in slivers of
 * MR rows per KC columns, and the micro-kernel (kernels.h) runs each tile's sums over one KC block into
 * a binary32 work tile W, which carries them from one KC block to the next. Every accumulator therefore
 * gets fma(a_p, b_p, acc) for p = 0 .. k-1 in order from +0, whatever the kernel, block sizes or thread
 * count. Edges are padded with zeros in the slivers, which only the padding's accumulators see.
 */
enum { MC = 144, KC = 256, KC_MAX = 512, NC_MAX = 1024, BP_BUDGET = 1 << 22 /* floats of packed B */ };

/* one element's decoding */
typedef struct dec {
    const void *base;
    mf_format fmt;
    size_t rs, cs;
    float lut[256];           /* the value of every code of a format of 8 bits or fewer */
    uint16_t lut16[256];      /* ... as bf16 bits (exact: those formats widen exactly to bf16) */
    void (*widen8)(uint16_t *, const uint8_t *, size_t, const uint16_t *); /* the pair kernel's, or NULL */
    const mf__backend *widen; /* the backend that widens contiguous f16 runs */
    const bscale *bs;
} dec;

static void dec_init(dec *d, const mat *x)
{
    d->base = x->base, d->fmt = x->fmt, d->rs = x->rs, d->cs = x->cs, d->bs = x->bs;
    d->widen = mf__backend_for(mf__backend_active(), MF_FP32, x->fmt);
    d->widen8 = NULL;
    if (x->fmt != MF_FP32 && x->fmt != MF_FP16 && x->fmt != MF_BF16)
        for (uint32_t c = 0; c < 256; c++)
            d->lut[c] = mf_to_f32(x->fmt, x->fmt == MF_FP4_E2M1                            ? c & 0xF
                                          : x->fmt == MF_FP6_E2M3 || x->fmt == MF_FP6_E3M2 ? c & 0x3F
                                                                                           : c);
    for (uint32_t c = 0; c < 256; c++)
        d->lut16[c] = (uint16_t)(mf__f32_bits(d->lut[c]) >> 16);
}

/* count elements from array index idx on, step apart, widened into out[0], out[ostep], ... */
static void dec_run_raw(float *out, size_t ostep, const dec *d, size_t idx, size_t step, size_t count)
{
    const unsigned char *b = (const unsigned char *)d->base;
    size_t q;
    switch (d->fmt) {
    case MF_FP32:
        for (q = 0; q < count; q++, idx += step)
            memcpy(out + q * ostep, b + 4 * idx, 4);
        break;
    case MF_FP16:
        if (step == 1 && d->widen) { /* contiguous: the backend's conversion (F16C where there is one) */
            static const mf_opts rn;
            float tmp[256];
            for (q = 0; q < count; q += 256) {
                const size_t m = count - q < 256 ? count - q : 256;
                float *dst = ostep == 1 ? out + q : tmp;
                d->widen->convert(MF_FP32, dst, MF_FP16, b + 2 * (idx + q), m, &rn, NULL);
                if (ostep != 1)
                    for (size_t r = 0; r < m; r++)
                        out[(q + r) * ostep] = tmp[r];
            }
            break;
        }
        for (q = 0; q < count; q++, idx += step) {
            uint16_t h;
            memcpy(&h, b + 2 * idx, 2);
            out[q * ostep] = mf_to_f32(MF_FP16, h);
        }
        break;
    case MF_BF16:
        for (q = 0; q < count; q++, idx += step) {
            uint16_t h;
            uint32_t u;
            memcpy(&h, b + 2 * idx, 2);
            u = (uint32_t)h << 16;
            memcpy(out + q * ostep, &u, 4);
        }
        break;
    case MF_FP4_E2M1:
        for (q = 0; q < count; q++, idx += step)
            out[q * ostep] = d->lut[(b[idx / 2] >> (4 * (idx & 1))) & 0xF];
        break;
    default:
        for (q = 0; q < count; q++, idx += step)
            out[q * ostep] = d->lut[b[idx]];
    }
}

/* ... with their block scales */
static void dec_run(float *out, size_t ostep, const dec *d, size_t idx, size_t step, size_t count)
{
    dec_run_raw(out, ostep, d, idx, step, count);
    if (d->bs)
        bs_apply(out, ostep, d->bs, idx, step, count);
}

/* op(A)'s rows [i0, i0 + mb) x columns [p0, p0 + kb) into slivers of mr rows (zero rows past mb) */
static void pack_a(float *ap, const dec *a, size_t i0, size_t mb, size_t p0, size_t kb, int mr)
{
    for (size_t s = 0; s < mb; s += (size_t)mr, ap += (size_t)mr * kb)
        for (size_t r = 0; r < (size_t)mr; r++) {
            if (s + r < mb)
                dec_run(ap + r, (size_t)mr, a, (i0 + s + r) * a->rs + p0 * a->cs, a->cs, kb);
            else
                for (size_t p = 0; p < kb; p++)
                    ap[p * (size_t)mr + r] = 0.0f;
        }
}

/* op(B)'s rows [0, k) x the columns of slivers [t0, t1) of the block starting at column j0 (nb columns):
 * per KC block of rows, slivers of nr columns, zero columns past nb. Each row's run is widened at once
 * (one call of the backend's conversion for f16), then dealt out to the slivers. */
static void pack_b(float *bp, const dec *b, size_t k, size_t kc, size_t j0, size_t nb, int nr, size_t t0, size_t t1)
{
    const size_t NR = (size_t)nr, ncp = (nb + NR - 1) / NR * NR, c0 = t0 * NR, c1 = t1 * NR < nb ? t1 * NR : nb;
    float row[NC_MAX];
    for (size_t p0 = 0; p0 < k; p0 += kc) {
        const size_t kb = k - p0 < kc ? k - p0 : kc;
        for (size_t p = 0; p < kb; p++) {
            dec_run(row, 1, b, (p0 + p) * b->rs + (j0 + c0) * b->cs, b->cs, c1 - c0);
            for (size_t c = c1 - c0; c < (t1 - t0) * NR; c++)
                row[c] = 0.0f;
            for (size_t t = t0; t < t1; t++)
                memcpy(bp + p0 * ncp + t * NR * kb + p * NR, row + (t - t0) * NR, NR * sizeof(float));
        }
    }
}

static size_t round_up(size_t x, size_t m) { return (x + m - 1) / m * m; }

/* ---- the pair kernels' packing (kernels.h): bf16 pairs, and each sliver's guard summary ---------------- */

/* the formats whose every value is a bf16 value: the pair kernels take them when no block scale applies */
static int pair_format(mf_format f)
{
    return f == MF_BF16 || f == MF_FP8_E4M3 || f == MF_FP8_E5M2 || f == MF_FP6_E2M3 || f == MF_FP6_E3M2 ||
           f == MF_FP4_E2M1;
}

/* count elements from array index idx on, step apart, as bf16 codes */
static void dec_run_bf16(uint16_t *out, const dec *d, size_t idx, size_t step, size_t count)
{
    const unsigned char *b = (const unsigned char *)d->base;
    size_t q;
    if (d->fmt == MF_BF16 && step == 1) {
        memcpy(out, b + 2 * idx, 2 * count);
    } else if (d->fmt == MF_BF16) {
        for (q = 0; q < count; q++, idx += step)
            memcpy(out + q, b + 2 * idx, 2);
    } else if (d->fmt == MF_FP4_E2M1) {
        for (q = 0; q < count; q++, idx += step)
            out[q] = d->lut16[(b[idx / 2] >> (4 * (idx & 1))) & 0xF];
    } else if (step == 1 && d->widen8) {
        d->widen8(out, b + idx, count, d->lut16);
    } else {
        for (q = 0; q < count; q++, idx += step)
            out[q] = d->lut16[b[idx]];
    }
}

/* ... or, where they are contiguous bf16 codes in memory, the array itself (no copy) */
static const uint16_t *dec_view_bf16(uint16_t *buf, const dec *d, size_t idx, size_t step, size_t count)
{
    const uint16_t *p = (const uint16_t *)d->base + idx;
    if (d->fmt == MF_BF16 && step == 1 && !((uintptr_t)d->base & 1))
        return p;
    dec_run_bf16(buf, d, idx, step, count);
    return buf;
}

static const mf__pair_sum PAIR_SUM_EMPTY = {255, 0, 0};

/* op(A)'s rows [i0, i0 + mb) x columns [p0, p0 + kb) into slivers of mr rows of kp = ceil(kb / 2) pairs
 * (zero rows past mb, a zero element past kb), with each sliver's summary in sum[s] */
static void pack_a_pair(uint32_t *ap, mf__pair_sum *sum, const dec *a, size_t i0, size_t mb, size_t p0, size_t kb,
                        int mr)
{
    const size_t kp = (kb + 1) / 2, kf = kb / 2; /* pairs; whole pairs */
    uint16_t buf[KC_MAX];
    for (size_t s = 0; s < mb; s += (size_t)mr, ap += (size_t)mr * kp, sum++) {
        *sum = PAIR_SUM_EMPTY;
        for (size_t r = 0; r < (size_t)mr; r++) {
            const uint16_t *run;
            if (s + r < mb) {
                run = dec_view_bf16(buf, a, (i0 + s + r) * a->rs + p0 * a->cs, a->cs, kb);
            } else {
                memset(buf, 0, kb * sizeof *buf);
                run = buf;
            }
            for (size_t p = 0; p < kf; p++)
                ap[p * (size_t)mr + r] = (uint32_t)run[2 * p] << 16 | run[2 * p + 1];
            if (kf < kp) /* odd kb: the last element and a zero */
                ap[kf * (size_t)mr + r] = (uint32_t)run[2 * kf] << 16;
        }
        mf__pair_sum_run(sum, (const uint16_t *)(const void *)ap, 2 * kp * (size_t)mr); /* pads are zeros */
    }
}

/* pack_b for the pair kernels: per KC block, slivers of nr columns of kp pairs each, laid out as pack_b's
 * floats (a pair takes a float's four bytes: block p0 starts at p0 / 2 * ncp words), and each sliver's
 * summary in sum[(p0 / kc) * tn + t] (tn slivers in the column block) */
static void pack_b_pair(uint32_t *bp, mf__pair_sum *sum, const dec *b, size_t k, size_t kc, size_t j0, size_t nb,
                        int nr, size_t t0, size_t t1)
{
    const size_t NR = (size_t)nr, ncp = (nb + NR - 1) / NR * NR, tn = ncp / NR, c0 = t0 * NR;
    const size_t c1 = t1 * NR < nb ? t1 * NR : nb, w = (t1 - t0) * NR;
    uint16_t row0[NC_MAX], row1[NC_MAX];
    for (size_t p0 = 0; p0 < k; p0 += kc) {
        const size_t kb = k - p0 < kc ? k - p0 : kc, kp = (kb + 1) / 2;
        mf__pair_sum *sb = sum + p0 / kc * tn;
        for (size_t t = t0; t < t1; t++)
            sb[t] = PAIR_SUM_EMPTY;
        for (size_t p = 0; p < kp; p++) {
            const uint16_t *r0b = row0, *r1b = row1;
            if (c1 - c0 == w) { /* whole slivers: the rows as they are, where they are bf16 in memory */
                r0b = dec_view_bf16(row0, b, (p0 + 2 * p) * b->rs + (j0 + c0) * b->cs, b->cs, w);
                if (2 * p + 1 < kb)
                    r1b = dec_view_bf16(row1, b, (p0 + 2 * p + 1) * b->rs + (j0 + c0) * b->cs, b->cs, w);
                else
                    memset(row1, 0, w * sizeof *row1);
            } else {
                memset(row0 + (c1 - c0), 0, (w - (c1 - c0)) * sizeof *row0);
                memset(row1, 0, w * sizeof *row1);
                dec_run_bf16(row0, b, (p0 + 2 * p) * b->rs + (j0 + c0) * b->cs, b->cs, c1 - c0);
                if (2 * p + 1 < kb)
                    dec_run_bf16(row1, b, (p0 + 2 * p + 1) * b->rs + (j0 + c0) * b->cs, b->cs, c1 - c0);
            }
            for (size_t t = t0; t < t1; t++) {
                uint32_t *dst = bp + p0 / 2 * ncp + t * NR * kp + p * NR;
                const uint16_t *r0 = r0b + (t - t0) * NR, *r1 = r1b + (t - t0) * NR;
                for (size_t c = 0; c < NR; c++)
                    dst[c] = (uint32_t)r0[c] << 16 | r1[c];
            }
        }
        for (size_t t = t0; t < t1; t++) /* each packed sliver at once (its pads are zeros) */
            mf__pair_sum_run(&sb[t], (const uint16_t *)(const void *)(bp + p0 / 2 * ncp + t * NR * kp), 2 * NR * kp);
    }
}


/* Store accumulator s as C(i, j) where alpha = 1, there are no scales and beta = 0: one rounding of s */
static void store_acc(const gemm *g, float s, size_t i, size_t j, mf_stats *st)
{
    unsigned ev = 0;
    uint32_t code = mf__f32_bits(s);
    if (g->fmt_c == MF_FP32) { /* exact but for the specials */
        const uint32_t mag = code & 0x7FFFFFFFu;
        if (mag > 0x7F800000u)
            code = 0x7FFFFFFFu, ev = MF__EV_NAN;
        else if (mag == 0x7F800000u && g->o->overflow == MF_OVERFLOW_SATURATE)
            code = (code & 0x80000000u) | 0x7F7FFFFFu, ev = MF__EV_OVERFLOW | MF__EV_INEXACT;
        else if (mag != 0 && mag < 0x00800000u)
            ev = MF__EV_SUBNORMAL;
    } else {
        code = mf_from_f32_ev(g->fmt_c, s, g->o->round, g->o->overflow, c_rbits(g, i, j), &ev);
    }
    c_store(g, i * g->c_rs + j * g->c_cs, code, ev, st);
}

/* alpha * sa[i] * sb[j] as one binary32 number, if it is one exactly (1 = yes) */
static int factor_f32(const gemm *g, size_t i, size_t j, float *f)
{
    float alpha, t;
    double p;
    memcpy(&alpha, &g->alpha, 4);
    t = alpha;
    if (g->sa) {
        p = (double)t * (double)g->sa[i * g->sa_step]; /* exact: two 24-bit significands */
        t = (float)p;
        if ((double)t != p)
            return 0;
    }
    if (g->sb) {
        p = (double)t * (double)g->sb[j * g->sb_step];
        t = (float)p;
        if ((double)t != p)
            return 0;
    }
    *f = t;
    return isfinite(t);
}

/* C(i, j) from the binary32 accumulator s: alpha * scales * s + beta * c rounded once. Where the factor is a
 * binary32 number and everything is finite, the value is formed in binary64: s * F and beta * c are exact
 * there (48-bit products between 2^-298 and 2^256), and their sum is rounded to odd (TwoSum), which keeps
 * every rounding into a format of 24 bits or fewer exact; otherwise (and for stochastic rounding into f32,
 * whose 32 random bits see past binary64's last bit) the exact fixed-point path. */
static void epi_one(const gemm *g, float s, size_t i, size_t j, mf_stats *st)
{
    const uint32_t sbits = mf__f32_bits(s);
    float f, cv = 0.0f;
    xval x;
    if (g->direct) {
        store_acc(g, s, i, j, st);
        return;
    }
    if ((sbits & 0x7FFFFFFFu) < 0x7F800000u && factor_f32(g, i, j, &f)) {
        const size_t idx = i * g->c_rs + j * g->c_cs;
        const int has_c = !bits_zero(g->beta);
        double v = (double)s * (double)f, e = 0.0;
        if (has_c) {
            const uint32_t cb = value_bits(g->c, g->fmt_c, idx);
            float beta;
            memcpy(&cv, &cb, 4);
            memcpy(&beta, &g->beta, 4);
            if (isfinite(cv) && isfinite(beta)) {
                const double y = (double)beta * (double)cv, sum = v + y, bb = sum - v;
                e = (v - (sum - bb)) + (y - bb); /* TwoSum: v + y = sum + e exactly */
                v = sum;
            } else {
                goto exact;
            }
        }
        if (v == 0.0) {
            v = 0.0; /* an exact zero is +0 */
        } else if (e != 0.0) {
            uint64_t u;
            if (g->o->round == MF_ROUND_STOCHASTIC && g->fmt_c == MF_FP32)
                goto exact;
            memcpy(&u, &v, 8);
            if (!(u & 1)) /* round to odd: toward e, to the odd neighbour */
                u += (e > 0.0) == (v > 0.0) ? 1 : (uint64_t)-1;
            memcpy(&v, &u, 8);
        }
        {
            unsigned ev = 0;
            const uint32_t code = mf_from_f64_ev(g->fmt_c, v, g->o->round, g->o->overflow, c_rbits(g, i, j), &ev);
            c_store(g, idx, code, ev, st);
        }
        return;
    }
exact:
    x.cls = XV_FIN, x.neg = 0;
    big_zero(&x.v);
    xv_fma(&x, sbits, 0x3F800000u); /* the accumulator's value, specials included */
    finish(g, &x, i, j, st);
}

/* no NaN, inf, subnormal or -0 among n binary32 values: stored as they are when alpha = 1, no scales, beta = 0
 * (a -0 sum, left by a negative product below binary32's range, is an exact zero: +0 in C) */
static int plain_run(const float *w, size_t n)
{
    uint32_t bad = 0, u;
    for (size_t q = 0; q < n; q++) {
        memcpy(&u, w + q, 4);
        bad |= (uint32_t)(u == 0x80000000u);
        u &= 0x7FFFFFFFu;
        bad |= (uint32_t)(u >= 0x7F800000u) | (uint32_t)(u - 1u < 0x007FFFFFu);
    }
    return !bad;
}

#if defined(__GNUC__)
#define PREFETCH_W(p) __builtin_prefetch((p), 1, 3)
#else
#define PREFETCH_W(p) ((void)0)
#endif

/* One thread's share of a column block: rows [r0, r1), in blocks of MC. */
/* The kernel of one call: an fma micro-kernel, or a pair kernel (kernels.h), with its tile and blocking. */
typedef struct fp32_plan {
    const mf__gemm_ukr *k;        /* the fma kernel, or NULL */
    const mf__gemm_ukr_pair *pk;  /* the pair kernel, or NULL */
    size_t mr, nr, mc, kc;
} fp32_plan;

enum { PAIR_SLIVERS_MAX = 64 }; /* slivers of A in one MC block: mc / mr at most */

typedef struct fp32_job {
    const gemm *g;
    const fp32_plan *pl;
    const dec *a;
    const float *bp;
    const mf__pair_sum *sb; /* pair kernels: packed B's sliver summaries */
    size_t j0, nb;
    size_t r0, r1;
    float *ap, *w;
    mf__pair_sum sa[PAIR_SLIVERS_MAX];
    mf_stats st;
    int count;
} fp32_job;

/* one k block of a row block: pack A, then every tile's sums over the block into W */
static void fp32_block(fp32_job *jb, size_t i0, size_t mb, size_t p0, size_t kb)
{
    const fp32_plan *pl = jb->pl;
    const size_t mr = pl->mr, nr = pl->nr, ncp = round_up(jb->nb, nr), tn = ncp / nr, ns = round_up(mb, mr) / mr;
    const size_t kp = (kb + 1) / 2;
    const uint32_t *bpp = (const uint32_t *)(const void *)jb->bp + p0 / 2 * ncp;
    const mf__pair_sum *sb = pl->pk ? jb->sb + p0 / pl->kc * tn : NULL;
    if (pl->pk)
        pack_a_pair((uint32_t *)(void *)jb->ap, jb->sa, jb->a, i0, mb, p0, kb, (int)mr);
    else
        pack_a(jb->ap, jb->a, i0, mb, p0, kb, (int)mr);
    for (size_t t = 0; t < tn; t++)
        for (size_t s = 0; s < ns; s++) {
            /* the next call's tile of W, from L2 or beyond, while this one computes */
            const size_t nx = s + 1 < ns ? (s + 1) * tn + t : t + 1 < tn ? t + 1 : 0;
            float *w = jb->w + (s * tn + t) * mr * nr;
            for (size_t q = 0; q < mr * nr; q += 16)
                PREFETCH_W(jb->w + nx * mr * nr + q);
            if (!pl->pk)
                pl->k->fn(kb, jb->ap + s * mr * kb, jb->bp + p0 * ncp + t * nr * kb, w, p0 > 0);
            else /* the instruction where the guard holds for the tile, the fma chain elsewhere */
                (mf__pair_guard(jb->sa[s], sb[t]) ? pl->pk->dot : pl->pk->chain)(
                    kp, (const uint32_t *)(const void *)jb->ap + s * mr * kp, bpp + t * nr * kp, w, p0 > 0);
        }
}

static void fp32_rows(fp32_job *jb)
{
    const gemm *g = jb->g;
    const fp32_plan *pl = jb->pl;
    const size_t mr = pl->mr, nr = pl->nr, ncp = round_up(jb->nb, nr), tn = ncp / nr;
    for (size_t i0 = jb->r0; i0 < jb->r1; i0 += pl->mc) {
        const size_t mb = jb->r1 - i0 < pl->mc ? jb->r1 - i0 : pl->mc;
        if (!g->products) /* no k block below: the sums are +0 */
            memset(jb->w, 0, round_up(mb, mr) * ncp * sizeof(float));
        for (size_t p0 = 0; g->products && p0 < g->k; p0 += pl->kc)
            fp32_block(jb, i0, mb, p0, g->k - p0 < pl->kc ? g->k - p0 : pl->kc);
        for (size_t ii = 0; ii < mb; ii++) {
            const size_t i = i0 + ii;
            const float *wrow = jb->w + (ii / mr) * tn * mr * nr + (ii % mr) * nr;
            for (size_t t = 0; t < tn; t++) {
                const float *src = wrow + t * mr * nr;
                const size_t j = jb->j0 + t * nr, cnt = jb->nb - t * nr < nr ? jb->nb - t * nr : nr;
                if (g->direct && g->fmt_c == MF_FP32 && g->c_cs == 1 && plain_run(src, cnt)) {
                    memcpy((float *)g->c + i * g->c_rs + j, src, cnt * sizeof(float));
                    continue;
                }
                if (g->scaled_rn && g->c_cs == 1 && plain_run(src, cnt)) { /* fl(acc * F): one rn rounding */
                    float *dst = (float *)g->c + i * g->c_rs + j;
                    for (size_t q = 0; q < cnt; q++)
                        dst[q] = src[q] == 0.0f ? 0.0f : src[q] * g->factor; /* an exact zero is +0 */
                    continue;
                }
                for (size_t q = 0; q < cnt; q++)
                    epi_one(g, src[q] == 0.0f ? 0.0f : src[q], i, j + q, jb->count ? &jb->st : NULL); /* -0: +0 */
            }
        }
    }
}

/* The call's threads take work items in order from one queue: for each column block, a phase of items
 * that pack a share of B's slivers, then a phase of items that each run a share of C's rows. An item waits
 * until the phase before its own has finished (packed B is complete; or, for packing, the previous
 * column block's rows are done and B's buffer can be reused). A thread that starts late takes fewer items
 * (the scheduler may start a new thread on the busy core, or late), and every element is computed the same
 * way whichever thread takes it, so the bits do not depend on the threads. */
typedef struct fp32_team {
    const gemm *g;
    const fp32_plan *pl;
    const dec *db;
    float *bp;
    mf__pair_sum *sb; /* pair kernels: packed B's sliver summaries */
    size_t ncb, nt;
    size_t n_pack, n_rows, rows_item; /* items per column block, and the rows of a row item */
    fp32_job *jobs;
    size_t next, finished; /* items taken, items finished */
#if MF_HAVE_PTHREADS
    pthread_mutex_t mu;
    pthread_cond_t go; /* an item finished */
#endif
} fp32_team;

typedef struct fp32_member {
    fp32_team *tm;
    size_t id;
} fp32_member;

static void team_lock(fp32_team *tm)
{
#if MF_HAVE_PTHREADS
    if (tm->nt > 1)
        pthread_mutex_lock(&tm->mu);
#else
    (void)tm;
#endif
}

static void team_unlock(fp32_team *tm)
{
#if MF_HAVE_PTHREADS
    if (tm->nt > 1)
        pthread_mutex_unlock(&tm->mu);
#else
    (void)tm;
#endif
}

static void team_run(fp32_team *tm, size_t id)
{
    const gemm *g = tm->g;
    const size_t nr = tm->pl->nr, per = tm->n_pack + tm->n_rows;
    const size_t total = (g->n + tm->ncb - 1) / tm->ncb * per;
    fp32_job *jb = &tm->jobs[id];
    team_lock(tm);
    while (tm->next < total) {
        const size_t idx = tm->next++, blk = idx / per, q = idx % per;
        const size_t phase = blk * per + (q < tm->n_pack ? 0 : tm->n_pack); /* its phase's first item */
        const size_t j0 = blk * tm->ncb, nb = g->n - j0 < tm->ncb ? g->n - j0 : tm->ncb, tn = (nb + nr - 1) / nr;
#if MF_HAVE_PTHREADS
        while (tm->finished < phase) /* phases run one after the other: all items before it are done */
            pthread_cond_wait(&tm->go, &tm->mu);
#endif
        team_unlock(tm);
        if (q < tm->n_pack) {
            const size_t t0 = tn * q / tm->n_pack, t1 = tn * (q + 1) / tm->n_pack;
            if (g->products && t0 < t1 && tm->pl->pk)
                pack_b_pair((uint32_t *)(void *)tm->bp, tm->sb, tm->db, g->k, tm->pl->kc, j0, nb, (int)nr, t0, t1);
            else if (g->products && t0 < t1)
                pack_b(tm->bp, tm->db, g->k, tm->pl->kc, j0, nb, (int)nr, t0, t1);
        } else {
            const size_t r0 = (q - tm->n_pack) * tm->rows_item;
            jb->j0 = j0, jb->nb = nb, jb->r0 = r0, jb->r1 = g->m - r0 < tm->rows_item ? g->m : r0 + tm->rows_item;
            fp32_rows(jb);
        }
        team_lock(tm);
        tm->finished++;
#if MF_HAVE_PTHREADS
        if (tm->nt > 1)
            pthread_cond_broadcast(&tm->go);
#endif
    }
    team_unlock(tm);
}

#if MF_HAVE_PTHREADS
static void *team_thread(void *arg)
{
    fp32_member *me = (fp32_member *)arg;
    team_run(me->tm, me->id);
    return NULL;
}
#endif

enum { GEMM_MAX_THREADS = 64 };

/* Run the team on up to want threads (this one included); returns how many took part. */
static size_t team_start(fp32_team *tm, size_t want)
{
    size_t started = 1;
#if MF_HAVE_PTHREADS
    pthread_t tid[GEMM_MAX_THREADS];
    fp32_member me[GEMM_MAX_THREADS];
    tm->nt = want; /* the queue is locked from the first thread on */
    if (want > 1) {
        pthread_mutex_init(&tm->mu, NULL);
        pthread_cond_init(&tm->go, NULL);
        for (; started < want; started++) {
            me[started].tm = tm, me[started].id = started;
            if (pthread_create(&tid[started], NULL, team_thread, &me[started]) != 0)
                break;
        }
    }
#else
    (void)want;
    tm->nt = 1;
#endif
    team_run(tm, 0);
#if MF_HAVE_PTHREADS
    if (want > 1) {
        for (size_t t = 1; t < started; t++)
            pthread_join(tid[t], NULL);
        pthread_cond_destroy(&tm->go);
        pthread_mutex_destroy(&tm->mu);
    }
#endif
    return started;
}

/* The FP32 path's work buffer is kept for the next call (one, the latest, at most SCRATCH_KEEP bytes): a
 * fresh allocation of several MiB costs a page fault per 4 KiB page on every call. It holds no state
 * that a result depends on. Each buffer starts with its size; a call takes the kept one or allocates. */
enum { SCRATCH_KEEP = 64 << 20, SCRATCH_HEAD = 64 };
#if defined(__GNUC__)
static void *scratch_kept;

static void *scratch_get(size_t bytes)
{
    void *p = __atomic_exchange_n(&scratch_kept, NULL, __ATOMIC_ACQ_REL);
    size_t have = 0;
    if (p)
        memcpy(&have, p, sizeof have);
    if (p && have >= bytes)
        return p;
    free(p);
    p = malloc(bytes + SCRATCH_HEAD);
    if (p)
        memcpy(p, &bytes, sizeof bytes);
    return p;
}

static void scratch_put(void *p)
{
    size_t have = 0;
    memcpy(&have, p, sizeof have);
    if (have > SCRATCH_KEEP) {
        free(p);
        return;
    }
    free(__atomic_exchange_n(&scratch_kept, p, __ATOMIC_ACQ_REL));
}
#else
static void *scratch_get(size_t bytes) { return malloc(bytes + SCRATCH_HEAD); }
static void scratch_put(void *p) { free(p); }
#endif

/* The kernels of each backend, the one place that chooses: the FP32 micro-kernel, the pair kernel (NULL: none)
 * and the tensor-core models' panel kernel. A backend not listed takes its parent's. */
typedef struct gemm_kernels {
    const mf__gemm_ukr *ukr;
    const mf__gemm_ukr_pair *pair;
    const mf__tc_kernel *tc;
} gemm_kernels;

#if MF_HAVE_BACKEND_avx2
#define TC_X86 &mf__tc_kernel_avx2
#else
#define TC_X86 &mf__tc_kernel_portable
#endif

static const struct {
    const mf__backend *backend;
    gemm_kernels k;
} KERNELS[] = {
#if MF_HAVE_BACKEND_avx512bf16
    {&mf__backend_avx512bf16, {&mf__gemm_ukr_avx512, &mf__gemm_ukr_pair_avx512bf16, TC_X86}},
#endif
#if MF_HAVE_BACKEND_avx512
    {&mf__backend_avx512, {&mf__gemm_ukr_avx512, NULL, TC_X86}},
#endif
#if MF_HAVE_BACKEND_avx2
    {&mf__backend_avx2, {&mf__gemm_ukr_avx2, NULL, &mf__tc_kernel_avx2}},
#endif
#if MF_HAVE_BACKEND_neon
    {&mf__backend_neon, {&mf__gemm_ukr_neon, NULL, &mf__tc_kernel_portable}},
#endif
    {&mf__backend_portable, {&mf__gemm_ukr_portable, NULL, &mf__tc_kernel_portable}},
};

/* A pair kernel's dot instruction is used only where it passed the self-test on this CPU (ukr_pair.c):
 * 0 not yet run, 1 passed, -1 failed. Two threads may both run it; they store the same answer. */
static int pair_verdict;

static int pair_verified(const mf__gemm_ukr_pair *pk)
{
#if defined(__GNUC__)
    int v = __atomic_load_n(&pair_verdict, __ATOMIC_ACQUIRE);
    if (!v) {
        v = mf__gemm_pair_selftest(pk) ? 1 : -1;
        __atomic_store_n(&pair_verdict, v, __ATOMIC_RELEASE);
    }
#else
    int v = pair_verdict ? pair_verdict : (pair_verdict = mf__gemm_pair_selftest(pk) ? 1 : -1);
#endif
    return v > 0;
}

static gemm_kernels pick_kernels(void)
{
    for (const mf__backend *bk = mf__backend_active(); bk; bk = bk->parent)
        for (size_t q = 0; q < sizeof KERNELS / sizeof KERNELS[0]; q++)
            if (KERNELS[q].backend == bk) {
                gemm_kernels k = KERNELS[q].k;
                if (k.pair && !pair_verified(k.pair))
                    k.pair = NULL;
                return k;
            }
    return KERNELS[sizeof KERNELS / sizeof KERNELS[0] - 1].k;
}

/* The FP32 path's kernel for a call: the pair kernel where both operands are bf16-valued without block scales
 * (their values then are the packed pairs), else the fma kernel. */
static fp32_plan fp32_plan_for(const gemm *g)
{
    const gemm_kernels ks = pick_kernels();
    fp32_plan pl;
    memset(&pl, 0, sizeof pl);
    if (ks.pair && pair_format(g->a.fmt) && pair_format(g->b.fmt) && !g->a.bs && !g->b.bs) {
        pl.pk = ks.pair;
        pl.mr = (size_t)pl.pk->mr, pl.nr = (size_t)pl.pk->nr, pl.mc = (size_t)pl.pk->mc, pl.kc = (size_t)pl.pk->kc;
    } else {
        pl.k = ks.ukr;
        pl.mr = (size_t)pl.k->mr, pl.nr = (size_t)pl.k->nr, pl.mc = MC, pl.kc = KC;
    }
    return pl;
}

static int run_fp32(const gemm *g, mf_stats *st)
{
    const fp32_plan pl = fp32_plan_for(g);
    const size_t mr = pl.mr, nr = pl.nr, mc = pl.mc, kc = pl.kc;
    const size_t kk = g->k ? g->k : 1, nkb = (kk + kc - 1) / kc;
    size_t ncb = BP_BUDGET / kk / nr * nr, nt = g->o->threads > 1 ? (size_t)g->o->threads : 1;
    fp32_job jobs[GEMM_MAX_THREADS];
    fp32_team tm;
    size_t mcp, ap_size, bp_size, sb_size;
    float *bp, *work;
    void *mem;
    dec da, db;
    int rc = MF_OK;

    if (ncb > NC_MAX)
        ncb = NC_MAX;
    if (ncb < nr)
        ncb = nr;
    if (nt > GEMM_MAX_THREADS)
        nt = GEMM_MAX_THREADS;
    if (nt > (g->m + mc - 1) / mc)
        nt = (g->m + mc - 1) / mc;
    if (ncb > round_up(g->n, nr))
        ncb = round_up(g->n, nr);
    /* packed B for one column block (and its sliver summaries); per thread, packed A and the work tiles (no
     * larger than the call). A pair takes a float's place, so the pair kernels' panels fit the same sizes. */
    mcp = round_up(g->m < mc ? g->m : mc, mr);
    ap_size = mcp * (kk < kc ? kk : kc);
    ap_size = round_up(ap_size, 16); /* every buffer on a 64-byte line */
    bp_size = round_up(kk * ncb, 16);
    sb_size = pl.pk ? round_up(nkb * (ncb / nr) * sizeof(mf__pair_sum) / sizeof(float), 16) : 0;
    mem = scratch_get(sizeof(float) * (bp_size + sb_size + nt * (ap_size + mcp * ncb)) + 64);
    if (!mem)
        return MF_E_NOMEM;
    bp = (float *)(((uintptr_t)mem + SCRATCH_HEAD + 63) & ~(uintptr_t)63);
    work = bp + bp_size + sb_size;
    dec_init(&da, &g->a), dec_init(&db, &g->b);
    da.widen8 = db.widen8 = pl.pk ? pl.pk->widen8 : NULL;
    memset(&tm, 0, sizeof tm);
    tm.sb = pl.pk ? (mf__pair_sum *)(void *)(bp + bp_size) : NULL;
    for (size_t t = 0; t < nt; t++) {
        fp32_job *jb = &jobs[t];
        memset(jb, 0, sizeof *jb);
        jb->g = g, jb->pl = &pl, jb->a = &da, jb->bp = bp, jb->sb = tm.sb, jb->count = st != NULL;
        jb->ap = work + t * (ap_size + mcp * ncb);
        jb->w = jb->ap + ap_size;
    }
    tm.g = g, tm.pl = &pl, tm.db = &db, tm.bp = bp, tm.ncb = ncb, tm.jobs = jobs, tm.next = tm.finished = 0;
    { /* C's rows in equal items of at most mc, a whole number of them per thread, in whole slivers; B in nt */
        const size_t items = nt * ((g->m + nt * mc - 1) / (nt * mc));
        tm.rows_item = round_up((g->m + items - 1) / items, mr);
        tm.n_rows = (g->m + tm.rows_item - 1) / tm.rows_item, tm.n_pack = nt;
    }
    nt = team_start(&tm, nt);
    if (st)
        for (size_t t = 0; t < nt; t++) {
            st->overflow += jobs[t].st.overflow, st->underflow += jobs[t].st.underflow;
            st->subnormal += jobs[t].st.subnormal, st->nan += jobs[t].st.nan, st->inexact += jobs[t].st.inexact;
        }
    scratch_put(mem);
    return rc;
}

/* ---- tensor-core models ---------------------------------------------------------------------------- */

/* D(i, j .. j + cnt - 1) from the vector path (tc_fast.c) into C, through the epilogue */
static void tc_emit(void *ctx, size_t i, size_t j, size_t cnt, const uint32_t *d, mf_stats *st)
{
    const gemm *g = (const gemm *)ctx;
    for (size_t q = 0; q < cnt; q++) {
        float df;
        memcpy(&df, &d[q], 4);
        if (g->tc_c_in)
            store_acc(g, df, i, j + q, st);
        else
            epi_one(g, df, i, j + q, st);
    }
}

/* Each element of C through the model: with products, the vector path (tc_fast.c: operands decoded once,
 * 16 columns at a time, opts.threads); otherwise (and as the reference, tc.c) one element at a time. */
static int run_tc(const gemm *g, mf_stats *st)
{
    if (g->products) {
        mf__tc_call cl;
        memset(&cl, 0, sizeof cl);
        cl.p = &g->tc, cl.m = g->m, cl.n = g->n, cl.k = g->k;
        cl.a = g->a.base, cl.fa = g->a.fmt, cl.a_rs = g->a.rs, cl.a_cs = g->a.cs;
        cl.b = g->b.base, cl.fb = g->b.fmt, cl.b_rs = g->b.rs, cl.b_cs = g->b.cs;
        cl.c = g->tc_c_in ? g->c : NULL, cl.c_rs = g->c_rs, cl.c_cs = g->c_cs;
        cl.promote = g->o->promote_every, cl.threads = g->o->threads;
        cl.emit = tc_emit, cl.ctx = (void *)(uintptr_t)g, cl.st = st, cl.kernel = pick_kernels().tc;
        return mf__tc_run(&cl);
    }
    /* no products (alpha = 0 or k = 0): each element is the model's sum of nothing and C's input */
    for (size_t i = 0; i < g->m; i++)
        for (size_t j = 0; j < g->n; j++) {
            const uint32_t c = g->tc_c_in ? mf__gemm_code_at(g->c, MF_FP32, i * g->c_rs + j * g->c_cs) : 0;
            const uint32_t d = mf__tc_dot(&g->tc, NULL, NULL, 0, c, g->o->promote_every);
            float df;
            memcpy(&df, &d, 4);
            if (g->tc_c_in)
                store_acc(g, df, i, j, st);
            else
                epi_one(g, df, i, j, st);
        }
    return MF_OK;
}

/* ---- argument checks ------------------------------------------------------------------------------- */

static int elem_format_ok(mf_format f)
{
    return f == MF_FP32 || f == MF_FP16 || f == MF_BF16 || f == MF_FP8_E4M3 || f == MF_FP8_E5M2 || f == MF_FP6_E2M3 ||
           f == MF_FP6_E3M2 || f == MF_FP4_E2M1;
}

static const mf_gemm_opts gemm_defaults; /* zero: FP32 accumulation, no scales, rn, IEEE */

static int is_fp8(mf_format f) { return f == MF_FP8_E4M3 || f == MF_FP8_E5M2; }

/* An operand's scales: data and step for the epilogue's kinds (TENSOR, VECTOR: len of them), or *bsp = bs
 * filled for a block kind on the stored array seen as rows x cols with leading dimension ld. The bytes the
 * scales span go to *bytes. */
static int scale_arg(const mf_gemm_scale *s, size_t len, mf_format f, size_t rows, size_t cols, size_t ld,
                     const float **data, size_t *step, size_t *bytes, bscale *bs, const bscale **bsp)
{
    unsigned bh = 0, bw = 0;
    int ok;
    *data = NULL, *step = 0, *bytes = 0, *bsp = NULL;
    switch (s->kind) {
    case MF_GEMM_SCALE_NONE: return MF_OK;
    case MF_GEMM_SCALE_TENSOR: *bytes = sizeof(float), *data = (const float *)s->data; return MF_OK;
    case MF_GEMM_SCALE_VECTOR:
        *step = 1, *data = (const float *)s->data;
        return mf__span_ok(s->data, len, sizeof(float), bytes) ? MF_OK : MF_E_SIZE;
    case MF_GEMM_SCALE_BLOCK_1X128: bw = 7, ok = is_fp8(f); break;
    case MF_GEMM_SCALE_BLOCK_128X128: bh = bw = 7, ok = is_fp8(f); break;
    case MF_GEMM_SCALE_BLOCK_128X1: bh = 7, ok = is_fp8(f); break;
    case MF_GEMM_SCALE_MX:
    case MF_GEMM_SCALE_NVFP4: {
        const unsigned lb = s->kind == MF_GEMM_SCALE_MX ? 5 : 4; /* 32 or 16 */
        ok = s->kind == MF_GEMM_SCALE_MX ? f != MF_FP32 && f != MF_FP16 && f != MF_BF16 : f == MF_FP4_E2M1;
        if ((unsigned)s->axis > MF_MX_COLWISE)
            return MF_E_ARG;
        if (s->axis == MF_MX_ROWWISE)
            bw = lb, ok = ok && cols % (1u << lb) == 0;
        else
            bh = lb, ok = ok && rows % (1u << lb) == 0;
        break;
    }
    default: return MF_E_ARG;
    }
    if (!ok)
        return MF_E_ARG;
    bs->ld = ld, bs->cols = cols, bs->bh = bh, bs->bw = bw;
    bs->scols = (cols + (1u << bw) - 1) >> bw;
    /* ceil(rows / h) * ceil(cols / w) <= rows * cols: no overflow where the matrix's span has none */
    bs->f = NULL, bs->u8 = NULL;
    if (s->kind == MF_GEMM_SCALE_MX || s->kind == MF_GEMM_SCALE_NVFP4) {
        const float inv2688 = mf__f32_div(1.0f, 2688.0f);
        bs->u8 = (const uint8_t *)s->data;
        for (uint32_t q = 0; q < 256; q++)
            bs->lut[q] = s->kind == MF_GEMM_SCALE_NVFP4
                             ? mf__f32_mul(mf__f32_mul(mf_to_f32(MF_FP8_E4M3, q), s->amax), inv2688)
                             : mf_to_f32(MF_E8M0, q); /* 2^(q - 127) (subnormal at 0), NaN at 0xFF */
        if (!mf__span_ok(s->data, ((rows + (1u << bh) - 1) >> bh) * bs->scols, 1, bytes))
            return MF_E_SIZE;
    } else {
        bs->f = (const float *)s->data;
        if (!mf__span_ok(s->data, ((rows + (1u << bh) - 1) >> bh) * bs->scols, sizeof(float), bytes))
            return MF_E_SIZE;
    }
    *bsp = bs;
    return MF_OK;
}

int mf_gemm(mf_layout layout, mf_trans trans_a, mf_trans trans_b, size_t m, size_t n, size_t k, float alpha,
            const void *a, mf_format fmt_a, size_t lda, const void *b, mf_format fmt_b, size_t ldb, float beta, void *c,
            mf_format fmt_c, size_t ldc, const mf_gemm_opts *opts)
{
    const mf_gemm_opts *o = opts ? opts : &gemm_defaults;
    size_t bytes_a, bytes_b, bytes_c, bytes_sa, bytes_sb, mn;
    gemm g;
    mf_stats st;
    fenv_t env;
    int rc, read_ab;

    if ((unsigned)layout > MF_COL_MAJOR || (unsigned)trans_a > MF_TRANS || (unsigned)trans_b > MF_TRANS ||
        (unsigned)o->accum >= MF_ACCUM_COUNT || (unsigned)o->scale_a.kind >= MF_GEMM_SCALE_COUNT ||
        (unsigned)o->scale_b.kind >= MF_GEMM_SCALE_COUNT || o->threads < 0)
        return MF_E_ARG;
    memset(&g, 0, sizeof g);
    if (!elem_format_ok(fmt_a) || !elem_format_ok(fmt_b) || (fmt_c != MF_FP32 && fmt_c != MF_FP16 && fmt_c != MF_BF16))
        return MF_E_FORMAT;
    if (o->accum >= MF_ACCUM_V100 && !mf__tc_params(o->accum, fmt_a, fmt_b, &g.tc))
        return MF_E_FORMAT;
    if (o->promote_every && (o->accum < MF_ACCUM_V100 || o->promote_every % (size_t)g.tc.w))
        return MF_E_ARG;
    if ((unsigned)o->round >= MF_ROUND_COUNT)
        return MF_E_ROUND;
    if ((unsigned)o->overflow >= MF_OVERFLOW_COUNT)
        return MF_E_POLICY;

    g.m = m, g.n = n, g.k = k, g.o = o;
    g.alpha = mf__f32_bits(alpha), g.beta = mf__f32_bits(beta);
    g.a.base = a, g.a.fmt = fmt_a, g.b.base = b, g.b.fmt = fmt_b;
    g.c = c, g.fmt_c = fmt_c;
    /* op(A)(i, p) is the stored A's (i, p), or (p, i) when transposed; likewise op(B)(p, j) */
    if ((rc = trans_a == MF_NO_TRANS
                  ? mf__stored_matrix(layout, fmt_a, a, m, k, lda, &g.a.rs, &g.a.cs, &bytes_a)
                  : mf__stored_matrix(layout, fmt_a, a, k, m, lda, &g.a.cs, &g.a.rs, &bytes_a)) != MF_OK ||
        (rc = trans_b == MF_NO_TRANS
                  ? mf__stored_matrix(layout, fmt_b, b, k, n, ldb, &g.b.rs, &g.b.cs, &bytes_b)
                  : mf__stored_matrix(layout, fmt_b, b, n, k, ldb, &g.b.cs, &g.b.rs, &bytes_b)) != MF_OK ||
        (rc = mf__stored_matrix(layout, fmt_c, c, m, n, ldc, &g.c_rs, &g.c_cs, &bytes_c)) != MF_OK)
        return rc;
    if (!mf__count2_ok(m, n, &mn))
        return MF_E_SIZE;
    {
        /* the stored arrays as row-major tensors: stored (x, y) is (x, y) row-major, (y, x) column-major */
        const int ra = (trans_a == MF_NO_TRANS) == (layout == MF_ROW_MAJOR);
        const int rb = (trans_b == MF_NO_TRANS) == (layout == MF_ROW_MAJOR);
        if ((rc = scale_arg(&o->scale_a, m, fmt_a, ra ? m : k, ra ? k : m, lda, &g.sa, &g.sa_step, &bytes_sa, &g.bsa,
                            &g.a.bs)) != MF_OK ||
            (rc = scale_arg(&o->scale_b, n, fmt_b, rb ? k : n, rb ? n : k, ldb, &g.sb, &g.sb_step, &bytes_sb, &g.bsb,
                            &g.b.bs)) != MF_OK)
            return rc;
        if ((g.a.bs || g.b.bs) && o->accum >= MF_ACCUM_V100)
            return MF_E_ARG;
    }
    if (mn == 0) {
        if (o->stats)
            memset(o->stats, 0, sizeof *o->stats);
        return MF_OK;
    }
    g.products = k > 0 && !bits_zero(g.alpha);
    g.direct = g.alpha == 0x3F800000u && !g.sa && !g.sb && bits_zero(g.beta);
    g.tc_c_in = o->accum >= MF_ACCUM_V100 && g.alpha == 0x3F800000u && g.beta == 0x3F800000u && !g.sa && !g.sb &&
                fmt_c == MF_FP32;
    g.scaled_rn = !g.direct && fmt_c == MF_FP32 && o->round == MF_ROUND_NEAREST_EVEN &&
                  o->overflow == MF_OVERFLOW_IEEE && bits_zero(g.beta) && !o->stats && !g.sa_step && !g.sb_step &&
                  factor_f32(&g, 0, 0, &g.factor);
    read_ab = g.products;
    if (!c || (read_ab && (!a || !b || (o->scale_a.kind != MF_GEMM_SCALE_NONE && !o->scale_a.data) ||
                           (o->scale_b.kind != MF_GEMM_SCALE_NONE && !o->scale_b.data))))
        return MF_E_NULL;
    if (!read_ab) /* the scales are not read either */
        g.sa = g.sb = NULL, g.a.bs = g.b.bs = NULL, bytes_a = bytes_b = bytes_sa = bytes_sb = 0;
    if (mf__ranges_overlap(c, bytes_c, a, bytes_a) || mf__ranges_overlap(c, bytes_c, b, bytes_b) ||
        mf__ranges_overlap(c, bytes_c, o->scale_a.data, bytes_sa) ||
        mf__ranges_overlap(c, bytes_c, o->scale_b.data, bytes_sb))
        return MF_E_OVERLAP;

    memset(&st, 0, sizeof st);
    fegetenv(&env);
    fesetenv(FE_DFL_ENV); /* rn, no FTZ/DAZ: the accumulator's arithmetic is binary32 as documented */
    if (o->accum == MF_ACCUM_EXACT)
        run_exact(&g, o->stats ? &st : NULL);
    else if (o->accum == MF_ACCUM_FP32)
        rc = run_fp32(&g, o->stats ? &st : NULL);
    else
        rc = run_tc(&g, o->stats ? &st : NULL);
    fesetenv(&env);
    if (rc == MF_OK && o->stats)
        *o->stats = st;
    return rc;
}

int mf_gemm_plan(mf_format fmt_a, mf_format fmt_b, const mf_gemm_opts *opts, mf_gemm_plan_info *plan)
{
    const mf_gemm_opts *o = opts ? opts : &gemm_defaults;
    mf_gemm_plan_info pi;
    gemm g;
    if ((unsigned)o->accum >= MF_ACCUM_COUNT || (unsigned)o->scale_a.kind >= MF_GEMM_SCALE_COUNT ||
        (unsigned)o->scale_b.kind >= MF_GEMM_SCALE_COUNT || o->threads < 0)
        return MF_E_ARG;
    memset(&g, 0, sizeof g);
    if (!elem_format_ok(fmt_a) || !elem_format_ok(fmt_b))
        return MF_E_FORMAT;
    if (o->accum >= MF_ACCUM_V100 && !mf__tc_params(o->accum, fmt_a, fmt_b, &g.tc))
        return MF_E_FORMAT;
    if ((unsigned)o->round >= MF_ROUND_COUNT)
        return MF_E_ROUND;
    if ((unsigned)o->overflow >= MF_OVERFLOW_COUNT)
        return MF_E_POLICY;
    if (!plan)
        return MF_E_NULL;
    memset(&pi, 0, sizeof pi);
    pi.backend = mf__backend_active()->name;
    if (o->accum == MF_ACCUM_FP32) {
        fp32_plan pl;
        static const bscale any_block; /* the plan only asks whether an operand has block scales */
        g.a.fmt = fmt_a, g.b.fmt = fmt_b;
        g.a.bs = o->scale_a.kind >= MF_GEMM_SCALE_BLOCK_1X128 ? &any_block : NULL;
        g.b.bs = o->scale_b.kind >= MF_GEMM_SCALE_BLOCK_1X128 ? &any_block : NULL;
        pl = fp32_plan_for(&g);
        pi.kernel = pl.pk ? "dot-bf16" : "fma";
        pi.isa = pl.pk ? pl.pk->name : pl.k->name;
        pi.mr = (int)pl.mr, pi.nr = (int)pl.nr, pi.mc = pl.mc, pi.kc = pl.kc, pi.nc = NC_MAX;
    } else {
        pi.kernel = o->accum == MF_ACCUM_EXACT ? "exact" : "tensor-core";
    }
    *plan = pi;
    return MF_OK;
}
