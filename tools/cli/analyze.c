/* SPDX-License-Identifier: MIT */
/* tools/cli/analyze.c - `minifloat analyze FILE`: read a tensor, optionally apply an elementwise
 * operation to it (--op: mf_unary / mf_softmax into binary32), run mf_analyze for each format, print a
 * side-by-side table and an ASCII histogram, optionally draw the picture (plot.c). */
#define _POSIX_C_SOURCE 200809L /* popen, pclose */

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <minifloat/lab.h>

#include "cli_util.h"
#include "commands.h"
#include "npy.h"
#include "plot.h"

/* Messages: "minifloat: analyze: ...", usage errors point to minifloat --help. */
static const cli_voice voice = {"minifloat: analyze: ", "minifloat"};

/* --scale auto keeps the scale, and its reciprocal, a normal binary32 (as frameworks store it) */
#define CLI_AUTO_MIN_LOG2 (-126)
#define CLI_AUTO_MAX_LOG2 127

const char cli_analyze_usage[] =
    "analyze FILE       what each format does to a tensor: overflow, saturation, inf/NaN, underflow,\n"
    "                   subnormals, relative error, safe scales; a table and a log2|x| histogram\n"
    "  FILE               .npy (float64/32/16, ml_dtypes bfloat16 and float8/6/4), raw (.f32 .bin,\n"
    "                     float32 in host order) or text (.txt, one number per line)\n"
    "  --formats LIST     comma-separated targets (default f16,bf16,e4m3,e5m2,e2m1)\n"
    "  --scale auto|S     multiply by S (a number or 2^K) before converting; auto: per format, the\n"
    "                     power of two nearest 1 that avoids overflow and lifts min |x| to normal\n"
    "  -r, --round MODE   rounding mode (default rn); --sat: overflow saturates (default IEEE)\n"
    "  --seed S           Philox seed of -r sr (default 0)\n"
    "  --plot OUT         write the histogram picture: OUT.svg, or OUT.png (needs rsvg-convert)\n"
    "  --raw, --text      read FILE as raw elements / text whatever its name\n"
    "  --dtype FORMAT     element format of a raw file (default f32), or of a .npy whose dtype\n"
    "                     is '<V1' (ml_dtypes float8_e4m3fn, float4_e2m1fn, ...: e4m3, e2m1, ...)\n"
    "  --op OP            analyse OP(x) instead of x, computed in binary32 as a kernel would before\n"
    "                     rounding into each format: exp tanh sigmoid silu gelu gelu_tanh, or\n"
    "                     softmax log_softmax over the last axis (raw and text: one row)\n";

/* ---- options ------------------------------------------------------------------------------------ */

/* --op: what is applied to the data before the analysis. */
enum { OP_NONE, OP_UNARY, OP_SOFTMAX, OP_LOG_SOFTMAX };

typedef struct options {
    const char *path;
    int op;              /* OP_* */
    mf_unary_op unary;   /* when op is OP_UNARY */
    const char *op_name; /* "exp", ..., "softmax", "log_softmax" */
    const char *plot;
    int plot_png;
    enum { KIND_AUTO, KIND_NPY, KIND_RAW, KIND_TEXT } kind;
    int have_dtype;
    mf_format dtype;
    int nformats;
    mf_format formats[CLI_PLOT_MAX_FORMATS];
    int scale_auto;
    double scale; /* when not auto */
    mf_round round;
    mf_overflow overflow;
    uint64_t seed;
} options;

static int is_stdin(const char *path) { return strcmp(path, "-") == 0; }

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix), i;
    if (n < m)
        return 0;
    for (i = 0; i < m; i++) {
        char c = s[n - m + i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != suffix[i])
            return 0;
    }
    return 1;
}

/* "S" or "2^K": a positive finite scale. */
static int parse_scale(const char *s, double *out)
{
    double v;
    int k;
    if (s[0] == '2' && s[1] == '^') {
        if (!cli_parse_int(s + 2, -1074, 1023, &k))
            return 0;
        *out = ldexp(1.0, k);
        return 1;
    }
    if (!cli_parse_double(s, &v) || !(v > 0) || v > 1.7976931348623157e308)
        return 0;
    *out = v;
    return 1;
}

static int format_lookup(const char *name, int *item)
{
    mf_format f;
    if (mf_format_from_name(name, &f) != MF_OK)
        return 0;
    *item = (int)f;
    return 1;
}

static int parse_formats(const char *list, options *o)
{
    int items[CLI_PLOT_MAX_FORMATS], k, rc;
    char known[4096];
    rc = cli_parse_list(&voice, "--formats", "format", list, format_lookup,
                        cli_format_tags(known, sizeof known, NULL, " ", " "), items, CLI_PLOT_MAX_FORMATS,
                        &o->nformats);
    if (rc != 0)
        return rc;
    for (k = 0; k < o->nformats; k++) {
        if (items[k] == (int)MF_FP64)
            return cli_usage_error(&voice, "--formats: f64 is not a target (the data are analysed in binary64)");
        o->formats[k] = (mf_format)items[k];
    }
    return 0;
}

static int parse_op(const char *name, options *o)
{
    if (mf_unary_from_name(name, &o->unary) == MF_OK) {
        o->op = OP_UNARY;
        o->op_name = mf_unary_name(o->unary);
    } else if (cli_name_eq(name, "softmax")) {
        o->op = OP_SOFTMAX;
        o->op_name = "softmax";
    } else if (cli_name_eq(name, "log_softmax")) {
        o->op = OP_LOG_SOFTMAX;
        o->op_name = "log_softmax";
    } else {
        return cli_usage_error(&voice,
                               "--op: unknown operation '%s' (exp, tanh, sigmoid, silu, gelu, gelu_tanh, softmax, "
                               "log_softmax)",
                               name);
    }
    return 0;
}

