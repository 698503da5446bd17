/* SPDX-License-Identifier: MIT */
/* tests/test_mx.c - OCP MX block scaling (minifloat/mx.h): scales, elements, layouts, packing, errors,
 * stochastic rounding (unit tier).
 *
 * The references here share no code with src/scale/mx.c:
 *   - FLOOR scales from frexp (floor(log2 amax) exactly), RCEIL scales from a line-by-line copy of
 *     Transformer Engine's float_to_e8m0 software path (transformer_engine/common/util/ptx.cuh) fed
 *     with the same binary32 product amax * (float)(1.0 / max_norm) as TE's MXFP8 cast kernels, in
 *     plain C float arithmetic (this process runs in the default FP environment);
 *   - elements as the library's scalar conversion (mf_from_f64, itself checked against MPFR and the
 *     other oracles) of the exact quotient x / X computed in binary64 (ldexp: exact); MXINT8 with
 *     nearbyint / floor in binary64;
 *   - FP6 packed codes read back with an independent bit-stream reader.
 */
#include "mf_test.h"
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <minifloat.h>
#include <minifloat/mx.h>

static uint64_t rng_state = 0x2545F4914F6CDD1Du;
static uint64_t rnd64(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static double rnd_unit(void) { return (double)(rnd64() >> 11) / 9007199254740992.0; } /* [0, 1) */

/* ---- the facts of each type, written out again here ----------------------------------------------- */
typedef struct {
    mf_mx_type type;
    mf_format fmt; /* MF_FP32 for MXINT8 */
    const char *name;
    int emax;
    double max;
    int bits; /* 8, 6, 4 */
    int man;  /* mantissa bits (INT8: 0, unused) */
    int emin; /* exponent of the smallest normal */
} tinfo;

static const tinfo types[MF_MX_TYPE_COUNT] = {
    {MF_MXFP8_E4M3, MF_FP8_E4M3, "e4m3", 8, 448.0, 8, 3, -6},
    {MF_MXFP8_E5M2, MF_FP8_E5M2, "e5m2", 15, 57344.0, 8, 2, -14},
    {MF_MXFP6_E2M3, MF_FP6_E2M3, "e2m3", 2, 7.5, 6, 3, 0},
    {MF_MXFP6_E3M2, MF_FP6_E3M2, "e3m2", 4, 28.0, 6, 2, -2},
    {MF_MXFP4_E2M1, MF_FP4_E2M1, "e2m1", 2, 6.0, 4, 1, 0},
    {MF_MXINT8, MF_FP32, "int8", 0, 127.0 / 64.0, 8, 0, 0},
};

/* ---- reference scales ------------------------------------------------------------------------------ */

/* TE's float_to_e8m0 for targets without the cvt.rp.satfinite.ue8m0x2 instruction, line by line. */
static uint8_t te_float_to_e8m0(float val)
{
    uint32_t val_u32;
    uint8_t exponent;
    uint32_t mantissa;
    if (isnan(val))
        return 0xFF;
    if (isinf(val))
        return 0xFE;
    if (val == 0.0f)
        return 0x00;
    val_u32 = mf_test_f32_bits(val);
    exponent = (uint8_t)(val_u32 >> 23);
    mantissa = val_u32 & 0x7FFFFF;
    if ((mantissa > 0 && exponent != 0xFE) && !(exponent == 0 && mantissa <= 0x400000))
        ++exponent;
    return exponent;
}

static unsigned ref_scale(const tinfo *t, mf_mx_scale_rule rule, float amax)
{
    amax = fabsf(amax);
    if (isnan(amax) || isinf(amax))
        return 0xFF; /* OCP MX: a block with Inf/NaN has scale NaN (TE's software path gives 0xFE for inf) */
    if (rule == MF_MX_SCALE_RCEIL) {
        const float max_norm_rcp = (float)(1.0 / t->max); /* TE Quantized_Limits::max_norm_rcp */
        return te_float_to_e8m0(amax * max_norm_rcp);
    }
    if (amax == 0.0f)
        return 0;
    {
        int e, k;
        (void)frexp((double)amax, &e); /* amax = f * 2^e, f in [0.5, 1): floor(log2 amax) = e - 1 */
        k = e - 1 - t->emax;
        return k < -127 ? 0u : (unsigned)(k + 127);
    }
}

/* ---- reference elements ---------------------------------------------------------------------------- */

/* MXINT8 of q = x / X: |q| * 64 rounded (rn: ties to even via nearbyint; sr: floor, then up iff the
 * fraction's top 32 bits plus rbits carry), clamped to 127, two's complement. */
static uint8_t ref_int8(double q, mf_round r, uint32_t rbits, unsigned *ev)
{
    double a = fabs(q) * 64.0, m;
    if (a == 0.0)
        return 0;
    if (r == MF_ROUND_STOCHASTIC) {
        double fl = floor(a);
        double f32 = floor((a - fl) * 4294967296.0);
        m = fl + ((f32 + (double)rbits >= 4294967296.0) ? 1.0 : 0.0);
    } else
        m = nearbyint(a);
    if (m != a)
        *ev |= MF_EVENT_INEXACT;
    if (m > 127.0) {
        m = 127.0;
        *ev |= MF_EVENT_OVERFLOW;
    }
    if (m == 0.0)
        *ev |= MF_EVENT_UNDERFLOW;
    return (uint8_t)(q < 0 ? (256 - (int)m) & 0xFF : (int)m);
}

static uint32_t ref_elem(const tinfo *t, float x, unsigned k8, mf_round r, uint32_t rbits, unsigned *ev)
{
    double q;
    if (k8 == 0xFF)
        return 0; /* NaN-scale block: +0 */
    q = ldexp((double)x, 127 - (int)k8); /* exact */
    if (t->type == MF_MXINT8)
        return ref_int8(q, r, rbits, ev);
    return mf_from_f64_ev(t->fmt, q, r, MF_OVERFLOW_SATURATE, rbits, ev);
}

/* Element i of an elements array, read independently of the library. */
static uint32_t get_elem(const tinfo *t, unsigned flags, const uint8_t *p, size_t i)
{
    if (t->bits == 4)
        return (p[i / 2] >> (4 * (i % 2))) & 0xF;
    if (flags & MF_MX_FP6_PACKED) {
        uint32_t v = 0;
        int b;
        for (b = 0; b < 6; b++) {
            size_t bit = 6 * i + (size_t)b;
            v |= (uint32_t)((p[bit / 8] >> (bit % 8)) & 1u) << b;
        }
        return v;
    }
    return p[i];
}

/* ---- test data --------------------------------------------------------------------------------------- */

/* Fill a rows x cols tensor block by block (blocks of `blk` along `axis`), each block drawn from one
 * of several magnitude classes, so that scales land everywhere: ordinary spreads, wide spreads, f32
 * subnormals, zeros, huge values, exact element grid points and ties, a max on a power of two. */
static void fill(float *x, size_t rows, size_t cols, mf_mx_axis axis, size_t blk)
{
    size_t nblk = rows * cols / blk, b, j;
    for (b = 0; b < nblk; b++) {
        int cls = (int)(rnd64() % 10);
        int e0 = (int)(rnd64() % 200) - 100;
        for (j = 0; j < blk; j++) {
            size_t r, c;
            double v;
            if (axis == MF_MX_ROWWISE) {
                r = b / (cols / blk);
                c = (b % (cols / blk)) * blk + j;
            } else {
                r = (b / cols) * blk + j;
                c = b % cols;
            }
            switch (cls) {
            case 0: v = ldexp(rnd_unit() * 2 - 1, e0 / 4); break;                      /* ordinary */
            case 1: v = ldexp(rnd_unit() + 0.5, e0 + (int)(rnd64() % 40) - 20); break; /* wide spread */
            case 2: v = ldexp(rnd_unit(), -126 - (int)(rnd64() % 24)); break;           /* f32 subnormals */
            case 3: v = 0.0; break;
            case 4: v = ldexp(rnd_unit() + 1.0, 100 + (int)(rnd64() % 27)); break;      /* huge */
            case 5: v = ldexp((double)(int)(rnd64() % 64) / 8.0, e0 / 8); break;        /* grid points, ties */
            case 6: v = j == 0 ? ldexp(1.0, e0) : ldexp(rnd_unit(), e0); break;         /* max = 2^e0 */
            case 7: v = ldexp(rnd_unit() * 2 - 1, e0) * (j % 3 == 0 ? 1e-9 : 1.0); break; /* mixed tiny */
            case 8: v = ldexp((double)(int64_t)(rnd64() % 2001) - 1000, e0 / 5); break; /* integers */
            default: /* a huge max next to tiny values: x / X below 2^-126 (a binary32 subnormal or 0) */
                v = j == 0 ? ldexp(rnd_unit() + 1.0, 60 + (int)(rnd64() % 60))
                           : ldexp(rnd_unit() + 0.5, -60 - (int)(rnd64() % 89));
                break;
            }
            if (rnd64() & 1)
                v = -v;
            x[r * cols + c] = (float)v;
        }
    }
}

/* ---- scale codes against the references ------------------------------------------------------------ */
START_TEST(test_scale_code_reference)
{
    static const uint32_t special[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x00000002u, 0x003FFFFFu,
                                       0x00400000u, 0x00400001u, 0x007FFFFFu, 0x00800000u, 0x00800001u,
                                       0x3F7FFFFFu, 0x3F800000u, 0x3F800001u, 0x43E00000u, 0x43E00001u,
                                       0x47600000u, 0x7F000000u, 0x7F7FFFFFu, 0x7F800000u, 0xFF800000u,
                                       0x7FC00000u, 0x7F800001u, 0xFFFFFFFFu, 0xC3E00000u};
    size_t ti, s, cases = 0;
    int rule;
    for (ti = 0; ti < MF_MX_TYPE_COUNT; ti++)
        for (rule = 0; rule < 2; rule++) {
            const tinfo *t = &types[ti];
            for (s = 0; s < sizeof special / sizeof special[0]; s++, cases++) {
                float a = mf_test_bits_f32(special[s]);
                int got = mf_mx_scale_code(t->type, (mf_mx_scale_rule)rule, a);
                MF_EXPECT(got == (int)ref_scale(t, (mf_mx_scale_rule)rule, a), "%s rule %d amax 0x%08x: %d vs %u",
                          t->name, rule, special[s], got, ref_scale(t, (mf_mx_scale_rule)rule, a));
            }
            /* every exponent, mantissas at the edges and random ones */
            for (s = 0; s < 256; s++) {
                uint32_t mants[5];
                size_t q;
                mants[0] = 0;
                mants[1] = 1;
                mants[2] = 0x7FFFFF;
                mants[3] = (uint32_t)rnd64() & 0x7FFFFF;
                mants[4] = 0x400000;
                for (q = 0; q < 5; q++, cases++) {
                    float a = mf_test_bits_f32((uint32_t)s << 23 | mants[q]);
                    MF_EXPECT(mf_mx_scale_code(t->type, (mf_mx_scale_rule)rule, a) ==
                                  (int)ref_scale(t, (mf_mx_scale_rule)rule, a),
                              "%s rule %d amax bits 0x%08x", t->name, rule, mf_test_f32_bits(a));
                }
            }
            for (s = 0; s < 200000; s++, cases++) {
                float a = mf_test_bits_f32((uint32_t)rnd64());
                MF_EXPECT(mf_mx_scale_code(t->type, (mf_mx_scale_rule)rule, a) ==
                              (int)ref_scale(t, (mf_mx_scale_rule)rule, a),
                          "%s rule %d amax bits 0x%08x", t->name, rule, mf_test_f32_bits(a));
            }
        }
    ck_assert_uint_eq(cases, MF_MX_TYPE_COUNT * 2 * (24 + 256 * 5 + 200000));
    ck_assert_int_eq(mf_mx_scale_code((mf_mx_type)MF_MX_TYPE_COUNT, MF_MX_SCALE_FLOOR, 1.0f), MF_E_FORMAT);
    ck_assert_int_eq(mf_mx_scale_code(MF_MXFP8_E4M3, (mf_mx_scale_rule)2, 1.0f), MF_E_ARG);
    /* hand-worked: e4m3, amax 1000 = 1.953125 * 2^9: FLOOR 2^(9-8) -> 0x80; RCEIL 1000/448 = 2.23 -> 4 -> 0x81 */
    ck_assert_int_eq(mf_mx_scale_code(MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, 1000.0f), 0x80);
    ck_assert_int_eq(mf_mx_scale_code(MF_MXFP8_E4M3, MF_MX_SCALE_RCEIL, 1000.0f), 0x81);
    /* MXINT8, amax = 127/64 + 2^-22 (bits 0x3FFE0001): the quotient amax / (127/64) is just above 1, but
     * TE's product amax * (float)(64/127) rounds to exactly 1.0f, so RCEIL gives 2^0 (0x7F), not 2^1.
     * (For the five float element types the product and the quotient give the same code for every
     * binary32 amax, checked by a full sweep while writing this test; for MXINT8 254 amax differ.) */
    ck_assert_int_eq(mf_mx_scale_code(MF_MXINT8, MF_MX_SCALE_RCEIL, mf_test_bits_f32(0x3FFE0001u)), 0x7F);
    ck_assert_int_eq(mf_mx_scale_code(MF_MXINT8, MF_MX_SCALE_RCEIL, mf_test_bits_f32(0x3F7E0001u)), 0x7E);
    /* e2m1, amax 6: both 2^0 (6 = 1.5 * 2^2, emax 2; 6 * (1/6) rounds to exactly 1) */
    ck_assert_int_eq(mf_mx_scale_code(MF_MXFP4_E2M1, MF_MX_SCALE_FLOOR, 6.0f), 0x7F);
    ck_assert_int_eq(mf_mx_scale_code(MF_MXFP4_E2M1, MF_MX_SCALE_RCEIL, 6.0f), 0x7F);
}
END_TEST

/* ---- every element of every block equals the scalar conversion of x / X ----------------------------- */

typedef struct {
    size_t rows, cols;
} shape;

static size_t check_quantize(const tinfo *t, mf_mx_scale_rule rule, mf_mx_axis axis, unsigned flags, mf_round rmode,
                             size_t rows, size_t cols, uint64_t seed, uint64_t off)
{
    const size_t n = rows * cols;
    float *x = malloc(n * sizeof(float));
    uint8_t *el = malloc(n + 16), *sc = malloc(n / 32 + 16);
    mf_stats st, want;
    mf_opts o;
    size_t i, eb = 0, ns = 0;
    ck_assert_ptr_nonnull(x);
    ck_assert_ptr_nonnull(el);
    ck_assert_ptr_nonnull(sc);
    fill(x, rows, cols, axis, 32);
    memset(el, 0xA5, n + 16);
    memset(sc, 0xA5, n / 32 + 16);
    memset(&o, 0, sizeof o);
    memset(&want, 0, sizeof want);
    o.round = rmode;
    o.seed = seed;
    o.sr_offset = off;
    o.stats = &st;
    ck_assert_int_eq(mf_mx_sizes(t->type, axis, flags, rows, cols, &eb, &ns), MF_OK);
    ck_assert_int_eq(mf_mx_quantize(t->type, rule, axis, flags, x, rows, cols, el, sc, &o), MF_OK);
    /* scales: the reference rule on the block amax */
    for (i = 0; i < ns; i++) {
        float amax = 0;
        size_t j;
        for (j = 0; j < 32; j++) {
            size_t r = axis == MF_MX_ROWWISE ? i / (cols / 32) : (i / cols) * 32 + j;
            size_t c = axis == MF_MX_ROWWISE ? (i % (cols / 32)) * 32 + j : i % cols;
            float a = fabsf(x[r * cols + c]);
            amax = a > amax ? a : amax;
        }
        MF_EXPECT(sc[i] == ref_scale(t, rule, amax), "%s rule %d axis %d scale %zu: 0x%02x vs 0x%02x", t->name, rule,
                  axis, i, sc[i], ref_scale(t, rule, amax));
    }
    for (i = ns; i < ns + 16; i++)
        MF_EXPECT(sc[i] == 0xA5, "scale written past the end");
    /* elements */
    for (i = 0; i < n; i++) {
        size_t r = i / cols, c = i % cols;
        unsigned k8 = axis == MF_MX_ROWWISE ? sc[r * (cols / 32) + c / 32] : sc[(r / 32) * cols + c];
        uint32_t rb = rmode == MF_ROUND_STOCHASTIC ? mf_sr_rbits(seed, off + i, 8) : 0; /* every element format has 8 bits or fewer */
        unsigned ev = 0;
        uint32_t w = ref_elem(t, x[i], k8, rmode, rb, &ev);
        uint32_t g = get_elem(t, flags, el, i);
        MF_EXPECT(g == w, "%s rule %d axis %d flags %u round %d elem %zu (x %a, scale 0x%02x): 0x%x vs 0x%x", t->name,
                  rule, axis, flags, rmode, i, (double)x[i], k8, g, w);
        if (t->bits == 6 && !(flags & MF_MX_FP6_PACKED))
            MF_EXPECT((el[i] & 0xC0) == 0, "FP6 top bits set");
        want.overflow += (ev & MF_EVENT_OVERFLOW) != 0;
        want.underflow += (ev & MF_EVENT_UNDERFLOW) != 0;
        want.subnormal += (ev & MF_EVENT_SUBNORMAL) != 0;
        want.nan += (ev & MF_EVENT_NAN) != 0;
        want.inexact += (ev & MF_EVENT_INEXACT) != 0;
    }
    for (i = eb; i < n + 16; i++)
        MF_EXPECT(el[i] == 0xA5, "element byte %zu written past the end (%zu bytes)", i, eb);
    ck_assert_uint_eq(st.overflow, want.overflow);
    ck_assert_uint_eq(st.underflow, want.underflow);
    ck_assert_uint_eq(st.subnormal, want.subnormal);
    ck_assert_uint_eq(st.nan, want.nan);
    ck_assert_uint_eq(st.inexact, want.inexact);
    free(x);
    free(el);
    free(sc);
    return n;
}

START_TEST(test_quantize_matches_scalar)
{
    static const shape rowwise[] = {{64, 96}, {3, 64}, {1, 32}, {7, 1024 + 64}};
    static const shape colwise[] = {{64, 96}, {32, 5}, {96, 3}, {64, 300}};
    size_t ti, s, cases = 0;
    int rule, rm;
    for (ti = 0; ti < MF_MX_TYPE_COUNT; ti++)
        for (rule = 0; rule < 2; rule++)
            for (rm = 0; rm < 2; rm++) {
                const tinfo *t = &types[ti];
                mf_round rmode = rm ? MF_ROUND_STOCHASTIC : MF_ROUND_NEAREST_EVEN;
                unsigned fl;
                for (fl = 0; fl <= (t->bits == 6 ? 1u : 0u); fl++) {
                    for (s = 0; s < 4; s++) {
                        cases += check_quantize(t, (mf_mx_scale_rule)rule, MF_MX_ROWWISE, fl, rmode, rowwise[s].rows,
                                                rowwise[s].cols, 77 + s, 1000 * s);
                        cases += check_quantize(t, (mf_mx_scale_rule)rule, MF_MX_COLWISE, fl, rmode, colwise[s].rows,
                                                colwise[s].cols, 99 + s, 3 * s);
                    }
                }
            }
    /* (6 types + 2 packed FP6 variants) x 2 rules x 2 modes x element counts of the 8 shapes */
    ck_assert_uint_eq(cases, 8 * 2 * 2 * (6144 + 192 + 32 + 7616 + 6144 + 160 + 288 + 19200));
}
END_TEST

/* ---- FLOOR vs RCEIL with the block max on, just below and just above each power of two ------------- */
START_TEST(test_floor_vs_rceil_powers_of_two)
{
    size_t ti, cases = 0;
    for (ti = 0; ti < MF_MX_TYPE_COUNT; ti++) {
        const tinfo *t = &types[ti];
        int p;
        /* keep every scale unclamped and the block max a normal f32 */
        for (p = (t->emax - 126 > -125 ? t->emax - 126 : -125); p <= 127; p++) {
            int where;
            for (where = -1; where <= 1; where++) {
                const uint32_t pb = (uint32_t)(p + 127) << 23;
                const float amax = mf_test_bits_f32(where < 0 ? pb - 1 : where > 0 ? pb + 1 : pb);
                int rule;
                for (rule = 0; rule < 2; rule++) {
                    float x[32];
                    uint8_t el[32], sc[1];
                    mf_stats st;
                    mf_opts o;
                    double X, q;
                    int j, want_code, saturates;
                    uint32_t maxcode;
                    /* the max first, then values at most amax / 4 (they cannot saturate) */
                    x[0] = (where & 1) ? -amax : amax;
                    for (j = 1; j < 32; j++)
                        x[j] = (float)((rnd_unit() - 0.5) * 0.5 * (double)amax);
                    memset(&o, 0, sizeof o);
                    o.stats = &st;
                    ck_assert_int_eq(mf_mx_quantize(t->type, (mf_mx_scale_rule)rule, MF_MX_ROWWISE, 0, x, 1, 32, el,
                                                    sc, &o),
                                     MF_OK);
                    /* by hand: FLOOR uses floor(log2 amax) = p - (below ? 1 : 0); RCEIL: amax / max lies in
                     * (2^(p-emax-1), 2^(p-emax)] here (max is in (2^emax, 2^(emax+1))), so ceil -> p - emax */
                    want_code = (rule == MF_MX_SCALE_FLOOR && where < 0 ? p - 1 : p) - t->emax + 127;
                    MF_EXPECT(sc[0] == want_code, "%s p %d where %d rule %d: scale 0x%02x want 0x%02x", t->name, p,
                              where, rule, sc[0], want_code);
                    X = ldexp(1.0, want_code - 127);
                    q = (double)amax / X;
                    /* saturates iff the exact quotient rounds (rn) beyond max; only FLOOR, only just below */
                    saturates = rule == MF_MX_SCALE_FLOOR && where < 0;
                    if (saturates)
                        MF_EXPECT(q > t->max, "%s p %d: FLOOR quotient %g not above max", t->name, p, q);
                    else
                        MF_EXPECT(q <= t->max, "%s p %d where %d rule %d: quotient %g above max", t->name, p, where,
                                  rule, q);
                    MF_EXPECT(st.overflow == (uint64_t)saturates, "%s p %d where %d rule %d: %llu saturated",
                              t->name, p, where, rule, (unsigned long long)st.overflow);
                    /* the max element is the largest code when it saturates */
                    maxcode = t->type == MF_MXINT8 ? 127u : (t->bits == 8 ? (t->type == MF_MXFP8_E4M3 ? 0x7Eu : 0x7Bu)
                                                                           : (t->bits == 6 ? 0x1Fu : 0x7u));
                    if (saturates) {
                        uint32_t g = get_elem(t, 0, el, 0);
                        uint32_t want = (where & 1) ? (t->type == MF_MXINT8 ? 0x81u : maxcode | (1u << (t->bits - 1)))
                                                    : maxcode;
                        MF_EXPECT(g == want, "%s p %d: saturated max element 0x%x want 0x%x", t->name, p, g, want);
                    }
                    cases++;
                }
            }
        }
    }
    /* per type: p from max(emax - 126, -125) to 127 (e4m3 246 values, e5m2 239, e2m3 252, e3m2 250,
     * e2m1 252, int8 253: 1492), three positions, two rules */
    ck_assert_uint_eq(cases, 1492 * 3 * 2);
}
END_TEST

/* ---- round trip: |dequant(quant(x)) - x| <= half an element ulp * X (rn, no saturation) ----------- */
static double elem_ulp(const tinfo *t, double q)
{
    int e;
    if (t->type == MF_MXINT8)
        return 1.0 / 64.0;
    if (q == 0.0)
        return ldexp(1.0, t->emin - t->man);
    (void)frexp(fabs(q), &e); /* |q| in [2^(e-1), 2^e) */
    e -= 1;
    if (e < t->emin)
        e = t->emin;
    return ldexp(1.0, e - t->man);
}

START_TEST(test_round_trip_bound)
{
    enum { ROWS = 64, COLS = 128, N = ROWS * COLS };
    float *x = malloc(N * sizeof(float)), *y = malloc(N * sizeof(float));
    uint8_t el[N], sc[N / 32];
    size_t ti, i, checked = 0, clipped = 0;
    int rule, axis;
    ck_assert_ptr_nonnull(x);
    ck_assert_ptr_nonnull(y);
    for (ti = 0; ti < MF_MX_TYPE_COUNT; ti++)
        for (rule = 0; rule < 2; rule++)
            for (axis = 0; axis < 2; axis++) {
                const tinfo *t = &types[ti];
                fill(x, ROWS, COLS, (mf_mx_axis)axis, 32);
                ck_assert_int_eq(
                    mf_mx_quantize(t->type, (mf_mx_scale_rule)rule, (mf_mx_axis)axis, 0, x, ROWS, COLS, el, sc, NULL),
                    MF_OK);
                ck_assert_int_eq(mf_mx_dequantize(t->type, (mf_mx_axis)axis, 0, el, sc, ROWS, COLS, y), MF_OK);
                for (i = 0; i < N; i++) {
                    size_t r = i / COLS, c = i % COLS;
                    unsigned k8 = axis == MF_MX_ROWWISE ? sc[r * (COLS / 32) + c / 32] : sc[(r / 32) * COLS + c];
                    double X = ldexp(1.0, (int)k8 - 127), q = (double)x[i] / X, yd, bound;
                    uint32_t code = get_elem(t, 0, el, i);
                    /* dequantize: the element's value times X, rounded once to binary32 */
                    double ev = t->type == MF_MXINT8 ? (double)(int8_t)code / 64.0 : mf_to_f64(t->fmt, code);
                    float ywant = (float)(ev * X);
                    MF_EXPECT(mf_test_f32_bits(y[i]) == mf_test_f32_bits(ywant), "%s dequant %zu: %a vs %a", t->name, i,
                              (double)y[i], (double)ywant);
                    yd = (double)y[i];
                    if (fabs(q) > t->max) { /* clipping: the result is +-max * X */
                        /* RCEIL only by the rounding of amax * (1/max) to binary32, never more */
                        MF_EXPECT(rule == MF_MX_SCALE_FLOOR || fabs(q) <= t->max * (1 + ldexp(1.0, -22)),
                                  "%s: RCEIL quotient %g above max", t->name, q);
                        MF_EXPECT(yd == copysign(t->max * X, q), "%s clipped %zu: %g", t->name, i, yd);
                        clipped++;
                        continue;
                    }
                    /* half an ulp of the element grid at q, times X; plus the f32 rounding of a subnormal y */
                    bound = 0.5 * elem_ulp(t, q) * X + (fabs(ywant) < ldexp(1.0, -126) ? ldexp(1.0, -150) : 0.0);
                    MF_EXPECT(fabs(yd - (double)x[i]) <= bound, "%s rule %d: |%a - %a| > %a", t->name, rule, yd,
                              (double)x[i], bound);
                    checked++;
                }
            }
    ck_assert_uint_eq(checked + clipped, (size_t)MF_MX_TYPE_COUNT * 2 * 2 * N);
    ck_assert_uint_gt(clipped, 0); /* the data has FLOOR blocks that clip */
    free(x);
    free(y);
}
END_TEST

/* ---- NaN and inf in a block; MXINT8 -2; special element codes in dequantize ------------------------- */
START_TEST(test_nonfinite_and_special_codes)
{
    float x[64], y[64];
    uint8_t el[64], sc[2];
    size_t ti, j;
    for (ti = 0; ti < MF_MX_TYPE_COUNT; ti++) {
        const tinfo *t = &types[ti];
        int which;
        for (which = 0; which < 3; which++) {
            for (j = 0; j < 64; j++)
                x[j] = (float)(j + 1) * 0.01f;
            x[5] = which == 0 ? NAN : which == 1 ? INFINITY : -INFINITY; /* block 0 */
            memset(el, 0xA5, sizeof el);
            ck_assert_int_eq(mf_mx_quantize(t->type, MF_MX_SCALE_RCEIL, MF_MX_ROWWISE, 0, x, 1, 64, el, sc, NULL),
                             MF_OK);
            ck_assert_uint_eq(sc[0], 0xFF);
            ck_assert_uint_eq(sc[1], ref_scale(t, MF_MX_SCALE_RCEIL, 0.64f));
            for (j = 0; j < 32; j++)
                ck_assert_uint_eq(get_elem(t, 0, el, j), 0);
            ck_assert_int_eq(mf_mx_dequantize(t->type, MF_MX_ROWWISE, 0, el, sc, 1, 64, y), MF_OK);
            for (j = 0; j < 32; j++)
                ck_assert(isnan(y[j]));
            for (j = 32; j < 64; j++)
                ck_assert(!isnan(y[j]));
        }
    }
    /* MXINT8: 0x80 reads as -2, 0x7F as 127/64; quantize never makes 0x80 (symmetric clamp) */
    memset(el, 0, sizeof el);
    el[0] = 0x80;
    el[1] = 0x7F;
    el[2] = 0x81;
    sc[0] = 127 + 3; /* X = 8 */
    ck_assert_int_eq(mf_mx_dequantize(MF_MXINT8, MF_MX_ROWWISE, 0, el, sc, 1, 32, y), MF_OK);
    ck_assert(y[0] == -16.0f);
    ck_assert(y[1] == 127.0f / 8.0f);
    ck_assert(y[2] == -127.0f / 8.0f);
    for (j = 0; j < 32; j++)
        x[j] = -2.0f; /* FLOOR: X = 2^1, -2 / 2 = -1 -> -64 = 0xC0; RCEIL: 2 / 1.984 -> X = 2 as well */
    x[7] = -4.0f;    /* amax 4: FLOOR X = 4; -4 / 4 * 64 = -64 */
    ck_assert_int_eq(mf_mx_quantize(MF_MXINT8, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, x, 1, 32, el, sc, NULL), MF_OK);
    ck_assert_uint_eq(sc[0], 129);
    ck_assert_uint_eq(el[7], 0xC0);
    ck_assert_uint_eq(el[0], 0xE0); /* -2 / 4 * 64 = -32 */
    x[7] = -3.99f;                  /* FLOOR X = 2: -1.995 * 64 = -127.68 -> saturates at -127 = 0x81, not 0x80 */
    ck_assert_int_eq(mf_mx_quantize(MF_MXINT8, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, x, 1, 32, el, sc, NULL), MF_OK);
    ck_assert_uint_eq(sc[0], 128);
    ck_assert_uint_eq(el[7], 0x81);
    /* e5m2 inf element code and e4m3 NaN code decode through the scale */
    memset(el, 0, sizeof el);
    el[0] = 0x7C; /* e5m2 +inf */
    el[1] = 0xFC; /* e5m2 -inf */
    el[2] = 0x3C; /* 1.0 */
    sc[0] = 127 - 127; /* X = 2^-127: 1.0 * X is an f32 subnormal, exact */
    ck_assert_int_eq(mf_mx_dequantize(MF_MXFP8_E5M2, MF_MX_ROWWISE, 0, el, sc, 1, 32, y), MF_OK);
    ck_assert(isinf(y[0]) && y[0] > 0);
    ck_assert(isinf(y[1]) && y[1] < 0);
    ck_assert_uint_eq(mf_test_f32_bits(y[2]), 0x00400000u);
    el[0] = 0x7F; /* e4m3 NaN */
    el[1] = 0x7E; /* 448 */
    sc[0] = 254;  /* X = 2^127: 448 * 2^127 overflows binary32 -> inf */
    ck_assert_int_eq(mf_mx_dequantize(MF_MXFP8_E4M3, MF_MX_ROWWISE, 0, el, sc, 1, 32, y), MF_OK);
    ck_assert(isnan(y[0]));
    ck_assert(isinf(y[1]));
}
END_TEST

/* ---- FP6 packing ------------------------------------------------------------------------------------- */
START_TEST(test_fp6_pack_layout)
{
    /* Hand-worked: codes a = 0x01, b = 0x02, c = 0x03, d = 0x3F.
     *   stream = a | b << 6 | c << 12 | d << 18 = 0x000001 + 0x000080 + 0x003000 + 0xFC0000 = 0xFC3081
     *   byte 0 = 0x81 = 10|000001   (b1 b0 | a5..a0)
     *   byte 1 = 0x30 = 0011|0000   (c3..c0 | b5..b2)
     *   byte 2 = 0xFC = 111111|00   (d5..d0 | c5 c4)                                                  */
    static const uint8_t codes[4] = {0x01, 0x02, 0x03, 0x3F};
    /* Second example: a = 0x2A (101010), b = 0x15 (010101), c = 0x3F, d = 0x00:
     *   byte 0 = b1 b0 a5..a0 = 01 101010 = 0x6A; byte 1 = c3..c0 b5..b2 = 1111 0101 = 0xF5;
     *   byte 2 = d5..d0 c5 c4 = 000000 11 = 0x03                                                       */
    static const uint8_t codes2[4] = {0xEA, 0x15, 0x3F, 0xC0}; /* top bits set: ignored */
    uint8_t p[64], u[96], src[80];
    size_t n, i;
    ck_assert_int_eq(mf_fp6_pack(p, codes, 4), MF_OK);
    ck_assert_uint_eq(p[0], 0x81);
    ck_assert_uint_eq(p[1], 0x30);
    ck_assert_uint_eq(p[2], 0xFC);
    ck_assert_int_eq(mf_fp6_pack(p, codes2, 4), MF_OK);
    ck_assert_uint_eq(p[0], 0x6A);
    ck_assert_uint_eq(p[1], 0xF5);
    ck_assert_uint_eq(p[2], 0x03);
    ck_assert_int_eq(mf_fp6_unpack(u, p, 4), MF_OK);
    ck_assert_uint_eq(u[0], 0x2A);
    ck_assert_uint_eq(u[1], 0x15);
    ck_assert_uint_eq(u[2], 0x3F);
    ck_assert_uint_eq(u[3], 0x00);
    /* partial group: one code -> one byte, two -> two bytes (12 bits), three -> three bytes (18 bits) */
    memset(p, 0xEE, sizeof p);
    ck_assert_int_eq(mf_fp6_pack(p, codes, 1), MF_OK);
    ck_assert_uint_eq(p[0], 0x01);
    ck_assert_uint_eq(p[1], 0xEE);
    memset(p, 0xEE, sizeof p);
    ck_assert_int_eq(mf_fp6_pack(p, codes, 2), MF_OK);
    ck_assert_uint_eq(p[0], 0x81);
    ck_assert_uint_eq(p[1], 0x00); /* b5..b2 = 0, the unused high nibble zero */
    ck_assert_uint_eq(p[2], 0xEE);
    /* round trip for every n up to 80 against an independent bit reader */
    for (n = 0; n <= 80; n++) {
        for (i = 0; i < n; i++)
            src[i] = (uint8_t)rnd64();
        memset(p, 0xEE, sizeof p);
        ck_assert_int_eq(mf_fp6_pack(p, src, n), MF_OK);
        for (i = 0; i < n; i++) {
            uint32_t v = 0;
            int b;
            for (b = 0; b < 6; b++)
                v |= (uint32_t)((p[(6 * i + b) / 8] >> ((6 * i + b) % 8)) & 1u) << b;
            MF_EXPECT(v == (src[i] & 0x3Fu), "n %zu code %zu", n, i);
        }
        for (i = (6 * n + 7) / 8; i < sizeof p; i++)
            MF_EXPECT(p[i] == 0xEE, "pack wrote past %zu bytes", (6 * n + 7) / 8);
        if ((6 * n) % 8) /* unused high bits of the last byte are zero */
            MF_EXPECT((p[(6 * n) / 8] >> ((6 * n) % 8)) == 0, "n %zu: padding bits set", n);
        memset(u, 0xEE, sizeof u);
        ck_assert_int_eq(mf_fp6_unpack(u, p, n), MF_OK);
        for (i = 0; i < n; i++)
            MF_EXPECT(u[i] == (src[i] & 0x3Fu), "unpack n %zu i %zu", n, i);
        for (i = n; i < sizeof u; i++)
            MF_EXPECT(u[i] == 0xEE, "unpack wrote past %zu", n);
    }
    /* errors */
    ck_assert_int_eq(mf_fp6_pack(NULL, codes, 4), MF_E_NULL);
    ck_assert_int_eq(mf_fp6_pack(p, NULL, 4), MF_E_NULL);
    ck_assert_int_eq(mf_fp6_pack(NULL, NULL, 0), MF_OK);
    ck_assert_int_eq(mf_fp6_unpack(u, NULL, 1), MF_E_NULL);
    ck_assert_int_eq(mf_fp6_pack(p, p + 1, 8), MF_E_OVERLAP);
    ck_assert_int_eq(mf_fp6_unpack(p + 2, p, 8), MF_E_OVERLAP);
    ck_assert_int_eq(mf_fp6_pack(p, src, SIZE_MAX / 6 + 1), MF_E_SIZE);
    ck_assert_int_eq(mf_fp6_pack(p, src, SIZE_MAX / 8), MF_E_SIZE); /* read past the end before */
    ck_assert_int_eq(mf_fp6_unpack(u, p, SIZE_MAX / 8), MF_E_SIZE);
}
END_TEST

/* the packed MX layout is the one-per-byte layout run through mf_fp6_pack */
START_TEST(test_fp6_packed_equals_pack)
{
    enum { ROWS = 32, COLS = 96, N = ROWS * COLS };
    float x[N];
    uint8_t a[N], b[N], pb[N], sa[N / 32], sb[N / 32];
    float ya[N], yb[N];
    int ti, axis;
    for (ti = MF_MXFP6_E2M3; ti <= MF_MXFP6_E3M2; ti++)
        for (axis = 0; axis < 2; axis++) {
            fill(x, ROWS, COLS, (mf_mx_axis)axis, 32);
            ck_assert_int_eq(mf_mx_quantize((mf_mx_type)ti, MF_MX_SCALE_FLOOR, (mf_mx_axis)axis, 0, x, ROWS, COLS, a,
                                            sa, NULL),
                             MF_OK);
            ck_assert_int_eq(mf_mx_quantize((mf_mx_type)ti, MF_MX_SCALE_FLOOR, (mf_mx_axis)axis, MF_MX_FP6_PACKED, x,
                                            ROWS, COLS, b, sb, NULL),
                             MF_OK);
            ck_assert_int_eq(mf_fp6_pack(pb, a, N), MF_OK);
            ck_assert_mem_eq(b, pb, N / 4 * 3);
            ck_assert_mem_eq(sa, sb, N / 32);
            ck_assert_int_eq(mf_mx_dequantize((mf_mx_type)ti, (mf_mx_axis)axis, 0, a, sa, ROWS, COLS, ya), MF_OK);
            ck_assert_int_eq(
                mf_mx_dequantize((mf_mx_type)ti, (mf_mx_axis)axis, MF_MX_FP6_PACKED, b, sb, ROWS, COLS, yb), MF_OK);
            ck_assert_mem_eq(ya, yb, sizeof ya);
        }
}
END_TEST

/* ---- bad arguments give clear codes and write nothing ------------------------------------------------- */
START_TEST(test_bad_arguments)
{
    float x[64 * 32], y[64 * 32];
    uint8_t el[64 * 32], sc[64];
    mf_opts o;
    size_t i, eb, ns;
    for (i = 0; i < 64 * 32; i++)
        x[i] = (float)i;
    memset(el, 0xA5, sizeof el);
    memset(sc, 0xA5, sizeof sc);
    memset(y, 0xA5, sizeof y);
    memset(&o, 0, sizeof o);
#define Q(type, rule, axis, flags, xx, r, c, e, s, op) mf_mx_quantize(type, rule, axis, flags, xx, r, c, e, s, op)
    ck_assert_int_eq(Q((mf_mx_type)6, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, x, 2, 64, el, sc, NULL), MF_E_FORMAT);
    ck_assert_int_eq(Q((mf_mx_type)-1, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, x, 2, 64, el, sc, NULL), MF_E_FORMAT);
    ck_assert_int_eq(Q(MF_MXFP8_E4M3, (mf_mx_scale_rule)2, MF_MX_ROWWISE, 0, x, 2, 64, el, sc, NULL), MF_E_ARG);
    ck_assert_int_eq(Q(MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, (mf_mx_axis)2, 0, x, 2, 64, el, sc, NULL), MF_E_ARG);
    ck_assert_int_eq(Q(MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 2, x, 2, 64, el, sc, NULL), MF_E_ARG);
    ck_assert_int_eq(Q(MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, MF_MX_FP6_PACKED, x, 2, 64, el, sc, NULL),
                     MF_E_ARG);
    ck_assert_int_eq(Q(MF_MXFP4_E2M1, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, MF_MX_FP6_PACKED, x, 2, 64, el, sc, NULL),
                     MF_E_ARG);
    /* shapes: the blocked dimension must be a multiple of 32 */
    ck_assert_int_eq(Q(MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, x, 2, 48, el, sc, NULL), MF_E_ARG);
    ck_assert_int_eq(Q(MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, x, 64, 1, el, sc, NULL), MF_E_ARG);
    ck_assert_int_eq(Q(MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_COLWISE, 0, x, 31, 64, el, sc, NULL), MF_E_ARG);
    ck_assert_int_eq(Q(MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_COLWISE, 0, x, 33, 1, el, sc, NULL), MF_E_ARG);
    ck_assert_int_eq(Q(MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, x, SIZE_MAX / 32, 64, el, sc, NULL),
                     MF_E_SIZE);
    /* modes */
    o.round = MF_ROUND_TOWARD_ZERO;
    ck_assert_int_eq(Q(MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, x, 2, 64, el, sc, &o), MF_E_ROUND);
    o.round = (mf_round)99;
    ck_assert_int_eq(Q(MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, x, 2, 64, el, sc, &o), MF_E_ROUND);
    o.round = MF_ROUND_NEAREST_EVEN;
    o.overflow = (mf_overflow)5;
    ck_assert_int_eq(Q(MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, x, 2, 64, el, sc, &o), MF_E_POLICY);
    o.overflow = MF_OVERFLOW_PROPAGATE; /* the conversions' policy alone */
    ck_assert_int_eq(Q(MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, x, 2, 64, el, sc, &o), MF_E_POLICY);
    o.overflow = MF_OVERFLOW_IEEE;
    o.threads = -1;
    ck_assert_int_eq(Q(MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, x, 2, 64, el, sc, &o), MF_E_ARG);
    o.threads = 0;
    /* pointers */
    ck_assert_int_eq(Q(MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, NULL, 2, 64, el, sc, NULL), MF_E_NULL);
    ck_assert_int_eq(Q(MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, x, 2, 64, NULL, sc, NULL), MF_E_NULL);
    ck_assert_int_eq(Q(MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, x, 2, 64, el, NULL, NULL), MF_E_NULL);
    ck_assert_int_eq(Q(MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, x, 2, 64, (uint8_t *)x + 8, sc, NULL),
                     MF_E_OVERLAP);
    ck_assert_int_eq(Q(MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, x, 2, 64, el, el + 127, NULL),
                     MF_E_OVERLAP);
    /* nothing was written by any failing call */
    for (i = 0; i < sizeof el; i++)
        MF_EXPECT(el[i] == 0xA5, "element byte %zu written on error", i);
    for (i = 0; i < sizeof sc; i++)
        MF_EXPECT(sc[i] == 0xA5, "scale byte %zu written on error", i);
    /* empty tensors succeed with NULL pointers, and zero the stats */
    {
        mf_stats st;
        memset(&st, 0xFF, sizeof st);
        o.stats = &st;
        ck_assert_int_eq(Q(MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, NULL, 0, 64, NULL, NULL, &o), MF_OK);
        ck_assert_uint_eq(st.overflow + st.underflow + st.subnormal + st.nan + st.inexact, 0);
        ck_assert_int_eq(Q(MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_COLWISE, 0, NULL, 0, 7, NULL, NULL, NULL), MF_OK);
        o.stats = NULL;
    }
    /* dequantize */
    ck_assert_int_eq(mf_mx_dequantize((mf_mx_type)7, MF_MX_ROWWISE, 0, el, sc, 2, 64, y), MF_E_FORMAT);
    ck_assert_int_eq(mf_mx_dequantize(MF_MXFP8_E4M3, (mf_mx_axis)3, 0, el, sc, 2, 64, y), MF_E_ARG);
    ck_assert_int_eq(mf_mx_dequantize(MF_MXFP8_E4M3, MF_MX_ROWWISE, 4, el, sc, 2, 64, y), MF_E_ARG);
    ck_assert_int_eq(mf_mx_dequantize(MF_MXFP8_E4M3, MF_MX_ROWWISE, 0, el, sc, 2, 40, y), MF_E_ARG);
    ck_assert_int_eq(mf_mx_dequantize(MF_MXFP8_E4M3, MF_MX_COLWISE, 0, el, sc, 40, 2, y), MF_E_ARG);
    ck_assert_int_eq(mf_mx_dequantize(MF_MXFP8_E4M3, MF_MX_ROWWISE, 0, NULL, sc, 2, 64, y), MF_E_NULL);
    ck_assert_int_eq(mf_mx_dequantize(MF_MXFP8_E4M3, MF_MX_ROWWISE, 0, el, NULL, 2, 64, y), MF_E_NULL);
    ck_assert_int_eq(mf_mx_dequantize(MF_MXFP8_E4M3, MF_MX_ROWWISE, 0, el, sc, 2, 64, NULL), MF_E_NULL);
    ck_assert_int_eq(mf_mx_dequantize(MF_MXFP8_E4M3, MF_MX_ROWWISE, 0, (uint8_t *)y, sc, 2, 64, y), MF_E_OVERLAP);
    ck_assert_int_eq(mf_mx_dequantize(MF_MXFP8_E4M3, MF_MX_ROWWISE, 0, el, sc, SIZE_MAX / 64, 64, y), MF_E_SIZE);
    ck_assert_int_eq(mf_mx_dequantize(MF_MXFP8_E4M3, MF_MX_ROWWISE, 0, NULL, NULL, 0, 64, NULL), MF_OK);
    for (i = 0; i < 64 * 32; i++)
        MF_EXPECT(mf_test_f32_bits(y[i]) == 0xA5A5A5A5u, "y written on error");
    /* sizes */
    ck_assert_int_eq(mf_mx_sizes(MF_MXFP6_E3M2, MF_MX_COLWISE, MF_MX_FP6_PACKED, 64, 3, &eb, &ns), MF_OK);
    ck_assert_uint_eq(eb, 144);
    ck_assert_uint_eq(ns, 6);
    ck_assert_int_eq(mf_mx_sizes(MF_MXFP4_E2M1, MF_MX_ROWWISE, 0, 3, 64, &eb, NULL), MF_OK);
    ck_assert_uint_eq(eb, 96);
    ck_assert_int_eq(mf_mx_sizes(MF_MXINT8, MF_MX_ROWWISE, 0, 3, 64, &eb, &ns), MF_OK);
    ck_assert_uint_eq(eb, 192);
    ck_assert_uint_eq(ns, 6);
    ck_assert_int_eq(mf_mx_sizes(MF_MXINT8, MF_MX_ROWWISE, 0, 3, 65, &eb, &ns), MF_E_ARG);
    ck_assert_int_eq(mf_mx_sizes((mf_mx_type)9, MF_MX_ROWWISE, 0, 3, 64, &eb, &ns), MF_E_FORMAT);
#undef Q
}
END_TEST

/* ---- stochastic rounding: deterministic, on the row-major element stream, unbiased --------------- */
START_TEST(test_sr_determinism_and_stream)
{
    enum { ROWS = 96, COLS = 64, N = ROWS * COLS };
    float x[N];
    uint8_t a[N], b[N], c[N], sa[N / 32], sb[N / 32];
    size_t ti, differ = 0;
    for (ti = 0; ti < MF_MX_TYPE_COUNT; ti++) {
        const tinfo *t = &types[ti];
        int axis;
        for (axis = 0; axis < 2; axis++) {
            mf_opts o;
            size_t eb, h, i;
            fill(x, ROWS, COLS, (mf_mx_axis)axis, 32);
            memset(&o, 0, sizeof o);
            o.round = MF_ROUND_STOCHASTIC;
            o.seed = 0xC0FFEEu;
            o.sr_offset = 5;
            ck_assert_int_eq(mf_mx_sizes(t->type, (mf_mx_axis)axis, 0, ROWS, COLS, &eb, NULL), MF_OK);
            ck_assert_int_eq(mf_mx_quantize(t->type, MF_MX_SCALE_RCEIL, (mf_mx_axis)axis, 0, x, ROWS, COLS, a, sa, &o),
                             MF_OK);
            ck_assert_int_eq(mf_mx_quantize(t->type, MF_MX_SCALE_RCEIL, (mf_mx_axis)axis, 0, x, ROWS, COLS, b, sb, &o),
                             MF_OK);
            ck_assert_mem_eq(a, b, eb); /* same seed, same bytes */
            /* split by rows (a multiple of 32 for column-wise blocks): each half with sr_offset = its first
             * flat index gives the same bytes as one call */
            h = 32;
            ck_assert_int_eq(mf_mx_quantize(t->type, MF_MX_SCALE_RCEIL, (mf_mx_axis)axis, 0, x, h, COLS, c, sb, &o),
                             MF_OK);
            o.sr_offset = 5 + h * COLS;
            ck_assert_int_eq(mf_mx_quantize(t->type, MF_MX_SCALE_RCEIL, (mf_mx_axis)axis, 0, x + h * COLS, ROWS - h,
                                            COLS, c + eb / ROWS * h, sb + h * COLS / 32, &o),
                             MF_OK);
            ck_assert_mem_eq(a, c, eb);
            ck_assert_mem_eq(sa, sb, N / 32);
            /* another seed changes some elements */
            o.sr_offset = 5;
            o.seed = 0xC0FFEFu;
            ck_assert_int_eq(mf_mx_quantize(t->type, MF_MX_SCALE_RCEIL, (mf_mx_axis)axis, 0, x, ROWS, COLS, b, sb, &o),
                             MF_OK);
            for (i = 0; i < eb; i++)
                differ += a[i] != b[i];
        }
    }
    ck_assert_uint_gt(differ, 1000);
}
END_TEST

START_TEST(test_sr_unbiased)
{
    /* One block per row: x[0] = max / 2 (pins the FLOOR scale at X = 1/2, and x[0] / X = max), the other 31 are v,
     * which lies between two element grid points; the mean of the dequantized v must approach v. */
    enum { ROWS = 4096, COLS = 32, N = ROWS * COLS };
    float *x = malloc(N * sizeof(float)), *y = malloc(N * sizeof(float));
    uint8_t *el = malloc(N), *sc = malloc(N / 32);
    size_t ti, i, cases = 0;
    ck_assert_ptr_nonnull(x);
    ck_assert_ptr_nonnull(y);
    ck_assert_ptr_nonnull(el);
    ck_assert_ptr_nonnull(sc);
    for (ti = 0; ti < MF_MX_TYPE_COUNT; ti++) {
        const tinfo *t = &types[ti];
        /* v / X = 1.3 in every float type (between grid points: e2m1 1 and 1.5, e4m3 1.25 and 1.375, ...);
         * MXINT8: 1.3 * 64 = 83.2, between 83 and 84 */
        const float v = 0.65f;
        double sum = 0, mean, lo, hi, sd;
        mf_opts o;
        memset(&o, 0, sizeof o);
        o.round = MF_ROUND_STOCHASTIC;
        o.seed = 12345 + ti;
        for (i = 0; i < N; i++)
            x[i] = (i % COLS == 0) ? (float)(t->max * 0.5) : v;
        ck_assert_int_eq(mf_mx_quantize(t->type, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, x, ROWS, COLS, el, sc, &o), MF_OK);
        ck_assert_uint_eq(sc[0], 126);
        ck_assert_int_eq(mf_mx_dequantize(t->type, MF_MX_ROWWISE, 0, el, sc, ROWS, COLS, y), MF_OK);
        for (i = 0; i < N; i++)
            if (i % COLS) {
                sum += y[i];
                cases++;
            }
        mean = sum / (double)(ROWS * (COLS - 1));
        /* the two neighbours of v, from the dequantized values themselves */
        lo = hi = y[1];
        for (i = 1; i < N; i++)
            if (i % COLS) {
                lo = y[i] < lo ? y[i] : lo;
                hi = y[i] > hi ? y[i] : hi;
            }
        ck_assert(lo < v && v < hi);
        sd = (hi - lo) * 0.5 / sqrt((double)(ROWS * (COLS - 1))); /* upper bound on the std of the mean */
        MF_EXPECT(fabs(mean - v) < 5 * sd, "%s: mean %.7f of SR-rounded %.7f (sd %.2g)", t->name, mean, (double)v, sd);
    }
    ck_assert_uint_eq(cases, (size_t)MF_MX_TYPE_COUNT * ROWS * (COLS - 1));
    free(x);
    free(y);
    free(el);
    free(sc);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mx");
    TCase *tc = tcase_create("mx");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_scale_code_reference);
    tcase_add_test(tc, test_quantize_matches_scalar);
    tcase_add_test(tc, test_floor_vs_rceil_powers_of_two);
    tcase_add_test(tc, test_round_trip_bound);
    tcase_add_test(tc, test_nonfinite_and_special_codes);
    tcase_add_test(tc, test_fp6_pack_layout);
    tcase_add_test(tc, test_fp6_packed_equals_pack);
    tcase_add_test(tc, test_bad_arguments);
    tcase_add_test(tc, test_sr_determinism_and_stream);
    tcase_add_test(tc, test_sr_unbiased);
    suite_add_tcase(s, tc);
    return mf_run_suite(s);
}
