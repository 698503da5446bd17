/* SPDX-License-Identifier: MIT */
/* tests/test_elementwise.c - the elementwise operations (minifloat/elementwise.h), unit tier.
 *
 * References, in binary64 with the C library, share no code with src/lab/elementwise.c:
 *   exp(x), tanh(x), 1 / (1 + exp(-x)), x / (1 + exp(-x)), GELU as 0.5 x erfc(-x / sqrt 2) (no cancellation
 *   in the negative tail), the tanh approximation as x / (1 + exp(-2u)) with u = sqrt(2/pi)(x + 0.044715 x^3)
 *   (= 0.5 x (1 + tanh u) without cancellation), softmax from the exact maximum with binary64 exp and log.
 *
 * Each result is checked against an error bound computed at that input from the formula alone (first-order
 * error analysis of PyTorch's binary32 expression: each binary32 operation adds a relative 2^-24, each math
 * function F ULPs, and the input error of a function is carried through its derivative); docs/overflow.md
 * derives them. Errors are reported in units in the last place (ULP) of the reference, in binary32 and in
 * the destination format. `test_elementwise --report` prints the measured tables; `--report --exhaustive`
 * measures the binary32 tables on every binary32 input (minutes).
 */
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mf_test.h"
#include <minifloat/lab.h>

#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#define HAVE_MXCSR 1
#endif

/* The expressions of test_formulas are PyTorch's binary32 operations one by one: no contraction into FMA
 * (C99 mode: GCC does not contract; clang honours the pragma). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#define SQRT1_2 0.70710678118654752440
#define SQRT_2_OVER_PI 0.79788456080286535588
#define TWO_OVER_SQRTPI 1.12837916709551257390
#define U32 5.9604644775390625e-08 /* 2^-24: the unit roundoff of binary32 */
#define TINY32 1.401298464324817e-45 /* 2^-149 */

/* ---- helpers ------------------------------------------------------------------------------------------ */

static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint64_t rnd64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static double rnd_unit(void) { return (double)(rnd64() >> 11) / 9007199254740992.0; } /* [0, 1) */
static double rnd_normal(void)                                                           /* Box-Muller */
{
    double a = rnd_unit(), b = rnd_unit();
    return sqrt(-2.0 * log(1.0 - a)) * cos(6.283185307179586 * b);
}

/* Floats in order: ord(-x) = -ord(x), ord(+-0) = 0. */
static int64_t ord_of(float f)
{
    uint32_t u = mf_test_f32_bits(f);
    return (u >> 31) ? -(int64_t)(u & 0x7FFFFFFFu) : (int64_t)u;
}
static float float_of_ord(int64_t k)
{
    return k < 0 ? mf_test_bits_f32(0x80000000u | (uint32_t)-k) : mf_test_bits_f32((uint32_t)k);
}

/* Code i of an array in format f (the layouts of minifloat/convert.h). */
static uint64_t load_code(mf_format f, const void *p, size_t i)
{
    const uint8_t *b = (const uint8_t *)p;
    uint64_t c = 0;
    switch (f) {
    case MF_FP64: memcpy(&c, b + 8 * i, 8); return c;
    case MF_FP32: {
        uint32_t u;
        memcpy(&u, b + 4 * i, 4);
        return u;
    }
    case MF_FP16:
    case MF_BF16: {
        uint16_t h;
        memcpy(&h, b + 2 * i, 2);
        return h;
    }
    case MF_FP4_E2M1: return (uint64_t)(b[i / 2] >> (4 * (i & 1))) & 0xFu;
    default: /* one byte a code, or two codes a byte (binary4p2sf) */
        return mf_storage_bytes(f, 2) == 1 ? (uint64_t)(b[i / 2] >> (4 * (i & 1))) & 0xFu : b[i];
    }
}

/* The value of code i of an array in format f, in binary64 (exact). */
static double load_value(mf_format f, const void *p, size_t i)
{
    uint64_t c = load_code(f, p, i);
    if (f == MF_FP64)
        return mf_test_bits_f64(c);
    return mf_to_f64(f, (uint32_t)c);
}

/* ---- the math library's function errors, in binary32 ULPs ----------------------------------------------------
 * SLEEF's u10 functions: at most 1.0 ULP (SLEEF's documented bound). The C library (builds without SLEEF):
 * the binary64 function rounded to binary32, 0.5 ULP and a hair. */
static const double F_exp = 1.0, F_tanh = 1.0, F_erf = 1.0;

/* ---- references and bounds ----------------------------------------------------------------------------- */

static double ref_unary(mf_unary_op op, double x)
{
    double w;
    switch (op) {
    case MF_UNARY_EXP: return exp(x);
    case MF_UNARY_TANH: return tanh(x);
    case MF_UNARY_SIGMOID: return 1.0 / (1.0 + exp(-x));
    case MF_UNARY_SILU: return x == -INFINITY ? -0.0 : x / (1.0 + exp(-x));
    case MF_UNARY_GELU: return x == -INFINITY ? -0.0 : 0.5 * x * erfc(-x * SQRT1_2);
    case MF_UNARY_GELU_TANH:
        if (x == -INFINITY)
            return -0.0;
        w = SQRT_2_OVER_PI * (x + 0.044715 * x * x * x);
        return x / (1.0 + exp(-2.0 * w));
    }
    return NAN;
}

/* A format's facts, written out again: explicit mantissa bits, exponent of the smallest normal, max. */
typedef struct {
    mf_format fmt;
    const char *name;
    int man, emin;
    double max;
} fmtinfo;

static const fmtinfo F32 = {MF_FP32, "f32", 23, -126, 3.4028234663852886e38};
static const fmtinfo DSTS[] = {
    {MF_FP16, "f16", 10, -14, 65504.0},
    {MF_BF16, "bf16", 7, -126, 3.3895313892515355e38},
    {MF_FP8_E4M3, "e4m3", 3, -6, 448.0},
    {MF_FP8_E5M2, "e5m2", 2, -14, 57344.0},
};
#define NDSTS (sizeof DSTS / sizeof DSTS[0])

static double ulp_of(double r, const fmtinfo *f)
{
    int e;
    r = fabs(r);
    if (r > f->max)
        r = f->max;
    if (r == 0.0)
        return ldexp(1.0, f->emin - f->man);
    (void)frexp(r, &e);
    e -= 1; /* |r| in [2^e, 2^(e+1)) */
    if (e < f->emin)
        e = f->emin;
    return ldexp(1.0, e - f->man);
}

/* Exact values at or beyond which binary32 round-to-nearest gives inf: max + half an ULP. */
static const double OVF32 = 3.4028235677973366e38; /* 2^128 - 2^103 */

/* The error bound of the binary32 formula at x: |y - r| <= *B, where r = ref_unary(op, x); *inf_ok and
 * *zero_ok where the exact intermediate is within the function's error of binary32 overflow, so that an
 * infinite exp (and the inf or 0 that follows from it) is also correct. */
typedef struct {
    double B;
    int inf_ok, zero_ok;
} bound_t;

static bound_t bound_unary(mf_unary_op op, double x)
{
    const double u = U32;
    bound_t b = {0.0, 0, 0};
    double r = ref_unary(op, x), t, z, eta, w, th, one_plus;
    switch (op) {
    case MF_UNARY_EXP:
        b.B = F_exp * ulp_of(r, &F32);
        b.inf_ok = r >= OVF32 * (1.0 - 2.0 * u * F_exp);
        break;
    case MF_UNARY_TANH:
        b.B = F_tanh * ulp_of(r, &F32);
        break;
    case MF_UNARY_SIGMOID: /* t = exp(-x): 2uF relative, carried by t / (1 + t); then + and / */
    case MF_UNARY_SILU:
        t = exp(-x);
        b.B = fabs(r) * (2.0 * u * F_exp * (isinf(t) ? 1.0 : t / (1.0 + t)) + 2.0 * u) + 2.0 * TINY32;
        if (t >= OVF32 * (1.0 - 2.0 * u * F_exp)) { /* exp(-x) may be inf: the result 0 */
            b.zero_ok = 1;
            if (fabs(r) > b.B)
                b.B = fabs(r);
        }
        break;
    case MF_UNARY_GELU: /* (x * 0.5) * (1 + erf(x * alpha)), alpha = (float)(1/sqrt 2) */
        z = x * SQRT1_2;
        eta = u + fabs((double)(float)SQRT1_2 / SQRT1_2 - 1.0); /* relative error of x * alpha */
        one_plus = erfc(-z);                                     /* 1 + erf(z) */
        b.B = 0.5 * fabs(x) *
                  (TWO_OVER_SQRTPI * exp(-z * z) * fabs(z) * eta + 2.0 * u * F_erf * fabs(erf(z)) +
                   2.0 * u * one_plus) +
              2.0 * TINY32;
        break;
    case MF_UNARY_GELU_TANH: /* (0.5 * x) * (1 + tanh(beta * (x + kappa * (x * x * x)))) */
        w = SQRT_2_OVER_PI * (x + 0.044715 * x * x * x);
        /* x^3: 2u; kappa: constant + u; the sum of same-sign terms: u; beta: constant + u */
        eta = 5.0 * u + fabs((double)(float)0.044715 / 0.044715 - 1.0) +
              fabs((double)(float)SQRT_2_OVER_PI / SQRT_2_OVER_PI - 1.0);
        th = tanh(w);
        one_plus = 2.0 / (1.0 + exp(-2.0 * w)); /* 1 + tanh(w) */
        {
            double ch = cosh(w), sech2 = isinf(ch) ? 0.0 : 1.0 / (ch * ch);
            b.B = 0.5 * fabs(x) *
                      (sech2 * fabs(w) * eta + 2.0 * u * F_tanh * fabs(th) + 2.0 * u * one_plus) +
                  2.0 * TINY32;
        }
        break;
    }
    b.B *= 1.0 + 1e-6; /* second-order terms */
    return b;
}

