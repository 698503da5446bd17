/* SPDX-License-Identifier: MIT */
/* tools/cli/cli_util.c - see cli_util.h. */
#define _POSIX_C_SOURCE 200809L /* getpid */
#include "cli_util.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- messages ----------------------------------------------------------------------------------- */

const cli_voice cli_tool = {"minifloat: ", "minifloat"};

static void vmessage(const cli_voice *v, const char *fmt, va_list ap)
{
    fputs(v->prefix, stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int cli_usage_error(const cli_voice *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(v, fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try '%s --help' for more information.\n", v->help);
    return CLI_EXIT_USAGE;
}

int cli_data_error(const cli_voice *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(v, fmt, ap);
    va_end(ap);
    return CLI_EXIT_DATA;
}

/* ---- options and numbers ------------------------------------------------------------------------ */

int cli_opt_value(int argc, char **argv, int *i, const char *lng, const char *shrt, const char **val)
{
    const char *a = argv[*i];
    size_t n = strlen(lng);
    if (strncmp(a, lng, n) == 0 && a[n] == '=') {
        *val = a + n + 1;
        return 1;
    }
    if (strcmp(a, lng) == 0 || (shrt && strcmp(a, shrt) == 0)) {
        if (*i + 1 >= argc)
            return -1;
        *val = argv[++*i];
        return 1;
    }
    return 0;
}

int cli_is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

int cli_parse_double(const char *s, double *out)
{
    char *end;
    double v;
    while (cli_is_space(*s))
        s++;
    if (*s == '\0')
        return 0;
    v = strtod(s, &end);
    if (end == s)
        return 0;
    while (cli_is_space(*end))
        end++;
    if (*end != '\0')
        return 0;
    *out = v;
    return 1;
}

int cli_parse_float(const char *s, float *out)
{
    double v;
    errno = 0;
    if (!cli_parse_double(s, &v) || errno || v != v || v > FLT_MAX || v < -FLT_MAX)
        return 0;
    *out = (float)v;
    return 1;
}

int cli_parse_uint(const char *s, uint64_t max, uint64_t *out)
{
    char *end;
    unsigned long long v;
    if (*s < '0' || *s > '9')
        return 0;
    errno = 0;
    v = strtoull(s, &end, 0);
    if (errno || *end != '\0' || v > max)
        return 0;
    *out = (uint64_t)v;
    return 1;
}

int cli_parse_int(const char *s, long lo, long hi, int *out)
{
    char *end;
    long v;
    if (*s == '\0')
        return 0;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || *end != '\0' || v < lo || v > hi)
        return 0;
    *out = (int)v;
    return 1;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int cli_parse_hex_code(const char *s, int bits, uint64_t *out)
{
    uint64_t v = 0;
    int ndig = 0;
    while (cli_is_space(*s))
        s++;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        s += 2;
    for (; hex_digit(*s) >= 0; s++) {
        if (v >> 60)
            return 0;
        v = v << 4 | (uint64_t)hex_digit(*s);
        ndig++;
    }
    while (cli_is_space(*s))
        s++;
    if (ndig == 0 || *s != '\0')
        return 0;
    if (bits < 64 && (v >> bits) != 0)
        return 0;
    *out = v;
    return 1;
}

static char lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

int cli_name_eq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (lower(*a) != lower(*b))
            return 0;
    return *a == *b;
}

int cli_parse_list(const cli_voice *v, const char *opt, const char *noun, const char *list, cli_lookup lookup,
                   const char *known, int *items, int max, int *n)
{
    const char *p = list;
    *n = 0;
    for (;;) {
        char name[32];
        const size_t len = strcspn(p, ",");
        int item, j;
        if (len == 0 || len >= sizeof name)
            return cli_usage_error(v, "%s: '%s' is not a comma-separated list of %ss (%s)", opt, list, noun, known);
        memcpy(name, p, len);
        name[len] = '\0';
        if (!lookup(name, &item))
            return cli_usage_error(v, "%s: unknown %s '%s' (%s)", opt, noun, name, known);
        for (j = 0; j < *n; j++)
            if (items[j] == item)
                return cli_usage_error(v, "%s: '%s' given twice (names differing in case, or aliases, are one %s)", opt,
                                       name, noun);
        if (*n == max)
            return cli_usage_error(v, "%s: at most %d %ss", opt, max, noun);
        items[(*n)++] = item;
        if (p[len] == '\0')
            return 0;
        p += len + 1;
    }
}

/* ---- compatibility profiles --------------------------------------------------------------------- */

const char *cli_profile_names(void)
{
    static char names[128];
    if (!names[0]) {
        size_t k = 0;
        int p;
        for (p = 0; p < MF_PROFILE_COUNT && k < sizeof names; p++)
            k += (size_t)snprintf(names + k, sizeof names - k, "%s%s", p ? " " : "", mf_profile_name((mf_profile)p));
    }
    return names;
}

int cli_parse_profile(const cli_voice *v, const char *cmd, const char *name, mf_profile *out)
{
    if (mf_profile_from_name(name, out) != MF_OK)
        return cli_usage_error(v, "%s: unknown profile '%s' (%s)", cmd, name, cli_profile_names());
    return 0;
}

/* Whether system p has format f at all (in some rounding mode). */
static int profile_has(mf_profile p, mf_format f)
{
    int r;
    for (r = 0; r < MF_ROUND_COUNT; r++)
        if (mf_profile_supports(p, f, (mf_round)r))
            return 1;
    return 0;
}

int cli_convert_error(const cli_voice *v, const char *cmd, int rc, mf_format src, mf_format dst, const mf_opts *o)
{
    const char *pn = mf_profile_name(o->profile);
    if (rc == MF_E_PROFILE && pn && (!profile_has(o->profile, src) || !profile_has(o->profile, dst)))
        return cli_data_error(v, "%s: profile %s has no %s (docs/compat.md lists its formats and modes): %s", cmd, pn,
                              mf_format_name(profile_has(o->profile, src) ? dst : src), mf_strerror(rc));
    if (rc == MF_E_PROFILE && pn)
        return cli_data_error(v,
                              "%s: profile %s does not round %s -> %s in %s (docs/compat.md lists its formats and "
                              "modes): %s",
                              cmd, pn, mf_format_name(src), mf_format_name(dst), mf_round_name(o->round),
                              mf_strerror(rc));
    return cli_data_error(v, "%s: %s", cmd, mf_strerror(rc));
}

/* ---- output files ------------------------------------------------------------------------------- */

int cli_out_open(cli_out *o, const char *path)
{
    const size_t len = strlen(path) + 32;
    o->path = path;
    o->f = NULL;
    o->tmp = (char *)malloc(len);
    if (!o->tmp) {
        errno = ENOMEM;
        return -1;
    }
    snprintf(o->tmp, len, "%s.part-%lu", path, (unsigned long)getpid());
    o->f = fopen(o->tmp, "w");
    if (!o->f) {
        const int e = errno;
        free(o->tmp);
        o->tmp = NULL;
        errno = e;
        return -1;
    }
    return 0;
}

int cli_out_commit(cli_out *o)
{
    int bad = o->f && ferror(o->f) != 0, e = bad ? (errno ? errno : EIO) : 0;
    if (o->f && fclose(o->f) != 0 && !bad)
        bad = 1, e = errno;
    o->f = NULL;
    if (!bad && rename(o->tmp, o->path) != 0)
        bad = 1, e = errno;
    if (bad)
        remove(o->tmp);
    free(o->tmp);
    o->tmp = NULL;
    errno = e;
    return bad ? -1 : 0;
}

void cli_out_abort(cli_out *o)
{
    const int e = errno;
    if (o->f)
        fclose(o->f);
    if (o->tmp)
        remove(o->tmp);
    free(o->tmp);
    o->f = NULL;
    o->tmp = NULL;
    errno = e;
}

/* ---- formats ------------------------------------------------------------------------------------ */

mf_format cli_format_at(int k) { return (mf_format)(k < (int)MF_FP64 ? k : k + 1); } /* f64 is row 9 for good */

int cli_format_col(void)
{
    int f, w = 0;
    for (f = 0; f < MF_FORMAT_COUNT; f++) {
        const int len = (int)strlen(mf_format_name((mf_format)f));
        w = len > w ? len : w;
    }
    return w;
}

static int listed(int (*keep)(mf_format), int f) { return keep ? keep((mf_format)f) != 0 : f != (int)MF_FP64; }

const char *cli_format_tags(char *buf, size_t size, int (*keep)(mf_format), const char *sep, const char *last)
{
    int f, n = 0, total = 0;
    size_t k = 0;
    for (f = 0; f < MF_FORMAT_COUNT; f++)
        total += listed(keep, f);
    if (size)
        buf[0] = '\0';
    for (f = 0; f < MF_FORMAT_COUNT && k < size; f++)
        if (listed(keep, f)) {
            const int w = snprintf(buf + k, size - k, "%s%s", n == 0 ? "" : n == total - 1 ? last : sep,
                                   mf_format_name((mf_format)f));
            n++;
            k = w < 0 ? size : k + (size_t)w;
        }
    return buf;
}

mf_format_desc cli_describe(mf_format f)
{
    mf_format_desc d;
    memset(&d, 0, sizeof d);
    mf_format_describe(f, &d);
    return d;
}

int cli_hex_digits(int bits) { return bits <= 4 ? 1 : bits >= 64 ? 16 : (bits + 3) / 4; }

void cli_format_value(char *buf, size_t size, double v, int digits)
{
    if (v != v)
        snprintf(buf, size, "%snan", signbit(v) ? "-" : "");
    else if (v == HUGE_VAL || v == -HUGE_VAL)
        snprintf(buf, size, "%sinf", v < 0 ? "-" : "");
    else
        snprintf(buf, size, "%.*g", digits, v);
}

void cli_format_hexfloat(char *buf, size_t size, double v)
{
    if (v != v || v == HUGE_VAL || v == -HUGE_VAL)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%a", v);
}

void cli_format_code(char *buf, size_t size, const mf_format_desc *d, uint64_t code)
{
    snprintf(buf, size, "0x%0*llx", cli_hex_digits(d->bits), (unsigned long long)code);
}

int cli_parse_svg_path(const cli_voice *v, const char *opt, int r, const char *val, const char **out)
{
    size_t len;
    if (r < 0)
        return cli_usage_error(v, "option '%s' needs a value", opt);
    len = strlen(val);
    if (len < 5 || !cli_name_eq(val + len - 4, ".svg"))
        return cli_usage_error(v, "%s: the file name must end in .svg ('%s')", opt, val);
    *out = val;
    return 0;
}
