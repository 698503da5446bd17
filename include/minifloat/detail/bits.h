/* SPDX-License-Identifier: MIT */
/* minifloat/detail/bits.h - bit casts and leading-zero count (private).
 *
 * This is the one place where the scalar headers look at the compiler: device code uses the CUDA
 * intrinsics, GCC and Clang the builtins, anything else a portable fallback.
 */
#ifndef MINIFLOAT_DETAIL_BITS_H
#define MINIFLOAT_DETAIL_BITS_H

#include "../config.h"

#if !defined(__CUDA_ARCH__)
#ifdef __cplusplus
#include <cstring>
#define MF__MEMCPY std::memcpy
#else
#include <string.h>
#define MF__MEMCPY memcpy
#endif
#endif

MF_HD MF_INLINE uint32_t mf__f32_bits(float x)
{
#if defined(__CUDA_ARCH__)
    return __float_as_uint(x);
#else
    uint32_t u;
    MF__MEMCPY(&u, &x, sizeof u);
    return u;
#endif
}

MF_HD MF_INLINE float mf__f32_from_bits(uint32_t u)
{
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#else
    float x;
    MF__MEMCPY(&x, &u, sizeof x);
    return x;
#endif
}

MF_HD MF_INLINE uint64_t mf__f64_bits(double x)
{
#if defined(__CUDA_ARCH__)
    return (uint64_t)__double_as_longlong(x);
#else
    uint64_t u;
    MF__MEMCPY(&u, &x, sizeof u);
    return u;
#endif
}

MF_HD MF_INLINE double mf__f64_from_bits(uint64_t u)
{
#if defined(__CUDA_ARCH__)
    return __longlong_as_double((long long)u);
#else
    double x;
    MF__MEMCPY(&x, &u, sizeof x);
    return x;
#endif
}

/* Number of leading zero bits of a nonzero 64-bit value. */
MF_HD MF_INLINE int mf__clz64(uint64_t x)
{
#if defined(__CUDA_ARCH__)
    return __clzll((long long)x);
#elif defined(__GNUC__) || defined(__clang__)
    return __builtin_clzll(x);
#else
    int n = 0;
    while (!(x & 0x8000000000000000u)) {
        x <<= 1;
        n++;
    }
    return n;
#endif
}

#endif /* MINIFLOAT_DETAIL_BITS_H */
