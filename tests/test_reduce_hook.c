/* SPDX-License-Identifier: MIT */
/* tests/test_reduce_hook.c - the cross-rank reduction hook in the loss scaler and the FP8 recipes (unit tier).
 *
 * One process plays one rank; the fake hook stands for the others: it holds what they would contribute
 * (their values and their status) and max-reduces the caller's values with them as an MPI adapter would
 * (bit patterns as int32). The expected states come from single-process runs without a hook that see
 * every rank's data (the found flags ORed, the amaxes all recorded), so the hook must make a rank's
 * state equal to that of one process seeing everything. tests/mpi/ runs the same over real MPI ranks.
 */
#include "mf_test.h"
#include <math.h>
#include <stdio.h>

#include <minifloat.h>
#include <minifloat/fp8_scaling.h>
#include <minifloat/loss_scale.h>

/* ---- the fake ranks ------------------------------------------------------------------------------------ */

#define MAXV 64

typedef struct fake_ranks {
    float remote[MAXV]; /* the other ranks' maximum, element by element (the status slot included) */
    int fail;           /* nonzero: the callback returns this */
    int calls;          /* how many times the hook ran */
    size_t last_n;      /* n of the last call */
    float seen[MAXV];   /* the values the library passed in, before the exchange */
} fake_ranks;

static int32_t as_i32(float f)
{
    uint32_t u = mf_test_f32_bits(f);
    int32_t i;
    memcpy(&i, &u, sizeof i);
    return i;
}

static int fake_max(void *ctx, float *v, size_t n)
{
    fake_ranks *r = (fake_ranks *)ctx;
    size_t i;
    r->calls++;
    r->last_n = n;
    ck_assert_uint_le(n, MAXV);
    memcpy(r->seen, v, n * sizeof *v);
    for (i = 0; i < n; i++)
        if (as_i32(r->remote[i]) > as_i32(v[i]))
            v[i] = r->remote[i];
    return r->fail;
}

static mf_reduce_hook hook_of(fake_ranks *r)
{
    mf_reduce_hook h;
    h.max = fake_max;
    h.ctx = r;
    return h;
}

static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint32_t rnd32(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 32);
}

/* ---- loss scaler ---------------------------------------------------------------------------------------- */

static mf_loss_scaler scaler_with(const mf_reduce_hook *h)
{
    mf_loss_scaler s;
    mf_loss_scaler_config c = mf_loss_scaler_config_default();
    c.growth_interval = 3;
    c.hysteresis = 2;
    if (h)
        c.reduce = *h;
    ck_assert_int_eq(mf_loss_scaler_init(&s, &c), MF_OK);
    return s;
}

/* With the hook, a rank's scaler follows the ORed flag of all ranks: the trajectory of one scaler fed
 * local | remote, step by step, return values included. */
START_TEST(test_scaler_follows_every_rank)
{
    fake_ranks fr;
    mf_reduce_hook h;
    mf_loss_scaler s, ref;
    int step;
    memset(&fr, 0, sizeof fr);
    h = hook_of(&fr);
    s = scaler_with(&h);
    ref = scaler_with(NULL);
    for (step = 0; step < 2000; step++) {
        int local = (rnd32() % 5) == 0, remote = (rnd32() % 5) == 0, got, want;
        fr.remote[0] = remote ? 1.0f : 0.0f;
        fr.remote[1] = 0.0f; /* the others are well */
        /* a local flag is any nonzero int, an error code from mf_unscale_check included */
        got = mf_loss_scaler_update(&s, local ? (step & 1 ? 1 : MF_E_FORMAT) : 0);
        want = mf_loss_scaler_update(&ref, local || remote);
        MF_EXPECT(got == want, "step %d: update returned %d, the single process %d", step, got, want);
        MF_EXPECT(fr.last_n == 2, "step %d: the hook got %zu values, not {found, status}", step, fr.last_n);
        MF_EXPECT(fr.seen[0] == (local ? 1.0f : 0.0f) && mf_test_f32_bits(fr.seen[1]) == 0,
                  "step %d: the hook was given {%g, %g}", step, fr.seen[0], fr.seen[1]);
        MF_EXPECT(mf_test_f32_bits(s.scale) == mf_test_f32_bits(ref.scale) && s.growth_tracker == ref.growth_tracker &&
                      s.hysteresis_tracker == ref.hysteresis_tracker && s.steps_taken == ref.steps_taken &&
                      s.steps_skipped == ref.steps_skipped,
                  "step %d: the state differs from the single process", step);
    }
    ck_assert_int_eq(fr.calls, 2000);
    ck_assert_uint_gt(ref.steps_skipped, 500); /* both outcomes were exercised */
    ck_assert_uint_gt(ref.steps_taken, 500);
}
END_TEST

