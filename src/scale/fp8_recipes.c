/* SPDX-License-Identifier: MIT */
/* src/scale/fp8_recipes.c - FP8 scaling recipes (current, delayed, block) as Transformer Engine does them.
 *
 * All arithmetic is on binary32 bit patterns: products and quotients go through mf__f32_mul_bits /
 * mf__f32_div_bits (round-to-nearest-even in integers) and comparisons are integer comparisons, so
 * neither the rounding mode nor FTZ/DAZ of the calling thread can change a result. TE computes the
 * same operations in CUDA binary32 arithmetic without fast math (IEEE rn, subnormals kept), which is
 * what these integer routines reproduce. The upstream code each function follows is named at the
 * function; docs/scaling.md has the full list.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <minifloat.h>

#include "../internal.h"
#include <minifloat/detail/arith.h>
#include <minifloat/fp8_scaling.h>

#include "reduce.h"

#define F32_ABS 0x7FFFFFFFu
#define F32_SIGN 0x80000000u
#define F32_INF 0x7F800000u
#define F32_ONE 0x3F800000u
#define F32_MAX 0x7F7FFFFFu /* FLT_MAX: TE's std::numeric_limits<float>::max() */
#define F32_POW2_MASK 0xFF800000u
#define F16_INF 0x7C00u
#define BF16_INF 0x7F80u
#define F64_INF 0x7FF0000000000000u

/* Elements handled per chunk by the per-tensor quantizer: the amax and the cast of a chunk read the
 * same cache lines, which makes the fused amax a single sweep over memory. */
#define CHUNK 4096

/* ---- small helpers ------------------------------------------------------------------------------ */

static int is_wide(mf_format f) { return f == MF_FP32 || f == MF_FP16 || f == MF_BF16; }

static size_t elem_bytes(mf_format f) { return (size_t)(mf__fmt_get(f).bits + 7) / 8; }

static uint32_t bits_of(float x) { return mf__f32_bits(x); }

static float float_of(uint32_t b) { return mf__f32_from_bits(b); }

/* A finite, strictly positive binary32 (subnormals included). */
static int positive_finite(uint32_t b) { return !(b & F32_SIGN) && b != 0 && b < F32_INF; }

/* epsilon of the recipes: finite and not negative (-0 counts as 0). */
static int epsilon_ok(uint32_t b) { return (b & F32_ABS) < F32_INF && (!(b & F32_SIGN) || (b & F32_ABS) == 0); }

/* IEEE a < b on bit patterns: false with a NaN, and -0 == +0. */
static int f32_less(uint32_t a, uint32_t b)
{
    uint32_t ka, kb;
    if ((a & F32_ABS) > F32_INF || (b & F32_ABS) > F32_INF || ((a | b) & F32_ABS) == 0)
        return 0;
    ka = (a & F32_SIGN) ? ~a : (a | F32_SIGN); /* order-preserving map to unsigned */
    kb = (b & F32_SIGN) ? ~b : (b | F32_SIGN);
    return ka < kb;
}

/* Largest finite value of a format (an FP8 target, or a tensor's input type), as binary32 bits. */
static uint32_t max_bits(mf_format f) { return mf__decode_f32_bits(f, (uint32_t)mf__fmt_max_code(mf__fmt_get(f))); }

/* ---- amax ---------------------------------------------------------------------------------------- */

/* max |x| of count elements as binary32 bits, NaN skipped: TE reduces with fmaxf / __hmax starting
 * from 0, and both return the other operand when one is NaN. Magnitudes of one sign compare like
 * their codes, so the maximum is taken on codes and widened once (exactly) at the end. */
static uint32_t absmax_bits(mf_format f, const unsigned char *p, size_t count)
{
    size_t i;
    switch (f) {
    case MF_FP32: {
        uint32_t m = 0, b;
        for (i = 0; i < count; i++) {
            memcpy(&b, p + 4 * i, 4);
            b &= F32_ABS;
            if (b <= F32_INF && b > m)
                m = b;
        }
        return m;
    }
    case MF_FP16:
    case MF_BF16: {
        const uint16_t inf = f == MF_FP16 ? F16_INF : BF16_INF;
        uint16_t m = 0, c;
        for (i = 0; i < count; i++) {
            memcpy(&c, p + 2 * i, 2);
            c &= 0x7FFFu;
            if (c <= inf && c > m)
                m = c;
        }
        return mf__decode_f32_bits(f, m);
    }
    default: { /* MF_FP64: the maximum in binary64, rounded once to binary32 */
        uint64_t m = 0, b;
        for (i = 0; i < count; i++) {
            memcpy(&b, p + 8 * i, 8);
            b &= 0x7FFFFFFFFFFFFFFFu;
            if (b <= F64_INF && b > m)
                m = b;
        }
        return mf_from_f64(MF_FP32, mf__f64_from_bits(m), MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0);
    }
    }
}

