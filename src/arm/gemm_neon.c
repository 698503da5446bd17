/* SPDX-License-Identifier: MIT */
/* src/arm/gemm_neon.c - the GEMM micro-kernel for AArch64 Advanced SIMD: src/gemm/ukr_template.h on q
 * registers, a 6 x 8 tile, FMLA (fused: one rounding, as fmaf). */
#include <arm_neon.h>

#include "../gemm/kernels.h"

#define VEC float32x4_t
#define VL 4
#define V_LOADU vld1q_f32
#define V_LOAD vld1q_f32
#define V_BCAST vld1q_dup_f32
#define V_FMA(x, y, acc) vfmaq_f32((acc), (x), (y))
#define V_STOREU vst1q_f32
#define V_ZERO() vdupq_n_f32(0.0f)
#define UKR_NAME ukr_neon
#include "../gemm/ukr_template.h"

const mf__gemm_ukr mf__gemm_ukr_neon = {"neon", MR, NR, ukr_neon};
