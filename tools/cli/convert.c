/* SPDX-License-Identifier: MIT */
/* tools/cli/convert.c - `minifloat convert`: IN (a file or stdin) to OUT (a file or stdout) through
 * mf_convert; .npy (found by its magic), raw arrays or text on either side. */
#define _POSIX_C_SOURCE 200809L /* fileno, isatty */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <minifloat.h>

#include "cli_util.h"
#include "commands.h"
#include "npy.h"

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
    int raw_in, raw_out;   /* --raw-in, --raw-out */
    int npy_in, npy_out;   /* .npy input (its magic), .npy output */
    int npy_hold;          /* .npy output of raw or text input: its shape is known at the end, the data wait */
    size_t chunk;          /* elements per call; 0 = everything in one call */
    uint64_t limit;        /* --count, or UINT64_MAX */
    uint64_t done;         /* elements converted so far: the stochastic stream offset */
    unsigned char *src, *dst;
    size_t cap;            /* capacity of src and dst, in elements (even) */
    FILE *in, *out;
    const char *in_name;   /* IN as given ("-": standard input), for messages */
    unsigned char peek[CLI_NPY_MAGIC_LEN]; /* the first bytes of IN, read to look for the .npy magic */
    size_t npeek, ipeek;   /* how many were read, how many of them the converter has taken */
    unsigned char *npy;    /* .npy output bytes: one chunk's, or (npy_hold) all of them */
    size_t npy_len, npy_cap;
} conv;

/* fread from IN, the peeked bytes first. */
static size_t in_read(conv *c, void *buf, size_t n)
{
    size_t k = c->npeek - c->ipeek;
    if (k > n)
        k = n;
    memcpy(buf, c->peek + c->ipeek, k);
    c->ipeek += k;
    if (k < n)
        k += fread((unsigned char *)buf + k, 1, n - k, c->in);
    return k;
}

static int in_getc(conv *c) { return c->ipeek < c->npeek ? c->peek[c->ipeek++] : getc(c->in); }

/* two codes a byte in arrays (e2m1, binary4p2sf), element 0 in the low nibble */
static int packed4(mf_format f) { return mf_storage_bytes(f, 2) == 1; }

