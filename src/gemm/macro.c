/* SPDX-License-Identifier: MIT */
/* src/gemm/macro.c - MF_ACCUM_FP32's macro-kernel: the GotoBLAS / BLIS loops around the micro-kernels, the
 * thread team that shares them out, and the work buffer kept between calls. */
#include <stdlib.h>
#include <string.h>

#include "gemm_internal.h"

/* A plain run: no NaN, inf, subnormal or -0 among n binary32 values, so they are stored as they are when alpha = 1, no
 * scales, beta = 0 (a -0 sum, left by a negative product below binary32's range, is an exact zero: +0 in C) */

/* The portable plain stores (kernels.h's mf__gemm_store): whether the run is plain comes from the same pass (the tile
 * is read once), and where it is not, the caller rewrites all n through the epilogue. */
static int copy_plain(float *dst, const float *w, size_t n)
{
    uint32_t bad = 0, u;
    for (size_t q = 0; q < n; q++) {
        memcpy(&u, w + q, 4);
        memcpy(dst + q, &u, 4);
        bad |= (uint32_t)(u == 0x80000000u);
        u &= 0x7FFFFFFFu;
        bad |= (uint32_t)(u >= 0x7F800000u) | (uint32_t)(u - 1u < 0x007FFFFFu);
    }
    return !bad;
}

static int scale_plain(float *dst, const float *w, size_t n, float f)
{
    uint32_t bad = 0, u;
    for (size_t q = 0; q < n; q++) {
        const float r = w[q] * f;
        uint32_t v;
        memcpy(&u, w + q, 4);
        memcpy(&v, &r, 4);
        v &= 0u - (uint32_t)(u != 0); /* +0 in, +0 out whatever f's sign (integer ops: the loop vectorises) */
        memcpy(dst + q, &v, 4);
        bad |= (uint32_t)(u == 0x80000000u);
        u &= 0x7FFFFFFFu;
        bad |= (uint32_t)(u >= 0x7F800000u) | (uint32_t)(u - 1u < 0x007FFFFFu);
    }
    return !bad;
}

const mf__gemm_store mf__gemm_store_portable = {copy_plain, scale_plain};

#if defined(__GNUC__)
#define PREFETCH_W(p) __builtin_prefetch((p), 1, 3)
#else
#define PREFETCH_W(p) ((void)0)
#endif

/* One thread's share of a column block: rows [r0, r1), in blocks of MC. */

enum { PAIR_SLIVERS_MAX = 64 }; /* slivers of A in one MC block: mc / mr at most */

typedef struct fp32_job {
    const gemm *g;
    const fp32_plan *pl;
    const dec *a;
    const float *bp;
    const mf__pair_sum *sb; /* pair kernels: packed B's sliver summaries */
    size_t j0, nb;
    size_t r0, r1;
    float *ap, *w;
    mf__pair_sum sa[PAIR_SLIVERS_MAX];
    mf_stats st;
    int count;
} fp32_job;

/* one k block of a row block: pack A, then every tile's sums over the block into W */
static void fp32_block(fp32_job *jb, size_t i0, size_t mb, size_t p0, size_t kb)
{
    const fp32_plan *pl = jb->pl;
    const size_t mr = pl->mr, nr = pl->nr, ncp = mf__gemm_round_up(jb->nb, nr), tn = ncp / nr,
                 ns = mf__gemm_round_up(mb, mr) / mr;
    const size_t kp = (kb + 1) / 2;
    const uint32_t *bpp = (const uint32_t *)(const void *)jb->bp + p0 / 2 * ncp;
    const mf__pair_sum *sb = pl->pk ? jb->sb + p0 / pl->kc * tn : NULL;
    if (pl->pk)
        mf__gemm_pack_a_pair((uint32_t *)(void *)jb->ap, jb->sa, jb->a, i0, mb, p0, kb, (int)mr);
    else
        mf__gemm_pack_a(jb->ap, jb->a, i0, mb, p0, kb, (int)mr);
    for (size_t t = 0; t < tn; t++)
        for (size_t s = 0; s < ns; s++) {
            /* the next call's tile of W, from L2 or beyond, while this one computes */
            const size_t nx = s + 1 < ns ? (s + 1) * tn + t : t + 1 < tn ? t + 1 : 0;
            float *w = jb->w + (s * tn + t) * mr * nr;
            for (size_t q = 0; q < mr * nr; q += 16)
                PREFETCH_W(jb->w + nx * mr * nr + q);
            if (!pl->pk)
                pl->k->fn(kb, jb->ap + s * mr * kb, jb->bp + p0 * ncp + t * nr * kb, w, p0 > 0);
            else /* the instruction where the guard holds for the tile, the fma chain elsewhere */
                (mf__pair_guard(jb->sa[s], sb[t]) ? pl->pk->dot : pl->pk->chain)(
                    kp, (const uint32_t *)(const void *)jb->ap + s * mr * kp, bpp + t * nr * kp, w, p0 > 0);
        }
}

