/* SPDX-License-Identifier: MIT */
/* src/x86/backend_avx2.h - the AVX2 backend's configuration (AVX2 + F16C + FMA + BMI2, 8 lanes): its
 * vocabulary and hardware hooks; with BK_PATHS (backend.c) also its path hooks. Compiled with
 * -mavx2 -mf16c -mfma -mbmi2 (src/sources.cmake); chosen by dispatch.c only where the CPU has them. */
#ifndef MF_X86_BACKEND_AVX2_H
#define MF_X86_BACKEND_AVX2_H
#include <string.h>

#include "vec_avx2.h"

#include "../simd/kernels.h"

/* f32 -> f16 with F16C's vcvtps2ph (rn, rz, ru, rd; IEEE overflow). hw_f16_special flags the lanes
 * the instruction gets wrong for us (NaN: it keeps payloads), hw_f16_fix mends them. */
MF_V vm hw_f16_special(vu u) { return v_gt_u(v_and(u, v_set1(0x7FFFFFFFu)), v_set1(0x7F800000u)); }
/* NaN in u or in v: one unordered comparison of the two */
MF_V vm hw_f16_special2(vu u, vu v)
{
    return _mm256_castps_si256(_mm256_cmp_ps(_mm256_castsi256_ps(u), _mm256_castsi256_ps(v), _CMP_UNORD_Q));
}

MF_V __m128i hw__cvtph(vu u, const mf_round r)
{
    __m256 x = _mm256_castsi256_ps(u);
    switch (r) {
    case MF_ROUND_TOWARD_ZERO: return _mm256_cvtps_ph(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    case MF_ROUND_UP: return _mm256_cvtps_ph(x, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
    case MF_ROUND_DOWN: return _mm256_cvtps_ph(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    default: return _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    }
}

MF_V void hw_f16_plain(uint16_t *p, vu u, const mf_round r) { _mm_storeu_si128((__m128i *)p, hw__cvtph(u, r)); }

MF_V void hw_f16_fix(uint16_t *p, vu u, const mf_round r)
{
    vm isnan = hw_f16_special(u);
    __m128i m16 = _mm_packs_epi32(_mm256_castsi256_si128(isnan), _mm256_extracti128_si256(isnan, 1));
    _mm_storeu_si128((__m128i *)p, _mm_blendv_epi8(hw__cvtph(u, r), _mm_set1_epi16(0x7FFF), m16));
}

/* bk_hw16_clamp in two instructions: min(M, x) and max(-M, .) return their second operand where it is a NaN,
 * so NaNs pass unchanged. Runs only where the blocked path holds MXCSR (no DAZ, exceptions masked: this
 * backend has no direct path, BK_HW_NOCSR); a NaN input may set the invalid flag, as docs/api.md allows. */
#define BK_HW_CLAMP_PS 1
MF_V vu hw_clamp_ps(vu u, uint32_t maxbits)
{
    float m;
    memcpy(&m, &maxbits, sizeof m);
    return _mm256_castps_si256(
        _mm256_max_ps(_mm256_set1_ps(-m), _mm256_min_ps(_mm256_set1_ps(m), _mm256_castsi256_ps(u))));
}

/* f16 -> f32: vcvtph2ps keeps sign and payload and sets the quiet bit, as the portable backend does. */
MF_V vu hw_f16_to_f32(const uint16_t *p)
{
    return _mm256_castps_si256(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p)));
}

/* Four doubles -> four binary32 bits under the MXCSR rounding (the backend sets it). */
MF_V __m128i hw__pd4_to_ps4(const double *p, int odd)
{
    __m256d x = _mm256_loadu_pd(p);
    __m128 t = _mm256_cvtpd_ps(x);
    __m128i r = _mm_castps_si128(t);
    if (odd) { /* round to odd: the truncation (MXCSR = rz) with the last bit set if inexact */
        __m256i ne = _mm256_castpd_si256(_mm256_cmp_pd(_mm256_cvtps_pd(t), x, _CMP_NEQ_UQ));
        __m256i lo = _mm256_permutevar8x32_epi32(ne, _mm256_set_epi32(7, 5, 3, 1, 6, 4, 2, 0));
        r = _mm_or_si128(r, _mm_and_si128(_mm256_castsi256_si128(lo), _mm_set1_epi32(1)));
    }
    return r;
}

MF_V vu hw_f64_to_f32_ro(const double *p)
{
    return _mm256_set_m128i(hw__pd4_to_ps4(p + 4, 1), hw__pd4_to_ps4(p, 1));
}

/* rna, with MXCSR = rz: as avx512_hooks.h's hw__pd8_to_ps8_rna */
MF_V __m128i hw__pd4_to_ps4_rna(const double *p)
{
    const __m256d sign = _mm256_set1_pd(-0.0), x = _mm256_loadu_pd(p), a = _mm256_andnot_pd(sign, x);
    const __m256i e0 = _mm256_srli_epi64(_mm256_castpd_si256(a), 52), emin = _mm256_set1_epi64x(1023 - 126);
    const __m256i e = _mm256_blendv_epi8(e0, emin, _mm256_cmpgt_epi64(emin, e0));
    const __m256d h = _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_sub_epi64(e, _mm256_set1_epi64x(24)), 52));
    const __m256d t = _mm256_add_pd(x, _mm256_or_pd(h, _mm256_and_pd(x, sign)));
    const __m256i ovf = _mm256_castpd_si256(_mm256_and_pd(
        _mm256_cmp_pd(_mm256_andnot_pd(sign, t), _mm256_set1_pd(0x1p128), _CMP_GE_OQ),
        _mm256_cmp_pd(a, _mm256_set1_pd(0x1.fffffffffffffp1023), _CMP_LE_OQ))); /* inf stays inf */
    const __m256i lo = _mm256_permutevar8x32_epi32(ovf, _mm256_set_epi32(7, 5, 3, 1, 6, 4, 2, 0));
    const __m128i r = _mm_castps_si128(_mm256_cvtpd_ps(t));
    return _mm_sub_epi32(r, _mm256_castsi256_si128(lo)); /* one more where it overflows: the infinity */
}

