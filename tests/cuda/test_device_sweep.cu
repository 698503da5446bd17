/* SPDX-License-Identifier: MIT */
// tests/cuda/test_device_sweep.cu - every binary32 input gives the host's bits on the GPU.
//
//   test_cuda_device_sweep [--modes rn,rz|all] [--formats e4m3,...] [--chunks N] [--threads N] [--seed S]
//
// For each narrow format, each rounding mode asked for (default rn and rz: the modes with conversion
// instructions) and both overflow policies, all 2^32 binary32 inputs are rounded on the device twice:
// through the named function (mf_f32_to_e4m3_rn_sat ...: constant arguments, where the per-architecture
// instructions fold in; one kernel per function) and through mf_from_f32 with runtime arguments (one
// kernel). Both must give the host library's bytes: mf_convert computes them on every CPU core, chunk by
// chunk, into pinned buffers; each chunk is copied to the device, where the kernels compare and count
// (copying the expected bytes there is cheaper than hashing both sides: the host's conversion is fast,
// and a mismatch is then known element by element, with no rerun). Stochastic rounding gives the input
// with bit pattern b the bits mf_sr_rbits(seed, b, width): mf_convert's stream with sr_offset = b.
//
// Every input is counted on the device as it is visited, and the count must be 2^32 (or the chunks asked
// for) per function. Prints the first mismatches, one line per (format, mode, policy), and a last line
// "SUMMARY ..." that tests/cuda/gpu-check.sh reads. Exits 1 on any mismatch or error, 77 without a GPU.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "device_util.cuh"

namespace
{

struct Mismatch {
    int slot;    // combo, or ncombo + combo for the boundary set
    int variant; // 0 named, 1 mf_from_f32
    uint32_t bits, got, want;
};
constexpr int kLogMax = 16;

struct DeviceLog {
    unsigned long long *counts; // per combo: named checked, named bad, runtime checked, runtime bad
    unsigned int *nlog;
    Mismatch *log;
};

// The expected code of element i in mf_convert's layout: 16-bit codes, one byte (fp6 in the low six
// bits), or e2m1 nibbles (element 2j in the low half of byte j).
__device__ __forceinline__ uint32_t load_want(int width, const void *want, uint32_t i)
{
    if (width == 16)
        return static_cast<const uint16_t *>(want)[i];
    if (width == 8)
        return static_cast<const uint8_t *>(want)[i];
    return (static_cast<const uint8_t *>(want)[i >> 1] >> ((i & 1u) * 4u)) & 0xFu;
}

__device__ __forceinline__ void check_one(const DeviceLog &dl, int combo, int variant, uint32_t bits, uint32_t got,
                                          uint32_t want, unsigned &bad)
{
    if (got != want) {
        bad++;
        unsigned k = atomicAdd(dl.nlog, 1u);
        if (k < kLogMax)
            dl.log[k] = Mismatch{combo, variant, bits, got, want};
    }
}

__host__ __device__ constexpr int code_width(mf_format f)
{
    return f == MF_FP16 || f == MF_BF16 ? 16 : f == MF_FP4_E2M1 ? 4 : 8;
}

// One named function over inputs base .. base + n - 1, or over in[0 .. n - 1] where in is not NULL (the
// boundary set). Stochastic rounding takes stream index base + i: the bit pattern in the sweep, the
// element's index in the boundary set (base 0).
template <mf_format F, mf_round R, mf_overflow O>
__global__ void sweep_named(const uint32_t *in, uint32_t base, uint32_t n, const void *want, uint64_t seed,
                            DeviceLog dl, int slot)
{
    unsigned visited = 0, bad = 0;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        uint32_t bits = in ? in[i] : base + i;
        uint32_t rb = R == MF_ROUND_STOCHASTIC ? mf_sr_rbits(seed, base + i, mf_sr_width(F)) : 0u;
        uint32_t got = named_f32<F, R, O>(__uint_as_float(bits), rb);
        check_one(dl, slot, 0, bits, got, load_want(code_width(F), want, i), bad);
        visited++;
    }
    warp_add(&dl.counts[4 * slot + 0], visited);
    warp_add(&dl.counts[4 * slot + 1], bad);
}

