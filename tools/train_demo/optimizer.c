/* SPDX-License-Identifier: MIT */
/* tools/train_demo/optimizer.c - the demo's update: fp16-ls unscale/skip, Adam, fp8 scale update. */
#include "trainer.h"

#include <math.h>

void demo_adam(float *w, float *m, float *v, const float *g, size_t n, float lr, float c1, float c2)
{
    const float b1 = 0.9f, b2 = 0.999f, eps = 1e-8f; /* PyTorch's defaults */
    size_t i;
    for (i = 0; i < n; i++) {
        m[i] = b1 * m[i] + (1.0f - b1) * g[i];
        v[i] = b2 * v[i] + (1.0f - b2) * g[i] * g[i];
        w[i] -= lr * (m[i] / c1) / (sqrtf(v[i] / c2) + eps);
    }
}

void demo_adam_params(const demo_trainer *t, long long step, long long total_steps, float *lr, float *c1, float *c2)
{
    /* cosine decay from lr to lr/20 over the run */
    float lr_min = t->p.lr / 20.0f;
    *lr = lr_min + 0.5f * (t->p.lr - lr_min) * (1.0f + (float)cos(DEMO_PI * step / total_steps));
    *c1 = 1.0f - (float)pow(0.9, t->adam_t);
    *c2 = 1.0f - (float)pow(0.999, t->adam_t);
}

void demo_optimizer_step(demo_trainer *t, long long step, long long total_steps)
{
    const int nl = t->nl;
    int l, take = 1;

    /* unscale (fp16-ls), then the optimizer on the f32 master weights */
    if (t->cfg == DEMO_FP16_LS) {
        mf_tensor ts[2 * (DEMO_MAX_LAYERS + 1)];
        int found;
        for (l = 0; l < nl; l++) {
            ts[2 * l].data = t->L[l].gw;
            ts[2 * l].format = MF_FP32;
            ts[2 * l].n = (size_t)t->L[l].in * (size_t)t->L[l].out;
            ts[2 * l + 1].data = t->L[l].gb;
            ts[2 * l + 1].format = MF_FP32;
            ts[2 * l + 1].n = (size_t)t->L[l].out;
        }
        found = mf_unscale_check_tensors(&t->scaler, ts, (size_t)(2 * nl));
        if (found < 0) {
            demo_note(t, found);
            found = 1;
        }
        take = mf_loss_scaler_update(&t->scaler, found);
        if (take < 0) {
            demo_note(t, take);
            take = 0;
        }
    }
    if (take) {
        float lr, c1, c2;
        ++t->adam_t;
        demo_adam_params(t, step, total_steps, &lr, &c1, &c2);
        for (l = 0; l < nl; l++) {
            demo_layer *y = &t->L[l];
            demo_adam(y->w, y->mw, y->vw, y->gw, (size_t)y->in * (size_t)y->out, lr, c1, c2);
            demo_adam(y->b, y->mb, y->vb, y->gb, (size_t)y->out, lr, c1, c2);
        }
    } else {
        t->ep.skipped++;
    }
    t->ep.steps++;

    /* delayed scaling: new scales from the amax history, for the next step */
    if (t->cfg == DEMO_FP8)
        for (l = 0; l < 3 * nl; l++)
            demo_note(t, mf_fp8_delayed_update(&t->states[l]));
}
