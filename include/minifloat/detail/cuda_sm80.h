/* SPDX-License-Identifier: MIT */
/* minifloat/detail/cuda_sm80.h - device fast paths for the IEEE destinations f16, bf16 and f32 (private).
 *
 * Included by detail/cuda.h in device code only. PTX cvt rounds once, in rn / rz / rp / rm, keeps
 * subnormals (no .ftz is written, and inline asm is not touched by -ftz=true or --use_fast_math), and
 * gives IEEE 754 overflow results: inf in rn, max finite where the mode rounds toward zero, the same as
 * the core's MF_OVERFLOW_IEEE. On top of the instruction:
 *   - NaN inputs get the core's NaN (0x7FFF; 0x7FFFFFFF for f32) by a select, so nothing rests on which
 *     NaN the hardware writes;
 *   - MF_OVERFLOW_SATURATE: cvt.{rn,rz}.satfinite (PTX 8.1) where it exists, else the IEEE result with
 *     +-inf replaced by +-max (mf__cuda_sat_from_ieee), which is the core's saturate rule.
 * Architectures: f16 from sm_53 (.satfinite from sm_80); bf16 rn/rz from sm_80, bf16 rm/rp and bf16
 * from f64 from sm_90 (as NVIDIA's cuda_bf16.hpp); f32 from f64 everywhere. Decoding: cvt.f32.f16 for f16 and for e5m2 (the top
 * byte of an f16), with the core's NaN (sign and payload kept) by a select.
 * Stochastic rounding of f16 / bf16 uses cvt.rs only under MF_CUDA_USE_CVT_RS (cuda.h).
 */
#ifndef MINIFLOAT_DETAIL_CUDA_SM80_H
#define MINIFLOAT_DETAIL_CUDA_SM80_H

/* One cvt per mode; the mode is part of the opcode, so each is its own asm statement. Callers have
 * checked mf__cuda_ieee_mode(r). */
#define MF__CUDA_CVT4(name, dtype, stype, dcon, scon, T, S)                                                            \
    MF__CUDA_DEV T name(S x, mf_round r)                                                                               \
    {                                                                                                                  \
        T d;                                                                                                           \
        if (r == MF_ROUND_NEAREST_EVEN)                                                                                \
            asm("cvt.rn." dtype "." stype " %0, %1;" : dcon(d) : scon(x));                                             \
        else if (r == MF_ROUND_TOWARD_ZERO)                                                                            \
            asm("cvt.rz." dtype "." stype " %0, %1;" : dcon(d) : scon(x));                                             \
        else if (r == MF_ROUND_UP)                                                                                     \
            asm("cvt.rp." dtype "." stype " %0, %1;" : dcon(d) : scon(x));                                             \
        else                                                                                                           \
            asm("cvt.rm." dtype "." stype " %0, %1;" : dcon(d) : scon(x));                                             \
        return d;                                                                                                      \
    }

#if MF__CUDA_F16
MF__CUDA_CVT4(mf__cuda_cvt_f16_f32, "f16", "f32", "=h", "f", unsigned short, float)
MF__CUDA_CVT4(mf__cuda_cvt_f16_f64, "f16", "f64", "=h", "d", unsigned short, double)
#endif
#if MF__CUDA_SM90
MF__CUDA_CVT4(mf__cuda_cvt_bf16_f32, "bf16", "f32", "=h", "f", unsigned short, float)
MF__CUDA_CVT4(mf__cuda_cvt_bf16_f64, "bf16", "f64", "=h", "d", unsigned short, double)
#endif
#if !defined(MF_CUDA_NO_FAST_PATHS)
MF__CUDA_CVT4(mf__cuda_cvt_f32_f64, "f32", "f64", "=f", "d", float, double)
#endif

/* The saturating rn / rz forms (PTX 8.1, sm_80); *done = 0 where absent (the caller's select then). */
MF__CUDA_DEV unsigned short mf__cuda_satfinite16(int bf16, float x, mf_round r, int *done)
{
    unsigned short d = 0;
    *done = 0;
#if MF__CUDA_SATFINITE16 && MF__CUDA_BF16 /* sm_80+: the PTX 8.1 forms are documented from there */
    if (!bf16 && r == MF_ROUND_NEAREST_EVEN) {
        asm("cvt.rn.satfinite.f16.f32 %0, %1;" : "=h"(d) : "f"(x));
        *done = 1;
    } else if (!bf16 && r == MF_ROUND_TOWARD_ZERO) {
        asm("cvt.rz.satfinite.f16.f32 %0, %1;" : "=h"(d) : "f"(x));
        *done = 1;
    }
#endif
#if MF__CUDA_SATFINITE16 && MF__CUDA_BF16
    if (bf16 && r == MF_ROUND_NEAREST_EVEN) {
        asm("cvt.rn.satfinite.bf16.f32 %0, %1;" : "=h"(d) : "f"(x));
        *done = 1;
    } else if (bf16 && r == MF_ROUND_TOWARD_ZERO) {
        asm("cvt.rz.satfinite.bf16.f32 %0, %1;" : "=h"(d) : "f"(x));
        *done = 1;
    }
#endif
    (void)bf16;
    (void)x;
    (void)r;
    return d;
}

