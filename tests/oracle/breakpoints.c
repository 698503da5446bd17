/* SPDX-License-Identifier: MIT */
/* tests/oracle/breakpoints.c - see breakpoints.h. Doubles hold every value, midpoint and binary32
 * input exactly (at most 12 significant bits, exponents within [-150, 129]), so every comparison
 * below is exact. */
#include "breakpoints.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const mfo_fmt formats[] = {
    {"f16", 16, 5, 10, 15, MFO_KIND_IEEE}, {"bf16", 16, 8, 7, 127, MFO_KIND_IEEE},
    {"e4m3", 8, 4, 3, 7, MFO_KIND_FN},     {"e5m2", 8, 5, 2, 15, MFO_KIND_IEEE},
    {"e2m3", 6, 2, 3, 1, MFO_KIND_NONE},   {"e3m2", 6, 3, 2, 3, MFO_KIND_NONE},
    {"e2m1", 4, 2, 1, 1, MFO_KIND_NONE},   {"e8m0", 8, 8, 0, 127, MFO_KIND_E8M0},
    /* docs/formats.md, "The FNUZ formats and the IEEE-style FP8 formats" */
    {"e4m3fnuz", 8, 4, 3, 8, MFO_KIND_FNUZ}, {"e5m2fnuz", 8, 5, 2, 16, MFO_KIND_FNUZ},
    {"e4m3b11fnuz", 8, 4, 3, 11, MFO_KIND_FNUZ}, {"e4m3ieee", 8, 4, 3, 7, MFO_KIND_IEEE},
    {"e3m4", 8, 3, 4, 3, MFO_KIND_IEEE},
    /* IEEE P3109 binary{K}p{P}: signed K - P exponent bits, bias 2^(K-P-1); unsigned K - P + 1, 2^(K-P) */
    {"binary8p1se", 8, 7, 0, 64, MFO_KIND_P3109SE}, {"binary8p1sf", 8, 7, 0, 64, MFO_KIND_P3109SF},
    {"binary8p2se", 8, 6, 1, 32, MFO_KIND_P3109SE}, {"binary8p2sf", 8, 6, 1, 32, MFO_KIND_P3109SF},
    {"binary8p3se", 8, 5, 2, 16, MFO_KIND_P3109SE}, {"binary8p3sf", 8, 5, 2, 16, MFO_KIND_P3109SF},
    {"binary8p4se", 8, 4, 3, 8, MFO_KIND_P3109SE}, {"binary8p4sf", 8, 4, 3, 8, MFO_KIND_P3109SF},
    {"binary8p5se", 8, 3, 4, 4, MFO_KIND_P3109SE}, {"binary8p5sf", 8, 3, 4, 4, MFO_KIND_P3109SF},
    {"binary8p6se", 8, 2, 5, 2, MFO_KIND_P3109SE}, {"binary8p6sf", 8, 2, 5, 2, MFO_KIND_P3109SF},
    {"binary8p7se", 8, 1, 6, 1, MFO_KIND_P3109SE}, {"binary8p7sf", 8, 1, 6, 1, MFO_KIND_P3109SF},
    {"binary8p1ue", 8, 8, 0, 128, MFO_KIND_P3109UE}, {"binary8p1uf", 8, 8, 0, 128, MFO_KIND_P3109UF},
    {"binary8p2ue", 8, 7, 1, 64, MFO_KIND_P3109UE}, {"binary8p2uf", 8, 7, 1, 64, MFO_KIND_P3109UF},
    {"binary8p3ue", 8, 6, 2, 32, MFO_KIND_P3109UE}, {"binary8p3uf", 8, 6, 2, 32, MFO_KIND_P3109UF},
    {"binary8p4ue", 8, 5, 3, 16, MFO_KIND_P3109UE}, {"binary8p4uf", 8, 5, 3, 16, MFO_KIND_P3109UF},
    {"binary8p5ue", 8, 4, 4, 8, MFO_KIND_P3109UE}, {"binary8p5uf", 8, 4, 4, 8, MFO_KIND_P3109UF},
    {"binary8p6ue", 8, 3, 5, 4, MFO_KIND_P3109UE}, {"binary8p6uf", 8, 3, 5, 4, MFO_KIND_P3109UF},
    {"binary8p7ue", 8, 2, 6, 2, MFO_KIND_P3109UE}, {"binary8p7uf", 8, 2, 6, 2, MFO_KIND_P3109UF},
    {"binary8p8ue", 8, 1, 7, 1, MFO_KIND_P3109UE}, {"binary8p8uf", 8, 1, 7, 1, MFO_KIND_P3109UF},
    {"binary4p2sf", 4, 2, 1, 2, MFO_KIND_P3109SF},
};

