/* SPDX-License-Identifier: MIT */
/* src/x86/avx512_hooks.h - the hardware hooks shared by the AVX-512 backends (see
 * src/simd/backend_paths.h). */
#ifndef MF_X86_AVX512_HOOKS_H
#define MF_X86_AVX512_HOOKS_H

/* f32 -> f16 with vcvtps2ph (rn, rz, ru, rd; IEEE overflow). hw_f16_special flags the lanes the
 * instruction gets wrong for us (NaN: it keeps payloads), hw_f16_fix mends them. */
MF_V vm hw_f16_special(vu u)
{
    return _mm512_cmpgt_epu32_mask(_mm512_and_si512(u, _mm512_set1_epi32(0x7FFFFFFF)), _mm512_set1_epi32(0x7F800000));
}

/* NaN in u or in v: one unordered comparison of the two, with {sae} so that a signalling NaN raises
 * nothing (written out: clang drops the {sae} of _mm512_cmp_round_ps_mask) */
MF_V vm hw_f16_special2(vu u, vu v)
{
    __mmask16 k;
    __asm__("vcmpps $3, %{sae%}, %2, %1, %0" : "=k"(k) : "v"(u), "v"(v));
    return k;
}

/* NaN in any of many binary32 vectors, a block at a time: a = u * v + a, rounded with {rn-sae} (no
 * flags raised, MXCSR not read), is NaN from the first NaN operand on. inf * 0, inf - inf and products
 * that overflow give NaN or inf too, which only sends a block to hw_f16_fix. One FMA for two vectors
 * competes less with vcvtps2ph than a compare into a mask: both of those take port 5 on Intel cores,
 * and an FMA can take port 0 (bk_hw16_loop). */
