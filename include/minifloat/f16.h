/* SPDX-License-Identifier: MIT */
/* minifloat/f16.h - IEEE binary16 (1-5-10, bias 15, max 65504, +-inf, NaN).
 *
 *   S EEEEE MMMMMMMMMM
 *
 * Defines mf_f16_from_bits, mf_f16_bits, mf_f16_to_f32, mf_f16_to_f64 and the rounding family
 * mf_f32_to_f16_<rnd>[_sat], mf_f64_to_f16_<rnd>[_sat] (see detail/named.h for the full list).
 */
#ifndef MINIFLOAT_F16_H
#define MINIFLOAT_F16_H

#include "detail/named.h" /* the functions of every format, this family's among them */

#endif /* MINIFLOAT_F16_H */
