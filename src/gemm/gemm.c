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
#include <string.h>

#include <minifloat.h>
#include <minifloat/gemm.h>

#include "../internal.h"
#include "bigacc.h"

/* ---- element access ---------------------------------------------------------------------------- */

/* op(X)'s element (r, c) of a stored matrix is element r * rs + c * cs of its array. */
typedef struct mat {
    const void *base;
    mf_format fmt;
    size_t rs, cs;
} mat;

static uint32_t code_at(const void *base, mf_format f, size_t idx)
{
    const unsigned char *b = (const unsigned char *)base;
    uint32_t v32;
    uint16_t v16;
    switch (f) {
    case MF_FP32: memcpy(&v32, b + 4 * idx, 4); return v32;
    case MF_FP16:
    case MF_BF16: memcpy(&v16, b + 2 * idx, 2); return v16;
    case MF_FP4_E2M1: return (uint32_t)(b[idx / 2] >> (4 * (idx & 1))) & 0xFu;
    default: return b[idx];
    }
}

/* the element's value as binary32 bits (exact: every element format widens exactly) */
static uint32_t elem_bits(const mat *x, size_t r, size_t c)
{
    const uint32_t code = code_at(x->base, x->fmt, r * x->rs + c * x->cs);
    return x->fmt == MF_FP32 ? code : mf__f32_bits(mf_to_f32(x->fmt, code));
}

static float elem_f32(const mat *x, size_t r, size_t c)
{
    const uint32_t b = elem_bits(x, r, c);
    float f;
    memcpy(&f, &b, 4);
    return f;
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
} gemm;

/* Round alpha * scales * dot + beta * c into C(i, j). */
static void finish(const gemm *g, xval *x, size_t i, size_t j, mf_stats *st)
{
    const mf__fmt f = mf__fmt_get(g->fmt_c);
    const size_t idx = i * g->c_rs + j * g->c_cs;
    unsigned char *cb = (unsigned char *)g->c;
    mf__unpacked u;
    unsigned ev = 0;
    uint32_t code, rbits = 0;

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
        const uint32_t cv = g->fmt_c == MF_FP32 ? code_at(g->c, MF_FP32, idx)
                                                : mf__f32_bits(mf_to_f32(g->fmt_c, code_at(g->c, g->fmt_c, idx)));
        xv_fma(x, g->beta, cv);
    }
    if (x->cls == XV_NAN) {
        u.cls = MF__CLS_NAN, u.sign = 0, u.exp = 0, u.sig = 0;
    } else if (x->cls == XV_INF) {
        u.cls = MF__CLS_INF, u.sign = (uint32_t)x->neg, u.exp = 0, u.sig = 0;
    } else {
        u = big_unpack(&x->v);
    }
    if (g->o->round == MF_ROUND_STOCHASTIC)
        rbits = mf_sr_rbits(g->o->seed, g->o->sr_offset + i * g->n + j, mf_sr_width(g->fmt_c));
    code = mf__round_pack(f, u, g->o->round, g->o->overflow, rbits, &ev);
    if (g->fmt_c == MF_FP32) {
        memcpy(cb + 4 * idx, &code, 4);
    } else {
        const uint16_t h = (uint16_t)code;
        memcpy(cb + 2 * idx, &h, 2);
    }
    if (st) {
        st->overflow += (ev & MF__EV_OVERFLOW) != 0;
        st->underflow += (ev & MF__EV_UNDERFLOW) != 0;
        st->subnormal += (ev & MF__EV_SUBNORMAL) != 0;
        st->nan += (ev & MF__EV_NAN) != 0;
        st->inexact += (ev & MF__EV_INEXACT) != 0;
    }
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

/* MF_ACCUM_FP32, portable: tiles of C whose panels of A and B are widened to binary32 once per
 * k-block; each element's sum runs over p = 0 .. k-1 in order, with fmaf. */
