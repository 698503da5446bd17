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
