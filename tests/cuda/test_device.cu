/* SPDX-License-Identifier: MIT */
// tests/cuda/test_device.cu - the inline scalars on a GPU give the host's bits: decoding, narrow sources,
// binary64 sources.
//
//   - every code of every narrow format decoded on the device (mf_to_f32, mf_to_f64 and the named
//     mf_<tag>_to_f32 / _to_f64) against the host's mf_to_f32 / mf_to_f64;
//   - every f16 and bf16 code as a source: decoded and rounded again on the device (mf_to_f32, then
//     mf_from_f32) into every other narrow format in every mode and policy, against the host's direct
//     mf_convert from f16 / bf16 (decoding is exact, so the two must agree); sr on mf_convert's Philox stream;
//   - the binary64 boundary set (every narrow value, every midpoint, one binary64 and one binary32 ulp either
//     side of them, values beyond binary32's range, NaN payloads) in every format, mode and policy, through
//     the named mf_f64_to_<tag>_<rnd>[_sat] functions and mf_from_f64 with runtime arguments, against the
//     host's mf_convert from f64.
// Binary32 sources are tests/cuda/test_device_sweep.cu's. Prints a last line "SUMMARY ..." for
// tests/cuda/gpu-check.sh; exits 1 on any mismatch or error, 77 without a GPU.
#include <cstdint>
#include <cstdio>
#include <thread>
#include <vector>

#include "device_util.cuh"

namespace
{

const uint64_t kSeed = 0xD1B54A32D192ED03ull;

__device__ __forceinline__ uint32_t code_at(mf_format f, const void *p, uint32_t i)
{
    if (f == MF_FP16 || f == MF_BF16)
        return static_cast<const uint16_t *>(p)[i];
    if (f == MF_FP4_E2M1)
        return (static_cast<const uint8_t *>(p)[i >> 1] >> ((i & 1u) * 4u)) & 0xFu;
    return static_cast<const uint8_t *>(p)[i];
}

// Every code of format F: out32/out64 get mf_to_f32 / mf_to_f64 (runtime format), named32/named64 the
// named functions' bits.
template <mf_format F>
__global__ void decode_kernel(uint32_t n, uint32_t *out32, unsigned long long *out64, uint32_t *named32,
                              unsigned long long *named64)
{
    for (uint32_t c = blockIdx.x * blockDim.x + threadIdx.x; c < n; c += gridDim.x * blockDim.x) {
        mf_format f = F;
        out32[c] = __float_as_uint(mf_to_f32(f, c));
        out64[c] = (unsigned long long)__double_as_longlong(mf_to_f64(f, c));
        named32[c] = __float_as_uint(named_decode_f32<F>(c));
        named64[c] = (unsigned long long)__double_as_longlong(named_decode_f64<F>(c));
    }
}

// Every code of src (f16 or bf16) decoded and rounded into dst; bad[0] counts the elements that differ
// from want (mf_convert's layout), first[0] the first of them.
__global__ void reround_kernel(mf_format src, mf_format dst, mf_round r, mf_overflow o, const void *want,
                               unsigned long long *bad, unsigned *first)
{
    unsigned w = mf_sr_width(dst), nbad = 0;
    for (uint32_t c = blockIdx.x * blockDim.x + threadIdx.x; c < 65536u; c += gridDim.x * blockDim.x) {
        uint32_t rb = r == MF_ROUND_STOCHASTIC ? mf_sr_rbits(kSeed, c, w) : 0u;
        uint32_t got = mf_from_f32(dst, mf_to_f32(src, c), r, o, rb);
        if (got != code_at(dst, want, c)) {
            nbad++;
            atomicMin(first, c);
        }
    }
    warp_add(bad, nbad);
}

// The binary64 boundary set into format F in mode/policy ro = 2 * mode + policy: the named function (a
// switch over the fourteen, each with constant arguments) and mf_from_f64; bad[0] / bad[1] count their
// mismatches, first[0] / first[1] the first element of each.
template <mf_format F>
__global__ void f64_kernel(int ro, const unsigned long long *in, uint32_t n, const void *want, unsigned long long *bad,
                           unsigned *first)
{
    mf_round r = (mf_round)(ro / 2);
    mf_overflow o = (mf_overflow)(ro % 2);
    unsigned w = mf_sr_width(F), nbad[2] = {0, 0};
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        double x = __longlong_as_double((long long)in[i]);
        uint32_t rb = mf_sr_rbits(kSeed, i, w), named;
        switch (ro) {
#define MF_T_CASE(R)                                                                                                   \
    case 2 * R: named = named_f64<F, R, MF_OVERFLOW_IEEE>(x, rb); break;                                               \
    case 2 * R + 1: named = named_f64<F, R, MF_OVERFLOW_SATURATE>(x, rb); break;
            MF_T_CASE(MF_ROUND_NEAREST_EVEN)
            MF_T_CASE(MF_ROUND_NEAREST_AWAY)
            MF_T_CASE(MF_ROUND_TOWARD_ZERO)
            MF_T_CASE(MF_ROUND_UP)
            MF_T_CASE(MF_ROUND_DOWN)
            MF_T_CASE(MF_ROUND_ODD)
            MF_T_CASE(MF_ROUND_STOCHASTIC)
#undef MF_T_CASE
        default: named = 0xFFFFFFFFu;
        }
        uint32_t rt = mf_from_f64(F, x, r, o, r == MF_ROUND_STOCHASTIC ? rb : 0u);
        uint32_t want_c = code_at(F, want, i);
        if (named != want_c) {
            nbad[0]++;
            atomicMin(&first[0], i);
        }
        if (rt != want_c) {
            nbad[1]++;
            atomicMin(&first[1], i);
        }
    }
    warp_add(&bad[0], nbad[0]);
    warp_add(&bad[1], nbad[1]);
}

