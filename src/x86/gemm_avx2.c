/* SPDX-License-Identifier: MIT */
/* src/x86/gemm_avx2.c - the AVX2 GEMM micro-kernel: a 6 x 16 tile in twelve ymm registers, one
 * broadcast of A and two loads of B per step, vfmadd231ps (fused: one rounding, as fmaf). Packed B is
 * 64-byte aligned (src/gemm/gemm.c).
 * Compiled with the avx2 backend's flags (src/sources.cmake); src/gemm/kernels.h has the contract. */
#include <immintrin.h>

#include "../gemm/kernels.h"

enum { MR = 6, NR = 16 };

static void ukr_avx2(size_t kc, const float *a, const float *b, float *c)
{
    __m256 c00 = _mm256_loadu_ps(c + 0), c01 = _mm256_loadu_ps(c + 8);
    __m256 c10 = _mm256_loadu_ps(c + 16), c11 = _mm256_loadu_ps(c + 24);
    __m256 c20 = _mm256_loadu_ps(c + 32), c21 = _mm256_loadu_ps(c + 40);
    __m256 c30 = _mm256_loadu_ps(c + 48), c31 = _mm256_loadu_ps(c + 56);
    __m256 c40 = _mm256_loadu_ps(c + 64), c41 = _mm256_loadu_ps(c + 72);
    __m256 c50 = _mm256_loadu_ps(c + 80), c51 = _mm256_loadu_ps(c + 88);
#define STEP(q)                                                                                                        \
    do {                                                                                                               \
        const __m256 b0 = _mm256_load_ps(b + (q)*NR), b1 = _mm256_load_ps(b + (q)*NR + 8);                             \
        __m256 x = _mm256_broadcast_ss(a + (q)*MR + 0);                                                                \
        c00 = _mm256_fmadd_ps(x, b0, c00), c01 = _mm256_fmadd_ps(x, b1, c01);                                          \
        x = _mm256_broadcast_ss(a + (q)*MR + 1);                                                                       \
        c10 = _mm256_fmadd_ps(x, b0, c10), c11 = _mm256_fmadd_ps(x, b1, c11);                                          \
        x = _mm256_broadcast_ss(a + (q)*MR + 2);                                                                       \
        c20 = _mm256_fmadd_ps(x, b0, c20), c21 = _mm256_fmadd_ps(x, b1, c21);                                          \
        x = _mm256_broadcast_ss(a + (q)*MR + 3);                                                                       \
        c30 = _mm256_fmadd_ps(x, b0, c30), c31 = _mm256_fmadd_ps(x, b1, c31);                                          \
        x = _mm256_broadcast_ss(a + (q)*MR + 4);                                                                       \
        c40 = _mm256_fmadd_ps(x, b0, c40), c41 = _mm256_fmadd_ps(x, b1, c41);                                          \
        x = _mm256_broadcast_ss(a + (q)*MR + 5);                                                                       \
        c50 = _mm256_fmadd_ps(x, b0, c50), c51 = _mm256_fmadd_ps(x, b1, c51);                                          \
    } while (0)
    size_t p = 0;
    for (; p + 4 <= kc; p += 4, a += 4 * MR, b += 4 * NR) { /* four steps a turn: less loop overhead */

        STEP(0);
        STEP(1);
        STEP(2);
        STEP(3);
    }
    for (; p < kc; p++, a += MR, b += NR)
        STEP(0);
#undef STEP
    _mm256_storeu_ps(c + 0, c00), _mm256_storeu_ps(c + 8, c01);
    _mm256_storeu_ps(c + 16, c10), _mm256_storeu_ps(c + 24, c11);
    _mm256_storeu_ps(c + 32, c20), _mm256_storeu_ps(c + 40, c21);
    _mm256_storeu_ps(c + 48, c30), _mm256_storeu_ps(c + 56, c31);
    _mm256_storeu_ps(c + 64, c40), _mm256_storeu_ps(c + 72, c41);
    _mm256_storeu_ps(c + 80, c50), _mm256_storeu_ps(c + 88, c51);
}

const mf__gemm_ukr mf__gemm_ukr_avx2 = {"avx2", MR, NR, ukr_avx2};
