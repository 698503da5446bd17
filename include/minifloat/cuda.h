/* SPDX-License-Identifier: MIT */
/* minifloat/cuda.h - the library's bulk operations as CUDA kernels, with the host's bits.
 *
 *   #include <minifloat/cuda.h>     // includes <minifloat.h>; link minifloat_cuda (minifloat::cuda)
 *
 * Every function here gives, on the GPU, the bytes its host counterpart gives on the CPU (mf_cuda_gemm:
 * see its own contract). Arrays (src, dst, grads, x, elems, scales, a, b, c) are device pointers (or
 * managed memory) in the layouts of the host functions; opts, stats, amax outputs and inputs marked
 * "host" are host pointers. stream is a cudaStream_t passed as void * so that this header compiles
 * without the CUDA headers; NULL is the legacy default stream. Work is queued on stream and the call
 * returns; a call that returns a value computed on the device (a flag, an amax, counts in opts->stats)
 * waits for the stream first.
 *
 * Arguments are checked on the host, before anything is queued, with the host function's rules and
 * codes; then:
 *   MF_E_UNSUPPORTED  this library was built without CUDA, there is no CUDA device, or the current
 *                     device lacks what the call needs (mf_cuda_gemm with FP8 before sm_89);
 *   MF_E_DEVICE       the CUDA runtime reported an error (launch, copy, synchronisation).
 * The library builds everywhere; without CUDA each function checks its arguments and returns
 * MF_E_UNSUPPORTED, so code that calls them links and runs (docs/cuda.md).
 */
#ifndef MINIFLOAT_CUDA_H
#define MINIFLOAT_CUDA_H

#include "../minifloat.h"

MF_BEGIN_DECLS

/* 1 if this library was built with its CUDA kernels, 0 if it holds the "unsupported" stubs. */
MF_API int mf_cuda_built(void);

/* The number of CUDA devices the runtime sees (0 without CUDA, without a driver, or on error). */
MF_API int mf_cuda_device_count(void);

/* mf_convert on the GPU: the same pairs, modes, policies, stochastic-rounding stream (opts->seed,
 * opts->sr_offset) and bytes. opts->threads must be >= 0 and is not used. With opts->stats the counts
 * are reduced on the device and copied back (the call waits for the stream). Errors as mf_convert, then
 * MF_E_UNSUPPORTED (also for a profile other than MF_PROFILE_DEFAULT: the kernels run minifloat's own
 * semantics) / MF_E_DEVICE. */
MF_API int mf_cuda_convert(mf_format dst_fmt, void *dst, mf_format src_fmt, const void *src, size_t n,
                           const mf_opts *opts, void *stream);

/* mf_unscale_check on the GPU: grads (f32, f16 or bf16) unscaled in place by
 * mf_loss_scaler_inv_scale(s), in one pass; returns 1 if any element was inf or NaN, 0 if none (the call
 * waits for the stream), or the error codes of mf_unscale_check, then MF_E_UNSUPPORTED / MF_E_DEVICE.
 * s is a host pointer and is not modified. */
MF_API int mf_cuda_unscale_check(const mf_loss_scaler *s, mf_format fmt, void *grads, size_t n, void *stream);

/* mf_amax on the GPU: *amax (host) = max |x[i]|, NaN skipped, for f32, f64, f16 or bf16. Waits for the
 * stream. Errors as mf_amax, then MF_E_UNSUPPORTED / MF_E_DEVICE. */
MF_API int mf_cuda_amax(mf_format fmt, const void *x, size_t n, float *amax, void *stream);

/* mf_mx_quantize on the GPU: the same scale codes and element bytes, stochastic rounding included.
 * With opts->stats the call waits for the stream. Errors as mf_mx_quantize, then MF_E_UNSUPPORTED /
 * MF_E_DEVICE. */
MF_API int mf_cuda_mx_quantize(mf_mx_type type, mf_mx_scale_rule rule, mf_mx_axis axis, unsigned flags, const float *x,
                               size_t rows, size_t cols, void *elems, uint8_t *scales, const mf_opts *opts,
                               void *stream);

/* mf_nvfp4_quantize on the GPU. amax_in and amax_out are host pointers (either may be NULL); without
 * amax_in the tensor's amax is computed on the device first, and the call waits for the stream when
 * amax_out or opts->stats is set. Errors as mf_nvfp4_quantize, then MF_E_UNSUPPORTED / MF_E_DEVICE. */
MF_API int mf_cuda_nvfp4_quantize(mf_mx_axis axis, const float *x, size_t rows, size_t cols, uint8_t *elems,
                                  uint8_t *scales, const float *amax_in, float *amax_out, const mf_opts *opts,
                                  void *stream);

/* C = alpha * op(A) op(B) + beta * C on the GPU's tensor cores (mma.sync), with mf_gemm's argument
 * conventions (layout, transposes, leading dimensions in elements). A and B are both MF_FP16, both
 * MF_BF16 (sm_80 and later), or each MF_FP8_E4M3 / MF_FP8_E5M2 (sm_89 and later); C is f32.
 *
 * The sum: each element's accumulator starts at +0 and takes the products in k order, one instruction
 * step at a time (16 products for f16/bf16, 32 for FP8), the binary32 result of one step being the
 * addend of the next: on a GPU whose tensor cores mf_gemm models, acc is bit for bit mf_gemm's result
 * under that model (MF_ACCUM_A100, MF_ACCUM_ADA, MF_ACCUM_H100, MF_ACCUM_B200). Then
 * C = fmaf(alpha, acc, beta * C) in binary32, round to nearest even (beta = 0: C is not read, alpha *
 * acc rounded once).
 * Returns MF_OK; MF_E_ARG (layout, a transpose, a leading dimension too small); MF_E_FORMAT (a format
 * pair not listed); MF_E_NULL (a, b or c NULL where read or written); MF_E_SIZE (a matrix beyond the
 * address space); MF_E_OVERLAP (C's bytes overlap A's or B's); MF_E_UNSUPPORTED; MF_E_DEVICE. */
MF_API int mf_cuda_gemm(mf_layout layout, mf_trans trans_a, mf_trans trans_b, size_t m, size_t n, size_t k, float alpha,
                        const void *a, mf_format fmt_a, size_t lda, const void *b, mf_format fmt_b, size_t ldb,
                        float beta, float *c, size_t ldc, void *stream);

MF_END_DECLS

#endif /* MINIFLOAT_CUDA_H */
