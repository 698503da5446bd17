/* SPDX-License-Identifier: MIT */
/* tools/cli/npy.h - a strict reader of NumPy .npy files (format versions 1.0, 2.0 and 3.0).
 *
 *   cli_npy_array a;
 *   char err[256];
 *   if (cli_npy_read_file("x.npy", CLI_NPY_NO_HINT, &a, err, sizeof err) != CLI_NPY_OK) { puts(err); ... }
 *   ... a.format, a.count elements at a.data (host byte order) ...
 *   cli_npy_free(&a);
 *
 * The file layout (NEP 1, numpy/lib/format.py): the 6 bytes "\x93NUMPY", a major and a minor version
 * byte, the header length (2 bytes little-endian in version 1.0, 4 bytes in 2.0 and 3.0), then the
 * header: the repr of a Python dict with exactly the keys 'descr', 'fortran_order' and 'shape',
 * padded with spaces and ended by '\n'; the data follow, C order, nothing after them.
 *
 * Element types (the descr string numpy writes, then what it is):
 *   '<f8' float64, '<f4' float32, '<f2' float16      (MF_FP64, MF_FP32, MF_FP16)
 *   '<V2'  ml_dtypes.bfloat16                          (MF_BF16; numpy has no name for it: a 2-byte void)
 *   '<f1'  ml_dtypes.float8_e5m2                       (MF_FP8_E5M2; the only float8 numpy labels 'f')
 *   '<V1'  every other 1-byte ml_dtypes type: float8_e4m3fn, float8_e4m3fnuz, float8_e4m3b11fnuz,
 *          float8_e5m2fnuz, float8_e3m4, float8_e4m3, float8_e8m0fnu, float6_e2m3fn, float6_e3m2fn,
 *          float4_e2m1fn and the small ints: the file does not say which, so the caller must (hint);
 *          '|u1' (codes saved as uint8) is read the same way
 * '|' and '=' are accepted in place of '<' (the data are taken as little-endian, as every writer of
 * such files has been); '>' is refused as big-endian; the one-byte types take any order character. A 1-byte element holds one code in its low bits (ml_dtypes stores
 * float6/float4 one per byte). Anything else is refused with a message that says what was found:
 * other dtypes, big-endian data, Fortran order, structured dtypes, bad or oversized headers, shapes
 * whose size overflows, truncated files and bytes after the data.
 */
#ifndef CLI_NPY_H
#define CLI_NPY_H

#include <stddef.h>
#include <stdio.h>

#include <minifloat.h>

/* The first bytes of every .npy file. */
#define CLI_NPY_MAGIC "\x93NUMPY"
#define CLI_NPY_MAGIC_LEN 6

/* numpy's CLI_NPY_MAXDIMS (numpy 2; numpy 1 allowed 32). */
#define CLI_NPY_MAX_DIMS 64
/* The longest header accepted (numpy's own reader refuses more than 10000 bytes by default). */
#define CLI_NPY_MAX_HEADER 65536u
/* No hint: a '<V1' or '|u1' file is refused as ambiguous. */
#define CLI_NPY_NO_HINT ((mf_format)-1)
/* Room for any message of these functions: the ambiguous-dtype one names every format of 8 bits or fewer */
#define CLI_NPY_ERR_SIZE 1024

enum {
    CLI_NPY_OK = 0,
    CLI_NPY_E_IO = -1,        /* the file cannot be opened or read */
    CLI_NPY_E_MAGIC = -2,     /* not a .npy file (no "\x93NUMPY") */
    CLI_NPY_E_VERSION = -3,   /* a format version other than 1.0, 2.0, 3.0 */
    CLI_NPY_E_HEADER = -4,    /* the header is not the dict numpy writes (syntax, keys, size) */
    CLI_NPY_E_DTYPE = -5,     /* an element type this reader does not support */
    CLI_NPY_E_ENDIAN = -6,    /* big-endian data */
    CLI_NPY_E_FORTRAN = -7,   /* fortran_order: True */
    CLI_NPY_E_SHAPE = -8,     /* a bad shape: too many dimensions, or a size that does not fit */
    CLI_NPY_E_TRUNCATED = -9, /* fewer data bytes than the header promises */
    CLI_NPY_E_TRAILING = -10, /* bytes after the data */
    CLI_NPY_E_AMBIGUOUS = -11,/* a '<V1' / '|u1' file and no hint saying which 1-byte format */
    CLI_NPY_E_NOMEM = -12     /* out of memory */
};

