/* SPDX-License-Identifier: MIT */
/* tests/test_gemm_exact.c - MF_ACCUM_EXACT's integer path (src/gemm/exact_int.c) against an independent reference.
 *
 * The narrow pairs of {e2m1, e2m3, e3m2} run on integer kernels (the backend's: one ctest per backend through
 * MF_BACKEND); pairs with e4m3 or e5m2, NaN/inf inputs, scales the integer path does not take and MX blocks
 * that are not exact go the element-by-element path. Every one must equal the reference: elements decoded by the
 * oracle's tables (MX: the binary32 product of the element and 2^(code - 127), formed in binary64 and rounded
 * once), the exact alpha * sa * sb * sum(a * b) + beta * c in MPFR at 4096 bits, rounded to odd at 53 bits and
 * then into C's format by the oracle's textbook rounding. Shapes: k not a multiple of the kernels' groups,
 * k long enough to need the int64 carry, every rounding mode and policy, stats, 1, 2 and 3 threads.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpfr.h>

#include <minifloat.h>

#include "mf_test.h"
#include "oracle/ref.h"

#define GEMM_TEST_SEED 0x243F6A8885A308D3ull
#include "gemm_test.h"


static const mf_format FMTS[] = {MF_FP4_E2M1, MF_FP6_E2M3, MF_FP6_E3M2, MF_FP8_E4M3, MF_FP8_E5M2};
#define N_FMTS 5
static const mf_format C_FMTS[] = {MF_FP32, MF_FP16, MF_BF16};

static ref_format ref_of(mf_format f)
{
    switch (f) {
    case MF_FP32: return REF_F32;
    case MF_FP16: return REF_F16;
    case MF_BF16: return REF_BF16;
    case MF_FP8_E4M3: return REF_E4M3;
    case MF_FP8_E5M2: return REF_E5M2;
    case MF_FP6_E2M3: return REF_E2M3;
    case MF_FP6_E3M2: return REF_E3M2;
    default: return REF_E2M1;
    }
}
static int code_bits(mf_format f)
{
    return f == MF_FP32 ? 32 : f == MF_FP16 || f == MF_BF16 ? 16 : f == MF_FP4_E2M1 ? 4 : f == MF_FP8_E4M3 || f == MF_FP8_E5M2 ? 8 : 6;
}


/* a random code of f: finite unless specials (then inf/NaN codes sometimes); max: the largest magnitude */
static uint32_t rnd_code(mf_format f, int specials, int max)
{
    const uint32_t mask = (1u << code_bits(f)) - 1u;
    for (;;) {
        uint32_t c = (uint32_t)rnd() & mask;
        if (max) { /* the largest finite magnitude, random sign */
            for (c = mask >> 1; !isfinite(ref_decode(ref_of(f), c)); c--)
                ;
            return c | (rnd() & 1 ? (mask + 1) >> 1 : 0);
        }
        if (specials || isfinite(ref_decode(ref_of(f), c)))
            return c;
    }
}


/* ---- one case -------------------------------------------------------------------------------------------- */
typedef struct xcase {
    mf_layout layout;
    mf_trans ta, tb;
    size_t m, n, k, lda, ldb, ldc;
    float alpha, beta;
    mf_format fa, fb, fc;
    mf_gemm_opts o;
    int mx_a, mx_b; /* MX scales along k (axis from the stored layout) */
} xcase;

enum { MAXM = 40, MAXN = 40, MAXK = 300000 };
static unsigned char *A, *B, *Cbuf, *Cref, *SA, *SB;
static uint32_t *CA, *CB; /* op(A) codes m x k, op(B) codes k x n */
static float SAV[MAXM], SBV[MAXN];
static unsigned long n_checked;

static size_t at(mf_layout l, size_t ld, size_t r, size_t c) { return l == MF_ROW_MAJOR ? r * ld + c : r + c * ld; }

