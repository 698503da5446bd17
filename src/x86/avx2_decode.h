/* SPDX-License-Identifier: MIT */
/* src/x86/avx2_decode.h - the AVX2 backend's decoder for fp8, fp6 and fp4 sources (BK_HW_DECODE), by
 * F16C's vcvtph2ps.
 *
 * A code's magnitude bits, moved up to the top of an f16's exponent and mantissa fields (mag << (10 -
 * man)), are an f16 whose value is the code's times 2^(bias - 15): its normals have the code's exponent
 * field and mantissa, and its subnormals read as the code's subnormals alike, scaled the same. vcvtph2ps
 * widens that exactly (f16 subnormals become binary32 normals, so no subnormal ever meets the
 * arithmetic) and a multiplication by 2^(15 - bias) restores the scale, exactly. The sign goes in the
 * f16's sign bit. Special codes become the f16's: where the code's exponent field is narrower than the
 * f16's (5 bits), the f16 exponent bits above it are set on the kind's inf and NaN codes (k_decode_special's
 * rules: an IEEE-style all-ones field, FN's all-ones magnitude), and FNUZ's NaN (the sign bit alone)
 * becomes the f16 NaN 0xFE00; vcvtph2ps and the multiplication carry a NaN through with its payload,
 * quiet, as k_decode gives it (P3109's NaN 0x7E00, its infinities the f16's). e5m2 is an f16's top byte (bias 15: no multiplication). A format whose
 * five exponent field bits are all finite (e5m2fnuz) is read one binade down, as an f16 with bias 16: a
 * code of exponent field E >= 2 is the f16 of field E - 1, (mag << (10 - man)) - 0x400; one of E <= 1
 * (mag < 2^(man + 1)) is an f16 subnormal, mag << (9 - man); the larger of the two is the right one in both
 * ranges (for E >= 2 the first is at least the second, below they cross exactly at E = 2), so one saturating
 * subtraction, one shift and one max make the f16, with no multiplication at bias 16. */
#ifndef MF_X86_AVX2_DECODE_H
#define MF_X86_AVX2_DECODE_H

/* the code's exponent field in bits */
MF_V int hw_dec_ew(const mf__fmt f) { return mf__fmt_mag_bits(f) - f.man; }

/* read one binade down: five exponent bits with no inf and no NaN among them */
MF_V int hw_dec_down(const mf__fmt f) { return hw_dec_ew(f) == 5 && f.kind != MF__KIND_IEEE; }

MF_V int hw_decode_ok(const mf_format S)
{
    const mf__fmt f = mf__fmt_get(S);
    /* (an FN format with five exponent bits would need its NaN code on the down reading: there is none) */
    return (K_BYTE_FMTS >> S & 1u) && f.kind != MF__KIND_E8M0 &&
           (hw_dec_ew(f) < 5 || (hw_dec_ew(f) == 5 && f.kind != MF__KIND_FN));
}

static void hw_decode_prepare(void) {}

/* 16 codes of S, one per 16-bit lane (bits above the code ignored but for FNUZ's, which loads bytes) -> f16
 * bits of value * 2^(bias - 15) (hw_dec_down: 2^(bias - 16)) */
MF_V __m256i hw_dec_h(__m256i c, const mf_format S)
{
    const mf__fmt f = mf__fmt_get(S);
    const short magmask = (short)mf__fmt_mag_mask(f);
    const short above = (short)(0x7C00 & ~(((1 << hw_dec_ew(f)) - 1) << 10)); /* f16 exponent bits above the code's */
    const __m256i mag = _mm256_and_si256(c, _mm256_set1_epi16(magmask));
    const __m256i sign = _mm256_and_si256(_mm256_slli_epi16(c, 16 - f.bits), _mm256_set1_epi16((short)0x8000));
    __m256i h = _mm256_slli_epi16(mag, 10 - f.man), special = _mm256_setzero_si256();
    if (hw_dec_down(f))
        h = _mm256_max_epu16(_mm256_subs_epu16(h, _mm256_set1_epi16(0x400)), _mm256_srli_epi16(h, 1));
    h = _mm256_or_si256(h, sign);
    if (f.kind == MF__KIND_IEEE && above) /* the all-ones exponent field */
        special = _mm256_cmpgt_epi16(mag, _mm256_set1_epi16((short)(magmask - (1 << f.man))));
    else if (f.kind == MF__KIND_FN) /* the all-ones magnitude */
        special = _mm256_cmpeq_epi16(mag, _mm256_set1_epi16(magmask));
    if ((f.kind == MF__KIND_IEEE && above) || f.kind == MF__KIND_FN)
        h = _mm256_or_si256(h, _mm256_and_si256(special, _mm256_set1_epi16(above)));
    if (f.kind == MF__KIND_P3109SE) /* +-inf: the all-ones magnitude */
        h = _mm256_blendv_epi8(h, _mm256_or_si256(sign, _mm256_set1_epi16(0x7C00)),
                               _mm256_cmpeq_epi16(mag, _mm256_set1_epi16(magmask)));
    if (k_no_neg_zero(f)) /* the sign bit alone: the f16 NaN k_sign_nan_bits gives (FNUZ: 0xFE00, P3109: 0x7E00) */
        h = _mm256_blendv_epi8(h, _mm256_set1_epi16((short)(k_sign_nan_bits(f) >> 16 & 0xFE00u)),
                               _mm256_cmpeq_epi16(c, _mm256_set1_epi16((short)mf__fmt_nan_code(f))));
    return h;
}

