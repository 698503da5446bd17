/* SPDX-License-Identifier: MIT */
/* fuzz/ref_slow.h - an independent, slow reference for the fuzz targets.
 *
 * Written from the semantics list (docs/formats.md, docs/rounding.md), textbook style: every code of
 * a format is decoded with ldexp into a table, a value is rounded by finding its two neighbours in
 * the table and applying the mode's rule, overflow and specials are decided afterwards. It shares no
 * code with include/minifloat/ or src/ and does not include them: format ids, modes and event bits
 * are its own, and the fuzz targets translate.
 *
 * Inputs are doubles (a binary32 input is widened exactly first). Arithmetic is double:
 *   - decoding is exact (every narrow value and every binary32 value is a double);
 *   - for |x| between neighbours lo < |x| < hi, hi - lo is a power of two and |x| - lo is exact
 *     (lo lies on a grid no finer than the ulp of |x| in its own binade, so the difference is a
 *     multiple of ulp(|x|) below 2^53 ulps); hence the stochastic fraction (|x| - lo) / (hi - lo)
 *     and its 32-bit truncation are exact for binary64 inputs too. ref_round checks this and aborts
 *     if it ever fails, instead of silently comparing a wrong answer.
 * binary32 as a target (from binary64 inputs) is not tabulated (2^32 codes): its neighbours come
 * from the same grid formula, floor(|x| / ulp) * ulp.
 * The FNUZ formats and the IEEE-style FP8 formats follow docs/formats.md, "The FNUZ formats and the
 * IEEE-style FP8 formats"; they come after e8m0, so that older corpus bytes keep their formats.
 */
#ifndef MF_FUZZ_REF_SLOW_H
#define MF_FUZZ_REF_SLOW_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    REF_F32, REF_F16, REF_BF16, REF_E4M3, REF_E5M2, REF_E2M3, REF_E3M2, REF_E2M1, REF_E8M0,
    REF_E4M3FNUZ, REF_E5M2FNUZ, REF_E4M3B11FNUZ, REF_E4M3IEEE, REF_E3M4,
    REF_P3109_FIRST, /* the IEEE P3109 rows of ref_formats, in their order */
    REF_NFMT = REF_P3109_FIRST + 31
};
enum { REF_RN, REF_RNA, REF_RZ, REF_RU, REF_RD, REF_RO, REF_SR, REF_NMODE };
enum { REF_IEEE, REF_SAT };
enum { REF_EV_OVERFLOW = 1, REF_EV_UNDERFLOW = 2, REF_EV_SUBNORMAL = 4, REF_EV_NAN = 8, REF_EV_INEXACT = 16 };

/* How the top codes are used:
 *   IEEE  exponent field all ones: inf (mantissa 0) or NaN
 *   FN    only the all-ones magnitude is NaN, no inf (e4m3)
 *   NONE  every code is finite (FP6, FP4)
 *   E8M0  unsigned 2^(code - 127), 0xFF = NaN
 *   FNUZ  every magnitude is finite; the sign bit alone (the code of -0 elsewhere) is the one NaN:
 *         no inf, no -0 (e4m3fnuz, e5m2fnuz, e4m3b11fnuz)
 *   P3109SE, P3109SF, P3109UE, P3109UF  the IEEE P3109 family (interim report 3.1, 4.7): one zero, one NaN
 *         (signed: the sign bit alone; unsigned: all ones), +-inf in the extended ones (signed: the all-ones
 *         magnitude; unsigned: all ones - 1); REF_IEEE / REF_SAT are the report's SatNone / SatFinite */
enum {
    REF_KIND_IEEE, REF_KIND_FN, REF_KIND_NONE, REF_KIND_E8M0, REF_KIND_FNUZ,
    REF_KIND_P3109SE, REF_KIND_P3109SF, REF_KIND_P3109UE, REF_KIND_P3109UF
};

typedef struct ref_format {
    const char *name;
    int bits, ebits, mbits, bias, kind;
} ref_format;

