/* SPDX-License-Identifier: MIT */
/* tests/test_fp8_recipes.c - FP8 scaling recipes (unit tier).
 *
 * The references here are line-by-line transcriptions of the Transformer Engine code each function
 * matches (common/recipe/recipe_common.cuh compute_scale_from_amax, recipe/delayed_scaling.cu
 * kernel_bulk / kernel, transpose/quantize_transpose_{vector,square}_blockwise.cu, the cast and
 * dequantize kernels), written with plain C float arithmetic in this process's default FP
 * environment (round to nearest, no FTZ/DAZ). That arithmetic is an independent oracle for the
 * library's integer arithmetic; element conversions use the library's scalar mf_from_f32, which the
 * oracle tests establish. Hand-computed cases check each formula at its edges.
 */
#include "mf_test.h"
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#define HAVE_MXCSR 1
#endif

#include <minifloat.h>
#include <minifloat/fp8_scaling.h>

/* ---- helpers --------------------------------------------------------------------------------------- */

static uint64_t rng_state = 0x2545F4914F6CDD1Du;
static uint64_t rnd64(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static uint32_t rnd32(void) { return (uint32_t)(rnd64() >> 32); }

/* Binary32 test data: mostly moderate magnitudes, with subnormals, zeros, infinities and NaNs. */
static float rnd_f32(void)
{
    uint32_t r = rnd32(), sign = (r & 1u) << 31;
    switch ((r >> 1) % 16) {
    case 0: return mf_test_bits_f32(sign | (rnd32() & 0x007FFFFFu));                 /* subnormal or zero */
    case 1: return mf_test_bits_f32(sign);                                           /* +-0 */
    case 2: return mf_test_bits_f32(sign | 0x7F800000u);                             /* +-inf */
    case 3: return mf_test_bits_f32(sign | 0x7FC00000u | (rnd32() & 0x3FFFFFu));     /* NaN */
    case 4: return mf_test_bits_f32(rnd32());                                        /* any pattern */
    default: return mf_test_bits_f32(sign | ((uint32_t)(107 + rnd32() % 40) << 23) | (rnd32() & 0x007FFFFFu));
    }
}

/* A positive finite scale: powers of two, plain values, tiny and huge ones. */
static float rnd_scale(void)
{
    uint32_t r = rnd32();
    switch (r % 6) {
    case 0: return mf_test_bits_f32((uint32_t)(100 + rnd32() % 60) << 23);               /* 2^-27 .. 2^32 */
    case 1: return mf_test_bits_f32(1 + rnd32() % 0x007FFFFFu);                          /* subnormal */
    case 2: return mf_test_bits_f32(0x7F000000u | (rnd32() & 0x007FFFFFu));              /* >= 2^127 */
    default: return mf_test_bits_f32(((uint32_t)(110 + rnd32() % 40) << 23) | (rnd32() & 0x007FFFFFu));
    }
}

static const float bf16_max = 3.38953139e38f; /* 0x7F7F0000 */

/* Reference widening of one element of a f32/f16/bf16 array. */
static float ref_load(mf_format f, const void *p, size_t i)
{
    if (f == MF_FP32)
        return ((const float *)p)[i];
    if (f == MF_FP16)
        return mf_to_f32(MF_FP16, ((const uint16_t *)p)[i]);
    return mf_test_bits_f32((uint32_t)((const uint16_t *)p)[i] << 16);
}

/* CUDA's fmaxf (and __hmax): a NaN operand of either kind counts as missing data. C's fmaxf is
 * IEEE 754-2008 maxNum, which glibc makes return NaN for a signalling NaN (bf16 codes 0x7F81..0x7FBF
 * widen to signalling binary32 NaNs), so the transcriptions use this instead. */
static float cuda_fmaxf(float a, float b)
{
    if (isnan(a))
        return b;
    if (isnan(b))
        return a;
    return fmaxf(a, b);
}

/* Reference amax: TE's `max = fmaxf(fabsf(x), max)` from max = 0. */
static float ref_amax(mf_format f, const void *p, size_t n)
{
    size_t i;
    if (f == MF_FP64) {
        double m = 0;
        for (i = 0; i < n; i++)
            if (!isnan(((const double *)p)[i])) /* CUDA-style: NaN is missing data */
                m = fmax(fabs(((const double *)p)[i]), m);
        return (float)m;
    }
    {
        float m = 0;
        for (i = 0; i < n; i++)
            m = cuda_fmaxf(fabsf(ref_load(f, p, i)), m);
        return m;
    }
}

/* TE compute_scale_from_amax (recipe_common.cuh), transcribed. */
static float ref_scale_from_amax(float amax, float max_fp8, int pow2, float epsilon, float value_for_inf)
{
    volatile float scale = 1.f;
    if (amax < epsilon)
        amax = epsilon;
    if (isinf(amax) || amax == 0.f || isnan(amax))
        return scale;
    scale = max_fp8 / amax;
    if (isinf(scale))
        scale = value_for_inf;
    if (pow2)
        scale = mf_test_bits_f32(mf_test_f32_bits(scale) & 0xFF800000u);
    return scale;
}

static float ref_recip(float s)
{
    volatile float r = 1.0f / s;
    return r;
}

/* TE's cast: static_cast<fp8>(x * scale), the product in float, then the satfinite rn conversion. */
static uint8_t ref_q(mf_format dst, float x, float scale)
{
    volatile float p = x * scale;
    return (uint8_t)mf_from_f32(dst, p, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE, 0);
}

/* TE's dequantize: float(q) * scale_inv, then static_cast to the output type; returns the code. */
static uint32_t ref_dq(mf_format dst, mf_format src, uint8_t q, float scale_inv)
{
    volatile float p = mf_to_f32(src, q) * scale_inv;
    if (dst == MF_FP32)
        return mf_test_f32_bits(p);
    return mf_from_f32(dst, p, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0);
}

static int is_nan_code(mf_format f, uint32_t c)
{
    return isnan(f == MF_FP32 ? mf_test_bits_f32(c) : mf_to_f32(f, c));
}

static uint32_t out_code(mf_format f, const void *p, size_t i)
{
    if (f == MF_FP32)
        return mf_test_f32_bits(((const float *)p)[i]);
    return ((const uint16_t *)p)[i];
}

/* Fill n elements of a f32/f16/bf16 array with test data. */
static void fill(mf_format f, void *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (f == MF_FP32)
            ((float *)p)[i] = rnd_f32();
        else if (rnd32() % 4 == 0)
            ((uint16_t *)p)[i] = (uint16_t)rnd32(); /* any code */
        else /* moderate magnitudes, so that blocks are not dominated by huge codes */
            ((uint16_t *)p)[i] =
                (uint16_t)mf_from_f32(f,
                                      mf_test_bits_f32((rnd32() & 0x80000000u) |
                                                       ((uint32_t)(112 + rnd32() % 20) << 23) | (rnd32() & 0x7FFFFFu)),
                                      MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0);
    }
}

static double now_s(void) { return (double)clock() / CLOCKS_PER_SEC; }

static const mf_format fp8s[] = {MF_FP8_E4M3, MF_FP8_E5M2};
static const mf_format wides[] = {MF_FP32, MF_FP16, MF_BF16};

/* ---- the scale formula ---------------------------------------------------------------------------- */

START_TEST(test_scale_formula_hand)
{
    float s = 0, si = 0;
    /* plain values */
    ck_assert_uint_eq(mf_test_f32_bits(mf_scale_from_amax(1.0f, 448.0f, 0, 0.0f, FLT_MAX)), mf_test_f32_bits(448.0f));
    ck_assert_uint_eq(mf_test_f32_bits(mf_scale_from_amax(2.0f, 448.0f, 0, 0.0f, FLT_MAX)), mf_test_f32_bits(224.0f));
    ck_assert_uint_eq(mf_test_f32_bits(mf_scale_from_amax(7.0f, 57344.0f, 0, 0.0f, FLT_MAX)),
                      mf_test_f32_bits(8192.0f));
    /* 448/3 = 149.333...: binary32 rn is 0x43155555 (149.33333 = 1.1666..*2^7, mantissa 0x155555 rounds down) */
    ck_assert_uint_eq(mf_test_f32_bits(mf_scale_from_amax(3.0f, 448.0f, 0, 0.0f, FLT_MAX)), 0x43155555u);
    /* pow2: 149.33 -> 128; 448/448 = 1 stays 1; 448/449 < 1 -> 0.5 */
    ck_assert_uint_eq(mf_test_f32_bits(mf_scale_from_amax(3.0f, 448.0f, 1, 0.0f, FLT_MAX)), mf_test_f32_bits(128.0f));
    ck_assert_uint_eq(mf_test_f32_bits(mf_scale_from_amax(448.0f, 448.0f, 1, 0.0f, FLT_MAX)), mf_test_f32_bits(1.0f));
    ck_assert_uint_eq(mf_test_f32_bits(mf_scale_from_amax(449.0f, 448.0f, 1, 0.0f, FLT_MAX)), mf_test_f32_bits(0.5f));
    /* amax 0, -0, inf, NaN -> 1 */
    ck_assert_uint_eq(mf_test_f32_bits(mf_scale_from_amax(0.0f, 448.0f, 0, 0.0f, FLT_MAX)), mf_test_f32_bits(1.0f));
    ck_assert_uint_eq(mf_test_f32_bits(mf_scale_from_amax(-0.0f, 448.0f, 0, 0.0f, FLT_MAX)), mf_test_f32_bits(1.0f));
    ck_assert_uint_eq(mf_test_f32_bits(mf_scale_from_amax(INFINITY, 448.0f, 0, 0.0f, FLT_MAX)), mf_test_f32_bits(1.0f));
    ck_assert_uint_eq(mf_test_f32_bits(mf_scale_from_amax(NAN, 448.0f, 1, 0.0f, FLT_MAX)), mf_test_f32_bits(1.0f));
    /* a NaN amax is not clamped by epsilon (NaN < eps is false): still 1 */
    ck_assert_uint_eq(mf_test_f32_bits(mf_scale_from_amax(NAN, 448.0f, 0, 0.5f, FLT_MAX)), mf_test_f32_bits(1.0f));
    /* denormal amax 2^-140: 448 * 2^140 overflows -> value_for_inf; pow2 turns FLT_MAX into 2^127 */
    ck_assert_uint_eq(mf_test_f32_bits(mf_scale_from_amax(mf_test_bits_f32(0x00000200u), 448.0f, 0, 0.0f, FLT_MAX)),
                      0x7F7FFFFFu);
    ck_assert_uint_eq(mf_test_f32_bits(mf_scale_from_amax(mf_test_bits_f32(0x00000200u), 448.0f, 1, 0.0f, FLT_MAX)),
                      0x7F000000u);
    ck_assert_uint_eq(mf_test_f32_bits(mf_scale_from_amax(mf_test_bits_f32(0x00000200u), 448.0f, 0, 0.0f, 65504.0f)),
                      mf_test_f32_bits(65504.0f));
    ck_assert_uint_eq(mf_test_f32_bits(mf_scale_from_amax(mf_test_bits_f32(0x00000200u), 448.0f, 1, 0.0f, 65504.0f)),
                      mf_test_f32_bits(32768.0f));
    /* smallest normal amax 2^-126: 448 * 2^126 = 1.75 * 2^134 overflows too */
    ck_assert_uint_eq(mf_test_f32_bits(mf_scale_from_amax(mf_test_bits_f32(0x00800000u), 448.0f, 0, 0.0f, FLT_MAX)),
                      0x7F7FFFFFu);
    /* amax 2^-120 (0x03800000): 448 * 2^120 = 1.75 * 2^128 overflows; 2^-119 gives 1.75 * 2^127 */
    ck_assert_uint_eq(mf_test_f32_bits(mf_scale_from_amax(mf_test_bits_f32(0x03800000u), 448.0f, 0, 0.0f, FLT_MAX)),
                      0x7F7FFFFFu);
    ck_assert_uint_eq(mf_test_f32_bits(mf_scale_from_amax(mf_test_bits_f32(0x04000000u), 448.0f, 0, 0.0f, FLT_MAX)),
                      0x7F600000u);
    /* epsilon: amax below it is raised to it; amax 0 with epsilon > 0 gives max/epsilon, not 1 */
    ck_assert_uint_eq(mf_test_f32_bits(mf_scale_from_amax(1e-9f, 448.0f, 0, 0.25f, FLT_MAX)),
                      mf_test_f32_bits(1792.0f));
    ck_assert_uint_eq(mf_test_f32_bits(mf_scale_from_amax(0.0f, 448.0f, 0, 0.25f, FLT_MAX)), mf_test_f32_bits(1792.0f));
    ck_assert_uint_eq(mf_test_f32_bits(mf_scale_from_amax(0.0f, 448.0f, 1, 0.25f, FLT_MAX)), mf_test_f32_bits(1024.0f));
    ck_assert_uint_eq(mf_test_f32_bits(mf_scale_from_amax(1.0f, 448.0f, 0, 0.25f, FLT_MAX)),
                      mf_test_f32_bits(448.0f)); /* above eps */
    /* negative amax (never produced by amax kernels) is clamped to epsilon 0 -> amax 0 -> 1 */
    ck_assert_uint_eq(mf_test_f32_bits(mf_scale_from_amax(-5.0f, 448.0f, 0, 0.0f, FLT_MAX)), mf_test_f32_bits(1.0f));

    /* the FP8 wrappers */
    ck_assert_int_eq(mf_fp8_max(MF_FP8_E4M3, &s), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(s), mf_test_f32_bits(448.0f));
    ck_assert_int_eq(mf_fp8_max(MF_FP8_E5M2, &s), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(s), mf_test_f32_bits(57344.0f));
    ck_assert_int_eq(mf_fp8_current_scale(MF_FP8_E4M3, 4.0f, 0, 0.0f, &s, &si), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(s), mf_test_f32_bits(112.0f));
    ck_assert_uint_eq(mf_test_f32_bits(si), mf_test_f32_bits(1.0f / 112.0f));
    ck_assert_int_eq(mf_fp8_current_scale(MF_FP8_E5M2, 4.0f, 1, 0.0f, &s, NULL), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(s), mf_test_f32_bits(8192.0f)); /* 14336 -> 8192 */
    /* current scaling's value_for_inf is FLT_MAX: scale_inv = 1/FLT_MAX rounds to 2^-128 = 0x00200000 */
    ck_assert_int_eq(mf_fp8_current_scale(MF_FP8_E4M3, mf_test_bits_f32(1), 0, 0.0f, &s, &si), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(s), 0x7F7FFFFFu);
    ck_assert_uint_eq(mf_test_f32_bits(si), 0x00200000u);
    ck_assert_int_eq(mf_fp8_current_scale(MF_FP8_E4M3, mf_test_bits_f32(1), 1, 0.0f, &s, &si), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(s), 0x7F000000u);
    ck_assert_uint_eq(mf_test_f32_bits(si), 0x00400000u); /* 2^-127 */
}
END_TEST