/* The hook matters: without it the scaler follows its own flags only (the scales of two ranks part). */
START_TEST(test_scaler_without_hook_is_local)
{
    mf_loss_scaler a = scaler_with(NULL), b = scaler_with(NULL);
    mf_reduce_hook none = {NULL, &a}; /* max NULL: no hook, whatever ctx says */
    mf_loss_scaler c = scaler_with(&none);
    ck_assert_int_eq(mf_loss_scaler_update(&a, 1), 0);
    ck_assert_int_eq(mf_loss_scaler_update(&a, 1), 0);
    ck_assert_int_eq(mf_loss_scaler_update(&b, 0), 1);
    ck_assert_int_eq(mf_loss_scaler_update(&b, 0), 1);
    ck_assert_int_eq(mf_loss_scaler_update(&c, 1), 0);
    ck_assert_int_eq(mf_loss_scaler_update(&c, 1), 0);
    ck_assert_float_eq(a.scale, 32768.0f); /* backed off on the second overflow (hysteresis 2) */
    ck_assert_float_eq(b.scale, 65536.0f);
    ck_assert_float_eq(c.scale, 32768.0f);
}
END_TEST

/* A failed reduction, here or on another rank: MF_E_REDUCE and the scaler untouched. */
START_TEST(test_scaler_failures)
{
    fake_ranks fr;
    mf_reduce_hook h;
    mf_loss_scaler s, before;
    int k;
    memset(&fr, 0, sizeof fr);
    h = hook_of(&fr);
    s = scaler_with(&h);
    (void)mf_loss_scaler_update(&s, 0); /* leave the initial state */
    for (k = 0; k < 4; k++) {
        int found;
        for (found = 0; found < 2; found++) {
            memset(&fr, 0, sizeof fr);
            if (k == 0)
                fr.fail = 1; /* this rank's callback failed */
            else if (k == 1)
                fr.fail = -5;
            else if (k == 2)
                fr.remote[1] = 1.0f; /* another rank reported a failure */
            else
                fr.remote[1] = mf_test_bits_f32(0x7FC00000u); /* a NaN status is no success either */
            before = s;
            ck_assert_int_eq(mf_loss_scaler_update(&s, found), MF_E_REDUCE);
            ck_assert_int_eq(fr.calls, 1);
            ck_assert_int_eq(memcmp(&s, &before, sizeof s), 0);
        }
    }
    ck_assert_int_eq(mf_loss_scaler_update(NULL, 1), MF_E_NULL);
    ck_assert_str_ne(mf_strerror(MF_E_REDUCE), "unknown status code");
}
END_TEST

/* ---- delayed scaling ------------------------------------------------------------------------------------ */

static mf_fp8_delayed delayed_with(mf_format f, size_t len, mf_amax_algo algo, int roll, const mf_reduce_hook *h)
{
    mf_fp8_delayed st;
    mf_fp8_delayed_cfg c = mf_fp8_delayed_default(f);
    c.history_len = len;
    c.algo = algo;
    c.roll_on_zero_amax = roll;
    if (h)
        c.reduce = *h;
    ck_assert_int_eq(mf_fp8_delayed_init(&st, &c), MF_OK);
    return st;
}

