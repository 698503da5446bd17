/* SPDX-License-Identifier: MIT */
/* bench/profiles: mf_convert under each compatibility profile against the default profile, same pair, same
 * inputs, same run (not a test).
 *
 * usage: build/bench/profiles [--n N[,N...]] [--reps R] [--filter SUBSTR]
 * Prints CSV: pair,input,profile,backend,n,ns_per_elem,gb_per_s,ratio_vs_default (ratio: the default's time
 * over the profile's, so 1.0 is as fast and 0.5 twice as slow). Each row is the median of R timings (7),
 * the default and the profile timed alternately; a timing repeats the call until 2 ms have passed. Inputs:
 * "train", training-like f32 values (as bench/survey) converted (rn, saturating) into the source format;
 * "nan", every element a NaN with a payload (the profile rewrites every lane). Sizes: 4096 (L1) and 10^6
 * by default. One thread; the backend is the dispatcher's choice (MF_BACKEND picks another).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <minifloat.h>

#include "clock.h"

enum { MAX_REPS = 31 };

typedef struct {
    mf_format s, d;
} pair;

static const pair pairs[] = {
    {MF_FP32, MF_BF16},     {MF_FP32, MF_FP16},     {MF_FP32, MF_FP8_E4M3}, {MF_FP32, MF_FP8_E5M2},
    {MF_FP32, MF_E8M0},     {MF_FP32, MF_FP4_E2M1}, {MF_BF16, MF_FP32},     {MF_FP16, MF_FP32},
    {MF_FP8_E4M3, MF_FP32}, {MF_FP64, MF_BF16},     {MF_FP64, MF_FP32},     {MF_BF16, MF_FP8_E4M3},
};

static const mf_profile profiles[] = {MF_PROFILE_CUDA, MF_PROFILE_ML_DTYPES, MF_PROFILE_TORCH, MF_PROFILE_ONNX};

static void *xalloc(size_t bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, bytes ? bytes : 1) != 0) {
        fprintf(stderr, "profiles: out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    memset(p, 1, bytes);
    return p;
}

/* seconds a call, over calls repeated for 2 ms */
static double time_call(mf_format d, void *dst, mf_format s, const void *src, size_t n, const mf_opts *o)
{
    size_t calls = 0;
    const double t0 = now();
    double t;
    do {
        if (mf_convert(d, dst, s, src, n, o) != MF_OK) {
            fprintf(stderr, "profiles: mf_convert failed\n");
            exit(1);
        }
        calls++;
        t = now() - t0;
    } while (t < 2e-3);
    return t / (double)calls;
}

int main(int argc, char **argv)
{
    size_t sizes[8] = {4096, 1000000}, nsizes = 2, maxn = 0, i, k;
    int reps = 7, a;
    const char *filter = NULL;
    for (a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--n") && a + 1 < argc) {
            char *e = argv[++a];
            nsizes = 0;
            while (*e && nsizes < 8) {
                sizes[nsizes++] = (size_t)strtoull(e, &e, 10);
                if (*e == ',')
                    e++;
            }
        } else if (!strcmp(argv[a], "--reps") && a + 1 < argc) {
            reps = atoi(argv[++a]);
        } else if (!strcmp(argv[a], "--filter") && a + 1 < argc) {
            filter = argv[++a];
        } else {
            fprintf(stderr, "usage: %s [--n N[,N...]] [--reps R] [--filter SUBSTR]\n", argv[0]);
            return 2;
        }
    }
    if (reps < 1 || reps > MAX_REPS)
        reps = 7;
    for (k = 0; k < nsizes; k++)
        maxn = sizes[k] > maxn ? sizes[k] : maxn;
    printf("# minifloat %s bench/profiles; backend %s; median of %d\n", mf_version(), mf_backend(), reps);
    printf("pair,input,profile,backend,n,ns_per_elem,gb_per_s,ratio_vs_default\n");
    for (int in = 0; in < 2; in++) {
        /* f32 and f64 inputs: training-like values, or NaNs with payloads */
        float *f32 = xalloc(maxn * 4);
        double *f64 = xalloc(maxn * 8);
        void *dst = xalloc(maxn * 8);
        for (i = 0; i < maxn; i++) {
            uint32_t h = (uint32_t)i * 2654435761u;
            float v = (float)((h >> 8) % 20001u) / 10000.0f - 1.0f;
            int e = (int)((h >> 3) % 24u) - 12;
            if (in == 0) {
                f32[i] = e >= 0 ? v * (float)(1u << e) : v / (float)(1u << -e);
                f64[i] = (double)f32[i] * (1.0 + 0x1p-30);
            } else {
                uint32_t b = (h & 0x80000000u) | 0x7F800000u | ((h >> 5) & 0x7FFFFFu) | 1u;
                uint64_t b64 = (uint64_t)(h & 0x80000000u) << 32 | 0x7FF0000000000001u | (uint64_t)h << 20;
                memcpy(&f32[i], &b, 4);
                memcpy(&f64[i], &b64, 8);
            }
        }
        for (size_t pi = 0; pi < sizeof pairs / sizeof pairs[0]; pi++) {
            const pair *pr = &pairs[pi];
            char name[64];
            void *src;
            mf_opts c = {0};
            snprintf(name, sizeof name, "%s->%s", mf_format_name(pr->s), mf_format_name(pr->d));
            if (filter && !strstr(name, filter))
                continue;
            if (pr->s == MF_FP32)
                src = f32;
            else if (pr->s == MF_FP64)
                src = f64;
            else {
                src = xalloc(mf_storage_bytes(pr->s, maxn));
                c.overflow = MF_OVERFLOW_SATURATE;
                if (mf_convert(pr->s, src, MF_FP32, f32, maxn, &c) != MF_OK)
                    return 1;
            }
            for (k = 0; k < nsizes; k++) {
                const size_t n = sizes[k];
                const double bytes = (double)(mf_storage_bytes(pr->s, n) + mf_storage_bytes(pr->d, n));
                double td[MAX_REPS], tp[4][MAX_REPS], dflt;
                mf_opts o = {0};
                int r, q;
                for (r = 0; r < reps; r++) { /* alternately, so that the machine's drift hits both */
                    o.profile = MF_PROFILE_DEFAULT;
                    td[r] = time_call(pr->d, dst, pr->s, src, n, &o);
                    for (q = 0; q < 4; q++) {
                        o.profile = profiles[q];
                        tp[q][r] = mf_profile_supports(profiles[q], pr->d, MF_ROUND_NEAREST_EVEN) &&
                                           mf_profile_supports(profiles[q], pr->s, MF_ROUND_NEAREST_EVEN)
                                       ? time_call(pr->d, dst, pr->s, src, n, &o)
                                       : 0;
                    }
                }
                dflt = median_of(td, (size_t)reps);
                printf("%s,%s,default,%s,%zu,%.4f,%.2f,1.00\n", name, in ? "nan" : "train", mf_backend(), n,
                       dflt * 1e9 / (double)n, bytes / dflt * 1e-9);
                for (q = 0; q < 4; q++) {
                    double t = median_of(tp[q], (size_t)reps);
                    if (t == 0)
                        continue;
                    printf("%s,%s,%s,%s,%zu,%.4f,%.2f,%.2f\n", name, in ? "nan" : "train",
                           mf_profile_name(profiles[q]), mf_backend(), n, t * 1e9 / (double)n, bytes / t * 1e-9,
                           dflt / t);
                }
                fflush(stdout);
            }
            if (src != f32 && src != f64)
                free(src);
        }
        free(f32);
        free(f64);
        free(dst);
    }
    return 0;
}
