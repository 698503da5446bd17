/* tools/cli/main.c - the minifloat command-line tool.
 *
 *   minifloat info [FORMAT]                      the facts of every format (or of one)
 *   minifloat show X [-r MODE] [--sat] [--rbits N]   X rounded into every format
 *   minifloat convert --from F --to F [...]      stdin to stdout, raw arrays or text
 *   minifloat analyze FILE [...]                 what each format does to a tensor (analyze_cmd.c)
 *   minifloat train-demo [...]                   a small MLP trained in each precision (train_demo.c)
 *
 * Uses only the public API of <minifloat.h>. Exit status: 0 success, 1 data or I/O error, 2 usage
 * error. See docs/cli.md.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <minifloat.h>

#include "analyze.h"
#include "cli_util.h"
#include "train_demo.h"

#define EXIT_DATA 1
#define EXIT_USAGE 2

/* Elements per mf_convert call unless --chunk says otherwise. */
#define DEFAULT_CHUNK 8192u
#define MAX_CHUNK (1u << 24)

/* The nine formats of the generic contract, in table order. */
static const mf_format all_formats[] = {MF_FP32,     MF_FP16,     MF_BF16,     MF_FP8_E4M3, MF_FP8_E5M2,
                                        MF_FP6_E2M3, MF_FP6_E3M2, MF_FP4_E2M1, MF_E8M0};
#define N_FORMATS (sizeof all_formats / sizeof all_formats[0])

/* The usage; the %s is analyze's part (cli_analyze_usage). */
static const char usage_text[] =
    "usage: minifloat info [FORMAT]\n"
    "       minifloat show X [-r MODE] [--sat] [--rbits N]\n"
    "       minifloat convert --from FORMAT --to FORMAT [options] < input > output\n"
    "       minifloat analyze FILE [--formats LIST] [--scale auto|S] [--op OP] [-r MODE] [--sat] [--plot OUT]\n"
    "       minifloat train-demo [options]   (minifloat train-demo --help)\n"
    "       minifloat help | --help | --version\n"
    "\n"
    "formats: f32 f16 bf16 e4m3 e5m2 e2m3 e3m2 e2m1 e8m0, and f64 (convert only)\n"
    "modes:   rn (nearest even, default) rna rz ru rd ro sr (stochastic)\n"
    "\n"
    "info [FORMAT]      bits, bias, max, min normal, min subnormal, epsilon and special codes\n"
    "show X             X (decimal, hex-float like 0x1.8p+1, inf, nan) rounded into every format:\n"
    "                   code, bit fields, decoded value, relative error, events\n"
    "  -r, --round MODE   rounding mode (default rn)\n"
    "  --sat, --saturate  overflow saturates to +-max (default: IEEE overflow)\n"
    "  --rbits N          the 32 random bits used by -r sr (default 0)\n"
    "convert            stream stdin to stdout; raw arrays in mf_convert's layout by default\n"
    "  --from FORMAT      input format (with text input: defaults to f64)\n"
    "  --to FORMAT        output format (required)\n"
    "  -r, --round MODE   rounding mode (default rn)\n"
    "  --sat, --saturate  overflow saturates to +-max (default: IEEE overflow)\n"
    "  --seed S           Philox seed of -r sr; one stream over the whole input (default 0)\n"
    "  --text             one number per line in and out (--text-in, --text-out: one side only);\n"
    "                     an input number is rounded (rn) into --from first, unless --from is f64\n"
    "  --hex              codes in hexadecimal instead of numbers (--hex-in, --hex-out: one side)\n"
    "  --count N          stop after N elements (e.g. an odd number of packed e2m1 codes)\n"
    "  --chunk N          elements per conversion call (default 8192, rounded up to even;\n"
    "                     0 = the whole input in one call)\n"
    "  --stats            print the event counts to stderr at the end\n"
    "%s"
    "train-demo         a small MLP trained with FP32 master weights in f32, bf16, f16 (with and\n"
    "                   without loss scaling), FP8 and MXFP8; see minifloat train-demo --help\n"
    "\n"
    "exit status: 0 success, 1 data or I/O error, 2 usage error\n";

