/* SPDX-License-Identifier: MIT */
/* tests/mpi/test_train_dp.c - data-parallel training of the demo's model over MPI (tools/train_demo/dp.h;
 * label mpi, run by mpiexec with 2 and 3 ranks: tests/train_dp.cmake).
 *
 * What the issue asks of it: with the reduce hook, every rank ends with bit-identical weights, loss
 * scale, counters and fp8 scales, equal to one process that simulates the ranks over the same global
 * batches (fp16-ls and fp8; all-reduce and sharded; f32 and bf16 on the wire); without the hook, sharded
 * fp16-ls on a run whose gradients overflow in one rank's shard only, the ranks' scales drift apart; a
 * rank whose callback fails makes the step fail with MF_E_REDUCE on every rank, with nothing changed.
 * Plain checks, not Check's runner (a collective must not be forked); a failing rank calls MPI_Abort so
 * that the others do not wait.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "dp.h"
#include "dp_mpi.h"

#include "mpi/mpi_test.h"

/* Small and quick; the scaler starts high and doubles every 2 clean steps, so the f16 weight gradients
 * of the last layer (the end of the flat vector: the last rank's shard) overflow now and then. */
static demo_params params(void)
{
    demo_params p = demo_params_default(1);
    p.epochs = 4;
    p.n_train = 2048;
    p.hidden = 32;
    p.layers = 2;
    p.ls_growth_interval = 2;
    return p;
}

static dp_options options(demo_config c, mf_format wire, int sharded)
{
    dp_options o;
    memset(&o, 0, sizeof o);
    o.config = c;
    o.wire = wire;
    o.sharded = sharded;
    o.ls_init_scale = 1048576.0f; /* 2^20 */
    return o;
}

static const char *label(const dp_options *o)
{
    static char buf[64];
    snprintf(buf, sizeof buf, "%s %s %s", demo_config_name(o->config), o->wire == MF_BF16 ? "bf16" : "f32",
             o->sharded ? "sharded" : "all-reduce");
    return buf;
}

/* Whether two results hold the same state, bit for bit (the test accuracy follows from the weights). */
static int same_state(const dp_result *a, const dp_result *b)
{
    return a->weights_digest == b->weights_digest && a->state_digest == b->state_digest && a->steps == b->steps &&
           a->skipped == b->skipped && memcmp(&a->loss_scale, &b->loss_scale, sizeof(float)) == 0 &&
           memcmp(&a->fp8_scale_out, &b->fp8_scale_out, sizeof(float)) == 0 &&
           memcmp(&a->fp8_scale_in, &b->fp8_scale_in, sizeof(float)) == 0 &&
           memcmp(&a->last_loss, &b->last_loss, sizeof(double)) == 0;
}

/* Every rank's result equals rank 0's (compared on every rank). */
static void expect_same_on_all(const dp_result *mine, const char *what)
{
    dp_result *all = malloc((size_t)ranks * sizeof *all);
    int r;
    CHECK(all != NULL, "malloc");
    MPI_Allgather(mine, (int)sizeof *mine, MPI_BYTE, all, (int)sizeof *mine, MPI_BYTE, MPI_COMM_WORLD);
    for (r = 1; r < ranks; r++)
        CHECK(same_state(&all[0], &all[r]),
              "%s: rank %d differs from rank 0: weights %016llx vs %016llx, state %016llx vs %016llx, scale %g vs "
              "%g, skipped %llu vs %llu",
              what, r, (unsigned long long)all[r].weights_digest, (unsigned long long)all[0].weights_digest,
              (unsigned long long)all[r].state_digest, (unsigned long long)all[0].state_digest,
              (double)all[r].loss_scale, (double)all[0].loss_scale, (unsigned long long)all[r].skipped,
              (unsigned long long)all[0].skipped);
    free(all);
}

static void expect_same_as(const dp_result *got, const dp_result *want, const char *what)
{
    CHECK(same_state(got, want),
          "%s: differs from the single-process run: weights %016llx vs %016llx, state %016llx vs %016llx, "
          "scale %g vs %g, skipped %llu vs %llu, loss %.17g vs %.17g",
          what, (unsigned long long)got->weights_digest, (unsigned long long)want->weights_digest,
          (unsigned long long)got->state_digest, (unsigned long long)want->state_digest, (double)got->loss_scale,
          (double)want->loss_scale, (unsigned long long)got->skipped, (unsigned long long)want->skipped, got->last_loss,
          want->last_loss);
}

