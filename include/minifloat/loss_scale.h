/* SPDX-License-Identifier: MIT */
/* minifloat/loss_scale.h - dynamic loss scaling, exactly as torch.amp.GradScaler (compiled library).
 *
 * A training step with mixed-precision gradients:
 *
 *   mf_loss_scaler s = mf_loss_scaler_default();          // GradScaler's defaults
 *   float scaled = mf_scale_loss(&s, loss);               // backward() from the scaled loss
 *   int found = mf_unscale_check(&s, MF_FP16, grads, n);  // grads *= 1/scale; any inf/NaN?
 *   if (mf_loss_scaler_update(&s, found) == 1)            // new scale; 1: take the step
 *       optimizer_step(grads);
 *
 * Every result that PyTorch also computes is bit-identical to PyTorch's for the same inputs, NaN
 * payloads aside (docs/scaling.md says which kernel each function follows). The arithmetic is binary32 with
 * round-to-nearest-even done in integers, so results do not depend on the caller's rounding mode
 * or flush-to-zero settings.
 */
#ifndef MINIFLOAT_LOSS_SCALE_H
#define MINIFLOAT_LOSS_SCALE_H

#include "types.h"

MF_BEGIN_DECLS

/* How the scale evolves. mf_loss_scaler_config_default() gives torch.amp.GradScaler's defaults;
 * hysteresis, min_scale, max_scale and static_scale extend it (their defaults switch them off).
 * Factors are binary32: PyTorch passes its factors as doubles and multiplies the float scale by
 * the double, which gives the same float as our binary32 product whenever the factor is a
 * binary32 value (2.0, 0.5, 1.5, ...; a binary32 x binary32 product is exact in binary64). */
typedef struct mf_loss_scaler_config {
    float init_scale;        /* first scale; default 65536 (2^16) */
    float growth_factor;     /* scale *= growth_factor after growth_interval clean steps; default 2 */
    float backoff_factor;    /* scale *= backoff_factor on an overflow; default 0.5 */
    int32_t growth_interval; /* consecutive clean steps before growing; default 2000 */
    int32_t hysteresis;      /* back off on the hysteresis-th overflow since the last growth (Megatron's
                                DynamicGradScaler); default 1 = on every overflow (PyTorch) */
    float min_scale;         /* the scale never backs off below this; 0 (default) = no floor */
    float max_scale;         /* the scale never grows above this; 0 (default) = no cap */
    int static_scale;        /* nonzero: the scale never changes (Megatron's ConstantGradScaler);
                                overflowing steps are still skipped. Default 0 */
    mf_reduce_hook reduce;   /* data-parallel training with sharded gradients: mf_loss_scaler_update
                                max-reduces found_nonfinite across ranks through it first, as
                                ShardedGradScaler all-reduces found_inf, so every rank steps or skips
                                together. Default {NULL, NULL}: no reduction. Not state: set it again
                                when a checkpointed scaler is restored in another process */
} mf_loss_scaler_config;

/* A loss scaler: its configuration and state. Plain data: copy it to checkpoint it (cfg.reduce holds
 * pointers of this process). */
typedef struct mf_loss_scaler {
    mf_loss_scaler_config cfg;
    float scale;                /* the current scale (PyTorch's _scale) */
    int32_t growth_tracker;     /* consecutive clean steps since the last growth or overflow
                                   (PyTorch's _growth_tracker) */
    int32_t hysteresis_tracker; /* overflows still tolerated before backing off; Megatron's
                                   _hysteresis_tracker, clamped at 0 (Megatron lets it go negative,
                                   which backs off exactly as 0 does) */
    uint64_t steps_taken;       /* updates with found_nonfinite == 0 */
    uint64_t steps_skipped;     /* updates with found_nonfinite != 0 */
} mf_loss_scaler;

/* A gradient tensor for mf_unscale_check_tensors: n elements of format (MF_FP32, MF_FP16 or
 * MF_BF16) at data, in the array layout of minifloat/convert.h (no alignment needed). */
typedef struct mf_tensor {
    void *data;
    mf_format format;
    size_t n;
} mf_tensor;

/* torch.amp.GradScaler's defaults: init_scale 65536, growth_factor 2, backoff_factor 0.5,
 * growth_interval 2000, hysteresis 1, min_scale 0, max_scale 0, static_scale 0, no reduce hook. */
MF_API mf_loss_scaler_config mf_loss_scaler_config_default(void);

/* A scaler in GradScaler's initial state: the default config, scale 65536, trackers and
 * counters at their initial values (growth 0, hysteresis 1, steps 0). */
MF_API mf_loss_scaler mf_loss_scaler_default(void);

