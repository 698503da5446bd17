/* SPDX-License-Identifier: MIT */
// tests/cuda/device_util.cuh - what the GPU test programs share: the skip rule, the CUDA error check,
// a compile-time table from (format, mode, policy) to the named scalar function (device code), and the
// boundary sets (host code).
//
// The named functions (mf_f32_to_e4m3_rn_sat, ...) call mf_from_f32 with constant arguments; that is
// where the per-architecture instructions fold in, so the tests call them by name, one instance per
// (format, mode, policy), and mf_from_f32 with runtime arguments separately.
#ifndef MF_TEST_CUDA_DEVICE_UTIL_CUH
#define MF_TEST_CUDA_DEVICE_UTIL_CUH

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#include <minifloat.h>

// Exit status of a test that cannot run (ctest's SKIP_RETURN_CODE).
#define MF_TEST_SKIP 77

// Print the failing call and return 1 from the enclosing function (main, or a check returning int).
#define CUDA_OK(call)                                                                                                  \
    do {                                                                                                               \
        cudaError_t e_ = (call);                                                                                       \
        if (e_ != cudaSuccess) {                                                                                       \
            std::printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));                         \
            return 1;                                                                                                  \
        }                                                                                                              \
    } while (0)

// Abort on a CUDA error where no status can be returned (worker threads, destructors).
#define CUDA_DIE(call)                                                                                                 \
    do {                                                                                                               \
        cudaError_t e_ = (call);                                                                                       \
        if (e_ != cudaSuccess) {                                                                                       \
            std::printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));                         \
            std::exit(1);                                                                                              \
        }                                                                                                              \
    } while (0)

// 1 if a CUDA device is there; prints its name and compute capability. Without one (no driver, no
// device) the caller exits MF_TEST_SKIP.
static inline int mf_test_have_device(int *major, int *minor)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        (void)cudaGetLastError();
        std::printf("no CUDA device: skipped\n");
        return 0;
    }
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess)
        return 0;
    *major = p.major;
    *minor = p.minor;
    std::printf("device 0: %s, sm_%d%d, %d SMs\n", p.name, p.major, p.minor, p.multiProcessorCount);
    return 1;
}

static const mf_format kNarrow[] = {MF_FP16,     MF_BF16,     MF_FP8_E4M3, MF_FP8_E5M2,
                                    MF_FP6_E2M3, MF_FP6_E3M2, MF_FP4_E2M1, MF_E8M0};
static const char *const kRoundName[] = {"rn", "rna", "rz", "ru", "rd", "ro", "sr"};

#ifdef __CUDACC__ // device code: for nvcc only (test_cuda_kernels, host code only, is compiled as C++)
// The named narrowing function of one format tag from source X (f32 or f64) for mode R and policy O,
// called with x (and rbits for sr); returns the code.
// clang-format off
#define MF_T_MODE(X, tag, rnd, MODE)                                                                                   \
    if constexpr (R == MODE) {                                                                                         \
        if constexpr (O == MF_OVERFLOW_SATURATE)                                                                       \
            return mf_##X##_to_##tag##_##rnd##_sat(x).bits;                                                            \
        else                                                                                                           \
            return mf_##X##_to_##tag##_##rnd(x).bits;                                                                  \
    }
#define MF_T_NAMED(X, T, tag)                                                                                          \
    template <mf_round R, mf_overflow O> __device__ __forceinline__ uint32_t named_##X##_##tag(T x, uint32_t rb)       \
    {                                                                                                                  \
        (void)rb;                                                                                                      \
        MF_T_MODE(X, tag, rn, MF_ROUND_NEAREST_EVEN)                                                                   \
        else MF_T_MODE(X, tag, rna, MF_ROUND_NEAREST_AWAY)                                                             \
        else MF_T_MODE(X, tag, rz, MF_ROUND_TOWARD_ZERO)                                                               \
        else MF_T_MODE(X, tag, ru, MF_ROUND_UP)                                                                        \
        else MF_T_MODE(X, tag, rd, MF_ROUND_DOWN)                                                                      \
        else MF_T_MODE(X, tag, ro, MF_ROUND_ODD)                                                                       \
        else if constexpr (O == MF_OVERFLOW_SATURATE)                                                                  \
            return mf_##X##_to_##tag##_sr_sat(x, rb).bits;                                                             \
        else                                                                                                           \
            return mf_##X##_to_##tag##_sr(x, rb).bits;                                                                 \
    }
#define MF_T_TAG(tag)                                                                                                  \
    MF_T_NAMED(f32, float, tag)                                                                                        \
    MF_T_NAMED(f64, double, tag)
// clang-format on

MF_T_TAG(f16)
MF_T_TAG(bf16)
MF_T_TAG(e4m3)
MF_T_TAG(e5m2)
MF_T_TAG(e2m3)
MF_T_TAG(e3m2)
MF_T_TAG(e2m1)
MF_T_TAG(e8m0)

