/* SPDX-License-Identifier: MIT */
// tests/cuda/test_cuda_kernels.cu - each compiled kernel of <minifloat/cuda.h> against its host function.
//
//   - argument errors: each mf_cuda_* function refuses bad arguments with its host function's code, before
//     it looks for a device (so this part runs everywhere, even without a GPU);
//   - mf_cuda_convert: every pair of the ten formats, every mode and policy, on random bit patterns and the
//     boundary sets, at an odd length and misaligned, with sr on the Philox stream and the counts (stats),
//     against mf_convert's bytes and counts;
//   - mf_cuda_unscale_check and mf_cuda_amax against mf_unscale_check and mf_amax;
//   - mf_cuda_mx_quantize and mf_cuda_nvfp4_quantize, every type, rule, axis and mode, against the host's
//     elements, scales, amax and counts;
//   - mf_cuda_gemm against mf_gemm under the tensor-core model of the running GPU (sm_80: MF_ACCUM_A100,
//     sm_89: MF_ACCUM_ADA, sm_90: MF_ACCUM_H100, sm_100/103: MF_ACCUM_B200), ragged shapes, every layout
//     and transpose, f16, bf16 and FP8 (sm_89 and later; MF_E_UNSUPPORTED before).
// Prints a last line "SUMMARY ..." for tests/cuda/gpu-check.sh; exits 1 on any mismatch, 77 without a GPU
// (after the argument checks).
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include <minifloat/cuda.h>

#include "device_util.cuh"