/* Every combination of special and random inputs against the transcription. */
START_TEST(test_scale_formula_random)
{
    static const uint32_t specials[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x00000200u, 0x007FFFFFu,
                                        0x00800000u, 0x3F800000u, 0x43E00000u, 0x7F7FFFFFu, 0x7F800000u,
                                        0xFF800000u, 0x7FC00000u, 0xBF800000u, 0x3A83126Fu, 0x04000000u};
    static const float maxes[] = {448.0f, 57344.0f, 6.0f, 1.0f};
    static const float epss[] = {0.0f, 1e-12f, 0.25f, 1.0f};
    static const float vfis[] = {FLT_MAX, 65504.0f, 3.38953139e38f};
    unsigned long count = 0;
    size_t a, m, e, v;
    int pow2, k;
    for (m = 0; m < 4; m++)
        for (e = 0; e < 4; e++)
            for (v = 0; v < 3; v++)
                for (pow2 = 0; pow2 < 2; pow2++) {
                    for (a = 0; a < sizeof specials / sizeof specials[0]; a++) {
                        float amax = mf_test_bits_f32(specials[a]);
                        float want = ref_scale_from_amax(amax, maxes[m], pow2, epss[e], vfis[v]);
                        float got = mf_scale_from_amax(amax, maxes[m], pow2, epss[e], vfis[v]);
                        MF_EXPECT(mf_test_f32_bits(got) == mf_test_f32_bits(want),
                                  "amax %08x max %g eps %g pow2 %d: %08x want %08x", (unsigned)specials[a], maxes[m],
                                  epss[e], pow2, (unsigned)mf_test_f32_bits(got), (unsigned)mf_test_f32_bits(want));
                        count++;
                    }
                    for (k = 0; k < 2000; k++) {
                        float amax = mf_test_bits_f32(rnd32() & 0x7FFFFFFFu);
                        float want = ref_scale_from_amax(amax, maxes[m], pow2, epss[e], vfis[v]);
                        float got = mf_scale_from_amax(amax, maxes[m], pow2, epss[e], vfis[v]);
                        MF_EXPECT(mf_test_f32_bits(got) == mf_test_f32_bits(want), "amax %08x: %08x want %08x",
                                  (unsigned)mf_test_f32_bits(amax), (unsigned)mf_test_f32_bits(got),
                                  (unsigned)mf_test_f32_bits(want));
                        count++;
                    }
                }
    ck_assert_uint_eq(count, 4ul * 4 * 3 * 2 * (15 + 2000));
}
END_TEST

/* ---- amax ------------------------------------------------------------------------------------------ */

START_TEST(test_amax)
{
    static const size_t sizes[] = {1, 2, 7, 31, 4095, 4096, 4097, 10000};
    float f32[10000], got;
    uint16_t h[10000];
    double d[10000];
    unsigned long count = 0;
    size_t s, i, k;
    /* hand cases */
    {
        float a[4] = {-5.0f, 3.0f, NAN, -0.0f};
        ck_assert_int_eq(mf_amax(MF_FP32, a, 4, &got), MF_OK);
        ck_assert_uint_eq(mf_test_f32_bits(got), mf_test_f32_bits(5.0f));
        a[1] = -INFINITY;
        ck_assert_int_eq(mf_amax(MF_FP32, a, 4, &got), MF_OK);
        ck_assert_uint_eq(mf_test_f32_bits(got), mf_test_f32_bits(INFINITY));
        a[0] = a[1] = a[3] = NAN; /* only NaNs: amax 0 */
        ck_assert_int_eq(mf_amax(MF_FP32, a, 4, &got), MF_OK);
        ck_assert_uint_eq(mf_test_f32_bits(got), 0u);
        a[0] = -0.0f;
        ck_assert_int_eq(mf_amax(MF_FP32, a, 1, &got), MF_OK);
        ck_assert_uint_eq(mf_test_f32_bits(got), 0u); /* +0, not -0 */
        a[0] = mf_test_bits_f32(0x80000003u);
        a[1] = mf_test_bits_f32(0x00000002u);
        ck_assert_int_eq(mf_amax(MF_FP32, a, 2, &got), MF_OK);
        ck_assert_uint_eq(mf_test_f32_bits(got), 3u); /* denormals compared exactly */
    }
    {
        uint16_t hh[3] = {0xFC00u /* -inf */, 0x7E00u /* NaN */, 0x3C00u};
        uint16_t bb[3] = {0xC040u /* -3 */, 0x7FC1u /* NaN */, 0x0001u};
        double dd[3] = {-1e300, 0.5, NAN};
        ck_assert_int_eq(mf_amax(MF_FP16, hh + 1, 2, &got), MF_OK);
        ck_assert_uint_eq(mf_test_f32_bits(got), mf_test_f32_bits(1.0f));
        ck_assert_int_eq(mf_amax(MF_FP16, hh, 3, &got), MF_OK);
        ck_assert_uint_eq(mf_test_f32_bits(got), mf_test_f32_bits(INFINITY));
        ck_assert_int_eq(mf_amax(MF_BF16, bb, 3, &got), MF_OK);
        ck_assert_uint_eq(mf_test_f32_bits(got), mf_test_f32_bits(3.0f));
        ck_assert_int_eq(mf_amax(MF_BF16, bb + 2, 1, &got), MF_OK);
        ck_assert_uint_eq(mf_test_f32_bits(got), 0x00010000u); /* bf16 denormal 2^-133, exact */
        ck_assert_int_eq(mf_amax(MF_FP64, dd, 3, &got), MF_OK);
        ck_assert_uint_eq(mf_test_f32_bits(got), mf_test_f32_bits(INFINITY)); /* 1e300 rounds to +inf in binary32 */
        ck_assert_int_eq(mf_amax(MF_FP64, dd + 1, 2, &got), MF_OK);
        ck_assert_uint_eq(mf_test_f32_bits(got), mf_test_f32_bits(0.5f));
    }
    ck_assert_int_eq(mf_amax(MF_FP32, NULL, 0, &got), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(got), 0u);
    /* random arrays against fmaxf */
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (k = 0; k < 4; k++) {
            size_t n = sizes[s];
            float want;
            for (i = 0; i < n; i++) {
                f32[i] = rnd_f32();
                h[i] = (uint16_t)rnd32();
                d[i] = (double)rnd_f32() * (rnd32() % 2 ? 1e-30 : 1e30);
            }
            if (k == 3) /* NaN at the first and last position, the max in between */
                f32[0] = f32[n - 1] = NAN;
            ck_assert_int_eq(mf_amax(MF_FP32, f32, n, &got), MF_OK);
            want = ref_amax(MF_FP32, f32, n);
            MF_EXPECT(mf_test_f32_bits(got) == mf_test_f32_bits(want), "f32 n %zu: %08x want %08x", n,
                      (unsigned)mf_test_f32_bits(got), (unsigned)mf_test_f32_bits(want));
            ck_assert_int_eq(mf_amax(MF_FP16, h, n, &got), MF_OK);
            want = ref_amax(MF_FP16, h, n);
            MF_EXPECT(mf_test_f32_bits(got) == mf_test_f32_bits(want), "f16 n %zu", n);
            ck_assert_int_eq(mf_amax(MF_BF16, h, n, &got), MF_OK);
            want = ref_amax(MF_BF16, h, n);
            MF_EXPECT(mf_test_f32_bits(got) == mf_test_f32_bits(want), "bf16 n %zu", n);
            ck_assert_int_eq(mf_amax(MF_FP64, d, n, &got), MF_OK);
            want = ref_amax(MF_FP64, d, n);
            MF_EXPECT(mf_test_f32_bits(got) == mf_test_f32_bits(want), "f64 n %zu", n);
            count += 4;
        }
    ck_assert_uint_eq(count, 8ul * 4 * 4);
}
END_TEST

/* ---- per-tensor quantize / dequantize -------------------------------------------------------------- */

