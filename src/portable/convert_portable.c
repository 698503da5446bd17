/* SPDX-License-Identifier: MIT */
/* src/portable/convert_portable.c - the portable backend: ISO C99, integers only.
 *
 * This backend is the law: every other backend must give the same bytes and the same counts. Each element
 * goes through the scalar core of <minifloat/detail/round.h>; a loop is compiled for every
 * (source, destination) pair of the classic formats, and between f32 / f64 and each P3109 format, so that the
 * format facts fold into constants (convert_p3109 says why not for every pair).
 */
#include <string.h>

#include "../internal.h"
#include "elements.h"

/* Is code a nonzero subnormal of format f? */
MF_INLINE int is_subnormal(mf__fmt f, uint64_t code)
{
    uint64_t mag = code & mf__fmt_mag_mask(f);
    return f.kind != MF__KIND_E8M0 && mag != 0 && (mag >> f.man) == 0;
}

/* The loop for one (source, destination) pair; inlined into convert_pair's cases with constant
 * formats. Destinations that hold every source value exactly (f64; f32 from anything but f64)
 * decode instead of rounding, so that mf_convert agrees with mf_to_f32 / mf_to_f64 bit for bit. */
MF_INLINE void convert_loop(mf_format dfmt, void *dst, mf_format sfmt, const void *src, size_t n,
                            const mf_opts *o, mf_stats *st)
{
    const mf__fmt sf = mf__fmt_get(sfmt), df = mf__fmt_get(dfmt);
    const int decode = dfmt == MF_FP64 || (dfmt == MF_FP32 && sfmt != MF_FP64);
    const mf_round r = o->round;
    const mf_overflow ov = o->overflow;
    mf_stats c = {0, 0, 0, 0, 0};
    mf_philox4x32 blk = {{0, 0, 0, 0}};
    const unsigned sr_w = mf_sr_width(dfmt), sr_sh = mf__sr_shift(sr_w); /* 2^sh elements a word */
    size_t i;

    for (i = 0; i < n; i++) {
        uint64_t code = elem_load(sfmt, src, i), out;
        unsigned ev = 0;
        if (decode) {
            if (dfmt == MF_FP64)
                out = mf__decode_f64_bits(sfmt, code);
            else
                out = mf__decode_f32_bits(sfmt, (uint32_t)code);
            if (ov == MF_OVERFLOW_SATURATE && (out & mf__fmt_mag_mask(df)) == mf__fmt_inf_code(df)) {
                /* saturation applies to infinities however wide the destination */
                out = (out & ~mf__fmt_mag_mask(df)) | mf__fmt_max_code(df);
                ev |= MF__EV_OVERFLOW | MF__EV_INEXACT;
            }
            if (st) {
                mf__unpacked u = mf__unpack(sf, code);
                ev |= (u.cls == MF__CLS_NAN ? MF__EV_NAN : 0u) | (is_subnormal(df, out) ? MF__EV_SUBNORMAL : 0u);
            }
        } else {
            uint32_t rbits = 0;
            if (r == MF_ROUND_STOCHASTIC) {
                uint64_t idx = o->sr_offset + i, word = idx >> sr_sh;
                if (i == 0 || (idx & ((4u << sr_sh) - 1u)) == 0) /* a new Philox block */
                    blk = mf_sr_block(o->seed, word);
                rbits = mf_sr_slice(blk.v[word & 3], idx, sr_w);
            }
            out = mf__round_pack(df, mf__unpack(sf, code), r, ov, rbits, &ev);
        }
        elem_store(dfmt, dst, i, out);
        mf__stats_add(&c, ev);
    }
    if (st)
        *st = c;
}

/* Equal formats: a copy with memmove semantics; counting reads the source first. */
static void copy_same(mf_format fmt, void *dst, const void *src, size_t n, mf_stats *st)
{
    if (st) {
        const mf__fmt f = mf__fmt_get(fmt);
        size_t i;
        memset(st, 0, sizeof *st);
        for (i = 0; i < n; i++) {
            uint64_t code = elem_load(fmt, src, i);
            st->nan += mf__unpack(f, code).cls == MF__CLS_NAN;
            st->subnormal += is_subnormal(f, code);
        }
    }
    if (mf__fmt_store_bits(fmt) == 4) {
        if (n & 1) { /* keep the high nibble of the last byte */
            uint8_t last = (uint8_t)elem_load(fmt, src, n - 1);
            memmove(dst, src, n / 2);
            elem_store(fmt, dst, n - 1, last);
        } else {
            memmove(dst, src, n / 2);
        }
    } else {
        memmove(dst, src, mf_storage_bytes(fmt, n));
    }
    if (mf__fmt_get(fmt).bits < mf__fmt_store_bits(fmt)) { /* the bits above each code are written as zero */
        size_t i;
        for (i = 0; i < n; i++)
            elem_store(fmt, dst, i, elem_load(fmt, dst, i));
    }
}

/* Every classic destination from source s, a constant where it is inlined: with convert_portable's switch on
 * the source, a loop compiled for each (source, destination) pair of the classic rows of formats.inc, the
 * formats folded in. Returns 0 for a P3109 destination. */
