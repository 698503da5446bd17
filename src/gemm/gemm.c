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

/* MF_ACCUM_EXACT: one element at a time, each product added exactly */
static void run_exact(const gemm *g, mf_stats *st)
{
    xval x;
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
enum { MC = 144, KC = 256, NC_MAX = 1024, BP_BUDGET = 1 << 22 /* floats of packed B */ };

/* one element's decoding */
typedef struct dec {
    const void *base;
    mf_format fmt;
    size_t rs, cs;
    float lut[256];           /* the value of every code of a format of 8 bits or fewer */
    const mf__backend *widen; /* the backend that widens contiguous f16 runs */
    const bscale *bs;
} dec;

static void dec_init(dec *d, const mat *x)
{
    d->base = x->base, d->fmt = x->fmt, d->rs = x->rs, d->cs = x->cs, d->bs = x->bs;
    d->widen = mf__backend_for(mf__backend_active(), MF_FP32, x->fmt);
    if (x->fmt != MF_FP32 && x->fmt != MF_FP16 && x->fmt != MF_BF16)
        for (uint32_t c = 0; c < 256; c++)
            d->lut[c] = mf_to_f32(x->fmt, x->fmt == MF_FP4_E2M1                            ? c & 0xF
                                          : x->fmt == MF_FP6_E2M3 || x->fmt == MF_FP6_E3M2 ? c & 0x3F
                                                                                           : c);
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
static void pack_b(float *bp, const dec *b, size_t k, size_t j0, size_t nb, int nr, size_t t0, size_t t1)
{
    const size_t NR = (size_t)nr, ncp = (nb + NR - 1) / NR * NR, c0 = t0 * NR, c1 = t1 * NR < nb ? t1 * NR : nb;
    float row[NC_MAX];
    for (size_t p0 = 0; p0 < k; p0 += KC) {
        const size_t kb = k - p0 < KC ? k - p0 : KC;
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

/* no NaN, inf or subnormal among n binary32 values: stored as they are when alpha = 1, no scales, beta = 0 */
static int plain_run(const float *w, size_t n)
{
    uint32_t bad = 0, u;
    for (size_t q = 0; q < n; q++) {
        memcpy(&u, w + q, 4);
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
typedef struct fp32_job {
    const gemm *g;
    const mf__gemm_ukr *k;
    const dec *a;
    const float *bp;
    size_t j0, nb;
    size_t r0, r1;
    float *ap, *w;
    mf_stats st;
    int count;
} fp32_job;

static void fp32_rows(fp32_job *jb)
{
    const gemm *g = jb->g;
    const mf__gemm_ukr *k = jb->k;
    const size_t mr = (size_t)k->mr, nr = (size_t)k->nr, ncp = round_up(jb->nb, nr), tn = ncp / nr;
    for (size_t i0 = jb->r0; i0 < jb->r1; i0 += MC) {
        const size_t mb = jb->r1 - i0 < MC ? jb->r1 - i0 : MC, mcp = round_up(mb, mr);
        if (!g->products) /* no k block below: the sums are +0 */
            memset(jb->w, 0, mcp * ncp * sizeof(float));
        for (size_t p0 = 0; g->products && p0 < g->k; p0 += KC) {
            const size_t kb = g->k - p0 < KC ? g->k - p0 : KC;
            const float *bpc = jb->bp + p0 * ncp;
            pack_a(jb->ap, jb->a, i0, mb, p0, kb, k->mr);
            for (size_t t = 0; t < tn; t++)
                for (size_t s = 0; s < mcp / mr; s++) {
                    /* the next call's tile of W, from L2 or beyond, while this one computes */
                    const size_t nx = s + 1 < mcp / mr ? (s + 1) * tn + t : t + 1 < tn ? t + 1 : 0;
                    for (size_t q = 0; q < mr * nr; q += 16)
                        PREFETCH_W(jb->w + nx * mr * nr + q);
                    k->fn(kb, jb->ap + s * mr * kb, bpc + t * nr * kb, jb->w + (s * tn + t) * mr * nr, p0 > 0);
                }
        }
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
                    epi_one(g, src[q], i, j + q, jb->count ? &jb->st : NULL);
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
    const mf__gemm_ukr *k;
    const dec *db;
    float *bp;
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
    const size_t nr = (size_t)tm->k->nr, per = tm->n_pack + tm->n_rows;
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
            if (g->products && tn * q / tm->n_pack < tn * (q + 1) / tm->n_pack)
                pack_b(tm->bp, tm->db, g->k, j0, nb, tm->k->nr, tn * q / tm->n_pack, tn * (q + 1) / tm->n_pack);
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

/* Run the team on up to want threads (this one included); returns how many took part. */
static size_t team_start(fp32_team *tm, size_t want)
{
    size_t started = 1;
#if MF_HAVE_PTHREADS
    pthread_t tid[64];
    fp32_member me[64];
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

enum { GEMM_MAX_THREADS = 64 };

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

/* The kernels for this process's backend, the one place that chooses: the FP32 micro-kernel and the
 * tensor-core models' panel kernel. */
typedef struct gemm_kernels {
    const mf__gemm_ukr *ukr;
    const mf__tc_kernel *tc;
} gemm_kernels;

#if MF_HAVE_BACKEND_avx2
#define TC_X86 &mf__tc_kernel_avx2
#else
#define TC_X86 &mf__tc_kernel_portable
#endif

static gemm_kernels pick_kernels(void)
{
    static const struct {
        const char *backend;
        gemm_kernels k;
    } table[] = {
#if MF_HAVE_BACKEND_avx512
        {"avx512bf16", {&mf__gemm_ukr_avx512, TC_X86}},
        {"avx512", {&mf__gemm_ukr_avx512, TC_X86}},
#endif
#if MF_HAVE_BACKEND_avx2
        {"avx2", {&mf__gemm_ukr_avx2, &mf__tc_kernel_avx2}},
#endif
#if MF_HAVE_BACKEND_neon
        {"neon", {&mf__gemm_ukr_neon, &mf__tc_kernel_portable}},
#endif
        {"portable", {&mf__gemm_ukr_portable, &mf__tc_kernel_portable}},
    };
    const char *name = mf__backend_active()->name;
    for (size_t q = 0; q < sizeof table / sizeof table[0]; q++)
        if (strcmp(table[q].backend, name) == 0)
            return table[q].k;
    return table[sizeof table / sizeof table[0] - 1].k;
}

static int run_fp32(const gemm *g, mf_stats *st)
{
    const mf__gemm_ukr *k = pick_kernels().ukr;
    const size_t mr = (size_t)k->mr, nr = (size_t)k->nr;
    const size_t kk = g->k ? g->k : 1;
    size_t ncb = BP_BUDGET / kk / nr * nr, nt = g->o->threads > 1 ? (size_t)g->o->threads : 1;
    fp32_job jobs[GEMM_MAX_THREADS];
    fp32_team tm;
    size_t mcp, ap_size, bp_size;
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
    if (nt > (g->m + MC - 1) / MC)
        nt = (g->m + MC - 1) / MC;
    if (ncb > round_up(g->n, nr))
        ncb = round_up(g->n, nr);
    /* packed B for one column block; per thread, packed A and the work tiles (no larger than the call) */
    mcp = round_up(g->m < MC ? g->m : MC, mr);
    ap_size = mcp * (kk < KC ? kk : KC);
    ap_size = round_up(ap_size, 16); /* every buffer on a 64-byte line */
    bp_size = round_up(kk * ncb, 16);
    mem = scratch_get(sizeof(float) * (bp_size + nt * (ap_size + mcp * ncb)) + 64);
    if (!mem)
        return MF_E_NOMEM;
    bp = (float *)(((uintptr_t)mem + SCRATCH_HEAD + 63) & ~(uintptr_t)63);
    work = bp + bp_size;
    dec_init(&da, &g->a), dec_init(&db, &g->b);
    for (size_t t = 0; t < nt; t++) {
        fp32_job *jb = &jobs[t];
        memset(jb, 0, sizeof *jb);
        jb->g = g, jb->k = k, jb->a = &da, jb->bp = bp, jb->count = st != NULL;
        jb->ap = work + t * (ap_size + mcp * ncb);
        jb->w = jb->ap + ap_size;
    }
    tm.g = g, tm.k = k, tm.db = &db, tm.bp = bp, tm.ncb = ncb, tm.jobs = jobs, tm.next = tm.finished = 0;
    { /* C's rows in equal items of at most MC, a whole number of them per thread, in whole slivers; B in nt */
        const size_t items = nt * ((g->m + nt * MC - 1) / (nt * MC));
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
    const size_t kk = g->k ? g->k : 1;
    mf__tc_elem *bd = (mf__tc_elem *)malloc(sizeof(mf__tc_elem) * kk * (g->n + 1)), *ad;
    if (!bd)
        return MF_E_NOMEM;
    ad = bd + kk * g->n;
    if (g->products)
        for (size_t j = 0; j < g->n; j++)
            for (size_t p = 0; p < g->k; p++)
                mf__tc_decode(g->b.fmt, mf__gemm_code_at(g->b.base, g->b.fmt, p * g->b.rs + j * g->b.cs), g->tc.tf32,
                              &bd[j * kk + p]);
    for (size_t i = 0; i < g->m; i++) {
        if (g->products)
            for (size_t p = 0; p < g->k; p++)
                mf__tc_decode(g->a.fmt, mf__gemm_code_at(g->a.base, g->a.fmt, i * g->a.rs + p * g->a.cs), g->tc.tf32,
                              &ad[p]);
        for (size_t j = 0; j < g->n; j++) {
            const uint32_t c = g->tc_c_in ? mf__gemm_code_at(g->c, MF_FP32, i * g->c_rs + j * g->c_cs) : 0;
            const uint32_t d = mf__tc_dot(&g->tc, ad, bd + j * kk, g->products ? g->k : 0, c, g->o->promote_every);
            float df;
            memcpy(&df, &d, 4);
            if (g->tc_c_in)
                store_acc(g, df, i, j, st);
            else
                epi_one(g, df, i, j, st);
        }
    }
    free(bd);
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
