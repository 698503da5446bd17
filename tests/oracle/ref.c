/* SPDX-License-Identifier: MIT */
/* tests/oracle/ref.c - the textbook reference (see ref.h). Slow on purpose: tables, binary search,
 * comparisons. Nothing here is shared with the library. */
#include "oracle/ref.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* IEEE P3109 interim report, sections 3.1 and 4.7.2: K bits, precision P (P - 1 trailing bits); signed:
 * K - P exponent bits, bias 2^(K-P-1), NaN at 2^(K-1), +-inf at 2^(K-1) - 1 and 2^K - 1 (extended);
 * unsigned: K - P + 1 exponent bits, bias 2^(K-P), NaN at 2^K - 1, +inf at 2^K - 2 (extended). */
#define P3109S(name, K, P, ext)                                                                                  \
    {name, K, (K) - (P), (P) - 1, 1 << ((K) - (P) - 1), ext, 1, 1, (1u << ((K) - 1)) - 1u - (unsigned)(ext),      \
     1u << ((K) - 1), (ext) ? (1u << ((K) - 1)) - 1u : 0u, 1u << ((K) - 1), 1, 1}
#define P3109U(name, K, P, ext)                                                                                  \
    {name, K, (K) - (P) + 1, (P) - 1, 1 << ((K) - (P)), ext, 1, 0, (1u << (K)) - 2u - (unsigned)(ext), 0u,       \
     (ext) ? (1u << (K)) - 2u : 0u, (1u << (K)) - 1u, 0, 1}

/* From the format table of the semantics list. */
static const ref_info infos[REF_NFORMATS] = {
    /* name   bits e  m   bias inf nan sgn max_code     sign_bit     inf_code     nan_code     fnuz p3109 */
    {"f32", 32, 8, 23, 127, 1, 1, 1, 0x7F7FFFFFu, 0x80000000u, 0x7F800000u, 0x7FFFFFFFu, 0, 0},
    {"f16", 16, 5, 10, 15, 1, 1, 1, 0x7BFFu, 0x8000u, 0x7C00u, 0x7FFFu, 0, 0},
    {"bf16", 16, 8, 7, 127, 1, 1, 1, 0x7F7Fu, 0x8000u, 0x7F80u, 0x7FFFu, 0, 0},
    {"e4m3", 8, 4, 3, 7, 0, 1, 1, 0x7Eu, 0x80u, 0, 0x7Fu, 0, 0},
    {"e5m2", 8, 5, 2, 15, 1, 1, 1, 0x7Bu, 0x80u, 0x7Cu, 0x7Fu, 0, 0},
    {"e2m3", 6, 2, 3, 1, 0, 0, 1, 0x1Fu, 0x20u, 0, 0x1Fu, 0, 0},
    {"e3m2", 6, 3, 2, 3, 0, 0, 1, 0x1Fu, 0x20u, 0, 0x1Fu, 0, 0},
    {"e2m1", 4, 2, 1, 1, 0, 0, 1, 0x7u, 0x8u, 0, 0x7u, 0, 0},
    {"e8m0", 8, 8, 0, 127, 0, 1, 0, 0xFEu, 0, 0, 0xFFu, 0, 0},
    /* FNUZ: max 240 / 57344 / 30 at 0x7F, NaN 0x80 (the -0 code), no inf */
    {"e4m3fnuz", 8, 4, 3, 8, 0, 1, 1, 0x7Fu, 0x80u, 0, 0x80u, 1, 0},
    {"e5m2fnuz", 8, 5, 2, 16, 0, 1, 1, 0x7Fu, 0x80u, 0, 0x80u, 1, 0},
    {"e4m3b11fnuz", 8, 4, 3, 11, 0, 1, 1, 0x7Fu, 0x80u, 0, 0x80u, 1, 0},
    /* IEEE-style: e4m3ieee max 240 (0x77), inf 0x78; e3m4 max 15.5 (0x6F), inf 0x70; NaN made 0x7F */
    {"e4m3ieee", 8, 4, 3, 7, 1, 1, 1, 0x77u, 0x80u, 0x78u, 0x7Fu, 0, 0},
    {"e3m4", 8, 3, 4, 3, 1, 1, 1, 0x6Fu, 0x80u, 0x70u, 0x7Fu, 0, 0},
    P3109S("binary8p1se", 8, 1, 1),
    P3109S("binary8p1sf", 8, 1, 0),
    P3109S("binary8p2se", 8, 2, 1),
    P3109S("binary8p2sf", 8, 2, 0),
    P3109S("binary8p3se", 8, 3, 1),
    P3109S("binary8p3sf", 8, 3, 0),
    P3109S("binary8p4se", 8, 4, 1),
    P3109S("binary8p4sf", 8, 4, 0),
    P3109S("binary8p5se", 8, 5, 1),
    P3109S("binary8p5sf", 8, 5, 0),
    P3109S("binary8p6se", 8, 6, 1),
    P3109S("binary8p6sf", 8, 6, 0),
    P3109S("binary8p7se", 8, 7, 1),
    P3109S("binary8p7sf", 8, 7, 0),
    P3109U("binary8p1ue", 8, 1, 1),
    P3109U("binary8p1uf", 8, 1, 0),
    P3109U("binary8p2ue", 8, 2, 1),
    P3109U("binary8p2uf", 8, 2, 0),
    P3109U("binary8p3ue", 8, 3, 1),
    P3109U("binary8p3uf", 8, 3, 0),
    P3109U("binary8p4ue", 8, 4, 1),
    P3109U("binary8p4uf", 8, 4, 0),
    P3109U("binary8p5ue", 8, 5, 1),
    P3109U("binary8p5uf", 8, 5, 0),
    P3109U("binary8p6ue", 8, 6, 1),
    P3109U("binary8p6uf", 8, 6, 0),
    P3109U("binary8p7ue", 8, 7, 1),
    P3109U("binary8p7uf", 8, 7, 0),
    P3109U("binary8p8ue", 8, 8, 1),
    P3109U("binary8p8uf", 8, 8, 0),
    P3109S("binary4p2sf", 4, 2, 0),
};

