/* SPDX-License-Identifier: MIT */
/* minifloat/detail/round.h - the one round-and-pack core (private).
 *
 * Every conversion goes the same way: the source code is unpacked into a sign, an unbiased exponent
 * and a 64-bit significand with its leading one at bit 63; mf__round_pack then rounds that value
 * once into the destination format. Source formats differ only in their unpacking, destination
 * formats only in the four facts of detail/format.h. Integers only: the caller's floating-point
 * environment (rounding mode, FTZ/DAZ) cannot change a result.
 */
#ifndef MINIFLOAT_DETAIL_ROUND_H
#define MINIFLOAT_DETAIL_ROUND_H

#include "bits.h"
#include "format.h"

enum { MF__CLS_ZERO, MF__CLS_FINITE, MF__CLS_INF, MF__CLS_NAN };

/* A decoded value. Finite: |value| = sig * 2^(exp - 63) with bit 63 of sig set.
 * NaN: sig holds the mantissa field left-aligned (its top bit at bit 63), for payload-keeping
 * widening. Zero and inf: sig = 0. */
typedef struct mf__unpacked {
    uint32_t sign;
    int cls;
    int32_t exp;
    uint64_t sig;
} mf__unpacked;

MF_HD MF_INLINE mf__unpacked mf__unpack(mf__fmt f, uint64_t code)
{
    mf__unpacked u;
    uint64_t mag = code & mf__fmt_mag_mask(f);
    uint64_t efield = mag >> f.man;
    uint64_t mant = mag & (((uint64_t)1 << f.man) - 1);
    int emax_field = (1 << (mf__fmt_mag_bits(f) - f.man)) - 1;

    u.sign = mf__fmt_signed(f) ? (uint32_t)(code >> (f.bits - 1)) & 1u : 0u;
    u.exp = 0;
    u.sig = 0;
    if (f.kind == MF__KIND_E8M0) {
        u.cls = mag == 0xFF ? MF__CLS_NAN : MF__CLS_FINITE;
        u.exp = (int32_t)mag - 127;
        u.sig = u.cls == MF__CLS_FINITE ? (uint64_t)1 << 63 : 0;
        return u;
    }
    if (f.kind == MF__KIND_FNUZ && code == mf__fmt_nan_code(f)) { /* the code of -0 */
        u.cls = MF__CLS_NAN;
        return u;
    }
    if (mf__fmt_p3109(f)) { /* one NaN, widened to the quiet NaN with sign and payload clear */
        if (code == mf__fmt_nan_code(f)) {
            u.sign = 0;
            u.cls = MF__CLS_NAN;
            return u;
        }
        if (mf__fmt_has_inf(f) && mag == mf__fmt_inf_code(f)) {
            u.cls = MF__CLS_INF;
            return u;
        }
    }
    if ((f.kind == MF__KIND_IEEE && efield == (uint64_t)emax_field) ||
        (f.kind == MF__KIND_FN && mag == mf__fmt_mag_mask(f))) {
        u.cls = mant ? MF__CLS_NAN : MF__CLS_INF;
        if (f.kind == MF__KIND_FN)
            u.cls = MF__CLS_NAN;
        u.sig = mant << (64 - f.man);
        return u;
    }
    if (efield == 0) {
        int lz;
        if (mant == 0) {
            u.cls = MF__CLS_ZERO;
            return u;
        }
        /* subnormal: normalise */
        u.sig = mant << (63 - f.man);
        lz = mf__clz64(u.sig);
        u.sig <<= lz;
        u.exp = mf__fmt_emin(f) - lz;
    } else {
        u.sig = (mant | ((uint64_t)1 << f.man)) << (63 - f.man);
        u.exp = (int32_t)efield - f.bias;
    }
    u.cls = MF__CLS_FINITE;
    return u;
}

/* Event bits reported by the core (the same values as the public MF_EVENT_* flags). */
enum {
    MF__EV_OVERFLOW = 1,
    MF__EV_UNDERFLOW = 2,
    MF__EV_SUBNORMAL = 4,
    MF__EV_NAN = 8,
    MF__EV_INEXACT = 16
};

