/* SPDX-License-Identifier: MIT */
/* src/gemm/gemm_internal.h - what the parts of mf_gemm share (private): the call, its operands and the
 * FP32 path's plan. The parts, in the order a call meets them:
 *   gemm.c      the API: argument checks, mf_gemm and mf_gemm_plan, the tensor-core models' driver
 *   config.c    the kernels of each backend (one table) and the choice of kernel, tile and blocking for a call
 *   pack.c      decoding elements, block scales, packing A and B into the kernels' panels
 *   macro.c     the FP32 path's macro-kernel: blocks, the thread team, the work buffer
 *   exact.c     MF_ACCUM_EXACT: the integer kernels' driver (exact_int.c) and the element-by-element reference
 *   epilogue.c  exact values with IEEE specials and the one rounding of alpha * scales * dot + beta * c into C
 * Micro-kernels are in kernels.h (their contract) and one file each per instruction set.
 */
#ifndef MF_GEMM_INTERNAL_H
#define MF_GEMM_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include <minifloat.h>
#include <minifloat/gemm.h>

#include "../internal.h"
#include "bigacc.h"
#include "kernels.h"
#include "tc.h"

/* An operand's block scales (kinds BLOCK_*, MX, NVFP4): the stored array seen as a row-major tensor of
 * lines of cols elements, element (r, c) at array index r * ld + c, its block (r >> bh, c >> bw) scaled by
 * f[...] or lut[u8[...]] at (r >> bh) * scols + (c >> bw). */
typedef struct bscale {
    size_t ld, cols, scols;
    unsigned bh, bw; /* log2 of the block's height and width */
    const float *f;
    const uint8_t *u8;
    float lut[256]; /* MX: 2^(code - 127), NaN for 0xFF; NVFP4: e4m3(code) * amax * (1 / 2688) */
} bscale;

/* op(X)'s element (r, c) of a stored matrix is element r * rs + c * cs of its array. */
typedef struct mat {
    const void *base;
    mf_format fmt;
    size_t rs, cs;
    const bscale *bs; /* block scales, or NULL */
} mat;

/* ---- exact values with IEEE specials ------------------------------------------------------------ */

enum { XV_FIN, XV_INF, XV_NAN };
typedef struct xval {
    int cls; /* XV_FIN: v holds the value; XV_INF: an infinity of sign neg */
    int neg;
    big v;
} xval;

static inline int bits_nan(uint32_t b) { return (b & 0x7FFFFFFFu) > 0x7F800000u; }
static inline int bits_inf(uint32_t b) { return (b & 0x7FFFFFFFu) == 0x7F800000u; }
static inline int bits_zero(uint32_t b) { return (b & 0x7FFFFFFFu) == 0; }

/* ---- the call ------------------------------------------------------------------------------------- */

typedef struct gemm {
    size_t m, n, k;
    uint32_t alpha, beta; /* binary32 bits */
    mat a, b;
    const float *sa, *sb;    /* per-row / per-column scales, or NULL */
    size_t sa_step, sb_step; /* 0: one scale for the tensor, 1: a vector */
    void *c;
    mf_format fmt_c;
    size_t c_rs, c_cs;
    const mf_gemm_opts *o;
    int products;    /* alpha != 0 and k > 0: the dot products are formed */
    int direct;      /* alpha = 1, no scales, beta = 0: C is the accumulator rounded once */
    int scaled_rn;   /* f32 C, rn, IEEE, beta = 0, no stats, alpha * scales one binary32 factor: C = fl(acc * factor) */
    bscale bsa, bsb; /* block scales (a.bs, b.bs point here) */
    mf__tc tc;       /* a tensor-core model's parameters */
    int tc_c_in;     /* ... and C is its first block's input (alpha = beta = 1, f32 C, no scales) */
    float factor;
} gemm;

/* ---- MF_ACCUM_FP32: packed panels and a micro-kernel ------------------------------------------------
 *
 * The blocking of BLIS / GotoBLAS: for each block of NC columns, all of op(B) is widened to binary32
 * once, in slivers of NR columns per KC rows; for each block of MC rows, op(A) is widened in slivers of
 * MR rows per KC columns, and the micro-kernel (kernels.h) runs each tile's sums over one KC block into
 * a binary32 work tile W, which carries them from one KC block to the next. Every accumulator therefore
 * gets fma(a_p, b_p, acc) for p = 0 .. k-1 in order from +0, whatever the kernel, block sizes or thread
 * count. Edges are padded with zeros in the slivers, which only the padding's accumulators see.
 */
