/* SPDX-License-Identifier: MIT */
// tests/cuda/probe_cvt.cu - the device fast paths, checked without a GPU (run by tests/cuda/ptx_check.sh).
//
// Compiled by nvcc (-ptx, one architecture at a time): one extern "C" kernel per named conversion, so
// that ptx_check.sh can read each kernel's PTX and require the cvt that detail/cuda.h promises for the
// architecture (and no cvt where it promises the portable core), plus kernels with run-time arguments
// that make every branch of the hooks reach ptxas.
//
// Compiled as plain C++ (no __CUDACC__): a host program that checks the fix-ups of detail/cuda.h against
// the portable core, given that each instruction gives the core's bits for its own (mode, policy): the
// saturate <-> IEEE rewrites, the policy-free FP6/FP4, e8m0's rd = rz, the NaN codes, and the exact
// widenings that the decoders go through (e4m3 / e5m2 / FP6 / FP4 via f16).
#include <minifloat.h>

#if defined(__CUDACC__)

#define PROBE_F32(name, expr)                                                                                          \
    extern "C" __global__ void name(const float *x, unsigned *y) { y[threadIdx.x] = (expr); }
#define PROBE_F64(name, expr)                                                                                          \
    extern "C" __global__ void name(const double *x, unsigned *y) { y[threadIdx.x] = (expr); }
#define PROBE_DEC(name, expr)                                                                                          \
    extern "C" __global__ void name(const unsigned *x, float *y) { y[threadIdx.x] = (expr); }

#define X x[threadIdx.x]
PROBE_F32(probe_f16_rn, mf_f32_to_f16_rn(X).bits)
PROBE_F32(probe_f16_rn_sat, mf_f32_to_f16_rn_sat(X).bits)
PROBE_F32(probe_f16_ru, mf_f32_to_f16_ru(X).bits)
PROBE_F32(probe_f16_rd_sat, mf_f32_to_f16_rd_sat(X).bits)
PROBE_F32(probe_f16_rna, mf_f32_to_f16_rna(X).bits)
PROBE_F32(probe_bf16_rn, mf_f32_to_bf16_rn(X).bits)
PROBE_F32(probe_bf16_rz, mf_f32_to_bf16_rz(X).bits)
PROBE_F32(probe_bf16_rn_sat, mf_f32_to_bf16_rn_sat(X).bits)
PROBE_F32(probe_bf16_rd, mf_f32_to_bf16_rd(X).bits)
PROBE_F32(probe_e4m3_rn_sat, mf_f32_to_e4m3_rn_sat(X).bits)
PROBE_F32(probe_e4m3_rn, mf_f32_to_e4m3_rn(X).bits)
PROBE_F32(probe_e4m3_rz, mf_f32_to_e4m3_rz(X).bits)
PROBE_F32(probe_e5m2_rn_sat, mf_f32_to_e5m2_rn_sat(X).bits)
PROBE_F32(probe_e5m2_rn, mf_f32_to_e5m2_rn(X).bits)
PROBE_F32(probe_e2m1_rn_sat, mf_f32_to_e2m1_rn_sat(X).bits)
PROBE_F32(probe_e2m1_rz, mf_f32_to_e2m1_rz(X).bits)
PROBE_F32(probe_e2m3_rn, mf_f32_to_e2m3_rn(X).bits)
PROBE_F32(probe_e3m2_rn_sat, mf_f32_to_e3m2_rn_sat(X).bits)
PROBE_F32(probe_e8m0_rz, mf_f32_to_e8m0_rz(X).bits)
PROBE_F32(probe_e8m0_ru_sat, mf_f32_to_e8m0_ru_sat(X).bits)
PROBE_F32(probe_e8m0_rn, mf_f32_to_e8m0_rn(X).bits)
PROBE_F32(probe_e4m3_sr_sat, mf_f32_to_e4m3_sr_sat(X, threadIdx.x * 2654435761u).bits)
PROBE_F32(probe_bf16_sr, mf_f32_to_bf16_sr(X, threadIdx.x * 2654435761u).bits)
PROBE_F32(probe_e2m1_sr, mf_f32_to_e2m1_sr(X, threadIdx.x * 2654435761u).bits)
PROBE_F64(probe_f64_f32_rz, mf_from_f64(MF_FP32, X, MF_ROUND_TOWARD_ZERO, MF_OVERFLOW_IEEE, 0))
PROBE_F64(probe_f64_f16_rn, mf_f64_to_f16_rn(X).bits)
PROBE_F64(probe_f64_bf16_rn, mf_f64_to_bf16_rn(X).bits)
PROBE_F64(probe_f64_e4m3_rn_sat, mf_f64_to_e4m3_rn_sat(X).bits)
PROBE_DEC(probe_dec_f16, mf_f16_to_f32(mf_f16_from_bits((uint16_t)X)))
PROBE_DEC(probe_dec_e5m2, mf_e5m2_to_f32(mf_e5m2_from_bits((uint8_t)X)))
PROBE_DEC(probe_dec_e4m3, mf_e4m3_to_f32(mf_e4m3_from_bits((uint8_t)X)))
PROBE_DEC(probe_dec_e2m1, mf_e2m1_to_f32(mf_e2m1_from_bits((uint8_t)X)))
PROBE_DEC(probe_dec_e3m2, mf_e3m2_to_f32(mf_e3m2_from_bits((uint8_t)X)))
PROBE_DEC(probe_dec_bf16, mf_bf16_to_f32(mf_bf16_from_bits((uint16_t)X)))
#undef X

