/* SPDX-License-Identifier: MIT */
/* minifloat/detail/format.h - what the rounding core reads of each format (private): the numbers of its
 * row in minifloat/formats.inc, and everything derived from them.
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
 * The IEEE P3109 family (docs/formats.md, "IEEE P3109"): one zero, one NaN, subnormals (none at P = 1):
 *   P3109SE  signed extended: NaN = sign bit alone, +-inf = all-ones magnitude   binary8p4se ...
 *   P3109SF  signed finite: NaN = sign bit alone, every magnitude finite         binary8p4sf ...
 *   P3109UE  unsigned extended: no sign bit; NaN = all ones, +inf just below     binary8p4ue ...
 *   P3109UF  unsigned finite: no sign bit; NaN = all ones                        binary8p4uf ...
 * and rounding into them follows the report's projection (round, then saturate), detail/round.h.
 */
#ifndef MINIFLOAT_DETAIL_FORMAT_H
#define MINIFLOAT_DETAIL_FORMAT_H

#include "../types.h"

enum {
    MF__KIND_IEEE,
    MF__KIND_FN,
    MF__KIND_NONE,
    MF__KIND_E8M0,
    MF__KIND_FNUZ,
    MF__KIND_P3109SE,
    MF__KIND_P3109SF,
    MF__KIND_P3109UE,
    MF__KIND_P3109UF
};

/* A row's kind column is a P3109 kind: MF__IF_P3109_<kind>(x) keeps x for those rows, MF__IF_CLASSIC_<kind>(x)
 * for the others (the portable backend compiles a loop per pair only for the classic formats). */
#define MF__IF_P3109_IEEE(x)
#define MF__IF_P3109_FN(x)
#define MF__IF_P3109_NONE(x)
#define MF__IF_P3109_E8M0(x)
#define MF__IF_P3109_FNUZ(x)
#define MF__IF_P3109_P3109SE(x) x
#define MF__IF_P3109_P3109SF(x) x
#define MF__IF_P3109_P3109UE(x) x
#define MF__IF_P3109_P3109UF(x) x
#define MF__IF_CLASSIC_IEEE(x) x
#define MF__IF_CLASSIC_FN(x) x
#define MF__IF_CLASSIC_NONE(x) x
#define MF__IF_CLASSIC_E8M0(x) x
#define MF__IF_CLASSIC_FNUZ(x) x
#define MF__IF_CLASSIC_P3109SE(x)
#define MF__IF_CLASSIC_P3109SF(x)
#define MF__IF_CLASSIC_P3109UE(x)
#define MF__IF_CLASSIC_P3109UF(x)

/* A row's storage column as the bits one element takes in an array (minifloat/convert.h's layout). */
#define MF__STORE_BITS_F64 64
#define MF__STORE_BITS_F32 32
#define MF__STORE_BITS_U16 16
#define MF__STORE_BITS_U8 8
#define MF__STORE_BITS_U4 4

/* Four ints: the struct travels in two registers where a call is not inlined. */
typedef struct mf__fmt {
    int bits; /* width of a code in bits; 0 marks an unknown format */
    int man;  /* explicit mantissa bits */
    int bias;
    int kind;
} mf__fmt;

/* The facts of formats.inc's row for f (a switch, so that constant formats fold). */
MF_HD MF_FORCE_INLINE mf__fmt mf__fmt_get(mf_format f)
{
    mf__fmt r = {0, 0, 0, 0};
    switch (f) {
#define MF__FORMAT(e, value, tag, nbits, nman, nbias, nkind, ...) \
    case e: r.bits = nbits, r.man = nman, r.bias = nbias, r.kind = MF__KIND_##nkind; break;
#include "../formats.inc"
#undef MF__FORMAT
    }
    return r;
}

/* Bits one element of f takes in an array: 64, 32, 16, 8 (a code in the low bits of a byte) or 4 (two
 * codes a byte, element 0 in the low nibble); 0 for an unknown format. */
MF_HD MF_FORCE_INLINE int mf__fmt_store_bits(mf_format f)
{
    switch (f) {
#define MF__FORMAT(e, value, tag, nbits, nman, nbias, nkind, storage, ...) \
    case e: return MF__STORE_BITS_##storage;
#include "../formats.inc"
#undef MF__FORMAT
    }
    return 0;
}

