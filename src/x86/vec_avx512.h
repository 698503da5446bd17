/* SPDX-License-Identifier: MIT */
/* src/x86/vec_avx512.h - the vector vocabulary of the kernels, for AVX-512 (F, BW, VL, DQ, CD).
 *
 * 16 lanes of 32 bits; masks are k-registers. vec_avx2.h defines the same names for 8 lanes, so one
 * kernel source (kernels.h) compiles for both backends. Variable shifts follow the hardware: a count
 * above 31 gives 0.
 */
#ifndef MF_X86_VEC_AVX512_H
#define MF_X86_VEC_AVX512_H

#include <immintrin.h>

#include "vec_env.h"
#include <stdint.h>

#define MF_VL 16
#define MF_V __attribute__((always_inline)) static inline

typedef __m512i vu;
typedef __mmask16 vm;

MF_V vu v_set1(uint32_t x) { return _mm512_set1_epi32((int)x); }
MF_V vu v_zero(void) { return _mm512_setzero_si512(); }
/* (a, b, c, d) in every group of four lanes */
MF_V vu v_set4(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    return _mm512_broadcast_i32x4(_mm_set_epi32((int)d, (int)c, (int)b, (int)a));
}
MF_V vu v_lane_index(void) { return _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0); }

MF_V vu v_and(vu a, vu b) { return _mm512_and_si512(a, b); }
MF_V vu v_or(vu a, vu b) { return _mm512_or_si512(a, b); }
MF_V vu v_xor(vu a, vu b) { return _mm512_xor_si512(a, b); }
MF_V vu v_or_and(vu a, vu b, vu c) { return _mm512_ternarylogic_epi32(a, b, c, 0xF8); } /* a | (b & c) */
MF_V vu v_add(vu a, vu b) { return _mm512_add_epi32(a, b); }
MF_V vu v_sub(vu a, vu b) { return _mm512_sub_epi32(a, b); }
#define v_srli(a, n) _mm512_srli_epi32((a), (n))
#define v_slli(a, n) _mm512_slli_epi32((a), (n))
MF_V vu v_srlv(vu a, vu n) { return _mm512_srlv_epi32(a, n); }
MF_V vu v_srav(vu a, vu n) { return _mm512_srav_epi32(a, n); }
MF_V vu v_sllv(vu a, vu n) { return _mm512_sllv_epi32(a, n); }
MF_V vu v_mullo(vu a, vu b) { return _mm512_mullo_epi32(a, b); }
MF_V vu v_min_u(vu a, vu b) { return _mm512_min_epu32(a, b); }
MF_V vu v_max_u(vu a, vu b) { return _mm512_max_epu32(a, b); }
MF_V vu v_max_i(vu a, vu b) { return _mm512_max_epi32(a, b); }

/* binary32 addition of bit patterns (rounded per MXCSR, which the backend sets to rn) */
MF_V vu v_fadd(vu a, vu b) { return _mm512_castps_si512(_mm512_add_ps(_mm512_castsi512_ps(a), _mm512_castsi512_ps(b))); }

/* the same rounded to nearest-even whatever MXCSR's rounding control says, raising no exception
 * ({rn-sae}; MXCSR's FTZ and DAZ still apply) */
