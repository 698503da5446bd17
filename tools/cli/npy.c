/* SPDX-License-Identifier: MIT */
/* tools/cli/npy.c - see npy.h. Every length read from the file is checked before it is used: the
 * reader must survive any input (fuzz/fuzz_npy.c). */
#define _POSIX_C_SOURCE 200809L /* fileno, fstat */

#include "npy.h"

#include "cli_util.h"

#include <errno.h>
#include <stddef.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 3, 4)))
#endif
static void set_err(char *err, size_t size, const char *fmt, ...)
{
    va_list ap;
    if (!err || size == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, size, fmt, ap);
    va_end(ap);
}

const char *cli_npy_type_name(mf_format f)
{
    const char *t = mf_format_dtype(f);
    return t ? t : "unknown";
}

/* Formats a '<V1' / '|u1' file may hold: codes of at most 8 bits */
static int one_byte(mf_format f)
{
    mf_format_desc d;
    return mf_format_describe(f, &d) == MF_OK && d.bits <= 8;
}

static void shape_str(const size_t *shape, int ndim, char *buf, size_t size)
{
    size_t k = 0;
    int i;
    if (size == 0)
        return;
    buf[0] = '\0';
#define CLI_PUT(...)                                                          \
    do {                                                                      \
        int w_ = snprintf(buf + k, size - k, __VA_ARGS__);                    \
        if (w_ < 0 || (size_t)w_ >= size - k)                                 \
            goto full;                                                        \
        k += (size_t)w_;                                                      \
    } while (0)
    CLI_PUT("(");
    for (i = 0; i < ndim; i++)
        CLI_PUT("%s%llu", i ? ", " : "", (unsigned long long)shape[i]);
    CLI_PUT(ndim == 1 ? ",)" : ")");
#undef CLI_PUT
    return;
full:
    if (size >= 4)
        memcpy(buf + size - 4, "...", 4);
}

void cli_npy_shape_str(const cli_npy_array *a, char *buf, size_t size) { shape_str(a->shape, a->ndim, buf, size); }

void cli_npy_free(cli_npy_array *a)
{
    if (!a)
        return;
    free(a->data);
    a->data = NULL;
}

/* ---- preamble: magic, version, header length ------------------------------------------------ */

/* Parse the first len bytes (len may be short). On success *hstart is where the header text
 * begins and *hlen its length. */
static int parse_preamble(const unsigned char *b, size_t len, int *version, size_t *hstart, size_t *hlen, char *err,
                          size_t esize)
{
    size_t m = len < 6 ? len : 6;
    if (memcmp(b, magic, m) != 0 || len == 0) {
        set_err(err, esize, "not a .npy file: it does not start with \"\\x93NUMPY\"");
        return CLI_NPY_E_MAGIC;
    }
    if (len < 8) {
        set_err(err, esize, "truncated: the file ends inside the .npy preamble (%lu bytes)", (unsigned long)len);
        return CLI_NPY_E_TRUNCATED;
    }
    if (b[6] < 1 || b[6] > 3 || b[7] != 0) {
        set_err(err, esize, "unsupported .npy format version %u.%u (1.0, 2.0 and 3.0 are read)", b[6], b[7]);
        return CLI_NPY_E_VERSION;
    }
    *version = b[6];
    if (b[6] == 1) {
        if (len < 10) {
            set_err(err, esize, "truncated: the file ends inside the .npy preamble (%lu bytes)", (unsigned long)len);
            return CLI_NPY_E_TRUNCATED;
        }
        *hlen = (size_t)b[8] | (size_t)b[9] << 8;
        *hstart = 10;
    } else {
        uint32_t n;
        if (len < 12) {
            set_err(err, esize, "truncated: the file ends inside the .npy preamble (%lu bytes)", (unsigned long)len);
            return CLI_NPY_E_TRUNCATED;
        }
        n = (uint32_t)b[8] | (uint32_t)b[9] << 8 | (uint32_t)b[10] << 16 | (uint32_t)b[11] << 24;
        if (n > CLI_NPY_MAX_HEADER) {
            set_err(err, esize, "bad header: its length %lu is over the limit of %u bytes", (unsigned long)n,
                    CLI_NPY_MAX_HEADER);
            return CLI_NPY_E_HEADER;
        }
        *hlen = n;
        *hstart = 12;
    }
    return CLI_NPY_OK;
}

