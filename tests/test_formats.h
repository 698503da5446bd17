/* SPDX-License-Identifier: MIT */
/* tests/test_formats.h - what test_formats.c reads of fuzz/ref_slow.h (test_formats_slow.c). */
#ifndef MF_TEST_FORMATS_H
#define MF_TEST_FORMATS_H

typedef struct {
    const char *name;
    int bits, ebits, mbits, bias;
    const char *kind; /* "IEEE", "FN", "NONE", "E8M0", "FNUZ" */
} slow_ref_facts;

/* The number of ref_slow.h's formats, and row i of its table (0 past the end). */
int slow_ref_count(void);
int slow_ref_row(int i, slow_ref_facts *out);

#endif /* MF_TEST_FORMATS_H */