/* Is the binary32 result y of op at x within the bound? */
static int within_unary(mf_unary_op op, float x, float y)
{
    double r = ref_unary(op, x);
    bound_t b;
    if (isnan(x))
        return isnan(y);
    if (isinf(x)) /* the limits, exactly */
        return (double)y == r && !signbit(y) == !signbit(r);
    b = bound_unary(op, x);
    if (isinf(y))
        return b.inf_ok && y > 0;
    if (y == 0.0f && b.zero_ok)
        return 1;
    return fabs((double)y - r) <= b.B;
}

/* |y - r| in ULPs of r in format f; an infinite y counts as the first value past max. */
static double err_ulps(double y, double r, const fmtinfo *f)
{
    if (isnan(r) || isnan(y))
        return isnan(r) && isnan(y) ? 0.0 : INFINITY;
    if (isinf(r))
        return y == r ? 0.0 : INFINITY;
    if (isinf(y)) {
        if (fabs(r) >= f->max + 0.5 * ulp_of(f->max, f) && (y > 0) == (r > 0))
            return 0.0; /* rounds to inf: correct */
        y = copysign(f->max + ulp_of(f->max, f), y);
    }
    return fabs(y - r) / ulp_of(r, f);
}

/* ---- regions (reports) ----------------------------------------------------------------------------------
 * Each operation's input line cut where its formula changes character; the tables of docs/overflow.md. */
typedef struct {
    mf_unary_op op;
    float lo, hi; /* [lo, hi) (the last one of an op also holds +inf's neighbour FLT_MAX) */
    const char *what;
    int tail; /* results far below binary32's resolution of the formula: reported as absolute errors */
} region;

static const region REGIONS[] = {
    {MF_UNARY_EXP, -INFINITY, -87.336548f, "subnormal or zero results", 0},
    {MF_UNARY_EXP, -87.336548f, 88.72284f, "normal results", 0},
    {MF_UNARY_EXP, 88.72284f, INFINITY, "overflow: inf", 0},
    {MF_UNARY_TANH, -INFINITY, INFINITY, "all", 0},
    {MF_UNARY_SIGMOID, -INFINITY, -88.722832f, "exp(-x) overflows: 0", 1},
    {MF_UNARY_SIGMOID, -88.722832f, -87.336548f, "subnormal results", 0},
    {MF_UNARY_SIGMOID, -87.336548f, INFINITY, "normal results", 0},
    {MF_UNARY_SILU, -INFINITY, -88.722832f, "exp(-x) overflows: -0", 1},
    {MF_UNARY_SILU, -88.722832f, INFINITY, "the rest", 0},
    {MF_UNARY_GELU, -INFINITY, -3.0f, "1 + erf cancels (tail)", 1},
    {MF_UNARY_GELU, -3.0f, -1.0f, "1 + erf cancels partly", 0},
    {MF_UNARY_GELU, -1.0f, INFINITY, "the rest", 0},
    {MF_UNARY_GELU_TANH, -INFINITY, -3.0f, "1 + tanh cancels (tail)", 1},
    {MF_UNARY_GELU_TANH, -3.0f, -1.0f, "1 + tanh cancels partly", 0},
    {MF_UNARY_GELU_TANH, -1.0f, INFINITY, "the rest", 0},
};
#define NREGIONS (sizeof REGIONS / sizeof REGIONS[0])

static int region_of(mf_unary_op op, float x)
{
    size_t i;
    int last = -1;
    for (i = 0; i < NREGIONS; i++)
        if (REGIONS[i].op == op) {
            if (x >= REGIONS[i].lo && x < REGIONS[i].hi)
                return (int)i;
            last = (int)i;
        }
    return x == INFINITY || x == FLT_MAX ? last : -1;
}

/* Worst errors seen: in binary32 ULPs, as a fraction of the bound, in each destination's ULPs. */
typedef struct {
    uint64_t count;
    double ulps, at_ulps;        /* binary32 */
    double bound_ulps;           /* the largest bound seen, in ULPs of its reference */
    double bound_at_abs;         /* the bound at at_abs */
    double abs, at_abs;          /* |y - r| */
    double dst_ulps[NDSTS];      /* after rounding (rn) into DSTS[d], results within its range */
} meas;

static void meas_f32(meas *m, float x, float y, double r, double B)
{
    double e = err_ulps(y, r, &F32), a = isinf(r) ? 0.0 : (isinf(y) ? (fabs(r) >= OVF32 ? 0.0 : INFINITY) : fabs(y - r));
    if (m->count++ == 0 || e > m->ulps) {
        m->ulps = e;
        m->at_ulps = x;
    }
    if (m->count == 1 || a > m->abs) {
        m->abs = a;
        m->at_abs = x;
        m->bound_at_abs = B;
    }
}

/* The inputs of a sweep over [lo, hi): every binary32 value at a stride of the ordered line, then as many
 * values spaced evenly in value over the part of the interval within +-200. */
static size_t sweep_inputs(float *x, size_t cap, float lo, float hi)
{
    const float l = lo == -INFINITY ? -FLT_MAX : lo, h = hi == INFINITY ? FLT_MAX : hi;
    const int64_t a = ord_of(l), b = ord_of(h);
    const size_t half = cap / 2;
    double ll = l < -200.0f ? -200.0 : l, hh = h > 200.0f ? 200.0 : h;
    size_t n = 0, i;
    for (i = 0; i < half; i++) /* repeats when the interval holds fewer values */
        x[n++] = float_of_ord(a + (b - a) * (int64_t)i / (int64_t)half);
    if (ll >= hh)
        ll = hh = l;
    for (i = 0; n < cap && i < cap - half; i++) {
        float v = (float)(ll + (hh - ll) * (double)i / (double)(cap - half));
        x[n++] = v < l ? l : (v >= h && h > l ? float_of_ord(b - 1) : v);
    }
    return n;
}

/* y = op(x) in binary32 through the library (f32 in, f32 out). Also used by --report (outside Check). */
static void run_f32(mf_unary_op op, float *y, const float *x, size_t n)
{
    int rc = mf_unary(op, MF_FP32, y, MF_FP32, x, n, NULL);
    if (rc != MF_OK) {
        fprintf(stderr, "mf_unary(%s) = %d\n", mf_unary_name(op), rc);
        abort();
    }
}

/* Measure op on x[0..n) into the regions' records: binary32 errors, bound checks (failures counted in
 * *bad, the first one printed), and (dst != 0) the error after rounding into each destination. */
static void measure_block(mf_unary_op op, const float *x, size_t n, meas *m, int dst, uint64_t *bad)
{
    static float y[1 << 16];
    static uint16_t c16[1 << 16];
    static uint8_t c8[1 << 16];
    size_t i, d;
    if (n > (1u << 16))
        abort();
    run_f32(op, y, x, n);
    for (i = 0; i < n; i++) {
        int k = region_of(op, x[i]);
        double r;
        bound_t b;
        if (isnan(x[i]))
            continue;
        if (k < 0)
            abort(); /* the regions cover the line */
        r = ref_unary(op, x[i]);
        b = bound_unary(op, x[i]);
        meas_f32(&m[k], x[i], y[i], r, b.B);
        if (!isinf(r) && b.B / ulp_of(r, &F32) > m[k].bound_ulps && !b.zero_ok && !b.inf_ok)
            m[k].bound_ulps = b.B / ulp_of(r, &F32);
        if (!within_unary(op, x[i], y[i]) && (*bad)++ == 0)
            fprintf(stderr, "%s(%a) = %a, reference %.17g, bound %.3g\n", mf_unary_name(op), (double)x[i],
                    (double)y[i], r, b.B);
    }
    for (d = 0; dst && d < NDSTS; d++) {
        const fmtinfo *f = &DSTS[d];
        void *out = f->man >= 7 ? (void *)c16 : (void *)c8;
        if (mf_unary(op, f->fmt, out, MF_FP32, x, n, NULL) != MF_OK)
            abort();
        for (i = 0; i < n; i++) {
            int k = region_of(op, x[i]);
            double r, v, e;
            if (isnan(x[i]) || isinf(x[i]))
                continue;
            r = ref_unary(op, x[i]);
            v = load_value(f->fmt, out, i);
            if (fabs(r) > f->max || fabs((double)y[i]) > f->max)
                continue; /* overflow: the edge tests */
            e = err_ulps(v, r, f);
            if (e > m[k].dst_ulps[d])
                m[k].dst_ulps[d] = e;
            /* rn: half an ULP of the binary32 result, plus the binary32 error */
            if (!(fabs(v - r) <= 0.5 * ulp_of(y[i], f) + fabs((double)y[i] - r) * (1.0 + 1e-9)) && (*bad)++ == 0)
                fprintf(stderr, "%s(%a) -> %s %.17g, binary32 %.9g, reference %.17g\n", mf_unary_name(op),
                        (double)x[i], f->name, v, (double)y[i], r);
        }
    }
}

enum { SWEEP = 1 << 16, SWEEPS = 4, RANDOM_BLOCKS = 16 };

/* Sweeps of every region and random binary32 bit patterns sorted into their regions. */
static uint64_t measure_all(meas *m, int dst, uint64_t *bad)
{
    float *x = malloc(SWEEP * sizeof(float));
    uint64_t total = 0;
    size_t r, i, n, s;
    unsigned op;
    if (!x)
        abort();
    memset(m, 0, NREGIONS * sizeof *m);
    for (r = 0; r < NREGIONS; r++) {
        float lo = REGIONS[r].lo, hi = REGIONS[r].hi;
        for (s = 0; s < SWEEPS; s++) { /* the interval cut in SWEEPS parts of the ordered line */
            int64_t a = ord_of(lo == -INFINITY ? -FLT_MAX : lo), b = ord_of(hi == INFINITY ? FLT_MAX : hi);
            float l = float_of_ord(a + (b - a) * (int64_t)s / SWEEPS), h = float_of_ord(a + (b - a) * (int64_t)(s + 1) / SWEEPS);
            n = sweep_inputs(x, SWEEP, l, h);
            measure_block(REGIONS[r].op, x, n, m, dst, bad);
            total += n;
        }
    }
    for (op = 0; op < MF_UNARY_COUNT; op++)
        for (s = 0; s < RANDOM_BLOCKS; s++) {
            for (i = 0; i < SWEEP; i++) {
                uint32_t u = (uint32_t)rnd64();
                if ((u & 0x7F800000u) == 0x7F800000u) /* NaN and inf have their own test */
                    u ^= 0x40000000u;
                if (i & 1) /* half of them in 2^-27 <= |x| < 2^7, where the functions change */
                    u = (u & 0x807FFFFFu) | ((uint32_t)(100 + rnd64() % 34) << 23);
                x[i] = mf_test_bits_f32(u);
            }
            measure_block((mf_unary_op)op, x, SWEEP, m, dst, bad);
            total += SWEEP;
        }
    free(x);
    return total;
}

