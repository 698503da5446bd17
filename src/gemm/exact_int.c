/* SPDX-License-Identifier: MIT */
/* src/gemm/exact_int.c - MF_ACCUM_EXACT in integers for e2m1, e2m3 and e3m2 (exact_int.h): packing, the
 * portable micro-kernel (the law the vector kernels match), the chunked int64 accumulation and the threads.
 *
 * Every element of C is formed by one thread from the same packed operands, chunk after chunk in k order, and
 * integer addition is associative: the bits do not depend on the kernel or the thread count.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <minifloat.h>

#include "../internal.h"
#include "exact_int.h"
#include "tc.h" /* mf__gemm_code_at */

enum { MR = MF__XI_MR, NR = MF__XI_NR };

/* Chunks of k, in groups, after which each int32 lane is moved into int64. int8: a group adds 4 products
 * |a| * (b + off) <= 60 * 120 (off = max|b| <= 60), so 65536 groups stay below 65536 * 28800 < 2^31; int16: a
 * group adds 2 products <= 448 * 448, so 4096 groups stay below 4096 * 401408 < 2^31. MX: one 32-element block
 * per chunk. */
enum { CHUNK_I8 = 65536, CHUNK_I16 = 4096 };

/* A slivers a thread packs together (32 rows), so that each B sliver it reads from memory serves all of them */
enum { MS = 4 };

/* the integer form of a format: value * 2^sh (0 where there is none here) */
static int xi_shift(mf_format f) { return f == MF_FP4_E2M1 ? 1 : f == MF_FP6_E2M3 ? 3 : f == MF_FP6_E3M2 ? 4 : 0; }
static int xi_max(mf_format f) { return f == MF_FP4_E2M1 ? 12 : f == MF_FP6_E2M3 ? 60 : 448; }

int mf__xi_takes(mf_format fa, mf_format fb) { return xi_shift(fa) && xi_shift(fb); }

/* ---- the portable kernels ------------------------------------------------------------------------------ */

static void xi_i8_portable(size_t ng, size_t span, const void *a, const void *b, int32_t *c)
{
    const int8_t *ap = (const int8_t *)a;
    const uint8_t *bp = (const uint8_t *)b;
    int32_t acc[MR * NR];
    (void)span; /* int32 sums from the first product */
    memset(acc, 0, sizeof acc);
    for (size_t g = 0; g < ng; g++, ap += MR * 4, bp += NR * 4)
        for (int r = 0; r < MR; r++)
            for (int l = 0; l < NR; l++)
                acc[r * NR + l] += ap[r * 4] * bp[l * 4] + ap[r * 4 + 1] * bp[l * 4 + 1] +
                                   ap[r * 4 + 2] * bp[l * 4 + 2] + ap[r * 4 + 3] * bp[l * 4 + 3];
    memcpy(c, acc, sizeof acc);
}

static void xi_i16_portable(size_t ng, size_t span, const void *a, const void *b, int32_t *c)
{
    const int16_t *ap = (const int16_t *)a, *bp = (const int16_t *)b;
    int32_t acc[MR * NR];
    (void)span;
    memset(acc, 0, sizeof acc);
    for (size_t g = 0; g < ng; g++, ap += MR * 2, bp += NR * 2)
        for (int r = 0; r < MR; r++)
            for (int l = 0; l < NR; l++)
                acc[r * NR + l] += ap[r * 2] * bp[l * 2] + ap[r * 2 + 1] * bp[l * 2 + 1];
    memcpy(c, acc, sizeof acc);
}

static void xi_add_portable(int64_t *acc, const int32_t *c, const int64_t *corr, const int32_t *ea, const int32_t *eb)
{
    for (size_t r = 0; r < MR; r++)
        for (size_t l = 0; l < NR; l++)
            acc[r * NR + l] += (int64_t)((uint64_t)((int64_t)c[r * NR + l] - corr[r]) << (ea[r] + eb[l]));
}

/* MX blocks (exact_int.h) one at a time through the plain kernel; the caller's bound keeps every sum in int32 */
static void xi_mx_portable(mf__xi_fn fn, size_t gb, size_t nblk, size_t span, const void *a, const void *b,
                           int32_t *c, const int32_t *corr, const int32_t *sa, const int32_t *sb)
{
    int32_t s[MR * NR];
    memset(c, 0, sizeof s);
    for (size_t q = 0; q < nblk; q++) {
        fn(gb, span, (const unsigned char *)a + q * gb * MR * 4, (const unsigned char *)b + q * gb * NR * 4, s);
        for (size_t r = 0; r < MR; r++)
            for (size_t l = 0; l < NR; l++)
                c[r * NR + l] += (int32_t)((uint32_t)(s[r * NR + l] - corr[q * MR + r]) << (sa[q * MR + r] + sb[q * NR + l]));
    }
}

