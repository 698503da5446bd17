/* SPDX-License-Identifier: MIT */
/* tools/cli/gemm_lab.c - `minifloat gemm-lab`: how far mf_gemm's accumulation models (FP32 and the
 * tensor-core models, with and without promotion to binary32) drift from the exact dot product as K
 * grows; a table or CSV on stdout and, with --plot, the error-versus-K picture as SVG. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <minifloat.h>

#include "cli_util.h"
#include "commands.h"
#include "svg.h"

/* Messages: "minifloat gemm-lab: ...", usage errors point to its own --help. */
static const cli_voice voice = {"minifloat gemm-lab: ", "minifloat gemm-lab"};

#define LAB_MAX_K 32               /* values in --k */
#define LAB_K_LIMIT (1u << 20)     /* largest K */
#define LAB_MN_LIMIT 4096u         /* largest --m, --n */
#define LAB_ELEMS_LIMIT (1u << 27) /* largest m x K and K x n: the binary64 draw of one is 1 GiB */
#define LAB_N_MODELS 6
#define LAB_MAX_SERIES (2 * LAB_N_MODELS)

static const char lab_usage[] =
    "usage: minifloat gemm-lab [options]\n"
    "\n"
    "Measure the accumulation error of mf_gemm's models against the exact dot product (MF_ACCUM_EXACT)\n"
    "as K grows: for each K, C = A.B (m x K times K x n, f32 C) with each model and exactly; the\n"
    "largest and the median |C - C_exact| / |C_exact| over the m x n outputs (exact zeros skipped),\n"
    "and the largest |C - C_exact| / sum_p |a_p b_p|, which cancellation in C_exact does not inflate.\n"
    "The same seed gives the same numbers.\n"
    "\n"
    "  --models LIST      comma-separated accumulation models (default fp32,h100):\n"
    "                     fp32 v100 a100 ada h100 b200\n"
    "  --formats A,B      formats of A and B (default e4m3,e4m3): f32 f16 bf16 e4m3 e5m2 e2m3 e3m2 e2m1\n"
    "                     (each model takes only the pairs its GPU's tensor cores multiply)\n"
    "  --k LIST           increasing comma-separated K values (default\n"
    "                     64,128,256,512,1024,2048,4096,8192,16384; at most 1048576)\n"
    "  --m N, --n N       outputs per K: an m x n tile of C (default 64 x 64; at most 4096 each,\n"
    "                     and m x K, K x n at most 2^27 elements)\n"
    "  --promote N        also run each tensor-core model with promote_every = N: the tensor core's\n"
    "                     sum added into binary32 every N products (default 128; 0 = off)\n"
    "  --dist NAME        the inputs: normal (default; N(0,1)) or uniform (U(0,1), every product\n"
    "                     positive); each tensor scaled so that its amax is the format's max (formats\n"
    "                     with max <= 65504; bf16 and f32 take the values as drawn), then rounded (rn)\n"
    "  --seed N           Philox seed of the inputs (default 1)\n"
    "  --plot FILE.svg    write relative error against K (log-log) as SVG\n"
    "  --csv              CSV on stdout instead of the table\n"
    "  -h, --help         this text\n"
    "\n"
    "exit status: 0 success, 1 mf_gemm, memory or I/O error, 2 usage error (a model given formats\n"
    "or a --promote it does not take included)\n";

/* ---- options ------------------------------------------------------------------------------------ */

static const struct {
    const char *name;
    mf_accum accum;
} lab_models[LAB_N_MODELS] = {{"fp32", MF_ACCUM_FP32}, {"v100", MF_ACCUM_V100}, {"a100", MF_ACCUM_A100},
                              {"ada", MF_ACCUM_ADA},   {"h100", MF_ACCUM_H100}, {"b200", MF_ACCUM_B200}};

enum { DIST_NORMAL, DIST_UNIFORM };

typedef struct lab_options {
    int nmodels;
    int models[LAB_N_MODELS]; /* indices into lab_models */
    mf_format fmt[2];         /* A, B */
    int nk;
    size_t k[LAB_MAX_K];
    size_t m, n;
    size_t promote;
    int dist;
    uint64_t seed;
    const char *plot;
    int csv;
} lab_options;

