/* SPDX-License-Identifier: MIT */
/* src/parallel.c - large arrays over several threads, with the bytes and counts of one.
 *
 * The array is cut at multiples of 64 elements, so every piece starts on a whole byte of packed
 * e2m1 and on a Philox block; each piece is converted with sr_offset moved to its first element,
 * which is exactly what one call would have used there. The pieces go to the library's thread team (team.c):
 * a piece no started thread takes, the caller converts.
 */
#include <stdint.h>
#include <string.h>

#include "internal.h"

enum { MF_PAR_MIN = 1 << 20, MF_PAR_MAX_THREADS = 64 };

typedef struct piece {
    const mf__backend *backend;
    mf_format d, s;
    uint8_t *dst;
    const uint8_t *src;
    size_t n;
    mf_opts o;
    mf_stats st;
    int count;
} piece;

static void run_piece(piece *p)
{
    p->backend->convert(p->d, p->dst, p->s, p->src, p->n, &p->o, p->count ? &p->st : NULL);
}

typedef struct pieces {
    piece *pc;
    size_t count;
} pieces;

/* a member of the team (team.c): pieces from the queue until none is left */
static void member(mf__team *tm, size_t id, void *ctx)
{
    const pieces *ps = (const pieces *)ctx;
    (void)id;
    for (size_t k; (k = mf__team_take(tm, ps->count)) != SIZE_MAX;)
        run_piece(&ps->pc[k]);
}

size_t mf__parallel_piece(mf_format d, mf_format s, size_t n, int threads)
{
    if (threads > MF_PAR_MAX_THREADS)
        threads = MF_PAR_MAX_THREADS;
    if ((size_t)threads > n / (MF_PAR_MIN / 2))
        threads = (int)(n / (MF_PAR_MIN / 2));
    if (threads < 2 || n < MF_PAR_MIN || d == s)
        return n;
    return ((n + (size_t)threads - 1) / (size_t)threads + 63) & ~(size_t)63; /* pieces cover n */
}

void mf__convert_parallel(const mf__backend *backend, mf_format d, void *dst, mf_format s, const void *src, size_t n,
                          const mf_opts *o, mf_stats *st, int threads)
{
    piece pc[MF_PAR_MAX_THREADS];
    size_t per, start = 0;
    int t, k;
    per = mf__parallel_piece(d, s, n, threads);
    if (per == n) {
        backend->convert(d, dst, s, src, n, o, st);
        return;
    }
    t = 0;
    do { /* per < n: two pieces at least, MF_PAR_MAX_THREADS at most (mf__parallel_piece) */
        piece *p = &pc[t];
        p->backend = backend;
        p->d = d;
        p->s = s;
        p->n = n - start < per ? n - start : per;
        p->dst = (uint8_t *)dst + mf__storage_bytes(d, start);
        p->src = (const uint8_t *)src + mf__storage_bytes(s, start);
        p->o = *o;
        p->o.sr_offset = o->sr_offset + start;
        p->o.threads = 0;
        p->count = st != NULL;
        memset(&p->st, 0, sizeof p->st);
        start += p->n;
        t++;
    } while (start < n && t < MF_PAR_MAX_THREADS);
    {
        pieces ps;
        ps.pc = pc, ps.count = (size_t)t;
        mf__team_run((size_t)t, member, &ps);
    }
    if (st) {
        memset(st, 0, sizeof *st);
        for (k = 0; k < t; k++)
            mf__stats_sum(st, &pc[k].st);
    }
}
