/* SPDX-License-Identifier: MIT */
/* minifloat/detail/arith.h - binary32 arithmetic that does not depend on the FP environment (private).
 *
 * Scaling must give the same bits as PyTorch and Transformer Engine, which compute in binary32 with
 * round-to-nearest-even and no flush-to-zero. A C multiplication follows the caller's rounding mode
 * and FTZ/DAZ, so the portable code computes with integers instead: the exact product or quotient
 * goes through the one rounding core, mf__round_pack. Results equal IEEE 754 binary32 arithmetic in
 * round-to-nearest-even, with two choices where IEEE leaves backend: a NaN operand is returned quieted
 * (the first one, as x86 and ARM do), and an invalid operation (0 * inf, 0 / 0, inf / inf, inf - inf) gives
 * 0x7FC00000.
 *
 * PyTorch's GradScaler inverts its scale as (float)(1.0 / (double)scale). Rounding a quotient first
 * to binary64 and then to binary32 gives the correctly rounded binary32 quotient (53 >= 2 * 24 + 2,
 * Figueroa 1995), so mf__f32_div(1, scale) is that inverse, bit for bit (tests/test_arith.c checks).
 */
#ifndef MINIFLOAT_DETAIL_ARITH_H
#define MINIFLOAT_DETAIL_ARITH_H

#include "round.h"

#define MF__F32_DEFAULT_NAN 0x7FC00000u

MF_HD MF_INLINE uint32_t mf__f32_pack_rn(uint32_t sign, int32_t exp, uint64_t sig)
{
    mf__unpacked r;
    unsigned ev = 0;
    r.sign = sign;
    r.cls = MF__CLS_FINITE;
    r.exp = exp;
    r.sig = sig;
    return mf__round_pack(mf__fmt_get(MF_FP32), r, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0, &ev);
}

/* a + b, binary32 bits in and out (the ordered gradient sums of minifloat/mpi.h). inf + -inf gives
 * 0x7FC00000; an exact zero sum is +0 unless both operands are -0. */
MF_HD MF_INLINE uint32_t mf__f32_add_bits(uint32_t a, uint32_t b)
{
    const mf__fmt f = mf__fmt_get(MF_FP32);
    mf__unpacked x = mf__unpack(f, a), y = mf__unpack(f, b), t;
    uint64_t mx, my, s;
    int32_t d;
    int lz;
    if (x.cls == MF__CLS_NAN)
        return a | 0x00400000u;
    if (y.cls == MF__CLS_NAN)
        return b | 0x00400000u;
    if (x.cls == MF__CLS_INF)
        return (y.cls == MF__CLS_INF && x.sign != y.sign) ? MF__F32_DEFAULT_NAN : a;
    if (y.cls == MF__CLS_INF)
        return b;
    if (x.cls == MF__CLS_ZERO)
        return y.cls == MF__CLS_ZERO ? (a & b) : b;
    if (y.cls == MF__CLS_ZERO)
        return a;
    if (y.exp > x.exp || (y.exp == x.exp && y.sig > x.sig)) { /* |x| >= |y| */
        t = x;
        x = y;
        y = t;
    }
    /* significands at bits 62..39: one bit of headroom for the carry, 39 exact guard bits below; what a
     * long shift drops becomes a sticky bit far below the rounding position */
    mx = x.sig >> 1;
    my = y.sig >> 1;
    d = x.exp - y.exp;
    if (d >= 63)
        my = 1;
    else if (d > 0)
        my = (my >> d) | ((my & (((uint64_t)1 << d) - 1)) != 0);
    s = x.sign == y.sign ? mx + my : mx - my;
    if (s == 0)
        return 0;
    lz = mf__clz64(s);
    return mf__f32_pack_rn(x.sign, x.exp + 1 - lz, s << lz);
}

/* a * b, binary32 bits in and out. */
MF_HD MF_INLINE uint32_t mf__f32_mul_bits(uint32_t a, uint32_t b)
{
    const mf__fmt f = mf__fmt_get(MF_FP32);
    mf__unpacked x = mf__unpack(f, a), y = mf__unpack(f, b);
    uint32_t sign = x.sign ^ y.sign;
    uint64_t p;
    if (x.cls == MF__CLS_NAN)
        return a | 0x00400000u;
    if (y.cls == MF__CLS_NAN)
        return b | 0x00400000u;
    if (x.cls == MF__CLS_INF || y.cls == MF__CLS_INF)
        return (x.cls == MF__CLS_ZERO || y.cls == MF__CLS_ZERO) ? MF__F32_DEFAULT_NAN : (sign << 31) | 0x7F800000u;
    if (x.cls == MF__CLS_ZERO || y.cls == MF__CLS_ZERO)
        return sign << 31;
    /* 24-bit significands: the 48-bit product is exact */
    p = (x.sig >> 40) * (y.sig >> 40);
    if (p >> 47)
        return mf__f32_pack_rn(sign, x.exp + y.exp + 1, p << 16);
    return mf__f32_pack_rn(sign, x.exp + y.exp, p << 17);
}

/* a / b, binary32 bits in and out. */
MF_HD MF_INLINE uint32_t mf__f32_div_bits(uint32_t a, uint32_t b)
{
    const mf__fmt f = mf__fmt_get(MF_FP32);
    mf__unpacked x = mf__unpack(f, a), y = mf__unpack(f, b);
    uint32_t sign = x.sign ^ y.sign;
    uint64_t n, d, q;
    int lead;
    if (x.cls == MF__CLS_NAN)
        return a | 0x00400000u;
    if (y.cls == MF__CLS_NAN)
        return b | 0x00400000u;
    if (x.cls == MF__CLS_INF)
        return y.cls == MF__CLS_INF ? MF__F32_DEFAULT_NAN : (sign << 31) | 0x7F800000u;
    if (y.cls == MF__CLS_INF)
        return sign << 31;
    if (y.cls == MF__CLS_ZERO)
        return x.cls == MF__CLS_ZERO ? MF__F32_DEFAULT_NAN : (sign << 31) | 0x7F800000u;
    if (x.cls == MF__CLS_ZERO)
        return sign << 31;
    /* (X << 39) / Y has 39 or 40 bits: enough for the rounding, the remainder is the sticky bit */
    n = (x.sig >> 40) << 39;
    d = y.sig >> 40;
    q = n / d;
    q |= (uint64_t)(n % d != 0);
    lead = 63 - mf__clz64(q);
    return mf__f32_pack_rn(sign, x.exp - y.exp - 39 + lead, q << (63 - lead));
}

MF_HD MF_INLINE float mf__f32_mul(float a, float b)
{
    return mf__f32_from_bits(mf__f32_mul_bits(mf__f32_bits(a), mf__f32_bits(b)));
}

MF_HD MF_INLINE float mf__f32_div(float a, float b)
{
    return mf__f32_from_bits(mf__f32_div_bits(mf__f32_bits(a), mf__f32_bits(b)));
}

#endif /* MINIFLOAT_DETAIL_ARITH_H */
