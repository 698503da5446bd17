/* SPDX-License-Identifier: MIT */
/* src/lab/elementwise.c - exp, tanh, sigmoid, SiLU, GELU, softmax and log-softmax as mixed-precision
 * training kernels compute them: widen to binary32, evaluate in binary32, round once into the target.
 * Contract: include/minifloat/elementwise.h; formulas, errors and determinism: docs/overflow.md.
 *
 * Blocks of EW_BLOCK elements are decoded into binary32 with mf_convert (exact, or rn from f64),
 * evaluated in place, and rounded into the destination with mf_convert (so the bits and the events are
 * those of the scalar conversions of the binary32 results). The evaluation runs in the default floating
 * point environment (round to nearest, no FTZ/DAZ, exceptions masked) and the caller's is restored:
 * SLEEF's results change under other MXCSR settings (docs/overflow.md). */
#include <fenv.h>
#include <math.h>
#include <string.h>

#include "../internal.h"
#include "minifloat/elementwise.h"
#include "../vmath.h"

/* Every formula below is written as the kernels write it, one binary32 operation at a time; no fused
 * multiply-add may be formed (C99 mode: GCC does not contract; clang honours the pragma). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

enum { EW_BLOCK = 512 }; /* elements per block: 2 KiB of binary32 per buffer */

/* PyTorch's constants rounded to binary32, written as exact binary32 values:
 * M_SQRT1_2, M_SQRT2 * M_2_SQRTPI * 0.5 (sqrt(2/pi)) and 0.044715. */
static const float k_alpha = 0x1.6a09e6p-1f; /* 0.70710677 (0x3F3504F3) */
static const float k_beta = 0x1.988454p-1f;  /* 0.79788458 (0x3F4C422A) */
static const float k_kappa = 0x1.6e4e26p-5f; /* 0.044715   (0x3D372713) */

static const mf_opts ew_defaults = {MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0, 0, NULL, 0, MF_PROFILE_DEFAULT};

/* ---- arrays ------------------------------------------------------------------------------------------ */

/* Storage width of one element in bits (4: two per byte, as e2m1). */
static unsigned elem_bits(mf_format f) { return (unsigned)mf__fmt_store_bits(f); }

/* Is f packed two elements a byte? */
static int packed(mf_format f) { return mf__fmt_store_bits(f) == 4; }

/* Byte offset of element a (a even for packed formats). */
static size_t byte_offset(mf_format f, size_t a) { return packed(f) ? a / 2 : a * mf_storage_bytes(f, 1); }

/* Elements [a, a + m) of an array of format f, as binary32 (m <= EW_BLOCK). */
static void load_f32(float *out, mf_format f, const void *p, size_t a, size_t m)
{
    if (f == MF_FP32) {
        memcpy(out, (const float *)p + a, m * sizeof(float));
    } else if (packed(f) && (a & 1)) { /* starts in a high nibble: decode from the byte's start */
        float t[EW_BLOCK + 1];
        (void)mf_convert(MF_FP32, t, f, (const uint8_t *)p + a / 2, m + 1, NULL);
        memcpy(out, t + 1, m * sizeof(float));
    } else {
        (void)mf_convert(MF_FP32, out, f, (const uint8_t *)p + byte_offset(f, a), m, NULL);
    }
}

/* Round m binary32 values into elements [a, a + m) of an array of format f as mf_convert does (element
 * a + j uses stream index sr_offset + a + j); adds the events to *acc when counting. */
static void store_rounded(mf_format f, void *p, size_t a, const float *in, size_t m, const mf_opts *o,
                          mf_stats *acc)
{
    mf_opts po = *o;
    mf_stats st;
    po.sr_offset = o->sr_offset + a;
    po.stats = o->stats ? &st : NULL;
    po.threads = 0;
    if (packed(f) && (a & 1)) { /* starts in a high nibble: round into a buffer, move the nibbles */
        uint8_t t[EW_BLOCK / 2 + 1], *d = (uint8_t *)p;
        size_t j;
        (void)mf_convert(f, t, MF_FP32, in, m, &po);
        for (j = 0; j < m; j++) {
            unsigned c = (unsigned)(t[j / 2] >> (4 * (j & 1))) & 0xFu;
            size_t k = a + j;
            d[k / 2] = (uint8_t)((k & 1) ? (d[k / 2] & 0x0Fu) | (c << 4) : (d[k / 2] & 0xF0u) | c);
        }
    } else {
        (void)mf_convert(f, (uint8_t *)p + byte_offset(f, a), MF_FP32, in, m, &po);
    }
    if (o->stats)
        mf__stats_sum(acc, &st);
}

