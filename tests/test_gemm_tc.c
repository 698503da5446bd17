/* SPDX-License-Identifier: MIT */
/* tests/test_gemm_tc.c - the tensor-core models of mf_gemm (MF_ACCUM_V100 .. MF_ACCUM_B200).
 *
 * Two kinds of check:
 *  - published cases: inputs whose results were measured on the GPUs (Fasi, Higham, Mikaitis and Pranesh's
 *    test suite on V100, T4 and A100; its reruns on A10, RTX 4090 and RTX 5090; the HPEC 2025 tests on an A30;
 *    the sf-tensor tcgen05 frozen B200 results), each row with its source, and a few that the models'
 *    authors derived to tell GPUs apart (marked "model");
 *  - a slow reference written here from the rule (docs/gemm.md), sharing no code with src/: every value
 *    decoded by the oracle's tables, raw exponents from floor(log2 |x|) clamped at the format's emin,
 *    truncation and sums in MPFR, the block result cut to binary32 in MPFR; compared on random dot products
 *    of every model and input pair, with and without promotion;
 *  - the vector path (src/gemm/tc_fast.c and each panel kernel this CPU runs) against the scalar model it
 *    replaces (mf__tc_dot, private), bit for bit, on whole matrices of every model and input pair, on 1, 2 and
 *    3 threads; and mf_gemm's epilogue after it (alpha, beta, C, f16 C) on 1 and 3 threads.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpfr.h>

#include <minifloat.h>

#include "mf_test.h"
#include "oracle/ref.h"
#include "../src/gemm/tc.h" /* the vector path and the scalar reference it must match (private) */

static ref_format ref_of(mf_format f); /* the oracle's name of a format (below) */

/* D = A.B + C for one element: a[0..k-1] (codes of fa) times b (codes of fb), plus c, under model acc */
static uint32_t tc1(mf_accum acc, mf_format fa, const uint32_t *a, mf_format fb, const uint32_t *b, size_t k,
                    uint32_t c, size_t promote)
{
    unsigned char ab[512], bb[512];
    float cf;
    mf_gemm_opts o;
    memset(&o, 0, sizeof o);
    o.accum = acc;
    o.promote_every = promote;
    memset(ab, 0, sizeof ab), memset(bb, 0, sizeof bb);
    for (size_t p = 0; p < k; p++) {
        const mf_format f[2] = {fa, fb};
        unsigned char *buf[2] = {ab, bb};
        const uint32_t code[2] = {a[p], b[p]};
        for (int s = 0; s < 2; s++) {
            if (f[s] == MF_FP32)
                memcpy(buf[s] + 4 * p, &code[s], 4);
            else if (f[s] == MF_FP16 || f[s] == MF_BF16) {
                const uint16_t h = (uint16_t)code[s];
                memcpy(buf[s] + 2 * p, &h, 2);
            } else if (f[s] == MF_FP4_E2M1)
                buf[s][p / 2] |= (unsigned char)((code[s] & 0xF) << (4 * (p & 1)));
            else
                buf[s][p] = (unsigned char)code[s];
        }
    }
    memcpy(&cf, &c, 4);
    MF_EXPECT(mf_gemm(MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, 1, 1, k, 1.0f, ab, fa, k, bb, fb, 1, 1.0f, &cf, MF_FP32,
                      1, &o) == MF_OK,
              "mf_gemm refused the case");
    uint32_t d;
    memcpy(&d, &cf, 4);
    return d;
}

/* ---- published cases ------------------------------------------------------------------------------- */
typedef struct vcase {
    const char *why;
    mf_accum acc;
    mf_format fmt;
    int k;
    uint32_t a[4], b[4], c, d;
} vcase;

