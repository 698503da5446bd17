/* SPDX-License-Identifier: MIT */
/* tests/test_f64.c - binary64 sources round once, directly (unit tier).
 *
 * mf_from_f64 against the textbook reference and MPFR, every format (f32 as a target too), every
 * mode and policy, on the f64 boundary set (each value and midpoint of the target, and 1-2 f64 ulps
 * either side: exactly where f64 -> f32 -> format would round twice) and on random f64 values over
 * every exponent; mf_from_f64_ev's events against those derived from the reference's result. Counts how many random cases rounding through f32 would have got wrong.
 */
#include "mf_test.h"
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <minifloat.h>

#include "oracle/mpfr_ref.h"
#include "oracle/ref.h"
#include "ref_pairs.h"

/* The formats under test: every format but f64, in enum order (the rows of minifloat/formats.inc),
 * each with the oracle's format of the same name (filled by main). */
#define NFMT ((size_t)MF_FORMAT_COUNT - 1)
static ref_pair fmts[MF_FORMAT_COUNT];

static const mf_round modes[REF_NMODES] = {MF_ROUND_NEAREST_EVEN, MF_ROUND_NEAREST_AWAY, MF_ROUND_TOWARD_ZERO,
                                           MF_ROUND_UP, MF_ROUND_DOWN, MF_ROUND_ODD, MF_ROUND_STOCHASTIC};

static uint64_t rng = 0x13198A2E03707344u;
static uint64_t rnd64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

typedef struct {
    double *v;
    size_t n, cap;
} pts;

static void push(pts *p, double d)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 4096;
        p->v = (double *)realloc(p->v, p->cap * sizeof *p->v);
        if (!p->v)
            abort();
    }
    p->v[p->n++] = d;
}

/* d and k f64 ulps either side, k = 1..kmax */
static void push_around(pts *p, double d, int kmax)
{
    double up = d, dn = d;
    int k;
    push(p, d);
    for (k = 1; k <= kmax; k++) {
        up = nextafter(up, INFINITY);
        dn = nextafter(dn, -INFINITY);
        if (isfinite(up))
            push(p, up);
        if (dn >= 0)
            push(p, dn);
    }
}

/* A value and its upper neighbour in the target, for the boundary set: v +-1 ulp, the midpoint
 * +-2 ulps (a midpoint +-1 f64 ulp is what f64 -> f32 turns into an exact tie). */
static void push_pair(pts *p, double v, double hi)
{
    push_around(p, v, 1);
    push_around(p, v + (hi - v) / 2, 2);
}

static pts boundary_set(ref_format rf, size_t *pairs)
{
    pts p = {NULL, 0, 0};
    double lo, hi;
    uint32_t lc, hc;
    *pairs = 0;
    if (rf == REF_F32) { /* a sample of f32 pairs: every binade, a few significands each */
        int e;
        static const uint32_t mants[] = {0, 1, 2, 0x400000u, 0x555555u, 0x7FFFFEu, 0x7FFFFFu};
        size_t k;
        for (e = 0; e < 255; e++)
            for (k = 0; k < sizeof mants / sizeof mants[0]; k++) {
                float f = mf_test_bits_f32(((uint32_t)e << 23) | mants[k]);
                ck_assert(ref_neighbours(rf, f, &lo, &hi, &lc, &hc) && lo == f);
                push_pair(&p, lo, hi);
                ++*pairs;
            }
        push_around(&p, ldexp(1.0, 128), 2); /* the virtual value above FLT_MAX */
    } else {
        uint32_t c, n = ref_count_finite(rf);
        for (c = 0; c < n; c++) {
            double v = ref_decode(rf, c);
            ck_assert(ref_neighbours(rf, v, &lo, &hi, &lc, &hc) && lo == v && lc == c);
            push_pair(&p, lo, hi);
            ++*pairs;
            if (c + 1 == n)
                push_around(&p, hi, 2);
        }
    }
    /* far outside every format, f64 extremes, specials */
    push_around(&p, 0.0, 3);  /* 0 and the f64 subnormals next to it */
    push_around(&p, 0x1p-1022, 1);
    push_around(&p, 0x1p-150, 1);
    push_around(&p, 0x1p-127, 1);
    push_around(&p, 0x1p-128, 1);
    push_around(&p, 0x1.8p-128, 1);
    push_around(&p, 0x1p128, 1);
    push_around(&p, 1e300, 1);
    push(&p, DBL_MAX);
    push(&p, INFINITY);
    push(&p, mf_test_bits_f64(0x7FF8000000000000u));
    push(&p, mf_test_bits_f64(0x7FF8000000000001u));
    push(&p, mf_test_bits_f64(0x7FFFFFFFFFFFFFFFu));
    push(&p, mf_test_bits_f64(0x7FF0000000000001u)); /* signalling */
    push(&p, mf_test_bits_f64(0x7FF4000000000000u)); /* signalling */
    return p;
}

