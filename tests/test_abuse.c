/* SPDX-License-Identifier: MIT */
/* tests/test_abuse.c - the abuse tier: every exported function called the way a buggy caller calls it.
 *
 * One table row per public function says what each argument is: a pointer (required, required when the
 * tensor is not empty, or optional; read, written or both; how many bytes the valid call uses), an enum
 * (its count and the code a bad value gives), a count or dimension (element size, block multiple), a
 * float with its invalid values, or a field of a struct argument. From a valid call the driver changes
 * one argument at a time:
 *   - each pointer NULL; each enum at -1, COUNT, INT_MAX (and any value the function refuses);
 *   - each count at 0, 1, SIZE_MAX, SIZE_MAX / elem + 1, (size_t)(int)-1 and other negative ints;
 *   - each documented overlap: one byte in, the last byte in, the same address; then the two buffers
 *     exactly adjacent (either order), which must give the valid call's bytes;
 * and checks the returned code against the documentation. Buffers live in one arena, 64 guard bytes
 * around each: after an error no byte of the arena may change, after a success no byte outside the
 * output buffers. `test_abuse --list` prints the table's names; tests/abuse_symbols.sh compares them with
 * the libraries' exported symbols, so that a new public function without a row fails the tier.
 *
 * The CUDA library's rows (minifloat/cuda.h) check their arguments as the host functions do; their valid
 * call succeeds only where the kernels are built and a device is there. Elsewhere it returns
 * MF_E_UNSUPPORTED and must write nothing (an empty tensor still succeeds). With a device the arena is
 * registered with CUDA so that the kernels reach it (built with MF_ABUSE_CUDA); a device that cannot
 * reach registered host memory skips those rows.
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <minifloat.h>
#include <minifloat/cuda.h>
#include <minifloat/lab.h>

#ifdef MF_ABUSE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "mf_test.h"

/* ---- the table's vocabulary --------------------------------------------------------------------- */
enum { AB_NP = 8, AB_NE = 8, AB_NN = 6, AB_NF = 3, AB_NI = 2, AB_NARGS = 28, AB_NPAIRS = 3 };

/* Pseudo-codes of the thunks of functions that return a pointer, a size or a float. */
enum { AB_NULLRET = -100, AB_ZERO = -101, AB_NAN = -102, AB_WRONG = -103 };
/* An expected code: the row's valid code as this machine gives it (a CUDA row: MF_E_UNSUPPORTED without
 * a device) */
enum { AB_OKRT = -104 };

typedef struct ab_call {
    void *p[AB_NP];
    int e[AB_NE];
    size_t n[AB_NN];
    float f[AB_NF];
    int i[AB_NI];
} ab_call;

typedef enum {
    K_END,
    K_PTR,   /* p[slot] */
    K_ENUM,  /* e[slot]: bad at -1, count, INT_MAX and the also_bad values */
    K_COUNT, /* n[slot] */
    K_FLOAT, /* f[slot]: bad at each of bad[] */
    K_FIELD  /* a field of the struct p[slot] points to, at offset: bad at -1.. for enums, else bad[] */
} ab_kind;

/* pointers: when NULL is refused, what the call does to the bytes, how its buffer is filled */
enum { P_REQ = 1, P_REQN, P_OPT };
enum { P_IN = 1, P_OUT = 2, P_INOUT = 3 };
enum { P_ELEM = 4 }; /* or-ed into the access: the buffer holds the tensor's elements (untouched when empty) */
typedef enum {
    F_NONE,    /* not filled (an output) */
    F_F32,     /* binary32 values of both signs, a few magnitudes */
    F_BYTES,   /* a byte pattern (codes of any 8-bit format; FP6 codes in the low 6 bits) */
    F_SCALE,   /* binary32 scale factors: 0.5, 1, 2, ... */
    F_E8M0,    /* E8M0 scale codes near 2^0 */
    F_E4M3S,   /* unsigned E4M3 scale codes */
    F_NAME,    /* the string in name */
    F_OPTS,    /* an mf_opts (rn, ieee) whose stats point at p[link] */
    F_GOPTS,   /* an mf_gemm_opts (exact accumulation, rz) whose stats point at p[link] */
    F_AOPTS,   /* an mf_analyze_opts (f32 data, rn, ieee, scale 1) */
    F_SCALER,  /* mf_loss_scaler_default() */
    F_LCFG,    /* mf_loss_scaler_config_default() */
    F_DCFG,    /* mf_fp8_delayed_default(MF_FP8_E4M3) */
    F_DSTATE,  /* a state from mf_fp8_delayed_init after one record and one update */
    F_TENSORS, /* two mf_tensor: p[link] as 32 f32, p[link + 1] as 64 bf16 */
    F_AMAX,    /* one float: 3.5 */
    F_HOOK,    /* an mf_reduce_hook of one rank (the values stay, status 0) */
    F_MMODEL,  /* mf_memory_model_preset("gpt2") */
    F_MRECIPE, /* mf_memory_recipe_preset("te-fp8-delayed") */
    F_MCLUSTER /* mf_memory_cluster_default(), 8 GPUs at ZeRO 3 */
} ab_fill;
enum { FT_INT = 1, FT_SIZE, FT_FLOAT, FT_DOUBLE };

#define AB_MAXBAD 8
typedef struct ab_arg {
    ab_kind kind;
    const char *name;
    int slot;
    int need;                    /* K_PTR: P_REQ / P_REQN / P_OPT */
    int access;                  /* K_PTR: P_IN / P_OUT / P_INOUT, | P_ELEM */
    size_t bytes;                /* K_PTR: the valid call's buffer; K_COUNT: element size (for SIZE_MAX / elem + 1) */
    ab_fill fill;                /* K_PTR */
    int link;                    /* K_PTR with F_OPTS / F_TENSORS: the slot of the stats / the tensors' data */
    const char *str;             /* K_PTR with F_NAME */
    int err;                     /* the code a bad value gives (K_ENUM, K_FLOAT, K_FIELD, K_COUNT when too big) */
    int count;                   /* K_ENUM / enum K_FIELD: number of values (NO_FAIL: no range, only also_bad tried) */
    int also_bad[6], n_also_bad; /* K_ENUM / enum K_FIELD: in-range values refused too */
    size_t mult;                 /* K_COUNT: the dimension must be a multiple of this (else MF_E_ARG); 0 or 1: any */
    int zero_ret;                /* K_COUNT: the code when this count is 0 */
    int zero_writes;             /* K_COUNT: a 0 here still writes the outputs (GEMM's k: C = beta * C) */
    int one_set, one_ret;        /* K_COUNT: the code when this count is 1, if not the valid call's */
    int ftype;                   /* K_FIELD: FT_INT (an enum when count > 0), FT_SIZE, FT_FLOAT, FT_DOUBLE */
    size_t offset;               /* K_FIELD */
    double bad[AB_MAXBAD];       /* K_FLOAT and non-enum K_FIELD: the values refused with err */
    int n_bad;
} ab_arg;

typedef struct ab_fn {
    const char *name;
    int (*call)(const ab_call *c);
    int ok;       /* the code of the valid call */
    int null_err; /* the code a refused NULL gives (MF_E_NULL unless the function returns no code) */
    ab_call init; /* the valid call's scalar arguments */
    ab_arg args[AB_NARGS];
    struct {
        int out, in, alias_ok;
    } pairs[AB_NPAIRS]; /* overlaps refused with MF_E_OVERLAP */
    int n_pairs;
    unsigned empty_mask; /* the count slots set to 0 for an empty tensor (0: all of them) */
} ab_fn;

/* Shorthands for the table below (kept one row per argument: clang-format off). */
/* clang-format off */
#define PTR(nm, s, nd, acc, b, fl) {.kind = K_PTR, .name = nm, .slot = s, .need = nd, .access = acc, .bytes = b, .fill = fl}
#define PTRL(nm, s, nd, acc, b, fl, l) \
    {.kind = K_PTR, .name = nm, .slot = s, .need = nd, .access = acc, .bytes = b, .fill = fl, .link = l}
#define NAMEP(nm, s, text) {.kind = K_PTR, .name = nm, .slot = s, .need = P_REQ, .access = P_IN, .bytes = 32, .fill = F_NAME, .str = text}
#define ENUM(nm, s, cnt, code) {.kind = K_ENUM, .name = nm, .slot = s, .count = cnt, .err = code}
#define ENUMX(nm, s, cnt, code, ...) \
    {.kind = K_ENUM, .name = nm, .slot = s, .count = cnt, .err = code, .also_bad = {__VA_ARGS__}, \
     .n_also_bad = sizeof((int[]){__VA_ARGS__}) / sizeof(int)}
#define COUNT(nm, s, el) {.kind = K_COUNT, .name = nm, .slot = s, .bytes = el, .err = MF_E_SIZE}
#define DIM(nm, s, el, m) {.kind = K_COUNT, .name = nm, .slot = s, .bytes = el, .mult = m, .err = MF_E_SIZE}
/* a leading dimension: 0 and 1 are too small (MF_E_ARG), a huge one runs past the address space */
#define LD(nm, s, el) {.kind = K_COUNT, .name = nm, .slot = s, .bytes = el, .err = MF_E_SIZE, .zero_ret = MF_E_ARG, \
                       .one_set = 1, .one_ret = MF_E_ARG}
#define FLT(nm, s, code, ...) \
    {.kind = K_FLOAT, .name = nm, .slot = s, .err = code, .bad = {__VA_ARGS__}, \
     .n_bad = sizeof((double[]){__VA_ARGS__}) / sizeof(double)}
#define FENUM(nm, s, type, field, cnt, code) \
    {.kind = K_FIELD, .name = nm, .slot = s, .ftype = FT_INT, .offset = offsetof(type, field), .count = cnt, .err = code}
#define FENUMX(nm, s, type, field, cnt, code, ...) \
    {.kind = K_FIELD, .name = nm, .slot = s, .ftype = FT_INT, .offset = offsetof(type, field), .count = cnt, \
     .err = code, .also_bad = {__VA_ARGS__}, .n_also_bad = sizeof((int[]){__VA_ARGS__}) / sizeof(int)}
#define FVAL(nm, s, ft, type, field, code, ...) \
    {.kind = K_FIELD, .name = nm, .slot = s, .ftype = ft, .offset = offsetof(type, field), .err = code, \
     .bad = {__VA_ARGS__}, .n_bad = sizeof((double[]){__VA_ARGS__}) / sizeof(double)}
/* mf_opts: its three checked fields */
#define OPTS_FIELDS(s)                                                              \
    FENUM("opts->round", s, mf_opts, round, MF_ROUND_COUNT, MF_E_ROUND),            \
        FENUM("opts->overflow", s, mf_opts, overflow, MF_OVERFLOW_COUNT, MF_E_POLICY), \
        FVAL("opts->threads", s, FT_INT, mf_opts, threads, MF_E_ARG, -1, INT_MIN),          \
        FENUM("opts->profile", s, mf_opts, profile, MF_PROFILE_COUNT, MF_E_PROFILE)
#define PAIR(o, i) {o, i, 0}
/* clang-format on */

#define BAD_POS NAN, INFINITY, -INFINITY, 0.0, -0.0, -1.0   /* refused where "finite and > 0" */
#define BAD_NONNEG NAN, INFINITY, -INFINITY, -1.0, -FLT_MIN /* refused where "finite and >= 0" */

/* ---- thunks: one per function, calling it with the call's slots ------------------------------- */
static int r_ptr(const void *p) { return p ? MF_OK : AB_NULLRET; }
static int r_nan(float x) { return isnan(x) ? AB_NAN : MF_OK; }