/* Count one conversion's events (MF__EV_* bits) into *st: the one place that maps events to counts. */
MF_HD MF_INLINE void mf__stats_add(mf_stats *st, unsigned ev)
{
    st->overflow += (ev & MF__EV_OVERFLOW) != 0;
    st->underflow += (ev & MF__EV_UNDERFLOW) != 0;
    st->subnormal += (ev & MF__EV_SUBNORMAL) != 0;
    st->nan += (ev & MF__EV_NAN) != 0;
    st->inexact += (ev & MF__EV_INEXACT) != 0;
}

/* Add the counts of *from (one piece of a call) to *to. */
MF_HD MF_INLINE void mf__stats_sum(mf_stats *to, const mf_stats *from)
{
    to->overflow += from->overflow;
    to->underflow += from->underflow;
    to->subnormal += from->subnormal;
    to->nan += from->nan;
    to->inexact += from->inexact;
}

/* Result of an overflow: +-max, or the format's infinity (NaN where it has none). MF_OVERFLOW_PROPAGATE clamps
 * as MF_OVERFLOW_SATURATE does (it differs only for infinite inputs, in mf__round_pack).
 * P3109 formats: MF_OVERFLOW_SATURATE is the report's SatFinite (+-max) and MF_OVERFLOW_IEEE its SatNone,
 * where only the roundings toward the range (rz, ru below, rd above) give +-max; round to odd and
 * stochastic rounding overflow to the infinity (NaN in the finite formats) as the nearest modes do. */
MF_HD MF_INLINE uint64_t mf__overflow_code(mf__fmt f, uint32_t sign, mf_round r, mf_overflow o)
{
    const uint64_t sign_bit = mf__fmt_signed(f) ? (uint64_t)sign << (f.bits - 1) : 0;
    int to_inf = o == MF_OVERFLOW_IEEE &&
                 (r == MF_ROUND_NEAREST_EVEN || r == MF_ROUND_NEAREST_AWAY || r == MF_ROUND_STOCHASTIC ||
                  (r == MF_ROUND_UP && !sign) || (r == MF_ROUND_DOWN && sign));
    if (mf__fmt_p3109(f))
        to_inf = o == MF_OVERFLOW_IEEE && r != MF_ROUND_TOWARD_ZERO && !(r == MF_ROUND_UP && sign) &&
                 !(r == MF_ROUND_DOWN && !sign);
    if (to_inf && mf__fmt_has_inf(f))
        return mf__fmt_inf_code(f) | sign_bit;
    if (to_inf && mf__fmt_has_nan(f))
        return mf__fmt_nan_code(f);
    return mf__fmt_max_code(f) | sign_bit;
}

/* P3109: a negative infinity or a negative rounded value into an unsigned format lies below the range
 * (its least value is 0): SatFinite and SatPropagate give 0; SatNone gives 0 where the rounding goes toward the
 * range (rz, ru), NaN otherwise. */
MF_HD MF_INLINE uint32_t mf__p3109_below(mf__fmt f, mf_round r, mf_overflow o, int inf)
{
    if (o != MF_OVERFLOW_IEEE || (!inf && (r == MF_ROUND_TOWARD_ZERO || r == MF_ROUND_UP)))
        return 0;
    return (uint32_t)mf__fmt_nan_code(f);
}

/* A finite nonzero u on format f's grid (subnormals below, an unbounded exponent above): kept is the number of
 * units in the last place below |u| (the implicit bit included for normal values), frac the rest as a fraction of
 * one unit, left-aligned in 64 bits with a sticky bit in bit 0, and e_eff the exponent of that grid. */
typedef struct mf__split {
    uint64_t kept, frac;
    int e_eff;
} mf__split;

