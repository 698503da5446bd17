/* SPDX-License-Identifier: MIT */
/* bench/convert.c - how fast the bulk conversions are, against baselines measured in the same run.
 *
 *   bench/convert [--quick] [--best] [--size l1|l2|dram|all] [--filter TEXT] [--no-python]
 *
 * One CSV line per (conversion, size class, implementation):
 *   conversion,mode,size,impl,n,ns_per_elem,gelem_per_s,gb_per_s,vs_ours
 * ns_per_elem is the median of REPS timed repetitions (--best: the fastest, for a machine shared with other
 * jobs, where the median carries their load), the row group's implementations taking turns;
 * gb_per_s counts bytes read plus written;
 * vs_ours is the implementation's speed divided by minifloat's best backend in the same row group
 * (so a baseline at 0.02 is 50 times slower, the raw instruction loop at 1.25 is 25% faster).
 * Baselines: memcpy of the larger array, the raw hardware instruction loop where one exists,
 * NVIDIA's host conversions (CUDA headers), Maratyszcza's FP16, and numpy/ml_dtypes through python3
 * when importable (bench/mldtypes.py, same inputs and sizes).
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "../src/internal.h"
#include "baselines.h"
#include "clock.h"

#ifndef MF_BENCH_HAVE_NV
#define MF_BENCH_HAVE_NV 0
#endif
#ifndef MF_BENCH_HAVE_FP16LIB
#define MF_BENCH_HAVE_FP16LIB 0
#endif
#ifndef MF_BENCH_HAVE_RAW
#define MF_BENCH_HAVE_RAW 0
#endif

enum { REPS = 7 };


/* A conversion to measure. */
typedef struct bcase {
    const char *name, *mode;
    mf_format src, dst;
    mf_round round;
    mf_overflow overflow;
    bench_fn raw, nv, fp16lib; /* baselines, NULL where none */
    const char *py;            /* the conversion's name for bench/mldtypes.py, NULL where none */
} bcase;