static void print_usage(FILE *f) { fprintf(f, usage_text, cli_analyze_usage); }

/* ---- messages ------------------------------------------------------------------------------- */

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs("minifloat: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nTry 'minifloat --help' for more information.\n", stderr);
    return EXIT_USAGE;
}

static int data_error(const char *fmt, ...)
{
    va_list ap;
    fputs("minifloat: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return EXIT_DATA;
}

/* ---- small parsers -------------------------------------------------------------------------- */

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

/* A whole string as a double: decimal, hex-float, inf, nan (strtod's syntax), blanks around. */
static int parse_double(const char *s, double *out)
{
    char *end;
    double v;
    while (is_space(*s))
        s++;
    if (*s == '\0')
        return 0;
    v = strtod(s, &end);
    if (end == s)
        return 0;
    while (is_space(*end))
        end++;
    if (*end != '\0')
        return 0;
    *out = v;
    return 1;
}

/* An unsigned integer (decimal, or hexadecimal with 0x) no larger than max. */
static int parse_uint(const char *s, uint64_t max, uint64_t *out)
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

/* A code in hexadecimal, "0x" optional, blanks around; at most `bits` bits wide. */
static int parse_hex_code(const char *s, int bits, uint64_t *out)
{
    uint64_t v = 0;
    int ndig = 0;
    while (is_space(*s))
        s++;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        s += 2;
    for (; hex_digit(*s) >= 0; s++) {
        if (v >> 60)
            return 0;
        v = v << 4 | (uint64_t)hex_digit(*s);
        ndig++;
    }
    while (is_space(*s))
        s++;
    if (ndig == 0 || *s != '\0')
        return 0;
    if (bits < 64 && (v >> bits) != 0)
        return 0;
    *out = v;
    return 1;
}

/* ---- formats -------------------------------------------------------------------------------- */

static mf_format_desc describe(mf_format f)
{
    mf_format_desc d;
    memset(&d, 0, sizeof d);
    mf_format_describe(f, &d);
    return d;
}

/* Hex digits of a code of `bits` bits (1..16). */
static int hex_digits(int bits) { return bits <= 4 ? 1 : bits >= 64 ? 16 : (bits + 3) / 4; }

static uint64_t sign_mask(const mf_format_desc *d) { return d->is_signed ? (uint64_t)1 << (d->bits - 1) : 0; }

static uint64_t f64_bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* Value of a code; f64 codes are their own bits. */
static double decode(mf_format f, uint64_t code)
{
    double x;
    if (f != MF_FP64)
        return mf_to_f64(f, (uint32_t)code);
    memcpy(&x, &code, sizeof x);
    return x;
}

/* A value as text: inf/nan spelled the same on every C library, finite values with %.*g. */
static void format_value(char *buf, size_t size, double v, int digits)
{
    if (v != v)
        snprintf(buf, size, "%snan", signbit(v) ? "-" : "");
    else if (v == HUGE_VAL || v == -HUGE_VAL)
        snprintf(buf, size, "%sinf", v < 0 ? "-" : "");
    else
        snprintf(buf, size, "%.*g", digits, v);
}

/* Hex-float of a finite value; "-" otherwise. */
static void format_hexfloat(char *buf, size_t size, double v)
{
    if (v != v || v == HUGE_VAL || v == -HUGE_VAL)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%a", v);
}

static void format_code(char *buf, size_t size, const mf_format_desc *d, uint64_t code)
{
    snprintf(buf, size, "0x%0*llx", hex_digits(d->bits), (unsigned long long)code);
}

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

/* ---- info ----------------------------------------------------------------------------------- */

static void info_line(const char *label, double v, const mf_format_desc *d, int have_code, uint64_t code)
{
    char val[64], hex[64], cs[40];
    format_value(val, sizeof val, v, 17);
    format_hexfloat(hex, sizeof hex, v);
    if (have_code) {
        format_code(cs, sizeof cs, d, code);
        printf("  %-14s %-24s %-24s code %s\n", label, val, hex, cs);
    } else {
        printf("  %-14s %-24s %s\n", label, val, hex);
    }
}

static void info_format(mf_format f)
{
    mf_format_desc d = describe(f);
    uint64_t s = sign_mask(&d);
    uint64_t inf_code = (((uint64_t)1 << d.exp_bits) - 1) << d.man_bits; /* IEEE formats only */
    uint64_t max_code = f == MF_FP64 ? inf_code - 1 : d.max_code;
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
    else
        printf("  %-14s %d = exponent %d (unsigned: no sign, no mantissa)   %s\n", "bits", d.bits, d.exp_bits,
               layout);
    if (d.has_subnormals)
        printf("  %-14s %d\n", "bias", d.bias);
    else
        printf("  %-14s %d   (value = 2^(code - %d))\n", "bias", d.bias, d.bias);
    info_line("max", d.max, &d, 1, max_code);
    info_line("min normal", d.min_normal, &d, 1, d.has_subnormals ? (uint64_t)1 << d.man_bits : 0);
    if (d.has_subnormals)
        info_line("min subnormal", d.min_subnormal, &d, 1, 1);
    else
        printf("  %-14s none\n", "min subnormal");
    info_line("epsilon", d.epsilon, &d, 0, 0);

    if (d.has_zero) {
        format_code(a, sizeof a, &d, 0);
        format_code(b, sizeof b, &d, s);
        printf("  %-14s +0 %s, -0 %s\n", "zero", a, b);
    } else {
        format_code(a, sizeof a, &d, 0);
        printf("  %-14s none (code %s is the smallest value)\n", "zero", a);
    }

    if (d.has_inf) {
        format_code(a, sizeof a, &d, inf_code);
        format_code(b, sizeof b, &d, s | inf_code);
        printf("  %-14s +inf %s, -inf %s\n", "infinity", a, b);
    } else {
        printf("  %-14s none\n", "infinity");
    }

    if (d.has_inf) { /* IEEE: all-ones exponent, nonzero mantissa */
        format_code(a, sizeof a, &d, inf_code + 1);
        format_code(b, sizeof b, &d, s - 1);
        format_code(c, sizeof c, &d, s | (inf_code + 1));
        format_code(e, sizeof e, &d, s | (s - 1));
        printf("  %-14s %s..%s, %s..%s", "NaN", a, b, c, e);
    } else if (d.has_nan && d.is_signed) { /* e4m3: S.1111.111 */
        format_code(a, sizeof a, &d, d.nan_code);
        format_code(b, sizeof b, &d, s | d.nan_code);
        printf("  %-14s %s, %s", "NaN", a, b);
    } else if (d.has_nan) { /* e8m0 */
        format_code(a, sizeof a, &d, d.nan_code);
        printf("  %-14s %s", "NaN", a);
    } else {
        format_code(a, sizeof a, &d, d.nan_code);
        printf("  %-14s none (a NaN input converts to +max, %s)\n", "NaN", a);
    }
    if (d.has_nan && f != MF_FP64) {
        format_code(a, sizeof a, &d, d.nan_code);
        printf("; rounding a NaN gives %s\n", a);
    } else if (d.has_nan) {
        printf("\n");
    }
}

static void info_summary(void)
{
    size_t i;
    printf("%-6s %-5s %-7s %-5s %-24s %-9s %s\n", "format", "bits", "S-E-M", "bias", "max", "specials", "title");
    for (i = 0; i < N_FORMATS; i++) {
        mf_format_desc d = describe(all_formats[i]);
        char sem[16], val[64];
        snprintf(sem, sizeof sem, "%d-%d-%d", d.is_signed, d.exp_bits, d.man_bits);
        format_value(val, sizeof val, d.max, 17);
        printf("%-6s %-5d %-7s %-5d %-24s %-9s %s\n", d.name, d.bits, sem, d.bias, val,
               d.has_inf ? "inf, NaN" : d.has_nan ? "NaN" : "-", d.title);
    }
}

static int cmd_info(int argc, char **argv)
{
    size_t i;
    mf_format f;
    if (argc > 3)
        return usage_error("info: too many arguments");
    if (argc == 3) {
        if (argv[2][0] == '-' && argv[2][1] != '\0')
            return usage_error("info: unknown option '%s'", argv[2]);
        if (mf_format_from_name(argv[2], &f) != MF_OK)
            return usage_error("info: unknown format '%s'", argv[2]);
        info_format(f);
        return 0;
    }
    info_summary();
    for (i = 0; i < N_FORMATS; i++) {
        printf("\n");
        info_format(all_formats[i]);
    }
    return 0;
}

/* ---- option parsing shared by show and convert ---------------------------------------------- */

/* A word that starts like a number ("-1.5", "-inf", ".5") rather than an option. */
static int looks_numeric(const char *s)
{
    double v;
    return parse_double(s, &v);
}

/* ---- show ----------------------------------------------------------------------------------- */

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

static int cmd_show(int argc, char **argv)
{
    mf_round mode = MF_ROUND_NEAREST_EVEN;
    mf_overflow ovf = MF_OVERFLOW_IEEE;
    uint64_t rbits = 0;
    const char *xs = NULL, *val;
    double x;
    int i, r, no_more_opts = 0;
    size_t k;

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
                    return usage_error("show: option '%s' needs a rounding mode", a);
                if (mf_round_from_name(val, &mode) != MF_OK)
                    return usage_error("show: unknown rounding mode '%s' (rn rna rz ru rd ro sr)", val);
                continue;
            }
            if ((r = cli_opt_value(argc, argv, &i, "--rbits", NULL, &val)) != 0) {
                if (r < 0)
                    return usage_error("show: option '%s' needs a number", a);
                if (!parse_uint(val, 0xFFFFFFFFu, &rbits))
                    return usage_error("show: --rbits '%s' is not a 32-bit unsigned number", val);
                continue;
            }
            return usage_error("show: unknown option '%s'", a);
        }
        if (xs)
            return usage_error("show: more than one number ('%s' and '%s')", xs, a);
        xs = a;
    }
    if (!xs)
        return usage_error("show: a number is required (e.g. minifloat show 3.14159)");
    if (!parse_double(xs, &x))
        return usage_error("show: '%s' is not a number", xs);

    {
        char v[64], h[64];
        format_value(v, sizeof v, x, 17);
        format_hexfloat(h, sizeof h, x);
        printf("x = %s   (f64 %s%s%s)\n", xs, v, strcmp(h, "-") ? " = " : "", strcmp(h, "-") ? h : "");
        if (mode == MF_ROUND_STOCHASTIC)
            printf("rounding %s (rbits 0x%08lx), overflow %s\n\n", mf_round_name(mode), (unsigned long)rbits,
                   ovf == MF_OVERFLOW_SATURATE ? "saturate" : "ieee");
        else
            printf("rounding %s, overflow %s\n\n", mf_round_name(mode),
                   ovf == MF_OVERFLOW_SATURATE ? "saturate" : "ieee");
    }
    printf("%-6s  %-10s  %-34s  %-23s  %-10s  %s\n", "format", "code", "sign|exponent|mantissa", "value",
           x == 0 ? "abs. error" : "rel. error", "events");
    for (k = 0; k < N_FORMATS; k++) {
        mf_format f = all_formats[k];
        mf_format_desc d = describe(f);
        unsigned ev = 0;
        uint32_t code = mf_from_f64_ev(f, x, mode, ovf, (uint32_t)rbits, &ev);
        double y = mf_to_f64(f, code);
        double ref = (!d.is_signed && x < 0) ? -x : x; /* e8m0 stores |x| */
        char cs[40], fields[80], vs[64], es[40], evs[96];

        format_code(cs, sizeof cs, &d, code);
        format_fields(fields, &d, code);
        format_value(vs, sizeof vs, y, 17);
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
        printf("%-6s  %-10s  %-34s  %-23s  %-10s  %s\n", d.name, cs, fields, vs, es, evs);
    }
    return 0;
}

