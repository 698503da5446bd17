/* SPDX-License-Identifier: MIT */
/* tests/test_train_dp_local.c - the data-parallel trainer of tools/train_demo/dp.h in one process.
 *
 * The MPI runs are checked against dp_train with no dp_comm (the ranks simulated one after another), so
 * that reference is checked here: with one rank it is the demo itself (same test accuracy, scales and
 * counters as demo_run, which holds only if the weights are the same bits); with more ranks it still
 * trains; a one-rank dp_comm gives the same bits as the simulation; and a failing reduce hook fails the
 * step with MF_E_REDUCE and changes nothing, so that a retry continues as if it had not failed.
 */
#include <math.h>
#include <string.h>

#include "dp.h"
#include "mf_test.h"

static demo_params params(void)
{
    demo_params p = demo_params_default(1);
    p.epochs = 4;
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
    return o;
}

START_TEST(test_check)
{
    demo_params p = params();
    dp_options o = options(DEMO_FP16_LS, MF_FP32, 0);
    dp_trainer *d = (dp_trainer *)&o;
    ck_assert_int_eq(dp_check(&p, &o, 1), MF_OK);
    ck_assert_int_eq(dp_check(&p, &o, p.batch), MF_OK);
    ck_assert_int_eq(dp_check(&p, &o, 0), MF_E_ARG);
    ck_assert_int_eq(dp_check(&p, &o, p.batch + 1), MF_E_ARG);
    ck_assert_int_eq(dp_check(NULL, &o, 1), MF_E_NULL);
    o.wire = MF_FP16;
    ck_assert_int_eq(dp_check(&p, &o, 1), MF_E_ARG);
    o.wire = MF_FP32;
    o.config = DEMO_MXFP8; /* its column blocks along the batch would be cut by the slices */
    ck_assert_int_eq(dp_check(&p, &o, 1), MF_E_ARG);
    ck_assert_int_eq(dp_init(&d, &p, &o, NULL, 2), MF_E_ARG);
    ck_assert_ptr_null(d);
    o.config = DEMO_FP8;
    p.batch = 48; /* not a multiple of 32 */
    ck_assert_int_eq(dp_check(&p, &o, 1), MF_E_ARG);
}
END_TEST

START_TEST(test_one_rank_is_the_demo)
{
    /* One rank over the whole batch makes the demo's passes and the same elementwise update: the same
     * master weights, hence the same test accuracy bit for bit, and the same scales and counters. */
    static const demo_config cfgs[] = {DEMO_FP32, DEMO_BF16, DEMO_FP16_LS, DEMO_FP8};
    demo_params p = params();
    size_t c;
    for (c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++) {
        dp_options o = options(cfgs[c], MF_FP32, 0);
        demo_result want;
        dp_result got;
        const demo_epoch *last;
        ck_assert_int_eq(demo_run(&p, cfgs[c], &want, NULL, NULL), MF_OK);
        ck_assert_int_eq(dp_train(&p, &o, NULL, 1, &got), MF_OK);
        last = &want.epoch[want.epochs - 1];
        MF_EXPECT(got.test_acc == want.test_acc, "%s: accuracy %.6f vs the demo's %.6f", demo_config_name(cfgs[c]),
                  got.test_acc, want.test_acc);
        ck_assert_uint_eq(got.steps, want.steps);
        ck_assert_uint_eq(got.skipped, want.skipped);
        ck_assert(memcmp(&got.loss_scale, &want.final_loss_scale, sizeof(float)) == 0);
        ck_assert(memcmp(&got.fp8_scale_out, &last->fp8_scale_out, sizeof(float)) == 0);
        ck_assert(memcmp(&got.fp8_scale_in, &last->fp8_scale_in, sizeof(float)) == 0);
        ck_assert(fabs(got.last_loss - want.final_loss) < 1e-5);
        if (cfgs[c] == DEMO_FP16_LS)
            ck_assert_uint_gt(got.skipped, 0); /* growth every 2 steps: it overflows and backs off */
        demo_result_free(&want);
    }
}
END_TEST

