/* SPDX-License-Identifier: MIT */
/* tools/cli/main.c - the minifloat command-line tool: help, version, and dispatch to the commands. */
/* Each command has its own file (info.c, show.c, convert.c, analyze.c, plan.c, train_demo_cmd.c, gemm_lab.c,
 * memory.c);
 * the tool uses only the public API of <minifloat.h>. docs/cli.md describes the commands. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <minifloat.h>

#include "cli_util.h"
#include "commands.h"

/* The usage; the first %s is the formats (every format but f64), the second analyze's part (cli_analyze_usage). */
static const char usage_text[] =
    "usage: minifloat info [FORMAT]\n"
    "       minifloat show X [-r MODE] [--sat | --propagate] [--rbits N]\n"
    "       minifloat convert --from FORMAT --to FORMAT [options] [IN [OUT]]\n"
    "       minifloat analyze FILE [--formats LIST] [--scale auto|S] [--op OP] [-r MODE] [--sat] [--plot OUT]\n"
    "       minifloat plan SRC DST [-n N] [-r MODE] [--sat] [--stats] [--threads T] [--sr-offset K]\n"
    "                      [--misalign-src B] [--misalign-dst B] [--profile NAME]\n"
    "       minifloat plan --gemm A B [--accum MODEL] [--scale-a KIND] [--scale-b KIND]\n"
    "       minifloat train-demo [options]   (minifloat train-demo --help)\n"
    "       minifloat gemm-lab [options]     (minifloat gemm-lab --help)\n"
    "       minifloat memory [options]       (minifloat memory --help)\n"
    "       minifloat help | --help | --version\n"
    "\n"
    "formats: %s,\n"
    "         and f64 (convert and plan only)\n"
    "modes:   rn (nearest even, default) rna rz ru rd ro sr (stochastic)\n"
    "profiles: default cuda ml_dtypes torch onnx (convert and plan --profile; docs/compat.md)\n"
    "\n"
    "info [FORMAT]      bits, bias, max, min normal, min subnormal, epsilon and special codes\n"
    "show X             X (decimal, hex-float like 0x1.8p+1, inf, nan) rounded into every format:\n"
    "                   code, bit fields, decoded value, relative error, events\n"
    "  -r, --round MODE   rounding mode (default rn)\n"
    "  --sat, --saturate  overflow saturates to +-max (default: IEEE overflow)\n"
    "  --propagate        finite overflow saturates, infinities stay (P3109's SatPropagate)\n"
    "  --rbits N          the 32 random bits used by -r sr (default 0)\n"
    "convert            round IN (a file or - for stdin, the default) into --to, to OUT (a file or\n"
    "                   -, stdout): .npy, raw arrays or text; see minifloat convert --help\n"
    "  --from FORMAT      input format (raw input; text: f64 by default; a .npy names its own)\n"
    "  --to FORMAT        output format (or FORMAT before IN: minifloat convert f16 x.npy y.npy)\n"
    "  -r, --round MODE   rounding mode (default rn)\n"
    "  --sat, --saturate  overflow saturates to +-max (default: IEEE overflow)\n"
    "  --propagate        finite overflow saturates, infinities stay (P3109's SatPropagate)\n"
    "  --text             numbers in and out (--text-in, --text-out: one side only)\n"
    "  --hex              codes in hexadecimal instead of numbers (--hex-in, --hex-out: one side)\n"
    "  --profile NAME     convert as system NAME does, NaN codes included (docs/compat.md)\n"
    "%s"
    "plan SRC DST       which code mf_convert runs for one call (mf_convert_plan): the backend, the\n"
    "                   body's path, the head and tail that go through a bounce buffer, streaming,\n"
    "                   threads; MF_BACKEND=<name> in the environment selects the backend\n"
    "plan --gemm A B    mf_gemm's kernel, tile and blocks for A x B (mf_gemm_plan; docs/cli.md)\n"
    "  -n, --count N      elements of the call (default 4096)\n"
    "  -r, --round MODE   rounding mode (default rn); --sat: overflow saturates (default IEEE)\n"
    "  --stats            a call that counts events\n"
    "  --threads T        opts.threads (default 0: the calling thread only)\n"
    "  --sr-offset K      opts.sr_offset, the stream index of element 0 (default 0)\n"
    "  --misalign-src B   the source array starts B bytes (0-63) past a 64-byte boundary (default 0)\n"
    "  --misalign-dst B   the same for the destination array\n"
    "  --profile NAME     opts.profile: path profile, one thread, element by element\n"
    "train-demo         a small MLP trained with FP32 master weights in f32, bf16, f16 (with and\n"
    "                   without loss scaling), FP8 and MXFP8; see minifloat train-demo --help\n"
    "gemm-lab           mf_gemm's accumulation error (FP32, tensor-core models, promotion) against\n"
    "                   the exact dot product as K grows; see minifloat gemm-lab --help\n"
    "memory             training memory per GPU, per precision recipe\n"
    "\n"
    "exit status: 0 success, 1 data or I/O error, 2 usage error\n";

static void print_usage(FILE *f)
{
    char formats[4096];
    fprintf(f, usage_text, cli_format_tags(formats, sizeof formats, NULL, " ", " "), cli_analyze_usage);
}

static int run_command(int argc, char **argv)
{
    const char *cmd;
    if (argc < 2) {
        print_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        print_usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("minifloat %s\n", mf_version());
        return 0;
    }
    if (argc >= 3 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0) &&
        (strcmp(cmd, "info") == 0 || strcmp(cmd, "show") == 0 || strcmp(cmd, "analyze") == 0 ||
         strcmp(cmd, "plan") == 0)) { /* convert prints its own (cli_convert_usage) */
        print_usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "info") == 0)
        return cli_info_main(argc, argv);
    if (strcmp(cmd, "show") == 0)
        return cli_show_main(argc, argv);
    if (strcmp(cmd, "convert") == 0)
        return cli_convert_main(argc, argv);
    if (strcmp(cmd, "analyze") == 0)
        return cli_analyze_main(argc, argv);
    if (strcmp(cmd, "plan") == 0)
        return cli_plan_main(argc, argv);
    if (strcmp(cmd, "train-demo") == 0)
        return cli_train_demo_main(argc, argv);
    if (strcmp(cmd, "gemm-lab") == 0)
        return cli_gemm_lab_main(argc, argv);
    if (strcmp(cmd, "memory") == 0)
        return cli_memory_main(argc, argv);
    return cli_usage_error(
        &cli_tool, "unknown command '%s' (info, show, convert, analyze, plan, train-demo, gemm-lab, memory, help)", cmd);
}

/* Every command's standard output checked once at the end: a write that failed (a full disk, a closed
 * pipe's EPIPE with SIGPIPE ignored) is exit 1 with a message, whatever the command returned. */
int main(int argc, char **argv)
{
    int rc = run_command(argc, argv), flushed;
    errno = 0;
    flushed = fflush(stdout) == 0;
    if (rc == 0 && (!flushed || ferror(stdout))) { /* a command that failed has said why */
        fprintf(stderr, "minifloat: cannot write the standard output%s%s\n", errno ? ": " : "",
                errno ? strerror(errno) : "");
        return CLI_EXIT_DATA;
    }
    return rc;
}
