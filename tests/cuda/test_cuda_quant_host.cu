// SPDX-License-Identifier: MIT
// tests/cuda/test_cuda_quant_host.cu - the MX / NVFP4 quantize kernels' block code, run on the host CPU,
// gives mf_mx_quantize's and mf_nvfp4_quantize's bytes and counts; mf_cuda_mx_quantize,
// mf_cuda_nvfp4_quantize and mf_cuda_gemm check their arguments with the host functions' codes.
//
// The kernels in src/cuda/mx.cu are loops over groups of 8 flat elements around the __host__ __device__
// functions of src/cuda/mx_elem.cuh; the emulations below are the same loops (the shuffles' block maxima
// as plain loops), so every byte the kernels write is computed here by the same code. No GPU is used;
// where one is present the "valid call gives MF_E_UNSUPPORTED" checks are skipped (they would launch) and
// test_device runs the real kernels against the host functions instead (mf_cuda_gemm against mf_gemm's
// tensor-core model of that GPU).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#include <minifloat/cuda.h>
#include <minifloat/gemm.h>

#include "cuda/mx_elem.cuh"

static int g_fail = 0;
static long g_checks = 0;

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        g_checks++;                                                                                                    \
        if (!(cond)) {                                                                                                 \
            if (g_fail++ < 20) {                                                                                       \
                std::printf("%s:%d: ", __FILE__, __LINE__);                                                            \
                std::printf(__VA_ARGS__);                                                                              \
                std::printf("\n");                                                                                     \
            }                                                                                                          \
        }                                                                                                              \
    } while (0)

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd()
{
    g_rng ^= g_rng << 13, g_rng ^= g_rng >> 7, g_rng ^= g_rng << 17;
    return (uint32_t)(g_rng >> 16);
}

// ---- emulations of the kernels ------------------------------------------------------------------------

static void put_stats(mf_stats *st, const mf_stats &s) { *st = s; }

static void emu_mx(mf_mx_type type, mf_mx_scale_rule rule, mf_mx_axis axis, unsigned flags, const float *x, size_t rows,
                   size_t cols, uint8_t *elems, uint8_t *scales, const mf_opts *o)
{
    const mf__mx_ctx t = mf__mx_ctx_make(type, rule, o);
    const size_t groups = rows * cols / 8;
    const int e2m1 = type == MF_MXFP4_E2M1, fp6p = (flags & MF_MX_FP6_PACKED) != 0;
    mf_stats s = {0, 0, 0, 0, 0};
    uint8_t buf[8];
    if (axis == MF_MX_ROWWISE) { // mf__mx_rowwise_k: 4 groups a block, their maxima combined
        for (size_t g = 0; g < groups; g++) {
            uint32_t mag = 0;
            for (size_t h = g & ~(size_t)3; h < (g & ~(size_t)3) + 4; h++)
                for (int j = 0; j < 8; j++) {
                    const uint32_t m = mf__f32_bits(x[8 * h + j]) & 0x7FFFFFFFu;
                    mag = m > mag ? m : mag;
                }
            const unsigned k = mf__mx_scale_code(t, mag);
            const unsigned k8[8] = {k, k, k, k, k, k, k, k};
            if ((g & 3) == 0)
                scales[g >> 2] = (uint8_t)k;
            const int nb = mf__mx_group(t, g, x + 8 * g, k8, e2m1, fp6p, buf, o->stats ? &s : nullptr);
            std::memcpy(elems + (size_t)nb * g, buf, (size_t)nb);
        }
    } else { // mf__mx_colscale_k, then mf__mx_colelem_k
        for (size_t i = 0; i < rows / MF_MX_BLOCK * cols; i++) {
            const size_t rb = i / cols, c = i % cols;
            uint32_t mag = 0;
            for (int b = 0; b < MF_MX_BLOCK; b++) {
                const uint32_t m = mf__f32_bits(x[(rb * MF_MX_BLOCK + b) * cols + c]) & 0x7FFFFFFFu;
                mag = m > mag ? m : mag;
            }
            scales[i] = (uint8_t)mf__mx_scale_code(t, mag);
        }
        for (size_t g = 0; g < groups; g++) {
            unsigned k8[8];
            size_t r = 8 * g / cols, c = 8 * g % cols;
            for (int j = 0; j < 8; j++) {
                k8[j] = scales[(r / MF_MX_BLOCK) * cols + c];
                if (++c == cols)
                    c = 0, r++;
            }
            const int nb = mf__mx_group(t, g, x + 8 * g, k8, e2m1, fp6p, buf, o->stats ? &s : nullptr);
            std::memcpy(elems + (size_t)nb * g, buf, (size_t)nb);
        }
    }
    if (o->stats)
        put_stats(o->stats, s);
}