#define V100 MF_ACCUM_V100
#define A100 MF_ACCUM_A100
#define ADA MF_ACCUM_ADA
#define H100 MF_ACCUM_H100
#define B200 MF_ACCUM_B200
/* clang-format off */
static const vcase CASES[] = {
    /* Fasi et al. (tc_test_numerics-V100.cu, -T4-A100-binary16.cu), 16x16x16 wmma, k = 16 (the rest 0) */
    {"F1 products are exact (V100)", V100, MF_FP16, 16, {0x3BFF}, {0x3BFF}, 0, 0x3F7FC004},
    {"F1 products are exact (A100)", A100, MF_FP16, 16, {0x3BFF}, {0x3BFF}, 0, 0x3F7FC004},
    {"F2 no extra alignment bit (V100)", V100, MF_FP16, 16, {0x3C00}, {0x3C00}, 0xBF7FFFFF, 0x34000000},
    {"F2 one extra alignment bit (A100)", A100, MF_FP16, 16, {0x3C00}, {0x3C00}, 0xBF7FFFFF, 0x33800000},
    {"F2 (RTX 4090, the A100 expectation)", ADA, MF_FP16, 16, {0x3C00}, {0x3C00}, 0xBF7FFFFF, 0x33800000},
    {"F3 normalisation in addition (V100)", V100, MF_FP16, 16, {0x3C00, 0x3C00, 0x3C00, 0x3C00}, {1, 1, 1, 1}, 0x3F7FFFFF, 0x3F800001},
    {"F3 normalisation in addition (A100)", A100, MF_FP16, 16, {0x3C00, 0x3C00, 0x3C00, 0x3C00}, {1, 1, 1, 1}, 0x3F7FFFFF, 0x3F800001},
    {"F4 normalisation in subtraction (V100)", V100, MF_FP16, 16, {0x3C00, 0x3C00}, {0x3C00, 0x8001}, 0xBF7FFFFF, 0x34000000},
    {"F4 normalisation in subtraction (A100)", A100, MF_FP16, 16, {0x3C00, 0x3C00}, {0x3C00, 0x8001}, 0xBF7FFFFF, 0},
    {"F5 accumulation in binary32 (V100)", V100, MF_FP16, 16, {0x3C00, 0x3C00, 0x3C00, 0x3C00}, {1, 1, 1, 1}, 0x3F800000, 0x3F800000},
    {"F6 (A100)", A100, MF_FP16, 16, {0x3800, 0x3800, 0x3800, 0x3800}, {1, 1, 1, 1}, 0x3F800000, 0x3F800000},
    {"F6 (RTX 5090 cuda-gdb, the 25-bit window of H100/B200)", B200, MF_FP16, 16, {0x3800, 0x3800, 0x3800, 0x3800}, {1, 1, 1, 1}, 0x3F800000, 0x3F800001},
    {"F7 sum from the largest (A100)", A100, MF_FP16, 16, {0x3C00, 0x3800, 0x3800, 0x3800}, {0x3C00, 1, 1, 1}, 0x33800000, 0x3F800000},
    {"F7 (RTX 5090)", B200, MF_FP16, 16, {0x3C00, 0x3800, 0x3800, 0x3800}, {0x3C00, 1, 1, 1}, 0x33800000, 0x3F800001},
    {"F8 round-down for positive values (V100)", V100, MF_FP16, 16, {0x3C00, 0x3C00}, {0x4000, 0x0003}, 0, 0x40000000},
    {"F8 (A100)", A100, MF_FP16, 16, {0x3C00, 0x3C00}, {0x4000, 0x0003}, 0, 0x40000000},
    {"F9 round-up for negative values: toward zero (V100)", V100, MF_FP16, 16, {0x3C00, 0x3C00}, {0xC000, 0x8003}, 0, 0xC0000000},
    {"F9 (A100)", A100, MF_FP16, 16, {0x3C00, 0x3C00}, {0xC000, 0x8003}, 0, 0xC0000000},
    {"F10 carry out (V100)", V100, MF_FP16, 16, {0x3C00, 0x3C00, 0x3C00, 0x3C00}, {0x0002, 0x3C00, 0x3C00, 0x3C00}, 0x3F800003, 0x40800001},
    {"F10 carry out (A100)", A100, MF_FP16, 16, {0x3C00, 0x3C00, 0x3C00, 0x3C00}, {0x3C00, 0x3C00, 0x3C00, 0x0002}, 0x3F800003, 0x40800001},
    {"F11 third carry bit (V100)", V100, MF_FP16, 16, {0x3C00, 0x3C00, 0x3C00, 0x3C00}, {0x3C00, 0x3E00, 0x3F00, 0x3F80}, 0x3FF00000, 0x41000000},
    {"F12 RZ in normalisation (V100)", V100, MF_FP16, 16, {0x3C00, 0x3C00, 0x3C00, 0x3C00}, {0x3C00, 0x3C00, 0x3C00, 0x3C00}, 0x3F800003, 0x40A00000},
    {"F13 RZ in normalisation, negative (A100)", A100, MF_FP16, 16, {0x3C00, 0x3C00, 0x3C00, 0x3C00}, {0xBC00, 0xBC00, 0xBC00, 0xBC00}, 0xBF800003, 0xC0A00000},
    {"F14 monotonicity, part 1 (V100)", V100, MF_FP16, 16, {0x3C00, 0x3C00, 0x3C00, 0x3C00}, {1, 1, 1, 1}, 0x3F7FFFFF, 0x3F800001},
    {"F14 part 2: smaller, though c is larger (V100)", V100, MF_FP16, 16, {0x3C00, 0x3C00, 0x3C00, 0x3C00}, {1, 1, 1, 1}, 0x3F800000, 0x3F800000},
    {"F15 monotonicity, part 1 (A100)", A100, MF_FP16, 16, {0x3800, 0x3800, 0x3800, 0x3800}, {1, 1, 1, 3}, 0x3F7FFFFF, 0x3F800001},
    {"F15 part 2 (A100)", A100, MF_FP16, 16, {0x3800, 0x3800, 0x3800, 0x3800}, {1, 1, 1, 3}, 0x3F800000, 0x3F800000},
    {"F16 subnormal input (V100)", V100, MF_FP16, 16, {0x0001}, {0x4400}, 0, 0x34800000},
    {"F17 subnormal c passes (A100)", A100, MF_FP16, 16, {0}, {0}, 1, 1},
    /* Fasi et al., TF32 on A100 (tc_test_numerics-A100-tf32.cu): f32 operands cut to TF32 */
    {"TF32: operands truncated, (1-2^-11)^2 (A100)", A100, MF_FP32, 8, {0x3F7FFFFF}, {0x3F7FFFFF}, 0, 0x3F7FC004},
    {"TF32: subnormal input (A100)", A100, MF_FP32, 8, {0x00002000}, {0x44800000}, 0, 0x00800000},
    {"TF32: subnormal output (A100)", A100, MF_FP32, 8, {0x00800000}, {0x3F000000}, 0, 0x00400000},
    {"TF32: subnormal output with c (A100)", A100, MF_FP32, 8, {0x00800000}, {0x3F800000}, 0x80400000, 0x00400000},
    /* RTX 4090 (Ada) detail runs (lookup1980/tensor-cores-numerical-behavior, 4090/result-4090-binary16-details.txt) */
    {"4090: 2^-23 + 1", ADA, MF_FP16, 4, {0x0002, 0, 0, 0x3C00}, {0x3C00, 0, 0, 0x3C00}, 0, 0x3F800001},
    {"4090: 2^-24 + 1", ADA, MF_FP16, 4, {0x0001, 0, 0, 0x3C00}, {0x3C00, 0, 0, 0x3C00}, 0, 0x3F800000},
    {"4090: 2^-24 - 1 + 1", ADA, MF_FP16, 4, {0x0001, 0xBC00, 0, 0x3C00}, {0x3C00, 0x3C00, 0, 0x3C00}, 0, 0x33800000},
    {"4090: 2^4 - 2^4 + 2^-20", ADA, MF_FP16, 4, {0x3C00, 0, 0xBC00, 0x0010}, {0x4C00, 0, 0x4C00, 0x3C00}, 0, 0x35800000},
    {"4090: 2^4 - 2^4 + 2^-21", ADA, MF_FP16, 4, {0x3C00, 0, 0xBC00, 0x0008}, {0x4C00, 0, 0x4C00, 0x3C00}, 0, 0},
    {"4090: 1 - 1 + c = 2^-24", ADA, MF_FP16, 4, {0x3C00, 0xBC00}, {0x3C00, 0x3C00}, 0x33800000, 0x33800000},
    {"4090: 1 - 1 + c = 2^-25 (lost: the window counts the cancelled 1)", ADA, MF_FP16, 4, {0x3C00, 0xBC00}, {0x3C00, 0x3C00}, 0x33000000, 0},
    /* HPEC 2025 (faiziktk/IEEE_HPEC2025_block_FMA_tests, A30 sample output): the A100 model */
    {"H1 one extra bit (A30)", A100, MF_FP16, 8, {0x0001, 0x0001}, {0x3C00, 0x3C00}, 0x3F800000, 0x3F800001},
    {"H2 not two extra bits (A30)", A100, MF_FP16, 8, {0x0001, 0x0001, 0x0001}, {0x3C00, 0x3800, 0x3800}, 0x3F800000, 0x3F800000},
    {"H3 delayed normalisation (A30)", A100, MF_FP16, 8, {0x0009, 0x0009}, {0x3C00, 0x3C00}, 0x3F7FFFF8, 0x3F800005},
    {"H4 final RZ (A30)", A100, MF_FP16, 8, {0x3C00, 0x3C00, 0x3C00}, {0x3C00, 0x3C00, 0x3C00}, 0x3F800003, 0x40800000},
    {"H4 final RZ, negative (A30)", A100, MF_FP16, 8, {0xBC00, 0xBC00, 0xBC00}, {0x3C00, 0x3C00, 0x3C00}, 0xBF800003, 0xC0800000},
    {"H5 alignment truncates (A30)", A100, MF_FP16, 8, {0x0001, 0x0001}, {0x3A00, 0x3A00}, 0x3F800000, 0x3F800000},
    {"H5 alignment truncates toward zero (A30)", A100, MF_FP16, 8, {0x8001, 0x8001}, {0x3A00, 0x3A00}, 0xBF800000, 0xBF800000},
    /* B200 (sf-tensor/tcgen05, frozen hardware words) */
    {"B200: -0 + nothing is +0", B200, MF_FP16, 16, {0}, {0}, 0x80000000, 0},
    {"B200: bf16 2^-133 x 1", B200, MF_BF16, 16, {0x0001}, {0x3F80}, 0, 0x00010000},
    {"B200: f16 2^-24 x 1", B200, MF_FP16, 16, {0x0001}, {0x3C00}, 0, 0x33800000},
    {"B200: e4m3 2^-9 x 1", B200, MF_FP8_E4M3, 32, {0x01}, {0x38}, 0, 0x3B000000},
    {"B200: e5m2 2^-16 x 1", B200, MF_FP8_E5M2, 32, {0x01}, {0x3C}, 0, 0x37800000},
    {"B200: tf32 2^-136 x 1", B200, MF_FP32, 8, {0x00002000}, {0x3F800000}, 0, 0x00002000},
    {"B200: NaN", B200, MF_FP16, 16, {0x7E00}, {0x3C00}, 0, 0x7FFFFFFF},
    {"B200: e4m3 NaN", B200, MF_FP8_E4M3, 32, {0x7F}, {0x38}, 0, 0x7FFFFFFF},
    {"B200: +inf", B200, MF_FP8_E5M2, 32, {0x7C}, {0x3C}, 0, 0x7F800000},
    {"B200: inf x 0", B200, MF_FP16, 16, {0x7C00}, {0}, 0, 0x7FFFFFFF},
    {"B200: a NaN payload only in TF32's dropped bits is an inf", B200, MF_FP32, 8, {0x7F800001}, {0x3F800000}, 0, 0x7F800000},
    /* FTTN (fp16in.cpp) discriminators, results from the models */
    {"FTTN 3 extra bits: only one (model, A100)", A100, MF_FP16, 8, {0x3C00}, {0x3D00}, 0xBE000002, 0x3F900000},
    {"FTTN 3 extra bits: two (model, H100)", H100, MF_FP16, 16, {0x3C00}, {0x3D00}, 0xBE000002, 0x3F8FFFFF},
};
/* clang-format on */
#define N_CASES (sizeof CASES / sizeof CASES[0])