static void xi_mx8_portable(size_t nblk, size_t span, const void *a, const void *b, int32_t *c, const int32_t *corr,
                            const int32_t *sa, const int32_t *sb)
{
    xi_mx_portable(xi_i8_portable, MF__XI_MX_BLOCK / 4, nblk, span, a, b, c, corr, sa, sb);
}

static void xi_mx16_portable(size_t nblk, size_t span, const void *a, const void *b, int32_t *c, const int32_t *corr,
                             const int32_t *sa, const int32_t *sb)
{
    xi_mx_portable(xi_i16_portable, MF__XI_MX_BLOCK / 2, nblk, span, a, b, c, corr, sa, sb);
}

static void xi_wide_portable(size_t nq, const int32_t *a, const int32_t *b, const int32_t *ea, const int32_t *eb,
                             int64_t *hi, uint64_t *lo)
{
    mf__xi_wide_row(nq, a, b, ea, eb, hi, lo);
}

const mf__xi_kernel mf__xi_kernel_portable = {"portable",      xi_i8_portable,  xi_i16_portable, xi_add_portable,
                                              xi_mx8_portable, xi_mx16_portable, xi_wide_portable};

#if MF_HAVE_BACKEND_avx512
#include "../x86/cpuid.h"
static int have_vnni(void)
{
    static int known; /* 0: not asked yet, 1: no, 2: yes (cpuid can trap to a hypervisor: asked once) */
    int v = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (!v) {
        v = mf__x86_features() & MF__X86_AVX512VNNI ? 2 : 1;
        __atomic_store_n(&known, v, __ATOMIC_RELAXED);
    }
    return v == 2;
}
#endif

/* THE TABLE: the kernels each backend runs, best first (the first whose CPU test passes is taken); a backend not
 * listed takes its parent's. The AVX-512 backends' CPUs without VNNI run AVX2's kernel. */
static const struct {
    const mf__backend *backend;
    const mf__xi_kernel *k;
    int vnni; /* needs AVX512_VNNI */
} XI_KERNELS[] = {
#if MF_HAVE_BACKEND_avx512
    {&mf__backend_avx512, &mf__xi_kernel_avx512vnni, 1},
#if MF_HAVE_BACKEND_avx2
    {&mf__backend_avx512, &mf__xi_kernel_avx2, 0},
#endif
#endif
#if MF_HAVE_BACKEND_avx2
    {&mf__backend_avx2, &mf__xi_kernel_avx2, 0},
#endif
    {&mf__backend_portable, &mf__xi_kernel_portable, 0},
};
#define N_XI_KERNELS (sizeof XI_KERNELS / sizeof XI_KERNELS[0])

static int xi_runs(size_t q)
{
#if MF_HAVE_BACKEND_avx512
    if (XI_KERNELS[q].vnni && !have_vnni())
        return 0;
#endif
    return mf__backend_supported(XI_KERNELS[q].backend);
}

const mf__xi_kernel *mf__xi_kernel_at(size_t i)
{
    for (size_t q = 0; q < N_XI_KERNELS; q++) {
        size_t e = 0;
        while (e < q && !(XI_KERNELS[e].k == XI_KERNELS[q].k && xi_runs(e))) /* each kernel once */
            e++;
        if (e == q && xi_runs(q) && i-- == 0)
            return XI_KERNELS[q].k;
    }
    return NULL;
}

/* The kernel for this process's backend (or the nearest parent in the table). */
static const mf__xi_kernel *xi_pick(void)
{
    for (const mf__backend *p = mf__backend_active(); p; p = p->parent)
        for (size_t q = 0; q < N_XI_KERNELS; q++)
            if (XI_KERNELS[q].backend == p && xi_runs(q))
                return XI_KERNELS[q].k;
    return &mf__xi_kernel_portable;
}

/* ---- one call ------------------------------------------------------------------------------------------- */

