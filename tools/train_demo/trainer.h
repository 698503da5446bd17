/* SPDX-License-Identifier: MIT */
/* tools/train_demo/trainer.h - the trainer that model.c, optimizer.c and run.c share (internal). */
#ifndef DEMO_TRAINER_H
#define DEMO_TRAINER_H

#include "train_demo.h"

#define DEMO_PI 3.14159265358979323846

/* A Philox stream (mf_sr_bits): key and position. */
typedef struct demo_rng {
    uint64_t key;
    uint64_t idx;
} demo_rng;

typedef struct demo_layer {
    int in, out;
    float *w, *b;              /* master weights [in*out] row-major (in rows), [out] */
    float *mw, *vw, *mb, *vb;  /* Adam moments */
    float *wq, *bq, *wt;       /* rounded copies; wt = wq transposed [out*in] */
    float *gw, *gb;            /* gradients */
    float *xq;                 /* [B*in] the rounded layer input */
    float *z;                  /* [B*out] pre-activation */
    float *dz;                 /* [B*out] gradient of the loss w.r.t. z */
    mf_fp8_delayed *st_x, *st_w, *st_dz; /* fp8 delayed-scaling states of the three GEMM operands */
} demo_layer;

/* Bytes demo_trainer_init allocated, by what they hold (counted at each calloc): the planner's parts
 * (mf_memory_plan, <minifloat/memory.h>) and what it does not plan (the data set, scratch). */
typedef struct demo_memory {
    uint64_t master;      /* w, b: the FP32 master weights */
    uint64_t params;      /* wq, bq: the rounded copies the passes read (binary32 holding rounded values) */
    uint64_t transposed;  /* wt: the transposed copy of each rounded weight */
    uint64_t grads;       /* gw, gb */
    uint64_t optimizer;   /* mw, vw, mb, vb: Adam's moments */
    uint64_t scaling;     /* fp8: the delayed-scaling states; fp16-ls: the loss scaler (in the struct) */
    uint64_t activations; /* xq, z, dz per layer; dx */
    uint64_t other;       /* data set, batch, order, scratch, evaluation buffers, MX scales scratch */
} demo_memory;

typedef struct demo_trainer {
    demo_params p;
    demo_config cfg;
    int nl; /* linear layers = p.layers + 1 */
    demo_layer L[DEMO_MAX_LAYERS + 1];
    float *xtrain, *xtest;
    int *ytrain, *ytest;
    int *perm;        /* the epoch's batch order */
    demo_rng shuffle; /* draws the next order */
    float *xb;        /* [B*2] batch inputs */
    int *yb;          /* [B] */
    float *dx;        /* [B*hidden] */
    float *tmp;       /* scratch f32, max tensor */
    uint16_t *u16;    /* scratch 16-bit codes */
    uint8_t *u8, *u8b; /* scratch 8-bit codes */
    uint8_t *scales;  /* MX scales */
    float *eval_a, *eval_b; /* [B*hidden] evaluation ping-pong */
    mf_fp8_delayed *states;
    mf_loss_scaler scaler;
    demo_epoch ep; /* the epoch being run */
    int mx_min, mx_max, mx_seen;
    long long adam_t;  /* Adam steps taken (its bias correction) */
    int err;           /* first library error */
    int rows;          /* rows of xb the next pass uses; 0 = p.batch (data_parallel.c: a rank's slice) */
    int grad_batch;    /* the loss gradient's divisor; 0 = the pass's rows (data-parallel: the global
                          batch, so that the slices' gradients add up to the batch's) */
    demo_memory mem;   /* what demo_trainer_init allocated */
} demo_trainer;

/* ---- model.c ------------------------------------------------------------------------------------ */

/* Data, initial weights and batch order from p. MF_OK, MF_E_SIZE or a library error; on error
 * nothing is left to free. */
int demo_trainer_init(demo_trainer *t, const demo_params *p, demo_config cfg);
void demo_trainer_free(demo_trainer *t);
/* Keep the first library error in t->err. */
void demo_note(demo_trainer *t, int rc);
/* Draw the next epoch's batch order. */
void demo_shuffle(demo_trainer *t);
/* Batch s of the order into t->xb and t->yb. */
void demo_load_batch(demo_trainer *t, int s);
/* Forward and backward pass on the batch, rounded as t->cfg says: returns the loss (unscaled) and
 * leaves the gradients in the layers. */
double demo_forward_backward(demo_trainer *t);
/* Correct predictions of the f32 master weights on n points. */
int demo_eval_correct(demo_trainer *t, const float *x, const int *y, int n);

/* ---- optimizer.c -------------------------------------------------------------------------------- */

/* Update the master weights from the gradients; step (of total_steps) sets the learning rate. */
void demo_optimizer_step(demo_trainer *t, long long step, long long total_steps);
/* The learning rate of step (of total_steps) and Adam's bias corrections after t->adam_t steps. */
void demo_adam_params(const demo_trainer *t, long long step, long long total_steps, float *lr, float *c1, float *c2);
/* One Adam step (PyTorch's defaults) on n elements: w, m, v updated from the gradient g. */
void demo_adam(float *w, float *m, float *v, const float *g, size_t n, float lr, float c1, float c2);

#endif /* DEMO_TRAINER_H */
