/* SPDX-License-Identifier: MIT */
/* fuzz/fuzz_npy.c - the tool's .npy reader (tools/cli/npy.c) on arbitrary bytes.
 *
 * The input is the file. It is parsed twice: without a hint and with the e4m3 hint for '<V1'
 * files. Properties: never a crash, a leak or a read outside the input (the sanitizers); on error
 * the output is untouched and the message is one nonempty line that fits its buffer, and the code
 * is one of CLI_NPY_E_*; on success the result is consistent with the input: a known element size,
 * the shape's product as the count, the data exactly filling the rest of the input and equal to
 * it (little-endian host), a descr that names the format, and the same result whichever hint was
 * given to a file that names its own type.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <minifloat.h>

#include "npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *err)
{
    fprintf(stderr, "FUZZ PROPERTY VIOLATED: %s (%s)\n", what, err);
    fflush(stderr);
    abort();
}

static int host_little(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

static void check_one(const uint8_t *data, size_t size, mf_format hint, cli_npy_array *out, int *rc_out)
{
    cli_npy_array a, poison;
    char err[256];
    size_t k, count = 1, len;
    int rc, i, any_zero = 0;

    memset(&a, 0x5A, sizeof a);
    memcpy(&poison, &a, sizeof a);
    memset(err, 0x7F, sizeof err);
    rc = cli_npy_parse(data, size, hint, &a, err, sizeof err);
    *rc_out = rc;
    if (rc != CLI_NPY_OK) {
        if (rc < CLI_NPY_E_NOMEM || rc > CLI_NPY_E_IO)
            fail("unknown error code", "");
        if (memcmp(&a, &poison, sizeof a) != 0)
            fail("output written on error", err);
        len = memchr(err, '\0', sizeof err) ? strlen(err) : sizeof err;
        if (len == 0 || len == sizeof err)
            fail("message empty or not terminated", "");
        if (strchr(err, '\n'))
            fail("message has a newline", err);
        memset(out, 0, sizeof *out);
        return;
    }
    if (a.elem_size != 1 && a.elem_size != 2 && a.elem_size != 4 && a.elem_size != 8)
        fail("element size", a.descr);
    if (a.ndim < 0 || a.ndim > CLI_NPY_MAX_DIMS)
        fail("ndim", a.descr);
    /* numpy's rule: the nonzero dimensions' product times the element size fits a ptrdiff_t */
    for (i = 0; i < a.ndim; i++) {
        if (a.shape[i] == 0) {
            any_zero = 1;
            continue;
        }
        if (count > (size_t)PTRDIFF_MAX / a.shape[i] || count * a.shape[i] > (size_t)PTRDIFF_MAX / a.elem_size)
            fail("shape product overflows but was accepted", a.descr);
        count *= a.shape[i];
    }
    if (any_zero)
        count = 0;
    if (a.count != count)
        fail("count is not the shape's product", a.descr);
    if (a.version < 1 || a.version > 3)
        fail("version", a.descr);
    if (a.data_offset > size || size - a.data_offset != a.count * a.elem_size)
        fail("data do not fill the rest of the input", a.descr);
    if ((a.count == 0) != (a.data == NULL))
        fail("data pointer", a.descr);
    if (a.count && host_little() && memcmp(a.data, data + a.data_offset, a.count * a.elem_size) != 0)
        fail("data differ from the input", a.descr);
    k = strlen(a.descr);
    if (k < 2 || k > 3)
        fail("descr length", a.descr);
    switch (a.format) {
    case MF_FP64: case MF_FP32: case MF_FP16:
        if (a.descr[k - 2] != 'f' || a.elem_size != (size_t)(a.descr[k - 1] - '0'))
            fail("descr does not name a float", a.descr);
        break;
    case MF_BF16:
        if (strcmp(a.descr + k - 2, "V2") != 0 || a.elem_size != 2)
            fail("bf16 from a descr other than V2", a.descr);
        break;
    case MF_FP8_E5M2:
        if (a.elem_size != 1 || (strcmp(a.descr + k - 2, "f1") != 0 && hint != MF_FP8_E5M2))
            fail("e5m2 from a descr other than f1", a.descr);
        break;
    default:
        if (a.elem_size != 1 || a.format != hint)
            fail("a 1-byte format not given by the hint", a.descr);
        break;
    }
    {
        char sh[64];
        cli_npy_shape_str(&a, sh, sizeof sh);
        if (sh[0] != '(' || strlen(sh) >= sizeof sh)
            fail("shape string", sh);
    }
    *out = a;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cli_npy_array a, b;
    int ra, rb;
    check_one(data, size, CLI_NPY_NO_HINT, &a, &ra);
    check_one(data, size, MF_FP8_E4M3, &b, &rb);
    /* the hint only decides '<V1' / '|u1' files */
    if (ra == CLI_NPY_OK) {
        if (rb != CLI_NPY_OK || a.format != b.format || a.count != b.count || a.data_offset != b.data_offset)
            fail("a hint changed the result of a file that names its type", a.descr);
    } else if (ra != CLI_NPY_E_AMBIGUOUS && rb != ra) {
        fail("a hint changed the error of a file", "");
    }
    cli_npy_free(&a);
    cli_npy_free(&b);
    return 0;
}
