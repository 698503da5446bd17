/* SPDX-License-Identifier: MIT */
/* src/cuda/api_quant_gemm.c - host-side argument checks of mf_cuda_mx_quantize, mf_cuda_nvfp4_quantize and
 * mf_cuda_gemm (minifloat/cuda.h), then their launchers (launch.h).
 *
 * Each check is the host function's, in the host function's order, so a call gets the code mf_mx_quantize,
 * mf_nvfp4_quantize or mf_gemm would give it: the shape rules come from mf_mx_sizes / mf_nvfp4_sizes
 * themselves. Nothing is written on an error; a call with no elements succeeds without queueing anything.
 */
#include "internal.h"
#include "launch.h"

static const mf_opts mf__qg_defaults = {MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0, 0, NULL, 0, MF_PROFILE_DEFAULT};

/* The options checks both quantize functions share, in mf_mx_quantize's order after the shape. */
static int mf__qg_opts(const mf_opts *o)
{
    if (o->round != MF_ROUND_NEAREST_EVEN && o->round != MF_ROUND_STOCHASTIC)
        return MF_E_ROUND;
    if ((unsigned)o->overflow > MF_OVERFLOW_SATURATE /* SatPropagate: conversions only */)
        return MF_E_POLICY;
    if (o->threads < 0)
        return MF_E_ARG;
    if (o->profile != MF_PROFILE_DEFAULT) /* block scaling has one semantics (OCP MX, NVIDIA's NVFP4) */
        return MF_E_PROFILE;
    return MF_OK;
}

static void mf__qg_zero_stats(const mf_opts *o)
{
    if (o->stats) {
        o->stats->overflow = o->stats->underflow = o->stats->subnormal = 0;
        o->stats->nan = o->stats->inexact = 0;
    }
}

int mf_cuda_mx_quantize(mf_mx_type type, mf_mx_scale_rule rule, mf_mx_axis axis, unsigned flags, const float *x,
                        size_t rows, size_t cols, void *elems, uint8_t *scales, const mf_opts *opts, void *stream)
{
    const mf_opts *o = opts ? opts : &mf__qg_defaults;
    size_t eb = 0, ns = 0, n;
    int rc = mf_mx_sizes(type, axis, flags, rows, cols, &eb, &ns); /* mf_mx_quantize's first checks */

    if (rc != MF_OK)
        return rc;
    if ((unsigned)rule > (unsigned)MF_MX_SCALE_RCEIL)
        return MF_E_ARG;
    if ((rc = mf__qg_opts(o)) != MF_OK)
        return rc;
    n = rows * cols; /* no overflow: mf_mx_sizes checked it */
    if (n == 0) {
        mf__qg_zero_stats(o);
        return MF_OK;
    }
    if (!x || !elems || !scales)
        return MF_E_NULL;
    if (mf__ranges_overlap(x, n * sizeof(float), elems, eb) || mf__ranges_overlap(x, n * sizeof(float), scales, ns) ||
        mf__ranges_overlap(elems, eb, scales, ns))
        return MF_E_OVERLAP;
    return mf__cuda_launch_mx_quantize(type, rule, axis, flags, x, rows, cols, elems, scales, o, stream);
}

int mf_cuda_nvfp4_quantize(mf_mx_axis axis, const float *x, size_t rows, size_t cols, uint8_t *elems, uint8_t *scales,
                           const float *amax_in, float *amax_out, const mf_opts *opts, void *stream)
{
    const mf_opts *o = opts ? opts : &mf__qg_defaults;
    size_t eb = 0, ns = 0, n;
    int rc = mf_nvfp4_sizes(axis, rows, cols, &eb, &ns);

    if (rc != MF_OK)
        return rc;
    if ((rc = mf__qg_opts(o)) != MF_OK)
        return rc;
    if (amax_in) {
        const uint32_t b = mf__f32_bits(*amax_in);
        if ((b & 0x7FFFFFFFu) > 0x7F800000u || b > 0x80000000u) /* NaN, or below -0 */
            return MF_E_ARG;
    }
    n = rows * cols;
    if (n == 0) {
        if (amax_out)
            *amax_out = amax_in ? *amax_in : 0.0f;
        mf__qg_zero_stats(o);
        return MF_OK;
    }
    if (!x || !elems || !scales)
        return MF_E_NULL;
    if (mf__ranges_overlap(x, n * sizeof(float), elems, eb) || mf__ranges_overlap(x, n * sizeof(float), scales, ns) ||
        mf__ranges_overlap(elems, eb, scales, ns))
        return MF_E_OVERLAP;
    return mf__cuda_launch_nvfp4_quantize(axis, x, rows, cols, elems, scales, amax_in, amax_out, o, stream);
}

int mf_cuda_gemm(mf_layout layout, mf_trans trans_a, mf_trans trans_b, size_t m, size_t n, size_t k, float alpha,
                 const void *a, mf_format fmt_a, size_t lda, const void *b, mf_format fmt_b, size_t ldb, float beta,
                 float *c, size_t ldc, void *stream)
{
    size_t bytes_a, bytes_b, bytes_c, mn, rs, cs; /* strides: the launcher derives its own */
    int rc, read_ab;

    /* mf_gemm's order: enums, formats, the three matrices' ld and span, m * n, then pointers */
    if ((unsigned)layout > MF_COL_MAJOR || (unsigned)trans_a > MF_TRANS || (unsigned)trans_b > MF_TRANS)
        return MF_E_ARG;
    if (!((fmt_a == MF_FP16 && fmt_b == MF_FP16) || (fmt_a == MF_BF16 && fmt_b == MF_BF16) ||
          (mf__is_fp8(fmt_a) && mf__is_fp8(fmt_b))))
        return MF_E_FORMAT;
    if ((rc = trans_a == MF_NO_TRANS ? mf__stored_matrix(layout, fmt_a, a, m, k, lda, &rs, &cs, &bytes_a)
                                     : mf__stored_matrix(layout, fmt_a, a, k, m, lda, &rs, &cs, &bytes_a)) != MF_OK ||
        (rc = trans_b == MF_NO_TRANS ? mf__stored_matrix(layout, fmt_b, b, k, n, ldb, &rs, &cs, &bytes_b)
                                     : mf__stored_matrix(layout, fmt_b, b, n, k, ldb, &rs, &cs, &bytes_b)) != MF_OK ||
        (rc = mf__stored_matrix(layout, MF_FP32, c, m, n, ldc, &rs, &cs, &bytes_c)) != MF_OK)
        return rc;
    if (!mf__count2_ok(m, n, &mn))
        return MF_E_SIZE;
    if (mn == 0)
        return MF_OK;
    /* as mf_gemm: with alpha = 0 (either sign) or k = 0, A and B are not read */
    read_ab = k > 0 && (mf__f32_bits(alpha) & 0x7FFFFFFFu) != 0;
    if (!c || (read_ab && (!a || !b)))
        return MF_E_NULL;
    if (!read_ab)
        bytes_a = bytes_b = 0;
    if (mf__ranges_overlap(c, bytes_c, a, bytes_a) || mf__ranges_overlap(c, bytes_c, b, bytes_b))
        return MF_E_OVERLAP;
    return mf__cuda_launch_gemm(layout, trans_a, trans_b, m, n, read_ab ? k : 0, alpha, a, fmt_a, lda, b, fmt_b, ldb,
                                beta, c, ldc, stream);
}
