/* SPDX-License-Identifier: MIT */
/* src/scale/mx.c - OCP MX v1.0 block scaling: E8M0 scales (FLOOR and RCEIL), element conversion,
 * dequantization, dense FP6 packing. Semantics and layouts: include/minifloat/mx.h, docs/scaling.md.
 *
 * Integers and the library's rounding core only (mf_from_f32, mf_convert, detail/arith.h), so the
 * caller's rounding mode and FTZ/DAZ flags cannot change a byte.
 */
#include <string.h>

#include "../internal.h"
#include "minifloat/detail/arith.h"
#include "minifloat/mx.h"
#include "mx_core.h"

/* Facts of each element type (mx_core.h): max is the largest element magnitude, emax the exponent of
 * the largest power of two not above it. MXINT8 has no mf_format; MF_FP32 marks it. */
typedef struct {
    mf_format fmt;
    int emax;
    float max;
} mx_info;

static mx_info mx_get(mf_mx_type type)
{
    mx_info t;
    uint32_t b;
    t.fmt = mf__mx_elem_format(type);
    b = mf__mx_max_bits(t.fmt);
    t.max = mf__f32_from_bits(b);
    t.emax = (int)(b >> 23) - 127;
    return t;
}

#define MX_CHUNK 1024 /* elements per mf_convert call; a multiple of 4 so packed groups never split */
#define MX_COLS 256   /* columns per pass when reducing column-wise blocks */

static int is_fp6(mf_mx_type t) { return t == MF_MXFP6_E2M3 || t == MF_MXFP6_E3M2; }

/* Everything but pointers: the enums, the flags, the shape. *n receives rows * cols. */
static int mx_check(mf_mx_type type, mf_mx_axis axis, unsigned flags, size_t rows, size_t cols, size_t *n)
{
    size_t bytes;
    if ((unsigned)type >= MF_MX_TYPE_COUNT)
        return MF_E_FORMAT;
    if ((unsigned)axis > (unsigned)MF_MX_COLWISE || (flags & ~MF_MX_FP6_PACKED) != 0)
        return MF_E_ARG;
    if ((flags & MF_MX_FP6_PACKED) && !is_fp6(type))
        return MF_E_ARG;
    if ((axis == MF_MX_ROWWISE ? cols : rows) % MF_MX_BLOCK != 0)
        return MF_E_ARG;
    if (!mf__count2_ok(rows, cols, n) || !mf__span_ok(NULL, *n, sizeof(float), &bytes)) /* f32 the widest side */
        return MF_E_SIZE;
    return MF_OK;
}

static size_t elem_bytes(mf_mx_type type, unsigned flags, size_t n)
{
    if (type == MF_MXFP4_E2M1)
        return n / 2;
    if (flags & MF_MX_FP6_PACKED)
        return n / 4 * 3;
    return n;
}

int mf_mx_sizes(mf_mx_type type, mf_mx_axis axis, unsigned flags, size_t rows, size_t cols, size_t *elem_bytes_out,
                size_t *scale_count)
{
    size_t n;
    int rc = mx_check(type, axis, flags, rows, cols, &n);
    if (rc != MF_OK)
        return rc;
    if (elem_bytes_out)
        *elem_bytes_out = elem_bytes(type, flags, n);
    if (scale_count)
        *scale_count = n / MF_MX_BLOCK;
    return MF_OK;
}

/* ---- scales ---------------------------------------------------------------------------------------- */

/* The E8M0 code of a block (mx_core.h). */
static unsigned scale_code(const mx_info *t, mf_mx_scale_rule rule, uint32_t mag, float rcp)
{
    return mf__mx_scale_e8m0(t->emax, rule == MF_MX_SCALE_RCEIL, mag, rcp);
}

int mf_mx_scale_code(mf_mx_type type, mf_mx_scale_rule rule, float amax)
{
    mx_info ti;
    const mx_info *t = &ti;
    if ((unsigned)type >= MF_MX_TYPE_COUNT)
        return MF_E_FORMAT;
    if ((unsigned)rule > (unsigned)MF_MX_SCALE_RCEIL)
        return MF_E_ARG;
    ti = mx_get(type);
    return (int)scale_code(t, rule, mf__f32_bits(amax) & 0x7FFFFFFFu, mf__f32_div(1.0f, t->max));
}

