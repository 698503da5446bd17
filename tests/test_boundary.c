/* SPDX-License-Identifier: MIT */
/* tests/test_boundary.c - the FP32 boundary set, every format x mode x overflow policy (unit tier).
 *
 * For each format: every representable value, every midpoint between neighbours (the one above max
 * included: the overflow threshold; the one above 0: the underflow threshold), one f32 ulp either
 * side of each, every power of two of f32 and f32 subnormal samples, +-0, +-inf and NaNs with
 * payloads (quiet and signalling, both signs), all in both signs. mf_from_f32 is compared with the
 * textbook reference in every mode (sr with fixed, random and threshold rbits) and with MPFR; the
 * events of mf_from_f32_ev with those derived from the reference's result.
 *
 * Every code of every format narrower than f32 decoded (mf_to_f32 / mf_to_f64 against the reference's
 * value, NaN codes against the bits of the decoding rule) and the decoded value re-encoded in every mode
 * and policy (test_every_code).
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

/* The formats under test: every format but f32 and f64, in enum order (the rows of
 * minifloat/formats.inc), each with the oracle's format of the same name (filled by main). */
#define NFMT ((size_t)MF_FORMAT_COUNT - 2)
static ref_pair fmts[MF_FORMAT_COUNT];

static const mf_round modes[REF_NMODES] = {MF_ROUND_NEAREST_EVEN, MF_ROUND_NEAREST_AWAY, MF_ROUND_TOWARD_ZERO,
                                           MF_ROUND_UP, MF_ROUND_DOWN, MF_ROUND_ODD, MF_ROUND_STOCHASTIC};

static uint64_t rng = 0x243F6A8885A308D3u;
static uint32_t rnd32(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

/* ---- the point set (positive f32 bit patterns, signs added by the sweep) ------------------------ */
typedef struct {
    uint32_t *v;
    size_t n, cap;
} pts;

static void push(pts *p, uint32_t b)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 4096;
        p->v = (uint32_t *)realloc(p->v, p->cap * sizeof *p->v);
        if (!p->v)
            abort();
    }
    p->v[p->n++] = b & 0x7FFFFFFFu;
}

/* d, if it is a finite positive f32 value, and the f32 values one ulp either side. Returns 1 if d
 * was representable. */
static int push_with_ulps(pts *p, double d)
{
    float f = (float)d;
    if (!(d >= 0) || (double)f != d || isinf(f))
        return 0;
    push(p, mf_test_f32_bits(f));
    if (f > 0)
        push(p, mf_test_f32_bits(nextafterf(f, 0.0f)));
    if (f < FLT_MAX)
        push(p, mf_test_f32_bits(nextafterf(f, INFINITY)));
    return 1;
}

static const uint32_t nan_patterns[] = {0x7FC00000u, 0x7FC00001u, 0x7FFFFFFFu, 0x7FD55555u, /* quiet */
                                        0x7F800001u, 0x7FA00000u, 0x7FBFFFFFu, 0x7F812345u}; /* signalling */
#define NNAN (sizeof nan_patterns / sizeof nan_patterns[0])

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Builds the set for one format; *n_values / *n_mids report how many format values and midpoints
 * were representable (all of them must be, for every format here). */
static pts boundary_set(ref_format rf, size_t *n_values, size_t *n_mids)
{
    pts p = {NULL, 0, 0};
    uint32_t n = ref_count_finite(rf), c;
    int e;
    size_t i, j;
    *n_values = *n_mids = 0;
    for (c = 0; c < n; c++) {
        double v = ref_decode(rf, c), lo, hi;
        uint32_t lc, hc;
        ck_assert(ref_neighbours(rf, v, &lo, &hi, &lc, &hc) && lo == v && lc == c);
        *n_values += (size_t)push_with_ulps(&p, v);
        *n_mids += (size_t)push_with_ulps(&p, lo + (hi - lo) / 2); /* last one: overflow threshold */
        if (c + 1 == n)
            push_with_ulps(&p, hi); /* the virtual value above max, where it is an f32 */
        if (c == 0)                 /* underflow thresholds: a quarter and three quarters of min */
            push_with_ulps(&p, hi / 4), push_with_ulps(&p, 3 * hi / 4);
    }
    for (e = -149; e <= 127; e++) /* every power of two of f32, e8m0's grid among them */
        push_with_ulps(&p, ldexp(1.0, e));
    for (c = 1; c < 64; c++) /* f32 subnormals: the smallest and the largest */
        push(&p, c), push(&p, 0x00800000u - c);
    push(&p, 0);
    push(&p, mf_test_f32_bits(FLT_MAX));
    push(&p, 0x7F800000u);
    for (i = 0; i < 2000; i++) /* random finite values */
        push(&p, rnd32() % 0x7F800000u);
    for (i = 0; i < NNAN; i++)
        push(&p, nan_patterns[i]);
    /* dedupe */
    qsort(p.v, p.n, sizeof *p.v, cmp_u32);
    for (i = j = 0; i < p.n; i++)
        if (j == 0 || p.v[j - 1] != p.v[i])
            p.v[j++] = p.v[i];
    p.n = j;
    return p;
}

