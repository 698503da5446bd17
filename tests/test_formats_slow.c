/* SPDX-License-Identifier: MIT */
/* tests/test_formats_slow.c - fuzz/ref_slow.h's own statement of the formats, for test_formats.c (a unit
 * of its own: its REF_* names are not those of tests/oracle/ref.h). */
#include "test_formats.h"

#include "../fuzz/ref_slow.h"

int slow_ref_count(void) { return REF_NFMT; }

int slow_ref_row(int i, slow_ref_facts *out)
{
    static const char *const kinds[] = {[REF_KIND_IEEE] = "IEEE", [REF_KIND_FN] = "FN", [REF_KIND_NONE] = "NONE",
                                        [REF_KIND_E8M0] = "E8M0", [REF_KIND_FNUZ] = "FNUZ",
                                        [REF_KIND_P3109SE] = "P3109SE", [REF_KIND_P3109SF] = "P3109SF",
                                        [REF_KIND_P3109UE] = "P3109UE", [REF_KIND_P3109UF] = "P3109UF"};
    const ref_format *f;
    if (i < 0 || i >= REF_NFMT)
        return 0;
    f = &ref_formats[i];
    out->name = f->name, out->bits = f->bits, out->ebits = f->ebits, out->mbits = f->mbits, out->bias = f->bias;
    out->kind = (unsigned)f->kind < sizeof kinds / sizeof kinds[0] ? kinds[f->kind] : "?";
    return 1;
}
