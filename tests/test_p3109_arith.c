/* SPDX-License-Identifier: MIT */
/* tests/test_p3109_arith.c - the P3109 arithmetic of minifloat/p3109.h against MPFR, on the report's conformance
 * formats (Binary8p4se, Binary8p3se, Binary4p2sf).
 *
 * The oracle decodes codes with tests/oracle's own format statement (ref_decode), forms each result in MPFR
 * rounded to odd at 53 bits (RNDZ, then the last bit set if inexact: a binary64 that rounds as the exact value
 * into any format of 51 bits or fewer, the 32-bit stochastic fraction included), and rounds it into the format
 * with mpfr_ref_round. NaN and infinity cases come from MPFR's IEEE rules, except Recip(0) = NaN (the report's
 * table). Every operand pair of add, sub, mul and of the exact operations, in every mode and every saturation
 * mode (SatNone, SatFinite, SatPropagate); every code for the unary ones; FMA and FAA on every triple of
 * Binary4p2sf in every mode, and on the 8-bit formats on every 61st triple in every mode (unit) or every triple
 * in rn (argument --full, the exhaustive tier: a sixteenth a day in CI, every triple with
 * MF_EXHAUSTIVE_SHARD=all).
 */
#include "mf_test.h"
#include <math.h>
#include <mpfr.h>
#include <stdio.h>
#include <string.h>

#include <minifloat.h>

#include "oracle/mpfr_ref.h"

static const mf_format fmts[] = {MF_BINARY8P4SE, MF_BINARY8P3SE, MF_BINARY4P2SF};
#define NFMTS (int)(sizeof fmts / sizeof fmts[0])
static int full_fma;
/* --full's share of the 8-bit formats' triples: MF_EXHAUSTIVE_SHARD=all (scripts/setup.sh test-all) every triple;
 * a number k, the triples t with t / 4096 % 16 == k % 16; unset (CI), that shard for the day (days since 1970 % 16),
 * as the exhaustive tier's backend sweeps take theirs, so that sixteen days of runs cover every triple */
static int full_shard = -1;

static ref_format rf_of(mf_format f)
{
    ref_format r = ref_format_named(mf_format_name(f));
    ck_assert_int_ne(r, REF_NFORMATS);
    return r;
}

static uint32_t ncodes(ref_format rf) { return 1u << ref_format_info(rf)->bits; }

/* An mpfr value, rounded to odd at 53 bits, as a double. */
static double odd53(mpfr_t x, int ternary)
{
    double d = mpfr_get_d(x, MPFR_RNDZ); /* exact: x has 53 bits */
    if (ternary != 0 && !isnan(d) && !isinf(d)) {
        uint64_t u = mf_test_f64_bits(d) | 1u;
        d = mf_test_bits_f64(u);
    }
    return d;
}

enum { OP_ADD, OP_SUB, OP_MUL, OP_FMA, OP_FAA, OP_RECIP };

/* The oracle's value of op on a, b, c. */
static double oracle_value(ref_format rf, int op, uint32_t a, uint32_t b, uint32_t c)
{
    mpfr_t x, y, z, r;
    double d;
    int t = 0;
    mpfr_inits2(53, x, y, z, r, (mpfr_ptr)0);
    mpfr_set_d(x, ref_decode(rf, a), MPFR_RNDN); /* exact */
    mpfr_set_d(y, ref_decode(rf, b), MPFR_RNDN);
    mpfr_set_d(z, ref_decode(rf, c), MPFR_RNDN);
    switch (op) {
    case OP_ADD: t = mpfr_add(r, x, y, MPFR_RNDZ); break;
    case OP_SUB: t = mpfr_sub(r, x, y, MPFR_RNDZ); break;
    case OP_MUL: t = mpfr_mul(r, x, y, MPFR_RNDZ); break;
    case OP_FMA: t = mpfr_fma(r, x, y, z, MPFR_RNDZ); break;
    case OP_FAA: {
        mpfr_ptr tab[3];
        tab[0] = x;
        tab[1] = y;
        tab[2] = z;
        t = mpfr_sum(r, tab, 3, MPFR_RNDZ);
        break;
    }
    default:
        if (mpfr_zero_p(x))
            mpfr_set_nan(r); /* the report: Recip(0) is NaN */
        else
            t = mpfr_ui_div(r, 1, x, MPFR_RNDZ);
        break;
    }
    d = odd53(r, t);
    mpfr_clears(x, y, z, r, (mpfr_ptr)0);
    return d;
}