static void fp32_rows(fp32_job *jb)
{
    const gemm *g = jb->g;
    const fp32_plan *pl = jb->pl;
    const size_t mr = pl->mr, nr = pl->nr, ncp = mf__gemm_round_up(jb->nb, nr), tn = ncp / nr;
    for (size_t i0 = jb->r0; i0 < jb->r1; i0 += pl->mc) {
        const size_t mb = jb->r1 - i0 < pl->mc ? jb->r1 - i0 : pl->mc;
        if (!g->products) /* no k block below: the sums are +0 */
            memset(jb->w, 0, mf__gemm_round_up(mb, mr) * ncp * sizeof(float));
        for (size_t p0 = 0; g->products && p0 < g->k; p0 += pl->kc)
            fp32_block(jb, i0, mb, p0, g->k - p0 < pl->kc ? g->k - p0 : pl->kc);
        for (size_t ii = 0; ii < mb; ii++) {
            const size_t i = i0 + ii;
            const float *wrow = jb->w + (ii / mr) * tn * mr * nr + (ii % mr) * nr;
            for (size_t t = 0; t < tn; t++) {
                const float *src = wrow + t * mr * nr;
                const size_t j = jb->j0 + t * nr, cnt = jb->nb - t * nr < nr ? jb->nb - t * nr : nr;
                if (g->direct && g->fmt_c == MF_FP32 && g->c_cs == 1 && /* else the loop below rewrites them */
                    pl->store->copy((float *)g->c + i * g->c_rs + j, src, cnt))
                    continue;
                if (g->scaled_rn && g->c_cs == 1 && /* fl(acc * F): one rn rounding; else the loop below */
                    pl->store->scale((float *)g->c + i * g->c_rs + j, src, cnt, g->factor))
                    continue;
                for (size_t q = 0; q < cnt; q++)
                    mf__gemm_epi_one(g, src[q] == 0.0f ? 0.0f : src[q], i, j + q,
                                     jb->count ? &jb->st : NULL); /* -0: +0 */
            }
        }
    }
}

/* The call's threads take work items in order from one queue: for each column block, a phase of items
 * that pack a share of B's slivers, then a phase of items that each run a share of C's rows. An item waits
 * until the phase before its own has finished (packed B is complete; or, for packing, the previous
 * column block's rows are done and B's buffer can be reused). A thread that starts late takes fewer items
 * (the scheduler may start a new thread on the busy core, or late), and every element is computed the same
 * way whichever thread takes it, so the bits do not depend on the threads. */
typedef struct fp32_team {
    const gemm *g;
    const fp32_plan *pl;
    const dec *db;
    float *bp;
    mf__pair_sum *sb; /* pair kernels: packed B's sliver summaries */
    size_t ncb;
    size_t n_pack, n_rows, rows_item; /* items per column block, and the rows of a row item */
    fp32_job *jobs;
} fp32_team;

/* One member of the team (team.c): items in order from the queue, each after its phase's predecessors. */
static void team_member(mf__team *team, size_t id, void *ctx)
{
    fp32_team *tm = (fp32_team *)ctx;
    const gemm *g = tm->g;
    const size_t nr = tm->pl->nr, per = tm->n_pack + tm->n_rows;
    const size_t total = (g->n + tm->ncb - 1) / tm->ncb * per;
    fp32_job *jb = &tm->jobs[id];
    for (size_t idx; (idx = mf__team_take(team, total)) != SIZE_MAX;) {
        const size_t blk = idx / per, q = idx % per;
        const size_t phase = blk * per + (q < tm->n_pack ? 0 : tm->n_pack); /* its phase's first item */
        const size_t j0 = blk * tm->ncb, nb = g->n - j0 < tm->ncb ? g->n - j0 : tm->ncb, tn = (nb + nr - 1) / nr;
        mf__team_wait(team, phase); /* phases run one after the other: all items before it are done */
        if (q < tm->n_pack) {
            const size_t t0 = tn * q / tm->n_pack, t1 = tn * (q + 1) / tm->n_pack;
            if (g->products && t0 < t1 && tm->pl->pk)
                mf__gemm_pack_b_pair((uint32_t *)(void *)tm->bp, tm->sb, tm->db, g->k, tm->pl->kc, j0, nb, (int)nr, t0,
                                     t1);
            else if (g->products && t0 < t1)
                mf__gemm_pack_b(tm->bp, tm->db, g->k, tm->pl->kc, j0, nb, (int)nr, t0, t1);
        } else {
            const size_t r0 = (q - tm->n_pack) * tm->rows_item;
            jb->j0 = j0, jb->nb = nb, jb->r0 = r0, jb->r1 = g->m - r0 < tm->rows_item ? g->m : r0 + tm->rows_item;
            fp32_rows(jb);
        }
        mf__team_finished(team);
    }
}

/* The FP32 path's work buffer is kept for the next call (one, the latest, at most SCRATCH_KEEP bytes): a
 * fresh allocation of several MiB costs a page fault per 4 KiB page on every call. It holds no state
 * that a result depends on. Each buffer starts with its size; a call takes the kept one or allocates. */
enum { SCRATCH_KEEP = 64 << 20, SCRATCH_HEAD = 64 };
#if defined(__GNUC__)
static void *scratch_kept;

