/* SPDX-License-Identifier: MIT */
/* src/gemm/bigacc.h - an exact fixed-point accumulator for GEMM (private).
 *
 * A 1536-bit two's-complement integer W; the value is W * 2^BIG_LSB. It holds every value mf_gemm forms
 * exactly: a product of two binary32 numbers has its lowest bit at 2^-298 or above, and three binary32
 * factors (alpha and two scales) move that down by at most 3 * 149 bits, to 2^-745 > 2^-768; a sum of
 * up to 2^64 products below 2^256, times three factors below 2^128, stays below 2^704 < 2^767.
 * Integers only, so no floating-point environment reaches it.
 */
#ifndef MF_GEMM_BIGACC_H
#define MF_GEMM_BIGACC_H

#include <stdint.h>
#include <string.h>

#include <minifloat/detail/round.h>

#define BIG_LIMBS 24
#define BIG_LSB (-768)

typedef struct big {
    uint64_t w[BIG_LIMBS]; /* little-endian limbs */
} big;

/* A finite binary32 value split as (-1)^neg * sig * 2^exp with sig an integer below 2^24. */
typedef struct f32parts {
    int neg;
    uint32_t sig;
    int exp;
} f32parts;

static inline f32parts f32_parts(uint32_t bits)
{
    f32parts p;
    const uint32_t e = (bits >> 23) & 0xFF, m = bits & 0x7FFFFF;
    p.neg = (int)(bits >> 31);
    p.sig = e ? m | 0x800000u : m;
    p.exp = (e ? (int)e : 1) - 150;
    return p;
}

static inline void big_zero(big *a) { memset(a, 0, sizeof *a); }

/* a += (-1)^neg * sig * 2^exp, for sig < 2^64 and exp >= BIG_LSB */
static inline void big_add(big *a, int neg, uint64_t sig, int exp)
{
    const unsigned pos = (unsigned)(exp - BIG_LSB);
    unsigned i = pos / 64;
    const unsigned sh = pos % 64;
    uint64_t lo = sig << sh, hi = sh ? sig >> (64 - sh) : 0, c;
    if (!sig)
        return;
    if (!neg) {
        uint64_t t = a->w[i] + lo;
        c = t < lo;
        a->w[i] = t;
        if (++i >= BIG_LIMBS)
            return;
        t = a->w[i] + hi;
        uint64_t c2 = t < hi;
        t += c;
        c2 |= t < c;
        a->w[i] = t;
        for (c = c2, ++i; c && i < BIG_LIMBS; i++)
            c = ++a->w[i] == 0;
    } else {
        uint64_t t = a->w[i];
        c = t < lo;
        a->w[i] = t - lo;
        if (++i >= BIG_LIMBS)
            return;
        t = a->w[i];
        uint64_t b2 = t < hi;
        t -= hi;
        b2 |= t < c;
        t -= c;
        a->w[i] = t;
        for (c = b2, ++i; c && i < BIG_LIMBS; i++)
            c = a->w[i]-- == 0;
    }
}

static inline int big_negative(const big *a) { return (int)(a->w[BIG_LIMBS - 1] >> 63); }

static inline void big_negate(big *a)
{
    uint64_t c = 1;
    for (unsigned i = 0; i < BIG_LIMBS; i++) {
        const uint64_t t = ~a->w[i] + c;
        c = c && t == 0;
        a->w[i] = t;
    }
}

static inline int big_is_zero(const big *a)
{
    for (unsigned i = 0; i < BIG_LIMBS; i++)
        if (a->w[i])
            return 0;
    return 1;
}

/* a *= (-1)^neg * sig * 2^exp (sig < 2^24; the ranges above keep every bit) */
static inline void big_mul(big *a, int neg, uint32_t sig, int exp)
{
    const int sgn = big_negative(a);
    uint64_t carry = 0;
    unsigned i;
    if (sgn)
        big_negate(a);
    for (i = 0; i < BIG_LIMBS; i++) { /* magnitude * sig, in 32-bit halves */
        const uint64_t lo = (a->w[i] & 0xFFFFFFFFu) * sig + carry;
        const uint64_t hi = (a->w[i] >> 32) * sig + (lo >> 32);
        a->w[i] = (lo & 0xFFFFFFFFu) | (hi << 32);
        carry = hi >> 32;
    }
    if (exp > 0) { /* shift left */
        const unsigned q = (unsigned)exp / 64, r = (unsigned)exp % 64;
        for (i = BIG_LIMBS; i-- > 0;) {
            const uint64_t x = i >= q ? a->w[i - q] : 0, y = i >= q + 1 ? a->w[i - q - 1] : 0;
            a->w[i] = r ? (x << r) | (y >> (64 - r)) : x;
        }
    } else if (exp < 0) { /* shift right */
        const unsigned q = (unsigned)-exp / 64, r = (unsigned)-exp % 64;
        for (i = 0; i < BIG_LIMBS; i++) {
            const uint64_t x = i + q < BIG_LIMBS ? a->w[i + q] : 0, y = i + q + 1 < BIG_LIMBS ? a->w[i + q + 1] : 0;
            a->w[i] = r ? (x >> r) | (y << (64 - r)) : x;
        }
    }
    if (sgn != neg)
        big_negate(a);
}

/* The value as the rounding core's input: sign, exponent and 64 significant bits with every lower
 * bit ORed into bit 0 (a sticky bit: enough for every mode into formats of at most 24 bits, the
 * 32-bit stochastic comparison included). Zero is +0. */
static inline mf__unpacked big_unpack(const big *x)
{
    big a = *x;
    mf__unpacked u;
    int i;
    u.sign = (uint32_t)big_negative(&a);
    if (u.sign)
        big_negate(&a);
    u.cls = MF__CLS_ZERO;
    u.exp = 0;
    u.sig = 0;
    for (i = BIG_LIMBS - 1; i >= 0 && !a.w[i]; i--)
        ;
    if (i < 0) {
        u.sign = 0;
        return u;
    }
    {
        const int lz = mf__clz64(a.w[i]);
        const uint64_t below = i > 0 ? a.w[i - 1] : 0;
        uint64_t sticky = 0;
        int j;
        u.cls = MF__CLS_FINITE;
        u.sig = lz ? (a.w[i] << lz) | (below >> (64 - lz)) : a.w[i];
        sticky = lz ? below << lz : below;
        for (j = i - 2; j >= 0; j--)
            sticky |= a.w[j];
        u.sig |= sticky != 0;
        u.exp = (int32_t)(i * 64 + 63 - lz + BIG_LSB);
    }
    return u;
}

#endif /* MF_GEMM_BIGACC_H */
