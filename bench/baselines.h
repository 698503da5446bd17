/* SPDX-License-Identifier: MIT */
/* bench/baselines.h - the implementations minifloat is measured against, in the same run.
 * Each converts n elements; each returns 0 if it cannot run here (missing CPU feature or header). */
#ifndef MF_BENCH_BASELINES_H
#define MF_BENCH_BASELINES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int (*bench_fn)(void *dst, const void *src, size_t n);

/* The raw hardware instruction loops (x86): no fix-ups, no special cases. */
int raw_cvtps2ph(void *dst, const void *src, size_t n);     /* f32 -> f16 rn, vcvtps2ph zmm (ymm without AVX-512) */
int raw_cvtph2ps(void *dst, const void *src, size_t n);     /* f16 -> f32, vcvtph2ps zmm (ymm without AVX-512) */
int raw_cvtneps2bf16(void *dst, const void *src, size_t n); /* f32 -> bf16 rn, vcvtneps2bf16 (flushes subnormals) */
int raw_bf16_shift(void *dst, const void *src, size_t n);   /* bf16 -> f32, vpmovzxwd + vpslld */

/* Their 256-bit forms (bench/raw_avx2.c), which the above use on a CPU without AVX-512 */
int raw_avx2_ok(void); /* AVX2 and F16C */
void raw_avx2_cvtps2ph(uint16_t *d, const float *s, size_t n);
void raw_avx2_cvtph2ps(float *d, const uint16_t *s, size_t n);
void raw_avx2_bf16_shift(uint32_t *d, const uint16_t *s, size_t n);

/* Maratyszcza's FP16 (Debian libfp16-dev), scalar per element. */
int fp16lib_f32_to_f16(void *dst, const void *src, size_t n);
int fp16lib_f16_to_f32(void *dst, const void *src, size_t n);

/* NVIDIA's host conversions from the CUDA headers (bench/nv_baseline.cpp). One code per byte for
 * FP4 (NVIDIA's storage type), where minifloat packs two. */
int nv_f32_to_f16(void *dst, const void *src, size_t n);
int nv_f16_to_f32(void *dst, const void *src, size_t n);
int nv_f32_to_bf16(void *dst, const void *src, size_t n);
int nv_bf16_to_f32(void *dst, const void *src, size_t n);
int nv_f32_to_e4m3(void *dst, const void *src, size_t n);
int nv_e4m3_to_f32(void *dst, const void *src, size_t n);
int nv_f32_to_e5m2(void *dst, const void *src, size_t n);
int nv_e5m2_to_f32(void *dst, const void *src, size_t n);
int nv_f32_to_e2m1(void *dst, const void *src, size_t n);
int nv_e2m1_to_f32(void *dst, const void *src, size_t n);

#ifdef __cplusplus
}
#endif

#endif