/* ---- names, the math library ------------------------------------------------------------------------- */

START_TEST(test_names)
{
    static const char *const names[MF_UNARY_COUNT] = {"exp", "tanh", "sigmoid", "silu", "gelu", "gelu_tanh"};
    mf_unary_op op;
    unsigned i;
    for (i = 0; i < MF_UNARY_COUNT; i++) {
        ck_assert_str_eq(mf_unary_name((mf_unary_op)i), names[i]);
        ck_assert_int_eq(mf_unary_from_name(names[i], &op), MF_OK);
        ck_assert_int_eq((int)op, (int)i);
    }
    ck_assert_int_eq(mf_unary_from_name("GELU_Tanh", &op), MF_OK);
    ck_assert_int_eq((int)op, MF_UNARY_GELU_TANH);
    ck_assert_ptr_null(mf_unary_name((mf_unary_op)MF_UNARY_COUNT));
    ck_assert_ptr_null(mf_unary_name((mf_unary_op)-1));
    ck_assert_int_eq(mf_unary_from_name("gel", &op), MF_E_ARG);
    ck_assert_int_eq(mf_unary_from_name("gelux", &op), MF_E_ARG);
    ck_assert_int_eq(mf_unary_from_name("", &op), MF_E_ARG);
    ck_assert_int_eq(mf_unary_from_name(NULL, &op), MF_E_NULL);
    ck_assert_int_eq(mf_unary_from_name("exp", NULL), MF_E_NULL);
    ck_assert_ptr_nonnull(mf_elementwise_math());
    ck_assert(strlen(mf_elementwise_math()) > 0);
}
END_TEST

/* ---- arguments ---------------------------------------------------------------------------------------- */

START_TEST(test_bad_args)
{
    float src[8] = {1, 2, 3, 4, 5, 6, 7, 8}, dst[8];
    uint8_t bytes[64];
    mf_stats st, sentinel;
    mf_opts o;
    size_t i;
    int checks = 0;
    memset(&o, 0, sizeof o);
    memset(&sentinel, 0xA5, sizeof sentinel);
    memset(bytes, 0x3C, sizeof bytes);
    for (i = 0; i < 8; i++)
        dst[i] = -7.0f;
    st = sentinel;
    o.stats = &st;

#define EXPECT_RC(call, rc)                                                                                \
    do {                                                                                                   \
        ck_assert_int_eq((call), (rc));                                                                    \
        checks++;                                                                                          \
    } while (0)

    EXPECT_RC(mf_unary((mf_unary_op)MF_UNARY_COUNT, MF_FP32, dst, MF_FP32, src, 8, &o), MF_E_ARG);
    EXPECT_RC(mf_unary((mf_unary_op)-1, MF_FP32, dst, MF_FP32, src, 8, &o), MF_E_ARG);
    EXPECT_RC(mf_unary(MF_UNARY_EXP, (mf_format)MF_FORMAT_COUNT, dst, MF_FP32, src, 8, &o), MF_E_FORMAT);
    EXPECT_RC(mf_unary(MF_UNARY_EXP, MF_FP32, dst, (mf_format)-1, src, 8, &o), MF_E_FORMAT);
    EXPECT_RC(mf_unary(MF_UNARY_EXP, MF_FP32, NULL, MF_FP32, src, 8, &o), MF_E_NULL);
    EXPECT_RC(mf_unary(MF_UNARY_EXP, MF_FP32, dst, MF_FP32, NULL, 8, &o), MF_E_NULL);
    EXPECT_RC(mf_unary(MF_UNARY_EXP, MF_FP32, dst, MF_FP32, src, SIZE_MAX / 2, &o), MF_E_SIZE);
    EXPECT_RC(mf_unary(MF_UNARY_EXP, MF_FP64, dst, MF_FP16, src, SIZE_MAX / 4, &o), MF_E_SIZE);
    EXPECT_RC(mf_unary(MF_UNARY_EXP, MF_FP4_E2M1, dst, MF_FP4_E2M1, src, (size_t)(int)-100, &o), MF_E_SIZE);
    EXPECT_RC(mf_unary(MF_UNARY_EXP, MF_FP8_E4M3, dst, MF_FP8_E4M3, src, SIZE_MAX / 2, &o), MF_E_SIZE);
    EXPECT_RC(mf_softmax(0, MF_FP32, dst, MF_FP32, src, SIZE_MAX / 2, 4, &o), MF_E_SIZE);
    EXPECT_RC(mf_softmax(0, MF_FP32, dst, MF_FP32, src, 4, SIZE_MAX / 2, &o), MF_E_SIZE);
    EXPECT_RC(mf_softmax(0, MF_FP32, dst, MF_FP32, src, SIZE_MAX / 3, SIZE_MAX / 3, &o), MF_E_SIZE);
    EXPECT_RC(mf_softmax(2, MF_FP32, dst, MF_FP32, src, 2, 4, &o), MF_E_ARG);
    EXPECT_RC(mf_softmax(-1, MF_FP32, dst, MF_FP32, src, 2, 4, &o), MF_E_ARG);
    EXPECT_RC(mf_softmax(0, MF_FP32, NULL, MF_FP32, src, 2, 4, &o), MF_E_NULL);
    EXPECT_RC(mf_softmax(1, MF_FP32, dst, MF_FP32, NULL, 2, 4, &o), MF_E_NULL);
    EXPECT_RC(mf_softmax(1, (mf_format)99, dst, MF_FP32, src, 2, 4, &o), MF_E_FORMAT);
    EXPECT_RC(mf_softmax(1, MF_FP32, dst, (mf_format)MF_FORMAT_COUNT, src, 2, 4, &o), MF_E_FORMAT);
    o.round = (mf_round)MF_ROUND_COUNT;
    EXPECT_RC(mf_unary(MF_UNARY_EXP, MF_FP16, dst, MF_FP32, src, 8, &o), MF_E_ROUND);
    EXPECT_RC(mf_softmax(0, MF_FP16, dst, MF_FP32, src, 2, 4, &o), MF_E_ROUND);
    o.round = MF_ROUND_NEAREST_EVEN;
    o.overflow = (mf_overflow)MF_OVERFLOW_COUNT;
    EXPECT_RC(mf_unary(MF_UNARY_EXP, MF_FP16, dst, MF_FP32, src, 8, &o), MF_E_POLICY);
    EXPECT_RC(mf_softmax(0, MF_FP16, dst, MF_FP32, src, 2, 4, &o), MF_E_POLICY);
    o.overflow = MF_OVERFLOW_IEEE;
    o.threads = -1;
    EXPECT_RC(mf_unary(MF_UNARY_EXP, MF_FP16, dst, MF_FP32, src, 8, &o), MF_E_ARG);
    EXPECT_RC(mf_softmax(0, MF_FP16, dst, MF_FP32, src, 2, 4, &o), MF_E_ARG);
    o.threads = 0;
    /* overlap: a shifted view, different widths at one address */
    EXPECT_RC(mf_unary(MF_UNARY_EXP, MF_FP32, src + 1, MF_FP32, src, 4, &o), MF_E_OVERLAP);
    EXPECT_RC(mf_unary(MF_UNARY_EXP, MF_FP16, src, MF_FP32, src, 4, &o), MF_E_OVERLAP);
    EXPECT_RC(mf_softmax(0, MF_FP16, (uint8_t *)src + 2, MF_FP16, src, 2, 2, &o), MF_E_OVERLAP);
    EXPECT_RC(mf_unary(MF_UNARY_TANH, MF_FP4_E2M1, bytes, MF_FP8_E4M3, bytes, 8, &o), MF_E_OVERLAP);
    EXPECT_RC(mf_softmax(1, MF_FP8_E4M3, bytes + 1, MF_FP8_E4M3, bytes, 2, 4, &o), MF_E_OVERLAP);
    ck_assert_int_eq(checks, 30);
    for (i = 0; i < 8; i++) {
        ck_assert(dst[i] == -7.0f);
        ck_assert(src[i] == (float)(i + 1));
    }
    for (i = 0; i < sizeof bytes; i++)
        ck_assert_uint_eq(bytes[i], 0x3C);
    ck_assert(memcmp(&st, &sentinel, sizeof st) == 0);

    /* n = 0: success, nothing touched (NULL arrays allowed), stats zeroed */
    ck_assert_int_eq(mf_unary(MF_UNARY_EXP, MF_FP16, NULL, MF_FP32, NULL, 0, &o), MF_OK);
    ck_assert(st.overflow == 0 && st.underflow == 0 && st.subnormal == 0 && st.nan == 0 && st.inexact == 0);
    st = sentinel;
    ck_assert_int_eq(mf_softmax(1, MF_FP16, NULL, MF_FP32, NULL, 0, 5, &o), MF_OK);
    ck_assert(st.overflow == 0 && st.underflow == 0 && st.subnormal == 0 && st.nan == 0 && st.inexact == 0);
    st = sentinel;
    ck_assert_int_eq(mf_softmax(1, MF_FP16, NULL, MF_FP32, NULL, 5, 0, &o), MF_OK);
    ck_assert(st.overflow == 0 && st.underflow == 0 && st.subnormal == 0 && st.nan == 0 && st.inexact == 0);
    ck_assert_int_eq(mf_unary(MF_UNARY_EXP, MF_FP16, dst, MF_FP32, src, 0, NULL), MF_OK);
    for (i = 0; i < 8; i++)
        ck_assert(dst[i] == -7.0f);
    /* threads > 1 and NULL opts are accepted */
    o.threads = 8;
    o.stats = NULL;
    ck_assert_int_eq(mf_unary(MF_UNARY_EXP, MF_FP32, dst, MF_FP32, src, 8, &o), MF_OK);
    ck_assert(dst[0] > 2.718f && dst[0] < 2.719f);
    ck_assert_int_eq(mf_softmax(0, MF_FP32, dst, MF_FP32, src, 2, 4, NULL), MF_OK);
    ck_assert(dst[3] > dst[2] && dst[2] > dst[1]);
#undef EXPECT_RC
}
END_TEST

