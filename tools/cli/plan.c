/* SPDX-License-Identifier: MIT */
/* tools/cli/plan.c - `minifloat plan SRC DST`: which code one mf_convert call runs (mf_convert_plan); and
 * `minifloat plan --gemm A B`: which kernel, tile and blocking mf_gemm takes (mf_gemm_plan). */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <minifloat.h>

#include "cli_util.h"
#include "commands.h"

/* The elements a call has unless -n says otherwise. */
#define CLI_PLAN_DEFAULT_N 4096u

/* "16 (bounced, path blocked)" for a head or tail of k elements; "0" when there is none. */
static void format_end(char *buf, size_t size, size_t k, const char *ends_path)
{
    if (k && ends_path)
        snprintf(buf, size, "%llu (bounced, path %s)", (unsigned long long)k, ends_path);
    else
        snprintf(buf, size, "%llu", (unsigned long long)k);
}

/* `minifloat plan --gemm A B [--accum MODEL] [--scale-a KIND] [--scale-b KIND]` */
static int plan_gemm(int argc, char **argv)
{
    static const struct {
        const char *name;
        int value;
    } accums[] = {{"fp32", MF_ACCUM_FP32}, {"exact", MF_ACCUM_EXACT}, {"v100", MF_ACCUM_V100}, {"a100", MF_ACCUM_A100},
                  {"ada", MF_ACCUM_ADA},   {"h100", MF_ACCUM_H100},   {"b200", MF_ACCUM_B200}},
      scales[] = {{"none", MF_GEMM_SCALE_NONE},
                  {"tensor", MF_GEMM_SCALE_TENSOR},
                  {"vector", MF_GEMM_SCALE_VECTOR},
                  {"1x128", MF_GEMM_SCALE_BLOCK_1X128},
                  {"128x128", MF_GEMM_SCALE_BLOCK_128X128},
                  {"128x1", MF_GEMM_SCALE_BLOCK_128X1},
                  {"mx", MF_GEMM_SCALE_MX},
                  {"nvfp4", MF_GEMM_SCALE_NVFP4}};
    const char *names[2] = {NULL, NULL}, *val, *accum_name = "fp32";
    mf_format fmt[2];
    mf_gemm_opts o;
    mf_gemm_plan_info p;
    int i, r, npos = 0, rc;
    memset(&o, 0, sizeof o);
    for (i = 2; i < argc; i++) {
        const char *a = argv[i];
        size_t q;
        if (strcmp(a, "--gemm") == 0) {
            continue;
        } else if ((r = cli_opt_value(argc, argv, &i, "--accum", NULL, &val)) != 0) {
            for (q = 0; r > 0 && q < sizeof accums / sizeof accums[0] && strcmp(val, accums[q].name); q++)
                ;
            if (r < 0 || q == sizeof accums / sizeof accums[0])
                return cli_usage_error(&cli_tool, "plan --gemm: --accum needs fp32 exact v100 a100 ada h100 b200");
            o.accum = (mf_accum)accums[q].value, accum_name = accums[q].name;
        } else if ((r = cli_opt_value(argc, argv, &i, "--scale-a", NULL, &val)) != 0 ||
                   (r = cli_opt_value(argc, argv, &i, "--scale-b", NULL, &val)) != 0) {
            mf_gemm_scale *sc = strcmp(a, "--scale-a") == 0 ? &o.scale_a : &o.scale_b;
            for (q = 0; r > 0 && q < sizeof scales / sizeof scales[0] && strcmp(val, scales[q].name); q++)
                ;
            if (r < 0 || q == sizeof scales / sizeof scales[0])
                return cli_usage_error(&cli_tool,
                                       "plan --gemm: %s needs none tensor vector 1x128 128x128 128x1 mx nvfp4", a);
            sc->kind = (mf_gemm_scale_kind)scales[q].value;
        } else if (a[0] == '-' && a[1] != '\0') {
            return cli_usage_error(&cli_tool, "plan --gemm: unknown option '%s'", a);
        } else if (npos < 2) {
            names[npos++] = a;
        } else {
            return cli_usage_error(&cli_tool, "plan --gemm: unexpected argument '%s' (A and B are given)", a);
        }
    }
    if (npos < 2)
        return cli_usage_error(&cli_tool,
                               "plan --gemm: the formats of A and B are required (e.g. plan --gemm bf16 e4m3)");
    for (i = 0; i < 2; i++)
        if (mf_format_from_name(names[i], &fmt[i]) != MF_OK)
            return cli_usage_error(&cli_tool, "plan --gemm: unknown format '%s'", names[i]);
    if ((rc = mf_gemm_plan(fmt[0], fmt[1], &o, &p)) != MF_OK)
        return cli_usage_error(
            &cli_tool, "plan --gemm: %s x %s under %s: %s", mf_format_name(fmt[0]), mf_format_name(fmt[1]), accum_name,
            rc != MF_E_FORMAT          ? mf_strerror(rc)
            : o.accum >= MF_ACCUM_V100 ? "not a pair this GPU's tensor cores multiply"
                                       : "mf_gemm's inputs are f32 f16 bf16 e4m3 e5m2 e2m3 e3m2 e2m1");
    printf("gemm %s x %s, accum %s (mf_backend: %s)\n", mf_format_name(fmt[0]), mf_format_name(fmt[1]), accum_name,
           mf_backend());
    printf("kernel    %s\n", p.kernel);
    printf("isa       %s\n", p.isa ? p.isa : "-");
    if (p.mr)
        printf("tile      %d x %d\nblocks    mc %llu kc %llu nc %llu\n", p.mr, p.nr, (unsigned long long)p.mc,
               (unsigned long long)p.kc, (unsigned long long)p.nc);
    if (fflush(stdout) != 0 || ferror(stdout))
        return cli_data_error(&cli_tool, "plan: write error: %s", strerror(errno));
    return 0;
}