/* Validate *cfg and put *s in its initial state: scale = init_scale, growth_tracker = 0,
 * hysteresis_tracker = hysteresis, both counters 0.
 * Returns MF_OK, or without writing anything:
 *   MF_E_NULL  s or cfg is NULL;
 *   MF_E_ARG   init_scale not positive finite; growth_factor not finite or < 1; backoff_factor not
 *              in (0, 1]; growth_interval < 1; hysteresis < 1; min_scale or max_scale negative
 *              (-0 included), NaN or infinite; both bounds set (nonzero) and min_scale > max_scale; init_scale
 *              below min_scale or (max_scale set) above max_scale. */
MF_API int mf_loss_scaler_init(mf_loss_scaler *s, const mf_loss_scaler_config *cfg);

/* The current scale (a NaN if s is NULL). */
MF_API float mf_loss_scaler_scale(const mf_loss_scaler *s);

/* The factor gradients are unscaled by: 1/scale rounded to binary32, which equals GradScaler's
 * scale.double().reciprocal().float(). A NaN if s is NULL. */
MF_API float mf_loss_scaler_inv_scale(const mf_loss_scaler *s);

/* loss * scale in binary32 (round-to-nearest-even), bit for bit PyTorch's `scaler.scale(loss)`
 * for a float32 loss or a 0-dim float16/bfloat16 loss (widen it to float first; PyTorch's type
 * promotion also gives a float32 result). A NaN if s is NULL. */
MF_API float mf_scale_loss(const mf_loss_scaler *s, float loss);

/* Unscale n gradients in place and report whether any was inf or NaN, in one pass, as PyTorch's
 * _amp_foreach_non_finite_check_and_unscale_: with inv = mf_loss_scaler_inv_scale(s), each element
 * x (widened exactly to binary32) becomes inv == 1 ? x : x * inv, multiplied in binary32 and, for
 * MF_FP16 / MF_BF16, rounded back with round-to-nearest-even (IEEE overflow: inf). The check reads
 * the input value. fmt is MF_FP32, MF_FP16 or MF_BF16; grads needs no alignment.
 * NaN elements stay NaN: f32 NaNs keep sign and payload and become quiet (as x86 and ARM multiply);
 * f16/bf16 NaNs become the canonical 0x7FFF (PyTorch's bits differ, see docs/scaling.md).
 * Returns 1 if an inf or NaN was found, 0 if not, or a negative code and writes nothing:
 *   MF_E_NULL    s is NULL, or grads is NULL while n > 0;
 *   MF_E_FORMAT  fmt is not MF_FP32, MF_FP16 or MF_BF16;
 *   MF_E_SIZE    n elements do not fit in the address space.
 * n = 0 returns 0 and touches nothing. s is not modified: pass the result to
 * mf_loss_scaler_update (OR the results of several calls first). */
MF_API int mf_unscale_check(const mf_loss_scaler *s, mf_format fmt, void *grads, size_t n);

/* mf_unscale_check over count tensors (a whole model's gradients) in one call. Every descriptor
 * is validated before any element is written. Tensors with n = 0 are skipped (data may be NULL).
 * Tensors must not overlap (an element listed twice is unscaled twice). Returns 1 if any element
 * of any tensor was inf or NaN, 0 if none, or (writing nothing):
 *   MF_E_NULL    s is NULL, tensors is NULL while count > 0, or a tensor's data is NULL with n > 0;
 *   MF_E_FORMAT  a tensor's format is not MF_FP32, MF_FP16 or MF_BF16;
 *   MF_E_SIZE    count descriptors, or a tensor's n elements, do not fit in the address space (a
 *                negative count cast to size_t is refused before any descriptor is read). */
MF_API int mf_unscale_check_tensors(const mf_loss_scaler *s, const mf_tensor *tensors, size_t count);

/* Finish a step: found_nonfinite is the (ORed) result of the unscale checks, nonzero = overflow (a
 * negative value, an error from mf_unscale_check, counts as overflow). With s->cfg.reduce set, the flag
 * is first max-reduced across ranks (mf_reduce_hook: the values {found != 0, status 0}), so the decision
 * below is the same on every rank; if the reduction fails, returns MF_E_REDUCE and changes nothing.
 * Updates the scale and trackers as PyTorch's _amp_update_scale_ (with hysteresis: as Megatron's
 * DynamicGradScaler.update), and the counters:
 *   overflow:  growth_tracker = 0; hysteresis_tracker -= 1 (not below 0); if it is 0:
 *              scale = max(scale * backoff_factor, min_scale). Returns 0: skip the optimizer step.
 *   clean:     growth_tracker += 1; when it reaches growth_interval: growth_tracker = 0,
 *              hysteresis_tracker = hysteresis, g = scale * growth_factor (capped at max_scale if
 *              set), and scale = g if g is finite. Returns 1: take the optimizer step.
 * Products are binary32 with round-to-nearest-even. With static_scale only the counters change.
 * Returns MF_E_NULL if s is NULL (no reduction is made: the hook lives in s). */
MF_API int mf_loss_scaler_update(mf_loss_scaler *s, int found_nonfinite);

MF_END_DECLS

#endif /* MINIFLOAT_LOSS_SCALE_H */