#define MF_T_DISPATCH(X, T)                                                                                            \
    template <mf_format F, mf_round R, mf_overflow O> __device__ __forceinline__ uint32_t named_##X(T x, uint32_t rb)  \
    {                                                                                                                  \
        if constexpr (F == MF_FP16)                                                                                    \
            return named_##X##_f16<R, O>(x, rb);                                                                       \
        else if constexpr (F == MF_BF16)                                                                               \
            return named_##X##_bf16<R, O>(x, rb);                                                                      \
        else if constexpr (F == MF_FP8_E4M3)                                                                           \
            return named_##X##_e4m3<R, O>(x, rb);                                                                      \
        else if constexpr (F == MF_FP8_E5M2)                                                                           \
            return named_##X##_e5m2<R, O>(x, rb);                                                                      \
        else if constexpr (F == MF_FP6_E2M3)                                                                           \
            return named_##X##_e2m3<R, O>(x, rb);                                                                      \
        else if constexpr (F == MF_FP6_E3M2)                                                                           \
            return named_##X##_e3m2<R, O>(x, rb);                                                                      \
        else if constexpr (F == MF_FP4_E2M1)                                                                           \
            return named_##X##_e2m1<R, O>(x, rb);                                                                      \
        else                                                                                                           \
            return named_##X##_e8m0<R, O>(x, rb);                                                                      \
    }

// named_f32<F, R, O>(float x, rbits) and named_f64<F, R, O>(double x, rbits)
MF_T_DISPATCH(f32, float)
MF_T_DISPATCH(f64, double)

// The named widening functions: mf_<tag>_to_f32 / _to_f64 of a code of format F.
template <mf_format F> __device__ __forceinline__ float named_decode_f32(uint32_t code)
{
    if constexpr (F == MF_FP16)
        return mf_f16_to_f32(mf_f16_from_bits((uint16_t)code));
    else if constexpr (F == MF_BF16)
        return mf_bf16_to_f32(mf_bf16_from_bits((uint16_t)code));
    else if constexpr (F == MF_FP8_E4M3)
        return mf_e4m3_to_f32(mf_e4m3_from_bits((uint8_t)code));
    else if constexpr (F == MF_FP8_E5M2)
        return mf_e5m2_to_f32(mf_e5m2_from_bits((uint8_t)code));
    else if constexpr (F == MF_FP6_E2M3)
        return mf_e2m3_to_f32(mf_e2m3_from_bits((uint8_t)code));
    else if constexpr (F == MF_FP6_E3M2)
        return mf_e3m2_to_f32(mf_e3m2_from_bits((uint8_t)code));
    else if constexpr (F == MF_FP4_E2M1)
        return mf_e2m1_to_f32(mf_e2m1_from_bits((uint8_t)code));
    else
        return mf_e8m0_to_f32(mf_e8m0_from_bits((uint8_t)code));
}
template <mf_format F> __device__ __forceinline__ double named_decode_f64(uint32_t code)
{
    if constexpr (F == MF_FP16)
        return mf_f16_to_f64(mf_f16_from_bits((uint16_t)code));
    else if constexpr (F == MF_BF16)
        return mf_bf16_to_f64(mf_bf16_from_bits((uint16_t)code));
    else if constexpr (F == MF_FP8_E4M3)
        return mf_e4m3_to_f64(mf_e4m3_from_bits((uint8_t)code));
    else if constexpr (F == MF_FP8_E5M2)
        return mf_e5m2_to_f64(mf_e5m2_from_bits((uint8_t)code));
    else if constexpr (F == MF_FP6_E2M3)
        return mf_e2m3_to_f64(mf_e2m3_from_bits((uint8_t)code));
    else if constexpr (F == MF_FP6_E3M2)
        return mf_e3m2_to_f64(mf_e3m2_from_bits((uint8_t)code));
    else if constexpr (F == MF_FP4_E2M1)
        return mf_e2m1_to_f64(mf_e2m1_from_bits((uint8_t)code));
    else
        return mf_e8m0_to_f64(mf_e8m0_from_bits((uint8_t)code));
}

// Sum v over the warp and add it to *counter once per warp (the sweeps count every input they visit and
// every mismatch on the device). Every lane of the warp must call it (no early return before it).
__device__ __forceinline__ void warp_add(unsigned long long *counter, unsigned v)
{
    unsigned sum = __reduce_add_sync(0xFFFFFFFFu, v);
    if (sum != 0 && (threadIdx.x & 31u) == 0)
        atomicAdd(counter, (unsigned long long)sum);
}
#endif // __CUDACC__

// ---- the boundary set, built on the host --------------------------------------------------------------

static inline uint32_t bits_of(float x)
{
    uint32_t b;
    std::memcpy(&b, &x, 4);
    return b;
}
static inline uint64_t bits_of(double x)
{
    uint64_t b;
    std::memcpy(&b, &x, 8);
    return b;
}
static inline double double_of(uint64_t b)
{
    double x;
    std::memcpy(&x, &b, 8);
    return x;
}

