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
 */
#ifndef MINIFLOAT_DETAIL_FORMAT_H
#define MINIFLOAT_DETAIL_FORMAT_H

#include "../types.h"

enum { MF__KIND_IEEE, MF__KIND_FN, MF__KIND_NONE, MF__KIND_E8M0, MF__KIND_FNUZ };

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
MF_HD MF_INLINE int mf__fmt_signed(mf__fmt f) { return f.kind != MF__KIND_E8M0; }

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

/* One of OCP's two FP8 formats, E4M3 and E5M2: the only ones the FP8 recipes, the block-scaled GEMM
 * and the tensor-core models take (the FNUZ and IEEE-style FP8 formats are not what that hardware runs). */
MF_HD MF_INLINE int mf__is_fp8(mf_format f) { return f == MF_FP8_E4M3 || f == MF_FP8_E5M2; }

#endif /* MINIFLOAT_DETAIL_FORMAT_H */
