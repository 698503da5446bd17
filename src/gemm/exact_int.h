/* SPDX-License-Identifier: MIT */
/* src/gemm/exact_int.h - MF_ACCUM_EXACT in integers for the narrow formats (exact_int.c; private).
 *
 * e2m1 values times 2, e2m3 values times 8 and e3m2 values times 16 are integers (|v| <= 12, 60, 448),
 * so an exact dot product of them is an integer sum of integer products times 2^-(sh_a + sh_b): formed in
 * int32 lanes over chunks of k short enough that no lane can overflow, and carried across chunks in int64.
 * With MX block scales along k (a power of two per 32 elements, each element's value exact) each block's
 * integer sum is shifted by its blocks' exponents before it is added. The result of every element is an
 * int64 V and an exponent E: the exact dot product is V * 2^E, handed to the caller's epilogue.
 *
 * A micro-kernel computes an MR x NR tile of int32 sums over ng groups of G consecutive k (G = 4 for
 * int8 operands, 2 for int16), from packed panels:
 *   a: for g < ng, for r < MR, G elements of row r      (int8 or int16, signed)
 *   b: for g < ng, for l < NR, G elements of column l   (uint8 holding value + 64, or int16)
 *   c[r * NR + l] = sum over g, q of a[g][r][q] * b[g][l][q]   (written, not accumulated)
 * With int8 operands b holds each value plus 64 (VNNI's vpdpbusd multiplies unsigned by signed bytes);
 * the caller subtracts 64 times the row's sum of a. Every kernel gives the same int32 sums: the caller's
 * chunks keep every partial sum below 2^31 in magnitude, so no lane wraps, in any order.
 */
#ifndef MF_GEMM_EXACT_INT_H
#define MF_GEMM_EXACT_INT_H

#include <stddef.h>
#include <stdint.h>

#include <minifloat.h>

enum { MF__XI_MR = 8, MF__XI_NR = 32, MF__XI_B_OFFSET = 64, MF__XI_MX_BLOCK = 32 };

typedef void (*mf__xi_fn)(size_t ng, const void *a, const void *b, int32_t *c);

typedef struct mf__xi_kernel {
    const char *name; /* the instruction set */
    mf__xi_fn i8;     /* G = 4: int8 a, uint8 b (value + 64) */
    mf__xi_fn i16;    /* G = 2: int16 a and b */
} mf__xi_kernel;

extern const mf__xi_kernel mf__xi_kernel_portable;
#if MF_HAVE_BACKEND_avx512
extern const mf__xi_kernel mf__xi_kernel_avx512vnni; /* src/x86/exact_int_avx512.c */
#endif

/* The kernels this build has and this CPU runs, best first (NULL past the end; for tests). */
const mf__xi_kernel *mf__xi_kernel_at(size_t i);

/* One operand: op(X)'s element (line t, k index p) is element t * ls + p * ks of base (format fmt); for A a
 * line is a row of C, for B a column. bexp: NULL, or MX block scales along k: the scale of elements
 * p in [32 q, 32 q + 32) of line t is 2^bexp[t * (k / 32) + q] (every element's value exact). */
typedef struct mf__xi_side {
    const void *base;
    mf_format fmt;
    size_t ls, ks;
    const int16_t *bexp;
} mf__xi_side;

/* the dot products of row i and columns j .. j + cnt - 1 are v[0 .. cnt - 1] * 2^exp exactly; st: the calling
 * thread's counts or NULL */
typedef void (*mf__xi_emit_fn)(void *ctx, size_t i, size_t j, size_t cnt, const int64_t *v, int exp, mf_stats *st);

typedef struct mf__xi_call {
    size_t m, n, k; /* m, n, k > 0 */
    mf__xi_side a, b;
    int threads; /* <= 1: the calling thread only */
    const mf__xi_kernel *kernel; /* NULL: the one for this process's backend */
    mf__xi_emit_fn emit;         /* called once per row of each tile, from any of the threads */
    void *ctx;
    mf_stats *st; /* NULL: no counts; otherwise each thread's counts are added to it */
} mf__xi_call;

enum { MF__XI_DECLINED = 1 };

/* Whether the pair has an integer form here (e2m1, e2m3, e3m2 in any pair). */
int mf__xi_takes(mf_format fa, mf_format fb);

/* Run the call: MF_OK (every element emitted), MF_E_NOMEM, or MF__XI_DECLINED (a bound does not hold, e.g.
 * the MX exponents spread too far for int64); nothing is emitted unless MF_OK is returned. */
int mf__xi_run(const mf__xi_call *call);

#endif /* MF_GEMM_EXACT_INT_H */