typedef struct xi_run {
    const mf__xi_call *c;
    mf__xi_fn fn;
    mf__xi_add_fn add;
    mf__xi_mx_fn mx;        /* MX in chunks of blocks (NULL: one block a chunk, through fn and add) */
    int i8;                 /* int8 operands (G = 4), else int16 (G = 2) */
    size_t G, esz, kg;      /* group size, element bytes, groups over k (k padded with zeros) */
    size_t span;            /* int8: the kernels' bound on 16-bit sums, in groups (exact_int.h) */
    int off;                /* int8: B's offset, the largest |b| */
    size_t chg, nch;        /* groups per chunk, chunks */
    size_t nbk, gb;         /* MX: blocks of 32 along k (0: no block scales), groups per block */
    int amin, bmin;         /* MX: the least block exponent of A and of B */
    int32_t *eb;            /* MX: B's exponents above bmin per sliver, block and column (0 past n) */
    int exp;                /* the result's exponent: amin + bmin - sh_a - sh_b */
    int16_t lut_a[64], lut_b[64];
    unsigned char *bp;      /* packed B: slivers of NR columns */
    size_t bsl;             /* bytes per sliver of B */
    size_t nsa, nsb;        /* slivers of A and B */
    size_t asl;             /* bytes of a packed A sliver (a multiple of 8) */
    size_t ms, nba;         /* A slivers per block, blocks of A (the threads' shares) */
    int wide;               /* NVFP4: int32 integers at each 16-block's exponent, 128-bit sums (wfn) */
    mf__xi_wide_fn wfn;
    size_t nq;              /* wide: blocks of 16 along k */
    int emin_a, emin_b;     /* wide: the least block exponent (of a nonzero scale) of A and of B */
} xi_run;

/* count integers of op(X)'s elements from array index idx on, step apart, into out */
static void xi_decode(int16_t *out, const mf__xi_side *s, const int16_t *lut, size_t idx, size_t step, size_t count)
{
    const unsigned char *b = (const unsigned char *)s->base;
    size_t q = 0;
    if (s->fmt != MF_FP4_E2M1) {
        for (; q < count; q++, idx += step)
            out[q] = lut[b[idx] & 0x3F];
        return;
    }
    if (step == 1) { /* two a byte: the odd start alone, then whole bytes */
        if (idx & 1 && count)
            out[q++] = lut[b[idx / 2] >> 4], idx++;
        for (; q + 1 < count; q += 2, idx += 2) {
            const unsigned v = b[idx / 2];
            out[q] = lut[v & 0xF], out[q + 1] = lut[v >> 4];
        }
    }
    for (; q < count; q++, idx += step)
        out[q] = lut[(b[idx / 2] >> (4 * (idx & 1))) & 0xF];
}

/* B's sliver t (columns NR t ...): groups of G per column; int8: value + off as a byte. Row p of the sliver is
 * a run of op(B)'s row p (contiguous for a row-major B). */
static void pack_b(const xi_run *x, size_t t)
{
    const mf__xi_call *c = x->c;
    const size_t j0 = t * NR, G = x->G, cols = c->n - j0 < NR ? c->n - j0 : NR;
    unsigned char *out = x->bp + t * x->bsl;
    int16_t row[NR];
    for (size_t p = 0; p < x->kg * G; p++) {
        const size_t g = p / G, q = p % G;
        if (p < c->k)
            xi_decode(row, &c->b, x->lut_b, j0 * c->b.ls + p * c->b.ks, c->b.ls, cols);
        for (size_t l = p < c->k ? cols : 0; l < NR; l++)
            row[l] = 0;
        if (x->i8)
            for (size_t l = 0; l < NR; l++)
                out[(g * NR + l) * G + q] = (unsigned char)(row[l] + x->off);
        else
            for (size_t l = 0; l < NR; l++)
                ((int16_t *)out)[(g * NR + l) * G + q] = row[l];
    }
    if (x->nbk) /* its MX exponents, in the order the sliver's chunks use them */
        for (size_t ch = 0; ch < x->nbk; ch++)
            for (size_t l = 0; l < NR; l++)
                x->eb[(t * x->nbk + ch) * NR + l] = l < cols ? c->b.bexp[(j0 + l) * x->nbk + ch] - x->bmin : 0;
}

/* A's sliver s (rows MR s ...) into ap; int8: the rows' sums per chunk (MX: per block) into asum[r * nsum + q].
 * line: k + G integers of scratch. */
