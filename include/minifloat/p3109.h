/* SPDX-License-Identifier: MIT */
/* minifloat/p3109.h - the IEEE P3109 report's arithmetic on the signed P3109 formats, correctly rounded.
 *
 *   uint32_t s = mf_p3109_add(MF_BINARY8P4SE, a, b, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0);
 *
 * Each operation computes its exact result and rounds it once, by the same projection as mf_from_f64 (the
 * report's section 4.7.3: the mode, then SatNone = MF_OVERFLOW_IEEE, SatFinite = MF_OVERFLOW_SATURATE or
 * SatPropagate = MF_OVERFLOW_PROPAGATE; rbits as in minifloat/scalar.h). Sums and products are formed exactly
 * in integers (a fixed-point accumulator wide enough for any product plus any addend of the format), so FMA and
 * FAA round once and the caller's floating-point environment cannot change a result. The functions are inline,
 * like the scalar conversions they build on: usable in C, C++ and CUDA device code, with no library symbol to
 * export.
 *
 * Formats: the signed P3109 rows (binary8p1se ... binary8p7sf, binary4p2sf; docs/formats.md). Codes sit in
 * the low bits. An unsigned P3109 format, any other format, a code beyond the format's width or a mode or
 * policy outside its enum gives UINT32_MAX from the functions returning a code (not a code of any of these
 * formats) and MF_E_ARG (negative) from those returning an int. docs/formats.md ("Arithmetic") lists the
 * special cases, taken from the report's tables.
 */
#ifndef MINIFLOAT_P3109_H
#define MINIFLOAT_P3109_H

#include "scalar.h"

MF_BEGIN_DECLS

/* ---- internals ---------------------------------------------------------------------------------------- */

MF_HD MF_INLINE int mf__p3109_fmt_ok(mf__fmt f)
{
    return f.kind == MF__KIND_P3109SE || f.kind == MF__KIND_P3109SF;
}

MF_HD MF_INLINE int mf__p3109_ok(mf__fmt f, uint32_t code) { return mf__p3109_fmt_ok(f) && code <= mf__fmt_code_mask(f); }

/* Round an exact value once into f (the one place every rounding operation ends). */
MF_HD MF_INLINE uint32_t mf__p3109_round(mf__fmt f, mf__unpacked u, mf_round r, mf_overflow o, uint32_t rbits)
{
    unsigned ev = 0;
    return mf__round_pack(f, u, r, o, rbits, &ev);
}

MF_HD MF_INLINE mf__unpacked mf__p3109_special(int cls, uint32_t sign)
{
    mf__unpacked u;
    u.sign = sign;
    u.cls = cls;
    u.exp = 0;
    u.sig = 0;
    return u;
}

/* An exact sum of terms (-1)^s * m * 2^e. The unit of bit 0 is 2^(2 (emin - man)), the weight of the least
 * bit of a product of two subnormals; 6 limbs (384 bits) hold any product or operand of a signed K <= 8
 * format and the sum of three of them, in two's complement. */
#define MF__P3109_LIMBS 6
typedef struct {
    uint64_t w[MF__P3109_LIMBS];
    int32_t base;
} mf__p3109_acc;

MF_HD MF_INLINE void mf__p3109_acc_init(mf__p3109_acc *a, mf__fmt f)
{
    int i;
    for (i = 0; i < MF__P3109_LIMBS; i++)
        a->w[i] = 0;
    a->base = 2 * (mf__fmt_emin(f) - f.man);
}

MF_HD MF_INLINE void mf__p3109_acc_add(mf__p3109_acc *a, uint32_t neg, uint64_t m, int32_t e)
{
    uint64_t t[MF__P3109_LIMBS];
    uint64_t carry;
    int pos = (int)(e - a->base), li, sh, i;
    if (pos < 0) { /* a subnormal's significand, normalised: its bits below the base (every value's and every
                    * product's grid) are zeros */
        m >>= -pos;
        pos = 0;
    }
    li = pos >> 6, sh = pos & 63;
    for (i = 0; i < MF__P3109_LIMBS; i++)
        t[i] = 0;
    t[li] = m << sh;
    if (sh != 0 && li + 1 < MF__P3109_LIMBS)
        t[li + 1] = m >> (64 - sh);
    carry = neg ? 1u : 0u; /* -t = ~t + 1 */
    for (i = 0; i < MF__P3109_LIMBS; i++) {
        uint64_t ti = neg ? ~t[i] : t[i];
        uint64_t s = a->w[i] + ti;
        uint64_t c1 = s < ti;
        uint64_t s2 = s + carry;
        carry = c1 | (uint64_t)(s2 < s);
        a->w[i] = s2;
    }
}