/* Whether `rsvg-convert` is on PATH. */
static int have_rsvg(void) { return system("command -v rsvg-convert >/dev/null 2>&1") == 0; }

static int parse_options(int argc, char **argv, options *o)
{
    static const mf_format defaults[] = {MF_FP16, MF_BF16, MF_FP8_E4M3, MF_FP8_E5M2, MF_FP4_E2M1};
    const char *val;
    int i, r, rc, no_more = 0;
    memset(o, 0, sizeof *o);
    o->round = MF_ROUND_NEAREST_EVEN;
    o->overflow = MF_OVERFLOW_IEEE;
    o->scale = 1;
    o->nformats = (int)(sizeof defaults / sizeof defaults[0]);
    memcpy(o->formats, defaults, sizeof defaults);
    for (i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (no_more || a[0] != '-' || a[1] == '\0') {
            if (o->path)
                return cli_usage_error(&voice, "more than one file ('%s' and '%s')", o->path, a);
            o->path = a;
        } else if (strcmp(a, "--") == 0) {
            no_more = 1;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            printf("usage: minifloat analyze FILE [options]\n\n%s", cli_analyze_usage);
            return fflush(stdout) == 0 ? -1 : CLI_EXIT_DATA;
        } else if (strcmp(a, "--sat") == 0 || strcmp(a, "--saturate") == 0) {
            o->overflow = MF_OVERFLOW_SATURATE;
        } else if (strcmp(a, "--raw") == 0) {
            o->kind = KIND_RAW;
        } else if (strcmp(a, "--text") == 0) {
            o->kind = KIND_TEXT;
        } else if ((r = cli_opt_value(argc, argv, &i, "--formats", NULL, &val)) != 0) {
            if (r < 0)
                return cli_usage_error(&voice, "option '%s' needs a list of formats", a);
            if ((rc = parse_formats(val, o)) != 0)
                return rc;
        } else if ((r = cli_opt_value(argc, argv, &i, "--scale", NULL, &val)) != 0) {
            if (r < 0)
                return cli_usage_error(&voice, "option '%s' needs 'auto' or a number", a);
            o->scale_auto = cli_name_eq(val, "auto");
            if (!o->scale_auto && !parse_scale(val, &o->scale))
                return cli_usage_error(&voice, "--scale: '%s' is not 'auto', a positive finite number or 2^K", val);
        } else if ((r = cli_opt_value(argc, argv, &i, "--round", "-r", &val)) != 0) {
            if (r < 0)
                return cli_usage_error(&voice, "option '%s' needs a rounding mode", a);
            if (mf_round_from_name(val, &o->round) != MF_OK)
                return cli_usage_error(&voice, "unknown rounding mode '%s' (rn rna rz ru rd ro sr)", val);
        } else if ((r = cli_opt_value(argc, argv, &i, "--seed", NULL, &val)) != 0) {
            if (r < 0 || !cli_parse_uint(val, UINT64_MAX, &o->seed))
                return cli_usage_error(&voice, "--seed needs an unsigned 64-bit number");
        } else if ((r = cli_opt_value(argc, argv, &i, "--plot", NULL, &val)) != 0) {
            if (r < 0 || val[0] == '\0')
                return cli_usage_error(&voice, "option '%s' needs a file name", a);
            o->plot = val;
        } else if ((r = cli_opt_value(argc, argv, &i, "--dtype", NULL, &val)) != 0) {
            if (r < 0)
                return cli_usage_error(&voice, "option '%s' needs a format", a);
            if (mf_format_from_name(val, &o->dtype) != MF_OK)
                return cli_usage_error(&voice, "--dtype: unknown format '%s'", val);
            o->have_dtype = 1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--op", NULL, &val)) != 0) {
            if (r < 0)
                return cli_usage_error(&voice,
                                       "option '%s' needs an operation (exp, tanh, sigmoid, silu, gelu, gelu_tanh, "
                                       "softmax, log_softmax)",
                                       a);
            if ((rc = parse_op(val, o)) != 0)
                return rc;
        } else {
            return cli_usage_error(&voice, "unknown option '%s'", a);
        }
    }
    if (!o->path)
        return cli_usage_error(&voice, "a file is required");
    if (o->kind == KIND_AUTO) {
        if (ends_with(o->path, ".npy") || is_stdin(o->path))
            o->kind = KIND_NPY;
        else if (ends_with(o->path, ".f32") || ends_with(o->path, ".bin"))
            o->kind = KIND_RAW;
        else if (ends_with(o->path, ".txt"))
            o->kind = KIND_TEXT;
        else
            return cli_usage_error(&voice, "cannot tell the type of '%s' from its name: use .npy, .f32 or .bin (raw "
                                   "float32) or .txt (text), or say --raw or --text",
                                   o->path);
    }
    if (o->have_dtype && o->kind == KIND_TEXT)
        return cli_usage_error(&voice, "--dtype does not apply to text input (numbers are read as binary64)");
    if (o->have_dtype && o->kind == KIND_NPY) {
        mf_format_desc d;
        mf_format_describe(o->dtype, &d);
        if (d.bits > 8)
            return cli_usage_error(&voice, "--dtype: a .npy file names its own type unless it is a 1-byte '<V1' one; "
                                   "'%s' is not a 1-byte format",
                                   mf_format_name(o->dtype));
    }
    if (o->plot) {
        if (ends_with(o->plot, ".png"))
            o->plot_png = 1;
        else if (!ends_with(o->plot, ".svg"))
            return cli_usage_error(&voice, "--plot: the file name must end in .svg or .png ('%s')", o->plot);
        if (o->plot_png && !have_rsvg())
            return cli_usage_error(&voice, "--plot %s: writing PNG needs rsvg-convert on PATH (Debian: apt-get install "
                                   "librsvg2-bin); write .svg instead",
                                   o->plot);
    }
    return 0;
}