static const ref_format ref_formats[REF_NFMT] = {
    {"f32", 32, 8, 23, 127, REF_KIND_IEEE},   {"f16", 16, 5, 10, 15, REF_KIND_IEEE},
    {"bf16", 16, 8, 7, 127, REF_KIND_IEEE},   {"e4m3", 8, 4, 3, 7, REF_KIND_FN},
    {"e5m2", 8, 5, 2, 15, REF_KIND_IEEE},     {"e2m3", 6, 2, 3, 1, REF_KIND_NONE},
    {"e3m2", 6, 3, 2, 3, REF_KIND_NONE},      {"e2m1", 4, 2, 1, 1, REF_KIND_NONE},
    {"e8m0", 8, 8, 0, 127, REF_KIND_E8M0},    {"e4m3fnuz", 8, 4, 3, 8, REF_KIND_FNUZ},
    {"e5m2fnuz", 8, 5, 2, 16, REF_KIND_FNUZ}, {"e4m3b11fnuz", 8, 4, 3, 11, REF_KIND_FNUZ},
    {"e4m3ieee", 8, 4, 3, 7, REF_KIND_IEEE},  {"e3m4", 8, 3, 4, 3, REF_KIND_IEEE},
    /* binary{K}p{P}: signed K - P exponent bits and bias 2^(K-P-1), unsigned K - P + 1 and 2^(K-P) */
    {"binary8p1se", 8, 7, 0, 64, REF_KIND_P3109SE},
    {"binary8p1sf", 8, 7, 0, 64, REF_KIND_P3109SF},
    {"binary8p2se", 8, 6, 1, 32, REF_KIND_P3109SE},
    {"binary8p2sf", 8, 6, 1, 32, REF_KIND_P3109SF},
    {"binary8p3se", 8, 5, 2, 16, REF_KIND_P3109SE},
    {"binary8p3sf", 8, 5, 2, 16, REF_KIND_P3109SF},
    {"binary8p4se", 8, 4, 3, 8, REF_KIND_P3109SE},
    {"binary8p4sf", 8, 4, 3, 8, REF_KIND_P3109SF},
    {"binary8p5se", 8, 3, 4, 4, REF_KIND_P3109SE},
    {"binary8p5sf", 8, 3, 4, 4, REF_KIND_P3109SF},
    {"binary8p6se", 8, 2, 5, 2, REF_KIND_P3109SE},
    {"binary8p6sf", 8, 2, 5, 2, REF_KIND_P3109SF},
    {"binary8p7se", 8, 1, 6, 1, REF_KIND_P3109SE},
    {"binary8p7sf", 8, 1, 6, 1, REF_KIND_P3109SF},
    {"binary8p1ue", 8, 8, 0, 128, REF_KIND_P3109UE},
    {"binary8p1uf", 8, 8, 0, 128, REF_KIND_P3109UF},
    {"binary8p2ue", 8, 7, 1, 64, REF_KIND_P3109UE},
    {"binary8p2uf", 8, 7, 1, 64, REF_KIND_P3109UF},
    {"binary8p3ue", 8, 6, 2, 32, REF_KIND_P3109UE},
    {"binary8p3uf", 8, 6, 2, 32, REF_KIND_P3109UF},
    {"binary8p4ue", 8, 5, 3, 16, REF_KIND_P3109UE},
    {"binary8p4uf", 8, 5, 3, 16, REF_KIND_P3109UF},
    {"binary8p5ue", 8, 4, 4, 8, REF_KIND_P3109UE},
    {"binary8p5uf", 8, 4, 4, 8, REF_KIND_P3109UF},
    {"binary8p6ue", 8, 3, 5, 4, REF_KIND_P3109UE},
    {"binary8p6uf", 8, 3, 5, 4, REF_KIND_P3109UF},
    {"binary8p7ue", 8, 2, 6, 2, REF_KIND_P3109UE},
    {"binary8p7uf", 8, 2, 6, 2, REF_KIND_P3109UF},
    {"binary8p8ue", 8, 1, 7, 1, REF_KIND_P3109UE},
    {"binary8p8uf", 8, 1, 7, 1, REF_KIND_P3109UF},
    {"binary4p2sf", 4, 2, 1, 2, REF_KIND_P3109SF},
};

static inline void ref_fail(const char *what)
{
    fprintf(stderr, "ref_slow: internal error: %s\n", what);
    abort();
}

static inline int ref_p3109(int f) { return ref_formats[f].kind >= REF_KIND_P3109SE; }

static inline int ref_signed(int f)
{
    const int k = ref_formats[f].kind;
    return k != REF_KIND_E8M0 && k != REF_KIND_P3109UE && k != REF_KIND_P3109UF;
}

/* Has the format a -0? (Not e8m0, unsigned, nor FNUZ, where that code is the NaN, nor P3109.) */
static inline int ref_has_neg_zero(int f)
{
    return ref_formats[f].kind != REF_KIND_E8M0 && ref_formats[f].kind != REF_KIND_FNUZ && !ref_p3109(f);
}