static unsigned ref_event_bits(const ref_events *e)
{
    return (e->overflow ? MF_EVENT_OVERFLOW : 0) | (e->underflow ? MF_EVENT_UNDERFLOW : 0) |
           (e->subnormal ? MF_EVENT_SUBNORMAL : 0) | (e->nan ? MF_EVENT_NAN : 0) |
           (e->inexact ? MF_EVENT_INEXACT : 0);
}

/* rbits values for sr: fixed ones, plus random and the threshold 2^32 - f and its neighbours */
#define N_FIXED_RBITS 5
static const uint32_t fixed_rbits[N_FIXED_RBITS] = {0, 1, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu};
#define N_RBITS (N_FIXED_RBITS + 4)

static void sweep_format(size_t k)
{
    ref_format rf = fmts[k].r;
    mf_format mf = fmts[k].m;
    size_t nv, nm, i, cases = 0, mpfr_cases = 0, taken = 0;
    unsigned long calls = 0;
    pts p = boundary_set(rf, &nv, &nm);
    const ref_info *info = ref_format_info(rf);
    int s, m, sat, j;
    uint32_t ncodes = ref_count_finite(rf);

    /* every value and every midpoint of these formats is an f32 */
    ck_assert_uint_eq(nv, ncodes);
    ck_assert_uint_eq(nm, ncodes);
    ck_assert_uint_ge(p.n, 3 * (size_t)ncodes);

    for (i = 0; i < p.n; i++) {
        if (!mf_test_take(&calls)) /* MF_TEST_SAMPLE: a point in k (tests/mf_test.h) */
            continue;
        taken++;
        for (s = 0; s < 2; s++) {
            uint32_t bits = p.v[i] | (s ? 0x80000000u : 0);
            float x = mf_test_bits_f32(bits);
            uint32_t frac = ref_sr_fraction(rf, fabs((double)x));
            unsigned ev_mask = ~0u;
            for (m = 0; m < REF_NMODES; m++)
                for (sat = 0; sat < 2; sat++) {
                    mf_overflow pol = sat ? MF_OVERFLOW_SATURATE : MF_OVERFLOW_IEEE;
                    int nr = m == REF_SR ? N_RBITS : 1;
                    for (j = 0; j < nr; j++) {
                        uint32_t rb;
                        ref_events rev;
                        unsigned ev = 0;
                        uint32_t want, got;
                        if (m != REF_SR)
                            rb = rnd32(); /* must be ignored */
                        else if (j < N_FIXED_RBITS)
                            rb = fixed_rbits[j];
                        else if (j == N_FIXED_RBITS)
                            rb = rnd32();
                        else /* threshold - 1, threshold, threshold + 1 */
                            rb = (uint32_t)(0u - frac) + (uint32_t)(j - N_FIXED_RBITS - 2);
                        want = ref_round(rf, (double)x, m, sat, rb, &rev);
                        got = mf_from_f32_ev(mf, x, modes[m], pol, rb, &ev);
                        MF_EXPECT(got == want, "%s x=%a (0x%08x) mode %d sat %d rbits 0x%08x: got 0x%x want 0x%x",
                                  info->name, (double)x, bits, m, sat, rb, got, want);
                        MF_EXPECT((ev & ev_mask) == (ref_event_bits(&rev) & ev_mask),
                                  "%s x=%a (0x%08x) mode %d sat %d rbits 0x%08x: events got 0x%x want 0x%x",
                                  info->name, (double)x, bits, m, sat, rb, ev, ref_event_bits(&rev));
                        if (m != REF_SR || j == 0 || j == N_FIXED_RBITS) {
                            int ov;
                            uint32_t mp = mpfr_ref_round(rf, (double)x, m, sat, rb, &ov);
                            MF_EXPECT(mp == got, "%s x=%a mode %d sat %d rbits 0x%08x: mpfr 0x%x got 0x%x",
                                      info->name, (double)x, m, sat, rb, mp, got);
                            MF_EXPECT(isnan(x) || isinf(x) || ov == rev.overflow, "%s x=%a overflow flags", info->name,
                                      (double)x);
                            mpfr_cases++;
                        }
                        cases++;
                    }
                }
        }
    }
    /* visited: every point (MF_TEST_SAMPLE: one in k), both signs, 6 modes + sr with N_RBITS values, 2 policies */
    ck_assert_uint_ge(taken, p.n / mf_test_sample());
    ck_assert_uint_eq(cases, taken * 2 * 2 * (REF_NMODES - 1 + N_RBITS));
    ck_assert_uint_eq(mpfr_cases, taken * 2 * 2 * (REF_NMODES - 1 + 2));
    printf("boundary %-11s points %6zu of %6zu, cases %9zu (mpfr %8zu)\n", info->name, taken, p.n, cases, mpfr_cases);
    free(p.v);
}

