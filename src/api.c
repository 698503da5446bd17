/* SPDX-License-Identifier: MIT */
/* src/api.c - the compiled public API: argument checks, then the dispatcher. */
#include <string.h>

#include "internal.h"

static int format_ok(mf_format f) { return (unsigned)f < MF_FORMAT_COUNT; }

size_t mf_storage_bytes(mf_format fmt, size_t n)
{
    size_t bytes;
    if (!format_ok(fmt) || !mf__span_fmt_ok(fmt, NULL, n, &bytes))
        return 0;
    return bytes;
}

int mf_convert(mf_format dst_fmt, void *dst, mf_format src_fmt, const void *src, size_t n, const mf_opts *opts)
{
    static const mf_opts defaults = {MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0, 0, NULL, 0, MF_PROFILE_DEFAULT};
    const mf_opts *o = opts ? opts : &defaults;
    const mf__backend *backend;
    size_t dbytes, sbytes;
    int rc = mf__check_convert_args(dst_fmt, src_fmt, o);

    if (rc != MF_OK)
        return rc;
    if (n == 0) {
        if (o->stats)
            memset(o->stats, 0, sizeof *o->stats);
        return MF_OK;
    }
    if (!dst || !src)
        return MF_E_NULL;
    if (!mf__span_fmt_ok(dst_fmt, dst, n, &dbytes) || !mf__span_fmt_ok(src_fmt, src, n, &sbytes))
        return MF_E_SIZE;
    if (dst_fmt != src_fmt && mf__ranges_overlap(dst, dbytes, src, sbytes))
        return MF_E_OVERLAP;
    if (o->profile != MF_PROFILE_DEFAULT && dst_fmt != src_fmt) {
        mf__convert_profile(dst_fmt, dst, src_fmt, src, n, o, o->stats);
        return MF_OK;
    }
    backend = mf__backend_for(mf__backend_active(), dst_fmt, src_fmt);
    if (o->threads > 1)
        mf__convert_parallel(backend, dst_fmt, dst, src_fmt, src, n, o, o->stats, o->threads);
    else
        backend->convert(dst_fmt, dst, src_fmt, src, n, o, o->stats);
    return MF_OK;
}

int mf_convert_plan(mf_format dst_fmt, const void *dst, mf_format src_fmt, const void *src, size_t n,
                    const mf_opts *opts, mf_plan *plan)
{
    static const char *const paths[MF__PATH_COUNT] = {"none", "portable", "blocked", "direct", "w16", "lut", "lut_sr",
                                                      "profile"};
    static const mf_opts defaults = {MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0, 0, NULL, 0, MF_PROFILE_DEFAULT};
    const mf_opts *o = opts ? opts : &defaults;
    const mf__backend *backend;
    mf__plan p;
    size_t piece, bytes;
    int rc = mf__check_convert_args(dst_fmt, src_fmt, o);
    if (rc != MF_OK)
        return rc;
    if (!plan)
        return MF_E_NULL;
    if (n != 0 && (!mf__span_fmt_ok(dst_fmt, dst, n, &bytes) || !mf__span_fmt_ok(src_fmt, src, n, &bytes)))
        return MF_E_SIZE; /* before the plan is touched: an error writes nothing */
    memset(plan, 0, sizeof *plan);
    plan->path = paths[MF__PATH_NONE];
    if (n == 0)
        return MF_OK;
    piece = o->threads > 1 ? mf__parallel_piece(dst_fmt, src_fmt, n, o->threads) : n;
    if (o->profile != MF_PROFILE_DEFAULT && dst_fmt != src_fmt) { /* the active backend's kernels, then a fix-up */
        plan->backend = mf__backend_active()->name;
        plan->path = paths[MF__PATH_PROFILE];
        plan->body = n;
        plan->threads = (int)((n + piece - 1) / piece);
        return MF_OK;
    }
    backend = mf__backend_for(mf__backend_active(), dst_fmt, src_fmt);
    backend->plan(&p, dst_fmt, dst ? dst : (const void *)64, src_fmt, src ? src : (const void *)64, piece, o,
               o->stats != NULL);
    plan->backend = p.backend->name;
    plan->path = paths[p.path];
    plan->ends_path = p.ends_path == MF__PATH_NONE ? NULL : paths[p.ends_path];
    plan->head = p.head;
    plan->body = p.body;
    plan->tail = p.tail;
    plan->streams = p.stream;
    plan->threads = (int)((n + piece - 1) / piece);
    return MF_OK;
}