static void emu_nv(mf_mx_axis axis, const float *x, size_t rows, size_t cols, uint8_t *elems, uint8_t *scales,
                   const float *amax_in, float *amax_out, const mf_opts *o)
{
    const size_t n = rows * cols, groups = n / 8;
    uint32_t acc = 0;
    float amax;
    mf_stats s = {0, 0, 0, 0, 0};
    if (amax_in)
        amax = *amax_in;
    else { // mf__nv_amax_k
        for (size_t i = 0; i < n; i++)
            acc = mf__nv_fold(acc, x[i]);
        amax = mf__f32_from_bits(acc);
    }
    const mf__nv_ctx t = mf__nv_ctx_make(amax, o->round == MF_ROUND_STOCHASTIC, o->seed, o->sr_offset);
    if (axis == MF_MX_ROWWISE) { // mf__nv_rowwise_k: 2 groups a block
        for (size_t g = 0; g < groups; g++) {
            uint32_t bmax = 0;
            for (size_t h = g & ~(size_t)1; h < (g & ~(size_t)1) + 2; h++)
                for (int j = 0; j < 8; j++)
                    bmax = mf__nv_fold(bmax, x[8 * h + j]);
            const unsigned k = mf__nv_scale_code(t, bmax);
            const float q = mf__nv_inv(t, k);
            const float inv[8] = {q, q, q, q, q, q, q, q};
            if ((g & 1) == 0)
                scales[g >> 1] = (uint8_t)k;
            mf__nv_group(t, g, x + 8 * g, inv, elems + 4 * g, o->stats ? &s : nullptr);
        }
    } else { // mf__nv_colscale_k, then mf__nv_colelem_k
        float inv_of[128];
        for (unsigned q = 0; q < 128; q++)
            inv_of[q] = mf__nv_inv(t, q);
        for (size_t i = 0; i < rows / MF_NVFP4_BLOCK * cols; i++) {
            const size_t rb = i / cols, c = i % cols;
            uint32_t bmax = 0;
            for (int b = 0; b < MF_NVFP4_BLOCK; b++)
                bmax = mf__nv_fold(bmax, x[(rb * MF_NVFP4_BLOCK + b) * cols + c]);
            scales[i] = (uint8_t)mf__nv_scale_code(t, bmax);
        }
        for (size_t g = 0; g < groups; g++) {
            float inv[8];
            size_t r = 8 * g / cols, c = 8 * g % cols;
            for (int j = 0; j < 8; j++) {
                inv[j] = inv_of[scales[(r / MF_NVFP4_BLOCK) * cols + c] & 0x7Fu];
                if (++c == cols)
                    c = 0, r++;
            }
            mf__nv_group(t, g, x + 8 * g, inv, elems + 4 * g, o->stats ? &s : nullptr);
        }
    }
    if (amax_out)
        *amax_out = amax;
    if (o->stats)
        put_stats(o->stats, s);
}

// ---- inputs -------------------------------------------------------------------------------------------

enum { D_NORMAL, D_WIDE, D_BITS, D_SPECIAL, D_TINY, D_HUGE, D_COUNT };
static const char *const kDataName[D_COUNT] = {"normal", "wide", "bits", "special", "tiny", "huge"};

// One element of data set d at flat index i: blocks of several kinds, so zero blocks, NaN / inf blocks,
// subnormal-only blocks and near-FLT_MAX blocks all occur.
static float gen(int d, size_t i)
{
    const uint32_t r = rnd(), sign = (r & 1u) << 31;
    switch (d) {
    case D_NORMAL: // magnitudes 2^-8 .. 2^8 with random fractions
        return mf__f32_from_bits(sign | (uint32_t)(119 + rnd() % 17) << 23 | (rnd() & 0x7FFFFFu));
    case D_WIDE: // any exponent, subnormals included, no inf / NaN
        return mf__f32_from_bits(sign | (rnd() % 255u) << 23 | (rnd() & 0x7FFFFFu));
    case D_BITS: // every bit pattern: inf and NaN in many blocks
        return mf__f32_from_bits(rnd() ^ (rnd() << 16));
    case D_SPECIAL: { // runs of zeros (whole blocks), a few specials, exact small values
        const size_t blk = i / 16;
        if (blk % 5 == 0)
            return (r & 2) ? -0.0f : 0.0f;
        const uint32_t k = rnd() % 64;
        if (k == 0)
            return mf__f32_from_bits(0x7FC00000u | (rnd() & 0x3FFFFFu) | sign); // NaN, random payload
        if (k == 1 && blk % 7 == 3)
            return mf__f32_from_bits(sign | 0x7F800000u);
        if (k < 8)
            return mf__f32_from_bits(sign | (rnd() & 0x7FFFFFu)); // subnormal
        return (float)((int)(rnd() % 2001) - 1000) * 0.125f;
    }
    case D_TINY: // subnormals and the smallest normals: tiny amax, tiny quotients
        return mf__f32_from_bits(sign | (rnd() % 3u) << 23 | (rnd() & 0x7FFFFFu));
    default: // near FLT_MAX
        return mf__f32_from_bits(sign | (uint32_t)(250 + rnd() % 5) << 23 | (rnd() & 0x7FFFFFu));
    }
}

static bool stats_eq(const mf_stats &a, const mf_stats &b)
{
    return a.overflow == b.overflow && a.underflow == b.underflow && a.subnormal == b.subnormal && a.nan == b.nan &&
           a.inexact == b.inexact;
}

// ---- block code against the host functions ------------------------------------------------------------