MF_HD MF_FORCE_INLINE mf__split mf__round_split(mf__fmt f, mf__unpacked u)
{
    const int emin = mf__fmt_emin(f);
    const int shift = u.exp < emin ? 63 - f.man + (emin - u.exp) : 63 - f.man;
    mf__split r;
    r.e_eff = u.exp < emin ? emin : u.exp;
    if (shift < 64) {
        r.kept = u.sig >> shift;
        r.frac = u.sig << (64 - shift);
    } else if (shift == 64) {
        r.kept = 0;
        r.frac = u.sig;
    } else if (shift < 128) {
        r.kept = 0;
        r.frac = (u.sig >> (shift - 64)) | (uint64_t)((u.sig << (128 - shift)) != 0);
    } else {
        r.kept = 0;
        r.frac = 1;
    }
    return r;
}

/* Round u into format f (which must not be f64) and return its code; ORs MF__EV_* into *ev.
 *
 * Rounding acts on the magnitude, with the format's subnormals below and an unbounded exponent
 * above; a rounded magnitude above max finite is an overflow. The discarded part of the significand
 * is kept left-aligned in `frac` (a fraction of one unit in the last place, in units of 2^-64, with
 * a sticky bit in bit 0), so that ties, directed modes and the 32-bit stochastic comparison all read
 * the same word. Always inlined: its format folds to constants only there (GCC 12 otherwise made an IPA-SRA
 * clone of it once the P3109 rules were added, which the exhaustive sweeps' flatten did not inline). */
MF_HD MF_FORCE_INLINE uint32_t mf__round_pack(mf__fmt f, mf__unpacked u, mf_round r, mf_overflow o, uint32_t rbits,
                                              unsigned *ev)
{
    const uint64_t half_ulp = (uint64_t)1 << 63;
    /* the sign rounding sees: unsigned P3109 formats round the signed value, e8m0 its magnitude */
    const uint32_t sign = mf__fmt_signed(f) || mf__fmt_p3109(f) ? u.sign : 0u;
    const int below = sign && !mf__fmt_signed(f); /* a negative value into an unsigned P3109 format */
    const uint64_t sign_bit = mf__fmt_signed(f) ? (uint64_t)sign << (f.bits - 1) : 0;
    const int emin = mf__fmt_emin(f);
    int e_eff, inc;
    uint64_t kept, frac, code;
    mf__split sp;

    switch (u.cls) {
    case MF__CLS_NAN:
        *ev |= MF__EV_NAN;
        return (uint32_t)mf__fmt_nan_code(f);
    case MF__CLS_INF:
        /* SatNone and SatPropagate keep an infinity the format has; SatFinite clamps it */
        if (mf__fmt_p3109(f)) {
            if (o != MF_OVERFLOW_SATURATE && mf__fmt_has_inf(f) && !below)
                return (uint32_t)(mf__fmt_inf_code(f) | sign_bit);
            *ev |= MF__EV_OVERFLOW | MF__EV_INEXACT;
            if (below)
                return mf__p3109_below(f, r, o, 1);
            return (uint32_t)(o != MF_OVERFLOW_IEEE ? mf__fmt_max_code(f) | sign_bit : mf__fmt_nan_code(f));
        }
        if (o != MF_OVERFLOW_SATURATE && f.kind == MF__KIND_IEEE)
            return (uint32_t)(mf__fmt_inf_code(f) | sign_bit);
        *ev |= MF__EV_OVERFLOW | MF__EV_INEXACT;
        if (o == MF_OVERFLOW_IEEE && mf__fmt_has_nan(f))
            return (uint32_t)mf__fmt_nan_code(f);
        return (uint32_t)(mf__fmt_max_code(f) | sign_bit);
    case MF__CLS_ZERO:
        if (f.kind == MF__KIND_E8M0) { /* no zero: the smallest scale, 2^-127 */
            *ev |= MF__EV_INEXACT;
            return 0;
        }
        return mf__fmt_neg_zero(f) ? (uint32_t)sign_bit : 0u;
    default:
        break;
    }

    if (u.exp < emin && f.kind == MF__KIND_E8M0) { /* no subnormals and no zero: clamp to 2^-127 */
        *ev |= MF__EV_INEXACT;
        return 0;
    }
    sp = mf__round_split(f, u);
    kept = sp.kept;
    frac = sp.frac;
    e_eff = sp.e_eff;

    /* the code below the value; its parity decides ties (at P = 1 that of the biased exponent, as the
     * P3109 report's CodeIsEven; e8m0's ties keep going up) */
    code = ((uint64_t)(e_eff - emin) << f.man) + kept;
    switch (r) {
    case MF_ROUND_NEAREST_AWAY: inc = frac >= half_ulp; break;
    case MF_ROUND_TOWARD_ZERO: inc = 0; break;
    case MF_ROUND_UP: inc = frac != 0 && !sign; break; /* sign: see above */
    case MF_ROUND_DOWN: inc = frac != 0 && sign; break;
    case MF_ROUND_ODD: inc = 0; break;
    case MF_ROUND_STOCHASTIC: inc = (int)((((frac >> 32) + rbits) >> 32) & 1u); break;
    default:
        inc = frac > half_ulp || (frac == half_ulp && ((f.kind == MF__KIND_E8M0 ? kept : code) & 1u));
        break;
    }

    /* kept carries the implicit bit for normal values, so one formula covers normal and
     * subnormal results and a carry into the next binade; e8m0 has no subnormal codes. */
    code += (uint64_t)inc;
    if (f.kind == MF__KIND_E8M0)
        code -= 1;
    if (r == MF_ROUND_ODD && frac != 0)
        code |= 1;

    if (frac != 0)
        *ev |= MF__EV_INEXACT;
    if (below && code != 0) {
        code = mf__p3109_below(f, r, o, 0);
        *ev |= MF__EV_OVERFLOW | MF__EV_INEXACT | (code == 0 ? (unsigned)MF__EV_UNDERFLOW : 0u);
        return (uint32_t)code;
    }
    if (code > mf__fmt_max_code(f)) {
        *ev |= MF__EV_OVERFLOW | MF__EV_INEXACT;
        return (uint32_t)mf__overflow_code(f, sign, r, o);
    }
    if (f.kind != MF__KIND_E8M0) {
        if (code == 0) {
            *ev |= MF__EV_UNDERFLOW;
            if (!mf__fmt_neg_zero(f)) /* FNUZ: zero has no sign */
                return 0;
        } else if (code < ((uint64_t)1 << f.man)) {
            *ev |= MF__EV_SUBNORMAL;
        }
    }
    return (uint32_t)(code | sign_bit);
}

