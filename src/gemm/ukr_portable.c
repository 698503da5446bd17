/* SPDX-License-Identifier: MIT */
/* src/gemm/ukr_portable.c - the portable GEMM micro-kernel: ISO C, fmaf (kernels.h has the contract). */
#include <math.h>

#include "kernels.h"

enum { MR = 4, NR = 4 };

static void ukr_portable(size_t kc, const float *a, const float *b, float *c, int load)
{
    float t[MR * NR];
    for (int q = 0; q < MR * NR; q++)
        t[q] = load ? c[q] : 0.0f;
    for (size_t p = 0; p < kc; p++, a += MR, b += NR)
        for (int i = 0; i < MR; i++)
            for (int j = 0; j < NR; j++)
                t[i * NR + j] = fmaf(a[i], b[j], t[i * NR + j]);
    for (int q = 0; q < MR * NR; q++)
        c[q] = t[q];
}

const mf__gemm_ukr mf__gemm_ukr_portable = {"portable", MR, NR, ukr_portable};
