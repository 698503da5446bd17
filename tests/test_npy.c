/* SPDX-License-Identifier: MIT */
/* tests/test_npy.c - the .npy reader of the tool (tools/cli/npy.c).
 *
 * Good files are written here byte by byte from the format's specification (NEP 1 and
 * numpy/lib/format.py: "\x93NUMPY", major, minor, a little-endian header length of 2 bytes in
 * version 1.0 and 4 bytes in 2.0/3.0, the header dict padded with spaces and ended by '\n' so that
 * preamble + header is a multiple of 64 bytes, then the data), including the exact headers numpy
 * 2.4 / ml_dtypes 0.6 write for bfloat16 ('<V2'), float8_e4m3fn ('<V1') and float8_e5m2 ('<f1').
 * Element values are written as their IEEE bit patterns, little-endian. Each kind of bad file must
 * give its own error code and a message, leave the output untouched, and never crash; every proper
 * prefix of a good file must be refused. cli_npy_read_file must agree with cli_npy_parse.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mf_test.h"
#include "npy.h"

/* ---- building files ---------------------------------------------------------------------------- */

typedef struct file {
    unsigned char b[4096];
    size_t n;
} file;

static void put(file *f, const void *p, size_t n)
{
    ck_assert_uint_le(f->n + n, sizeof f->b);
    memcpy(f->b + f->n, p, n);
    f->n += n;
}

static void put_u8(file *f, unsigned v)
{
    unsigned char c = (unsigned char)v;
    put(f, &c, 1);
}

/* A file of version major.minor whose header is the dict text `dict`, padded as numpy pads it, then
 * the data bytes. */
static void make(file *f, int major, int minor, const char *dict, const void *data, size_t ndata)
{
    size_t pre = major == 1 ? 10 : 12, len = strlen(dict), total = pre + len + 1, hlen;
    total = (total + 63) / 64 * 64;
    hlen = total - pre;
    f->n = 0;
    put(f, "\x93NUMPY", 6);
    put_u8(f, (unsigned)major);
    put_u8(f, (unsigned)minor);
    put_u8(f, (unsigned)(hlen & 0xFF));
    put_u8(f, (unsigned)(hlen >> 8 & 0xFF));
    if (major != 1) {
        put_u8(f, (unsigned)(hlen >> 16 & 0xFF));
        put_u8(f, (unsigned)(hlen >> 24 & 0xFF));
    }
    put(f, dict, len);
    while (f->n < total - 1)
        put_u8(f, ' ');
    put_u8(f, '\n');
    put(f, data, ndata);
}

/* A file with a header of exactly the bytes given (no padding), for the header-syntax cases. */
static void make_raw_header(file *f, const char *hdr, size_t hlen, const void *data, size_t ndata)
{
    f->n = 0;
    put(f, "\x93NUMPY\x01\x00", 8);
    put_u8(f, (unsigned)(hlen & 0xFF));
    put_u8(f, (unsigned)(hlen >> 8));
    put(f, hdr, hlen);
    put(f, data, ndata);
}

static int parse(const file *f, mf_format hint, cli_npy_array *a, char *err, size_t esize)
{
    return cli_npy_parse(f->b, f->n, hint, a, err, esize);
}

/* ---- good files ------------------------------------------------------------------------------- */

typedef struct good_case {
    const char *what;
    int major;
    const char *dict;
    mf_format hint;
    unsigned char data[24];
    size_t ndata;
    mf_format want_fmt;
    size_t want_elem, want_count;
    int want_ndim;
    size_t want_shape[3];
    double want_first; /* the first element's value */
} good_case;

