/* SPDX-License-Identifier: MIT */
/* src/simd/plan.h - the plan (every choice of a call), the convert that carries it out, and the backend's table
 * entry (included by backend_paths.h, once per backend). */

/* ---- the plan: every choice a call makes, made here ---------------------------------------------
 * With statistics, the blocked path (or the portable backend, where it does not vectorise); else a
 * head (bk_head) and a tail (the elements after the body's last whole step) that go through the
 * bounce buffers, each by the path bk_path gives for a buffer, and the body by the path it gives for
 * the body. The convert below only carries the plan out. */
const mf__backend BK_CAT(mf__backend_, BK_SYM);

static void BK_CAT(bk_plan_, BK_SYM)(mf__plan *p, mf_format d, const void *dst, mf_format s, const void *src,
                                            size_t n, const mf_opts *o, int count)
{
    mf_opts bo, so;
    if (o->overflow == MF_OVERFLOW_PROPAGATE) { /* converted as SATURATE, then mended (bk_convert_) */
        so = *o;
        so.overflow = MF_OVERFLOW_SATURATE;
        o = &so;
    }
    p->backend = &BK_CAT(mf__backend_, BK_SYM);
    p->head = p->tail = 0;
    p->body = n;
    p->ends_path = MF__PATH_NONE;
    p->stream = bk_streams(d, n);
    if (count) {
        p->path = bk_vectorizable(d, s, o, 1) ? MF__PATH_BLOCKED : MF__PATH_PORTABLE;
        return;
    }
    if (!((n < BK_HEAD_MIN && n % MF_VL < BK_BOUNCE_MIN) || !bk_vectorizable(d, s, o, 0) || p->stream)) {
        const size_t step =
            bk_lut_pair(d, s) && n >= (o->round == MF_ROUND_STOCHASTIC ? BK_LUT_SR_MIN : BK_LUT_MIN)
                ? 64 /* the paths' whole steps */
                : MF_VL;
        p->head = bk_head(d, dst, s, src, n, o);
        p->body = n - p->head;
        if (p->body % step >= BK_BOUNCE_MIN)
            p->body -= p->body % step;
        p->tail = n - p->head - p->body;
    }
    if (p->head || p->tail) { /* a buffer holds BK_GRAIN or 2 * BK_GRAIN elements from a Philox block start */
        bo = bk_opts_at(o, p->head + p->body);
        bo.sr_offset &= ~(uint64_t)15;
        p->ends_path = bk_path(d, s, BK_GRAIN, &bo);
    }
    if (p->head) {
        bo = bk_opts_at(o, p->head);
        p->path = bk_path(d, s, p->body, &bo);
    } else {
        p->path = bk_path(d, s, p->body, o);
    }
}

/* Does the f32 block at p hold an infinity? A fixed count of branch-free tests, which the compiler turns into the
 * backend's vector code, so that MF_OVERFLOW_PROPAGATE's scan costs a fraction of the conversion it follows. */
enum { BK_INF_BLOCK = 64 };
static int bk_f32_block_has_inf(const uint8_t *p)
{
    uint32_t hit = 0;
    int j;
    for (j = 0; j < BK_INF_BLOCK; j++) {
        uint32_t b;
        memcpy(&b, p + 4 * j, sizeof b);
        hit |= (uint32_t)((b & 0x7FFFFFFFu) == 0x7F800000u);
    }
    return hit != 0;
}

static void BK_CAT(bk_convert_, BK_SYM)(mf_format d, void *dst, mf_format s, const void *src, size_t n,
                                               const mf_opts *o, mf_stats *st)
{
    mf__plan p;
    if (o->overflow == MF_OVERFLOW_PROPAGATE) { /* SATURATE's bytes but for infinite inputs (mf__propagate_inf) */
        mf_opts so = *o;
        size_t i;
        so.overflow = MF_OVERFLOW_SATURATE;
        BK_CAT(bk_convert_, BK_SYM)(d, dst, s, src, n, &so, st);
        if (s != MF_FP32) {
            mf__propagate_inf(d, dst, s, src, n, o, st);
            return;
        }
        for (i = 0; i < n; i += BK_INF_BLOCK) { /* f32: only the blocks holding an infinity, found in vectors */
            const size_t m = n - i < BK_INF_BLOCK ? n - i : BK_INF_BLOCK;
            const uint8_t *x = (const uint8_t *)src + 4 * i;
            if (m == BK_INF_BLOCK && !bk_f32_block_has_inf(x))
                continue;
            so = bk_opts_at(o, i);
            mf__propagate_inf(d, (uint8_t *)dst + mf__storage_bytes(d, i), s, x, m, &so, st);
        }
        return;
    }
    BK_CAT(bk_plan_, BK_SYM)(&p, d, dst, s, src, n, o, st != NULL);
    if (st)
        bk_blocked(d, dst, s, src, n, o, st); /* the portable backend within it, where it must */
    else if (p.head || p.tail)
        bk_split(&p, d, dst, s, src, n, o);
    else
        bk_run(p.path, d, dst, s, src, n, o);
}

/* The direct path's f32 -> f16 and f32 -> bf16 loops with marks: those kernels know which of their steps met a
 * NaN (the lanes they mend), so a profile's fix-up visits those steps alone instead of scanning the result. The
 * same kernel as the default's body (bk_direct_run), so the same bits; 0 for every other call. */
static int BK_CAT(bk_convert_marked_, BK_SYM)(mf_format d, void *dst, mf_format s, const void *src, size_t n,
                                                     const mf_opts *o, const mf__nan_marks *mk)
{
    const int kind = bk_direct_kind(d, s, n, o);
    if (kind != BK_DIRECT_F16 && kind != BK_DIRECT_BF16)
        return 0;
    bk_direct_run(kind, d, dst, s, src, n, o, mk);
    return 1;
}

/* The pairs this backend converts itself (bit d of own[s]); the others go to its parent. By default
 * every pair of formats the kernels know (K_FMTS: every row of formats.inc of a kind they know, so a new
 * row is converted here by being a row). A backend's configuration that changes only some pairs defines
 * BK_OWN_DSTS(s) and BK_PARENT. */
#ifndef BK_OWN_DSTS
#define BK_OWN_DSTS(s) (K_FMTS >> (s) & 1u ? K_FMTS : 0u)
#define BK_PARENT mf__backend_portable
#endif
extern const mf__backend BK_PARENT;

const mf__backend BK_CAT(mf__backend_, BK_SYM) = {
    BK_STR(BK_SYM),
    &BK_PARENT,
    {
#define MF__FORMAT(e, ...) [e] = BK_OWN_DSTS(e),
#include <minifloat/formats.inc>
#undef MF__FORMAT
    },
    BK_CAT(bk_convert_, BK_SYM),
    BK_CAT(bk_plan_, BK_SYM),
    BK_CAT(bk_convert_marked_, BK_SYM)};
