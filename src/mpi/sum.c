/* SPDX-License-Identifier: MIT */
/* src/mpi/sum.c - the element-wise adds of the deterministic sums (src/mpi/mpi.c): acc[i] + x[i] in binary32,
 * round to nearest even, with mf__f32_add_bits's NaN rule, at the hardware's rate.
 *
 * Why the hardware's add gives mf__f32_add_bits's bits: in the default environment (round to nearest, no
 * flush-to-zero, no denormals-are-zero) an IEEE 754 binary32 add is correctly rounded, subnormals and
 * signed zeros included (x + -x = +0, -0 + -0 = -0), which is what the integer add computes. Only NaNs
 * differ: which operand's payload comes out, and inf - inf's sign, depend on the instruction and on the
 * operand order the compiler picks, so every NaN result is replaced by the rule's own (acc's quieted, else
 * x's quieted, else 0x7FC00000). The caller's environment is saved, replaced by FE_DFL_ENV and restored
 * (with its exception flags: the sums raise none), and a self-check after pinning it (a subnormal sum and
 * three rounding cases that tell the four directions apart) sends the sums to the integer add where the
 * platform's default environment is not that one. */
#include <fenv.h>
#include <float.h>
#include <string.h>

#include <minifloat/detail/arith.h>

#include "sum.h"

#define QUIET 0x00400000u
#define ABS 0x7FFFFFFFu
#define INF 0x7F800000u

/* volatile: the checks must run on the hardware, after fesetenv, not in the compiler */
static int env_is_default(void)
{
    volatile float tiny = 0x1p-149f, one = 1.0f, half_ulp = 0x1p-24f, three_half_ulp = 0x1.8p-23f;
    const float sub = tiny + tiny, up = one + half_ulp, down = -one - half_ulp, tie = one + three_half_ulp;
    uint32_t b;
    memcpy(&b, &sub, 4);
    /* 2^-148 (no FTZ/DAZ); 1 + 2^-24 is 1 (not upward), -1 - 2^-24 is -1 (not downward), 1 + 1.5 ulp is
     * 1 + 2 ulp (ties to even, not toward zero) */
    return b == 2u && up == 1.0f && down == -1.0f && tie == 1.0f + 0x1p-22f;
}

void mf__mpi_add_begin(mf__mpi_adder *ad)
{
    ad->hw = 0;
#if FLT_EVAL_METHOD == 0
    /* FLT_EVAL_METHOD 0: float adds are binary32 operations, not wider ones rounded twice */
    ad->saved_ok = fegetenv(&ad->saved) == 0;
    if (ad->saved_ok && fesetenv(FE_DFL_ENV) == 0)
        ad->hw = env_is_default();
#else
    ad->saved_ok = 0;
#endif
}

void mf__mpi_add_end(mf__mpi_adder *ad)
{
    if (ad->saved_ok)
        fesetenv(&ad->saved);
}

/* The rule's result where the hardware's is a NaN. Branch-free, so that the loops vectorise. */
static inline uint32_t nan_rule(uint32_t sum, uint32_t a, uint32_t b)
{
    const uint32_t fix = (a & ABS) > INF ? a | QUIET : (b & ABS) > INF ? b | QUIET : MF__F32_DEFAULT_NAN;
    return (sum & ABS) > INF ? fix : sum;
}

/* acc and x may not alias (x is received data or the caller's send buffer; acc its recv) */
void mf__mpi_add_f32(const mf__mpi_adder *ad, float *restrict acc, const float *restrict x, size_t m)
{
    size_t i;
    if (!ad->hw) {
        for (i = 0; i < m; i++) {
            uint32_t a, b;
            memcpy(&a, &acc[i], 4);
            memcpy(&b, &x[i], 4);
            a = mf__f32_add_bits(a, b);
            memcpy(&acc[i], &a, 4);
        }
        return;
    }
    for (i = 0; i < m; i++) {
        const float s = acc[i] + x[i];
        uint32_t a, b, r;
        memcpy(&a, &acc[i], 4);
        memcpy(&b, &x[i], 4);
        memcpy(&r, &s, 4);
        r = nan_rule(r, a, b);
        memcpy(&acc[i], &r, 4);
    }
}

void mf__mpi_add_bf16(const mf__mpi_adder *ad, float *restrict acc, const uint16_t *restrict x, size_t m)
{
    size_t i;
    if (!ad->hw) {
        for (i = 0; i < m; i++) {
            uint32_t a;
            memcpy(&a, &acc[i], 4);
            a = mf__f32_add_bits(a, (uint32_t)x[i] << 16);
            memcpy(&acc[i], &a, 4);
        }
        return;
    }
    for (i = 0; i < m; i++) {
        const uint32_t b = (uint32_t)x[i] << 16; /* bf16 to binary32: exact */
        uint32_t a, r;
        float fb, s;
        memcpy(&fb, &b, 4);
        s = acc[i] + fb;
        memcpy(&a, &acc[i], 4);
        memcpy(&r, &s, 4);
        r = nan_rule(r, a, b);
        memcpy(&acc[i], &r, 4);
    }
}

void mf__mpi_widen_bf16(float *restrict acc, const uint16_t *restrict x, size_t m)
{
    size_t i;
    for (i = 0; i < m; i++) {
        const uint32_t b = (uint32_t)x[i] << 16;
        memcpy(&acc[i], &b, 4);
    }
}
