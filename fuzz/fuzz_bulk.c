/* SPDX-License-Identifier: MIT */
/* fuzz/fuzz_bulk.c - mf_convert against its documentation (include/minifloat/convert.h).
 *
 * Input layout (missing bytes read as 0):
 *   [0] source format   [1] destination format   (values below 208: value % 13, 0..9 the formats f32 .. f64,
 *       10..12 invalid values; 208..255: the formats appended after f64, e4m3fnuz .. e3m4, 10 + (value - 208) % 5)
 *   [2] rounding mode (% 10: 0..6 valid, 7..9 invalid)   [3] overflow policy (% 6: 0..3 valid, 4..5 invalid)
 *   [4] flags: 1 opts = NULL, 2 stats = NULL, 0x84 src = NULL, 0x88 dst = NULL,
 *       0x30 layout (0, 1 separate buffers; 2 overlapping, dst = src + delta; 3 the same pointer),
 *       0x40 huge n (an element count whose storage would span more than 2^57 bytes)
 *   [5..6] n (little endian, % 301)   [7] bits 0..2 source misalignment, 3..5 destination
 *       misalignment, bit 6 source from values (else raw bytes), bit 7 overlap at the edges
 *   [8] delta: the signed offset dst - src; with [7] bit 7, bit 1 picks dst before src (else after),
 *       bits 2..3 the distance from touching (-1..2 bytes)
 *   [9..16] seed   [17..24] sr_offset   rest: the source elements (raw bytes, or fz_value records
 *       encoded into the source format with rn)
 * Checked: the return code is the one the documentation promises (when several errors apply, any
 * of them); on error nothing in the arena or the stats changed; on success every destination element
 * equals the scalar result for the decoded source element (mf_from_f64 with rbits
 * mf_sr_rbits(seed, sr_offset + i, mf_sr_width(dst)); exact decoding where the destination holds every source value,
 * but +-inf -> +-max when saturating; a copy for equal formats), bytes outside the destination, and the high nibble of an odd e2m1
 * tail, are untouched, FP6 outputs have their top two bits clear, and the stats equal the
 * per-element events (mf_from_f64_ev, or NaN input / subnormal output for decoding and copies).
 */
#include <float.h>

#include "fuzz_common.h"

#define ARENA 8192

/* The most bytes mf_convert takes an array to span (docs/api.md: MF_E_SIZE) */
#define FZ_MAX_SPAN (SIZE_MAX > 0xFFFFFFFFu ? (size_t)1 << (SIZE_MAX > 0xFFFFFFFFu ? 57 : 0) : (size_t)PTRDIFF_MAX)

/* Bytes of n elements; 0 with *ovf set when they would span more than FZ_MAX_SPAN. */
static size_t storage(mf_format f, size_t n, int *ovf)
{
    size_t w;
    *ovf = 0;
    switch (f) {
    case MF_FP64: w = 8; break;
    case MF_FP32: w = 4; break;
    case MF_FP16:
    case MF_BF16: w = 2; break;
    case MF_FP4_E2M1:
    case MF_BINARY4P2SF: /* two codes a byte, as e2m1 */
        if (n / 2 >= FZ_MAX_SPAN) {
            *ovf = 1;
            return 0;
        }
        return n / 2 + (n & 1);
    default: w = 1; break;
    }
    if (n > FZ_MAX_SPAN / w) {
        *ovf = 1;
        return 0;
    }
    return n * w;
}

static int fmt_valid(mf_format f) { return (unsigned)f < MF_FORMAT_COUNT; }

static uint64_t load(mf_format f, const uint8_t *p, size_t i)
{
    uint64_t v = 0;
    switch (f) {
    case MF_FP64: memcpy(&v, p + 8 * i, 8); return v;
    case MF_FP32: {
        uint32_t u;
        memcpy(&u, p + 4 * i, 4);
        return u;
    }
    case MF_FP16:
    case MF_BF16: {
        uint16_t u;
        memcpy(&u, p + 2 * i, 2);
        return u;
    }
    case MF_FP6_E2M3:
    case MF_FP6_E3M2: return p[i] & 0x3Fu;
    case MF_FP4_E2M1:
    case MF_BINARY4P2SF: return (p[i / 2] >> (4 * (i % 2))) & 0xFu;
    default: return p[i];
    }
}