/* Arguments shared by both entry points (after the enum and option checks). */
static int check_arrays(mf_format d, const void *dst, mf_format s, const void *src, size_t n)
{
    size_t db, sb;
    if (!dst || !src)
        return MF_E_NULL;
    if (!mf__span_fmt_ok(d, dst, n, &db) || !mf__span_fmt_ok(s, src, n, &sb))
        return MF_E_SIZE;
    /* in place: element i is read before element i is written, and never read again */
    if (mf__ranges_overlap(dst, db, src, sb) && !(dst == src && elem_bits(d) == elem_bits(s)))
        return MF_E_OVERLAP;
    return MF_OK;
}

/* ---- the unary operations ---------------------------------------------------------------------------- */

static float canonical_nan(float y)
{
    static const uint32_t qnan = 0x7FC00000u;
    float q;
    if (y == y)
        return y;
    memcpy(&q, &qnan, sizeof q);
    return q;
}

/* x[0..m) <- op(x) in binary32; t is scratch. */
static void eval_unary(mf_unary_op op, float *x, float *t, size_t m)
{
    size_t i;
    switch (op) {
    case MF_UNARY_EXP:
        mf__vm_exp(x, x, m);
        break;
    case MF_UNARY_TANH:
        mf__vm_tanh(x, x, m);
        break;
    case MF_UNARY_SIGMOID: /* PyTorch CPU and CUDA: 1 / (1 + exp(-x)) */
        for (i = 0; i < m; i++)
            t[i] = -x[i];
        mf__vm_exp(t, t, m);
        for (i = 0; i < m; i++)
            x[i] = 1.0f / (1.0f + t[i]);
        break;
    case MF_UNARY_SILU: /* PyTorch CPU and CUDA: x / (1 + exp(-x)); at -inf that is -inf/inf */
        for (i = 0; i < m; i++)
            t[i] = -x[i];
        mf__vm_exp(t, t, m);
        for (i = 0; i < m; i++)
            x[i] = x[i] == -INFINITY ? -0.0f : x[i] / (1.0f + t[i]);
        break;
    case MF_UNARY_GELU: /* PyTorch: x * 0.5 * (1 + erf(x * M_SQRT1_2)); at -inf that is -inf * 0 */
        for (i = 0; i < m; i++)
            t[i] = x[i] * k_alpha;
        mf__vm_erf(t, t, m);
        for (i = 0; i < m; i++)
            x[i] = x[i] == -INFINITY ? -0.0f : (x[i] * 0.5f) * (1.0f + t[i]);
        break;
    case MF_UNARY_GELU_TANH: /* PyTorch: 0.5 * x * (1 + tanh(kBeta * (x + kKappa * x * x * x))) */
        for (i = 0; i < m; i++)
            t[i] = k_beta * (x[i] + k_kappa * (x[i] * x[i] * x[i]));
        mf__vm_tanh(t, t, m);
        for (i = 0; i < m; i++)
            x[i] = x[i] == -INFINITY ? -0.0f : (0.5f * x[i]) * (1.0f + t[i]);
        break;
    }
    for (i = 0; i < m; i++)
        x[i] = canonical_nan(x[i]);
}

int mf_unary(mf_unary_op op, mf_format dst_fmt, void *dst, mf_format src_fmt, const void *src, size_t n,
             const mf_opts *opts)
{
    const mf_opts *o = opts ? opts : &ew_defaults;
    float x[EW_BLOCK], t[EW_BLOCK];
    mf_stats acc;
    fenv_t env;
    size_t a, m;
    int rc = mf__check_convert_args(dst_fmt, src_fmt, o);

    if (rc != MF_OK)
        return rc;
    if ((unsigned)op >= MF_UNARY_COUNT)
        return MF_E_ARG;
    memset(&acc, 0, sizeof acc);
    if (n > 0 && (rc = check_arrays(dst_fmt, dst, src_fmt, src, n)) != MF_OK)
        return rc;

    fegetenv(&env);
    fesetenv(FE_DFL_ENV);
    for (a = 0; a < n; a += m) {
        m = n - a < EW_BLOCK ? n - a : EW_BLOCK;
        load_f32(x, src_fmt, src, a, m);
        eval_unary(op, x, t, m);
        store_rounded(dst_fmt, dst, a, x, m, o, &acc);
    }
    fesetenv(&env);
    if (o->stats)
        *o->stats = acc;
    return MF_OK;
}

/* ---- softmax ----------------------------------------------------------------------------------------- */

/* One row: elements [a, a + cols) (cols > 0). A row that fits in one block is decoded once; a longer row
 * is read three times (max, sum, output) and its exponentials computed twice, with the same bits. */
