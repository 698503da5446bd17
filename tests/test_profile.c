/* SPDX-License-Identifier: MIT */
/* tests/test_profile.c - the compatibility profiles on vectors measured from each system.
 *
 * Every expected code below is what the system itself produced (ml_dtypes 0.7.0 with numpy 2.4.6,
 * PyTorch 2.15.0 CPU, ONNX 1.23.2's reference Cast, NVIDIA's CUDA 13 host headers), with the reason in
 * the why column; none comes from this library. MF_PROFILE_CUDA is also compared with NVIDIA's host
 * code on millions of inputs in test_nvidia.cpp, and python/tests compares every profile with its
 * system over sampled (or, on request, all 2^32) binary32 inputs. Here: the vectors through the scalar
 * functions and mf_convert, the formats and modes each system lacks, and the bulk path's plan.
 */
#include <minifloat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mf_test.h"

typedef struct {
    mf_profile p;
    mf_format fmt;
    int src64;      /* 0: x32 is the input's binary32 bits; 1: x64 its binary64 bits */
    uint32_t x32;
    uint64_t x64;
    mf_round r;
    mf_overflow o;
    uint32_t want;
    const char *why;
} enc_vec;

#define RN MF_ROUND_NEAREST_EVEN
#define IE MF_OVERFLOW_IEEE
#define SA MF_OVERFLOW_SATURATE
#define F32(p, fmt, bits, o, want, why) {p, fmt, 0, bits, 0, RN, o, want, why}
#define F64(p, fmt, bits, o, want, why) {p, fmt, 1, 0, bits, RN, o, want, why}

