/* SPDX-License-Identifier: MIT */
/* src/scale/nvfp4.c - NVFP4: e2m1 elements, an e4m3 scale per 16 elements, one FP32 tensor scale,
 * computed in Transformer Engine's operation order so the bytes equal TE's.
 *
 * Transcribed from transformer_engine/common/cast/nvfp4/core_nvfp4.cuh
 * (compute_global_encode_scaling_factor_FP4, quantization_and_transposition_SF::
 * compute_decoding_scaling_factor), quantize_transpose_nvfp4.cuh (S_dec = 1.0 / S_enc,
 * block_scale_inverse, mul_cvt_fp32_to_fp4_4x) and dequantize_nvfp4.cuh (dequantize_fp4_kernel).
 * Every binary32 operation there is a CUDA float operation in round-to-nearest-even without
 * flush-to-zero; here each one is mf__f32_mul / mf__f32_div (integers, detail/arith.h), and fminf /
 * fmaxf / comparisons are done on bit patterns, so the caller's FP environment (rounding mode,
 * FTZ/DAZ) cannot change a byte.
 */
#include <string.h>

#include "../internal.h"
#include "minifloat/detail/arith.h"
#include "minifloat/mx.h"
#include "mx_core.h"

#define NV_CHUNK 1024            /* elements per mf_convert call (even: e2m1 bytes never split) */
#define NV_COLS 256              /* columns per pass when reducing column-wise blocks */

static int nv_check(mf_mx_axis axis, size_t rows, size_t cols, size_t *n)
{
    size_t bytes;
    if ((unsigned)axis > (unsigned)MF_MX_COLWISE)
        return MF_E_ARG;
    if ((axis == MF_MX_ROWWISE ? cols : rows) % MF_NVFP4_BLOCK != 0)
        return MF_E_ARG;
    if (!mf__count2_ok(rows, cols, n) || !mf__span_ok(NULL, *n, sizeof(float), &bytes)) /* f32 the widest side */
        return MF_E_SIZE;
    return MF_OK;
}

int mf_nvfp4_sizes(mf_mx_axis axis, size_t rows, size_t cols, size_t *elem_bytes, size_t *scale_count)
{
    size_t n;
    int rc = nv_check(axis, rows, cols, &n);
    if (rc != MF_OK)
        return rc;
    if (elem_bytes)
        *elem_bytes = n / 2;
    if (scale_count)
        *scale_count = n / MF_NVFP4_BLOCK;
    return MF_OK;
}

float mf_nvfp4_global_scale(float amax) { return mf__nv_global_scale(amax); }

