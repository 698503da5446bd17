/* SPDX-License-Identifier: MIT */
/* src/team.c - the library's one thread team (internal.h): the calling thread and up to want - 1 more run one
 * function and take their work from a shared queue, items in order. Whoever takes an item, it is computed the
 * same way, so results do not depend on how many threads started (a thread that cannot be created is simply
 * one member fewer) or on which took what. The threads are kept between calls (the pool below). Without POSIX
 * threads the caller alone runs everything. */
#include <stdint.h>
#include <stdlib.h>

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

/* Waiting spins a little before it sleeps: a sleeping member is woken through the kernel, which may take longer
 * than a call's phase (a virtual CPU left idle is rescheduled late, or the wakee is put on the waker's core), and
 * the team then runs on fewer cores than it has. A spin reads the counters with atomic loads (their writers hold
 * the lock and store them atomically); whether it saw the change or gave up, the locked wait below decides. */
#if MF_HAVE_PTHREADS && defined(__GNUC__)
#define SPIN_UNTIL(cond, iters)                                                                                        \
    for (unsigned long spin_ = 0; spin_ < (iters) && !(cond); spin_++)                                                 \
    cpu_relax()
#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}
#else
#define SPIN_UNTIL(cond, iters) ((void)0)
#define STORE(x, v) ((x) = (v))
#endif
enum { SPIN_PHASE = 1u << 14, SPIN_IDLE = 1u << 15 }; /* pause loops: a few tenths of a millisecond and about twice */

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
    if (tm->members > 1)
        SPIN_UNTIL(LOAD(tm->finished) >= count, SPIN_PHASE);
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
    STORE(tm->finished, tm->finished + 1);
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

/* The pool: worker threads started on first need and kept, each waiting for the next team's job, so that a
 * call pays neither a thread's creation nor its first migration to an idle core (a sizeable share of a call
 * that lasts milliseconds). One team at a time runs on it; a team that finds it busy (another
 * caller's, or one inside a member) starts threads of its own as before. After fork() the child has none of
 * the parent's workers: the pool starts again empty. */
static struct pool {
    pthread_mutex_t mu;
    pthread_cond_t wake, done;
    size_t workers;     /* started, numbered 1 .. workers */
    int busy;           /* a team runs on the pool */
    unsigned long gen;  /* jobs published */
    mf__team *tm;       /* the job: members 1 .. want - 1 of this team */
    size_t want;
    size_t pending;     /* of those, members not finished */
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, NULL, 0, 0};

static pthread_once_t pool_once = PTHREAD_ONCE_INIT;

static void pool_after_fork(void)
{
    pthread_mutex_init(&pool.mu, NULL);
    pthread_cond_init(&pool.wake, NULL);
    pthread_cond_init(&pool.done, NULL);
    pool.workers = 0, pool.busy = 0, pool.pending = 0, pool.tm = NULL;
}

static void pool_init(void) { pthread_atfork(NULL, NULL, pool_after_fork); }

typedef struct worker_arg {
    size_t id;
    unsigned long seen; /* the last job it has seen: the one before it was started */
} worker_arg;

static void *worker(void *arg)
{
    const size_t id = ((worker_arg *)arg)->id;
    unsigned long seen = ((worker_arg *)arg)->seen;
    free(arg);
    pthread_mutex_lock(&pool.mu);
    for (;;) {
        if (pool.gen == seen) { /* no job yet: spin for the next one outside the lock, then sleep */
            pthread_mutex_unlock(&pool.mu);
            SPIN_UNTIL(LOAD(pool.gen) != seen, SPIN_IDLE);
            pthread_mutex_lock(&pool.mu);
        }
        while (pool.gen == seen)
            pthread_cond_wait(&pool.wake, &pool.mu);
        seen = pool.gen;
        if (id < pool.want) {
            mf__team *tm = pool.tm;
            pthread_mutex_unlock(&pool.mu);
            tm->fn(tm, id, tm->ctx);
            pthread_mutex_lock(&pool.mu);
            STORE(pool.pending, pool.pending - 1);
            if (pool.pending == 0)
                pthread_cond_signal(&pool.done);
        }
    }
    return NULL;
}

/* Run tm on the pool with up to want members; returns how many ran, or 0 where the pool is busy. */
static size_t pool_run(mf__team *tm, size_t want)
{
    pthread_once(&pool_once, pool_init);
    pthread_mutex_lock(&pool.mu);
    if (pool.busy) {
        pthread_mutex_unlock(&pool.mu);
        return 0;
    }
    pool.busy = 1;
    while (pool.workers + 1 < want) { /* more workers, each to see the job published below */
        pthread_t t;
        pthread_attr_t at;
        worker_arg *wa = (worker_arg *)malloc(sizeof *wa);
        int ok = wa != NULL && pthread_attr_init(&at) == 0;
        if (ok) {
            wa->id = pool.workers + 1, wa->seen = pool.gen;
            pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
            ok = pthread_create(&t, &at, worker, wa) == 0;
            pthread_attr_destroy(&at);
        }
        if (!ok) {
            free(wa);
            break;
        }
        pool.workers++;
    }
    if (want > pool.workers + 1)
        want = pool.workers + 1;
    tm->members = want;
    if (want > 1) {
        pthread_mutex_init(&tm->mu, NULL);
        pthread_cond_init(&tm->go, NULL);
    }
    pool.tm = tm, pool.want = want;
    STORE(pool.pending, want - 1);
    STORE(pool.gen, pool.gen + 1);
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.mu);
    tm->fn(tm, 0, tm->ctx);
    SPIN_UNTIL(LOAD(pool.pending) == 0, SPIN_PHASE);
    pthread_mutex_lock(&pool.mu);
    while (pool.pending)
        pthread_cond_wait(&pool.done, &pool.mu);
    pool.busy = 0, pool.tm = NULL;
    pthread_mutex_unlock(&pool.mu);
    if (want > 1) {
        pthread_cond_destroy(&tm->go);
        pthread_mutex_destroy(&tm->mu);
    }
    return want;
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
    tm.fn = fn, tm.ctx = ctx, tm.next = 0;
    STORE(tm.finished, 0);
#if MF_HAVE_PTHREADS
    if (want > 1 && (started = pool_run(&tm, want)) != 0)
        return started;
    started = 1;
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
