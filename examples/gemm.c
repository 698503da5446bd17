/* SPDX-License-Identifier: MIT */
/* examples/gemm.c - an FP8 matrix product with FP32 accumulation, beside the exact one (README). */
#include <minifloat.h>
#include <stdint.h>
#include <stdio.h>

int main(void)
{
    enum { M = 2, N = 2, K = 4096 };
    static float x[M * K], w[K * N];
    static uint8_t xq[M * K], wq[K * N]; /* e4m3 codes */
    float y[M * N], exact[M * N];
    mf_gemm_opts opts = {0}; /* FP32 accumulation, C rounded to nearest even */

    for (int i = 0; i < M * K; i++)
        x[i] = (float)((i * 37) % 29 - 14) * (float)(1 << (i % 11)) / 64.0f; /* up to 224 */
    for (int i = 0; i < K * N; i++)
        w[i] = (float)((i * 11) % 23 - 11) / 16.0f + 1e-3f;
    mf_convert(MF_FP8_E4M3, xq, MF_FP32, x, M * K, NULL); /* quantize (rn, IEEE) */
    mf_convert(MF_FP8_E4M3, wq, MF_FP32, w, K * N, NULL);

    /* y = xq . wq: row-major, no transposes, alpha 1, beta 0 */
    if (mf_gemm(MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, M, N, K, 1.0f, xq, MF_FP8_E4M3, K, wq, MF_FP8_E4M3, N, 0.0f, y,
                MF_FP32, N, &opts) != MF_OK)
        return 1;
    opts.accum = MF_ACCUM_EXACT; /* the exact dot products, rounded once */
    if (mf_gemm(MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, M, N, K, 1.0f, xq, MF_FP8_E4M3, K, wq, MF_FP8_E4M3, N, 0.0f,
                exact, MF_FP32, N, &opts) != MF_OK)
        return 1;
    for (int i = 0; i < M * N; i++)
        printf("y[%d] = %-12.9g exact %-12.9g\n", i, y[i], exact[i]);
    return 0;
}
