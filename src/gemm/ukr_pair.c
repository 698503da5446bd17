/* SPDX-License-Identifier: MIT */
/* src/gemm/ukr_pair.c - what makes a dot-product instruction a faster fma chain: the guard, its summaries and
 * the self-test that keeps a pair kernel's `dot` off a CPU where it computes anything else (kernels.h).
 *
 * The argument. vdpbf16ps (AVX512_BF16) computes each lane as fma(x[2i], y[2i], fma(x[2i+1], y[2i+1], acc)),
 * the odd element first, each step rounded to nearest even, with subnormal inputs and results flushed to zero
 * (measured on AMD Zen 4 and Zen 5; the self-test below checks it on every CPU). Packing puts element k in
 * the odd (high) slot and k + 1 in the even one, so one instruction is two steps of the k-order chain, as
 * long as the flushing never acts:
 * - a bf16 value is an integer times 2^(e - 7) with e its unbiased exponent, so every product of a tile is
 *   a multiple of 2^(ea + eb - 14), and so is every partial sum (a rounded sum is a multiple of its own
 *   ulp, which is then a larger power of two); with ea + eb >= -112 (biased: Ea + Eb >= 142) every nonzero
 *   partial sum is at least 2^-126: no subnormal result, and no subnormal input (those are refused);
 * - with ea + eb <= 126 (Ea + Eb <= 380) a product is below 2^128 and exact in binary32, so fma's exact
 *   product and the instruction's agree; overflow of a sum rounds to inf the same way in both;
 * - inf and NaN elements are refused (their NaN payloads and inf * 0 are the fma kernel's business).
 * Pad elements are zeros, and a zero product leaves an accumulator that is never -0 (it starts at +0)
 * unchanged. Each tile whose slivers fail the guard runs `chain`, the same packed data through fma.
 */
#include <math.h>
#include <string.h>

#include "kernels.h"

/* Two reductions that vectorise (16-bit signed min and max: the keys are below 0x8000): the exponent field of
 * each element, and the same with zeros read as 0x7F80. A subnormal then shows as a minimum of 0 and an
 * inf or NaN as a maximum of 0x7F80. */
void mf__pair_sum_run(mf__pair_sum *s, const uint16_t *x, size_t n)
{
    int16_t mn = 0x7F80, mx = 0;
    for (size_t q = 0; q < n; q++) {
        const int16_t m = (int16_t)(x[q] & 0x7FFF), e = (int16_t)(m & 0x7F80), key = m ? e : 0x7F80;
        mn = key < mn ? key : mn;
        mx = e > mx ? e : mx;
    }
    {
        const unsigned emin = (unsigned)mn >> 7, emax = (unsigned)mx >> 7;
        s->bad |= emin == 0 || emax == 255;
        s->emin = (uint16_t)(emin < s->emin ? emin : s->emin);
        s->emax = (uint16_t)(emax > s->emax ? emax : s->emax);
    }
}

/* ---- the self-test ----------------------------------------------------------------------------------- */

static float hi(uint32_t w)
{
    uint32_t u = w & 0xFFFF0000u;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static float lo(uint32_t w) { return hi(w << 16); }

/* the k-order chain on packed pairs, one lane at a time */
static void chain_scalar(size_t kp, int mr, int nr, const uint32_t *a, const uint32_t *b, float *c)
{
    for (size_t p = 0; p < kp; p++)
        for (int i = 0; i < mr; i++)
            for (int j = 0; j < nr; j++) {
                const uint32_t x = a[p * (size_t)mr + (size_t)i], y = b[p * (size_t)nr + (size_t)j];
                float *t = &c[i * nr + j];
                *t = fmaf(hi(x), hi(y), *t);
                *t = fmaf(lo(x), lo(y), *t);
            }
}

static uint32_t st_rnd(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return (uint32_t)(*s >> 16);
}

/* a bf16 code of exponent e (unbiased), random sign and fraction; zeros of both signs now and then */
static uint16_t st_code(uint64_t *s, int e)
{
    const uint32_t r = st_rnd(s);
    if ((r & 31u) == 0)
        return (uint16_t)(r & 0x8000u);
    return (uint16_t)((r & 0x8000u) | (uint32_t)(e + 127) << 7 | (r >> 8 & 0x7Fu));
}

enum { ST_MR_MAX = 32, ST_NR_MAX = 64, ST_KP = 24 };

/* Fill one operand: kind 0 random exponents in [-20, 20]; 1 every exponent at the guard's floor (products
 * down to 2^-112); 2 at its ceiling (products near 2^128, sums that overflow); 3 the floor again with half
 * the pairs cancelling (x[k + 1] = x[k] in A, -x[k] in B: the second step leaves the first's rounding
 * error, partial sums near 2^-126). */
static void st_fill(uint64_t *s, uint32_t *x, size_t n, int kind, int negate)
{
    for (size_t q = 0; q < n; q++) {
        int e1, e2;
        switch (kind) {
        case 1:
        case 3: e1 = -56 + (int)(st_rnd(s) % 3u), e2 = -56 + (int)(st_rnd(s) % 3u); break;
        case 2: e1 = 60 + (int)(st_rnd(s) % 4u), e2 = 60 + (int)(st_rnd(s) % 4u); break;
        default: e1 = (int)(st_rnd(s) % 41u) - 20, e2 = (int)(st_rnd(s) % 41u) - 20;
        }
        x[q] = (uint32_t)st_code(s, e1) << 16 | st_code(s, e2);
        if (kind == 3 && (q & 1))
            x[q] = (x[q] & 0xFFFF0000u) | (x[q] >> 16 ^ (negate ? 0x8000u : 0u));
    }
}

int mf__gemm_pair_selftest(const mf__gemm_ukr_pair *k)
{
    uint32_t mem_a[ST_KP * ST_MR_MAX + 16], mem_b[ST_KP * ST_NR_MAX + 16]; /* packed panels: 64-byte lines */
    uint32_t *a = (uint32_t *)(((uintptr_t)mem_a + 63) & ~(uintptr_t)63);
    uint32_t *b = (uint32_t *)(((uintptr_t)mem_b + 63) & ~(uintptr_t)63);
    float want[ST_MR_MAX * ST_NR_MAX], dot[ST_MR_MAX * ST_NR_MAX], chain[ST_MR_MAX * ST_NR_MAX];
    uint64_t s = 0x2545F4914F6CDD1Dull;
    const size_t mr = (size_t)k->mr, nr = (size_t)k->nr;
    if (mr > ST_MR_MAX || nr > ST_NR_MAX)
        return 0;
    for (int round = 0; round < 16; round++) {
        const int kind = round & 3;
        st_fill(&s, a, ST_KP * mr, kind, 0);
        st_fill(&s, b, ST_KP * nr, kind, 1);
        memset(want, 0, sizeof want);
        /* two calls: from +0, then carrying the tile (kernels.h's load), as consecutive k blocks do */
        for (int load = 0; load < 2; load++) {
            chain_scalar(ST_KP, (int)mr, (int)nr, a, b, want);
            k->dot(ST_KP, a, b, dot, load);
            k->chain(ST_KP, a, b, chain, load);
            if (memcmp(dot, want, mr * nr * sizeof(float)) || memcmp(chain, want, mr * nr * sizeof(float)))
                return 0;
        }
    }
    return 1;
}
