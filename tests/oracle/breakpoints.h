/* SPDX-License-Identifier: MIT */
/* tests/oracle/breakpoints.h - a rounding oracle for binary32 inputs, built from decision boundaries.
 *
 * Written from the format table and rounding rules of docs/formats.md and docs/rounding.md, sharing no code
 * with the library: each format's finite values come from the textbook formula (ldexp of the
 * fields), and the rounding of a magnitude is a search among those values. Since the result only
 * changes at a decision boundary (a representable value for directed modes, a midpoint for nearest
 * modes, the virtual value above max for overflow), one table of boundaries per (format, mode,
 * policy, sign) answers every binary32 input of that sign: walking |x| bit patterns upwards, the
 * expected code changes only where the next boundary is passed.
 */
#ifndef MF_ORACLE_BREAKPOINTS_H
#define MF_ORACLE_BREAKPOINTS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How a format treats its top codes. */
enum {
    MFO_KIND_IEEE, /* exponent field all ones: inf (mantissa 0) or NaN */
    MFO_KIND_FN,   /* no inf; only S.1...1 (all exponent and mantissa bits) is NaN (e4m3) */
    MFO_KIND_NONE, /* no inf, no NaN: every code is finite (FP6, FP4) */
    MFO_KIND_E8M0, /* unsigned 2^(code-127), 0xFF NaN, no zero */
    MFO_KIND_FNUZ, /* every magnitude finite; the sign bit alone (the -0 code) is the one NaN: no inf,
                      no -0, a zero result is +0 (e4m3fnuz, e5m2fnuz, e4m3b11fnuz) */
    /* IEEE P3109 (interim report 3.1, 4.7): one zero, one NaN; SatNone / SatFinite as the policies */
    MFO_KIND_P3109SE, /* signed extended: NaN = the sign bit alone, +-inf = the all-ones magnitude */
    MFO_KIND_P3109SF, /* signed finite: NaN = the sign bit alone */
    MFO_KIND_P3109UE, /* unsigned extended: NaN = all ones, +inf = all ones - 1 */
    MFO_KIND_P3109UF  /* unsigned finite: NaN = all ones */
};

/* One format, as in the table of the semantics. */
typedef struct mfo_fmt {
    const char *tag; /* "f16", "bf16", "e4m3", "e5m2", "e2m3", "e3m2", "e2m1", "e8m0", "e4m3fnuz",
                        "e5m2fnuz", "e4m3b11fnuz", "e4m3ieee", "e3m4", "binary8p4se", ... */
    int bits;        /* storage width */
    int ebits;       /* exponent field width */
    int mbits;       /* mantissa field width */
    int bias;
    int kind; /* MFO_KIND_* */
} mfo_fmt;

/* The format with this tag, or NULL; the i-th format of the table, or NULL past its end. */
const mfo_fmt *mfo_format(const char *tag);
const mfo_fmt *mfo_format_at(size_t i);

/* Rounding modes the oracle knows (on the signed value; e8m0 rounds |x|: rd is rz there). MFO_RO, round to odd:
 * an inexact magnitude goes to whichever neighbour has an odd code (at P = 1 the code is the exponent field, so
 * the report's CodeIsEven is the code's parity too); an overflow gives +-max in the formats outside P3109 (as rz)
 * and, in P3109's, what SatNone gives any rounding not toward the range. Not for e8m0. */
typedef enum { MFO_RN, MFO_RNA, MFO_RZ, MFO_RU, MFO_RD, MFO_RO } mfo_mode;

/* Largest finite magnitude code (codes 0..max are ordered like their values). */
uint32_t mfo_max_code(const mfo_fmt *f);

/* Value of magnitude code c by the textbook formula, with an unbounded exponent: c = max + 1 gives
 * the virtual value just above max (e4m3: 480, f16: 65536, e8m0: 2^128). */
double mfo_mag_value(const mfo_fmt *f, uint32_t c);

/* Sign bit of the storage width (0 for e8m0 and the unsigned P3109 formats). */
uint32_t mfo_sign_bit(const mfo_fmt *f);

/* Codes of the specials the conversions produce, from the semantics. */
uint32_t mfo_nan_result(const mfo_fmt *f);                             /* NaN input */
/* saturate: 0 the IEEE policy (P3109 SatNone), 1 saturation (SatFinite), 2 SatPropagate (as 1 but for infinite inputs,
 * which keep an infinity the format has) */
uint32_t mfo_inf_result(const mfo_fmt *f, int negative, int saturate); /* +-inf input */
/* A finite input whose rounded magnitude exceeds max. */
uint32_t mfo_overflow_result(const mfo_fmt *f, mfo_mode m, int negative, int saturate);

/* Expected outputs for all binary32 inputs of one sign: inputs whose magnitude bits u satisfy
 * start[k] <= u < start[k + 1] give code[k]. start[0] = 0 and start[n] = 0x80000000 (a sentinel),
 * so the table covers zero, finite values, inf (0x7F800000) and the NaNs. */
typedef struct mfo_bp {
    size_t n;
    uint32_t *start; /* n + 1 entries, strictly increasing */
    uint32_t *code;  /* n entries: full output codes, sign included */
} mfo_bp;

/* Build the table; 0 on success, -1 on allocation failure or an internal inconsistency. */
int mfo_bp_build(mfo_bp *t, const mfo_fmt *f, mfo_mode m, int saturate, int negative);
void mfo_bp_free(mfo_bp *t);

/* The expected code for one input's bits (binary search; the table must have the input's sign). */
uint32_t mfo_bp_lookup(const mfo_bp *t, uint32_t f32_bits);

/* Slow independent reference for one input (any finite or special double): nearest-value search
 * over the format's value list. Used to cross-check the tables. */
uint32_t mfo_round_slow(const mfo_fmt *f, mfo_mode m, int saturate, double x);

/* ---- P3109's stochastic roundings (interim report 4.7.4), for the P3109 formats ----
 * With lo <= |x| < hi the neighbouring grid values (the unbounded exponent above max), nu = (|x| - lo)/(hi - lo) and
 * s = nu 2^n (exact in a double for a binary32 x: hi - lo is a power of two), the magnitude goes to hi iff
 *   A: floor(s) + R >= 2^n      B: floor(2s) + 2R + 1 >= 2^(n+1)      C: RNE(s) + R >= 2^n
 * for the n random bits R. Each is R >= T for a threshold T in [0, 2^n] (2^n: never up). */
typedef enum { MFO_SR_A, MFO_SR_B, MFO_SR_C } mfo_sr_kind;
uint64_t mfo_sr_threshold(mfo_sr_kind kind, int n, double s);

/* The full code for magnitude grid index j (j = max + 1 or more: an overflow), as a rounding in mode m gives it, the
 * sign and policy applied; mode MFO_RO stands for every rounding not toward the range (ro and the stochastic ones). */
uint32_t mfo_mag_code(const mfo_fmt *f, mfo_mode m, int saturate, int negative, uint32_t j);

/* Slow reference for one stochastic rounding of x (any double) with the n random bits r (n = 1 ... 31). */
uint32_t mfo_round_sr_slow(const mfo_fmt *f, mfo_sr_kind kind, int n, uint64_t r, int saturate, double x);

#ifdef __cplusplus
}
#endif

#endif /* MF_ORACLE_BREAKPOINTS_H */
