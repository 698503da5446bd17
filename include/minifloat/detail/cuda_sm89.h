/* SPDX-License-Identifier: MIT */
/* minifloat/detail/cuda_sm89.h - device fast paths for FP8 e4m3 / e5m2 (private).
 *
 * Included by detail/cuda.h in device code only. sm_89 and later (sm_90, sm_100, sm_120 included) have
 * one FP8 encoder, cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32: round to nearest even, +-max for overflows and
 * +-inf, NaN for NaN. It gives the core's rn codes with:
 *   - MF_OVERFLOW_SATURATE: the instruction, then the core's NaN 0x7F for NaN inputs by a select (the
 *     instruction's NaN byte and sign are not documented);
 *   - MF_OVERFLOW_IEEE: the same, then the overflow rule of mf__cuda_fp8_ieee_from_sat (e4m3 -> NaN 0x7F,
 *     e5m2 -> +-inf), one or two compares on the input's bits.
 * There is no non-saturating or directed-mode FP8 cvt: rz / ru / rd / rna / ro and f64 sources stay on
 * the core. Operand order: cvt writes its first source into the upper byte; both sources are x here,
 * and the low byte is kept. Decoding e4m3: cvt.rn.f16x2.e4m3x2 (exact) then cvt.f32.f16, with the core's
 * NaN (sign kept) by a select; e5m2 decodes through f16 on every architecture (cuda_sm80.h).
 * Stochastic rounding uses cvt.rs.satfinite.{e4m3x4,e5m2x4} only under MF_CUDA_USE_CVT_RS (cuda.h),
 * and only with MF_OVERFLOW_SATURATE.
 */
#ifndef MINIFLOAT_DETAIL_CUDA_SM89_H
#define MINIFLOAT_DETAIL_CUDA_SM89_H

MF__CUDA_DEV int mf__cuda_fp8_from_f32(mf_format fmt, float x, mf_round r, mf_overflow o, uint32_t rbits,
                                       uint32_t *code)
{
    uint32_t xbits = __float_as_uint(x);
#if MF__CUDA_CVT_RS
    if (r == MF_ROUND_STOCHASTIC && o == MF_OVERFLOW_SATURATE) {
        uint32_t d;
        if (fmt == MF_FP8_E4M3)
            asm("cvt.rs.satfinite.e4m3x4.f32 %0, {%1, %1, %1, %1}, %2;" : "=r"(d) : "f"(x), "r"(rbits));
        else
            asm("cvt.rs.satfinite.e5m2x4.f32 %0, {%1, %1, %1, %1}, %2;" : "=r"(d) : "f"(x), "r"(rbits));
        *code = mf__cuda_fix_nan(d & 0xFFu, xbits, 0x7Fu);
        return 1;
    }
#endif
#if MF__CUDA_FP8
    if (r == MF_ROUND_NEAREST_EVEN && mf__cuda_policy_ok(o)) {
        unsigned short d;
        if (fmt == MF_FP8_E4M3)
            asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %1;" : "=h"(d) : "f"(x));
        else
            asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %1;" : "=h"(d) : "f"(x));
        *code = o == MF_OVERFLOW_SATURATE ? mf__cuda_fix_nan(d & 0xFFu, xbits, 0x7Fu)
                                          : mf__cuda_fp8_ieee_from_sat(fmt, d & 0xFFu, xbits);
        return 1;
    }
#endif
    MF__CUDA_UNUSED5(fmt, r, o, rbits, code);
    (void)xbits;
    return 0;
}

MF__CUDA_DEV int mf__cuda_e4m3_to_f32(uint32_t code, uint32_t *bits)
{
#if MF__CUDA_FP8
    uint32_t c = code & 0xFFu, h2;
    asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(h2) : "h"((unsigned short)(c | c << 8)));
    *bits = mf__cuda_fix_e4m3_nan_decode(mf__cuda_cvt_f32_f16(h2 & 0xFFFFu), c);
    return 1;
#else
    (void)code;
    (void)bits;
    return 0;
#endif
}

#endif /* MINIFLOAT_DETAIL_CUDA_SM89_H */