static void pack_a(const xi_run *x, size_t s, unsigned char *ap, int64_t *asum, int16_t *line)
{
    const mf__xi_call *c = x->c;
    const size_t i0 = s * MR, G = x->G, kp = x->kg * G;
    for (size_t r = 0; r < MR; r++) {
        if (i0 + r < c->m)
            xi_decode(line, &c->a, x->lut_a, (i0 + r) * c->a.ls, c->a.ks, c->k);
        for (size_t p = i0 + r < c->m ? c->k : 0; p < kp; p++)
            line[p] = 0;
        if (x->i8) {
            int8_t *o = (int8_t *)ap + r * 4;
            for (size_t g = 0; g < x->kg; g++, o += MR * 4)
                o[0] = (int8_t)line[4 * g], o[1] = (int8_t)line[4 * g + 1], o[2] = (int8_t)line[4 * g + 2],
                o[3] = (int8_t)line[4 * g + 3];
            const size_t nsum = x->nbk ? x->nbk : x->nch, len = x->nbk ? MF__XI_MX_BLOCK : x->chg * 4;
            for (size_t q = 0; q < nsum; q++) {
                const size_t p0 = q * len, p1 = p0 + len < kp ? p0 + len : kp;
                int64_t sum = 0;
                for (size_t p = p0; p < p1; p++)
                    sum += line[p];
                asum[r * nsum + q] = sum;
            }
        } else {
            int16_t *o = (int16_t *)ap + r * 2;
            for (size_t g = 0; g < x->kg; g++, o += MR * 2)
                o[0] = line[2 * g], o[1] = line[2 * g + 1];
        }
    }
}

/* A sliver's buffer: packed A (asl bytes), then its sums (int64 per row and chunk, MX: per block), then MX: each block's
 * offset share and exponent above amin per row (int32). */
static int64_t *sl_sum(const xi_run *x, unsigned char *buf) { return (int64_t *)(void *)(buf + x->asl); }
static int32_t *sl_mx(const xi_run *x, unsigned char *buf)
{
    return (int32_t *)(void *)(buf + x->asl + sizeof(int64_t) * MR * (x->nbk ? x->nbk : x->nch));
}
static size_t sl_bytes(const xi_run *x)
{
    return x->asl + sizeof(int64_t) * MR * (x->nbk ? x->nbk : x->nch) + sizeof(int32_t) * 2 * x->nbk * MR;
}

/* A's sliver s into its buffer; line: k + G integers of scratch */
static void sliver_prep(const xi_run *x, size_t s, unsigned char *buf, int16_t *line)
{
    const mf__xi_call *c = x->c;
    const size_t i0 = s * MR, rows = c->m - i0 < MR ? c->m - i0 : MR, nbk = x->nbk;
    const int64_t *asum = sl_sum(x, buf);
    int32_t *mxa = sl_mx(x, buf), *mxs = mxa + nbk * MR;
    pack_a(x, s, buf, sl_sum(x, buf), line);
    for (size_t q = 0; q < nbk; q++)
        for (size_t r = 0; r < MR; r++) { /* rows past m: zeros in A, so asum is 0 */
            mxa[q * MR + r] = x->i8 ? (int32_t)(x->off * asum[r * nbk + q]) : 0; /* |.| <= 60 * 32 * 60 */
            mxs[q * MR + r] = r < rows ? c->a.bexp[(i0 + r) * nbk + q] - x->amin : 0;
        }
}

/* The tile of A's sliver s (prepared in buf) and B's sliver t: int32 chunk sums into int64, then emitted. */
static void tile_run(const xi_run *x, size_t s, size_t t, unsigned char *buf, mf_stats *st)
{
    const mf__xi_call *c = x->c;
    const size_t i0 = s * MR, rows = c->m - i0 < MR ? c->m - i0 : MR, nbk = x->nbk;
    const size_t j0 = t * NR, cols = c->n - j0 < NR ? c->n - j0 : NR;
    const size_t ga = MR * x->G * x->esz, gbb = NR * x->G * x->esz; /* bytes per group of A, of B */
    const unsigned char *ap = buf, *bp = x->bp + t * x->bsl;
    const int64_t *asum = sl_sum(x, buf);
    const int32_t *mxa = sl_mx(x, buf), *mxs = mxa + nbk * MR;
    static const int32_t zeros[NR];
    static const int64_t zeros64[MR];
    int32_t t32[MR * NR];
    int64_t acc[MR * NR], corr[MR];
    memset(acc, 0, sizeof acc);
    for (size_t ch = 0; ch < x->nch; ch++) {
        const size_t g0 = ch * x->chg, ng = x->kg - g0 < x->chg ? x->kg - g0 : x->chg;
        if (x->mx) { /* blocks g0 / gb on, their exponents applied in int32 */
            const size_t q0 = g0 / x->gb;
            x->mx(ng / x->gb, x->span, ap + g0 * ga, bp + g0 * gbb, t32, mxa + q0 * MR, mxs + q0 * MR,
                  x->eb + (t * nbk + q0) * NR);
            x->add(acc, t32, zeros64, zeros, zeros);
            continue;
        }
        x->fn(ng, x->span, ap + g0 * ga, bp + g0 * gbb, t32);
        for (size_t r = 0; r < MR; r++)
            corr[r] = nbk ? mxa[ch * MR + r] : x->i8 ? (int64_t)x->off * asum[r * x->nch + ch] : 0;
        x->add(acc, t32, corr, nbk ? mxs + ch * MR : zeros, nbk ? x->eb + (t * nbk + ch) * NR : zeros);
    }
    for (size_t r = 0; r < rows; r++)
        c->emit(c->ctx, i0 + r, j0, cols, acc + r * NR, x->exp, st);
}

