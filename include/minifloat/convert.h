/* SPDX-License-Identifier: MIT */
/* minifloat/convert.h - bulk conversions and format queries (compiled library).
 *
 * Array layouts: f64 as double, f32 as float, f16/bf16 as uint16_t codes, e4m3/e5m2/e8m0 one code per
 * byte, e2m3/e3m2 one code per byte in the low 6 bits (the top 2 bits are ignored on input and zero
 * on output), e2m1 two codes per byte with element 2i in bits 0..3 and element 2i+1 in bits 4..7
 * (for odd n the last byte's high nibble is left as it was). Arrays need no particular alignment.
 */
#ifndef MINIFLOAT_CONVERT_H
#define MINIFLOAT_CONVERT_H

#include "types.h"

MF_BEGIN_DECLS

/* Convert n elements of src (format src_fmt) into dst (format dst_fmt), rounding once.
 *
 * Any pair of formats is accepted, f64 included; decoding is exact, so the one rounding is the one
 * into dst_fmt, under opts->round and opts->overflow. opts may be NULL (rn, IEEE, no stats). Under
 * MF_ROUND_STOCHASTIC element i uses mf_sr_rbits(opts->seed, opts->sr_offset + i, mf_sr_width(dst_fmt))
 * (minifloat/philox.h), so the result does not depend on how a tensor is split into calls, threads or
 * SIMD lanes.
 * If opts->stats is set it receives this call's counts (overwritten, not accumulated). With
 * opts->threads > 1, arrays of a million elements or more are split over up to that many threads;
 * the bytes and counts are those of one thread.
 *
 * Returns MF_OK, or a negative MF_E_* code and writes nothing (stats included):
 *   MF_E_FORMAT / MF_E_ROUND / MF_E_POLICY  an enum value out of range;
 *   MF_E_NULL     dst or src is NULL while n > 0;
 *   MF_E_SIZE     n elements of either format would span more than 2^57 bytes (on 32-bit targets
 *                 PTRDIFF_MAX), or past the end of the address space: a negative count cast to size_t;
 *   MF_E_OVERLAP  the byte ranges of src and dst overlap and the formats differ (equal formats copy
 *                 with memmove semantics);
 *   MF_E_ARG      opts->threads is negative;
 *   MF_E_PROFILE  opts->profile out of range, or its system lacks src_fmt or dst_fmt, or the rounding mode
 *                 for a pair that rounds (mf_profile_supports; docs/compat.md).
 * Under a profile other than MF_PROFILE_DEFAULT the default's kernels convert, then the lanes the system
 * writes differently are rewritten (the bits of minifloat/profile.h; threads as the default's); the stats
 * count the events of the underlying rounding.
 * n = 0 succeeds, touches nothing and zeroes the stats. */
MF_API int mf_convert(mf_format dst_fmt, void *dst, mf_format src_fmt, const void *src, size_t n,
                      const mf_opts *opts);

/* A sentence describing a status code (never NULL; "unknown status code" for others). */
MF_API const char *mf_strerror(int code);

/* Bytes occupied by n elements of fmt in the array layout above ((n + 1) / 2 for e2m1), or 0 for an
 * unknown format or a count whose array would span more than 2^57 bytes (MF_E_SIZE in mf_convert). */
MF_API size_t mf_storage_bytes(mf_format fmt, size_t n);

/* Everything a user may want to know about a format; all values exact. */
typedef struct mf_format_desc {
    const char *name;    /* tag: "f32", "f16", "bf16", "e4m3", ... */
    const char *title;   /* e.g. "OCP FP8 E4M3 (fn: no inf, NaN = S.1111.111)" */
    int bits;            /* storage width of one code */
    int exp_bits;        /* exponent field width */
    int man_bits;        /* explicit mantissa bits */
    int bias;            /* exponent bias */
    int is_signed;       /* 0 for e8m0 and the unsigned P3109 formats */
    int has_inf;         /* +-infinity exists */
    int has_nan;         /* a NaN exists */
    int has_zero;        /* 0 for e8m0 */
    int has_subnormals;  /* 0 for e8m0 and the P3109 formats of precision 1 */
    double max;          /* largest finite value */
    double min_normal;   /* smallest positive normal value */
    double min_subnormal;/* smallest positive value */
    double epsilon;      /* 2^-man_bits: the gap between 1 and the next value */
    uint32_t max_code;   /* code of +max (for f64 the high 32 bits are not represented: 0) */
    uint32_t nan_code;   /* the NaN conversions produce (+max for formats without NaN) */
    uint32_t inf_code;   /* +inf, or 0 where none */
    int has_neg_zero;    /* -0 exists: 0 for e8m0, the fnuz and the P3109 formats */
} mf_format_desc;

