/* SPDX-License-Identifier: MIT */
/* tools/cli/info.c - `minifloat info [FORMAT]`: the facts of every format, or of one. */
#include <stdint.h>
#include <stdio.h>

#include <minifloat.h>

#include "cli_util.h"
#include "commands.h"

static uint64_t sign_mask(const mf_format_desc *d) { return d->is_signed ? (uint64_t)1 << (d->bits - 1) : 0; }

static void info_line(const char *label, double v, const mf_format_desc *d, int have_code, uint64_t code)
{
    char val[64], hex[64], cs[40];
    cli_format_value(val, sizeof val, v, 17);
    cli_format_hexfloat(hex, sizeof hex, v);
    if (have_code) {
        cli_format_code(cs, sizeof cs, d, code);
        printf("  %-14s %-24s %-24s code %s\n", label, val, hex, cs);
    } else {
        printf("  %-14s %-24s %s\n", label, val, hex);
    }
}

static void info_format(mf_format f)
{
    mf_format_desc d = cli_describe(f);
    uint64_t s = sign_mask(&d);
    /* f64's codes do not fit the descriptor's 32 bits: its +inf is written out */
    uint64_t inf_code = f == MF_FP64 ? (((uint64_t)1 << d.exp_bits) - 1) << d.man_bits : d.inf_code;
    uint64_t max_code = f == MF_FP64 ? inf_code - 1 : d.max_code;
    /* IEEE-style NaNs: every code above +inf of either sign (P3109's extended formats have one NaN) */
    const int nan_range = d.has_inf && d.is_signed && (f == MF_FP64 || (d.nan_code > inf_code && !(d.nan_code & s)));
    char layout[80], a[40], b[40], c[40], e[40];
    int i, k = 0;

    if (d.is_signed)
        layout[k++] = 'S', layout[k++] = ' ';
    for (i = 0; i < d.exp_bits; i++)
        layout[k++] = 'E';
    if (d.man_bits)
        layout[k++] = ' ';
    for (i = 0; i < d.man_bits; i++)
        layout[k++] = 'M';
    layout[k] = '\0';

    printf("%s  %s\n", d.name, d.title);
    if (d.is_signed)
        printf("  %-14s %d = sign 1 + exponent %d + mantissa %d   %s\n", "bits", d.bits, d.exp_bits, d.man_bits,
               layout);
    else if (d.man_bits)
        printf("  %-14s %d = exponent %d + mantissa %d (unsigned: no sign)   %s\n", "bits", d.bits, d.exp_bits,
               d.man_bits, layout);
    else
        printf("  %-14s %d = exponent %d (unsigned: no sign, no mantissa)   %s\n", "bits", d.bits, d.exp_bits,
               layout);
    if (d.has_subnormals)
        printf("  %-14s %d\n", "bias", d.bias);
    else if (d.man_bits == 0 && d.has_zero) /* P3109 precision 1: code 0 is the zero */
        printf("  %-14s %d   (value = 2^(code - %d) for code >= 1)\n", "bias", d.bias, d.bias);
    else
        printf("  %-14s %d   (value = 2^(code - %d))\n", "bias", d.bias, d.bias);
    info_line("max", d.max, &d, 1, max_code);
    info_line("min normal", d.min_normal, &d, 1, d.has_subnormals || d.has_zero ? (uint64_t)1 << d.man_bits : 0);
    if (d.has_subnormals)
        info_line("min subnormal", d.min_subnormal, &d, 1, 1);
    else
        printf("  %-14s none\n", "min subnormal");
    info_line("epsilon", d.epsilon, &d, 0, 0);

    if (d.has_zero && d.has_neg_zero) {
        cli_format_code(a, sizeof a, &d, 0);
        cli_format_code(b, sizeof b, &d, s);
        printf("  %-14s +0 %s, -0 %s\n", "zero", a, b);
    } else if (d.has_zero) { /* fnuz: the code of -0 is the NaN */
        cli_format_code(a, sizeof a, &d, 0);
        printf("  %-14s +0 %s, no -0 (a zero result of either sign is %s)\n", "zero", a, a);
    } else {
        cli_format_code(a, sizeof a, &d, 0);
        printf("  %-14s none (code %s is the smallest value)\n", "zero", a);
    }

    if (d.has_inf && d.is_signed) {
        cli_format_code(a, sizeof a, &d, inf_code);
        cli_format_code(b, sizeof b, &d, s | inf_code);
        printf("  %-14s +inf %s, -inf %s\n", "infinity", a, b);
    } else if (d.has_inf) { /* P3109 unsigned extended */
        cli_format_code(a, sizeof a, &d, inf_code);
        printf("  %-14s +inf %s, no -inf\n", "infinity", a);
    } else {
        printf("  %-14s none\n", "infinity");
    }

    if (nan_range) { /* IEEE: all-ones exponent, nonzero mantissa */
        cli_format_code(a, sizeof a, &d, inf_code + 1);
        cli_format_code(b, sizeof b, &d, s - 1);
        cli_format_code(c, sizeof c, &d, s | (inf_code + 1));
        cli_format_code(e, sizeof e, &d, s | (s - 1));
        printf("  %-14s %s..%s, %s..%s", "NaN", a, b, c, e);
    } else if (d.has_nan && d.is_signed && (d.nan_code & s)) { /* fnuz, P3109: 0x80, the code of -0 elsewhere */
        cli_format_code(a, sizeof a, &d, d.nan_code);
        printf("  %-14s %s only", "NaN", a);
    } else if (d.has_nan && d.is_signed) { /* e4m3: S.1111.111 */
        cli_format_code(a, sizeof a, &d, d.nan_code);
        cli_format_code(b, sizeof b, &d, s | d.nan_code);
        printf("  %-14s %s, %s", "NaN", a, b);
    } else if (d.has_nan) { /* e8m0, P3109 unsigned: all ones */
        cli_format_code(a, sizeof a, &d, d.nan_code);
        printf("  %-14s %s", "NaN", a);
    } else {
        cli_format_code(a, sizeof a, &d, d.nan_code);
        printf("  %-14s none (a NaN input converts to +max, %s)\n", "NaN", a);
    }
    if (d.has_nan && f != MF_FP64) {
        cli_format_code(a, sizeof a, &d, d.nan_code);
        printf("; rounding a NaN gives %s\n", a);
    } else if (d.has_nan) {
        printf("\n");
    }
}