/* Mask of all code bits, and the sign bit (0 for e8m0). */
static inline uint32_t ref_code_mask(int f)
{
    return ref_formats[f].bits == 32 ? 0xFFFFFFFFu : (1u << ref_formats[f].bits) - 1u;
}
static inline uint32_t ref_sign_bit(int f) { return ref_signed(f) ? 1u << (ref_formats[f].bits - 1) : 0u; }

/* The value of a code: textbook decoding of the bit fields. NaN codes give NAN. */
static inline double ref_decode(int f, uint32_t code)
{
    const ref_format *F = &ref_formats[f];
    uint32_t s, E, M, eall, mall;
    double v;
    code &= ref_code_mask(f);
    if (F->kind == REF_KIND_E8M0)
        return code == 0xFFu ? NAN : ldexp(1.0, (int)code - 127);
    if (ref_p3109(f)) { /* the one NaN, the infinities; the rest by the fields below */
        const uint32_t top = ref_code_mask(f);
        if (ref_signed(f) ? code == ref_sign_bit(f) : code == top)
            return NAN;
        if (F->kind == REF_KIND_P3109SE && (code & ~ref_sign_bit(f)) == (top >> 1))
            return code & ref_sign_bit(f) ? -INFINITY : INFINITY;
        if (F->kind == REF_KIND_P3109UE && code == top - 1u)
            return INFINITY;
    }
    s = ref_signed(f) ? code >> (F->bits - 1) : 0u;
    E = (code >> F->mbits) & ((1u << F->ebits) - 1u);
    M = code & ((1u << F->mbits) - 1u);
    eall = (1u << F->ebits) - 1u;
    mall = (1u << F->mbits) - 1u;
    if (F->kind == REF_KIND_FNUZ && s && E == 0 && M == 0)
        v = NAN;
    else if (F->kind == REF_KIND_IEEE && E == eall)
        v = M ? NAN : INFINITY;
    else if (F->kind == REF_KIND_FN && E == eall && M == mall)
        v = NAN;
    else if (E == 0)
        v = ldexp((double)M, 1 - F->bias - F->mbits);
    else
        v = ldexp((double)(M | (1u << F->mbits)), (int)E - F->bias - F->mbits);
    return s ? -v : v;
}

/* Per-format facts derived from the table (all values exact). */
typedef struct ref_info {
    uint32_t max_code;   /* magnitude code of the largest finite value */
    double max;          /* largest finite value */
    double virt;         /* the value above max in the unbounded exponent: max + ulp(max) */
    double min_normal;   /* below it a nonzero value is subnormal (formats with subnormals) */
    uint32_t nan_code;   /* the NaN conversions produce: sign clear, all ones; FNUZ: the sign bit
                            alone (its only NaN); +max if none */
    uint32_t inf_code;   /* +inf, 0 when none */
    int has_inf, has_nan;
} ref_info;

static ref_info ref_infos[REF_NFMT];
/* Magnitude code -> value for the tabulated formats (all but f32). */
static double ref_tab_f16[1u << 15], ref_tab_bf16[1u << 15], ref_tab_e4m3[128], ref_tab_e5m2[128], ref_tab_e2m3[32],
    ref_tab_e3m2[32], ref_tab_e2m1[8], ref_tab_e8m0[256], ref_tab_e4m3fnuz[128], ref_tab_e5m2fnuz[128],
    ref_tab_e4m3b11fnuz[128], ref_tab_e4m3ieee[128], ref_tab_e3m4[128], ref_tab_p3109[REF_NFMT - REF_P3109_FIRST][256];