START_TEST(test_ranks_train)
{
    /* More ranks: other rounding of the gradient sums, so other bits, but the same training; and
     * deterministic. */
    static const demo_config cfgs[] = {DEMO_FP16_LS, DEMO_FP8};
    demo_params p = params();
    size_t c;
    int sh, w;
    for (c = 0; c < 2; c++)
        for (sh = 0; sh < 2; sh++)
            for (w = 0; w < 2; w++) {
                dp_options o = options(cfgs[c], w ? MF_BF16 : MF_FP32, sh);
                dp_result one, three, again;
                ck_assert_int_eq(dp_train(&p, &o, NULL, 1, &one), MF_OK);
                ck_assert_int_eq(dp_train(&p, &o, NULL, 3, &three), MF_OK);
                ck_assert_int_eq(dp_train(&p, &o, NULL, 3, &again), MF_OK);
                ck_assert(three.weights_digest == again.weights_digest && three.state_digest == again.state_digest);
                ck_assert(memcmp(&three.last_loss, &again.last_loss, sizeof(double)) == 0);
                MF_EXPECT(fabs(three.last_loss - one.last_loss) < 0.05, "%s: loss %g on 3 ranks, %g on 1",
                          demo_config_name(cfgs[c]), three.last_loss, one.last_loss);
                ck_assert(three.last_loss < 0.69);
            }
}
END_TEST

/* A one-rank dp_comm: the sums are the rank's own vector decoded, the gather a copy; its reduce hook
 * fails when armed (reporting it in the status slot, as a rank whose exchange failed). */
static int armed, calls;

static int one_sum(void *ctx, mf_format wire, const void *send, float *recv, size_t n)
{
    (void)ctx;
    return mf_convert(MF_FP32, recv, wire, send, n, NULL);
}

static int one_gather(void *ctx, const float *mine, float *all, size_t n)
{
    (void)ctx;
    memcpy(all, mine, n * sizeof(float));
    return MF_OK;
}

static int one_max(void *ctx, float *values, size_t n)
{
    (void)ctx;
    calls++;
    if (armed) {
        values[n - 1] = 1.0f;
        return -1;
    }
    return 0;
}

START_TEST(test_comm_and_fault)
{
    static const demo_config cfgs[] = {DEMO_FP16_LS, DEMO_FP8};
    demo_params p = params();
    dp_comm comm;
    size_t c;
    int sh;
    memset(&comm, 0, sizeof comm);
    comm.rank = 0;
    comm.size = 1;
    comm.allreduce_sum = one_sum;
    comm.reduce_scatter_sum = one_sum;
    comm.allgather_shards = one_gather;
    comm.reduce.max = one_max;
    for (c = 0; c < 2; c++)
        for (sh = 0; sh < 2; sh++) {
            dp_options o = options(cfgs[c], sh ? MF_BF16 : MF_FP32, sh);
            dp_trainer *d;
            dp_result want, before, after, end;
            armed = calls = 0;
            ck_assert_int_eq(dp_train(&p, &o, NULL, 1, &want), MF_OK);
            ck_assert_int_eq(dp_init(&d, &p, &o, &comm, 1), MF_OK);
            while (dp_steps_done(d) < 6)
                ck_assert_int_eq(dp_step(d), MF_OK);
            ck_assert_int_eq(calls, 6); /* one reduction a step: the scaler's flag or the fp8 amaxes */
            ck_assert_int_eq(dp_result_get(d, &before), MF_OK);
            armed = 1;
            ck_assert_int_eq(dp_step(d), MF_E_REDUCE);
            ck_assert_int_eq(dp_step(d), MF_E_REDUCE);
            armed = 0;
            ck_assert_int_eq(dp_steps_done(d), 6);
            ck_assert_int_eq(dp_result_get(d, &after), MF_OK);
            ck_assert(after.weights_digest == before.weights_digest && after.state_digest == before.state_digest);
            ck_assert(memcmp(&after, &before, sizeof after) == 0);
            while (dp_steps_done(d) < dp_total_steps(d))
                ck_assert_int_eq(dp_step(d), MF_OK);
            ck_assert_int_eq(dp_step(d), MF_E_ARG); /* past the end */
            ck_assert_int_eq(dp_result_get(d, &end), MF_OK);
            dp_free(d);
            MF_EXPECT(end.weights_digest == want.weights_digest && end.state_digest == want.state_digest,
                      "%s %s: the retried run differs from the simulation", demo_config_name(cfgs[c]),
                      sh ? "sharded" : "all-reduce");
            ck_assert(memcmp(&end.last_loss, &want.last_loss, sizeof(double)) == 0);
        }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("train_dp_local");
    TCase *tc = tcase_create("train_dp_local");
    tcase_add_test(tc, test_check);
    tcase_add_test(tc, test_one_rank_is_the_demo);
    tcase_add_test(tc, test_ranks_train);
    tcase_add_test(tc, test_comm_and_fault);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return mf_run_suite(s);
}
