/* SPDX-License-Identifier: MIT */
/* src/gemm/exact_int.h - MF_ACCUM_EXACT in integers for the narrow formats (exact_int.c; private).
 *
 * e2m1 values times 2, e2m3 values times 8 and e3m2 values times 16 are integers (|v| <= 12, 60, 448),
 * so an exact dot product of them is an integer sum of integer products times 2^-(sh_a + sh_b): formed in
 * int32 lanes over chunks of k short enough that no lane can overflow, and carried across chunks in int64.
 * With MX block scales along k (a power of two per 32 elements, each element's value exact) each block's
 * integer sum is shifted by its blocks' exponents before it is added. The result of every element is an
 * int64 V and an exponent E: the exact dot product is V * 2^E, handed to the caller's epilogue. With NVFP4
 * scales (the wide mode, below) every element is an integer below 2^28 at its 16-block's exponent, and the sums
 * are 128-bit.
 *
 * A micro-kernel computes an MR x NR tile of int32 sums over ng groups of G consecutive k (G = 4 for
 * int8 operands, 2 for int16), from packed panels:
 *   a: for g < ng, for r < MR, G elements of row r      (int8 or int16, signed)
 *   b: for g < ng, for l < NR, G elements of column l   (uint8 holding value + off, or int16)
 *   c[r * NR + l] = sum over g, q of a[g][r][q] * b[g][l][q]   (written, not accumulated)
 * With int8 operands b holds each value plus off, the largest magnitude of B's format (vpdpbusd and vpmaddubsw
 * multiply unsigned by signed bytes); the caller subtracts off times the row's sum of a. Every kernel gives the
 * same int32 sums: the caller's chunks keep every partial sum below 2^31 in magnitude, so no lane wraps, in any
 * order. span (int8): the caller's bound on 16-bit sums, for kernels that add pairs of products in int16 lanes
 * (AVX2's vpmaddubsw): any sum of the pair sums a[g][r][2h] * b[g][l][2h] + a[g][r][2h+1] * b[g][l][2h+1] over
 * at most span consecutive groups stays below 2^15 in magnitude.
 *
 * An MX kernel (optional) sums nblk blocks of 32 k (32 / G groups each) with their exponents, in int32:
 *   c[r * NR + l] = sum over blocks q of (s_q[r][l] - corr[q * MR + r]) * 2^(sa[q * MR + r] + sb[q * NR + l])
 * s_q the block's sum as above, corr its offset's share (0 for int16). The caller's chunk of blocks keeps every
 * partial sum below 2^31, those in which a block's offset share stands before some of its products included (the
 * share of the products not yet added is at most their bound). A kernel without one leaves the caller to take one
 * block at a time through add.
 */
#ifndef MF_GEMM_EXACT_INT_H
#define MF_GEMM_EXACT_INT_H

#include <stddef.h>
#include <stdint.h>

#include <minifloat.h>

enum { MF__XI_MR = 8, MF__XI_NR = 32, MF__XI_MX_BLOCK = 32 };

typedef void (*mf__xi_fn)(size_t ng, size_t span, const void *a, const void *b, int32_t *c);
typedef void (*mf__xi_mx_fn)(size_t nblk, size_t span, const void *a, const void *b, int32_t *c,
                             const int32_t *corr, const int32_t *sa, const int32_t *sb);

/* One chunk's int32 tile c into the int64 tile acc: acc[r][l] += (c[r][l] - corr[r]) * 2^(ea[r] + eb[l]), corr
 * the offset's share, ea and eb the MX exponents above the least (zeros without block scales); the caller's
 * bound keeps |acc| below 2^62. */
typedef void (*mf__xi_add_fn)(int64_t *acc, const int32_t *c, const int64_t *corr, const int32_t *ea,
                              const int32_t *eb);

/* The wide mode (NVFP4, exact_int.c): one row of int32 integers a[k] against NR columns b[p * NR + l], in
 * blocks of 16 along k, each block's int64 sum shifted by ea[q] + eb[q * NR + l] (< 64) into a 128-bit
 * two's-complement sum per column, hi * 2^64 + lo (written). The caller keeps |a|, |b| < 2^28, so a block's
 * sum is below 2^60, and the shifted sums below 2^126. */
typedef void (*mf__xi_wide_fn)(size_t nq, const int32_t *a, const int32_t *b, const int32_t *ea, const int32_t *eb,
                               int64_t *hi, uint64_t *lo);

