/* SPDX-License-Identifier: MIT */
/* tests/gemm_test.h - what the mf_gemm tests share (and nothing from src/): a seeded xorshift64* stream,
 * mf_gemm's element storage (e2m1 two a byte, low nibble first), the oracle's name of each element format and the
 * round-to-odd at 53 bits that keeps one later rounding into any format of 24 bits or fewer exact.
 * Include after <mpfr.h>, "mf_test.h" and "oracle/ref.h"; define GEMM_TEST_SEED first for another stream. */
#ifndef MF_TESTS_GEMM_TEST_H
#define MF_TESTS_GEMM_TEST_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifndef GEMM_TEST_SEED
#define GEMM_TEST_SEED 0x9E3779B97F4A7C15ull
#endif

static uint64_t rng_state = GEMM_TEST_SEED;
static inline uint64_t rnd(void) /* xorshift64* */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}
static inline size_t rnd_below(size_t n) { return (size_t)(rnd() % n); }

/* bits of storage an element of f takes in mf_gemm's arrays (e2m3 and e3m2: a byte) */
static inline int width_bits(mf_format f)
{
    return f == MF_FP32 ? 32 : f == MF_FP16 || f == MF_BF16 ? 16 : f == MF_FP4_E2M1 ? 4 : 8;
}

/* store code c as element e of an array of format f */
static inline void put(unsigned char *buf, mf_format f, size_t e, uint32_t c)
{
    switch (width_bits(f)) {
    case 32: memcpy(buf + 4 * e, &c, 4); break;
    case 16: {
        const uint16_t h = (uint16_t)c;
        memcpy(buf + 2 * e, &h, 2);
        break;
    }
    case 8: buf[e] = (unsigned char)c; break;
    default: buf[e / 2] = (unsigned char)((buf[e / 2] & (0xF0u >> (4 * (e & 1)))) | (c & 0xFu) << (4 * (e & 1)));
    }
}
static inline uint32_t get(const unsigned char *buf, mf_format f, size_t e)
{
    uint32_t c = 0;
    uint16_t h;
    switch (width_bits(f)) {
    case 32: memcpy(&c, buf + 4 * e, 4); return c;
    case 16: memcpy(&h, buf + 2 * e, 2); return h;
    case 8: return buf[e];
    default: return (uint32_t)(buf[e / 2] >> (4 * (e & 1))) & 0xFu;
    }
}

/* round-to-odd at 53 bits of an MPFR value (NaN, inf and +0 pass) */
static inline double ro53(mpfr_t x)
{
    if (mpfr_nan_p(x))
        return NAN;
    if (mpfr_inf_p(x))
        return mpfr_sgn(x) > 0 ? INFINITY : -INFINITY;
    if (mpfr_zero_p(x))
        return 0.0;
    mpfr_t t;
    mpfr_init2(t, 53);
    const int inex = mpfr_set(t, x, MPFR_RNDZ);
    double d = mpfr_get_d(t, MPFR_RNDZ);
    mpfr_clear(t);
    MF_EXPECT(isnormal(d), "an exact value outside binary64's normal range");
    if (inex) {
        uint64_t u;
        memcpy(&u, &d, 8);
        u |= 1;
        memcpy(&d, &u, 8);
    }
    return d;
}

static const int REF_MODE[] = {REF_RN, REF_RNA, REF_RZ, REF_RU, REF_RD, REF_RO, REF_SR}; /* by mf_round */

/* The reference's C(i, j): acc (the exact alpha * scales * dot, MPFR) plus beta * c (c the code of C before the
 * call), rounded once into C's format as o asks (ro53, then the oracle's rounding) and stored as element idx of
 * cref; its events are added to st. n: C's columns, for the stochastic stream's index. */
static inline void ref_round_c(unsigned char *cref, mf_format fc, size_t idx, mpfr_t acc, float beta, uint32_t c,
                               const mf_gemm_opts *o, size_t i, size_t j, size_t n, mf_stats *st)
{
    const ref_format rc = fc == MF_FP32 ? REF_F32 : fc == MF_FP16 ? REF_F16 : REF_BF16;
    const uint32_t rbits =
        o->round == MF_ROUND_STOCHASTIC ? mf_sr_rbits(o->seed, o->sr_offset + i * n + j, mf_sr_width(fc)) : 0;
    ref_events ev;
    if (beta != 0.0f) {
        mpfr_t t;
        mpfr_init2(t, mpfr_get_prec(acc));
        mpfr_set_d(t, ref_decode(rc, c), MPFR_RNDN);
        mpfr_mul_d(t, t, beta, MPFR_RNDN);
        mpfr_add(acc, acc, t, MPFR_RNDN);
        mpfr_clear(t);
    }
    memset(&ev, 0, sizeof ev);
    put(cref, fc, idx, ref_round(rc, ro53(acc), REF_MODE[o->round], o->overflow == MF_OVERFLOW_SATURATE, rbits, &ev));
    st->overflow += ev.overflow != 0, st->underflow += ev.underflow != 0;
    st->subnormal += ev.subnormal != 0, st->nan += ev.nan != 0, st->inexact += ev.inexact != 0;
}

#endif /* MF_TESTS_GEMM_TEST_H */