static uint32_t lib(mf_format f, int op, uint32_t a, uint32_t b, uint32_t c, mf_round r, mf_overflow o, uint32_t rb)
{
    switch (op) {
    case OP_ADD: return mf_p3109_add(f, a, b, r, o, rb);
    case OP_SUB: return mf_p3109_sub(f, a, b, r, o, rb);
    case OP_MUL: return mf_p3109_mul(f, a, b, r, o, rb);
    case OP_FMA: return mf_p3109_fma(f, a, b, c, r, o, rb);
    case OP_FAA: return mf_p3109_faa(f, a, b, c, r, o, rb);
    default: return mf_p3109_recip(f, a, r, o, rb);
    }
}

static const char *const op_names[] = {"add", "sub", "mul", "fma", "faa", "recip"};

/* Check one operand tuple in modes [r0, r1) and every policy; returns the cases checked. */
static unsigned long check_tuple(mf_format f, ref_format rf, int op, uint32_t a, uint32_t b, uint32_t c, int r0,
                                 int r1)
{
    const double v = oracle_value(rf, op, a, b, c);
    unsigned long n = 0;
    int r, o;
    for (r = r0; r < r1; r++)
        for (o = 0; o < MF_OVERFLOW_COUNT; o++) {
            /* rbits: a different 32-bit word per tuple and policy, reaching both ends of the comparison */
            const uint32_t rb = r == MF_ROUND_STOCHASTIC ? (a * 2654435761u) ^ (b * 40503u) ^ (c << 20) ^ (uint32_t)o
                                                         : 0u;
            const uint32_t want = mpfr_ref_round(rf, v, r, o, rb, NULL);
            const uint32_t got = lib(f, op, a, b, c, (mf_round)r, (mf_overflow)o, rb);
            MF_EXPECT(got == want, "%s %s(0x%x, 0x%x, 0x%x) mode %d policy %d rbits 0x%x: 0x%x, want 0x%x (%a)",
                      mf_format_name(f), op_names[op], a, b, c, r, o, rb, got, want, v);
            n++;
        }
    return n;
}

/* Every pair, every mode, both policies: add, sub, mul. */
START_TEST(test_pairs)
{
    const mf_format f = fmts[_i / 3];
    const int op = _i % 3;
    const ref_format rf = rf_of(f);
    const uint32_t n = ncodes(rf);
    unsigned long cases = 0, k = 0;
    uint32_t a, b;
    for (a = 0; a < n; a++)
        for (b = 0; b < n; b++)
            if (mf_test_take(&k))
                cases += check_tuple(f, rf, op, a, b, 0, 0, MF_ROUND_COUNT);
    ck_assert_uint_gt(cases, 0);
}
END_TEST

/* FMA and FAA: every triple of the 4-bit format in every mode; the 8-bit formats on every 61st triple (a stride
 * prime to 256, so every code takes every place) in every mode, or with --full every triple in rn. */
START_TEST(test_triples)
{
    const mf_format f = fmts[_i / 2];
    const int op = _i % 2 ? OP_FAA : OP_FMA;
    const ref_format rf = rf_of(f);
    const uint32_t n = ncodes(rf);
    const uint32_t total = n * n * n;
    const uint32_t stride = n == 16 || full_fma ? 1u : 61u;
    const int r1 = n == 16 || !full_fma ? MF_ROUND_COUNT : 1;
    unsigned long cases = 0, k = 0;
    uint32_t t;
    for (t = 0; t < total; t += stride)
        if ((n == 16 || full_shard < 0 || (t >> 12) % 16 == (uint32_t)full_shard) && mf_test_take(&k))
            cases += check_tuple(f, rf, op, t % n, t / n % n, t / n / n, 0, r1);
    ck_assert_uint_gt(cases, 0);
}
END_TEST

/* The other signed P3109 rows, whose wider exponent ranges need the accumulator's sticky bit (a product and an
 * addend up to 250 bits apart at P = 1): every 997th FMA and FAA triple, every 7th pair of add and mul (MF_TEST_SAMPLE:
 * one in k of those), every code of Recip, in every mode. */
