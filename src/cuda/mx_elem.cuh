// SPDX-License-Identifier: MIT
// src/cuda/mx_elem.cuh - the per-block arithmetic of the MX and NVFP4 quantize kernels (mx.cu), as
// __host__ __device__ functions, so that a host test runs the kernels' own block code against
// mf_mx_quantize / mf_nvfp4_quantize (tests/cuda/test_cuda_quant_host.cu). Private.
//
// Every step is the host's (src/scale/mx.c, src/scale/nvfp4.c): the scale codes, power-of-two scaling, MXINT8
// rounding and NVFP4 tensor scale are the very functions of src/scale/mx_core.h, the conversions the
// library's rounding core, and the other binary32 products and quotients are rounded once to nearest even. Those
// are mf__mul_rn / mf__div_rn: the hardware's __fmul_rn / __fdiv_rn on the device (never contracted into
// an FMA, no flush-to-zero), the library's integer mf__f32_mul / mf__f32_div on the host; both are IEEE
// binary32 round-to-nearest-even, and no NaN they could differ on reaches a result (see the callers).
#ifndef MF_CUDA_MX_ELEM_CUH
#define MF_CUDA_MX_ELEM_CUH

#include <minifloat.h>
#include <minifloat/detail/arith.h>

#include "elem.cuh"
#include "scale/mx_core.h"

MF_HD inline float mf__mul_rn(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fmul_rn(a, b);
#else
    return mf__f32_mul(a, b);
#endif
}

MF_HD inline float mf__div_rn(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fdiv_rn(a, b);
#else
    return mf__f32_div(a, b);
#endif
}

// The 8-bit stochastic-rounding slices of cnt consecutive stream elements idx, idx + 1, ...: each is
// mf_sr_rbits(seed, idx + j, 8), with one Philox block per 16 elements instead of one per element.
MF_HD inline void mf__sr8_run(uint64_t seed, uint64_t idx, int cnt, uint32_t *rb)
{
    mf_philox4x32 blk = mf_sr_block(seed, idx >> 2);
    for (int j = 0; j < cnt; j++) {
        const uint64_t e = idx + (uint64_t)j;
        if (j > 0 && (e & 15u) == 0)
            blk = mf_sr_block(seed, e >> 2);
        rb[j] = mf_sr_slice(blk.v[(e >> 2) & 3u], e, 8);
    }
}

// ---- MX --------------------------------------------------------------------------------------------

// One MX call's facts (mx.c's mx_info plus the options): fmt is the element format, MF_FP32 for MXINT8.
struct mf__mx_ctx {
    mf_format fmt;
    int emax;  // exponent of the largest power of two not above the element max
    float rcp; // 1 / max_elem rounded to binary32 (RCEIL)
    int rcei;  // rule == MF_MX_SCALE_RCEIL
    int sr;    // opts->round == MF_ROUND_STOCHASTIC
    uint64_t seed, sr_offset;
};

MF_HD inline mf__mx_ctx mf__mx_ctx_make(mf_mx_type type, mf_mx_scale_rule rule, const mf_opts *o)
{
    mf__mx_ctx t;
    uint32_t b;
    t.fmt = mf__mx_elem_format(type);
    b = mf__mx_max_bits(t.fmt);
    t.emax = (int)(b >> 23) - 127;
    t.rcp = mf__div_rn(1.0f, mf__f32_from_bits(b));
    t.rcei = rule == MF_MX_SCALE_RCEIL;
    t.sr = o->round == MF_ROUND_STOCHASTIC;
    t.seed = o->seed;
    t.sr_offset = o->sr_offset;
    return t;
}

// The E8M0 code of a block whose largest magnitude has the bits mag (mx_core.h, as mx.c).
MF_HD inline unsigned mf__mx_scale_code(const mf__mx_ctx &t, uint32_t mag)
{
    return mf__mx_scale_e8m0(t.emax, t.rcei, mag, t.rcp);
}

// The code of element x in a block of scale k8 (0xFF: the block's elements are +0 and count nothing);
// rbits is the element's stream slice (ignored by rn). Events as MF__EV_* bits in *ev.
MF_HD inline uint32_t mf__mx_elem(const mf__mx_ctx &t, float x, unsigned k8, uint32_t rbits, unsigned *ev)
{
    const mf_round r = t.sr ? MF_ROUND_STOCHASTIC : MF_ROUND_NEAREST_EVEN;
    int tiny = 0;
    uint32_t q;
    if (k8 == 0xFF)
        return 0;
    if (t.fmt == MF_FP32)
        return mf__mx_int8_code(mf__f32_bits(x), (int)k8 - 127, t.sr, rbits, ev);
    q = mf__mx_scale_pow2(mf__f32_bits(x), 127 - (int)k8, &tiny);
    if (tiny)
        *ev |= MF__EV_UNDERFLOW | MF__EV_INEXACT;
    return mf_from_f32_ev(t.fmt, mf__f32_from_bits(q), r, MF_OVERFLOW_SATURATE, rbits, ev);
}

// ---- packing ------------------------------------------------------------------------------------------

