/* SPDX-License-Identifier: MIT */
/* minifloat/detail/cuda.h - the device fast paths of the inline scalar conversions (private).
 *
 * mf_from_f32, mf_from_f64 and mf_to_f32 (scalar.h) each hold one `#if defined(__CUDA_ARCH__)` block
 * that calls a hook below. A hook returns 1 with the code (or binary32 bits) where a PTX `cvt` of the
 * architecture being compiled gives exactly the portable core's bits for that (format, mode, policy),
 * after at most a few integer selects ("fix-ups"); it returns 0 otherwise and the core runs, as on the
 * host. With constant arguments (the named functions of detail/named.h) the choice folds away at compile
 * time. This file is the one place that chooses by architecture; the instructions live in one file per
 * family:
 *
 *   cuda_sm80.h   f16 (sm_53+), bf16 (sm_80+; rm/rp and f64 sources sm_90+), f32 from f64; f16, e5m2
 *                 decoding
 *   cuda_sm89.h   e4m3 / e5m2 from f32 in rn (sm_89+, sm_90, sm_100...), e4m3 decoding
 *   cuda_sm100.h  e2m1 / e2m3 / e3m2 in rn, e8m0 in rz / rd / ru, their decoding (the sm_100 family:
 *                 __CUDA_ARCH_FAMILY_SPECIFIC__ in [1000, 1300), as NVIDIA's cuda_fp8.h gates them);
 *                 cvt.rs only on request (below)
 *
 * What stays on the portable core everywhere: rna, ro, sr (unless MF_CUDA_USE_CVT_RS), events
 * (mf_from_f32_ev), FP8/FP6/FP4/e8m0 from f64, FP8 in directed modes, e8m0 in rn, mf_to_f64.
 *
 * Macros a user may define before including <minifloat.h>:
 *   MF_CUDA_NO_FAST_PATHS  every device conversion runs the portable core (to compare, or to debug).
 *   MF_CUDA_USE_CVT_RS     on sm_100a / sm_103a only, MF_ROUND_STOCHASTIC uses the hardware's cvt.rs with
 *                          rbits as its random operand. NOT bit-identical to the host: cvt.rs reads fewer
 *                          random bits, in its own way, so the results follow a different (still
 *                          unbiased) draw than mf_sr_bits' rule. Off by default; without it SR on every
 *                          GPU gives the host's bits.
 *
 * The fix-ups are pure integer functions, compiled on the host too, so that they can be checked there
 * against the core (tests/cuda/probe_cvt.cu, host part).
 */
#ifndef MINIFLOAT_DETAIL_CUDA_H
#define MINIFLOAT_DETAIL_CUDA_H

#include "round.h"

/* ---- fix-ups (host and device) ---------------------------------------------------------------- */

/* A NaN input gets the core's NaN code (instructions may keep the sign or choose another NaN code). */
MF_HD MF_INLINE uint32_t mf__cuda_fix_nan(uint32_t code, uint32_t xbits, uint32_t nan_code)
{
    return (xbits & 0x7FFFFFFFu) > 0x7F800000u ? nan_code : code;
}

/* MF_OVERFLOW_SATURATE from an IEEE-policy result of an IEEE format (f16, bf16, f32): the two policies
 * differ only where the IEEE result is +-inf (an overflow, or an infinite input), which saturate turns
 * into +-max, the code just below inf with the same sign. */
MF_HD MF_INLINE uint32_t mf__cuda_sat_from_ieee(uint32_t code, uint32_t mag_mask, uint32_t inf_code)
{
    return (code & mag_mask) == inf_code ? code - 1u : code;
}