START_TEST(test_boundary_format) { sweep_format((size_t)_i); }
END_TEST

/* The bits a NaN code decodes to (docs/formats.md, "NaN in, widening"): the code's sign, the quiet bit
 * and the code's mantissa at the top of the wider mantissa; bf16 -> f32 is the plain shift. FNUZ's
 * 0x80: sign set, mantissa 0 (f32 0xFFC00000, f64 0xFFF8000000000000). P3109's one NaN: the quiet NaN. */
static uint32_t nan_f32_bits(ref_format rf, uint32_t code)
{
    const ref_info *f = ref_format_info(rf);
    uint32_t m = code & ((1u << f->man_bits) - 1u), s = (f->sign_bit && (code & f->sign_bit)) ? 0x80000000u : 0u;
    if (rf == REF_BF16)
        return code << 16;
    if (f->p3109) /* one NaN without sign or payload: the quiet NaN with zero payload (report 4.8.2) */
        return 0x7FC00000u;
    return s | 0x7FC00000u | (m << (23 - f->man_bits));
}
static uint64_t nan_f64_bits(ref_format rf, uint32_t code)
{
    const ref_info *f = ref_format_info(rf);
    uint64_t m = code & ((1u << f->man_bits) - 1u);
    uint64_t s = (f->sign_bit && (code & f->sign_bit)) ? (uint64_t)1 << 63 : 0u;
    if (f->p3109)
        return 0x7FF8000000000000u;
    return s | 0x7FF8000000000000u | (m << (52 - f->man_bits));
}

/* Every code of every format: decoded exactly (the reference's value, the sign of zero, the NaN bits),
 * and the decoded value converted back from f32 and from f64 in every mode and policy gives what the
 * reference says, which is the code itself for finite codes (NaN codes give the canonical NaN, inf codes
 * +-max when saturating). The named decoders agree with mf_to_f32 / mf_to_f64. */
START_TEST(test_every_code)
{
    const ref_format rf = fmts[_i].r;
    const mf_format mf = fmts[_i].m;
    const ref_info *info = ref_format_info(rf);
    const uint32_t ncodes = 1u << info->bits;
    uint32_t c, nans = 0;
    size_t cases = 0;
    int m, sat;
    for (c = 0; c < ncodes; c++) {
        const double want = ref_decode(rf, c);
        const float x = mf_to_f32(mf, c);
        const double xd = mf_to_f64(mf, c);
        if (isnan(want)) {
            nans++;
            MF_EXPECT(mf_test_f32_bits(x) == nan_f32_bits(rf, c), "%s 0x%x -> f32 0x%08x, want 0x%08x", info->name, c,
                      mf_test_f32_bits(x), nan_f32_bits(rf, c));
            MF_EXPECT(mf_test_f64_bits(xd) == nan_f64_bits(rf, c), "%s 0x%x -> f64 0x%016llx, want 0x%016llx",
                      info->name, c, (unsigned long long)mf_test_f64_bits(xd),
                      (unsigned long long)nan_f64_bits(rf, c));
        } else {
            MF_EXPECT((double)x == want && !signbit(x) == !signbit(want), "%s 0x%x -> f32 %a, want %a", info->name, c,
                      (double)x, want);
            MF_EXPECT(xd == want && !signbit(xd) == !signbit(want), "%s 0x%x -> f64 %a, want %a", info->name, c, xd,
                      want);
        }
        for (m = 0; m < REF_NMODES; m++)
            for (sat = 0; sat < 2; sat++) {
                const mf_overflow pol = sat ? MF_OVERFLOW_SATURATE : MF_OVERFLOW_IEEE;
                const uint32_t rb = rnd32();
                const uint32_t ref = ref_round(rf, want, m, sat, rb, NULL);
                uint32_t expect = isnan(want) ? info->nan_code : c;
                if (isinf(want) && sat)
                    expect = (c & info->sign_bit) | info->max_code;
                if (rf == REF_E8M0 && !isnan(want)) /* e8m0 has no sign: every code is itself */
                    expect = c;
                MF_EXPECT(ref == expect, "the reference re-encodes %s 0x%x as 0x%x (mode %d sat %d), want 0x%x",
                          info->name, c, ref, m, sat, expect);
                MF_EXPECT(mf_from_f32(mf, x, modes[m], pol, rb) == ref, "%s 0x%x -> f32 -> mode %d sat %d: 0x%x, want 0x%x",
                          info->name, c, m, sat, mf_from_f32(mf, x, modes[m], pol, rb), ref);
                MF_EXPECT(mf_from_f64(mf, xd, modes[m], pol, rb) == ref, "%s 0x%x -> f64 -> mode %d sat %d: 0x%x, want 0x%x",
                          info->name, c, m, sat, mf_from_f64(mf, xd, modes[m], pol, rb), ref);
                cases++;
            }
    }
    /* the NaN codes the semantics give each format */
    switch (rf) {
    case REF_F16: ck_assert_uint_eq(nans, 2 * 1023); break;
    case REF_BF16: ck_assert_uint_eq(nans, 2 * 127); break;
    case REF_E4M3: ck_assert_uint_eq(nans, 2); break;
    case REF_E5M2: ck_assert_uint_eq(nans, 2 * 3); break;
    case REF_E8M0: ck_assert_uint_eq(nans, 1); break;
    case REF_E4M3FNUZ:
    case REF_E5M2FNUZ:
    case REF_E4M3B11FNUZ: ck_assert_uint_eq(nans, 1); break; /* 0x80 only */
    case REF_E4M3IEEE: ck_assert_uint_eq(nans, 2 * 7); break; /* 0x79..0x7F and 0xF9..0xFF */
    case REF_E3M4: ck_assert_uint_eq(nans, 2 * 15); break;    /* 0x71..0x7F and 0xF1..0xFF */
    case REF_E2M3:
    case REF_E3M2:
    case REF_E2M1: ck_assert_uint_eq(nans, 0); break;
    default: /* P3109: one NaN, 0x80 signed and 0xFF unsigned (K = 8) */
        ck_assert_msg(info->p3109, "%s: write its NaN codes' count here, from its specification", info->name);
        ck_assert_uint_eq(nans, 1);
        break;
    }
    ck_assert_uint_eq(cases, (size_t)ncodes * REF_NMODES * 2);
}
END_TEST