// Eight codes of consecutive elements 8g .. 8g + 7 into their storage at out (the group's first byte):
// 8 bytes (one a code), 4 (e2m1: element 2j in the low nibble) or 6 (FP6 packed, mf_fp6_pack's layout).
// Returns the number of bytes written.
MF_HD inline int mf__pack8(const uint32_t *c, int e2m1, int fp6_packed, uint8_t *out)
{
    if (e2m1) {
        for (int j = 0; j < 4; j++)
            out[j] = (uint8_t)((c[2 * j] & 0xFu) | (c[2 * j + 1] & 0xFu) << 4);
        return 4;
    }
    if (fp6_packed) {
        for (int h = 0; h < 2; h++) {
            const uint32_t w = (c[4 * h] & 0x3Fu) | (c[4 * h + 1] & 0x3Fu) << 6 | (c[4 * h + 2] & 0x3Fu) << 12 |
                               (c[4 * h + 3] & 0x3Fu) << 18;
            out[3 * h] = (uint8_t)w;
            out[3 * h + 1] = (uint8_t)(w >> 8);
            out[3 * h + 2] = (uint8_t)(w >> 16);
        }
        return 6;
    }
    for (int j = 0; j < 8; j++)
        out[j] = (uint8_t)c[j];
    return 8;
}

// Group g (elements 8g .. 8g + 7, values v, scale codes k8) of an MX call: the codes in buf, their
// storage bytes returned (mf__pack8), events added to *s where s is not NULL. The kernels' and the host
// test's one body.
MF_HD inline int mf__mx_group(const mf__mx_ctx &t, uint64_t g, const float *v, const unsigned *k8, int e2m1,
                              int fp6_packed, uint8_t *buf, mf_stats *s)
{
    uint32_t rb[8] = {0, 0, 0, 0, 0, 0, 0, 0}, c[8];
    if (t.sr)
        mf__sr8_run(t.seed, t.sr_offset + 8 * g, 8, rb);
    for (int j = 0; j < 8; j++) {
        unsigned ev = 0;
        c[j] = mf__mx_elem(t, v[j], k8[j], rb[j], &ev);
        if (s)
            mf__stats_add(s, ev);
    }
    return mf__pack8(c, e2m1, fp6_packed, buf);
}

// ---- NVFP4 ---------------------------------------------------------------------------------------------

// One NVFP4 call's per-tensor factors, from the amax (never NaN: amax_in is checked, the fold skips NaN).
struct mf__nv_ctx {
    float s_dec, enc_per_amax;
    int sr;
    uint64_t seed, sr_offset;
};

MF_HD inline mf__nv_ctx mf__nv_ctx_make(float amax, int sr, uint64_t seed, uint64_t sr_offset)
{
    mf__nv_ctx t;
    const float s_enc = mf__nv_global_scale(amax);
    t.s_dec = mf__div_rn(1.0f, s_enc);
    t.enc_per_amax = mf__mul_rn(s_enc, mf__div_rn(1.0f, 6.0f));
    t.sr = sr;
    t.seed = seed;
    t.sr_offset = sr_offset;
    return t;
}

// The e4m3 scale code of a block whose NaN-skipping amax has the bits bmax (0x00 .. 0x7E).
MF_HD inline unsigned mf__nv_scale_code(const mf__nv_ctx &t, uint32_t bmax)
{
    return mf_from_f32(MF_FP8_E4M3, mf__min_flt_max(mf__mul_rn(mf__f32_from_bits(bmax), t.enc_per_amax)),
                       MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE, 0);
}

// block_scale_inverse of a scale code: fminf(1 / (float(scale) * S_dec), FLT_MAX).
MF_HD inline float mf__nv_inv(const mf__nv_ctx &t, unsigned code)
{
    return mf__min_flt_max(mf__div_rn(1.0f, mf__mul_rn(mf_to_f32(MF_FP8_E4M3, code & 0x7Fu), t.s_dec)));
}

// e2m1_sat(x * inv): a NaN product (x NaN) gives 0x7 whatever its payload.
MF_HD inline uint32_t mf__nv_elem(const mf__nv_ctx &t, float x, float inv, uint32_t rbits, unsigned *ev)
{
    return mf_from_f32_ev(MF_FP4_E2M1, mf__mul_rn(x, inv), t.sr ? MF_ROUND_STOCHASTIC : MF_ROUND_NEAREST_EVEN,
                          MF_OVERFLOW_SATURATE, rbits, ev);
}

// Group g of an NVFP4 call (block inverses inv[j]): 4 bytes of e2m1 pairs in buf, as mf__mx_group.
MF_HD inline void mf__nv_group(const mf__nv_ctx &t, uint64_t g, const float *v, const float *inv, uint8_t *buf,
                               mf_stats *s)
{
    uint32_t rb[8] = {0, 0, 0, 0, 0, 0, 0, 0}, c[8];
    if (t.sr)
        mf__sr8_run(t.seed, t.sr_offset + 8 * g, 8, rb);
    for (int j = 0; j < 8; j++) {
        unsigned ev = 0;
        c[j] = mf__nv_elem(t, v[j], inv[j], rb[j], &ev);
        if (s)
            mf__stats_add(s, ev);
    }
    (void)mf__pack8(c, 1, 0, buf);
}

#endif // MF_CUDA_MX_ELEM_CUH
