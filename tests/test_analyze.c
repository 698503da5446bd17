/* SPDX-License-Identifier: MIT */
/* tests/test_analyze.c - mf_analyze against element-by-element references (unit tier).
 *
 * References, written here and sharing no code with src/lab/analyze.c:
 *   decoding     f16 by ldexp on its fields, bf16 by a 16-bit shift into a float, f32 by C's widening;
 *   scaling      x * scale as a C binary64 product (this process's default environment);
 *   counts       mf_from_f64_ev on the scaled value, classified here from its events and from the
 *                decoded result (mf_to_f64) compared with mf_format_describe's max;
 *   errors       |y - s| and |y - s| / |s| in long double, mean and RMS in a second pass;
 *   histogram    frexp of |s|;
 *   safe scales  brute force: the whole tensor times 2^k (ldexp) through mf_from_f64_ev at k and at the
 *                neighbouring k, overflow/underflow must disappear and appear;
 *   landmarks    frexp of mf_format_describe's values;
 *   bulk stats   mf_convert's counters (the SIMD backends) for the same data at scale 1.
 * Hand-checked cases state their expectations as literals with the reasoning beside them.
 */
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mf_test.h"
#include <minifloat/lab.h>

#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>

/* the policies mf_analyze takes: IEEE and SATURATE (MF_OVERFLOW_PROPAGATE is the conversions' alone) */
#define ANALYZE_POLICIES 2
#define HAVE_MXCSR 1
#endif

/* C11 names; C99 spells them as literals */
#define DBL_TRUE_MIN_ 0x1p-1074
#define FLT_TRUE_MIN_ 0x1p-149f

static const mf_format SRC[4] = {MF_FP32, MF_FP64, MF_FP16, MF_BF16};
static const mf_format DST[9] = {MF_FP32,     MF_FP16,     MF_BF16,     MF_FP8_E4M3, MF_FP8_E5M2,
                                 MF_FP6_E2M3, MF_FP6_E3M2, MF_FP4_E2M1, MF_E8M0};

/* ---- helpers -------------------------------------------------------------------------------- */

static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint64_t rnd64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static double rnd_unit(void) { return (double)(rnd64() >> 11) * (1.0 / 9007199254740992.0); }

static double f16_value(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 31 ? (m ? NAN : INFINITY) : e == 0 ? ldexp(m, -24) : ldexp(1024 + m, e - 25);
    return (h >> 15) ? -v : v;
}
static double bf16_value(uint16_t h) { return mf_test_bits_f32((uint32_t)h << 16); }

/* A tensor: the stored array in its source format and its values decoded here. */
typedef struct {
    mf_format src;
    size_t n;
    unsigned char *data;
    double *x;
} tensor;

static void tensor_build(tensor *t, mf_format src, const double *v, size_t n)
{
    size_t i, w = src == MF_FP64 ? 8 : src == MF_FP32 ? 4 : 2;
    t->src = src;
    t->n = n;
    t->data = malloc(n * w + 1);
    t->x = malloc((n + 1) * sizeof(double));
    for (i = 0; i < n; i++) {
        if (src == MF_FP64) {
            memcpy(t->data + 8 * i, &v[i], 8);
            t->x[i] = v[i];
        } else if (src == MF_FP32) {
            float f = (float)v[i];
            memcpy(t->data + 4 * i, &f, 4);
            t->x[i] = f;
        } else { /* input generation only: the library's rn conversion makes the codes */
            uint16_t h = (uint16_t)mf_from_f64(src, v[i], MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0);
            memcpy(t->data + 2 * i, &h, 2);
            t->x[i] = src == MF_FP16 ? f16_value(h) : bf16_value(h);
        }
    }
}

static void tensor_free(tensor *t)
{
    free(t->data);
    free(t->x);
}

/* ---- the reference -------------------------------------------------------------------------- */

typedef struct {
    mf_analyze_report r;           /* counts, amax/amin, hist */
    long double *ae, *re;          /* the errors, for the two-pass statistics */
    long double amean, arms, rmean, rrms, amx, rmx;
} ref_t;

static double eff_scale(const mf_analyze_opts *o) { return o->scale == 0 ? 1.0 : o->scale; }

static uint32_t rbits_of(mf_format fmt, const mf_analyze_opts *o, size_t i)
{
    return o->round == MF_ROUND_STOCHASTIC ? mf_sr_rbits(o->seed, o->sr_offset + i, mf_sr_width(fmt)) : 0u;
}

