/* SPDX-License-Identifier: MIT */
/* src/scale/loss_scale.c - dynamic loss scaling (torch.amp.GradScaler, Megatron's hysteresis).
 *
 * Upstream code matched (docs/scaling.md has the details):
 *   update    aten/src/ATen/native/cpu/AmpGradScalerKernels.cpp _amp_update_scale_cpu_kernel and
 *             aten/src/ATen/native/cuda/AmpKernels.cu amp_update_scale_cuda_kernel;
 *             hysteresis and min_scale: megatron/core/optimizer/grad_scaler.py DynamicGradScaler.
 *   unscale   _amp_foreach_non_finite_check_and_unscale_cpu_kernel (same file) and its CUDA twin.
 *   inverse   torch/amp/grad_scaler.py: inv_scale = scale.double().reciprocal().float().
 * All binary32 products go through detail/arith.h, so the bits do not depend on the caller's
 * rounding mode or FTZ/DAZ; comparisons are done on the bit patterns for the same reason (every
 * scale here is +0, positive or +inf, and such floats order like their bits).
 */
#include <string.h>

#include <minifloat.h>
#include <minifloat/detail/arith.h>
#include <minifloat/loss_scale.h>

#include "../internal.h"
#include "reduce.h"

#define F32_EXP_MASK 0x7F800000u
#define F32_ONE 0x3F800000u

/* Not inf or NaN, from the bits: an all-ones exponent field is inf or NaN. */
static int f32_finite(uint32_t u) { return (u & F32_EXP_MASK) != F32_EXP_MASK; }

/* x >= 0 and finite (NaN, -0 excluded: the sign bit is clear only for +0 and positives). */
static int f32_nonneg_finite(uint32_t u) { return u < F32_EXP_MASK; }

mf_loss_scaler_config mf_loss_scaler_config_default(void)
{
    mf_loss_scaler_config c;
    memset(&c, 0, sizeof c);
    c.init_scale = 65536.0f; /* GradScaler(init_scale=2.**16, growth_factor=2.0, backoff_factor=0.5, */
    c.growth_factor = 2.0f;  /*            growth_interval=2000) */
    c.backoff_factor = 0.5f;
    c.growth_interval = 2000;
    c.hysteresis = 1;
    c.min_scale = 0.0f;
    c.max_scale = 0.0f;
    c.static_scale = 0;
    return c;
}

mf_loss_scaler mf_loss_scaler_default(void)
{
    mf_loss_scaler s;
    mf_loss_scaler_config c = mf_loss_scaler_config_default();
    memset(&s, 0, sizeof s);
    (void)mf_loss_scaler_init(&s, &c); /* the defaults are valid */
    return s;
}

int mf_loss_scaler_init(mf_loss_scaler *s, const mf_loss_scaler_config *cfg)
{
    uint32_t init, grow, back, lo, hi;
    if (!s || !cfg)
        return MF_E_NULL;
    init = mf__f32_bits(cfg->init_scale);
    grow = mf__f32_bits(cfg->growth_factor);
    back = mf__f32_bits(cfg->backoff_factor);
    lo = mf__f32_bits(cfg->min_scale);
    hi = mf__f32_bits(cfg->max_scale);
    if (init == 0 || !f32_nonneg_finite(init))
        return MF_E_ARG;
    if (!f32_nonneg_finite(grow) || grow < F32_ONE) /* growth >= 1 */
        return MF_E_ARG;
    if (back == 0 || !f32_nonneg_finite(back) || back > F32_ONE) /* 0 < backoff <= 1 */
        return MF_E_ARG;
    if (cfg->growth_interval < 1 || cfg->hysteresis < 1)
        return MF_E_ARG;
    if (!f32_nonneg_finite(lo) || !f32_nonneg_finite(hi))
        return MF_E_ARG;
    if (lo != 0 && hi != 0 && lo > hi)
        return MF_E_ARG;
    if (init < lo || (hi != 0 && init > hi))
        return MF_E_ARG;
    s->cfg = *cfg;
    s->scale = cfg->init_scale;
    s->growth_tracker = 0;
    s->hysteresis_tracker = cfg->hysteresis;
    s->steps_taken = 0;
    s->steps_skipped = 0;
    return MF_OK;
}