// mf_from_f32 with the format, mode and policy as runtime values; otherwise as sweep_named.
__global__ void sweep_runtime(mf_format f, mf_round r, mf_overflow o, const uint32_t *in, uint32_t base, uint32_t n,
                              const void *want, uint64_t seed, DeviceLog dl, int slot)
{
    unsigned visited = 0, bad = 0;
    unsigned sw = mf_sr_width(f);
    int width = code_width(f);
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        uint32_t bits = in ? in[i] : base + i;
        uint32_t rb = r == MF_ROUND_STOCHASTIC ? mf_sr_rbits(seed, base + i, sw) : 0u;
        uint32_t got = mf_from_f32(f, __uint_as_float(bits), r, o, rb);
        check_one(dl, slot, 1, bits, got, load_want(width, want, i), bad);
        visited++;
    }
    warp_add(&dl.counts[4 * slot + 2], visited);
    warp_add(&dl.counts[4 * slot + 3], bad);
}

using NamedKernel = void (*)(const uint32_t *, uint32_t, uint32_t, const void *, uint64_t, DeviceLog, int);

// The table of named kernels: kNamed[format index][mode][policy].
template <mf_format F, mf_round R> constexpr NamedKernel pol_pair(int o)
{
    return o ? sweep_named<F, R, MF_OVERFLOW_SATURATE> : sweep_named<F, R, MF_OVERFLOW_IEEE>;
}
template <mf_format F> NamedKernel named_kernel(int r, int o)
{
    switch (r) {
    case MF_ROUND_NEAREST_EVEN: return pol_pair<F, MF_ROUND_NEAREST_EVEN>(o);
    case MF_ROUND_NEAREST_AWAY: return pol_pair<F, MF_ROUND_NEAREST_AWAY>(o);
    case MF_ROUND_TOWARD_ZERO: return pol_pair<F, MF_ROUND_TOWARD_ZERO>(o);
    case MF_ROUND_UP: return pol_pair<F, MF_ROUND_UP>(o);
    case MF_ROUND_DOWN: return pol_pair<F, MF_ROUND_DOWN>(o);
    case MF_ROUND_ODD: return pol_pair<F, MF_ROUND_ODD>(o);
    default: return pol_pair<F, MF_ROUND_STOCHASTIC>(o);
    }
}
NamedKernel named_for(mf_format f, int r, int o)
{
    switch (f) {
    case MF_FP16: return named_kernel<MF_FP16>(r, o);
    case MF_BF16: return named_kernel<MF_BF16>(r, o);
    case MF_FP8_E4M3: return named_kernel<MF_FP8_E4M3>(r, o);
    case MF_FP8_E5M2: return named_kernel<MF_FP8_E5M2>(r, o);
    case MF_FP6_E2M3: return named_kernel<MF_FP6_E2M3>(r, o);
    case MF_FP6_E3M2: return named_kernel<MF_FP6_E3M2>(r, o);
    case MF_FP4_E2M1: return named_kernel<MF_FP4_E2M1>(r, o);
    default: return named_kernel<MF_E8M0>(r, o);
    }
}

struct Combo {
    mf_format fmt;
    mf_round round;
    mf_overflow pol;
};

// Work item t = combo * nchunks + j (chunk chunks[j] of the combo) is filled by a worker thread into host
// buffer t % nbuf; the main thread consumes items in order and hands a buffer back once the device is
// done with it.
struct Pipeline {
    std::vector<Combo> combos;
    std::vector<uint32_t> chunks; // chunk numbers: inputs chunk << chunk_log2, + 2^chunk_log2
    unsigned chunk_log2 = 24;
    uint64_t seed = 0;
    long long nbuf = 0, items = 0;
    std::vector<uint8_t *> buf;
    std::mutex mu;
    std::condition_variable cv;
    std::vector<long long> filled, free_for; // per buffer: the item it holds / the item it may take next
    std::atomic<long long> next{0};
    std::atomic<bool> failed{false};