/* Random f64 for format rf: any bits, any exponent near the format's range, or within 2^30 f64
 * ulps of a random midpoint or value of the format (where a detour through f32 would round twice). */
static double random_input(ref_format rf)
{
    uint64_t r = rnd64();
    double sign = (r & 1) ? -1.0 : 1.0, lo, hi;
    uint32_t lc, hc;
    int kind = (int)((r >> 1) & 3);
    uint64_t m = rnd64();
    if (kind == 0) { /* any non-NaN bit pattern: every exponent */
        double d = mf_test_bits_f64(m);
        return isnan(d) ? 1.0 : d;
    }
    if (kind == 1) { /* random significand, exponent within the format's range +-8 */
        const ref_info *f = ref_format_info(rf);
        int span = (1 << f->exp_bits) + f->man_bits + 16;
        int e = (int)((r >> 8) % (uint64_t)span) - f->bias - f->man_bits - 8;
        return sign * ldexp(1.0 + (double)(m >> 12) / 4503599627370496.0, e);
    }
    /* near a random value or midpoint of the format */
    {
        double base, d;
        int64_t k = (int64_t)(m >> 34) - ((int64_t)1 << 29); /* |k| < 2^30 f64 ulps */
        if (rf == REF_F32) {
            base = mf_test_bits_f32((uint32_t)(r >> 8) % 0x7F800000u);
        } else {
            base = ref_decode(rf, (uint32_t)((r >> 8) % ref_count_finite(rf)));
        }
        ck_assert(ref_neighbours(rf, base, &lo, &hi, &lc, &hc));
        if (kind == 3)
            base = lo + (hi - lo) / 2;
        /* step k ulps: scale by the f64 ulp of base (nonzero bases only) */
        if (base == 0)
            d = ldexp((double)(k < 0 ? -k : k), -1074);
        else
            d = base + (double)k * ldexp(1.0, ilogb(base) - 52);
        return sign * fabs(d);
    }
}

static unsigned ref_event_bits(const ref_events *e)
{
    return (e->overflow ? MF_EVENT_OVERFLOW : 0) | (e->underflow ? MF_EVENT_UNDERFLOW : 0) |
           (e->subnormal ? MF_EVENT_SUBNORMAL : 0) | (e->nan ? MF_EVENT_NAN : 0) |
           (e->inexact ? MF_EVENT_INEXACT : 0);
}

#define N_RB 5 /* sr: 0, ~0, random, threshold - 1, threshold */

typedef struct {
    size_t cases, mpfr, double_rounded;
} counts;

static void check_one(size_t k, double x, int use_mpfr, counts *c)
{
    ref_format rf = fmts[k].r;
    mf_format mf = fmts[k].m;
    const char *name = ref_format_info(rf)->name;
    uint32_t frac = ref_sr_fraction(rf, fabs(x));
    /* e8m0's inexact for negative inputs is test_boundary's test_e8m0_negative_inexact */
    unsigned ev_mask = (rf == REF_E8M0 && signbit(x)) ? ~(unsigned)MF_EVENT_INEXACT : ~0u;
    int m, sat, j;
    for (m = 0; m < REF_NMODES; m++)
        for (sat = 0; sat < 2; sat++) {
            mf_overflow pol = sat ? MF_OVERFLOW_SATURATE : MF_OVERFLOW_IEEE;
            int nr = m == REF_SR ? N_RB : 1;
            for (j = 0; j < nr; j++) {
                uint32_t rb, want, got, mp;
                if (m != REF_SR)
                    rb = (uint32_t)rnd64();
                else
                    switch (j) {
                    case 0: rb = 0; break;
                    case 1: rb = 0xFFFFFFFFu; break;
                    case 2: rb = (uint32_t)rnd64(); break;
                    default: rb = (uint32_t)(0u - frac) - (uint32_t)(4 - j); break;
                    }
                unsigned ev = 0;
                ref_events rev;
                want = ref_round(rf, x, m, sat, rb, &rev);
                got = mf_from_f64_ev(mf, x, modes[m], pol, rb, &ev);
                MF_EXPECT(got == want, "f64 -> %s x=%a mode %d sat %d rbits 0x%08x: got 0x%x want 0x%x", name, x, m,
                          sat, rb, got, want);
                MF_EXPECT((ev & ev_mask) == (ref_event_bits(&rev) & ev_mask),
                          "f64 -> %s x=%a mode %d sat %d: events got 0x%x want 0x%x", name, x, m, sat, ev,
                          ref_event_bits(&rev));
                c->cases++;
                if (use_mpfr && (m != REF_SR || j >= 2)) {
                    mp = mpfr_ref_round(rf, x, m, sat, rb, NULL);
                    MF_EXPECT(mp == want, "f64 -> %s x=%a mode %d sat %d rbits 0x%08x: mpfr 0x%x ref 0x%x", name,
                              x, m, sat, rb, mp, want);
                    c->mpfr++;
                }
                /* through f32 (rn) first: a second rounding that may differ */
                if (m != REF_SR && rf != REF_F32 && !isnan(x) &&
                    ref_round(rf, (double)(float)x, m, sat, rb, NULL) != want)
                    c->double_rounded++;
            }
        }
}

