/* SPDX-License-Identifier: MIT */
// src/cuda/reduce.cu - mf_cuda_unscale_check and mf_cuda_amax: one pass each, with a block reduction.
//
// Both read the array in 16-byte vectors from its first 16-byte boundary on (the elements before it and
// after the last whole vector go one by one), or element by element with byte loads where the pointer
// is not even a multiple of the element size. The per-element rules are elem.cuh's. The amax is the
// maximum of integer keys (the magnitude codes), so the result does not depend on the order of the
// reduction; the found flag is an OR.
#include <cuda_runtime.h>

#include "elem.cuh"
#include "runtime.cuh"

namespace
{

constexpr unsigned kThreads = 256;

template <mf_format F> struct mf__elem_type;
template <> struct mf__elem_type<MF_FP32> {
    typedef uint32_t type;
};
template <> struct mf__elem_type<MF_FP16> {
    typedef uint16_t type;
};
template <> struct mf__elem_type<MF_BF16> {
    typedef uint16_t type;
};
template <> struct mf__elem_type<MF_FP64> {
    typedef uint64_t type;
};

// How a kernel walks n elements of S bytes at p: `head` elements one by one, then `vecs` 16-byte
// vectors, then the tail one by one; or, where p is not a multiple of S, every element by byte loads.
struct mf__walk {
    size_t n, head, vecs;
    bool aligned;
};

__host__ mf__walk mf__walk_of(const void *p, size_t n, unsigned s)
{
    mf__walk w;
    const uintptr_t a = (uintptr_t)p;
    w.n = n;
    w.aligned = a % s == 0;
    w.head = w.aligned ? (16 - a % 16) % 16 / s : n;
    if (w.head > n)
        w.head = n;
    w.vecs = w.aligned ? (n - w.head) / (16 / s) : 0;
    return w;
}

// Work items: one per vector, plus one per element of the unaligned case, plus one for head and tail.
__host__ __device__ size_t mf__walk_items(const mf__walk &w) { return w.aligned ? w.vecs + 1 : w.n; }

// Visit item g of walk w: fn(i, code) for each element i it covers (as a code of F).
template <mf_format F, typename Fn>
__device__ void mf__visit(const unsigned char *p, const mf__walk &w, size_t g, Fn fn)
{
    typedef typename mf__elem_type<F>::type T;
    constexpr unsigned V = 16 / sizeof(T);
    if (!w.aligned) {
        fn(g, mf__cu_ld<T>(p + g * sizeof(T), false));
        return;
    }
    if (g == w.vecs) { // head and tail
        for (size_t i = 0; i < w.head; i++)
            fn(i, reinterpret_cast<const T *>(p)[i]);
        for (size_t i = w.head + w.vecs * V; i < w.n; i++)
            fn(i, reinterpret_cast<const T *>(p)[i]);
        return;
    }
    const size_t i0 = w.head + g * V;
    const uint4 v = *reinterpret_cast<const uint4 *>(p + i0 * sizeof(T));
    T e[V];
    memcpy(e, &v, sizeof v);
#pragma unroll
    for (unsigned k = 0; k < V; k++)
        fn(i0 + k, e[k]);
}

// Unscale in place; *found |= 1 if an element was inf or NaN. Elements of a vector are written back
// as one vector.
template <mf_format F>
__global__ void __launch_bounds__(kThreads) mf__k_unscale(unsigned char *p, mf__walk w, uint32_t inv, int *found)
{
    typedef typename mf__elem_type<F>::type T;
    constexpr unsigned V = 16 / sizeof(T);
    const bool write = F != MF_FP32 || inv != 0x3F800000u; // f32 with inv == 1: only the check
    const size_t items = mf__walk_items(w);
    bool any = false;
    for (size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x; g < items; g += (size_t)gridDim.x * blockDim.x) {
        if (w.aligned && g < w.vecs) {
            const size_t i0 = w.head + g * V;
            uint4 v = *reinterpret_cast<const uint4 *>(p + i0 * sizeof(T));
            T e[V];
            memcpy(e, &v, sizeof v);
#pragma unroll
            for (unsigned k = 0; k < V; k++) {
                bool bad;
                e[k] = (T)mf__cu_unscale_elem<F>(e[k], inv, &bad);
                any |= bad;
            }
            if (write) {
                memcpy(&v, e, sizeof v);
                *reinterpret_cast<uint4 *>(p + i0 * sizeof(T)) = v;
            }
            continue;
        }
        mf__visit<F>(p, w, g, [&](size_t i, T code) {
            bool bad;
            const T out = (T)mf__cu_unscale_elem<F>(code, inv, &bad);
            any |= bad;
            if (write)
                mf__cu_st<T>(p + i * sizeof(T), out, w.aligned);
        });
    }
    if (__syncthreads_or(any) && threadIdx.x == 0)
        atomicOr(found, 1);
}

// *amax = max(*amax, the largest key of the array), per block then atomically.
template <mf_format F>
__global__ void __launch_bounds__(kThreads) mf__k_amax(const unsigned char *p, mf__walk w, unsigned long long *amax)
{
    typedef typename mf__elem_type<F>::type T;
    __shared__ unsigned long long warp_max[kThreads / 32];
    const size_t items = mf__walk_items(w);
    unsigned long long m = 0;
    for (size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x; g < items; g += (size_t)gridDim.x * blockDim.x)
        mf__visit<F>(p, w, g, [&](size_t, T code) {
            const unsigned long long k = mf__cu_amax_key<F>(code);
            m = k > m ? k : m;
        });
    for (unsigned off = 16; off; off >>= 1) {
        const unsigned long long o = __shfl_down_sync(0xFFFFFFFFu, m, off);
        m = o > m ? o : m;
    }
    if ((threadIdx.x & 31u) == 0)
        warp_max[threadIdx.x >> 5] = m;
    __syncthreads();
    if (threadIdx.x >= 32)
        return;
    m = threadIdx.x < blockDim.x / 32 ? warp_max[threadIdx.x] : 0;
    for (unsigned off = 16; off; off >>= 1) {
        const unsigned long long o = __shfl_down_sync(0xFFFFFFFFu, m, off);
        m = o > m ? o : m;
    }
    if (threadIdx.x == 0 && m != 0)
        atomicMax(amax, m);
}

template <mf_format F> void mf__launch_unscale_f(unsigned char *p, size_t n, uint32_t inv, int *found, cudaStream_t st)
{
    const mf__walk w = mf__walk_of(p, n, sizeof(typename mf__elem_type<F>::type));
    mf__k_unscale<F><<<mf__cuda_blocks(mf__walk_items(w), kThreads), kThreads, 0, st>>>(p, w, inv, found);
}

template <mf_format F>
void mf__launch_amax_f(const unsigned char *p, size_t n, unsigned long long *amax, cudaStream_t st)
{
    const mf__walk w = mf__walk_of(p, n, sizeof(typename mf__elem_type<F>::type));
    mf__k_amax<F><<<mf__cuda_blocks(mf__walk_items(w), kThreads), kThreads, 0, st>>>(p, w, amax);
}

} // namespace