/* ---- header: the repr of a Python dict --------------------------------------------------------- */

typedef struct {
    const char *s, *p, *end;
    char *err;
    size_t esize;
} lexer;

static int is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static void skip_ws(lexer *x)
{
    while (x->p < x->end && is_ws(*x->p))
        x->p++;
}
static unsigned long pos(const lexer *x) { return (unsigned long)(x->p - x->s); }

static int syntax(lexer *x, const char *what)
{
    if (x->p >= x->end)
        set_err(x->err, x->esize, "bad header: %s, but the header ends (byte %lu)", what, pos(x));
    else if ((unsigned char)*x->p >= 0x20 && (unsigned char)*x->p < 0x7f)
        set_err(x->err, x->esize, "bad header: %s at byte %lu, found '%c'", what, pos(x), *x->p);
    else
        set_err(x->err, x->esize, "bad header: %s at byte %lu, found byte 0x%02x", what, pos(x),
                (unsigned)(unsigned char)*x->p);
    return CLI_NPY_E_HEADER;
}

/* A quoted string without escapes into out[0..cap); longer strings are cut (*cut set). */
static int lex_string(lexer *x, char *out, size_t cap, int *cut)
{
    char q;
    size_t k = 0;
    *cut = 0;
    if (x->p >= x->end || (*x->p != '\'' && *x->p != '"'))
        return syntax(x, "expected a quoted string");
    q = *x->p++;
    while (x->p < x->end && *x->p != q) {
        if (*x->p == '\\' || *x->p == '\n')
            return syntax(x, "unexpected character in a string");
        if (k + 1 < cap)
            out[k++] = *x->p;
        else
            *cut = 1;
        x->p++;
    }
    if (x->p >= x->end)
        return syntax(x, "unterminated string");
    x->p++;
    out[k] = '\0';
    return CLI_NPY_OK;
}

static int lex_word(lexer *x, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(x->end - x->p) >= n && memcmp(x->p, w, n) == 0 &&
        ((size_t)(x->end - x->p) == n || !(x->p[n] == '_' || (x->p[n] >= 'a' && x->p[n] <= 'z') ||
                                            (x->p[n] >= 'A' && x->p[n] <= 'Z') || (x->p[n] >= '0' && x->p[n] <= '9')))) {
        x->p += n;
        return 1;
    }
    return 0;
}

/* (d0, d1, ...) with Python's tuple syntax: "()", "(3,)", "(2, 3)", optional trailing comma. */
static int lex_shape(lexer *x, size_t *shape, int *ndim)
{
    int n = 0, trailing_comma = 0;
    if (x->p >= x->end || *x->p != '(') {
        if (x->p < x->end && *x->p == '[')
            return syntax(x, "expected the shape as a tuple '(...)', not a list");
        return syntax(x, "expected the shape as a tuple '(...)'");
    }
    x->p++;
    for (;;) {
        unsigned long long v = 0;
        int digits = 0;
        skip_ws(x);
        if (x->p < x->end && *x->p == ')')
            break;
        if (x->p < x->end && *x->p == '-') {
            set_err(x->err, x->esize, "bad shape: a negative dimension at byte %lu", pos(x));
            return CLI_NPY_E_SHAPE;
        }
        while (x->p < x->end && *x->p >= '0' && *x->p <= '9') {
            unsigned d = (unsigned)(*x->p - '0');
            if (v > (0x7FFFFFFFFFFFFFFFull - d) / 10) {
                set_err(x->err, x->esize, "bad shape: dimension %d is larger than 2^63-1", n);
                return CLI_NPY_E_SHAPE;
            }
            v = v * 10 + d;
            digits++;
            x->p++;
        }
        if (digits == 0)
            return syntax(x, "expected a dimension (an integer)");
        if (x->p < x->end && (*x->p == 'L' || *x->p == 'l')) /* Python 2 long, as old numpy wrote it */
            x->p++;
        if (n == CLI_NPY_MAX_DIMS) {
            set_err(x->err, x->esize, "bad shape: more than %d dimensions", CLI_NPY_MAX_DIMS);
            return CLI_NPY_E_SHAPE;
        }
        if (v > (unsigned long long)SIZE_MAX) {
            set_err(x->err, x->esize, "bad shape: dimension %d (%llu) does not fit in memory", n, v);
            return CLI_NPY_E_SHAPE;
        }
        shape[n++] = (size_t)v;
        skip_ws(x);
        trailing_comma = 0;
        if (x->p < x->end && *x->p == ',') {
            x->p++;
            trailing_comma = 1;
            continue;
        }
        if (x->p < x->end && *x->p == ')')
            break;
        return syntax(x, "expected ',' or ')' in the shape");
    }
    if (n == 1 && !trailing_comma) /* "(3)" is the integer 3 to Python, and numpy refuses it */
        return syntax(x, "a one-dimensional shape is written '(n,)'");
    x->p++; /* ')' */
    *ndim = n;
    return CLI_NPY_OK;
}