static const enc_vec enc[] = {
    /* ml_dtypes (numpy's float16 for f16) */
    F32(MF_PROFILE_ML_DTYPES, MF_BF16, 0xFFC12345u, IE, 0xFFC0, "NaN: quiet, sign kept, payload dropped"),
    F32(MF_PROFILE_ML_DTYPES, MF_BF16, 0x7F812345u, IE, 0x7FC0, "signalling NaN quieted"),
    F32(MF_PROFILE_ML_DTYPES, MF_FP16, 0x7F802BFFu, IE, 0x7C01, "numpy: top ten payload bits, not quieted"),
    F32(MF_PROFILE_ML_DTYPES, MF_FP16, 0xFF8078CBu, IE, 0xFC03, "numpy: the sign kept"),
    F32(MF_PROFILE_ML_DTYPES, MF_FP8_E4M3, 0xC3E88000u, SA, 0xFF, "-465 overflows to NaN with its sign (policy ignored)"),
    F32(MF_PROFILE_ML_DTYPES, MF_FP8_E4M3, 0xFF800000u, IE, 0xFF, "-inf: NaN with the sign"),
    F32(MF_PROFILE_ML_DTYPES, MF_FP8_E4M3, 0xFFC00000u, IE, 0xFF, "-NaN keeps its sign"),
    F32(MF_PROFILE_ML_DTYPES, MF_FP8_E5M2, 0x7FC00000u, IE, 0x7E, "NaN: the quiet NaN 0x7E"),
    F32(MF_PROFILE_ML_DTYPES, MF_FP8_E5M2, 0xFFC00000u, IE, 0xFE, "-NaN: 0xFE"),
    F32(MF_PROFILE_ML_DTYPES, MF_FP8_E4M3IEEE, 0xFFC00000u, IE, 0xFC, "IEEE-style e4m3: quiet NaN with sign"),
    F32(MF_PROFILE_ML_DTYPES, MF_FP8_E3M4, 0x7FC00000u, IE, 0x78, "IEEE-style e3m4: quiet NaN"),
    F32(MF_PROFILE_ML_DTYPES, MF_FP8_E4M3FNUZ, 0x80000000u, IE, 0x00, "fnuz: -0 is +0"),
    F32(MF_PROFILE_ML_DTYPES, MF_FP8_E4M3FNUZ, 0x7F800000u, IE, 0x80, "fnuz: inf is NaN"),
    F32(MF_PROFILE_ML_DTYPES, MF_FP8_E4M3FNUZ, 0xBF800000u, IE, 0xC0, "fnuz -1: bias 8"),
    F32(MF_PROFILE_ML_DTYPES, MF_FP8_E4M3B11FNUZ, 0x3FC00000u, IE, 0x5C, "1.5 with bias 11"),
    F32(MF_PROFILE_ML_DTYPES, MF_FP6_E2M3, 0x7FC00000u, IE, 0x20, "FP6: +NaN becomes -0"),
    F32(MF_PROFILE_ML_DTYPES, MF_FP6_E2M3, 0xFFC00000u, IE, 0x00, "FP6: -NaN becomes +0"),
    F32(MF_PROFILE_ML_DTYPES, MF_FP6_E3M2, 0xFF800000u, IE, 0x3F, "FP6: -inf saturates"),
    F32(MF_PROFILE_ML_DTYPES, MF_FP4_E2M1, 0x7FC00000u, IE, 0x8, "FP4: +NaN becomes -0"),
    F32(MF_PROFILE_ML_DTYPES, MF_E8M0, 0x00000000u, IE, 0xFF, "e8m0: 0 is NaN"),
    F32(MF_PROFILE_ML_DTYPES, MF_E8M0, 0xBF800000u, IE, 0xFF, "e8m0: -1 is NaN"),
    F32(MF_PROFILE_ML_DTYPES, MF_E8M0, 0x00600000u, IE, 0x01, "1.5 * 2^-127: the tie goes up"),
    F32(MF_PROFILE_ML_DTYPES, MF_E8M0, 0x005C0000u, IE, 0x00, "1.4375 * 2^-127: down"),
    F64(MF_PROFILE_ML_DTYPES, MF_BF16, 0x3FF0100000100000u, IE, 0x3F81, "f64 rounded once: above the tie"),
    F64(MF_PROFILE_ML_DTYPES, MF_FP16, 0xFFF4000000000001u, IE, 0xFD00, "numpy from f64: payload, not quieted"),
    F64(MF_PROFILE_ML_DTYPES, MF_FP32, 0xFFF4000000000001u, IE, 0xFFE00000u, "cvtsd2ss: quieted, payload kept"),
    /* PyTorch */
    F32(MF_PROFILE_TORCH, MF_BF16, 0x7FC00000u, IE, 0xFFFF, "its vector kernel writes all ones"),
    F32(MF_PROFILE_TORCH, MF_FP16, 0x7F812345u, IE, 0x7E09, "F16C: quieted, payload kept"),
    F32(MF_PROFILE_TORCH, MF_FP16, 0xFFC12345u, IE, 0xFE09, "F16C: sign kept"),
    F32(MF_PROFILE_TORCH, MF_FP8_E4M3, 0x7F800000u, IE, 0x7E, "e4m3 saturates, inf included"),
    F32(MF_PROFILE_TORCH, MF_FP8_E4M3, 0xC3E88000u, IE, 0xFE, "-465 saturates to -448"),
    F32(MF_PROFILE_TORCH, MF_FP8_E4M3, 0xFFC00000u, IE, 0xFF, "-NaN keeps its sign"),
    F32(MF_PROFILE_TORCH, MF_FP8_E5M2, 0x7149F2CAu, SA, 0x7C, "1e30: e5m2 overflows to inf (policy ignored)"),
    F32(MF_PROFILE_TORCH, MF_FP8_E5M2, 0xFFC00000u, IE, 0xFF, "-NaN: 0xFF"),
    F32(MF_PROFILE_TORCH, MF_E8M0, 0x00440000u, IE, 0x01, "1.0625 * 2^-127: c10's guard-bit rule rounds up"),
    F32(MF_PROFILE_TORCH, MF_E8M0, 0x00400000u, IE, 0x00, "2^-127 exactly"),
    F32(MF_PROFILE_TORCH, MF_E8M0, 0xC0800000u, IE, 0x81, "-4: the magnitude"),
    F32(MF_PROFILE_TORCH, MF_E8M0, 0x80000000u, IE, 0x00, "-0: 2^-127"),
    F64(MF_PROFILE_TORCH, MF_BF16, 0x3FF0100000100000u, IE, 0x3F80, "f64 through f32: the tie goes to even"),
    F64(MF_PROFILE_TORCH, MF_FP16, 0xFFF4000000000001u, IE, 0xFF00, "through f32 0xFFE00000, then F16C"),
    F64(MF_PROFILE_TORCH, MF_FP32, 0xFFF4000000000001u, IE, 0xFFE00000u, "cvtsd2ss"),
    /* ONNX reference Cast */
    F32(MF_PROFILE_ONNX, MF_FP8_E4M3, 0x7F800000u, SA, 0x7E, "saturate=1: clipped"),
    F32(MF_PROFILE_ONNX, MF_FP8_E4M3, 0xFF800000u, IE, 0xFF, "saturate=0: ml_dtypes, NaN with sign"),
    F32(MF_PROFILE_ONNX, MF_FP8_E4M3, 0xFFC00000u, SA, 0xFF, "NaN passes the clip"),
    F32(MF_PROFILE_ONNX, MF_FP8_E5M2FNUZ, 0xFF800000u, SA, 0xFF, "saturate=1: -inf to -max"),
    F32(MF_PROFILE_ONNX, MF_FP8_E5M2FNUZ, 0xFF800000u, IE, 0x80, "saturate=0: NaN"),
    F32(MF_PROFILE_ONNX, MF_E8M0, 0x7F800000u, SA, 0xFF, "e8m0: inf is NaN even when saturating"),
    F32(MF_PROFILE_ONNX, MF_E8M0, 0x00400001u, IE, 0x01, "nearest: a subnormal above 2^-127 goes up"),
    {MF_PROFILE_ONNX, MF_E8M0, 0, 0xC0400000u, 0, MF_ROUND_UP, IE, 0x81, "up: -3 to 4 (sign ignored)"},
    {MF_PROFILE_ONNX, MF_E8M0, 0, 0x00000001u, 0, MF_ROUND_UP, IE, 0x01, "up: the smallest subnormal to 2^-126"},
    {MF_PROFILE_ONNX, MF_E8M0, 0, 0x7F7FFFFFu, 0, MF_ROUND_UP, SA, 0xFE, "up, saturate: stays at 2^127"},
    {MF_PROFILE_ONNX, MF_E8M0, 0, 0x40400000u, 0, MF_ROUND_TOWARD_ZERO, IE, 0x80, "down: 3 to 2"},
    /* NVIDIA's CUDA 13 headers (host code) */
    F32(MF_PROFILE_CUDA, MF_FP8_E4M3, 0xFF800000u, IE, 0xFF, "nosat: -inf to NaN with the sign"),
    F32(MF_PROFILE_CUDA, MF_FP8_E4M3, 0xFFC00000u, IE, 0x7F, "float path: NaN 0x7F whatever the sign"),
    F32(MF_PROFILE_CUDA, MF_FP8_E4M3, 0xFF800000u, SA, 0xFE, "satfinite: -max"),
    F64(MF_PROFILE_CUDA, MF_FP8_E4M3, 0xFFF8000000000000u, IE, 0xFF, "double path: the sign kept"),
    F64(MF_PROFILE_CUDA, MF_FP8_E5M2, 0xFFF8000000000000u, IE, 0xFE, "double path: 0x7E | top payload bits"),
    F64(MF_PROFILE_CUDA, MF_FP8_E5M2, 0x7FF4000000000000u, IE, 0x7F, "double path: payload bit 0x01"),
    F32(MF_PROFILE_CUDA, MF_FP16, 0xFFC12345u, IE, 0x7FFF, "f16: canonical NaN"),
    F32(MF_PROFILE_CUDA, MF_FP4_E2M1, 0xFFC00000u, IE, 0x7, "FP4: NaN to +max"),
};

typedef struct {
    mf_profile p;
    mf_format fmt;
    uint32_t code, want32;
    const char *why;
} dec_vec;

