/* SPDX-License-Identifier: MIT */
/* src/gemm/exact.c - MF_ACCUM_EXACT: the integer kernels (exact_int.c) where the formats have an integer form,
 * otherwise one element at a time, each product added exactly; every value then through the epilogue. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exact_int.h"
#include "gemm_internal.h"

/* ---- MF_ACCUM_EXACT in integers (exact_int.h) ------------------------------------------------------ */

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

/* C(i, j) = (-1)^neg (mh 2^64 + ml) 2^exp rounded once, where that is all C is (g->direct), from the value unpacked
 * as big_unpack would (its top 64 bits, the rest sticky); (mh, ml) nonzero */
static void emit_direct(const gemm *g, int neg, uint64_t mh, uint64_t ml, int exp, size_t i, size_t j, mf_stats *st)
{
    const int lz = mh ? mf__clz64(mh) : 64 + mf__clz64(ml);
    mf__unpacked u;
    u.cls = MF__CLS_FINITE, u.sign = (uint32_t)neg, u.exp = 127 - lz + exp;
    if (lz >= 64)
        u.sig = ml << (lz - 64);
    else
        u.sig = (lz ? mh << lz | ml >> (64 - lz) : mh) | ((lz ? ml << lz : ml) != 0);
    mf__gemm_store_unpacked(g, u, i, j, st);
}

/* C(i, j .. j + cnt - 1) from the exact dot products v[q] * 2^exp: where one is a binary32 number s, through the
 * FP32 path's own epilogue (epi_one rounds alpha * scales * s + beta * c once, exactly as finish does; with
 * scaled_rn and a normal s, fl(s * factor) is that one rounding), otherwise as emit_direct where it applies, else
 * through the big accumulator and finish. For |v| < 2^24 and exp in [-126, 103], s = (float)v * 2^exp is exact and
 * normal (or zero). */
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
            mf__gemm_epi_one(g, s, i, j + q, st);
        } else if (xi_f32(v[q], exp, &s)) {
            mf__gemm_epi_one(g, s, i, j + q, st);
        } else if (g->direct) {
            emit_direct(g, v[q] < 0, 0, v[q] < 0 ? 0 - (uint64_t)v[q] : (uint64_t)v[q], exp, i, j + q, st);
        } else {
            xval x;
            x.cls = XV_FIN, x.neg = 0;
            big_zero(&x.v);
            big_add(&x.v, v[q] < 0, v[q] < 0 ? 0 - (uint64_t)v[q] : (uint64_t)v[q], exp);
            mf__gemm_finish(g, &x, i, j + q, st);
        }
    }
}

/* An operand's block scale codes per (line, block of len along k), or NULL where its blocks do not run along k;
 * *none = 1 where it has no block scale (then NULL too). */
static uint8_t *xi_block_codes(const gemm *g, const mat *x, const mf_gemm_scale *sk, size_t lines, size_t ls, size_t ks,
                               size_t len, int *none)
{
    const bscale *bs = x->bs;
    const size_t nbk = g->k / len;
    uint8_t *codes;
    *none = !bs;
    if (!bs || g->k % len || !(sk->axis == MF_MX_ROWWISE ? ks == 1 && ls == bs->ld : ls == 1 && ks == bs->ld))
        return NULL;
    codes = (uint8_t *)malloc(lines * nbk + 1);
    if (codes)
        for (size_t t = 0; t < lines; t++)
            for (size_t q = 0; q < nbk; q++) {
                const size_t idx = t * ls + q * len * ks, r = idx / bs->ld, c = idx % bs->ld;
                codes[t * nbk + q] = bs->u8[(r >> bs->bh) * bs->scols + (c >> bs->bw)];
            }
    return codes;
}

/* An operand's MX scale exponents per (line, block of 32 along k), for mf__xi_run: NULL where its blocks do not
 * run along k or some block's elements are not exact (scale NaN, or v * 2^x below 2^-149's grid or beyond
 * binary32's range), so that every element's value is its integer times 2^(x - sh). No block scale: zeros. */
static int16_t *xi_mx_exps(const gemm *g, const mat *x, const mf_gemm_scale *sk, size_t lines, size_t ls, size_t ks)
{
    const size_t nbk = g->k / MF__XI_MX_BLOCK;
    const int sh = x->fmt == MF_FP4_E2M1 ? 1 : x->fmt == MF_FP6_E2M3 ? 3 : 4;
    const double maxv = x->fmt == MF_FP4_E2M1 ? 6.0 : x->fmt == MF_FP6_E2M3 ? 7.5 : 28.0;
    int none;
    uint8_t *codes = sk->kind == MF_GEMM_SCALE_MX || !x->bs
                         ? xi_block_codes(g, x, sk, lines, ls, ks, MF__XI_MX_BLOCK, &none)
                         : (none = 0, NULL);
    int16_t *e = (codes || none) && g->k % MF__XI_MX_BLOCK == 0 ? (int16_t *)calloc(lines * nbk + 1, sizeof *e) : NULL;
    for (size_t q = 0; e && codes && q < lines * nbk; q++) {
        const int xe = (int)codes[q] - 127;
        if (codes[q] == 0xFF || xe - sh < -149 || ldexp(maxv, xe) > 0x1.fffffep127) {
            free(e);
            e = NULL;
        } else {
            e[q] = (int16_t)xe;
        }
    }
    free(codes);
    return e;
}