/* The accumulator's value, exact but for a sticky bit in bit 0 of sig (the bits below the top 64): that
 * value rounds as the exact one into any format of fewer than 62 significant bits, every mode included. */
MF_HD MF_INLINE mf__unpacked mf__p3109_acc_value(mf__p3109_acc *a)
{
    mf__unpacked u = mf__p3109_special(MF__CLS_ZERO, 0);
    int i, top = -1, lz, t;
    uint64_t sticky = 0;
    if (a->w[MF__P3109_LIMBS - 1] >> 63) { /* negative: negate */
        uint64_t carry = 1;
        u.sign = 1;
        for (i = 0; i < MF__P3109_LIMBS; i++) {
            a->w[i] = ~a->w[i] + carry;
            carry = (uint64_t)(carry != 0 && a->w[i] == 0);
        }
    }
    for (i = MF__P3109_LIMBS - 1; i >= 0 && top < 0; i--)
        if (a->w[i] != 0)
            top = i;
    if (top < 0)
        return mf__p3109_special(MF__CLS_ZERO, 0);
    lz = mf__clz64(a->w[top]);
    t = 64 * top + 63 - lz; /* the index of the leading one */
    u.sig = a->w[top] << lz;
    if (top > 0) {
        if (lz != 0)
            u.sig |= a->w[top - 1] >> (64 - lz);
        sticky = a->w[top - 1] << lz;
        for (i = top - 2; i >= 0; i--)
            sticky |= a->w[i];
    }
    u.sig |= (uint64_t)(sticky != 0);
    u.cls = MF__CLS_FINITE;
    u.exp = (int32_t)t + a->base;
    return u;
}

/* A finite nonzero code as (sign, m, e): value (-1)^sign * m * 2^e, m an integer below 2^(man + 1). */
MF_HD MF_INLINE void mf__p3109_term(mf__unpacked u, uint64_t *m, int32_t *e, int man)
{
    *m = u.sig >> (63 - man);
    *e = u.exp - man;
}

/* a * b + c (c_on = 1) or a + b + c (prod = 0), or a two-operand subset; NaN and infinity by the report's
 * tables, which are IEEE 754's with one NaN and no -0. */
