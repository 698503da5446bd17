/* SPDX-License-Identifier: MIT */
/* minifloat/detail/format.h - each format's facts, written once (private).
 *
 * A code is the format's bit pattern in the low bits of an integer. For the signed formats the top
 * bit of the storage width is the sign; the rest is exponent field then mantissa field:
 *
 *     e4m3:  S EEEE MMM        value = (-1)^S * 2^(E-7)  * 1.MMM   (E > 0)
 *                                      (-1)^S * 2^(1-7)  * 0.MMM   (E = 0, subnormal)
 *
 * Every finite value of every format is (-1)^S * 2^(E-bias) * 1.M, or the subnormal form at
 * E = 0; what differs is the treatment of the top codes, the "kind":
 *   IEEE  exponent field all ones = inf (mantissa 0) or NaN            f64 f32 f16 bf16 e5m2
 *   FN    only S.1111.111 is NaN; no inf (OCP "finite + NaN")          e4m3
 *   NONE  every code is finite; no inf, no NaN                          e2m3 e3m2 e2m1
 *   E8M0  unsigned, no mantissa, no zero: 2^(code-127); 0xFF is NaN     e8m0
 *   FNUZ  every magnitude is finite; the code of -0 (sign bit alone) is   e4m3fnuz e5m2fnuz
 *         the one NaN, so there is no -0 and no inf                      e4m3b11fnuz
 * (e4m3ieee and e3m4 are IEEE-style: kind IEEE.)
 */
#ifndef MINIFLOAT_DETAIL_FORMAT_H
#define MINIFLOAT_DETAIL_FORMAT_H

#include "../types.h"

enum { MF__KIND_IEEE, MF__KIND_FN, MF__KIND_NONE, MF__KIND_E8M0, MF__KIND_FNUZ };

/* The table. X(enum, tag, storage bits, mantissa bits, exponent bias, kind) */
#define MF__FORMATS(X)                                  \
    X(MF_FP32, f32, 32, 23, 127, MF__KIND_IEEE)         \
    X(MF_FP16, f16, 16, 10, 15, MF__KIND_IEEE)          \
    X(MF_BF16, bf16, 16, 7, 127, MF__KIND_IEEE)         \
    X(MF_FP8_E4M3, e4m3, 8, 3, 7, MF__KIND_FN)          \
    X(MF_FP8_E5M2, e5m2, 8, 2, 15, MF__KIND_IEEE)       \
    X(MF_FP6_E2M3, e2m3, 6, 3, 1, MF__KIND_NONE)        \
    X(MF_FP6_E3M2, e3m2, 6, 2, 3, MF__KIND_NONE)        \
    X(MF_FP4_E2M1, e2m1, 4, 1, 1, MF__KIND_NONE)        \
    X(MF_E8M0, e8m0, 8, 0, 127, MF__KIND_E8M0)          \
    X(MF_FP64, f64, 64, 52, 1023, MF__KIND_IEEE)       \
    X(MF_FP8_E4M3FNUZ, e4m3fnuz, 8, 3, 8, MF__KIND_FNUZ) \
    X(MF_FP8_E5M2FNUZ, e5m2fnuz, 8, 2, 16, MF__KIND_FNUZ) \
    X(MF_FP8_E4M3B11FNUZ, e4m3b11fnuz, 8, 3, 11, MF__KIND_FNUZ) \
    X(MF_FP8_E4M3IEEE, e4m3ieee, 8, 3, 7, MF__KIND_IEEE) \
    X(MF_FP8_E3M4, e3m4, 8, 4, 3, MF__KIND_IEEE)

typedef struct mf__fmt {
    int bits; /* storage width in bits; 0 marks an unknown format */
    int man;  /* explicit mantissa bits */
    int bias;
    int kind;
} mf__fmt;

MF_HD MF_FORCE_INLINE mf__fmt mf__fmt_get(mf_format f)
{
    mf__fmt r = {0, 0, 0, 0};
    switch (f) {
#define MF__FMT_CASE(e, tag, nbits, nman, nbias, nkind) \
    case e: r.bits = nbits; r.man = nman; r.bias = nbias; r.kind = nkind; break;
        MF__FORMATS(MF__FMT_CASE)
#undef MF__FMT_CASE
    }
    return r;
}

/* Derived facts. */
MF_HD MF_INLINE int mf__fmt_signed(mf__fmt f) { return f.kind != MF__KIND_E8M0; }

/* Bits of the magnitude (everything but the sign). */
MF_HD MF_INLINE int mf__fmt_mag_bits(mf__fmt f) { return f.bits - mf__fmt_signed(f); }

/* Unbiased exponent of the smallest normal value. */
MF_HD MF_INLINE int mf__fmt_emin(mf__fmt f) { return f.kind == MF__KIND_E8M0 ? -127 : 1 - f.bias; }

MF_HD MF_INLINE uint64_t mf__fmt_mag_mask(mf__fmt f)
{
    return f.bits == 64 ? 0x7FFFFFFFFFFFFFFFu : (((uint64_t)1 << mf__fmt_mag_bits(f)) - 1);
}

/* Magnitude code of the largest finite value; codes are ordered like the values they encode. */
MF_HD MF_INLINE uint64_t mf__fmt_max_code(mf__fmt f)
{
    uint64_t all = mf__fmt_mag_mask(f);
    switch (f.kind) {
    case MF__KIND_IEEE: return all - ((uint64_t)1 << f.man); /* below the all-ones exponent */
    case MF__KIND_FN: return all - 1;                         /* below the one NaN code */
    case MF__KIND_E8M0: return all - 1;                       /* 0xFE = 2^127 */
    default: return all;                                      /* every magnitude is finite */
    }
}

/* Positive infinity, or 0 where the format has none. */
MF_HD MF_INLINE uint64_t mf__fmt_inf_code(mf__fmt f)
{
    return f.kind == MF__KIND_IEEE ? mf__fmt_max_code(f) + 1 : 0;
}

/* The NaN every conversion produces: all ones with the sign clear, as PTX's cvt does; FNUZ formats
 * have only the sign bit alone. Formats without NaN get +max (NVIDIA's choice for FP6/FP4). */
MF_HD MF_INLINE uint64_t mf__fmt_nan_code(mf__fmt f)
{
    if (f.kind == MF__KIND_FNUZ)
        return (uint64_t)1 << (f.bits - 1);
    return f.kind == MF__KIND_NONE ? mf__fmt_max_code(f) : mf__fmt_mag_mask(f);
}

/* Has the format a negative zero? (Every signed kind but FNUZ.) */
MF_HD MF_INLINE int mf__fmt_neg_zero(mf__fmt f) { return f.kind != MF__KIND_E8M0 && f.kind != MF__KIND_FNUZ; }

MF_HD MF_INLINE int mf__fmt_has_nan(mf__fmt f) { return f.kind != MF__KIND_NONE; }

#endif /* MINIFLOAT_DETAIL_FORMAT_H */
