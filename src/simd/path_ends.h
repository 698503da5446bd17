/* SPDX-License-Identifier: MIT */
/* src/simd/path_ends.h - ragged ends and heads through a bounce buffer (bk_split) (included by backend_paths.h,
 * once per backend). */

/* ---- ragged ends through a bounce buffer --------------------------------------------------------
 * The paths above give the elements after their last whole step (MF_VL elements; 64 with the byte
 * tables) to the portable backend, which costs far more an element than a vector path
 * (docs/perf/tuning.md). Without statistics and below the streaming size, a call with BK_BOUNCE_MIN or more
 * such elements converts them instead by the same paths in a zero-padded buffer of whole steps (an sr
 * element at the position its stream index has in its Philox block, so that the paths start on a
 * block and leave nothing to the portable backend) and copies out only their own
 * bytes (an odd e2m1 end keeps the high nibble of its last byte); that costs about what a short call
 * does. f16 -> f32 also takes a head up to the output's 64-byte boundary that way
 * (bk_head; other pairs ran as fast or slower, the extra call costing more than the split
 * accesses). Each result depends on its own code and, in sr, its stream index alone, so the bytes
 * are the portable backend's. A buffer is filled before the body and converted after it: a vector load of
 * bytes just written by narrower stores waits for them to reach the cache. */
enum { BK_GRAIN = 64, BK_BOUNCE_MIN = 6 };

typedef struct {
    uint64_t s[2 * BK_GRAIN], d[2 * BK_GRAIN]; /* 8 bytes an element at most */
    size_t from, t, q, m;                          /* elements [from, from + t) at position q of m */
} bk_end;

static void bk_end_in(bk_end *e, mf_format s, const void *src, size_t from, size_t to, const mf_opts *o)
{
    e->from = from;
    e->t = to - from;
    e->q = o->round == MF_ROUND_STOCHASTIC ? (size_t)((o->sr_offset + from) & 15u) : 0; /* even with e2m1 */
    e->m = (e->q + e->t + BK_GRAIN - 1) / BK_GRAIN * BK_GRAIN;
    memset(e->s, 0, mf__storage_bytes(s, e->m));
    memcpy((uint8_t *)e->s + mf__storage_bytes(s, e->q), (const uint8_t *)src + mf__storage_bytes(s, from), mf__storage_bytes(s, e->t));
}

__attribute__((noinline)) static void bk_end_run(bk_end *e, int path, mf_format d, mf_format s,
                                                   const mf_opts *o)
{
    const mf_opts po = bk_opts_at(o, (uint64_t)e->from - e->q); /* the buffer's first element */
    bk_run(path, d, e->d, s, e->s, e->m, &po);
}

static void bk_end_out(const bk_end *e, mf_format d, void *dst)
{
    const size_t dq = mf__storage_bytes(d, e->q), dt = mf__storage_bytes(d, e->t);
    const uint8_t *b = (const uint8_t *)e->d + dq;
    uint8_t *out = (uint8_t *)dst + mf__storage_bytes(d, e->from);
    if (mf__fmt_store_bits(d) == 4 && (e->t & 1)) {
        memcpy(out, b, dt - 1);
        out[dt - 1] = (uint8_t)((out[dt - 1] & 0xF0u) | (b[dt - 1] & 0x0Fu));
    } else {
        memcpy(out, b, dt);
    }
}

/* the head: for f16 -> f32 from BK_HEAD_MIN elements, the elements before the output's 64-byte
 * boundary, which made misaligned calls faster. Not for f32 -> f16, whose head made them slower
 * (docs/perf/tuning.md). */
enum { BK_HEAD_MIN = 1024 };
static size_t bk_head(mf_format d, const void *dst, mf_format s, const void *src, size_t n, const mf_opts *o)
{
    const uintptr_t a = (uintptr_t)dst;
    (void)src;
    if (n < BK_HEAD_MIN || !(s == MF_FP16 && d == MF_FP32) || o->round == MF_ROUND_STOCHASTIC || (a & 3u))
        return 0;
    return (size_t)(-a & 63u) / 4;
}

__attribute__((noinline)) static void bk_split(const mf__plan *p, mf_format d, void *dst, mf_format s,
                                                 const void *src, size_t n, const mf_opts *o)
{
    bk_end head, tail;
    const size_t h = p->head, rest = p->head + p->body;
    if (h)
        bk_end_in(&head, s, src, 0, h, o);
    if (rest < n)
        bk_end_in(&tail, s, src, rest, n, o);
    if (p->body) {
        const mf_opts bo = bk_opts_at(o, h);
        bk_run(p->path, d, (uint8_t *)dst + mf__storage_bytes(d, h), s, (const uint8_t *)src + mf__storage_bytes(s, h),
                 p->body, &bo);
    }
    if (h)
        bk_end_run(&head, p->ends_path, d, s, o);
    if (rest < n)
        bk_end_run(&tail, p->ends_path, d, s, o);
    if (h)
        bk_end_out(&head, d, dst);
    if (rest < n)
        bk_end_out(&tail, d, dst);
}