int mf_amax(mf_format fmt, const void *x, size_t n, float *amax)
{
    size_t bytes;
    if (!amax)
        return MF_E_NULL;
    if (!is_wide(fmt) && fmt != MF_FP64)
        return MF_E_FORMAT;
    if (n == 0) {
        *amax = 0.0f;
        return MF_OK;
    }
    if (!x)
        return MF_E_NULL;
    if (!mf__span_ok(x, n, elem_bytes(fmt), &bytes))
        return MF_E_SIZE;
    *amax = float_of(absmax_bits(fmt, (const unsigned char *)x, n));
    return MF_OK;
}

/* ---- the scale formula --------------------------------------------------------------------------- */

/* TE compute_scale_from_amax (common/recipe/recipe_common.cuh), in the same order of steps. */
static uint32_t scale_bits_from_amax(uint32_t amax, uint32_t max_q, int pow2, uint32_t eps, uint32_t value_for_inf)
{
    uint32_t s;
    if (f32_less(amax, eps)) /* a NaN amax compares false and is caught below */
        amax = eps;
    if ((amax & F32_ABS) >= F32_INF || (amax & F32_ABS) == 0) /* inf, NaN, +-0 */
        return F32_ONE;
    s = mf__f32_div_bits(max_q, amax); /* __fdiv_rn */
    if ((s & F32_ABS) == F32_INF)
        s = value_for_inf;
    if (pow2)
        s &= F32_POW2_MASK; /* keep sign and exponent: rounds a positive normal scale down to 2^k */
    return s;
}

float mf_scale_from_amax(float amax, float max_q, int pow2, float epsilon, float value_for_inf)
{
    return float_of(scale_bits_from_amax(bits_of(amax), bits_of(max_q), pow2, bits_of(epsilon), bits_of(value_for_inf)));
}

int mf_fp8_max(mf_format fp8_fmt, float *max)
{
    if (!max)
        return MF_E_NULL;
    if (!mf__is_fp8(fp8_fmt))
        return MF_E_FORMAT;
    *max = float_of(max_bits(fp8_fmt));
    return MF_OK;
}

int mf_fp8_current_scale(mf_format fp8_fmt, float amax, int pow2, float epsilon, float *scale, float *scale_inv)
{
    uint32_t s;
    if (!scale)
        return MF_E_NULL;
    if (!mf__is_fp8(fp8_fmt))
        return MF_E_FORMAT;
    if (!epsilon_ok(bits_of(epsilon)))
        return MF_E_ARG;
    /* nvte_compute_scale_from_amax passes std::numeric_limits<float>::max() as value_for_inf */
    s = scale_bits_from_amax(bits_of(amax), max_bits(fp8_fmt), pow2, bits_of(epsilon), F32_MAX);
    *scale = float_of(s);
    if (scale_inv)
        *scale_inv = float_of(mf__f32_div_bits(F32_ONE, s)); /* TE reciprocal(): __frcp_rn */
    return MF_OK;
}

/* ---- element kernels ------------------------------------------------------------------------------ */

/* The FP8 code of the binary32 value b: round to nearest even, saturate to +-max (inf included),
 * NaN to NaN; NVIDIA's __nv_cvt_float_to_fp8(x, __NV_SATFINITE, ...) that TE's fp8 types use. */
static unsigned char fp8_code(mf_format dst, uint32_t b)
{
    return (unsigned char)mf_from_f32(dst, float_of(b), MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE, 0);
}

