/* SPDX-License-Identifier: MIT */
/* minifloat/scalar.h - the generic scalar contract: any format, any mode, chosen by argument.
 *
 *   uint32_t mf_from_f32(mf_format fmt, float x,  mf_round r, mf_overflow o, uint32_t rbits);
 *   uint32_t mf_from_f64(mf_format fmt, double x, mf_round r, mf_overflow o, uint32_t rbits);
 *   float    mf_to_f32(mf_format fmt, uint32_t code);
 *   double   mf_to_f64(mf_format fmt, uint32_t code);
 *
 * Codes sit in the low bits of the uint32_t (an e4m3 code is 0..255, an e2m1 code 0..15).
 * mf_from_* round once, directly from the source value (an f64 is never rounded to f32 first).
 * rbits is read only by MF_ROUND_STOCHASTIC: the magnitude rounds away from zero iff
 * frac * 2^32 + rbits >= 2^32, where frac is the discarded fraction truncated to 32 bits.
 * mf_to_* are exact. All four are inline and usable in CUDA device code.
 *
 * Arguments outside the enums (or MF_FP64 given to a function whose code is 32 bits wide) give
 * UINT32_MAX from mf_from_* (a NaN when read as binary32, not a code of any narrower format) and a
 * NaN from mf_to_*.
 */
#ifndef MINIFLOAT_SCALAR_H
#define MINIFLOAT_SCALAR_H

#include "detail/round.h"
#include "detail/cuda.h" /* device fast paths: nothing outside CUDA device code but pure fix-ups */

MF_BEGIN_DECLS

/* Events a conversion can report; mf_from_f32_ev / mf_from_f64_ev OR them into *events. */
enum {
    MF_EVENT_OVERFLOW = MF__EV_OVERFLOW,   /* magnitude beyond max finite (or inf that did not stay inf) */
    MF_EVENT_UNDERFLOW = MF__EV_UNDERFLOW, /* nonzero input became zero */
    MF_EVENT_SUBNORMAL = MF__EV_SUBNORMAL, /* the result is a nonzero subnormal */
    MF_EVENT_NAN = MF__EV_NAN,             /* the input was a NaN */
    MF_EVENT_INEXACT = MF__EV_INEXACT      /* the result's value differs from the input's */
};

#define MF__BAD_CODE 0xFFFFFFFFu

MF_HD MF_INLINE int mf__args_ok(mf__fmt f, mf_round r, mf_overflow o)
{
    return f.bits != 0 && f.bits <= 32 && (unsigned)r < MF_ROUND_COUNT && (unsigned)o < MF_OVERFLOW_COUNT;
}

/* mf_from_f32 that also reports events. */
MF_HD MF_INLINE uint32_t mf_from_f32_ev(mf_format fmt, float x, mf_round r, mf_overflow o, uint32_t rbits,
                                        unsigned *events)
{
    mf__fmt f = mf__fmt_get(fmt);
    mf__unpacked u;
    if (!mf__args_ok(f, r, o))
        return MF__BAD_CODE;
    u = mf__unpack(mf__fmt_get(MF_FP32), mf__f32_bits(x));
    if (fmt == MF_FP32) { /* same format: the bits themselves */
        if (u.cls == MF__CLS_NAN)
            *events |= MF__EV_NAN;
        else if (u.cls == MF__CLS_FINITE && u.exp < -126)
            *events |= MF__EV_SUBNORMAL;
        return mf__f32_bits(x);
    }
    return mf__round_pack(f, u, r, o, rbits, events);
}

/* mf_from_f64 that also reports events. */
MF_HD MF_INLINE uint32_t mf_from_f64_ev(mf_format fmt, double x, mf_round r, mf_overflow o, uint32_t rbits,
                                        unsigned *events)
{
    mf__fmt f = mf__fmt_get(fmt);
    if (!mf__args_ok(f, r, o))
        return MF__BAD_CODE;
    return mf__round_pack(f, mf__unpack(mf__fmt_get(MF_FP64), mf__f64_bits(x)), r, o, rbits, events);
}

/* Round a binary32 value into fmt; returns the code. */
MF_HD MF_INLINE uint32_t mf_from_f32(mf_format fmt, float x, mf_round r, mf_overflow o, uint32_t rbits)
{
    unsigned ev = 0;
#if defined(__CUDA_ARCH__)
    { /* a cvt instruction where it gives these bits (detail/cuda.h) */
        uint32_t code;
        if (mf__cuda_from_f32(fmt, x, r, o, rbits, &code))
            return code;
    }
#endif
    return mf_from_f32_ev(fmt, x, r, o, rbits, &ev);
}

/* Round a binary64 value into fmt (MF_FP32 included) with a single rounding; returns the code. */
MF_HD MF_INLINE uint32_t mf_from_f64(mf_format fmt, double x, mf_round r, mf_overflow o, uint32_t rbits)
{
    unsigned ev = 0;
#if defined(__CUDA_ARCH__)
    { /* a cvt instruction where it gives these bits (detail/cuda.h) */
        uint32_t code;
        if (mf__cuda_from_f64(fmt, x, r, o, &code))
            return code;
    }
#endif
    return mf_from_f64_ev(fmt, x, r, o, rbits, &ev);
}

/* Binary32 bits of a code (exact). bf16 widens by a 16-bit shift, so a signalling bf16 NaN stays
 * signalling; other NaNs keep sign and payload and become quiet. */
MF_HD MF_INLINE uint32_t mf__decode_f32_bits(mf_format fmt, uint32_t code)
{
    mf__fmt f = mf__fmt_get(fmt);
    mf__unpacked u;
    if (fmt == MF_FP32)
        return code;
    if (fmt == MF_BF16)
        return (code & 0xFFFFu) << 16;
    if (f.bits == 0 || f.bits > 32)
        return 0x7FFFFFFFu;
    u = mf__unpack(f, code);
    return u.cls == MF__CLS_NAN ? mf__nan_f32(u) : mf__pack_f32_exact(u);
}

/* Binary64 bits of a code (exact); NaNs keep sign and payload and become quiet. */
MF_HD MF_INLINE uint64_t mf__decode_f64_bits(mf_format fmt, uint64_t code)
{
    mf__fmt f = mf__fmt_get(fmt);
    mf__unpacked u;
    if (fmt == MF_FP64)
        return code;
    if (f.bits == 0)
        return 0x7FFFFFFFFFFFFFFFu;
    u = mf__unpack(f, code);
    return u.cls == MF__CLS_NAN ? mf__nan_f64(u) : mf__pack_f64_exact(u);
}

/* The value of a code as binary32 (exact). */
MF_HD MF_INLINE float mf_to_f32(mf_format fmt, uint32_t code)
{
#if defined(__CUDA_ARCH__)
    { /* a cvt instruction where it gives these bits (detail/cuda.h) */
        uint32_t bits;
        if (mf__cuda_to_f32(fmt, code, &bits))
            return mf__f32_from_bits(bits);
    }
#endif
    return mf__f32_from_bits(mf__decode_f32_bits(fmt, code));
}

/* The value of a code as binary64 (exact). MF_FP64 is not accepted here (its code is 64 bits). */
MF_HD MF_INLINE double mf_to_f64(mf_format fmt, uint32_t code)
{
    if (fmt == MF_FP64)
        return mf__f64_from_bits(0x7FFFFFFFFFFFFFFFu);
    return mf__f64_from_bits(mf__decode_f64_bits(fmt, code));
}

MF_END_DECLS

#endif /* MINIFLOAT_SCALAR_H */
