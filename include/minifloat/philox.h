/* minifloat/philox.h - the random bits of stochastic rounding in bulk: Philox4x32-10.
 *
 * Philox4x32-10 (Salmon et al., SC'11; Random123) is a counter-based generator: a pure function of
 * a 128-bit counter and a 64-bit key, so any element's random bits can be computed alone, on any
 * thread, SIMD lane or device, and the results never depend on how the work was split.
 *
 * The bulk functions give element i of a call the 32 bits
 *
 *     mf_sr_bits(opts.seed, opts.sr_offset + i)
 *   = word (idx & 3) of Philox4x32-10(counter = {idx >> 2 (low, high 32 bits), 0, 0},
 *                                     key = {seed (low, high 32 bits)})      with idx = sr_offset + i
 *
 * so one Philox block serves four consecutive elements.
 */
#ifndef MINIFLOAT_PHILOX_H
#define MINIFLOAT_PHILOX_H

#include "config.h"

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

/* The four random words of the Philox block that holds stream index idx (idx & ~3 .. idx | 3). */
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

/* The 32 random bits that stochastic rounding uses for stream index idx under seed. */
MF_HD MF_INLINE uint32_t mf_sr_bits(uint64_t seed, uint64_t idx) { return mf_sr_block(seed, idx).v[idx & 3]; }

MF_END_DECLS

#endif /* MINIFLOAT_PHILOX_H */