/* q[i] = fp8(x[i] * s) for count elements (TE: static_cast<OType>(static_cast<float>(x) * scale)). */
static void quantize_slice(mf_format dst, unsigned char *q, mf_format src, const unsigned char *p, size_t count,
                           uint32_t s)
{
    size_t i;
    uint32_t b;
    uint16_t c;
    switch (src) {
    case MF_FP32:
        for (i = 0; i < count; i++) {
            memcpy(&b, p + 4 * i, 4);
            q[i] = fp8_code(dst, mf__f32_mul_bits(b, s));
        }
        break;
    case MF_FP16:
        for (i = 0; i < count; i++) {
            memcpy(&c, p + 2 * i, 2);
            q[i] = fp8_code(dst, mf__f32_mul_bits(mf__decode_f32_bits(MF_FP16, c), s));
        }
        break;
    default: /* MF_BF16 */
        for (i = 0; i < count; i++) {
            memcpy(&c, p + 2 * i, 2);
            q[i] = fp8_code(dst, mf__f32_mul_bits((uint32_t)c << 16, s));
        }
        break;
    }
}

/* Binary32 bits of every code of an FP8 format (exact). */
static void fp8_table(mf_format f, uint32_t *dec)
{
    uint32_t c;
    for (c = 0; c < 256; c++)
        dec[c] = mf__decode_f32_bits(f, c);
}

/* y[i] = round(fp8(q[i]) * s) into f32/f16/bf16 (TE dequantize_func, then static_cast<OType>). */
static void dequantize_slice(mf_format dst, unsigned char *y, const uint32_t *dec, const unsigned char *q,
                             size_t count, uint32_t s)
{
    size_t i;
    uint32_t b;
    uint16_t c;
    if (dst == MF_FP32) {
        for (i = 0; i < count; i++) {
            b = mf__f32_mul_bits(dec[q[i]], s);
            memcpy(y + 4 * i, &b, 4);
        }
        return;
    }
    for (i = 0; i < count; i++) {
        b = mf__f32_mul_bits(dec[q[i]], s);
        c = (uint16_t)mf_from_f32(dst, float_of(b), MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0);
        memcpy(y + 2 * i, &c, 2);
    }
}

/* ---- per-tensor quantize / dequantize ------------------------------------------------------------ */

/* Argument checks shared by the per-tensor quantizers; the scale is checked by the caller. */
static int check_quantize(mf_format dst_fmt, const void *dst, mf_format src_fmt, const void *src, size_t n)
{
    size_t db, sb;
    if (!mf__is_fp8(dst_fmt) || !is_wide(src_fmt))
        return MF_E_FORMAT;
    if (n == 0)
        return MF_OK;
    if (!dst || !src)
        return MF_E_NULL;
    if (!mf__span_ok(dst, n, 1, &db) || !mf__span_ok(src, n, elem_bytes(src_fmt), &sb))
        return MF_E_SIZE;
    if (mf__ranges_overlap(dst, db, src, sb))
        return MF_E_OVERLAP;
    return MF_OK;
}

/* The checked body: quantize in chunks, the amax of each chunk taken just before its cast. */
static uint32_t quantize_run(mf_format dst_fmt, void *dst, mf_format src_fmt, const void *src, size_t n, uint32_t s,
                             int want_amax)
{
    const unsigned char *p = (const unsigned char *)src;
    unsigned char *q = (unsigned char *)dst;
    const size_t w = elem_bytes(src_fmt);
    uint32_t m = 0, cm;
    size_t i, k;
    for (i = 0; i < n; i += k) {
        k = n - i < CHUNK ? n - i : CHUNK;
        if (want_amax) {
            cm = absmax_bits(src_fmt, p + i * w, k);
            if (cm > m)
                m = cm;
        }
        quantize_slice(dst_fmt, q + i, src_fmt, p + i * w, k, s);
    }
    return m;
}

int mf_fp8_quantize(mf_format dst_fmt, void *dst, mf_format src_fmt, const void *src, size_t n, float scale,
                    float *amax)
{
    int rc = check_quantize(dst_fmt, dst, src_fmt, src, n);
    uint32_t m;
    if (rc != MF_OK)
        return rc;
    if (!positive_finite(bits_of(scale)))
        return MF_E_ARG;
    m = quantize_run(dst_fmt, dst, src_fmt, src, n, bits_of(scale), amax != NULL);
    if (amax)
        *amax = float_of(m);
    return MF_OK;
}

