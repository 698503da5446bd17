/* SPDX-License-Identifier: MIT */
/* tests/test_propagate.c - MF_OVERFLOW_PROPAGATE (the P3109 report's SatPropagate, for every format), unit tier:
 * - scalar, every row the breakpoint oracle states (tests/oracle/breakpoints.h, written from the formats' rules
 *   and not from the library): +-inf in every mode against the oracle's SatPropagate rule, and on a sample of every
 *   other input (every 65521st binary32 pattern of both signs, the neighbours of each format's max and of its
 *   overflow boundary, NaN) the code and events of MF_OVERFLOW_SATURATE, which it must equal there;
 * - mf_convert from f32, f64 and f16 into every format, 1 and 2 threads, with and without counts: each element
 *   as under MF_OVERFLOW_SATURATE but for the infinite inputs, which take the scalar function's code, and the
 *   counts less one overflow and one inexact for each infinity kept;
 * - profiles and the functions that do not take the policy (mf_gemm) refuse it with MF_E_POLICY.
 */
#include "mf_test.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <minifloat.h>

#include "oracle/breakpoints.h"

static void check_scalar(mf_format fmt, double x, unsigned *n)
{
    for (int m = 0; m < MF_ROUND_COUNT; m++) {
        unsigned ep = 0, es = 0;
        const uint32_t rb = 0x9E3779B9u * (uint32_t)(m + 1);
        const uint32_t p = mf_from_f64_ev(fmt, x, (mf_round)m, MF_OVERFLOW_PROPAGATE, rb, &ep);
        const uint32_t s = mf_from_f64_ev(fmt, x, (mf_round)m, MF_OVERFLOW_SATURATE, rb, &es);
        MF_EXPECT(p == s && ep == es, "%s %a mode %d: 0x%x ev %x, saturate 0x%x ev %x", mf_format_name(fmt), x, m, p,
                  ep, s, es);
        if (x == (float)x) {
            const uint32_t p32 = mf_from_f32(fmt, (float)x, (mf_round)m, MF_OVERFLOW_PROPAGATE, rb);
            MF_EXPECT(p32 == p, "%s %a mode %d: from f32 0x%x, from f64 0x%x", mf_format_name(fmt), x, m, p32, p);
        }
        (*n)++;
    }
}

START_TEST(test_propagate_scalar)
{
    unsigned formats = 0, n = 0;
    for (size_t i = 0; mfo_format_at(i); i++) {
        const mfo_fmt *of = mfo_format_at(i);
        mf_format fmt;
        if (mf_format_from_name(of->tag, &fmt) != MF_OK)
            continue;
        formats++;
        for (int neg = 0; neg <= 1; neg++) {
            const double inf = neg ? -INFINITY : INFINITY;
            for (int m = 0; m < MF_ROUND_COUNT; m++) {
                unsigned ev = 0;
                const uint32_t want = mfo_inf_result(of, neg, 2), sat = mfo_inf_result(of, neg, 1);
                const uint32_t got = mf_from_f64_ev(fmt, inf, (mf_round)m, MF_OVERFLOW_PROPAGATE, 0, &ev);
                MF_EXPECT(got == want, "%s %cinf mode %d: 0x%x, oracle 0x%x", of->tag, neg ? '-' : '+', m, got, want);
                MF_EXPECT(mf_from_f32(fmt, (float)inf, (mf_round)m, MF_OVERFLOW_PROPAGATE, 0) == want,
                          "%s %cinf from f32", of->tag, neg ? '-' : '+');
                /* kept: no event; clamped: the overflow SATURATE counts */
                MF_EXPECT(ev == (want == sat ? (unsigned)(MF_EVENT_OVERFLOW | MF_EVENT_INEXACT) : 0u),
                          "%s %cinf: events %x", of->tag, neg ? '-' : '+', ev);
            }
        }
        for (uint64_t u = 0; u < 0x80000000u; u += 65521u)
            for (int neg = 0; neg <= 1; neg++) {
                const float x = mf_test_bits_f32((uint32_t)u | (neg ? 0x80000000u : 0u));
                if (!isinf(x))
                    check_scalar(fmt, x, &n);
            }
        {
            const uint32_t top = mfo_max_code(of);
            const double v[3] = {mfo_mag_value(of, top), mfo_mag_value(of, top + 1),
                                 (mfo_mag_value(of, top) + mfo_mag_value(of, top + 1)) / 2};
            for (int k = 0; k < 3; k++)
                for (int neg = 0; neg <= 1; neg++) {
                    const double x = neg ? -v[k] : v[k];
                    if (!isfinite(x))
                        continue;
                    check_scalar(fmt, x, &n);
                    check_scalar(fmt, nextafter(x, 0), &n);
                    check_scalar(fmt, nextafter(x, x * 2), &n);
                }
            check_scalar(fmt, NAN, &n);
        }
    }
    printf("%u formats, %u inputs x modes against SATURATE\n", formats, n);
    ck_assert_uint_ge(formats, 40);
}
END_TEST

enum { N = 1000 };

static const float VALUES[] = {INFINITY, -INFINITY, NAN, 1e30f, -1e30f, 3.0e38f, 65504.0f, 65520.0f, 448.0f,
                               -500.0f, 1.0f, -2.5f, 1e-40f, 0.0f, -0.0f, 3.4028235e38f, 7.0f, -1e-3f};