START_TEST(test_tc_published)
{
    const vcase *v = &CASES[_i];
    uint32_t a[64] = {0}, b[64] = {0};
    for (int q = 0; q < 4; q++)
        a[q] = v->a[q], b[q] = v->b[q];
    const uint32_t d = tc1(v->acc, v->fmt, a, v->fmt, b, (size_t)v->k, v->c, 0);
    ck_assert_msg(d == v->d, "%s: 0x%08x, expected 0x%08x", v->why, d, v->d);
}
END_TEST

/* B200 tcgen05.mma, random operands (sf-tensor/tcgen05, MIT: tcgen05_model/validation.py, _unscaled_vectors).
 * Its authors froze one hardware word per row; the operands are what Python's random.Random(seed) draws there
 * (seed 104 e4m3, 300 e5m2, 301 e2m3, 302 e3m2, 303 e2m1, 103 f16, 104 bf16 and tf32; in order: k codes of A,
 * k of B, then c), written out here: e4m3 codes 0..0x7E, e5m2 0..0x7B, FP6/FP4 any code, f16 any 16 bits, bf16
 * the high half and tf32 all of a finite binary32 word. */
typedef struct tcgen05_row {
    const char *why;
    mf_format fmt;
    int k;
    uint32_t c, d;
    uint32_t a[32], b[32];
} tcgen05_row;

/* clang-format off */
static const tcgen05_row TCGEN05[] = {
    {"e4m3-0", MF_FP8_E4M3, 32, 0xEC63D12A, 0xEC63D12A,
     {0x7A, 0x02, 0x6F, 0x19, 0x5D, 0x62, 0x1D, 0x32, 0x2A, 0x00, 0x5B, 0x10, 0x67, 0x68, 0x02, 0x74,
      0x15, 0x0D, 0x72, 0x12, 0x0F, 0x09, 0x53, 0x60, 0x2A, 0x2F, 0x52, 0x07, 0x6E, 0x19, 0x4A, 0x20},
     {0x32, 0x7E, 0x29, 0x79, 0x4F, 0x15, 0x50, 0x26, 0x34, 0x05, 0x3B, 0x39, 0x44, 0x1F, 0x21, 0x7B,
      0x17, 0x6E, 0x48, 0x05, 0x0C, 0x04, 0x4C, 0x64, 0x66, 0x0F, 0x69, 0x14, 0x20, 0x47, 0x35, 0x2B}},
    {"e4m3-1", MF_FP8_E4M3, 32, 0xB1A13D98, 0x452AF963,
     {0x09, 0x2C, 0x4F, 0x7E, 0x45, 0x19, 0x68, 0x6B, 0x0C, 0x05, 0x5C, 0x55, 0x3B, 0x67, 0x65, 0x46,
      0x3D, 0x50, 0x10, 0x74, 0x1C, 0x13, 0x16, 0x6E, 0x42, 0x17, 0x05, 0x44, 0x30, 0x04, 0x12, 0x3B},
     {0x14, 0x1B, 0x4F, 0x38, 0x0A, 0x07, 0x13, 0x09, 0x01, 0x10, 0x68, 0x59, 0x1F, 0x0F, 0x09, 0x3C,
      0x4F, 0x47, 0x5B, 0x35, 0x50, 0x6A, 0x46, 0x3D, 0x44, 0x18, 0x5C, 0x37, 0x27, 0x03, 0x6B, 0x61}},
    {"e5m2-0", MF_FP8_E5M2, 32, 0x08D846E9, 0x4D92B09A,
     {0x4C, 0x2D, 0x2C, 0x7B, 0x00, 0x3E, 0x2C, 0x43, 0x69, 0x72, 0x36, 0x49, 0x4A, 0x15, 0x14, 0x0F,
      0x36, 0x2A, 0x2F, 0x49, 0x11, 0x50, 0x1F, 0x6E, 0x0C, 0x72, 0x6F, 0x4C, 0x40, 0x63, 0x41, 0x75},
     {0x62, 0x06, 0x58, 0x08, 0x25, 0x25, 0x71, 0x51, 0x47, 0x09, 0x7A, 0x41, 0x23, 0x49, 0x2C, 0x02,
      0x08, 0x67, 0x66, 0x0B, 0x4F, 0x1A, 0x67, 0x68, 0x30, 0x26, 0x75, 0x63, 0x60, 0x66, 0x68, 0x6F}},
    {"e5m2-1", MF_FP8_E5M2, 32, 0x2D1B7DE0, 0x4C9C1102,
     {0x4B, 0x69, 0x16, 0x7A, 0x06, 0x5D, 0x3D, 0x38, 0x06, 0x4F, 0x73, 0x22, 0x56, 0x19, 0x57, 0x72,
      0x6F, 0x52, 0x56, 0x70, 0x32, 0x1E, 0x53, 0x34, 0x18, 0x69, 0x23, 0x12, 0x65, 0x42, 0x29, 0x3A},
     {0x36, 0x1E, 0x2F, 0x60, 0x4B, 0x54, 0x51, 0x33, 0x13, 0x61, 0x65, 0x0B, 0x69, 0x03, 0x22, 0x56,
      0x37, 0x53, 0x1A, 0x4C, 0x06, 0x21, 0x48, 0x2F, 0x0F, 0x41, 0x4C, 0x08, 0x77, 0x2F, 0x68, 0x03}},
    {"e2m3-0", MF_FP6_E2M3, 32, 0x07E5DB6A, 0xC29DD800,
     {0x33, 0x3F, 0x3A, 0x1E, 0x20, 0x0F, 0x1F, 0x10, 0x0C, 0x39, 0x27, 0x04, 0x16, 0x24, 0x28, 0x3C,
      0x1C, 0x3A, 0x02, 0x02, 0x09, 0x39, 0x24, 0x18, 0x2B, 0x14, 0x03, 0x28, 0x04, 0x09, 0x2C, 0x15},
     {0x31, 0x0B, 0x04, 0x39, 0x24, 0x31, 0x0D, 0x00, 0x0D, 0x24, 0x37, 0x0A, 0x27, 0x1A, 0x23, 0x35,
      0x27, 0x12, 0x13, 0x32, 0x30, 0x1E, 0x08, 0x3B, 0x0D, 0x0E, 0x1C, 0x05, 0x26, 0x24, 0x21, 0x24}},
    {"e2m3-1", MF_FP6_E2M3, 32, 0x44A4FB41, 0x449D14C1,
     {0x34, 0x2A, 0x33, 0x12, 0x29, 0x25, 0x14, 0x2A, 0x2D, 0x15, 0x28, 0x3C, 0x15, 0x38, 0x10, 0x1F,
      0x31, 0x0D, 0x07, 0x11, 0x03, 0x35, 0x1F, 0x23, 0x37, 0x2E, 0x32, 0x1C, 0x2B, 0x12, 0x3D, 0x2D},
     {0x32, 0x0C, 0x3B, 0x34, 0x06, 0x0B, 0x31, 0x23, 0x0D, 0x04, 0x1D, 0x25, 0x10, 0x3A, 0x35, 0x33,
      0x2B, 0x03, 0x2D, 0x0E, 0x18, 0x1A, 0x28, 0x11, 0x2A, 0x11, 0x05, 0x27, 0x03, 0x20, 0x1D, 0x28}},
    {"e3m2-0", MF_FP6_E3M2, 32, 0x52C9EC63, 0x52C9EC63,
     {0x34, 0x3C, 0x18, 0x04, 0x30, 0x32, 0x19, 0x32, 0x2B, 0x0E, 0x03, 0x1C, 0x10, 0x06, 0x09, 0x2E,
      0x30, 0x3C, 0x25, 0x38, 0x30, 0x25, 0x11, 0x0B, 0x07, 0x26, 0x19, 0x35, 0x25, 0x1E, 0x24, 0x37},
     {0x1F, 0x11, 0x03, 0x1F, 0x02, 0x01, 0x3C, 0x33, 0x0B, 0x3D, 0x14, 0x24, 0x07, 0x3E, 0x1C, 0x10,
      0x19, 0x21, 0x0F, 0x18, 0x12, 0x3D, 0x14, 0x20, 0x05, 0x07, 0x3C, 0x05, 0x2E, 0x34, 0x26, 0x13}},
    {"e3m2-1", MF_FP6_E3M2, 32, 0x95FF4972, 0xC33B7700,
     {0x22, 0x32, 0x3C, 0x08, 0x13, 0x23, 0x30, 0x27, 0x3B, 0x11, 0x3A, 0x1A, 0x39, 0x2E, 0x1E, 0x2E,
      0x10, 0x3C, 0x07, 0x30, 0x1F, 0x2D, 0x3C, 0x1D, 0x22, 0x30, 0x07, 0x3B, 0x0E, 0x36, 0x0F, 0x0C},
     {0x00, 0x07, 0x37, 0x27, 0x0F, 0x01, 0x1D, 0x37, 0x3B, 0x19, 0x2D, 0x11, 0x29, 0x3A, 0x3F, 0x0C,
      0x17, 0x24, 0x3E, 0x25, 0x28, 0x06, 0x2E, 0x08, 0x00, 0x32, 0x00, 0x26, 0x2D, 0x3A, 0x01, 0x17}},
    {"e2m1-0", MF_FP4_E2M1, 32, 0x890662B9, 0xC1FE0000,
     {0x01, 0x07, 0x06, 0x02, 0x08, 0x0C, 0x05, 0x0D, 0x0F, 0x02, 0x08, 0x01, 0x03, 0x0C, 0x04, 0x0F,
      0x09, 0x00, 0x0D, 0x08, 0x01, 0x07, 0x06, 0x0A, 0x04, 0x05, 0x06, 0x09, 0x03, 0x07, 0x08, 0x07},
     {0x00, 0x08, 0x08, 0x04, 0x0B, 0x02, 0x0F, 0x05, 0x08, 0x04, 0x03, 0x05, 0x0F, 0x02, 0x05, 0x0C,
      0x01, 0x0A, 0x07, 0x05, 0x02, 0x0D, 0x00, 0x03, 0x0A, 0x04, 0x05, 0x08, 0x06, 0x00, 0x00, 0x08}},
    {"e2m1-1", MF_FP4_E2M1, 32, 0xDC3B62A3, 0xDC3B62A3,
     {0x00, 0x02, 0x08, 0x06, 0x05, 0x0C, 0x01, 0x0F, 0x04, 0x05, 0x02, 0x02, 0x0F, 0x0D, 0x04, 0x06,
      0x0E, 0x0B, 0x0D, 0x0A, 0x01, 0x0F, 0x0E, 0x0D, 0x00, 0x09, 0x0C, 0x0D, 0x02, 0x06, 0x0E, 0x05},
     {0x0A, 0x0F, 0x02, 0x08, 0x04, 0x04, 0x0A, 0x08, 0x0A, 0x07, 0x0B, 0x0E, 0x08, 0x01, 0x08, 0x07,
      0x0A, 0x09, 0x04, 0x0A, 0x08, 0x0C, 0x00, 0x04, 0x00, 0x02, 0x08, 0x08, 0x00, 0x0D, 0x0C, 0x06}},
    {"f16-0", MF_FP16, 16, 0x39A59521, 0x7FFFFFFF,
     {0xFAA3, 0xB6DC, 0x74CF, 0xEF28, 0xB806, 0xB24C, 0xBC21, 0xD179, 0x3703, 0xB067, 0x13FA, 0xE990, 0x9A4D, 0xBD38, 0x1F36, 0xA782},
     {0x61D9, 0x760F, 0xE3C3, 0x568F, 0xDF45, 0xACDF, 0x1E62, 0x7D36, 0x150D, 0x21D3, 0x38F4, 0x954F, 0xD3FD, 0xF912, 0x0654, 0x0B47}},
    {"f16-1", MF_FP16, 16, 0x82890B9B, 0x49776BBA,
     {0xF638, 0x1B73, 0xB103, 0x20AC, 0x9B70, 0x85FF, 0x4B2E, 0x2EF5, 0xBEF1, 0x68D1, 0xDC66, 0xBBB2, 0x94AC, 0xB916, 0xAC3A, 0x6A3F},
     {0x3A00, 0xC940, 0xA841, 0x928F, 0xC577, 0xD3B3, 0x9E19, 0x3FB6, 0x1608, 0x5E7E, 0x33DB, 0x9490, 0x37F2, 0xF226, 0xB17E, 0x9E4B}},
    {"bf16-0", MF_BF16, 16, 0x6421E6D3, 0x7F800000,
     {0xF5BF, 0x0500, 0xDF32, 0x32A7, 0xBB5E, 0xC54E, 0x3A45, 0x641A, 0x54A4, 0x01B9, 0xB6BC, 0x2007, 0xCE84, 0xD155, 0x0447, 0xE998},
     {0x2AAC, 0x1ADC, 0xE539, 0x25A7, 0x1E3C, 0x138B, 0xA7C3, 0xC0E5, 0x5467, 0x5E66, 0xA53F, 0x0F94, 0xDCBE, 0x33FC, 0x94DE, 0x41C5}},
    {"bf16-1", MF_BF16, 16, 0x12764E13, 0x7F800000,
     {0xFC36, 0x5283, 0xF27C, 0x9F15, 0x2BEB, 0xA0D9, 0x4C92, 0x68DA, 0x0A6C, 0x7762, 0x7205, 0x894C, 0x3E6D, 0x4222, 0xF621, 0x2E01},
     {0xDC9B, 0x918E, 0x0A00, 0x19AB, 0x09CF, 0x9907, 0xC91D, 0xCD42, 0x1FBA, 0xD3FC, 0x29CB, 0x4094, 0x8FC1, 0x6A2F, 0x5784, 0xEC63}},
    {"tf32-0", MF_FP32, 8, 0x2AAC70EA, 0xFF800000,
     {0xF5BFFFFB, 0x05002635, 0xDF327560, 0x32A7CAE9, 0xBB5E253D, 0xC54E6F4A, 0x3A457647, 0x641A7DC4},
     {0x54A4F9D4, 0x01B9EF96, 0xB6BC4B02, 0x200764CA, 0xCE84821D, 0xD1553CFD, 0x0447F9B4, 0xE998164B}},
    {"tf32-1", MF_FP32, 8, 0xFC36C805, 0xFC347E7C,
     {0x1ADCCB0F, 0xE5394260, 0x25A70552, 0x1E3CE260, 0x138B5984, 0xA7C3A1C0, 0xC0E52AED, 0x5467820B},
     {0x5E6641CB, 0xA53FA0CC, 0x0F9489E6, 0xDCBE0111, 0x33FC3422, 0x94DE84DE, 0x41C52BA7, 0x6421E6D3}},
};
/* clang-format on */
#define N_TCGEN05 (sizeof TCGEN05 / sizeof TCGEN05[0])

