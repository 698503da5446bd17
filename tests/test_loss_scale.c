/* SPDX-License-Identifier: MIT */
/* tests/test_loss_scale.c - loss scaling against transcriptions of the upstream code (unit tier).
 *
 * References, written in plain C float/double arithmetic in this process's default FP environment
 * (round-to-nearest-even, no FTZ/DAZ), share no code with src/:
 *   torch_update     PyTorch's _amp_update_scale_cpu_kernel (aten/src/ATen/native/cpu/
 *                    AmpGradScalerKernels.cpp), line by line, factors passed as double as
 *                    GradScaler does; the step is skipped iff found_inf (GradScaler._maybe_opt_step).
 *   megatron_update  Megatron-LM's DynamicGradScaler.update (megatron/core/optimizer/grad_scaler.py),
 *                    line by line, with float32 tensors for scale, factors and min_scale.
 *   unscale          _amp_foreach_non_finite_check_and_unscale_cpu_kernel's per-element lambda:
 *                    found from the input, inv == 1 ? val : val * inv in float, then cast back;
 *                    inv = (float)(1.0 / (double)scale) as GradScaler.unscale_ computes it.
 *   f16/bf16 casts   written here: f16 by nearest-neighbour search in a table of every f16 value
 *                    (ties to the even code), bf16 by c10's round_to_nearest_even bias trick.
 */
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mf_test.h"
#include <minifloat.h>
#include <minifloat/loss_scale.h>

#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#define HAVE_MXCSR 1
#endif

/* ---- helpers -------------------------------------------------------------------------------- */

static uint64_t rng = 0x243F6A8885A308D3u;
static uint64_t rnd64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static uint32_t rnd32(void) { return (uint32_t)(rnd64() >> 32); }
static double rnd_unit(void) { return (double)(rnd64() >> 11) * (1.0 / 9007199254740992.0); }

/* ---- reference: PyTorch _amp_update_scale_cpu_kernel ---------------------------------------- */

typedef struct {
    float current_scale; /* the 1-element float tensor */
    int growth_tracker;  /* the 1-element int tensor */
} torch_state;

/* Transcribed from _amp_update_scale_cpu_kernel (float* current_scale_ptr, int* growth_tracker_ptr,
 * const float* found_inf_ptr, double growth_factor, double backoff_factor, int64_t growth_interval). */
static void torch_update(torch_state *st, float found_inf, double growth_factor, double backoff_factor,
                         int64_t growth_interval)
{
    float *current_scale_ptr = &st->current_scale;
    int *growth_tracker_ptr = &st->growth_tracker;
    const float *found_inf_ptr = &found_inf;
    if (*found_inf_ptr) {
        *current_scale_ptr = (*current_scale_ptr) * backoff_factor;
        *growth_tracker_ptr = 0;
    } else {
        /* Entering this branch means we just carried out a successful step,
         * so growth_tracker is incremented before comparing to growth_interval. */
        int successful = (*growth_tracker_ptr) + 1;
        if (successful == growth_interval) {
            float new_scale = (float)((*current_scale_ptr) * growth_factor);
            /* Do not grow the scale past fp32 bounds to inf. */
            if (isfinite(new_scale)) {
                *current_scale_ptr = new_scale;
            }
            *growth_tracker_ptr = 0;
        } else {
            *growth_tracker_ptr = successful;
        }
    }
}

/* GradScaler._maybe_opt_step: optimizer.step() runs iff no found_inf is nonzero. */
static int torch_takes_step(float found_inf) { return !(found_inf != 0.0f); }

/* ---- reference: Megatron DynamicGradScaler.update ------------------------------------------- */

typedef struct {
    float scale, min_scale, growth_factor, backoff_factor; /* torch.float tensors */
    long growth_interval, hysteresis;
    long growth_tracker, hysteresis_tracker; /* Python ints */
} megatron_state;

static void megatron_init(megatron_state *m, float initial_scale, float min_scale, float growth_factor,
                          float backoff_factor, long growth_interval, long hysteresis)
{
    m->scale = initial_scale;
    m->min_scale = min_scale;
    m->growth_factor = growth_factor;
    m->backoff_factor = backoff_factor;
    m->growth_interval = growth_interval;
    m->hysteresis = hysteresis;
    m->growth_tracker = 0;
    m->hysteresis_tracker = hysteresis;
}

static float torch_max(float a, float b) { return a > b ? a : b; } /* operands are never NaN here */

static void megatron_update(megatron_state *m, int found_inf)
{
    /* If we have an inf/nan, growth tracker is set to 0 and hysterisis tracker is reduced by 1. */
    if (found_inf) {
        m->growth_tracker = 0;
        m->hysteresis_tracker -= 1;
        /* Now if we are out of hysteresis count, scale down the loss. */
        if (m->hysteresis_tracker <= 0)
            m->scale = torch_max(m->scale * m->backoff_factor, m->min_scale);
    } else {
        /* If there is no nan/inf, increment the growth tracker. */
        m->growth_tracker += 1;
        /* If we have had enough consequitive intervals with no nan/inf: */
        if (m->growth_tracker == m->growth_interval) {
            /* Reset the tracker and hysteresis trackers, */
            m->growth_tracker = 0;
            m->hysteresis_tracker = m->hysteresis;
            /* and scale up the loss scale. */
            m->scale = m->scale * m->growth_factor;
        }
    }
}

/* ---- reference casts ------------------------------------------------------------------------ */

static double f16_value(uint16_t c) /* exact, finite codes only */
{
    int e = (c >> 10) & 0x1F;
    int m = c & 0x3FF;
    double v = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
    return (c & 0x8000) ? -v : v;
}

static float f16_table[0x7C00]; /* value of every finite non-negative code, increasing */

static void f16_table_init(void)
{
    int k;
    for (k = 0; k < 0x7C00; k++)
        f16_table[k] = (float)f16_value((uint16_t)k);
}

static float ref_f16_to_f32(uint16_t c)
{
    if ((c & 0x7C00) == 0x7C00)
        return (c & 0x3FF) ? NAN : ((c & 0x8000) ? -INFINITY : INFINITY);
    return (float)f16_value(c);
}

/* Round-to-nearest-even into f16 by searching the table; returns 0xFFFF for a NaN input (the
 * caller checks NaN outputs separately). */
static uint16_t ref_f32_to_f16(float x)
{
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    float m = fabsf(x);
    int lo, hi;
    if (isnan(x))
        return 0xFFFF;
    if (m >= 65520.0f) /* halfway between 65504 and 2^16: ties to even go to 2^16, i.e. inf */
        return sign | 0x7C00;
    lo = 0;
    hi = 0x7BFF;
    while (lo < hi) { /* largest k with table[k] <= m */
        int mid = (lo + hi + 1) / 2;
        if (f16_table[mid] <= m)
            lo = mid;
        else
            hi = mid - 1;
    }
    if (f16_table[lo] != m && lo < 0x7BFF) { /* (65504, 65520) stays at 65504 */
        double below = (double)m - f16_table[lo], above = (double)f16_table[lo + 1] - m; /* exact */
        if (above < below || (above == below && (lo & 1)))
            lo++;
    }
    return (uint16_t)(sign | lo);
}

static float ref_bf16_to_f32(uint16_t c) { return mf_test_bits_f32((uint32_t)c << 16); }