int mf_fp8_dequantize(mf_format dst_fmt, void *dst, mf_format src_fmt, const void *src, size_t n, float scale_inv)
{
    uint32_t dec[256];
    size_t db, sb;
    if (!is_wide(dst_fmt) || !mf__is_fp8(src_fmt))
        return MF_E_FORMAT;
    if (!positive_finite(bits_of(scale_inv)))
        return MF_E_ARG;
    if (n == 0)
        return MF_OK;
    if (!dst || !src)
        return MF_E_NULL;
    if (!mf__span_ok(dst, n, elem_bytes(dst_fmt), &db) || !mf__span_ok(src, n, 1, &sb))
        return MF_E_SIZE;
    if (mf__ranges_overlap(dst, db, src, sb))
        return MF_E_OVERLAP;
    fp8_table(src_fmt, dec);
    dequantize_slice(dst_fmt, (unsigned char *)dst, dec, (const unsigned char *)src, n, bits_of(scale_inv));
    return MF_OK;
}

/* The scale from amax bits m, the cast with it, and the optional outputs (arguments checked). */
static void quantize_with_amax(mf_format dst_fmt, void *dst, mf_format src_fmt, const void *src, size_t n, uint32_t m,
                               int pow2, float epsilon, float *amax, float *scale, float *scale_inv)
{
    uint32_t s = scale_bits_from_amax(m, max_bits(dst_fmt), pow2, bits_of(epsilon), F32_MAX);
    quantize_run(dst_fmt, dst, src_fmt, src, n, s, 0);
    if (amax)
        *amax = float_of(m);
    if (scale)
        *scale = float_of(s);
    if (scale_inv)
        *scale_inv = float_of(mf__f32_div_bits(F32_ONE, s));
}

int mf_fp8_quantize_current(mf_format dst_fmt, void *dst, mf_format src_fmt, const void *src, size_t n, int pow2,
                            float epsilon, float *amax, float *scale, float *scale_inv)
{
    int rc = check_quantize(dst_fmt, dst, src_fmt, src, n);
    uint32_t m;
    if (rc != MF_OK)
        return rc;
    if (!epsilon_ok(bits_of(epsilon)))
        return MF_E_ARG;
    /* TE: nvte_compute_amax, nvte_compute_scale_from_amax, then the cast with that scale */
    m = n ? absmax_bits(src_fmt, (const unsigned char *)src, n) : 0;
    quantize_with_amax(dst_fmt, dst, src_fmt, src, n, m, pow2, epsilon, amax, scale, scale_inv);
    return MF_OK;
}

int mf_fp8_quantize_current_reduced(mf_format dst_fmt, void *dst, mf_format src_fmt, const void *src, size_t n,
                                    int pow2, float epsilon, const mf_reduce_hook *hook, float *amax, float *scale,
                                    float *scale_inv)
{
    int rc;
    uint32_t m;
    float v[2];
    if (!hook || !hook->max)
        return mf_fp8_quantize_current(dst_fmt, dst, src_fmt, src, n, pow2, epsilon, amax, scale, scale_inv);
    rc = check_quantize(dst_fmt, dst, src_fmt, src, n);
    if (rc == MF_OK && !epsilon_ok(bits_of(epsilon)))
        rc = MF_E_ARG;
    /* TE: local amax, all-reduce(MAX) over amax_reduction_group, scale, cast; a rank whose arguments
     * failed still joins the exchange so that the others do not wait for it */
    m = rc == MF_OK && n ? absmax_bits(src_fmt, (const unsigned char *)src, n) : 0;
    v[0] = float_of(m);
    if (mf__reduce_max(hook, v, 2, rc != MF_OK) != MF_OK)
        return rc != MF_OK ? rc : MF_E_REDUCE;
    quantize_with_amax(dst_fmt, dst, src_fmt, src, n, bits_of(v[0]), pow2, epsilon, amax, scale, scale_inv);
    return MF_OK;
}

/* ---- delayed scaling ------------------------------------------------------------------------------ */

mf_fp8_delayed_cfg mf_fp8_delayed_default(mf_format fp8_fmt)
{
    mf_fp8_delayed_cfg c;
    memset(&c, 0, sizeof c);
    c.fmt = fp8_fmt;
    c.history_len = 1024; /* TE DelayedScaling.amax_history_len */
    c.algo = MF_AMAX_ALGO_MAX;
    c.margin = 0;
    c.roll_on_zero_amax = 0;
    c.initial_scale = 1.0f;
    return c;
}