/* ---- convert -------------------------------------------------------------------------------- */

typedef struct conv {
    mf_format from, to;
    mf_format_desc dfrom, dto;
    mf_opts opts;
    mf_stats total;
    int text_in, text_out, hex_in, hex_out, want_stats;
    size_t chunk;          /* elements per call; 0 = everything in one call */
    uint64_t limit;        /* --count, or UINT64_MAX */
    uint64_t done;         /* elements converted so far: the stochastic stream offset */
    unsigned char *src, *dst;
    size_t cap;            /* capacity of src and dst, in elements (even) */
} conv;

/* Code of element i of an array in mf_convert's layout. */
static uint64_t get_code(mf_format f, const unsigned char *buf, size_t i)
{
    uint64_t u64;
    uint32_t u32;
    uint16_t u16;
    switch (f) {
    case MF_FP64: memcpy(&u64, buf + 8 * i, 8); return u64;
    case MF_FP32: memcpy(&u32, buf + 4 * i, 4); return u32;
    case MF_FP16:
    case MF_BF16: memcpy(&u16, buf + 2 * i, 2); return u16;
    case MF_FP4_E2M1: return (uint64_t)(buf[i / 2] >> (4 * (i & 1))) & 0xFu;
    case MF_FP6_E2M3:
    case MF_FP6_E3M2: return buf[i] & 0x3Fu;
    default: return buf[i];
    }
}

