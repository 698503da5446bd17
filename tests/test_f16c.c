/* SPDX-License-Identifier: MIT */
/* tests/test_f16c.c - hardware F16C (vcvtps2ph / vcvtph2ps) as an oracle for f16.
 *
 *   test_f16c decode   all 65536 f16 codes -> f32 (and f64): the bits equal vcvtph2ps's, NaNs
 *                      included (sign and payload kept, quiet bit set); and that the sweep's
 *                      near-boundary inputs (below) hold every f16 value and midpoint    [unit]
 *   test_f16c sweep    f32 -> f16 in rn, rz, ru and rd with IEEE overflow against vcvtps2ph with the
 *                      same rounding immediate (for NaN inputs F16C keeps the payload while we return
 *                      0x7FFF, so there both must be NaN):                               [exhaustive]
 *                      - the bulk mf_convert (the best backend, chunks of 64 Ki) on all 2^32 inputs;
 *                      - the scalar mf_from_f32 on every input of a sixteenth of the chunks (the
 *                        chunks c with c % 16 == the shard of the day, MF_EXHAUSTIVE_SHARD as in
 *                        tests/exhaustive.cmake; =all: every input) and, in every chunk, on each input
 *                        within 4 patterns of a multiple of 2^12, where every decision boundary of every
 *                        mode lies (near_boundary; checked by the decode test): 277 M inputs a run.
 *
 * Why the scalar half is a shard: mf_from_f32(MF_FP16) in these modes is checked on every input by
 * exhaustive_f16 (tests/test_exhaustive.c) against the breakpoint oracle, and the best x86 backend's bulk
 * f32 -> f16 on every input in every mode by exhaustive_f16_avx2 / _avx512, so F16C, the oracle, the
 * scalar and the bulk code agree on every input when all these pass; here F16C checks each of the two
 * directly, the bulk path on every input and the scalar one at every boundary and on a rotating
 * sixteenth. The former whole scalar sweep took 61 s of CPU; this one takes ~8 s (~4 s of it the scalar
 * sixteenth). Note that the AVX2 and AVX-512 bulk paths convert with vcvtps2ph themselves (all but
 * NaN lanes: src/x86/backend_avx2.h), so on x86 the bulk half checks their NaN mending and the path
 * around the instruction (blocks, MXCSR), not an independent rounding.
 *
 * Exits 77 (SKIP) where the CPU has no F16C. The intrinsics live only in functions compiled for
 * the "f16c" target (which implies AVX), so that nothing before the CPU check uses VEX code.
 */
#define _POSIX_C_SOURCE 200809L

#include <minifloat.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
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
static const mf_round modes[4] = {MF_ROUND_NEAREST_EVEN, MF_ROUND_TOWARD_ZERO, MF_ROUND_UP, MF_ROUND_DOWN};

#define CHUNK 65536u  /* inputs per bulk call */
#define NSHARD 16u    /* the scalar check's shard: the chunks c with c % NSHARD == g_shard */
#define NEAR 4u       /* ... and, in every chunk, the inputs within NEAR patterns of a multiple of 2^12 */
#define NEAR_PER_4K (2u * NEAR + 1u)

/* the scalar check's shard: 0 .. NSHARD - 1, or -1 for every input (set by main; forked tests inherit it) */
static int g_shard = -1;

