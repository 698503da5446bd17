/* SPDX-License-Identifier: MIT */
/* src/gemm/kernels.h - GEMM micro-kernels, one per instruction set (private).
 *
 * A micro-kernel adds to an MR x NR tile of binary32 accumulators (row-major, contiguous) the products
 * of kc packed columns of A (MR values each) and rows of B (NR values each):
 *     c[i * NR + j] = fma(a[p * MR + i], b[p * NR + j], c[i * NR + j])   for p = 0 .. kc-1, in order
 * where the tile's starting values are c's when load is nonzero, else +0 (c is then only written: the
 * first block of k needs no cleared tile), with one rounding per fma, to nearest even (the caller sets the default floating-point environment).
 * So every kernel gives every accumulator the same bits: MF_ACCUM_FP32's contract does not depend on
 * the instruction set, and a kernel is a faster way to run the same sums.
 */
#ifndef MF_GEMM_KERNELS_H
#define MF_GEMM_KERNELS_H

#include <stddef.h>

typedef void (*mf__gemm_ukr_fn)(size_t kc, const float *a, const float *b, float *c, int load);

typedef struct mf__gemm_ukr {
    const char *name; /* the instruction set */
    int mr, nr;       /* tile rows and columns */
    mf__gemm_ukr_fn fn;
} mf__gemm_ukr;

extern const mf__gemm_ukr mf__gemm_ukr_portable;
#if MF_HAVE_BACKEND_avx2
extern const mf__gemm_ukr mf__gemm_ukr_avx2; /* src/x86/gemm_avx2.c */
#endif
#if MF_HAVE_BACKEND_neon
extern const mf__gemm_ukr mf__gemm_ukr_neon; /* src/arm/gemm_neon.c */
#endif
#if MF_HAVE_BACKEND_avx512
extern const mf__gemm_ukr mf__gemm_ukr_avx512; /* src/x86/gemm_avx512.c */
#endif

#endif /* MF_GEMM_KERNELS_H */