/* (1) With the hook: identical on every rank and equal to the simulation of the ranks in one process. */
static void test_identical(void)
{
    static const demo_config cfgs[] = {DEMO_FP16_LS, DEMO_FP8, DEMO_FP32, DEMO_BF16};
    demo_params p = params();
    mf_mpi_reduce red;
    dp_comm comm;
    size_t c;
    int w, sh;
    CHECK(dp_comm_mpi(&comm, &red, MPI_COMM_WORLD, 1) == MF_OK, "dp_comm_mpi");
    for (c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++)
        for (w = 0; w < 2; w++)
            for (sh = 0; sh < 2; sh++) {
                dp_options o = options(cfgs[c], w ? MF_BF16 : MF_FP32, sh);
                dp_result got, want;
                int rc;
                if (cfgs[c] != DEMO_FP16_LS && cfgs[c] != DEMO_FP8 && (w || !sh))
                    continue; /* fp32 and bf16: the sharded f32 run is enough */
                rc = dp_train(&p, &o, &comm, ranks, &got);
                CHECK(rc == MF_OK, "%s: dp_train over MPI: %s", label(&o), mf_strerror(rc));
                expect_same_on_all(&got, label(&o));
                rc = dp_train(&p, &o, NULL, ranks, &want);
                CHECK(rc == MF_OK, "%s: dp_train simulated: %s", label(&o), mf_strerror(rc));
                expect_same_as(&got, &want, label(&o));
                CHECK(got.steps == (uint64_t)(p.epochs * (p.n_train / p.batch)), "%s: steps %llu", label(&o),
                      (unsigned long long)got.steps);
                /* the run overflows (so the hook decided something) and still trains */
                if (o.config == DEMO_FP16_LS)
                    CHECK(got.skipped > 0 && got.skipped < got.steps, "%s: skipped %llu of %llu", label(&o),
                          (unsigned long long)got.skipped, (unsigned long long)got.steps);
                CHECK(got.last_loss > 0.3 && got.last_loss < 0.75, "%s: loss %g (no sane training)", label(&o),
                      got.last_loss);
                if (rank == 0)
                    printf("ok %-24s skipped %llu  scale %g  weights %016llx\n", label(&o),
                           (unsigned long long)got.skipped, (double)got.loss_scale,
                           (unsigned long long)got.weights_digest);
            }
}

/* (2) Without the hook, sharded fp16-ls: at some step one rank finds inf/NaN in its shard and skips while
 * another steps, and from then on their scales differ (the hook is what keeps them together). */
static void test_diverge_without_hook(void)
{
    demo_params p = params();
    dp_options o = options(DEMO_FP16_LS, MF_FP32, 1);
    mf_mpi_reduce red;
    dp_comm comm;
    dp_trainer *d;
    long long first = -1;
    float *scales = malloc((size_t)ranks * sizeof(float));
    uint64_t *skipped = malloc((size_t)ranks * sizeof(uint64_t));
    CHECK(scales && skipped, "malloc");
    CHECK(dp_comm_mpi(&comm, &red, MPI_COMM_WORLD, 0) == MF_OK, "dp_comm_mpi");
    CHECK(dp_init(&d, &p, &o, &comm, ranks) == MF_OK, "dp_init");
    while (dp_steps_done(d) < dp_total_steps(d)) {
        dp_result r;
        int i, differ = 0;
        CHECK(dp_step(d) == MF_OK, "step %lld", dp_steps_done(d));
        CHECK(dp_result_get(d, &r) == MF_OK, "dp_result_get");
        MPI_Allgather(&r.loss_scale, 1, MPI_FLOAT, scales, 1, MPI_FLOAT, MPI_COMM_WORLD);
        MPI_Allgather(&r.skipped, 1, MPI_UINT64_T, skipped, 1, MPI_UINT64_T, MPI_COMM_WORLD);
        for (i = 1; i < ranks; i++)
            differ |= memcmp(&scales[i], &scales[0], sizeof(float)) != 0;
        if (differ && first < 0) {
            int split = 0;
            first = dp_steps_done(d);
            /* the step that split them: some rank found inf/NaN in its shard and skipped, another stepped
             * (until then equal scales meant equal decisions, so equal skip counts) */
            for (i = 1; i < ranks; i++)
                split |= skipped[i] != skipped[0];
            CHECK(split, "step %lld: the scales differ but the skip counts do not", first);
        }
    }
    CHECK(first > 0, "without the hook the ranks' scales never diverged: the test's premise (an overflow in one "
                     "shard only) did not happen");
    if (rank == 0) {
        int i;
        printf("ok no hook: scales diverge from step %lld:", first);
        for (i = 0; i < ranks; i++)
            printf(" rank %d scale %g skipped %llu;", i, (double)scales[i], (unsigned long long)skipped[i]);
        printf("\n");
    }
    dp_free(d);
    free(scales);
    free(skipped);
}

