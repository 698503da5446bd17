/* SPDX-License-Identifier: MIT */
/* src/parallel.c - large arrays over several threads, with the bytes and counts of one.
 *
 * The array is cut at multiples of 64 elements, so every piece starts on a whole byte of packed
 * e2m1 and on a Philox block; each piece is converted with sr_offset moved to its first element,
 * which is exactly what one call would have used there. Without POSIX threads, one thread runs all.
 */
#include <string.h>

#include "internal.h"

#if MF_HAVE_PTHREADS
#include <pthread.h>
#endif

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

static void *run_piece(void *arg)
{
    piece *p = (piece *)arg;
    p->backend->convert(p->d, p->dst, p->s, p->src, p->n, &p->o, p->count ? &p->st : NULL);
    return NULL;
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
    int t, k, started = 0;
#if MF_HAVE_PTHREADS
    pthread_t tid[MF_PAR_MAX_THREADS];
    int ok[MF_PAR_MAX_THREADS];
#endif
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
    started = t;
#if MF_HAVE_PTHREADS
    for (k = 1; k < started; k++)
        ok[k] = pthread_create(&tid[k], NULL, run_piece, &pc[k]) == 0;
    run_piece(&pc[0]);
    for (k = 1; k < started; k++) {
        if (ok[k])
            pthread_join(tid[k], NULL);
        else
            run_piece(&pc[k]); /* no thread to be had: this one does it */
    }
#else
    for (k = 0; k < started; k++)
        run_piece(&pc[k]);
#endif
    if (st) {
        memset(st, 0, sizeof *st);
        for (k = 0; k < started; k++) {
            st->overflow += pc[k].st.overflow;
            st->underflow += pc[k].st.underflow;
            st->subnormal += pc[k].st.subnormal;
            st->nan += pc[k].st.nan;
            st->inexact += pc[k].st.inexact;
        }
    }
}