static double *const ref_tabs[REF_NFMT] = {NULL,
                                           ref_tab_f16,
                                           ref_tab_bf16,
                                           ref_tab_e4m3,
                                           ref_tab_e5m2,
                                           ref_tab_e2m3,
                                           ref_tab_e3m2,
                                           ref_tab_e2m1,
                                           ref_tab_e8m0,
                                           ref_tab_e4m3fnuz,
                                           ref_tab_e5m2fnuz,
                                           ref_tab_e4m3b11fnuz,
                                           ref_tab_e4m3ieee,
                                           ref_tab_e3m4,
                                           ref_tab_p3109[0],
                                           ref_tab_p3109[1],
                                           ref_tab_p3109[2],
                                           ref_tab_p3109[3],
                                           ref_tab_p3109[4],
                                           ref_tab_p3109[5],
                                           ref_tab_p3109[6],
                                           ref_tab_p3109[7],
                                           ref_tab_p3109[8],
                                           ref_tab_p3109[9],
                                           ref_tab_p3109[10],
                                           ref_tab_p3109[11],
                                           ref_tab_p3109[12],
                                           ref_tab_p3109[13],
                                           ref_tab_p3109[14],
                                           ref_tab_p3109[15],
                                           ref_tab_p3109[16],
                                           ref_tab_p3109[17],
                                           ref_tab_p3109[18],
                                           ref_tab_p3109[19],
                                           ref_tab_p3109[20],
                                           ref_tab_p3109[21],
                                           ref_tab_p3109[22],
                                           ref_tab_p3109[23],
                                           ref_tab_p3109[24],
                                           ref_tab_p3109[25],
                                           ref_tab_p3109[26],
                                           ref_tab_p3109[27],
                                           ref_tab_p3109[28],
                                           ref_tab_p3109[29],
                                           ref_tab_p3109[30]};
static int ref_ready;

static inline void ref_init(void)
{
    int f;
    if (ref_ready)
        return;
    for (f = 0; f < REF_NFMT; f++) {
        const ref_format *F = &ref_formats[f];
        ref_info *I = &ref_infos[f];
        int ex;
        I->has_inf = F->kind == REF_KIND_IEEE || F->kind == REF_KIND_P3109SE || F->kind == REF_KIND_P3109UE;
        I->has_nan = F->kind != REF_KIND_NONE;
        I->min_normal = F->kind == REF_KIND_E8M0 ? 0.0 : ldexp(1.0, 1 - F->bias);
        if (f == REF_F32) {
            I->max_code = 0x7F7FFFFFu;
            I->max = FLT_MAX;
        } else {
            uint32_t nmag = ref_signed(f) ? 1u << (F->bits - 1) : 1u << F->bits, c;
            double *t = ref_tabs[f];
            I->max_code = 0;
            for (c = 0; c < nmag; c++) {
                t[c] = ref_decode(f, c);
                if (isfinite(t[c]))
                    I->max_code = c;
            }
            /* The search below needs codes ordered like values, every finite code below max. */
            for (c = 1; c <= I->max_code; c++)
                if (!(t[c] > t[c - 1]))
                    ref_fail("table not increasing");
            for (c = I->max_code + 1; c < nmag; c++)
                if (isfinite(t[c]))
                    ref_fail("finite code above max");
            I->max = t[I->max_code];
        }
        frexp(I->max, &ex); /* max = m * 2^ex, 0.5 <= m < 1: ulp(max) = 2^(ex - 1 - mbits) */
        I->virt = I->max + ldexp(1.0, ex - 1 - F->mbits);
        I->inf_code = F->kind == REF_KIND_IEEE ? (((1u << F->ebits) - 1u) << F->mbits)
                      : I->has_inf            ? I->max_code + 1u /* P3109: just above max */
                                              : 0u;
        I->nan_code = !I->has_nan                                        ? I->max_code
                      : F->kind == REF_KIND_FNUZ || (ref_p3109(f) && ref_signed(f)) ? ref_sign_bit(f)
                                                                          : ref_code_mask(f) & ~ref_sign_bit(f);
    }
    ref_ready = 1;
}

static inline const ref_info *ref_info_of(int f)
{
    ref_init();
    return &ref_infos[f];
}

/* Is a code a nonzero subnormal? */
static inline int ref_is_subnormal_code(int f, uint32_t code)
{
    double v = fabs(ref_decode(f, code));
    return ref_formats[f].kind != REF_KIND_E8M0 && v != 0 && v < ref_info_of(f)->min_normal;
}

/* Neighbours of a finite magnitude ax with min <= ax < virt: lo <= ax < hi, consecutive values of
 * the format (hi may be virt); *lo_code is lo's magnitude code. */