#define BK_HW_F16_ACC 1
MF_V vu hw_f16_acc(vu a, vu u, vu v)
{
    return _mm512_castps_si512(_mm512_fmadd_round_ps(_mm512_castsi512_ps(u), _mm512_castsi512_ps(v),
                                                     _mm512_castsi512_ps(a), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

/* vcvtps2ph with {sae}, which neither raises nor flags exceptions (compilers do not emit the EVEX
 * suppress-all-exceptions bit for this instruction, so it is written out). The rounding comes from
 * the immediate and FTZ is ignored; DAZ is honoured, which matters only for ru and rd. */
#define HW_CVTPS2PH_SAE(h, x, imm) __asm__("vcvtps2ph $" #imm ", %{sae%}, %1, %0" : "=v"(h) : "v"(x))

MF_V void hw_f16_plain(uint16_t *p, vu u, const mf_round r)
{
    __m512 x = _mm512_castsi512_ps(u);
    __m256i h;
    switch (r) {
    case MF_ROUND_TOWARD_ZERO: HW_CVTPS2PH_SAE(h, x, 0xB); break;
    case MF_ROUND_UP: HW_CVTPS2PH_SAE(h, x, 0xA); break;
    case MF_ROUND_DOWN: HW_CVTPS2PH_SAE(h, x, 0x9); break;
    default: HW_CVTPS2PH_SAE(h, x, 0x8); break;
    }
    _mm256_storeu_si256((__m256i *)p, h);
}

/* Two vectors' f16 codes stored, and folded into the largest codes seen: signed (hi) and unsigned (hu) 16-bit
 * maxima, so that a block holds an inf or a NaN code exactly when hi >= 0x7C00 (positive codes) or hu >= 0xFC00
 * (negative ones) in some lane (hw_f16_special_codes). Saturating, that is the test for a block to redo from
 * clamped inputs in every mode: an |x| the instruction rounds to inf, an inf, or a NaN (bk_hw16_loop); where the
 * mode rounds an overflow to max (rz; ru below, rd above zero) that is already the saturating code. */
#define BK_HW_F16_CODES 1
MF_V void hw_f16_plain2_max(uint16_t *p, vu u, vu v, const mf_round r, __m512i *hi, __m512i *hu)
{
    __m256i a, b;
    __m512i c;
    const __m512 x = _mm512_castsi512_ps(u), y = _mm512_castsi512_ps(v);
    switch (r) {
    case MF_ROUND_TOWARD_ZERO: HW_CVTPS2PH_SAE(a, x, 0xB); HW_CVTPS2PH_SAE(b, y, 0xB); break;
    case MF_ROUND_UP: HW_CVTPS2PH_SAE(a, x, 0xA); HW_CVTPS2PH_SAE(b, y, 0xA); break;
    case MF_ROUND_DOWN: HW_CVTPS2PH_SAE(a, x, 0x9); HW_CVTPS2PH_SAE(b, y, 0x9); break;
    default: HW_CVTPS2PH_SAE(a, x, 0x8); HW_CVTPS2PH_SAE(b, y, 0x8); break;
    }
    c = _mm512_inserti64x4(_mm512_castsi256_si512(a), b, 1);
    _mm512_storeu_si512(p, c);
    *hi = _mm512_max_epi16(*hi, c);
    *hu = _mm512_max_epu16(*hu, c);
}

MF_V int hw_f16_special_codes(__m512i hi, __m512i hu)
{
    return (_mm512_cmpge_epi16_mask(hi, _mm512_set1_epi16(0x7C00)) |
            _mm512_cmpge_epu16_mask(hu, _mm512_set1_epi16((short)0xFC00))) != 0;
}

MF_V void hw_f16_fix(uint16_t *p, vu u, const mf_round r)
{
    __mmask16 isnan = hw_f16_special(u);
    hw_f16_plain(p, u, r);
    if (isnan)
        _mm256_mask_storeu_epi16(p, isnan, _mm256_set1_epi16(0x7FFF));
}

/* f16 -> f32: vcvtph2ps keeps sign and payload and sets the quiet bit, as the portable backend does.
 * It ignores DAZ (f16 subnormals are converted), and {sae} keeps signalling NaNs from raising. */
MF_V vu hw_f16_to_f32(const uint16_t *p)
{
    return _mm512_castps_si512(_mm512_cvt_roundph_ps(_mm256_loadu_si256((const __m256i *)p), _MM_FROUND_NO_EXC));
}

/* f32 -> f16 rn/rz, f32 -> bf16 rn and f16 -> f32 above do not depend on MXCSR (bk_direct) */
#define BK_HW_NOCSR 1

/* Eight doubles -> eight binary32 bits under the MXCSR rounding (the backend sets it). */
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

/* rna, with MXCSR = rz: x + half a binary32 place at |x| (2^-150 below the normal range) away from
 * zero, truncated; exact in binary64 but where it reaches the next binade, and then it is at least
 * that binade's first point, which truncation keeps. From 2^128 on it overflows: rz gives max, and
 * one more is the infinity. */
MF_V __m256i hw__pd8_to_ps8_rna(const double *p)
{
    const __m512d x = _mm512_loadu_pd(p);
    const __m512d a = _mm512_abs_pd(x);
    const __m512i e = _mm512_max_epu64(_mm512_srli_epi64(_mm512_castpd_si512(a), 52), _mm512_set1_epi64(1023 - 126));
    const __m512i h = _mm512_slli_epi64(_mm512_sub_epi64(e, _mm512_set1_epi64(24)), 52);
    /* t = x + (h with x's sign): ternary logic h | (x & sign) */
    const __m512d t = _mm512_add_pd(x, _mm512_castsi512_pd(_mm512_ternarylogic_epi64(
                                           h, _mm512_castpd_si512(x), _mm512_set1_epi64((long long)0x8000000000000000ull), 0xF8)));
    const __mmask8 ovf = _mm512_cmp_pd_mask(_mm512_abs_pd(t), _mm512_set1_pd(0x1p128), _CMP_GE_OQ) &
                         _mm512_cmp_pd_mask(a, _mm512_set1_pd(0x1.fffffffffffffp1023), _CMP_LE_OQ); /* inf stays inf */
    const __m256i r = _mm256_castps_si256(_mm512_cvtpd_ps(t));
    return _mm256_mask_add_epi32(r, ovf, r, _mm256_set1_epi32(1));
}

MF_V vu hw_f64_to_f32(const double *p, mf_round r)
{
    vu u;
    if (r == MF_ROUND_NEAREST_AWAY)
        u = _mm512_inserti64x4(_mm512_castsi256_si512(hw__pd8_to_ps8_rna(p)), hw__pd8_to_ps8_rna(p + 8), 1);
    else /* the backend has put r into MXCSR */
        u = _mm512_inserti64x4(_mm512_castsi256_si512(hw__pd8_to_ps8(p, 0)), hw__pd8_to_ps8(p + 8, 0), 1);
    return v_blend(v_gt_u(v_and(u, v_set1(0x7FFFFFFFu)), v_set1(0x7F800000u)), u, v_set1(0x7FFFFFFFu));
}

/* sr from f64, with MXCSR = rz (src/simd/path_blocked.h, bk_f64_sr): eight doubles x and their w-bit random slices at
 * rp give rz(|x| + r * 2^(q - w)) with x's sign, as binary32 bits; q is the exponent of the target's
 * last place at |x| (|x|'s exponent field, at least e_lo, minus man), and where that sum reaches top
 * (the grid point above the target's max) the result is +-inf. r * 2^(q - w) is exact and the FMA
 * rounds once; truncating the sum at q is the sr rule (up iff floor(f * 2^w) + r >= 2^w), and the
 * truncations to binary32 here and to the target later keep that, as the target's grid lies on
 * binary32's. */
MF_V __m256i hw__pd8_to_ps8_sr(const double *p, const uint8_t *rp, const int w, const int man, const int e_lo,
                               const double top)
{
    const __m512d x = _mm512_loadu_pd(p), a = _mm512_abs_pd(x);
    const __m256i r = w == 8    ? _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)rp))
                      : w == 16 ? _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)rp))
                                : _mm256_loadu_si256((const __m256i *)rp);
    const __m512i e = _mm512_max_epu64(_mm512_srli_epi64(_mm512_castpd_si512(a), 52), _mm512_set1_epi64(e_lo));
    const __m512d scale = _mm512_castsi512_pd(_mm512_slli_epi64(_mm512_sub_epi64(e, _mm512_set1_epi64(man + w)), 52));
    __m512d y = _mm512_fmadd_pd(_mm512_cvtepu32_pd(r), scale, a); /* NaN stays NaN, inf inf */
    y = _mm512_mask_mov_pd(y, _mm512_cmp_pd_mask(y, _mm512_set1_pd(top), _CMP_GE_OQ),
                           _mm512_castsi512_pd(_mm512_set1_epi64(0x7FF0000000000000)));
    y = _mm512_castsi512_pd(_mm512_ternarylogic_epi64(_mm512_castpd_si512(y), _mm512_castpd_si512(x),
                                                      _mm512_set1_epi64((long long)0x8000000000000000ull), 0xF8));
    return _mm256_castps_si256(_mm512_cvtpd_ps(y));
}

