/* SPDX-License-Identifier: MIT */
// tests/cuda/test_cuda_host.cu - the CUDA kernels' element code (src/cuda/elem.cuh) run on the host CPU
// against the library's host functions: no GPU needed.
//
// The kernels of convert.cu and reduce.cu call the __host__ __device__ functions of elem.cuh per element
// or per group; here the same functions run on the CPU over the same groups and are compared with
// mf_convert (bytes and counts), mf_unscale_check and mf_amax:
//   - every (source, destination) pair of the ten formats, f64 included, every mode, both policies,
//     counted and not, stochastic rounding with a seed and offsets (one past 2^32), aligned and not;
//     inputs: every code of each format of 16 bits or fewer (FP6 with its top bits set too), and for
//     f32 / f64 every value of every narrow format, the midpoints between neighbours, one ulp either
//     side of each, the specials and random bit patterns;
//   - the fast path's element (f32 -> f16 / bf16 / e4m3 / e5m2, rn, both policies);
//   - unscale: every f16 and bf16 code and the f32 set under factors 1, 2^-16, 1/3, huge, 0, inf and
//     NaN, and the NaN fix-up of the GPU's canonical NaN;
//   - amax: arrays of specials, -0, NaNs only, infinities, f64 above FLT_MAX.
// The device's own run of the kernels is tests/cuda/test_cuda_kernels.cu (on a GPU only).
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include <minifloat/detail/arith.h>

#include "cuda/elem.cuh"

namespace
{

unsigned long failures = 0, checks = 0;

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        checks++;                                                                                                      \
        if (!(cond)) {                                                                                                 \
            if (failures++ < 20) {                                                                                     \
                std::printf("FAIL %s:%d: ", __FILE__, __LINE__);                                                       \
                std::printf(__VA_ARGS__);                                                                              \
                std::printf("\n");                                                                                     \
            }                                                                                                          \
        }                                                                                                              \
    } while (0)

const mf_format kFormats[MF_FORMAT_COUNT] = { // every row of the format table
#define MF__FORMAT(e, ...) e,
#include <minifloat/formats.inc>
#undef MF__FORMAT
};

// two codes a byte (e2m1, binary4p2sf)
bool packed4(mf_format f) { return mf_storage_bytes(f, 2) == 1; }

uint64_t rng_state = 0x9E3779B97F4A7C15u;
uint64_t rnd64()
{
    rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
    return rng_state;
}

size_t storage(mf_format f, size_t n) { return mf_storage_bytes(f, n); }

// The kernel's walk: groups of 16 from `first` (as mf__k_convert), converted by the element code.
template <mf_format D, bool COUNT> void run_range_d(const mf__cu_cvt &a, mf_stats *c)
{
    for (size_t i0 = 0; i0 < a.n; i0 += 16)
        mf__cu_convert_range<D, COUNT>(a, i0, a.n - i0 < 16 ? a.n : i0 + 16, c);
}

template <bool COUNT> void run_range(mf_format d, const mf__cu_cvt &a, mf_stats *c)
{
    switch (d) { // every row of the format table
#define MF__FORMAT(e, ...)                                                                                              \
    case e: run_range_d<e, COUNT>(a, c); break;
#include <minifloat/formats.inc>
#undef MF__FORMAT
    }
}

// The source arrays: raw bytes in the format's layout.
std::vector<unsigned char> every_code(mf_format f)
{
    std::vector<unsigned char> v;
    if (packed4(f)) {
        for (uint32_t c = 0; c < 256; c++) // every pair of codes; 256 elements... and 255 below
            v.push_back((unsigned char)(c * 17 + (c >> 4)));
        return v;
    }
    switch (f) {
    case MF_FP16:
    case MF_BF16:
        for (uint32_t c = 0; c < 65536; c++)
            v.push_back((unsigned char)c), v.push_back((unsigned char)(c >> 8));
        break;
    case MF_FP6_E2M3:
    case MF_FP6_E3M2:
        for (uint32_t c = 0; c < 256; c++) // the top two bits set in 3 of 4: ignored on input
            v.push_back((unsigned char)c);
        break;
    default:
        for (uint32_t c = 0; c < 256; c++)
            v.push_back((unsigned char)c);
        break;
    }
    return v;
}

