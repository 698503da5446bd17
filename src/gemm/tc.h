/* SPDX-License-Identifier: MIT */
/* src/gemm/tc.h - the tensor-core models (tc.c), for mf_gemm (private). */
#ifndef MF_GEMM_TC_H
#define MF_GEMM_TC_H

#include <stddef.h>
#include <stdint.h>

#include <minifloat.h>
#include <minifloat/detail/round.h>

/* one model's parameters for one input pair */
typedef struct mf__tc {
    int w;        /* products per block */
    int frac;     /* fraction bits kept below the largest exponent: 23 + neab */
    int out_frac; /* fraction bits of a block's binary32 result (13 for FP8 on Ada and Hopper) */
    int min_exp;  /* floor of the alignment exponent */
    int tf32;     /* f32 inputs are cut to TF32 */
} mf__tc;

/* an element as the hardware sees it: (-1)^neg * m * 2^(r - t); cls 0 finite, 1 inf, 2 NaN */
typedef struct mf__tc_elem {
    int neg, cls, t, r;
    uint32_t m;
} mf__tc_elem;

/* The parameters of GPU model gpu for inputs fa x fb; 0 where its tensor cores take no such pair. */
int mf__tc_params(mf_accum gpu, mf_format fa, mf_format fb, mf__tc *p);

/* Decode code (format f) as the tensor core does (TF32 cut when tf32 and f is f32). */
void mf__tc_decode(mf_format f, uint32_t code, int tf32, mf__tc_elem *e);

/* The model's sum c + a[0] b[0] + ... + a[k-1] b[k-1] (binary32 bits in and out); promote > 0 adds each
 * promote-long partial sum into a binary32 accumulator instead (tc.c). */
uint32_t mf__tc_dot(const mf__tc *p, const mf__tc_elem *a, const mf__tc_elem *b, size_t k, uint32_t c, size_t promote);

#endif /* MF_GEMM_TC_H */
