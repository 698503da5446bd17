/* SPDX-License-Identifier: MIT */
/* bench/survey: every pair of formats, in the chosen modes and policies, on DRAM-sized arrays, as a ratio to
 * memcpy's bytes a second (not a test). docs/performance.md counts the conversions at >= 0.9x memcpy;
 * bench/convert measures a fixed list of rows, this sweeps the rest.
 *
 * usage: build/bench/survey [--n N] [--mode rn|rna|rz|ru|rd|ro|sr|all] [--policy ieee|sat|all] [--below R]
 *                           [--from FMT] [--to FMT]
 * Prints CSV: src,dst,mode,policy,ns_per_elem,gb_per_s,memcpy_gb_per_s,ratio (bytes read + written, against
 * memcpy of the larger of the two arrays, measured alternately with ours: medians of 5). --below R prints
 * only the conversions under R; --from and --to keep one source or destination format. The last two
 * columns measure, alternately too, a loop that moves the conversion's own bytes and computes nothing
 * (stream_loop): what one core's memory allows a conversion of those sizes, which memcpy does not say
 * where a core reads far slower than it writes (a conversion from f32 or f64 reads most of its bytes). Sources hold training-like f32 data converted (rn, saturating) into the
 * source format, so that each holds realistic codes. The backend is the dispatcher's choice (MF_BACKEND picks another).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <minifloat.h>

#include "clock.h"

enum { REPS = 5 };

static double median(double *v) { return median_of(v, REPS); }

/* bytes an element; e2m1 is half a byte */
static double elem_bytes(mf_format f) { return f == MF_FP4_E2M1 ? 0.5 : (double)mf_storage_bytes(f, 1); }

