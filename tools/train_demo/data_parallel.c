/* SPDX-License-Identifier: MIT */
/* tools/train_demo/data_parallel.c - data-parallel training of the demo's model over a dp_comm (dp.h). */
#include "dp.h"
#include "trainer.h"

#include <stdlib.h>
#include <string.h>

struct dp_trainer {
    demo_trainer t;
    dp_options o;
    dp_comm comm;              /* used when !local */
    int local;                 /* 1: all R ranks simulated here, one slice after another */
    int R, rank;               /* ranks; this one (local: 0) */
    int nstates;               /* fp8 delayed-scaling states (3 per layer), else 0 */
    size_t n;                  /* parameters in the flat vector */
    size_t lo, hi;             /* this rank's shard [lo, hi) (local: the whole vector) */
    float *W, *M, *V;          /* [n] flat master weights and Adam moments (sharded: only [lo, hi) is used) */
    float *g;                  /* [n] one rank's flat gradient */
    uint16_t *g16;             /* [n] its bf16 codes (bf16 wire) */
    float *x;                  /* [n] local: one rank's gradient as it arrives (decoded from the wire) */
    float *sum;                /* [n] the summed gradient (sharded over MPI: this rank's shard at sum[0]) */
    float *Wall;               /* [n] the all-gathered weights */
    float *bk;                 /* [3n] backups of W, M, V of the shard while its all-gather is pending */
    mf_fp8_delayed *bk_states; /* the fp8 states at the start of the step */
    double *loss_step;         /* [R] each rank's loss sum (mean loss * rows) of the step */
    double *loss_cur;          /* [R] ... summed over the epoch being run */
    double *loss_last;         /* [R] ... over the last finished epoch */
    long long k, total, spe;   /* step, steps in the run, steps per epoch */
    long long shuffled;        /* the epoch whose batch order has been drawn; -1: none */
    uint64_t steps, skipped;
};

