/* SPDX-License-Identifier: MIT */
/* src/x86/gemm_avx512bf16.c - the pair micro-kernels for AVX512_BF16 (src/gemm/kernels.h): `dot`, one
 * vdpbf16ps per two k steps of a 6 x 32 tile, and `chain`, the same packed pairs widened and summed by
 * vfmadd231ps in k order for the tiles the guard keeps off vdpbf16ps (src/gemm/ukr_pair.c has the argument).
 * Compiled with the avx512bf16 backend's flags (src/sources.cmake). */
#include <immintrin.h>

#include "../gemm/kernels.h"

enum { MR = 6, NV = 2, NR = 16 * NV };

#define TILE_LOAD(acc)                                                                                                 \
    _Pragma("GCC unroll 16") for (int i = 0; i < MR; i++) _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)       \
        acc[i][v] = load ? _mm512_loadu_ps(c + i * NR + 16 * v) : _mm512_setzero_ps()
#define TILE_STORE(acc)                                                                                                \
    _Pragma("GCC unroll 16") for (int i = 0; i < MR; i++) _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)       \
        _mm512_storeu_ps(c + i * NR + 16 * v, acc[i][v])

static void ukr_dot(size_t kp, const uint32_t *a, const uint32_t *b, float *c, int load)
{
    __m512 acc[MR][NV];
    TILE_LOAD(acc);
    for (size_t p = 0; p < kp; p++, a += MR, b += NR) {
        __m512bh y[NV];
        _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++) y[v] = (__m512bh)_mm512_load_si512(b + 16 * v);
        _Pragma("GCC unroll 16") for (int i = 0; i < MR; i++)
        {
            const __m512bh x = (__m512bh)_mm512_set1_epi32((int)a[i]);
            _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++) acc[i][v] = _mm512_dpbf16_ps(acc[i][v], x, y[v]);
        }
    }
    TILE_STORE(acc);
}

/* a pair's first element (high half) and second (low half) as binary32 */
static inline __m512 first(__m512i w) { return _mm512_castsi512_ps(_mm512_and_si512(w, _mm512_set1_epi32(-65536))); }
static inline __m512 second(__m512i w) { return _mm512_castsi512_ps(_mm512_slli_epi32(w, 16)); }

static void ukr_chain(size_t kp, const uint32_t *a, const uint32_t *b, float *c, int load)
{
    __m512 acc[MR][NV];
    TILE_LOAD(acc);
    for (size_t p = 0; p < kp; p++, a += MR, b += NR) {
        __m512 y0[NV], y1[NV];
        _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)
        {
            const __m512i w = _mm512_load_si512(b + 16 * v);
            y0[v] = first(w), y1[v] = second(w);
        }
        _Pragma("GCC unroll 16") for (int i = 0; i < MR; i++)
        {
            const __m512i x = _mm512_set1_epi32((int)a[i]);
            const __m512 x0 = first(x), x1 = second(x);
            _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)
            {
                acc[i][v] = _mm512_fmadd_ps(x0, y0[v], acc[i][v]);
                acc[i][v] = _mm512_fmadd_ps(x1, y1[v], acc[i][v]);
            }
        }
    }
    TILE_STORE(acc);
}

const mf__gemm_ukr_pair mf__gemm_ukr_pair_avx512bf16 = {"avx512bf16", MR, NR, 144, 512, ukr_dot, ukr_chain};