/* An operand's NVFP4 block scales per (line, block of 16 along k) as binary32 values, for mf__xi_run; NULL where it
 * has none (*none = 1) or its blocks do not run along k. */
static float *xi_nv_scales(const gemm *g, const mat *x, const mf_gemm_scale *sk, size_t lines, size_t ls, size_t ks,
                           int *none)
{
    uint8_t *codes = sk->kind == MF_GEMM_SCALE_NVFP4 || !x->bs ? xi_block_codes(g, x, sk, lines, ls, ks, 16, none)
                                                               : (*none = 0, NULL);
    float *s = codes ? (float *)malloc(sizeof(float) * (lines * (g->k / 16) + 1)) : NULL;
    for (size_t q = 0; s && q < lines * (g->k / 16); q++)
        s[q] = x->bs->lut[codes[q]];
    free(codes);
    return s;
}

/* the exact dot products v = hi * 2^64 + lo (two's complement) times 2^exp: those that fit int64 through xi_emit;
 * the others as emit_direct where it applies, else through the big accumulator */
static void xi_emit_wide(void *ctx, size_t i, size_t j, size_t cnt, const int64_t *hi, const uint64_t *lo, int exp,
                         mf_stats *st)
{
    const gemm *g = (const gemm *)ctx;
    for (size_t q = 0; q < cnt; q++) {
        const int neg = hi[q] < 0;
        const uint64_t ml = neg ? 0 - lo[q] : lo[q], mh = neg ? ~(uint64_t)hi[q] + (lo[q] == 0) : (uint64_t)hi[q];
        if (hi[q] == -(int64_t)(lo[q] >> 63)) { /* hi is lo's sign extension */
            const int64_t v = (int64_t)lo[q];
            xi_emit(ctx, i, j + q, 1, &v, exp, st);
        } else if (g->direct) {
            emit_direct(g, neg, mh, ml, exp, i, j + q, st);
        } else {
            xval x;
            x.cls = XV_FIN, x.neg = 0;
            big_zero(&x.v);
            big_add(&x.v, neg, ml, exp);
            big_add(&x.v, neg, mh, exp + 64);
            mf__gemm_finish(g, &x, i, j + q, st);
        }
    }
}

/* The integer path where the formats have one: MF_OK, or not taken (then nothing was written). */
static int exact_int(const gemm *g, mf_stats *st)
{
    mf__xi_call c;
    int16_t *ea = NULL, *eb = NULL;
    float *na = NULL, *nb = NULL;
    int rc;
    if (!mf__xi_takes(g->a.fmt, g->b.fmt))
        return MF__XI_DECLINED;
    memset(&c, 0, sizeof c);
    c.m = g->m, c.n = g->n, c.k = g->k;
    c.a.base = g->a.base, c.a.fmt = g->a.fmt, c.a.ls = g->a.rs, c.a.ks = g->a.cs;
    c.b.base = g->b.base, c.b.fmt = g->b.fmt, c.b.ls = g->b.cs, c.b.ks = g->b.rs;
    if (g->o->scale_a.kind == MF_GEMM_SCALE_NVFP4 || g->o->scale_b.kind == MF_GEMM_SCALE_NVFP4) {
        int none_a, none_b;
        na = xi_nv_scales(g, &g->a, &g->o->scale_a, g->m, g->a.rs, g->a.cs, &none_a);
        nb = xi_nv_scales(g, &g->b, &g->o->scale_b, g->n, g->b.cs, g->b.rs, &none_b);
        if ((!na && !none_a) || (!nb && !none_b)) {
            free(na), free(nb);
            return MF__XI_DECLINED;
        }
        c.a.nvs = na, c.b.nvs = nb;
    } else if (g->a.bs || g->b.bs) {
        ea = xi_mx_exps(g, &g->a, &g->o->scale_a, g->m, g->a.rs, g->a.cs);
        eb = xi_mx_exps(g, &g->b, &g->o->scale_b, g->n, g->b.cs, g->b.rs);
        if (!ea || !eb) {
            free(ea), free(eb);
            return MF__XI_DECLINED;
        }
        c.a.bexp = ea, c.b.bexp = eb;
    }
    c.threads = g->o->threads, c.emit = xi_emit, c.emit_wide = xi_emit_wide, c.ctx = (void *)(uintptr_t)g, c.st = st;
    rc = mf__xi_run(&c);
    free(ea), free(eb), free(na), free(nb);
    return rc;
}

/* MF_ACCUM_EXACT: the integer path where the formats have one (e2m1, e2m3, e3m2, plain, MX- or NVFP4-scaled along
 * k: exact_int.c, on opts.threads); otherwise one element at a time, each product added exactly, on this thread */
void mf__gemm_run_exact(const gemm *g, mf_stats *st)
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
                    mf__gemm_xv_fma(&x, mf__gemm_elem_bits(&g->a, i, p), mf__gemm_elem_bits(&g->b, p, j));
            mf__gemm_finish(g, &x, i, j, st);
        }
}