MF_V vu v_fadd_rn(vu a, vu b)
{
    return _mm512_castps_si512(_mm512_add_round_ps(_mm512_castsi512_ps(a), _mm512_castsi512_ps(b),
                                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

/* The rounding kernels (kernels.h) name their rounding in the instruction where they round binary32
 * arithmetic, so MXCSR's rounding control does not reach them (its FTZ and DAZ still do) */
#define V_HAS_RC_IN_INSN 1

/* binary32 addition truncated ({rz-sae}), exact subtraction and multiplication, and truncation of a
 * binary32 value below 2^32 to an unsigned integer: for kernels.h's k_round_sr_sat_tab */
MF_V vu v_fadd_rz(vu a, vu b)
{
    return _mm512_castps_si512(_mm512_add_round_ps(_mm512_castsi512_ps(a), _mm512_castsi512_ps(b),
                                                   _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));
}
/* rounded up ({ru-sae}); and the masked forms: lanes of m take a + b rounded so, the others keep src */
MF_V vu v_fadd_ru(vu a, vu b)
{
    return _mm512_castps_si512(_mm512_add_round_ps(_mm512_castsi512_ps(a), _mm512_castsi512_ps(b),
                                                   _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC));
}
MF_V vu v_fadd_rz_m(vu src, vm m, vu a, vu b)
{
    return _mm512_castps_si512(_mm512_mask_add_round_ps(_mm512_castsi512_ps(src), m, _mm512_castsi512_ps(a),
                                                        _mm512_castsi512_ps(b), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));
}
MF_V vu v_fadd_ru_m(vu src, vm m, vu a, vu b)
{
    return _mm512_castps_si512(_mm512_mask_add_round_ps(_mm512_castsi512_ps(src), m, _mm512_castsi512_ps(a),
                                                        _mm512_castsi512_ps(b), _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC));
}
/* the lanes whose sign bit is set */
MF_V vm v_signs(vu a) { return _mm512_movepi32_mask(a); }
MF_V vu v_fsub(vu a, vu b) { return _mm512_castps_si512(_mm512_sub_ps(_mm512_castsi512_ps(a), _mm512_castsi512_ps(b))); }
MF_V vu v_fmul(vu a, vu b) { return _mm512_castps_si512(_mm512_mul_ps(_mm512_castsi512_ps(a), _mm512_castsi512_ps(b))); }
MF_V vu v_f2u_trunc(vu a) { return _mm512_cvttps_epu32(_mm512_castsi512_ps(a)); }
/* a * b + c rounded once, truncated ({rz-sae}); and small integers (below 2^24) to binary32, exactly */
MF_V vu v_fmadd_rz(vu a, vu b, vu c)
{
    return _mm512_castps_si512(_mm512_fmadd_round_ps(_mm512_castsi512_ps(a), _mm512_castsi512_ps(b),
                                                     _mm512_castsi512_ps(c), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));
}
MF_V vu v_u2f(vu a) { return _mm512_castps_si512(_mm512_cvtepi32_ps(a)); }

/* The 32-entry table lookup and the two helpers of kernels.h's table kernels (k_round_rn_tab) */
#define V_HAS_TABLE32 1
/* lane i: (lo, hi)[idx_i & 31], one vpermt2d */
MF_V vu v_table32(vu idx, vu lo, vu hi) { return _mm512_permutex2var_epi32(lo, idx, hi); }
/* lane i: t[idx_i & 15], one vpermd (which, unlike vpermt2d, overwrites neither source) */
MF_V vu v_table16(vu idx, vu t) { return _mm512_permutexvar_epi32(idx, t); }
/* max(a - b, 0) for a, b < 2^16 (unsigned saturating subtraction of 16-bit halves: the high halves are 0) */
MF_V vu v_subs_u16(vu a, vu b) { return _mm512_subs_epu16(a, b); }
/* keep ? (a & c) | (b & ~c) : c, one masked ternary-logic op */
MF_V vu v_keep_select(vm keep, vu a, vu b, vu c) { return _mm512_mask_ternarylogic_epi32(c, keep, a, b, 0xCA); }

MF_V vm v_gt_u(vu a, vu b) { return _mm512_cmpgt_epu32_mask(a, b); }
MF_V vm v_ge_u(vu a, vu b) { return _mm512_cmpge_epu32_mask(a, b); }
MF_V vm v_lt_u(vu a, vu b) { return _mm512_cmplt_epu32_mask(a, b); }
MF_V vm v_eq(vu a, vu b) { return _mm512_cmpeq_epi32_mask(a, b); }
MF_V vm v_gt_s(vu a, vu b) { return _mm512_cmpgt_epi32_mask(a, b); } /* as signed */
MF_V vm v_ne(vu a, vu b) { return _mm512_cmpneq_epi32_mask(a, b); }
MF_V vm v_nonzero(vu a) { return _mm512_test_epi32_mask(a, a); }
MF_V vm v_test(vu a, vu b) { return _mm512_test_epi32_mask(a, b); }
/* the lanes that hold a binary32 NaN (vfpclassps: one operation) */
MF_V vm v_isnan(vu a) { return _mm512_fpclass_ps_mask(_mm512_castsi512_ps(a), 0x81); }

MF_V vm m_and(vm a, vm b) { return (vm)(a & b); }
MF_V vm m_or(vm a, vm b) { return (vm)(a | b); }
MF_V vm m_andnot(vm a, vm b) { return (vm)(~a & b); } /* !a && b */
MF_V vm m_none(void) { return 0; }
MF_V vm m_first(unsigned n) { return (vm)((1u << n) - 1u); } /* lanes 0..n-1 */
MF_V uint64_t m_count(vm a) { return (uint64_t)__builtin_popcount((unsigned)a); }

/* m ? b : a */
MF_V vu v_blend(vm m, vu a, vu b) { return _mm512_mask_blend_epi32(m, a, b); }
/* s's sign bit set ? b : a */
MF_V vu v_blend_neg(vu s, vu a, vu b) { return _mm512_mask_blend_epi32(_mm512_movepi32_mask(s), a, b); }
/* a + (m ? 1 : 0) */
MF_V vu v_add_m1(vm m, vu a) { return _mm512_mask_add_epi32(a, m, a, _mm512_set1_epi32(1)); }
/* a | (m ? 1 : 0) */
MF_V vu v_or_m1(vm m, vu a) { return _mm512_mask_or_epi32(a, m, a, _mm512_set1_epi32(1)); }

/* x * 2^k for small unsigned x (exact: both steps are exact binary32 operations with a normal
 * result, so neither the rounding mode nor FTZ/DAZ matter); returns the binary32 bits. */
MF_V vu v_u32_times_pow2(vu x, int k)
{
    __m512 s = _mm512_castsi512_ps(_mm512_set1_epi32((127 + k) << 23));
    return _mm512_castps_si512(_mm512_mul_ps(_mm512_cvtepi32_ps(x), s));
}

/* Loads of one vector of elements, zero-extended to 32 bits. */
MF_V vu v_load_u32(const void *p) { return _mm512_loadu_si512(p); }
MF_V vu v_load_u16(const void *p) { return _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p)); }
MF_V vu v_load_u8(const void *p) { return _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)p)); }
/* 8 bytes of packed e2m1 pairs: element 2i in bits 0..3 of byte i. */
MF_V vu v_load_u4(const void *p)
{
    __m128i b = _mm_loadl_epi64((const __m128i *)p);
    __m128i lo = _mm_and_si128(b, _mm_set1_epi8(0x0F));
    __m128i hi = _mm_and_si128(_mm_srli_epi16(b, 4), _mm_set1_epi8(0x0F));
    return _mm512_cvtepu8_epi32(_mm_unpacklo_epi8(lo, hi));
}