static double scale_of(const mf_gemm_scale *s, const float *v, size_t idx)
{
    if (s->kind == MF_GEMM_SCALE_TENSOR)
        return v[0];
    if (s->kind == MF_GEMM_SCALE_VECTOR)
        return v[idx];
    return 1.0;
}

/* the value of op(X)'s element with code c and MX code q (q < 0: none) */
static double elem(mf_format f, uint32_t c, int q)
{
    const double v = ref_decode(ref_of(f), c);
    if (q < 0)
        return v;
    if (q == 0xFF)
        return NAN;
    return (double)(float)(v * ldexp(1.0, q - 127)); /* exact in binary64, then rounded once to binary32 */
}

static void run_case(xcase *g, const int *qa, const int *qb)
{
    mpfr_t acc, t;
    mf_stats st, want;
    char what[300];
    const int products = g->k > 0 && g->alpha != 0.0f;
    const size_t cbytes = (g->layout == MF_ROW_MAJOR ? g->m * g->ldc : g->n * g->ldc) * 4 + 8;
    snprintf(what, sizeof what,
             "%s %s%s m=%zu n=%zu k=%zu %s x %s -> %s alpha=%g beta=%g round %d ovf %d thr %d mx %d%d",
             g->layout == MF_ROW_MAJOR ? "row" : "col", g->ta ? "T" : "N", g->tb ? "T" : "N", g->m, g->n, g->k,
             mf_format_name(g->fa), mf_format_name(g->fb), mf_format_name(g->fc), (double)g->alpha, (double)g->beta,
             (int)g->o.round, (int)g->o.overflow, g->o.threads, g->mx_a, g->mx_b);
    mpfr_init2(acc, 4096), mpfr_init2(t, 4096);
    memset(&want, 0, sizeof want);
    memcpy(Cref, Cbuf, cbytes);
    for (size_t i = 0; i < g->m; i++)
        for (size_t j = 0; j < g->n; j++) {
            mpfr_set_zero(acc, 1);
            if (products) {
                for (size_t p = 0; p < g->k; p++) {
                    mpfr_set_d(t, elem(g->fa, CA[i * g->k + p], qa ? qa[i * (g->k / 32) + p / 32] : -1), MPFR_RNDN);
                    mpfr_mul_d(t, t, elem(g->fb, CB[p * g->n + j], qb ? qb[j * (g->k / 32) + p / 32] : -1), MPFR_RNDN);
                    mpfr_add(acc, acc, t, MPFR_RNDN);
                }
                mpfr_mul_d(acc, acc, g->alpha, MPFR_RNDN);
                mpfr_mul_d(acc, acc, scale_of(&g->o.scale_a, SAV, i), MPFR_RNDN);
                mpfr_mul_d(acc, acc, scale_of(&g->o.scale_b, SBV, j), MPFR_RNDN);
            }
            ref_round_c(Cref, g->fc, at(g->layout, g->ldc, i, j), acc, g->beta,
                        get(Cbuf, g->fc, at(g->layout, g->ldc, i, j)), &g->o, i, j, g->n, &want);
        }
    mpfr_clear(acc), mpfr_clear(t);
    g->o.stats = rnd() & 1 ? &st : NULL;
    const int r = mf_gemm(g->layout, g->ta, g->tb, g->m, g->n, g->k, g->alpha, A, g->fa, g->lda, B, g->fb, g->ldb,
                          g->beta, Cbuf, g->fc, g->ldc, &g->o);
    MF_EXPECT(r == MF_OK, "%s: returned %d", what, r);
    for (size_t i = 0; i < g->m; i++)
        for (size_t j = 0; j < g->n; j++) {
            const size_t e = at(g->layout, g->ldc, i, j);
            MF_EXPECT(get(Cbuf, g->fc, e) == get(Cref, g->fc, e), "%s: C(%zu,%zu) = 0x%x, expected 0x%x", what, i, j,
                      get(Cbuf, g->fc, e), get(Cref, g->fc, e));
        }
    MF_EXPECT(memcmp(Cbuf, Cref, cbytes) == 0, "%s: bytes outside C written", what);
    if (g->o.stats)
        MF_EXPECT(!memcmp(&st, &want, sizeof st), "%s: stats %lu %lu %lu %lu %lu, expected %lu %lu %lu %lu %lu", what,
                  (unsigned long)st.overflow, (unsigned long)st.underflow, (unsigned long)st.subnormal,
                  (unsigned long)st.nan, (unsigned long)st.inexact, (unsigned long)want.overflow,
                  (unsigned long)want.underflow, (unsigned long)want.subnormal, (unsigned long)want.nan,
                  (unsigned long)want.inexact);
    n_checked += g->m * g->n;
}