/* cvt.rs for f16 / bf16 (opt-in, sm_100a / sm_103a): x in both halves, the low half kept. */
MF__CUDA_DEV int mf__cuda_rs16(int bf16, float x, mf_overflow o, uint32_t rbits, uint32_t *code)
{
#if MF__CUDA_CVT_RS
    uint32_t d;
    if (!bf16 && o == MF_OVERFLOW_IEEE)
        asm("cvt.rs.f16x2.f32 %0, %1, %2, %3;" : "=r"(d) : "f"(x), "f"(x), "r"(rbits));
    else if (!bf16)
        asm("cvt.rs.satfinite.f16x2.f32 %0, %1, %2, %3;" : "=r"(d) : "f"(x), "f"(x), "r"(rbits));
    else if (o == MF_OVERFLOW_IEEE)
        asm("cvt.rs.bf16x2.f32 %0, %1, %2, %3;" : "=r"(d) : "f"(x), "f"(x), "r"(rbits));
    else
        asm("cvt.rs.satfinite.bf16x2.f32 %0, %1, %2, %3;" : "=r"(d) : "f"(x), "f"(x), "r"(rbits));
    *code = mf__cuda_fix_nan(d & 0xFFFFu, __float_as_uint(x), 0x7FFFu);
    return 1;
#else
    (void)bf16;
    (void)x;
    (void)o;
    (void)rbits;
    (void)code;
    return 0;
#endif
}

MF__CUDA_DEV int mf__cuda_f16_from_f32(float x, mf_round r, mf_overflow o, uint32_t rbits, uint32_t *code)
{
#if MF__CUDA_F16
    uint32_t d = 0;
    int done = 0;
    if (r == MF_ROUND_STOCHASTIC && mf__cuda_policy_ok(o))
        return mf__cuda_rs16(0, x, o, rbits, code);
    if (!mf__cuda_ieee_mode(r) || !mf__cuda_policy_ok(o))
        return 0;
    if (o == MF_OVERFLOW_SATURATE)
        d = mf__cuda_satfinite16(0, x, r, &done);
    if (!done) {
        d = mf__cuda_cvt_f16_f32(x, r);
        if (o == MF_OVERFLOW_SATURATE)
            d = mf__cuda_sat_from_ieee(d, 0x7FFFu, 0x7C00u);
    }
    *code = mf__cuda_fix_nan(d, __float_as_uint(x), 0x7FFFu);
    return 1;
#else
    MF__CUDA_UNUSED5(x, r, o, rbits, code);
    return 0;
#endif
}

MF__CUDA_DEV int mf__cuda_bf16_from_f32(float x, mf_round r, mf_overflow o, uint32_t rbits, uint32_t *code)
{
#if MF__CUDA_BF16
    uint32_t d = 0;
    int done = 0;
    if (r == MF_ROUND_STOCHASTIC && mf__cuda_policy_ok(o))
        return mf__cuda_rs16(1, x, o, rbits, code);
    if (!mf__cuda_policy_ok(o))
        return 0;
    if (r == MF_ROUND_NEAREST_EVEN || r == MF_ROUND_TOWARD_ZERO) {
        /* sm_80 has these two modes as an instruction */
        if (o == MF_OVERFLOW_SATURATE)
            d = mf__cuda_satfinite16(1, x, r, &done);
        if (!done) {
            unsigned short h;
            if (r == MF_ROUND_NEAREST_EVEN)
                asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(x));
            else
                asm("cvt.rz.bf16.f32 %0, %1;" : "=h"(h) : "f"(x));
            d = o == MF_OVERFLOW_SATURATE ? mf__cuda_sat_from_ieee(h, 0x7FFFu, 0x7F80u) : h;
        }
    } else {
#if MF__CUDA_SM90
        if (!mf__cuda_ieee_mode(r))
            return 0;
        d = mf__cuda_cvt_bf16_f32(x, r);
        if (o == MF_OVERFLOW_SATURATE)
            d = mf__cuda_sat_from_ieee(d, 0x7FFFu, 0x7F80u);
#else
        return 0; /* rm / rp: sm_90 */
#endif
    }
    *code = mf__cuda_fix_nan(d, __float_as_uint(x), 0x7FFFu);
    return 1;
