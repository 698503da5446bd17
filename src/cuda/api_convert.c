/* SPDX-License-Identifier: MIT */
/* src/cuda/api_convert.c - host-side argument checks of mf_cuda_convert, mf_cuda_unscale_check and
 * mf_cuda_amax (minifloat/cuda.h), then their launchers (launch.h).
 *
 * Each check is the host function's (mf_convert, mf_unscale_check, mf_amax), in its order and with its
 * codes, so that a call is refused on the GPU exactly where it would be on the CPU, before anything is
 * queued. Nothing is written on an error; a call with no elements succeeds without touching the
 * device (mf_cuda_convert zeroes the counts, mf_cuda_amax gives 0) even where there is none.
 */
#include <string.h>

#include "internal.h"
#include "launch.h"

static const mf_opts mf__cv_defaults = {MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0, 0, NULL, 0, MF_PROFILE_DEFAULT};

int mf_cuda_convert(mf_format dst_fmt, void *dst, mf_format src_fmt, const void *src, size_t n, const mf_opts *opts,
                    void *stream)
{
    const mf_opts *o = opts ? opts : &mf__cv_defaults;
    size_t dbytes, sbytes;
    int rc = mf__check_convert_args(dst_fmt, src_fmt, o); /* mf_convert's enum and threads checks */

    if (rc != MF_OK)
        return rc;
    if (o->overflow == MF_OVERFLOW_PROPAGATE) /* the kernels are compiled for the other two policies */
        return MF_E_POLICY;
    if (o->profile != MF_PROFILE_DEFAULT && dst_fmt != src_fmt) /* the kernels run the default semantics */
        return MF_E_UNSUPPORTED;
    if (n == 0) {
        if (o->stats)
            memset(o->stats, 0, sizeof *o->stats);
        return MF_OK;
    }
    if (!dst || !src)
        return MF_E_NULL;
    if (!mf__span_fmt_ok(dst_fmt, dst, n, &dbytes) || !mf__span_fmt_ok(src_fmt, src, n, &sbytes))
        return MF_E_SIZE;
    if (dst_fmt != src_fmt && mf__ranges_overlap(dst, dbytes, src, sbytes))
        return MF_E_OVERLAP; /* equal formats copy with memmove semantics, overlapping or not */
    return mf__cuda_launch_convert(dst_fmt, dst, src_fmt, src, n, o, stream);
}

/* mf_unscale_check's formats and their element sizes */
static int mf__cv_grad_format(mf_format fmt) { return fmt == MF_FP32 || fmt == MF_FP16 || fmt == MF_BF16; }

int mf_cuda_unscale_check(const mf_loss_scaler *s, mf_format fmt, void *grads, size_t n, void *stream)
{
    size_t bytes;
    int found = 0, rc;

    if (!s)
        return MF_E_NULL;
    if (!mf__cv_grad_format(fmt))
        return MF_E_FORMAT;
    if (n == 0)
        return 0;
    if (!grads)
        return MF_E_NULL;
    if (!mf__span_ok(grads, n, fmt == MF_FP32 ? 4 : 2, &bytes))
        return MF_E_SIZE;
    rc = mf__cuda_launch_unscale_check(mf_loss_scaler_inv_scale(s), fmt, grads, n, &found, stream);
    return rc != MF_OK ? rc : found;
}

int mf_cuda_amax(mf_format fmt, const void *x, size_t n, float *amax, void *stream)
{
    size_t bytes;
    float v = 0.0f;
    int rc;

    if (!amax)
        return MF_E_NULL;
    if (fmt != MF_FP32 && fmt != MF_FP16 && fmt != MF_BF16 && fmt != MF_FP64)
        return MF_E_FORMAT;
    if (n == 0) {
        *amax = 0.0f;
        return MF_OK;
    }
    if (!x)
        return MF_E_NULL;
    if (!mf__span_ok(x, n, fmt == MF_FP64 ? 8 : fmt == MF_FP32 ? 4 : 2, &bytes))
        return MF_E_SIZE;
    rc = mf__cuda_launch_amax(fmt, x, n, &v, stream);
    if (rc == MF_OK)
        *amax = v;
    return rc;
}
