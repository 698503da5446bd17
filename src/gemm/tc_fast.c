/* SPDX-License-Identifier: MIT */
/* src/gemm/tc_fast.c - the tensor-core models over whole matrices: operands decoded once, MF__TC_LANES
 * columns of C at a time by a panel kernel (the portable one here, src/x86/tc_avx2.c), on opts.threads.
 *
 * The rule is mf__tc_dot's (tc.c), which stays the reference: every dot product whose row of A or column
 * of B holds an inf or a NaN, or whose c is not finite, is computed by it. Each element of C is computed
 * by one thread from the same operands in the same order, so the bits do not depend on the thread count.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <minifloat.h>
#include <minifloat/gemm.h>

#include "../internal.h"
#include "tc.h"

enum { TC_ROW_BLOCK = 64 };

/* ---- decoding ----------------------------------------------------------------------------------------- */

/* One operand's decoder: an element becomes a sign-applied significand shifted left by shift and a raw
 * exponent (MF__TC_ZERO_EXP for zeros); inf and NaN become a zero and are reported. */
typedef struct tc_dec {
    mf_format f;
    int ieee; /* f32 (cut to TF32), f16, bf16: decoded from the bits; the narrower formats from lut */
    int man, bias, ebits, shift;
    int32_t lut_m[256], lut_r[256];
    uint8_t lut_s[256];
} tc_dec;

/* fraction bits of a decoded significand: TF32 keeps 10 of f32's 23 */
static int tc_frac_bits(mf_format f) { return f == MF_FP32 ? 10 : mf__fmt_get(f).man; }

static void tc_dec_init(tc_dec *d, mf_format f, int shift)
{
    const mf__fmt ft = mf__fmt_get(f);
    d->f = f, d->shift = shift;
    d->ieee = f == MF_FP32 || f == MF_FP16 || f == MF_BF16;
    d->man = ft.man, d->bias = ft.bias, d->ebits = ft.bits - 1 - ft.man;
    if (!d->ieee)
        for (uint32_t c = 0; c < (1u << ft.bits); c++) {
            mf__tc_elem e;
            mf__tc_decode(f, c, 1, &e);
            d->lut_s[c] = e.cls != 0;
            d->lut_m[c] = e.cls || !e.m ? 0 : (int32_t)(e.m << shift) * (e.neg ? -1 : 1);
            d->lut_r[c] = e.cls || !e.m ? MF__TC_ZERO_EXP : e.r;
        }
}

/* decode code into *sm, *r; returns 1 for an inf or NaN */
static int tc_dec_one(const tc_dec *d, uint32_t code, int32_t *sm, int32_t *r)
{
    if (d->ieee) {
        const uint32_t emask = (1u << d->ebits) - 1u;
        const uint32_t ef = (code >> d->man) & emask, neg = code >> (d->man + d->ebits) & 1u;
        uint32_t fr = code & ((1u << d->man) - 1u), m;
        if (ef == emask) {
            *sm = 0, *r = MF__TC_ZERO_EXP;
            return 1;
        }
        if (d->f == MF_FP32)
            fr >>= 13; /* TF32: the low 13 bits are dropped */
        m = ef ? fr | 1u << (d->f == MF_FP32 ? 10 : d->man) : fr;
        *sm = m ? (int32_t)(m << d->shift) * (neg ? -1 : 1) : 0;
        *r = m ? (ef ? (int32_t)ef : 1) - d->bias : MF__TC_ZERO_EXP;
        return 0;
    }
    *sm = d->lut_m[code], *r = d->lut_r[code];
    return d->lut_s[code];
}

/* ---- the portable panel kernel ---------------------------------------------------------------------- */

