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

/* Number formats. MF_FP64 is accepted by mf_convert and mf_to_f64-style decoders but is never the target
 * of a scalar mf_from_* call (its code does not fit in 32 bits). New formats are appended, never
 * inserted (docs/formats.md has the table). */
typedef enum {
    MF_FP32,     /* IEEE binary32, 1-8-23 */
    MF_FP16,     /* IEEE binary16, 1-5-10 */
    MF_BF16,     /* bfloat16, 1-8-7 */
    MF_FP8_E4M3, /* OCP FP8 E4M3 ("fn"): no inf, NaN = S.1111.111, max 448 */
    MF_FP8_E5M2, /* OCP FP8 E5M2: IEEE-like, max 57344 */
    MF_FP6_E2M3, /* OCP MX FP6 E2M3: no inf/NaN, max 7.5 */
    MF_FP6_E3M2, /* OCP MX FP6 E3M2: no inf/NaN, max 28 */
    MF_FP4_E2M1, /* OCP MX FP4 E2M1: no inf/NaN, max 6 */
    MF_E8M0,     /* OCP MX scale: unsigned power of two 2^(code-127), 0xFF = NaN */
    MF_FP64,            /* IEEE binary64: bulk conversions and decoding only */
    MF_FP8_E4M3FNUZ,    /* FP8 E4M3 fnuz (AMD, ONNX): bias 8, NaN = 0x80, no inf, no -0, max 240 */
    MF_FP8_E5M2FNUZ,    /* FP8 E5M2 fnuz (AMD, ONNX): bias 16, NaN = 0x80, no inf, no -0, max 57344 */
    MF_FP8_E4M3B11FNUZ, /* FP8 E4M3 with bias 11, fnuz (ml_dtypes, JAX): max 30 */
    MF_FP8_E4M3IEEE,    /* IEEE-style FP8 E4M3 (ml_dtypes float8_e4m3): inf 0x78, max 240 */
    MF_FP8_E3M4         /* IEEE-style FP8 E3M4 (ml_dtypes float8_e3m4): bias 3, inf 0x70, max 15.5 */
} mf_format;

#define MF_FORMAT_COUNT 15

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

/* What happens to a result whose magnitude exceeds the format's largest finite value. */
typedef enum {
    MF_OVERFLOW_IEEE,    /* as IEEE 754 for the rounding mode (inf, or NaN for e4m3, or max) */
    MF_OVERFLOW_SATURATE /* clamp to +-max finite */
} mf_overflow;

#define MF_OVERFLOW_COUNT 2

/* Status codes returned by the compiled functions: 0 on success, negative on bad arguments. */
enum {
    MF_OK = 0,
    MF_E_NULL = -1,        /* a required pointer is NULL */
    MF_E_FORMAT = -2,      /* unknown mf_format value */
    MF_E_ROUND = -3,       /* unknown mf_round value */
    MF_E_POLICY = -4,      /* unknown mf_overflow value */
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
 * decoding of NaN codes) and may run a slower path. */
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

/* Storage types: one-member structs so that codes of different formats cannot be mixed up.
 * FP6 codes sit in the low 6 bits of a byte, e2m1 codes in the low 4 bits; mf_e2m1x2_t packs two
 * e2m1 codes, element 0 in bits 0..3 and element 1 in bits 4..7. */
typedef struct { uint16_t bits; } mf_f16_t;
typedef struct { uint16_t bits; } mf_bf16_t;
typedef struct { uint8_t bits; } mf_e4m3_t;
typedef struct { uint8_t bits; } mf_e5m2_t;
typedef struct { uint8_t bits; } mf_e2m3_t;
typedef struct { uint8_t bits; } mf_e3m2_t;
typedef struct { uint8_t bits; } mf_e2m1_t;
typedef struct { uint8_t bits; } mf_e2m1x2_t;
typedef struct { uint8_t bits; } mf_e8m0_t;
typedef struct { uint8_t bits; } mf_e4m3fnuz_t;
typedef struct { uint8_t bits; } mf_e5m2fnuz_t;
typedef struct { uint8_t bits; } mf_e4m3b11fnuz_t;
typedef struct { uint8_t bits; } mf_e4m3ieee_t;
typedef struct { uint8_t bits; } mf_e3m4_t;

MF_END_DECLS

#endif /* MINIFLOAT_TYPES_H */
