/* SPDX-License-Identifier: MIT */
/* tests/test_gemm.c - mf_gemm against an independent reference.
 *
 * The reference shares no code with src/: elements are decoded by the oracle's tables (ref_decode),
 * the exact value alpha * sa * sb * sum(a * b) + beta * c is formed in MPFR at 2048 bits (exact for
 * every value mf_gemm can form), then rounded to odd at 53 bits (which keeps every rounding into a
 * format of at most 24 bits exact, for every mode) and rounded into C's format by the oracle's slow
 * textbook rounding (ref_round). MF_ACCUM_FP32's accumulator is the test's own fmaf loop in k order.
 */
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpfr.h>

#include <minifloat.h>

#include "mf_test.h"
#include "oracle/ref.h"

#define GEMM_TEST_SEED 0x9E3779B97F4A7C15ull
#include "gemm_test.h"

/* ---- the test's own helpers ---------------------------------------------------------------------- */

static const mf_format ELEM_FMTS[] = {MF_FP32,     MF_FP16,     MF_BF16,     MF_FP8_E4M3,
                                      MF_FP8_E5M2, MF_FP6_E2M3, MF_FP6_E3M2, MF_FP4_E2M1};
#define N_ELEM_FMTS 8
static const mf_format C_FMTS[] = {MF_FP32, MF_FP16, MF_BF16};

static ref_format ref_of(mf_format f)
{
    static const ref_format map[MF_FORMAT_COUNT] = {
        [MF_FP32] = REF_F32,      [MF_FP16] = REF_F16,      [MF_BF16] = REF_BF16,
        [MF_FP8_E4M3] = REF_E4M3, [MF_FP8_E5M2] = REF_E5M2, [MF_FP6_E2M3] = REF_E2M3,
        [MF_FP6_E3M2] = REF_E3M2, [MF_FP4_E2M1] = REF_E2M1, [MF_E8M0] = REF_E8M0};
    MF_EXPECT((unsigned)f < MF_FP64, "no reference format for %d", (int)f);
    return map[f];
}


/* a random finite code of f; with narrow = 1 for f32/f16/bf16, a value of moderate exponent */
static uint32_t rnd_code(mf_format f, int wide)
{
    const ref_format r = ref_of(f);
    for (;;) {
        uint32_t c;
        if (f == MF_FP32 && !wide) { /* +-(1..2) * 2^(-30..30) */
            c = (uint32_t)((rnd() & 1) << 31) | (uint32_t)(127 - 30 + rnd_below(61)) << 23 |
                (uint32_t)(rnd() & 0x7FFFFF);
        } else {
            c = (uint32_t)(rnd() & ((width_bits(f) == 32) ? 0xFFFFFFFFu : (1u << width_bits(f)) - 1));
        }
        if (f == MF_FP6_E2M3 || f == MF_FP6_E3M2)
            c &= 0x3F;
        const double v = ref_decode(r, c);
        if (isfinite(v))
            return c;
    }
}


/* index of element (r, c) of a stored matrix */
static size_t at(mf_layout l, size_t ld, size_t r, size_t c) { return l == MF_ROW_MAJOR ? r * ld + c : r + c * ld; }


/* ---- one case ------------------------------------------------------------------------------------ */
typedef struct gcase {
    mf_layout layout;
    mf_trans ta, tb;
    size_t m, n, k, lda, ldb, ldc;
    float alpha, beta;
    mf_format fa, fb, fc;
    mf_gemm_opts o;
    float sa[8], sb[8];
    uint32_t ca[8][64], cb[64][8], cc[8][8]; /* op(A), op(B), C codes */
} gcase;

static unsigned char A[8192], B[8192], C[8192], Cref[8192];
static unsigned long n_elems_checked;

/* Lay out the case's matrices (padding filled with NaN-ish bytes that must be neither read nor written) */
static void store(gcase *g)
{
    memset(A, 0xFF, sizeof A), memset(B, 0xFF, sizeof B), memset(C, 0xFF, sizeof C);
    for (size_t i = 0; i < g->m; i++)
        for (size_t p = 0; p < g->k; p++)
            put(A, g->fa, g->ta == MF_NO_TRANS ? at(g->layout, g->lda, i, p) : at(g->layout, g->lda, p, i),
                g->ca[i][p]);
    for (size_t p = 0; p < g->k; p++)
        for (size_t j = 0; j < g->n; j++)
            put(B, g->fb, g->tb == MF_NO_TRANS ? at(g->layout, g->ldb, p, j) : at(g->layout, g->ldb, j, p),
                g->cb[p][j]);
    for (size_t i = 0; i < g->m; i++)
        for (size_t j = 0; j < g->n; j++)
            put(C, g->fc, at(g->layout, g->ldc, i, j), g->cc[i][j]);
}

static double scale_of(const mf_gemm_scale *s, size_t idx)
{
    if (s->kind == MF_GEMM_SCALE_NONE)
        return 1.0;
    return ((const float *)s->data)[s->kind == MF_GEMM_SCALE_TENSOR ? 0 : idx];
}

/* The expected C: Cref (same layout), and the expected stats. */
static void reference(const gcase *g, mf_stats *st)
{
    mpfr_t acc, t;
    mpfr_init2(acc, 2048);
    mpfr_init2(t, 2048);
    memcpy(Cref, C, sizeof C);
    memset(st, 0, sizeof *st);
    const ref_format ra = ref_of(g->fa), rb = ref_of(g->fb);
    const int products = g->k > 0 && g->alpha != 0.0f;
    for (size_t i = 0; i < g->m; i++)
        for (size_t j = 0; j < g->n; j++) {
            mpfr_set_zero(acc, 1);
            if (products) {
                if (g->o.accum == MF_ACCUM_EXACT) {
                    for (size_t p = 0; p < g->k; p++) {
                        mpfr_set_d(t, ref_decode(ra, g->ca[i][p]), MPFR_RNDN);
                        mpfr_mul_d(t, t, ref_decode(rb, g->cb[p][j]), MPFR_RNDN);
                        mpfr_add(acc, acc, t, MPFR_RNDN);
                    }
                } else {
                    float s = 0.0f;
                    for (size_t p = 0; p < g->k; p++)
                        s = fmaf((float)ref_decode(ra, g->ca[i][p]), (float)ref_decode(rb, g->cb[p][j]), s);
                    mpfr_set_flt(acc, s, MPFR_RNDN);
                }
                mpfr_mul_d(acc, acc, g->alpha, MPFR_RNDN);
                mpfr_mul_d(acc, acc, scale_of(&g->o.scale_a, i), MPFR_RNDN);
                mpfr_mul_d(acc, acc, scale_of(&g->o.scale_b, j), MPFR_RNDN);
            }
            ref_round_c(Cref, g->fc, at(g->layout, g->ldc, i, j), acc, g->beta, g->cc[i][j], &g->o, i, j, g->n, st);
        }
    mpfr_clear(acc);
    mpfr_clear(t);
}

