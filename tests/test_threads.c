/* SPDX-License-Identifier: MIT */
/* tests/test_threads.c - a process's first conversions, made by several threads at once.
 *
 * The backends build some tables on first use (the decode tables, the table kernels' constants), and the
 * first calls of a process may come from several threads together: from the caller's threads, and from
 * mf_convert itself with opts.threads. Here THREADS threads make the process's first conversions of
 * several kinds, meeting at a barrier before each kind so that they start it together; every result must equal the same conversion made
 * afterwards on one thread. scripts/setup.sh test also runs this program built with ThreadSanitizer
 * (build-tsan), where a data race fails it: writing the decode tables from two threads at once was one.
 * Then the threads multiply matrices of different sizes at once (mf_gemm hands its work buffer from one
 * call to the next), each product equal to the same one made afterwards on one thread.
 *
 * A plain program, not a check suite: check runs each test in a forked child of a process that may
 * already have built the tables, and the point is a process that has not. */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "minifloat.h"

enum { THREADS = 4, N = 1 << 14, NPAR = 1 << 18, KINDS = 6, GEMMS = 32, GN = 96 };

typedef struct job {
    mf_format s, d;
    mf_round r;
    mf_overflow o;
    size_t n;
    unsigned threads; /* opts.threads */
} job;

static const job jobs[KINDS] = {
    {MF_FP32, MF_FP8_E4M3, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE, N, 0},  /* table kernel */
    {MF_FP8_E4M3, MF_FP32, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, N, 0},      /* decode tables */
    {MF_FP16, MF_FP4_E2M1, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE, N, 0},  /* widening, e2m1 pack */
    {MF_FP32, MF_BF16, MF_ROUND_STOCHASTIC, MF_OVERFLOW_SATURATE, N, 0},        /* Philox chains */
    {MF_FP4_E2M1, MF_FP32, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, N, 0},      /* decode tables */
    {MF_FP32, MF_FP8_E5M2, MF_ROUND_TOWARD_ZERO, MF_OVERFLOW_SATURATE, NPAR, 4} /* threads inside */
};

static uint8_t *src[KINDS];                 /* each kind's input */
static uint8_t *out[THREADS + 1][KINDS];    /* [THREADS]: the single-thread reference */
static size_t out_bytes[KINDS];
static pthread_barrier_t start;
static int failures;
static float gemm_in[2][GN * (GN + GEMMS)]; /* A is s x (s + q), B (s + q) x s */
static float gemm_out[THREADS + 1][GEMMS][GN * GN];

/* Product q of thread t: a size that differs between threads and calls, so buffers of several sizes change
 * hands; two threads run each size's GEMM on two threads of their own. */
static void gemm_call(int t, int q, float *c)
{
    const size_t s = 48 + (size_t)((t * 7 + q * 5) % 4) * 16;
    mf_gemm_opts o;
    int rc;
    memset(&o, 0, sizeof o);
    o.threads = 1 + (t & 1);
    rc = mf_gemm(MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, s, s, s + (size_t)q, 1.0f, gemm_in[0], MF_FP32, s + (size_t)q,
                 gemm_in[1], MF_FP32, s, 0.0f, c, MF_FP32, s, &o);
    if (rc != MF_OK) {
        fprintf(stderr, "gemm %d of thread %d: mf_gemm returned %d (%s)\n", q, t, rc, mf_strerror(rc));
        __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
    }
}

static void convert(int k, uint8_t *dst)
{
    const job *j = &jobs[k];
    mf_opts o = {j->r, j->o, 0x5EEDu + (uint64_t)k, 3, NULL, j->threads, MF_PROFILE_DEFAULT};
    int rc = mf_convert(j->d, dst, j->s, src[k], j->n, &o);
    if (rc != MF_OK) {
        fprintf(stderr, "kind %d: mf_convert returned %d (%s)\n", k, rc, mf_strerror(rc));
        __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
    }
}

static void *worker(void *arg)
{
    const int t = (int)(intptr_t)arg;
    int k;
    for (k = 0; k < KINDS; k++) { /* all threads start each kind together */
        pthread_barrier_wait(&start);
        convert(k, out[t][k]);
    }
    pthread_barrier_wait(&start);
    for (k = 0; k < GEMMS; k++)
        gemm_call(t, k, gemm_out[t][k]);
    return NULL;
}

/* Inputs: binary32 values over the narrow formats' binades, and raw codes for narrow sources. */
static void fill(int k)
{
    uint64_t x = 0x9E3779B97F4A7C15u * (uint64_t)(k + 1);
    size_t i, bytes = mf_storage_bytes(jobs[k].s, jobs[k].n);
    for (i = 0; i < bytes; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        src[k][i] = (uint8_t)(x >> 24);
    }
    if (jobs[k].s == MF_FP32)
        for (i = 0; i < jobs[k].n; i++) {
            uint32_t b;
            memcpy(&b, src[k] + 4 * i, 4);
            b = (b & 0x807FFFFFu) | ((uint32_t)(100 + b % 50) << 23); /* 2^-27 .. 2^22 */
            memcpy(src[k] + 4 * i, &b, 4);
        }
}

int main(void)
{
    pthread_t th[THREADS];
    int t, k;
    for (k = 0; k < KINDS; k++) {
        src[k] = malloc(mf_storage_bytes(jobs[k].s, jobs[k].n));
        out_bytes[k] = mf_storage_bytes(jobs[k].d, jobs[k].n);
        if (!src[k])
            return 1;
        fill(k);
        for (t = 0; t <= THREADS; t++)
            if (!(out[t][k] = calloc(1, out_bytes[k])))
                return 1;
    }
    for (t = 0; t < GN * (GN + GEMMS); t++) {
        gemm_in[0][t] = (float)((t * 37) % 101 - 50) / 16.0f;
        gemm_in[1][t] = (float)((t * 53) % 97 - 48) / 32.0f;
    }
    pthread_barrier_init(&start, NULL, THREADS);
    for (t = 0; t < THREADS; t++)
        if (pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) != 0)
            return 1;
    for (t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    for (k = 0; k < KINDS; k++) /* the reference: one thread, tables built */
        convert(k, out[THREADS][k]);
    for (t = 0; t < THREADS; t++)
        for (k = 0; k < KINDS; k++)
            if (memcmp(out[t][k], out[THREADS][k], out_bytes[k]) != 0) {
                fprintf(stderr, "thread %d, kind %d (%s -> %s): differs from the one-thread result\n", t, k,
                        mf_format_name(jobs[k].s), mf_format_name(jobs[k].d));
                failures++;
            }
    for (t = 0; t < THREADS; t++)
        for (k = 0; k < GEMMS; k++) {
            memset(gemm_out[THREADS][k], 0, sizeof gemm_out[THREADS][k]); /* as the threads' outputs beyond C */
            gemm_call(t, k, gemm_out[THREADS][k]);
            if (memcmp(gemm_out[t][k], gemm_out[THREADS][k], sizeof gemm_out[t][k]) != 0) {
                fprintf(stderr, "thread %d, gemm %d: differs from the one-thread result\n", t, k);
                failures++;
            }
        }
    printf("%d threads x %d kinds of first conversions (backend %s): %s\n", THREADS, KINDS, mf_backend(),
           failures ? "FAILED" : "all equal to one thread's");
    return failures != 0;
}
