/* SPDX-License-Identifier: MIT */
/* minifloat/mx.h - block-scaled formats: OCP MX v1.0 (MXFP8, MXFP6, MXFP4, MXINT8) and NVFP4
 * (compiled library).
 *
 * A block-scaled tensor stores narrow elements and one scale per block of consecutive elements along
 * one axis; an element decodes as  value = element * scale.
 *
 *   MX      32-element blocks, scale E8M0 (a power of two 2^(code-127), 0xFF = NaN), elements
 *           e4m3 / e5m2 (MXFP8), e2m3 / e3m2 (MXFP6), e2m1 (MXFP4) or 8-bit two's complement
 *           with an implicit 2^-6 (MXINT8: -2 .. 1 63/64).
 *   NVFP4   16-element blocks, scale E4M3 (an unsigned e4m3 value), elements e2m1, plus one FP32
 *           per-tensor scale derived from the tensor's amax, computed in Transformer Engine's
 *           operation order so the bytes equal TE's.
 *
 * Tensors are 2-D, rows x cols, row-major binary32, no padding. Blocks run along a row
 * (MF_MX_ROWWISE: cols must be a multiple of the block size) or down a column (MF_MX_COLWISE: rows
 * must be a multiple of it).
 *
 * Layouts (docs/scaling.md has diagrams):
 *   elements   always in the input's row-major order, element (r, c) at flat index i = r * cols + c,
 *              whatever the block axis:
 *                e4m3, e5m2, MXINT8   one byte per element
 *                e2m3, e3m2           one byte per element, code in the low 6 bits (top 2 bits 0),
 *                                     or with MF_MX_FP6_PACKED four elements in three bytes
 *                                     (mf_fp6_pack below)
 *                e2m1                 two elements per byte, element 2j in bits 0..3, 2j+1 in 4..7
 *   scales     one byte per block, compact (no padding, not swizzled):
 *                row-wise      scales[r * (cols / B) + c / B]      i.e. scales[row][col_block]
 *                column-wise   scales[(r / B) * cols + c]          i.e. scales[row_block][col]
 *              cuBLAS's swizzled (128 x 4 tiled) scale layout is not produced; rearrange the compact
 *              array before handing it to a cuBLASLt block-scaled GEMM.
 *
 * Stochastic rounding (opts->round = MF_ROUND_STOCHASTIC) gives element i (the flat index above) the
 * random bits mf_sr_rbits(opts->seed, opts->sr_offset + i, 8) (minifloat/philox.h; width 8 for every
 * element format, MXINT8 included), so a tensor split into calls by rows gives the same bytes when each
 * call's sr_offset is its first flat index.
 *
 * Functions return MF_OK or a negative MF_E_* code, and write nothing when they return an error. A
 * blocked dimension that is not a multiple of the block is MF_E_ARG, even where rows*cols also overflows.
 */
#ifndef MINIFLOAT_MX_H
#define MINIFLOAT_MX_H

#include "types.h"

MF_BEGIN_DECLS

/* Element types of the OCP MX formats. */
typedef enum {
    MF_MXFP8_E4M3, /* elements e4m3, max 448, emax 8 */
    MF_MXFP8_E5M2, /* elements e5m2, max 57344, emax 15 */
    MF_MXFP6_E2M3, /* elements e2m3, max 7.5, emax 2 */
    MF_MXFP6_E3M2, /* elements e3m2, max 28, emax 4 */
    MF_MXFP4_E2M1, /* elements e2m1, max 6, emax 2 */
    MF_MXINT8      /* elements int8 * 2^-6, max 1 63/64 (127/64), emax 0 */
} mf_mx_type;

#define MF_MX_TYPE_COUNT 6

/* How the E8M0 scale of a block is chosen from the block's amax (largest |x|). */
typedef enum {
    MF_MX_SCALE_FLOOR, /* OCP MX v1.0 section 6.3: 2^(floor(log2 amax) - emax_elem). The block max can
                          land above the element max and then saturates (clips). */
    MF_MX_SCALE_RCEIL  /* cuBLAS / Transformer Engine: e8m0 = round-up-saturating(amax * (1 / max_elem)),
                          TE's float_to_e8m0 (cvt.rp.satfinite.ue8m0x2.f32); the block max never
                          lands above the element max (for MXINT8: by at most one binary32 rounding
                          of the product, which rn then rounds back to the max). */
} mf_mx_scale_rule;

/* Which axis a block runs along. */
typedef enum {
    MF_MX_ROWWISE, /* B consecutive elements of a row (the contiguous axis) */
    MF_MX_COLWISE  /* B consecutive elements of a column */
} mf_mx_axis;

/* flags for the MX functions */
#define MF_MX_FP6_PACKED 1u /* e2m3/e3m2 elements packed four in three bytes (mf_fp6_pack layout) */