using F64Kernel = void (*)(int, const unsigned long long *, uint32_t, const void *, unsigned long long *, unsigned *);
using DecodeKernel = void (*)(uint32_t, uint32_t *, unsigned long long *, uint32_t *, unsigned long long *);

F64Kernel f64_for(mf_format f)
{
    switch (f) {
    case MF_FP16: return f64_kernel<MF_FP16>;
    case MF_BF16: return f64_kernel<MF_BF16>;
    case MF_FP8_E4M3: return f64_kernel<MF_FP8_E4M3>;
    case MF_FP8_E5M2: return f64_kernel<MF_FP8_E5M2>;
    case MF_FP6_E2M3: return f64_kernel<MF_FP6_E2M3>;
    case MF_FP6_E3M2: return f64_kernel<MF_FP6_E3M2>;
    case MF_FP4_E2M1: return f64_kernel<MF_FP4_E2M1>;
    default: return f64_kernel<MF_E8M0>;
    }
}

DecodeKernel decode_for(mf_format f)
{
    switch (f) {
    case MF_FP16: return decode_kernel<MF_FP16>;
    case MF_BF16: return decode_kernel<MF_BF16>;
    case MF_FP8_E4M3: return decode_kernel<MF_FP8_E4M3>;
    case MF_FP8_E5M2: return decode_kernel<MF_FP8_E5M2>;
    case MF_FP6_E2M3: return decode_kernel<MF_FP6_E2M3>;
    case MF_FP6_E3M2: return decode_kernel<MF_FP6_E3M2>;
    case MF_FP4_E2M1: return decode_kernel<MF_FP4_E2M1>;
    default: return decode_kernel<MF_E8M0>;
    }
}

uint64_t g_checked = 0, g_bad = 0;
int g_printed = 0;

void record(const char *what, uint64_t checked, uint64_t bad, unsigned first, const char *detail)
{
    g_checked += checked;
    g_bad += bad;
    if (bad && g_printed++ < 12)
        std::printf("MISMATCH %s: %llu of %llu differ, first at element %u%s\n", what, (unsigned long long)bad,
                    (unsigned long long)checked, first, detail);
}

