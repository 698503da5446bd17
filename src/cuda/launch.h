/* SPDX-License-Identifier: MIT */
/* src/cuda/launch.h - between the host-side argument checks (api_*.c) and the CUDA code (*.cu) (private).
 *
 * The api_*.c files check every argument with the host function's rules and codes; only then do they
 * call a launcher below, which queues the work on the stream and returns MF_OK, MF_E_UNSUPPORTED (no
 * device, or the device lacks what the call needs) or MF_E_DEVICE (a CUDA runtime error). In a build
 * without CUDA, launch_stub.c defines every launcher as MF_E_UNSUPPORTED; otherwise the .cu files do.
 * Launchers may assume valid arguments and n > 0 (rows * cols > 0, m * n > 0).
 */
#ifndef MF_CUDA_LAUNCH_H
#define MF_CUDA_LAUNCH_H

#include <minifloat/cuda.h>

#ifdef __cplusplus
extern "C" {
#endif

int mf__cuda_built(void);        /* 1 where the .cu files are linked, 0 in launch_stub.c */
int mf__cuda_device_count(void); /* 0 on any error */

/* opts is never NULL here (the api fills in the defaults); stats, if set, are written here. */
int mf__cuda_launch_convert(mf_format dst_fmt, void *dst, mf_format src_fmt, const void *src, size_t n,
                            const mf_opts *opts, void *stream);
/* *found (host) = 1 if any element was inf or NaN; inv the binary32 factor (1: no multiplication) */
int mf__cuda_launch_unscale_check(float inv, mf_format fmt, void *grads, size_t n, int *found, void *stream);
int mf__cuda_launch_amax(mf_format fmt, const void *x, size_t n, float *amax, void *stream);
int mf__cuda_launch_mx_quantize(mf_mx_type type, mf_mx_scale_rule rule, mf_mx_axis axis, unsigned flags, const float *x,
                                size_t rows, size_t cols, void *elems, uint8_t *scales, const mf_opts *opts,
                                void *stream);
int mf__cuda_launch_nvfp4_quantize(mf_mx_axis axis, const float *x, size_t rows, size_t cols, uint8_t *elems,
                                   uint8_t *scales, const float *amax_in, float *amax_out, const mf_opts *opts,
                                   void *stream);
int mf__cuda_launch_gemm(mf_layout layout, mf_trans trans_a, mf_trans trans_b, size_t m, size_t n, size_t k,
                         float alpha, const void *a, mf_format fmt_a, size_t lda, const void *b, mf_format fmt_b,
                         size_t ldb, float beta, float *c, size_t ldc, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* MF_CUDA_LAUNCH_H */
