/* SPDX-License-Identifier: MIT */
/* src/x86/gemm_avx2.c - the GEMM micro-kernel for AVX2: src/gemm/ukr_template.h on ymm registers, a 6 x 16 tile,
 * vfmadd231ps. Compiled with the avx2 backend's flags (src/sources.cmake). */
#include <immintrin.h>
#include <string.h>

#include "../gemm/kernels.h"

#define VEC __m256
#define VL 8
#define V_LOADU _mm256_loadu_ps
#define V_LOAD _mm256_load_ps
#define V_BCAST _mm256_broadcast_ss
#define V_FMA _mm256_fmadd_ps
#define V_STOREU _mm256_storeu_ps
#define V_ZERO _mm256_setzero_ps
#define UKR_NAME ukr_avx2
#include "../gemm/ukr_template.h"

const mf__gemm_ukr mf__gemm_ukr_avx2 = {"avx2", MR, NR, ukr_avx2};

/* The epilogue's plain stores (kernels.h): with a = |w| as an integer, a NaN or infinity is a > 0x7F7FFFFF, and a
 * subnormal or -0 is a < 0x800000 with w's bits not zero. */
static __m256i not_plain(__m256i u)
{
    const __m256i a = _mm256_and_si256(u, _mm256_set1_epi32(0x7FFFFFFF));
    const __m256i big = _mm256_cmpgt_epi32(a, _mm256_set1_epi32(0x7F7FFFFF));
    const __m256i tiny = _mm256_cmpgt_epi32(_mm256_set1_epi32(0x800000), a);
    return _mm256_or_si256(big, _mm256_andnot_si256(_mm256_cmpeq_epi32(u, _mm256_setzero_si256()), tiny));
}

static int copy_plain(float *dst, const float *w, size_t n)
{
    __m256i bad = _mm256_setzero_si256();
    size_t q = 0;
    for (; q + 8 <= n; q += 8) {
        const __m256i u = _mm256_loadu_si256((const __m256i *)(const void *)(w + q));
        _mm256_storeu_si256((__m256i *)(void *)(dst + q), u);
        bad = _mm256_or_si256(bad, not_plain(u));
    }
    for (; q < n; q++) { /* the tail: kernels.h's rule on one value */
        uint32_t u;
        memcpy(&u, w + q, 4);
        memcpy(dst + q, &u, 4);
        bad = _mm256_or_si256(bad, not_plain(_mm256_set1_epi32((int)u)));
    }
    return _mm256_testz_si256(bad, bad);
}

static int scale_plain(float *dst, const float *w, size_t n, float f)
{
    const __m256 vf = _mm256_set1_ps(f);
    __m256i bad = _mm256_setzero_si256();
    size_t q = 0;
    for (; q + 8 <= n; q += 8) {
        const __m256i u = _mm256_loadu_si256((const __m256i *)(const void *)(w + q));
        const __m256 r = _mm256_mul_ps(_mm256_castsi256_ps(u), vf);
        const __m256i zero = _mm256_cmpeq_epi32(u, _mm256_setzero_si256()); /* +0 stays +0 */
        _mm256_storeu_ps(dst + q, _mm256_andnot_ps(_mm256_castsi256_ps(zero), r));
        bad = _mm256_or_si256(bad, not_plain(u));
    }
    for (; q < n; q++) {
        uint32_t u;
        const float r = w[q] * f;
        memcpy(&u, w + q, 4);
        dst[q] = u ? r : 0.0f;
        bad = _mm256_or_si256(bad, not_plain(_mm256_set1_epi32((int)u)));
    }
    return _mm256_testz_si256(bad, bad);
}

const mf__gemm_store mf__gemm_store_avx2 = {copy_plain, scale_plain};
