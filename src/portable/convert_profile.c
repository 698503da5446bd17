/* SPDX-License-Identifier: MIT */
/* src/portable/convert_profile.c - mf_convert under a compatibility profile (opts->profile != 0).
 *
 * A profile rounds every finite value as the default does and changes only NaN codes and signs, its overflow
 * policy and a few special cases (minifloat/detail/profile.h). So each chunk of CHUNK elements is converted by
 * the fastest backend's default kernels, under the policy the profile implies, and then a loop over the
 * chunk's source and result, written so that the compiler vectorises it, rewrites the lanes the profile
 * treats differently:
 *   decoding (into f32, f64)    NaN codes, as the system decodes them (dec_fix);
 *   rounding from f32 or f64    NaN inputs get the system's code (sign, some payload bits), an e4m3 NaN made
 *                               by an overflow or an infinity keeps the value's sign, and e8m0's rules
 *                               (enc_fix);
 *   narrow -> narrow, and the   two steps through an f32 chunk: decoded as the system decodes, then rounded
 *   f64 sources PyTorch (and    from f32 as the system does; it is how the system itself converts (an f64 is
 *   ONNX's e8m0) round via f32  first rounded to f32 in rn, NaNs as cvtsd2ss writes them).
 * The counts are the default kernel's under that policy: the events of the one rounding the element path
 * counts (of the second step, where there are two). tests/test_profile.c and tests/test_exhaustive_profile.c
 * compare every lane with the scalar profile functions.
 */
#include <string.h>

#include "../internal.h"

/* Elements a step: an f64 source chunk, the f32 chunk of two steps and the result stay in L1 (16 + 8 + 8
 * KiB), and a step is long enough for the backend's call cost not to show. Even: a step starts on a byte of
 * packed e2m1. */
enum { CHUNK = 2048 };

enum { E8M0_NONE, E8M0_NONPOS, E8M0_TORCH, E8M0_ONNX };

/* How a system's rounding from f32 or f64 differs from the default's (mf__profile_round, mf__profile_nan). */
typedef struct enc_fix {
    int active;               /* 0: the default's codes are the system's for this pair */
    uint32_t nan_pos, nan_neg; /* a NaN input's code by its sign, ... */
    unsigned pay;             /* ... OR the top `pay` bits of its mantissa (0: none) */
    uint32_t pay_min;         /* numpy's f16: 1 where those bits are 0 */
    uint32_t fn_code, fn_sign; /* a non-NaN input whose code is fn_code (e4m3's NaN) gets fn_sign if negative */
    int e8m0;                 /* E8M0_*: e8m0's rules */
    int sign_only;            /* e4m3 whose every 0x7F takes the sign (enc_sign_u8) */
    mf_round r;               /* ONNX's e8m0 rule takes the caller's mode and policy */
    mf_overflow o;
} enc_fix;