static void put_code(mf_format f, unsigned char *buf, size_t i, uint64_t code)
{
    uint32_t u32 = (uint32_t)code;
    uint16_t u16 = (uint16_t)code;
    unsigned sh;
    switch (f) {
    case MF_FP64: memcpy(buf + 8 * i, &code, 8); break;
    case MF_FP32: memcpy(buf + 4 * i, &u32, 4); break;
    case MF_FP16:
    case MF_BF16: memcpy(buf + 2 * i, &u16, 2); break;
    case MF_FP4_E2M1:
        sh = 4u * (unsigned)(i & 1);
        buf[i / 2] = (unsigned char)((buf[i / 2] & ~(0xFu << sh)) | ((code & 0xFu) << sh));
        break;
    default: buf[i] = (unsigned char)code; break;
    }
}

static int reserve(conv *c, size_t n)
{
    size_t cap = c->cap ? c->cap : 1024;
    unsigned char *s, *d;
    if (n <= c->cap)
        return 1;
    while (cap < n) {
        if (cap > SIZE_MAX / 16)
            return 0;
        cap *= 2;
    }
    s = (unsigned char *)realloc(c->src, mf_storage_bytes(c->from, cap));
    if (!s)
        return 0;
    c->src = s;
    d = (unsigned char *)realloc(c->dst, mf_storage_bytes(c->to, cap));
    if (!d)
        return 0;
    c->dst = d;
    c->cap = cap;
    return 1;
}

