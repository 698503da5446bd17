/* SPDX-License-Identifier: MIT */
/* examples/quickstart.c - the README's C example: scalar and bulk conversions. */
#include <minifloat.h>
#include <stdio.h>

int main(void)
{
    float x[4] = {3.14159f, 464.0f, 1e5f, 0.003f};
    uint8_t q[4];
    mf_stats st;
    mf_opts opts = {0}; /* rn, one thread; then what differs: */
    opts.overflow = MF_OVERFLOW_SATURATE;
    opts.stats = &st;
    int i;

    mf_e4m3_t one = mf_f32_to_e4m3_rn_sat(x[0]); /* one value, inline */
    printf("%g -> e4m3 0x%02x = %g\n", x[0], mf_e4m3_bits(one), mf_e4m3_to_f32(one));

    if (mf_convert(MF_FP8_E4M3, q, MF_FP32, x, 4, &opts) != MF_OK) /* an array, compiled */
        return 1;
    for (i = 0; i < 4; i++)
        printf("%g -> 0x%02x = %g\n", x[i], q[i], mf_to_f32(MF_FP8_E4M3, q[i]));
    printf("overflowed %llu, subnormal %llu, inexact %llu\n", (unsigned long long)st.overflow,
           (unsigned long long)st.subnormal, (unsigned long long)st.inexact);
    return 0;
}
