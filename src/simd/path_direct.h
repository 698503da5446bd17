/* SPDX-License-Identifier: MIT */
/* src/simd/path_direct.h - the direct path: calls whose instructions ignore the binary32 environment (included by
 * backend_paths.h, once per backend). */

/* ---- calls that need no binary32 environment -----------------------------------------------------
 * With exception-free instructions (BK_HW_NOCSR), these conversions give the same bits whatever
 * MXCSR holds, so they skip reading it (stmxcsr is slow, a large part of a short call: docs/perf/tuning.md):
 * f32 -> f16 rn and rz (either policy: saturation clamps the binary32 inputs with integer operations first)
 * take the rounding from the instruction, which ignores FTZ, and DAZ only turns
 * binary32 subnormal inputs into zeros of the same sign, which rn and rz give them anyway (ru and rd
 * would not); vcvtneps2bf16 never consults MXCSR and the lanes it gets wrong are mended with integer
 * operations (found by vfpclassps, which does read DAZ: hw_bf16_direct_ok); vcvtph2ps ignores DAZ;
 * k_round_rn_tab and k_round_dir_tab in rz round with {rn-sae} or {rz-sae}, after vcvtph2ps
 * {sae} or a shift for f16 and bf16 sources (their IEEE overflow step is integer compares);
 * k_round_e8m0_fast is integer arithmetic.
 * Returns 0 for every other call. */
enum { BK_DIRECT_NONE, BK_DIRECT_F16, BK_DIRECT_BF16, BK_DIRECT_ROUND, BK_DIRECT_F16_F32 };
static int bk_direct_kind(mf_format d, mf_format s, size_t n, const mf_opts *o)
{
    if (!BK_HW_NOCSR || bk_streams(d, n))
        return BK_DIRECT_NONE;
    /* either policy: saturation is an integer clamp before the instruction (bk_hw16_clamp) */
    if (s == MF_FP32 && d == MF_FP16 && (o->round == MF_ROUND_NEAREST_EVEN || o->round == MF_ROUND_TOWARD_ZERO))
        return BK_DIRECT_F16;
    if (BK_HW_BF16 && s == MF_FP32 && d == MF_BF16 && o->round == MF_ROUND_NEAREST_EVEN && hw_bf16_direct_ok())
        return BK_DIRECT_BF16;
#ifdef V_HAS_TABLE32
    if (s == MF_FP32 && (o->round == MF_ROUND_NEAREST_EVEN || o->round == MF_ROUND_TOWARD_ZERO) && bk_tab_ok(d))
        return BK_DIRECT_ROUND;
#endif
    if (s == MF_FP32 && d == MF_E8M0 && k_e8m0_fast_ok(o->round)) /* integer operations only */
        return BK_DIRECT_ROUND;
    if (s == MF_FP16 && d == MF_FP32)
        return BK_DIRECT_F16_F32;
    return BK_DIRECT_NONE;
}

/* mk: NULL, or the profile's marks (bk_convert_marked: kinds BK_DIRECT_F16 and BK_DIRECT_BF16 only). Inlined, so
 * that the default's call (bk_run, mk NULL) keeps no test of mk in its loops. */
MF_V void bk_direct_run(int kind, mf_format d, void *dst, mf_format s, const void *src, size_t n, const mf_opts *o,
                          const mf__nan_marks *mk)
{
    const size_t end = n / MF_VL * MF_VL;
    const int sat = o->overflow == MF_OVERFLOW_SATURATE;
    k_counts none = {0, 0, 0, 0, 0};
    switch (kind) {
    case BK_DIRECT_F16:
        if (o->round == MF_ROUND_NEAREST_EVEN)
            bk_hw16_loop(MF_FP32, 0, (uint16_t *)dst, src, end, MF_ROUND_NEAREST_EVEN, sat, mk);
        else
            bk_hw16_loop(MF_FP32, 0, (uint16_t *)dst, src, end, MF_ROUND_TOWARD_ZERO, sat, mk);
        break;
    case BK_DIRECT_BF16: bk_hw16_loop(MF_FP32, 1, (uint16_t *)dst, src, end, MF_ROUND_NEAREST_EVEN, sat, mk); break;
    case BK_DIRECT_ROUND:
        bk_round(d, dst, (const uint32_t *)src, end, o->round, o->overflow, 0, NULL, 0, &none);
        break;
    default: /* BK_DIRECT_F16_F32 */
        bk_decode_loop(MF_FP16, (uint32_t *)dst, src, end);
        if (o->overflow == MF_OVERFLOW_SATURATE)
            bk_saturate_f32((uint32_t *)dst, end);
        break;
    }
    bk_portable(d, dst, s, src, end, n, o, &none, 0);
    if (mk && end < n)
        mk->mark(mk, end, n);
}
