/* SPDX-License-Identifier: MIT */
/* src/x86/tc_avx2.c - the AVX2 panel kernel of the tensor-core models (src/gemm/tc.h has the contract):
 * the 16 columns of a panel as two groups of eight int32 lanes.
 *
 * A block: c decoded from its binary32 bits; each product's significand by vpmulld (|am * bm| < 2^27),
 * its raw exponent by vpaddd, the block's largest exponent by vpmaxsd; each |product| truncated by
 * vpsrlvd (a count of 32 or more gives 0), signed again by vpsignd, summed in int32 (below 2^31 wherever
 * tc.h's `wide` is 0; otherwise per 16 products and c apart, the partial sums added in binary64, exactly). The sum s
 * (an integer below 2^34) is normalised in binary64: s exactly, its significand cut to 24 bits (toward zero),
 * scaled by 2^(q + 149) with q the window's last bit (exact), cut to an integer by vroundpd toward zero (which
 * changes only values below 2^-126: the subnormal grid), scaled back by 2^-149 and narrowed by vcvtpd2ps,
 * exact by then (or inf beyond the range, as the model says); Ada's and Hopper's 13-bit FP8 sums then drop
 * ten more bits (toward zero, in the subnormal range too). mf__tc_dot gives the same bits (the tests check).
 * Compiled with the avx2 backend's flags (src/sources.cmake). */
#include <immintrin.h>
#include <string.h>

#include "../gemm/tc.h"

enum { L = MF__TC_LANES, G = MF__TC_LANES / 8 };

/* Sanitizer builds compile one generic tc_panel, loops not unrolled: clang with ASan and UBSan is
 * pathologically slow on the six unrolled specialisations (the issue note has the figure). The arithmetic is
 * the same. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TC_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TC_SANITIZED 1
#endif
#endif

#if defined(TC_SANITIZED)
#define TC_UNROLL
#define TC_PANEL_INLINE __attribute__((noinline))
#elif defined(__clang__)
#define TC_UNROLL _Pragma("unroll")
#define TC_PANEL_INLINE inline __attribute__((always_inline))
#else
#define TC_UNROLL _Pragma("GCC unroll 32")
#define TC_PANEL_INLINE inline __attribute__((always_inline))
#endif

/* the binary32 result of 4 lanes' sums v (exact integers in binary64) with window exponents eb (int64
 * lanes: q + 149 + 1023, in [1, 2046] as emax is at least -1000) */