/* ---- input -------------------------------------------------------------------------------------- */

typedef struct dataset {
    mf_format fmt;      /* the source format given to mf_analyze: f64, f32, f16 or bf16 */
    mf_format file_fmt; /* the element format in the file */
    void *buf;
    size_t n;
    size_t cols;        /* the last dimension of a .npy (1 for a scalar); n for raw and text input */
    int shaped;         /* 1 for .npy (cols is the last axis), 0 for raw and text (one row) */
    uint64_t op_inf;    /* --op: finite inputs whose binary32 result is +-inf (overflow in binary32) */
    uint64_t op_zero;   /* --op: results that are +-0 where the exact result is not (underflow in binary32) */
    char what[256];     /* "float32, shape (128, 256), .npy" */
} dataset;

/* The whole file ("-": standard input) into memory, followed by a NUL byte; NULL with errno set on failure. */
static unsigned char *read_all(const char *path, size_t *len)
{
    FILE *fp = is_stdin(path) ? stdin : fopen(path, "rb");
    unsigned char *buf = NULL;
    size_t cap = 0, n = 0;
    if (!fp)
        return NULL;
    for (;;) {
        size_t r;
        if (n == cap) {
            unsigned char *nb;
            if (cap > SIZE_MAX / 4) {
                errno = ENOMEM;
                break;
            }
            cap = cap ? cap * 2 : 65536;
            nb = (unsigned char *)realloc(buf, cap);
            if (!nb) {
                errno = ENOMEM;
                break;
            }
            buf = nb;
        }
        r = fread(buf + n, 1, cap - n, fp);
        n += r;
        if (r == 0) {
            if (ferror(fp))
                break;
            if (n == cap) { /* room for the terminating NUL */
                unsigned char *nb = (unsigned char *)realloc(buf, n + 1);
                if (!nb) {
                    errno = ENOMEM;
                    break;
                }
                buf = nb;
            }
            buf[n] = '\0';
            if (fp != stdin)
                fclose(fp);
            *len = n;
            return buf;
        }
    }
    {
        int e = errno ? errno : EIO;
        free(buf);
        if (fp != stdin)
            fclose(fp);
        errno = e;
    }
    return NULL;
}

/* 1-byte codes (one per byte, in the low bits) into binary32 values: exact. */
static float *decode_bytes(mf_format f, const unsigned char *codes, size_t n)
{
    mf_format_desc d;
    unsigned mask;
    float *out;
    size_t i;
    mf_format_describe(f, &d);
    mask = (1u << d.bits) - 1u;
    out = (float *)malloc((n ? n : 1) * sizeof *out);
    if (!out)
        return NULL;
    for (i = 0; i < n; i++)
        out[i] = mf_to_f32(f, codes[i] & mask);
    return out;
}

/* Give ds->buf (n elements of file_fmt, host order) a format mf_analyze takes. */
static int settle(dataset *ds, void *buf)
{
    if (ds->file_fmt == MF_FP64 || ds->file_fmt == MF_FP32 || ds->file_fmt == MF_FP16 || ds->file_fmt == MF_BF16) {
        ds->fmt = ds->file_fmt;
        ds->buf = buf;
        return 0;
    }
    ds->fmt = MF_FP32;
    ds->buf = decode_bytes(ds->file_fmt, (const unsigned char *)buf, ds->n);
    free(buf);
    return ds->buf ? 0 : cli_data_error(&voice, "out of memory");
}

static int load_npy(const options *o, dataset *ds)
{
    cli_npy_array a;
    char err[CLI_NPY_ERR_SIZE], shape[160];
    const mf_format hint = o->have_dtype ? o->dtype : CLI_NPY_NO_HINT;
    int rc;
    if (is_stdin(o->path)) { /* a .npy on standard input: read whole, then parsed as a file would be */
        size_t len;
        unsigned char *buf = read_all(o->path, &len);
        if (!buf)
            return cli_data_error(&voice, "-: read error: %s", strerror(errno));
        rc = cli_npy_parse(buf, len, hint, &a, err, sizeof err);
        free(buf);
        if (rc != CLI_NPY_OK && rc != CLI_NPY_E_AMBIGUOUS)
            return cli_data_error(&voice, "-: %s (standard input is read as .npy; say --raw or --text for other data)",
                                  err);
    } else {
        rc = cli_npy_read_file(o->path, hint, &a, err, sizeof err);
    }
    if (rc == CLI_NPY_E_AMBIGUOUS)
        return cli_data_error(&voice, "%s: %s with --dtype, e.g. --dtype e4m3 for float8_e4m3fn", o->path, err);
    if (rc != CLI_NPY_OK)
        return cli_data_error(&voice, "%s: %s", o->path, err);
    if (o->have_dtype && a.format != o->dtype) { /* the file named its own type: the option had no say */
        cli_npy_free(&a);
        return cli_usage_error(&voice, "--dtype %s does not apply: %s's dtype '%s' is %s (--dtype is for '<V1' files)",
                               mf_format_name(o->dtype), o->path, a.descr, cli_npy_type_name(a.format));
    }
    cli_npy_shape_str(&a, shape, sizeof shape);
    ds->file_fmt = a.format;
    ds->n = a.count;
    ds->cols = a.ndim > 0 ? a.shape[a.ndim - 1] : 1;
    ds->shaped = 1;
    snprintf(ds->what, sizeof ds->what, "%s ('%s'), shape %s", cli_npy_type_name(a.format), a.descr, shape);
    return settle(ds, a.data ? a.data : malloc(1));
}

