/* SPDX-License-Identifier: MIT */
/* src/cuda/launch_stub.c - the launchers of a build without CUDA: each reports MF_E_UNSUPPORTED, after the
 * api_*.c files have checked the arguments as they do with CUDA, so callers link and get the same codes. */
#include "launch.h"

int mf__cuda_built(void) { return 0; }

int mf__cuda_device_count(void) { return 0; }

int mf__cuda_launch_convert(mf_format dst_fmt, void *dst, mf_format src_fmt, const void *src, size_t n,
                            const mf_opts *opts, void *stream)
{
    (void)dst_fmt, (void)dst, (void)src_fmt, (void)src, (void)n, (void)opts, (void)stream;
    return MF_E_UNSUPPORTED;
}

int mf__cuda_launch_unscale_check(float inv, mf_format fmt, void *grads, size_t n, int *found, void *stream)
{
    (void)inv, (void)fmt, (void)grads, (void)n, (void)found, (void)stream;
    return MF_E_UNSUPPORTED;
}

int mf__cuda_launch_amax(mf_format fmt, const void *x, size_t n, float *amax, void *stream)
{
    (void)fmt, (void)x, (void)n, (void)amax, (void)stream;
    return MF_E_UNSUPPORTED;
}

int mf__cuda_launch_mx_quantize(mf_mx_type type, mf_mx_scale_rule rule, mf_mx_axis axis, unsigned flags, const float *x,
                                size_t rows, size_t cols, void *elems, uint8_t *scales, const mf_opts *opts,
                                void *stream)
{
    (void)type, (void)rule, (void)axis, (void)flags, (void)x, (void)rows, (void)cols, (void)elems, (void)scales;
    (void)opts, (void)stream;
    return MF_E_UNSUPPORTED;
}

int mf__cuda_launch_nvfp4_quantize(mf_mx_axis axis, const float *x, size_t rows, size_t cols, uint8_t *elems,
                                   uint8_t *scales, const float *amax_in, float *amax_out, const mf_opts *opts,
                                   void *stream)
{
    (void)axis, (void)x, (void)rows, (void)cols, (void)elems, (void)scales, (void)amax_in, (void)amax_out;
    (void)opts, (void)stream;
    return MF_E_UNSUPPORTED;
}

int mf__cuda_launch_gemm(mf_layout layout, mf_trans trans_a, mf_trans trans_b, size_t m, size_t n, size_t k,
                         float alpha, const void *a, mf_format fmt_a, size_t lda, const void *b, mf_format fmt_b,
                         size_t ldb, float beta, float *c, size_t ldc, void *stream)
{
    (void)layout, (void)trans_a, (void)trans_b, (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)fmt_a;
    (void)lda, (void)b, (void)fmt_b, (void)ldb, (void)beta, (void)c, (void)ldc, (void)stream;
    return MF_E_UNSUPPORTED;
}