/* Every row under MF_ACCUM_B200, bit for bit. The FP8 rows e4m3-1, e5m2-0 and e5m2-1 are the hardware's truncation
 * at work: each word is one ulp below the exact sum rounded to nearest (MPFR, from the oracle's decoding), so a
 * model rounding a block's sum to nearest fails them. The FP6/FP4 rows agree with the same rule but none of them
 * tells truncation from rounding (their sums are exact or c dwarfs the products). */
START_TEST(test_tc_b200_tcgen05)
{
    int below_rn = 0;
    for (size_t r = 0; r < N_TCGEN05; r++) {
        const tcgen05_row *v = &TCGEN05[r];
        const uint32_t d = tc1(B200, v->fmt, v->a, v->fmt, v->b, (size_t)v->k, v->c, 0);
        MF_EXPECT(d == v->d, "%s: 0x%08x, B200 0x%08x", v->why, d, v->d);
        if (v->fmt != MF_FP8_E4M3 && v->fmt != MF_FP8_E5M2)
            continue;
        mpfr_t s, t;
        float hw, rn;
        mpfr_init2(s, 4096), mpfr_init2(t, 4096);
        mpfr_set_d(s, ref_decode(REF_F32, v->c), MPFR_RNDN);
        for (int p = 0; p < v->k; p++) {
            mpfr_set_d(t, ref_decode(ref_of(v->fmt), v->a[p]), MPFR_RNDN);
            mpfr_mul_d(t, t, ref_decode(ref_of(v->fmt), v->b[p]), MPFR_RNDN);
            mpfr_add(s, s, t, MPFR_RNDN);
        }
        rn = mpfr_get_flt(s, MPFR_RNDN); /* every FP8 row's sum is a normal binary32 number */
        memcpy(&hw, &v->d, 4);
        if (fabsf(hw) < fabsf(rn) && nextafterf(hw, rn) == rn)
            below_rn++;
        mpfr_clear(s), mpfr_clear(t);
    }
    ck_assert_int_eq(below_rn, 3);
}
END_TEST