static void test_mx_blocks()
{
    struct Shape {
        size_t rows, cols;
    };
    // row-wise needs cols % 32 == 0, column-wise rows % 32 == 0; odd widths make packed groups straddle rows
    const Shape row_shapes[] = {{1, 32}, {3, 96}, {7, 160}}, col_shapes[] = {{32, 1}, {32, 37}, {64, 13}, {96, 8}};
    long cases = 0;
    for (int type = 0; type < MF_MX_TYPE_COUNT; type++)
        for (int rule = 0; rule < 2; rule++)
            for (int axis = 0; axis < 2; axis++)
                for (unsigned flags = 0; flags < 2; flags++) {
                    if (flags && type != MF_MXFP6_E2M3 && type != MF_MXFP6_E3M2)
                        continue;
                    const Shape *shapes = axis == MF_MX_ROWWISE ? row_shapes : col_shapes;
                    const int nshapes = axis == MF_MX_ROWWISE ? 3 : 4;
                    for (int si = 0; si < nshapes; si++)
                        for (int d = 0; d < D_COUNT; d++)
                            for (int sr = 0; sr < 2; sr++) {
                                const size_t rows = shapes[si].rows, cols = shapes[si].cols, n = rows * cols;
                                std::vector<float> x(n);
                                for (size_t i = 0; i < n; i++)
                                    x[i] = gen(d, i);
                                size_t eb = 0, ns = 0;
                                mf_mx_sizes((mf_mx_type)type, (mf_mx_axis)axis, flags, rows, cols, &eb, &ns);
                                std::vector<uint8_t> e_host(eb + 1, 0xA5), e_emu(eb + 1, 0xA5), s_host(ns, 0x5A),
                                    s_emu(ns, 0x5A);
                                mf_stats st_host, st_emu;
                                mf_opts o = {sr ? MF_ROUND_STOCHASTIC : MF_ROUND_NEAREST_EVEN,
                                             MF_OVERFLOW_IEEE,
                                             0x1234567890ABCDEFull + (uint64_t)d,
                                             (uint64_t)(13 * si + 5 * d),
                                             &st_host,
                                             0, MF_PROFILE_DEFAULT};
                                const int rc = mf_mx_quantize((mf_mx_type)type, (mf_mx_scale_rule)rule,
                                                              (mf_mx_axis)axis, flags, x.data(), rows, cols,
                                                              e_host.data(), s_host.data(), &o);
                                CHECK(rc == MF_OK, "mf_mx_quantize %d", rc);
                                o.stats = &st_emu;
                                emu_mx((mf_mx_type)type, (mf_mx_scale_rule)rule, (mf_mx_axis)axis, flags, x.data(),
                                       rows, cols, e_emu.data(), s_emu.data(), &o);
                                CHECK(e_host == e_emu && s_host == s_emu && stats_eq(st_host, st_emu),
                                      "MX type %d rule %d axis %d flags %u %zux%zu %s %s: bytes %s, scales %s, "
                                      "stats %s",
                                      type, rule, axis, flags, rows, cols, kDataName[d], sr ? "sr" : "rn",
                                      e_host == e_emu ? "equal" : "differ", s_host == s_emu ? "equal" : "differ",
                                      stats_eq(st_host, st_emu) ? "equal" : "differ");
                                cases++;
                            }
                }
    std::printf("MX block code: %ld cases against mf_mx_quantize\n", cases);
}

static void test_nv_blocks()
{
    struct Shape {
        size_t rows, cols;
    };
    const Shape row_shapes[] = {{1, 16}, {5, 48}, {3, 128}}, col_shapes[] = {{16, 1}, {16, 37}, {48, 5}, {32, 24}};
    const float amaxes[] = {0.0f, 1.0f, 3.0e-41f, 1.0e30f, mf__f32_from_bits(0x7F800000u), -0.0f, 448.0f * 6.0f};
    long cases = 0;
    for (int axis = 0; axis < 2; axis++)
        for (int si = 0; si < (axis == MF_MX_ROWWISE ? 3 : 4); si++)
            for (int d = 0; d < D_COUNT; d++)
                for (int sr = 0; sr < 2; sr++)
                    for (int ai = -1; ai < 7; ai++) { // -1: amax from the tensor
                        const Shape sh = axis == MF_MX_ROWWISE ? row_shapes[si] : col_shapes[si];
                        const size_t n = sh.rows * sh.cols;
                        std::vector<float> x(n);
                        for (size_t i = 0; i < n; i++)
                            x[i] = gen(d, i);
                        std::vector<uint8_t> e_host(n / 2 + 1, 0xA5), e_emu(n / 2 + 1, 0xA5), s_host(n / 16, 0x5A),
                            s_emu(n / 16, 0x5A);
                        mf_stats st_host, st_emu;
                        float out_host = -1.0f, out_emu = -2.0f;
                        const float *amax_in = ai < 0 ? nullptr : &amaxes[ai];
                        mf_opts o = {sr ? MF_ROUND_STOCHASTIC : MF_ROUND_NEAREST_EVEN,
                                     MF_OVERFLOW_IEEE,
                                     0xFEDCBA9876543210ull ^ (uint64_t)ai,
                                     (uint64_t)(7 * si + 3 * d + 1),
                                     &st_host,
                                     0, MF_PROFILE_DEFAULT};
                        const int rc = mf_nvfp4_quantize((mf_mx_axis)axis, x.data(), sh.rows, sh.cols, e_host.data(),
                                                         s_host.data(), amax_in, &out_host, &o);
                        CHECK(rc == MF_OK, "mf_nvfp4_quantize %d", rc);
                        o.stats = &st_emu;
                        emu_nv((mf_mx_axis)axis, x.data(), sh.rows, sh.cols, e_emu.data(), s_emu.data(), amax_in,
                               &out_emu, &o);
                        CHECK(e_host == e_emu && s_host == s_emu && stats_eq(st_host, st_emu) &&
                                  mf__f32_bits(out_host) == mf__f32_bits(out_emu),
                              "NVFP4 axis %d %zux%zu %s %s amax #%d: bytes %s, scales %s, stats %s, amax %a %a", axis,
                              sh.rows, sh.cols, kDataName[d], sr ? "sr" : "rn", ai,
                              e_host == e_emu ? "equal" : "differ", s_host == s_emu ? "equal" : "differ",
                              stats_eq(st_host, st_emu) ? "equal" : "differ", (double)out_host, (double)out_emu);
                        cases++;
                    }
    std::printf("NVFP4 block code: %ld cases against mf_nvfp4_quantize\n", cases);
}

// mf__sr8_run against mf_sr_rbits across Philox block boundaries.
static void test_sr8()
{
    for (uint64_t idx = 0; idx < 80; idx++) {
        uint32_t rb[8];
        mf__sr8_run(42, idx, 8, rb);
        for (int j = 0; j < 8; j++)
            CHECK(rb[j] == mf_sr_rbits(42, idx + (uint64_t)j, 8), "sr8 idx %llu + %d", (unsigned long long)idx, j);
    }
}

// ---- argument checks ----------------------------------------------------------------------------------

static bool g_device = false; // a GPU is present: valid calls would launch, so they are not made here

