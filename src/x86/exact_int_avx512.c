/* SPDX-License-Identifier: MIT */
/* src/x86/exact_int_avx512.c - MF_ACCUM_EXACT's integer micro-kernels (src/gemm/exact_int.h) on AVX-512 VNNI:
 * an 8 x 32 tile of int32 lanes in 16 zmm registers, vpdpbusd (4 byte products a lane) for int8 operands and
 * vpdpwssd (2 word products) for int16. Neither saturates: each lane is the exact sum the portable kernel forms
 * because the caller's chunks keep it below 2^31. MX blocks, the int64 add and the wide (NVFP4) row below. Compiled with the avx512 backend's flags plus -mavx512vnni
 * (src/sources.cmake); run only where cpuid reports AVX512_VNNI (exact_int.c). */
#include <immintrin.h>
#include <string.h>

#include "../gemm/exact_int.h"

typedef char xi_tile_is_8x32[MF__XI_MR == 8 && MF__XI_NR == 32 ? 1 : -1]; /* the tile below */

/* one group: B's two vectors, then each row's G elements broadcast as one dword */
#define XI_ROW(r, DP)                                                                                                  \
    do {                                                                                                               \
        int32_t w_;                                                                                                    \
        memcpy(&w_, ap + (r)*4, 4);                                                                                    \
        const __m512i a_ = _mm512_set1_epi32(w_);                                                                      \
        c##r##0 = DP(c##r##0, b0, a_);                                                                                 \
        c##r##1 = DP(c##r##1, b1, a_);                                                                                 \
    } while (0)