static void *xalloc(size_t bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, bytes ? bytes : 1) != 0) {
        fprintf(stderr, "survey: out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    memset(p, 1, bytes); /* touch every page before timing */
    return p;
}

/* The bytes of a conversion of n elements (a multiple of 64) from sb to db bytes an element, with no
 * arithmetic: 128 elements a step, their source read in 64-byte lines and folded into one register,
 * their destination written from it with non-temporal stores (as the backends stream large outputs),
 * in 64-byte vectors where the CPU has AVX-512 (16-byte ones moved 20% less here), else 32 or 16.
 * The stores use the fold, so that the loads are not dropped. */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SURVEY_STREAM(NAME, TARGET, VEC, LOAD, XOR, STORE)                                                  \
    __attribute__((target(TARGET))) static void NAME(void *dst, size_t nd, const void *src, size_t ns, \
                                                         size_t steps)                                     \
    {                                                                                                      \
        const VEC *s = (const VEC *)src;                                                                   \
        VEC *d = (VEC *)dst, acc;                                                                          \
        size_t g, k;                                                                                       \
        memset(&acc, 0, sizeof acc);                                                                       \
        for (g = 0; g < steps; g++, s += ns, d += nd) {                                                    \
            for (k = 0; k < ns; k++)                                                                       \
                acc = XOR(acc, LOAD(s + k));                                                               \
            for (k = 0; k < nd; k++)                                                                       \
                STORE(d + k, acc);                                                                         \
        }                                                                                                  \
        _mm_sfence();                                                                                      \
    }
SURVEY_STREAM(stream512, "avx512f", __m512i, _mm512_load_si512, _mm512_xor_si512, _mm512_stream_si512)
SURVEY_STREAM(stream256, "avx2", __m256i, _mm256_load_si256, _mm256_xor_si256, _mm256_stream_si256)
SURVEY_STREAM(stream128, "sse2", __m128i, _mm_load_si128, _mm_xor_si128, _mm_stream_si128)
static void stream_loop(void *dst, double db, const void *src, double sb, size_t n)
{
    const size_t ls = (size_t)(2 * sb), ld = (size_t)(2 * db); /* 64-byte lines a step of 128 elements */
    if (__builtin_cpu_supports("avx512f"))
        stream512(dst, ld, src, ls, n / 128);
    else if (__builtin_cpu_supports("avx2"))
        stream256(dst, 2 * ld, src, 2 * ls, n / 128);
    else
        stream128(dst, 4 * ld, src, 4 * ls, n / 128);
}
#else
static void stream_loop(void *dst, double db, const void *src, double sb, size_t n)
{
    const size_t ns = (size_t)(16 * sb), nd = (size_t)(16 * db); /* 8-byte words a step of 128 elements */
    const uint64_t *s = (const uint64_t *)src;
    volatile uint64_t *d = (volatile uint64_t *)dst;
    uint64_t acc = 0;
    size_t g, k;
    for (g = 0; g < n / 128; g++, s += ns, d += nd) {
        for (k = 0; k < ns; k++)
            acc ^= s[k];
        for (k = 0; k < nd; k++)
            d[k] = acc;
    }
}
#endif

int main(int argc, char **argv)
{
    static const mf_format fmts[] = {MF_FP32, MF_FP16,     MF_BF16,     MF_FP8_E4M3, MF_FP8_E5M2,
                                     MF_FP6_E2M3, MF_FP6_E3M2, MF_FP4_E2M1, MF_E8M0,     MF_FP64};
    enum { NF = sizeof fmts / sizeof fmts[0] };
    size_t n = (size_t)64 << 20, i;
    int mode = MF_ROUND_NEAREST_EVEN, policy = MF_OVERFLOW_SATURATE, a, si, di, r, o, from = -1, to = -1;
    double below = 1e9;
    void *src[NF] = {0};
    float *f32;
    uint8_t *dst, *tmp;
    for (a = 1; a < argc; a++) {
        mf_round rr;
        mf_overflow oo;
        mf_format ff;
        if (!strcmp(argv[a], "--n") && a + 1 < argc)
            n = (size_t)strtoull(argv[++a], NULL, 10);
        else if (!strcmp(argv[a], "--below") && a + 1 < argc)
            below = strtod(argv[++a], NULL);
        else if (!strcmp(argv[a], "--mode") && a + 1 < argc && !strcmp(argv[a + 1], "all"))
            mode = -1, a++;
        else if (!strcmp(argv[a], "--mode") && a + 1 < argc && mf_round_from_name(argv[a + 1], &rr) == MF_OK)
            mode = (int)rr, a++;
        else if (!strcmp(argv[a], "--policy") && a + 1 < argc && !strcmp(argv[a + 1], "all"))
            policy = -1, a++;
        else if (!strcmp(argv[a], "--policy") && a + 1 < argc && mf_overflow_from_name(argv[a + 1], &oo) == MF_OK)
            policy = (int)oo, a++;
        else if (!strcmp(argv[a], "--from") && a + 1 < argc && mf_format_from_name(argv[a + 1], &ff) == MF_OK)
            from = (int)ff, a++;
        else if (!strcmp(argv[a], "--to") && a + 1 < argc && mf_format_from_name(argv[a + 1], &ff) == MF_OK)
            to = (int)ff, a++;
        else {
            fprintf(stderr, "usage: %s [--n N] [--mode rn|rna|rz|ru|rd|ro|sr|all] [--policy ieee|sat|all] "
                            "[--below R] [--from FMT] [--to FMT]\n", argv[0]);
            return 2;
        }
    }
    n &= ~(size_t)127; /* whole steps of stream_loop */
    if (n == 0)
        n = 128;
    /* training-like values: normal values times 2^k, k in -12..11 (a fixed hash, no library code) */
    f32 = xalloc(n * 4);
    for (i = 0; i < n; i++) {
        uint32_t h = (uint32_t)i * 2654435761u;
        float v = (float)((h >> 8) % 20001u) / 10000.0f - 1.0f;
        int k = (int)((h >> 3) % 24u) - 12;
        f32[i] = k >= 0 ? v * (float)(1u << k) : v / (float)(1u << -k);
    }
    dst = xalloc(n * 8);
    tmp = xalloc(n * 8);
    printf("# minifloat %s bench/survey; backend %s; n %zu\n", mf_version(), mf_backend(), n);
    printf("src,dst,mode,policy,ns_per_elem,gb_per_s,memcpy_gb_per_s,ratio,stream_gb_per_s,ratio_stream\n");
    for (si = 0; si < NF; si++) {
        mf_opts c = {0};
        c.overflow = MF_OVERFLOW_SATURATE;
        if (fmts[si] == MF_FP32) {
            src[si] = f32;
        } else {
            src[si] = xalloc(mf_storage_bytes(fmts[si], n));
            if (mf_convert(fmts[si], src[si], MF_FP32, f32, n, &c) != MF_OK)
                return 1;
        }
    }
    for (si = 0; si < NF; si++)
        for (di = 0; di < NF; di++)
            for (r = 0; r < MF_ROUND_COUNT; r++)
                for (o = 0; o < MF_OVERFLOW_COUNT; o++) {
                    const mf_format s = fmts[si], d = fmts[di];
                    const double sb = elem_bytes(s), db = elem_bytes(d), mb = sb > db ? sb : db;
                    double t[REPS], m[REPS], b[REPS], ours, ref, bound;
                    mf_opts opt = {0};
                    int k;
                    if (s == d || (mode >= 0 && r != mode) || (policy >= 0 && o != policy) || (from >= 0 && (int)s != from) ||
                        (to >= 0 && (int)d != to))
                        continue;
                    opt.round = (mf_round)r;
                    opt.overflow = (mf_overflow)o;
                    opt.seed = 1;
                    for (k = 0; k < REPS; k++) {
                        double t0 = now();
                        if (mf_convert(d, dst, s, src[si], n, &opt) != MF_OK)
                            return 1;
                        t[k] = (now() - t0) / (double)n;
                        t0 = now();
                        memcpy(tmp, src[NF - 1], (size_t)(mb * (double)n)); /* the f64 array: 8n bytes */
                        m[k] = (now() - t0) / (double)n;
                        t0 = now();
                        stream_loop(tmp, db, src[si], sb, n);
                        b[k] = (now() - t0) / (double)n;
                    }
                    ours = (sb + db) / median(t) * 1e-9;
                    ref = 2 * mb / median(m) * 1e-9;
                    bound = (sb + db) / median(b) * 1e-9;
                    if (ours / ref < below)
                        printf("%s,%s,%s,%s,%.4f,%.1f,%.1f,%.2f,%.1f,%.2f\n", mf_format_name(s), mf_format_name(d),
                               mf_round_name((mf_round)r), mf_overflow_name((mf_overflow)o), median(t) * 1e9, ours,
                               ref, ours / ref, bound, ours / bound);
                    fflush(stdout);
                }
    return 0;
}