// The CUDA call's code must be the host's where the host refuses; where the host accepts (and there is
// work), MF_E_UNSUPPORTED with nothing written.
static void expect(int host_rc, int cuda_rc, bool work, const char *what)
{
    if (host_rc != MF_OK || !work)
        CHECK(cuda_rc == host_rc, "%s: cuda %d, host %d", what, cuda_rc, host_rc);
    else
        CHECK(cuda_rc == MF_E_UNSUPPORTED, "%s: cuda %d, want MF_E_UNSUPPORTED", what, cuda_rc);
}

static void test_mx_args()
{
    std::vector<float> x(64 * 64, 1.5f);
    std::vector<uint8_t> e(64 * 64 + 8, 0xEE), s(256, 0xEE);
    const std::vector<uint8_t> e0 = e, s0 = s;
    mf_stats st;
    struct Case {
        int type, rule, axis;
        unsigned flags;
        size_t rows, cols;
        int round, overflow, threads;
        int px, pe, ps; // 0: NULL, 1: the buffer, 2: elems inside x (overlap), 3: scales inside elems
        const char *what;
    };
    const size_t big = (size_t)1 << 62;
    const Case cases[] = {
        {0, 0, 0, 0, 4, 64, 0, 0, 0, 1, 1, 1, "valid rowwise"},
        {4, 1, 1, 0, 64, 3, 9, 0, 0, 1, 1, 1, "valid colwise, sr"},
        {2, 0, 0, 1, 2, 64, 0, 0, 0, 1, 1, 1, "valid packed FP6"},
        {6, 0, 0, 0, 4, 64, 0, 0, 0, 1, 1, 1, "type"},
        {-1, 5, 7, 9, 4, 65, 3, 9, -1, 0, 0, 0, "type before everything"},
        {0, 2, 0, 0, 4, 64, 0, 0, 0, 1, 1, 1, "rule"},
        {0, 0, 2, 0, 4, 64, 0, 0, 0, 1, 1, 1, "axis"},
        {0, 0, 0, 2, 4, 64, 0, 0, 0, 1, 1, 1, "flags"},
        {0, 0, 0, 1, 4, 64, 0, 0, 0, 1, 1, 1, "packed with e4m3"},
        {0, 0, 0, 0, 4, 33, 0, 0, 0, 1, 1, 1, "rowwise cols % 32"},
        {0, 0, 1, 0, 33, 4, 0, 0, 0, 1, 1, 1, "colwise rows % 32"},
        {0, 0, 0, 0, big, 64, 0, 0, 0, 1, 1, 1, "size"},
        {0, 0, 0, 0, big, 33, 3, 0, 0, 1, 1, 1, "shape before size and round"},
        {0, 0, 0, 0, 4, 64, 3, 0, 0, 1, 1, 1, "round rz"},
        {0, 0, 0, 0, 4, 64, 99, 0, 0, 1, 1, 1, "round out of range"},
        {0, 0, 0, 0, 4, 64, 0, 7, 0, 1, 1, 1, "policy"},
        {0, 0, 0, 0, 4, 64, 0, 0, -1, 1, 1, 1, "threads"},
        {0, 2, 0, 0, 4, 64, 3, 0, 0, 1, 1, 1, "rule before round"},
        {0, 0, 0, 0, 4, 64, 0, 0, 0, 0, 1, 1, "x NULL"},
        {0, 0, 0, 0, 4, 64, 0, 0, 0, 1, 0, 1, "elems NULL"},
        {0, 0, 0, 0, 4, 64, 0, 0, 0, 1, 1, 0, "scales NULL"},
        {0, 0, 0, 0, 4, 64, 0, 0, 0, 1, 2, 1, "elems overlap x"},
        {0, 0, 0, 0, 4, 64, 0, 0, 0, 1, 1, 3, "scales overlap elems"},
        {0, 0, 0, 0, 4, 64, 0, 0, 0, 0, 2, 3, "NULL before overlap"},
        {0, 0, 0, 0, 0, 64, 0, 0, 0, 0, 0, 0, "zero rows, NULLs"},
        {0, 0, 1, 0, 0, 7, 4, 0, 0, 1, 1, 1, "zero rows, bad round"},
        {5, 1, 0, 0, 64, 0, 0, 0, 0, 0, 0, 0, "zero cols"},
    };
    for (const Case &c : cases) {
        float *px = c.px ? x.data() : nullptr;
        uint8_t *pe = c.pe == 1 ? e.data() : nullptr, *ps = c.ps == 1 ? s.data() : nullptr;
        void *pev = c.pe == 2 ? static_cast<void *>(x.data() + 8) : static_cast<void *>(pe);
        if (c.ps == 3)
            ps = e.data() + 4;
        mf_opts o = {(mf_round)c.round, (mf_overflow)c.overflow, 1, 0, &st, c.threads, MF_PROFILE_DEFAULT};
        const size_t n = c.rows * c.cols;
        const bool work = c.rows && c.cols;
        std::memset(&st, 0xCD, sizeof st);
        const int rh = mf_mx_quantize((mf_mx_type)c.type, (mf_mx_scale_rule)c.rule, (mf_mx_axis)c.axis, c.flags, px,
                                      c.rows, c.cols, pev, ps, &o);
        if (rh == MF_OK && work && g_device)
            continue;
        // the host may have written (a valid call): restore, then make the CUDA call
        std::fill(x.begin(), x.end(), 1.5f);
        e = e0, s = s0;
        std::memset(&st, 0xCD, sizeof st);
        const int rc = mf_cuda_mx_quantize((mf_mx_type)c.type, (mf_mx_scale_rule)c.rule, (mf_mx_axis)c.axis, c.flags,
                                           px, c.rows, c.cols, pev, ps, &o, nullptr);
        expect(rh, rc, work, c.what);
        CHECK(e == e0 && s == s0, "%s: buffers written", c.what);
        bool x_same = true;
        for (float v : x)
            x_same = x_same && v == 1.5f;
        CHECK(x_same, "%s: x written", c.what);
        mf_stats z;
        std::memset(&z, 0, sizeof z);
        unsigned char cd[sizeof st];
        std::memset(cd, 0xCD, sizeof cd);
        if (rc == MF_OK) // zero-size success: stats zeroed
            CHECK(n == 0 && stats_eq(st, z), "%s: stats not zeroed", c.what);
        else
            CHECK(std::memcmp(&st, cd, sizeof st) == 0, "%s: stats written on error", c.what);
    }
    // opts NULL is rn; zero size with opts NULL succeeds
    CHECK(mf_cuda_mx_quantize(MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, nullptr, 0, 32, nullptr, nullptr,
                              nullptr, nullptr) == MF_OK,
          "zero size, opts NULL");
    if (!g_device)
        CHECK(mf_cuda_mx_quantize(MF_MXFP8_E4M3, MF_MX_SCALE_FLOOR, MF_MX_ROWWISE, 0, x.data(), 1, 32, e.data(),
                                  s.data(), nullptr, nullptr) == MF_E_UNSUPPORTED,
              "valid, opts NULL");
}

