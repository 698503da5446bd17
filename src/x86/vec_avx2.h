/* SPDX-License-Identifier: MIT */
/* src/x86/vec_avx2.h - the vector vocabulary of the kernels, for AVX2 (+F16C, FMA).
 *
 * 8 lanes of 32 bits; a mask is a vector of all-ones / all-zero lanes. Same names as vec_avx512.h.
 */
#ifndef MF_X86_VEC_AVX2_H
#define MF_X86_VEC_AVX2_H

#include <immintrin.h>

#include "vec_env.h"
#include <stdint.h>

#define MF_VL 8
#define MF_V __attribute__((always_inline)) static inline

typedef __m256i vu;
typedef __m256i vm;

MF_V vu v_set1(uint32_t x) { return _mm256_set1_epi32((int)x); }
MF_V vu v_zero(void) { return _mm256_setzero_si256(); }
/* (a, b, c, d) in every group of four lanes */
MF_V vu v_set4(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    return _mm256_broadcastsi128_si256(_mm_set_epi32((int)d, (int)c, (int)b, (int)a));
}
MF_V vu v_lane_index(void) { return _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0); }

MF_V vu v_and(vu a, vu b) { return _mm256_and_si256(a, b); }
MF_V vu v_or(vu a, vu b) { return _mm256_or_si256(a, b); }
MF_V vu v_xor(vu a, vu b) { return _mm256_xor_si256(a, b); }
MF_V vu v_or_and(vu a, vu b, vu c) { return _mm256_or_si256(a, _mm256_and_si256(b, c)); } /* a | (b & c) */
MF_V vu v_add(vu a, vu b) { return _mm256_add_epi32(a, b); }
MF_V vu v_sub(vu a, vu b) { return _mm256_sub_epi32(a, b); }
#define v_srli(a, n) _mm256_srli_epi32((a), (n))
#define v_slli(a, n) _mm256_slli_epi32((a), (n))
MF_V vu v_srlv(vu a, vu n) { return _mm256_srlv_epi32(a, n); }
MF_V vu v_sllv(vu a, vu n) { return _mm256_sllv_epi32(a, n); }
MF_V vu v_mullo(vu a, vu b) { return _mm256_mullo_epi32(a, b); }
MF_V vu v_min_u(vu a, vu b) { return _mm256_min_epu32(a, b); }
MF_V vu v_max_u(vu a, vu b) { return _mm256_max_epu32(a, b); }
MF_V vu v_max_i(vu a, vu b) { return _mm256_max_epi32(a, b); }

/* Unsigned order through the signed compare: flip the top bit of both sides. */
/* binary32 addition and subtraction of bit patterns (rounded per MXCSR, which the backend sets) */
MF_V vu v_fadd(vu a, vu b) { return _mm256_castps_si256(_mm256_add_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b))); }
MF_V vu v_fsub(vu a, vu b) { return _mm256_castps_si256(_mm256_sub_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b))); }

MF_V vm v_gt_u(vu a, vu b)
{
    const vu t = _mm256_set1_epi32((int)0x80000000u);
    return _mm256_cmpgt_epi32(_mm256_xor_si256(a, t), _mm256_xor_si256(b, t));
}
MF_V vm v_eq(vu a, vu b) { return _mm256_cmpeq_epi32(a, b); }
MF_V vm v_gt_s(vu a, vu b) { return _mm256_cmpgt_epi32(a, b); } /* as signed: one instruction where v_gt_u takes three */
MF_V vm v_ne(vu a, vu b) { return _mm256_xor_si256(_mm256_cmpeq_epi32(a, b), _mm256_set1_epi32(-1)); }
MF_V vm v_lt_u(vu a, vu b) { return v_gt_u(b, a); }
MF_V vm v_ge_u(vu a, vu b) { return _mm256_cmpeq_epi32(_mm256_max_epu32(a, b), a); }
MF_V vm v_nonzero(vu a) { return v_ne(a, _mm256_setzero_si256()); }
MF_V vm v_test(vu a, vu b) { return v_nonzero(_mm256_and_si256(a, b)); }
/* the lanes that hold a binary32 NaN */
MF_V vm v_isnan(vu a) { return v_gt_u(_mm256_and_si256(a, _mm256_set1_epi32(0x7FFFFFFF)), _mm256_set1_epi32(0x7F800000)); }

