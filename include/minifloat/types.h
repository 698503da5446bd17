/* SPDX-License-Identifier: MIT */
/* minifloat/types.h - formats, rounding modes, overflow policies, storage types, status codes.
 *
 * Everything a conversion depends on is an argument: there is no global rounding mode, no global
 * flag word and no global random state. A zero-initialised mf_opts means round-to-nearest-even with
 * IEEE overflow and no statistics.
 */
#ifndef MINIFLOAT_TYPES_H
#define MINIFLOAT_TYPES_H

#include "config.h"

MF_BEGIN_DECLS

/* Number formats: one enumerator per row of minifloat/formats.inc, with the row's number (MF_FP32 = 0,
 * MF_FP16, MF_BF16, MF_FP8_E4M3, MF_FP8_E5M2, MF_FP6_E2M3, MF_FP6_E3M2, MF_FP4_E2M1, MF_E8M0, MF_FP64 = 9,
 * MF_FP8_E4M3FNUZ, MF_FP8_E5M2FNUZ, MF_FP8_E4M3B11FNUZ, MF_FP8_E4M3IEEE, MF_FP8_E3M4 = 14, ...; that file and
 * docs/formats.md describe each). MF_FP64 is accepted by mf_convert and mf_to_f64-style decoders but is never
 * the target of a scalar mf_from_* call (its code does not fit in 32 bits). New formats are appended, never
 * inserted. */
typedef enum {
#define MF__FORMAT(e, value, ...) e = value,
#include "formats.inc"
#undef MF__FORMAT
} mf_format;

/* The number of formats: the rows of formats.inc (an int, like the enumerators). */
enum {
    MF__FORMAT_ROWS = 0
#define MF__FORMAT(...) + 1
#include "formats.inc"
#undef MF__FORMAT
};
#define MF_FORMAT_COUNT ((int)MF__FORMAT_ROWS)

/* Rounding modes; the short names in comments are the suffixes used in function names. */
typedef enum {
    MF_ROUND_NEAREST_EVEN, /* rn:  nearest, ties to even */
    MF_ROUND_NEAREST_AWAY, /* rna: nearest, ties away from zero */
    MF_ROUND_TOWARD_ZERO,  /* rz */
    MF_ROUND_UP,           /* ru:  toward +inf */
    MF_ROUND_DOWN,         /* rd:  toward -inf */
    MF_ROUND_ODD,          /* ro:  truncate, then set the last bit if inexact */
    MF_ROUND_STOCHASTIC    /* sr:  up with probability equal to the discarded fraction */
} mf_round;

#define MF_ROUND_COUNT 7

/* What happens to a result whose magnitude exceeds the format's largest finite value. For the IEEE P3109
 * formats (docs/formats.md) the policies are the report's saturation modes SatNone, SatFinite and SatPropagate,
 * which also rule infinities and negative values into the unsigned formats. MF_OVERFLOW_PROPAGATE is taken by
 * the conversions (the scalar functions, mf_convert without a profile, the P3109 family and arithmetic); the
 * other functions return MF_E_POLICY for it. */
typedef enum {
    MF_OVERFLOW_IEEE,      /* as IEEE 754 for the rounding mode (inf, or NaN for e4m3, or max); P3109: SatNone */
    MF_OVERFLOW_SATURATE,  /* clamp to +-max finite; P3109: SatFinite */
    MF_OVERFLOW_PROPAGATE  /* clamp finite values to +-max, keep infinities where the format has them (as IEEE does,
                            * else as SATURATE); P3109: SatPropagate */
} mf_overflow;

#define MF_OVERFLOW_COUNT 3

/* Status codes returned by the compiled functions: 0 on success, negative on bad arguments. */
enum {
    MF_OK = 0,
    MF_E_NULL = -1,        /* a required pointer is NULL */
    MF_E_FORMAT = -2,      /* unknown mf_format value */
    MF_E_ROUND = -3,       /* unknown mf_round value */
    MF_E_POLICY = -4,      /* unknown mf_overflow value, or MF_OVERFLOW_PROPAGATE where it is not taken */
    MF_E_OVERLAP = -5,     /* source and destination overlap and are of different formats */
    MF_E_SIZE = -6,        /* element count too large for the address space */
    MF_E_ARG = -7,         /* any other invalid argument (said in the function's documentation) */
    MF_E_NOMEM = -8,       /* a work buffer could not be allocated (mf_gemm) */
    MF_E_UNSUPPORTED = -9, /* not available here: built without CUDA, no CUDA device, or the device's
                              architecture lacks the instruction (minifloat/cuda.h) */
    MF_E_DEVICE = -10,     /* the CUDA runtime reported an error (minifloat/cuda.h) */
    MF_E_PROFILE = -11,    /* unknown mf_profile value, or the profile's system lacks the format */
    MF_E_REDUCE = -12      /* a cross-rank reduction (mf_reduce_hook) failed, on this rank or on another */
};