/* c10::detail::round_to_nearest_even (NaN handled by the caller). */
static uint16_t ref_f32_to_bf16(float x)
{
    uint32_t u = mf_test_f32_bits(x);
    uint32_t rounding_bias = ((u >> 16) & 1) + 0x7FFFu;
    if (isnan(x))
        return 0xFFFF;
    return (uint16_t)((u + rounding_bias) >> 16);
}

/* The PyTorch unscale of one element, in float: val -> inv == 1 ? val : val * inv. */
static float ref_unscale_val(float val, float inv)
{
    volatile float v = val, s = inv; /* a run-time multiply in this process's environment */
    return s == 1.f ? v : v * s;
}

static float ref_inv_scale(float scale) { return (float)(1.0 / (double)scale); }

/* ---- scaler setup --------------------------------------------------------------------------- */

static mf_loss_scaler make(float init, float growth, float backoff, int32_t interval, int32_t hyst, float min_s,
                           float max_s, int is_static)
{
    mf_loss_scaler s;
    mf_loss_scaler_config c = mf_loss_scaler_config_default();
    c.init_scale = init;
    c.growth_factor = growth;
    c.backoff_factor = backoff;
    c.growth_interval = interval;
    c.hysteresis = hyst;
    c.min_scale = min_s;
    c.max_scale = max_s;
    c.static_scale = is_static;
    ck_assert_int_eq(mf_loss_scaler_init(&s, &c), MF_OK);
    return s;
}

/* ---- defaults ------------------------------------------------------------------------------- */

START_TEST(test_defaults)
{
    mf_loss_scaler_config c = mf_loss_scaler_config_default();
    mf_loss_scaler d = mf_loss_scaler_default(), s;
    /* torch.amp.GradScaler(init_scale=2.**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000) */
    ck_assert(c.init_scale == 65536.0f);
    ck_assert(c.growth_factor == 2.0f);
    ck_assert(c.backoff_factor == 0.5f);
    ck_assert_int_eq(c.growth_interval, 2000);
    ck_assert_int_eq(c.hysteresis, 1);
    ck_assert(c.min_scale == 0.0f && c.max_scale == 0.0f);
    ck_assert_int_eq(c.static_scale, 0);
    ck_assert(d.scale == 65536.0f);
    ck_assert_int_eq(d.growth_tracker, 0);
    ck_assert_int_eq(d.hysteresis_tracker, 1);
    ck_assert(d.steps_taken == 0 && d.steps_skipped == 0);
    ck_assert(memcmp(&d.cfg, &c, sizeof c) == 0);
    memset(&s, 0xA5, sizeof s);
    ck_assert_int_eq(mf_loss_scaler_init(&s, &c), MF_OK);
    ck_assert(s.scale == d.scale && s.growth_tracker == d.growth_tracker &&
              s.hysteresis_tracker == d.hysteresis_tracker && s.steps_taken == 0 && s.steps_skipped == 0);
    ck_assert(mf_loss_scaler_scale(&d) == 65536.0f);
    ck_assert_uint_eq(mf_test_f32_bits(mf_loss_scaler_inv_scale(&d)), 0x37800000u); /* 2^-16 */
}
END_TEST

/* By hand from _amp_update_scale_: 1999 clean steps keep 2^16 (tracker 1999), the 2000th doubles
 * it and resets the tracker, an overflow halves it and skips the step. */
START_TEST(test_default_by_hand)
{
    mf_loss_scaler s = mf_loss_scaler_default();
    int i;
    for (i = 0; i < 1999; i++)
        ck_assert_int_eq(mf_loss_scaler_update(&s, 0), 1);
    ck_assert(s.scale == 65536.0f);
    ck_assert_int_eq(s.growth_tracker, 1999);
    ck_assert_int_eq(mf_loss_scaler_update(&s, 0), 1);
    ck_assert(s.scale == 131072.0f);
    ck_assert_int_eq(s.growth_tracker, 0);
    ck_assert_int_eq(mf_loss_scaler_update(&s, 0), 1);
    ck_assert_int_eq(s.growth_tracker, 1);
    ck_assert_int_eq(mf_loss_scaler_update(&s, 1), 0);
    ck_assert(s.scale == 65536.0f);
    ck_assert_int_eq(s.growth_tracker, 0);
    ck_assert(s.steps_taken == 2001 && s.steps_skipped == 1);
    ck_assert_int_eq(mf_loss_scaler_update(&s, -3), 0); /* any nonzero is an overflow */
    ck_assert(s.scale == 32768.0f);
}
END_TEST

/* ---- GradScaler trajectories ---------------------------------------------------------------- */

typedef struct {
    float init, growth, backoff;
    int32_t interval;
} torch_params;

/* Replay found[0..n) through our scaler and the reference; compare everything at every step.
 * Returns the number of steps compared. */
static long replay_torch(const torch_params *p, const float *found, long n, const char *what)
{
    mf_loss_scaler s = make(p->init, p->growth, p->backoff, p->interval, 1, 0.0f, 0.0f, 0);
    torch_state r;
    uint64_t taken = 0, skipped = 0;
    long i;
    r.current_scale = p->init; /* torch.full((), init_scale, dtype=torch.float32) */
    r.growth_tracker = 0;
    for (i = 0; i < n; i++) {
        int want_step = torch_takes_step(found[i]);
        int got = mf_loss_scaler_update(&s, found[i] != 0.0f ? (found[i] > 1.5f ? 2 : 1) : 0);
        torch_update(&r, found[i], (double)p->growth, (double)p->backoff, p->interval);
        taken += (uint64_t)want_step;
        skipped += (uint64_t)!want_step;
        MF_EXPECT(got == want_step, "%s step %ld: update returned %d, want %d", what, i, got, want_step);
        MF_EXPECT(mf_test_f32_bits(s.scale) == mf_test_f32_bits(r.current_scale), "%s step %ld: scale %a, PyTorch %a",
                  what, i, (double)s.scale, (double)r.current_scale);
        MF_EXPECT(s.growth_tracker == r.growth_tracker, "%s step %ld: tracker %d, PyTorch %d", what, i,
                  (int)s.growth_tracker, r.growth_tracker);
        MF_EXPECT(s.hysteresis_tracker == 0 || s.hysteresis_tracker == 1, "%s step %ld: hysteresis tracker %d",
                  what, i, (int)s.hysteresis_tracker);
    }
    MF_EXPECT(s.steps_taken == taken && s.steps_skipped == skipped, "%s: counters", what);
    return n;
}

#define SEQ_LEN 100000L