static void info_summary(void)
{
    const int col = cli_format_col();
    int i;
    printf("%-*s %-5s %-7s %-5s %-24s %-9s %s\n", col, "format", "bits", "S-E-M", "bias", "max", "specials",
           "title");
    for (i = 0; i < CLI_N_FORMATS; i++) {
        mf_format_desc d = cli_describe(cli_format_at(i));
        char sem[16], val[64];
        snprintf(sem, sizeof sem, "%d-%d-%d", d.is_signed, d.exp_bits, d.man_bits);
        cli_format_value(val, sizeof val, d.max, 17);
        printf("%-*s %-5d %-7s %-5d %-24s %-9s %s\n", col, d.name, d.bits, sem, d.bias, val,
               d.has_inf ? "inf, NaN" : d.has_nan ? "NaN" : "-", d.title);
    }
}

int cli_info_main(int argc, char **argv)
{
    int i;
    mf_format f;
    if (argc > 3)
        return cli_usage_error(&cli_tool, "info: too many arguments");
    if (argc == 3) {
        if (argv[2][0] == '-' && argv[2][1] != '\0')
            return cli_usage_error(&cli_tool, "info: unknown option '%s'", argv[2]);
        if (mf_format_from_name(argv[2], &f) != MF_OK)
            return cli_usage_error(&cli_tool, "info: unknown format '%s'", argv[2]);
        info_format(f);
        return 0;
    }
    info_summary();
    for (i = 0; i < CLI_N_FORMATS; i++) {
        printf("\n");
        info_format(cli_format_at(i));
    }
    return 0;
}
