/* SPDX-License-Identifier: MIT */
/* src/portable/convert_profile.c - mf_convert under a compatibility profile (opts->profile != 0).
 *
 * A profile rounds every finite value as the default does and changes only NaN codes and signs, its overflow
 * policy and a few special cases (minifloat/detail/profile.h). So each chunk of CHUNK elements is converted by
 * the fastest backend's default kernels, under the policy the profile implies, and then loops over the
 * chunk's source and result (profile_fix.c, built for the active backend's ISA) rewrite the lanes the profile
 * treats differently. Where those are the NaN inputs' lanes alone and the backend has a marking kernel for the
 * call (mf__backend.convert_marked: f32 -> f16 and bf16 on the direct path), the kernel itself calls the rewrite
 * for the steps it mended, so the result is neither scanned nor cut into chunks; a pair with nothing to rewrite
 * is one call of the default's kernels. What is rewritten:
 *   decoding (into f32, f64)    NaN codes, as the system decodes them (mf__dec_fix);
 *   rounding from f32 or f64    NaN inputs get the system's code (sign, some payload bits), an e4m3 NaN made
 *                               by an overflow or an infinity keeps the value's sign, and e8m0's rules
 *                               (mf__enc_fix);
 *   narrow -> narrow, and the   two steps through an f32 chunk: decoded as the system decodes, then rounded
 *   f64 sources PyTorch (and    from f32 as the system does; it is how the system itself converts (an f64 is
 *   ONNX's e8m0) round via f32  first rounded to f32 in rn, NaNs as cvtsd2ss writes them).
 * A call with opts->threads > 1 is cut into pieces as mf__convert_parallel cuts the default's, one a thread.
 * The counts are the default kernel's under that policy: the events of the one rounding the element path
 * counts (of the second step, where there are two). tests/test_profile.c and tests/test_exhaustive_profile.c
 * compare every lane with the scalar profile functions.
 */
#include <string.h>

#include "profile_fix.h"

/* Elements a step: a step's source and result stay in L1 or L2 for the fix-up's pass, and a step is long
 * enough for the backend's call cost not to show (docs/perf/2026-12-06-zen5-profiles.md). Even: a step
 * starts on a byte of packed e2m1. */
enum { CHUNK = 8192 };

static mf__enc_fix enc_setup(mf_profile p, mf_format d, int src64, mf_round r, mf_overflow o)
{
    const mf__fmt f = mf__fmt_get(d);
    const uint32_t nc = (uint32_t)mf__fmt_nan_code(f), sb = f.kind == MF__KIND_E8M0 ? 0u : 1u << (f.bits - 1);
    mf__enc_fix x;
    memset(&x, 0, sizeof x);
    x.nan_pos = x.nan_neg = nc;
    x.fn_code = UINT32_MAX; /* no code */
    x.r = r;
    x.o = o;
    if (p == MF_PROFILE_CUDA) {
        if (d == MF_FP8_E4M3 && src64)
            x.nan_neg = 0xFFu;
        if (d == MF_FP8_E5M2 && src64) {
            x.nan_pos = 0x7Eu;
            x.nan_neg = 0xFEu;
            x.pay = 2;
        }
    } else if (f.kind == MF__KIND_FNUZ || f.kind == MF__KIND_E8M0) {
        /* the format's NaN */
    } else if (d == MF_FP32) { /* cvtsd2ss */
        x.nan_pos = 0x7FC00000u;
        x.nan_neg = 0xFFC00000u;
        x.pay = 23;
    } else if (p == MF_PROFILE_TORCH) {
        if (d == MF_BF16)
            x.nan_pos = x.nan_neg = 0xFFFFu;
        else if (d == MF_FP16) {
            x.nan_pos = 0x7E00u;
            x.nan_neg = 0xFE00u;
            x.pay = 10;
        } else
            x.nan_neg = 0x7Fu | sb;
    } else if (d == MF_FP16) { /* ml_dtypes and ONNX: numpy */
        x.nan_pos = 0x7C00u;
        x.nan_neg = 0xFC00u;
        x.pay = 10;
        x.pay_min = 1;
    } else if (f.kind == MF__KIND_NONE) { /* a zero of the opposite sign */
        x.nan_pos = sb;
        x.nan_neg = 0;
    } else if (f.kind == MF__KIND_FN) {
        x.nan_neg = 0x7Fu | sb;
    } else {
        x.nan_pos = (uint32_t)mf__fmt_inf_code(f) | 1u << (f.man - 1);
        x.nan_neg = x.nan_pos | sb;
    }
    if (f.kind == MF__KIND_FN) {
        x.fn_code = nc;
        x.fn_sign = sb;
    }
    if (d == MF_E8M0)
        x.e8m0 = p == MF_PROFILE_ML_DTYPES ? MF__E8M0_NONPOS
                 : p == MF_PROFILE_TORCH   ? MF__E8M0_TORCH
                 : p == MF_PROFILE_ONNX    ? MF__E8M0_ONNX
                                           : MF__E8M0_NONE;
    /* e4m3 whose NaNs keep 0x7F with their sign, or (CUDA's from f32) stay 0x7F: its other 0x7F take the sign */
    x.sign_only = f.kind != MF__KIND_FN || x.pay || x.nan_pos != nc ? 0 : x.nan_neg == (nc | sb) ? 1 : x.nan_neg == nc ? 2 : 0;
    x.active = x.nan_pos != nc || x.nan_neg != nc || x.pay || x.fn_sign || x.e8m0;
    return x;
}

