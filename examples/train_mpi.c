/* SPDX-License-Identifier: MIT */
/* examples/train_mpi.c - data-parallel training of the demo's model over MPI (docs/distributed.md).
 *
 *   mpiexec -n 2 build/examples/train_mpi [--config fp16-ls|fp8|fp32|bf16|fp16] [--wire f32|bf16]
 *           [--sharded] [--no-hook] [--epochs N] [--growth-interval N] [--init-scale X] [--seed S]
 *
 * Each rank trains on its slice of every global batch; the gradients are summed in rank order (so every
 * rank gets the same bits), and the loss scaler's found-inf flag and the FP8 amaxes are max-reduced
 * through the minifloat_mpi hook. Each rank prints its loss scale, skipped steps and a digest of its
 * weights (rank 0 prints them all, in rank order), and rank 0 compares them with the same training
 * simulated in one process. Exit status: 0 when every rank matches that reference (or --no-hook, which
 * only reports), 1 when not, 2 on a usage error, 3 when training failed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "dp.h"
#include "dp_mpi.h"

static void usage(void)
{
    fprintf(stderr, "usage: mpiexec -n R train_mpi [--config fp16-ls|fp8|fp32|bf16|fp16] [--wire f32|bf16]\n"
                    "       [--sharded] [--no-hook] [--epochs N] [--growth-interval N] [--init-scale X] "
                    "[--seed S]\n");
}

/* "2^k" for a power of two, else 2^ with two decimals (fp8 scales are amax quotients). */
static void fmt_scale(char *buf, size_t size, float s)
{
    int e;
    if (s > 0 && frexpf(s, &e) == 0.5f)
        snprintf(buf, size, "2^%d", e - 1);
    else if (s > 0)
        snprintf(buf, size, "2^%.2f", log2((double)s));
    else
        snprintf(buf, size, "%g", (double)s);
}

static void print_result(const dp_result *r, const char *who, const char *cfg)
{
    char ls[32], so[32], si[32];
    printf("%-9s %-7s steps %4llu  skipped %3llu", who, cfg, (unsigned long long)r->steps,
           (unsigned long long)r->skipped);
    if (r->loss_scale > 0) {
        fmt_scale(ls, sizeof ls, r->loss_scale);
        printf("  loss scale %-6s", ls);
    }
    if (r->fp8_scale_out > 0) {
        fmt_scale(so, sizeof so, r->fp8_scale_out);
        fmt_scale(si, sizeof si, r->fp8_scale_in);
        printf("  fp8 scale dlogits %s dZ1 %s", so, si);
    }
    printf("  weights %016llx  state %016llx  loss %.5f  test acc %.2f%%\n", (unsigned long long)r->weights_digest,
           (unsigned long long)r->state_digest, r->last_loss, 100.0 * r->test_acc);
}

int main(int argc, char **argv)
{
    demo_params p = demo_params_default(1);
    dp_options o;
    dp_comm comm;
    mf_mpi_reduce red;
    dp_result mine, ref, *all = NULL;
    int hook = 1, rank, size, i, rc, bad = 0, status = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    memset(&o, 0, sizeof o);
    o.config = DEMO_FP16_LS;
    o.wire = MF_FP32;
    /* a short run that still shows the scaler at work: it doubles every 2 clean steps until the f16
     * weight gradients overflow, then backs off and skips the step */
    p.epochs = 8;
    p.ls_growth_interval = 2;
    for (i = 1; i < argc && !bad; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--sharded")) {
            o.sharded = 1;
            continue;
        }
        if (!strcmp(a, "--no-hook")) {
            hook = 0;
            continue;
        }
        if (!v) { /* every other option takes a value */
            bad = 1;
            break;
        }
        i++;
        if (!strcmp(a, "--config"))
            bad = demo_config_from_name(v, &o.config) != MF_OK;
        else if (!strcmp(a, "--wire") && (!strcmp(v, "f32") || !strcmp(v, "fp32")))
            o.wire = MF_FP32;
        else if (!strcmp(a, "--wire") && !strcmp(v, "bf16"))
            o.wire = MF_BF16;
        else if (!strcmp(a, "--epochs"))
            p.epochs = atoi(v);
        else if (!strcmp(a, "--growth-interval"))
            p.ls_growth_interval = atoi(v);
        else if (!strcmp(a, "--init-scale"))
            o.ls_init_scale = (float)atof(v);
        else if (!strcmp(a, "--seed"))
            p.seed = strtoull(v, NULL, 10);
        else
            bad = 1;
    }
    if (bad || dp_check(&p, &o, size) != MF_OK) {
        if (rank == 0)
            usage();
        MPI_Finalize();
        return 2;
    }
    /* errors come back as codes (MF_E_REDUCE) instead of ending the job */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = dp_comm_mpi(&comm, &red, MPI_COMM_WORLD, hook);
    if (rc == MF_OK)
        rc = dp_train(&p, &o, &comm, size, &mine);
    if (rc != MF_OK) {
        fprintf(stderr, "rank %d: training failed: %s\n", rank, mf_strerror(rc));
        MPI_Abort(MPI_COMM_WORLD, 3);
    }

    if (rank == 0) {
        all = malloc((size_t)size * sizeof *all);
        if (!all)
            MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        const char *cfg = demo_config_name(o.config);
        int match = 1;
        /* rank r takes rows [B*r/R, B*(r+1)/R): B/R each, or B/R and B/R + 1 where R does not divide B */
        char per[32];
        if (p.batch % size)
            snprintf(per, sizeof per, "%d or %d", p.batch / size, p.batch / size + 1);
        else
            snprintf(per, sizeof per, "%d", p.batch / size);
        printf("data-parallel %s on %d ranks: global batch %d (%s per rank), %s gradients on the wire, %s, %s\n", cfg,
               size, p.batch, per, o.wire == MF_BF16 ? "bf16" : "f32",
               o.sharded ? "sharded (reduce-scatter, per-shard unscale, all-gather)" : "all-reduce",
               hook ? "reduce hook on" : "NO reduce hook");
        for (i = 0; i < size; i++) {
            char who[16];
            snprintf(who, sizeof who, "rank %d", i);
            print_result(&all[i], who, cfg);
        }
        rc = dp_train(&p, &o, NULL, size, &ref);
        if (rc != MF_OK) {
            fprintf(stderr, "reference failed: %s\n", mf_strerror(rc));
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        print_result(&ref, "1 process", cfg);
        for (i = 0; i < size; i++)
            match &= all[i].weights_digest == ref.weights_digest && all[i].state_digest == ref.state_digest &&
                     all[i].steps == ref.steps && all[i].skipped == ref.skipped &&
                     memcmp(&all[i].loss_scale, &ref.loss_scale, sizeof(float)) == 0 &&
                     memcmp(&all[i].last_loss, &ref.last_loss, sizeof(double)) == 0;
        printf("every rank equals the single-process run of %d simulated ranks, bit for bit: %s\n", size,
               match  ? "yes"
               : hook ? "NO"
                      : "no (without the hook each rank decides on its own shard)");
        status = match || !hook ? 0 : 1;
        free(all);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
