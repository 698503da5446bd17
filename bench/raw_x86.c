/* SPDX-License-Identifier: MIT */
/* bench/raw_x86.c - the bare instruction loops (unrolled four times), compiled with AVX-512 flags
 * and run only where the CPU has them; on a CPU with AVX2 and F16C but no AVX-512, the 256-bit loops of
 * raw_avx2.c stand in (the same instructions, half the width: the hardware's own rate there). */
#include <immintrin.h>

#include "baselines.h"

static int has_avx512(void) { return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw"); }

int raw_cvtps2ph(void *dst, const void *src, size_t n)
{
    const float *s = (const float *)src;
    uint16_t *d = (uint16_t *)dst;
    size_t i;
    if (!has_avx512()) {
        if (!raw_avx2_ok())
            return 0;
        raw_avx2_cvtps2ph(d, s, n);
        return 1;
    }
    for (i = 0; i + 64 <= n; i += 64) {
        __m256i a = _mm512_cvtps_ph(_mm512_loadu_ps(s + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        __m256i b = _mm512_cvtps_ph(_mm512_loadu_ps(s + i + 16), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        __m256i c = _mm512_cvtps_ph(_mm512_loadu_ps(s + i + 32), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        __m256i e = _mm512_cvtps_ph(_mm512_loadu_ps(s + i + 48), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        _mm256_storeu_si256((__m256i *)(d + i), a);
        _mm256_storeu_si256((__m256i *)(d + i + 16), b);
        _mm256_storeu_si256((__m256i *)(d + i + 32), c);
        _mm256_storeu_si256((__m256i *)(d + i + 48), e);
    }
    return 1;
}

int raw_cvtph2ps(void *dst, const void *src, size_t n)
{
    const uint16_t *s = (const uint16_t *)src;
    float *d = (float *)dst;
    size_t i;
    if (!has_avx512()) {
        if (!raw_avx2_ok())
            return 0;
        raw_avx2_cvtph2ps(d, s, n);
        return 1;
    }
    for (i = 0; i + 64 <= n; i += 64) {
        __m512 a = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(s + i)));
        __m512 b = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(s + i + 16)));
        __m512 c = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(s + i + 32)));
        __m512 e = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(s + i + 48)));
        _mm512_storeu_ps(d + i, a);
        _mm512_storeu_ps(d + i + 16, b);
        _mm512_storeu_ps(d + i + 32, c);
        _mm512_storeu_ps(d + i + 48, e);
    }
    return 1;
}

__attribute__((target("avx512bf16"))) static void cvtneps2bf16_loop(uint16_t *d, const float *s, size_t n)
{
    size_t i;
    for (i = 0; i + 64 <= n; i += 64) {
        __m256bh a = _mm512_cvtneps_pbh(_mm512_loadu_ps(s + i));
        __m256bh b = _mm512_cvtneps_pbh(_mm512_loadu_ps(s + i + 16));
        __m256bh c = _mm512_cvtneps_pbh(_mm512_loadu_ps(s + i + 32));
        __m256bh e = _mm512_cvtneps_pbh(_mm512_loadu_ps(s + i + 48));
        _mm256_storeu_si256((__m256i *)(d + i), (__m256i)a);
        _mm256_storeu_si256((__m256i *)(d + i + 16), (__m256i)b);
        _mm256_storeu_si256((__m256i *)(d + i + 32), (__m256i)c);
        _mm256_storeu_si256((__m256i *)(d + i + 48), (__m256i)e);
    }
}

int raw_cvtneps2bf16(void *dst, const void *src, size_t n)
{
    if (!has_avx512() || !__builtin_cpu_supports("avx512bf16"))
        return 0;
    cvtneps2bf16_loop((uint16_t *)dst, (const float *)src, n);
    return 1;
}

int raw_bf16_shift(void *dst, const void *src, size_t n)
{
    const uint16_t *s = (const uint16_t *)src;
    uint32_t *d = (uint32_t *)dst;
    size_t i;
    if (!has_avx512()) {
        if (!raw_avx2_ok())
            return 0;
        raw_avx2_bf16_shift(d, s, n);
        return 1;
    }
    for (i = 0; i + 64 <= n; i += 64) {
        size_t k;
        for (k = 0; k < 64; k += 16)
            _mm512_storeu_si512(d + i + k,
                                _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(s + i + k))), 16));
    }
    return 1;
}
