/* SPDX-License-Identifier: MIT */
/* tools/train_demo/run.c - the demo's configurations, parameters and training loop (demo_run). */
#include "trainer.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_util.h"

/* ---- configurations ----------------------------------------------------------------------------- */

static const char *const config_names[DEMO_CONFIG_COUNT] = {"fp32", "bf16", "fp16", "fp16-ls", "fp8", "mxfp8"};
static const char *const config_titles[DEMO_CONFIG_COUNT] = {
    "FP32 everywhere (the reference)",
    "BF16 activations, weights and gradients",
    "FP16 activations, weights and gradients, no loss scaling",
    "FP16 with dynamic loss scaling (mf_loss_scaler, GradScaler rules)",
    "FP8: e4m3 activations/weights, e5m2 gradients, delayed per-tensor scaling",
    "MXFP8: e4m3 activations/weights, e5m2 gradients, 32-element blocks, E8M0 scales"};

const char *demo_config_name(demo_config c)
{
    return (unsigned)c < DEMO_CONFIG_COUNT ? config_names[c] : NULL;
}

const char *demo_config_title(demo_config c)
{
    return (unsigned)c < DEMO_CONFIG_COUNT ? config_titles[c] : NULL;
}

int demo_config_from_name(const char *name, demo_config *out)
{
    static const struct {
        const char *name;
        demo_config c;
    } aliases[] = {{"fp32", DEMO_FP32},        {"f32", DEMO_FP32},      {"bf16", DEMO_BF16},
                   {"fp16", DEMO_FP16},        {"f16", DEMO_FP16},      {"fp16-ls", DEMO_FP16_LS},
                   {"fp16+ls", DEMO_FP16_LS},  {"fp16_ls", DEMO_FP16_LS}, {"fp8", DEMO_FP8},
                   {"fp8-delayed", DEMO_FP8},  {"mxfp8", DEMO_MXFP8},   {"mx", DEMO_MXFP8}};
    size_t i;
    if (!name || !out)
        return MF_E_NULL;
    for (i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (cli_name_eq(name, aliases[i].name)) {
            *out = aliases[i].c;
            return MF_OK;
        }
    return MF_E_ARG;
}

/* ---- parameters --------------------------------------------------------------------------------- */

demo_params demo_params_default(int quick)
{
    demo_params p;
    memset(&p, 0, sizeof p);
    p.seed = 1;
    p.epochs = quick ? 16 : 40;
    p.n_train = quick ? 2048 : 4096;
    p.n_test = 2048;
    p.batch = 512;
    p.hidden = 64;
    p.layers = 3;
    p.lr = 0.01f;
    p.init_std = 0.02f;
    p.turns = 1.25f;
    p.noise = 0.03f;
    p.ls_growth_interval = 100;
    p.fp8_history = 16;
    return p;
}

static int bad_param(char *msg, size_t msg_size, const char *fmt, ...)
{
    if (msg && msg_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, msg_size, fmt, ap);
        va_end(ap);
    }
    return MF_E_ARG;
}

int demo_params_check(const demo_params *p, char *msg, size_t msg_size)
{
    if (!p)
        return MF_E_NULL;
    if (p->epochs < 1 || p->epochs > DEMO_MAX_EPOCHS)
        return bad_param(msg, msg_size, "epochs must be 1 .. %d", DEMO_MAX_EPOCHS);
    if (p->batch < 32 || p->batch % 32 || p->batch > (1 << 16))
        return bad_param(msg, msg_size, "batch must be a multiple of 32 from 32 to 65536");
    if (p->n_train < p->batch || p->n_train > (1 << 22))
        return bad_param(msg, msg_size, "the training set must hold from one batch to 4194304 points");
    if (p->n_test < 2 || p->n_test > (1 << 22))
        return bad_param(msg, msg_size, "the test set must hold 2 .. 4194304 points");
    if (p->hidden < 32 || p->hidden % 32 || p->hidden > 1024)
        return bad_param(msg, msg_size, "hidden must be a multiple of 32 from 32 to 1024");
    if (p->layers < 1 || p->layers > DEMO_MAX_LAYERS)
        return bad_param(msg, msg_size, "layers must be 1 .. %d", DEMO_MAX_LAYERS);
    if (!(p->lr > 0 && p->lr <= 10))
        return bad_param(msg, msg_size, "lr must be in (0, 10]");
    if (!(p->init_std > 0 && p->init_std <= 10))
        return bad_param(msg, msg_size, "init-std must be in (0, 10]");
    if (!(p->turns > 0 && p->turns <= 10))
        return bad_param(msg, msg_size, "turns must be in (0, 10]");
    if (!(p->noise >= 0 && p->noise <= 10))
        return bad_param(msg, msg_size, "noise must be in [0, 10]");
    if (p->ls_growth_interval < 1)
        return bad_param(msg, msg_size, "the loss-scale growth interval must be >= 1");
    if (p->fp8_history < 1 || p->fp8_history > MF_FP8_HISTORY_MAX)
        return bad_param(msg, msg_size, "the fp8 amax history must be 1 .. %d", MF_FP8_HISTORY_MAX);
    return MF_OK;
}

