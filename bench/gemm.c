/* SPDX-License-Identifier: MIT */
/* bench/gemm.c - mf_gemm's speed against OpenBLAS, oneDNN and this CPU's FMA peak, in one run.
 *
 *   bench/gemm [--threads T] [--sizes 256,512,...] [--shape MxNxK]... [--reps R] [--rounds N] [--best]
 *              [--only a,b] [--tc]
 *
 * --sizes gives square shapes (none: --sizes ''); --shape adds others, e.g. 2048x1024x4096, a slice of a
 * training layer's 8192 x 1024 x 4096.
 *
 * One CSV line per (shape, inputs, implementation):
 *   m,n,k,inputs,impl,threads,seconds,gflops,vs_ref,vs_peak
 * seconds is the median of R runs back to back, after a warm-up run (with --rounds N, every implementation's R runs N
 * times in turn and the median is over all N x R: a stretch in which a shared machine lends the process less of a
 * core then falls on every implementation alike, not on whichever ran in it; --best: the fastest of them, for a
 * machine whose other tenants slow whole stretches of runs); gflops counts 2mnk;
 * vs_ref is the row's speed over its reference's (OpenBLAS sgemm for f32 and f16 inputs, oneDNN's bf16 matmul
 * for bf16 and e4m3 inputs, '-' where it is not built in; MXFP8 and NVFP4 against the per-tensor-scaled
 * e4m3 and e2m1 runs, e2m1, e2m3 and e3m2 against e4m3; each "inputs/exact" row (MF_ACCUM_EXACT) against
 * MF_ACCUM_FP32 on the same inputs and scales; with --tc, each tensor-core model "inputs/gpu" against
 * MF_ACCUM_FP32 on the same inputs; '-' where --only, a list of inputs names, left the reference out); vs_peak divides by the FMA peak this
 * program measures first (a loop of independent vfmadd231ps, times T threads).
 * OpenBLAS runs with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset; oneDNN with OMP_NUM_THREADS = T. With T > 1
 * each implementation's runs start after a 250 ms pause, so that the other libraries' spinning workers are idle.
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <minifloat.h>

#include "clock.h"

#if MF_BENCH_HAVE_OPENBLAS
#include <cblas.h>
#endif
#if MF_BENCH_HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>
#endif

double bench_fma_peak_1(void); /* bench/peak_x86.c: GFLOP/s of one core, or 0 where not measured */

static int threads = 1, reps = 5, rounds = 1, best_of;

/* ---- the FMA peak, on T threads ---------------------------------------------------------------- */
static void *peak_thread(void *arg)
{
    *(double *)arg = bench_fma_peak_1();
    return NULL;
}
static double fma_peak(void)
{
    pthread_t tid[64];
    double r[64] = {0}, sum = 0;
    for (int t = 1; t < threads; t++)
        pthread_create(&tid[t], NULL, peak_thread, &r[t]);
    r[0] = bench_fma_peak_1();
    for (int t = 1; t < threads; t++)
        pthread_join(tid[t], NULL);
    for (int t = 0; t < threads; t++)
        sum += r[t];
    return sum;
}

/* ---- operands ------------------------------------------------------------------------------------- */
typedef struct ops {
    size_t m, n, k;
    float *a32, *b32, *c32;
    uint16_t *a16, *b16, *abf, *bbf;
    uint8_t *a8, *b8, *a4, *b4;     /* e4m3; e2m1 (two per byte) */
    uint8_t *a6, *b6, *a6b, *b6b;   /* e2m3; e3m2 */
    uint8_t *amx, *bmx, *anv, *bnv; /* MX (E8M0 per 32) and NVFP4 (E4M3 per 16) scales along k */
    float amax_a, amax_b;
} ops;