/* Bytes of one element in a .npy file: ml_dtypes keeps the sub-byte formats one code a byte. */
static size_t npy_elem_size(mf_format f)
{
    mf_format_desc d;
    if (mf_format_describe(f, &d) != MF_OK)
        return 0;
    return d.bits <= 8 ? 1 : (size_t)d.bits / 8;
}

/* A descr that is a dtype name (mf_format_dtype: "bfloat16", "float8_e4m3fn", "float32", ...): 1 and the
 * format, or 0. Matched exactly, as numpy.dtype(name) would; aliases ("half", "e4m3") are not dtypes. */
static int dtype_name(const char *d, mf_format *fmt, size_t *size)
{
    int k;
    for (k = 0; k < MF_FORMAT_COUNT; k++) {
        const char *t = mf_format_dtype((mf_format)k);
        if (t && strcmp(t, d) == 0) {
            *fmt = (mf_format)k;
            *size = npy_elem_size(*fmt);
            return 1;
        }
    }
    return 0;
}

/* The element type of a descr string; CLI_NPY_OK or an error with a message. */
static int classify_descr(const char *d, int cut, mf_format hint, mf_format *fmt, size_t *size, char *err,
                          size_t esize)
{
    static const char supported[] = "float64 '<f8', float32 '<f4', float16 '<f2', ml_dtypes bfloat16 '<V2', "
                                    "float8_e5m2 '<f1', the 1-byte ml_dtypes types '<V1' and ml_dtypes names "
                                    "('bfloat16', 'float8_e4m3fn', ...)";
    char order = d[0];
    const char *t = d + 1;
    if (cut || d[0] == '\0') {
        set_err(err, esize, "unsupported dtype '%s%s': this reader takes %s", d, cut ? "..." : "", supported);
        return CLI_NPY_E_DTYPE;
    }
    if (order != '<' && order != '>' && order != '|' && order != '=') {
        order = '=';
        t = d;
    }
    if (order == '=' && t == d && dtype_name(d, fmt, size)) /* 'bfloat16', as cli_npy_write_header writes */
        return CLI_NPY_OK;
    if (strcmp(t, "f1") == 0 || strcmp(t, "V1") == 0 || strcmp(t, "u1") == 0) {
        if (strcmp(t, "f1") == 0) { /* float8_e5m2 is the one ml_dtypes type with kind 'f' */
            *fmt = MF_FP8_E5M2;
        } else {
            mf_format_desc dd;
            if (hint == CLI_NPY_NO_HINT || mf_format_describe(hint, &dd) != MF_OK || dd.bits > 8) {
                char tags[4096];
                set_err(err, esize,
                        "ambiguous dtype '%s': the file holds 1-byte codes but does not say which format "
                        "(ml_dtypes writes '<V1' for float8_e4m3fn, float8_e4m3fnuz, float4_e2m1fn, ...); "
                        "say which format it is (%s)",
                        d, cli_format_tags(tags, sizeof tags, one_byte, ", ", " or "));
                return CLI_NPY_E_AMBIGUOUS;
            }
            *fmt = hint;
        }
        *size = 1;
        return CLI_NPY_OK;
    }
    if (strcmp(t, "f8") == 0 || strcmp(t, "f4") == 0 || strcmp(t, "f2") == 0 || strcmp(t, "V2") == 0) {
        if (order == '>') {
            set_err(err, esize,
                    "big-endian data (dtype '%s') is not supported: save it little-endian, e.g. "
                    "np.save(f, a.astype(a.dtype.newbyteorder('<')))",
                    d);
            return CLI_NPY_E_ENDIAN;
        }
        *fmt = t[0] == 'V' ? MF_BF16 : t[1] == '8' ? MF_FP64 : t[1] == '4' ? MF_FP32 : MF_FP16;
        *size = (size_t)(t[1] - '0');
        return CLI_NPY_OK;
    }
    set_err(err, esize, "unsupported dtype '%s': this reader takes %s", d, supported);
    return CLI_NPY_E_DTYPE;
}

