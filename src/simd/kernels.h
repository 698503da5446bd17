/* SPDX-License-Identifier: MIT */
/* src/simd/kernels.h - the vector kernels, written once over the vocabulary of src/x86/vec_avx2.h,
 * src/x86/vec_avx512.h or src/arm/vec_neon.h (the including backend picks one) and compiled once per backend.
 *
 * They reproduce the portable backend bit for bit. The rounding kernel is the scalar core of
 * include/minifloat/detail/round.h specialised for a binary32 source, whose significand has 24
 * bits, so that everything fits 32-bit lanes:
 *
 *   sig   = the 24-bit significand (implicit bit included);  m = max(exponent, the target's emin)
 *   shift = 23 - man + (m - exponent)                        bits of sig below the target's last place
 *   kept  = sig >> shift                                     the truncated result (implicit bit included)
 *   frac  = the discarded bits, left-aligned in 32 bits      shift > 31 only happens where every mode
 *                                                            but sr sees "below half, inexact"
 *   code  = kept + inc + ((m - emin) << man)                 normal, subnormal and carry alike
 *
 * Format facts come from detail/format.h, so a kernel instantiated with a constant format folds them.
 */
#ifndef MF_SIMD_KERNELS_H
#define MF_SIMD_KERNELS_H

#include "../internal.h"

typedef struct k_counts {
    uint64_t ovf, unf, sub, nan, inx;
} k_counts;

#define K_H 0x80000000u

/* ---- the kinds of special values (detail/format.h): every rule of the kernels that depends on one -------
 * A format is its row's facts (bits, man, bias) and its kind; everything below that is not arithmetic on
 * those facts is here, so that a new kind is added in this section alone.
 *   IEEE  the all-ones exponent field holds inf (mantissa 0) and the NaNs; overflow goes to inf
 *   FN    only the all-ones magnitude is NaN (no inf); overflow under the IEEE policy goes to NaN
 *   NONE  every code is finite; NaN and overflow go to max (the NaN code is max)
 *   E8M0  unsigned powers of two (kernels of their own: k_round_e8m0, k_decode)
 *   FNUZ  the code of -0 (the sign bit alone) is the one NaN; no -0: a zero result is +0; overflow
 *         under the IEEE policy goes to NaN
 *   P3109SE, P3109SF  IEEE P3109's signed formats (detail/round.h): FNUZ's NaN and zero; SE has +-inf at
 *         the all-ones magnitude (max is the code below), SF none (overflow under the IEEE policy, the
 *         report's SatNone, goes to NaN); the one NaN decodes to +NaN (0x7FC00000); and round to odd
 *         overflows as rn does (k_to_inf). P = 1 rows (no mantissa bit: ties by the exponent's parity, and
 *         k_fast_big's M needs man >= 1) stay portable (K_MAN_OK), and so do the unsigned kinds.
 * K_KIND_OK: the kinds these kernels convert; a row of any other kind stays with the portable backend
 * (K_FMTS, below). */
#define K_KIND_OK(kind)                                                                                   \
    ((kind) == MF__KIND_IEEE || (kind) == MF__KIND_FN || (kind) == MF__KIND_NONE || (kind) == MF__KIND_E8M0 || \
     (kind) == MF__KIND_FNUZ || (kind) == MF__KIND_P3109SE || (kind) == MF__KIND_P3109SF)
#define K_MAN_OK(kind, man) ((man) >= 1 || (kind) < MF__KIND_P3109SE)

/* P3109's signed kinds */
MF_V int k_p3109s(const mf__fmt f) { return f.kind == MF__KIND_P3109SE || f.kind == MF__KIND_P3109SF; }

/* No -0, and the NaN is the sign bit alone: FNUZ and P3109's signed kinds */
MF_V int k_no_neg_zero(const mf__fmt f) { return f.kind == MF__KIND_FNUZ || k_p3109s(f); }

/* The binary32 bits the NaN code of such a kind decodes to: FNUZ's keeps the sign bit, P3109's is +NaN */
MF_V uint32_t k_sign_nan_bits(const mf__fmt f) { return k_p3109s(f) ? 0x7FC00000u : 0xFFC00000u; }

/* For the lists made from minifloat/formats.inc (the round kernels, the decoders' and the tables'
 * switches): K_IF_NARROW_<storage>(x) is x for a narrow row (a destination of the round kernels, a source
 * of the decoders), nothing for f32 and f64; K_IF_BYTE_<storage>(x) is x for a row of one-byte or e2m1
 * codes. */
#define K_IF_NARROW_F64(...)
#define K_IF_NARROW_F32(...)
#define K_IF_NARROW_U16(...) __VA_ARGS__
#define K_IF_NARROW_U8(...) __VA_ARGS__
#define K_IF_NARROW_U4(...) __VA_ARGS__
#define K_IF_BYTE_F64(...)
#define K_IF_BYTE_F32(...)
#define K_IF_BYTE_U16(...)
#define K_IF_BYTE_U8(...) __VA_ARGS__
#define K_IF_BYTE_U4(...) __VA_ARGS__

/* The rows the kernels convert (K_FMTS, bit e for row e): every row of a kind above stored as f64 or
 * f32, one code a byte, two codes a byte (e2m1, binary4p2sf: the paths ask mf__fmt_store_bits), or as f16 and
 * bf16 are (the paths know those two 16-bit formats by name); and of those, the byte-coded and nibble rows
 * (K_BYTE_FMTS: the byte tables' formats). A new row of a known kind stored a code a byte or two a byte gets every
 * kernel by being a row (the f16/bf16 -> nibble w16 kernels are e2m1's alone: src/simd/w16.c). */
