/* SPDX-License-Identifier: MIT */
/* src/gemm/gemm.c - mf_gemm and mf_gemm_plan: argument checks, then the accumulation model's driver (macro.c for
 * MF_ACCUM_FP32, exact.c for MF_ACCUM_EXACT, the tensor-core models' below); gemm_internal.h lists the parts.
 *
 * Every element of C is computed the same way whatever the kernel: a dot product (a binary32
 * accumulator summed in k order with fma, or an exact sum), then the one rounding of
 * alpha * scales * dot + beta * c (epilogue.c).
 */
#include <fenv.h>
#include <string.h>

#include <minifloat/detail/arith.h>

#include "gemm_internal.h"

/* ---- tensor-core models ---------------------------------------------------------------------------- */

/* D(i, j .. j + cnt - 1) from the vector path (tc_fast.c) into C, through the epilogue */
static void tc_emit(void *ctx, size_t i, size_t j, size_t cnt, const uint32_t *d, mf_stats *st)
{
    const gemm *g = (const gemm *)ctx;
    for (size_t q = 0; q < cnt; q++) {
        float df;
        memcpy(&df, &d[q], 4);
        if (g->tc_c_in)
            mf__gemm_store_acc(g, df, i, j + q, st);
        else
            mf__gemm_epi_one(g, df, i, j + q, st);
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
        cl.emit = tc_emit, cl.ctx = (void *)(uintptr_t)g, cl.st = st, cl.kernel = mf__gemm_pick_kernels().tc;
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
                mf__gemm_store_acc(g, df, i, j, st);
            else
                mf__gemm_epi_one(g, df, i, j, st);
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

#define is_fp8 mf__is_fp8 /* minifloat/detail/format.h */

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
    if ((unsigned)o->overflow > MF_OVERFLOW_SATURATE /* SatPropagate: conversions only */)
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
                  mf__gemm_factor_f32(&g, 0, 0, &g.factor) && g.factor != 0.0f; /* a zero factor: +0 (epilogue) */
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
        mf__gemm_run_exact(&g, o->stats ? &st : NULL);
    else if (o->accum == MF_ACCUM_FP32)
        rc = mf__gemm_run_fp32(&g, o->stats ? &st : NULL);
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
    if ((unsigned)o->overflow > MF_OVERFLOW_SATURATE /* SatPropagate: conversions only */)
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
        pl = mf__gemm_fp32_plan_for(&g);
        pi.kernel = pl.pk ? "dot-bf16" : "fma";
        pi.isa = pl.pk ? pl.pk->name : pl.k->name;
        pi.mr = (int)pl.mr, pi.nr = (int)pl.nr, pi.mc = pl.mc, pi.kc = pl.kc, pi.nc = NC_MAX;
    } else {
        pi.kernel = o->accum == MF_ACCUM_EXACT ? "exact" : "tensor-core";
    }
    *plan = pi;
    return MF_OK;
}
