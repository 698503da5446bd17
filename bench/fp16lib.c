/* SPDX-License-Identifier: MIT */
/* bench/fp16lib.c - Maratyszcza's FP16 (Debian libfp16-dev): the header-only scalar conversions. */
#include <fp16.h>

#include "baselines.h"

int fp16lib_f32_to_f16(void *dst, const void *src, size_t n)
{
    const float *s = (const float *)src;
    uint16_t *d = (uint16_t *)dst;
    size_t i;
    for (i = 0; i < n; i++)
        d[i] = fp16_ieee_from_fp32_value(s[i]);
    return 1;
}

int fp16lib_f16_to_f32(void *dst, const void *src, size_t n)
{
    const uint16_t *s = (const uint16_t *)src;
    float *d = (float *)dst;
    size_t i;
    for (i = 0; i < n; i++)
        d[i] = fp16_ieee_to_fp32_value(s[i]);
    return 1;
}
