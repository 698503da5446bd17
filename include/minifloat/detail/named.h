/* SPDX-License-Identifier: MIT */
/* minifloat/detail/named.h - the typed, named scalar functions of every format (private), made from
 * the rows of minifloat/formats.inc that have a storage struct (all but f32 and f64).
 *
 * For a format tag (say e4m3, storage type mf_e4m3_t) MF__NAMED defines:
 *
 *   mf_e4m3_t mf_e4m3_from_bits(uint8_t bits);     uint8_t mf_e4m3_bits(mf_e4m3_t v);
 *   float     mf_e4m3_to_f32(mf_e4m3_t v);         double  mf_e4m3_to_f64(mf_e4m3_t v);   (exact)
 *   mf_e4m3_t mf_f32_to_e4m3_<rnd>(float x);       mf_e4m3_t mf_f32_to_e4m3_<rnd>_sat(float x);
 *   mf_e4m3_t mf_f64_to_e4m3_<rnd>(double x);      mf_e4m3_t mf_f64_to_e4m3_<rnd>_sat(double x);
 *   mf_e4m3_t mf_f32_to_e4m3_sr(float x, uint32_t rbits);   ... and _sr_sat, and the f64 forms
 *
 * with <rnd> in rn rna rz ru rd ro. Without _sat the overflow policy is MF_OVERFLOW_IEEE. Each is a
 * thin wrapper over mf_from_f32 / mf_from_f64 with constant arguments, so it compiles to the
 * specialised core.
 */
#ifndef MINIFLOAT_DETAIL_NAMED_H
#define MINIFLOAT_DETAIL_NAMED_H

#include "../scalar.h"

#define MF__NAMED_MODE(tag, T, ST, FMT, rnd, MODE)                                                     \
    MF_HD MF_INLINE T mf_f32_to_##tag##_##rnd(float x)                                                \
    {                                                                                                 \
        return mf_##tag##_from_bits((ST)mf_from_f32(FMT, x, MODE, MF_OVERFLOW_IEEE, 0));              \
    }                                                                                                 \
    MF_HD MF_INLINE T mf_f32_to_##tag##_##rnd##_sat(float x)                                          \
    {                                                                                                 \
        return mf_##tag##_from_bits((ST)mf_from_f32(FMT, x, MODE, MF_OVERFLOW_SATURATE, 0));          \
    }                                                                                                 \
    MF_HD MF_INLINE T mf_f64_to_##tag##_##rnd(double x)                                               \
    {                                                                                                 \
        return mf_##tag##_from_bits((ST)mf_from_f64(FMT, x, MODE, MF_OVERFLOW_IEEE, 0));              \
    }                                                                                                 \
    MF_HD MF_INLINE T mf_f64_to_##tag##_##rnd##_sat(double x)                                         \
    {                                                                                                 \
        return mf_##tag##_from_bits((ST)mf_from_f64(FMT, x, MODE, MF_OVERFLOW_SATURATE, 0));          \
    }

#define MF__NAMED(tag, T, ST, FMT)                                                                    \
    MF_HD MF_INLINE T mf_##tag##_from_bits(ST bits)                                                   \
    {                                                                                                 \
        T v;                                                                                          \
        v.bits = bits;                                                                                \
        return v;                                                                                     \
    }                                                                                                 \
    MF_HD MF_INLINE ST mf_##tag##_bits(T v) { return v.bits; }                                        \
    MF_HD MF_INLINE float mf_##tag##_to_f32(T v) { return mf_to_f32(FMT, v.bits); }                   \
    MF_HD MF_INLINE double mf_##tag##_to_f64(T v) { return mf_to_f64(FMT, v.bits); }                  \
    MF__NAMED_MODE(tag, T, ST, FMT, rn, MF_ROUND_NEAREST_EVEN)                                        \
    MF__NAMED_MODE(tag, T, ST, FMT, rna, MF_ROUND_NEAREST_AWAY)                                       \
    MF__NAMED_MODE(tag, T, ST, FMT, rz, MF_ROUND_TOWARD_ZERO)                                         \
    MF__NAMED_MODE(tag, T, ST, FMT, ru, MF_ROUND_UP)                                                  \
    MF__NAMED_MODE(tag, T, ST, FMT, rd, MF_ROUND_DOWN)                                                \
    MF__NAMED_MODE(tag, T, ST, FMT, ro, MF_ROUND_ODD)                                                 \
    MF_HD MF_INLINE T mf_f32_to_##tag##_sr(float x, uint32_t rbits)                                   \
    {                                                                                                 \
        return mf_##tag##_from_bits((ST)mf_from_f32(FMT, x, MF_ROUND_STOCHASTIC, MF_OVERFLOW_IEEE, rbits)); \
    }                                                                                                 \
    MF_HD MF_INLINE T mf_f32_to_##tag##_sr_sat(float x, uint32_t rbits)                               \
    {                                                                                                 \
        return mf_##tag##_from_bits(                                                                  \
            (ST)mf_from_f32(FMT, x, MF_ROUND_STOCHASTIC, MF_OVERFLOW_SATURATE, rbits));              \
    }                                                                                                 \
    MF_HD MF_INLINE T mf_f64_to_##tag##_sr(double x, uint32_t rbits)                                  \
    {                                                                                                 \
        return mf_##tag##_from_bits((ST)mf_from_f64(FMT, x, MF_ROUND_STOCHASTIC, MF_OVERFLOW_IEEE, rbits)); \
    }                                                                                                 \
    MF_HD MF_INLINE T mf_f64_to_##tag##_sr_sat(double x, uint32_t rbits)                              \
    {                                                                                                 \
        return mf_##tag##_from_bits(                                                                  \
            (ST)mf_from_f64(FMT, x, MF_ROUND_STOCHASTIC, MF_OVERFLOW_SATURATE, rbits));              \
    }

MF_BEGIN_DECLS
#define MF__FORMAT(e, value, tag, nbits, nman, nbias, kind, storage, ...) \
    MF__TYPED_##storage(MF__NAMED(tag, mf_##tag##_t, MF__CODE_T_##storage, e))
#include "../formats.inc"
#undef MF__FORMAT
MF_END_DECLS

#endif /* MINIFLOAT_DETAIL_NAMED_H */