/* RTX 5090 low-precision MMA (m16n8k32, lowp-reduction-width-report.md): 32 ones onto c = 2^25 and 2^26, every
 * format pair of kind::f8f6f4; the B200 model has the same 25-bit window. Hopper's 13-bit FP8 sum (model). */
START_TEST(test_tc_wide_formats)
{
    static const mf_format F[] = {MF_FP8_E4M3, MF_FP8_E5M2, MF_FP6_E2M3, MF_FP6_E3M2, MF_FP4_E2M1};
    for (int x = 0; x < 5; x++)
        for (int y = 0; y < 5; y++) {
            uint32_t a[32], b[32];
            const uint32_t one_a = mf_from_f32(F[x], 1.0f, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0);
            const uint32_t one_b = mf_from_f32(F[y], 1.0f, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0);
            for (int p = 0; p < 32; p++)
                a[p] = one_a, b[p] = one_b;
            ck_assert_uint_eq(tc1(B200, F[x], a, F[y], b, 32, 0x4C000000, 0), 0x4C000008);
            ck_assert_uint_eq(tc1(B200, F[x], a, F[y], b, 32, 0x4C800000, 0), 0x4C800000);
            if (x < 2 && y < 2) { /* FP8 on Hopper: 13 fraction bits (model) */
                ck_assert_uint_eq(tc1(H100, F[x], a, F[y], b, 32, 0x46000000, 0), 0x46008000);
                ck_assert_uint_eq(tc1(H100, F[x], a, F[y], b, 32, 0x46800000, 0), 0x46800000);
            }
        }
    /* FP6/FP4 are B200's alone */
    uint32_t a[32] = {0}, b[32] = {0};
    float c = 0.0f;
    unsigned char buf[32] = {0};
    mf_gemm_opts o;
    memset(&o, 0, sizeof o);
    o.accum = H100;
    ck_assert_int_eq(mf_gemm(MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, 1, 1, 32, 1.0f, buf, MF_FP4_E2M1, 32, buf,
                             MF_FP8_E4M3, 1, 1.0f, &c, MF_FP32, 1, &o),
                     MF_E_FORMAT);
    o.accum = V100;
    ck_assert_int_eq(mf_gemm(MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, 1, 1, 4, 1.0f, buf, MF_BF16, 4, buf, MF_BF16, 1,
                             1.0f, &c, MF_FP32, 1, &o),
                     MF_E_FORMAT);
    (void)a, (void)b;
}
END_TEST

/* HPEC's "FMA size" test: c = 1 + 2^-23, a_0 b_0 = 1 and a_{k-1} b_{k-1} = 2^-23 stay in one block (2 + 2^-22)
 * while k - 1 < w. The block sizes measured: 8 for f16/bf16 and 4 for TF32 on the A30; the models' w elsewhere. */
START_TEST(test_tc_block_size)
{
    static const struct {
        mf_accum acc;
        mf_format f;
        uint32_t one, tiny; /* 1 and 2^-23 (or, for FP8, 2^-9 / e5m2 2^-16 and c scaled to match) */
        int w;
    } W[] = {{V100, MF_FP16, 0x3C00, 0x0002, 4},         {A100, MF_FP16, 0x3C00, 0x0002, 8},
             {A100, MF_BF16, 0x3F80, 0x3400, 8},         {A100, MF_FP32, 0x3F800000, 0x34000000, 4},
             {ADA, MF_FP16, 0x3C00, 0x0002, 8},          {ADA, MF_FP32, 0x3F800000, 0x34000000, 4},
             {H100, MF_FP16, 0x3C00, 0x0002, 16},        {H100, MF_BF16, 0x3F80, 0x3400, 16},
             {H100, MF_FP32, 0x3F800000, 0x34000000, 8}, {B200, MF_FP16, 0x3C00, 0x0002, 16},
             {B200, MF_FP32, 0x3F800000, 0x34000000, 8}};
    for (size_t q = 0; q < sizeof W / sizeof W[0]; q++)
        for (int k = 2; k <= 40; k++) {
            uint32_t a[64] = {0}, b[64] = {0};
            a[0] = b[0] = W[q].one;
            a[k - 1] = W[q].tiny, b[k - 1] = W[q].one;
            const uint32_t d = tc1(W[q].acc, W[q].f, a, W[q].f, b, (size_t)k, 0x3F800001, 0);
            const uint32_t want = k - 1 < W[q].w ? 0x40000001 : 0x40000000;
            ck_assert_msg(d == want, "case %zu k %d: 0x%08x, expected 0x%08x", q, k, d, want);
        }
}
END_TEST

/* ---- the slow reference ------------------------------------------------------------------------------- */
static ref_format ref_of(mf_format f)
{
    static const ref_format map[MF_FORMAT_COUNT] = {
        [MF_FP32] = REF_F32,      [MF_FP16] = REF_F16,      [MF_BF16] = REF_BF16,
        [MF_FP8_E4M3] = REF_E4M3, [MF_FP8_E5M2] = REF_E5M2, [MF_FP6_E2M3] = REF_E2M3,
        [MF_FP6_E3M2] = REF_E3M2, [MF_FP4_E2M1] = REF_E2M1, [MF_E8M0] = REF_E8M0};
    return map[f];
}

/* the model parameters as published (docs/gemm.md); 0 where the GPU has no such instruction */
static int params(mf_accum acc, mf_format fa, mf_format fb, int *w, int *neab, int *out_frac, int *clamp)
{
    const int f8 = (fa == MF_FP8_E4M3 || fa == MF_FP8_E5M2) && (fb == MF_FP8_E4M3 || fb == MF_FP8_E5M2);
    const int f864 = fa >= MF_FP8_E4M3 && fa <= MF_FP4_E2M1 && fb >= MF_FP8_E4M3 && fb <= MF_FP4_E2M1;
    const int same16 = fa == fb && (fa == MF_FP16 || fa == MF_BF16), tf32 = fa == MF_FP32 && fb == MF_FP32;
    *out_frac = 23, *clamp = -100000;
    switch (acc) {
    case MF_ACCUM_V100: *w = 4, *neab = 0; return fa == MF_FP16 && fb == MF_FP16;
    case MF_ACCUM_A100: *w = tf32 ? 4 : 8, *neab = 1; return same16 || tf32;
    case MF_ACCUM_ADA:
        *w = tf32 ? 4 : f8 ? 16 : 8, *neab = f8 ? -10 : 1, *out_frac = f8 ? 13 : 23;
        return same16 || tf32 || f8;
    case MF_ACCUM_H100:
        *w = tf32 ? 8 : f8 ? 32 : 16, *neab = f8 ? -10 : 2, *out_frac = f8 ? 13 : 23, *clamp = -133;
        return same16 || tf32 || f8;
    case MF_ACCUM_B200: *w = tf32 ? 8 : f864 ? 32 : 16, *neab = 2; return same16 || tf32 || f864;
    default: return 0;
    }
}

/* raw exponent: floor(log2 |x|), not below the format's emin */
static long raw_exp(ref_format f, double x)
{
    const ref_info *in = ref_format_info(f);
    const long emin = 1 - in->bias;
    const long e = (long)ilogb(x);
    return e < emin ? emin : e;
}

