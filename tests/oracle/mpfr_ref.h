/* SPDX-License-Identifier: MIT */
/* tests/oracle/mpfr_ref.h - an MPFR oracle for rounding a double into any minifloat format.
 *
 * A format with m mantissa bits is emulated by precision m+1, mpfr_set_emin (the smallest
 * subnormal) and mpfr_subnormalize, with the exponent unbounded above (emax at its maximum), so a
 * rounded magnitude beyond max is seen as such and the overflow rules are applied afterwards.
 * Modes: rn MPFR_RNDN, rz MPFR_RNDZ, ru/rd MPFR_RNDU/RNDD, rna emulated (MPFR 4 does not support
 * MPFR_RNDNA: ties detected as 2|x| = rz + ra), ro = RNDZ then the last bit set if inexact, sr with
 * the fraction computed exactly in MPFR. e8m0 is precision 1 with emin at 2^-127 (its rn ties go up,
 * i.e. rna). Format enums are ref_format (ref.h); the facts below are written out separately.
 */
#ifndef MF_ORACLE_MPFR_REF_H
#define MF_ORACLE_MPFR_REF_H

#include <stdint.h>

#include "oracle/ref.h"

/* Round x into fmt (mode a ref_mode; saturate 0 IEEE / SatNone, 1 saturating / SatFinite, 2 SatPropagate: as 1 but
 * an infinite x keeps the format's infinity); returns the code. *overflow (may be NULL)
 * receives 1 when the rounded magnitude of a finite x exceeds max. */
uint32_t mpfr_ref_round(ref_format fmt, double x, int mode, int saturate, uint32_t rbits, int *overflow);

/* This oracle's own statement of a format (written apart from ref.c's), for tests/test_formats.c. */
typedef struct {
    int man, bias;     /* mantissa bits, exponent bias */
    double max;        /* largest finite value */
    uint32_t max_code, sign_bit, inf_code, nan_code;
    int has_inf, is_signed, fnuz;
} mpfr_ref_format;

/* The facts of fmt; 0 for a value out of range. */
int mpfr_ref_format_facts(ref_format fmt, mpfr_ref_format *out);

#endif /* MF_ORACLE_MPFR_REF_H */