// Run-time arguments: every branch of the hooks is live, so every asm reaches ptxas.
extern "C" __global__ void probe_any_f32(mf_format f, mf_round r, mf_overflow o, const float *x, unsigned *y)
{
    y[threadIdx.x] = mf_from_f32(f, x[threadIdx.x], r, o, threadIdx.x);
}
extern "C" __global__ void probe_any_f64(mf_format f, mf_round r, mf_overflow o, const double *x, unsigned *y)
{
    y[threadIdx.x] = mf_from_f64(f, x[threadIdx.x], r, o, threadIdx.x);
}
extern "C" __global__ void probe_any_dec(mf_format f, const unsigned *x, float *y)
{
    y[threadIdx.x] = mf_to_f32(f, x[threadIdx.x]);
}

#else /* host: the fix-ups against the core */

#include <cmath>
#include <cstdio>
#include <cstring>
#include <initializer_list>

static unsigned long long g_checked, g_bad;

static void expect(bool ok, const char *what, unsigned long long arg, unsigned got, unsigned want)
{
    g_checked++;
    if (!ok && g_bad++ < 20)
        std::printf("FAIL %s at 0x%llx: 0x%x, core 0x%x\n", what, arg, got, want);
}

static float f32(uint32_t b)
{
    float x;
    std::memcpy(&x, &b, 4);
    return x;
}

static const mf_round kIeeeModes[] = {MF_ROUND_NEAREST_EVEN, MF_ROUND_TOWARD_ZERO, MF_ROUND_UP, MF_ROUND_DOWN};

static void check_input(uint32_t xb)
{
    const float x = f32(xb);
    const mf_overflow I = MF_OVERFLOW_IEEE, S = MF_OVERFLOW_SATURATE;
    // FP8 rn: the saturating instruction (= the core's saturate code), then the fix-ups
    for (mf_format f : {MF_FP8_E4M3, MF_FP8_E5M2}) {
        uint32_t sat = mf_from_f32(f, x, MF_ROUND_NEAREST_EVEN, S, 0);
        uint32_t ieee = mf_from_f32(f, x, MF_ROUND_NEAREST_EVEN, I, 0);
        expect(mf__cuda_fp8_ieee_from_sat(f, sat, xb) == ieee, "fp8 ieee from sat", xb,
               mf__cuda_fp8_ieee_from_sat(f, sat, xb), ieee);
        expect(mf__cuda_fix_nan(sat, xb, 0x7F) == sat, "fp8 nan select", xb, mf__cuda_fix_nan(sat, xb, 0x7F), sat);
    }
    // f16 / bf16 in the four IEEE modes: saturate = IEEE with +-inf -> +-max; NaN = 0x7FFF
    for (mf_round r : kIeeeModes) {
        uint32_t i16 = mf_from_f32(MF_FP16, x, r, I, 0), s16 = mf_from_f32(MF_FP16, x, r, S, 0);
        uint32_t ib = mf_from_f32(MF_BF16, x, r, I, 0), sb = mf_from_f32(MF_BF16, x, r, S, 0);
        expect(mf__cuda_sat_from_ieee(i16, 0x7FFF, 0x7C00) == s16, "f16 sat from ieee", xb, i16, s16);
        expect(mf__cuda_sat_from_ieee(ib, 0x7FFF, 0x7F80) == sb, "bf16 sat from ieee", xb, ib, sb);
        expect(mf__cuda_fix_nan(i16, xb, 0x7FFF) == i16 && mf__cuda_fix_nan(sb, xb, 0x7FFF) == sb, "16 nan", xb, i16,
               sb);
    }
    // FP6 / FP4: one instruction serves both policies (no inf, no NaN: +max for NaN)
    for (mf_format f : {MF_FP6_E2M3, MF_FP6_E3M2, MF_FP4_E2M1}) {
        uint32_t i = mf_from_f32(f, x, MF_ROUND_NEAREST_EVEN, I, 0), s = mf_from_f32(f, x, MF_ROUND_NEAREST_EVEN, S, 0);
        expect(i == s, "fp6/fp4 policies", xb, i, s);
    }
    // e8m0: rd is rz (unsigned), and the sign is ignored (the instruction rounds |x|)
    for (mf_overflow o : {I, S}) {
        uint32_t rz = mf_from_f32(MF_E8M0, x, MF_ROUND_TOWARD_ZERO, o, 0);
        uint32_t rd = mf_from_f32(MF_E8M0, x, MF_ROUND_DOWN, o, 0);
        uint32_t rz_abs = mf_from_f32(MF_E8M0, f32(xb & 0x7FFFFFFFu), MF_ROUND_TOWARD_ZERO, o, 0);
        uint32_t ru = mf_from_f32(MF_E8M0, x, MF_ROUND_UP, o, 0);
        uint32_t ru_abs = mf_from_f32(MF_E8M0, f32(xb & 0x7FFFFFFFu), MF_ROUND_UP, o, 0);
        expect(rz == rd && rz == rz_abs && ru == ru_abs, "e8m0 rd = rz, |x|", xb, rd, rz);
    }
}

