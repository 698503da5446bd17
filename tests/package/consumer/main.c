/* SPDX-License-Identifier: MIT */
/* Uses the compiled library: a bulk conversion and a query. */
#include <minifloat.h>
#include <stdio.h>

int main(void)
{
    float x[3] = {1.0f, 464.0f, 1000.0f};
    uint8_t q[3];
    mf_opts o = {MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE, 0, 0, NULL, 0, MF_PROFILE_DEFAULT};
    if (mf_convert(MF_FP8_E4M3, q, MF_FP32, x, 3, &o) != MF_OK)
        return 1;
    /* 1.0 = 0x38; 464 ties to 448 = 0x7E; 1000 saturates to 448 */
    printf("%02x %02x %02x %s\n", q[0], q[1], q[2], mf_version());
    return !(q[0] == 0x38 && q[1] == 0x7E && q[2] == 0x7E);
}