static void ops_init(ops *o, size_t m, size_t n, size_t k)
{
    o->m = m, o->n = n, o->k = k;
    o->a32 = malloc(sizeof(float) * m * k), o->b32 = malloc(sizeof(float) * k * n),
    o->c32 = malloc(sizeof(float) * m * n);
    o->a16 = malloc(2 * m * k), o->b16 = malloc(2 * k * n), o->abf = malloc(2 * m * k), o->bbf = malloc(2 * k * n);
    o->a8 = malloc(m * k), o->b8 = malloc(k * n);
    uint64_t s = 12345;
    for (size_t i = 0; i < m * k; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        o->a32[i] = (float)((int)(s >> 40) % 2001 - 1000) / 500.0f;
    }
    for (size_t i = 0; i < k * n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        o->b32[i] = (float)((int)(s >> 40) % 2001 - 1000) / 500.0f;
    }
    mf_convert(MF_FP16, o->a16, MF_FP32, o->a32, m * k, NULL),
        mf_convert(MF_FP16, o->b16, MF_FP32, o->b32, k * n, NULL);
    mf_convert(MF_BF16, o->abf, MF_FP32, o->a32, m * k, NULL),
        mf_convert(MF_BF16, o->bbf, MF_FP32, o->b32, k * n, NULL);
    mf_convert(MF_FP8_E4M3, o->a8, MF_FP32, o->a32, m * k, NULL),
        mf_convert(MF_FP8_E4M3, o->b8, MF_FP32, o->b32, k * n, NULL);
    o->a6 = malloc(m * k), o->b6 = malloc(k * n), o->a6b = malloc(m * k), o->b6b = malloc(k * n);
    mf_convert(MF_FP6_E2M3, o->a6, MF_FP32, o->a32, m * k, NULL),
        mf_convert(MF_FP6_E2M3, o->b6, MF_FP32, o->b32, k * n, NULL);
    mf_convert(MF_FP6_E3M2, o->a6b, MF_FP32, o->a32, m * k, NULL),
        mf_convert(MF_FP6_E3M2, o->b6b, MF_FP32, o->b32, k * n, NULL);
    o->a4 = malloc(m * k / 2 + 1), o->b4 = malloc(k * n / 2 + 1);
    mf_convert(MF_FP4_E2M1, o->a4, MF_FP32, o->a32, m * k, NULL),
        mf_convert(MF_FP4_E2M1, o->b4, MF_FP32, o->b32, k * n, NULL);
    /* block scales along k (k a multiple of 32): A's rows, B's columns; their values do not matter here */
    o->amx = malloc(m * k / 16 + 1), o->bmx = malloc(k * n / 16 + 1);
    o->anv = malloc(m * k / 16 + 1), o->bnv = malloc(k * n / 16 + 1);
    for (size_t i = 0; i < m * k / 16; i++)
        o->amx[i] = (uint8_t)(120 + i % 9), o->anv[i] = (uint8_t)(0x30 + i % 13);
    for (size_t i = 0; i < k * n / 16; i++)
        o->bmx[i] = (uint8_t)(120 + i % 7), o->bnv[i] = (uint8_t)(0x30 + i % 11);
    o->amax_a = o->amax_b = 2.0f;
}
static void ops_free(ops *o)
{
    free(o->a32), free(o->b32), free(o->c32), free(o->a16), free(o->b16), free(o->abf), free(o->bbf), free(o->a8),
        free(o->b8), free(o->a4), free(o->b4), free(o->amx), free(o->bmx), free(o->anv), free(o->bnv);
    free(o->a6), free(o->b6), free(o->a6b), free(o->b6b);
}

/* ---- implementations -------------------------------------------------------------------------------- */
/* mf_gemm's runs: inputs, scales and accumulation; ref names the row whose speed divides this one's
 * (REF_OPENBLAS / REF_DNNL_BF16, or another minifloat row: the block-scaled formats against their
 * per-tensor-scaled run, the tensor-core models against MF_ACCUM_FP32 on the same inputs). */