static void store(mf_format f, uint8_t *p, size_t i, uint64_t c)
{
    switch (f) {
    case MF_FP64: memcpy(p + 8 * i, &c, 8); break;
    case MF_FP32: {
        uint32_t u = (uint32_t)c;
        memcpy(p + 4 * i, &u, 4);
        break;
    }
    case MF_FP16:
    case MF_BF16: {
        uint16_t u = (uint16_t)c;
        memcpy(p + 2 * i, &u, 2);
        break;
    }
    case MF_FP6_E2M3:
    case MF_FP6_E3M2: p[i] = (uint8_t)(c & 0x3Fu); break;
    case MF_FP4_E2M1:
    case MF_BINARY4P2SF: {
        unsigned sh = 4 * (unsigned)(i % 2);
        p[i / 2] = (uint8_t)((p[i / 2] & ~(0xFu << sh)) | ((c & 0xFu) << sh));
        break;
    }
    default: p[i] = (uint8_t)c; break;
    }
}

#define FZ_N_FIRST 10 /* f32 .. f64: the formats before the FNUZ and IEEE-style FP8 ones */

static mf_format pick_format(uint8_t b)
{
    unsigned v = b % 13u;
    if (b >= 208)
        return (mf_format)(FZ_N_FIRST + (b - 208u) % (MF_FORMAT_COUNT - FZ_N_FIRST));
    if (v < FZ_N_FIRST)
        return (mf_format)v;
    return v == 10 ? (mf_format)MF_FORMAT_COUNT : v == 11 ? (mf_format)255 : (mf_format)-1;
}

static double src_value(mf_format f, uint64_t code)
{
    return f == MF_FP64 ? fz_f64_from_bits(code) : mf_to_f64(f, (uint32_t)code);
}

/* Is a code of format f (f32 and f64 included) a nonzero subnormal? */
static int subnormal(mf_format f, uint64_t code)
{
    if (f == MF_FP64)
        return fpclassify(fz_f64_from_bits(code)) == FP_SUBNORMAL;
    return ref_is_subnormal_code(fz_ref_fmt(f), (uint32_t)code);
}

/* The documented result for one element, and its events (MF_EVENT_* bits). */
static uint64_t expect_elem(mf_format df, mf_format sf, uint64_t code, const mf_opts *o, size_t i, unsigned *ev)
{
    double v = src_value(sf, code);
    uint64_t out;
    *ev = 0;
    if (df == sf) {
        out = code;
        *ev = (isnan(v) ? (unsigned)MF_EVENT_NAN : 0u) | (subnormal(df, out) ? (unsigned)MF_EVENT_SUBNORMAL : 0u);
    } else if (df == MF_FP64 || (df == MF_FP32 && sf != MF_FP64)) {
        /* widening: exact, but saturation applies to infinities (+-inf -> +-max, an overflow) */
        if (o && o->overflow == MF_OVERFLOW_SATURATE && isinf(v)) {
            out = df == MF_FP64 ? fz_f64_bits(copysign(DBL_MAX, v)) : fz_f32_bits(copysignf(FLT_MAX, (float)v));
            *ev = MF_EVENT_OVERFLOW | MF_EVENT_INEXACT;
        } else {
            out = df == MF_FP64 ? fz_f64_bits(v) : fz_f32_bits(mf_to_f32(sf, (uint32_t)code));
            *ev = (isnan(v) ? (unsigned)MF_EVENT_NAN : 0u) | (subnormal(df, out) ? (unsigned)MF_EVENT_SUBNORMAL : 0u);
        }
    } else {
        mf_round r = o ? o->round : MF_ROUND_NEAREST_EVEN;
        mf_overflow ov = o ? o->overflow : MF_OVERFLOW_IEEE;
        uint32_t rb = (o && r == MF_ROUND_STOCHASTIC) ? mf_sr_rbits(o->seed, o->sr_offset + i, mf_sr_width(df)) : 0u;
        out = mf_from_f64_ev(df, v, r, ov, rb, ev);
    }
    return out;
}