/* Derived facts. */
MF_HD MF_INLINE int mf__fmt_p3109(mf__fmt f) { return f.kind >= MF__KIND_P3109SE; }

MF_HD MF_INLINE int mf__fmt_signed(mf__fmt f)
{
    return f.kind != MF__KIND_E8M0 && f.kind != MF__KIND_P3109UE && f.kind != MF__KIND_P3109UF;
}

/* Has the format infinities? */
MF_HD MF_INLINE int mf__fmt_has_inf(mf__fmt f)
{
    return f.kind == MF__KIND_IEEE || f.kind == MF__KIND_P3109SE || f.kind == MF__KIND_P3109UE;
}

/* Bits of the magnitude (everything but the sign). */
MF_HD MF_INLINE int mf__fmt_mag_bits(mf__fmt f) { return f.bits - mf__fmt_signed(f); }

/* Unbiased exponent of the smallest normal value. */
MF_HD MF_INLINE int mf__fmt_emin(mf__fmt f) { return f.kind == MF__KIND_E8M0 ? -127 : 1 - f.bias; }

MF_HD MF_INLINE uint64_t mf__fmt_mag_mask(mf__fmt f)
{
    return f.bits == 64 ? 0x7FFFFFFFFFFFFFFFu : (((uint64_t)1 << mf__fmt_mag_bits(f)) - 1);
}

/* Every bit of a code (sign included). */
MF_HD MF_INLINE uint64_t mf__fmt_code_mask(mf__fmt f)
{
    return f.bits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << f.bits) - 1);
}

/* Magnitude code of the largest finite value; codes are ordered like the values they encode. */
MF_HD MF_INLINE uint64_t mf__fmt_max_code(mf__fmt f)
{
    uint64_t all = mf__fmt_mag_mask(f);
    switch (f.kind) {
    case MF__KIND_IEEE: return all - ((uint64_t)1 << f.man); /* below the all-ones exponent */
    case MF__KIND_FN: return all - 1;                         /* below the one NaN code */
    case MF__KIND_E8M0: return all - 1;                       /* 0xFE = 2^127 */
    case MF__KIND_P3109SE: return all - 1;                    /* below +inf */
    case MF__KIND_P3109UE: return all - 2;                    /* below +inf and NaN */
    case MF__KIND_P3109UF: return all - 1;                    /* below NaN */
    default: return all;                                      /* every magnitude is finite */
    }
}

/* Positive infinity, or 0 where the format has none. */
MF_HD MF_INLINE uint64_t mf__fmt_inf_code(mf__fmt f)
{
    return mf__fmt_has_inf(f) ? mf__fmt_max_code(f) + 1 : 0;
}

/* The NaN every conversion produces: all ones with the sign clear, as PTX's cvt does; FNUZ and signed
 * P3109 formats have only the sign bit alone. Formats without NaN get +max (NVIDIA's choice for FP6/FP4). */
MF_HD MF_INLINE uint64_t mf__fmt_nan_code(mf__fmt f)
{
    if (f.kind == MF__KIND_FNUZ || f.kind == MF__KIND_P3109SE || f.kind == MF__KIND_P3109SF)
        return (uint64_t)1 << (f.bits - 1);
    return f.kind == MF__KIND_NONE ? mf__fmt_max_code(f) : mf__fmt_mag_mask(f);
}

/* Has the format a negative zero? (Every signed kind but FNUZ and P3109's.) */
MF_HD MF_INLINE int mf__fmt_neg_zero(mf__fmt f)
{
    return mf__fmt_signed(f) && f.kind != MF__KIND_FNUZ && !mf__fmt_p3109(f);
}

MF_HD MF_INLINE int mf__fmt_has_nan(mf__fmt f) { return f.kind != MF__KIND_NONE; }

/* One of OCP's two FP8 formats, E4M3 and E5M2: the only ones the FP8 recipes, the block-scaled GEMM
 * and the tensor-core models take (the FNUZ and IEEE-style FP8 formats are not what that hardware runs). */
MF_HD MF_INLINE int mf__is_fp8(mf_format f) { return f == MF_FP8_E4M3 || f == MF_FP8_E5M2; }

#endif /* MINIFLOAT_DETAIL_FORMAT_H */
