/* SPDX-License-Identifier: MIT */
/* src/x86/gemm_avx512bf16.c - the pair micro-kernels for AVX512_BF16 (src/gemm/kernels.h): `dot`, one
 * vdpbf16ps per two k steps of a 6 x 32 tile, and `chain`, the same packed pairs widened and summed by
 * vfmadd231ps in k order for the tiles the guard keeps off vdpbf16ps (src/gemm/ukr_pair.c has the argument).
 * Compiled with the avx512bf16 backend's flags (src/sources.cmake). */
#include <immintrin.h>

#include "../gemm/kernels.h"

enum { MR = 6, NV = 2, NR = 16 * NV };

#define TILE_LOAD(acc)                                                                                                 \
    _Pragma("GCC unroll 16") for (int i = 0; i < MR; i++) _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)         \
        acc[i][v] = load ? _mm512_loadu_ps(c + i * NR + 16 * v) : _mm512_setzero_ps()
#define TILE_STORE(acc)                                                                                                \
    _Pragma("GCC unroll 16") for (int i = 0; i < MR; i++) _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)         \
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

/* 32 codes a step: four two-table word permutes (vpermt2w) cover the 256 entries, and bits 6 and 7 of each code
 * pick among their results */
static void widen8(uint16_t *out, const uint8_t *src, size_t n, const uint16_t *lut)
{
    __m512i t[8];
    size_t q = 0;
    for (int v = 0; v < 8; v++)
        t[v] = _mm512_loadu_si512(lut + 32 * v);
    for (; q + 32 <= n; q += 32) {
        const __m512i idx = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(src + q)));
        const __mmask32 b6 = _mm512_test_epi16_mask(idx, _mm512_set1_epi16(64));
        const __mmask32 b7 = _mm512_test_epi16_mask(idx, _mm512_set1_epi16(128));
        const __m512i r0 = _mm512_permutex2var_epi16(t[0], idx, t[1]), r1 = _mm512_permutex2var_epi16(t[2], idx, t[3]);
        const __m512i r2 = _mm512_permutex2var_epi16(t[4], idx, t[5]), r3 = _mm512_permutex2var_epi16(t[6], idx, t[7]);
        const __m512i lo = _mm512_mask_blend_epi16(b6, r0, r1), hi = _mm512_mask_blend_epi16(b6, r2, r3);
        _mm512_storeu_si512(out + q, _mm512_mask_blend_epi16(b7, lo, hi));
    }
    for (; q < n; q++)
        out[q] = lut[src[q]];
}

/* mf__pair_sum_run (src/gemm/ukr_pair.c has the why) on 32 codes a step */
static void sum_run(mf__pair_sum *s, const uint16_t *x, size_t n)
{
    const __m512i m7fff = _mm512_set1_epi16(0x7FFF), m7f80 = _mm512_set1_epi16(0x7F80);
    __m512i mn = m7f80, mx = _mm512_setzero_si512();
    uint16_t lo[32], hi[32];
    size_t q = 0;
    for (; q + 32 <= n; q += 32) {
        const __m512i v = _mm512_loadu_si512(x + q), e = _mm512_and_si512(v, m7f80);
        mn = _mm512_min_epu16(mn, _mm512_mask_mov_epi16(m7f80, _mm512_test_epi16_mask(v, m7fff), e));
        mx = _mm512_max_epu16(mx, e);
    }
    _mm512_storeu_si512(lo, mn), _mm512_storeu_si512(hi, mx);
    mf__pair_sum_run(s, x + q, n - q); /* the tail */
    {
        unsigned emin = 255, emax = 0;
        for (int l = 0; l < 32; l++) {
            emin = (unsigned)lo[l] >> 7 < emin ? (unsigned)lo[l] >> 7 : emin;
            emax = (unsigned)hi[l] >> 7 > emax ? (unsigned)hi[l] >> 7 : emax;
        }
        s->bad |= emin == 0 || emax == 255;
        s->emin = (uint16_t)(emin < s->emin ? emin : s->emin);
        s->emax = (uint16_t)(emax > s->emax ? emax : s->emax);
    }
}