/* f32 -> f32 is the identity in every mode and policy, NaN payloads included (rule 9). */
START_TEST(test_f32_identity)
{
    size_t k, i, cases = 0;
    int s, m, sat;
    for (k = 0; k < NFMT; k++) {
        size_t nv, nm;
        pts p = boundary_set(fmts[k].r, &nv, &nm);
        for (i = 0; i < p.n; i++)
            for (s = 0; s < 2; s++)
                for (m = 0; m < REF_NMODES; m++)
                    for (sat = 0; sat < 2; sat++) {
                        uint32_t bits = p.v[i] | (s ? 0x80000000u : 0), rb = rnd32();
                        float x = mf_test_bits_f32(bits);
                        unsigned ev = 0, want_ev = isnan(x) ? MF_EVENT_NAN : 0;
                        uint32_t got = mf_from_f32_ev(MF_FP32, x, modes[m],
                                                      sat ? MF_OVERFLOW_SATURATE : MF_OVERFLOW_IEEE, rb, &ev);
                        MF_EXPECT(got == bits, "f32 identity 0x%08x mode %d: got 0x%08x", bits, m, got);
                        /* subnormal outputs: test_f32_identity_subnormal_event */
                        MF_EXPECT((ev & ~(unsigned)MF_EVENT_SUBNORMAL) == want_ev,
                                  "f32 identity 0x%08x mode %d: events 0x%x want 0x%x", bits, m, ev, want_ev);
                        cases++;
                    }
        free(p.v);
    }
    ck_assert_uint_gt(cases, 1000000);
    printf("f32 identity cases %zu\n", cases);
}
END_TEST

/* Rule 11, subnormal: "nonzero subnormal output". f32 -> f32 of a nonzero f32 subnormal outputs
 * that subnormal, so the event is due (f64 -> f32 reports it; the identity path must too). */
START_TEST(test_f32_identity_subnormal_event)
{
    uint32_t b, cases = 0, n = 0;
    int s, m;
    for (b = 1; b != 0; b = b == 0x007FFFFFu ? 0 : (b + 0x1FFFu < 0x00800000u ? b + 0x1FFFu : 0x007FFFFFu), n++)
        for (s = 0; s < 2; s++) /* nonzero f32 subnormals from 0x00000001 to 0x007FFFFF, both signs */
            for (m = 0; m < REF_NMODES; m++) {
                uint32_t bits = b | (s ? 0x80000000u : 0);
                unsigned ev = 0;
                mf_from_f32_ev(MF_FP32, mf_test_bits_f32(bits), modes[m], MF_OVERFLOW_IEEE, 0, &ev);
                MF_EXPECT(ev == MF_EVENT_SUBNORMAL, "f32 -> f32 of subnormal 0x%08x mode %d: events 0x%x want 0x%x",
                          bits, m, ev, (unsigned)MF_EVENT_SUBNORMAL);
                cases++;
            }
    ck_assert_uint_eq(n, 0x007FFFFFu / 0x1FFFu + 2);
    ck_assert_uint_eq(cases, 2 * REF_NMODES * n);
}
END_TEST