static const bcase cases[] = {
#if MF_BENCH_HAVE_RAW
#define RAW(f) f
#else
#define RAW(f) NULL
#endif
#if MF_BENCH_HAVE_NV
#define NV(f) f
#else
#define NV(f) NULL
#endif
#if MF_BENCH_HAVE_FP16LIB
#define FP16LIB(f) f
#else
#define FP16LIB(f) NULL
#endif
    {"f32->f16", "rn", MF_FP32, MF_FP16, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, RAW(raw_cvtps2ph), NV(nv_f32_to_f16),
     FP16LIB(fp16lib_f32_to_f16), "f32->f16"},
    {"f32->f16", "rn sat", MF_FP32, MF_FP16, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE, RAW(raw_cvtps2ph), NULL, NULL,
     NULL},
    /* SatPropagate: SATURATE's kernels, then the source scanned for infinities (docs/formats.md) */
    {"f32->f16", "rn propagate", MF_FP32, MF_FP16, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_PROPAGATE, RAW(raw_cvtps2ph),
     NULL, NULL, NULL},
    {"f32->bf16", "rn sat", MF_FP32, MF_BF16, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE, RAW(raw_cvtneps2bf16), NULL,
     NULL, NULL},
    {"f16->f32", "-", MF_FP16, MF_FP32, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, RAW(raw_cvtph2ps), NV(nv_f16_to_f32),
     FP16LIB(fp16lib_f16_to_f32), "f16->f32"},
    {"f32->bf16", "rn", MF_FP32, MF_BF16, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, RAW(raw_cvtneps2bf16),
     NV(nv_f32_to_bf16), NULL, "f32->bf16"},
    {"bf16->f32", "-", MF_BF16, MF_FP32, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, RAW(raw_bf16_shift),
     NV(nv_bf16_to_f32), NULL, "bf16->f32"},
    {"f32->e4m3", "rn sat", MF_FP32, MF_FP8_E4M3, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE, NULL, NV(nv_f32_to_e4m3),
     NULL, "f32->e4m3"},
    {"e4m3->f32", "-", MF_FP8_E4M3, MF_FP32, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, NULL, NV(nv_e4m3_to_f32), NULL,
     "e4m3->f32"},
    {"f32->e5m2", "rn sat", MF_FP32, MF_FP8_E5M2, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE, NULL, NV(nv_f32_to_e5m2),
     NULL, "f32->e5m2"},
    {"e5m2->f32", "-", MF_FP8_E5M2, MF_FP32, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, NULL, NV(nv_e5m2_to_f32), NULL,
     "e5m2->f32"},
    {"f32->e2m1", "rn sat", MF_FP32, MF_FP4_E2M1, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE, NULL, NV(nv_f32_to_e2m1),
     NULL, "f32->e2m1"},
    {"e2m1->f32", "-", MF_FP4_E2M1, MF_FP32, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, NULL, NV(nv_e2m1_to_f32), NULL,
     "e2m1->f32"},
    {"f32->bf16", "sr", MF_FP32, MF_BF16, MF_ROUND_STOCHASTIC, MF_OVERFLOW_SATURATE, NULL, NULL, NULL, NULL},
    {"f32->e4m3", "sr sat", MF_FP32, MF_FP8_E4M3, MF_ROUND_STOCHASTIC, MF_OVERFLOW_SATURATE, NULL, NULL, NULL, NULL},
    {"f32->e4m3", "rz sat", MF_FP32, MF_FP8_E4M3, MF_ROUND_TOWARD_ZERO, MF_OVERFLOW_SATURATE, NULL, NULL, NULL, NULL},
    {"f32->e8m0", "ru", MF_FP32, MF_E8M0, MF_ROUND_UP, MF_OVERFLOW_SATURATE, NULL, NULL, NULL, NULL},
    {"f64->e4m3", "rn sat", MF_FP64, MF_FP8_E4M3, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE, NULL, NULL, NULL, NULL},
    {"f16->e4m3", "rn sat", MF_FP16, MF_FP8_E4M3, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE, NULL, NULL, NULL, NULL},
    {"bf16->e4m3", "rn sat", MF_BF16, MF_FP8_E4M3, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE, NULL, NULL, NULL, NULL},
    /* beyond the list: other modes and policies, narrow -> narrow (byte tables) */
    {"f32->e4m3", "rna sat", MF_FP32, MF_FP8_E4M3, MF_ROUND_NEAREST_AWAY, MF_OVERFLOW_SATURATE, NULL, NULL, NULL, NULL},
    {"f16->bf16", "rn", MF_FP16, MF_BF16, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, NULL, NULL, NULL, NULL},
    {"e5m2->e4m3", "rn sat", MF_FP8_E5M2, MF_FP8_E4M3, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE, NULL, NULL, NULL, NULL},
    {"e4m3->bf16", "-", MF_FP8_E4M3, MF_BF16, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, NULL, NULL, NULL, NULL},
    {"f32->e5m2", "rd", MF_FP32, MF_FP8_E5M2, MF_ROUND_DOWN, MF_OVERFLOW_IEEE, NULL, NULL, NULL, NULL},
    {"e4m3->e2m1", "rn sat", MF_FP8_E4M3, MF_FP4_E2M1, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE, NULL, NULL, NULL, NULL},
    /* the rest of the 8-bit family (the same kernels from other rows of the format table), against e4m3's rows */
#define FAMILY(tag, F)                                                                                              \
    {"f32->" #tag, "rn sat", MF_FP32, F, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE, NULL, NULL, NULL, NULL},       \
        {#tag "->f32", "-", F, MF_FP32, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, NULL, NULL, NULL, NULL}
    FAMILY(e4m3fnuz, MF_FP8_E4M3FNUZ),
    FAMILY(e5m2fnuz, MF_FP8_E5M2FNUZ),
    FAMILY(e4m3b11fnuz, MF_FP8_E4M3B11FNUZ),
    FAMILY(e4m3ieee, MF_FP8_E4M3IEEE),
    FAMILY(e3m4, MF_FP8_E3M4),
    FAMILY(binary8p4se, MF_BINARY8P4SE),
    FAMILY(binary8p3se, MF_BINARY8P3SE),
    FAMILY(binary4p2sf, MF_BINARY4P2SF), /* P3109's 4-bit conformance format, packed as e2m1: against e2m1's rows */
#undef FAMILY
    {"f32->binary8p4se", "rn propagate", MF_FP32, MF_BINARY8P4SE, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_PROPAGATE, NULL,
     NULL, NULL, NULL},
};

typedef struct size_class {
    const char *name;
    size_t n;
} size_class;

/* One implementation of a row group: a backend, a baseline function, or memcpy of memcpy_bytes. */
typedef struct job {
    const mf__backend *backend; /* NULL for a baseline */
    bench_fn fn;          /* NULL for a backend or memcpy */
    const bcase *c;
    void *dst;
    const void *src;
    size_t n, memcpy_bytes;
    size_t iters; /* calls a timed repetition */
} job;

static int run_once(const job *j)
{
    if (j->backend) {
        mf_opts o = {j->c->round, j->c->overflow, 12345, 0, NULL, 0, MF_PROFILE_DEFAULT};
        mf__backend_for(j->backend, j->c->dst, j->c->src)->convert(j->c->dst, j->dst, j->c->src, j->src, j->n, &o, NULL);
        return 1;
    }
    if (!j->fn) {
        memcpy(j->dst, j->src, j->memcpy_bytes);
        return 1;
    }
    return j->fn((void *)j->dst, j->src, j->n);
}

/* The calls a repetition of at least min_seconds takes; 0 if the job cannot run here. */
static size_t calibrate(const job *j, double min_seconds)
{
    size_t iters = 1, k;
    double t0;
    if (!run_once(j))
        return 0;
    for (;;) {
        t0 = now();
        for (k = 0; k < iters; k++)
            run_once(j);
        if (now() - t0 >= min_seconds / 4 || iters > ((size_t)1 << 30))
            break;
        iters *= 2;
    }
    return (size_t)((double)iters * (min_seconds / (now() - t0 + 1e-9)) * 0.25) + 1;
}

static int best_of; /* --best: the fastest repetition rather than the median */

/* ns per element of each job: the median of REPS repetitions (best_of: the fastest). The jobs of a row group take turns,
 * one repetition each, so that the machine's drift (DRAM bandwidth here moves by 10% and more from
 * one second to the next) falls on ours and the baselines alike, and their ratios stay honest. */
static void measure_group(job *js, int nj, double min_seconds, double *ns)
{
    double t[16][REPS], t0;
    int a, r;
    size_t k;
    for (a = 0; a < nj; a++)
        js[a].iters = calibrate(&js[a], min_seconds);
    for (r = 0; r < REPS; r++)
        for (a = 0; a < nj; a++) {
            if (!js[a].iters)
                continue;
            t0 = now();
            for (k = 0; k < js[a].iters; k++)
                run_once(&js[a]);
            t[a][r] = (now() - t0) / (double)js[a].iters / (double)js[a].n * 1e9;
        }
    for (a = 0; a < nj; a++) {
        ns[a] = -1;
        if (js[a].iters) {
            ns[a] = median_of(t[a], REPS);
            for (r = 0; best_of && r < REPS; r++)
                if (t[a][r] < ns[a])
                    ns[a] = t[a][r];
        }
    }
}

/* Inputs: a mixture that looks like training data for the narrow formats (mostly within range,
 * some subnormal, a few overflowing), or random codes for narrow sources. */
static uint64_t rs = 0x2545F4914F6CDD1Du;
static uint64_t rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}

static void fill_input(mf_format f, void *buf, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        double u = ((double)(rnd() >> 11) + 0.5) / 9007199254740992.0;
        double v = ((double)(rnd() >> 11) + 0.5) / 9007199254740992.0;
        double g = sqrt(-2 * log(u)) * cos(6.283185307179586 * v); /* normal */
        double x = g * ldexp(1.0, (int)(rnd() % 24) - 12);
        switch (f) {
        case MF_FP64: ((double *)buf)[i] = x; break;
        case MF_FP32: ((float *)buf)[i] = (float)x; break;
        case MF_FP16:
        case MF_BF16: ((uint16_t *)buf)[i] = (uint16_t)mf_from_f64(f, x, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE, 0); break;
        case MF_FP4_E2M1: ((uint8_t *)buf)[i / 2] = (uint8_t)rnd(); break;
        default: ((uint8_t *)buf)[i] = (uint8_t)mf_from_f64(f, x, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE, 0); break;
        }
    }
}