int check_decode()
{
    const uint32_t n = 65536;
    uint32_t *d32, *dn32;
    unsigned long long *d64, *dn64;
    CUDA_OK(cudaMalloc(&d32, n * 4));
    CUDA_OK(cudaMalloc(&dn32, n * 4));
    CUDA_OK(cudaMalloc(&d64, n * 8));
    CUDA_OK(cudaMalloc(&dn64, n * 8));
    std::vector<uint32_t> g32(n), gn32(n);
    std::vector<unsigned long long> g64(n), gn64(n);
    uint64_t checked = 0, bad = 0;
    for (mf_format f : kNarrow) {
        mf_format_desc d;
        mf_format_describe(f, &d);
        uint32_t ncodes = 1u << d.bits;
        decode_for(f)<<<256, 256>>>(ncodes, d32, d64, dn32, dn64);
        CUDA_OK(cudaGetLastError());
        CUDA_OK(cudaMemcpy(g32.data(), d32, ncodes * 4, cudaMemcpyDeviceToHost));
        CUDA_OK(cudaMemcpy(gn32.data(), dn32, ncodes * 4, cudaMemcpyDeviceToHost));
        CUDA_OK(cudaMemcpy(g64.data(), d64, ncodes * 8, cudaMemcpyDeviceToHost));
        CUDA_OK(cudaMemcpy(gn64.data(), dn64, ncodes * 8, cudaMemcpyDeviceToHost));
        uint64_t fbad = 0;
        unsigned first = 0;
        for (uint32_t c = 0; c < ncodes; c++) {
            uint32_t h32 = bits_of(mf_to_f32(f, c));
            uint64_t h64 = bits_of(mf_to_f64(f, c));
            int differ = (g32[c] != h32) + (gn32[c] != h32) + (g64[c] != h64) + (gn64[c] != h64);
            if (differ && !fbad)
                first = c;
            fbad += (uint64_t)differ;
        }
        checked += 4ull * ncodes;
        bad += fbad;
        char what[64];
        std::snprintf(what, sizeof what, "decode %s", d.name);
        record(what, 4ull * ncodes, fbad, first, "");
    }
    std::printf("decode: every code of 8 formats to f32 and f64, runtime and named: %llu checked, %llu differ\n",
                (unsigned long long)checked, (unsigned long long)bad);
    cudaFree(d32);
    cudaFree(dn32);
    cudaFree(d64);
    cudaFree(dn64);
    return 0;
}

int check_reround()
{
    std::vector<uint16_t> codes(65536);
    for (uint32_t c = 0; c < 65536; c++)
        codes[c] = (uint16_t)c;
    std::vector<uint8_t> want(2 * 65536);
    uint8_t *d_want;
    unsigned long long *d_bad;
    unsigned *d_first;
    CUDA_OK(cudaMalloc(&d_want, want.size()));
    CUDA_OK(cudaMalloc(&d_bad, sizeof(unsigned long long)));
    CUDA_OK(cudaMalloc(&d_first, sizeof(unsigned)));
    uint64_t checked = 0, bad = 0;
    for (mf_format src : {MF_FP16, MF_BF16})
        for (mf_format dst : kNarrow)
            for (int r = 0; r < MF_ROUND_COUNT; r++)
                for (int o = 0; o < MF_OVERFLOW_COUNT; o++) {
                    // mf_convert into the source's own format copies the codes (NaN payloads, and inf under
                    // saturation, stay): not a rounding, so not this check's (test_cuda_kernels has it)
                    if (dst == src)
                        continue;
                    mf_opts opts{};
                    opts.round = (mf_round)r;
                    opts.overflow = (mf_overflow)o;
                    opts.seed = kSeed;
                    int rc = mf_convert(dst, want.data(), src, codes.data(), 65536, &opts);
                    if (rc != MF_OK) {
                        std::printf("host mf_convert: %s\n", mf_strerror(rc));
                        return 1;
                    }
                    CUDA_OK(cudaMemcpy(d_want, want.data(), mf_storage_bytes(dst, 65536), cudaMemcpyHostToDevice));
                    CUDA_OK(cudaMemset(d_bad, 0, sizeof(unsigned long long)));
                    CUDA_OK(cudaMemset(d_first, 0xFF, sizeof(unsigned)));
                    reround_kernel<<<128, 256>>>(src, dst, (mf_round)r, (mf_overflow)o, d_want, d_bad, d_first);
                    CUDA_OK(cudaGetLastError());
                    unsigned long long nbad = 0;
                    unsigned first = 0;
                    CUDA_OK(cudaMemcpy(&nbad, d_bad, sizeof nbad, cudaMemcpyDeviceToHost));
                    CUDA_OK(cudaMemcpy(&first, d_first, sizeof first, cudaMemcpyDeviceToHost));
                    checked += 65536;
                    bad += nbad;
                    char what[64], detail[96] = "";
                    std::snprintf(what, sizeof what, "%s -> %s %s %s", mf_format_name(src), mf_format_name(dst),
                                  kRoundName[r], mf_overflow_name((mf_overflow)o));
                    if (nbad)
                        std::snprintf(detail, sizeof detail, " (code 0x%04x: host 0x%x)", first,
                                      mf_from_f32(dst, mf_to_f32(src, first), (mf_round)r, (mf_overflow)o,
                                                  mf_sr_rbits(kSeed, first, mf_sr_width(dst))));
                    record(what, 65536, nbad, first, detail);
                }
    std::printf(
        "f16/bf16 sources: every code into the 7 other formats x 7 modes x 2 policies: %llu checked, %llu differ\n",
        (unsigned long long)checked, (unsigned long long)bad);
    cudaFree(d_want);
    cudaFree(d_bad);
    cudaFree(d_first);
    return 0;
}