static int load_raw(const options *o, dataset *ds)
{
    mf_format f = o->have_dtype ? o->dtype : MF_FP32;
    mf_format_desc d;
    size_t len, w;
    unsigned char *buf = read_all(o->path, &len);
    if (!buf)
        return cli_data_error(&voice, "%s: cannot read: %s", o->path, strerror(errno));
    mf_format_describe(f, &d);
    w = (size_t)(d.bits + 7) / 8;
    if (len % w) {
        free(buf);
        return cli_data_error(&voice, "%s: %lu bytes is not a whole number of %s elements (%lu bytes each)", o->path,
                              (unsigned long)len, d.name, (unsigned long)w);
    }
    ds->file_fmt = f;
    ds->n = len / w;
    ds->cols = ds->n;
    snprintf(ds->what, sizeof ds->what, "raw %s", cli_npy_type_name(f));
    return settle(ds, buf);
}

static int load_text(const options *o, dataset *ds)
{
    size_t len, i = 0, cap = 0, n = 0;
    unsigned long lineno = 0;
    unsigned char *buf = read_all(o->path, &len);
    double *vals = NULL;
    if (!buf)
        return cli_data_error(&voice, "%s: cannot read: %s", o->path, strerror(errno));
    while (i < len) {
        size_t j = i, k;
        char *line, *end;
        double v;
        while (j < len && buf[j] != '\n')
            j++;
        lineno++;
        line = (char *)buf + i;
        buf[j] = '\0'; /* j <= len: read_all leaves a NUL after the data */
        if (memchr(line, '\0', j - i)) {
            free(vals);
            free(buf);
            return cli_data_error(&voice, "%s: line %lu: a NUL byte (is this a binary file? use --raw or .npy)",
                                  o->path, lineno);
        }
        i = j + 1;
        for (k = 0; line[k] == ' ' || line[k] == '\t' || line[k] == '\r'; k++)
            ;
        if (line[k] == '\0' || line[k] == '#')
            continue; /* blank line or comment */
        v = strtod(line + k, &end);
        while (*end == ' ' || *end == '\t' || *end == '\r')
            end++;
        if (end == line + k || *end != '\0') {
            char q[64];
            size_t m = strlen(line + k);
            snprintf(q, sizeof q, m > 40 ? "%.37s..." : "%s", line + k);
            free(vals);
            free(buf);
            return cli_data_error(&voice, "%s: line %lu: '%s' is not a number", o->path, lineno, q);
        }
        if (n == cap) {
            double *nv;
            cap = cap ? cap * 2 : 1024;
            nv = (double *)realloc(vals, cap * sizeof *vals);
            if (!nv) {
                free(vals);
                free(buf);
                return cli_data_error(&voice, "out of memory");
            }
            vals = nv;
        }
        vals[n++] = v;
    }
    free(buf);
    ds->file_fmt = MF_FP64;
    ds->n = n;
    ds->cols = n;
    snprintf(ds->what, sizeof ds->what, "text, read as float64");
    return settle(ds, vals ? (void *)vals : malloc(1));
}

/* --op: replace the data by OP(data) in binary32 (mf_unary / mf_softmax with an f32 destination: the
 * binary32 results are stored as computed). Rounding them into a format is what mf_unary does when
 * that format is its destination, so analysing them per format is analysing the op's output there. */
static int apply_op(const options *o, dataset *ds)
{
    float *y, *x;
    size_t i;
    int rc;
    if (o->op == OP_NONE)
        return 0;
    y = (float *)malloc((ds->n ? ds->n : 1) * sizeof *y);
    x = (float *)malloc((ds->n ? ds->n : 1) * sizeof *x);
    if (!y || !x) {
        free(y);
        free(x);
        return cli_data_error(&voice, "out of memory");
    }
    if (o->op == OP_UNARY)
        rc = mf_unary(o->unary, MF_FP32, y, ds->fmt, ds->buf, ds->n, NULL);
    else
        rc = mf_softmax(o->op == OP_LOG_SOFTMAX, MF_FP32, y, ds->fmt, ds->buf, ds->cols ? ds->n / ds->cols : 0,
                        ds->cols, NULL);
    if (rc == MF_OK) /* the inputs as the op saw them: widened to binary32 (f64 rounded to nearest) */
        rc = mf_convert(MF_FP32, x, ds->fmt, ds->buf, ds->n, NULL);
    if (rc != MF_OK) {
        free(y);
        free(x);
        return cli_data_error(&voice, "--op %s failed: %s", o->op_name, mf_strerror(rc));
    }
    /* What binary32 itself lost. No op has an infinite exact result for a finite input. A zero result for
     * a finite input is an underflow for exp, sigmoid and softmax (whose exact results are never 0), for
     * tanh, SiLU and GELU when the input is not 0, and for log-softmax when another element of the row is
     * not -inf (log p = 0 exactly only for an element alone in its row). */
    for (i = 0; i < ds->n; i++) {
        if (!isfinite(x[i]))
            continue;
        if (isinf(y[i]))
            ds->op_inf++;
        else if (y[i] == 0 && o->op != OP_LOG_SOFTMAX &&
                 (x[i] != 0 || o->op == OP_SOFTMAX ||
                  (o->op == OP_UNARY && (o->unary == MF_UNARY_EXP || o->unary == MF_UNARY_SIGMOID))))
            ds->op_zero++;
    }
    if (o->op == OP_LOG_SOFTMAX && ds->cols > 0) {
        size_t r, c;
        for (r = 0; r < ds->n / ds->cols; r++) {
            const float *xr = x + r * ds->cols, *yr = y + r * ds->cols;
            size_t live = 0;
            for (c = 0; c < ds->cols && live < 2; c++)
                live += xr[c] > -INFINITY;
            for (c = 0; c < ds->cols && live >= 2; c++)
                ds->op_zero += isfinite(xr[c]) && yr[c] == 0;
        }
    }
    free(x);
    free(ds->buf);
    ds->buf = y;
    ds->fmt = MF_FP32;
    return 0;
}