int mf_fp8_delayed_init(mf_fp8_delayed *st, const mf_fp8_delayed_cfg *cfg)
{
    uint32_t s;
    if (!st || !cfg)
        return MF_E_NULL;
    if (!mf__is_fp8(cfg->fmt))
        return MF_E_FORMAT;
    if (cfg->history_len < 1 || cfg->history_len > MF_FP8_HISTORY_MAX || (unsigned)cfg->algo > MF_AMAX_ALGO_MOST_RECENT ||
        cfg->margin < -126 || cfg->margin > 126 || (cfg->roll_on_zero_amax != 0 && cfg->roll_on_zero_amax != 1) ||
        !positive_finite(bits_of(cfg->initial_scale)))
        return MF_E_ARG;
    memset(st, 0, sizeof *st);
    st->cfg = *cfg;
    /* TE (host): scaled_max = fp8_dtype_max(dtype) * std::pow(2.f, -margin); 2^-margin is exact here */
    st->scaled_max = float_of(mf__f32_mul_bits(max_bits(cfg->fmt), (uint32_t)(127 - cfg->margin) << 23));
    s = bits_of(cfg->initial_scale);
    st->scale = float_of(s);
    st->scale_inv = float_of(mf__f32_div_bits(F32_ONE, s));
    return MF_OK;
}

int mf_fp8_delayed_record(mf_fp8_delayed *st, float amax)
{
    uint32_t b = bits_of(amax), h;
    if (!st)
        return MF_E_NULL;
    if ((b & F32_SIGN) && (b & F32_ABS))
        return MF_E_ARG;
    /* TE atomicMaxFloat: atomicMax on the bits as int; both are non-negative patterns here */
    h = bits_of(st->history[0]);
    if (!(b & F32_SIGN) && b > h)
        st->history[0] = float_of(b);
    return MF_OK;
}

/* TE delayed_scaling.cu, amax_and_scale_update_impl::kernel_bulk (PyTorch's fused update), or
 * ::kernel when roll_on_zero_amax is set; one scale per state. */
static void delayed_update_from(mf_fp8_delayed *st, uint32_t last)
{
    size_t len = st->cfg.history_len, i;
    uint32_t hmax = 0, amax, a, s;
    st->history[0] = float_of(last);
    if (st->cfg.roll_on_zero_amax || (last & F32_ABS) != 0) {
        /* fmaxf(amax, a) from amax = 0 over every entry: NaN and negative entries never win */
        for (i = 0; i < len; i++) {
            a = bits_of(st->history[i]);
            if (!(a & F32_SIGN) && a <= F32_INF && a > hmax)
                hmax = a;
        }
        /* roll by -1, then clear slot 0 for the next step's amax */
        memmove(st->history, st->history + 1, (len - 1) * sizeof st->history[0]);
        st->history[len - 1] = float_of(last);
        st->history[0] = 0.0f;
    }
    amax = st->cfg.algo == MF_AMAX_ALGO_MOST_RECENT ? last : hmax;
    if (positive_finite(amax)) /* isfinite(amax) && amax > 0 */
        s = mf__f32_div_bits(bits_of(st->scaled_max), amax);
    else
        s = bits_of(st->scale);
    if ((s & F32_ABS) == F32_INF)
        s = F32_MAX;
    st->scale = float_of(s);
    st->scale_inv = float_of(mf__f32_div_bits(F32_ONE, s)); /* TE: scale_inv = 1 / scale */
    st->steps++;
}

int mf_fp8_delayed_update(mf_fp8_delayed *st)
{
    float v[2];
    if (!st)
        return MF_E_NULL;
    v[0] = st->history[0];
    /* TE reduce_and_update_fp8_tensors: all-reduce(MAX) of amax_history[0] before the update */
    if (st->cfg.reduce.max && mf__reduce_max(&st->cfg.reduce, v, 2, 0) != MF_OK)
        return MF_E_REDUCE;
    delayed_update_from(st, bits_of(v[0]));
    return MF_OK;
}