/* one block: c + sum a_k b_k by the rule, in MPFR; returns the binary32 result as a double (or NaN/inf) */
static double ref_block(ref_format fa, ref_format fb, const double *a, const double *b, int n, double c, int neab,
                        int out_frac, int clamp)
{
    mpfr_t s, t;
    long emax = -100000;
    int any = 0;
    mpfr_init2(s, 4096), mpfr_init2(t, 4096);
    for (int k = 0; k < n; k++)
        if (a[k] != 0 && b[k] != 0) {
            const long r = raw_exp(fa, a[k]) + raw_exp(fb, b[k]);
            emax = r > emax ? r : emax, any = 1;
        }
    if (c != 0) {
        const long r = raw_exp(REF_F32, c);
        emax = r > emax ? r : emax, any = 1;
    }
    if (!any) {
        mpfr_clear(s), mpfr_clear(t);
        return 0.0;
    }
    if (emax < clamp)
        emax = clamp;
    const long q = emax - (23 + neab);
    mpfr_set_zero(s, 1);
    for (int k = 0; k <= n; k++) {
        if (k < n) {
            mpfr_set_d(t, a[k], MPFR_RNDN);
            mpfr_mul_d(t, t, b[k], MPFR_RNDN);
        } else {
            mpfr_set_d(t, c, MPFR_RNDN);
        }
        mpfr_mul_2si(t, t, -q, MPFR_RNDN); /* in units of the window's last bit */
        mpfr_trunc(t, t);                  /* toward zero */
        mpfr_mul_2si(t, t, q, MPFR_RNDN);
        mpfr_add(s, s, t, MPFR_RNDN);
    }
    double r;
    if (mpfr_zero_p(s)) {
        r = 0.0;
    } else {
        /* RZ to out_frac fraction bits; below 2^-126, to multiples of 2^-(126 + out_frac) */
        const long e = mpfr_get_exp(s) - 1; /* s in [2^e, 2^(e+1)) */
        const long lsb = (e < -126 ? -126 : e) - out_frac;
        mpfr_mul_2si(s, s, -lsb, MPFR_RNDN);
        mpfr_trunc(s, s);
        mpfr_mul_2si(s, s, lsb, MPFR_RNDN);
        r = mpfr_get_d(s, MPFR_RNDN);
        if (e > 127)
            r = r < 0 ? -INFINITY : INFINITY;
    }
    mpfr_clear(s), mpfr_clear(t);
    return r;
}

static double ref_dot(mf_accum acc, mf_format fa, mf_format fb, const double *a, const double *b, int k, double c,
                      int promote)
{
    int w, neab, out_frac, clamp;
    params(acc, fa, fb, &w, &neab, &out_frac, &clamp);
    if (promote == 0) {
        for (int p = 0; p < k; p += w) {
            c = ref_block(ref_of(fa), ref_of(fb), a + p, b + p, k - p < w ? k - p : w, c, neab, out_frac, clamp);
            if (isinf(c))
                return c;
        }
        return c;
    }
    float acc32 = (float)c;
    for (int p0 = 0; p0 < k; p0 += promote) {
        double part = 0.0;
        const int end = k - p0 < promote ? k : p0 + promote;
        for (int p = p0; p < end && !isinf(part); p += w)
            part = ref_block(ref_of(fa), ref_of(fb), a + p, b + p, end - p < w ? end - p : w, part, neab, out_frac,
                             clamp);
        acc32 = acc32 + (float)part;
    }
    return acc32;
}

static uint64_t rs = 0x243F6A8885A308D3ull;
static uint64_t rnd(void)
{
    rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
    return rs;
}

/* a random finite code of f near 2^e0 (some subnormal, some zero) */
static uint32_t rnd_code(mf_format f, int spread)
{
    const ref_format r = ref_of(f);
    const ref_info *in = ref_format_info(r);
    for (;;) {
        uint32_t c = (uint32_t)rnd() & (in->bits == 32 ? 0xFFFFFFFFu : (1u << in->bits) - 1u);
        if (in->bits >= 16) { /* keep the exponent within +-spread of 0 */
            const int eb = in->bits == 32 ? 8 : in->exp_bits, mb = in->man_bits;
            const int e = in->bias + (int)(rnd() % (unsigned)(2 * spread + 1)) - spread;
            if (e > 0 && e < (1 << eb) - 1)
                c = (c & ~(((1u << eb) - 1u) << mb)) | (uint32_t)e << mb;
        }
        if (rnd() % 16 == 0)
            c &= ~(in->max_code); /* a signed zero */
        if (isfinite(ref_decode(r, c)))
            return c;
    }
}

/* Random dot products for every model and input pair: the library against the slow reference. */
START_TEST(test_tc_against_reference)
{
    static const mf_format F[] = {MF_FP32,     MF_FP16,     MF_BF16,     MF_FP8_E4M3,
                                  MF_FP8_E5M2, MF_FP6_E2M3, MF_FP6_E3M2, MF_FP4_E2M1};
    const mf_accum acc = (mf_accum)(MF_ACCUM_V100 + _i);
    unsigned long checked = 0, nonzero = 0;
    for (int x = 0; x < 8; x++)
        for (int y = 0; y < 8; y++) {
            int w, neab, of, cl;
            if (!params(acc, F[x], F[y], &w, &neab, &of, &cl))
                continue;
            for (int rep = 0; rep < 40; rep++) {
                uint32_t a[96], b[96];
                double av[96], bv[96];
                const int k = 1 + (int)(rnd() % 90), spread = rep % 3 == 0 ? 30 : 6;
                for (int p = 0; p < k; p++) {
                    a[p] = rnd_code(F[x], spread), b[p] = rnd_code(F[y], spread);
                    av[p] = ref_decode(ref_of(F[x]), a[p]), bv[p] = ref_decode(ref_of(F[y]), b[p]);
                    if (F[x] == MF_FP32) /* TF32: the low 13 bits dropped */
                        av[p] = ref_decode(REF_F32, a[p] & ~0x1FFFu);
                    if (F[y] == MF_FP32)
                        bv[p] = ref_decode(REF_F32, b[p] & ~0x1FFFu);
                }
                const uint32_t c = rnd() % 4 ? (uint32_t)rnd_code(MF_FP32, spread) : 0;
                const int promote = rep % 4 == 3 ? w * (1 + (int)(rnd() % 3)) : 0;
                const double want = ref_dot(acc, F[x], F[y], av, bv, k, ref_decode(REF_F32, c), promote);
                const float wf = (float)want;
                uint32_t wbits;
                memcpy(&wbits, &wf, 4);
                if (isnan(want))
                    wbits = 0x7FFFFFFFu; /* the library's NaN */
                const uint32_t got = tc1(acc, F[x], a, F[y], b, (size_t)k, c, (size_t)promote);
                MF_EXPECT(got == wbits, "model %d %s x %s k %d promote %d rep %d: 0x%08x, expected 0x%08x", (int)acc,
                          mf_format_name(F[x]), mf_format_name(F[y]), k, promote, rep, got, wbits);
                checked++, nonzero += (got & 0x7FFFFFFF) != 0;
            }
        }
    ck_assert_uint_gt(checked, 30);
    ck_assert_uint_gt(nonzero, checked / 2);
}
END_TEST

/* ---- the vector path against the scalar model ----------------------------------------------------------- */

/* a random code of f: mostly finite values over a range of magnitudes (zeros and subnormals among them), or
 * with specials any code at all */
static uint32_t rnd_any(mf_format f, int spread, int specials)
{
    const ref_info *in = ref_format_info(ref_of(f));
    if (specials && rnd() % 8 == 0)
        return (uint32_t)rnd() & (in->bits == 32 ? 0xFFFFFFFFu : (1u << in->bits) - 1u);
    return rnd_code(f, spread);
}

/* a random f32 or bf16 code near 2^(e0 +- 8), or a zero (products near 2^-140 for e0 = -70) */
static uint32_t rnd_near(mf_format f, int e0)
{
    const int mb = f == MF_FP32 ? 23 : 7, bits = f == MF_FP32 ? 32 : 16;
    int e = 127 + e0 + (int)(rnd() % 17) - 8;
    uint32_t c = (uint32_t)rnd() & (bits == 32 ? 0xFFFFFFFFu : 0xFFFFu);
    if (e < 0)
        e = 0; /* a subnormal */
    c = (c & ~(0xFFu << mb)) | (uint32_t)e << mb;
    return rnd() % 16 == 0 ? c & (1u << (bits - 1)) : c;
}

