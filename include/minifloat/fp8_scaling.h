/* SPDX-License-Identifier: MIT */
/* minifloat/fp8_scaling.h - FP8 scaling recipes as Transformer Engine computes them (compiled library).
 *
 * Three recipes decide the FP32 scale s that maps a tensor into FP8 (q = fp8(x * s)), and the
 * dequantization x' = q * s_inv with s_inv = 1 / s:
 *
 *   current scaling   s = fp8_max / amax(x) of the tensor being quantized   (TE Float8CurrentScaling)
 *   delayed scaling   s = (fp8_max * 2^-margin) / amax, where amax comes from a history of past
 *                     steps; the scale used now was computed at the end of the previous step
 *                     (TE DelayedScaling)
 *   block scaling     one power-of-two s per 1x128 (or 128x1) or 128x128 block of a 2-D tensor
 *                     (TE Float8BlockScaling, the DeepSeek-V3 recipe)
 *
 * Every product and quotient is a binary32 operation with round-to-nearest-even, computed in
 * integers, so results are the same bits whatever the caller's rounding mode or FTZ/DAZ flags, and
 * equal to what TE's CUDA kernels produce (built without --use_fast_math). The elements are
 * rounded like TE's `static_cast<fp8>(x * s)`: first the binary32 product, then round-to-nearest-even
 * into e4m3/e5m2 with saturation to +-max (inf too); NaN stays NaN (our canonical 0x7F, where NVIDIA's
 * conversion keeps the sign). docs/scaling.md has formulas, layouts and the TE code each one matches.
 *
 * Array layouts are those of mf_convert (minifloat/convert.h): f32 as float, f64 as double, f16 and
 * bf16 as uint16_t codes, e4m3/e5m2 one code per byte. 2-D tensors are row-major, rows x cols, with
 * no padding; any rows and cols are accepted (edge blocks may be partial). Functions write nothing
 * when they return an error.
 */
#ifndef MINIFLOAT_FP8_SCALING_H
#define MINIFLOAT_FP8_SCALING_H

#include "types.h"

MF_BEGIN_DECLS

/* ---- amax and the scale formula ----------------------------------------------------------------- */

/* Largest finite magnitude of fmt into *max: 448 for MF_FP8_E4M3, 57344 for MF_FP8_E5M2.
 * Returns MF_OK, MF_E_NULL, or MF_E_FORMAT for any other format. */
MF_API int mf_fp8_max(mf_format fp8_fmt, float *max);

/* *amax = max |x[i]| over n elements of x, in format fmt (MF_FP32, MF_FP64, MF_FP16 or MF_BF16).
 *
 * NaN elements are skipped, as TE's amax kernels skip them (fmaxf / __hmax return the other operand):
 * an array of NaNs has amax 0. Infinite elements give +inf. -0 counts as 0. For f64 the maximum is
 * found in binary64 and then rounded to nearest binary32 (above FLT_MAX it may become +inf).
 * n = 0 gives *amax = 0 (TE zeroes amax and returns for an empty tensor).
 * Returns MF_OK, MF_E_NULL (amax NULL, or x NULL with n > 0), MF_E_FORMAT, or MF_E_SIZE (n elements
 * do not fit in the address space). */
MF_API int mf_amax(mf_format fmt, const void *x, size_t n, float *amax);

/* TE's compute_scale_from_amax (common/recipe/recipe_common.cuh), step by step:
 *   if amax < epsilon: amax = epsilon
 *   if amax is inf, 0 or NaN: return 1
 *   s = max_q / amax                      (binary32, round to nearest even, subnormals kept)
 *   if s is inf: s = value_for_inf
 *   if pow2: clear the 23 mantissa bits of s (round a positive s down to a power of two)
 * Never fails. With amax = 0 and epsilon > 0 the first step applies, so s = max_q / epsilon. */
MF_API float mf_scale_from_amax(float amax, float max_q, int pow2, float epsilon, float value_for_inf);

/* Per-tensor current scaling (TE Float8CurrentScaling, nvte_compute_scale_from_amax):
 * *scale = mf_scale_from_amax(amax, fp8_max(fp8_fmt), pow2, epsilon, FLT_MAX) and, if scale_inv is
 * not NULL, *scale_inv = 1 / *scale (binary32, as TE's __frcp_rn). TE's recipe defaults are
 * pow2 = 0, epsilon = 0.
 * Returns MF_OK, MF_E_NULL (scale NULL), MF_E_FORMAT (fp8_fmt not e4m3/e5m2), MF_E_ARG (epsilon
 * negative, infinite or NaN). */
