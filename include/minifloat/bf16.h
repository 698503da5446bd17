/* SPDX-License-Identifier: MIT */
/* minifloat/bf16.h - bfloat16 (1-8-7, bias 127, max 0x1.FEp+127 ~ 3.39e38, +-inf, NaN).
 *
 *   S EEEEEEEE MMMMMMM        the top half of a binary32
 *
 * Defines mf_bf16_from_bits, mf_bf16_bits, mf_bf16_to_f32, mf_bf16_to_f64 and the rounding family
 * mf_f32_to_bf16_<rnd>[_sat], mf_f64_to_bf16_<rnd>[_sat] (see detail/named.h for the full list).
 * Subnormal inputs and results are kept (not flushed), unlike some hardware conversions.
 */
#ifndef MINIFLOAT_BF16_H
#define MINIFLOAT_BF16_H

#include "detail/named.h" /* the functions of every format, this family's among them */

#endif /* MINIFLOAT_BF16_H */
