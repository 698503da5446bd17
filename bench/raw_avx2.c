/* SPDX-License-Identifier: MIT */
/* bench/raw_avx2.c - the bare instruction loops for CPUs with AVX2 and F16C but no AVX-512 (unrolled
 * four times, 256-bit), compiled with AVX2 flags only so that no EVEX instruction can slip in; raw_x86.c
 * calls them where the CPU lacks AVX-512. */
#include <cpuid.h>
#include <immintrin.h>

#include "baselines.h"

/* F16C from CPUID leaf 1 (ECX bit 29): clang 14's __builtin_cpu_supports does not know "f16c". Asked once:
 * in a virtual machine CPUID traps to the hypervisor (microseconds), which would be timed with each loop. */
int raw_avx2_ok(void)
{
    static int ok = -1;
    if (ok < 0) {
        unsigned a, b, c, d;
        ok = __builtin_cpu_supports("avx2") && __get_cpuid(1, &a, &b, &c, &d) && (c >> 29 & 1u);
    }
    return ok;
}

void raw_avx2_cvtps2ph(uint16_t *d, const float *s, size_t n)
{
    size_t i;
    for (i = 0; i + 32 <= n; i += 32) {
        __m128i a = _mm256_cvtps_ph(_mm256_loadu_ps(s + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        __m128i b = _mm256_cvtps_ph(_mm256_loadu_ps(s + i + 8), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        __m128i c = _mm256_cvtps_ph(_mm256_loadu_ps(s + i + 16), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        __m128i e = _mm256_cvtps_ph(_mm256_loadu_ps(s + i + 24), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        _mm_storeu_si128((__m128i *)(d + i), a);
        _mm_storeu_si128((__m128i *)(d + i + 8), b);
        _mm_storeu_si128((__m128i *)(d + i + 16), c);
        _mm_storeu_si128((__m128i *)(d + i + 24), e);
    }
}

void raw_avx2_cvtph2ps(float *d, const uint16_t *s, size_t n)
{
    size_t i;
    for (i = 0; i + 32 <= n; i += 32) {
        __m256 a = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(s + i)));
        __m256 b = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(s + i + 8)));
        __m256 c = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(s + i + 16)));
        __m256 e = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(s + i + 24)));
        _mm256_storeu_ps(d + i, a);
        _mm256_storeu_ps(d + i + 8, b);
        _mm256_storeu_ps(d + i + 16, c);
        _mm256_storeu_ps(d + i + 24, e);
    }
}

void raw_avx2_bf16_shift(uint32_t *d, const uint16_t *s, size_t n)
{
    size_t i, k;
    for (i = 0; i + 32 <= n; i += 32)
        for (k = 0; k < 32; k += 8)
            _mm256_storeu_si256((__m256i *)(d + i + k),
                                _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(s + i + k))), 16));
}