static const good_case goods[] = {
    {"float64 '<f8'", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", CLI_NPY_NO_HINT,
     {0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0, 0, 0, 0x04, 0xc0}, 16, /* 1.0, -2.5 */
     MF_FP64, 8, 2, 1, {2}, 1.0},
    {"float32 '<f4' 2-D", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 3), }", CLI_NPY_NO_HINT,
     {0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x40, 0xc0, 0x00, 0x00, 0x00, 0x3f}, 12, MF_FP32, 4, 3, 2, {1, 3}, 1.0},
    {"float16 '<f2'", 1, "{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }", CLI_NPY_NO_HINT,
     {0xff, 0x7b, 0x00, 0x3c, 0x01, 0x00}, 6, /* 65504, 1, 2^-24 */
     MF_FP16, 2, 3, 1, {3}, 65504.0},
    {"ml_dtypes bfloat16 '<V2' (numpy 2.4's header)", 1, "{'descr': '<V2', 'fortran_order': False, 'shape': (3,), }",
     CLI_NPY_NO_HINT, {0x80, 0x3f, 0x00, 0x40, 0x40, 0xc0}, 6, /* 1, 2, -3 */
     MF_BF16, 2, 3, 1, {3}, 1.0},
    {"bfloat16 as '|V2'", 1, "{'descr': '|V2', 'fortran_order': False, 'shape': (1,), }", CLI_NPY_NO_HINT,
     {0x80, 0xbf}, 2, MF_BF16, 2, 1, 1, {1}, -1.0},
    {"ml_dtypes float8_e5m2 '<f1'", 1, "{'descr': '<f1', 'fortran_order': False, 'shape': (3,), }", CLI_NPY_NO_HINT,
     {0x3c, 0x40, 0xc2}, 3, /* 1, 2, -3 */
     MF_FP8_E5M2, 1, 3, 1, {3}, 1.0},
    {"ml_dtypes float8_e4m3fn '<V1' + hint", 1, "{'descr': '<V1', 'fortran_order': False, 'shape': (3,), }",
     MF_FP8_E4M3, {0x38, 0x40, 0xc4}, 3, /* 1, 2, -3 */
     MF_FP8_E4M3, 1, 3, 1, {3}, 1.0},
    {"ml_dtypes float4_e2m1fn '<V1' + hint", 1, "{'descr': '<V1', 'fortran_order': False, 'shape': (3,), }",
     MF_FP4_E2M1, {0x02, 0x04, 0x0d}, 3, /* 1, 2, -3 */
     MF_FP4_E2M1, 1, 3, 1, {3}, 1.0},
    {"uint8 codes '|u1' + hint e8m0", 1, "{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }", MF_E8M0,
     {127, 128}, 2, MF_E8M0, 1, 2, 1, {2}, 1.0},
    {"a hint does not override a named type", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
     MF_FP8_E4M3, {0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x40, 0xc0, 0x00, 0x00, 0x00, 0x3f}, 12, MF_FP32, 4, 3, 1,
     {3}, 1.0},
    {"scalar, shape ()", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", CLI_NPY_NO_HINT,
     {0x00, 0x00, 0x00, 0x3f}, 4, MF_FP32, 4, 1, 0, {0}, 0.5},
    {"empty, shape (0,)", 1, "{'descr': '<f2', 'fortran_order': False, 'shape': (0,), }", CLI_NPY_NO_HINT, {0}, 0,
     MF_FP16, 2, 0, 1, {0}, 0},
    {"empty with a large other dimension", 1,
     "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 1000000000000), }", CLI_NPY_NO_HINT, {0}, 0, MF_FP64, 8, 0,
     2, {0, 1000000000000ull}, 0},
    {"version 2.0", 2, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", CLI_NPY_NO_HINT,
     {0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x40, 0xc0, 0x00, 0x00, 0x00, 0x3f}, 12, MF_FP32, 4, 3, 1, {3}, 1.0},
    {"version 3.0", 3, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", CLI_NPY_NO_HINT,
     {0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x40, 0xc0, 0x00, 0x00, 0x00, 0x3f}, 12, MF_FP32, 4, 3, 1, {3}, 1.0},
    {"keys in another order, double quotes, no trailing comma", 1,
     "{\"shape\": (3,), \"fortran_order\": False, \"descr\": \"<f4\"}", CLI_NPY_NO_HINT,
     {0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x40, 0xc0, 0x00, 0x00, 0x00, 0x3f}, 12, MF_FP32, 4, 3, 1, {3}, 1.0},
    {"Python 2 longs, '=' order, spaces", 1, "{ 'descr' : '=f4' , 'fortran_order' : False , 'shape' : ( 1L , 3L , ) }",
     CLI_NPY_NO_HINT, {0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x40, 0xc0, 0x00, 0x00, 0x00, 0x3f}, 12, MF_FP32, 4, 3, 2,
     {1, 3}, 1.0},
    {"3-D", 1, "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 1, 2), }", CLI_NPY_NO_HINT,
     {0x00, 0xc0, 0x00, 0x3c, 0x00, 0x7c, 0x00, 0x00}, 8, /* -2, 1, inf, 0 */
     MF_FP16, 2, 4, 3, {2, 1, 2}, -2.0},
    /* dtype names as descr: what cli_npy_write_header writes (and ml_dtypes users write by hand) */
    {"ml_dtypes name 'float8_e4m3fn'", 1, "{'descr': 'float8_e4m3fn', 'fortran_order': False, 'shape': (3,), }",
     CLI_NPY_NO_HINT, {0x38, 0x40, 0xc4}, 3, /* 1, 2, -3 */
     MF_FP8_E4M3, 1, 3, 1, {3}, 1.0},
    {"ml_dtypes name 'bfloat16'", 1, "{'descr': 'bfloat16', 'fortran_order': False, 'shape': (2,), }",
     CLI_NPY_NO_HINT, {0x80, 0x3f, 0x00, 0x40}, 4, MF_BF16, 2, 2, 1, {2}, 1.0},
    {"the longest name, 'float8_e4m3b11fnuz'", 1,
     "{'descr': 'float8_e4m3b11fnuz', 'fortran_order': False, 'shape': (1,), }", CLI_NPY_NO_HINT, {0x58}, 1,
     /* 1 = 0|1011|000 (bias 11) */
     MF_FP8_E4M3B11FNUZ, 1, 1, 1, {1}, 1.0},
    {"'float4_e2m1fn' by name: a hint has no say", 1,
     "{'descr': 'float4_e2m1fn', 'fortran_order': False, 'shape': (2,), }", MF_FP8_E4M3, {0x02, 0x0d}, 2,
     MF_FP4_E2M1, 1, 2, 1, {2}, 1.0},
    {"numpy name 'float32'", 1, "{'descr': 'float32', 'fortran_order': False, 'shape': (1,), }", CLI_NPY_NO_HINT,
     {0x00, 0x00, 0x80, 0x3f}, 4, MF_FP32, 4, 1, 1, {1}, 1.0},
};

static double first_value(const cli_npy_array *a)
{
    double d;
    float f;
    uint16_t h;
    const unsigned char *p = (const unsigned char *)a->data;
    switch (a->format) {
    case MF_FP64: memcpy(&d, p, 8); return d;
    case MF_FP32: memcpy(&f, p, 4); return f;
    case MF_FP16:
    case MF_BF16: memcpy(&h, p, 2); return mf_to_f64(a->format, h);
    default: return mf_to_f64(a->format, p[0]);
    }
}