enum { REF_OPENBLAS = -1, REF_DNNL_BF16 = -2 };
typedef struct variant {
    const char *name;
    mf_format fmt;
    mf_gemm_scale_kind scale; /* NONE, TENSOR, MX or NVFP4 */
    mf_accum accum;
    int ref;
    int tc; /* a tensor-core model: run with --tc only */
} variant;
enum { V_F32, V_F16, V_BF16, V_E4M3, V_MXFP8, V_E2M1, V_NVFP4, V_MXFP4, V_E2M3, V_E3M2 };
static const variant VARIANTS[] = {
    {"f32", MF_FP32, MF_GEMM_SCALE_NONE, MF_ACCUM_FP32, REF_OPENBLAS, 0},
    {"f16", MF_FP16, MF_GEMM_SCALE_NONE, MF_ACCUM_FP32, REF_OPENBLAS, 0},
    {"bf16", MF_BF16, MF_GEMM_SCALE_NONE, MF_ACCUM_FP32, REF_DNNL_BF16, 0},
    {"e4m3", MF_FP8_E4M3, MF_GEMM_SCALE_TENSOR, MF_ACCUM_FP32, REF_DNNL_BF16, 0},
    {"mxfp8_e4m3", MF_FP8_E4M3, MF_GEMM_SCALE_MX, MF_ACCUM_FP32, V_E4M3, 0},
    {"e2m1", MF_FP4_E2M1, MF_GEMM_SCALE_TENSOR, MF_ACCUM_FP32, V_E4M3, 0},
    {"nvfp4", MF_FP4_E2M1, MF_GEMM_SCALE_NVFP4, MF_ACCUM_FP32, V_E2M1, 0},
    {"mxfp4", MF_FP4_E2M1, MF_GEMM_SCALE_MX, MF_ACCUM_FP32, V_E2M1, 0},
    {"e2m3", MF_FP6_E2M3, MF_GEMM_SCALE_TENSOR, MF_ACCUM_FP32, V_E4M3, 0},
    {"e3m2", MF_FP6_E3M2, MF_GEMM_SCALE_TENSOR, MF_ACCUM_FP32, V_E4M3, 0},
    /* MF_ACCUM_EXACT (integer kernels for FP4/FP6; NVFP4: int64 block sums into 128 bits) against MF_ACCUM_FP32
     * on the same inputs and scales */
    {"e2m1/exact", MF_FP4_E2M1, MF_GEMM_SCALE_TENSOR, MF_ACCUM_EXACT, V_E2M1, 0},
    {"mxfp4/exact", MF_FP4_E2M1, MF_GEMM_SCALE_MX, MF_ACCUM_EXACT, V_MXFP4, 0},
    {"nvfp4/exact", MF_FP4_E2M1, MF_GEMM_SCALE_NVFP4, MF_ACCUM_EXACT, V_NVFP4, 0},
    {"e2m3/exact", MF_FP6_E2M3, MF_GEMM_SCALE_TENSOR, MF_ACCUM_EXACT, V_E2M3, 0},
    {"e3m2/exact", MF_FP6_E3M2, MF_GEMM_SCALE_TENSOR, MF_ACCUM_EXACT, V_E3M2, 0},
    {"f16/v100", MF_FP16, MF_GEMM_SCALE_NONE, MF_ACCUM_V100, V_F16, 1},
    {"bf16/a100", MF_BF16, MF_GEMM_SCALE_NONE, MF_ACCUM_A100, V_BF16, 1},
    {"e4m3/ada", MF_FP8_E4M3, MF_GEMM_SCALE_NONE, MF_ACCUM_ADA, V_E4M3, 1},
    {"bf16/h100", MF_BF16, MF_GEMM_SCALE_NONE, MF_ACCUM_H100, V_BF16, 1},
    {"e4m3/h100", MF_FP8_E4M3, MF_GEMM_SCALE_NONE, MF_ACCUM_H100, V_E4M3, 1},
    {"e2m1/b200", MF_FP4_E2M1, MF_GEMM_SCALE_NONE, MF_ACCUM_B200, V_E2M1, 1},
};
#define N_VARIANTS (int)(sizeof VARIANTS / sizeof VARIANTS[0])
static int with_tc;
static const char *only; /* --only: the variants to run, names separated by commas; NULL: all */

static double fastest(const double *v, size_t n)
{
    double m = v[0];
    for (size_t q = 1; q < n; q++)
        m = v[q] < m ? v[q] : m;
    return m;
}

static int variant_on(const variant *v)
{
    const size_t len = strlen(v->name);
    if (v->tc && !with_tc)
        return 0;
    for (const char *p = only; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : p + strlen(p))
        if (strncmp(p, v->name, len) == 0 && (p[len] == ',' || p[len] == 0))
            return 1;
    return only == NULL;
}