// The points where some narrow format's rounding changes, as exact binary64 values (all positive): every
// representable value of every narrow format, every midpoint between neighbours (the ties of rn and rna),
// the midpoint above the largest finite value (the rn overflow threshold) and the value one ulp above it
// (where directed modes overflow), and the midpoint between 0 and the smallest subnormal.
static inline std::vector<double> boundary_points()
{
    std::vector<double> pts;
    for (mf_format f : kNarrow) {
        mf_format_desc d;
        mf_format_describe(f, &d);
        uint32_t ncodes = 1u << d.bits, half = d.is_signed ? ncodes / 2 : ncodes;
        double prev = 0;
        for (uint32_t c = 0; c < half; c++) { // positive codes, ascending in value
            double v = mf_to_f64(f, c);
            if (!(v <= d.max)) // inf or NaN codes
                continue;
            pts.push_back(v);
            pts.push_back((prev + v) / 2); // exact: narrow significands are far shorter than binary64's
            if (v == d.max) {
                double ulp = v - prev;
                pts.push_back(v + ulp / 2);
                pts.push_back(v + ulp);
            }
            prev = v;
        }
    }
    return pts;
}

// binary32 inputs: each boundary point p that binary32 holds, with its neighbours one and two binary32 ulps
// either side, in both signs; the subnormal and normal range ends; +-0, +-inf and NaNs with payloads.
static inline std::vector<uint32_t> boundary_f32()
{
    std::vector<uint32_t> v;
    auto add = [&v](uint32_t b) {
        for (int d = -2; d <= 2; d++) {
            uint32_t m = (b & 0x7FFFFFFFu) + (uint32_t)d;
            if ((m & 0x80000000u) == 0 && m <= 0x7F800000u) { // stays a finite number or inf
                v.push_back(m);
                v.push_back(m | 0x80000000u);
            }
        }
    };
    for (double p : boundary_points()) {
        float f = (float)p;
        if ((double)f == p)
            add(bits_of(f));
    }
    const uint32_t extra[] = {0x00000000u, 0x00000001u, 0x007FFFFFu, 0x00800000u, 0x00400000u, 0x7F7FFFFFu,
                              0x7F000000u, 0x7F800000u, 0x3F800000u, 0x33800000u, 0x0C800000u};
    for (uint32_t b : extra)
        add(b);
    const uint32_t nans[] = {0x7FC00000u, 0x7F800001u, 0x7FBFFFFFu, 0x7FFFFFFFu, 0x7FA00000u,
                             0x7FC00001u, 0x7FE00000u, 0x7F80FFFFu, 0x7FFF0000u, 0x7FD55555u};
    for (uint32_t b : nans) {
        v.push_back(b);
        v.push_back(b | 0x80000000u);
    }
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
}

// binary64 inputs: each boundary point with its binary64 neighbours (one ulp either side: a binary64 just
// off a tie must not be rounded to binary32 first) and its binary32 neighbours, in both signs; values
// beyond binary32's range, binary64 subnormals; +-0, +-inf and NaNs with payloads.
static inline std::vector<uint64_t> boundary_f64()
{
    std::vector<uint64_t> v;
    auto add = [&v](uint64_t b) {
        for (int d = -1; d <= 1; d++) {
            uint64_t m = (b & 0x7FFFFFFFFFFFFFFFull) + (uint64_t)(int64_t)d;
            if ((m >> 63) == 0 && m <= 0x7FF0000000000000ull) {
                v.push_back(m);
                v.push_back(m | 0x8000000000000000ull);
            }
        }
    };
    for (double p : boundary_points()) {
        add(bits_of(p));
        float f = (float)p;
        if ((double)f == p) {
            add(bits_of((double)std::nextafter(f, 0.0f)));
            add(bits_of((double)std::nextafter(f, INFINITY)));
        }
    }
    const uint64_t extra[] = {0x0000000000000000ull,
                              0x0000000000000001ull,
                              0x000FFFFFFFFFFFFFull,
                              0x0010000000000000ull,
                              0x7FEFFFFFFFFFFFFFull,
                              0x7FF0000000000000ull,
                              0x47EFFFFFE0000000ull /* binary32 max + half its ulp */,
                              0x47F0000000000000ull,
                              0x3690000000000000ull /* 2^-150 */,
                              0x36A0000000000000ull,
                              0x4330000000000000ull};
    for (uint64_t b : extra)
        add(b);
    const uint64_t nans[] = {0x7FF8000000000000ull, 0x7FF0000000000001ull, 0x7FF7FFFFFFFFFFFFull,
                             0x7FFFFFFFFFFFFFFFull, 0x7FF8000000000001ull, 0x7FFC000000000000ull,
                             0x7FF0000020000000ull, 0x7FF00000FFFFFFFFull};
    for (uint64_t b : nans) {
        v.push_back(b);
        v.push_back(b | 0x8000000000000000ull);
    }
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
}

#endif /* MF_TEST_CUDA_DEVICE_UTIL_CUH */
