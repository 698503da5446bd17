/* SPDX-License-Identifier: MIT */
/* tests/test_api.c - the bulk API and the format queries (unit tier).
 *
 * Bulk results are checked against the scalar contract (mf_from_f32 / mf_from_f64 / mf_to_f32),
 * whose own correctness the oracle tests establish; here the promises are about arrays: layouts,
 * lengths, tails, error codes, nothing written on error, statistics and the stochastic stream.
 */
#include "mf_test.h"
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <minifloat.h>

static const mf_format narrow[] = {MF_FP16,         MF_FP8_E4M3,     MF_FP8_E5M2,        MF_FP6_E2M3,
                                   MF_FP6_E3M2,     MF_FP4_E2M1,     MF_E8M0,            MF_BF16,
                                   MF_FP8_E4M3FNUZ, MF_FP8_E5M2FNUZ, MF_FP8_E4M3B11FNUZ, MF_FP8_E4M3IEEE,
                                   MF_FP8_E3M4};
#define N_NARROW (sizeof narrow / sizeof narrow[0])

/* xorshift for test data (deterministic). */
static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint64_t rnd64(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Interesting binary32 inputs: random bit patterns, random values near each format's range. */
static float rnd_f32(void)
{
    uint64_t r = rnd64();
    uint32_t bits;
    switch (r & 3) {
    case 0: bits = (uint32_t)(r >> 32); break;                                   /* anything */
    case 1: bits = (uint32_t)((r >> 32) & 0x807FFFFFu) | ((uint32_t)(100 + (r >> 8) % 60) << 23); break;
    case 2: bits = (uint32_t)((r >> 32) & 0x807FFFFFu) | ((uint32_t)(120 + (r >> 8) % 12) << 23); break;
    default: bits = (uint32_t)((r >> 32) & 0x80FFFFFFu); break;                 /* tiny */
    }
    return mf_test_bits_f32(bits);
}

/* Element i of a bulk array as a code. */
static uint32_t elem(mf_format f, const void *p, size_t i)
{
    const uint8_t *b = (const uint8_t *)p;
    switch (f) {
    case MF_FP32: {
        uint32_t v;
        memcpy(&v, b + 4 * i, 4);
        return v;
    }
    case MF_FP16:
    case MF_BF16: {
        uint16_t v;
        memcpy(&v, b + 2 * i, 2);
        return v;
    }
    case MF_FP4_E2M1: return (b[i / 2] >> (4 * (i % 2))) & 0xF;
    default: /* one byte a code, or two codes a byte (binary4p2sf) */
        return mf_storage_bytes(f, 2) == 1 ? (b[i / 2] >> (4 * (i % 2))) & 0xFu : b[i];
    }
}

/* ---- every code of every narrow format: decode, re-encode in every mode and policy -------------- */
/* Counts that a caller's bug makes huge (a negative int cast to size_t, SIZE_MAX, SIZE_MAX / 2, past 2^57
 * bytes): MF_E_SIZE for every pair, same-format copies included, with nothing read or written, in
 * mf_convert and mf_convert_plan; mf_storage_bytes says 0. */
START_TEST(test_api_huge_counts)
{
    static const size_t counts[] = {(size_t)(int)-100, (size_t)(int)-1, SIZE_MAX, SIZE_MAX / 2, SIZE_MAX / 2 + 1,
                                    SIZE_MAX / 8 + 1, SIZE_MAX / 16};
    uint8_t buf[64 + 16];
    int d, s;
    size_t k, i;
    for (k = 0; k < sizeof counts / sizeof counts[0]; k++)
        for (d = 0; d < MF_FORMAT_COUNT; d++) {
            ck_assert_uint_eq(mf_storage_bytes((mf_format)d, counts[k]), 0);
            for (s = 0; s < MF_FORMAT_COUNT; s++) {
                mf_plan pl;
                memset(buf, 0x5A, sizeof buf);
                ck_assert_int_eq(mf_convert((mf_format)d, buf, (mf_format)s, buf + 8, counts[k], NULL), MF_E_SIZE);
                ck_assert_int_eq(mf_convert((mf_format)d, buf + 8, (mf_format)s, buf, counts[k], NULL), MF_E_SIZE);
                ck_assert_int_eq(mf_convert_plan((mf_format)d, buf, (mf_format)s, buf + 8, counts[k], NULL, &pl),
                                 MF_E_SIZE);
                for (i = 0; i < sizeof buf; i++)
                    ck_assert_uint_eq(buf[i], 0x5A);
            }
        }
    /* the largest span is 2^57 bytes on 64-bit targets: one element more is refused, that many is not */
    if (SIZE_MAX > 0xFFFFFFFFu) {
        const size_t span = (size_t)1 << (SIZE_MAX > 0xFFFFFFFFu ? 57 : 0);
        ck_assert_uint_eq(mf_storage_bytes(MF_FP8_E4M3, span), span);
        ck_assert_uint_eq(mf_storage_bytes(MF_FP8_E4M3, span + 1), 0);
        ck_assert_uint_eq(mf_storage_bytes(MF_FP32, span / 4), span);
        ck_assert_uint_eq(mf_storage_bytes(MF_FP32, span / 4 + 1), 0);
        ck_assert_uint_eq(mf_storage_bytes(MF_FP4_E2M1, 2 * span - 1), span);
        ck_assert_uint_eq(mf_storage_bytes(MF_FP4_E2M1, 2 * span), 0);
    }
}
END_TEST

START_TEST(test_every_code_round_trips)
{
    size_t k;
    for (k = 0; k < N_NARROW; k++) {
        mf_format f = narrow[k];
        mf_format_desc d;
        uint32_t c, ncodes;
        int r, o;
        ck_assert_int_eq(mf_format_describe(f, &d), MF_OK);
        ncodes = 1u << d.bits;
        for (c = 0; c < ncodes; c++) {
            float x = mf_to_f32(f, c);
            double xd = mf_to_f64(f, c);
            int is_nan = isnan(x);
            ck_assert_int_eq(is_nan, (int)isnan(xd));
            if (!is_nan)
                ck_assert(x == xd);
            for (r = 0; r < MF_ROUND_COUNT; r++)
                for (o = 0; o < MF_OVERFLOW_COUNT; o++) {
                    uint32_t rb = (uint32_t)rnd64();
                    uint32_t back = mf_from_f32(f, x, (mf_round)r, (mf_overflow)o, rb);
                    uint32_t back64 = mf_from_f64(f, xd, (mf_round)r, (mf_overflow)o, rb);
                    uint32_t want = is_nan ? d.nan_code : c;
                    /* inf codes saturate under MF_OVERFLOW_SATURATE */
                    if (!is_nan && isinf(x) && o == MF_OVERFLOW_SATURATE)
                        want = d.max_code | (c & ~(d.inf_code));
                    MF_EXPECT(back == want, "%s code 0x%x mode %d pol %d: got 0x%x want 0x%x", d.name, c, r,
                                  o, back, want);
                    MF_EXPECT(back64 == want, "f64 path code 0x%x", c);
                }
        }
    }
}
END_TEST

/* ---- bulk equals scalar, for every length 0..257 and every destination -------------------------- */
START_TEST(test_bulk_equals_scalar_f32)
{
    enum { MAXN = 257 };
    float src[MAXN];
    uint8_t dst[MAXN * 4 + 16];
    size_t k, n, i;
    int r, o;
    for (i = 0; i < MAXN; i++)
        src[i] = rnd_f32();
    for (k = 0; k < N_NARROW; k++)
        for (r = 0; r < MF_ROUND_COUNT; r++)
            for (o = 0; o < MF_OVERFLOW_COUNT; o++)
                for (n = 0; n <= MAXN; n += (n < 40 ? 1 : 37)) {
                    mf_opts opt = {(mf_round)r, (mf_overflow)o, 1234 + n, 7, NULL, 0, MF_PROFILE_DEFAULT};
                    size_t bytes = mf_storage_bytes(narrow[k], n);
                    memset(dst, 0xA5, sizeof dst);
                    ck_assert_int_eq(mf_convert(narrow[k], dst, MF_FP32, src, n, &opt), MF_OK);
                    for (i = 0; i < n; i++) {
                        uint32_t want = mf_from_f32(narrow[k], src[i], (mf_round)r, (mf_overflow)o,
                                                    mf_sr_rbits(opt.seed, opt.sr_offset + i, mf_sr_width(narrow[k])));
                        MF_EXPECT(elem(narrow[k], dst, i) == want, "fmt %d n %zu i %zu", (int)narrow[k], n, i);
                    }
                    /* nothing past the end: untouched canary bytes (and the odd e2m1 high nibble) */
                    for (i = bytes; i < sizeof dst; i++)
                        MF_EXPECT(dst[i] == 0xA5, "byte %zu written past the end", i);
                    if (narrow[k] == MF_FP4_E2M1 && (n & 1))
                        ck_assert_uint_eq(dst[n / 2] >> 4, 0xA);
                    if (narrow[k] == MF_FP6_E2M3 || narrow[k] == MF_FP6_E3M2)
                        for (i = 0; i < n; i++)
                            MF_EXPECT((dst[i] & 0xC0) == 0, "FP6 top bits set at %zu", i);
                }
}
END_TEST

/* ---- every pair of formats: bulk equals decode-then-scalar-f64 ---------------------------------- */
START_TEST(test_bulk_any_pair)
{
    enum { N = 300 };
    double ref[N];
    uint8_t src[N * 8], dst[N * 8];
    int s, d, r;
    size_t i;
    for (s = 0; s < MF_FORMAT_COUNT; s++) {
        /* a source array: random codes of the source format */
        for (i = 0; i < sizeof src; i++)
            src[i] = (uint8_t)rnd64();
        if (s == MF_FP64) /* keep f64 inputs mostly finite and in interesting ranges */
            for (i = 0; i < N; i++) {
                double v = ldexp((double)(int64_t)(rnd64() >> 11) / 9007199254740992.0, (int)(rnd64() % 80) - 40);
                memcpy(src + 8 * i, &v, 8);
            }
        for (i = 0; i < N; i++) {
            if (s == MF_FP64)
                memcpy(&ref[i], src + 8 * i, 8);
            else
                ref[i] = mf_to_f64((mf_format)s, elem((mf_format)s, src, i));
        }
        for (d = 0; d < MF_FORMAT_COUNT; d++) {
            if (d == s)
                continue;
            for (r = 0; r < MF_ROUND_COUNT; r++) {
                mf_opts opt = {(mf_round)r, MF_OVERFLOW_SATURATE, 99, 0, NULL, 0, MF_PROFILE_DEFAULT};
                ck_assert_int_eq(mf_convert((mf_format)d, dst, (mf_format)s, src, N, &opt), MF_OK);
                for (i = 0; i < N; i++) {
                    if (d == MF_FP64) { /* exact, and saturating: inf becomes +-DBL_MAX */
                        double got, want = isinf(ref[i]) ? copysign(DBL_MAX, ref[i]) : ref[i];
                        memcpy(&got, dst + 8 * i, 8);
                        MF_EXPECT(got == want || (isnan(got) && isnan(ref[i])), "decode %d->%d i %zu", s, d, i);
                    } else if (d == MF_FP32 && s != MF_FP64) {
                        float got, want = isinf(ref[i]) ? copysignf(FLT_MAX, (float)ref[i]) : (float)ref[i];
                        memcpy(&got, dst + 4 * i, 4);
                        MF_EXPECT(got == want || (isnan(got) && isnan(ref[i])), "decode %d->%d i %zu", s, d, i);
                    } else {
                        uint32_t want = mf_from_f64((mf_format)d, ref[i], (mf_round)r, MF_OVERFLOW_SATURATE,
                                                    mf_sr_rbits(99, i, mf_sr_width((mf_format)d)));
                        MF_EXPECT(elem((mf_format)d, dst, i) == want, "%d->%d mode %d i %zu", s, d, r, i);
                    }
                }
            }
        }
    }
}
END_TEST

/* ---- decoding into f32 / f64 equals mf_to_f32 / mf_to_f64 bit for bit (NaN payloads too) ------- */
START_TEST(test_bulk_decode_bits)
{
    size_t k;
    for (k = 0; k < N_NARROW; k++) {
        mf_format f = narrow[k];
        uint32_t ncodes = 1u << (f == MF_FP16 || f == MF_BF16 ? 16 : (f == MF_FP4_E2M1 ? 4 : 8));
        uint8_t *src = malloc(ncodes * 2);
        float *out32 = malloc(ncodes * sizeof(float));
        double *out64 = malloc(ncodes * sizeof(double));
        uint32_t c;
        ck_assert_ptr_nonnull(src);
        ck_assert_ptr_nonnull(out32);
        ck_assert_ptr_nonnull(out64);
        memset(src, 0, ncodes * 2);
        for (c = 0; c < ncodes; c++) {
            if (f == MF_FP16 || f == MF_BF16) {
                uint16_t v = (uint16_t)c;
                memcpy(src + 2 * c, &v, 2);
            } else if (f == MF_FP4_E2M1) {
                src[c / 2] |= (uint8_t)(c << (4 * (c % 2)));
            } else {
                src[c] = (uint8_t)c;
            }
        }
        if (f == MF_FP6_E2M3 || f == MF_FP6_E3M2)
            ncodes = 64;
        ck_assert_int_eq(mf_convert(MF_FP32, out32, f, src, ncodes, NULL), MF_OK);
        ck_assert_int_eq(mf_convert(MF_FP64, out64, f, src, ncodes, NULL), MF_OK);
        for (c = 0; c < ncodes; c++) {
            float w32 = mf_to_f32(f, c);
            double w64 = mf_to_f64(f, c);
            MF_EXPECT(memcmp(&out32[c], &w32, 4) == 0, "f32 bits of code 0x%x", c);
            MF_EXPECT(memcmp(&out64[c], &w64, 8) == 0, "f64 bits of code 0x%x", c);
        }
        free(src);
        free(out32);
        free(out64);
    }
}
END_TEST

/* ---- statistics equal the scalar events ------------------------------------------------------- */
START_TEST(test_stats_match_events)
{
    enum { N = 4000 };
    static float src[N];
    static uint8_t dst[N * 2];
    size_t k, i;
    uint64_t nans = 0;
    int r, o;
    for (i = 0; i < N; i++)
        src[i] = rnd_f32();
    src[0] = NAN;
    src[1] = INFINITY;
    src[2] = -INFINITY;
    src[3] = 0.0f;
    src[4] = -0.0f;
    for (i = 0; i < N; i++)
        nans += isnan(src[i]) != 0;
    for (k = 0; k < N_NARROW; k++)
        for (r = 0; r < MF_ROUND_COUNT; r++)
            for (o = 0; o < MF_OVERFLOW_COUNT; o++) {
                mf_stats st, want;
                mf_opts opt = {(mf_round)r, (mf_overflow)o, 5, 0, &st, 0, MF_PROFILE_DEFAULT};
                memset(&want, 0, sizeof want);
                memset(&st, 0xFF, sizeof st);
                for (i = 0; i < N; i++) {
                    unsigned ev = 0;
                    mf_from_f32_ev(narrow[k], src[i], (mf_round)r, (mf_overflow)o, mf_sr_rbits(5, i, mf_sr_width(narrow[k])), &ev);
                    want.overflow += !!(ev & MF_EVENT_OVERFLOW);
                    want.underflow += !!(ev & MF_EVENT_UNDERFLOW);
                    want.subnormal += !!(ev & MF_EVENT_SUBNORMAL);
                    want.nan += !!(ev & MF_EVENT_NAN);
                    want.inexact += !!(ev & MF_EVENT_INEXACT);
                }
                ck_assert_int_eq(mf_convert(narrow[k], dst, MF_FP32, src, N, &opt), MF_OK);
                ck_assert_uint_eq(st.overflow, want.overflow);
                ck_assert_uint_eq(st.underflow, want.underflow);
                ck_assert_uint_eq(st.subnormal, want.subnormal);
                ck_assert_uint_eq(st.nan, want.nan);
                ck_assert_uint_eq(st.inexact, want.inexact);
                ck_assert_uint_eq(st.nan, nans);
                ck_assert_uint_gt(st.inexact, 0);
            }
}
END_TEST

/* Counting by hand on a small array whose every event is known. */
START_TEST(test_stats_hand_counted)
{
    /* e4m3, rn, IEEE: 500 overflows (NaN), 1e-6 underflows, 0.001 is subnormal (and inexact),
     * NaN counted once, 1.0 exact, -inf becomes NaN (overflow). */
    float src[6] = {500.0f, 1e-6f, 0.001f, NAN, 1.0f, -INFINITY};
    uint8_t dst[6];
    mf_stats st;
    mf_opts opt = {MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0, 0, &st, 0, MF_PROFILE_DEFAULT};
    ck_assert_int_eq(mf_convert(MF_FP8_E4M3, dst, MF_FP32, src, 6, &opt), MF_OK);
    ck_assert_uint_eq(st.overflow, 2);
    ck_assert_uint_eq(st.underflow, 1);
    ck_assert_uint_eq(st.subnormal, 1);
    ck_assert_uint_eq(st.nan, 1);
    ck_assert_uint_eq(st.inexact, 4);
    ck_assert_uint_eq(dst[0], 0x7F);
    ck_assert_uint_eq(dst[5], 0x7F);
    ck_assert_uint_eq(dst[4], 0x38);
}
END_TEST

/* The same by hand for e4m3fnuz (docs/formats.md): 500 overflows to the NaN 0x80, -1e-6 underflows to
 * +0 (no -0), -0 becomes +0 exactly (no event), 0.001 is the subnormal 2^-10 (inexact), NaN is 0x80,
 * 1.0 is 0x40 exactly, -inf becomes the NaN (overflow). Saturating: +-max instead of the NaN. */
START_TEST(test_stats_hand_counted_fnuz)
{
    float src[7] = {500.0f, -1e-6f, -0.0f, 0.001f, NAN, 1.0f, -INFINITY};
    static const uint8_t want_ieee[7] = {0x80, 0x00, 0x00, 0x01, 0x80, 0x40, 0x80};
    static const uint8_t want_sat[7] = {0x7F, 0x00, 0x00, 0x01, 0x80, 0x40, 0xFF};
    uint8_t dst[7];
    int o, i;
    for (o = 0; o < 2; o++) {
        mf_stats st;
        mf_opts opt = {MF_ROUND_NEAREST_EVEN, (mf_overflow)o, 0, 0, &st, 0, MF_PROFILE_DEFAULT};
        ck_assert_int_eq(mf_convert(MF_FP8_E4M3FNUZ, dst, MF_FP32, src, 7, &opt), MF_OK);
        for (i = 0; i < 7; i++)
            ck_assert_uint_eq(dst[i], o ? want_sat[i] : want_ieee[i]);
        ck_assert_uint_eq(st.overflow, 2);
        ck_assert_uint_eq(st.underflow, 1);
        ck_assert_uint_eq(st.subnormal, 1);
        ck_assert_uint_eq(st.nan, 1);
        ck_assert_uint_eq(st.inexact, 4);
    }
}
END_TEST

/* ---- errors: each code, and nothing written ---------------------------------------------------- */
START_TEST(test_errors_write_nothing)
{
    float src[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    uint8_t dst[64];
    mf_stats st;
    mf_opts bad_r = {(mf_round)7, MF_OVERFLOW_IEEE, 0, 0, &st, 0, MF_PROFILE_DEFAULT};
    mf_opts bad_o = {MF_ROUND_NEAREST_EVEN, (mf_overflow)MF_OVERFLOW_COUNT, 0, 0, &st, 0, MF_PROFILE_DEFAULT};
    mf_opts neg_r = {(mf_round)-1, MF_OVERFLOW_IEEE, 0, 0, &st, 0, MF_PROFILE_DEFAULT};
    size_t i;
    memset(dst, 0x5A, sizeof dst);
    memset(&st, 0x77, sizeof st);
    ck_assert_int_eq(mf_convert((mf_format)MF_FORMAT_COUNT, dst, MF_FP32, src, 8, NULL), MF_E_FORMAT);
    ck_assert_int_eq(mf_convert(MF_FP16, dst, (mf_format)-1, src, 8, NULL), MF_E_FORMAT);
    ck_assert_int_eq(mf_convert(MF_FP16, dst, MF_FP32, src, 8, &bad_r), MF_E_ROUND);
    ck_assert_int_eq(mf_convert(MF_FP16, dst, MF_FP32, src, 8, &neg_r), MF_E_ROUND);
    ck_assert_int_eq(mf_convert(MF_FP16, dst, MF_FP32, src, 8, &bad_o), MF_E_POLICY);
    ck_assert_int_eq(mf_convert(MF_FP16, NULL, MF_FP32, src, 8, NULL), MF_E_NULL);
    ck_assert_int_eq(mf_convert(MF_FP16, dst, MF_FP32, NULL, 8, NULL), MF_E_NULL);
    ck_assert_int_eq(mf_convert(MF_FP16, dst, MF_FP32, src, SIZE_MAX / 2, NULL), MF_E_SIZE);
    for (i = 0; i < sizeof dst; i++)
        ck_assert_uint_eq(dst[i], 0x5A);
    ck_assert_uint_eq(st.overflow, 0x7777777777777777u);
    /* n = 0: success, nothing touched, NULL pointers allowed, stats zeroed */
    {
        mf_opts ok = {MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0, 0, &st, 0, MF_PROFILE_DEFAULT};
        ck_assert_int_eq(mf_convert(MF_FP16, NULL, MF_FP32, NULL, 0, &ok), MF_OK);
        ck_assert_uint_eq(st.overflow, 0);
        ck_assert_uint_eq(st.nan, 0);
    }
    for (i = 0; i <= 12; i++) /* MF_OK .. MF_E_REDUCE */
        ck_assert_str_ne(mf_strerror(-(int)i), "unknown status code");
    ck_assert_str_eq(mf_strerror(-13), "unknown status code");
    ck_assert_str_eq(mf_strerror(-100), "unknown status code");
    ck_assert_str_eq(mf_strerror(42), "unknown status code");
}
END_TEST

START_TEST(test_overlap)
{
    uint8_t buf[256];
    float f[16];
    size_t i;
    for (i = 0; i < 16; i++)
        f[i] = (float)i * 0.5f;
    memcpy(buf, f, sizeof f);
    /* different formats, overlapping ranges: refused, untouched */
    ck_assert_int_eq(mf_convert(MF_FP16, buf, MF_FP32, buf, 16, NULL), MF_E_OVERLAP);
    ck_assert_int_eq(mf_convert(MF_FP16, buf + 60, MF_FP32, buf, 16, NULL), MF_E_OVERLAP);
    ck_assert_int_eq(mf_convert(MF_FP32, buf + 4, MF_FP8_E4M3, buf, 16, NULL), MF_E_OVERLAP);
    ck_assert_int_eq(memcmp(buf, f, sizeof f), 0);
    /* adjacent ranges do not overlap */
    ck_assert_int_eq(mf_convert(MF_FP16, buf + 64, MF_FP32, buf, 16, NULL), MF_OK);
    /* equal formats: memmove semantics */
    ck_assert_int_eq(mf_convert(MF_FP32, buf + 4, MF_FP32, buf, 15, NULL), MF_OK);
    ck_assert_int_eq(memcmp(buf + 4, f, 15 * 4), 0);
    /* e2m1 packed in place, odd count: the last byte's high nibble survives */
    {
        uint8_t p[3] = {0x21, 0x43, 0xF5};
        uint8_t q[4] = {0x00, 0x00, 0x00, 0xB0};
        ck_assert_int_eq(mf_convert(MF_FP4_E2M1, q + 1, MF_FP4_E2M1, p, 5, NULL), MF_OK);
        ck_assert_uint_eq(q[1], 0x21);
        ck_assert_uint_eq(q[2], 0x43);
        ck_assert_uint_eq(q[3], 0xB5);
        ck_assert_uint_eq(q[0], 0x00);
    }
}
END_TEST

/* ---- layouts: e2m1 nibble order, FP6 high bits ignored ------------------------------------------ */
START_TEST(test_layouts)
{
    float src[5] = {0.5f, 1.0f, 1.5f, 2.0f, 6.0f};
    uint8_t out[3] = {0, 0, 0xE0};
    float back[5];
    uint8_t fp6[4] = {0xC1, 0x41, 0x81, 0x01}; /* all code 1 once the top two bits are ignored */
    size_t i;
    ck_assert_int_eq(mf_convert(MF_FP4_E2M1, out, MF_FP32, src, 5, NULL), MF_OK);
    ck_assert_uint_eq(out[0], 0x21); /* element 0 in bits 0..3 */
    ck_assert_uint_eq(out[1], 0x43);
    ck_assert_uint_eq(out[2], 0xE7); /* 6.0 = 0x7, the high nibble kept */
    ck_assert_int_eq(mf_convert(MF_FP32, back, MF_FP4_E2M1, out, 5, NULL), MF_OK);
    for (i = 0; i < 5; i++)
        ck_assert(back[i] == src[i]);
    ck_assert_int_eq(mf_convert(MF_FP32, back, MF_FP6_E2M3, fp6, 4, NULL), MF_OK);
    for (i = 0; i < 4; i++)
        ck_assert(back[i] == 0.125f);
    /* FP6 to the same FP6 format: a copy that still writes the top two bits as zero */
    {
        uint8_t same[4];
        ck_assert_int_eq(mf_convert(MF_FP6_E3M2, same, MF_FP6_E3M2, fp6, 4, NULL), MF_OK);
        for (i = 0; i < 4; i++)
            ck_assert_uint_eq(same[i], 0x01);
    }
    {
        mf_e2m1x2_t p = mf_e2m1x2_pack(mf_e2m1_from_bits(0x3), mf_e2m1_from_bits(0xA));
        ck_assert_uint_eq(p.bits, 0xA3);
        ck_assert_uint_eq(mf_e2m1x2_lo(p).bits, 0x3);
        ck_assert_uint_eq(mf_e2m1x2_hi(p).bits, 0xA);
    }
}
END_TEST

/* ---- stochastic rounding stream ----------------------------------------------------------------- */
START_TEST(test_philox_known_answers)
{
    /* Random123 kat_vectors, philox4x32 10 */
    static const uint32_t kat[3][10] = {
        {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
        {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d, 0x41c83b0e,
         0xa20bc7c6, 0x6d5451fd},
        {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09, 0x94fdcceb,
         0x5001e420, 0x24126ea1},
    };
    int k, j;
    for (k = 0; k < 3; k++) {
        mf_philox4x32 c, out;
        for (j = 0; j < 4; j++)
            c.v[j] = kat[k][j];
        out = mf_philox4x32_10(c, kat[k][4], kat[k][5]);
        for (j = 0; j < 4; j++)
            ck_assert_uint_eq(out.v[j], kat[k][6 + j]);
    }
    /* the stream mapping: index -> block idx>>2, word idx&3; key = seed */
    {
        mf_philox4x32 c = {{5, 0, 0, 0}};
        mf_philox4x32 out = mf_philox4x32_10(c, 0x89ABCDEFu, 0x01234567u);
        for (j = 0; j < 4; j++)
            ck_assert_uint_eq(mf_sr_bits(0x0123456789ABCDEFu, 20 + (uint64_t)j), out.v[j]);
        /* the slices: 16-bit elements 2k, 2k+1 take word k's low, high half; 8-bit elements 4k..4k+3
         * its bytes from the lowest; each at the top of rbits */
        for (j = 0; j < 4; j++) {
            const uint32_t w = out.v[j];
            ck_assert_uint_eq(mf_sr_rbits(0x0123456789ABCDEFu, 20 + (uint64_t)j, 32), w);
            ck_assert_uint_eq(mf_sr_rbits(0x0123456789ABCDEFu, 40 + 2 * (uint64_t)j, 16), (w & 0xFFFFu) << 16);
            ck_assert_uint_eq(mf_sr_rbits(0x0123456789ABCDEFu, 41 + 2 * (uint64_t)j, 16), w & 0xFFFF0000u);
            for (k = 0; k < 4; k++)
                ck_assert_uint_eq(mf_sr_rbits(0x0123456789ABCDEFu, 80 + 4 * (uint64_t)j + (uint64_t)k, 8),
                                  ((w >> (8 * k)) & 0xFFu) << 24);
        }
    }
    /* the widths: what the hardware's stochastic conversions take per element */
    ck_assert_uint_eq(mf_sr_width(MF_FP32), 32);
    ck_assert_uint_eq(mf_sr_width(MF_FP16), 16);
    ck_assert_uint_eq(mf_sr_width(MF_BF16), 16);
    for (k = MF_FP8_E4M3; k <= MF_E8M0; k++)
        ck_assert_uint_eq(mf_sr_width((mf_format)k), 8);
    for (k = MF_FP8_E4M3FNUZ; k <= MF_FP8_E3M4; k++)
        ck_assert_uint_eq(mf_sr_width((mf_format)k), 8);
    /* the index wraps at 2^64: element 2^64 - 1 takes the top slice of word 2^(64 - sh) - 1 */
    ck_assert_uint_eq(mf_sr_rbits(7, UINT64_MAX, 8), mf_sr_bits(7, UINT64_MAX >> 2) & 0xFF000000u);
    ck_assert_uint_eq(mf_sr_rbits(7, UINT64_MAX, 16), mf_sr_bits(7, UINT64_MAX >> 1) & 0xFFFF0000u);
}
END_TEST

START_TEST(test_sr_split_invariance)
{
    enum { N = 1000 };
    static float src[N];
    static uint16_t whole[N], parts[N];
    size_t i, cut;
    for (i = 0; i < N; i++)
        src[i] = rnd_f32();
    {
        mf_opts o = {MF_ROUND_STOCHASTIC, MF_OVERFLOW_SATURATE, 0xDEADBEEFCAFEu, 0, NULL, 0, MF_PROFILE_DEFAULT};
        ck_assert_int_eq(mf_convert(MF_BF16, whole, MF_FP32, src, N, &o), MF_OK);
    }
    for (cut = 1; cut < N; cut += 97) {
        mf_opts a = {MF_ROUND_STOCHASTIC, MF_OVERFLOW_SATURATE, 0xDEADBEEFCAFEu, 0, NULL, 0, MF_PROFILE_DEFAULT};
        mf_opts b = {MF_ROUND_STOCHASTIC, MF_OVERFLOW_SATURATE, 0xDEADBEEFCAFEu, cut, NULL, 0, MF_PROFILE_DEFAULT};
        ck_assert_int_eq(mf_convert(MF_BF16, parts, MF_FP32, src, cut, &a), MF_OK);
        ck_assert_int_eq(mf_convert(MF_BF16, parts + cut, MF_FP32, src + cut, N - cut, &b), MF_OK);
        ck_assert_int_eq(memcmp(whole, parts, sizeof whole), 0);
    }
}
END_TEST

/* Stochastic rounding is unbiased: the mean of many roundings of one value approaches it. */
START_TEST(test_sr_unbiased)
{
    enum { N = 1 << 16 };
    static float src[N];
    static uint8_t dst[N];
    static float back[N];
    double mean = 0;
    size_t i;
    mf_opts o = {MF_ROUND_STOCHASTIC, MF_OVERFLOW_SATURATE, 42, 0, NULL, 0, MF_PROFILE_DEFAULT};
    for (i = 0; i < N; i++)
        src[i] = 1.1f; /* between e4m3 1.0 and 1.125: p(up) = 0.8 */
    ck_assert_int_eq(mf_convert(MF_FP8_E4M3, dst, MF_FP32, src, N, &o), MF_OK);
    ck_assert_int_eq(mf_convert(MF_FP32, back, MF_FP8_E4M3, dst, N, NULL), MF_OK);
    for (i = 0; i < N; i++) {
        MF_EXPECT(back[i] == 1.0f || back[i] == 1.125f, "sr result %g", back[i]);
        mean += back[i];
    }
    mean /= N;
    /* standard error of the mean: 0.125 * sqrt(0.16 / N) ~ 2e-4; allow 5 sigma */
    ck_assert_double_eq_tol(mean, 1.1, 1e-3);
}
END_TEST

/* ---- threads: the same bytes and counts whatever the thread count --------------------------------- */
START_TEST(test_threads_identical)
{
    enum { N = 3000001 }; /* odd: an e2m1 half byte at the end, and uneven pieces */
    static float src[N];
    static uint8_t one[N * 2], many[N * 2];
    static const mf_format dsts[] = {MF_FP4_E2M1, MF_BF16, MF_FP8_E4M3};
    size_t i, k;
    int t;
    for (i = 0; i < N; i++)
        src[i] = rnd_f32();
    for (k = 0; k < sizeof dsts / sizeof dsts[0]; k++)
        for (t = 2; t <= 7; t += 5) {
            mf_stats s1, sn;
            mf_opts o1 = {MF_ROUND_STOCHASTIC, MF_OVERFLOW_IEEE, 9, 123, &s1, 0, MF_PROFILE_DEFAULT};
            mf_opts on = {MF_ROUND_STOCHASTIC, MF_OVERFLOW_IEEE, 9, 123, &sn, t, MF_PROFILE_DEFAULT};
            memset(one, 0x11, sizeof one);
            memset(many, 0x11, sizeof many);
            ck_assert_int_eq(mf_convert(dsts[k], one, MF_FP32, src, N, &o1), MF_OK);
            ck_assert_int_eq(mf_convert(dsts[k], many, MF_FP32, src, N, &on), MF_OK);
            ck_assert_int_eq(memcmp(one, many, sizeof one), 0);
            ck_assert_uint_eq(s1.overflow, sn.overflow);
            ck_assert_uint_eq(s1.underflow, sn.underflow);
            ck_assert_uint_eq(s1.subnormal, sn.subnormal);
            ck_assert_uint_eq(s1.nan, sn.nan);
            ck_assert_uint_eq(s1.inexact, sn.inexact);
            ck_assert_uint_gt(s1.inexact, 0);
        }
    {
        mf_opts bad = {MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0, 0, NULL, -1, MF_PROFILE_DEFAULT};
        ck_assert_int_eq(mf_convert(MF_FP16, one, MF_FP32, src, 10, &bad), MF_E_ARG);
    }
}
END_TEST

/* ---- queries ------------------------------------------------------------------------------------ */
START_TEST(test_describe_table)
{
    /* the table of the issue: bits, bias, max finite, specials */
    static const struct {
        mf_format f;
        const char *name;
        int bits, exp_bits, man_bits, bias;
        double max;
        int inf, nan;
    } t[] = {
        {MF_FP32, "f32", 32, 8, 23, 127, 3.4028234663852886e38, 1, 1},
        {MF_FP16, "f16", 16, 5, 10, 15, 65504.0, 1, 1},
        {MF_BF16, "bf16", 16, 8, 7, 127, 3.3895313892515355e38, 1, 1},
        {MF_FP8_E4M3, "e4m3", 8, 4, 3, 7, 448.0, 0, 1},
        {MF_FP8_E5M2, "e5m2", 8, 5, 2, 15, 57344.0, 1, 1},
        {MF_FP6_E2M3, "e2m3", 6, 2, 3, 1, 7.5, 0, 0},
        {MF_FP6_E3M2, "e3m2", 6, 3, 2, 3, 28.0, 0, 0},
        {MF_FP4_E2M1, "e2m1", 4, 2, 1, 1, 6.0, 0, 0},
        {MF_E8M0, "e8m0", 8, 8, 0, 127, 1.7014118346046923e38, 0, 1},
        {MF_FP64, "f64", 64, 11, 52, 1023, 1.7976931348623157e308, 1, 1},
        {MF_FP8_E4M3FNUZ, "e4m3fnuz", 8, 4, 3, 8, 240.0, 0, 1},
        {MF_FP8_E5M2FNUZ, "e5m2fnuz", 8, 5, 2, 16, 57344.0, 0, 1},
        {MF_FP8_E4M3B11FNUZ, "e4m3b11fnuz", 8, 4, 3, 11, 30.0, 0, 1},
        {MF_FP8_E4M3IEEE, "e4m3ieee", 8, 4, 3, 7, 240.0, 1, 1},
        {MF_FP8_E3M4, "e3m4", 8, 3, 4, 3, 15.5, 1, 1},
    };
    size_t k;
    for (k = 0; k < sizeof t / sizeof t[0]; k++) {
        mf_format_desc d;
        mf_format back;
        ck_assert_int_eq(mf_format_describe(t[k].f, &d), MF_OK);
        ck_assert_str_eq(d.name, t[k].name);
        ck_assert_str_eq(mf_format_name(t[k].f), t[k].name);
        ck_assert_int_eq(mf_format_from_name(t[k].name, &back), MF_OK);
        ck_assert_int_eq(back, t[k].f);
        ck_assert_int_eq(d.bits, t[k].bits);
        ck_assert_int_eq(d.exp_bits, t[k].exp_bits);
        ck_assert_int_eq(d.man_bits, t[k].man_bits);
        ck_assert_int_eq(d.bias, t[k].bias);
        ck_assert(d.max == t[k].max);
        ck_assert_int_eq(d.has_inf, t[k].inf);
        ck_assert_int_eq(d.has_nan, t[k].nan);
    }
    {
        mf_format_desc d;
        mf_format_describe(MF_FP8_E4M3, &d);
        ck_assert(d.min_normal == 0.015625);
        ck_assert(d.min_subnormal == 0.001953125);
        ck_assert(d.epsilon == 0.125);
        ck_assert_uint_eq(d.max_code, 0x7E);
        ck_assert_uint_eq(d.nan_code, 0x7F);
        mf_format_describe(MF_E8M0, &d);
        ck_assert(d.min_normal == ldexp(1.0, -127));
        ck_assert_int_eq(d.has_zero, 0);
        mf_format_describe(MF_FP16, &d);
        ck_assert(d.min_subnormal == ldexp(1.0, -24));
        ck_assert_uint_eq(d.inf_code, 0x7C00);
    }
    { /* the FNUZ and IEEE-style FP8 formats: codes and extremes from docs/formats.md's table */
        static const struct {
            mf_format f;
            uint32_t max_code, nan_code, inf_code;
            int min_normal_exp, min_subnormal_exp, neg_zero;
        } t8[] = {{MF_FP8_E4M3FNUZ, 0x7F, 0x80, 0, -7, -10, 0},   {MF_FP8_E5M2FNUZ, 0x7F, 0x80, 0, -15, -17, 0},
                  {MF_FP8_E4M3B11FNUZ, 0x7F, 0x80, 0, -10, -13, 0}, {MF_FP8_E4M3IEEE, 0x77, 0x7F, 0x78, -6, -9, 1},
                  {MF_FP8_E3M4, 0x6F, 0x7F, 0x70, -2, -6, 1}};
        for (k = 0; k < sizeof t8 / sizeof t8[0]; k++) {
            mf_format_desc d;
            ck_assert_int_eq(mf_format_describe(t8[k].f, &d), MF_OK);
            ck_assert_uint_eq(d.max_code, t8[k].max_code);
            ck_assert_uint_eq(d.nan_code, t8[k].nan_code);
            ck_assert_uint_eq(d.inf_code, t8[k].inf_code);
            ck_assert(d.min_normal == ldexp(1.0, t8[k].min_normal_exp));
            ck_assert(d.min_subnormal == ldexp(1.0, t8[k].min_subnormal_exp));
            ck_assert(d.epsilon == ldexp(1.0, -d.man_bits));
            ck_assert_int_eq(d.is_signed, 1);
            ck_assert_int_eq(d.has_zero, 1);
            ck_assert_int_eq(d.has_subnormals, 1);
            ck_assert_int_eq(d.has_neg_zero, t8[k].neg_zero);
            ck_assert(mf_to_f64(t8[k].f, d.max_code) == d.max);
        }
    }
    ck_assert_int_eq(mf_format_describe((mf_format)99, NULL), MF_E_NULL);
    {
        mf_format_desc d;
        ck_assert_int_eq(mf_format_describe((mf_format)99, &d), MF_E_FORMAT);
    }
}
END_TEST

START_TEST(test_names)
{
    int i;
    mf_format f;
    mf_round r;
    mf_overflow o;
    for (i = 0; i < MF_ROUND_COUNT; i++) {
        ck_assert_int_eq(mf_round_from_name(mf_round_name((mf_round)i), &r), MF_OK);
        ck_assert_int_eq(r, i);
    }
    for (i = 0; i < MF_OVERFLOW_COUNT; i++) {
        ck_assert_int_eq(mf_overflow_from_name(mf_overflow_name((mf_overflow)i), &o), MF_OK);
        ck_assert_int_eq(o, i);
    }
    ck_assert_int_eq(mf_format_from_name("BFloat16", &f), MF_OK);
    ck_assert_int_eq(f, MF_BF16);
    ck_assert_int_eq(mf_format_from_name("float8_e4m3fn", &f), MF_OK);
    ck_assert_int_eq(f, MF_FP8_E4M3);
    /* ml_dtypes' names: its float8_e4m3 is the IEEE-style e4m3ieee, not OCP's e4m3 */
    ck_assert_int_eq(mf_format_from_name("float8_e4m3", &f), MF_OK);
    ck_assert_int_eq(f, MF_FP8_E4M3IEEE);
    ck_assert_int_eq(mf_format_from_name("float8_e4m3fnuz", &f), MF_OK);
    ck_assert_int_eq(f, MF_FP8_E4M3FNUZ);
    ck_assert_int_eq(mf_format_from_name("float8_e5m2fnuz", &f), MF_OK);
    ck_assert_int_eq(f, MF_FP8_E5M2FNUZ);
    ck_assert_int_eq(mf_format_from_name("float8_e4m3b11fnuz", &f), MF_OK);
    ck_assert_int_eq(f, MF_FP8_E4M3B11FNUZ);
    ck_assert_int_eq(mf_format_from_name("float8_e3m4", &f), MF_OK);
    ck_assert_int_eq(f, MF_FP8_E3M4);
    for (i = 0; i < MF_FORMAT_COUNT; i++) { /* every tag names its format */
        ck_assert_ptr_nonnull(mf_format_name((mf_format)i));
        ck_assert_int_eq(mf_format_from_name(mf_format_name((mf_format)i), &f), MF_OK);
        ck_assert_int_eq(f, i);
    }
    ck_assert_int_eq(mf_format_from_name("e9m9", &f), MF_E_ARG);
    ck_assert_int_eq(mf_format_from_name(NULL, &f), MF_E_NULL);
    ck_assert_int_eq(mf_round_from_name("rx", &r), MF_E_ARG);
    ck_assert_int_eq(mf_overflow_from_name("saturate", &o), MF_OK);
    ck_assert_int_eq(o, MF_OVERFLOW_SATURATE);
    ck_assert_ptr_null(mf_format_name((mf_format)MF_FORMAT_COUNT));
    ck_assert_ptr_null(mf_round_name((mf_round)MF_ROUND_COUNT));
    ck_assert_int_eq(mf_overflow_from_name("Propagate", &o), MF_OK);
    ck_assert_int_eq(o, MF_OVERFLOW_PROPAGATE);
    ck_assert_str_eq(mf_overflow_name(MF_OVERFLOW_PROPAGATE), "propagate");
    ck_assert_ptr_null(mf_overflow_name((mf_overflow)MF_OVERFLOW_COUNT));
    ck_assert_str_eq(mf_version(), MF_VERSION_STRING);
    ck_assert_uint_eq(mf_storage_bytes(MF_FP4_E2M1, 5), 3);
    ck_assert_uint_eq(mf_storage_bytes(MF_FP6_E2M3, 5), 5);
    ck_assert_uint_eq(mf_storage_bytes(MF_FP64, 5), 40);
    ck_assert_uint_eq(mf_storage_bytes(MF_FP8_E4M3FNUZ, 5), 5);
    ck_assert_uint_eq(mf_storage_bytes(MF_FP8_E3M4, 5), 5);
    ck_assert_uint_eq(mf_storage_bytes((mf_format)77, 5), 0);
    ck_assert_uint_eq(mf_storage_bytes(MF_FP32, SIZE_MAX / 2), 0);
}
END_TEST

/* Invalid arguments to the scalar contract have documented results. */
START_TEST(test_scalar_bad_args)
{
    ck_assert_uint_eq(mf_from_f32((mf_format)77, 1.0f, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0), 0xFFFFFFFFu);
    ck_assert_uint_eq(mf_from_f32(MF_FP64, 1.0f, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0), 0xFFFFFFFFu);
    ck_assert_uint_eq(mf_from_f32(MF_FP16, 1.0f, (mf_round)9, MF_OVERFLOW_IEEE, 0), 0xFFFFFFFFu);
    ck_assert_uint_eq(mf_from_f64(MF_FP16, 1.0, MF_ROUND_NEAREST_EVEN, (mf_overflow)5, 0), 0xFFFFFFFFu);
    ck_assert(isnan(mf_to_f32((mf_format)77, 0)));
    ck_assert(isnan(mf_to_f64(MF_FP64, 0)));
    ck_assert(isnan(mf_to_f64((mf_format)-3, 0)));
    /* f32 -> f32 is the identity, NaN payload included */
    ck_assert_uint_eq(mf_from_f32(MF_FP32, mf__f32_from_bits(0x7F800001u), MF_ROUND_UP, MF_OVERFLOW_IEEE, 0),
                      0x7F800001u);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("api");
    TCase *tc = tcase_create("api");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_api_huge_counts);
    tcase_add_test(tc, test_every_code_round_trips);
    tcase_add_test(tc, test_bulk_equals_scalar_f32);
    tcase_add_test(tc, test_bulk_any_pair);
    tcase_add_test(tc, test_bulk_decode_bits);
    tcase_add_test(tc, test_stats_match_events);
    tcase_add_test(tc, test_stats_hand_counted);
    tcase_add_test(tc, test_stats_hand_counted_fnuz);
    tcase_add_test(tc, test_errors_write_nothing);
    tcase_add_test(tc, test_overlap);
    tcase_add_test(tc, test_layouts);
    tcase_add_test(tc, test_philox_known_answers);
    tcase_add_test(tc, test_sr_split_invariance);
    tcase_add_test(tc, test_sr_unbiased);
    tcase_add_test(tc, test_describe_table);
    tcase_add_test(tc, test_names);
    tcase_add_test(tc, test_scalar_bad_args);
    tcase_add_test(tc, test_threads_identical);
    suite_add_tcase(s, tc);
    return mf_run_suite(s);
}