static enc_fix enc_setup(mf_profile p, mf_format d, int src64, mf_round r, mf_overflow o)
{
    const mf__fmt f = mf__fmt_get(d);
    const uint32_t nc = (uint32_t)mf__fmt_nan_code(f), sb = f.kind == MF__KIND_E8M0 ? 0u : 1u << (f.bits - 1);
    enc_fix x;
    memset(&x, 0, sizeof x);
    x.nan_pos = x.nan_neg = nc;
    x.fn_code = UINT32_MAX; /* no code */
    x.r = r;
    x.o = o;
    if (p == MF_PROFILE_CUDA) {
        if (d == MF_FP8_E4M3 && src64)
            x.nan_neg = 0xFFu;
        if (d == MF_FP8_E5M2 && src64) {
            x.nan_pos = 0x7Eu;
            x.nan_neg = 0xFEu;
            x.pay = 2;
        }
    } else if (f.kind == MF__KIND_FNUZ || f.kind == MF__KIND_E8M0) {
        /* the format's NaN */
    } else if (d == MF_FP32) { /* cvtsd2ss */
        x.nan_pos = 0x7FC00000u;
        x.nan_neg = 0xFFC00000u;
        x.pay = 23;
    } else if (p == MF_PROFILE_TORCH) {
        if (d == MF_BF16)
            x.nan_pos = x.nan_neg = 0xFFFFu;
        else if (d == MF_FP16) {
            x.nan_pos = 0x7E00u;
            x.nan_neg = 0xFE00u;
            x.pay = 10;
        } else
            x.nan_neg = 0x7Fu | sb;
    } else if (d == MF_FP16) { /* ml_dtypes and ONNX: numpy */
        x.nan_pos = 0x7C00u;
        x.nan_neg = 0xFC00u;
        x.pay = 10;
        x.pay_min = 1;
    } else if (f.kind == MF__KIND_NONE) { /* a zero of the opposite sign */
        x.nan_pos = sb;
        x.nan_neg = 0;
    } else if (f.kind == MF__KIND_FN) {
        x.nan_neg = 0x7Fu | sb;
    } else {
        x.nan_pos = (uint32_t)mf__fmt_inf_code(f) | 1u << (f.man - 1);
        x.nan_neg = x.nan_pos | sb;
    }
    if (f.kind == MF__KIND_FN) {
        x.fn_code = nc;
        x.fn_sign = sb;
    }
    if (d == MF_E8M0)
        x.e8m0 = p == MF_PROFILE_ML_DTYPES ? E8M0_NONPOS
                 : p == MF_PROFILE_TORCH   ? E8M0_TORCH
                 : p == MF_PROFILE_ONNX    ? E8M0_ONNX
                                           : E8M0_NONE;
    x.sign_only = f.kind == MF__KIND_FN && x.nan_pos == nc && x.nan_neg == (nc | sb);
    x.active = x.nan_pos != nc || x.nan_neg != nc || x.pay || x.fn_sign || x.e8m0;
    return x;
}

/* All ones where v is true: the loops below select with masks, which the compiler vectorises on every
 * target (ternaries on conditions it does not, on SSE2 for one). */
#define ALL(v) (0u - (uint32_t)((v) != 0))

/* The system's code for one lane: masks of the source's sign and NaN-ness, its payload bits pl (shifted)
 * and the default's code c. */
#define ENC_LANE(neg, nan, pl, c)                                                                                  \
    ((((nneg & (neg)) | (npos & ~(neg)) | (pl) | (pmin & ALL((pl) == 0))) & (nan)) |                            \
     (((c) | (fns & (neg) & ALL((c) == fnc))) & ~(nan)))

#define ENC_CONSTS(x)                                                                                              \
    const uint32_t npos = (x)->nan_pos, nneg = (x)->nan_neg, pmin = (x)->pay_min, fnc = (x)->fn_code;            \
    const uint32_t fns = (x)->fn_sign, psh = 23u - (x)->pay

/* An f32 lane (b) or an f64 lane (two halves, 32-bit operations only: SSE2 has no 64-bit compare): sign
 * mask, NaN mask, the top 23 bits of the mantissa. */
#define F32_LANE(b, neg, nan, top)                                                                                 \
    neg = ALL((b) >> 31), nan = ALL(((b) & 0x7FFFFFFFu) > 0x7F800000u), top = (b) & 0x7FFFFFu
#define F64_LANE(lo, hi, neg, nan, top)                                                                            \
    neg = ALL((hi) >> 31),                                                                                         \
    nan = ALL(((hi) & 0x7FFFFFFFu) > 0x7FF00000u || (((hi) & 0x7FFFFFFFu) == 0x7FF00000u && (lo) != 0)),          \
    top = ((hi) & 0xFFFFFu) << 3 | (lo) >> 29

/* f64 halves, whatever the byte order */
MF_FORCE_INLINE void f64_halves(const unsigned char *p, uint32_t *lo, uint32_t *hi)
{
    uint64_t b;
    memcpy(&b, p, 8);
    *lo = (uint32_t)b;
    *hi = (uint32_t)(b >> 32);
}