static void test_nv_args()
{
    std::vector<float> x(64 * 64, 1.5f);
    std::vector<uint8_t> e(64 * 32 + 8, 0xEE), s(512, 0xEE);
    const std::vector<uint8_t> e0 = e, s0 = s;
    const float neg = -1.0f, nan = mf__f32_from_bits(0x7FC00001u), inf = mf__f32_from_bits(0x7F800000u), nzero = -0.0f,
                two = 2.0f;
    mf_stats st;
    struct Case {
        int axis;
        size_t rows, cols;
        int round, overflow, threads;
        const float *amax_in;
        int px, pe, ps; // as test_mx_args
        const char *what;
    };
    const size_t big = (size_t)1 << 62;
    const Case cases[] = {
        {0, 4, 64, 0, 0, 0, nullptr, 1, 1, 1, "valid, device amax"},
        {1, 32, 5, 9, 0, 0, &two, 1, 1, 1, "valid colwise, sr, amax_in"},
        {0, 4, 64, 0, 0, 0, &inf, 1, 1, 1, "amax_in inf"},
        {0, 4, 64, 0, 0, 0, &nzero, 1, 1, 1, "amax_in -0"},
        {2, 4, 64, 0, 0, 0, nullptr, 1, 1, 1, "axis"},
        {0, 4, 24, 0, 0, 0, nullptr, 1, 1, 1, "rowwise cols % 16"},
        {1, 24, 4, 0, 0, 0, nullptr, 1, 1, 1, "colwise rows % 16"},
        {0, big, 64, 0, 0, 0, nullptr, 1, 1, 1, "size"},
        {0, 4, 64, 3, 0, 0, nullptr, 1, 1, 1, "round"},
        {0, 4, 64, 0, 9, 0, nullptr, 1, 1, 1, "policy"},
        {0, 4, 64, 0, 0, -2, nullptr, 1, 1, 1, "threads"},
        {0, 4, 64, 0, 0, 0, &neg, 1, 1, 1, "amax_in negative"},
        {0, 4, 64, 0, 0, 0, &nan, 1, 1, 1, "amax_in NaN"},
        {0, 4, 64, 3, 0, 0, &nan, 1, 1, 1, "round before amax_in"},
        {0, 0, 64, 0, 0, 0, &nan, 0, 0, 0, "zero size, amax_in NaN"},
        {0, 0, 64, 0, 0, 0, &two, 0, 0, 0, "zero size, amax_in"},
        {1, 0, 3, 0, 0, 0, nullptr, 0, 0, 0, "zero size"},
        {0, 4, 64, 0, 0, 0, nullptr, 0, 1, 1, "x NULL"},
        {0, 4, 64, 0, 0, 0, nullptr, 1, 0, 1, "elems NULL"},
        {0, 4, 64, 0, 0, 0, nullptr, 1, 1, 0, "scales NULL"},
        {0, 4, 64, 0, 0, 0, nullptr, 1, 2, 1, "elems overlap x"},
        {0, 4, 64, 0, 0, 0, nullptr, 1, 1, 3, "scales overlap elems"},
    };
    for (const Case &c : cases) {
        float *px = c.px ? x.data() : nullptr;
        uint8_t *pe = c.pe == 1 ? e.data() : c.pe == 2 ? reinterpret_cast<uint8_t *>(x.data() + 8) : nullptr;
        uint8_t *ps = c.ps == 1 ? s.data() : c.ps == 3 ? e.data() + 4 : nullptr;
        mf_opts o = {(mf_round)c.round, (mf_overflow)c.overflow, 1, 0, &st, c.threads, MF_PROFILE_DEFAULT};
        const bool work = c.rows && c.cols;
        float out = -7.0f;
        std::memset(&st, 0xCD, sizeof st);
        const int rh = mf_nvfp4_quantize((mf_mx_axis)c.axis, px, c.rows, c.cols, pe, ps, c.amax_in, &out, &o);
        const float out_host = out;
        if (rh == MF_OK && work && g_device)
            continue;
        std::fill(x.begin(), x.end(), 1.5f);
        e = e0, s = s0;
        out = -7.0f;
        std::memset(&st, 0xCD, sizeof st);
        const int rc = mf_cuda_nvfp4_quantize((mf_mx_axis)c.axis, px, c.rows, c.cols, pe, ps, c.amax_in, &out, &o,
                                              nullptr);
        expect(rh, rc, work, c.what);
        CHECK(e == e0 && s == s0, "%s: buffers written", c.what);
        if (rc == MF_OK) {
            CHECK(mf__f32_bits(out) == mf__f32_bits(out_host), "%s: amax_out %a, host %a", c.what, (double)out,
                  (double)out_host);
            CHECK(st.overflow == 0 && st.inexact == 0 && st.nan == 0, "%s: stats not zeroed", c.what);
        } else
            CHECK(out == -7.0f, "%s: amax_out written on error", c.what);
    }
}