/* A's block u (slivers ms u ...) against all of B: each B sliver, read from memory once, serves every A sliver of
 * the block from L2. buf: ms sliver buffers, then the line. */
static void rows_block(const xi_run *x, size_t u, unsigned char *buf, mf_stats *st)
{
    const size_t s0 = u * x->ms, ns = x->nsa - s0 < x->ms ? x->nsa - s0 : x->ms, slb = sl_bytes(x);
    int16_t *line = (int16_t *)(void *)(buf + x->ms * slb);
    for (size_t q = 0; q < ns; q++)
        sliver_prep(x, s0 + q, buf + q * slb, line);
    for (size_t t = 0; t < x->nsb; t++)
        for (size_t q = 0; q < ns; q++)
            tile_run(x, s0 + q, t, buf + q * slb, st);
}

/* ---- the wide mode: NVFP4 ------------------------------------------------------------------------------------
 * An NVFP4 element is v = RN(x * s), x = sigma / 2 an e2m1 value and s = m * 2^e its block's binary32 scale
 * (m < 2^24, e >= -149). x * s = sigma * m * 2^(e - 1), and rounding that to 24 bits keeps a multiple of 2^(e - 1);
 * v is subnormal only where e = -149, and then 2^-149's grid is a multiple of 2^(e - 1) too. So v = I * 2^(e - 1)
 * with I an integer, |I| <= 12 m + 8 < 2^28. A side without block scales is its integers at 2^-sh. Each block's
 * dot product is an int64 sum of 16 products below 2^56, at the two blocks' exponents: mf__xi_wide_row's sums. */

/* the exponent of an NVFP4 block's integers: e - 1 for its scale s = m * 2^e */
static int nv_exp(float s)
{
    uint32_t bits;
    memcpy(&bits, &s, 4);
    return ((bits >> 23 & 0xFF) ? (int)(bits >> 23 & 0xFF) : 1) - 151;
}

/* line t of side sd into out[k] (its integers) and ex[nq] (each block's exponent less emin; 0 for a zero scale,
 * whose integers are 0); tmp: k int16 of scratch */
static void wide_line(const xi_run *x, const mf__xi_side *sd, const int16_t *lut, int sh, int emin, size_t t,
                      int16_t *tmp, int32_t *out, int32_t *ex)
{
    const size_t k = x->c->k, nq = x->nq, L = MF__XI_NV_BLOCK;
    xi_decode(tmp, sd, lut, t * sd->ls, sd->ks, k);
    for (size_t q = 0; q < nq; q++) {
        if (!sd->nvs) {
            for (size_t p = q * L; p < q * L + L; p++)
                out[p] = tmp[p];
            ex[q] = -sh - emin;
            continue;
        }
        const float sc = sd->nvs[t * nq + q];
        const int e = nv_exp(sc);
        for (size_t p = q * L; p < q * L + L; p++) /* the scaling API's binary32 product (default environment) */
            out[p] = (int32_t)ldexp((double)(ldexpf((float)tmp[p], -sh) * sc), -e);
        ex[q] = sc == 0.0f ? 0 : e - emin;
    }
}

/* B's sliver t: k rows of NR integers, and its exponents */
static void pack_b_wide(const xi_run *x, size_t t, int16_t *tmp, int32_t *line, int32_t *ex)
{
    const mf__xi_call *c = x->c;
    const size_t j0 = t * NR, cols = c->n - j0 < NR ? c->n - j0 : NR, k = c->k;
    int32_t *out = (int32_t *)(void *)(x->bp + t * x->bsl);
    for (size_t l = 0; l < NR; l++) {
        if (l < cols)
            wide_line(x, &c->b, x->lut_b, xi_shift(c->b.fmt), x->emin_b, j0 + l, tmp, line, ex);
        for (size_t p = 0; p < k; p++)
            out[p * NR + l] = l < cols ? line[p] : 0;
        for (size_t q = 0; q < x->nq; q++)
            x->eb[(t * x->nq + q) * NR + l] = l < cols ? ex[q] : 0;
    }
}