static void softmax_row(int lg, mf_format d, void *dst, mf_format s, const void *src, size_t a, size_t cols,
                        const mf_opts *o, mf_stats *acc)
{
    float x[EW_BLOCK], e[EW_BLOCK];
    const int whole = cols <= EW_BLOCK;
    float m = -INFINITY, ek = 1.0f;
    double part[4] = {0.0, 0.0, 0.0, 0.0}, rest, sum = 0.0, lsum = 0.0;
    size_t k = 0, c, j, w;
    int nan = 0;

    /* pass 1: the maximum and its first position */
    for (c = 0; c < cols; c += w) {
        w = cols - c < EW_BLOCK ? cols - c : EW_BLOCK;
        load_f32(x, s, src, a + c, w);
        for (j = 0; j < w; j++) {
            if (x[j] != x[j])
                nan = 1;
            else if (x[j] > m) {
                m = x[j];
                k = c + j;
            }
        }
    }
    if (nan || m == INFINITY || m == -INFINITY) { /* NaN, inf - inf, or -inf - -inf: all NaN (as PyTorch) */
        for (j = 0; j < EW_BLOCK && j < cols; j++)
            e[j] = canonical_nan(NAN);
        for (c = 0; c < cols; c += w) {
            w = cols - c < EW_BLOCK ? cols - c : EW_BLOCK;
            store_rounded(d, dst, a + c, e, w, o, acc);
        }
        return;
    }

    /* pass 2: e_c = exp(x_c - m) in binary32; the sum in binary64, the maximum's term kept apart */
    for (c = 0; c < cols; c += w) {
        w = cols - c < EW_BLOCK ? cols - c : EW_BLOCK;
        if (!whole)
            load_f32(x, s, src, a + c, w);
        for (j = 0; j < w; j++)
            e[j] = x[j] - m;
        mf__vm_exp(e, e, w);
        for (j = 0; j < w; j++) {
            if (c + j == k)
                ek = e[j];
            else
                part[(c + j) & 3] += e[j];
        }
    }
    rest = (part[0] + part[1]) + (part[2] + part[3]);
    if (lg)
        lsum = mf__vm_log1p(((double)ek - 1.0) + rest); /* ek = exp(0) = 1: log(S) without losing rest */
    else
        sum = (double)ek + rest;

    /* pass 3: the outputs */
    for (c = 0; c < cols; c += w) {
        w = cols - c < EW_BLOCK ? cols - c : EW_BLOCK;
        if (!whole) {
            load_f32(x, s, src, a + c, w);
            if (!lg) {
                for (j = 0; j < w; j++)
                    e[j] = x[j] - m;
                mf__vm_exp(e, e, w);
            }
        }
        if (lg)
            for (j = 0; j < w; j++)
                e[j] = (float)(((double)x[j] - (double)m) - lsum);
        else
            for (j = 0; j < w; j++)
                e[j] = (float)((double)e[j] / sum);
        store_rounded(d, dst, a + c, e, w, o, acc);
    }
}

int mf_softmax(int log, mf_format dst_fmt, void *dst, mf_format src_fmt, const void *src, size_t rows,
               size_t cols, const mf_opts *opts)
{
    const mf_opts *o = opts ? opts : &ew_defaults;
    mf_stats acc;
    fenv_t env;
    size_t n, r;
    int rc = mf__check_convert_args(dst_fmt, src_fmt, o);

    if (rc != MF_OK)
        return rc;
    if (log != 0 && log != 1)
        return MF_E_ARG;
    if (!mf__count2_ok(rows, cols, &n))
        return MF_E_SIZE;
    memset(&acc, 0, sizeof acc);
    if (n > 0 && (rc = check_arrays(dst_fmt, dst, src_fmt, src, n)) != MF_OK)
        return rc;

    fegetenv(&env);
    fesetenv(FE_DFL_ENV);
    for (r = 0; r < rows && n > 0; r++)
        softmax_row(log, dst_fmt, dst, src_fmt, src, r * cols, cols, o, &acc);
    fesetenv(&env);
    if (o->stats)
        *o->stats = acc;
    return MF_OK;
}

/* ---- names ------------------------------------------------------------------------------------------- */

static const char *const unary_names[MF_UNARY_COUNT] = {"exp", "tanh", "sigmoid", "silu", "gelu", "gelu_tanh"};

const char *mf_unary_name(mf_unary_op op) { return (unsigned)op < MF_UNARY_COUNT ? unary_names[op] : NULL; }

int mf_unary_from_name(const char *name, mf_unary_op *out)
{
    unsigned i;
    if (!name || !out)
        return MF_E_NULL;
    for (i = 0; i < MF_UNARY_COUNT; i++) {
        const char *a = name, *b = unary_names[i];
        for (; *a && *b; a++, b++)
            if ((*a >= 'A' && *a <= 'Z' ? *a - 'A' + 'a' : *a) != *b)
                break;
        if (!*a && !*b) {
            *out = (mf_unary_op)i;
            return MF_OK;
        }
    }
    return MF_E_ARG;
}

const char *mf_elementwise_math(void) { return MF__VM_NAME; }
