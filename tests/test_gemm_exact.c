/* SPDX-License-Identifier: MIT */
/* tests/test_gemm_exact.c - MF_ACCUM_EXACT's integer path (src/gemm/exact_int.c) against an independent reference.
 *
 * The narrow pairs of {e2m1, e2m3, e3m2} run on integer kernels (the backend's: one ctest per backend through
 * MF_BACKEND); pairs with e4m3 or e5m2, NaN/inf inputs, scales the integer path does not take and MX blocks
 * that are not exact go the element-by-element path. Every one must equal the reference: elements decoded by the
 * oracle's tables (MX: the binary32 product of the element and 2^(code - 127), formed in binary64 and rounded
 * once), the exact alpha * sa * sb * sum(a * b) + beta * c in MPFR at 4096 bits, rounded to odd at 53 bits and
 * then into C's format by the oracle's textbook rounding. Shapes: k not a multiple of the kernels' groups,
 * k long enough to need the int64 carry, every rounding mode and policy, stats, 1, 2 and 3 threads; MX scales
 * whose exponents spread little (summed in int32 by the MX kernels) and much (one block at a time in int64).
 * Each integer kernel this CPU runs is also tested alone on the bounds its caller keeps (exact_int.h): the 16-bit
 * run (span) and the int32 chunk with every product at its largest, the MX kernels' int32 chunk of shifted blocks,
 * and through the driver against MPFR with the MX kernel's use counted.
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
#include "../src/gemm/exact_int.h" /* the integer kernels and their driver (private), each tested on its bounds */

#define GEMM_TEST_SEED 0x243F6A8885A308D3ull
#include "gemm_test.h"


static const mf_format FMTS[] = {MF_FP4_E2M1, MF_FP6_E2M3, MF_FP6_E3M2, MF_FP8_E4M3, MF_FP8_E5M2};
#define N_FMTS 5
static const mf_format C_FMTS[] = {MF_FP32, MF_FP16, MF_BF16};

/* acc += a * b, exactly. Every element here is a binary32 value (24-bit significands), so a * b is exact in binary64
 * unless it leaves binary64's normal range: fma's residual (exact where the product is normal and not tiny) proves
 * it; acc is wide enough for every sum here and MPFR's ternary value proves the addition exact, so a too narrow
 * reference fails instead of rounding. t is the wider product's room where a product is not exact in binary64. */
static void acc_add_prod(mpfr_t acc, mpfr_t t, double a, double b)
{
    const double p = a * b;
    int inexact;
    if (p != 0.0 && fabs(p) >= 0x1p-969 && fabs(p) <= 0x1p1000 && fma(a, b, -p) == 0.0) {
        inexact = mpfr_add_d(acc, acc, p, MPFR_RNDN);
    } else if (p == 0.0 && (a == 0.0 || b == 0.0)) {
        inexact = 0;
    } else {
        inexact = mpfr_set_d(t, a, MPFR_RNDN);
        inexact |= mpfr_mul_d(t, t, b, MPFR_RNDN);
        inexact |= mpfr_add(acc, acc, t, MPFR_RNDN);
    }
    MF_EXPECT(inexact == 0, "the MPFR reference rounded (%a * %a)", a, b);
}

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
    int nv;         /* ... NVFP4 scales instead (e4m3 codes per 16, amax) */
    float amax_a, amax_b;
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

/* an NVFP4 block's scale, as docs/gemm.md defines it: e4m3(q) * amax * (1 / 2688), each step in binary32 */
static float nv_scale(int q, float amax)
{
    const float inv = 1.0f / 2688.0f, e = (float)ref_decode(REF_E4M3, (uint32_t)q);
    volatile float t = e * amax; /* one rounding per product */
    return t * inv;
}

/* the value of an e2m1 element with code c in an NVFP4 block of scale code q */
static double elem_nv(uint32_t c, int q, float amax)
{
    return (double)(float)(ref_decode(REF_E2M1, c) * (double)nv_scale(q, amax)); /* x * s exact in binary64 */
}