static void *scratch_get(size_t bytes)
{
    void *p = __atomic_exchange_n(&scratch_kept, NULL, __ATOMIC_ACQ_REL);
    size_t have = 0;
    if (p)
        memcpy(&have, p, sizeof have);
    if (p && have >= bytes)
        return p;
    free(p);
    p = malloc(bytes + SCRATCH_HEAD);
    if (p)
        memcpy(p, &bytes, sizeof bytes);
    return p;
}

static void scratch_put(void *p)
{
    size_t have = 0;
    memcpy(&have, p, sizeof have);
    if (have > SCRATCH_KEEP) {
        free(p);
        return;
    }
    free(__atomic_exchange_n(&scratch_kept, p, __ATOMIC_ACQ_REL));
}
#else
static void *scratch_get(size_t bytes) { return malloc(bytes + SCRATCH_HEAD); }
static void scratch_put(void *p) { free(p); }
#endif

int mf__gemm_run_fp32(const gemm *g, mf_stats *st)
{
    const fp32_plan pl = mf__gemm_fp32_plan_for(g);
    const size_t mr = pl.mr, nr = pl.nr, mc = pl.mc, kc = pl.kc;
    const size_t kk = g->k ? g->k : 1, nkb = (kk + kc - 1) / kc;
    size_t ncb = BP_BUDGET / kk / nr * nr, nt = g->o->threads > 1 ? (size_t)g->o->threads : 1;
    fp32_job jobs[MF__TEAM_MAX];
    fp32_team tm;
    size_t mcp, ap_size, bp_size, sb_size;
    float *bp, *work;
    void *mem;
    dec da, db;
    int rc = MF_OK;

    if (ncb > NC_MAX)
        ncb = NC_MAX;
    if (ncb < nr)
        ncb = nr;
    if (nt > MF__TEAM_MAX)
        nt = MF__TEAM_MAX;
    if (nt > (g->m + mc - 1) / mc)
        nt = (g->m + mc - 1) / mc;
    if (ncb > mf__gemm_round_up(g->n, nr))
        ncb = mf__gemm_round_up(g->n, nr);
    /* packed B for one column block (and its sliver summaries); per thread, packed A and the work tiles (no
     * larger than the call). A pair takes a float's place, so the pair kernels' panels fit the same sizes. */
    mcp = mf__gemm_round_up(g->m < mc ? g->m : mc, mr);
    ap_size = mcp * (kk < kc ? kk : kc);
    ap_size = mf__gemm_round_up(ap_size, 16); /* every buffer on a 64-byte line */
    bp_size = mf__gemm_round_up(kk * ncb, 16);
    sb_size = pl.pk ? mf__gemm_round_up(nkb * (ncb / nr) * sizeof(mf__pair_sum) / sizeof(float), 16) : 0;
    mem = scratch_get(sizeof(float) * (bp_size + sb_size + nt * (ap_size + mcp * ncb)) + 64);
    if (!mem)
        return MF_E_NOMEM;
    bp = (float *)(((uintptr_t)mem + SCRATCH_HEAD + 63) & ~(uintptr_t)63);
    work = bp + bp_size + sb_size;
    mf__gemm_dec_init(&da, &g->a), mf__gemm_dec_init(&db, &g->b);
    da.widen8 = db.widen8 = pl.pk ? pl.pk->widen8 : NULL;
    db.zip = pl.pk ? pl.pk->zip : NULL;
    da.weave = pl.pk ? pl.pk->weave : NULL;
    if (pl.pk && pl.pk->sum)
        da.sum = db.sum = pl.pk->sum;
    memset(&tm, 0, sizeof tm);
    tm.sb = pl.pk ? (mf__pair_sum *)(void *)(bp + bp_size) : NULL;
    for (size_t t = 0; t < nt; t++) {
        fp32_job *jb = &jobs[t];
        memset(jb, 0, sizeof *jb);
        jb->g = g, jb->pl = &pl, jb->a = &da, jb->bp = bp, jb->sb = tm.sb, jb->count = st != NULL;
        jb->ap = work + t * (ap_size + mcp * ncb);
        jb->w = jb->ap + ap_size;
    }
    tm.g = g, tm.pl = &pl, tm.db = &db, tm.bp = bp, tm.ncb = ncb, tm.jobs = jobs;
    { /* C's rows in equal items of at most mc, a whole number of them per thread (four times as many with
       * several threads: a late or slow member holds the others up less), in whole slivers; B in nt */
        const size_t items = nt * ((g->m + nt * mc - 1) / (nt * mc)) * (nt > 1 ? 4 : 1);
        tm.rows_item = mf__gemm_round_up((g->m + items - 1) / items, mr);
        tm.n_rows = (g->m + tm.rows_item - 1) / tm.rows_item, tm.n_pack = nt;
    }
    nt = mf__team_run(nt, team_member, &tm);
    if (st)
        for (size_t t = 0; t < nt; t++)
            mf__stats_sum(st, &jobs[t].st);
    scratch_put(mem);
    return rc;
}