static void run_mf(const ops *o, const variant *v)
{
    static const float sa = 0.5f, sb = 2.0f;
    mf_gemm_opts opt;
    const void *a = o->a32, *b = o->b32;
    memset(&opt, 0, sizeof opt);
    opt.threads = threads, opt.accum = v->accum;
    switch (v->fmt) {
    case MF_FP16: a = o->a16, b = o->b16; break;
    case MF_BF16: a = o->abf, b = o->bbf; break;
    case MF_FP8_E4M3: a = o->a8, b = o->b8; break;
    case MF_FP4_E2M1: a = o->a4, b = o->b4; break;
    case MF_FP6_E2M3: a = o->a6, b = o->b6; break;
    case MF_FP6_E3M2: a = o->a6b, b = o->b6b; break;
    default: break;
    }
    opt.scale_a.kind = opt.scale_b.kind = v->scale;
    if (v->scale == MF_GEMM_SCALE_TENSOR) /* per-tensor scales, as an FP8 recipe's */
        opt.scale_a.data = &sa, opt.scale_b.data = &sb;
    if (v->scale == MF_GEMM_SCALE_MX || v->scale == MF_GEMM_SCALE_NVFP4) { /* blocks along k */
        opt.scale_a.data = v->scale == MF_GEMM_SCALE_MX ? o->amx : o->anv;
        opt.scale_b.data = v->scale == MF_GEMM_SCALE_MX ? o->bmx : o->bnv;
        opt.scale_a.axis = MF_MX_ROWWISE, opt.scale_b.axis = MF_MX_COLWISE;
        opt.scale_a.amax = o->amax_a, opt.scale_b.amax = o->amax_b;
    }
    if (mf_gemm(MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, o->m, o->n, o->k, 1.0f, a, v->fmt, o->k, b, v->fmt, o->n, 0.0f,
                o->c32, MF_FP32, o->n, &opt) != MF_OK) {
        fprintf(stderr, "mf_gemm failed (%s)\n", v->name);
        exit(1);
    }
}

#if MF_BENCH_HAVE_OPENBLAS
static void run_openblas(const ops *o)
{
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)o->m, (int)o->n, (int)o->k, 1.0f, o->a32, (int)o->k,
                o->b32, (int)o->n, 0.0f, o->c32, (int)o->n);
}
#endif

#if MF_BENCH_HAVE_DNNL
static dnnl_engine_t eng;
static dnnl_stream_t strm;
typedef struct dnnl_mm {
    dnnl_primitive_t prim;
    dnnl_memory_t a, b, c;
} dnnl_mm;
static int dnnl_make(dnnl_mm *mm, const ops *o, int bf16)
{
    dnnl_memory_desc_t amd, bmd, cmd;
    dnnl_matmul_desc_t md;
    dnnl_primitive_desc_t pd;
    const dnnl_data_type_t t = bf16 ? dnnl_bf16 : dnnl_f32;
    dnnl_dims_t ad = {(dnnl_dim_t)o->m, (dnnl_dim_t)o->k}, bd = {(dnnl_dim_t)o->k, (dnnl_dim_t)o->n},
                cd = {(dnnl_dim_t)o->m, (dnnl_dim_t)o->n};
    if (!eng && (dnnl_engine_create(&eng, dnnl_cpu, 0) != dnnl_success ||
                 dnnl_stream_create(&strm, eng, dnnl_stream_default_flags) != dnnl_success))
        return 0;
    dnnl_memory_desc_init_by_tag(&amd, 2, ad, t, dnnl_ab);
    dnnl_memory_desc_init_by_tag(&bmd, 2, bd, t, dnnl_ab);
    dnnl_memory_desc_init_by_tag(&cmd, 2, cd, dnnl_f32, dnnl_ab);
    if (dnnl_matmul_desc_init(&md, &amd, &bmd, NULL, &cmd) != dnnl_success ||
        dnnl_primitive_desc_create(&pd, &md, NULL, eng, NULL) != dnnl_success)
        return 0;
    dnnl_primitive_create(&mm->prim, pd);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_create(&mm->a, &amd, eng, bf16 ? (void *)o->abf : (void *)o->a32);
    dnnl_memory_create(&mm->b, &bmd, eng, bf16 ? (void *)o->bbf : (void *)o->b32);
    dnnl_memory_create(&mm->c, &cmd, eng, o->c32);
    return 1;
}
static void dnnl_run(dnnl_mm *mm)
{
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, mm->a}, {DNNL_ARG_WEIGHTS, mm->b}, {DNNL_ARG_DST, mm->c}};
    dnnl_primitive_execute(mm->prim, strm, 3, args);
    dnnl_stream_wait(strm);
}
static void dnnl_free(dnnl_mm *mm)
{
    dnnl_primitive_destroy(mm->prim);
    dnnl_memory_destroy(mm->a), dnnl_memory_destroy(mm->b), dnnl_memory_destroy(mm->c);
}
#endif