#else
    MF__CUDA_UNUSED5(x, r, o, rbits, code);
    return 0;
#endif
}

/* The NaN select for f64 sources. */
MF__CUDA_DEV uint32_t mf__cuda_fix_nan64(uint32_t code, double x, uint32_t nan_code)
{
    return ((uint64_t)__double_as_longlong(x) & 0x7FFFFFFFFFFFFFFFu) > 0x7FF0000000000000u ? nan_code : code;
}

MF__CUDA_DEV int mf__cuda_f32_from_f64(double x, mf_round r, mf_overflow o, uint32_t *code)
{
#if !defined(MF_CUDA_NO_FAST_PATHS)
    uint32_t d;
    if (!mf__cuda_ieee_mode(r) || !mf__cuda_policy_ok(o))
        return 0;
    d = __float_as_uint(mf__cuda_cvt_f32_f64(x, r));
    if (o == MF_OVERFLOW_SATURATE)
        d = mf__cuda_sat_from_ieee(d, 0x7FFFFFFFu, 0x7F800000u);
    *code = mf__cuda_fix_nan64(d, x, 0x7FFFFFFFu);
    return 1;
#else
    MF__CUDA_UNUSED4(x, r, o, code);
    return 0;
#endif
}

MF__CUDA_DEV int mf__cuda_f16_from_f64(double x, mf_round r, mf_overflow o, uint32_t *code)
{
#if MF__CUDA_F16
    uint32_t d;
    if (!mf__cuda_ieee_mode(r) || !mf__cuda_policy_ok(o))
        return 0;
    d = mf__cuda_cvt_f16_f64(x, r);
    if (o == MF_OVERFLOW_SATURATE)
        d = mf__cuda_sat_from_ieee(d, 0x7FFFu, 0x7C00u);
    *code = mf__cuda_fix_nan64(d, x, 0x7FFFu);
    return 1;
#else
    MF__CUDA_UNUSED4(x, r, o, code);
    return 0;
#endif
}

MF__CUDA_DEV int mf__cuda_bf16_from_f64(double x, mf_round r, mf_overflow o, uint32_t *code)
{
#if MF__CUDA_SM90
    uint32_t d;
    if (!mf__cuda_ieee_mode(r) || !mf__cuda_policy_ok(o))
        return 0;
    d = mf__cuda_cvt_bf16_f64(x, r);
    if (o == MF_OVERFLOW_SATURATE)
        d = mf__cuda_sat_from_ieee(d, 0x7FFFu, 0x7F80u);
    *code = mf__cuda_fix_nan64(d, x, 0x7FFFu);
    return 1;
#else
    MF__CUDA_UNUSED4(x, r, o, code);
    return 0;
#endif
}

/* f16 bits (low 16 of h) to binary32 bits by cvt.f32.f16, exact; the raw instruction (its NaN is not
 * the core's), then with the core's NaN. */
MF__CUDA_DEV uint32_t mf__cuda_cvt_f32_f16(uint32_t h)
{
    float f = 0.0f;
#if MF__CUDA_F16
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"((unsigned short)h));
#else
    (void)h;
#endif
    return __float_as_uint(f);
}

MF__CUDA_DEV uint32_t mf__cuda_f16_bits_to_f32(uint32_t h)
{
    return mf__cuda_fix_f16_nan_decode(mf__cuda_cvt_f32_f16(h), h & 0xFFFFu);
}

MF__CUDA_DEV int mf__cuda_f16_to_f32(uint32_t code, uint32_t *bits)
{
    *bits = mf__cuda_f16_bits_to_f32(code & 0xFFFFu);
    return MF__CUDA_F16;
}

/* e5m2 is the top byte of an f16 (same exponent, two mantissa bits), so its code << 8 decodes as one. */
MF__CUDA_DEV int mf__cuda_e5m2_to_f32(uint32_t code, uint32_t *bits)
{
    *bits = mf__cuda_f16_bits_to_f32((code & 0xFFu) << 8);
    return MF__CUDA_F16;
}

#undef MF__CUDA_CVT4

#endif /* MINIFLOAT_DETAIL_CUDA_SM80_H */
