/* SPDX-License-Identifier: MIT */
/* minifloat/detail/profile.h - what each compatibility profile changes (private; minifloat/profile.h).
 *
 * A profile never rounds differently: finite values go through the one core (detail/round.h). What
 * differs between systems is written here as data and small fix-ups: which formats and modes a system
 * has, its overflow policy where it offers no choice, the NaN code it writes, a negative e4m3 NaN from
 * an overflow, its e8m0 quirks, whether an f64 source is first rounded to f32, and how it decodes NaN
 * codes. docs/compat.md has the tables, measured against each system.
 */
#ifndef MINIFLOAT_DETAIL_PROFILE_H
#define MINIFLOAT_DETAIL_PROFILE_H

#include "../scalar.h"

/* Is fmt one of the system's formats? (f32 and f64 always are.) */
MF_HD MF_INLINE int mf__profile_has(mf_profile p, mf_format fmt)
{
    if (fmt == MF_FP32 || fmt == MF_FP64)
        return (unsigned)p < MF_PROFILE_COUNT;
    switch (p) {
    case MF_PROFILE_DEFAULT: return (unsigned)fmt < MF_FORMAT_COUNT;
    case MF_PROFILE_CUDA: return (unsigned)fmt <= MF_E8M0;
    case MF_PROFILE_ML_DTYPES: return (unsigned)fmt <= MF_FP8_E3M4; /* no P3109 dtype in ml_dtypes */
    case MF_PROFILE_TORCH:
        return fmt == MF_FP16 || fmt == MF_BF16 || fmt == MF_FP8_E4M3 || fmt == MF_FP8_E5M2 ||
               fmt == MF_FP8_E4M3FNUZ || fmt == MF_FP8_E5M2FNUZ || fmt == MF_E8M0;
    case MF_PROFILE_ONNX:
        return fmt == MF_FP16 || fmt == MF_BF16 || fmt == MF_FP8_E4M3 || fmt == MF_FP8_E5M2 ||
               fmt == MF_FP8_E4M3FNUZ || fmt == MF_FP8_E5M2FNUZ || fmt == MF_FP4_E2M1 || fmt == MF_E8M0;
    default: return 0;
    }
}

/* Does the system round into fmt in mode r? Round-to-nearest-even everywhere; CUDA's f16/bf16 (and
 * f32 from f64) also rz/ru/rd, its FP6/FP4 rz, its e8m0 only rz/ru; ONNX's e8m0 "nearest", "up" and
 * "down" (rn, ru, and rz or rd). */
MF_HD MF_INLINE int mf__profile_mode(mf_profile p, mf_format fmt, mf_round r)
{
    if (p == MF_PROFILE_DEFAULT)
        return (unsigned)r < MF_ROUND_COUNT;
    if (p == MF_PROFILE_CUDA && fmt == MF_E8M0)
        return r == MF_ROUND_TOWARD_ZERO || r == MF_ROUND_UP;
    if (p == MF_PROFILE_CUDA && (fmt == MF_FP6_E2M3 || fmt == MF_FP6_E3M2 || fmt == MF_FP4_E2M1))
        return r == MF_ROUND_NEAREST_EVEN || r == MF_ROUND_TOWARD_ZERO;
    if (p == MF_PROFILE_CUDA && (fmt == MF_FP32 || fmt == MF_FP16 || fmt == MF_BF16))
        return r == MF_ROUND_NEAREST_EVEN || r == MF_ROUND_TOWARD_ZERO || r == MF_ROUND_UP || r == MF_ROUND_DOWN;
    if (p == MF_PROFILE_ONNX && fmt == MF_E8M0) /* "down" on the magnitude: rz and rd alike */
        return r == MF_ROUND_NEAREST_EVEN || r == MF_ROUND_UP || r == MF_ROUND_TOWARD_ZERO || r == MF_ROUND_DOWN;
    return r == MF_ROUND_NEAREST_EVEN;
}

/* The policy the system applies: the caller's where it offers a choice (CUDA's satfinite for FP8 and
 * e8m0, ONNX's saturate for its FP8 formats), else its only one. */
MF_HD MF_INLINE mf_overflow mf__profile_policy(mf_profile p, mf_format fmt, mf_overflow o)
{
    const int fp8 = fmt == MF_FP8_E4M3 || fmt == MF_FP8_E5M2 || fmt == MF_FP8_E4M3FNUZ || fmt == MF_FP8_E5M2FNUZ;
    switch (p) {
    case MF_PROFILE_CUDA: return fp8 || fmt == MF_E8M0 ? o : MF_OVERFLOW_IEEE;
    case MF_PROFILE_TORCH: return fmt == MF_FP8_E4M3 ? MF_OVERFLOW_SATURATE : MF_OVERFLOW_IEEE;
    case MF_PROFILE_ONNX: return fp8 ? o : MF_OVERFLOW_IEEE;
    case MF_PROFILE_ML_DTYPES: return MF_OVERFLOW_IEEE;
    default: return o;
    }
}