/* One loop per (source width, destination width); arrays need no alignment (memcpy). */
#define ENC_LOOP(name, SRC_BYTES, DST_T)                                                                           \
    static void name(const enc_fix *x, void *dst, const void *src, size_t n)                                      \
    {                                                                                                              \
        ENC_CONSTS(x);                                                                                             \
        unsigned char *d = (unsigned char *)dst;                                                                  \
        const unsigned char *s = (const unsigned char *)src;                                                      \
        size_t i;                                                                                                 \
        for (i = 0; i < n; i++) {                                                                                 \
            uint32_t lo, hi, neg, nan, top, c;                                                                    \
            DST_T v;                                                                                              \
            memcpy(&v, d + i * sizeof v, sizeof v);                                                               \
            c = v;                                                                                                \
            if (SRC_BYTES == 4) {                                                                                 \
                memcpy(&lo, s + 4 * i, 4);                                                                        \
                F32_LANE(lo, neg, nan, top);                                                                      \
            } else {                                                                                              \
                f64_halves(s + 8 * i, &lo, &hi);                                                                  \
                F64_LANE(lo, hi, neg, nan, top);                                                                  \
            }                                                                                                     \
            top >>= psh;                                                                                          \
            v = (DST_T)ENC_LANE(neg, nan, top, c);                                                                \
            memcpy(d + i * sizeof v, &v, sizeof v);                                                               \
        }                                                                                                         \
    }

ENC_LOOP(enc_f32_u8, 4, uint8_t)
ENC_LOOP(enc_f32_u16, 4, uint16_t)
ENC_LOOP(enc_f64_u8, 8, uint8_t)
ENC_LOOP(enc_f64_u16, 8, uint16_t)
ENC_LOOP(enc_f64_u32, 8, uint32_t)

/* e2m1, two codes a byte: whole bytes, then the low nibble of an odd count's last byte (its high nibble left
 * as it was) */
static void enc_u4(const enc_fix *x, void *dst, int src64, const void *src, size_t n)
{
    ENC_CONSTS(x);
    unsigned char *d = (unsigned char *)dst;
    const unsigned char *s = (const unsigned char *)src;
    const size_t w = src64 ? 8 : 4;
    size_t i;
    for (i = 0; i < n; i++) {
        uint32_t lo, hi, neg, nan, top, c;
        const unsigned sh = 4 * (unsigned)(i & 1);
        if (src64) {
            f64_halves(s + w * i, &lo, &hi);
            F64_LANE(lo, hi, neg, nan, top);
        } else {
            memcpy(&lo, s + w * i, 4);
            F32_LANE(lo, neg, nan, top);
        }
        top >>= psh;
        c = (d[i >> 1] >> sh) & 0xFu;
        c = ENC_LANE(neg, nan, top, c);
        d[i >> 1] = (uint8_t)((d[i >> 1] & ~(0xFu << sh)) | (c & 0xFu) << sh);
    }
}

/* e8m0's rules, on the f32 (or, ml_dtypes, f64) bits: ml_dtypes has no code for x <= 0 (NaN 0xFF); c10
 * rounds the binary32 subnormals in (2^-127, 2^-126) to 2^-126 (code 1) where rn gives 2^-127 or 2^-126;
 * ONNX's rule is its own, on the bits (mf__onnx_e8m0). */
static void enc_e8m0(const enc_fix *x, void *dst, const void *src, int src64, size_t n)
{
    unsigned char *d = (unsigned char *)dst;
    const unsigned char *s = (const unsigned char *)src;
    size_t i;
    if (src64) { /* ml_dtypes only: PyTorch and ONNX round an f64 via f32 */
        for (i = 0; i < n; i++) {
            uint32_t lo, hi, m;
            f64_halves(s + 8 * i, &lo, &hi);
            m = ALL((hi >> 31) | ((hi | lo) == 0));
            d[i] = (uint8_t)((0xFFu & m) | (d[i] & ~m));
        }
    } else if (x->e8m0 == E8M0_NONPOS) {
        for (i = 0; i < n; i++) {
            uint32_t b, m;
            memcpy(&b, s + 4 * i, 4);
            m = ALL((b >> 31) | (b == 0));
            d[i] = (uint8_t)((0xFFu & m) | (d[i] & ~m));
        }
    } else if (x->e8m0 == E8M0_TORCH) {
        for (i = 0; i < n; i++) {
            uint32_t b, m;
            memcpy(&b, s + 4 * i, 4);
            b &= 0x7FFFFFFFu;
            m = ALL(b > 0x400000u && b < 0x800000u);
            d[i] = (uint8_t)((1u & m) | (d[i] & ~m));
        }
    } else { /* ONNX's rule, element by element */
        for (i = 0; i < n; i++) {
            uint32_t b;
            memcpy(&b, s + 4 * i, 4);
            d[i] = (uint8_t)mf__onnx_e8m0(b, x->r, x->o);
        }
    }
}