/* e8m0 rounds |x| (rule 8) and its events describe that conversion (docs/rounding.md): -2^k gives
 * +2^k with no event. */
START_TEST(test_e8m0_negative_exact)
{
    int k, m, sat;
    size_t cases = 0;
    for (k = -127; k <= 127; k++)
        for (m = 0; m < REF_NMODES; m++)
            for (sat = 0; sat < 2; sat++) {
                float x = -ldexpf(1.0f, k);
                unsigned ev = 0;
                ref_events rev;
                uint32_t want = ref_round(REF_E8M0, x, m, sat, 0, &rev);
                uint32_t got = mf_from_f32_ev(MF_E8M0, x, modes[m], sat ? MF_OVERFLOW_SATURATE : MF_OVERFLOW_IEEE,
                                              0, &ev);
                MF_EXPECT(got == want && want == (uint32_t)(k + 127), "e8m0 of -2^%d: 0x%x", k, got);
                /* e8m0 converts |x| (docs/rounding.md): -2^k -> 2^k is exact, no event */
                MF_EXPECT(!rev.inexact, "the reference must call -2^%d -> +2^%d exact", k, k);
                MF_EXPECT(ev == 0, "e8m0 of -2^%d mode %d: events 0x%x want 0", k, m, ev);
                cases++;
            }
    ck_assert_uint_eq(cases, 255 * REF_NMODES * 2);
}
END_TEST

/* The oracles themselves agree on the spec's own examples (a failing oracle must not hide). */
START_TEST(test_oracle_examples)
{
    ck_assert_uint_eq(ref_round(REF_E4M3, 464, REF_RN, 0, 0, NULL), 0x7E);
    ck_assert_uint_eq(ref_round(REF_E4M3, 465, REF_RN, 0, 0, NULL), 0x7F);
    ck_assert_uint_eq(ref_round(REF_E4M3, 465, REF_RN, 1, 0, NULL), 0x7E);
    ck_assert_uint_eq(ref_round(REF_E5M2, 61440, REF_RN, 0, 0, NULL), 0x7C);
    ck_assert_uint_eq(ref_round(REF_E2M1, 5.0, REF_RN, 0, 0, NULL), 0x6);
    ck_assert_uint_eq(ref_round(REF_E2M1, 0.25, REF_RN, 0, 0, NULL), 0x0);
    ck_assert_uint_eq(ref_round(REF_E4M3, 449, REF_RO, 0, 0, NULL), 0x7E);
    ck_assert_uint_eq(ref_round(REF_E8M0, 1.5, REF_RN, 0, 0, NULL), 0x80);
    ck_assert_uint_eq(ref_round(REF_E8M0, 3.0, REF_RN, 0, 0, NULL), 0x81);
    ck_assert_uint_eq(mpfr_ref_round(REF_E4M3, 464, REF_RN, 0, 0, NULL), 0x7E);
    ck_assert_uint_eq(mpfr_ref_round(REF_E4M3, 465, REF_RN, 0, 0, NULL), 0x7F);
    ck_assert_uint_eq(mpfr_ref_round(REF_E5M2, 61440, REF_RN, 0, 0, NULL), 0x7C);
    ck_assert_uint_eq(mpfr_ref_round(REF_E2M1, 5.0, REF_RN, 0, 0, NULL), 0x6);
    ck_assert_uint_eq(mpfr_ref_round(REF_E2M1, 0.25, REF_RN, 0, 0, NULL), 0x0);
    ck_assert_uint_eq(mpfr_ref_round(REF_E4M3, 449, REF_RO, 0, 0, NULL), 0x7E);
    ck_assert_uint_eq(mpfr_ref_round(REF_E8M0, 1.5, REF_RN, 0, 0, NULL), 0x80);
    ck_assert_uint_eq(mpfr_ref_round(REF_E8M0, 3.0, REF_RN, 0, 0, NULL), 0x81);
    ck_assert_uint_eq(mpfr_ref_round(REF_E2M1, -0.75, REF_RNA, 0, 0, NULL), 0xA);
    ck_assert_uint_eq(ref_round(REF_E2M1, -0.75, REF_RNA, 0, 0, NULL), 0xA);
    /* sr: e2m1 between 2 and 3, x = 2.25 has f = 1/4: up iff rbits >= 0xC0000000 */
    ck_assert_uint_eq(ref_round(REF_E2M1, 2.25, REF_SR, 0, 0xBFFFFFFFu, NULL), 0x4);
    ck_assert_uint_eq(ref_round(REF_E2M1, 2.25, REF_SR, 0, 0xC0000000u, NULL), 0x5);
    ck_assert_uint_eq(mpfr_ref_round(REF_E2M1, 2.25, REF_SR, 0, 0xBFFFFFFFu, NULL), 0x4);
    ck_assert_uint_eq(mpfr_ref_round(REF_E2M1, 2.25, REF_SR, 0, 0xC0000000u, NULL), 0x5);
}
END_TEST

