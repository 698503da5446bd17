/* SPDX-License-Identifier: MIT */
// src/cuda/runtime.cu - the CUDA runtime questions every launcher asks, and what they share.
#include <cuda_runtime.h>

#include "runtime.cuh"

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

int mf__cuda_status(cudaError_t e)
{
    if (e == cudaSuccess)
        return MF_OK;
    (void)cudaGetLastError();
    return MF_E_DEVICE;
}

int mf__cuda_ready(void) { return mf__cuda_device_count() > 0 ? MF_OK : MF_E_UNSUPPORTED; }

int mf__cuda_scratch_alloc(mf__cuda_scratch *s, size_t bytes, cudaStream_t stream)
{
    s->ptr = nullptr;
    s->pooled = true;
    cudaError_t e = cudaMallocAsync(&s->ptr, bytes, stream);
    if (e == cudaErrorNotSupported) { // a device or driver without memory pools
        (void)cudaGetLastError();
        s->pooled = false;
        e = cudaMalloc(&s->ptr, bytes);
    }
    if (e != cudaSuccess)
        s->ptr = nullptr;
    return mf__cuda_status(e);
}

void mf__cuda_scratch_free(mf__cuda_scratch *s, cudaStream_t stream)
{
    if (!s->ptr)
        return;
    if (s->pooled)
        (void)cudaFreeAsync(s->ptr, stream);
    else
        (void)cudaFree(s->ptr); // synchronises: the work using it is done first
    (void)cudaGetLastError();   // a failed release must not fail the next call
    s->ptr = nullptr;
}

unsigned mf__cuda_blocks(size_t items, unsigned threads)
{
    const size_t cap = (size_t)1 << 20; // beyond this the kernels loop; far below gridDim.x's limit
    size_t b = (items + threads - 1) / threads;
    return (unsigned)(b == 0 ? 1 : b < cap ? b : cap);
}