extern "C" int mf__cuda_launch_unscale_check(float inv, mf_format fmt, void *grads, size_t n, int *found, void *stream)
{
    const cudaStream_t st = static_cast<cudaStream_t>(stream);
    unsigned char *p = static_cast<unsigned char *>(grads);
    const uint32_t inv_bits = mf__f32_bits(inv);
    mf__cuda_scratch flag;
    int host = 0, rc = mf__cuda_ready();
    cudaError_t e;
    if (rc != MF_OK)
        return rc;
    rc = mf__cuda_scratch_alloc(&flag, sizeof(int), st);
    if (rc != MF_OK)
        return rc;
    int *dflag = static_cast<int *>(flag.ptr);
    e = cudaMemsetAsync(dflag, 0, sizeof(int), st);
    if (e == cudaSuccess) {
        if (fmt == MF_FP32)
            mf__launch_unscale_f<MF_FP32>(p, n, inv_bits, dflag, st);
        else if (fmt == MF_FP16)
            mf__launch_unscale_f<MF_FP16>(p, n, inv_bits, dflag, st);
        else
            mf__launch_unscale_f<MF_BF16>(p, n, inv_bits, dflag, st);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(&host, dflag, sizeof(int), cudaMemcpyDeviceToHost, st);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(st);
    rc = mf__cuda_status(e);
    mf__cuda_scratch_free(&flag, st);
    if (rc == MF_OK)
        *found = host != 0;
    return rc;
}

extern "C" int mf__cuda_launch_amax(mf_format fmt, const void *x, size_t n, float *amax, void *stream)
{
    const cudaStream_t st = static_cast<cudaStream_t>(stream);
    const unsigned char *p = static_cast<const unsigned char *>(x);
    mf__cuda_scratch buf;
    unsigned long long host = 0;
    int rc = mf__cuda_ready();
    cudaError_t e;
    if (rc != MF_OK)
        return rc;
    rc = mf__cuda_scratch_alloc(&buf, sizeof host, st);
    if (rc != MF_OK)
        return rc;
    unsigned long long *dmax = static_cast<unsigned long long *>(buf.ptr);
    e = cudaMemsetAsync(dmax, 0, sizeof host, st);
    if (e == cudaSuccess) {
        switch (fmt) {
        case MF_FP64: mf__launch_amax_f<MF_FP64>(p, n, dmax, st); break;
        case MF_FP16: mf__launch_amax_f<MF_FP16>(p, n, dmax, st); break;
        case MF_BF16: mf__launch_amax_f<MF_BF16>(p, n, dmax, st); break;
        default: mf__launch_amax_f<MF_FP32>(p, n, dmax, st); break;
        }
        e = cudaGetLastError();
    }
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(&host, dmax, sizeof host, cudaMemcpyDeviceToHost, st);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(st);
    rc = mf__cuda_status(e);
    mf__cuda_scratch_free(&buf, st);
    if (rc == MF_OK)
        *amax = mf__cu_amax_value(fmt, host);
    return rc;
}
