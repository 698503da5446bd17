/* SPDX-License-Identifier: MIT */
// tests/cuda/test_device.cu - the inline scalars on a GPU give the host's bits.
//
// Every code of every narrow format is decoded on the device, and 2^24 binary32 inputs (every
// 256th bit pattern, offset so that each low byte value occurs) are rounded in every format, mode
// and policy; the device's codes must equal the host's. Exits 77 (skip) where there is no GPU.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#include <minifloat.h>

static const mf_format kFormats[] = {MF_FP16, MF_BF16, MF_FP8_E4M3, MF_FP8_E5M2, MF_FP6_E2M3,
                                     MF_FP6_E3M2, MF_FP4_E2M1, MF_E8M0};

__host__ __device__ static uint32_t input_bits(uint32_t i) { return i * 256u + (i & 0xFFu); }

__global__ void round_kernel(mf_format fmt, mf_round r, mf_overflow o, uint32_t n, uint32_t *out)
{
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        uint32_t bits = input_bits(i);
        out[i] = mf_from_f32(fmt, __uint_as_float(bits), r, o, mf_sr_bits(7, i));
    }
}

__global__ void decode_kernel(mf_format fmt, uint32_t n, uint32_t *out32, unsigned long long *out64)
{
    for (uint32_t c = blockIdx.x * blockDim.x + threadIdx.x; c < n; c += gridDim.x * blockDim.x) {
        out32[c] = __float_as_uint(mf_to_f32(fmt, c));
        out64[c] = (unsigned long long)__double_as_longlong(mf_to_f64(fmt, c));
    }
}

#define CUDA_OK(call)                                                                          \
    do {                                                                                       \
        cudaError_t e_ = (call);                                                               \
        if (e_ != cudaSuccess) {                                                               \
            std::printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));            \
            return 1;                                                                          \
        }                                                                                      \
    } while (0)

int main()
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        std::printf("no CUDA device: skipped\n");
        return 77;
    }
    const uint32_t n = 1u << 24;
    uint32_t *d_out = nullptr;
    unsigned long long *d_out64 = nullptr;
    CUDA_OK(cudaMalloc(&d_out, n * sizeof(uint32_t)));
    CUDA_OK(cudaMalloc(&d_out64, 65536 * sizeof(unsigned long long)));
    std::vector<uint32_t> got(n);
    std::vector<unsigned long long> got64(65536);
    uint64_t checked = 0, bad = 0;

    for (mf_format f : kFormats) {
        mf_format_desc d;
        mf_format_describe(f, &d);
        uint32_t ncodes = 1u << d.bits;
        decode_kernel<<<256, 256>>>(f, ncodes, d_out, d_out64);
        CUDA_OK(cudaMemcpy(got.data(), d_out, ncodes * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        CUDA_OK(cudaMemcpy(got64.data(), d_out64, ncodes * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
        for (uint32_t c = 0; c < ncodes; c++) {
            float h = mf_to_f32(f, c);
            double h64 = mf_to_f64(f, c);
            uint32_t hb;
            unsigned long long hb64;
            std::memcpy(&hb, &h, 4);
            std::memcpy(&hb64, &h64, 8);
            bad += got[c] != hb || got64[c] != hb64;
            checked++;
        }
        for (int r = 0; r < MF_ROUND_COUNT; r++)
            for (int o = 0; o < MF_OVERFLOW_COUNT; o++) {
                round_kernel<<<1024, 256>>>(f, (mf_round)r, (mf_overflow)o, n, d_out);
                CUDA_OK(cudaMemcpy(got.data(), d_out, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
                for (uint32_t i = 0; i < n; i++) {
                    uint32_t bits = input_bits(i);
                    float x;
                    std::memcpy(&x, &bits, 4);
                    uint32_t want = mf_from_f32(f, x, (mf_round)r, (mf_overflow)o, mf_sr_bits(7, i));
                    if (got[i] != want && bad < 10)
                        std::printf("%s mode %d pol %d x=0x%08x: device 0x%x host 0x%x\n", d.name, r, o, bits,
                                    got[i], want);
                    bad += got[i] != want;
                    checked++;
                }
            }
    }
    cudaFree(d_out);
    cudaFree(d_out64);
    std::printf("%llu checked, %llu differ\n", (unsigned long long)checked, (unsigned long long)bad);
    return bad != 0;
}