/* numpy / ml_dtypes timings from bench/mldtypes.py, keyed by (conversion, n). */
typedef struct py_row {
    char conv[32];
    size_t n;
    double ns;
} py_row;
static py_row py_rows[256];
static int n_py_rows;

static void load_python(const char *script, const size_class *sizes, int nsizes, int quick)
{
    char cmd[1024], line[256];
    FILE *p;
    int k, len;
    len = snprintf(cmd, sizeof cmd, "python3 %s%s", script, quick ? " --quick" : "");
    for (k = 0; k < nsizes && len < (int)sizeof cmd - 32; k++)
        len += snprintf(cmd + len, sizeof cmd - (size_t)len, " %zu", sizes[k].n);
    snprintf(cmd + len, sizeof cmd - (size_t)len, " 2>/dev/null");
    p = popen(cmd, "r");
    if (!p)
        return;
    while (fgets(line, sizeof line, p) && n_py_rows < 256) {
        py_row *r = &py_rows[n_py_rows];
        if (sscanf(line, "%31[^,],%zu,%lf", r->conv, &r->n, &r->ns) == 3)
            n_py_rows++;
    }
    pclose(p);
}

static double python_ns(const char *conv, size_t n)
{
    int i;
    for (i = 0; conv && i < n_py_rows; i++)
        if (strcmp(py_rows[i].conv, conv) == 0 && py_rows[i].n == n)
            return py_rows[i].ns;
    return -1;
}

