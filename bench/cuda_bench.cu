/* SPDX-License-Identifier: MIT */
// bench/cuda_bench.cu - the CUDA kernels of <minifloat/cuda.h> against same-run ceilings (not a test).
//
//   bench/cuda_bench [--quick] [--filter TEXT]
//
// Bulk conversions (mf_cuda_convert) in GB/s, counting bytes read plus bytes written, against a
// device-to-device cudaMemcpy that moves the same number of bytes (half of them read, half written), timed
// in turns with the conversion. The GEMM (mf_cuda_gemm) in TFLOP/s against cuBLAS on the same shapes and
// data: cublasGemmEx for f16 and bf16 into f32, cublasLtMatmul for e4m3 x e4m3 into f32 (where cuBLAS is
// linked and the GPU has FP8). Each figure is the median of several timed runs (CUDA events) after a
// warm-up. One CSV line per case:
//
//   name,backend,n,ns_per_elem,gb_per_s,ratio_vs_baseline,tflop_per_s
//
// bulk rows: n elements, ratio = GB/s / memcpy's GB/s; GEMM rows: n = m*n*k, ratio = TFLOP/s / cuBLAS's.
// A column that does not apply is '-'. Exits 77 where there is no GPU.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#ifndef MF_BENCH_HAVE_CUBLAS
#define MF_BENCH_HAVE_CUBLAS 0
#endif
#if MF_BENCH_HAVE_CUBLAS
#include <cublasLt.h>
#include <cublas_v2.h>
#endif

#include <minifloat/cuda.h>

#define CK(call)                                                                                                       \
    do {                                                                                                               \
        cudaError_t e_ = (call);                                                                                       \
        if (e_ != cudaSuccess) {                                                                                       \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));                \
            std::exit(1);                                                                                              \
        }                                                                                                              \
    } while (0)

