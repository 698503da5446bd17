/* SPDX-License-Identifier: MIT */
// src/cuda/convert.cu - mf_cuda_convert's kernels and launcher: mf_convert on the GPU, same bytes and counts.
//
// Two kernels, chosen per call by the launcher:
//   - the fast kernel, f32 -> f16 / bf16 / e4m3 / e5m2 in rn without counts (the hot casts of training),
//     one instantiation per (destination, policy): 16-byte loads and one 16-byte store per group;
//   - the generic kernel, one instantiation per destination format (so the format's facts fold), the
//     source format, mode, policy and counting decided at run time: every other call, equal formats
//     (FP6 masks, e2m1 nibbles) included. Counts are reduced per block and added atomically.
// Both run the element code of elem.cuh, which tests/cuda/test_cuda_host.cu checks on the CPU.
#include <cuda_runtime.h>

#include "elem.cuh"
#include "runtime.cuh"

namespace
{

constexpr unsigned kThreads = 256;
constexpr unsigned kGroup = 16; // elements per thread and step of the generic kernel: a whole Philox
                                // block for 8-bit destinations, so the warp's blocks change together

// Add each thread's counts into stats[0..4] (overflow, underflow, subnormal, nan, inexact) with one
// atomic per block and counter. Every thread of the block must call it.
__device__ void mf__block_add_counts(mf_stats c, unsigned long long *stats)
{
    __shared__ mf_stats warp_sum[kThreads / 32];
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    for (unsigned off = 16; off; off >>= 1) {
        c.overflow += __shfl_down_sync(0xFFFFFFFFu, c.overflow, off);
        c.underflow += __shfl_down_sync(0xFFFFFFFFu, c.underflow, off);
        c.subnormal += __shfl_down_sync(0xFFFFFFFFu, c.subnormal, off);
        c.nan += __shfl_down_sync(0xFFFFFFFFu, c.nan, off);
        c.inexact += __shfl_down_sync(0xFFFFFFFFu, c.inexact, off);
    }
    if (lane == 0)
        warp_sum[warp] = c;
    __syncthreads();
    if (warp != 0)
        return;
    c = lane < blockDim.x / 32 ? warp_sum[lane] : mf_stats{0, 0, 0, 0, 0};
    for (unsigned off = 16; off; off >>= 1) {
        c.overflow += __shfl_down_sync(0xFFFFFFFFu, c.overflow, off);
        c.underflow += __shfl_down_sync(0xFFFFFFFFu, c.underflow, off);
        c.subnormal += __shfl_down_sync(0xFFFFFFFFu, c.subnormal, off);
        c.nan += __shfl_down_sync(0xFFFFFFFFu, c.nan, off);
        c.inexact += __shfl_down_sync(0xFFFFFFFFu, c.inexact, off);
    }
    if (lane == 0) {
        const unsigned long long v[5] = {c.overflow, c.underflow, c.subnormal, c.nan, c.inexact};
        for (int k = 0; k < 5; k++)
            if (v[k])
                atomicAdd(stats + k, v[k]);
    }
}

// Elements [first, n) of the call in groups of kGroup (first even: e2m1 bytes belong to one thread).
template <mf_format D>
__global__ void __launch_bounds__(kThreads) mf__k_convert(mf__cu_cvt a, size_t first, unsigned long long *stats)
{
    const size_t groups = (a.n - first + kGroup - 1) / kGroup;
    mf_stats c = {0, 0, 0, 0, 0};
    for (size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x; g < groups; g += (size_t)gridDim.x * blockDim.x) {
        const size_t i0 = first + g * kGroup, i1 = a.n - i0 < kGroup ? a.n : i0 + kGroup;
        if (stats)
            mf__cu_convert_range<D, true>(a, i0, i1, &c);
        else
            mf__cu_convert_range<D, false>(a, i0, i1, &c);
    }
    if (stats)
        mf__block_add_counts(c, stats);
}

// Element i of the fast kernel alone (its head and tail).
template <mf_format D, mf_overflow O> __device__ void mf__fast_one(const float *src, unsigned char *dst, size_t i)
{
    const uint32_t code = mf__cu_fast_elem<D, O>(src[i]);
    if (D == MF_FP16 || D == MF_BF16)
        reinterpret_cast<uint16_t *>(dst)[i] = (uint16_t)code;
    else
        dst[i] = (unsigned char)code;
}

// f32 -> D (f16, bf16, e4m3, e5m2) in rn under policy O. src + head and dst + head elements are
// 16-byte aligned; the body is whole groups from head on; one extra work item (the last) does the
// head and the tail element by element.
template <mf_format D, mf_overflow O>
__global__ void __launch_bounds__(kThreads)
    mf__k_convert_fast(const float *src, unsigned char *dst, size_t n, size_t head)
{
    constexpr unsigned G = mf__cu_fast_group<D>();
    constexpr unsigned DB = D == MF_FP16 || D == MF_BF16 ? 2 : 1;
    const size_t groups = (n - head) / G;
    for (size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x; g <= groups; g += (size_t)gridDim.x * blockDim.x) {
        if (g == groups) {
            for (size_t i = 0; i < head; i++)
                mf__fast_one<D, O>(src, dst, i);
            for (size_t i = head + groups * G; i < n; i++)
                mf__fast_one<D, O>(src, dst, i);
            continue;
        }
        const size_t i0 = head + g * G;
        const uint4 *in = reinterpret_cast<const uint4 *>(src + i0);
        uint32_t w[4] = {0, 0, 0, 0};
#pragma unroll
        for (unsigned q = 0; q < G / 4; q++) {
            const uint4 v = in[q];
            const float x[4] = {__uint_as_float(v.x), __uint_as_float(v.y), __uint_as_float(v.z), __uint_as_float(v.w)};
#pragma unroll
            for (unsigned k = 0; k < 4; k++) {
                const unsigned e = 4 * q + k, bit = 8 * DB * e; // element e's bits in the 16-byte group
                w[bit / 32] |= mf__cu_fast_elem<D, O>(x[k]) << (bit % 32);
            }
        }
        *reinterpret_cast<uint4 *>(dst + i0 * DB) = make_uint4(w[0], w[1], w[2], w[3]);
    }
}

template <mf_format D>
void mf__launch_generic_d(const mf__cu_cvt &a, size_t first, unsigned long long *stats, cudaStream_t st)
{
    const size_t groups = (a.n - first + kGroup - 1) / kGroup;
    mf__k_convert<D><<<mf__cuda_blocks(groups, kThreads), kThreads, 0, st>>>(a, first, stats);
}

cudaError_t mf__launch_generic(mf_format d, const mf__cu_cvt &a, size_t first, unsigned long long *stats,
                               cudaStream_t st)
{
    switch (d) {
#define MF__FORMAT(e, ...) \
    case e: mf__launch_generic_d<e>(a, first, stats, st); break;
#include <minifloat/formats.inc>
#undef MF__FORMAT
    }
    return cudaGetLastError();
}

template <mf_format D, mf_overflow O> void mf__launch_fast_d(const mf__cu_cvt &a, size_t head, cudaStream_t st)
{
    const size_t items = (a.n - head) / mf__cu_fast_group<D>() + 1;
    mf__k_convert_fast<D, O><<<mf__cuda_blocks(items, kThreads), kThreads, 0, st>>>(
        reinterpret_cast<const float *>(a.src), a.dst, a.n, head);
}

// The fast kernel where it applies (returns true and sets *err), else false.
bool mf__try_fast(mf_format d, const mf__cu_cvt &a, bool count, cudaStream_t st, cudaError_t *err)
{
    const unsigned db = d == MF_FP16 || d == MF_BF16 ? 2 : 1;
    const uintptr_t s = (uintptr_t)a.src, t = (uintptr_t)a.dst;
    if (a.src_fmt != MF_FP32 || a.round != MF_ROUND_NEAREST_EVEN || count || s % 4 != 0 || t % db != 0)
        return false;
    if (d != MF_FP16 && d != MF_BF16 && d != MF_FP8_E4M3 && d != MF_FP8_E5M2)
        return false;
    const size_t head = (16 - s % 16) % 16 / 4; // elements up to src's first 16-byte boundary
    if ((t + head * db) % 16 != 0 || head > a.n)
        return false; // the two arrays cannot both be aligned: the generic kernel
    const bool sat = a.overflow == MF_OVERFLOW_SATURATE;
    switch (d) {
    case MF_FP16:
        sat ? mf__launch_fast_d<MF_FP16, MF_OVERFLOW_SATURATE>(a, head, st)
            : mf__launch_fast_d<MF_FP16, MF_OVERFLOW_IEEE>(a, head, st);
        break;
    case MF_BF16:
        sat ? mf__launch_fast_d<MF_BF16, MF_OVERFLOW_SATURATE>(a, head, st)
            : mf__launch_fast_d<MF_BF16, MF_OVERFLOW_IEEE>(a, head, st);
        break;
    case MF_FP8_E4M3:
        sat ? mf__launch_fast_d<MF_FP8_E4M3, MF_OVERFLOW_SATURATE>(a, head, st)
            : mf__launch_fast_d<MF_FP8_E4M3, MF_OVERFLOW_IEEE>(a, head, st);
        break;
    default:
        sat ? mf__launch_fast_d<MF_FP8_E5M2, MF_OVERFLOW_SATURATE>(a, head, st)
            : mf__launch_fast_d<MF_FP8_E5M2, MF_OVERFLOW_IEEE>(a, head, st);
        break;
    }
    *err = cudaGetLastError();
    return true;
}

// Equal formats: mf_convert's copy with memmove semantics. A plain copy where the bytes are the
// codes; the generic kernel (which copies codes) where the bits above a code (FP6's top two) must be
// cleared, an odd e2m1 count keeps the last high nibble, or counts are wanted; overlapping arrays
// through a scratch copy.
cudaError_t mf__copy_same(mf__cu_cvt a, mf_format fmt, unsigned long long *stats, cudaStream_t st)
{
    const bool packed = mf__fmt_store_bits(fmt) == 4; // two codes a byte
    const size_t bytes = packed ? a.n / 2 + (a.n & 1) : a.n * mf__cu_elem_bytes(fmt);
    const bool kernel = mf__fmt_get(fmt).bits < mf__fmt_store_bits(fmt) || stats;
    const uintptr_t s = (uintptr_t)a.src, t = (uintptr_t)a.dst;
    cudaError_t e;
    if (s == t) // in place: each element is read and written by the same thread
        return kernel ? mf__launch_generic(fmt, a, 0, stats, st) : cudaSuccess;
    if (s < t + bytes && t < s + bytes) { // overlap: cudaMemcpy's result would be undefined
        mf__cuda_scratch tmp;
        if (mf__cuda_scratch_alloc(&tmp, bytes, st) != MF_OK)
            return cudaErrorMemoryAllocation;
        e = cudaMemcpyAsync(tmp.ptr, a.src, bytes, cudaMemcpyDeviceToDevice, st);
        if (e == cudaSuccess) {
            a.src = static_cast<const unsigned char *>(tmp.ptr);
            e = mf__launch_generic(fmt, a, 0, stats, st);
        }
        mf__cuda_scratch_free(&tmp, st);
        return e;
    }
    if (kernel)
        return mf__launch_generic(fmt, a, 0, stats, st);
    e = cudaMemcpyAsync(a.dst, a.src, packed ? a.n / 2 : bytes, cudaMemcpyDeviceToDevice, st);
    if (e == cudaSuccess && packed && (a.n & 1))
        e = mf__launch_generic(fmt, a, a.n - 1, nullptr, st); // the last low nibble alone
    return e;
}

} // namespace