static int t_convert(const ab_call *c)
{
    return mf_convert((mf_format)c->e[0], c->p[0], (mf_format)c->e[1], c->p[1], c->n[0], c->p[2]);
}
static mf_p3109 ab_member(const ab_call *c)
{
    mf_p3109 f;
    f.k = c->e[0], f.p = c->e[1], f.is_signed = c->e[2], f.extended = c->e[3];
    return f;
}
static int t_p3109_from_f32(const ab_call *c)
{
    return mf_p3109_convert_from_f32(ab_member(c), c->p[0], (const float *)c->p[1], c->n[0], c->p[2]);
}
static int t_p3109_to_f32(const ab_call *c)
{
    return mf_p3109_convert_to_f32((float *)c->p[0], ab_member(c), c->p[1], c->n[0], c->p[2]);
}
static int t_strerror(const ab_call *c) { return r_ptr(mf_strerror(c->e[0])); }
static int t_storage_bytes(const ab_call *c)
{
    const size_t b = mf_storage_bytes((mf_format)c->e[0], c->n[0]);
    return b == 0 ? AB_ZERO : b == c->n[0] ? MF_OK : AB_WRONG; /* e4m3 in the valid call: a byte each */
}
static int t_format_describe(const ab_call *c) { return mf_format_describe((mf_format)c->e[0], c->p[0]); }
static int t_format_name(const ab_call *c) { return r_ptr(mf_format_name((mf_format)c->e[0])); }
static int t_format_dtype(const ab_call *c) { return r_ptr(mf_format_dtype((mf_format)c->e[0])); }
static int t_round_name(const ab_call *c) { return r_ptr(mf_round_name((mf_round)c->e[0])); }
static int t_overflow_name(const ab_call *c) { return r_ptr(mf_overflow_name((mf_overflow)c->e[0])); }
static int t_format_from_name(const ab_call *c) { return mf_format_from_name(c->p[0], c->p[1]); }
static int t_round_from_name(const ab_call *c) { return mf_round_from_name(c->p[0], c->p[1]); }
static int t_overflow_from_name(const ab_call *c) { return mf_overflow_from_name(c->p[0], c->p[1]); }
static int t_profile_name(const ab_call *c) { return r_ptr(mf_profile_name((mf_profile)c->e[0])); }
static int t_profile_from_name(const ab_call *c) { return mf_profile_from_name(c->p[0], c->p[1]); }
static int t_backend(const ab_call *c)
{
    (void)c;
    return r_ptr(mf_backend());
}
static int t_version(const ab_call *c)
{
    (void)c;
    return r_ptr(mf_version());
}
static int t_convert_plan(const ab_call *c)
{
    return mf_convert_plan((mf_format)c->e[0], c->p[0], (mf_format)c->e[1], c->p[1], c->n[0], c->p[2], c->p[3]);
}
static int t_analyze(const ab_call *c) { return mf_analyze((mf_format)c->e[0], c->p[0], c->n[0], c->p[1], c->p[2]); }
static int t_unary(const ab_call *c)
{
    return mf_unary((mf_unary_op)c->e[0], (mf_format)c->e[1], c->p[0], (mf_format)c->e[2], c->p[1], c->n[0], c->p[2]);
}
static int t_softmax(const ab_call *c)
{
    return mf_softmax(c->e[0], (mf_format)c->e[1], c->p[0], (mf_format)c->e[2], c->p[1], c->n[0], c->n[1], c->p[2]);
}
static int t_unary_name(const ab_call *c) { return r_ptr(mf_unary_name((mf_unary_op)c->e[0])); }
static int t_unary_from_name(const ab_call *c) { return mf_unary_from_name(c->p[0], c->p[1]); }
static int t_elementwise_math(const ab_call *c)
{
    (void)c;
    return r_ptr(mf_elementwise_math());
}
static int t_memory_plan(const ab_call *c) { return mf_memory_plan(c->p[0], c->p[1], c->p[2], c->p[3]); }
static int t_memory_cluster_default(const ab_call *c) { return mf_memory_cluster_default(c->p[0]); }
static int t_memory_model_preset(const ab_call *c) { return mf_memory_model_preset(c->p[0], c->p[1]); }
static int t_memory_recipe_preset(const ab_call *c) { return mf_memory_recipe_preset(c->p[0], c->p[1]); }
static int t_memory_gpu_preset(const ab_call *c) { return mf_memory_gpu_preset(c->p[0], c->p[1]); }
static int t_memory_name(const ab_call *c) { return r_ptr(mf_memory_name(c->e[0], 0)); }
static int t_fp8_max(const ab_call *c) { return mf_fp8_max((mf_format)c->e[0], c->p[0]); }
static int t_amax(const ab_call *c) { return mf_amax((mf_format)c->e[0], c->p[0], c->n[0], c->p[1]); }
static int t_scale_from_amax(const ab_call *c)
{
    const float s = mf_scale_from_amax(c->f[0], c->f[1], c->i[0], c->f[2], FLT_MAX);
    return s == 448.0f / 3.5f ? MF_OK : AB_WRONG;
}
static int t_fp8_current_scale(const ab_call *c)
{
    return mf_fp8_current_scale((mf_format)c->e[0], c->f[0], c->i[0], c->f[1], c->p[0], c->p[1]);
}
static int t_fp8_quantize(const ab_call *c)
{
    return mf_fp8_quantize((mf_format)c->e[0], c->p[0], (mf_format)c->e[1], c->p[1], c->n[0], c->f[0], c->p[2]);
}
static int t_fp8_dequantize(const ab_call *c)
{
    return mf_fp8_dequantize((mf_format)c->e[0], c->p[0], (mf_format)c->e[1], c->p[1], c->n[0], c->f[0]);
}
static int t_fp8_quantize_current(const ab_call *c)
{
    return mf_fp8_quantize_current((mf_format)c->e[0], c->p[0], (mf_format)c->e[1], c->p[1], c->n[0], c->i[0], c->f[0],
                                   c->p[2], c->p[3], c->p[4]);
}
static int t_fp8_quantize_current_reduced(const ab_call *c)
{
    return mf_fp8_quantize_current_reduced((mf_format)c->e[0], c->p[0], (mf_format)c->e[1], c->p[1], c->n[0], c->i[0],
                                           c->f[0], c->p[5], c->p[2], c->p[3], c->p[4]);
}
static int t_fp8_delayed_update_many(const ab_call *c) { return mf_fp8_delayed_update_many(c->p[0], c->n[0]); }
static int t_fp8_delayed_default(const ab_call *c)
{
    const mf_fp8_delayed_cfg d = mf_fp8_delayed_default((mf_format)c->e[0]);
    return d.history_len == 1024 && d.initial_scale == 1.0f && d.margin == 0 ? MF_OK : AB_WRONG;
}
static int t_fp8_delayed_init(const ab_call *c) { return mf_fp8_delayed_init(c->p[0], c->p[1]); }
static int t_fp8_delayed_record(const ab_call *c) { return mf_fp8_delayed_record(c->p[0], c->f[0]); }
static int t_fp8_delayed_update(const ab_call *c) { return mf_fp8_delayed_update(c->p[0]); }
static int t_fp8_delayed_quantize(const ab_call *c)
{
    return mf_fp8_delayed_quantize(c->p[0], c->p[1], (mf_format)c->e[0], c->p[2], c->n[0]);
}
static int t_fp8_block_scale_shape(const ab_call *c)
{
    return mf_fp8_block_scale_shape((mf_fp8_block)c->e[0], c->n[0], c->n[1], c->p[0], c->p[1]);
}
static int t_fp8_block_quantize(const ab_call *c)
{
    return mf_fp8_block_quantize((mf_format)c->e[0], c->p[0], c->p[1], (mf_format)c->e[1], c->p[2], c->n[0], c->n[1],
                                 (mf_fp8_block)c->e[2], c->i[0], c->f[0]);
}
static int t_fp8_block_dequantize(const ab_call *c)
{
    return mf_fp8_block_dequantize((mf_format)c->e[0], c->p[0], (mf_format)c->e[1], c->p[1], c->p[2], c->n[0], c->n[1],
                                   (mf_fp8_block)c->e[2]);
}
static int t_loss_scaler_config_default(const ab_call *c)
{
    (void)c;
    const mf_loss_scaler_config d = mf_loss_scaler_config_default();
    return d.init_scale == 65536.0f && d.growth_interval == 2000 ? MF_OK : AB_WRONG;
}
static int t_loss_scaler_default(const ab_call *c)
{
    (void)c;
    const mf_loss_scaler s = mf_loss_scaler_default();
    return s.scale == 65536.0f && s.steps_taken == 0 ? MF_OK : AB_WRONG;
}
static int t_loss_scaler_init(const ab_call *c) { return mf_loss_scaler_init(c->p[0], c->p[1]); }
static int t_loss_scaler_scale(const ab_call *c) { return r_nan(mf_loss_scaler_scale(c->p[0])); }
static int t_loss_scaler_inv_scale(const ab_call *c) { return r_nan(mf_loss_scaler_inv_scale(c->p[0])); }
static int t_scale_loss(const ab_call *c) { return r_nan(mf_scale_loss(c->p[0], c->f[0])); }
static int t_unscale_check(const ab_call *c) { return mf_unscale_check(c->p[0], (mf_format)c->e[0], c->p[1], c->n[0]); }
static int t_unscale_check_tensors(const ab_call *c) { return mf_unscale_check_tensors(c->p[0], c->p[1], c->n[0]); }
static int t_loss_scaler_update(const ab_call *c)
{
    return mf_loss_scaler_update(c->p[0], c->i[0]) < 0 ? MF_E_NULL : MF_OK;
}
static int t_mx_sizes(const ab_call *c)
{
    return mf_mx_sizes((mf_mx_type)c->e[0], (mf_mx_axis)c->e[1], (unsigned)c->e[2], c->n[0], c->n[1], c->p[0], c->p[1]);
}
static int t_mx_scale_code(const ab_call *c)
{
    const int k = mf_mx_scale_code((mf_mx_type)c->e[0], (mf_mx_scale_rule)c->e[1], c->f[0]);
    return k < 0 ? k : k == 127 + 1 - 8 ? MF_OK : AB_WRONG; /* FLOOR of 3.5 for e4m3 (emax 8): 2^(1-8) */
}
static int t_mx_quantize(const ab_call *c)
{
    return mf_mx_quantize((mf_mx_type)c->e[0], (mf_mx_scale_rule)c->e[1], (mf_mx_axis)c->e[2], (unsigned)c->e[3],
                          c->p[0], c->n[0], c->n[1], c->p[1], c->p[2], c->p[3]);
}
static int t_mx_dequantize(const ab_call *c)
{
    return mf_mx_dequantize((mf_mx_type)c->e[0], (mf_mx_axis)c->e[1], (unsigned)c->e[2], c->p[0], c->p[1], c->n[0],
                            c->n[1], c->p[2]);
}
static int t_fp6_pack(const ab_call *c) { return mf_fp6_pack(c->p[0], c->p[1], c->n[0]); }
static int t_fp6_unpack(const ab_call *c) { return mf_fp6_unpack(c->p[0], c->p[1], c->n[0]); }
static int t_nvfp4_sizes(const ab_call *c)
{
    return mf_nvfp4_sizes((mf_mx_axis)c->e[0], c->n[0], c->n[1], c->p[0], c->p[1]);
}
static int t_nvfp4_global_scale(const ab_call *c)
{
    return mf_nvfp4_global_scale(c->f[0]) == 2688.0f / 3.5f ? MF_OK : AB_WRONG;
}
static int t_nvfp4_quantize(const ab_call *c)
{
    return mf_nvfp4_quantize((mf_mx_axis)c->e[0], c->p[0], c->n[0], c->n[1], c->p[1], c->p[2], c->p[3], c->p[4],
                             c->p[5]);
}
static int t_nvfp4_dequantize(const ab_call *c)
{
    return mf_nvfp4_dequantize((mf_mx_axis)c->e[0], c->p[0], c->p[1], c->f[0], c->n[0], c->n[1], c->p[2]);
}

static int t_gemm(const ab_call *c)
{
    return mf_gemm((mf_layout)c->e[0], (mf_trans)c->e[1], (mf_trans)c->e[2], c->n[0], c->n[1], c->n[2], c->f[0],
                   c->p[0], (mf_format)c->e[3], c->n[3], c->p[1], (mf_format)c->e[4], c->n[4], c->f[1], c->p[2],
                   (mf_format)c->e[5], c->n[5], c->p[3]);
}

static int t_gemm_plan(const ab_call *c)
{
    return mf_gemm_plan((mf_format)c->e[0], (mf_format)c->e[1], c->p[0], c->p[1]);
}

/* minifloat/cuda.h: the legacy default stream; with a device, wait for the work (cuda_done) */
static int cuda_done(int rc);
static int t_cuda_built(const ab_call *c)
{
    (void)c;
    const int b = mf_cuda_built();
    return b == 0 || b == 1 ? MF_OK : AB_WRONG;
}
static int t_cuda_device_count(const ab_call *c)
{
    (void)c;
    const int k = mf_cuda_device_count();
    return k >= 0 && (k == 0 || mf_cuda_built()) ? MF_OK : AB_WRONG;
}
static int t_cuda_convert(const ab_call *c)
{
    return cuda_done(mf_cuda_convert((mf_format)c->e[0], c->p[0], (mf_format)c->e[1], c->p[1], c->n[0], c->p[2], NULL));
}
static int t_cuda_unscale_check(const ab_call *c)
{
    return cuda_done(mf_cuda_unscale_check(c->p[0], (mf_format)c->e[0], c->p[1], c->n[0], NULL));
}
static int t_cuda_amax(const ab_call *c)
{
    return cuda_done(mf_cuda_amax((mf_format)c->e[0], c->p[0], c->n[0], c->p[1], NULL));
}
static int t_cuda_mx_quantize(const ab_call *c)
{
    return cuda_done(mf_cuda_mx_quantize((mf_mx_type)c->e[0], (mf_mx_scale_rule)c->e[1], (mf_mx_axis)c->e[2],
                                         (unsigned)c->e[3], c->p[0], c->n[0], c->n[1], c->p[1], c->p[2], c->p[3],
                                         NULL));
}
static int t_cuda_nvfp4_quantize(const ab_call *c)
{
    return cuda_done(mf_cuda_nvfp4_quantize((mf_mx_axis)c->e[0], c->p[0], c->n[0], c->n[1], c->p[1], c->p[2], c->p[3],
                                            c->p[4], c->p[5], NULL));
}
static int t_cuda_gemm(const ab_call *c)
{
    return cuda_done(mf_cuda_gemm((mf_layout)c->e[0], (mf_trans)c->e[1], (mf_trans)c->e[2], c->n[0], c->n[1], c->n[2],
                                  c->f[0], c->p[0], (mf_format)c->e[3], c->n[3], c->p[1], (mf_format)c->e[4], c->n[4],
                                  c->f[1], c->p[2], c->n[5], NULL));
}

