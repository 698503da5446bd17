/* SPDX-License-Identifier: MIT */
/* minifloat/fp8.h - OCP FP8: E4M3 and E5M2.
 *
 *   e4m3:  S EEEE MMM   bias 7,  max 448 (0x7E), no inf, NaN = S.1111.111 only ("fn" variant)
 *   e5m2:  S EEEEE MM   bias 15, max 57344 (0x7B), +-inf (0x7C), NaN (0x7D..0x7F)
 *
 * Defines, for tag in e4m3 e5m2: mf_<tag>_from_bits, mf_<tag>_bits, mf_<tag>_to_f32,
 * mf_<tag>_to_f64 and the rounding family mf_f32_to_<tag>_<rnd>[_sat], mf_f64_to_<tag>_<rnd>[_sat]
 * (see detail/named.h). With IEEE overflow an e4m3 overflow under rn/rna/sr gives NaN (0x7F).
 */
#ifndef MINIFLOAT_FP8_H
#define MINIFLOAT_FP8_H

#include "detail/named.h"

MF_BEGIN_DECLS
MF__NAMED(e4m3, mf_e4m3_t, uint8_t, MF_FP8_E4M3)
MF__NAMED(e5m2, mf_e5m2_t, uint8_t, MF_FP8_E5M2)
MF_END_DECLS

#endif /* MINIFLOAT_FP8_H */
