/* SPDX-License-Identifier: MIT */
/* src/arm/vec_neon.h - the vector vocabulary of the kernels, for AArch64 Advanced SIMD (NEON).
 *
 * 4 lanes of 32 bits; a mask is a vector of all-ones / all-zero lanes. Same names as the x86
 * vocabularies (src/x86/vec_avx2.h says what each does), plus the binary32 environment: FPCR.
 */
#ifndef MF_ARM_VEC_NEON_H
#define MF_ARM_VEC_NEON_H

#include <arm_neon.h>
#include <stdint.h>
#include <string.h>

#define MF_VL 4
#define MF_V __attribute__((always_inline)) static inline

typedef uint32x4_t vu;
typedef uint32x4_t vm;

/* ---- the binary32 environment: FPCR ----------------------------------------------------------------
 * bk_blocked (src/simd/path_blocked.h) writes (fpcr & ~V_CSR_OWN) | V_CSR_BASE | <rounding>. Owned: RMode (22-23), FZ (24),
 * DN (25: default NaN would replace the payloads that f16 -> f32 and f32 -> f64 keep), AHP (26: the
 * alternative half-precision format), FZ16 (19), the trap enables (8-12, 15) and FEAT_AFP's FIZ, AH and
 * NEP (0-2; RES0 without it, so writing 0 is always allowed). All clear: IEEE behaviour, rn. */
#define V_CSR_OWN 0x07C89F07u
#define V_CSR_BASE 0x0u
#define V_CSR_RN 0x0u
#define V_CSR_RU 0x00400000u
#define V_CSR_RD 0x00800000u
#define V_CSR_RZ 0x00C00000u

MF_V unsigned v_csr_get(void)
{
    uint64_t r;
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(r));
    return (unsigned)r;
}
/* The "memory" clobber keeps the compiler from moving loads, stores or calls across the write; the
 * kernels' arithmetic reads FPCR only through the instructions that follow it in program order. */
MF_V void v_csr_set(unsigned c)
{
    const uint64_t r = c;
    __asm__ __volatile__("msr fpcr, %0" : : "r"(r) : "memory");
}
MF_V void v_prefetch(const void *p) { __builtin_prefetch(p, 0, 3); }
MF_V void v_stream_fence(void) {} /* v_stream_line uses ordinary stores */

MF_V vu v_set1(uint32_t x) { return vdupq_n_u32(x); }
MF_V vu v_zero(void) { return vdupq_n_u32(0); }
MF_V vu v_set4(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    const uint32_t t[4] = {a, b, c, d};
    return vld1q_u32(t);
}
MF_V vu v_lane_index(void) { return v_set4(0, 1, 2, 3); }

MF_V vu v_and(vu a, vu b) { return vandq_u32(a, b); }
MF_V vu v_or(vu a, vu b) { return vorrq_u32(a, b); }
MF_V vu v_xor(vu a, vu b) { return veorq_u32(a, b); }
MF_V vu v_or_and(vu a, vu b, vu c) { return vorrq_u32(a, vandq_u32(b, c)); } /* a | (b & c) */
MF_V vu v_add(vu a, vu b) { return vaddq_u32(a, b); }
MF_V vu v_sub(vu a, vu b) { return vsubq_u32(a, b); }
/* shifts by 0..31 (the kernels' immediate counts); a count of 32 or more gives 0, as on x86 */
#define v_srli(a, n) ((n) >= 32 ? vdupq_n_u32(0) : vshlq_u32((a), vdupq_n_s32(-(int)(n))))
#define v_slli(a, n) ((n) >= 32 ? vdupq_n_u32(0) : vshlq_u32((a), vdupq_n_s32((int)(n))))
/* USHL reads a count's low byte as signed: the counts are clamped to 32 first, which gives 0 for
 * every count of 32 or more, as vpsrlvd / vpsllvd do */
MF_V vu v_srlv(vu a, vu n)
{
    return vshlq_u32(a, vnegq_s32(vreinterpretq_s32_u32(vminq_u32(n, vdupq_n_u32(32)))));
}
MF_V vu v_sllv(vu a, vu n) { return vshlq_u32(a, vreinterpretq_s32_u32(vminq_u32(n, vdupq_n_u32(32)))); }
MF_V vu v_mullo(vu a, vu b) { return vmulq_u32(a, b); }
MF_V vu v_min_u(vu a, vu b) { return vminq_u32(a, b); }
MF_V vu v_max_u(vu a, vu b) { return vmaxq_u32(a, b); }
MF_V vu v_max_i(vu a, vu b)
{
    return vreinterpretq_u32_s32(vmaxq_s32(vreinterpretq_s32_u32(a), vreinterpretq_s32_u32(b)));
}