MF_FORCE_INLINE int convert_from(mf_format s, mf_format dfmt, void *dst, const void *src, size_t n,
                                 const mf_opts *o, mf_stats *st)
{
    switch (dfmt) {
#define MF__FORMAT(e, value, tag, nbits, nman, nbias, kind, ...) \
    MF__IF_CLASSIC_##kind(case e : convert_loop(e, dst, s, src, n, o, st); return 1;)
#include "minifloat/formats.inc"
#undef MF__FORMAT
    default: return 0;
    }
}

/* Pairs with a P3109 format. Folded loops only between f32 / f64 and each P3109 format (each row would
 * otherwise add a loop per row of the table); every other pair runs the same core with the formats read
 * at run time: the same unpack and the same one rounding, so the same bits, more slowly. */
static void convert_any(mf_format dfmt, void *dst, mf_format sfmt, const void *src, size_t n, const mf_opts *o,
                        mf_stats *st)
{
    convert_loop(dfmt, dst, sfmt, src, n, o, st);
}

static void convert_p3109(mf_format dfmt, void *dst, mf_format sfmt, const void *src, size_t n, const mf_opts *o,
                          mf_stats *st)
{
#define MF__FORMAT(e, value, tag, nbits, nman, nbias, kind, ...) MF__IF_P3109_##kind(X(e))
    if (sfmt == MF_FP32) {
#define X(e) case e: convert_loop(e, dst, MF_FP32, src, n, o, st); return;
        switch (dfmt) {
#include "minifloat/formats.inc"
        default: break;
        }
#undef X
    } else if (sfmt == MF_FP64) {
#define X(e) case e: convert_loop(e, dst, MF_FP64, src, n, o, st); return;
        switch (dfmt) {
#include "minifloat/formats.inc"
        default: break;
        }
#undef X
    } else if (dfmt == MF_FP32) {
#define X(e) case e: convert_loop(MF_FP32, dst, e, src, n, o, st); return;
        switch (sfmt) {
#include "minifloat/formats.inc"
        default: break;
        }
#undef X
    } else if (dfmt == MF_FP64) {
#define X(e) case e: convert_loop(MF_FP64, dst, e, src, n, o, st); return;
        switch (sfmt) {
#include "minifloat/formats.inc"
        default: break;
        }
#undef X
    }
#undef MF__FORMAT
    convert_any(dfmt, dst, sfmt, src, n, o, st);
}

static void convert_portable(mf_format dfmt, void *dst, mf_format sfmt, const void *src, size_t n,
                             const mf_opts *o, mf_stats *st)
{
    if (dfmt == sfmt) {
        copy_same(dfmt, dst, src, n, st);
        return;
    }
    switch (sfmt) {
#define MF__FORMAT(e, value, tag, nbits, nman, nbias, kind, ...) \
    MF__IF_CLASSIC_##kind(case e : if (convert_from(e, dfmt, dst, src, n, o, st)) return; break;)
#include "minifloat/formats.inc"
#undef MF__FORMAT
    default: break;
    }
    convert_p3109(dfmt, dst, sfmt, src, n, o, st);
}

/* MF_OVERFLOW_PROPAGATE after a backend converted the call under MF_OVERFLOW_SATURATE: the two differ only on
 * the infinite inputs of a destination that has infinities, and those few are converted again here by the
 * portable loop (the core's SatPropagate), their counts exchanged for SATURATE's. */
void mf__propagate_inf(mf_format d, void *dst, mf_format s, const void *src, size_t n, const mf_opts *o,
                       mf_stats *st)
{
    const mf__fmt sf = mf__fmt_get(s);
    const uint64_t mag = mf__fmt_mag_mask(sf), inf = mf__fmt_inf_code(sf);
    const size_t sb = mf__storage_bytes(s, 1), db = mf__storage_bytes(d, 1);
    mf_opts po = *o;
    size_t i;
    if (d == s || !mf__fmt_has_inf(sf) || !mf__fmt_has_inf(mf__fmt_get(d)))
        return;
    po.threads = 0;
    for (i = 0; i < n; i++) {
        const uint8_t *x = (const uint8_t *)src + i * sb;
        mf_stats was, now;
        uint8_t scratch[8];
        if ((elem_load(s, src, i) & mag) != inf)
            continue;
        po.sr_offset = o->sr_offset + i;
        po.overflow = MF_OVERFLOW_PROPAGATE;
        convert_portable(d, (uint8_t *)dst + i * db, s, x, 1, &po, st ? &now : NULL);
        if (st) {
            po.overflow = MF_OVERFLOW_SATURATE;
            convert_portable(d, scratch, s, x, 1, &po, &was);
            st->overflow += now.overflow - was.overflow;
            st->underflow += now.underflow - was.underflow;
            st->subnormal += now.subnormal - was.subnormal;
            st->nan += now.nan - was.nan;
            st->inexact += now.inexact - was.inexact;
        }
    }
}

static void plan_portable(mf__plan *p, mf_format d, const void *dst, mf_format s, const void *src, size_t n,
                          const mf_opts *o, int count)
{
    (void)d, (void)dst, (void)s, (void)src, (void)o, (void)count;
    p->backend = &mf__backend_portable;
    p->path = MF__PATH_PORTABLE;
    p->ends_path = MF__PATH_NONE;
    p->head = p->tail = 0;
    p->body = n;
    p->stream = 0;
}

const mf__backend mf__backend_portable = {"portable", NULL, {0}, convert_portable, plan_portable, NULL};