static void compute_scales(const mx_info *t, mf_mx_scale_rule rule, mf_mx_axis axis, const float *x, size_t rows,
                           size_t cols, uint8_t *scales)
{
    const float rcp = mf__f32_div(1.0f, t->max);
    size_t r, b, j;
    if (axis == MF_MX_ROWWISE) {
        const size_t nb = cols / MF_MX_BLOCK;
        for (r = 0; r < rows; r++)
            for (b = 0; b < nb; b++) {
                const float *p = x + r * cols + b * MF_MX_BLOCK;
                uint32_t mag = 0;
                for (j = 0; j < MF_MX_BLOCK; j++) {
                    uint32_t m = mf__f32_bits(p[j]) & 0x7FFFFFFFu;
                    mag = m > mag ? m : mag;
                }
                scales[r * nb + b] = (uint8_t)scale_code(t, rule, mag, rcp);
            }
        return;
    }
    for (r = 0; r < rows; r += MF_MX_BLOCK) {
        size_t c0;
        for (c0 = 0; c0 < cols; c0 += MX_COLS) {
            uint32_t mag[MX_COLS];
            const size_t w = cols - c0 < MX_COLS ? cols - c0 : MX_COLS;
            memset(mag, 0, sizeof mag);
            for (b = 0; b < MF_MX_BLOCK; b++) {
                const float *p = x + (r + b) * cols + c0;
                for (j = 0; j < w; j++) {
                    uint32_t m = mf__f32_bits(p[j]) & 0x7FFFFFFFu;
                    mag[j] = m > mag[j] ? m : mag[j];
                }
            }
            for (j = 0; j < w; j++)
                scales[(r / MF_MX_BLOCK) * cols + c0 + j] = (uint8_t)scale_code(t, rule, mag[j], rcp);
        }
    }
}

/* ---- elements ------------------------------------------------------------------------------------ */

/* The MXINT8 code of x / 2^k (mx_core.h), its events counted into *st. */
static uint8_t int8_code(uint32_t b, int k, mf_round rmode, uint32_t rbits, mf_stats *st)
{
    unsigned ev = 0;
    const uint32_t code = mf__mx_int8_code(b, k, rmode == MF_ROUND_STOCHASTIC, rbits, &ev);
    mf__stats_add(st, ev);
    return (uint8_t)code;
}