// Binary64 values where the narrow formats' roundings change: each value, midpoints, their
// neighbours; the specials; random bit patterns.
std::vector<double> boundary_values()
{
    std::vector<double> v;
    for (mf_format f : kFormats) {
        if (f == MF_FP32 || f == MF_FP64)
            continue;
        const uint32_t codes = f == MF_FP16 || f == MF_BF16 ? 65536u : packed4(f) ? 16u : 256u;
        const uint32_t step = codes == 65536u ? 61u : 1u; // a sample of the 16-bit formats
        for (uint32_t c = 0; c + 1 < codes; c += step) {
            const double a = mf_to_f64(f, c), b = mf_to_f64(f, c + 1);
            v.push_back(a);
            if (std::isfinite(a) && std::isfinite(b)) {
                const double m = (a + b) / 2;
                v.push_back(m), v.push_back(std::nextafter(m, INFINITY)), v.push_back(std::nextafter(m, -INFINITY));
                v.push_back((double)std::nextafter((float)m, INFINITY));
                v.push_back((double)std::nextafter((float)m, -INFINITY));
            }
        }
    }
    const double specials[] = {
        0.0,      -0.0,    INFINITY, -INFINITY, NAN,   -NAN,    1e-300,   -1e-300,  1e300,      -1e300,
        4.9e-324, FLT_MAX, -FLT_MAX, FLT_MIN,   1e-45, 65504.0, 65520.0,  448.0,    464.0,      480.0,
        57344.0,  61440.0, 7.5,      28.0,      6.0,   0x1p127, 0x1p-127, 0x1p-150, 0x1.8p-149, 3.4028235677973366e38};
    for (double d : specials)
        v.push_back(d), v.push_back(-d);
    for (int k = 0; k < 4000; k++) {
        const uint64_t b = rnd64();
        uint32_t u = (uint32_t)b;
        float f;
        std::memcpy(&f, &u, 4);
        double d;
        std::memcpy(&d, &b, 8);
        v.push_back((double)f); // binary32 patterns
        v.push_back(d);         // binary64 patterns
        // binary64 values near binary32 / narrow boundaries: a float with low bits below its ulp
        v.push_back((double)f + std::ldexp((double)f, -30) * (double)(int)(b >> 60));
    }
    return v;
}

std::vector<unsigned char> source_bytes(mf_format s, const std::vector<double> &bvals)
{
    if (s != MF_FP32 && s != MF_FP64)
        return every_code(s);
    std::vector<unsigned char> v;
    for (double d : bvals) {
        if (s == MF_FP64) {
            unsigned char b[8];
            std::memcpy(b, &d, 8);
            v.insert(v.end(), b, b + 8);
        } else {
            const float f = (float)d; // (the host's rn conversion; any binary32 will do)
            unsigned char b[4];
            std::memcpy(b, &f, 4);
            v.insert(v.end(), b, b + 4);
        }
    }
    // payload-carrying NaNs, signalling ones included
    const uint64_t nans64[] = {0x7FF0000000000001u, 0xFFF4000000000000u, 0x7FF8000000000123u};
    const uint32_t nans32[] = {0x7F800001u, 0xFFA00000u, 0x7FC00123u};
    for (int k = 0; k < 3; k++) {
        unsigned char b[8];
        if (s == MF_FP64)
            std::memcpy(b, &nans64[k], 8), v.insert(v.end(), b, b + 8);
        else
            std::memcpy(b, &nans32[k], 4), v.insert(v.end(), b, b + 4);
    }
    return v;
}

