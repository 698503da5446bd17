/* SPDX-License-Identifier: MIT */
/* minifloat/gemm.h - mixed-precision matrix multiplication with FP32 or exact accumulation
 * (compiled library).
 *
 *   C = alpha * (sa * op(A)) (sb * op(B)) + beta * C
 *
 * op(A) is m x k, op(B) is k x n, C is m x n, with BLAS's conventions (layout, transposes, leading
 * dimensions). A and B hold elements of any narrow format of the library (f32, f16, bf16, e4m3, e5m2,
 * e2m3, e3m2, e2m1) in the array layouts of minifloat/convert.h; an element (r, c) of a stored matrix
 * is element r * ld + c (row-major) or r + c * ld (column-major) of its array, so e2m1 elements pack
 * two per byte along that index. C is f32, f16 or bf16 (as float / uint16_t codes).
 *
 * How the products are summed (mf_gemm_opts.accum):
 *   MF_ACCUM_FP32   each product exact, the running sum a binary32 number rounded to nearest even
 *                   after every addition: acc = fma(a_p, b_p, acc) for p = 0, 1, ..., k-1 in that order,
 *                   starting from +0 (a GPU's or BLAS's FP32 accumulator, in one fixed order).
 *   MF_ACCUM_EXACT  the exact dot product: no rounding before the output's (the reference).
 * Then every element of C is rounded once: the exact value alpha * s * acc + beta * c (s the product
 * of the scales that apply to it) is rounded into C's format with opts->round and opts->overflow, as
 * mf_convert rounds a value (stochastic rounding: element (i, j) takes mf_sr_rbits(seed, sr_offset +
 * i * n + j, mf_sr_width(fmt_c))). So an f32 C with alpha = 1, no scales and beta = 0 holds the
 * accumulator itself. Under a tensor-core model (MF_ACCUM_V100 ...), acc is the model's binary32 result,
 * and with alpha = 1, beta = 1, no scales and an f32 C, C is the first block's accumulator input, exactly as
 * D = A.B + C on the GPU (then C holds D as it is).
 *
 * IEEE specials: a NaN element, or inf * 0, or inf - inf anywhere in the computation makes the result
 * NaN (the NaN mf_convert produces, mf_format_desc.nan_code: f32 0x7FFFFFFF, f16 and bf16 0x7FFF); an
 * infinite sum is an infinite result, rounded under the overflow policy (saturation gives +-max). An
 * exact zero is +0. With beta = 0, C is not read (a NaN in C is ignored, as in BLAS); with alpha = 0 or
 * k = 0, A and B are not read.
 *
 * Results do not depend on the caller's floating-point environment (rounding mode, FTZ/DAZ): the
 * accumulation runs in the default environment, the rest in integers.
 */
#ifndef MINIFLOAT_GEMM_H
#define MINIFLOAT_GEMM_H

#include "mx.h"
#include "types.h"

MF_BEGIN_DECLS

typedef enum { MF_ROW_MAJOR, MF_COL_MAJOR } mf_layout;
typedef enum { MF_NO_TRANS, MF_TRANS } mf_trans;

/* How the products are accumulated (see above and docs/gemm.md). New models are appended. */
typedef enum {
    MF_ACCUM_FP32,  /* binary32 accumulator, rn after each addition, products exact (the default) */
    MF_ACCUM_EXACT, /* exact sum, rounded once into C */
    /* NVIDIA tensor cores, bit for bit as published measurements show them: blocks of w exact products
     * summed in one multi-term addition aligned to the block's largest exponent (c included) with F
     * fraction bits kept by truncation and no sticky bit, the sum truncated to binary32, the result the next
     * block's c. The input formats pick the instruction: f16 x f16, bf16 x bf16, f32 x f32 (read as TF32),
     * FP8 x FP8 (e4m3/e5m2 mixed), and on B200 FP8/FP6/FP4 mixed. */
    MF_ACCUM_V100, /* f16 w=4 F=23 */
    MF_ACCUM_A100, /* f16, bf16 w=8 F=24; tf32 w=4 F=24 */
    MF_ACCUM_ADA,  /* as A100; FP8 w=16 with 13 fraction bits (the result kept to 13 too) */
    MF_ACCUM_H100, /* also H200: f16, bf16 w=16 F=25; tf32 w=8 F=25; FP8 w=32 with 13 fraction bits */
    MF_ACCUM_B200  /* f16, bf16 w=16; tf32 w=8; FP8, FP6, FP4 w=32; all F=25 */
} mf_accum;

#define MF_ACCUM_COUNT 7