float mf_loss_scaler_scale(const mf_loss_scaler *s)
{
    return s ? s->scale : mf__f32_from_bits(MF__F32_DEFAULT_NAN);
}

float mf_loss_scaler_inv_scale(const mf_loss_scaler *s)
{
    /* Correctly rounded 1/scale, which is what (float)(1.0 / (double)scale) gives (detail/arith.h). */
    return s ? mf__f32_div(1.0f, s->scale) : mf__f32_from_bits(MF__F32_DEFAULT_NAN);
}

float mf_scale_loss(const mf_loss_scaler *s, float loss)
{
    /* GradScaler.scale: outputs * self._scale, a binary32 multiply. */
    return s ? mf__f32_mul(loss, s->scale) : mf__f32_from_bits(MF__F32_DEFAULT_NAN);
}

/* ---- unscale and check ---------------------------------------------------------------------- */

static int format_ok(mf_format fmt) { return fmt == MF_FP32 || fmt == MF_FP16 || fmt == MF_BF16; }

static size_t elem_bytes(mf_format fmt) { return fmt == MF_FP32 ? 4 : 2; }

/* MF_OK if (fmt, data, n) describe an array we may unscale. */
static int check_array(mf_format fmt, const void *data, size_t n)
{
    size_t bytes;
    if (!format_ok(fmt))
        return MF_E_FORMAT;
    if (n == 0)
        return MF_OK;
    if (!data)
        return MF_E_NULL;
    if (!mf__span_ok(data, n, elem_bytes(fmt), &bytes))
        return MF_E_SIZE;
    return MF_OK;
}

/* PyTorch: found_inf from the input; static_cast<scalar_t>(inv == 1.f ? val : val * inv) with val
 * the float (opmath) value. Returns 1 if a non-finite element was seen. One pass, no allocation. */
static int unscale_f32(unsigned char *p, size_t n, uint32_t inv)
{
    unsigned bad = 0;
    size_t i;
    if (inv == F32_ONE) { /* the value is returned as it is: only check */
        for (i = 0; i < n; i++) {
            uint32_t u;
            memcpy(&u, p + 4 * i, 4);
            bad |= (u & F32_EXP_MASK) == F32_EXP_MASK;
        }
        return (int)bad;
    }
    for (i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, p + 4 * i, 4);
        bad |= (u & F32_EXP_MASK) == F32_EXP_MASK;
        u = mf__f32_mul_bits(u, inv);
        memcpy(p + 4 * i, &u, 4);
    }
    return (int)bad;
}

/* f16 / bf16: widen exactly, multiply in binary32, round back to nearest even. */
static int unscale_16(mf_format fmt, unsigned char *p, size_t n, uint32_t inv)
{
    const uint16_t exp_mask = fmt == MF_FP16 ? 0x7C00u : 0x7F80u;
    unsigned bad = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        uint16_t c;
        uint32_t x;
        memcpy(&c, p + 2 * i, 2);
        bad |= (c & exp_mask) == exp_mask;
        x = mf__decode_f32_bits(fmt, c);
        if (inv != F32_ONE)
            x = mf__f32_mul_bits(x, inv);
        c = (uint16_t)mf_from_f32(fmt, mf__f32_from_bits(x), MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0);
        memcpy(p + 2 * i, &c, 2);
    }
    return (int)bad;
}

/* Arguments already checked. */
static int unscale_array(uint32_t inv, mf_format fmt, void *data, size_t n)
{
    if (n == 0)
        return 0;
    if (fmt == MF_FP32)
        return unscale_f32((unsigned char *)data, n, inv);
    return unscale_16(fmt, (unsigned char *)data, n, inv);
}