MF_API int mf_fp8_current_scale(mf_format fp8_fmt, float amax, int pow2, float epsilon, float *scale,
                                float *scale_inv);

/* ---- per-tensor quantize and dequantize ------------------------------------------------------- */

/* dst[i] = fp8_rn_sat(x[i] * scale) for n elements: src_fmt is MF_FP32, MF_FP16 or MF_BF16 (widened
 * exactly to binary32), dst_fmt is MF_FP8_E4M3 or MF_FP8_E5M2. The product is the binary32
 * round-to-nearest-even product, then the one conversion mf_from_f32(dst_fmt, p, MF_ROUND_NEAREST_EVEN,
 * MF_OVERFLOW_SATURATE, 0): two roundings, as TE's cast kernels. If amax is not NULL it receives
 * mf_amax of the input computed in the same pass (before scaling, as TE's fused cast does).
 * Returns MF_OK, MF_E_NULL (dst or src NULL with n > 0), MF_E_FORMAT, MF_E_ARG (scale not finite and
 * > 0), MF_E_SIZE, MF_E_OVERLAP (src and dst bytes overlap). n = 0 succeeds (amax = 0). */
MF_API int mf_fp8_quantize(mf_format dst_fmt, void *dst, mf_format src_fmt, const void *src, size_t n, float scale,
                           float *amax);

/* dst[i] = round(fp8(src[i]) * scale_inv): the binary32 product of the exact FP8 value and scale_inv
 * (TE's dequantize_func), stored as f32, or rounded to nearest even into f16/bf16 (IEEE overflow:
 * +-inf) as TE's static_cast<half/bf16>. src_fmt MF_FP8_E4M3 or MF_FP8_E5M2; dst_fmt MF_FP32,
 * MF_FP16 or MF_BF16. NaN codes give NaN.
 * Returns MF_OK, MF_E_NULL, MF_E_FORMAT, MF_E_ARG (scale_inv not finite and > 0), MF_E_SIZE,
 * MF_E_OVERLAP. n = 0 succeeds. */
MF_API int mf_fp8_dequantize(mf_format dst_fmt, void *dst, mf_format src_fmt, const void *src, size_t n,
                             float scale_inv);

/* Current scaling in one call: amax of src (mf_amax), the scale (mf_fp8_current_scale with pow2 and
 * epsilon), then mf_fp8_quantize with that scale; two passes over src. Any of amax, scale and
 * scale_inv may be NULL. Errors as mf_fp8_quantize and mf_fp8_current_scale; n = 0 gives amax 0,
 * scale 1 (or max/epsilon), and writes no elements. */
MF_API int mf_fp8_quantize_current(mf_format dst_fmt, void *dst, mf_format src_fmt, const void *src, size_t n,
                                   int pow2, float epsilon, float *amax, float *scale, float *scale_inv);

/* Current scaling across ranks (TE Float8CurrentScaling with an amax_reduction_group, as in
 * sequence-parallel layers): the amax of this rank's src is max-reduced through hook (mf_reduce_hook:
 * the values {amax, status}) before the scale is computed, so every rank quantizes its part with the
 * same scale; then as mf_fp8_quantize_current. hook NULL, or hook->max NULL, is mf_fp8_quantize_current.
 * Arguments are checked before the exchange and a rank whose own check fails still takes part (with
 * status 1) and returns its own error; the other ranks return MF_E_REDUCE, as on a failed reduction;
 * nothing is written on any rank then. *amax receives the reduced amax. */
MF_API int mf_fp8_quantize_current_reduced(mf_format dst_fmt, void *dst, mf_format src_fmt, const void *src, size_t n,
                                           int pow2, float epsilon, const mf_reduce_hook *hook, float *amax,
                                           float *scale, float *scale_inv);

/* ---- delayed scaling ----------------------------------------------------------------------------- */

/* How the amax of a step is chosen from the history (TE DelayedScaling.amax_compute_algo). */
typedef enum {
    MF_AMAX_ALGO_MAX,        /* "max": the largest entry of the whole history (TE default) */
    MF_AMAX_ALGO_MOST_RECENT /* "most_recent": the amax recorded during the step just finished */
} mf_amax_algo;

#define MF_FP8_HISTORY_MAX 1024 /* longest history a mf_fp8_delayed holds (TE's default length) */