MF_HD MF_INLINE uint32_t mf__p3109_sum(mf_format fmt, int prod, uint32_t a, uint32_t b, uint32_t c, int c_on,
                                       mf_round r, mf_overflow o, uint32_t rbits)
{
    mf__fmt f = mf__fmt_get(fmt);
    mf__unpacked x, y, z;
    mf__p3109_acc acc;
    int inf_pos = 0, inf_neg = 0;
    if (!mf__p3109_ok(f, a) || !mf__p3109_ok(f, b) || !mf__p3109_ok(f, c) || (unsigned)r >= MF_ROUND_COUNT ||
        (unsigned)o >= MF_OVERFLOW_COUNT)
        return MF__BAD_CODE;
    x = mf__unpack(f, a);
    y = mf__unpack(f, b);
    z = c_on ? mf__unpack(f, c) : mf__p3109_special(MF__CLS_ZERO, 0);
    if (x.cls == MF__CLS_NAN || y.cls == MF__CLS_NAN || z.cls == MF__CLS_NAN)
        return (uint32_t)mf__fmt_nan_code(f);
    if (prod) {
        if ((x.cls == MF__CLS_INF && y.cls == MF__CLS_ZERO) || (x.cls == MF__CLS_ZERO && y.cls == MF__CLS_INF))
            return (uint32_t)mf__fmt_nan_code(f);
        if (x.cls == MF__CLS_INF || y.cls == MF__CLS_INF) {
            inf_pos = !(x.sign ^ y.sign);
            inf_neg = (int)(x.sign ^ y.sign);
        }
    } else {
        inf_pos = (x.cls == MF__CLS_INF && !x.sign) || (y.cls == MF__CLS_INF && !y.sign);
        inf_neg = (x.cls == MF__CLS_INF && x.sign) || (y.cls == MF__CLS_INF && y.sign);
    }
    inf_pos |= z.cls == MF__CLS_INF && !z.sign;
    inf_neg |= z.cls == MF__CLS_INF && z.sign;
    if (inf_pos && inf_neg)
        return (uint32_t)mf__fmt_nan_code(f);
    if (inf_pos || inf_neg)
        return mf__p3109_round(f, mf__p3109_special(MF__CLS_INF, (uint32_t)inf_neg), r, o, rbits);

    mf__p3109_acc_init(&acc, f);
    if (prod) {
        if (x.cls == MF__CLS_FINITE && y.cls == MF__CLS_FINITE) {
            uint64_t mx, my;
            int32_t ex, ey;
            mf__p3109_term(x, &mx, &ex, f.man);
            mf__p3109_term(y, &my, &ey, f.man);
            mf__p3109_acc_add(&acc, x.sign ^ y.sign, mx * my, ex + ey);
        }
    } else {
        mf__unpacked t[2];
        int i;
        t[0] = x;
        t[1] = y;
        for (i = 0; i < 2; i++)
            if (t[i].cls == MF__CLS_FINITE) {
                uint64_t m;
                int32_t e;
                mf__p3109_term(t[i], &m, &e, f.man);
                mf__p3109_acc_add(&acc, t[i].sign, m, e);
            }
    }
    if (z.cls == MF__CLS_FINITE) {
        uint64_t m;
        int32_t e;
        mf__p3109_term(z, &m, &e, f.man);
        mf__p3109_acc_add(&acc, z.sign, m, e);
    }
    return mf__p3109_round(f, mf__p3109_acc_value(&acc), r, o, rbits);
}

/* Order of a non-NaN code: ... -max < ... < 0 < ... < +max < +inf, as a signed integer. */
MF_HD MF_INLINE int32_t mf__p3109_ord(mf__fmt f, uint32_t code)
{
    int32_t mag = (int32_t)(code & (uint32_t)mf__fmt_mag_mask(f));
    return (code >> (f.bits - 1)) & 1u ? -mag : mag;
}

MF_HD MF_INLINE uint32_t mf__p3109_from_ord(mf__fmt f, int32_t ord)
{
    return ord < 0 ? (uint32_t)(-ord) | (1u << (f.bits - 1)) : (uint32_t)ord;
}

MF_HD MF_INLINE int mf__p3109_is_nan(mf__fmt f, uint32_t code) { return code == (uint32_t)mf__fmt_nan_code(f); }

/* ---- rounded operations: the code of the result, or UINT32_MAX for bad arguments -------------------------- */

/* a + b. */
MF_HD MF_INLINE uint32_t mf_p3109_add(mf_format fmt, uint32_t a, uint32_t b, mf_round r, mf_overflow o,
                                      uint32_t rbits)
{
    return mf__p3109_sum(fmt, 0, a, b, 0, 0, r, o, rbits);
}

/* a - b (a + Negate(b): exact, so one rounding). */
MF_HD MF_INLINE uint32_t mf_p3109_sub(mf_format fmt, uint32_t a, uint32_t b, mf_round r, mf_overflow o,
                                      uint32_t rbits)
{
    mf__fmt f = mf__fmt_get(fmt);
    if (!mf__p3109_ok(f, b))
        return MF__BAD_CODE;
    if (!mf__p3109_is_nan(f, b) && b != 0)
        b ^= 1u << (f.bits - 1);
    return mf__p3109_sum(fmt, 0, a, b, 0, 0, r, o, rbits);
}

/* a * b. */
MF_HD MF_INLINE uint32_t mf_p3109_mul(mf_format fmt, uint32_t a, uint32_t b, mf_round r, mf_overflow o,
                                      uint32_t rbits)
{
    return mf__p3109_sum(fmt, 1, a, b, 0, 0, r, o, rbits);
}