static void reference(mf_format fmt, const tensor *t, const mf_analyze_opts *o, ref_t *ref)
{
    mf_format_desc d;
    double scale = eff_scale(o);
    size_t i, na = 0, nr = 0;
    long double sum, ss;
    memset(&ref->r, 0, sizeof ref->r);
    mf_format_describe(fmt, &d);
    ref->ae = malloc((t->n + 1) * sizeof(long double));
    ref->re = malloc((t->n + 1) * sizeof(long double));
    for (i = 0; i < t->n; i++) {
        double x = t->x[i], s = x * scale, y;
        unsigned ev = 0;
        uint32_t code = mf_from_f64_ev(fmt, s, o->round, o->overflow, rbits_of(fmt, o, i), &ev);
        int fin = isfinite(x), s_inf = fin && isinf(s), s_zero = fin && x != 0 && s == 0, ovf;
        y = mf_to_f64(fmt, code);
        ovf = (ev & MF_EVENT_OVERFLOW) || s_inf;
        ref->r.in_nan += isnan(x);
        ref->r.in_inf += isinf(x) != 0;
        ref->r.in_zero += x == 0;
        ref->r.overflow += ovf;
        ref->r.saturated += ovf && fabs(y) == d.max;
        ref->r.to_inf += fin && isinf(y);
        ref->r.to_nan += !isnan(x) && isnan(y);
        ref->r.underflow += (ev & MF_EVENT_UNDERFLOW) || (s_zero && y == 0);
        ref->r.subnormal += (ev & MF_EVENT_SUBNORMAL) != 0;
        ref->r.inexact += (ev & MF_EVENT_INEXACT) || s_inf || s_zero;
        if (fin && x != 0) {
            int e2;
            long b;
            if (fabs(x) > ref->r.amax)
                ref->r.amax = fabs(x);
            if (ref->r.amin == 0 || fabs(x) < ref->r.amin)
                ref->r.amin = fabs(x);
            if (s == 0)
                b = 0;
            else if (isinf(s))
                b = MF_ANALYZE_HIST_BINS - 1;
            else {
                frexp(fabs(s), &e2);
                b = (long)e2 - 1 - MF_ANALYZE_HIST_MIN;
                b = b < 0 ? 0 : b >= MF_ANALYZE_HIST_BINS ? MF_ANALYZE_HIST_BINS - 1 : b;
            }
            ref->r.hist[b]++;
        }
        if (fin && isfinite(s) && isfinite(y) && !(ovf && fabs(y) == d.max)) {
            long double e = fabsl((long double)y - (long double)s);
            ref->ae[na++] = e;
            if (s != 0) { /* the quotient is rounded to binary64: past DBL_MAX it is inf */
                long double q = e / fabsl((long double)s);
                ref->re[nr++] = q > DBL_MAX ? (long double)INFINITY : q;
            }
        }
    }
    ref->r.err_count = na;
    ref->r.rel_count = nr;
    /* two passes: the mean, then the mean square */
    ref->amx = ref->rmx = 0;
    for (sum = 0, i = 0; i < na; i++) {
        sum += ref->ae[i];
        if (ref->ae[i] > ref->amx)
            ref->amx = ref->ae[i];
    }
    ref->amean = na ? sum / na : 0;
    for (ss = 0, i = 0; i < na; i++)
        ss += ref->ae[i] * ref->ae[i];
    ref->arms = na ? sqrtl(ss / na) : 0;
    for (sum = 0, i = 0; i < nr; i++) {
        sum += ref->re[i];
        if (ref->re[i] > ref->rmx)
            ref->rmx = ref->re[i];
    }
    ref->rmean = nr ? sum / nr : 0;
    for (ss = 0, i = 0; i < nr; i++)
        ss += ref->re[i] * ref->re[i];
    ref->rrms = nr ? sqrtl(ss / nr) : 0;
    free(ref->ae);
    free(ref->re);
}

/* |got - want| within rel * |want| plus a few binary64 subnormal steps (a mean of subnormal errors
 * keeps only the bits binary64 has there). */
static int close_to(double got, long double want, double rel)
{
    long double d;
    if (isinf(want))
        return isinf(got);
    d = fabsl((long double)got - want);
    return d <= rel * fabsl(want) + 4 * DBL_TRUE_MIN_;
}

/* ---- brute-force safe scales ---------------------------------------------------------------- */

static int any_event_at(mf_format fmt, const tensor *t, const mf_analyze_opts *o, int k, unsigned which)
{
    size_t i;
    for (i = 0; i < t->n; i++) {
        double x = t->x[i];
        unsigned ev = 0;
        if (!isfinite(x) || x == 0)
            continue;
        (void)mf_from_f64_ev(fmt, ldexp(x, k), o->round, o->overflow, rbits_of(fmt, o, i), &ev);
        if (ev & which)
            return 1;
    }
    return 0;
}

/* Is every nonzero finite |x| 2^k at least the smallest positive value? */
static int all_reach_min_at(const tensor *t, double min_pos, int k)
{
    size_t i;
    for (i = 0; i < t->n; i++)
        if (isfinite(t->x[i]) && t->x[i] != 0 && fabs(ldexp(t->x[i], k)) < min_pos)
            return 0;
    return 1;
}

/* ---- one comparison ------------------------------------------------------------------------- */

static long n_compared, n_scale_checked, n_unbounded;

static void check_one(mf_format fmt, const tensor *t, const mf_analyze_opts *o, const char *what)
{
    mf_analyze_report got;
    ref_t ref;
    mf_format_desc d;
    char ctx[200];
    int rc, b, e2, has_pos = 0, has_neg = 0, expect_unbounded;
    size_t i;
    const double tol = 1e-13;

    snprintf(ctx, sizeof ctx, "%s: %s <- %s, %s %s scale %g seed %llu off %llu n %zu", what, mf_format_name(fmt),
             mf_format_name(t->src), mf_round_name(o->round), mf_overflow_name(o->overflow), o->scale,
             (unsigned long long)o->seed, (unsigned long long)o->sr_offset, t->n);
    memset(&got, 0xA5, sizeof got);
    rc = mf_analyze(fmt, t->data, t->n, o, &got);
    MF_EXPECT(rc == MF_OK, "%s: rc %d", ctx, rc);
    reference(fmt, t, o, &ref);
    mf_format_describe(fmt, &d);

    MF_EXPECT(got.format == fmt && got.n == t->n && got.scale == eff_scale(o), "%s: header", ctx);
#define EQ(f) MF_EXPECT(got.f == ref.r.f, "%s: " #f " %llu, reference %llu", ctx, (unsigned long long)got.f, \
                        (unsigned long long)ref.r.f)
    EQ(in_zero);
    EQ(in_nan);
    EQ(in_inf);
    EQ(overflow);
    EQ(saturated);
    EQ(to_inf);
    EQ(to_nan);
    EQ(underflow);
    EQ(subnormal);
    EQ(inexact);
    EQ(err_count);
    EQ(rel_count);
