/* SPDX-License-Identifier: MIT */
/* bench/mpi_allreduce: the deterministic sums of <minifloat/mpi.h> against MPI's own MPI_Allreduce
 * (MPI_FLOAT, MPI_SUM) on the same vector, interleaved in one run (not a test):
 *   mpiexec -n 2 build/bench/mpi_allreduce [--n N] [--reps R]
 * and the reduce-scatter halves against MPI_Reduce_scatter_block. Rank 0 prints one CSV row per
 * implementation: the median over R repetitions of the slowest rank's time, and the ratio to MPI's own
 * (MPI_Allreduce, or MPI_Reduce_scatter_block). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <minifloat/mpi.h>

#include "clock.h"

enum { IMPL_MPI, IMPL_F32, IMPL_BF16, IMPL_MPI_RS, IMPL_RS_F32, IMPL_RS_BF16, IMPL_COUNT };
static const char *const impl_name[IMPL_COUNT] = {
    "MPI_Allreduce f32",           "mf_mpi_allreduce_sum f32",      "mf_mpi_allreduce_sum bf16",
    "MPI_Reduce_scatter_block f32", "mf_mpi_reduce_scatter_sum f32", "mf_mpi_reduce_scatter_sum bf16"};

int main(int argc, char **argv)
{
    size_t n = (size_t)16 << 20, i;
    int reps = 7, rank, ranks, rep, k, a;
    float *send, *recv;
    uint16_t *send16;
    double *t[IMPL_COUNT];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    for (a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--n") && a + 1 < argc)
            n = (size_t)strtoull(argv[++a], NULL, 0);
        else if (!strcmp(argv[a], "--reps") && a + 1 < argc)
            reps = atoi(argv[++a]);
        else {
            if (rank == 0)
                fprintf(stderr, "usage: mpiexec -n R bench/mpi_allreduce [--n N] [--reps R]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (reps < 1)
        reps = 1;
    send = (float *)malloc(n * sizeof(float));
    recv = (float *)malloc(n * sizeof(float));
    send16 = (uint16_t *)malloc(n * sizeof(uint16_t));
    for (k = 0; k < IMPL_COUNT; k++)
        if (!(t[k] = (double *)malloc((size_t)reps * sizeof(double)))) {
            fprintf(stderr, "out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    if (!send || !recv || !send16) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* gradients of mixed magnitudes; every buffer written once, so that no timing pays first-touch faults */
    for (i = 0; i < n; i++) {
        uint32_t z = (uint32_t)(i * 2654435761u) ^ (uint32_t)(rank * 40503);
        float v = (float)((int)(z % 2001u) - 1000) * 1e-3f;
        uint32_t b;
        send[i] = v;
        memcpy(&b, &v, 4);
        send16[i] = (uint16_t)(b >> 16);
        recv[i] = 0.0f;
    }
    /* one warm-up call of each, then the repetitions interleaved */
    for (rep = -1; rep < reps; rep++) {
        for (k = 0; k < IMPL_COUNT; k++) {
            double t0, dt, worst;
            int rc = MPI_SUCCESS;
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = now();
            if (k == IMPL_MPI)
                rc = MPI_Allreduce(send, recv, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            else if (k == IMPL_F32)
                rc = mf_mpi_allreduce_sum(MPI_COMM_WORLD, MF_FP32, send, recv, n);
            else if (k == IMPL_BF16)
                rc = mf_mpi_allreduce_sum(MPI_COMM_WORLD, MF_BF16, send16, recv, n);
            else if (k == IMPL_MPI_RS) /* n / ranks each: the shards of an n divisible by ranks */
                rc = MPI_Reduce_scatter_block(send, recv, (int)(n / (size_t)ranks), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            else
                rc = mf_mpi_reduce_scatter_sum(MPI_COMM_WORLD, k == IMPL_RS_F32 ? MF_FP32 : MF_BF16,
                                               k == IMPL_RS_F32 ? (const void *)send : (const void *)send16, recv,
                                               n / (size_t)ranks * (size_t)ranks);
            dt = now() - t0;
            if (rc != 0) {
                fprintf(stderr, "%s failed: %d\n", impl_name[k], rc);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (rep >= 0)
                t[k][rep] = worst;
        }
    }
    if (rank == 0) {
        double med[IMPL_COUNT];
        for (k = 0; k < IMPL_COUNT; k++)
            med[k] = median_of(t[k], (size_t)reps);
        printf("# %d ranks, n = %zu, median of %d interleaved repetitions (slowest rank)\n", ranks, n, reps);
        printf("impl,ranks,n,ms,vs_mpi\n");
        for (k = 0; k < IMPL_COUNT; k++)
            printf("%s,%d,%zu,%.3f,%.3f\n", impl_name[k], ranks, n, med[k] * 1e3,
                   med[k] / med[k < IMPL_MPI_RS ? IMPL_MPI : IMPL_MPI_RS]);
    }
    for (k = 0; k < IMPL_COUNT; k++)
        free(t[k]);
    free(send);
    free(recv);
    free(send16);
    MPI_Finalize();
    return 0;
}