START_TEST(test_propagate_convert)
{
    static const mf_format srcs[3] = {MF_FP32, MF_FP64, MF_FP16};
    static float x32[N];
    static double x64[N];
    static uint16_t x16[N];
    static uint64_t got[N], sat[N];
    unsigned checked = 0;
    for (int i = 0; i < N; i++) {
        x32[i] = VALUES[(i * 7) % (int)(sizeof VALUES / sizeof VALUES[0])];
        x64[i] = x32[i];
        x16[i] = (uint16_t)mf_from_f32(MF_FP16, x32[i], MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0);
    }
    for (int k = 0; k < 3; k++)
        for (int d = 0; d < MF_FORMAT_COUNT; d++) {
            const mf_format s = srcs[k], fmt = (mf_format)d;
            const void *src = s == MF_FP32 ? (const void *)x32 : s == MF_FP64 ? (const void *)x64 : (const void *)x16;
            static double xin[N]; /* each element's value */
            if (fmt == s)
                continue;
            for (int i = 0; i < N; i++)
                xin[i] = s == MF_FP16 ? mf_to_f64(MF_FP16, x16[i]) : x64[i];
            for (int m = 0; m < MF_ROUND_COUNT; m++)
                for (int threads = 1; threads <= 2; threads++)
                    for (int count = 0; count <= 1; count++) {
                        mf_stats sp, ss;
                        mf_opts o = {(mf_round)m, MF_OVERFLOW_PROPAGATE, 77, 5, count ? &sp : NULL, threads,
                                     MF_PROFILE_DEFAULT};
                        uint64_t kept = 0;
                        memset(got, 0, sizeof got);
                        memset(sat, 0, sizeof sat);
                        ck_assert_int_eq(mf_convert(fmt, got, s, src, N, &o), MF_OK);
                        o.overflow = MF_OVERFLOW_SATURATE;
                        o.stats = count ? &ss : NULL;
                        ck_assert_int_eq(mf_convert(fmt, sat, s, src, N, &o), MF_OK);
                        for (int i = 0; i < N; i++) {
                            const size_t b = mf_storage_bytes(fmt, 1);
                            uint64_t g = 0, w = 0;
                            if (mf_storage_bytes(fmt, 2) == 1) { /* two codes a byte */
                                g = ((const uint8_t *)got)[i / 2] >> (4 * (i & 1)) & 15u;
                                w = ((const uint8_t *)sat)[i / 2] >> (4 * (i & 1)) & 15u;
                            } else {
                                memcpy(&g, (const uint8_t *)got + i * b, b);
                                memcpy(&w, (const uint8_t *)sat + i * b, b);
                            }
                            if (isinf(xin[i])) { /* the scalar function's code */
                                if (fmt == MF_FP64) {
                                    memcpy(&w, &xin[i], sizeof w);
                                } else {
                                    w = mf_from_f64(fmt, xin[i], (mf_round)m, MF_OVERFLOW_PROPAGATE, 0);
                                }
                                kept += w != mf_from_f64(fmt, xin[i], (mf_round)m, MF_OVERFLOW_SATURATE, 0) ||
                                        fmt == MF_FP64;
                            }
                            MF_EXPECT(g == w, "%s <- %s mode %d threads %d count %d [%d] %g: 0x%llx, want 0x%llx",
                                      mf_format_name(fmt), mf_format_name(s), m, threads, count, i, xin[i],
                                      (unsigned long long)g, (unsigned long long)w);
                        }
                        if (count)
                            MF_EXPECT(sp.overflow + kept == ss.overflow && sp.inexact + kept == ss.inexact &&
                                          sp.underflow == ss.underflow && sp.subnormal == ss.subnormal &&
                                          sp.nan == ss.nan,
                                      "%s <- %s mode %d: counts %llu %llu, saturate %llu %llu, %llu kept",
                                      mf_format_name(fmt), mf_format_name(s), m, (unsigned long long)sp.overflow,
                                      (unsigned long long)sp.inexact, (unsigned long long)ss.overflow,
                                      (unsigned long long)ss.inexact, (unsigned long long)kept);
                        checked++;
                    }
        }
    printf("%u mf_convert calls checked\n", checked);
    ck_assert_uint_gt(checked, 0);
}
END_TEST

START_TEST(test_propagate_refused)
{
    const float a[4] = {1, 2, 3, 4};
    float c[4];
    uint8_t out[4];
    mf_opts o = {MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_PROPAGATE, 0, 0, NULL, 0, MF_PROFILE_TORCH};
    mf_gemm_opts g;
    memset(&g, 0, sizeof g);
    g.overflow = MF_OVERFLOW_PROPAGATE;
    ck_assert_int_eq(mf_convert(MF_FP8_E4M3, out, MF_FP32, a, 4, &o), MF_E_POLICY);
    ck_assert_uint_eq(mf_from_f32_profile(MF_PROFILE_TORCH, MF_FP16, 1.0f, MF_ROUND_NEAREST_EVEN,
                                          MF_OVERFLOW_PROPAGATE),
                      UINT32_MAX);
    ck_assert_uint_eq(mf_from_f32_profile(MF_PROFILE_DEFAULT, MF_FP16, INFINITY, MF_ROUND_NEAREST_EVEN,
                                          MF_OVERFLOW_PROPAGATE),
                      0x7C00u);
    ck_assert_int_eq(mf_gemm(MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, 2, 2, 1, 1.0f, a, MF_FP32, 1, a, MF_FP32, 2, 0.0f,
                             c, MF_FP32, 2, &g),
                     MF_E_POLICY);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("propagate");
    TCase *tc = tcase_create("propagate");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_propagate_scalar);
    tcase_add_test(tc, test_propagate_convert);
    tcase_add_test(tc, test_propagate_refused);
    suite_add_tcase(s, tc);
    return mf_run_suite(s);
}
