/* SPDX-License-Identifier: MIT */
/* src/gemm/epilogue.c - exact values with IEEE specials, and the one rounding of every element of C:
 * alpha * scales * dot + beta * c, formed exactly (in binary64 where that is exact, else in a big fixed-point
 * integer, bigacc.h) and rounded by the library's round-and-pack core. */
#include <math.h>
#include <string.h>

#include <minifloat/detail/arith.h>

#include "gemm_internal.h"

/* the element's value as binary32 bits (exact: every element format widens exactly) */
/* element idx of an array of format f, as binary32 bits (exact: every element format widens exactly) */
uint32_t mf__gemm_value_bits(const void *base, mf_format f, size_t idx)
{
    const uint32_t code = mf__gemm_code_at(base, f, idx);
    return f == MF_FP32 ? code : mf__f32_bits(mf_to_f32(f, code));
}

/* op(X)(r, c)'s value, block scale applied, as binary32 bits */
uint32_t mf__gemm_elem_bits(const mat *x, size_t r, size_t c)
{
    const size_t idx = r * x->rs + c * x->cs;
    const uint32_t v = mf__gemm_value_bits(x->base, x->fmt, idx);
    float f;
    if (!x->bs)
        return v;
    memcpy(&f, &v, 4);
    mf__gemm_bs_apply(&f, 1, x->bs, idx, 1, 1);
    return mf__f32_bits(f);
}

/* x += a * b for binary32 bits a, b (exact; specials by IEEE rules) */
void mf__gemm_xv_fma(xval *x, uint32_t a, uint32_t b)
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
        mf__stats_add(st, ev);
}

/* Round the exact value u into C(i, j). */
void mf__gemm_store_unpacked(const gemm *g, mf__unpacked u, size_t i, size_t j, mf_stats *st)
{
    unsigned ev = 0;
    const uint32_t code = mf__round_pack(mf__fmt_get(g->fmt_c), u, g->o->round, g->o->overflow, c_rbits(g, i, j), &ev);
    c_store(g, i * g->c_rs + j * g->c_cs, code, ev, st);
}

/* Round alpha * scales * dot + beta * c into C(i, j). */
void mf__gemm_finish(const gemm *g, xval *x, size_t i, size_t j, mf_stats *st)
{
    const size_t idx = i * g->c_rs + j * g->c_cs;
    mf__unpacked u;

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
        const uint32_t cv = mf__gemm_value_bits(g->c, g->fmt_c, idx);
        mf__gemm_xv_fma(x, g->beta, cv);
    }
    if (x->cls == XV_NAN) {
        u.cls = MF__CLS_NAN, u.sign = 0, u.exp = 0, u.sig = 0;
    } else if (x->cls == XV_INF) {
        u.cls = MF__CLS_INF, u.sign = (uint32_t)x->neg, u.exp = 0, u.sig = 0;
    } else {
        u = big_unpack(&x->v);
    }
    mf__gemm_store_unpacked(g, u, i, j, st);
}

/* Store accumulator s as C(i, j) where alpha = 1, there are no scales and beta = 0: one rounding of s */
void mf__gemm_store_acc(const gemm *g, float s, size_t i, size_t j, mf_stats *st)
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
int mf__gemm_factor_f32(const gemm *g, size_t i, size_t j, float *f)
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
void mf__gemm_epi_one(const gemm *g, float s, size_t i, size_t j, mf_stats *st)
{
    const uint32_t sbits = mf__f32_bits(s);
    float f, cv = 0.0f;
    xval x;
    if (g->direct) {
        mf__gemm_store_acc(g, s, i, j, st);
        return;
    }
    if ((sbits & 0x7FFFFFFFu) < 0x7F800000u && mf__gemm_factor_f32(g, i, j, &f)) {
        const size_t idx = i * g->c_rs + j * g->c_cs;
        const int has_c = !bits_zero(g->beta);
        double v = (double)s * (double)f, e = 0.0;
        if (has_c) {
            const uint32_t cb = mf__gemm_value_bits(g->c, g->fmt_c, idx);
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
    mf__gemm_xv_fma(&x, sbits, 0x3F800000u); /* the accumulator's value, specials included */
    mf__gemm_finish(g, &x, i, j, st);
}