static void test_gemm_args()
{
    std::vector<uint16_t> a(64 * 64, 0x3C00), b(64 * 64, 0x3C00);
    std::vector<float> c(64 * 64, 2.0f);
    const std::vector<float> c0 = c;
    struct Case {
        int layout, ta, tb;
        size_t m, n, k;
        float alpha;
        int pa, pb, pc; // 0 NULL, 1 the buffer, 2: C inside A's bytes (pc only)
        int fa, fb;
        size_t lda, ldb, ldc;
        const char *what;
    };
    const size_t big = (size_t)1 << 62;
    const int H = MF_FP16, BF = MF_BF16, E4 = MF_FP8_E4M3, E5 = MF_FP8_E5M2, F32 = MF_FP32, E2 = MF_FP4_E2M1;
    const Case cases[] = {
        {0, 0, 0, 8, 8, 8, 1, 1, 1, 1, H, H, 8, 8, 8, "valid f16"},
        {1, 1, 0, 5, 7, 33, 1, 1, 1, 1, BF, BF, 33, 33, 5, "valid bf16 colmajor trans"},
        {0, 0, 1, 3, 9, 40, 1, 1, 1, 1, E4, E5, 40, 40, 9, "valid fp8 mixed"},
        {0, 0, 0, 3, 9, 40, 1, 1, 1, 1, E5, E4, 40, 9, 9, "valid fp8 mixed 2"},
        {2, 0, 0, 8, 8, 8, 1, 1, 1, 1, H, H, 8, 8, 8, "layout"},
        {0, 2, 0, 8, 8, 8, 1, 1, 1, 1, H, H, 8, 8, 8, "trans_a"},
        {0, 0, 5, 8, 8, 8, 1, 1, 1, 1, H, H, 8, 8, 8, "trans_b"},
        {2, 0, 0, 8, 8, 8, 1, 1, 1, 1, F32, E2, 8, 8, 8, "layout before format"},
        {0, 0, 0, 8, 8, 8, 1, 1, 1, 1, H, BF, 8, 8, 8, "f16 x bf16"},
        {0, 0, 0, 8, 8, 8, 1, 1, 1, 1, H, E4, 8, 8, 8, "f16 x e4m3"},
        {0, 0, 0, 8, 8, 8, 1, 1, 1, 1, F32, F32, 8, 8, 8, "f32"},
        {0, 0, 0, 8, 8, 8, 1, 1, 1, 1, E2, E2, 8, 8, 8, "e2m1"},
        {0, 0, 0, 8, 8, 8, 1, 1, 1, 1, 99, H, 8, 8, 8, "format out of range"},
        {0, 0, 0, 8, 8, 8, 1, 1, 1, 1, BF, H, 3, 8, 8, "format before ld"},
        {0, 0, 0, 8, 8, 8, 1, 1, 1, 1, H, H, 7, 8, 8, "lda"},
        {0, 0, 0, 8, 8, 8, 1, 1, 1, 1, H, H, 8, 7, 8, "ldb"},
        {0, 0, 0, 8, 8, 8, 1, 1, 1, 1, H, H, 8, 8, 7, "ldc"},
        {1, 0, 0, 8, 4, 8, 1, 1, 1, 1, H, H, 7, 8, 8, "lda colmajor"},
        {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, H, H, 0, 1, 1, "ld 0"},
        {0, 0, 0, big, 8, 8, 1, 1, 1, 1, H, H, 8, 8, 8, "size A"},
        {0, 0, 0, 8, big, 8, 1, 1, 1, 1, H, H, 8, big, big, "size B"},
        {0, 0, 0, 8, 8, 8, 1, 0, 1, 1, H, H, 8, 8, 8, "A NULL"},
        {0, 0, 0, 8, 8, 8, 1, 1, 0, 1, H, H, 8, 8, 8, "B NULL"},
        {0, 0, 0, 8, 8, 8, 1, 1, 1, 0, H, H, 8, 8, 8, "C NULL"},
        {0, 0, 0, 8, 8, 8, 0, 0, 0, 1, H, H, 8, 8, 8, "alpha 0: A, B not read"},
        {0, 0, 0, 8, 8, 0, 1, 0, 0, 1, H, H, 1, 8, 8, "k 0: A, B not read"},
        {0, 0, 0, 0, 8, 8, 1, 0, 0, 0, H, H, 8, 8, 8, "m 0"},
        {0, 0, 0, 8, 0, 8, 1, 0, 0, 0, BF, BF, 8, 1, 1, "n 0"},
        {0, 0, 0, 8, 8, 8, 1, 1, 1, 2, H, H, 8, 8, 8, "C overlaps A"},
        {0, 0, 0, 8, 8, 8, 0, 1, 1, 2, H, H, 8, 8, 8, "alpha 0: no overlap with A"},
        {0, 0, 0, 8, 8, 8, 1, 0, 1, 2, H, H, 8, 8, 8, "NULL before overlap"},
    };
    for (const Case &t : cases) {
        const void *pa = t.pa ? a.data() : nullptr, *pb = t.pb ? b.data() : nullptr;
        float *pc = t.pc == 1 ? c.data() : t.pc == 2 ? reinterpret_cast<float *>(a.data() + 16) : nullptr;
        const bool work = t.m && t.n;
        const int rh = mf_gemm((mf_layout)t.layout, (mf_trans)t.ta, (mf_trans)t.tb, t.m, t.n, t.k, t.alpha, pa,
                               (mf_format)t.fa, t.lda, pb, (mf_format)t.fb, t.ldb, 0.5f, pc, MF_FP32, t.ldc, nullptr);
        if (rh == MF_OK && work && g_device)
            continue;
        std::fill(a.begin(), a.end(), (uint16_t)0x3C00);
        c = c0;
        const int rc = mf_cuda_gemm((mf_layout)t.layout, (mf_trans)t.ta, (mf_trans)t.tb, t.m, t.n, t.k, t.alpha, pa,
                                    (mf_format)t.fa, t.lda, pb, (mf_format)t.fb, t.ldb, 0.5f, pc, t.ldc, nullptr);
        const bool pair_ok = (t.fa == H && t.fb == H) || (t.fa == BF && t.fb == BF) ||
                             ((t.fa == E4 || t.fa == E5) && (t.fb == E4 || t.fb == E5));
        const bool enums_ok = t.layout <= 1 && t.ta <= 1 && t.tb <= 1;
        if (!pair_ok) // formats are checked right after the enums, as mf_gemm does
            CHECK(rc == (enums_ok ? MF_E_FORMAT : MF_E_ARG), "%s: cuda %d", t.what, rc);
        else
            expect(rh, rc, work, t.what);
        CHECK(c == c0, "%s: C written", t.what);
        bool a_same = true;
        for (uint16_t v : a)
            a_same = a_same && v == 0x3C00;
        CHECK(a_same, "%s: A written", t.what);
    }
}