/* Fill *out for fmt; MF_OK, MF_E_FORMAT or MF_E_NULL. */
MF_API int mf_format_describe(mf_format fmt, mf_format_desc *out);

/* Tags and short names: "f32" .. "e8m0", "f64", "e4m3fnuz", "e5m2fnuz", "e4m3b11fnuz", "e4m3ieee", "e3m4"
 * (minifloat/formats.inc lists them);
 * "rn" "rna" "rz" "ru" "rd" "ro" "sr"; "ieee" "sat"; "default" "cuda" "ml_dtypes" "torch" "onnx".
 * NULL for values out of range. */
MF_API const char *mf_format_name(mf_format fmt);
MF_API const char *mf_round_name(mf_round r);
MF_API const char *mf_overflow_name(mf_overflow o);
MF_API const char *mf_profile_name(mf_profile p);

/* The numpy or ml_dtypes dtype that holds fmt's values: "float32", "float16", "bfloat16", "float8_e4m3fn"
 * for e4m3, "float8_e4m3" for e4m3ieee, ...; NULL where neither has one, or fmt is out of range. */
MF_API const char *mf_format_dtype(mf_format fmt);

/* Parse a name (case-insensitive). Formats also accept their dtype names (mf_format_dtype: note that
 * ml_dtypes' "float8_e4m3" is the IEEE-style e4m3ieee, and "float8_e4m3fn" is e4m3) and the aliases of
 * minifloat/formats.inc: "fp32", "float", "fp16", "half", "fp8_e4m3", "e4m3fn", "fp8_e5m2", "fp6_e2m3",
 * "fp6_e3m2", "fp4_e2m1", "fp64", "double", "fp8_e4m3fnuz", "fp8_e5m2fnuz". Returns MF_OK,
 * MF_E_NULL or MF_E_ARG. */
MF_API int mf_format_from_name(const char *name, mf_format *out);
MF_API int mf_round_from_name(const char *name, mf_round *out);
MF_API int mf_overflow_from_name(const char *name, mf_overflow *out);
MF_API int mf_profile_from_name(const char *name, mf_profile *out);

/* The name of the backend (implementation) bulk calls use in this process: "avx512bf16", "avx512",
 * "avx2" (x86-64), "neon" (aarch64) or "portable". Every backend gives the same bits; MF_BACKEND=<name>
 * in the environment, read at the first conversion, selects one the CPU supports. */
MF_API const char *mf_backend(void);

/* Which code a call of mf_convert runs: filled by mf_convert_plan. */
typedef struct mf_plan {
    const char *backend;   /* the backend that converts this pair: mf_backend()'s, or one it builds on */
    const char *path;      /* the body's path: "portable", "blocked", "direct", "w16", "lut", "lut_sr" or
                              "profile" */
    const char *ends_path; /* the path of head and tail, or NULL where there are none */
    size_t head, body, tail; /* elements; head and tail go through a bounce buffer by ends_path */
    int streams;           /* 1: non-temporal stores (outputs of 16 MiB and more) */
    int threads;           /* the threads mf_convert splits the call over (1: none) */
} mf_plan;

/* What mf_convert(dst_fmt, dst, src_fmt, src, n, opts) would run, without converting anything: the
 * backend, its path and how the call is cut (docs/architecture.md explains the paths). dst and src
 * may be NULL, read as 64-byte aligned arrays; they are never dereferenced. With threads, the plan is
 * that of the first thread's piece. Returns MF_OK, or the code mf_convert would return for these
 * arguments (MF_E_FORMAT, MF_E_ROUND, MF_E_POLICY, MF_E_ARG, MF_E_SIZE), or MF_E_NULL for a NULL plan.
 * For n = 0 the plan is empty: path "none", nothing else set. On error *plan is left as it was. */
MF_API int mf_convert_plan(mf_format dst_fmt, const void *dst, mf_format src_fmt, const void *src, size_t n,
                           const mf_opts *opts, mf_plan *plan);

/* The library's version string, e.g. "0.1.0". */
MF_API const char *mf_version(void);

MF_END_DECLS

#endif /* MINIFLOAT_CONVERT_H */
