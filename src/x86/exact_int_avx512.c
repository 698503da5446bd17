/* SPDX-License-Identifier: MIT */
/* src/x86/exact_int_avx512.c - MF_ACCUM_EXACT's integer micro-kernels (src/gemm/exact_int.h) on AVX-512 VNNI:
 * an 8 x 32 tile of int32 lanes in 16 zmm registers, vpdpbusd (4 byte products a lane) for int8 operands and
 * vpdpwssd (2 word products) for int16. Neither saturates: each lane is the exact sum the portable kernel forms
 * because the caller's chunks keep it below 2^31. Compiled with the avx512 backend's flags plus -mavx512vnni
 * (src/sources.cmake); run only where cpuid reports AVX512_VNNI (exact_int.c). */
#include <immintrin.h>
#include <string.h>

#include "../gemm/exact_int.h"

typedef char xi_tile_is_8x32[MF__XI_MR == 8 && MF__XI_NR == 32 ? 1 : -1]; /* the tile below */

/* one group: B's two vectors, then each row's G elements broadcast as one dword */
#define XI_ROW(r, DP)                                                                                                  \
    do {                                                                                                               \
        int32_t w_;                                                                                                    \
        memcpy(&w_, ap + (r) * 4, 4);                                                                                  \
        const __m512i a_ = _mm512_set1_epi32(w_);                                                                      \
        c##r##0 = DP(c##r##0, b0, a_);                                                                                 \
        c##r##1 = DP(c##r##1, b1, a_);                                                                                 \
    } while (0)

#define XI_KERNEL(NAME, DP)                                                                                            \
    static void NAME(size_t ng, size_t span, const void *a, const void *b, int32_t *c)                                 \
    {                                                                                                                  \
        (void)span; /* int32 lanes from the first product */                                                          \
        const unsigned char *ap = (const unsigned char *)a, *bp = (const unsigned char *)b;                            \
        __m512i c00 = _mm512_setzero_si512(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00,        \
                c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00, c60 = c00, c61 = c00, c70 = c00, c71 = c00;     \
        for (size_t g = 0; g < ng; g++, ap += 32, bp += 128) {                                                         \
            const __m512i b0 = _mm512_loadu_si512(bp), b1 = _mm512_loadu_si512(bp + 64);                               \
            XI_ROW(0, DP);                                                                                             \
            XI_ROW(1, DP);                                                                                             \
            XI_ROW(2, DP);                                                                                             \
            XI_ROW(3, DP);                                                                                             \
            XI_ROW(4, DP);                                                                                             \
            XI_ROW(5, DP);                                                                                             \
            XI_ROW(6, DP);                                                                                             \
            XI_ROW(7, DP);                                                                                             \
        }                                                                                                              \
        _mm512_storeu_si512(c + 0, c00), _mm512_storeu_si512(c + 16, c01);                                             \
        _mm512_storeu_si512(c + 32, c10), _mm512_storeu_si512(c + 48, c11);                                            \
        _mm512_storeu_si512(c + 64, c20), _mm512_storeu_si512(c + 80, c21);                                            \
        _mm512_storeu_si512(c + 96, c30), _mm512_storeu_si512(c + 112, c31);                                           \
        _mm512_storeu_si512(c + 128, c40), _mm512_storeu_si512(c + 144, c41);                                          \
        _mm512_storeu_si512(c + 160, c50), _mm512_storeu_si512(c + 176, c51);                                          \
        _mm512_storeu_si512(c + 192, c60), _mm512_storeu_si512(c + 208, c61);                                          \
        _mm512_storeu_si512(c + 224, c70), _mm512_storeu_si512(c + 240, c71);                                          \
    }

/* a group is 4 bytes per row and column (int8) or 2 words (int16): 32 bytes of A, 128 of B either way */
XI_KERNEL(xi_i8_avx512vnni, _mm512_dpbusd_epi32)
XI_KERNEL(xi_i16_avx512vnni, _mm512_dpwssd_epi32)

const mf__xi_kernel mf__xi_kernel_avx512vnni = {"avx512vnni", xi_i8_avx512vnni, xi_i16_avx512vnni, NULL, NULL, NULL, NULL};