/* A cross-rank maximum for data-parallel training (docs/distributed.md; minifloat/mpi.h makes one over
 * an MPI communicator). The loss scaler and the FP8 recipes call it where PyTorch and Transformer Engine
 * all-reduce: the found-inf flag before the scaler's update, the amax values before a scale is computed.
 *
 * max(ctx, values, n) replaces each of the n values by its maximum over all ranks, on every rank, and
 * returns 0. It is a collective: every rank makes the same calls with the same n. The values are
 * non-negative floats or +NaN (flags 0/1, amaxes), so reducing their bit patterns as int32 gives the
 * float maximum and keeps a NaN once any rank has one (as TE's atomicMaxFloat). The last value is the
 * rank's status: 0, or 1 where the rank cannot go on (its own arguments failed); a callback that fails
 * before the exchange sets it to 1 and still takes part. After the call, a nonzero return or a status
 * above 0 makes the library function return MF_E_REDUCE on that rank with its state unchanged, so a
 * failure seen anywhere stops the step everywhere. A hook whose max is NULL is no hook: the
 * single-process behaviour and bits. */
typedef int (*mf_reduce_max_fn)(void *ctx, float *values, size_t n);

typedef struct mf_reduce_hook {
    mf_reduce_max_fn max; /* NULL: no reduction */
    void *ctx;            /* passed to max as given (a communicator, for example) */
} mf_reduce_hook;

/* Compatibility profiles: whose conversions to reproduce bit for bit (docs/compat.md). The default is
 * minifloat's own documented semantics; a profile changes only what its system does differently
 * (NaN codes and signs, infinities, the overflow policy where the system has only one, f64 sources,
 * decoding of NaN codes), at a cost docs/compat.md gives. */
typedef enum {
    MF_PROFILE_DEFAULT,  /* minifloat's semantics (docs/formats.md) */
    MF_PROFILE_CUDA,     /* NVIDIA's cuda_fp16/bf16/fp8/fp6/fp4 conversions; MF_OVERFLOW_SATURATE = satfinite */
    MF_PROFILE_ML_DTYPES,/* ml_dtypes (numpy's float16 for f16) array casts */
    MF_PROFILE_TORCH,    /* PyTorch's CPU casts, f64 sources rounded through f32 as PyTorch does */
    MF_PROFILE_ONNX      /* ONNX Cast; MF_OVERFLOW_SATURATE = saturate=1 */
} mf_profile;

#define MF_PROFILE_COUNT 5

/* Event counters of one bulk call (mf_convert overwrites them, it does not accumulate). */
typedef struct mf_stats {
    uint64_t overflow;  /* finite input beyond max finite, or inf input that did not stay inf */
    uint64_t underflow; /* nonzero input, zero output */
    uint64_t subnormal; /* nonzero subnormal output */
    uint64_t nan;       /* NaN input */
    uint64_t inexact;   /* output value differs from input value (NaN inputs excluded) */
} mf_stats;

/* Options of a bulk conversion. All-zero is a valid value: rn, IEEE overflow, seed 0, no stats,
 * one thread. */
typedef struct mf_opts {
    mf_round round;
    mf_overflow overflow;
    uint64_t seed;      /* Philox key for MF_ROUND_STOCHASTIC */
    uint64_t sr_offset; /* stream index of element 0: element i uses index sr_offset + i */
    mf_stats *stats;    /* NULL: no counting */
    int threads;        /* 0 or 1: the calling thread only; N > 1: up to N threads for large arrays
                           (the result is the same bytes and counts whatever N is) */
    mf_profile profile; /* MF_PROFILE_DEFAULT (0): minifloat's semantics; others: docs/compat.md */
} mf_opts;

/* Storage types: one-member structs so that codes of different formats cannot be mixed up, one per row
 * of formats.inc but f32 and f64 (float and double): mf_f16_t, mf_bf16_t, mf_e4m3_t, mf_e5m2_t, mf_e2m3_t,
 * mf_e3m2_t, mf_e2m1_t, mf_e8m0_t, mf_e4m3fnuz_t, mf_e5m2fnuz_t, mf_e4m3b11fnuz_t, mf_e4m3ieee_t, mf_e3m4_t.
 * FP6 codes sit in the low 6 bits of a byte, e2m1 codes in the low 4 bits; mf_e2m1x2_t packs two
 * e2m1 codes, element 0 in bits 0..3 and element 1 in bits 4..7. */
/* A row's storage column: the C type of one code, and whether the format has a struct (f32 and f64
 * are float and double). */
#define MF__CODE_T_F64 uint64_t
#define MF__CODE_T_F32 uint32_t
#define MF__CODE_T_U16 uint16_t
#define MF__CODE_T_U8 uint8_t
#define MF__CODE_T_U4 uint8_t
#define MF__TYPED_F64(x)
#define MF__TYPED_F32(x)
#define MF__TYPED_U16(x) x
#define MF__TYPED_U8(x) x
#define MF__TYPED_U4(x) x

#define MF__FORMAT(e, value, tag, nbits, nman, nbias, kind, storage, ...) \
    MF__TYPED_##storage(typedef struct { MF__CODE_T_##storage bits; } mf_##tag##_t;)
#include "formats.inc"
#undef MF__FORMAT
typedef struct { uint8_t bits; } mf_e2m1x2_t;

MF_END_DECLS

#endif /* MINIFLOAT_TYPES_H */
