/* SPDX-License-Identifier: MIT */
/* tests/test_arith.c - the environment-independent binary32 arithmetic of detail/arith.h against the
 * hardware, which (in this process: round-to-nearest-even, no FTZ/DAZ) is IEEE 754 binary32. Random
 * bit patterns of every class, the products and quotients that land near the overflow and underflow
 * thresholds, sums that cancel or carry, and every significand of one binade for the reciprocal. */
#include <math.h>
#include <string.h>

#include "mf_test.h"
#include <minifloat.h>
#include <minifloat/detail/arith.h>

static uint64_t st = 0x9E3779B97F4A7C15u;
static uint32_t rnd32(void)
{
    st ^= st << 13;
    st ^= st >> 7;
    st ^= st << 17;
    return (uint32_t)(st >> 16);
}

/* Operands: anything; or exponents chosen so that results sit near the overflow / underflow edges. */
static void pair(uint32_t *a, uint32_t *b)
{
    uint32_t r = rnd32();
    *a = rnd32();
    *b = rnd32();
    if (r % 4 == 1) { /* exponents summing near 127+127 or near -126-24 */
        uint32_t ea = 1 + rnd32() % 254, eb = (r & 16) ? 254 - ea + rnd32() % 5 : 100 - (ea > 100 ? 100 : ea) + rnd32() % 30;
        if (eb < 1)
            eb = 1;
        if (eb > 254)
            eb = 254;
        *a = (*a & 0x807FFFFFu) | (ea << 23);
        *b = (*b & 0x807FFFFFu) | (eb << 23);
    } else if (r % 4 == 2) { /* one subnormal */
        *a &= 0x807FFFFFu;
    }
}

/* Equal bits, or both NaN (an invalid operation's NaN differs between x86 and our choice). */
static int same(uint32_t got, float want)
{
    return got == mf_test_f32_bits(want) || (isnan(want) && isnan(mf_test_bits_f32(got)));
}

START_TEST(test_mul_div_random)
{
    uint64_t i, n = 20000000, nan_ops = 0;
    for (i = 0; i < n; i++) {
        uint32_t a, b;
        float fa, fb;
        pair(&a, &b);
        fa = mf_test_bits_f32(a);
        fb = mf_test_bits_f32(b);
        MF_EXPECT(same(mf__f32_mul_bits(a, b), fa * fb), "mul 0x%08x * 0x%08x: got 0x%08x want 0x%08x", a, b,
                  mf__f32_mul_bits(a, b), mf_test_f32_bits(fa * fb));
        MF_EXPECT(same(mf__f32_div_bits(a, b), fa / fb), "div 0x%08x / 0x%08x: got 0x%08x want 0x%08x", a, b,
                  mf__f32_div_bits(a, b), mf_test_f32_bits(fa / fb));
        if (isnan(fa) || isnan(fb)) { /* the first NaN operand comes back quieted, payload and sign kept
                                         * (the documented choice; C may commute a hardware product, so the
                                         * expectation is written out rather than taken from fa * fb) */
            uint32_t want = (isnan(fa) ? a : b) | 0x00400000u;
            MF_EXPECT(mf__f32_mul_bits(a, b) == want && mf__f32_div_bits(a, b) == want,
                      "NaN propagation 0x%08x 0x%08x", a, b);
            nan_ops++;
        }
    }
    ck_assert_uint_gt(nan_ops, 1000);
}
END_TEST

START_TEST(test_special_operands)
{
    static const uint32_t sp[] = {0, 0x80000000u, 1, 0x80000001u, 0x007FFFFFu, 0x00800000u, 0x3F800000u, 0xBF800000u,
                                  0x7F7FFFFFu, 0xFF7FFFFFu, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0x7F800001u,
                                  0xFFC12345u, 0x00400000u, 0x4B000000u, 0x33800000u};
    size_t i, j, n = sizeof sp / sizeof sp[0];
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            float fa = mf_test_bits_f32(sp[i]), fb = mf_test_bits_f32(sp[j]);
            ck_assert_msg(same(mf__f32_mul_bits(sp[i], sp[j]), fa * fb), "mul 0x%08x 0x%08x", sp[i], sp[j]);
            ck_assert_msg(same(mf__f32_div_bits(sp[i], sp[j]), fa / fb), "div 0x%08x 0x%08x", sp[i], sp[j]);
        }
    /* invalid operations give 0x7FC00000 (documented) */
    ck_assert_uint_eq(mf__f32_mul_bits(0x7F800000u, 0), 0x7FC00000u);
    ck_assert_uint_eq(mf__f32_div_bits(0, 0x80000000u), 0x7FC00000u);
}
END_TEST

/* Sums: random patterns, operands of nearby exponents and either sign (cancellation, carries into the next
 * binade), one operand far smaller (sticky bits), subnormals. */
