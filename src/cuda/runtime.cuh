/* SPDX-License-Identifier: MIT */
// src/cuda/runtime.cuh - what the launchers share (runtime.cu): status mapping, device scratch, grid sizes
// (private).
#ifndef MF_CUDA_RUNTIME_CUH
#define MF_CUDA_RUNTIME_CUH

#include <cuda_runtime.h>

#include "launch.h"

// MF_OK for cudaSuccess; otherwise MF_E_DEVICE, the error cleared (cudaGetLastError) where it is not
// sticky, so that one failed call does not fail the next.
int mf__cuda_status(cudaError_t e);

// MF_OK where a device is there to launch on, else MF_E_UNSUPPORTED.
int mf__cuda_ready(void);

// Device scratch memory ordered on the stream (cudaMallocAsync; cudaMalloc where the device has no
// memory pools). mf__cuda_scratch_free queues the release after the work that uses it.
struct mf__cuda_scratch {
    void *ptr;
    bool pooled;
};
int mf__cuda_scratch_alloc(mf__cuda_scratch *s, size_t bytes, cudaStream_t stream);
void mf__cuda_scratch_free(mf__cuda_scratch *s, cudaStream_t stream);

// Blocks for `items` work items of one thread each at `threads` per block, capped (the kernels loop
// over the grid); at least 1.
unsigned mf__cuda_blocks(size_t items, unsigned threads);

#endif // MF_CUDA_RUNTIME_CUH