/* ---- binary32 accuracy, and the error after rounding into f16, bf16, e4m3, e5m2 ------------------------- */

START_TEST(test_accuracy)
{
    meas m[NREGIONS];
    uint64_t bad = 0, total = measure_all(m, 1, &bad);
    size_t r;
    ck_assert_uint_eq(total, (uint64_t)NREGIONS * SWEEPS * SWEEP + (uint64_t)MF_UNARY_COUNT * RANDOM_BLOCKS * SWEEP);
    for (r = 0; r < NREGIONS; r++)
        ck_assert_msg(m[r].count >= SWEEPS * SWEEP, "region %zu visited %llu times", r,
                      (unsigned long long)m[r].count);
    ck_assert_msg(bad == 0, "%llu results outside their bounds (first one printed)", (unsigned long long)bad);
}
END_TEST

/* Every f16 and every bf16 input: the widening is exact, so these are binary32 inputs too. */
START_TEST(test_narrow_sources)
{
    static const mf_format srcs[2] = {MF_FP16, MF_BF16};
    uint16_t *codes = malloc(65536 * sizeof(uint16_t));
    float *x = malloc(65536 * sizeof(float));
    meas m[NREGIONS];
    uint64_t bad = 0, seen = 0;
    unsigned s, op, i;
    ck_assert(codes && x);
    memset(m, 0, sizeof m);
    for (i = 0; i < 65536; i++)
        codes[i] = (uint16_t)i;
    for (s = 0; s < 2; s++) {
        for (i = 0; i < 65536; i++)
            x[i] = mf_to_f32(srcs[s], i);
        for (op = 0; op < MF_UNARY_COUNT; op++) {
            static float y[65536], y2[65536];
            uint16_t out[65536];
            measure_block((mf_unary_op)op, x, 65536, m, 1, &bad);
            /* from the codes themselves: the same binary32 results, and the same-format round trip */
            ck_assert_int_eq(mf_unary((mf_unary_op)op, MF_FP32, y, srcs[s], codes, 65536, NULL), MF_OK);
            run_f32((mf_unary_op)op, y2, x, 65536);
            ck_assert(memcmp(y, y2, sizeof y) == 0);
            ck_assert_int_eq(mf_unary((mf_unary_op)op, srcs[s], out, srcs[s], codes, 65536, NULL), MF_OK);
            for (i = 0; i < 65536; i++)
                MF_EXPECT(out[i] == mf_from_f32(srcs[s], y[i], MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0),
                          "%s code 0x%04x", mf_unary_name((mf_unary_op)op), i);
            seen += 65536;
        }
    }
    ck_assert_uint_eq(seen, 2u * MF_UNARY_COUNT * 65536u);
    ck_assert_msg(bad == 0, "%llu results outside their bounds (first one printed)", (unsigned long long)bad);
    free(codes);
    free(x);
}
END_TEST

/* ---- the final rounding and the stats: those of the scalar conversions of the binary32 results ------------ */

static void fill_source(mf_format f, void *p, const float *x, size_t n)
{
    ck_assert_int_eq(mf_convert(f, p, MF_FP32, x, n, NULL), MF_OK);
}

/* codes of dst (format d) against mf_from_f32_ev of the binary32 results y under o; the stats too */
static void expect_rounded(mf_format d, const void *dst, const float *y, size_t n, const mf_opts *o,
                           const mf_stats *st, const char *what)
{
    mf_stats want = {0, 0, 0, 0, 0};
    size_t i;
    for (i = 0; i < n; i++) {
        if (d == MF_FP64) { /* exact; saturating turns inf into +-DBL_MAX (docs/formats.md, "Infinity in") */
            double v = load_value(MF_FP64, dst, i), w = y[i];
            int sat = isinf(y[i]) && o->overflow == MF_OVERFLOW_SATURATE;
            if (sat)
                w = copysign(DBL_MAX, w);
            MF_EXPECT(isnan(y[i]) ? isnan(v) : v == w && !signbit(v) == !signbit(w), "%s: %zu", what, i);
            want.nan += isnan(y[i]) != 0;
            want.overflow += sat;
            want.inexact += sat;
        } else {
            unsigned ev = 0;
            uint32_t rb = mf_sr_rbits(o->seed, o->sr_offset + i, mf_sr_width(d));
            uint32_t c = mf_from_f32_ev(d, y[i], o->round, o->overflow, rb, &ev);
            MF_EXPECT(load_code(d, dst, i) == c, "%s: element %zu: 0x%llx, want 0x%x (binary32 %a)", what, i,
                      (unsigned long long)load_code(d, dst, i), c, (double)y[i]);
            want.overflow += (ev & MF_EVENT_OVERFLOW) != 0;
            want.underflow += (ev & MF_EVENT_UNDERFLOW) != 0;
            want.subnormal += (ev & MF_EVENT_SUBNORMAL) != 0;
            want.nan += (ev & MF_EVENT_NAN) != 0;
            want.inexact += (ev & MF_EVENT_INEXACT) != 0;
        }
    }
    MF_EXPECT(st->overflow == want.overflow && st->underflow == want.underflow && st->subnormal == want.subnormal &&
                  st->nan == want.nan && st->inexact == want.inexact,
              "%s: stats %llu/%llu/%llu/%llu/%llu, scalar %llu/%llu/%llu/%llu/%llu", what,
              (unsigned long long)st->overflow, (unsigned long long)st->underflow, (unsigned long long)st->subnormal,
              (unsigned long long)st->nan, (unsigned long long)st->inexact, (unsigned long long)want.overflow,
              (unsigned long long)want.underflow, (unsigned long long)want.subnormal, (unsigned long long)want.nan,
              (unsigned long long)want.inexact);
}

START_TEST(test_rounding_and_stats)
{
    enum { N = 1237 }; /* not a multiple of the block or of a vector */
    static const mf_format srcs[] = {MF_FP32, MF_FP64, MF_FP16, MF_BF16, MF_FP8_E4M3, MF_FP4_E2M1};
    static float x[N], xs[N], y[N], ys[2 * N];
    static uint8_t src[8 * N], dst[8 * N];
    size_t i, s;
    unsigned op, d, r, p, lg;
    uint64_t cases = 0;
    for (i = 0; i < N; i++) { /* spread over the interesting range, with specials */
        double v = rnd_normal() * (i % 3 == 0 ? 30.0 : 4.0);
        x[i] = (float)v;
        if (i % 97 == 5)
            x[i] = mf_test_bits_f32(0x7FC00000u | (uint32_t)i); /* NaN with a payload */
        if (i % 101 == 7)
            x[i] = i & 1 ? INFINITY : -INFINITY;
        if (i % 89 == 3)
            x[i] = (float)(11.0 + rnd_unit() * 0.2); /* exp near f16's overflow */
        if (i % 83 == 1)
            x[i] = (float)(-87.0 - rnd_unit() * 18.0); /* binary32 exp subnormal or 0 */
    }
    for (s = 0; s < sizeof srcs / sizeof srcs[0]; s++) {
        fill_source(srcs[s], src, x, N);
        ck_assert_int_eq(mf_convert(MF_FP32, xs, srcs[s], src, N, NULL), MF_OK); /* the values as read */
        for (op = 0; op <= MF_UNARY_COUNT + 1; op++) {                             /* and softmax, log-softmax */
            int is_sm = op >= MF_UNARY_COUNT;
            lg = op == MF_UNARY_COUNT + 1;
            if (is_sm)
                ck_assert_int_eq(mf_softmax((int)lg, MF_FP32, y, srcs[s], src, 1, N, NULL), MF_OK);
            else
                ck_assert_int_eq(mf_unary((mf_unary_op)op, MF_FP32, y, srcs[s], src, N, NULL), MF_OK);
            if (!is_sm) { /* the source format only matters through the values */
                run_f32((mf_unary_op)op, ys, xs, N);
                ck_assert(memcmp(y, ys, sizeof y) == 0);
            }
            for (d = 0; d < MF_FORMAT_COUNT; d++)
                for (r = 0; r < MF_ROUND_COUNT; r++)
                    for (p = 0; p < MF_OVERFLOW_COUNT; p++) {
                        mf_opts o;
                        mf_stats st;
                        char what[96];
                        memset(&o, 0, sizeof o);
                        o.round = (mf_round)r;
                        o.overflow = (mf_overflow)p;
                        o.seed = 0x1234567890ABCDEFu + d;
                        o.sr_offset = 3 + 7 * (uint64_t)s; /* not on a Philox block */
                        o.stats = &st;
                        memset(dst, 0x5A, sizeof dst);
                        if (is_sm)
                            ck_assert_int_eq(mf_softmax((int)lg, (mf_format)d, dst, srcs[s], src, 1, N, &o), MF_OK);
                        else
                            ck_assert_int_eq(mf_unary((mf_unary_op)op, (mf_format)d, dst, srcs[s], src, N, &o), MF_OK);
                        snprintf(what, sizeof what, "%s %s -> %s %s %s",
                                 is_sm ? (lg ? "log_softmax" : "softmax") : mf_unary_name((mf_unary_op)op),
                                 mf_format_name(srcs[s]), mf_format_name((mf_format)d), mf_round_name((mf_round)r),
                                 mf_overflow_name((mf_overflow)p));
                        expect_rounded((mf_format)d, dst, y, N, &o, &st, what);
                        cases++;
                    }
        }
    }
    ck_assert_uint_eq(cases, (uint64_t)6 * (MF_UNARY_COUNT + 2) * MF_FORMAT_COUNT * MF_ROUND_COUNT * MF_OVERFLOW_COUNT);
}
END_TEST

