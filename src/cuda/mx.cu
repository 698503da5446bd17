// SPDX-License-Identifier: MIT
// src/cuda/mx.cu - mf_cuda_mx_quantize and mf_cuda_nvfp4_quantize: the host's bytes (src/scale/mx.c,
// src/scale/nvfp4.c) from the block code of mx_elem.cuh.
//
// Row-wise blocks are contiguous in the flat index, so one kernel does all: a thread takes a group of 8
// consecutive elements, the 4 (MX) or 2 (NVFP4) threads of a block combine their maxima with shuffles,
// the first writes the scale, each writes its group's codes (8, 4 or 6 bytes). Column-wise blocks run
// down columns: a first kernel writes the scales (a thread per column of a row block, coalesced across
// columns), a second reads them back per element, in the same groups of 8 flat elements, as the host
// does. NVFP4 without amax_in first folds the tensor's amax on the device into a scratch word the
// quantize kernels read, so nothing waits unless amax_out or stats is asked for. Statistics: per-thread
// counters, summed per warp, then one 64-bit atomicAdd per warp and field.
#include <cuda_runtime.h>

#include "mx_elem.cuh"
#include "runtime.cuh"

namespace
{

constexpr int kThreads = 256;

// A CUDA status as the library's code: a device without an image of these kernels (before sm_80) lacks
// what the call needs (MF_E_UNSUPPORTED); anything else is runtime.cu's mapping.
int mf__mx_err(cudaError_t e)
{
    if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction) {
        (void)cudaGetLastError();
        return MF_E_UNSUPPORTED;
    }
    return mf__cuda_status(e);
}

unsigned mf__mx_blocks(size_t work) { return mf__cuda_blocks(work, kThreads); }

// The warp's counters summed into dst[0..4] (mf_stats' order); every lane of the warp must call it.
__device__ void mf__flush(const mf_stats &s, unsigned long long *dst)
{
    unsigned long long v[5] = {s.overflow, s.underflow, s.subnormal, s.nan, s.inexact};
    for (int f = 0; f < 5; f++) {
        for (int o = 16; o > 0; o >>= 1)
            v[f] += __shfl_down_sync(0xFFFFFFFFu, v[f], o);
        if ((threadIdx.x & 31) == 0 && v[f])
            atomicAdd(dst + f, v[f]);
    }
}

// The 8 floats of group g, by two 16-byte loads where x allows it.
__device__ void mf__load8(const float *x, size_t g, bool vec, float *v)
{
    if (vec) {
        const float4 a = reinterpret_cast<const float4 *>(x)[2 * g], b = reinterpret_cast<const float4 *>(x)[2 * g + 1];
        v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w, v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
    } else
        for (int j = 0; j < 8; j++)
            v[j] = x[8 * g + j];
}

// nb bytes (8, 4 or 6) to out, as one store where out is aligned for it.
__device__ void mf__store(uint8_t *out, const uint8_t *buf, int nb)
{
    const uintptr_t p = reinterpret_cast<uintptr_t>(out);
    if (nb == 8 && (p & 7) == 0)
        *reinterpret_cast<uint2 *>(out) = make_uint2(buf[0] | buf[1] << 8 | buf[2] << 16 | (unsigned)buf[3] << 24,
                                                     buf[4] | buf[5] << 8 | buf[6] << 16 | (unsigned)buf[7] << 24);
    else if (nb == 4 && (p & 3) == 0)
        *reinterpret_cast<unsigned *>(out) = buf[0] | buf[1] << 8 | buf[2] << 16 | (unsigned)buf[3] << 24;
    else if (nb == 6 && (p & 1) == 0)
        for (int j = 0; j < 6; j += 2)
            *reinterpret_cast<unsigned short *>(out + j) = (unsigned short)(buf[j] | buf[j + 1] << 8);
    else
        for (int j = 0; j < nb; j++)
            out[j] = buf[j];
}

// ---- MX ----------------------------------------------------------------------------------------------

struct MxArgs {
    mf__mx_ctx t;
    const float *x;
    size_t cols, groups; // groups = rows * cols / 8
    uint8_t *elems, *scales;
    unsigned long long *stats; // device counters, or NULL
    int e2m1, fp6p, vec;
};

// Group g's codes (scales k8[j] per element) into elems; events counted into s.
__device__ void mf__mx_put(const MxArgs &a, size_t g, const float *v, const unsigned *k8, mf_stats &s)
{
    uint8_t buf[8];
    const int nb = mf__mx_group(a.t, g, v, k8, a.e2m1, a.fp6p, buf, a.stats ? &s : nullptr);
    mf__store(a.elems + (size_t)nb * g, buf, nb);
}

