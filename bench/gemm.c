/* SPDX-License-Identifier: MIT */
/* bench/gemm.c - mf_gemm's speed against OpenBLAS, oneDNN and this CPU's FMA peak, in one run.
 *
 *   bench/gemm [--threads T] [--sizes 256,512,...] [--reps R]
 *
 * One CSV line per (shape, inputs, implementation):
 *   m,n,k,inputs,impl,threads,seconds,gflops,vs_ref,vs_peak
 * seconds is the median of R runs (the implementations of a shape take turns); gflops counts 2mnk;
 * vs_ref is the speed divided by the row group's reference (OpenBLAS sgemm for f32 and f16 inputs, oneDNN's
 * bf16 matmul for bf16 and e4m3 inputs; '-' where it is not built in); vs_peak divides by the FMA peak this
 * program measures first (a loop of independent vfmadd231ps, times T threads).
 * OpenBLAS runs with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset; oneDNN with OMP_NUM_THREADS = T. With T > 1
 * every timed run waits 250 ms first, so that the other libraries' spinning workers are idle.
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

static int threads = 1, reps = 5;

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
    uint8_t *a8, *b8;
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
}
static void ops_free(ops *o)
{
    free(o->a32), free(o->b32), free(o->c32), free(o->a16), free(o->b16), free(o->abf), free(o->bbf), free(o->a8),
        free(o->b8);
}

/* ---- implementations -------------------------------------------------------------------------------- */
typedef enum { IN_F32, IN_F16, IN_BF16, IN_E4M3 } inputs;
static const char *const in_name[] = {"f32", "f16", "bf16", "e4m3"};

static void run_mf(const ops *o, inputs in)
{
    static const float sa = 0.5f, sb = 2.0f;
    mf_gemm_opts opt;
    const void *a = o->a32, *b = o->b32;
    mf_format f = MF_FP32;
    memset(&opt, 0, sizeof opt);
    opt.threads = threads;
    if (in == IN_F16)
        a = o->a16, b = o->b16, f = MF_FP16;
    if (in == IN_BF16)
        a = o->abf, b = o->bbf, f = MF_BF16;
    if (in == IN_E4M3) { /* per-tensor scales, as an FP8 recipe's */
        a = o->a8, b = o->b8, f = MF_FP8_E4M3;
        opt.scale_a.kind = opt.scale_b.kind = MF_GEMM_SCALE_TENSOR;
        opt.scale_a.data = &sa, opt.scale_b.data = &sb;
    }
    if (mf_gemm(MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, o->m, o->n, o->k, 1.0f, a, f, o->k, b, f, o->n, 0.0f, o->c32,
                MF_FP32, o->n, &opt) != MF_OK) {
        fprintf(stderr, "mf_gemm failed\n");
        exit(1);
    }
}

#if MF_BENCH_HAVE_OPENBLAS
static void run_openblas(const ops *o, inputs in)
{
    (void)in;
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
static int dnnl_make(dnnl_mm *mm, const ops *o, inputs in)
{
    dnnl_memory_desc_t amd, bmd, cmd;
    dnnl_matmul_desc_t md;
    dnnl_primitive_desc_t pd;
    const dnnl_data_type_t t = in == IN_F32 ? dnnl_f32 : dnnl_bf16;
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
    dnnl_memory_create(&mm->a, &amd, eng, in == IN_F32 ? (void *)o->a32 : (void *)o->abf);
    dnnl_memory_create(&mm->b, &bmd, eng, in == IN_F32 ? (void *)o->b32 : (void *)o->bbf);
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
    double t[N_IMPL + 4][32];
    int have[N_IMPL] = {1, 0, 0, 0};
    ops_init(&o, m, n, k);
#if MF_BENCH_HAVE_OPENBLAS
    have[IMPL_OPENBLAS] = 1;
#endif
#if MF_BENCH_HAVE_DNNL
    dnnl_mm mf32, mbf;
    have[IMPL_DNNL_F32] = dnnl_make(&mf32, &o, IN_F32);
    have[IMPL_DNNL_BF16] = dnnl_make(&mbf, &o, IN_BF16);
#endif
    /* warm-up, then the implementations take turns */
    for (int r = -1; r < reps; r++) {
        for (int in = IN_F32; in <= IN_E4M3; in++) {
            settle();
            const double t0 = now();
            run_mf(&o, (inputs)in);
            if (r >= 0)
                t[4 + in][r] = now() - t0;
        }
#if MF_BENCH_HAVE_OPENBLAS
        {
            settle();
            const double t0 = now();
            run_openblas(&o, IN_F32);
            if (r >= 0)
                t[IMPL_OPENBLAS][r] = now() - t0;
        }
#endif
#if MF_BENCH_HAVE_DNNL
        if (have[IMPL_DNNL_F32]) {
            settle();
            const double t0 = now();
            dnnl_run(&mf32);
            if (r >= 0)
                t[IMPL_DNNL_F32][r] = now() - t0;
        }
        if (have[IMPL_DNNL_BF16]) {
            settle();
            const double t0 = now();
            dnnl_run(&mbf);
            if (r >= 0)
                t[IMPL_DNNL_BF16][r] = now() - t0;
        }
#endif
    }
    const double flops = 2.0 * (double)m * (double)n * (double)k;
    double med[N_IMPL + 4];
    for (int q = 0; q < N_IMPL + 4; q++)
        med[q] = (q < N_IMPL && !have[q]) || q == IMPL_MF ? 0 : median_of(t[q], (size_t)reps);
    /* the references: OpenBLAS for f32 and f16 inputs, oneDNN bf16 for bf16 and e4m3 */
    for (int q = 1; q < N_IMPL; q++)
        if (have[q])
            printf("%zu,%zu,%zu,%s,%s,%d,%.6f,%.2f,-,%.3f\n", m, n, k, q == IMPL_DNNL_BF16 ? "bf16" : "f32",
                   impl_name[q], threads, med[q], flops / med[q] * 1e-9, peak > 0 ? flops / med[q] * 1e-9 / peak : 0);
    for (int in = IN_F32; in <= IN_E4M3; in++) {
        const int ref = in <= IN_F16 ? IMPL_OPENBLAS : IMPL_DNNL_BF16;
        const double s = med[4 + in];
        printf("%zu,%zu,%zu,%s,minifloat,%d,%.6f,%.2f,", m, n, k, in_name[in], threads, s, flops / s * 1e-9);
        if (have[ref])
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
    size_t sizes[16] = {256, 512, 1024, 2048};
    int ns = 4;
    char env[32];
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            threads = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
            char *s = argv[++i];
            for (ns = 0; ns < 16 && *s; ns++) {
                sizes[ns] = strtoul(s, &s, 10);
                if (*s == ',')
                    s++;
            }
        } else {
            fprintf(stderr, "usage: bench/gemm [--threads T] [--sizes 256,512,...] [--reps R]\n");
            return 2;
        }
    }
    if (threads < 1 || threads > 64 || reps < 1 || reps > 31) {
        fprintf(stderr, "bench/gemm: threads 1..64, reps 1..31\n");
        return 2;
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
    printf("# backend %s, FMA peak %.1f GFLOP/s on %d thread(s)\n", mf_backend(), peak, threads);
    printf("m,n,k,inputs,impl,threads,seconds,gflops,vs_ref,vs_peak\n");
    for (int q = 0; q < ns; q++)
        shape(sizes[q], sizes[q], sizes[q], peak);
    return 0;
}