START_TEST(test_torch_random_sequences)
{
    static const torch_params params[] = {
        {65536.0f, 2.0f, 0.5f, 2000}, {65536.0f, 2.0f, 0.5f, 1},    {65536.0f, 2.0f, 0.5f, 2},
        {1.0f, 2.0f, 0.5f, 3},        {65536.0f, 1.5f, 0.7f, 10},   {7.5f, 1.1f, 0.9f, 100},
        {3e38f, 2.0f, 0.5f, 5},       {1e-30f, 4.0f, 0.25f, 7},     {65536.0f, 1.0001f, 0.999f, 1},
        {65536.0f, 2.0f, 1.0f, 2000}, {1000.5f, 1.0f, 0.5f, 4},     {65536.0f, 3.0f, 0.3f, 37},
        {1e-40f, 2.0f, 0.5f, 1},      {65536.0f, 2.0f, 0.5f, 2000}, {0.1f, 1.25f, 0.8f, 64},
        {2.0f, 16.0f, 0.0625f, 3},    {65536.0f, 1.7f, 0.6f, 250},  {FLT_MAX, 2.0f, 0.5f, 1},
        {123.456f, 1.01f, 0.99f, 2},  {65536.0f, 2.0f, 0.5f, 500},
    };
    const size_t nseq = sizeof params / sizeof params[0];
    float *found = (float *)malloc(sizeof(float) * SEQ_LEN);
    long total = 0, overflows = 0;
    size_t k;
    ck_assert_ptr_nonnull(found);
    ck_assert_uint_eq(nseq, 20);
    for (k = 0; k < nseq; k++) {
        /* overflow probability from 1e-4 to 0.5, log-spaced */
        double p = 1e-4 * pow(5000.0, (double)k / (double)(nseq - 1));
        long i;
        char what[64];
        for (i = 0; i < SEQ_LEN; i++) {
            found[i] = rnd_unit() < p ? ((rnd32() & 3) == 0 ? 2.0f : 1.0f) : 0.0f; /* sums of found_inf */
            overflows += found[i] != 0.0f;
        }
        snprintf(what, sizeof what, "sequence %u (p=%g)", (unsigned)k, p);
        total += replay_torch(&params[k], found, SEQ_LEN, what);
    }
    free(found);
    ck_assert_int_eq(total, 20 * SEQ_LEN);
    ck_assert_int_gt(overflows, 100000); /* the high-p sequences really overflow */
}
END_TEST

START_TEST(test_torch_adversarial)
{
    static const int32_t intervals[] = {1, 2, 3, 5, 17, 2000};
    float *found = (float *)malloc(sizeof(float) * SEQ_LEN);
    long total = 0, runs = 0;
    size_t k;
    ck_assert_ptr_nonnull(found);
    for (k = 0; k < sizeof intervals / sizeof intervals[0]; k++) {
        int32_t I = intervals[k];
        torch_params pp = {65536.0f, 2.0f, 0.5f, 0};
        long i;
        pp.interval = I;
        /* (a) I-1 clean steps then an overflow: the tracker reaches I-1 and never grows */
        for (i = 0; i < SEQ_LEN; i++)
            found[i] = (i % I) == I - 1 ? 1.0f : 0.0f;
        total += replay_torch(&pp, found, SEQ_LEN, "I-1 clean, overflow");
        /* (b) exactly I clean steps (a growth) then an overflow right after it */
        for (i = 0; i < SEQ_LEN; i++)
            found[i] = (i % (I + 1)) == I ? 1.0f : 0.0f;
        total += replay_torch(&pp, found, SEQ_LEN, "I clean, overflow");
        /* (c) alternating blocks around the boundary: I-1, I, I+1 clean steps between overflows */
        {
            long j = 0, run = 0;
            while (j < SEQ_LEN) {
                long len = I - 1 + (run % 3), t;
                for (t = 0; t < len && j < SEQ_LEN; t++)
                    found[j++] = 0.0f;
                if (j < SEQ_LEN)
                    found[j++] = 1.0f;
                run++;
            }
            runs += run;
        }
        total += replay_torch(&pp, found, SEQ_LEN, "boundary blocks");
        /* (d) growth near FLT_MAX: all clean from 2^126 (growth must stop where the product is inf),
         * with factors that are and are not powers of two */
        for (i = 0; i < SEQ_LEN; i++)
            found[i] = (i % 5000) == 4999 ? 1.0f : 0.0f;
        pp.init = 0x1p126f;
        total += replay_torch(&pp, found, SEQ_LEN, "towards FLT_MAX x2");
        pp.growth = 1.5f;
        pp.backoff = 0.75f;
        total += replay_torch(&pp, found, SEQ_LEN, "towards FLT_MAX x1.5");
        pp.init = FLT_MAX;
        pp.growth = 1.0000001f;
        total += replay_torch(&pp, found, SEQ_LEN, "at FLT_MAX, tiny growth");
        /* (e) floors: long overflow runs take the scale through the subnormals to 0 */
        for (i = 0; i < SEQ_LEN; i++)
            found[i] = (i % 1000) < 400 ? 1.0f : 0.0f;
        pp.init = 65536.0f;
        pp.growth = 2.0f;
        pp.backoff = 0.5f;
        total += replay_torch(&pp, found, SEQ_LEN, "to zero x0.5");
        pp.backoff = 0.7f;
        pp.growth = 1.3f;
        total += replay_torch(&pp, found, SEQ_LEN, "to zero x0.7");
    }
    free(found);
    ck_assert_int_eq(total, 6 * 8 * SEQ_LEN);
    ck_assert_int_gt(runs, 1000);
}
END_TEST

/* Hand-derived edges: 2^16 * 2^111 = 2^127 is the last finite power of two; 2^-149 * 0.5 rounds
 * (tie, to even) to 0; FLT_MAX * 2 = inf keeps FLT_MAX. */
START_TEST(test_torch_edges_by_hand)
{
    mf_loss_scaler s = make(65536.0f, 2.0f, 0.5f, 1, 1, 0.0f, 0.0f, 0);
    int i;
    for (i = 0; i < 111; i++)
        mf_loss_scaler_update(&s, 0);
    ck_assert(s.scale == 0x1p127f);
    for (i = 0; i < 50; i++)
        mf_loss_scaler_update(&s, 0);
    ck_assert(s.scale == 0x1p127f); /* 2^128 is inf: not taken */
    ck_assert_int_eq(s.growth_tracker, 0);
    s = make(FLT_MAX, 2.0f, 0.5f, 1, 1, 0.0f, 0.0f, 0);
    mf_loss_scaler_update(&s, 0);
    ck_assert(s.scale == FLT_MAX);
    s = mf_loss_scaler_default();
    for (i = 0; i < 165; i++)
        mf_loss_scaler_update(&s, 1);
    ck_assert_uint_eq(mf_test_f32_bits(s.scale), 1); /* 2^16 * 2^-165 = 2^-149, the smallest subnormal */
    mf_loss_scaler_update(&s, 1);
    ck_assert_uint_eq(mf_test_f32_bits(s.scale), 0); /* 2^-150: a tie, rounded to the even 0 */
    for (i = 0; i < 4000; i++)
        mf_loss_scaler_update(&s, 0);
    ck_assert_uint_eq(mf_test_f32_bits(s.scale), 0); /* 0 * 2 = 0, as in PyTorch */
}
END_TEST

/* ---- Megatron hysteresis ------------------------------------------------------------------ */

typedef struct {
    float init, min_s, growth, backoff;
    int32_t interval, hysteresis;
} meg_params;

static long replay_megatron(const meg_params *p, const int *found, long n, const char *what, long *floor_hits)
{
    mf_loss_scaler s = make(p->init, p->growth, p->backoff, p->interval, p->hysteresis, p->min_s, 0.0f, 0);
    megatron_state m;
    long i;
    megatron_init(&m, p->init, p->min_s, p->growth, p->backoff, p->interval, p->hysteresis);
    for (i = 0; i < n; i++) {
        int got = mf_loss_scaler_update(&s, found[i]);
        long want_h;
        megatron_update(&m, found[i]);
        want_h = m.hysteresis_tracker > 0 ? m.hysteresis_tracker : 0;
        /* the parameters keep Megatron's scale finite (it has no isfinite guard; ours is tested apart) */
        MF_EXPECT(isfinite(m.scale), "%s step %ld: test parameters let Megatron's scale reach inf", what, i);
        MF_EXPECT(got == !found[i], "%s step %ld: returned %d", what, i, got);
        MF_EXPECT(mf_test_f32_bits(s.scale) == mf_test_f32_bits(m.scale), "%s step %ld: scale %a, Megatron %a", what, i,
                  (double)s.scale, (double)m.scale);
        MF_EXPECT(s.growth_tracker == m.growth_tracker, "%s step %ld: growth tracker %d, Megatron %ld", what, i,
                  (int)s.growth_tracker, m.growth_tracker);
        MF_EXPECT(s.hysteresis_tracker == want_h, "%s step %ld: hysteresis tracker %d, Megatron %ld", what, i,
                  (int)s.hysteresis_tracker, m.hysteresis_tracker);
        *floor_hits += found[i] && s.scale == p->min_s;
    }
    return n;
}

