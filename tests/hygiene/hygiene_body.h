/* SPDX-License-Identifier: MIT */
/* tests/hygiene/hygiene_body.h - a few hand-checked conversions through the public header only, compiled
 * as C99, C11, C++11, C++17 and CUDA with warnings as errors. Each expected code is derived in its
 * comment; no library is linked (the inline scalars are header-only). The overflow lab's header
 * (<minifloat/lab.h>, declarations only) is compiled along with it, and its types used, and so is the CUDA
 * library's (<minifloat/cuda.h>, declarations only: nothing is called, no library is linked). */
#ifndef MF_HYGIENE_BODY_H
#define MF_HYGIENE_BODY_H

#include <minifloat.h>
#include <minifloat/cuda.h>
#include <minifloat/lab.h>

MF_HD MF_INLINE int mf_hygiene_failures(void)
{
    int bad = 0;
    mf_philox4x32 zero = {{0u, 0u, 0u, 0u}};
    mf_unary_op op = MF_UNARY_GELU_TANH;
    mf_memory_part part = MF_MEMORY_PART_GATHER;
    /* e4m3 neighbours of 3.3 are 3.25 (0x45) and 3.5 (0x46); 3.3 is nearer 3.25 */
    bad += mf_e4m3_bits(mf_f32_to_e4m3_rn_sat(3.3f)) != 0x45u;
    /* 464 is the midpoint of 448 (0x7E, even) and the virtual 480: ties to even */
    bad += mf_e4m3_bits(mf_f32_to_e4m3_rn(464.0f)) != 0x7Eu;
    /* 61440 is the midpoint of 57344 (0x7B, odd) and 65536 (even): overflows to inf under rn */
    bad += mf_e5m2_bits(mf_f32_to_e5m2_rn(61440.0f)) != 0x7Cu;
    /* e2m1: 5 lies between 4 (0x6, even) and 6 (0x7): a tie, to even */
    bad += mf_e2m1_bits(mf_f32_to_e2m1_rn(5.0f)) != 0x6u;
    /* one rounding from f64: -431.99999999999994 is below the midpoint -432 of -416 and -448 */
    bad += mf_from_f64(MF_FP8_E4M3, -431.99999999999994, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0u) != 0xFDu;
    /* e8m0 rounds in the linear domain: 1.5 is the midpoint of 1 and 2, ties go up */
    bad += mf_e8m0_to_f32(mf_f32_to_e8m0_rn(1.5f)) != 2.0f;
    bad += mf_f16_to_f32(mf_f32_to_f16_rn(1.0f)) != 1.0f;
    bad += mf_to_f32(MF_BF16, 0x3F80u) != 1.0f;
    bad += mf_to_f64(MF_FP6_E2M3, 0x1Fu) != 7.5;
    /* P3109 arithmetic: binary8p4se 1 (0x40) * 1 + 1 = 2 (0x48) */
    bad += mf_p3109_fma(MF_BINARY8P4SE, 0x40u, 0x40u, 0x40u, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0u) != 0x48u;
    /* Random123 known answer for Philox4x32-10, counter 0 key 0 */
    bad += mf_philox4x32_10(zero, 0u, 0u).v[0] != 0x6627e8d5u;
    /* the lab's enumeration: six operations, the last one gelu_tanh */
    bad += (int)op != MF_UNARY_COUNT - 1;
    bad += (int)part != MF_MEMORY_PART_COUNT - 1;
    return bad;
}

#endif /* MF_HYGIENE_BODY_H */