/* ---- the table ------------------------------------------------------------------------------------ */
/* Valid calls: 64 elements (f32 -> e4m3 where formats are free); 2-D: 2 x 64 for MX (rows of two
 * 32-blocks), 2 x 32 for NVFP4, 3 x 130 for FP8 blocks (partial edge blocks). */
#define N 64
#define IO (P_IN | P_ELEM)
#define OE (P_OUT | P_ELEM)
#define IOE (P_INOUT | P_ELEM)
#define NO_FAIL -1 /* enum count of an int argument with no range: only its also_bad values are tried */
/* clang-format off */
static const ab_fn TABLE[] = {
    /* minifloat/convert.h */
    {"mf_convert", t_convert, MF_OK, MF_E_NULL, {.e = {MF_FP8_E4M3, MF_FP32}, .n = {N}},
     {ENUM("dst_fmt", 0, MF_FORMAT_COUNT, MF_E_FORMAT), PTR("dst", 0, P_REQN, OE, N, F_NONE),
      ENUM("src_fmt", 1, MF_FORMAT_COUNT, MF_E_FORMAT), PTR("src", 1, P_REQN, IO, 4 * N, F_F32), COUNT("n", 0, 4),
      PTRL("opts", 2, P_OPT, P_IN, sizeof(mf_opts), F_OPTS, 3), PTR("opts->stats", 3, P_OPT, P_OUT, sizeof(mf_stats), F_NONE),
      OPTS_FIELDS(2)},
     {PAIR(0, 1)}, 1, 0},
    /* minifloat/p3109_family.h: Binary10p4se, codes in uint16_t */
#define MEMBER_FIELDS ENUMX("f.k", 0, NO_FAIL, MF_E_ARG, 2, 17, 0, -1, INT_MAX), ENUMX("f.p", 1, NO_FAIL, MF_E_ARG, 0, 10, -1), \
    ENUMX("f.is_signed", 2, NO_FAIL, MF_E_ARG, 2, -1), ENUMX("f.extended", 3, NO_FAIL, MF_E_ARG, 2, -1)
    {"mf_p3109_convert_from_f32", t_p3109_from_f32, MF_OK, MF_E_NULL, {.e = {10, 4, 1, 1}, .n = {N}},
     {MEMBER_FIELDS, PTR("dst", 0, P_REQN, OE, 2 * N, F_NONE), PTR("src", 1, P_REQN, IO, 4 * N, F_F32), COUNT("n", 0, 4),
      PTRL("opts", 2, P_OPT, P_IN, sizeof(mf_opts), F_OPTS, 3), PTR("opts->stats", 3, P_OPT, P_OUT, sizeof(mf_stats), F_NONE),
      OPTS_FIELDS(2)},
     {PAIR(0, 1)}, 1, 0},
    {"mf_p3109_convert_to_f32", t_p3109_to_f32, MF_OK, MF_E_NULL, {.e = {10, 4, 1, 1}, .n = {N}},
     {MEMBER_FIELDS, PTR("dst", 0, P_REQN, OE, 4 * N, F_NONE), PTR("src", 1, P_REQN, IO, 2 * N, F_BYTES), COUNT("n", 0, 4),
      PTRL("opts", 2, P_OPT, P_IN, sizeof(mf_opts), F_OPTS, 3), PTR("opts->stats", 3, P_OPT, P_OUT, sizeof(mf_stats), F_NONE),
      OPTS_FIELDS(2)},
     {PAIR(0, 1)}, 1, 0},
    {"mf_strerror", t_strerror, MF_OK, MF_E_NULL, {.e = {MF_E_SIZE}}, {ENUMX("code", 0, NO_FAIL, MF_OK, INT_MIN, -1, INT_MAX, -8, 1)}, {{0}}, 0, 0},
    {"mf_storage_bytes", t_storage_bytes, MF_OK, MF_E_NULL, {.e = {MF_FP8_E4M3}, .n = {N}},
     {ENUM("fmt", 0, MF_FORMAT_COUNT, AB_ZERO), {.kind = K_COUNT, .name = "n", .slot = 0, .bytes = 1, .err = AB_ZERO, .zero_ret = AB_ZERO}},
     {{0}}, 0, 0},
    {"mf_format_describe", t_format_describe, MF_OK, MF_E_NULL, {.e = {MF_FP8_E4M3}},
     {ENUM("fmt", 0, MF_FORMAT_COUNT, MF_E_FORMAT), PTR("out", 0, P_REQ, P_OUT, sizeof(mf_format_desc), F_NONE)}, {{0}}, 0, 0},
    {"mf_format_name", t_format_name, MF_OK, MF_E_NULL, {.e = {MF_BF16}}, {ENUM("fmt", 0, MF_FORMAT_COUNT, AB_NULLRET)}, {{0}}, 0, 0},
    {"mf_format_dtype", t_format_dtype, MF_OK, MF_E_NULL, {.e = {MF_BF16}}, {ENUM("fmt", 0, MF_FORMAT_COUNT, AB_NULLRET)}, {{0}}, 0, 0},
    {"mf_round_name", t_round_name, MF_OK, MF_E_NULL, {.e = {MF_ROUND_ODD}}, {ENUM("r", 0, MF_ROUND_COUNT, AB_NULLRET)}, {{0}}, 0, 0},
    {"mf_overflow_name", t_overflow_name, MF_OK, MF_E_NULL, {.e = {MF_OVERFLOW_SATURATE}},
     {ENUM("o", 0, MF_OVERFLOW_COUNT, AB_NULLRET)}, {{0}}, 0, 0},
    {"mf_format_from_name", t_format_from_name, MF_OK, MF_E_NULL, {.i = {0}},
     {NAMEP("name", 0, "Float8_E4M3FN"), PTR("out", 1, P_REQ, P_OUT, sizeof(mf_format), F_NONE)}, {{0}}, 0, 0},
    {"mf_round_from_name", t_round_from_name, MF_OK, MF_E_NULL, {.i = {0}},
     {NAMEP("name", 0, "RZ"), PTR("out", 1, P_REQ, P_OUT, sizeof(mf_round), F_NONE)}, {{0}}, 0, 0},
    {"mf_overflow_from_name", t_overflow_from_name, MF_OK, MF_E_NULL, {.i = {0}},
     {NAMEP("name", 0, "sat"), PTR("out", 1, P_REQ, P_OUT, sizeof(mf_overflow), F_NONE)}, {{0}}, 0, 0},
    {"mf_profile_name", t_profile_name, MF_OK, MF_E_NULL, {.e = {MF_PROFILE_TORCH}},
     {ENUM("p", 0, MF_PROFILE_COUNT, AB_NULLRET)}, {{0}}, 0, 0},
    {"mf_profile_from_name", t_profile_from_name, MF_OK, MF_E_NULL, {.i = {0}},
     {NAMEP("name", 0, "ML_DTYPES"), PTR("out", 1, P_REQ, P_OUT, sizeof(mf_profile), F_NONE)}, {{0}}, 0, 0},
    {"mf_backend", t_backend, MF_OK, MF_E_NULL, {.i = {0}}, {{0}}, {{0}}, 0, 0},
    {"mf_convert_plan", t_convert_plan, MF_OK, MF_E_NULL, {.e = {MF_FP8_E4M3, MF_FP32}, .n = {N}},
     {ENUM("dst_fmt", 0, MF_FORMAT_COUNT, MF_E_FORMAT), PTR("dst", 0, P_OPT, P_IN, N, F_NONE),
      ENUM("src_fmt", 1, MF_FORMAT_COUNT, MF_E_FORMAT), PTR("src", 1, P_OPT, P_IN, 4 * N, F_F32), COUNT("n", 0, 4),
      PTRL("opts", 2, P_OPT, P_IN, sizeof(mf_opts), F_OPTS, -1), PTR("plan", 3, P_REQ, P_OUT, sizeof(mf_plan), F_NONE),
      OPTS_FIELDS(2)},
     {{0}}, 0, 0},
    {"mf_version", t_version, MF_OK, MF_E_NULL, {.i = {0}}, {{0}}, {{0}}, 0, 0},
    /* minifloat/analyze.h, minifloat/elementwise.h (the lab) */
    {"mf_analyze", t_analyze, MF_OK, MF_E_NULL, {.e = {MF_FP8_E4M3}, .n = {N}},
     {ENUMX("fmt", 0, MF_FORMAT_COUNT, MF_E_FORMAT, MF_FP64), PTR("data", 0, P_REQN, IO, 4 * N, F_F32),
      COUNT("n", 0, 4), PTR("opts", 1, P_OPT, P_IN, sizeof(mf_analyze_opts), F_AOPTS),
      PTR("report", 2, P_REQ, P_OUT, sizeof(mf_analyze_report), F_NONE),
      FENUMX("opts->src_format", 1, mf_analyze_opts, src_format, MF_FORMAT_COUNT, MF_E_FORMAT, MF_FP8_E4M3, MF_E8M0),
      FENUM("opts->round", 1, mf_analyze_opts, round, MF_ROUND_COUNT, MF_E_ROUND),
      FENUMX("opts->overflow", 1, mf_analyze_opts, overflow, MF_OVERFLOW_COUNT, MF_E_POLICY, MF_OVERFLOW_PROPAGATE),
      FVAL("opts->scale", 1, FT_DOUBLE, mf_analyze_opts, scale, MF_E_ARG, NAN, INFINITY, -INFINITY, -1.0)},
     {{0}}, 0, 0},
    {"mf_unary", t_unary, MF_OK, MF_E_NULL, {.e = {MF_UNARY_SILU, MF_FP8_E4M3, MF_FP32}, .n = {N}},
     {ENUM("op", 0, MF_UNARY_GELU_TANH + 1, MF_E_ARG), ENUM("dst_fmt", 1, MF_FORMAT_COUNT, MF_E_FORMAT),
      PTR("dst", 0, P_REQN, OE, N, F_NONE), ENUM("src_fmt", 2, MF_FORMAT_COUNT, MF_E_FORMAT),
      PTR("src", 1, P_REQN, IO, 4 * N, F_F32), COUNT("n", 0, 4), PTRL("opts", 2, P_OPT, P_IN, sizeof(mf_opts), F_OPTS, 3),
      PTR("opts->stats", 3, P_OPT, P_OUT, sizeof(mf_stats), F_NONE), OPTS_FIELDS(2)},
     {PAIR(0, 1)}, 1, 0},
    {"mf_softmax", t_softmax, MF_OK, MF_E_NULL, {.e = {1, MF_BF16, MF_FP32}, .n = {2, N / 2}},
     {ENUM("log", 0, 2, MF_E_ARG), ENUM("dst_fmt", 1, MF_FORMAT_COUNT, MF_E_FORMAT), PTR("dst", 0, P_REQN, OE, 2 * N, F_NONE),
      ENUM("src_fmt", 2, MF_FORMAT_COUNT, MF_E_FORMAT), PTR("src", 1, P_REQN, IO, 4 * N, F_F32), DIM("rows", 0, 4, 1),
      DIM("cols", 1, 4, 1), PTRL("opts", 2, P_OPT, P_IN, sizeof(mf_opts), F_OPTS, 3),
      PTR("opts->stats", 3, P_OPT, P_OUT, sizeof(mf_stats), F_NONE), OPTS_FIELDS(2)},
     {PAIR(0, 1)}, 1, 0},
    {"mf_unary_name", t_unary_name, MF_OK, MF_E_NULL, {.e = {MF_UNARY_GELU}}, {ENUM("op", 0, MF_UNARY_GELU_TANH + 1, AB_NULLRET)}, {{0}}, 0, 0},
    {"mf_unary_from_name", t_unary_from_name, MF_OK, MF_E_NULL, {.i = {0}},
     {NAMEP("name", 0, "GELU_tanh"), PTR("out", 1, P_REQ, P_OUT, sizeof(mf_unary_op), F_NONE)}, {{0}}, 0, 0},
    {"mf_elementwise_math", t_elementwise_math, MF_OK, MF_E_NULL, {.i = {0}}, {{0}}, {{0}}, 0, 0},
    /* minifloat/memory.h (the lab) */
    {"mf_memory_plan", t_memory_plan, MF_OK, MF_E_NULL, {.i = {0}},
     {PTR("model", 0, P_REQ, P_IN, sizeof(mf_memory_model), F_MMODEL),
      PTR("recipe", 1, P_REQ, P_IN, sizeof(mf_memory_recipe), F_MRECIPE),
      PTR("cluster", 2, P_REQ, P_IN, sizeof(mf_memory_cluster), F_MCLUSTER),
      PTR("report", 3, P_REQ, P_OUT, sizeof(mf_memory_report), F_NONE),
      FENUM("model->arch", 0, mf_memory_model, arch, 2, MF_E_ARG),
      FENUMX("recipe->params", 1, mf_memory_recipe, params, MF_FORMAT_COUNT, MF_E_FORMAT, MF_FP64, MF_E8M0),
      FENUM("recipe->act_gemm.scaling", 1, mf_memory_recipe, act_gemm.scaling, MF_MEMORY_SCALING_COUNT, MF_E_ARG),
      FENUMX("recipe->gemm_weights.format", 1, mf_memory_recipe, gemm_weights.format, MF_FORMAT_COUNT, MF_E_FORMAT,
             MF_FP64, MF_E8M0),
      FENUM("cluster->zero_stage", 2, mf_memory_cluster, zero_stage, 4, MF_E_ARG),
      FENUM("cluster->zero_rule", 2, mf_memory_cluster, zero_rule, 2, MF_E_ARG),
      FENUM("cluster->recompute", 2, mf_memory_cluster, recompute, 3, MF_E_ARG),
      FVAL("cluster->cpu_buffer_factor", 2, FT_DOUBLE, mf_memory_cluster, cpu_buffer_factor, MF_E_ARG, NAN, INFINITY,
           -INFINITY, -1.0)},
     {{0}}, 0, 0},
    {"mf_memory_cluster_default", t_memory_cluster_default, MF_OK, MF_E_NULL, {.i = {0}},
     {PTR("cluster", 0, P_REQ, P_OUT, sizeof(mf_memory_cluster), F_NONE)}, {{0}}, 0, 0},
    {"mf_memory_model_preset", t_memory_model_preset, MF_OK, MF_E_NULL, {.i = {0}},
     {NAMEP("name", 0, "Llama3-70B"), PTR("model", 1, P_REQ, P_OUT, sizeof(mf_memory_model), F_NONE)}, {{0}}, 0, 0},
    {"mf_memory_recipe_preset", t_memory_recipe_preset, MF_OK, MF_E_NULL, {.i = {0}},
     {NAMEP("name", 0, "NVFP4"), PTR("recipe", 1, P_REQ, P_OUT, sizeof(mf_memory_recipe), F_NONE)}, {{0}}, 0, 0},
    {"mf_memory_gpu_preset", t_memory_gpu_preset, MF_OK, MF_E_NULL, {.i = {0}},
     {NAMEP("name", 0, "b200"), PTR("bytes", 1, P_REQ, P_OUT, sizeof(uint64_t), F_NONE)}, {{0}}, 0, 0},
    {"mf_memory_name", t_memory_name, MF_OK, MF_E_NULL, {.e = {3}}, {ENUM("kind", 0, 4, AB_NULLRET)}, {{0}}, 0, 0},
    /* minifloat/fp8_scaling.h */
    {"mf_fp8_max", t_fp8_max, MF_OK, MF_E_NULL, {.e = {MF_FP8_E5M2}},
     {ENUMX("fp8_fmt", 0, MF_FORMAT_COUNT, MF_E_FORMAT, MF_FP16, MF_FP6_E2M3, MF_E8M0),
      PTR("max", 0, P_REQ, P_OUT, sizeof(float), F_NONE)}, {{0}}, 0, 0},
    {"mf_amax", t_amax, MF_OK, MF_E_NULL, {.e = {MF_FP32}, .n = {N}},
     {ENUMX("fmt", 0, MF_FORMAT_COUNT, MF_E_FORMAT, MF_FP8_E4M3, MF_FP4_E2M1), PTR("x", 0, P_REQN, IO, 4 * N, F_F32),
      COUNT("n", 0, 4), PTR("amax", 1, P_REQ, P_OUT, sizeof(float), F_NONE)}, {{0}}, 0, 0},
    {"mf_scale_from_amax", t_scale_from_amax, MF_OK, MF_E_NULL, {.f = {3.5f, 448.0f, 0.0f}}, {{0}}, {{0}}, 0, 0},
    {"mf_fp8_current_scale", t_fp8_current_scale, MF_OK, MF_E_NULL, {.e = {MF_FP8_E4M3}, .f = {3.5f, 0.0f}},
     {ENUMX("fp8_fmt", 0, MF_FORMAT_COUNT, MF_E_FORMAT, MF_FP32, MF_FP6_E3M2), FLT("epsilon", 1, MF_E_ARG, BAD_NONNEG),
      PTR("scale", 0, P_REQ, P_OUT, sizeof(float), F_NONE), PTR("scale_inv", 1, P_OPT, P_OUT, sizeof(float), F_NONE)},
     {{0}}, 0, 0},
    {"mf_fp8_quantize", t_fp8_quantize, MF_OK, MF_E_NULL, {.e = {MF_FP8_E4M3, MF_FP32}, .n = {N}, .f = {2.0f}},
     {ENUMX("dst_fmt", 0, MF_FORMAT_COUNT, MF_E_FORMAT, MF_FP16, MF_E8M0), PTR("dst", 0, P_REQN, OE, N, F_NONE),
      ENUMX("src_fmt", 1, MF_FORMAT_COUNT, MF_E_FORMAT, MF_FP8_E4M3, MF_FP64), PTR("src", 1, P_REQN, IO, 4 * N, F_F32),
      COUNT("n", 0, 4), FLT("scale", 0, MF_E_ARG, BAD_POS), PTR("amax", 2, P_OPT, P_OUT, sizeof(float), F_NONE)},
     {PAIR(0, 1)}, 1, 0},
    {"mf_fp8_dequantize", t_fp8_dequantize, MF_OK, MF_E_NULL, {.e = {MF_FP32, MF_FP8_E5M2}, .n = {N}, .f = {0.25f}},
     {ENUMX("dst_fmt", 0, MF_FORMAT_COUNT, MF_E_FORMAT, MF_FP8_E4M3, MF_FP64), PTR("dst", 0, P_REQN, OE, 4 * N, F_NONE),
      ENUMX("src_fmt", 1, MF_FORMAT_COUNT, MF_E_FORMAT, MF_FP32, MF_E8M0), PTR("src", 1, P_REQN, IO, N, F_BYTES),
      COUNT("n", 0, 4), FLT("scale_inv", 0, MF_E_ARG, BAD_POS)},
     {PAIR(0, 1)}, 1, 0},
    {"mf_fp8_quantize_current", t_fp8_quantize_current, MF_OK, MF_E_NULL, {.e = {MF_FP8_E5M2, MF_FP32}, .n = {N}, .i = {1}},
     {ENUMX("dst_fmt", 0, MF_FORMAT_COUNT, MF_E_FORMAT, MF_BF16), PTR("dst", 0, P_REQN, OE, N, F_NONE),
      ENUMX("src_fmt", 1, MF_FORMAT_COUNT, MF_E_FORMAT, MF_FP8_E5M2), PTR("src", 1, P_REQN, IO, 4 * N, F_F32),
      COUNT("n", 0, 4), FLT("epsilon", 0, MF_E_ARG, BAD_NONNEG), PTR("amax", 2, P_OPT, P_OUT, sizeof(float), F_NONE),
      PTR("scale", 3, P_OPT, P_OUT, sizeof(float), F_NONE), PTR("scale_inv", 4, P_OPT, P_OUT, sizeof(float), F_NONE)},
     {PAIR(0, 1)}, 1, 0},
    {"mf_fp8_quantize_current_reduced", t_fp8_quantize_current_reduced, MF_OK, MF_E_NULL,
     {.e = {MF_FP8_E5M2, MF_FP32}, .n = {N}, .i = {1}},
     {ENUMX("dst_fmt", 0, MF_FORMAT_COUNT, MF_E_FORMAT, MF_BF16), PTR("dst", 0, P_REQN, OE, N, F_NONE),
      ENUMX("src_fmt", 1, MF_FORMAT_COUNT, MF_E_FORMAT, MF_FP8_E5M2), PTR("src", 1, P_REQN, IO, 4 * N, F_F32),
      COUNT("n", 0, 4), FLT("epsilon", 0, MF_E_ARG, BAD_NONNEG), PTR("amax", 2, P_OPT, P_OUT, sizeof(float), F_NONE),
      PTR("scale", 3, P_OPT, P_OUT, sizeof(float), F_NONE), PTR("scale_inv", 4, P_OPT, P_OUT, sizeof(float), F_NONE),
      PTR("hook", 5, P_OPT, P_IN, sizeof(mf_reduce_hook), F_HOOK)},
     {PAIR(0, 1)}, 1, 0},
    {"mf_fp8_delayed_update_many", t_fp8_delayed_update_many, MF_OK, MF_E_NULL, {.n = {1}},
     {PTR("st", 0, P_REQN, P_INOUT, sizeof(mf_fp8_delayed), F_DSTATE), COUNT("count", 0, sizeof(mf_fp8_delayed))},
     {{0}}, 0, 0},
    {"mf_fp8_delayed_default", t_fp8_delayed_default, MF_OK, MF_E_NULL, {.e = {MF_FP8_E4M3}},
     {ENUMX("fp8_fmt", 0, NO_FAIL, MF_OK, -1, MF_FORMAT_COUNT, INT_MAX)}, {{0}}, 0, 0},
    {"mf_fp8_delayed_init", t_fp8_delayed_init, MF_OK, MF_E_NULL, {.i = {0}},
     {PTR("st", 0, P_REQ, P_OUT, sizeof(mf_fp8_delayed), F_NONE), PTR("cfg", 1, P_REQ, P_IN, sizeof(mf_fp8_delayed_cfg), F_DCFG),
      FENUMX("cfg->fmt", 1, mf_fp8_delayed_cfg, fmt, MF_FORMAT_COUNT, MF_E_FORMAT, MF_FP32, MF_FP4_E2M1),
      FVAL("cfg->history_len", 1, FT_SIZE, mf_fp8_delayed_cfg, history_len, MF_E_ARG, 0, MF_FP8_HISTORY_MAX + 1, (double)SIZE_MAX),
      FENUM("cfg->algo", 1, mf_fp8_delayed_cfg, algo, 2, MF_E_ARG),
      FVAL("cfg->margin", 1, FT_INT, mf_fp8_delayed_cfg, margin, MF_E_ARG, -127, 127, INT_MIN, INT_MAX),
      FVAL("cfg->roll_on_zero_amax", 1, FT_INT, mf_fp8_delayed_cfg, roll_on_zero_amax, MF_E_ARG, -1, 2, INT_MAX),
      FVAL("cfg->initial_scale", 1, FT_FLOAT, mf_fp8_delayed_cfg, initial_scale, MF_E_ARG, BAD_POS)},
     {{0}}, 0, 0},
    {"mf_fp8_delayed_record", t_fp8_delayed_record, MF_OK, MF_E_NULL, {.f = {3.5f}},
     {PTR("st", 0, P_REQ, P_INOUT, sizeof(mf_fp8_delayed), F_DSTATE), FLT("amax", 0, MF_E_ARG, -1.0, -INFINITY, -FLT_MIN, -NAN)},
     {{0}}, 0, 0},
    {"mf_fp8_delayed_update", t_fp8_delayed_update, MF_OK, MF_E_NULL, {.i = {0}},
     {PTR("st", 0, P_REQ, P_INOUT, sizeof(mf_fp8_delayed), F_DSTATE)}, {{0}}, 0, 0},
    {"mf_fp8_delayed_quantize", t_fp8_delayed_quantize, MF_OK, MF_E_NULL, {.e = {MF_FP32}, .n = {N}},
     {PTR("st", 0, P_REQ, P_INOUT, sizeof(mf_fp8_delayed), F_DSTATE), PTR("dst", 1, P_REQN, OE, N, F_NONE),
      ENUMX("src_fmt", 0, MF_FORMAT_COUNT, MF_E_FORMAT, MF_FP64, MF_FP8_E4M3), PTR("src", 2, P_REQN, IO, 4 * N, F_F32),
      COUNT("n", 0, 4)},
     {PAIR(1, 2)}, 1, 0},
    {"mf_fp8_block_scale_shape", t_fp8_block_scale_shape, MF_OK, MF_E_NULL, {.e = {MF_FP8_BLOCK_128X128}, .n = {300, 5}},
     {ENUM("kind", 0, MF_FP8_BLOCK_128X1 + 1, MF_E_ARG),
      {.kind = K_COUNT, .name = "rows", .slot = 0, .bytes = 1, .err = MF_OK},
      {.kind = K_COUNT, .name = "cols", .slot = 1, .bytes = 1, .err = MF_OK},
      PTR("scale_rows", 0, P_REQ, P_OUT, sizeof(size_t), F_NONE), PTR("scale_cols", 1, P_REQ, P_OUT, sizeof(size_t), F_NONE)},
     {{0}}, 0, 0},
    {"mf_fp8_block_quantize", t_fp8_block_quantize, MF_OK, MF_E_NULL,
     {.e = {MF_FP8_E4M3, MF_FP32, MF_FP8_BLOCK_1X128}, .n = {3, 130}, .i = {1}},
     {ENUMX("dst_fmt", 0, MF_FORMAT_COUNT, MF_E_FORMAT, MF_FP16), PTR("dst", 0, P_REQN, OE, 390, F_NONE),
      PTR("scale_inv", 1, P_REQN, OE, 6 * 4, F_NONE), ENUMX("src_fmt", 1, MF_FORMAT_COUNT, MF_E_FORMAT, MF_FP64),
      PTR("src", 2, P_REQN, IO, 390 * 4, F_F32), DIM("rows", 0, 4, 1), DIM("cols", 1, 4, 1),
      ENUM("kind", 2, MF_FP8_BLOCK_128X1 + 1, MF_E_ARG), FLT("epsilon", 0, MF_E_ARG, BAD_NONNEG)},
     {PAIR(0, 2), PAIR(1, 2), PAIR(0, 1)}, 3, 0},
    {"mf_fp8_block_dequantize", t_fp8_block_dequantize, MF_OK, MF_E_NULL,
     {.e = {MF_FP32, MF_FP8_E4M3, MF_FP8_BLOCK_1X128}, .n = {3, 130}},
     {ENUMX("dst_fmt", 0, MF_FORMAT_COUNT, MF_E_FORMAT, MF_FP8_E4M3), PTR("dst", 0, P_REQN, OE, 390 * 4, F_NONE),
      ENUMX("src_fmt", 1, MF_FORMAT_COUNT, MF_E_FORMAT, MF_FP16), PTR("src", 1, P_REQN, IO, 390, F_BYTES),
      PTR("scale_inv", 2, P_REQN, IO, 6 * 4, F_SCALE), DIM("rows", 0, 4, 1), DIM("cols", 1, 4, 1),
      ENUM("kind", 2, MF_FP8_BLOCK_128X1 + 1, MF_E_ARG)},
     {PAIR(0, 1), PAIR(0, 2)}, 2, 0},
    /* minifloat/loss_scale.h */
    {"mf_loss_scaler_config_default", t_loss_scaler_config_default, MF_OK, MF_E_NULL, {.i = {0}}, {{0}}, {{0}}, 0, 0},
    {"mf_loss_scaler_default", t_loss_scaler_default, MF_OK, MF_E_NULL, {.i = {0}}, {{0}}, {{0}}, 0, 0},
    {"mf_loss_scaler_init", t_loss_scaler_init, MF_OK, MF_E_NULL, {.i = {0}},
     {PTR("s", 0, P_REQ, P_OUT, sizeof(mf_loss_scaler), F_NONE), PTR("cfg", 1, P_REQ, P_IN, sizeof(mf_loss_scaler_config), F_LCFG),
      FVAL("cfg->init_scale", 1, FT_FLOAT, mf_loss_scaler_config, init_scale, MF_E_ARG, BAD_POS),
      FVAL("cfg->growth_factor", 1, FT_FLOAT, mf_loss_scaler_config, growth_factor, MF_E_ARG, NAN, INFINITY, 0.5, 0.0, -2.0),
      FVAL("cfg->backoff_factor", 1, FT_FLOAT, mf_loss_scaler_config, backoff_factor, MF_E_ARG, NAN, 0.0, -0.5, 1.5, INFINITY),
      FVAL("cfg->growth_interval", 1, FT_INT, mf_loss_scaler_config, growth_interval, MF_E_ARG, 0, -1, INT_MIN),
      FVAL("cfg->hysteresis", 1, FT_INT, mf_loss_scaler_config, hysteresis, MF_E_ARG, 0, -1, INT_MIN),
      FVAL("cfg->min_scale", 1, FT_FLOAT, mf_loss_scaler_config, min_scale, MF_E_ARG, NAN, INFINITY, -1.0, -0.0, 1e30),
      FVAL("cfg->max_scale", 1, FT_FLOAT, mf_loss_scaler_config, max_scale, MF_E_ARG, NAN, INFINITY, -1.0, -0.0, 1.0)},
     {{0}}, 0, 0},
    {"mf_loss_scaler_scale", t_loss_scaler_scale, MF_OK, AB_NAN, {.i = {0}},
     {PTR("s", 0, P_REQ, P_IN, sizeof(mf_loss_scaler), F_SCALER)}, {{0}}, 0, 0},
    {"mf_loss_scaler_inv_scale", t_loss_scaler_inv_scale, MF_OK, AB_NAN, {.i = {0}},
     {PTR("s", 0, P_REQ, P_IN, sizeof(mf_loss_scaler), F_SCALER)}, {{0}}, 0, 0},
    {"mf_scale_loss", t_scale_loss, MF_OK, AB_NAN, {.f = {0.75f}},
     {PTR("s", 0, P_REQ, P_IN, sizeof(mf_loss_scaler), F_SCALER)}, {{0}}, 0, 0},
    {"mf_unscale_check", t_unscale_check, MF_OK, MF_E_NULL, {.e = {MF_FP32}, .n = {N}},
     {PTR("s", 0, P_REQ, P_IN, sizeof(mf_loss_scaler), F_SCALER),
      ENUMX("fmt", 0, MF_FORMAT_COUNT, MF_E_FORMAT, MF_FP8_E4M3, MF_FP64), PTR("grads", 1, P_REQN, IOE, 4 * N, F_F32),
      COUNT("n", 0, 4)},
     {{0}}, 0, 0},
    {"mf_unscale_check_tensors", t_unscale_check_tensors, MF_OK, MF_E_NULL, {.n = {2}},
     {PTR("s", 0, P_REQ, P_IN, sizeof(mf_loss_scaler), F_SCALER),
      PTRL("tensors", 1, P_REQN, IO, 2 * sizeof(mf_tensor), F_TENSORS, 2), COUNT("count", 0, sizeof(mf_tensor)),
      PTR("tensors[0].data", 2, P_REQN, IOE, 4 * 32, F_F32), PTR("tensors[1].data", 3, P_REQN, IOE, 2 * 64, F_BYTES),
      FENUMX("tensors[0].format", 1, mf_tensor, format, MF_FORMAT_COUNT, MF_E_FORMAT, MF_FP8_E5M2),
      FVAL("tensors[0].n", 1, FT_SIZE, mf_tensor, n, MF_E_SIZE, (double)SIZE_MAX, (double)(SIZE_MAX / 4 + 1),
           0x1p57)},
     {{0}}, 0, 0},
    {"mf_loss_scaler_update", t_loss_scaler_update, MF_OK, MF_E_NULL, {.i = {1}},
     {PTR("s", 0, P_REQ, P_INOUT, sizeof(mf_loss_scaler), F_SCALER)}, {{0}}, 0, 0},
    /* minifloat/mx.h */
    {"mf_mx_sizes", t_mx_sizes, MF_OK, MF_E_NULL, {.e = {MF_MXFP6_E3M2, MF_MX_ROWWISE, MF_MX_FP6_PACKED}, .n = {2, N}},
     {ENUM("type", 0, MF_MXINT8 + 1, MF_E_FORMAT), ENUM("axis", 1, 2, MF_E_ARG), ENUMX("flags", 2, NO_FAIL, MF_E_ARG, 2, 0x100, -1),
      DIM("rows", 0, 1, 1), DIM("cols", 1, 1, 32), PTR("elem_bytes", 0, P_OPT, P_OUT, sizeof(size_t), F_NONE),
      PTR("scale_count", 1, P_OPT, P_OUT, sizeof(size_t), F_NONE)},
     {{0}}, 0, 0},
    {"mf_mx_scale_code", t_mx_scale_code, MF_OK, MF_E_NULL, {.e = {MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR}, .f = {3.5f}},
     {ENUM("type", 0, MF_MXINT8 + 1, MF_E_FORMAT), ENUM("rule", 1, 2, MF_E_ARG)}, {{0}}, 0, 0},
    {"mf_mx_quantize", t_mx_quantize, MF_OK, MF_E_NULL,
     {.e = {MF_MXFP4_E2M1, MF_MX_SCALE_RCEIL, MF_MX_ROWWISE, 0}, .n = {2, N}},
     {ENUM("type", 0, MF_MXINT8 + 1, MF_E_FORMAT), ENUM("rule", 1, 2, MF_E_ARG), ENUM("axis", 2, 2, MF_E_ARG),
      ENUMX("flags", 3, NO_FAIL, MF_E_ARG, 1, 2, -1), PTR("x", 0, P_REQN, IO, 2 * N * 4, F_F32), DIM("rows", 0, 4, 1),
      DIM("cols", 1, 4, 32), PTR("elems", 1, P_REQN, OE, N, F_NONE), PTR("scales", 2, P_REQN, OE, 4, F_NONE),
      PTRL("opts", 3, P_OPT, P_IN, sizeof(mf_opts), F_OPTS, 4), PTR("opts->stats", 4, P_OPT, P_OUT, sizeof(mf_stats), F_NONE),
      FENUMX("opts->round", 3, mf_opts, round, MF_ROUND_COUNT, MF_E_ROUND, MF_ROUND_TOWARD_ZERO, MF_ROUND_ODD),
      FENUMX("opts->overflow", 3, mf_opts, overflow, MF_OVERFLOW_COUNT, MF_E_POLICY, MF_OVERFLOW_PROPAGATE),
      FVAL("opts->threads", 3, FT_INT, mf_opts, threads, MF_E_ARG, -1, INT_MIN)},
     {PAIR(1, 0), PAIR(2, 0), PAIR(1, 2)}, 3, 0},
    {"mf_mx_dequantize", t_mx_dequantize, MF_OK, MF_E_NULL, {.e = {MF_MXFP8_E4M3, MF_MX_COLWISE, 0}, .n = {N, 2}},
     {ENUM("type", 0, MF_MXINT8 + 1, MF_E_FORMAT), ENUM("axis", 1, 2, MF_E_ARG), ENUMX("flags", 2, NO_FAIL, MF_E_ARG, 1, 4, -1),
      PTR("elems", 0, P_REQN, IO, 2 * N, F_BYTES), PTR("scales", 1, P_REQN, IO, 4, F_E8M0), DIM("rows", 0, 4, 32),
      DIM("cols", 1, 4, 1), PTR("y", 2, P_REQN, OE, 2 * N * 4, F_NONE)},
     {PAIR(2, 0), PAIR(2, 1)}, 2, 0},
    {"mf_fp6_pack", t_fp6_pack, MF_OK, MF_E_NULL, {.n = {N}},
     {PTR("dst", 0, P_REQN, OE, 3 * N / 4, F_NONE), PTR("src", 1, P_REQN, IO, N, F_BYTES), COUNT("n", 0, 1)},
     {PAIR(0, 1)}, 1, 0},
    {"mf_fp6_unpack", t_fp6_unpack, MF_OK, MF_E_NULL, {.n = {N}},
     {PTR("dst", 0, P_REQN, OE, N, F_NONE), PTR("src", 1, P_REQN, IO, 3 * N / 4, F_BYTES), COUNT("n", 0, 1)},
     {PAIR(0, 1)}, 1, 0},
    {"mf_nvfp4_sizes", t_nvfp4_sizes, MF_OK, MF_E_NULL, {.e = {MF_MX_ROWWISE}, .n = {3, 32}},
     {ENUM("axis", 0, 2, MF_E_ARG), DIM("rows", 0, 1, 1), DIM("cols", 1, 1, 16),
      PTR("elem_bytes", 0, P_OPT, P_OUT, sizeof(size_t), F_NONE), PTR("scale_count", 1, P_OPT, P_OUT, sizeof(size_t), F_NONE)},
     {{0}}, 0, 0},
    {"mf_nvfp4_global_scale", t_nvfp4_global_scale, MF_OK, MF_E_NULL, {.f = {3.5f}}, {{0}}, {{0}}, 0, 0},
    {"mf_nvfp4_quantize", t_nvfp4_quantize, MF_OK, MF_E_NULL, {.e = {MF_MX_ROWWISE}, .n = {2, 32}},
     {ENUM("axis", 0, 2, MF_E_ARG), PTR("x", 0, P_REQN, IO, 64 * 4, F_F32), DIM("rows", 0, 4, 1), DIM("cols", 1, 4, 16),
      PTR("elems", 1, P_REQN, OE, 32, F_NONE), PTR("scales", 2, P_REQN, OE, 4, F_NONE),
      PTR("amax_in", 3, P_OPT, P_IN, sizeof(float), F_AMAX), PTR("amax_out", 4, P_OPT, P_OUT, sizeof(float), F_NONE),
      PTRL("opts", 5, P_OPT, P_IN, sizeof(mf_opts), F_OPTS, 6), PTR("opts->stats", 6, P_OPT, P_OUT, sizeof(mf_stats), F_NONE),
      {.kind = K_FIELD, .name = "*amax_in", .slot = 3, .ftype = FT_FLOAT, .offset = 0, .err = MF_E_ARG,
       .bad = {-1.0, NAN, -NAN, -INFINITY, -FLT_MIN}, .n_bad = 5},
      FENUMX("opts->round", 5, mf_opts, round, MF_ROUND_COUNT, MF_E_ROUND, MF_ROUND_UP),
      FENUMX("opts->overflow", 5, mf_opts, overflow, MF_OVERFLOW_COUNT, MF_E_POLICY, MF_OVERFLOW_PROPAGATE),
      FVAL("opts->threads", 5, FT_INT, mf_opts, threads, MF_E_ARG, -1, INT_MIN)},
     {PAIR(1, 0), PAIR(2, 0), PAIR(1, 2)}, 3, 0},
    {"mf_nvfp4_dequantize", t_nvfp4_dequantize, MF_OK, MF_E_NULL, {.e = {MF_MX_COLWISE}, .n = {32, 2}, .f = {3.5f}},
     {ENUM("axis", 0, 2, MF_E_ARG), PTR("elems", 0, P_REQN, IO, 32, F_BYTES), PTR("scales", 1, P_REQN, IO, 4, F_E4M3S),
      DIM("rows", 0, 4, 16), DIM("cols", 1, 4, 1), PTR("y", 2, P_REQN, OE, 64 * 4, F_NONE)},
     {PAIR(2, 0), PAIR(2, 1)}, 2, 0},
    /* minifloat/gemm.h: C (3 x 4 f32, read: beta = 0.5) = A (3 x 5 e4m3) B (5 x 4 bf16), row-major */
    {"mf_gemm_plan", t_gemm_plan, MF_OK, MF_E_NULL, {.e = {MF_FP8_E4M3, MF_BF16}},
     {ENUMX("fmt_a", 0, MF_FORMAT_COUNT, MF_E_FORMAT, MF_E8M0, MF_FP64),
      ENUMX("fmt_b", 1, MF_FORMAT_COUNT, MF_E_FORMAT, MF_E8M0, MF_FP64),
      PTRL("opts", 0, P_OPT, P_IN, sizeof(mf_gemm_opts), F_GOPTS, -1),
      PTR("plan", 1, P_REQ, P_OUT, sizeof(mf_gemm_plan_info), F_NONE),
      FENUM("opts->accum", 0, mf_gemm_opts, accum, MF_ACCUM_COUNT, MF_E_ARG),
      FENUM("opts->scale_a.kind", 0, mf_gemm_opts, scale_a.kind, MF_GEMM_SCALE_COUNT, MF_E_ARG),
      FENUM("opts->scale_b.kind", 0, mf_gemm_opts, scale_b.kind, MF_GEMM_SCALE_COUNT, MF_E_ARG),
      FENUM("opts->round", 0, mf_gemm_opts, round, MF_ROUND_COUNT, MF_E_ROUND),
      FENUMX("opts->overflow", 0, mf_gemm_opts, overflow, MF_OVERFLOW_COUNT, MF_E_POLICY, MF_OVERFLOW_PROPAGATE),
      FVAL("opts->threads", 0, FT_INT, mf_gemm_opts, threads, MF_E_ARG, -1, INT_MIN)},
     {{0}}, 0, 0},
    {"mf_gemm", t_gemm, MF_OK, MF_E_NULL,
     {.e = {MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, MF_FP8_E4M3, MF_BF16, MF_FP32}, .n = {3, 4, 5, 5, 4, 4}, .f = {1.0f, 0.5f}},
     {ENUM("layout", 0, 2, MF_E_ARG), ENUM("trans_a", 1, 2, MF_E_ARG), ENUM("trans_b", 2, 2, MF_E_ARG),
      COUNT("m", 0, 4), {.kind = K_COUNT, .name = "n", .slot = 1, .bytes = 4, .err = MF_E_ARG}, /* n > ldb */
      {.kind = K_COUNT, .name = "k", .slot = 2, .bytes = 4, .err = MF_E_ARG, .zero_writes = 1}, /* k > lda */
      PTR("a", 0, P_REQN, IO, 15, F_BYTES), ENUMX("fmt_a", 3, MF_FORMAT_COUNT, MF_E_FORMAT, MF_E8M0, MF_FP64),
      LD("lda", 3, 1), PTR("b", 1, P_REQN, IO, 40, F_BYTES), ENUMX("fmt_b", 4, MF_FORMAT_COUNT, MF_E_FORMAT, MF_E8M0, MF_FP64),
      LD("ldb", 4, 2), PTR("c", 2, P_REQN, IOE, 48, F_F32),
      ENUMX("fmt_c", 5, MF_FORMAT_COUNT, MF_E_FORMAT, MF_FP8_E4M3, MF_FP64, MF_FP4_E2M1), LD("ldc", 5, 4),
      PTRL("opts", 3, P_OPT, P_IN, sizeof(mf_gemm_opts), F_GOPTS, 4), PTR("opts->stats", 4, P_OPT, P_OUT, sizeof(mf_stats), F_NONE),
      FENUM("opts->accum", 3, mf_gemm_opts, accum, MF_ACCUM_COUNT, MF_E_ARG),
      FENUM("opts->scale_a.kind", 3, mf_gemm_opts, scale_a.kind, MF_GEMM_SCALE_COUNT, MF_E_ARG),
      FENUM("opts->scale_b.kind", 3, mf_gemm_opts, scale_b.kind, MF_GEMM_SCALE_COUNT, MF_E_ARG),
      FENUM("opts->round", 3, mf_gemm_opts, round, MF_ROUND_COUNT, MF_E_ROUND),
      FENUMX("opts->overflow", 3, mf_gemm_opts, overflow, MF_OVERFLOW_COUNT, MF_E_POLICY, MF_OVERFLOW_PROPAGATE),
      FVAL("opts->threads", 3, FT_INT, mf_gemm_opts, threads, MF_E_ARG, -1, INT_MIN),
      FVAL("opts->promote_every", 3, FT_SIZE, mf_gemm_opts, promote_every, MF_E_ARG, 1, 128, (double)SIZE_MAX)},
     {PAIR(2, 0), PAIR(2, 1)}, 2, 1u << 0},
    /* minifloat/cuda.h: the host rows above, on the GPU (stream NULL) */
    {"mf_cuda_built", t_cuda_built, MF_OK, MF_E_NULL, {.i = {0}}, {{0}}, {{0}}, 0, 0},
    {"mf_cuda_device_count", t_cuda_device_count, MF_OK, MF_E_NULL, {.i = {0}}, {{0}}, {{0}}, 0, 0},
    {"mf_cuda_convert", t_cuda_convert, MF_OK, MF_E_NULL, {.e = {MF_FP8_E4M3, MF_FP32}, .n = {N}},
     {ENUM("dst_fmt", 0, MF_FORMAT_COUNT, MF_E_FORMAT), PTR("dst", 0, P_REQN, OE, N, F_NONE),
      ENUM("src_fmt", 1, MF_FORMAT_COUNT, MF_E_FORMAT), PTR("src", 1, P_REQN, IO, 4 * N, F_F32), COUNT("n", 0, 4),
      PTRL("opts", 2, P_OPT, P_IN, sizeof(mf_opts), F_OPTS, 3), PTR("opts->stats", 3, P_OPT, P_OUT, sizeof(mf_stats), F_NONE),
      OPTS_FIELDS(2)},
     {PAIR(0, 1)}, 1, 0},
    {"mf_cuda_unscale_check", t_cuda_unscale_check, MF_OK, MF_E_NULL, {.e = {MF_FP32}, .n = {N}},
     {PTR("s", 0, P_REQ, P_IN, sizeof(mf_loss_scaler), F_SCALER),
      ENUMX("fmt", 0, MF_FORMAT_COUNT, MF_E_FORMAT, MF_FP8_E4M3, MF_FP64), PTR("grads", 1, P_REQN, IOE, 4 * N, F_F32),
      COUNT("n", 0, 4)},
     {{0}}, 0, 0},
    {"mf_cuda_amax", t_cuda_amax, MF_OK, MF_E_NULL, {.e = {MF_FP32}, .n = {N}},
     {ENUMX("fmt", 0, MF_FORMAT_COUNT, MF_E_FORMAT, MF_FP8_E4M3, MF_FP4_E2M1), PTR("x", 0, P_REQN, IO, 4 * N, F_F32),
      COUNT("n", 0, 4), PTR("amax", 1, P_REQ, P_OUT, sizeof(float), F_NONE)}, {{0}}, 0, 0},
    {"mf_cuda_mx_quantize", t_cuda_mx_quantize, MF_OK, MF_E_NULL,
     {.e = {MF_MXFP4_E2M1, MF_MX_SCALE_RCEIL, MF_MX_ROWWISE, 0}, .n = {2, N}},
     {ENUM("type", 0, MF_MXINT8 + 1, MF_E_FORMAT), ENUM("rule", 1, 2, MF_E_ARG), ENUM("axis", 2, 2, MF_E_ARG),
      ENUMX("flags", 3, NO_FAIL, MF_E_ARG, 1, 2, -1), PTR("x", 0, P_REQN, IO, 2 * N * 4, F_F32), DIM("rows", 0, 4, 1),
      DIM("cols", 1, 4, 32), PTR("elems", 1, P_REQN, OE, N, F_NONE), PTR("scales", 2, P_REQN, OE, 4, F_NONE),
      PTRL("opts", 3, P_OPT, P_IN, sizeof(mf_opts), F_OPTS, 4), PTR("opts->stats", 4, P_OPT, P_OUT, sizeof(mf_stats), F_NONE),
      FENUMX("opts->round", 3, mf_opts, round, MF_ROUND_COUNT, MF_E_ROUND, MF_ROUND_TOWARD_ZERO, MF_ROUND_ODD),
      FENUMX("opts->overflow", 3, mf_opts, overflow, MF_OVERFLOW_COUNT, MF_E_POLICY, MF_OVERFLOW_PROPAGATE),
      FVAL("opts->threads", 3, FT_INT, mf_opts, threads, MF_E_ARG, -1, INT_MIN)},
     {PAIR(1, 0), PAIR(2, 0), PAIR(1, 2)}, 3, 0},
    {"mf_cuda_nvfp4_quantize", t_cuda_nvfp4_quantize, MF_OK, MF_E_NULL, {.e = {MF_MX_ROWWISE}, .n = {2, 32}},
     {ENUM("axis", 0, 2, MF_E_ARG), PTR("x", 0, P_REQN, IO, 64 * 4, F_F32), DIM("rows", 0, 4, 1), DIM("cols", 1, 4, 16),
      PTR("elems", 1, P_REQN, OE, 32, F_NONE), PTR("scales", 2, P_REQN, OE, 4, F_NONE),
      PTR("amax_in", 3, P_OPT, P_IN, sizeof(float), F_AMAX), PTR("amax_out", 4, P_OPT, P_OUT, sizeof(float), F_NONE),
      PTRL("opts", 5, P_OPT, P_IN, sizeof(mf_opts), F_OPTS, 6), PTR("opts->stats", 6, P_OPT, P_OUT, sizeof(mf_stats), F_NONE),
      {.kind = K_FIELD, .name = "*amax_in", .slot = 3, .ftype = FT_FLOAT, .offset = 0, .err = MF_E_ARG,
       .bad = {-1.0, NAN, -NAN, -INFINITY, -FLT_MIN}, .n_bad = 5},
      FENUMX("opts->round", 5, mf_opts, round, MF_ROUND_COUNT, MF_E_ROUND, MF_ROUND_UP),
      FENUMX("opts->overflow", 5, mf_opts, overflow, MF_OVERFLOW_COUNT, MF_E_POLICY, MF_OVERFLOW_PROPAGATE),
      FVAL("opts->threads", 5, FT_INT, mf_opts, threads, MF_E_ARG, -1, INT_MIN)},
     {PAIR(1, 0), PAIR(2, 0), PAIR(1, 2)}, 3, 0},
    /* C (3 x 4 f32, read: beta = 0.5) = A (3 x 5 f16) B (5 x 4 f16), row-major; k = 0 still writes C */
    {"mf_cuda_gemm", t_cuda_gemm, MF_OK, MF_E_NULL,
     {.e = {MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, MF_FP16, MF_FP16}, .n = {3, 4, 5, 5, 4, 4}, .f = {1.0f, 0.5f}},
     {ENUM("layout", 0, 2, MF_E_ARG), ENUM("trans_a", 1, 2, MF_E_ARG), ENUM("trans_b", 2, 2, MF_E_ARG),
      COUNT("m", 0, 4), {.kind = K_COUNT, .name = "n", .slot = 1, .bytes = 4, .err = MF_E_ARG}, /* n > ldb */
      {.kind = K_COUNT, .name = "k", .slot = 2, .bytes = 4, .err = MF_E_ARG, .zero_writes = 1, .zero_ret = AB_OKRT},
      PTR("a", 0, P_REQN, IO, 30, F_BYTES),
      ENUMX("fmt_a", 3, MF_FORMAT_COUNT, MF_E_FORMAT, MF_FP32, MF_BF16, MF_FP8_E4M3, MF_FP6_E2M3, MF_E8M0, MF_FP64),
      LD("lda", 3, 2), PTR("b", 1, P_REQN, IO, 40, F_BYTES),
      ENUMX("fmt_b", 4, MF_FORMAT_COUNT, MF_E_FORMAT, MF_FP32, MF_BF16, MF_FP8_E5M2, MF_FP4_E2M1, MF_FP64),
      LD("ldb", 4, 2), PTR("c", 2, P_REQN, IOE, 48, F_F32), LD("ldc", 5, 4)},
     {PAIR(2, 0), PAIR(2, 1)}, 2, 1u << 0},
};
/* clang-format on */
#define N_TABLE (sizeof TABLE / sizeof TABLE[0])