START_TEST(test_family)
{
    const mf_format f = (mf_format)_i;
    const ref_format rf = rf_of(f);
    unsigned long cases = 0, k = 0;
    uint32_t t;
    for (t = 0; t < 1u << 24; t += 997)
        if (mf_test_take(&k))
            cases += check_tuple(f, rf, OP_FMA, t & 0xFF, t >> 8 & 0xFF, t >> 16, 0, MF_ROUND_COUNT) +
                     check_tuple(f, rf, OP_FAA, t & 0xFF, t >> 8 & 0xFF, t >> 16, 0, MF_ROUND_COUNT);
    for (t = 0; t < 1u << 16; t += 7)
        if (mf_test_take(&k))
            cases += check_tuple(f, rf, OP_ADD, t & 0xFF, t >> 8, 0, 0, MF_ROUND_COUNT) +
                     check_tuple(f, rf, OP_MUL, t & 0xFF, t >> 8, 0, 0, MF_ROUND_COUNT);
    for (t = 0; t < 256; t++)
        cases += check_tuple(f, rf, OP_RECIP, t, 0, 0, 0, MF_ROUND_COUNT);
    ck_assert_uint_gt(cases, 0);
}
END_TEST

START_TEST(test_recip)
{
    const mf_format f = fmts[_i];
    const ref_format rf = rf_of(f);
    uint32_t a;
    unsigned long cases = 0;
    for (a = 0; a < ncodes(rf); a++)
        cases += check_tuple(f, rf, OP_RECIP, a, 0, 0, 0, MF_ROUND_COUNT);
    ck_assert_uint_gt(cases, 0);
}
END_TEST

/* The code of an exact value (NaN for NaN). */
static uint32_t code_of(ref_format rf, double v) { return mpfr_ref_round(rf, v, REF_RN, 0, 0, NULL); }

/* Abs, Negate, NextUp, NextDown and the class of every code, from the oracle's values. */
START_TEST(test_unary)
{
    const mf_format f = fmts[_i];
    const ref_format rf = rf_of(f);
    const uint32_t n = ncodes(rf);
    const double min_normal = ldexp(1.0, 1 - ref_format_info(rf)->bias);
    uint32_t a, b;
    for (a = 0; a < n; a++) {
        const double v = ref_decode(rf, a);
        uint32_t up = a, down = a;
        double vup = INFINITY, vdown = -INFINITY;
        int cls;
        MF_EXPECT(mf_p3109_abs(f, a) == code_of(rf, fabs(v)), "%s abs(0x%x)", mf_format_name(f), a);
        MF_EXPECT(mf_p3109_neg(f, a) == code_of(rf, -v), "%s neg(0x%x)", mf_format_name(f), a);
        for (b = 0; b < n; b++) { /* the nearest values above and below, by search */
            const double w = ref_decode(rf, b);
            if (w > v && w <= vup && !isnan(v)) {
                vup = w;
                up = b;
            }
            if (w < v && w >= vdown && !isnan(v)) {
                vdown = w;
                down = b;
            }
        }
        MF_EXPECT(mf_p3109_next_up(f, a) == up, "%s next_up(0x%x): 0x%x, want 0x%x", mf_format_name(f), a,
                  mf_p3109_next_up(f, a), up);
        MF_EXPECT(mf_p3109_next_down(f, a) == down, "%s next_down(0x%x): 0x%x, want 0x%x", mf_format_name(f), a,
                  mf_p3109_next_down(f, a), down);
        cls = isnan(v)                  ? MF_P3109_CLASS_NAN
              : isinf(v)                ? (v < 0 ? MF_P3109_CLASS_NEG_INF : MF_P3109_CLASS_POS_INF)
              : v == 0                  ? MF_P3109_CLASS_ZERO
              : fabs(v) < min_normal    ? (v < 0 ? MF_P3109_CLASS_NEG_SUBNORMAL : MF_P3109_CLASS_POS_SUBNORMAL)
                                        : (v < 0 ? MF_P3109_CLASS_NEG_NORMAL : MF_P3109_CLASS_POS_NORMAL);
        MF_EXPECT(mf_p3109_class(f, a) == cls, "%s class(0x%x): %d, want %d", mf_format_name(f), a,
                  mf_p3109_class(f, a), cls);
    }
}
END_TEST