/* Exact packing of a decoded narrow value into binary32 / binary64 bits (no rounding happens:
 * every finite value of every narrow format is representable in both). NaNs are the caller's. */
MF_HD MF_INLINE uint32_t mf__pack_f32_exact(mf__unpacked u)
{
    uint32_t s = u.sign << 31;
    if (u.cls == MF__CLS_ZERO)
        return s;
    if (u.cls == MF__CLS_INF)
        return s | 0x7F800000u;
    if (u.exp >= -126)
        return s | ((uint32_t)(u.exp + 127) << 23) | ((uint32_t)(u.sig >> 40) & 0x7FFFFFu);
    return s | (uint32_t)(u.sig >> (40 + (-126 - u.exp)));
}

MF_HD MF_INLINE uint64_t mf__pack_f64_exact(mf__unpacked u)
{
    uint64_t s = (uint64_t)u.sign << 63;
    if (u.cls == MF__CLS_ZERO)
        return s;
    if (u.cls == MF__CLS_INF)
        return s | 0x7FF0000000000000u;
    if (u.exp >= -1022)
        return s | ((uint64_t)(u.exp + 1023) << 52) | ((u.sig >> 11) & 0xFFFFFFFFFFFFFu);
    return s | (u.sig >> (11 + (-1022 - u.exp)));
}

/* Widening a NaN keeps its sign and payload and sets the quiet bit, as IEEE 754 and x86's
 * vcvtph2ps / cvtss2sd do. */
MF_HD MF_INLINE uint32_t mf__nan_f32(mf__unpacked u) { return (u.sign << 31) | 0x7FC00000u | (uint32_t)(u.sig >> 41); }

MF_HD MF_INLINE uint64_t mf__nan_f64(mf__unpacked u)
{
    return ((uint64_t)u.sign << 63) | 0x7FF8000000000000u | (u.sig >> 12);
}

#endif /* MINIFLOAT_DETAIL_ROUND_H */
