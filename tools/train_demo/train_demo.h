/* SPDX-License-Identifier: MIT */
/* tools/train_demo/train_demo.h - the training demo behind `minifloat train-demo`: its API. */
/* A small MLP trained in FP32, BF16, FP16 (with and without loss scaling), FP8 with delayed scaling
 * and MXFP8, to show what each format does to training. The model: two spirals (a dataset generated
 * from the seed), an MLP 2 -> hidden x layers -> 2 with ReLU, softmax cross-entropy averaged over the
 * batch, Adam on FP32 master weights. Every run of a configuration starts from the same weights and
 * sees the same batches, so curves differ only by the number format. "Computed in format X": every
 * tensor the forward and backward passes store is rounded to X with the library (mf_convert,
 * mf_fp8_delayed_quantize, mf_mx_quantize) and the matrix products are computed in f32 on the rounded
 * values (docs/overflow.md, "Training with narrow formats", lists the rounding points). Results depend
 * only on the parameters (no clock, no threads).
 */
#ifndef DEMO_TRAIN_DEMO_H
#define DEMO_TRAIN_DEMO_H

#include <stdint.h>
#include <stdio.h>

#include <minifloat.h>

/* ---- run.c -------------------------------------------------------------------------------------- */

/* The training configurations, in the order the demo runs and prints them. */
typedef enum {
    DEMO_FP32,    /* everything in f32 */
    DEMO_BF16,    /* activations, weights and gradients rounded to bf16 */
    DEMO_FP16,    /* rounded to f16, no loss scaling */
    DEMO_FP16_LS, /* rounded to f16, dynamic loss scaling (mf_loss_scaler, GradScaler rules) */
    DEMO_FP8,     /* e4m3 activations/weights, e5m2 gradients, per-tensor delayed scaling */
    DEMO_MXFP8    /* e4m3 activations/weights, e5m2 gradients, OCP MX 32-element blocks */
} demo_config;

#define DEMO_CONFIG_COUNT 6
#define DEMO_MAX_EPOCHS 100000
#define DEMO_MAX_LAYERS 8 /* hidden layers */

/* Short name ("fp32", "bf16", "fp16", "fp16-ls", "fp8", "mxfp8"), or NULL for a bad value. */
const char *demo_config_name(demo_config c);
/* A one-line description of the configuration, or NULL. */
const char *demo_config_title(demo_config c);
/* Parse a name: the short names above, also "fp16+ls", "fp16_ls", "fp8-delayed", "mx" (any case).
 * Returns MF_OK, MF_E_NULL or MF_E_ARG. */
int demo_config_from_name(const char *name, demo_config *out);

/* Everything a run depends on. */
typedef struct demo_params {
    uint64_t seed;        /* data, initial weights and batch order */
    int epochs;           /* 1 .. DEMO_MAX_EPOCHS */
    int n_train;          /* training points (half per spiral), >= batch */
    int n_test;           /* held-out points for the accuracy, >= 2 */
    int batch;            /* points per step, a multiple of 32 (the MX block) */
    int hidden;           /* width of each hidden layer, a multiple of 32 */
    int layers;           /* hidden layers, 1 .. DEMO_MAX_LAYERS */
    float lr;             /* Adam learning rate (cosine decay to lr/20 over the run), > 0 */
    float init_std;       /* initial weights ~ N(0, init_std^2), biases 0, > 0 */
    float turns;          /* turns of each spiral arm, > 0 */
    float noise;          /* standard deviation of the Gaussian noise on each coordinate, >= 0 */
    int ls_growth_interval; /* GradScaler growth_interval (clean steps before the scale doubles), >= 1 */
    int fp8_history;      /* amax history length of the delayed-scaling states, 1 .. MF_FP8_HISTORY_MAX */
} demo_params;

/* The default run (quick = 0) or the short run the tests use (quick != 0). */
demo_params demo_params_default(int quick);
/* MF_OK, or MF_E_ARG with a message in msg (if not NULL, size msg_size) naming the bad field. */
int demo_params_check(const demo_params *p, char *msg, size_t msg_size);

/* Rounding events (from mf_stats) summed over tensors. */
typedef struct demo_counts {
    uint64_t elems;     /* elements rounded */
    uint64_t overflow;  /* overflowed (f16: became inf; fp8/mx: saturated) */
    uint64_t underflow; /* nonzero value that became zero */
    uint64_t subnormal; /* nonzero value that became subnormal */
    uint64_t nan;       /* NaN inputs */
} demo_counts;

/* One epoch of one configuration. */
typedef struct demo_epoch {
    double loss;             /* mean (unscaled) training loss of the epoch's steps */
    double test_acc;         /* accuracy of the master weights on the test set after the epoch, 0..1 */
    demo_counts fwd;     /* events of this epoch: activations, weights, biases */
    demo_counts grad;    /* events of this epoch: output gradients, weight and bias gradients */
    int steps;               /* optimizer steps attempted */
    int skipped;             /* steps the loss scaler skipped (inf/NaN gradients) */
    float loss_scale;        /* fp16-ls: the scale at the end of the epoch; else 0 */
    float fp8_scale_out;     /* fp8: delayed scale of the logits gradient (e5m2) at the end; else 0 */
    float fp8_scale_in;      /* fp8: delayed scale of the first layer's output gradient (e5m2); else 0 */
    int mx_exp_min;          /* mxfp8: smallest and largest block exponent (e8m0 code - 127) of the */
    int mx_exp_max;          /*   gradient tensors in the epoch's last step; else 0 */
} demo_epoch;

/* The outcome of one configuration. */
typedef struct demo_result {
    demo_config config;
    int epochs;
    demo_epoch *epoch;   /* [epochs], allocated by demo_run; release with demo_result_free */
    double final_loss;       /* loss of the last epoch */
    double test_acc;         /* test accuracy after the last epoch */
    double train_acc;        /* accuracy on the training set after the last epoch */
    demo_counts fwd, grad; /* totals over the run */
    uint64_t steps, skipped;
    float final_loss_scale;  /* fp16-ls only */
    double seconds;          /* CPU time (clock()); informational, never used in a result */
} demo_result;

/* Called after each epoch when not NULL (progress output); the demo uses it to print to stderr. */
typedef void (*demo_progress_fn)(void *ctx, demo_config c, int epoch, int epochs);

/* Train configuration c with parameters p into *r (which must be freed with demo_result_free on
 * MF_OK). Returns MF_OK; MF_E_NULL (p or r NULL); MF_E_ARG (bad parameters or config); MF_E_SIZE
 * (out of memory); or an error code from a library call (a bug: it should not happen). On error *r
 * holds nothing to free. */
int demo_run(const demo_params *p, demo_config c, demo_result *r, demo_progress_fn progress, void *progress_ctx);

/* Release what demo_run allocated (NULL-safe, idempotent). */
void demo_result_free(demo_result *r);

/* ---- report.c ----------------------------------------------------------------------------------- */

/* The tables of n results (loss every `every` epochs, results, rounding events, scale history). */
void demo_print_report(FILE *o, const demo_params *p, const demo_result *res, int n, int every);

/* Per-epoch CSV of n results. Returns 0, or -1 on a write error. */
int demo_write_csv(FILE *f, const demo_result *res, int n);

/* Loss curves (left: training loss, log scale; right: test accuracy) of n results into an SVG file,
 * which appears whole or not at all. title may be NULL. Returns 0, or -1 (errno set) if the file cannot
 * be written. */
int demo_plot_svg(const char *path, const demo_result *res, int n, const demo_params *p, const char *title);

#endif /* DEMO_TRAIN_DEMO_H */