const char *mf_strerror(int code)
{
    switch (code) {
    case MF_OK: return "success";
    case MF_E_NULL: return "a required pointer is NULL";
    case MF_E_FORMAT: return "unknown format (not an mf_format value)";
    case MF_E_ROUND: return "unknown rounding mode (not an mf_round value)";
    case MF_E_POLICY: return "unknown overflow policy (not an mf_overflow value, or one this function does not take)";
    case MF_E_OVERLAP: return "source and destination overlap and their formats differ";
    case MF_E_SIZE: return "element count too large for the address space";
    case MF_E_ARG: return "invalid argument (e.g. a negative thread count)";
    case MF_E_NOMEM: return "out of memory for a work buffer";
    case MF_E_UNSUPPORTED:
        return "not supported here (built without CUDA, no CUDA device, or not on this architecture)";
    case MF_E_DEVICE: return "the CUDA runtime reported an error";
    case MF_E_PROFILE: return "unknown profile, or the profile's system lacks the format or rounding mode";
    case MF_E_REDUCE: return "the cross-rank reduction failed, on this rank or on another";
    default: return "unknown status code";
    }
}

/* ---- names ---------------------------------------------------------------------------------- */

/* Each row's number is its position in formats.inc, so that the arrays below (and every array indexed
 * by mf_format) can be built in row order: a row inserted or numbered wrongly does not compile. */
enum {
#define MF__FORMAT(e, ...) MF__ROW_##e,
#include "minifloat/formats.inc"
#undef MF__FORMAT
};
#define MF__FORMAT(e, value, ...) typedef char mf__row_check_##e[(value) == MF__ROW_##e ? 1 : -1];
#include "minifloat/formats.inc"
#undef MF__FORMAT

/* A format's names: its tag, its numpy / ml_dtypes dtype name, its aliases (space-separated). */
static const struct {
    const char *tag, *dtype, *aliases, *title;
} format_names[MF_FORMAT_COUNT] = {
#define MF__FORMAT(e, value, tag, nbits, nman, nbias, kind, storage, dtype, aliases, title) \
    {#tag, dtype, aliases, title},
#include "minifloat/formats.inc"
#undef MF__FORMAT
};

static const char *const round_names[MF_ROUND_COUNT] = {"rn", "rna", "rz", "ru", "rd", "ro", "sr"};
static const char *const overflow_names[MF_OVERFLOW_COUNT] = {"ieee", "sat", "propagate"};

const char *mf_format_name(mf_format fmt) { return format_ok(fmt) ? format_names[fmt].tag : NULL; }

const char *mf_format_dtype(mf_format fmt)
{
    return format_ok(fmt) && *format_names[fmt].dtype ? format_names[fmt].dtype : NULL;
}

const char *mf_round_name(mf_round r) { return (unsigned)r < MF_ROUND_COUNT ? round_names[r] : NULL; }

const char *mf_overflow_name(mf_overflow o)
{
    return (unsigned)o < MF_OVERFLOW_COUNT ? overflow_names[o] : NULL;
}

static char lower(char c) { return (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); }

/* Does a (any case) spell b (lower case)? */
static int ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (lower(*a) != *b)
            return 0;
    return *a == *b;
}

/* Is name (case-insensitive) one of the space-separated words of list? */
static int in_list(const char *name, const char *list)
{
    if (!*name)
        return 0;
    while (*list) {
        const char *end = list;
        size_t k;
        while (*end && *end != ' ')
            end++;
        for (k = 0; list + k < end && lower(name[k]) == list[k]; k++)
            ;
        if (list + k == end && !name[k])
            return 1;
        list = *end ? end + 1 : end;
    }
    return 0;
}