static void describe(const gcase *g, char *buf, size_t len)
{
    snprintf(buf, len, "%s %s%s m=%zu n=%zu k=%zu ld=%zu,%zu,%zu alpha=%g beta=%g %s x %s -> %s, %s, %s, %s",
             g->layout == MF_ROW_MAJOR ? "row" : "col", g->ta ? "T" : "N", g->tb ? "T" : "N", g->m, g->n, g->k, g->lda,
             g->ldb, g->ldc, (double)g->alpha, (double)g->beta, mf_format_name(g->fa), mf_format_name(g->fb),
             mf_format_name(g->fc), g->o.accum == MF_ACCUM_EXACT ? "exact" : "fp32", mf_round_name(g->o.round),
             mf_overflow_name(g->o.overflow));
}

static void run_case(gcase *g)
{
    mf_stats st, want_st;
    char what[256];
    store(g);
    reference(g, &want_st);
    g->o.stats = &st;
    describe(g, what, sizeof what);
    const int rc = mf_gemm(g->layout, g->ta, g->tb, g->m, g->n, g->k, g->alpha, A, g->fa, g->lda, B, g->fb, g->ldb,
                           g->beta, C, g->fc, g->ldc, &g->o);
    MF_EXPECT(rc == MF_OK, "%s: returned %d", what, rc);
    for (size_t i = 0; i < sizeof C; i++) {
        if (C[i] == Cref[i])
            continue;
        /* name the element */
        const size_t w = (size_t)width_bits(g->fc) / 8, e = i / w;
        ck_abort_msg("%s: C element %zu (byte %zu) is 0x%x, expected 0x%x", what, e, i, get(C, g->fc, e),
                     get(Cref, g->fc, e));
    }
    MF_EXPECT(memcmp(&st, &want_st, sizeof st) == 0,
              "%s: stats overflow %llu underflow %llu subnormal %llu nan %llu inexact %llu, expected %llu %llu %llu "
              "%llu %llu",
              what, (unsigned long long)st.overflow, (unsigned long long)st.underflow, (unsigned long long)st.subnormal,
              (unsigned long long)st.nan, (unsigned long long)st.inexact, (unsigned long long)want_st.overflow,
              (unsigned long long)want_st.underflow, (unsigned long long)want_st.subnormal,
              (unsigned long long)want_st.nan, (unsigned long long)want_st.inexact);
    n_elems_checked += g->m * g->n;
}

static const float ALPHAS[] = {1.0f, -1.0f, 0.0f, 0.375f, 3.0e-3f, 1.0e30f, 0x1p-140f};
static const float BETAS[] = {0.0f, 1.0f, -1.0f, 0.5f, 1.0e-30f};

/* A random case: sizes 0..6 (k 0..63), any layout, transposes and ld padding. */
static void random_case(gcase *g, mf_format fa, mf_format fb, mf_accum accum)
{
    static const size_t KS[] = {0, 1, 2, 3, 5, 7, 16, 31, 32, 33, 63};
    memset(g, 0, sizeof *g);
    g->layout = rnd() & 1 ? MF_ROW_MAJOR : MF_COL_MAJOR;
    g->ta = rnd() & 1 ? MF_TRANS : MF_NO_TRANS;
    g->tb = rnd() & 1 ? MF_TRANS : MF_NO_TRANS;
    g->m = 1 + rnd_below(6), g->n = 1 + rnd_below(6), g->k = KS[rnd_below(sizeof KS / sizeof KS[0])];
    if (rnd_below(20) == 0)
        g->m = 0;
    const size_t a_inner = (g->layout == MF_ROW_MAJOR) == (g->ta == MF_NO_TRANS) ? g->k : g->m;
    const size_t b_inner = (g->layout == MF_ROW_MAJOR) == (g->tb == MF_NO_TRANS) ? g->n : g->k;
    const size_t c_inner = g->layout == MF_ROW_MAJOR ? g->n : g->m;
    g->lda = (a_inner ? a_inner : 1) + rnd_below(3);
    g->ldb = (b_inner ? b_inner : 1) + rnd_below(3);
    g->ldc = (c_inner ? c_inner : 1) + rnd_below(3);
    g->alpha = ALPHAS[rnd_below(sizeof ALPHAS / sizeof ALPHAS[0])];
    g->beta = BETAS[rnd_below(sizeof BETAS / sizeof BETAS[0])];
    g->fa = fa, g->fb = fb, g->fc = C_FMTS[rnd_below(3)];
    g->o.accum = accum;
    g->o.round = (mf_round)rnd_below(MF_ROUND_COUNT);
    if (g->o.round == MF_ROUND_STOCHASTIC && g->fc == MF_FP32)
        g->o.round = MF_ROUND_ODD; /* SR into f32 needs 32 discarded bits: tested against MPFR below */
    g->o.overflow = (mf_overflow)rnd_below(2);
    g->o.seed = rnd(), g->o.sr_offset = rnd() >> 20;
    const int wide = rnd_below(4) == 0;
    for (size_t i = 0; i < g->m; i++)
        for (size_t p = 0; p < g->k; p++)
            g->ca[i][p] = rnd_code(fa, wide);
    for (size_t p = 0; p < g->k; p++)
        for (size_t j = 0; j < g->n; j++)
            g->cb[p][j] = rnd_code(fb, wide);
    for (size_t i = 0; i < g->m; i++)
        for (size_t j = 0; j < g->n; j++)
            g->cc[i][j] = rnd_code(g->fc, 0);
    const unsigned sk = (unsigned)rnd_below(6);
    if (sk == 1 || sk == 2) { /* scales: per tensor, per row / column */
        g->o.scale_a.kind = sk == 1 ? MF_GEMM_SCALE_TENSOR : MF_GEMM_SCALE_VECTOR;
        g->o.scale_b.kind = sk == 1 ? MF_GEMM_SCALE_VECTOR : MF_GEMM_SCALE_TENSOR;
        for (int q = 0; q < 8; q++) {
            g->sa[q] = ldexpf(1.0f + (float)rnd_below(64) / 64.0f, (int)rnd_below(20) - 10);
            g->sb[q] = rnd_below(3) ? ldexpf(1.0f, (int)rnd_below(16) - 8) : 0.1f * (float)(q + 1);
        }
        g->o.scale_a.data = g->sa, g->o.scale_b.data = g->sb;
    }
}

/* Every pair of element formats, both accumulations, random shapes, layouts, modes and policies. */
START_TEST(test_gemm_against_reference)
{
    const mf_format fa = ELEM_FMTS[_i / N_ELEM_FMTS], fb = ELEM_FMTS[_i % N_ELEM_FMTS];
    gcase g;
    rng_state = 0x9E3779B97F4A7C15ull + (uint64_t)_i * 7919;
    const unsigned long before = n_elems_checked;
    for (int rep = 0; rep < 60; rep++) {
        random_case(&g, fa, fb, rep & 1 ? MF_ACCUM_EXACT : MF_ACCUM_FP32);
        run_case(&g);
    }
    ck_assert_uint_gt(n_elems_checked - before, 300);
}
END_TEST