/* Parse the header text into a (everything but data and data_offset). */
static int parse_header(const char *h, size_t hlen, int version, mf_format hint, cli_npy_array *a, char *err,
                        size_t esize)
{
    lexer x;
    int have_descr = 0, have_fortran = 0, have_shape = 0, fortran = 0, rc, cut_descr = 0, i, any_zero = 0;
    size_t k, count = 1;
    char descr[32]; /* "float8_e4m3b11fnuz" is the longest a file may name */

    x.s = x.p = h;
    x.end = h + hlen;
    x.err = err;
    x.esize = esize;
    for (k = 0; k < hlen; k++) {
        unsigned char c = (unsigned char)h[k];
        if (c == 0 || (c >= 0x80 && version < 3) || (c < 0x20 && !is_ws((char)c))) {
            set_err(err, esize, "bad header: byte %lu is 0x%02x (the header is %s text)", (unsigned long)k, c,
                    version < 3 ? "ASCII" : "UTF-8");
            return CLI_NPY_E_HEADER;
        }
    }
    skip_ws(&x);
    if (x.p >= x.end || *x.p != '{')
        return syntax(&x, "expected '{' (the header is a Python dict)");
    x.p++;
    for (;;) {
        char key[32];
        int cut;
        skip_ws(&x);
        if (x.p < x.end && *x.p == '}')
            break;
        if ((rc = lex_string(&x, key, sizeof key, &cut)) != CLI_NPY_OK)
            return rc;
        skip_ws(&x);
        if (x.p >= x.end || *x.p != ':')
            return syntax(&x, "expected ':' after a key");
        x.p++;
        skip_ws(&x);
        if (!cut && strcmp(key, "descr") == 0) {
            if (have_descr++)
                return set_err(err, esize, "bad header: the key 'descr' appears twice"), CLI_NPY_E_HEADER;
            if (x.p < x.end && (*x.p == '[' || *x.p == '{')) {
                set_err(err, esize, "unsupported dtype: a structured dtype (descr is a %s); only plain "
                                    "floating-point arrays are read",
                        *x.p == '[' ? "list of fields" : "dict");
                return CLI_NPY_E_DTYPE;
            }
            if ((rc = lex_string(&x, descr, sizeof descr, &cut_descr)) != CLI_NPY_OK)
                return rc;
        } else if (!cut && strcmp(key, "fortran_order") == 0) {
            if (have_fortran++)
                return set_err(err, esize, "bad header: the key 'fortran_order' appears twice"), CLI_NPY_E_HEADER;
            if (lex_word(&x, "True"))
                fortran = 1;
            else if (lex_word(&x, "False"))
                fortran = 0;
            else
                return syntax(&x, "expected True or False for 'fortran_order'");
        } else if (!cut && strcmp(key, "shape") == 0) {
            if (have_shape++)
                return set_err(err, esize, "bad header: the key 'shape' appears twice"), CLI_NPY_E_HEADER;
            if ((rc = lex_shape(&x, a->shape, &a->ndim)) != CLI_NPY_OK)
                return rc;
        } else {
            set_err(err, esize, "bad header: unexpected key '%s%s' (numpy writes only 'descr', 'fortran_order' "
                                "and 'shape')",
                    key, cut ? "..." : "");
            return CLI_NPY_E_HEADER;
        }
        skip_ws(&x);
        if (x.p < x.end && *x.p == ',') {
            x.p++;
            continue;
        }
        if (x.p < x.end && *x.p == '}')
            break;
        return syntax(&x, "expected ',' or '}' after a value");
    }
    x.p++; /* '}' */
    skip_ws(&x);
    if (x.p != x.end)
        return syntax(&x, "unexpected text after the dict");
    if (!have_descr || !have_fortran || !have_shape) {
        set_err(err, esize, "bad header: the key '%s' is missing",
                !have_descr ? "descr" : !have_fortran ? "fortran_order" : "shape");
        return CLI_NPY_E_HEADER;
    }
    if ((rc = classify_descr(descr, cut_descr, hint, &a->format, &a->elem_size, err, esize)) != CLI_NPY_OK)
        return rc;
    if (fortran) {
        set_err(err, esize, "Fortran-order (column-major) arrays are not supported: save np.ascontiguousarray(a)");
        return CLI_NPY_E_FORTRAN;
    }
    /* as numpy: the product of the nonzero dimensions times the element size must fit a signed
     * pointer-sized integer, even when a zero dimension makes the array empty */
    for (i = 0; i < a->ndim; i++) {
        if (a->shape[i] == 0) {
            any_zero = 1;
            continue;
        }
        if (count > (size_t)PTRDIFF_MAX / a->shape[i] || count * a->shape[i] > (size_t)PTRDIFF_MAX / a->elem_size) {
            char sh[128];
            shape_str(a->shape, a->ndim, sh, sizeof sh);
            set_err(err, esize, "bad shape %s: %s elements of %lu bytes do not fit in memory", sh,
                    cli_npy_type_name(a->format), (unsigned long)a->elem_size);
            return CLI_NPY_E_SHAPE;
        }
        count *= a->shape[i];
    }
    a->count = any_zero ? 0 : count;
    memcpy(a->descr, descr, sizeof descr);
    a->version = version;
    return CLI_NPY_OK;
}