/* ---- the arena --------------------------------------------------------------------------------------- */
#define GUARD 64
#define ARENA (1 << 17)
static unsigned char arena[ARENA], snap[ARENA], ref_out[AB_NP][8192];
static size_t off_of[AB_NP], len_of[AB_NP];
static size_t scratch; /* past the last buffer and its guard: room for the overlap cases */

static const ab_arg *ptr_arg(const ab_fn *f, int slot)
{
    for (const ab_arg *a = f->args; a->kind != K_END; a++)
        if (a->kind == K_PTR && a->slot == slot)
            return a;
    return NULL;
}

/* Place every pointer argument in the arena, GUARD bytes apart; with first >= 0, buffer second
 * follows buffer first with no gap. The arena is filled with a pattern that no call writes. */
static void layout(const ab_fn *f, ab_call *c, int first, int second)
{
    memset(arena, 0xA5, sizeof arena);
    memset(c->p, 0, sizeof c->p);
    size_t at = GUARD;
    for (const ab_arg *a = f->args; a->kind != K_END; a++) {
        if (a->kind != K_PTR || a->slot == second)
            continue;
        at = (at + 7) & ~(size_t)7; /* the structs need their alignment */
        off_of[a->slot] = at, len_of[a->slot] = a->bytes;
        at += a->bytes;
        if (a->slot == first) {
            const ab_arg *b = ptr_arg(f, second);
            off_of[second] = at, len_of[second] = b->bytes;
            at += b->bytes;
        }
        at += GUARD;
    }
    scratch = (at + 7) & ~(size_t)7;
    ck_assert_msg(scratch + 2 * 8192 + GUARD <= ARENA, "%s: the arena is too small", f->name);
    for (const ab_arg *a = f->args; a->kind != K_END; a++)
        if (a->kind == K_PTR)
            c->p[a->slot] = arena + off_of[a->slot];
}