static int model_lookup(const char *name, int *item)
{
    int i;
    for (i = 0; i < LAB_N_MODELS; i++)
        if (cli_name_eq(name, lab_models[i].name)) {
            *item = i;
            return 1;
        }
    return 0;
}

/* The GEMM's input formats: the element formats (e8m0 and f64 are not). */
static int input_format_lookup(const char *name, int *item)
{
    mf_format f;
    if (mf_format_from_name(name, &f) != MF_OK || f == MF_E8M0 || f == MF_FP64)
        return 0;
    *item = (int)f;
    return 1;
}

static int parse_formats(const char *list, lab_options *o)
{
    int items[2], n, rc;
    const char *p = strchr(list, ',');
    /* "e4m3,e4m3" is one format twice, which cli_parse_list refuses, so split the pair here */
    if (!p || strchr(p + 1, ','))
        return cli_usage_error(&voice, "--formats needs two formats, A,B (e.g. e4m3,e5m2)");
    {
        char a[32];
        const size_t len = (size_t)(p - list);
        if (len == 0 || len >= sizeof a)
            return cli_usage_error(&voice, "--formats needs two formats, A,B (e.g. e4m3,e5m2)");
        memcpy(a, list, len);
        a[len] = '\0';
        rc = cli_parse_list(&voice, "--formats", "format", a, input_format_lookup,
                            "f32 f16 bf16 e4m3 e5m2 e2m3 e3m2 e2m1", items, 1, &n);
        if (rc != 0)
            return rc;
        rc = cli_parse_list(&voice, "--formats", "format", p + 1, input_format_lookup,
                            "f32 f16 bf16 e4m3 e5m2 e2m3 e3m2 e2m1", items + 1, 1, &n);
        if (rc != 0)
            return rc;
    }
    o->fmt[0] = (mf_format)items[0];
    o->fmt[1] = (mf_format)items[1];
    return 0;
}

/* "64,128,...": increasing K values, each 1..LAB_K_LIMIT. */
static int parse_k_list(const char *list, lab_options *o)
{
    const char *p = list;
    o->nk = 0;
    for (;;) {
        char num[32];
        const size_t len = strcspn(p, ",");
        uint64_t v;
        if (len == 0 || len >= sizeof num)
            return cli_usage_error(&voice, "--k: '%s' is not a comma-separated list of numbers", list);
        memcpy(num, p, len);
        num[len] = '\0';
        if (!cli_parse_uint(num, LAB_K_LIMIT, &v) || v == 0)
            return cli_usage_error(&voice, "--k: '%s' is not a K from 1 to %u", num, LAB_K_LIMIT);
        if (o->nk && v <= o->k[o->nk - 1])
            return cli_usage_error(&voice, "--k: the values must increase ('%s' after %llu)", num,
                                   (unsigned long long)o->k[o->nk - 1]);
        if (o->nk == LAB_MAX_K)
            return cli_usage_error(&voice, "--k: at most %d values", LAB_MAX_K);
        o->k[o->nk++] = (size_t)v;
        if (p[len] == '\0')
            return 0;
        p += len + 1;
    }
}