/* Store op(A), op(B) (codes CA, CB) and a random C into the arrays of case g, and the MX scales: qa / qb hold
 * each (line, block)'s code; SA / SB the arrays in the stored layout (blocks along k). */
static void store(xcase *g, int *qa, int *qb)
{
    const int ra = (g->ta == MF_NO_TRANS) == (g->layout == MF_ROW_MAJOR); /* stored A row-major m x k */
    const int rb = (g->tb == MF_NO_TRANS) == (g->layout == MF_ROW_MAJOR); /* stored B row-major k x n */
    const size_t nbk = g->k / 32;
    for (size_t i = 0; i < g->m; i++)
        for (size_t p = 0; p < g->k; p++)
            put(A, g->fa, g->ta == MF_NO_TRANS ? at(g->layout, g->lda, i, p) : at(g->layout, g->lda, p, i),
                CA[i * g->k + p]);
    for (size_t p = 0; p < g->k; p++)
        for (size_t j = 0; j < g->n; j++)
            put(B, g->fb, g->tb == MF_NO_TRANS ? at(g->layout, g->ldb, p, j) : at(g->layout, g->ldb, j, p),
                CB[p * g->n + j]);
    if (g->mx_a) { /* stored A: rows m x cols k (ra) or rows k x cols m; blocks along k */
        g->o.scale_a.kind = MF_GEMM_SCALE_MX, g->o.scale_a.data = SA;
        g->o.scale_a.axis = ra ? MF_MX_ROWWISE : MF_MX_COLWISE;
        for (size_t i = 0; i < g->m; i++)
            for (size_t q = 0; q < nbk; q++)
                SA[ra ? i * nbk + q : q * g->m + i] = (unsigned char)qa[i * nbk + q];
    }
    if (g->mx_b) { /* stored B: rows k x cols n (rb), blocks down the columns; or rows n x cols k */
        g->o.scale_b.kind = MF_GEMM_SCALE_MX, g->o.scale_b.data = SB;
        g->o.scale_b.axis = rb ? MF_MX_COLWISE : MF_MX_ROWWISE;
        for (size_t j = 0; j < g->n; j++)
            for (size_t q = 0; q < nbk; q++)
                SB[rb ? q * g->n + j : j * nbk + q] = (unsigned char)qb[j * nbk + q];
    }
}

static const float ALPHAS[] = {1.0f, -1.0f, 0.375f, 3.0e-3f, 1.0e30f, 0x1p-140f, 0.0f, INFINITY};
static const float BETAS[] = {0.0f, 1.0f, -0.5f, 1.0e-30f, NAN};
static const float SCALES[] = {0.5f, 2.0f, -3.0f, 0x1p-130f, 0x1p100f, 0.0f, INFINITY, NAN, 1.0f, 1.0f};

static int QA[MAXM * (MAXK / 32 + 1)], QB[MAXN * (MAXK / 32 + 1)];

/* a random MX scale code: mostly moderate, sometimes at the edges (0, tiny, huge, 0xFF NaN) */
static int rnd_q(int edges)
{
    static const int EDGE[] = {0, 1, 10, 20, 127, 200, 250, 253, 254, 255};
    return edges && rnd_below(8) == 0 ? EDGE[rnd_below(10)] : 110 + (int)rnd_below(30);
}