static const char *fname(mf_format f)
{
    const char *s = mf_format_name(f);
    return s ? s : "(invalid)";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t arena[ARENA], snap[ARENA], want[ARENA];
    fz_reader r;
    mf_format sf, df;
    mf_opts opts, opts_copy;
    mf_stats stats, stats_canary, st_want;
    uint8_t flags, mis;
    size_t n, i, sbytes = 0, dbytes = 0, src_pos = 0, dst_pos = 0;
    int layout, huge, s_ovf = 0, d_ovf = 0, rc, use_opts, use_stats;
    int e_format, e_round, e_policy, e_null, e_size, e_overlap, any_err;
    uint8_t *src, *dst;
    int delta;

    r.p = data;
    r.n = size;
    sf = pick_format(fz_u8(&r));
    df = pick_format(fz_u8(&r));
    {
        unsigned rv = fz_u8(&r) % 10u, pv = fz_u8(&r) % 6u;
        memset(&opts, 0, sizeof opts);
        opts.round = rv < 7 ? (mf_round)rv : rv == 7 ? (mf_round)7 : rv == 8 ? (mf_round)100 : (mf_round)-1;
        opts.overflow = pv < 4 ? (mf_overflow)(pv & 1) : pv == 4 ? (mf_overflow)2 : (mf_overflow)-1;
    }
    flags = fz_u8(&r);
    n = fz_u16(&r) % 301u;
    mis = fz_u8(&r);
    delta = (int8_t)fz_u8(&r);
    opts.seed = fz_u64(&r);
    opts.sr_offset = fz_u64(&r);
    use_opts = !(flags & 1);
    use_stats = use_opts && !(flags & 2);
    layout = (flags >> 4) & 3;
    huge = (flags & 0x40) != 0;

    if (huge) { /* only where some valid format's storage is too large: otherwise nothing stops it */
        int a = 0, b = 0;
        n = (n & 1) ? SIZE_MAX - (size_t)(n >> 1) : SIZE_MAX / 2 + 1 + (size_t)(n >> 1);
        if (fmt_valid(sf))
            storage(sf, n, &a);
        if (fmt_valid(df))
            storage(df, n, &b);
        if (!a && !b && fmt_valid(sf) && fmt_valid(df))
            n %= 301u;
        else
            layout = 0;
    }

    /* arena: a fixed pattern, then the source elements */
    for (i = 0; i < ARENA; i++)
        arena[i] = (uint8_t)(0xA5u ^ (i * 31u));
    if (layout < 2) {
        src_pos = 64 + (mis & 7u);
        dst_pos = 4096 + ((mis >> 3) & 7u);
    } else {
        src_pos = 2600 + (mis & 7u);
    }
    if (fmt_valid(sf))
        sbytes = storage(sf, n, &s_ovf);
    if (fmt_valid(df))
        dbytes = storage(df, n, &d_ovf);
    if (layout == 3) {
        dst_pos = src_pos;
    } else if (layout == 2 && (mis & 0x80) && !s_ovf && !d_ovf) {
        /* the edges: dst just after src, or src just after dst, give or take a byte */
        long adj = (long)((delta >> 2) & 3) - 1; /* -1, 0, 1, 2 */
        dst_pos = (delta & 2) ? (size_t)((long)src_pos - (long)dbytes + adj)
                              : (size_t)((long)src_pos + (long)sbytes + adj);
    } else if (layout == 2) {
        dst_pos = (size_t)((long)src_pos + delta);
    }
    if (fmt_valid(sf) && !s_ovf && n <= 300) {
        if (mis & 0x40) { /* element values chosen by fz_value, encoded with rn */
            for (i = 0; i < n && r.n > 0; i++) {
                int is_f32 = 0;
                double v = fz_value(&r, &is_f32);
                uint64_t c = sf == MF_FP64 ? fz_f64_bits(v)
                                           : mf_from_f64(sf, v, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0);
                store(sf, arena + src_pos, i, c);
            }
        } else {
            for (i = 0; i < sbytes && r.n > 0; i++)
                arena[src_pos + i] = fz_u8(&r);
        }
    }
    memcpy(snap, arena, ARENA);
    memcpy(want, arena, ARENA);

    src = ((flags & 0x84) == 0x84) ? NULL : arena + src_pos;
    dst = ((flags & 0x88) == 0x88) ? NULL : arena + dst_pos;

    /* which documented errors apply */
    e_format = !fmt_valid(sf) || !fmt_valid(df);
    e_round = use_opts && (unsigned)opts.round >= MF_ROUND_COUNT;
    e_policy = use_opts && (unsigned)opts.overflow >= MF_OVERFLOW_COUNT;
    e_null = n > 0 && (!src || !dst);
    e_size = !e_format && n > 0 && (s_ovf || d_ovf);
    e_overlap = !e_format && !e_null && !e_size && n > 0 && sf != df && src_pos < dst_pos + dbytes &&
                dst_pos < src_pos + sbytes;
    any_err = e_format || e_round || e_policy || e_null || e_size || e_overlap;

    /* the expected bytes and counts */
    memset(&st_want, 0, sizeof st_want);
    if (!any_err) {
        const mf_opts *o = use_opts ? &opts : NULL;
        for (i = 0; i < n; i++) {
            unsigned ev;
            uint64_t out = expect_elem(df, sf, load(sf, snap + src_pos, i), o, i, &ev);
            store(df, want + dst_pos, i, out);
            st_want.overflow += (ev & MF_EVENT_OVERFLOW) != 0;
            st_want.underflow += (ev & MF_EVENT_UNDERFLOW) != 0;
            st_want.subnormal += (ev & MF_EVENT_SUBNORMAL) != 0;
            st_want.nan += (ev & MF_EVENT_NAN) != 0;
            st_want.inexact += (ev & MF_EVENT_INEXACT) != 0;
        }
    }

    memset(&stats, 0x5A, sizeof stats);
    stats_canary = stats;
    opts.stats = use_stats ? &stats : NULL;
    opts_copy = opts;
    rc = mf_convert(df, dst, sf, src, n, use_opts ? &opts : NULL);

    FZ_CHECK(memcmp(&opts, &opts_copy, sizeof opts) == 0, "mf_convert modified *opts");
    FZ_CHECK(mf_strerror(rc) != NULL, "mf_strerror(%d) is NULL", rc);
    if (any_err) {
        int ok = rc != MF_OK && ((e_format && rc == MF_E_FORMAT) || (e_round && rc == MF_E_ROUND) ||
                                 (e_policy && rc == MF_E_POLICY) || (e_null && rc == MF_E_NULL) ||
                                 (e_size && rc == MF_E_SIZE) || (e_overlap && rc == MF_E_OVERLAP));
        FZ_CHECK(ok,
                 "mf_convert(%s <- %s, n=%zu, round=%d, overflow=%d, opts %s, src %s, dst %s, src@%zu dst@%zu): "
                 "returned %d (%s); applicable errors: format %d round %d policy %d null %d size %d overlap %d",
                 fname(df), fname(sf), n, (int)opts.round, (int)opts.overflow, use_opts ? "set" : "NULL",
                 src ? "set" : "NULL", dst ? "set" : "NULL", src_pos, dst_pos, rc, mf_strerror(rc), e_format,
                 e_round, e_policy, e_null, e_size, e_overlap);
        FZ_CHECK(memcmp(arena, snap, ARENA) == 0, "mf_convert wrote memory although it returned %d", rc);
        FZ_CHECK(memcmp(&stats, &stats_canary, sizeof stats) == 0, "mf_convert wrote stats although it returned %d",
                 rc);
        return 0;
    }
    FZ_CHECK(rc == MF_OK, "mf_convert(%s <- %s, n=%zu, round=%d, overflow=%d, src@%zu dst@%zu) returned %d (%s), expected MF_OK",
             fname(df), fname(sf), n, (int)opts.round, (int)opts.overflow, src_pos, dst_pos, rc, mf_strerror(rc));
    if (memcmp(arena, want, ARENA) != 0) {
        size_t k;
        for (k = 0; k < ARENA && arena[k] == want[k]; k++)
            ;
        if (k >= dst_pos && k < dst_pos + dbytes) {
            size_t e = df == MF_FP4_E2M1 || df == MF_BINARY4P2SF ? (k - dst_pos) * 2
                                                                 : (k - dst_pos) / (storage(df, 1, &s_ovf));
            fz_fail("mf_convert(%s <- %s, n=%zu, %s, %s, seed 0x%llx, sr_offset 0x%llx, src@%zu dst@%zu): byte %zu "
                    "(element ~%zu, source code 0x%llx = %a): expected 0x%02x, got 0x%02x",
                    fname(df), fname(sf), n, use_opts ? fz_mode_names[opts.round] : "rn (NULL opts)",
                    use_opts ? fz_pol_names[opts.overflow] : "ieee", (unsigned long long)opts.seed,
                    (unsigned long long)opts.sr_offset, src_pos, dst_pos, k - dst_pos, e,
                    e < n ? (unsigned long long)load(sf, snap + src_pos, e) : 0ull,
                    e < n ? src_value(sf, load(sf, snap + src_pos, e)) : 0.0, want[k], arena[k]);
        }
        fz_fail("mf_convert(%s <- %s, n=%zu, src@%zu dst@%zu): wrote byte %zu outside the destination "
                "(expected 0x%02x, got 0x%02x)",
                fname(df), fname(sf), n, src_pos, dst_pos, k, want[k], arena[k]);
    }
    if (use_stats)
        FZ_CHECK(memcmp(&stats, &st_want, sizeof stats) == 0,
                 "mf_convert(%s <- %s, n=%zu, %s %s) stats: expected ovf %llu unf %llu sub %llu nan %llu inx %llu, "
                 "got %llu %llu %llu %llu %llu",
                 fname(df), fname(sf), n, fz_mode_names[opts.round], fz_pol_names[opts.overflow],
                 (unsigned long long)st_want.overflow, (unsigned long long)st_want.underflow,
                 (unsigned long long)st_want.subnormal, (unsigned long long)st_want.nan,
                 (unsigned long long)st_want.inexact, (unsigned long long)stats.overflow,
                 (unsigned long long)stats.underflow, (unsigned long long)stats.subnormal,
                 (unsigned long long)stats.nan, (unsigned long long)stats.inexact);
    else
        FZ_CHECK(memcmp(&stats, &stats_canary, sizeof stats) == 0, "mf_convert wrote stats it was not given");
    return 0;
}
