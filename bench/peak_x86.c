/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
/* bench/peak_x86.c - one core's binary32 FMA peak: independent vfmadd231ps chains, AVX-512 where the CPU
 * has it, else AVX2 (bench/gemm's vs_peak). 0 on other CPUs. */
#include "clock.h"

double bench_fma_peak_1(void);

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

enum { ITERS = 20000000 };

/* 12 independent chains: more than the FMA latency times the pipes on the CPUs we meet */
#define PEAK_FN(name, isa, T, SET1, FMA, ADD, FIRST, lanes)                                                            \
    __attribute__((target(isa))) static double name(void)                                                              \
    {                                                                                                                  \
        T x[12];                                                                                                       \
        const T m = SET1(0.9999999f), d = SET1(1e-7f);                                                                 \
        const double t0 = now();                                                                                       \
        for (int q = 0; q < 12; q++)                                                                                   \
            x[q] = SET1(1.0f + 0.1f * (float)q);                                                                       \
        for (long i = 0; i < ITERS; i++) {                                                                             \
            x[0] = FMA(x[0], m, d), x[1] = FMA(x[1], m, d), x[2] = FMA(x[2], m, d), x[3] = FMA(x[3], m, d);            \
            x[4] = FMA(x[4], m, d), x[5] = FMA(x[5], m, d), x[6] = FMA(x[6], m, d), x[7] = FMA(x[7], m, d);            \
            x[8] = FMA(x[8], m, d), x[9] = FMA(x[9], m, d), x[10] = FMA(x[10], m, d), x[11] = FMA(x[11], m, d);        \
        }                                                                                                              \
        const double t = now() - t0;                                                                                   \
        for (int q = 1; q < 12; q++)                                                                                   \
            x[0] = ADD(x[0], x[q]);                                                                                    \
        volatile float sink = FIRST(x[0]);                                                                             \
        (void)sink;                                                                                                    \
        return 2.0 * (lanes)*12 * (double)ITERS / t * 1e-9;                                                            \
    }
PEAK_FN(peak_avx2, "avx2,fma", __m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_add_ps, _mm256_cvtss_f32, 8)
PEAK_FN(peak_avx512, "avx512f", __m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps, _mm512_cvtss_f32, 16)

double bench_fma_peak_1(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return peak_avx512();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return peak_avx2();
    return 0.0;
}
#else
double bench_fma_peak_1(void) { return 0.0; }
#endif