// One configuration: the element code over the array, with the pointers offset by `mis` bytes.
void check_convert(mf_format d, mf_format s, const std::vector<unsigned char> &src_bytes, size_t n, const mf_opts &o,
                   int mis)
{
    const size_t db = storage(d, n) + 16;
    std::vector<unsigned char> src(src_bytes.size() + 16), ref(db), got(db), got_nc(db);
    std::memcpy(src.data() + mis, src_bytes.data(), src_bytes.size());
    for (size_t k = 0; k < db; k++) // a pattern the call must keep where it does not write
        ref[k] = got[k] = got_nc[k] = (unsigned char)(0xA5 ^ k);
    mf_stats st;
    mf_opts oo = o;
    oo.stats = &st;
    const int rc = mf_convert(d, ref.data() + mis, s, src.data() + mis, n, &oo);
    CHECK(rc == MF_OK, "mf_convert %s <- %s: %d", mf_format_name(d), mf_format_name(s), rc);

    mf__cu_cvt a;
    a.dst = got.data() + mis;
    a.src = src.data() + mis;
    a.n = n;
    a.src_fmt = s;
    a.round = o.round;
    a.overflow = o.overflow;
    a.seed = o.seed;
    a.sr_offset = o.sr_offset;
    const unsigned sb = mf__cu_elem_bytes(s), dbytes = mf__cu_elem_bytes(d);
    a.src_aligned = sb <= 1 || (uintptr_t)a.src % sb == 0;
    a.dst_aligned = dbytes <= 1 || (uintptr_t)a.dst % dbytes == 0;
    mf_stats c = {0, 0, 0, 0, 0};
    run_range<true>(d, a, &c);
    a.dst = got_nc.data() + mis;
    run_range<false>(d, a, &c); // counts ignored: only the bytes

    size_t bad = db;
    for (size_t k = 0; k < db && bad == db; k++)
        if (ref[k] != got[k] || ref[k] != got_nc[k])
            bad = k;
    CHECK(bad == db, "%s <- %s %s %s seed %llu off %llu mis %d: byte %zu: host %02x, kernel %02x / %02x (uncounted)",
          mf_format_name(d), mf_format_name(s), mf_round_name(o.round), mf_overflow_name(o.overflow),
          (unsigned long long)o.seed, (unsigned long long)o.sr_offset, mis, bad, bad < db ? ref[bad] : 0,
          bad < db ? got[bad] : 0, bad < db ? got_nc[bad] : 0);
    CHECK(c.overflow == st.overflow && c.underflow == st.underflow && c.subnormal == st.subnormal && c.nan == st.nan &&
              c.inexact == st.inexact,
          "%s <- %s %s %s: counts %llu %llu %llu %llu %llu, host %llu %llu %llu %llu %llu", mf_format_name(d),
          mf_format_name(s), mf_round_name(o.round), mf_overflow_name(o.overflow), (unsigned long long)c.overflow,
          (unsigned long long)c.underflow, (unsigned long long)c.subnormal, (unsigned long long)c.nan,
          (unsigned long long)c.inexact,
          (unsigned long long)st.overflow, (unsigned long long)st.underflow, (unsigned long long)st.subnormal,
          (unsigned long long)st.nan, (unsigned long long)st.inexact);
}

void test_convert()
{
    const std::vector<double> bvals = boundary_values();
    unsigned long configs = 0;
    for (mf_format s : kFormats) {
        const std::vector<unsigned char> bytes = source_bytes(s, bvals);
        const size_t sb = mf__cu_elem_bytes(s);
        const size_t n_all = sb ? bytes.size() / sb : bytes.size() * 2;
        for (mf_format d : kFormats)
            for (int r = 0; r < MF_ROUND_COUNT; r++)
                for (int ov = 0; ov < MF_OVERFLOW_COUNT; ov++) {
                    mf_opts o;
                    std::memset(&o, 0, sizeof o);
                    o.round = (mf_round)r;
                    o.overflow = (mf_overflow)ov;
                    o.seed = 0x0123456789ABCDEFu;
                    o.sr_offset = 5;
                    check_convert(d, s, bytes, n_all, o, 0);
                    configs++;
                    // odd counts (the last e2m1 high nibble), misaligned arrays, offsets past 2^32
                    if (r == MF_ROUND_STOCHASTIC || r == MF_ROUND_NEAREST_EVEN) {
                        o.sr_offset = 0xFFFFFFF3u;
                        check_convert(d, s, bytes, n_all - 1, o, 1);
                        o.seed = 7, o.sr_offset = 0;
                        check_convert(d, s, bytes, n_all > 37 ? 37 : n_all, o, 3);
                        configs += 2;
                    }
                }
    }
    const unsigned long nf = MF_FORMAT_COUNT;
    std::printf("convert: %lu configurations of %lu x %lu pairs\n", configs, nf, nf);
    CHECK(configs == nf * nf * 7 * MF_OVERFLOW_COUNT + nf * nf * 2 * 2 * MF_OVERFLOW_COUNT, "configurations: %lu",
          configs);
}

// The SR bits with the block kept between calls equal mf_sr_rbits, in any order of indices.
void test_sr_bits()
{
    for (mf_format d : kFormats) {
        mf__cu_sr s = mf__cu_sr_init(0xDEADBEEFCAFEu, d);
        const uint64_t base[] = {0, 13, 0xFFFFFFF0u, UINT64_MAX - 40};
        for (uint64_t b : base)
            for (uint64_t k = 0; k < 40; k++) {
                const uint64_t idx = b + (k * 7) % 40;
                CHECK(mf__cu_sr_rbits(&s, idx) == mf_sr_rbits(0xDEADBEEFCAFEu, idx, mf_sr_width(d)),
                      "sr bits %s idx %llu", mf_format_name(d), (unsigned long long)idx);
            }
    }
}

