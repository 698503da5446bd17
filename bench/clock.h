/* SPDX-License-Identifier: MIT */
/* bench/clock.h - the timing helpers the benchmark programs share: a monotonic clock in seconds and
 * the median of a few timings. */
#ifndef MF_BENCH_CLOCK_H
#define MF_BENCH_CLOCK_H

#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n-1] (sorts v) */
static double median_of(double *v, size_t n)
{
    qsort(v, n, sizeof v[0], cmp_double);
    return v[n / 2];
}

#endif /* MF_BENCH_CLOCK_H */