/* A reduction over one rank: every value is already the maximum. */
static int one_rank_max(void *ctx, float *values, size_t n)
{
    (void)ctx, (void)values, (void)n;
    return 0;
}

/* Fill the input buffers and structs (NULL pointers are left alone). */
static void fill(const ab_fn *f, ab_call *c)
{
    for (const ab_arg *a = f->args; a->kind != K_END; a++) {
        if (a->kind != K_PTR || !c->p[a->slot])
            continue;
        unsigned char *b = c->p[a->slot];
        switch (a->fill) {
        case F_NONE: break;
        case F_F32:
            for (size_t i = 0; i < a->bytes / 4; i++) {
                const float v = (float)((int)(i % 23) - 11) * 0.37f * (float)(1u << (i % 5));
                memcpy(b + 4 * i, &v, 4);
            }
            break;
        case F_BYTES:
            for (size_t i = 0; i < a->bytes; i++)
                b[i] = (unsigned char)(i * 37 + 11) & 0x3F; /* FP6 codes; finite in every 8-bit format */
            break;
        case F_SCALE:
            for (size_t i = 0; i < a->bytes / 4; i++) {
                const float v = (float)(1u << (i % 4)) * 0.5f;
                memcpy(b + 4 * i, &v, 4);
            }
            break;
        case F_E8M0:
            for (size_t i = 0; i < a->bytes; i++)
                b[i] = (unsigned char)(125 + i % 5);
            break;
        case F_E4M3S:
            for (size_t i = 0; i < a->bytes; i++)
                b[i] = (unsigned char)(0x30 + 3 * i);
            break;
        case F_NAME: strcpy((char *)b, a->str); break;
        case F_OPTS: {
            mf_opts o;
            memset(&o, 0, sizeof o);
            o.stats = a->link >= 0 ? c->p[a->link] : NULL;
            memcpy(b, &o, sizeof o);
            break;
        }
        case F_GOPTS: {
            mf_gemm_opts o;
            memset(&o, 0, sizeof o);
            o.accum = MF_ACCUM_EXACT;
            o.round = MF_ROUND_TOWARD_ZERO;
            o.stats = a->link >= 0 ? c->p[a->link] : NULL; /* mf_gemm_plan's opts have no stats to link */
            memcpy(b, &o, sizeof o);
            break;
        }
        case F_AOPTS: {
            mf_analyze_opts o;
            memset(&o, 0, sizeof o);
            o.src_format = MF_FP32;
            o.scale = 1.0;
            memcpy(b, &o, sizeof o);
            break;
        }
        case F_MMODEL: {
            mf_memory_model m;
            mf_memory_model_preset("gpt2", &m);
            memcpy(b, &m, sizeof m);
            break;
        }
        case F_MRECIPE: {
            mf_memory_recipe r;
            mf_memory_recipe_preset("te-fp8-delayed", &r);
            memcpy(b, &r, sizeof r);
            break;
        }
        case F_MCLUSTER: {
            mf_memory_cluster k;
            mf_memory_cluster_default(&k);
            k.gpus_per_node = 8, k.zero_stage = 3, k.gpu_bytes = 80ull << 30;
            memcpy(b, &k, sizeof k);
            break;
        }
        case F_SCALER: {
            mf_loss_scaler s = mf_loss_scaler_default();
            s.scale = 1024.0f;
            memcpy(b, &s, sizeof s);
            break;
        }
        case F_LCFG: {
            mf_loss_scaler_config g = mf_loss_scaler_config_default();
            g.min_scale = 1.0f, g.max_scale = 1e9f; /* set, so that the bounds' checks are reached */
            memcpy(b, &g, sizeof g);
            break;
        }
        case F_DCFG: {
            const mf_fp8_delayed_cfg g = mf_fp8_delayed_default(MF_FP8_E4M3);
            memcpy(b, &g, sizeof g);
            break;
        }
        case F_DSTATE: {
            static mf_fp8_delayed st; /* 4 KiB: not on the stack */
            const mf_fp8_delayed_cfg g = mf_fp8_delayed_default(MF_FP8_E4M3);
            ck_assert_int_eq(mf_fp8_delayed_init(&st, &g), MF_OK);
            ck_assert_int_eq(mf_fp8_delayed_record(&st, 12.0f), MF_OK);
            ck_assert_int_eq(mf_fp8_delayed_update(&st), MF_OK);
            memcpy(b, &st, sizeof st);
            break;
        }
        case F_TENSORS: {
            mf_tensor t[2] = {{c->p[a->link], MF_FP32, 32}, {c->p[a->link + 1], MF_BF16, 64}};
            memcpy(b, t, sizeof t);
            break;
        }
        case F_AMAX: {
            const float v = 3.5f;
            memcpy(b, &v, 4);
            break;
        }
        case F_HOOK: {
            const mf_reduce_hook h = {one_rank_max, NULL};
            memcpy(b, &h, sizeof h);
            break;
        }
        }
    }
}

