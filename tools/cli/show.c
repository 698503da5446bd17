/* SPDX-License-Identifier: MIT */
/* tools/cli/show.c - `minifloat show X`: X rounded into every format. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <minifloat.h>

#include "cli_util.h"
#include "commands.h"

/* "0|1000|100": sign | exponent | mantissa, e8m0 just its exponent. */
static void format_fields(char *buf, const mf_format_desc *d, uint64_t code)
{
    int i, k = 0;
    if (d->is_signed) {
        buf[k++] = (char)('0' + (int)((code >> (d->bits - 1)) & 1u));
        buf[k++] = '|';
    }
    for (i = d->exp_bits + d->man_bits - 1; i >= 0; i--) {
        buf[k++] = (char)('0' + (int)((code >> i) & 1u));
        if (i == d->man_bits && d->man_bits > 0)
            buf[k++] = '|';
    }
    buf[k] = '\0';
}

/* A word that starts like a number ("-1.5", "-inf", ".5") rather than an option. */
static int looks_numeric(const char *s)
{
    double v;
    return cli_parse_double(s, &v);
}

static void format_events(char *buf, size_t size, unsigned ev, int sign_dropped)
{
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = {{MF_EVENT_OVERFLOW, "overflow"},   {MF_EVENT_UNDERFLOW, "underflow"},
                 {MF_EVENT_SUBNORMAL, "subnormal"}, {MF_EVENT_NAN, "nan"},
                 {MF_EVENT_INEXACT, "inexact"}};
    size_t i, k = 0;
    buf[0] = '\0';
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if (ev & names[i].bit)
            k += (size_t)snprintf(buf + k, size - k, "%s%s", k ? "," : "", names[i].name);
    if (sign_dropped)
        k += (size_t)snprintf(buf + k, size - k, "%s%s", k ? "," : "", "|x|");
    if (k == 0)
        snprintf(buf, size, "exact");
}

int cli_show_main(int argc, char **argv)
{
    mf_round mode = MF_ROUND_NEAREST_EVEN;
    mf_overflow ovf = MF_OVERFLOW_IEEE;
    uint64_t rbits = 0;
    const char *xs = NULL, *val;
    double x;
    int i, r, k, no_more_opts = 0;
    const int col = cli_format_col();

    for (i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!no_more_opts && a[0] == '-' && a[1] != '\0' && !looks_numeric(a)) {
            if (strcmp(a, "--") == 0) {
                no_more_opts = 1;
                continue;
            }
            if (strcmp(a, "--sat") == 0 || strcmp(a, "--saturate") == 0) {
                ovf = MF_OVERFLOW_SATURATE;
                continue;
            }
            if ((r = cli_opt_value(argc, argv, &i, "--round", "-r", &val)) != 0) {
                if (r < 0)
                    return cli_usage_error(&cli_tool, "show: option '%s' needs a rounding mode", a);
                if (mf_round_from_name(val, &mode) != MF_OK)
                    return cli_usage_error(&cli_tool, "show: unknown rounding mode '%s' (rn rna rz ru rd ro sr)", val);
                continue;
            }
            if ((r = cli_opt_value(argc, argv, &i, "--rbits", NULL, &val)) != 0) {
                if (r < 0)
                    return cli_usage_error(&cli_tool, "show: option '%s' needs a number", a);
                if (!cli_parse_uint(val, 0xFFFFFFFFu, &rbits))
                    return cli_usage_error(&cli_tool, "show: --rbits '%s' is not a 32-bit unsigned number", val);
                continue;
            }
            return cli_usage_error(&cli_tool, "show: unknown option '%s'", a);
        }
        if (xs)
            return cli_usage_error(&cli_tool, "show: more than one number ('%s' and '%s')", xs, a);
        xs = a;
    }
    if (!xs)
        return cli_usage_error(&cli_tool, "show: a number is required (e.g. minifloat show 3.14159)");
    if (!cli_parse_double(xs, &x))
        return cli_usage_error(&cli_tool, "show: '%s' is not a number", xs);

    {
        char v[64], h[64];
        cli_format_value(v, sizeof v, x, 17);
        cli_format_hexfloat(h, sizeof h, x);
        printf("x = %s   (f64 %s%s%s)\n", xs, v, strcmp(h, "-") ? " = " : "", strcmp(h, "-") ? h : "");
        if (mode == MF_ROUND_STOCHASTIC)
            printf("rounding %s (rbits 0x%08lx), overflow %s\n\n", mf_round_name(mode), (unsigned long)rbits,
                   ovf == MF_OVERFLOW_SATURATE ? "saturate" : "ieee");
        else
            printf("rounding %s, overflow %s\n\n", mf_round_name(mode),
                   ovf == MF_OVERFLOW_SATURATE ? "saturate" : "ieee");
    }
    printf("%-*s  %-10s  %-34s  %-23s  %-10s  %s\n", col, "format", "code", "sign|exponent|mantissa",
           "value", x == 0 ? "abs. error" : "rel. error", "events");
    for (k = 0; k < CLI_N_FORMATS; k++) {
        mf_format f = cli_format_at(k);
        mf_format_desc d = cli_describe(f);
        unsigned ev = 0;
        uint32_t code = mf_from_f64_ev(f, x, mode, ovf, (uint32_t)rbits, &ev);
        double y = mf_to_f64(f, code);
        double ref = (!d.is_signed && x < 0) ? -x : x; /* e8m0 stores |x| */
        char cs[40], fields[80], vs[64], es[40], evs[96];

        cli_format_code(cs, sizeof cs, &d, code);
        format_fields(fields, &d, code);
        cli_format_value(vs, sizeof vs, y, 17);
        if (x != x || y != y)
            snprintf(es, sizeof es, "-");
        else if (y == ref)
            snprintf(es, sizeof es, "0");
        else if (ref == HUGE_VAL || ref == -HUGE_VAL)
            snprintf(es, sizeof es, "-");
        else if (ref == 0)
            snprintf(es, sizeof es, "%.3e", fabs(y));
        else if (y == HUGE_VAL || y == -HUGE_VAL)
            snprintf(es, sizeof es, "inf");
        else
            snprintf(es, sizeof es, "%.3e", fabs(y - ref) / fabs(ref));
        format_events(evs, sizeof evs, ev, !d.is_signed && x < 0);
        printf("%-*s  %-10s  %-34s  %-23s  %-10s  %s\n", col, d.name, cs, fields, vs, es, evs);
    }
    return 0;
}