const ref_info *ref_format_info(ref_format fmt) { return (unsigned)fmt < REF_NFORMATS ? &infos[fmt] : NULL; }

ref_format ref_format_named(const char *name)
{
    int f;
    for (f = 0; name && f < REF_NFORMATS; f++)
        if (strcmp(infos[f].name, name) == 0)
            return (ref_format)f;
    return REF_NFORMATS;
}

uint32_t ref_count_finite(ref_format fmt) { return infos[fmt].max_code + 1; }

/* Value of a magnitude code with the exponent unbounded above (codes past max_code continue the
 * pattern: the virtual neighbour of max is max_code + 1). */
static double magnitude_value(ref_format fmt, uint32_t c)
{
    const ref_info *f = &infos[fmt];
    uint32_t e, m;
    if (fmt == REF_E8M0)
        return ldexp(1.0, (int)c - 127);
    e = c >> f->man_bits;
    m = c & ((1u << f->man_bits) - 1u);
    if (e == 0) /* subnormal: 0.M * 2^(1-bias) */
        return ldexp((double)m, 1 - f->bias - f->man_bits);
    return ldexp((double)(m + (1u << f->man_bits)), (int)e - f->bias - f->man_bits);
}

static double *tables[REF_NFORMATS];
static double virtual_hi[REF_NFORMATS];

static const double *table(ref_format fmt)
{
    if (!tables[fmt]) {
        uint32_t n = ref_count_finite(fmt), c;
        double *t = (double *)malloc(n * sizeof *t);
        if (!t)
            abort();
        for (c = 0; c < n; c++)
            t[c] = magnitude_value(fmt, c);
        for (c = 1; c < n; c++) /* the table must be sorted for the search to mean anything */
            if (!(t[c] > t[c - 1]))
                abort();
        virtual_hi[fmt] = magnitude_value(fmt, n);
        tables[fmt] = t;
    }
    return tables[fmt];
}

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

int ref_neighbours(ref_format fmt, double a, double *lo, double *hi, uint32_t *lo_code, uint32_t *hi_code)
{
    if (!(a >= 0) || isinf(a))
        return 0;
    if (fmt == REF_F32) {
        const double virt = ldexp(1.0, 128);
        float f;
        if (a >= virt)
            return 0;
        if (a >= FLT_MAX) {
            *lo = FLT_MAX;
            *hi = virt;
            *lo_code = 0x7F7FFFFFu;
            *hi_code = 0x7F800000u;
            return 1;
        }
        f = (float)a; /* some neighbour; step down if it landed above */
        if ((double)f > a)
            f = nextafterf(f, 0.0f);
        *lo = f;
        *lo_code = f32_bits(f);
        f = nextafterf(f, INFINITY);
        *hi = f;
        *hi_code = f32_bits(f);
        return *lo <= a && a < *hi;
    } else {
        const double *t = table(fmt);
        uint32_t n = ref_count_finite(fmt), l = 0, h = n; /* find the last t[i] <= a */
        if (a >= virtual_hi[fmt] || a < t[0])
            return 0;
        while (h - l > 1) {
            uint32_t mid = l + (h - l) / 2;
            if (t[mid] <= a)
                l = mid;
            else
                h = mid;
        }
        *lo = t[l];
        *lo_code = l;
        *hi = l + 1 < n ? t[l + 1] : virtual_hi[fmt];
        *hi_code = l + 1;
        return 1;
    }
}