typedef struct mf_fp8_delayed_cfg {
    mf_format fmt;         /* MF_FP8_E4M3 or MF_FP8_E5M2 */
    size_t history_len;    /* 1 .. MF_FP8_HISTORY_MAX (TE amax_history_len, default 1024) */
    mf_amax_algo algo;     /* default MF_AMAX_ALGO_MAX */
    int margin;            /* -126 .. 126 (TE margin, default 0): scaled_max = fp8_max * 2^-margin */
    int roll_on_zero_amax; /* 0 (default): as TE's fused update that PyTorch uses
                              (kernel_bulk): a step whose recorded amax is 0 leaves the history and
                              the scale unchanged. 1: as nvte_delayed_scaling_recipe_amax_and_scale_update
                              (kernel): the history rolls on every step. */
    float initial_scale;   /* finite and > 0; TE starts at 1 */
    mf_reduce_hook reduce; /* data-parallel training: mf_fp8_delayed_update max-reduces the step's
                              amax (history[0]) across ranks through it first, as TE all-reduces
                              amax over its amax_reduction_group, so every rank computes the same
                              scales. Default {NULL, NULL}: no reduction */
} mf_fp8_delayed_cfg;

/* State of one FP8 tensor under delayed scaling. Fields are public and read-only for callers.
 * history[0 .. history_len-1] is laid out exactly like one column of TE's amax_history tensor:
 * history[0] accumulates the amax of the current step (mf_fp8_delayed_record), history[1] is the
 * oldest finished step and history[history_len-1] the most recent one. */
typedef struct mf_fp8_delayed {
    mf_fp8_delayed_cfg cfg;
    float scaled_max; /* fp8_max * 2^-margin, a binary32 product as TE computes it on the host */
    float scale;      /* scale to use for quantizing now */
    float scale_inv;  /* 1 / scale (binary32) */
    uint64_t steps;   /* mf_fp8_delayed_update calls so far */
    float history[MF_FP8_HISTORY_MAX];
} mf_fp8_delayed;

/* TE's DelayedScaling defaults for fp8_fmt: history 1024, algo max, margin 0, roll_on_zero_amax 0,
 * initial scale 1, no reduce hook. (The format is not checked here; mf_fp8_delayed_init checks it.) */
MF_API mf_fp8_delayed_cfg mf_fp8_delayed_default(mf_format fp8_fmt);

/* Start a state: zero history, scale = cfg->initial_scale, scale_inv = 1 / scale, steps = 0.
 * Returns MF_OK, MF_E_NULL, MF_E_FORMAT (cfg->fmt not e4m3/e5m2), MF_E_ARG (history_len, algo,
 * margin, roll_on_zero_amax not 0/1, or initial_scale out of range). */
MF_API int mf_fp8_delayed_init(mf_fp8_delayed *st, const mf_fp8_delayed_cfg *cfg);

/* Fold the amax of one quantization in the current step into history[0]: the larger of the two,
 * compared as TE's atomicMaxFloat does (bit patterns as integers, so +NaN is kept once seen).
 * amax must be >= 0 or +NaN (+0, +inf included). Returns MF_OK, MF_E_NULL, MF_E_ARG (negative). */
MF_API int mf_fp8_delayed_record(mf_fp8_delayed *st, float amax);

/* End of step, as TE's amax_and_scale_update kernels for one tensor:
 *   with st->cfg.reduce set: history[0] = its maximum over all ranks (mf_reduce_hook: the values
 *   {history[0], status 0}); if the reduction fails, return MF_E_REDUCE with the state unchanged
 *   last = history[0]
 *   unless (last == 0 and roll_on_zero_amax == 0):
 *       hmax = max of all history entries (NaN and negative entries ignored, as fmaxf from 0)
 *       roll the history left by one: history[i] = history[i+1], history[len-1] = last, then
 *       history[0] = 0
 *   amax = algo == max ? hmax (0 if no roll) : last
 *   if amax is finite and > 0: scale = scaled_max / amax, else keep the previous scale
 *   if scale is inf: scale = FLT_MAX
 *   scale_inv = 1 / scale; steps += 1
 * Returns MF_OK, MF_E_NULL or MF_E_REDUCE. */
MF_API int mf_fp8_delayed_update(mf_fp8_delayed *st);

/* mf_fp8_delayed_update of count states st[0 .. count-1] (a model's FP8 tensors) with one reduction
 * for all of them, as TE reduces every tensor's amax in one all-reduce: the values {st[0].history[0],
 * .., st[count-1].history[0], status 0} through st[0].cfg.reduce, then each state updated from its
 * reduced amax. Every state must have the same hook (max and ctx), or none.
 * Returns MF_OK; MF_E_NULL (st NULL with count > 0); MF_E_ARG (the states' hooks differ); MF_E_SIZE
 * (count states do not fit in the address space); MF_E_NOMEM (the value buffer of a reduction
 * could not be allocated); MF_E_REDUCE. On MF_E_ARG, MF_E_SIZE and MF_E_NULL nothing is reduced (the
 * other ranks would wait: check these before training); on any error no state changes. count = 0 with
 * no states is MF_OK and makes no reduction. */