#define XI_KERNEL(NAME, DP)                                                                                            \
    static void NAME(size_t ng, size_t span, const void *a, const void *b, int32_t *c)                                 \
    {                                                                                                                  \
        (void)span; /* int32 lanes from the first product */                                                           \
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

/* MX (exact_int.h): each block's sums start from zero in int32 lanes (a block of 32 products is far below 2^31 even
 * with the offset), then less the row's offset share, shifted by vpsllvd and added into the totals t, held in
 * registers across the blocks: so rows are taken four at a time (8 sums, 8 totals, B's two vectors, exponents: 21 zmm).
 * The caller's chunk of blocks keeps every partial total below 2^31, as for the portable MX kernel. */
#define XI_MX_ADD(r)                                                                                                   \
    do {                                                                                                               \
        const __m512i k_ = _mm512_set1_epi32(corr[q * MF__XI_MR + (r)]),                                               \
                      e_ = _mm512_set1_epi32(sa[q * MF__XI_MR + (r)]);                                                 \
        t##r##0 = _mm512_add_epi32(t##r##0,                                                                            \
                                   _mm512_sllv_epi32(_mm512_sub_epi32(c##r##0, k_), _mm512_add_epi32(e_, sb0)));       \
        t##r##1 = _mm512_add_epi32(t##r##1,                                                                            \
                                   _mm512_sllv_epi32(_mm512_sub_epi32(c##r##1, k_), _mm512_add_epi32(e_, sb1)));       \
    } while (0)
#define XI_MX_STORE(r)                                                                                                 \
    _mm512_storeu_si512(c + (r)*MF__XI_NR, t##r##0), _mm512_storeu_si512(c + (r)*MF__XI_NR + 16, t##r##1)

/* rows r0 .. r0 + 3 (a, corr, sa, c at row r0) over nblk blocks of gb groups */
#define XI_MX_HALF(NAME, DP)                                                                                           \
    static void NAME(size_t nblk, size_t gb, const unsigned char *a, const unsigned char *b, int32_t *c,               \
                     const int32_t *corr, const int32_t *sa, const int32_t *sb)                                        \
    {                                                                                                                  \
        __m512i t00 = _mm512_setzero_si512(), t01 = t00, t10 = t00, t11 = t00, t20 = t00, t21 = t00, t30 = t00,        \
                t31 = t00;                                                                                             \
        const unsigned char *ap = a, *bp = b;                                                                          \
        for (size_t q = 0; q < nblk; q++) {                                                                            \
            __m512i c00 = _mm512_setzero_si512(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00,    \
                    c31 = c00;                                                                                         \
            for (size_t g = 0; g < gb; g++, ap += 32, bp += 128) {                                                     \
                const __m512i b0 = _mm512_loadu_si512(bp), b1 = _mm512_loadu_si512(bp + 64);                           \
                XI_ROW(0, DP);                                                                                         \
                XI_ROW(1, DP);                                                                                         \
                XI_ROW(2, DP);                                                                                         \
                XI_ROW(3, DP);                                                                                         \
            }                                                                                                          \
            const __m512i sb0 = _mm512_loadu_si512(sb + q * MF__XI_NR),                                                \
                          sb1 = _mm512_loadu_si512(sb + q * MF__XI_NR + 16);                                           \
            XI_MX_ADD(0);                                                                                              \
            XI_MX_ADD(1);                                                                                              \
            XI_MX_ADD(2);                                                                                              \
            XI_MX_ADD(3);                                                                                              \
        }                                                                                                              \
        XI_MX_STORE(0);                                                                                                \
        XI_MX_STORE(1);                                                                                                \
        XI_MX_STORE(2);                                                                                                \
        XI_MX_STORE(3);                                                                                                \
    }

XI_MX_HALF(xi_mx8_half_avx512vnni, _mm512_dpbusd_epi32)
XI_MX_HALF(xi_mx16_half_avx512vnni, _mm512_dpwssd_epi32)

static void xi_mx8_avx512vnni(size_t nblk, size_t span, const void *a, const void *b, int32_t *c, const int32_t *corr,
                              const int32_t *sa, const int32_t *sb)
{
    (void)span;
    xi_mx8_half_avx512vnni(nblk, MF__XI_MX_BLOCK / 4, a, b, c, corr, sa, sb);
    xi_mx8_half_avx512vnni(nblk, MF__XI_MX_BLOCK / 4, (const unsigned char *)a + 16, b, c + 4 * MF__XI_NR, corr + 4,
                           sa + 4, sb);
}

static void xi_mx16_avx512vnni(size_t nblk, size_t span, const void *a, const void *b, int32_t *c, const int32_t *corr,
                               const int32_t *sa, const int32_t *sb)
{
    (void)span;
    xi_mx16_half_avx512vnni(nblk, MF__XI_MX_BLOCK / 2, a, b, c, corr, sa, sb);
    xi_mx16_half_avx512vnni(nblk, MF__XI_MX_BLOCK / 2, (const unsigned char *)a + 16, b, c + 4 * MF__XI_NR, corr + 4,
                            sa + 4, sb);
}

/* the add (exact_int.h) in vpsllvq, 8 columns a step */
static void xi_add_avx512(int64_t *acc, const int32_t *c, const int64_t *corr, const int32_t *ea, const int32_t *eb)
{
    for (size_t r = 0; r < MF__XI_MR; r++) {
        const __m512i cr = _mm512_set1_epi64(corr[r]), er = _mm512_set1_epi64(ea[r]);
        for (size_t l = 0; l < MF__XI_NR; l += 8) {
            const __m512i v =
                _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i *)(const void *)(c + r * MF__XI_NR + l)));
            const __m512i sh = _mm512_add_epi64(
                er, _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i *)(const void *)(eb + l))));
            int64_t *p = acc + r * MF__XI_NR + l;
            _mm512_storeu_si512(
                p, _mm512_add_epi64(_mm512_loadu_si512(p), _mm512_sllv_epi64(_mm512_sub_epi64(v, cr), sh)));
        }
    }
}

/* the wide mode's row (exact_int.h) compiled for AVX-512 */
static void xi_wide_avx512(size_t nq, const int32_t *a, const int32_t *b, const int32_t *ea, const int32_t *eb,
                           int64_t *hi, uint64_t *lo)
{
    mf__xi_wide_row(nq, a, b, ea, eb, hi, lo);
}

const mf__xi_kernel mf__xi_kernel_avx512vnni = {"avx512vnni",      xi_i8_avx512vnni,   xi_i16_avx512vnni, xi_add_avx512,
                                                xi_mx8_avx512vnni, xi_mx16_avx512vnni, xi_wide_avx512};
