/* SPDX-License-Identifier: MIT */
/* src/simd/backend_kernels.h - what a backend's round kernels need: the hooks' defaults that they
 * call, the f16/bf16 instruction loops, the table kernels' constants and bk_round_loop, the one
 * block loop binary32 -> destination that round.c instantiates once per (backend, destination).
 * Included after the backend's configuration header (vocabulary, kernels.h, its hooks). */
#ifndef MF_SIMD_BACKEND_KERNELS_H
#define MF_SIMD_BACKEND_KERNELS_H

#include <string.h>

#include "kernels.h"

#define BK_CAT2(a, b) a##b
#define BK_CAT(a, b) BK_CAT2(a, b)
#define BK_STR2(a) #a
#define BK_STR(a) BK_STR2(a)

#ifndef BK_HW_BF16
#define BK_HW_BF16 0
/* no bf16 instruction in this backend (never called) */
MF_V vm hw_bf16_special(vu u) { return v_nonzero(u); }
MF_V void hw_bf16_fix(uint16_t *p, vu u)
{
    v_store_u16(p, k_round_bf16(u, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, v_zero()));
}
MF_V void hw_bf16_plain(uint16_t *p, vu u) { hw_bf16_fix(p, u); }
MF_V int hw_bf16_direct_ok(void) { return 0; }
MF_V void hw_bf16_plain2(uint16_t *p, vu u, vu v)
{
    hw_bf16_fix(p, u);
    hw_bf16_fix(p + MF_VL, v);
}
#endif

#ifndef BK_HW_F16_ACC
#define BK_HW_F16_ACC 0 /* no block-wise NaN test for f32 -> f16 (never called) */
MF_V vu hw_f16_acc(vu a, vu u, vu v) { return v_or(a, v_or(u, v)); }
#endif
#ifndef BK_HW_F16_CODES
#define BK_HW_F16_CODES 0 /* no block-wise test of the stored codes (never called) */
typedef vu bk_codes_acc;
MF_V void hw_f16_plain2_max(uint16_t *p, vu u, vu v, const mf_round r, vu *hi, vu *hu)
{
    (void)p, (void)u, (void)v, (void)r, (void)hi, (void)hu;
}
MF_V int hw_f16_special_codes(vu hi, vu hu)
{
    (void)hi, (void)hu;
    return 1;
}
#define BK_CODES_LEAST(is_signed) v_zero()
#else
typedef __m512i bk_codes_acc;
/* the least 16-bit value, signed or unsigned: where the maxima start */
#define BK_CODES_LEAST(is_signed) ((is_signed) ? _mm512_set1_epi16((short)0x8000) : _mm512_setzero_si512())
#endif

/* MF_VL binary32 values from a binary32, f16 or bf16 source, widened exactly in registers. */
MF_V vu bk_load32(const mf_format S, const void *src, size_t i)
{
    if (S == MF_FP16)
        return hw_f16_to_f32((const uint16_t *)src + i);
    if (S == MF_BF16)
        return v_slli(v_load_u16((const uint16_t *)src + i), 16);
    return v_load_u32((const uint32_t *)src + i);
}

/* MF_VL f16 or bf16 codes at p with the infinities made +-max (the code below them) */
MF_V void bk_hw16_sat(uint16_t *p, const int bf16)
{
    const uint32_t inf = (uint32_t)mf__fmt_inf_code(mf__fmt_get(bf16 ? MF_BF16 : MF_FP16));
    const vu c = v_load_u16(p);
    v_store_u16(p, v_blend(v_eq(v_and(c, v_set1(0x7FFFu)), v_set1(inf)), c, v_sub(c, v_set1(1))));
}

/* Binary32 bits with |x| in (max, inf] made +-max, NaNs kept (integer operations: no flag, no DAZ). A
 * saturating conversion gives +-max for those in every mode, and rounds every |x| <= max as the IEEE
 * conversion does, so the instruction on the clamped value gives the saturating code: rn and rz of
 * max < |x| < the first overflowing value are max anyway, ru/rd toward the range are max too, and an
 * infinity saturates to max as bk_hw16_sat makes it. Cheaper than mending the codes after (bk_hw16_sat):
 * no second pass over the stored codes. */