#undef EQ
    MF_EXPECT(got.amax == ref.r.amax && got.amin == ref.r.amin, "%s: amax %a amin %a, reference %a %a", ctx,
              got.amax, got.amin, ref.r.amax, ref.r.amin);
    for (b = 0; b < MF_ANALYZE_HIST_BINS; b++)
        MF_EXPECT(got.hist[b] == ref.r.hist[b], "%s: hist[%d] (2^%d) %llu, reference %llu", ctx, b,
                  b + MF_ANALYZE_HIST_MIN, (unsigned long long)got.hist[b], (unsigned long long)ref.r.hist[b]);
    MF_EXPECT(close_to(got.abs_err_max, ref.amx, 0x1p-52) && close_to(got.rel_err_max, ref.rmx, 0x1p-52),
              "%s: max errors %a %a, reference %La %La", ctx, got.abs_err_max, got.rel_err_max, ref.amx, ref.rmx);
    MF_EXPECT(close_to(got.abs_err_mean, ref.amean, tol) && close_to(got.abs_err_rms, ref.arms, tol),
              "%s: abs mean %a rms %a, reference %La %La", ctx, got.abs_err_mean, got.abs_err_rms, ref.amean,
              ref.arms);
    MF_EXPECT(close_to(got.rel_err_mean, ref.rmean, tol) && close_to(got.rel_err_rms, ref.rrms, tol),
              "%s: rel mean %a rms %a, reference %La %La", ctx, got.rel_err_mean, got.rel_err_rms, ref.rmean,
              ref.rrms);

    frexp(d.min_subnormal, &e2);
    MF_EXPECT(got.fmt_min_subnormal_log2 == e2 - 1, "%s: min subnormal log2 %d", ctx, got.fmt_min_subnormal_log2);
    frexp(d.min_normal, &e2);
    MF_EXPECT(got.fmt_min_normal_log2 == e2 - 1, "%s: min normal log2 %d", ctx, got.fmt_min_normal_log2);
    frexp(d.max, &e2);
    MF_EXPECT(got.fmt_max_log2 == e2 - 1, "%s: max log2 %d", ctx, got.fmt_max_log2);

    /* safe scales */
    for (i = 0; i < t->n; i++) {
        has_pos += isfinite(t->x[i]) && t->x[i] > 0;
        has_neg += isfinite(t->x[i]) && t->x[i] < 0;
    }
    if (!has_pos && !has_neg) {
        MF_EXPECT(got.scale_up_log2 == 0 && got.scale_down_log2 == 0 && got.scale_down_unbounded == 0,
                  "%s: no finite nonzero element, scales %d %d %d", ctx, got.scale_up_log2, got.scale_down_log2,
                  got.scale_down_unbounded);
    } else {
        MF_EXPECT(!any_event_at(fmt, t, o, got.scale_up_log2, MF_EVENT_OVERFLOW),
                  "%s: overflow at scale_up_log2 = %d", ctx, got.scale_up_log2);
        MF_EXPECT(any_event_at(fmt, t, o, got.scale_up_log2 + 1, MF_EVENT_OVERFLOW),
                  "%s: no overflow at scale_up_log2 + 1 = %d", ctx, got.scale_up_log2 + 1);
        /* nothing ever underflows: e8m0 (no zero), ro, ru with no negative, rd with no positive */
        expect_unbounded = fmt == MF_E8M0 || o->round == MF_ROUND_ODD || (o->round == MF_ROUND_UP && !has_neg) ||
                           (o->round == MF_ROUND_DOWN && !has_pos);
        MF_EXPECT(got.scale_down_unbounded == expect_unbounded, "%s: unbounded %d", ctx, got.scale_down_unbounded);
        if (expect_unbounded) {
            n_unbounded++;
            MF_EXPECT(!any_event_at(fmt, t, o, got.scale_down_log2 - 1, MF_EVENT_UNDERFLOW) &&
                          !any_event_at(fmt, t, o, got.scale_down_log2 - 30, MF_EVENT_UNDERFLOW),
                      "%s: underflow below an unbounded scale_down_log2 = %d", ctx, got.scale_down_log2);
            MF_EXPECT(all_reach_min_at(t, d.min_subnormal, got.scale_down_log2) &&
                          !all_reach_min_at(t, d.min_subnormal, got.scale_down_log2 - 1),
                      "%s: fallback scale_down_log2 = %d", ctx, got.scale_down_log2);
        } else {
            MF_EXPECT(!any_event_at(fmt, t, o, got.scale_down_log2, MF_EVENT_UNDERFLOW),
                      "%s: underflow at scale_down_log2 = %d", ctx, got.scale_down_log2);
            MF_EXPECT(any_event_at(fmt, t, o, got.scale_down_log2 - 1, MF_EVENT_UNDERFLOW),
                      "%s: no underflow at scale_down_log2 - 1 = %d", ctx, got.scale_down_log2 - 1);
        }
        n_scale_checked++;
    }
    n_compared++;
}

/* Check runs each test in its own process: each prints its own counts. */
static void summary(const char *what)
{
    printf("%s: %ld reports compared, %ld with brute-forced safe scales (%ld unbounded)\n", what, n_compared,
           n_scale_checked, n_unbounded);
    fflush(stdout);
    n_compared = n_scale_checked = n_unbounded = 0;
}

/* ---- tensors -------------------------------------------------------------------------------- */

/* Values at and around fmt's landmarks (divided by scale, so that the scaled values hit them), the
 * special values, and binary32/binary64 extremes. */
static size_t adversarial(mf_format fmt, double scale, double *v)
{
    mf_format_desc d;
    double ulp, base[24];
    size_t nb = 0, n = 0, i;
    mf_format_describe(fmt, &d);
    ulp = d.max * d.epsilon;
    if (d.man_bits) { /* the max's own ulp: max = (2 - 2^-m') 2^E has ulp 2^(E - m) */
        int e2;
        frexp(d.max, &e2);
        ulp = ldexp(1.0, e2 - 1 - d.man_bits);
    }
    base[nb++] = d.max;
    base[nb++] = d.max + ulp / 2; /* the rn/rna overflow threshold */
    base[nb++] = d.max + ulp;     /* rz's */
    base[nb++] = d.max + ulp / 4;
    base[nb++] = d.max * 2;
    base[nb++] = d.min_subnormal;
    base[nb++] = d.min_subnormal / 2; /* rn ties to zero, rna away */
    base[nb++] = d.min_subnormal * 0.75;
    base[nb++] = d.min_subnormal / 4;
    base[nb++] = d.min_normal;
    base[nb++] = d.min_normal - d.min_subnormal / 2;
    base[nb++] = 1.0;
    base[nb++] = 1.0 + d.epsilon / 2;
    for (i = 0; i < nb; i++) {
        double b = base[i] / scale;
        v[n++] = b;
        v[n++] = -b;
        v[n++] = nextafter(b, INFINITY);
        v[n++] = nextafter(b, 0);
        v[n++] = -nextafter(b, INFINITY);
        v[n++] = (double)nextafterf((float)b, INFINITY);
        v[n++] = (double)nextafterf((float)b, 0);
    }
    v[n++] = 0.0;
    v[n++] = -0.0;
    v[n++] = NAN;
    v[n++] = -NAN;
    v[n++] = INFINITY;
    v[n++] = -INFINITY;
    v[n++] = FLT_MAX;
    v[n++] = -FLT_TRUE_MIN_;
    v[n++] = FLT_MIN;
    v[n++] = 65504.0;
    v[n++] = 65520.0;
    v[n++] = 6e-8;
    v[n++] = 1e300;
    v[n++] = -1e-300;
    v[n++] = DBL_TRUE_MIN_;
    return n;
}

