/* SPDX-License-Identifier: MIT */
/* tools/cli/cli_util.h - what the commands share: messages, option and number parsing, format printing. */
#ifndef CLI_UTIL_H
#define CLI_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <minifloat.h>

/* Exit status: 0 success, 1 data or I/O error, 2 usage error (docs/cli.md). */
#define CLI_EXIT_DATA 1
#define CLI_EXIT_USAGE 2

#if defined(__GNUC__) || defined(__clang__)
#define CLI_PRINTF_LIKE(a, b) __attribute__((format(printf, a, b)))
#else
#define CLI_PRINTF_LIKE(a, b)
#endif

/* ---- messages ----------------------------------------------------------------------------------- */

/* Who a message speaks for: the prefix of its line, and the command whose --help a usage error
 * points to ("Try 'minifloat --help' ..."). */
typedef struct cli_voice {
    const char *prefix; /* "minifloat: " */
    const char *help;   /* "minifloat" */
} cli_voice;

/* The tool itself: main, info, show and convert (their messages name the command). */
extern const cli_voice cli_tool;

/* Print the message on stderr, with the help hint; return CLI_EXIT_USAGE. */
int cli_usage_error(const cli_voice *v, const char *fmt, ...) CLI_PRINTF_LIKE(2, 3);
/* Print the message on stderr; return CLI_EXIT_DATA. */
int cli_data_error(const cli_voice *v, const char *fmt, ...) CLI_PRINTF_LIKE(2, 3);

/* ---- options and numbers ------------------------------------------------------------------------ */

/* If argv[*i] is the option `lng` ("--name", also "--name=VALUE") or `shrt` ("-r", may be NULL),
 * return 1 and its value in *val (advancing *i past a separate value), -1 if the value is missing,
 * 0 if it is not this option. */
int cli_opt_value(int argc, char **argv, int *i, const char *lng, const char *shrt, const char **val);

/* The parsers return 1 and set *out, or return 0 and leave it. */
int cli_is_space(char c);
/* A whole string as a double: decimal, hex-float, inf, nan (strtod's syntax), blanks around. */
int cli_parse_double(const char *s, double *out);
/* cli_parse_double into a finite float; strtod's range errors (ERANGE) refused too. */
int cli_parse_float(const char *s, float *out);
/* An unsigned integer (decimal, or hexadecimal with 0x), first character a digit, at most max. */
int cli_parse_uint(const char *s, uint64_t max, uint64_t *out);
/* A decimal integer in lo..hi (strtol's syntax). */
int cli_parse_int(const char *s, long lo, long hi, int *out);
/* A code in hexadecimal, "0x" optional, blanks around; at most `bits` bits wide. */
int cli_parse_hex_code(const char *s, int bits, uint64_t *out);
/* Whether a and b are the same name, ignoring ASCII case. */
int cli_name_eq(const char *a, const char *b);
/* lookup(name, &item): 1 and the item a name stands for (aliases give the same item), or 0: unknown. */
typedef int (*cli_lookup)(const char *name, int *item);
/* The value of option opt, a comma-separated list of names of noun ("format"), into items[0..*n): each
 * known (lookup), none twice (aliases included), at most max. Returns 0, or says what is wrong ("OPT:
 * ..."; known lists the names) and returns CLI_EXIT_USAGE. */
int cli_parse_list(const cli_voice *v, const char *opt, const char *noun, const char *list, cli_lookup lookup,
                   const char *known, int *items, int max, int *n);

/* The value of an option naming an SVG file to write (r and val as cli_opt_value gave them for option
 * opt): 0 and *out = val, or a usage error (a missing value, a name not ending in .svg). */
int cli_parse_svg_path(const cli_voice *v, const char *opt, int r, const char *val, const char **out);

/* ---- compatibility profiles (docs/compat.md) ---------------------------------------------------- */

/* The profile names, "default cuda ml_dtypes torch onnx", from mf_profile_name. */
const char *cli_profile_names(void);
/* The value of `cmd`'s --profile: 0 and *out, or a usage error naming the valid profiles. */
int cli_parse_profile(const cli_voice *v, const char *cmd, const char *name, mf_profile *out);
/* mf_convert's (or mf_convert_plan's) status rc for src -> dst under o: MF_E_PROFILE says which profile
 * lacks which conversion, then mf_strerror's sentence; others just the sentence. Returns CLI_EXIT_DATA. */
int cli_convert_error(const cli_voice *v, const char *cmd, int rc, mf_format src, mf_format dst, const mf_opts *o);

/* ---- output files ------------------------------------------------------------------------------- */

/* An output file that appears whole or not at all: written under a temporary name beside it
 * ("PATH.part-PID"), then renamed into place by cli_out_commit or removed by cli_out_abort. */
typedef struct cli_out {
    FILE *f;
    const char *path;
    char *tmp;
} cli_out;
/* 0, with o->f open for writing; or -1 with errno set (nothing created). */
int cli_out_open(cli_out *o, const char *path);
/* Close (unless o->f was closed and set to NULL, for a file another program wrote under o->tmp) and
 * rename into place: 0, or -1 with errno set and the temporary file removed (a write, the close or the
 * rename failed). */
int cli_out_commit(cli_out *o);
/* Close and remove the temporary file; errno is kept. */
void cli_out_abort(cli_out *o);

/* ---- formats, as info, show and convert print them ---------------------------------------------- */

/* The formats info and show list, k = 0 .. CLI_N_FORMATS - 1: every format of the library in enum order
 * (the rows of minifloat/formats.inc) but f64, a source format only. */
#define CLI_N_FORMATS (MF_FORMAT_COUNT - 1)
mf_format cli_format_at(int k);
/* Width of the format column in info's and show's tables: the longest tag. */
int cli_format_col(void);
/* The tags of the formats keep accepts (keep NULL: all but f64), in enum order, joined by sep and the last
 * two by last ("e4m3, e5m2 or e3m4"), in buf (cut short where it is too small); returns buf. */
const char *cli_format_tags(char *buf, size_t size, int (*keep)(mf_format), const char *sep, const char *last);

/* mf_format_describe's facts (all zero for an unknown format). */
mf_format_desc cli_describe(mf_format f);
/* Hex digits of a code of `bits` bits. */
int cli_hex_digits(int bits);
/* A value as text: inf/nan spelled the same on every C library, finite values with %.*g. */
void cli_format_value(char *buf, size_t size, double v, int digits);
/* Hex-float of a finite value; "-" otherwise. */
void cli_format_hexfloat(char *buf, size_t size, double v);
/* "0x1f": a code with the format's number of hex digits. */
void cli_format_code(char *buf, size_t size, const mf_format_desc *d, uint64_t code);

#endif /* CLI_UTIL_H */
