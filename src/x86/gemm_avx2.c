/* SPDX-License-Identifier: MIT */
/* src/x86/gemm_avx2.c - the GEMM micro-kernel for AVX2: src/gemm/ukr_template.h on ymm registers, a 6 x 16 tile,
 * vfmadd231ps. Compiled with the avx2 backend's flags (src/sources.cmake). */
#include <immintrin.h>

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
