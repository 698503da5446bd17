// SPDX-License-Identifier: MIT
// src/cuda/gemm.cu - mf_cuda_gemm: C = alpha * op(A) op(B) + beta * C on the tensor cores (mma.sync).
//
// One warp computes one 16 x 8 tile of C with the PTX instruction itself, k in order from 0, one
// instruction step at a time (16 for f16/bf16: m16n8k16; 32 for FP8: m16n8k32, sm_89 and later), the
// accumulator starting at +0 and each step's D the next step's C: so every element of C is the sum the
// tensor core's model in src/gemm/tc.c computes (its blocks of w products divide the step, and start at
// multiples of w from p = 0). Fragments are loaded straight from global memory through the strides of
// op(A) and op(B) (any layout or transpose, any m, n, k); elements past m, n or k are +0: a zero product
// takes no part in a tensor core's sum (tc.c), so a k that is not a multiple of the step gives the
// model's result for that k (its last block is short, as the model's is).
//
// Fragment layouts (PTX ISA, "Matrix fragments for mma.m16n8k16 / m16n8k32"), lane = 4 * g + q:
//   m16n8k16 f16/bf16: A register r (2 elements, the lower k in the low half): row g + 8 * (r & 1),
//     k = 2q + 8 * (r >> 1) + {0, 1};  B register r: column g, k = 2q + 8r + {0, 1}.
//   m16n8k32 e4m3/e5m2: A register r (4 elements, the lowest k in the low byte): row g + 8 * (r & 1),
//     k = 4q + 16 * (r >> 1) + {0..3};  B register r: column g, k = 4q + 16r + {0..3}.
//   C/D (f32, both shapes): register r: row g + 8 * (r >> 1), column 2q + (r & 1).
// FP8 instructions exist from sm_89: their kernels are compiled empty below that (__CUDA_ARCH__ < 890)
// and the launcher returns MF_E_UNSUPPORTED where the image the device runs lacks them (ptxVersion < 89).
#include <cuda_runtime.h>

#include "runtime.cuh"

namespace
{

// The instruction kinds: f16, bf16, then FP8 with A and B each e4m3 (0) or e5m2 (1).
enum { K_F16, K_BF16, K_E4E4, K_E4E5, K_E5E4, K_E5E5 };

constexpr int kWarps = 4; // warps (tiles) per CUDA block

struct GemmArgs {
    const uint8_t *a, *b;
    size_t a_rs, a_cs, b_rs,
        b_cs; // element (i, p) of op(A) at a[(i * a_rs + p * a_cs) * size]; op(B)'s (p, j) likewise
    float *c;
    size_t c_rs, c_cs;
    size_t m, n, k, tiles_n, tiles;
    float alpha, beta;
    int beta_zero;
};

// A CUDA status as the library's code: no image of these kernels for the device (before sm_80) is
// MF_E_UNSUPPORTED; anything else is runtime.cu's mapping.
int mf__gemm_err(cudaError_t e)
{
    if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction) {
        (void)cudaGetLastError();
        return MF_E_UNSUPPORTED;
    }
    return mf__cuda_status(e);
}

// Element (i, p) of op(A) (or (p, j) of op(B), with the roles of the strides) as its code, 0 outside.
__device__ unsigned mf__ld16(const uint8_t *x, size_t i, size_t p, size_t rs, size_t cs, size_t ri, size_t rp)
{
    return i < ri && p < rp ? reinterpret_cast<const unsigned short *>(x)[i * rs + p * cs] : 0u;
}

__device__ unsigned mf__ld8(const uint8_t *x, size_t i, size_t p, size_t rs, size_t cs, size_t ri, size_t rp)
{
    return i < ri && p < rp ? x[i * rs + p * cs] : 0u;
}

