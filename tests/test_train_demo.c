/* SPDX-License-Identifier: MIT */
/* tests/test_train_demo.c - the training demo of `minifloat train-demo` (tools/train_demo/).
 *
 * What docs/overflow.md promises of it: a seed gives the same numbers bit for bit; with the default
 * parameters FP32, BF16 and FP16 with loss scaling reach at least 99% test accuracy; FP16 without loss
 * scaling shows its gradients underflowing in the counters (and a higher loss than with scaling), BF16
 * shows none; FP8 and MXFP8 train too. Plus the parameter checks, names, CSV and plot output.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mf_test.h"
#include "train_demo.h"

/* The default run of every configuration, trained once and shared by the tests below. */
static demo_result def[DEMO_CONFIG_COUNT];
static demo_params defp;

static void train_defaults(void)
{
    int c;
    defp = demo_params_default(0);
    for (c = 0; c < DEMO_CONFIG_COUNT; c++)
        ck_assert_int_eq(demo_run(&defp, (demo_config)c, &def[c], NULL, NULL), MF_OK);
}

static void free_defaults(void)
{
    int c;
    for (c = 0; c < DEMO_CONFIG_COUNT; c++)
        demo_result_free(&def[c]);
}

static int same_counts(const demo_counts *a, const demo_counts *b)
{
    return a->elems == b->elems && a->overflow == b->overflow && a->underflow == b->underflow &&
           a->subnormal == b->subnormal && a->nan == b->nan;
}

/* Every field that depends on the parameters, compared bit for bit (the CPU time is not one). */
static void expect_same(const demo_result *a, const demo_result *b)
{
    int e;
    ck_assert_int_eq(a->epochs, b->epochs);
    for (e = 0; e < a->epochs; e++) {
        const demo_epoch *x = &a->epoch[e], *y = &b->epoch[e];
        MF_EXPECT(memcmp(&x->loss, &y->loss, sizeof x->loss) == 0, "epoch %d loss %.17g vs %.17g", e, x->loss,
                  y->loss);
        MF_EXPECT(x->test_acc == y->test_acc, "epoch %d accuracy", e);
        MF_EXPECT(same_counts(&x->fwd, &y->fwd) && same_counts(&x->grad, &y->grad), "epoch %d counts", e);
        MF_EXPECT(x->steps == y->steps && x->skipped == y->skipped, "epoch %d steps", e);
        MF_EXPECT(memcmp(&x->loss_scale, &y->loss_scale, sizeof(float)) == 0 &&
                      memcmp(&x->fp8_scale_out, &y->fp8_scale_out, sizeof(float)) == 0 &&
                      memcmp(&x->fp8_scale_in, &y->fp8_scale_in, sizeof(float)) == 0,
                  "epoch %d scales", e);
        MF_EXPECT(x->mx_exp_min == y->mx_exp_min && x->mx_exp_max == y->mx_exp_max, "epoch %d mx", e);
    }
    ck_assert(memcmp(&a->final_loss, &b->final_loss, sizeof(double)) == 0);
    ck_assert(a->test_acc == b->test_acc && a->train_acc == b->train_acc);
    ck_assert(same_counts(&a->fwd, &b->fwd) && same_counts(&a->grad, &b->grad));
    ck_assert(a->steps == b->steps && a->skipped == b->skipped);
}

START_TEST(test_deterministic)
{
    /* Each configuration trained again (short runs) gives the same bits; another seed does not. */
    demo_params p = demo_params_default(1);
    int c;
    for (c = 0; c < DEMO_CONFIG_COUNT; c++) {
        demo_result a, b, other;
        ck_assert_int_eq(demo_run(&p, (demo_config)c, &a, NULL, NULL), MF_OK);
        ck_assert_int_eq(demo_run(&p, (demo_config)c, &b, NULL, NULL), MF_OK);
        expect_same(&a, &b);
        p.seed = 2;
        ck_assert_int_eq(demo_run(&p, (demo_config)c, &other, NULL, NULL), MF_OK);
        p.seed = 1;
        ck_assert(a.final_loss != other.final_loss);
        demo_result_free(&a);
        demo_result_free(&b);
        demo_result_free(&other);
    }
    /* and the default run of the shared results once more, for the configuration with the most state */
    {
        demo_result again;
        ck_assert_int_eq(demo_run(&defp, DEMO_FP16_LS, &again, NULL, NULL), MF_OK);
        expect_same(&def[DEMO_FP16_LS], &again);
        demo_result_free(&again);
    }
}
END_TEST

START_TEST(test_accuracy)
{
    /* The documented accuracies of the default run (docs/overflow.md): >= 99% for FP32, BF16 and FP16
     * with loss scaling; FP8 and MXFP8 >= 98%. */
    static const demo_config good[] = {DEMO_FP32, DEMO_BF16, DEMO_FP16_LS};
    size_t i;
    for (i = 0; i < sizeof good / sizeof good[0]; i++)
        MF_EXPECT(def[good[i]].test_acc >= 0.99, "%s: test accuracy %.4f", demo_config_name(good[i]),
                  def[good[i]].test_acc);
    ck_assert(def[DEMO_FP8].test_acc >= 0.98);
    ck_assert(def[DEMO_MXFP8].test_acc >= 0.98);
    /* training happened: the loss fell well below log 2 (a coin toss) in every configuration */
    for (i = 0; i < DEMO_CONFIG_COUNT; i++)
        MF_EXPECT(def[i].final_loss < 0.1 && def[i].epoch[0].loss > 0.6, "%s: loss %.4f -> %.4f",
                  demo_config_name((demo_config)i), def[i].epoch[0].loss, def[i].final_loss);
}
END_TEST