static int parse_options(int argc, char **argv, lab_options *o)
{
    int i, r, rc;
    const char *val;
    uint64_t u;

    memset(o, 0, sizeof *o);
    o->nmodels = 2;
    o->models[0] = 0; /* fp32 */
    o->models[1] = 4; /* h100 */
    o->fmt[0] = o->fmt[1] = MF_FP8_E4M3;
    {
        static const size_t ks[] = {64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384};
        for (o->nk = 0; o->nk < (int)(sizeof ks / sizeof ks[0]); o->nk++)
            o->k[o->nk] = ks[o->nk];
    }
    o->m = o->n = 64;
    o->promote = 128;
    o->dist = DIST_NORMAL;
    o->seed = 1;

    for (i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--csv") == 0) {
            o->csv = 1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--models", NULL, &val)) != 0) {
            if (r < 0)
                return cli_usage_error(&voice, "option '%s' needs a value", a);
            rc = cli_parse_list(&voice, "--models", "model", val, model_lookup, "fp32 v100 a100 ada h100 b200",
                                o->models, LAB_N_MODELS, &o->nmodels);
            if (rc != 0)
                return rc;
        } else if ((r = cli_opt_value(argc, argv, &i, "--formats", NULL, &val)) != 0) {
            if (r < 0)
                return cli_usage_error(&voice, "option '%s' needs a value", a);
            if ((rc = parse_formats(val, o)) != 0)
                return rc;
        } else if ((r = cli_opt_value(argc, argv, &i, "--k", NULL, &val)) != 0) {
            if (r < 0)
                return cli_usage_error(&voice, "option '%s' needs a value", a);
            if ((rc = parse_k_list(val, o)) != 0)
                return rc;
        } else if ((r = cli_opt_value(argc, argv, &i, "--m", NULL, &val)) != 0) {
            if (r < 0 || !cli_parse_uint(val, LAB_MN_LIMIT, &u) || u == 0)
                return cli_usage_error(&voice, "--m needs a number from 1 to %u", LAB_MN_LIMIT);
            o->m = (size_t)u;
        } else if ((r = cli_opt_value(argc, argv, &i, "--n", NULL, &val)) != 0) {
            if (r < 0 || !cli_parse_uint(val, LAB_MN_LIMIT, &u) || u == 0)
                return cli_usage_error(&voice, "--n needs a number from 1 to %u", LAB_MN_LIMIT);
            o->n = (size_t)u;
        } else if ((r = cli_opt_value(argc, argv, &i, "--promote", NULL, &val)) != 0) {
            if (r < 0 || !cli_parse_uint(val, LAB_K_LIMIT, &u))
                return cli_usage_error(&voice, "--promote needs a number from 0 to %u", LAB_K_LIMIT);
            o->promote = (size_t)u;
        } else if ((r = cli_opt_value(argc, argv, &i, "--dist", NULL, &val)) != 0) {
            if (r < 0)
                return cli_usage_error(&voice, "option '%s' needs a value", a);
            if (cli_name_eq(val, "normal"))
                o->dist = DIST_NORMAL;
            else if (cli_name_eq(val, "uniform"))
                o->dist = DIST_UNIFORM;
            else
                return cli_usage_error(&voice, "--dist: unknown distribution '%s' (normal uniform)", val);
        } else if ((r = cli_opt_value(argc, argv, &i, "--seed", NULL, &val)) != 0) {
            if (r < 0 || !cli_parse_uint(val, UINT64_MAX, &o->seed))
                return cli_usage_error(&voice, "--seed needs an unsigned 64-bit number");
        } else if ((r = cli_opt_value(argc, argv, &i, "--plot", NULL, &val)) != 0) {
            if ((rc = cli_parse_svg_path(&voice, "--plot", r, val, &o->plot)) != 0)
                return rc;
        } else if (a[0] == '-') {
            return cli_usage_error(&voice, "unknown option '%s'", a);
        } else {
            return cli_usage_error(&voice, "unexpected argument '%s'", a);
        }
    }
    if (o->m * o->k[o->nk - 1] > LAB_ELEMS_LIMIT || o->k[o->nk - 1] * o->n > LAB_ELEMS_LIMIT)
        return cli_usage_error(&voice, "m x K and K x n must be at most %u elements (K %llu, m %llu, n %llu)",
                               LAB_ELEMS_LIMIT, (unsigned long long)o->k[o->nk - 1], (unsigned long long)o->m,
                               (unsigned long long)o->n);
    return 0;
}

/* ---- inputs ------------------------------------------------------------------------------------- */

/* Values of tensor `which` (0: A, 1: B) for this K: Philox block j (counter {j, which, K}, key seed)
 * gives elements 2j and 2j+1, so every tensor is reproducible alone and no two share bits. */
static void draw(double *x, size_t count, int dist, uint64_t seed, uint32_t which, size_t k)
{
    size_t j;
    for (j = 0; 2 * j < count; j++) {
        mf_philox4x32 c, r;
        double u0, u1;
        c.v[0] = (uint32_t)j;
        c.v[1] = (uint32_t)((uint64_t)j >> 32);
        c.v[2] = which;
        c.v[3] = (uint32_t)k;
        r = mf_philox4x32_10(c, (uint32_t)seed, (uint32_t)(seed >> 32));
        /* two 53-bit uniforms in [0, 1) */
        u0 = (double)(((uint64_t)r.v[0] << 21) | (r.v[1] >> 11)) * 0x1p-53;
        u1 = (double)(((uint64_t)r.v[2] << 21) | (r.v[3] >> 11)) * 0x1p-53;
        if (dist == DIST_UNIFORM) {
            x[2 * j] = u0;
            if (2 * j + 1 < count)
                x[2 * j + 1] = u1;
        } else { /* Box-Muller; 1 - u0 is in (0, 1] so the log is finite */
            const double rad = sqrt(-2.0 * log(1.0 - u0)), th = 6.283185307179586 * u1;
            x[2 * j] = rad * cos(th);
            if (2 * j + 1 < count)
                x[2 * j + 1] = rad * sin(th);
        }
    }
}

