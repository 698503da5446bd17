/* SPDX-License-Identifier: MIT */
/* src/x86/exact_int_avx2.c - MF_ACCUM_EXACT's integer micro-kernels (src/gemm/exact_int.h) on AVX2, for the CPUs
 * without VNNI. The 8 x 32 tile takes 32 ymm accumulators and AVX2 has 16 registers, so the packed groups are
 * read in runs short enough to stay in L1, and each run in four passes of 4 rows x 16 columns (8 accumulators).
 *
 * int8: vpmaddubsw multiplies B's unsigned bytes (value + off) by A's signed bytes and adds each pair into a
 * signed 16-bit lane, saturating. A pair sum is at most 2 * max|a| * 2 * max|b| (<= 14400 < 2^15), and the caller's
 * span keeps a sum of up to span of them below 2^15 too (exact_int.h); a run is at most span groups, so neither
 * vpmaddubsw saturates nor vpaddw wraps: each 16-bit lane is the exact sum of its products. At the end of the run
 * vpmaddwd with ones adds a column's two lanes (k = 0, 1 and k = 2, 3 of each group) into its int32 lane, which
 * the caller's chunks keep below 2^31. Two multiplies per 64 products, where VNNI takes one.
 * int16: vpmaddwd multiplies words and adds pairs into int32 (|pair| <= 2 * 448^2), then vpaddd.
 * MX: each block's runs end in (sum - offset share) << (exponents), vpsllvd, added into int32 (the caller's chunk
 * of blocks keeps that below 2^31); the share is taken in the block's first run only.
 * Compiled with the avx2 backend's flags (src/sources.cmake); chosen for the avx2 backend (exact_int.c).
 */
#include <immintrin.h>
#include <string.h>

#include "../gemm/exact_int.h"

enum { MR = MF__XI_MR, NR = MF__XI_NR, RUN = 64 }; /* RUN groups: 2 KiB of A and 8 KiB of B */

typedef char xi_tile_is_8x32[MR == 8 && NR == 32 ? 1 : -1]; /* the passes below */

/* one row's products with B's two vectors: int16 lanes (i8) or int32 lanes (i16). The adds are written in place
 * (asm): left to itself GCC 12 computes each sum into a fresh register and copies it back, and the copies, though
 * free in the ALUs, take the dispatch slots this loop is bound by (the figure in docs/perf/tuning.md). */