START_TEST(test_megatron_sequences)
{
    /* Megatron's defaults: initial 2^32, min 1, window 1000, hysteresis 2 (megatron/training/arguments.py) */
    static const meg_params params[] = {
        {0x1p32f, 1.0f, 2.0f, 0.5f, 1000, 2},   {65536.0f, 1.0f, 2.0f, 0.5f, 2000, 1},
        {65536.0f, 1.0f, 2.0f, 0.5f, 1000, 3},  {65536.0f, 0x1p-10f, 2.0f, 0.5f, 500, 5},
        {1024.0f, 1e-3f, 1.5f, 0.7f, 200, 2},   {65536.0f, 1.0f, 2.0f, 0.5f, 400, 10},
        {4096.0f, 3.0f, 1.25f, 0.8f, 300, 4},    {65536.0f, 1e-20f, 2.0f, 0.5f, 1000, 1},
        {0x1p32f, 1.0f, 2.0f, 0.5f, 1000, 2},   {65536.0f, 17.0f, 4.0f, 0.25f, 300, 7},
    };
    const size_t nseq = sizeof params / sizeof params[0];
    int *found = (int *)malloc(sizeof(int) * SEQ_LEN);
    long total = 0, floor_hits = 0;
    size_t k;
    ck_assert_ptr_nonnull(found);
    for (k = 0; k < 2 * nseq; k++) {
        /* 20 sequences: each parameter set at a low and a high overflow probability */
        double p = k < nseq ? 1e-3 * pow(50.0, (double)k / (double)(nseq - 1))
                            : 0.05 + 0.45 * (double)(k - nseq) / (double)(nseq - 1);
        long i;
        char what[64];
        for (i = 0; i < SEQ_LEN; i++)
            found[i] = rnd_unit() < p;
        snprintf(what, sizeof what, "megatron sequence %u (p=%g)", (unsigned)k, p);
        total += replay_megatron(&params[k % nseq], found, SEQ_LEN, what, &floor_hits);
    }
    /* adversarial: overflows spaced so hysteresis runs out exactly at the growth boundary */
    for (k = 0; k < nseq; k++) {
        const meg_params *pp = &params[k];
        long i;
        long period = pp->interval + pp->hysteresis + 1;
        for (i = 0; i < SEQ_LEN; i++) /* periods of h-1, h, h+1 overflows, each followed by a growth */
            found[i] = (i % period) < pp->hysteresis - 1 + (i / period) % 3;
        total += replay_megatron(pp, found, SEQ_LEN, "megatron boundary", &floor_hits);
    }
    free(found);
    ck_assert_int_eq(total, 30 * SEQ_LEN);
    ck_assert_int_gt(floor_hits, 1000); /* the min_scale floor was reached many times */
}
END_TEST

/* By hand from DynamicGradScaler.update: overflows count towards the hysteresis even when clean
 * steps separate them; only a growth refills the tracker. */
START_TEST(test_megatron_by_hand)
{
    mf_loss_scaler s = make(65536.0f, 2.0f, 0.5f, 1000, 2, 1.0f, 0.0f, 0);
    int i;
    ck_assert_int_eq(mf_loss_scaler_update(&s, 1), 0); /* tracker 2 -> 1: tolerated */
    ck_assert(s.scale == 65536.0f);
    ck_assert_int_eq(s.hysteresis_tracker, 1);
    ck_assert_int_eq(mf_loss_scaler_update(&s, 0), 1);
    ck_assert_int_eq(mf_loss_scaler_update(&s, 1), 0); /* tracker 1 -> 0: back off */
    ck_assert(s.scale == 32768.0f);
    ck_assert_int_eq(mf_loss_scaler_update(&s, 1), 0); /* stays at 0 (Megatron: -1): back off again */
    ck_assert(s.scale == 16384.0f);
    ck_assert_int_eq(s.hysteresis_tracker, 0);
    for (i = 0; i < 1000; i++)
        mf_loss_scaler_update(&s, 0);
    ck_assert(s.scale == 32768.0f); /* growth, and the tracker is refilled */
    ck_assert_int_eq(s.hysteresis_tracker, 2);
    /* min_scale floor: 1.0 reached and kept */
    s = make(4.0f, 2.0f, 0.5f, 1000, 1, 1.0f, 0.0f, 0);
    for (i = 0; i < 5; i++)
        mf_loss_scaler_update(&s, 1);
    ck_assert(s.scale == 1.0f);
    /* a floor that is not on the backoff grid: 3 * 0.5 = 1.5 < 2.5 gives 2.5 */
    s = make(3.0f, 2.0f, 0.5f, 1000, 1, 2.5f, 0.0f, 0);
    mf_loss_scaler_update(&s, 1);
    ck_assert(s.scale == 2.5f);
}
END_TEST

/* Deliberate difference: Megatron multiplies by the growth factor without PyTorch's isfinite guard
 * and would reach inf; we keep PyTorch's guard in every mode. */
START_TEST(test_megatron_inf_guard)
{
    mf_loss_scaler s = make(0x1p127f, 2.0f, 0.5f, 1, 2, 1.0f, 0.0f, 0);
    megatron_state m;
    megatron_init(&m, 0x1p127f, 1.0f, 2.0f, 0.5f, 1, 2);
    megatron_update(&m, 0);
    mf_loss_scaler_update(&s, 0);
    ck_assert(isinf(m.scale));
    ck_assert(s.scale == 0x1p127f);
}
END_TEST

/* ---- max_scale and static ------------------------------------------------------------------ */

/* Our documented rule for the cap, written independently: g = scale * growth; g = min(g, max);
 * take g if finite. */
