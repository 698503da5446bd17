/* SPDX-License-Identifier: MIT */
/* tests/oracle/mpfr_ref.c - the MPFR oracle (see mpfr_ref.h). Not thread-safe (static scratch). */
#include "oracle/mpfr_ref.h"

#include <math.h>
#include <stdlib.h>

#include <mpfr.h>

/* The format table again, in MPFR's terms (kept separate from ref.c on purpose). */
typedef struct {
    int prec;          /* mantissa bits + 1 */
    int emin;          /* MPFR exponent of the smallest positive value (0.1b * 2^emin) */
    int bias, man;
    double max;        /* largest finite value */
    uint32_t max_code, sign_bit, inf_code, nan_code;
    int has_inf, nan_on_overflow, is_signed;
    int fnuz; /* no -0 (its code is the NaN): a zero result is +0 */
} mformat;

#define SIGNED(m, bias, max, maxc, sb, infc, nanc, inf, nanov, fnuz) \
    {(m) + 1, 3 - (bias) - ((m) + 1), bias, m, max, maxc, sb, infc, nanc, inf, nanov, 1, fnuz}

static const mformat fmts[REF_NFORMATS] = {
    SIGNED(23, 127, 0x1.fffffep127, 0x7F7FFFFFu, 0x80000000u, 0x7F800000u, 0x7FFFFFFFu, 1, 0, 0),
    SIGNED(10, 15, 65504.0, 0x7BFFu, 0x8000u, 0x7C00u, 0x7FFFu, 1, 0, 0),
    SIGNED(7, 127, 0x1.FEp127, 0x7F7Fu, 0x8000u, 0x7F80u, 0x7FFFu, 1, 0, 0),
    SIGNED(3, 7, 448.0, 0x7Eu, 0x80u, 0, 0x7Fu, 0, 1, 0),
    SIGNED(2, 15, 57344.0, 0x7Bu, 0x80u, 0x7Cu, 0x7Fu, 1, 0, 0),
    SIGNED(3, 1, 7.5, 0x1Fu, 0x20u, 0, 0x1Fu, 0, 0, 0),
    SIGNED(2, 3, 28.0, 0x1Fu, 0x20u, 0, 0x1Fu, 0, 0, 0),
    SIGNED(1, 1, 6.0, 0x7u, 0x8u, 0, 0x7u, 0, 0, 0),
    /* e8m0: 2^-127 = 0.1b * 2^-126; no subnormals, no sign */
    {1, -126, 127, 0, 0x1p127, 0xFEu, 0, 0, 0xFFu, 0, 1, 0, 0},
    /* FNUZ (e4m3fnuz, e5m2fnuz, e4m3b11fnuz): max at 0x7F, NaN 0x80 on NaN, inf and IEEE overflow */
    SIGNED(3, 8, 240.0, 0x7Fu, 0x80u, 0, 0x80u, 0, 1, 1),
    SIGNED(2, 16, 57344.0, 0x7Fu, 0x80u, 0, 0x80u, 0, 1, 1),
    SIGNED(3, 11, 30.0, 0x7Fu, 0x80u, 0, 0x80u, 0, 1, 1),
    /* IEEE-style e4m3ieee (inf 0x78) and e3m4 (inf 0x70), the canonical NaN 0x7F */
    SIGNED(3, 7, 240.0, 0x77u, 0x80u, 0x78u, 0x7Fu, 1, 0, 0),
    SIGNED(4, 3, 15.5, 0x6Fu, 0x80u, 0x70u, 0x7Fu, 1, 0, 0),
};

int mpfr_ref_format_facts(ref_format fmt, mpfr_ref_format *out)
{
    const mformat *f;
    if ((unsigned)fmt >= REF_NFORMATS)
        return 0;
    f = &fmts[fmt];
    out->man = f->man, out->bias = f->bias, out->max = f->max;
    out->max_code = f->max_code, out->sign_bit = f->sign_bit, out->inf_code = f->inf_code, out->nan_code = f->nan_code;
    out->has_inf = f->has_inf, out->is_signed = f->is_signed, out->fnuz = f->fnuz;
    return 1;
}

static mpfr_t y, z, u, t1, t2;
static int ready;

static void setup(void)
{
    if (ready)
        return;
    mpfr_init2(y, 64);
    mpfr_init2(z, 64);
    mpfr_init2(u, 64);
    /* sums and differences of a double and its neighbours span < 60 bits; exactness is checked */
    mpfr_init2(t1, 256);
    mpfr_init2(t2, 256);
    ready = 1;
}

/* r = v rounded into the format (unbounded above); returns MPFR's ternary value. */
static int round_into(const mformat *f, mpfr_t r, double v, mpfr_rnd_t rnd)
{
    mpfr_exp_t old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
    int t;
    mpfr_set_prec(r, f->prec);
    mpfr_set_emin(f->emin);
    mpfr_set_emax(mpfr_get_emax_max());
    t = mpfr_set_d(r, v, rnd);
    t = mpfr_subnormalize(r, t, rnd);
    mpfr_set_emin(old_min);
    mpfr_set_emax(old_max);
    return t;
}

