/* SPDX-License-Identifier: MIT */
/* tests/ref_pairs.h - the library's formats paired with the slow reference's (tests/oracle/ref.c) by name,
 * the one thing the oracle shares with the library: for the tests that take every format of the table. */
#ifndef MF_TEST_REF_PAIRS_H
#define MF_TEST_REF_PAIRS_H

#include <stdio.h>
#include <stdlib.h>

#include <minifloat.h>

#include "oracle/ref.h"

typedef struct {
    ref_format r;
    mf_format m;
} ref_pair;

/* Every format but f64 (and but f32 where !with_f32), in enum order, each with the oracle's format of the
 * same name, into out[0 .. count); exits where the oracle has no such format. */
static inline size_t ref_pairs(ref_pair *out, int with_f32)
{
    size_t k = 0;
    int f;
    for (f = 0; f < MF_FORMAT_COUNT; f++) {
        if (f == MF_FP64 || (f == MF_FP32 && !with_f32))
            continue;
        out[k].m = (mf_format)f;
        out[k].r = ref_format_named(mf_format_name((mf_format)f));
        if (out[k].r == REF_NFORMATS) {
            fprintf(stderr, "%s: no row in tests/oracle/ref.c\n", mf_format_name((mf_format)f));
            exit(1);
        }
        k++;
    }
    return k;
}

#endif /* MF_TEST_REF_PAIRS_H */