static int host_little(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

START_TEST(test_good_files)
{
    size_t i;
    int k, checked = 0;
    for (i = 0; i < sizeof goods / sizeof goods[0]; i++) {
        const good_case *g = &goods[i];
        file f;
        cli_npy_array a;
        char err[256] = "";
        int rc;
        make(&f, g->major, 0, g->dict, g->data, g->ndata);
        MF_EXPECT(f.n % 64 == g->ndata, "%s: padding", g->what);
        rc = parse(&f, g->hint, &a, err, sizeof err);
        MF_EXPECT(rc == CLI_NPY_OK, "%s: rc %d (%s)", g->what, rc, err);
        MF_EXPECT(a.format == g->want_fmt, "%s: format %d", g->what, (int)a.format);
        MF_EXPECT(a.elem_size == g->want_elem, "%s: elem_size %zu", g->what, a.elem_size);
        MF_EXPECT(a.count == g->want_count, "%s: count %zu", g->what, a.count);
        MF_EXPECT(a.ndim == g->want_ndim, "%s: ndim %d", g->what, a.ndim);
        for (k = 0; k < g->want_ndim; k++)
            MF_EXPECT(a.shape[k] == g->want_shape[k], "%s: shape[%d] %zu", g->what, k, a.shape[k]);
        MF_EXPECT(a.version == g->major, "%s: version", g->what);
        MF_EXPECT(a.data_offset == f.n - g->ndata, "%s: data offset %zu", g->what, a.data_offset);
        if (g->want_count) {
            MF_EXPECT(a.data != NULL, "%s: data", g->what);
            MF_EXPECT(first_value(&a) == g->want_first, "%s: first value %g", g->what, first_value(&a));
            if (host_little())
                MF_EXPECT(memcmp(a.data, g->data, g->ndata) == 0, "%s: data bytes", g->what);
        } else {
            MF_EXPECT(a.data == NULL, "%s: empty data", g->what);
        }
        cli_npy_free(&a);
        cli_npy_free(&a); /* twice is safe */
        checked++;
    }
    ck_assert_int_eq(checked, 23);
}
END_TEST

/* The values of each element, for the multi-element types: every element, not just the first. */
START_TEST(test_good_values)
{
    static const double want_bf16[3] = {1, 2, -3}, want_f16[3] = {65504, 1, 0x1p-24};
    file f;
    cli_npy_array a;
    uint16_t h;
    int i, n = 0;
    make(&f, 1, 0, goods[3].dict, goods[3].data, goods[3].ndata);
    ck_assert_int_eq(parse(&f, CLI_NPY_NO_HINT, &a, NULL, 0), CLI_NPY_OK);
    for (i = 0; i < 3; i++, n++) {
        memcpy(&h, (unsigned char *)a.data + 2 * i, 2);
        MF_EXPECT(mf_to_f64(MF_BF16, h) == want_bf16[i], "bf16 element %d", i);
    }
    cli_npy_free(&a);
    make(&f, 1, 0, goods[2].dict, goods[2].data, goods[2].ndata);
    ck_assert_int_eq(parse(&f, CLI_NPY_NO_HINT, &a, NULL, 0), CLI_NPY_OK);
    for (i = 0; i < 3; i++, n++) {
        memcpy(&h, (unsigned char *)a.data + 2 * i, 2);
        MF_EXPECT(mf_to_f64(MF_FP16, h) == want_f16[i], "f16 element %d", i);
    }
    cli_npy_free(&a);
    ck_assert_int_eq(n, 6);
}
END_TEST

/* ---- bad files ------------------------------------------------------------------------------------ */

typedef struct bad_case {
    const char *what;
    const char *dict; /* NULL: the file is given by `raw` */
    mf_format hint;
    size_t ndata;     /* data bytes appended (zeros) */
    int want;
    const char *msg;  /* a substring of the message */
} bad_case;

static const bad_case bads[] = {
    {"big-endian float32", "{'descr': '>f4', 'fortran_order': False, 'shape': (3,), }", CLI_NPY_NO_HINT, 12,
     CLI_NPY_E_ENDIAN, "big-endian"},
    {"big-endian float64", "{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }", CLI_NPY_NO_HINT, 8,
     CLI_NPY_E_ENDIAN, "big-endian"},
    {"big-endian bfloat16", "{'descr': '>V2', 'fortran_order': False, 'shape': (1,), }", CLI_NPY_NO_HINT, 2,
     CLI_NPY_E_ENDIAN, "big-endian"},
    {"Fortran order", "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", CLI_NPY_NO_HINT, 24,
     CLI_NPY_E_FORTRAN, "Fortran"},
    {"int32", "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }", CLI_NPY_NO_HINT, 12, CLI_NPY_E_DTYPE,
     "'<i4'"},
    {"complex64", "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", CLI_NPY_NO_HINT, 8, CLI_NPY_E_DTYPE,
     "'<c8'"},
    {"float128", "{'descr': '<f16', 'fortran_order': False, 'shape': (1,), }", CLI_NPY_NO_HINT, 16, CLI_NPY_E_DTYPE,
     "'<f16'"},
    {"object", "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", CLI_NPY_NO_HINT, 8, CLI_NPY_E_DTYPE, "'|O'"},
    {"structured", "{'descr': [('a', '<f4'), ('b', '<f4')], 'fortran_order': False, 'shape': (1,), }", CLI_NPY_NO_HINT,
     8, CLI_NPY_E_DTYPE, "structured"},
    {"a long descr", "{'descr': '<f4aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'fortran_order': False, 'shape': (1,), }",
     CLI_NPY_NO_HINT, 4, CLI_NPY_E_DTYPE, "unsupported dtype"},
    {"'<V1' without a hint", "{'descr': '<V1', 'fortran_order': False, 'shape': (3,), }", CLI_NPY_NO_HINT, 3,
     CLI_NPY_E_AMBIGUOUS, "ambiguous"},
    {"'<V1' with a 16-bit hint", "{'descr': '<V1', 'fortran_order': False, 'shape': (3,), }", MF_FP16, 3,
     CLI_NPY_E_AMBIGUOUS, "ambiguous"},
    {"'|u1' without a hint", "{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }", CLI_NPY_NO_HINT, 3,
     CLI_NPY_E_AMBIGUOUS, "e4m3"},
    {"'|u1': the message names every 1-byte format, the last one too", "{'descr': '|u1', 'fortran_order': False, "
     "'shape': (3,), }", CLI_NPY_NO_HINT, 3, CLI_NPY_E_AMBIGUOUS, "or binary4p2sf)"},
    {"2^63", "{'descr': '<f4', 'fortran_order': False, 'shape': (9223372036854775808,), }", CLI_NPY_NO_HINT, 0,
     CLI_NPY_E_SHAPE, "2^63"},
    {"bytes overflow", "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904,), }", CLI_NPY_NO_HINT,
     0, CLI_NPY_E_SHAPE, "do not fit"},
    {"product overflow", "{'descr': '<f2', 'fortran_order': False, 'shape': (4294967296, 4294967296), }",
     CLI_NPY_NO_HINT, 0, CLI_NPY_E_SHAPE, "do not fit"},
    {"empty, but the other dimensions overflow (numpy refuses it too)",
     "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 9223372036854775807), }", CLI_NPY_NO_HINT, 0,
     CLI_NPY_E_SHAPE, "do not fit"},
    {"bytes overflow a signed size", "{'descr': '<f4', 'fortran_order': False, 'shape': (2305843009213693952,), }",
     CLI_NPY_NO_HINT, 0, CLI_NPY_E_SHAPE, "do not fit"},
    {"huge but representable", "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000, 1000000), }",
     CLI_NPY_NO_HINT, 8, CLI_NPY_E_TRUNCATED, "8000000000000"},
    {"negative dimension", "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", CLI_NPY_NO_HINT, 0,
     CLI_NPY_E_SHAPE, "negative"},
    {"65 dimensions",
     "{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,"
     "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1), }",
     CLI_NPY_NO_HINT, 4, CLI_NPY_E_SHAPE, "64"},
    {"shape (3) is an int", "{'descr': '<f4', 'fortran_order': False, 'shape': (3), }", CLI_NPY_NO_HINT, 12,
     CLI_NPY_E_HEADER, "(n,)"},
    {"shape as a list", "{'descr': '<f4', 'fortran_order': False, 'shape': [3], }", CLI_NPY_NO_HINT, 12,
     CLI_NPY_E_HEADER, "list"},
    {"a float dimension", "{'descr': '<f4', 'fortran_order': False, 'shape': (3.0,), }", CLI_NPY_NO_HINT, 12,
     CLI_NPY_E_HEADER, "shape"},
    {"missing shape", "{'descr': '<f4', 'fortran_order': False, }", CLI_NPY_NO_HINT, 4, CLI_NPY_E_HEADER,
     "'shape' is missing"},
    {"missing descr", "{'fortran_order': False, 'shape': (1,), }", CLI_NPY_NO_HINT, 4, CLI_NPY_E_HEADER,
     "'descr' is missing"},
    {"extra key", "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", CLI_NPY_NO_HINT, 4,
     CLI_NPY_E_HEADER, "unexpected key 'x'"},
    {"duplicate key", "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", CLI_NPY_NO_HINT, 4,
     CLI_NPY_E_HEADER, "twice"},
    {"fortran_order not a bool", "{'descr': '<f4', 'fortran_order': 0, 'shape': (1,), }", CLI_NPY_NO_HINT, 4,
     CLI_NPY_E_HEADER, "True or False"},
    {"Falsehood", "{'descr': '<f4', 'fortran_order': Falsehood, 'shape': (1,), }", CLI_NPY_NO_HINT, 4, CLI_NPY_E_HEADER,
     "True or False"},
    {"not a dict", "['descr', '<f4']", CLI_NPY_NO_HINT, 4, CLI_NPY_E_HEADER, "'{'"},
    {"unterminated string", "{'descr: '<f4', 'fortran_order': False, 'shape': (1,), }", CLI_NPY_NO_HINT, 4,
     CLI_NPY_E_HEADER, "bad header"},
    {"no closing brace", "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), ", CLI_NPY_NO_HINT, 4,
     CLI_NPY_E_HEADER, "header ends"},
    {"text after the dict", "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} x", CLI_NPY_NO_HINT, 4,
     CLI_NPY_E_HEADER, "after the dict"},
    {"a backslash in a string", "{'descr': '<f\\4', 'fortran_order': False, 'shape': (1,), }", CLI_NPY_NO_HINT, 4,
     CLI_NPY_E_HEADER, "bad header"},
    {"non-ASCII byte in a version 1 header", "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), '\xc3\xa9': 1}",
     CLI_NPY_NO_HINT, 4, CLI_NPY_E_HEADER, "0xc3"},
    {"data one byte short", "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", CLI_NPY_NO_HINT, 11,
     CLI_NPY_E_TRUNCATED, "promises 12 data bytes"},
    {"no data", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", CLI_NPY_NO_HINT, 0, CLI_NPY_E_TRUNCATED,
     "the file has 0"},
    {"one byte too many", "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", CLI_NPY_NO_HINT, 13,
     CLI_NPY_E_TRAILING, "1 unexpected bytes"},
    {"data for an empty shape (0,)", "{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }", CLI_NPY_NO_HINT, 4,
     CLI_NPY_E_TRAILING, "after the data"},
};
#define N_BADS (sizeof bads / sizeof bads[0])

static void build_bad(file *f, const bad_case *c)
{
    static const unsigned char zeros[64];
    make(f, 1, 0, c->dict, zeros, c->ndata);
}

/* An cli_npy_array full of a pattern, to see that errors leave it alone. */
static void poison(cli_npy_array *a) { memset(a, 0x5A, sizeof *a); }
static int untouched(const cli_npy_array *a)
{
    cli_npy_array p;
    poison(&p);
    return memcmp(a, &p, sizeof p) == 0;
}

START_TEST(test_bad_headers)
{
    size_t i;
    int checked = 0;
    for (i = 0; i < N_BADS; i++) {
        const bad_case *c = &bads[i];
        file f;
        cli_npy_array a;
        char err[CLI_NPY_ERR_SIZE];
        int rc;
        build_bad(&f, c);
        poison(&a);
        memset(err, 0, sizeof err);
        rc = parse(&f, c->hint, &a, err, sizeof err);
        MF_EXPECT(rc == c->want, "%s: rc %d, want %d (%s)", c->what, rc, c->want, err);
        MF_EXPECT(untouched(&a), "%s: the output was written", c->what);
        MF_EXPECT(strstr(err, c->msg) != NULL, "%s: message '%s' lacks '%s'", c->what, err, c->msg);
        MF_EXPECT(strchr(err, '\n') == NULL, "%s: the message is one line", c->what);
        checked++;
    }
    ck_assert_int_eq(checked, 41);
}
END_TEST

/* Preamble-level errors: written byte by byte. */
START_TEST(test_bad_preambles)
{
    static const unsigned char f4[4] = {0, 0, 0x80, 0x3f};
    const char *dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }";
    file f;
    cli_npy_array a;
    char err[300];
    int n = 0;
    unsigned char big[12];

    f.n = 0; /* empty */
    poison(&a);
    ck_assert_int_eq(parse(&f, CLI_NPY_NO_HINT, &a, err, sizeof err), CLI_NPY_E_MAGIC);
    ck_assert(untouched(&a));
    n++;

    make(&f, 1, 0, dict, f4, 4); /* wrong magic */
    f.b[5] = 'X';
    ck_assert_int_eq(parse(&f, CLI_NPY_NO_HINT, &a, err, sizeof err), CLI_NPY_E_MAGIC);
    ck_assert(strstr(err, "not a .npy file") != NULL);
    n++;

    make(&f, 1, 0, dict, f4, 4); /* a text file */
    memcpy(f.b, "1.0\n2.0\n", 8);
    ck_assert_int_eq(parse(&f, CLI_NPY_NO_HINT, &a, err, sizeof err), CLI_NPY_E_MAGIC);
    n++;

    make(&f, 4, 0, dict, f4, 4);
    ck_assert_int_eq(parse(&f, CLI_NPY_NO_HINT, &a, err, sizeof err), CLI_NPY_E_VERSION);
    ck_assert(strstr(err, "4.0") != NULL);
    n++;
    make(&f, 1, 1, dict, f4, 4);
    ck_assert_int_eq(parse(&f, CLI_NPY_NO_HINT, &a, err, sizeof err), CLI_NPY_E_VERSION);
    n++;
    make(&f, 0, 0, dict, f4, 4);
    ck_assert_int_eq(parse(&f, CLI_NPY_NO_HINT, &a, err, sizeof err), CLI_NPY_E_VERSION);
    n++;

    /* version 2 header length over the limit */
    memcpy(big, "\x93NUMPY\x02\x00\x01\x00\x01\x00", 12); /* 65537 */
    ck_assert_int_eq(cli_npy_parse(big, 12, CLI_NPY_NO_HINT, &a, err, sizeof err), CLI_NPY_E_HEADER);
    ck_assert(strstr(err, "65537") != NULL);
    n++;
    memcpy(big, "\x93NUMPY\x03\x00\xff\xff\xff\xff", 12);
    ck_assert_int_eq(cli_npy_parse(big, 12, CLI_NPY_NO_HINT, &a, err, sizeof err), CLI_NPY_E_HEADER);
    n++;

    /* header length beyond the file */
    make(&f, 1, 0, dict, f4, 4);
    f.b[8] = 0xff;
    f.b[9] = 0x00;
    ck_assert_int_eq(parse(&f, CLI_NPY_NO_HINT, &a, err, sizeof err), CLI_NPY_E_TRUNCATED);
    ck_assert(strstr(err, "inside the header") != NULL);
    n++;

    /* NUL inside the header */
    make(&f, 1, 0, dict, f4, 4);
    f.b[20] = 0;
    ck_assert_int_eq(parse(&f, CLI_NPY_NO_HINT, &a, err, sizeof err), CLI_NPY_E_HEADER);
    n++;

    /* a header of zero length, and one that is only blanks */
    make_raw_header(&f, "", 0, f4, 4);
    ck_assert_int_eq(parse(&f, CLI_NPY_NO_HINT, &a, err, sizeof err), CLI_NPY_E_HEADER);
    n++;
    make_raw_header(&f, "      \n", 7, f4, 0);
    ck_assert_int_eq(parse(&f, CLI_NPY_NO_HINT, &a, err, sizeof err), CLI_NPY_E_HEADER);
    n++;

    /* the header's padding need not be numpy's: an exact-length header still reads */
    make_raw_header(&f, dict, strlen(dict), f4, 4);
    ck_assert_int_eq(parse(&f, CLI_NPY_NO_HINT, &a, err, sizeof err), CLI_NPY_OK);
    cli_npy_free(&a);
    n++;

    /* err may be NULL or tiny */
    make(&f, 4, 0, dict, f4, 4);
    ck_assert_int_eq(parse(&f, CLI_NPY_NO_HINT, &a, NULL, 0), CLI_NPY_E_VERSION);
    err[0] = 'x';
    err[1] = 'y';
    ck_assert_int_eq(parse(&f, CLI_NPY_NO_HINT, &a, err, 1), CLI_NPY_E_VERSION);
    ck_assert_int_eq(err[0], '\0');
    ck_assert_int_eq(err[1], 'y');
    n++;
    ck_assert_int_eq(n, 14);
}
END_TEST

