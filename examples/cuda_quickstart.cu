/* SPDX-License-Identifier: MIT */
// examples/cuda_quickstart.cu - the README's CUDA example: the same header inside a kernel.
#include <cstdio>
#include <cuda_runtime.h>
#include <minifloat.h>

__global__ void quantize(const float *x, uint8_t *q, int n, uint64_t seed)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) // stochastic rounding to e4m3 with the library's Philox stream, 8 bits an element
               // (mf_sr_width(MF_FP8_E4M3)): the same bits as mf_convert on the CPU
        q[i] = mf_e4m3_bits(mf_f32_to_e4m3_sr_sat(x[i], mf_sr_rbits(seed, (uint64_t)i, 8)));
}

int main()
{
    const int n = 4;
    float h_x[n] = {0.1f, 1.1f, 300.0f, 1000.0f}, *d_x;
    uint8_t h_q[n], *d_q;
    if (cudaMalloc(&d_x, sizeof h_x) != cudaSuccess || cudaMalloc(&d_q, sizeof h_q) != cudaSuccess) {
        std::printf("no CUDA device\n");
        return 0;
    }
    cudaMemcpy(d_x, h_x, sizeof h_x, cudaMemcpyHostToDevice);
    quantize<<<1, 32>>>(d_x, d_q, n, 42);
    cudaMemcpy(h_q, d_q, sizeof h_q, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++)
        std::printf("%g -> 0x%02x = %g\n", h_x[i], h_q[i], mf_to_f32(MF_FP8_E4M3, h_q[i]));
    cudaFree(d_x);
    cudaFree(d_q);
    return 0;
}
