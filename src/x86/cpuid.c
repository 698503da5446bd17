/* SPDX-License-Identifier: MIT */
/* src/x86/cpuid.c - which x86 backends this CPU and OS can run (compiled without ISA flags). */
#include "cpuid.h"

#include <cpuid.h>

static uint64_t xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

unsigned mf__x86_features(void)
{
    unsigned a, b, c, d, f = 0;
    uint64_t xcr0;
    int avx_os, zmm_os;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    if (!(c & bit_OSXSAVE) || !(c & bit_AVX))
        return 0;
    xcr0 = xgetbv0();
    avx_os = (xcr0 & 0x6) == 0x6;    /* XMM and YMM state */
    zmm_os = (xcr0 & 0xE6) == 0xE6;  /* and opmask, ZMM_Hi256, Hi16_ZMM */
    {
        int f16c = (c & bit_F16C) != 0, fma = (c & bit_FMA) != 0;
        unsigned a7, b7, c7, d7, a71 = 0, b71, c71, d71;
        if (!__get_cpuid_count(7, 0, &a7, &b7, &c7, &d7))
            return 0;
        if (a7 >= 1)
            __get_cpuid_count(7, 1, &a71, &b71, &c71, &d71);
        if (avx_os && f16c && fma && (b7 & bit_AVX2) && (b7 & bit_BMI2))
            f |= MF__X86_AVX2;
        if ((f & MF__X86_AVX2) && zmm_os && (b7 & bit_AVX512F) && (b7 & bit_AVX512BW) && (b7 & bit_AVX512VL) &&
            (b7 & bit_AVX512DQ) && (b7 & bit_AVX512CD))
            f |= MF__X86_AVX512;
        /* CPUID.(7,1):EAX[5] = AVX512_BF16; CPUID.(7,0):ECX[1] = AVX512_VBMI */
        if ((f & MF__X86_AVX512) && (a71 & (1u << 5)) && (c7 & (1u << 1)))
            f |= MF__X86_AVX512BF16;
        /* CPUID.(7,0):ECX[11] = AVX512_VNNI */
        if ((f & MF__X86_AVX512) && (c7 & (1u << 11)))
            f |= MF__X86_AVX512VNNI;
    }
    return f;
}