/* Scales of A's or B's elements. TENSOR and VECTOR multiply the dot product (in the exact epilogue); the
 * block kinds are those of the scaling API (fp8_scaling.h, mx.h): each element's value is what that API's
 * dequantize function gives for it, a binary32 number (element * its block's scale, rounded to nearest
 * even), and the products of those values are accumulated. So a block-scaled GEMM equals dequantizing
 * both operands into f32 and multiplying them, without the f32 copies.
 *
 * Block scales address the stored array as the scaling API addresses a tensor: as a row-major tensor of
 * R rows of C elements, element (r, c) at array index r * ld + c (R x C = the stored matrix for
 * MF_ROW_MAJOR, its transpose for MF_COL_MAJOR). That is the layout mf_fp8_block_quantize,
 * mf_mx_quantize or mf_nvfp4_quantize wrote when that array was quantized (with ld = C): a quantized
 * weight multiplies as it is stored, transposed or not. */
typedef enum {
    /* no scale (data ignored) */
    MF_GEMM_SCALE_NONE,
    /* one float for the whole matrix: data -> float */
    MF_GEMM_SCALE_TENSOR,
    /* one float per row of op(A) (m of them) or per column of op(B) (n): data -> float[m] or float[n] */
    MF_GEMM_SCALE_VECTOR,
    /* e4m3 / e5m2 elements in blocks of 1 x 128, 128 x 128 or 128 x 1 of the R x C tensor, one float
     * scale_inv each, in mf_fp8_block_scale_shape's layout (mf_fp8_block_dequantize) */
    MF_GEMM_SCALE_BLOCK_1X128,
    MF_GEMM_SCALE_BLOCK_128X128,
    MF_GEMM_SCALE_BLOCK_128X1,
    /* e4m3, e5m2, e2m3, e3m2 or e2m1 elements with E8M0 scales of 32-element blocks along axis:
     * data -> uint8_t scales[R * C / 32] in mx.h's layout (mf_mx_dequantize) */
    MF_GEMM_SCALE_MX,
    /* e2m1 elements, E4M3 scales of 16-element blocks along axis, and the tensor's amax:
     * data -> uint8_t scales[R * C / 16] (mf_nvfp4_dequantize) */
    MF_GEMM_SCALE_NVFP4
} mf_gemm_scale_kind;

#define MF_GEMM_SCALE_COUNT 8

typedef struct mf_gemm_scale {
    mf_gemm_scale_kind kind;
    const void *data; /* the scales, as said for each kind */
    mf_mx_axis axis;  /* MX, NVFP4: blocks along a row of the R x C tensor (MF_MX_ROWWISE: C a multiple of
                         the block) or down a column (MF_MX_COLWISE: R a multiple of it) */
    float amax;       /* NVFP4: the amax mf_nvfp4_quantize used */
} mf_gemm_scale;

/* Options; all-zero (or a NULL pointer) means FP32 accumulation, no scales, C rounded to nearest even
 * with IEEE overflow, no stats, one thread. */
typedef struct mf_gemm_opts {
    mf_accum accum;
    mf_gemm_scale scale_a, scale_b;
    mf_round round;       /* how C is rounded */
    mf_overflow overflow; /* ... and its overflow */
    uint64_t seed;        /* MF_ROUND_STOCHASTIC: Philox key, as in mf_opts */
    uint64_t sr_offset;   /* ... stream index of C's element (0, 0) */
    mf_stats *stats;      /* NULL, or the events of C's m * n roundings (overwritten), as mf_convert counts */
    int threads;          /* 0 or 1: the calling thread; N > 1: up to N threads (the same bits whatever N) */
    size_t promote_every; /* tensor-core models: 0, or every this many products (a multiple of the block
                             size w) the tensor core's sum is added to a binary32 accumulator (rn) and
                             restarts from 0, as DeepSeek-V3 promotes FP8 sums every 128 */
} mf_gemm_opts;

