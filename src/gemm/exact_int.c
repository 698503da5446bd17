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
 * |a| * (b + 64) <= 60 * 124, so 65536 groups stay below 65536 * 29760 < 2^31; int16: a group adds 2 products
 * <= 448 * 448, so 4096 groups stay below 4096 * 401408 < 2^31. MX: one 32-element block per chunk. */
enum { CHUNK_I8 = 65536, CHUNK_I16 = 4096 };

/* the integer form of a format: value * 2^sh (0 where there is none here) */
static int xi_shift(mf_format f) { return f == MF_FP4_E2M1 ? 1 : f == MF_FP6_E2M3 ? 3 : f == MF_FP6_E3M2 ? 4 : 0; }
static int xi_max(mf_format f) { return f == MF_FP4_E2M1 ? 12 : f == MF_FP6_E2M3 ? 60 : 448; }

int mf__xi_takes(mf_format fa, mf_format fb) { return xi_shift(fa) && xi_shift(fb); }

/* ---- the portable kernels ------------------------------------------------------------------------------ */

static void xi_i8_portable(size_t ng, const void *a, const void *b, int32_t *c)
{
    const int8_t *ap = (const int8_t *)a;
    const uint8_t *bp = (const uint8_t *)b;
    int32_t acc[MR * NR];
    memset(acc, 0, sizeof acc);
    for (size_t g = 0; g < ng; g++, ap += MR * 4, bp += NR * 4)
        for (int r = 0; r < MR; r++)
            for (int l = 0; l < NR; l++)
                acc[r * NR + l] += ap[r * 4] * bp[l * 4] + ap[r * 4 + 1] * bp[l * 4 + 1] +
                                   ap[r * 4 + 2] * bp[l * 4 + 2] + ap[r * 4 + 3] * bp[l * 4 + 3];
    memcpy(c, acc, sizeof acc);
}

static void xi_i16_portable(size_t ng, const void *a, const void *b, int32_t *c)
{
    const int16_t *ap = (const int16_t *)a, *bp = (const int16_t *)b;
    int32_t acc[MR * NR];
    memset(acc, 0, sizeof acc);
    for (size_t g = 0; g < ng; g++, ap += MR * 2, bp += NR * 2)
        for (int r = 0; r < MR; r++)
            for (int l = 0; l < NR; l++)
                acc[r * NR + l] += ap[r * 2] * bp[l * 2] + ap[r * 2 + 1] * bp[l * 2 + 1];
    memcpy(c, acc, sizeof acc);
}

const mf__xi_kernel mf__xi_kernel_portable = {"portable", xi_i8_portable, xi_i16_portable};

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

const mf__xi_kernel *mf__xi_kernel_at(size_t i)
{
#if MF_HAVE_BACKEND_avx512
    if (have_vnni()) {
        if (i == 0)
            return &mf__xi_kernel_avx512vnni;
        i--;
    }
#endif
    return i == 0 ? &mf__xi_kernel_portable : NULL;
}

/* The kernel for this process's backend: VNNI under the AVX-512 backends where the CPU has it. */
static const mf__xi_kernel *xi_pick(void)
{
#if MF_HAVE_BACKEND_avx512
    const mf__backend *bk = mf__backend_active();
    for (const mf__backend *p = bk; p; p = p->parent)
        if (p == &mf__backend_avx512)
            return have_vnni() ? &mf__xi_kernel_avx512vnni : &mf__xi_kernel_portable;
#endif
    return &mf__xi_kernel_portable;
}

/* ---- one call ------------------------------------------------------------------------------------------- */

