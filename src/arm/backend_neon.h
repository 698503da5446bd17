/* SPDX-License-Identifier: MIT */
/* src/arm/backend_neon.h - the AArch64 Advanced SIMD backend's configuration, 4 lanes: the kernels of
 * src/simd/kernels.h and the paths of src/simd/backend_paths.h over vec_neon.h, with these hooks. Compiled only for aarch64
 * targets (src/sources.cmake); dispatch.c offers it on every AArch64 CPU.
 *
 * The conversion instructions round by FPCR, which the backend sets (vec_neon.h): FCVTN for f32 -> f16
 * in rn (the other modes take the integer kernel), FCVTL for f16 -> f32 and f32 -> f64, FCVTXN (round
 * to odd) and FCVTN for f64 -> f32. */
#ifndef MF_ARM_BACKEND_NEON_H
#define MF_ARM_BACKEND_NEON_H

#include <string.h>

#include "vec_neon.h"

#include "../simd/kernels.h"

MF_V float32x4_t hw__f(vu u) { return vreinterpretq_f32_u32(u); }

/* f32 -> f16. FCVTN keeps NaN payloads (quieted), where our f16 NaN is 0x7FFF: hw_f16_special flags
 * those lanes, hw_f16_fix mends them. rz, ru and rd would need FPCR's rounding changed per call, so
 * they take the integer kernel (which needs no fix). */
MF_V vm hw_f16_special(vu u) { return v_isnan(u); }
MF_V vm hw_f16_special2(vu u, vu v) { return m_or(v_isnan(u), v_isnan(v)); }

MF_V vu hw__f16_codes(vu u, const mf_round r)
{
    if (r == MF_ROUND_NEAREST_EVEN) /* FPCR holds rn wherever the paths call these (bk_kernel_csr) */
        return vmovl_u16(vreinterpret_u16_f16(vcvt_f16_f32(hw__f(u))));
    return k_round(u, MF_FP16, r, MF_OVERFLOW_IEEE, v_zero(), 0, NULL);
}

MF_V void hw_f16_plain(uint16_t *p, vu u, const mf_round r) { v_store_u16(p, hw__f16_codes(u, r)); }

MF_V void hw_f16_fix(uint16_t *p, vu u, const mf_round r)
{
    v_store_u16(p, v_blend(v_isnan(u), hw__f16_codes(u, r), v_set1(0x7FFFu)));
}

/* f16 -> f32: FCVTL keeps sign and payload and sets the quiet bit (FPCR.DN clear), as the portable
 * backend does; f16 subnormals are exact (FZ16 clear). */
MF_V vu hw_f16_to_f32(const uint16_t *p)
{
    uint16_t t[4];
    memcpy(t, p, sizeof t);
    return vreinterpretq_u32_f32(vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(t))));
}

/* ---- from f64: two doubles a register ---------------------------------------------------------------- */
MF_V vu hw__join(float32x2_t lo, float32x2_t hi) { return vreinterpretq_u32_f32(vcombine_f32(lo, hi)); }

/* round to odd: FCVTXN (overflow gives +-FLT_MAX, as the rule does; NaNs stay NaN) */
MF_V vu hw_f64_to_f32_ro(const double *p)
{
    return hw__join(vcvtx_f32_f64(vld1q_f64(p)), vcvtx_f32_f64(vld1q_f64(p + 2)));
}

/* rna, with FPCR = rz: |x| plus half binary32's last place at |x| (at least that of binary32's
 * subnormals), truncated; where that reaches 2^128 from a finite |x| the result is the infinity (one
 * above FLT_MAX's bits), as in the x86 backends' hw__pd4_to_ps4_rna */