int mf_format_from_name(const char *name, mf_format *out)
{
    int i;
    if (!name || !out)
        return MF_E_NULL;
    for (i = 0; i < MF_FORMAT_COUNT; i++)
        if (ieq(name, format_names[i].tag) || (*format_names[i].dtype && ieq(name, format_names[i].dtype)) ||
            in_list(name, format_names[i].aliases)) {
            *out = (mf_format)i;
            return MF_OK;
        }
    return MF_E_ARG;
}

int mf_round_from_name(const char *name, mf_round *out)
{
    size_t i;
    if (!name || !out)
        return MF_E_NULL;
    for (i = 0; i < MF_ROUND_COUNT; i++)
        if (ieq(name, round_names[i])) {
            *out = (mf_round)i;
            return MF_OK;
        }
    return MF_E_ARG;
}

int mf_overflow_from_name(const char *name, mf_overflow *out)
{
    if (!name || !out)
        return MF_E_NULL;
    if (ieq(name, "ieee")) {
        *out = MF_OVERFLOW_IEEE;
        return MF_OK;
    }
    if (ieq(name, "sat") || ieq(name, "saturate")) {
        *out = MF_OVERFLOW_SATURATE;
        return MF_OK;
    }
    if (ieq(name, "propagate")) {
        *out = MF_OVERFLOW_PROPAGATE;
        return MF_OK;
    }
    return MF_E_ARG;
}

int mf_format_describe(mf_format fmt, mf_format_desc *out)
{
    mf__fmt f;
    if (!out)
        return MF_E_NULL;
    if (!format_ok(fmt))
        return MF_E_FORMAT;
    f = mf__fmt_get(fmt);
    memset(out, 0, sizeof *out);
    out->name = format_names[fmt].tag;
    out->title = format_names[fmt].title;
    out->bits = f.bits;
    out->man_bits = f.man;
    out->exp_bits = mf__fmt_mag_bits(f) - f.man;
    out->bias = f.bias;
    out->is_signed = mf__fmt_signed(f);
    out->has_inf = mf__fmt_has_inf(f);
    out->has_nan = mf__fmt_has_nan(f);
    out->has_zero = f.kind != MF__KIND_E8M0;
    out->has_neg_zero = mf__fmt_neg_zero(f);
    out->has_subnormals = f.kind != MF__KIND_E8M0 && f.man > 0; /* P3109 at P = 1 has none */
    out->max = mf__f64_from_bits(mf__decode_f64_bits(fmt, mf__fmt_max_code(f)));
    out->min_normal = mf__f64_from_bits(mf__decode_f64_bits(fmt, f.kind == MF__KIND_E8M0 ? 0 : (uint64_t)1 << f.man));
    out->min_subnormal = out->has_subnormals ? mf__f64_from_bits(mf__decode_f64_bits(fmt, 1)) : out->min_normal;
    out->epsilon = mf__f64_from_bits((uint64_t)(1023 - f.man) << 52);
    out->max_code = (uint32_t)mf__fmt_max_code(f);
    out->nan_code = (uint32_t)mf__fmt_nan_code(f);
    out->inf_code = (uint32_t)mf__fmt_inf_code(f);
    if (fmt == MF_FP64)
        out->max_code = out->nan_code = out->inf_code = 0;
    return MF_OK;
}

static const char *const profile_names[MF_PROFILE_COUNT] = {"default", "cuda", "ml_dtypes", "torch", "onnx"};

const char *mf_profile_name(mf_profile p) { return (unsigned)p < MF_PROFILE_COUNT ? profile_names[p] : NULL; }

int mf_profile_from_name(const char *name, mf_profile *out)
{
    size_t i;
    if (!name || !out)
        return MF_E_NULL;
    for (i = 0; i < MF_PROFILE_COUNT; i++)
        if (ieq(name, profile_names[i])) {
            *out = (mf_profile)i;
            return MF_OK;
        }
    return MF_E_ARG;
}

const char *mf_version(void) { return MF_VERSION_STRING; }
