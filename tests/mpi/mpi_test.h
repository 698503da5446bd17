/* SPDX-License-Identifier: MIT */
/* tests/mpi/mpi_test.h - what the MPI tests share: this process's rank and CHECK, which names the rank and
 * ends the whole job (MPI_Abort), so that no rank is left waiting in a collective for a failed one. */
#ifndef MF_MPI_TEST_H
#define MF_MPI_TEST_H

#include <stdio.h>

#include <mpi.h>

static int rank, ranks;

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "rank %d: FAIL %s:%d: %s: ", rank, __FILE__, __LINE__, #cond);                             \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fprintf(stderr, "\n");                                                                                     \
            fflush(stderr);                                                                                            \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                                              \
        }                                                                                                              \
    } while (0)

#endif /* MF_MPI_TEST_H */