#define K_STORE_OK_F64(e) 1
#define K_STORE_OK_F32(e) 1
#define K_STORE_OK_U16(e) ((e) == MF_FP16 || (e) == MF_BF16)
#define K_STORE_OK_U8(e) 1
#define K_STORE_OK_U4(e) 1
#define K_ROW_OK(e, man, kind, storage)                                                                  \
    (K_KIND_OK(MF__KIND_##kind) && K_MAN_OK(MF__KIND_##kind, man) && K_STORE_OK_##storage(e))
#define K_MASK_ROW(e, man, kind, storage) K_ROW_OK(e, man, kind, storage)
#define K_MASK_NAME K_FMTS
#include "fmt_mask.h"
#undef K_MASK_NAME
#define K_MASK_ROW(e, man, kind, storage) K_ROW_OK(e, man, kind, storage) && MF__STORE_BITS_##storage <= 8
#define K_MASK_NAME K_BYTE_FMTS
#include "fmt_mask.h"
#undef K_MASK_NAME
/* MF_SIMD_ROWS: the rows a build's MF_SIMD_FORMATS names (src/sources.cmake); the others go to the portable
 * backend as rows of an unknown kind do, and their kernels compile to nothing */
#ifdef MF_SIMD_ROWS
#define K_ROWS_KEPT ((uint64_t)(MF_SIMD_ROWS))
#else
#define K_ROWS_KEPT (~(uint64_t)0)
#endif
#define K_FMTS                                                                                            \
    (((uint64_t)K_FMTS_0 | (uint64_t)K_FMTS_1 << 16 | (uint64_t)K_FMTS_2 << 32 | (uint64_t)K_FMTS_3 << 48) & \
     K_ROWS_KEPT)
#define K_BYTE_FMTS                                                                                       \
    (((uint64_t)K_BYTE_FMTS_0 | (uint64_t)K_BYTE_FMTS_1 << 16 | (uint64_t)K_BYTE_FMTS_2 << 32 |           \
      (uint64_t)K_BYTE_FMTS_3 << 48) &                                                                    \
     K_ROWS_KEPT)

/* Does an overflow that goes to the infinity (k_to_inf) give the NaN code instead? (No inf, a NaN.) */
MF_V int k_inf_is_nan(const mf__fmt f)
{
    return f.kind == MF__KIND_FN || f.kind == MF__KIND_FNUZ || f.kind == MF__KIND_P3109SF;
}

/* res, a magnitude code (at most the magnitude mask), with the sign of binary32 bits u. FNUZ (P3109) has no -0:
 * a zero magnitude stays +0 (-res is negative exactly where res is not zero, so u AND -res is negative
 * where x is and the magnitude is not zero). */
MF_V vu k_with_sign(vu res, vu u, const mf__fmt f)
{
    const uint32_t top = 1u << (f.bits - 1);
    if (k_no_neg_zero(f))
        return v_blend_neg(v_and(u, v_sub(v_zero(), res)), res, v_or(res, v_set1(top)));
    return v_or_and(res, v_srli(u, 32 - f.bits), v_set1(top));
}

/* The largest |x| (binary32 bits) that rounds to nearest to a zero code: half the smallest subnormal
 * (the tie goes to the even code, zero), a normal binary32 for every format with kernels */
MF_V uint32_t k_rn_zero_max(const mf__fmt f) { return (uint32_t)(mf__fmt_emin(f) - f.man - 1 + 127) << 23; }

/* k_with_sign for k_round_rn_fast, where |x| = a0 rounds to nearest: FNUZ's zero rule from a0 itself (a
 * nonzero code from above half the smallest subnormal on), off the code's path: u's sign is cleared first
 * where a0 is not above it (v_gt_s: a0 < 2^31) */
MF_V vu k_with_sign_rn(vu res, vu u, vu a0, const mf__fmt f)
{
    if (k_no_neg_zero(f))
        u = v_blend(v_gt_s(a0, v_set1(k_rn_zero_max(f))), a0, u);
    return v_or_and(res, v_srli(u, 32 - f.bits), v_set1(1u << (f.bits - 1)));
}

/* Binary32 bits r decoded from codes c (mag: c's magnitude bits, expf: its exponent field, mant: its
 * mantissa field; r holds the finite reading, sign not yet set) with the kind's special codes made
 * inf or NaN and the sign (sign: binary32's sign bit of each code) set: NaNs quiet, payload kept, as the
 * portable decode gives them */
MF_V vu k_decode_special(vu r, vu sign, vu c, vu mag, vu expf, vu mant, const mf__fmt f)
{
    const int man = f.man;
    if (f.kind == MF__KIND_IEEE) {
        vm special = v_eq(expf, v_set1((1u << (f.bits - 1 - man)) - 1u));
        r = v_blend(special, r, v_or(v_set1(0x7F800000u), v_slli(mant, 23 - man)));
        r = v_blend(m_and(special, v_nonzero(mant)), r, v_or(r, v_set1(0x00400000u)));
    } else if (f.kind == MF__KIND_FN) {
        r = v_blend(v_eq(mag, v_set1((uint32_t)mf__fmt_mag_mask(f))), r, v_or(v_set1(0x7FC00000u), v_slli(mant, 23 - man)));
    } else if (f.kind == MF__KIND_P3109SE) { /* +-inf: the all-ones magnitude */
        r = v_blend(v_eq(mag, v_set1((uint32_t)mf__fmt_mag_mask(f))), r, v_set1(0x7F800000u));
    }
    r = v_or(r, sign);
    if (k_no_neg_zero(f))
        r = v_blend(v_eq(c, v_set1((uint32_t)mf__fmt_nan_code(f))), r, v_set1(k_sign_nan_bits(f)));
    return r;
}

/* The kinds the table kernels (V_HAS_TABLE32) take: every signed one (e8m0 has kernels of its own). */
MF_V int k_tab_kind_ok(const mf__fmt f) { return f.kind != MF__KIND_E8M0; }

/* What the table kernels keep as "the NaN code" (k_rn_tab's nan): the NaN code, which is also the mask
 * of the magnitude bits (all ones below the sign) in the kinds IEEE, FN and NONE (NONE's NaN is max, all
 * ones); for FNUZ, whose NaN is the sign bit alone, the complement of that mask, whose low byte is the NaN. */
MF_V uint32_t k_tab_nan(const mf__fmt f)
{
    return k_no_neg_zero(f) ? ~(uint32_t)mf__fmt_mag_mask(f) : (uint32_t)mf__fmt_nan_code(f);
}

#ifdef V_HAS_TABLE32
/* The table kernels' last step: lanes in keep take the magnitude from code's low bits (the bits above
 * them are the sum's exponent) and the sign from u (shifted right by sh = 32 - bits), the others the NaN
 * code; one masked ternary-logic op, the NaN code being the mask (k_tab_nan). FNUZ: the sign only where
 * the magnitude is not zero (no -0: nz, k_tab_nonzero), the complement of the mask selecting; for 8-bit
 * codes the sign is shifted in arithmetically, so every lane is its code as a signed byte (the NaN ~mask is
 * -128, 0x80) and stores keep the low byte (v_store_u8's truncation, v_store_i8x4's signed packs:
 * bk_store_tab8x4), one AND a vector less than clearing the high bits. */
MF_V int k_tab_signed_bytes(const mf__fmt f) { return k_no_neg_zero(f) && f.bits == 8; }

MF_V vu k_tab_select(vm keep, vm nz, vu code, vu u, vu sh, vu nan, const mf__fmt f)
{
    if (k_tab_signed_bytes(f))
        return v_keep_select(keep, v_blend(nz, v_zero(), v_srav(u, sh)), code, nan);
    if (k_no_neg_zero(f)) /* fewer bits than a byte: the NaN lane's high bits cleared */
        return v_and(v_keep_select(keep, v_blend(nz, v_zero(), v_srlv(u, sh)), code, nan), v_set1((1u << f.bits) - 1u));
    (void)nz;
    return v_keep_select(keep, code, v_srlv(u, sh), nan);
}

/* The lanes whose magnitude code is not zero, for k_tab_select: in rn from |x| = a0 itself (above half the
 * smallest subnormal; off the code's path), else from the code */
MF_V vm k_tab_nonzero(vu a0, vu code, const mf_round R, const mf__fmt f)
{
    if (R == MF_ROUND_NEAREST_EVEN)
        return v_gt_s(a0, v_set1(k_rn_zero_max(f)));
    return v_test(code, v_set1((uint32_t)mf__fmt_mag_mask(f)));
}
#endif

/* The lanes whose overflow under the IEEE policy gives the infinity (the NaN code where the format
 * has none), as the core's mf__overflow_code: every overflow in rn, rna and sr (and ro in P3109's
 * kinds), the positive ones in ru, the negative ones in rd; infinite inputs in every mode (ovf holds
 * them too: their code is above max). */
MF_V vm k_to_inf(const mf_round r, vm isinf, vm neg, vm ovf, const mf__fmt f)
{
    switch (r) {
    case MF_ROUND_ODD:
        if (k_p3109s(f))
            return ovf;
        return isinf;
    case MF_ROUND_TOWARD_ZERO: return isinf;
    case MF_ROUND_UP: return m_or(isinf, m_andnot(neg, ovf));
    case MF_ROUND_DOWN: return m_or(isinf, m_and(neg, ovf));
    default: return ovf;
    }
}

/* ---- binary32 -> a signed narrow format (not e8m0), one vector ---------------------------------- */
MF_V vu k_round(vu u, const mf_format fmt, const mf_round r, const mf_overflow o, vu rbits, const int count,
                k_counts *ct)
{
    const mf__fmt f = mf__fmt_get(fmt);
    const int man = f.man;
    const uint32_t emin_b = (uint32_t)(mf__fmt_emin(f) + 127); /* biased binary32 exponent of min normal */
    const uint32_t maxc = (uint32_t)mf__fmt_max_code(f);
    const uint32_t nanc = (uint32_t)mf__fmt_nan_code(f);
    const int ieee_inf = mf__fmt_has_inf(f);
    const vu absmask = v_set1(0x7FFFFFFFu);
    vu a = v_and(u, absmask);
    vm neg = v_gt_u(u, absmask);
    vu e = v_srli(a, 23);
    vu m = v_max_u(e, v_set1(emin_b));
    /* a binary32 subnormal's exponent is that of 2^-126; only formats whose own subnormals reach
     * that far (bf16) need it, for the others such inputs are far below half an ulp either way */
    vu ee = emin_b < (uint32_t)(34 + man) ? v_max_u(e, v_set1(1)) : e;
    vu sh = v_sub(v_add(m, v_set1((uint32_t)(23 - man))), ee);
    vu mant = v_and(u, v_set1(0x7FFFFFu));
    vu sig = v_blend(v_test(u, v_set1(0x7F800000u)), mant, v_or(mant, v_set1(0x800000u)));
    vu s1 = v_min_u(sh, v_set1(31));
    vu kept = v_srlv(sig, s1);
    vu frac = v_sllv(sig, v_sub(v_set1(32), s1));
    vm inexact = v_nonzero(frac);
    vu code = v_add(kept, v_slli(v_sub(m, v_set1(emin_b)), man));
    vm ovf, isnan, isinf, make_nan;
    vu res;

    switch (r) {
    case MF_ROUND_NEAREST_AWAY: code = v_add_m1(v_ge_u(frac, v_set1(K_H)), code); break;
    case MF_ROUND_TOWARD_ZERO: break;
    case MF_ROUND_UP: code = v_add_m1(m_andnot(neg, inexact), code); break;
    case MF_ROUND_DOWN: code = v_add_m1(m_and(neg, inexact), code); break;
    case MF_ROUND_ODD: code = v_or_m1(inexact, code); break;
    case MF_ROUND_STOCHASTIC: {
        /* the exact 32-bit fraction: for shift > 31 the discarded part is sig >> (shift - 32) */
        vu fs = v_blend(v_gt_u(sh, v_set1(31)), frac, v_srlv(sig, v_sub(sh, v_set1(32))));
        code = v_add_m1(v_lt_u(v_add(fs, rbits), fs), code);
        break;
    }
    default: /* rn: up if above half, or at half with an odd kept */
        code = v_add_m1(v_gt_u(frac, v_sub(v_set1(K_H), v_and(kept, v_set1(1)))), code);
        break;
    }

    isnan = v_gt_u(a, v_set1(0x7F800000u));
    isinf = v_eq(a, v_set1(0x7F800000u));
    ovf = v_gt_u(code, v_set1(maxc)); /* finite overflows, and every inf and NaN lane */
    res = v_min_u(code, v_set1(maxc));
    make_nan = isnan;
    if (o == MF_OVERFLOW_IEEE && f.kind != MF__KIND_NONE) {
        const vm to_inf = k_to_inf(r, isinf, neg, ovf, f);
        if (ieee_inf)
            res = v_blend(to_inf, res, v_set1((uint32_t)mf__fmt_inf_code(f)));
        else
            make_nan = m_or(make_nan, to_inf);
    }
    res = k_with_sign(res, u, f);
    res = v_blend(make_nan, res, v_set1(nanc));

    if (count) {
        vm special = m_or(isnan, isinf);
        vm inf_changed = (o == MF_OVERFLOW_IEEE && ieee_inf) ? m_none() : isinf;
        vm fin_ovf = m_andnot(special, ovf);
        vm zero_out = m_andnot(special, m_and(v_eq(code, v_zero()), v_nonzero(a)));
        vm sub_out = m_andnot(m_or(special, ovf), m_and(v_nonzero(code), v_lt_u(code, v_set1(1u << man))));
        ct->ovf += m_count(m_or(fin_ovf, inf_changed));
        ct->unf += m_count(zero_out);
        ct->sub += m_count(sub_out);
        ct->nan += m_count(isnan);
        ct->inx += m_count(m_or(m_andnot(special, m_or(inexact, ovf)), inf_changed));
    }
    return res;
}

/* ---- binary32 -> a narrow format, rn, no statistics: one binary32 addition does the rounding --------
 * Adding M = 2^(m - man + 23) (m the effective exponent, as above) to |x| leaves the rounded
 * significand, implicit bit included, in the low mantissa bits of the sum: the addition rounds to
 * nearest-even at exactly the target's last place (the backend runs with MXCSR, or FPCR on aarch64, = rn, no FTZ/DAZ).
 * M also carries the code's exponent part in its mantissa, so the sum's low bits are the code.
 * |x| is first clamped to 2^(emax+1), which overflows in every format, so M stays finite. For
 * formats whose M fits binary32 (every signed narrow format but bf16). */
MF_V int k_fast_rn_ok(const mf_format fmt)
{
    const mf__fmt f = mf__fmt_get(fmt);
    int emax = (1 << (f.bits - 1 - f.man)) - 1 - f.bias; /* the all-ones exponent field's exponent */
    return f.kind != MF__KIND_E8M0 && emax + 2 + 127 + 23 - f.man < 255;
}

/* The operands of the fast kernels: *a0 = |u|, *a = |u| clamped to 2^(emax+1), *m = a's biased
 * exponent held at least at the target's emin, and the result, M for that m. M carries the target's
 * biased exponent (m - emin) << man in its low mantissa bits, even since man >= 1, so ties still go to
 * the even code: M = m * (2^23 + 2^man) + C, one multiply. */
MF_V vu k_fast_big(vu u, const mf__fmt f, vu *a0, vu *a, vu *m)
{
    const int man = f.man;
    const int emax = (1 << (f.bits - 1 - f.man)) - 1 - f.bias;
    const uint32_t emin_b = (uint32_t)(mf__fmt_emin(f) + 127);
    vu mul = v_set1((1u << 23) + (1u << man));
    *a0 = v_and(u, v_set1(0x7FFFFFFFu));
    *a = v_min_u(*a0, v_set1((uint32_t)(emax + 1 + 127) << 23));
    *m = v_max_u(v_srli(*a, 23), v_set1(emin_b));
    __asm__("" : "+x"(mul)); /* keep one vpmulld: compilers would expand it into shifts and adds */
    return v_add(v_mullo(*m, mul), v_set1(((uint32_t)(23 - man) << 23) - (emin_b << man)));
}

MF_V vu k_round_rn_fast(vu u, const mf_format fmt, const mf_overflow o)
{
    const mf__fmt f = mf__fmt_get(fmt);
    const uint32_t maxc = (uint32_t)mf__fmt_max_code(f);
    vu a0, a, m;
    const vu big = k_fast_big(u, f, &a0, &a, &m);
#ifdef V_HAS_RC_IN_INSN
    vu code = v_and(v_fadd_rn(a, big), v_set1(0x7FFFFFu));
#else
    vu code = v_and(v_fadd(a, big), v_set1(0x7FFFFFu)); /* under the backend's MXCSR (rn) */
#endif
    vm isnan = v_gt_u(a0, v_set1(0x7F800000u));
    vu res = v_min_u(code, v_set1(maxc));
    if (o == MF_OVERFLOW_IEEE && mf__fmt_has_inf(f))
        res = v_blend(v_gt_u(code, v_set1(maxc)), res, v_set1((uint32_t)mf__fmt_inf_code(f)));
    res = k_with_sign_rn(res, u, a0, f);
    if (o == MF_OVERFLOW_IEEE && k_inf_is_nan(f))
        isnan = m_or(isnan, v_gt_u(code, v_set1(maxc)));
    return v_blend(isnan, res, v_set1((uint32_t)mf__fmt_nan_code(f)));
}

#ifndef V_HAS_RC_IN_INSN
/* ---- binary32 -> a narrow format, rz, rna, ru, rd or ro, no statistics: k_round_rn_fast's addition
 * under MXCSR (FPCR) in another rounding mode (for backends whose instructions cannot name it; the backend sets
 * MXCSR's rounding control to k_round_dir_csr(r) around the kernel) ------------------------------------
 * |x| + M truncated (rz) keeps the grid point at or below |x|: rz. ro sets that code's last bit where
 * the sum was inexact, that is where sum - M != |x| (the subtraction is exact: the sum is within a
 * factor of two of M). rna truncates |x| + half the last place first, as k_round_dir_tab does (no grid
 * point lies between that and its truncation; the half place is that of |x|'s binade, and where the sum
 * reaches the next binade, that binade's first point is on the finer grid too). ru and rd add M with
 * x's sign to x itself under MXCSR ru (rd): away from zero on one side, toward zero on the other, and
 * the code is the sum's low mantissa bits whatever its sign. The clamp to 2^(emax+1) is exact in every
 * mode: from there on every mode's code is above max, which saturates to max or overflows where the
 * mode rounds away from zero; the infinities are told apart on |x| before the clamp. */
MF_V unsigned k_round_dir_csr(const mf_round r)
{
    return r == MF_ROUND_UP ? V_CSR_RU : r == MF_ROUND_DOWN ? V_CSR_RD : V_CSR_RZ;
}

MF_V vu k_round_dir_fast(vu u, const mf_format fmt, const mf_round r, const mf_overflow o)
{
    const mf__fmt f = mf__fmt_get(fmt);
    const int man = f.man;
    const uint32_t maxc = (uint32_t)mf__fmt_max_code(f);
    const vu sign = v_and(u, v_set1(K_H));
    vu a0, a, m, sum, code, res;
    const vu big = k_fast_big(u, f, &a0, &a, &m);
    vm isnan = v_gt_u(a0, v_set1(0x7F800000u)), ovf;
    switch (r) {
    case MF_ROUND_UP:
    case MF_ROUND_DOWN: sum = v_fadd(v_or(a, sign), v_or(big, sign)); break;
    case MF_ROUND_NEAREST_AWAY: sum = v_fadd(v_fadd(a, v_slli(v_sub(m, v_set1((uint32_t)man + 1)), 23)), big); break;
    default: sum = v_fadd(a, big); break;
    }
    code = v_and(sum, v_set1(0x7FFFFFu));
    if (r == MF_ROUND_ODD)
        code = v_or_m1(v_ne(v_fsub(sum, big), a), code);
    ovf = v_gt_u(code, v_set1(maxc));
    res = v_min_u(code, v_set1(maxc));
    if (o == MF_OVERFLOW_IEEE && f.kind != MF__KIND_NONE) {
        /* rna: the clamped infinities overflow too, so ovf holds them */
        const vm to_inf = k_to_inf(r, v_eq(a0, v_set1(0x7F800000u)), v_nonzero(sign), ovf, f);
        if (mf__fmt_has_inf(f))
            res = v_blend(to_inf, res, v_set1((uint32_t)mf__fmt_inf_code(f)));
        else
            isnan = m_or(isnan, to_inf);
    }
    res = k_with_sign(res, u, f);
    return v_blend(isnan, res, v_set1((uint32_t)mf__fmt_nan_code(f)));
}
#endif

/* Saturation, or the IEEE policy of a format where it gives the same bytes: FP6/FP4 have no inf and no
 * NaN, so there every overflow, inf and NaN goes to max either way (docs/formats.md) */
MF_V int k_sat_like(const mf_format fmt, const mf_overflow o)
{
    return o == MF_OVERFLOW_SATURATE || mf__fmt_get(fmt).kind == MF__KIND_NONE;
}

/* The format's largest finite value as binary32 bits (max is normal and within binary32's range for every
 * format that asks: k_rn_tab_ok's and the 16-bit formats) */
MF_V uint32_t k_max_bits(const mf_format fmt)
{
    const mf__fmt f = mf__fmt_get(fmt);
    const uint64_t maxc = mf__fmt_max_code(f);
    return (uint32_t)(((maxc >> f.man) - (uint64_t)f.bias + 127) << 23) |
           (uint32_t)((maxc & (((uint64_t)1 << f.man) - 1)) << (23 - f.man));
}

#ifdef V_HAS_TABLE32
/* ---- binary32 -> a narrow format, rn, no statistics: k_round_rn_fast with a table ------------------
 * |x| can first be clamped to max itself (rounding is monotonic and max is on the grid, so
 * min(round(|x|), max) = round(min(|x|, max))): no later clamp of the code is needed (the IEEE policy's
 * overflows are found on |x| before the clamp, k_tab_finish), and
 * M takes at most 32 values, one per binary32 exponent from the target's emin to max's, so it is
 * looked up rather than computed. NaN lanes (clamped like the rest) take the NaN code, which is
 * all ones below the sign in every kind but FNUZ: one masked ternary-logic op both cuts the code out of the
 * sum, puts the sign in, and writes the NaN (k_tab_select; FNUZ two ops more). The addition carries its own rounding and raises
 * nothing, and DAZ could only zero a binary32 subnormal |x|, which rounds to zero anyway, so the
 * result does not depend on MXCSR (bk_direct). */
typedef struct k_rn_tab {
    vu lo, hi;             /* M by exponent */
    vu rlo, rhi;           /* 2^(q - w) by exponent, q the exponent of the target's last place there, w its sr width */
    vu maxbits, emin, nan; /* max's binary32 bits, the target's emin + 127, the NaN code (k_tab_nan) */
    vu sh;                 /* 32 - bits: brings the binary32 sign to the code's */
    vu hlo, hhi;           /* half the last place, 2^(q - 1), by exponent */
    vu ovrn, ovna;         /* the least |x| (binary32 bits) that overflows in rn, in rna */
    vu maxup;              /* the binary32 value just above max (bits) */
    vu maxnext;            /* the grid point above max, exponent unbounded (bits) */
} k_rn_tab;

/* The table entries a format uses: binary32 exponents emin .. emax of the target (k_rn_tab_ok) */
MF_V int k_tab_entries(const mf_format fmt)
{
    const mf__fmt f = mf__fmt_get(fmt);
    return (int)(mf__fmt_max_code(f) >> f.man) - f.bias - mf__fmt_emin(f) + 1;
}

MF_V int k_rn_tab_ok(const mf_format fmt)
{
    const mf__fmt f = mf__fmt_get(fmt);
    const uint64_t maxc = mf__fmt_max_code(f);
    const int emax = (int)(maxc >> f.man) - f.bias; /* max's exponent (max is normal) */
    return k_fast_rn_ok(fmt) && emax - mf__fmt_emin(f) < 32 && k_tab_kind_ok(f);
}

/* The kernel's constants as vectors, so that nothing about the format is computed per vector (the
 * backends build them once per format: bk_tab). Entry j is for the binary32 biased exponent emin_b + j,
 * written as vector arithmetic on j rather than a loop through memory. */
MF_V k_rn_tab k_rn_tab_make(const mf_format fmt)
{
    const mf__fmt f = mf__fmt_get(fmt);
    const uint32_t emin_b = (uint32_t)(mf__fmt_emin(f) + 127);
    const uint64_t maxc = mf__fmt_max_code(f);
    const vu j0 = v_lane_index(), j1 = v_add(v_lane_index(), v_set1(MF_VL));
    /* M, as in k_round_rn_fast: 2^(emin_b + j - 127 + 23 - man) with the code's exponent part j << man */
    const vu mb = v_set1((emin_b + 23 - (uint32_t)f.man) << 23), ms = v_set1((1u << 23) + (1u << f.man));
    /* 2^(q - w), q = emin_b + j - 127 - man the exponent of the last place and w = mf_sr_width: a
     * normal binary32 here (q - w >= -40 for every format with a table) */
    const unsigned w = mf_sr_width(fmt);
    const vu rb = v_set1(emin_b - (uint32_t)f.man - w);
    k_rn_tab r;
    r.lo = v_add(mb, v_mullo(j0, ms));
    r.hi = v_add(mb, v_mullo(j1, ms));
    r.rlo = v_slli(v_add(rb, j0), 23);
    r.rhi = v_slli(v_add(rb, j1), 23);
    /* 2^(q - 1) */
    r.hlo = v_add(r.rlo, v_set1((w - 1) << 23));
    r.hhi = v_add(r.rhi, v_set1((w - 1) << 23));
    r.maxbits = v_set1(k_max_bits(fmt));
    r.maxnext = v_add(r.maxbits, v_set1(1u << (23 - f.man))); /* max is normal: one place up */
    r.emin = v_set1(emin_b);
    r.nan = v_set1(k_tab_nan(f));
    r.sh = v_set1((uint32_t)(32 - f.bits));
    /* max + half its last place, the midpoint to the next grid point above (unbounded exponent):
     * rna overflows from there on; rn too where max's code is odd (the tie goes to the even code
     * above), else from just above it */
    r.ovna = v_add(r.maxbits, v_set1(1u << (22 - f.man)));
    r.ovrn = v_add(r.ovna, v_set1((uint32_t)(~maxc & 1u)));
    r.maxup = v_add(r.maxbits, v_set1(1));
    return r;
}

/* |x| is clamped before rounding to max, or under the IEEE policy in ru and rd to the binary32 value
 * just above it: rounded away from zero that gives the code above max (e5m2's inf, e4m3's NaN), so
 * those lanes overflow by themselves, and rounded toward zero it gives max. */
MF_V int k_tab_clamps_up(const mf_format D, const mf_round R, const mf_overflow O)
{
    return !k_sat_like(D, O) && (R == MF_ROUND_UP || R == MF_ROUND_DOWN);
}

/* The end of every table kernel: code holds the rounded magnitude of the clamped |x| in its low bits;
 * the NaN code is also the mask that takes the magnitude from code and the sign from u. Under the IEEE
 * policy of e4m3 and e5m2 (k_sat_like false), the lanes that overflow in mode R (from |x| before the
 * clamp) or are infinite take e5m2's +-inf, the code just above +-max, or e4m3's NaN, which has no
 * sign: there the infinities join the NaN lanes, and the lanes that overflowed by themselves in rd
 * (-x below -max, code 0xFF) are taken out too. */
MF_V vu k_tab_finish(vu u, vu a0, vu code, const mf_format D, const mf_round R, const mf_overflow O,
                     const k_rn_tab *t)
{
    const int ieee = !k_sat_like(D, O), inf = mf__fmt_has_inf(mf__fmt_get(D));
    vm keep = v_lt_u(a0, v_set1(ieee && !inf ? 0x7F800000u : 0x7F800001u)), ov = m_none();
    if (ieee) {
        switch (R) {
        case MF_ROUND_NEAREST_EVEN: ov = v_ge_u(a0, t->ovrn); break;
        case MF_ROUND_NEAREST_AWAY: ov = v_ge_u(a0, t->ovna); break;
        case MF_ROUND_UP: /* +x above max overflowed by itself (-inf: clamped, it rounds to -max) */
            if (inf)
                ov = v_eq(u, v_set1(0xFF800000u));
            else /* the code above max: e4m3's NaN, but FNUZ's carries into the sign bit */
                ov = v_test(code, v_set1(1u << (mf__fmt_get(D).bits - 1)));
            break;
        case MF_ROUND_DOWN:
            ov = inf ? v_eq(u, v_set1(0x7F800000u)) : v_gt_u(u, v_or(t->maxbits, v_set1(K_H)));
            break;
        default: /* rz, ro: only the infinities overflow; but P3109's ro overflows as rn: from just above
                  * max if max|1 is above max (an even max), else from the grid point above it */
            if (R == MF_ROUND_ODD && k_p3109s(mf__fmt_get(D)))
                ov = v_ge_u(a0, mf__fmt_max_code(mf__fmt_get(D)) & 1u ? t->maxnext : t->maxup);
            else if (inf)
                ov = v_eq(a0, v_set1(0x7F800000u));
            break;
        }
        if (inf)
            code = v_add_m1(ov, code);
        else
            keep = m_andnot(ov, keep);
    }
    return k_tab_select(keep, k_tab_nonzero(a0, code, R, mf__fmt_get(D)), code, u, t->sh, t->nan, mf__fmt_get(D));
}

MF_V vu k_round_rn_tab(vu u, const mf_format D, const mf_overflow O, const k_rn_tab *t)
{
    const vu a0 = v_and(u, v_set1(0x7FFFFFFFu));
    const vu a = v_min_u(a0, t->maxbits);
    const vu sum = v_fadd_rn(a, v_table32(v_subs_u16(v_srli(a, 23), t->emin), t->lo, t->hi));
    return k_tab_finish(u, a0, sum, D, MF_ROUND_NEAREST_EVEN, O, t); /* the code is in sum's low bits */
}

/* ---- binary32 -> a narrow format, rz, rna, ru, rd or ro, either policy, no statistics --------------
 * The same table addition with other roundings: truncated ({rz-sae}) it gives lo, the grid point at
 * or below |x| (rz); rounded up ({ru-sae}), hi: ru takes hi for +x and lo for -x in one masked addition,
 * rd the other way round, and ro is lo with the last bit set where hi != lo. rna is lo of |x| + half the
 * last place, itself truncated: no grid point lies between |x| + h and its truncation, so the grid point
 * at or below stays the same (the half place is looked up by |x|'s exponent; where |x| + h reaches the
 * next binade, that binade's first point is on the finer grid too). The clamp is exact for every mode
 * (above max, unbounded rounding gives max or more, which saturates to max; round to odd included).
 * rz does not depend on MXCSR (as rn above); DAZ would zero a subnormal |x| that ru, rna and ro must
 * not, so those run under the backend's MXCSR. */
MF_V vu k_round_dir_tab(vu u, const mf_format D, const mf_round r, const mf_overflow O, const k_rn_tab *t)
{
    const vu a0 = v_and(u, v_set1(0x7FFFFFFFu));
    const vu a = v_min_u(a0, k_tab_clamps_up(D, r, O) ? t->maxup : t->maxbits);
    const vu idx = v_subs_u16(v_srli(a, 23), t->emin);
    const vu big = v_table32(idx, t->lo, t->hi);
    vu code, lo;
    switch (r) {
    case MF_ROUND_NEAREST_AWAY: code = v_fadd_rz(v_fadd_rz(a, v_table32(idx, t->hlo, t->hhi)), big); break;
    case MF_ROUND_UP: code = v_fadd_rz_m(v_fadd_ru(a, big), v_signs(u), a, big); break;
    case MF_ROUND_DOWN: code = v_fadd_ru_m(v_fadd_rz(a, big), v_signs(u), a, big); break;
    case MF_ROUND_ODD:
        lo = v_fadd_rz(a, big);
        code = v_or_m1(v_ne(lo, v_fadd_ru(a, big)), lo);
        break;
    default: code = v_fadd_rz(a, big); break;
    }
    return k_tab_finish(u, a0, code, D, r, O, t);
}

/* ---- binary32 -> a narrow format or f16, sr, either policy, no statistics -----------------------------
 * An element takes w = mf_sr_width(D) random bits r (8, or 16 for f16; zero-extended in its lane), and
 * the rule "up iff f * 2^32 + r * 2^(32 - w) >= 2^32" is "up iff floor(f * 2^w) + r >= 2^w", which is
 * where |x| + r * 2^(q - w) (q the exponent of the last place at |x|) reaches the grid point above |x|.
 * So the result is lo of that sum, as in rna above: the sum truncated ({rz-sae}; one FMA, the product
 * being exact; binary32's grid there contains the target's, so truncating cannot pass a grid point),
 * then the table addition truncated. Clamping |x| first is exact: under saturation to max (every
 * |x| >= max gives max); under the IEEE policy of e4m3 and e5m2 to the grid point above max (every
 * |x| at or above it overflows, and between max and it the rounding is as unclamped), whose code is
 * e5m2's inf and e4m3's NaN, which has no sign. Runs under the backend's MXCSR (no FTZ/DAZ). */
MF_V vu k_round_sr_tab(vu u, const mf_format D, const mf_overflow O, vu r, const k_rn_tab *t)
{
    const int ieee = !k_sat_like(D, O), inf = mf__fmt_has_inf(mf__fmt_get(D));
    const vu a0 = v_and(u, v_set1(0x7FFFFFFFu));
    const vu a = v_min_u(a0, ieee ? t->maxnext : t->maxbits);
    const vu idx = v_subs_u16(v_srli(a, 23), t->emin);
    const int small = k_tab_entries(D) <= MF_VL; /* one-source lookups: no copies of the tables */
    const vu s = v_fmadd_rz(v_u2f(r), small ? v_table16(idx, t->rlo) : v_table32(idx, t->rlo, t->rhi), a);
    const vu code = v_fadd_rz(s, small ? v_table16(idx, t->lo) : v_table32(idx, t->lo, t->hi));
    vm keep = v_lt_u(a0, v_set1(0x7F800001u));
    if (ieee && !inf) /* e4m3: the code above max is the NaN (the sum reached the grid point above max) */
        keep = m_andnot(v_ge_u(s, t->maxnext), keep);
    return k_tab_select(keep, k_tab_nonzero(a0, code, MF_ROUND_STOCHASTIC, mf__fmt_get(D)), code, u, t->sh, t->nan,
                        mf__fmt_get(D));
}

#endif

/* ---- binary32 -> bf16, every mode, no statistics -----------------------------------------------------
 * bf16 keeps binary32's exponent range, so rounding is integer arithmetic on the 16 discarded bits of
 * |x| (binary32 subnormals too): add what makes the kept part carry where the mode rounds up (rn: 0x7FFF
 * plus the kept part's last bit; rna: 0x8000; ru on +x, rd on -x: 0xFFFF; sr: the element's 16 random bits,
 * which carry iff f * 2^32 + rbits does), or or the sticky bit in (ro). A carry out of the largest finite
 * value lands on the infinity code, as IEEE overflow in those modes says; rz and ro never carry that far;
 * saturation clamps the magnitude to max. */
MF_V vu k_round_bf16(vu u, const mf_round r, const mf_overflow o, vu rbits)
{
    const mf__fmt f = mf__fmt_get(MF_BF16);
    const vu a = v_and(u, v_set1(0x7FFFFFFFu));
    const vm neg = v_gt_u(u, v_set1(0x7FFFFFFFu));
    vu code;
    if (r == MF_ROUND_STOCHASTIC) {
        /* the sign rides along (|x| + bits < 2^31 but for NaN); saturation first clamps |x| to max,
         * which then stays max */
        vu s = u;
        if (o == MF_OVERFLOW_SATURATE)
            s = v_min_u(u, v_or(v_and(u, v_set1(0x80000000u)), v_set1((uint32_t)mf__fmt_max_code(f) << 16)));
        return v_blend(v_isnan(u), v_srli(v_add(s, rbits), 16), v_set1((uint32_t)mf__fmt_nan_code(f)));
    }
    switch (r) {
    case MF_ROUND_NEAREST_EVEN:
        code = v_srli(v_add(a, v_add(v_set1(0x7FFFu), v_and(v_srli(a, 16), v_set1(1)))), 16);
        break;
    case MF_ROUND_NEAREST_AWAY: code = v_srli(v_add(a, v_set1(0x8000u)), 16); break;
    case MF_ROUND_UP: code = v_srli(v_add(a, v_blend(neg, v_set1(0xFFFFu), v_zero())), 16); break;
    case MF_ROUND_DOWN: code = v_srli(v_add(a, v_blend(neg, v_zero(), v_set1(0xFFFFu))), 16); break;
    case MF_ROUND_ODD: code = v_or_m1(v_test(a, v_set1(0xFFFFu)), v_srli(a, 16)); break;
    case MF_ROUND_STOCHASTIC: code = v_srli(v_add(a, rbits), 16); break; /* rbits: the 16 random bits */
    default: code = v_srli(a, 16); break;
    }
    if (o == MF_OVERFLOW_SATURATE)
        code = v_min_u(code, v_set1((uint32_t)mf__fmt_max_code(f)));
#ifdef V_HAS_TABLE32 /* the NaN code is also the mask that takes the magnitude from code, the sign from u */
    return v_keep_select(v_lt_u(a, v_set1(0x7F800001u)), code, v_srli(u, 16), v_set1((uint32_t)mf__fmt_nan_code(f)));
#else
    code = v_or(code, v_srli(v_and(u, v_set1(K_H)), 16));
    return v_blend(v_gt_u(a, v_set1(0x7F800000u)), code, v_set1((uint32_t)mf__fmt_nan_code(f)));
#endif
}

/* ---- binary32 -> e8m0, one vector: the code is the binary32 exponent, rounded on |x| ------------ */
MF_V vu k_round_e8m0(vu u, const mf_round r, const mf_overflow o, vu rbits, const int count, k_counts *ct)
{
    const vu a = v_and(u, v_set1(0x7FFFFFFFu));
    vu e = v_srli(a, 23);
    vu mant = v_and(a, v_set1(0x7FFFFFu));
    vm isnan = v_gt_u(a, v_set1(0x7F800000u));
    vm isinf = v_eq(a, v_set1(0x7F800000u));
    /* binary32 subnormals in [2^-127, 2^-126) sit in code 0 with the fraction mant << 1 */
    vm sub32 = v_eq(e, v_zero());
    vm tiny = v_lt_u(a, v_set1(0x00400000u)); /* below 2^-127 (zero included): code 0, no rounding */
    vu fr = v_blend(sub32, mant, v_and(v_slli(mant, 1), v_set1(0x7FFFFFu)));
    vu frac = v_slli(fr, 9);
    vm inexact = m_andnot(tiny, v_nonzero(frac));
    vu code = e;
    vm ovf;
    vu res;
    switch (r) {
    case MF_ROUND_NEAREST_EVEN:
    case MF_ROUND_NEAREST_AWAY: code = v_add_m1(v_ge_u(frac, v_set1(K_H)), code); break;
    case MF_ROUND_UP: code = v_add_m1(inexact, code); break;
    case MF_ROUND_ODD: code = v_or_m1(inexact, code); break;
    case MF_ROUND_STOCHASTIC: code = v_add_m1(v_lt_u(v_add(frac, rbits), frac), code); break;
    default: break; /* rz, rd: |x| >= 0 */
    }
    code = v_blend(tiny, code, v_zero());
    ovf = v_gt_u(code, v_set1(0xFEu)); /* 0xFF from rounding, or inf / NaN */
    res = v_min_u(code, v_set1(0xFEu));
    if (o == MF_OVERFLOW_IEEE) {
        switch (r) {
        case MF_ROUND_TOWARD_ZERO:
        case MF_ROUND_DOWN:
        case MF_ROUND_ODD: res = v_blend(isinf, res, v_set1(0xFFu)); break;
        default: res = v_blend(ovf, res, v_set1(0xFFu)); break;
        }
    }
    res = v_blend(isnan, res, v_set1(0xFFu));
    if (count) {
        vm finite_ovf = m_andnot(m_or(isnan, isinf), ovf);
        ct->ovf += m_count(m_or(finite_ovf, isinf));
        ct->nan += m_count(isnan);
        ct->inx += m_count(m_or(m_andnot(m_or(isnan, isinf), m_or(m_or(inexact, tiny), ovf)), isinf));
    }
    return res;
}

/* ---- binary32 -> e8m0, every mode but sr, no statistics: integer operations only --------------------
 * The code of a normal |x| is its exponent field after adding to |x| what carries into the exponent
 * exactly when the mode rounds up: half the binade (rn and rna, on the linear scale) or all ones
 * below the exponent (ru); nothing for rz and rd, which see |x|. Binary32 subnormals from 2^-127
 * up sit in code 0 and go up to code 1 at 1.5 * 2^-127 (rn, rna) or above 2^-127 (ru); below 2^-127
 * every mode gives code 0. What carries past 0xFE (and inf, NaN) is 0xFF, which saturation turns
 * into 0xFE for all but NaN. ro: the exponent field with its last bit set where the mantissa is not
 * zero (in [2^-127, 2^-126), 1 above 2^-127), 0xFE at most for finite |x|. */
MF_V int k_e8m0_fast_ok(const mf_round r)
{
    return r != MF_ROUND_STOCHASTIC;
}

MF_V vu k_round_e8m0_fast(vu u, const mf_round r, const mf_overflow o)
{
    const int up = r == MF_ROUND_UP, near = r == MF_ROUND_NEAREST_EVEN || r == MF_ROUND_NEAREST_AWAY;
    const vu a = v_and(u, v_set1(0x7FFFFFFFu));
    if (r == MF_ROUND_ODD) { /* the exponent field, or 1 where bits below it are set; no finite |x| overflows */
        vu code = v_or_m1(v_test(a, v_set1(0x7FFFFFu)), v_srli(a, 23));
        code = v_blend(v_gt_u(a, v_set1(0x400000u)), v_zero(), code); /* up to 2^-127: code 0 */
        return v_blend(v_gt_u(a, v_set1(o == MF_OVERFLOW_SATURATE ? 0x7F800000u : 0x7F7FFFFFu)), v_min_u(code, v_set1(0xFEu)),
                       v_set1(0xFFu));
    }
    vu code = v_srli(up ? v_add(a, v_set1(0x7FFFFFu)) : near ? v_add(a, v_set1(0x400000u)) : a, 23);
    if (up || near) /* below 2^-126: 1 from the threshold up, else 0 */
        code = v_blend(v_lt_u(a, v_set1(0x800000u)), code,
                       v_srli(v_sub(v_set1(up ? 0x400000u : 0x5FFFFFu), a), 31));
    if (o == MF_OVERFLOW_SATURATE)
        return v_blend(v_gt_u(a, v_set1(0x7F800000u)), v_min_u(code, v_set1(0xFEu)), v_set1(0xFFu));
    return v_min_u(code, v_set1(0xFFu));
}

/* sr, no statistics: r the element's 8 random bits (zero-extended). The core's rule is a carry out of
 * (mant << 9) + (r << 24), that is of mant + (r << 15) into the exponent field, so the code is
 * (|x| + (r << 15)) >> 23; a binary32 subnormal at or above 2^-127 carries its fraction (mant << 1)
 * into code 1 alike, (2|x| + (r << 15)) >> 24, which is 0 below 2^-127 (no rounding there). NaNs and
 * infinities land on 0xFF and above, as in the other modes. */
MF_V vu k_round_e8m0_sr(vu u, const mf_overflow o, vu r)
{
    const vu a = v_and(u, v_set1(0x7FFFFFFFu)), rs = v_slli(r, 15);
    const vu code = v_blend(v_lt_u(a, v_set1(0x800000u)), v_srli(v_add(a, rs), 23), v_srli(v_add(v_add(a, a), rs), 24));
    if (o == MF_OVERFLOW_SATURATE)
        return v_blend(v_gt_u(a, v_set1(0x7F800000u)), v_min_u(code, v_set1(0xFEu)), v_set1(0xFFu));
    return v_min_u(code, v_set1(0xFFu));
}

/* ---- a narrow code -> binary32 bits (exact), one vector ------------------------------------------ */
MF_V vu k_decode(vu c, const mf_format fmt)
{
    const mf__fmt f = mf__fmt_get(fmt);
    if (fmt == MF_BF16)
        return v_slli(c, 16);
    if (f.kind == MF__KIND_E8M0) {
        vu r = v_slli(c, 23);
        r = v_blend(v_eq(c, v_zero()), r, v_set1(0x00400000u)); /* 2^-127 */
        return v_blend(v_eq(c, v_set1(0xFFu)), r, v_set1(0x7FC00000u));
    } else {
        const int man = f.man;
        const uint32_t magmask = (uint32_t)mf__fmt_mag_mask(f);
        vu mag = v_and(c, v_set1(magmask));
        vu mant = v_and(mag, v_set1((1u << man) - 1u));
        vu expf = v_srli(mag, man);
        vu sign = v_slli(v_srli(c, f.bits - 1), 31);
        /* normal: rebias the exponent, widen the mantissa */
        vu r = v_add(v_slli(mag, 23 - man), v_set1((uint32_t)(127 - f.bias) << 23));
        /* subnormal: mant * 2^(emin - man), exactly, in binary32 arithmetic (a normal result) */
        vu s = v_u32_times_pow2(mant, mf__fmt_emin(f) - man);
        r = v_blend(v_eq(expf, v_zero()), r, s); /* zero included: 0 * 2^k = +0 */
        return k_decode_special(r, sign, c, mag, expf, mant, f);
    }
}

/* ---- stochastic rounding's random bits --------------------------------------------------------------
 * Element idx of a call rounding to D takes a slice of stream word idx >> k_sr_shift(D) (minifloat/
 * philox.h): one vector of MF_VL words, lanes 4j..4j+3 the four words of one Philox block, serves
 * 2^k_sr_shift(D) vectors of elements (k_sr_part: each lane's mf_sr_width(D) bits, zero-extended). */
MF_V int k_sr_shift(const mf_format D) { return (int)mf__sr_shift(mf_sr_width(D)); }

MF_V vu k_sr_part(vu words, const mf_format D, const int p)
{
    const int sh = k_sr_shift(D);
    return sh == 1 ? v_sr_part16(words, p) : sh == 2 ? v_sr_part8(words, p) : words;
}

/* Those bits as the 32-bit rbits of the scalar rule (at the top) */
MF_V vu k_sr_top(vu part, const mf_format D)
{
    const int sh = k_sr_shift(D);
    return sh ? v_slli(part, 32 - (32 >> sh)) : part;
}

typedef struct k_philox_keys {
    vu k[10];
} k_philox_keys;

/* Built in registers: lanes written one by one through memory and read back as a vector stall the
 * load (store forwarding fails), a large cost for a short call (docs/perf/tuning.md). */
static inline void k_philox_keys_init(k_philox_keys *ks, uint64_t seed)
{
    const uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
#ifdef V_PHILOX_ORDER_0321 /* the vocabulary keeps words in the order (c0, c3, c2, c1) */
    const vu step = v_set4(0, 0xBB67AE85u, 0, 0x9E3779B9u); /* the Weyl key schedule */
    vu k = v_set4(0, k1, 0, k0);
#else
    const vu step = v_set4(0x9E3779B9u, 0, 0xBB67AE85u, 0);
    vu k = v_set4(k0, 0, k1, 0);
#endif
    int i;
    for (i = 0; i < 10; i++, k = v_add(k, step))
        ks->k[i] = k;
}

/* The counters of the MF_VL / 4 blocks from block b: (b + j) in lanes 4j, 4j+1; zero in 4j+2, 4j+3.
 * Block numbers are element stream indices >> (sh + 2), so they wrap at 2^(62 - sh) as the indices
 * wrap at 2^64. */
static inline vu k_philox_counters(uint64_t b, int sh)
{
    uint32_t lanes[MF_VL];
    int j;
    b &= ((uint64_t)1 << (62 - sh)) - 1;
    if ((uint32_t)b <= 0xFFFFFFFFu - MF_VL / 4) { /* no lane's low word wraps: in registers (as above) */
        const vu blk = v_mullo(v_srli(v_lane_index(), 2), v_set4(1, 0, 0, 0)); /* j in lane 4j */
#ifdef V_PHILOX_ORDER_0321
        return v_add(v_set4((uint32_t)b, 0, 0, (uint32_t)(b >> 32)), blk);
#else
        return v_add(v_set4((uint32_t)b, (uint32_t)(b >> 32), 0, 0), blk);
#endif
    }
    for (j = 0; j < MF_VL; j += 4, b++) {
        b &= ((uint64_t)1 << (62 - sh)) - 1;
        lanes[j] = (uint32_t)b;
#ifdef V_PHILOX_ORDER_0321
        lanes[j + 1] = 0;
        lanes[j + 2] = 0;
        lanes[j + 3] = (uint32_t)(b >> 32);
#else
        lanes[j + 1] = (uint32_t)(b >> 32);
        lanes[j + 2] = 0;
        lanes[j + 3] = 0;
#endif
    }
    return v_load_u32(lanes);
}

MF_V vu k_philox(vu c, const k_philox_keys *ks)
{
    int j;
    for (j = 0; j < 9; j++)
        c = v_philox_round(c, ks->k[j]);
    return v_philox_last(c, ks->k[9]); /* the words in their plain order */
}

/* The words of K_SR_CHAINS vectors from the word of element stream index idx (a multiple of 4 << sh:
 * a Philox block's first word), the chains' rounds interleaved: a round waits on its multiplication,
 * so one chain alone leaves the multiplier idle much of the time. *ctr holds the counters of idx's
 * first vector (k_philox_counters) and is left holding those of the next chunk; they are stepped in
 * registers (building them through memory every chunk was much slower: docs/perf/tuning.md) except where a
 * lane's low counter word wraps. */
#define K_SR_CHAINS (MF_VL == 16 ? 16 : 4) /* AVX-512: 16, as 8 left the ports idle (docs/perf/tuning.md) */
MF_V void k_philox_chains_start(vu *rb, vu *ctr, uint64_t idx, const int sh)
{
    int j;
    if ((uint32_t)(idx >> (sh + 2)) <= 0xFFFFFFFFu - K_SR_CHAINS * MF_VL / 4) { /* no low word wraps here or next */
        vu c = *ctr;
        /* unrolled, so that the steps stay in registers: as a loop GCC made each add wait on the last
         * one's store */
#pragma GCC unroll 16
        for (j = 0; j < K_SR_CHAINS; j++, c = v_add(c, v_philox_step()))
            rb[j] = c;
        *ctr = c;
    } else {
        for (j = 0; j < K_SR_CHAINS; j++) /* the index wraps at 2^64 */
            rb[j] = k_philox_counters((idx + ((uint64_t)j * MF_VL << sh)) >> (sh + 2), sh);
        *ctr = k_philox_counters((idx + ((uint64_t)K_SR_CHAINS * MF_VL << sh)) >> (sh + 2), sh);
    }
}
MF_V void k_philox_chains(vu *rb, vu *ctr, uint64_t idx, const int sh, const k_philox_keys *ks)
{
    int j, r;
    k_philox_chains_start(rb, ctr, idx, sh);
    for (r = 0; r < 9; r++)
        for (j = 0; j < K_SR_CHAINS; j++)
            rb[j] = v_philox_round(rb[j], ks->k[r]);
    for (j = 0; j < K_SR_CHAINS; j++)
        rb[j] = v_philox_last(rb[j], ks->k[9]);
}

#endif /* MF_SIMD_KERNELS_H */