/* The same for the FNUZ and IEEE-style FP8 formats, worked by hand from docs/formats.md: both oracles,
 * codes and events. */
static void fp8_example(ref_format f, double x, int mode, int sat, uint32_t rbits, uint32_t want, unsigned want_ev)
{
    ref_events ev;
    int ov;
    const uint32_t got = ref_round(f, x, mode, sat, rbits, &ev);
    ck_assert_msg(got == want, "ref %s %a mode %d sat %d: 0x%x, want 0x%x", ref_format_info(f)->name, x, mode, sat,
                  got, want);
    ck_assert_msg(ref_event_bits(&ev) == want_ev, "ref %s %a mode %d sat %d: events 0x%x, want 0x%x",
                  ref_format_info(f)->name, x, mode, sat, ref_event_bits(&ev), want_ev);
    ck_assert_msg(mpfr_ref_round(f, x, mode, sat, rbits, &ov) == want, "mpfr %s %a mode %d sat %d: 0x%x, want 0x%x",
                  ref_format_info(f)->name, x, mode, sat, mpfr_ref_round(f, x, mode, sat, rbits, NULL), want);
    ck_assert_int_eq(ov, isfinite(x) && (want_ev & MF_EVENT_OVERFLOW) != 0);
}

START_TEST(test_oracle_examples_fp8)
{
    const unsigned OV = MF_EVENT_OVERFLOW, UN = MF_EVENT_UNDERFLOW, SUB = MF_EVENT_SUBNORMAL, NA = MF_EVENT_NAN,
                   IN = MF_EVENT_INEXACT;
    /* e4m3fnuz: bias 8, max 240 = 0x7F, the virtual next 256; 248 is the tie above max */
    fp8_example(REF_E4M3FNUZ, 240, REF_RN, 0, 0, 0x7F, 0);
    fp8_example(REF_E4M3FNUZ, 248, REF_RN, 0, 0, 0x80, OV | IN);  /* IEEE: the NaN */
    fp8_example(REF_E4M3FNUZ, -248, REF_RN, 0, 0, 0x80, OV | IN); /* the NaN has no sign */
    fp8_example(REF_E4M3FNUZ, -248, REF_RN, 1, 0, 0xFF, OV | IN);
    fp8_example(REF_E4M3FNUZ, 247, REF_RN, 0, 0, 0x7F, IN);
    fp8_example(REF_E4M3FNUZ, 241, REF_RZ, 0, 0, 0x7F, IN); /* rz: 240 is no overflow */
    fp8_example(REF_E4M3FNUZ, 241, REF_RU, 0, 0, 0x80, OV | IN);
    fp8_example(REF_E4M3FNUZ, -241, REF_RU, 0, 0, 0xFF, IN);
    fp8_example(REF_E4M3FNUZ, -241, REF_RD, 0, 0, 0x80, OV | IN);
    fp8_example(REF_E4M3FNUZ, 241, REF_RO, 0, 0, 0x7F, IN); /* 0x7F is odd: ro stays at max */
    fp8_example(REF_E4M3FNUZ, 256, REF_RO, 0, 0, 0x7F, OV | IN);
    fp8_example(REF_E4M3FNUZ, INFINITY, REF_RN, 0, 0, 0x80, OV | IN);
    fp8_example(REF_E4M3FNUZ, -INFINITY, REF_RN, 0, 0, 0x80, OV | IN);
    fp8_example(REF_E4M3FNUZ, -INFINITY, REF_RZ, 1, 0, 0xFF, OV | IN);
    fp8_example(REF_E4M3FNUZ, -NAN, REF_RN, 0, 0, 0x80, NA);
    fp8_example(REF_E4M3FNUZ, 1.0, REF_RN, 0, 0, 0x40, 0);
    fp8_example(REF_E4M3FNUZ, -1.0, REF_RN, 0, 0, 0xC0, 0);
    fp8_example(REF_E4M3FNUZ, 0x1p-7, REF_RN, 0, 0, 0x08, 0);       /* the smallest normal */
    fp8_example(REF_E4M3FNUZ, 0x1p-10, REF_RN, 0, 0, 0x01, SUB);    /* the smallest subnormal */
    fp8_example(REF_E4M3FNUZ, -0x1p-10, REF_RN, 0, 0, 0x81, SUB);
    fp8_example(REF_E4M3FNUZ, -0.0, REF_RN, 0, 0, 0x00, 0);         /* no -0; exact, no underflow */
    fp8_example(REF_E4M3FNUZ, -0.0, REF_RD, 1, 0, 0x00, 0);
    fp8_example(REF_E4M3FNUZ, -0x1p-11, REF_RN, 0, 0, 0x00, UN | IN); /* a tie with -min: even, +0 */
    fp8_example(REF_E4M3FNUZ, -0x1p-12, REF_RZ, 0, 0, 0x00, UN | IN);
    fp8_example(REF_E4M3FNUZ, -0x1p-12, REF_RU, 0, 0, 0x00, UN | IN);
    fp8_example(REF_E4M3FNUZ, -0x1p-12, REF_RD, 0, 0, 0x81, SUB | IN); /* rd: -min */
    fp8_example(REF_E4M3FNUZ, -0x1p-12, REF_RO, 0, 0, 0x81, SUB | IN); /* ro: 0 inexact -> last bit */
    fp8_example(REF_E4M3FNUZ, -0x1p-12, REF_RNA, 0, 0, 0x00, UN | IN);
    fp8_example(REF_E4M3FNUZ, -0x1p-11, REF_RNA, 0, 0, 0x81, SUB | IN); /* the tie goes away */
    /* sr of -2^-12 = a quarter of min: up (to -min) iff rbits >= 0xC0000000, else +0 */
    fp8_example(REF_E4M3FNUZ, -0x1p-12, REF_SR, 0, 0xBFFFFFFFu, 0x00, UN | IN);
    fp8_example(REF_E4M3FNUZ, -0x1p-12, REF_SR, 0, 0xC0000000u, 0x81, SUB | IN);
    /* e5m2fnuz: bias 16, max 57344 = 0x7F (odd); 61440 ties to the virtual 65536 */
    fp8_example(REF_E5M2FNUZ, 57344, REF_RN, 0, 0, 0x7F, 0);
    fp8_example(REF_E5M2FNUZ, 61440, REF_RN, 0, 0, 0x80, OV | IN);
    fp8_example(REF_E5M2FNUZ, 61440, REF_RN, 1, 0, 0x7F, OV | IN);
    fp8_example(REF_E5M2FNUZ, 61439, REF_RN, 0, 0, 0x7F, IN);
    fp8_example(REF_E5M2FNUZ, 1.0, REF_RN, 0, 0, 0x40, 0);
    fp8_example(REF_E5M2FNUZ, 0x1p-15, REF_RN, 0, 0, 0x04, 0);
    fp8_example(REF_E5M2FNUZ, 0x1p-17, REF_RN, 0, 0, 0x01, SUB);
    fp8_example(REF_E5M2FNUZ, -0x1p-18, REF_RN, 0, 0, 0x00, UN | IN);
    fp8_example(REF_E5M2FNUZ, -0x1p-18, REF_RD, 0, 0, 0x81, SUB | IN);
    /* e4m3b11fnuz: bias 11, max 30 = 0x7F, the virtual 32: 31 is the tie */
    fp8_example(REF_E4M3B11FNUZ, 30, REF_RN, 0, 0, 0x7F, 0);
    fp8_example(REF_E4M3B11FNUZ, 31, REF_RN, 0, 0, 0x80, OV | IN);
    fp8_example(REF_E4M3B11FNUZ, -31, REF_RN, 1, 0, 0xFF, OV | IN);
    fp8_example(REF_E4M3B11FNUZ, 30.5, REF_RN, 0, 0, 0x7F, IN);
    fp8_example(REF_E4M3B11FNUZ, 1.0, REF_RN, 0, 0, 0x58, 0);
    fp8_example(REF_E4M3B11FNUZ, 0x1p-10, REF_RN, 0, 0, 0x08, 0);
    fp8_example(REF_E4M3B11FNUZ, 0x1p-13, REF_RN, 0, 0, 0x01, SUB);
    fp8_example(REF_E4M3B11FNUZ, -0x1p-14, REF_RN, 0, 0, 0x00, UN | IN);
    /* e4m3ieee: max 240 = 0x77 (odd), inf 0x78, NaN made 0x7F, -0 = 0x80 */
    fp8_example(REF_E4M3IEEE, 240, REF_RN, 0, 0, 0x77, 0);
    fp8_example(REF_E4M3IEEE, 248, REF_RN, 0, 0, 0x78, OV | IN);
    fp8_example(REF_E4M3IEEE, -248, REF_RN, 0, 0, 0xF8, OV | IN);
    fp8_example(REF_E4M3IEEE, -248, REF_RN, 1, 0, 0xF7, OV | IN);
    fp8_example(REF_E4M3IEEE, 1000, REF_RZ, 0, 0, 0x77, OV | IN);
    fp8_example(REF_E4M3IEEE, -1000, REF_RU, 0, 0, 0xF7, OV | IN);
    fp8_example(REF_E4M3IEEE, -1000, REF_RD, 0, 0, 0xF8, OV | IN);
    fp8_example(REF_E4M3IEEE, INFINITY, REF_RN, 0, 0, 0x78, 0);
    fp8_example(REF_E4M3IEEE, -INFINITY, REF_RN, 1, 0, 0xF7, OV | IN);
    fp8_example(REF_E4M3IEEE, NAN, REF_RN, 0, 0, 0x7F, NA);
    fp8_example(REF_E4M3IEEE, 1.0, REF_RN, 0, 0, 0x38, 0);
    fp8_example(REF_E4M3IEEE, -0.0, REF_RN, 0, 0, 0x80, 0);
    fp8_example(REF_E4M3IEEE, -0x1p-10, REF_RN, 0, 0, 0x80, UN | IN); /* keeps its sign */
    fp8_example(REF_E4M3IEEE, 0x1p-9, REF_RN, 0, 0, 0x01, SUB);
    /* e3m4: bias 3, max 15.5 = 0x6F (odd), inf 0x70 = the virtual 16: 15.75 is the tie */
    fp8_example(REF_E3M4, 15.5, REF_RN, 0, 0, 0x6F, 0);
    fp8_example(REF_E3M4, 15.75, REF_RN, 0, 0, 0x70, OV | IN);
    fp8_example(REF_E3M4, 15.75, REF_RN, 1, 0, 0x6F, OV | IN);
    fp8_example(REF_E3M4, -15.75, REF_RNA, 0, 0, 0xF0, OV | IN);
    fp8_example(REF_E3M4, 1.0, REF_RN, 0, 0, 0x30, 0);
    fp8_example(REF_E3M4, 1.03125, REF_RN, 0, 0, 0x30, IN); /* a tie with 1.0625: to even */
    fp8_example(REF_E3M4, 1.03125, REF_RNA, 0, 0, 0x31, IN);
    fp8_example(REF_E3M4, 0.25, REF_RN, 0, 0, 0x10, 0); /* the smallest normal */
    fp8_example(REF_E3M4, 0x1p-6, REF_RN, 0, 0, 0x01, SUB);
    fp8_example(REF_E3M4, 0x1p-7, REF_RN, 0, 0, 0x00, UN | IN);
    fp8_example(REF_E3M4, -INFINITY, REF_RN, 0, 0, 0xF0, 0);
    fp8_example(REF_E3M4, NAN, REF_RN, 0, 0, 0x7F, NA);
    /* decoding: the NaN codes, the largest values, the FNUZ 0x80 and 0x81 */
    ck_assert(isnan(ref_decode(REF_E4M3FNUZ, 0x80)) && isnan(ref_decode(REF_E5M2FNUZ, 0x80)) &&
              isnan(ref_decode(REF_E4M3B11FNUZ, 0x80)));
    ck_assert(ref_decode(REF_E4M3FNUZ, 0x81) == -0x1p-10 && ref_decode(REF_E4M3FNUZ, 0xFF) == -240);
    ck_assert(ref_decode(REF_E5M2FNUZ, 0x81) == -0x1p-17 && ref_decode(REF_E5M2FNUZ, 0xFF) == -57344);
    ck_assert(ref_decode(REF_E4M3B11FNUZ, 0x81) == -0x1p-13 && ref_decode(REF_E4M3B11FNUZ, 0xFF) == -30);
    ck_assert(ref_decode(REF_E4M3IEEE, 0x78) == INFINITY && isnan(ref_decode(REF_E4M3IEEE, 0x79)) &&
              ref_decode(REF_E4M3IEEE, 0xF7) == -240 && signbit(ref_decode(REF_E4M3IEEE, 0x80)));
    ck_assert(ref_decode(REF_E3M4, 0xF0) == -INFINITY && isnan(ref_decode(REF_E3M4, 0x71)) &&
              ref_decode(REF_E3M4, 0x6F) == 15.5 && ref_decode(REF_E3M4, 0x01) == 0x1p-6);
}
END_TEST

int main(void)
{
    Suite *s;
    if (ref_pairs(fmts, 0) != NFMT)
        return 1;
    s = suite_create("boundary");
    TCase *tc = tcase_create("boundary");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_oracle_examples);
    tcase_add_test(tc, test_oracle_examples_fp8);
    tcase_add_loop_test(tc, test_boundary_format, 0, (int)NFMT);
    tcase_add_loop_test(tc, test_every_code, 0, (int)NFMT);
    tcase_add_test(tc, test_f32_identity);
    tcase_add_test(tc, test_f32_identity_subnormal_event);
    tcase_add_test(tc, test_e8m0_negative_exact);
    suite_add_tcase(s, tc);
    return mf_run_suite(s);
}