typedef struct {
    uint64_t visited[4], bad[4];
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

/* The inputs the scalar check takes outside its shard: every pattern within NEAR of a multiple of 2^12.
 * Every decision boundary of f32 -> f16 in every mode is such a multiple: the f16 values and the
 * midpoints between them, in the normal range (10 of binary32's 23 fraction bits kept, so the low 13
 * bits are 0 or 0x1000) and in the subnormal range (spacing 2^-24 from binary32 exponents <= -15 on,
 * 2^13 patterns and more); 0 and 2^-25 (rn's underflow threshold, a power of two); 65504 (0x477FE000)
 * and 65520 (0x477FF000, rn's overflow threshold); inf, where the NaNs start. */
static int near_boundary(uint32_t bits)
{
    const uint32_t low = bits & 0xFFFu;
    return low <= NEAR || low >= 0x1000u - NEAR;
}

/* The inputs of one chunk, g_in[j] = (chunk << 16) | j, and F16C's codes for them in the four modes. */
static uint32_t g_in[CHUNK];
static uint16_t g_hw[4][CHUNK], g_bulk[4][CHUNK];

/* F16C's codes of the chunk in the four modes into g_hw, and acc[m] = OR of (mf_convert's code ^ F16C's)
 * over the chunk for mode m (g_bulk filled before) */
static F16C_FN void hw_chunk(uint32_t acc[4])
{
    __m128i a0 = _mm_setzero_si128(), a1 = a0, a2 = a0, a3 = a0;
    uint32_t j;
    for (j = 0; j < CHUNK; j += 8) {
        const __m256 v = _mm256_loadu_ps((const float *)(const void *)(g_in + j));
        const __m128i h0 = _mm256_cvtps_ph(v, IMM_RN), h1 = _mm256_cvtps_ph(v, IMM_RZ);
        const __m128i h2 = _mm256_cvtps_ph(v, IMM_RU), h3 = _mm256_cvtps_ph(v, IMM_RD);
        _mm_storeu_si128((__m128i *)(void *)(g_hw[0] + j), h0);
        _mm_storeu_si128((__m128i *)(void *)(g_hw[1] + j), h1);
        _mm_storeu_si128((__m128i *)(void *)(g_hw[2] + j), h2);
        _mm_storeu_si128((__m128i *)(void *)(g_hw[3] + j), h3);
        a0 = _mm_or_si128(a0, _mm_xor_si128(h0, _mm_loadu_si128((const __m128i *)(const void *)(g_bulk[0] + j))));
        a1 = _mm_or_si128(a1, _mm_xor_si128(h1, _mm_loadu_si128((const __m128i *)(const void *)(g_bulk[1] + j))));
        a2 = _mm_or_si128(a2, _mm_xor_si128(h2, _mm_loadu_si128((const __m128i *)(const void *)(g_bulk[2] + j))));
        a3 = _mm_or_si128(a3, _mm_xor_si128(h3, _mm_loadu_si128((const __m128i *)(const void *)(g_bulk[3] + j))));
    }
    acc[0] = (uint32_t)!_mm_testz_si128(a0, a0);
    acc[1] = (uint32_t)!_mm_testz_si128(a1, a1);
    acc[2] = (uint32_t)!_mm_testz_si128(a2, a2);
    acc[3] = (uint32_t)!_mm_testz_si128(a3, a3);
}

/* mf_convert's codes of the chunk in mode m against F16C's, where hw_chunk saw a difference (acc): equal
 * bits but for NaN inputs, where mismatch allows F16C's payload */
static void bulk_compare(int m, uint32_t acc, sweep_result *r)
{
    uint32_t j;
    if (acc)
        for (j = 0; j < CHUNK; j++)
            if (mismatch(g_in[j], g_bulk[m][j], g_hw[m][j]))
                record(r, m, g_in[j], g_bulk[m][j], g_hw[m][j]);
    r->visited[m] += CHUNK;
}

/* The inline mf_from_f32 in the four modes on g_in[j0 .. j1) against F16C's codes. Flattened (with
 * --param=inline-unit-growth, tests/hw.cmake) so that each mode's conversion is specialised. */
static F16C_FN void scalar_range(uint32_t j0, uint32_t j1, sweep_result *r)
{
    uint32_t j;
    for (j = j0; j < j1; j++) {
        const uint32_t bits = g_in[j];
        const float x = mf_test_bits_f32(bits);
        const uint32_t o0 = mf_from_f32(MF_FP16, x, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0);
        const uint32_t o1 = mf_from_f32(MF_FP16, x, MF_ROUND_TOWARD_ZERO, MF_OVERFLOW_IEEE, 0);
        const uint32_t o2 = mf_from_f32(MF_FP16, x, MF_ROUND_UP, MF_OVERFLOW_IEEE, 0);
        const uint32_t o3 = mf_from_f32(MF_FP16, x, MF_ROUND_DOWN, MF_OVERFLOW_IEEE, 0);
        if (mismatch(bits, o0, g_hw[0][j]) | mismatch(bits, o1, g_hw[1][j]) | mismatch(bits, o2, g_hw[2][j]) |
            mismatch(bits, o3, g_hw[3][j])) {
            const uint32_t o[4] = {o0, o1, o2, o3};
            int m;
            for (m = 0; m < 4; m++)
                if (mismatch(bits, o[m], g_hw[m][j]))
                    record(r, m, bits, o[m], g_hw[m][j]);
        }
    }
    for (j = 0; j < 4; j++)
        r->visited[j] += j1 - j0;
}

/* The scalar inputs of chunk c: all of them in the shard, else the ones near_boundary takes (which
 * lie at the two ends of each 2^12-pattern block). */
static void scalar_chunk(uint32_t c, sweep_result *r)
{
    uint32_t b;
    if (g_shard < 0 || c % NSHARD == (uint32_t)g_shard) {
        scalar_range(0, CHUNK, r);
        return;
    }
    for (b = 0; b < CHUNK; b += 0x1000u) {
        scalar_range(b, b + NEAR + 1u, r);
        scalar_range(b + 0x1000u - NEAR, b + 0x1000u, r);
    }
}

static int report(const sweep_result *r, const char *what, uint64_t expect)
{
    int m, failed = 0;
    for (m = 0; m < 4; m++) {
        if (r->visited[m] != expect) {
            failed = 1;
            printf("FAIL f16 %s %s: visited %" PRIu64 " inputs, want %" PRIu64 "\n", what, mode_names[m],
                   r->visited[m], expect);
        }
        if (r->bad[m]) {
            failed = 1;
            printf("FAIL f16 %s %s: %" PRIu64 " inputs differ from vcvtps2ph; first 0x%08" PRIx32
                   ": got 0x%04" PRIx32 ", F16C 0x%04" PRIx32 "\n",
                   what, mode_names[m], r->bad[m], r->first_in[m], r->first_got[m], r->first_want[m]);
        }
    }
    return failed;
}

START_TEST(test_sweep)
{
    const uint64_t nchunk = ((uint64_t)1 << 32) / CHUNK;
    /* the scalar check's inputs: the shard's chunks whole, near_boundary's in the others */
    const uint64_t shard_chunks = g_shard < 0 ? nchunk : nchunk / NSHARD;
    const uint64_t expect_scalar =
        shard_chunks * CHUNK + (nchunk - shard_chunks) * (CHUNK / 0x1000u) * NEAR_PER_4K;
    sweep_result rb, rs;
    mf_opts opts[4];
    mf_plan plan;
    struct timespec t0, t1, c0, c1;
    uint64_t c;
    uint32_t acc[4];
    int m, st = MF_OK, failed;

    memset(&rb, 0, sizeof rb);
    memset(&rs, 0, sizeof rs);
    memset(opts, 0, sizeof opts);
    for (m = 0; m < 4; m++)
        opts[m].round = modes[m]; /* MF_OVERFLOW_IEEE, no stats, one thread: zero */
    ck_assert_int_eq(mf_convert_plan(MF_FP16, g_bulk[0], MF_FP32, g_in, CHUNK, &opts[0], &plan), MF_OK);
    printf("f16c sweep: mf_convert through %s (path %s) on every input; mf_from_f32 on %s\n", plan.backend,
           plan.path, g_shard < 0 ? "every input" : "shard");
    if (g_shard >= 0)
        printf("f16c sweep: scalar shard %d of %u (chunks of %u inputs c with c %% %u == %d) and the inputs "
               "within %u patterns of a multiple of 2^12; MF_EXHAUSTIVE_SHARD=all for every input\n",
               g_shard, NSHARD, CHUNK, NSHARD, g_shard, NEAR);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    for (c = 0; c < nchunk; c++) {
        uint32_t j;
        for (j = 0; j < CHUNK; j++)
            g_in[j] = (uint32_t)(c * CHUNK) | j;
        for (m = 0; m < 4 && st == MF_OK; m++)
            st = mf_convert(MF_FP16, g_bulk[m], MF_FP32, g_in, CHUNK, &opts[m]);
        if (st != MF_OK)
            break;
        hw_chunk(acc);
        for (m = 0; m < 4; m++)
            bulk_compare(m, acc[m], &rb);
        scalar_chunk((uint32_t)c, &rs);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    printf("time f16c sweep, bulk 4 x %" PRIu64 " and scalar 4 x %" PRIu64 " conversions: %.1f s wall, %.1f s cpu\n",
           rb.visited[0], rs.visited[0], (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec),
           (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec));
    ck_assert_msg(st == MF_OK, "mf_convert(MF_FP16) returned %d", st);
    failed = report(&rb, "mf_convert", (uint64_t)1 << 32);
    failed |= report(&rs, "mf_from_f32", expect_scalar);
    fflush(stdout);
    ck_assert_msg(!failed, "f32 -> f16 differs from F16C or the sweep missed inputs (see the FAIL lines)");
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

/* The sweep's scalar inputs outside its shard are near_boundary's: check that they hold every decision
 * boundary, from F16C's decoded values. Directed modes change their result at each f16 value, rn at each
 * midpoint of two neighbours (and at 65520, the midpoint of 65504 and 2^16); one ulp above and below
 * each must be taken too. */
START_TEST(test_near_boundary)
{
    static float v[65536];
    uint32_t k, checked = 0;

    hw_decode_all(v);
    for (k = 0; k < 0x7C00u; k++) { /* +0 .. 65504, then inf */
        const uint32_t a = mf_test_f32_bits(v[k]), mid = mf_test_f32_bits(0.5f * (v[k] + v[k + 1]));
        ck_assert_msg(near_boundary(a) && near_boundary(a + 1) && (a == 0 || near_boundary(a - 1)),
                      "f16 0x%04" PRIx32 " = 0x%08" PRIx32 " is not near a multiple of 2^12", k, a);
        ck_assert_msg(near_boundary(mid) && near_boundary(mid + 1) && near_boundary(mid - 1),
                      "midpoint above f16 0x%04" PRIx32 " = 0x%08" PRIx32 " is not near a multiple of 2^12", k,
                      mid);
        checked++;
    }
    ck_assert_uint_eq(mf_test_f32_bits(0.5f * (v[0x7BFF] + 65536.0f)), 0x477FF000u); /* the last midpoint */
    ck_assert(near_boundary(0x7F800000u) && near_boundary(0x7F800001u) && near_boundary(0x7F7FFFFFu));
    ck_assert(!near_boundary(0x3C000000u + NEAR + 1u) && !near_boundary(0x3C001000u - NEAR - 1u));
    ck_assert_uint_eq(checked, 0x7C00);
}
END_TEST

/* The scalar check's shard, as tests/test_exhaustive.c chooses a backend's: MF_EXHAUSTIVE_SHARD=all, every
 * input; a number k, shard k % 16; unset, the shard of the day (days since 1970 % 16), so that sixteen days
 * of runs take every input. */
static int choose_shard(void)
{
    const char *e = getenv("MF_EXHAUSTIVE_SHARD");
    if (e && strcmp(e, "all") == 0)
        return -1;
    if (e && *e)
        return (int)(strtoul(e, NULL, 10) % NSHARD);
    return (int)((unsigned long)(time(NULL) / 86400) % NSHARD);
}

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
        tcase_add_test(tc, test_near_boundary);
        tcase_add_test(tc, test_decode);
        tcase_set_timeout(tc, 60);
    } else {
        g_shard = choose_shard();
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