enum { MC = 144, KC = 256, KC_MAX = 512, NC_MAX = 1024, BP_BUDGET = 1 << 22 /* floats of packed B */ };
enum { PAIR_MR_MAX = 8 }; /* the pair kernels' tile rows, at most (packing's buffers) */

/* one element's decoding */
typedef struct dec {
    const void *base;
    mf_format fmt;
    size_t rs, cs;
    float lut[256];      /* the value of every code of a format of 8 bits or fewer */
    uint16_t lut16[256]; /* ... as bf16 bits (exact: those formats widen exactly to bf16) */
    void (*widen8)(uint16_t *, const uint8_t *, size_t, const uint16_t *); /* the pair kernel's, or NULL */
    void (*sum)(mf__pair_sum *, const uint16_t *, size_t); /* the pair kernel's guard summary */
    void (*zip)(uint32_t *, size_t, const uint16_t *, const uint16_t *, size_t); /* the pair kernel's, or NULL */
    void (*weave)(uint32_t *, const uint16_t *const *, size_t);                   /* the pair kernel's, or NULL */
    const mf__backend *widen; /* the backend that widens contiguous f16 runs */
    const bscale *bs;
} dec;

/* The kernel of one call: an fma micro-kernel, or a pair kernel (kernels.h), with its tile and blocking. */
typedef struct fp32_plan {
    const mf__gemm_ukr *k;       /* the fma kernel, or NULL */
    const mf__gemm_ukr_pair *pk; /* the pair kernel, or NULL */
    const mf__gemm_store *store; /* the epilogue's plain runs */
    size_t mr, nr, mc, kc;
} fp32_plan;

typedef struct gemm_kernels {
    const mf__gemm_ukr *ukr;
    const mf__gemm_ukr_pair *pair;
    const mf__tc_kernel *tc;
    const mf__gemm_store *store;
} gemm_kernels;

static inline size_t mf__gemm_round_up(size_t x, size_t m) { return (x + m - 1) / m * m; }

/* config.c */
gemm_kernels mf__gemm_pick_kernels(void);        /* this process's backend's kernels */
fp32_plan mf__gemm_fp32_plan_for(const gemm *g); /* the FP32 path's kernel, tile and blocks for a call */

/* pack.c */
void mf__gemm_bs_apply(float *out, size_t ostep, const bscale *s, size_t idx, size_t step, size_t count);
int mf__gemm_pair_format(mf_format f);
void mf__gemm_dec_init(dec *d, const mat *x);
void mf__gemm_pack_a(float *ap, const dec *a, size_t i0, size_t mb, size_t p0, size_t kb, int mr);
void mf__gemm_pack_b(float *bp, const dec *b, size_t k, size_t kc, size_t j0, size_t nb, int nr, size_t t0, size_t t1);
void mf__gemm_pack_a_pair(uint32_t *ap, mf__pair_sum *sum, const dec *a, size_t i0, size_t mb, size_t p0, size_t kb,
                          int mr);
void mf__gemm_pack_b_pair(uint32_t *bp, mf__pair_sum *sum, const dec *b, size_t k, size_t kc, size_t j0, size_t nb,
                          int nr, size_t t0, size_t t1);

/* epilogue.c */
uint32_t mf__gemm_value_bits(const void *base, mf_format f, size_t idx);
uint32_t mf__gemm_elem_bits(const mat *x, size_t r, size_t c);
void mf__gemm_xv_fma(xval *x, uint32_t a, uint32_t b);
void mf__gemm_finish(const gemm *g, xval *x, size_t i, size_t j, mf_stats *st);
void mf__gemm_store_unpacked(const gemm *g, mf__unpacked u, size_t i, size_t j, mf_stats *st);
void mf__gemm_store_acc(const gemm *g, float s, size_t i, size_t j, mf_stats *st);
int mf__gemm_factor_f32(const gemm *g, size_t i, size_t j, float *f);
void mf__gemm_epi_one(const gemm *g, float s, size_t i, size_t j, mf_stats *st);

/* macro.c, exact.c */
int mf__gemm_run_fp32(const gemm *g, mf_stats *st);
void mf__gemm_run_exact(const gemm *g, mf_stats *st);

#endif /* MF_GEMM_INTERNAL_H */