/* Integer-valued inputs whose sums are exact: FP32 accumulation equals the exact result. */
START_TEST(test_gemm_integers_exact)
{
    enum { M = 9, N = 11, K = 300 };
    static unsigned char a[M * K], b[K * N];
    static float c32[M * N], cx[M * N];
    for (size_t e = 0; e < M * K; e++) /* e4m3 integers -8 .. 8 */
        a[e] = mf_f32_to_e4m3_rn_sat((float)((int)rnd_below(17) - 8)).bits;
    for (size_t e = 0; e < K * N; e++)
        b[e] = mf_f32_to_e4m3_rn_sat((float)((int)rnd_below(17) - 8)).bits;
    mf_gemm_opts ox;
    memset(&ox, 0, sizeof ox);
    ox.accum = MF_ACCUM_EXACT;
    ck_assert_int_eq(mf_gemm(MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, M, N, K, 1.0f, a, MF_FP8_E4M3, K, b, MF_FP8_E4M3,
                             N, 0.0f, c32, MF_FP32, N, NULL),
                     MF_OK);
    ck_assert_int_eq(mf_gemm(MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, M, N, K, 1.0f, a, MF_FP8_E4M3, K, b, MF_FP8_E4M3,
                             N, 0.0f, cx, MF_FP32, N, &ox),
                     MF_OK);
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < N; j++) {
            long s = 0;
            for (size_t p = 0; p < K; p++)
                s += (long)mf_e4m3_to_f32(mf_e4m3_from_bits(a[i * K + p])) *
                     (long)mf_e4m3_to_f32(mf_e4m3_from_bits(b[p * N + j]));
            MF_EXPECT(c32[i * N + j] == (float)s && cx[i * N + j] == (float)s, "element (%zu, %zu)", i, j);
        }
}
END_TEST

/* Shapes that cross every block of the packed kernels (MC = 96 rows, KC = 256, up to 1024 columns, the
 * kernels' tiles) in both layouts and transposes: each accumulator is the k-ordered fmaf chain, on any
 * number of threads. */
START_TEST(test_gemm_blocks)
{
    enum { M = 150, N = 1030, K = 300 }; /* across the row (144), column (1024) and k (256) blocks */
    static float a[M * K], b[K * N], want[M * N], c[M * N];
    unsigned long sample = (unsigned long)_i;
    if (!mf_test_take(&sample)) /* MF_TEST_SAMPLE (tests/mf_test.h): under qemu and ASan a share a day */
        return;
    static uint16_t bh[K * N], c16[M * N], want16[M * N];
    for (size_t e = 0; e < M * K; e++)
        a[e] = ldexpf((float)((int)(rnd() & 0xFFFFFF) - 0x800000), -(int)rnd_below(40));
    for (size_t e = 0; e < K * N; e++) {
        bh[e] = (uint16_t)rnd_code(MF_FP16, 1);
        b[e] = (float)ref_decode(REF_F16, bh[e]);
    }
    const mf_layout lay = _i & 1 ? MF_COL_MAJOR : MF_ROW_MAJOR;
    const mf_trans ta = _i & 2 ? MF_TRANS : MF_NO_TRANS, tb = (_i ^ (_i >> 1)) & 1 ? MF_TRANS : MF_NO_TRANS;
    /* the stored arrays for this layout and these transposes */
    static float as[M * K];
    static uint16_t bs[K * N];
    const size_t lda = (lay == MF_ROW_MAJOR) == (ta == MF_NO_TRANS) ? K : M;
    const size_t ldb = (lay == MF_ROW_MAJOR) == (tb == MF_NO_TRANS) ? N : K;
    const size_t ldc = lay == MF_ROW_MAJOR ? N : M;
    for (size_t i = 0; i < M; i++)
        for (size_t p = 0; p < K; p++)
            as[ta == MF_NO_TRANS ? at(lay, lda, i, p) : at(lay, lda, p, i)] = a[i * K + p];
    for (size_t p = 0; p < K; p++)
        for (size_t j = 0; j < N; j++)
            bs[tb == MF_NO_TRANS ? at(lay, ldb, p, j) : at(lay, ldb, j, p)] = bh[p * N + j];
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < N; j++) {
            float s = 0.0f;
            for (size_t p = 0; p < K; p++)
                s = fmaf(a[i * K + p], b[p * N + j], s);
            want[at(lay, ldc, i, j)] = s;
            want16[at(lay, ldc, i, j)] = (uint16_t)ref_round(REF_BF16, -0.5 * (double)s, REF_RN, 0, 0, NULL);
        }
    const int threads[] = {0, 2, 3, 7};
    for (int q = 0; q < 4; q++) {
        mf_gemm_opts o;
        memset(&o, 0, sizeof o);
        o.threads = threads[q];
        memset(c, 0xFF, sizeof c);
        ck_assert_int_eq(
            mf_gemm(lay, ta, tb, M, N, K, 1.0f, as, MF_FP32, lda, bs, MF_FP16, ldb, 0.0f, c, MF_FP32, ldc, &o), MF_OK);
        for (size_t e = 0; e < M * N; e++)
            MF_EXPECT(mf_test_f32_bits(c[e]) == mf_test_f32_bits(want[e]),
                      "case %d threads %d: element %zu is %a, expected %a", _i, threads[q], e, (double)c[e],
                      (double)want[e]);
        if (q != 1)
            continue;
        /* alpha = -0.5 into bf16: the general epilogue on the same accumulators */
        ck_assert_int_eq(
            mf_gemm(lay, ta, tb, M, N, K, -0.5f, as, MF_FP32, lda, bs, MF_FP16, ldb, 0.0f, c16, MF_BF16, ldc, &o),
            MF_OK);
        ck_assert_mem_eq(c16, want16, sizeof c16);
    }
}
END_TEST