MF_V vm m_and(vm a, vm b) { return _mm256_and_si256(a, b); }
MF_V vm m_or(vm a, vm b) { return _mm256_or_si256(a, b); }
MF_V vm m_andnot(vm a, vm b) { return _mm256_andnot_si256(a, b); } /* !a && b */
MF_V vm m_none(void) { return _mm256_setzero_si256(); }
MF_V vm m_first(unsigned n) { return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), v_lane_index()); }
MF_V uint64_t m_count(vm a) { return (uint64_t)__builtin_popcount((unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(a))); }

/* m ? b : a */
MF_V vu v_blend(vm m, vu a, vu b) { return _mm256_blendv_epi8(a, b, m); }
/* s's sign bit set ? b : a, lane by lane (one vblendvps: no mask to build) */
MF_V vu v_blend_neg(vu s, vu a, vu b)
{
    return _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), _mm256_castsi256_ps(s)));
}
/* a + (m ? 1 : 0): a mask lane is -1 */
MF_V vu v_add_m1(vm m, vu a) { return _mm256_sub_epi32(a, m); }
MF_V vu v_or_m1(vm m, vu a) { return _mm256_or_si256(a, _mm256_srli_epi32(m, 31)); }

/* x * 2^k for small unsigned x, exactly (see vec_avx512.h); returns the binary32 bits. */
MF_V vu v_u32_times_pow2(vu x, int k)
{
    __m256 s = _mm256_castsi256_ps(_mm256_set1_epi32((127 + k) << 23));
    return _mm256_castps_si256(_mm256_mul_ps(_mm256_cvtepi32_ps(x), s));
}

MF_V vu v_load_u32(const void *p) { return _mm256_loadu_si256((const __m256i *)p); }
MF_V vu v_load_u16(const void *p) { return _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p)); }
MF_V vu v_load_u8(const void *p) { return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p)); }
/* 4 bytes of packed e2m1 pairs. */
MF_V vu v_load_u4(const void *p)
{
    int32_t w;
    __m128i b, lo, hi;
    __builtin_memcpy(&w, p, 4);
    b = _mm_cvtsi32_si128(w);
    lo = _mm_and_si128(b, _mm_set1_epi8(0x0F));
    hi = _mm_and_si128(_mm_srli_epi16(b, 4), _mm_set1_epi8(0x0F));
    return _mm256_cvtepu8_epi32(_mm_unpacklo_epi8(lo, hi));
}

