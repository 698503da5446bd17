/* SPDX-License-Identifier: MIT */
/* Uses the lab (minifloat_lab): an elementwise operation, an analysis and a memory plan. */
#include <minifloat/lab.h>
#include <stdio.h>

int main(void)
{
    float x[3] = {0.0f, 11.5f, 12.0f};
    uint16_t y[3];
    mf_stats st = {0, 0, 0, 0, 0};
    mf_opts o = {MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0, 0, NULL, 0, MF_PROFILE_DEFAULT};
    mf_analyze_opts ao = {MF_FP32, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0, 0, 0.0};
    mf_analyze_report r;
    mf_memory_model mm;
    mf_memory_recipe mr;
    mf_memory_cluster mc;
    mf_memory_report mrep;
    o.stats = &st;
    /* exp(0) = 1 = 0x3C00 in f16; exp(11.5) = 98715.8 and exp(12) = 162754.8 overflow FP16's 65504 */
    if (mf_unary(MF_UNARY_EXP, MF_FP16, y, MF_FP32, x, 3, &o) != MF_OK)
        return 1;
    /* 11.5 and 12 are in FP8 E4M3's range (448), 0 is a zero */
    if (mf_analyze(MF_FP8_E4M3, x, 3, &ao, &r) != MF_OK)
        return 1;
    /* GPT-2 small: 124,439,808 parameters, 16 bytes each in mixed precision before activations */
    if (mf_memory_model_preset("gpt2", &mm) != MF_OK || mf_memory_recipe_preset("bf16-amp", &mr) != MF_OK ||
        mf_memory_cluster_default(&mc) != MF_OK || mf_memory_plan(&mm, &mr, &mc, &mrep) != MF_OK ||
        mrep.params != 124439808u || mrep.gpu_total - mrep.gpu[MF_MEMORY_PART_ACTIVATIONS] != 16u * 124439808u)
        return 1;
    printf("%04x %llu overflowed; e4m3 overflow %llu; %s\n", y[0], (unsigned long long)st.overflow,
           (unsigned long long)r.overflow, mf_elementwise_math());
    return !(y[0] == 0x3C00 && y[1] == 0x7C00 && y[2] == 0x7C00 && st.overflow == 2 && r.overflow == 0);
}