typedef struct xi_run {
    const mf__xi_call *c;
    mf__xi_fn fn;
    int i8;                 /* int8 operands (G = 4), else int16 (G = 2) */
    size_t G, esz, kg;      /* group size, element bytes, groups over k (k padded with zeros) */
    size_t chg, nch;        /* groups per chunk, chunks */
    size_t nbk;             /* MX: blocks of 32 along k (0: no block scales) */
    int emin;               /* MX: the least sum of two block exponents */
    int exp;                /* the result's exponent: emin - sh_a - sh_b */
    int16_t lut_a[64], lut_b[64];
    unsigned char *bp;      /* packed B: slivers of NR columns */
    size_t bsl;             /* bytes per sliver of B */
    size_t nsa, nsb;        /* slivers of A and B */
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

/* B's sliver t (columns NR t ...): groups of G per column; int8: value + 64 as a byte. Row p of the sliver is
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
                out[(g * NR + l) * G + q] = (unsigned char)(row[l] + MF__XI_B_OFFSET);
        else
            for (size_t l = 0; l < NR; l++)
                ((int16_t *)out)[(g * NR + l) * G + q] = row[l];
    }
}

/* A's sliver s (rows MR s ...) into ap; int8: the rows' sums per chunk into asum[r * nch + chunk]. line: k + G
 * integers of scratch. */
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
            for (size_t ch = 0; ch < x->nch; ch++) {
                const size_t p0 = ch * x->chg * 4, p1 = p0 + x->chg * 4 < kp ? p0 + x->chg * 4 : kp;
                int64_t sum = 0;
                for (size_t p = p0; p < p1; p++)
                    sum += line[p];
                asum[r * x->nch + ch] = sum;
            }
        } else {
            int16_t *o = (int16_t *)ap + r * 2;
            for (size_t g = 0; g < x->kg; g++, o += MR * 2)
                o[0] = line[2 * g], o[1] = line[2 * g + 1];
        }
    }
}