static mf__dec_fix dec_setup(mf_profile p, mf_format s, int to64)
{
    const mf__fmt f = mf__fmt_get(s);
    const uint32_t nc = (uint32_t)mf__fmt_nan_code(f);
    const int fp8 = f.bits == 8 && (f.kind == MF__KIND_FN || f.kind == MF__KIND_IEEE);
    mf__dec_fix x;
    uint32_t c32 = 0;
    memset(&x, 0, sizeof x);
    x.mask = (uint32_t)mf__fmt_code_mask(f);
    x.lo = x.span = 0;
    x.mant_mask = (1u << f.man) - 1;
    x.sign_sh = f.kind == MF__KIND_E8M0 ? 31u : (unsigned)f.bits - 1; /* e8m0: no sign (a shift past its bits) */
    if (f.kind == MF__KIND_IEEE) { /* the codes above the infinity */
        x.mask = (uint32_t)mf__fmt_mag_mask(f);
        x.lo = (uint32_t)mf__fmt_inf_code(f) + 1;
        x.span = x.mask - x.lo;
    } else if (f.kind == MF__KIND_FN) {
        x.mask = (uint32_t)mf__fmt_mag_mask(f);
        x.lo = nc;
    } else {
        x.lo = nc; /* fnuz 0x80, e8m0 0xFF */
    }
    if (f.kind == MF__KIND_NONE || s == MF_FP32 || s == MF_BF16)
        return x; /* no NaN, or the default's decoding */
    if (p == MF_PROFILE_CUDA && (s == MF_FP16 || s == MF_FP8_E4M3 || s == MF_FP8_E5M2))
        c32 = 0x7FFFFFFFu;
    else if (p == MF_PROFILE_CUDA && s == MF_E8M0)
        c32 = 0x7FFF0000u;
    else if (p == MF_PROFILE_TORCH && (f.kind == MF__KIND_FNUZ || f.kind == MF__KIND_E8M0))
        c32 = 0x7F800001u;
    else if ((p == MF_PROFILE_ML_DTYPES || p == MF_PROFILE_ONNX) && s == MF_FP16) { /* numpy: not quieted */
        x.active = 1;
        x.keep = 1;
        x.pos = to64 ? 0x7FF0000000000000u : 0x7F800000u;
        x.neg = to64 ? 0xFFF0000000000000u : 0xFF800000u;
        x.sh = to64 ? 42u : 13u;
        return x;
    } else if ((p == MF_PROFILE_ML_DTYPES || p == MF_PROFILE_ONNX) && fp8) { /* the payload dropped */
        x.active = 1;
        x.pos = to64 ? 0x7FF8000000000000u : 0x7FC00000u;
        x.neg = to64 ? 0xFFF8000000000000u : 0xFFC00000u;
        return x;
    } else
        return x;
    x.active = 1; /* one NaN whatever the code */
    x.pos = x.neg = to64 ? mf__widen_f32_bits(c32) : c32;
    return x;
}