/* Whether a tensor of fmt is scaled to its max: the narrow formats and f16, as per-tensor FP8 scaling
 * does; bf16 and f32 have binary32's range, where amax at max would overflow the products. */
static int scaled(mf_format fmt) { return cli_describe(fmt).max <= 65504.0; }

/* Draw count values, scale amax to fmt's max (where scaled()), round them into fmt (rn, saturating:
 * amax * s may land a hair above max in binary64); tmp then holds the rounded values. Returns 0 or an
 * MF_E_* code. */
static int make_tensor(void *dst, mf_format fmt, double *tmp, size_t count, const lab_options *o, uint32_t which,
                       size_t k)
{
    mf_opts co;
    size_t i;
    double amax = 0;
    int rc;
    draw(tmp, count, o->dist, o->seed, which, k);
    for (i = 0; i < count; i++)
        if (fabs(tmp[i]) > amax)
            amax = fabs(tmp[i]);
    if (scaled(fmt) && amax > 0) {
        const double s = cli_describe(fmt).max / amax;
        for (i = 0; i < count; i++)
            tmp[i] *= s;
    }
    memset(&co, 0, sizeof co);
    co.round = MF_ROUND_NEAREST_EVEN;
    co.overflow = MF_OVERFLOW_SATURATE;
    rc = mf_convert(fmt, dst, MF_FP64, tmp, count, &co);
    return rc != MF_OK ? rc : mf_convert(MF_FP64, tmp, fmt, dst, count, &co); /* exact: widening */
}

/* sum_p |a[i][p] b[p][j]| for every output, in binary64 (relative error below K * 2^-53): the scale of
 * the error bounds of a dot product, which cancellation does not shrink as it shrinks C_exact. */
static void sum_abs(double *out, const double *ad, const double *bd, size_t m, size_t n, size_t k)
{
    size_t i, j, p;
    for (i = 0; i < m; i++) {
        double *row = out + i * n;
        for (j = 0; j < n; j++)
            row[j] = 0;
        for (p = 0; p < k; p++) {
            const double x = fabs(ad[i * k + p]);
            const double *brow = bd + p * n;
            for (j = 0; j < n; j++)
                row[j] += x * fabs(brow[j]);
        }
    }
}

/* ---- measurement -------------------------------------------------------------------------------- */

/* One line of the plot: a model, promoted or not. */
typedef struct lab_series {
    int model;      /* index into lab_models */
    size_t promote; /* 0: none */
    double max_err[LAB_MAX_K], med_err[LAB_MAX_K];
    double max_abs[LAB_MAX_K]; /* max |C - C_exact| / sum |a b|: the error without cancellation's noise */
    size_t used[LAB_MAX_K];    /* outputs whose exact value is not zero */
} lab_series;

static int cmp_double(const void *pa, const void *pb)
{
    const double a = *(const double *)pa, b = *(const double *)pb;
    return a < b ? -1 : a > b;
}

/* Max and median of |c - e| / |e| over the outputs with e != 0, and max |c - e| / sa (sa = sum |a b|,
 * outputs with sa != 0) into s's column ki; rel is scratch of count doubles. Returns the outputs with e != 0. */
