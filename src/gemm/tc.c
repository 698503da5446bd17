/* SPDX-License-Identifier: MIT */
/* src/gemm/tc.c - models of NVIDIA tensor cores' dot products (MF_ACCUM_V100 .. MF_ACCUM_B200).
 *
 * A tensor core sums a block of w exact products and its accumulator input c in one multi-term adder:
 * every term is aligned to the largest raw exponent among them (products keep exp(a) + exp(b) even when
 * their significand is 2 or more; c counts too, zeros do not), truncated toward zero to F = 23 + neab
 * fraction bits below it (no sticky bit), the integers are summed exactly and the sum is normalised once and
 * truncated to binary32 (round toward zero; beyond the range: +-inf). A dot product over k is consecutive
 * blocks of w, zero-padded, each block's result the next block's c. Sources (docs/gemm.md): Fasi, Higham,
 * Mikaitis, Pranesh (PeerJ CS 2021) and its test suite; Khattak and Mikaitis (arXiv 2512.07004) and their
 * MATLAB models; the sf-tensor tcgen05 model of Blackwell. The parameters are a table, below.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <minifloat.h>
#include <minifloat/gemm.h>

#include "tc.h"

/* The instruction families, chosen by the input formats as on the GPU. */
enum { TCK_F16, TCK_BF16, TCK_TF32, TCK_FP8, TCK_F6F4 };

#define NO_CLAMP (-100000)

/* (GPU, family) -> block size w, extra alignment bits neab, fraction bits of a block's result, and the
 * floor of the alignment exponent (the MATLAB H100 model's -133; none elsewhere). FP8 on Ada and Hopper
 * keeps 13 fraction bits (neab = -10): the "fast accumulation" the DeepSeek-V3 report measured. B200 is
 * tcgen05.mma, FP8 truncated like the rest (its hardware words); B200's mma.sync rounds otherwise (docs/gemm.md). */
static const struct {
    mf_accum gpu;
    int kind, w, neab, out_frac, min_exp;
} TC_TABLE[] = {
    {MF_ACCUM_V100, TCK_F16, 4, 0, 23, NO_CLAMP},   {MF_ACCUM_A100, TCK_F16, 8, 1, 23, NO_CLAMP},
    {MF_ACCUM_A100, TCK_BF16, 8, 1, 23, NO_CLAMP},  {MF_ACCUM_A100, TCK_TF32, 4, 1, 23, NO_CLAMP},
    {MF_ACCUM_ADA, TCK_F16, 8, 1, 23, NO_CLAMP},    {MF_ACCUM_ADA, TCK_BF16, 8, 1, 23, NO_CLAMP},
    {MF_ACCUM_ADA, TCK_TF32, 4, 1, 23, NO_CLAMP},   {MF_ACCUM_ADA, TCK_FP8, 16, -10, 13, NO_CLAMP},
    {MF_ACCUM_H100, TCK_F16, 16, 2, 23, -133},      {MF_ACCUM_H100, TCK_BF16, 16, 2, 23, -133},
    {MF_ACCUM_H100, TCK_TF32, 8, 2, 23, -133},      {MF_ACCUM_H100, TCK_FP8, 32, -10, 13, -133},
    {MF_ACCUM_B200, TCK_F16, 16, 2, 23, NO_CLAMP},  {MF_ACCUM_B200, TCK_BF16, 16, 2, 23, NO_CLAMP},
    {MF_ACCUM_B200, TCK_TF32, 8, 2, 23, NO_CLAMP},  {MF_ACCUM_B200, TCK_FP8, 32, 2, 23, NO_CLAMP},
    {MF_ACCUM_B200, TCK_F6F4, 32, 2, 23, NO_CLAMP},
};

#define is_fp8 mf__is_fp8 /* minifloat/detail/format.h */
static int is_f6f4(mf_format f) { return f == MF_FP6_E2M3 || f == MF_FP6_E3M2 || f == MF_FP4_E2M1; }

