/* SPDX-License-Identifier: MIT */
/* tests/hygiene/beside_math.c - <minifloat.h> after <math.h>: no local of ours shadows a libm name. */
#include <math.h>

#include "hygiene_body.h"

int main(void) { return mf_hygiene_failures() != 0; }