/* "exp(data)" or "softmax(data) over the last axis"-style description of what --op computed. */
static void op_desc(char *buf, size_t size, const options *o, const dataset *ds)
{
    size_t rows = ds->cols ? ds->n / ds->cols : 0;
    if (o->op == OP_UNARY)
        snprintf(buf, size, "%s(data)", o->op_name);
    else if (ds->shaped)
        snprintf(buf, size, "%s(data) over the last axis (%llu rows of %llu)", o->op_name,
                 (unsigned long long)rows, (unsigned long long)ds->cols);
    else
        snprintf(buf, size, "%s(data) over all %llu elements (one row: the file has no shape)", o->op_name,
                 (unsigned long long)ds->n);
}

/* ---- formatting helpers ------------------------------------------------------------------------ */

static void fmt_count(char *buf, size_t size, uint64_t c, size_t n)
{
    if (c == 0)
        snprintf(buf, size, "0");
    else if (c < n && 100.0 * (double)c / (double)n >= 99.95) /* not "100%" unless it is */
        snprintf(buf, size, "%llu (%.2f%%)", (unsigned long long)c, floor(10000.0 * (double)c / (double)n) / 100);
    else
        snprintf(buf, size, "%llu (%.3g%%)", (unsigned long long)c, 100.0 * (double)c / (double)n);
}

static void fmt_scale(char *buf, size_t size, double s)
{
    int e;
    double m = frexp(s, &e);
    if (m == 0.5)
        snprintf(buf, size, e - 1 == 0 ? "1" : "2^%d", e - 1);
    else
        snprintf(buf, size, "%.6g", s);
}

static void fmt_err(char *buf, size_t size, double v, uint64_t count)
{
    if (count == 0)
        snprintf(buf, size, "-");
    else if (v == 0)
        snprintf(buf, size, "0");
    else
        snprintf(buf, size, "%.3g", v);
}

/* The powers of two that scale the data without overflow and without underflow. */
static void fmt_safe(char *buf, size_t size, const mf_analyze_report *b)
{
    if (b->amax == 0)
        snprintf(buf, size, "any");
    else if (b->scale_down_unbounded) /* nothing ever rounds to zero */
        snprintf(buf, size, "<= 2^%d", b->scale_up_log2);
    else if (b->scale_down_log2 > b->scale_up_log2)
        snprintf(buf, size, "none");
    else
        snprintf(buf, size, "2^%d..2^%d", b->scale_down_log2, b->scale_up_log2);
}

static void fmt_pow2(char *buf, size_t size, const char *prefix, int k, const mf_analyze_report *b, int down)
{
    if (b->amax == 0 || (down && b->scale_down_unbounded))
        snprintf(buf, size, "any");
    else
        snprintf(buf, size, "%s2^%d", prefix, k);
}

/* ---- analysis ----------------------------------------------------------------------------------- */

typedef struct column {
    mf_format fmt;
    mf_format_desc d;
    double scale;            /* the scale used for the table */
    mf_analyze_report base;  /* at scale 1: the safe scales, the histogram */
    mf_analyze_report rep;   /* at the chosen scale */
} column;

static int run_analyze(const dataset *ds, const options *o, mf_format f, double scale, mf_analyze_report *r)
{
    mf_analyze_opts ao;
    int rc;
    memset(&ao, 0, sizeof ao);
    ao.src_format = ds->fmt;
    ao.round = o->round;
    ao.overflow = o->overflow;
    ao.seed = o->seed;
    ao.scale = scale;
    rc = mf_analyze(f, ds->buf, ds->n, &ao, r);
    if (rc != MF_OK)
        return cli_data_error(&voice, "mf_analyze(%s) failed: %s", mf_format_name(f), mf_strerror(rc));
    return 0;
}

/* --scale auto: k = min(scale_up_log2, max(0, k_normal)), where k_normal is the smallest k that lifts
 * the smallest nonzero |x| into the normal range (|x| * 2^k >= min normal). That is: scale by 1 when
 * nothing overflows and nothing falls below the normal range; otherwise the largest power of two
 * under which nothing overflows, capped at the one that is enough to lift every element out of the
 * subnormal band (a larger one only adds headroom; fewer underflows cannot be had without overflow).
 * k is kept within binary32's normal exponents (frameworks store scales in f32). No finite nonzero
 * element: 1. */