/* ---- writing ------------------------------------------------------------------------------------ */

size_t cli_npy_elem_size(mf_format f) { return npy_elem_size(f); }

const char *cli_npy_descr(mf_format f)
{
    const char *t;
    switch (f) {
    case MF_FP64: return "<f8";
    case MF_FP32: return "<f4";
    case MF_FP16: return "<f2";
    default: break;
    }
    t = mf_format_dtype(f);
    if (t)
        return t;
    return npy_elem_size(f) == 2 ? "<u2" : "|u1";
}

int cli_npy_write_header(FILE *fp, mf_format f, const size_t *shape, int ndim)
{
    /* the dict is at most ~1,400 bytes: 64 dimensions of 20 digits and the keys */
    char dict[2048], sh[1600];
    unsigned char pre[10];
    size_t len, total, hlen;
    if (!fp || npy_elem_size(f) == 0 || ndim < 0 || ndim > CLI_NPY_MAX_DIMS || (ndim > 0 && !shape)) {
        errno = EINVAL;
        return -1;
    }
    shape_str(shape, ndim, sh, sizeof sh);
    len = (size_t)snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                           cli_npy_descr(f), sh);
    total = (10 + len + 1 + 63) / 64 * 64; /* preamble, dict, '\n': a multiple of 64 */
    hlen = total - 10;
    memcpy(pre, magic, 6);
    pre[6] = 1;
    pre[7] = 0;
    pre[8] = (unsigned char)(hlen & 0xFF);
    pre[9] = (unsigned char)(hlen >> 8);
    if (fwrite(pre, 1, 10, fp) != 10 || fwrite(dict, 1, len, fp) != len ||
        fprintf(fp, "%*s\n", (int)(hlen - len - 1), "") < 0)
        return -1;
    return 0;
}

/* ---- data ---------------------------------------------------------------------------------------- */