/* Log-uniform magnitudes over 2^-40 .. 2^40 times a random mantissa, random signs, a few zeros. */
static size_t random_values(double *v, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        double m = 1.0 + rnd_unit();
        int e = (int)(rnd64() % 81) - 40;
        v[i] = ldexp(m, e) * ((rnd64() & 1) ? -1.0 : 1.0);
        if (rnd64() % 64 == 0)
            v[i] = 0;
    }
    return n;
}

/* ---- tests ---------------------------------------------------------------------------------- */

#define NRAND 1500
static const double SCALES[] = {0.0, 1.0, 0x1p-7, 0x1p13, 3.0, 0.1};
#define NSCALES (sizeof SCALES / sizeof SCALES[0])

/* Every target, mode, policy, source format and scale, on adversarial plus random data. */
START_TEST(test_all_combinations)
{
    static double v[NRAND + 256];
    size_t fi, si, sc, nv;
    int r, p;
    long before = n_compared;
    for (fi = 0; fi < 9; fi++)
        for (sc = 0; sc < NSCALES; sc++) {
            double scale = SCALES[sc] == 0 ? 1.0 : SCALES[sc];
            nv = adversarial(DST[fi], scale, v);
            nv += random_values(v + nv, NRAND);
            for (si = 0; si < 4; si++) {
                tensor t;
                tensor_build(&t, SRC[si], v, nv);
                for (r = 0; r < MF_ROUND_COUNT; r++)
                    for (p = 0; p < ANALYZE_POLICIES; p++) {
                        mf_analyze_opts o;
                        memset(&o, 0, sizeof o);
                        o.src_format = SRC[si];
                        o.round = (mf_round)r;
                        o.overflow = (mf_overflow)p;
                        o.scale = SCALES[sc];
                        o.seed = rnd64();
                        o.sr_offset = rnd64() >> 8;
                        check_one(DST[fi], &t, &o, "all");
                    }
                tensor_free(&t);
            }
        }
    ck_assert_int_eq(n_compared - before, 9 * NSCALES * 4 * MF_ROUND_COUNT * ANALYZE_POLICIES);
    summary("all combinations");
}
END_TEST

/* Positive-only and negative-only data (ru / rd keep them from zero), data without finite nonzero
 * elements, one-element tensors, and f64 data whose scaled value leaves binary64's range. */
START_TEST(test_special_tensors)
{
    static const double pos[] = {1.0, 3.0, 0x1p-30, 1234.5, 0x1.fffp-20};
    static const double neg[] = {-1.0, -3.0, -0x1p-30, -1234.5, -0x1.fffp-20};
    static const double empty[] = {0.0, -0.0, NAN, INFINITY, -INFINITY};
    static const double casualties[] = {1e300, -1e300, 1e-300, -1e-300, 1.0, 0x1p-1074, 1e200};
    static const double casualty_scales[] = {1e10, 1e-30, 0x1p-1000, 0x1p900, 1e-310 /* subnormal */, 0x1.8p1023};
    const double *sets[] = {pos, neg, empty, pos + 2, neg + 3};
    const size_t lens[] = {5, 5, 5, 1, 1};
    size_t fi, si, k, c;
    int r, p;
    long before = n_compared;
    for (k = 0; k < 5; k++)
        for (si = 0; si < 4; si++) {
            tensor t;
            tensor_build(&t, SRC[si], sets[k], lens[k]);
            for (fi = 0; fi < 9; fi++)
                for (r = 0; r < MF_ROUND_COUNT; r++)
                    for (p = 0; p < ANALYZE_POLICIES; p++) {
                        mf_analyze_opts o;
                        memset(&o, 0, sizeof o);
                        o.src_format = SRC[si];
                        o.round = (mf_round)r;
                        o.overflow = (mf_overflow)p;
                        o.seed = 7;
                        check_one(DST[fi], &t, &o, "special");
                    }
            tensor_free(&t);
        }
    for (c = 0; c < 6; c++) {
        tensor t;
        tensor_build(&t, MF_FP64, casualties, 7);
        for (fi = 0; fi < 9; fi++)
            for (r = 0; r < MF_ROUND_COUNT; r++)
                for (p = 0; p < ANALYZE_POLICIES; p++) {
                    mf_analyze_opts o;
                    memset(&o, 0, sizeof o);
                    o.src_format = MF_FP64;
                    o.round = (mf_round)r;
                    o.overflow = (mf_overflow)p;
                    o.scale = casualty_scales[c];
                    check_one(DST[fi], &t, &o, "casualty");
                }
        tensor_free(&t);
    }
    ck_assert_int_eq(n_compared - before, (5 * 4 + 6) * 9 * MF_ROUND_COUNT * ANALYZE_POLICIES);
    summary("special tensors");
}
END_TEST

/* Stochastic rounding: many seeds and offsets on data crowded at the thresholds, where the random
 * bits decide overflow and underflow element by element. */
START_TEST(test_stochastic_thresholds)
{
    static double v[4096];
    size_t fi, i, j;
    long before = n_compared;
    for (fi = 0; fi < 9; fi++) {
        mf_format_desc d;
        mf_format_describe(DST[fi], &d);
        for (j = 0; j < 8; j++) {
            tensor t;
            mf_analyze_opts o;
            for (i = 0; i < 600; i++) { /* just above max, and between 0 and the min subnormal */
                double u = rnd_unit();
                v[i] = (i & 1) ? d.max * (1 + u * d.epsilon) : d.min_subnormal * ldexp(u, -(int)(rnd64() % 36));
                if (i % 3 == 0)
                    v[i] = -v[i];
            }
            tensor_build(&t, j & 1 ? MF_FP64 : MF_FP32, v, 600);
            memset(&o, 0, sizeof o);
            o.src_format = t.src;
            o.round = MF_ROUND_STOCHASTIC;
            o.overflow = (mf_overflow)(j & 1);
            o.seed = rnd64();
            o.sr_offset = j * 1000003u;
            check_one(DST[fi], &t, &o, "sr");
            tensor_free(&t);
        }
    }
    ck_assert_int_eq(n_compared - before, 9 * 8);
    summary("stochastic thresholds");
}
END_TEST

