/* SPDX-License-Identifier: MIT */
/* src/lab/analyze.c - mf_analyze: what converting a tensor into a format does to it, in one pass.
 *
 * Each element goes the way of the scalar contract: its source code is widened to binary64 bits
 * (exact), multiplied by the scale (rounded to nearest-even in binary64, in integers), then rounded
 * into the target by the one core, mf__round_pack: exactly mf_from_f64_ev without its per-call
 * argument check. Counts read that call's events; the error statistics compare the decoded result
 * with the scaled value in binary64.
 *
 * The safe power-of-two scales use one fact per element. Let E = floor(log2 |x|), Emax and Esub the
 * floor(log2) of the format's max and min subnormal. x * 2^k never overflows for k <= Emax - E - 1
 * (|x| 2^k < 2^Emax <= max) and always overflows for k >= Emax - E + 1 (|x| 2^k >= 2^(Emax+1) and even
 * truncation keeps that); so the element's largest safe k is Emax - E or one less, which one
 * conversion of x normalised to [2^Emax, 2^(Emax+1)) decides. Likewise x * 2^k never underflows for
 * k >= Esub - E, and whether it does below is monotone in k. Without stochastic rounding both
 * questions depend only on |x| and its sign, so the per-sign largest and smallest |x| settle them at
 * the end; with stochastic rounding each element's random bits matter, and the elements that can
 * move the running answer (a rare few) are checked as they come.
 */
#include <string.h>

#include "../internal.h"
#include <minifloat/analyze.h>

#define F64_SIGN 0x8000000000000000u
#define F64_ABS 0x7FFFFFFFFFFFFFFFu
#define F64_INF 0x7FF0000000000000u
#define F64_ONE 0x3FF0000000000000u

/* How far below x's own underflow-free exponent a stochastic (or any) rounding can still keep a
 * nonzero result: the rounding reads 32 bits of the discarded fraction, so 33 binades down every
 * rounding but ro and ru/rd away from zero gives zero. 40 leaves room. */
#define UNDERFLOW_SCAN 40

/* ---- exact helpers -------------------------------------------------------------------------- */

static const mf__fmt F64_FMT = {64, 52, 1023, MF__KIND_IEEE};

/* f32 bits -> f64 bits, exactly (NaN payloads are kept, which nothing here reads). */
static uint64_t f32_to_f64_bits(uint32_t b)
{
    uint64_t s = (uint64_t)(b >> 31) << 63;
    uint32_t e = (b >> 23) & 0xFFu, m = b & 0x7FFFFFu;
    if (e == 0xFFu)
        return s | F64_INF | ((uint64_t)m << 29);
    if (e == 0) {
        int lz;
        if (m == 0)
            return s;
        lz = mf__clz64(m) - 40; /* shifts the leading one to bit 23 */
        return s | ((uint64_t)(1023 - 126 - lz) << 52) | (((uint64_t)m << (29 + lz)) & 0xFFFFFFFFFFFFFu);
    }
    return s | ((uint64_t)(e + 1023 - 127) << 52) | ((uint64_t)m << 29);
}

static uint64_t f16_to_f64_bits(uint32_t b)
{
    uint64_t s = (uint64_t)((b >> 15) & 1u) << 63;
    uint32_t e = (b >> 10) & 0x1Fu, m = b & 0x3FFu;
    if (e == 0x1Fu)
        return s | F64_INF | ((uint64_t)m << 42);
    if (e == 0) {
        int lz;
        if (m == 0)
            return s;
        lz = mf__clz64(m) - 53; /* shifts the leading one to bit 10 */
        return s | ((uint64_t)(1023 - 14 - lz) << 52) | (((uint64_t)m << (42 + lz)) & 0xFFFFFFFFFFFFFu);
    }
    return s | ((uint64_t)(e + 1023 - 15) << 52) | ((uint64_t)m << 42);
}