START_TEST(test_fp16_underflow)
{
    const demo_result *f16 = &def[DEMO_FP16], *ls = &def[DEMO_FP16_LS], *bf = &def[DEMO_BF16];
    const demo_result *f32 = &def[DEMO_FP32];
    /* FP16 without loss scaling: gradients flushed to zero and many more subnormal (precision lost) */
    ck_assert(f16->grad.elems > 0);
    ck_assert_uint_gt(f16->grad.underflow, 0);
    ck_assert(f16->grad.subnormal * 10 > f16->grad.elems); /* over 10% of the gradient elements */
    /* loss scaling lifts them: fewer underflows, far fewer subnormals */
    ck_assert_uint_lt(ls->grad.underflow, f16->grad.underflow);
    ck_assert(ls->grad.subnormal * 2 < f16->grad.subnormal);
    /* and it shows in the loss: the unscaled run ends with a clearly higher loss */
    ck_assert(f16->final_loss > 1.5 * ls->final_loss);
    ck_assert(f16->final_loss > 1.5 * f32->final_loss);
    /* BF16 has FP32's exponent range: nothing underflows, nothing overflows */
    ck_assert(bf->grad.elems == f16->grad.elems);
    ck_assert_uint_eq(bf->grad.underflow + bf->grad.overflow + bf->fwd.underflow + bf->fwd.overflow, 0);
    /* FP32 rounds nothing */
    ck_assert_uint_eq(f32->grad.elems + f32->fwd.elems, 0);
    /* no configuration saw a NaN */
    {
        int c;
        for (c = 0; c < DEMO_CONFIG_COUNT; c++)
            ck_assert_uint_eq(def[c].grad.nan + def[c].fwd.nan, 0);
    }
}
END_TEST

START_TEST(test_scales)
{
    /* The loss scale starts at GradScaler's 2^16 and only moves by powers of two; the FP8 delayed
     * scales are positive and finite; the MX block exponents are within E8M0's range. */
    int e;
    const demo_result *ls = &def[DEMO_FP16_LS];
    for (e = 0; e < ls->epochs; e++) {
        int ex;
        float m = frexpf(ls->epoch[e].loss_scale, &ex);
        ck_assert(m == 0.5f);
        ck_assert(ls->epoch[e].steps == defp.n_train / defp.batch);
    }
    ck_assert(ls->final_loss_scale == ls->epoch[ls->epochs - 1].loss_scale);
    ck_assert(def[DEMO_FP32].epoch[0].loss_scale == 0.0f);
    for (e = 0; e < def[DEMO_FP8].epochs; e++) {
        const demo_epoch *x = &def[DEMO_FP8].epoch[e];
        ck_assert(x->fp8_scale_out > 0 && isfinite(x->fp8_scale_out));
        ck_assert(x->fp8_scale_in > 0 && isfinite(x->fp8_scale_in));
        x = &def[DEMO_MXFP8].epoch[e];
        ck_assert(x->mx_exp_min <= x->mx_exp_max && x->mx_exp_min >= -127 && x->mx_exp_max <= 127);
    }
    /* only the loss scaler skips steps */
    for (e = 0; e < DEMO_CONFIG_COUNT; e++)
        if (e != DEMO_FP16_LS)
            ck_assert_uint_eq(def[e].skipped, 0);
    ck_assert_uint_eq(ls->steps, (uint64_t)defp.epochs * (uint64_t)(defp.n_train / defp.batch));
}
END_TEST