/* ---- the run ------------------------------------------------------------------------------------ */

static void counts_sum(demo_counts *a, const demo_counts *b)
{
    a->elems += b->elems;
    a->overflow += b->overflow;
    a->underflow += b->underflow;
    a->subnormal += b->subnormal;
    a->nan += b->nan;
}

int demo_run(const demo_params *p, demo_config c, demo_result *r, demo_progress_fn progress, void *progress_ctx)
{
    demo_trainer *t;
    int rc, e, s, steps_per_epoch;
    long long total_steps; /* up to 2^17 steps an epoch times 100000 epochs: beyond int */
    clock_t t0 = clock();
    if (!p || !r)
        return MF_E_NULL;
    if ((unsigned)c >= DEMO_CONFIG_COUNT)
        return MF_E_ARG;
    rc = demo_params_check(p, NULL, 0);
    if (rc != MF_OK)
        return rc;
    t = malloc(sizeof *t);
    if (!t)
        return MF_E_SIZE;
    rc = demo_trainer_init(t, p, c);
    if (rc != MF_OK) {
        free(t);
        return rc;
    }
    memset(r, 0, sizeof *r);
    r->epoch = calloc((size_t)p->epochs, sizeof *r->epoch);
    if (!r->epoch) {
        demo_trainer_free(t);
        free(t);
        return MF_E_SIZE;
    }
    r->config = c;
    r->epochs = p->epochs;
    steps_per_epoch = p->n_train / p->batch;
    total_steps = (long long)steps_per_epoch * p->epochs;

    for (e = 0; e < p->epochs; e++) {
        double sum = 0;
        memset(&t->ep, 0, sizeof t->ep);
        t->mx_seen = 0;
        demo_shuffle(t);
        for (s = 0; s < steps_per_epoch; s++) {
            demo_load_batch(t, s);
            if (c == DEMO_MXFP8)
                t->mx_seen = 0; /* keep the block exponents of the last step only */
            sum += demo_forward_backward(t);
            demo_optimizer_step(t, (long long)e * steps_per_epoch + s, total_steps);
        }
        t->ep.loss = sum / steps_per_epoch;
        t->ep.test_acc = (double)demo_eval_correct(t, t->xtest, t->ytest, p->n_test) / p->n_test;
        if (c == DEMO_FP16_LS)
            t->ep.loss_scale = mf_loss_scaler_scale(&t->scaler);
        if (c == DEMO_FP8) {
            t->ep.fp8_scale_out = t->L[t->nl - 1].st_dz->scale;
            t->ep.fp8_scale_in = t->L[0].st_dz->scale;
        }
        if (c == DEMO_MXFP8) {
            t->ep.mx_exp_min = t->mx_min;
            t->ep.mx_exp_max = t->mx_max;
        }
        r->epoch[e] = t->ep;
        counts_sum(&r->fwd, &t->ep.fwd);
        counts_sum(&r->grad, &t->ep.grad);
        r->steps += (uint64_t)t->ep.steps;
        r->skipped += (uint64_t)t->ep.skipped;
        if (t->err)
            break;
        if (progress)
            progress(progress_ctx, c, e + 1, p->epochs);
    }
    rc = t->err;
    if (rc == MF_OK) {
        r->final_loss = r->epoch[p->epochs - 1].loss;
        r->test_acc = r->epoch[p->epochs - 1].test_acc;
        r->train_acc = (double)demo_eval_correct(t, t->xtrain, t->ytrain, p->n_train) / p->n_train;
        if (c == DEMO_FP16_LS)
            r->final_loss_scale = mf_loss_scaler_scale(&t->scaler);
        r->seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
    } else {
        free(r->epoch);
        memset(r, 0, sizeof *r);
    }
    demo_trainer_free(t);
    free(t);
    return rc;
}

void demo_result_free(demo_result *r)
{
    if (!r)
        return;
    free(r->epoch);
    r->epoch = NULL;
    r->epochs = 0;
}