/* One sliver of A against all of B: the tiles' int32 chunk sums into int64, then emitted. */
static void rows_sliver(xi_run *x, size_t s, unsigned char *ap, int64_t *asum, int16_t *line, mf_stats *st)
{
    const mf__xi_call *c = x->c;
    const size_t i0 = s * MR, rows = c->m - i0 < MR ? c->m - i0 : MR;
    const size_t bsl = x->bsl;
    int32_t t32[MR * NR];
    int64_t acc[MR * NR];
    pack_a(x, s, ap, asum, line);
    for (size_t t = 0; t < x->nsb; t++) {
        const size_t j0 = t * NR, cols = c->n - j0 < NR ? c->n - j0 : NR;
        const unsigned char *bp = x->bp + t * bsl;
        memset(acc, 0, sizeof acc);
        for (size_t ch = 0; ch < x->nch; ch++) {
            const size_t g0 = ch * x->chg, ng = x->kg - g0 < x->chg ? x->kg - g0 : x->chg;
            x->fn(ng, ap + g0 * MR * x->G * x->esz, bp + g0 * NR * x->G * x->esz, t32);
            for (size_t r = 0; r < rows; r++) {
                const int64_t corr = x->i8 ? (int64_t)MF__XI_B_OFFSET * asum[r * x->nch + ch] : 0;
                if (x->nbk) { /* shift the block's sum by its two exponents above the least */
                    const int ea = c->a.bexp[(i0 + r) * x->nbk + ch] - x->emin;
                    for (size_t l = 0; l < cols; l++) {
                        const int sh = ea + c->b.bexp[(j0 + l) * x->nbk + ch];
                        acc[r * NR + l] += (int64_t)((uint64_t)((int64_t)t32[r * NR + l] - corr) << sh);
                    }
                } else {
                    for (size_t l = 0; l < NR; l++)
                        acc[r * NR + l] += (int64_t)t32[r * NR + l] - corr;
                }
            }
        }
        for (size_t r = 0; r < rows; r++)
            c->emit(c->ctx, i0 + r, j0, cols, acc + r * NR, x->exp, st);
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
    if (pc->phase == 0) {
        for (size_t t; (t = mf__team_take(tm, x->nsb)) != SIZE_MAX; me->taken++)
            pack_b(x, t);
        return;
    }
    {
        const size_t asl = (x->kg * MR * x->G * x->esz + 7) / 8 * 8, sums = sizeof(int64_t) * MR * x->nch;
        unsigned char *ap = (unsigned char *)malloc(asl + sums + sizeof(int16_t) * x->kg * x->G);
        if (!ap) { /* the others take the work */
            me->rc = MF_E_NOMEM;
            return;
        }
        for (size_t s; (s = mf__team_take(tm, x->nsa)) != SIZE_MAX; me->taken++)
            rows_sliver(x, s, ap, (int64_t *)(ap + asl), (int16_t *)(ap + asl + sums), x->c->st ? &me->st : NULL);
        free(ap);
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
    return taken >= (phase ? x->nsa : x->nsb);
}

int mf__xi_run(const mf__xi_call *c)
{
    xi_run x;
    xi_member mem[MF__TEAM_MAX];
    const mf__xi_kernel *kr = c->kernel ? c->kernel : xi_pick();
    const int sha = xi_shift(c->a.fmt), shb = xi_shift(c->b.fmt);
    size_t nt = c->threads > 1 ? (size_t)c->threads : 1;
    double bound;

    if (!sha || !shb || !c->m || !c->n || !c->k || (!c->a.bexp) != (!c->b.bexp))
        return MF__XI_DECLINED;
    memset(&x, 0, sizeof x);
    x.c = c;
    x.i8 = c->a.fmt != MF_FP6_E3M2 && c->b.fmt != MF_FP6_E3M2; /* |v| <= 60 fits a signed byte, + 64 a byte */
    x.G = x.i8 ? 4 : 2, x.esz = x.i8 ? 1 : 2;
    x.fn = x.i8 ? kr->i8 : kr->i16;
    x.kg = (c->k + x.G - 1) / x.G;
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
        x.emin = amin + bmin;
        bound = ldexp(bound, amax + bmax - x.emin);
        x.chg = MF__XI_MX_BLOCK / x.G;
        x.nch = x.nbk;
    } else {
        x.chg = x.i8 ? CHUNK_I8 : CHUNK_I16;
        x.nch = (x.kg + x.chg - 1) / x.chg;
    }
    if (!(bound < 0x1p62))
        return MF__XI_DECLINED;
    x.exp = x.emin - sha - shb;
    for (uint32_t q = 0; q < 64; q++) { /* every code's value * 2^sh, an integer (e2m1: 16 codes, FP6: 64) */
        x.lut_a[q] = (int16_t)ldexpf(mf_to_f32(c->a.fmt, c->a.fmt == MF_FP4_E2M1 ? q & 0xF : q), sha);
        x.lut_b[q] = (int16_t)ldexpf(mf_to_f32(c->b.fmt, c->b.fmt == MF_FP4_E2M1 ? q & 0xF : q), shb);
    }
    x.nsa = (c->m + MR - 1) / MR, x.nsb = (c->n + NR - 1) / NR;
    x.bsl = x.kg * NR * x.G * x.esz;
    x.bp = (unsigned char *)malloc(x.bsl * x.nsb);
    if (!x.bp)
        return MF_E_NOMEM;
    if (nt > MF__TEAM_MAX)
        nt = MF__TEAM_MAX;
    if (nt > x.nsa)
        nt = x.nsa;
    memset(mem, 0, sizeof mem[0] * nt);
    xi_phase(&x, 0, mem, nt);
    if (mem[0].rc == MF_OK) { /* the calling thread always packs; B is complete */
        /* phase 1: a thread without memory for its A sliver leaves the work to the others; if none had any,
         * nothing was emitted only when no sliver was taken, which the member's early return ensures */
        if (!xi_phase(&x, 1, mem, nt)) {
            free(x.bp);
            return MF_E_NOMEM;
        }
    }
    free(x.bp);
    if (c->st)
        for (size_t t = 0; t < nt; t++) {
            c->st->overflow += mem[t].st.overflow, c->st->underflow += mem[t].st.underflow;
            c->st->subnormal += mem[t].st.subnormal, c->st->nan += mem[t].st.nan, c->st->inexact += mem[t].st.inexact;
        }
    return MF_OK;
}
