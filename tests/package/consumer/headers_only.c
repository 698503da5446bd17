/* SPDX-License-Identifier: MIT */
/* Uses only the inline scalars: nothing to link. */
#include <minifloat.h>

int main(void) { return mf_e4m3_bits(mf_f32_to_e4m3_rn(1.0f)) != 0x38; }