    const Combo &combo(long long t) const { return combos[(size_t)(t / (long long)chunks.size())]; }
    uint32_t base(long long t) const { return chunks[(size_t)(t % (long long)chunks.size())] << chunk_log2; }

    void fail()
    {
        std::lock_guard<std::mutex> lk(mu);
        failed = true;
        cv.notify_all();
    }

    // The host library's codes for item t, in mf_convert's layout, from sub-blocks of inputs that stay in
    // the core's cache.
    void fill(long long t, uint8_t *dst)
    {
        const Combo &c = combo(t);
        const uint32_t base0 = base(t), step = 1u << 14;
        static thread_local std::vector<uint32_t> in(step);
        mf_opts opts{};
        opts.round = c.round;
        opts.overflow = c.pol;
        opts.seed = seed;
        for (uint32_t sub = 0; sub < (1u << chunk_log2); sub += step) {
            for (uint32_t j = 0; j < step; j++)
                in[j] = base0 + sub + j;
            opts.sr_offset = (uint64_t)base0 + sub;
            int rc = mf_convert(c.fmt, dst + mf_storage_bytes(c.fmt, sub), MF_FP32, in.data(), step, &opts);
            if (rc != MF_OK) {
                std::printf("host mf_convert: %s\n", mf_strerror(rc));
                fail();
                return;
            }
        }
    }

    void worker()
    {
        for (;;) {
            long long t = next.fetch_add(1);
            if (t >= items || failed)
                return;
            size_t b = (size_t)(t % nbuf);
            {
                std::unique_lock<std::mutex> lk(mu);
                cv.wait(lk, [&] { return free_for[b] == t || failed; });
            }
            if (failed)
                return;
            fill(t, buf[b]);
            {
                std::lock_guard<std::mutex> lk(mu);
                filled[b] = t;
            }
            cv.notify_all();
        }
    }
};

bool parse_list(const char *s, std::vector<int> &out, bool modes)
{
    std::string all(s);
    if (all == "all") {
        for (int i = 0; i < (modes ? MF_ROUND_COUNT : 8); i++)
            out.push_back(modes ? i : (int)kNarrow[i]);
        return true;
    }
    for (size_t p = 0; p <= all.size();) {
        size_t q = all.find(',', p);
        if (q == std::string::npos)
            q = all.size();
        std::string w = all.substr(p, q - p);
        int v = -1;
        mf_round r;
        mf_format f;
        if (modes && mf_round_from_name(w.c_str(), &r) == MF_OK)
            v = r;
        if (!modes && mf_format_from_name(w.c_str(), &f) == MF_OK && f != MF_FP32 && f != MF_FP64)
            v = f;
        if (v < 0) {
            std::printf("unknown %s '%s'\n", modes ? "mode" : "format", w.c_str());
            return false;
        }
        out.push_back(v);
        p = q + 1;
    }
    return true;
}

double seconds_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Device state shared by both phases.
struct Device {
    DeviceLog dl{};
    unsigned grid = 0, block = 256;
    cudaStream_t side = nullptr;

    // Queue the named kernel and mf_from_f32's kernel for one combo's inputs on stream s.
    int launch(const Combo &c, const uint32_t *in, uint32_t base, uint32_t n, const void *want, uint64_t seed, int slot,
               cudaStream_t s) const
    {
        named_for(c.fmt, c.round, c.pol)<<<grid, block, 0, s>>>(in, base, n, want, seed, dl, slot);
        CUDA_OK(cudaGetLastError());
        sweep_runtime<<<grid, block, 0, s>>>(c.fmt, c.round, c.pol, in, base, n, want, seed, dl, slot);
        CUDA_OK(cudaGetLastError());
        return 0;
    }