/* A's block u of rows against all of B, as rows_block; buf: ms * MR lines of k + nq int32, then k int16 */
static void rows_block_wide(const xi_run *x, size_t u, unsigned char *buf, mf_stats *st)
{
    const mf__xi_call *c = x->c;
    const size_t i0 = u * x->ms * MR, k = c->k, nq = x->nq, w = k + nq;
    const size_t rows = c->m - i0 < x->ms * MR ? c->m - i0 : x->ms * MR;
    int32_t *ln = (int32_t *)(void *)buf;
    int16_t *tmp = (int16_t *)(void *)(ln + x->ms * MR * w);
    int64_t hi[NR];
    uint64_t lo[NR];
    for (size_t r = 0; r < rows; r++)
        wide_line(x, &c->a, x->lut_a, xi_shift(c->a.fmt), x->emin_a, i0 + r, tmp, ln + r * w, ln + r * w + k);
    for (size_t t = 0; t < x->nsb; t++) {
        const size_t j0 = t * NR, cols = c->n - j0 < NR ? c->n - j0 : NR;
        const int32_t *bp = (const int32_t *)(const void *)(x->bp + t * x->bsl), *eb = x->eb + t * nq * NR;
        for (size_t r = 0; r < rows; r++) {
            x->wfn(nq, ln + r * w, bp, ln + r * w + k, eb, hi, lo);
            c->emit_wide(c->ctx, i0 + r, j0, cols, hi, lo, x->exp, st);
        }
    }
}

/* The wide mode's setup: the scales' exponents, and whether every value and sum stays in its bounds (else
 * declined: a scale NaN or infinite, or 6 s beyond binary32; exponents spread too far for 128 bits). */
static int wide_setup(xi_run *x)
{
    const mf__xi_call *c = x->c;
    int lo[2], hi[2];
    x->nq = c->k / MF__XI_NV_BLOCK;
    for (int side = 0; side < 2; side++) {
        const mf__xi_side *sd = side ? &c->b : &c->a;
        const size_t lines = side ? c->n : c->m;
        lo[side] = INT32_MAX, hi[side] = INT32_MIN;
        if (!sd->nvs) {
            lo[side] = hi[side] = -xi_shift(sd->fmt);
            continue;
        }
        for (size_t q = 0; q < lines * x->nq; q++) {
            const float sc = sd->nvs[q];
            if (!(fabsf(6.0f * sc) <= 0x1.fffffep127f)) /* NaN, inf, or a value beyond binary32 */
                return 0;
            if (sc != 0.0f)
                lo[side] = nv_exp(sc) < lo[side] ? nv_exp(sc) : lo[side], hi[side] = nv_exp(sc) > hi[side] ? nv_exp(sc) : hi[side];
        }
        if (lo[side] > hi[side]) /* every scale zero */
            lo[side] = hi[side] = 0;
    }
    x->emin_a = lo[0], x->emin_b = lo[1];
    x->exp = lo[0] + lo[1];
    /* a block's sum is below 2^60, shifted by at most the spread D, nq of them: 60 + D + log2(nq) < 126 */
    {
        const int spread = hi[0] - lo[0] + hi[1] - lo[1];
        return spread < 64 && ldexp((double)x->nq, 60 + spread) < 0x1p126;
    }
}

typedef struct xi_member {
    mf_stats st;
    size_t taken; /* slivers this member took (and so did) */
    int rc;
} xi_member;

/* one phase of the work for the thread team (team.c): 0 packs B's slivers, 1 runs A's rows */
typedef struct xi_phase_ctx {
    xi_run *x;
    xi_member *mem;
    int phase;
} xi_phase_ctx;

