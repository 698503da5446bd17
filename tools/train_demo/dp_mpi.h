/* SPDX-License-Identifier: MIT */
/* tools/train_demo/dp_mpi.h - a dp_comm (dp.h) over an MPI communicator, from the minifloat_mpi adapter.
 * Header-only so that mf_tools itself never needs MPI: include it where minifloat_mpi is linked
 * (examples/train_mpi.c, tests/mpi/test_train_dp.c). */
#ifndef DEMO_DP_MPI_H
#define DEMO_DP_MPI_H

#include <minifloat/mpi.h>

#include "dp.h"

static inline int dp_mpi_allreduce_(void *ctx, mf_format wire, const void *send, float *recv, size_t n)
{
    return mf_mpi_allreduce_sum(((mf_mpi_reduce *)ctx)->comm, wire, send, recv, n);
}

static inline int dp_mpi_reduce_scatter_(void *ctx, mf_format wire, const void *send, float *recv, size_t n)
{
    return mf_mpi_reduce_scatter_sum(((mf_mpi_reduce *)ctx)->comm, wire, send, recv, n);
}

static inline int dp_mpi_allgather_(void *ctx, const float *mine, float *all, size_t n)
{
    return mf_mpi_allgather_shards(((mf_mpi_reduce *)ctx)->comm, mine, all, n);
}

/* *c over comm, with red (which must outlive c) as the context of both the sums and the reduce hook;
 * with_hook 0 leaves c->reduce empty (to show what the hook prevents). MF_OK, or MF_E_NULL / MF_E_REDUCE. */
static inline int dp_comm_mpi(dp_comm *c, mf_mpi_reduce *red, MPI_Comm comm, int with_hook)
{
    mf_reduce_hook h;
    int rc = mf_mpi_reduce_init(red, comm, &h);
    if (rc != MF_OK)
        return rc;
    if (MPI_Comm_rank(comm, &c->rank) != MPI_SUCCESS || MPI_Comm_size(comm, &c->size) != MPI_SUCCESS)
        return MF_E_REDUCE;
    c->ctx = red;
    c->allreduce_sum = dp_mpi_allreduce_;
    c->reduce_scatter_sum = dp_mpi_reduce_scatter_;
    c->allgather_shards = dp_mpi_allgather_;
    c->reduce.max = with_hook ? h.max : NULL;
    c->reduce.ctx = with_hook ? h.ctx : NULL;
    return MF_OK;
}

#endif /* DEMO_DP_MPI_H */
