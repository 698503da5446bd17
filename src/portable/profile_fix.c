/* SPDX-License-Identifier: MIT */
/* src/portable/profile_fix.c - the loops that rewrite the lanes a compatibility profile treats differently
 * (convert_profile.c), written so that the compiler vectorises them. Compiled here for the baseline ISA
 * (mf__pfix_portable) and once more by each SIMD backend with its flags (src/sources.cmake defines PF_TABLE),
 * since each costs a pass over what the default kernel has just written, which at the baseline's vector
 * width costs a good part of the default's time (docs/perf/2026-12-06-zen5-profiles.md). */
#include <string.h>

#include "profile_fix.h"

#ifndef PF_TABLE
#define PF_TABLE mf__pfix_portable
#endif

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
    static void name(const mf__enc_fix *x, void *dst, const void *src, size_t n)                                      \
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
static void enc_u4(const mf__enc_fix *x, void *dst, int src64, const void *src, size_t n)
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
static void enc_e8m0(const mf__enc_fix *x, void *dst, const void *src, int src64, size_t n)
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
    } else if (x->e8m0 == MF__E8M0_NONPOS) {
        for (i = 0; i < n; i++) {
            uint32_t b, m;
            memcpy(&b, s + 4 * i, 4);
            m = ALL((b >> 31) | (b == 0));
            d[i] = (uint8_t)((0xFFu & m) | (d[i] & ~m));
        }
    } else if (x->e8m0 == MF__E8M0_TORCH) {
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

/* Is any of the n codes at p (of type T) in the range (c & m) - lo <= span? Then the least of the (c & m) - lo
 * (wrapping in T) is, so the loop is a min reduction the compiler vectorises to one min a vector (a compare
 * into a mask takes a mask move and an OR besides); four streams over the quarters of the array keep the load
 * ports busy where one chain waits on itself. Inlined,
 * so that an equality (m all ones, span 0) costs a subtraction and a min a vector. */
#define ANY_IN_RANGE(name, T)                                                                                      \
    MF_FORCE_INLINE int name(const unsigned char *p, size_t n, uint64_t m64, uint64_t lo64, uint64_t span64)       \
    {                                                                                                              \
        const T m = (T)m64, lo = (T)lo64, span = (T)span64;                                                        \
        const size_t q = n / 4;                                                                                    \
        T a0 = (T)~(T)0, a1 = a0, a2 = a0, a3 = a0, v0, v1, v2, v3;                                                \
        size_t i;                                                                                                  \
        for (i = 0; i < q; i++) {                                                                                  \
            memcpy(&v0, p + sizeof(T) * i, sizeof(T));                                                            \
            memcpy(&v1, p + sizeof(T) * (i + q), sizeof(T));                                                      \
            memcpy(&v2, p + sizeof(T) * (i + 2 * q), sizeof(T));                                                  \
            memcpy(&v3, p + sizeof(T) * (i + 3 * q), sizeof(T));                                                  \
            v0 = (T)((v0 & m) - lo);                                                                               \
            v1 = (T)((v1 & m) - lo);                                                                               \
            v2 = (T)((v2 & m) - lo);                                                                               \
            v3 = (T)((v3 & m) - lo);                                                                               \
            a0 = v0 < a0 ? v0 : a0;                                                                                \
            a1 = v1 < a1 ? v1 : a1;                                                                                \
            a2 = v2 < a2 ? v2 : a2;                                                                                \
            a3 = v3 < a3 ? v3 : a3;                                                                                \
        }                                                                                                          \
        for (i = 4 * q; i < n; i++) {                                                                              \
            memcpy(&v0, p + sizeof(T) * i, sizeof(T));                                                            \
            v0 = (T)((v0 & m) - lo);                                                                               \
            a0 = v0 < a0 ? v0 : a0;                                                                                \
        }                                                                                                          \
        a0 = a1 < a0 ? a1 : a0;                                                                                    \
        a2 = a3 < a2 ? a3 : a2;                                                                                    \
        return (a2 < a0 ? a2 : a0) <= span;                                                                        \
    }

ANY_IN_RANGE(any_u64, uint64_t)
ANY_IN_RANGE(any_u32, uint32_t)
ANY_IN_RANGE(any_u16, uint16_t)
ANY_IN_RANGE(any_u8, uint8_t)

static int eq_u32(const unsigned char *p, size_t n, uint32_t c) { return any_u32(p, n, UINT32_MAX, c, 0); }
static int eq_u16(const unsigned char *p, size_t n, uint32_t c) { return any_u16(p, n, UINT32_MAX, c, 0); }
static int eq_u8(const unsigned char *p, size_t n, uint32_t c) { return any_u8(p, n, UINT32_MAX, c, 0); }

/* Does any of the n codes at p (store bits w: 32, 16, 8, or 4 for e2m1) equal c? (Every lane a profile
 * rewrites, e8m0's aside, holds the format's NaN code in the default's result: the NaN inputs, and e4m3's
 * overflows; for FP6 and FP4 the code of +max.) */
static int any_code(const unsigned char *p, int w, size_t n, uint32_t c)
{
    size_t i;
    uint8_t acc = 0;
    switch (w) {
    case 32: return eq_u32(p, n, c);
    case 16: return eq_u16(p, n, c);
    case 8: return eq_u8(p, n, c);
    default: break;
    }
    /* e2m1: both nibbles of each byte (an odd count's last high nibble too: at worst a needless rewrite) */
    for (i = 0; i < (n + 1) / 2; i++)
        acc |= (uint8_t)(((p[i] & 0xFu) == c) | ((p[i] >> 4) == c));
    return acc != 0;
}

/* e4m3 under ml_dtypes, PyTorch and ONNX (and CUDA's from f64): the lanes holding 0x7F, NaN or not, take the
 * source's sign; under CUDA's from f32 (keep_nan) only those of non-NaN inputs. One pass in the lanes' own
 * width over the whole step, without a scan first: overflows make 0x7F common (on training data, in every
 * block). */
MF_FORCE_INLINE void sign_u8(uint8_t *d, const unsigned char *s, int src64, int keep_nan, size_t n)
{
    size_t i;
    if (src64)
        for (i = 0; i < n; i++) {
            uint64_t b;
            uint8_t m;
            memcpy(&b, s + 8 * i, 8);
            m = (uint8_t)(0u - (unsigned)(d[i] == 0x7Fu && !(keep_nan && (b & 0x7FFFFFFFFFFFFFFFu) > 0x7FF0000000000000u)));
            d[i] = (uint8_t)(d[i] | ((uint8_t)(b >> 56) & 0x80u & m));
        }
    else
        for (i = 0; i < n; i++) {
            uint32_t b;
            uint8_t m;
            memcpy(&b, s + 4 * i, 4);
            m = (uint8_t)(0u - (unsigned)(d[i] == 0x7Fu && !(keep_nan && (b & 0x7FFFFFFFu) > 0x7F800000u)));
            d[i] = (uint8_t)(d[i] | ((uint8_t)(b >> 24) & 0x80u & m));
        }
}

static void enc_sign_u8(void *dst, int src64, int keep_nan, const void *src, size_t n)
{
    if (keep_nan) /* the loops apart, so that the other one tests no NaN */
        sign_u8((uint8_t *)dst, (const unsigned char *)src, src64, 1, n);
    else
        sign_u8((uint8_t *)dst, (const unsigned char *)src, src64, 0, n);
}

/* Lanes a block: a block with no lane to rewrite costs one scan; a NaN now and then costs a block's rewrite. */
enum { BLOCK = 128 };

/* May one of the n lanes (results at dp, sources at sp) need a rewrite? Every lane a profile rewrites (e8m0's
 * aside) is a NaN input or an e4m3 overflow, and holds the format's NaN code in the default's result, so the
 * result is scanned; but a format without NaNs (FP6, FP4: kind none) writes +max for a NaN, which data with
 * overflows holds in every block, and rewrites only its NaN inputs: those are found in the source. */
static int enc_marked(int none, const unsigned char *dp, int w, uint32_t nc, const unsigned char *sp, int src64,
                      size_t n)
{
    if (!none)
        return any_code(dp, w, n, nc);
    return src64 ? any_u64(sp, n, 0x7FFFFFFFFFFFFFFFu, 0x7FF0000000000001u, 0x000FFFFFFFFFFFFEu)
                 : any_u32(sp, n, 0x7FFFFFFFu, 0x7F800001u, 0x007FFFFEu);
}

static void enc_apply(const mf__enc_fix *x, mf_format d, void *dst, int src64, const void *src, size_t n)
{
    const int w = mf__fmt_store_bits(d), none = mf__fmt_get(d).kind == MF__KIND_NONE;
    const uint32_t nc = (uint32_t)mf__fmt_nan_code(mf__fmt_get(d));
    const size_t sw = src64 ? 8 : 4;
    unsigned char *dp = (unsigned char *)dst;
    const unsigned char *sp = (const unsigned char *)src;
    size_t b;
    if (!x->active)
        return;
    if (x->e8m0) { /* rules on the source's value: no code marks the lanes */
        enc_e8m0(x, dst, src, src64, n);
        return;
    }
    { /* the first block, then the rest in one pass (a scan a block costs a setup a block); where the first block
       * has a lane to rewrite, as e4m3's overflows make common, the rest goes unscanned */
        const size_t m = n < BLOCK ? n : BLOCK;
        if (!enc_marked(none, dp, w, nc, sp, src64, m) &&
            !enc_marked(none, dp + mf__storage_bytes(d, m), w, nc, sp + m * sw, src64, n - m))
            return; /* no lane to rewrite */
    }
    if (x->sign_only) {
        enc_sign_u8(dst, src64, x->sign_only == 2, src, n);
        return;
    }
    for (b = 0; b < n; b += BLOCK) {
        const size_t m = n - b < BLOCK ? n - b : BLOCK;
        unsigned char *o = dp + mf__storage_bytes(d, b);
        const unsigned char *in = sp + b * sw;
        if (!enc_marked(none, o, w, nc, in, src64, m))
            continue;
        switch (w) {
        case 32: enc_f64_u32(x, o, in, m); break; /* f32 from f64 */
        case 16: (src64 ? enc_f64_u16 : enc_f32_u16)(x, o, in, m); break;
        case 4: enc_u4(x, o, src64, in, m); break;
        default: (src64 ? enc_f64_u8 : enc_f32_u8)(x, o, in, m); break;
        }
    }
}

#define DEC_LOOP(name, SRC_T, TO64)                                                                                \
    static void name(const mf__dec_fix *x, void *dst, const void *src, size_t n)                                      \
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
static int any_nan_code(const mf__dec_fix *x, const unsigned char *p, int w, size_t n)
{
    return w == 16 ? any_u16(p, n, x->mask, x->lo, x->span) : any_u8(p, n, x->mask, x->lo, x->span);
}

static void dec_apply(const mf__dec_fix *x, mf_format s, void *dst, int to64, const void *src, size_t n)
{
    const int w = mf__fmt_store_bits(s); /* 16 or 8: every format with NaNs narrower than f32 */
    unsigned char *dp = (unsigned char *)dst;
    const unsigned char *sp = (const unsigned char *)src;
    size_t b;
    if (!x->active || !any_nan_code(x, sp, w, n)) /* as enc_apply */
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

const mf__pfix PF_TABLE = {enc_apply, dec_apply};