START_TEST(test_max_scale)
{
    static const float maxes[] = {300000.0f, 0x1p20f, FLT_MAX, 1e30f, 65536.0f};
    size_t k;
    long total = 0, capped = 0;
    mf_loss_scaler s = make(65536.0f, 2.0f, 0.5f, 1, 1, 0.0f, 300000.0f, 0);
    mf_loss_scaler_update(&s, 0);
    ck_assert(s.scale == 131072.0f);
    mf_loss_scaler_update(&s, 0);
    ck_assert(s.scale == 262144.0f);
    mf_loss_scaler_update(&s, 0);
    ck_assert(s.scale == 300000.0f); /* 524288 capped */
    mf_loss_scaler_update(&s, 0);
    ck_assert(s.scale == 300000.0f);
    mf_loss_scaler_update(&s, 1);
    ck_assert(s.scale == 150000.0f);
    s = make(0x1p127f, 2.0f, 0.5f, 1, 1, 0.0f, FLT_MAX, 0);
    mf_loss_scaler_update(&s, 0);
    ck_assert(s.scale == FLT_MAX); /* inf capped to FLT_MAX, which is finite */
    for (k = 0; k < sizeof maxes / sizeof maxes[0]; k++) {
        float growth = k & 1 ? 1.5f : 2.0f, backoff = k & 1 ? 0.6f : 0.5f, scale = 1024.0f;
        int32_t interval = (int32_t)(1 + k * 3), tracker = 0;
        long i;
        s = make(1024.0f, growth, backoff, interval, 1, 0.0f, maxes[k], 0);
        for (i = 0; i < SEQ_LEN; i++) {
            int found = rnd_unit() < 0.02;
            if (found) {
                scale = scale * backoff;
                tracker = 0;
            } else if (++tracker == interval) {
                float g = scale * growth;
                if (g > maxes[k]) {
                    g = maxes[k];
                    capped++;
                }
                if (isfinite(g))
                    scale = g;
                tracker = 0;
            }
            mf_loss_scaler_update(&s, found);
            MF_EXPECT(mf_test_f32_bits(s.scale) == mf_test_f32_bits(scale), "max %g step %ld: %a want %a",
                      (double)maxes[k], i, (double)s.scale, (double)scale);
            MF_EXPECT(s.growth_tracker == tracker, "max %g step %ld: tracker", (double)maxes[k], i);
        }
        total += SEQ_LEN;
    }
    ck_assert_int_eq(total, 5 * SEQ_LEN);
    ck_assert_int_gt(capped, 1000);
}
END_TEST

START_TEST(test_static)
{
    mf_loss_scaler s = make(1024.0f, 2.0f, 0.5f, 1, 3, 0.0f, 0.0f, 1);
    long i, skipped = 0;
    for (i = 0; i < SEQ_LEN; i++) {
        int found = rnd_unit() < 0.3;
        int got = mf_loss_scaler_update(&s, found);
        skipped += found;
        MF_EXPECT(got == !found, "static step %ld", i);
        MF_EXPECT(s.scale == 1024.0f && s.growth_tracker == 0 && s.hysteresis_tracker == 3, "static step %ld", i);
    }
    ck_assert(s.steps_skipped == (uint64_t)skipped && s.steps_taken == (uint64_t)(SEQ_LEN - skipped));
    ck_assert_int_gt(skipped, 20000);
    /* growth 1 is the other way to freeze growth only: backoff still applies */
    s = make(1024.0f, 1.0f, 0.5f, 1, 1, 0.0f, 0.0f, 0);
    for (i = 0; i < 100; i++)
        mf_loss_scaler_update(&s, 0);
    ck_assert(s.scale == 1024.0f);
    mf_loss_scaler_update(&s, 1);
    ck_assert(s.scale == 512.0f);
}
END_TEST

/* ---- unscale -------------------------------------------------------------------------------- */

static const mf_format grad_fmts[] = {MF_FP32, MF_FP16, MF_BF16};

static size_t esize(mf_format f) { return f == MF_FP32 ? 4 : 2; }

static uint32_t load_elem(mf_format f, const unsigned char *p, size_t i)
{
    if (f == MF_FP32) {
        uint32_t u;
        memcpy(&u, p + 4 * i, 4);
        return u;
    } else {
        uint16_t c;
        memcpy(&c, p + 2 * i, 2);
        return c;
    }
}

static void store_elem(mf_format f, unsigned char *p, size_t i, uint32_t v)
{
    if (f == MF_FP32) {
        memcpy(p + 4 * i, &v, 4);
    } else {
        uint16_t c = (uint16_t)v;
        memcpy(p + 2 * i, &c, 2);
    }
}

static float ref_widen(mf_format f, uint32_t code)
{
    if (f == MF_FP32)
        return mf_test_bits_f32(code);
    return f == MF_FP16 ? ref_f16_to_f32((uint16_t)code) : ref_bf16_to_f32((uint16_t)code);
}

static int ref_is_nonfinite(mf_format f, uint32_t code) { return !isfinite(ref_widen(f, code)); }

/* Expected code of one unscaled element; *is_nan says the output must be a NaN (bits checked by
 * the caller). */
static uint32_t ref_unscale_code(mf_format f, uint32_t code, float inv, int *is_nan)
{
    float y = ref_unscale_val(ref_widen(f, code), inv);
    *is_nan = isnan(y);
    if (f == MF_FP32)
        return mf_test_f32_bits(y);
    return f == MF_FP16 ? ref_f32_to_f16(y) : ref_f32_to_bf16(y);
}

/* Check that got[i] is what the reference says for in[i]; returns mismatches. NaN outputs: f32
 * keeps sign and payload, quieted (input | quiet bit); f16/bf16 give the canonical 0x7FFF. */
static long compare_unscaled(mf_format f, const unsigned char *in, const unsigned char *got, size_t n, float inv,
                             const char *what)
{
    long bad = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        uint32_t x = load_elem(f, in, i), g = load_elem(f, got, i), want;
        int is_nan;
        want = ref_unscale_code(f, x, inv, &is_nan);
        if (is_nan) {
            uint32_t want_nan = f == MF_FP32 ? (inv == 1.0f ? x : x | 0x00400000u) : 0x7FFFu;
            if (g != want_nan) {
                bad++;
                MF_EXPECT(0, "%s fmt %d elem %u: NaN input %#x gave %#x, want %#x", what, (int)f, (unsigned)i, x, g,
                          want_nan);
            }
        } else if (g != want) {
            bad++;
            MF_EXPECT(0, "%s fmt %d elem %u: %#x * %a gave %#x, want %#x", what, (int)f, (unsigned)i, x, (double)inv, g,
                      want);
        }
    }
    return bad;
}

/* A random finite code of format f (values of every size, subnormals included). */
static uint32_t rnd_finite_code(mf_format f)
{
    for (;;) {
        uint32_t c = rnd32();
        if (f != MF_FP32)
            c &= 0xFFFF;
        else if ((c & 3) == 0) /* keep many values near the f16 / bf16 range too */
            c = (c & 0x807FFFFFu) | ((uint32_t)(100 + (c >> 2) % 60) << 23);
        if (!ref_is_nonfinite(f, c))
            return c;
    }
}

static const uint32_t f32_specials[] = {0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC12345u, 0x7F800001u};
static const uint32_t f16_specials[] = {0x7C00u, 0xFC00u, 0x7E00u, 0xFE01u, 0x7C01u};
static const uint32_t bf16_specials[] = {0x7F80u, 0xFF80u, 0x7FC0u, 0xFFC1u, 0x7F81u};

static uint32_t special_code(mf_format f, int k)
{
    return f == MF_FP32 ? f32_specials[k] : f == MF_FP16 ? f16_specials[k] : bf16_specials[k];
}

#define MAXN 300
#define GUARD 8

/* Every array length 1..300, a special (+-inf, +-NaN, signalling NaN) at every position 0..70
 * and at the last position; each run also checks the bytes around the array and the return. */
