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

int main(void)
{
    Suite *s = suite_create("profile");
    TCase *tc = tcase_create("profile");
    tcase_add_test(tc, test_encode_vectors);
    tcase_add_test(tc, test_decode_vectors);
    tcase_add_test(tc, test_default_is_default);
    tcase_add_test(tc, test_refusals);
    tcase_add_test(tc, test_bulk_matches_scalar);
    suite_add_tcase(s, tc);
    return mf_run_suite(s);
}