int mf__tc_params(mf_accum gpu, mf_format fa, mf_format fb, mf__tc *p)
{
    int kind;
    if (fa == MF_FP16 && fb == MF_FP16)
        kind = TCK_F16;
    else if (fa == MF_BF16 && fb == MF_BF16)
        kind = TCK_BF16;
    else if (fa == MF_FP32 && fb == MF_FP32)
        kind = TCK_TF32;
    else if (is_fp8(fa) && is_fp8(fb))
        kind = TCK_FP8;
    else if ((is_fp8(fa) || is_f6f4(fa)) && (is_fp8(fb) || is_f6f4(fb)))
        kind = TCK_F6F4;
    else
        return 0;
    for (size_t q = 0; q < sizeof TC_TABLE / sizeof TC_TABLE[0]; q++)
        if (TC_TABLE[q].gpu == gpu && TC_TABLE[q].kind == kind) {
            p->w = TC_TABLE[q].w, p->frac = 23 + TC_TABLE[q].neab, p->out_frac = TC_TABLE[q].out_frac;
            p->min_exp = TC_TABLE[q].min_exp, p->tf32 = kind == TCK_TF32;
            return 1;
        }
    return 0;
}

/* A term of the multi-term adder: (-1)^neg * mag * 2^lsb, raw exponent rexp (significand in [0, 4)). */
typedef struct tc_term {
    int neg;
    uint64_t mag;
    int lsb, rexp;
} tc_term;

/* One element's raw encoding: sign, integer significand M (no implicit bit for subnormals) and raw exponent
 * (emin for subnormals), with t fraction bits: the value is (-1)^neg * M * 2^(r - t). */
void mf__tc_decode(mf_format f, uint32_t code, int tf32, mf__tc_elem *e)
{
    const mf__fmt d = mf__fmt_get(f);
    const uint32_t c = f == MF_FP32 && tf32 ? code & ~0x1FFFu : code; /* TF32: the low 13 bits are dropped */
    const uint32_t mag = c & (uint32_t)mf__fmt_mag_mask(d), ef = mag >> d.man, fr = mag & ((1u << d.man) - 1u);
    float v;
    e->neg = (int)(c >> (d.bits - 1)) & 1;
    e->t = d.man;
    e->m = ef ? fr | 1u << d.man : fr;
    e->r = (ef ? (int)ef : 1) - d.bias;
    v = mf_to_f32(f, c);
    e->cls = isnan(v) ? 2 : isinf(v) ? 1 : 0;
}

/* One block: c (binary32 bits, finite) plus n products of decoded elements; returns binary32 bits. */
static uint32_t tc_block(const mf__tc *P, const mf__tc_elem *a, const mf__tc_elem *b, size_t n, uint32_t c)
{
    tc_term t[65];
    size_t nt = 0;
    int emax = NO_CLAMP * 2, q, lead, e;
    int64_t s = 0;
    uint64_t mag;
    uint32_t out;
    for (size_t k = 0; k < n; k++) {
        if (!a[k].m || !b[k].m) /* a zero product takes no part */
            continue;
        t[nt].neg = a[k].neg ^ b[k].neg;
        t[nt].mag = (uint64_t)a[k].m * b[k].m;
        t[nt].rexp = a[k].r + b[k].r;
        t[nt].lsb = t[nt].rexp - a[k].t - b[k].t;
        if (t[nt].rexp > emax)
            emax = t[nt].rexp;
        nt++;
    }
    if (c & 0x7FFFFFFFu) { /* c in the window too, with its own exponent */
        const uint32_t ef = (c >> 23) & 0xFF;
        t[nt].neg = (int)(c >> 31);
        t[nt].mag = ef ? (c & 0x7FFFFF) | 0x800000 : c & 0x7FFFFF;
        t[nt].rexp = (ef ? (int)ef : 1) - 127;
        t[nt].lsb = t[nt].rexp - 23;
        if (t[nt].rexp > emax)
            emax = t[nt].rexp;
        nt++;
    }
    if (nt == 0)
        return 0; /* +0, whatever the sign of a zero c */
    if (emax < P->min_exp)
        emax = P->min_exp;
    q = emax - P->frac; /* the window's last bit */
    for (size_t k = 0; k < nt; k++) {
        const int sh = t[k].lsb - q;
        const uint64_t u = sh >= 0 ? t[k].mag << sh : -sh >= 64 ? 0 : t[k].mag >> -sh; /* truncate |term| */
        s += t[k].neg ? -(int64_t)u : (int64_t)u;
    }
    if (s == 0)
        return 0;
    mag = s < 0 ? (uint64_t)-s : (uint64_t)s;
    lead = 63 - mf__clz64(mag);
    e = lead + q; /* the value is in [2^e, 2^(e+1)) */
    if (e > 127)
        return (s < 0 ? 0x80000000u : 0) | 0x7F800000u;
    if (e >= -126) { /* normal: keep out_frac fraction bits, truncating; the rest of the field is zero */
        const int drop = lead - P->out_frac;
        const uint64_t kept = drop >= 0 ? mag >> drop : mag << -drop;
        out = (uint32_t)(e + 127) << 23 | (uint32_t)((kept & ((1u << P->out_frac) - 1u)) << (23 - P->out_frac));
    } else {                                  /* subnormal: out_frac bits below 2^-126 */
        const int sh = q + 126 + P->out_frac; /* mag * 2^sh in units of 2^-(126 + out_frac) */
        const uint64_t units = sh >= 0 ? mag << sh : -sh >= 64 ? 0 : mag >> -sh;
        out = (uint32_t)units << (23 - P->out_frac);
    }
    return (s < 0 ? 0x80000000u : 0) | out;
}