template <mf_format D, mf_overflow O> void check_fast(const std::vector<float> &xs)
{
    for (float x : xs) {
        unsigned char ref[4] = {0, 0, 0, 0};
        mf_opts o;
        std::memset(&o, 0, sizeof o);
        o.overflow = O;
        mf_convert(D, ref, MF_FP32, &x, 1, &o);
        uint32_t want = D == MF_FP16 || D == MF_BF16 ? (uint32_t)(ref[0] | ref[1] << 8) : ref[0];
        const uint32_t got = mf__cu_fast_elem<D, O>(x);
        CHECK(got == want, "fast %s %s: %a: %x, host %x", mf_format_name(D), mf_overflow_name(O), (double)x, got, want);
    }
}

void test_fast()
{
    std::vector<float> xs;
    for (double d : boundary_values())
        xs.push_back((float)d);
    check_fast<MF_FP16, MF_OVERFLOW_IEEE>(xs);
    check_fast<MF_FP16, MF_OVERFLOW_SATURATE>(xs);
    check_fast<MF_BF16, MF_OVERFLOW_IEEE>(xs);
    check_fast<MF_BF16, MF_OVERFLOW_SATURATE>(xs);
    check_fast<MF_FP8_E4M3, MF_OVERFLOW_IEEE>(xs);
    check_fast<MF_FP8_E4M3, MF_OVERFLOW_SATURATE>(xs);
    check_fast<MF_FP8_E5M2, MF_OVERFLOW_IEEE>(xs);
    check_fast<MF_FP8_E5M2, MF_OVERFLOW_SATURATE>(xs);
}

// ---- unscale ---------------------------------------------------------------------------------------

template <mf_format F> void check_unscale(const std::vector<unsigned char> &bytes, float scale)
{
    typedef typename std::conditional<F == MF_FP32, uint32_t, uint16_t>::type T;
    const size_t n = bytes.size() / sizeof(T);
    std::vector<unsigned char> ref(bytes), got(bytes);
    mf_loss_scaler s = mf_loss_scaler_default();
    s.scale = scale;
    const int found = mf_unscale_check(&s, F, ref.data(), n);
    const uint32_t inv = mf__f32_bits(mf_loss_scaler_inv_scale(&s));
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        T c;
        std::memcpy(&c, got.data() + i * sizeof(T), sizeof c);
        bool bad;
        c = (T)mf__cu_unscale_elem<F>(c, inv, &bad);
        any |= bad;
        std::memcpy(got.data() + i * sizeof(T), &c, sizeof c);
    }
    CHECK(found == (int)any, "unscale %s scale %a: found %d, kernel %d", mf_format_name(F), (double)scale, found, any);
    size_t k = 0;
    while (k < ref.size() && ref[k] == got[k])
        k++;
    CHECK(k == ref.size(), "unscale %s scale %a: element %zu differs", mf_format_name(F), (double)scale, k / sizeof(T));
}

void test_unscale()
{
    const float scales[] = {1.0f, 65536.0f, 3.0f, 1e-40f, 0x1p-149f, 1e38f, INFINITY, NAN, 0.0f, 0x1p120f};
    std::vector<unsigned char> f32;
    for (double d : boundary_values()) {
        const float f = (float)d;
        unsigned char b[4];
        std::memcpy(b, &f, 4);
        f32.insert(f32.end(), b, b + 4);
    }
    const uint32_t nans[] = {0x7F800001u, 0xFFA00000u, 0x7FC00123u, 0x00000001u, 0x80000001u, 0x7F7FFFFFu};
    for (uint32_t u : nans) {
        unsigned char b[4];
        std::memcpy(b, &u, 4);
        f32.insert(f32.end(), b, b + 4);
    }
    const std::vector<unsigned char> c16 = every_code(MF_FP16);
    for (float sc : scales) {
        check_unscale<MF_FP32>(f32, sc);
        check_unscale<MF_FP16>(c16, sc);
        check_unscale<MF_BF16>(c16, sc);
        // one finite element only: found must be 0
        check_unscale<MF_FP32>(std::vector<unsigned char>(f32.begin(), f32.begin() + 4), sc);
    }
    // the GPU's canonical NaN (0x7FFFFFFF) becomes the library's NaN of a * b
    const uint32_t ops[] = {0x7F800001u, 0xFFA00000u, 0x7FC00123u, 0x7F800000u, 0xFF800000u,
                            0u,          0x80000000u, 0x3F800000u, 0x00000001u};
    for (uint32_t a : ops)
        for (uint32_t b : ops) {
            const uint32_t want = mf__f32_mul_bits(a, b);
            if ((want & 0x7FFFFFFFu) > 0x7F800000u)
                CHECK(mf__cu_mul_fix(0x7FFFFFFFu, a, b) == want, "mul fix %08x %08x", a, b);
            CHECK(mf__cu_mul(a, b) == want, "mul %08x %08x: %08x, want %08x", a, b, mf__cu_mul(a, b), want);
        }
}