// Row-wise: scales and elements in one pass. The loop bound is the same for a whole CUDA block (base),
// so every lane reaches the shuffles; lanes past the end compute on zeros and store nothing.
__global__ void __launch_bounds__(kThreads) mf__mx_rowwise_k(MxArgs a)
{
    mf_stats s = {0, 0, 0, 0, 0};
    for (size_t base = (size_t)blockIdx.x * blockDim.x; base < a.groups; base += (size_t)gridDim.x * blockDim.x) {
        const size_t g = base + threadIdx.x;
        const bool act = g < a.groups;
        float v[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        uint32_t mag = 0;
        if (act)
            mf__load8(a.x, g, a.vec, v);
        for (int j = 0; j < 8; j++) {
            const uint32_t m = mf__f32_bits(v[j]) & 0x7FFFFFFFu;
            mag = m > mag ? m : mag;
        }
        mag = max(mag, __shfl_xor_sync(0xFFFFFFFFu, mag, 1));
        mag = max(mag, __shfl_xor_sync(0xFFFFFFFFu, mag, 2));
        if (act) {
            const unsigned k = mf__mx_scale_code(a.t, mag);
            const unsigned k8[8] = {k, k, k, k, k, k, k, k};
            if ((g & 3) == 0)
                a.scales[g >> 2] = (uint8_t)k;
            mf__mx_put(a, g, v, k8, s);
        }
    }
    if (a.stats)
        mf__flush(s, a.stats);
}

// Column-wise scales: thread t is column t % cols of row block t / cols.
__global__ void __launch_bounds__(kThreads)
    mf__mx_colscale_k(mf__mx_ctx t, const float *x, size_t cols, size_t total, uint8_t *scales)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
        const size_t rb = i / cols, c = i % cols;
        const float *p = x + rb * MF_MX_BLOCK * cols + c;
        uint32_t mag = 0;
        for (int b = 0; b < MF_MX_BLOCK; b++) {
            const uint32_t m = mf__f32_bits(p[(size_t)b * cols]) & 0x7FFFFFFFu;
            mag = m > mag ? m : mag;
        }
        scales[i] = (uint8_t)mf__mx_scale_code(t, mag);
    }
}

// Column-wise elements: group g's scales read back from the scale array, element (r, c) taking
// scales[(r / 32) * cols + c].
__global__ void __launch_bounds__(kThreads) mf__mx_colelem_k(MxArgs a)
{
    mf_stats s = {0, 0, 0, 0, 0};
    for (size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x; g < a.groups; g += (size_t)gridDim.x * blockDim.x) {
        float v[8];
        unsigned k8[8];
        size_t r = 8 * g / a.cols, c = 8 * g % a.cols;
        mf__load8(a.x, g, a.vec, v);
        for (int j = 0; j < 8; j++) {
            k8[j] = a.scales[(r / MF_MX_BLOCK) * a.cols + c];
            if (++c == a.cols)
                c = 0, r++;
        }
        mf__mx_put(a, g, v, k8, s);
    }
    if (a.stats)
        mf__flush(s, a.stats);
}

// ---- NVFP4 -------------------------------------------------------------------------------------------

// The tensor's NaN-skipping amax, as bits, into *out (which starts at 0); at most 4096 blocks, so at
// most 32768 atomics meet on the one word.
__global__ void __launch_bounds__(kThreads) mf__nv_amax_k(const float *x, size_t n, unsigned *out)
{
    uint32_t acc = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        acc = mf__nv_fold(acc, x[i]);
    acc = __reduce_max_sync(0xFFFFFFFFu, acc);
    if ((threadIdx.x & 31) == 0 && acc)
        atomicMax(out, acc);
}

struct NvArgs {
    float amax;               // the tensor amax when amax_dev is NULL
    const unsigned *amax_dev; // the device fold's result, or NULL
    int sr;
    uint64_t seed, sr_offset;
    const float *x;
    size_t cols, groups;
    uint8_t *elems, *scales;
    unsigned long long *stats;
    int vec;
};

__device__ mf__nv_ctx mf__nv_ctx_of(const NvArgs &a)
{
    const float amax = a.amax_dev ? __uint_as_float(*a.amax_dev) : a.amax;
    return mf__nv_ctx_make(amax, a.sr, a.seed, a.sr_offset);
}

// Group g's codes (block inverse inv[j] per element) into elems (4 bytes).
__device__ void mf__nv_put(const NvArgs &a, const mf__nv_ctx &t, size_t g, const float *v, const float *inv,
                           mf_stats &s)
{
    uint8_t buf[8];
    mf__nv_group(t, g, v, inv, buf, a.stats ? &s : nullptr);
    mf__store(a.elems + 4 * g, buf, 4);
}