extern "C" int mf__cuda_launch_convert(mf_format dst_fmt, void *dst, mf_format src_fmt, const void *src, size_t n,
                                       const mf_opts *opts, void *stream)
{
    const cudaStream_t st = static_cast<cudaStream_t>(stream);
    const unsigned sb = mf__cu_elem_bytes(src_fmt), db = mf__cu_elem_bytes(dst_fmt);
    mf__cuda_scratch counts = {nullptr, true};
    unsigned long long *dstats = nullptr, host[5] = {0, 0, 0, 0, 0};
    cudaError_t e;
    int rc = mf__cuda_ready();
    if (rc != MF_OK)
        return rc;

    mf__cu_cvt a;
    a.dst = static_cast<unsigned char *>(dst);
    a.src = static_cast<const unsigned char *>(src);
    a.n = n;
    a.src_fmt = src_fmt;
    a.round = opts->round;
    a.overflow = opts->overflow;
    a.seed = opts->seed;
    a.sr_offset = opts->sr_offset;
    a.src_aligned = sb <= 1 || (uintptr_t)src % sb == 0;
    a.dst_aligned = db <= 1 || (uintptr_t)dst % db == 0;

    if (opts->stats) {
        rc = mf__cuda_scratch_alloc(&counts, sizeof host, st);
        if (rc != MF_OK)
            return rc;
        dstats = static_cast<unsigned long long *>(counts.ptr);
        e = cudaMemsetAsync(dstats, 0, sizeof host, st);
        if (e != cudaSuccess)
            goto done;
    }
    if (dst_fmt == src_fmt)
        e = mf__copy_same(a, dst_fmt, dstats, st);
    else if (!mf__try_fast(dst_fmt, a, dstats != nullptr, st, &e))
        e = mf__launch_generic(dst_fmt, a, 0, dstats, st);
    if (e == cudaSuccess && dstats) { // the counts come back: wait for them
        e = cudaMemcpyAsync(host, dstats, sizeof host, cudaMemcpyDeviceToHost, st);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(st);
    }
done:
    rc = mf__cuda_status(e);
    mf__cuda_scratch_free(&counts, st);
    if (rc == MF_OK && opts->stats) {
        opts->stats->overflow = host[0];
        opts->stats->underflow = host[1];
        opts->stats->subnormal = host[2];
        opts->stats->nan = host[3];
        opts->stats->inexact = host[4];
    }
    return rc;
}