int mf_fp8_delayed_update_many(mf_fp8_delayed *st, size_t count)
{
    const mf_reduce_hook *h;
    float *v;
    size_t i, bytes;
    if (count == 0)
        return MF_OK;
    if (!st)
        return MF_E_NULL;
    if (!mf__span_ok(st, count, sizeof *st, &bytes) || count > SIZE_MAX / sizeof *v - 1)
        return MF_E_SIZE;
    h = &st[0].cfg.reduce;
    for (i = 1; i < count; i++)
        if (st[i].cfg.reduce.max != h->max || st[i].cfg.reduce.ctx != h->ctx)
            return MF_E_ARG;
    if (!h->max) {
        for (i = 0; i < count; i++)
            delayed_update_from(&st[i], bits_of(st[i].history[0]));
        return MF_OK;
    }
    v = (float *)malloc((count + 1) * sizeof *v);
    if (!v)
        return MF_E_NOMEM;
    for (i = 0; i < count; i++)
        v[i] = st[i].history[0];
    if (mf__reduce_max(h, v, count + 1, 0) != MF_OK) {
        free(v);
        return MF_E_REDUCE;
    }
    for (i = 0; i < count; i++)
        delayed_update_from(&st[i], bits_of(v[i]));
    free(v);
    return MF_OK;
}

int mf_fp8_delayed_quantize(mf_fp8_delayed *st, void *dst, mf_format src_fmt, const void *src, size_t n)
{
    int rc;
    uint32_t m;
    if (!st)
        return MF_E_NULL;
    rc = check_quantize(st->cfg.fmt, dst, src_fmt, src, n);
    if (rc != MF_OK)
        return rc;
    m = quantize_run(st->cfg.fmt, dst, src_fmt, src, n, bits_of(st->scale), 1);
    return mf_fp8_delayed_record(st, float_of(m));
}

/* ---- block scaling -------------------------------------------------------------------------------- */

static int block_dims(mf_fp8_block kind, size_t *bh, size_t *bw)
{
    switch (kind) {
    case MF_FP8_BLOCK_1X128: *bh = 1; *bw = 128; return 1;
    case MF_FP8_BLOCK_128X128: *bh = 128; *bw = 128; return 1;
    case MF_FP8_BLOCK_128X1: *bh = 128; *bw = 1; return 1;
    default: return 0;
    }
}

static size_t ceil_div(size_t a, size_t b) { return a / b + (a % b != 0); }

int mf_fp8_block_scale_shape(mf_fp8_block kind, size_t rows, size_t cols, size_t *scale_rows, size_t *scale_cols)
{
    size_t bh, bw;
    if (!scale_rows || !scale_cols)
        return MF_E_NULL;
    if (!block_dims(kind, &bh, &bw))
        return MF_E_ARG;
    *scale_rows = ceil_div(rows, bh);
    *scale_cols = ceil_div(cols, bw);
    return MF_OK;
}

/* Shared checks of the block functions: sizes of the three arrays, NULLs and overlaps. */
static int check_block(const void *dst, size_t dw, const void *src, size_t sw, const void *sc, size_t rows, size_t cols,
                       mf_fp8_block kind)
{
    size_t bh, bw, n, db, sb, cb;
    if (!block_dims(kind, &bh, &bw))
        return MF_E_ARG;
    if (rows == 0 || cols == 0)
        return MF_OK;
    if (!dst || !src || !sc)
        return MF_E_NULL;
    if (!mf__count2_ok(rows, cols, &n)) /* the scale count is at most n */
        return MF_E_SIZE;
    if (!mf__span_ok(dst, n, dw, &db) || !mf__span_ok(src, n, sw, &sb) ||
        !mf__span_ok(sc, ceil_div(rows, bh) * ceil_div(cols, bw), sizeof(float), &cb))
        return MF_E_SIZE;
    if (mf__ranges_overlap(dst, db, src, sb) || mf__ranges_overlap(dst, db, sc, cb) || mf__ranges_overlap(src, sb, sc, cb))
        return MF_E_OVERLAP;
    return MF_OK;
}

/* The scale_inv row doubles as scratch for bit patterns: copied, never loaded as floats. */
static uint32_t load_f32(const float *p)
{
    uint32_t b;
    memcpy(&b, p, 4);
    return b;
}

static void store_f32(float *p, uint32_t b) { memcpy(p, &b, 4); }

/* TE quantize_transpose_vector_blockwise.cu (1x128 rowwise, 128x1 columnwise compact) and
 * quantize_transpose_square_blockwise.cu (128x128): per block amax (fmaxf from 0), the scale from
 * compute_scale_from_types<IType, OType>, scale_inv = 1 / scale, elements fp8(x * scale).
 * Rows are processed in bands of bh rows, left to right, so every access is sequential; the band's
 * scale_inv row holds the block amaxes, then the scales, then the reciprocals. */