/* Stochastic rounding keeps a tiny value nonzero only when its random bits are close to 2^32: an
 * element whose w random bits (mf_sr_width) are all ones still rounds up from 1.5 * 2^-w of the min
 * subnormal, w binades below it (for f32's 32 bits, bits >= 2^32 - 2^8 reach 24 binades down). Find
 * such a stream index for each width and put a tiny element there, so that the safe scale_down
 * reaches that deep. */
START_TEST(test_stochastic_deep_underflow)
{
    const uint64_t seed = 0x5EED;
    int fi, cases = 0;
    for (fi = 0; fi < 9; fi++) {
        const unsigned w = mf_sr_width(DST[fi]);
        const uint32_t lucky = w == 32 ? 0xFFFFFF00u : (uint32_t)(0xFFFFFFFFu << (32 - w));
        mf_format_desc d;
        double v[64];
        uint64_t idx;
        int j;
        tensor t;
        mf_analyze_opts o;
        if (DST[fi] == MF_E8M0)
            continue; /* nothing underflows */
        for (idx = 0; idx < ((uint64_t)1 << 28) && mf_sr_rbits(seed, idx, w) < lucky; idx++)
            ;
        ck_assert_uint_ge(mf_sr_rbits(seed, idx, w), lucky);
        mf_format_describe(DST[fi], &d);
        /* element j sits at stream index idx + j: the first is the lucky one */
        for (j = 0; j < 64; j++)
            v[j] = j == 0 ? d.min_subnormal * ldexp(1.5, w == 32 ? -22 : -(int)w) : 1.0;
        tensor_build(&t, MF_FP32, v, 64);
        memset(&o, 0, sizeof o);
        o.round = MF_ROUND_STOCHASTIC;
        o.seed = seed;
        o.sr_offset = idx;
        check_one(DST[fi], &t, &o, "sr deep");
        tensor_free(&t);
        cases++;
    }
    ck_assert_int_eq(cases, 8);
    summary("stochastic deep underflow");
}
END_TEST

/* The counts agree with the bulk conversion's own counters (a different implementation: the SIMD
 * backends) at scale 1, for every pair, mode and policy, widening conversions included (both saturate an
 * infinite input when saturating, and count it as an overflow). One known difference: between equal
 * formats mf_convert is a copy that keeps infinities, while mf_analyze rounds the binary64 value as
 * mf_from_f64 does, which saturates them (an overflow, inexact). */
START_TEST(test_matches_mf_convert_stats)
{
    static double v[NRAND + 256];
    size_t fi, si, nv;
    int r, p, cases = 0;
    for (fi = 0; fi < 9; fi++) {
        nv = adversarial(DST[fi], 1.0, v);
        nv += random_values(v + nv, NRAND);
        for (si = 0; si < 4; si++) {
            tensor t;
            unsigned char *dst = malloc(nv * 8 + 8);
            const int same = SRC[si] == DST[fi];
            tensor_build(&t, SRC[si], v, nv);
            for (r = 0; r < MF_ROUND_COUNT; r++)
                for (p = 0; p < ANALYZE_POLICIES; p++) {
                    mf_analyze_opts o;
                    mf_analyze_report rep;
                    mf_stats st;
                    mf_opts co;
                    memset(&o, 0, sizeof o);
                    memset(&co, 0, sizeof co);
                    o.src_format = SRC[si];
                    o.round = co.round = (mf_round)r;
                    o.overflow = co.overflow = (mf_overflow)p;
                    o.seed = co.seed = 99;
                    o.sr_offset = co.sr_offset = 12345;
                    co.stats = &st;
                    ck_assert_int_eq(mf_analyze(DST[fi], t.data, nv, &o, &rep), MF_OK);
                    ck_assert_int_eq(mf_convert(DST[fi], dst, SRC[si], t.data, nv, &co), MF_OK);
                    if (same && o.overflow == MF_OVERFLOW_SATURATE) {
                        MF_EXPECT(rep.in_inf > 0, "no inf in the data");
                        rep.overflow -= rep.in_inf;
                        rep.inexact -= rep.in_inf;
                    }
                    MF_EXPECT(rep.overflow == st.overflow && rep.underflow == st.underflow &&
                                  rep.subnormal == st.subnormal && rep.in_nan == st.nan && rep.inexact == st.inexact,
                              "%s <- %s %s %s: analyze %llu %llu %llu %llu %llu, convert %llu %llu %llu %llu %llu",
                              mf_format_name(DST[fi]), mf_format_name(SRC[si]), mf_round_name(o.round),
                              mf_overflow_name(o.overflow), (unsigned long long)rep.overflow,
                              (unsigned long long)rep.underflow, (unsigned long long)rep.subnormal,
                              (unsigned long long)rep.in_nan, (unsigned long long)rep.inexact,
                              (unsigned long long)st.overflow, (unsigned long long)st.underflow,
                              (unsigned long long)st.subnormal, (unsigned long long)st.nan,
                              (unsigned long long)st.inexact);
                    cases++;
                }
            free(dst);
            tensor_free(&t);
        }
    }
    ck_assert_int_eq(cases, 9 * 4 * MF_ROUND_COUNT * ANALYZE_POLICIES);
}
END_TEST

static mf_analyze_report run_f32(mf_format fmt, const float *x, size_t n, mf_round r, mf_overflow p)
{
    mf_analyze_opts o;
    mf_analyze_report rep;
    memset(&o, 0, sizeof o);
    o.round = r;
    o.overflow = p;
    ck_assert_int_eq(mf_analyze(fmt, x, n, &o, &rep), MF_OK);
    return rep;
}