/* Stores of the low bits of each lane. */
MF_V void v_store_u32(void *p, vu a) { _mm512_storeu_si512(p, a); }
MF_V void v_store_u16(void *p, vu a) { _mm256_storeu_si256((__m256i *)p, _mm512_cvtepi32_epi16(a)); }
MF_V void v_store_u8(void *p, vu a) { _mm_storeu_si128((__m128i *)p, _mm512_cvtepi32_epi8(a)); }
/* f32 -> bf16, sr, on two vectors at once in 16-bit lanes: the 2 * MF_VL codes of a then b, element l
 * taking the 16 random bits of unit l of w. Code = high half + the carry of low half + random bits
 * (kernels.h's k_round_bf16, with the halves gathered by two permutes instead of the random bits
 * spread to 32-bit lanes); sat: codes above max (a carry to inf, an inf input) become max. */
#define V_HAS_BF16_SR_PAIR 1
MF_V void v_bf16_sr_pair(void *p, vu a, vu b, vu w, const int sat, uint32_t nan, uint32_t max)
{
    const __m512i lo_idx = _mm512_set_epi16(62, 60, 58, 56, 54, 52, 50, 48, 46, 44, 42, 40, 38, 36, 34, 32, 30, 28,
                                            26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i lo = _mm512_permutex2var_epi16(a, lo_idx, b);
    const __m512i hi = _mm512_permutex2var_epi16(a, _mm512_add_epi16(lo_idx, _mm512_set1_epi16(1)), b);
    const __mmask32 carry = _mm512_cmplt_epu16_mask(_mm512_add_epi16(lo, w), w);
    const __mmask32 isnan = _mm512_kunpackw((__mmask32)_mm512_fpclass_ps_mask(_mm512_castsi512_ps(b), 0x81),
                                            (__mmask32)_mm512_fpclass_ps_mask(_mm512_castsi512_ps(a), 0x81));
    __m512i out = _mm512_mask_sub_epi16(hi, carry, hi, _mm512_set1_epi16(-1));
    if (sat) /* signed min clamps the positive codes only, unsigned min then the negative ones */
        out = _mm512_min_epu16(_mm512_min_epi16(out, _mm512_set1_epi16((short)max)),
                               _mm512_set1_epi16((short)(max | 0x8000u)));
    _mm512_storeu_si512(p, _mm512_mask_mov_epi16(out, isnan, _mm512_set1_epi16((short)nan)));
}
/* 2 * MF_VL 16-bit codes, a's then b's, with one pack */
MF_V void v_store_u16x2(void *p, vu a, vu b)
{
    _mm512_storeu_si512(p, _mm512_permutexvar_epi64(_mm512_set_epi64(7, 5, 3, 1, 6, 4, 2, 0), _mm512_packus_epi32(a, b)));
}
/* Four vectors of codes 0..255, in order, as 4 * MF_VL bytes: two packs and one dword permutation
 * (cheaper than four vpmovdb). */
MF_V void v_store_u8x4(void *p, vu a, vu b, vu c, vu d)
{
    const __m512i idx = _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
    __m512i w = _mm512_packus_epi16(_mm512_packus_epi32(a, b), _mm512_packus_epi32(c, d));
    _mm512_storeu_si512(p, _mm512_permutexvar_epi32(idx, w));
}
/* The same for four vectors of codes -128..127 (the table kernels' FNUZ codes, k_tab_select): signed packs, so
 * that a lane's low byte is its code. */
MF_V void v_store_i8x4(void *p, vu a, vu b, vu c, vu d)
{
    const __m512i idx = _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
    __m512i w = _mm512_packs_epi16(_mm512_packs_epi32(a, b), _mm512_packs_epi32(c, d));
    _mm512_storeu_si512(p, _mm512_permutexvar_epi32(idx, w));
}
/* Four vectors of codes 0..15, in order, packed two per byte (element 2i in bits 0..3): 2 * MF_VL
 * bytes. After the packs each 16-bit word holds codes 2i (low byte) and 2i+1 (high byte), and
 * w | (w >> 4) has the pair's byte in its low byte. */
MF_V void v_store_u4x4(void *p, vu a, vu b, vu c, vu d)
{
    const __m512i idx = _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
    __m512i w = _mm512_permutexvar_epi32(idx, _mm512_packus_epi16(_mm512_packus_epi32(a, b), _mm512_packus_epi32(c, d)));
    _mm256_storeu_si256((__m256i *)p, _mm512_cvtepi16_epi8(_mm512_or_si512(w, _mm512_srli_epi16(w, 4))));
}
/* Eight vectors of codes 0..15 (128 elements), in order, two per byte: 64 bytes in one store. The
 * packs leave bytes whose adjacent pairs are (even element, odd element); vpmaddubsw by (1, 16) makes
 * each pair one value, a third pack makes those bytes, and one word permutation restores the order
 * (3 instructions fewer per 128 elements than two v_store_u4x4). */
MF_V void v_store_u4x8(void *p, const vu *c)
{
    static const uint16_t order[32] __attribute__((aligned(64))) = {
        0, 8, 16, 24, 1, 9, 17, 25, 2, 10, 18, 26, 3, 11, 19, 27, 4, 12, 20, 28, 5, 13, 21, 29, 6, 14, 22, 30, 7, 15, 23, 31};
    const __m512i pair = _mm512_set1_epi16(0x1001);
    __m512i b0 = _mm512_packus_epi16(_mm512_packus_epi32(c[0], c[1]), _mm512_packus_epi32(c[2], c[3]));
    __m512i b1 = _mm512_packus_epi16(_mm512_packus_epi32(c[4], c[5]), _mm512_packus_epi32(c[6], c[7]));
    __m512i pb = _mm512_packus_epi16(_mm512_maddubs_epi16(b0, pair), _mm512_maddubs_epi16(b1, pair));
    _mm512_storeu_si512(p, _mm512_permutexvar_epi16(_mm512_load_si512(order), pb));
}
MF_V void v_store_u4(void *p, vu a)
{
    __m128i b = _mm512_cvtepi32_epi8(a); /* 16 codes, one per byte */
    __m128i w = _mm_or_si128(_mm_and_si128(b, _mm_set1_epi16(0x000F)),
                             _mm_and_si128(_mm_srli_epi16(b, 4), _mm_set1_epi16(0x00F0)));
    _mm_storel_epi64((__m128i *)p, _mm_packus_epi16(w, w));
}

/* One Philox4x32 round on four blocks, with each block's words kept in the order (c0, c3, c2, c1)
 * between rounds and the round key in the odd lanes, (0, k1, 0, k0): then vpmuludq leaves
 * (lo p0, hi p0, lo p1, hi p1), one masked ternary-logic op xors c3 ^ k1 into hi p0 and c1 ^ k0 into
 * hi p1, giving (n3, n2, n1, n0), and one shuffle puts that back in the same order: three
 * operations a round instead of four. The last round's shuffle gives the plain order (n0..n3). */
#define V_PHILOX_ORDER_0321 1
MF_V vu v_philox_round_(vu c, vu key, const int last)
{
    const vu mul = _mm512_set_epi32(0, (int)0xCD9E8D57u, 0, (int)0xD2511F53u, 0, (int)0xCD9E8D57u, 0, (int)0xD2511F53u,
                                    0, (int)0xCD9E8D57u, 0, (int)0xD2511F53u, 0, (int)0xCD9E8D57u, 0, (int)0xD2511F53u);
    vu p = _mm512_mul_epu32(c, mul);
    vu t = _mm512_mask_ternarylogic_epi32(p, (__mmask16)0xAAAA, c, key, 0x96);
    return last ? _mm512_shuffle_epi32(t, (_MM_PERM_ENUM)0x1B) : _mm512_shuffle_epi32(t, (_MM_PERM_ENUM)0x93);
}
MF_V vu v_philox_round(vu c, vu key) { return v_philox_round_(c, key, 0); }
MF_V vu v_philox_last(vu c, vu key) { return v_philox_round_(c, key, 1); }

/* Philox counter step: MF_VL / 4 = 4 blocks, added to the low counter word of each block. */
MF_V vu v_philox_step(void) { return _mm512_set_epi32(0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 4); }
MF_V int m_any(vm a) { return a != 0; }
/* Stochastic rounding's random bits for element vector p of one vector of stream words, when each
 * element takes 16 (or 8) bits: 16-bit (byte) units p * MF_VL .. p * MF_VL + MF_VL - 1 of the words,
 * in little-endian order, each zero-extended to its lane. */
MF_V vu v_sr_part16(vu w, const int p)
{
    return _mm512_cvtepu16_epi32(p ? _mm512_extracti64x4_epi64(w, 1) : _mm512_castsi512_si256(w));
}
#ifdef V_HAS_VBMI /* one vpermb, bytes 16p .. 16p + 15 to the lanes' low bytes */
MF_V vu v_sr_part8(vu w, const int p)
{
    const __m512i idx = _mm512_add_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                         _mm512_set1_epi32(16 * p));
    return _mm512_maskz_permutexvar_epi8((__mmask64)0x1111111111111111ull, idx, w);
}
#else
MF_V vu v_sr_part8(vu w, const int p)
{
    __m128i q = p == 0 ? _mm512_castsi512_si128(w)
              : p == 1 ? _mm512_extracti32x4_epi32(w, 1)
              : p == 2 ? _mm512_extracti32x4_epi32(w, 2)
                       : _mm512_extracti32x4_epi32(w, 3);
    return _mm512_cvtepu8_epi32(q);
}
#endif

/* Copy one 64-byte line to a 64-byte-aligned destination with a non-temporal store. */
MF_V void v_stream_line(void *dst, const void *src)
{
    _mm256_stream_si256((__m256i *)dst, _mm256_loadu_si256((const __m256i *)src));
    _mm256_stream_si256((__m256i *)dst + 1, _mm256_loadu_si256((const __m256i *)src + 1));
}

#endif /* MF_X86_VEC_AVX512_H */