/* NaN and inf: the IEEE rules, beta = 0 ignoring C, alpha = 0 ignoring A and B. */
START_TEST(test_gemm_specials)
{
    const float inf = INFINITY, nan = NAN;
    float a[4] = {1.0f, 2.0f, 3.0f, 4.0f}, b[4] = {1.0f, 1.0f, 1.0f, 1.0f}, c[1];
    uint32_t u;
#define GEMV(alpha, beta, acc_)                                                                                        \
    do {                                                                                                               \
        mf_gemm_opts o_;                                                                                               \
        memset(&o_, 0, sizeof o_);                                                                                     \
        o_.accum = acc_;                                                                                               \
        ck_assert_int_eq(mf_gemm(MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, 1, 1, 4, alpha, a, MF_FP32, 4, b, MF_FP32, 1, \
                                 beta, c, MF_FP32, 1, &o_),                                                            \
                         MF_OK);                                                                                       \
        memcpy(&u, c, 4);                                                                                              \
    } while (0)
    for (int accum = MF_ACCUM_FP32; accum <= MF_ACCUM_EXACT; accum++) { /* the models: test_gemm_tc.c */
        c[0] = nan;
        GEMV(1.0f, 0.0f, (mf_accum)accum); /* beta = 0: C's NaN ignored */
        ck_assert(c[0] == 10.0f);
        a[1] = nan;
        c[0] = 5.0f;
        GEMV(0.0f, 1.0f, (mf_accum)accum); /* alpha = 0: A's NaN not read */
        ck_assert(c[0] == 5.0f);
        GEMV(1.0f, 1.0f, (mf_accum)accum);
        ck_assert_uint_eq(u, 0x7FFFFFFFu); /* the library's NaN */
        a[1] = inf, b[1] = 0.0f;
        GEMV(1.0f, 0.0f, (mf_accum)accum); /* inf * 0 */
        ck_assert_uint_eq(u, 0x7FFFFFFFu);
        b[1] = 1.0f, a[3] = -inf;
        GEMV(1.0f, 0.0f, (mf_accum)accum); /* inf - inf */
        ck_assert_uint_eq(u, 0x7FFFFFFFu);
        a[3] = 4.0f;
        GEMV(1.0f, 0.0f, (mf_accum)accum);
        ck_assert(c[0] == inf);
        c[0] = -inf;
        GEMV(1.0f, 1.0f, (mf_accum)accum); /* inf + -inf from C */
        ck_assert_uint_eq(u, 0x7FFFFFFFu);
        a[1] = 2.0f;
        c[0] = -inf;
        GEMV(1.0f, -2.0f, (mf_accum)accum);
        ck_assert(c[0] == inf);
    }
    /* the FP32 accumulator overflows where the exact sum does not: 2^127 + 2^127 - 2^127 */
    {
        float x[3] = {0x1p127f, 0x1p127f, -0x1p127f}, y[3] = {1.0f, 1.0f, 1.0f}, r[2];
        mf_gemm_opts o;
        memset(&o, 0, sizeof o);
        ck_assert_int_eq(mf_gemm(MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, 1, 1, 3, 1.0f, x, MF_FP32, 3, y, MF_FP32, 1,
                                 0.0f, &r[0], MF_FP32, 1, &o),
                         MF_OK);
        ck_assert(r[0] == INFINITY);
        o.accum = MF_ACCUM_EXACT;
        ck_assert_int_eq(mf_gemm(MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, 1, 1, 3, 1.0f, x, MF_FP32, 3, y, MF_FP32, 1,
                                 0.0f, &r[1], MF_FP32, 1, &o),
                         MF_OK);
        ck_assert(r[1] == 0x1p127f);
    }
#undef GEMV
}
END_TEST

/* Stochastic rounding into f32 needs the exact value's top 32 discarded bits: MPFR directly. */
START_TEST(test_gemm_sr_f32)
{
    enum { K = 24 };
    float a[K], b[K], c[1];
    mpfr_t acc, t, lo;
    mpfr_init2(acc, 2048), mpfr_init2(t, 2048), mpfr_init2(lo, 24);
    unsigned up = 0;
    for (int rep = 0; rep < 400; rep++) {
        for (int p = 0; p < K; p++)
            a[p] = ldexpf((float)(rnd() & 0xFFFFFF), (int)rnd_below(40) - 20) * (rnd() & 1 ? 1.0f : -1.0f),
            b[p] = ldexpf((float)(rnd() & 0xFFFFFF), (int)rnd_below(40) - 20);
        mf_gemm_opts o;
        memset(&o, 0, sizeof o);
        o.accum = MF_ACCUM_EXACT, o.round = MF_ROUND_STOCHASTIC, o.seed = 42, o.sr_offset = (uint64_t)rep;
        ck_assert_int_eq(mf_gemm(MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, 1, 1, K, 1.0f, a, MF_FP32, K, b, MF_FP32, 1,
                                 0.0f, c, MF_FP32, 1, &o),
                         MF_OK);
        mpfr_set_zero(acc, 1);
        for (int p = 0; p < K; p++) {
            mpfr_set_flt(t, a[p], MPFR_RNDN);
            mpfr_mul_d(t, t, b[p], MPFR_RNDN);
            mpfr_add(acc, acc, t, MPFR_RNDN);
        }
        /* round toward zero to 24 bits, then up in magnitude iff frac32 + rbits >= 2^32 */
        mpfr_set(lo, acc, MPFR_RNDZ);
        const float trunc = mpfr_get_flt(lo, MPFR_RNDZ);
        mpfr_sub(t, acc, lo, MPFR_RNDN); /* the discarded part, exact */
        mpfr_abs(t, t, MPFR_RNDN);
        mpfr_div_d(t, t, (double)(nextafterf(fabsf(trunc), INFINITY) - fabsf(trunc)), MPFR_RNDN); /* in ulps */
        mpfr_mul_2ui(t, t, 32, MPFR_RNDN);
        mpfr_floor(t, t);
        const uint64_t frac32 = (uint64_t)mpfr_get_ui(t, MPFR_RNDZ);
        const uint32_t rb = mf_sr_rbits(42, (uint64_t)rep, 32);
        const float want = frac32 + rb >= (1ull << 32) ? (trunc < 0 ? -1 : 1) * nextafterf(fabsf(trunc), INFINITY)
                                                       : trunc;
        up += want != trunc;
        ck_assert_msg(c[0] == want, "rep %d: %a, expected %a", rep, (double)c[0], (double)want);
    }
    ck_assert_uint_gt(up, 50); /* both directions seen */
    ck_assert_uint_lt(up, 350);
    mpfr_clear(acc), mpfr_clear(t), mpfr_clear(lo);
}
END_TEST