/* a * b + c, rounded once. */
MF_HD MF_INLINE uint32_t mf_p3109_fma(mf_format fmt, uint32_t a, uint32_t b, uint32_t c, mf_round r,
                                      mf_overflow o, uint32_t rbits)
{
    return mf__p3109_sum(fmt, 1, a, b, c, 1, r, o, rbits);
}

/* a + b + c, rounded once (the report's FAA). */
MF_HD MF_INLINE uint32_t mf_p3109_faa(mf_format fmt, uint32_t a, uint32_t b, uint32_t c, mf_round r,
                                      mf_overflow o, uint32_t rbits)
{
    return mf__p3109_sum(fmt, 0, a, b, c, 1, r, o, rbits);
}

/* One lane of a block, scale * element, by the report's Multiply: its class and sign (NaN for a NaN or 0 * inf). */
MF_HD MF_INLINE int mf__p3109_lane_cls(mf__unpacked s, mf__unpacked x, uint32_t *sign)
{
    *sign = s.sign ^ x.sign;
    if (s.cls == MF__CLS_NAN || x.cls == MF__CLS_NAN || (s.cls == MF__CLS_INF && x.cls == MF__CLS_ZERO) ||
        (s.cls == MF__CLS_ZERO && x.cls == MF__CLS_INF))
        return MF__CLS_NAN;
    if (s.cls == MF__CLS_INF || x.cls == MF__CLS_INF)
        return MF__CLS_INF;
    return s.cls == MF__CLS_ZERO || x.cls == MF__CLS_ZERO ? MF__CLS_ZERO : MF__CLS_FINITE;
}

/* BlockDotProduct (the report's 5.3.2): the sum over i < n of (sx * x[i]) * (sy * y[i]), each lane's scale times
 * element and each product exact, the sum exact, rounded once into fr by r and o (rbits as elsewhere). sx and sy
 * are the blocks' scale codes in formats fsx and fsy (Binary8p1uf in the report's MX-like blocks), x and y their n
 * element codes (one a byte, Binary4p2sf included) in formats fx and fy: any P3109 rows, fr too, but for elements
 * of 8 exponent bits (Binary8p1ue, Binary8p1uf), whose products outgrow the 384-bit sum. NaN and infinity by the
 * report's Multiply and Add: a NaN lane or product (a NaN, 0 * inf), or infinities of both signs in the sum, give
 * NaN; n = 0 gives the zero. A format that is not a P3109 row (or such an element format), a code wider than its
 * format, x or y NULL with n > 0, a mode or policy out of range: UINT32_MAX. The scales factor out of the sum
 * (every lane of a block shares one), so the accumulator spans the elements' range alone. */
