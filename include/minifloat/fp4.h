/* SPDX-License-Identifier: MIT */
/* minifloat/fp4.h - OCP MX FP4 E2M1, one code in the low 4 bits of a byte, or two per byte.
 *
 *   e2m1:  S EE M   bias 1; values 0 0.5 1 1.5 2 3 4 6 and their negatives
 *
 * No inf and no NaN: overflow and inf give +-max (6) under either policy, NaN gives +6.
 * Defines mf_e2m1_from_bits, mf_e2m1_bits, mf_e2m1_to_f32, mf_e2m1_to_f64 and the rounding family
 * (see detail/named.h), plus the packed pair mf_e2m1x2_t: element 0 in bits 0..3, element 1 in
 * bits 4..7, the layout of mf_convert's e2m1 arrays and of OCP MX / NVFP4 tensors.
 */
#ifndef MINIFLOAT_FP4_H
#define MINIFLOAT_FP4_H

#include "detail/named.h"

MF_BEGIN_DECLS

/* Pack two e2m1 values: lo becomes element 0 (bits 0..3), hi element 1 (bits 4..7). */
MF_HD MF_INLINE mf_e2m1x2_t mf_e2m1x2_pack(mf_e2m1_t lo, mf_e2m1_t hi)
{
    mf_e2m1x2_t p;
    p.bits = (uint8_t)((lo.bits & 0xFu) | ((hi.bits & 0xFu) << 4));
    return p;
}

/* Element 0 (bits 0..3) of a packed pair. */
MF_HD MF_INLINE mf_e2m1_t mf_e2m1x2_lo(mf_e2m1x2_t p) { return mf_e2m1_from_bits((uint8_t)(p.bits & 0xFu)); }

/* Element 1 (bits 4..7) of a packed pair. */
MF_HD MF_INLINE mf_e2m1_t mf_e2m1x2_hi(mf_e2m1x2_t p) { return mf_e2m1_from_bits((uint8_t)(p.bits >> 4)); }
MF_END_DECLS

#endif /* MINIFLOAT_FP4_H */