/* (3) A rank whose callback fails: it reports the failure in the status slot, still takes part in the
 * exchange, and returns nonzero. */
typedef struct fault_hook {
    mf_reduce_hook real;
    int armed;
    int calls;
} fault_hook;

static int faulty_max(void *ctx, float *values, size_t n)
{
    fault_hook *f = (fault_hook *)ctx;
    int rc;
    f->calls++;
    if (!f->armed || rank != 1)
        return f->real.max(f->real.ctx, values, n);
    values[n - 1] = 1.0f;
    rc = f->real.max(f->real.ctx, values, n);
    (void)rc;
    return -1;
}

static void test_fault(void)
{
    static const demo_config cfgs[] = {DEMO_FP16_LS, DEMO_FP8};
    demo_params p = params();
    mf_mpi_reduce red;
    dp_comm comm;
    fault_hook fh;
    size_t c;
    int sh;
    CHECK(dp_comm_mpi(&comm, &red, MPI_COMM_WORLD, 1) == MF_OK, "dp_comm_mpi");
    fh.real = comm.reduce;
    comm.reduce.max = faulty_max;
    comm.reduce.ctx = &fh;
    for (c = 0; c < 2; c++)
        for (sh = 0; sh < 2; sh++) {
            dp_options o = options(cfgs[c], MF_FP32, sh);
            dp_trainer *d;
            dp_result before, after, end, want;
            const long long k = 5; /* into the second epoch */
            int rc;
            fh.armed = 0;
            fh.calls = 0;
            CHECK(dp_init(&d, &p, &o, &comm, ranks) == MF_OK, "dp_init");
            while (dp_steps_done(d) < k)
                CHECK(dp_step(d) == MF_OK, "%s: step %lld", label(&o), dp_steps_done(d));
            CHECK(fh.calls == k, "%s: %d hook calls in %lld steps (one per step expected)", label(&o), fh.calls, k);
            CHECK(dp_result_get(d, &before) == MF_OK, "dp_result_get");
            fh.armed = 1;
            rc = dp_step(d);
            fh.armed = 0;
            CHECK(rc == MF_E_REDUCE, "%s: step %lld returned %s, not MF_E_REDUCE", label(&o), k, mf_strerror(rc));
            CHECK(dp_steps_done(d) == k, "%s: the failed step counted", label(&o));
            CHECK(dp_result_get(d, &after) == MF_OK, "dp_result_get");
            expect_same_as(&after, &before, "after the failed step (must equal the state before it)");
            /* the same step again, and on to the end: as if nothing had failed */
            while (dp_steps_done(d) < dp_total_steps(d))
                CHECK(dp_step(d) == MF_OK, "%s: step %lld", label(&o), dp_steps_done(d));
            CHECK(dp_result_get(d, &end) == MF_OK, "dp_result_get");
            dp_free(d);
            CHECK(dp_train(&p, &o, NULL, ranks, &want) == MF_OK, "dp_train simulated");
            expect_same_as(&end, &want, "retried run");
            expect_same_on_all(&end, "retried run");
            if (rank == 0)
                printf("ok fault at step %lld: %-24s MF_E_REDUCE on every rank, state unchanged, retry exact\n", k,
                       label(&o));
        }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (ranks < 2) {
        if (rank == 0)
            printf("SKIP: needs at least 2 ranks (mpiexec -n 2)\n");
        MPI_Finalize();
        return 77;
    }
    test_identical();
    test_diverge_without_hook();
    test_fault();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_train_dp: all passed on %d ranks\n", ranks);
    MPI_Finalize();
    return 0;
}