static void set_field(const ab_fn *f, const ab_call *c, const ab_arg *a, double v)
{
    unsigned char *b = c->p[a->slot];
    ck_assert_msg(b != NULL, "%s: %s: its struct is NULL", f->name, a->name);
    b += a->offset;
    if (a->ftype == FT_INT) {
        const int x = (int)v;
        memcpy(b, &x, sizeof x);
    } else if (a->ftype == FT_SIZE) {
        const size_t x = v >= 0x1p64 ? SIZE_MAX : (size_t)v;
        memcpy(b, &x, sizeof x);
    } else if (a->ftype == FT_FLOAT) {
        const float x = (float)v;
        memcpy(b, &x, sizeof x);
    } else {
        memcpy(b, &v, sizeof v);
    }
}

static int is_out(const ab_fn *f, size_t at)
{
    for (const ab_arg *a = f->args; a->kind != K_END; a++)
        if (a->kind == K_PTR && (a->access & P_OUT) && at >= off_of[a->slot] && at < off_of[a->slot] + len_of[a->slot])
            return 1;
    return 0;
}

static unsigned long n_cases;

/* How the CUDA rows run here: 0, no kernels or no device (valid calls give MF_E_UNSUPPORTED); 1, a
 * device that reaches the arena, registered with CUDA; -1, a device that cannot (the rows are skipped).
 * Asked in the test, not in main: Check forks each test, and CUDA does not survive a fork. */
