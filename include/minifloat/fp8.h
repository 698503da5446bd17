/* SPDX-License-Identifier: MIT */
/* minifloat/fp8.h - FP8: OCP E4M3 and E5M2, the fnuz variants, the IEEE-style E4M3 and E3M4.
 *
 *   e4m3:         S EEEE MMM   bias 7,  max 448 (0x7E), no inf, NaN = S.1111.111 only ("fn" variant)
 *   e5m2:         S EEEEE MM   bias 15, max 57344 (0x7B), +-inf (0x7C), NaN (0x7D..0x7F)
 *   e4m3fnuz:     S EEEE MMM   bias 8,  max 240 (0x7F), no inf, no -0: NaN = 0x80 only
 *   e5m2fnuz:     S EEEEE MM   bias 16, max 57344 (0x7F), no inf, no -0: NaN = 0x80 only
 *   e4m3b11fnuz:  S EEEE MMM   bias 11, max 30 (0x7F), no inf, no -0: NaN = 0x80 only
 *   e4m3ieee:     S EEEE MMM   bias 7,  max 240 (0x77), +-inf (0x78), NaN (0x79..0x7F)
 *   e3m4:         S EEE MMMM   bias 3,  max 15.5 (0x6F), +-inf (0x70), NaN (0x71..0x7F)
 *
 * Defines, for each tag: mf_<tag>_from_bits, mf_<tag>_bits, mf_<tag>_to_f32,
 * mf_<tag>_to_f64 and the rounding family mf_f32_to_<tag>_<rnd>[_sat], mf_f64_to_<tag>_<rnd>[_sat]
 * (see detail/named.h). With IEEE overflow an e4m3 overflow under rn/rna/sr gives NaN (0x7F), an fnuz
 * one NaN (0x80).
 */
#ifndef MINIFLOAT_FP8_H
#define MINIFLOAT_FP8_H

#include "detail/named.h" /* the functions of every format, this family's among them */

#endif /* MINIFLOAT_FP8_H */