/* The oracle's min/max family on values x, y (codes a, b). */
static uint32_t oracle_minmax(ref_format rf, int op, uint32_t a, uint32_t b)
{
    const double x = ref_decode(rf, a), y = ref_decode(rf, b);
    const int want_max = op == MF_P3109_MAXIMUM || op == MF_P3109_MAXIMUM_NUMBER ||
                         op == MF_P3109_MAXIMUM_MAGNITUDE || op == MF_P3109_MAXIMUM_MAGNITUDE_NUMBER;
    const int number = op == MF_P3109_MINIMUM_NUMBER || op == MF_P3109_MAXIMUM_NUMBER ||
                       op == MF_P3109_MINIMUM_MAGNITUDE_NUMBER || op == MF_P3109_MAXIMUM_MAGNITUDE_NUMBER;
    const int mag = op >= MF_P3109_MINIMUM_MAGNITUDE;
    double v;
    if (isnan(x) || isnan(y)) {
        if (number && !isnan(x))
            return a;
        if (number && !isnan(y))
            return b;
        return code_of(rf, NAN);
    }
    if (mag && fabs(x) != fabs(y))
        v = (fabs(x) > fabs(y)) == want_max ? x : y;
    else
        v = want_max ? fmax(x, y) : fmin(x, y);
    return code_of(rf, v);
}

/* Every pair: the min/max family, Compare and TotalOrder. */
START_TEST(test_order)
{
    const mf_format f = fmts[_i];
    const ref_format rf = rf_of(f);
    const uint32_t n = ncodes(rf);
    uint32_t a, b;
    int op;
    for (a = 0; a < n; a++)
        for (b = 0; b < n; b++) {
            const double x = ref_decode(rf, a), y = ref_decode(rf, b);
            const int cmp = isnan(x) || isnan(y) ? MF_P3109_UNORDERED
                            : x < y              ? MF_P3109_LESS
                            : x == y             ? MF_P3109_EQUAL
                                                 : MF_P3109_GREATER;
            const int tot = isnan(y) ? 1 : isnan(x) ? 0 : x <= y;
            for (op = 0; op < MF_P3109_MINMAX_COUNT; op++)
                MF_EXPECT(mf_p3109_minmax(f, op, a, b) == oracle_minmax(rf, op, a, b), "%s minmax %d (0x%x, 0x%x)",
                          mf_format_name(f), op, a, b);
            MF_EXPECT(mf_p3109_compare(f, a, b) == cmp, "%s compare(0x%x, 0x%x)", mf_format_name(f), a, b);
            MF_EXPECT(mf_p3109_total_order(f, a, b) == tot, "%s total_order(0x%x, 0x%x)", mf_format_name(f), a, b);
        }
}
END_TEST

/* Bad arguments: UINT32_MAX or MF_E_ARG, for a format outside the signed P3109 rows, a code beyond the width, a
 * mode or policy out of range. */
/* BlockDotProduct against MPFR: each lane S * x and each product exact at 53 bits (at most 32 significant bits),
 * their sum by mpfr_sum toward zero and rounded to odd (odd53), then the oracle's rounding into the result format;
 * NaN and infinity by MPFR's IEEE rules, which are the report's Multiply and Add. Random blocks of 0 ... 40
 * lanes over element, scale and result formats (signed and unsigned, Binary4p2sf), specials included, scales
 * near 1 half the time, every mode and policy. */
static uint64_t bd_state = 0x3109;
static uint32_t bd_rand(void)
{
    bd_state ^= bd_state << 13, bd_state ^= bd_state >> 7, bd_state ^= bd_state << 17;
    return (uint32_t)(bd_state >> 11);
}

static uint32_t bd_code(mf_format f)
{
    const uint32_t mask = (1u << ref_format_info(rf_of(f))->bits) - 1;
    return bd_rand() & mask;
}