static int cuda_mode(void)
{
    static int mode = 2;
    if (mode == 2) {
        mode = 0;
        if (mf_cuda_built() && mf_cuda_device_count() > 0) {
            mode = -1;
#ifdef MF_ABUSE_CUDA
            int dev = 0, direct = 0;
            if (cudaGetDevice(&dev) == cudaSuccess &&
                cudaDeviceGetAttribute(&direct, cudaDevAttrCanUseHostPointerForRegisteredMem, dev) == cudaSuccess &&
                direct && cudaHostRegister(arena, sizeof arena, cudaHostRegisterDefault) == cudaSuccess)
                mode = 1;
#endif
        }
    }
    return mode;
}

/* A CUDA call's code, once its work is done (kernels write the arena behind the call's back). */
static int cuda_done(int rc)
{
#ifdef MF_ABUSE_CUDA
    if (cuda_mode() == 1)
        (void)cudaDeviceSynchronize();
#endif
    return rc;
}

/* A minifloat/cuda.h function whose valid call needs a device: mf_cuda_* with arguments (not
 * mf_cuda_built and mf_cuda_device_count, which answer everywhere). */
static int is_cuda(const ab_fn *f) { return strncmp(f->name, "mf_cuda_", 8) == 0 && f->args[0].kind != K_END; }

/* The row's valid code on this machine. */
static int ok_of(const ab_fn *f) { return is_cuda(f) && cuda_mode() != 1 ? MF_E_UNSUPPORTED : f->ok; }

/* Run the call, expect code `want`; after an error nothing in the arena may have changed, after a
 * success nothing outside the outputs (and, with empty, nothing in the element buffers either). */
static void expect(const ab_fn *f, const ab_call *c, int want, int empty, const char *what, const char *arg, double v)
{
    if (want == AB_OKRT)
        want = ok_of(f);
    memcpy(snap, arena, sizeof arena);
    const int got = f->call(c);
    n_cases++;
    MF_EXPECT(got == want, "%s: %s %s (%g): returned %d, expected %d", f->name, what, arg, v, got, want);
    const int failed = got < 0 && (got != ok_of(f) || got == MF_E_UNSUPPORTED); /* unsupported: nothing written */
    for (size_t i = 0; i < sizeof arena; i++) {
        if (arena[i] == snap[i])
            continue;
        MF_EXPECT(!failed, "%s: %s %s (%g): returned %d but wrote arena byte %zu", f->name, what, arg, v, got, i);
        MF_EXPECT(is_out(f, i), "%s: %s %s (%g): wrote byte %zu, outside every output", f->name, what, arg, v, i);
        if (empty) {
            for (const ab_arg *a = f->args; a->kind != K_END; a++)
                MF_EXPECT(!(a->kind == K_PTR && (a->access & P_ELEM) && i >= off_of[a->slot] &&
                            i < off_of[a->slot] + len_of[a->slot]),
                          "%s: %s %s: an empty tensor, but element byte %zu of %s was written", f->name, what, arg, i,
                          a->name);
        }
    }
}