static void random_case(mf_format fa, mf_format fb, int long_k)
{
    xcase g;
    memset(&g, 0, sizeof g);
    g.layout = rnd() & 1 ? MF_ROW_MAJOR : MF_COL_MAJOR;
    g.ta = rnd() & 1 ? MF_TRANS : MF_NO_TRANS, g.tb = rnd() & 1 ? MF_TRANS : MF_NO_TRANS;
    g.fa = fa, g.fb = fb, g.fc = C_FMTS[rnd_below(3)];
    g.m = 1 + rnd_below(long_k ? 3 : MAXM), g.n = 1 + rnd_below(long_k ? 3 : MAXN);
    const int mx = !long_k && rnd_below(3) == 0;
    g.k = long_k ? (size_t)long_k : mx ? 32 * (1 + rnd_below(6)) : 1 + rnd_below(130);
    const size_t ar = g.ta == MF_NO_TRANS ? g.m : g.k, ac = g.ta == MF_NO_TRANS ? g.k : g.m;
    const size_t br = g.tb == MF_NO_TRANS ? g.k : g.n, bc = g.tb == MF_NO_TRANS ? g.n : g.k;
    const int pad = rnd_below(3) == 0;
    g.lda = (g.layout == MF_ROW_MAJOR ? ac : ar) + (pad && !mx ? rnd_below(3) : 0);
    g.ldb = (g.layout == MF_ROW_MAJOR ? bc : br) + (pad && !mx ? rnd_below(3) : 0);
    g.ldc = (g.layout == MF_ROW_MAJOR ? g.n : g.m) + (pad ? rnd_below(3) : 0);
    g.alpha = long_k || rnd_below(3) ? 1.0f : ALPHAS[rnd_below(8)];
    g.beta = long_k || rnd_below(2) ? 0.0f : BETAS[rnd_below(5)];
    g.o.accum = MF_ACCUM_EXACT;
    g.o.round = (mf_round)rnd_below(MF_ROUND_COUNT);
    if (g.o.round == MF_ROUND_STOCHASTIC && g.fc == MF_FP32) /* f32's 32 random bits see past ro53: f16 */
        g.fc = MF_FP16;
    g.o.overflow = (mf_overflow)rnd_below(MF_OVERFLOW_COUNT);
    g.o.seed = rnd(), g.o.sr_offset = rnd_below(1000);
    g.o.threads = 1 + (int)rnd_below(3);
    const int specials = rnd_below(6) == 0; /* NaN / inf codes of e4m3 and e5m2 */
    const int maxed = long_k || rnd_below(8) == 0;
    for (size_t q = 0; q < g.m * g.k; q++)
        CA[q] = rnd_code(fa, specials, maxed);
    for (size_t q = 0; q < g.k * g.n; q++)
        CB[q] = rnd_code(fb, specials, maxed);
    if (long_k) /* every product at its largest and of one sign: the int32 lanes must carry into int64 */
        for (size_t q = 0; q < g.m * g.k; q++)
            CA[q] &= (1u << (code_bits(fa) - 1)) - 1;
    if (long_k)
        for (size_t q = 0; q < g.k * g.n; q++)
            CB[q] &= (1u << (code_bits(fb) - 1)) - 1;
    if (mx) {
        const int edges = rnd_below(3) == 0;
        g.mx_a = (int)rnd_below(3) != 0, g.mx_b = (int)rnd_below(3) != 0;
        if (!g.mx_a && !g.mx_b)
            g.mx_a = 1;
        for (size_t q = 0; q < g.m * (g.k / 32); q++)
            QA[q] = rnd_q(edges);
        for (size_t q = 0; q < g.n * (g.k / 32); q++)
            QB[q] = rnd_q(edges);
    } else if (rnd_below(3) == 0) { /* tensor / vector scales, specials among them */
        g.o.scale_a.kind = rnd() & 1 ? MF_GEMM_SCALE_TENSOR : MF_GEMM_SCALE_VECTOR;
        g.o.scale_b.kind = rnd() & 1 ? MF_GEMM_SCALE_TENSOR : MF_GEMM_SCALE_NONE;
        for (size_t i = 0; i < MAXM; i++)
            SAV[i] = SCALES[rnd_below(10)];
        for (size_t j = 0; j < MAXN; j++)
            SBV[j] = SCALES[rnd_below(10)];
        g.o.scale_a.data = SAV, g.o.scale_b.data = SBV;
    }
    { /* C: random codes of fc (beta reads them) */
        const size_t cn = (g.layout == MF_ROW_MAJOR ? g.m * g.ldc : g.n * g.ldc);
        memset(Cbuf, 0xA5, cn * 4 + 8);
        for (size_t i = 0; i < g.m; i++)
            for (size_t j = 0; j < g.n; j++)
                put(Cbuf, g.fc, at(g.layout, g.ldc, i, j),
                    g.fc == MF_FP32 ? ((uint32_t)rnd() & 0x3FFFFFFFu) : ((uint32_t)rnd() & 0x3FFFu));
    }
    store(&g, g.mx_a ? QA : NULL, g.mx_b ? QB : NULL);
    run_case(&g, g.mx_a ? QA : NULL, g.mx_b ? QB : NULL);
}

