/* SPDX-License-Identifier: MIT */
/* minifloat/detail/cuda_sm100.h - device fast paths for FP6, FP4 and e8m0 on the sm_100 family (private).
 *
 * Included by detail/cuda.h in device code only; the instructions exist on the family-specific targets
 * (sm_100f, 100a, 103a, 110f, 120f, ...: MF__CUDA_MX), not on plain sm_100 or sm_90a.
 *   - e2m1 / e2m3 / e3m2 from f32 in rn: cvt.rn.satfinite.{e2m1x2,e2m3x2,e3m2x2}.f32. These formats have
 *     no inf and no NaN, so both overflow policies give +-max and a NaN gives +max, which is what
 *     .satfinite writes: the instruction alone is the core's code. rz and the other modes: the core.
 *   - e8m0 from f32: cvt.rz / cvt.rp {.satfinite}.ue8m0x2.f32. The core rounds |x| (e8m0 is unsigned),
 *     gives 2^-127 (code 0) for zero and anything below, 0xFF (NaN) for NaN, and for overflow or inf
 *     0xFF under MF_OVERFLOW_IEEE, 0xFE under MF_OVERFLOW_SATURATE: the non-saturating and the .satfinite
 *     forms as NVIDIA's reference code in cuda_fp8.hpp describes them. MF_ROUND_DOWN is rz here (there is
 *     no negative magnitude to round); rn and the rest: the core.
 *   - decoding e2m1 / e2m3 / e3m2: cvt.rn.f16x2.{e2m1x2,e2m3x2,e3m2x2} (exact) then cvt.f32.f16.
 * Operand order: each x2 cvt writes its first source into the upper half; both sources are x (or the
 * code twice) and the low half is kept. Stochastic rounding uses cvt.rs.satfinite.{e2m1x4,e2m3x4,
 * e3m2x4} only under MF_CUDA_USE_CVT_RS (sm_100a / 103a).
 */
#ifndef MINIFLOAT_DETAIL_CUDA_SM100_H
#define MINIFLOAT_DETAIL_CUDA_SM100_H

MF__CUDA_DEV int mf__cuda_fp6fp4_from_f32(mf_format fmt, float x, mf_round r, mf_overflow o, uint32_t rbits,
                                          uint32_t *code)
{
#if MF__CUDA_CVT_RS
    if (r == MF_ROUND_STOCHASTIC && mf__cuda_policy_ok(o)) {
        uint32_t d;
        if (fmt == MF_FP4_E2M1) {
            unsigned short h;
            asm("cvt.rs.satfinite.e2m1x4.f32 %0, {%1, %1, %1, %1}, %2;" : "=h"(h) : "f"(x), "r"(rbits));
            d = h & 0xFu;
        } else if (fmt == MF_FP6_E2M3) {
            asm("cvt.rs.satfinite.e2m3x4.f32 %0, {%1, %1, %1, %1}, %2;" : "=r"(d) : "f"(x), "r"(rbits));
            d &= 0x3Fu;
        } else {
            asm("cvt.rs.satfinite.e3m2x4.f32 %0, {%1, %1, %1, %1}, %2;" : "=r"(d) : "f"(x), "r"(rbits));
            d &= 0x3Fu;
        }
        *code = d;
        return 1;
    }
#endif
#if MF__CUDA_MX
    if (r == MF_ROUND_NEAREST_EVEN && mf__cuda_policy_ok(o)) {
        unsigned short d;
        if (fmt == MF_FP4_E2M1) {
            /* the destination is a .b8 register: widened to 16 bits in the asm */
            asm("{ .reg .b8 mf_t;\n\t"
                "cvt.rn.satfinite.e2m1x2.f32 mf_t, %1, %1;\n\t"
                "mov.b16 %0, {mf_t, 0}; }"
                : "=h"(d)
                : "f"(x));
            *code = d & 0xFu;
        } else {
            if (fmt == MF_FP6_E2M3)
                asm("cvt.rn.satfinite.e2m3x2.f32 %0, %1, %1;" : "=h"(d) : "f"(x));
            else
                asm("cvt.rn.satfinite.e3m2x2.f32 %0, %1, %1;" : "=h"(d) : "f"(x));
            *code = d & 0x3Fu;
        }
        return 1;
    }
#endif
    MF__CUDA_UNUSED5(fmt, x, r, o, rbits);
    (void)code;
    return 0;
}

MF__CUDA_DEV int mf__cuda_e8m0_from_f32(float x, mf_round r, mf_overflow o, uint32_t *code)
{
#if MF__CUDA_MX
    unsigned short d;
    int sat = o == MF_OVERFLOW_SATURATE;
    if (!mf__cuda_policy_ok(o))
        return 0;
    if (r == MF_ROUND_TOWARD_ZERO || r == MF_ROUND_DOWN) {
        if (sat)
            asm("cvt.rz.satfinite.ue8m0x2.f32 %0, %1, %1;" : "=h"(d) : "f"(x));
        else
            asm("cvt.rz.ue8m0x2.f32 %0, %1, %1;" : "=h"(d) : "f"(x));
    } else if (r == MF_ROUND_UP) {
        if (sat)
            asm("cvt.rp.satfinite.ue8m0x2.f32 %0, %1, %1;" : "=h"(d) : "f"(x));
        else
            asm("cvt.rp.ue8m0x2.f32 %0, %1, %1;" : "=h"(d) : "f"(x));
    } else {
        return 0;
    }
    *code = d & 0xFFu;
    return 1;
#else
    MF__CUDA_UNUSED4(x, r, o, code);
    return 0;
#endif
}

MF__CUDA_DEV int mf__cuda_fp6fp4_to_f32(mf_format fmt, uint32_t code, uint32_t *bits)
{
#if MF__CUDA_MX
    uint32_t h2;
    if (fmt == MF_FP4_E2M1) {
        uint32_t c = code & 0xFu;
        /* the source is a .b8 register: the low byte of a 16-bit operand */
        asm("{ .reg .b8 mf_t, mf_z;\n\t"
            "mov.b16 {mf_t, mf_z}, %1;\n\t"
            "cvt.rn.f16x2.e2m1x2 %0, mf_t; }"
            : "=r"(h2)
            : "h"((unsigned short)(c | c << 4)));
    } else {
        uint32_t c = code & 0x3Fu;
        if (fmt == MF_FP6_E2M3)
            asm("cvt.rn.f16x2.e2m3x2 %0, %1;" : "=r"(h2) : "h"((unsigned short)(c | c << 8)));
        else
            asm("cvt.rn.f16x2.e3m2x2 %0, %1;" : "=r"(h2) : "h"((unsigned short)(c | c << 8)));
    }
    /* no NaN in these formats: no fix-up */
    *bits = mf__cuda_cvt_f32_f16(h2 & 0xFFFFu);
    return 1;
#else
    MF__CUDA_UNUSED4(fmt, code, bits, 0);
    return 0;
#endif
}

#endif /* MINIFLOAT_DETAIL_CUDA_SM100_H */