static int host_is_little(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

/* The file's little-endian elements into host order. */
static void to_host(cli_npy_array *a)
{
    size_t i, j, w = a->elem_size;
    unsigned char *p = (unsigned char *)a->data;
    if (w == 1 || host_is_little())
        return;
    for (i = 0; i < a->count; i++, p += w)
        for (j = 0; j < w / 2; j++) {
            unsigned char t = p[j];
            p[j] = p[w - 1 - j];
            p[w - 1 - j] = t;
        }
}

static int size_mismatch(const cli_npy_array *a, size_t have, char *err, size_t esize)
{
    char sh[128];
    size_t need = a->count * a->elem_size;
    shape_str(a->shape, a->ndim, sh, sizeof sh);
    if (have < need) {
        set_err(err, esize, "truncated: the header promises %lu data bytes (shape %s, %s), the file has %lu",
                (unsigned long)need, sh, cli_npy_type_name(a->format), (unsigned long)have);
        return CLI_NPY_E_TRUNCATED;
    }
    set_err(err, esize, "%lu unexpected bytes after the data (shape %s, %s: %lu bytes)", (unsigned long)(have - need),
            sh, cli_npy_type_name(a->format), (unsigned long)need);
    return CLI_NPY_E_TRAILING;
}

int cli_npy_parse(const void *buf, size_t len, mf_format hint, cli_npy_array *out, char *err, size_t esize)
{
    const unsigned char *b = (const unsigned char *)buf;
    cli_npy_array a;
    size_t hstart = 0, hlen = 0, need;
    int rc, version = 0;

    if (!out || (!buf && len)) {
        set_err(err, esize, "no buffer");
        return CLI_NPY_E_IO;
    }
    memset(&a, 0, sizeof a);
    if ((rc = parse_preamble(b, len, &version, &hstart, &hlen, err, esize)) != CLI_NPY_OK)
        return rc;
    if (hlen > len - hstart) {
        set_err(err, esize, "truncated: the file ends inside the header (%lu of %lu bytes)",
                (unsigned long)(len - hstart), (unsigned long)hlen);
        return CLI_NPY_E_TRUNCATED;
    }
    if ((rc = parse_header((const char *)b + hstart, hlen, version, hint, &a, err, esize)) != CLI_NPY_OK)
        return rc;
    a.data_offset = hstart + hlen;
    need = a.count * a.elem_size;
    if (len - a.data_offset != need)
        return size_mismatch(&a, len - a.data_offset, err, esize);
    if (need) {
        a.data = malloc(need);
        if (!a.data) {
            set_err(err, esize, "out of memory (%lu bytes of data)", (unsigned long)need);
            return CLI_NPY_E_NOMEM;
        }
        memcpy(a.data, b + a.data_offset, need);
        to_host(&a);
    }
    *out = a;
    return CLI_NPY_OK;
}

/* Read up to n bytes, growing *buf in steps, so that a pipe promising more than it holds fails as
 * truncated without a giant allocation. Returns the bytes read, or (size_t)-1 on error. */
static size_t read_grow(FILE *fp, unsigned char **buf, size_t n)
{
    size_t have = 0, cap = 0;
    while (have < n) {
        size_t want = cap - have, r;
        if (have == cap) {
            unsigned char *nb;
            cap = cap ? (cap > n / 2 ? n : cap * 2) : (n < 65536 ? n : 65536);
            nb = (unsigned char *)realloc(*buf, cap);
            if (!nb)
                return (size_t)-1;
            *buf = nb;
            want = cap - have;
        }
        r = fread(*buf + have, 1, want, fp);
        have += r;
        if (r < want)
            break;
    }
    return have;
}

int cli_npy_read_file(const char *path, mf_format hint, cli_npy_array *out, char *err, size_t esize)
{
    FILE *fp;
    struct stat st;
    unsigned char pre[12];
    unsigned char *data = NULL;
    char *head = NULL;
    cli_npy_array a;
    size_t got, have, r, hstart = 0, hlen = 0, need;
    int rc, version = 0, regular;

    if (!path || !out) {
        set_err(err, esize, "no file");
        return CLI_NPY_E_IO;
    }
    memset(&a, 0, sizeof a);
    fp = fopen(path, "rb");
    if (!fp) {
        set_err(err, esize, "cannot open: %s", strerror(errno));
        return CLI_NPY_E_IO;
    }
    regular = fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode);
    /* the preamble is 10 (version 1) or 12 bytes: read 10, then 2 more if needed */
    got = fread(pre, 1, 10, fp);
    if (got == 10 && pre[6] != 1)
        got += fread(pre + 10, 1, 2, fp);
    if (ferror(fp)) {
        set_err(err, esize, "read error: %s", strerror(errno));
        rc = CLI_NPY_E_IO;
        goto done;
    }
    if ((rc = parse_preamble(pre, got, &version, &hstart, &hlen, err, esize)) != CLI_NPY_OK)
        goto done;
    head = (char *)malloc(hlen ? hlen : 1);
    if (!head) {
        set_err(err, esize, "out of memory");
        rc = CLI_NPY_E_NOMEM;
        goto done;
    }
    r = fread(head, 1, hlen, fp);
    if (ferror(fp)) {
        set_err(err, esize, "read error: %s", strerror(errno));
        rc = CLI_NPY_E_IO;
        goto done;
    }
    if (r < hlen) {
        set_err(err, esize, "truncated: the file ends inside the header (%lu of %lu bytes)", (unsigned long)r,
                (unsigned long)hlen);
        rc = CLI_NPY_E_TRUNCATED;
        goto done;
    }
    if ((rc = parse_header(head, hlen, version, hint, &a, err, esize)) != CLI_NPY_OK)
        goto done;
    a.data_offset = hstart + hlen;
    need = a.count * a.elem_size;
    /* a regular file: compare sizes before allocating anything */
    if (regular) {
        uint64_t size = (uint64_t)st.st_size;
        if (size < a.data_offset)
            have = 0;
        else if (size - a.data_offset > (uint64_t)SIZE_MAX)
            have = SIZE_MAX;
        else
            have = (size_t)(size - a.data_offset);
        if (have != need) {
            rc = size_mismatch(&a, have, err, esize);
            goto done;
        }
    }
    have = read_grow(fp, &data, need);
    if (have == (size_t)-1) {
        set_err(err, esize, "out of memory (%lu bytes of data)", (unsigned long)need);
        rc = CLI_NPY_E_NOMEM;
        goto done;
    }
    if (ferror(fp)) {
        set_err(err, esize, "read error: %s", strerror(errno));
        rc = CLI_NPY_E_IO;
        goto done;
    }
    if (have < need) {
        rc = size_mismatch(&a, have, err, esize);
        goto done;
    }
    if (fgetc(fp) != EOF) { /* the file grew, or a pipe holds more */
        size_t extra = 1;
        while (extra < ((size_t)1 << 20) && fgetc(fp) != EOF)
            extra++;
        rc = size_mismatch(&a, need + extra, err, esize);
        goto done;
    }
    a.data = need ? data : NULL;
    if (!need)
        free(data);
    data = NULL;
    to_host(&a);
    *out = a;
    rc = CLI_NPY_OK;
done:
    free(data);
    free(head);
    fclose(fp);
    return rc;
}

