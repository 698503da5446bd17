/* SPDX-License-Identifier: MIT */
/* tests/test_two_step.c - the round-to-odd promise of docs/rounding.md: f64 -> f32 with ro, then
 * f32 -> fmt with r, equals f64 -> fmt with r directly (r in rn rna rz ru rd; every format narrower
 * than f32). The direct path itself is checked against MPFR elsewhere; here the point is the
 * identity, and that rounding to nearest in the first step would break it (counted, must be > 0). */
#include <math.h>
#include <string.h>

#include "mf_test.h"
#include <minifloat.h>

static uint64_t state = 0x243F6A8885A308D3u;
static uint64_t next(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static const mf_format narrow[] = {MF_FP16,         MF_BF16,         MF_FP8_E4M3,        MF_FP8_E5M2,
                                   MF_FP6_E2M3,     MF_FP6_E3M2,     MF_FP4_E2M1,        MF_E8M0,
                                   MF_FP8_E4M3FNUZ, MF_FP8_E5M2FNUZ, MF_FP8_E4M3B11FNUZ, MF_FP8_E4M3IEEE,
                                   MF_FP8_E3M4};

/* An f64 near a midpoint or a grid point of fmt: a random code, half its ulp, a few f64 ulps off. */
static double near_boundary(mf_format fmt)
{
    mf_format_desc d;
    uint32_t code;
    double v, w;
    int k = (int)(next() % 7) - 3;
    mf_format_describe(fmt, &d);
    code = (uint32_t)(next() % d.max_code);
    v = mf_to_f64(fmt, code);
    w = mf_to_f64(fmt, code + 1);
    v = (next() & 1) ? (v + w) / 2 : v; /* a midpoint (exact in f64) or a grid point */
    while (k > 0) {
        v = nextafter(v, INFINITY);
        k--;
    }
    while (k < 0) {
        v = nextafter(v, -INFINITY);
        k++;
    }
    return (next() & 1) ? -v : v;
}

START_TEST(test_round_to_odd_two_step)
{
    static const mf_round modes[] = {MF_ROUND_NEAREST_EVEN, MF_ROUND_NEAREST_AWAY, MF_ROUND_TOWARD_ZERO,
                                     MF_ROUND_UP, MF_ROUND_DOWN};
    uint64_t cases = 0, rn_first_differs = 0;
    size_t k, m;
    int o, i;
    for (k = 0; k < sizeof narrow / sizeof narrow[0]; k++)
        for (i = 0; i < 200000; i++) {
            double x;
            if (i & 1) {
                x = near_boundary(narrow[k]);
            } else {
                x = mf_test_bits_f64(next());
                if (isnan(x))
                    continue;
                /* keep most exponents within reach of the narrow formats */
                if (i & 2)
                    x = ldexp(frexp(x, &o), (int)(next() % 300) - 150);
            }
            for (m = 0; m < sizeof modes / sizeof modes[0]; m++)
                for (o = 0; o < MF_OVERFLOW_COUNT; o++) {
                    uint32_t direct = mf_from_f64(narrow[k], x, modes[m], (mf_overflow)o, 0);
                    float odd = mf_to_f32(MF_FP32, mf_from_f64(MF_FP32, x, MF_ROUND_ODD, (mf_overflow)o, 0));
                    float near = (float)x;
                    uint32_t two_step = mf_from_f32(narrow[k], odd, modes[m], (mf_overflow)o, 0);
                    MF_EXPECT(two_step == direct, "fmt %d mode %d pol %d x=%a: two-step 0x%x direct 0x%x",
                              (int)narrow[k], (int)modes[m], o, x, two_step, direct);
                    rn_first_differs += mf_from_f32(narrow[k], near, modes[m], (mf_overflow)o, 0) != direct;
                    cases++;
                }
        }
    ck_assert_uint_gt(cases, 10000000);
    ck_assert_uint_gt(rn_first_differs, 1000);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("two_step");
    TCase *tc = tcase_create("two_step");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_round_to_odd_two_step);
    suite_add_tcase(s, tc);
    return mf_run_suite(s);
}
