/* src/x86/room_avx512_hw.h - the hardware hooks shared by the AVX-512 rooms (see room.h). */
#ifndef MF_X86_ROOM_AVX512_HW_H
#define MF_X86_ROOM_AVX512_HW_H

/* f32 -> f16 with vcvtps2ph (rn, rz, ru, rd; IEEE overflow). hw_f16_special flags the lanes the
 * instruction gets wrong for us (NaN: it keeps payloads), hw_f16_fix mends them. */
MF_V vm hw_f16_special(vu u) { return _mm512_fpclass_ps_mask(_mm512_castsi512_ps(u), 0x81); /* QNaN, SNaN */ }

MF_V void hw_f16_plain(uint16_t *p, vu u, const mf_round r)
{
    __m512 x = _mm512_castsi512_ps(u);
    __m256i h;
    switch (r) {
    case MF_ROUND_TOWARD_ZERO: h = _mm512_cvtps_ph(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); break;
    case MF_ROUND_UP: h = _mm512_cvtps_ph(x, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC); break;
    case MF_ROUND_DOWN: h = _mm512_cvtps_ph(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); break;
    default: h = _mm512_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); break;
    }
    _mm256_storeu_si256((__m256i *)p, h);
}

MF_V void hw_f16_fix(uint16_t *p, vu u, const mf_round r)
{
    __mmask16 isnan = hw_f16_special(u);
    hw_f16_plain(p, u, r);
    if (isnan)
        _mm256_mask_storeu_epi16(p, isnan, _mm256_set1_epi16(0x7FFF));
}

/* f16 -> f32: vcvtph2ps keeps sign and payload and sets the quiet bit, as the portable room does. */
MF_V vu hw_f16_to_f32(const uint16_t *p)
{
    return _mm512_castps_si512(_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)p)));
}

/* Eight doubles -> eight binary32 bits under the MXCSR rounding (the room sets it). */
MF_V __m256i hw__pd8_to_ps8(const double *p, int odd)
{
    __m512d x = _mm512_loadu_pd(p);
    __m256 t = _mm512_cvtpd_ps(x);
    __m256i r = _mm256_castps_si256(t);
    if (odd) { /* round to odd: the truncation (MXCSR = rz) with the last bit set if inexact */
        __mmask8 ne = _mm512_cmp_pd_mask(_mm512_cvtps_pd(t), x, _CMP_NEQ_UQ);
        r = _mm256_mask_or_epi32(r, ne, r, _mm256_set1_epi32(1));
    }
    return r;
}

MF_V vu hw_f64_to_f32_ro(const double *p)
{
    return _mm512_inserti64x4(_mm512_castsi256_si512(hw__pd8_to_ps8(p, 1)), hw__pd8_to_ps8(p + 8, 1), 1);
}

MF_V vu hw_f64_to_f32(const double *p, mf_round r)
{
    vu u = _mm512_inserti64x4(_mm512_castsi256_si512(hw__pd8_to_ps8(p, 0)), hw__pd8_to_ps8(p + 8, 0), 1);
    (void)r; /* the room has put r into MXCSR */
    return v_blend(v_gt_u(v_and(u, v_set1(0x7FFFFFFFu)), v_set1(0x7F800000u)), u, v_set1(0x7FFFFFFFu));
}

MF_V void hw_f32_to_f64(double *out, vu u)
{
    __m512 x = _mm512_castsi512_ps(u);
    _mm512_storeu_pd(out, _mm512_cvtps_pd(_mm512_castps512_ps256(x)));
    _mm512_storeu_pd(out + 8, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1))));
}

#endif /* MF_X86_ROOM_AVX512_HW_H */
