/* SPDX-License-Identifier: MIT */
/* tools/cli/convert.c - `minifloat convert`: stdin to stdout through mf_convert, raw arrays or text. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <minifloat.h>

#include "cli_util.h"
#include "commands.h"

/* Elements per mf_convert call unless --chunk says otherwise. */
#define CLI_DEFAULT_CHUNK 8192u
#define CLI_MAX_CHUNK (1u << 24)

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
        return cli_convert_error(&cli_tool, "convert", rc, c->from, c->to, &c->opts);
    c->done += n;
    c->total.overflow += st.overflow;
    c->total.underflow += st.underflow;
    c->total.subnormal += st.subnormal;
    c->total.nan += st.nan;
    c->total.inexact += st.inexact;
    if (!c->text_out) {
        if (fwrite(c->dst, 1, bytes, stdout) != bytes)
            return cli_data_error(&cli_tool, "convert: write error: %s", strerror(errno));
        return 0;
    }
    for (i = 0; i < n; i++) {
        uint64_t code = get_code(c->to, c->dst, i);
        if (c->hex_out) {
            printf("0x%0*llx\n", cli_hex_digits(c->dto.bits), (unsigned long long)code);
        } else {
            char buf[64];
            cli_format_value(buf, sizeof buf, decode(c->to, code), c->to == MF_FP64 ? 17 : 9);
            puts(buf);
        }
    }
    if (ferror(stdout))
        return cli_data_error(&cli_tool, "convert: write error: %s", strerror(errno));
    return 0;
}

/* Raw input that ends `extra` bytes into an element of w bytes. */
static int partial_element(const conv *c, size_t extra, size_t w)
{
    return cli_data_error(&cli_tool,
                          "convert: input ends inside an element: %lu trailing byte(s) ignored (%s elements are %lu "
                          "bytes)",
                          (unsigned long)extra, c->dfrom.name, (unsigned long)w);
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
                    return cli_data_error(&cli_tool, "convert: out of memory");
                room = mf_storage_bytes(c->from, c->cap) - have;
                r = fread(c->src + have, 1, room, stdin);
                have += r;
                if (r < room)
                    break;
            }
            if (ferror(stdin))
                return cli_data_error(&cli_tool, "convert: read error: %s", strerror(errno));
            n = have / w * per;
            if ((uint64_t)n > left)
                n = (size_t)left;
            if ((rc = flush_chunk(c, n)) != 0)
                return rc;
            if (have % w && (uint64_t)(have / w * per) <= left)
                return partial_element(c, have % w, w);
            return 0;
        }
        if ((uint64_t)want > left)
            want = (size_t)left;
        wbytes = mf_storage_bytes(c->from, want);
        got = fread(c->src, 1, wbytes, stdin);
        if (ferror(stdin))
            return cli_data_error(&cli_tool, "convert: read error: %s", strerror(errno));
        n = got / w * per;
        if (n > want)
            n = want;
        if ((rc = flush_chunk(c, n)) != 0)
            return rc;
        if (got < wbytes) {
            if (got % w)
                return partial_element(c, got % w, w);
            return 0;
        }
    }
}

/* Read one line (any length, its '\n' kept) into *buf: 1, 0 at the end of input, -1 out of memory, -2 a
 * NUL byte in it (text has none; the rest of the line would be lost to the string functions). */