/* binary32 addition and subtraction of bit patterns (rounded per FPCR, which the backend sets) */
MF_V vu v_fadd(vu a, vu b)
{
    return vreinterpretq_u32_f32(vaddq_f32(vreinterpretq_f32_u32(a), vreinterpretq_f32_u32(b)));
}
MF_V vu v_fsub(vu a, vu b)
{
    return vreinterpretq_u32_f32(vsubq_f32(vreinterpretq_f32_u32(a), vreinterpretq_f32_u32(b)));
}

MF_V vm v_gt_u(vu a, vu b) { return vcgtq_u32(a, b); }
MF_V vm v_eq(vu a, vu b) { return vceqq_u32(a, b); }
MF_V vm v_gt_s(vu a, vu b) { return vcgtq_s32(vreinterpretq_s32_u32(a), vreinterpretq_s32_u32(b)); } /* as signed */
MF_V vm v_ne(vu a, vu b) { return vmvnq_u32(vceqq_u32(a, b)); }
MF_V vm v_lt_u(vu a, vu b) { return vcltq_u32(a, b); }
MF_V vm v_ge_u(vu a, vu b) { return vcgeq_u32(a, b); }
MF_V vm v_nonzero(vu a) { return vtstq_u32(a, a); }
MF_V vm v_test(vu a, vu b) { return vtstq_u32(a, b); }
MF_V vm v_isnan(vu a) { return vcgtq_u32(vandq_u32(a, vdupq_n_u32(0x7FFFFFFFu)), vdupq_n_u32(0x7F800000u)); }

MF_V vm m_and(vm a, vm b) { return vandq_u32(a, b); }
MF_V vm m_or(vm a, vm b) { return vorrq_u32(a, b); }
MF_V vm m_andnot(vm a, vm b) { return vbicq_u32(b, a); } /* !a && b */
MF_V vm m_none(void) { return vdupq_n_u32(0); }
MF_V vm m_first(unsigned n) { return vcltq_u32(v_lane_index(), vdupq_n_u32(n)); }
MF_V uint64_t m_count(vm a) { return vaddvq_u32(vshrq_n_u32(a, 31)); }
MF_V int m_any(vm a) { return vmaxvq_u32(a) != 0; }

/* m ? b : a */
MF_V vu v_blend(vm m, vu a, vu b) { return vbslq_u32(m, b, a); }
/* s's sign bit set ? b : a */
MF_V vu v_blend_neg(vu s, vu a, vu b) { return vbslq_u32(vreinterpretq_u32_s32(vshrq_n_s32(vreinterpretq_s32_u32(s), 31)), b, a); }
/* a + (m ? 1 : 0): a mask lane is -1 */
MF_V vu v_add_m1(vm m, vu a) { return vsubq_u32(a, m); }
MF_V vu v_or_m1(vm m, vu a) { return vorrq_u32(a, vshrq_n_u32(m, 31)); }

/* x * 2^k for small unsigned x, exactly; returns the binary32 bits */
MF_V vu v_u32_times_pow2(vu x, int k)
{
    const float32x4_t s = vreinterpretq_f32_u32(vdupq_n_u32((uint32_t)(127 + k) << 23));
    return vreinterpretq_u32_f32(vmulq_f32(vcvtq_f32_u32(x), s));
}

/* ---- loads and stores: MF_VL elements, each access exactly its own bytes ---------------------------- */
MF_V vu v_load_u32(const void *p) { return vld1q_u32((const uint32_t *)p); }
MF_V vu v_load_u16(const void *p)
{
    uint16_t t[4];
    memcpy(t, p, sizeof t);
    return vmovl_u16(vld1_u16(t));
}
MF_V vu v_load_u8(const void *p)
{
    uint32_t w;
    memcpy(&w, p, 4);
    return vmovl_u16(vget_low_u16(vmovl_u8(vreinterpret_u8_u32(vdup_n_u32(w)))));
}
/* 2 bytes of packed e2m1 pairs: element 2i in bits 0..3 of byte i */
MF_V vu v_load_u4(const void *p)
{
    const uint8_t *b = (const uint8_t *)p;
    return v_set4(b[0] & 0xFu, b[0] >> 4, b[1] & 0xFu, b[1] >> 4);
}