/* Convert the n elements in c->src and write them out. */
static int flush_chunk(conv *c, size_t n)
{
    mf_stats st;
    size_t i, bytes = mf_storage_bytes(c->to, n);
    int rc;
    if (n == 0)
        return 0;
    memset(c->dst, 0, bytes); /* e2m1 with odd n: the last high nibble stays 0 */
    c->opts.stats = &st;
    c->opts.sr_offset = c->done;
    rc = mf_convert(c->to, c->dst, c->from, c->src, n, &c->opts);
    if (rc != MF_OK)
        return data_error("convert: %s", mf_strerror(rc));
    c->done += n;
    c->total.overflow += st.overflow;
    c->total.underflow += st.underflow;
    c->total.subnormal += st.subnormal;
    c->total.nan += st.nan;
    c->total.inexact += st.inexact;
    if (!c->text_out) {
        if (fwrite(c->dst, 1, bytes, stdout) != bytes)
            return data_error("convert: write error: %s", strerror(errno));
        return 0;
    }
    for (i = 0; i < n; i++) {
        uint64_t code = get_code(c->to, c->dst, i);
        if (c->hex_out) {
            printf("0x%0*llx\n", hex_digits(c->dto.bits), (unsigned long long)code);
        } else {
            char buf[64];
            format_value(buf, sizeof buf, decode(c->to, code), c->to == MF_FP64 ? 17 : 9);
            puts(buf);
        }
    }
    if (ferror(stdout))
        return data_error("convert: write error: %s", strerror(errno));
    return 0;
}