/* Rewrite the lanes of dst (n codes of d, the default's) that system x writes differently, from src (n
 * f32 or f64). */
/* Does any of the n codes at p (store bits w: 32, 16, 8, or 4 for e2m1) equal c? (Every lane a profile
 * rewrites, e8m0's aside, holds the format's NaN code in the default's result: the NaN inputs, and e4m3's
 * overflows; for FP6 and FP4 the code of +max.) One compare a lane, so that scanning costs far less than
 * rewriting. */
static int any_code(const unsigned char *p, int w, size_t n, uint32_t c)
{
    size_t i;
    if (w == 32) {
        uint32_t acc = 0;
        for (i = 0; i < n; i++) {
            uint32_t v;
            memcpy(&v, p + 4 * i, 4);
            acc |= ALL(v == c);
        }
        return acc != 0;
    }
    if (w == 16) { /* in the lanes' own width: widening would cost more than the compares */
        const uint16_t c16 = (uint16_t)c;
        uint16_t acc = 0;
        for (i = 0; i < n; i++) {
            uint16_t v;
            memcpy(&v, p + 2 * i, 2);
            acc |= (uint16_t)ALL(v == c16);
        }
        return acc != 0;
    }
    {
        const uint8_t c8 = (uint8_t)c;
        uint8_t acc = 0;
        if (w == 8)
            for (i = 0; i < n; i++)
                acc |= (uint8_t)ALL(p[i] == c8);
        else /* e2m1: both nibbles of each byte (an odd count's last high nibble too: at worst a needless rewrite) */
            for (i = 0; i < (n + 1) / 2; i++)
                acc |= (uint8_t)(ALL((p[i] & 0xFu) == c8) | ALL((p[i] >> 4) == c8));
        return acc != 0;
    }
}

/* e4m3 under ml_dtypes, PyTorch and ONNX (and CUDA's from f64): the lanes holding 0x7F, NaN or not, take the
 * source's sign. In bytes, so that it costs a fraction of the general loop. */
static void enc_sign_u8(void *dst, int src64, const void *src, size_t n)
{
    static const uint32_t one = 1;
    const size_t w = src64 ? 8 : 4;
    uint8_t *d = (uint8_t *)dst;
    const unsigned char *s = (const unsigned char *)src + (*(const unsigned char *)&one ? w - 1 : 0); /* sign byte */
    size_t i;
    for (i = 0; i < n; i++)
        d[i] = (uint8_t)(d[i] | (s[w * i] & 0x80u & ALL(d[i] == 0x7Fu)));
}

/* Lanes a block: a block with no lane to rewrite costs one scan; a NaN now and then costs a block's rewrite. */
enum { BLOCK = 128 };

static void enc_apply(const enc_fix *x, mf_format d, void *dst, int src64, const void *src, size_t n)
{
    const int w = mf__fmt_store_bits(d);
    const uint32_t nc = (uint32_t)mf__fmt_nan_code(mf__fmt_get(d));
    unsigned char *dp = (unsigned char *)dst;
    const unsigned char *sp = (const unsigned char *)src;
    size_t b;
    if (!x->active)
        return;
    if (x->e8m0) { /* rules on the source's value: no code marks the lanes */
        enc_e8m0(x, dst, src, src64, n);
        return;
    }
    for (b = 0; b < n; b += BLOCK) {
        const size_t m = n - b < BLOCK ? n - b : BLOCK;
        unsigned char *o = dp + mf__storage_bytes(d, b);
        const unsigned char *in = sp + b * (src64 ? 8 : 4);
        if (!any_code(o, w, m, nc))
            continue;
        if (x->sign_only) {
            enc_sign_u8(o, src64, in, m);
            continue;
        }
        switch (w) {
        case 32: enc_f64_u32(x, o, in, m); break; /* f32 from f64 */
        case 16: (src64 ? enc_f64_u16 : enc_f32_u16)(x, o, in, m); break;
        case 4: enc_u4(x, o, src64, in, m); break;
        default: (src64 ? enc_f64_u8 : enc_f32_u8)(x, o, in, m); break;
        }
    }
}