/* store code as element idx of an array of format f */
static void put_code(unsigned char *buf, mf_format f, size_t idx, uint32_t code)
{
    if (f == MF_FP32) {
        memcpy(buf + 4 * idx, &code, 4);
    } else if (f == MF_FP16 || f == MF_BF16) {
        const uint16_t h = (uint16_t)code;
        memcpy(buf + 2 * idx, &h, 2);
    } else if (f == MF_FP4_E2M1) {
        buf[idx / 2] = (unsigned char)((buf[idx / 2] & (0xF0u >> (4 * (idx & 1)))) | (code & 0xFu) << (4 * (idx & 1)));
    } else {
        buf[idx] = (unsigned char)code;
    }
}

typedef struct fast_out {
    uint32_t *d;
    size_t n;
} fast_out;

static void fast_emit(void *ctx, size_t i, size_t j, size_t cnt, const uint32_t *d, mf_stats *st)
{
    fast_out *o = (fast_out *)ctx;
    (void)st;
    memcpy(o->d + i * o->n + j, d, cnt * 4); /* threads write disjoint elements */
}

/* Whole matrices through mf__tc_run with each kernel, 1 to 3 threads, promotion on and off, C in or not:
 * every element the bits of mf__tc_dot on the same operands. */
START_TEST(test_tc_fast_vs_scalar)
{
    static const mf_format F[] = {MF_FP32,     MF_FP16,     MF_BF16,     MF_FP8_E4M3,
                                  MF_FP8_E5M2, MF_FP6_E2M3, MF_FP6_E3M2, MF_FP4_E2M1};
    static const size_t SHAPES[][3] = {{1, 1, 1}, {3, 17, 5}, {5, 33, 37}, {2, 16, 64}, {7, 19, 100}, {4, 40, 131}};
    const mf_accum acc = (mf_accum)(MF_ACCUM_V100 + _i);
    unsigned long checked = 0, nonzero = 0, special = 0, subnormal = 0, kernels = 0;
    for (size_t kq = 0; mf__tc_kernel_at(kq); kq++)
        kernels++;
    ck_assert_uint_ge(kernels, 1);
    for (int x = 0; x < 8; x++)
        for (int y = 0; y < 8; y++) {
            mf__tc tc;
            if (!mf__tc_params(acc, F[x], F[y], &tc))
                continue;
            for (size_t sh = 0; sh < sizeof SHAPES / sizeof SHAPES[0]; sh++)
                for (int rep = 0; rep < 5; rep++) { /* rep 4: binary32 subnormal sums from bf16 and tf32 */
                    const size_t m = SHAPES[sh][0], n = SHAPES[sh][1], k = SHAPES[sh][2];
                    const int specials = rep == 3, spread = rep == 0 ? 30 : rep == 1 ? 3 : rep == 4 ? 70 : 12;
                    const size_t promote = rep == 1 ? (size_t)tc.w : rep == 2 ? 2 * (size_t)tc.w : 0;
                    const int trans_b = rep & 1, c_in = rep != 2;
                    unsigned char *a = calloc(4 * m * k + 1, 1), *b = calloc(4 * k * n + 1, 1);
                    uint32_t *cm = malloc(4 * m * n), *want = malloc(4 * m * n), *got = malloc(4 * m * n);
                    mf__tc_elem *ea = malloc(sizeof *ea * k), *eb = malloc(sizeof *eb * k);
                    const int tiny = rep == 4 && (F[x] == MF_FP32 || F[x] == MF_BF16) && F[x] == F[y];
                    for (size_t i = 0; i < m * k; i++)
                        put_code(a, F[x], i, tiny ? rnd_near(F[x], -70) : rnd_any(F[x], spread, specials));
                    for (size_t i = 0; i < k * n; i++)
                        put_code(b, F[y], i, tiny ? rnd_near(F[y], -70) : rnd_any(F[y], spread, specials));
                    for (size_t i = 0; i < m * n; i++) {
                        cm[i] = rnd() % 4 ? tiny ? rnd_near(MF_FP32, -126) : rnd_code(MF_FP32, spread) : 0;
                        if (specials && rnd() % 16 == 0)
                            cm[i] = rnd() % 2 ? 0xFF800000u : 0x7FC00001u;
                    }
                    /* the scalar model: element (i, p) of A at i * k + p; B's (p, j) at p * n + j or j * k + p */
                    for (size_t i = 0; i < m; i++)
                        for (size_t j = 0; j < n; j++) {
                            for (size_t p = 0; p < k; p++) {
                                const size_t bi = trans_b ? j * k + p : p * n + j;
                                uint32_t ca, cb;
                                if (F[x] == MF_FP32)
                                    memcpy(&ca, a + 4 * (i * k + p), 4);
                                else if (F[x] == MF_FP16 || F[x] == MF_BF16) {
                                    uint16_t h;
                                    memcpy(&h, a + 2 * (i * k + p), 2);
                                    ca = h;
                                } else if (F[x] == MF_FP4_E2M1)
                                    ca = (uint32_t)(a[(i * k + p) / 2] >> (4 * ((i * k + p) & 1))) & 0xFu;
                                else
                                    ca = a[i * k + p];
                                if (F[y] == MF_FP32)
                                    memcpy(&cb, b + 4 * bi, 4);
                                else if (F[y] == MF_FP16 || F[y] == MF_BF16) {
                                    uint16_t h;
                                    memcpy(&h, b + 2 * bi, 2);
                                    cb = h;
                                } else if (F[y] == MF_FP4_E2M1)
                                    cb = (uint32_t)(b[bi / 2] >> (4 * (bi & 1))) & 0xFu;
                                else
                                    cb = b[bi];
                                mf__tc_decode(F[x], ca, tc.tf32, &ea[p]);
                                mf__tc_decode(F[y], cb, tc.tf32, &eb[p]);
                            }
                            want[i * n + j] = mf__tc_dot(&tc, ea, eb, k, c_in ? cm[i * n + j] : 0, promote);
                        }
                    for (size_t kq = 0; mf__tc_kernel_at(kq); kq++)
                        for (int threads = 1; threads <= 3; threads++) {
                            fast_out fo = {got, n};
                            mf__tc_call cl;
                            memset(&cl, 0, sizeof cl);
                            memset(got, 0xA5, 4 * m * n);
                            cl.p = &tc, cl.m = m, cl.n = n, cl.k = k;
                            cl.a = a, cl.fa = F[x], cl.a_rs = k, cl.a_cs = 1;
                            cl.b = b, cl.fb = F[y], cl.b_rs = trans_b ? 1 : n, cl.b_cs = trans_b ? k : 1;
                            cl.c = c_in ? cm : NULL, cl.c_rs = n, cl.c_cs = 1;
                            cl.promote = promote, cl.threads = threads, cl.kernel = mf__tc_kernel_at(kq);
                            cl.emit = fast_emit, cl.ctx = &fo;
                            ck_assert_int_eq(mf__tc_run(&cl), MF_OK);
                            for (size_t q = 0; q < m * n; q++)
                                MF_EXPECT(got[q] == want[q],
                                          "model %d %s x %s %zux%zux%zu promote %zu rep %d kernel %s threads %d (%zu, "
                                          "%zu): 0x%08x, scalar 0x%08x",
                                          (int)acc, mf_format_name(F[x]), mf_format_name(F[y]), m, n, k, promote, rep,
                                          mf__tc_kernel_at(kq)->name, threads, q / n, q % n, got[q], want[q]);
                            checked += m * n;
                        }
                    for (size_t q = 0; q < m * n; q++) {
                        nonzero += (want[q] & 0x7FFFFFFFu) != 0;
                        subnormal += (want[q] & 0x7FFFFFFFu) - 1u < 0x007FFFFFu;
                        special += (want[q] & 0x7FFFFFFFu) >= 0x7F800000u;
                    }
                    free(a), free(b), free(cm), free(want), free(got), free(ea), free(eb);
                }
        }
    ck_assert_uint_gt(checked, 1000);
    ck_assert_uint_gt(nonzero, checked / kernels / 6);
    ck_assert_uint_gt(special, 0);
    if (acc != MF_ACCUM_V100) /* binary32 subnormal sums: the models that take bf16 or tf32 */
        ck_assert_uint_gt(subnormal, 100);
}
END_TEST