#define CASES_PER_INPUT (2 * (REF_NMODES - 1 + N_RB))
#define MPFR_PER_INPUT (2 * (REF_NMODES - 1 + N_RB - 2))

START_TEST(test_f64_boundary)
{
    size_t k = (size_t)_i, pairs, i;
    counts c = {0, 0, 0};
    pts p = boundary_set(fmts[k].r, &pairs);
    size_t n_mpfr_inputs = 0, taken = 0;
    unsigned long calls = 0;
    for (i = 0; i < p.n; i++) {
        /* MPFR on every input of the small formats, on a spread third of f16/bf16's half million */
        int use_mpfr = p.n < 100000 || i % 3 == 0;
        if (!mf_test_take(&calls)) /* MF_TEST_SAMPLE: an input in k (tests/mf_test.h) */
            continue;
        check_one(k, p.v[i], use_mpfr, &c);
        check_one(k, -p.v[i], use_mpfr, &c);
        n_mpfr_inputs += use_mpfr ? 2 : 0;
        taken++;
    }
    ck_assert_uint_ge(taken, p.n / mf_test_sample());
    ck_assert_uint_eq(c.cases, 2 * taken * CASES_PER_INPUT);
    ck_assert_uint_eq(c.mpfr, n_mpfr_inputs * MPFR_PER_INPUT);
    ck_assert_uint_ge(p.n, 8 * pairs);
    if (fmts[k].r != REF_F32)
        ck_assert_uint_gt(c.double_rounded, 0);
    printf("f64 boundary -> %-11s inputs %7zu cases %9zu mpfr %8zu via-f32-would-differ %zu\n",
           ref_format_info(fmts[k].r)->name, 2 * taken, c.cases, c.mpfr, c.double_rounded);
    free(p.v);
}
END_TEST

#define N_RANDOM 40000

START_TEST(test_f64_random)
{
    size_t k = (size_t)_i, i;
    const size_t n = N_RANDOM / mf_test_sample(); /* MF_TEST_SAMPLE (tests/mf_test.h) */
    counts c = {0, 0, 0};
    for (i = 0; i < n; i++)
        check_one(k, random_input(fmts[k].r), 1, &c);
    ck_assert_uint_eq(c.cases, n * CASES_PER_INPUT);
    ck_assert_uint_eq(c.mpfr, n * MPFR_PER_INPUT);
    if (fmts[k].r != REF_F32) /* the random set must contain double-rounding traps */
        ck_assert_uint_gt(c.double_rounded, 0);
    printf("f64 random   -> %-11s inputs %7d cases %9zu mpfr %8zu via-f32-would-differ %zu\n",
           ref_format_info(fmts[k].r)->name, (int)n, c.cases, c.mpfr, c.double_rounded);
}
END_TEST

/* The spec's example: -431.99999999999994 is one f64 ulp above -432, the e4m3 midpoint of -416
 * (0xFD) and -448 (0xFE). Directly it rounds to -416; through f32 it becomes the tie -432, which
 * ties to even -448. */