static void check_f64(double d)
{
    uint64_t b;
    std::memcpy(&b, &d, 8);
    for (mf_round r : kIeeeModes)
        for (mf_format f : {MF_FP32, MF_FP16, MF_BF16}) {
            uint32_t mag = f == MF_FP32 ? 0x7FFFFFFFu : 0x7FFFu;
            uint32_t inf = f == MF_FP32 ? 0x7F800000u : f == MF_FP16 ? 0x7C00u : 0x7F80u;
            uint32_t i = mf_from_f64(f, d, r, MF_OVERFLOW_IEEE, 0), s = mf_from_f64(f, d, r, MF_OVERFLOW_SATURATE, 0);
            expect(mf__cuda_sat_from_ieee(i, mag, inf) == s, "f64 sat from ieee", b, i, s);
        }
}

static uint32_t core_dec(mf_format f, uint32_t c) { return mf__decode_f32_bits(f, c); }

static void check_decoders()
{
    // f16: the select gives the core's NaN and leaves every other code alone
    for (uint32_t h = 0; h < 0x10000; h++) {
        uint32_t want = core_dec(MF_FP16, h);
        bool nan = (h & 0x7FFF) > 0x7C00;
        uint32_t got = mf__cuda_fix_f16_nan_decode(nan ? 0x7FFFFFFFu : want, h);
        expect(got == want, "f16 decode nan", h, got, want);
    }
    // e5m2 = the top byte of an f16
    for (uint32_t c = 0; c < 256; c++)
        expect(core_dec(MF_FP8_E5M2, c) == core_dec(MF_FP16, c << 8), "e5m2 as f16", c, core_dec(MF_FP16, c << 8),
               core_dec(MF_FP8_E5M2, c));
    // e4m3, FP6, FP4 widen exactly to f16 (the cvt.f16x2 decoders), NaN by the e4m3 select
    static const struct {
        mf_format f;
        unsigned bits;
    } kNarrow[] = {{MF_FP8_E4M3, 8}, {MF_FP6_E2M3, 6}, {MF_FP6_E3M2, 6}, {MF_FP4_E2M1, 4}};
    for (const auto &n : kNarrow) {
        const mf_format f = n.f;
        for (uint32_t c = 0; c < (1u << n.bits); c++) {
            uint32_t want = core_dec(f, c);
            bool nan = f == MF_FP8_E4M3 && (c & 0x7F) == 0x7F;
            uint32_t h = mf_from_f32(MF_FP16, f32(want), MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0);
            uint32_t got = core_dec(MF_FP16, h);
            if (f == MF_FP8_E4M3)
                got = mf__cuda_fix_e4m3_nan_decode(nan ? 0x7FFFFFFFu : got, c);
            expect(got == want, "decode via f16", ((unsigned long long)f << 32) | c, got, want);
        }
    }
}

int main()
{
    // every 997th binary32, and 2^13 neighbours of each threshold the fix-ups compare against
    static const uint32_t kEdges[] = {0x43E80000u, 0x47700000u, 0x7F800000u, 0x477FE000u, 0x7F7F8000u,
                                      0x7F7FFFFFu, 0x00000000u, 0x00400000u, 0x00800000u, 0x7FC00000u};
    for (uint64_t b = 0; b < 0x100000000ull; b += 997)
        check_input((uint32_t)b);
    for (uint32_t e : kEdges)
        for (uint32_t k = 0; k < 8192; k++)
            for (uint32_t s : {0u, 0x80000000u}) {
                check_input(((e - 4096u + k) & 0x7FFFFFFFu) | s);
            }
    // f64: around the f32 / f16 / bf16 overflow thresholds and the specials
    static const double kF64[] = {3.4028234663852886e38,
                                  3.4028235677973366e38,
                                  3.402823669209385e38,
                                  65504.0,
                                  65519.99,
                                  65520.0,
                                  65536.0,
                                  3.3895313892515355e38,
                                  1e300,
                                  1e-300,
                                  0.0,
                                  4.9e-324,
                                  1.0,
                                  1.5};
    for (double d : kF64)
        for (double s : {1.0, -1.0}) {
            check_f64(d * s);
            check_f64(-d * s * (1.0 + 1e-15));
        }
    for (double d : {(double)INFINITY, -(double)INFINITY, (double)NAN})
        check_f64(d);
    check_decoders();
    std::printf("fix-ups vs core: %llu checks, %llu failed\n", g_checked, g_bad);
    return g_bad != 0;
}

#endif
