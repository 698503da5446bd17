/* SPDX-License-Identifier: MIT */
/* src/team.c - the library's one thread team (internal.h): the calling thread and up to want - 1 more run one
 * function and take their work from a shared queue, items in order. Whoever takes an item, it is computed the
 * same way, so results do not depend on how many threads started (a thread that cannot be created is simply
 * one member fewer) or on which took what. Without POSIX threads the caller alone runs everything. */
#include <stdint.h>

#include "internal.h"

#if MF_HAVE_PTHREADS
#include <pthread.h>
#endif

struct mf__team {
    mf__team_fn fn;
    void *ctx;
    size_t members;        /* members that may be running: locking is needed when more than one */
    size_t next, finished; /* items taken, items finished */
#if MF_HAVE_PTHREADS
    pthread_mutex_t mu;
    pthread_cond_t go; /* an item finished */
#endif
};

typedef struct member {
    mf__team *tm;
    size_t id;
} member;

static void lock(mf__team *tm)
{
#if MF_HAVE_PTHREADS
    if (tm->members > 1)
        pthread_mutex_lock(&tm->mu);
#else
    (void)tm;
#endif
}

static void unlock(mf__team *tm)
{
#if MF_HAVE_PTHREADS
    if (tm->members > 1)
        pthread_mutex_unlock(&tm->mu);
#else
    (void)tm;
#endif
}

size_t mf__team_take(mf__team *tm, size_t total)
{
    size_t item;
    lock(tm);
    item = tm->next < total ? tm->next++ : SIZE_MAX;
    unlock(tm);
    return item;
}

void mf__team_wait(mf__team *tm, size_t count)
{
#if MF_HAVE_PTHREADS
    lock(tm);
    while (tm->finished < count)
        pthread_cond_wait(&tm->go, &tm->mu);
    unlock(tm);
#else
    (void)tm, (void)count; /* one member: every item before this one is finished */
#endif
}

void mf__team_finished(mf__team *tm)
{
    lock(tm);
    tm->finished++;
#if MF_HAVE_PTHREADS
    if (tm->members > 1)
        pthread_cond_broadcast(&tm->go);
#endif
    unlock(tm);
}

#if MF_HAVE_PTHREADS
static void *member_run(void *arg)
{
    member *me = (member *)arg;
    me->tm->fn(me->tm, me->id, me->tm->ctx);
    return NULL;
}
#endif

size_t mf__team_run(size_t want, mf__team_fn fn, void *ctx)
{
    mf__team tm;
    size_t started = 1;
#if MF_HAVE_PTHREADS
    pthread_t tid[MF__TEAM_MAX];
    member me[MF__TEAM_MAX];
#endif
    if (want > MF__TEAM_MAX)
        want = MF__TEAM_MAX;
    tm.fn = fn, tm.ctx = ctx, tm.next = tm.finished = 0;
#if MF_HAVE_PTHREADS
    tm.members = want; /* the queue is locked from the first thread on */
    if (want > 1) {
        pthread_mutex_init(&tm.mu, NULL);
        pthread_cond_init(&tm.go, NULL);
        for (; started < want; started++) {
            me[started].tm = &tm, me[started].id = started;
            if (pthread_create(&tid[started], NULL, member_run, &me[started]) != 0)
                break;
        }
    }
#else
    tm.members = 1;
#endif
    fn(&tm, 0, ctx);
#if MF_HAVE_PTHREADS
    if (want > 1) {
        for (size_t t = 1; t < started; t++)
            pthread_join(tid[t], NULL);
        pthread_cond_destroy(&tm.go);
        pthread_mutex_destroy(&tm.mu);
    }
#endif
    return started;
}