// C's element (i, j) from its accumulator: fmaf(alpha, acc, beta * C), or alpha * acc where beta is 0.
__device__ void mf__epilogue(const GemmArgs &g, size_t i, size_t j, float acc)
{
    if (i >= g.m || j >= g.n)
        return;
    float *p = g.c + i * g.c_rs + j * g.c_cs;
    *p = g.beta_zero ? __fmul_rn(g.alpha, acc) : __fmaf_rn(g.alpha, acc, __fmul_rn(g.beta, *p));
}

template <int KIND> __device__ void mf__mma(float *d, const unsigned *a, const unsigned *b)
{
    if constexpr (KIND == K_F16)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%0,%1,%2,%3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    else if constexpr (KIND == K_BF16)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%0,%1,%2,%3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define MF__MMA_FP8(TA, TB)                                                                                            \
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32." TA "." TB ".f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "     \
                 "{%0,%1,%2,%3};"                                                                                      \
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                                      \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
    else if constexpr (KIND == K_E4E4)
        MF__MMA_FP8("e4m3", "e4m3");
    else if constexpr (KIND == K_E4E5)
        MF__MMA_FP8("e4m3", "e5m2");
    else if constexpr (KIND == K_E5E4)
        MF__MMA_FP8("e5m2", "e4m3");
    else
        MF__MMA_FP8("e5m2", "e5m2");
#undef MF__MMA_FP8
#endif
}

// One warp per 16 x 8 tile of C, tiles in a grid-stride loop (uniform per warp: mma.sync needs all lanes).
template <int KIND> __device__ void mf__gemm_body(const GemmArgs &g)
{
    const unsigned lane = threadIdx.x & 31, gq = lane >> 2, q = lane & 3;
    const size_t warp0 = (size_t)blockIdx.x * kWarps + threadIdx.x / 32, warps = (size_t)gridDim.x * kWarps;
    for (size_t t = warp0; t < g.tiles; t += warps) {
        const size_t i0 = t / g.tiles_n * 16, j0 = t % g.tiles_n * 8;
        float d[4] = {0.0f, 0.0f, 0.0f, 0.0f}; // +0: the accumulator's start
        unsigned a[4], b[2];
        if constexpr (KIND <= K_BF16)
            for (size_t p0 = 0; p0 < g.k; p0 += 16) {
                for (int r = 0; r < 4; r++) {
                    const size_t i = i0 + gq + 8 * (r & 1), p = p0 + 2 * q + 8 * (r >> 1);
                    a[r] = mf__ld16(g.a, i, p, g.a_rs, g.a_cs, g.m, g.k) |
                           mf__ld16(g.a, i, p + 1, g.a_rs, g.a_cs, g.m, g.k) << 16;
                }
                for (int r = 0; r < 2; r++) {
                    const size_t j = j0 + gq, p = p0 + 2 * q + 8 * r;
                    b[r] = mf__ld16(g.b, j, p, g.b_cs, g.b_rs, g.n, g.k) |
                           mf__ld16(g.b, j, p + 1, g.b_cs, g.b_rs, g.n, g.k) << 16;
                }
                mf__mma<KIND>(d, a, b);
            }
        else
            for (size_t p0 = 0; p0 < g.k; p0 += 32) {
                for (int r = 0; r < 4; r++) {
                    const size_t i = i0 + gq + 8 * (r & 1), p = p0 + 4 * q + 16 * (r >> 1);
                    a[r] = 0;
                    for (int e = 0; e < 4; e++)
                        a[r] |= mf__ld8(g.a, i, p + e, g.a_rs, g.a_cs, g.m, g.k) << (8 * e);
                }
                for (int r = 0; r < 2; r++) {
                    const size_t j = j0 + gq, p = p0 + 4 * q + 16 * r;
                    b[r] = 0;
                    for (int e = 0; e < 4; e++)
                        b[r] |= mf__ld8(g.b, j, p + e, g.b_cs, g.b_rs, g.n, g.k) << (8 * e);
                }
                mf__mma<KIND>(d, a, b);
            }
        for (int r = 0; r < 4; r++)
            mf__epilogue(g, i0 + gq + 8 * (r >> 1), j0 + 2 * q + (r & 1), d[r]);
    }
}