START_TEST(test_f64_example)
{
    double x = strtod("-431.99999999999994", NULL);
    float xf = (float)x;
    ck_assert(x == nextafter(-432.0, 0.0));
    ck_assert(xf == -432.0f);
    ck_assert_uint_eq(mf_from_f64(MF_FP8_E4M3, x, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0), 0xFD);
    ck_assert_uint_eq(mf_from_f64(MF_FP8_E4M3, x, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE, 0), 0xFD);
    ck_assert_uint_eq(mf_f64_to_e4m3_rn(x).bits, 0xFD);
    ck_assert_uint_eq(mf_f64_to_e4m3_rn_sat(x).bits, 0xFD);
    ck_assert(mf_to_f64(MF_FP8_E4M3, 0xFD) == -416.0);
    /* the detour the library must not take */
    ck_assert_uint_eq(mf_from_f32(MF_FP8_E4M3, xf, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0), 0xFE);
    ck_assert(mf_to_f64(MF_FP8_E4M3, 0xFE) == -448.0);
    /* both oracles agree */
    ck_assert_uint_eq(ref_round(REF_E4M3, x, REF_RN, 0, 0, NULL), 0xFD);
    ck_assert_uint_eq(mpfr_ref_round(REF_E4M3, x, REF_RN, 0, 0, NULL), 0xFD);
    /* rna would also differ: a tie through f32 goes away, -448 */
    ck_assert_uint_eq(mf_from_f64(MF_FP8_E4M3, x, MF_ROUND_NEAREST_AWAY, MF_OVERFLOW_IEEE, 0), 0xFD);
    /* f64 -> f32 itself: 1 + 2^-24 + 2^-50 is just above an f32 midpoint, so rn goes up */
    ck_assert_uint_eq(mf_from_f64(MF_FP32, 1.0 + 0x1p-24 + 0x1p-50, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0),
                      0x3F800001u);
    ck_assert_uint_eq(mf_from_f64(MF_FP32, 1.0 + 0x1p-24, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0),
                      0x3F800000u);
}
END_TEST

/* The same trap at the FNUZ edges. One f64 ulp below 248 (the midpoint of e4m3fnuz's max 240 and the
 * virtual 256) is nearer 240: 0x7F; through f32 it becomes the tie 248, which overflows to the NaN 0x80.
 * One f64 ulp beyond -2^-11 (half the smallest subnormal, negative) is nearer -2^-10: 0x81; through f32
 * it becomes the tie -2^-11, which goes to even: zero, +0 (0x00) in a format without -0. */
START_TEST(test_f64_example_fnuz)
{
    const double below = nextafter(248.0, 0.0), beyond = nextafter(-0x1p-11, -INFINITY);
    ck_assert(below == 248.0 - 0x1p-45 && (float)below == 248.0f && (float)beyond == -0x1p-11f);
    ck_assert_uint_eq(mf_from_f64(MF_FP8_E4M3FNUZ, below, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0), 0x7F);
    ck_assert_uint_eq(mf_from_f32(MF_FP8_E4M3FNUZ, (float)below, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0), 0x80);
    ck_assert_uint_eq(mf_from_f64(MF_FP8_E4M3FNUZ, beyond, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0), 0x81);
    ck_assert_uint_eq(mf_from_f32(MF_FP8_E4M3FNUZ, (float)beyond, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0), 0x00);
    ck_assert_uint_eq(ref_round(REF_E4M3FNUZ, below, REF_RN, 0, 0, NULL), 0x7F);
    ck_assert_uint_eq(mpfr_ref_round(REF_E4M3FNUZ, below, REF_RN, 0, 0, NULL), 0x7F);
    ck_assert_uint_eq(ref_round(REF_E4M3FNUZ, beyond, REF_RN, 0, 0, NULL), 0x81);
    ck_assert_uint_eq(mpfr_ref_round(REF_E4M3FNUZ, beyond, REF_RN, 0, 0, NULL), 0x81);
    /* e3m4: one f64 ulp below 15.75 (the midpoint of max 15.5 and inf) stays finite */
    ck_assert_uint_eq(mf_from_f64(MF_FP8_E3M4, nextafter(15.75, 0.0), MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0),
                      0x6F);
    ck_assert_uint_eq(mf_from_f64(MF_FP8_E3M4, 15.75, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0), 0x70);
}
END_TEST

int main(void)
{
    Suite *s;
    if (ref_pairs(fmts, 1) != NFMT)
        return 1;
    s = suite_create("f64");
    TCase *tc = tcase_create("f64");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_f64_example);
    tcase_add_test(tc, test_f64_example_fnuz);
    tcase_add_loop_test(tc, test_f64_boundary, 0, (int)NFMT);
    tcase_add_loop_test(tc, test_f64_random, 0, (int)NFMT);
    suite_add_tcase(s, tc);
    return mf_run_suite(s);
}