static double auto_scale(const mf_analyze_report *base, const mf_format_desc *d)
{
    int k = 0, e, k_normal;
    if (base->amax == 0)
        return 1;
    frexp(base->amin, &e); /* amin = m 2^e, 1/2 <= m < 1 */
    k_normal = ilogb(d->min_normal) - e + 1;
    if (k_normal > 0)
        k = k_normal;
    if (k > base->scale_up_log2)
        k = base->scale_up_log2;
    if (k < CLI_AUTO_MIN_LOG2)
        k = CLI_AUTO_MIN_LOG2;
    if (k > CLI_AUTO_MAX_LOG2)
        k = CLI_AUTO_MAX_LOG2;
    return ldexp(1.0, k);
}

/* Values below this magnitude (after scaling) round to zero in f: half the smallest subnormal under
 * the nearest modes, the smallest subnormal under the others (for positive values). */
static double zero_threshold(const mf_format_desc *d, mf_round r)
{
    if (r == MF_ROUND_NEAREST_EVEN || r == MF_ROUND_NEAREST_AWAY)
        return d->min_subnormal / 2;
    return d->min_subnormal;
}

/* ---- the ASCII histogram ------------------------------------------------------------------------ */

/* What format column c does to the magnitudes in [2^b, 2^(b+1)) of the data (before scaling):
 * judged at the bin's edges, nudged inwards so that an exact tie at an edge does not decide it. */
static const char *bin_mark(const column *c, const options *o, int b)
{
    double lo = ldexp(1.0 + 1.0 / 4096, b) * c->scale, hi = ldexp(1.0 - 1.0 / 4096, b + 1) * c->scale;
    unsigned el = 0, eh = 0;
    mf_from_f64_ev(c->fmt, lo, o->round, o->overflow, 0x80000000u, &el);
    mf_from_f64_ev(c->fmt, hi, o->round, o->overflow, 0x80000000u, &eh);
    if ((el & MF_EVENT_OVERFLOW) && (eh & MF_EVENT_OVERFLOW))
        return "OVF";
    if (eh & MF_EVENT_OVERFLOW)
        return "ovf";
    if ((el & MF_EVENT_UNDERFLOW) && (eh & MF_EVENT_UNDERFLOW))
        return "UNF";
    if (el & MF_EVENT_UNDERFLOW)
        return "unf";
    if ((el | eh) & MF_EVENT_SUBNORMAL)
        return "sub";
    return ".";
}

static void print_histogram(const column *cols, int nc, const options *o)
{
    char what[64];
    const uint64_t *h = cols[0].base.hist;
    int lo = -1, hi = -1, b, i;
    uint64_t maxc = 0;
    const int width = 40;
    for (b = 0; b < MF_ANALYZE_HIST_BINS; b++)
        if (h[b]) {
            if (lo < 0)
                lo = b;
            hi = b;
            if (h[b] > maxc)
                maxc = h[b];
        }
    if (o->op != OP_NONE)
        snprintf(what, sizeof what, "x = %s(data)", o->op_name);
    else
        snprintf(what, sizeof what, "the data");
    printf("\nlog2|x| histogram of %s (before scaling); each format's marks are its range divided "
           "by its scale\n",
           what);
    if (lo < 0) {
        printf("  (no finite nonzero elements)\n");
        return;
    }
    printf("  %7s %10s  %-*s", "log2|x|", "count", width, "");
    for (i = 0; i < nc; i++)
        printf(" %5s", cols[i].d.name);
    printf("\n");
    for (b = hi; b >= lo; b--) {
        int len = (int)((double)h[b] * width / (double)maxc + 0.5), k;
        if (h[b] && len == 0)
            len = 1;
        printf("  %7d %10llu  ", b + MF_ANALYZE_HIST_MIN, (unsigned long long)h[b]);
        for (k = 0; k < width; k++)
            putchar(k < len ? '#' : ' ');
        for (i = 0; i < nc; i++)
            printf(" %5s", bin_mark(&cols[i], o, b + MF_ANALYZE_HIST_MIN));
        printf("\n");
    }
    printf("  row b counts %s <= |x| < 2^(b+1); # = up to %.3g elements\n",
           lo + MF_ANALYZE_HIST_MIN == MF_ANALYZE_HIST_MIN ? "(and below) 2^b" : "2^b", (double)maxc / width);
    printf("  OVF/ovf: all/part of the row overflows%s; sub: subnormal; UNF/unf: all/part rounds to zero; "
           ".: normal\n",
           o->overflow == MF_OVERFLOW_SATURATE ? " (saturates)" : "");
}

/* ---- the picture -------------------------------------------------------------------------------- */

/* Double-quoted for sh: every " \ $ ` escaped. */
static char *sh_quote(const char *s)
{
    size_t n = strlen(s), i, k = 0;
    char *q = (char *)malloc(2 * n + 3);
    if (!q)
        return NULL;
    q[k++] = '"';
    for (i = 0; i < n; i++) {
        if (s[i] == '"' || s[i] == '\\' || s[i] == '$' || s[i] == '`')
            q[k++] = '\\';
        q[k++] = s[i];
    }
    q[k++] = '"';
    q[k] = '\0';
    return q;
}