static size_t rel_errors(const float *c, const float *e, const double *sa, size_t count, double *rel, lab_series *s,
                         int ki)
{
    size_t i, u = 0;
    double *max = &s->max_err[ki], *med = &s->med_err[ki];
    s->max_abs[ki] = 0;
    for (i = 0; i < count; i++) {
        double r, d = fabs((double)c[i] - (double)e[i]);
        if (d != d)
            d = HUGE_VAL; /* a NaN result counts as an infinite error */
        if (sa[i] > 0 && d / sa[i] > s->max_abs[ki])
            s->max_abs[ki] = d / sa[i];
        if (e[i] == 0)
            continue;
        r = d / fabs((double)e[i]);
        rel[u++] = r;
    }
    if (u == 0) {
        *max = *med = 0;
        return 0;
    }
    qsort(rel, u, sizeof *rel, cmp_double);
    *max = rel[u - 1];
    *med = u % 2 ? rel[u / 2] : 0.5 * (rel[u / 2 - 1] + rel[u / 2]);
    return u;
}

static int run_gemm(const lab_options *o, size_t k, mf_accum accum, size_t promote, const void *a, const void *b,
                    float *c)
{
    mf_gemm_opts g;
    memset(&g, 0, sizeof g);
    g.accum = accum;
    g.promote_every = promote;
    return mf_gemm(MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, o->m, o->n, k, 1.0f, a, o->fmt[0], k, b, o->fmt[1], o->n,
                   0.0f, c, MF_FP32, o->n, &g);
}

/* Whether each series' model takes these formats (and --promote) at all, before any output: an empty
 * product (m = 0) is checked as fully as any other. A combination the model refuses is a usage error. */
static int preflight(const lab_options *o, const lab_series *ser, int nser)
{
    float c = 0;
    unsigned char dummy[8] = {0};
    int s, rc;
    for (s = 0; s < nser; s++) {
        lab_options z = *o;
        const char *name = lab_models[ser[s].model].name;
        z.m = 0;
        rc = run_gemm(&z, o->k[0], lab_models[ser[s].model].accum, ser[s].promote, dummy, dummy, &c);
        if (rc == MF_E_FORMAT)
            return cli_usage_error(&voice, "the %s model does not multiply %s x %s (no such tensor-core instruction)",
                                   name, mf_format_name(o->fmt[0]), mf_format_name(o->fmt[1]));
        if (rc == MF_E_ARG && ser[s].promote)
            return cli_usage_error(&voice, "--promote %llu is not a multiple of the %s model's block size for %s x %s",
                                   (unsigned long long)ser[s].promote, name, mf_format_name(o->fmt[0]),
                                   mf_format_name(o->fmt[1]));
        if (rc != MF_OK)
            return cli_data_error(&voice, "mf_gemm (%s, %s x %s): %s", name, mf_format_name(o->fmt[0]),
                                  mf_format_name(o->fmt[1]), mf_strerror(rc));
    }
    return 0;
}

/* ---- output ------------------------------------------------------------------------------------- */

static void series_label(char *buf, size_t size, const lab_series *s)
{
    if (s->promote)
        snprintf(buf, size, "%s, promote %llu", lab_models[s->model].name, (unsigned long long)s->promote);
    else
        snprintf(buf, size, "%s", lab_models[s->model].name);
}

static const char *dist_name(int dist) { return dist == DIST_UNIFORM ? "uniform" : "normal"; }

static void print_header(const lab_options *o)
{
    printf("gemm-lab: A %s x B %s, %s inputs", mf_format_name(o->fmt[0]), mf_format_name(o->fmt[1]),
           dist_name(o->dist));
    if (scaled(o->fmt[0]) || scaled(o->fmt[1]))
        printf(" (per-tensor scale: amax -> max)");
    printf(", C f32, %llu x %llu outputs per K, seed %llu\n", (unsigned long long)o->m, (unsigned long long)o->n,
           (unsigned long long)o->seed);
    printf("relative error |C - C_exact| / |C_exact| against MF_ACCUM_EXACT (exact zeros skipped)\n\n");
    printf("%8s  %-6s %8s  %12s  %14s  %16s\n", "K", "model", "promote", "max_rel_err", "median_rel_err",
           "max_err/sum|ab|");
}

