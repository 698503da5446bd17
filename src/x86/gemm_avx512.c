/* SPDX-License-Identifier: MIT */
/* src/x86/gemm_avx512.c - the GEMM micro-kernel for AVX-512: src/gemm/ukr_template.h on zmm registers, a 6 x 32 tile,
 * vfmadd231ps (the AVX2 kernel's source, which the tests run on every x86 machine). Compiled with the
 * avx512 backend's flags (src/sources.cmake). */
#include <immintrin.h>

#include "../gemm/kernels.h"

#define VEC __m512
#define VL 16
#define V_LOADU _mm512_loadu_ps
#define V_LOAD _mm512_load_ps
#define V_BCAST(p) _mm512_set1_ps(*(p))
#define V_FMA _mm512_fmadd_ps
#define V_STOREU _mm512_storeu_ps
#define V_ZERO _mm512_setzero_ps
#define UKR_NAME ukr_avx512
#include "../gemm/ukr_template.h"

const mf__gemm_ukr mf__gemm_ukr_avx512 = {"avx512", MR, NR, ukr_avx512};

/* The epilogue's plain stores (kernels.h): one vfpclassps a vector finds the NaNs, infinities, subnormals and -0s. */
#define NOT_PLAIN (0x01 | 0x04 | 0x08 | 0x10 | 0x20 | 0x80) /* QNaN, -0, +inf, -inf, subnormal, SNaN */

static int copy_plain(float *dst, const float *w, size_t n)
{
    __mmask16 bad = 0;
    size_t q = 0;
    for (; q + 16 <= n; q += 16) {
        const __m512 v = _mm512_loadu_ps(w + q);
        _mm512_storeu_ps(dst + q, v);
        bad |= _mm512_fpclass_ps_mask(v, NOT_PLAIN);
    }
    if (q < n) {
        const __mmask16 m = (__mmask16)((1u << (n - q)) - 1u);
        const __m512 v = _mm512_maskz_loadu_ps(m, w + q);
        _mm512_mask_storeu_ps(dst + q, m, v);
        bad |= _mm512_mask_fpclass_ps_mask(m, v, NOT_PLAIN);
    }
    return !bad;
}

static int scale_plain(float *dst, const float *w, size_t n, float f)
{
    const __m512 vf = _mm512_set1_ps(f);
    __mmask16 bad = 0;
    size_t q = 0;
    for (; q < n; q += 16) {
        const __mmask16 m = n - q >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - q)) - 1u);
        const __m512 v = _mm512_maskz_loadu_ps(m, w + q);
        const __mmask16 nz = _mm512_test_epi32_mask(_mm512_castps_si512(v), _mm512_castps_si512(v));
        _mm512_mask_storeu_ps(dst + q, m, _mm512_maskz_mul_ps(nz, v, vf)); /* +0 stays +0 */
        bad |= _mm512_mask_fpclass_ps_mask(m, v, NOT_PLAIN);
    }
    return !bad;
}

const mf__gemm_store mf__gemm_store_avx512 = {copy_plain, scale_plain};