typedef struct mf__xi_kernel {
    const char *name;  /* the instruction set */
    mf__xi_fn i8;      /* G = 4: int8 a, uint8 b (value + off) */
    mf__xi_fn i16;     /* G = 2: int16 a and b */
    mf__xi_add_fn add; /* NULL: the portable one */
    mf__xi_mx_fn mx8, mx16; /* MX blocks in int32 (int8, int16 operands), or NULL */
    mf__xi_wide_fn wide;    /* NULL: the portable one (mf__xi_wide_row) */
} mf__xi_kernel;

enum { MF__XI_NV_BLOCK = 16 };

/* The wide mode's row, written once: each kernel's unit may compile it with its own flags. Arithmetic on
 * uint64 only (two's complement by hand), so that every step is defined. */
static inline void mf__xi_wide_row(size_t nq, const int32_t *a, const int32_t *b, const int32_t *ea, const int32_t *eb,
                                   int64_t *hi, uint64_t *lo)
{
    uint64_t h[MF__XI_NR], w[MF__XI_NR];
    for (size_t l = 0; l < MF__XI_NR; l++)
        h[l] = 0, w[l] = 0;
    for (size_t q = 0; q < nq; q++, a += MF__XI_NV_BLOCK, b += MF__XI_NV_BLOCK * MF__XI_NR) {
        int64_t v[MF__XI_NR];
        for (size_t l = 0; l < MF__XI_NR; l++)
            v[l] = 0;
        for (size_t p = 0; p < MF__XI_NV_BLOCK; p++)
            for (size_t l = 0; l < MF__XI_NR; l++)
                v[l] += (int64_t)a[p] * b[p * MF__XI_NR + l];
        for (size_t l = 0; l < MF__XI_NR; l++) { /* (h, w) += v << d: w's part, then h's with the sign and carry */
            const uint64_t d = (uint64_t)(ea[q] + eb[q * MF__XI_NR + l]), u = (uint64_t)v[l];
            const uint64_t neg = 0 - (u >> 63), lp = u << d, hp = ((u ^ neg) >> 1 >> (63 - d)) ^ neg;
            w[l] += lp;
            h[l] += hp + (w[l] < lp);
        }
    }
    for (size_t l = 0; l < MF__XI_NR; l++)
        hi[l] = (int64_t)h[l], lo[l] = w[l];
}

extern const mf__xi_kernel mf__xi_kernel_portable;
#if MF_HAVE_BACKEND_avx2
extern const mf__xi_kernel mf__xi_kernel_avx2; /* src/x86/exact_int_avx2.c */
#endif
#if MF_HAVE_BACKEND_avx512
extern const mf__xi_kernel mf__xi_kernel_avx512vnni; /* src/x86/exact_int_avx512.c */
#endif

/* The kernels this build has and this CPU runs, best first (NULL past the end; for tests). */
const mf__xi_kernel *mf__xi_kernel_at(size_t i);

/* One operand: op(X)'s element (line t, k index p) is element t * ls + p * ks of base (format fmt); for A a
 * line is a row of C, for B a column. bexp: NULL, or MX block scales along k: the scale of elements
 * p in [32 q, 32 q + 32) of line t is 2^bexp[t * (k / 32) + q] (every element's value exact). nvs: NULL, or
 * NVFP4 block scales along k (e2m1): elements p in [16 q, 16 q + 16) of line t are x * nvs[t * (k / 16) + q]
 * rounded to binary32 (the wide mode below). */
typedef struct mf__xi_side {
    const void *base;
    mf_format fmt;
    size_t ls, ks;
    const int16_t *bexp;
    const float *nvs;
} mf__xi_side;

/* the dot products of row i and columns j .. j + cnt - 1 are v[0 .. cnt - 1] * 2^exp exactly; st: the calling
 * thread's counts or NULL */
typedef void (*mf__xi_emit_fn)(void *ctx, size_t i, size_t j, size_t cnt, const int64_t *v, int exp, mf_stats *st);
/* ... are (hi[q] * 2^64 + lo[q]) * 2^exp (the wide mode) */
typedef void (*mf__xi_emit_wide_fn)(void *ctx, size_t i, size_t j, size_t cnt, const int64_t *hi, const uint64_t *lo,
                                    int exp, mf_stats *st);

typedef struct mf__xi_call {
    size_t m, n, k; /* m, n, k > 0 */
    mf__xi_side a, b;
    int threads; /* <= 1: the calling thread only */
    const mf__xi_kernel *kernel; /* NULL: the one for this process's backend */
    mf__xi_emit_fn emit;         /* called once per row of each tile, from any of the threads */
    mf__xi_emit_wide_fn emit_wide; /* the same in the wide mode (NVFP4) */
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