/* How a system decodes NaN codes differently from the default (mf__profile_decode_f32 / _f64): a code c
 * with (c & mask) - lo <= span is a NaN, decoded as (negative ? neg : pos) | mantissa << sh (keep). */
typedef struct dec_fix {
    int active;
    uint32_t mask, lo, span, sign_sh, mant_mask;
    uint64_t pos, neg;
    unsigned sh;
    int keep;
} dec_fix;

static dec_fix dec_setup(mf_profile p, mf_format s, int to64)
{
    const mf__fmt f = mf__fmt_get(s);
    const uint32_t nc = (uint32_t)mf__fmt_nan_code(f);
    const int fp8 = f.bits == 8 && (f.kind == MF__KIND_FN || f.kind == MF__KIND_IEEE);
    dec_fix x;
    uint32_t c32 = 0;
    memset(&x, 0, sizeof x);
    x.mask = (uint32_t)mf__fmt_code_mask(f);
    x.lo = x.span = 0;
    x.mant_mask = (1u << f.man) - 1;
    x.sign_sh = f.kind == MF__KIND_E8M0 ? 31u : (unsigned)f.bits - 1; /* e8m0: no sign (a shift past its bits) */
    if (f.kind == MF__KIND_IEEE) { /* the codes above the infinity */
        x.mask = (uint32_t)mf__fmt_mag_mask(f);
        x.lo = (uint32_t)mf__fmt_inf_code(f) + 1;
        x.span = x.mask - x.lo;
    } else if (f.kind == MF__KIND_FN) {
        x.mask = (uint32_t)mf__fmt_mag_mask(f);
        x.lo = nc;
    } else {
        x.lo = nc; /* fnuz 0x80, e8m0 0xFF */
    }
    if (f.kind == MF__KIND_NONE || s == MF_FP32 || s == MF_BF16)
        return x; /* no NaN, or the default's decoding */
    if (p == MF_PROFILE_CUDA && (s == MF_FP16 || s == MF_FP8_E4M3 || s == MF_FP8_E5M2))
        c32 = 0x7FFFFFFFu;
    else if (p == MF_PROFILE_CUDA && s == MF_E8M0)
        c32 = 0x7FFF0000u;
    else if (p == MF_PROFILE_TORCH && (f.kind == MF__KIND_FNUZ || f.kind == MF__KIND_E8M0))
        c32 = 0x7F800001u;
    else if ((p == MF_PROFILE_ML_DTYPES || p == MF_PROFILE_ONNX) && s == MF_FP16) { /* numpy: not quieted */
        x.active = 1;
        x.keep = 1;
        x.pos = to64 ? 0x7FF0000000000000u : 0x7F800000u;
        x.neg = to64 ? 0xFFF0000000000000u : 0xFF800000u;
        x.sh = to64 ? 42u : 13u;
        return x;
    } else if ((p == MF_PROFILE_ML_DTYPES || p == MF_PROFILE_ONNX) && fp8) { /* the payload dropped */
        x.active = 1;
        x.pos = to64 ? 0x7FF8000000000000u : 0x7FC00000u;
        x.neg = to64 ? 0xFFF8000000000000u : 0xFFC00000u;
        return x;
    } else
        return x;
    x.active = 1; /* one NaN whatever the code */
    x.pos = x.neg = to64 ? mf__widen_f32_bits(c32) : c32;
    return x;
}

