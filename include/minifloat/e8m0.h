/* SPDX-License-Identifier: MIT */
/* minifloat/e8m0.h - OCP MX E8M0 scale: an unsigned 8-bit exponent, value 2^(code-127).
 *
 *   EEEEEEEE    0x00 = 2^-127, 0x7F = 1, 0xFE = 2^127, 0xFF = NaN; no zero, no sign, no inf
 *
 * Conversion reads |x|. rz gives 2^floor(log2|x|), ru 2^ceil(log2|x|), as NVIDIA's
 * __nv_cvt_float_to_e8m0; rn rounds in the linear domain (1.5 -> 2^1; a tie goes up, since both
 * neighbours have the same one-bit significand). Zero and magnitudes below 2^-127 give 0x00
 * (2^-127), in every mode. Overflow gives 0xFE saturating and 0xFF (NaN) IEEE where the mode rounds
 * up; NaN gives 0xFF.
 * Defines mf_e8m0_from_bits, mf_e8m0_bits, mf_e8m0_to_f32, mf_e8m0_to_f64 and the rounding family
 * (see detail/named.h).
 */
#ifndef MINIFLOAT_E8M0_H
#define MINIFLOAT_E8M0_H

#include "detail/named.h" /* the functions of every format, this family's among them */

#endif /* MINIFLOAT_E8M0_H */
