/* SPDX-License-Identifier: MIT */
/* An installed minifloat_mpi in use: a deterministic sum over the ranks (mpiexec -n 2 or more). */
#include <stdio.h>

#include <minifloat/mpi.h>

int main(int argc, char **argv)
{
    float send[5], recv[5];
    int rank, ranks, i, rc, ok = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    for (i = 0; i < 5; i++)
        send[i] = (float)(i + 1) * (float)(rank + 1); /* sum over ranks: (i + 1) * ranks (ranks + 1) / 2 */
    rc = mf_mpi_allreduce_sum(MPI_COMM_WORLD, MF_FP32, send, recv, 5);
    for (i = 0; i < 5; i++)
        ok &= recv[i] == (float)((i + 1) * ranks * (ranks + 1) / 2);
    if (rank == 0)
        printf("use_mpi: %d ranks: %s\n", ranks, rc == MF_OK && ok ? "ok" : "WRONG");
    MPI_Finalize();
    return rc == MF_OK && ok ? 0 : 1;
}