MF_V vu hw_f64_to_f32_sr(const double *p, const uint8_t *rp, const int w, const int man, const int e_lo,
                         const double top)
{
    return _mm512_inserti64x4(_mm512_castsi256_si512(hw__pd8_to_ps8_sr(p, rp, w, man, e_lo, top)),
                              hw__pd8_to_ps8_sr(p + 8, rp + w, w, man, e_lo, top), 1);
}

MF_V void hw_f32_to_f64(double *out, vu u)
{
    __m512 x = _mm512_castsi512_ps(u);
    _mm512_storeu_pd(out, _mm512_cvtps_pd(_mm512_castps512_ps256(x)));
    _mm512_storeu_pd(out + 8, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1))));
}

/* the same with non-temporal stores; out is 64-byte aligned */
MF_V void hw_f32_to_f64_nt(double *out, vu u)
{
    __m512 x = _mm512_castsi512_ps(u);
    _mm512_stream_pd(out, _mm512_cvtps_pd(_mm512_castps512_ps256(x)));
    _mm512_stream_pd(out + 8, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1))));
}

#ifdef BK_PATHS

/* Decoding the small formats by table: vpermd / vpermt2d look up 16 or 32 binary32 patterns per
 * instruction, vpermt2w 32 f16 patterns. The tables are filled once from the vector decoder k_decode (the
 * same arithmetic the other backends use), so they hold no second copy of the formats' facts. The 8-bit
 * formats (every one-byte row of the table but e5m2, which is an f16's top byte, and e8m0) keep their 128
 * magnitudes as f16 bits: every such value is an f16 (normal, subnormal for e5m2fnuz's smallest, inf or
 * NaN with its payload), and vcvtph2ps widens it exactly, NaNs quiet with their payload, as k_decode. */