typedef struct cli_npy_array {
    mf_format format;          /* element format */
    size_t elem_size;          /* bytes per element: 8, 4, 2 or 1 */
    int ndim;                  /* 0 for a scalar */
    size_t shape[CLI_NPY_MAX_DIMS];
    size_t count;              /* product of the shape (1 for a scalar, 0 if a dimension is 0) */
    char descr[32];            /* the descr string as written, e.g. "<f4" or "float8_e4m3fn" */
    int version;               /* major format version: 1, 2 or 3 */
    size_t data_offset;        /* where the data start in the file */
    void *data;                /* count * elem_size bytes in host byte order (malloc'd; NULL if count
                                  is 0); 16-bit formats as uint16_t codes, 1-byte ones as codes */
} cli_npy_array;

/* Parse a whole .npy file held in memory (len bytes at buf). hint is the format of a '<V1' / '|u1'
 * file (any format of at most 8 bits: e4m3, e5m2, e2m3, e3m2, e2m1, e8m0, ...) or CLI_NPY_NO_HINT; it is not
 * used for files whose descr names their type. On success fills *out (free with cli_npy_free) and returns CLI_NPY_OK.
 * On error returns an CLI_NPY_E_* code, leaves *out untouched and, if err is not NULL, writes a one-line
 * message (no file name, no trailing newline) into err[0..errsize). */
int cli_npy_parse(const void *buf, size_t len, mf_format hint, cli_npy_array *out, char *err, size_t errsize);

/* cli_npy_parse for a file; the data size is checked against the file's size before it is read, so a
 * header promising terabytes fails fast. The message does not include the path. */
int cli_npy_read_file(const char *path, mf_format hint, cli_npy_array *out, char *err, size_t errsize);

/* ---- writing ---------------------------------------------------------------------------------- */

/* The descr the writer gives f: '<f8', '<f4', '<f2' for numpy's own floats, else f's ml_dtypes name
 * (mf_format_dtype: 'bfloat16', 'float8_e4m3fn', 'float4_e2m1fn', ...), which numpy.dtype() resolves where
 * ml_dtypes is imported; a format without one is stored as codes, '|u1' (or '<u2' for 16 bits). This
 * reader reads every one of them back without a hint. */
const char *cli_npy_descr(mf_format f);

/* Bytes of one element of f in a .npy file: 8, 4, 2, or 1 for every format of at most 8 bits (one code a
 * byte in its low bits, e2m1 included, as ml_dtypes stores it); 0 for an unknown format. */
size_t cli_npy_elem_size(mf_format f);

/* Write the preamble and header of a C-order array of f with shape[0..ndim) (ndim at most
 * CLI_NPY_MAX_DIMS), format version 1.0, padded as numpy pads it (the data start at a multiple of 64); the
 * data follow, little-endian, cli_npy_elem_size(f) bytes each. Returns 0, or -1 with errno set (EINVAL for
 * a bad format or ndim). */
int cli_npy_write_header(FILE *fp, mf_format f, const size_t *shape, int ndim);

/* cli_npy_parse for what is left of a stream (a pipe, standard input), read to its end; the caller has
 * already read its first nhead bytes (to look for the magic) and passes them in head. The message does
 * not name the stream. */
int cli_npy_read_stream(FILE *fp, const void *head, size_t nhead, mf_format hint, cli_npy_array *out, char *err,
                        size_t errsize);

/* Release a's data (a may be NULL; safe to call twice). */
void cli_npy_free(cli_npy_array *a);

/* The shape as text, "(2, 3)", "(5,)" or "()", into buf[0..size) (truncated with "..." if it does not fit). */
void cli_npy_shape_str(const cli_npy_array *a, char *buf, size_t size);

/* A short name of the element type, as numpy or ml_dtypes names it (mf_format_dtype): "float32",
 * "bfloat16", "float8_e4m3fn", ... (e4m3ieee is ml_dtypes' "float8_e4m3"); "unknown" for others. */
const char *cli_npy_type_name(mf_format f);

#endif /* CLI_NPY_H */