namespace
{

uint64_t g_checked = 0, g_bad = 0;
int g_printed = 0;

// Count one comparison; print the first failures.
void expect(bool ok, const char *fmt_, ...) __attribute__((format(printf, 2, 3)));
void expect(bool ok, const char *fmt_, ...)
{
    g_checked++;
    if (ok)
        return;
    g_bad++;
    if (g_printed++ < 30) {
        va_list ap;
        va_start(ap, fmt_);
        std::printf("MISMATCH ");
        std::vprintf(fmt_, ap);
        std::printf("\n");
        va_end(ap);
    }
}

struct Rng {
    uint64_t s;
    uint64_t next()
    {
        uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    // roughly normal, times 2^e for e in [lo, hi]
    float value(int lo, int hi)
    {
        float u = 0;
        for (int i = 0; i < 4; i++)
            u += (float)(next() >> 40) * (1.0f / 16777216.0f);
        return (u - 2.0f) * std::ldexp(1.0f, lo + (int)(next() % (uint64_t)(hi - lo + 1)));
    }
};

// A device buffer that frees itself.
struct Dev {
    void *p = nullptr;
    explicit Dev(size_t bytes) { CUDA_DIE(cudaMalloc(&p, bytes ? bytes : 1)); }
    ~Dev() { cudaFree(p); }
    Dev(const Dev &) = delete;
    Dev &operator=(const Dev &) = delete;
    template <class T> T *as() const { return static_cast<T *>(p); }
};

void to_dev(void *d, const void *h, size_t n) { CUDA_DIE(cudaMemcpy(d, h, n, cudaMemcpyHostToDevice)); }
void to_host(void *h, const void *d, size_t n) { CUDA_DIE(cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost)); }

bool same_stats(const mf_stats &a, const mf_stats &b)
{
    return a.overflow == b.overflow && a.underflow == b.underflow && a.subnormal == b.subnormal && a.nan == b.nan &&
           a.inexact == b.inexact;
}

const mf_format kAll[] = {MF_FP32,     MF_FP16,     MF_BF16,     MF_FP8_E4M3, MF_FP8_E5M2,
                          MF_FP6_E2M3, MF_FP6_E3M2, MF_FP4_E2M1, MF_E8M0,     MF_FP64};

// ---- argument errors --------------------------------------------------------------------------------------

void check_args(bool have_device)
{
    alignas(16) static uint8_t h[4096];
    void *a = h, *b = h + 2048;
    mf_opts bad_round{}, bad_pol{}, bad_threads{};
    bad_round.round = (mf_round)MF_ROUND_COUNT;
    bad_pol.overflow = (mf_overflow)MF_OVERFLOW_COUNT;
    bad_threads.threads = -1;
    const size_t huge = (size_t)-1 / 2;
    struct Conv {
        mf_format d, s;
        void *dst;
        const void *src;
        size_t n;
        const mf_opts *o;
        const char *why;
    } conv[] = {
        {(mf_format)MF_FORMAT_COUNT, MF_FP32, a, b, 8, nullptr, "dst format"},
        {MF_FP16, (mf_format)-1, a, b, 8, nullptr, "src format"},
        {MF_FP16, MF_FP32, a, b, 8, &bad_round, "mode"},
        {MF_FP16, MF_FP32, a, b, 8, &bad_pol, "policy"},
        {MF_FP16, MF_FP32, a, b, 8, &bad_threads, "threads"},
        {MF_FP16, MF_FP32, nullptr, b, 8, nullptr, "dst NULL"},
        {MF_FP16, MF_FP32, a, nullptr, 8, nullptr, "src NULL"},
        {MF_FP16, MF_FP32, a, h + 4, 8, nullptr, "overlap"},
        {MF_FP16, MF_FP32, a, b, huge, nullptr, "size"},
    };
    for (const Conv &c : conv) {
        int want = mf_convert(c.d, c.dst, c.s, c.src, c.n, c.o);
        int got = mf_cuda_convert(c.d, c.dst, c.s, c.src, c.n, c.o, nullptr);
        expect(want < 0 && got == want, "mf_cuda_convert(%s): %d, mf_convert %d", c.why, got, want);
    }
    mf_loss_scaler s = mf_loss_scaler_default();
    expect(mf_cuda_unscale_check(nullptr, MF_FP32, a, 4, nullptr) == MF_E_NULL, "mf_cuda_unscale_check(s NULL)");
    expect(mf_cuda_unscale_check(&s, MF_FP8_E4M3, a, 4, nullptr) == MF_E_FORMAT, "mf_cuda_unscale_check(format)");
    expect(mf_cuda_unscale_check(&s, MF_FP16, nullptr, 4, nullptr) == MF_E_NULL, "mf_cuda_unscale_check(NULL)");
    expect(mf_cuda_unscale_check(&s, MF_FP32, a, huge, nullptr) == MF_E_SIZE, "mf_cuda_unscale_check(size)");
    expect(mf_cuda_unscale_check(&s, MF_FP32, nullptr, 0, nullptr) == 0, "mf_cuda_unscale_check(n = 0)");
    float amax = -1;
    expect(mf_cuda_amax(MF_FP32, a, 4, nullptr, nullptr) == MF_E_NULL, "mf_cuda_amax(amax NULL)");
    expect(mf_cuda_amax(MF_FP8_E4M3, a, 4, &amax, nullptr) == MF_E_FORMAT, "mf_cuda_amax(format)");
    expect(mf_cuda_amax(MF_FP32, nullptr, 4, &amax, nullptr) == MF_E_NULL, "mf_cuda_amax(x NULL)");
    expect(mf_cuda_amax(MF_FP64, a, huge, &amax, nullptr) == MF_E_SIZE, "mf_cuda_amax(size)");
    expect(mf_cuda_amax(MF_FP32, nullptr, 0, &amax, nullptr) == MF_OK && amax == 0.0f, "mf_cuda_amax(n = 0)");

    // MX and NVFP4: the host function's code for each bad argument
    float *x = reinterpret_cast<float *>(h);
    uint8_t *el = h + 1024, *sc = h + 3072;
    mf_opts rz{};
    rz.round = MF_ROUND_TOWARD_ZERO;
    struct Mx {
        mf_mx_type t;
        mf_mx_scale_rule r;
        mf_mx_axis ax;
        unsigned fl;
        const float *x;
        size_t rows, cols;
        void *e;
        uint8_t *s;
        const mf_opts *o;
        const char *why;
    } mx[] = {
        {(mf_mx_type)MF_MX_TYPE_COUNT, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, x, 2, 32, el, sc, nullptr, "type"},
        {MF_MXFP8_E4M3, (mf_mx_scale_rule)7, MF_MX_ROWWISE, 0, x, 2, 32, el, sc, nullptr, "rule"},
        {MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, (mf_mx_axis)5, 0, x, 2, 32, el, sc, nullptr, "axis"},
        {MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, x, 2, 33, el, sc, nullptr, "cols"},
        {MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_COLWISE, 0, x, 2, 32, el, sc, nullptr, "rows"},
        {MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, MF_MX_FP6_PACKED, x, 2, 32, el, sc, nullptr, "flags"},
        {MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, x, 2, 32, el, sc, &rz, "mode"},
        {MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, x, 2, 32, el, sc, &bad_pol, "policy"},
        {MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, x, 2, 32, el, sc, &bad_threads, "threads"},
        {MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, nullptr, 2, 32, el, sc, nullptr, "x NULL"},
        {MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, x, 2, 32, nullptr, sc, nullptr, "elems NULL"},
        {MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, x, 2, 32, el, nullptr, nullptr, "scales NULL"},
        {MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, x, 2, 32, h + 8, sc, nullptr, "overlap"},
        {MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, x, huge, 64, el, sc, nullptr, "size"},
    };
    for (const Mx &c : mx) {
        int want = mf_mx_quantize(c.t, c.r, c.ax, c.fl, c.x, c.rows, c.cols, c.e, c.s, c.o);
        int got = mf_cuda_mx_quantize(c.t, c.r, c.ax, c.fl, c.x, c.rows, c.cols, c.e, c.s, c.o, nullptr);
        expect(want < 0 && got == want, "mf_cuda_mx_quantize(%s): %d, mf_mx_quantize %d", c.why, got, want);
    }
    float neg = -1.0f, nan = NAN;
    struct Nv {
        mf_mx_axis ax;
        const float *x;
        size_t rows, cols;
        uint8_t *e, *s;
        const float *amax_in;
        const mf_opts *o;
        const char *why;
    } nv[] = {
        {(mf_mx_axis)3, x, 2, 16, el, sc, nullptr, nullptr, "axis"},
        {MF_MX_ROWWISE, x, 2, 17, el, sc, nullptr, nullptr, "cols"},
        {MF_MX_ROWWISE, x, 2, 16, el, sc, &neg, nullptr, "amax_in < 0"},
        {MF_MX_ROWWISE, x, 2, 16, el, sc, &nan, nullptr, "amax_in NaN"},
        {MF_MX_ROWWISE, x, 2, 16, el, sc, nullptr, &rz, "mode"},
        {MF_MX_ROWWISE, nullptr, 2, 16, el, sc, nullptr, nullptr, "x NULL"},
        {MF_MX_ROWWISE, x, 2, 16, el, nullptr, nullptr, nullptr, "scales NULL"},
        {MF_MX_ROWWISE, x, 2, 16, h + 4, sc, nullptr, nullptr, "overlap"},
    };
    for (const Nv &c : nv) {
        float ao = 0;
        int want = mf_nvfp4_quantize(c.ax, c.x, c.rows, c.cols, c.e, c.s, c.amax_in, &ao, c.o);
        int got = mf_cuda_nvfp4_quantize(c.ax, c.x, c.rows, c.cols, c.e, c.s, c.amax_in, &ao, c.o, nullptr);
        expect(want < 0 && got == want, "mf_cuda_nvfp4_quantize(%s): %d, mf_nvfp4_quantize %d", c.why, got, want);
    }
    // GEMM: the codes of cuda.h's contract
    float *c = reinterpret_cast<float *>(h + 2048);
    struct Gm {
        int layout, ta, tb;
        size_t m, n, k;
        const void *a;
        mf_format fa;
        size_t lda;
        const void *b;
        mf_format fb;
        size_t ldb;
        float *c;
        size_t ldc;
        int want;
        const char *why;
    } gm[] = {
        {2, 0, 0, 4, 4, 4, h, MF_FP16, 4, h + 64, MF_FP16, 4, c, 4, MF_E_ARG, "layout"},
        {0, 2, 0, 4, 4, 4, h, MF_FP16, 4, h + 64, MF_FP16, 4, c, 4, MF_E_ARG, "trans_a"},
        {0, 0, 0, 4, 4, 4, h, MF_FP16, 3, h + 64, MF_FP16, 4, c, 4, MF_E_ARG, "lda"},
        {0, 0, 0, 4, 4, 4, h, MF_FP16, 4, h + 64, MF_FP16, 4, c, 3, MF_E_ARG, "ldc"},
        {1, 0, 0, 4, 5, 4, h, MF_FP16, 4, h + 64, MF_FP16, 3, c, 4, MF_E_ARG, "ldb col-major"},
        {0, 0, 0, 4, 4, 4, h, MF_FP32, 4, h + 64, MF_FP32, 4, c, 4, MF_E_FORMAT, "f32 inputs"},
        {0, 0, 0, 4, 4, 4, h, MF_FP16, 4, h + 64, MF_BF16, 4, c, 4, MF_E_FORMAT, "f16 x bf16"},
        {0, 0, 0, 4, 4, 4, h, MF_FP8_E4M3, 4, h + 64, MF_FP16, 4, c, 4, MF_E_FORMAT, "e4m3 x f16"},
        {0, 0, 0, 4, 4, 4, nullptr, MF_FP16, 4, h + 64, MF_FP16, 4, c, 4, MF_E_NULL, "a NULL"},
        {0, 0, 0, 4, 4, 4, h, MF_FP16, 4, h + 64, MF_FP16, 4, nullptr, 4, MF_E_NULL, "c NULL"},
        {0, 0, 0, 4, 4, 4, h, MF_FP16, 4, h + 64, MF_FP16, 4, reinterpret_cast<float *>(h + 16), 4, MF_E_OVERLAP,
         "c over a"},
        {0, 0, 0, huge, 4, 4, h, MF_FP16, 4, h + 64, MF_FP16, 4, c, 4, MF_E_SIZE, "m"},
    };
    for (const Gm &g : gm) {
        int got = mf_cuda_gemm((mf_layout)g.layout, (mf_trans)g.ta, (mf_trans)g.tb, g.m, g.n, g.k, 1.0f, g.a, g.fa,
                               g.lda, g.b, g.fb, g.ldb, 0.0f, g.c, g.ldc, nullptr);
        expect(got == g.want, "mf_cuda_gemm(%s): %d, want %d", g.why, got, g.want);
    }
    // k = 0 or alpha = 0: A and B are not read, so may be NULL; m = 0 touches nothing
    expect(mf_cuda_gemm(MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, 0, 4, 4, 1.0f, nullptr, MF_FP16, 4, nullptr, MF_FP16, 4,
                        0.0f, nullptr, 4, nullptr) == MF_OK,
           "mf_cuda_gemm(m = 0)");
    if (!have_device) { // valid arguments without a device
        expect(mf_cuda_convert(MF_FP16, a, MF_FP32, b, 8, nullptr, nullptr) == MF_E_UNSUPPORTED,
               "mf_cuda_convert without a device");
        expect(mf_cuda_amax(MF_FP32, a, 8, &amax, nullptr) == MF_E_UNSUPPORTED, "mf_cuda_amax without a device");
    }
    expect(mf_cuda_built() == 1, "mf_cuda_built");
}

// ---- mf_cuda_convert -------------------------------------------------------------------------------------

// Source bytes of format f: random bit patterns, then (f32, f64) the boundary sets.
std::vector<uint8_t> source_bytes(mf_format f, size_t n, Rng &rng)
{
    std::vector<uint8_t> v(mf_storage_bytes(f, n) + 16);
    for (auto &byte : v)
        byte = (uint8_t)rng.next();
    if (f == MF_FP32) {
        std::vector<uint32_t> bs = boundary_f32();
        size_t k = std::min(bs.size(), n / 2);
        for (size_t i = 0; i < k; i++)
            std::memcpy(&v[4 * (n / 2 + i)], &bs[(i * 7919) % bs.size()], 4);
    } else if (f == MF_FP64) {
        std::vector<uint64_t> bs = boundary_f64();
        size_t k = std::min(bs.size(), n / 2);
        for (size_t i = 0; i < k; i++)
            std::memcpy(&v[8 * (n / 2 + i)], &bs[(i * 7919) % bs.size()], 8);
    }
    return v;
}

int check_convert(cudaStream_t stream)
{
    Rng rng{1};
    const size_t n = (1u << 17) + 37; // odd: e2m1's last byte keeps its high nibble; and not a vector multiple
    const size_t off = 3;             // misaligned by 3 elements (e2m1: odd bytes are impossible, so 2 elements)
    uint64_t combos = 0, bad0 = g_bad;
    std::vector<std::vector<uint8_t>> src;
    for (mf_format f : kAll)
        src.push_back(source_bytes(f, n + off + 1, rng));
    const size_t maxb = 8 * (n + off + 2) + 16;
    Dev d_src(maxb), d_dst(maxb);
    std::vector<uint8_t> want(maxb), got(maxb);
    int threads = (int)std::thread::hardware_concurrency();
    for (size_t si = 0; si < 10; si++)
        for (mf_format df : kAll) {
            mf_format sf = kAll[si];
            size_t so = mf_storage_bytes(sf, sf == MF_FP4_E2M1 ? 2 : off);
            size_t doff = mf_storage_bytes(df, df == MF_FP4_E2M1 ? 2 : off);
            size_t sbytes = mf_storage_bytes(sf, n), dbytes = mf_storage_bytes(df, n) + 1;
            to_dev(d_src.p, src[si].data(), so + sbytes);
            for (int r = 0; r < MF_ROUND_COUNT; r++)
                for (int o = 0; o < MF_OVERFLOW_COUNT; o++) {
                    mf_stats hs{}, ds{};
                    mf_opts opts{};
                    opts.round = (mf_round)r;
                    opts.overflow = (mf_overflow)o;
                    opts.seed = 0x1234567890ABCDEFull + (uint64_t)combos;
                    opts.sr_offset = (uint64_t)combos * 1000003u;
                    opts.stats = (combos % 3 == 2) ? nullptr : &hs; // with and without counts
                    opts.threads = threads;
                    std::memset(want.data(), 0xA5, doff + dbytes);
                    int rc = mf_convert(df, want.data() + doff, sf, src[si].data() + so, n, &opts);
                    CUDA_OK(cudaMemsetAsync(d_dst.p, 0xA5, doff + dbytes, stream));
                    opts.stats = opts.stats ? &ds : nullptr;
                    opts.threads = 0;
                    int rd = mf_cuda_convert(df, d_dst.as<uint8_t>() + doff, sf, d_src.as<uint8_t>() + so, n, &opts,
                                             (combos & 1) ? stream : nullptr);
                    CUDA_OK(cudaDeviceSynchronize());
                    to_host(got.data(), d_dst.p, doff + dbytes);
                    bool ok = rc == MF_OK && rd == MF_OK && !std::memcmp(want.data(), got.data(), doff + dbytes) &&
                              (!opts.stats || same_stats(hs, ds));
                    size_t first = 0;
                    while (!ok && first < doff + dbytes && want[first] == got[first])
                        first++;
                    expect(ok, "mf_cuda_convert %s -> %s %s %s: rc %d/%d, first byte that differs %zu of %zu%s",
                           mf_format_name(sf), mf_format_name(df), kRoundName[r], mf_overflow_name((mf_overflow)o), rd,
                           rc, first, doff + dbytes, opts.stats && !same_stats(hs, ds) ? ", counts differ" : "");
                    combos++;
                }
        }
    std::printf("mf_cuda_convert: %llu (pair, mode, policy) of %zu elements: %llu differ\n", (unsigned long long)combos,
                n, (unsigned long long)(g_bad - bad0));
    return 0;
}

// ---- mf_cuda_unscale_check, mf_cuda_amax --------------------------------------------------------------------

int check_unscale_amax(cudaStream_t stream)
{
    Rng rng{2};
    const size_t n = 100003;
    uint64_t bad0 = g_bad, cases = 0;
    mf_loss_scaler scalers[3] = {mf_loss_scaler_default(), mf_loss_scaler_default(), mf_loss_scaler_default()};
    mf_loss_scaler_config cfg = mf_loss_scaler_config_default();
    cfg.init_scale = 1.0f; // inv == 1: no multiplication
    mf_loss_scaler_init(&scalers[1], &cfg);
    cfg.init_scale = 3.0f; // an inexact inverse
    mf_loss_scaler_init(&scalers[2], &cfg);
    Dev d(8 * n);
    for (mf_format f : {MF_FP32, MF_FP16, MF_BF16, MF_FP64})
        for (int special = 0; special < 3; special++) { // none, an inf, a NaN
            size_t es = f == MF_FP64 ? 8 : f == MF_FP32 ? 4 : 2;
            std::vector<uint8_t> h(es * n);
            for (size_t i = 0; i < n; i++) {
                float v = rng.value(-30, 10);
                uint64_t code = f == MF_FP32   ? bits_of(v)
                                : f == MF_FP64 ? bits_of((double)v * 1.0000001)
                                               : mf_from_f32(f, v, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE, 0);
                std::memcpy(&h[es * i], &code, es);
            }
            if (special) {
                size_t at = (size_t)(rng.next() % n);
                uint64_t code = f == MF_FP64   ? (special == 1 ? 0xFFF0000000000000ull : 0x7FF8000000000123ull)
                                : f == MF_FP32 ? (special == 1 ? 0x7F800000u : 0xFFC00123u)
                                : f == MF_FP16 ? (special == 1 ? 0xFC00u : 0x7E01u)
                                               : (special == 1 ? 0x7F80u : 0xFFC1u);
                std::memcpy(&h[es * at], &code, es);
            }
            // amax
            float ha = -1, da = -1;
            to_dev(d.p, h.data(), h.size());
            int rh = mf_amax(f, h.data(), n, &ha), rd = mf_cuda_amax(f, d.p, n, &da, stream);
            expect(rh == MF_OK && rd == MF_OK && bits_of(ha) == bits_of(da), "mf_cuda_amax %s special %d: %g, host %g",
                   mf_format_name(f), special, (double)da, (double)ha);
            cases++;
            if (f == MF_FP64)
                continue;
            for (const mf_loss_scaler &s : scalers) {
                std::vector<uint8_t> hw = h, dw(h.size());
                to_dev(d.p, h.data(), h.size());
                int fh = mf_unscale_check(&s, f, hw.data(), n);
                int fd = mf_cuda_unscale_check(&s, f, d.p, n, stream);
                to_host(dw.data(), d.p, dw.size());
                expect(fh >= 0 && fd == fh && hw == dw, "mf_cuda_unscale_check %s scale %g special %d: %d, host %d%s",
                       mf_format_name(f), (double)s.scale, special, fd, fh, hw == dw ? "" : ", bytes differ");
                cases++;
            }
        }
    std::printf("mf_cuda_amax, mf_cuda_unscale_check: %llu cases: %llu differ\n", (unsigned long long)cases,
                (unsigned long long)(g_bad - bad0));
    return 0;
}

// ---- mf_cuda_mx_quantize, mf_cuda_nvfp4_quantize -------------------------------------------------------------

// rows x cols of training-like values; some blocks all zero, some with an inf or a NaN, some huge or tiny.
std::vector<float> tensor(size_t rows, size_t cols, Rng &rng)
{
    std::vector<float> x(rows * cols);
    for (size_t i = 0; i < x.size(); i++)
        x[i] = rng.value(-20, 12);
    for (size_t i = 0; i < x.size(); i += 97)
        x[i] = 0.0f;
    for (int k = 0; k < 3; k++) {
        x[(size_t)(rng.next() % x.size())] = INFINITY;
        x[(size_t)(rng.next() % x.size())] = NAN;
        x[(size_t)(rng.next() % x.size())] = 3.0e38f;
        x[(size_t)(rng.next() % x.size())] = 1.0e-42f;
    }
    return x;
}

int check_quantize(cudaStream_t stream)
{
    Rng rng{3};
    uint64_t bad0 = g_bad, cases = 0;
    const size_t shapes[][2] = {{64, 96}, {96, 64}, {32, 32}, {160, 224}};
    for (auto &sh : shapes) {
        size_t rows = sh[0], cols = sh[1], n = rows * cols;
        std::vector<float> x = tensor(rows, cols, rng);
        // a block of zeros along both axes
        for (size_t r = 0; r < 32; r++)
            for (size_t c = 0; c < 32; c++)
                x[r * cols + c] = 0.0f;
        Dev dx(4 * n), de(n + 16), ds(n / 16 + 16);
        to_dev(dx.p, x.data(), 4 * n);
        for (int t = 0; t < MF_MX_TYPE_COUNT; t++)
            for (int rule = 0; rule < 2; rule++)
                for (int ax = 0; ax < 2; ax++)
                    for (unsigned fl = 0; fl < 2; fl++)
                        for (int sr = 0; sr < 2; sr++) {
                            if (fl && t != MF_MXFP6_E2M3 && t != MF_MXFP6_E3M2)
                                continue;
                            size_t eb = 0, ns = 0;
                            if (mf_mx_sizes((mf_mx_type)t, (mf_mx_axis)ax, fl, rows, cols, &eb, &ns) != MF_OK)
                                continue;
                            mf_stats hs{}, dst{};
                            mf_opts o{};
                            o.round = sr ? MF_ROUND_STOCHASTIC : MF_ROUND_NEAREST_EVEN;
                            o.seed = 77 + (uint64_t)cases;
                            o.sr_offset = 5 * (uint64_t)cases;
                            o.stats = &hs;
                            std::vector<uint8_t> he(eb, 0x5A), hsc(ns, 0x5A), ge(eb), gs(ns);
                            int rh = mf_mx_quantize((mf_mx_type)t, (mf_mx_scale_rule)rule, (mf_mx_axis)ax, fl, x.data(),
                                                    rows, cols, he.data(), hsc.data(), &o);
                            o.stats = &dst;
                            CUDA_OK(cudaMemset(de.p, 0x5A, eb));
                            CUDA_OK(cudaMemset(ds.p, 0x5A, ns));
                            int rd = mf_cuda_mx_quantize((mf_mx_type)t, (mf_mx_scale_rule)rule, (mf_mx_axis)ax, fl,
                                                         dx.as<float>(), rows, cols, de.p, ds.as<uint8_t>(), &o,
                                                         stream);
                            CUDA_OK(cudaDeviceSynchronize());
                            to_host(ge.data(), de.p, eb);
                            to_host(gs.data(), ds.p, ns);
                            expect(rh == MF_OK && rd == MF_OK && ge == he && gs == hsc && same_stats(hs, dst),
                                   "mf_cuda_mx_quantize type %d rule %d axis %d flags %u %s %zux%zu: rc %d/%d%s%s%s", t,
                                   rule, ax, fl, sr ? "sr" : "rn", rows, cols, rd, rh,
                                   ge == he ? "" : ", elements differ", gs == hsc ? "" : ", scales differ",
                                   same_stats(hs, dst) ? "" : ", counts differ");
                            cases++;
                        }
        if (cols % 16 || rows % 16)
            continue;
        for (int ax = 0; ax < 2; ax++)
            for (int given = 0; given < 2; given++)
                for (int sr = 0; sr < 2; sr++) {
                    size_t eb = 0, ns = 0;
                    if (mf_nvfp4_sizes((mf_mx_axis)ax, rows, cols, &eb, &ns) != MF_OK)
                        continue;
                    mf_stats hs{}, dst{};
                    mf_opts o{};
                    o.round = sr ? MF_ROUND_STOCHASTIC : MF_ROUND_NEAREST_EVEN;
                    o.seed = 99 + (uint64_t)cases;
                    o.stats = &hs;
                    float amax_in = 1000.0f, ha = -1, da = -1;
                    std::vector<uint8_t> he(eb, 0x5A), hsc(ns, 0x5A), ge(eb), gs(ns);
                    int rh = mf_nvfp4_quantize((mf_mx_axis)ax, x.data(), rows, cols, he.data(), hsc.data(),
                                               given ? &amax_in : nullptr, &ha, &o);
                    o.stats = &dst;
                    CUDA_OK(cudaMemset(de.p, 0x5A, eb));
                    CUDA_OK(cudaMemset(ds.p, 0x5A, ns));
                    int rd = mf_cuda_nvfp4_quantize((mf_mx_axis)ax, dx.as<float>(), rows, cols, de.as<uint8_t>(),
                                                    ds.as<uint8_t>(), given ? &amax_in : nullptr, &da, &o, stream);
                    CUDA_OK(cudaDeviceSynchronize());
                    to_host(ge.data(), de.p, eb);
                    to_host(gs.data(), ds.p, ns);
                    expect(rh == MF_OK && rd == MF_OK && ge == he && gs == hsc && bits_of(ha) == bits_of(da) &&
                               same_stats(hs, dst),
                           "mf_cuda_nvfp4_quantize axis %d amax %s %s %zux%zu: rc %d/%d%s%s, amax %g/%g%s", ax,
                           given ? "given" : "computed", sr ? "sr" : "rn", rows, cols, rd, rh,
                           ge == he ? "" : ", elements differ", gs == hsc ? "" : ", scales differ", (double)da,
                           (double)ha, same_stats(hs, dst) ? "" : ", counts differ");
                    cases++;
                }
    }
    std::printf("mf_cuda_mx_quantize, mf_cuda_nvfp4_quantize: %llu cases: %llu differ\n", (unsigned long long)cases,
                (unsigned long long)(g_bad - bad0));
    return 0;
}

// ---- mf_cuda_gemm ------------------------------------------------------------------------------------------

// Random finite codes of f (f16, bf16, e4m3, e5m2): values near 1 with a spread of exponents, some zeros.
std::vector<uint8_t> gemm_operand(mf_format f, size_t count, Rng &rng)
{
    size_t es = f == MF_FP16 || f == MF_BF16 ? 2 : 1;
    std::vector<uint8_t> v(es * count);
    for (size_t i = 0; i < count; i++) {
        float x = (i % 13 == 5) ? 0.0f : rng.value(-6, 3);
        uint32_t c = mf_from_f32(f, x, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE, 0);
        std::memcpy(&v[es * i], &c, es);
    }
    return v;
}

int check_gemm(int major, int minor, cudaStream_t stream)
{
    int cc = major * 10 + minor;
    mf_accum model;
    const char *model_name;
    if (cc == 80) {
        model = MF_ACCUM_A100, model_name = "MF_ACCUM_A100";
    } else if (cc == 89) {
        model = MF_ACCUM_ADA, model_name = "MF_ACCUM_ADA";
    } else if (cc == 90) {
        model = MF_ACCUM_H100, model_name = "MF_ACCUM_H100";
    } else if (cc == 100 || cc == 103) {
        model = MF_ACCUM_B200, model_name = "MF_ACCUM_B200";
    } else {
        std::printf("mf_cuda_gemm: no accumulation model for sm_%d: the GEMM's bits are not compared\n", cc);
        return 0;
    }
    Rng rng{4};
    uint64_t bad0 = g_bad, cases = 0;
    const size_t shapes[][3] = {{1, 1, 1}, {17, 33, 65}, {64, 64, 64}, {128, 96, 200}, {33, 250, 513}, {5, 7, 1000}};
    const mf_format pairs[][2] = {{MF_FP16, MF_FP16},
                                  {MF_BF16, MF_BF16},
                                  {MF_FP8_E4M3, MF_FP8_E4M3},
                                  {MF_FP8_E5M2, MF_FP8_E4M3},
                                  {MF_FP8_E4M3, MF_FP8_E5M2}};
    for (auto &pr : pairs) {
        bool fp8 = pr[0] != MF_FP16 && pr[0] != MF_BF16;
        for (auto &sh : shapes)
            for (int lay = 0; lay < 2; lay++)
                for (int ta = 0; ta < 2; ta++)
                    for (int tb = 0; tb < 2; tb++) {
                        size_t m = sh[0], n = sh[1], k = sh[2];
                        bool row = lay == MF_ROW_MAJOR;
                        // stored shapes: A is m x k (k x m transposed), B k x n (n x k); ld = the inner size + pad
                        size_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
                        size_t pad = (m + n + k) % 3;
                        size_t lda = (row ? ac : ar) + pad, ldb = (row ? bc : br) + pad, ldc = (row ? n : m) + pad;
                        size_t na = (row ? ar : ac) * lda, nb = (row ? br : bc) * ldb, nc = (row ? m : n) * ldc;
                        std::vector<uint8_t> a = gemm_operand(pr[0], na, rng), b = gemm_operand(pr[1], nb, rng);
                        std::vector<float> c0(nc), acc(nc, 0.0f), got(nc);
                        for (auto &v : c0)
                            v = rng.value(-2, 2);
                        // host: the model's accumulator (alpha 1, beta 0, f32 C), then cuda.h's epilogue
                        mf_gemm_opts go{};
                        go.accum = model;
                        go.threads = (int)std::thread::hardware_concurrency();
                        int rh = mf_gemm((mf_layout)lay, (mf_trans)ta, (mf_trans)tb, m, n, k, 1.0f, a.data(), pr[0],
                                         lda, b.data(), pr[1], ldb, 0.0f, acc.data(), MF_FP32, ldc, &go);
                        for (int ab = 0; ab < 2; ab++) {
                            float alpha = ab ? 1.0f : 1.5f, beta = ab ? 0.5f : 0.0f;
                            std::vector<float> want = c0;
                            for (size_t i = 0; i < (row ? m : n); i++)
                                for (size_t j = 0; j < (row ? n : m); j++) {
                                    size_t at = i * ldc + j;
                                    want[at] = beta == 0.0f ? alpha * acc[at]
                                                            : std::fmaf(alpha, acc[at], beta * c0[at]);
                                }
                            Dev da(a.size()), db(b.size()), dc(4 * nc);
                            to_dev(da.p, a.data(), a.size());
                            to_dev(db.p, b.data(), b.size());
                            to_dev(dc.p, c0.data(), 4 * nc);
                            int rd = mf_cuda_gemm((mf_layout)lay, (mf_trans)ta, (mf_trans)tb, m, n, k, alpha, da.p,
                                                  pr[0], lda, db.p, pr[1], ldb, beta, dc.as<float>(), ldc, stream);
                            if (fp8 && cc < 89) {
                                expect(rd == MF_E_UNSUPPORTED, "mf_cuda_gemm FP8 on sm_%d: %d, want MF_E_UNSUPPORTED",
                                       cc, rd);
                                continue;
                            }
                            CUDA_OK(cudaDeviceSynchronize());
                            to_host(got.data(), dc.p, 4 * nc);
                            size_t nbad = 0, first = 0;
                            for (size_t i = 0; i < nc; i++)
                                if (bits_of(got[i]) != bits_of(want[i]) && !nbad++)
                                    first = i;
                            expect(rh == MF_OK && rd == MF_OK && nbad == 0,
                                   "mf_cuda_gemm %s x %s %s %c%c m=%zu n=%zu k=%zu alpha %g beta %g vs mf_gemm %s: rc "
                                   "%d/%d, %zu of %zu differ (first [%zu]: %a, host %a)",
                                   mf_format_name(pr[0]), mf_format_name(pr[1]), row ? "row" : "col", ta ? 'T' : 'N',
                                   tb ? 'T' : 'N', m, n, k, (double)alpha, (double)beta, model_name, rd, rh, nbad, nc,
                                   first, (double)got[first], (double)want[first]);
                            cases++;
                        }
                    }
    }
    std::printf("mf_cuda_gemm vs mf_gemm (%s): %llu cases: %llu differ\n", model_name, (unsigned long long)cases,
                (unsigned long long)(g_bad - bad0));
    return 0;
}

} // namespace

int main()
{
    int count = 0;
    bool have = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
    (void)cudaGetLastError();
    check_args(have && mf_cuda_device_count() > 0);
    std::printf("argument checks: %llu checked, %llu differ\n", (unsigned long long)g_checked,
                (unsigned long long)g_bad);
    if (g_bad)
        return 1;
    int major = 0, minor = 0;
    if (!mf_test_have_device(&major, &minor))
        return MF_TEST_SKIP;
    cudaStream_t stream;
    CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    if (check_convert(stream) || check_unscale_amax(stream) || check_quantize(stream) ||
        check_gemm(major, minor, stream))
        return 1;
    std::printf("SUMMARY test=cuda_kernels checked=%llu mismatches=%llu\n", (unsigned long long)g_checked,
                (unsigned long long)g_bad);
    return g_bad != 0;
}