static int write_plot(const column *cols, int nc, const options *o, const dataset *ds)
{
    cli_plot_input in;
    char title[300], sub[400], opd[200];
    const char *base = strrchr(o->path, '/');
    const mf_analyze_report *r0 = &cols[0].base;
    FILE *f;
    cli_out out;
    int i, rc;

    memset(&in, 0, sizeof in);
    if (o->op == OP_NONE) {
        snprintf(title, sizeof title, "%s: log2 |x| histogram and each format's range", base ? base + 1 : o->path);
        opd[0] = '\0';
    } else {
        snprintf(title, sizeof title, "x = %s(%s): log2 |x| histogram and each format's range", o->op_name,
                 base ? base + 1 : o->path);
        snprintf(opd, sizeof opd, "; %s in binary32 (%s)", o->op_name, mf_elementwise_math());
    }
    snprintf(sub, sizeof sub, "%llu elements, %s%s; rounding %s, overflow %s%s", (unsigned long long)ds->n,
             ds->what, opd, mf_round_name(o->round), o->overflow == MF_OVERFLOW_SATURATE ? "saturates" : "IEEE",
             o->scale_auto ? "; scale auto (per format)" : "");
    in.title = title;
    in.subtitle = sub;
    in.hist = r0->hist;
    in.hist_min = MF_ANALYZE_HIST_MIN;
    in.hist_bins = MF_ANALYZE_HIST_BINS;
    in.n = ds->n;
    in.zeros = r0->in_zero;
    in.nonfinite = r0->in_nan + r0->in_inf;
    in.nformats = nc;
    for (i = 0; i < nc; i++) {
        cli_plot_format *p = &in.formats[i];
        double ls = log2(cols[i].scale);
        p->name = cols[i].d.name;
        p->scale_log2 = ls;
        p->max_log2 = log2(cols[i].d.max) - ls;
        p->min_normal_log2 = log2(cols[i].d.min_normal) - ls;
        p->min_sub_log2 = log2(cols[i].d.min_subnormal) - ls;
        p->zero_log2 = log2(zero_threshold(&cols[i].d, o->round)) - ls;
        p->has_subnormals = cols[i].d.has_subnormals;
        p->overflow = cols[i].rep.overflow;
        p->underflow = cols[i].rep.underflow;
        p->subnormal = cols[i].rep.subnormal;
    }
    /* written under a temporary name, renamed into place once whole (cli_out) */
    if (cli_out_open(&out, o->plot) != 0)
        return cli_data_error(&voice, "--plot %s: cannot create: %s", o->plot, strerror(errno));
    if (o->plot_png) {
        char *q, *cmd;
        fclose(out.f); /* rsvg-convert writes the temporary file */
        out.f = NULL;
        q = sh_quote(out.tmp);
        cmd = q ? (char *)malloc(strlen(q) + 64) : NULL;
        if (!cmd) {
            free(q);
            cli_out_abort(&out);
            return cli_data_error(&voice, "out of memory");
        }
        sprintf(cmd, "rsvg-convert -f png -o %s", q);
        free(q);
        fflush(stdout);
        f = popen(cmd, "w");
        free(cmd);
        if (!f) {
            cli_out_abort(&out);
            return cli_data_error(&voice, "--plot %s: cannot run rsvg-convert: %s", o->plot, strerror(errno));
        }
        rc = cli_plot_svg(f, &in);
        i = pclose(f);
        if (rc != 0 || i != 0) {
            cli_out_abort(&out);
            return cli_data_error(&voice, "--plot %s: rsvg-convert failed (status %d)", o->plot, i);
        }
    } else if (cli_plot_svg(out.f, &in) != 0) {
        cli_out_abort(&out);
        return cli_data_error(&voice, "--plot %s: write error", o->plot);
    }
    if (cli_out_commit(&out) != 0)
        return cli_data_error(&voice, "--plot %s: write error: %s", o->plot, strerror(errno));
    return 0;
}

/* ---- the command -------------------------------------------------------------------------------- */

/* Whether a target is an fnuz format (its overflow gives the NaN 0x80, as e4m3's gives 0x7f). */
static int any_fnuz(const options *o)
{
    int k;
    for (k = 0; k < o->nformats; k++) {
        mf_format_desc d;
        if (mf_format_describe(o->formats[k], &d) == MF_OK && d.is_signed && d.has_nan && !d.has_neg_zero)
            return 1;
    }
    return 0;
}