/* Hand-checked cases: the expectations are worked out in the comments. */
START_TEST(test_hand_checked)
{
    /* f16: max 65504, ulp there 32, so rn overflows from 65520 (the tie rounds to the even 65536);
     * min subnormal 2^-24 ~ 5.96e-8: 1e-8 < 2^-25 rounds to 0, 3e-8 > 2^-25 to 2^-24 (subnormal). */
    const float f16data[] = {65504.0f, 65519.99609375f, 65520.0f, -65520.0f, 1e-8f, 3e-8f, 0.0f, -0.0f, NAN, INFINITY};
    const float one_three[] = {1.0f, 3.0f};
    const float at_max[] = {65504.0f}, at_thr[] = {65520.0f};
    /* e4m3: max 448 = 1.110b * 2^8 (even mantissa), ulp 32: 464 is a tie that rounds to 448;
     * anything above 464 overflows: NaN under IEEE, 448 saturated. */
    const float e4m3data[] = {464.0f, 464.5f, INFINITY};
    /* e2m1: max 6 = 1.1b * 2^2, ulp 2: 7 is a tie, the even neighbour is 8, so it overflows; e2m1
     * has no inf or NaN, so IEEE gives +-max too (saturated); 6.9 rounds to 6. */
    const float e2m1data[] = {7.0f, 6.9f};
    /* 1 + 2^-11 is a tie between f16 1 and 1 + 2^-10: rn gives 1, error 2^-11; 3 is exact. */
    const float errdata[] = {1.00048828125f, 3.0f};
    mf_analyze_report rep;

    rep = run_f32(MF_FP16, f16data, 10, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE);
    ck_assert_uint_eq(rep.overflow, 2);
    ck_assert_uint_eq(rep.to_inf, 2);
    ck_assert_uint_eq(rep.saturated, 0);
    ck_assert_uint_eq(rep.underflow, 1);
    ck_assert_uint_eq(rep.subnormal, 1);
    ck_assert_uint_eq(rep.in_zero, 2);
    ck_assert_uint_eq(rep.in_nan, 1);
    ck_assert_uint_eq(rep.in_inf, 1);
    ck_assert_uint_eq(rep.to_nan, 0);
    ck_assert(rep.amax == 65520.0 && rep.amin == (double)1e-8f);
    ck_assert_uint_eq(rep.err_count, 6); /* 65504, 65519.99, 1e-8, 3e-8, +0, -0 */
    /* saturating, the inf input also overflows: it does not stay inf but becomes 65504 */
    rep = run_f32(MF_FP16, f16data, 10, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE);
    ck_assert_uint_eq(rep.overflow, 3);
    ck_assert_uint_eq(rep.saturated, 3);
    ck_assert_uint_eq(rep.to_inf, 0);
    /* rz: 65520 truncates to 65504 (not an overflow); only from 65536 on */
    rep = run_f32(MF_FP16, f16data, 10, MF_ROUND_TOWARD_ZERO, MF_OVERFLOW_IEEE);
    ck_assert_uint_eq(rep.overflow, 0);

    ck_assert_int_eq(run_f32(MF_FP16, at_max, 1, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE).scale_up_log2, 0);
    ck_assert_int_eq(run_f32(MF_FP16, at_thr, 1, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE).scale_up_log2, -1);
    ck_assert_int_eq(run_f32(MF_FP16, at_thr, 1, MF_ROUND_TOWARD_ZERO, MF_OVERFLOW_IEEE).scale_up_log2, 0);

    /* {1, 3} in f16: 3 * 2^14 = 49152 fits, 3 * 2^15 = 98304 does not: up 14. 1 * 2^-25 is the
     * tie half-way to the min subnormal: rn gives 0 (even), so down is -24; rna rounds it away: -25;
     * rz: -24; ru on positive data never reaches zero: unbounded, and 2^-24 * 1 is the min subnormal. */
    rep = run_f32(MF_FP16, one_three, 2, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE);
    ck_assert_int_eq(rep.scale_up_log2, 14);
    ck_assert_int_eq(rep.scale_down_log2, -24);
    ck_assert_int_eq(rep.scale_down_unbounded, 0);
    ck_assert_int_eq(run_f32(MF_FP16, one_three, 2, MF_ROUND_NEAREST_AWAY, MF_OVERFLOW_IEEE).scale_down_log2, -25);
    ck_assert_int_eq(run_f32(MF_FP16, one_three, 2, MF_ROUND_TOWARD_ZERO, MF_OVERFLOW_IEEE).scale_down_log2, -24);
    rep = run_f32(MF_FP16, one_three, 2, MF_ROUND_UP, MF_OVERFLOW_IEEE);
    ck_assert_int_eq(rep.scale_down_unbounded, 1);
    ck_assert_int_eq(rep.scale_down_log2, -24);
    /* bf16: max (2 - 2^-7) 2^127; 3 * 2^126 = 1.5 * 2^127 fits, 3 * 2^127 not: up 126; min
     * subnormal 2^-133, 2^-134 is the tie to 0: down -133. */
    rep = run_f32(MF_BF16, one_three, 2, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE);
    ck_assert_int_eq(rep.scale_up_log2, 126);
    ck_assert_int_eq(rep.scale_down_log2, -133);
    /* e8m0 rn: 1.5 * 2^k is a tie between powers of two that goes up (the "mantissa" is the implicit
     * bit, odd), so 3 * 2^126 = 1.5 * 2^127 becomes 2^128 and overflows; 3 * 2^125 -> 2^127 fits:
     * up 125. No zero: unbounded, 1 * 2^-127 is the smallest value. */
    rep = run_f32(MF_E8M0, one_three, 2, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE);
    ck_assert_int_eq(rep.scale_up_log2, 125);
    ck_assert_int_eq(rep.scale_down_unbounded, 1);
    ck_assert_int_eq(rep.scale_down_log2, -127);
    ck_assert_int_eq(rep.fmt_min_subnormal_log2, -127);
    ck_assert_int_eq(rep.fmt_min_normal_log2, -127);
    ck_assert_int_eq(rep.fmt_max_log2, 127);

    rep = run_f32(MF_FP8_E4M3, e4m3data, 3, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE);
    ck_assert_uint_eq(rep.overflow, 2); /* 464.5 and the inf */
    ck_assert_uint_eq(rep.to_nan, 2);
    ck_assert_uint_eq(rep.to_inf, 0);
    rep = run_f32(MF_FP8_E4M3, e4m3data, 3, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE);
    ck_assert_uint_eq(rep.saturated, 2);
    ck_assert_uint_eq(rep.to_nan, 0);
    ck_assert_int_eq(rep.fmt_max_log2, 8);
    ck_assert_int_eq(rep.fmt_min_subnormal_log2, -9);
    ck_assert_int_eq(rep.fmt_min_normal_log2, -6);
    rep = run_f32(MF_FP4_E2M1, e2m1data, 2, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE);
    ck_assert_uint_eq(rep.overflow, 1);
    ck_assert_uint_eq(rep.saturated, 1);
    ck_assert_uint_eq(rep.err_count, 1); /* the saturated 7 is left out */
    ck_assert(rep.abs_err_max == 0.9000000953674316); /* 6.9f = 6.900000095367431640625 -> 6 */

    rep = run_f32(MF_FP16, errdata, 2, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE);
    ck_assert_uint_eq(rep.err_count, 2);
    ck_assert_uint_eq(rep.inexact, 1);
    ck_assert(rep.abs_err_max == 0x1p-11);
    ck_assert(rep.abs_err_mean == 0x1p-12);
    ck_assert(fabs(rep.abs_err_rms - 0x1p-11 / sqrt(2.0)) <= 0x1p-63);
    ck_assert(rep.rel_err_max == 0x1p-11 / 1.00048828125);
    /* histogram: 1.00048828125 in bin 0 - MIN, 3 in bin 1 - MIN */
    ck_assert_uint_eq(rep.hist[0 - MF_ANALYZE_HIST_MIN], 1);
    ck_assert_uint_eq(rep.hist[1 - MF_ANALYZE_HIST_MIN], 1);
}
END_TEST

