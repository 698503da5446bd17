/* SPDX-License-Identifier: MIT */
/* src/x86/backend_avx512.h - the AVX-512 backend's configuration (F, BW, VL, DQ, CD; 16 lanes): its
 * vocabulary and hardware hooks (avx512_hooks.h). Compiled with -mavx512f -mavx512bw -mavx512vl
 * -mavx512dq -mavx512cd -mavx2 -mf16c -mfma -mbmi2 (src/sources.cmake). */
#ifndef MF_X86_BACKEND_AVX512_H
#define MF_X86_BACKEND_AVX512_H

#include "vec_avx512.h"

#include "../simd/kernels.h"
#include "avx512_hooks.h"

#endif /* MF_X86_BACKEND_AVX512_H */