// ---- on a GPU, where there is one ------------------------------------------------------------------------

template <typename T> static T *dev_copy(const std::vector<T> &h)
{
    T *d = nullptr;
    if (cudaMalloc(&d, h.size() * sizeof(T) + 16) != cudaSuccess)
        return nullptr;
    cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
    return d;
}

template <typename T> static std::vector<T> host_copy(const T *d, size_t n)
{
    std::vector<T> h(n);
    cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost);
    return h;
}

static void test_device_quant()
{
    long cases = 0;
    const size_t rows = 64, cols = 96, n = rows * cols;
    for (int d = 0; d < D_COUNT; d++) {
        std::vector<float> x(n);
        for (size_t i = 0; i < n; i++)
            x[i] = gen(d, i);
        float *dx = dev_copy(x);
        uint8_t *de = dev_copy(std::vector<uint8_t>(n, 0)), *ds = dev_copy(std::vector<uint8_t>(n / 16, 0));
        for (int type = 0; type < MF_MX_TYPE_COUNT; type++)
            for (int rule = 0; rule < 2; rule++)
                for (int axis = 0; axis < 2; axis++)
                    for (int sr = 0; sr < 2; sr++) {
                        const unsigned flags = (type == MF_MXFP6_E2M3 || type == MF_MXFP6_E3M2) && sr;
                        size_t eb = 0, ns = 0;
                        mf_mx_sizes((mf_mx_type)type, (mf_mx_axis)axis, flags, rows, cols, &eb, &ns);
                        std::vector<uint8_t> eh(eb), sh(ns);
                        mf_stats st_h, st_d;
                        mf_opts o = {
                            sr ? MF_ROUND_STOCHASTIC : MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 99, 7, &st_h, 0, MF_PROFILE_DEFAULT};
                        mf_mx_quantize((mf_mx_type)type, (mf_mx_scale_rule)rule, (mf_mx_axis)axis, flags, x.data(),
                                       rows, cols, eh.data(), sh.data(), &o);
                        o.stats = &st_d;
                        const int rc = mf_cuda_mx_quantize((mf_mx_type)type, (mf_mx_scale_rule)rule, (mf_mx_axis)axis,
                                                           flags, dx, rows, cols, de, ds, &o, nullptr);
                        CHECK(rc == MF_OK && host_copy(de, eb) == eh && host_copy(ds, ns) == sh && stats_eq(st_h, st_d),
                              "device MX type %d rule %d axis %d %s %s: rc %d", type, rule, axis, kDataName[d],
                              sr ? "sr" : "rn", rc);
                        cases++;
                    }
        for (int axis = 0; axis < 2; axis++)
            for (int sr = 0; sr < 2; sr++)
                for (int given = 0; given < 2; given++) {
                    const float amax_in = 3.5f;
                    std::vector<uint8_t> eh(n / 2), sh(n / 16);
                    mf_stats st_h, st_d;
                    float out_h = 0, out_d = 0;
                    mf_opts o = {sr ? MF_ROUND_STOCHASTIC : MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 5, 3, &st_h, 0, MF_PROFILE_DEFAULT};
                    mf_nvfp4_quantize((mf_mx_axis)axis, x.data(), rows, cols, eh.data(), sh.data(),
                                      given ? &amax_in : nullptr, &out_h, &o);
                    o.stats = &st_d;
                    const int rc = mf_cuda_nvfp4_quantize((mf_mx_axis)axis, dx, rows, cols, de, ds,
                                                          given ? &amax_in : nullptr, &out_d, &o, nullptr);
                    CHECK(rc == MF_OK && host_copy(de, n / 2) == eh && host_copy(ds, n / 16) == sh &&
                              stats_eq(st_h, st_d) && mf__f32_bits(out_h) == mf__f32_bits(out_d),
                          "device NVFP4 axis %d %s %s amax_in %d: rc %d", axis, kDataName[d], sr ? "sr" : "rn", given,
                          rc);
                    cases++;
                }
        cudaFree(dx), cudaFree(de), cudaFree(ds);
    }
    std::printf("device quantize: %ld cases against the host\n", cases);
}