static double bytes_per_elem(mf_format f) { return f == MF_FP4_E2M1 ? 0.5 : (double)((mf__fmt_get(f).bits + 7) / 8); }

static void row(const bcase *c, const char *size, const char *impl, size_t n, double ns, double ours_ns)
{
    double bytes = bytes_per_elem(c->src) + bytes_per_elem(c->dst);
    if (ns <= 0)
        return;
    printf("%s,%s,%s,%s,%zu,%.4f,%.3f,%.2f,%.3f\n", c->name, c->mode, size, impl, n, ns, 1.0 / ns, bytes / ns,
           ours_ns / ns);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    static const size_class all_sizes[] = {{"L1", 4096}, {"L2", 131072}, {"DRAM", (size_t)64 << 20}};
    size_class sizes[3];
    int nsizes = 0, quick = 0, python = 1, a, s;
    const char *only = "all", *filter = NULL;
    size_t ci, maxn = 0;
    uint8_t *src, *dst, *tmp;

    for (a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[a], "--best") == 0)
            best_of = 1;
        else if (strcmp(argv[a], "--no-python") == 0)
            python = 0;
        else if (strcmp(argv[a], "--size") == 0 && a + 1 < argc)
            only = argv[++a];
        else if (strcmp(argv[a], "--filter") == 0 && a + 1 < argc)
            filter = argv[++a];
        else {
            fprintf(stderr, "usage: %s [--quick] [--best] [--size l1|l2|dram|all] [--filter TEXT] [--no-python]\n", argv[0]);
            return 2;
        }
    }
    for (s = 0; s < 3; s++)
        if (strcmp(only, "all") == 0 || strcasecmp(only, all_sizes[s].name) == 0) {
            sizes[nsizes] = all_sizes[s];
            if (quick && sizes[nsizes].n > 131072)
                sizes[nsizes].n = (size_t)4 << 20;
            if (sizes[nsizes].n > maxn)
                maxn = sizes[nsizes].n;
            nsizes++;
        }
    src = malloc(maxn * 8 + 64);
    dst = malloc(maxn * 8 + 64);
    tmp = malloc(maxn * 8 + 64);
    if (!src || !dst || !tmp) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    if (python)
        load_python(MF_BENCH_DIR "/mldtypes.py", sizes, nsizes, quick);

    printf("# minifloat %s bench/convert; default backend %s; python baselines %s\n", mf_version(), mf_backend(),
           n_py_rows ? "yes" : "no");
    printf("conversion,mode,size,impl,n,ns_per_elem,gelem_per_s,gb_per_s,vs_ours\n");
    for (ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        const bcase *c = &cases[ci];
        char label[64];
        snprintf(label, sizeof label, "%s %s", c->name, c->mode);
        if (filter && !strstr(label, filter))
            continue;
        for (s = 0; s < nsizes; s++) {
            size_t n = sizes[s].n;
            double min_s = quick ? 0.002 : (n > 1000000 ? 0.2 : 0.05);
            /* the larger of the two arrays: memcpy of the smaller one (a 32 MiB e2m1 array) would partly
             * stay in the 32 MiB L3 and be no measure of memory; memcpy moves it twice (read, write) */
            const double mc_bytes = bytes_per_elem(c->src) > bytes_per_elem(c->dst) ? bytes_per_elem(c->src)
                                                                                       : bytes_per_elem(c->dst);
            const bench_fn base_fn[3] = {c->raw, c->nv, c->fp16lib};
            static const char *const base_name[3] = {"raw-instruction", "nvidia-host", "fp16-maratyszcza"};
            job js[16];
            double t[16], best = 1e30;
            int nj = 0, nbackends, k;
            const mf__backend *backend;
            size_t ri;
            fill_input(c->src, src, n);
            for (ri = 0; (backend = mf__backend_at(ri)) != NULL && nj < 8; ri++)
                if (mf__backend_supported(backend))
                    js[nj++] = (job){backend, NULL, c, dst, src, n, 0, 0};
            nbackends = nj;
            js[nj++] = (job){NULL, NULL, c, tmp, src, n, (size_t)(mc_bytes * (double)n), 0}; /* memcpy */
            for (k = 0; k < 3; k++)
                if (base_fn[k])
                    js[nj++] = (job){NULL, base_fn[k], c, dst, src, n, 0, 0};
            measure_group(js, nj, min_s, t);
            for (k = 0; k < nbackends; k++)
                if (t[k] > 0 && t[k] < best)
                    best = t[k];
            for (k = 0; k < nbackends; k++) {
                char impl[48];
                snprintf(impl, sizeof impl, "minifloat-%s", js[k].backend->name);
                row(c, sizes[s].name, impl, n, t[k], best);
            }
            printf("%s,%s,%s,memcpy,%zu,%.4f,%.3f,%.2f,%.3f\n", c->name, c->mode, sizes[s].name, n, t[nbackends],
                   1.0 / t[nbackends], 2 * mc_bytes / t[nbackends], best / t[nbackends]);
            for (k = nbackends + 1; k < nj; k++) {
                int b;
                for (b = 0; b < 3 && base_fn[b] != js[k].fn; b++)
                    ;
                row(c, sizes[s].name, base_name[b], n, t[k], best);
            }
            row(c, sizes[s].name, "numpy-ml_dtypes", n, python_ns(c->py, n), best);
        }
    }
    free(src);
    free(dst);
    free(tmp);
    return 0;
}