#define DEC_LOOP(name, SRC_T, TO64)                                                                                \
    static void name(const dec_fix *x, void *dst, const void *src, size_t n)                                      \
    {                                                                                                              \
        const uint32_t mask = x->mask, lo = x->lo, span = x->span, ssh = x->sign_sh, mm = x->keep ? x->mant_mask : 0; \
        const uint32_t plo = (uint32_t)x->pos, phi = (uint32_t)(x->pos >> 32), nlo = (uint32_t)x->neg;            \
        const uint32_t nhi = (uint32_t)(x->neg >> 32), sh = !x->keep ? 0 : TO64 ? x->sh - 32 : x->sh;                           \
        unsigned char *d = (unsigned char *)dst;                                                                  \
        const unsigned char *s = (const unsigned char *)src;                                                      \
        size_t i;                                                                                                 \
        for (i = 0; i < n; i++) {                                                                                 \
            SRC_T b;                                                                                              \
            uint32_t code, nan, neg, vlo, vhi;                                                                    \
            memcpy(&b, s + i * sizeof b, sizeof b);                                                               \
            code = b;                                                                                             \
            nan = ALL((code & mask) - lo <= span);                                                                \
            neg = ALL((code >> ssh) & 1u);                                                                        \
            vlo = (nlo & neg) | (plo & ~neg);                                                                     \
            vhi = (nhi & neg) | (phi & ~neg);                                                                     \
            if (TO64) { /* the kept mantissa lies in the high half (f16: bits 42..51) */                          \
                uint64_t c;                                                                                       \
                memcpy(&c, d + 8 * i, 8);                                                                         \
                vhi |= (code & mm) << sh;                                                                         \
                vlo = (vlo & nan) | ((uint32_t)c & ~nan);                                                         \
                vhi = (vhi & nan) | ((uint32_t)(c >> 32) & ~nan);                                                 \
                c = (uint64_t)vhi << 32 | vlo;                                                                    \
                memcpy(d + 8 * i, &c, 8);                                                                         \
            } else {                                                                                              \
                uint32_t c;                                                                                       \
                memcpy(&c, d + 4 * i, 4);                                                                         \
                vlo |= (code & mm) << sh;                                                                         \
                c = (vlo & nan) | (c & ~nan);                                                                     \
                memcpy(d + 4 * i, &c, 4);                                                                         \
            }                                                                                                     \
        }                                                                                                         \
    }

DEC_LOOP(dec_u8_f32, uint8_t, 0)
DEC_LOOP(dec_u16_f32, uint16_t, 0)
DEC_LOOP(dec_u8_f64, uint8_t, 1)
DEC_LOOP(dec_u16_f64, uint16_t, 1)

/* Is any of the n codes at p (16 or 8 bits) a NaN? */
static int any_nan_code(const dec_fix *x, const unsigned char *p, int w, size_t n)
{
    size_t i;
    if (w == 16) { /* in the lanes' own width, as any_code */
        const uint16_t mask = (uint16_t)x->mask, lo = (uint16_t)x->lo, span = (uint16_t)x->span;
        uint16_t acc = 0;
        for (i = 0; i < n; i++) {
            uint16_t v;
            memcpy(&v, p + 2 * i, 2);
            acc |= (uint16_t)ALL((uint16_t)((v & mask) - lo) <= span);
        }
        return acc != 0;
    } else {
        const uint8_t mask = (uint8_t)x->mask, lo = (uint8_t)x->lo, span = (uint8_t)x->span;
        uint8_t acc = 0;
        for (i = 0; i < n; i++)
            acc |= (uint8_t)ALL((uint8_t)((p[i] & mask) - lo) <= span);
        return acc != 0;
    }
}

