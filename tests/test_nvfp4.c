/* SPDX-License-Identifier: MIT */
/* tests/test_nvfp4.c - NVFP4 (minifloat/mx.h) against a line-by-line transcription of Transformer
 * Engine's quantization (unit tier).
 *
 * The reference below copies TE's operations in order, in plain C float arithmetic (this process runs
 * in the default FP environment: round to nearest even, no FTZ/DAZ, as TE's CUDA kernels without
 * fast-math; compiled with -ffp-contract=off):
 *   transformer_engine/common/cast/nvfp4/core_nvfp4.cuh
 *     compute_global_encode_scaling_factor_FP4, quantization_and_transposition_SF::
 *     compute_decoding_scaling_factor, compute_scaling_coefficient<float>
 *   transformer_engine/common/cast/nvfp4/quantize_transpose_nvfp4.cuh
 *     S_dec = 1.0 / S_enc; block_amax = fmaxf(block_amax, fabsf(elt)); block_scale_inverse;
 *     mul_cvt_fp32_to_fp4_4x (x * scale, then cvt.rn/rs.satfinite.e2m1)
 *   transformer_engine/common/cast/nvfp4/dequantize_nvfp4.cuh  dequantize_fp4_kernel
 * The e4m3 and e2m1 roundings are written here from the formats' value tables (nearest, ties to the
 * even code, saturating), sharing nothing with the library.
 */
#include "mf_test.h"
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <minifloat.h>
#include <minifloat/mx.h>