enum { TM = 16, TN = 16, TK = 256 };
static void run_fp32(const gemm *g, mf_stats *st)
{
    float ap[TM * TK], bp[TN * TK], acc[TM * TN];
    xval x;
    for (size_t i0 = 0; i0 < g->m; i0 += TM) {
        const size_t mb = g->m - i0 < TM ? g->m - i0 : TM;
        for (size_t j0 = 0; j0 < g->n; j0 += TN) {
            const size_t nb = g->n - j0 < TN ? g->n - j0 : TN;
            memset(acc, 0, sizeof acc);
            for (size_t p0 = 0; g->products && p0 < g->k; p0 += TK) {
                const size_t kb = g->k - p0 < TK ? g->k - p0 : TK;
                for (size_t ii = 0; ii < mb; ii++)
                    for (size_t pp = 0; pp < kb; pp++)
                        ap[ii * TK + pp] = elem_f32(&g->a, i0 + ii, p0 + pp);
                for (size_t jj = 0; jj < nb; jj++)
                    for (size_t pp = 0; pp < kb; pp++)
                        bp[jj * TK + pp] = elem_f32(&g->b, p0 + pp, j0 + jj);
                for (size_t ii = 0; ii < mb; ii++)
                    for (size_t jj = 0; jj < nb; jj++) {
                        float s = acc[ii * TN + jj];
                        for (size_t pp = 0; pp < kb; pp++)
                            s = fmaf(ap[ii * TK + pp], bp[jj * TK + pp], s);
                        acc[ii * TN + jj] = s;
                    }
            }
            for (size_t ii = 0; ii < mb; ii++)
                for (size_t jj = 0; jj < nb; jj++) {
                    const uint32_t s = mf__f32_bits(acc[ii * TN + jj]);
                    x.cls = XV_FIN, x.neg = 0;
                    big_zero(&x.v);
                    xv_fma(&x, s, 0x3F800000u); /* the accumulator's value, specials included */
                    finish(g, &x, i0 + ii, j0 + jj, st);
                }
        }
    }
}

/* ---- argument checks ------------------------------------------------------------------------------- */

static int elem_format_ok(mf_format f)
{
    return f == MF_FP32 || f == MF_FP16 || f == MF_BF16 || f == MF_FP8_E4M3 || f == MF_FP8_E5M2 || f == MF_FP6_E2M3 ||
           f == MF_FP6_E3M2 || f == MF_FP4_E2M1;
}

/* A stored rows x cols matrix with leading dimension ld: its strides, and the bytes its elements
 * span in *bytes (0 when empty). Returns MF_OK, MF_E_ARG (ld too small) or MF_E_SIZE. */
static int stored(mf_layout layout, mf_format f, const void *p, size_t rows, size_t cols, size_t ld, size_t *rs,
                  size_t *cs, size_t *bytes)
{
    const size_t outer = layout == MF_ROW_MAJOR ? rows : cols, inner = layout == MF_ROW_MAJOR ? cols : rows;
    size_t span;
    if (ld < 1 || ld < inner)
        return MF_E_ARG;
    *rs = layout == MF_ROW_MAJOR ? ld : 1;
    *cs = layout == MF_ROW_MAJOR ? 1 : ld;
    *bytes = 0;
    if (outer == 0 || inner == 0)
        return MF_OK;
    if (outer - 1 > (SIZE_MAX - inner) / ld)
        return MF_E_SIZE;
    span = (outer - 1) * ld + inner;
    return mf__span_fmt_ok(f, p, span, bytes) ? MF_OK : MF_E_SIZE;
}

static const mf_gemm_opts gemm_defaults; /* zero: FP32 accumulation, no scales, rn, IEEE */

