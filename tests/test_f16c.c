/* SPDX-License-Identifier: MIT */
/* tests/test_f16c.c - hardware F16C (vcvtps2ph / vcvtph2ps) as an oracle for f16.
 *
 *   test_f16c decode   all 65536 f16 codes -> f32 (and f64): the bits equal vcvtph2ps's, NaNs
 *                      included (sign and payload kept, quiet bit set)          [unit]
 *   test_f16c sweep    all 2^32 f32 inputs -> f16 in rn, rz, ru and rd with IEEE overflow: the bits
 *                      equal vcvtps2ph's with the same rounding immediate; for NaN inputs F16C keeps
 *                      the payload while we return 0x7FFF, so there both must be NaN [exhaustive]
 *
 * Exits 77 (SKIP) where the CPU has no F16C. The intrinsics live only in functions compiled for
 * the "f16c" target (which implies AVX), so that nothing before the CPU check uses VEX code.
 */
#define _POSIX_C_SOURCE 200809L

#include <minifloat.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "mf_test.h"

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_F16C_BUILD 1
#include <cpuid.h>
#include <immintrin.h>
#define F16C_FN __attribute__((target("f16c"), flatten))
#else
#define HAVE_F16C_BUILD 0
#endif

#if HAVE_F16C_BUILD

/* F16C (CPUID.1:ECX bit 29) on a CPU and OS with AVX enabled (the VEX encoding needs it). Clang 14
 * does not know __builtin_cpu_supports("f16c"), so the bit is read directly. */
static int cpu_has_f16c(void)
{
    unsigned a, b, c, d;
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx") || !__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    return (c >> 29) & 1u;
}

static int f16_is_nan(uint32_t h) { return (h & 0x7C00u) == 0x7C00u && (h & 0x3FFu) != 0; }

/* vcvtph2ps of all 65536 codes. */
static F16C_FN void hw_decode_all(float *out)
{
    uint32_t c;
    for (c = 0; c < 65536u; c += 8) {
        __m128i h = _mm_setr_epi16((short)c, (short)(c + 1), (short)(c + 2), (short)(c + 3), (short)(c + 4),
                                   (short)(c + 5), (short)(c + 6), (short)(c + 7));
        _mm256_storeu_ps(out + c, _mm256_cvtph_ps(h));
    }
}

START_TEST(test_decode)
{
    static float hw[65536];
    uint32_t c, visited = 0, nans = 0;

    hw_decode_all(hw);
    for (c = 0; c < 65536u; c++) {
        const uint32_t want = mf_test_f32_bits(hw[c]), got = mf_test_f32_bits(mf_to_f32(MF_FP16, c));
        /* cvtss2sd widens the F16C result exactly, NaN payload included. */
        const uint64_t want64 = mf_test_f64_bits((double)hw[c]), got64 = mf_test_f64_bits(mf_to_f64(MF_FP16, c));
        MF_EXPECT(got == want, "f16 0x%04" PRIx32 " -> f32: got 0x%08" PRIx32 ", vcvtph2ps 0x%08" PRIx32, c,
                  got, want);
        MF_EXPECT(got64 == want64, "f16 0x%04" PRIx32 " -> f64: got 0x%016" PRIx64 ", want 0x%016" PRIx64, c,
                  got64, want64);
        nans += f16_is_nan(c);
        visited++;
    }
    ck_assert_uint_eq(visited, 65536);
    ck_assert_uint_eq(nans, 2 * 1023);
}
END_TEST

/* The four modes F16C offers, as (immediate, our mode). */
#define IMM_RN (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define IMM_RZ (_MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC)
#define IMM_RU (_MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC)
#define IMM_RD (_MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)
static const char *mode_names[4] = {"rn", "rz", "ru", "rd"};

typedef struct {
    uint64_t visited, bad[4];
    uint32_t first_in[4], first_got[4], first_want[4];
} sweep_result;

/* Our code ours vs F16C's hw for input bits: equal bits, or for a NaN input our 0x7FFF and any NaN
 * from F16C. */
static inline uint32_t mismatch(uint32_t bits, uint32_t ours, uint32_t hw)
{
    const int nan_in = (bits & 0x7FFFFFFFu) > 0x7F800000u;
    return nan_in ? !(ours == 0x7FFFu && f16_is_nan(hw)) : ours != hw;
}

static void record(sweep_result *r, int m, uint32_t bits, uint32_t got, uint32_t want)
{
    if (r->bad[m]++ == 0) {
        r->first_in[m] = bits;
        r->first_got[m] = got;
        r->first_want[m] = want;
    }
}

static const mf_round modes[4] = {MF_ROUND_NEAREST_EVEN, MF_ROUND_TOWARD_ZERO, MF_ROUND_UP, MF_ROUND_DOWN};

/* The rare path: redo the 8 inputs from first one by one and record the mismatches. */
static void record_block(uint32_t first, uint16_t hw[4][8], sweep_result *r)
{
    uint32_t k;
    int m;
    for (m = 0; m < 4; m++)
        for (k = 0; k < 8; k++) {
            const uint32_t bits = first + k;
            const uint32_t ours = mf_from_f32(MF_FP16, mf_test_bits_f32(bits), modes[m], MF_OVERFLOW_IEEE, 0);
            if (mismatch(bits, ours, hw[m][k]))
                record(r, m, bits, ours, hw[m][k]);
        }
}