START_TEST(test_unscale_positions)
{
    static const float scales[] = {65536.0f, 1.0f, 1000.5f, 0x1p-20f, 3.0f};
    unsigned char in[MAXN * 4], clean_out[MAXN * 4], buf[MAXN * 4 + 2 * GUARD + 4];
    long arrays = 0, clean = 0;
    size_t fi, si;
    for (fi = 0; fi < 3; fi++) {
        mf_format f = grad_fmts[fi];
        size_t w = esize(f);
        for (si = 0; si < sizeof scales / sizeof scales[0]; si++) {
            mf_loss_scaler s = make(scales[si], 2.0f, 0.5f, 2000, 1, 0.0f, 0.0f, 0);
            float inv = ref_inv_scale(scales[si]);
            size_t n;
            for (n = 1; n <= MAXN; n++) {
                size_t off = GUARD + (n & 3), i, pos; /* misaligned starts */
                int rc;
                for (i = 0; i < n; i++)
                    store_elem(f, in, i, rnd_finite_code(f));
                /* clean array */
                memset(buf, 0xEE, sizeof buf);
                memcpy(buf + off, in, n * w);
                rc = mf_unscale_check(&s, f, buf + off, n);
                MF_EXPECT(rc == 0, "clean fmt %d n %u: returned %d", (int)f, (unsigned)n, rc);
                MF_EXPECT(compare_unscaled(f, in, buf + off, n, inv, "clean") == 0, "clean");
                memcpy(clean_out, buf + off, n * w);
                clean++;
                for (pos = 0; pos < n; pos++) {
                    int k;
                    if (pos > 70 && pos != n - 1)
                        continue;
                    for (k = 0; k < 5; k++) {
                        uint32_t sp = special_code(f, k);
                        int is_nan;
                        uint32_t want = ref_unscale_code(f, sp, inv, &is_nan), got;
                        memset(buf, 0xEE, sizeof buf);
                        memcpy(buf + off, in, n * w);
                        store_elem(f, buf + off, pos, sp);
                        rc = mf_unscale_check(&s, f, buf + off, n);
                        MF_EXPECT(rc == 1, "fmt %d n %u pos %u special %#x: returned %d", (int)f, (unsigned)n,
                                  (unsigned)pos, sp, rc);
                        got = load_elem(f, buf + off, pos);
                        if (is_nan)
                            want = f == MF_FP32 ? (inv == 1.0f ? sp : sp | 0x00400000u) : 0x7FFFu;
                        MF_EXPECT(got == want, "fmt %d n %u pos %u: special %#x gave %#x want %#x", (int)f,
                                  (unsigned)n, (unsigned)pos, sp, got, want);
                        /* the other elements are those of the clean run */
                        MF_EXPECT(memcmp(buf + off, clean_out, pos * w) == 0 &&
                                      memcmp(buf + off + (pos + 1) * w, clean_out + (pos + 1) * w,
                                             (n - pos - 1) * w) == 0,
                                  "fmt %d n %u pos %u: other elements changed", (int)f, (unsigned)n, (unsigned)pos);
                        for (i = 0; i < off; i++)
                            MF_EXPECT(buf[i] == 0xEE, "wrote before the array");
                        for (i = off + n * w; i < sizeof buf; i++)
                            MF_EXPECT(buf[i] == 0xEE, "wrote after the array");
                        arrays++;
                    }
                }
            }
        }
    }
    /* per (format, scale): sum over n of min(n, 71) + (n > 71), times 5 specials */
    {
        long per = 0, n;
        for (n = 1; n <= MAXN; n++)
            per += (n < 71 ? n : 71) + (n > 71);
        ck_assert_int_eq(arrays, 3 * 5 * 5 * per);
    }
    ck_assert_int_eq(clean, 3 * 5 * MAXN);
}
END_TEST

/* Every f16 and every bf16 code, against scales that are powers of two and ones that are not. */
START_TEST(test_unscale_every_code)
{
    static const float scales[] = {65536.0f, 1.0f,   3.0f,  1000.5f, 0.3f,
                                   0x1p-20f, 1e-30f, 1e30f, 6.0e4f,  0x1.fffffep+10f};
    uint16_t *in = (uint16_t *)malloc(65536 * 2), *buf = (uint16_t *)malloc(65536 * 2 + 2);
    long checked = 0;
    size_t fi, si;
    ck_assert(in && buf);
    for (fi = 1; fi < 3; fi++) {
        mf_format f = grad_fmts[fi];
        for (si = 0; si < sizeof scales / sizeof scales[0]; si++) {
            mf_loss_scaler s = make(scales[si], 2.0f, 0.5f, 2000, 1, 0.0f, 0.0f, 0);
            float inv = ref_inv_scale(scales[si]);
            unsigned char *odd = (unsigned char *)buf + 1; /* an odd address */
            uint32_t c;
            size_t nfin = 0;
            for (c = 0; c < 65536; c++)
                in[c] = (uint16_t)c;
            memcpy(odd, in, 65536 * 2);
            ck_assert_int_eq(mf_unscale_check(&s, f, odd, 65536), 1);
            ck_assert_int_eq(compare_unscaled(f, (unsigned char *)in, odd, 65536, inv, "every code"), 0);
            checked += 65536;
            /* only the finite codes: nothing found */
            for (c = 0; c < 65536; c++)
                if (!ref_is_nonfinite(f, c))
                    in[nfin++] = (uint16_t)c;
            memcpy(odd, in, nfin * 2);
            ck_assert_int_eq(mf_unscale_check(&s, f, odd, nfin), 0);
            ck_assert_int_eq(compare_unscaled(f, (unsigned char *)in, odd, nfin, inv, "finite codes"), 0);
            checked += (long)nfin;
        }
    }
    free(in);
    free(buf);
    ck_assert_int_eq(checked, 10 * (65536 + 63488) + 10 * (65536 + 65280));
}
END_TEST

/* f32 gradients: random bit patterns (every class) against random scales. */
START_TEST(test_unscale_f32_random)
{
    enum { N = 4096, ROUNDS = 600 };
    uint32_t *in = (uint32_t *)malloc(N * 4);
    unsigned char *buf = (unsigned char *)malloc(N * 4 + 3);
    long checked = 0, nonfinite_arrays = 0;
    int r;
    ck_assert(in && buf);
    for (r = 0; r < ROUNDS; r++) {
        /* scales: random positive floats over the whole range, powers of two, and 1 */
        uint32_t sb = (r % 7 == 0)    ? ((uint32_t)(1 + rnd32() % 253) << 23)
                      : (r % 11 == 0) ? 0x3F800000u
                                      : 1 + rnd32() % 0x7F7FFFFFu;
        float scale = mf_test_bits_f32(sb), inv = ref_inv_scale(scale);
        mf_loss_scaler s = make(scale, 2.0f, 0.5f, 2000, 1, 0.0f, 0.0f, 0);
        unsigned char *p = buf + (r & 3);
        int rc, want_found = 0;
        size_t i;
        for (i = 0; i < N; i++) {
            in[i] = (r & 1) ? rnd32() : rnd_finite_code(MF_FP32);
            want_found |= ref_is_nonfinite(MF_FP32, in[i]);
        }
        memcpy(p, in, N * 4);
        rc = mf_unscale_check(&s, MF_FP32, p, N);
        ck_assert_int_eq(rc, want_found);
        nonfinite_arrays += want_found;
        ck_assert_int_eq(compare_unscaled(MF_FP32, (unsigned char *)in, p, N, inv, "f32 random"), 0);
        checked += N;
    }
    free(in);
    free(buf);
    ck_assert_int_eq(checked, (long)N * ROUNDS);
    ck_assert_int_gt(nonfinite_arrays, 100);
}
END_TEST