int mf_mx_quantize(mf_mx_type type, mf_mx_scale_rule rule, mf_mx_axis axis, unsigned flags, const float *x,
                   size_t rows, size_t cols, void *elems, uint8_t *scales, const mf_opts *opts)
{
    static const mf_opts defaults = {MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0, 0, NULL, 0, MF_PROFILE_DEFAULT};
    const mf_opts *o = opts ? opts : &defaults;
    mx_info ti;
    const mx_info *t = &ti;
    uint8_t *out = (uint8_t *)elems;
    mf_stats total;
    size_t n, eb, i0, r = 0, c = 0;
    int rc = mx_check(type, axis, flags, rows, cols, &n);

    if (rc != MF_OK)
        return rc;
    if ((unsigned)rule > (unsigned)MF_MX_SCALE_RCEIL)
        return MF_E_ARG;
    if (o->round != MF_ROUND_NEAREST_EVEN && o->round != MF_ROUND_STOCHASTIC)
        return MF_E_ROUND;
    if ((unsigned)o->overflow > MF_OVERFLOW_SATURATE /* SatPropagate: conversions only */)
        return MF_E_POLICY;
    if (o->threads < 0)
        return MF_E_ARG;
    if (o->profile != MF_PROFILE_DEFAULT) /* block scaling has one semantics (OCP MX, NVIDIA's NVFP4) */
        return MF_E_PROFILE;
    memset(&total, 0, sizeof total);
    if (n == 0) {
        if (o->stats)
            *o->stats = total;
        return MF_OK;
    }
    if (!x || !elems || !scales)
        return MF_E_NULL;
    eb = elem_bytes(type, flags, n);
    if (mf__ranges_overlap(x, n * sizeof(float), elems, eb) || mf__ranges_overlap(x, n * sizeof(float), scales, n / MF_MX_BLOCK) ||
        mf__ranges_overlap(elems, eb, scales, n / MF_MX_BLOCK))
        return MF_E_OVERLAP;

    ti = mx_get(type);
    compute_scales(t, rule, axis, x, rows, cols, scales);

    /* Elements, in row-major chunks; the scale of element (r, c) is read back from scales. */
    for (i0 = 0; i0 < n; i0 += MX_CHUNK) {
        float v[MX_CHUNK];
        uint8_t codes[MX_CHUNK];
        const size_t m = n - i0 < MX_CHUNK ? n - i0 : MX_CHUNK;
        size_t j;
        if (type == MF_MXINT8) {
            for (j = 0; j < m; j++) {
                const size_t i = i0 + j;
                const unsigned k8 = axis == MF_MX_ROWWISE ? scales[r * (cols / MF_MX_BLOCK) + c / MF_MX_BLOCK]
                                                          : scales[(r / MF_MX_BLOCK) * cols + c];
                const uint32_t rbits =
                    o->round == MF_ROUND_STOCHASTIC ? mf_sr_rbits(o->seed, o->sr_offset + (uint64_t)i, 8) : 0u;
                out[i] = k8 == 0xFF ? 0 : int8_code(mf__f32_bits(x[i]), (int)k8 - 127, o->round, rbits, &total);
                if (++c == cols) {
                    c = 0;
                    r++;
                }
            }
            continue;
        }
        for (j = 0; j < m; j++) {
            const unsigned k8 = axis == MF_MX_ROWWISE ? scales[r * (cols / MF_MX_BLOCK) + c / MF_MX_BLOCK]
                                                      : scales[(r / MF_MX_BLOCK) * cols + c];
            int tiny = 0;
            /* a NaN-scale block's elements are written as +0 */
            uint32_t q = k8 == 0xFF ? 0u : mf__mx_scale_pow2(mf__f32_bits(x[i0 + j]), 127 - (int)k8, &tiny);
            if (tiny) {
                total.underflow++;
                total.inexact++;
            }
            v[j] = mf__f32_from_bits(q);
            if (++c == cols) {
                c = 0;
                r++;
            }
        }
        {
            mf_opts co;
            mf_stats st;
            memset(&co, 0, sizeof co);
            co.round = o->round;
            co.overflow = MF_OVERFLOW_SATURATE;
            co.seed = o->seed;
            co.sr_offset = o->sr_offset + (uint64_t)i0;
            co.stats = o->stats ? &st : NULL;
            if (type == MF_MXFP4_E2M1)
                (void)mf_convert(t->fmt, out + i0 / 2, MF_FP32, v, m, &co);
            else if (flags & MF_MX_FP6_PACKED) {
                (void)mf_convert(t->fmt, codes, MF_FP32, v, m, &co);
                (void)mf_fp6_pack(out + i0 / 4 * 3, codes, m);
            } else
                (void)mf_convert(t->fmt, out + i0, MF_FP32, v, m, &co);
            if (o->stats)
                mf__stats_sum(&total, &st);
        }
    }
    if (o->stats)
        *o->stats = total;
    return MF_OK;
}

/* ---- dequantize ---------------------------------------------------------------------------------- */

/* 2^e as binary32, e in [-149, 127]. */
static float pow2f(int e)
{
    return mf__f32_from_bits(e >= -126 ? (uint32_t)(e + 127) << 23 : 1u << (e + 149));
}

static unsigned read_code(mf_mx_type type, unsigned flags, const uint8_t *p, size_t i)
{
    if (type == MF_MXFP4_E2M1)
        return (p[i / 2] >> (4 * (i & 1))) & 0xFu;
    if (flags & MF_MX_FP6_PACKED) {
        const size_t bit = 6 * i;
        const unsigned sh = (unsigned)(bit & 7);
        unsigned w = p[bit / 8];
        if (sh > 2) /* the code runs into the next byte */
            w |= (unsigned)p[bit / 8 + 1] << 8;
        return (w >> sh) & 0x3Fu;
    }
    if (is_fp6(type))
        return p[i] & 0x3Fu;
    return p[i];
}

