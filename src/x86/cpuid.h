/* SPDX-License-Identifier: MIT */
/* src/x86/cpuid.h - x86 feature bits the dispatcher needs. */
#ifndef MF_X86_CPUID_H
#define MF_X86_CPUID_H

#include <stdint.h>

enum {
    MF__X86_AVX2 = 1,      /* AVX2, F16C, FMA, BMI2, and the OS saves YMM */
    MF__X86_AVX512 = 2,    /* AVX-512 F, BW, VL, DQ, CD, and the OS saves ZMM */
    MF__X86_AVX512BF16 = 4, /* AVX512_BF16 and AVX512_VBMI (Zen 4 on, Sapphire Rapids on; not Cooper Lake) */
    MF__X86_AVX512VNNI = 8  /* AVX512_VNNI (Cascade Lake on, Zen 4 on): MF_ACCUM_EXACT's integer kernels */
};

unsigned mf__x86_features(void);

#endif /* MF_X86_CPUID_H */