static void print_row(const lab_options *o, size_t k, const lab_series *s, int ki)
{
    char prom[24];
    if (o->csv) {
        printf("%llu,%s,%llu,%.6e,%.6e,%.6e,%llu\n", (unsigned long long)k, lab_models[s->model].name,
               (unsigned long long)s->promote, s->max_err[ki], s->med_err[ki], s->max_abs[ki],
               (unsigned long long)s->used[ki]);
        return;
    }
    if (s->promote)
        snprintf(prom, sizeof prom, "%llu", (unsigned long long)s->promote);
    else
        snprintf(prom, sizeof prom, "-");
    printf("%8llu  %-6s %8s  %12.3e  %14.3e  %16.3e\n", (unsigned long long)k, lab_models[s->model].name, prom,
           s->max_err[ki], s->med_err[ki], s->max_abs[ki]);
}

static const char *const lab_colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                         "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};

typedef struct lab_frame {
    double x0, y0, w, h;
    double xmin, xmax; /* log2 K */
    int dmin, dmax;    /* decades of the y axis */
} lab_frame;

static double fx(const lab_frame *p, size_t k)
{
    return p->x0 + (log2((double)k) - p->xmin) / (p->xmax - p->xmin) * p->w;
}

/* A zero error (no rounding at all) sits on the bottom edge: a log axis has no place for it. */
static double fy(const lab_frame *p, double v)
{
    double l = v > 0 ? log10(v) : p->dmin;
    if (l < p->dmin)
        l = p->dmin;
    if (l > p->dmax)
        l = p->dmax;
    return p->y0 + p->h - (l - p->dmin) / (p->dmax - p->dmin) * p->h;
}

