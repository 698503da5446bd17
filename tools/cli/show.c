/* SPDX-License-Identifier: MIT */
/* tools/cli/show.c - `minifloat show X`: X rounded into every format. */
#include <float.h>
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

/* Whether the text s, which strtod read as x, lies beyond binary64: +1 a finite number above its range
 * (x is +-inf, the text is not "inf"), -1 a nonzero number below it (x is +-0, the text has a nonzero
 * digit before its exponent), 0 otherwise. strtod's ERANGE would not do: C99 leaves it unset on underflow. */
static int beyond_f64(const char *s, double x)
{
    int hex;
    while (cli_is_space(*s))
        s++;
    if (*s == '+' || *s == '-')
        s++;
    if (x == HUGE_VAL || x == -HUGE_VAL)
        return *s != 'i' && *s != 'I';
    if (x != 0)
        return 0;
    hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    for (s += hex ? 2 : 0; *s && *s != (hex ? 'p' : 'e') && *s != (hex ? 'P' : 'E'); s++)
        if ((*s >= '1' && *s <= '9') || (hex && ((*s >= 'a' && *s <= 'f') || (*s >= 'A' && *s <= 'F'))))
            return -1;
    return 0;
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
    int i, r, k, no_more_opts = 0, beyond;
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
            if (strcmp(a, "--propagate") == 0) {
                ovf = MF_OVERFLOW_PROPAGATE;
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

    beyond = beyond_f64(xs, x);
    {
        char v[64], h[64];
        cli_format_value(v, sizeof v, x, 17);
        cli_format_hexfloat(h, sizeof h, x);
        if (beyond > 0)
            printf("x = %s   (beyond binary64's range, f64 %s: rounded as the finite number it is)\n", xs, v);
        else if (beyond < 0)
            printf("x = %s   (below binary64's range, f64 %s: rounded as the nonzero number it is)\n", xs, v);
        else
            printf("x = %s   (f64 %s%s%s)\n", xs, v, strcmp(h, "-") ? " = " : "", strcmp(h, "-") ? h : "");
        /* Every format's largest finite value is far below DBL_MAX and its smallest step far above 2^-1074:
         * rounding those stand-ins gives the code and events that rounding x itself would, in every mode. */
        if (beyond > 0)
            x = x < 0 ? -DBL_MAX : DBL_MAX;
        else if (beyond < 0)
            x = ldexp(signbit(x) ? -1.0 : 1.0, DBL_MIN_EXP - DBL_MANT_DIG);
        if (mode == MF_ROUND_STOCHASTIC)
            printf("rounding %s (rbits 0x%08lx), overflow %s\n\n", mf_round_name(mode), (unsigned long)rbits,
                   mf_overflow_name(ovf));
        else
            printf("rounding %s, overflow %s\n\n", mf_round_name(mode),
                   mf_overflow_name(ovf));
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
        else if (beyond && (y == HUGE_VAL || y == -HUGE_VAL))
            snprintf(es, sizeof es, "inf");
        else if (beyond) /* |y| is far below |x| (or 0): 1 to four digits; far above a tiny x: too large to say */
            snprintf(es, sizeof es, "%s", beyond > 0 || y == 0 ? "1.000e+00" : "-");
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