/* The NaN code the system writes for a NaN input u (sign u.sign, payload left-aligned in u.sig);
 * src64: the input was a binary64 (CUDA's double path and PyTorch's bf16 differ from their float
 * paths). */
MF_HD MF_INLINE uint32_t mf__profile_nan(mf_profile p, mf_format fmt, mf__unpacked u, int src64)
{
    const mf__fmt f = mf__fmt_get(fmt);
    const uint32_t s = u.sign, sign_bit = s << (f.bits - 1);
    if (p == MF_PROFILE_CUDA) {
        if (fmt == MF_FP8_E4M3 && src64)
            return 0x7Fu | sign_bit;
        if (fmt == MF_FP8_E5M2 && src64) /* quiet, the top two payload bits kept */
            return 0x7Eu | (uint32_t)(u.sig >> 62) | sign_bit;
        return (uint32_t)mf__fmt_nan_code(f);
    }
    if (p == MF_PROFILE_DEFAULT || f.kind == MF__KIND_FNUZ || f.kind == MF__KIND_E8M0)
        return (uint32_t)mf__fmt_nan_code(f);
    if (fmt == MF_FP32) /* x86's cvtsd2ss: quiet, sign and top payload bits kept */
        return (s << 31) | 0x7FC00000u | (uint32_t)(u.sig >> 41);
    if (p == MF_PROFILE_TORCH) {
        if (fmt == MF_BF16) /* its vector kernels write all ones (docs/compat.md: the scalar tails differ) */
            return 0xFFFFu;
        if (fmt == MF_FP16) /* F16C's vcvtps2ph: quiet, the top ten payload bits kept */
            return sign_bit | 0x7E00u | (uint32_t)(u.sig >> 54);
        return 0x7Fu | sign_bit; /* e4m3, e5m2 */
    }
    /* ml_dtypes, and ONNX's reference (which casts with ml_dtypes) */
    if (fmt == MF_FP16) { /* numpy: the top ten payload bits, not quieted, never inf */
        uint32_t m = (uint32_t)(u.sig >> 54);
        return sign_bit | 0x7C00u | (m ? m : 1u);
    }
    if (f.kind == MF__KIND_NONE) /* FP6 / FP4: a zero with the opposite sign */
        return (s ^ 1u) << (f.bits - 1);
    if (f.kind == MF__KIND_FN)
        return 0x7Fu | sign_bit;
    return sign_bit | (uint32_t)mf__fmt_inf_code(f) | (1u << (f.man - 1)); /* IEEE-style: the quiet NaN */
}

/* ONNX's e8m0 cast (onnx.numpy_helper.to_float8e8m0): on the binary32 bits, sign ignored, NaN and inf
 * to 0xFF even when saturating; "nearest" rounds up when the guard bit is set and the rest or the
 * implicit bit is, so a subnormal above 2^-127 goes to 2^-126. */
MF_HD MF_INLINE uint32_t mf__onnx_e8m0(uint32_t bits, mf_round r, mf_overflow o)
{
    const uint32_t e = (bits >> 23) & 0xFFu;
    int up;
    if (e == 0xFFu)
        return 0xFFu;
    if (r == MF_ROUND_NEAREST_EVEN)
        up = (bits & 0x400000u) && ((bits & 0x3FFFFFu) || e > 0);
    else if (r == MF_ROUND_UP)
        up = (bits & 0x7FFFFFu) != 0;
    else
        up = 0;
    if (up && e == 0xFEu && o == MF_OVERFLOW_SATURATE)
        up = 0;
    return (e + (uint32_t)up) & 0xFFu;
}

/* Round u (decoded from a binary32, or from a binary64 when src64) into fmt as system p does; ORs the
 * events of the underlying rounding into *ev. The caller has checked mf__profile_has/_mode, and has
 * rounded a binary64 source to binary32 where the system does (PyTorch; ONNX's e8m0). */
MF_HD MF_INLINE uint32_t mf__profile_round(mf_profile p, mf_format fmt, mf__unpacked u, int src64, mf_round r,
                                           mf_overflow o, uint32_t rbits, unsigned *ev)
{
    const mf__fmt f = mf__fmt_get(fmt);
    const mf_overflow po = mf__profile_policy(p, fmt, o);
    uint32_t code = mf__round_pack(f, u, r, po, rbits, ev);
    if (p == MF_PROFILE_DEFAULT)
        return code;
    if (u.cls == MF__CLS_NAN)
        return mf__profile_nan(p, fmt, u, src64);
    if (fmt == MF_E8M0) {
        if (p == MF_PROFILE_ML_DTYPES && (u.cls == MF__CLS_ZERO || u.sign)) /* x <= 0 has no e8m0 value */
            return 0xFFu;
        if (p == MF_PROFILE_TORCH && u.cls == MF__CLS_FINITE && u.exp == -127 && u.sig != (uint64_t)1 << 63)
            return 1u; /* c10 rounds binary32 subnormals above 2^-127 up (its guard-bit rule) */
        if (p == MF_PROFILE_ONNX)
            return mf__onnx_e8m0(mf__pack_f32_exact(u), r, o);
    }
    /* an e4m3 NaN made by an overflow or an infinity keeps the value's sign (CUDA's nosat, ml_dtypes) */
    if (f.kind == MF__KIND_FN && code == mf__fmt_nan_code(f))
        code |= u.sign << (f.bits - 1);
    return code;
}