static void run_case(xcase *g, const int *qa, const int *qb)
{
    mpfr_t acc, t;
    mf_stats st, want;
    char what[300];
    const int products = g->k > 0 && g->alpha != 0.0f;
    const size_t cbytes = (g->layout == MF_ROW_MAJOR ? g->m * g->ldc : g->n * g->ldc) * 4 + 8;
    snprintf(what, sizeof what,
             "%s %s%s m=%zu n=%zu k=%zu %s x %s -> %s alpha=%g beta=%g round %d ovf %d thr %d mx %d%d nv %d (%a %a)",
             g->layout == MF_ROW_MAJOR ? "row" : "col", g->ta ? "T" : "N", g->tb ? "T" : "N", g->m, g->n, g->k,
             mf_format_name(g->fa), mf_format_name(g->fb), mf_format_name(g->fc), (double)g->alpha, (double)g->beta,
             (int)g->o.round, (int)g->o.overflow, g->o.threads, g->mx_a, g->mx_b, g->nv, (double)g->amax_a,
             (double)g->amax_b);
    mpfr_init2(acc, 4096), mpfr_init2(t, 128);
    memset(&want, 0, sizeof want);
    memcpy(Cref, Cbuf, cbytes);
    for (size_t i = 0; i < g->m; i++)
        for (size_t j = 0; j < g->n; j++) {
            mpfr_set_zero(acc, 1);
            if (products) {
                for (size_t p = 0; p < g->k; p++) {
                    const size_t L = g->nv ? 16 : 32, nb = g->k / L;
                    const double ea = g->nv && qa ? elem_nv(CA[i * g->k + p], qa[i * nb + p / L], g->amax_a)
                                                  : elem(g->fa, CA[i * g->k + p], qa ? qa[i * nb + p / L] : -1);
                    const double eb = g->nv && qb ? elem_nv(CB[p * g->n + j], qb[j * nb + p / L], g->amax_b)
                                                  : elem(g->fb, CB[p * g->n + j], qb ? qb[j * nb + p / L] : -1);
                    acc_add_prod(acc, t, ea, eb);
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
    const size_t nbk = g->k / (g->nv ? 16 : 32);
    const mf_gemm_scale_kind kind = g->nv ? MF_GEMM_SCALE_NVFP4 : MF_GEMM_SCALE_MX;
    for (size_t i = 0; i < g->m; i++)
        for (size_t p = 0; p < g->k; p++)
            put(A, g->fa, g->ta == MF_NO_TRANS ? at(g->layout, g->lda, i, p) : at(g->layout, g->lda, p, i),
                CA[i * g->k + p]);
    for (size_t p = 0; p < g->k; p++)
        for (size_t j = 0; j < g->n; j++)
            put(B, g->fb, g->tb == MF_NO_TRANS ? at(g->layout, g->ldb, p, j) : at(g->layout, g->ldb, j, p),
                CB[p * g->n + j]);
    if (g->mx_a) { /* stored A: rows m x cols k (ra) or rows k x cols m; blocks along k */
        g->o.scale_a.kind = kind, g->o.scale_a.data = SA, g->o.scale_a.amax = g->amax_a;
        g->o.scale_a.axis = ra ? MF_MX_ROWWISE : MF_MX_COLWISE;
        for (size_t i = 0; i < g->m; i++)
            for (size_t q = 0; q < nbk; q++)
                SA[ra ? i * nbk + q : q * g->m + i] = (unsigned char)qa[i * nbk + q];
    }
    if (g->mx_b) { /* stored B: rows k x cols n (rb), blocks down the columns; or rows n x cols k */
        g->o.scale_b.kind = kind, g->o.scale_b.data = SB, g->o.scale_b.amax = g->amax_b;
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

/* a random C of fc (beta reads it), then case g stored and checked (QA / QB: the block scale codes) */
static void fill_and_run(xcase *g)
{
    const size_t cn = (g->layout == MF_ROW_MAJOR ? g->m * g->ldc : g->n * g->ldc);
    memset(Cbuf, 0xA5, cn * 4 + 8);
    for (size_t i = 0; i < g->m; i++)
        for (size_t j = 0; j < g->n; j++)
            put(Cbuf, g->fc, at(g->layout, g->ldc, i, j),
                g->fc == MF_FP32 ? ((uint32_t)rnd() & 0x3FFFFFFFu) : ((uint32_t)rnd() & 0x3FFFu));
    store(g, g->mx_a ? QA : NULL, g->mx_b ? QB : NULL);
    run_case(g, g->mx_a ? QA : NULL, g->mx_b ? QB : NULL);
}

/* narrow > 0: MX scales on both sides, codes in [base, base + narrow - 1] (the exponents' spread is at most
 * 2 (narrow - 1): the MX kernels' int32 chunks, up to and past the spread where one block no longer fits) */
static void random_case_x(mf_format fa, mf_format fb, int long_k, int narrow);
static void random_case(mf_format fa, mf_format fb, int long_k) { random_case_x(fa, fb, long_k, 0); }

static void random_case_x(mf_format fa, mf_format fb, int long_k, int narrow)
{
    xcase g;
    memset(&g, 0, sizeof g);
    g.layout = rnd() & 1 ? MF_ROW_MAJOR : MF_COL_MAJOR;
    g.ta = rnd() & 1 ? MF_TRANS : MF_NO_TRANS, g.tb = rnd() & 1 ? MF_TRANS : MF_NO_TRANS;
    g.fa = fa, g.fb = fb, g.fc = C_FMTS[rnd_below(3)];
    g.m = 1 + rnd_below(long_k ? 3 : MAXM), g.n = 1 + rnd_below(long_k ? 3 : MAXN);
    const int mx = narrow || (!long_k && rnd_below(3) == 0);
    g.k = long_k ? (size_t)long_k : mx ? 32 * (1 + rnd_below(6)) : 1 + rnd_below(130);
    const size_t ar = g.ta == MF_NO_TRANS ? g.m : g.k, ac = g.ta == MF_NO_TRANS ? g.k : g.m;
    const size_t br = g.tb == MF_NO_TRANS ? g.k : g.n, bc = g.tb == MF_NO_TRANS ? g.n : g.k;
    const int pad = rnd_below(3) == 0;
    g.lda = (g.layout == MF_ROW_MAJOR ? ac : ar) + (pad && !mx ? rnd_below(3) : 0);
    g.ldb = (g.layout == MF_ROW_MAJOR ? bc : br) + (pad && !mx ? rnd_below(3) : 0);
    g.ldc = (g.layout == MF_ROW_MAJOR ? g.n : g.m) + (pad ? rnd_below(3) : 0);
    g.alpha = long_k || narrow || rnd_below(3) ? 1.0f : ALPHAS[rnd_below(8)];
    g.beta = long_k || rnd_below(2) ? 0.0f : BETAS[rnd_below(5)];
    g.o.accum = MF_ACCUM_EXACT;
    g.o.round = (mf_round)rnd_below(MF_ROUND_COUNT);
    if (g.o.round == MF_ROUND_STOCHASTIC && g.fc == MF_FP32) /* f32's 32 random bits see past ro53: f16 */
        g.fc = MF_FP16;
    g.o.overflow = (mf_overflow)rnd_below(MF_OVERFLOW_PROPAGATE) /* the two policies mf_gemm takes */;
    g.o.seed = rnd(), g.o.sr_offset = rnd_below(1000);
    g.o.threads = 1 + (int)rnd_below(3);
    const int specials = rnd_below(6) == 0; /* NaN / inf codes of e4m3 and e5m2 */
    const int maxed = long_k || rnd_below(8) == 0 || (narrow && rnd() & 1);
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
    if (mx && narrow) {
        const int base = 110 + (int)rnd_below(20);
        g.mx_a = g.mx_b = 1;
        for (size_t q = 0; q < g.m * (g.k / 32); q++)
            QA[q] = base + (int)rnd_below((size_t)narrow);
        for (size_t q = 0; q < g.n * (g.k / 32); q++)
            QB[q] = base + (int)rnd_below((size_t)narrow);
    } else if (mx) {
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
    fill_and_run(&g);
}

START_TEST(test_exact_pairs)
{
    const mf_format fa = FMTS[_i / N_FMTS], fb = FMTS[_i % N_FMTS];
    rng_state ^= (uint64_t)_i * 0x9E3779B97F4A7C15ull;
    const unsigned long before = n_checked;
    unsigned long i = 0, taken = 0; /* MF_TEST_SAMPLE (the sanitizer and qemu tiers): one case in k */
    for (int rep = 0; rep < 60; rep++)
        if (mf_test_take(&i))
            random_case(fa, fb, 0), taken++;
    ck_assert_uint_ge(n_checked - before, taken); /* every case compared at least one element */
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
    if (mf_test_take(&i)) /* int8 pairs whose pair sums an int16 lane adds span times (AVX2), at their largest */
        random_case(MF_FP4_E2M1, MF_FP4_E2M1, 70000);
    if (mf_test_take(&i))
        random_case(MF_FP4_E2M1, MF_FP6_E2M3, 20000);
    if (mf_test_take(&i))
        random_case(MF_FP6_E2M3, MF_FP4_E2M1, 20000);
}
END_TEST

/* an NVFP4 scale code: mostly a normal e4m3 scale, sometimes zero, subnormal, negative, the largest, or NaN */
static int rnd_nvq(void)
{
    static const int EDGE[] = {0x00, 0x01, 0x07, 0x08, 0x7E, 0x7F, 0xFF, 0x80, 0xB8, 0xFE};
    return rnd_below(10) == 0 ? EDGE[rnd_below(10)] : 0x20 + (int)rnd_below(0x40);
}

/* a tensor's amax: moderate with a full significand mostly, sometimes one that makes the scales subnormal, their
 * sixfold overflow, or NaN, inf, zero, negative */
static float rnd_amax(void)
{
    static const float EDGE[] = {1.0f, 6.0f, 1e-36f, 1e-42f, 1e36f, 3e38f, 0.0f, -2.5f, INFINITY, NAN};
    if (rnd_below(6) == 0)
        return EDGE[rnd_below(10)];
    return (float)ldexp(1.0 + (double)(rnd() >> 11) * 0x1p-53, (int)rnd_below(40) - 20);
}

/* NVFP4 scales along k on one side or both (the other e2m1, e2m3 or e3m2 without block scales) */
static void nv_case(void)
{
    static const mf_format XF[] = {MF_FP4_E2M1, MF_FP6_E2M3, MF_FP6_E3M2};
    xcase g;
    memset(&g, 0, sizeof g);
    g.layout = rnd() & 1 ? MF_ROW_MAJOR : MF_COL_MAJOR;
    g.ta = rnd() & 1 ? MF_TRANS : MF_NO_TRANS, g.tb = rnd() & 1 ? MF_TRANS : MF_NO_TRANS;
    g.nv = 1;
    g.mx_a = (int)rnd_below(3) != 0, g.mx_b = !g.mx_a || rnd_below(3) != 0;
    g.fa = g.mx_a ? MF_FP4_E2M1 : XF[rnd_below(3)], g.fb = g.mx_b ? MF_FP4_E2M1 : XF[rnd_below(3)];
    g.fc = C_FMTS[rnd_below(3)];
    g.m = 1 + rnd_below(MAXM), g.n = 1 + rnd_below(MAXN), g.k = 16 * (1 + rnd_below(12));
    const size_t ar = g.ta == MF_NO_TRANS ? g.m : g.k, ac = g.ta == MF_NO_TRANS ? g.k : g.m;
    const size_t br = g.tb == MF_NO_TRANS ? g.k : g.n, bc = g.tb == MF_NO_TRANS ? g.n : g.k;
    g.lda = g.layout == MF_ROW_MAJOR ? ac : ar, g.ldb = g.layout == MF_ROW_MAJOR ? bc : br;
    g.ldc = (g.layout == MF_ROW_MAJOR ? g.n : g.m) + rnd_below(3);
    g.alpha = rnd_below(3) ? 1.0f : ALPHAS[rnd_below(8)];
    g.beta = rnd_below(2) ? 0.0f : BETAS[rnd_below(5)];
    g.o.accum = MF_ACCUM_EXACT;
    g.o.round = (mf_round)rnd_below(MF_ROUND_COUNT);
    if (g.o.round == MF_ROUND_STOCHASTIC && g.fc == MF_FP32)
        g.fc = MF_FP16;
    g.o.overflow = (mf_overflow)rnd_below(MF_OVERFLOW_PROPAGATE) /* the two policies mf_gemm takes */;
    g.o.seed = rnd(), g.o.sr_offset = rnd_below(1000);
    g.o.threads = 1 + (int)rnd_below(3);
    g.amax_a = rnd_amax(), g.amax_b = rnd_amax();
    const int maxed = rnd_below(4) == 0, edges = rnd_below(3) == 0;
    for (size_t q = 0; q < g.m * g.k; q++)
        CA[q] = rnd_code(g.fa, 0, maxed);
    for (size_t q = 0; q < g.k * g.n; q++)
        CB[q] = rnd_code(g.fb, 0, maxed);
    for (size_t q = 0; q < g.m * (g.k / 16); q++)
        QA[q] = edges ? rnd_nvq() : 0x20 + (int)rnd_below(0x40);
    for (size_t q = 0; q < g.n * (g.k / 16); q++)
        QB[q] = edges ? rnd_nvq() : 0x20 + (int)rnd_below(0x40);
    fill_and_run(&g);
}

/* NVFP4 (the integer path's wide mode where the scales allow it, the element path where not) against MPFR */
START_TEST(test_exact_nvfp4)
{
    unsigned long i = 0; /* MF_TEST_SAMPLE: one case in k */
    int taken = 0;
    rng_state ^= (uint64_t)(_i + 200) * 0x9E3779B97F4A7C15ull;
    const unsigned long before = n_checked;
    for (int rep = 0; rep < 25; rep++)
        if (mf_test_take(&i))
            nv_case(), taken++;
    ck_assert_uint_ge(n_checked - before, (unsigned long)taken);
}
END_TEST

/* MX scales of little spread on both sides, every pair of the integer formats: the MX kernels' int32 chunks */
START_TEST(test_exact_mx_narrow)
{
    static const mf_format XF[] = {MF_FP4_E2M1, MF_FP6_E2M3, MF_FP6_E3M2};
    const mf_format fa = XF[_i / 3], fb = XF[_i % 3];
    unsigned long i = 0; /* MF_TEST_SAMPLE (the qemu and ASan tiers): one case in k */
    int taken = 0;
    rng_state ^= (uint64_t)(_i + 100) * 0x9E3779B97F4A7C15ull;
    const unsigned long before = n_checked;
    for (int rep = 0; rep < 40; rep++)
        if (mf_test_take(&i))
            random_case_x(fa, fb, 0, 1 + rep % 12), taken++;
    ck_assert_uint_ge(n_checked - before, (unsigned long)taken);
}
END_TEST

/* ---- each integer kernel alone, on its caller's bounds ------------------------------------------------------ */

enum { KMR = MF__XI_MR, KNR = MF__XI_NR };

/* the packed panels of ng groups (exact_int.h): int8 a and uint8 b (value + off), or int16 both */
typedef struct kpanels {
    size_t ng;
    int i8;
    void *a, *b;
} kpanels;

static int64_t kp_a(const kpanels *p, size_t g, size_t r, size_t q)
{
    return p->i8 ? ((const int8_t *)p->a)[(g * KMR + r) * 4 + q] : ((const int16_t *)p->a)[(g * KMR + r) * 2 + q];
}
static int64_t kp_b(const kpanels *p, size_t g, size_t l, size_t q)
{
    return p->i8 ? ((const uint8_t *)p->b)[(g * KNR + l) * 4 + q] : ((const int16_t *)p->b)[(g * KNR + l) * 2 + q];
}

/* the tile's sums over groups g0 .. g0 + ng - 1, in int64 */
static void kp_ref(const kpanels *p, size_t g0, size_t ng, int64_t *out)
{
    const size_t G = p->i8 ? 4 : 2;
    for (size_t r = 0; r < KMR; r++)
        for (size_t l = 0; l < KNR; l++) {
            int64_t sum = 0;
            for (size_t g = g0; g < g0 + ng; g++)
                for (size_t q = 0; q < G; q++)
                    sum += kp_a(p, g, r, q) * kp_b(p, g, l, q);
            out[r * KNR + l] = sum;
        }
}

/* Fill the panels: in row r, column l, every a is +ma (rows 0, 2), -ma (row 1) or random in [-ma, ma]; every b is
 * 2 mb (columns 0, 2: value mb plus the offset mb), 0 (column 1) or random; int16: +-mb likewise. Rows 0 and 1
 * against columns 0 and 1 are the largest sums of either sign. */
static void kp_fill(kpanels *p, int ma, int mb)
{
    const size_t G = p->i8 ? 4 : 2;
    for (size_t g = 0; g < p->ng; g++)
        for (size_t q = 0; q < G; q++) {
            for (size_t r = 0; r < KMR; r++) {
                const int v = r == 0 || r == 2 ? ma : r == 1 ? -ma : (int)rnd_below(2 * (size_t)ma + 1) - ma;
                if (p->i8)
                    ((int8_t *)p->a)[(g * KMR + r) * 4 + q] = (int8_t)v;
                else
                    ((int16_t *)p->a)[(g * KMR + r) * 2 + q] = (int16_t)v;
            }
            for (size_t l = 0; l < KNR; l++) {
                const int u = l == 0 || l == 2 ? 2 * mb : l == 1 ? 0 : (int)rnd_below(2 * (size_t)mb + 1);
                if (p->i8)
                    ((uint8_t *)p->b)[(g * KNR + l) * 4 + q] = (uint8_t)u;
                else
                    ((int16_t *)p->b)[(g * KNR + l) * 2 + q] = (int16_t)(u - mb);
            }
        }
}

static void kp_expect(const char *kname, const char *what, const int32_t *got, const int64_t *want)
{
    for (size_t e = 0; e < KMR * KNR; e++) {
        MF_EXPECT(want[e] >= INT32_MIN && want[e] <= INT32_MAX, "%s %s: the test's sum %lld passes int32", kname, what,
                  (long long)want[e]);
        MF_EXPECT(got[e] == want[e], "%s %s: c[%zu][%zu] = %ld, expected %lld", kname, what, e / KNR, e % KNR,
                  (long)got[e], (long long)want[e]);
    }
}

static const int KMAX[] = {12, 60, 448}; /* e2m1 * 2, e2m3 * 8, e3m2 * 16 */

START_TEST(test_exact_kernel_bounds)
{
    const mf__xi_kernel *k;
    size_t nk = 0;
    static int32_t c[KMR * KNR];
    static int64_t want[KMR * KNR];
    kpanels p;
    p.a = malloc(65536 * 32 + 64), p.b = malloc(65536 * 128 + 64);
    ck_assert(p.a && p.b);
    for (size_t kq = 0; (k = mf__xi_kernel_at(kq)) != NULL; kq++, nk++) {
        char what[120];
        /* int8: every pair (max|a|, max|b|) of e2m1 and e2m3, over 3 span + 1 groups, the span being the bound the
         * caller passes (32767 / (4 max|a| max|b|)): rows 0, 1 x columns 0, 2 reach span * 4 max|a| max|b| within
         * each run of span groups */
        p.i8 = 1;
        for (int x = 0; x < 2; x++)
            for (int y = 0; y < 2; y++) {
                const size_t span = 32767 / (4 * (size_t)KMAX[x] * (size_t)KMAX[y]);
                p.ng = 3 * span + 1;
                kp_fill(&p, KMAX[x], KMAX[y]);
                k->i8(p.ng, span, p.a, p.b, c);
                kp_ref(&p, 0, p.ng, want);
                snprintf(what, sizeof what, "i8 %d x %d, span %zu", KMAX[x], KMAX[y], span);
                kp_expect(k->name, what, c, want);
            }
        /* the int32 chunks: 65536 int8 groups of 60 * 120 (1887436800), 4096 int16 groups of 448^2 (1644167168) */
        p.ng = 65536;
        kp_fill(&p, 60, 60);
        k->i8(p.ng, 2, p.a, p.b, c);
        kp_ref(&p, 0, p.ng, want);
        ck_assert_int_eq(want[0], 65536ll * 4 * 60 * 120);
        kp_expect(k->name, "i8 chunk", c, want);
        p.i8 = 0, p.ng = 4096;
        kp_fill(&p, 448, 448);
        k->i16(p.ng, 0, p.a, p.b, c);
        kp_ref(&p, 0, p.ng, want);
        ck_assert_int_eq(want[0], 4096ll * 2 * 448 * 448);
        kp_expect(k->name, "i16 chunk", c, want);
        /* MX: blocks shifted by row and column exponents, as many as fit the int32 chunk at this spread */
        for (int i8 = 0; i8 < 2; i8++) {
            mf__xi_mx_fn fn = i8 ? k->mx8 : k->mx16;
            const int pairs = i8 ? 4 : 1;
            if (!fn)
                continue;
            for (int pr = 0; pr < pairs; pr++)
                for (int spread = 0; spread <= 12; spread += 3) {
                    const int ma = i8 ? KMAX[pr / 2] : 448, mb = i8 ? KMAX[pr % 2] : 448;
                    const size_t gb = i8 ? 8 : 16, span = i8 ? 32767 / (4 * (size_t)ma * (size_t)mb) : 0;
                    const double blk = ldexp(32.0 * ma * mb, spread);
                    size_t nblk = (size_t)floor((0x1p31 - 1) / blk);
                    static int32_t corr[64 * KMR], sa[64 * KMR], sb[64 * KNR];
                    static int64_t sum[KMR * KNR], tot[KMR * KNR];
                    if (!nblk)
                        continue;
                    nblk = nblk > 64 ? 64 : nblk;
                    p.i8 = i8, p.ng = nblk * gb;
                    kp_fill(&p, ma, mb);
                    memset(tot, 0, sizeof tot);
                    for (size_t q = 0; q < nblk; q++) {
                        for (size_t r = 0; r < KMR; r++) { /* the offset's share: mb times the row's sum */
                            int64_t asum = 0;
                            for (size_t g = q * gb; g < (q + 1) * gb; g++)
                                for (size_t e = 0; e < (i8 ? 4u : 2u); e++)
                                    asum += kp_a(&p, g, r, e);
                            corr[q * KMR + r] = i8 ? (int32_t)(mb * asum) : 0;
                            sa[q * KMR + r] = r < 2 ? spread / 2 : (int)rnd_below((size_t)spread / 2 + 1);
                        }
                        for (size_t l = 0; l < KNR; l++)
                            sb[q * KNR + l] = l < 3 ? spread - spread / 2 : (int)rnd_below((size_t)(spread - spread / 2) + 1);
                        kp_ref(&p, q * gb, gb, sum);
                        for (size_t r = 0; r < KMR; r++)
                            for (size_t l = 0; l < KNR; l++)
                                tot[r * KNR + l] += (sum[r * KNR + l] - corr[q * KMR + r]) * ((int64_t)1 << (sa[q * KMR + r] + sb[q * KNR + l]));
                    }
                    fn(nblk, span, p.a, p.b, c, corr, sa, sb);
                    snprintf(what, sizeof what, "mx%d %d x %d, spread %d, %zu blocks", i8 ? 8 : 16, ma, mb, spread, nblk);
                    kp_expect(k->name, what, c, tot);
                }
        }
    }
    ck_assert_uint_ge(nk, 1);
    free(p.a), free(p.b);
}
END_TEST

/* ---- the driver with each kernel, the MX kernel's use counted ---------------------------------------------- */

static const mf__xi_kernel *wrapped;
static unsigned long n_mx_calls;
static void w_mx8(size_t nblk, size_t span, const void *a, const void *b, int32_t *c, const int32_t *corr,
                  const int32_t *sa, const int32_t *sb)
{
    __atomic_fetch_add(&n_mx_calls, 1, __ATOMIC_RELAXED);
    wrapped->mx8(nblk, span, a, b, c, corr, sa, sb);
}
static void w_mx16(size_t nblk, size_t span, const void *a, const void *b, int32_t *c, const int32_t *corr,
                   const int32_t *sa, const int32_t *sb)
{
    __atomic_fetch_add(&n_mx_calls, 1, __ATOMIC_RELAXED);
    wrapped->mx16(nblk, span, a, b, c, corr, sa, sb);
}

typedef struct xi_got {
    size_t n;
    int64_t *v;
    int exp;
} xi_got;
static void xi_catch(void *ctx, size_t i, size_t j, size_t cnt, const int64_t *v, int exp, mf_stats *st)
{
    xi_got *g = (xi_got *)ctx;
    (void)st;
    memcpy(g->v + i * g->n + j, v, cnt * sizeof *v);
    /* the team's threads emit at once: every call carries the run's one exponent (atomic: no data race) */
    __atomic_store_n(&g->exp, exp, __ATOMIC_RELAXED);
}

/* mf__xi_run on random MX operands (A row-major m x k, B row-major k x n), every product at its largest or random,
 * scale codes in [base, base + spread - 1] on each side, both ends taken (so the exponents spread by
 * 2 (spread - 1) in all); maxed 2: every product the largest positive one and every code the top one but the
 * first (the int32 chunks' sums at their largest). Every sum against MPFR. Returns the MX kernel's calls. */
static unsigned long xi_driver_case(const mf__xi_kernel *k, mf_format fa, mf_format fb, int spread, int maxed)
{
    mf__xi_kernel w = *k;
    mf__xi_call c;
    xi_got got;
    mpfr_t acc, t, v;
    const size_t m = 1 + rnd_below(20), n = 1 + rnd_below(40), k32 = 2 + rnd_below(11), kk = 32 * k32;
    const int base = 100 + (int)rnd_below(40);
    static int16_t ea[20 * 12], eb[40 * 12];
    static int64_t vals[20 * 40];
    unsigned long before;
    w.mx8 = k->mx8 ? w_mx8 : NULL, w.mx16 = k->mx16 ? w_mx16 : NULL;
    wrapped = k;
    for (size_t i = 0; i < m; i++)
        for (size_t p = 0; p < kk; p++) {
            CA[i * kk + p] = rnd_code(fa, 0, maxed) & (maxed == 2 ? (1u << (code_bits(fa) - 1)) - 1 : ~0u);
            put(A, fa, i * kk + p, CA[i * kk + p]);
        }
    for (size_t p = 0; p < kk; p++)
        for (size_t j = 0; j < n; j++) {
            CB[p * n + j] = rnd_code(fb, 0, maxed) & (maxed == 2 ? (1u << (code_bits(fb) - 1)) - 1 : ~0u);
            put(B, fb, p * n + j, CB[p * n + j]);
        }
    for (size_t q = 0; q < m * k32; q++)
        QA[q] = maxed == 2 ? base + spread - 1 : base + (int)rnd_below((size_t)spread);
    for (size_t q = 0; q < n * k32; q++)
        QB[q] = maxed == 2 ? base + spread - 1 : base + (int)rnd_below((size_t)spread);
    QA[0] = QB[0] = base, QA[1] = QB[1] = base + spread - 1;
    for (size_t q = 0; q < m * k32; q++)
        ea[q] = (int16_t)(QA[q] - 127);
    for (size_t q = 0; q < n * k32; q++)
        eb[q] = (int16_t)(QB[q] - 127);
    memset(&c, 0, sizeof c);
    c.m = m, c.n = n, c.k = kk;
    c.a.base = A, c.a.fmt = fa, c.a.ls = kk, c.a.ks = 1, c.a.bexp = ea;
    c.b.base = B, c.b.fmt = fb, c.b.ls = 1, c.b.ks = n, c.b.bexp = eb;
    c.threads = 1 + (int)rnd_below(3), c.kernel = &w, c.emit = xi_catch, c.ctx = &got;
    got.n = n, got.v = vals, got.exp = 0;
    before = __atomic_load_n(&n_mx_calls, __ATOMIC_RELAXED);
    ck_assert_int_eq(mf__xi_run(&c), MF_OK);
    mpfr_init2(acc, 4096), mpfr_init2(t, 128), mpfr_init2(v, 4096);
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            mpfr_set_zero(acc, 1);
            for (size_t p = 0; p < kk; p++) {
                acc_add_prod(acc, t, elem(fa, CA[i * kk + p], QA[i * k32 + p / 32]),
                             elem(fb, CB[p * n + j], QB[j * k32 + p / 32]));
            }
            mpfr_set_sj(v, vals[i * n + j], MPFR_RNDN);
            mpfr_mul_2si(v, v, got.exp, MPFR_RNDN);
            MF_EXPECT(mpfr_equal_p(v, acc), "%s %s x %s spread %d: (%zu, %zu) = %lld * 2^%d, not the exact sum",
                      k->name, mf_format_name(fa), mf_format_name(fb), spread, i, j, (long long)vals[i * n + j],
                      got.exp);
        }
    mpfr_clear(acc), mpfr_clear(t), mpfr_clear(v);
    n_checked += m * n;
    return __atomic_load_n(&n_mx_calls, __ATOMIC_RELAXED) - before;
}

START_TEST(test_exact_kernel_driver)
{
    static const mf_format XF[] = {MF_FP4_E2M1, MF_FP6_E2M3, MF_FP6_E3M2};
    const mf__xi_kernel *k;
    for (size_t kq = 0; (k = mf__xi_kernel_at(kq)) != NULL; kq++)
        for (int x = 0; x < 3; x++)
            for (int y = 0; y < 3; y++) {
                const int i8 = x < 2 && y < 2;
                const int has_mx = i8 ? k->mx8 != NULL : k->mx16 != NULL;
                /* exponents spread by 0, 2, 6, ..., 20 in all: one exponent, the int32 chunks; 20, past every pair's
                 * int32 bound (32 max|a| max|b| 2^20 > 2^31), one block at a time in int64 */
                static const int SPREADS[] = {1, 2, 4, 6, 8, 9, 10, 11};
                for (int q = 0; q < 8; q++) {
                    const unsigned long calls = xi_driver_case(k, XF[x], XF[y], SPREADS[q], q & 1);
                    xi_driver_case(k, XF[x], XF[y], SPREADS[q], 2);
                    if (q == 0)
                        MF_EXPECT(!has_mx || calls > 0, "%s: the MX kernel did not run at spread 0", k->name);
                    if (q == 7)
                        MF_EXPECT(calls == 0, "%s: the MX kernel ran at a spread of 20", k->name);
                }
            }
}
END_TEST

/* The wide mode (NVFP4) through the driver with each kernel: random binary32 block scales whose exponents spread
 * by `spread` on each side (every significand bit set or random; A's exponents from abase - 20 on, B's from -20), every
 * sum against MPFR; NaN, inf and overflowing scales are declined. special: A's last scale (0: none). */
static int64_t w_hi[20 * 40];
static uint64_t w_lo[20 * 40];
static int w_exp;
static void xi_catch_wide(void *ctx, size_t i, size_t j, size_t cnt, const int64_t *hi, const uint64_t *lo, int exp,
                          mf_stats *st)
{
    const size_t n = *(const size_t *)ctx;
    (void)st;
    memcpy(w_hi + i * n + j, hi, cnt * sizeof *hi), memcpy(w_lo + i * n + j, lo, cnt * sizeof *lo);
    __atomic_store_n(&w_exp, exp, __ATOMIC_RELAXED); /* as xi_catch: from several threads at once */
}

static int xi_wide_case(const mf__xi_kernel *k, int spread, int abase, float special, int check)
{
    static const mf_format XF[] = {MF_FP4_E2M1, MF_FP6_E2M3, MF_FP6_E3M2};
    static float sa[20 * 12], sb[40 * 12];
    mf__xi_call c;
    mpfr_t acc, t, v;
    const size_t m = 1 + rnd_below(20), n = 1 + rnd_below(40), nq = 2 + rnd_below(11), kk = 16 * nq;
    const int nva = (int)rnd_below(3) != 0, nvb = !nva || rnd_below(3) != 0;
    /* a special scale is A's, so A is NVFP4 then and its codes must be drawn as e2m1's (the kernel read them so) */
    const mf_format fa = nva || special != 0.0f ? MF_FP4_E2M1 : XF[rnd_below(3)];
    const mf_format fb = nvb ? MF_FP4_E2M1 : XF[rnd_below(3)];
    const int maxed = rnd() & 1;
    int rc;
    for (size_t i = 0; i < m * kk; i++)
        CA[i] = rnd_code(fa, 0, maxed), put(A, fa, i, CA[i]);
    for (size_t i = 0; i < kk * n; i++)
        CB[i] = rnd_code(fb, 0, maxed), put(B, fb, i, CB[i]);
    for (int side = 0; side < 2; side++) { /* significands all ones or random, exponents over [-20, spread - 20] */
        float *sc = side ? sb : sa;
        const size_t cnt = (side ? n : m) * nq;
        for (size_t q = 0; q < cnt; q++) {
            const double sig = rnd() & 1 ? 2.0 - 0x1p-23 : 1.0 + (double)(rnd() >> 41) * 0x1p-23;
            const int e = q == 0 ? 0 : q == 1 ? spread : (int)rnd_below((size_t)spread + 1);
            sc[q] = (float)ldexp(rnd() & 1 ? sig : -sig, e - 20 + (side ? 0 : abase));
        }
        if (rnd_below(4) == 0)
            sc[cnt - 1] = 0.0f;
    }
    if (special != 0.0f)
        sa[m * nq - 1] = special;
    memset(&c, 0, sizeof c);
    c.m = m, c.n = n, c.k = kk;
    c.a.base = A, c.a.fmt = fa, c.a.ls = kk, c.a.ks = 1, c.a.nvs = nva ? sa : NULL;
    c.b.base = B, c.b.fmt = fb, c.b.ls = 1, c.b.ks = n, c.b.nvs = nvb ? sb : NULL;
    if (special != 0.0f && !nva)
        c.a.fmt = MF_FP4_E2M1, c.a.nvs = sa; /* the special scale must be read */
    c.threads = 1 + (int)rnd_below(3), c.kernel = k, c.emit_wide = xi_catch_wide, c.ctx = (void *)&n;
    rc = mf__xi_run(&c);
    if (rc != MF_OK || !check)
        return rc;
    mpfr_init2(acc, 4096), mpfr_init2(t, 128), mpfr_init2(v, 4096);
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            mpfr_set_zero(acc, 1);
            for (size_t p = 0; p < kk; p++) { /* each element x * s rounded to binary32 (x * s exact in binary64) */
                const double x = ref_decode(ref_of(c.a.fmt), CA[i * kk + p]), y = ref_decode(ref_of(fb), CB[p * n + j]);
                acc_add_prod(acc, t, c.a.nvs ? (double)(float)(x * (double)sa[i * nq + p / 16]) : x,
                             nvb ? (double)(float)(y * (double)sb[j * nq + p / 16]) : y);
            }
            mpfr_set_sj(v, w_hi[i * n + j], MPFR_RNDN);
            mpfr_mul_2si(v, v, 64, MPFR_RNDN);
            mpfr_set_uj(t, w_lo[i * n + j], MPFR_RNDN);
            mpfr_add(v, v, t, MPFR_RNDN);
            mpfr_mul_2si(v, v, w_exp, MPFR_RNDN);
            MF_EXPECT(mpfr_equal_p(v, acc), "%s wide %s x %s spread %d: (%zu, %zu) not the exact sum", k->name,
                      mf_format_name(c.a.fmt), mf_format_name(fb), spread, i, j);
        }
    mpfr_clear(acc), mpfr_clear(t), mpfr_clear(v);
    n_checked += m * n;
    return rc;
}

START_TEST(test_exact_wide_driver)
{
    const mf__xi_kernel *k;
    for (size_t kq = 0; (k = mf__xi_kernel_at(kq)) != NULL; kq++) {
        /* spreads of both sides up to 2 * 30 = 60 with at most 12 blocks: 60 + 60 + log2(12) < 126, taken */
        for (int spread = 0; spread <= 30; spread += 3)
            for (int rep = 0; rep < 3; rep++)
                ck_assert_int_eq(xi_wide_case(k, spread, 0, 0.0f, 1), MF_OK);
        /* scales at the bottom: subnormal ones and values (s down to 2^-149) */
        ck_assert_int_eq(xi_wide_case(k, 10, -129, 0.0f, 1), MF_OK);
        ck_assert_int_eq(xi_wide_case(k, 10, -129, 0x1p-149f, 1), MF_OK);
        /* a NaN, an infinite scale or one whose sixfold overflows: the element path's; 6 s just finite is taken */
        ck_assert_int_eq(xi_wide_case(k, 4, 140, NAN, 0), MF__XI_DECLINED);
        ck_assert_int_eq(xi_wide_case(k, 4, 140, INFINITY, 0), MF__XI_DECLINED);
        ck_assert_int_eq(xi_wide_case(k, 4, 140, 0x1.6p125f, 0), MF__XI_DECLINED);
        ck_assert_int_eq(xi_wide_case(k, 4, 140, 0x1.5p125f, 1), MF_OK);
    }
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
    /* MF_GEMM_PART (tests/gemm.cmake): "gemm", the mf_gemm cases, which run the backend's kernels; "kernels", the
     * cases that call every kernel this CPU runs whatever the backend; unset: both */
    const char *part = getenv("MF_GEMM_PART");
    if (!part || strcmp(part, "kernels") != 0) {
        tcase_add_loop_test(tc, test_exact_pairs, 0, N_FMTS * N_FMTS);
        tcase_add_test(tc, test_exact_long_k);
        tcase_add_loop_test(tc, test_exact_mx_narrow, 0, 9);
        tcase_add_loop_test(tc, test_exact_nvfp4, 0, 8);
    }
    if (!part || strcmp(part, "gemm") != 0) {
        tcase_add_test(tc, test_exact_kernel_bounds);
        tcase_add_test(tc, test_exact_kernel_driver);
        tcase_add_test(tc, test_exact_wide_driver);
    }
    suite_add_tcase(s, tc);
    return mf_run_suite(s);
}
