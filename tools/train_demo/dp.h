/* SPDX-License-Identifier: MIT */
/* tools/train_demo/dp.h - data-parallel training of the demo's model (data_parallel.c).
 *
 * R ranks train one model on the global batch the single-process demo uses at each step: rank r runs
 * the forward and backward passes on rows [r*B/R, (r+1)*B/R) of it, with the loss gradient divided by
 * the global B so that the ranks' gradients add up to the batch's. The gradients, flattened into one
 * f32 vector (layer 0 weights, layer 0 biases, layer 1 weights, ...; rounded to bf16 first for the
 * bf16 wire), are summed in rank order in binary32, and then:
 *   unsharded  all-reduce: every rank unscales (fp16-ls) and updates all weights;
 *   sharded    reduce-scatter: rank r holds elements [n*r/R, n*(r+1)/R) of the sum, unscales only
 *              that shard (so the found-inf flag must be max-reduced: the scaler's reduce hook), runs
 *              Adam on its shard of the weights and the ranks all-gather the updated shards.
 * Under fp8 every delayed-scaling state carries the reduce hook, so the amaxes are max-reduced and the
 * scales agree. Nothing here depends on MPI: the ranks talk through dp_comm (an MPI one is dp_mpi.h),
 * and dp_init with no dp_comm simulates the R ranks in one process, one slice after another, summing
 * in the same order, which gives the same bits as R processes (the reference the MPI tests compare to).
 */
#ifndef DEMO_DP_H
#define DEMO_DP_H

#include <stddef.h>
#include <stdint.h>

#include "train_demo.h"

/* How the ranks communicate. Every function is a collective: all ranks make the same calls in the same
 * order. Each returns MF_OK or a negative mf code (MF_E_REDUCE when the transport failed). */
typedef struct dp_comm {
    int rank, size; /* this rank, the number of ranks (1 .. the batch size) */
    void *ctx;      /* passed to the functions below */
    /* recv[i] = ((x_0[i] + x_1[i]) + x_2[i]) + ... in binary32 rn, x_r = rank r's send decoded from
     * wire (MF_FP32: float, MF_BF16: uint16_t codes); the same bits on every rank. */
    int (*allreduce_sum)(void *ctx, mf_format wire, const void *send, float *recv, size_t n);
    /* The same sum, but this rank receives only its shard [n*r/R, n*(r+1)/R) into recv[0 ..]. */
    int (*reduce_scatter_sum)(void *ctx, mf_format wire, const void *send, float *recv, size_t n);
    /* Each rank gives its shard (the split above) and receives the whole n-vector. */
    int (*allgather_shards)(void *ctx, const float *mine, float *all, size_t n);
    /* The cross-rank maximum the loss scaler and the fp8 states use; {NULL, NULL}: none (then a
     * sharded fp16-ls run lets each rank decide on its own shard: the ranks drift apart). */
    mf_reduce_hook reduce;
} dp_comm;

/* What to train. */
typedef struct dp_options {
    demo_config config;  /* DEMO_FP32, DEMO_BF16, DEMO_FP16, DEMO_FP16_LS or DEMO_FP8 */
    mf_format wire;      /* gradients on the wire: MF_FP32, or MF_BF16 (summed in f32) */
    int sharded;         /* nonzero: reduce-scatter, per-shard unscale and Adam, all-gather */
    float ls_init_scale; /* fp16-ls: the scaler's initial scale; 0 = GradScaler's 65536 */
} dp_options;

/* The state every rank must agree on, and the run's outcome. */
typedef struct dp_result {
    int rank, size;
    uint64_t steps, skipped; /* optimizer steps attempted and skipped (fp16-ls: inf/NaN found) */
    float loss_scale;        /* fp16-ls: the scaler's scale; else 0 */
    float fp8_scale_out;     /* fp8: delayed scale of the logits gradient; else 0 */
    float fp8_scale_in;      /* fp8: delayed scale of the first layer's output gradient; else 0 */
    uint64_t weights_digest; /* FNV-1a 64 over the bits of all f32 master weights, flat order */
    uint64_t state_digest;   /* FNV-1a 64 over the scaler (scale, trackers, counters), every fp8
                                 state (scales, history, steps) and the step counters */
    double last_loss;        /* mean training loss of the last epoch over the global batches (the
                                 ranks' sums are all-reduced: the same on every rank) */
    double test_acc;         /* accuracy of the master weights on the test set */
} dp_result;

typedef struct dp_trainer dp_trainer;

/* Check o for use with p on ranks ranks: MF_OK or MF_E_ARG (unsupported config or wire, ranks out of
 * 1 .. p->batch) or MF_E_NULL. */
int dp_check(const demo_params *p, const dp_options *o, int ranks);

/* A trainer at step 0. comm NULL: simulate `ranks` ranks in this process; else comm->size ranks (ranks
 * is ignored) of which this is comm->rank, and comm->reduce (if set) goes into the scaler and the fp8
 * states. Not a collective. Returns MF_OK, MF_E_NULL, MF_E_ARG, MF_E_SIZE or a library error; *out
 * is NULL on error. */
int dp_init(dp_trainer **out, const demo_params *p, const dp_options *o, const dp_comm *comm, int ranks);

/* Steps in the run: p->epochs * (p->n_train / p->batch). */
long long dp_total_steps(const dp_trainer *d);
/* Steps done so far. */
long long dp_steps_done(const dp_trainer *d);

/* The next step (a collective). MF_OK; or the first error of a communication or of the scaler's or
 * the fp8 states' reductions (MF_E_REDUCE), in which case the weights, Adam moments, scaler, fp8
 * states and counters are exactly as before the call, and calling again retries the same step.
 * Errors after the update is applied cannot happen, except in the final all-gather of the sharded
 * variant, which is undone on this rank as well (another rank whose all-gather succeeded keeps it). */
int dp_step(dp_trainer *d);

/* Fill *r from the current state (a collective: the loss sum is all-reduced). MF_OK or an error. */
int dp_result_get(dp_trainer *d, dp_result *r);

void dp_free(dp_trainer *d);

/* dp_init, all steps, dp_result_get, dp_free. */
int dp_train(const demo_params *p, const dp_options *o, const dp_comm *comm, int ranks, dp_result *r);

/* FNV-1a 64 of n bytes, continuing from h (start with DP_FNV_OFFSET). */
#define DP_FNV_OFFSET 0xcbf29ce484222325ull
uint64_t dp_fnv1a(uint64_t h, const void *data, size_t n);

#endif /* DEMO_DP_H */