/* Raw input: read chunks of elements; a trailing partial element is an error. */
static int run_binary_in(conv *c)
{
    size_t w = c->from == MF_FP4_E2M1 ? 1 : mf_storage_bytes(c->from, 1); /* bytes per read unit */
    size_t per = c->from == MF_FP4_E2M1 ? 2 : 1;                          /* elements per unit */
    int rc;
    for (;;) {
        size_t want, wbytes, got, n;
        uint64_t left = c->limit - c->done;
        if (left == 0)
            return 0;
        if (c->chunk) {
            want = c->chunk;
        } else {
            /* one call: read everything first */
            size_t have = 0;
            for (;;) {
                size_t room, r;
                if (!reserve(c, c->cap ? 2 * c->cap : 65536))
                    return data_error("convert: out of memory");
                room = mf_storage_bytes(c->from, c->cap) - have;
                r = fread(c->src + have, 1, room, stdin);
                have += r;
                if (r < room)
                    break;
            }
            if (ferror(stdin))
                return data_error("convert: read error: %s", strerror(errno));
            n = have / w * per;
            if ((uint64_t)n > left)
                n = (size_t)left;
            if ((rc = flush_chunk(c, n)) != 0)
                return rc;
            if (have % w && (uint64_t)(have / w * per) <= left)
                return data_error("convert: input ends inside an element: %lu trailing byte(s) ignored "
                                  "(%s elements are %lu bytes)",
                                  (unsigned long)(have % w), c->dfrom.name, (unsigned long)w);
            return 0;
        }
        if ((uint64_t)want > left)
            want = (size_t)left;
        wbytes = mf_storage_bytes(c->from, want);
        got = fread(c->src, 1, wbytes, stdin);
        if (ferror(stdin))
            return data_error("convert: read error: %s", strerror(errno));
        n = got / w * per;
        if (n > want)
            n = want;
        if ((rc = flush_chunk(c, n)) != 0)
            return rc;
        if (got < wbytes) {
            if (got % w)
                return data_error("convert: input ends inside an element: %lu trailing byte(s) ignored "
                                  "(%s elements are %lu bytes)",
                                  (unsigned long)(got % w), c->dfrom.name, (unsigned long)w);
            return 0;
        }
    }
}

/* Read one line (any length) into *buf; 0 at end of input. */
static int read_line(char **buf, size_t *size)
{
    size_t len = 0;
    if (!*buf) {
        *size = 256;
        *buf = (char *)malloc(*size);
        if (!*buf)
            return -1;
    }
    for (;;) {
        if (!fgets(*buf + len, (int)(*size - len), stdin))
            return len > 0;
        len += strlen(*buf + len);
        if (len > 0 && (*buf)[len - 1] == '\n')
            return 1;
        if (len + 1 == *size) {
            char *nb;
            if (*size > SIZE_MAX / 2 || *size >= 1u << 30)
                return -1;
            nb = (char *)realloc(*buf, *size * 2);
            if (!nb)
                return -1;
            *buf = nb;
            *size *= 2;
        }
    }
}

/* Quote at most 60 characters of a bad input line. */
static void quote_line(char *out, size_t size, const char *line)
{
    size_t n = strcspn(line, "\r\n");
    if (n > 60)
        snprintf(out, size, "%.57s...", line);
    else
        snprintf(out, size, "%.*s", (int)n, line);
}

/* Text input: each line is a number (or, with --hex-in, a code of --from). On a bad line the
 * lines before it are converted and written first, then the error is reported. */