/* Every proper prefix of a good file is refused (truncated; the empty prefix is not a .npy file),
 * and the output is never written. */
START_TEST(test_every_prefix)
{
    size_t i, len, checked = 0;
    for (i = 0; i < sizeof goods / sizeof goods[0]; i++) {
        file f;
        make(&f, goods[i].major, 0, goods[i].dict, goods[i].data, goods[i].ndata);
        for (len = 0; len < f.n; len++) {
            cli_npy_array a;
            char err[300];
            int rc;
            poison(&a);
            rc = cli_npy_parse(f.b, len, goods[i].hint, &a, err, sizeof err);
            MF_EXPECT(rc == (len == 0 ? CLI_NPY_E_MAGIC : CLI_NPY_E_TRUNCATED), "%s, first %zu bytes: rc %d (%s)",
                      goods[i].what, len, rc, err);
            MF_EXPECT(untouched(&a), "%s, first %zu bytes: output written", goods[i].what, len);
            checked++;
        }
    }
    /* 18 files: 64-byte headers except the 3-D one... count them from the cases instead */
    {
        size_t want = 0;
        for (i = 0; i < sizeof goods / sizeof goods[0]; i++) {
            file f;
            make(&f, goods[i].major, 0, goods[i].dict, goods[i].data, goods[i].ndata);
            want += f.n;
        }
        ck_assert_uint_eq(checked, want);
        ck_assert_uint_ge(checked, 18 * 64);
    }
}
END_TEST