/* D = A(i, :) . B(:, j) + c through the model: blocks of w from p = 0, c the first block's input;
 * with promote > 0, the tensor core's sum restarts from +0 every promote products and each partial
 * sum is added to a binary32 accumulator (round to nearest), which starts from c. */
uint32_t mf__tc_dot(const mf__tc *P, const mf__tc_elem *a, const mf__tc_elem *b, size_t k, uint32_t c, size_t promote)
{
    int pinf = 0, ninf = 0;
    const float cf = mf_to_f32(MF_FP32, c);
    /* specials over the whole product: NaN, inf * 0, inf - inf give NaN; otherwise an inf wins */
    if (isnan(cf))
        return 0x7FFFFFFFu;
    if (isinf(cf)) {
        if (c >> 31)
            ninf = 1;
        else
            pinf = 1;
    }
    for (size_t p = 0; p < k; p++) {
        if (a[p].cls == 2 || b[p].cls == 2 || (a[p].cls == 1 && !b[p].m && b[p].cls == 0) ||
            (b[p].cls == 1 && !a[p].m && a[p].cls == 0))
            return 0x7FFFFFFFu;
        if ((a[p].cls == 1 || b[p].cls == 1) && (a[p].neg ^ b[p].neg))
            ninf = 1;
        else if (a[p].cls == 1 || b[p].cls == 1)
            pinf = 1;
    }
    if (pinf && ninf)
        return 0x7FFFFFFFu;
    if (pinf || ninf)
        return ninf ? 0xFF800000u : 0x7F800000u;
    if (promote == 0) {
        for (size_t p = 0; p < k; p += (size_t)P->w) {
            c = tc_block(P, a + p, b + p, k - p < (size_t)P->w ? k - p : (size_t)P->w, c);
            if ((c & 0x7FFFFFFFu) >= 0x7F800000u) /* an overflow: inf stays */
                return c;
        }
        return c;
    } else {
        float acc = cf;
        for (size_t p0 = 0; p0 < k; p0 += promote) {
            const size_t end = k - p0 < promote ? k : p0 + promote;
            uint32_t part = 0;
            for (size_t p = p0; p < end; p += (size_t)P->w) {
                part = tc_block(P, a + p, b + p, end - p < (size_t)P->w ? end - p : (size_t)P->w, part);
                if ((part & 0x7FFFFFFFu) >= 0x7F800000u)
                    break;
            }
            acc += mf_to_f32(MF_FP32, part);
        }
        return mf__f32_bits(acc);
    }
}