static inline __m128 tc_norm4(__m256d v, __m256i eb)
{
    const __m256d cut = _mm256_castsi256_pd(_mm256_set1_epi64x((long long)~((1ull << 29) - 1u)));
    const __m256d scale = _mm256_castsi256_pd(_mm256_slli_epi64(eb, 52));
    __m256d t = _mm256_mul_pd(_mm256_and_pd(v, cut), scale);
    t = _mm256_round_pd(t, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    t = _mm256_mul_pd(t, _mm256_set1_pd(0x1p-149));
    return _mm256_cvtpd_ps(t);
}

static TC_PANEL_INLINE void tc_panel(const mf__tc_lanes *q, const int32_t *am, const int32_t *ar,
                                                           const int32_t *panel, const uint32_t *c, uint32_t *d,
                                                           const int W, const int wide)
{
    const __m256i absmask = _mm256_set1_epi32(0x7FFFFFFF), infb = _mm256_set1_epi32(0x7F800000);
    const __m256i manmask = _mm256_set1_epi32(0x7FFFFF), hidden = _mm256_set1_epi32(0x800000);
    const __m256i one = _mm256_set1_epi32(1), e127 = _mm256_set1_epi32(127);
    /* every term's raw exponent is above -300: a floor of -1000 changes no sum, and keeps 2^(q + 149) normal */
    const __m256i zs2 = _mm256_set1_epi32(2 * MF__TC_ZERO_EXP);
    const __m256i minexp = _mm256_set1_epi32(q->min_exp > -1000 ? q->min_exp : -1000);
    const __m256i ebias = _mm256_set1_epi32(149 + 1023 - q->frac);
    const __m256i fracmask = _mm256_set1_epi32((int)(~((1u << (23 - q->out_frac)) - 1u)));
    const int kc = q->frac - 23; /* c's 23 fraction bits in the window: a shift left by kc (or right) */
    const __m128i kcl = _mm_cvtsi32_si128(kc > 0 ? kc : 0);
    const __m256i kcr = _mm256_set1_epi32(kc < 0 ? -kc : 0);
    const size_t promote = q->promote, kp = q->kp;
    __m256i cb[G];
    __m256 acc[G];
    size_t left = promote;
    for (int g = 0; g < G; g++) {
        const __m256i c0 = _mm256_loadu_si256((const __m256i *)(c + 8 * g));
        cb[g] = promote ? _mm256_setzero_si256() : c0;
        acc[g] = _mm256_castsi256_ps(c0);
    }
    for (size_t p0 = 0; p0 < kp; p0 += (size_t)W, panel += 2 * L * W) {
        __m256i emax[G], cm[G], crexp[G], s0[G], s1[G], uc[G], res[G], re[4][G];
        if (promote) {
            if (left == 0) {
                for (int g = 0; g < G; g++) {
                    acc[g] = _mm256_add_ps(acc[g], _mm256_castsi256_ps(cb[g]));
                    cb[g] = _mm256_setzero_si256();
                }
                left = promote;
            }
            left -= (size_t)W;
        }
        for (int g = 0; g < G; g++) { /* c: its significand and raw exponent (a zero's far below) */
            const __m256i cabs = _mm256_and_si256(cb[g], absmask), ef = _mm256_srli_epi32(cabs, 23);
            cm[g] = _mm256_or_si256(_mm256_and_si256(cabs, manmask),
                                    _mm256_andnot_si256(_mm256_cmpeq_epi32(ef, _mm256_setzero_si256()), hidden));
            crexp[g] = _mm256_sub_epi32(_mm256_max_epi32(ef, one), e127);
            crexp[g] = _mm256_blendv_epi8(crexp[g], zs2, _mm256_cmpeq_epi32(cabs, _mm256_setzero_si256()));
            emax[g] = _mm256_max_epi32(crexp[g], minexp);
        }
        TC_UNROLL
        for (int t = 0; t < W; t++) { /* the largest exponent */
            const __m256i xr = _mm256_set1_epi32(ar[p0 + (size_t)t]);
            for (int g = 0; g < G; g++) {
                const __m256i br = _mm256_load_si256((const __m256i *)(panel + 2 * L * t + L + 8 * g));
                re[t & 3][g] = _mm256_add_epi32(xr, br);
                emax[g] = _mm256_max_epi32(emax[g], re[t & 3][g]);
            }
        }
        for (int g = 0; g < G; g++)
            s0[g] = _mm256_setzero_si256(), s1[g] = _mm256_setzero_si256();
        TC_UNROLL
        for (int t = 0; t < W; t++) { /* the terms, again from the operands (cheaper than keeping them) */
            const __m256i xa = _mm256_set1_epi32(am[p0 + (size_t)t]), xr = _mm256_set1_epi32(ar[p0 + (size_t)t]);
            for (int g = 0; g < G; g++) {
                const __m256i bm = _mm256_load_si256((const __m256i *)(panel + 2 * L * t + 8 * g));
                const __m256i prod = _mm256_mullo_epi32(xa, bm);
                /* W = 4: the exponents kept from the first pass; otherwise again from the operands */
                const __m256i e =
                    W == 4 ? re[t & 3][g]
                           : _mm256_add_epi32(xr, _mm256_load_si256((const __m256i *)(panel + 2 * L * t + L + 8 * g)));
                const __m256i u = _mm256_srlv_epi32(_mm256_abs_epi32(prod), _mm256_sub_epi32(emax[g], e));
                if (wide && t >= 16)
                    s1[g] = _mm256_add_epi32(s1[g], _mm256_sign_epi32(u, prod));
                else
                    s0[g] = _mm256_add_epi32(s0[g], _mm256_sign_epi32(u, prod));
            }
        }
        for (int g = 0; g < G; g++) {
            uc[g] = _mm256_srlv_epi32(_mm256_sll_epi32(cm[g], kcl),
                                      _mm256_add_epi32(_mm256_sub_epi32(emax[g], crexp[g]), kcr));
            uc[g] = _mm256_sign_epi32(uc[g], cb[g]); /* c's sign (a zero c has uc = 0) */
            if (!wide)
                s0[g] = _mm256_add_epi32(s0[g], uc[g]);
        }
        for (int g = 0; g < G; g++) {
            __m256i eb = _mm256_add_epi32(emax[g], ebias);
            __m256d vlo = _mm256_cvtepi32_pd(_mm256_castsi256_si128(s0[g]));
            __m256d vhi = _mm256_cvtepi32_pd(_mm256_extracti128_si256(s0[g], 1));
            __m128 flo, fhi;
            if (wide) { /* each partial sum below 2^31, the total below 2^34: exact in binary64 */
                vlo = _mm256_add_pd(vlo, _mm256_cvtepi32_pd(_mm256_castsi256_si128(s1[g])));
                vhi = _mm256_add_pd(vhi, _mm256_cvtepi32_pd(_mm256_extracti128_si256(s1[g], 1)));
                vlo = _mm256_add_pd(vlo, _mm256_cvtepi32_pd(_mm256_castsi256_si128(uc[g])));
                vhi = _mm256_add_pd(vhi, _mm256_cvtepi32_pd(_mm256_extracti128_si256(uc[g], 1)));
            }
            flo = tc_norm4(vlo, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(eb)));
            fhi = tc_norm4(vhi, _mm256_cvtepu32_epi64(_mm256_extracti128_si256(eb, 1)));
            res[g] = _mm256_castps_si256(_mm256_set_m128(fhi, flo));
            if (q->out_frac < 23)
                res[g] = _mm256_and_si256(res[g], fracmask);
            /* an overflow: inf stays */
            cb[g] = _mm256_blendv_epi8(res[g], cb[g], _mm256_cmpeq_epi32(_mm256_and_si256(cb[g], absmask), infb));
        }
    }
    for (int g = 0; g < G; g++) {
        if (promote)
            cb[g] = _mm256_castps_si256(_mm256_add_ps(acc[g], _mm256_castsi256_ps(cb[g])));
        _mm256_storeu_si256((__m256i *)(d + 8 * g), cb[g]);
    }
}

static void panel_avx2(const mf__tc_lanes *q, const int32_t *am, const int32_t *ar, const int32_t *panel,
                       const uint32_t *c, uint32_t *d, int rows)
{
    for (int r = 0; r < rows; r++) { /* row r: its operands kp further on, its c and d L further on */
        const int32_t *amr = am + (size_t)r * q->kp, *arr = ar + (size_t)r * q->kp;
        const uint32_t *cr = c + r * L;
        uint32_t *dr = d + r * L;
        switch (q->w * 2 + q->wide) {
        case 8: tc_panel(q, amr, arr, panel, cr, dr, 4, 0); break;
        case 16: tc_panel(q, amr, arr, panel, cr, dr, 8, 0); break;
        case 32: tc_panel(q, amr, arr, panel, cr, dr, 16, 0); break;
        case 33: tc_panel(q, amr, arr, panel, cr, dr, 16, 1); break;
        case 64: tc_panel(q, amr, arr, panel, cr, dr, 32, 0); break;
        default: tc_panel(q, amr, arr, panel, cr, dr, 32, 1); break;
        }
    }
}

const mf__tc_kernel mf__tc_kernel_avx2 = {"avx2", panel_avx2};