/* one lane's block: c (finite binary32 bits) plus the w products am[t] * pm[2 L t] (exponents ar, pr) */
static uint32_t lane_block(const mf__tc_lanes *q, const int32_t *am, const int32_t *ar, const int32_t *pm,
                           const int32_t *pr, uint32_t c)
{
    const uint32_t cabs = c & 0x7FFFFFFFu, ef = cabs >> 23;
    const int64_t cm = (int64_t)((cabs & 0x7FFFFFu) | (ef ? 0x800000u : 0));
    const int32_t crexp = cabs ? (ef ? (int32_t)ef : 1) - 127 : 2 * MF__TC_ZERO_EXP;
    int32_t emax = crexp > q->min_exp ? crexp : q->min_exp;
    int64_t s = 0;
    uint64_t mag;
    int lead, e, dc;
    uint32_t out;
    for (int t = 0; t < q->w; t++) {
        const int32_t re = ar[t] + pr[t * 2 * MF__TC_LANES];
        emax = re > emax ? re : emax;
    }
    for (int t = 0; t < q->w; t++) {
        const int32_t prod = am[t] * pm[t * 2 * MF__TC_LANES];
        const int32_t d = emax - (ar[t] + pr[t * 2 * MF__TC_LANES]);
        const uint32_t u = d > 31 ? 0 : (uint32_t)(prod < 0 ? -prod : prod) >> d;
        s += prod < 0 ? -(int64_t)u : (int64_t)u;
    }
    dc = emax - crexp - (q->frac - 23); /* c has 23 fraction bits, the window frac */
    if (dc <= 0)
        s += (c >> 31 ? -cm : cm) * ((int64_t)1 << -dc); /* -dc <= 2; a product: the term may be negative */
    else if (dc < 64)
        s += c >> 31 ? -(cm >> dc) : cm >> dc;
    if (s == 0)
        return 0;
    mag = s < 0 ? (uint64_t)-s : (uint64_t)s;
    lead = 63;
    while (!(mag >> lead))
        lead--;
    e = lead + emax - q->frac;
    if (e > 127)
        return (s < 0 ? 0x80000000u : 0) | 0x7F800000u;
    if (e >= -126) {
        const int drop = lead - q->out_frac;
        const uint64_t kept = drop >= 0 ? mag >> drop : mag << -drop;
        out = (uint32_t)(e + 127) << 23 | (uint32_t)((kept & ((1u << q->out_frac) - 1u)) << (23 - q->out_frac));
    } else {
        const int sh = emax - q->frac + 126 + q->out_frac;
        const uint64_t units = sh >= 0 ? mag << sh : -sh >= 64 ? 0 : mag >> -sh;
        out = (uint32_t)units << (23 - q->out_frac);
    }
    return (s < 0 ? 0x80000000u : 0) | out;
}

static void panel_portable(const mf__tc_lanes *q, const int32_t *am, const int32_t *ar, const int32_t *panel,
                           const uint32_t *c, uint32_t *d, int rows)
{
    const size_t step = 2 * MF__TC_LANES * (size_t)q->w;
    for (int l = 0; l < rows * MF__TC_LANES; l++) {
        uint32_t part = q->promote ? 0 : c[l];
        float acc;
        size_t left = q->promote;
        memcpy(&acc, &c[l], 4);
        for (size_t p0 = 0; p0 < q->kp; p0 += (size_t)q->w) {
            const int32_t *pb = panel + p0 / (size_t)q->w * step + l % MF__TC_LANES;
            const size_t ra = (size_t)(l / MF__TC_LANES) * q->kp;
            if (q->promote && left == 0) {
                float f;
                memcpy(&f, &part, 4);
                acc += f;
                part = 0, left = q->promote;
            }
            if ((part & 0x7FFFFFFFu) != 0x7F800000u) /* an overflow: inf stays */
                part = lane_block(q, am + ra + p0, ar + ra + p0, pb, pb + MF__TC_LANES, part);
            left -= (size_t)q->w;
        }
        if (q->promote) {
            float f;
            memcpy(&f, &part, 4);
            acc += f;
            memcpy(&part, &acc, 4);
        }
        d[l] = part;
    }
}

const mf__tc_kernel mf__tc_kernel_portable = {"portable", panel_portable};

const mf__tc_kernel *mf__tc_kernel_at(size_t i)
{
    static const mf__tc_kernel *const kernels[] = {
#if MF_HAVE_BACKEND_avx2
        &mf__tc_kernel_avx2,
#endif
        &mf__tc_kernel_portable,
    };
    size_t n = 0;
    for (size_t q = 0; q < sizeof kernels / sizeof kernels[0]; q++) {
        const mf__backend *b = mf__backend_by_name(kernels[q]->name);
        if (b && mf__backend_supported(b) && n++ == i)
            return kernels[q];
    }
    return NULL;
}

/* ---- the driver ------------------------------------------------------------------------------------- */

typedef struct tc_shared {
    const mf__tc_call *call;
    const mf__tc_kernel *kernel;
    mf__tc_lanes q;
    tc_dec da, db;
    int32_t *am, *ar; /* m rows of kp */
    int32_t *bp;      /* npan panels of kp * 2 * MF__TC_LANES */
    unsigned char *row_sp, *col_sp;
    size_t npan, nrb, items;
} tc_shared;

typedef struct tc_worker {
    tc_shared *sh;
    size_t first, last;   /* items [first, last) */
    mf__tc_elem *ea, *eb; /* k each: the reference path's operands */
    mf_stats st;
    int failed;
} tc_worker;