int mf_nvfp4_quantize(mf_mx_axis axis, const float *x, size_t rows, size_t cols, uint8_t *elems, uint8_t *scales,
                      const float *amax_in, float *amax_out, const mf_opts *opts)
{
    static const mf_opts defaults = {MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0, 0, NULL, 0, MF_PROFILE_DEFAULT};
    const mf_opts *o = opts ? opts : &defaults;
    float inv[128]; /* block_scale_inverse for each e4m3 scale code 0x00 .. 0x7E (0x7F unused) */
    float amax, s_enc, s_dec, fp4_max_inv, enc_per_amax;
    mf_stats total;
    size_t n, i0, r = 0, c = 0;
    unsigned code;
    int rc = nv_check(axis, rows, cols, &n);

    if (rc != MF_OK)
        return rc;
    if (o->round != MF_ROUND_NEAREST_EVEN && o->round != MF_ROUND_STOCHASTIC)
        return MF_E_ROUND;
    if ((unsigned)o->overflow > MF_OVERFLOW_SATURATE /* SatPropagate: conversions only */)
        return MF_E_POLICY;
    if (o->threads < 0)
        return MF_E_ARG;
    if (o->profile != MF_PROFILE_DEFAULT) /* block scaling has one semantics (OCP MX, NVIDIA's NVFP4) */
        return MF_E_PROFILE;
    if (amax_in) {
        const uint32_t b = mf__f32_bits(*amax_in);
        if ((b & 0x7FFFFFFFu) > 0x7F800000u || (b > 0x80000000u)) /* NaN, or below -0 */
            return MF_E_ARG;
    }
    memset(&total, 0, sizeof total);
    if (n == 0) {
        if (amax_out)
            *amax_out = amax_in ? *amax_in : 0.0f;
        if (o->stats)
            *o->stats = total;
        return MF_OK;
    }
    if (!x || !elems || !scales)
        return MF_E_NULL;
    if (mf__ranges_overlap(x, n * sizeof(float), elems, n / 2) || mf__ranges_overlap(x, n * sizeof(float), scales, n / MF_NVFP4_BLOCK) ||
        mf__ranges_overlap(elems, n / 2, scales, n / MF_NVFP4_BLOCK))
        return MF_E_OVERLAP;

    /* The tensor amax (TE: the amax tensor its amax kernels fill with fmaxf). */
    if (amax_in)
        amax = *amax_in;
    else {
        uint32_t acc = 0;
        size_t i;
        for (i = 0; i < n; i++)
            acc = mf__nv_fold(acc, x[i]);
        amax = mf__f32_from_bits(acc);
    }
    /* S_enc = compute_global_encode_scaling_factor_FP4(amax);
     * S_dec = 1.0 / S_enc: a double quotient stored to float, which is the correctly rounded binary32
     * quotient (detail/arith.h), i.e. mf__f32_div. */
    s_enc = mf_nvfp4_global_scale(amax);
    s_dec = mf__f32_div(1.0f, s_enc);
    /* constexpr float fp4_max_inv = 1.0f / 6.0f (rounded once, at compile time) */
    fp4_max_inv = mf__f32_div(1.0f, 6.0f);
    /* compute_decoding_scaling_factor: block_amax * (S_enc * fp4_max_inv); the bracket is per tensor */
    enc_per_amax = mf__f32_mul(s_enc, fp4_max_inv);
    /* block_scale_inverse = fminf(1.0f / (static_cast<float>(S_dec_b_fp8) * S_dec), FLT_MAX): a
     * function of the scale code alone, so once per code */
    for (code = 0; code < 128; code++)
        inv[code] = mf__min_flt_max(mf__f32_div(1.0f, mf__f32_mul(mf_to_f32(MF_FP8_E4M3, code), s_dec)));

    /* Block scales: S_dec_b_fp8 = static_cast<fp8e4m3>(fminf(block_amax * (S_enc * fp4_max_inv),
     * FLT_MAX)), i.e. e4m3 round-to-nearest-even, saturating (__NV_SATFINITE). The product is >= 0
     * (block_amax >= +0, the bracket > 0), so the code is 0x00 .. 0x7E. */
    if (axis == MF_MX_ROWWISE) {
        const size_t nb = cols / MF_NVFP4_BLOCK;
        size_t b, j;
        for (r = 0; r < rows; r++)
            for (b = 0; b < nb; b++) {
                const float *p = x + r * cols + b * MF_NVFP4_BLOCK;
                uint32_t acc = 0;
                for (j = 0; j < MF_NVFP4_BLOCK; j++)
                    acc = mf__nv_fold(acc, p[j]);
                scales[r * nb + b] = (uint8_t)mf_from_f32(
                    MF_FP8_E4M3, mf__min_flt_max(mf__f32_mul(mf__f32_from_bits(acc), enc_per_amax)),
                    MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE, 0);
            }
    } else {
        size_t c0, b, j;
        for (r = 0; r < rows; r += MF_NVFP4_BLOCK)
            for (c0 = 0; c0 < cols; c0 += NV_COLS) {
                uint32_t acc[NV_COLS];
                const size_t w = cols - c0 < NV_COLS ? cols - c0 : NV_COLS;
                memset(acc, 0, sizeof acc);
                for (b = 0; b < MF_NVFP4_BLOCK; b++) {
                    const float *p = x + (r + b) * cols + c0;
                    for (j = 0; j < w; j++)
                        acc[j] = mf__nv_fold(acc[j], p[j]);
                }
                for (j = 0; j < w; j++)
                    scales[(r / MF_NVFP4_BLOCK) * cols + c0 + j] = (uint8_t)mf_from_f32(
                        MF_FP8_E4M3, mf__min_flt_max(mf__f32_mul(mf__f32_from_bits(acc[j]), enc_per_amax)),
                        MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE, 0);
            }
    }

    /* Elements: e2m1(x * block_scale_inverse), the binary32 product then one rounding (cvt.rn or
     * cvt.rs .satfinite.e2m1), in row-major chunks. */
    r = 0;
    c = 0;
    for (i0 = 0; i0 < n; i0 += NV_CHUNK) {
        float v[NV_CHUNK];
        const size_t m = n - i0 < NV_CHUNK ? n - i0 : NV_CHUNK;
        size_t j;
        mf_opts co;
        mf_stats st;
        for (j = 0; j < m; j++) {
            const unsigned k = axis == MF_MX_ROWWISE ? scales[r * (cols / MF_NVFP4_BLOCK) + c / MF_NVFP4_BLOCK]
                                                     : scales[(r / MF_NVFP4_BLOCK) * cols + c];
            v[j] = mf__f32_mul(x[i0 + j], inv[k & 0x7Fu]);
            if (++c == cols) {
                c = 0;
                r++;
            }
        }
        memset(&co, 0, sizeof co);
        co.round = o->round;
        co.overflow = MF_OVERFLOW_SATURATE;
        co.seed = o->seed;
        co.sr_offset = o->sr_offset + (uint64_t)i0;
        co.stats = o->stats ? &st : NULL;
        (void)mf_convert(MF_FP4_E2M1, elems + i0 / 2, MF_FP32, v, m, &co);
        if (o->stats)
            mf__stats_sum(&total, &st);
    }
    if (amax_out)
        *amax_out = amax;
    if (o->stats)
        *o->stats = total;
    return MF_OK;
}