static int write_plot(const lab_options *o, const lab_series *ser, int nser)
{
    const double W = 820, H = 540;
    lab_frame p;
    cli_out out;
    FILE *f;
    double lo = HUGE_VAL, hi = 0, xs[LAB_MAX_K], ys[LAB_MAX_K];
    int s, ki, d, zeros = 0;
    char buf[256];

    for (s = 0; s < nser; s++)
        for (ki = 0; ki < o->nk; ki++) {
            const double v[2] = {ser[s].max_err[ki], ser[s].med_err[ki]};
            for (d = 0; d < 2; d++) {
                if (!ser[s].used[ki])
                    continue;
                if (v[d] > 0 && v[d] < lo)
                    lo = v[d];
                if (v[d] > hi && v[d] < HUGE_VAL)
                    hi = v[d];
                zeros += v[d] == 0;
            }
        }
    if (!(hi > 0)) { /* nothing but exact results: any decade will do */
        lo = 1e-8;
        hi = 1e-7;
    }
    p.x0 = 90, p.y0 = 70, p.w = 500, p.h = 380;
    p.dmin = (int)floor(log10(lo));
    p.dmax = (int)ceil(log10(hi));
    if (p.dmax <= p.dmin)
        p.dmax = p.dmin + 1;
    p.xmin = floor(log2((double)o->k[0]));
    p.xmax = ceil(log2((double)o->k[o->nk - 1]));
    if (p.xmax <= p.xmin) {
        p.xmin -= 1;
        p.xmax += 1;
    }

    if (cli_out_open(&out, o->plot) != 0) /* written whole or not at all */
        return -1;
    f = out.f;
    cli_svg_begin(f, W, H);
    snprintf(buf, sizeof buf, "mf_gemm accumulation error vs K: %s x %s, %s inputs%s", mf_format_name(o->fmt[0]),
             mf_format_name(o->fmt[1]), dist_name(o->dist),
             scaled(o->fmt[0]) || scaled(o->fmt[1]) ? " (per-tensor scale)" : "");
    cli_svg_text(f, W / 2, 28, buf, 16, "middle", 0, "#000000");
    snprintf(buf, sizeof buf, "f32 C, %llu x %llu outputs per K, seed %llu; reference MF_ACCUM_EXACT",
             (unsigned long long)o->m, (unsigned long long)o->n, (unsigned long long)o->seed);
    cli_svg_text(f, W / 2, 50, buf, 12, "middle", 0, "#333333");

    cli_svg_rect(f, p.x0, p.y0, p.w, p.h, "#f7f7f7", 1.0);
    for (d = p.dmin; d <= p.dmax; d++) { /* decades, with 2 and 5 between them */
        static const int sub[] = {1, 2, 5};
        int q;
        for (q = 0; q < 3; q++) {
            const double v = sub[q] * pow(10, d);
            if (d == p.dmax && q > 0)
                break;
            cli_svg_line(f, p.x0, fy(&p, v), p.x0 + p.w, fy(&p, v), q == 0 ? "#cfcfcf" : "#e8e8e8", 0.8, 0);
            if (q == 0) {
                snprintf(buf, sizeof buf, "1e%d", d);
                cli_svg_text(f, p.x0 - 8, fy(&p, v) + 4, buf, 12, "end", 0, "#333333");
            }
        }
    }
    for (d = (int)p.xmin; d <= (int)p.xmax; d++) { /* powers of two */
        const double x = p.x0 + (d - p.xmin) / (p.xmax - p.xmin) * p.w;
        cli_svg_line(f, x, p.y0, x, p.y0 + p.h, "#dddddd", 0.8, 0);
        cli_svg_line(f, x, p.y0 + p.h, x, p.y0 + p.h + 5, "#333333", 1, 0);
        snprintf(buf, sizeof buf, "%.0f", ldexp(1.0, d));
        cli_svg_text(f, x, p.y0 + p.h + 19, buf, 11, "middle", 0, "#333333");
    }
    cli_svg_line(f, p.x0, p.y0 + p.h, p.x0 + p.w, p.y0 + p.h, "#333333", 1.2, 0);
    cli_svg_line(f, p.x0, p.y0, p.x0, p.y0 + p.h, "#333333", 1.2, 0);
    cli_svg_text(f, p.x0 + p.w / 2, p.y0 + p.h + 40, "K (products per output, log2 scale)", 13, "middle", 0, "#111111");
    cli_svg_text(f, p.x0 - 56, p.y0 + p.h / 2, "relative error |C - C_exact| / |C_exact| (log scale)", 13, "middle",
                 -90, "#111111");

    /* each series: max solid with square markers, median dashed */
    for (s = 0; s < nser; s++) {
        const char *col = lab_colors[s % (int)(sizeof lab_colors / sizeof lab_colors[0])];
        int pass, np;
        for (pass = 0; pass < 2; pass++) {
            np = 0;
            for (ki = 0; ki < o->nk; ki++) {
                if (!ser[s].used[ki])
                    continue;
                xs[np] = fx(&p, o->k[ki]);
                ys[np] = fy(&p, pass ? ser[s].med_err[ki] : ser[s].max_err[ki]);
                np++;
            }
            cli_svg_polyline(f, xs, ys, np, col, pass ? 1.5 : 2.2, pass ? "6 4" : NULL);
            if (!pass)
                for (ki = 0; ki < np; ki++)
                    cli_svg_rect(f, xs[ki] - 3, ys[ki] - 3, 6, 6, col, 1.0);
        }
    }

    /* legend, right of the plot */
    {
        const double lx = p.x0 + p.w + 20;
        double ly = p.y0 + 10, lxs[2], lys[2];
        for (s = 0; s < nser; s++, ly += 22) {
            const char *col = lab_colors[s % (int)(sizeof lab_colors / sizeof lab_colors[0])];
            lxs[0] = lx, lxs[1] = lx + 30, lys[0] = lys[1] = ly - 4;
            cli_svg_polyline(f, lxs, lys, 2, col, 2.2, NULL);
            series_label(buf, sizeof buf, &ser[s]);
            cli_svg_text(f, lx + 38, ly, buf, 13, "start", 0, "#111111");
        }
        ly += 14;
        lxs[0] = lx, lxs[1] = lx + 30, lys[0] = lys[1] = ly - 4;
        cli_svg_polyline(f, lxs, lys, 2, "#555555", 2.2, NULL);
        cli_svg_text(f, lx + 38, ly, "max over outputs", 12, "start", 0, "#333333");
        ly += 20;
        lys[0] = lys[1] = ly - 4;
        cli_svg_polyline(f, lxs, lys, 2, "#555555", 1.5, "6 4");
        cli_svg_text(f, lx + 38, ly, "median", 12, "start", 0, "#333333");
        if (zeros)
            cli_svg_text(f, lx, ly + 24, "(0 drawn on the bottom edge)", 11, "start", 0, "#555555");
    }
    cli_svg_end(f);
    return cli_out_commit(&out);
}

/* ---- the command -------------------------------------------------------------------------------- */