/* ---- the file reader agrees with the memory parser ---------------------------------------------- */

static const char *tmp_path = "test_npy_tmp.npy";

static void write_file(const file *f)
{
    FILE *fp = fopen(tmp_path, "wb");
    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fwrite(f->b, 1, f->n, fp), f->n);
    ck_assert_int_eq(fclose(fp), 0);
}

START_TEST(test_read_file)
{
    size_t i, len;
    int checked = 0;
    for (i = 0; i < sizeof goods / sizeof goods[0]; i++) {
        file f;
        cli_npy_array a, b;
        char e1[300], e2[300];
        make(&f, goods[i].major, 0, goods[i].dict, goods[i].data, goods[i].ndata);
        write_file(&f);
        ck_assert_int_eq(cli_npy_read_file(tmp_path, goods[i].hint, &a, e1, sizeof e1), CLI_NPY_OK);
        ck_assert_int_eq(cli_npy_parse(f.b, f.n, goods[i].hint, &b, e2, sizeof e2), CLI_NPY_OK);
        MF_EXPECT(a.format == b.format && a.count == b.count && a.ndim == b.ndim && a.data_offset == b.data_offset &&
                      strcmp(a.descr, b.descr) == 0,
                  "%s: file and memory differ", goods[i].what);
        MF_EXPECT(a.count == 0 || memcmp(a.data, b.data, a.count * a.elem_size) == 0, "%s: data differ",
                  goods[i].what);
        cli_npy_free(&a);
        cli_npy_free(&b);
        checked++;
        /* a few truncations, read from disk */
        for (len = 0; len < f.n; len += 7) {
            file t = f;
            int r1, r2;
            t.n = len;
            write_file(&t);
            poison(&a);
            r1 = cli_npy_read_file(tmp_path, goods[i].hint, &a, e1, sizeof e1);
            r2 = cli_npy_parse(t.b, t.n, goods[i].hint, &b, e2, sizeof e2);
            MF_EXPECT(r1 == r2, "%s, %zu bytes: file rc %d (%s), memory rc %d (%s)", goods[i].what, len, r1, e1, r2,
                      e2);
            MF_EXPECT(untouched(&a), "%s, %zu bytes: output written", goods[i].what, len);
            checked++;
        }
    }
    for (i = 0; i < N_BADS; i++) {
        file f;
        cli_npy_array a, b;
        char e1[300], e2[300];
        int r1, r2;
        build_bad(&f, &bads[i]);
        write_file(&f);
        poison(&a);
        r1 = cli_npy_read_file(tmp_path, bads[i].hint, &a, e1, sizeof e1);
        r2 = cli_npy_parse(f.b, f.n, bads[i].hint, &b, e2, sizeof e2);
        MF_EXPECT(r1 == r2 && r1 == bads[i].want, "%s: file rc %d (%s), memory rc %d", bads[i].what, r1, e1, r2);
        MF_EXPECT(strcmp(e1, e2) == 0, "%s: messages differ: '%s' / '%s'", bads[i].what, e1, e2);
        MF_EXPECT(untouched(&a), "%s: output written", bads[i].what);
        checked++;
    }
    remove(tmp_path);
    ck_assert_int_ge(checked, 18 + 40 + 18 * 10);
}
END_TEST