static void dec_apply(const dec_fix *x, mf_format s, void *dst, int to64, const void *src, size_t n)
{
    const int w = mf__fmt_store_bits(s); /* 16 or 8: every format with NaNs narrower than f32 */
    unsigned char *dp = (unsigned char *)dst;
    const unsigned char *sp = (const unsigned char *)src;
    size_t b;
    if (!x->active)
        return;
    for (b = 0; b < n; b += BLOCK) {
        const size_t m = n - b < BLOCK ? n - b : BLOCK;
        unsigned char *o = dp + b * (to64 ? 8 : 4);
        const unsigned char *in = sp + b * (size_t)(w / 8);
        if (!any_nan_code(x, in, w, m))
            continue;
        if (w == 16)
            (to64 ? dec_u16_f64 : dec_u16_f32)(x, o, in, m);
        else
            (to64 ? dec_u8_f64 : dec_u8_f32)(x, o, in, m);
    }
}

/* One step of n <= CHUNK elements. */
typedef struct step {
    const mf__backend *bk;
    mf_opts o; /* the default's options for the pair: the policy the system applies, no stats, one thread */
} step;

static step step_setup(mf_format d, mf_format s, mf_round r, mf_overflow o)
{
    step k;
    memset(&k, 0, sizeof k);
    k.bk = mf__backend_for(mf__backend_active(), d, s);
    k.o.round = r;
    k.o.overflow = o;
    return k;
}

static void step_run(const step *k, mf_format d, void *dst, mf_format s, const void *src, size_t n, mf_stats *total)
{
    mf_stats c;
    k->bk->convert(d, dst, s, src, n, &k->o, total ? &c : NULL);
    if (total)
        mf__stats_sum(total, &c);
}

void mf__convert_profile(mf_format d, void *dst, mf_format s, const void *src, size_t n, const mf_opts *o,
                         mf_stats *st)
{
    const mf_profile p = o->profile;
    const int decode = d == MF_FP64 || (d == MF_FP32 && s != MF_FP64); /* d != s: equal formats copy */
    /* f64 -> d through f32 (PyTorch, ONNX's e8m0), and narrow -> narrow through the decoded f32 */
    const int two = !decode && s != MF_FP32 && (s != MF_FP64 || mf__profile_via_f32(p, d));
    const mf_format mid = two ? MF_FP32 : s;
    unsigned char *out = (unsigned char *)dst;
    const unsigned char *in = (const unsigned char *)src;
    mf_stats total, *tp = st ? &total : NULL;
    float tmp[CHUNK];
    step first, last;
    dec_fix dx;
    enc_fix ex, fx;
    size_t i;
    memset(&total, 0, sizeof total);
    memset(&first, 0, sizeof first);
    memset(&dx, 0, sizeof dx);
    memset(&ex, 0, sizeof ex);
    memset(&fx, 0, sizeof fx);
    if (decode) { /* exact: no policy (the default's saturates infinities) */
        last = step_setup(d, s, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE);
        dx = dec_setup(p, s, d == MF_FP64);
    } else {
        last = step_setup(d, mid, o->round, mf__profile_policy(p, d, o->overflow));
        ex = enc_setup(p, d, s == MF_FP64, o->round, o->overflow);
    }
    if (two && s == MF_FP64) { /* rn into f32, NaNs as cvtsd2ss */
        first = step_setup(MF_FP32, s, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE);
        fx = enc_setup(p, MF_FP32, 1, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE);
    } else if (two) {
        first = step_setup(MF_FP32, s, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE);
        dx = dec_setup(p, s, 0);
    }
    for (i = 0; i < n; i += CHUNK) {
        const size_t m = n - i < CHUNK ? n - i : CHUNK;
        unsigned char *dp = out + mf__storage_bytes(d, i);
        const unsigned char *sp = in + mf__storage_bytes(s, i);
        if (decode) {
            step_run(&last, d, dp, s, sp, m, tp);
            dec_apply(&dx, s, dp, d == MF_FP64, sp, m);
            continue;
        }
        if (two) {
            step_run(&first, MF_FP32, tmp, s, sp, m, NULL);
            if (s == MF_FP64)
                enc_apply(&fx, MF_FP32, tmp, 1, sp, m);
            else
                dec_apply(&dx, s, tmp, 0, sp, m);
            sp = (const unsigned char *)tmp;
        }
        step_run(&last, d, dp, mid, sp, m, tp);
        enc_apply(&ex, d, dp, mid == MF_FP64, sp, m);
    }
    if (st)
        *st = total;
}