__global__ void __launch_bounds__(kThreads) mf__nv_rowwise_k(NvArgs a)
{
    const mf__nv_ctx t = mf__nv_ctx_of(a);
    mf_stats s = {0, 0, 0, 0, 0};
    for (size_t base = (size_t)blockIdx.x * blockDim.x; base < a.groups; base += (size_t)gridDim.x * blockDim.x) {
        const size_t g = base + threadIdx.x;
        const bool act = g < a.groups;
        float v[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        uint32_t bmax = 0;
        if (act)
            mf__load8(a.x, g, a.vec, v);
        for (int j = 0; j < 8; j++)
            bmax = mf__nv_fold(bmax, v[j]);
        bmax = max(bmax, __shfl_xor_sync(0xFFFFFFFFu, bmax, 1));
        if (act) {
            const unsigned k = mf__nv_scale_code(t, bmax);
            const float q = mf__nv_inv(t, k);
            const float inv[8] = {q, q, q, q, q, q, q, q};
            if ((g & 1) == 0)
                a.scales[g >> 1] = (uint8_t)k;
            mf__nv_put(a, t, g, v, inv, s);
        }
    }
    if (a.stats)
        mf__flush(s, a.stats);
}

__global__ void __launch_bounds__(kThreads) mf__nv_colscale_k(NvArgs a, size_t total)
{
    const mf__nv_ctx t = mf__nv_ctx_of(a);
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
        const size_t rb = i / a.cols, c = i % a.cols;
        const float *p = a.x + rb * MF_NVFP4_BLOCK * a.cols + c;
        uint32_t bmax = 0;
        for (int b = 0; b < MF_NVFP4_BLOCK; b++)
            bmax = mf__nv_fold(bmax, p[(size_t)b * a.cols]);
        a.scales[i] = (uint8_t)mf__nv_scale_code(t, bmax);
    }
}

// Column-wise elements; the 128 block inverses (one per scale code) are computed once per CUDA block.
__global__ void __launch_bounds__(kThreads) mf__nv_colelem_k(NvArgs a)
{
    __shared__ float inv_of[128];
    const mf__nv_ctx t = mf__nv_ctx_of(a);
    mf_stats s = {0, 0, 0, 0, 0};
    for (unsigned q = threadIdx.x; q < 128; q += blockDim.x)
        inv_of[q] = mf__nv_inv(t, q);
    __syncthreads();
    for (size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x; g < a.groups; g += (size_t)gridDim.x * blockDim.x) {
        float v[8], inv[8];
        size_t r = 8 * g / a.cols, c = 8 * g % a.cols;
        mf__load8(a.x, g, a.vec, v);
        for (int j = 0; j < 8; j++) {
            inv[j] = inv_of[a.scales[(r / MF_NVFP4_BLOCK) * a.cols + c] & 0x7Fu];
            if (++c == a.cols)
                c = 0, r++;
        }
        mf__nv_put(a, t, g, v, inv, s);
    }
    if (a.stats)
        mf__flush(s, a.stats);
}

// Device scratch of one call: the counters and the amax word, with their host copy.
struct Scratch {
    unsigned long long stats[5];
    unsigned amax;
    unsigned pad;
};

void mf__put_stats(mf_stats *st, const Scratch &h)
{
    st->overflow = h.stats[0], st->underflow = h.stats[1], st->subnormal = h.stats[2];
    st->nan = h.stats[3], st->inexact = h.stats[4];
}

} // namespace