START_TEST(test_read_file_io)
{
    cli_npy_array a;
    char err[300];
    file f;
    poison(&a);
    ck_assert_int_eq(cli_npy_read_file("no/such/dir/x.npy", CLI_NPY_NO_HINT, &a, err, sizeof err), CLI_NPY_E_IO);
    ck_assert(strstr(err, "cannot open") != NULL);
    ck_assert(untouched(&a));
    /* a directory: opens on some systems, but cannot be read */
    ck_assert_int_ne(cli_npy_read_file(".", CLI_NPY_NO_HINT, &a, err, sizeof err), CLI_NPY_OK);
    ck_assert(untouched(&a));
    /* a terabyte promised by a 64-byte file fails before any allocation of that size */
    make(&f, 1, 0, "{'descr': '<f8', 'fortran_order': False, 'shape': (131072, 1048576), }", "", 0);
    write_file(&f);
    ck_assert_int_eq(cli_npy_read_file(tmp_path, CLI_NPY_NO_HINT, &a, err, sizeof err), CLI_NPY_E_TRUNCATED);
    ck_assert(strstr(err, "1099511627776") != NULL);
    remove(tmp_path);
}
END_TEST

START_TEST(test_names)
{
    cli_npy_array a;
    char buf[64];
    memset(&a, 0, sizeof a);
    cli_npy_shape_str(&a, buf, sizeof buf);
    ck_assert_str_eq(buf, "()");
    a.ndim = 1;
    a.shape[0] = 5;
    cli_npy_shape_str(&a, buf, sizeof buf);
    ck_assert_str_eq(buf, "(5,)");
    a.ndim = 3;
    a.shape[1] = 0;
    a.shape[2] = 12345678901ull;
    cli_npy_shape_str(&a, buf, sizeof buf);
    ck_assert_str_eq(buf, "(5, 0, 12345678901)");
    cli_npy_shape_str(&a, buf, 8); /* cut */
    ck_assert_str_eq(buf, "(5, ...");
    ck_assert_str_eq(cli_npy_type_name(MF_BF16), "bfloat16");
    ck_assert_str_eq(cli_npy_type_name(MF_FP8_E4M3), "float8_e4m3fn");
    ck_assert_str_eq(cli_npy_type_name(MF_FP8_E5M2), "float8_e5m2");
    ck_assert_str_eq(cli_npy_type_name(MF_FP4_E2M1), "float4_e2m1fn");
}
END_TEST