int mf_fp8_block_quantize(mf_format dst_fmt, void *dst, float *scale_inv, mf_format src_fmt, const void *src,
                          size_t rows, size_t cols, mf_fp8_block kind, int pow2, float epsilon)
{
    const unsigned char *p = (const unsigned char *)src;
    unsigned char *q = (unsigned char *)dst;
    size_t bh = 1, bw = 1, w, nbr, nbc, br, bc, r, r1, c0, c1;
    uint32_t maxq, vfi, eps, m;
    float *srow;
    int rc;
    if (!mf__is_fp8(dst_fmt) || !is_wide(src_fmt))
        return MF_E_FORMAT;
    w = elem_bytes(src_fmt);
    rc = check_block(dst, 1, src, w, scale_inv, rows, cols, kind);
    if (rc != MF_OK)
        return rc;
    if (!epsilon_ok(bits_of(epsilon)))
        return MF_E_ARG;
    if (rows == 0 || cols == 0)
        return MF_OK;
    block_dims(kind, &bh, &bw);
    nbr = ceil_div(rows, bh);
    nbc = ceil_div(cols, bw);
    maxq = max_bits(dst_fmt);
    vfi = max_bits(src_fmt); /* TypeInfo<IType>::max_finite_value */
    eps = bits_of(epsilon);
    for (br = 0; br < nbr; br++) {
        r1 = br * bh + bh < rows ? br * bh + bh : rows;
        srow = scale_inv + br * nbc;
        for (bc = 0; bc < nbc; bc++)
            store_f32(srow + bc, 0);
        for (r = br * bh; r < r1; r++)
            for (bc = 0; bc < nbc; bc++) {
                c0 = bc * bw;
                c1 = c0 + bw < cols ? c0 + bw : cols;
                m = absmax_bits(src_fmt, p + (r * cols + c0) * w, c1 - c0);
                if (m > load_f32(srow + bc))
                    store_f32(srow + bc, m);
            }
        for (bc = 0; bc < nbc; bc++)
            store_f32(srow + bc, scale_bits_from_amax(load_f32(srow + bc), maxq, pow2, eps, vfi));
        for (r = br * bh; r < r1; r++)
            for (bc = 0; bc < nbc; bc++) {
                c0 = bc * bw;
                c1 = c0 + bw < cols ? c0 + bw : cols;
                quantize_slice(dst_fmt, q + r * cols + c0, src_fmt, p + (r * cols + c0) * w, c1 - c0,
                               load_f32(srow + bc));
            }
        for (bc = 0; bc < nbc; bc++)
            store_f32(srow + bc, mf__f32_div_bits(F32_ONE, load_f32(srow + bc)));
    }
    return MF_OK;
}

int mf_fp8_block_dequantize(mf_format dst_fmt, void *dst, mf_format src_fmt, const void *src, const float *scale_inv,
                            size_t rows, size_t cols, mf_fp8_block kind)
{
    const unsigned char *q = (const unsigned char *)src;
    unsigned char *y = (unsigned char *)dst;
    uint32_t dec[256];
    size_t bh = 1, bw = 1, w, nbc, bc, r, c0, c1;
    const float *srow;
    int rc;
    if (!is_wide(dst_fmt) || !mf__is_fp8(src_fmt))
        return MF_E_FORMAT;
    w = elem_bytes(dst_fmt);
    rc = check_block(dst, w, src, 1, scale_inv, rows, cols, kind);
    if (rc != MF_OK || rows == 0 || cols == 0)
        return rc;
    block_dims(kind, &bh, &bw);
    nbc = ceil_div(cols, bw);
    fp8_table(src_fmt, dec);
    for (r = 0; r < rows; r++) {
        srow = scale_inv + (r / bh) * nbc;
        for (bc = 0; bc < nbc; bc++) {
            c0 = bc * bw;
            c1 = c0 + bw < cols ? c0 + bw : cols;
            dequantize_slice(dst_fmt, y + (r * cols + c0) * w, dec, q + r * cols + c0, c1 - c0, load_f32(srow + bc));
        }
    }
    return MF_OK;
}