MF_HD MF_INLINE uint32_t mf_p3109_block_dot(mf_format fr, mf_round r, mf_overflow o, uint32_t rbits, mf_format fsx,
                                            uint32_t sx, mf_format fx, const uint8_t *x, mf_format fsy, uint32_t sy,
                                            mf_format fy, const uint8_t *y, size_t n)
{
    const mf__fmt wr = mf__fmt_get(fr), wsx = mf__fmt_get(fsx), wx = mf__fmt_get(fx), wsy = mf__fmt_get(fsy),
                  wy = mf__fmt_get(fy);
    mf__unpacked usx, usy;
    mf__p3109_acc acc;
    uint64_t msx = 1, msy = 1;
    int32_t esx = 0, esy = 0;
    int inf_pos = 0, inf_neg = 0, nan = 0, i;
    size_t k;
    if (wr.bits == 0 || wsx.bits == 0 || wx.bits == 0 || wsy.bits == 0 || wy.bits == 0 || !mf__fmt_p3109(wr) ||
        !mf__fmt_p3109(wsx) || !mf__fmt_p3109(wx) || !mf__fmt_p3109(wsy) || !mf__fmt_p3109(wy) ||
        wx.bits - wx.man - mf__fmt_signed(wx) > 7 || wy.bits - wy.man - mf__fmt_signed(wy) > 7 ||
        sx > mf__fmt_code_mask(wsx) || sy > mf__fmt_code_mask(wsy) || (n > 0 && (!x || !y)) ||
        (unsigned)r >= MF_ROUND_COUNT || (unsigned)o >= MF_OVERFLOW_COUNT)
        return MF__BAD_CODE;
    for (k = 0; k < n; k++)
        if (x[k] > mf__fmt_code_mask(wx) || y[k] > mf__fmt_code_mask(wy))
            return MF__BAD_CODE;
    usx = mf__unpack(wsx, sx);
    usy = mf__unpack(wsy, sy);
    if (usx.cls == MF__CLS_FINITE)
        mf__p3109_term(usx, &msx, &esx, wsx.man);
    if (usy.cls == MF__CLS_FINITE)
        mf__p3109_term(usy, &msy, &esy, wsy.man);
    for (i = 0; i < MF__P3109_LIMBS; i++)
        acc.w[i] = 0;
    /* the grid of every term: the scales' last places times the two element formats' least steps */
    acc.base = esx + esy + (mf__fmt_emin(wx) - wx.man) + (mf__fmt_emin(wy) - wy.man);
    for (k = 0; k < n; k++) {
        const mf__unpacked ux = mf__unpack(wx, x[k]), uy = mf__unpack(wy, y[k]);
        uint32_t sa, sb;
        const int ca = mf__p3109_lane_cls(usx, ux, &sa), cb = mf__p3109_lane_cls(usy, uy, &sb);
        if (ca == MF__CLS_NAN || cb == MF__CLS_NAN || (ca == MF__CLS_INF && cb == MF__CLS_ZERO) ||
            (ca == MF__CLS_ZERO && cb == MF__CLS_INF)) {
            nan = 1;
        } else if (ca == MF__CLS_INF || cb == MF__CLS_INF) {
            inf_pos |= !(sa ^ sb);
            inf_neg |= (int)(sa ^ sb);
        } else if (ca == MF__CLS_FINITE && cb == MF__CLS_FINITE) {
            uint64_t mx, my;
            int32_t ex, ey;
            mf__p3109_term(ux, &mx, &ex, wx.man);
            mf__p3109_term(uy, &my, &ey, wy.man);
            mf__p3109_acc_add(&acc, sa ^ sb, msx * msy * mx * my, esx + esy + ex + ey);
        }
    }
    if (nan || (inf_pos && inf_neg))
        return (uint32_t)mf__fmt_nan_code(wr);
    if (inf_pos || inf_neg)
        return mf__p3109_round(wr, mf__p3109_special(MF__CLS_INF, (uint32_t)inf_neg), r, o, rbits);
    return mf__p3109_round(wr, mf__p3109_acc_value(&acc), r, o, rbits);
}

/* 1 / a: NaN for NaN and for zero (the report's table), 0 for +-inf. */
MF_HD MF_INLINE uint32_t mf_p3109_recip(mf_format fmt, uint32_t a, mf_round r, mf_overflow o, uint32_t rbits)
{
    mf__fmt f = mf__fmt_get(fmt);
    mf__unpacked x, q;
    uint64_t m, quo, rem;
    int32_t e;
    int lz;
    if (!mf__p3109_ok(f, a) || (unsigned)r >= MF_ROUND_COUNT || (unsigned)o >= MF_OVERFLOW_COUNT)
        return MF__BAD_CODE;
    x = mf__unpack(f, a);
    if (x.cls == MF__CLS_NAN || x.cls == MF__CLS_ZERO)
        return (uint32_t)mf__fmt_nan_code(f);
    if (x.cls == MF__CLS_INF)
        return 0;
    /* 1 / (m 2^e) = (2^63 / m) 2^(-63 - e); m < 2^8, so the quotient has 56 bits or more and the remainder
     * goes into a sticky bit below them */
    mf__p3109_term(x, &m, &e, f.man);
    quo = ((uint64_t)1 << 63) / m;
    rem = ((uint64_t)1 << 63) % m;
    lz = mf__clz64(quo);
    q.sign = x.sign;
    q.cls = MF__CLS_FINITE;
    q.sig = (quo << lz) | (uint64_t)(rem != 0);
    q.exp = -(int32_t)lz - e;
    return mf__p3109_round(f, q, r, o, rbits);
}