START_TEST(test_quantize_hand)
{
    float x[8] = {224.0f, 300.0f, -INFINITY, NAN, 0.1f, -1.0f, 1e-30f, 0.0f};
    uint8_t q[8];
    float amax = -1;
    /* scale 2 into e4m3: 448 = 0x7E; 600 saturates to 0x7E; -inf saturates to 0xFE; NaN -> 0x7F;
     * 0.1f * 2 = 0.2f = 1.6 * 2^-3 -> 1.625 * 2^-3 = 0 0100 101 = 0x25; -2 = 0xC0; 2e-30 -> 0; 0 -> 0 */
    ck_assert_int_eq(mf_fp8_quantize(MF_FP8_E4M3, q, MF_FP32, x, 8, 2.0f, &amax), MF_OK);
    ck_assert_uint_eq(q[0], 0x7E);
    ck_assert_uint_eq(q[1], 0x7E);
    ck_assert_uint_eq(q[2], 0xFE);
    ck_assert_uint_eq(q[3], 0x7F);
    ck_assert_uint_eq(q[4], 0x25);
    ck_assert_uint_eq(q[5], 0xC0);
    ck_assert_uint_eq(q[6], 0x00);
    ck_assert_uint_eq(q[7], 0x00);
    ck_assert_uint_eq(mf_test_f32_bits(amax), mf_test_f32_bits(INFINITY)); /* the input amax, before scaling */
    /* e5m2: -inf saturates to -57344 = 0xFB, 600 -> 512 + ... = 0x61? 600 = 1.171875 * 2^9 -> mantissa
     * 0.171875 between 0 and 0.25, nearer 0.25 -> 1.25 * 2^9 = 640 = 0x61 (exp 24 = 0b11000) */
    ck_assert_int_eq(mf_fp8_quantize(MF_FP8_E5M2, q, MF_FP32, x, 4, 2.0f, NULL), MF_OK);
    ck_assert_uint_eq(q[1], 0x61);
    ck_assert_uint_eq(q[2], 0xFB);
    /* Two roundings, as TE: x = 1.0625 + 2^-23, s = 1 - 2^-24. The exact product 1.0625 + 0.468..*2^-23
     * is above the e4m3 midpoint 1.0625 between 1.0 (0x38) and 1.125 (0x39), so one rounding would give
     * 0x39; the binary32 product rounds to 1.0625 exactly and the tie goes to even: 0x38. */
    x[0] = mf_test_bits_f32(0x3F880001u);
    ck_assert_int_eq(mf_fp8_quantize(MF_FP8_E4M3, q, MF_FP32, x, 1, mf_test_bits_f32(0x3F7FFFFFu), NULL), MF_OK);
    ck_assert_uint_eq(q[0], 0x38);
    ck_assert_uint_eq(mf_from_f64(MF_FP8_E4M3,
                                  (double)mf_test_bits_f32(0x3F880001u) * (double)mf_test_bits_f32(0x3F7FFFFFu),
                                  MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE, 0),
                      0x39); /* the single rounding really differs */
    /* the product underflows to a binary32 subnormal and is kept (no FTZ): 2^-130 * 2^-10 = 2^-140, and
     * e4m3 rounds it to 0; with x = 2^-120 and s = 2^111 the product 2^-9 is the e4m3 min subnormal 0x01 */
    x[0] = mf_test_bits_f32(0x03800000u); /* 2^-120 */
    ck_assert_int_eq(mf_fp8_quantize(MF_FP8_E4M3, q, MF_FP32, x, 1, mf_test_bits_f32((127u + 111u) << 23), NULL),
                     MF_OK);
    ck_assert_uint_eq(q[0], 0x01);
    /* n = 0: nothing written, amax 0 */
    q[0] = 0xAA;
    ck_assert_int_eq(mf_fp8_quantize(MF_FP8_E4M3, NULL, MF_FP32, NULL, 0, 1.0f, &amax), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(amax), 0u);
}
END_TEST

START_TEST(test_quantize_random)
{
    static const size_t sizes[] = {1, 3, 17, 4095, 4096, 4097, 9000};
    static float x[9000];
    static uint16_t h[9000];
    static uint8_t q[9000];
    unsigned long count = 0, elems = 0;
    size_t s, d, w, i, rep;
    double t0 = now_s();
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (d = 0; d < 2; d++)
            for (w = 0; w < 3; w++)
                for (rep = 0; rep < 3; rep++) {
                    const size_t n = sizes[s];
                    const mf_format sf = wides[w], df = fp8s[d];
                    const void *src = sf == MF_FP32 ? (const void *)x : (const void *)h;
                    float scale = rnd_scale(), amax = -1, want_amax;
                    fill(sf, sf == MF_FP32 ? (void *)x : (void *)h, n);
                    ck_assert_int_eq(mf_fp8_quantize(df, q, sf, src, n, scale, &amax), MF_OK);
                    for (i = 0; i < n; i++) {
                        uint8_t want = ref_q(df, ref_load(sf, src, i), scale);
                        MF_EXPECT(q[i] == want, "%s->%s i %zu x %08x s %08x: %02x want %02x", mf_format_name(sf),
                                  mf_format_name(df), i, (unsigned)mf_test_f32_bits(ref_load(sf, src, i)),
                                  (unsigned)mf_test_f32_bits(scale), q[i], want);
                    }
                    want_amax = ref_amax(sf, src, n);
                    MF_EXPECT(mf_test_f32_bits(amax) == mf_test_f32_bits(want_amax), "amax %08x want %08x",
                              (unsigned)mf_test_f32_bits(amax), (unsigned)mf_test_f32_bits(want_amax));
                    elems += n;
                    count++;
                }
    ck_assert_uint_eq(count, 7ul * 2 * 3 * 3);
    ck_assert_uint_eq(elems, 2ul * 3 * 3 * (1 + 3 + 17 + 4095 + 4096 + 4097 + 9000));
    printf("test_quantize_random: %lu elements in %.3f s\n", elems, now_s() - t0);
}
END_TEST

START_TEST(test_dequantize)
{
    static uint8_t q[4096];
    static float y[4096];
    static uint16_t yh[4096];
    unsigned long count = 0;
    size_t d, o, i, rep;
    /* hand cases: 448 * 2^-3 = 56; e5m2 max 57344 * 2 overflows f16 to inf but not bf16 or f32 */
    q[0] = 0x7E;
    ck_assert_int_eq(mf_fp8_dequantize(MF_FP32, y, MF_FP8_E4M3, q, 1, 0.125f), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(y[0]), mf_test_f32_bits(56.0f));
    q[0] = 0x7B;
    ck_assert_int_eq(mf_fp8_dequantize(MF_FP16, yh, MF_FP8_E5M2, q, 1, 2.0f), MF_OK);
    ck_assert_uint_eq(yh[0], 0x7C00u);
    ck_assert_int_eq(mf_fp8_dequantize(MF_BF16, yh, MF_FP8_E5M2, q, 1, 2.0f), MF_OK);
    ck_assert_uint_eq(yh[0], 0x47E0u); /* 114688 = 1.75 * 2^16 */
    /* e4m3 0x39 = 1.125 times rn(1/3) = 0x3EAAAAAB = 1/3 + 9.9e-9: the product 0.375 + 1.1e-8 is 0.375 ulp
     * (2^-25) above 0.375 and rounds to 0x3EC00000; bf16 rn -> 0x3EC0 */
    q[0] = 0x39;
    ck_assert_int_eq(mf_fp8_dequantize(MF_FP32, y, MF_FP8_E4M3, q, 1, mf_test_bits_f32(0x3EAAAAABu)), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(y[0]), 0x3EC00000u);
    ck_assert_int_eq(mf_fp8_dequantize(MF_BF16, yh, MF_FP8_E4M3, q, 1, mf_test_bits_f32(0x3EAAAAABu)), MF_OK);
    ck_assert_uint_eq(yh[0], 0x3EC0u);
    /* every code, random scales, each output type */
    for (d = 0; d < 2; d++)
        for (o = 0; o < 3; o++)
            for (rep = 0; rep < 8; rep++) {
                const mf_format df = wides[o], sf = fp8s[d];
                float sinv = rnd_scale();
                void *out = df == MF_FP32 ? (void *)y : (void *)yh;
                for (i = 0; i < 4096; i++)
                    q[i] = (uint8_t)(i < 256 ? i : rnd32());
                ck_assert_int_eq(mf_fp8_dequantize(df, out, sf, q, 4096, sinv), MF_OK);
                for (i = 0; i < 4096; i++) {
                    uint32_t got = out_code(df, out, i), want = ref_dq(df, sf, q[i], sinv);
                    if (is_nan_code(df, want))
                        MF_EXPECT(is_nan_code(df, got), "NaN code %02x", q[i]);
                    else
                        MF_EXPECT(got == want, "%s->%s code %02x sinv %08x: %08x want %08x", mf_format_name(sf),
                                  mf_format_name(df), q[i], (unsigned)mf_test_f32_bits(sinv), (unsigned)got,
                                  (unsigned)want);
                    count++;
                }
            }
    ck_assert_uint_eq(count, 2ul * 3 * 8 * 4096);
}
END_TEST

START_TEST(test_quantize_current)
{
    float x[5] = {1.0f, -3.0f, 2.0f, NAN, 0.5f}, amax, scale, sinv, s2;
    uint8_t q[5];
    static float big[5000];
    static uint8_t qb[5000], qb2[5000];
    size_t i;
    int pow2;
    /* amax 3, scale = rn(448/3) = 0x43155555, scale_inv = rn(3/448)...: compare with the pieces */
    ck_assert_int_eq(mf_fp8_quantize_current(MF_FP8_E4M3, q, MF_FP32, x, 5, 0, 0.0f, &amax, &scale, &sinv), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(amax), mf_test_f32_bits(3.0f));
    ck_assert_uint_eq(mf_test_f32_bits(scale), 0x43155555u);
    ck_assert_uint_eq(mf_test_f32_bits(sinv), mf_test_f32_bits(ref_recip(mf_test_bits_f32(0x43155555u))));
    ck_assert_uint_eq(q[1], 0xFE); /* -3 * 0x43155555: significand 3 * 0x955555 = 0x1BFFFFF, a tie -> -448 */
    ck_assert_uint_eq(q[3], 0x7F);
    for (i = 0; i < 5; i++)
        ck_assert_uint_eq(q[i], ref_q(MF_FP8_E4M3, x[i], mf_test_bits_f32(0x43155555u)));
    /* pow2: 128 */
    ck_assert_int_eq(mf_fp8_quantize_current(MF_FP8_E4M3, q, MF_FP32, x, 5, 1, 0.0f, NULL, &scale, NULL), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(scale), mf_test_f32_bits(128.0f));
    /* zero tensor: scale 1; with epsilon 2^-10 (pow2): 448 * 1024 -> 2^18 */
    memset(x, 0, sizeof x);
    ck_assert_int_eq(mf_fp8_quantize_current(MF_FP8_E4M3, q, MF_FP32, x, 5, 0, 0.0f, &amax, &scale, &sinv), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(scale), mf_test_f32_bits(1.0f));
    ck_assert_uint_eq(mf_test_f32_bits(sinv), mf_test_f32_bits(1.0f));
    ck_assert_int_eq(mf_fp8_quantize_current(MF_FP8_E4M3, q, MF_FP32, x, 5, 1, 0.0009765625f, &amax, &scale, &sinv),
                     MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(scale), mf_test_f32_bits(262144.0f));
    ck_assert_uint_eq(mf_test_f32_bits(sinv), mf_test_f32_bits(1.0f / 262144.0f));
    /* random: equals amax -> current_scale -> quantize */
    for (pow2 = 0; pow2 < 2; pow2++) {
        for (i = 0; i < 5000; i++)
            big[i] = rnd_f32();
        big[17] = 1e-40f; /* keep at least one finite value; the rest is random */
        ck_assert_int_eq(mf_fp8_quantize_current(MF_FP8_E5M2, qb, MF_FP32, big, 5000, pow2, 0.0f, &amax, &scale, &sinv),
                         MF_OK);
        ck_assert_uint_eq(mf_test_f32_bits(amax), mf_test_f32_bits(ref_amax(MF_FP32, big, 5000)));
        ck_assert_uint_eq(mf_test_f32_bits(scale),
                          mf_test_f32_bits(ref_scale_from_amax(amax, 57344.0f, pow2, 0.0f, FLT_MAX)));
        ck_assert_uint_eq(mf_test_f32_bits(sinv), mf_test_f32_bits(ref_recip(scale)));
        ck_assert_int_eq(mf_fp8_quantize(MF_FP8_E5M2, qb2, MF_FP32, big, 5000, scale, NULL), MF_OK);
        ck_assert_int_eq(memcmp(qb, qb2, 5000), 0);
    }
    /* the same with the wrappers */
    ck_assert_int_eq(mf_fp8_current_scale(MF_FP8_E4M3, 3.0f, 0, 0.0f, &s2, NULL), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(s2), 0x43155555u);
}
END_TEST