static const dec_vec dec[] = {
    {MF_PROFILE_ML_DTYPES, MF_FP8_E4M3, 0xFF, 0xFFC00000u, "FP8 NaN: payload dropped, sign kept"},
    {MF_PROFILE_ML_DTYPES, MF_FP8_E5M2, 0x7D, 0x7FC00000u, "FP8 NaN: payload dropped"},
    {MF_PROFILE_ML_DTYPES, MF_FP8_E4M3FNUZ, 0x80, 0xFFC00000u, "fnuz NaN: negative quiet NaN"},
    {MF_PROFILE_ML_DTYPES, MF_E8M0, 0xFF, 0x7FC00000u, "e8m0 NaN"},
    {MF_PROFILE_ML_DTYPES, MF_FP16, 0x7C01, 0x7F802000u, "numpy: not quieted"},
    {MF_PROFILE_TORCH, MF_FP8_E4M3FNUZ, 0x80, 0x7F800001u, "c10's fnuz NaN"},
    {MF_PROFILE_TORCH, MF_E8M0, 0xFF, 0x7F800001u, "c10's e8m0 NaN"},
    {MF_PROFILE_TORCH, MF_FP8_E4M3, 0xFF, 0xFFF00000u, "payload kept, quieted"},
    {MF_PROFILE_TORCH, MF_FP16, 0x7C01, 0x7FC02000u, "vcvtph2ps in its vector kernel"},
    {MF_PROFILE_CUDA, MF_FP16, 0x7C01, 0x7FFFFFFFu, "__half2float: canonical NaN"},
    {MF_PROFILE_CUDA, MF_FP8_E5M2, 0xFF, 0x7FFFFFFFu, "through __half: canonical NaN"},
    {MF_PROFILE_CUDA, MF_E8M0, 0xFF, 0x7FFF0000u, "through bf16 0x7FFF"},
    {MF_PROFILE_ONNX, MF_FP8_E5M2FNUZ, 0x80, 0xFFC00000u, "ml_dtypes' decode"},
};

/* The byte image of one element of fmt holding code (e2m1 in the low nibble). */
static void put(mf_format fmt, void *p, uint32_t code)
{
    if (fmt == MF_FP32)
        memcpy(p, &code, 4);
    else if (fmt == MF_FP16 || fmt == MF_BF16) {
        uint16_t v = (uint16_t)code;
        memcpy(p, &v, 2);
    } else
        *(uint8_t *)p = (uint8_t)code;
}