/* A fresh valid call, laid out (with buffer `second` right after `first` if first >= 0) and filled. */
static void fresh(const ab_fn *f, ab_call *c, int first, int second)
{
    *c = f->init;
    layout(f, c, first, second);
}

static void check_fn(const ab_fn *f)
{
    ab_call c;
    ck_assert_msg(f->args[AB_NARGS - 1].kind == K_END, "%s: more than %d arguments: raise AB_NARGS", f->name,
                  AB_NARGS - 1);
    /* the valid call: its outputs are the reference for the adjacency cases */
    if (is_cuda(f) && cuda_mode() < 0) {
        printf("%s: skipped (the CUDA device cannot reach registered host memory)\n", f->name);
        n_cases++;
        return;
    }
    fresh(f, &c, -1, -1);
    fill(f, &c);
    expect(f, &c, AB_OKRT, 0, "the valid call", "", 0);
    for (const ab_arg *a = f->args; a->kind != K_END; a++)
        if (a->kind == K_PTR && (a->access & P_OUT)) {
            ck_assert_uint_le(a->bytes, sizeof ref_out[0]);
            memcpy(ref_out[a->slot], c.p[a->slot], a->bytes);
        }

    for (const ab_arg *a = f->args; a->kind != K_END; a++) {
        switch (a->kind) {
        case K_PTR: { /* NULL, with the tensor as given and empty */
            fresh(f, &c, -1, -1);
            c.p[a->slot] = NULL;
            fill(f, &c);
            expect(f, &c, a->need == P_OPT ? AB_OKRT : f->null_err, 0, "NULL", a->name, 0);
            if (a->need == P_REQN) {
                fresh(f, &c, -1, -1);
                c.p[a->slot] = NULL;
                for (int k = 0; k < AB_NN; k++)
                    if (!f->empty_mask || (f->empty_mask >> k & 1))
                        c.n[k] = 0;
                fill(f, &c);
                expect(f, &c, f->ok, 1, "NULL with empty tensor", a->name, 0); /* no device needed */
            }
            break;
        }
        case K_ENUM:
        case K_FIELD: {
            double dv[AB_MAXBAD + 8];
            int ndv = 0;
            if (a->count > 0) /* an enum: out of range */
                dv[ndv++] = -1, dv[ndv++] = a->count, dv[ndv++] = INT_MAX;
            for (int k = 0; k < a->n_also_bad; k++) /* values in range that are refused */
                dv[ndv++] = a->also_bad[k];
            for (int k = 0; k < a->n_bad; k++) /* a number's invalid values */
                dv[ndv++] = a->bad[k];
            for (int k = 0; k < ndv; k++) {
                fresh(f, &c, -1, -1);
                fill(f, &c);
                if (a->kind == K_ENUM)
                    c.e[a->slot] = (int)dv[k];
                else
                    set_field(f, &c, a, dv[k]);
                expect(f, &c, a->err, 0, "bad value of", a->name, dv[k]);
            }
            break;
        }
        case K_FLOAT:
            for (int k = 0; k < a->n_bad; k++) {
                fresh(f, &c, -1, -1);
                fill(f, &c);
                c.f[a->slot] = (float)a->bad[k];
                expect(f, &c, a->err, 0, "bad value of", a->name, a->bad[k]);
            }
            break;
        case K_COUNT: {
            const size_t el = a->bytes ? a->bytes : 1, m = a->mult > 1 ? a->mult : 1;
            const size_t huge[] = {
                SIZE_MAX,          SIZE_MAX / el + 1,
                (size_t)(int)-1,   (size_t)(int)-100,
                (size_t)(int)-128, SIZE_MAX & ~(size_t)127,
                SIZE_MAX / 2,      sizeof(size_t) > 4 ? ((size_t)1 << (sizeof(size_t) > 4 ? 57 : 0)) / el + 128 : 0};
            /* 0 and 1 (m: the smallest legal nonzero) */
            fresh(f, &c, -1, -1);
            fill(f, &c);
            c.n[a->slot] = 0;
            expect(f, &c, a->zero_ret, !a->zero_writes, "zero", a->name, 0);
            fresh(f, &c, -1, -1);
            fill(f, &c);
            c.n[a->slot] = 1;
            expect(f, &c, a->one_set ? a->one_ret : m > 1 ? MF_E_ARG : AB_OKRT, 0, "one", a->name, 1);
            if (m > 1) {
                fresh(f, &c, -1, -1);
                fill(f, &c);
                c.n[a->slot] = m;
                expect(f, &c, AB_OKRT, 0, "one block", a->name, (double)m);
            }
            for (size_t k = 0; k < sizeof huge / sizeof huge[0]; k++) {
                if (!huge[k])
                    continue;
                fresh(f, &c, -1, -1);
                fill(f, &c);
                c.n[a->slot] = huge[k];
                /* a dimension not a multiple of its block: the shape error, before the size */
                expect(f, &c, huge[k] % m ? MF_E_ARG : a->err, 0, "huge", a->name, (double)huge[k]);
            }
            break;
        }
        case K_END: break;
        }
    }

    /* overlaps: one byte in, the last byte in, the same address; then exactly adjacent either way */
    for (int k = 0; k < f->n_pairs; k++) {
        const int o = f->pairs[k].out, i = f->pairs[k].in;
        const ab_arg *ao = ptr_arg(f, o), *ai = ptr_arg(f, i);
        const size_t shift[] = {1, ai->bytes - 1, 0};
        /* the two buffers move to the scratch room, so that the input's bytes clobber nothing else */
        for (int s = 0; s < 3; s++) {
            fresh(f, &c, -1, -1);
            c.p[i] = arena + scratch;
            c.p[o] = arena + scratch + shift[s];
            off_of[i] = scratch, off_of[o] = scratch + shift[s];
            fill(f, &c);
            const int want = shift[s] == 0 && f->pairs[k].alias_ok ? AB_OKRT : MF_E_OVERLAP;
            expect(f, &c, want, 0, "overlap: output at input +", ao->name, (double)shift[s]);
        }
        fresh(f, &c, -1, -1);
        c.p[o] = arena + scratch; /* the input starting inside the output */
        c.p[i] = arena + scratch + 1;
        off_of[o] = scratch, off_of[i] = scratch + 1;
        fill(f, &c);
        expect(f, &c, MF_E_OVERLAP, 0, "overlap: input at output + 1:", ai->name, 1);
        for (int order = 0; order < 2; order++) {
            fresh(f, &c, order ? o : i, order ? i : o);
            fill(f, &c);
            expect(f, &c, AB_OKRT, 0, order ? "adjacent, input right after" : "adjacent, output right after", ao->name,
                   0);
            for (const ab_arg *a = f->args; a->kind != K_END; a++)
                if (a->kind == K_PTR && (a->access & P_OUT))
                    MF_EXPECT(memcmp(c.p[a->slot], ref_out[a->slot], a->bytes) == 0,
                              "%s: adjacent %s and %s: %s differs from the separate buffers' result", f->name, ao->name,
                              ai->name, a->name);
        }
    }
}

START_TEST(test_abuse_table)
{
    const unsigned long before = n_cases;
    check_fn(&TABLE[_i]);
    ck_assert_msg(n_cases > before, "%s: no case ran", TABLE[_i].name);
}
END_TEST

/* ---- cases a table row cannot say ------------------------------------------------------------- */
START_TEST(test_abuse_specifics)
{
    /* equal formats copy with memmove semantics, overlapping or not */
    unsigned char b[80];
    for (int i = 0; i < 80; i++)
        b[i] = (unsigned char)i;
    ck_assert_int_eq(mf_convert(MF_FP8_E4M3, b + 3, MF_FP8_E4M3, b, 64, NULL), MF_OK);
    for (int i = 0; i < 64; i++)
        ck_assert_uint_eq(b[3 + i], i);
    /* ... but a count that would run past the address space is refused before any byte moves */
    for (int i = 0; i < 80; i++)
        b[i] = (unsigned char)i;
    const size_t huge[] = {SIZE_MAX, SIZE_MAX / 2, (size_t)(int)-100};
    const mf_format same[] = {MF_FP8_E4M3, MF_FP4_E2M1, MF_FP32, MF_FP64};
    for (size_t k = 0; k < 3; k++)
        for (size_t j = 0; j < 4; j++) {
            ck_assert_int_eq(mf_convert(same[j], b + 8, same[j], b, huge[k], NULL), MF_E_SIZE);
            for (int i = 0; i < 80; i++)
                ck_assert_uint_eq(b[i], i);
        }
    /* e2m1 with an odd count: the last byte's high nibble is left as it was */
    const float x[3] = {1.0f, -2.0f, 6.0f};
    unsigned char q[4] = {0xEE, 0xEE, 0xEE, 0xEE};
    ck_assert_int_eq(mf_convert(MF_FP4_E2M1, q, MF_FP32, x, 3, NULL), MF_OK);
    ck_assert_uint_eq(q[0], 0xC2); /* 1.0 = 0x2, -2.0 = 0xC */
    ck_assert_uint_eq(q[1], 0xE7); /* 6.0 = 0x7, the high nibble kept */
    ck_assert_uint_eq(q[2], 0xEE);
    /* in place, equal widths: allowed for mf_unary, refused for unequal widths */
    float y[4] = {0.0f, 1.0f, -1.0f, 2.0f};
    ck_assert_int_eq(mf_unary(MF_UNARY_TANH, MF_FP32, y, MF_FP32, y, 4, NULL), MF_OK);
    ck_assert(y[0] == 0.0f && y[1] > 0.76f && y[1] < 0.77f);
    /* names: empty, near misses, a long string */
    char longname[300];
    memset(longname, 'e', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    const char *bad_names[] = {"", "e4m3x", "e4m", " e4m3", "e4m3 ", longname};
    for (size_t k = 0; k < sizeof bad_names / sizeof bad_names[0]; k++) {
        mf_format fo = MF_FP32;
        mf_round ro = MF_ROUND_NEAREST_EVEN;
        mf_overflow ov = MF_OVERFLOW_IEEE;
        mf_unary_op op = MF_UNARY_EXP;
        ck_assert_int_eq(mf_format_from_name(bad_names[k], &fo), MF_E_ARG);
        ck_assert_int_eq(mf_round_from_name(bad_names[k], &ro), MF_E_ARG);
        ck_assert_int_eq(mf_overflow_from_name(bad_names[k], &ov), MF_E_ARG);
        {
            mf_profile pr = MF_PROFILE_ONNX;
            ck_assert_int_eq(mf_profile_from_name(bad_names[k], &pr), MF_E_ARG);
            ck_assert(pr == MF_PROFILE_ONNX);
        }
        ck_assert_int_eq(mf_unary_from_name(bad_names[k], &op), MF_E_ARG);
        ck_assert(fo == MF_FP32 && ro == MF_ROUND_NEAREST_EVEN && ov == MF_OVERFLOW_IEEE && op == MF_UNARY_EXP);
    }
    /* shapes at the top of size_t: ceilings computed without wrapping */
    size_t sr = 0, sc = 0;
    ck_assert_int_eq(mf_fp8_block_scale_shape(MF_FP8_BLOCK_128X128, SIZE_MAX, SIZE_MAX, &sr, &sc), MF_OK);
    ck_assert_uint_eq(sr, SIZE_MAX / 128 + 1);
    ck_assert_uint_eq(sc, SIZE_MAX / 128 + 1);
    ck_assert_int_eq(mf_fp8_block_scale_shape(MF_FP8_BLOCK_1X128, SIZE_MAX, 129, &sr, &sc), MF_OK);
    ck_assert_uint_eq(sr, SIZE_MAX);
    ck_assert_uint_eq(sc, 2);
    /* every status code has a sentence */
    for (int code = -8; code <= 1; code++)
        ck_assert_ptr_nonnull(mf_strerror(code));
}
END_TEST

static Suite *abuse_suite(void)
{
    Suite *s = suite_create("abuse");
    TCase *tc = tcase_create("abuse");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_abuse_table, 0, (int)N_TABLE);
    tcase_add_test(tc, test_abuse_specifics);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--list") == 0) { /* the table's names, for tests/abuse_symbols.sh */
        for (size_t k = 0; k < N_TABLE; k++)
            puts(TABLE[k].name);
        return 0;
    }
    return mf_run_suite(abuse_suite());
}