/* ---- delayed scaling ------------------------------------------------------------------------------- */

/* TE delayed_scaling.cu kernel_bulk (roll_on_zero = 0) / kernel (1), one scale, transcribed. */
typedef struct {
    float h[MF_FP8_HISTORY_MAX];
    size_t len;
    int most_recent, roll_on_zero;
    float scaled_max, scale, scale_inv;
} ref_delayed;

static void ref_delayed_init(ref_delayed *r, mf_format fmt, size_t len, int most_recent, int margin, int roll0)
{
    memset(r, 0, sizeof *r);
    r->len = len;
    r->most_recent = most_recent;
    r->roll_on_zero = roll0;
    r->scaled_max = (fmt == MF_FP8_E4M3 ? 448.0f : 57344.0f) * powf(2.f, (float)-margin);
    r->scale = 1.0f;
    r->scale_inv = 1.0f;
}

static void ref_delayed_record(ref_delayed *r, float amax)
{
    /* atomicMaxFloat: atomicMax on the int bits */
    if ((int32_t)mf_test_f32_bits(amax) > (int32_t)mf_test_f32_bits(r->h[0]))
        r->h[0] = amax;
}

static void ref_delayed_update(ref_delayed *r)
{
    float upd[MF_FP8_HISTORY_MAX];
    const size_t length = r->len;
    const float last_amax = r->h[0];
    float amax = 0;
    volatile float scale;
    size_t i;
    if (r->roll_on_zero || last_amax != 0.0f) {
        for (i = 0; i < length; i++) {
            float a = (i < length - 1) ? r->h[i + 1] : last_amax;
            amax = cuda_fmaxf(amax, a);
            upd[i] = (i > 0) ? a : 0;
        }
        memcpy(r->h, upd, length * sizeof(float));
    }
    if (r->most_recent)
        amax = last_amax;
    if (isfinite(amax) && amax > 0)
        scale = r->scaled_max / amax;
    else
        scale = r->scale;
    if (isinf(scale))
        scale = FLT_MAX;
    r->scale = scale;
    r->scale_inv = 1 / scale;
}

START_TEST(test_delayed_hand)
{
    static mf_fp8_delayed st;
    mf_fp8_delayed_cfg c = mf_fp8_delayed_default(MF_FP8_E4M3);
    ck_assert_uint_eq(c.history_len, 1024);
    ck_assert_int_eq(c.algo, MF_AMAX_ALGO_MAX);
    ck_assert_int_eq(c.margin, 0);
    ck_assert_int_eq(c.roll_on_zero_amax, 0);
    ck_assert_uint_eq(mf_test_f32_bits(c.initial_scale), mf_test_f32_bits(1.0f));

    /* history 3, max: amaxes 2, 7, 1, 1, 1 -> scales 224, 64, 64, 64, 448 (7 stays 3 steps) */
    c.history_len = 3;
    ck_assert_int_eq(mf_fp8_delayed_init(&st, &c), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(st.scale), mf_test_f32_bits(1.0f));
    ck_assert_uint_eq(mf_test_f32_bits(st.scale_inv), mf_test_f32_bits(1.0f));
    ck_assert_uint_eq(mf_test_f32_bits(st.scaled_max), mf_test_f32_bits(448.0f));
    mf_fp8_delayed_record(&st, 2.0f);
    mf_fp8_delayed_update(&st);
    ck_assert_uint_eq(mf_test_f32_bits(st.scale), mf_test_f32_bits(224.0f));
    ck_assert_uint_eq(mf_test_f32_bits(st.scale_inv), mf_test_f32_bits(ref_recip(224.0f)));
    ck_assert(st.history[0] == 0 && st.history[1] == 0 && st.history[2] == 2.0f);
    mf_fp8_delayed_record(&st, 7.0f);
    mf_fp8_delayed_record(&st, 5.0f); /* smaller: history[0] keeps 7 */
    mf_fp8_delayed_update(&st);
    ck_assert_uint_eq(mf_test_f32_bits(st.scale), mf_test_f32_bits(64.0f));
    ck_assert(st.history[0] == 0 && st.history[1] == 2.0f && st.history[2] == 7.0f);
    mf_fp8_delayed_record(&st, 1.0f);
    mf_fp8_delayed_update(&st);
    ck_assert_uint_eq(mf_test_f32_bits(st.scale), mf_test_f32_bits(64.0f));
    ck_assert(st.history[0] == 0 && st.history[1] == 7.0f && st.history[2] == 1.0f); /* 2 dropped */
    mf_fp8_delayed_record(&st, 1.0f);
    mf_fp8_delayed_update(&st);
    ck_assert_uint_eq(mf_test_f32_bits(st.scale), mf_test_f32_bits(64.0f));
    mf_fp8_delayed_record(&st, 1.0f);
    mf_fp8_delayed_update(&st);
    ck_assert_uint_eq(mf_test_f32_bits(st.scale), mf_test_f32_bits(448.0f));
    ck_assert_uint_eq(mf_test_f32_bits(st.scale_inv), mf_test_f32_bits(ref_recip(448.0f)));
    /* a step with amax 0: the fused (bulk) update neither rolls nor changes the scale */
    mf_fp8_delayed_update(&st);
    ck_assert_uint_eq(mf_test_f32_bits(st.scale), mf_test_f32_bits(448.0f));
    ck_assert(st.history[0] == 0 && st.history[1] == 1.0f && st.history[2] == 1.0f);
    ck_assert_uint_eq(st.steps, 6);

    /* per-tensor kernel semantics: amax 0 still rolls */
    c.roll_on_zero_amax = 1;
    ck_assert_int_eq(mf_fp8_delayed_init(&st, &c), MF_OK);
    mf_fp8_delayed_record(&st, 7.0f);
    mf_fp8_delayed_update(&st);
    ck_assert_uint_eq(mf_test_f32_bits(st.scale), mf_test_f32_bits(64.0f));
    mf_fp8_delayed_update(&st);
    ck_assert(st.history[1] == 7.0f && st.history[2] == 0.0f);
    ck_assert_uint_eq(mf_test_f32_bits(st.scale), mf_test_f32_bits(64.0f)); /* max over history still 7 */
    mf_fp8_delayed_update(&st);
    mf_fp8_delayed_update(&st); /* 7 has left the window: amax 0 -> keep 64 */
    ck_assert_uint_eq(mf_test_f32_bits(st.scale), mf_test_f32_bits(64.0f));

    /* most_recent with margin 1: scaled_max 224; amaxes 2, 7, NaN, inf, 0 -> 112, 32, 32, 32, 32 */
    c = mf_fp8_delayed_default(MF_FP8_E4M3);
    c.algo = MF_AMAX_ALGO_MOST_RECENT;
    c.margin = 1;
    c.history_len = 4;
    ck_assert_int_eq(mf_fp8_delayed_init(&st, &c), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(st.scaled_max), mf_test_f32_bits(224.0f));
    mf_fp8_delayed_record(&st, 2.0f);
    mf_fp8_delayed_update(&st);
    ck_assert_uint_eq(mf_test_f32_bits(st.scale), mf_test_f32_bits(112.0f));
    mf_fp8_delayed_record(&st, 7.0f);
    mf_fp8_delayed_update(&st);
    ck_assert_uint_eq(mf_test_f32_bits(st.scale), mf_test_f32_bits(32.0f));
    ck_assert_int_eq(mf_fp8_delayed_record(&st, NAN), MF_OK);
    mf_fp8_delayed_update(&st);
    ck_assert_uint_eq(mf_test_f32_bits(st.scale), mf_test_f32_bits(32.0f));
    ck_assert(isnan(st.history[3])); /* the NaN is kept in the history */
    mf_fp8_delayed_record(&st, INFINITY);
    mf_fp8_delayed_update(&st);
    ck_assert_uint_eq(mf_test_f32_bits(st.scale), mf_test_f32_bits(32.0f));
    mf_fp8_delayed_update(&st);
    ck_assert_uint_eq(mf_test_f32_bits(st.scale), mf_test_f32_bits(32.0f));

    /* max with a NaN and an inf in the history: NaN is ignored, inf freezes the scale until it rolls out */
    c = mf_fp8_delayed_default(MF_FP8_E5M2);
    c.history_len = 2;
    c.margin = -2; /* scaled_max = 57344 * 4 = 229376 */
    ck_assert_int_eq(mf_fp8_delayed_init(&st, &c), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(st.scaled_max), mf_test_f32_bits(229376.0f));
    mf_fp8_delayed_record(&st, NAN);
    mf_fp8_delayed_record(&st, 4.0f); /* NaN already recorded: the integer max keeps it */
    ck_assert(isnan(st.history[0]));
    mf_fp8_delayed_update(&st); /* amax = max(0, NaN) over fmaxf = 0 -> keep 1 */
    ck_assert_uint_eq(mf_test_f32_bits(st.scale), mf_test_f32_bits(1.0f));
    mf_fp8_delayed_record(&st, 8.0f);
    mf_fp8_delayed_update(&st); /* history {8, NaN}: amax 8 -> 28672 */
    ck_assert_uint_eq(mf_test_f32_bits(st.scale), mf_test_f32_bits(28672.0f));
    mf_fp8_delayed_record(&st, INFINITY);
    mf_fp8_delayed_update(&st); /* amax inf: keep */
    ck_assert_uint_eq(mf_test_f32_bits(st.scale), mf_test_f32_bits(28672.0f));
    mf_fp8_delayed_record(&st, 16.0f);
    mf_fp8_delayed_update(&st); /* history {inf, 16}: still inf */
    ck_assert_uint_eq(mf_test_f32_bits(st.scale), mf_test_f32_bits(28672.0f));
    mf_fp8_delayed_record(&st, 16.0f);
    mf_fp8_delayed_update(&st); /* inf rolled out: 229376 / 16 */
    ck_assert_uint_eq(mf_test_f32_bits(st.scale), mf_test_f32_bits(14336.0f));

    /* denormal amax: 448 / 2^-140 overflows -> FLT_MAX, scale_inv = rn(1/FLT_MAX) = 2^-128 */
    c = mf_fp8_delayed_default(MF_FP8_E4M3);
    c.history_len = 1;
    ck_assert_int_eq(mf_fp8_delayed_init(&st, &c), MF_OK);
    mf_fp8_delayed_record(&st, mf_test_bits_f32(0x00000200u));
    mf_fp8_delayed_update(&st);
    ck_assert_uint_eq(mf_test_f32_bits(st.scale), 0x7F7FFFFFu);
    ck_assert_uint_eq(mf_test_f32_bits(st.scale_inv), 0x00200000u);
    ck_assert_uint_eq(mf_test_f32_bits(st.history[0]), 0u); /* length 1: the slot is cleared */
    /* a denormal amax whose quotient is finite: 448 / 2^-127 = 1.75 * 2^135 overflows too; the smallest
     * amax with a finite scale is just above 448 / FLT_MAX = 1.3e-36, a normal number */
    mf_fp8_delayed_record(&st, 1e-36f);
    mf_fp8_delayed_update(&st);
    ck_assert_uint_eq(mf_test_f32_bits(st.scale), 0x7F7FFFFFu);
    mf_fp8_delayed_record(&st, 2e-36f);
    mf_fp8_delayed_update(&st);
    ck_assert_uint_eq(mf_test_f32_bits(st.scale),
                      mf_test_f32_bits(ref_scale_from_amax(2e-36f, 448.0f, 0, 0.0f, FLT_MAX)));
    ck_assert(st.scale < FLT_MAX);

    /* initial scale and margin limits */
    c = mf_fp8_delayed_default(MF_FP8_E5M2);
    c.initial_scale = 0.5f;
    c.margin = 126;
    ck_assert_int_eq(mf_fp8_delayed_init(&st, &c), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(st.scale_inv), mf_test_f32_bits(2.0f));
    ck_assert_uint_eq(mf_test_f32_bits(st.scaled_max), mf_test_f32_bits(57344.0f * 0x1p-126f));
    c.margin = -126; /* 57344 * 2^126 overflows binary32: every scale is FLT_MAX, as in TE */
    ck_assert_int_eq(mf_fp8_delayed_init(&st, &c), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(st.scaled_max), mf_test_f32_bits(INFINITY));
    mf_fp8_delayed_record(&st, 1.0f);
    mf_fp8_delayed_update(&st);
    ck_assert_uint_eq(mf_test_f32_bits(st.scale), 0x7F7FFFFFu);
}
END_TEST