// ---- amax ---------------------------------------------------------------------------------------

template <mf_format F> void check_amax(const std::vector<uint64_t> &codes)
{
    const unsigned sz = F == MF_FP64 ? 8 : F == MF_FP32 ? 4 : 2;
    std::vector<unsigned char> bytes(codes.size() * sz + 1);
    for (size_t i = 0; i < codes.size(); i++)
        std::memcpy(bytes.data() + i * sz, &codes[i], sz); // little-endian: the low bytes
    float ref = -1.0f;
    const int rc = mf_amax(F, bytes.data(), codes.size(), &ref);
    uint64_t m = 0;
    for (size_t i = 0; i < codes.size(); i++) {
        const uint64_t k = mf__cu_amax_key<F>(mf__cu_load(F, bytes.data(), i, true));
        m = k > m ? k : m;
    }
    const float got = mf__cu_amax_value(F, m);
    CHECK(rc == MF_OK && mf__f32_bits(got) == mf__f32_bits(ref), "amax %s of %zu: %a, host %a", mf_format_name(F),
          codes.size(), (double)got, (double)ref);
}

void test_amax()
{
    std::vector<std::vector<uint64_t>> f32 = {{0x80000000u},                           // -0: 0
                                              {0x7FC00000u, 0xFFC00001u, 0x7F800001u}, // NaNs only: 0
                                              {0x3F800000u, 0xFF800000u, 0x7FC00000u}, // -inf: +inf
                                              {0x00000001u, 0x80000002u, 0x7FC00000u}, // subnormals
                                              {0xC2F00000u, 0x42F00000u, 0x7F7FFFFFu, 0xFFFFFFFFu}};
    std::vector<std::vector<uint64_t>> h16 = {
        {0x8000u}, {0x7E00u, 0xFC01u}, {0x7C00u, 0x3C00u}, {0x0001u, 0x8003u}, {0xFBFFu, 0x7BFEu, 0x7D00u}};
    std::vector<std::vector<uint64_t>> b16 = {
        {0x8000u}, {0x7FC0u, 0xFF81u}, {0xFF80u, 0x3F80u}, {0x0001u, 0x8003u}, {0xFF7Fu, 0x7F7Eu, 0x7FC1u}};
    std::vector<std::vector<uint64_t>> f64 = {{0x8000000000000000u},
                                              {0x7FF8000000000000u, 0xFFF0000000000001u},
                                              {0xFFF0000000000000u, 0x3FF0000000000000u},
                                              {0x47EFFFFFF0000000u}, // just above FLT_MAX: rounds to FLT_MAX / inf
                                              {0x47EFFFFFE0000001u, 0x0000000000000001u},
                                              {0x3810000000000001u, 0xB690000000000000u}};
    std::vector<uint64_t> rnd32, rnd64v, rnd16;
    for (int k = 0; k < 10000; k++) {
        const uint64_t b = rnd64();
        rnd32.push_back((uint32_t)b), rnd64v.push_back(b), rnd16.push_back((uint16_t)b);
    }
    f32.push_back(rnd32), f64.push_back(rnd64v), h16.push_back(rnd16), b16.push_back(rnd16);
    for (const auto &v : f32)
        check_amax<MF_FP32>(v);
    for (const auto &v : h16)
        check_amax<MF_FP16>(v);
    for (const auto &v : b16)
        check_amax<MF_BF16>(v);
    for (const auto &v : f64)
        check_amax<MF_FP64>(v);
}

// Byte loads and stores of misaligned elements equal the aligned ones.
void test_loads()
{
    unsigned char buf[32];
    for (int k = 0; k < 32; k++)
        buf[k] = (unsigned char)(k * 29 + 3);
    for (mf_format f : kFormats)
        for (size_t i = 0; i < 3; i++) {
            const uint64_t a = mf__cu_load(f, buf, i, true), b = mf__cu_load(f, buf, i, false);
            CHECK(a == b, "load %s %zu", mf_format_name(f), i);
            unsigned char x[32], y[32];
            std::memset(x, 0, 32), std::memset(y, 0, 32);
            if (!packed4(f)) {
                mf__cu_store(f, x, i, a, true), mf__cu_store(f, y, i, a, false);
                CHECK(std::memcmp(x, y, 32) == 0, "store %s %zu", mf_format_name(f), i);
            }
        }
}

} // namespace

int main()
{
    test_loads();
    test_sr_bits();
    test_fast();
    test_unscale();
    test_amax();
    test_convert();
    std::printf("%lu checks, %lu failures\n", checks, failures);
    return failures != 0;
}