static uint32_t get(mf_format fmt, const void *p)
{
    if (fmt == MF_FP32) {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    if (fmt == MF_FP16 || fmt == MF_BF16) {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    return fmt == MF_FP4_E2M1 ? *(const uint8_t *)p & 0xFu : *(const uint8_t *)p;
}

START_TEST(test_encode_vectors)
{
    size_t i;
    for (i = 0; i < sizeof enc / sizeof enc[0]; i++) {
        const enc_vec *v = &enc[i];
        uint32_t got;
        unsigned char out[8] = {0};
        mf_opts o;
        memset(&o, 0, sizeof o);
        o.round = v->r;
        o.overflow = v->o;
        o.profile = v->p;
        if (v->src64) {
            double x;
            memcpy(&x, &v->x64, 8);
            got = mf_from_f64_profile(v->p, v->fmt, x, v->r, v->o);
            ck_assert_int_eq(mf_convert(v->fmt, out, MF_FP64, &x, 1, &o), MF_OK);
        } else {
            float x;
            memcpy(&x, &v->x32, 4);
            got = mf_from_f32_profile(v->p, v->fmt, x, v->r, v->o);
            ck_assert_int_eq(mf_convert(v->fmt, out, MF_FP32, &x, 1, &o), MF_OK);
        }
        MF_EXPECT(got == v->want, "%s %s input 0x%llx: scalar 0x%x, the system 0x%x (%s)", mf_profile_name(v->p),
                  mf_format_name(v->fmt), v->src64 ? (unsigned long long)v->x64 : (unsigned long long)v->x32, got,
                  v->want, v->why);
        MF_EXPECT(get(v->fmt, out) == v->want, "%s %s: mf_convert 0x%x, the system 0x%x (%s)", mf_profile_name(v->p),
                  mf_format_name(v->fmt), get(v->fmt, out), v->want, v->why);
    }
}
END_TEST

START_TEST(test_decode_vectors)
{
    size_t i;
    for (i = 0; i < sizeof dec / sizeof dec[0]; i++) {
        const dec_vec *v = &dec[i];
        float y = mf_to_f32_profile(v->p, v->fmt, v->code), yb = 0.0f;
        unsigned char in[4] = {0};
        uint32_t bits;
        mf_opts o;
        memset(&o, 0, sizeof o);
        o.profile = v->p;
        memcpy(&bits, &y, 4);
        MF_EXPECT(bits == v->want32, "%s %s 0x%x: 0x%08x, the system 0x%08x (%s)", mf_profile_name(v->p),
                  mf_format_name(v->fmt), v->code, bits, v->want32, v->why);
        put(v->fmt, in, v->code);
        ck_assert_int_eq(mf_convert(MF_FP32, &yb, v->fmt, in, 1, &o), MF_OK);
        memcpy(&bits, &yb, 4);
        MF_EXPECT(bits == v->want32, "%s %s 0x%x: mf_convert 0x%08x, the system 0x%08x", mf_profile_name(v->p),
                  mf_format_name(v->fmt), v->code, bits, v->want32);
    }
}
END_TEST

/* The default profile is the default semantics, scalar and bulk, on a spread of inputs. */
START_TEST(test_default_is_default)
{
    mf_format f;
    for (f = MF_FP16; f < MF_FORMAT_COUNT; f = (mf_format)(f + 1)) {
        uint32_t u;
        if (f == MF_FP64)
            continue;
        for (u = 0; u < 0xFFFFFFFFu - 65521u; u += 65521u) {
            float x;
            memcpy(&x, &u, 4);
            MF_EXPECT(mf_from_f32_profile(MF_PROFILE_DEFAULT, f, x, RN, SA) == mf_from_f32(f, x, RN, SA, 0),
                      "%s 0x%08x", mf_format_name(f), u);
        }
    }
}
END_TEST

/* What a system lacks is refused with MF_E_PROFILE, before anything is written. */
START_TEST(test_refusals)
{
    float x[3] = {1.0f, -2.0f, 3.0f};
    unsigned char out[4] = {0xAA, 0xAA, 0xAA, 0xAA};
    mf_stats st;
    mf_plan plan;
    mf_opts o;
    memset(&o, 0, sizeof o);
    memset(&st, 0x55, sizeof st);
    o.stats = &st;
    o.profile = MF_PROFILE_TORCH; /* PyTorch has no cast kernel into float4_e2m1fn_x2, and no FP6 */
    ck_assert_int_eq(mf_convert(MF_FP4_E2M1, out, MF_FP32, x, 3, &o), MF_E_PROFILE);
    ck_assert_int_eq(mf_convert(MF_FP6_E2M3, out, MF_FP32, x, 3, &o), MF_E_PROFILE);
    o.profile = MF_PROFILE_CUDA; /* no fnuz formats in CUDA */
    ck_assert_int_eq(mf_convert(MF_FP8_E4M3FNUZ, out, MF_FP32, x, 3, &o), MF_E_PROFILE);
    ck_assert_int_eq(mf_convert(MF_FP32, out, MF_FP8_E4M3FNUZ, x, 1, &o), MF_E_PROFILE);
    o.profile = MF_PROFILE_ML_DTYPES; /* round to nearest even only */
    o.round = MF_ROUND_TOWARD_ZERO;
    ck_assert_int_eq(mf_convert(MF_BF16, out, MF_FP32, x, 1, &o), MF_E_PROFILE);
    o.profile = (mf_profile)MF_PROFILE_COUNT;
    o.round = RN;
    ck_assert_int_eq(mf_convert(MF_BF16, out, MF_FP32, x, 1, &o), MF_E_PROFILE);
    ck_assert_int_eq(mf_convert_plan(MF_BF16, NULL, MF_FP32, NULL, 1, &o, &plan), MF_E_PROFILE);
    ck_assert(out[0] == 0xAA && out[1] == 0xAA && out[2] == 0xAA && out[3] == 0xAA);
    ck_assert_uint_eq(st.overflow, 0x5555555555555555u);
    /* decoding needs no mode: an rz decode under ml_dtypes is fine */
    o.profile = MF_PROFILE_ML_DTYPES;
    o.round = MF_ROUND_TOWARD_ZERO;
    out[0] = 0x38;
    ck_assert_int_eq(mf_convert(MF_FP32, x, MF_FP8_E4M3, out, 1, &o), MF_OK);
    ck_assert(x[0] == 1.0f);
    /* the scalar functions: UINT32_MAX and NaN */
    ck_assert_uint_eq(mf_from_f32_profile(MF_PROFILE_TORCH, MF_FP4_E2M1, 1.0f, RN, IE), 0xFFFFFFFFu);
    ck_assert_uint_eq(mf_from_f32_profile(MF_PROFILE_CUDA, MF_FP8_E4M3, 1.0f, MF_ROUND_TOWARD_ZERO, IE), 0xFFFFFFFFu);
    ck_assert_uint_eq(mf_from_f64_profile((mf_profile)-1, MF_BF16, 1.0, RN, IE), 0xFFFFFFFFu);
    ck_assert(mf_to_f32_profile(MF_PROFILE_TORCH, MF_FP6_E3M2, 1) != mf_to_f32_profile(MF_PROFILE_TORCH, MF_FP6_E3M2, 1));
    ck_assert_int_eq(mf_profile_supports(MF_PROFILE_CUDA, MF_E8M0, MF_ROUND_UP), 1);
    ck_assert_int_eq(mf_profile_supports(MF_PROFILE_CUDA, MF_E8M0, RN), 0);
    ck_assert_int_eq(mf_profile_supports(MF_PROFILE_ONNX, MF_FP4_E2M1, RN), 1);
    ck_assert_int_eq(mf_profile_supports(MF_PROFILE_ONNX, MF_FP6_E2M3, RN), 0);
    /* block scaling has one semantics */
    o.profile = MF_PROFILE_TORCH;
    o.round = RN;
    {
        float blk[32] = {0};
        unsigned char el[32], sc[1];
        ck_assert_int_eq(mf_mx_quantize(MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, blk, 1, 32, el, sc, &o),
                         MF_E_PROFILE);
    }
}
END_TEST

/* The bulk path: every element as the scalar function, with odd counts and misaligned arrays, and its plan. */
START_TEST(test_bulk_matches_scalar)
{
    static float src[1001];
    static unsigned char dst[1001 * 2 + 8];
    const mf_profile profs[4] = {MF_PROFILE_CUDA, MF_PROFILE_ML_DTYPES, MF_PROFILE_TORCH, MF_PROFILE_ONNX};
    mf_plan plan;
    mf_opts o;
    size_t i;
    int k;
    uint32_t u = 0x12345678u;
    for (i = 0; i < 1001; i++) {
        u = u * 1664525u + 1013904223u;
        memcpy(&src[i], &u, 4);
    }
    for (k = 0; k < 4; k++) {
        mf_format f;
        for (f = MF_FP16; f < MF_FORMAT_COUNT; f = (mf_format)(f + 1)) {
            if (f == MF_FP64 || !mf_profile_supports(profs[k], f, RN))
                continue;
            memset(&o, 0, sizeof o);
            o.profile = profs[k];
            ck_assert_int_eq(mf_convert(f, dst + 1, MF_FP32, src, 1001, &o), MF_OK);
            for (i = 0; i < 1001; i++) {
                const size_t b = f == MF_FP16 || f == MF_BF16 ? 2 * i : f == MF_FP4_E2M1 ? i / 2 : i;
                uint32_t got;
                if (f == MF_FP16 || f == MF_BF16) {
                    uint16_t v;
                    memcpy(&v, dst + 1 + b, 2);
                    got = v;
                } else if (f == MF_FP4_E2M1) {
                    got = (dst[1 + b] >> (4 * (i & 1))) & 0xFu;
                } else {
                    got = dst[1 + b];
                }
                MF_EXPECT(got == mf_from_f32_profile(profs[k], f, src[i], RN, IE), "%s %s element %zu",
                          mf_profile_name(profs[k]), mf_format_name(f), i);
            }
            ck_assert_int_eq(mf_convert_plan(f, dst, MF_FP32, src, 1001, &o, &plan), MF_OK);
            ck_assert_str_eq(plan.path, "profile");
            ck_assert_uint_eq(plan.body, 1001);
        }
    }
}
END_TEST

/* ---- the bulk path on every pair of each system's formats ------------------------------------------- */

static const mf_format all_fmts[] = {MF_FP32,     MF_FP16,         MF_BF16,         MF_FP8_E4M3,        MF_FP8_E5M2,
                                     MF_FP6_E2M3, MF_FP6_E3M2,     MF_FP4_E2M1,     MF_E8M0,            MF_FP64,
                                     MF_FP8_E4M3FNUZ, MF_FP8_E5M2FNUZ, MF_FP8_E4M3B11FNUZ, MF_FP8_E4M3IEEE, MF_FP8_E3M4};
#define NALL (sizeof all_fmts / sizeof all_fmts[0])
#define NIN 4099 /* odd: the last e2m1 byte is half used */

/* The overflow policy the system applies when rounding into f (docs/compat.md's summary table): the caller's
 * for CUDA's FP8 and e8m0 and ONNX's FP8 formats, PyTorch's e4m3 saturates, else IEEE. */
static mf_overflow sys_policy(mf_profile p, mf_format f, mf_overflow o)
{
    const int fp8 = f == MF_FP8_E4M3 || f == MF_FP8_E5M2 || f == MF_FP8_E4M3FNUZ || f == MF_FP8_E5M2FNUZ;
    if ((p == MF_PROFILE_CUDA && (f == MF_FP8_E4M3 || f == MF_FP8_E5M2 || f == MF_E8M0)) || (p == MF_PROFILE_ONNX && fp8))
        return o;
    return p == MF_PROFILE_TORCH && f == MF_FP8_E4M3 ? MF_OVERFLOW_SATURATE : MF_OVERFLOW_IEEE;
}

/* Has system p format f? (In some mode: CUDA's e8m0 has no rn.) */
static int sys_has(mf_profile p, mf_format f)
{
    int r;
    for (r = 0; r < MF_ROUND_COUNT; r++)
        if (mf_profile_supports(p, f, (mf_round)r))
            return 1;
    return 0;
}

static size_t elem_bytes(mf_format f) { return f == MF_FP64 ? 8 : f == MF_FP32 ? 4 : f == MF_FP16 || f == MF_BF16 ? 2 : 1; }

static uint64_t load_elem(mf_format f, const unsigned char *p, size_t i)
{
    uint64_t v = 0;
    if (f == MF_FP4_E2M1)
        return (p[i / 2] >> (4 * (i & 1))) & 0xFu;
    memcpy(&v, p + i * elem_bytes(f), elem_bytes(f)); /* little-endian test hosts */
    return f == MF_FP6_E2M3 || f == MF_FP6_E3M2 ? v & 0x3Fu : v;
}

static void store_elem(mf_format f, unsigned char *p, size_t i, uint64_t v)
{
    if (f == MF_FP4_E2M1)
        p[i / 2] = (unsigned char)((p[i / 2] & ~(0xFu << (4 * (i & 1)))) | (v & 0xFu) << (4 * (i & 1)));
    else
        memcpy(p + i * elem_bytes(f), &v, elem_bytes(f));
}

/* The inputs of source format s: the special values (NaNs with payloads of both signs, both zeros, inf, each
 * format's max and overflow threshold with neighbours, f32 subnormals, e8m0's 2^-127 neighbourhood), every
 * code of a narrow format (f16 and bf16: every NaN and inf code and a stride of the rest), then pseudo-random
 * bits. */
static void make_inputs(mf_format s, unsigned char *in)
{
    static const uint32_t sp32[] = {0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7F800001u, 0xFF800001u,
                                    0x7FC00000u, 0xFFC00000u, 0x7FFFFFFFu, 0xFFFFFFFFu, 0x7FA00000u, 0x7F802000u,
                                    0xFF812345u, 0x7FC12345u, 0x7F801FFFu, 0x00000001u, 0x80000001u, 0x00400000u,
                                    0x00400001u, 0x005FFFFFu, 0x00600000u, 0x007FFFFFu, 0x80440000u, 0x00800000u,
                                    0x7F7FFFFFu, 0xFF7FFFFFu, 0x3F800000u, 0xBFC00000u, 0x43E00000u, 0x43E80000u,
                                    0xC3E80001u, 0x47600000u, 0x477FF000u, 0x47800000u, 0x7F000000u, 0x7EFFFFFFu};
    const size_t w = elem_bytes(s);
    uint64_t u = 0x9E3779B97F4A7C15u;
    size_t i = 0, k;
    if (s == MF_FP32 || s == MF_FP64) {
        mf_format f;
        for (k = 0; k < sizeof sp32 / sizeof sp32[0]; k++, i++) {
            const double x = (double)mf_test_bits_f32(sp32[k]);
            if (s == MF_FP32)
                memcpy(in + 4 * i, &sp32[k], 4);
            else if ((sp32[k] & 0x7FFFFFFFu) > 0x7F800000u) { /* an f64 NaN with the payload below f32's too */
                const uint64_t b = (uint64_t)(sp32[k] >> 31) << 63 | 0x7FF0000000000000u |
                                   (uint64_t)(sp32[k] & 0x7FFFFFu) << 29 | (k & 1u);
                memcpy(in + 8 * i, &b, 8);
            } else
                memcpy(in + 8 * i, &x, 8);
        }
        for (f = MF_FP16; f < MF_FORMAT_COUNT; f = (mf_format)(f + 1)) { /* max, its neighbours, the threshold */
            mf_format_desc fd;
            double m;
            if (f == MF_FP64)
                continue;
            mf_format_describe(f, &fd);
            m = fd.max;
            {
                const double v[6] = {m, -m, m * (1 + fd.epsilon / 2), -m * (1 + fd.epsilon / 2),
                                     m * (1 + fd.epsilon / 2) * (1 + 0x1p-40), fd.min_subnormal / 2};
                for (k = 0; k < 6; k++, i++) {
                    if (s == MF_FP32) {
                        const float x = (float)v[k];
                        memcpy(in + 4 * i, &x, 4);
                    } else
                        memcpy(in + 8 * i, &v[k], 8);
                }
            }
        }
    } else {
        const size_t ncodes = (size_t)1 << (s == MF_FP4_E2M1 ? 4 : s == MF_FP6_E2M3 || s == MF_FP6_E3M2 ? 6 : 8 * w);
        for (k = 0; k < ncodes && i < NIN - 64; k++) {
            const uint64_t mag = k & (ncodes / 2 - 1);
            if (w == 2 && k % 37 != 0 && mag < (s == MF_FP16 ? 0x7C00u : 0x7F80u))
                continue; /* 16-bit: every NaN and inf code, a stride of the others */
            store_elem(s, in, i++, k);
        }
    }
    for (; i < NIN; i++) {
        u = u * 6364136223846793005u + 1442695040888963407u;
        if (s == MF_FP64) { /* values near f32's and bf16's ties as often as random bits */
            const double x = (double)mf_test_bits_f32((uint32_t)(u >> 32)) * (1 + ((u & 1) ? 0x1p-40 : -0x1p-40));
            memcpy(in + 8 * i, (u & 2) ? (const void *)&x : (const void *)&u, 8);
        } else if (s == MF_FP4_E2M1)
            store_elem(s, in, i, u >> 60);
        else
            store_elem(s, in, i, u >> 32);
    }
}

/* What system p writes for element i: the scalar profile functions (narrow sources decode as the system decodes,
 * then round from f32), and the one rounding whose events the stats count, as a default conversion of one
 * element: into d from *rs (format *rsf), under the system's policy; nothing where the pair decodes. */
static uint64_t scalar_result(mf_profile p, mf_format d, mf_format s, uint64_t c, mf_round r, mf_overflow o,
                              unsigned char rs[8], mf_format *rsf)
{
    const int decode = d == MF_FP64 || (d == MF_FP32 && s != MF_FP64);
    float x32;
    double x64;
    *rsf = s;
    memcpy(rs, &c, 8);
    if (decode) {
        if (d == MF_FP64)
            return mf_test_f64_bits(mf_to_f64_profile(p, s, (uint32_t)c));
        return mf_test_f32_bits(mf_to_f32_profile(p, s, (uint32_t)c));
    }
    if (s == MF_FP64) {
        memcpy(&x64, &c, 8);
        if (d != MF_FP32 && (p == MF_PROFILE_TORCH || (p == MF_PROFILE_ONNX && d == MF_E8M0))) {
            const uint32_t b = mf_from_f64_profile(p, MF_FP32, x64, MF_ROUND_NEAREST_EVEN, o); /* its f32 first */
            *rsf = MF_FP32;
            memcpy(rs, &b, 4);
        }
        return mf_from_f64_profile(p, d, x64, r, o);
    }
    x32 = s == MF_FP32 ? mf_test_bits_f32((uint32_t)c) : mf_to_f32_profile(p, s, (uint32_t)c);
    if (s != MF_FP32) {
        *rsf = MF_FP32;
        memcpy(rs, &x32, 4);
    }
    return mf_from_f32_profile(p, d, x32, r, o);
}

/* Every pair of formats the system has, in every mode it has and under both policies, from and into arrays
 * one byte off alignment, NIN elements (odd) and a short call: each element against the scalar functions and
 * the counts against the default conversion of each element's one rounding under the system's policy. */
START_TEST(test_bulk_every_pair)
{
    static const mf_profile profs[4] = {MF_PROFILE_CUDA, MF_PROFILE_ML_DTYPES, MF_PROFILE_TORCH, MF_PROFILE_ONNX};
    static unsigned char in[NIN * 8 + 2], out[NIN * 8 + 2], out_nc[NIN * 8 + 2];
    const mf_profile p = profs[_i];
    size_t si, di, i;
    uint64_t calls = 0;
    for (si = 0; si < NALL; si++) {
        const mf_format s = all_fmts[si];
        if (!sys_has(p, s))
            continue;
        memset(in, 0, sizeof in);
        make_inputs(s, in + 1);
        for (di = 0; di < NALL; di++) {
            const mf_format d = all_fmts[di];
            const int decode = d == MF_FP64 || (d == MF_FP32 && s != MF_FP64);
            int r, ov;
            if (d == s || !sys_has(p, d))
                continue;
            for (r = 0; r < MF_ROUND_COUNT; r++) {
                if (decode ? r != RN : !mf_profile_supports(p, d, (mf_round)r))
                    continue;
                for (ov = 0; ov < 2; ov++) {
                    const size_t lens[2] = {NIN, 37};
                    int li;
                    for (li = 0; li < 2; li++) {
                        const size_t n = lens[li];
                        mf_stats st, want;
                        mf_opts o;
                        memset(&o, 0, sizeof o);
                        memset(&want, 0, sizeof want);
                        memset(out, 0xA5, sizeof out);
                        o.round = (mf_round)r;
                        o.overflow = (mf_overflow)ov;
                        o.profile = p;
                        o.stats = NULL; /* without counts first: another path (the marking kernels) */
                        memset(out_nc, 0xA5, sizeof out_nc);
                        ck_assert_int_eq(mf_convert(d, out_nc + 1, s, in + 1, n, &o), MF_OK);
                        o.stats = &st;
                        ck_assert_int_eq(mf_convert(d, out + 1, s, in + 1, n, &o), MF_OK);
                        MF_EXPECT(!memcmp(out, out_nc, sizeof out), "%s %s -> %s %s %s, %zu elements: the bytes "
                                  "with counts and without differ", mf_profile_name(p), mf_format_name(s),
                                  mf_format_name(d), mf_round_name((mf_round)r), mf_overflow_name((mf_overflow)ov), n);
                        calls++;
                        for (i = 0; i < n; i++) {
                            unsigned char rs[8], one[8];
                            mf_format rsf;
                            mf_stats e;
                            mf_opts od;
                            const uint64_t c = load_elem(s, in + 1, i);
                            const uint64_t w = scalar_result(p, d, s, c, (mf_round)r, (mf_overflow)ov, rs, &rsf);
                            const uint64_t got = load_elem(d, out + 1, i);
                            MF_EXPECT(got == (d == MF_FP64 || d == MF_FP32 ? w : w & 0xFFFFu),
                                      "%s %s -> %s %s %s element %zu of %zu (0x%llx): bulk 0x%llx, scalar 0x%llx",
                                      mf_profile_name(p), mf_format_name(s), mf_format_name(d),
                                      mf_round_name((mf_round)r), mf_overflow_name((mf_overflow)ov), i, n,
                                      (unsigned long long)c, (unsigned long long)got, (unsigned long long)w);
                            memset(&od, 0, sizeof od);
                            od.round = decode ? RN : (mf_round)r;
                            od.overflow = decode ? IE : sys_policy(p, d, (mf_overflow)ov);
                            od.stats = &e;
                            ck_assert_int_eq(mf_convert(d, one, rsf, rs, 1, &od), MF_OK);
                            want.overflow += e.overflow;
                            want.underflow += e.underflow;
                            want.subnormal += e.subnormal;
                            want.nan += e.nan;
                            want.inexact += e.inexact;
                        }
                        if (d == MF_FP4_E2M1 && (n & 1)) /* the high nibble of the last byte left as it was */
                            MF_EXPECT((out[1 + n / 2] >> 4) == 0xA, "e2m1: the last high nibble written");
                        MF_EXPECT(out[0] == 0xA5 && out[1 + mf_storage_bytes(d, n)] == 0xA5,
                                  "%s %s -> %s: written outside the array", mf_profile_name(p), mf_format_name(s),
                                  mf_format_name(d));
                        MF_EXPECT(!memcmp(&st, &want, sizeof st),
                                  "%s %s -> %s %s %s n %zu: stats (%llu %llu %llu %llu %llu), one rounding each "
                                  "(%llu %llu %llu %llu %llu)",
                                  mf_profile_name(p), mf_format_name(s), mf_format_name(d),
                                  mf_round_name((mf_round)r), mf_overflow_name((mf_overflow)ov), n,
                                  (unsigned long long)st.overflow, (unsigned long long)st.underflow,
                                  (unsigned long long)st.subnormal, (unsigned long long)st.nan,
                                  (unsigned long long)st.inexact, (unsigned long long)want.overflow,
                                  (unsigned long long)want.underflow, (unsigned long long)want.subnormal,
                                  (unsigned long long)want.nan, (unsigned long long)want.inexact);
                    }
                }
            }
        }
    }
    ck_assert_uint_gt(calls, 100);
}
END_TEST

/* Every element a NaN: each lane rewritten, in steps longer than one (the path converts 8192 at a time). */
START_TEST(test_bulk_all_nan)
{
    enum { N = 20001 };
    static float x[N];
    static unsigned char out[N * 2];
    const mf_profile profs[4] = {MF_PROFILE_CUDA, MF_PROFILE_ML_DTYPES, MF_PROFILE_TORCH, MF_PROFILE_ONNX};
    size_t i;
    int k;
    for (i = 0; i < N; i++) {
        const uint32_t b = (uint32_t)(i & 1) << 31 | 0x7F800000u | (uint32_t)((i * 2654435761u) & 0x7FFFFFu) | 1u;
        memcpy(&x[i], &b, 4);
    }
    for (k = 0; k < 4; k++) {
        mf_format f;
        for (f = MF_FP16; f < MF_FORMAT_COUNT; f = (mf_format)(f + 1)) {
            mf_stats st;
            mf_opts o;
            if (f == MF_FP64 || !mf_profile_supports(profs[k], f, RN))
                continue;
            memset(&o, 0, sizeof o);
            o.profile = profs[k];
            o.stats = &st;
            ck_assert_int_eq(mf_convert(f, out, MF_FP32, x, N, &o), MF_OK);
            for (i = 0; i < N; i++)
                MF_EXPECT(load_elem(f, out, i) == mf_from_f32_profile(profs[k], f, x[i], RN, IE), "%s %s NaN %zu",
                          mf_profile_name(profs[k]), mf_format_name(f), i);
            ck_assert_uint_eq(st.nan, N);
            o.stats = NULL; /* another path: the marking kernels */
            memset(out, 0, sizeof out);
            ck_assert_int_eq(mf_convert(f, out, MF_FP32, x, N, &o), MF_OK);
            for (i = 0; i < N; i++)
                MF_EXPECT(load_elem(f, out, i) == mf_from_f32_profile(profs[k], f, x[i], RN, IE),
                          "%s %s NaN %zu, no counts", mf_profile_name(profs[k]), mf_format_name(f), i);
        }
    }
}
END_TEST

/* Long calls: ordinary values with specials (NaNs with payloads and both signs, infinities, values beyond
 * every format's range) only at chosen places, at the edges of the path's steps (8192 elements), blocks
 * (128) and threads' pieces, and now and then in the middle third, so that most steps have no lane to
 * rewrite and some one at their first or last element. One thread and three (a call this long is cut into
 * pieces): every element against the scalar functions, the two calls' bytes and counts alike, the NaN count
 * against the inputs'. */
#define NLONG ((size_t)3 * (1u << 19) + 7) /* odd: the last e2m1 byte is half used */

static int is_special_at(size_t i)
{
    static const size_t at[] = {0,      1,      127,    128,    8191,    8192,    8193,     16383,
                                16384,  24577,  32896,  524287, 524288,  524352,  1048575, 1048576, 1048640};
    size_t k;
    if (i >= NLONG - 2)
        return 1;
    for (k = 0; k < sizeof at / sizeof at[0]; k++)
        if (i == at[k])
            return 1;
    return i >= NLONG / 3 && i < 2 * (NLONG / 3) && i % 10007 == 0;
}

/* The k-th special code of format s (of those f32, f64, bf16, f16 and e4m3 have) */
static uint64_t special_code(mf_format s, size_t k)
{
    static const uint32_t f32[6] = {0x7F812345u, 0xFFC00001u, 0x7F800000u, 0xFF800000u, 0x7149F2CAu, 0xF149F2CAu};
    static const uint64_t f64[6] = {0x7FF0000123456789u, 0xFFF8000000000001u, 0x7FF0000000000000u,
                                    0xFFF0000000000000u, 0x7E37E43C8800759Cu, 0xFE37E43C8800759Cu};
    static const uint16_t bf16[5] = {0x7FC1u, 0xFF81u, 0x7F80u, 0xFF80u, 0x7FFFu};
    static const uint16_t f16[5] = {0x7E01u, 0xFC01u, 0x7C00u, 0xFE00u, 0x7FFFu};
    static const uint8_t e4m3[4] = {0x7Fu, 0xFFu, 0x7Eu, 0xFEu};
    switch (s) {
    case MF_FP32: return f32[k % 6];
    case MF_FP64: return f64[k % 6];
    case MF_BF16: return bf16[k % 5];
    case MF_FP16: return f16[k % 5];
    default: return e4m3[k % 4];
    }
}

static int code_is_nan(mf_format s, uint64_t c)
{
    if (s == MF_FP64)
        return (c & 0x7FFFFFFFFFFFFFFFu) > 0x7FF0000000000000u;
    if (s == MF_FP32)
        return (c & 0x7FFFFFFFu) > 0x7F800000u;
    if (s == MF_BF16)
        return (c & 0x7FFFu) > 0x7F80u;
    if (s == MF_FP16)
        return (c & 0x7FFFu) > 0x7C00u;
    return (c & 0x7Fu) == 0x7Fu; /* e4m3 */
}

START_TEST(test_bulk_long)
{
    static const mf_format pairs[][2] = {
        {MF_FP32, MF_BF16},     {MF_FP32, MF_FP16},     {MF_FP32, MF_FP8_E4M3}, {MF_FP32, MF_FP8_E5M2},
        {MF_FP32, MF_FP4_E2M1}, {MF_FP32, MF_E8M0},     {MF_BF16, MF_FP32},     {MF_FP16, MF_FP32},
        {MF_FP8_E4M3, MF_FP32}, {MF_FP8_E4M3, MF_FP64}, {MF_FP64, MF_BF16},     {MF_FP64, MF_FP32},
        {MF_BF16, MF_FP8_E4M3}, {MF_FP16, MF_FP8_E5M2}};
    static const mf_profile profs[4] = {MF_PROFILE_CUDA, MF_PROFILE_ML_DTYPES, MF_PROFILE_TORCH, MF_PROFILE_ONNX};
    const mf_profile p = profs[_i];
    float *x = malloc(NLONG * 4);
    unsigned char *in = malloc(NLONG * 8), *out1 = malloc(NLONG * 8 + 1), *out3 = malloc(NLONG * 8 + 1);
    size_t pi, i, tested = 0;
    unsigned long take = 0;
    ck_assert_ptr_nonnull(x);
    ck_assert_ptr_nonnull(in);
    ck_assert_ptr_nonnull(out1);
    ck_assert_ptr_nonnull(out3);
    for (i = 0; i < NLONG; i++) { /* training-like values, as bench/profiles */
        const uint32_t h = (uint32_t)i * 2654435761u;
        const float v = (float)((h >> 8) % 20001u) / 10000.0f - 1.0f;
        const int e = (int)((h >> 3) % 24u) - 12;
        x[i] = e >= 0 ? v * (float)(1u << e) : v / (float)(1u << -e);
    }
    for (pi = 0; pi < sizeof pairs / sizeof pairs[0]; pi++) {
        const mf_format s = pairs[pi][0], d = pairs[pi][1];
        mf_opts o;
        mf_stats st1, st3;
        mf_plan plan;
        uint64_t nans = 0;
        size_t k = 0;
        if (!mf_profile_supports(p, s, RN) || !mf_profile_supports(p, d, RN) || !mf_test_take(&take))
            continue; /* MF_TEST_SAMPLE=k (the tiers under qemu and ASan): one pair in k */
        memset(&o, 0, sizeof o);
        o.overflow = MF_OVERFLOW_SATURATE; /* the ordinary values: finite codes of s */
        ck_assert_int_eq(mf_convert(s, in, MF_FP32, x, NLONG, &o), MF_OK);
        for (i = 0; i < NLONG; i++) {
            if (is_special_at(i))
                store_elem(s, in, i, special_code(s, k++));
            nans += (uint64_t)code_is_nan(s, load_elem(s, in, i));
        }
        memset(&o, 0, sizeof o);
        o.profile = p;
        o.stats = &st1;
        memset(out1, 0xA5, NLONG * 8 + 1);
        memset(out3, 0xA5, NLONG * 8 + 1);
        ck_assert_int_eq(mf_convert(d, out1, s, in, NLONG, &o), MF_OK);
        o.threads = 3;
        o.stats = &st3;
        ck_assert_int_eq(mf_convert(d, out3, s, in, NLONG, &o), MF_OK);
        ck_assert_int_eq(mf_convert_plan(d, out3, s, in, NLONG, &o, &plan), MF_OK);
        ck_assert_str_eq(plan.path, "profile");
        ck_assert_str_eq(plan.backend, mf_backend());
        ck_assert_int_eq(plan.threads, 3);
        for (i = 0; i < NLONG; i++) {
            unsigned char rs[8];
            mf_format rsf;
            const uint64_t c = load_elem(s, in, i);
            const uint64_t w = scalar_result(p, d, s, c, RN, IE, rs, &rsf);
            const uint64_t got = load_elem(d, out3, i);
            MF_EXPECT(got == (d == MF_FP64 || d == MF_FP32 ? w : w & 0xFFFFu),
                      "%s %s -> %s element %zu of %zu (0x%llx): bulk 0x%llx, scalar 0x%llx", mf_profile_name(p),
                      mf_format_name(s), mf_format_name(d), i, NLONG, (unsigned long long)c,
                      (unsigned long long)got, (unsigned long long)w);
        }
        MF_EXPECT(!memcmp(out1, out3, NLONG * 8 + 1), "%s %s -> %s: one thread and three differ", mf_profile_name(p),
                  mf_format_name(s), mf_format_name(d));
        o.threads = 1; /* without counts: another path (the marking kernels, in one call) */
        o.stats = NULL;
        memset(out3, 0xA5, NLONG * 8 + 1);
        ck_assert_int_eq(mf_convert(d, out3, s, in, NLONG, &o), MF_OK);
        MF_EXPECT(!memcmp(out1, out3, NLONG * 8 + 1), "%s %s -> %s: with counts and without differ",
                  mf_profile_name(p), mf_format_name(s), mf_format_name(d));
        MF_EXPECT(out3[mf_storage_bytes(d, NLONG)] == 0xA5 && (d != MF_FP4_E2M1 || out3[NLONG / 2] >> 4 == 0xA),
                  "%s %s -> %s: written past the end", mf_profile_name(p), mf_format_name(s), mf_format_name(d));
        MF_EXPECT(!memcmp(&st1, &st3, sizeof st1), "%s %s -> %s: one thread's counts and three's differ",
                  mf_profile_name(p), mf_format_name(s), mf_format_name(d));
        MF_EXPECT(st3.nan == nans, "%s %s -> %s: %llu NaNs counted, %llu in the input", mf_profile_name(p),
                  mf_format_name(s), mf_format_name(d), (unsigned long long)st3.nan, (unsigned long long)nans);
        tested++;
    }
    ck_assert_uint_gt(tested * mf_test_sample(), 5);
    free(x);
    free(in);
    free(out1);
    free(out3);
}
END_TEST

int main(void)
{
    /* MF_PROFILE_EXPECT=name (tests/unit.cmake sets it with MF_BACKEND): this run is that backend's build of the
     * fix-up loops (src/portable/profile_fix.c) */
    const char *want = getenv("MF_PROFILE_EXPECT");
    Suite *s;
    if (want && strcmp(want, mf_backend()) != 0) {
        printf("SKIP: backend %s asked, this CPU runs %s\n", want, mf_backend());
        return 77;
    }
    printf("backend: %s\n", mf_backend());
    s = suite_create("profile");
    TCase *tc = tcase_create("profile");
    tcase_add_test(tc, test_encode_vectors);
    tcase_add_test(tc, test_decode_vectors);
    tcase_add_test(tc, test_default_is_default);
    tcase_add_test(tc, test_refusals);
    tcase_add_test(tc, test_bulk_matches_scalar);
    tcase_add_test(tc, test_bulk_all_nan);
    suite_add_tcase(s, tc);
    tc = tcase_create("every_pair"); /* one profile a test */
    tcase_add_loop_test(tc, test_bulk_every_pair, 0, 4);
    tcase_add_loop_test(tc, test_bulk_long, 0, 4);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return mf_run_suite(s);
}