int mf_mx_dequantize(mf_mx_type type, mf_mx_axis axis, unsigned flags, const void *elems, const uint8_t *scales,
                     size_t rows, size_t cols, float *y)
{
    mx_info ti;
    const mx_info *t = &ti;
    const uint8_t *in = (const uint8_t *)elems;
    float lut[256];
    size_t n, eb, i, r = 0, c = 0;
    unsigned code;
    int rc = mx_check(type, axis, flags, rows, cols, &n);

    if (rc != MF_OK)
        return rc;
    if (n == 0)
        return MF_OK;
    if (!elems || !scales || !y)
        return MF_E_NULL;
    eb = elem_bytes(type, flags, n);
    if (mf__ranges_overlap(y, n * sizeof(float), elems, eb) || mf__ranges_overlap(y, n * sizeof(float), scales, n / MF_MX_BLOCK))
        return MF_E_OVERLAP;

    ti = mx_get(type);
    /* Exact element values; MXINT8 as the integer (its 2^-6 joins the scale's exponent below). */
    for (code = 0; code < 256; code++)
        lut[code] = type == MF_MXINT8 ? (float)((int)(code ^ 0x80u) - 128) : mf_to_f32(t->fmt, code);

    for (i = 0; i < n; i++) {
        const unsigned k8 = axis == MF_MX_ROWWISE ? scales[r * (cols / MF_MX_BLOCK) + c / MF_MX_BLOCK]
                                                  : scales[(r / MF_MX_BLOCK) * cols + c];
        if (k8 == 0xFF)
            y[i] = mf__f32_from_bits(MF__F32_DEFAULT_NAN);
        else
            y[i] = mf__f32_mul(lut[read_code(type, flags, in, i)], pow2f((int)k8 - 127 - (type == MF_MXINT8 ? 6 : 0)));
        if (++c == cols) {
            c = 0;
            r++;
        }
    }
    return MF_OK;
}

/* ---- FP6 packing ---------------------------------------------------------------------------------- */

/* Argument checks of mf_fp6_pack (packing = 1: dst holds (6n + 7) / 8 bytes, src n) and unpack. */
static int fp6_args(const uint8_t *dst, const uint8_t *src, size_t n, int packing)
{
    size_t packed, bytes;
    if (n == 0)
        return MF_OK;
    if (!dst || !src)
        return MF_E_NULL;
    if (!mf__span_ok(packing ? src : dst, n, 1, &bytes)) /* the packed side is shorter */
        return MF_E_SIZE;
    packed = (6 * n + 7) / 8;
    if ((uintptr_t)(packing ? dst : src) > UINTPTR_MAX - packed)
        return MF_E_SIZE;
    if (mf__ranges_overlap(dst, packing ? packed : n, src, packing ? n : packed))
        return MF_E_OVERLAP;
    return MF_OK;
}

int mf_fp6_pack(uint8_t *dst, const uint8_t *src, size_t n)
{
    size_t j, k;
    int rc = fp6_args(dst, src, n, 1);
    if (rc != MF_OK || n == 0)
        return rc;
    for (j = 0, k = 0; j + 4 <= n; j += 4, k += 3) {
        const uint32_t w = (uint32_t)(src[j] & 0x3Fu) | (uint32_t)(src[j + 1] & 0x3Fu) << 6 |
                           (uint32_t)(src[j + 2] & 0x3Fu) << 12 | (uint32_t)(src[j + 3] & 0x3Fu) << 18;
        dst[k] = (uint8_t)w;
        dst[k + 1] = (uint8_t)(w >> 8);
        dst[k + 2] = (uint8_t)(w >> 16);
    }
    if (j < n) { /* a partial group of 1..3 codes: (6 * left + 7) / 8 bytes, high bits 0 */
        uint32_t w = 0;
        size_t left = n - j, q;
        for (q = 0; q < left; q++)
            w |= (uint32_t)(src[j + q] & 0x3Fu) << (6 * q);
        for (q = 0; q < (6 * left + 7) / 8; q++)
            dst[k + q] = (uint8_t)(w >> (8 * q));
    }
    return MF_OK;
}

int mf_fp6_unpack(uint8_t *dst, const uint8_t *src, size_t n)
{
    size_t j, k;
    int rc = fp6_args(dst, src, n, 0);
    if (rc != MF_OK || n == 0)
        return rc;
    for (j = 0, k = 0; j + 4 <= n; j += 4, k += 3) {
        const uint32_t w = (uint32_t)src[k] | (uint32_t)src[k + 1] << 8 | (uint32_t)src[k + 2] << 16;
        dst[j] = (uint8_t)(w & 0x3Fu);
        dst[j + 1] = (uint8_t)((w >> 6) & 0x3Fu);
        dst[j + 2] = (uint8_t)((w >> 12) & 0x3Fu);
        dst[j + 3] = (uint8_t)((w >> 18) & 0x3Fu);
    }
    if (j < n) {
        uint32_t w = 0;
        size_t left = n - j, q;
        for (q = 0; q < (6 * left + 7) / 8; q++)
            w |= (uint32_t)src[k + q] << (8 * q);
        for (q = 0; q < left; q++)
            dst[j + q] = (uint8_t)((w >> (6 * q)) & 0x3Fu);
    }
    return MF_OK;
}
