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

/* Facts of each element type, derived from the format table: max is the largest element magnitude,
 * emax the exponent of the largest power of two not above it: the "emax_elem" of the spec's scale
 * formula (microsoft/microxcaling mx/formats.py gives the same values: e4m3 8, e5m2 15, e2m3 2,
 * e3m2 4, e2m1 2, int8 0). MXINT8 has no mf_format; MF_FP32 marks it (max 127 * 2^-6). */
typedef struct {
    mf_format fmt;
    int emax;
    float max;
} mx_info;

static const mf_format mx_formats[MF_MX_TYPE_COUNT] = {MF_FP8_E4M3, MF_FP8_E5M2, MF_FP6_E2M3,
                                                       MF_FP6_E3M2, MF_FP4_E2M1, MF_FP32};

static mx_info mx_get(mf_mx_type type)
{
    mx_info t;
    uint32_t b;
    t.fmt = mx_formats[type];
    b = t.fmt == MF_FP32 ? 0x3FFE0000u /* 1.984375 */
                         : mf__decode_f32_bits(t.fmt, (uint32_t)mf__fmt_max_code(mf__fmt_get(t.fmt)));
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

/* The E8M0 code for a block whose largest magnitude has the binary32 bits mag (sign cleared; a NaN
 * or inf anywhere in the block makes mag >= 0x7F800000, since those bit patterns sort above every
 * finite magnitude). rcp = 1 / max_elem rounded to binary32. */
static unsigned scale_code(const mx_info *t, mf_mx_scale_rule rule, uint32_t mag, float rcp)
{
    int e;
    if (mag >= 0x7F800000u) /* OCP MX 6.3 / microxcaling: Inf or NaN in the block -> X = NaN */
        return 0xFF;
    if (rule == MF_MX_SCALE_RCEIL)
        /* TE: float_to_e8m0(amax * Quantized_Limits<T>::max_norm_rcp) with max_norm_rcp =
         * (float)(1.0 / max_norm), i.e. cvt.rp.satfinite.ue8m0x2.f32 of the binary32 product; its
         * software fallback (0 -> 0x00, ceil on the exponent, 0xFE cap, subnormals rounded up) is
         * exactly our e8m0 ru-saturating conversion. The product is rounded to binary32 first, as on
         * the GPU. */
        return mf_from_f32(MF_E8M0, mf__f32_mul(mf__f32_from_bits(mag), rcp), MF_ROUND_UP, MF_OVERFLOW_SATURATE, 0);
    if (mag == 0) /* log2(0) = -inf: clamps to the smallest scale */
        return 0;
    /* floor(log2 amax): the unbiased exponent; for an f32 subnormal, the position of its top bit */
    e = mag >= 0x00800000u ? (int)(mag >> 23) - 127 : 63 - mf__clz64(mag) - 149;
    e -= t->emax;
    /* clamp to E8M0's [-127, 127]; e <= 127 - emax already for finite amax */
    return e < -127 ? 0u : (unsigned)(e + 127);
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

/* x * 2^e for a finite x (bits b), |e| <= 127, as binary32 bits.
 *
 * The result is exact whenever it is zero or a normal binary32: a power-of-two scaling only moves
 * the exponent. The one inexact case of a binary32 multiplication, a product below 2^-126 (an f32
 * subnormal, or zero after rounding), comes back as a signed zero with *tiny set. That cannot change
 * the MX element: the smallest nonzero element magnitude of every type is at least 2^-16 (e5m2's
 * subnormal; e4m3 2^-9, FP6 2^-3 and 2^-4, e2m1 2^-1, MXINT8 2^-6), so
 *   rn: a magnitude below 2^-126 is below half that, and rounds to a zero of x's sign;
 *   sr: the discarded fraction f = |q| / 2^-16 < 2^-110 truncates to 0 in 32 bits, and the rule
 *       "up iff f * 2^32 + rbits >= 2^32" never fires, so the result is that zero too.
 * The caller counts the underflow and inexact events the conversion of the zero cannot see, so the
 * statistics are those of the exact quotient. x * 2^e never overflows here: |x| <= amax and the scale
 * rules give amax * 2^e < 2^(emax+1) (FLOOR) or <= max_elem (RCEIL, up to one binary32 rounding). */
static uint32_t scale_pow2(uint32_t b, int e, int *tiny)
{
    const uint32_t s = b & 0x80000000u;
    uint32_t m = b & 0x007FFFFFu;
    int ex = (int)((b >> 23) & 0xFFu);
    if ((b & 0x7FFFFFFFu) == 0)
        return b;
    if (ex == 0) { /* subnormal input: normalise (value m * 2^-149) */
        int sh = mf__clz64(m) - 40; /* bring the top bit to bit 23 */
        m = (m << sh) & 0x007FFFFFu;
        ex = 1 - sh;
    }
    ex += e;
    if (ex < 1) {
        *tiny = 1;
        return s;
    }
    if (ex > 254) /* unreachable (see above); +-inf then saturates */
        return s | 0x7F800000u;
    return s | (uint32_t)ex << 23 | m;
}

/* The MXINT8 code of x / 2^k: |x| * 2^(6-k) rounded to an integer (rn: ties to even; sr: up iff the
 * discarded fraction, truncated to 32 bits, plus rbits reaches 2^32, the library's rule) and clamped
 * to 127; two's complement with x's sign (a zero result is 0x00). Events go to *st. */
static uint8_t int8_code(uint32_t b, int k, mf_round rmode, uint32_t rbits, mf_stats *st)
{
    const uint32_t a = b & 0x7FFFFFFFu;
    uint32_t M, mag;
    int t, inexact;
    if (a == 0)
        return 0;
    if (a >= 0x00800000u) {
        M = (a & 0x007FFFFFu) | 0x00800000u;
        t = (int)(a >> 23) - 150;
    } else {
        M = a;
        t = -149;
    }
    t += 6 - k; /* |x| * 2^(6-k) = M * 2^t, M < 2^24 */
    if (t >= 0) {
        mag = t >= 8 ? 128u : M << t; /* >= 128 saturates anyway */
        inexact = 0;
    } else {
        const unsigned sh = (unsigned)-t;
        const uint32_t ip = sh < 32 ? M >> sh : 0u;
        const uint64_t rem = sh < 32 ? (uint64_t)(M & ((1u << sh) - 1u)) : (uint64_t)M;
        uint32_t frac32; /* discarded fraction, truncated to 32 bits */
        if (sh <= 32)
            frac32 = (uint32_t)(rem << (32 - sh));
        else
            frac32 = sh - 32 < 64 ? (uint32_t)(rem >> (sh - 32)) : 0u;
        inexact = rem != 0;
        if (rmode == MF_ROUND_STOCHASTIC)
            mag = ip + (uint32_t)(((uint64_t)frac32 + rbits) >> 32);
        else /* a fraction with sh > 32 is below 2^-8, never a tie or above it */
            mag = ip + (sh <= 32 && (frac32 > 0x80000000u || (frac32 == 0x80000000u && (ip & 1u))));
    }
    if (mag > 127) {
        mag = 127;
        st->overflow++;
        inexact = 1;
    }
    if (mag == 0)
        st->underflow++;
    st->inexact += (uint64_t)inexact;
    return (uint8_t)(b >> 31 ? (0x100u - mag) & 0xFFu : mag);
}

static void add_stats(mf_stats *to, const mf_stats *from)
{
    to->overflow += from->overflow;
    to->underflow += from->underflow;
    to->subnormal += from->subnormal;
    to->nan += from->nan;
    to->inexact += from->inexact;
}

int mf_mx_quantize(mf_mx_type type, mf_mx_scale_rule rule, mf_mx_axis axis, unsigned flags, const float *x,
                   size_t rows, size_t cols, void *elems, uint8_t *scales, const mf_opts *opts)
{
    static const mf_opts defaults = {MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0, 0, NULL, 0};
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
    if ((unsigned)o->overflow >= MF_OVERFLOW_COUNT)
        return MF_E_POLICY;
    if (o->threads < 0)
        return MF_E_ARG;
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
            uint32_t q = k8 == 0xFF ? 0u : scale_pow2(mf__f32_bits(x[i0 + j]), 127 - (int)k8, &tiny);
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
                add_stats(&total, &st);
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