namespace
{

int g_reps = 9;
const char *g_filter = nullptr;
cudaEvent_t g_e0, g_e1;

// Seconds of one run of f, the median of g_reps (after one warm-up run).
template <class F> double time_median(F f)
{
    std::vector<double> t;
    f();
    for (int r = 0; r < g_reps; r++) {
        CK(cudaEventRecord(g_e0));
        f();
        CK(cudaEventRecord(g_e1));
        CK(cudaEventSynchronize(g_e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, g_e0, g_e1));
        t.push_back(ms * 1e-3);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

bool wanted(const std::string &name) { return !g_filter || name.find(g_filter) != std::string::npos; }

// Training-like source data: binary32 values of a spread of exponents, converted to the source format
// (every format sees normal, subnormal and overflowing values).
__global__ void fill_f32(float *x, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint32_t h = (uint32_t)i * 0x9E3779B1u ^ seed;
        h ^= h >> 15;
        h *= 0x85EBCA77u;
        h ^= h >> 13;
        float u = (float)(h & 0xFFFFFF) * (1.0f / 16777216.0f) - 0.5f;
        x[i] = ldexpf(u, (int)((h >> 24) % 24u) - 12);
    }
}

struct Bulk {
    const char *name;
    mf_format dst, src;
    mf_round round;
    mf_overflow pol;
};

void bench_bulk(size_t n)
{
    const Bulk cases[] = {
        {"f32->bf16 rn sat", MF_BF16, MF_FP32, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE},
        {"f32->f16 rn sat", MF_FP16, MF_FP32, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE},
        {"f32->e4m3 rn sat", MF_FP8_E4M3, MF_FP32, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE},
        {"f32->e5m2 rn sat", MF_FP8_E5M2, MF_FP32, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE},
        {"f32->e2m1 rn sat", MF_FP4_E2M1, MF_FP32, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE},
        {"f32->e4m3 rn ieee", MF_FP8_E4M3, MF_FP32, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE},
        {"f32->e4m3 rz sat", MF_FP8_E4M3, MF_FP32, MF_ROUND_TOWARD_ZERO, MF_OVERFLOW_SATURATE},
        {"f32->bf16 sr", MF_BF16, MF_FP32, MF_ROUND_STOCHASTIC, MF_OVERFLOW_IEEE},
        {"f32->e4m3 sr sat", MF_FP8_E4M3, MF_FP32, MF_ROUND_STOCHASTIC, MF_OVERFLOW_SATURATE},
        {"f32->e8m0 ru sat", MF_E8M0, MF_FP32, MF_ROUND_UP, MF_OVERFLOW_SATURATE},
        {"bf16->e4m3 rn sat", MF_FP8_E4M3, MF_BF16, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE},
        {"bf16->f32", MF_FP32, MF_BF16, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE},
        {"f16->f32", MF_FP32, MF_FP16, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE},
        {"e4m3->f32", MF_FP32, MF_FP8_E4M3, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE},
        {"e2m1->f32", MF_FP32, MF_FP4_E2M1, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE},
        {"e4m3->bf16", MF_BF16, MF_FP8_E4M3, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE},
    };
    float *f32 = nullptr;
    void *src = nullptr, *dst = nullptr;
    CK(cudaMalloc(&f32, 4 * n));
    CK(cudaMalloc(&src, 4 * n));
    CK(cudaMalloc(&dst, 4 * n));
    fill_f32<<<1024, 256>>>(f32, n, 12345u);
    CK(cudaGetLastError());
    for (const Bulk &c : cases) {
        if (!wanted(c.name))
            continue;
        mf_opts to_src{};
        to_src.round = MF_ROUND_NEAREST_EVEN;
        to_src.overflow = MF_OVERFLOW_SATURATE;
        if (mf_cuda_convert(c.src, src, MF_FP32, f32, n, &to_src, nullptr) != MF_OK) {
            std::printf("%s,minifloat-cuda,%zu,-,-,-,-\n", c.name, n);
            continue;
        }
        mf_opts o{};
        o.round = c.round;
        o.overflow = c.pol;
        o.seed = 42;
        size_t bytes = mf_storage_bytes(c.src, n) + mf_storage_bytes(c.dst, n);
        int rc = MF_OK;
        // the conversion and the copy take turns, so that drift falls on both alike
        std::vector<double> tc, tm;
        for (int round = 0; round < 3; round++) {
            tc.push_back(time_median([&] { rc |= mf_cuda_convert(c.dst, dst, c.src, src, n, &o, nullptr); }));
            tm.push_back(time_median([&] { CK(cudaMemcpyAsync(dst, src, bytes / 2, cudaMemcpyDeviceToDevice)); }));
        }
        std::sort(tc.begin(), tc.end());
        std::sort(tm.begin(), tm.end());
        if (rc != MF_OK) {
            std::printf("%s,minifloat-cuda,%zu,-,-,-,-\n", c.name, n);
            continue;
        }
        double gbs = bytes / tc[1] * 1e-9, mgbs = bytes / tm[1] * 1e-9;
        std::printf("%s,minifloat-cuda,%zu,%.5f,%.1f,%.3f,-\n", c.name, n, tc[1] * 1e9 / (double)n, gbs, gbs / mgbs);
        std::printf("%s,cudaMemcpy,%zu,%.5f,%.1f,1.000,-\n", c.name, n, tm[1] * 1e9 / (double)n, mgbs);
        std::fflush(stdout);
    }
    CK(cudaFree(f32));
    CK(cudaFree(src));
    CK(cudaFree(dst));
}

#if MF_BENCH_HAVE_CUBLAS
// cuBLAS's time for the same product (column-major, op(A) = A^T for FP8: cuBLASLt's FP8 layout), or 0.
double cublas_time(mf_format f, size_t m, size_t n, size_t k, const void *a, const void *b, float *c)
{
    const float alpha = 1.0f, beta = 0.0f;
    if (f == MF_FP16 || f == MF_BF16) {
        cublasHandle_t h;
        if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
            return 0;
        cudaDataType t = f == MF_FP16 ? CUDA_R_16F : CUDA_R_16BF;
        cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
        double s = time_median([&] {
            st = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)m, (int)n, (int)k, &alpha, a, t, (int)m, b, t, (int)k,
                              &beta, c, CUDA_R_32F, (int)m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        });
        cublasDestroy(h);
        return st == CUBLAS_STATUS_SUCCESS ? s : 0;
    }
    cublasLtHandle_t lt;
    if (cublasLtCreate(&lt) != CUBLAS_STATUS_SUCCESS)
        return 0;
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    double s = 0;
    void *ws = nullptr;
    const size_t ws_bytes = 64u << 20;
    cublasLtMatmulPreference_t pref = nullptr;
    cublasLtMatmulHeuristicResult_t heur{};
    int found = 0;
    bool ok =
        cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, k, m, k) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, k, n, k) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, m, n, m) == CUBLAS_STATUS_SUCCESS &&
        cudaMalloc(&ws, ws_bytes) == cudaSuccess && cublasLtMatmulPreferenceCreate(&pref) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes,
                                             sizeof ws_bytes) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 1, &heur, &found) == CUBLAS_STATUS_SUCCESS &&
        found > 0;
    if (ok) {
        cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
        s = time_median([&] {
            st = cublasLtMatmul(lt, op, &alpha, a, la, b, lb, &beta, c, lc, c, lc, &heur.algo, ws, ws_bytes, nullptr);
        });
        if (st != CUBLAS_STATUS_SUCCESS)
            s = 0;
    }
    if (pref)
        cublasLtMatmulPreferenceDestroy(pref);
    if (la)
        cublasLtMatrixLayoutDestroy(la);
    if (lb)
        cublasLtMatrixLayoutDestroy(lb);
    if (lc)
        cublasLtMatrixLayoutDestroy(lc);
    if (op)
        cublasLtMatmulDescDestroy(op);
    cudaFree(ws);
    cublasLtDestroy(lt);
    return s;
}
#endif