uint64_t dp_fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *b = (const unsigned char *)data;
    size_t i;
    for (i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

int dp_check(const demo_params *p, const dp_options *o, int ranks)
{
    if (!p || !o)
        return MF_E_NULL;
    if (demo_params_check(p, NULL, 0) != MF_OK)
        return MF_E_ARG;
    /* mxfp8's column blocks of the logits run along the batch: a slice would cut them */
    if (o->config != DEMO_FP32 && o->config != DEMO_BF16 && o->config != DEMO_FP16 && o->config != DEMO_FP16_LS &&
        o->config != DEMO_FP8)
        return MF_E_ARG;
    if (o->wire != MF_FP32 && o->wire != MF_BF16)
        return MF_E_ARG;
    if (ranks < 1 || ranks > p->batch)
        return MF_E_ARG;
    if (!(o->ls_init_scale >= 0.0f && o->ls_init_scale <= 3.4e38f))
        return MF_E_ARG;
    return MF_OK;
}

void dp_free(dp_trainer *d)
{
    if (!d)
        return;
    demo_trainer_free(&d->t);
    free(d->W), free(d->M), free(d->V), free(d->g), free(d->g16), free(d->x), free(d->sum), free(d->Wall);
    free(d->bk), free(d->bk_states), free(d->loss_step), free(d->loss_cur), free(d->loss_last);
    free(d);
}

/* The flat vector <-> the layers: weights of layer 0, its biases, weights of layer 1, ... */
static void flatten(const demo_trainer *t, float *dst, int grads)
{
    int l;
    for (l = 0; l < t->nl; l++) {
        const demo_layer *y = &t->L[l];
        size_t nw = (size_t)y->in * (size_t)y->out;
        memcpy(dst, grads ? y->gw : y->w, nw * sizeof(float));
        memcpy(dst + nw, grads ? y->gb : y->b, (size_t)y->out * sizeof(float));
        dst += nw + (size_t)y->out;
    }
}

static void unflatten_weights(demo_trainer *t, const float *src)
{
    int l;
    for (l = 0; l < t->nl; l++) {
        demo_layer *y = &t->L[l];
        size_t nw = (size_t)y->in * (size_t)y->out;
        memcpy(y->w, src, nw * sizeof(float));
        memcpy(y->b, src + nw, (size_t)y->out * sizeof(float));
        src += nw + (size_t)y->out;
    }
}

static void *xcalloc(size_t n, size_t size, int *fail)
{
    void *q = calloc(n ? n : 1, size);
    if (!q)
        *fail = 1;
    return q;
}

int dp_init(dp_trainer **out, const demo_params *p, const dp_options *o, const dp_comm *comm, int ranks)
{
    dp_trainer *d;
    int rc, fail = 0, l;
    size_t n = 0;
    if (!out)
        return MF_E_NULL;
    *out = NULL;
    if (comm) {
        if (!comm->allreduce_sum || !comm->reduce_scatter_sum || !comm->allgather_shards)
            return MF_E_NULL;
        if (comm->rank < 0 || comm->rank >= comm->size)
            return MF_E_ARG;
        ranks = comm->size;
    }
    rc = dp_check(p, o, ranks);
    if (rc != MF_OK)
        return rc;
    d = calloc(1, sizeof *d);
    if (!d)
        return MF_E_SIZE;
    rc = demo_trainer_init(&d->t, p, o->config);
    if (rc != MF_OK) {
        free(d);
        return rc;
    }
    d->o = *o;
    d->local = comm == NULL;
    if (comm)
        d->comm = *comm;
    d->R = ranks;
    d->rank = comm ? comm->rank : 0;
    d->nstates = o->config == DEMO_FP8 ? 3 * d->t.nl : 0;
    for (l = 0; l < d->t.nl; l++)
        n += (size_t)d->t.L[l].in * (size_t)d->t.L[l].out + (size_t)d->t.L[l].out;
    d->n = n;
    if (d->local || !o->sharded) {
        d->lo = 0;
        d->hi = n;
    } else { /* the adapter's split: floor(n*r/R) */
        d->lo = n * (size_t)d->rank / (size_t)ranks;
        d->hi = n * ((size_t)d->rank + 1) / (size_t)ranks;
    }
    d->W = xcalloc(n, sizeof(float), &fail);
    d->M = xcalloc(n, sizeof(float), &fail);
    d->V = xcalloc(n, sizeof(float), &fail);
    d->g = xcalloc(n, sizeof(float), &fail);
    d->g16 = xcalloc(n, sizeof(uint16_t), &fail);
    d->x = xcalloc(n, sizeof(float), &fail);
    d->sum = xcalloc(n, sizeof(float), &fail);
    d->Wall = xcalloc(n, sizeof(float), &fail);
    d->bk = xcalloc(3 * n, sizeof(float), &fail);
    d->bk_states = xcalloc((size_t)d->nstates, sizeof(mf_fp8_delayed), &fail);
    d->loss_step = xcalloc((size_t)ranks, sizeof(double), &fail);
    d->loss_cur = xcalloc((size_t)ranks, sizeof(double), &fail);
    d->loss_last = xcalloc((size_t)ranks, sizeof(double), &fail);
    if (fail) {
        dp_free(d);
        return MF_E_SIZE;
    }
    flatten(&d->t, d->W, 0);
    d->spe = p->n_train / p->batch;
    d->total = d->spe * p->epochs;
    d->shuffled = -1;

    if (o->config == DEMO_FP16_LS) {
        if (o->ls_init_scale > 0) {
            mf_loss_scaler_config lc = d->t.scaler.cfg;
            lc.init_scale = o->ls_init_scale;
            rc = mf_loss_scaler_init(&d->t.scaler, &lc);
            if (rc != MF_OK) {
                dp_free(d);
                return rc;
            }
        }
        /* unsharded, every rank sees the same sum and the reduction only confirms the flag; sharded,
         * it is what makes the ranks agree (ShardedGradScaler) */
        if (comm)
            d->t.scaler.cfg.reduce = comm->reduce;
    }
    if (comm)
        for (l = 0; l < d->nstates; l++)
            d->t.states[l].cfg.reduce = comm->reduce; /* TE's amax reduction group */
    *out = d;
    return MF_OK;
}

long long dp_total_steps(const dp_trainer *d) { return d ? d->total : 0; }

long long dp_steps_done(const dp_trainer *d) { return d ? d->k : 0; }

/* Rows [B*r/R, B*(r+1)/R) of batch s of the epoch's order into t->xb, and the pass set up for them. */
static void load_slice(dp_trainer *d, int r, long long s)
{
    demo_trainer *t = &d->t;
    const int B = t->p.batch;
    int lo = (int)((long long)B * r / d->R), hi = (int)((long long)B * (r + 1) / d->R), i;
    for (i = 0; i < hi - lo; i++) {
        int k = t->perm[s * B + lo + i];
        t->xb[2 * i] = t->xtrain[2 * k];
        t->xb[2 * i + 1] = t->xtrain[2 * k + 1];
        t->yb[i] = t->ytrain[k];
    }
    t->rows = hi - lo;
    t->grad_batch = B; /* the global batch: the ranks' gradients then add up to the batch's */
}

/* a + b as the MPI adapter's sums compute it (mf_mpi_allreduce_sum): binary32 rn, the first NaN
 * operand quieted, inf + -inf = 0x7FC00000 (x86 gives 0xFFC00000), so that overflowing steps agree too. */
static float wire_add(float a, float b)
{
    uint32_t ua, ub;
    memcpy(&ua, &a, sizeof ua);
    memcpy(&ub, &b, sizeof ub);
    if ((ua & 0x7FFFFFFFu) > 0x7F800000u || (ub & 0x7FFFFFFFu) > 0x7F800000u) {
        ua = (ua & 0x7FFFFFFFu) > 0x7F800000u ? ua | 0x00400000u : ub | 0x00400000u;
    } else if ((ua & 0x7FFFFFFFu) == 0x7F800000u && (ub & 0x7FFFFFFFu) == 0x7F800000u && ua != ub) {
        ua = 0x7FC00000u;
    } else {
        a = a + b;
        return a;
    }
    memcpy(&a, &ua, sizeof a);
    return a;
}

/* This rank's slice (or, locally, every rank's in turn) through forward and backward, and the
 * gradients summed into d->sum. MF_OK or an error (nothing but the fp8 amax records changed). */
static int gradients(dp_trainer *d, long long s)
{
    demo_trainer *t = &d->t;
    const int bf16 = d->o.wire == MF_BF16;
    int r, r0 = d->local ? 0 : d->rank, r1 = d->local ? d->R : d->rank + 1;
    size_t i;
    for (r = r0; r < r1; r++) {
        load_slice(d, r, s);
        d->loss_step[r] = demo_forward_backward(t) * t->rows;
        if (t->err)
            return t->err;
        flatten(t, d->g, 1);
        if (bf16) /* the wire format: rn to bf16, then summed in f32 */
            demo_note(t, mf_convert(MF_BF16, d->g16, MF_FP32, d->g, d->n, NULL));
        if (!d->local)
            break;
        if (bf16)
            demo_note(t, mf_convert(MF_FP32, d->x, MF_BF16, d->g16, d->n, NULL));
        else
            memcpy(d->x, d->g, d->n * sizeof(float));
        if (t->err)
            return t->err;
        /* the adapter's order: ((x_0 + x_1) + x_2) + ..., binary32 */
        if (r == 0)
            memcpy(d->sum, d->x, d->n * sizeof(float));
        else
            for (i = 0; i < d->n; i++)
                d->sum[i] = wire_add(d->sum[i], d->x[i]);
    }
    if (d->local)
        return MF_OK;
    if (d->o.sharded)
        return d->comm.reduce_scatter_sum(d->comm.ctx, d->o.wire, bf16 ? (const void *)d->g16 : d->g, d->sum, d->n);
    return d->comm.allreduce_sum(d->comm.ctx, d->o.wire, bf16 ? (const void *)d->g16 : d->g, d->sum, d->n);
}

/* The regions of the summed gradient this rank unscales and updates: its shard (sharded over a
 * dp_comm), the whole vector (unsharded), or, simulated, each rank's shard in turn. Region i is
 * elements [*lo, *hi) of the flat vector, held at *g. Returns the number of regions. */
static int region(const dp_trainer *d, int i, size_t *lo, size_t *hi, float **g)
{
    if (d->local && d->o.sharded) {
        *lo = d->n * (size_t)i / (size_t)d->R;
        *hi = d->n * ((size_t)i + 1) / (size_t)d->R;
        *g = d->sum + *lo;
        return d->R;
    }
    *lo = d->lo;
    *hi = d->hi;
    *g = d->local || !d->o.sharded ? d->sum + d->lo : d->sum;
    return 1;
}

/* Undo what a failed step changed: the scaler and the fp8 states (their amax records too). */
static void restore(dp_trainer *d, const mf_loss_scaler *scaler)
{
    d->t.scaler = *scaler;
    if (d->nstates)
        memcpy(d->t.states, d->bk_states, (size_t)d->nstates * sizeof(mf_fp8_delayed));
}

int dp_step(dp_trainer *d)
{
    demo_trainer *t;
    mf_loss_scaler scaler;
    long long e, s;
    int rc, take = 1, i, nreg, r;
    size_t lo, hi;
    float *g;
    if (!d)
        return MF_E_NULL;
    if (d->k >= d->total)
        return MF_E_ARG;
    t = &d->t;
    e = d->k / d->spe;
    s = d->k % d->spe;
    if (d->shuffled != e) { /* once per epoch, also when its first step is retried */
        demo_shuffle(t);
        d->shuffled = e;
        memset(d->loss_cur, 0, (size_t)d->R * sizeof(double));
    }
    scaler = t->scaler;
    if (d->nstates)
        memcpy(d->bk_states, t->states, (size_t)d->nstates * sizeof(mf_fp8_delayed));

    rc = gradients(d, s);
    if (rc != MF_OK) {
        restore(d, &scaler);
        return rc;
    }
    nreg = region(d, 0, &lo, &hi, &g);

    /* Every reduction that decides the update comes before it, so that a failed one leaves the
     * weights alone: the found-inf flag (fp16-ls), then the amaxes (fp8). */
    if (t->cfg == DEMO_FP16_LS) {
        int found = 0;
        for (i = 0; i < nreg; i++) {
            int f;
            region(d, i, &lo, &hi, &g);
            f = mf_unscale_check(&t->scaler, MF_FP32, g, hi - lo);
            if (f < 0) {
                demo_note(t, f);
                f = 1;
            }
            found |= f;
        }
        take = mf_loss_scaler_update(&t->scaler, found);
        if (take < 0) {
            restore(d, &scaler);
            return take;
        }
    }
    if (d->nstates) {
        rc = mf_fp8_delayed_update_many(t->states, (size_t)d->nstates);
        if (rc != MF_OK) {
            restore(d, &scaler);
            return rc;
        }
    }

    if (take) {
        float lr, c1, c2;
        t->adam_t++;
        demo_adam_params(t, d->k, d->total, &lr, &c1, &c2);
        for (i = 0; i < nreg; i++) {
            region(d, i, &lo, &hi, &g);
            if (!d->local && d->o.sharded) {
                memcpy(d->bk, d->W + lo, (hi - lo) * sizeof(float));
                memcpy(d->bk + d->n, d->M + lo, (hi - lo) * sizeof(float));
                memcpy(d->bk + 2 * d->n, d->V + lo, (hi - lo) * sizeof(float));
            }
            demo_adam(d->W + lo, d->M + lo, d->V + lo, g, hi - lo, lr, c1, c2);
        }
    }
    if (!d->local && d->o.sharded) {
        /* every rank joins, also one that skipped: without the reduce hook the ranks may disagree */
        rc = d->comm.allgather_shards(d->comm.ctx, d->W + d->lo, d->Wall, d->n);
        if (rc != MF_OK) {
            if (take) {
                memcpy(d->W + d->lo, d->bk, (d->hi - d->lo) * sizeof(float));
                memcpy(d->M + d->lo, d->bk + d->n, (d->hi - d->lo) * sizeof(float));
                memcpy(d->V + d->lo, d->bk + 2 * d->n, (d->hi - d->lo) * sizeof(float));
                t->adam_t--;
            }
            restore(d, &scaler);
            return rc;
        }
        memcpy(d->W, d->Wall, d->n * sizeof(float));
    }
    if (t->err) { /* a library call failed (a bug): report it rather than train on */
        restore(d, &scaler);
        return t->err;
    }

    /* commit */
    unflatten_weights(t, d->W);
    d->steps++;
    d->skipped += !take;
    for (r = 0; r < d->R; r++)
        if (d->local || r == d->rank)
            d->loss_cur[r] += d->loss_step[r];
    d->k++;
    if (d->k % d->spe == 0)
        memcpy(d->loss_last, d->loss_cur, (size_t)d->R * sizeof(double));
    return MF_OK;
}

static uint64_t state_digest(const dp_trainer *d)
{
    const mf_loss_scaler *sc = &d->t.scaler;
    uint64_t h = DP_FNV_OFFSET;
    int l;
    h = dp_fnv1a(h, &d->k, sizeof d->k);
    h = dp_fnv1a(h, &d->steps, sizeof d->steps);
    h = dp_fnv1a(h, &d->skipped, sizeof d->skipped);
    h = dp_fnv1a(h, &d->t.adam_t, sizeof d->t.adam_t);
    if (d->t.cfg == DEMO_FP16_LS) {
        h = dp_fnv1a(h, &sc->scale, sizeof sc->scale);
        h = dp_fnv1a(h, &sc->growth_tracker, sizeof sc->growth_tracker);
        h = dp_fnv1a(h, &sc->hysteresis_tracker, sizeof sc->hysteresis_tracker);
        h = dp_fnv1a(h, &sc->steps_taken, sizeof sc->steps_taken);
        h = dp_fnv1a(h, &sc->steps_skipped, sizeof sc->steps_skipped);
    }
    for (l = 0; l < d->nstates; l++) {
        const mf_fp8_delayed *st = &d->t.states[l];
        h = dp_fnv1a(h, &st->scale, sizeof st->scale);
        h = dp_fnv1a(h, &st->scale_inv, sizeof st->scale_inv);
        h = dp_fnv1a(h, &st->steps, sizeof st->steps);
        h = dp_fnv1a(h, st->history, st->cfg.history_len * sizeof(float));
    }
    return h;
}

int dp_result_get(dp_trainer *d, dp_result *r)
{
    demo_trainer *t;
    float mine = 0.0f, all = 0.0f;
    int rc = MF_OK, i;
    if (!d || !r)
        return MF_E_NULL;
    t = &d->t;
    memset(r, 0, sizeof *r);
    r->rank = d->rank;
    r->size = d->R;
    r->steps = d->steps;
    r->skipped = d->skipped;
    if (t->cfg == DEMO_FP16_LS)
        r->loss_scale = mf_loss_scaler_scale(&t->scaler);
    if (d->nstates) {
        r->fp8_scale_out = t->L[t->nl - 1].st_dz->scale;
        r->fp8_scale_in = t->L[0].st_dz->scale;
    }
    r->weights_digest = dp_fnv1a(DP_FNV_OFFSET, d->W, d->n * sizeof(float));
    r->state_digest = state_digest(d);
    /* the ranks' loss sums added in rank order in binary32, as the adapter's all-reduce does */
    if (d->local) {
        for (i = 0; i < d->R; i++)
            all = i == 0 ? (float)d->loss_last[0] : all + (float)d->loss_last[i];
    } else {
        mine = (float)d->loss_last[d->rank];
        rc = d->comm.allreduce_sum(d->comm.ctx, MF_FP32, &mine, &all, 1);
    }
    r->last_loss = d->k >= d->spe ? (double)all / ((double)t->p.batch * (double)d->spe) : 0.0;
    r->test_acc = (double)demo_eval_correct(t, t->xtest, t->ytest, t->p.n_test) / t->p.n_test;
    return rc;
}

int dp_train(const demo_params *p, const dp_options *o, const dp_comm *comm, int ranks, dp_result *r)
{
    dp_trainer *d;
    int rc;
    if (!r)
        return MF_E_NULL;
    rc = dp_init(&d, p, o, comm, ranks);
    if (rc != MF_OK)
        return rc;
    while (rc == MF_OK && dp_steps_done(d) < dp_total_steps(d))
        rc = dp_step(d);
    if (rc == MF_OK)
        rc = dp_result_get(d, r);
    dp_free(d);
    return rc;
}