static uint32_t hw_tab_u4[MF_FORMAT_COUNT][16] __attribute__((aligned(64))); /* packed nibbles: e2m1, binary4p2sf */
static uint32_t hw_tab_e2m3[32] __attribute__((aligned(64)));
static uint32_t hw_tab_e3m2[32] __attribute__((aligned(64)));
static uint16_t hw_tab_h8[MF_FORMAT_COUNT][128] __attribute__((aligned(64))); /* by format, its magnitudes */
/* 0: not built; 1: one thread is building them; 2: built and published. A thread that finds another
 * one building waits for it (the tables take microseconds): writing them from two threads at once was
 * a data race (ThreadSanitizer saw it with two threads' first decodes). */
static int hw_tab_state;

/* the formats decoded through hw_tab_h8: those whose values are all f16s (no exponent above 15, no
 * subnormal below 2^-24: not binary8p2s*, whose range is 2^-32 .. 2^31) */
MF_V int hw_dec8_ok(const mf_format S)
{
    const mf__fmt f = mf__fmt_get(S);
    const int ew = mf__fmt_mag_bits(f) - f.man;
    return (K_BYTE_FMTS >> S & 1u) && f.bits == 8 && f.kind != MF__KIND_E8M0 && S != MF_FP8_E5M2 &&
           (1 << ew) - 1 - f.bias <= 15 && 1 - f.bias - f.man >= -24;
}

static void hw_decode_prepare(void)
{
    uint32_t i;
    int expect = 0, f;
    if (__atomic_load_n(&hw_tab_state, __ATOMIC_ACQUIRE) == 2)
        return;
    if (!__atomic_compare_exchange_n(&hw_tab_state, &expect, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(&hw_tab_state, __ATOMIC_ACQUIRE) != 2)
            _mm_pause();
        return;
    }
    for (i = 0; i < 32; i += 16) {
        vu c = _mm512_add_epi32(_mm512_set1_epi32((int)i), v_lane_index());
        v_store_u32(hw_tab_e2m3 + i, k_decode(c, MF_FP6_E2M3));
        v_store_u32(hw_tab_e3m2 + i, k_decode(c, MF_FP6_E3M2));
    }
    for (f = 0; f < MF_FORMAT_COUNT; f++) /* every code of the nibble formats, sign and specials included */
        if (mf__fmt_store_bits((mf_format)f) == 4 && (K_FMTS >> f & 1u))
            v_store_u32(hw_tab_u4[f], k_decode(v_lane_index(), (mf_format)f));
    for (f = 0; f < MF_FORMAT_COUNT; f++) { /* exact: every value is an f16 */
        for (i = 0; i < 128 && hw_dec8_ok((mf_format)f); i += 16) {
            vu c = _mm512_add_epi32(_mm512_set1_epi32((int)i), v_lane_index());
            __m512 x = _mm512_castsi512_ps(k_decode(c, (mf_format)f));
            _mm256_store_si256((__m256i *)(hw_tab_h8[f] + i), _mm512_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        }
        if (hw_dec8_ok((mf_format)f) && k_no_neg_zero(mf__fmt_get((mf_format)f))) /* magnitude 0: see hw_dec8_h */
            hw_tab_h8[f][0] = (uint16_t)((k_sign_nan_bits(mf__fmt_get((mf_format)f)) >> 16 & 0xFE00u) ^ 0x8000u);
    }
    __atomic_store_n(&hw_tab_state, 2, __ATOMIC_RELEASE);
}

MF_V int hw_decode_ok(const mf_format S)
{
    return mf__fmt_store_bits(S) == 4 || S == MF_FP6_E2M3 || S == MF_FP6_E3M2 || S == MF_FP8_E5M2 || hw_dec8_ok(S);
}

/* 32 codes of an 8-bit format S, one a 16-bit lane -> f16 bits: two vpermt2w over the magnitudes, the
 * sign from the code. FNUZ's and P3109's NaN is the sign bit alone (magnitude 0 with the sign), to be the f16 NaN
 * k_sign_nan_bits gives: their table holds that NaN with its sign bit flipped at magnitude 0, the sign goes in by
 * XOR (no other entry has the sign bit, so XOR is OR there), and the lookup zeroes the code 0 (+0) itself: one
 * test a vector more than e4m3, where a compare and a masked move were two. */
MF_V __m512i hw_dec8_h(__m512i c, const mf_format S, const __m512i *h)
{
    const __mmask32 b6 = _mm512_test_epi16_mask(c, _mm512_set1_epi16(0x40));
    const __m512i sgn = _mm512_slli_epi16(c, 8), top = _mm512_set1_epi16((short)0x8000);
    if (k_no_neg_zero(mf__fmt_get(S))) {
        const __m512i lo = _mm512_maskz_permutex2var_epi16(_mm512_test_epi16_mask(c, c), h[0], c, h[1]);
        const __m512i r = _mm512_mask_blend_epi16(b6, lo, _mm512_permutex2var_epi16(h[2], c, h[3]));
        return _mm512_ternarylogic_epi32(r, sgn, top, 0x78); /* r ^ (sgn & top) */
    }
    return _mm512_ternarylogic_epi32(_mm512_mask_blend_epi16(b6, _mm512_permutex2var_epi16(h[0], c, h[1]),
                                                             _mm512_permutex2var_epi16(h[2], c, h[3])),
                                     sgn, top, 0xF8); /* r | (sgn & top) */
}

/* n (a multiple of 16) codes of such an S at b -> binary32 bits at out: 32 a step, then 16 */
MF_V void hw_dec8_loop(const mf_format S, uint32_t *out, const uint8_t *b, size_t n)
{
    __m512i h[4];
    size_t i;
    int k;
    for (k = 0; k < 4; k++) /* in registers for the call (stores to out could alias the table) */
        h[k] = _mm512_load_si512(hw_tab_h8[S] + 32 * k);
    for (i = 0; i + 32 <= n; i += 32) {
        const __m512i r = hw_dec8_h(_mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(b + i))), S, h);
        _mm512_storeu_ps((float *)(out + i), _mm512_cvtph_ps(_mm512_castsi512_si256(r)));
        _mm512_storeu_ps((float *)(out + i + 16), _mm512_cvtph_ps(_mm512_extracti64x4_epi64(r, 1)));
    }
    if (i < n) {
        const __m512i c = _mm512_castsi256_si512(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(b + i))));
        _mm512_storeu_ps((float *)(out + i), _mm512_cvtph_ps(_mm512_castsi512_si256(hw_dec8_h(c, S, h))));
    }
}