int mf_nvfp4_dequantize(mf_mx_axis axis, const uint8_t *elems, const uint8_t *scales, float amax, size_t rows,
                        size_t cols, float *y)
{
    float final_scale[256], e2m1[16], factor_inv;
    size_t n, i, r = 0, c = 0;
    unsigned code;
    int rc = nv_check(axis, rows, cols, &n);

    if (rc != MF_OK)
        return rc;
    if (n == 0)
        return MF_OK;
    if (!elems || !scales || !y)
        return MF_E_NULL;
    if (mf__ranges_overlap(y, n * sizeof(float), elems, n / 2) || mf__ranges_overlap(y, n * sizeof(float), scales, n / MF_NVFP4_BLOCK))
        return MF_E_OVERLAP;

    /* constexpr float factor_inv = 1.0 / (6.0 * 448.0): a double quotient rounded to float, the
     * correctly rounded binary32 1/2688 */
    factor_inv = mf__f32_div(1.0f, 2688.0f);
    /* final_scale = static_cast<float>(scale) * amax * factor_inv, left to right */
    for (code = 0; code < 256; code++)
        final_scale[code] = mf__f32_mul(mf__f32_mul(mf_to_f32(MF_FP8_E4M3, code), amax), factor_inv);
    for (code = 0; code < 16; code++)
        e2m1[code] = mf_to_f32(MF_FP4_E2M1, code);

    for (i = 0; i < n; i++) {
        const unsigned k = axis == MF_MX_ROWWISE ? scales[r * (cols / MF_NVFP4_BLOCK) + c / MF_NVFP4_BLOCK]
                                                 : scales[(r / MF_NVFP4_BLOCK) * cols + c];
        y[i] = mf__f32_mul(e2m1[(elems[i / 2] >> (4 * (i & 1))) & 0xFu], final_scale[k]);
        if (++c == cols) {
            c = 0;
            r++;
        }
    }
    return MF_OK;
}