int check_f64()
{
    std::vector<uint64_t> in = boundary_f64();
    const uint32_t n = (uint32_t)in.size();
    std::vector<uint8_t> want(2 * (size_t)n);
    unsigned long long *d_in, *d_bad;
    uint8_t *d_want;
    unsigned *d_first;
    CUDA_OK(cudaMalloc(&d_in, n * sizeof(uint64_t)));
    CUDA_OK(cudaMalloc(&d_want, want.size()));
    CUDA_OK(cudaMalloc(&d_bad, 2 * sizeof(unsigned long long)));
    CUDA_OK(cudaMalloc(&d_first, 2 * sizeof(unsigned)));
    CUDA_OK(cudaMemcpy(d_in, in.data(), n * sizeof(uint64_t), cudaMemcpyHostToDevice));
    int sms = 0;
    CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    uint64_t checked = 0, bad = 0;
    for (mf_format f : kNarrow)
        for (int ro = 0; ro < 2 * MF_ROUND_COUNT; ro++) {
            mf_opts opts{};
            opts.round = (mf_round)(ro / 2);
            opts.overflow = (mf_overflow)(ro % 2);
            opts.seed = kSeed;
            opts.threads = (int)std::thread::hardware_concurrency();
            int rc = mf_convert(f, want.data(), MF_FP64, in.data(), n, &opts);
            if (rc != MF_OK) {
                std::printf("host mf_convert: %s\n", mf_strerror(rc));
                return 1;
            }
            CUDA_OK(cudaMemcpy(d_want, want.data(), mf_storage_bytes(f, n), cudaMemcpyHostToDevice));
            CUDA_OK(cudaMemset(d_bad, 0, 2 * sizeof(unsigned long long)));
            CUDA_OK(cudaMemset(d_first, 0xFF, 2 * sizeof(unsigned)));
            f64_for(f)<<<(unsigned)sms * 4, 256>>>(ro, d_in, n, d_want, d_bad, d_first);
            CUDA_OK(cudaGetLastError());
            unsigned long long nbad[2];
            unsigned first[2];
            CUDA_OK(cudaMemcpy(nbad, d_bad, sizeof nbad, cudaMemcpyDeviceToHost));
            CUDA_OK(cudaMemcpy(first, d_first, sizeof first, cudaMemcpyDeviceToHost));
            for (int v = 0; v < 2; v++) {
                char what[80], detail[96] = "";
                std::snprintf(what, sizeof what, "f64 -> %s %s %s (%s)", mf_format_name(f), kRoundName[ro / 2],
                              mf_overflow_name((mf_overflow)(ro % 2)), v ? "mf_from_f64" : "named");
                if (nbad[v])
                    std::snprintf(detail, sizeof detail, " (x = 0x%016llx)", (unsigned long long)in[first[v]]);
                record(what, n, nbad[v], first[v], detail);
                checked += n;
                bad += nbad[v];
            }
        }
    std::printf("f64 boundary set: %u inputs into 8 formats x 7 modes x 2 policies, named and mf_from_f64: %llu "
                "checked, %llu differ\n",
                n, (unsigned long long)checked, (unsigned long long)bad);
    cudaFree(d_in);
    cudaFree(d_want);
    cudaFree(d_bad);
    cudaFree(d_first);
    return 0;
}

} // namespace

int main()
{
    int major = 0, minor = 0;
    if (!mf_test_have_device(&major, &minor))
        return MF_TEST_SKIP;
    if (check_decode() || check_reround() || check_f64())
        return 1;
    std::printf("SUMMARY test=device_scalars checked=%llu mismatches=%llu\n", (unsigned long long)g_checked,
                (unsigned long long)g_bad);
    return g_bad != 0;
}