/* f = (a - lo) / (hi - lo) truncated to 32 bits, as an integer. Exact in double: a - lo is exact
 * (Sterbenz when lo > 0 since a < hi <= 2 lo, trivially when lo = 0), hi - lo is a power of two
 * (one quantum), so the quotient, the scaling by 2^32 and the floor are exact too. */
static uint32_t sr_fraction(double a, double lo, double hi)
{
    double q = (a - lo) / (hi - lo);
    return (uint32_t)floor(ldexp(q, 32));
}

uint32_t ref_sr_fraction(ref_format fmt, double a)
{
    double lo, hi;
    uint32_t lc, hc;
    if (!ref_neighbours(fmt, a, &lo, &hi, &lc, &hc) || a == lo)
        return 0;
    return sr_fraction(a, lo, hi);
}

static int is_nan_code(ref_format fmt, uint32_t mag)
{
    const ref_info *f = &infos[fmt];
    uint32_t expmask = ((1u << f->exp_bits) - 1u) << f->man_bits;
    switch (fmt) {
    case REF_E4M3: return mag == 0x7Fu;
    case REF_E8M0: return mag == 0xFFu;
    case REF_F32:
    case REF_F16:
    case REF_BF16:
    case REF_E5M2:
    case REF_E4M3IEEE:
    case REF_E3M4: return (mag & expmask) == expmask && (mag & ~expmask) != 0;
    default: return 0;
    }
}

double ref_decode(ref_format fmt, uint32_t code)
{
    const ref_info *f = &infos[fmt];
    uint32_t mag = code & ~f->sign_bit;
    int neg = f->sign_bit && (code & f->sign_bit);
    double v;
    if (fmt == REF_F32) {
        float x;
        memcpy(&x, &code, 4);
        return x;
    }
    if (f->fnuz && code == f->sign_bit) /* the -0 code is the NaN */
        return NAN;
    if (f->p3109 && code == f->nan_code)
        return NAN;
    if (is_nan_code(fmt, mag))
        return NAN;
    if (f->has_inf && mag == f->inf_code)
        v = INFINITY;
    else
        v = magnitude_value(fmt, mag);
    return neg ? -v : v;
}

/* Result of an overflow (rounded magnitude beyond max) under the policy and mode. */
static uint32_t overflow_code(ref_format fmt, int neg, int mode, int saturate)
{
    const ref_info *f = &infos[fmt];
    uint32_t sign = neg ? f->sign_bit : 0;
    int to_special;
    if (saturate)
        return sign | f->max_code;
    if (f->p3109) { /* SatNone: M^hi / M^lo only where the rounding goes toward the range (4.7.5) */
        if (mode == REF_RZ || (mode == REF_RD && !neg) || (mode == REF_RU && neg))
            return sign | f->max_code;
        return f->has_inf ? sign | f->inf_code : f->nan_code;
    }
    if (fmt == REF_E8M0) /* |x| is used: ru rounds up, rd like rz */
        to_special = mode == REF_RN || mode == REF_RNA || mode == REF_SR || mode == REF_RU;
    else
        to_special = mode == REF_RN || mode == REF_RNA || mode == REF_SR || (mode == REF_RU && !neg) ||
                     (mode == REF_RD && neg);
    if (!to_special)
        return sign | f->max_code;
    if (f->has_inf)
        return sign | f->inf_code;
    if (f->has_nan) /* e4m3, e8m0: the canonical NaN, sign clear; FNUZ: 0x80 */
        return f->nan_code;
    return sign | f->max_code; /* FP6 / FP4 */
}

/* P3109, 4.7.5: a negative rounded value into an unsigned format: SatFinite clamps to M^lo = 0, and so does
 * SatNone under rounding toward zero or toward +inf; SatNone gives NaN otherwise. */
static uint32_t below_code(const ref_info *f, int mode, int saturate)
{
    return saturate || mode == REF_RZ || mode == REF_RU ? 0u : f->nan_code;
}