/* Code of a positive format value v (or 0), exponent unbounded above. */
static uint32_t encode(const mformat *f, const mpfr_t v)
{
    long e;
    if (mpfr_zero_p(v))
        return 0;
    e = (long)mpfr_get_exp(v) - 1; /* v = 1.xxx * 2^e */
    if (!f->is_signed)
        return (uint32_t)(e + 127);
    if (e < 1 - f->bias) { /* subnormal: v / min_subnormal */
        mpfr_mul_2si(t1, v, (long)f->bias - 1 + f->man, MPFR_RNDN);
        return (uint32_t)mpfr_get_ui(t1, MPFR_RNDN);
    }
    mpfr_mul_2si(t1, v, (long)f->man - e, MPFR_RNDN); /* 1.xxx * 2^man */
    return ((uint32_t)(e + f->bias) << f->man) | ((uint32_t)mpfr_get_ui(t1, MPFR_RNDN) - (1u << f->man));
}

static uint32_t overflow_result(const mformat *f, int neg, int mode, int saturate)
{
    uint32_t sign = neg ? f->sign_bit : 0;
    int special;
    if (saturate)
        return sign | f->max_code;
    if (f->is_signed)
        special = mode == REF_RN || mode == REF_RNA || mode == REF_SR || (mode == REF_RU && !neg) ||
                  (mode == REF_RD && neg);
    else
        special = mode == REF_RN || mode == REF_RNA || mode == REF_SR || mode == REF_RU;
    if (!special)
        return sign | f->max_code;
    if (f->has_inf)
        return sign | f->inf_code;
    if (f->nan_on_overflow)
        return f->nan_code;
    return sign | f->max_code;
}

uint32_t mpfr_ref_round(ref_format fmt, double x, int mode, int saturate, uint32_t rbits, int *overflow)
{
    const mformat *f = &fmts[fmt];
    int neg = signbit(x) != 0;
    uint32_t sign = (neg && f->is_signed) ? f->sign_bit : 0, code;
    double a = fabs(x);
    int t, ov = 0;
    setup();
    if (overflow)
        *overflow = 0;
    if (isnan(x))
        return f->nan_code;
    if (isinf(x)) {
        if (saturate)
            return sign | f->max_code;
        if (f->has_inf)
            return sign | f->inf_code;
        return f->nan_on_overflow ? f->nan_code : sign | f->max_code;
    }
    if (!f->is_signed && a < 0x1p-127)
        return 0;

    switch (mode) {
    case REF_RN:
    case REF_RZ:
    case REF_RU:
    case REF_RD: {
        mpfr_rnd_t r = mode == REF_RN ? MPFR_RNDN : mode == REF_RZ ? MPFR_RNDZ : mode == REF_RU ? MPFR_RNDU : MPFR_RNDD;
        if (!f->is_signed && mode == REF_RN) /* e8m0: ties go up, i.e. away */
            goto rna;
        round_into(f, y, f->is_signed ? x : a, r);
        mpfr_abs(y, y, MPFR_RNDN);
        break;
    }
    case REF_RNA:
    rna:
        if (round_into(f, z, a, MPFR_RNDZ) == 0) {
            mpfr_set_prec(y, f->prec);
            mpfr_set(y, z, MPFR_RNDN);
            break;
        }
        round_into(f, u, a, MPFR_RNDA);
        if (mpfr_add(t1, z, u, MPFR_RNDN) || mpfr_set_d(t2, a, MPFR_RNDN))
            abort();
        mpfr_mul_2ui(t2, t2, 1, MPFR_RNDN);
        if (mpfr_equal_p(t1, t2)) {
            mpfr_set_prec(y, f->prec);
            mpfr_set(y, u, MPFR_RNDN);
        } else {
            round_into(f, y, a, MPFR_RNDN);
        }
        break;
    case REF_RO:
        t = round_into(f, y, a, MPFR_RNDZ);
        if (t != 0 && mpfr_cmp_d(y, f->max) <= 0) {
            code = encode(f, y) | 1u;
            if (code > f->max_code)
                ov = 1;
            else {
                if (overflow)
                    *overflow = 0;
                return sign | code;
            }
        }
        break;
    case REF_SR:
        if (round_into(f, z, a, MPFR_RNDZ) == 0) {
            mpfr_set_prec(y, f->prec);
            mpfr_set(y, z, MPFR_RNDN);
            break;
        }
        round_into(f, u, a, MPFR_RNDA);
        if (mpfr_set_d(t1, a, MPFR_RNDN) || mpfr_sub(t1, t1, z, MPFR_RNDN) || mpfr_sub(t2, u, z, MPFR_RNDN))
            abort();
        /* hi - lo is one quantum, a power of two 2^(e-1): divide by it exactly, times 2^32 */
        if (mpfr_cmp_ui_2exp(t2, 1, mpfr_get_exp(t2) - 1) != 0)
            abort();
        mpfr_mul_2si(t1, t1, 32 - ((long)mpfr_get_exp(t2) - 1), MPFR_RNDN);
        mpfr_floor(t1, t1);
        mpfr_set_prec(y, f->prec);
        if ((uint64_t)mpfr_get_ui(t1, MPFR_RNDN) + rbits >= ((uint64_t)1 << 32))
            mpfr_set(y, u, MPFR_RNDN);
        else
            mpfr_set(y, z, MPFR_RNDN);
        break;
    default: abort();
    }
    if (ov || mpfr_cmp_d(y, f->max) > 0) {
        if (overflow)
            *overflow = 1;
        return overflow_result(f, neg, mode, saturate);
    }
    code = encode(f, y);
    if (f->fnuz && code == 0) /* no -0 */
        sign = 0;
    return sign | code;
}