#define MF_MX_BLOCK 32    /* elements per MX block */
#define MF_NVFP4_BLOCK 16 /* elements per NVFP4 block */

/* Bytes of element storage and number of scales of a rows x cols tensor.
 * elem_bytes: rows*cols for e4m3/e5m2/int8 and unpacked FP6, rows*cols*3/4 packed FP6, rows*cols/2
 * e2m1; scale_count: rows*cols/32. Either pointer may be NULL.
 * Returns MF_OK, MF_E_FORMAT (type), MF_E_ARG (axis, unknown flag bits, MF_MX_FP6_PACKED with a
 * non-FP6 type, or the blocked dimension not a multiple of 32), MF_E_SIZE (rows*cols overflows). */
MF_API int mf_mx_sizes(mf_mx_type type, mf_mx_axis axis, unsigned flags, size_t rows, size_t cols,
                       size_t *elem_bytes, size_t *scale_count);

/* The E8M0 scale code of one block with largest magnitude amax (its sign is ignored):
 *   amax NaN or infinite      0xFF (NaN), under both rules (OCP MX: a block holding Inf or NaN has
 *                              scale NaN)
 *   FLOOR  amax = 0 or below 2^(emax_elem - 127):  0x00 (2^-127, the smallest scale)
 *          otherwise           floor(log2 amax) - emax_elem + 127 (never above 0xFE for finite amax)
 *   RCEIL                      mf_from_f32(MF_E8M0, amax * r, MF_ROUND_UP, MF_OVERFLOW_SATURATE, 0)
 *                              with r = 1 / max_elem rounded to binary32 and the binary32 product
 *                              rounded to nearest even: 0 gives 0x00
 * Returns the code (0 .. 255), MF_E_FORMAT (type) or MF_E_ARG (rule). */
MF_API int mf_mx_scale_code(mf_mx_type type, mf_mx_scale_rule rule, float amax);

/* Quantize x (rows x cols, row-major) into MX elements and E8M0 scales.
 *
 * For each block: the scale code k8 = mf_mx_scale_code(type, rule, block amax), X = 2^(k8 - 127),
 * then every element is the conversion of the exact quotient x / X into the element type, with
 * opts->round (MF_ROUND_NEAREST_EVEN or MF_ROUND_STOCHASTIC) and saturation to +-max (the
 * spec's "clamping"; opts->overflow is not used). MXINT8 rounds x / X * 64 to an integer the same way
 * and clamps to [-127, 127] (symmetric; the code 0x80 = -2 is never produced). The elements of a block
 * whose scale is NaN (0xFF) are written as +0.
 *
 * opts may be NULL (rn). opts->stats, if set, receives the events of the element conversions summed
 * over the tensor (overflow = elements that saturated; elements of NaN-scale blocks count nothing).
 * opts->threads must be >= 0 and is otherwise not used.
 * Returns MF_OK; MF_E_FORMAT (type); MF_E_ARG (rule, axis, flags, or the blocked dimension not a
 * multiple of 32, or opts->threads < 0); MF_E_ROUND (a mode other than rn and sr); MF_E_PROFILE (opts->profile not
 * MF_PROFILE_DEFAULT: block scaling has one semantics); MF_E_POLICY
 * (opts->overflow out of range); MF_E_SIZE (rows*cols overflows); MF_E_NULL (x, elems or scales
 * NULL while rows*cols > 0); MF_E_OVERLAP (x, elems and scales not disjoint). rows*cols = 0 succeeds
 * and writes nothing (stats zeroed). */
MF_API int mf_mx_quantize(mf_mx_type type, mf_mx_scale_rule rule, mf_mx_axis axis, unsigned flags,
                          const float *x, size_t rows, size_t cols, void *elems, uint8_t *scales,
                          const mf_opts *opts);

/* y[i] = element_i * 2^(scale - 127): the binary32 product, rounded to nearest even (exact unless it
 * is an f32 subnormal or overflows). Scale 0xFF gives NaN for the whole block; element NaN and inf
 * codes (e4m3 0x7F/0xFF, e5m2) give NaN / inf. MXINT8 reads 0x80 as -2. Layouts as mf_mx_quantize.
 * Returns MF_OK, MF_E_FORMAT, MF_E_ARG (axis, flags, shape), MF_E_SIZE, MF_E_NULL, MF_E_OVERLAP
 * (y overlaps elems or scales). */
MF_API int mf_mx_dequantize(mf_mx_type type, mf_mx_axis axis, unsigned flags, const void *elems,
                            const uint8_t *scales, size_t rows, size_t cols, float *y);

