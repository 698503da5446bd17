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
    int p3109; /* 1 signed, 2 unsigned P3109 format: the report's projection, section 4.7 */
} mformat;

#define SIGNED(m, bias, max, maxc, sb, infc, nanc, inf, nanov, fnuz) \
    {(m) + 1, 3 - (bias) - ((m) + 1), bias, m, max, maxc, sb, infc, nanc, inf, nanov, 1, fnuz, 0}
/* P3109 (interim report 3.1, 4.7.2), written as each format's facts: precision P, bias, max, the codes of
 * max, NaN and inf. Signed: NaN 0x80, inf 0x7F; unsigned: NaN 0xFF, inf 0xFE; SatNone overflow gives
 * NaN in the finite formats. */
#define P3109S(P, bias, max, maxc, ext) \
    {P, 3 - (bias) - (P), bias, (P) - 1, max, maxc, 0x80u, (ext) ? 0x7Fu : 0u, 0x80u, ext, 1, 1, 1, 1}
#define P3109U(P, bias, max, maxc, ext) \
    {P, 3 - (bias) - (P), bias, (P) - 1, max, maxc, 0u, (ext) ? 0xFEu : 0u, 0xFFu, ext, 1, 0, 0, 2}

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
    {1, -126, 127, 0, 0x1p127, 0xFEu, 0, 0, 0xFFu, 0, 1, 0, 0, 0},
    /* FNUZ (e4m3fnuz, e5m2fnuz, e4m3b11fnuz): max at 0x7F, NaN 0x80 on NaN, inf and IEEE overflow */
    SIGNED(3, 8, 240.0, 0x7Fu, 0x80u, 0, 0x80u, 0, 1, 1),
    SIGNED(2, 16, 57344.0, 0x7Fu, 0x80u, 0, 0x80u, 0, 1, 1),
    SIGNED(3, 11, 30.0, 0x7Fu, 0x80u, 0, 0x80u, 0, 1, 1),
    /* IEEE-style e4m3ieee (inf 0x78) and e3m4 (inf 0x70), the canonical NaN 0x7F */
    SIGNED(3, 7, 240.0, 0x77u, 0x80u, 0x78u, 0x7Fu, 1, 0, 0),
    SIGNED(4, 3, 15.5, 0x6Fu, 0x80u, 0x70u, 0x7Fu, 1, 0, 0),
    /* binary8p{P}se / sf: max = (2 - 2^(1-P)) 2^(2^(7-P) - 1) extended, one step more where finite */
    P3109S(1, 64, 0x1p62, 0x7Eu, 1), P3109S(1, 64, 0x1p63, 0x7Fu, 0),
    P3109S(2, 32, 0x1p31, 0x7Eu, 1), P3109S(2, 32, 0x1.8p31, 0x7Fu, 0),
    P3109S(3, 16, 49152.0, 0x7Eu, 1), P3109S(3, 16, 57344.0, 0x7Fu, 0),
    P3109S(4, 8, 224.0, 0x7Eu, 1), P3109S(4, 8, 240.0, 0x7Fu, 0),
    P3109S(5, 4, 15.0, 0x7Eu, 1), P3109S(5, 4, 15.5, 0x7Fu, 0),
    P3109S(6, 2, 3.875, 0x7Eu, 1), P3109S(6, 2, 3.9375, 0x7Fu, 0),
    P3109S(7, 1, 1.96875, 0x7Eu, 1), P3109S(7, 1, 1.984375, 0x7Fu, 0),
    /* binary8p{P}ue / uf: the top two codes (one where finite) are not finite */
    P3109U(1, 128, 0x1p125, 0xFDu, 1), P3109U(1, 128, 0x1p126, 0xFEu, 0),
    P3109U(2, 64, 0x1.8p62, 0xFDu, 1), P3109U(2, 64, 0x1p63, 0xFEu, 0),
    P3109U(3, 32, 0x1.4p31, 0xFDu, 1), P3109U(3, 32, 0x1.8p31, 0xFEu, 0),
    P3109U(4, 16, 53248.0, 0xFDu, 1), P3109U(4, 16, 57344.0, 0xFEu, 0),
    P3109U(5, 8, 232.0, 0xFDu, 1), P3109U(5, 8, 240.0, 0xFEu, 0),
    P3109U(6, 4, 15.25, 0xFDu, 1), P3109U(6, 4, 15.5, 0xFEu, 0),
    P3109U(7, 2, 3.90625, 0xFDu, 1), P3109U(7, 2, 3.9375, 0xFEu, 0),
    P3109U(8, 1, 1.9765625, 0xFDu, 1), P3109U(8, 1, 1.984375, 0xFEu, 0),
    /* binary4p2sf: 0.25 .. 3, NaN 0x8 */
    {2, 3 - 2 - 2, 2, 1, 3.0, 0x7u, 0x8u, 0u, 0x8u, 0, 1, 1, 1, 1},
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
    if (!f->is_signed && !f->p3109) /* e8m0 */
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
    if (f->p3109) /* SatNone: only the roundings toward the range stop at max */
        special = !(mode == REF_RZ || (mode == REF_RU && neg) || (mode == REF_RD && !neg));
    else if (f->is_signed)
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
    if (isinf(x) && f->p3109 == 2 && neg) /* below the unsigned range */
        return saturate ? 0u : f->nan_code;
    if (isinf(x)) {
        if (saturate == 2 && f->has_inf) /* SatPropagate keeps an infinity the format has */
            return sign | f->inf_code;
        if (saturate)
            return sign | f->max_code;
        if (f->has_inf)
            return sign | f->inf_code;
        return f->nan_on_overflow ? f->nan_code : sign | f->max_code;
    }
    if (!f->is_signed && !f->p3109 && a < 0x1p-127)
        return 0;
    if (f->p3109 && mode == REF_RN) /* ties by the code's parity: at P = 1, the biased exponent's */
        goto rna;

    switch (mode) {
    case REF_RN:
    case REF_RZ:
    case REF_RU:
    case REF_RD: {
        mpfr_rnd_t r = mode == REF_RN ? MPFR_RNDN : mode == REF_RZ ? MPFR_RNDZ : mode == REF_RU ? MPFR_RNDU : MPFR_RNDD;
        if (!f->is_signed && mode == REF_RN) /* e8m0: ties go up, i.e. away */
            goto rna;
        round_into(f, y, f->is_signed || f->p3109 ? x : a, r);
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
            /* a tie: away (rna, e8m0's rn), or the even code of the two (P3109 rn) */
            mpfr_set(y, f->p3109 && mode == REF_RN && encode(f, z) % 2 == 0 ? z : u, MPFR_RNDN);
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
            else if (f->p3109 == 2 && neg) { /* a negative rounded value, below [0, max] */
                if (overflow)
                    *overflow = 1;
                return saturate ? 0u : f->nan_code;
            } else {
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
    if (f->p3109 == 2 && neg && !mpfr_zero_p(y)) { /* a negative rounded value, below [0, max] */
        if (overflow)
            *overflow = 1;
        return saturate || mode == REF_RZ || mode == REF_RU ? 0u : f->nan_code;
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