MF_V vu bk_hw16_clamp(vu u, const uint32_t maxbits)
{
#ifdef BK_HW_CLAMP_PS /* the backend's floating-point clamp (fewer instructions) */
    return hw_clamp_ps(u, maxbits);
#endif
    const vu a = v_and(u, v_set1(0x7FFFFFFFu));
    const vu c = v_blend(v_gt_u(a, v_set1(0x7F800000u)), v_min_u(a, v_set1(maxbits)), a);
    return v_or(c, v_xor(u, a));
}

/* The hardware conversions, four vectors a step: one test for the lanes they get wrong (for f16,
 * one comparison per two vectors: the instruction count per element is what limits this loop). From a
 * binary32, f16 or bf16 source (S, widened in registers); sat: the saturating policy: binary32 inputs
 * are clamped to +-max before the instruction (bk_hw16_clamp); from f16 and bf16 sources the infinities
 * the instructions give become +-max, mended in the codes just stored (in L1). */
enum { BK_F16_BLK = 256 };
MF_V void bk_hw16_loop(const mf_format S, const int bf16, uint16_t *dst, const void *src, size_t n, const mf_round R,
                         const int sat, const mf__nan_marks *mk)
{
    const int clamp = sat && S == MF_FP32, mend = sat && !clamp;
    const uint32_t maxbits = k_max_bits(bf16 ? MF_BF16 : MF_FP16);
#define BK_LD(j) (clamp ? bk_hw16_clamp(bk_load32(S, src, (j)), maxbits) : bk_load32(S, src, (j)))
    size_t i = 0;
    /* f32 -> f16 in blocks of BK_F16_BLK stored plainly, then stored again (mended, or from clamped inputs) if the
     * block holds a lane the instruction gets wrong for us. IEEE: two accumulators of hw_f16_acc say NaN (one FMA
     * for two vectors: cheaper than a compare per two vectors, which competes with vcvtps2ph for a port on Intel:
     * docs/perf/tuning.md). Saturating: the block's codes folded into two maxima as they are stored (three
     * operations a pair of vectors, where a NaN accumulator and the largest |x| took five) say whether it holds
     * an inf or NaN code, which is exactly when it has an |x| that rounds beyond max, an inf or a NaN. */
    for (; BK_HW_F16_CODES && clamp && !bf16 && S == MF_FP32 && i + BK_F16_BLK <= n; i += BK_F16_BLK) {
        bk_codes_acc hi = BK_CODES_LEAST(1), hu = BK_CODES_LEAST(0);
        size_t j;
        for (j = i; j < i + BK_F16_BLK; j += 4 * MF_VL) {
            hw_f16_plain2_max(dst + j, bk_load32(S, src, j), bk_load32(S, src, j + MF_VL), R, &hi, &hu);
            hw_f16_plain2_max(dst + j + 2 * MF_VL, bk_load32(S, src, j + 2 * MF_VL),
                              bk_load32(S, src, j + 3 * MF_VL), R, &hi, &hu);
        }
        if (hw_f16_special_codes(hi, hu)) {
            for (j = i; j < i + BK_F16_BLK; j += MF_VL)
                hw_f16_fix(dst + j, BK_LD(j), R);
            if (mk)
                mk->mark(mk, i, i + BK_F16_BLK);
        }
    }
    for (; BK_HW_F16_ACC && !clamp && !bf16 && S == MF_FP32 && i + BK_F16_BLK <= n; i += BK_F16_BLK) {
        vu a0 = v_zero(), a1 = v_zero();
        size_t j;
        for (j = i; j < i + BK_F16_BLK; j += 4 * MF_VL) {
            const vu u0 = bk_load32(S, src, j), u1 = bk_load32(S, src, j + MF_VL);
            const vu u2 = bk_load32(S, src, j + 2 * MF_VL), u3 = bk_load32(S, src, j + 3 * MF_VL);
            a0 = hw_f16_acc(a0, u0, u1);
            a1 = hw_f16_acc(a1, u2, u3);
            hw_f16_plain(dst + j, u0, R);
            hw_f16_plain(dst + j + MF_VL, u1, R);
            hw_f16_plain(dst + j + 2 * MF_VL, u2, R);
            hw_f16_plain(dst + j + 3 * MF_VL, u3, R);
        }
        if (m_any(hw_f16_special2(a0, a1))) {
            for (j = i; j < i + BK_F16_BLK; j += MF_VL)
                hw_f16_fix(dst + j, bk_load32(S, src, j), R);
            if (mk)
                mk->mark(mk, i, i + BK_F16_BLK);
        }
    }
    for (; i + 4 * MF_VL <= n; i += 4 * MF_VL) {
        vu u0 = BK_LD(i), u1 = BK_LD(i + MF_VL);
        vu u2 = BK_LD(i + 2 * MF_VL), u3 = BK_LD(i + 3 * MF_VL);
        vm sp = bf16 ? m_or(m_or(hw_bf16_special(u0), hw_bf16_special(u1)), m_or(hw_bf16_special(u2), hw_bf16_special(u3)))
                     : m_or(hw_f16_special2(u0, u1), hw_f16_special2(u2, u3));
        if (!m_any(sp)) {
            if (bf16) {
                hw_bf16_plain2(dst + i, u0, u1);
                hw_bf16_plain2(dst + i + 2 * MF_VL, u2, u3);
            } else {
                hw_f16_plain(dst + i, u0, R);
                hw_f16_plain(dst + i + MF_VL, u1, R);
                hw_f16_plain(dst + i + 2 * MF_VL, u2, R);
                hw_f16_plain(dst + i + 3 * MF_VL, u3, R);
            }
        } else if (bf16) {
            hw_bf16_fix(dst + i, u0);
            hw_bf16_fix(dst + i + MF_VL, u1);
            hw_bf16_fix(dst + i + 2 * MF_VL, u2);
            hw_bf16_fix(dst + i + 3 * MF_VL, u3);
        } else {
            hw_f16_fix(dst + i, u0, R);
            hw_f16_fix(dst + i + MF_VL, u1, R);
            hw_f16_fix(dst + i + 2 * MF_VL, u2, R);
            hw_f16_fix(dst + i + 3 * MF_VL, u3, R);
        }
        if (mend) {
            bk_hw16_sat(dst + i, bf16);
            bk_hw16_sat(dst + i + MF_VL, bf16);
            bk_hw16_sat(dst + i + 2 * MF_VL, bf16);
            bk_hw16_sat(dst + i + 3 * MF_VL, bf16);
        }
        if (mk && m_any(sp))
            mk->mark(mk, i, i + 4 * MF_VL);
    }
    for (; i < n; i += MF_VL) {
        if (bf16)
            hw_bf16_fix(dst + i, BK_LD(i));
        else
            hw_f16_fix(dst + i, BK_LD(i), R);
        if (mend)
            bk_hw16_sat(dst + i, bf16);
        if (mk)
            mk->mark(mk, i, i + MF_VL);
    }
#undef BK_LD
}