static int read_line(char **buf, size_t *size)
{
    size_t len = 0;
    int ch, nul = 0;
    if (!*buf) {
        *size = 256;
        *buf = (char *)malloc(*size);
        if (!*buf)
            return -1;
    }
    while ((ch = getc(stdin)) != EOF) {
        if (len + 2 > *size) {
            char *nb;
            if (*size >= 1u << 30)
                return -1;
            nb = (char *)realloc(*buf, *size * 2);
            if (!nb)
                return -1;
            *buf = nb;
            *size *= 2;
        }
        nul |= ch == '\0';
        (*buf)[len++] = (char)ch;
        if (ch == '\n')
            break;
    }
    (*buf)[len] = '\0';
    if (nul)
        return -2;
    return len > 0;
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
        if (r == -2) {
            snprintf(msg, sizeof msg, "convert: line %lu: a NUL byte (text input has none; binary input is read "
                     "without --text)", lineno + 1);
            break;
        }
        if (r < 0) {
            snprintf(msg, sizeof msg, "convert: line %lu: out of memory (line too long?)", lineno + 1);
            break;
        }
        if (r == 0)
            break;
        lineno++;
        for (p = line; cli_is_space(*p); p++)
            ;
        if (*p == '\0')
            continue; /* blank line */
        if (c->hex_in) {
            if (!cli_parse_hex_code(line, c->dfrom.bits, &code)) {
                quote_line(q, sizeof q, line);
                snprintf(msg, sizeof msg, "convert: line %lu: '%s' is not a hexadecimal %s code (%d bits)",
                         lineno, q, c->dfrom.name, c->dfrom.bits);
                break;
            }
        } else {
            double x;
            if (!cli_parse_double(line, &x)) {
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
        return cli_data_error(&cli_tool, "%s", msg);
    }
    return rc;
}

int cli_convert_main(int argc, char **argv)
{
    conv c;
    const char *from = NULL, *to = NULL, *val;
    int i, r, text = 0, hex = 0, rc;
    uint64_t u;

    memset(&c, 0, sizeof c);
    c.opts.round = MF_ROUND_NEAREST_EVEN;
    c.opts.overflow = MF_OVERFLOW_IEEE;
    c.chunk = CLI_DEFAULT_CHUNK;
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
                return cli_usage_error(&cli_tool, "convert: option '%s' needs a format", a);
            from = val;
        } else if ((r = cli_opt_value(argc, argv, &i, "--to", NULL, &val)) != 0) {
            if (r < 0)
                return cli_usage_error(&cli_tool, "convert: option '%s' needs a format", a);
            to = val;
        } else if ((r = cli_opt_value(argc, argv, &i, "--round", "-r", &val)) != 0) {
            if (r < 0)
                return cli_usage_error(&cli_tool, "convert: option '%s' needs a rounding mode", a);
            if (mf_round_from_name(val, &c.opts.round) != MF_OK)
                return cli_usage_error(&cli_tool, "convert: unknown rounding mode '%s' (rn rna rz ru rd ro sr)", val);
        } else if ((r = cli_opt_value(argc, argv, &i, "--profile", NULL, &val)) != 0) {
            if (r < 0)
                return cli_usage_error(&cli_tool, "convert: option '%s' needs a profile (%s)", a, cli_profile_names());
            if ((rc = cli_parse_profile(&cli_tool, "convert", val, &c.opts.profile)) != 0)
                return rc;
        } else if ((r = cli_opt_value(argc, argv, &i, "--seed", NULL, &val)) != 0) {
            if (r < 0 || !cli_parse_uint(val, UINT64_MAX, &c.opts.seed))
                return cli_usage_error(&cli_tool, "convert: --seed needs an unsigned 64-bit number");
        } else if ((r = cli_opt_value(argc, argv, &i, "--count", NULL, &val)) != 0) {
            if (r < 0 || !cli_parse_uint(val, UINT64_MAX, &c.limit))
                return cli_usage_error(&cli_tool, "convert: --count needs an unsigned number");
        } else if ((r = cli_opt_value(argc, argv, &i, "--chunk", NULL, &val)) != 0) {
            if (r < 0 || !cli_parse_uint(val, CLI_MAX_CHUNK, &u))
                return cli_usage_error(&cli_tool, "convert: --chunk needs a number from 0 to %lu",
                                       (unsigned long)CLI_MAX_CHUNK);
            c.chunk = (size_t)(u + (u & 1)); /* even: e2m1 pairs never straddle two calls */
        } else if (a[0] == '-') {
            return cli_usage_error(&cli_tool, "convert: unknown option '%s'", a);
        } else {
            return cli_usage_error(&cli_tool, "convert: unexpected argument '%s' (input comes from stdin)", a);
        }
    }
    if (hex)
        c.hex_in = c.hex_out = 1;
    if (text || c.hex_in)
        c.text_in = 1;
    if (text || c.hex_out)
        c.text_out = 1;

    if (!to)
        return cli_usage_error(&cli_tool, "convert: --to FORMAT is required");
    if (mf_format_from_name(to, &c.to) != MF_OK)
        return cli_usage_error(&cli_tool, "convert: unknown format '%s'", to);
    if (!from) {
        if (!c.text_in || c.hex_in)
            return cli_usage_error(&cli_tool, "convert: --from FORMAT is required");
        from = "f64";
    }
    if (mf_format_from_name(from, &c.from) != MF_OK)
        return cli_usage_error(&cli_tool, "convert: unknown format '%s'", from);
    c.dfrom = cli_describe(c.from);
    c.dto = cli_describe(c.to);
    /* A call the library refuses whatever the data (a profile without the formats or the mode): said
     * before any input is read, and nothing is written. */
    if ((rc = mf_convert(c.to, NULL, c.from, NULL, 0, &c.opts)) != MF_OK)
        return cli_convert_error(&cli_tool, "convert", rc, c.from, c.to, &c.opts);

    if (c.chunk && !reserve(&c, c.chunk))
        return cli_data_error(&cli_tool, "convert: out of memory");
    rc = c.text_in ? run_text_in(&c) : run_binary_in(&c);
    if (fflush(stdout) != 0 && rc == 0)
        rc = cli_data_error(&cli_tool, "convert: write error: %s", strerror(errno));
    if (c.want_stats) {
        fprintf(stderr, "minifloat: stats: %llu elements, %s -> %s, %s, %s%s%s\n", (unsigned long long)c.done,
                c.dfrom.name, c.dto.name, mf_round_name(c.opts.round),
                c.opts.overflow == MF_OVERFLOW_SATURATE ? "saturate" : "ieee",
                c.opts.profile != MF_PROFILE_DEFAULT ? ", profile " : "",
                c.opts.profile != MF_PROFILE_DEFAULT ? mf_profile_name(c.opts.profile) : "");
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