/* Before each timed run on several threads: let the previous library's workers stop spinning (OpenBLAS's
 * and OpenMP's threads busy-wait after a call, on the cores the next run needs). */
static void settle(void)
{
    if (threads > 1) {
        const struct timespec d = {0, 250000000};
        nanosleep(&d, NULL);
    }
}

/* ---- one shape ---------------------------------------------------------------------------------------- */
enum { IMPL_MF, IMPL_OPENBLAS, IMPL_DNNL_F32, IMPL_DNNL_BF16, N_IMPL };
static const char *const impl_name[] = {"minifloat", "openblas_sgemm", "onednn_f32", "onednn_bf16"};

static void shape(size_t m, size_t n, size_t k, double peak)
{
    ops o;
    static double t[N_IMPL + N_VARIANTS][8 * 31];
    int have[N_IMPL] = {1, 0, 0, 0};
    ops_init(&o, m, n, k);
#if MF_BENCH_HAVE_OPENBLAS
    have[IMPL_OPENBLAS] = 1;
#endif
#if MF_BENCH_HAVE_DNNL
    dnnl_mm mf32, mbf;
    have[IMPL_DNNL_F32] = dnnl_make(&mf32, &o, 0);
    have[IMPL_DNNL_BF16] = dnnl_make(&mbf, &o, 1);
#endif
    /* each implementation in turn: a settle, a warm-up run, then reps timed runs back to back (as a training
     * loop calls it; a pause before every run would time cores waking up); all of it `rounds` times */
    for (int rd = 0; rd < rounds; rd++) {
        for (int q = 0; q < N_VARIANTS; q++) {
            if (!variant_on(&VARIANTS[q]))
                continue;
            settle();
            for (int r = -1; r < reps; r++) {
                const double t0 = now();
                run_mf(&o, &VARIANTS[q]);
                if (r >= 0)
                    t[N_IMPL + q][rd * reps + r] = now() - t0;
            }
        }
#if MF_BENCH_HAVE_OPENBLAS
        settle();
        for (int r = -1; r < reps; r++) {
            const double t0 = now();
            run_openblas(&o);
            if (r >= 0)
                t[IMPL_OPENBLAS][rd * reps + r] = now() - t0;
        }
#endif
#if MF_BENCH_HAVE_DNNL
        for (int q = IMPL_DNNL_F32; q <= IMPL_DNNL_BF16; q++) {
            if (!have[q])
                continue;
            settle();
            for (int r = -1; r < reps; r++) {
                const double t0 = now();
                dnnl_run(q == IMPL_DNNL_F32 ? &mf32 : &mbf);
                if (r >= 0)
                    t[q][rd * reps + r] = now() - t0;
            }
        }
#endif
    }
    const double flops = 2.0 * (double)m * (double)n * (double)k;
    double med[N_IMPL + N_VARIANTS];
    for (int q = 0; q < N_IMPL + N_VARIANTS; q++)
        med[q] = (q < N_IMPL && !have[q]) || q == IMPL_MF || (q >= N_IMPL && !variant_on(&VARIANTS[q - N_IMPL])) ? 0
                 : best_of ? fastest(t[q], (size_t)(rounds * reps))
                           : median_of(t[q], (size_t)(rounds * reps));
    for (int q = 1; q < N_IMPL; q++)
        if (have[q])
            printf("%zu,%zu,%zu,%s,%s,%d,%.6f,%.2f,-,%.3f\n", m, n, k, q == IMPL_DNNL_BF16 ? "bf16" : "f32",
                   impl_name[q], threads, med[q], flops / med[q] * 1e-9, peak > 0 ? flops / med[q] * 1e-9 / peak : 0);
    for (int q = 0; q < N_VARIANTS; q++) {
        const variant *v = &VARIANTS[q];
        const int ref = v->ref == REF_OPENBLAS    ? IMPL_OPENBLAS
                        : v->ref == REF_DNNL_BF16 ? IMPL_DNNL_BF16
                                                  : N_IMPL + v->ref;
        const double s = med[N_IMPL + q];
        if (!variant_on(v))
            continue;
        printf("%zu,%zu,%zu,%s,minifloat,%d,%.6f,%.2f,", m, n, k, v->name, threads, s, flops / s * 1e-9);
        if ((ref >= N_IMPL || have[ref]) && med[ref] > 0)
            printf("%.3f", med[ref] / s);
        else
            printf("-");
        printf(",%.3f\n", peak > 0 ? flops / s * 1e-9 / peak : 0);
    }
    fflush(stdout);
#if MF_BENCH_HAVE_DNNL
    if (have[IMPL_DNNL_F32])
        dnnl_free(&mf32);
    if (have[IMPL_DNNL_BF16])
        dnnl_free(&mbf);
#endif
    ops_free(&o);
}