START_TEST(test_add_random)
{
    uint64_t i, n = 20000000, nan_ops = 0, cancel = 0;
    for (i = 0; i < n; i++) {
        uint32_t a = rnd32(), b = rnd32(), r = rnd32() % 4;
        float fa, fb;
        if (r == 1) /* b within a few binades of a, random sign: cancellation and exact results */
            b = (b & 0x807FFFFFu) | ((((a >> 23) & 0xFFu) + rnd32() % 5 - 2) & 0xFFu) << 23;
        else if (r == 2) /* b = -a nudged by a few ulps */
            b = (a ^ 0x80000000u) + rnd32() % 7 - 3;
        else if (r == 3) /* both subnormal or tiny */
            a &= 0x80FFFFFFu, b &= 0x80FFFFFFu;
        fa = mf_test_bits_f32(a);
        fb = mf_test_bits_f32(b);
        MF_EXPECT(same(mf__f32_add_bits(a, b), fa + fb), "add 0x%08x + 0x%08x: got 0x%08x want 0x%08x", a, b,
                  mf__f32_add_bits(a, b), mf_test_f32_bits(fa + fb));
        if (isnan(fa) || isnan(fb)) {
            uint32_t want = (isnan(fa) ? a : b) | 0x00400000u;
            MF_EXPECT(mf__f32_add_bits(a, b) == want, "NaN propagation 0x%08x 0x%08x", a, b);
            nan_ops++;
        }
        cancel += !isnan(fa) && fa + fb == 0.0f && fa != 0.0f;
    }
    ck_assert_uint_gt(nan_ops, 1000);
    ck_assert_uint_gt(cancel, 1000);
}
END_TEST

START_TEST(test_add_special_operands)
{
    static const uint32_t sp[] = {0,           0x80000000u, 1,           0x80000001u, 0x007FFFFFu,
                                  0x00800000u, 0x80800000u, 0x3F800000u, 0xBF800000u, 0x7F7FFFFFu,
                                  0xFF7FFFFFu, 0x7F7FFFFEu, 0x73800000u, 0x7F800000u, 0xFF800000u,
                                  0x7FC00000u, 0x7F800001u, 0xFFC12345u, 0x33800000u, 0x4B000000u};
    size_t i, j, n = sizeof sp / sizeof sp[0];
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            float fa = mf_test_bits_f32(sp[i]), fb = mf_test_bits_f32(sp[j]);
            ck_assert_msg(same(mf__f32_add_bits(sp[i], sp[j]), fa + fb), "add 0x%08x 0x%08x", sp[i], sp[j]);
        }
    ck_assert_uint_eq(mf__f32_add_bits(0x7F800000u, 0xFF800000u), 0x7FC00000u); /* inf - inf (documented) */
    ck_assert_uint_eq(mf__f32_add_bits(0x80000000u, 0x80000000u), 0x80000000u); /* -0 + -0 */
    ck_assert_uint_eq(mf__f32_add_bits(0x3F800000u, 0xBF800000u), 0);           /* x - x = +0 */
    ck_assert_uint_eq(mf__f32_add_bits(0x7F7FFFFFu, 0x73800000u), 0x7F800000u); /* max + half an ulp: inf */
}
END_TEST

/* (float)(1.0 / (double)s), PyTorch's inverse scale, equals the binary32 quotient 1 / s: every
 * significand of the binade [1, 2), and random s of every exponent. */
START_TEST(test_recip_via_f64)
{
    uint32_t m, i;
    uint64_t checked = 0;
    for (m = 0; m < (1u << 23); m++) {
        uint32_t s = 0x3F800000u | m;
        float want = (float)(1.0 / (double)mf_test_bits_f32(s));
        MF_EXPECT(mf__f32_div_bits(0x3F800000u, s) == mf_test_f32_bits(want), "1/0x%08x: got 0x%08x want 0x%08x", s,
                  mf__f32_div_bits(0x3F800000u, s), mf_test_f32_bits(want));
        checked++;
    }
    for (i = 0; i < 4000000; i++) {
        uint32_t s = rnd32();
        float want = (float)(1.0 / (double)mf_test_bits_f32(s));
        MF_EXPECT(same(mf__f32_div_bits(0x3F800000u, s), want), "1/0x%08x: got 0x%08x want 0x%08x", s,
                  mf__f32_div_bits(0x3F800000u, s), mf_test_f32_bits(want));
        checked++;
    }
    ck_assert_uint_eq(checked, (1u << 23) + 4000000u);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("arith");
    TCase *tc = tcase_create("arith");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_mul_div_random);
    tcase_add_test(tc, test_special_operands);
    tcase_add_test(tc, test_add_random);
    tcase_add_test(tc, test_add_special_operands);
    tcase_add_test(tc, test_recip_via_f64);
    suite_add_tcase(s, tc);
    return mf_run_suite(s);
}