int mf_unscale_check(const mf_loss_scaler *s, mf_format fmt, void *grads, size_t n)
{
    int rc;
    if (!s)
        return MF_E_NULL;
    rc = check_array(fmt, grads, n);
    if (rc != MF_OK)
        return rc;
    return unscale_array(mf__f32_bits(mf_loss_scaler_inv_scale(s)), fmt, grads, n);
}

int mf_unscale_check_tensors(const mf_loss_scaler *s, const mf_tensor *tensors, size_t count)
{
    uint32_t inv;
    size_t i;
    int found = 0;
    if (!s)
        return MF_E_NULL;
    if (count == 0)
        return 0;
    if (!tensors)
        return MF_E_NULL;
    if (!mf__span_ok(tensors, count, sizeof *tensors, &i)) /* a negative count: not read past the array */
        return MF_E_SIZE;
    for (i = 0; i < count; i++) { /* everything is validated before anything is written */
        int rc = check_array(tensors[i].format, tensors[i].data, tensors[i].n);
        if (rc != MF_OK)
            return rc;
    }
    inv = mf__f32_bits(mf_loss_scaler_inv_scale(s));
    for (i = 0; i < count; i++)
        found |= unscale_array(inv, tensors[i].format, tensors[i].data, tensors[i].n);
    return found;
}

/* ---- update --------------------------------------------------------------------------------- */

int mf_loss_scaler_update(mf_loss_scaler *s, int found_nonfinite)
{
    const mf_loss_scaler_config *c;
    if (!s)
        return MF_E_NULL;
    c = &s->cfg;
    if (c->reduce.max) { /* ShardedGradScaler.unscale_: dist.all_reduce(found_inf, op=MAX) */
        float v[2];
        v[0] = found_nonfinite ? 1.0f : 0.0f;
        if (mf__reduce_max(&c->reduce, v, 2, 0) != MF_OK)
            return MF_E_REDUCE;
        found_nonfinite = v[0] != 0.0f;
    }
    if (found_nonfinite) {
        s->steps_skipped++;
        if (c->static_scale)
            return 0;
        /* PyTorch: scale = scale * backoff (float * double, exact in double, then rounded to float:
         * the binary32 product for a binary32 factor); growth_tracker = 0.
         * Megatron: growth_tracker = 0; hysteresis_tracker -= 1; if <= 0:
         * scale = torch.max(scale * backoff, min_scale). */
        s->growth_tracker = 0;
        if (s->hysteresis_tracker > 0)
            s->hysteresis_tracker--;
        if (s->hysteresis_tracker == 0) {
            uint32_t b = mf__f32_mul_bits(mf__f32_bits(s->scale), mf__f32_bits(c->backoff_factor));
            uint32_t lo = mf__f32_bits(c->min_scale);
            s->scale = mf__f32_from_bits(b < lo ? lo : b);
        }
        return 0;
    }
    s->steps_taken++;
    if (c->static_scale)
        return 1;
    /* PyTorch: successful = tracker + 1; if successful == growth_interval: new_scale =
     * (float)(scale * growth); if isfinite(new_scale) scale = new_scale; tracker = 0;
     * else tracker = successful. Megatron also refills the hysteresis tracker on growth. */
    if ((int64_t)s->growth_tracker + 1 == c->growth_interval) {
        uint32_t g = mf__f32_mul_bits(mf__f32_bits(s->scale), mf__f32_bits(c->growth_factor));
        uint32_t hi = mf__f32_bits(c->max_scale);
        if (hi != 0 && g > hi) /* the cap first: a capped growth is finite */
            g = hi;
        if (f32_finite(g))
            s->scale = mf__f32_from_bits(g);
        s->growth_tracker = 0;
        s->hysteresis_tracker = c->hysteresis;
    } else if (s->growth_tracker < INT32_MAX) { /* saturate: a tracker restored past the interval
                                                   must not overflow (PyTorch's int would) */
        s->growth_tracker++;
    }
    return 1;
}