/* C = alpha * op(A) op(B) + beta * C, as described above.
 *
 * layout: how A, B and C are stored. op(X) = X (MF_NO_TRANS) or its transpose (MF_TRANS). The stored A
 * is m x k (k x m when transposed) with leading dimension lda >= its row length in the layout
 * (row-major: its number of columns; column-major: its number of rows), and at least 1; likewise B
 * (k x n, or n x k transposed) and C (m x n). ld is counted in elements (for e2m1, nibbles).
 * Scales: opts->scale_a / scale_b; their values are used as given (any binary32, NaN and inf follow
 * the IEEE rules above). Block kinds run with MF_ACCUM_FP32 and MF_ACCUM_EXACT (the tensor-core models
 * read the elements' own codes).
 *
 * Returns MF_OK, or a negative code and writes nothing (C and stats untouched):
 *   MF_E_ARG      layout, trans_a or trans_b not one of their values; an ld too small; opts->accum or a
 *                 scale kind unknown; a block kind the operand's format does not take, or with a
 *                 tensor-core model; an MX / NVFP4 axis unknown, or its blocked dimension (C rowwise, R
 *                 columnwise) not a multiple of the block; opts->threads negative; opts->promote_every not 0 where there is no
 *                 tensor-core model, or not a multiple of the model's block size;
 *   MF_E_FORMAT   fmt_a or fmt_b not f32, f16, bf16, e4m3, e5m2, e2m3, e3m2 or e2m1; fmt_c not f32, f16
 *                 or bf16; under a tensor-core model, a pair of input formats that GPU's tensor cores
 *                 do not multiply;
 *   MF_E_ROUND / MF_E_POLICY  opts->round / opts->overflow out of range;
 *   MF_E_NULL     C NULL while m * n > 0; A or B NULL while m * n * k > 0 and alpha != 0; a scale's
 *                 data NULL where its kind needs it and A or B is read;
 *   MF_E_SIZE     a matrix spans more than 2^57 bytes (PTRDIFF_MAX on 32-bit targets) or past the end of
 *                 the address space (m, n, k or an ld a negative int cast to size_t);
 *   MF_E_OVERLAP  C's bytes overlap A's, B's or a scale array's;
 *   MF_E_NOMEM    the work buffers (packed panels of A and B, binary32 tiles of C) could not be allocated.
 * m = 0 or n = 0 succeeds and touches nothing (stats zeroed).
 *
 * MF_ACCUM_FP32 runs on packed panels with a micro-kernel of this CPU's instruction set (AVX2 / AVX-512
 * FMA, portable C, and for bf16 and narrower inputs AVX512_BF16's vdpbf16ps where it provably gives the
 * same sums: docs/gemm.md): each accumulator is still the one fma chain above, so every kernel and thread
 * count gives the same bits; mf_gemm_plan says which kernel runs. The tensor-core models run as vector code on opts->threads, with the same bits as their
 * scalar reference. MF_ACCUM_EXACT sums e2m1/e2m3/e3m2 products as integers on opts->threads (no,
 * tensor, vector, MX- or NVFP4-along-k scales); otherwise one element at a time, on the calling thread. */
MF_API int mf_gemm(mf_layout layout, mf_trans trans_a, mf_trans trans_b, size_t m, size_t n, size_t k, float alpha,
                   const void *a, mf_format fmt_a, size_t lda, const void *b, mf_format fmt_b, size_t ldb, float beta,
                   void *c, mf_format fmt_c, size_t ldc, const mf_gemm_opts *opts);

/* Which kernel mf_gemm runs for a pair of formats and options on this process's backend: filled by
 * mf_gemm_plan. */
typedef struct mf_gemm_plan_info {
    const char *backend; /* the SIMD backend: mf_backend() */
    const char *kernel;  /* "fma": the fma micro-kernel on binary32 panels; "dot-bf16": bf16 pairs through a
                            dot-product instruction (vdpbf16ps) where the guard holds, the same pairs by fma
                            elsewhere (docs/gemm.md); "exact"; "tensor-core" (a model) */
    const char *isa;     /* the micro-kernel's instruction set ("portable", "avx2", "avx512", "avx512bf16",
                            "neon"), NULL for "exact" and "tensor-core" */
    int mr, nr;          /* the micro-tile: rows of A and columns of B (0 where there is none) */
    size_t mc, kc, nc;   /* block sizes: rows of A, k steps and (at most) columns of B per packed panel */
} mf_gemm_plan_info;

/* What mf_gemm with these input formats and options would run, without reading any matrix (the shapes,
 * layouts and C's format do not change the choice). The kernel never changes a bit of C: it is how fast,
 * not what. Returns MF_OK, or MF_E_FORMAT / MF_E_ARG / MF_E_ROUND / MF_E_POLICY where mf_gemm would say so
 * about these arguments, MF_E_NULL for a NULL plan; on error *plan is left as it was. */
MF_API int mf_gemm_plan(mf_format fmt_a, mf_format fmt_b, const mf_gemm_opts *opts, mf_gemm_plan_info *plan);

MF_END_DECLS

#endif /* MINIFLOAT_GEMM_H */