/* mf_gemm under every model: the accumulator through the epilogue (alpha, beta, C, f16 C, stats), the same on
 * 1 and 3 threads; where C receives D as it is (alpha = beta = 1 with C in, or alpha = 1 and beta = 0), D is
 * mf__tc_dot's bits; otherwise C is what MF_ACCUM_FP32 gives from D (a 1 x 1 x 1 product D * 1, exact). */
START_TEST(test_tc_gemm_epilogue)
{
    static const struct {
        mf_accum acc;
        mf_format f;
    } M[] = {{MF_ACCUM_V100, MF_FP16},     {MF_ACCUM_A100, MF_BF16},     {MF_ACCUM_A100, MF_FP32},
             {MF_ACCUM_ADA, MF_FP8_E4M3},  {MF_ACCUM_H100, MF_FP16},     {MF_ACCUM_H100, MF_FP8_E5M2},
             {MF_ACCUM_B200, MF_FP8_E4M3}, {MF_ACCUM_B200, MF_FP4_E2M1}, {MF_ACCUM_B200, MF_FP32}};
    const size_t m = 9, n = 21, k = 45;
    unsigned long checked = 0;
    for (size_t q = 0; q < sizeof M / sizeof M[0]; q++)
        for (int cfg = 0; cfg < 5; cfg++) {
            const mf_format f = M[q].f, fc = cfg == 4 ? MF_FP16 : MF_FP32;
            static const float ALPHA[] = {1.0f, 1.0f, 0.75f, -3.0f, 0.5f}, BETA[] = {1.0f, 0.0f, -1.5f, 0.0f, 0.25f};
            unsigned char a[4 * 9 * 45] = {0}, b[4 * 45 * 21] = {0};
            uint32_t c0[9 * 21], c1[9 * 21], c3[9 * 21];
            float sa[9];
            mf__tc tc;
            mf_gemm_opts o;
            mf_stats st1, st3;
            ck_assert(mf__tc_params(M[q].acc, f, f, &tc));
            for (size_t i = 0; i < m * k; i++)
                put_code(a, f, i, rnd_any(f, 20, 0));
            for (size_t i = 0; i < k * n; i++)
                put_code(b, f, i, rnd_any(f, 20, 0));
            for (size_t i = 0; i < m * n; i++) /* f16 C: packed in the first half of c0 */
                put_code((unsigned char *)c0, fc, i,
                         fc == MF_FP32 ? rnd_code(MF_FP32, 20) : (uint32_t)(rnd() & 0xFBFF));
            for (size_t i = 0; i < m; i++)
                sa[i] = (float)(1 + (int)(rnd() % 8)) * 0.25f;
            memset(&o, 0, sizeof o);
            o.accum = M[q].acc, o.promote_every = cfg == 2 ? 2 * (size_t)tc.w : 0;
            o.round = cfg == 4 ? MF_ROUND_TOWARD_ZERO : MF_ROUND_NEAREST_EVEN;
            if (cfg == 3)
                o.scale_a.kind = MF_GEMM_SCALE_VECTOR, o.scale_a.data = sa;
            memcpy(c1, c0, sizeof c0), memcpy(c3, c0, sizeof c0);
            o.threads = 1, o.stats = &st1;
            ck_assert_int_eq(mf_gemm(MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, m, n, k, ALPHA[cfg], a, f, k, b, f, n,
                                     BETA[cfg], c1, fc, n, &o),
                             MF_OK);
            o.threads = 3, o.stats = &st3;
            ck_assert_int_eq(mf_gemm(MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, m, n, k, ALPHA[cfg], a, f, k, b, f, n,
                                     BETA[cfg], c3, fc, n, &o),
                             MF_OK);
            ck_assert_mem_eq(c1, c3, fc == MF_FP32 ? 4 * m * n : 2 * m * n);
            ck_assert_mem_eq(&st1, &st3, sizeof st1);
            for (size_t i = 0; i < m; i++)
                for (size_t j = 0; j < n; j++) {
                    mf__tc_elem ea[45], eb[45];
                    uint32_t d, want;
                    float df, cf;
                    for (size_t p = 0; p < k; p++) {
                        uint32_t ca = 0, cb = 0;
                        if (f == MF_FP32)
                            memcpy(&ca, a + 4 * (i * k + p), 4), memcpy(&cb, b + 4 * (p * n + j), 4);
                        else if (f == MF_FP16 || f == MF_BF16) {
                            uint16_t h;
                            memcpy(&h, a + 2 * (i * k + p), 2), ca = h;
                            memcpy(&h, b + 2 * (p * n + j), 2), cb = h;
                        } else if (f == MF_FP4_E2M1) {
                            ca = (uint32_t)(a[(i * k + p) / 2] >> (4 * ((i * k + p) & 1))) & 0xFu;
                            cb = (uint32_t)(b[(p * n + j) / 2] >> (4 * ((p * n + j) & 1))) & 0xFu;
                        } else {
                            ca = a[i * k + p], cb = b[p * n + j];
                        }
                        mf__tc_decode(f, ca, tc.tf32, &ea[p]);
                        mf__tc_decode(f, cb, tc.tf32, &eb[p]);
                    }
                    if (cfg <= 1) { /* C receives D (from C in, or from +0) */
                        want = mf__tc_dot(&tc, ea, eb, k, cfg == 0 ? c0[i * n + j] : 0, 0);
                        if ((want & 0x7FFFFFFFu) > 0x7F800000u)
                            want = 0x7FFFFFFFu;
                    } else {
                        mf_gemm_opts o1;
                        const float one = 1.0f;
                        d = mf__tc_dot(&tc, ea, eb, k, 0, o.promote_every);
                        memcpy(&df, &d, 4);
                        memset(&o1, 0, sizeof o1);
                        o1.round = o.round;
                        if (cfg == 3)
                            o1.scale_a.kind = MF_GEMM_SCALE_TENSOR, o1.scale_a.data = &sa[i];
                        if (fc == MF_FP32) {
                            memcpy(&cf, &c0[i * n + j], 4);
                            ck_assert_int_eq(mf_gemm(MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, 1, 1, 1, ALPHA[cfg], &df,
                                                     MF_FP32, 1, &one, MF_FP32, 1, BETA[cfg], &cf, MF_FP32, 1, &o1),
                                             MF_OK);
                            memcpy(&want, &cf, 4);
                        } else {
                            uint16_t h;
                            memcpy(&h, (const unsigned char *)c0 + 2 * (i * n + j), 2);
                            ck_assert_int_eq(mf_gemm(MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, 1, 1, 1, ALPHA[cfg], &df,
                                                     MF_FP32, 1, &one, MF_FP32, 1, BETA[cfg], &h, MF_FP16, 1, &o1),
                                             MF_OK);
                            want = h;
                        }
                    }
                    {
                        uint32_t gotc = 0;
                        if (fc == MF_FP32) {
                            gotc = c1[i * n + j];
                        } else {
                            uint16_t h;
                            memcpy(&h, (const unsigned char *)c1 + 2 * (i * n + j), 2);
                            gotc = h;
                        }
                        MF_EXPECT(gotc == want, "case %zu cfg %d (%zu, %zu): 0x%08x, expected 0x%08x", q, cfg, i, j,
                                  gotc, want);
                    }
                    checked++;
                }
        }
    ck_assert_uint_eq(checked, 9 * 5 * 9 * 21);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gemm_tc");
    TCase *tc = tcase_create("gemm_tc");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_tc_published, 0, (int)N_CASES);
    tcase_add_test(tc, test_tc_b200_tcgen05);
    tcase_add_test(tc, test_tc_wide_formats);
    tcase_add_test(tc, test_tc_block_size);
    tcase_add_loop_test(tc, test_tc_against_reference, 0, MF_ACCUM_B200 - MF_ACCUM_V100 + 1);
    tcase_add_loop_test(tc, test_tc_fast_vs_scalar, 0, MF_ACCUM_B200 - MF_ACCUM_V100 + 1);
    tcase_add_test(tc, test_tc_gemm_epilogue);
    suite_add_tcase(s, tc);
    return mf_run_suite(s);
}