#ifdef V_HAS_TABLE32
/* The table kernels' constants, built once for each format that takes them (built at each call they
 * were a measurable part of a short call: docs/perf/tuning.md). bk_tabs_state: 0 not built, 1 being built by one
 * thread, 2 built and published; a thread that finds them being built makes its own copy in *spare. */
static k_rn_tab bk_tabs[MF_FORMAT_COUNT];
static int bk_tabs_state;

__attribute__((unused)) static const k_rn_tab *bk_tab(mf_format d, k_rn_tab *spare)
{
    int expect = 0, f;
    if (__atomic_load_n(&bk_tabs_state, __ATOMIC_ACQUIRE) == 2)
        return &bk_tabs[d];
    if (!__atomic_compare_exchange_n(&bk_tabs_state, &expect, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        *spare = k_rn_tab_make(d);
        return spare;
    }
    for (f = 0; f < MF_FORMAT_COUNT; f++)
        if (k_rn_tab_ok((mf_format)f))
            bk_tabs[f] = k_rn_tab_make((mf_format)f);
    __atomic_store_n(&bk_tabs_state, 2, __ATOMIC_RELEASE);
    return &bk_tabs[d];
}

/* Every mode but sr, either policy, no statistics, into a one-byte or e2m1 format (k_rn_tab_ok), four
 * vectors a step (e2m1: eight), from a binary32 source (f16 and bf16 sources have bk_w16) */
MF_V vu bk_tab_round(vu u, const mf_format D, const mf_round R, const mf_overflow O, const k_rn_tab *t)
{
    if (R == MF_ROUND_NEAREST_EVEN)
        return k_round_rn_tab(u, D, O, t);
    return k_round_dir_tab(u, D, R, O, t); /* rz anywhere; rna, ru, rd, ro under the backend's MXCSR only */
}

/* Four vectors of the table kernels' one-byte codes: 8-bit FNUZ-like codes are signed bytes (k_tab_select) */
MF_V void bk_store_tab8x4(const mf_format D, uint8_t *p, vu a, vu b, vu c, vu d)
{
    if (k_tab_signed_bytes(mf__fmt_get(D)))
        v_store_i8x4(p, a, b, c, d);
    else
        v_store_u8x4(p, a, b, c, d);
}

MF_V void bk_tab_loop(const mf_format S, const mf_format D, const mf_round R, const mf_overflow O, void *dst,
                        const void *src, size_t n)
{
    k_rn_tab spare;
    const k_rn_tab tab = *bk_tab(D, &spare);
    size_t i = 0;
    if (mf__fmt_store_bits(D) == 4) /* eight vectors a step: 64 bytes, packed with fewer instructions */
        for (; i + 8 * MF_VL <= n; i += 8 * MF_VL) {
            vu c[8];
            int j;
            for (j = 0; j < 8; j++)
                c[j] = bk_tab_round(bk_load32(S, src, i + (size_t)j * MF_VL), D, R, O, &tab);
            v_store_u4x8((uint8_t *)dst + i / 2, c);
        }
    for (; i + 4 * MF_VL <= n; i += 4 * MF_VL) {
        vu c0 = bk_tab_round(bk_load32(S, src, i), D, R, O, &tab);
        vu c1 = bk_tab_round(bk_load32(S, src, i + MF_VL), D, R, O, &tab);
        vu c2 = bk_tab_round(bk_load32(S, src, i + 2 * MF_VL), D, R, O, &tab);
        vu c3 = bk_tab_round(bk_load32(S, src, i + 3 * MF_VL), D, R, O, &tab);
        if (D == MF_FP16) {
            v_store_u16((uint16_t *)dst + i, c0);
            v_store_u16((uint16_t *)dst + i + MF_VL, c1);
            v_store_u16((uint16_t *)dst + i + 2 * MF_VL, c2);
            v_store_u16((uint16_t *)dst + i + 3 * MF_VL, c3);
        } else if (mf__fmt_store_bits(D) == 4)
            v_store_u4x4((uint8_t *)dst + i / 2, c0, c1, c2, c3);
        else
            bk_store_tab8x4(D, (uint8_t *)dst + i, c0, c1, c2, c3);
    }
    for (; i < n; i += MF_VL) {
        vu c = bk_tab_round(bk_load32(S, src, i), D, R, O, &tab);
        if (D == MF_FP16)
            v_store_u16((uint16_t *)dst + i, c);
        else if (mf__fmt_store_bits(D) == 4)
            v_store_u4((uint8_t *)dst + i / 2, c);
        else
            v_store_u8((uint8_t *)dst + i, c);
    }
}

#endif


/* One vector of binary32 bits u (for sr, rb: each element's mf_sr_width(D) random bits, zero-extended)
 * rounded into D's codes; tp: the k_rn_tab of D where the stochastic table kernel applies (AVX-512). */
MF_V vu bk_round_code(const mf_format D, const mf_round R, const mf_overflow O, const int C, vu u, vu rb,
                        const void *tp, k_counts *ct)
{
    (void)tp;
    if (R == MF_ROUND_NEAREST_EVEN && !C && k_fast_rn_ok(D))
        return k_round_rn_fast(u, D, O);
#ifdef V_HAS_TABLE32
    if (R == MF_ROUND_STOCHASTIC && !C && k_rn_tab_ok(D))
        return k_round_sr_tab(u, D, O, rb, (const k_rn_tab *)tp);
#endif
    if (D == MF_BF16 && !C)
        return k_round_bf16(u, R, O, rb);
    if (D == MF_E8M0 && R == MF_ROUND_STOCHASTIC && !C)
        return k_round_e8m0_sr(u, O, rb);
    if (D == MF_E8M0)
        return k_round_e8m0(u, R, O, k_sr_top(rb, D), C, ct);
    return k_round(u, D, R, O, k_sr_top(rb, D), C, ct);
}

/* ... and stored at element i of dst. */
MF_V void bk_round_store(const mf_format D, const mf_round R, const mf_overflow O, const int C, void *dst, size_t i,
                           vu u, vu rb, const void *tp, k_counts *ct)
{
    const vu c = bk_round_code(D, R, O, C, u, rb, tp, ct);
    if (D == MF_FP16 || D == MF_BF16)
        v_store_u16((uint16_t *)dst + i, c);
    else if (mf__fmt_store_bits(D) == 4)
        v_store_u4((uint8_t *)dst + i / 2, c);
    else
        v_store_u8((uint8_t *)dst + i, c);
}

/* The 2^k_sr_shift(D) vectors of elements from element e that one vector of stream words w serves */
MF_V void bk_sr_words(const mf_format D, const mf_round R, const mf_overflow O, const int C, void *dst,
                        const uint32_t *src, size_t e, vu w, const void *tp, k_counts *ct)
{
    const int P = 1 << k_sr_shift(D);
    int p;
    if (P == 4) { /* one-byte and e2m1 codes: the four vectors stored with one pack */
        vu c[4];
        for (p = 0; p < 4; p++)
            c[p] = bk_round_code(D, R, O, C, v_load_u32(src + e + (size_t)p * MF_VL), k_sr_part(w, D, p), tp, ct);
        if (mf__fmt_store_bits(D) == 4)
            v_store_u4x4((uint8_t *)dst + e / 2, c[0], c[1], c[2], c[3]);
#ifdef V_HAS_TABLE32
        else if (R == MF_ROUND_STOCHASTIC && !C && k_rn_tab_ok(D)) /* k_round_sr_tab's codes (bk_round_code) */
            bk_store_tab8x4(D, (uint8_t *)dst + e, c[0], c[1], c[2], c[3]);
#endif
        else
            v_store_u8x4((uint8_t *)dst + e, c[0], c[1], c[2], c[3]);
#ifdef V_HAS_BF16_SR_PAIR
    } else if (D == MF_BF16 && !C) {
        v_bf16_sr_pair((uint16_t *)dst + e, v_load_u32(src + e), v_load_u32(src + e + MF_VL), w,
                       O == MF_OVERFLOW_SATURATE, (uint32_t)mf__fmt_nan_code(mf__fmt_get(MF_BF16)),
                       (uint32_t)mf__fmt_max_code(mf__fmt_get(MF_BF16)));
#endif
    } else if (P == 2) { /* f16, bf16: the two vectors stored with one pack */
        const vu c0 = bk_round_code(D, R, O, C, v_load_u32(src + e), k_sr_part(w, D, 0), tp, ct);
        const vu c1 = bk_round_code(D, R, O, C, v_load_u32(src + e + MF_VL), k_sr_part(w, D, 1), tp, ct);
        v_store_u16x2((uint16_t *)dst + e, c0, c1);
    } else {
        bk_round_store(D, R, O, C, dst, e, v_load_u32(src + e), w, tp, ct);
    }
}

/* The backends without rounding in the instruction take f32 -> fp8/fp6/fp4 in rz, rna, ru, rd and ro by
 * k_round_dir_fast, with MXCSR's rounding set by bk_blocked (bk_kernel_csr); the others have tables. */
MF_V int bk_dir_fast(const mf_format D, const mf_round R, const int C)
{
#ifndef V_HAS_RC_IN_INSN
    return !C && R != MF_ROUND_NEAREST_EVEN && R != MF_ROUND_STOCHASTIC && (unsigned)R < MF_ROUND_COUNT &&
           k_fast_rn_ok(D) && D != MF_FP16;
#else
    (void)D, (void)R, (void)C;
    return 0;
#endif
}

/* MXCSR's rounding control for the kernel of (D, R): rn but for bk_dir_fast */
MF_V unsigned bk_kernel_csr(const mf_format D, const mf_round R, const int C)
{
#ifndef V_HAS_RC_IN_INSN
    if (bk_dir_fast(D, R, C))
        return k_round_dir_csr(R);
#endif
    (void)D, (void)R, (void)C;
    return 0;
}

/* k_round_rn_fast or k_round_dir_fast */
MF_V vu bk_fast_code(vu u, const mf_format D, const mf_round R, const mf_overflow O)
{
#ifndef V_HAS_RC_IN_INSN
    if (R != MF_ROUND_NEAREST_EVEN)
        return k_round_dir_fast(u, D, R, O);
#else
    (void)R;
#endif
    return k_round_rn_fast(u, D, O);
}

/* ---- one block: binary32 bits -> destination format ---------------------------------------------- */
MF_V void bk_round_loop(const mf_format D, void *dst, const uint32_t *src, size_t n, const mf_round R,
                          const mf_overflow O, const int C, const k_philox_keys *ks, uint64_t idx0, k_counts *ct)
{
    size_t i;
    if (D == MF_FP16 && !C &&
        (R == MF_ROUND_NEAREST_EVEN || R == MF_ROUND_TOWARD_ZERO || R == MF_ROUND_UP || R == MF_ROUND_DOWN)) {
        bk_hw16_loop(MF_FP32, 0, (uint16_t *)dst, src, n, R, O == MF_OVERFLOW_SATURATE, NULL); /* F16C */
        return;
    }
    if (BK_HW_BF16 && D == MF_BF16 && !C && R == MF_ROUND_NEAREST_EVEN) {
        bk_hw16_loop(MF_FP32, 1, (uint16_t *)dst, src, n, R, O == MF_OVERFLOW_SATURATE, NULL);
        return;
    }
#ifdef V_HAS_TABLE32
    if (R != MF_ROUND_STOCHASTIC && !C && k_rn_tab_ok(D) &&
        (D != MF_FP16 || R == MF_ROUND_NEAREST_AWAY || R == MF_ROUND_ODD)) { /* f16's other modes: F16C above */
        bk_tab_loop(MF_FP32, D, R, O, dst, src, n); /* rn, rz (bk_direct's too), rna, ru, rd, ro */
        return;
    }
#endif
    if (D == MF_E8M0 && !C && k_e8m0_fast_ok(R)) {
        for (i = 0; i + 4 * MF_VL <= n; i += 4 * MF_VL)
            v_store_u8x4((uint8_t *)dst + i, k_round_e8m0_fast(v_load_u32(src + i), R, O),
                         k_round_e8m0_fast(v_load_u32(src + i + MF_VL), R, O),
                         k_round_e8m0_fast(v_load_u32(src + i + 2 * MF_VL), R, O),
                         k_round_e8m0_fast(v_load_u32(src + i + 3 * MF_VL), R, O));
        for (; i < n; i += MF_VL)
            v_store_u8((uint8_t *)dst + i, k_round_e8m0_fast(v_load_u32(src + i), R, O));
        return;
    }
    if (((R == MF_ROUND_NEAREST_EVEN && !C && k_fast_rn_ok(D)) || bk_dir_fast(D, R, C)) && D != MF_FP16) {
        /* one-byte and e2m1 codes: four vectors a step, stored with one pack */
        for (i = 0; i + 4 * MF_VL <= n; i += 4 * MF_VL) {
            vu c0 = bk_fast_code(v_load_u32(src + i), D, R, O);
            vu c1 = bk_fast_code(v_load_u32(src + i + MF_VL), D, R, O);
            vu c2 = bk_fast_code(v_load_u32(src + i + 2 * MF_VL), D, R, O);
            vu c3 = bk_fast_code(v_load_u32(src + i + 3 * MF_VL), D, R, O);
            if (mf__fmt_store_bits(D) == 4)
                v_store_u4x4((uint8_t *)dst + i / 2, c0, c1, c2, c3);
            else
                v_store_u8x4((uint8_t *)dst + i, c0, c1, c2, c3);
        }
        for (; i < n; i += MF_VL) {
            vu c = bk_fast_code(v_load_u32(src + i), D, R, O);
            if (mf__fmt_store_bits(D) == 4)
                v_store_u4((uint8_t *)dst + i / 2, c);
            else
                v_store_u8((uint8_t *)dst + i, c);
        }
        return;
    }
    i = 0;
#ifdef V_HAS_TABLE32
    const int sr_tab = R == MF_ROUND_STOCHASTIC && !C && k_rn_tab_ok(D);
    k_rn_tab spare;
    const k_rn_tab tab = *bk_tab(sr_tab ? D : MF_FP8_E4M3, &spare);
    const k_rn_tab *tp = &tab;
#else
    const void *tp = NULL;
#endif
    if (R == MF_ROUND_STOCHASTIC) {
        /* one vector of stream words serves P vectors of elements (k_sr_part); idx0 + i stays a
         * multiple of 4 * P, the first element of a Philox block's words */
        const int SH = k_sr_shift(D), P = 1 << SH;
        const size_t chunk = (size_t)K_SR_CHAINS * MF_VL << SH;
        if (n >= chunk) { /* K_SR_CHAINS vectors of words a step */
            vu cc = k_philox_counters(idx0 >> (SH + 2), SH);
            vu rb[K_SR_CHAINS];
            int j, r;
            /* bf16: the next chunk's Philox rounds interleaved with this chunk's elements, faster there;
             * slower for one-byte codes (four times the elements) and for f16 (docs/perf/tuning.md) */
            const int pipe = D == MF_BF16;
            k_philox_chains(rb, &cc, idx0, SH, ks);
            for (; i + chunk <= n; i += chunk) {
                if (pipe && i + 2 * chunk <= n) {
                    vu nx[K_SR_CHAINS];
                    k_philox_chains_start(nx, &cc, idx0 + i + chunk, SH);
#define BK_SR_ROUND(r)                                                                                  \
    do {                                                                                                  \
        for (j = 0; j < K_SR_CHAINS; j++)                                                                 \
            nx[j] = (r) < 9 ? v_philox_round(nx[j], ks->k[r]) : v_philox_last(nx[j], ks->k[9]);           \
        for (j = (r) * K_SR_CHAINS / 10; j < ((r) + 1) * K_SR_CHAINS / 10; j++)                           \
            bk_sr_words(D, R, O, C, dst, src, i + (size_t)(j * P) * MF_VL, rb[j], tp, ct);               \
    } while (0)
#pragma GCC unroll 10 /* faster than the loop (docs/perf/tuning.md) */
                    for (r = 0; r < 10; r++)
                        BK_SR_ROUND(r);
#undef BK_SR_ROUND
                    for (j = 0; j < K_SR_CHAINS; j++)
                        rb[j] = nx[j];
                } else {
                    for (j = 0; j < K_SR_CHAINS; j++)
                        bk_sr_words(D, R, O, C, dst, src, i + (size_t)(j * P) * MF_VL, rb[j], tp, ct);
                    if (!pipe && i + 2 * chunk <= n)
                        k_philox_chains(rb, &cc, idx0 + i + chunk, SH, ks);
                }
            }
        }
        /* the rest one vector of words at a time; the counters kept in a register and stepped by
         * MF_VL / 4 blocks while the low word cannot carry (else rebuilt from memory) */
        vu ctr = k_philox_counters((idx0 + i) >> (SH + 2), SH);
        while (i < n) {
            const vu rb = k_philox(ctr, ks);
            const uint64_t nb = (idx0 + i + ((size_t)MF_VL << SH)) >> (SH + 2); /* wraps as the index does */
            int p;
            if ((uint32_t)nb >= (uint32_t)(MF_VL / 4) && (uint32_t)nb <= 0xFFFFFFFFu - MF_VL / 4)
                ctr = v_add(ctr, v_philox_step()); /* no lane's low word wraps, now or before */
            else
                ctr = k_philox_counters(nb, SH);
            for (p = 0; p < P && i < n; p++, i += MF_VL)
                bk_round_store(D, R, O, C, dst, i, v_load_u32(src + i), k_sr_part(rb, D, p), tp, ct);
        }
        return;
    }
    for (; i < n; i += MF_VL)
        bk_round_store(D, R, O, C, dst, i, v_load_u32(src + i), v_zero(), tp, ct);
}

/* The instantiations: every (destination, mode, policy) with constant arguments; the counting calls
 * (statistics asked for) once per destination, with the mode and policy read at run time. */
#define BK_RLOOP(D, R, O, C) bk_round_loop(D, dst, src, n, R, O, C, ks, idx0, ct)
#define BK_RCASE_O(D, R)                                                                            \
    case R:                                                                                           \
        if (o == MF_OVERFLOW_SATURATE)                                                                \
            BK_RLOOP(D, R, MF_OVERFLOW_SATURATE, 0);                                                \
        else                                                                                          \
            BK_RLOOP(D, R, MF_OVERFLOW_IEEE, 0);                                                    \
        break;
/* one function per destination: in one function holding all of them, the compiler stopped folding
 * the format's facts */
#define BK_RFUNC(D, NAME)                                                                           \
    __attribute__((noinline)) static void NAME##_counting(void *dst, const uint32_t *src, size_t n,  \
                                                          mf_round r, mf_overflow o,                  \
                                                          const k_philox_keys *ks, uint64_t idx0,     \
                                                          k_counts *ct)                               \
    {                                                                                                 \
        BK_RLOOP(D, r, o, 1);                                                                       \
    }                                                                                                 \
    void NAME(void *dst, const uint32_t *src, size_t n, mf_round r, mf_overflow o, int count,         \
              const k_philox_keys *ks, uint64_t idx0, k_counts *ct)                                   \
    {                                                                                                 \
        if (!(K_FMTS >> (D) & 1u))                                                                    \
            return; /* not a row of K_FMTS: its pairs are the parent's (BK_OWN_DSTS), so nothing is compiled */ \
        if (count) {                                                                                  \
            NAME##_counting(dst, src, n, r, o, ks, idx0, ct);                                         \
            return;                                                                                   \
        }                                                                                             \
        switch (r) {                                                                                  \
            BK_RCASE_O(D, MF_ROUND_NEAREST_EVEN)                                                    \
            BK_RCASE_O(D, MF_ROUND_NEAREST_AWAY)                                                    \
            BK_RCASE_O(D, MF_ROUND_TOWARD_ZERO)                                                     \
            BK_RCASE_O(D, MF_ROUND_UP)                                                              \
            BK_RCASE_O(D, MF_ROUND_DOWN)                                                            \
            BK_RCASE_O(D, MF_ROUND_ODD)                                                             \
            BK_RCASE_O(D, MF_ROUND_STOCHASTIC)                                                      \
        default: break;                                                                               \
        }                                                                                             \
    }

/* One round kernel: blocks of binary32 bits -> D, every mode, policy and counting (round.c). */
typedef void (*bk_round_fn)(void *dst, const uint32_t *src, size_t n, mf_round r, mf_overflow o, int count,
                              const k_philox_keys *ks, uint64_t idx0, k_counts *ct);

#endif /* MF_SIMD_BACKEND_KERNELS_H */