void bench_gemm(bool quick, int cc)
{
    const size_t sizes[] = {4096, 8192};
    const mf_format fmts[] = {MF_BF16, MF_FP16, MF_FP8_E4M3};
    for (mf_format f : fmts) {
        if (f == MF_FP8_E4M3 && cc < 89)
            continue;
        for (size_t s : sizes) {
            if (quick && s > 4096)
                continue;
            size_t m = s, n = s, k = s;
            char name[64];
            std::snprintf(name, sizeof name, "gemm %s %zux%zux%zu", mf_format_name(f), m, n, k);
            if (!wanted(name))
                continue;
            float *f32 = nullptr, *c = nullptr;
            void *a = nullptr, *b = nullptr;
            CK(cudaMalloc(&f32, 4 * m * k));
            CK(cudaMalloc(&a, 2 * m * k));
            CK(cudaMalloc(&b, 2 * k * n));
            CK(cudaMalloc(&c, 4 * m * n));
            mf_opts o{};
            o.overflow = MF_OVERFLOW_SATURATE;
            fill_f32<<<1024, 256>>>(f32, m * k, 1u);
            CK(cudaGetLastError());
            mf_cuda_convert(f, a, MF_FP32, f32, m * k, &o, nullptr);
            fill_f32<<<1024, 256>>>(f32, k * n, 2u);
            CK(cudaGetLastError());
            mf_cuda_convert(f, b, MF_FP32, f32, k * n, &o, nullptr);
            double flop = 2.0 * (double)m * (double)n * (double)k, mnk = (double)m * (double)n * (double)k;
            // column-major; FP8 as cuBLASLt takes it (A stored k x m, used transposed)
            bool fp8 = f == MF_FP8_E4M3;
            int rc = MF_OK;
            double t = time_median([&] {
                rc |= mf_cuda_gemm(MF_COL_MAJOR, fp8 ? MF_TRANS : MF_NO_TRANS, MF_NO_TRANS, m, n, k, 1.0f, a, f,
                                   fp8 ? k : m, b, f, k, 0.0f, c, m, nullptr);
            });
            double base = 0;
#if MF_BENCH_HAVE_CUBLAS
            base = cublas_time(f, m, n, k, a, b, c);
#endif
            double tf = flop / t * 1e-12, btf = base > 0 ? flop / base * 1e-12 : 0;
            if (rc == MF_OK && base > 0)
                std::printf("%s,minifloat-cuda,%.0f,-,-,%.3f,%.1f\n", name, mnk, tf / btf, tf);
            else if (rc == MF_OK)
                std::printf("%s,minifloat-cuda,%.0f,-,-,-,%.1f\n", name, mnk, tf);
            else
                std::printf("%s,minifloat-cuda,%.0f,-,-,-,- (status %d)\n", name, mnk, rc);
            if (base > 0)
                std::printf("%s,%s,%.0f,-,-,1.000,%.1f\n", name, fp8 ? "cublasLt" : "cublas", mnk, btf);
            else
                std::printf("%s,cublas,%.0f,-,-,-,-\n", name, mnk);
            std::fflush(stdout);
            CK(cudaFree(f32));
            CK(cudaFree(a));
            CK(cudaFree(b));
            CK(cudaFree(c));
        }
    }
}

} // namespace

int main(int argc, char **argv)
{
    bool quick = false;
    for (int i = 1; i < argc; i++) {
        if (!std::strcmp(argv[i], "--quick")) {
            quick = true;
        } else if (!std::strcmp(argv[i], "--filter") && i + 1 < argc) {
            g_filter = argv[++i];
        } else {
            std::fprintf(stderr, "usage: %s [--quick] [--filter TEXT]\n", argv[0]);
            return 2;
        }
    }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        std::printf("no CUDA device: skipped\n");
        return 77;
    }
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    std::printf("# minifloat %s bench/cuda_bench on %s (sm_%d%d, %d SMs)%s\n", mf_version(), p.name, p.major, p.minor,
                p.multiProcessorCount, MF_BENCH_HAVE_CUBLAS ? "" : "; cuBLAS not linked");
    std::printf("name,backend,n,ns_per_elem,gb_per_s,ratio_vs_baseline,tflop_per_s\n");
    CK(cudaEventCreate(&g_e0));
    CK(cudaEventCreate(&g_e1));
    if (quick)
        g_reps = 3;
    bench_bulk(quick ? (size_t)1 << 24 : (size_t)1 << 28);
    bench_gemm(quick, p.major * 10 + p.minor);
    return 0;
}