    // Read slot's counters (its kernels have finished) and print them; ok = both functions visited expect
    // inputs and none differed.
    int report(const char *what, const Combo &c, int slot, uint64_t expect, double secs, uint64_t &checked,
               uint64_t &bad, int &status) const
    {
        unsigned long long k[4];
        CUDA_OK(cudaMemcpyAsync(k, dl.counts + 4 * slot, sizeof k, cudaMemcpyDeviceToHost, side));
        CUDA_OK(cudaStreamSynchronize(side));
        bool ok = k[0] == expect && k[2] == expect && k[1] == 0 && k[3] == 0;
        std::printf("%-8s %-5s %-3s %-4s  named: %llu checked, %llu differ;  mf_from_f32: %llu checked, %llu differ"
                    "  (%.2f s)%s\n",
                    what, mf_format_name(c.fmt), kRoundName[c.round], mf_overflow_name(c.pol), k[0], k[1], k[2], k[3],
                    secs, ok ? "" : "  FAIL");
        std::fflush(stdout);
        checked += k[0] + k[2];
        bad += k[1] + k[3];
        if (!ok)
            status = 1;
        return 0;
    }
};

} // namespace

int main(int argc, char **argv)
{
    std::vector<int> modes, formats;
    unsigned nchunks = 256;
    unsigned threads = std::thread::hardware_concurrency();
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : nullptr;
        if (!std::strcmp(argv[i], "--modes") && v) {
            if (!parse_list(v, modes, true))
                return 2;
        } else if (!std::strcmp(argv[i], "--formats") && v) {
            if (!parse_list(v, formats, false))
                return 2;
        } else if (!std::strcmp(argv[i], "--chunks") && v) {
            nchunks = (unsigned)std::strtoul(v, nullptr, 0);
        } else if (!std::strcmp(argv[i], "--threads") && v) {
            threads = (unsigned)std::strtoul(v, nullptr, 0);
        } else if (!std::strcmp(argv[i], "--seed") && v) {
            seed = std::strtoull(v, nullptr, 0);
        } else {
            std::printf("usage: %s [--modes rn,rz|all] [--formats e4m3,...|all] [--chunks N: of the 256 chunks of "
                        "2^24 inputs, N evenly spaced (0: boundary set only)] [--threads N] [--seed S]\n",
                        argv[0]);
            return 2;
        }
        i++;
    }
    if (modes.empty())
        modes = {MF_ROUND_NEAREST_EVEN, MF_ROUND_TOWARD_ZERO};
    if (formats.empty())
        for (mf_format f : kNarrow)
            formats.push_back(f);
    threads = std::min(std::max(threads, 1u), 32u); // 32 MiB of pinned memory per thread
    nchunks = std::min(nchunks, 256u);

    int major = 0, minor = 0;
    if (!mf_test_have_device(&major, &minor))
        return MF_TEST_SKIP;
    auto t0 = std::chrono::steady_clock::now();

    Pipeline pl;
    pl.seed = seed;
    for (unsigned j = 0; j < nchunks; j++)
        pl.chunks.push_back(j * (256u / nchunks));
    for (int r : modes)
        for (int f : formats)
            for (int o = 0; o < MF_OVERFLOW_COUNT; o++)
                pl.combos.push_back(Combo{(mf_format)f, (mf_round)r, (mf_overflow)o});
    const int ncombo = (int)pl.combos.size();
    const uint32_t chunk_n = 1u << pl.chunk_log2;
    const uint64_t per_fn = (uint64_t)nchunks * chunk_n;
    pl.items = (long long)ncombo * nchunks;

    Device dev;
    const size_t ncount = 4 * (size_t)ncombo * 2; // sweep slots 0 .. ncombo-1, boundary slots ncombo ..
    CUDA_OK(cudaMalloc(&dev.dl.counts, ncount * sizeof(unsigned long long)));
    CUDA_OK(cudaMemset(dev.dl.counts, 0, ncount * sizeof(unsigned long long)));
    CUDA_OK(cudaMalloc(&dev.dl.nlog, sizeof(unsigned)));
    CUDA_OK(cudaMemset(dev.dl.nlog, 0, sizeof(unsigned)));
    CUDA_OK(cudaMalloc(&dev.dl.log, kLogMax * sizeof(Mismatch)));
    int sms = 0;
    CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    dev.grid = (unsigned)sms * 8;
    CUDA_OK(cudaStreamCreateWithFlags(&dev.side, cudaStreamNonBlocking));
    uint64_t checked = 0, bad = 0;
    int status = 0;

    // ---- phase 1: the boundary set, in each combo, against the host's mf_convert --------------------------
    std::vector<uint32_t> bset = boundary_f32();
    const uint32_t nb = (uint32_t)bset.size();
    std::printf("boundary set: %u binary32 inputs; sweep: %d (format, mode, policy) x %llu inputs (%u of 256 "
                "chunks), each through the named function and mf_from_f32; %u host threads\n",
                nb, ncombo, (unsigned long long)per_fn, nchunks, threads);
    {
        uint32_t *d_in = nullptr;
        uint8_t *d_want = nullptr;
        std::vector<uint8_t> want(2 * (size_t)nb);
        CUDA_OK(cudaMalloc(&d_in, nb * sizeof(uint32_t)));
        CUDA_OK(cudaMalloc(&d_want, want.size()));
        CUDA_OK(cudaMemcpy(d_in, bset.data(), nb * sizeof(uint32_t), cudaMemcpyHostToDevice));
        for (int c = 0; c < ncombo; c++) {
            auto tc = std::chrono::steady_clock::now();
            const Combo &cb = pl.combos[(size_t)c];
            mf_opts opts{};
            opts.round = cb.round;
            opts.overflow = cb.pol;
            opts.seed = seed;
            int rc = mf_convert(cb.fmt, want.data(), MF_FP32, bset.data(), nb, &opts);
            if (rc != MF_OK) {
                std::printf("host mf_convert: %s\n", mf_strerror(rc));
                return 1;
            }
            CUDA_OK(cudaMemcpy(d_want, want.data(), mf_storage_bytes(cb.fmt, nb), cudaMemcpyHostToDevice));
            if (dev.launch(cb, d_in, 0, nb, d_want, seed, ncombo + c, 0))
                return 1;
            CUDA_OK(cudaDeviceSynchronize());
            if (dev.report("boundary", cb, ncombo + c, nb, seconds_since(tc), checked, bad, status))
                return 1;
        }
        cudaFree(d_in);
        cudaFree(d_want);
    }

    // ---- phase 2: the sweep, host and device in a pipeline ------------------------------------------------
    // Host buffers: enough for every worker to run ahead while the device holds kInFlight of them.
    const int kInFlight = 4;
    pl.nbuf = (long long)threads + 2 * kInFlight;
    const size_t chunk_bytes = (size_t)2 << pl.chunk_log2; // the widest: 16-bit codes
    for (long long b = 0; b < pl.nbuf && pl.items > 0; b++) {
        void *p = nullptr;
        CUDA_OK(cudaHostAlloc(&p, chunk_bytes, cudaHostAllocDefault));
        pl.buf.push_back(static_cast<uint8_t *>(p));
        pl.filled.push_back(-1);
        pl.free_for.push_back(b);
    }
    uint8_t *d_want[kInFlight];
    cudaEvent_t done[kInFlight];
    cudaStream_t stream[2];
    for (auto &p : d_want)
        CUDA_OK(cudaMalloc(&p, chunk_bytes));
    for (auto &e : done)
        CUDA_OK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    for (auto &s : stream)
        CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    std::vector<std::thread> pool;
    for (unsigned i = 0; i < threads && pl.items > 0; i++)
        pool.emplace_back([&pl] { pl.worker(); });
    auto combo_t0 = std::chrono::steady_clock::now();
    // Item t's device work is complete once done[t % kInFlight] has fired: its host buffer goes back to the
    // workers, and after a combo's last item its counters are read. Items are retired in order, and item t
    // reuses d_want[t % kInFlight] and done[t % kInFlight] only after item t - kInFlight is retired.
    auto retire = [&](long long t) -> int {
        CUDA_OK(cudaEventSynchronize(done[t % kInFlight]));
        {
            std::lock_guard<std::mutex> lk(pl.mu);
            pl.free_for[(size_t)(t % pl.nbuf)] = t + pl.nbuf;
        }
        pl.cv.notify_all();
        if ((t + 1) % nchunks == 0) {
            int c = (int)(t / nchunks);
            if (dev.report("sweep", pl.combos[(size_t)c], c, per_fn, seconds_since(combo_t0), checked, bad, status))
                return 1;
            combo_t0 = std::chrono::steady_clock::now();
        }
        return 0;
    };
    int err = 0;
    for (long long t = 0; t < pl.items && !err && !pl.failed; t++) {
        if (t >= kInFlight && (err = retire(t - kInFlight)) != 0)
            break;
        size_t b = (size_t)(t % pl.nbuf);
        {
            std::unique_lock<std::mutex> lk(pl.mu);
            pl.cv.wait(lk, [&] { return pl.filled[b] == t || pl.failed; });
        }
        if (pl.failed)
            break;
        const Combo &c = pl.combo(t);
        cudaStream_t s = stream[t & 1];
        uint8_t *dw = d_want[t % kInFlight];
        cudaError_t e = cudaMemcpyAsync(dw, pl.buf[b], mf_storage_bytes(c.fmt, chunk_n), cudaMemcpyHostToDevice, s);
        if (e != cudaSuccess) {
            std::printf("cudaMemcpyAsync: %s\n", cudaGetErrorString(e));
            err = 1;
            break;
        }
        err = dev.launch(c, nullptr, pl.base(t), chunk_n, dw, seed, (int)(t / nchunks), s);
        if (!err && cudaEventRecord(done[t % kInFlight], s) != cudaSuccess)
            err = 1;
    }
    for (long long t = std::max(pl.items - kInFlight, 0ll); t < pl.items && !err && !pl.failed; t++)
        err = retire(t);
    if (err || pl.failed)
        pl.fail(); // wake the workers that wait for a buffer, so that they see it and return
    for (auto &th : pool)
        th.join();
    if (err || pl.failed)
        return 1;

    unsigned nlog = 0;
    Mismatch log[kLogMax];
    CUDA_OK(cudaMemcpy(&nlog, dev.dl.nlog, sizeof nlog, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(log, dev.dl.log, sizeof log, cudaMemcpyDeviceToHost));
    for (unsigned i = 0; i < nlog && i < (unsigned)kLogMax; i++) {
        const Combo &c = pl.combos[(size_t)(log[i].slot % ncombo)];
        std::printf("MISMATCH %s %s %s %s x=0x%08x (%s): device 0x%x, host 0x%x\n",
                    log[i].slot >= ncombo ? "boundary" : "sweep", mf_format_name(c.fmt), kRoundName[c.round],
                    mf_overflow_name(c.pol), log[i].bits, log[i].variant ? "mf_from_f32" : "named", log[i].got,
                    log[i].want);
    }
    std::string modes_s;
    for (int r : modes)
        modes_s += (modes_s.empty() ? "" : ",") + std::string(kRoundName[r]);
    std::printf("SUMMARY test=sweep[%s%s] checked=%llu mismatches=%llu seconds=%.1f\n", modes_s.c_str(),
                nchunks == 256 ? "" : ",part", (unsigned long long)checked, (unsigned long long)bad, seconds_since(t0));
    for (auto p : pl.buf)
        cudaFreeHost(p);
    for (auto p : d_want)
        cudaFree(p);
    return status;
}