/* ---- exp leaving a format's range --------------------------------------------------------------------- */

START_TEST(test_exp_overflow)
{
    /* binary32: ln(2^128 - 2^103) = 88.72283903...: 0x42B17217 (88.7228317) stays finite, 0x42B17218 not */
    const float below = mf_test_bits_f32(0x42B17217u), above = mf_test_bits_f32(0x42B17218u);
    float in[2], y[2];
    uint16_t h[2];
    mf_opts o;
    mf_stats st;
    int64_t k, a, b;
    uint64_t n = 0, finite = 0, inf = 0;
    ck_assert(exp((double)below) < OVF32 && exp((double)above) > OVF32); /* the reference agrees */
    in[0] = below;
    in[1] = above;
    run_f32(MF_UNARY_EXP, y, in, 2);
    ck_assert(isfinite(y[0]) && y[0] > 3.40e38f);
    ck_assert(isinf(y[1]) && y[1] > 0);

    /* f16: max 65504; rn rounds exp(x) to inf from 65520 (max + half an ULP) on, x >= ln 65520 = 11.0901107.
     * exp(11.09f) = 65512.76 is past max but rounds to it under rn (no overflow); under ru it is inf.
     * exp(11.1f) = 66171.19 overflows under rn: inf, or 65504 saturated. */
    memset(&o, 0, sizeof o);
    o.stats = &st;
    in[0] = 11.09f;
    in[1] = 11.1f;
    ck_assert(exp((double)in[0]) > 65504.0 && exp((double)in[0]) < 65520.0 && exp((double)in[1]) > 65520.0);
    ck_assert_int_eq(mf_unary(MF_UNARY_EXP, MF_FP16, h, MF_FP32, in, 2, &o), MF_OK);
    ck_assert_uint_eq(h[0], 0x7BFF); /* 65504 */
    ck_assert_uint_eq(h[1], 0x7C00); /* +inf */
    ck_assert(st.overflow == 1 && st.nan == 0 && st.inexact == 2);
    o.overflow = MF_OVERFLOW_SATURATE;
    ck_assert_int_eq(mf_unary(MF_UNARY_EXP, MF_FP16, h, MF_FP32, in, 2, &o), MF_OK);
    ck_assert(h[0] == 0x7BFF && h[1] == 0x7BFF && st.overflow == 1);
    o.overflow = MF_OVERFLOW_IEEE;
    o.round = MF_ROUND_UP;
    ck_assert_int_eq(mf_unary(MF_UNARY_EXP, MF_FP16, h, MF_FP32, in, 2, &o), MF_OK);
    ck_assert(h[0] == 0x7C00 && h[1] == 0x7C00 && st.overflow == 2);
    o.round = MF_ROUND_TOWARD_ZERO; /* rz never rounds a finite value to inf */
    ck_assert_int_eq(mf_unary(MF_UNARY_EXP, MF_FP16, h, MF_FP32, in, 2, &o), MF_OK);
    ck_assert(h[0] == 0x7BFF && h[1] == 0x7BFF && st.overflow == 1); /* 65512.76 truncates to max */
    /* bf16 holds both: exp(11.09) = 65512.76 and exp(11.1) = 66171.19 round to 65536 and 66048 */
    o.round = MF_ROUND_NEAREST_EVEN;
    ck_assert_int_eq(mf_unary(MF_UNARY_EXP, MF_BF16, h, MF_FP32, in, 2, &o), MF_OK);
    ck_assert(mf_to_f32(MF_BF16, h[0]) == 65536.0f && mf_to_f32(MF_BF16, h[1]) == 66048.0f && st.overflow == 0);

    /* every binary32 input in [11, 11.2]: inf exactly when the exact exp is clearly past 65520 */
    a = ord_of(11.0f);
    b = ord_of(11.2f);
    o.stats = NULL;
    for (k = a; k <= b; k++) {
        float x = float_of_ord(k);
        double r = exp((double)x);
        ck_assert_int_eq(mf_unary(MF_UNARY_EXP, MF_FP16, h, MF_FP32, &x, 1, &o), MF_OK);
        if (r < 65520.0 * (1 - 2 * U32))
            MF_EXPECT(h[0] <= 0x7BFF, "exp(%a) in f16: 0x%04x", (double)x, h[0]);
        else if (r > 65520.0 * (1 + 2 * U32))
            MF_EXPECT(h[0] == 0x7C00, "exp(%a) in f16: 0x%04x", (double)x, h[0]);
        finite += h[0] <= 0x7BFF;
        inf += h[0] == 0x7C00;
        n++;
    }
    ck_assert_uint_eq(n, (uint64_t)(b - a + 1));
    ck_assert_uint_eq(finite + inf, n);
    ck_assert(finite > 0 && inf > 0);

    /* the other targets: exp overflows e4m3 past ln 464 (NaN under IEEE: no inf), e5m2 past ln 61440 */
    {
        uint8_t c[2];
        float x2[2] = {6.13f, 6.15f}, x3[2] = {11.02f, 11.03f};
        ck_assert(exp(6.13f) < 464.0 && exp(6.15f) > 464.0 && exp(11.02f) < 61440.0 && exp(11.03f) > 61440.0);
        ck_assert_int_eq(mf_unary(MF_UNARY_EXP, MF_FP8_E4M3, c, MF_FP32, x2, 2, NULL), MF_OK);
        ck_assert(c[0] == 0x7E && c[1] == 0x7F); /* 448, NaN */
        o.overflow = MF_OVERFLOW_SATURATE;
        ck_assert_int_eq(mf_unary(MF_UNARY_EXP, MF_FP8_E4M3, c, MF_FP32, x2, 2, &o), MF_OK);
        ck_assert(c[0] == 0x7E && c[1] == 0x7E);
        ck_assert_int_eq(mf_unary(MF_UNARY_EXP, MF_FP8_E5M2, c, MF_FP32, x3, 2, NULL), MF_OK);
        ck_assert(c[0] == 0x7B && c[1] == 0x7C); /* 57344, inf */
    }
}
END_TEST

/* ---- specials ------------------------------------------------------------------------------------------ */

START_TEST(test_specials)
{
    /* x: -inf, +inf, NaN (payload, negative), -0, +0 */
    float x[5], y[5];
    uint32_t want[MF_UNARY_COUNT][5] = {
        /* exp */ {0x00000000u, 0x7F800000u, 0x7FC00000u, 0x3F800000u, 0x3F800000u},
        /* tanh */ {0xBF800000u, 0x3F800000u, 0x7FC00000u, 0x80000000u, 0x00000000u},
        /* sigmoid */ {0x00000000u, 0x3F800000u, 0x7FC00000u, 0x3F000000u, 0x3F000000u},
        /* silu: -inf is the limit -0 */ {0x80000000u, 0x7F800000u, 0x7FC00000u, 0x80000000u, 0x00000000u},
        /* gelu */ {0x80000000u, 0x7F800000u, 0x7FC00000u, 0x80000000u, 0x00000000u},
        /* gelu_tanh */ {0x80000000u, 0x7F800000u, 0x7FC00000u, 0x80000000u, 0x00000000u},
    };
    unsigned op, i;
    uint16_t h[5];
    x[0] = -INFINITY;
    x[1] = INFINITY;
    x[2] = mf_test_bits_f32(0xFFC01234u);
    x[3] = -0.0f;
    x[4] = 0.0f;
    for (op = 0; op < MF_UNARY_COUNT; op++) {
        run_f32((mf_unary_op)op, y, x, 5);
        for (i = 0; i < 5; i++)
            ck_assert_msg(mf_test_f32_bits(y[i]) == want[op][i], "%s(%a) = 0x%08x, want 0x%08x",
                          mf_unary_name((mf_unary_op)op), (double)x[i], mf_test_f32_bits(y[i]), want[op][i]);
        /* a signalling NaN source too: quiet canonical NaN */
        x[2] = mf_test_bits_f32(0x7F800001u);
        run_f32((mf_unary_op)op, y, x + 2, 1);
        ck_assert_uint_eq(mf_test_f32_bits(y[0]), 0x7FC00000u);
        x[2] = mf_test_bits_f32(0xFFC01234u);
        /* f16: the canonical NaN rounds to f16's NaN */
        ck_assert_int_eq(mf_unary((mf_unary_op)op, MF_FP16, h, MF_FP32, x, 5, NULL), MF_OK);
        ck_assert_uint_eq(
            h[2], mf_from_f32(MF_FP16, mf_test_bits_f32(0x7FC00000u), MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0));
    }
    /* large finite inputs follow the formulas to the limits without NaN */
    x[0] = -FLT_MAX;
    x[1] = FLT_MAX;
    x[2] = -1e13f; /* x^3 overflows binary32 in the tanh approximation */
    x[3] = 1e13f;
    x[4] = -100.0f;
    for (op = 0; op < MF_UNARY_COUNT; op++) {
        run_f32((mf_unary_op)op, y, x, 5);
        for (i = 0; i < 5; i++) {
            double r = ref_unary((mf_unary_op)op, x[i]);
            ck_assert_msg(!isnan(y[i]), "%s(%a) is NaN", mf_unary_name((mf_unary_op)op), (double)x[i]);
            ck_assert_msg(within_unary((mf_unary_op)op, x[i], y[i]) || (isinf(r) && y[i] == r), "%s(%a) = %a, ref %g",
                          mf_unary_name((mf_unary_op)op), (double)x[i], (double)y[i], r);
        }
    }
}
END_TEST