// mf_cuda_gemm against mf_gemm under this GPU's tensor-core model (alpha 1, beta 0: C = acc), then the
// epilogue fmaf(alpha, acc, beta * C) computed here from those accumulators.
static void test_device_gemm()
{
    int dev = 0, major = 0, minor = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    const int cc = 10 * major + minor;
    const mf_accum model = cc == 80      ? MF_ACCUM_A100
                           : cc == 89    ? MF_ACCUM_ADA
                           : cc == 90    ? MF_ACCUM_H100
                           : major == 10 ? MF_ACCUM_B200
                                         : MF_ACCUM_FP32;
    if (model == MF_ACCUM_FP32) {
        std::printf("device GEMM: no tensor-core model for sm_%d, skipped\n", cc);
        return;
    }
    const mf_format fa[] = {MF_FP16, MF_BF16, MF_FP8_E4M3, MF_FP8_E4M3, MF_FP8_E5M2};
    const mf_format fb[] = {MF_FP16, MF_BF16, MF_FP8_E4M3, MF_FP8_E5M2, MF_FP8_E5M2};
    const size_t dims[][3] = {{16, 8, 16}, {37, 29, 75}, {64, 40, 200}};
    long cases = 0;
    for (int f = 0; f < 5; f++)
        for (const auto &dm : dims)
            for (int lay = 0; lay < 2; lay++)
                for (int tr = 0; tr < 4; tr++) {
                    const size_t m = dm[0], n = dm[1], k = dm[2], w = fa[f] == MF_FP16 || fa[f] == MF_BF16 ? 2 : 1;
                    const mf_layout L = (mf_layout)lay;
                    const mf_trans ta = (mf_trans)(tr & 1), tb = (mf_trans)(tr >> 1);
                    const size_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
                    const size_t lda = (lay == 0 ? ac : ar) + 3, ldb = (lay == 0 ? bc : br) + 1,
                                 ldc = (lay ? m : n) + 2;
                    std::vector<uint8_t> a(lda * (lay == 0 ? ar : ac) * w), b(ldb * (lay == 0 ? br : bc) * w);
                    for (auto &v : a)
                        v = (uint8_t)rnd();
                    for (auto &v : b)
                        v = (uint8_t)rnd();
                    if (w == 2) // keep f16 / bf16 finite: clear the top exponent bit of each element
                        for (size_t i = 1; i < a.size(); i += 2)
                            a[i] &= 0xBF;
                    if (w == 2)
                        for (size_t i = 1; i < b.size(); i += 2)
                            b[i] &= 0xBF;
                    std::vector<float> acc(ldc * (lay ? n : m), 0.0f), c0(acc.size());
                    for (auto &v : c0)
                        v = (float)((int)(rnd() % 200) - 100) * 0.25f;
                    mf_gemm_opts go;
                    std::memset(&go, 0, sizeof go);
                    go.accum = model;
                    const int rh = mf_gemm(L, ta, tb, m, n, k, 1.0f, a.data(), fa[f], lda, b.data(), fb[f], ldb, 0.0f,
                                           acc.data(), MF_FP32, ldc, &go);
                    uint8_t *da = dev_copy(a), *db = dev_copy(b);
                    float *dc = dev_copy(c0);
                    int rc = mf_cuda_gemm(L, ta, tb, m, n, k, 1.0f, da, fa[f], lda, db, fb[f], ldb, 0.0f, dc, ldc,
                                          nullptr);
                    if (rc == MF_E_UNSUPPORTED && w == 1 && cc < 89) {
                        cudaFree(da), cudaFree(db), cudaFree(dc);
                        continue;
                    }
                    std::vector<float> got = host_copy(dc, acc.size());
                    size_t bad = 0;
                    for (size_t i = 0; i < m; i++)
                        for (size_t j = 0; j < n; j++) {
                            const size_t q = lay ? i + j * ldc : i * ldc + j;
                            bad += mf__f32_bits(got[q]) != mf__f32_bits(acc[q]);
                        }
                    CHECK(rh == MF_OK && rc == MF_OK && bad == 0,
                          "device GEMM %s x %s %zux%zux%zu layout %d trans %d: rc %d, %zu of %zu differ",
                          mf_format_name(fa[f]), mf_format_name(fb[f]), m, n, k, lay, tr, rc, bad, m * n);
                    // the epilogue: alpha = 0.75, beta = -1.25 on C = c0
                    cudaMemcpy(dc, c0.data(), c0.size() * sizeof(float), cudaMemcpyHostToDevice);
                    rc = mf_cuda_gemm(L, ta, tb, m, n, k, 0.75f, da, fa[f], lda, db, fb[f], ldb, -1.25f, dc, ldc,
                                      nullptr);
                    got = host_copy(dc, acc.size());
                    bad = 0;
                    for (size_t i = 0; i < m; i++)
                        for (size_t j = 0; j < n; j++) {
                            const size_t q = lay ? i + j * ldc : i * ldc + j;
                            const volatile float bc0 = -1.25f * c0[q]; // rounded once, not fused
                            bad += mf__f32_bits(got[q]) != mf__f32_bits(std::fmaf(0.75f, acc[q], bc0));
                        }
                    CHECK(rc == MF_OK && bad == 0, "device GEMM epilogue %s: %zu differ", mf_format_name(fa[f]), bad);
                    cudaFree(da), cudaFree(db), cudaFree(dc);
                    cases++;
                }
    std::printf("device GEMM: %ld cases against mf_gemm's model of sm_%d\n", cases, cc);
}

int main()
{
    g_device = mf_cuda_device_count() > 0;
    CHECK(mf_cuda_built() == 1, "built without kernels");
    test_sr8();
    test_mx_blocks();
    test_nv_blocks();
    test_mx_args();
    test_nv_args();
    test_gemm_args();
    if (g_device) {
        test_device_quant();
        test_device_gemm();
    }
    std::printf("%ld checks, %d failed%s\n", g_checks, g_fail,
                g_device ? " (a device is present: valid calls skipped)" : "");
    return g_fail ? 1 : 0;
}