/* ---- the writer ----------------------------------------------------------------------------------- */

/* What the writer must name each format: numpy's descr for its own floats, ml_dtypes' dtype names for the
 * rest (ml_dtypes/__init__.py), written here by hand. */
static const struct {
    mf_format f;
    const char *descr;
    size_t elem;
} written[] = {
    {MF_FP32, "<f4", 4},
    {MF_FP16, "<f2", 2},
    {MF_BF16, "bfloat16", 2},
    {MF_FP8_E4M3, "float8_e4m3fn", 1},
    {MF_FP8_E5M2, "float8_e5m2", 1},
    {MF_FP6_E2M3, "float6_e2m3fn", 1},
    {MF_FP6_E3M2, "float6_e3m2fn", 1},
    {MF_FP4_E2M1, "float4_e2m1fn", 1},
    {MF_E8M0, "float8_e8m0fnu", 1},
    {MF_FP64, "<f8", 8},
    {MF_FP8_E4M3FNUZ, "float8_e4m3fnuz", 1},
    {MF_FP8_E5M2FNUZ, "float8_e5m2fnuz", 1},
    {MF_FP8_E4M3B11FNUZ, "float8_e4m3b11fnuz", 1},
    {MF_FP8_E4M3IEEE, "float8_e4m3", 1},
    {MF_FP8_E3M4, "float8_e3m4", 1},
    /* the IEEE P3109 formats: no numpy or ml_dtypes dtype, so uint8 codes (binary4p2sf one a byte too) */
    {MF_BINARY8P1SE, "|u1", 1},
    {MF_BINARY8P1SF, "|u1", 1},
    {MF_BINARY8P2SE, "|u1", 1},
    {MF_BINARY8P2SF, "|u1", 1},
    {MF_BINARY8P3SE, "|u1", 1},
    {MF_BINARY8P3SF, "|u1", 1},
    {MF_BINARY8P4SE, "|u1", 1},
    {MF_BINARY8P4SF, "|u1", 1},
    {MF_BINARY8P5SE, "|u1", 1},
    {MF_BINARY8P5SF, "|u1", 1},
    {MF_BINARY8P6SE, "|u1", 1},
    {MF_BINARY8P6SF, "|u1", 1},
    {MF_BINARY8P7SE, "|u1", 1},
    {MF_BINARY8P7SF, "|u1", 1},
    {MF_BINARY8P1UE, "|u1", 1},
    {MF_BINARY8P1UF, "|u1", 1},
    {MF_BINARY8P2UE, "|u1", 1},
    {MF_BINARY8P2UF, "|u1", 1},
    {MF_BINARY8P3UE, "|u1", 1},
    {MF_BINARY8P3UF, "|u1", 1},
    {MF_BINARY8P4UE, "|u1", 1},
    {MF_BINARY8P4UF, "|u1", 1},
    {MF_BINARY8P5UE, "|u1", 1},
    {MF_BINARY8P5UF, "|u1", 1},
    {MF_BINARY8P6UE, "|u1", 1},
    {MF_BINARY8P6UF, "|u1", 1},
    {MF_BINARY8P7UE, "|u1", 1},
    {MF_BINARY8P7UF, "|u1", 1},
    {MF_BINARY8P8UE, "|u1", 1},
    {MF_BINARY8P8UF, "|u1", 1},
    {MF_BINARY4P2SF, "|u1", 1},
};

/* The header cli_npy_write_header writes for f and shape, then count * elem zero bytes, into f. */
static void write_npy(file *out, mf_format fmt, const size_t *shape, int ndim, size_t data_bytes)
{
    FILE *fp = tmpfile();
    ck_assert_ptr_nonnull(fp);
    ck_assert_int_eq(cli_npy_write_header(fp, fmt, shape, ndim), 0);
    while (data_bytes--)
        ck_assert_int_ne(fputc(0, fp), EOF);
    rewind(fp);
    out->n = fread(out->b, 1, sizeof out->b, fp);
    ck_assert(!ferror(fp) && feof(fp));
    fclose(fp);
}