START_TEST(test_block_dot)
{
    static const mf_format elems[] = {MF_BINARY8P4SE, MF_BINARY8P3SE, MF_BINARY4P2SF, MF_BINARY8P1SE, MF_BINARY8P5UE};
    static const mf_format scales[] = {MF_BINARY8P1UF, MF_BINARY8P4SE, MF_BINARY8P3UE};
    static const mf_format results[] = {MF_BINARY8P4SE, MF_BINARY8P3SE, MF_BINARY8P1UF, MF_BINARY4P2SF, MF_BINARY8P6UE};
    unsigned long n_checked = 0;
    mpfr_t sx, sy, t, lx, ly, r;
    mpfr_ptr terms[40];
    mpfr_t tv[40];
    mpfr_inits2(53, sx, sy, t, lx, ly, r, (mpfr_ptr)0);
    for (int i = 0; i < 40; i++)
        mpfr_init2(tv[i], 53), terms[i] = tv[i];
    for (int trial = 0; trial < 3000; trial++) {
        const mf_format fx = elems[bd_rand() % 5], fy = elems[bd_rand() % 5];
        const mf_format fsx = scales[bd_rand() % 3], fsy = scales[bd_rand() % 3], fr = results[trial % 5];
        const size_t n = trial < 10 ? (size_t)trial % 2 : bd_rand() % 41;
        uint8_t x[40], y[40];
        uint32_t csx = bd_code(fsx), csy = bd_code(fsy);
        int ternary;
        double d;
        if (bd_rand() & 1) { /* scales near 1 */
            csx = mf_from_f64(fsx, ldexp(1.0, (int)(bd_rand() % 9) - 4), MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE,
                              0);
            csy = mf_from_f64(fsy, ldexp(1.0, (int)(bd_rand() % 9) - 4), MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE,
                              0);
        }
        for (size_t i = 0; i < n; i++) { /* specials rarely: their codes come up 1 in 128 or so in K = 8 */
            x[i] = (uint8_t)bd_code(fx);
            y[i] = (uint8_t)bd_code(fy);
        }
        mpfr_set_d(sx, ref_decode(rf_of(fsx), csx), MPFR_RNDN);
        mpfr_set_d(sy, ref_decode(rf_of(fsy), csy), MPFR_RNDN);
        for (size_t i = 0; i < n; i++) {
            mpfr_set_d(t, ref_decode(rf_of(fx), x[i]), MPFR_RNDN);
            mpfr_mul(lx, sx, t, MPFR_RNDN); /* exact */
            mpfr_set_d(t, ref_decode(rf_of(fy), y[i]), MPFR_RNDN);
            mpfr_mul(ly, sy, t, MPFR_RNDN);
            mpfr_mul(tv[i], lx, ly, MPFR_RNDN);
        }
        if (n == 0) {
            mpfr_set_zero(r, 1);
            ternary = 0;
        } else {
            ternary = mpfr_sum(r, terms, (unsigned long)n, MPFR_RNDZ);
        }
        d = odd53(r, ternary);
        for (int m = 0; m < MF_ROUND_COUNT; m++)
            for (int o = 0; o < MF_OVERFLOW_COUNT; o++) {
                const uint32_t rb = m == MF_ROUND_STOCHASTIC ? bd_rand() : 0u;
                const uint32_t want = mpfr_ref_round(rf_of(fr), d, m, o, rb, NULL);
                const uint32_t got = mf_p3109_block_dot(fr, (mf_round)m, (mf_overflow)o, rb, fsx, csx, fx, x, fsy, csy,
                                                        fy, y, n);
                MF_EXPECT(got == want,
                          "trial %d: %s <- %s 0x%x * %s[%zu] . %s 0x%x * %s, mode %d policy %d: 0x%x, want 0x%x (%a)",
                          trial, mf_format_name(fr), mf_format_name(fsx), csx, mf_format_name(fx), n,
                          mf_format_name(fsy), csy, mf_format_name(fy), m, o, got, want, d);
                n_checked++;
            }
    }
    for (int i = 0; i < 40; i++)
        mpfr_clear(tv[i]);
    mpfr_clears(sx, sy, t, lx, ly, r, (mpfr_ptr)0);
    {
        const uint8_t one[1] = {0x40};
        const uint32_t s1 = 0x80; /* Binary8p1uf: 2^0 */
        const uint32_t bad = UINT32_MAX;
        ck_assert_uint_eq(mf_p3109_block_dot(MF_BINARY8P4SE, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0, MF_BINARY8P1UF,
                                             s1, MF_BINARY8P4SE, one, MF_BINARY8P1UF, s1, MF_BINARY8P4SE, one, 1),
                          0x40u); /* 1 * 1 */
        ck_assert_uint_eq(mf_p3109_block_dot(MF_BINARY8P4SE, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0, MF_FP8_E4M3,
                                             s1, MF_BINARY8P4SE, one, MF_BINARY8P1UF, s1, MF_BINARY8P4SE, one, 1),
                          bad);
        ck_assert_uint_eq(mf_p3109_block_dot(MF_BINARY8P4SE, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0, MF_BINARY8P1UF,
                                             s1, MF_BINARY8P1UF, one, MF_BINARY8P1UF, s1, MF_BINARY8P4SE, one, 1),
                          bad); /* 8 exponent bits in an element format */
        ck_assert_uint_eq(mf_p3109_block_dot(MF_BINARY8P4SE, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0, MF_BINARY8P1UF,
                                             s1, MF_BINARY4P2SF, one, MF_BINARY8P1UF, s1, MF_BINARY8P4SE, one, 1),
                          bad); /* 0x40 is no Binary4p2sf code */
        ck_assert_uint_eq(mf_p3109_block_dot(MF_BINARY8P4SE, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0, MF_BINARY8P1UF,
                                             s1, MF_BINARY8P4SE, NULL, MF_BINARY8P1UF, s1, MF_BINARY8P4SE, one, 1),
                          bad);
        ck_assert_uint_eq(mf_p3109_block_dot(MF_BINARY8P4SE, MF_ROUND_NEAREST_EVEN, (mf_overflow)MF_OVERFLOW_COUNT, 0,
                                             MF_BINARY8P1UF, s1, MF_BINARY8P4SE, one, MF_BINARY8P1UF, s1,
                                             MF_BINARY8P4SE, one, 1),
                          bad);
        ck_assert_uint_eq(mf_p3109_block_dot(MF_BINARY8P4SE, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0, MF_BINARY8P1UF,
                                             s1, MF_BINARY8P4SE, NULL, MF_BINARY8P1UF, s1, MF_BINARY8P4SE, NULL, 0),
                          0u); /* no lanes: the zero */
    }
    printf("%lu block dot products against MPFR\n", n_checked);
}
END_TEST