/* 8 f16 codes of the scaled values -> the codes' binary32 bits at out */
MF_V void hw_dec_store(uint32_t *out, __m128i h, const mf_format S)
{
    const mf__fmt f = mf__fmt_get(S);
    const int fbias = 15 + hw_dec_down(f); /* the f16 reading's bias */
    __m256 x = _mm256_cvtph_ps(h);
    if (f.bias != fbias)
        x = _mm256_mul_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32((127 + fbias - f.bias) << 23)));
    _mm256_storeu_ps((float *)out, x);
}

/* 16 codes from src (packed two a byte for e2m1), one per 16-bit lane */
MF_V __m256i hw_dec_load16(const uint8_t *src, const mf_format S)
{
    if (mf__fmt_store_bits(S) == 4) { /* element 2i in bits 0..3 of byte i */
        const __m128i b = _mm_loadl_epi64((const __m128i *)src);
        const __m128i lo = _mm_and_si128(b, _mm_set1_epi8(0x0F));
        const __m128i hi = _mm_and_si128(_mm_srli_epi16(b, 4), _mm_set1_epi8(0x0F));
        return _mm256_cvtepu8_epi16(_mm_unpacklo_epi8(lo, hi));
    }
    return _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)src));
}

/* the same for 8 codes (the low 8 lanes) */
MF_V __m256i hw_dec_load8(const uint8_t *src, const mf_format S)
{
    if (mf__fmt_store_bits(S) == 4) {
        int32_t w;
        __builtin_memcpy(&w, src, 4);
        {
            const __m128i b = _mm_cvtsi32_si128(w);
            const __m128i lo = _mm_and_si128(b, _mm_set1_epi8(0x0F));
            const __m128i hi = _mm_and_si128(_mm_srli_epi16(b, 4), _mm_set1_epi8(0x0F));
            return _mm256_cvtepu8_epi16(_mm_unpacklo_epi8(lo, hi));
        }
    }
    return _mm256_cvtepu8_epi16(_mm_loadl_epi64((const __m128i *)src));
}

/* Decode n (a multiple of 8) codes of S at src into binary32 bits at out, 16 a step */
MF_V void hw_decode_t(const mf_format S, uint32_t *out, const uint8_t *src, size_t n)
{
    const size_t per16 = mf__fmt_store_bits(S) == 4 ? 8 : 16; /* source bytes of 16 codes */
    size_t i;
    for (i = 0; i + 16 <= n; i += 16) {
        const __m256i h = hw_dec_h(hw_dec_load16(src + i / 16 * per16, S), S);
        hw_dec_store(out + i, _mm256_castsi256_si128(h), S);
        hw_dec_store(out + i + 8, _mm256_extracti128_si256(h, 1), S);
    }
    if (i < n)
        hw_dec_store(out + i, _mm256_castsi256_si128(hw_dec_h(hw_dec_load8(src + i / 16 * per16, S), S)), S);
}

MF_V void hw_decode_loop(const mf_format S, uint32_t *out, const void *src, size_t n)
{
    const uint8_t *b = (const uint8_t *)src;
    switch (S) {
#define MF__FORMAT(e, value, tag, bits, man, bias, kind, storage, ...)                                      \
    K_IF_BYTE_##storage(case e : hw_decode_t(e, out, b, n); break;)
#include <minifloat/formats.inc>
#undef MF__FORMAT
    default: break;
    }
}
#define BK_HW_DECODE 1

#endif /* MF_X86_AVX2_DECODE_H */