/* One step of n <= CHUNK elements. */
typedef struct step {
    const mf__backend *bk;
    mf_opts o; /* the default's options for the pair: the policy the system applies, no stats, one thread */
} step;

static step step_setup(mf_format d, mf_format s, mf_round r, mf_overflow o)
{
    step k;
    memset(&k, 0, sizeof k);
    k.bk = mf__backend_for(mf__backend_active(), d, s);
    k.o.round = r;
    k.o.overflow = o;
    return k;
}

/* One step; its counts added to *total (NULL: none) */
static void step_run(const step *k, mf_format d, void *dst, mf_format s, const void *src, size_t n, mf_stats *total)
{
    mf_stats c;
    k->bk->convert(d, dst, s, src, n, &k->o, total ? &c : NULL);
    if (total)
        mf__stats_sum(total, &c);
}

/* A call's setup, which its pieces share (one a thread, cut as mf__convert_parallel cuts the default's) */
enum { MAX_PIECES = 64 }; /* mf__parallel_piece's most */

typedef struct job {
    mf_format d, s, mid;
    int decode, two, count;
    int plain;  /* one step, no lane to rewrite: the default's call over the whole piece */
    int marked; /* one step whose rewrites are NaN inputs' lanes alone: the marking kernel, where there is one */
    step first, last;
    mf__dec_fix dx;
    mf__enc_fix ex, fx;
    const mf__pfix *fix; /* the active backend's build of the loops */
    unsigned char *out;
    const unsigned char *in;
    size_t n, per;
    mf_stats st[MAX_PIECES];
} job;

/* The loops built for backend b, or the baseline's */
static const mf__pfix *fix_for(const mf__backend *b)
{
    const mf__pfix_entry *e;
    for (e = mf__pfix_table; e->backend; e++)
        if (e->backend == b)
            return e->fix;
    return &mf__pfix_portable;
}

/* The marked steps' fix-up (mf__nan_marks) on a call over the range at out, in: marks that follow each other
 * are fixed together, up to MARK_RUN lanes (still in L1), since each fix-up call costs a setup and a scan. */
enum { MARK_RUN = 2048 };
typedef struct marked_call {
    const job *j;
    unsigned char *out;
    const unsigned char *in;
    size_t from, to; /* the lanes marked and not yet fixed (from == to: none) */
} marked_call;

static void mark_flush(marked_call *c)
{
    const job *j = c->j;
    if (c->to > c->from)
        j->fix->enc(&j->ex, j->d, c->out + mf__storage_bytes(j->d, c->from), j->mid == MF_FP64,
                    c->in + mf__storage_bytes(j->mid, c->from), c->to - c->from);
    c->from = c->to;
}

static void mark_fix(const mf__nan_marks *m, size_t from, size_t to)
{
    marked_call *c = (marked_call *)m->ctx;
    if (from != c->to || c->to - c->from >= MARK_RUN) {
        mark_flush(c);
        c->from = from;
    }
    c->to = to;
}

/* Elements [from, to) of the call, chunk by chunk; stats into *tp (NULL: none) */
static void run_range(const job *j, size_t from, size_t to, mf_stats *tp)
{
    const mf_format d = j->d, s = j->s, mid = j->mid;
    float tmp[CHUNK]; /* the two steps' f32 */
    size_t i;
    if (j->plain) {
        step_run(&j->last, d, j->out + mf__storage_bytes(d, from), s, j->in + mf__storage_bytes(s, from), to - from,
                 tp);
        return;
    }
    if (j->marked && !tp) { /* the kernel calls the fix-up for its steps that met a NaN: no scan, no chunks */
        marked_call c;
        mf__nan_marks mk;
        c.j = j;
        c.out = j->out + mf__storage_bytes(d, from);
        c.in = j->in + mf__storage_bytes(s, from);
        c.from = c.to = 0;
        mk.mark = mark_fix;
        mk.ctx = &c;
        if (j->last.bk->convert_marked(d, c.out, s, c.in, to - from, &j->last.o, &mk)) {
            mark_flush(&c);
            return;
        }
    }
    for (i = from; i < to; i += CHUNK) {
        const size_t m = to - i < CHUNK ? to - i : CHUNK;
        unsigned char *dp = j->out + mf__storage_bytes(d, i);
        const unsigned char *sp = j->in + mf__storage_bytes(s, i);
        if (j->decode) {
            step_run(&j->last, d, dp, s, sp, m, tp);
            j->fix->dec(&j->dx, s, dp, d == MF_FP64, sp, m);
            continue;
        }
        if (j->two) {
            step_run(&j->first, MF_FP32, tmp, s, sp, m, NULL);
            if (s == MF_FP64)
                j->fix->enc(&j->fx, MF_FP32, tmp, 1, sp, m);
            else
                j->fix->dec(&j->dx, s, tmp, 0, sp, m);
            sp = (const unsigned char *)tmp;
        }
        step_run(&j->last, d, dp, mid, sp, m, tp);
        j->fix->enc(&j->ex, d, dp, mid == MF_FP64, sp, m);
    }
}

