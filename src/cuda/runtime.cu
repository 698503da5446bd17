/* SPDX-License-Identifier: MIT */
// src/cuda/runtime.cu - the CUDA runtime questions every launcher asks.
#include <cuda_runtime.h>

#include "launch.h"

extern "C" int mf__cuda_built(void) { return 1; }

extern "C" int mf__cuda_device_count(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError(); // no driver or no device: clear the sticky error, report none
        return 0;
    }
    return count;
}