int main(int argc, char **argv)
{
    size_t sizes[16] = {256, 512, 1024, 2048}, shapes[8][3];
    int ns = 4, nshapes = 0;
    char env[32];
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            threads = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc && nshapes < 8) {
            size_t *d = shapes[nshapes++];
            if (sscanf(argv[++i], "%zux%zux%zu", &d[0], &d[1], &d[2]) != 3 || !d[0] || !d[1] || d[2] % 32) {
                fprintf(stderr, "bench/gemm: --shape MxNxK, K a multiple of 32 (the MX blocks)\n");
                return 2;
            }
        } else if (strcmp(argv[i], "--tc") == 0) {
            with_tc = 1;
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
            rounds = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--best") == 0) {
            best_of = 1;
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
            char *s = argv[++i];
            for (ns = 0; ns < 16 && *s; ns++) {
                sizes[ns] = strtoul(s, &s, 10);
                if (*s == ',')
                    s++;
            }
        } else {
            fprintf(stderr,
                    "usage: bench/gemm [--threads T] [--sizes 256,512,...] [--shape MxNxK]... [--reps R] [--rounds N] "
                    "[--best] [--only a,b] [--tc]\n");
            return 2;
        }
    }
    for (int q = 0; q < ns; q++)
        if (sizes[q] == 0 || sizes[q] % 32) {
            fprintf(stderr, "bench/gemm: sizes are multiples of 32 (the MX blocks)\n");
            return 2;
        }
    if (threads < 1 || threads > 64 || reps < 1 || reps > 31 || rounds < 1 || rounds > 8) {
        fprintf(stderr, "bench/gemm: threads 1..64, reps 1..31, rounds 1..8\n");
        return 2;
    }
    for (const char *p = only; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : p + strlen(p)) {
        const size_t len = strchr(p, ',') ? (size_t)(strchr(p, ',') - p) : strlen(p);
        int known = 0;
        for (int q = 0; q < N_VARIANTS; q++)
            known |= strlen(VARIANTS[q].name) == len && strncmp(p, VARIANTS[q].name, len) == 0;
        if (!known) {
            fprintf(stderr, "bench/gemm: --only: no inputs named '%.*s'\n", (int)len, p);
            return 2;
        }
    }
    unsetenv("OPENBLAS_CORETYPE");
    unsetenv("OPENBLAS_L2_SIZE");
    snprintf(env, sizeof env, "%d", threads);
    setenv("OMP_NUM_THREADS", env, 1);
#if MF_BENCH_HAVE_OPENBLAS
    openblas_set_num_threads(threads);
#endif
    { /* OpenMP read OMP_NUM_THREADS when it was loaded, before main: tell it again (oneDNN's runtime) */
        void (*omp_threads)(int);
        *(void **)&omp_threads = dlsym(RTLD_DEFAULT, "omp_set_num_threads");
        if (omp_threads)
            omp_threads(threads);
    }
    const double peak = fma_peak();
    printf("# backend %s, FMA peak %.1f GFLOP/s on %d thread(s); seconds: the %s of %d x %d runs\n", mf_backend(), peak,
           threads, best_of ? "fastest" : "median", rounds, reps);
    printf("m,n,k,inputs,impl,threads,seconds,gflops,vs_ref,vs_peak\n");
    for (int q = 0; q < ns; q++)
        shape(sizes[q], sizes[q], sizes[q], peak);
    for (int q = 0; q < nshapes; q++)
        shape(shapes[q][0], shapes[q][1], shapes[q][2], peak);
    return 0;
}