MF_V vu hw_f64_to_f32(const double *p, mf_round r)
{
    vu u;
    if (r == MF_ROUND_NEAREST_AWAY)
        u = _mm256_set_m128i(hw__pd4_to_ps4_rna(p + 4), hw__pd4_to_ps4_rna(p));
    else /* the backend has put r into MXCSR */
        u = _mm256_set_m128i(hw__pd4_to_ps4(p + 4, 0), hw__pd4_to_ps4(p, 0));
    return v_blend(v_gt_u(v_and(u, v_set1(0x7FFFFFFFu)), v_set1(0x7F800000u)), u, v_set1(0x7FFFFFFFu));
}

/* sr from f64, with MXCSR = rz: as avx512_hooks.h's hw__pd8_to_ps8_sr, four doubles */
MF_V __m128i hw__pd4_to_ps4_sr(const double *p, const uint8_t *rp, const int w, const int man, const int e_lo,
                               const double top)
{
    const __m256d sign = _mm256_set1_pd(-0.0), x = _mm256_loadu_pd(p), a = _mm256_andnot_pd(sign, x);
    const __m256i e0 = _mm256_srli_epi64(_mm256_castpd_si256(a), 52), lo = _mm256_set1_epi64x(e_lo);
    const __m256i e = _mm256_blendv_epi8(e0, lo, _mm256_cmpgt_epi64(lo, e0));
    const __m256d scale = _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_sub_epi64(e, _mm256_set1_epi64x(man + w)), 52));
    __m256d rd, y;
    if (w == 8) {
        int32_t b;
        memcpy(&b, rp, 4);
        rd = _mm256_cvtepi32_pd(_mm_cvtepu8_epi32(_mm_cvtsi32_si128(b)));
    } else if (w == 16) {
        rd = _mm256_cvtepi32_pd(_mm_cvtepu16_epi32(_mm_loadl_epi64((const __m128i *)rp)));
    } else { /* unsigned words: as signed, less 2^31, then 2^31 added back (exact) */
        const __m128i s = _mm_xor_si128(_mm_loadu_si128((const __m128i *)rp), _mm_set1_epi32(INT32_MIN));
        rd = _mm256_add_pd(_mm256_cvtepi32_pd(s), _mm256_set1_pd(0x1p31));
    }
    y = _mm256_fmadd_pd(rd, scale, a); /* NaN stays NaN, inf inf */
    y = _mm256_blendv_pd(y, _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FF0000000000000)),
                         _mm256_cmp_pd(y, _mm256_set1_pd(top), _CMP_GE_OQ));
    return _mm_castps_si128(_mm256_cvtpd_ps(_mm256_or_pd(y, _mm256_and_pd(x, sign))));
}

MF_V vu hw_f64_to_f32_sr(const double *p, const uint8_t *rp, const int w, const int man, const int e_lo,
                         const double top)
{
    return _mm256_set_m128i(hw__pd4_to_ps4_sr(p + 4, rp + w / 2, w, man, e_lo, top),
                            hw__pd4_to_ps4_sr(p, rp, w, man, e_lo, top));
}

MF_V void hw_f32_to_f64(double *out, vu u)
{
    __m256 x = _mm256_castsi256_ps(u);
    _mm256_storeu_pd(out, _mm256_cvtps_pd(_mm256_castps256_ps128(x)));
    _mm256_storeu_pd(out + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)));
}

/* the same with non-temporal stores; out is 64-byte aligned */
MF_V void hw_f32_to_f64_nt(double *out, vu u)
{
    __m256 x = _mm256_castsi256_ps(u);
    _mm256_stream_pd(out, _mm256_cvtps_pd(_mm256_castps256_ps128(x)));
    _mm256_stream_pd(out + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)));
}

#ifdef BK_PATHS
#include "avx2_decode.h"
#include "avx2_lut.h"
#endif

#endif /* MF_X86_BACKEND_AVX2_H */
