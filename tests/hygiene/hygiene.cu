/* SPDX-License-Identifier: MIT */
// tests/hygiene/hygiene.cu - <minifloat.h> under nvcc: the same checks on the host and in a kernel.
//   hygiene_cuda --host    host side only (always runs)
//   hygiene_cuda --device  the kernel; exits 77 (skip) where there is no GPU
#include <cstdio>
#include <cstring>

#include <cuda_runtime.h>

#include "hygiene_body.h"

__global__ void hygiene_kernel(int *bad) { *bad = mf_hygiene_failures(); }

int main(int argc, char **argv)
{
    bool device = argc > 1 && std::strcmp(argv[1], "--device") == 0;
    if (!device) {
        int bad = mf_hygiene_failures();
        std::printf("host: %d failures\n", bad);
        return bad != 0;
    }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        std::printf("no CUDA device: skipped\n");
        return 77;
    }
    int *d_bad = nullptr, bad = -1;
    if (cudaMalloc(&d_bad, sizeof(int)) != cudaSuccess)
        return 1;
    hygiene_kernel<<<1, 1>>>(d_bad);
    if (cudaMemcpy(&bad, d_bad, sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess)
        return 1;
    cudaFree(d_bad);
    std::printf("device: %d failures\n", bad);
    return bad != 0;
}