/* 64 x 64 -> 128-bit product, portable. */
static void mul_64x64(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
    uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
    *lo = (mid << 32) | (p00 & 0xFFFFFFFFu);
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* Round sign * sig * 2^(exp - 63) (bit 63 of sig set; bit 0 may be a sticky bit) to nearest-even
 * binary64, subnormals and overflow to inf included; the core's formula with 52 mantissa bits. */
static uint64_t round_f64_rn(uint32_t sign, int32_t exp, uint64_t sig)
{
    const uint64_t half = (uint64_t)1 << 63;
    int32_t e_eff = exp < -1022 ? -1022 : exp;
    int shift = 11 + (int)(e_eff - exp);
    uint64_t kept, frac, code;
    if (shift < 64) {
        kept = sig >> shift;
        frac = sig << (64 - shift);
    } else if (shift == 64) {
        kept = 0;
        frac = sig;
    } else if (shift < 128) {
        kept = 0;
        frac = (sig >> (shift - 64)) | (uint64_t)((sig << (128 - shift)) != 0);
    } else {
        kept = 0;
        frac = 1;
    }
    if (e_eff > 1024) /* far beyond binary64: keeps the shift below from wrapping */
        return ((uint64_t)sign << 63) | F64_INF;
    code = ((uint64_t)(e_eff + 1022) << 52) + kept + (uint64_t)(frac > half || (frac == half && (kept & 1u)));
    if (code >= F64_INF)
        code = F64_INF;
    return ((uint64_t)sign << 63) | code;
}

/* x * scale in binary64 (nearest-even) for finite nonzero x and finite positive scale. */
static uint64_t mul_f64_rn(uint64_t xb, mf__unpacked sc)
{
    mf__unpacked u = mf__unpack(F64_FMT, xb);
    uint64_t hi, lo;
    int32_t e = u.exp + sc.exp;
    mul_64x64(u.sig, sc.sig, &hi, &lo); /* in [2^126, 2^128) */
    if (hi >> 63)
        e += 1;
    else {
        hi = (hi << 1) | (lo >> 63);
        lo <<= 1;
    }
    return round_f64_rn(u.sign, e, hi | (uint64_t)(lo != 0));
}

static double f64_of(uint64_t b) { return mf__f64_from_bits(b); }

/* floor(log2 |x|) of a finite nonzero binary64. */
static int32_t flog2_bits(uint64_t b)
{
    uint64_t field = (b >> 52) & 0x7FFu;
    if (field)
        return (int32_t)field - 1023;
    return 63 - mf__clz64(b & 0xFFFFFFFFFFFFFu) - 1074;
}

/* 2^k as binary64 for -1022 <= k <= 1023. */
static double pow2(int k) { return f64_of((uint64_t)(k + 1023) << 52); }

/* v * 2^k without libm (v finite; the result may underflow to 0). */
static double scale_pow2(double v, int k)
{
    while (k > 1000) {
        v *= pow2(1000);
        k -= 1000;
    }
    while (k < -1000) {
        v *= pow2(-1000);
        k += 1000;
    }
    return v * pow2(k);
}

/* Square root of v >= 0 to within an ulp, by Newton's method from an exponent-halving guess (the
 * library links no libm). */
static double sqrt_newton(double v)
{
    uint64_t b = mf__f64_bits(v);
    int32_t e, h;
    double m, r;
    int i;
    if (v <= 0)
        return 0;
    e = flog2_bits(b);
    h = e >= 0 ? e / 2 : -((1 - e) / 2); /* floor(e / 2) */
    m = scale_pow2(v, -2 * h);            /* in [1, 4) */
    r = 1.0 + (m - 1.0) / 3.0;            /* within 6% of sqrt(m) */
    for (i = 0; i < 6; i++)
        r = 0.5 * (r + m / r);
    return scale_pow2(r, h);
}

/* ---- error accumulator -------------------------------------------------------------------- */

/* Neumaier-compensated sums of e and of (e / 2^sc)^2, sc growing with the largest e seen so that
 * neither the squares of tiny errors underflow nor those of huge relative errors overflow. */
typedef struct err_acc {
    double max;
    double sum, sum_c;
    double ssq, ssq_c;
    int sc;          /* every e seen so far is <= 2^sc */
    double inv, lim; /* 2^-sc, 2^sc */
    int inf;         /* an e was inf (a relative error past DBL_MAX): mean and RMS are inf */
} err_acc;

#define ACC_SC0 (-900)

static void acc_init(err_acc *a)
{
    memset(a, 0, sizeof *a);
    a->sc = ACC_SC0;
    a->inv = pow2(-ACC_SC0);
    a->lim = pow2(ACC_SC0);
}

static inline void neumaier(double *s, double *c, double v) /* s, v >= 0 */
{
    double t = *s + v;
    if (*s >= v)
        *c += (*s - t) + v;
    else
        *c += (v - t) + *s;
    *s = t;
}

static void acc_rescale(err_acc *a, double e)
{
    int sc = flog2_bits(mf__f64_bits(e)) + 1; /* e < 2^sc */
    a->ssq = scale_pow2(a->ssq, 2 * (a->sc - sc));
    a->ssq_c = scale_pow2(a->ssq_c, 2 * (a->sc - sc));
    a->sc = sc;
    a->inv = pow2(-sc);
    a->lim = pow2(sc);
}

static inline void acc_add(err_acc *a, double e)
{
    double t;
    if (e > a->max)
        a->max = e;
    if (e > 0x1.fffffffffffffp+1023) {
        a->inf = 1;
        return;
    }
    neumaier(&a->sum, &a->sum_c, e);
    if (e > a->lim)
        acc_rescale(a, e);
    t = e * a->inv;
    neumaier(&a->ssq, &a->ssq_c, t * t);
}

static void acc_result(const err_acc *a, uint64_t count, double *max, double *mean, double *rms)
{
    if (count == 0) {
        *max = *mean = *rms = 0;
        return;
    }
    *max = a->max;
    if (a->inf) {
        *mean = *rms = a->max;
        return;
    }
    *mean = (a->sum + a->sum_c) / (double)count;
    *rms = scale_pow2(sqrt_newton((a->ssq + a->ssq_c) / (double)count), a->sc);
}

/* ---- the pass ------------------------------------------------------------------------------ */

typedef struct ctx {
    mf__fmt f;
    mf_round round;
    mf_overflow ovf;
    int sr;             /* stochastic rounding: safe scales element by element */
    int can_underflow;  /* e8m0 has no zero */
    uint64_t seed, off;
    unsigned sr_w;      /* random bits an element (mf_sr_width) */
    int scaled;         /* scale != 1 */
    mf__unpacked scale; /* the scale, unpacked */
    uint64_t max_bits;  /* +max finite of fmt as binary64 bits */
    uint64_t max_sig;   /* its significand, bit 63 set */
    int32_t emax, esub; /* floor(log2) of max and min subnormal */
    uint64_t table[256];
} ctx;

typedef struct acc {
    uint64_t in_zero, in_nan, in_inf;
    uint64_t overflow, saturated, to_inf, to_nan, underflow, subnormal, inexact;
    uint64_t err_count, rel_count;
    err_acc abs_e, rel_e;
    uint64_t maxb[2], minb[2]; /* per sign: largest and smallest nonzero finite |x| bits */
    int32_t up_k, down_k;      /* stochastic rounding: running safe scales */
    uint64_t blk_idx;          /* the Philox block cached in blk */
    int blk_ok;
    mf_philox4x32 blk;
    uint64_t hist[MF_ANALYZE_HIST_BINS];
} acc;

static unsigned events_at(const ctx *c, mf__unpacked u, uint32_t rbits)
{
    unsigned ev = 0;
    (void)mf__round_pack(c->f, u, c->round, c->ovf, rbits, &ev);
    return ev;
}

/* Largest k at which x * 2^k does not overflow (x finite nonzero, unpacked). */
static int32_t up_k_of(const ctx *c, mf__unpacked u, uint32_t rbits)
{
    int32_t ub = c->emax - u.exp;
    if (u.sig <= c->max_sig) /* normalised into max's binade it is at most max */
        return ub;
    u.exp = c->emax;
    return (events_at(c, u, rbits) & MF_EVENT_OVERFLOW) ? ub - 1 : ub;
}

/* The smallest k at which x * 2^k does not underflow, if it is above floor_k (callers pass
 * floor_k < Esub - E); otherwise INT32_MIN, which with floor_k = INT32_MIN means that x never
 * underflows. */
static int32_t down_k_of(const ctx *c, mf__unpacked u, uint32_t rbits, int32_t floor_k)
{
    int32_t ub = c->esub - u.exp, k, lo = ub - UNDERFLOW_SCAN;
    int32_t e0 = u.exp;
    if (floor_k > lo)
        lo = floor_k;
    for (k = ub - 1; k >= lo; k--) {
        u.exp = e0 + k;
        if (events_at(c, u, rbits) & MF_EVENT_UNDERFLOW)
            return k + 1;
    }
    return INT32_MIN;
}

static uint32_t sr_bits(const ctx *c, acc *a, size_t i)
{
    const unsigned w = c->sr_w, sh = mf__sr_shift(w);
    uint64_t idx = c->off + (uint64_t)i, word = idx >> sh;
    if (!a->blk_ok || (word >> 2) != a->blk_idx) {
        a->blk = mf_sr_block(c->seed, word);
        a->blk_idx = word >> 2;
        a->blk_ok = 1;
    }
    return mf_sr_slice(a->blk.v[word & 3], idx, w);
}

static inline uint64_t decode_y(const ctx *c, int ydec, uint32_t code)
{
    switch (ydec) {
    case 1: return f32_to_f64_bits(code);
    case 2: return f32_to_f64_bits(code << 16);
    case 3: return f16_to_f64_bits(code);
    default: return c->table[code & 0xFFu];
    }
}

/* One element; f and ydec are the target's (ydec: how its codes widen, see decode_y). */
static inline void visit(const ctx *c, acc *a, uint64_t xb, size_t i, const mf__fmt f, const int ydec)
{
    uint64_t ab = xb & F64_ABS, sb, yb, yab;
    uint32_t rbits = 0, code;
    unsigned ev = 0;
    int x_finite, s_inf = 0, s_zero = 0, ov, y_finite;

    if (ab >= F64_INF) { /* inf or NaN */
        if (ab > F64_INF)
            a->in_nan++;
        else
            a->in_inf++;
        x_finite = 0;
        sb = xb;
    } else if (ab == 0) {
        a->in_zero++;
        x_finite = 1;
        sb = xb;
    } else {
        uint32_t sg = (uint32_t)(xb >> 63);
        int32_t hb;
        x_finite = 1;
        if (ab > a->maxb[sg])
            a->maxb[sg] = ab;
        if (ab < a->minb[sg])
            a->minb[sg] = ab;
        sb = c->scaled ? mul_f64_rn(xb, c->scale) : xb;
        if ((sb & F64_ABS) == F64_INF)
            s_inf = 1;
        else if ((sb & F64_ABS) == 0)
            s_zero = 1;
        /* histogram of |s|: binary64 subnormals and 0 fall below the first bin, inf above the last */
        hb = (int32_t)((sb >> 52) & 0x7FFu) - 1023 - MF_ANALYZE_HIST_MIN; /* field 0: far below */
        a->hist[hb < 0 ? 0 : hb >= MF_ANALYZE_HIST_BINS ? MF_ANALYZE_HIST_BINS - 1 : hb]++;
        if (c->sr) {
            rbits = sr_bits(c, a, i);
            /* only an element that can lower the running up_k or raise down_k is looked at */
            if (c->emax - flog2_bits(ab) - 1 < a->up_k) {
                int32_t k = up_k_of(c, mf__unpack(F64_FMT, xb), rbits);
                if (k < a->up_k)
                    a->up_k = k;
            }
            if (c->can_underflow && c->esub - flog2_bits(ab) > a->down_k) {
                int32_t k = down_k_of(c, mf__unpack(F64_FMT, xb), rbits, a->down_k);
                if (k > a->down_k)
                    a->down_k = k;
            }
        }
    }
    /* zeros, infinities and NaNs convert without reading random bits */
    code = mf__round_pack(f, mf__unpack(F64_FMT, sb), c->round, c->ovf, rbits, &ev);
    yb = decode_y(c, ydec, code);
    yab = yb & F64_ABS;
    y_finite = yab < F64_INF;

    ov = (ev & MF_EVENT_OVERFLOW) || s_inf;
    if (ov) {
        a->overflow++;
        if (yab == c->max_bits)
            a->saturated++;
    }
    if (x_finite && yab == F64_INF)
        a->to_inf++;
    if (ab <= F64_INF && yab > F64_INF)
        a->to_nan++;
    if ((ev & MF_EVENT_UNDERFLOW) || (s_zero && yab == 0))
        a->underflow++;
    if (ev & MF_EVENT_SUBNORMAL)
        a->subnormal++;
    if ((ev & MF_EVENT_INEXACT) || s_inf || s_zero)
        a->inexact++;

    if (x_finite && !s_inf && y_finite && !(ov && yab == c->max_bits)) {
        /* magnitudes by clearing the sign bit: no branch on the (random) sign of the error */
        double e = f64_of(mf__f64_bits(f64_of(yb) - f64_of(sb)) & F64_ABS);
        a->err_count++;
        acc_add(&a->abs_e, e);
        if (!s_zero && ab != 0) {
            a->rel_count++;
            acc_add(&a->rel_e, e / f64_of(sb & F64_ABS));
        }
    }
}

/* The loop over the data (src is a loop-invariant, well-predicted branch). */
static void pass(const ctx *c, acc *a, const void *data, size_t n, mf_format src, const mf__fmt f,
                 const int ydec)
{
    const unsigned char *p = (const unsigned char *)data;
    size_t i;
    for (i = 0; i < n; i++) {
        uint64_t xb;
        if (src == MF_FP32) {
            uint32_t b;
            memcpy(&b, p + 4 * i, 4);
            xb = f32_to_f64_bits(b);
        } else if (src == MF_FP64) {
            memcpy(&xb, p + 8 * i, 8);
        } else {
            uint16_t b;
            memcpy(&b, p + 2 * i, 2);
            xb = src == MF_FP16 ? f16_to_f64_bits(b) : f32_to_f64_bits((uint32_t)b << 16);
        }
        visit(c, a, xb, i, f, ydec);
    }
}

/* ---- the entry point ------------------------------------------------------------------------ */

static int32_t code_log2(mf__fmt f, uint64_t code) { return mf__unpack(f, code).exp; }

int mf_analyze(mf_format fmt, const void *data, size_t n, const mf_analyze_opts *opts, mf_analyze_report *report)
{
    static const mf_analyze_opts defaults = {MF_FP32, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0, 0, 0.0};
    const mf_analyze_opts *o = opts ? opts : &defaults;
    mf_format src = o->src_format;
    uint64_t scb = mf__f64_bits(o->scale), scab = scb & F64_ABS;
    ctx cx;
    acc a;
    mf_analyze_report r;
    size_t bytes;
    int sg;

    if ((unsigned)fmt >= MF_FORMAT_COUNT || fmt == MF_FP64)
        return MF_E_FORMAT;
    if (src != MF_FP32 && src != MF_FP64 && src != MF_FP16 && src != MF_BF16)
        return MF_E_FORMAT;
    if ((unsigned)o->round >= MF_ROUND_COUNT)
        return MF_E_ROUND;
    if ((unsigned)o->overflow > MF_OVERFLOW_SATURATE /* SatPropagate: conversions only */)
        return MF_E_POLICY;
    if (scab >= F64_INF || ((scb & F64_SIGN) && scab != 0))
        return MF_E_ARG;
    if (!report || (!data && n > 0))
        return MF_E_NULL;
    if (n > 0 && !mf__span_fmt_ok(src, data, n, &bytes))
        return MF_E_SIZE;

    memset(&cx, 0, sizeof cx);
    cx.f = mf__fmt_get(fmt);
    cx.round = o->round;
    cx.ovf = o->overflow;
    cx.sr = o->round == MF_ROUND_STOCHASTIC;
    cx.can_underflow = cx.f.kind != MF__KIND_E8M0;
    cx.seed = o->seed;
    cx.sr_w = mf_sr_width(fmt);
    cx.off = o->sr_offset;
    if (scab == 0)
        scb = F64_ONE;
    cx.scaled = scb != F64_ONE;
    cx.scale = mf__unpack(F64_FMT, scb);
    cx.max_bits = mf__decode_f64_bits(fmt, mf__fmt_max_code(cx.f));
    cx.max_sig = mf__unpack(cx.f, mf__fmt_max_code(cx.f)).sig;
    cx.emax = code_log2(cx.f, mf__fmt_max_code(cx.f));
    cx.esub = code_log2(cx.f, cx.f.kind == MF__KIND_E8M0 ? 0 : 1);
    if (cx.f.bits <= 8) { /* the result codes of narrow formats widen through a table */
        uint32_t k;
        for (k = 0; k < 256; k++)
            cx.table[k] = mf__decode_f64_bits(fmt, k);
    }

    memset(&a, 0, sizeof a);
    a.minb[0] = a.minb[1] = F64_INF;
    a.up_k = INT32_MAX;
    a.down_k = INT32_MIN;
    acc_init(&a.abs_e);
    acc_init(&a.rel_e);

    pass(&cx, &a, data, n, src, cx.f, fmt == MF_FP32 ? 1 : fmt == MF_BF16 ? 2 : fmt == MF_FP16 ? 3 : 0);

    memset(&r, 0, sizeof r);
    r.format = fmt;
    r.n = n;
    r.scale = f64_of(scb);
    r.in_zero = a.in_zero;
    r.in_nan = a.in_nan;
    r.in_inf = a.in_inf;
    r.overflow = a.overflow;
    r.saturated = a.saturated;
    r.to_inf = a.to_inf;
    r.to_nan = a.to_nan;
    r.underflow = a.underflow;
    r.subnormal = a.subnormal;
    r.inexact = a.inexact;
    r.err_count = a.err_count;
    r.rel_count = a.rel_count;
    acc_result(&a.abs_e, a.err_count, &r.abs_err_max, &r.abs_err_mean, &r.abs_err_rms);
    acc_result(&a.rel_e, a.rel_count, &r.rel_err_max, &r.rel_err_mean, &r.rel_err_rms);
    memcpy(r.hist, a.hist, sizeof r.hist);
    r.fmt_min_subnormal_log2 = cx.esub;
    r.fmt_min_normal_log2 = code_log2(cx.f, cx.f.kind == MF__KIND_E8M0 ? 0 : (uint64_t)1 << cx.f.man);
    r.fmt_max_log2 = cx.emax;

    {
        uint64_t amax = a.maxb[0] > a.maxb[1] ? a.maxb[0] : a.maxb[1];
        uint64_t amin = a.minb[0] < a.minb[1] ? a.minb[0] : a.minb[1];
        if (amax) { /* some finite nonzero element */
            int32_t up = a.up_k, down = a.down_k;
            r.amax = f64_of(amax);
            r.amin = f64_of(amin);
            if (!cx.sr) {
                for (sg = 0; sg < 2; sg++) {
                    uint64_t sbit = (uint64_t)sg << 63;
                    int32_t k;
                    if (!a.maxb[sg])
                        continue;
                    k = up_k_of(&cx, mf__unpack(F64_FMT, a.maxb[sg] | sbit), 0);
                    if (k < up)
                        up = k;
                    if (cx.can_underflow) {
                        k = down_k_of(&cx, mf__unpack(F64_FMT, a.minb[sg] | sbit), 0, INT32_MIN);
                        if (k > down)
                            down = k;
                    }
                }
            }
            r.scale_up_log2 = (int)up;
            if (down == INT32_MIN) { /* nothing ever underflows */
                r.scale_down_unbounded = 1;
                down = cx.esub - flog2_bits(amin);
            }
            r.scale_down_log2 = (int)down;
        }
    }
    memcpy(report, &r, sizeof r); /* padding included: reports compare with memcmp */
    return MF_OK;
}