/* Decode n (a multiple of 16) codes of format S at src into binary32 bits at out. The tables are
 * loaded into registers once per call (stores to out could alias them, so the compiler would not). */
MF_V void hw_decode_loop(const mf_format S, uint32_t *out, const void *src, size_t n)
{
    const vu sign_of = _mm512_set1_epi32((int)0x80000000u);
    const uint8_t *b = (const uint8_t *)src;
    size_t i;
    if (mf__fmt_store_bits(S) == 4) {
        const vu t = _mm512_load_si512(hw_tab_u4[S]); /* sign included */
        for (i = 0; i < n; i += 16)
            _mm512_storeu_si512(out + i, _mm512_permutexvar_epi32(v_load_u4(b + i / 2), t));
    } else if (S == MF_FP6_E2M3 || S == MF_FP6_E3M2) {
        const uint32_t *tp = S == MF_FP6_E2M3 ? hw_tab_e2m3 : hw_tab_e3m2;
        const vu t0 = _mm512_load_si512(tp), t1 = _mm512_load_si512(tp + 16);
        for (i = 0; i < n; i += 16) {
            vu c = v_load_u8(b + i);
            vu mag = _mm512_permutex2var_epi32(t0, c, t1); /* bits 0..4 */
            _mm512_storeu_si512(out + i, _mm512_ternarylogic_epi32(mag, _mm512_slli_epi32(c, 26), sign_of, 0xF8));
        }
    } else if (S == MF_FP8_E5M2) { /* an f16's top byte: vcvtph2ps keeps payloads and quiets NaNs, as we do */
        for (i = 0; i < n; i += 16) {
            __m256i h = _mm256_slli_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(b + i))), 8);
            _mm512_storeu_ps((float *)(out + i), _mm512_cvtph_ps(h));
        }
    } else {
        switch (S) { /* one loop per format, its facts folded */
#define MF__FORMAT(e, value, tag, bits, man, bias, kind, storage, ...) K_IF_BYTE_##storage(case e : hw_dec8_loop(e, out, b, n); break;)
#include <minifloat/formats.inc>
#undef MF__FORMAT
        default: break;
        }
    }
}
#define BK_HW_DECODE 1

#endif /* BK_PATHS */

#endif /* MF_X86_AVX512_HOOKS_H */