const mfo_fmt *mfo_format(const char *tag)
{
    size_t i;
    for (i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (strcmp(formats[i].tag, tag) == 0)
            return &formats[i];
    return NULL;
}

const mfo_fmt *mfo_format_at(size_t i) { return i < sizeof formats / sizeof formats[0] ? &formats[i] : NULL; }

static int is_unsigned(const mfo_fmt *f)
{
    return f->kind == MFO_KIND_E8M0 || f->kind == MFO_KIND_P3109UE || f->kind == MFO_KIND_P3109UF;
}

static int is_p3109(const mfo_fmt *f) { return f->kind >= MFO_KIND_P3109SE; }

static int has_inf(const mfo_fmt *f)
{
    return f->kind == MFO_KIND_IEEE || f->kind == MFO_KIND_P3109SE || f->kind == MFO_KIND_P3109UE;
}

static uint32_t mag_mask(const mfo_fmt *f) { return is_unsigned(f) ? (1u << f->bits) - 1u : (1u << (f->bits - 1)) - 1u; }

uint32_t mfo_sign_bit(const mfo_fmt *f) { return is_unsigned(f) ? 0u : 1u << (f->bits - 1); }

uint32_t mfo_max_code(const mfo_fmt *f)
{
    switch (f->kind) {
    case MFO_KIND_IEEE: return mag_mask(f) - (1u << f->mbits); /* below the all-ones exponent */
    case MFO_KIND_FN: return mag_mask(f) - 1u;                 /* below S.1111.111 */
    case MFO_KIND_E8M0: return 0xFEu;
    case MFO_KIND_P3109SE: return mag_mask(f) - 1u; /* below +inf */
    case MFO_KIND_P3109UE: return mag_mask(f) - 2u; /* below +inf and NaN */
    case MFO_KIND_P3109UF: return mag_mask(f) - 1u; /* below NaN */
    default: return mag_mask(f);
    }
}

double mfo_mag_value(const mfo_fmt *f, uint32_t c)
{
    uint32_t e = c >> f->mbits, m = c & ((1u << f->mbits) - 1u);
    if (f->kind == MFO_KIND_E8M0)
        return ldexp(1.0, (int)c - 127);
    if (e == 0)
        return ldexp((double)m, 1 - f->bias - f->mbits);
    return ldexp((double)((1u << f->mbits) + m), (int)e - f->bias - f->mbits);
}

uint32_t mfo_nan_result(const mfo_fmt *f)
{
    if (f->kind == MFO_KIND_FNUZ || f->kind == MFO_KIND_P3109SE || f->kind == MFO_KIND_P3109SF)
        return mfo_sign_bit(f); /* the sign bit alone */
    return f->kind == MFO_KIND_NONE ? mfo_max_code(f) : mag_mask(f);
}

uint32_t mfo_inf_result(const mfo_fmt *f, int negative, int saturate)
{
    uint32_t s = negative ? mfo_sign_bit(f) : 0u;
    if (is_p3109(f) && negative && is_unsigned(f)) /* below [0, max]: SatFinite and SatPropagate 0, SatNone NaN */
        return saturate ? 0u : mfo_nan_result(f);
    /* SatPropagate (saturate 2): an infinity the format has stays (an IEEE kind, a P3109 extended format) */
    if (saturate == 2 && ((is_p3109(f) && has_inf(f)) || (!is_p3109(f) && f->kind == MFO_KIND_IEEE)))
        return (mfo_max_code(f) + 1u) | s;
    if (saturate)
        return mfo_max_code(f) | s;
    if (is_p3109(f)) /* SatNone keeps an infinity where the format has one; NaN in the finite formats */
        return has_inf(f) ? (mfo_max_code(f) + 1u) | s : mfo_nan_result(f);
    switch (f->kind) {
    case MFO_KIND_IEEE: return (mfo_max_code(f) + 1u) | s;
    case MFO_KIND_FN:
    case MFO_KIND_FNUZ:
    case MFO_KIND_E8M0: return mfo_nan_result(f);
    default: return mfo_max_code(f) | s;
    }
}

/* P3109 (4.7.5): a negative rounded value into an unsigned format, below its range [0, max]: SatFinite
 * gives 0, SatNone 0 under rz and ru (rounding toward the range), NaN otherwise. */
static uint32_t below_result(const mfo_fmt *f, mfo_mode m, int saturate)
{
    return saturate || m == MFO_RZ || m == MFO_RU ? 0u : mfo_nan_result(f);
}

/* Direction of a mode on the magnitude. */
enum { DIR_NEAREST_EVEN, DIR_NEAREST_UP, DIR_TOWARD_ZERO, DIR_AWAY, DIR_ODD };

static int direction(const mfo_fmt *f, mfo_mode m, int negative)
{
    int e8 = f->kind == MFO_KIND_E8M0;
    switch (m) {
    case MFO_RN: return e8 ? DIR_NEAREST_UP : DIR_NEAREST_EVEN; /* e8m0: a tie goes up */
    case MFO_RNA: return DIR_NEAREST_UP;
    case MFO_RZ: return DIR_TOWARD_ZERO;
    case MFO_RU: return negative && !e8 ? DIR_TOWARD_ZERO : DIR_AWAY;
    case MFO_RO: return DIR_ODD;
    default: return negative && !e8 ? DIR_AWAY : DIR_TOWARD_ZERO;
    }
}

uint32_t mfo_overflow_result(const mfo_fmt *f, mfo_mode m, int negative, int saturate)
{
    if (is_p3109(f) && negative && is_unsigned(f))
        return below_result(f, m, saturate);
    /* a finite overflow: SatPropagate clamps; round to odd outside P3109 gives max as rz does (docs/rounding.md) */
    if (direction(f, m, negative) == DIR_TOWARD_ZERO || saturate || (m == MFO_RO && !is_p3109(f)))
        return mfo_max_code(f) | (negative ? mfo_sign_bit(f) : 0u);
    return mfo_inf_result(f, negative, 0);
}

static double f32_value(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return (double)x;
}

/* Smallest magnitude pattern u in [0, 0x7F800000] whose value is >= v (or > v); 0x7F800000 (inf)
 * when no finite binary32 qualifies. Values rise with u, so a binary search finds it. */
static uint32_t first_u(double v, int strictly)
{
    uint32_t lo = 0, hi = 0x7F800000u;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        double x = f32_value(mid);
        if (strictly ? x > v : x >= v)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

uint32_t mfo_mag_code(const mfo_fmt *f, mfo_mode m, int saturate, int negative, uint32_t j)
{
    if (j > mfo_max_code(f))
        return mfo_overflow_result(f, m, negative, saturate);
    if (j == 0 && (f->kind == MFO_KIND_FNUZ || is_p3109(f))) /* no -0 */
        return 0;
    if (is_p3109(f) && negative && is_unsigned(f))
        return below_result(f, m, saturate);
    return j | (negative ? mfo_sign_bit(f) : 0u);
}

/* Append a boundary: from binary32 magnitude bits s on, code. 0 done, 1 s lies beyond binary32's finite values
 * (nothing appended), -1 s does not rise above the last boundary. */
static int bp_push(mfo_bp *t, size_t *n, uint32_t s, uint32_t code)
{
    if (s >= 0x7F800000u)
        return 1;
    if (s <= t->start[*n - 1])
        return -1;
    t->start[*n] = s;
    t->code[(*n)++] = code;
    return 0;
}

int mfo_bp_build(mfo_bp *t, const mfo_fmt *f, mfo_mode m, int saturate, int negative)
{
    const uint32_t top = mfo_max_code(f) + 1u; /* the virtual code above max */
    const int dir = direction(f, m, negative);
    size_t cap = 2 * (size_t)top + 4, n = 0; /* round to odd: two boundaries a code */
    uint32_t j;

    t->n = 0;
    t->start = NULL;
    t->code = NULL;
    if (dir == DIR_ODD && f->kind == MFO_KIND_E8M0)
        return -1;
    t->start = (uint32_t *)malloc((cap + 1) * sizeof *t->start);
    t->code = (uint32_t *)malloc(cap * sizeof *t->code);
    if (!t->start || !t->code) {
        mfo_bp_free(t);
        return -1;
    }
    t->start[n] = 0;
    t->code[n++] = mfo_mag_code(f, m, saturate, negative, 0);
    for (j = 1; j <= top; j++) {
        double lo = mfo_mag_value(f, j - 1), hi = mfo_mag_value(f, j);
        double mid = (lo + hi) / 2;
        uint32_t s;
        int r;
        if (!(lo < hi))
            goto fail;
        if (dir == DIR_ODD) { /* just above lo: the odd one of j - 1 and j; from hi on: j */
            r = bp_push(t, &n, first_u(lo, 1), mfo_mag_code(f, m, saturate, negative, (j - 1) & 1u ? j - 1 : j));
            if (r == 0)
                r = bp_push(t, &n, first_u(hi, 0), mfo_mag_code(f, m, saturate, negative, j));
        } else {
            switch (dir) {
            case DIR_NEAREST_EVEN: s = first_u(mid, (j & 1u) != 0); break; /* the tie goes to the even code */
            case DIR_NEAREST_UP: s = first_u(mid, 0); break;
            case DIR_TOWARD_ZERO: s = first_u(hi, 0); break;
            default: s = first_u(lo, 1); break;
            }
            r = bp_push(t, &n, s, mfo_mag_code(f, m, saturate, negative, j));
        }
        if (r < 0)
            goto fail;
        if (r > 0)
            break; /* this and higher codes need magnitudes beyond binary32 */
    }
    t->start[n] = 0x7F800000u;
    t->code[n++] = mfo_inf_result(f, negative, saturate);
    t->start[n] = 0x7F800001u;
    t->code[n++] = mfo_nan_result(f);
    t->start[n] = 0x80000000u;
    t->n = n;
    return 0;
fail:
    mfo_bp_free(t);
    return -1;
}

void mfo_bp_free(mfo_bp *t)
{
    free(t->start);
    free(t->code);
    t->start = NULL;
    t->code = NULL;
    t->n = 0;
}

uint32_t mfo_bp_lookup(const mfo_bp *t, uint32_t f32_bits)
{
    uint32_t u = f32_bits & 0x7FFFFFFFu;
    size_t lo = 0, hi = t->n - 1; /* the last k with start[k] <= u */
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        if (t->start[mid] <= u)
            lo = mid;
        else
            hi = mid - 1;
    }
    return t->code[lo];
}

/* The last magnitude code whose value is <= a (a below the value of top) */
static uint32_t last_code_below(const mfo_fmt *f, double a, uint32_t top)
{
    uint32_t lo = 0, hi = top;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (mfo_mag_value(f, mid) <= a)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

uint32_t mfo_round_slow(const mfo_fmt *f, mfo_mode m, int saturate, double x)
{
    const uint32_t top = mfo_max_code(f) + 1u;
    int negative = signbit(x) != 0;
    double a = fabs(x);
    uint32_t k, j;
    int dir = direction(f, m, negative);

    if (isnan(x))
        return mfo_nan_result(f);
    if (isinf(x))
        return mfo_inf_result(f, negative, saturate);
    if (a < mfo_mag_value(f, 0)) /* e8m0 only: below 2^-127 */
        return 0;
    if (a >= mfo_mag_value(f, top))
        return mfo_overflow_result(f, m, negative, saturate);
    k = last_code_below(f, a, top);
    if (mfo_mag_value(f, k) == a) {
        j = k;
    } else {
        double mid = (mfo_mag_value(f, k) + mfo_mag_value(f, k + 1)) / 2;
        switch (dir) {
        case DIR_TOWARD_ZERO: j = k; break;
        case DIR_AWAY: j = k + 1; break;
        case DIR_ODD: j = k & 1u ? k : k + 1; break;
        case DIR_NEAREST_UP: j = a >= mid ? k + 1 : k; break;
        default: j = a > mid || (a == mid && (k & 1u)) ? k + 1 : k; break;
        }
    }
    return mfo_mag_code(f, m, saturate, negative, j);
}

uint64_t mfo_sr_threshold(mfo_sr_kind kind, int n, double s)
{
    const uint64_t one = (uint64_t)1 << n;
    switch (kind) {
    case MFO_SR_A: return one - (uint64_t)floor(s);
    case MFO_SR_B: { /* 2R >= 2^(n+1) - 1 - floor(2s): R >= ceil of half of it */
        const uint64_t need = 2 * one - 1 - (uint64_t)floor(2 * s);
        return (need + 1) / 2;
    }
    default: { /* RNE(s): floor, up past the half, a half to the even integer */
        const double fl = floor(s), d = s - fl;
        const uint64_t r = (uint64_t)fl + (d > 0.5 || (d == 0.5 && fmod(fl, 2.0) != 0.0) ? 1u : 0u);
        return one - r;
    }
    }
}

uint32_t mfo_round_sr_slow(const mfo_fmt *f, mfo_sr_kind kind, int n, uint64_t r, int saturate, double x)
{
    const uint32_t top = mfo_max_code(f) + 1u;
    const int negative = signbit(x) != 0;
    const double a = fabs(x);
    uint32_t k;
    double s;

    if (isnan(x))
        return mfo_nan_result(f);
    if (isinf(x))
        return mfo_inf_result(f, negative, saturate);
    if (a >= mfo_mag_value(f, top)) /* both neighbours lie above max */
        return mfo_overflow_result(f, MFO_RO, negative, saturate);
    k = last_code_below(f, a, top);
    s = ldexp((a - mfo_mag_value(f, k)) / (mfo_mag_value(f, k + 1) - mfo_mag_value(f, k)), n);
    return mfo_mag_code(f, MFO_RO, saturate, negative, r >= mfo_sr_threshold(kind, n, s) ? k + 1 : k);
}