/* Random amaxes, zeros, infinities and NaNs on either side. */
static float rnd_amax(void)
{
    uint32_t r = rnd32() % 16;
    if (r == 0)
        return 0.0f;
    if (r == 1)
        return INFINITY;
    if (r == 2)
        return mf_test_bits_f32(0x7FC00000u);
    return mf_test_bits_f32(0x30000000u + rnd32() % 0x1F000000u);
}

static int same_state(const mf_fp8_delayed *a, const mf_fp8_delayed *b)
{
    size_t i;
    if (mf_test_f32_bits(a->scale) != mf_test_f32_bits(b->scale) ||
        mf_test_f32_bits(a->scale_inv) != mf_test_f32_bits(b->scale_inv) || a->steps != b->steps)
        return 0;
    for (i = 0; i < a->cfg.history_len; i++)
        if (mf_test_f32_bits(a->history[i]) != mf_test_f32_bits(b->history[i]))
            return 0;
    return 1;
}

/* A rank's delayed state with the hook = one state that recorded every rank's amax. */
START_TEST(test_delayed_follows_every_rank)
{
    int variant;
    for (variant = 0; variant < 4; variant++) {
        fake_ranks fr;
        mf_reduce_hook h;
        mf_fp8_delayed st, ref;
        mf_amax_algo algo = variant & 1 ? MF_AMAX_ALGO_MOST_RECENT : MF_AMAX_ALGO_MAX;
        int roll = variant >> 1, step;
        memset(&fr, 0, sizeof fr);
        h = hook_of(&fr);
        st = delayed_with(MF_FP8_E4M3, 7, algo, roll, &h);
        ref = delayed_with(MF_FP8_E4M3, 7, algo, roll, NULL);
        for (step = 0; step < 3000; step++) {
            float mine = rnd_amax(), theirs = rnd_amax();
            if (rnd32() % 3)
                ck_assert_int_eq(mf_fp8_delayed_record(&st, mine), MF_OK);
            else
                mine = 0.0f; /* no quantization on this rank this step */
            fr.remote[0] = theirs;
            fr.remote[1] = 0.0f;
            ck_assert_int_eq(mf_fp8_delayed_record(&ref, mine), MF_OK);
            ck_assert_int_eq(mf_fp8_delayed_record(&ref, theirs), MF_OK);
            ck_assert_int_eq(mf_fp8_delayed_update(&st), MF_OK);
            ck_assert_int_eq(mf_fp8_delayed_update(&ref), MF_OK);
            MF_EXPECT(fr.last_n == 2 && mf_test_f32_bits(fr.seen[1]) == 0, "the hook got %zu values", fr.last_n);
            MF_EXPECT(same_state(&st, &ref), "variant %d step %d: state differs from the single process", variant,
                      step);
        }
        ck_assert_int_eq(fr.calls, 3000);
    }
}
END_TEST

START_TEST(test_delayed_failures)
{
    fake_ranks fr;
    mf_reduce_hook h;
    mf_fp8_delayed st, before;
    int k;
    memset(&fr, 0, sizeof fr);
    h = hook_of(&fr);
    st = delayed_with(MF_FP8_E5M2, 5, MF_AMAX_ALGO_MAX, 0, &h);
    ck_assert_int_eq(mf_fp8_delayed_record(&st, 3.0f), MF_OK);
    ck_assert_int_eq(mf_fp8_delayed_update(&st), MF_OK);
    ck_assert_int_eq(mf_fp8_delayed_record(&st, 5.0f), MF_OK);
    for (k = 0; k < 2; k++) {
        memset(&fr, 0, sizeof fr);
        fr.remote[0] = 100.0f; /* would change history[0] if it were applied */
        if (k == 0)
            fr.fail = 1;
        else
            fr.remote[1] = 1.0f;
        before = st;
        ck_assert_int_eq(mf_fp8_delayed_update(&st), MF_E_REDUCE);
        ck_assert_int_eq(memcmp(&st, &before, sizeof st), 0);
    }
    ck_assert_int_eq(mf_fp8_delayed_update(NULL), MF_E_NULL);
}
END_TEST