static void print_report(const column *cols, int nc, const options *o, const dataset *ds)
{
    const mf_analyze_report *r0 = &cols[0].base;
    char buf[64];
    int i;
    const int lw = 16, cw = 16;
    uint64_t finite_nz = r0->n - r0->in_zero - r0->in_nan - r0->in_inf;

    printf("file     %s\n", o->path);
    printf("data     %llu elements, %s\n", (unsigned long long)ds->n, ds->what);
    if (o->op != OP_NONE) {
        char opd[200];
        op_desc(opd, sizeof opd, o, ds);
        printf("op       x = %s\n", opd);
        printf("math     binary32, %s (mf_%s): the rest of the report is about x,\n"
               "         the binary32 value a kernel rounds into each format\n",
               mf_elementwise_math(), o->op == OP_UNARY ? "unary" : "softmax");
        printf("binary32 %llu finite inputs gave inf (overflow), %llu gave 0 (underflow); the table counts\n"
               "         an inf as an overflow only where a format cannot keep it (e4m3, e2m1, --sat)\n",
               (unsigned long long)ds->op_inf, (unsigned long long)ds->op_zero);
    }
    printf("values   %llu finite nonzero, %llu zero, %llu NaN, %llu inf\n", (unsigned long long)finite_nz,
           (unsigned long long)r0->in_zero, (unsigned long long)r0->in_nan, (unsigned long long)r0->in_inf);
    if (r0->amax > 0)
        printf("|x|      min %.6g (2^%.2f), max %.6g (2^%.2f): %.1f binades\n", r0->amin, log2(r0->amin), r0->amax,
               log2(r0->amax), log2(r0->amax) - log2(r0->amin));
    printf("rounding %s, overflow %s\n", mf_round_name(o->round),
           o->overflow == MF_OVERFLOW_SATURATE ? "saturates"
           : any_fnuz(o)                       ? "IEEE (inf, NaN for e4m3 and the fnuz formats)"
                                               : "IEEE (inf, NaN for e4m3)");
    if (o->scale_auto)
        printf("scale    auto: per format, the power of two nearest 1 that avoids overflow and lifts the\n"
               "         smallest |x| into the normal range, as far as the format's range allows\n");
    else
        printf("scale    %s\n", (fmt_scale(buf, sizeof buf, o->scale), buf));

#define CLI_ROW(label, expr)                              \
    do {                                                  \
        printf("\n%-*s", lw, label);                      \
        for (i = 0; i < nc; i++) {                        \
            const column *c = &cols[i];                   \
            const mf_analyze_report *r = &c->rep;         \
            (void)r;                                      \
            expr;                                         \
            printf("%*s", cw, buf);                       \
        }                                                 \
    } while (0)

    printf("\n%-*s", lw, "");
    for (i = 0; i < nc; i++)
        printf("%*s", cw, cols[i].d.name);
    CLI_ROW("scale", fmt_scale(buf, sizeof buf, c->scale));
    CLI_ROW("overflow", fmt_count(buf, sizeof buf, r->overflow, r->n));
    CLI_ROW("  saturated", fmt_count(buf, sizeof buf, r->saturated, r->n));
    CLI_ROW("  to inf/NaN", fmt_count(buf, sizeof buf, r->to_inf + r->to_nan, r->n));
    CLI_ROW("underflow to 0", fmt_count(buf, sizeof buf, r->underflow, r->n));
    CLI_ROW("subnormal", fmt_count(buf, sizeof buf, r->subnormal, r->n));
    CLI_ROW("rel err max", fmt_err(buf, sizeof buf, r->rel_err_max, r->rel_count));
    CLI_ROW("rel err mean", fmt_err(buf, sizeof buf, r->rel_err_mean, r->rel_count));
    CLI_ROW("rel err rms", fmt_err(buf, sizeof buf, r->rel_err_rms, r->rel_count));
    CLI_ROW("safe scales", fmt_safe(buf, sizeof buf, &c->base));
    CLI_ROW("  no overflow", fmt_pow2(buf, sizeof buf, "<= ", c->base.scale_up_log2, &c->base, 0));
    CLI_ROW("  no underflow", fmt_pow2(buf, sizeof buf, ">= ", c->base.scale_down_log2, &c->base, 1));
    CLI_ROW("max finite", snprintf(buf, sizeof buf, "%.6g", c->d.max));
    CLI_ROW("min subnormal",
            snprintf(buf, sizeof buf, "%.6g", c->d.has_subnormals ? c->d.min_subnormal : c->d.min_normal));
#undef CLI_ROW
    printf("\n\noverflow: |x|*scale beyond the largest finite value; underflow: a nonzero value that became 0;\n"
           "rel err: |y - x| / |x| over the elements whose result is finite and not saturated; safe scales:\n"
           "the powers of two that multiply the data without overflow (<= 2^a) and without underflow (>= 2^b).\n");
    print_histogram(cols, nc, o);
}

int cli_analyze_main(int argc, char **argv)
{
    options o;
    dataset ds;
    column *cols;
    int i, rc;

    if ((rc = parse_options(argc, argv, &o)) != 0)
        return rc < 0 ? 0 : rc; /* -1: --help was printed */
    memset(&ds, 0, sizeof ds);
    switch (o.kind) {
    case KIND_NPY: rc = load_npy(&o, &ds); break;
    case KIND_RAW: rc = load_raw(&o, &ds); break;
    default: rc = load_text(&o, &ds); break;
    }
    if (rc == 0)
        rc = apply_op(&o, &ds);
    if (rc != 0) {
        free(ds.buf);
        return rc;
    }
    cols = (column *)calloc((size_t)o.nformats, sizeof *cols);
    if (!cols) {
        free(ds.buf);
        return cli_data_error(&voice, "out of memory");
    }
    for (i = 0; i < o.nformats && rc == 0; i++) {
        column *c = &cols[i];
        c->fmt = o.formats[i];
        mf_format_describe(c->fmt, &c->d);
        rc = run_analyze(&ds, &o, c->fmt, 1.0, &c->base);
        if (rc)
            break;
        c->scale = o.scale_auto ? auto_scale(&c->base, &c->d) : o.scale;
        if (c->scale == 1.0)
            c->rep = c->base;
        else
            rc = run_analyze(&ds, &o, c->fmt, c->scale, &c->rep);
    }
    if (rc == 0) {
        print_report(cols, o.nformats, &o, &ds);
        if (fflush(stdout) != 0 || ferror(stdout))
            rc = cli_data_error(&voice, "write error: %s", strerror(errno));
    }
    if (rc == 0 && o.plot) {
        rc = write_plot(cols, o.nformats, &o, &ds);
        if (rc == 0)
            fprintf(stderr, "minifloat: analyze: wrote %s\n", o.plot);
    }
    free(cols);
    free(ds.buf);
    return rc;
}