/* ---- exact operations: the code of the result, or UINT32_MAX for bad arguments ---------------------------- */

/* |a|; NaN stays NaN. */
MF_HD MF_INLINE uint32_t mf_p3109_abs(mf_format fmt, uint32_t a)
{
    mf__fmt f = mf__fmt_get(fmt);
    if (!mf__p3109_ok(f, a))
        return MF__BAD_CODE;
    return mf__p3109_is_nan(f, a) ? a : a & (uint32_t)mf__fmt_mag_mask(f);
}

/* -a; 0 and NaN stay as they are (one zero, one NaN). */
MF_HD MF_INLINE uint32_t mf_p3109_neg(mf_format fmt, uint32_t a)
{
    mf__fmt f = mf__fmt_get(fmt);
    if (!mf__p3109_ok(f, a))
        return MF__BAD_CODE;
    return mf__p3109_is_nan(f, a) || a == 0 ? a : a ^ (1u << (f.bits - 1));
}

/* The least value above a (NextUp) and the greatest below it (NextDown). NaN gives NaN; +inf stays +inf and
 * -inf -inf (as IEEE 754); in a finite format +max stays +max and -max -max (no value lies beyond). */
/* One step along the order: dir +1 (NextUp) or -1 (NextDown); the ends of the range stay put. */
MF_HD MF_INLINE uint32_t mf__p3109_next(mf_format fmt, uint32_t a, int32_t dir)
{
    mf__fmt f = mf__fmt_get(fmt);
    int32_t end;
    if (!mf__p3109_ok(f, a))
        return MF__BAD_CODE;
    if (mf__p3109_is_nan(f, a))
        return a;
    end = dir * (int32_t)mf__fmt_mag_mask(f);
    return mf__p3109_ord(f, a) == end ? a : mf__p3109_from_ord(f, mf__p3109_ord(f, a) + dir);
}

MF_HD MF_INLINE uint32_t mf_p3109_next_up(mf_format fmt, uint32_t a) { return mf__p3109_next(fmt, a, 1); }

MF_HD MF_INLINE uint32_t mf_p3109_next_down(mf_format fmt, uint32_t a) { return mf__p3109_next(fmt, a, -1); }

/* The min/max family. Minimum and Maximum give NaN if either operand is NaN; the *Number forms give the other
 * operand when one is NaN (NaN when both are); the *Magnitude forms compare |a| and |b| and break a tie by
 * Minimum or Maximum. */
enum {
    MF_P3109_MINIMUM,
    MF_P3109_MAXIMUM,
    MF_P3109_MINIMUM_NUMBER,
    MF_P3109_MAXIMUM_NUMBER,
    MF_P3109_MINIMUM_MAGNITUDE,
    MF_P3109_MAXIMUM_MAGNITUDE,
    MF_P3109_MINIMUM_MAGNITUDE_NUMBER,
    MF_P3109_MAXIMUM_MAGNITUDE_NUMBER
};
#define MF_P3109_MINMAX_COUNT 8

/* op is one of the MF_P3109_MINIMUM ... values above. */
MF_HD MF_INLINE uint32_t mf_p3109_minmax(mf_format fmt, int op, uint32_t a, uint32_t b)
{
    mf__fmt f = mf__fmt_get(fmt);
    int32_t oa, ob, ka, kb;
    int want_max, number, magnitude;
    if (!mf__p3109_ok(f, a) || !mf__p3109_ok(f, b) || op < 0 || op >= MF_P3109_MINMAX_COUNT)
        return MF__BAD_CODE;
    want_max = op & 1;
    number = op == MF_P3109_MINIMUM_NUMBER || op == MF_P3109_MAXIMUM_NUMBER ||
             op == MF_P3109_MINIMUM_MAGNITUDE_NUMBER || op == MF_P3109_MAXIMUM_MAGNITUDE_NUMBER;
    magnitude = op >= MF_P3109_MINIMUM_MAGNITUDE;
    if (mf__p3109_is_nan(f, a) || mf__p3109_is_nan(f, b)) {
        if (number && !mf__p3109_is_nan(f, a))
            return a;
        if (number && !mf__p3109_is_nan(f, b))
            return b;
        return (uint32_t)mf__fmt_nan_code(f);
    }
    oa = mf__p3109_ord(f, a);
    ob = mf__p3109_ord(f, b);
    ka = magnitude ? (oa < 0 ? -oa : oa) : oa;
    kb = magnitude ? (ob < 0 ? -ob : ob) : ob;
    if (ka == kb) { /* equal magnitudes: by value */
        ka = oa;
        kb = ob;
    }
    if (want_max)
        return ka >= kb ? a : b;
    return ka <= kb ? a : b;
}