MF_V float32x2_t hw__pd2_to_ps2_rna(const double *p)
{
    const float64x2_t x = vld1q_f64(p), a = vabsq_f64(x);
    const uint64x2_t e0 = vshrq_n_u64(vreinterpretq_u64_f64(a), 52), emin = vdupq_n_u64(1023 - 126);
    const uint64x2_t e = vbslq_u64(vcgtq_u64(emin, e0), emin, e0);
    const float64x2_t h = vreinterpretq_f64_u64(vshlq_n_u64(vsubq_u64(e, vdupq_n_u64(24)), 52));
    const uint64x2_t sign = vandq_u64(vreinterpretq_u64_f64(x), vdupq_n_u64(0x8000000000000000u));
    const float64x2_t t = vaddq_f64(x, vreinterpretq_f64_u64(vorrq_u64(vreinterpretq_u64_f64(h), sign)));
    const uint64x2_t ovf = vandq_u64(vcgeq_f64(vabsq_f64(t), vdupq_n_f64(0x1p128)),
                                     vcleq_f64(a, vdupq_n_f64(0x1.fffffffffffffp1023))); /* inf stays inf */
    const uint32x2_t r = vreinterpret_u32_f32(vcvt_f32_f64(t));
    return vreinterpret_f32_u32(vsub_u32(r, vmovn_u64(ovf))); /* one more where it overflows */
}

MF_V vu hw_f64_to_f32(const double *p, mf_round r)
{
    vu u;
    if (r == MF_ROUND_NEAREST_AWAY)
        u = hw__join(hw__pd2_to_ps2_rna(p), hw__pd2_to_ps2_rna(p + 2));
    else /* the backend has put r into FPCR */
        u = hw__join(vcvt_f32_f64(vld1q_f64(p)), vcvt_f32_f64(vld1q_f64(p + 2)));
    return v_blend(v_isnan(u), u, v_set1(0x7FFFFFFFu));
}

/* sr from f64, with FPCR = rz: y = |x| + r * 2^(q - w) by one FMA, q the exponent of the target's last
 * place at |x| (at least e_lo - man), +-inf from top on, then truncated into binary32 (bk_f64_sr) */
MF_V float32x2_t hw__pd2_to_ps2_sr(const double *p, const uint8_t *rp, const int w, const int man, const int e_lo,
                                   const double top)
{
    const float64x2_t x = vld1q_f64(p), a = vabsq_f64(x);
    const uint64x2_t e0 = vshrq_n_u64(vreinterpretq_u64_f64(a), 52), lo = vdupq_n_u64((uint64_t)e_lo);
    const uint64x2_t e = vbslq_u64(vcgtq_u64(lo, e0), lo, e0);
    const float64x2_t scale =
        vreinterpretq_f64_u64(vshlq_n_u64(vsubq_u64(e, vdupq_n_u64((uint64_t)(man + w))), 52));
    const uint64x2_t sign = vandq_u64(vreinterpretq_u64_f64(x), vdupq_n_u64(0x8000000000000000u));
    uint64_t rv[2];
    float64x2_t y;
    if (w == 8) {
        rv[0] = rp[0];
        rv[1] = rp[1];
    } else if (w == 16) {
        uint16_t h[2];
        memcpy(h, rp, sizeof h);
        rv[0] = h[0];
        rv[1] = h[1];
    } else {
        uint32_t h[2];
        memcpy(h, rp, sizeof h);
        rv[0] = h[0];
        rv[1] = h[1];
    }
    y = vfmaq_f64(a, vcvtq_f64_u64(vld1q_u64(rv)), scale); /* NaN stays NaN, inf inf */
    y = vbslq_f64(vcgeq_f64(y, vdupq_n_f64(top)), vreinterpretq_f64_u64(vdupq_n_u64(0x7FF0000000000000u)), y);
    return vcvt_f32_f64(vreinterpretq_f64_u64(vorrq_u64(vreinterpretq_u64_f64(y), sign)));
}

MF_V vu hw_f64_to_f32_sr(const double *p, const uint8_t *rp, const int w, const int man, const int e_lo,
                         const double top)
{
    return hw__join(hw__pd2_to_ps2_sr(p, rp, w, man, e_lo, top),
                    hw__pd2_to_ps2_sr(p + 2, rp + 2 * (w / 8), w, man, e_lo, top));
}

/* binary32 bits -> four doubles: FCVTL, exact; NaNs become quiet with their payload (DN clear) */
MF_V void hw_f32_to_f64(double *out, vu u)
{
    const float32x4_t x = hw__f(u);
    vst1q_f64(out, vcvt_f64_f32(vget_low_f32(x)));
    vst1q_f64(out + 2, vcvt_high_f64_f32(x));
}
MF_V void hw_f32_to_f64_nt(double *out, vu u) { hw_f32_to_f64(out, u); }

#endif /* MF_ARM_BACKEND_NEON_H */