/* FP8 in rn with MF_OVERFLOW_IEEE from the saturating instruction's code (cvt has no other FP8 form).
 * Overflow happens where rounding with an unbounded exponent leaves max finite: above max + half an
 * ulp, and at that midpoint when max's last bit is odd (ties to even go up).
 *   e4m3: max 448 = 0x1.Cp+8 (0x7E, even), midpoint 464 = 0x43E80000: |x| > 464 overflows, to the NaN
 *         0x7F; inf and NaN inputs give 0x7F too, so one unsigned compare covers all three.
 *   e5m2: max 57344 = 0x1.Cp+15 (0x7B, odd), midpoint 61440 = 0x47700000: |x| >= 61440 (inf included)
 *         gives +-inf 0x7C; NaN gives 0x7F. */
MF_HD MF_INLINE uint32_t mf__cuda_fp8_ieee_from_sat(mf_format fmt, uint32_t sat_code, uint32_t xbits)
{
    uint32_t mag = xbits & 0x7FFFFFFFu;
    if (fmt == MF_FP8_E4M3)
        return mag > 0x43E80000u ? 0x7Fu : sat_code;
    if (mag > 0x7F800000u)
        return 0x7Fu;
    return mag >= 0x47700000u ? 0x7Cu | ((xbits >> 24) & 0x80u) : sat_code;
}

/* Decoding an f16 NaN: sign and payload kept, quiet bit set (mf__nan_f32); instructions may return a
 * canonical NaN instead. e5m2 decodes as the f16 code << 8. */
MF_HD MF_INLINE uint32_t mf__cuda_fix_f16_nan_decode(uint32_t bits, uint32_t h)
{
    return (h & 0x7FFFu) > 0x7C00u ? ((h & 0x8000u) << 16) | 0x7FC00000u | ((h & 0x3FFu) << 13) : bits;
}

/* Decoding the e4m3 NaNs S.1111.111: sign kept, payload 111 in the top of the binary32 mantissa. */
MF_HD MF_INLINE uint32_t mf__cuda_fix_e4m3_nan_decode(uint32_t bits, uint32_t c)
{
    return (c & 0x7Fu) == 0x7Fu ? ((c & 0x80u) << 24) | 0x7FF00000u : bits;
}

/* ---- device hooks ------------------------------------------------------------------------------ */

#if defined(__CUDA_ARCH__)

/* Capabilities of the architecture being compiled (0 under MF_CUDA_NO_FAST_PATHS). */
#if defined(MF_CUDA_NO_FAST_PATHS)
#define MF__CUDA_F16 0
#define MF__CUDA_BF16 0
#define MF__CUDA_SM90 0
#define MF__CUDA_FP8 0
#define MF__CUDA_MX 0
#else
#define MF__CUDA_F16 (__CUDA_ARCH__ >= 530)  /* cvt with .f16 in any IEEE mode */
#define MF__CUDA_BF16 (__CUDA_ARCH__ >= 800) /* cvt.{rn,rz}.bf16.f32 */
#define MF__CUDA_SM90 (__CUDA_ARCH__ >= 900) /* cvt.{rm,rp}.bf16.f32, cvt.*.bf16.f64 */
#define MF__CUDA_FP8 (__CUDA_ARCH__ >= 890)  /* cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 and back */
/* FP6 / FP4 / ue8m0 cvt: the family-specific targets sm_100f, 100a, 103a, 110f, 120f, 121a..., not
 * plain sm_100 (whose PTX must run on later families) nor sm_90a. */
#if defined(__CUDA_ARCH_FAMILY_SPECIFIC__) && __CUDA_ARCH_FAMILY_SPECIFIC__ >= 1000 &&                                 \
    __CUDA_ARCH_FAMILY_SPECIFIC__ < 1300
#define MF__CUDA_MX 1
#else
#define MF__CUDA_MX 0
#endif
#endif

/* .satfinite on f16 / bf16 destinations needs PTX ISA 8.1 (CUDA 12.1); older toolkits use the fix-up. */
#if defined(__CUDACC_VER_MAJOR__) && (__CUDACC_VER_MAJOR__ * 100 + __CUDACC_VER_MINOR__ >= 1201)
#define MF__CUDA_SATFINITE16 1
#else
#define MF__CUDA_SATFINITE16 0
#endif