/* packing's pair words, 32 a sliver: two word permutes (vpermt2w) per sliver interleave its two rows */
static void zip(uint32_t *dst, size_t step, const uint16_t *r0, const uint16_t *r1, size_t ns)
{
    /* word 2c of a result takes r1[c] (the first table), word 2c + 1 takes r0[c] (the second, index 32 + c) */
    static const uint16_t IDX[64] = {0,  32, 1,  33, 2,  34, 3,  35, 4,  36, 5,  37, 6,  38, 7,  39,
                                     8,  40, 9,  41, 10, 42, 11, 43, 12, 44, 13, 45, 14, 46, 15, 47,
                                     16, 48, 17, 49, 18, 50, 19, 51, 20, 52, 21, 53, 22, 54, 23, 55,
                                     24, 56, 25, 57, 26, 58, 27, 59, 28, 60, 29, 61, 30, 62, 31, 63};
    const __m512i lo = _mm512_loadu_si512(IDX), hi = _mm512_loadu_si512(IDX + 32);
    for (size_t t = 0; t < ns; t++, dst += step) {
        const __m512i a = _mm512_loadu_si512(r0 + t * NR), b = _mm512_loadu_si512(r1 + t * NR);
        _mm512_store_si512(dst, _mm512_permutex2var_epi16(b, lo, a));
        _mm512_store_si512(dst + 16, _mm512_permutex2var_epi16(b, hi, a));
    }
}

/* packing's sliver of A (kernels.h's weave), 16 pairs of each row a step: each row's words rotated (element 2p to
 * the high half), then a 6 x 16 word transpose. Word d of the step's 96 is row d % 6's pair d / 6: vpermt2d takes
 * it from rows (0, 1), (2, 3) and (4, 5) at once (index d / 6 + 16 * (d % 2)), and two blends on d % 6 / 2 pick. */
static void weave(uint32_t *ap, const uint16_t *const *run, size_t kb)
{
    static const uint32_t IDX[MR][16] = {{0, 16, 0, 16, 0, 16, 1, 17, 1, 17, 1, 17, 2, 18, 2, 18},
                                         {2, 18, 3, 19, 3, 19, 3, 19, 4, 20, 4, 20, 4, 20, 5, 21},
                                         {5, 21, 5, 21, 6, 22, 6, 22, 6, 22, 7, 23, 7, 23, 7, 23},
                                         {8, 24, 8, 24, 8, 24, 9, 25, 9, 25, 9, 25, 10, 26, 10, 26},
                                         {10, 26, 11, 27, 11, 27, 11, 27, 12, 28, 12, 28, 12, 28, 13, 29},
                                         {13, 29, 13, 29, 14, 30, 14, 30, 14, 30, 15, 31, 15, 31, 15, 31}};
    /* bit l of output q's masks: (16q + l) % 6 / 2 is 1 (rows 2, 3) or 2 (rows 4, 5) */
    static const __mmask16 M23[MR] = {0xC30C, 0x0C30, 0x30C3, 0xC30C, 0x0C30, 0x30C3};
    static const __mmask16 M45[MR] = {0x0C30, 0x30C3, 0xC30C, 0x0C30, 0x30C3, 0xC30C};
    const size_t kf = kb / 2;
    size_t p = 0;
    for (; p + 16 <= kf; p += 16, ap += 16 * MR) {
        __m512i r[MR];
        _Pragma("GCC unroll 8") for (int i = 0; i < MR; i++)
            r[i] = _mm512_ror_epi32(_mm512_loadu_si512(run[i] + 2 * p), 16);
        _Pragma("GCC unroll 8") for (int q = 0; q < MR; q++)
        {
            const __m512i ix = _mm512_loadu_si512(IDX[q]);
            const __m512i w01 = _mm512_permutex2var_epi32(r[0], ix, r[1]);
            const __m512i w23 = _mm512_permutex2var_epi32(r[2], ix, r[3]);
            const __m512i w45 = _mm512_permutex2var_epi32(r[4], ix, r[5]);
            _mm512_storeu_si512(ap + 16 * q,
                                _mm512_mask_blend_epi32(M45[q], _mm512_mask_blend_epi32(M23[q], w01, w23), w45));
        }
    }
    for (; p < kf; p++, ap += MR)
        for (int i = 0; i < MR; i++)
            ap[i] = (uint32_t)run[i][2 * p] << 16 | run[i][2 * p + 1];
    if (kb & 1) /* the last element and a zero */
        for (int i = 0; i < MR; i++)
            ap[i] = (uint32_t)run[i][kb - 1] << 16;
}

const mf__gemm_ukr_pair mf__gemm_ukr_pair_avx512bf16 = {.name = "avx512bf16",
                                                        .mr = MR,
                                                        .nr = NR,
                                                        .mc = 144,
                                                        .kc = 512,
                                                        .dot = ukr_dot,
                                                        .chain = ukr_chain,
                                                        .widen8 = widen8,
                                                        .sum = sum_run,
                                                        .zip = zip,
                                                        .weave = weave};
