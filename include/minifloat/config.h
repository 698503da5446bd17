/* SPDX-License-Identifier: MIT */
/* minifloat/config.h - compiler and language glue shared by every public header.
 *
 * MF_HD      marks inline functions usable in host and device code (nvcc, clang -x cuda).
 * MF_INLINE  the linkage of header-only functions: `static inline`.
 * MF_FORCE_INLINE  the same, always inlined where the compiler allows it.
 * MF_API     visibility of the compiled library's symbols (shared or static build).
 * MF_BEGIN_DECLS / MF_END_DECLS  extern "C" guards for C++.
 */
#ifndef MINIFLOAT_CONFIG_H
#define MINIFLOAT_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define MF_HD __host__ __device__
#else
#define MF_HD
#endif

#if defined(__cplusplus) || (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L)
#define MF_INLINE static inline
#elif defined(__GNUC__)
#define MF_INLINE static __inline__
#else
#define MF_INLINE static
#endif

/* MF_FORCE_INLINE: header-only functions that must fold to constants wherever they are inlined (a
 * format's facts: in the SIMD backends' large functions, GCC otherwise kept some as calls per vector). */
#if defined(__GNUC__)
#define MF_FORCE_INLINE MF_INLINE __attribute__((always_inline))
#else
#define MF_FORCE_INLINE MF_INLINE
#endif

/* MF_STATIC_DEFINE is set when building or consuming the static library. */
#if defined(MF_STATIC_DEFINE)
#define MF_API
#elif defined(_WIN32)
#if defined(MF_BUILDING_LIBRARY)
#define MF_API __declspec(dllexport)
#else
#define MF_API __declspec(dllimport)
#endif
#elif defined(__GNUC__) && __GNUC__ >= 4
#define MF_API __attribute__((visibility("default")))
#else
#define MF_API
#endif

#ifdef __cplusplus
#define MF_BEGIN_DECLS extern "C" {
#define MF_END_DECLS }
#else
#define MF_BEGIN_DECLS
#define MF_END_DECLS
#endif

#define MF_VERSION_MAJOR 0
#define MF_VERSION_MINOR 1
#define MF_VERSION_PATCH 0
#define MF_VERSION_STRING "0.1.0"

#endif /* MINIFLOAT_CONFIG_H */
