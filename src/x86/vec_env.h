/* SPDX-License-Identifier: MIT */
/* src/x86/vec_env.h - the binary32 environment for the x86 vocabularies (vec_avx2.h, vec_avx512.h):
 * MXCSR, and the prefetch and store fence that the paths (src/simd/path_*.h) use.
 *
 * bk_blocked (src/simd/path_blocked.h) writes (csr & ~V_CSR_OWN) | V_CSR_BASE | <rounding>: no DAZ, no FTZ, every exception masked,
 * the rounding control as named; the sticky flags (bits 0..5) are the caller's and are left alone. */
#ifndef MF_X86_VEC_ENV_H
#define MF_X86_VEC_ENV_H

#include <immintrin.h>

#define V_CSR_OWN 0xFFC0u  /* DAZ, the six exception masks, RC, FTZ */
#define V_CSR_BASE 0x1F80u /* exceptions masked, rn, no DAZ or FTZ */
#define V_CSR_RN 0x0000u
#define V_CSR_RD 0x2000u
#define V_CSR_RU 0x4000u
#define V_CSR_RZ 0x6000u

__attribute__((always_inline)) static inline unsigned v_csr_get(void) { return _mm_getcsr(); }
__attribute__((always_inline)) static inline void v_csr_set(unsigned c) { _mm_setcsr(c); }
__attribute__((always_inline)) static inline void v_prefetch(const void *p) { _mm_prefetch((const char *)p, _MM_HINT_T0); }
/* orders non-temporal stores before the caller's */
__attribute__((always_inline)) static inline void v_stream_fence(void) { _mm_sfence(); }

#endif /* MF_X86_VEC_ENV_H */