/* the reference path for C(i, j) */
static uint32_t tc_ref_dot(tc_worker *wk, size_t i, size_t j, uint32_t c)
{
    const mf__tc_call *cl = wk->sh->call;
    for (size_t p = 0; p < cl->k; p++) {
        mf__tc_decode(cl->fa, mf__gemm_code_at(cl->a, cl->fa, i * cl->a_rs + p * cl->a_cs), cl->p->tf32, &wk->ea[p]);
        mf__tc_decode(cl->fb, mf__gemm_code_at(cl->b, cl->fb, p * cl->b_rs + j * cl->b_cs), cl->p->tf32, &wk->eb[p]);
    }
    return mf__tc_dot(cl->p, wk->ea, wk->eb, cl->k, c, cl->promote);
}

static void tc_work(tc_worker *wk)
{
    const tc_shared *sh = wk->sh;
    const mf__tc_call *cl = sh->call;
    const size_t kp = sh->q.kp;
    for (size_t it = wk->first; it < wk->last; it++) {
        const size_t jp = it / sh->nrb, i0 = it % sh->nrb * TC_ROW_BLOCK;
        const size_t j0 = jp * MF__TC_LANES, cnt = cl->n - j0 < MF__TC_LANES ? cl->n - j0 : MF__TC_LANES;
        const size_t i1 = cl->m - i0 < TC_ROW_BLOCK ? cl->m : i0 + TC_ROW_BLOCK;
        const int32_t *panel = sh->bp + jp * kp * 2 * MF__TC_LANES;
        unsigned char sp[2][MF__TC_LANES] = {{0}}; /* c is inf or NaN */
        int col_any = 0;
        for (size_t l = 0; l < cnt; l++)
            col_any |= sh->col_sp[j0 + l];
        for (size_t i = i0; i < i1; i += 2) { /* two rows at a time where there are two */
            const int rows = i + 1 < i1 ? 2 : 1;
            uint32_t c[2 * MF__TC_LANES] = {0}, d[2 * MF__TC_LANES];
            int bad = 0;
            if (cl->c)
                for (int r = 0; r < rows; r++)
                    for (size_t l = 0; l < cnt; l++) {
                        uint32_t v;
                        memcpy(&v,
                               (const unsigned char *)cl->c + 4 * ((i + (size_t)r) * cl->c_rs + (j0 + l) * cl->c_cs),
                               4);
                        if ((v & 0x7FFFFFFFu) >= 0x7F800000u) /* to the reference path; the kernel sees +0 */
                            bad = 1, sp[r][l] = 1, v = 0;
                        c[(size_t)r * MF__TC_LANES + l] = v;
                    }
            sh->kernel->fn(&sh->q, sh->am + i * kp, sh->ar + i * kp, panel, c, d, rows);
            for (int r = 0; r < rows; r++) {
                uint32_t *dr = d + (size_t)r * MF__TC_LANES;
                if (bad || col_any || sh->row_sp[i + (size_t)r])
                    for (size_t l = 0; l < cnt; l++)
                        if (sp[r][l] || sh->row_sp[i + (size_t)r] || sh->col_sp[j0 + l]) {
                            uint32_t v = 0;
                            if (cl->c)
                                memcpy(&v,
                                       (const unsigned char *)cl->c +
                                           4 * ((i + (size_t)r) * cl->c_rs + (j0 + l) * cl->c_cs),
                                       4);
                            dr[l] = tc_ref_dot(wk, i + (size_t)r, j0 + l, v);
                            sp[r][l] = 0;
                        }
                cl->emit(cl->ctx, i + (size_t)r, j0, cnt, dr, cl->st ? &wk->st : NULL);
            }
        }
    }
}

/* the runs of items (each with its worker's scratch and counts) that the thread team (team.c) shares out */
typedef struct tc_runs {
    tc_worker *wk;
    size_t n;
} tc_runs;

static void tc_member(mf__team *tm, size_t id, void *ctx)
{
    const tc_runs *rs = (const tc_runs *)ctx;
    (void)id;
    for (size_t t; (t = mf__team_take(tm, rs->n)) != SIZE_MAX;)
        tc_work(&rs->wk[t]);
}