START_TEST(test_delayed_random)
{
    static const size_t lens[] = {1, 2, 3, 16, 1024};
    static const int margins[] = {0, 1, -3, 7};
    static mf_fp8_delayed st;
    static ref_delayed ref;
    unsigned long configs = 0, steps = 0, compared = 0;
    size_t l, d, i;
    int algo, m, roll0, k;
    double t0 = now_s();
    for (l = 0; l < 5; l++)
        for (d = 0; d < 2; d++)
            for (algo = 0; algo < 2; algo++)
                for (m = 0; m < 4; m++)
                    for (roll0 = 0; roll0 < 2; roll0++) {
                        mf_fp8_delayed_cfg c = mf_fp8_delayed_default(fp8s[d]);
                        const int nsteps = lens[l] == 1024 ? 2600 : 300; /* past the history length */
                        c.history_len = lens[l];
                        c.algo = algo ? MF_AMAX_ALGO_MOST_RECENT : MF_AMAX_ALGO_MAX;
                        c.margin = margins[m];
                        c.roll_on_zero_amax = roll0;
                        ck_assert_int_eq(mf_fp8_delayed_init(&st, &c), MF_OK);
                        ref_delayed_init(&ref, fp8s[d], lens[l], algo, margins[m], roll0);
                        ck_assert_uint_eq(mf_test_f32_bits(st.scaled_max), mf_test_f32_bits(ref.scaled_max));
                        for (k = 0; k < nsteps; k++) {
                            int nrec = (int)(rnd32() % 4), j;
                            for (j = 0; j < nrec; j++) {
                                uint32_t r = rnd32();
                                float a;
                                switch (r % 20) {
                                case 0: a = NAN; break;
                                case 1: a = INFINITY; break;
                                case 2: a = 0.0f; break;
                                case 3: a = mf_test_bits_f32(1 + rnd32() % 0x7FFFFFu); break; /* denormal */
                                case 4: a = FLT_MAX; break;
                                default:
                                    a = mf_test_bits_f32(((uint32_t)(1 + rnd32() % 253) << 23) | (rnd32() & 0x7FFFFFu));
                                }
                                ck_assert_int_eq(mf_fp8_delayed_record(&st, a), MF_OK);
                                ref_delayed_record(&ref, a);
                            }
                            ck_assert_int_eq(mf_fp8_delayed_update(&st), MF_OK);
                            ref_delayed_update(&ref);
                            MF_EXPECT(mf_test_f32_bits(st.scale) == mf_test_f32_bits(ref.scale),
                                      "len %zu algo %d margin %d step %d: %08x want %08x", lens[l], algo, margins[m], k,
                                      (unsigned)mf_test_f32_bits(st.scale), (unsigned)mf_test_f32_bits(ref.scale));
                            MF_EXPECT(mf_test_f32_bits(st.scale_inv) == mf_test_f32_bits(ref.scale_inv),
                                      "scale_inv step %d", k);
                            for (i = 0; i < lens[l]; i++)
                                MF_EXPECT(mf_test_f32_bits(st.history[i]) == mf_test_f32_bits(ref.h[i]),
                                          "history[%zu] step %d", i, k);
                            compared += lens[l] + 2;
                            steps++;
                        }
                        ck_assert_uint_eq(st.steps, (uint64_t)nsteps);
                        configs++;
                    }
    ck_assert_uint_eq(configs, 5ul * 2 * 2 * 4 * 2);
    ck_assert_uint_eq(steps, 2ul * 2 * 4 * 2 * (4 * 300 + 2600));
    printf("test_delayed_random: %lu configs, %lu steps, %lu values compared in %.3f s\n", configs, steps, compared,
           now_s() - t0);
}
END_TEST

START_TEST(test_delayed_quantize)
{
    static mf_fp8_delayed st;
    static float x[3000];
    static uint8_t q[3000], q2[3000];
    mf_fp8_delayed_cfg c = mf_fp8_delayed_default(MF_FP8_E4M3);
    float amax;
    size_t i;
    c.history_len = 4;
    ck_assert_int_eq(mf_fp8_delayed_init(&st, &c), MF_OK);
    for (i = 0; i < 3000; i++) {
        x[i] = rnd_f32();
        if (!isfinite(x[i])) /* finite data, so that the max algorithm sees a finite amax */
            x[i] = 1.0f;
    }
    x[5] = 700.0f; /* amax at least 700: the next scale is below 1 and differs from its inverse */
    /* step 1 with scale 1, then the scale from the recorded amax */
    ck_assert_int_eq(mf_fp8_delayed_quantize(&st, q, MF_FP32, x, 3000), MF_OK);
    ck_assert_int_eq(mf_fp8_quantize(MF_FP8_E4M3, q2, MF_FP32, x, 3000, 1.0f, &amax), MF_OK);
    ck_assert_int_eq(memcmp(q, q2, 3000), 0);
    ck_assert_uint_eq(mf_test_f32_bits(st.history[0]), mf_test_f32_bits(amax));
    ck_assert_int_eq(mf_fp8_delayed_update(&st), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(st.scale),
                      mf_test_f32_bits(ref_scale_from_amax(amax, 448.0f, 0, 0.0f, FLT_MAX)));
    ck_assert(st.scale < 1.0f);
    x[6] = -1000.0f; /* a new amax for step 2 */
    ck_assert_int_eq(mf_fp8_delayed_quantize(&st, q, MF_FP32, x, 3000), MF_OK);
    ck_assert_int_eq(mf_fp8_quantize(MF_FP8_E4M3, q2, MF_FP32, x, 3000, st.scale, &amax), MF_OK);
    ck_assert_int_eq(memcmp(q, q2, 3000), 0);
    ck_assert_uint_eq(mf_test_f32_bits(st.history[0]), mf_test_f32_bits(amax));
}
END_TEST

/* ---- block scaling --------------------------------------------------------------------------------- */

static void kind_dims(mf_fp8_block k, size_t *bh, size_t *bw)
{
    *bh = k == MF_FP8_BLOCK_1X128 ? 1 : 128;
    *bw = k == MF_FP8_BLOCK_128X1 ? 1 : 128;
}

/* TE's blockwise kernels, transcribed per block: amax by fmaxf, compute_scale_from_types,
 * scale_inv = 1 / scale, elements static_cast<fp8>(x * scale). */
static void ref_block(mf_format df, uint8_t *q, float *sinv, mf_format sf, const void *x, size_t rows, size_t cols,
                      mf_fp8_block kind, int pow2, float eps)
{
    size_t bh, bw, nbc, br, bc, r, c;
    const float fmax8 = df == MF_FP8_E4M3 ? 448.0f : 57344.0f;
    const float vfi = sf == MF_FP32 ? FLT_MAX : sf == MF_FP16 ? 65504.0f : bf16_max;
    kind_dims(kind, &bh, &bw);
    nbc = (cols + bw - 1) / bw;
    for (br = 0; br * bh < rows; br++)
        for (bc = 0; bc < nbc; bc++) {
            float amax = 0, scale;
            for (r = br * bh; r < rows && r < br * bh + bh; r++)
                for (c = bc * bw; c < cols && c < bc * bw + bw; c++)
                    amax = cuda_fmaxf(amax, fabsf(ref_load(sf, x, r * cols + c)));
            scale = ref_scale_from_amax(amax, fmax8, pow2, eps, vfi);
            sinv[br * nbc + bc] = ref_recip(scale);
            for (r = br * bh; r < rows && r < br * bh + bh; r++)
                for (c = bc * bw; c < cols && c < bc * bw + bw; c++)
                    q[r * cols + c] = ref_q(df, ref_load(sf, x, r * cols + c), scale);
        }
}

START_TEST(test_block_shapes)
{
    size_t sr = 0, sc = 0;
    ck_assert_int_eq(mf_fp8_block_scale_shape(MF_FP8_BLOCK_1X128, 3, 130, &sr, &sc), MF_OK);
    ck_assert(sr == 3 && sc == 2);
    ck_assert_int_eq(mf_fp8_block_scale_shape(MF_FP8_BLOCK_1X128, 5, 128, &sr, &sc), MF_OK);
    ck_assert(sr == 5 && sc == 1);
    ck_assert_int_eq(mf_fp8_block_scale_shape(MF_FP8_BLOCK_128X128, 129, 257, &sr, &sc), MF_OK);
    ck_assert(sr == 2 && sc == 3);
    ck_assert_int_eq(mf_fp8_block_scale_shape(MF_FP8_BLOCK_128X128, 128, 128, &sr, &sc), MF_OK);
    ck_assert(sr == 1 && sc == 1);
    ck_assert_int_eq(mf_fp8_block_scale_shape(MF_FP8_BLOCK_128X1, 200, 5, &sr, &sc), MF_OK);
    ck_assert(sr == 2 && sc == 5);
    ck_assert_int_eq(mf_fp8_block_scale_shape(MF_FP8_BLOCK_128X1, 0, 5, &sr, &sc), MF_OK);
    ck_assert(sr == 0 && sc == 5);
    ck_assert_int_eq(mf_fp8_block_scale_shape((mf_fp8_block)3, 1, 1, &sr, &sc), MF_E_ARG);
    ck_assert_int_eq(mf_fp8_block_scale_shape(MF_FP8_BLOCK_1X128, 1, 1, NULL, &sc), MF_E_NULL);
}
END_TEST