/* update_many: one reduction of every amax; the same states as one update per state. */
START_TEST(test_delayed_update_many)
{
    enum { COUNT = 9 };
    fake_ranks fr, fr1;
    mf_reduce_hook h, h1;
    mf_fp8_delayed many[COUNT], one[COUNT], ref[COUNT], before[COUNT];
    int i, step;
    memset(&fr, 0, sizeof fr);
    memset(&fr1, 0, sizeof fr1);
    h = hook_of(&fr);
    h1 = hook_of(&fr1);
    for (i = 0; i < COUNT; i++) {
        mf_format f = i % 3 == 2 ? MF_FP8_E5M2 : MF_FP8_E4M3;
        many[i] = delayed_with(f, (size_t)(1 + i), i & 1 ? MF_AMAX_ALGO_MOST_RECENT : MF_AMAX_ALGO_MAX, i % 4 == 3, &h);
        one[i] = delayed_with(f, (size_t)(1 + i), i & 1 ? MF_AMAX_ALGO_MOST_RECENT : MF_AMAX_ALGO_MAX, i % 4 == 3, &h1);
        ref[i] = delayed_with(f, (size_t)(1 + i), i & 1 ? MF_AMAX_ALGO_MOST_RECENT : MF_AMAX_ALGO_MAX, i % 4 == 3,
                              NULL);
    }
    for (step = 0; step < 500; step++) {
        float theirs[COUNT];
        fr.calls = 0;
        for (i = 0; i < COUNT; i++) {
            float mine = rnd_amax();
            theirs[i] = rnd_amax();
            ck_assert_int_eq(mf_fp8_delayed_record(&many[i], mine), MF_OK);
            ck_assert_int_eq(mf_fp8_delayed_record(&one[i], mine), MF_OK);
            ck_assert_int_eq(mf_fp8_delayed_record(&ref[i], mine), MF_OK);
            ck_assert_int_eq(mf_fp8_delayed_record(&ref[i], theirs[i]), MF_OK);
            fr.remote[i] = theirs[i];
        }
        fr.remote[COUNT] = 0.0f;
        ck_assert_int_eq(mf_fp8_delayed_update_many(many, COUNT), MF_OK);
        MF_EXPECT(fr.calls == 1 && fr.last_n == COUNT + 1, "update_many made %d calls of %zu values", fr.calls,
                  fr.last_n);
        for (i = 0; i < COUNT; i++) {
            fr1.remote[0] = theirs[i];
            fr1.remote[1] = 0.0f;
            ck_assert_int_eq(mf_fp8_delayed_update(&one[i]), MF_OK);
            ck_assert_int_eq(mf_fp8_delayed_update(&ref[i]), MF_OK);
            MF_EXPECT(same_state(&many[i], &one[i]) && same_state(&many[i], &ref[i]), "step %d state %d differs", step,
                      i);
        }
    }
    /* failures leave every state as it was */
    for (i = 0; i < COUNT; i++)
        ck_assert_int_eq(mf_fp8_delayed_record(&many[i], 7.0f), MF_OK);
    memcpy(before, many, sizeof many);
    fr.fail = 3;
    ck_assert_int_eq(mf_fp8_delayed_update_many(many, COUNT), MF_E_REDUCE);
    ck_assert_int_eq(memcmp(before, many, sizeof many), 0);
    fr.fail = 0;
    fr.remote[COUNT] = 1.0f;
    ck_assert_int_eq(mf_fp8_delayed_update_many(many, COUNT), MF_E_REDUCE);
    ck_assert_int_eq(memcmp(before, many, sizeof many), 0);
    /* states with different hooks: refused before any exchange */
    fr.calls = 0;
    many[4].cfg.reduce.ctx = &fr1;
    memcpy(before, many, sizeof many);
    ck_assert_int_eq(mf_fp8_delayed_update_many(many, COUNT), MF_E_ARG);
    ck_assert_int_eq(memcmp(before, many, sizeof many), 0);
    many[4].cfg.reduce.ctx = &fr;
    many[4].cfg.reduce.max = NULL;
    ck_assert_int_eq(mf_fp8_delayed_update_many(many, COUNT), MF_E_ARG);
    ck_assert_int_eq(fr.calls, 0);
    ck_assert_int_eq(mf_fp8_delayed_update_many(NULL, 2), MF_E_NULL);
    ck_assert_int_eq(mf_fp8_delayed_update_many(NULL, 0), MF_OK);
    /* no hook anywhere: one update per state */
    for (i = 0; i < COUNT; i++) {
        ref[i].cfg.reduce.max = NULL;
        ck_assert_int_eq(mf_fp8_delayed_record(&ref[i], 2.5f), MF_OK);
        one[i] = ref[i];
        ck_assert_int_eq(mf_fp8_delayed_update(&one[i]), MF_OK);
    }
    ck_assert_int_eq(mf_fp8_delayed_update_many(ref, COUNT), MF_OK);
    for (i = 0; i < COUNT; i++)
        ck_assert(same_state(&ref[i], &one[i]));
}
END_TEST

