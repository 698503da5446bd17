/* SPDX-License-Identifier: MIT */
/* fuzz/fuzz_common.h - what the fuzz targets share: reading the input bytes, the format list, the
 * mapping between the library's enums and the reference's, and the failure report.
 *
 * Every target defines LLVMFuzzerTestOneInput; a violated property prints what was expected and
 * what came back, then calls abort(), which both libFuzzer and the replay driver (replay.c) report.
 */
#ifndef MF_FUZZ_COMMON_H
#define MF_FUZZ_COMMON_H

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <minifloat.h>

#include "ref_slow.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#if defined(__GNUC__) || defined(__clang__)
#define FZ_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define FZ_PRINTF(a, b)
#endif

static inline void fz_fail(const char *fmt, ...) FZ_PRINTF(1, 2);
static inline void fz_fail(const char *fmt, ...)
{
    va_list ap;
    fputs("FUZZ PROPERTY VIOLATED: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    abort();
}

#define FZ_CHECK(cond, ...)      \
    do {                         \
        if (!(cond))             \
            fz_fail(__VA_ARGS__); \
    } while (0)

/* ---- input bytes --------------------------------------------------------------------------------
 * Reading past the end yields zeros, so every input, even an empty one, is a valid test case. */
typedef struct fz_reader {
    const uint8_t *p;
    size_t n;
} fz_reader;

static inline uint8_t fz_u8(fz_reader *r)
{
    if (r->n == 0)
        return 0;
    r->n--;
    return *r->p++;
}

static inline uint16_t fz_u16(fz_reader *r)
{
    uint16_t v = fz_u8(r);
    return (uint16_t)(v | (uint16_t)fz_u8(r) << 8);
}

static inline uint32_t fz_u32(fz_reader *r)
{
    uint32_t v = fz_u16(r);
    return v | (uint32_t)fz_u16(r) << 16;
}

static inline uint64_t fz_u64(fz_reader *r)
{
    uint64_t v = fz_u32(r);
    return v | (uint64_t)fz_u32(r) << 32;
}

static inline double fz_f64_from_bits(uint64_t u)
{
    double d;
    memcpy(&d, &u, 8);
    return d;
}
static inline uint64_t fz_f64_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}
static inline float fz_f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline uint32_t fz_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* ---- formats ------------------------------------------------------------------------------------ */
/* The narrow formats (targets of both mf_from_f32 and mf_from_f64), then binary32 (a rounding
 * target only from binary64). */
#define FZ_N_NARROW (MF_FORMAT_COUNT - 2)  /* every format but f32 and f64 */
#define FZ_N_TARGETS (MF_FORMAT_COUNT - 1) /* and f32 */

/* Target t, 0 <= t < FZ_N_TARGETS: the narrow formats in enum order (f16 .. e8m0, then those appended
 * after f64), then f32. */
static inline mf_format fz_target(int t)
{
    const int f = t + 1; /* past f32 */
    return t == FZ_N_NARROW ? MF_FP32 : (mf_format)(f < (int)MF_FP64 ? f : f + 1);
}

/* The reference format of a library format: the row of ref_slow.h with the same name (the two tables
 * share only the names; tests/test_formats.c compares their facts). */
static inline int fz_ref_fmt(mf_format f)
{
    const char *name = mf_format_name(f);
    int r;
    for (r = 0; name && r < REF_NFMT; r++)
        if (strcmp(ref_formats[r].name, name) == 0)
            return r;
    fz_fail("no reference format for %d", (int)f);
    return -1;
}

static const mf_round fz_modes[REF_NMODE] = {MF_ROUND_NEAREST_EVEN, MF_ROUND_NEAREST_AWAY, MF_ROUND_TOWARD_ZERO,
                                            MF_ROUND_UP,           MF_ROUND_DOWN,         MF_ROUND_ODD,
                                            MF_ROUND_STOCHASTIC};
static const mf_overflow fz_policies[2] = {MF_OVERFLOW_IEEE, MF_OVERFLOW_SATURATE};
static const char *const fz_mode_names[REF_NMODE] = {"rn", "rna", "rz", "ru", "rd", "ro", "sr"};
static const char *const fz_pol_names[2] = {"ieee", "sat"};

static inline const char *fz_fmt_name(mf_format f) { return ref_formats[fz_ref_fmt(f)].name; }

/* Library events (MF_EVENT_*) in the reference's bits. */
static inline unsigned fz_ev_to_ref(unsigned ev)
{
    return ((ev & MF_EVENT_OVERFLOW) ? REF_EV_OVERFLOW : 0u) | ((ev & MF_EVENT_UNDERFLOW) ? REF_EV_UNDERFLOW : 0u) |
           ((ev & MF_EVENT_SUBNORMAL) ? REF_EV_SUBNORMAL : 0u) | ((ev & MF_EVENT_NAN) ? REF_EV_NAN : 0u) |
           ((ev & MF_EVENT_INEXACT) ? REF_EV_INEXACT : 0u);
}