/* Bad arguments give their code and leave the report untouched; n = 0 and opts = NULL. */
START_TEST(test_arguments)
{
    const float x[3] = {1.0f, 2.0f, 3.0f};
    mf_analyze_opts o;
    mf_analyze_report rep, pristine, rep2;
    const double bad_scales[] = {-1.0, -INFINITY, INFINITY, NAN, -NAN, -DBL_TRUE_MIN_};
    size_t i;
    int b;

    memset(&pristine, 0x5A, sizeof pristine);
#define BAD(expect, fmt, data, n, opts, report)                                         \
    do {                                                                                \
        rep = pristine;                                                                 \
        ck_assert_int_eq(mf_analyze(fmt, data, n, opts, report), expect);               \
        ck_assert(memcmp(&rep, &pristine, sizeof rep) == 0);                            \
    } while (0)
    memset(&o, 0, sizeof o);
    BAD(MF_E_NULL, MF_FP16, x, 3, &o, NULL);
    BAD(MF_E_NULL, MF_FP16, NULL, 3, &o, &rep);
    /* counts a caller's bug makes huge, for each source format */
    {
        static const mf_format srcs[] = {MF_FP32, MF_FP64, MF_FP16, MF_BF16};
        static const size_t huge[] = {SIZE_MAX, (size_t)(int)-100, SIZE_MAX / 2, SIZE_MAX / 8 + 1};
        size_t si, hi;
        for (si = 0; si < 4; si++)
            for (hi = 0; hi < 4; hi++) {
                o.src_format = srcs[si];
                BAD(MF_E_SIZE, MF_FP16, x, huge[hi], &o, &rep);
            }
        o.src_format = MF_FP32;
    }
    BAD(MF_E_FORMAT, MF_FP64, x, 3, &o, &rep);
    BAD(MF_E_FORMAT, (mf_format)MF_FORMAT_COUNT, x, 3, &o, &rep);
    BAD(MF_E_FORMAT, (mf_format)-1, x, 3, &o, &rep);
    o.src_format = MF_FP8_E4M3;
    BAD(MF_E_FORMAT, MF_FP16, x, 3, &o, &rep);
    o.src_format = MF_E8M0;
    BAD(MF_E_FORMAT, MF_FP16, x, 3, &o, &rep);
    o.src_format = (mf_format)77;
    BAD(MF_E_FORMAT, MF_FP16, x, 3, &o, &rep);
    o.src_format = MF_FP32;
    o.round = (mf_round)MF_ROUND_COUNT;
    BAD(MF_E_ROUND, MF_FP16, x, 3, &o, &rep);
    o.round = MF_ROUND_NEAREST_EVEN;
    o.overflow = (mf_overflow)MF_OVERFLOW_COUNT;
    BAD(MF_E_POLICY, MF_FP16, x, 3, &o, &rep);
    o.overflow = MF_OVERFLOW_PROPAGATE; /* the conversions' policy alone */
    BAD(MF_E_POLICY, MF_FP16, x, 3, &o, &rep);
    o.overflow = MF_OVERFLOW_IEEE;
    for (i = 0; i < sizeof bad_scales / sizeof bad_scales[0]; i++) {
        o.scale = bad_scales[i];
        BAD(MF_E_ARG, MF_FP16, x, 3, &o, &rep);
    }
    /* order: a format error wins over a NULL report */
    o.scale = 0;
    BAD(MF_E_FORMAT, MF_FP64, x, 3, &o, NULL);
#undef BAD

    /* -0 means 1, like 0 */
    o.scale = -0.0;
    ck_assert_int_eq(mf_analyze(MF_FP16, x, 3, &o, &rep), MF_OK);
    ck_assert(rep.scale == 1.0);

    /* n = 0, data NULL: zeros but for format, scale and landmarks */
    memset(&rep, 0x5A, sizeof rep);
    o.scale = 4.0;
    ck_assert_int_eq(mf_analyze(MF_FP8_E5M2, NULL, 0, &o, &rep), MF_OK);
    ck_assert_int_eq(rep.format, MF_FP8_E5M2);
    ck_assert(rep.n == 0 && rep.scale == 4.0);
    ck_assert_int_eq(rep.fmt_max_log2, 15);           /* 57344 = 1.75 * 2^15 */
    ck_assert_int_eq(rep.fmt_min_normal_log2, -14);   /* 2^-14 */
    ck_assert_int_eq(rep.fmt_min_subnormal_log2, -16); /* 2^-16 */
    ck_assert(rep.in_zero == 0 && rep.in_nan == 0 && rep.in_inf == 0 && rep.overflow == 0 && rep.saturated == 0 &&
              rep.to_inf == 0 && rep.to_nan == 0 && rep.underflow == 0 && rep.subnormal == 0 && rep.inexact == 0 &&
              rep.err_count == 0 && rep.rel_count == 0);
    ck_assert(rep.amax == 0 && rep.amin == 0 && rep.abs_err_max == 0 && rep.abs_err_mean == 0 &&
              rep.abs_err_rms == 0 && rep.rel_err_max == 0 && rep.rel_err_mean == 0 && rep.rel_err_rms == 0);
    ck_assert(rep.scale_up_log2 == 0 && rep.scale_down_log2 == 0 && rep.scale_down_unbounded == 0);
    for (b = 0; b < MF_ANALYZE_HIST_BINS; b++)
        ck_assert_uint_eq(rep.hist[b], 0);

    /* unaligned data: the same report */
    {
        unsigned char buf[3 * sizeof(double) + 1];
        double xd[3] = {1.0, -2.5, 1e-9};
        memcpy(buf + 1, xd, sizeof xd);
        memset(&o, 0, sizeof o);
        o.src_format = MF_FP64;
        ck_assert_int_eq(mf_analyze(MF_FP16, buf + 1, 3, &o, &rep), MF_OK);
        ck_assert_int_eq(mf_analyze(MF_FP16, xd, 3, &o, &rep2), MF_OK);
        ck_assert(memcmp(&rep, &rep2, sizeof rep) == 0);
        ck_assert_uint_eq(rep.underflow, 1);
    }

    /* opts NULL is all-zero opts */
    memset(&o, 0, sizeof o);
    ck_assert_int_eq(mf_analyze(MF_FP16, x, 3, NULL, &rep), MF_OK);
    ck_assert_int_eq(mf_analyze(MF_FP16, x, 3, &o, &rep2), MF_OK);
    ck_assert(memcmp(&rep, &rep2, sizeof rep) == 0);
}
END_TEST