START_TEST(test_bad_args)
{
    const uint32_t bad = 0xFFFFFFFFu;
    ck_assert_uint_eq(mf_p3109_add(MF_FP8_E4M3, 1, 1, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0), bad);
    ck_assert_uint_eq(mf_p3109_add(MF_BINARY8P4UE, 1, 1, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0), bad);
    ck_assert_uint_eq(mf_p3109_mul(MF_BINARY4P2SF, 0x10, 1, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0), bad);
    ck_assert_uint_eq(mf_p3109_fma(MF_BINARY8P4SE, 1, 1, 0x100, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0), bad);
    ck_assert_uint_eq(mf_p3109_sub(MF_BINARY8P4SE, 1, 1, (mf_round)MF_ROUND_COUNT, MF_OVERFLOW_IEEE, 0), bad);
    ck_assert_uint_eq(mf_p3109_recip(MF_BINARY8P4SE, 1, MF_ROUND_NEAREST_EVEN, (mf_overflow)MF_OVERFLOW_COUNT, 0), bad);
    ck_assert_uint_eq(mf_p3109_abs((mf_format)-1, 1), bad);
    ck_assert_uint_eq(mf_p3109_minmax(MF_BINARY8P4SE, MF_P3109_MINMAX_COUNT, 1, 1), bad);
    ck_assert_int_eq(mf_p3109_compare(MF_BF16, 1, 1), MF_E_ARG);
    ck_assert_int_eq(mf_p3109_total_order(MF_BINARY8P3SE, 0x100, 1), MF_E_ARG);
    ck_assert_int_eq(mf_p3109_class(MF_BINARY4P2SF, 0x10), MF_E_ARG);
}
END_TEST

int main(int argc, char **argv)
{
    Suite *s = suite_create("p3109_arith");
    TCase *tc = tcase_create("p3109_arith");
    full_fma = argc > 1 && strcmp(argv[1], "--full") == 0;
    if (full_fma) {
        const char *e = getenv("MF_EXHAUSTIVE_SHARD");
        full_shard = e && strcmp(e, "all") == 0 ? -1
                     : e && *e                 ? (int)(strtoul(e, NULL, 10) % 16)
                                               : (int)((unsigned long)(time(NULL) / 86400) % 16);
        if (full_shard >= 0)
            printf("--full: shard %d of 16, the triples t with t / 4096 %% 16 == %d (MF_EXHAUSTIVE_SHARD=all for every "
                   "triple)\n",
                   full_shard, full_shard);
    }
    tcase_set_timeout(tc, full_fma ? 3000 : 120);
    if (!full_fma) {
        tcase_add_loop_test(tc, test_pairs, 0, 3 * NFMTS);
        tcase_add_loop_test(tc, test_recip, 0, NFMTS);
        tcase_add_loop_test(tc, test_unary, 0, NFMTS);
        tcase_add_loop_test(tc, test_order, 0, NFMTS);
        tcase_add_test(tc, test_bad_args);
        tcase_add_test(tc, test_block_dot);
        tcase_add_loop_test(tc, test_family, MF_BINARY8P1SE, MF_BINARY8P7SF + 1); /* the signed K = 8 rows */
    }
    tcase_add_loop_test(tc, test_triples, 0, 2 * NFMTS);
    suite_add_tcase(s, tc);
    return mf_run_suite(s);
}