static int run_text_in(conv *c)
{
    char *line = NULL, msg[160];
    size_t size = 0, k = 0;
    unsigned long lineno = 0;
    int r, rc = 0;
    msg[0] = '\0';
    while (c->done + k < c->limit) {
        const char *p;
        char q[64];
        uint64_t code;
        r = read_line(&line, &size);
        if (r < 0) {
            snprintf(msg, sizeof msg, "convert: line %lu: out of memory (line too long?)", lineno + 1);
            break;
        }
        if (r == 0)
            break;
        lineno++;
        for (p = line; is_space(*p); p++)
            ;
        if (*p == '\0')
            continue; /* blank line */
        if (c->hex_in) {
            if (!parse_hex_code(line, c->dfrom.bits, &code)) {
                quote_line(q, sizeof q, line);
                snprintf(msg, sizeof msg, "convert: line %lu: '%s' is not a hexadecimal %s code (%d bits)",
                         lineno, q, c->dfrom.name, c->dfrom.bits);
                break;
            }
        } else {
            double x;
            if (!parse_double(line, &x)) {
                quote_line(q, sizeof q, line);
                snprintf(msg, sizeof msg, "convert: line %lu: '%s' is not a number", lineno, q);
                break;
            }
            /* f64 keeps the value; any other --from rounds it once, rn, IEEE overflow */
            code = c->from == MF_FP64 ? f64_bits(x)
                                      : mf_from_f64(c->from, x, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0);
        }
        if (!reserve(c, k + 1)) {
            snprintf(msg, sizeof msg, "convert: out of memory");
            break;
        }
        put_code(c->from, c->src, k, code);
        k++;
        if (c->chunk && k == c->chunk) {
            if ((rc = flush_chunk(c, k)) != 0)
                break;
            k = 0;
        }
    }
    free(line);
    if (rc != 0)
        return rc;
    if (!msg[0] && ferror(stdin))
        snprintf(msg, sizeof msg, "convert: read error: %s", strerror(errno));
    rc = flush_chunk(c, k);
    if (msg[0]) {
        fflush(stdout);
        return data_error("%s", msg);
    }
    return rc;
}