START_TEST(test_block_hand)
{
    static float x[3 * 130], si[8];
    static uint8_t q[3 * 130];
    size_t i;
    /* 1 x 130: block 0 has 128 elements with max 3.5 * 4 = 14 -> 448/14 = 32 -> scale_inv 1/32;
     * the partial block 1 holds {0.5, -3.5}: amax 3.5 -> 128 -> scale_inv 2^-7 */
    for (i = 0; i < 130; i++)
        x[i] = (float)((int)(i % 7) - 3) * 0.5f;
    x[60] = -14.0f;
    x[128] = 0.5f;
    x[129] = -3.5f;
    ck_assert_int_eq(mf_fp8_block_quantize(MF_FP8_E4M3, q, si, MF_FP32, x, 1, 130, MF_FP8_BLOCK_1X128, 1, 0.0f), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(si[0]), mf_test_f32_bits(0.03125f));
    ck_assert_uint_eq(mf_test_f32_bits(si[1]), mf_test_f32_bits(0.0078125f));
    ck_assert_uint_eq(q[60], 0xFE);  /* -14 * 32 = -448 */
    ck_assert_uint_eq(q[129], 0xFE); /* -3.5 * 128 = -448 */
    ck_assert_uint_eq(q[128], 0x68); /* 0.5 * 128 = 64 = 2^6: exponent field 13 -> 0 1101 000 */
    /* non-power-of-two: 448 / 3.5 = 128 exactly, 448 / 14 = 32: the same here */
    ck_assert_int_eq(mf_fp8_block_quantize(MF_FP8_E4M3, q, si, MF_FP32, x, 1, 130, MF_FP8_BLOCK_1X128, 0, 0.0f), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(si[1]), mf_test_f32_bits(0.0078125f));
    /* but with max 3 in block 1: 448/3 = 149.33 (pow2 -> 128), scale_inv 2^-7 vs rn(1/149.33) */
    x[129] = -3.0f;
    ck_assert_int_eq(mf_fp8_block_quantize(MF_FP8_E4M3, q, si, MF_FP32, x, 1, 130, MF_FP8_BLOCK_1X128, 1, 0.0f), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(si[1]), mf_test_f32_bits(0.0078125f));
    ck_assert_uint_eq(q[129], 0xFC); /* -3 * 128 = -384 = -1.5 * 2^8: 1 1111 100 */
}
END_TEST

/* Blocks whose max sits exactly on, one ulp below and one ulp above fp8_max * 2^k. */
START_TEST(test_block_pow2_boundaries)
{
    static float x[4 * 384], si[4 * 3];
    static uint8_t q[4 * 384];
    unsigned long count = 0;
    size_t d, i, j;
    int k;
    for (d = 0; d < 2; d++)
        for (k = -20; k <= 20; k++) {
            const float fmax8 = d == 0 ? 448.0f : 57344.0f;
            const float on = ldexpf(fmax8, k);
            /* rows 0..3, 3 blocks of 128 per row: block j of row i is (on, below, above)[(i + j) % 3] */
            for (i = 0; i < 4 * 384; i++)
                x[i] = ldexpf((float)(rnd32() % 1000) / 1000.0f, k); /* below fmax8 * 2^k */
            for (i = 0; i < 4; i++)
                for (j = 0; j < 3; j++) {
                    float v = (i + j) % 3 == 0 ? on : (i + j) % 3 == 1 ? nextafterf(on, 0) : nextafterf(on, INFINITY);
                    x[i * 384 + j * 128 + (rnd32() % 128)] = (i & 1) ? -v : v;
                }
            ck_assert_int_eq(mf_fp8_block_quantize(fp8s[d], q, si, MF_FP32, x, 4, 384, MF_FP8_BLOCK_1X128, 1, 0.0f),
                             MF_OK);
            for (i = 0; i < 4; i++)
                for (j = 0; j < 3; j++) {
                    /* on: scale 2^-k exactly; below: scale just above 2^-k, rounded down to 2^-k; above: just
                     * below 2^-k, rounded down to 2^-(k+1). scale_inv is the exact reciprocal. */
                    float want = (i + j) % 3 == 2 ? ldexpf(1.0f, k + 1) : ldexpf(1.0f, k);
                    MF_EXPECT(mf_test_f32_bits(si[i * 3 + j]) == mf_test_f32_bits(want),
                              "fmt %zu k %d row %zu block %zu: %08x want %08x", d, k, i, j,
                              (unsigned)mf_test_f32_bits(si[i * 3 + j]), (unsigned)mf_test_f32_bits(want));
                    count++;
                }
            /* the block max maps onto +-fp8_max exactly (on and below) or onto fp8_max/2 range (above) */
            for (i = 0; i < 4 * 384; i++)
                if (fabsf(x[i]) == on) {
                    MF_EXPECT((q[i] & 0x7F) == (d == 0 ? 0x7E : 0x7B), "on: code %02x", q[i]);
                    count++;
                }
            /* without pow2: on gives exactly 2^-k, scale_inv 2^k; the others follow the transcription */
            ck_assert_int_eq(mf_fp8_block_quantize(fp8s[d], q, si, MF_FP32, x, 4, 384, MF_FP8_BLOCK_1X128, 0, 0.0f),
                             MF_OK);
            for (i = 0; i < 4; i++)
                for (j = 0; j < 3; j++)
                    if ((i + j) % 3 == 0) {
                        MF_EXPECT(mf_test_f32_bits(si[i * 3 + j]) == mf_test_f32_bits(ldexpf(1.0f, k)),
                                  "non-pow2 on k %d", k);
                        count++;
                    }
        }
    ck_assert_uint_eq(count, 2ul * 41 * (12 + 4 + 4));
}
END_TEST