static void xi_member_run(mf__team *tm, size_t id, void *ctx)
{
    const xi_phase_ctx *pc = (const xi_phase_ctx *)ctx;
    xi_run *x = pc->x;
    xi_member *me = &pc->mem[id];
    if (pc->phase == 0 && x->wide) {
        const size_t k = x->c->k;
        unsigned char *scr = (unsigned char *)malloc(sizeof(int32_t) * (k + x->nq) + sizeof(int16_t) * k);
        if (!scr) { /* the others take the work */
            me->rc = MF_E_NOMEM;
            return;
        }
        for (size_t t; (t = mf__team_take(tm, x->nsb)) != SIZE_MAX; me->taken++)
            pack_b_wide(x, t, (int16_t *)(void *)(scr + sizeof(int32_t) * (k + x->nq)), (int32_t *)(void *)scr,
                        (int32_t *)(void *)scr + k);
        free(scr);
        return;
    }
    if (pc->phase == 0) {
        for (size_t t; (t = mf__team_take(tm, x->nsb)) != SIZE_MAX; me->taken++)
            pack_b(x, t);
        return;
    }
    if (x->wide) {
        unsigned char *buf = (unsigned char *)malloc(sizeof(int32_t) * x->ms * MR * (x->c->k + x->nq) +
                                                     sizeof(int16_t) * x->c->k);
        if (!buf) {
            me->rc = MF_E_NOMEM;
            return;
        }
        for (size_t u; (u = mf__team_take(tm, x->nba)) != SIZE_MAX; me->taken++)
            rows_block_wide(x, u, buf, x->c->st ? &me->st : NULL);
        free(buf);
        return;
    }
    {
        unsigned char *buf = (unsigned char *)malloc(x->ms * sl_bytes(x) + sizeof(int16_t) * x->kg * x->G);
        if (!buf) { /* the others take the work */
            me->rc = MF_E_NOMEM;
            return;
        }
        for (size_t u; (u = mf__team_take(tm, x->nba)) != SIZE_MAX; me->taken++)
            rows_block(x, u, buf, x->c->st ? &me->st : NULL);
        free(buf);
    }
}

/* run the phase on up to nt threads (this one included); returns 0 when some of its slivers were taken by no
 * member (phase 1: no member had memory for its A sliver) */
static int xi_phase(xi_run *x, int phase, xi_member *mem, size_t nt)
{
    xi_phase_ctx pc;
    size_t taken = 0;
    pc.x = x, pc.mem = mem, pc.phase = phase;
    for (size_t t = 0; t < nt; t++)
        mem[t].taken = 0, mem[t].rc = MF_OK;
    nt = mf__team_run(nt, xi_member_run, &pc);
    for (size_t t = 0; t < nt; t++)
        taken += mem[t].taken;
    return taken >= (phase ? x->nba : x->nsb);
}