int cli_plan_main(int argc, char **argv)
{
    const char *names[2] = {NULL, NULL}, *val;
    mf_format fmt[2];
    mf_opts opts;
    mf_stats st;
    mf_plan p;
    uint64_t n = CLI_PLAN_DEFAULT_N, mis_src = 0, mis_dst = 0;
    int i, r, npos = 0, stats = 0, threads = 0, rc;
    char end[80];

    for (i = 2; i < argc; i++)
        if (strcmp(argv[i], "--gemm") == 0)
            return plan_gemm(argc, argv);
    memset(&opts, 0, sizeof opts);
    opts.round = MF_ROUND_NEAREST_EVEN;
    opts.overflow = MF_OVERFLOW_IEEE;

    for (i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--sat") == 0 || strcmp(a, "--saturate") == 0) {
            opts.overflow = MF_OVERFLOW_SATURATE;
        } else if (strcmp(a, "--stats") == 0) {
            stats = 1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--round", "-r", &val)) != 0) {
            if (r < 0)
                return cli_usage_error(&cli_tool, "plan: option '%s' needs a rounding mode", a);
            if (mf_round_from_name(val, &opts.round) != MF_OK)
                return cli_usage_error(&cli_tool, "plan: unknown rounding mode '%s' (rn rna rz ru rd ro sr)", val);
        } else if ((r = cli_opt_value(argc, argv, &i, "--profile", NULL, &val)) != 0) {
            if (r < 0)
                return cli_usage_error(&cli_tool, "plan: option '%s' needs a profile (%s)", a, cli_profile_names());
            if ((rc = cli_parse_profile(&cli_tool, "plan", val, &opts.profile)) != 0)
                return rc;
        } else if ((r = cli_opt_value(argc, argv, &i, "--count", "-n", &val)) != 0) {
            if (r < 0 || !cli_parse_uint(val, SIZE_MAX, &n))
                return cli_usage_error(&cli_tool, "plan: -n needs an unsigned number (elements of the call)");
        } else if ((r = cli_opt_value(argc, argv, &i, "--threads", NULL, &val)) != 0) {
            if (r < 0 || !cli_parse_int(val, 0, INT_MAX, &threads))
                return cli_usage_error(&cli_tool, "plan: --threads needs a number from 0 to %d", INT_MAX);
        } else if ((r = cli_opt_value(argc, argv, &i, "--sr-offset", NULL, &val)) != 0) {
            if (r < 0 || !cli_parse_uint(val, UINT64_MAX, &opts.sr_offset))
                return cli_usage_error(&cli_tool, "plan: --sr-offset needs an unsigned 64-bit number");
        } else if ((r = cli_opt_value(argc, argv, &i, "--misalign-src", NULL, &val)) != 0) {
            if (r < 0 || !cli_parse_uint(val, 63, &mis_src))
                return cli_usage_error(&cli_tool, "plan: --misalign-src needs a number of bytes from 0 to 63");
        } else if ((r = cli_opt_value(argc, argv, &i, "--misalign-dst", NULL, &val)) != 0) {
            if (r < 0 || !cli_parse_uint(val, 63, &mis_dst))
                return cli_usage_error(&cli_tool, "plan: --misalign-dst needs a number of bytes from 0 to 63");
        } else if (a[0] == '-' && a[1] != '\0') {
            return cli_usage_error(&cli_tool, "plan: unknown option '%s'", a);
        } else if (npos < 2) {
            names[npos++] = a;
        } else {
            return cli_usage_error(&cli_tool, "plan: unexpected argument '%s' (SRC and DST are given)", a);
        }
    }
    if (npos < 2)
        return cli_usage_error(&cli_tool, "plan: SRC and DST formats are required (e.g. minifloat plan f32 e4m3)");
    for (i = 0; i < 2; i++)
        if (mf_format_from_name(names[i], &fmt[i]) != MF_OK)
            return cli_usage_error(&cli_tool, "plan: unknown format '%s'", names[i]);
    opts.threads = threads;
    opts.stats = stats ? &st : NULL; /* only whether it is NULL matters: nothing is converted */

    /* Fake arrays 64 + B bytes into the address space: mf_convert_plan reads only their alignment. */
    rc = mf_convert_plan(fmt[1], (const void *)(uintptr_t)(64u + mis_dst), fmt[0],
                         (const void *)(uintptr_t)(64u + mis_src), (size_t)n, &opts, &p);
    if (rc != MF_OK)
        return cli_convert_error(&cli_tool, "plan", rc, fmt[0], fmt[1], &opts);

    printf("%s -> %s, %s, %s, n = %llu", mf_format_name(fmt[0]), mf_format_name(fmt[1]), mf_round_name(opts.round),
           opts.overflow == MF_OVERFLOW_SATURATE ? "saturate" : "ieee", (unsigned long long)n);
    if (stats)
        printf(", stats");
    if (opts.sr_offset)
        printf(", sr offset %llu", (unsigned long long)opts.sr_offset);
    if (threads)
        printf(", threads %d", threads);
    if (mis_src)
        printf(", src +%u", (unsigned)mis_src);
    if (mis_dst)
        printf(", dst +%u", (unsigned)mis_dst);
    if (opts.profile != MF_PROFILE_DEFAULT)
        printf(", profile %s", mf_profile_name(opts.profile));
    printf(" (mf_backend: %s)\n", mf_backend());

    printf("backend   %s\n", p.backend ? p.backend : "-");
    printf("path      %s\n", p.path);
    format_end(end, sizeof end, p.head, p.ends_path);
    printf("head      %s\n", end);
    printf("body      %llu\n", (unsigned long long)p.body);
    format_end(end, sizeof end, p.tail, p.ends_path);
    printf("tail      %s\n", end);
    printf("streams   %s\n", p.streams ? "yes" : "no");
    if (p.threads > 1)
        printf("threads   %d (pieces of %llu elements; head, body and tail above are the first's)\n", p.threads,
               (unsigned long long)(p.head + p.body + p.tail));
    else
        printf("threads   %d\n", p.threads);
    if (fflush(stdout) != 0 || ferror(stdout))
        return cli_data_error(&cli_tool, "plan: write error: %s", strerror(errno));
    return 0;
}