/* Dense FP6 packing: n 6-bit codes (low 6 bits of each src byte; the top 2 bits are ignored) into
 * (6n + 7) / 8 bytes, as a little-endian bit stream: code j occupies bits 6j .. 6j+5 of the stream,
 * bit b of the stream being bit (b % 8) of byte b / 8. So each group of four codes a, b, c, d fills
 * three bytes:
 *     byte 0 = a | (b << 6)          bits: b1 b0 a5 a4 a3 a2 a1 a0
 *     byte 1 = (b >> 2) | (c << 4)   bits: c3 c2 c1 c0 b5 b4 b3 b2
 *     byte 2 = (c >> 4) | (d << 2)   bits: d5 d4 d3 d2 d1 d0 c5 c4
 * (the contiguous sub-byte packing of CUTLASS and of PTX's .b6x16 tensor type, and ONNX's FLOAT6
 * packing). Unused high bits of a final partial byte are 0.
 * Returns MF_OK, MF_E_NULL (dst or src NULL with n > 0), MF_E_SIZE (n too large), MF_E_OVERLAP. */
MF_API int mf_fp6_pack(uint8_t *dst, const uint8_t *src, size_t n);

/* The inverse of mf_fp6_pack: n codes from (6n + 7) / 8 bytes into n bytes (top 2 bits 0).
 * Returns MF_OK, MF_E_NULL, MF_E_SIZE, MF_E_OVERLAP. */
MF_API int mf_fp6_unpack(uint8_t *dst, const uint8_t *src, size_t n);

/* ---- NVFP4 ---------------------------------------------------------------------------------------- */

/* Bytes of e2m1 elements (rows*cols/2) and number of e4m3 scales (rows*cols/16); either pointer may
 * be NULL. Returns MF_OK, MF_E_ARG (axis, or the blocked dimension not a multiple of 16), MF_E_SIZE. */
MF_API int mf_nvfp4_sizes(mf_mx_axis axis, size_t rows, size_t cols, size_t *elem_bytes, size_t *scale_count);

/* TE's per-tensor (global) encode scale, compute_global_encode_scaling_factor_FP4 in
 * transformer_engine/common/cast/nvfp4/core_nvfp4.cuh:
 *     s = 2688 / amax              (448 * 6, binary32 quotient)
 *     s = fminf(s, FLT_MAX)        (an infinite quotient becomes FLT_MAX; so does NaN, as fminf)
 *     return (amax == 0 || s == 0) ? 1 : s
 * The decode scale of a block is then e4m3_scale / s. */
MF_API float mf_nvfp4_global_scale(float amax);

/* Quantize x (rows x cols) into NVFP4: e2m1 elements (two per byte, layout as MX e2m1) and one e4m3
 * scale per 16-element block (same scale layouts as MX). Per Transformer Engine's
 * quantize_transpose_nvfp4 kernel (FP32 input), every step a binary32 operation rounded to nearest:
 *     amax     = *amax_in if amax_in is not NULL, else max |x| over the tensor (NaN skipped, as fmaxf)
 *     S_enc    = mf_nvfp4_global_scale(amax);   S_dec = 1 / S_enc
 *     per block: bmax = max |x| over the block (NaN skipped)
 *                scale = e4m3_rn_sat(fminf(bmax * (S_enc * (1/6)), FLT_MAX))
 *                inv   = fminf(1 / (float(scale) * S_dec), FLT_MAX)
 *                elem  = e2m1_sat(x * inv)       rn, or sr with opts->round = MF_ROUND_STOCHASTIC
 * e2m1 of NaN is +6 (0x7). If amax_out is not NULL it receives the amax used (what
 * mf_nvfp4_dequantize needs). opts as mf_mx_quantize (rn or sr; stats summed; overflow unused).
 * Returns MF_OK; MF_E_ARG (axis, shape, *amax_in negative or NaN, opts->threads < 0); MF_E_ROUND;
 * MF_E_POLICY; MF_E_PROFILE; MF_E_SIZE; MF_E_NULL (x, elems, scales NULL with rows*cols > 0); MF_E_OVERLAP.
 * rows*cols = 0 succeeds: amax_out gets amax_in's value or 0. */
MF_API int mf_nvfp4_quantize(mf_mx_axis axis, const float *x, size_t rows, size_t cols, uint8_t *elems,
                             uint8_t *scales, const float *amax_in, float *amax_out, const mf_opts *opts);

/* y = e2m1 * final, with final = (float(scale) * amax) * (1 / 2688) per block, as TE's
 * dequantize_fp4_kernel (dequantize_nvfp4.cuh): every product binary32, rounded to nearest even.
 * amax is the value mf_nvfp4_quantize used. Returns MF_OK, MF_E_ARG (axis, shape), MF_E_SIZE,
 * MF_E_NULL, MF_E_OVERLAP. */
MF_API int mf_nvfp4_dequantize(mf_mx_axis axis, const uint8_t *elems, const uint8_t *scales, float amax,
                               size_t rows, size_t cols, float *y);

MF_END_DECLS

#endif /* MINIFLOAT_MX_H */