/* ---- current scaling ----------------------------------------------------------------------------------- */

START_TEST(test_current_reduced)
{
    enum { N = 300 };
    float mine[N], all[2 * N], amax = -1, scale = -1, scale_inv = -1, a2, s2, si2;
    uint8_t q[N], want[2 * N];
    fake_ranks fr;
    mf_reduce_hook h;
    int i, f;
    for (f = 0; f < 2; f++) {
        mf_format fmt = f ? MF_FP8_E5M2 : MF_FP8_E4M3;
        memset(&fr, 0, sizeof fr);
        h = hook_of(&fr);
        for (i = 0; i < N; i++) {
            mine[i] = (float)((int)(rnd32() % 2001) - 1000) * 0.01f;
            all[i] = mine[i];
            all[N + i] = (float)((int)(rnd32() % 2001) - 1000) * 0.3f; /* the other rank: larger */
        }
        /* the other rank's amax, as the hook would bring it */
        ck_assert_int_eq(mf_amax(MF_FP32, all + N, N, &fr.remote[0]), MF_OK);
        ck_assert_int_eq(
            mf_fp8_quantize_current_reduced(fmt, q, MF_FP32, mine, N, 0, 0.0f, &h, &amax, &scale, &scale_inv), MF_OK);
        ck_assert_int_eq(fr.calls, 1);
        ck_assert_uint_eq(fr.last_n, 2);
        /* = current scaling of the whole (both ranks') tensor, first half */
        ck_assert_int_eq(mf_fp8_quantize_current(fmt, want, MF_FP32, all, 2 * N, 0, 0.0f, &a2, &s2, &si2), MF_OK);
        ck_assert_uint_eq(mf_test_f32_bits(amax), mf_test_f32_bits(a2));
        ck_assert_uint_eq(mf_test_f32_bits(scale), mf_test_f32_bits(s2));
        ck_assert_uint_eq(mf_test_f32_bits(scale_inv), mf_test_f32_bits(si2));
        ck_assert_int_eq(memcmp(q, want, N), 0);
        /* no hook, or a hook without max: mf_fp8_quantize_current itself */
        h.max = NULL;
        ck_assert_int_eq(mf_fp8_quantize_current_reduced(fmt, q, MF_FP32, mine, N, 1, 0.0f, &h, &amax, &scale, NULL),
                         MF_OK);
        ck_assert_int_eq(mf_fp8_quantize_current(fmt, want, MF_FP32, mine, N, 1, 0.0f, &a2, &s2, NULL), MF_OK);
        ck_assert_int_eq(memcmp(q, want, N), 0);
        ck_assert_uint_eq(mf_test_f32_bits(scale), mf_test_f32_bits(s2));
        ck_assert_int_eq(mf_fp8_quantize_current_reduced(fmt, q, MF_FP32, mine, N, 0, 0.0f, NULL, &amax, &scale, NULL),
                         MF_OK);
        ck_assert_int_eq(fr.calls, 1);
    }
}
END_TEST