/* The caller's rounding mode and FTZ/DAZ do not change a result. */
START_TEST(test_gemm_environment)
{
    enum { M = 5, N = 7, K = 77 };
    float a[M * K], b[K * N], c0[M * N], c1[M * N];
    for (int e = 0; e < M * K; e++)
        a[e] = ldexpf((float)((int)(rnd() & 0xFFFF) - 0x8000), -(int)rnd_below(140));
    for (int e = 0; e < K * N; e++)
        b[e] = ldexpf((float)((int)(rnd() & 0xFFFF) - 0x8000), -(int)rnd_below(30));
    ck_assert_int_eq(mf_gemm(MF_COL_MAJOR, MF_NO_TRANS, MF_NO_TRANS, M, N, K, 1.0f, a, MF_FP32, M, b, MF_FP32, K, 0.0f,
                             c0, MF_FP32, M, NULL),
                     MF_OK);
    const int modes[] = {FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
    for (int q = 0; q < 3; q++) {
        fesetround(modes[q]);
        ck_assert_int_eq(mf_gemm(MF_COL_MAJOR, MF_NO_TRANS, MF_NO_TRANS, M, N, K, 1.0f, a, MF_FP32, M, b, MF_FP32, K,
                                 0.0f, c1, MF_FP32, M, NULL),
                         MF_OK);
        ck_assert_int_eq(fegetround(), modes[q]); /* restored */
        fesetround(FE_TONEAREST);
        ck_assert_mem_eq(c0, c1, sizeof c0);
    }
}
END_TEST

/* Bad arguments: the code, and C untouched. */
START_TEST(test_gemm_bad_args)
{
    float a[64], b[64], c[64], keep[64];
    for (int e = 0; e < 64; e++)
        a[e] = b[e] = (float)e, c[e] = -1.0f;
    memcpy(keep, c, sizeof c);
    mf_gemm_opts o;
    memset(&o, 0, sizeof o);
#define BAD(code, ...)                                                                                                 \
    do {                                                                                                               \
        ck_assert_int_eq(mf_gemm(__VA_ARGS__), code);                                                                  \
        ck_assert_mem_eq(c, keep, sizeof c);                                                                           \
    } while (0)
    /* lda too small (row-major A 4 x 8 needs 8), ldb, ldc; 0 */
    BAD(MF_E_ARG, MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, 4, 4, 8, 1.0f, a, MF_FP32, 7, b, MF_FP32, 4, 0.0f, c, MF_FP32,
        4, NULL);
    BAD(MF_E_ARG, MF_ROW_MAJOR, MF_NO_TRANS, MF_TRANS, 4, 4, 8, 1.0f, a, MF_FP32, 8, b, MF_FP32, 4, 0.0f, c, MF_FP32, 4,
        NULL);
    BAD(MF_E_ARG, MF_COL_MAJOR, MF_NO_TRANS, MF_NO_TRANS, 4, 4, 8, 1.0f, a, MF_FP32, 4, b, MF_FP32, 8, 0.0f, c, MF_FP32,
        3, NULL);
    BAD(MF_E_ARG, MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, 0, 0, 0, 1.0f, a, MF_FP32, 0, b, MF_FP32, 1, 0.0f, c, MF_FP32,
        1, NULL);
    /* formats */
    BAD(MF_E_FORMAT, MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, 2, 2, 2, 1.0f, a, MF_E8M0, 2, b, MF_FP32, 2, 0.0f, c,
        MF_FP32, 2, NULL);
    BAD(MF_E_FORMAT, MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, 2, 2, 2, 1.0f, a, MF_FP32, 2, b, MF_FP64, 2, 0.0f, c,
        MF_FP32, 2, NULL);
    BAD(MF_E_FORMAT, MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, 2, 2, 2, 1.0f, a, MF_FP32, 2, b, MF_FP32, 2, 0.0f, c,
        MF_FP8_E4M3, 2, NULL);
    /* NULL, overlap of C with A */
    BAD(MF_E_NULL, MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, 2, 2, 2, 1.0f, NULL, MF_FP32, 2, b, MF_FP32, 2, 0.0f, c,
        MF_FP32, 2, NULL);
    BAD(MF_E_OVERLAP, MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, 2, 2, 2, 1.0f, c + 3, MF_FP32, 2, b, MF_FP32, 2, 0.0f, c,
        MF_FP32, 2, NULL);
    /* a scale kind whose data is missing; unknown kinds and accumulations */
    o.scale_a.kind = MF_GEMM_SCALE_VECTOR;
    BAD(MF_E_NULL, MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, 2, 2, 2, 1.0f, a, MF_FP32, 2, b, MF_FP32, 2, 0.0f, c,
        MF_FP32, 2, &o);
    o.scale_a.data = c + 1; /* the scales overlap C */
    BAD(MF_E_OVERLAP, MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, 2, 2, 2, 1.0f, a, MF_FP32, 2, b, MF_FP32, 2, 0.0f, c,
        MF_FP32, 2, &o);
    o.scale_a.kind = (mf_gemm_scale_kind)MF_GEMM_SCALE_COUNT;
    BAD(MF_E_ARG, MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, 2, 2, 2, 1.0f, a, MF_FP32, 2, b, MF_FP32, 2, 0.0f, c, MF_FP32,
        2, &o);
    memset(&o, 0, sizeof o);
    o.accum = (mf_accum)MF_ACCUM_COUNT;
    BAD(MF_E_ARG, MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, 2, 2, 2, 1.0f, a, MF_FP32, 2, b, MF_FP32, 2, 0.0f, c, MF_FP32,
        2, &o);
    /* m * n * ld past the address space */
    BAD(MF_E_SIZE, MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, SIZE_MAX / 2, 2, 2, 1.0f, a, MF_FP32, 2, b, MF_FP32, 2, 0.0f,
        c, MF_FP32, 2, NULL);
#undef BAD
    /* m = 0: nothing touched, stats zeroed; A and B may be NULL where they are not read */
    mf_stats st;
    memset(&st, 0xFF, sizeof st);
    o.accum = MF_ACCUM_FP32, o.stats = &st;
    ck_assert_int_eq(mf_gemm(MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, 0, 4, 4, 1.0f, NULL, MF_FP32, 4, NULL, MF_FP32, 4,
                             1.0f, NULL, MF_FP32, 4, &o),
                     MF_OK);
    ck_assert_uint_eq(st.overflow + st.underflow + st.subnormal + st.nan + st.inexact, 0);
    ck_assert_int_eq(mf_gemm(MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, 2, 2, 4, 0.0f, NULL, MF_FP32, 4, NULL, MF_FP32, 2,
                             2.0f, c, MF_FP32, 2, NULL),
                     MF_OK);
    ck_assert(c[0] == -2.0f && c[3] == -2.0f && c[4] == -1.0f);
}
END_TEST

/* ---- block scales ---------------------------------------------------------------------------------- */

/* (kind, element format) pairs the block kinds take */
static const struct {
    mf_gemm_scale_kind kind;
    mf_format fmt;
} BLOCK_CASES[] = {
    {MF_GEMM_SCALE_BLOCK_1X128, MF_FP8_E4M3},
    {MF_GEMM_SCALE_BLOCK_1X128, MF_FP8_E5M2},
    {MF_GEMM_SCALE_BLOCK_128X128, MF_FP8_E4M3},
    {MF_GEMM_SCALE_BLOCK_128X128, MF_FP8_E5M2},
    {MF_GEMM_SCALE_BLOCK_128X1, MF_FP8_E4M3},
    {MF_GEMM_SCALE_MX, MF_FP8_E4M3},
    {MF_GEMM_SCALE_MX, MF_FP8_E5M2},
    {MF_GEMM_SCALE_MX, MF_FP6_E2M3},
    {MF_GEMM_SCALE_MX, MF_FP6_E3M2},
    {MF_GEMM_SCALE_MX, MF_FP4_E2M1},
    {MF_GEMM_SCALE_NVFP4, MF_FP4_E2M1},
};
#define N_BLOCK_CASES (sizeof BLOCK_CASES / sizeof BLOCK_CASES[0])

/* One block-scaled operand: the R x C tensor's codes (tight, in the scaling API's layout), its scales,
 * and its values as the scaling API's dequantize function gives them. */
typedef struct bop {
    mf_gemm_scale s;
    mf_format fmt;
    size_t rows, cols;
    unsigned char codes[64 * 160];
    float fscale[256];
    uint8_t bscale[64 * 160 / 16];
    float val[64 * 160];
} bop;

static void bop_make(bop *x, mf_gemm_scale_kind kind, mf_format f, size_t rows, size_t cols, int special)
{
    memset(x, 0, sizeof *x);
    x->s.kind = kind, x->fmt = f, x->rows = rows, x->cols = cols;
    x->s.axis = rnd() & 1 ? MF_MX_COLWISE : MF_MX_ROWWISE;
    for (size_t e = 0; e < rows * cols; e++)
        put(x->codes, f, e, rnd_code(f, 0));
    if (kind == MF_GEMM_SCALE_MX || kind == MF_GEMM_SCALE_NVFP4) {
        const size_t ns = rows * cols / (kind == MF_GEMM_SCALE_MX ? 32 : 16);
        for (size_t q = 0; q < ns; q++) /* E8M0 around 2^0, or positive E4M3 codes */
            x->bscale[q] = (uint8_t)(kind == MF_GEMM_SCALE_MX ? 112 + rnd_below(31) : 1 + rnd_below(0x7E));
        if (special && kind == MF_GEMM_SCALE_MX) /* the smallest scale (2^-127, subnormal) and a NaN block */
            x->bscale[0] = 0, x->bscale[ns - 1] = 0xFF;
        x->s.data = x->bscale;
        x->s.amax = ldexpf((float)(1 + rnd_below(1000)), -(int)rnd_below(12));
        if (kind == MF_GEMM_SCALE_MX) {
            const mf_mx_type t = f == MF_FP8_E4M3   ? MF_MXFP8_E4M3
                                 : f == MF_FP8_E5M2 ? MF_MXFP8_E5M2
                                 : f == MF_FP6_E2M3 ? MF_MXFP6_E2M3
                                 : f == MF_FP6_E3M2 ? MF_MXFP6_E3M2
                                                    : MF_MXFP4_E2M1;
            ck_assert_int_eq(mf_mx_dequantize(t, x->s.axis, 0, x->codes, x->bscale, rows, cols, x->val), MF_OK);
        } else {
            ck_assert_int_eq(mf_nvfp4_dequantize(x->s.axis, x->codes, x->bscale, x->s.amax, rows, cols, x->val), MF_OK);
        }
    } else {
        const mf_fp8_block bk = kind == MF_GEMM_SCALE_BLOCK_1X128     ? MF_FP8_BLOCK_1X128
                                : kind == MF_GEMM_SCALE_BLOCK_128X128 ? MF_FP8_BLOCK_128X128
                                                                      : MF_FP8_BLOCK_128X1;
        size_t sr, sc;
        ck_assert_int_eq(mf_fp8_block_scale_shape(bk, rows, cols, &sr, &sc), MF_OK);
        ck_assert_uint_le(sr * sc, sizeof x->fscale / sizeof x->fscale[0]);
        for (size_t q = 0; q < sr * sc; q++) /* any binary32: 24-bit significands, so products round */
            x->fscale[q] = ldexpf((float)(0x800000 + (rnd() & 0x7FFFFF)), -23 - 8 + (int)rnd_below(17));
        if (special)
            x->fscale[0] = 0x1p-140f; /* subnormal dequantized values */
        x->s.data = x->fscale;
        ck_assert_int_eq(mf_fp8_block_dequantize(MF_FP32, x->val, f, x->codes, x->fscale, rows, cols, bk), MF_OK);
    }
}

/* Block scales: each element's value is the scaling API's dequantized value, then the accumulation:
 * MF_ACCUM_FP32 equal to the fmaf chain over the dequantized values (every layout, transpose, ld and thread
 * count), MF_ACCUM_EXACT equal to their exact sum rounded once (MPFR). Case _i: A's kind and format; B
 * block-scaled with a kind of its own, or plain bf16. */
START_TEST(test_gemm_block_scales)
{
    enum { M = 64, N = 32, K = 160 };
    static bop xa, xb;
    static unsigned char as[2 * 64 * 200], bs[2 * 64 * 200];
    static float c[M * N], want[M * N];
    static uint16_t bplain[K * N];
    static float bplain_v[K * N];
    unsigned long sample = (unsigned long)_i;
    if (!mf_test_take(&sample))
        return;
    const mf_format fa = BLOCK_CASES[_i].fmt;
    unsigned long n_checked = 0;
    for (int v = 0; v < 8; v++) {
        const mf_layout lay = v & 1 ? MF_COL_MAJOR : MF_ROW_MAJOR;
        const mf_trans ta = v & 2 ? MF_TRANS : MF_NO_TRANS, tb = v & 4 ? MF_TRANS : MF_NO_TRANS;
        const int ra = (ta == MF_NO_TRANS) == (lay == MF_ROW_MAJOR), rb = (tb == MF_NO_TRANS) == (lay == MF_ROW_MAJOR);
        const int b_plain = v == 3 || v == 6;
        const size_t jb = rnd_below(N_BLOCK_CASES);
        const mf_format fb = b_plain ? MF_BF16 : BLOCK_CASES[jb].fmt;
        /* the stored arrays: R x C tensors with ld = C + pad */
        bop_make(&xa, BLOCK_CASES[_i].kind, fa, ra ? M : K, ra ? K : M, v == 5);
        if (b_plain)
            xb.rows = rb ? K : N, xb.cols = rb ? N : K;
        else
            bop_make(&xb, BLOCK_CASES[jb].kind, fb, rb ? K : N, rb ? N : K, 0);
        const size_t lda = xa.cols + (v & 4 ? 3 : 0), ldb = xb.cols + (v & 2 ? 5 : 0),
                     ldc = lay == MF_ROW_MAJOR ? N : M;
        memset(as, 0x77, sizeof as), memset(bs, 0x77, sizeof bs);
        for (size_t r = 0; r < xa.rows; r++)
            for (size_t q = 0; q < xa.cols; q++)
                put(as, fa, r * lda + q, get(xa.codes, fa, r * xa.cols + q));
        if (b_plain) {
            for (size_t e = 0; e < K * N; e++) {
                bplain[e] = (uint16_t)rnd_code(MF_BF16, 0);
                bplain_v[e] = (float)ref_decode(REF_BF16, bplain[e]);
            }
            for (size_t r = 0; r < xb.rows; r++)
                for (size_t q = 0; q < xb.cols; q++)
                    put(bs, fb, r * ldb + q, bplain[r * xb.cols + q]);
        } else {
            for (size_t r = 0; r < xb.rows; r++)
                for (size_t q = 0; q < xb.cols; q++)
                    put(bs, fb, r * ldb + q, get(xb.codes, fb, r * xb.cols + q));
        }
        mf_gemm_opts o;
        memset(&o, 0, sizeof o);
        o.scale_a = xa.s;
        if (!b_plain)
            o.scale_b = xb.s;
        o.threads = (int)(v % 4);
        for (int acc = 0; acc < 2; acc++) {
            if (acc == 1 && v != (_i % 8)) /* the exact accumulation on one variant a case */
                continue;
            o.accum = acc ? MF_ACCUM_EXACT : MF_ACCUM_FP32;
            mpfr_t sum, t;
            mpfr_init2(sum, 2048), mpfr_init2(t, 2048);
            for (size_t i = 0; i < M; i++)
                for (size_t j = 0; j < N; j++) {
                    float s = 0.0f;
                    mpfr_set_zero(sum, 1);
                    for (size_t p = 0; p < K; p++) {
                        const float va = xa.val[ra ? i * xa.cols + p : p * xa.cols + i];
                        const float vb = b_plain ? bplain_v[rb ? p * xb.cols + j : j * xb.cols + p]
                                                 : xb.val[rb ? p * xb.cols + j : j * xb.cols + p];
                        if (acc == 0) {
                            s = fmaf(va, vb, s);
                        } else if (!isnan(va) && !isnan(vb)) {
                            mpfr_set_flt(t, va, MPFR_RNDN);
                            mpfr_mul_d(t, t, (double)vb, MPFR_RNDN);
                            mpfr_add(sum, sum, t, MPFR_RNDN);
                        } else {
                            mpfr_set_nan(sum);
                        }
                    }
                    if (acc == 1)
                        s = mpfr_nan_p(sum) ? NAN : mpfr_get_flt(sum, MPFR_RNDN);
                    /* mf_gemm's NaN is 0x7FFFFFFF and an exact zero +0 */
                    want[at(lay, ldc, i, j)] = isnan(s) ? mf_test_bits_f32(0x7FFFFFFFu) : s == 0.0f ? 0.0f : s;
                }
            mpfr_clear(sum), mpfr_clear(t);
            memset(c, 0xFF, sizeof c);
            const int rc = mf_gemm(lay, ta, tb, M, N, K, 1.0f, as, fa, lda, bs, fb, ldb, 0.0f, c, MF_FP32, ldc, &o);
            MF_EXPECT(rc == MF_OK, "case %d variant %d: returned %d", _i, v, rc);
            for (size_t e = 0; e < M * N; e++)
                MF_EXPECT(mf_test_f32_bits(c[e]) == mf_test_f32_bits(want[e]),
                          "%s %s (%d) x %s (%s): variant %d, %s, element %zu is %a, expected %a", mf_format_name(fa),
                          "block", (int)BLOCK_CASES[_i].kind, mf_format_name(fb), b_plain ? "plain" : "block", v,
                          acc ? "exact" : "fp32", e, (double)c[e], (double)want[e]);
            n_checked += M * N;
        }
    }
    ck_assert_uint_ge(n_checked, 9 * M * N);
}
END_TEST

/* An exact zero sum is +0 in C whatever the signs of alpha and the tensor scales (the scaled store's rule, on whole
 * tiles and their edges), with one thread and two */
START_TEST(test_gemm_zero_sum_sign)
{
    enum { M = 13, N = 37, K = 8 };
    static float a[M * K], b[K * N], c[M * N];
    static const float ALPHA[3] = {-2.0f, 3.0f, -1.0f}, SA[3] = {1.0f, -0.5f, 0.25f};
    for (size_t q = 0; q < M * K; q++) /* each row: four 1s, then four -1s: every sum is 1 + 1 + 1 + 1 - 1 - 1 - 1 - 1 */
        a[q] = q % K < K / 2 ? 1.0f : -1.0f;
    for (size_t q = 0; q < K * N; q++)
        b[q] = 1.0f;
    for (int v = 0; v < 3; v++)
        for (int accum = MF_ACCUM_FP32; accum <= MF_ACCUM_EXACT; accum++)
            for (int threads = 1; threads <= 2; threads++) {
                mf_gemm_opts o;
                memset(&o, 0, sizeof o);
                o.accum = (mf_accum)accum, o.threads = threads;
                o.scale_a.kind = MF_GEMM_SCALE_TENSOR, o.scale_a.data = &SA[v];
                memset(c, 0xFF, sizeof c);
                ck_assert_int_eq(mf_gemm(MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, M, N, K, ALPHA[v], a, MF_FP32, K, b,
                                         MF_FP32, N, 0.0f, c, MF_FP32, N, &o),
                                 MF_OK);
                for (size_t e = 0; e < M * N; e++)
                    MF_EXPECT(mf_test_f32_bits(c[e]) == 0u, "alpha %g scale %g accum %d threads %d: C[%zu] is %a",
                              (double)ALPHA[v], (double)SA[v], accum, threads, e, (double)c[e]);
            }
}
END_TEST

/* Sums that are infinite or subnormal, as f32 and as bf16 operands (the fma and the pair kernels) with alpha = 1 and
 * beta = 0, where C is otherwise stored as the sums are: saturation turns each infinity into +-max, and every subnormal
 * sum is counted. Each row's sign alternates; the expected bits are worked out by hand. */
START_TEST(test_gemm_plain_specials)
{
    enum { M = 13, N = 37, K = 8 };
    static float a[M * K], b[K * N], c[M * N];
    static uint16_t a16[M * K], b16[K * N];
    for (int tiny = 0; tiny <= 1; tiny++) {
        /* 2^100 * 2^100 overflows binary32; eight products of 2^-70 * 2^-70 sum to 2^-137, code 0x1000 */
        const float v = tiny ? 0x1p-70f : 0x1p100f;
        const uint32_t want = tiny ? 0x00001000u : 0x7F7FFFFFu;
        for (size_t q = 0; q < M * K; q++)
            a[q] = q / K % 2 ? -v : v;
        for (size_t q = 0; q < K * N; q++)
            b[q] = v;
        for (size_t q = 0; q < M * K; q++) /* bf16 holds these powers of two exactly: the top half of the f32 bits */
            a16[q] = (uint16_t)(mf_test_f32_bits(a[q]) >> 16);
        for (size_t q = 0; q < K * N; q++)
            b16[q] = (uint16_t)(mf_test_f32_bits(b[q]) >> 16);
        for (int bf = 0; bf <= 1; bf++)
            for (int threads = 1; threads <= 2; threads++) {
                mf_gemm_opts o;
                mf_stats st;
                memset(&o, 0, sizeof o);
                o.accum = MF_ACCUM_FP32, o.threads = threads, o.overflow = MF_OVERFLOW_SATURATE, o.stats = &st;
                memset(c, 0xFF, sizeof c);
                ck_assert_int_eq(mf_gemm(MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, M, N, K, 1.0f,
                                         bf ? (const void *)a16 : a, bf ? MF_BF16 : MF_FP32, K,
                                         bf ? (const void *)b16 : b, bf ? MF_BF16 : MF_FP32, N, 0.0f, c, MF_FP32, N,
                                         &o),
                                 MF_OK);
                for (size_t e = 0; e < M * N; e++)
                    MF_EXPECT(mf_test_f32_bits(c[e]) == (want | (e / N % 2 ? 0x80000000u : 0u)),
                              "%s sums, %s operands, threads %d: C[%zu] is %a", tiny ? "subnormal" : "infinite",
                              bf ? "bf16" : "f32", threads, e, (double)c[e]);
                ck_assert_uint_eq(tiny ? st.subnormal : st.overflow, M * N);
            }
    }
}
END_TEST

/* Block kinds a format or an accumulation cannot take, and their shapes: MF_E_ARG, C untouched. */
START_TEST(test_gemm_block_scale_args)
{
    static unsigned char a[64 * 64], b[64 * 64];
    static float c[64 * 64], keep[64 * 64];
    static uint8_t sc[1024];
    static float fs[1024];
    memset(a, 0x11, sizeof a), memset(b, 0x22, sizeof b), memset(sc, 127, sizeof sc);
    for (int e = 0; e < 1024; e++)
        fs[e] = 1.0f;
    for (int e = 0; e < 64 * 64; e++)
        c[e] = -1.0f;
    memcpy(keep, c, sizeof c);
    mf_gemm_opts o;
#define CALL(fa, fb, m, n, k)                                                                                          \
    mf_gemm(MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, m, n, k, 1.0f, a, fa, k, b, fb, n, 0.0f, c, MF_FP32, n, &o)
#define BAD(code, fa, fb, m, n, k)                                                                                     \
    do {                                                                                                               \
        ck_assert_int_eq(CALL(fa, fb, m, n, k), code);                                                                 \
        ck_assert_mem_eq(c, keep, sizeof c);                                                                           \
    } while (0)
    memset(&o, 0, sizeof o);
    o.scale_a.kind = MF_GEMM_SCALE_BLOCK_1X128, o.scale_a.data = fs;
    BAD(MF_E_ARG, MF_FP4_E2M1, MF_FP32, 4, 4, 32); /* FP8 block scales take e4m3 / e5m2 only */
    BAD(MF_E_ARG, MF_BF16, MF_FP32, 4, 4, 32);
    o.accum = MF_ACCUM_H100;
    BAD(MF_E_ARG, MF_FP8_E4M3, MF_FP8_E4M3, 4, 4, 32); /* the models read the elements' own codes */
    o.accum = MF_ACCUM_FP32;
    ck_assert_int_eq(CALL(MF_FP8_E4M3, MF_FP32, 4, 4, 32), MF_OK);
    memcpy(c, keep, sizeof c);
    o.scale_a.data = NULL;
    BAD(MF_E_NULL, MF_FP8_E4M3, MF_FP32, 4, 4, 32);
    o.scale_a.data = c + 2; /* overlaps C */
    BAD(MF_E_OVERLAP, MF_FP8_E4M3, MF_FP32, 4, 4, 32);
    memset(&o, 0, sizeof o);
    o.scale_b.kind = MF_GEMM_SCALE_MX, o.scale_b.data = sc;
    BAD(MF_E_ARG, MF_FP32, MF_FP16, 4, 32, 32); /* MX elements: FP8, FP6, FP4 */
    o.scale_b.axis = MF_MX_ROWWISE;             /* B is k x n: rows of n = 20, not a multiple of 32 */
    BAD(MF_E_ARG, MF_FP32, MF_FP8_E4M3, 4, 20, 32);
    o.scale_b.axis = MF_MX_COLWISE; /* columns of k = 48 */
    BAD(MF_E_ARG, MF_FP32, MF_FP8_E4M3, 4, 32, 48);
    ck_assert_int_eq(CALL(MF_FP32, MF_FP8_E4M3, 4, 20, 64), MF_OK);
    memcpy(c, keep, sizeof c);
    o.scale_b.axis = (mf_mx_axis)2;
    BAD(MF_E_ARG, MF_FP32, MF_FP8_E4M3, 4, 32, 64);
    o.scale_b.axis = (mf_mx_axis)-1;
    BAD(MF_E_ARG, MF_FP32, MF_FP8_E4M3, 4, 32, 64);
    o.scale_b.kind = MF_GEMM_SCALE_NVFP4, o.scale_b.axis = MF_MX_ROWWISE;
    BAD(MF_E_ARG, MF_FP32, MF_FP8_E4M3, 4, 32, 64); /* NVFP4: e2m1 only */
    BAD(MF_E_ARG, MF_FP32, MF_FP4_E2M1, 4, 24, 64); /* rows of 24 */
    ck_assert_int_eq(CALL(MF_FP32, MF_FP4_E2M1, 4, 16, 64), MF_OK);
#undef BAD
#undef CALL
}
END_TEST

int main(void)
{
    /* MF_GEMM_EXPECT=name (tests/gemm.cmake sets it with MF_BACKEND): this run is that backend's kernel */
    const char *want = getenv("MF_GEMM_EXPECT");
    if (want && strcmp(want, mf_backend()) != 0) {
        printf("SKIP: backend %s asked, this CPU runs %s\n", want, mf_backend());
        return 77;
    }
    printf("backend: %s\n", mf_backend());
    Suite *s = suite_create("gemm");
    TCase *tc = tcase_create("gemm");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_gemm_against_reference, 0, N_ELEM_FMTS * N_ELEM_FMTS);
    tcase_add_loop_test(tc, test_gemm_blocks, 0, 4); /* layouts x transposes: each of the four kinds */
    tcase_add_test(tc, test_gemm_integers_exact);
    tcase_add_test(tc, test_gemm_specials);
    tcase_add_test(tc, test_gemm_zero_sum_sign);
    tcase_add_test(tc, test_gemm_plain_specials);
    tcase_add_test(tc, test_gemm_sr_f32);
    tcase_add_test(tc, test_gemm_environment);
    tcase_add_test(tc, test_gemm_bad_args);
    tcase_add_loop_test(tc, test_gemm_block_scales, 0, (int)N_BLOCK_CASES);
    tcase_add_test(tc, test_gemm_block_scale_args);
    suite_add_tcase(s, tc);
    return mf_run_suite(s);
}