static inline void ref_neighbours(int f, double ax, double *lo, double *hi, uint32_t *lo_code)
{
    const ref_info *I = ref_info_of(f);
    if (f == REF_F32) {
        int ex, e;
        double ulp;
        float lf;
        frexp(ax, &ex);
        e = ex - 1 < -126 ? -126 : ex - 1;
        ulp = ldexp(1.0, e - 23);
        *lo = floor(ax / ulp) * ulp;
        *hi = *lo + ulp;
        lf = (float)*lo; /* exact: lo is on the binary32 grid and <= FLT_MAX */
        if ((double)lf != *lo)
            ref_fail("f32 neighbour not representable");
        memcpy(lo_code, &lf, 4);
    } else {
        const double *t = ref_tabs[f];
        uint32_t a = 0, b = I->max_code; /* invariant: t[a] <= ax, answer in [a, b] */
        if (ax >= I->max) {
            *lo = I->max;
            *hi = I->virt;
            *lo_code = I->max_code;
            return;
        }
        while (a < b) {
            uint32_t m = a + (b - a + 1) / 2;
            if (t[m] <= ax)
                a = m;
            else
                b = m - 1;
        }
        *lo = t[a];
        *hi = t[a + 1];
        *lo_code = a;
    }
}

/* The code of an overflowed result (the rounded magnitude exceeds max). */
static inline uint32_t ref_overflow_code(int f, int neg, int mode, int pol)
{
    const ref_info *I = ref_info_of(f);
    uint32_t sb = neg ? ref_sign_bit(f) : 0u;
    int to_inf = pol == REF_IEEE && (mode == REF_RN || mode == REF_RNA || mode == REF_SR ||
                                     (mode == REF_RU && !neg) || (mode == REF_RD && neg));
    if (ref_p3109(f)) /* SatNone: ro overflows too; only the roundings toward the range stop at max */
        to_inf = pol == REF_IEEE && mode != REF_RZ && !(mode == REF_RU && neg) && !(mode == REF_RD && !neg);
    if (to_inf && I->has_inf)
        return I->inf_code | sb;
    if (to_inf && I->has_nan)
        return I->nan_code;
    return I->max_code | sb;
}

/* P3109 (4.7.5): a negative rounded value (or -inf) into an unsigned format, below its range [0, max]:
 * SatFinite gives 0, SatNone 0 for a finite value under rz or ru, NaN otherwise. */
static inline uint32_t ref_below(int f, int mode, int pol, int inf, unsigned *ev)
{
    uint32_t code = pol == REF_SAT || (!inf && (mode == REF_RZ || mode == REF_RU)) ? 0u : ref_info_of(f)->nan_code;
    *ev |= REF_EV_OVERFLOW | REF_EV_INEXACT | (code == 0 && !inf ? REF_EV_UNDERFLOW : 0u);
    return code;
}

