/* SPDX-License-Identifier: MIT */
/* tests/oracle/ref.h - a slow textbook reference for rounding into every minifloat format.
 *
 * Written only from the semantics in docs/formats.md and docs/rounding.md; shares no code with src/ or
 * include/minifloat/detail/. Each format's finite non-negative values are tabulated with ldexp
 * (code = index, since positive codes increase with value); a double input is placed between its
 * neighbours lo <= |x| < hi by binary search (hi may be the virtual value one code above max) and
 * each mode's rule is applied by exact comparisons. For an f32 target the neighbours come from
 * nextafterf instead of a table. Its enums are its own; tests pair its formats with the library's by
 * name (ref_format_named), and tests/test_formats.c compares their facts.
 */
#ifndef MF_ORACLE_REF_H
#define MF_ORACLE_REF_H

#include <stdint.h>

typedef enum {
    REF_F32,
    REF_F16,
    REF_BF16,
    REF_E4M3,
    REF_E5M2,
    REF_E2M3,
    REF_E3M2,
    REF_E2M1,
    REF_E8M0,
    REF_E4M3FNUZ,    /* NaN = 0x80 only, no inf, no -0 (docs/formats.md, "The FNUZ formats ...") */
    REF_E5M2FNUZ,
    REF_E4M3B11FNUZ,
    REF_E4M3IEEE,    /* IEEE-style, like e5m2 */
    REF_E3M4,
    /* IEEE P3109 (docs/formats.md, "IEEE P3109"): K bits, precision P, signed or unsigned, extended or finite */
    REF_BINARY8P1SE,
    REF_BINARY8P1SF,
    REF_BINARY8P2SE,
    REF_BINARY8P2SF,
    REF_BINARY8P3SE,
    REF_BINARY8P3SF,
    REF_BINARY8P4SE,
    REF_BINARY8P4SF,
    REF_BINARY8P5SE,
    REF_BINARY8P5SF,
    REF_BINARY8P6SE,
    REF_BINARY8P6SF,
    REF_BINARY8P7SE,
    REF_BINARY8P7SF,
    REF_BINARY8P1UE,
    REF_BINARY8P1UF,
    REF_BINARY8P2UE,
    REF_BINARY8P2UF,
    REF_BINARY8P3UE,
    REF_BINARY8P3UF,
    REF_BINARY8P4UE,
    REF_BINARY8P4UF,
    REF_BINARY8P5UE,
    REF_BINARY8P5UF,
    REF_BINARY8P6UE,
    REF_BINARY8P6UF,
    REF_BINARY8P7UE,
    REF_BINARY8P7UF,
    REF_BINARY8P8UE,
    REF_BINARY8P8UF,
    REF_BINARY4P2SF,
    REF_NFORMATS
} ref_format;

typedef enum { REF_RN, REF_RNA, REF_RZ, REF_RU, REF_RD, REF_RO, REF_SR, REF_NMODES } ref_mode;

/* Facts of a format, written from the format table. */
typedef struct {
    const char *name;
    int bits;          /* storage width */
    int exp_bits;      /* exponent field width */
    int man_bits;      /* explicit mantissa bits */
    int bias;
    int has_inf;
    int has_nan;
    int is_signed;     /* 0 for e8m0 */
    uint32_t max_code; /* code of +max */
    uint32_t sign_bit; /* 0 for e8m0 */
    uint32_t inf_code; /* +inf; 0 where none */
    uint32_t nan_code; /* NaN produced by conversions (+max for FP6/FP4) */
    int fnuz;          /* 1: the code of -0 (sign bit alone) is the one NaN; there is no -0, and a
                          result of zero is +0 whatever the sign (e4m3fnuz, e5m2fnuz, e4m3b11fnuz,
                          the signed P3109 formats) */
    int p3109;         /* 1: a P3109 format: the report's projection (round, then SatNone or SatFinite) */
} ref_info;

const ref_info *ref_format_info(ref_format fmt);

/* The format of this name (the library's tag: names are all the oracle shares with it), or REF_NFORMATS. */
ref_format ref_format_named(const char *name);

/* What happened in a conversion, derived from the reference's own path. */
typedef struct {
    int overflow;  /* finite input whose rounded magnitude exceeds max, or inf that did not stay inf */
    int underflow; /* nonzero finite input, zero output */
    int subnormal; /* nonzero subnormal output */
    int nan;       /* NaN input */
    int inexact;   /* output value differs from the input (NaN inputs excluded) */
} ref_events;

/* Round x into fmt; returns the code. saturate: 0 IEEE, 1 SATURATE (for P3109 formats: SatNone and
 * SatFinite). rbits is read by REF_SR only. ev may be NULL. */
uint32_t ref_round(ref_format fmt, double x, int mode, int saturate, uint32_t rbits, ref_events *ev);

/* The exact value of a code (NaN for NaN codes, +-inf for inf codes). */
double ref_decode(ref_format fmt, uint32_t code);

/* Number of finite non-negative codes (0..max_code), i.e. max_code + 1 (255 for e8m0). */
uint32_t ref_count_finite(ref_format fmt);

/* Neighbours of a finite magnitude a >= 0: lo <= a < hi, hi possibly the virtual value one code
 * above max (returns 0 and leaves lo/hi when a is at or beyond that virtual value, or below the
 * smallest value for e8m0). Codes of lo and hi returned too. */
int ref_neighbours(ref_format fmt, double a, double *lo, double *hi, uint32_t *lo_code, uint32_t *hi_code);

/* The stochastic fraction f * 2^32 (f truncated to 32 bits) of a finite magnitude a strictly between
 * its neighbours; 0 when a is a value of the format or out of the neighbour range. */
uint32_t ref_sr_fraction(ref_format fmt, double a);

#endif /* MF_ORACLE_REF_H */