int mf__xi_run(const mf__xi_call *c)
{
    xi_run x;
    xi_member mem[MF__TEAM_MAX];
    const mf__xi_kernel *kr = c->kernel ? c->kernel : xi_pick();
    const int sha = xi_shift(c->a.fmt), shb = xi_shift(c->b.fmt);
    size_t nt = c->threads > 1 ? (size_t)c->threads : 1;
    double bound;

    if (!sha || !shb || !c->m || !c->n || !c->k || (!c->a.bexp) != (!c->b.bexp) ||
        ((c->a.nvs || c->b.nvs) && (c->a.bexp || c->k % MF__XI_NV_BLOCK)))
        return MF__XI_DECLINED;
    memset(&x, 0, sizeof x);
    x.c = c;
    x.wide = c->a.nvs || c->b.nvs;
    x.wfn = kr->wide ? kr->wide : xi_wide_portable;
    if (x.wide && !wide_setup(&x))
        return MF__XI_DECLINED;
    x.i8 = c->a.fmt != MF_FP6_E3M2 && c->b.fmt != MF_FP6_E3M2; /* |v| <= 60 fits a signed byte, + off a byte */
    x.G = x.i8 ? 4 : 2, x.esz = x.i8 ? 1 : 2;
    x.fn = x.i8 ? kr->i8 : kr->i16, x.add = kr->add ? kr->add : xi_add_portable;
    x.kg = (c->k + x.G - 1) / x.G;
    /* b + off is in [0, 2 max|b|], so a pair sum of the int8 kernels is at most 4 max|a| max|b| (<= 14400) */
    x.off = x.i8 ? xi_max(c->b.fmt) : 0;
    x.span = x.i8 ? 32767 / (4 * (size_t)xi_max(c->a.fmt) * (size_t)xi_max(c->b.fmt)) : 0;
    /* |V| <= k * max|a| * max|b| * 2^spread (MX) must stay below 2^62 in int64 */
    bound = (double)c->k * xi_max(c->a.fmt) * xi_max(c->b.fmt);
    if (c->a.bexp) {
        int amin = INT16_MAX, amax = INT16_MIN, bmin = INT16_MAX, bmax = INT16_MIN;
        if (c->k % MF__XI_MX_BLOCK)
            return MF__XI_DECLINED;
        x.nbk = c->k / MF__XI_MX_BLOCK;
        for (size_t q = 0; q < c->m * x.nbk; q++)
            amin = c->a.bexp[q] < amin ? c->a.bexp[q] : amin, amax = c->a.bexp[q] > amax ? c->a.bexp[q] : amax;
        for (size_t q = 0; q < c->n * x.nbk; q++)
            bmin = c->b.bexp[q] < bmin ? c->b.bexp[q] : bmin, bmax = c->b.bexp[q] > bmax ? c->b.bexp[q] : bmax;
        x.amin = amin, x.bmin = bmin;
        bound = ldexp(bound, amax + bmax - amin - bmin);
        x.gb = MF__XI_MX_BLOCK / x.G;
        x.chg = x.gb, x.nch = x.nbk;
        /* chunks of nb blocks summed in int32 by the MX kernel: a block's sum is at most 32 max|a| max|b| times
         * 2^spread, and so is a partial one that holds the offset share of all its block, since that share is
         * off = max|b| times the sum of the a not yet multiplied */
        {
            const double blk = ldexp((double)MF__XI_MX_BLOCK * xi_max(c->a.fmt) * xi_max(c->b.fmt), amax + bmax - amin - bmin);
            const double nb = floor((0x1p31 - 1) / blk);
            x.mx = nb >= 1.0 ? x.i8 ? kr->mx8 : kr->mx16 : NULL;
            if (x.mx) {
                const size_t nbs = nb < (double)x.nbk ? (size_t)nb : x.nbk;
                x.chg = nbs * x.gb, x.nch = (x.nbk + nbs - 1) / nbs;
            }
        }
    } else {
        x.chg = x.i8 ? CHUNK_I8 : CHUNK_I16;
        x.nch = (x.kg + x.chg - 1) / x.chg;
    }
    if (!(bound < 0x1p62))
        return MF__XI_DECLINED;
    if (!x.wide)
        x.exp = x.amin + x.bmin - sha - shb;
    for (uint32_t q = 0; q < 64; q++) { /* every code's value * 2^sh, an integer (e2m1: 16 codes, FP6: 64) */
        x.lut_a[q] = (int16_t)ldexpf(mf_to_f32(c->a.fmt, c->a.fmt == MF_FP4_E2M1 ? q & 0xF : q), sha);
        x.lut_b[q] = (int16_t)ldexpf(mf_to_f32(c->b.fmt, c->b.fmt == MF_FP4_E2M1 ? q & 0xF : q), shb);
    }
    x.nsa = (c->m + MR - 1) / MR, x.nsb = (c->n + NR - 1) / NR;
    x.bsl = x.wide ? sizeof(int32_t) * c->k * NR : x.kg * NR * x.G * x.esz;
    x.bp = (unsigned char *)malloc(x.bsl * x.nsb + sizeof(int32_t) * x.nsb * (x.wide ? x.nq : x.nbk) * NR);
    if (!x.bp)
        return MF_E_NOMEM;
    x.eb = (int32_t *)(void *)(x.bp + x.bsl * x.nsb); /* bsl: a multiple of 128 bytes */
    if (nt > MF__TEAM_MAX)
        nt = MF__TEAM_MAX;
    /* blocks of up to MS slivers, but at least two blocks per thread where there are that many slivers */
    x.ms = x.nsa / (2 * nt) < MS ? x.nsa / (2 * nt) : MS;
    x.ms = x.ms ? x.ms : 1;
    x.nba = (x.nsa + x.ms - 1) / x.ms;
    x.asl = (x.kg * MR * x.G * x.esz + 7) / 8 * 8;
    if (nt > x.nba)
        nt = x.nba;
    memset(mem, 0, sizeof mem[0] * nt);
    /* a member without memory for its scratch leaves the work to the others; if none had any, B is not complete
     * (phase 0, nothing emitted yet) or no block of A was taken (phase 1: nothing emitted) */
    if (!xi_phase(&x, 0, mem, nt) || !xi_phase(&x, 1, mem, nt)) {
        free(x.bp);
        return MF_E_NOMEM;
    }
    free(x.bp);
    if (c->st)
        for (size_t t = 0; t < nt; t++) {
            c->st->overflow += mem[t].st.overflow, c->st->underflow += mem[t].st.underflow;
            c->st->subnormal += mem[t].st.subnormal, c->st->nan += mem[t].st.nan, c->st->inexact += mem[t].st.inexact;
        }
    return MF_OK;
}
