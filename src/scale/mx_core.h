/* SPDX-License-Identifier: MIT */
/* src/scale/mx_core.h - the arithmetic of OCP MX and NVFP4 scaling, written once for the host (mx.c,
 * nvfp4.c) and the CUDA kernels (src/cuda/mx_elem.cuh) (private): the element types' facts, the E8M0 scale
 * of a block, the exact power-of-two scaling of an element, the MXINT8 rounding, and NVFP4's amax fold and
 * tensor scale. Integers and the library's binary32
 * arithmetic (detail/arith.h) only, so neither side's floating-point environment can change a byte. */
#ifndef MF_SCALE_MX_CORE_H
#define MF_SCALE_MX_CORE_H

#include "minifloat.h"
#include "minifloat/detail/arith.h"

/* The element format of an MX type; MXINT8 has no mf_format, MF_FP32 marks it. A switch, not a table: a
 * device function may not read static data. */
MF_HD MF_INLINE mf_format mf__mx_elem_format(mf_mx_type type)
{
    switch (type) {
    case MF_MXFP8_E4M3: return MF_FP8_E4M3;
    case MF_MXFP8_E5M2: return MF_FP8_E5M2;
    case MF_MXFP6_E2M3: return MF_FP6_E2M3;
    case MF_MXFP6_E3M2: return MF_FP6_E3M2;
    case MF_MXFP4_E2M1: return MF_FP4_E2M1;
    default: return MF_FP32;
    }
}

/* The binary32 bits of an element format's largest magnitude (MXINT8: 127 * 2^-6 = 1.984375). Its
 * exponent, (bits >> 23) - 127, is the spec's emax_elem (microsoft/microxcaling mx/formats.py gives the
 * same values: e4m3 8, e5m2 15, e2m3 2, e3m2 4, e2m1 2, int8 0). */
MF_HD MF_INLINE uint32_t mf__mx_max_bits(mf_format fmt)
{
    return fmt == MF_FP32 ? 0x3FFE0000u : mf__decode_f32_bits(fmt, (uint32_t)mf__fmt_max_code(mf__fmt_get(fmt)));
}

/* The E8M0 code for a block whose largest magnitude has the binary32 bits mag (sign cleared; a NaN or
 * inf anywhere in the block makes mag >= 0x7F800000, since those bit patterns sort above every finite
 * magnitude). emax as above; rceil: MF_MX_SCALE_RCEIL; rcp = 1 / max_elem rounded to binary32. */
MF_HD MF_INLINE unsigned mf__mx_scale_e8m0(int emax, int rceil, uint32_t mag, float rcp)
{
    int e;
    if (mag >= 0x7F800000u) /* OCP MX 6.3 / microxcaling: Inf or NaN in the block -> X = NaN */
        return 0xFF;
    if (rceil)
        /* TE: float_to_e8m0(amax * Quantized_Limits<T>::max_norm_rcp) with max_norm_rcp =
         * (float)(1.0 / max_norm), i.e. cvt.rp.satfinite.ue8m0x2.f32 of the binary32 product; its
         * software fallback (0 -> 0x00, ceil on the exponent, 0xFE cap, subnormals rounded up) is
         * exactly our e8m0 ru-saturating conversion. The product is rounded to binary32 first, as on
         * the GPU. */
        return mf_from_f32(MF_E8M0, mf__f32_mul(mf__f32_from_bits(mag), rcp), MF_ROUND_UP, MF_OVERFLOW_SATURATE, 0);
    if (mag == 0) /* log2(0) = -inf: clamps to the smallest scale */
        return 0;
    /* floor(log2 amax): the unbiased exponent; for an f32 subnormal, the position of its top bit */
    e = mag >= 0x00800000u ? (int)(mag >> 23) - 127 : 63 - mf__clz64(mag) - 149;
    e -= emax;
    /* clamp to E8M0's [-127, 127]; e <= 127 - emax already for finite amax */
    return e < -127 ? 0u : (unsigned)(e + 127);
}

/* x * 2^e for a finite x (bits b), |e| <= 127, as binary32 bits.
 *
 * The result is exact whenever it is zero or a normal binary32: a power-of-two scaling only moves
 * the exponent. The one inexact case of a binary32 multiplication, a product below 2^-126 (an f32
 * subnormal, or zero after rounding), comes back as a signed zero with *tiny set. That cannot change
 * the MX element: the smallest nonzero element magnitude of every type is at least 2^-16 (e5m2's
 * subnormal; e4m3 2^-9, FP6 2^-3 and 2^-4, e2m1 2^-1, MXINT8 2^-6), so
 *   rn: a magnitude below 2^-126 is below half that, and rounds to a zero of x's sign;
 *   sr: the discarded fraction f = |q| / 2^-16 < 2^-110 truncates to 0 in 32 bits, and the rule
 *       "up iff f * 2^32 + rbits >= 2^32" never fires, so the result is that zero too.
 * The caller counts the underflow and inexact events the conversion of the zero cannot see, so the
 * statistics are those of the exact quotient. x * 2^e never overflows here: |x| <= amax and the scale
 * rules give amax * 2^e < 2^(emax+1) (FLOOR) or <= max_elem (RCEIL, up to one binary32 rounding). */