/* Round x into format f under mode and pol; rbits is read by REF_SR only. ORs REF_EV_* into *ev. */
static inline uint32_t ref_round(int f, double x, int mode, int pol, uint32_t rbits, unsigned *ev)
{
    const ref_format *F = &ref_formats[f];
    const ref_info *I = ref_info_of(f);
    int neg = F->kind != REF_KIND_E8M0 && signbit(x); /* e8m0 reads |x| */
    int below = neg && !ref_signed(f);                 /* a negative value into an unsigned P3109 format */
    uint32_t sb = neg ? ref_sign_bit(f) : 0u;
    uint32_t zsb = ref_has_neg_zero(f) ? sb : 0u; /* the sign of a zero result: FNUZ has no -0 */
    double ax = fabs(x), lo, hi, res;
    uint32_t lo_code, code;
    int up;

    if (isnan(x)) {
        *ev |= REF_EV_NAN;
        return I->nan_code;
    }
    if (isinf(x) && below)
        return ref_below(f, mode, pol, 1, ev);
    if (isinf(x) && ref_p3109(f) && !I->has_inf) { /* no inf: SatFinite max, SatNone NaN */
        *ev |= REF_EV_OVERFLOW | REF_EV_INEXACT;
        return pol == REF_SAT ? I->max_code | sb : I->nan_code;
    }
    if (isinf(x)) {
        if (pol == REF_IEEE && I->has_inf)
            return I->inf_code | sb;
        *ev |= REF_EV_OVERFLOW | REF_EV_INEXACT;
        if (pol == REF_IEEE && I->has_nan)
            return I->nan_code;
        return I->max_code | sb;
    }
    if (F->kind == REF_KIND_E8M0 && ax < ldexp(1.0, -127)) { /* no zero: the smallest scale */
        *ev |= REF_EV_INEXACT;
        return 0;
    }
    if (ax == 0)
        return zsb;
    if (ax >= I->virt && below)
        return ref_below(f, mode, pol, 0, ev);
    if (ax >= I->virt) { /* rounds to virt or beyond in every mode */
        *ev |= REF_EV_OVERFLOW | REF_EV_INEXACT;
        return ref_overflow_code(f, neg, mode, pol);
    }
    ref_neighbours(f, ax, &lo, &hi, &lo_code);
    if (!(lo <= ax && ax < hi))
        ref_fail("neighbours do not bracket the input");
    if (ax == lo && below)
        return ref_below(f, mode, pol, 0, ev);
    if (ax == lo) {
        if (ref_is_subnormal_code(f, lo_code))
            *ev |= REF_EV_SUBNORMAL;
        return lo_code | sb;
    }
    {
        double dlo = ax - lo, dhi = hi - ax, gap = hi - lo;
        /* exactness of the differences (see the header comment) */
        if (lo + dlo != ax || ax + dhi != hi || dlo + dhi != gap)
            ref_fail("inexact neighbour distance");
        switch (mode) {
        case REF_RN:
            if (dlo != dhi)
                up = dhi < dlo;
            else /* tie: the even code; e8m0 ties go up */
                up = F->kind == REF_KIND_E8M0 ? 1 : (int)(lo_code & 1u);
            break;
        case REF_RNA: up = dhi <= dlo; break;
        case REF_RZ: up = 0; break;
        case REF_RU: up = !neg; break;
        case REF_RD: up = neg; break;
        case REF_RO: up = !(lo_code & 1u); break; /* lo | 1: lo if lo is odd, else the next code */
        case REF_SR: {
            double frac = dlo / gap, t = floor(ldexp(frac, 32));
            uint64_t fr = (uint64_t)t;
            if (!(frac > 0 && frac < 1) || ldexp(t, -32) > frac || ldexp(t + 1, -32) <= frac)
                ref_fail("stochastic fraction");
            up = fr + (uint64_t)rbits >= ((uint64_t)1 << 32);
            break;
        }
        default: ref_fail("mode"); return 0;
        }
    }
    *ev |= REF_EV_INEXACT;
    res = up ? hi : lo;
    if (res != 0 && below)
        return ref_below(f, mode, pol, 0, ev);
    if (res > I->max) {
        *ev |= REF_EV_OVERFLOW;
        return ref_overflow_code(f, neg, mode, pol);
    }
    code = up ? lo_code + 1 : lo_code;
    if (res == 0) {
        *ev |= REF_EV_UNDERFLOW;
        return zsb; /* code is 0 */
    }
    if (ref_is_subnormal_code(f, code))
        *ev |= REF_EV_SUBNORMAL;
    return code | sb;
}

/* The 32-bit stochastic fraction of x for format f: floor(2^32 (|x| - lo) / (hi - lo)), or 0 where
 * no rounding happens (exact, special, out of range). Lets a target probe the rbits threshold. */
static inline uint32_t ref_sr_fraction(int f, double x)
{
    const ref_info *I = ref_info_of(f);
    double ax = fabs(x), lo, hi;
    uint32_t lo_code;
    if (!isfinite(x) || ax == 0 || ax >= I->virt ||
        (ref_formats[f].kind == REF_KIND_E8M0 && ax < ldexp(1.0, -127)))
        return 0;
    ref_neighbours(f, ax, &lo, &hi, &lo_code);
    return (uint32_t)floor(ldexp((ax - lo) / (hi - lo), 32));
}

/* Bits a NaN code decodes to (quiet bit set, sign and payload kept, payload left-aligned);
 * bf16 -> f32 is the plain 16-bit shift and f32 -> f32 the bits themselves. */
static inline uint32_t ref_nan_f32_bits(int f, uint32_t code)
{
    const ref_format *F = &ref_formats[f];
    uint32_t s = ref_signed(f) ? (code >> (F->bits - 1)) & 1u : 0u;
    uint32_t M = code & ((1u << F->mbits) - 1u);
    if (ref_p3109(f)) /* the report recommends the quiet NaN with zero payload */
        return 0x7FC00000u;
    if (f == REF_BF16)
        return code << 16;
    if (f == REF_F32) /* no conversion: the bits themselves */
        return code;
    return (s << 31) | 0x7FC00000u | (M << (23 - F->mbits));
}

static inline uint64_t ref_nan_f64_bits(int f, uint32_t code)
{
    const ref_format *F = &ref_formats[f];
    uint64_t s = ref_signed(f) ? (code >> (F->bits - 1)) & 1u : 0u;
    uint64_t M = code & ((1u << F->mbits) - 1u);
    if (ref_p3109(f))
        return 0x7FF8000000000000u;
    return (s << 63) | 0x7FF8000000000000u | (M << (52 - F->mbits));
}

#endif /* MF_FUZZ_REF_SLOW_H */