/* ---- input values -------------------------------------------------------------------------------
 * fz_value reads one input value; *is_f32 says whether it is a binary32 value (to be passed to
 * mf_from_f32) or a binary64 one. A tag byte picks the generator, so that inputs reach the
 * interesting places (grid points, midpoints, one ulp either side, specials) without luck:
 *   tag & 7 = 0: 8 raw bytes of a binary64          1, 5: 4 raw bytes of a binary32
 *             2: a code of a format (byte: format, 1 + byte % (REF_NFMT - 1) in ref_slow.h's list, all but f32;
 *                2 bytes: code), (tag >> 3) & 3 selects the value (0), the midpoint to the next code
 *                (1), or either of them nudged by a signed byte of ulps (2, 3); tag bit 5 picks
 *                binary32 (else binary64) precision
 *             3: signed 16-bit integer * 2^(signed byte), tag bit 5: binary32
 *             4: a special value from a list (byte: index); tag bit 5: binary32
 *          6, 7: 8 raw bytes of a binary64 */
static inline double fz_special(unsigned i)
{
    static const double sp[] = {0.0, 1.0, 1.5, 464.0, 61440.0, 448.0, 480.0, 57344.0, 65504.0, 65520.0,
                                5.0, 0.25, 7.5, 7.75, 28.0, 30.0, 6.0, 7.0, 3.5, 0.75, 0.125,
                                -431.99999999999994, 449.0, 465.0, 1.0 / 3.0};
    const unsigned nsp = (unsigned)(sizeof sp / sizeof sp[0]);
    unsigned k = i % (nsp + 12);
    double v;
    if (k < nsp)
        v = sp[k];
    else
        switch (k - nsp) {
        case 0: v = INFINITY; break;
        case 1: v = NAN; break;
        case 2: v = FLT_MAX; break;
        case 3: v = DBL_MAX; break;
        case 4: v = FLT_MIN; break;
        case 5: v = DBL_MIN; break;
        case 6: v = ldexp(1.0, -149); break;
        case 7: v = ldexp(1.0, -1074); break;
        case 8: v = ldexp(1.0, -127); break;
        case 9: v = ldexp(1.0, 127); break;
        case 10: v = ldexp(1.5, 127); break;
        default: v = ldexp(1.0, 128); break;
        }
    return (i & 0x80) ? -v : v;
}

static inline double fz_nudge(double v, int k, int f32)
{
    double dir = k < 0 ? -INFINITY : INFINITY;
    int n = k < 0 ? -k : k;
    for (; n > 0; n--)
        v = f32 ? (double)nextafterf((float)v, (float)dir) : nextafter(v, dir);
    return v;
}

static inline double fz_value(fz_reader *r, int *is_f32)
{
    uint8_t tag = fz_u8(r);
    int f32 = (tag >> 5) & 1;
    double v;
    switch (tag & 7) {
    case 1:
    case 5: *is_f32 = 1; return (double)fz_f32_from_bits(fz_u32(r));
    case 2: {
        int rf = (int)(fz_u8(r) % (REF_NFMT - 1)) + 1; /* a tabulated format */
        uint32_t sb = ref_sign_bit(rf), c = fz_u16(r) & ref_code_mask(rf), mag = c & ~sb;
        uint32_t nmag = sb ? sb : ref_code_mask(rf) + 1u; /* unsigned formats (e8m0, P3109's): every code */
        int sel = (tag >> 3) & 3;
        v = ref_decode(rf, c);
        if ((sel & 1) && mag + 1u < nmag) {
            double b = ref_decode(rf, (mag + 1u) | (c & sb));
            if (isfinite(v) && isfinite(b))
                v = v / 2 + b / 2; /* exact: both are on a grid of at most 11 significant bits */
        }
        if (f32 && fabs(v) <= FLT_MAX)
            v = (double)(float)v; /* exact: every narrow value and midpoint fits binary32 */
        if (sel & 2)
            v = fz_nudge(v, (int8_t)fz_u8(r), f32 && fabs(v) <= FLT_MAX);
        break;
    }
    case 3: v = ldexp((double)(int16_t)fz_u16(r), (int8_t)fz_u8(r)); break;
    case 4: v = fz_special(fz_u8(r)); break;
    default: *is_f32 = 0; return fz_f64_from_bits(fz_u64(r));
    }
    if (f32 && !(fabs(v) <= FLT_MAX) && !isinf(v) && !isnan(v))
        f32 = 0; /* beyond binary32: keep it as binary64 */
    if (f32 && v != (double)(float)v && !isnan(v))
        f32 = 0;
    *is_f32 = f32;
    return f32 ? (double)(float)v : v;
}

/* ---- the library under test, called with a binary32 or binary64 input ---------------------------- */
static inline uint32_t fz_from(mf_format f, double x, int is_f32, int mode, int pol, uint32_t rbits,
                               unsigned *ev)
{
    unsigned e = 0;
    uint32_t c = is_f32 ? mf_from_f32_ev(f, (float)x, fz_modes[mode], fz_policies[pol], rbits, &e)
                        : mf_from_f64_ev(f, x, fz_modes[mode], fz_policies[pol], rbits, &e);
    if (ev)
        *ev = e;
    return c;
}

#endif /* MF_FUZZ_COMMON_H */