MF_HD MF_INLINE uint32_t mf__mx_scale_pow2(uint32_t b, int e, int *tiny)
{
    const uint32_t s = b & 0x80000000u;
    uint32_t m = b & 0x007FFFFFu;
    int ex = (int)((b >> 23) & 0xFFu);
    if ((b & 0x7FFFFFFFu) == 0)
        return b;
    if (ex == 0) {                        /* subnormal input: normalise (value m * 2^-149) */
        const int sh = mf__clz64(m) - 40; /* bring the top bit to bit 23 */
        m = (m << sh) & 0x007FFFFFu;
        ex = 1 - sh;
    }
    ex += e;
    if (ex < 1) {
        *tiny = 1;
        return s;
    }
    if (ex > 254) /* unreachable (see above); +-inf then saturates */
        return s | 0x7F800000u;
    return s | (uint32_t)ex << 23 | m;
}

/* The MXINT8 code of x / 2^k: |x| * 2^(6-k) rounded to an integer (rn: ties to even; sr (nonzero): up iff
 * the discarded fraction, truncated to 32 bits, plus rbits reaches 2^32, the library's rule) and clamped
 * to 127; two's complement with x's sign (a zero result is 0x00). Events ORed into *ev as MF__EV_* bits. */
MF_HD MF_INLINE uint32_t mf__mx_int8_code(uint32_t b, int k, int sr, uint32_t rbits, unsigned *ev)
{
    const uint32_t a = b & 0x7FFFFFFFu;
    uint32_t M, mag;
    int t, inexact;
    if (a == 0)
        return 0;
    if (a >= 0x00800000u) {
        M = (a & 0x007FFFFFu) | 0x00800000u;
        t = (int)(a >> 23) - 150;
    } else {
        M = a;
        t = -149;
    }
    t += 6 - k; /* |x| * 2^(6-k) = M * 2^t, M < 2^24 */
    if (t >= 0) {
        mag = t >= 8 ? 128u : M << t; /* >= 128 saturates anyway */
        inexact = 0;
    } else {
        const unsigned sh = (unsigned)-t;
        const uint32_t ip = sh < 32 ? M >> sh : 0u;
        const uint64_t rem = sh < 32 ? (uint64_t)(M & ((1u << sh) - 1u)) : (uint64_t)M;
        uint32_t frac32; /* discarded fraction, truncated to 32 bits */
        if (sh <= 32)
            frac32 = (uint32_t)(rem << (32 - sh));
        else
            frac32 = sh - 32 < 64 ? (uint32_t)(rem >> (sh - 32)) : 0u;
        inexact = rem != 0;
        if (sr)
            mag = ip + (uint32_t)(((uint64_t)frac32 + rbits) >> 32);
        else /* a fraction with sh > 32 is below 2^-8, never a tie or above it */
            mag = ip + (sh <= 32 && (frac32 > 0x80000000u || (frac32 == 0x80000000u && (ip & 1u))));
    }
    if (mag > 127) {
        mag = 127;
        *ev |= MF__EV_OVERFLOW;
        inexact = 1;
    }
    if (mag == 0)
        *ev |= MF__EV_UNDERFLOW;
    if (inexact)
        *ev |= MF__EV_INEXACT;
    return b >> 31 ? (0x100u - mag) & 0xFFu : mag;
}

/* ---- NVFP4 ----------------------------------------------------------------------------------------- */

/* fminf(v, FLT_MAX): NaN gives FLT_MAX (fminf returns the other operand), +inf gives FLT_MAX. */
MF_HD MF_INLINE float mf__min_flt_max(float v)
{
    const uint32_t b = mf__f32_bits(v);
    if ((b & 0x7FFFFFFFu) > 0x7F800000u || b == 0x7F800000u)
        return mf__f32_from_bits(0x7F7FFFFFu);
    return v;
}

/* |x| folded with fmaxf from 0: NaN elements are skipped (fmaxf returns the other operand), so the
 * result is the largest non-NaN magnitude, +inf included. As bit patterns: magnitudes sort like
 * their bits, and every NaN is above 0x7F800000. */
MF_HD MF_INLINE uint32_t mf__nv_fold(uint32_t acc, float x)
{
    const uint32_t m = mf__f32_bits(x) & 0x7FFFFFFFu;
    return m <= 0x7F800000u && m > acc ? m : acc;
}

/* TE's compute_global_encode_scaling_factor_FP4 (mf_nvfp4_global_scale). */
MF_HD MF_INLINE float mf__nv_global_scale(float amax)
{
    /* fp8_max * fp4_max = 448 * 6 = 2688, exact in binary32 (a constexpr product in TE) */
    float s = mf__f32_div(2688.0f, amax);
    /* If scale is infinity, return max value of float32 */
    s = mf__min_flt_max(s);
    /* If global amax is 0 or infinity, return 1 */
    if ((mf__f32_bits(amax) & 0x7FFFFFFFu) == 0 || (mf__f32_bits(s) & 0x7FFFFFFFu) == 0)
        return 1.0f;
    return s;
}

#endif /* MF_SCALE_MX_CORE_H */
