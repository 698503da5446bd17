/* SPDX-License-Identifier: MIT */
// bench/nv_baseline.cpp - NVIDIA's host conversions from the CUDA headers, compiled by the host C++
// compiler. FP4 is written one code per byte, NVIDIA's storage type.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp4.h>
#include <cuda_fp8.h>

#include <cstring>

#include "baselines.h"

extern "C" {

int nv_f32_to_f16(void *dst, const void *src, size_t n)
{
    const float *s = static_cast<const float *>(src);
    __half_raw *d = static_cast<__half_raw *>(dst);
    for (size_t i = 0; i < n; i++)
        d[i] = static_cast<__half_raw>(__float2half_rn(s[i]));
    return 1;
}

int nv_f16_to_f32(void *dst, const void *src, size_t n)
{
    const __half_raw *s = static_cast<const __half_raw *>(src);
    float *d = static_cast<float *>(dst);
    for (size_t i = 0; i < n; i++)
        d[i] = __half2float(__half(s[i]));
    return 1;
}

int nv_f32_to_bf16(void *dst, const void *src, size_t n)
{
    const float *s = static_cast<const float *>(src);
    __nv_bfloat16_raw *d = static_cast<__nv_bfloat16_raw *>(dst);
    for (size_t i = 0; i < n; i++)
        d[i] = static_cast<__nv_bfloat16_raw>(__float2bfloat16_rn(s[i]));
    return 1;
}

int nv_bf16_to_f32(void *dst, const void *src, size_t n)
{
    const __nv_bfloat16_raw *s = static_cast<const __nv_bfloat16_raw *>(src);
    float *d = static_cast<float *>(dst);
    for (size_t i = 0; i < n; i++)
        d[i] = __bfloat162float(__nv_bfloat16(s[i]));
    return 1;
}

static int to_fp8(void *dst, const void *src, size_t n, __nv_fp8_interpretation_t k)
{
    const float *s = static_cast<const float *>(src);
    __nv_fp8_storage_t *d = static_cast<__nv_fp8_storage_t *>(dst);
    for (size_t i = 0; i < n; i++)
        d[i] = __nv_cvt_float_to_fp8(s[i], __NV_SATFINITE, k);
    return 1;
}

static int from_fp8(void *dst, const void *src, size_t n, __nv_fp8_interpretation_t k)
{
    const __nv_fp8_storage_t *s = static_cast<const __nv_fp8_storage_t *>(src);
    float *d = static_cast<float *>(dst);
    for (size_t i = 0; i < n; i++)
        d[i] = __half2float(__half(__nv_cvt_fp8_to_halfraw(s[i], k)));
    return 1;
}

int nv_f32_to_e4m3(void *dst, const void *src, size_t n) { return to_fp8(dst, src, n, __NV_E4M3); }
int nv_e4m3_to_f32(void *dst, const void *src, size_t n) { return from_fp8(dst, src, n, __NV_E4M3); }
int nv_f32_to_e5m2(void *dst, const void *src, size_t n) { return to_fp8(dst, src, n, __NV_E5M2); }
int nv_e5m2_to_f32(void *dst, const void *src, size_t n) { return from_fp8(dst, src, n, __NV_E5M2); }

int nv_f32_to_e2m1(void *dst, const void *src, size_t n)
{
    const float *s = static_cast<const float *>(src);
    __nv_fp4_storage_t *d = static_cast<__nv_fp4_storage_t *>(dst);
    for (size_t i = 0; i < n; i++)
        d[i] = __nv_cvt_float_to_fp4(s[i], __NV_E2M1, cudaRoundNearest);
    return 1;
}

int nv_e2m1_to_f32(void *dst, const void *src, size_t n)
{
    const __nv_fp4_storage_t *s = static_cast<const __nv_fp4_storage_t *>(src);
    float *d = static_cast<float *>(dst);
    for (size_t i = 0; i < n; i++)
        d[i] = __half2float(__half(__nv_cvt_fp4_to_halfraw(s[i], __NV_E2M1)));
    return 1;
}

} // extern "C"