int cli_npy_read_stream(FILE *fp, const void *head, size_t nhead, mf_format hint, cli_npy_array *out, char *err,
                        size_t esize)
{
    unsigned char *buf = NULL;
    size_t len = 0, cap = 0;
    int rc;
    if (!fp || !out || (!head && nhead)) {
        set_err(err, esize, "no stream");
        return CLI_NPY_E_IO;
    }
    for (;;) {
        size_t r;
        if (len == cap) {
            unsigned char *nb;
            size_t ncap = cap ? cap * 2 : (nhead > 65536 ? nhead : 65536);
            if (ncap <= cap || !(nb = (unsigned char *)realloc(buf, ncap))) {
                free(buf);
                set_err(err, esize, "out of memory (%lu bytes read)", (unsigned long)len);
                return CLI_NPY_E_NOMEM;
            }
            buf = nb;
            cap = ncap;
            if (len == 0 && nhead) {
                memcpy(buf, head, nhead);
                len = nhead;
                continue;
            }
        }
        r = fread(buf + len, 1, cap - len, fp);
        len += r;
        if (r == 0)
            break;
    }
    if (ferror(fp)) {
        free(buf);
        set_err(err, esize, "read error: %s", strerror(errno));
        return CLI_NPY_E_IO;
    }
    rc = cli_npy_parse(buf, len, hint, out, err, esize);
    free(buf);
    return rc;
}