START_TEST(test_write_header)
{
    static const size_t shapes[][3] = {{0}, {5}, {2, 3}, {0, 7}};
    static const int ndims[] = {0, 1, 2, 2};
    size_t i, j, big[CLI_NPY_MAX_DIMS + 1];
    int checked = 0, k;
    ck_assert_int_eq((int)(sizeof written / sizeof written[0]), MF_FORMAT_COUNT);
    for (i = 0; i < sizeof written / sizeof written[0]; i++) {
        ck_assert_str_eq(cli_npy_descr(written[i].f), written[i].descr);
        ck_assert_uint_eq(cli_npy_elem_size(written[i].f), written[i].elem);
        for (j = 0; j < sizeof ndims / sizeof ndims[0]; j++) {
            size_t count = 1;
            file f;
            cli_npy_array a;
            char err[256] = "", dict[256];
            int rc;
            for (k = 0; k < ndims[j]; k++)
                count *= shapes[j][k];
            write_npy(&f, written[i].f, shapes[j], ndims[j], count * written[i].elem);
            /* numpy's layout: version 1.0, the data at a multiple of 64, the header ended by '\n' */
            ck_assert_uint_ge(f.n, 64);
            MF_EXPECT(memcmp(f.b, "\x93NUMPY\x01\x00", 8) == 0, "%s: preamble", written[i].descr);
            MF_EXPECT((10 + f.b[8] + 256u * f.b[9]) % 64 == 0, "%s: data offset", written[i].descr);
            MF_EXPECT(f.b[9 + f.b[8] + 256u * f.b[9]] == '\n', "%s: the header ends with a newline", written[i].descr);
            snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", written[i].descr,
                     ndims[j] == 0 ? "()" : ndims[j] == 1 ? "(5,)" : j == 2 ? "(2, 3)" : "(0, 7)");
            MF_EXPECT(memcmp(f.b + 10, dict, strlen(dict)) == 0, "%s: dict '%.60s'", dict, (const char *)f.b + 10);
            /* read back without a hint, but for uint8 codes, which say no format (P3109: the caller's --from) */
            rc = parse(&f, strcmp(written[i].descr, "|u1") == 0 ? written[i].f : CLI_NPY_NO_HINT, &a, err,
                       sizeof err);
            MF_EXPECT(rc == CLI_NPY_OK, "%s, ndim %d: rc %d (%s)", written[i].descr, ndims[j], rc, err);
            if (rc != CLI_NPY_OK)
                continue;
            MF_EXPECT(a.format == written[i].f && a.elem_size == written[i].elem && a.count == count &&
                          a.ndim == ndims[j] && strcmp(a.descr, written[i].descr) == 0,
                      "%s, ndim %d: read back as format %d, %zu elements", written[i].descr, ndims[j], (int)a.format,
                      a.count);
            for (k = 0; k < ndims[j]; k++)
                MF_EXPECT(a.shape[k] == shapes[j][k], "%s: shape[%d]", written[i].descr, k);
            cli_npy_free(&a);
            checked++;
        }
    }
    ck_assert_int_eq(checked, MF_FORMAT_COUNT * 4);
    /* the most dimensions there may be, each 1: still one version-1.0 header */
    for (k = 0; k <= CLI_NPY_MAX_DIMS; k++)
        big[k] = 1;
    {
        file f;
        cli_npy_array a;
        char err[256] = "";
        write_npy(&f, MF_FP16, big, CLI_NPY_MAX_DIMS, 2);
        ck_assert_int_eq(parse(&f, CLI_NPY_NO_HINT, &a, err, sizeof err), CLI_NPY_OK);
        ck_assert_int_eq(a.ndim, CLI_NPY_MAX_DIMS);
        ck_assert_uint_eq(a.count, 1);
        cli_npy_free(&a);
    }
    /* refused: nothing written, EINVAL */
    {
        FILE *fp = tmpfile();
        ck_assert_ptr_nonnull(fp);
        errno = 0;
        ck_assert_int_eq(cli_npy_write_header(fp, MF_FORMAT_COUNT, big, 1), -1);
        ck_assert_int_eq(errno, EINVAL);
        errno = 0;
        ck_assert_int_eq(cli_npy_write_header(fp, MF_FP32, big, CLI_NPY_MAX_DIMS + 1), -1);
        ck_assert_int_eq(errno, EINVAL);
        ck_assert_int_eq(cli_npy_write_header(fp, MF_FP32, NULL, 1), -1);
        ck_assert_int_eq(cli_npy_write_header(NULL, MF_FP32, big, 1), -1);
        ck_assert(ftell(fp) == 0);
        fclose(fp);
    }
}
END_TEST

/* cli_npy_read_stream, the first bytes already taken (0, the magic, or more), agrees with cli_npy_parse. */
START_TEST(test_read_stream)
{
    static const size_t heads[] = {0, 1, 6, 12};
    size_t i, h;
    int checked = 0;
    for (i = 0; i < sizeof goods / sizeof goods[0]; i++)
        for (h = 0; h < sizeof heads / sizeof heads[0]; h++) {
            file f;
            cli_npy_array a, b;
            char e1[300] = "", e2[300] = "";
            unsigned char head[16];
            FILE *fp;
            int r1, r2;
            make(&f, goods[i].major, 0, goods[i].dict, goods[i].data, goods[i].ndata);
            if (i % 3 == 1)
                f.n -= 1; /* truncated: the same error both ways */
            fp = tmpfile();
            ck_assert_ptr_nonnull(fp);
            ck_assert_uint_eq(fwrite(f.b, 1, f.n, fp), f.n);
            rewind(fp);
            ck_assert_uint_eq(fread(head, 1, heads[h], fp), heads[h]);
            poison(&a);
            r1 = cli_npy_read_stream(fp, head, heads[h], goods[i].hint, &a, e1, sizeof e1);
            r2 = cli_npy_parse(f.b, f.n, goods[i].hint, &b, e2, sizeof e2);
            fclose(fp);
            MF_EXPECT(r1 == r2 && strcmp(e1, e2) == 0, "%s, head %zu: stream rc %d (%s), memory rc %d (%s)",
                      goods[i].what, heads[h], r1, e1, r2, e2);
            if (r1 == CLI_NPY_OK && r2 == CLI_NPY_OK) {
                MF_EXPECT(a.format == b.format && a.count == b.count && a.ndim == b.ndim &&
                              (a.count == 0 || memcmp(a.data, b.data, a.count * a.elem_size) == 0),
                          "%s, head %zu: stream and memory differ", goods[i].what, heads[h]);
                cli_npy_free(&a);
                cli_npy_free(&b);
            } else {
                MF_EXPECT(untouched(&a), "%s, head %zu: output written", goods[i].what, heads[h]);
            }
            checked++;
        }
    ck_assert_int_eq(checked, (int)(sizeof goods / sizeof goods[0]) * 4);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("npy");
    TCase *tc = tcase_create("npy");
    tcase_add_test(tc, test_good_files);
    tcase_add_test(tc, test_good_values);
    tcase_add_test(tc, test_bad_headers);
    tcase_add_test(tc, test_bad_preambles);
    tcase_add_test(tc, test_every_prefix);
    tcase_add_test(tc, test_read_file);
    tcase_add_test(tc, test_read_file_io);
    tcase_add_test(tc, test_names);
    tcase_add_test(tc, test_write_header);
    tcase_add_test(tc, test_read_stream);
    tcase_set_timeout(tc, 30);
    suite_add_tcase(s, tc);
    return mf_run_suite(s);
}