static int cmd_convert(int argc, char **argv)
{
    conv c;
    const char *from = NULL, *to = NULL, *val;
    int i, r, text = 0, hex = 0, rc;
    uint64_t u;

    memset(&c, 0, sizeof c);
    c.opts.round = MF_ROUND_NEAREST_EVEN;
    c.opts.overflow = MF_OVERFLOW_IEEE;
    c.chunk = DEFAULT_CHUNK;
    c.limit = UINT64_MAX;

    for (i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--sat") == 0 || strcmp(a, "--saturate") == 0) {
            c.opts.overflow = MF_OVERFLOW_SATURATE;
        } else if (strcmp(a, "--text") == 0) {
            text = 1;
        } else if (strcmp(a, "--text-in") == 0) {
            c.text_in = 1;
        } else if (strcmp(a, "--text-out") == 0) {
            c.text_out = 1;
        } else if (strcmp(a, "--hex") == 0) {
            hex = 1;
        } else if (strcmp(a, "--hex-in") == 0) {
            c.hex_in = 1;
        } else if (strcmp(a, "--hex-out") == 0) {
            c.hex_out = 1;
        } else if (strcmp(a, "--stats") == 0) {
            c.want_stats = 1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--from", NULL, &val)) != 0) {
            if (r < 0)
                return usage_error("convert: option '%s' needs a format", a);
            from = val;
        } else if ((r = cli_opt_value(argc, argv, &i, "--to", NULL, &val)) != 0) {
            if (r < 0)
                return usage_error("convert: option '%s' needs a format", a);
            to = val;
        } else if ((r = cli_opt_value(argc, argv, &i, "--round", "-r", &val)) != 0) {
            if (r < 0)
                return usage_error("convert: option '%s' needs a rounding mode", a);
            if (mf_round_from_name(val, &c.opts.round) != MF_OK)
                return usage_error("convert: unknown rounding mode '%s' (rn rna rz ru rd ro sr)", val);
        } else if ((r = cli_opt_value(argc, argv, &i, "--seed", NULL, &val)) != 0) {
            if (r < 0 || !parse_uint(val, UINT64_MAX, &c.opts.seed))
                return usage_error("convert: --seed needs an unsigned 64-bit number");
        } else if ((r = cli_opt_value(argc, argv, &i, "--count", NULL, &val)) != 0) {
            if (r < 0 || !parse_uint(val, UINT64_MAX, &c.limit))
                return usage_error("convert: --count needs an unsigned number");
        } else if ((r = cli_opt_value(argc, argv, &i, "--chunk", NULL, &val)) != 0) {
            if (r < 0 || !parse_uint(val, MAX_CHUNK, &u))
                return usage_error("convert: --chunk needs a number from 0 to %lu", (unsigned long)MAX_CHUNK);
            c.chunk = (size_t)(u + (u & 1)); /* even: e2m1 pairs never straddle two calls */
        } else if (a[0] == '-') {
            return usage_error("convert: unknown option '%s'", a);
        } else {
            return usage_error("convert: unexpected argument '%s' (input comes from stdin)", a);
        }
    }
    if (hex)
        c.hex_in = c.hex_out = 1;
    if (text || c.hex_in)
        c.text_in = 1;
    if (text || c.hex_out)
        c.text_out = 1;

    if (!to)
        return usage_error("convert: --to FORMAT is required");
    if (mf_format_from_name(to, &c.to) != MF_OK)
        return usage_error("convert: unknown format '%s'", to);
    if (!from) {
        if (!c.text_in || c.hex_in)
            return usage_error("convert: --from FORMAT is required");
        from = "f64";
    }
    if (mf_format_from_name(from, &c.from) != MF_OK)
        return usage_error("convert: unknown format '%s'", from);
    c.dfrom = describe(c.from);
    c.dto = describe(c.to);

    if (c.chunk && !reserve(&c, c.chunk))
        return data_error("convert: out of memory");
    rc = c.text_in ? run_text_in(&c) : run_binary_in(&c);
    if (fflush(stdout) != 0 && rc == 0)
        rc = data_error("convert: write error: %s", strerror(errno));
    if (c.want_stats) {
        fprintf(stderr, "minifloat: stats: %llu elements, %s -> %s, %s, %s\n", (unsigned long long)c.done,
                c.dfrom.name, c.dto.name, mf_round_name(c.opts.round),
                c.opts.overflow == MF_OVERFLOW_SATURATE ? "saturate" : "ieee");
        fprintf(stderr, "  overflow   %llu\n", (unsigned long long)c.total.overflow);
        fprintf(stderr, "  underflow  %llu\n", (unsigned long long)c.total.underflow);
        fprintf(stderr, "  subnormal  %llu\n", (unsigned long long)c.total.subnormal);
        fprintf(stderr, "  nan        %llu\n", (unsigned long long)c.total.nan);
        fprintf(stderr, "  inexact    %llu\n", (unsigned long long)c.total.inexact);
    }
    free(c.src);
    free(c.dst);
    return rc;
}

/* ---- main ----------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    const char *cmd;
    if (argc < 2) {
        print_usage(stderr);
        return EXIT_USAGE;
    }
    cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        print_usage(stdout);
        return fflush(stdout) == 0 ? 0 : EXIT_DATA;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("minifloat %s\n", mf_version());
        return 0;
    }
    if (argc >= 3 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0) &&
        (strcmp(cmd, "info") == 0 || strcmp(cmd, "show") == 0 || strcmp(cmd, "convert") == 0 ||
         strcmp(cmd, "analyze") == 0)) {
        print_usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "info") == 0)
        return cmd_info(argc, argv);
    if (strcmp(cmd, "show") == 0)
        return cmd_show(argc, argv);
    if (strcmp(cmd, "convert") == 0)
        return cmd_convert(argc, argv);
    if (strcmp(cmd, "analyze") == 0)
        return cli_analyze_main(argc, argv);
    if (strcmp(cmd, "train-demo") == 0)
        return cli_train_demo_main(argc - 1, argv + 1); /* its argv[0] is "train-demo" */
    return usage_error("unknown command '%s' (info, show, convert, analyze, train-demo, help)", cmd);
}