int cli_gemm_lab_main(int argc, char **argv)
{
    lab_options o;
    lab_series ser[LAB_MAX_SERIES];
    int nser = 0, i, ki, s, rc, status = 0;
    size_t kmax, ea, eb, mn;
    void *a = NULL, *b = NULL;
    double *ad = NULL, *bd = NULL, *sa = NULL, *rel = NULL;
    float *c = NULL, *exact = NULL;

    for (i = 2; i < argc; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(lab_usage, stdout);
            return 0;
        }
    if ((rc = parse_options(argc, argv, &o)) != 0)
        return rc;

    /* the series: each model, then (tensor-core models only) promoted */
    for (i = 0; i < o.nmodels; i++) {
        memset(&ser[nser], 0, sizeof ser[nser]);
        ser[nser++].model = o.models[i];
        if (o.promote && lab_models[o.models[i]].accum >= MF_ACCUM_V100) {
            memset(&ser[nser], 0, sizeof ser[nser]);
            ser[nser].model = o.models[i];
            ser[nser++].promote = o.promote;
        }
    }

    if ((rc = preflight(&o, ser, nser)) != 0)
        return rc;
    kmax = o.k[o.nk - 1];
    ea = o.m * kmax;
    eb = kmax * o.n;
    mn = o.m * o.n;
    a = malloc(mf_storage_bytes(o.fmt[0], ea));
    b = malloc(mf_storage_bytes(o.fmt[1], eb));
    ad = malloc(ea * sizeof *ad);
    bd = malloc(eb * sizeof *bd);
    sa = malloc(mn * sizeof *sa);
    rel = malloc(mn * sizeof *rel);
    c = malloc(mn * sizeof *c);
    exact = malloc(mn * sizeof *exact);
    if (!a || !b || !ad || !bd || !sa || !rel || !c || !exact) {
        status = cli_data_error(&voice, "out of memory (K up to %llu, %llu x %llu outputs)", (unsigned long long)kmax,
                                (unsigned long long)o.m, (unsigned long long)o.n);
        goto done;
    }

    if (o.csv)
        printf("k,model,promote,max_rel_err,median_rel_err,max_err_over_sum_abs,outputs\n");
    else
        print_header(&o);
    for (ki = 0; ki < o.nk; ki++) {
        const size_t k = o.k[ki];
        if ((rc = make_tensor(a, o.fmt[0], ad, o.m * k, &o, 0, k)) != MF_OK ||
            (rc = make_tensor(b, o.fmt[1], bd, k * o.n, &o, 1, k)) != MF_OK) {
            status = cli_data_error(&voice, "mf_convert (inputs, K = %llu): %s", (unsigned long long)k,
                                    mf_strerror(rc));
            goto done;
        }
        sum_abs(sa, ad, bd, o.m, o.n, k);
        if ((rc = run_gemm(&o, k, MF_ACCUM_EXACT, 0, a, b, exact)) != MF_OK) {
            status = cli_data_error(&voice, "mf_gemm (exact, %s x %s, K = %llu): %s", mf_format_name(o.fmt[0]),
                                    mf_format_name(o.fmt[1]), (unsigned long long)k, mf_strerror(rc));
            goto done;
        }
        for (s = 0; s < nser; s++) {
            lab_series *S = &ser[s];
            if ((rc = run_gemm(&o, k, lab_models[S->model].accum, S->promote, a, b, c)) != MF_OK) {
                char label[64];
                series_label(label, sizeof label, S);
                status = cli_data_error(&voice, "mf_gemm (%s, %s x %s, K = %llu): %s", label, mf_format_name(o.fmt[0]),
                                        mf_format_name(o.fmt[1]), (unsigned long long)k, mf_strerror(rc));
                goto done;
            }
            S->used[ki] = rel_errors(c, exact, sa, mn, rel, S, ki);
            print_row(&o, k, S, ki);
        }
        fflush(stdout); /* a row per K as it is done: the large K take seconds */
    }
    if (o.plot) {
        if (write_plot(&o, ser, nser) != 0) {
            status = cli_data_error(&voice, "--plot %s: cannot write: %s", o.plot, strerror(errno));
            goto done;
        }
        fprintf(stderr, "minifloat gemm-lab: wrote %s\n", o.plot);
    }

done:
    free(a);
    free(b);
    free(ad);
    free(bd);
    free(sa);
    free(rel);
    free(c);
    free(exact);
    return status;
}