#define XI_ACC(s, p, INS) __asm__(INS " %1, %0, %0" : "+x"(s) : "x"(p))
#define XI_ROW(r)                                                                                                      \
    do {                                                                                                               \
        int32_t w_;                                                                                                    \
        memcpy(&w_, ap + (r) * 4, 4);                                                                                  \
        const __m256i a_ = _mm256_set1_epi32(w_);                                                                      \
        if (i8) {                                                                                                      \
            XI_ACC(s##r##0, _mm256_maddubs_epi16(b0, a_), "vpaddw");                                                   \
            XI_ACC(s##r##1, _mm256_maddubs_epi16(b1, a_), "vpaddw");                                                   \
        } else {                                                                                                       \
            XI_ACC(s##r##0, _mm256_madd_epi16(b0, a_), "vpaddd");                                                      \
            XI_ACC(s##r##1, _mm256_madd_epi16(b1, a_), "vpaddd");                                                      \
        }                                                                                                              \
    } while (0)

/* c's row r, 8 columns at v, plus the accumulator s (i8: its lane pairs added into int32 first); MX (sa not NULL):
 * less the row's offset share, shifted by the row's and the columns' exponents */
#define XI_FLUSH(r, v)                                                                                                 \
    do {                                                                                                               \
        __m256i *p_ = (__m256i *)(c + (r) * NR + (v) * 8);                                                             \
        __m256i t_ = i8 ? _mm256_madd_epi16(s##r##v, _mm256_set1_epi16(1)) : s##r##v;                                  \
        if (sa)                                                                                                        \
            t_ = _mm256_sllv_epi32(_mm256_sub_epi32(t_, _mm256_set1_epi32(corr[r])),                                   \
                                   _mm256_add_epi32(_mm256_set1_epi32(sa[r]),                                          \
                                                    _mm256_loadu_si256((const __m256i *)(sb + (v) * 8))));             \
        _mm256_storeu_si256(p_, _mm256_add_epi32(_mm256_loadu_si256(p_), t_));                                         \
    } while (0)

/* One pass: rows r0 .. r0 + 3 (ap points at row r0 of the run's first group) and columns of B's vectors v0, v0 + 1
 * (bp at vector v0), over len groups, added into c (at row r0, column 8 v0); MX: corr, sa at row r0, sb at column
 * 8 v0. */
static inline __attribute__((always_inline)) void xi_pass(const unsigned char *ap, const unsigned char *bp,
                                                          size_t len, int32_t *c, const int i8, const int32_t *corr,
                                                          const int32_t *sa, const int32_t *sb)
{
    __m256i s00 = _mm256_setzero_si256(), s01 = s00, s10 = s00, s11 = s00, s20 = s00, s21 = s00, s30 = s00,
            s31 = s00;
    for (size_t g = 0; g < len; g++, ap += MR * 4, bp += NR * 4) {
        const __m256i b0 = _mm256_loadu_si256((const __m256i *)bp), b1 = _mm256_loadu_si256((const __m256i *)bp + 1);
        XI_ROW(0);
        XI_ROW(1);
        XI_ROW(2);
        XI_ROW(3);
    }
    XI_FLUSH(0, 0);
    XI_FLUSH(0, 1);
    XI_FLUSH(1, 0);
    XI_FLUSH(1, 1);
    XI_FLUSH(2, 0);
    XI_FLUSH(2, 1);
    XI_FLUSH(3, 0);
    XI_FLUSH(3, 1);
}

/* the four passes over len groups from ap, bp (a group is 32 bytes of A and 128 of B, int8 or int16) */
static inline __attribute__((always_inline)) void xi_run4(const unsigned char *ap, const unsigned char *bp, size_t len,
                                                          int32_t *c, const int i8, const int32_t *corr,
                                                          const int32_t *sa, const int32_t *sb)
{
    const int mx = sa != NULL;
    xi_pass(ap, bp, len, c, i8, corr, sa, sb);
    xi_pass(ap, bp + 64, len, c + 16, i8, corr, sa, mx ? sb + 16 : NULL);
    xi_pass(ap + 16, bp, len, c + 4 * NR, i8, mx ? corr + 4 : NULL, mx ? sa + 4 : NULL, sb);
    xi_pass(ap + 16, bp + 64, len, c + 4 * NR + 16, i8, mx ? corr + 4 : NULL, mx ? sa + 4 : NULL, mx ? sb + 16 : NULL);
}

static inline __attribute__((always_inline)) void xi_tile(size_t ng, size_t run, const void *a, const void *b,
                                                          int32_t *c, const int i8)
{
    memset(c, 0, sizeof(int32_t) * MR * NR);
    for (size_t g0 = 0; g0 < ng; g0 += run)
        xi_run4((const unsigned char *)a + g0 * MR * 4, (const unsigned char *)b + g0 * NR * 4,
                ng - g0 < run ? ng - g0 : run, c, i8, NULL, NULL, NULL);
}

static void xi_i8_avx2(size_t ng, size_t span, const void *a, const void *b, int32_t *c)
{
    xi_tile(ng, span < RUN ? span : RUN, a, b, c, 1); /* span >= 2 (exact_int.c) */
}

static void xi_i16_avx2(size_t ng, size_t span, const void *a, const void *b, int32_t *c)
{
    (void)span; /* int32 lanes from the first product */
    xi_tile(ng, RUN, a, b, c, 0);
}

/* MX: blocks of gb groups; the offset share goes with each block's first run */
static inline __attribute__((always_inline)) void xi_tile_mx(size_t nblk, size_t run, const void *a, const void *b,
                                                             int32_t *c, const int i8, const int32_t *corr,
                                                             const int32_t *sa, const int32_t *sb)
{
    static const int32_t zeros[MR];
    const size_t gb = MF__XI_MX_BLOCK / (i8 ? 4 : 2);
    memset(c, 0, sizeof(int32_t) * MR * NR);
    for (size_t q = 0; q < nblk; q++)
        for (size_t g0 = 0; g0 < gb; g0 += run)
            xi_run4((const unsigned char *)a + (q * gb + g0) * MR * 4, (const unsigned char *)b + (q * gb + g0) * NR * 4,
                    gb - g0 < run ? gb - g0 : run, c, i8, g0 ? zeros : corr + q * MR, sa + q * MR, sb + q * NR);
}

static void xi_mx8_avx2(size_t nblk, size_t span, const void *a, const void *b, int32_t *c, const int32_t *corr,
                        const int32_t *sa, const int32_t *sb)
{
    xi_tile_mx(nblk, span < RUN ? span : RUN, a, b, c, 1, corr, sa, sb);
}

static void xi_mx16_avx2(size_t nblk, size_t span, const void *a, const void *b, int32_t *c, const int32_t *corr,
                         const int32_t *sa, const int32_t *sb)
{
    (void)span;
    xi_tile_mx(nblk, RUN, a, b, c, 0, corr, sa, sb);
}

/* the add (exact_int.h) in vpsllvq */
static void xi_add_avx2(int64_t *acc, const int32_t *c, const int64_t *corr, const int32_t *ea, const int32_t *eb)
{
    for (size_t r = 0; r < MR; r++) {
        const __m256i cr = _mm256_set1_epi64x(corr[r]), er = _mm256_set1_epi64x(ea[r]);
        for (size_t l = 0; l < NR; l += 4) {
            const __m256i v = _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)(c + r * NR + l)));
            const __m256i sh = _mm256_add_epi64(er, _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)(eb + l))));
            __m256i *p = (__m256i *)(acc + r * NR + l);
            _mm256_storeu_si256(p, _mm256_add_epi64(_mm256_loadu_si256(p), _mm256_sllv_epi64(_mm256_sub_epi64(v, cr), sh)));
        }
    }
}

/* the wide mode's row (exact_int.h) compiled for AVX2 */
static void xi_wide_avx2(size_t nq, const int32_t *a, const int32_t *b, const int32_t *ea, const int32_t *eb,
                         int64_t *hi, uint64_t *lo)
{
    mf__xi_wide_row(nq, a, b, ea, eb, hi, lo);
}

const mf__xi_kernel mf__xi_kernel_avx2 = {"avx2",      xi_i8_avx2,   xi_i16_avx2, xi_add_avx2,
                                          xi_mx8_avx2, xi_mx16_avx2, xi_wide_avx2};
