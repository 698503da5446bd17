/* SPDX-License-Identifier: MIT */
/* minifloat/fp6.h - OCP MX FP6: E2M3 and E3M2, one code in the low 6 bits of a byte.
 *
 *   e2m3:  S EE MMM   bias 1, max 7.5 (0x1F), min subnormal 0.125
 *   e3m2:  S EEE MM   bias 3, max 28  (0x1F), min subnormal 0.0625
 *
 * No inf and no NaN: overflow and inf give +-max under either policy, NaN gives +max.
 * Defines, for tag in e2m3 e3m2: mf_<tag>_from_bits, mf_<tag>_bits, mf_<tag>_to_f32,
 * mf_<tag>_to_f64 and the rounding family (see detail/named.h).
 */
#ifndef MINIFLOAT_FP6_H
#define MINIFLOAT_FP6_H

#include "detail/named.h" /* the functions of every format, this family's among them */

#endif /* MINIFLOAT_FP6_H */