/* ---- softmax ------------------------------------------------------------------------------------------- */

/* The reference row (binary64) and each element's bound: m exact; t = x - m; e = exp(t); R = the sum of the
 * e other than the first maximum's; softmax e / (1 + R), log-softmax t - log1p(R). The binary32 t has a
 * relative error u, so e carries |t| u; the sum carries the worst of its terms. */
static void ref_softmax(const float *x, size_t n, int lg, double *r, double *bound)
{
    const double u = U32;
    double m = -INFINITY, rest = 0.0, relR = 0.0, L, S;
    size_t i, k = 0;
    int bad = 0;
    for (i = 0; i < n; i++) {
        if (isnan(x[i]) || x[i] == INFINITY)
            bad = 1;
        else if (x[i] > m) {
            m = x[i];
            k = i;
        }
    }
    if (bad || m == -INFINITY) {
        for (i = 0; i < n; i++) {
            r[i] = NAN;
            bound[i] = 0.0;
        }
        return;
    }
    for (i = 0; i < n; i++)
        if (i != k) {
            double t = (double)x[i] - m, e = exp(t);
            rest += e;
            if (e > 0.0 && fabs(t) * u + 2.0 * u * F_exp > relR)
                relR = fabs(t) * u + 2.0 * u * F_exp;
        }
    relR += (double)n * 0x1p-52 + (double)n * 0x1p-148; /* the binary64 sum; terms that underflow */
    S = 1.0 + rest;
    L = log1p(rest);
    for (i = 0; i < n; i++) {
        double t = (double)x[i] - m;
        if (t == -INFINITY) { /* a masked element: exactly 0 (log: -inf) */
            r[i] = lg ? -INFINITY : 0.0;
            bound[i] = 0.0;
            continue;
        }
        if (lg) {
            r[i] = t - L;
            bound[i] = u * fabs(r[i]) + 0x1p-51 * (fabs(r[i]) + fabs(t) + L) + rest * relR / (1.0 + rest) + TINY32;
        } else {
            r[i] = exp(t) / S;
            bound[i] = r[i] * (fabs(t) * u + 2.0 * u * F_exp + relR * rest / S + 0x1p-51 + u) + 4.0 * TINY32;
        }
        bound[i] *= 1.0 + 1e-6;
    }
}

START_TEST(test_softmax_edges)
{
    const float inf = INFINITY, nan = NAN;
    float y[8];
    uint16_t h[8];
    mf_opts o;
    mf_stats st;
    int lg;
    memset(&o, 0, sizeof o);
    o.stats = &st;
    for (lg = 0; lg <= 1; lg++) {
        float a[2] = {0.0f, 0.0f}, b[2] = {0.0f, -inf}, c[3] = {-inf, -inf, -inf}, d[3] = {0.0f, inf, 1.0f};
        float e[3] = {1.0f, nan, 2.0f}, f[3] = {-1e30f, 0.0f, -200.0f}, g[2] = {-inf, inf};
        int i;
        ck_assert_int_eq(mf_softmax(lg, MF_FP32, y, MF_FP32, a, 1, 2, NULL), MF_OK);
        ck_assert(lg ? y[0] == (float)-log(2.0) && y[1] == y[0] : y[0] == 0.5f && y[1] == 0.5f);
        ck_assert_int_eq(mf_softmax(lg, MF_FP32, y, MF_FP32, b, 1, 2, NULL), MF_OK); /* a masked element */
        ck_assert(lg ? y[0] == 0.0f && y[1] == -inf : y[0] == 1.0f && y[1] == 0.0f);
        /* all -inf (a fully masked row), a +inf, a NaN, -inf with +inf: the whole row NaN, as PyTorch */
        ck_assert_int_eq(mf_softmax(lg, MF_FP32, y, MF_FP32, c, 1, 3, NULL), MF_OK);
        for (i = 0; i < 3; i++)
            ck_assert_uint_eq(mf_test_f32_bits(y[i]), 0x7FC00000u);
        ck_assert_int_eq(mf_softmax(lg, MF_FP32, y, MF_FP32, d, 1, 3, NULL), MF_OK);
        for (i = 0; i < 3; i++)
            ck_assert_uint_eq(mf_test_f32_bits(y[i]), 0x7FC00000u);
        ck_assert_int_eq(mf_softmax(lg, MF_FP16, h, MF_FP32, e, 1, 3, &o), MF_OK);
        for (i = 0; i < 3; i++)
            ck_assert(mf_to_f32(MF_FP16, h[i]) != mf_to_f32(MF_FP16, h[i])); /* NaN */
        ck_assert(st.nan == 3 && st.overflow == 0);
        ck_assert_int_eq(mf_softmax(lg, MF_FP32, y, MF_FP32, g, 1, 2, NULL), MF_OK);
        ck_assert(isnan(y[0]) && isnan(y[1]));
        /* large negative inputs: exp underflows to 0, the log stays exact */
        ck_assert_int_eq(mf_softmax(lg, MF_FP32, y, MF_FP32, f, 1, 3, NULL), MF_OK);
        if (lg)
            ck_assert(y[0] == -1e30f && y[1] == 0.0f && y[2] == -200.0f);
        else
            ck_assert(y[0] == 0.0f && y[1] == 1.0f && y[2] == 0.0f && !signbit(y[0]));
        /* one element */
        ck_assert_int_eq(mf_softmax(lg, MF_FP32, y, MF_FP32, f, 3, 1, NULL), MF_OK);
        for (i = 0; i < 3; i++)
            ck_assert(y[i] == (lg ? 0.0f : 1.0f));
    }
    /* a dominant element: log p = -log1p(e^-30) = -9.357623e-14, not 0 (log of a binary32 sum would give 0);
     * bf16 holds it, f16 underflows (an underflow event) */
    {
        float row[2] = {0.0f, -30.0f};
        double want = -log1p(exp(-30.0));
        ck_assert_int_eq(mf_softmax(1, MF_FP32, y, MF_FP32, row, 1, 2, NULL), MF_OK);
        ck_assert(fabs((double)y[0] - want) <= 2.0 * ulp_of(want, &F32));
        ck_assert_int_eq(mf_softmax(1, MF_BF16, h, MF_FP32, row, 1, 2, &o), MF_OK);
        ck_assert_uint_eq(h[0], mf_from_f32(MF_BF16, y[0], MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0));
        ck_assert(mf_to_f32(MF_BF16, h[0]) < 0.0f && st.underflow == 0);
        ck_assert_int_eq(mf_softmax(1, MF_FP16, h, MF_FP32, row, 1, 2, &o), MF_OK);
        ck_assert_uint_eq(h[0], 0x8000); /* -0 */
        ck_assert(st.underflow == 1);
        /* softmax: p = 1 / (1 + e^-30) rounds to 1 in binary32 */
        ck_assert_int_eq(mf_softmax(0, MF_FP32, y, MF_FP32, row, 1, 2, NULL), MF_OK);
        ck_assert(y[0] == 1.0f && fabs((double)y[1] - exp(-30.0)) <= 64 * ulp_of(exp(-30.0), &F32));
    }
    /* log-softmax leaving f16's range: log p = -70000 (and exactly 0 for the other element) */
    {
        float row[2] = {0.0f, -70000.0f};
        ck_assert_int_eq(mf_softmax(1, MF_FP16, h, MF_FP32, row, 1, 2, &o), MF_OK);
        ck_assert(h[0] == 0x0000 && h[1] == 0xFC00 && st.overflow == 1 && st.underflow == 0);
    }
}
END_TEST

/* Rows of many shapes and spreads: every element within its bound, in binary32 and after rounding. */
START_TEST(test_softmax_accuracy)
{
    static const size_t widths[] = {1, 2, 3, 4, 5, 7, 16, 100, 511, 512, 513, 1000, 1500, 4099};
    static const double spreads[] = {0.1, 1.0, 10.0, 100.0};
    enum { MAXW = 4099 };
    static float x[2 * MAXW], y[MAXW], y2[2 * MAXW];
    static double r[MAXW], bnd[MAXW];
    static uint16_t h[2 * MAXW];
    size_t w, i, rows = 0;
    unsigned s, lg, d, rep;
    uint64_t checked = 0, bad = 0;
    double worst[2] = {0, 0};
    for (w = 0; w < sizeof widths / sizeof widths[0]; w++)
        for (s = 0; s < sizeof spreads / sizeof spreads[0]; s++)
            for (rep = 0; rep < 3; rep++) {
                size_t n = widths[w];
                for (i = 0; i < n; i++) {
                    x[i] = (float)(rnd_normal() * spreads[s] + (rep == 2 ? 1000.0 : 0.0));
                    if (rep == 1 && i % 7 == 3)
                        x[i] = -INFINITY; /* masked */
                }
                if (rep == 1)
                    x[n - 1] = 0.5f; /* at least one finite element */
                for (lg = 0; lg <= 1; lg++) {
                    ref_softmax(x, n, (int)lg, r, bnd);
                    ck_assert_int_eq(mf_softmax((int)lg, MF_FP32, y, MF_FP32, x, 1, n, NULL), MF_OK);
                    for (i = 0; i < n; i++) {
                        double e = err_ulps(y[i], r[i], &F32);
                        int ok = isinf(r[i]) ? y[i] == r[i] : fabs((double)y[i] - r[i]) <= bnd[i];
                        if (e > worst[lg])
                            worst[lg] = e;
                        if (!ok && bad++ == 0)
                            fprintf(stderr, "%s width %zu spread %g: element %zu = %.9g, ref %.17g, bound %.3g\n",
                                    lg ? "log_softmax" : "softmax", n, spreads[s], i, (double)y[i], r[i], bnd[i]);
                        checked++;
                    }
                    for (d = 0; d < 2; d++) { /* f16, bf16 */
                        const fmtinfo *f = &DSTS[d];
                        ck_assert_int_eq(mf_softmax((int)lg, f->fmt, h, MF_FP32, x, 1, n, NULL), MF_OK);
                        for (i = 0; i < n; i++) {
                            double v = load_value(f->fmt, h, i);
                            if (isinf(r[i]) || fabs(r[i]) > f->max)
                                continue;
                            MF_EXPECT(fabs(v - r[i]) <= 0.5 * ulp_of(y[i], f) + bnd[i],
                                      "%s -> %s width %zu: element %zu = %.9g, ref %.17g", lg ? "log_softmax" : "softmax",
                                      f->name, n, i, v, r[i]);
                        }
                    }
                    /* the same row twice in one call: the same bits twice */
                    memcpy(x + n, x, n * sizeof(float));
                    ck_assert_int_eq(mf_softmax((int)lg, MF_FP32, y2, MF_FP32, x, 2, n, NULL), MF_OK);
                    ck_assert(memcmp(y2, y, n * sizeof(float)) == 0 && memcmp(y2 + n, y, n * sizeof(float)) == 0);
                    rows++;
                }
            }
    ck_assert_uint_eq(rows, 2 * 3 * 4 * (sizeof widths / sizeof widths[0]));
    ck_assert(checked > 100000);
    ck_assert_msg(bad == 0, "%llu softmax elements outside their bounds (first one printed)", (unsigned long long)bad);
}
END_TEST

