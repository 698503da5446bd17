/* SPDX-License-Identifier: MIT */
/* tools/cli/train_demo_cmd.c - `minifloat train-demo`: options, progress and output files around demo_run. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <minifloat.h>

#include "cli_util.h"
#include "commands.h"
#include "train_demo.h"

/* Messages: "minifloat train-demo: ...", usage errors point to its own --help. */
static const cli_voice voice = {"minifloat train-demo: ", "minifloat train-demo"};

static const char train_usage[] =
    "usage: minifloat train-demo [options]\n"
    "\n"
    "Train one small MLP on two spirals in FP32, BF16, FP16 without and with loss scaling, FP8\n"
    "(delayed scaling) and MXFP8; print per-epoch loss, accuracy, overflow/underflow counts and\n"
    "scale histories. The same seed gives the same numbers, bit for bit.\n"
    "\n"
    "  --config LIST      comma-separated configurations (default all):\n"
    "                     fp32 bf16 fp16 fp16-ls fp8 mxfp8\n"
    "  --epochs N         epochs (default 40; --quick: 16)\n"
    "  --seed S           data, initial weights and batch order (default 1)\n"
    "  --quick            a short run (2048 training points, 16 epochs)\n"
    "  --plot FILE        write the loss and accuracy curves as SVG\n"
    "  --csv FILE         write every epoch of every configuration as CSV ('-' = stdout)\n"
    "  --every N          print every N-th epoch in the loss table (default: about 20 rows)\n"
    "  --quiet            no progress lines on stderr\n"
    "model and data (defaults in brackets):\n"
    "  --train N          training points [4096; --quick 2048]\n"
    "  --test N           test points [2048]\n"
    "  --batch N          points per step, a multiple of 32 [512]\n"
    "  --hidden N         hidden width, a multiple of 32 [64]\n"
    "  --layers N         hidden layers, 1..8 [3]\n"
    "  --lr X             Adam learning rate, cosine decay to lr/20 [0.01]\n"
    "  --init-std X       initial weights ~ N(0, X^2) [0.02]\n"
    "  --turns X          turns of each spiral [1.25]\n"
    "  --noise X          coordinate noise [0.03]\n"
    "  --growth-interval N  loss-scaler growth interval in steps [100]\n"
    "  --fp8-history N    FP8 delayed-scaling amax history length [16]\n"
    "  -h, --help         this text\n"
    "\n"
    "exit status: 0 success, 1 I/O error, 2 usage error\n";

typedef struct progress_ctx {
    FILE *f;
    int index, count;
    clock_t last;
} progress_ctx;

static void progress_cb(void *vctx, demo_config c, int epoch, int epochs)
{
    progress_ctx *ctx = vctx;
    clock_t now = clock();
    if (!ctx->f)
        return;
    /* a line every ~2 s of CPU time (the time never touches a result) */
    if (epoch < epochs && (double)(now - ctx->last) / CLOCKS_PER_SEC >= 2.0) {
        fprintf(ctx->f, "train-demo: [%d/%d] %-7s epoch %d/%d\n", ctx->index, ctx->count, demo_config_name(c),
                epoch, epochs);
        fflush(ctx->f);
        ctx->last = now;
    }
}

static int config_lookup(const char *name, int *item)
{
    demo_config c;
    if (demo_config_from_name(name, &c) != MF_OK)
        return 0;
    *item = (int)c;
    return 1;
}