/* A whole model: mixed formats, empty tensors, one call. */
START_TEST(test_unscale_tensors)
{
    enum { T = 9 };
    static const mf_format fmts[T] = {MF_FP32, MF_FP16, MF_BF16, MF_FP16, MF_FP32, MF_BF16, MF_FP32, MF_FP16, MF_BF16};
    static const size_t lens[T] = {1000, 0, 777, 1, 0, 3001, 65, 129, 0};
    unsigned char *orig[T], *a[T], *b[T];
    mf_tensor ts[T];
    mf_loss_scaler s = make(1000.5f, 2.0f, 0.5f, 2000, 1, 0.0f, 0.0f, 0);
    float inv = ref_inv_scale(1000.5f);
    int t, round;
    long checked = 0;
    for (t = 0; t < T; t++) {
        size_t bytes = lens[t] * esize(fmts[t]) + 1;
        orig[t] = (unsigned char *)malloc(bytes);
        a[t] = (unsigned char *)malloc(bytes);
        b[t] = (unsigned char *)malloc(bytes);
        ck_assert(orig[t] && a[t] && b[t]);
    }
    for (round = 0; round < 2 * T + 1; round++) {
        int want = 0, got, single = 0;
        for (t = 0; t < T; t++) {
            size_t i;
            for (i = 0; i < lens[t]; i++)
                store_elem(fmts[t], orig[t], i, rnd_finite_code(fmts[t]));
            /* round r < 2T puts a special into tensor r/2 (if it has elements) */
            if (round < 2 * T && round / 2 == t && lens[t] > 0) {
                store_elem(fmts[t], orig[t], (round & 1) ? lens[t] - 1 : 0, special_code(fmts[t], round % 5));
                want = 1;
            }
            memcpy(a[t], orig[t], lens[t] * esize(fmts[t]));
            memcpy(b[t] + 1, orig[t], lens[t] * esize(fmts[t]));
            ts[t].data = lens[t] ? (void *)(b[t] + 1) : (t == 4 ? NULL : (void *)b[t]); /* NULL is fine when empty */
            ts[t].format = fmts[t];
            ts[t].n = lens[t];
        }
        got = mf_unscale_check_tensors(&s, ts, T);
        ck_assert_int_eq(got, want);
        for (t = 0; t < T; t++) {
            int rc = mf_unscale_check(&s, fmts[t], a[t], lens[t]);
            ck_assert(rc == 0 || rc == 1);
            single |= rc;
            ck_assert(memcmp(a[t], b[t] + 1, lens[t] * esize(fmts[t])) == 0); /* same as one by one */
            ck_assert_int_eq(compare_unscaled(fmts[t], orig[t], b[t] + 1, lens[t], inv, "tensors"), 0);
            checked += (long)lens[t];
        }
        ck_assert_int_eq(single, want);
    }
    /* a bad descriptor anywhere: an error and no tensor written */
    for (t = 0; t < T; t++)
        memcpy(b[t] + 1, orig[t], lens[t] * esize(fmts[t]));
    ts[8].format = MF_FP8_E4M3;
    ck_assert_int_eq(mf_unscale_check_tensors(&s, ts, T), MF_E_FORMAT);
    ts[8].format = MF_BF16;
    ts[7].data = NULL;
    ck_assert_int_eq(mf_unscale_check_tensors(&s, ts, T), MF_E_NULL);
    ts[7].data = b[7] + 1;
    ts[5].n = SIZE_MAX / 2;
    ck_assert_int_eq(mf_unscale_check_tensors(&s, ts, T), MF_E_SIZE);
    ts[5].n = lens[5];
    for (t = 0; t < T; t++)
        ck_assert(memcmp(b[t] + 1, orig[t], lens[t] * esize(fmts[t])) == 0);
    ck_assert_int_eq(mf_unscale_check_tensors(&s, NULL, 0), 0);
    ck_assert_int_eq(mf_unscale_check_tensors(&s, ts, 0), 0);
    ck_assert_int_eq(mf_unscale_check_tensors(&s, NULL, 1), MF_E_NULL);
    ck_assert_int_eq(mf_unscale_check_tensors(NULL, ts, T), MF_E_NULL);
    for (t = 0; t < T; t++) {
        free(orig[t]);
        free(a[t]);
        free(b[t]);
    }
    ck_assert_int_eq(checked, (2 * T + 1) * (1000 + 777 + 1 + 3001 + 65 + 129));
}
END_TEST

/* ---- scale_loss ----------------------------------------------------------------------------- */

START_TEST(test_scale_loss)
{
    long checked = 0;
    int r;
    for (r = 0; r < 400; r++) {
        uint32_t sb = (r % 5 == 0) ? ((uint32_t)(1 + rnd32() % 253) << 23) : 1 + rnd32() % 0x7F7FFFFFu;
        mf_loss_scaler s = make(mf_test_bits_f32(sb), 2.0f, 0.5f, 2000, 1, 0.0f, 0.0f, 0);
        int i;
        for (i = 0; i < 5000; i++) {
            uint32_t lb = (i & 1) ? rnd32() : (rnd32() & 0x80FFFFFFu) | ((uint32_t)(110 + rnd32() % 30) << 23);
            volatile float loss = mf_test_bits_f32(lb), scale = mf_test_bits_f32(sb);
            float want = loss * scale; /* PyTorch: outputs * self._scale, a float32 multiply */
            float got = mf_scale_loss(&s, mf_test_bits_f32(lb));
            MF_EXPECT(mf_test_f32_bits(got) == mf_test_f32_bits(want), "loss %#x * scale %#x: %#x want %#x", lb, sb,
                      mf_test_f32_bits(got), mf_test_f32_bits(want));
            checked++;
        }
    }
    ck_assert_int_eq(checked, 400 * 5000);
}
END_TEST

/* ---- the FP environment does not matter ----------------------------------------------------- */

static void env_run(uint32_t *out, size_t *nout)
{
    mf_loss_scaler s = make(65536.0f, 1.3f, 0.7f, 3, 1, 0.0f, 0.0f, 0);
    unsigned char g[64 * 4];
    size_t k = 0;
    int i;
    for (i = 0; i < 400; i++) { /* down through the subnormals, and up again */
        mf_loss_scaler_update(&s, i < 300 || (i % 7) == 0);
        out[k++] = mf_test_f32_bits(s.scale);
    }
    s = make(0x1p100f, 2.0f, 0.5f, 1, 1, 0.0f, 0.0f, 0);
    for (i = 0; i < 64; i++) { /* unscaled values land in the subnormals; tie cases for f16/bf16 */
        uint32_t v = 0x00800000u + (uint32_t)i * 0x00100001u;
        memcpy(g + 4 * i, &v, 4);
    }
    mf_unscale_check(&s, MF_FP32, g, 64);
    for (i = 0; i < 64; i++)
        out[k++] = load_elem(MF_FP32, g, (size_t)i);
    s = make(0x1.555556p-3f, 2.0f, 0.5f, 1, 1, 0.0f, 0.0f, 0);
    for (i = 0; i < 64; i++)
        store_elem(MF_FP16, g, (size_t)i, (uint32_t)(0x3C00 + 37 * i));
    mf_unscale_check(&s, MF_FP16, g, 64);
    for (i = 0; i < 64; i++)
        out[k++] = load_elem(MF_FP16, g, (size_t)i);
    for (i = 0; i < 64; i++)
        out[k++] = mf_test_f32_bits(mf_scale_loss(&s, mf_test_bits_f32(0x00012345u + (uint32_t)i * 77u)));
    out[k++] = mf_test_f32_bits(mf_loss_scaler_inv_scale(&s));
    *nout = k;
}