/* Source decoding: every f16 and bf16 code analysed one at a time gives the amax of its value
 * (decoded here) and the in_* class. */
START_TEST(test_every_16bit_code)
{
    uint32_t c;
    int s, cases = 0;
    for (s = 0; s < 2; s++)
        for (c = 0; c < 65536; c++) {
            uint16_t h = (uint16_t)c;
            double v = s ? bf16_value(h) : f16_value(h);
            mf_analyze_opts o;
            mf_analyze_report rep;
            memset(&o, 0, sizeof o);
            o.src_format = s ? MF_BF16 : MF_FP16;
            ck_assert_int_eq(mf_analyze(MF_FP8_E4M3, &h, 1, &o, &rep), MF_OK);
            MF_EXPECT(rep.in_nan == (uint64_t)(isnan(v) != 0) && rep.in_inf == (uint64_t)(isinf(v) != 0) &&
                          rep.in_zero == (uint64_t)(v == 0),
                      "%s 0x%04x: class", s ? "bf16" : "f16", (unsigned)c);
            MF_EXPECT(!isfinite(v) || v == 0 || (rep.amax == fabs(v) && rep.amin == fabs(v)),
                      "%s 0x%04x: amax %a, value %a", s ? "bf16" : "f16", (unsigned)c, rep.amax, v);
            cases++;
        }
    ck_assert_int_eq(cases, 2 * 65536);
}
END_TEST

/* Counts, amax/amin, histogram and safe scales are integer computations: the caller's rounding mode
 * and FTZ/DAZ do not change them (x86's DAZ would turn f32 subnormal inputs into zeros if they were
 * widened by the FPU, and a non-power-of-two scale's product would round differently). */
START_TEST(test_fp_environment)
{
    static double v[NRAND + 256];
    const int modes[3] = {FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
    size_t fi, nv;
    int m, cases = 0;
    for (fi = 0; fi < 9; fi++) {
        tensor t;
        mf_analyze_opts o;
        mf_analyze_report want, got;
        nv = adversarial(DST[fi], 1.0, v);
        nv += random_values(v + nv, NRAND);
        tensor_build(&t, MF_FP32, v, nv);
        memset(&o, 0, sizeof o);
        o.scale = 0.1; /* products rounded in binary64 */
        ck_assert_int_eq(mf_analyze(DST[fi], t.data, nv, &o, &want), MF_OK);
        for (m = 0; m < 4; m++) {
#ifdef HAVE_MXCSR
            unsigned csr = _mm_getcsr();
#endif
            if (m < 3)
                ck_assert_int_eq(fesetround(modes[m]), 0);
#ifdef HAVE_MXCSR
            else
                _mm_setcsr(csr | 0x8040u); /* FTZ | DAZ */
#endif
            ck_assert_int_eq(mf_analyze(DST[fi], t.data, nv, &o, &got), MF_OK);
            fesetround(FE_TONEAREST);
#ifdef HAVE_MXCSR
            _mm_setcsr(csr);
#endif
            MF_EXPECT(got.overflow == want.overflow && got.saturated == want.saturated && got.to_inf == want.to_inf &&
                          got.to_nan == want.to_nan && got.underflow == want.underflow &&
                          got.subnormal == want.subnormal && got.inexact == want.inexact &&
                          got.in_zero == want.in_zero && got.err_count == want.err_count &&
                          got.rel_count == want.rel_count && got.amax == want.amax && got.amin == want.amin &&
                          got.scale_up_log2 == want.scale_up_log2 && got.scale_down_log2 == want.scale_down_log2 &&
                          memcmp(got.hist, want.hist, sizeof got.hist) == 0,
                      "%s: environment %d changed a count", mf_format_name(DST[fi]), m);
            cases++;
        }
        tensor_free(&t);
    }
    ck_assert_int_eq(cases, 9 * 4);
}
END_TEST

static Suite *analyze_suite(void)
{
    Suite *s = suite_create("analyze");
    TCase *tc = tcase_create("analyze");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_arguments);
    tcase_add_test(tc, test_hand_checked);
    tcase_add_test(tc, test_every_16bit_code);
    tcase_add_test(tc, test_fp_environment);
    tcase_add_test(tc, test_special_tensors);
    tcase_add_test(tc, test_stochastic_thresholds);
    tcase_add_test(tc, test_stochastic_deep_underflow);
    tcase_add_test(tc, test_matches_mf_convert_stats);
    tcase_add_test(tc, test_all_combinations);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return mf_run_suite(analyze_suite());
}