extern "C" int mf__cuda_launch_mx_quantize(mf_mx_type type, mf_mx_scale_rule rule, mf_mx_axis axis, unsigned flags,
                                           const float *x, size_t rows, size_t cols, void *elems, uint8_t *scales,
                                           const mf_opts *opts, void *stream)
{
    cudaStream_t st = static_cast<cudaStream_t>(stream);
    mf__cuda_scratch scr = {nullptr, false};
    Scratch host;
    MxArgs a;
    int rc = mf__cuda_ready();
    if (rc != MF_OK)
        return rc;
    a.t = mf__mx_ctx_make(type, rule, opts);
    a.x = x, a.cols = cols, a.groups = rows * cols / 8;
    a.elems = static_cast<uint8_t *>(elems), a.scales = scales;
    a.e2m1 = type == MF_MXFP4_E2M1, a.fp6p = (flags & MF_MX_FP6_PACKED) != 0;
    a.vec = (reinterpret_cast<uintptr_t>(x) & 15) == 0;
    a.stats = nullptr;
    if (opts->stats) {
        if ((rc = mf__cuda_scratch_alloc(&scr, sizeof(Scratch), st)) != MF_OK)
            return rc;
        a.stats = static_cast<Scratch *>(scr.ptr)->stats;
        rc = mf__mx_err(cudaMemsetAsync(scr.ptr, 0, sizeof(Scratch), st));
    }
    if (rc == MF_OK) {
        if (axis == MF_MX_ROWWISE)
            mf__mx_rowwise_k<<<mf__mx_blocks(a.groups), kThreads, 0, st>>>(a);
        else {
            const size_t total = rows / MF_MX_BLOCK * cols;
            mf__mx_colscale_k<<<mf__mx_blocks(total), kThreads, 0, st>>>(a.t, x, cols, total, scales);
            mf__mx_colelem_k<<<mf__mx_blocks(a.groups), kThreads, 0, st>>>(a);
        }
        rc = mf__mx_err(cudaGetLastError());
    }
    if (rc == MF_OK && opts->stats &&
        (rc = mf__mx_err(cudaMemcpyAsync(&host, scr.ptr, sizeof host, cudaMemcpyDeviceToHost, st))) == MF_OK)
        rc = mf__mx_err(cudaStreamSynchronize(st));
    mf__cuda_scratch_free(&scr, st);
    if (rc == MF_OK && opts->stats)
        mf__put_stats(opts->stats, host);
    return rc;
}

extern "C" int mf__cuda_launch_nvfp4_quantize(mf_mx_axis axis, const float *x, size_t rows, size_t cols, uint8_t *elems,
                                              uint8_t *scales, const float *amax_in, float *amax_out,
                                              const mf_opts *opts, void *stream)
{
    cudaStream_t st = static_cast<cudaStream_t>(stream);
    const size_t n = rows * cols;
    const bool fetch = opts->stats || (amax_out && !amax_in); // results the host waits for
    mf__cuda_scratch scr = {nullptr, false};
    Scratch host;
    NvArgs a;
    int rc = mf__cuda_ready();
    if (rc != MF_OK)
        return rc;
    a.amax = amax_in ? *amax_in : 0.0f;
    a.amax_dev = nullptr;
    a.sr = opts->round == MF_ROUND_STOCHASTIC, a.seed = opts->seed, a.sr_offset = opts->sr_offset;
    a.x = x, a.cols = cols, a.groups = n / 8;
    a.elems = elems, a.scales = scales, a.stats = nullptr;
    a.vec = (reinterpret_cast<uintptr_t>(x) & 15) == 0;
    if (opts->stats || !amax_in) {
        if ((rc = mf__cuda_scratch_alloc(&scr, sizeof(Scratch), st)) != MF_OK)
            return rc;
        Scratch *dev = static_cast<Scratch *>(scr.ptr);
        a.stats = opts->stats ? dev->stats : nullptr;
        a.amax_dev = amax_in ? nullptr : &dev->amax;
        rc = mf__mx_err(cudaMemsetAsync(dev, 0, sizeof(Scratch), st));
    }
    if (rc == MF_OK) {
        if (!amax_in) {
            const unsigned nb = mf__mx_blocks(n) < 4096 ? mf__mx_blocks(n) : 4096;
            mf__nv_amax_k<<<nb, kThreads, 0, st>>>(x, n, const_cast<unsigned *>(a.amax_dev));
        }
        if (axis == MF_MX_ROWWISE)
            mf__nv_rowwise_k<<<mf__mx_blocks(a.groups), kThreads, 0, st>>>(a);
        else {
            const size_t total = rows / MF_NVFP4_BLOCK * cols;
            mf__nv_colscale_k<<<mf__mx_blocks(total), kThreads, 0, st>>>(a, total);
            mf__nv_colelem_k<<<mf__mx_blocks(a.groups), kThreads, 0, st>>>(a);
        }
        rc = mf__mx_err(cudaGetLastError());
    }
    if (rc == MF_OK && fetch &&
        (rc = mf__mx_err(cudaMemcpyAsync(&host, scr.ptr, sizeof host, cudaMemcpyDeviceToHost, st))) == MF_OK)
        rc = mf__mx_err(cudaStreamSynchronize(st));
    mf__cuda_scratch_free(&scr, st);
    if (rc == MF_OK) {
        if (opts->stats)
            mf__put_stats(opts->stats, host);
        if (amax_out)
            *amax_out = amax_in ? *amax_in : mf__f32_from_bits(host.amax);
    }
    return rc;
}