START_TEST(test_block_random)
{
    static const size_t shapes[][2] = {{1, 1},   {1, 127},  {1, 128}, {1, 129}, {3, 130},
                                       {127, 129}, {128, 128}, {129, 257}, {200, 384}, {256, 300}};
    static const mf_fp8_block kinds[] = {MF_FP8_BLOCK_1X128, MF_FP8_BLOCK_128X128, MF_FP8_BLOCK_128X1};
    static const float epss[] = {0.0f, 0.0009765625f};
    static float xf[256 * 384], si[256 * 384], si_ref[256 * 384], y[256 * 384];
    static uint16_t xh[256 * 384], yh[256 * 384];
    static uint8_t q[256 * 384], q_ref[256 * 384];
    unsigned long cases = 0, elems = 0;
    size_t s, k, w, d, e, i, o, srows, scols;
    int pow2;
    double t0 = now_s();
    for (s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (k = 0; k < 3; k++)
            for (w = 0; w < 3; w++)
                for (d = 0; d < 2; d++)
                    for (pow2 = 0; pow2 < 2; pow2++)
                        for (e = 0; e < 2; e++) {
                            const size_t rows = shapes[s][0], cols = shapes[s][1], n = rows * cols;
                            const mf_format sf = wides[w], df = fp8s[d];
                            const void *src = sf == MF_FP32 ? (const void *)xf : (const void *)xh;
                            fill(sf, sf == MF_FP32 ? (void *)xf : (void *)xh, n);
                            if (rnd32() % 4 == 0) /* a zero block, where epsilon and the 0 rule matter */
                                for (i = 0; i < n && i < 128; i++) {
                                    xf[i] = 0.0f;
                                    xh[i] = 0;
                                }
                            ck_assert_int_eq(mf_fp8_block_scale_shape(kinds[k], rows, cols, &srows, &scols), MF_OK);
                            ck_assert_int_eq(mf_fp8_block_quantize(df, q, si, sf, src, rows, cols, kinds[k], pow2, epss[e]),
                                             MF_OK);
                            ref_block(df, q_ref, si_ref, sf, src, rows, cols, kinds[k], pow2, epss[e]);
                            for (i = 0; i < n; i++)
                                MF_EXPECT(q[i] == q_ref[i], "shape %zux%zu kind %zu %s->%s pow2 %d i %zu: %02x want %02x",
                                          rows, cols, k, mf_format_name(sf), mf_format_name(df), pow2, i, q[i], q_ref[i]);
                            for (i = 0; i < srows * scols; i++)
                                MF_EXPECT(mf_test_f32_bits(si[i]) == mf_test_f32_bits(si_ref[i]),
                                          "shape %zux%zu kind %zu scale %zu: %08x want %08x", rows, cols, k, i,
                                          (unsigned)mf_test_f32_bits(si[i]), (unsigned)mf_test_f32_bits(si_ref[i]));
                            /* dequantize into each output type */
                            for (o = 0; o < 3; o++) {
                                const mf_format of = wides[o];
                                void *out = of == MF_FP32 ? (void *)y : (void *)yh;
                                size_t bh, bw;
                                kind_dims(kinds[k], &bh, &bw);
                                ck_assert_int_eq(mf_fp8_block_dequantize(of, out, df, q, si, rows, cols, kinds[k]), MF_OK);
                                for (i = 0; i < n; i++) {
                                    float sv = si[(i / cols / bh) * scols + (i % cols) / bw];
                                    uint32_t got = out_code(of, out, i), want = ref_dq(of, df, q[i], sv);
                                    if (is_nan_code(of, want))
                                        MF_EXPECT(is_nan_code(of, got), "dequant NaN");
                                    else
                                        MF_EXPECT(got == want, "dequant %s i %zu: %08x want %08x", mf_format_name(of), i,
                                                  (unsigned)got, (unsigned)want);
                                }
                            }
                            elems += n;
                            cases++;
                        }
    ck_assert_uint_eq(cases, 10ul * 3 * 3 * 2 * 2 * 2);
    printf("test_block_random: %lu cases, %lu elements in %.3f s\n", cases, elems, now_s() - t0);
}
END_TEST

/* value_for_inf depends on the input type, NaN and zero blocks. */
START_TEST(test_block_specials)
{
    static float x[2 * 128], si[4];
    static uint16_t h[2 * 128];
    static uint8_t q[2 * 128];
    size_t i;
    /* bf16 block of denormals 2^-133: 448 * 2^133 overflows -> bf16 max 0x7F7F0000 (pow2: 2^127) */
    for (i = 0; i < 128; i++)
        h[i] = 0x0001;
    ck_assert_int_eq(mf_fp8_block_quantize(MF_FP8_E4M3, q, si, MF_BF16, h, 1, 128, MF_FP8_BLOCK_1X128, 0, 0.0f), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(si[0]), mf_test_f32_bits(ref_recip(bf16_max)));
    ck_assert_uint_eq(q[0], ref_q(MF_FP8_E4M3, mf_test_bits_f32(0x00010000u), bf16_max));
    ck_assert_int_eq(mf_fp8_block_quantize(MF_FP8_E4M3, q, si, MF_BF16, h, 1, 128, MF_FP8_BLOCK_1X128, 1, 0.0f), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(si[0]), 0x00400000u); /* 1 / 2^127 = 2^-127 */
    /* f32 denormal block: FLT_MAX (non-pow2) */
    for (i = 0; i < 128; i++)
        x[i] = mf_test_bits_f32(0x00000200u);
    ck_assert_int_eq(mf_fp8_block_quantize(MF_FP8_E4M3, q, si, MF_FP32, x, 1, 128, MF_FP8_BLOCK_1X128, 0, 0.0f), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(si[0]), 0x00200000u); /* rn(1 / FLT_MAX) = 2^-128 */
    /* f16 denormal block 2^-24: 448 * 2^24 = 1.75 * 2^32 is finite (f16's value_for_inf never applies);
     * pow2 -> 2^32, scale_inv 2^-32 */
    for (i = 0; i < 128; i++)
        h[i] = 0x0001;
    ck_assert_int_eq(mf_fp8_block_quantize(MF_FP8_E4M3, q, si, MF_FP16, h, 1, 128, MF_FP8_BLOCK_1X128, 1, 0.0f), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(si[0]), mf_test_f32_bits(ldexpf(1.0f, -32)));
    /* zeros: scale 1, scale_inv 1, codes 0; NaN elements are skipped by amax and stay NaN */
    memset(x, 0, sizeof x);
    x[3] = NAN;
    x[128 + 5] = NAN;
    x[128 + 6] = -2.0f;
    ck_assert_int_eq(mf_fp8_block_quantize(MF_FP8_E5M2, q, si, MF_FP32, x, 2, 128, MF_FP8_BLOCK_1X128, 1, 0.0f), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(si[0]), mf_test_f32_bits(1.0f));
    ck_assert_uint_eq(q[0], 0);
    ck_assert_uint_eq(q[3], 0x7F);
    ck_assert_uint_eq(mf_test_f32_bits(si[1]), mf_test_f32_bits(ldexpf(1.0f, -14))); /* 57344 / 2 = 28672 -> 2^14 */
    ck_assert_uint_eq(q[128 + 6], 0xF8);                         /* -2 * 2^14 = -2^15: 1 11110 00 */
    ck_assert_uint_eq(q[128 + 5], 0x7F);
    /* epsilon on a zero block: amax 2^-10 -> 448 * 2^10 -> pow2 2^18 */
    memset(x, 0, sizeof x);
    ck_assert_int_eq(mf_fp8_block_quantize(MF_FP8_E4M3, q, si, MF_FP32, x, 1, 128, MF_FP8_BLOCK_1X128, 1, 0.0009765625f),
                     MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(si[0]), mf_test_f32_bits(ldexpf(1.0f, -18)));
    /* an inf element: amax inf -> scale 1; the inf saturates to max */
    x[7] = -INFINITY;
    x[8] = 3.0f;
    ck_assert_int_eq(mf_fp8_block_quantize(MF_FP8_E4M3, q, si, MF_FP32, x, 1, 128, MF_FP8_BLOCK_1X128, 1, 0.0f), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(si[0]), mf_test_f32_bits(1.0f));
    ck_assert_uint_eq(q[7], 0xFE);
    ck_assert_uint_eq(q[8], 0x44); /* 3 = 1.5 * 2: exponent 8 -> 0 1000 100 */
}
END_TEST

/* ---- results do not depend on the caller's FP environment ---------------------------------------- */

static void run_all(uint8_t *q, float *si, float *y, float *misc, const float *x, size_t n)
{
    static mf_fp8_delayed st;
    mf_fp8_delayed_cfg c = mf_fp8_delayed_default(MF_FP8_E4M3);
    size_t i;
    ck_assert_int_eq(mf_fp8_quantize(MF_FP8_E4M3, q, MF_FP32, x, n, mf_test_bits_f32(0x3F7FFFFFu), &misc[0]), MF_OK);
    ck_assert_int_eq(mf_fp8_dequantize(MF_FP32, y, MF_FP8_E4M3, q, n, mf_test_bits_f32(0x00400001u)), MF_OK);
    ck_assert_int_eq(mf_fp8_block_quantize(MF_FP8_E5M2, q + n, si, MF_FP32, x, 8, n / 8, MF_FP8_BLOCK_1X128, 0, 0.0f), MF_OK);
    ck_assert_int_eq(mf_fp8_quantize_current(MF_FP8_E4M3, q + 2 * n, MF_FP32, x, n, 0, 0.0f, &misc[1], &misc[2], &misc[3]),
                     MF_OK);
    c.history_len = 8;
    ck_assert_int_eq(mf_fp8_delayed_init(&st, &c), MF_OK);
    for (i = 0; i < 8; i++) {
        mf_fp8_delayed_record(
            &st, mf_test_bits_f32(0x00000100u + (uint32_t)i * 0x01000000u)); /* denormal, then normal amaxes */
        mf_fp8_delayed_update(&st);
        misc[4 + 2 * i] = st.scale;
        misc[5 + 2 * i] = st.scale_inv;
    }
    misc[20] = mf_scale_from_amax(3.0f, 448.0f, 0, 0.0f, FLT_MAX);
}

START_TEST(test_fp_environment)
{
    enum { N = 1024 };
    static float x[N], y0[N], y1[N], si0[64], si1[64], m0[32], m1[32];
    static uint8_t q0[3 * N], q1[3 * N];
    int modes[3] = {FE_UPWARD, FE_TOWARDZERO, FE_DOWNWARD}, m;
    size_t i;
    for (i = 0; i < N; i++) /* moderate values (inexact products) and subnormal or tiny ones */
        x[i] = mf_test_bits_f32((rnd32() & 0x80000000u) | ((uint32_t)(i % 2 ? 115 + rnd32() % 20 : rnd32() % 3) << 23) |
                     (rnd32() & 0x7FFFFFu));
    run_all(q0, si0, y0, m0, x, N);
    for (m = 0; m < 3; m++) {
        int ok = fesetround(modes[m]) == 0;
#ifdef HAVE_MXCSR
        unsigned int csr = _mm_getcsr();
        _mm_setcsr(csr | 0x8040u); /* FTZ and DAZ */
#endif
        memset(q1, 0, sizeof q1);
        run_all(q1, si1, y1, m1, x, N);
#ifdef HAVE_MXCSR
        _mm_setcsr(csr);
#endif
        fesetround(FE_TONEAREST);
        ck_assert(ok);
        ck_assert_int_eq(memcmp(q0, q1, sizeof q0), 0);
        ck_assert_int_eq(memcmp(y0, y1, sizeof y0), 0);
        ck_assert_int_eq(memcmp(si0, si1, sizeof si0), 0);
        ck_assert_int_eq(memcmp(m0, m1, sizeof m0), 0);
    }
}
END_TEST

/* ---- bad arguments ---------------------------------------------------------------------------------- */

START_TEST(test_bad_args)
{
    static mf_fp8_delayed st, st_copy;
    float x[256], f = 7.0f, g = 7.0f, si[4] = {7, 7, 7, 7};
    uint8_t q[256], qq[256];
    uint16_t h[4] = {0};
    mf_fp8_delayed_cfg c = mf_fp8_delayed_default(MF_FP8_E4M3), bad;
    const size_t huge = SIZE_MAX / 2;
    memset(x, 0, sizeof x);
    memset(q, 0xAA, sizeof q);
    memcpy(qq, q, sizeof q);

    /* mf_fp8_max, mf_amax */
    ck_assert_int_eq(mf_fp8_max(MF_FP8_E4M3, NULL), MF_E_NULL);
    ck_assert_int_eq(mf_fp8_max(MF_FP32, &f), MF_E_FORMAT);
    ck_assert_int_eq(mf_fp8_max(MF_FP6_E2M3, &f), MF_E_FORMAT);
    ck_assert_int_eq(mf_amax(MF_FP32, x, 4, NULL), MF_E_NULL);
    ck_assert_int_eq(mf_amax(MF_FP32, NULL, 4, &f), MF_E_NULL);
    ck_assert_int_eq(mf_amax(MF_FP8_E4M3, x, 4, &f), MF_E_FORMAT);
    ck_assert_int_eq(mf_amax((mf_format)99, x, 4, &f), MF_E_FORMAT);
    ck_assert_int_eq(mf_amax(MF_FP32, x, huge, &f), MF_E_SIZE);
    ck_assert_int_eq(mf_amax(MF_BF16, x, (size_t)(int)-100, &f), MF_E_SIZE); /* a negative count */
    ck_assert_int_eq(mf_amax(MF_FP16, x, SIZE_MAX / 4, &f), MF_E_SIZE);     /* in the address space, too long */
    ck_assert_uint_eq(mf_test_f32_bits(f), mf_test_f32_bits(7.0f)); /* nothing written */

    /* current scale */
    ck_assert_int_eq(mf_fp8_current_scale(MF_FP8_E4M3, 1.0f, 0, 0.0f, NULL, &g), MF_E_NULL);
    ck_assert_int_eq(mf_fp8_current_scale(MF_FP16, 1.0f, 0, 0.0f, &f, &g), MF_E_FORMAT);
    ck_assert_int_eq(mf_fp8_current_scale(MF_FP4_E2M1, 1.0f, 0, 0.0f, &f, &g), MF_E_FORMAT);
    ck_assert_int_eq(mf_fp8_current_scale(MF_FP8_E4M3, 1.0f, 0, NAN, &f, &g), MF_E_ARG);
    ck_assert_int_eq(mf_fp8_current_scale(MF_FP8_E4M3, 1.0f, 0, -1.0f, &f, &g), MF_E_ARG);
    ck_assert_int_eq(mf_fp8_current_scale(MF_FP8_E4M3, 1.0f, 0, INFINITY, &f, &g), MF_E_ARG);
    ck_assert(mf_test_f32_bits(f) == mf_test_f32_bits(7.0f) && mf_test_f32_bits(g) == mf_test_f32_bits(7.0f));
    ck_assert_int_eq(mf_fp8_current_scale(MF_FP8_E4M3, 1.0f, 0, -0.0f, &f, &g), MF_OK); /* -0 is 0 */
    ck_assert_uint_eq(mf_test_f32_bits(f), mf_test_f32_bits(448.0f));
    f = 7.0f;

    /* quantize */
    ck_assert_int_eq(mf_fp8_quantize(MF_FP6_E2M3, q, MF_FP32, x, 4, 1.0f, &f), MF_E_FORMAT);
    ck_assert_int_eq(mf_fp8_quantize(MF_FP16, q, MF_FP32, x, 4, 1.0f, &f), MF_E_FORMAT);
    ck_assert_int_eq(mf_fp8_quantize(MF_FP8_E4M3, q, MF_FP8_E5M2, x, 4, 1.0f, &f), MF_E_FORMAT);
    ck_assert_int_eq(mf_fp8_quantize(MF_FP8_E4M3, q, MF_FP64, x, 4, 1.0f, &f), MF_E_FORMAT);
    ck_assert_int_eq(mf_fp8_quantize(MF_FP8_E4M3, NULL, MF_FP32, x, 4, 1.0f, &f), MF_E_NULL);
    ck_assert_int_eq(mf_fp8_quantize(MF_FP8_E4M3, q, MF_FP32, NULL, 4, 1.0f, &f), MF_E_NULL);
    ck_assert_int_eq(mf_fp8_quantize(MF_FP8_E4M3, q, MF_FP32, x, 4, 0.0f, &f), MF_E_ARG);
    ck_assert_int_eq(mf_fp8_quantize(MF_FP8_E4M3, q, MF_FP32, x, 4, -1.0f, &f), MF_E_ARG);
    ck_assert_int_eq(mf_fp8_quantize(MF_FP8_E4M3, q, MF_FP32, x, 4, INFINITY, &f), MF_E_ARG);
    ck_assert_int_eq(mf_fp8_quantize(MF_FP8_E4M3, q, MF_FP32, x, 4, NAN, &f), MF_E_ARG);
    ck_assert_int_eq(mf_fp8_quantize(MF_FP8_E4M3, q, MF_FP32, x, huge, 1.0f, &f), MF_E_SIZE);
    ck_assert_int_eq(mf_fp8_quantize(MF_FP8_E4M3, (uint8_t *)x + 2, MF_FP32, x, 4, 1.0f, &f), MF_E_OVERLAP);
    ck_assert_int_eq(mf_fp8_quantize_current(MF_FP8_E4M3, q, MF_FP32, x, 4, 0, NAN, &f, &f, &f), MF_E_ARG);
    ck_assert_int_eq(mf_fp8_quantize_current(MF_FP8_E4M3, q, MF_FP32, NULL, 4, 0, 0.0f, &f, &f, &f), MF_E_NULL);
    ck_assert_int_eq(mf_fp8_quantize_current(MF_BF16, q, MF_FP32, x, 4, 0, 0.0f, &f, &f, &f), MF_E_FORMAT);
    ck_assert_int_eq(memcmp(q, qq, sizeof q), 0);
    ck_assert_uint_eq(mf_test_f32_bits(f), mf_test_f32_bits(7.0f));

    /* dequantize */
    ck_assert_int_eq(mf_fp8_dequantize(MF_FP8_E4M3, x, MF_FP8_E4M3, q, 4, 1.0f), MF_E_FORMAT);
    ck_assert_int_eq(mf_fp8_dequantize(MF_FP32, x, MF_FP16, q, 4, 1.0f), MF_E_FORMAT);
    ck_assert_int_eq(mf_fp8_dequantize(MF_FP64, x, MF_FP8_E4M3, q, 4, 1.0f), MF_E_FORMAT);
    ck_assert_int_eq(mf_fp8_dequantize(MF_FP32, NULL, MF_FP8_E4M3, q, 4, 1.0f), MF_E_NULL);
    ck_assert_int_eq(mf_fp8_dequantize(MF_FP32, x, MF_FP8_E4M3, q, 4, 0.0f), MF_E_ARG);
    ck_assert_int_eq(mf_fp8_dequantize(MF_FP32, x, MF_FP8_E4M3, q, 4, INFINITY), MF_E_ARG);
    ck_assert_int_eq(mf_fp8_dequantize(MF_FP32, x, MF_FP8_E4M3, q, huge, 1.0f), MF_E_SIZE);
    ck_assert_int_eq(mf_fp8_dequantize(MF_FP32, x, MF_FP8_E4M3, (uint8_t *)x + 3, 4, 1.0f), MF_E_OVERLAP);
    ck_assert_int_eq(mf_fp8_dequantize(MF_FP32, NULL, MF_FP8_E4M3, NULL, 0, 1.0f), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(x[0]), 0u);

    /* delayed */
    memset(&st, 0x5A, sizeof st);
    memcpy(&st_copy, &st, sizeof st);
    ck_assert_int_eq(mf_fp8_delayed_init(NULL, &c), MF_E_NULL);
    ck_assert_int_eq(mf_fp8_delayed_init(&st, NULL), MF_E_NULL);
    bad = c;
    bad.fmt = MF_BF16;
    ck_assert_int_eq(mf_fp8_delayed_init(&st, &bad), MF_E_FORMAT);
    bad = c;
    bad.history_len = 0;
    ck_assert_int_eq(mf_fp8_delayed_init(&st, &bad), MF_E_ARG);
    bad.history_len = MF_FP8_HISTORY_MAX + 1;
    ck_assert_int_eq(mf_fp8_delayed_init(&st, &bad), MF_E_ARG);
    bad = c;
    bad.algo = (mf_amax_algo)2;
    ck_assert_int_eq(mf_fp8_delayed_init(&st, &bad), MF_E_ARG);
    bad = c;
    bad.margin = 127;
    ck_assert_int_eq(mf_fp8_delayed_init(&st, &bad), MF_E_ARG);
    bad.margin = -127;
    ck_assert_int_eq(mf_fp8_delayed_init(&st, &bad), MF_E_ARG);
    bad = c;
    bad.roll_on_zero_amax = 2;
    ck_assert_int_eq(mf_fp8_delayed_init(&st, &bad), MF_E_ARG);
    bad = c;
    bad.initial_scale = 0.0f;
    ck_assert_int_eq(mf_fp8_delayed_init(&st, &bad), MF_E_ARG);
    bad.initial_scale = INFINITY;
    ck_assert_int_eq(mf_fp8_delayed_init(&st, &bad), MF_E_ARG);
    bad.initial_scale = NAN;
    ck_assert_int_eq(mf_fp8_delayed_init(&st, &bad), MF_E_ARG);
    bad.initial_scale = -1.0f;
    ck_assert_int_eq(mf_fp8_delayed_init(&st, &bad), MF_E_ARG);
    ck_assert_int_eq(memcmp(&st, &st_copy, sizeof st), 0);
    ck_assert_int_eq(mf_fp8_delayed_init(&st, &c), MF_OK);
    memcpy(&st_copy, &st, sizeof st);
    ck_assert_int_eq(mf_fp8_delayed_record(NULL, 1.0f), MF_E_NULL);
    ck_assert_int_eq(mf_fp8_delayed_record(&st, -1.0f), MF_E_ARG);
    ck_assert_int_eq(mf_fp8_delayed_record(&st, -INFINITY), MF_E_ARG);
    ck_assert_int_eq(mf_fp8_delayed_record(&st, mf_test_bits_f32(0xFFC00000u)), MF_E_ARG); /* -NaN */
    ck_assert_int_eq(mf_fp8_delayed_record(&st, -0.0f), MF_OK);                /* a no-op */
    ck_assert_int_eq(mf_fp8_delayed_update(NULL), MF_E_NULL);
    ck_assert_int_eq(mf_fp8_delayed_quantize(NULL, q, MF_FP32, x, 4), MF_E_NULL);
    ck_assert_int_eq(mf_fp8_delayed_quantize(&st, q, MF_FP8_E4M3, x, 4), MF_E_FORMAT);
    ck_assert_int_eq(mf_fp8_delayed_quantize(&st, NULL, MF_FP32, x, 4), MF_E_NULL);
    ck_assert_int_eq(mf_fp8_delayed_quantize(&st, q, MF_FP32, x, huge), MF_E_SIZE);
    ck_assert_int_eq(memcmp(&st, &st_copy, sizeof st), 0);

    /* block */
    ck_assert_int_eq(mf_fp8_block_quantize(MF_FP8_E4M3, q, si, MF_FP32, x, 1, 4, (mf_fp8_block)3, 1, 0.0f), MF_E_ARG);
    ck_assert_int_eq(mf_fp8_block_quantize(MF_FP8_E4M3, q, NULL, MF_FP32, x, 1, 4, MF_FP8_BLOCK_1X128, 1, 0.0f), MF_E_NULL);
    ck_assert_int_eq(mf_fp8_block_quantize(MF_FP8_E4M3, NULL, si, MF_FP32, x, 1, 4, MF_FP8_BLOCK_1X128, 1, 0.0f), MF_E_NULL);
    ck_assert_int_eq(mf_fp8_block_quantize(MF_FP8_E4M3, q, si, MF_FP32, NULL, 1, 4, MF_FP8_BLOCK_1X128, 1, 0.0f), MF_E_NULL);
    ck_assert_int_eq(mf_fp8_block_quantize(MF_FP16, q, si, MF_FP32, x, 1, 4, MF_FP8_BLOCK_1X128, 1, 0.0f), MF_E_FORMAT);
    ck_assert_int_eq(mf_fp8_block_quantize(MF_E8M0, q, si, MF_FP32, x, 1, 4, MF_FP8_BLOCK_1X128, 1, 0.0f), MF_E_FORMAT);
    ck_assert_int_eq(mf_fp8_block_quantize(MF_FP8_E4M3, q, si, MF_FP64, x, 1, 4, MF_FP8_BLOCK_1X128, 1, 0.0f), MF_E_FORMAT);
    ck_assert_int_eq(mf_fp8_block_quantize(MF_FP8_E4M3, q, si, MF_FP32, x, huge, 4, MF_FP8_BLOCK_1X128, 1, 0.0f), MF_E_SIZE);
    ck_assert_int_eq(mf_fp8_block_quantize(MF_FP8_E4M3, q, si, MF_FP32, x, 1, 4, MF_FP8_BLOCK_1X128, 1, -1.0f), MF_E_ARG);
    ck_assert_int_eq(mf_fp8_block_quantize(MF_FP8_E4M3, q, si, MF_FP32, x, 1, 4, MF_FP8_BLOCK_1X128, 1, NAN), MF_E_ARG);
    ck_assert_int_eq(mf_fp8_block_quantize(MF_FP8_E4M3, q, x + 2, MF_FP32, x, 1, 4, MF_FP8_BLOCK_1X128, 1, 0.0f),
                     MF_E_OVERLAP);
    ck_assert_int_eq(mf_fp8_block_quantize(MF_FP8_E4M3, (uint8_t *)si, si, MF_FP32, x, 1, 4, MF_FP8_BLOCK_1X128, 1, 0.0f),
                     MF_E_OVERLAP);
    ck_assert_int_eq(mf_fp8_block_quantize(MF_FP8_E4M3, NULL, NULL, MF_FP32, NULL, 0, 4, MF_FP8_BLOCK_1X128, 1, 0.0f), MF_OK);
    ck_assert_int_eq(mf_fp8_block_quantize(MF_FP8_E4M3, NULL, NULL, MF_FP32, NULL, 4, 0, MF_FP8_BLOCK_128X1, 1, 0.0f), MF_OK);
    ck_assert_int_eq(memcmp(q, qq, sizeof q), 0);
    ck_assert(mf_test_f32_bits(si[0]) == mf_test_f32_bits(7.0f) && mf_test_f32_bits(si[1]) == mf_test_f32_bits(7.0f));
    ck_assert_int_eq(mf_fp8_block_dequantize(MF_FP8_E4M3, x, MF_FP8_E4M3, q, si, 1, 4, MF_FP8_BLOCK_1X128), MF_E_FORMAT);
    ck_assert_int_eq(mf_fp8_block_dequantize(MF_FP32, x, MF_FP32, q, si, 1, 4, MF_FP8_BLOCK_1X128), MF_E_FORMAT);
    ck_assert_int_eq(mf_fp8_block_dequantize(MF_FP32, x, MF_FP8_E4M3, q, NULL, 1, 4, MF_FP8_BLOCK_1X128), MF_E_NULL);
    ck_assert_int_eq(mf_fp8_block_dequantize(MF_FP32, x, MF_FP8_E4M3, q, si, 1, 4, (mf_fp8_block)-1), MF_E_ARG);
    ck_assert_int_eq(mf_fp8_block_dequantize(MF_BF16, h, MF_FP8_E4M3, q, si, 3, huge, MF_FP8_BLOCK_1X128), MF_E_SIZE);
    ck_assert_int_eq(mf_fp8_block_dequantize(MF_FP32, x, MF_FP8_E4M3, (uint8_t *)x, si, 1, 4, MF_FP8_BLOCK_1X128),
                     MF_E_OVERLAP);
    ck_assert_uint_eq(mf_test_f32_bits(x[0]), 0u);
    ck_assert_uint_eq(h[0], 0u);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fp8_recipes");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_scale_formula_hand);
    tcase_add_test(tc, test_scale_formula_random);
    tcase_add_test(tc, test_amax);
    tcase_add_test(tc, test_quantize_hand);
    tcase_add_test(tc, test_quantize_random);
    tcase_add_test(tc, test_dequantize);
    tcase_add_test(tc, test_quantize_current);
    tcase_add_test(tc, test_delayed_hand);
    tcase_add_test(tc, test_delayed_random);
    tcase_add_test(tc, test_delayed_quantize);
    tcase_add_test(tc, test_block_shapes);
    tcase_add_test(tc, test_block_hand);
    tcase_add_test(tc, test_block_pow2_boundaries);
    tcase_add_test(tc, test_block_random);
    tcase_add_test(tc, test_block_specials);
    tcase_add_test(tc, test_fp_environment);
    tcase_add_test(tc, test_bad_args);
    suite_add_tcase(s, tc);
    return mf_run_suite(s);
}