template <int KIND> __global__ void __launch_bounds__(32 * kWarps) mf__gemm_k(GemmArgs g)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 890
    if constexpr (KIND >= K_E4E4) // no FP8 mma here; the launcher never starts this kernel
        return;
    else
#endif
        mf__gemm_body<KIND>(g);
}

template <int KIND> int mf__gemm_run(const GemmArgs &g, cudaStream_t st)
{
    cudaFuncAttributes fa;
    int rc = mf__gemm_err(cudaFuncGetAttributes(&fa, mf__gemm_k<KIND>));
    if (rc != MF_OK)
        return rc;
    if (KIND >= K_E4E4 && fa.ptxVersion < 89) // the image this device runs was built without FP8 mma
        return MF_E_UNSUPPORTED;
    mf__gemm_k<KIND><<<mf__cuda_blocks(g.tiles, kWarps), 32 * kWarps, 0, st>>>(g);
    return mf__gemm_err(cudaGetLastError());
}

int mf__fp8_kind(mf_format fa, mf_format fb) { return K_E4E4 + 2 * (fa == MF_FP8_E5M2) + (fb == MF_FP8_E5M2); }

} // namespace

extern "C" int mf__cuda_launch_gemm(mf_layout layout, mf_trans trans_a, mf_trans trans_b, size_t m, size_t n, size_t k,
                                    float alpha, const void *a, mf_format fmt_a, size_t lda, const void *b,
                                    mf_format fmt_b, size_t ldb, float beta, float *c, size_t ldc, void *stream)
{
    cudaStream_t st = static_cast<cudaStream_t>(stream);
    GemmArgs g;
    const int row = layout == MF_ROW_MAJOR;
    // strides of a stored matrix: (r, c) at r * ld + c row-major, r + c * ld column-major; a transpose
    // swaps the roles of op(X)'s two indices
    const size_t s_rs = row ? lda : 1, s_cs = row ? 1 : lda, t_rs = row ? ldb : 1, t_cs = row ? 1 : ldb;
    const int rc = mf__cuda_ready();
    if (rc != MF_OK)
        return rc;
    g.a = static_cast<const uint8_t *>(a), g.b = static_cast<const uint8_t *>(b), g.c = c;
    g.a_rs = trans_a == MF_NO_TRANS ? s_rs : s_cs, g.a_cs = trans_a == MF_NO_TRANS ? s_cs : s_rs;
    g.b_rs = trans_b == MF_NO_TRANS ? t_rs : t_cs, g.b_cs = trans_b == MF_NO_TRANS ? t_cs : t_rs;
    g.c_rs = row ? ldc : 1, g.c_cs = row ? 1 : ldc;
    g.m = m, g.n = n, g.k = k; // k = 0 where A and B are not read (alpha = 0): acc = +0
    g.tiles_n = (n + 7) / 8, g.tiles = (m + 15) / 16 * g.tiles_n;
    g.alpha = alpha, g.beta = beta;
    g.beta_zero = (mf__f32_bits(beta) & 0x7FFFFFFFu) == 0;
    switch (fmt_a) {
    case MF_FP16: return mf__gemm_run<K_F16>(g, st);
    case MF_BF16: return mf__gemm_run<K_BF16>(g, st);
    default: break;
    }
    switch (mf__fp8_kind(fmt_a, fmt_b)) {
    case K_E4E4: return mf__gemm_run<K_E4E4>(g, st);
    case K_E4E5: return mf__gemm_run<K_E4E5>(g, st);
    case K_E5E4: return mf__gemm_run<K_E5E4>(g, st);
    default: return mf__gemm_run<K_E5E5>(g, st);
    }
}