START_TEST(test_params_and_names)
{
    demo_params p = demo_params_default(0), q;
    demo_config c;
    demo_result r;
    char msg[200];
    ck_assert_int_eq(demo_params_check(&p, msg, sizeof msg), MF_OK);
    ck_assert_int_eq(demo_params_check(NULL, msg, sizeof msg), MF_E_NULL);
#define BAD(field, value)                                                                                         \
    do {                                                                                                          \
        q = p;                                                                                                    \
        q.field = value;                                                                                          \
        msg[0] = 0;                                                                                               \
        ck_assert_int_eq(demo_params_check(&q, msg, sizeof msg), MF_E_ARG);                                   \
        ck_assert(msg[0] != 0);                                                                                   \
        ck_assert_int_eq(demo_run(&q, DEMO_FP32, &r, NULL, NULL), MF_E_ARG);                              \
    } while (0)
    BAD(epochs, 0);
    BAD(epochs, DEMO_MAX_EPOCHS + 1);
    BAD(batch, 48);
    BAD(batch, 0);
    BAD(n_train, 100);
    BAD(n_test, 1);
    BAD(hidden, 40);
    BAD(layers, 0);
    BAD(layers, DEMO_MAX_LAYERS + 1);
    BAD(lr, 0.0f);
    BAD(lr, NAN);
    BAD(init_std, -1.0f);
    BAD(turns, 0.0f);
    BAD(noise, -0.5f);
    BAD(noise, NAN);
    BAD(ls_growth_interval, 0);
    BAD(fp8_history, 0);
    BAD(fp8_history, MF_FP8_HISTORY_MAX + 1);
#undef BAD
    ck_assert_int_eq(demo_run(NULL, DEMO_FP32, &r, NULL, NULL), MF_E_NULL);
    ck_assert_int_eq(demo_run(&p, DEMO_FP32, NULL, NULL, NULL), MF_E_NULL);
    ck_assert_int_eq(demo_run(&p, (demo_config)DEMO_CONFIG_COUNT, &r, NULL, NULL), MF_E_ARG);
    ck_assert_int_eq(demo_run(&p, (demo_config)-1, &r, NULL, NULL), MF_E_ARG);

    for (c = DEMO_FP32; (int)c < DEMO_CONFIG_COUNT; c = (demo_config)(c + 1)) {
        demo_config back;
        ck_assert_ptr_nonnull(demo_config_name(c));
        ck_assert_ptr_nonnull(demo_config_title(c));
        ck_assert_int_eq(demo_config_from_name(demo_config_name(c), &back), MF_OK);
        ck_assert_int_eq(back, c);
    }
    ck_assert_ptr_null(demo_config_name((demo_config)DEMO_CONFIG_COUNT));
    ck_assert_ptr_null(demo_config_title((demo_config)-1));
    ck_assert_int_eq(demo_config_from_name("FP16+LS", &c), MF_OK);
    ck_assert_int_eq(c, DEMO_FP16_LS);
    ck_assert_int_eq(demo_config_from_name("mx", &c), MF_OK);
    ck_assert_int_eq(c, DEMO_MXFP8);
    ck_assert_int_eq(demo_config_from_name("fp12", &c), MF_E_ARG);
    ck_assert_int_eq(demo_config_from_name(NULL, &c), MF_E_NULL);
    ck_assert_int_eq(demo_config_from_name("fp32", NULL), MF_E_NULL);
    demo_result_free(NULL);
}
END_TEST

static int progress_calls, progress_last;
static void count_progress(void *ctx, demo_config c, int epoch, int epochs)
{
    (void)ctx;
    ck_assert_int_eq(c, DEMO_BF16);
    ck_assert_int_eq(epoch, progress_last + 1);
    ck_assert_int_le(epoch, epochs);
    progress_last = epoch;
    progress_calls++;
}

START_TEST(test_outputs)
{
    demo_params p = demo_params_default(1);
    demo_result r[2];
    char line[512], path[] = "test_train_demo_plot.svg";
    FILE *f = tmpfile();
    int rows = 0;
    p.epochs = 3;
    progress_calls = progress_last = 0;
    ck_assert_int_eq(demo_run(&p, DEMO_BF16, &r[0], count_progress, NULL), MF_OK);
    ck_assert_int_eq(progress_calls, 3);
    ck_assert_int_eq(demo_run(&p, DEMO_FP8, &r[1], NULL, NULL), MF_OK);
    /* CSV: a header, then one line per epoch per configuration, each starting with the name */
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(demo_write_csv(f, r, 2), 0);
    rewind(f);
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert(strncmp(line, "config,epoch,", 13) == 0);
    while (fgets(line, sizeof line, f)) {
        ck_assert(strncmp(line, rows < 3 ? "bf16," : "fp8,", rows < 3 ? 5 : 4) == 0);
        rows++;
    }
    ck_assert_int_eq(rows, 6);
    fclose(f);
    /* SVG: written, well formed at both ends, names every configuration */
    ck_assert_int_eq(demo_plot_svg(path, r, 2, &p, NULL), 0);
    f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    {
        static char svg[1 << 20];
        size_t len = fread(svg, 1, sizeof svg - 1, f);
        svg[len] = 0;
        ck_assert(strstr(svg, "<svg") != NULL);
        ck_assert(strstr(svg, "</svg>") != NULL);
        ck_assert(strstr(svg, "bf16") != NULL && strstr(svg, "fp8") != NULL);
    }
    fclose(f);
    remove(path);
    ck_assert_int_eq(demo_plot_svg("/nonexistent-dir/x.svg", r, 2, &p, NULL), -1);
    demo_result_free(&r[0]);
    demo_result_free(&r[1]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("train_demo");
    TCase *tc = tcase_create("train_demo");
    tcase_add_unchecked_fixture(tc, train_defaults, free_defaults);
    tcase_add_test(tc, test_deterministic);
    tcase_add_test(tc, test_accuracy);
    tcase_add_test(tc, test_fp16_underflow);
    tcase_add_test(tc, test_scales);
    tcase_add_test(tc, test_params_and_names);
    tcase_add_test(tc, test_outputs);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);
    return mf_run_suite(s);
}