MF_V void v_store_u32(void *p, vu a) { _mm256_storeu_si256((__m256i *)p, a); }
MF_V __m128i v__pack16(vu a) /* low 16 bits of each lane, in order */
{
    __m256i m = _mm256_and_si256(a, _mm256_set1_epi32(0xFFFF));
    return _mm_packus_epi32(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
}
MF_V void v_store_u16(void *p, vu a) { _mm_storeu_si128((__m128i *)p, v__pack16(a)); }
/* 2 * MF_VL 16-bit codes, a's then b's */
MF_V void v_store_u16x2(void *p, vu a, vu b)
{
    v_store_u16(p, a);
    v_store_u16((uint16_t *)p + MF_VL, b);
}
MF_V void v_store_u8(void *p, vu a)
{
    __m128i w = _mm_and_si128(v__pack16(a), _mm_set1_epi16(0xFF));
    _mm_storel_epi64((__m128i *)p, _mm_packus_epi16(w, w));
}
/* Four vectors of codes 0..255, in order, as 4 * MF_VL bytes (two packs, one dword permutation). */
MF_V void v_store_u8x4(void *p, vu a, vu b, vu c, vu d)
{
    __m256i w = _mm256_packus_epi16(_mm256_packus_epi32(a, b), _mm256_packus_epi32(c, d));
    _mm256_storeu_si256((__m256i *)p, _mm256_permutevar8x32_epi32(w, _mm256_set_epi32(7, 3, 6, 2, 5, 1, 4, 0)));
}
/* Four vectors of codes 0..15, in order, packed two per byte (element 2i in bits 0..3): 2 * MF_VL
 * bytes (see vec_avx512.h). */
MF_V void v_store_u4x4(void *p, vu a, vu b, vu c, vu d)
{
    __m256i w = _mm256_packus_epi16(_mm256_packus_epi32(a, b), _mm256_packus_epi32(c, d));
    w = _mm256_permutevar8x32_epi32(w, _mm256_set_epi32(7, 3, 6, 2, 5, 1, 4, 0));
    w = _mm256_and_si256(_mm256_or_si256(w, _mm256_srli_epi16(w, 4)), _mm256_set1_epi16(0xFF));
    _mm_storeu_si128((__m128i *)p, _mm_packus_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1)));
}
MF_V void v_store_u4(void *p, vu a)
{
    __m128i w = _mm_and_si128(v__pack16(a), _mm_set1_epi16(0xFF));
    __m128i b = _mm_packus_epi16(w, w); /* 8 codes, one per byte */
    __m128i pr = _mm_or_si128(_mm_and_si128(b, _mm_set1_epi16(0x000F)),
                              _mm_and_si128(_mm_srli_epi16(b, 4), _mm_set1_epi16(0x00F0)));
    int32_t out = _mm_cvtsi128_si32(_mm_packus_epi16(pr, pr));
    __builtin_memcpy(p, &out, 4);
}

/* One Philox4x32 round on two blocks at once (see vec_avx512.h). */
MF_V vu v_philox_round(vu c, vu key)
{
    const vu mul = _mm256_set_epi32(0, (int)0xCD9E8D57u, 0, (int)0xD2511F53u, 0, (int)0xCD9E8D57u, 0, (int)0xD2511F53u);
    const vu even = _mm256_set_epi32(0, -1, 0, -1, 0, -1, 0, -1);
    vu p = _mm256_mul_epu32(c, mul);
    vu sp = _mm256_shuffle_epi32(p, 0x1B);
    vu sc = _mm256_and_si256(_mm256_shuffle_epi32(c, 0x31), even);
    return _mm256_xor_si256(_mm256_xor_si256(sp, sc), key);
}

MF_V vu v_philox_last(vu c, vu key) { return v_philox_round(c, key); }

/* Philox counter step: MF_VL / 4 = 2 blocks, added to the low counter word of each block. */
MF_V vu v_philox_step(void) { return _mm256_set_epi32(0, 0, 0, 2, 0, 0, 0, 2); }
MF_V int m_any(vm a) { return !_mm256_testz_si256(a, a); }
/* Stochastic rounding's random bits for element vector p of one vector of stream words (see
 * vec_avx512.h). */
MF_V vu v_sr_part16(vu w, const int p)
{
    return _mm256_cvtepu16_epi32(p ? _mm256_extracti128_si256(w, 1) : _mm256_castsi256_si128(w));
}
MF_V vu v_sr_part8(vu w, const int p)
{
    __m128i h = p < 2 ? _mm256_castsi256_si128(w) : _mm256_extracti128_si256(w, 1);
    return _mm256_cvtepu8_epi32((p & 1) ? _mm_srli_si128(h, 8) : h);
}


/* Copy one 64-byte line to a 64-byte-aligned destination with non-temporal stores. */
MF_V void v_stream_line(void *dst, const void *src)
{
    _mm256_stream_si256((__m256i *)dst, _mm256_loadu_si256((const __m256i *)src));
    _mm256_stream_si256((__m256i *)dst + 1, _mm256_loadu_si256((const __m256i *)src + 1));
}

#endif /* MF_X86_VEC_AVX2_H */