START_TEST(test_exact_pairs)
{
    const mf_format fa = FMTS[_i / N_FMTS], fb = FMTS[_i % N_FMTS];
    rng_state ^= (uint64_t)_i * 0x9E3779B97F4A7C15ull;
    const unsigned long before = n_checked;
    for (int rep = 0; rep < 60; rep++)
        random_case(fa, fb, 0);
    ck_assert_uint_ge(n_checked - before, 60); /* every case compared at least one element */
}
END_TEST

/* k long enough that the int32 lanes must be carried into int64 (int16 pairs: past 8192 k; int8: past 262144
 * k), every product at its largest magnitude and of one sign; and e4m3 x e4m3 on the element path */
START_TEST(test_exact_long_k)
{
    unsigned long i = 0; /* MF_TEST_SAMPLE (the qemu and ASan tiers): one of these a day, all of them natively */
    if (mf_test_take(&i))
        random_case(MF_FP6_E3M2, MF_FP6_E3M2, 70000);
    if (mf_test_take(&i))
        random_case(MF_FP6_E3M2, MF_FP4_E2M1, 20000);
    if (mf_test_take(&i))
        random_case(MF_FP6_E2M3, MF_FP6_E2M3, 300000);
    if (mf_test_take(&i))
        random_case(MF_FP8_E4M3, MF_FP8_E4M3, 70000);
}
END_TEST

int main(void)
{
    A = malloc(8 * MAXK), B = malloc(8 * MAXK); /* the largest stored matrix: 3 x 300000 with padding */
    Cbuf = malloc(4 * 64 * 64), Cref = malloc(4 * 64 * 64), SA = malloc(MAXM * MAXK / 32 + 64),
    SB = malloc(MAXN * MAXK / 32 + 64);
    CA = malloc(sizeof(uint32_t) * 4 * MAXK), CB = malloc(sizeof(uint32_t) * 4 * MAXK);
    if (!A || !B || !Cbuf || !Cref || !SA || !SB || !CA || !CB)
        return 99;
    /* MF_GEMM_EXPECT=name (tests/gemm.cmake sets it with MF_BACKEND): this run is that backend's kernels */
    const char *want = getenv("MF_GEMM_EXPECT");
    if (want && strcmp(want, mf_backend()) != 0) {
        printf("SKIP: backend %s asked, this CPU runs %s\n", want, mf_backend());
        return 77;
    }
    printf("backend: %s\n", mf_backend());
    Suite *s = suite_create("gemm_exact");
    TCase *tc = tcase_create("gemm_exact");
    tcase_set_timeout(tc, 240);
    tcase_add_loop_test(tc, test_exact_pairs, 0, N_FMTS * N_FMTS);
    tcase_add_test(tc, test_exact_long_k);
    suite_add_tcase(s, tc);
    return mf_run_suite(s);
}