/* Inputs [first, first + count) with count a multiple of 8. */
static F16C_FN void sweep_range(uint64_t first, uint64_t count, sweep_result *r)
{
    uint64_t n;
    for (n = 0; n < count; n += 8) {
        const uint32_t base = (uint32_t)(first + n);
        uint32_t in[8], acc = 0, k;
        float xs[8];
        uint16_t hw[4][8];
        __m256 v;
        for (k = 0; k < 8; k++)
            in[k] = base + k;
        memcpy(xs, in, sizeof xs);
        v = _mm256_loadu_ps(xs);
        _mm_storeu_si128((__m128i *)hw[0], _mm256_cvtps_ph(v, IMM_RN));
        _mm_storeu_si128((__m128i *)hw[1], _mm256_cvtps_ph(v, IMM_RZ));
        _mm_storeu_si128((__m128i *)hw[2], _mm256_cvtps_ph(v, IMM_RU));
        _mm_storeu_si128((__m128i *)hw[3], _mm256_cvtps_ph(v, IMM_RD));
        for (k = 0; k < 8; k++) {
            const float x = xs[k];
            acc |= mismatch(in[k], mf_from_f32(MF_FP16, x, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0),
                            hw[0][k]);
            acc |=
                mismatch(in[k], mf_from_f32(MF_FP16, x, MF_ROUND_TOWARD_ZERO, MF_OVERFLOW_IEEE, 0), hw[1][k]);
            acc |= mismatch(in[k], mf_from_f32(MF_FP16, x, MF_ROUND_UP, MF_OVERFLOW_IEEE, 0), hw[2][k]);
            acc |= mismatch(in[k], mf_from_f32(MF_FP16, x, MF_ROUND_DOWN, MF_OVERFLOW_IEEE, 0), hw[3][k]);
        }
        if (acc)
            record_block(base, hw, r);
        r->visited += 8;
    }
}

START_TEST(test_sweep)
{
    sweep_result r;
    struct timespec t0, t1;
    int m, failed = 0;

    memset(&r, 0, sizeof r);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    sweep_range(0, (uint64_t)1 << 32, &r);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("time f16c sweep, 4 x 2^32 conversions: %.1f s\n",
           (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    for (m = 0; m < 4; m++)
        if (r.bad[m]) {
            failed = 1;
            printf("FAIL f16 %s: %" PRIu64 " inputs differ from vcvtps2ph; first 0x%08" PRIx32
                   ": got 0x%04" PRIx32 ", F16C 0x%04" PRIx32 "\n",
                   mode_names[m], r.bad[m], r.first_in[m], r.first_got[m], r.first_want[m]);
        }
    fflush(stdout);
    ck_assert_msg(r.visited == (uint64_t)1 << 32, "visited %" PRIu64 " inputs, want 2^32", r.visited);
    ck_assert_msg(!failed, "mf_from_f32(MF_FP16) differs from F16C (see the FAIL lines)");
}
END_TEST

/* A few hand-checked conversions, so that a broken sweep harness cannot pass silently. */
static F16C_FN uint32_t hw_one(float x, int mode)
{
    const __m128 v = _mm_set1_ps(x);
    __m128i h;
    switch (mode) {
    case 1: h = _mm_cvtps_ph(v, IMM_RZ); break;
    case 2: h = _mm_cvtps_ph(v, IMM_RU); break;
    case 3: h = _mm_cvtps_ph(v, IMM_RD); break;
    default: h = _mm_cvtps_ph(v, IMM_RN); break;
    }
    return (uint32_t)_mm_extract_epi16(h, 0);
}

START_TEST(test_anchors)
{
    ck_assert_uint_eq(hw_one(1.0f, 0), 0x3C00);
    ck_assert_uint_eq(hw_one(65520.0f, 0), 0x7C00); /* tie between 65504 (odd) and 65536 */
    ck_assert_uint_eq(hw_one(1e9f, 1), 0x7BFF);
    ck_assert_uint_eq(hw_one(-1e9f, 2), 0xFBFF);
    ck_assert_uint_eq(hw_one(0x1p-30f, 2), 0x0001);
    ck_assert_uint_eq(hw_one(-0x1p-30f, 3), 0x8001);
    ck_assert_uint_eq(mismatch(0x7F800001u, 0x7FFFu, hw_one(0.0f, 0)), 1); /* 0 is not a NaN */
}
END_TEST

#endif /* HAVE_F16C_BUILD */

int main(int argc, char **argv)
{
    Suite *s = suite_create("f16c");
    TCase *tc = tcase_create(argc > 1 ? argv[1] : "decode");
    if (argc != 2 || (strcmp(argv[1], "decode") != 0 && strcmp(argv[1], "sweep") != 0)) {
        fprintf(stderr, "usage: %s decode|sweep\n", argv[0]);
        return 2;
    }
#if HAVE_F16C_BUILD
    if (!cpu_has_f16c()) {
        printf("SKIP: this CPU has no F16C\n");
        return 77;
    }
    if (strcmp(argv[1], "decode") == 0) {
        tcase_add_test(tc, test_anchors);
        tcase_add_test(tc, test_decode);
        tcase_set_timeout(tc, 60);
    } else {
        tcase_add_test(tc, test_sweep);
        tcase_set_timeout(tc, 900);
    }
    suite_add_tcase(s, tc);
    return mf_run_suite(s);
#else
    (void)s;
    (void)tc;
    printf("SKIP: not an x86 build with GCC or Clang\n");
    return 77;
#endif
}