/* A rank whose arguments fail still joins the exchange (status 1) and returns its own code; a rank that
 * hears of a failure returns MF_E_REDUCE; nothing is written either way. */
START_TEST(test_current_reduced_failures)
{
    float x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, amax = -1, scale = -1, scale_inv = -1;
    uint8_t q[8];
    fake_ranks fr;
    mf_reduce_hook h;
    int k;
    memset(&fr, 0, sizeof fr);
    h = hook_of(&fr);
    ck_assert_int_eq(
        mf_fp8_quantize_current_reduced(MF_FP8_E4M3, NULL, MF_FP32, x, 8, 0, 0.0f, &h, &amax, &scale, &scale_inv),
        MF_E_NULL);
    ck_assert_int_eq(fr.calls, 1);
    ck_assert_float_eq(fr.seen[1], 1.0f);
    ck_assert_int_eq(mf_fp8_quantize_current_reduced(MF_FP16, q, MF_FP32, x, 8, 0, 0.0f, &h, &amax, &scale, &scale_inv),
                     MF_E_FORMAT);
    ck_assert_int_eq(
        mf_fp8_quantize_current_reduced(MF_FP8_E4M3, q, MF_FP32, x, 8, 0, -1.0f, &h, &amax, &scale, &scale_inv),
        MF_E_ARG);
    ck_assert_int_eq(
        mf_fp8_quantize_current_reduced(MF_FP8_E4M3, q, MF_FP32, q, 2, 0, 0.0f, &h, &amax, &scale, &scale_inv),
        MF_E_OVERLAP);
    ck_assert_int_eq(fr.calls, 4);
    ck_assert_float_eq(amax, -1.0f);
    ck_assert_float_eq(scale, -1.0f);
    for (k = 0; k < 2; k++) {
        memset(&fr, 0, sizeof fr);
        memset(q, 0xA5, sizeof q);
        if (k == 0)
            fr.fail = 1;
        else
            fr.remote[1] = 1.0f;
        ck_assert_int_eq(
            mf_fp8_quantize_current_reduced(MF_FP8_E4M3, q, MF_FP32, x, 8, 0, 0.0f, &h, &amax, &scale, &scale_inv),
            MF_E_REDUCE);
        ck_assert_int_eq(fr.calls, 1);
        ck_assert_float_eq(fr.seen[1], 0.0f);
        for (int i = 0; i < 8; i++)
            ck_assert_uint_eq(q[i], 0xA5);
        ck_assert_float_eq(amax, -1.0f);
        ck_assert_float_eq(scale, -1.0f);
        ck_assert_float_eq(scale_inv, -1.0f);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("reduce_hook");
    TCase *tc = tcase_create("reduce_hook");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_scaler_follows_every_rank);
    tcase_add_test(tc, test_scaler_without_hook_is_local);
    tcase_add_test(tc, test_scaler_failures);
    tcase_add_test(tc, test_delayed_follows_every_rank);
    tcase_add_test(tc, test_delayed_failures);
    tcase_add_test(tc, test_delayed_update_many);
    tcase_add_test(tc, test_current_reduced);
    tcase_add_test(tc, test_current_reduced_failures);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return mf_run_suite(suite()); }