static int scale_arg(const mf_gemm_scale *s, size_t len, const float **data, size_t *step, size_t *bytes)
{
    *data = NULL, *step = 0, *bytes = 0;
    switch (s->kind) {
    case MF_GEMM_SCALE_NONE: return MF_OK;
    case MF_GEMM_SCALE_TENSOR: *bytes = sizeof(float); break;
    case MF_GEMM_SCALE_VECTOR:
        *step = 1;
        if (!mf__span_ok(s->data, len, sizeof(float), bytes))
            return MF_E_SIZE;
        break;
    default: return MF_E_ARG;
    }
    *data = (const float *)s->data;
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
    if (!elem_format_ok(fmt_a) || !elem_format_ok(fmt_b) || (fmt_c != MF_FP32 && fmt_c != MF_FP16 && fmt_c != MF_BF16))
        return MF_E_FORMAT;
    if ((unsigned)o->round >= MF_ROUND_COUNT)
        return MF_E_ROUND;
    if ((unsigned)o->overflow >= MF_OVERFLOW_COUNT)
        return MF_E_POLICY;

    memset(&g, 0, sizeof g);
    g.m = m, g.n = n, g.k = k, g.o = o;
    g.alpha = mf__f32_bits(alpha), g.beta = mf__f32_bits(beta);
    g.a.base = a, g.a.fmt = fmt_a, g.b.base = b, g.b.fmt = fmt_b;
    g.c = c, g.fmt_c = fmt_c;
    /* op(A)(i, p) is the stored A's (i, p), or (p, i) when transposed; likewise op(B)(p, j) */
    if ((rc = trans_a == MF_NO_TRANS ? stored(layout, fmt_a, a, m, k, lda, &g.a.rs, &g.a.cs, &bytes_a)
                                     : stored(layout, fmt_a, a, k, m, lda, &g.a.cs, &g.a.rs, &bytes_a)) != MF_OK ||
        (rc = trans_b == MF_NO_TRANS ? stored(layout, fmt_b, b, k, n, ldb, &g.b.rs, &g.b.cs, &bytes_b)
                                     : stored(layout, fmt_b, b, n, k, ldb, &g.b.cs, &g.b.rs, &bytes_b)) != MF_OK ||
        (rc = stored(layout, fmt_c, c, m, n, ldc, &g.c_rs, &g.c_cs, &bytes_c)) != MF_OK)
        return rc;
    if (!mf__count2_ok(m, n, &mn))
        return MF_E_SIZE;
    if ((rc = scale_arg(&o->scale_a, m, &g.sa, &g.sa_step, &bytes_sa)) != MF_OK ||
        (rc = scale_arg(&o->scale_b, n, &g.sb, &g.sb_step, &bytes_sb)) != MF_OK)
        return rc;
    if (mn == 0) {
        if (o->stats)
            memset(o->stats, 0, sizeof *o->stats);
        return MF_OK;
    }
    g.products = k > 0 && !bits_zero(g.alpha);
    read_ab = g.products;
    if (!c || (read_ab && (!a || !b || (o->scale_a.kind != MF_GEMM_SCALE_NONE && !g.sa) ||
                           (o->scale_b.kind != MF_GEMM_SCALE_NONE && !g.sb))))
        return MF_E_NULL;
    if (!read_ab) /* the scales are not read either */
        g.sa = g.sb = NULL, bytes_a = bytes_b = bytes_sa = bytes_sb = 0;
    if (mf__ranges_overlap(c, bytes_c, a, bytes_a) || mf__ranges_overlap(c, bytes_c, b, bytes_b) ||
        mf__ranges_overlap(c, bytes_c, g.sa, bytes_sa) || mf__ranges_overlap(c, bytes_c, g.sb, bytes_sb))
        return MF_E_OVERLAP;

    memset(&st, 0, sizeof st);
    fegetenv(&env);
    fesetenv(FE_DFL_ENV); /* rn, no FTZ/DAZ: the accumulator's arithmetic is binary32 as documented */
    if (o->accum == MF_ACCUM_EXACT)
        run_exact(&g, o->stats ? &st : NULL);
    else
        run_fp32(&g, o->stats ? &st : NULL);
    fesetenv(&env);
    if (o->stats)
        *o->stats = st;
    return MF_OK;
}
