/* SPDX-License-Identifier: MIT */
/* src/vmath.h - binary32 exp, tanh and erf over arrays, and a binary64 log1p, for the elementwise
 * operations (src/lab/elementwise.c). The only file in the project that includes <sleef.h>.
 *
 * With SLEEF (MF_HAVE_SLEEF, version 3.4 or later) on x86-64 the functions are SLEEF's deterministic
 * ("cinz": no FMA, consistent) SSE2 variants, u10 (1.0 ULP) accuracy:
 *   - one fixed ISA, the x86-64 baseline, so every x86-64 CPU runs the same instructions. SLEEF's
 *     dispatching entry points (Sleef_expf4_u10, ...) pick SSE2, SSE4.1 or AVX2+FMA code at run time, and
 *     the FMA variants give other bits (SLEEF 3.5.1, every binary32 input: the FMA "finz" functions
 *     differ from these on 1,886,213 inputs for exp, 976 for tanh, 15,877,498 for erf; docs/overflow.md);
 *   - cinz rather than finz (the FMA family): finz needs FMA hardware, cinz runs everywhere, and SLEEF
 *     gives the cinz functions the same bits on every ISA (sse2 = avx = avx512fnofma = purec, checked
 *     on every binary32 input), so a wider variant could replace SSE2 later without changing a bit;
 *   - SSE2 rather than the wider cinz variants because <sleef.h> declares AVX/AVX-512 functions only to
 *     code compiled with those ISAs enabled, and they are a fast path the lab does not need.
 * SLEEF's results depend on MXCSR (rounding mode, FTZ, DAZ); the caller (elementwise.c) runs these in
 * the default environment.
 *
 * Without SLEEF, or on other CPU families, the C library's binary64 exp, tanh, erf and log1p are used, each
 * result rounded to binary32 (MF__VM_NAME "libm"): deterministic for one C library on one CPU family, not
 * across them.
 */
#ifndef MF_SRC_VMATH_H
#define MF_SRC_VMATH_H

#include <math.h>
#include <stddef.h>
#include <string.h>

#if defined(MF_HAVE_SLEEF) && (defined(__x86_64__) || defined(_M_X64))
#include <sleef.h>
#if SLEEF_VERSION_MAJOR > 3 || (SLEEF_VERSION_MAJOR == 3 && SLEEF_VERSION_MINOR >= 4)
#define MF__VM_SLEEF 1
#endif
#endif

#ifdef MF__VM_SLEEF
#include <emmintrin.h>

#define MF__VM_STR2(x) #x
#define MF__VM_STR(x) MF__VM_STR2(x)
#define MF__VM_NAME                                                                                                \
    "sleef " MF__VM_STR(SLEEF_VERSION_MAJOR) "." MF__VM_STR(SLEEF_VERSION_MINOR) "." MF__VM_STR(                    \
        SLEEF_VERSION_PATCHLEVEL) " cinz sse2 u10"

/* y[i] = F(x[i]) for i < n, four lanes at a time; the last n mod 4 go through a zero-padded vector.
 * y may equal x. */
#define MF__VM_ARRAY(name, F)                                                                                     \
    static void name(float *y, const float *x, size_t n)                                                          \
    {                                                                                                             \
        size_t i = 0;                                                                                             \
        for (; i + 4 <= n; i += 4)                                                                                \
            _mm_storeu_ps(y + i, F(_mm_loadu_ps(x + i)));                                                         \
        if (i < n) {                                                                                              \
            float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};                                                                \
            memcpy(t, x + i, (n - i) * sizeof(float));                                                            \
            _mm_storeu_ps(t, F(_mm_loadu_ps(t)));                                                                 \
            memcpy(y + i, t, (n - i) * sizeof(float));                                                            \
        }                                                                                                         \
    }

MF__VM_ARRAY(mf__vm_exp, Sleef_cinz_expf4_u10sse2)
MF__VM_ARRAY(mf__vm_tanh, Sleef_cinz_tanhf4_u10sse2)
MF__VM_ARRAY(mf__vm_erf, Sleef_cinz_erff4_u10sse2)

/* log1p(x) in binary64 (SLEEF's deterministic 1.0-ULP function, one lane). */
static double mf__vm_log1p(double x)
{
    double r[2];
    _mm_storeu_pd(r, Sleef_cinz_log1pd2_u10sse2(_mm_set1_pd(x)));
    return r[0];
}

#else /* the C library */

#define MF__VM_NAME "libm"

/* The binary64 functions, rounded once to binary32: within 0.5 ULP and a hair (glibc's tanhf is up to
 * 2.2 ULP off, its expf and erff are about 0.5 and 1). */
#define MF__VM_ARRAY(name, F)                                                                                     \
    static void name(float *y, const float *x, size_t n)                                                          \
    {                                                                                                             \
        size_t i;                                                                                                 \
        for (i = 0; i < n; i++)                                                                                   \
            y[i] = (float)F((double)x[i]);                                                                        \
    }

MF__VM_ARRAY(mf__vm_exp, exp)
MF__VM_ARRAY(mf__vm_tanh, tanh)
MF__VM_ARRAY(mf__vm_erf, erf)

static double mf__vm_log1p(double x) { return log1p(x); }

#endif

#undef MF__VM_ARRAY

#endif /* MF_SRC_VMATH_H */