MF_API int mf_fp8_delayed_update_many(mf_fp8_delayed *st, size_t count);

/* Quantize n elements with the state's current scale (mf_fp8_quantize into st->cfg.fmt) and record
 * their amax (mf_fp8_delayed_record), in one pass: TE's forward cast under delayed scaling.
 * Errors as mf_fp8_quantize (MF_E_NULL also for st NULL); on error the state is unchanged. */
MF_API int mf_fp8_delayed_quantize(mf_fp8_delayed *st, void *dst, mf_format src_fmt, const void *src, size_t n);

/* ---- block scaling ------------------------------------------------------------------------------ */

/* Block shapes of TE Float8BlockScaling. */
typedef enum {
    MF_FP8_BLOCK_1X128,   /* 1 row x 128 columns: activations and gradients, rowwise (TE 1D) */
    MF_FP8_BLOCK_128X128, /* 128 x 128 tiles: weights (TE 2D) */
    MF_FP8_BLOCK_128X1    /* 128 rows x 1 column: the columnwise 1D scaling, compact layout */
} mf_fp8_block;

/* Shape of the scale_inv array for a rows x cols tensor, row-major, no padding:
 *   1x128:    rows x ceil(cols/128)       (TE compact rowwise scales [rows, cols/128])
 *   128x128:  ceil(rows/128) x ceil(cols/128)
 *   128x1:    ceil(rows/128) x cols      (TE compact columnwise scales [rows/128, cols])
 * Block (i, j) covers rows [i*bh, min((i+1)*bh, rows)) and columns [j*bw, min((j+1)*bw, cols));
 * its scale_inv is scale_inv[i * scale_cols + j].
 * Returns MF_OK, MF_E_NULL, MF_E_ARG (unknown kind). */
MF_API int mf_fp8_block_scale_shape(mf_fp8_block kind, size_t rows, size_t cols, size_t *scale_rows,
                                    size_t *scale_cols);

/* Block-scaled quantization of a rows x cols row-major tensor (TE quantize_transpose_vector_blockwise
 * for 1x128 / 128x1, quantize_transpose_square_blockwise for 128x128, compact layout, no transpose).
 * For each block: amax = max |x| over its elements (NaN skipped; a partial edge block uses only its
 * own elements), s = mf_scale_from_amax(amax, fp8_max, pow2, epsilon, value_for_inf) where
 * value_for_inf is the largest finite value of src_fmt (FLT_MAX for f32, 65504 for f16, 0x7F7F as
 * bf16 = 3.3895e38, as TE's compute_scale_from_types), elements dst = fp8_rn_sat(x * s) and
 * scale_inv[block] = 1 / s. TE's recipe defaults: pow2 = 1, epsilon = 0.
 * src_fmt MF_FP32, MF_FP16 or MF_BF16; dst_fmt MF_FP8_E4M3 or MF_FP8_E5M2.
 * Returns MF_OK, MF_E_NULL, MF_E_FORMAT, MF_E_ARG (unknown kind; epsilon negative, inf or NaN),
 * MF_E_SIZE (rows * cols or a byte count overflows), MF_E_OVERLAP (any two of dst, src, scale_inv
 * overlap). rows = 0 or cols = 0 succeeds and writes nothing. */
MF_API int mf_fp8_block_quantize(mf_format dst_fmt, void *dst, float *scale_inv, mf_format src_fmt, const void *src,
                                 size_t rows, size_t cols, mf_fp8_block kind, int pow2, float epsilon);

/* dst = round(fp8(q) * scale_inv[block]) for each element, as mf_fp8_dequantize with each block's
 * scale_inv (not checked: any binary32 value is used as given). dst_fmt MF_FP32, MF_FP16, MF_BF16.
 * Returns MF_OK, MF_E_NULL, MF_E_FORMAT, MF_E_ARG (unknown kind), MF_E_SIZE, MF_E_OVERLAP.
 * rows = 0 or cols = 0 succeeds. */
MF_API int mf_fp8_block_dequantize(mf_format dst_fmt, void *dst, mf_format src_fmt, const void *src,
                                   const float *scale_inv, size_t rows, size_t cols, mf_fp8_block kind);

MF_END_DECLS

#endif /* MINIFLOAT_FP8_SCALING_H */