static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint64_t rnd64(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static double rnd_unit(void) { return (double)(rnd64() >> 11) / 9007199254740992.0; }

/* ---- e4m3 and e2m1 from their value tables --------------------------------------------------------- */

static double e4m3_value(unsigned code) /* 0x00 .. 0x7E, non-negative */
{
    unsigned e = (code >> 3) & 0xF, m = code & 7;
    return e == 0 ? ldexp((double)m, -9) : ldexp(1.0 + m / 8.0, (int)e - 7);
}

/* static_cast<fp8e4m3>(v) for v >= 0 or NaN: __NV_SATFINITE, round to nearest, ties to even code. */
static unsigned ref_e4m3(float v)
{
    unsigned c, best = 0;
    double bd = INFINITY;
    if (isnan(v))
        return 0x7F;
    if (v >= 464.0f) /* 464 is the tie between 448 (0x7E, even) and 480: 448; beyond: saturate */
        return 0x7E;
    for (c = 0; c <= 0x7E; c++) {
        double d = fabs((double)v - e4m3_value(c));
        if (d < bd || (d == bd && !(c & 1))) {
            bd = d;
            best = c;
        }
    }
    return best;
}

static const double e2m1_vals[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};

/* cvt.rn.satfinite.e2m1 (NaN -> +6, 0x7) */
static unsigned ref_e2m1_rn(float v)
{
    unsigned c, best = 0, s;
    double a, bd = INFINITY;
    if (isnan(v))
        return 0x7;
    s = signbit(v) ? 8u : 0u;
    a = fabs((double)v);
    if (a >= 6.0)
        return s | 7u;
    for (c = 0; c < 8; c++) {
        double d = fabs(a - e2m1_vals[c]);
        if (d < bd || (d == bd && !(c & 1))) {
            bd = d;
            best = c;
        }
    }
    return s | best;
}

/* stochastic: up to the next grid value iff floor(frac * 2^32) + rbits >= 2^32 (minifloat's rule) */
static unsigned ref_e2m1_sr(float v, uint32_t rbits)
{
    unsigned c, s;
    double a;
    if (isnan(v))
        return 0x7;
    s = signbit(v) ? 8u : 0u;
    a = fabs((double)v);
    if (a >= 6.0)
        return s | 7u;
    for (c = 7; e2m1_vals[c] > a; c--)
        ;
    if (e2m1_vals[c] == a)
        return s | c;
    {
        double f = floor((a - e2m1_vals[c]) / (e2m1_vals[c + 1] - e2m1_vals[c]) * 4294967296.0);
        return s | (f + (double)rbits >= 4294967296.0 ? c + 1 : c);
    }
}

/* ---- the TE transcription ---------------------------------------------------------------------------- */

static float te_compute_global_encode_scaling_factor_FP4(const float global_amax)
{
    const float fp8_max = 448.0f;
    const float fp4_max = 6.0f;
    float global_encode_scale = fp8_max * fp4_max / global_amax;
    /* If scale is infinity, return max value of float32 */
    global_encode_scale = fminf(global_encode_scale, FLT_MAX);
    /* If global amax is 0 or infinity, return 1 */
    if (global_amax == 0.0f || global_encode_scale == 0.0f)
        return 1.0f;
    return global_encode_scale;
}

static unsigned te_compute_decoding_scaling_factor(const float block_amax, const float S_enc)
{
    const float fp4_max = 6.0f;
    const float fp4_max_inv = 1.0f / fp4_max;
    const float S_dec_b = block_amax * (S_enc * fp4_max_inv);
    return ref_e4m3(fminf(S_dec_b, FLT_MAX));
}

typedef struct {
    uint8_t *el, *sc;
    float amax;
    mf_stats ev; /* events of the element roundings, from the library's scalar contract (mf_from_f32_ev) */
} te_out;

/* quantize x (rows x cols) with blocks along axis; rbits_seed/off: the stream our library uses (TE's
 * own Philox stream differs; the rounding rule is the same) */
static void te_quantize(const float *x, size_t rows, size_t cols, mf_mx_axis axis, const float *amax_in, int sr,
                        uint64_t seed, uint64_t off, te_out *out)
{
    const size_t n = rows * cols, nb = n / 16;
    size_t b, j;
    float amax = 0.0f, S_enc, S_dec;
    if (amax_in)
        amax = *amax_in;
    else
        for (j = 0; j < n; j++)
            amax = fmaxf(amax, fabsf(x[j]));
    S_enc = te_compute_global_encode_scaling_factor_FP4(amax);
    /* NOTE: This is to match with how emulation code was written. */
    S_dec = (float)(1.0 / S_enc);
    memset(out->el, 0, n / 2);
    memset(&out->ev, 0, sizeof out->ev);
    for (b = 0; b < nb; b++) {
        size_t idx[16];
        float block_amax = 0.0f, block_scale_inverse;
        unsigned S_dec_b_fp8;
        for (j = 0; j < 16; j++) {
            size_t r = axis == MF_MX_ROWWISE ? b / (cols / 16) : (b / cols) * 16 + j;
            size_t c = axis == MF_MX_ROWWISE ? (b % (cols / 16)) * 16 + j : b % cols;
            idx[j] = r * cols + c;
            block_amax = fmaxf(block_amax, fabsf(x[idx[j]]));
        }
        S_dec_b_fp8 = te_compute_decoding_scaling_factor(block_amax, S_enc);
        out->sc[b] = (uint8_t)S_dec_b_fp8;
        block_scale_inverse = fminf(1.0f / ((float)e4m3_value(S_dec_b_fp8) * S_dec), FLT_MAX);
        for (j = 0; j < 16; j++) {
            const float v = x[idx[j]] * block_scale_inverse;
            const uint32_t rb = sr ? mf_sr_rbits(seed, off + idx[j], 8) : 0u;
            unsigned q = sr ? ref_e2m1_sr(v, rb) : ref_e2m1_rn(v), ev = 0;
            out->el[idx[j] / 2] |= (uint8_t)(q << (4 * (idx[j] & 1)));
            (void)mf_from_f32_ev(MF_FP4_E2M1, v, sr ? MF_ROUND_STOCHASTIC : MF_ROUND_NEAREST_EVEN,
                                 MF_OVERFLOW_SATURATE, rb, &ev);
            out->ev.overflow += (ev & MF_EVENT_OVERFLOW) != 0;
            out->ev.underflow += (ev & MF_EVENT_UNDERFLOW) != 0;
            out->ev.subnormal += (ev & MF_EVENT_SUBNORMAL) != 0;
            out->ev.nan += (ev & MF_EVENT_NAN) != 0;
            out->ev.inexact += (ev & MF_EVENT_INEXACT) != 0;
        }
    }
    out->amax = amax;
}

static float te_dequantize_one(unsigned e2m1_code, unsigned scale, float amax)
{
    const float factor_inv = 1.0 / (6.0 * 448.0);
    const float final_scale = (float)e4m3_value(scale) * amax * factor_inv;
    const float v = (float)((e2m1_code & 8 ? -1 : 1) * e2m1_vals[e2m1_code & 7]);
    return v * final_scale;
}

/* ---- test data: blocks of different magnitude classes ------------------------------------------------- */
static void fill(float *x, size_t n, int tensor_class)
{
    size_t i, b;
    for (b = 0; b < n; b += 16) {
        int cls = tensor_class >= 0 ? tensor_class : (int)(rnd64() % 8);
        int e0 = (int)(rnd64() % 60) - 30;
        for (i = b; i < b + 16 && i < n; i++) {
            double v;
            switch (cls) {
            case 0: v = ldexp(rnd_unit() * 2 - 1, e0 / 3); break;
            case 1: v = ldexp(rnd_unit() + 0.5, e0 + (int)(rnd64() % 30) - 15); break; /* wide */
            case 2: v = 0.0; break;
            case 3: v = ldexp(rnd_unit(), -130 - (int)(rnd64() % 19)); break;             /* f32 subnormal */
            case 4: v = ldexp(rnd_unit() + 1.0, 110 + (int)(rnd64() % 17)); break;       /* huge */
            case 5: v = ldexp((double)(int)(rnd64() % 13) / 2.0, e0 / 6); break;         /* e2m1-ish grid */
            case 6: v = ldexp(rnd_unit() * 2 - 1, -60 + (int)(rnd64() % 20)); break;      /* tiny normals */
            default: v = (rnd_unit() * 2 - 1) * 2688.0; break;
            }
            if (rnd64() & 1)
                v = -v;
            x[i] = (float)v;
        }
    }
}

/* ---- the global encode scale -------------------------------------------------------------------------- */
START_TEST(test_global_scale)
{
    static const uint32_t special[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x00000700u, 0x007FFFFFu, 0x00800000u,
                                       0x3F800000u, 0x45280000u /* 2688 */, 0x7F7FFFFFu, 0x7F800000u, 0x7FC00000u,
                                       0x7F800001u, 0x3A800000u, 0x00200000u};
    size_t i, cases = 0;
    for (i = 0; i < sizeof special / sizeof special[0]; i++, cases++) {
        float a = mf_test_bits_f32(special[i]);
        ck_assert_uint_eq(mf_test_f32_bits(mf_nvfp4_global_scale(a)),
                          mf_test_f32_bits(te_compute_global_encode_scaling_factor_FP4(a)));
    }
    for (i = 0; i < 1000000; i++, cases++) {
        float a = mf_test_bits_f32((uint32_t)rnd64() & 0x7FFFFFFFu);
        float got = mf_nvfp4_global_scale(a), want = te_compute_global_encode_scaling_factor_FP4(a);
        MF_EXPECT(mf_test_f32_bits(got) == mf_test_f32_bits(want), "amax %a: %a vs %a", (double)a, (double)got,
                  (double)want);
    }
    ck_assert_uint_eq(cases, 14 + 1000000);
    /* by hand: amax 2688 -> 1; amax 0 -> 1; amax inf -> 2688/inf = 0 -> 1; amax 2^-149 -> inf -> FLT_MAX */
    ck_assert(mf_nvfp4_global_scale(2688.0f) == 1.0f);
    ck_assert(mf_nvfp4_global_scale(0.0f) == 1.0f);
    ck_assert(mf_nvfp4_global_scale(INFINITY) == 1.0f);
    ck_assert(mf_nvfp4_global_scale(mf_test_bits_f32(1)) == FLT_MAX);
    ck_assert(mf_nvfp4_global_scale(NAN) == FLT_MAX); /* fminf(NaN, FLT_MAX) */
    ck_assert(mf_nvfp4_global_scale(1.0f) == 2688.0f);
}
END_TEST

/* ---- quantize equals the TE transcription byte for byte ------------------------------------------------ */
static size_t compare_with_te(size_t rows, size_t cols, mf_mx_axis axis, int tensor_class, const float *amax_in,
                              int sr)
{
    const size_t n = rows * cols;
    float *x = malloc(n * sizeof(float)), *y = malloc(n * sizeof(float));
    uint8_t *el = malloc(n / 2 + 8), *sc = malloc(n / 16 + 8), *rel = malloc(n / 2), *rsc = malloc(n / 16);
    te_out ref;
    mf_opts o;
    mf_stats st;
    float amax_out = -1.0f;
    size_t i;
    ck_assert(x && y && el && sc && rel && rsc);
    fill(x, n, tensor_class);
    memset(el, 0xA5, n / 2 + 8);
    memset(sc, 0xA5, n / 16 + 8);
    memset(&o, 0, sizeof o);
    o.round = sr ? MF_ROUND_STOCHASTIC : MF_ROUND_NEAREST_EVEN;
    o.seed = 4242;
    o.sr_offset = 17;
    o.stats = &st;
    ref.el = rel;
    ref.sc = rsc;
    te_quantize(x, rows, cols, axis, amax_in, sr, o.seed, o.sr_offset, &ref);
    ck_assert_int_eq(mf_nvfp4_quantize(axis, x, rows, cols, el, sc, amax_in, &amax_out, &o), MF_OK);
    ck_assert_uint_eq(mf_test_f32_bits(amax_out), mf_test_f32_bits(ref.amax));
    ck_assert_uint_eq(st.overflow, ref.ev.overflow); /* elements clipped to +-6 */
    ck_assert_uint_eq(st.underflow, ref.ev.underflow);
    ck_assert_uint_eq(st.subnormal, ref.ev.subnormal);
    ck_assert_uint_eq(st.nan, ref.ev.nan);
    ck_assert_uint_eq(st.inexact, ref.ev.inexact);
    for (i = 0; i < n / 16; i++)
        MF_EXPECT(sc[i] == rsc[i], "axis %d class %d scale %zu: 0x%02x vs TE 0x%02x", axis, tensor_class, i, sc[i],
                  rsc[i]);
    for (i = 0; i < n / 2; i++)
        MF_EXPECT(el[i] == rel[i], "axis %d class %d sr %d byte %zu: 0x%02x vs TE 0x%02x", axis, tensor_class, sr, i,
                  el[i], rel[i]);
    for (i = 0; i < 8; i++) {
        MF_EXPECT(el[n / 2 + i] == 0xA5, "element written past the end");
        MF_EXPECT(sc[n / 16 + i] == 0xA5, "scale written past the end");
    }
    /* dequantize equals TE's dequantize_fp4_kernel */
    ck_assert_int_eq(mf_nvfp4_dequantize(axis, el, sc, amax_out, rows, cols, y), MF_OK);
    for (i = 0; i < n; i++) {
        size_t r = i / cols, c = i % cols;
        unsigned k = axis == MF_MX_ROWWISE ? sc[r * (cols / 16) + c / 16] : sc[(r / 16) * cols + c];
        float want = te_dequantize_one((el[i / 2] >> (4 * (i & 1))) & 0xF, k, amax_out);
        MF_EXPECT(mf_test_f32_bits(y[i]) == mf_test_f32_bits(want) || (isnan(y[i]) && isnan(want)),
                  "dequant %zu: %a vs TE %a", i, (double)y[i], (double)want);
    }
    free(x);
    free(y);
    free(el);
    free(sc);
    free(rel);
    free(rsc);
    return n;
}

START_TEST(test_matches_te)
{
    size_t cases = 0;
    int cls, sr;
    const float amax_given[] = {1.0f, 1e30f, 3.0e-39f /* subnormal: S_enc = FLT_MAX */, 0.0f, INFINITY};
    for (sr = 0; sr < 2; sr++) {
        for (cls = -1; cls < 8; cls++) {
            cases += compare_with_te(64, 128, MF_MX_ROWWISE, cls, NULL, sr);
            cases += compare_with_te(64, 48, MF_MX_COLWISE, cls, NULL, sr);
            cases += compare_with_te(16, 5, MF_MX_COLWISE, cls, NULL, sr); /* odd cols: nibbles straddle rows */
            cases += compare_with_te(3, 1040, MF_MX_ROWWISE, cls, NULL, sr);
        }
        {
            size_t k;
            for (k = 0; k < sizeof amax_given / sizeof amax_given[0]; k++) {
                cases += compare_with_te(32, 64, MF_MX_ROWWISE, -1, &amax_given[k], sr);
                cases += compare_with_te(32, 64, MF_MX_COLWISE, -1, &amax_given[k], sr);
            }
        }
    }
    ck_assert_uint_eq(cases, 2 * (9 * (8192 + 3072 + 80 + 3120) + 5 * 2 * 2048));
}
END_TEST

/* a hand-worked tensor: block 0 has max 2688 (the tensor amax), block 1 has max 6 */
START_TEST(test_hand_worked)
{
    float x[32], y[32];
    uint8_t el[16], sc[2];
    float amax;
    int i;
    for (i = 0; i < 32; i++)
        x[i] = 0.0f;
    x[0] = 2688.0f; /* S_enc = 2688 / 2688 = 1, S_dec = 1 */
    x[1] = -448.0f;
    x[16] = 6.0f;
    x[17] = 2.5f;
    x[18] = -1.25f;
    ck_assert_int_eq(mf_nvfp4_quantize(MF_MX_ROWWISE, x, 1, 32, el, sc, NULL, &amax, NULL), MF_OK);
    ck_assert(amax == 2688.0f);
    /* block 0: 2688 * (1 * (float)(1/6)) = 448.0000134 -> 448 in binary32 (ulp 2^-15) -> e4m3 0x7E;
     * inv = 1 / (448 * 1) = 1/448: 2688/448 = 6 -> 0x7; -448/448 = -1 -> 0xA */
    ck_assert_uint_eq(sc[0], 0x7E);
    ck_assert_uint_eq(el[0], 0xA7);
    /* block 1: 6 * (float)(1/6) = 1.0000000298 -> 1.0 -> e4m3 0x38; inv = 1:
     * 6 -> 0x7, 2.5 -> tie between 2 (0x4) and 3 (0x5): even 0x4; -1.25 -> tie 1 / 1.5: even 1 -> 0xA */
    ck_assert_uint_eq(sc[1], 0x38);
    ck_assert_uint_eq(el[8], 0x47);
    ck_assert_uint_eq(el[9], 0x0A);
    /* dequantize: final = 448 * 2688 / 2688 = 448 -> 6 * 448 = 2688 (the float 1/2688 times 2688 * 448) */
    ck_assert_int_eq(mf_nvfp4_dequantize(MF_MX_ROWWISE, el, sc, amax, 1, 32, y), MF_OK);
    ck_assert(fabsf(y[0] - 2688.0f) <= 2688.0f * 2e-7f);
    ck_assert(fabsf(y[16] - 6.0f) <= 6.0f * 2e-7f);
    ck_assert(fabsf(y[17] - 2.0f) <= 2.0f * 2e-7f);
}
END_TEST

/* ---- round trip error bound (rn, elements not clipped) --------------------------------------------------- */
START_TEST(test_round_trip_bound)
{
    enum { ROWS = 64, COLS = 64, N = ROWS * COLS };
    float x[N], y[N];
    uint8_t el[N / 2], sc[N / 16];
    size_t i, checked = 0, clipped = 0, zero_scale = 0;
    int axis, rep;
    for (rep = 0; rep < 8; rep++)
        for (axis = 0; axis < 2; axis++) {
            float amax;
            fill(x, N, rep < 4 ? 0 : 1);
            ck_assert_int_eq(mf_nvfp4_quantize((mf_mx_axis)axis, x, ROWS, COLS, el, sc, NULL, &amax, NULL), MF_OK);
            ck_assert_int_eq(mf_nvfp4_dequantize((mf_mx_axis)axis, el, sc, amax, ROWS, COLS, y), MF_OK);
            for (i = 0; i < N; i++) {
                size_t r = i / COLS, c = i % COLS;
                unsigned k = axis == MF_MX_ROWWISE ? sc[r * (COLS / 16) + c / 16] : sc[(r / 16) * COLS + c];
                /* D: the decode scale dequantize applies, in binary64 */
                double D = e4m3_value(k) * (double)amax / 2688.0, q, ulp, bound;
                if (D == 0.0) { /* the block scale underflowed e4m3 (block max tiny next to the tensor amax) */
                    MF_EXPECT(y[i] == 0.0f, "zero-scale block element %zu not 0", i);
                    zero_scale++;
                    continue;
                }
                q = (double)x[i] / D;
                if (fabs(q) > 6.0 * (1 + 1e-6)) { /* the e4m3 scale rounded down: the block max clips to 6 */
                    MF_EXPECT(fabs((double)y[i]) >= 6.0 * D * (1 - 1e-6), "clipped %zu not at 6", i);
                    clipped++;
                    continue;
                }
                ulp = fabs(q) < 2 ? 0.5 : fabs(q) < 4 ? 1.0 : 2.0;
                /* half an e2m1 ulp of D, plus the binary32 roundings of the scales (relative, tiny) */
                bound = (0.5 * ulp + 1e-5 * fabs(q)) * D;
                MF_EXPECT(fabs((double)y[i] - (double)x[i]) <= bound, "%zu: |%a - %a| > %a", i, (double)y[i],
                          (double)x[i], bound);
                checked++;
            }
        }
    /* every element is checked, clipped, or in a zero-scale block */
    ck_assert_uint_eq(checked + clipped + zero_scale, (size_t)8 * 2 * N);
    ck_assert_uint_gt(checked, (size_t)8 * 2 * N / 2);
    ck_assert_uint_gt(clipped, 0);
}
END_TEST

/* ---- NaN and inf follow TE's fmaxf / fminf semantics ----------------------------------------------------- */
START_TEST(test_nonfinite_like_te)
{
    enum { ROWS = 16, COLS = 64, N = ROWS * COLS };
    float x[N];
    uint8_t el[N / 2], sc[N / 16], rel[N / 2], rsc[N / 16];
    te_out ref;
    int rep;
    ref.el = rel;
    ref.sc = rsc;
    for (rep = 0; rep < 40; rep++) {
        int axis = rep & 1, k;
        float amax;
        fill(x, N, -1);
        for (k = 0; k < 1 + rep % 5; k++) {
            float sp = (rep + k) % 3 == 0 ? NAN : (rep + k) % 3 == 1 ? INFINITY : -INFINITY;
            if (rep % 7 == 3 && k == 0)
                sp = NAN; /* NaN never counts towards amax */
            x[rnd64() % N] = sp;
        }
        te_quantize(x, ROWS, COLS, (mf_mx_axis)axis, NULL, 0, 0, 0, &ref);
        ck_assert_int_eq(mf_nvfp4_quantize((mf_mx_axis)axis, x, ROWS, COLS, el, sc, NULL, &amax, NULL), MF_OK);
        ck_assert_uint_eq(mf_test_f32_bits(amax), mf_test_f32_bits(ref.amax));
        ck_assert_mem_eq(sc, rsc, sizeof sc);
        ck_assert_mem_eq(el, rel, sizeof el);
    }
}
END_TEST

/* ---- stochastic rounding ----------------------------------------------------------------------------------- */
START_TEST(test_sr)
{
    enum { ROWS = 64, COLS = 64, N = ROWS * COLS };
    float x[N];
    uint8_t a[N / 2], b[N / 2], c[N / 2], sa[N / 16], sb[N / 16];
    mf_opts o;
    size_t i, differ = 0;
    int axis;
    for (axis = 0; axis < 2; axis++) {
        float amax, amax2;
        fill(x, N, -1);
        memset(&o, 0, sizeof o);
        o.round = MF_ROUND_STOCHASTIC;
        o.seed = 99;
        o.sr_offset = 3;
        ck_assert_int_eq(mf_nvfp4_quantize((mf_mx_axis)axis, x, ROWS, COLS, a, sa, NULL, &amax, &o), MF_OK);
        ck_assert_int_eq(mf_nvfp4_quantize((mf_mx_axis)axis, x, ROWS, COLS, b, sb, NULL, NULL, &o), MF_OK);
        ck_assert_mem_eq(a, b, sizeof a);
        /* in two calls split by rows, with the tensor amax given and each call's sr_offset its first index */
        ck_assert_int_eq(mf_nvfp4_quantize((mf_mx_axis)axis, x, 32, COLS, c, sb, &amax, &amax2, &o), MF_OK);
        ck_assert(amax2 == amax);
        o.sr_offset = 3 + 32 * COLS;
        ck_assert_int_eq(
            mf_nvfp4_quantize((mf_mx_axis)axis, x + 32 * COLS, 32, COLS, c + 16 * COLS, sb + 2 * COLS, &amax, NULL, &o),
            MF_OK);
        ck_assert_mem_eq(a, c, sizeof a);
        ck_assert_mem_eq(sa, sb, sizeof sa);
        o.sr_offset = 3;
        o.seed = 100;
        ck_assert_int_eq(mf_nvfp4_quantize((mf_mx_axis)axis, x, ROWS, COLS, b, sb, NULL, NULL, &o), MF_OK);
        for (i = 0; i < sizeof a; i++)
            differ += a[i] != b[i];
    }
    ck_assert_uint_gt(differ, 100);
    /* unbiased: rows of [6, v x 15] with the tensor amax 6 * 448 -> S_enc = 1, block scale 1, inv 1;
     * v = 2.6 rounds to 3 with probability 0.6 */
    {
        enum { R = 8192, C = 16 };
        float *xx = malloc(R * C * sizeof(float)), *yy = malloc(R * C * sizeof(float));
        uint8_t *ee = malloc(R * C / 2), *ss = malloc(R);
        const float given = 2688.0f;
        double sum = 0, mean;
        size_t cnt = 0;
        ck_assert(xx && yy && ee && ss);
        for (i = 0; i < (size_t)R * C; i++)
            xx[i] = i % C == 0 ? 6.0f : 2.6f;
        o.seed = 7;
        o.sr_offset = 0;
        ck_assert_int_eq(mf_nvfp4_quantize(MF_MX_ROWWISE, xx, R, C, ee, ss, &given, NULL, &o), MF_OK);
        ck_assert_uint_eq(ss[0], 0x38);
        ck_assert_int_eq(mf_nvfp4_dequantize(MF_MX_ROWWISE, ee, ss, given, R, C, yy), MF_OK);
        for (i = 0; i < (size_t)R * C; i++)
            if (i % C) {
                ck_assert(yy[i] == 2.0f || yy[i] == 3.0f);
                sum += yy[i];
                cnt++;
            }
        mean = sum / (double)cnt;
        /* std of the mean: 0.49 / sqrt(122880) = 0.0014 */
        MF_EXPECT(fabs(mean - 2.6) < 0.007, "SR mean %.5f", mean);
        ck_assert_uint_eq(cnt, (size_t)R * (C - 1));
        free(xx);
        free(yy);
        free(ee);
        free(ss);
    }
}
END_TEST

/* ---- bad arguments -------------------------------------------------------------------------------------- */
START_TEST(test_bad_arguments)
{
    float x[32 * 32], y[32 * 32], amax = 1.0f, neg = -1.0f, nan = NAN, negz = -0.0f;
    uint8_t el[32 * 16], sc[64];
    mf_opts o;
    size_t i, eb, ns;
    for (i = 0; i < 32 * 32; i++)
        x[i] = (float)i;
    memset(el, 0xA5, sizeof el);
    memset(sc, 0xA5, sizeof sc);
    memset(y, 0xA5, sizeof y);
    memset(&o, 0, sizeof o);
    ck_assert_int_eq(mf_nvfp4_quantize((mf_mx_axis)2, x, 32, 32, el, sc, NULL, &amax, NULL), MF_E_ARG);
    ck_assert_int_eq(mf_nvfp4_quantize(MF_MX_ROWWISE, x, 32, 24, el, sc, NULL, &amax, NULL), MF_E_ARG);
    ck_assert_int_eq(mf_nvfp4_quantize(MF_MX_COLWISE, x, 24, 32, el, sc, NULL, &amax, NULL), MF_E_ARG);
    ck_assert_int_eq(mf_nvfp4_quantize(MF_MX_ROWWISE, x, SIZE_MAX / 16, 32, el, sc, NULL, &amax, NULL), MF_E_SIZE);
    ck_assert_int_eq(mf_nvfp4_quantize(MF_MX_ROWWISE, NULL, 32, 32, el, sc, NULL, &amax, NULL), MF_E_NULL);
    ck_assert_int_eq(mf_nvfp4_quantize(MF_MX_ROWWISE, x, 32, 32, NULL, sc, NULL, &amax, NULL), MF_E_NULL);
    ck_assert_int_eq(mf_nvfp4_quantize(MF_MX_ROWWISE, x, 32, 32, el, NULL, NULL, &amax, NULL), MF_E_NULL);
    ck_assert_int_eq(mf_nvfp4_quantize(MF_MX_ROWWISE, x, 32, 32, el, sc, &neg, &amax, NULL), MF_E_ARG);
    ck_assert_int_eq(mf_nvfp4_quantize(MF_MX_ROWWISE, x, 32, 32, el, sc, &nan, &amax, NULL), MF_E_ARG);
    ck_assert_int_eq(mf_nvfp4_quantize(MF_MX_ROWWISE, x, 32, 32, (uint8_t *)x + 4, sc, NULL, &amax, NULL),
                     MF_E_OVERLAP);
    ck_assert_int_eq(mf_nvfp4_quantize(MF_MX_ROWWISE, x, 32, 32, el, el + 500, NULL, &amax, NULL), MF_E_OVERLAP);
    o.round = MF_ROUND_UP;
    ck_assert_int_eq(mf_nvfp4_quantize(MF_MX_ROWWISE, x, 32, 32, el, sc, NULL, &amax, &o), MF_E_ROUND);
    o.round = MF_ROUND_NEAREST_EVEN;
    o.overflow = (mf_overflow)9;
    ck_assert_int_eq(mf_nvfp4_quantize(MF_MX_ROWWISE, x, 32, 32, el, sc, NULL, &amax, &o), MF_E_POLICY);
    o.overflow = MF_OVERFLOW_PROPAGATE; /* the conversions' policy alone */
    ck_assert_int_eq(mf_nvfp4_quantize(MF_MX_ROWWISE, x, 32, 32, el, sc, NULL, &amax, &o), MF_E_POLICY);
    o.overflow = MF_OVERFLOW_IEEE;
    o.threads = -2;
    ck_assert_int_eq(mf_nvfp4_quantize(MF_MX_ROWWISE, x, 32, 32, el, sc, NULL, &amax, &o), MF_E_ARG);
    for (i = 0; i < sizeof el; i++)
        MF_EXPECT(el[i] == 0xA5, "element byte written on error");
    for (i = 0; i < sizeof sc; i++)
        MF_EXPECT(sc[i] == 0xA5, "scale byte written on error");
    ck_assert(amax == 1.0f);
    /* -0 is a valid given amax (== 0: S_enc = 1); empty tensors succeed */
    ck_assert_int_eq(mf_nvfp4_quantize(MF_MX_ROWWISE, x, 16, 32, el, sc, &negz, &amax, NULL), MF_OK);
    ck_assert_int_eq(mf_nvfp4_quantize(MF_MX_COLWISE, NULL, 0, 3, NULL, NULL, NULL, &amax, NULL), MF_OK);
    ck_assert(amax == 0.0f);
    ck_assert_int_eq(mf_nvfp4_dequantize((mf_mx_axis)5, el, sc, 1.0f, 32, 32, y), MF_E_ARG);
    ck_assert_int_eq(mf_nvfp4_dequantize(MF_MX_ROWWISE, el, sc, 1.0f, 32, 8, y), MF_E_ARG);
    ck_assert_int_eq(mf_nvfp4_dequantize(MF_MX_COLWISE, el, sc, 1.0f, 8, 32, y), MF_E_ARG);
    ck_assert_int_eq(mf_nvfp4_dequantize(MF_MX_ROWWISE, NULL, sc, 1.0f, 32, 32, y), MF_E_NULL);
    ck_assert_int_eq(mf_nvfp4_dequantize(MF_MX_ROWWISE, el, NULL, 1.0f, 32, 32, y), MF_E_NULL);
    ck_assert_int_eq(mf_nvfp4_dequantize(MF_MX_ROWWISE, el, sc, 1.0f, 32, 32, NULL), MF_E_NULL);
    ck_assert_int_eq(mf_nvfp4_dequantize(MF_MX_ROWWISE, (uint8_t *)y, sc, 1.0f, 32, 32, y), MF_E_OVERLAP);
    ck_assert_int_eq(mf_nvfp4_dequantize(MF_MX_ROWWISE, el, sc, 1.0f, SIZE_MAX / 16, 32, y), MF_E_SIZE);
    ck_assert_int_eq(mf_nvfp4_dequantize(MF_MX_ROWWISE, NULL, NULL, 1.0f, 0, 32, NULL), MF_OK);
    for (i = 0; i < 32 * 32; i++)
        MF_EXPECT(mf_test_f32_bits(y[i]) == 0xA5A5A5A5u, "y written on error");
    ck_assert_int_eq(mf_nvfp4_sizes(MF_MX_COLWISE, 32, 3, &eb, &ns), MF_OK);
    ck_assert_uint_eq(eb, 48);
    ck_assert_uint_eq(ns, 6);
    ck_assert_int_eq(mf_nvfp4_sizes(MF_MX_ROWWISE, 32, 3, &eb, &ns), MF_E_ARG);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("nvfp4");
    TCase *tc = tcase_create("nvfp4");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_global_scale);
    tcase_add_test(tc, test_matches_te);
    tcase_add_test(tc, test_hand_worked);
    tcase_add_test(tc, test_round_trip_bound);
    tcase_add_test(tc, test_nonfinite_like_te);
    tcase_add_test(tc, test_sr);
    tcase_add_test(tc, test_bad_arguments);
    suite_add_tcase(s, tc);
    return mf_run_suite(s);
}
