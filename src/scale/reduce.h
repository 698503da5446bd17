/* SPDX-License-Identifier: MIT */
/* src/scale/reduce.h - calling a mf_reduce_hook (the loss scaler and the FP8 recipes). */
#ifndef MF_SCALE_REDUCE_H
#define MF_SCALE_REDUCE_H

#include <minifloat/types.h>

/* Max-reduce v[0 .. n-2] across ranks through h, with v[n-1] as this rank's status (1 if local_fail).
 * MF_OK when the hook succeeded and no rank reported a failure; MF_E_REDUCE otherwise (a NaN status
 * counts as a failure). */
static inline int mf__reduce_max(const mf_reduce_hook *h, float *v, size_t n, int local_fail)
{
    v[n - 1] = local_fail ? 1.0f : 0.0f;
    if (h->max(h->ctx, v, n) != 0)
        return MF_E_REDUCE;
    return v[n - 1] == 0.0f ? MF_OK : MF_E_REDUCE;
}

#endif /* MF_SCALE_REDUCE_H */