/* cvt.rs: opt-in, and only on the arch-specific sm_100a / sm_103a. */
#if defined(MF_CUDA_USE_CVT_RS) && !defined(MF_CUDA_NO_FAST_PATHS) && defined(__CUDA_ARCH_SPECIFIC__) &&               \
    (__CUDA_ARCH_SPECIFIC__ == 1000 || __CUDA_ARCH_SPECIFIC__ == 1030)
#define MF__CUDA_CVT_RS 1
#else
#define MF__CUDA_CVT_RS 0
#endif

#define MF__CUDA_DEV static __device__ __forceinline__
/* Parameters that an architecture without the instruction does not read. */
#define MF__CUDA_UNUSED4(a, b, c, d) ((void)(a), (void)(b), (void)(c), (void)(d))
#define MF__CUDA_UNUSED5(a, b, c, d, e) (MF__CUDA_UNUSED4(a, b, c, d), (void)(e))

/* The modes cvt knows for float destinations: rn rz rp rm. */
MF__CUDA_DEV int mf__cuda_ieee_mode(mf_round r)
{
    return r == MF_ROUND_NEAREST_EVEN || r == MF_ROUND_TOWARD_ZERO || r == MF_ROUND_UP || r == MF_ROUND_DOWN;
}

MF__CUDA_DEV int mf__cuda_policy_ok(mf_overflow o) { return o == MF_OVERFLOW_IEEE || o == MF_OVERFLOW_SATURATE; }

#include "cuda_sm80.h"
#include "cuda_sm89.h"
#include "cuda_sm100.h"

/* mf_from_f32 on the device: 1 and *code where an instruction gives the core's code. */
MF__CUDA_DEV int mf__cuda_from_f32(mf_format fmt, float x, mf_round r, mf_overflow o, uint32_t rbits, uint32_t *code)
{
    switch (fmt) {
    case MF_FP16: return mf__cuda_f16_from_f32(x, r, o, rbits, code);
    case MF_BF16: return mf__cuda_bf16_from_f32(x, r, o, rbits, code);
    case MF_FP8_E4M3:
    case MF_FP8_E5M2: return mf__cuda_fp8_from_f32(fmt, x, r, o, rbits, code);
    case MF_FP6_E2M3:
    case MF_FP6_E3M2:
    case MF_FP4_E2M1: return mf__cuda_fp6fp4_from_f32(fmt, x, r, o, rbits, code);
    case MF_E8M0: return mf__cuda_e8m0_from_f32(x, r, o, code);
    default: return 0;
    }
}

/* mf_from_f64 on the device (the IEEE destinations only: cvt rounds once from f64). */
MF__CUDA_DEV int mf__cuda_from_f64(mf_format fmt, double x, mf_round r, mf_overflow o, uint32_t *code)
{
    switch (fmt) {
    case MF_FP32: return mf__cuda_f32_from_f64(x, r, o, code);
    case MF_FP16: return mf__cuda_f16_from_f64(x, r, o, code);
    case MF_BF16: return mf__cuda_bf16_from_f64(x, r, o, code);
    default: return 0;
    }
}

/* mf_to_f32 on the device: 1 and the binary32 *bits where an instruction decodes (bf16 and e8m0 are
 * already a shift or two in the core). */
MF__CUDA_DEV int mf__cuda_to_f32(mf_format fmt, uint32_t code, uint32_t *bits)
{
    switch (fmt) {
    case MF_FP16: return mf__cuda_f16_to_f32(code, bits);
    case MF_FP8_E5M2: return mf__cuda_e5m2_to_f32(code, bits);
    case MF_FP8_E4M3: return mf__cuda_e4m3_to_f32(code, bits);
    case MF_FP6_E2M3:
    case MF_FP6_E3M2:
    case MF_FP4_E2M1: return mf__cuda_fp6fp4_to_f32(fmt, code, bits);
    default: return 0;
    }
}

#endif /* __CUDA_ARCH__ */

#endif /* MINIFLOAT_DETAIL_CUDA_H */