static void derive_events(ref_format fmt, double x, uint32_t code, int overflow, ref_events *ev)
{
    double y = ref_decode(fmt, code);
    const ref_info *f = &infos[fmt];
    memset(ev, 0, sizeof *ev);
    ev->overflow = overflow;
    /* e8m0 has no sign: it converts |x|, and its events describe that conversion */
    ev->inexact = fmt == REF_E8M0 ? !(y == fabs(x)) : !(y == x);
    if (isfinite(x) && x != 0 && y == 0)
        ev->underflow = 1;
    if (fmt != REF_E8M0 && y != 0 && isfinite(y)) {
        double min_normal = ldexp(1.0, 1 - f->bias);
        ev->subnormal = fabs(y) < min_normal;
    }
}

uint32_t ref_round(ref_format fmt, double x, int mode, int saturate, uint32_t rbits, ref_events *ev)
{
    const ref_info *f = &infos[fmt];
    int neg = signbit(x) != 0;
    uint32_t sign = (neg && f->is_signed) ? f->sign_bit : 0;
    int rneg = neg && (f->is_signed || f->p3109); /* the sign the rounding sees (e8m0 rounds |x|) */
    double a = fabs(x), lo, hi;
    uint32_t lo_code, hi_code, mag;
    int overflow = 0, up;
    ref_events dummy;
    if (!ev)
        ev = &dummy;

    if (isnan(x)) {
        memset(ev, 0, sizeof *ev);
        ev->nan = 1;
        return f->nan_code;
    }
    if (isinf(x) && f->p3109) { /* 4.7.5: -inf into an unsigned format is below its range [0, max] */
        uint32_t c;
        if (neg && !f->is_signed)
            c = saturate ? 0u : f->nan_code;
        else if (saturate)
            c = sign | f->max_code;
        else
            c = f->has_inf ? sign | f->inf_code : f->nan_code;
        derive_events(fmt, x, c, !(f->has_inf && !saturate && !(neg && !f->is_signed)), ev);
        return c;
    }
    if (isinf(x)) {
        uint32_t c;
        if (saturate)
            c = sign | f->max_code;
        else if (f->has_inf)
            c = sign | f->inf_code;
        else if (f->has_nan)
            c = f->nan_code; /* e4m3 0x7F, e8m0 0xFF, FNUZ 0x80 */
        else
            c = sign | f->max_code;
        derive_events(fmt, x, c, !(f->has_inf && !saturate), ev);
        return c;
    }
    if (fmt == REF_E8M0 && a < ldexp(1.0, -127)) { /* zero and tiny: 2^-127 in every mode */
        derive_events(fmt, x, 0, 0, ev);
        return 0;
    }
    if (!ref_neighbours(fmt, a, &lo, &hi, &lo_code, &hi_code)) {
        /* at or beyond the virtual value above max: every mode's rounded magnitude exceeds max */
        uint32_t c = f->p3109 && neg && !f->is_signed ? below_code(f, mode, saturate)
                                                      : overflow_code(fmt, neg, mode, saturate);
        derive_events(fmt, x, c, 1, ev);
        return c;
    }
    if (a == lo) {
        mag = lo_code;
    } else if (mode == REF_RO) {
        mag = lo_code | 1u;
    } else {
        double mid = lo + (hi - lo) / 2; /* exact: one more bit than the format */
        switch (mode) {
        case REF_RN:
            if (a != mid)
                up = a > mid;
            else if (fmt == REF_E8M0)
                up = 1; /* both neighbours have a one-bit significand: the tie goes up */
            else
                up = (lo_code & 1u) != 0; /* to the even code */
            break;
        case REF_RNA: up = a >= mid; break;
        case REF_RZ: up = 0; break;
        case REF_RU: up = !rneg; break;
        case REF_RD: up = rneg; break;
        case REF_SR: up = (uint64_t)sr_fraction(a, lo, hi) + rbits >= ((uint64_t)1 << 32); break;
        default: abort();
        }
        mag = up ? hi_code : lo_code;
    }
    if (f->p3109 && neg && !f->is_signed && mag != 0) { /* a negative rounded value, below [0, max] */
        uint32_t c = below_code(f, mode, saturate);
        derive_events(fmt, x, c, 1, ev);
        return c;
    }
    if (mag > f->max_code) {
        overflow = 1;
        mag = overflow_code(fmt, neg, mode, saturate);
        derive_events(fmt, x, mag, overflow, ev);
        return mag;
    }
    if (f->fnuz && mag == 0) /* no -0: a zero result is +0, whatever the sign of x */
        sign = 0;
    derive_events(fmt, x, sign | mag, 0, ev);
    return sign | mag;
}