/* x86's cvtss2sd of binary32 bits: exact, a NaN quieted with its payload kept. */
MF_HD MF_INLINE uint64_t mf__widen_f32_bits(uint32_t b)
{
    uint64_t s = (uint64_t)(b >> 31) << 63;
    if ((b & 0x7FFFFFFFu) > 0x7F800000u)
        return s | 0x7FF8000000000000u | ((uint64_t)(b & 0x7FFFFFu) << 29);
    return mf__f64_bits((double)mf__f32_from_bits(b));
}

/* Binary32 bits of a code as system p decodes it (exact for every value; NaN codes differ). */
MF_HD MF_INLINE uint32_t mf__profile_decode_f32(mf_profile p, mf_format fmt, uint32_t code)
{
    const mf__fmt f = mf__fmt_get(fmt);
    mf__unpacked u;
    if (p == MF_PROFILE_DEFAULT || fmt == MF_FP32 || fmt == MF_BF16 || f.bits == 0 || f.bits > 32)
        return mf__decode_f32_bits(fmt, code);
    u = mf__unpack(f, code);
    if (u.cls != MF__CLS_NAN)
        return mf__pack_f32_exact(u);
    switch (p) {
    case MF_PROFILE_CUDA: return fmt == MF_E8M0 ? 0x7FFF0000u : 0x7FFFFFFFu; /* e8m0 through bf16 0x7FFF */
    case MF_PROFILE_TORCH:
        if (f.kind == MF__KIND_FNUZ || f.kind == MF__KIND_E8M0)
            return 0x7F800001u;
        return mf__nan_f32(u);
    default: /* ml_dtypes, ONNX */
        if (fmt == MF_FP16) /* numpy: not quieted */
            return (u.sign << 31) | 0x7F800000u | (uint32_t)(u.sig >> 41);
        if (f.kind == MF__KIND_FNUZ || f.kind == MF__KIND_E8M0)
            return mf__nan_f32(u);
        return (u.sign << 31) | 0x7FC00000u; /* FP8: the payload dropped */
    }
}

/* Binary64 bits of a code as system p decodes it. */
MF_HD MF_INLINE uint64_t mf__profile_decode_f64(mf_profile p, mf_format fmt, uint64_t code)
{
    const mf__fmt f = mf__fmt_get(fmt);
    mf__unpacked u;
    if (p == MF_PROFILE_DEFAULT || fmt == MF_FP64 || f.bits == 0)
        return mf__decode_f64_bits(fmt, code);
    u = mf__unpack(f, code);
    if (u.cls != MF__CLS_NAN)
        return mf__pack_f64_exact(u);
    if (fmt == MF_FP32) /* cvtss2sd */
        return mf__widen_f32_bits((uint32_t)code);
    if (fmt == MF_FP16 && p == MF_PROFILE_TORCH)
        return mf__nan_f64(u);
    if (fmt == MF_FP16 && p != MF_PROFILE_CUDA) /* numpy: not quieted */
        return ((uint64_t)u.sign << 63) | 0x7FF0000000000000u | (u.sig >> 12);
    return mf__widen_f32_bits(mf__profile_decode_f32(p, fmt, (uint32_t)code)); /* through binary32 */
}

/* The binary32 a system first rounds a binary64 source to (PyTorch in every format, ONNX for e8m0):
 * round to nearest even, NaNs as cvtsd2ss writes them. */
MF_HD MF_INLINE uint32_t mf__profile_f64_to_f32(double x)
{
    unsigned ev = 0;
    mf__unpacked u = mf__unpack(mf__fmt_get(MF_FP64), mf__f64_bits(x));
    if (u.cls == MF__CLS_NAN)
        return (u.sign << 31) | 0x7FC00000u | (uint32_t)(u.sig >> 41);
    return mf__round_pack(mf__fmt_get(MF_FP32), u, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0, &ev);
}

/* Does system p round binary64 sources into fmt through binary32? */
MF_HD MF_INLINE int mf__profile_via_f32(mf_profile p, mf_format fmt)
{
    return fmt != MF_FP32 && (p == MF_PROFILE_TORCH || (p == MF_PROFILE_ONNX && fmt == MF_E8M0));
}

#endif /* MINIFLOAT_DETAIL_PROFILE_H */
