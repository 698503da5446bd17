/* SPDX-License-Identifier: MIT */
/* minifloat/mpi.h - data-parallel training over MPI: the reduction hook over a communicator, and
 * deterministic gradient sums (library minifloat_mpi, built where CMake finds MPI; docs/distributed.md).
 *
 *   mf_mpi_reduce red;
 *   mf_loss_scaler_config cfg = mf_loss_scaler_config_default();
 *   mf_mpi_reduce_init(&red, MPI_COMM_WORLD, &cfg.reduce);   // the scaler reduces found_inf over it
 *   ...
 *   mf_mpi_allreduce_sum(MPI_COMM_WORLD, MF_BF16, grads_bf16, grads_f32, n);  // same bits everywhere
 *
 * Every function here is a collective over its communicator: every rank calls it, in the same order,
 * with the same n (and fmt). Errors: the sums check each rank's own arguments first and exchange a
 * status before moving data, so a rank whose arguments fail returns its own code and every other rank
 * MF_E_REDUCE, nobody waits and nothing is written; only MPI_COMM_NULL (MF_E_NULL) returns at once,
 * without taking part. An MPI call that fails returns MF_E_REDUCE; whether it does depends on the
 * communicator's error handler: MPI's default, MPI_ERRORS_ARE_FATAL, ends the job instead (which a
 * collective failure usually calls for); set MPI_ERRORS_RETURN on it to see the codes. After an MPI
 * failure the other ranks may be left inside the collective: treat it as fatal to the job.
 */
#ifndef MINIFLOAT_MPI_H
#define MINIFLOAT_MPI_H

#include <mpi.h>

#include "types.h"

MF_BEGIN_DECLS

/* The context of the MPI reduction hook. Plain data; the communicator is used as given (not
 * duplicated), so it must outlive every call through the hook. */
typedef struct mf_mpi_reduce {
    MPI_Comm comm;
    int mpi_error; /* the error code of the last failed MPI call, MPI_SUCCESS if none */
} mf_mpi_reduce;

/* Set ctx->comm = comm, ctx->mpi_error = MPI_SUCCESS and *hook = {mf_mpi_reduce_max, ctx}: give hook to
 * mf_loss_scaler_config.reduce, mf_fp8_delayed_cfg.reduce or mf_fp8_quantize_current_reduced. Local,
 * not a collective. Returns MF_OK, or MF_E_NULL (ctx or hook NULL, or comm is MPI_COMM_NULL) and
 * writes nothing. */
MF_API int mf_mpi_reduce_init(mf_mpi_reduce *ctx, MPI_Comm comm, mf_reduce_hook *hook);

/* The hook's callback (mf_reduce_max_fn; ctx is a mf_mpi_reduce): MPI_Allreduce in place of the n
 * values' bit patterns as int32 with MPI_MAX over ctx->comm, which is the float maximum for the
 * non-negative values and +NaNs of the hook's contract. n above INT_MAX goes in several calls; n = 0
 * makes none. Returns 0, or nonzero: -1 without taking part when ctx is NULL, its comm is
 * MPI_COMM_NULL, or values is NULL with n > 0 (a caller's bug: the other ranks wait); an MPI error
 * code when an MPI call failed (also kept in ctx->mpi_error). */
MF_API int mf_mpi_reduce_max(void *ctx, float *values, size_t n);

/* Deterministic sum over the ranks of each rank's n-element vector send, in fmt MF_FP32 or MF_BF16
 * (bf16 codes as uint16_t: half the bytes on the wire): recv[i] = ((x_0[i] + x_1[i]) + x_2[i]) + ...
 * in binary32 round-to-nearest-even in rank order, x_r = rank r's element decoded exactly to binary32,
 * computed in integers (the FP environment cannot change a bit; a NaN operand comes out quieted,
 * inf + -inf gives 0x7FC00000), so every rank holds the same bits whatever MPI's algorithm. It runs
 * as mf_mpi_reduce_scatter_sum then mf_mpi_allgather_shards: each rank sends and receives about n
 * elements, whatever the number of ranks. recv is binary32 [n]; send and recv must not overlap.
 * Returns MF_OK, or:
 *   MF_E_NULL     comm is MPI_COMM_NULL (returns at once), or send or recv NULL with n > 0;
 *   MF_E_FORMAT   fmt is not MF_FP32 or MF_BF16;
 *   MF_E_SIZE     n > INT_MAX - (ranks - 1): MPI's int counts (refused, not chunked);
 *   MF_E_OVERLAP  send and recv overlap;
 *   MF_E_NOMEM    a work buffer could not be allocated;
 *   MF_E_REDUCE   another rank failed (its arguments, or n or fmt differ from this rank's), or an MPI
 *                 call failed.
 * On every error but a failed MPI call after the data exchange began, recv is untouched on every rank. */
MF_API int mf_mpi_allreduce_sum(MPI_Comm comm, mf_format fmt, const void *send, float *recv, size_t n);

/* The same ordered sum as a reduce-scatter: the n elements are split into `ranks` contiguous shards,
 * shard r = [n*r/ranks, n*(r+1)/ranks) (floor division, computed without overflow), and this rank
 * receives only its own shard's sums, into recv[0 .. count-1] (count = the shard's length, which may
 * be 0). recv must not overlap send. Returns as mf_mpi_allreduce_sum. */
MF_API int mf_mpi_reduce_scatter_sum(MPI_Comm comm, mf_format fmt, const void *send, float *recv, size_t n);

/* All-gather of binary32 shards (the split of mf_mpi_reduce_scatter_sum): every rank passes its shard
 * mine (count elements) and receives the whole n-vector in all, bits unchanged. mine may be exactly
 * its place in all (&all[n*rank/ranks]: gathered in place); any other overlap is MF_E_OVERLAP. Returns
 * MF_OK, MF_E_NULL (comm MPI_COMM_NULL; all NULL with n > 0; mine NULL with count > 0), MF_E_SIZE,
 * MF_E_OVERLAP, MF_E_NOMEM or MF_E_REDUCE, as mf_mpi_allreduce_sum. */
MF_API int mf_mpi_allgather_shards(MPI_Comm comm, const float *mine, float *all, size_t n);

/* The shard of rank `rank` among `ranks` in an n-element vector: *start = n*rank/ranks and *count =
 * n*(rank+1)/ranks - *start, without overflow. Returns MF_OK, MF_E_NULL (start or count NULL) or
 * MF_E_ARG (ranks < 1, or rank outside [0, ranks)). */
MF_API int mf_mpi_shard(size_t n, int rank, int ranks, size_t *start, size_t *count);

MF_END_DECLS

#endif /* MINIFLOAT_MPI_H */