/* Sources of other formats, in place, packed FP4 rows starting mid-byte, rows longer than a block. */
START_TEST(test_softmax_layouts)
{
    enum { ROWS = 5, COLS = 523 };
    static float x[ROWS * COLS], y[ROWS * COLS], y2[ROWS * COLS];
    static double xd[ROWS * COLS];
    static uint8_t p[ROWS * COLS], q[ROWS * COLS], pin[ROWS * COLS];
    static uint16_t hin[ROWS * COLS], hout[ROWS * COLS];
    size_t i, r;
    int lg;
    for (i = 0; i < ROWS * COLS; i++) {
        x[i] = (float)(rnd_normal() * 3.0);
        xd[i] = x[i];
    }
    for (lg = 0; lg <= 1; lg++) {
        mf_opts o;
        memset(&o, 0, sizeof o);
        /* f64 source holding the same values: the same bits */
        ck_assert_int_eq(mf_softmax(lg, MF_FP32, y, MF_FP32, x, ROWS, COLS, NULL), MF_OK);
        ck_assert_int_eq(mf_softmax(lg, MF_FP32, y2, MF_FP64, xd, ROWS, COLS, NULL), MF_OK);
        ck_assert(memcmp(y, y2, sizeof y) == 0);
        /* row by row: the same bits as the whole tensor */
        for (r = 0; r < ROWS; r++)
            ck_assert_int_eq(mf_softmax(lg, MF_FP32, y2 + r * COLS, MF_FP32, x + r * COLS, 1, COLS, NULL), MF_OK);
        ck_assert(memcmp(y, y2, sizeof y) == 0);
        /* in place, f16 -> f16 and f16 -> bf16 */
        ck_assert_int_eq(mf_convert(MF_FP16, hin, MF_FP32, x, ROWS * COLS, NULL), MF_OK);
        ck_assert_int_eq(mf_softmax(lg, MF_BF16, hout, MF_FP16, hin, ROWS, COLS, NULL), MF_OK);
        ck_assert_int_eq(mf_softmax(lg, MF_BF16, hin, MF_FP16, hin, ROWS, COLS, NULL), MF_OK);
        ck_assert(memcmp(hin, hout, sizeof hin) == 0);
        /* e2m1, odd rows (row 1 starts in a high nibble), stochastic rounding, in place */
        o.round = MF_ROUND_STOCHASTIC;
        o.seed = 99;
        o.sr_offset = 1;
        ck_assert_int_eq(mf_convert(MF_FP4_E2M1, pin, MF_FP32, x, ROWS * COLS, NULL), MF_OK);
        memcpy(p, pin, sizeof p);
        ck_assert_int_eq(mf_convert(MF_FP32, y2, MF_FP4_E2M1, pin, ROWS * COLS, NULL), MF_OK);
        memset(q, 0, sizeof q);
        ck_assert_int_eq(mf_softmax(lg, MF_FP4_E2M1, q, MF_FP32, y2, ROWS, COLS, &o), MF_OK);
        ck_assert_int_eq(mf_softmax(lg, MF_FP4_E2M1, p, MF_FP4_E2M1, p, ROWS, COLS, &o), MF_OK);
        ck_assert(memcmp(p, q, (ROWS * COLS) / 2) == 0);
        ck_assert((p[(ROWS * COLS) / 2] & 0xF) == (q[(ROWS * COLS) / 2] & 0xF));
        ck_assert((p[(ROWS * COLS) / 2] >> 4) == (pin[(ROWS * COLS) / 2] >> 4)); /* past the end: untouched */
        /* against the scalar rounding of the binary32 result, element by element (nibbles of odd rows) */
        ck_assert_int_eq(mf_softmax(lg, MF_FP32, y, MF_FP32, y2, ROWS, COLS, NULL), MF_OK);
        for (i = 0; i < ROWS * COLS; i++)
            MF_EXPECT(load_code(MF_FP4_E2M1, p, i) ==
                          mf_from_f32(MF_FP4_E2M1, y[i], MF_ROUND_STOCHASTIC, MF_OVERFLOW_IEEE, mf_sr_rbits(99, 1 + i, 8)),
                      "e2m1 element %zu", i);
    }
    /* unary in place, f16 and packed e2m1 (odd n) */
    for (i = 0; i < 7; i++) {
        mf_unary_op op = (mf_unary_op)(i % MF_UNARY_COUNT);
        ck_assert_int_eq(mf_convert(MF_FP16, hin, MF_FP32, x, ROWS * COLS, NULL), MF_OK);
        ck_assert_int_eq(mf_unary(op, MF_FP16, hout, MF_FP16, hin, ROWS * COLS, NULL), MF_OK);
        ck_assert_int_eq(mf_unary(op, MF_FP16, hin, MF_FP16, hin, ROWS * COLS, NULL), MF_OK);
        ck_assert(memcmp(hin, hout, sizeof hin) == 0);
        ck_assert_int_eq(mf_convert(MF_FP4_E2M1, p, MF_FP32, x, ROWS * COLS, NULL), MF_OK);
        ck_assert_int_eq(mf_unary(op, MF_FP4_E2M1, q, MF_FP4_E2M1, p, ROWS * COLS, NULL), MF_OK);
        ck_assert_int_eq(mf_unary(op, MF_FP4_E2M1, p, MF_FP4_E2M1, p, ROWS * COLS, NULL), MF_OK);
        ck_assert(memcmp(p, q, (ROWS * COLS) / 2) == 0);
    }
}
END_TEST

/* PyTorch's expressions, operation by operation in binary32, around the library's own exp and tanh: the
 * composite operations are exactly these expressions (erf is not exposed; GELU is checked by its bounds). */
START_TEST(test_formulas)
{
    enum { N = 20000 };
    static float x[N], nx[N], e[N], inner[N], th[N], y[N];
    const float beta = (float)SQRT_2_OVER_PI, kappa = (float)0.044715;
    size_t i;
    for (i = 0; i < N; i++) {
        x[i] = (float)(rnd_normal() * (i % 2 ? 3.0 : 40.0));
        nx[i] = -x[i];
        inner[i] = beta * (x[i] + kappa * (x[i] * x[i] * x[i]));
    }
    run_f32(MF_UNARY_EXP, e, nx, N);
    run_f32(MF_UNARY_TANH, th, inner, N);
    run_f32(MF_UNARY_SIGMOID, y, x, N);
    for (i = 0; i < N; i++)
        MF_EXPECT(mf_test_f32_bits(y[i]) == mf_test_f32_bits(1.0f / (1.0f + e[i])), "sigmoid(%a)", (double)x[i]);
    run_f32(MF_UNARY_SILU, y, x, N);
    for (i = 0; i < N; i++)
        MF_EXPECT(mf_test_f32_bits(y[i]) == mf_test_f32_bits(x[i] / (1.0f + e[i])), "silu(%a)", (double)x[i]);
    run_f32(MF_UNARY_GELU_TANH, y, x, N);
    for (i = 0; i < N; i++)
        MF_EXPECT(mf_test_f32_bits(y[i]) == mf_test_f32_bits((0.5f * x[i]) * (1.0f + th[i])), "gelu_tanh(%a)",
                  (double)x[i]);

    /* softmax as elementwise.h documents it: binary32 x - m and exp, the sum of the others in binary64 in
     * four partial sums (c mod 4), the quotient in binary64, rounded once */
    {
        static const size_t widths[] = {1, 3, 8, 600, 1500};
        size_t w, c, k;
        for (w = 0; w < sizeof widths / sizeof widths[0]; w++) {
            size_t n = widths[w];
            double part[4] = {0, 0, 0, 0}, sum;
            float m = -INFINITY;
            for (c = 0; c < n; c++)
                x[c] = (float)(rnd_normal() * 8.0);
            x[n / 2] = x[0] = 7.5f + (float)w; /* the maximum twice: the first one is kept apart */
            for (c = 0, k = 0; c < n; c++)
                if (x[c] > m) {
                    m = x[c];
                    k = c;
                }
            for (c = 0; c < n; c++)
                nx[c] = x[c] - m;
            run_f32(MF_UNARY_EXP, e, nx, n);
            for (c = 0; c < n; c++)
                if (c != k)
                    part[c & 3] += e[c];
            sum = (double)e[k] + ((part[0] + part[1]) + (part[2] + part[3]));
            ck_assert_int_eq(mf_softmax(0, MF_FP32, y, MF_FP32, x, 1, n, NULL), MF_OK);
            for (c = 0; c < n; c++)
                MF_EXPECT(mf_test_f32_bits(y[c]) == mf_test_f32_bits((float)((double)e[c] / sum)),
                          "softmax width %zu element %zu", n, c);
        }
    }
}
END_TEST