/* Code of element i of an array in mf_convert's layout. */
static uint64_t get_code(mf_format f, const unsigned char *buf, size_t i)
{
    uint64_t u64;
    uint32_t u32;
    uint16_t u16;
    if (packed4(f))
        return (uint64_t)(buf[i / 2] >> (4 * (i & 1))) & 0xFu;
    switch (f) {
    case MF_FP64: memcpy(&u64, buf + 8 * i, 8); return u64;
    case MF_FP32: memcpy(&u32, buf + 4 * i, 4); return u32;
    case MF_FP16:
    case MF_BF16: memcpy(&u16, buf + 2 * i, 2); return u16;
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
    if (packed4(f)) {
        sh = 4u * (unsigned)(i & 1);
        buf[i / 2] = (unsigned char)((buf[i / 2] & ~(0xFu << sh)) | ((code & 0xFu) << sh));
        return;
    }
    switch (f) {
    case MF_FP64: memcpy(buf + 8 * i, &code, 8); break;
    case MF_FP32: memcpy(buf + 4 * i, &u32, 4); break;
    case MF_FP16:
    case MF_BF16: memcpy(buf + 2 * i, &u16, 2); break;
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

/* The n converted elements in c->dst as .npy data: little-endian, one code a byte for the 1-byte and
 * sub-byte formats (cli_npy_elem_size); written out, or kept until the end (npy_hold). */
static int emit_npy(conv *c, size_t n)
{
    const size_t w = cli_npy_elem_size(c->to), base = c->npy_hold ? c->npy_len : 0;
    size_t i, k, need;
    unsigned char *p;
    if (n > (SIZE_MAX - base) / w)
        return cli_data_error(&cli_tool, "convert: out of memory");
    need = base + n * w;
    if (need > c->npy_cap) {
        size_t cap = c->npy_cap > need / 2 ? (c->npy_cap > SIZE_MAX / 2 ? need : 2 * c->npy_cap) : need;
        unsigned char *nb = (unsigned char *)realloc(c->npy, cap);
        if (!nb)
            return cli_data_error(&cli_tool, "convert: out of memory (.npy output of %lu bytes)", (unsigned long)need);
        c->npy = nb;
        c->npy_cap = cap;
    }
    p = c->npy + base;
    for (i = 0; i < n; i++) {
        uint64_t code = get_code(c->to, c->dst, i);
        for (k = 0; k < w; k++)
            *p++ = (unsigned char)(code >> (8 * k));
    }
    if (c->npy_hold) {
        c->npy_len = need;
        return 0;
    }
    if (fwrite(c->npy, 1, n * w, c->out) != n * w)
        return cli_data_error(&cli_tool, "convert: write error: %s", strerror(errno));
    return 0;
}

/* Convert the n elements at src (c->from, mf_convert's layout) and write them out. */
static int flush_chunk(conv *c, const unsigned char *src, size_t n)
{
    mf_stats st;
    size_t i, bytes = mf_storage_bytes(c->to, n);
    int rc;
    if (n == 0)
        return 0;
    memset(c->dst, 0, bytes); /* e2m1 with odd n: the last high nibble stays 0 */
    c->opts.stats = &st;
    c->opts.sr_offset = c->done;
    rc = mf_convert(c->to, c->dst, c->from, src, n, &c->opts);
    if (rc != MF_OK)
        return cli_convert_error(&cli_tool, "convert", rc, c->from, c->to, &c->opts);
    c->done += n;
    c->total.overflow += st.overflow;
    c->total.underflow += st.underflow;
    c->total.subnormal += st.subnormal;
    c->total.nan += st.nan;
    c->total.inexact += st.inexact;
    if (c->npy_out)
        return emit_npy(c, n);
    if (!c->text_out) {
        if (fwrite(c->dst, 1, bytes, c->out) != bytes)
            return cli_data_error(&cli_tool, "convert: write error: %s", strerror(errno));
        return 0;
    }
    for (i = 0; i < n; i++) {
        uint64_t code = get_code(c->to, c->dst, i);
        if (c->hex_out) {
            fprintf(c->out, "0x%0*llx\n", cli_hex_digits(c->dto.bits), (unsigned long long)code);
        } else {
            char buf[64];
            cli_format_value(buf, sizeof buf, decode(c->to, code), c->to == MF_FP64 ? 17 : 9);
            fprintf(c->out, "%s\n", buf);
        }
    }
    if (ferror(c->out))
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
    size_t w = packed4(c->from) ? 1 : mf_storage_bytes(c->from, 1); /* bytes per read unit */
    size_t per = packed4(c->from) ? 2 : 1;                          /* elements per unit */
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
                r = in_read(c, c->src + have, room);
                have += r;
                if (r < room)
                    break;
            }
            if (ferror(c->in))
                return cli_data_error(&cli_tool, "convert: read error: %s", strerror(errno));
            n = have / w * per;
            if ((uint64_t)n > left)
                n = (size_t)left;
            if ((rc = flush_chunk(c, c->src, n)) != 0)
                return rc;
            if (have % w && (uint64_t)(have / w * per) <= left)
                return partial_element(c, have % w, w);
            return 0;
        }
        if ((uint64_t)want > left)
            want = (size_t)left;
        wbytes = mf_storage_bytes(c->from, want);
        got = in_read(c, c->src, wbytes);
        if (ferror(c->in))
            return cli_data_error(&cli_tool, "convert: read error: %s", strerror(errno));
        n = got / w * per;
        if (n > want)
            n = want;
        if ((rc = flush_chunk(c, c->src, n)) != 0)
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
static int read_line(conv *c, char **buf, size_t *size)
{
    size_t len = 0;
    int ch, nul = 0;
    if (!*buf) {
        *size = 256;
        *buf = (char *)malloc(*size);
        if (!*buf)
            return -1;
    }
    while ((ch = in_getc(c)) != EOF) {
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

/* Quote at most 60 characters of a bad input word. */
static void quote_word(char *out, size_t size, const char *word)
{
    if (strlen(word) > 60)
        snprintf(out, size, "%.57s...", word);
    else
        snprintf(out, size, "%s", word);
}

/* One word of text input into *code (a code of --from): 1, or 0 with the message in msg. */
static int parse_word(conv *c, const char *word, unsigned long lineno, uint64_t *code, char *msg, size_t msize)
{
    char q[64];
    double x;
    if (c->hex_in) {
        if (cli_parse_hex_code(word, c->dfrom.bits, code))
            return 1;
        quote_word(q, sizeof q, word);
        snprintf(msg, msize, "convert: line %lu: '%s' is not a hexadecimal %s code (%d bits)", lineno, q,
                 c->dfrom.name, c->dfrom.bits);
        return 0;
    }
    if (!cli_parse_double(word, &x)) {
        quote_word(q, sizeof q, word);
        snprintf(msg, msize, "convert: line %lu: '%s' is not a number", lineno, q);
        return 0;
    }
    /* f64 keeps the value; any other --from rounds it once, rn, IEEE overflow */
    *code = c->from == MF_FP64 ? f64_bits(x) : mf_from_f64(c->from, x, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0);
    return 1;
}

/* Text input: numbers (or, with --hex-in, codes of --from) separated by any blanks and line breaks. On
 * a bad word the words before it are converted and written first, then the error is reported. */
static int run_text_in(conv *c)
{
    char *line = NULL, msg[160];
    size_t size = 0, k = 0;
    unsigned long lineno = 0;
    int r, rc = 0;
    msg[0] = '\0';
    while (!msg[0] && rc == 0 && c->done + k < c->limit) {
        char *p;
        r = read_line(c, &line, &size);
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
        for (p = line; c->done + k < c->limit;) {
            char *word, end;
            uint64_t code;
            while (cli_is_space(*p))
                p++;
            if (*p == '\0')
                break;
            for (word = p; *p && !cli_is_space(*p); p++)
                ;
            end = *p;
            *p = '\0';
            if (!parse_word(c, word, lineno, &code, msg, sizeof msg))
                break;
            *p = end;
            if (!reserve(c, k + 1)) {
                snprintf(msg, sizeof msg, "convert: out of memory");
                break;
            }
            put_code(c->from, c->src, k, code);
            k++;
            if (c->chunk && k == c->chunk) {
                if ((rc = flush_chunk(c, c->src, k)) != 0)
                    break;
                k = 0;
            }
        }
    }
    free(line);
    if (rc != 0)
        return rc;
    if (!msg[0] && ferror(c->in))
        snprintf(msg, sizeof msg, "convert: read error: %s", strerror(errno));
    rc = flush_chunk(c, c->src, k);
    if (msg[0]) {
        fflush(c->out);
        return cli_data_error(&cli_tool, "%s", msg);
    }
    return rc;
}

/* .npy input, already read whole (a): converted in chunks; e2m1's one code a byte packed two a byte first,
 * into mf_convert's layout. */
static int run_npy_in(conv *c, const cli_npy_array *a)
{
    const unsigned char *src = (const unsigned char *)a->data;
    unsigned char *packed = NULL;
    size_t off, step = c->chunk ? c->chunk : a->count;
    int rc = 0;
    if (a->count == 0)
        return 0;
    if (!reserve(c, step))
        return cli_data_error(&cli_tool, "convert: out of memory");
    if (packed4(c->from)) {
        size_t i;
        packed = (unsigned char *)calloc(mf_storage_bytes(c->from, a->count), 1);
        if (!packed)
            return cli_data_error(&cli_tool, "convert: out of memory");
        for (i = 0; i < a->count; i++)
            packed[i / 2] = (unsigned char)(packed[i / 2] | (src[i] & 0xFu) << (4 * (i & 1)));
        src = packed;
    }
    for (off = 0; off < a->count && rc == 0; off += step) {
        size_t n = a->count - off < step ? a->count - off : step;
        rc = flush_chunk(c, src + mf_storage_bytes(c->from, off), n); /* step is even: off is a whole byte */
    }
    free(packed);
    return rc;
}

const char cli_convert_usage[] =
    "usage: minifloat convert [options] FORMAT [IN [OUT]]\n"
    "       minifloat convert --from FORMAT --to FORMAT [options] [IN [OUT]]\n"
    "\n"
    "Rounds each element of IN into FORMAT (--to) with mf_convert and writes it to OUT. IN and OUT are\n"
    "files or '-', standard input and output (the default); an OUT file appears only when all went well.\n"
    "\n"
    "input (its first bytes decide)\n"
    "  .npy               a file starting with \"\\x93NUMPY\": float64/32/16, ml_dtypes bfloat16, float8,\n"
    "                     float6 and float4 by name, or '<V1'/'|u1' codes with --from naming the format;\n"
    "                     a bad or truncated header, big-endian or Fortran-order data and other dtypes\n"
    "                     are refused with a message that names the problem (exit 1)\n"
    "  raw                anything else: --from elements in mf_convert's layout, host byte order\n"
    "                     (e2m1: two codes a byte, element 0 in the low nibble)\n"
    "  text               with --text or --text-in: numbers separated by any blanks or line breaks\n"
    "output\n"
    "  .npy               for a .npy input, an OUT ending in .npy, or --npy-out: the same shape (raw\n"
    "                     and text input: one dimension), dtype '<f8', '<f4', '<f2' or the ml_dtypes\n"
    "                     name ('bfloat16', 'float8_e4m3fn', 'float4_e2m1fn', ...: one code a byte)\n"
    "  raw                otherwise, or with --raw-out\n"
    "  text               with --text or --text-out: one number a line\n"
    "\n"
    "  --from FORMAT      input format: raw input needs it; text defaults to f64; a .npy names its own\n"
    "  --to FORMAT        output format (instead of FORMAT before IN)\n"
    "  -r, --round MODE   rounding mode: rn (default) rna rz ru rd ro sr\n"
    "  --sat, --saturate  overflow saturates to +-max (default: IEEE overflow)\n"
    "  --propagate        finite overflow saturates, infinities stay (P3109's SatPropagate)\n"
    "  --seed S           Philox seed of -r sr; one stream over the whole input (default 0)\n"
    "  --text             text in and out (--text-in, --text-out: one side only); an input number is\n"
    "                     rounded (rn) into --from first, unless --from is f64\n"
    "  --hex              codes in hexadecimal instead of numbers (--hex-in, --hex-out: one side)\n"
    "  --raw-in           read IN as raw elements even where it starts like a .npy file\n"
    "  --raw-out          write raw elements whatever the input; --npy-out: write a .npy file\n"
    "  --count N          stop after N elements (not with .npy input: its shape says how many)\n"
    "  --chunk N          elements per conversion call (default 8192, rounded up to even;\n"
    "                     0 = the whole input in one call)\n"
    "  --stats            print the event counts to stderr at the end\n"
    "  --profile NAME     convert as system NAME does, NaN codes included (docs/compat.md); a\n"
    "                     format or mode that system lacks is refused (exit 1)\n"
    "\n"
    "formats: %s, and f64\n"
    "exit status: 0 success, 1 data or I/O error, 2 usage error\n";

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int is_dash(const char *path) { return strcmp(path, "-") == 0; }

/* IN opened and its first bytes read: is it a .npy file? 0, or an error (exit status). */
static int open_input(conv *c, const char *path)
{
    c->in_name = path;
    c->in = is_dash(path) ? stdin : fopen(path, "rb");
    if (!c->in)
        return cli_data_error(&cli_tool, "convert: %s: cannot open: %s", path, strerror(errno));
    /* hex codes and a terminal (someone typing) are never .npy: no need to wait for six bytes */
    if (c->raw_in || c->hex_in || isatty(fileno(c->in)))
        return 0;
    c->npeek = fread(c->peek, 1, sizeof c->peek, c->in);
    if (ferror(c->in))
        return cli_data_error(&cli_tool, "convert: %s: read error: %s", path, strerror(errno));
    c->npy_in = c->npeek == CLI_NPY_MAGIC_LEN && memcmp(c->peek, CLI_NPY_MAGIC, CLI_NPY_MAGIC_LEN) == 0;
    if (!c->npy_in && !c->text_in && ends_with(path, ".npy"))
        return cli_data_error(&cli_tool,
                              "convert: %s: not a .npy file: it does not start with \"\\x93NUMPY\" (--raw-in reads "
                              "it as raw elements)",
                              path);
    return 0;
}

/* The .npy input read whole into *a; from_opt: --from, or NULL. 0, or an error (exit status). */
static int load_npy(conv *c, const char *from_opt, cli_npy_array *a)
{
    char err[CLI_NPY_ERR_SIZE];
    const mf_format hint = from_opt ? c->from : CLI_NPY_NO_HINT;
    int rc = cli_npy_read_stream(c->in, c->peek, c->npeek, hint, a, err, sizeof err);
    c->ipeek = c->npeek;
    if (rc == CLI_NPY_E_AMBIGUOUS)
        return cli_data_error(&cli_tool, "convert: %s: %s with --from, e.g. --from e4m3 for float8_e4m3fn", c->in_name,
                              err);
    if (rc != CLI_NPY_OK)
        return cli_data_error(&cli_tool, "convert: %s: %s", c->in_name, err);
    if (from_opt && a->format != c->from) { /* the file named its own type: the option had no say */
        rc = cli_usage_error(&cli_tool, "convert: --from %s does not apply: %s's dtype '%s' is %s (--from is for "
                             "'<V1' and '|u1' files)",
                             from_opt, c->in_name, a->descr, cli_npy_type_name(a->format));
        cli_npy_free(a);
        return rc;
    }
    c->from = a->format;
    return 0;
}

/* Everything after the options: open, convert, close. OUT is a file (written under a temporary name and
 * renamed at the end) or standard output. */
static int run(conv *c, const char *from_opt, const char *in_path, const char *out_path)
{
    cli_npy_array a;
    cli_out file;
    int rc, to_file = !is_dash(out_path);

    memset(&a, 0, sizeof a);
    if ((rc = open_input(c, in_path)) != 0)
        return rc;
    if (c->npy_in) {
        if (c->limit != UINT64_MAX)
            return cli_usage_error(&cli_tool, "convert: --count does not apply to a .npy input (its shape says how "
                                   "many elements)");
        if ((rc = load_npy(c, from_opt, &a)) != 0)
            return rc;
    } else if (!from_opt) {
        if (!c->text_in)
            return cli_usage_error(&cli_tool, "convert: --from FORMAT is required (raw input; a .npy file names its "
                                   "own)");
        c->from = MF_FP64;
    }
    if (!c->text_out && !c->raw_out && (c->npy_in || ends_with(out_path, ".npy")))
        c->npy_out = 1;
    c->dfrom = cli_describe(c->from);
    c->dto = cli_describe(c->to);
    /* A call the library refuses whatever the data (a profile without the formats or the mode): said
     * before anything is written. */
    if ((rc = mf_convert(c->to, NULL, c->from, NULL, 0, &c->opts)) != MF_OK) {
        cli_npy_free(&a);
        return cli_convert_error(&cli_tool, "convert", rc, c->from, c->to, &c->opts);
    }
    if (c->chunk && !c->npy_in && !reserve(c, c->chunk)) {
        cli_npy_free(&a);
        return cli_data_error(&cli_tool, "convert: out of memory");
    }
    c->out = stdout;
    if (to_file) {
        if (cli_out_open(&file, out_path) != 0) {
            cli_npy_free(&a);
            return cli_data_error(&cli_tool, "convert: %s: cannot create: %s", out_path, strerror(errno));
        }
        c->out = file.f;
    }
    c->npy_hold = c->npy_out && !c->npy_in;
    if (c->npy_out && c->npy_in && cli_npy_write_header(c->out, c->to, a.shape, a.ndim) != 0)
        rc = cli_data_error(&cli_tool, "convert: write error: %s", strerror(errno));
    if (rc == 0)
        rc = c->npy_in ? run_npy_in(c, &a) : c->text_in ? run_text_in(c) : run_binary_in(c);
    if (rc == 0 && c->npy_hold) { /* raw or text input: one dimension, as many as were converted */
        size_t n = (size_t)c->done;
        if (cli_npy_write_header(c->out, c->to, &n, 1) != 0 ||
            (c->npy_len && fwrite(c->npy, 1, c->npy_len, c->out) != c->npy_len))
            rc = cli_data_error(&cli_tool, "convert: write error: %s", strerror(errno));
    }
    if (fflush(c->out) != 0 && rc == 0)
        rc = cli_data_error(&cli_tool, "convert: write error: %s", strerror(errno));
    if (to_file) {
        if (rc != 0)
            cli_out_abort(&file);
        else if (cli_out_commit(&file) != 0)
            rc = cli_data_error(&cli_tool, "convert: %s: write error: %s", out_path, strerror(errno));
    }
    cli_npy_free(&a);
    return rc;
}

static void print_stats(const conv *c)
{
    fprintf(stderr, "minifloat: stats: %llu elements, %s -> %s, %s, %s%s%s\n", (unsigned long long)c->done,
            c->dfrom.name, c->dto.name, mf_round_name(c->opts.round),
            c->opts.overflow == MF_OVERFLOW_SATURATE ? "saturate" : mf_overflow_name(c->opts.overflow),
            c->opts.profile != MF_PROFILE_DEFAULT ? ", profile " : "",
            c->opts.profile != MF_PROFILE_DEFAULT ? mf_profile_name(c->opts.profile) : "");
    fprintf(stderr, "  overflow   %llu\n", (unsigned long long)c->total.overflow);
    fprintf(stderr, "  underflow  %llu\n", (unsigned long long)c->total.underflow);
    fprintf(stderr, "  subnormal  %llu\n", (unsigned long long)c->total.subnormal);
    fprintf(stderr, "  nan        %llu\n", (unsigned long long)c->total.nan);
    fprintf(stderr, "  inexact    %llu\n", (unsigned long long)c->total.inexact);
}

int cli_convert_main(int argc, char **argv)
{
    conv c;
    const char *from = NULL, *to = NULL, *val, *pos[3];
    int i, r, text = 0, hex = 0, rc, npos = 0, k = 0, no_more = 0;
    uint64_t u;

    memset(&c, 0, sizeof c);
    c.opts.round = MF_ROUND_NEAREST_EVEN;
    c.opts.overflow = MF_OVERFLOW_IEEE;
    c.chunk = CLI_DEFAULT_CHUNK;
    c.limit = UINT64_MAX;

    for (i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (no_more || a[0] != '-' || a[1] == '\0') { /* FORMAT, IN, OUT; "-" is standard input or output */
            if (npos == 3)
                return cli_usage_error(&cli_tool, "convert: unexpected argument '%s' (FORMAT, IN and OUT are given "
                                       "already)", a);
            pos[npos++] = a;
        } else if (strcmp(a, "--") == 0) {
            no_more = 1;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            char formats[4096];
            printf(cli_convert_usage, cli_format_tags(formats, sizeof formats, NULL, " ", " "));
            return 0;
        } else if (strcmp(a, "--propagate") == 0) {
            c.opts.overflow = MF_OVERFLOW_PROPAGATE;
        } else if (strcmp(a, "--sat") == 0 || strcmp(a, "--saturate") == 0) {
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
        } else if (strcmp(a, "--raw-in") == 0) {
            c.raw_in = 1;
        } else if (strcmp(a, "--raw-out") == 0) {
            c.raw_out = 1;
        } else if (strcmp(a, "--npy-out") == 0) {
            c.npy_out = 1;
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
        } else {
            return cli_usage_error(&cli_tool, "convert: unknown option '%s'", a);
        }
    }
    if (hex)
        c.hex_in = c.hex_out = 1;
    if (text || c.hex_in)
        c.text_in = 1;
    if (text || c.hex_out)
        c.text_out = 1;
    if (c.raw_in && c.text_in)
        return cli_usage_error(&cli_tool, "convert: --raw-in and text input (--text, --text-in, --hex, --hex-in) "
                               "exclude each other");
    if (c.raw_out + c.npy_out + c.text_out > 1)
        return cli_usage_error(&cli_tool, "convert: say one kind of output: --raw-out, --npy-out or text (--text, "
                               "--text-out, --hex, --hex-out)");

    if (!to) {
        if (npos == 0)
            return cli_usage_error(&cli_tool, "convert: --to FORMAT is required (or FORMAT before IN)");
        to = pos[k++];
    }
    if (npos - k > 2)
        return cli_usage_error(&cli_tool, "convert: unexpected argument '%s' (IN and OUT are given already)",
                               pos[k + 2]);
    if (mf_format_from_name(to, &c.to) != MF_OK)
        return cli_usage_error(&cli_tool, "convert: unknown format '%s'", to);
    if (!from && c.hex_in)
        return cli_usage_error(&cli_tool, "convert: --from FORMAT is required (the format of the hexadecimal codes)");
    if (from && mf_format_from_name(from, &c.from) != MF_OK)
        return cli_usage_error(&cli_tool, "convert: unknown format '%s'", from);

    rc = run(&c, from, npos > k ? pos[k] : "-", npos > k + 1 ? pos[k + 1] : "-");
    if (c.in && c.in != stdin)
        fclose(c.in);
    if (c.want_stats && c.dto.name) /* the formats were settled: the counts so far, as before an error */
        print_stats(&c);
    free(c.src);
    free(c.dst);
    free(c.npy);
    return rc;
}
