/* SPDX-License-Identifier: MIT */
/* tests/hygiene/hygiene.c - <minifloat.h> as C (built as C99 and C11). */
#include <stdio.h>

#include "hygiene_body.h"

int main(void)
{
    int bad = mf_hygiene_failures();
    printf("%d failures\n", bad);
    return bad != 0;
}
