/* SPDX-License-Identifier: MIT */
/* src/gemm/tc.h - the tensor-core models (tc.c), for mf_gemm (private). */
#ifndef MF_GEMM_TC_H
#define MF_GEMM_TC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <minifloat.h>
#include <minifloat/detail/round.h>

/* element idx of an array of mf_gemm's element format f (e2m1 two per byte, low nibble first), as its code */
static inline uint32_t mf__gemm_code_at(const void *base, mf_format f, size_t idx)
{
    const unsigned char *b = (const unsigned char *)base;
    uint32_t v32;
    uint16_t v16;
    switch (f) {
    case MF_FP32: memcpy(&v32, b + 4 * idx, 4); return v32;
    case MF_FP16:
    case MF_BF16: memcpy(&v16, b + 2 * idx, 2); return v16;
    case MF_FP4_E2M1: return (uint32_t)(b[idx / 2] >> (4 * (idx & 1))) & 0xFu;
    default: return b[idx];
    }
}

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

/* ---- the vector path (tc_fast.c, x86/tc_avx2.c) ------------------------------------------------------
 *
 * The same sums as mf__tc_dot, MF__TC_LANES columns of C at a time. Operands are decoded once into
 * structure-of-arrays form: a sign-applied integer significand and a raw exponent per element (a zero's
 * exponent MF__TC_ZERO_EXP, far below any other, so that it takes no part in a block's maximum), with B's
 * significands already shifted left by frac - ta - tb (>= 0 for every model), so that a product's term is
 * |am * bm| >> (emax - ar - br), truncated toward zero, then signed. Elements that are inf or NaN are
 * decoded as zeros, and their rows and columns are marked for mf__tc_dot. */
enum { MF__TC_LANES = 16, MF__TC_ZERO_EXP = -(1 << 20) };

/* one call's constants for a panel kernel */
typedef struct mf__tc_lanes {
    int w, frac, out_frac, min_exp;
    int wide;       /* a block's sum can pass 2^31 - 1 (frac 25 and w >= 16): summed in binary64 */
    size_t kp;      /* k rounded up to a multiple of w; the padding is zeros */
    size_t promote; /* as mf__tc_dot's */
} mf__tc_lanes;

/* d[r L + l] = mf__tc_dot(row r, column l, c[r L + l]) for rows r < rows (1 or 2) and the L = MF__TC_LANES
 * columns of a panel: am/ar + r kp are row r's significands and exponents, panel holds for p = 0 .. kp-1
 * L significands then L exponents; every c finite (binary32 bits). */
typedef void (*mf__tc_panel_fn)(const mf__tc_lanes *q, const int32_t *am, const int32_t *ar, const int32_t *panel,
                                const uint32_t *c, uint32_t *d, int rows);

typedef struct mf__tc_kernel {
    const char *name; /* the instruction set */
    mf__tc_panel_fn fn;
} mf__tc_kernel;

extern const mf__tc_kernel mf__tc_kernel_portable;
#if MF_HAVE_BACKEND_avx2
extern const mf__tc_kernel mf__tc_kernel_avx2; /* src/x86/tc_avx2.c */
#endif

/* The panel kernels this build has and this CPU runs, best first (NULL past the end; for tests). config.c's
 * mf__gemm_pick_kernels chooses the one for this process's backend. */
const mf__tc_kernel *mf__tc_kernel_at(size_t i);

/* D(i, j) for j in [j, j + cnt) of row i, in d (binary32 bits), from the thread whose counts are st */
typedef void (*mf__tc_emit_fn)(void *ctx, size_t i, size_t j, size_t cnt, const uint32_t *d, mf_stats *st);

/* One mf_gemm's dot products through the model: op(A)(i, p) is code a_rs * i + a_cs * p of a, likewise B;
 * c (f32 C, element i * c_rs + j * c_cs) is each dot product's first block's input, or NULL for +0. */
typedef struct mf__tc_call {
    const mf__tc *p;
    size_t m, n, k; /* k > 0 */
    const void *a, *b, *c;
    mf_format fa, fb;
    size_t a_rs, a_cs, b_rs, b_cs, c_rs, c_cs;
    size_t promote;
    int threads;                 /* <= 1: the calling thread only */
    const mf__tc_kernel *kernel; /* NULL: the portable one */
    mf__tc_emit_fn emit;         /* called once per row of each panel, from any of the threads */
    void *ctx;
    mf_stats *st; /* NULL: no counts; otherwise each thread's counts are added to it */
} mf__tc_call;

/* Run the call (tc_fast.c): MF_OK, or MF_E_NOMEM. The bits do not depend on the kernel or thread count. */
int mf__tc_run(const mf__tc_call *call);

#endif /* MF_GEMM_TC_H */