/* ---- comparisons and predicates: an int, or MF_E_ARG for bad arguments ------------------------------------- */

enum { MF_P3109_LESS, MF_P3109_EQUAL, MF_P3109_GREATER, MF_P3109_UNORDERED };

/* How a compares with b: MF_P3109_UNORDERED if either is NaN. The report's CompareLess etc. are
 * mf_p3109_compare(...) == MF_P3109_LESS and so on. */
MF_HD MF_INLINE int mf_p3109_compare(mf_format fmt, uint32_t a, uint32_t b)
{
    mf__fmt f = mf__fmt_get(fmt);
    int32_t oa, ob;
    if (!mf__p3109_ok(f, a) || !mf__p3109_ok(f, b))
        return MF_E_ARG;
    if (mf__p3109_is_nan(f, a) || mf__p3109_is_nan(f, b))
        return MF_P3109_UNORDERED;
    oa = mf__p3109_ord(f, a);
    ob = mf__p3109_ord(f, b);
    return oa < ob ? MF_P3109_LESS : oa == ob ? MF_P3109_EQUAL : MF_P3109_GREATER;
}

/* TotalOrder(a, b): 1 if a orders before or with b, else 0. The order is that of the values, with the one NaN
 * after +inf (where IEEE 754 puts a positive NaN). */
MF_HD MF_INLINE int mf_p3109_total_order(mf_format fmt, uint32_t a, uint32_t b)
{
    mf__fmt f = mf__fmt_get(fmt);
    if (!mf__p3109_ok(f, a) || !mf__p3109_ok(f, b))
        return MF_E_ARG;
    if (mf__p3109_is_nan(f, b))
        return 1;
    if (mf__p3109_is_nan(f, a))
        return 0;
    return mf__p3109_ord(f, a) <= mf__p3109_ord(f, b);
}

/* Classes of a code; the report's predicates are tests of the class (IsNaN: MF_P3109_CLASS_NAN; IsZero; IsInf:
 * either infinity; IsFinite: neither NaN nor infinity; IsSubnormal; IsNormal; IsSignMinus: the classes below
 * zero). */
enum {
    MF_P3109_CLASS_NAN,
    MF_P3109_CLASS_NEG_INF,
    MF_P3109_CLASS_NEG_NORMAL,
    MF_P3109_CLASS_NEG_SUBNORMAL,
    MF_P3109_CLASS_ZERO,
    MF_P3109_CLASS_POS_SUBNORMAL,
    MF_P3109_CLASS_POS_NORMAL,
    MF_P3109_CLASS_POS_INF
};

MF_HD MF_INLINE int mf_p3109_class(mf_format fmt, uint32_t a)
{
    mf__fmt f = mf__fmt_get(fmt);
    mf__unpacked u;
    int neg;
    if (!mf__p3109_ok(f, a))
        return MF_E_ARG;
    u = mf__unpack(f, a);
    neg = (int)u.sign;
    switch (u.cls) {
    case MF__CLS_NAN: return MF_P3109_CLASS_NAN;
    case MF__CLS_ZERO: return MF_P3109_CLASS_ZERO;
    case MF__CLS_INF: return neg ? MF_P3109_CLASS_NEG_INF : MF_P3109_CLASS_POS_INF;
    default: break;
    }
    if (u.exp < mf__fmt_emin(f))
        return neg ? MF_P3109_CLASS_NEG_SUBNORMAL : MF_P3109_CLASS_POS_SUBNORMAL;
    return neg ? MF_P3109_CLASS_NEG_NORMAL : MF_P3109_CLASS_POS_NORMAL;
}

MF_END_DECLS

#endif /* MINIFLOAT_P3109_H */