int cli_train_demo_main(int argc, char **argv)
{
    demo_params p;
    demo_config list[DEMO_CONFIG_COUNT];
    demo_result res[DEMO_CONFIG_COUNT];
    int nconf = 0, quick = 0, quiet = 0, every = 0, i, rc, status = 0;
    const char *plot = NULL, *csv = NULL, *configs = NULL;
    progress_ctx pc;
    char msg[160];

    /* --quick changes the defaults, so look for it first */
    for (i = 2; i < argc; i++)
        if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
    p = demo_params_default(quick);

    for (i = 2; i < argc; i++) {
        const char *a = argv[i], *val = NULL, *eq;
        char opt[64];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(train_usage, stdout);
            return 0;
        }
        if (strncmp(a, "--", 2) != 0)
            return cli_usage_error(&voice, "unexpected argument '%s'", a);
        eq = strchr(a, '=');
        if (eq) {
            size_t len = (size_t)(eq - a);
            if (len >= sizeof opt)
                return cli_usage_error(&voice, "unknown option '%s'", a);
            memcpy(opt, a, len);
            opt[len] = '\0';
            val = eq + 1;
        } else {
            snprintf(opt, sizeof opt, "%s", a);
        }
        if (strcmp(opt, "--quick") == 0 || strcmp(opt, "--quiet") == 0) {
            if (val)
                return cli_usage_error(&voice, "option '%s' takes no value", opt);
            if (strcmp(opt, "--quiet") == 0)
                quiet = 1;
            continue;
        }
        {
            static const char *const known[] = {"--config", "--configs", "--plot",  "--csv",   "--epochs",
                                                "--seed",   "--every",   "--train", "--test",  "--batch",
                                                "--hidden", "--layers",  "--lr",    "--init-std", "--turns",
                                                "--noise",  "--growth-interval", "--fp8-history"};
            size_t k = 0;
            while (k < sizeof known / sizeof known[0] && strcmp(opt, known[k]) != 0)
                k++;
            if (k == sizeof known / sizeof known[0])
                return cli_usage_error(&voice, "unknown option '%s'", opt);
        }
        if (!val) {
            if (i + 1 >= argc)
                return cli_usage_error(&voice, "option '%s' needs a value", opt);
            val = argv[++i];
        }
        if (strcmp(opt, "--config") == 0 || strcmp(opt, "--configs") == 0)
            configs = val;
        else if (strcmp(opt, "--plot") == 0)
            plot = val;
        else if (strcmp(opt, "--csv") == 0)
            csv = val;
        else if (strcmp(opt, "--epochs") == 0) {
            if (!cli_parse_int(val, 1, DEMO_MAX_EPOCHS, &p.epochs))
                return cli_usage_error(&voice, "--epochs needs a number from 1 to %d", DEMO_MAX_EPOCHS);
        } else if (strcmp(opt, "--seed") == 0) {
            if (!cli_parse_uint(val, UINT64_MAX, &p.seed))
                return cli_usage_error(&voice, "--seed needs an unsigned 64-bit number");
        } else if (strcmp(opt, "--every") == 0) {
            if (!cli_parse_int(val, 1, DEMO_MAX_EPOCHS, &every))
                return cli_usage_error(&voice, "--every needs a number from 1 to %d", DEMO_MAX_EPOCHS);
        } else if (strcmp(opt, "--train") == 0) {
            if (!cli_parse_int(val, 1, 1 << 22, &p.n_train))
                return cli_usage_error(&voice, "--train needs a number from 1 to 4194304");
        } else if (strcmp(opt, "--test") == 0) {
            if (!cli_parse_int(val, 2, 1 << 22, &p.n_test))
                return cli_usage_error(&voice, "--test needs a number from 2 to 4194304");
        } else if (strcmp(opt, "--batch") == 0) {
            if (!cli_parse_int(val, 1, 1 << 16, &p.batch))
                return cli_usage_error(&voice, "--batch needs a number from 1 to %d", 1 << 16);
        } else if (strcmp(opt, "--hidden") == 0) {
            if (!cli_parse_int(val, 1, 1024, &p.hidden))
                return cli_usage_error(&voice, "--hidden needs a number from 1 to 1024");
        } else if (strcmp(opt, "--layers") == 0) {
            if (!cli_parse_int(val, 1, DEMO_MAX_LAYERS, &p.layers))
                return cli_usage_error(&voice, "--layers needs a number from 1 to %d", DEMO_MAX_LAYERS);
        } else if (strcmp(opt, "--lr") == 0) {
            if (!cli_parse_float(val, &p.lr))
                return cli_usage_error(&voice, "--lr needs a number");
        } else if (strcmp(opt, "--init-std") == 0) {
            if (!cli_parse_float(val, &p.init_std))
                return cli_usage_error(&voice, "--init-std needs a number");
        } else if (strcmp(opt, "--turns") == 0) {
            if (!cli_parse_float(val, &p.turns))
                return cli_usage_error(&voice, "--turns needs a number");
        } else if (strcmp(opt, "--noise") == 0) {
            if (!cli_parse_float(val, &p.noise))
                return cli_usage_error(&voice, "--noise needs a number");
        } else if (strcmp(opt, "--growth-interval") == 0) {
            if (!cli_parse_int(val, 1, 1 << 30, &p.ls_growth_interval))
                return cli_usage_error(&voice, "--growth-interval needs a number from 1 to %d", 1 << 30);
        } else if (strcmp(opt, "--fp8-history") == 0) {
            if (!cli_parse_int(val, 1, MF_FP8_HISTORY_MAX, &p.fp8_history))
                return cli_usage_error(&voice, "--fp8-history needs a number from 1 to %d", MF_FP8_HISTORY_MAX);
        } else
            return cli_usage_error(&voice, "unknown option '%s'", opt);
    }
    if (demo_params_check(&p, msg, sizeof msg) != MF_OK)
        return cli_usage_error(&voice, "%s", msg);

    if (!configs || cli_name_eq(configs, "all")) {
        for (i = 0; i < DEMO_CONFIG_COUNT; i++)
            list[nconf++] = (demo_config)i;
    } else {
        int items[DEMO_CONFIG_COUNT], k, bad;
        bad = cli_parse_list(&voice, "--config", "configuration", configs, config_lookup, "fp32 bf16 fp16 fp16-ls fp8 mxfp8", items,
                             DEMO_CONFIG_COUNT, &nconf);
        if (bad != 0)
            return bad;
        for (k = 0; k < nconf; k++)
            list[k] = (demo_config)items[k];
    }
    if (!every)
        every = p.epochs <= 25 ? 1 : (p.epochs + 19) / 20;

    pc.f = quiet ? NULL : stderr;
    pc.count = nconf;
    memset(res, 0, sizeof res);
    for (i = 0; i < nconf; i++) {
        pc.index = i + 1;
        pc.last = clock();
        rc = demo_run(&p, list[i], &res[i], progress_cb, &pc);
        if (rc != MF_OK) {
            rc = cli_data_error(&voice, "%s failed: %s", demo_config_name(list[i]), mf_strerror(rc));
            while (--i >= 0)
                demo_result_free(&res[i]);
            return rc;
        }
        if (pc.f) {
            fprintf(pc.f, "train-demo: [%d/%d] %-7s done: test accuracy %.2f%% (%.1f s)\n", i + 1, nconf,
                    demo_config_name(list[i]), 100 * res[i].test_acc, res[i].seconds);
            fflush(pc.f);
        }
    }

    demo_print_report(stdout, &p, res, nconf, every);
    if (csv && strcmp(csv, "-") == 0) {
        if (demo_write_csv(stdout, res, nconf) != 0)
            status = cli_data_error(&voice, "cannot write the CSV: %s", strerror(errno));
    } else if (csv) { /* whole or not at all (cli_out) */
        cli_out out;
        if (cli_out_open(&out, csv) != 0)
            status = cli_data_error(&voice, "cannot write '%s': %s", csv, strerror(errno));
        else if (demo_write_csv(out.f, res, nconf) != 0) {
            cli_out_abort(&out);
            status = cli_data_error(&voice, "cannot write '%s': %s", csv, strerror(errno));
        } else if (cli_out_commit(&out) != 0)
            status = cli_data_error(&voice, "cannot write '%s': %s", csv, strerror(errno));
        else
            printf("\nwrote %s\n", csv);
    }
    if (plot) {
        if (demo_plot_svg(plot, res, nconf, &p, NULL) != 0)
            status = cli_data_error(&voice, "cannot write '%s': %s", plot, strerror(errno));
        else
            printf("%swrote %s\n", csv ? "" : "\n", plot);
    }
    for (i = 0; i < nconf; i++)
        demo_result_free(&res[i]);
    if (fflush(stdout) != 0)
        status = CLI_EXIT_DATA;
    return status;
}
