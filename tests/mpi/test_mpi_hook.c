/* SPDX-License-Identifier: MIT */
/* tests/mpi/test_mpi_hook.c - the reduction hook over MPI and the deterministic sums (label mpi; run by
 * mpiexec with 2 and 3 ranks: tests/mpi.cmake).
 *
 * Plain checks, not Check's runner: a collective must not be forked, and a failing rank calls MPI_Abort
 * so that the others do not wait in the next collective. Every rank computes every rank's inputs from
 * the rank number, so each one knows the expected results of all; the sums' reference adds in plain C
 * float arithmetic (the default FP environment: nearest-even, no flush-to-zero) with the documented NaN
 * rule written out, sharing no code with src/mpi.
 */
#include <fenv.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <minifloat.h>
#include <minifloat/fp8_scaling.h>
#include <minifloat/loss_scale.h>
#include <minifloat/mpi.h>

#include "mpi/mpi_test.h"

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}
static float flt(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* whether the bytes are the same on every rank (rank 0's broadcast, compared here) */
static int same_on_all(const void *p, size_t bytes)
{
    unsigned char *b = (unsigned char *)malloc(bytes ? bytes : 1);
    int same, all;
    CHECK(b != NULL, "malloc");
    memcpy(b, p, bytes);
    MPI_Bcast(b, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    same = memcmp(b, p, bytes) == 0;
    free(b);
    MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return all;
}

/* ---- (a) the hook itself --------------------------------------------------------------------------- */

static void test_reduce_max(void)
{
    mf_mpi_reduce red;
    mf_reduce_hook hook;
    float v[6];
    CHECK(mf_mpi_reduce_init(&red, MPI_COMM_WORLD, &hook) == MF_OK, "init");
    CHECK(hook.max == mf_mpi_reduce_max && hook.ctx == &red && red.comm == MPI_COMM_WORLD, "init's hook");
    CHECK(mf_mpi_reduce_init(NULL, MPI_COMM_WORLD, &hook) == MF_E_NULL, "NULL ctx");
    CHECK(mf_mpi_reduce_init(&red, MPI_COMM_WORLD, NULL) == MF_E_NULL, "NULL hook");
    CHECK(mf_mpi_reduce_init(&red, MPI_COMM_NULL, &hook) == MF_E_NULL, "MPI_COMM_NULL");
    CHECK(mf_mpi_reduce_max(NULL, v, 1) != 0, "NULL ctx fails without taking part");

    v[0] = (float)(rank + 1);                   /* max: ranks */
    v[1] = rank == 0 ? 5.0f : 3.0f;             /* max on rank 0 */
    v[2] = rank == ranks - 1 ? NAN : 1e30f;     /* a NaN anywhere wins */
    v[3] = rank == 1 ? flt(0x00000001u) : 0.0f; /* the smallest subnormal beats 0 */
    v[4] = INFINITY;
    v[5] = 0.0f; /* status */
    CHECK(mf_mpi_reduce_max(&red, v, 6) == 0, "reduce");
    CHECK(v[0] == (float)ranks, "max of ranks: %g", v[0]);
    CHECK(v[1] == 5.0f, "max from rank 0: %g", v[1]);
    CHECK(isnan(v[2]), "NaN kept: %g", v[2]);
    CHECK(bits(v[3]) == 0x00000001u, "subnormal: %08x", bits(v[3]));
    CHECK(isinf(v[4]) && v[5] == 0.0f, "inf, status 0");
    CHECK(red.mpi_error == MPI_SUCCESS, "no MPI error");
    CHECK(mf_mpi_reduce_max(&red, v, 0) == 0, "n = 0");
    CHECK(same_on_all(v, sizeof v), "the same on every rank");
}

/* ---- (b) the loss scaler ----------------------------------------------------------------------------- */

static void test_loss_scaler(const mf_reduce_hook *hook)
{
    mf_loss_scaler_config cfg = mf_loss_scaler_config_default();
    mf_loss_scaler s, lone;
    int took, step;
    cfg.growth_interval = 3;
    cfg.reduce = *hook;
    CHECK(mf_loss_scaler_init(&s, &cfg) == MF_OK, "init");
    cfg.reduce.max = NULL;
    cfg.reduce.ctx = NULL;
    CHECK(mf_loss_scaler_init(&lone, &cfg) == MF_OK, "init without hook");

    /* an overflow on rank 1 only: with the hook every rank skips and backs off */
    took = mf_loss_scaler_update(&s, rank == 1);
    CHECK(took == 0, "rank %d took the step (%d): the overflow on rank 1 did not reach it", rank, took);
    CHECK(s.scale == 32768.0f && s.steps_skipped == 1 && s.steps_taken == 0 && s.growth_tracker == 0,
          "backed off: scale %g", s.scale);
    /* then clean steps until growth, identical everywhere */
    for (step = 0; step < 3; step++)
        CHECK(mf_loss_scaler_update(&s, 0) == 1, "clean step");
    CHECK(s.scale == 65536.0f && s.steps_taken == 3, "grew back: %g", s.scale);
    CHECK(same_on_all(&s.scale, sizeof s.scale) && same_on_all(&s.steps_taken, 2 * sizeof(uint64_t)),
          "scalers differ across ranks");

    /* without the hook the ranks drift apart: what the hook is for */
    took = mf_loss_scaler_update(&lone, rank == 1);
    CHECK(took == (rank == 1 ? 0 : 1), "no hook: rank-local decision");
    CHECK(!same_on_all(&lone.scale, sizeof lone.scale), "without the hook the scales should diverge");
}

/* ---- (c) the FP8 recipes ----------------------------------------------------------------------------- */

/* this rank's amax of tensor t at step k (positive, different on every rank) */
static float amax_of(int r, int t, int k) { return (float)(1 + ((r * 7 + t * 3 + k * 5) % 11)) * 0.375f + (float)r; }

/* fields of a delayed state that the recipe computes (not cfg: the hook differs) */
static int delayed_equal(const mf_fp8_delayed *a, const mf_fp8_delayed *b)
{
    return bits(a->scaled_max) == bits(b->scaled_max) && bits(a->scale) == bits(b->scale) &&
           bits(a->scale_inv) == bits(b->scale_inv) && a->steps == b->steps &&
           memcmp(a->history, b->history, a->cfg.history_len * sizeof(float)) == 0;
}

static void test_fp8(const mf_reduce_hook *hook)
{
    enum { T = 3, STEPS = 4, N = 37 };
    mf_fp8_delayed_cfg cfg = mf_fp8_delayed_default(MF_FP8_E4M3);
    mf_fp8_delayed one, one_ref, many[T], many_ref[T];
    float src[N], all[N * 8], amax, scale, scale_inv, ref_amax, ref_scale, ref_inv;
    uint8_t dst[N], ref[N], all_dst[N * 8];
    int t, k, r, i;
    cfg.history_len = 4;
    cfg.reduce = *hook;
    CHECK(mf_fp8_delayed_init(&one, &cfg) == MF_OK, "init");
    for (t = 0; t < T; t++)
        CHECK(mf_fp8_delayed_init(&many[t], &cfg) == MF_OK, "init");
    cfg.reduce.max = NULL;
    cfg.reduce.ctx = NULL;
    CHECK(mf_fp8_delayed_init(&one_ref, &cfg) == MF_OK, "init");
    for (t = 0; t < T; t++)
        CHECK(mf_fp8_delayed_init(&many_ref[t], &cfg) == MF_OK, "init");

    for (k = 0; k < STEPS; k++) {
        /* each rank records its own amax; the single-process reference records every rank's */
        CHECK(mf_fp8_delayed_record(&one, amax_of(rank, 9, k)) == MF_OK, "record");
        for (r = 0; r < ranks; r++)
            mf_fp8_delayed_record(&one_ref, amax_of(r, 9, k));
        CHECK(mf_fp8_delayed_update(&one) == MF_OK, "update");
        mf_fp8_delayed_update(&one_ref);
        CHECK(delayed_equal(&one, &one_ref), "step %d: delayed state differs from the single process's", k);
        CHECK(same_on_all(&one.scale, sizeof one.scale) && same_on_all(one.history, sizeof one.history),
              "delayed state differs across ranks");

        for (t = 0; t < T; t++) {
            CHECK(mf_fp8_delayed_record(&many[t], amax_of(rank, t, k)) == MF_OK, "record");
            for (r = 0; r < ranks; r++)
                mf_fp8_delayed_record(&many_ref[t], amax_of(r, t, k));
        }
        CHECK(mf_fp8_delayed_update_many(many, T) == MF_OK, "update_many");
        CHECK(mf_fp8_delayed_update_many(many_ref, T) == MF_OK, "update_many without hook");
        for (t = 0; t < T; t++) {
            CHECK(delayed_equal(&many[t], &many_ref[t]), "step %d tensor %d differs from the single process's", k, t);
            CHECK(same_on_all(&many[t].scale, sizeof(float)), "update_many: scales differ across ranks");
        }
    }
    CHECK(one.scale != 1.0f, "the scale moved: %g", one.scale);
    /* hooks that differ between the states: refused before any exchange, on every rank alike */
    many[1].cfg.reduce.ctx = NULL;
    CHECK(mf_fp8_delayed_update_many(many, T) == MF_E_ARG, "different hooks");
    many[1].cfg.reduce = *hook;

    /* current scaling: rank r holds slice r of a tensor; the scale is that of the whole tensor */
    for (r = 0; r < ranks; r++)
        for (i = 0; i < N; i++)
            all[r * N + i] = (float)((i * 37 + r * 11) % 23 - 11) * (0.5f + (float)r) * (r == 1 ? 9.0f : 1.0f);
    memcpy(src, all + rank * N, sizeof src);
    CHECK(mf_fp8_quantize_current_reduced(MF_FP8_E4M3, dst, MF_FP32, src, N, 0, 0.0f, hook, &amax, &scale,
                                          &scale_inv) == MF_OK,
          "quantize_current_reduced");
    CHECK(mf_fp8_quantize_current(MF_FP8_E4M3, all_dst, MF_FP32, all, (size_t)N * (size_t)ranks, 0, 0.0f, &ref_amax,
                                  &ref_scale, &ref_inv) == MF_OK,
          "single process");
    CHECK(bits(amax) == bits(ref_amax) && bits(scale) == bits(ref_scale) && bits(scale_inv) == bits(ref_inv),
          "current scaling: amax %g scale %g, single process %g %g", amax, scale, ref_amax, ref_scale);
    CHECK(memcmp(dst, all_dst + rank * N, N) == 0, "this rank's codes differ from the single process's");
    CHECK(mf_fp8_quantize(MF_FP8_E4M3, ref, MF_FP32, src, N, scale, NULL) == MF_OK && memcmp(dst, ref, N) == 0,
          "codes = quantize with the global scale");
    CHECK(same_on_all(&scale, sizeof scale), "scale differs across ranks");
    /* without the hook the ranks' scales differ (rank 1's slice is larger) */
    CHECK(mf_fp8_quantize_current_reduced(MF_FP8_E4M3, dst, MF_FP32, src, N, 0, 0.0f, NULL, &amax, &scale, NULL) ==
              MF_OK,
          "no hook");
    CHECK(!same_on_all(&scale, sizeof scale), "without the hook the scales should differ");
}

/* ---- (d) faults ---------------------------------------------------------------------------------------- */

typedef struct faulty {
    mf_mpi_reduce *inner;
    int fail_rank;
    int return_error; /* 1: return nonzero after the exchange; 0: only the status slot says it */
} faulty;

/* on fail_rank: status 1, the real exchange (the others are in it), then an error return */
static int faulty_max(void *ctx, float *values, size_t n)
{
    faulty *f = (faulty *)ctx;
    int rc;
    if (rank == f->fail_rank)
        values[n - 1] = 1.0f;
    rc = mf_mpi_reduce_max(f->inner, values, n);
    return rank == f->fail_rank && f->return_error ? 1 : rc;
}

static void test_faults(mf_mpi_reduce *red)
{
    enum { T = 2, N = 16 };
    faulty f;
    mf_reduce_hook hook, good;
    mf_loss_scaler_config lcfg = mf_loss_scaler_config_default();
    mf_fp8_delayed_cfg dcfg = mf_fp8_delayed_default(MF_FP8_E5M2);
    mf_loss_scaler s, s_copy;
    mf_fp8_delayed d, d_copy, m[T], m_copy[T];
    float src[N], amax, scale, scale_inv;
    uint8_t dst[N], dst_copy[N];
    int mode, t, i, rc;
    f.inner = red;
    f.fail_rank = 1;
    hook.max = faulty_max;
    hook.ctx = &f;
    CHECK(mf_mpi_reduce_init(red, MPI_COMM_WORLD, &good) == MF_OK, "init");
    for (i = 0; i < N; i++)
        src[i] = (float)(i - 5) * (float)(rank + 1);

    for (mode = 0; mode < 2; mode++) {
        f.return_error = mode;
        lcfg.reduce = hook;
        CHECK(mf_loss_scaler_init(&s, &lcfg) == MF_OK, "init");
        mf_loss_scaler_update(&s, 0); /* a clean step first: a nonzero tracker to keep */
        memcpy(&s_copy, &s, sizeof s);
        rc = mf_loss_scaler_update(&s, rank == 0);
        CHECK(rc == MF_E_REDUCE, "mode %d: loss scaler returned %d", mode, rc);
        CHECK(memcmp(&s, &s_copy, sizeof s) == 0, "mode %d: the scaler changed on a failed step", mode);

        dcfg.history_len = 3;
        dcfg.reduce = hook;
        CHECK(mf_fp8_delayed_init(&d, &dcfg) == MF_OK, "init");
        mf_fp8_delayed_record(&d, 3.0f + (float)rank);
        memcpy(&d_copy, &d, sizeof d);
        rc = mf_fp8_delayed_update(&d);
        CHECK(rc == MF_E_REDUCE, "mode %d: delayed update returned %d", mode, rc);
        CHECK(memcmp(&d, &d_copy, sizeof d) == 0, "mode %d: the delayed state changed", mode);

        for (t = 0; t < T; t++) {
            CHECK(mf_fp8_delayed_init(&m[t], &dcfg) == MF_OK, "init");
            mf_fp8_delayed_record(&m[t], 2.0f * (float)(t + 1) + (float)rank);
        }
        memcpy(m_copy, m, sizeof m);
        rc = mf_fp8_delayed_update_many(m, T);
        CHECK(rc == MF_E_REDUCE, "mode %d: update_many returned %d", mode, rc);
        CHECK(memcmp(m, m_copy, sizeof m) == 0, "mode %d: update_many changed a state", mode);

        memset(dst, 0xAB, sizeof dst);
        memcpy(dst_copy, dst, sizeof dst);
        amax = scale = scale_inv = -7.0f;
        rc = mf_fp8_quantize_current_reduced(MF_FP8_E4M3, dst, MF_FP32, src, N, 0, 0.0f, &hook, &amax, &scale,
                                             &scale_inv);
        CHECK(rc == MF_E_REDUCE, "mode %d: quantize_current_reduced returned %d", mode, rc);
        CHECK(memcmp(dst, dst_copy, N) == 0 && amax == -7.0f && scale == -7.0f && scale_inv == -7.0f,
              "mode %d: quantize_current_reduced wrote", mode);
    }

    /* a rank whose own arguments fail: its code there, MF_E_REDUCE elsewhere, nothing written anywhere */
    memset(dst, 0xAB, sizeof dst);
    amax = scale = scale_inv = -7.0f;
    rc = mf_fp8_quantize_current_reduced(MF_FP8_E4M3, rank == 1 ? NULL : dst, MF_FP32, src, N, 0, 0.0f, &good, &amax,
                                         &scale, &scale_inv);
    CHECK(rc == (rank == 1 ? MF_E_NULL : MF_E_REDUCE), "NULL dst on rank 1: %d", rc);
    CHECK(memcmp(dst, dst_copy, N) == 0 && amax == -7.0f && scale == -7.0f, "written after a failed exchange");
    rc = mf_fp8_quantize_current_reduced(MF_FP8_E4M3, dst, MF_FP32, src, N, 0, rank == 0 ? -1.0f : 0.0f, &good, &amax,
                                         &scale, &scale_inv);
    CHECK(rc == (rank == 0 ? MF_E_ARG : MF_E_REDUCE), "bad epsilon on rank 0: %d", rc);
    CHECK(memcmp(dst, dst_copy, N) == 0, "written after a failed exchange");
    /* and the hook still works afterwards */
    rc = mf_fp8_quantize_current_reduced(MF_FP8_E4M3, dst, MF_FP32, src, N, 0, 0.0f, &good, &amax, &scale, &scale_inv);
    CHECK(rc == MF_OK && amax == 10.0f * (float)ranks, "after the faults: %d, amax %g", rc, amax);
}

/* ---- (e) the sums ------------------------------------------------------------------------------------- */

/* rank r's element i: magnitudes over 2^-20 .. 2^20, both signs, so that the order of additions shows;
 * a few fixed specials */
static uint32_t input_bits(int r, size_t i)
{
    uint64_t z = (uint64_t)i * 0x9E3779B97F4A7C15u + (uint64_t)(r + 1) * 0xD1B54A32D192ED03u;
    z ^= z >> 29;
    z *= 0xBF58476D1CE4E5B9u;
    z ^= z >> 32;
    if (i == 0)
        return 0x80000000u; /* -0 on every rank: the sum stays -0 */
    if (i == 3 && r == ranks - 1)
        return 0x7F800000u; /* +inf on one rank */
    if (i == 5)
        return r == 0 ? 0xFF800000u : 0x7F800000u; /* -inf + inf: NaN */
    if (i == 6)
        return 0x00000001u + (uint32_t)r; /* subnormals */
    if (i == 7)
        return 0x7F810000u + ((uint32_t)r << 16); /* a signalling NaN on every rank: rank 0's, quieted */
    if (i == 8 && r == ranks - 1)
        return 0xFFC10000u; /* a negative quiet NaN on the last rank */
    if (i == 9 && r == 1)
        return 0xFF850000u; /* a signalling NaN after a finite sum: its own, quieted */
    if (i == 10)
        return r == 0 ? 0x00800000u : 0x80000000u | (0x00800000u - 0x10000u); /* a subnormal result */
    return (uint32_t)(z & 0x807FFFFFu) | ((uint32_t)(107 + (z >> 40) % 40) << 23);
}

static float decoded(mf_format fmt, int r, size_t i)
{
    const uint32_t b = input_bits(r, i);
    return flt(fmt == MF_BF16 ? (b >> 16) << 16 : b);
}

static void fill_send(mf_format fmt, void *send, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (fmt == MF_BF16)
            ((uint16_t *)send)[i] = (uint16_t)(input_bits(rank, i) >> 16);
        else
            ((uint32_t *)send)[i] = input_bits(rank, i);
    }
}

/* The documented sum of two: binary32 nearest-even (this file's FP environment), a NaN operand quieted (the
 * running sum's first), inf + -inf = 0x7FC00000 */
static float add_rule(float acc, float x)
{
    float s;
    if (isnan(acc))
        return flt(bits(acc) | 0x00400000u);
    if (isnan(x))
        return flt(bits(x) | 0x00400000u);
    s = acc + x;
    return isnan(s) ? flt(0x7FC00000u) : s;
}

static int same_value(float got, float want) { return bits(got) == bits(want); }

/* A caller's environment unlike the default: round toward zero, and subnormals flushed where the hardware
 * can (MXCSR's FTZ and DAZ, FPCR.FZ); the sums must not see it, and must leave it as they found it. */
static unsigned long long env_get(void)
{
#if defined(__SSE__) || defined(__x86_64__)
    return __builtin_ia32_stmxcsr();
#elif defined(__aarch64__)
    unsigned long long v;
    __asm__ volatile("mrs %0, fpcr" : "=r"(v));
    return v;
#else
    return (unsigned long long)fegetround();
#endif
}
static void env_set(unsigned long long v)
{
#if defined(__SSE__) || defined(__x86_64__)
    __builtin_ia32_ldmxcsr((unsigned)v);
#elif defined(__aarch64__)
    __asm__ volatile("msr fpcr, %0" : : "r"(v));
#else
    fesetround((int)v);
#endif
}
static unsigned long long env_hostile(unsigned long long v)
{
#if defined(__SSE__) || defined(__x86_64__)
    return (v & ~0x6000ull) | 0x6000ull | 0x8040ull; /* RC = toward zero, FTZ, DAZ */
#elif defined(__aarch64__)
    return (v & ~(3ull << 22)) | (3ull << 22) | (1ull << 24); /* RMode = toward zero, FZ */
#else
    (void)v;
    return (unsigned long long)FE_TOWARDZERO;
#endif
}

/* the shard of rank r, written out (n is small here) */
static void shard(size_t n, int r, size_t *start, size_t *count)
{
    *start = n * (size_t)r / (size_t)ranks;
    *count = n * (size_t)(r + 1) / (size_t)ranks - *start;
}

static void test_sums(void)
{
    /* up to 2 (fewer elements than ranks: empty shards), one chunk, and several chunks of the pipelined
     * exchange (2^18 elements a chunk in all, src/mpi/mpi.c) with ragged ends */
    static const size_t sizes[] = {0, 1, 2, 7, 1000, 1001, ((size_t)3 << 18) + 5};
    static const mf_format fmts[] = {MF_FP32, MF_BF16};
    size_t si, i, start, count, st2, ct2;
    int fi, r, rc;
    for (fi = 0; fi < 2; fi++) {
        for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            const mf_format fmt = fmts[fi];
            const size_t n = sizes[si];
            void *send = malloc(n * 4 + 4);
            float *recv = (float *)malloc(n * 4 + 4), *want = (float *)malloc(n * 4 + 4);
            float *part = (float *)malloc(n * 4 + 4), *all = (float *)malloc(n * 4 + 4);
            CHECK(send && recv && want && part && all, "malloc");
            fill_send(fmt, send, n);
            for (i = 0; i < n; i++) {
                float acc = decoded(fmt, 0, i);
                for (r = 1; r < ranks; r++)
                    acc = add_rule(acc, decoded(fmt, r, i));
                want[i] = acc;
            }
            memset(recv, 0xCD, n * 4 + 4);
            rc = mf_mpi_allreduce_sum(MPI_COMM_WORLD, fmt, send, recv, n);
            CHECK(rc == MF_OK, "allreduce_sum fmt %d n %zu: %d", (int)fmt, n, rc);
            for (i = 0; i < n; i++)
                CHECK(same_value(recv[i], want[i]), "allreduce_sum fmt %d n %zu [%zu]: %08x, want %08x", (int)fmt, n, i,
                      bits(recv[i]), bits(want[i]));
            CHECK(bits(recv[n]) == 0xCDCDCDCDu, "allreduce_sum wrote past n");
            CHECK(same_on_all(recv, n * 4), "allreduce_sum differs across ranks");

            /* again from the hostile environment: the same bits, and the environment as it was */
            {
                const unsigned long long env0 = env_get(), env1 = env_hostile(env0);
                unsigned long long after;
                memset(recv, 0xCD, n * 4 + 4);
                env_set(env1);
                rc = mf_mpi_allreduce_sum(MPI_COMM_WORLD, fmt, send, recv, n);
                after = env_get();
                env_set(env0);
                CHECK(rc == MF_OK, "allreduce_sum, hostile environment: %d", rc);
                CHECK(after == env1, "the caller's environment changed: %llx, was %llx", after, env1);
                for (i = 0; i < n; i++)
                    CHECK(same_value(recv[i], want[i]), "allreduce_sum, hostile environment, fmt %d n %zu [%zu]: %08x, "
                          "want %08x", (int)fmt, n, i, bits(recv[i]), bits(want[i]));
            }

            shard(n, rank, &start, &count);
            CHECK(mf_mpi_shard(n, rank, ranks, &st2, &ct2) == MF_OK && st2 == start && ct2 == count, "mf_mpi_shard");
            memset(part, 0xCD, n * 4 + 4);
            rc = mf_mpi_reduce_scatter_sum(MPI_COMM_WORLD, fmt, send, part, n);
            CHECK(rc == MF_OK, "reduce_scatter_sum: %d", rc);
            for (i = 0; i < count; i++)
                CHECK(same_value(part[i], want[start + i]), "reduce_scatter_sum n %zu [%zu]", n, start + i);
            CHECK(bits(part[count]) == 0xCDCDCDCDu, "reduce_scatter_sum wrote past its shard");

            /* all-gather of the shards, from a separate buffer and in place */
            memset(all, 0xEE, n * 4 + 4);
            rc = mf_mpi_allgather_shards(MPI_COMM_WORLD, part, all, n);
            CHECK(rc == MF_OK, "allgather_shards: %d", rc);
            for (i = 0; i < n; i++)
                CHECK(same_value(all[i], want[i]), "allgather_shards n %zu [%zu]", n, i);
            CHECK(bits(all[n]) == 0xEEEEEEEEu, "allgather_shards wrote past n");
            memset(all, 0xEE, n * 4 + 4);
            if (count)
                memcpy(all + start, part, count * 4);
            rc = mf_mpi_allgather_shards(MPI_COMM_WORLD, all + start, all, n);
            CHECK(rc == MF_OK, "allgather_shards in place: %d", rc);
            for (i = 0; i < n; i++)
                CHECK(same_value(all[i], want[i]), "allgather_shards in place n %zu [%zu]", n, i);
            free(send);
            free(recv);
            free(want);
            free(part);
            free(all);
        }
    }
}

static void test_sum_errors(void)
{
    enum { N = 10 };
    float send[N + 1], recv[N], guard[N];
    size_t start, count;
    int rc;
    memset(send, 0, sizeof send);
    memset(recv, 0xCD, sizeof recv);
    memcpy(guard, recv, sizeof recv);
    /* the same error on every rank */
    CHECK(mf_mpi_allreduce_sum(MPI_COMM_NULL, MF_FP32, send, recv, N) == MF_E_NULL, "MPI_COMM_NULL");
    CHECK(mf_mpi_allreduce_sum(MPI_COMM_WORLD, MF_FP16, send, recv, N) == MF_E_FORMAT, "f16");
    CHECK(mf_mpi_reduce_scatter_sum(MPI_COMM_WORLD, (mf_format)99, send, recv, N) == MF_E_FORMAT, "format 99");
    CHECK(mf_mpi_allreduce_sum(MPI_COMM_WORLD, MF_FP32, send, recv, (size_t)INT_MAX + 1) == MF_E_SIZE, "INT_MAX+1");
    CHECK(mf_mpi_allreduce_sum(MPI_COMM_WORLD, MF_FP32, send, recv, SIZE_MAX) == MF_E_SIZE, "SIZE_MAX");
    CHECK(mf_mpi_allgather_shards(MPI_COMM_WORLD, send, recv, (size_t)INT_MAX + 1) == MF_E_SIZE, "gather size");
    CHECK(mf_mpi_allreduce_sum(MPI_COMM_WORLD, MF_FP32, NULL, NULL, 0) == MF_OK, "n = 0 with NULL");
    CHECK(mf_mpi_allgather_shards(MPI_COMM_WORLD, NULL, NULL, 0) == MF_OK, "n = 0 with NULL");
    CHECK(memcmp(recv, guard, sizeof recv) == 0, "written on an error");

    /* one rank's error: its own code there, MF_E_REDUCE on the others, nothing written anywhere */
    rc = mf_mpi_allreduce_sum(MPI_COMM_WORLD, MF_FP32, send, rank == 1 ? NULL : recv, N);
    CHECK(rc == (rank == 1 ? MF_E_NULL : MF_E_REDUCE), "NULL recv on rank 1: %d", rc);
    rc = mf_mpi_allreduce_sum(MPI_COMM_WORLD, MF_FP32, recv, rank == 0 ? recv : (float *)send, N);
    CHECK(rc == (rank == 0 ? MF_E_OVERLAP : MF_E_REDUCE), "overlap on rank 0: %d", rc);
    rc = mf_mpi_reduce_scatter_sum(MPI_COMM_WORLD, MF_BF16, send, rank == 0 ? (float *)((char *)send + 4) : recv, N);
    CHECK(rc == (rank == 0 ? MF_E_OVERLAP : MF_E_REDUCE), "reduce_scatter overlap on rank 0: %d", rc);
    rc = mf_mpi_allreduce_sum(MPI_COMM_WORLD, rank == 1 ? MF_FP16 : MF_FP32, send, recv, N);
    CHECK(rc == (rank == 1 ? MF_E_FORMAT : MF_E_REDUCE), "f16 on rank 1: %d", rc);
    /* n or fmt that differ between ranks: caught by the status exchange, not a hang or a mix-up */
    rc = mf_mpi_allreduce_sum(MPI_COMM_WORLD, MF_FP32, send, recv, rank == 1 ? N - 1 : N);
    CHECK(rc == MF_E_REDUCE, "n differs: %d", rc);
    rc = mf_mpi_allreduce_sum(MPI_COMM_WORLD, rank == 1 ? MF_BF16 : MF_FP32, send, recv, N);
    CHECK(rc == MF_E_REDUCE, "fmt differs: %d", rc);
    shard(N, rank, &start, &count);
    rc = mf_mpi_allgather_shards(MPI_COMM_WORLD, rank == 1 ? NULL : send, recv, N);
    CHECK(rc == (rank == 1 ? MF_E_NULL : MF_E_REDUCE), "allgather NULL mine on rank 1: %d", rc);
    rc = mf_mpi_allgather_shards(MPI_COMM_WORLD, rank == 0 ? recv + start + 1 : send, recv, N);
    CHECK(rc == (rank == 0 ? MF_E_OVERLAP : MF_E_REDUCE), "allgather overlap on rank 0: %d", rc);
    CHECK(memcmp(recv, guard, sizeof recv) == 0, "written on an error");

    /* mf_mpi_shard */
    CHECK(mf_mpi_shard(10, 0, 0, &start, &count) == MF_E_ARG && mf_mpi_shard(10, 3, 3, &start, &count) == MF_E_ARG &&
              mf_mpi_shard(10, -1, 3, &start, &count) == MF_E_ARG && mf_mpi_shard(10, 0, 1, NULL, &count) == MF_E_NULL,
          "mf_mpi_shard's errors");
    /* 2^64 - 1 = 3 * 6148914691236517205: the split of SIZE_MAX without overflow */
    if (SIZE_MAX == UINT64_MAX) {
        CHECK(mf_mpi_shard(SIZE_MAX, 2, 3, &start, &count) == MF_OK && start == (size_t)12297829382473034410u &&
                  count == (size_t)6148914691236517205u,
              "shard of SIZE_MAX: %zu %zu", start, count);
        CHECK(mf_mpi_shard(SIZE_MAX, 1, 2, &start, &count) == MF_OK && start == SIZE_MAX / 2 &&
                  count == SIZE_MAX / 2 + 1,
              "halves of SIZE_MAX: %zu %zu", start, count);
    }
}

int main(int argc, char **argv)
{
    mf_mpi_reduce red;
    mf_reduce_hook hook;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    CHECK(ranks >= 2, "run with at least 2 ranks (mpiexec -n 2)");
    /* MPI failures come back as codes, so that a broken exchange fails a check instead of aborting */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(mf_mpi_reduce_init(&red, MPI_COMM_WORLD, &hook) == MF_OK, "init");

    test_reduce_max();
    test_loss_scaler(&hook);
    test_fp8(&hook);
    test_faults(&red);
    test_sums();
    test_sum_errors();

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_mpi_hook: %d ranks: PASS\n", ranks);
    MPI_Finalize();
    return 0;
}