START_TEST(test_fp_environment)
{
    uint32_t base[1000], other[1000];
    size_t nb, no, i;
    static const int modes[] = {FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD};
    int m;
    env_run(base, &nb);
    for (m = 0; m < 3; m++) {
        ck_assert_int_eq(fesetround(modes[m]), 0);
        env_run(other, &no);
        fesetround(FE_TONEAREST);
        ck_assert_uint_eq(no, nb);
        for (i = 0; i < nb; i++)
            MF_EXPECT(base[i] == other[i], "rounding mode %d changed result %u", m, (unsigned)i);
    }
#ifdef HAVE_MXCSR
    {
        unsigned csr = _mm_getcsr();
        _mm_setcsr(csr | 0x8040u); /* FTZ | DAZ */
        env_run(other, &no);
        _mm_setcsr(csr);
        for (i = 0; i < nb; i++)
            MF_EXPECT(base[i] == other[i], "FTZ/DAZ changed result %u", (unsigned)i);
    }
#endif
    ck_assert_uint_eq(nb, 400 + 64 * 3 + 1);
}
END_TEST

/* ---- bad arguments -------------------------------------------------------------------------- */

START_TEST(test_bad_args)
{
    mf_loss_scaler s, before;
    mf_loss_scaler_config c;
    unsigned char g[16];
    int k, cases = 0;
    /* init: each field out of range, nothing written */
    for (k = 0; k < 26; k++) {
        c = mf_loss_scaler_config_default();
        switch (k) {
        case 0: c.init_scale = 0.0f; break;
        case 1: c.init_scale = -0.0f; break;
        case 2: c.init_scale = -1.0f; break;
        case 3: c.init_scale = INFINITY; break;
        case 4: c.init_scale = NAN; break;
        case 5: c.growth_factor = 0.999f; break;
        case 6: c.growth_factor = INFINITY; break;
        case 7: c.growth_factor = NAN; break;
        case 8: c.backoff_factor = 0.0f; break;
        case 9: c.backoff_factor = 1.0000001f; break;
        case 10: c.backoff_factor = -0.5f; break;
        case 11: c.backoff_factor = NAN; break;
        case 12: c.growth_interval = 0; break;
        case 13: c.growth_interval = -5; break;
        case 14: c.hysteresis = 0; break;
        case 15: c.hysteresis = -1; break;
        case 16: c.min_scale = -1.0f; break;
        case 17: c.min_scale = NAN; break;
        case 18: c.min_scale = INFINITY; break;
        case 19: c.max_scale = -2.0f; break;
        case 20: c.max_scale = INFINITY; break;
        case 21: c.min_scale = 10.0f; c.max_scale = 5.0f; c.init_scale = 7.0f; break;
        case 22: c.min_scale = 100000.0f; break;                     /* init 65536 below the floor */
        case 23: c.max_scale = 1000.0f; break;                       /* init above the cap */
        case 24: c.max_scale = -0.0f; break;
        default: c.backoff_factor = INFINITY; break;
        }
        memset(&s, 0x5A, sizeof s);
        memcpy(&before, &s, sizeof s);
        MF_EXPECT(mf_loss_scaler_init(&s, &c) == MF_E_ARG, "init case %d accepted", k);
        MF_EXPECT(memcmp(&s, &before, sizeof s) == 0, "init case %d wrote", k);
        cases++;
    }
    /* the edges that are allowed */
    c = mf_loss_scaler_config_default();
    c.growth_factor = 1.0f;
    c.backoff_factor = 1.0f;
    c.min_scale = 65536.0f;
    c.max_scale = 65536.0f;
    c.init_scale = 65536.0f;
    c.growth_interval = 1;
    ck_assert_int_eq(mf_loss_scaler_init(&s, &c), MF_OK);
    c = mf_loss_scaler_config_default();
    c.init_scale = 0x1p-149f; /* positive subnormal */
    ck_assert_int_eq(mf_loss_scaler_init(&s, &c), MF_OK);
    ck_assert_int_eq(mf_loss_scaler_init(NULL, &c), MF_E_NULL);
    ck_assert_int_eq(mf_loss_scaler_init(&s, NULL), MF_E_NULL);
    /* unscale */
    s = mf_loss_scaler_default();
    memset(g, 0x11, sizeof g);
    ck_assert_int_eq(mf_unscale_check(NULL, MF_FP32, g, 4), MF_E_NULL);
    ck_assert_int_eq(mf_unscale_check(&s, MF_FP8_E4M3, g, 4), MF_E_FORMAT);
    ck_assert_int_eq(mf_unscale_check(&s, MF_E8M0, g, 4), MF_E_FORMAT);
    ck_assert_int_eq(mf_unscale_check(&s, MF_FP64, g, 2), MF_E_FORMAT);
    ck_assert_int_eq(mf_unscale_check(&s, (mf_format)-1, g, 4), MF_E_FORMAT);
    ck_assert_int_eq(mf_unscale_check(&s, (mf_format)99, NULL, 0), MF_E_FORMAT);
    ck_assert_int_eq(mf_unscale_check(&s, MF_FP16, NULL, 3), MF_E_NULL);
    ck_assert_int_eq(mf_unscale_check(&s, MF_FP16, NULL, 0), 0);
    ck_assert_int_eq(mf_unscale_check(&s, MF_FP32, g, SIZE_MAX), MF_E_SIZE);
    ck_assert_int_eq(mf_unscale_check(&s, MF_BF16, g, SIZE_MAX / 2 + 1), MF_E_SIZE);
    ck_assert_int_eq(mf_unscale_check(&s, MF_FP32, (void *)(uintptr_t)(UINTPTR_MAX - 3), 2), MF_E_SIZE);
    for (k = 0; k < (int)sizeof g; k++)
        ck_assert_uint_eq(g[k], 0x11);
    /* update and the getters */
    ck_assert_int_eq(mf_loss_scaler_update(NULL, 0), MF_E_NULL);
    ck_assert_int_eq(mf_loss_scaler_update(NULL, 1), MF_E_NULL);
    ck_assert(isnan(mf_loss_scaler_scale(NULL)));
    ck_assert(isnan(mf_loss_scaler_inv_scale(NULL)));
    ck_assert(isnan(mf_scale_loss(NULL, 1.0f)));
    ck_assert_int_eq(cases, 26);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("loss_scale");
    TCase *tc = tcase_create("loss_scale");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_defaults);
    tcase_add_test(tc, test_default_by_hand);
    tcase_add_test(tc, test_torch_random_sequences);
    tcase_add_test(tc, test_torch_adversarial);
    tcase_add_test(tc, test_torch_edges_by_hand);
    tcase_add_test(tc, test_megatron_sequences);
    tcase_add_test(tc, test_megatron_by_hand);
    tcase_add_test(tc, test_megatron_inf_guard);
    tcase_add_test(tc, test_max_scale);
    tcase_add_test(tc, test_static);
    tcase_add_test(tc, test_unscale_positions);
    tcase_add_test(tc, test_unscale_every_code);
    tcase_add_test(tc, test_unscale_f32_random);
    tcase_add_test(tc, test_unscale_tensors);
    tcase_add_test(tc, test_scale_loss);
    tcase_add_test(tc, test_fp_environment);
    tcase_add_test(tc, test_bad_args);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    f16_table_init();
    return mf_run_suite(suite());
}