int mf__tc_run(const mf__tc_call *cl)
{
    tc_shared sh;
    tc_worker wk[MF__TEAM_MAX];
    const int ta = tc_frac_bits(cl->fa), tb = tc_frac_bits(cl->fb);
    const size_t w = (size_t)cl->p->w;
    size_t nt = cl->threads > 1 ? (size_t)cl->threads : 1, kp;
    void *mem;
    int32_t *elem_mem;
    int rc = MF_OK;

    memset(&sh, 0, sizeof sh);
    sh.call = cl;
    sh.kernel = cl->kernel ? cl->kernel : &mf__tc_kernel_portable;
    kp = (cl->k + w - 1) / w * w;
    sh.q.w = cl->p->w, sh.q.frac = cl->p->frac, sh.q.out_frac = cl->p->out_frac, sh.q.min_exp = cl->p->min_exp;
    sh.q.wide = (int64_t)cl->p->w * ((int64_t)1 << (cl->p->frac + 2)) + ((int64_t)1 << (cl->p->frac + 1)) >
                (int64_t)INT32_MAX;
    sh.q.kp = kp, sh.q.promote = cl->promote;
    sh.npan = (cl->n + MF__TC_LANES - 1) / MF__TC_LANES;
    sh.nrb = (cl->m + TC_ROW_BLOCK - 1) / TC_ROW_BLOCK;
    sh.items = sh.npan * sh.nrb;
    if (nt > MF__TEAM_MAX)
        nt = MF__TEAM_MAX;
    if (nt > sh.items)
        nt = sh.items;
    /* the significands, exponents and special marks of A and B; the reference path's operands per thread */
    if (kp > (SIZE_MAX / 16 - cl->m - sh.npan * MF__TC_LANES) / (2 * (cl->m + sh.npan * MF__TC_LANES)))
        return MF_E_NOMEM;
    mem = malloc(sizeof(int32_t) * 2 * kp * (cl->m + sh.npan * MF__TC_LANES) + 64 + cl->m + cl->n +
                 nt * 2 * cl->k * sizeof(mf__tc_elem));
    if (!mem)
        return MF_E_NOMEM;
    elem_mem = (int32_t *)(((uintptr_t)mem + 63) & ~(uintptr_t)63);
    sh.bp = elem_mem;
    sh.am = sh.bp + sh.npan * kp * 2 * MF__TC_LANES;
    sh.ar = sh.am + cl->m * kp;
    {
        mf__tc_elem *eb = (mf__tc_elem *)(sh.ar + cl->m * kp);
        sh.row_sp = (unsigned char *)(eb + nt * 2 * cl->k);
        sh.col_sp = sh.row_sp + cl->m;
        for (size_t t = 0; t < nt; t++) {
            memset(&wk[t], 0, sizeof wk[t]);
            wk[t].sh = &sh;
            wk[t].ea = eb + t * 2 * cl->k, wk[t].eb = wk[t].ea + cl->k;
        }
    }
    /* B's frac - ta - tb >= 0 for every model (tc.c's table) */
    tc_dec_init(&sh.da, cl->fa, 0);
    tc_dec_init(&sh.db, cl->fb, cl->p->frac - ta - tb);
    for (size_t i = 0; i < cl->m; i++) {
        int32_t *m = sh.am + i * kp, *r = sh.ar + i * kp;
        int sp = 0;
        for (size_t p = 0; p < cl->k; p++)
            sp |= tc_dec_one(&sh.da, mf__gemm_code_at(cl->a, cl->fa, i * cl->a_rs + p * cl->a_cs), &m[p], &r[p]);
        for (size_t p = cl->k; p < kp; p++)
            m[p] = 0, r[p] = MF__TC_ZERO_EXP;
        sh.row_sp[i] = (unsigned char)sp;
    }
    memset(sh.col_sp, 0, cl->n);
    for (size_t jp = 0; jp < sh.npan; jp++) {
        int32_t *panel = sh.bp + jp * kp * 2 * MF__TC_LANES;
        for (size_t l = 0; l < MF__TC_LANES; l++) {
            const size_t j = jp * MF__TC_LANES + l;
            int sp = 0;
            for (size_t p = 0; p < kp; p++) {
                int32_t *m = panel + p * 2 * MF__TC_LANES + l, *r = m + MF__TC_LANES;
                if (j < cl->n && p < cl->k)
                    sp |= tc_dec_one(&sh.db, mf__gemm_code_at(cl->b, cl->fb, p * cl->b_rs + j * cl->b_cs), m, r);
                else
                    *m = 0, *r = MF__TC_ZERO_EXP;
            }
            if (j < cl->n)
                sh.col_sp[j] = (unsigned char)sp;
        }
    }
    /* items (panel, row block) in panel order, cut into nt runs: a thread keeps its panels in cache */
    for (size_t t = 0; t < nt; t++)
        wk[t].first = sh.items * t / nt, wk[t].last = sh.items * (t + 1) / nt;
    {
        tc_runs rs;
        rs.wk = wk, rs.n = nt;
        mf__team_run(nt, tc_member, &rs);
    }
    if (cl->st)
        for (size_t t = 0; t < nt; t++)
            mf__stats_sum(cl->st, &wk[t].st);
    free(mem);
    return rc;
}