/* a member of the team (team.c): pieces from the queue until none is left */
static void member(mf__team *tm, size_t id, void *ctx)
{
    job *j = (job *)ctx;
    const size_t pieces = (j->n + j->per - 1) / j->per;
    (void)id;
    for (size_t k; (k = mf__team_take(tm, pieces)) != SIZE_MAX;) {
        const size_t from = k * j->per, to = j->n - from < j->per ? j->n : from + j->per;
        run_range(j, from, to, j->count ? &j->st[k] : NULL);
    }
}

void mf__convert_profile(mf_format d, void *dst, mf_format s, const void *src, size_t n, const mf_opts *o,
                         mf_stats *st)
{
    const mf_profile p = o->profile;
    job j;
    size_t k, pieces;
    memset(&j, 0, sizeof j);
    j.d = d;
    j.s = s;
    j.decode = d == MF_FP64 || (d == MF_FP32 && s != MF_FP64); /* d != s: equal formats copy */
    /* f64 -> d through f32 (PyTorch, ONNX's e8m0), and narrow -> narrow through the decoded f32 */
    j.two = !j.decode && s != MF_FP32 && (s != MF_FP64 || mf__profile_via_f32(p, d));
    j.mid = j.two ? MF_FP32 : s;
    j.out = (unsigned char *)dst;
    j.in = (const unsigned char *)src;
    j.n = n;
    j.count = st != NULL;
    j.fix = fix_for(mf__backend_active());
    if (j.decode) { /* exact: no policy (the default's saturates infinities) */
        j.last = step_setup(d, s, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE);
        j.dx = dec_setup(p, s, d == MF_FP64);
    } else {
        j.last = step_setup(d, j.mid, o->round, mf__profile_policy(p, d, o->overflow));
        j.ex = enc_setup(p, d, s == MF_FP64, o->round, o->overflow);
    }
    j.plain = !j.two && (j.decode ? !j.dx.active : !j.ex.active);
    j.marked = !j.two && !j.decode && !j.ex.e8m0 && !j.ex.fn_sign && j.last.bk->convert_marked != NULL;
    if (j.two && s == MF_FP64) { /* rn into f32, NaNs as cvtsd2ss */
        j.first = step_setup(MF_FP32, s, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE);
        j.fx = enc_setup(p, MF_FP32, 1, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE);
    } else if (j.two) {
        j.first = step_setup(MF_FP32, s, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE);
        j.dx = dec_setup(p, s, 0);
    }
    /* pieces of a multiple of 64 elements (whole bytes of e2m1), at most MAX_PIECES */
    j.per = o->threads > 1 ? mf__parallel_piece(d, s, n, o->threads) : n;
    pieces = (n + j.per - 1) / j.per;
    if (pieces == 1 || pieces > MAX_PIECES) {
        run_range(&j, 0, n, st ? &j.st[0] : NULL);
        pieces = 1;
    } else {
        mf__team_run(pieces, member, &j);
    }
    if (st) {
        memset(st, 0, sizeof *st);
        for (k = 0; k < pieces; k++)
            mf__stats_sum(st, &j.st[k]);
    }
}