MF_V void v_store_u32(void *p, vu a) { vst1q_u32((uint32_t *)p, a); }
MF_V void v_store_u16(void *p, vu a)
{
    uint16_t t[4];
    vst1_u16(t, vmovn_u32(a));
    memcpy(p, t, sizeof t);
}
/* 2 * MF_VL 16-bit codes, a's then b's */
MF_V void v_store_u16x2(void *p, vu a, vu b)
{
    uint16_t t[8];
    vst1q_u16(t, vcombine_u16(vmovn_u32(a), vmovn_u32(b)));
    memcpy(p, t, sizeof t);
}
MF_V void v_store_u8(void *p, vu a)
{
    const uint8x8_t b = vmovn_u16(vcombine_u16(vmovn_u32(a), vmovn_u32(a)));
    const uint32_t w = vget_lane_u32(vreinterpret_u32_u8(b), 0);
    memcpy(p, &w, 4);
}
MF_V uint8x16_t v__bytes4(vu a, vu b, vu c, vu d) /* four vectors of codes 0..255, in order */
{
    return vcombine_u8(vmovn_u16(vcombine_u16(vmovn_u32(a), vmovn_u32(b))),
                       vmovn_u16(vcombine_u16(vmovn_u32(c), vmovn_u32(d))));
}
MF_V void v_store_u8x4(void *p, vu a, vu b, vu c, vu d)
{
    uint8_t t[16];
    vst1q_u8(t, v__bytes4(a, b, c, d));
    memcpy(p, t, sizeof t);
}
/* Four vectors of codes 0..15, in order, packed two per byte (element 2i in bits 0..3): each 16-bit
 * lane of the bytes holds (even, odd); lane | lane >> 4 has the pair in its low byte */
MF_V void v_store_u4x4(void *p, vu a, vu b, vu c, vu d)
{
    const uint16x8_t w = vreinterpretq_u16_u8(v__bytes4(a, b, c, d));
    uint8_t t[8];
    vst1_u8(t, vmovn_u16(vorrq_u16(w, vshrq_n_u16(w, 4))));
    memcpy(p, t, sizeof t);
}
MF_V void v_store_u4(void *p, vu a)
{
    uint8_t *b = (uint8_t *)p;
    uint32_t t[4];
    vst1q_u32(t, a);
    b[0] = (uint8_t)(t[0] | t[1] << 4);
    b[1] = (uint8_t)(t[2] | t[3] << 4);
}

/* ---- Philox4x32 ----------------------------------------------------------------------------------------
 * One round on one block (c0, c1, c2, c3), keys in lanes 0 and 2 (kernels.h): (hi(c2 M1) ^ c1 ^ k0,
 * lo(c2 M1), hi(c0 M0) ^ c3 ^ k1, lo(c0 M0)). The products are taken as (c2 M1, c0 M0), so that one
 * rev64 puts their halves in place. */
MF_V vu v_philox_round(vu c, vu key)
{
    static const uint32_t mul[2] = {0xCD9E8D57u, 0xD2511F53u};
    const uint32x2_t x = vmovn_u64(vreinterpretq_u64_u32(vextq_u32(c, c, 2))); /* (c2, c0) */
    const uint32x4_t p = vreinterpretq_u32_u64(vmull_u32(x, vld1_u32(mul)));  /* lo1 hi1 lo0 hi0 */
    const uint32x4_t sc = vreinterpretq_u32_u64(vshrq_n_u64(vreinterpretq_u64_u32(c), 32)); /* c1 0 c3 0 */
    return veorq_u32(veorq_u32(vrev64q_u32(p), sc), key);
}
MF_V vu v_philox_last(vu c, vu key) { return v_philox_round(c, key); }
/* Philox counter step: MF_VL / 4 = 1 block, added to the block's low counter word */
MF_V vu v_philox_step(void) { return v_set4(1, 0, 0, 0); }

/* Stochastic rounding's random bits for element vector p of one vector of stream words: 16-bit
 * slices 4p .. 4p + 3, or bytes 4p .. 4p + 3, zero-extended */
MF_V vu v_sr_part16(vu w, const int p)
{
    const uint16x8_t h = vreinterpretq_u16_u32(w);
    return p ? vmovl_high_u16(h) : vmovl_u16(vget_low_u16(h));
}
MF_V vu v_sr_part8(vu w, const int p)
{
    const uint8x16_t b = vreinterpretq_u8_u32(w);
    const uint16x8_t h = vmovl_u8(p < 2 ? vget_low_u8(b) : vget_high_u8(b));
    return (p & 1) ? vmovl_high_u16(h) : vmovl_u16(vget_low_u16(h));
}

/* Copy one 64-byte line (ordinary stores: the streaming copy's caller needs no fence here) */
MF_V void v_stream_line(void *dst, const void *src)
{
    const uint8_t *s = (const uint8_t *)src;
    uint8_t *d = (uint8_t *)dst;
    vst1q_u8(d, vld1q_u8(s));
    vst1q_u8(d + 16, vld1q_u8(s + 16));
    vst1q_u8(d + 32, vld1q_u8(s + 32));
    vst1q_u8(d + 48, vld1q_u8(s + 48));
}

#endif /* MF_ARM_VEC_NEON_H */