/* ---- the floating-point environment ------------------------------------------------------------------------ */

START_TEST(test_environment)
{
    enum { N = 3000 };
    static float x[N], base[MF_UNARY_COUNT + 2][N], y[N];
    static const int modes[] = {FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO, FE_TONEAREST};
    size_t i, m;
    unsigned op, ftz;
    uint64_t runs = 0;
    for (i = 0; i < N; i++) { /* subnormal results and inputs included */
        switch (i % 4) {
        case 0: x[i] = (float)(rnd_normal() * 5.0); break;
        case 1: x[i] = (float)(-87.0 - rnd_unit() * 17.0); break;
        case 2: x[i] = mf_test_bits_f32((uint32_t)(rnd64() & 0x807FFFFFu)); break; /* subnormal */
        default: x[i] = (float)(rnd_normal() * 60.0); break;
        }
    }
    for (op = 0; op < MF_UNARY_COUNT; op++)
        run_f32((mf_unary_op)op, base[op], x, N);
    ck_assert_int_eq(mf_softmax(0, MF_FP32, base[MF_UNARY_COUNT], MF_FP32, x, 3, N / 3, NULL), MF_OK);
    ck_assert_int_eq(mf_softmax(1, MF_FP32, base[MF_UNARY_COUNT + 1], MF_FP32, x, 3, N / 3, NULL), MF_OK);
    for (m = 0; m < sizeof modes / sizeof modes[0]; m++)
        for (ftz = 0; ftz < 2; ftz++) {
#ifdef HAVE_MXCSR
            unsigned csr0 = _mm_getcsr(), csr;
#else
            if (ftz)
                continue;
#endif
            ck_assert_int_eq(fesetround(modes[m]), 0);
#ifdef HAVE_MXCSR
            if (ftz)
                _mm_setcsr(_mm_getcsr() | 0x8040u); /* FTZ and DAZ */
            csr = _mm_getcsr();
#endif
            for (op = 0; op < MF_UNARY_COUNT + 2; op++) {
                int rc = op < MF_UNARY_COUNT ? mf_unary((mf_unary_op)op, MF_FP32, y, MF_FP32, x, N, NULL)
                                             : mf_softmax((int)(op - MF_UNARY_COUNT), MF_FP32, y, MF_FP32, x, 3, N / 3, NULL);
                ck_assert_int_eq(rc, MF_OK);
                ck_assert_int_eq(fegetround(), modes[m]); /* the caller's environment is back */
#ifdef HAVE_MXCSR
                ck_assert_uint_eq(_mm_getcsr() & 0xFFC0u, csr & 0xFFC0u);
#endif
                for (i = 0; i < N; i++)
                    MF_EXPECT(mf_test_f32_bits(y[i]) == mf_test_f32_bits(base[op][i]),
                              "op %u under mode %zu ftz %u: x = %a: %a, %a", op, m, ftz, (double)x[i], (double)y[i],
                              (double)base[op][i]);
                runs++;
            }
#ifdef HAVE_MXCSR
            _mm_setcsr(csr0);
#endif
            fesetround(FE_TONEAREST);
        }
#ifdef HAVE_MXCSR
    ck_assert_uint_eq(runs, 4 * 2 * (MF_UNARY_COUNT + 2));
#else
    ck_assert_uint_eq(runs, 4 * (MF_UNARY_COUNT + 2));
#endif
}
END_TEST

/* ---- report ------------------------------------------------------------------------------------------ */

static void print_table(const meas *m)
{
    size_t r, d;
    printf("| op | x in | results | inputs | max error (at x) | bound |");
    for (d = 0; d < NDSTS; d++)
        printf(" %s ULP |", DSTS[d].name);
    printf("\n|---|---|---|---|---|---|");
    for (d = 0; d < NDSTS; d++)
        printf("---|");
    printf("\n");
    for (r = 0; r < NREGIONS; r++) {
        const region *g = &REGIONS[r];
        printf("| %s | [%.9g, %.9g) | %s | %llu |", mf_unary_name(g->op), (double)g->lo, (double)g->hi, g->what,
               (unsigned long long)m[r].count);
        if (g->tail)
            printf(" %.3g abs (%.9g) | %.3g abs there |", m[r].abs, m[r].at_abs, m[r].bound_at_abs);
        else
            printf(" %.3f ULP (%.9g) | %.3g ULP |", m[r].ulps, m[r].at_ulps, m[r].bound_ulps);
        for (d = 0; d < NDSTS; d++)
            printf(" %.3f |", m[r].dst_ulps[d]);
        printf("\n");
    }
}

/* Softmax rows: the worst error by distance from the row's maximum, in binary32 ULPs and after rounding. */
static void report_softmax(void)
{
    static const double edges[] = {0.0, 1.0, 8.0, 32.0, 128.0};
    enum { NB = 4, MAXW = 1000 };
    static float x[MAXW], y[MAXW];
    static uint16_t h[MAXW];
    static double r[MAXW], bnd[MAXW];
    static const size_t widths[] = {2, 10, 100, 1000};
    static const double spreads[] = {1.0, 10.0, 40.0};
    int lg;
    for (lg = 0; lg <= 1; lg++) {
        double worst[NB][3], wb[NB];
        uint64_t cnt[NB];
        size_t w, sp, rep, i, b, d;
        memset(worst, 0, sizeof worst);
        memset(wb, 0, sizeof wb);
        memset(cnt, 0, sizeof cnt);
        for (w = 0; w < 4; w++)
            for (sp = 0; sp < 3; sp++)
                for (rep = 0; rep < 200000 / widths[w]; rep++) {
                    size_t n = widths[w];
                    for (i = 0; i < n; i++)
                        x[i] = (float)(rnd_normal() * spreads[sp]);
                    ref_softmax(x, n, lg, r, bnd);
                    if (mf_softmax(lg, MF_FP32, y, MF_FP32, x, 1, n, NULL) != MF_OK)
                        abort();
                    for (d = 0; d < 3; d++) {
                        const fmtinfo *f = d == 0 ? &F32 : &DSTS[d - 1];
                        float m = x[0];
                        if (d > 0 && mf_softmax(lg, f->fmt, h, MF_FP32, x, 1, n, NULL) != MF_OK)
                            abort();
                        for (i = 1; i < n; i++)
                            m = x[i] > m ? x[i] : m;
                        for (i = 0; i < n; i++) {
                            double t = (double)m - x[i], v = d == 0 ? (double)y[i] : load_value(f->fmt, h, i), e;
                            for (b = 0; b + 1 < NB && t >= edges[b + 1]; b++)
                                ;
                            if (fabs(r[i]) > f->max || (!lg && r[i] < TINY32 * 2))
                                continue; /* out of range; exp underflowed */
                            e = err_ulps(v, r[i], f);
                            if (e > worst[b][d])
                                worst[b][d] = e;
                            if (d == 0) {
                                cnt[b]++;
                                if (bnd[i] / ulp_of(r[i], f) > wb[b])
                                    wb[b] = bnd[i] / ulp_of(r[i], f);
                            }
                        }
                    }
                }
        printf("\n%s (rows of 2 to 1000 N(0, s^2) values, s = 1, 10, 40):\n\n", lg ? "log-softmax" : "softmax");
        printf("| max - x in | elements | max binary32 ULP | bound | f16 ULP | bf16 ULP |\n|---|---|---|---|---|---|\n");
        for (b = 0; b < NB; b++)
            printf("| [%g, %g) | %llu | %.3f | %.3g | %.3f | %.3f |\n", edges[b], edges[b + 1], (unsigned long long)cnt[b],
                   worst[b][0], wb[b], worst[b][1], worst[b][2]);
    }
}

static int report(int exhaustive)
{
    static meas m[NREGIONS];
    uint64_t total = 0, bad = 0;
    printf("math library: %s\n", mf_elementwise_math());
    if (exhaustive) {
        float *x = malloc((1u << 16) * sizeof(float));
        uint64_t b;
        unsigned op;
        size_t i;
        if (!x)
            return 1;
        for (op = 0; op < MF_UNARY_COUNT; op++) {
            for (b = 0; b < (1ull << 32); b += 1u << 16) {
                for (i = 0; i < (1u << 16); i++)
                    x[i] = mf_test_bits_f32((uint32_t)(b + i));
                measure_block((mf_unary_op)op, x, 1u << 16, m, 0, &bad);
                total += 1u << 16;
            }
            fprintf(stderr, "%s done\n", mf_unary_name((mf_unary_op)op));
        }
        free(x);
        printf("every binary32 input: %llu per operation, outside the bounds: %llu\n\n",
               (unsigned long long)(total / MF_UNARY_COUNT), (unsigned long long)bad);
    } else {
        total = measure_all(m, 1, &bad);
        printf("%llu inputs (sweeps and random), outside the bounds: %llu\n\n", (unsigned long long)total,
               (unsigned long long)bad);
    }
    print_table(m);
    report_softmax();
    return bad != 0;
}

/* ---- suite ------------------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    Suite *s;
    TCase *tc;
    if (argc > 1 && strcmp(argv[1], "--report") == 0)
        return report(argc > 2 && strcmp(argv[2], "--exhaustive") == 0);
    s = suite_create("elementwise");
    tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_names);
    tcase_add_test(tc, test_bad_args);
    tcase_add_test(tc, test_accuracy);
    tcase_add_test(tc, test_narrow_sources);
    tcase_add_test(tc, test_rounding_and_stats);
    tcase_add_test(tc, test_exp_overflow);
    tcase_add_test(tc, test_specials);
    tcase_add_test(tc, test_softmax_edges);
    tcase_add_test(tc, test_softmax_accuracy);
    tcase_add_test(tc, test_softmax_layouts);
    tcase_add_test(tc, test_formulas);
    tcase_add_test(tc, test_environment);
    suite_add_tcase(s, tc);
    return mf_run_suite(s);
}
