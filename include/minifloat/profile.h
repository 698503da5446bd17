/* SPDX-License-Identifier: MIT */
/* minifloat/profile.h - scalar conversions as another system does them (compatibility profiles).
 *
 *   uint32_t mf_from_f32_profile(mf_profile p, mf_format fmt, float x, mf_round r, mf_overflow o);
 *   uint32_t mf_from_f64_profile(mf_profile p, mf_format fmt, double x, mf_round r, mf_overflow o);
 *   float    mf_to_f32_profile(mf_profile p, mf_format fmt, uint32_t code);
 *   double   mf_to_f64_profile(mf_profile p, mf_format fmt, uint32_t code);
 *   int      mf_profile_supports(mf_profile p, mf_format fmt, mf_round r);
 *
 * MF_PROFILE_CUDA, _ML_DTYPES, _TORCH and _ONNX reproduce that system's conversions bit for bit, NaN
 * codes and signs included (docs/compat.md lists what each changes, measured); MF_PROFILE_DEFAULT is
 * mf_from_f32 / mf_to_f32. The overflow policy is the caller's only where the system offers one (CUDA's
 * satfinite for FP8 and e8m0, ONNX's saturate for its FP8 formats); elsewhere o is ignored and the
 * system's own applies. A format or mode the system lacks (mf_profile_supports is 0), or an argument out
 * of range, gives UINT32_MAX from mf_from_*_profile and a NaN from mf_to_*_profile. Under
 * MF_PROFILE_TORCH a binary64 source is first rounded to binary32, as PyTorch does (double rounding: it is
 * how to reproduce a PyTorch result, not a correct rounding). Inline, host and device.
 */
#ifndef MINIFLOAT_PROFILE_H
#define MINIFLOAT_PROFILE_H

#include "detail/profile.h"

MF_BEGIN_DECLS

/* 1 when system p has format fmt and rounds into it in mode r (f32 and f64 are every system's). */
MF_HD MF_INLINE int mf_profile_supports(mf_profile p, mf_format fmt, mf_round r)
{
    return mf__profile_has(p, fmt) && mf__profile_mode(p, fmt, r);
}

MF_HD MF_INLINE uint32_t mf__from_f32_profile_ok(mf_profile p, mf_format fmt, float x, mf_round r, mf_overflow o)
{
    unsigned ev = 0;
    mf__unpacked u = mf__unpack(mf__fmt_get(MF_FP32), mf__f32_bits(x));
    if (fmt == MF_FP32)
        return mf__f32_bits(x);
    return mf__profile_round(p, fmt, u, 0, r, o, 0, &ev);
}

/* Round a binary32 value into fmt as system p does; returns the code. */
MF_HD MF_INLINE uint32_t mf_from_f32_profile(mf_profile p, mf_format fmt, float x, mf_round r, mf_overflow o)
{
    const mf__fmt f = mf__fmt_get(fmt);
    if (!mf__args_ok(f, r, o) || !mf_profile_supports(p, fmt, r) ||
        (p != MF_PROFILE_DEFAULT && o == MF_OVERFLOW_PROPAGATE)) /* no system reproduced has SatPropagate */
        return MF__BAD_CODE;
    return mf__from_f32_profile_ok(p, fmt, x, r, o);
}

/* Round a binary64 value into fmt (MF_FP32 included) as system p does; returns the code. */
MF_HD MF_INLINE uint32_t mf_from_f64_profile(mf_profile p, mf_format fmt, double x, mf_round r, mf_overflow o)
{
    const mf__fmt f = mf__fmt_get(fmt);
    unsigned ev = 0;
    if (!mf__args_ok(f, r, o) || !mf_profile_supports(p, fmt, r) ||
        (p != MF_PROFILE_DEFAULT && o == MF_OVERFLOW_PROPAGATE)) /* no system reproduced has SatPropagate */
        return MF__BAD_CODE;
    if (mf__profile_via_f32(p, fmt)) /* NaN codes still follow the system's double path */
        return mf__profile_round(p, fmt, mf__unpack(mf__fmt_get(MF_FP32), mf__profile_f64_to_f32(x)), 1, r, o, 0, &ev);
    return mf__profile_round(p, fmt, mf__unpack(mf__fmt_get(MF_FP64), mf__f64_bits(x)), 1, r, o, 0, &ev);
}

/* The value of a code as system p decodes it into binary32 (exact; NaN codes as the system writes them). */
MF_HD MF_INLINE float mf_to_f32_profile(mf_profile p, mf_format fmt, uint32_t code)
{
    if (!mf__profile_has(p, fmt) || fmt == MF_FP64)
        return mf__f32_from_bits(0x7FFFFFFFu);
    return mf__f32_from_bits(mf__profile_decode_f32(p, fmt, code));
}

/* The value of a code as system p decodes it into binary64. MF_FP64 is not accepted (its code is 64 bits). */
MF_HD MF_INLINE double mf_to_f64_profile(mf_profile p, mf_format fmt, uint32_t code)
{
    if (!mf__profile_has(p, fmt) || fmt == MF_FP64)
        return mf__f64_from_bits(0x7FFFFFFFFFFFFFFFu);
    return mf__f64_from_bits(mf__profile_decode_f64(p, fmt, code));
}

MF_END_DECLS

#endif /* MINIFLOAT_PROFILE_H */
