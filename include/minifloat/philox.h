/* SPDX-License-Identifier: MIT */
/* minifloat/philox.h - the random bits of stochastic rounding in bulk: Philox4x32-10.
 *
 * Philox4x32-10 (Salmon et al., SC'11; Random123) is a counter-based generator: a pure function of
 * a 128-bit counter and a 64-bit key, so any element's random bits can be computed alone, on any
 * thread, SIMD lane or device, and the results never depend on how the work was split.
 *
 * The stream is the sequence of 32-bit words
 *
 *     mf_sr_bits(seed, k)
 *   = word (k & 3) of Philox4x32-10(counter = {k >> 2 (low, high 32 bits), 0, 0},
 *                                   key = {seed (low, high 32 bits)})
 *
 * and a bulk call rounding to format fmt gives element i (stream index idx = sr_offset + i) a slice
 * of it as wide as the hardware's stochastic conversions take (PTX cvt.rs: 32 bits for a pair of
 * f16/bf16 results, 32 for four fp8/fp6/fp4 results):
 *
 *     rbits(i) = mf_sr_rbits(seed, idx, w),  w = mf_sr_width(fmt) = 16 for f16 and bf16,
 *                                                8 for every fp8, fp6, fp4 and e8m0, 32 for f32
 *              = bits [w * (idx mod 32/w), + w) of word idx / (32/w), placed at the top of rbits
 *
 * so 32/w consecutive elements share one word, in little-endian order (element 2j of a bf16 call
 * takes the low half of word j), and one Philox block serves 4 * 32/w elements. For bf16 the 16
 * bits are exactly the ones the rounding rule can see (the discarded field is 16 bits); for the
 * narrow formats the chance of rounding up is the discarded fraction truncated to w bits.
 */
#ifndef MINIFLOAT_PHILOX_H
#define MINIFLOAT_PHILOX_H

#include "config.h"
#include "types.h"

MF_BEGIN_DECLS

typedef struct mf_philox4x32 {
    uint32_t v[4];
} mf_philox4x32;

/* One Philox4x32-10 block: ten rounds of the Feistel-like mul-hi/lo network. */
MF_HD MF_INLINE mf_philox4x32 mf_philox4x32_10(mf_philox4x32 ctr, uint32_t key0, uint32_t key1)
{
    int round;
    for (round = 0; round < 10; round++) {
        uint64_t p0 = (uint64_t)0xD2511F53u * ctr.v[0];
        uint64_t p1 = (uint64_t)0xCD9E8D57u * ctr.v[2];
        mf_philox4x32 n;
        n.v[0] = (uint32_t)(p1 >> 32) ^ ctr.v[1] ^ key0;
        n.v[1] = (uint32_t)p1;
        n.v[2] = (uint32_t)(p0 >> 32) ^ ctr.v[3] ^ key1;
        n.v[3] = (uint32_t)p0;
        ctr = n;
        key0 += 0x9E3779B9u; /* Weyl key schedule */
        key1 += 0xBB67AE85u;
    }
    return ctr;
}

/* The Philox block that holds stream word idx: words idx & ~3 .. idx | 3. */
MF_HD MF_INLINE mf_philox4x32 mf_sr_block(uint64_t seed, uint64_t idx)
{
    mf_philox4x32 c;
    uint64_t b = idx >> 2;
    c.v[0] = (uint32_t)b;
    c.v[1] = (uint32_t)(b >> 32);
    c.v[2] = 0;
    c.v[3] = 0;
    return mf_philox4x32_10(c, (uint32_t)seed, (uint32_t)(seed >> 32));
}

/* Word idx of the stream: the 32 random bits a bulk call gives element idx when rounding to f32. */
MF_HD MF_INLINE uint32_t mf_sr_bits(uint64_t seed, uint64_t idx) { return mf_sr_block(seed, idx).v[idx & 3]; }

/* Random bits per element of a bulk stochastic rounding to fmt, from the width of its code: 8 for codes
 * of 8 bits or fewer (fp8, fp6, fp4, e8m0), 16 for those of 9 to 16 bits (f16, bf16), 32 for the others
 * (f32 from f64) and for an unknown fmt. */
MF_HD MF_INLINE unsigned mf_sr_width(mf_format fmt)
{
    switch (fmt) {
#define MF__FORMAT(e, value, tag, nbits, ...) \
    case e: return (nbits) <= 8 ? 8u : (nbits) <= 16 ? 16u : 32u;
#include "formats.inc"
#undef MF__FORMAT
    }
    return 32;
}

/* log2 of the elements that share one stream word at width w (16: 1, 8: 2, any other: 0) */
MF_HD MF_INLINE unsigned mf__sr_shift(unsigned width) { return width == 16 ? 1u : width == 8 ? 2u : 0u; }

/* Element idx's slice of a stream word, for width w (8, 16; any other width takes the whole word):
 * bits [w * (idx mod 32/w), + w) of word, moved to the top of the result. */
MF_HD MF_INLINE uint32_t mf_sr_slice(uint32_t word, uint64_t idx, unsigned width)
{
    if (width == 16)
        return (uint32_t)((word >> (16u * (unsigned)(idx & 1u))) << 16);
    if (width == 8)
        return (uint32_t)((word >> (8u * (unsigned)(idx & 3u))) << 24);
    return word;
}

/* The rbits a bulk call gives stream element idx when each element takes width bits (mf_sr_width of
 * the destination): the argument to pass to mf_from_f32 / mf_from_f64 (or a typed _sr function) to
 * reproduce mf_convert's stochastic rounding element by element, on the host or in a CUDA kernel. */
MF_HD MF_INLINE uint32_t mf_sr_rbits(uint64_t seed, uint64_t idx, unsigned width)
{
    return mf_sr_slice(mf_sr_bits(seed, idx >> mf__sr_shift(width)), idx, width);
}

MF_END_DECLS

#endif /* MINIFLOAT_PHILOX_H */
