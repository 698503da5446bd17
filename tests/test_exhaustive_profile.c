/* SPDX-License-Identifier: MIT */
/* tests/test_exhaustive_profile.c - the compatibility profiles over binary32 inputs, one profile per process
 * (argv[1] = cuda | ml_dtypes | torch | onnx).
 *
 * For each format the profile's system has (the list is written here from docs/compat.md's summary table and
 * checked against mf_profile_supports), in rn (and, for e8m0, the modes CUDA and ONNX have instead of or
 * besides rn), under each overflow policy the system accepts (both where it offers a choice; where it has
 * one, the sweep passes IEEE and SATURATE on alternate chunks and expects the same system result),
 * mf_from_f32_profile is compared on every visited input with an expected code computed here:
 *
 *   the default semantics' code, from the breakpoint oracle (oracle/breakpoints.c: a cursor into a table of
 *   decision boundaries, O(1) per input in ascending magnitude), under the policy the system applies,
 *   then the system's special-value rules, written below from docs/compat.md's "What each profile changes
 *   (measured)" tables (expect_code). ONNX's e8m0 is a rule on the binary32 bits (that table's e8m0 row) and
 *   is computed from the bits alone.
 *
 * Nothing here includes or copies include/minifloat/detail/profile.h: the rules are restated from the doc.
 *
 * The bulk path (mf_convert with opts.profile) converts every visited input, in chunks of 2^14, and must give
 * the scalar function's codes. Decoding: every code of each format through mf_to_f32_profile against the value
 * from the oracle's textbook formula and the documented NaN decodings (default: sign and payload kept, quiet;
 * bf16 the plain shift; then each system's rows).
 *
 * Inputs (chunks of 2^14 consecutive bit patterns, visited in bit-pattern order):
 *   default (CI): every input whose f32 exponent field is one of the format's boundary fields (255, the field
 *     of max (overflow threshold), of the smallest normal (normal/subnormal edge), of half the smallest
 *     subnormal (underflow), and 0 where a threshold lies there (bf16, e8m0); elsewhere field 0, all of it
 *     underflow, one chunk in 8 rotating daily); for the saturating sweep of a caller-chosen policy, 255 and
 *     the field of max only; plus the chunks c with c % 256 == days since 1970 % 256 of the rest
 *     (MF_EXHAUSTIVE_SHARD=k: shard k % 256). The 1/256 shard and the field-0
 *     sampling keep the four tests within CI's time (docs/perf/profiles-exhaustive-2026-12-03-zen3.csv has
 *     the cost of a whole sweep); the bulk path converts the same chunks;
 *   MF_EXHAUSTIVE_SHARD=all: all 2^32 inputs per sweep, through the bulk path too, and one
 *     `digest <profile> <fmt> <mode> <policy> <hex>` line per sweep, computed as in test_exhaustive.c
 *     (blocks of 2^14: S1 = sum of codes, S2 = sum of j * code, digest = sum of
 *     mix64((S2 << 32 | S1) + b * 0x9E3779B97F4A7C15)); policy "fixed" where the system has one.
 * Each sweep asserts how many inputs it visited.
 */
#define _POSIX_C_SOURCE 200809L

#include <minifloat.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mf_test.h"
#include "oracle/breakpoints.h"

#if defined(__GNUC__) || defined(__clang__)
#define EX_FORCE_INLINE static inline __attribute__((always_inline))
#define EX_FLATTEN __attribute__((flatten))
#define EX_NOINLINE __attribute__((noinline))
#else
#define EX_FORCE_INLINE static inline
#define EX_FLATTEN
#define EX_NOINLINE
#endif

#define SWEEP_TIMEOUT 900
#define CHUNK 16384u /* inputs per chunk: the unit of selection, of bulk calls and of digest blocks */
#define NCHUNKS (((uint64_t)1 << 32) / CHUNK)
#define NSHARD 256u

#define RN MF_ROUND_NEAREST_EVEN
#define RZ MF_ROUND_TOWARD_ZERO
#define RU MF_ROUND_UP
#define RD MF_ROUND_DOWN

/* ---- formats, profiles, what each system has (docs/compat.md) ---------------------------------- */

typedef struct {
    mf_format fmt;
    const char *tag; /* minifloat's and the oracle's name */
} fmt_entry;

static const fmt_entry formats[] = {
    {MF_FP16, "f16"},
    {MF_BF16, "bf16"},
    {MF_FP8_E4M3, "e4m3"},
    {MF_FP8_E5M2, "e5m2"},
    {MF_FP6_E2M3, "e2m3"},
    {MF_FP6_E3M2, "e3m2"},
    {MF_FP4_E2M1, "e2m1"},
    {MF_E8M0, "e8m0"},
    {MF_FP8_E4M3FNUZ, "e4m3fnuz"},
    {MF_FP8_E5M2FNUZ, "e5m2fnuz"},
    {MF_FP8_E4M3B11FNUZ, "e4m3b11fnuz"},
    {MF_FP8_E4M3IEEE, "e4m3ieee"},
    {MF_FP8_E3M4, "e3m4"},
};
#define NFORMATS (sizeof formats / sizeof formats[0])

static const char *mode_names[] = {"rn", "rna", "rz", "ru", "rd", "ro", "sr"};
#define NMODES 7 /* MF_ROUND_COUNT, every mode the API has */
#define M(r) (1u << (r))

typedef struct {
    mf_profile p;
    const char *name;
} profile_entry;

static const profile_entry profiles[] = {
    {MF_PROFILE_CUDA, "cuda"},
    {MF_PROFILE_ML_DTYPES, "ml_dtypes"},
    {MF_PROFILE_TORCH, "torch"},
    {MF_PROFILE_ONNX, "onnx"},
};

static const profile_entry *g_prof;

/* The modes in which system p rounds into fmt (0: the system lacks fmt), from the summary table of
 * docs/compat.md ("formats", "modes" columns). */
static unsigned doc_modes(mf_profile p, mf_format f)
{
    switch (p) {
    case MF_PROFILE_CUDA: /* f16 bf16 e4m3 e5m2 e2m3 e3m2 e2m1 e8m0; rn; f16/bf16 also rz ru rd; FP6/FP4 also rz;
                             e8m0 rz ru only */
        switch (f) {
        case MF_FP16:
        case MF_BF16: return M(RN) | M(RZ) | M(RU) | M(RD);
        case MF_FP8_E4M3:
        case MF_FP8_E5M2: return M(RN);
        case MF_FP6_E2M3:
        case MF_FP6_E3M2:
        case MF_FP4_E2M1: return M(RN) | M(RZ);
        case MF_E8M0: return M(RZ) | M(RU);
        default: return 0;
        }
    case MF_PROFILE_ML_DTYPES: /* all; rn */ return M(RN);
    case MF_PROFILE_TORCH: /* f16 bf16 e4m3 e5m2 e4m3fnuz e5m2fnuz e8m0; rn */
        switch (f) {
        case MF_FP16:
        case MF_BF16:
        case MF_FP8_E4M3:
        case MF_FP8_E5M2:
        case MF_FP8_E4M3FNUZ:
        case MF_FP8_E5M2FNUZ:
        case MF_E8M0: return M(RN);
        default: return 0;
        }
    case MF_PROFILE_ONNX: /* f16 bf16 e4m3 e5m2 e4m3fnuz e5m2fnuz e2m1 e8m0; rn; e8m0 rn, ru, rz or rd */
        switch (f) {
        case MF_FP16:
        case MF_BF16:
        case MF_FP8_E4M3:
        case MF_FP8_E5M2:
        case MF_FP8_E4M3FNUZ:
        case MF_FP8_E5M2FNUZ:
        case MF_FP4_E2M1: return M(RN);
        case MF_E8M0: return M(RN) | M(RU) | M(RZ) | M(RD);
        default: return 0;
        }
    default: return 0;
    }
}

/* Does the caller choose the overflow policy? ("overflow policy" column: CUDA's satfinite for FP8 and e8m0,
 * ONNX's saturate for its FP8 formats; the ONNX table's e8m0 rows take saturate too.) */
static int doc_caller_policy(mf_profile p, mf_format f)
{
    const int fp8 = f == MF_FP8_E4M3 || f == MF_FP8_E5M2 || f == MF_FP8_E4M3FNUZ || f == MF_FP8_E5M2FNUZ;
    if (p == MF_PROFILE_CUDA)
        return f == MF_FP8_E4M3 || f == MF_FP8_E5M2 || f == MF_E8M0;
    if (p == MF_PROFILE_ONNX)
        return fp8 || f == MF_E8M0;
    return 0;
}

/* Where the system has one policy: the default semantics' policy its finite results follow (1: saturate).
 * PyTorch's e4m3 saturates, inf included; every other fixed case is IEEE (ml_dtypes' e4m3 465 -> NaN, FP6/FP4
 * saturate, which is what the default's IEEE policy does for formats without inf). */
static int doc_fixed_sat(mf_profile p, mf_format f) { return p == MF_PROFILE_TORCH && f == MF_FP8_E4M3; }

/* The modes swept: rn wherever the system has it; e8m0 also in the system's other modes (CUDA's e8m0 has no rn,
 * ONNX's e8m0 is a rule of its own in each mode). The other modes of f16/bf16/FP6/FP4 under CUDA are the
 * default's and are the unit tier's (test_profile, test_nvidia). */
static unsigned swept_modes(mf_profile p, mf_format f)
{
    const unsigned m = doc_modes(p, f);
    return f == MF_E8M0 ? m : m & M(RN);
}

/* ---- the expected codes: the default's, then the system's rules --------------------------------- */

typedef struct {
    mf_profile p;
    mf_format fmt;
    const fmt_entry *fe;
    mf_round round;
    int caller; /* 1: the policy is the caller's (sat below is what is passed); 0: fixed */
    int sat;    /* the oracle's policy (and, when caller, the policy passed) */
} sweep_def;

/* ONNX's e8m0 (docs/compat.md, ONNX table): on the binary32 bits, the sign ignored; exponent field 255 (inf,
 * NaN) -> 0xFF even when saturating; "up" adds one when any mantissa bit is set (subnormals too); "nearest"
 * adds one when the guard bit (mantissa bit 22) is set and either the rest of the mantissa or the implicit
 * bit (field != 0) is; "down" keeps the field. A field pushed from 254 to 255 is NaN, or 0xFE when
 * saturating. */
EX_FORCE_INLINE uint32_t onnx_e8m0(uint32_t x, mf_round r, int sat)
{
    const uint32_t e = (x >> 23) & 0xFF, m = x & 0x7FFFFF;
    uint32_t up;
    if (e == 0xFF)
        return 0xFF;
    if (r == RN)
        up = (m & 0x400000) && ((m & 0x3FFFFF) || e != 0);
    else if (r == RU)
        up = m != 0;
    else
        up = 0;
    if (e + up == 0xFF)
        return sat ? 0xFE : 0xFF;
    return e + up;
}

/* ml_dtypes' rules (ml_dtypes table; also ONNX's for its FP8 formats, f16, bf16 and e2m1). */
EX_FORCE_INLINE uint32_t ml_dtypes_rule(mf_format F, uint32_t x, uint32_t want)
{
    const uint32_t neg = x >> 31, mag = x & 0x7FFFFFFF, pay10 = (x >> 13) & 0x3FF;
    const int nan = mag > 0x7F800000;
    switch (F) {
    case MF_BF16: return nan ? neg << 15 | 0x7FC0 : want;                       /* payload dropped */
    case MF_FP16: return nan ? neg << 15 | 0x7C00 | (pay10 ? pay10 : 1) : want; /* numpy */
    case MF_FP8_E4M3: return want == 0x7F ? 0x7F | neg << 7 : want;             /* every NaN result */
    case MF_FP8_E5M2: return nan ? neg << 7 | 0x7E : want;
    case MF_FP8_E4M3IEEE: return nan ? neg << 7 | 0x7C : want;
    case MF_FP8_E3M4: return nan ? neg << 7 | 0x78 : want;
    case MF_FP6_E2M3:
    case MF_FP6_E3M2: return nan ? (neg ^ 1) << 5 : want; /* a zero of the opposite sign */
    case MF_FP4_E2M1: return nan ? (neg ^ 1) << 3 : want;
    case MF_E8M0: return neg || mag == 0 ? 0xFF : want; /* x <= 0 (and -NaN, already 0xFF) */
    default: return want;                               /* the fnuz formats agree with the default */
    }
}

/* The code system P writes for input bits x, given the default's code want under the sweep's policy. */
EX_FORCE_INLINE uint32_t expect_code(mf_profile P, mf_format F, mf_round R, int sat, uint32_t x, uint32_t want)
{
    const uint32_t neg = x >> 31, mag = x & 0x7FFFFFFF, pay10 = (x >> 13) & 0x3FF;
    const int nan = mag > 0x7F800000;
    switch (P) {
    case MF_PROFILE_CUDA: /* e4m3 without satfinite: +-inf and finite overflow -> 0x7F | sign; NaN from f32 0x7F */
        if (F == MF_FP8_E4M3 && !sat && want == 0x7F && !nan)
            return 0x7F | neg << 7;
        return want;
    case MF_PROFILE_ML_DTYPES: return ml_dtypes_rule(F, x, want);
    case MF_PROFILE_TORCH:
        switch (F) {
        case MF_BF16: return nan ? 0xFFFF : want;
        case MF_FP16: return nan ? neg << 15 | 0x7E00 | pay10 : want; /* F16C: quiet, payload kept */
        case MF_FP8_E4M3:
        case MF_FP8_E5M2: return nan ? 0x7F | neg << 7 : want;
        case MF_E8M0: return mag > 0x400000 && mag < 0x600000 ? 0x01 : want; /* (2^-127, 1.5 * 2^-127) */
        default: return want;
        }
    case MF_PROFILE_ONNX:
        if (F == MF_E8M0)
            return onnx_e8m0(x, R, sat);
        return ml_dtypes_rule(F, x, want); /* saturate=1 keeps NaN as ml_dtypes writes it */
    default: return want;
    }
}

/* Does the expected code depend on more than (sign, class of |x|, default code) within a run? Classes are cut
 * at the magnitudes in class_cuts, so elsewhere one expect_code per run serves all its inputs. */
static const uint32_t class_cuts[] = {1, 0x400001, 0x600000, 0x800000, 0x7F800000, 0x7F800001};
#define NCUTS (sizeof class_cuts / sizeof class_cuts[0])

EX_FORCE_INLINE int per_input(mf_profile P, mf_format F, uint32_t mag)
{
    if (P == MF_PROFILE_ONNX && F == MF_E8M0)
        return 1;
    return F == MF_FP16 && mag > 0x7F800000 && (P != MF_PROFILE_CUDA); /* the payload of a NaN */
}

/* ---- input selection --------------------------------------------------------------------------- */

static int g_all;   /* MF_EXHAUSTIVE_SHARD=all */
static int g_shard; /* otherwise: the shard of the day, 0 .. NSHARD - 1 */

/* How each binary32 exponent field is visited in the default mode. */
enum {
    FIELD_SHARD,   /* the chunks c % NSHARD == g_shard */
    FIELD_FULL,    /* every chunk */
    FIELD_SAMPLED, /* the chunks c % 8 == g_shard % 8 (a superset of the shard's) */
};

/* The fields swept in full for a format: 255 (infinities, NaNs), the field of max (where the overflow
 * threshold lies), that of the smallest normal (the normal/subnormal edge) and that of half the smallest
 * subnormal (the underflow threshold), from the oracle's textbook values; field 0 (zeros, f32 subnormals)
 * in full where it holds one of those thresholds (bf16, e8m0), else (every input there underflows to a
 * zero) one chunk in 8, rotating daily. policy_only (the saturating sweep of a system that lets the caller
 * choose, whose policy only changes overflow and infinities): 255 and the field of max only. */
static void boundary_fields(const mfo_fmt *of, int policy_only, unsigned char field[256])
{
    const double v[3] = {mfo_mag_value(of, mfo_max_code(of)), mfo_mag_value(of, 1u << of->mbits),
                         mfo_mag_value(of, 1) / 2};
    int i;
    memset(field, FIELD_SHARD, 256);
    field[0] = policy_only ? FIELD_SHARD : FIELD_SAMPLED;
    field[255] = FIELD_FULL;
    for (i = 0; i < (policy_only ? 1 : 3); i++) {
        int e;
        if (!(v[i] > 0))
            continue;
        e = ilogb(v[i]) + 127;
        field[e < 0 ? 0 : e > 254 ? 254 : e] = FIELD_FULL;
    }
}

static int chunk_selected(const unsigned char field[256], uint32_t c)
{
    switch (field[(c >> 9) & 0xFF]) {
    case FIELD_FULL: return 1;
    case FIELD_SAMPLED: return g_all || c % 8 == (uint32_t)g_shard % 8;
    default: return g_all || c % NSHARD == (uint32_t)g_shard;
    }
}

/* The chunks also converted by mf_convert: every chunk the scalar sweep visits (the bulk path, the default
 * kernels plus the profile's rewrite of its lanes, costs about what the scalar sweep does). */
static int bulk_selected(const unsigned char field[256], uint32_t c) { return chunk_selected(field, c); }

/* How many inputs the selection visits, counted from the definition (not from chunk_selected): a full field
 * is 2^24 inputs (2 signs x 512 chunks), a sampled one 2 x 512 / 8 chunks, any other 2 x 512 / NSHARD. */
static uint64_t expected_visits(const unsigned char field[256])
{
    uint64_t chunks = 0;
    int e;
    if (g_all)
        return (uint64_t)1 << 32;
    for (e = 0; e < 256; e++)
        chunks += field[e] == FIELD_FULL ? 1024 : field[e] == FIELD_SAMPLED ? 1024 / 8 : 1024 / NSHARD;
    return chunks * CHUNK;
}

/* How many inputs the bulk path converts: every visited one. */
static uint64_t expected_bulk(const unsigned char field[256]) { return expected_visits(field); }

/* ---- the sweep ---------------------------------------------------------------------------------- */

typedef struct {
    uint64_t visited, bad, bulk_checked, bulk_bad, digest;
    uint32_t first_in, first_got, first_want;
    uint32_t bfirst_in, bfirst_got, bfirst_want;
    int bulk_status;
    double scalar_cpu, bulk_cpu;
} sweep_result;

static uint32_t g_got[CHUNK];
static float g_src[CHUNK];
static uint16_t g_dst[CHUNK];

EX_FORCE_INLINE uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

EX_FORCE_INLINE float f32_from_bits(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The policy passed for chunk c: the caller's choice as swept, or (a fixed-policy system) IEEE and SATURATE
 * on alternate chunks, which must not matter. */
static mf_overflow chunk_policy(const sweep_def *s, uint32_t c)
{
    if (s->caller)
        return s->sat ? MF_OVERFLOW_SATURATE : MF_OVERFLOW_IEEE;
    return (c & 1) ? MF_OVERFLOW_SATURATE : MF_OVERFLOW_IEEE;
}

static EX_NOINLINE void record_mismatches(const sweep_def *s, uint32_t base, uint32_t j0, uint32_t j1, uint32_t want,
                                          sweep_result *res)
{
    uint32_t j;
    for (j = j0; j < j1; j++) {
        const uint32_t x = base | j, e = expect_code(s->p, s->fmt, s->round, s->sat, x, want);
        if (g_got[j] != e && res->bad++ == 0) {
            res->first_in = x;
            res->first_got = g_got[j];
            res->first_want = e;
        }
    }
}

/* Element j of the bulk output in format F's layout. */
static uint32_t bulk_code(mf_format F, uint32_t j)
{
    const uint8_t *b = (const uint8_t *)g_dst;
    switch (F) {
    case MF_FP16:
    case MF_BF16: return g_dst[j];
    case MF_FP4_E2M1: return (uint32_t)(b[j >> 1] >> (4 * (j & 1u))) & 0xFu;
    default: return b[j];
    }
}

static void bulk_chunk(const sweep_def *s, uint32_t base, mf_overflow o, sweep_result *res)
{
    mf_opts opts;
    uint32_t j;
    int st;
    const double c0 = cpu_s();
    memset(&opts, 0, sizeof opts);
    opts.round = s->round;
    opts.overflow = o;
    opts.profile = s->p;
    for (j = 0; j < CHUNK; j++)
        g_src[j] = f32_from_bits(base | j);
    st = mf_convert(s->fmt, g_dst, MF_FP32, g_src, CHUNK, &opts);
    if (st != MF_OK && res->bulk_status == MF_OK)
        res->bulk_status = st;
    for (j = 0; st == MF_OK && j < CHUNK; j++)
        if (bulk_code(s->fmt, j) != g_got[j] && res->bulk_bad++ == 0) {
            res->bfirst_in = base | j;
            res->bfirst_got = bulk_code(s->fmt, j);
            res->bfirst_want = g_got[j];
        }
    res->bulk_checked += CHUNK;
    res->bulk_cpu += cpu_s() - c0;
}

/* P and F are constants at every call site (one flattened function per pair), so that the inline
 * mf_from_f32_profile and the rules are specialised; the mode and policy stay variables. */
EX_FORCE_INLINE void scalar_sweep(mf_profile P, mf_format F, const mf_round R, const sweep_def *s,
                                  const mfo_bp *const tab[2], const unsigned char field[256], sweep_result *res)
{
    size_t k = 0;
    uint32_t c;
    double t0 = cpu_s();

    for (c = 0; c < NCHUNKS; c++) {
        const int neg = (int)(c >> 17);
        const mfo_bp *t = tab[neg];
        const uint32_t base = c * CHUNK, ubase = base & 0x7FFFFFFFu;
        mf_overflow o;
        uint32_t j0 = 0, j, s1 = 0, s2 = 0;
        if ((c & 0x1FFFFu) == 0) /* a new sign: magnitudes start again from zero */
            k = 0;
        if (!chunk_selected(field, c))
            continue;
        o = chunk_policy(s, c);
        while (j0 < CHUNK) {
            uint32_t j1 = CHUNK, want, acc = 0, i;
            while (t->start[k + 1] <= ubase + j0)
                k++;
            want = t->code[k];
            if (t->start[k + 1] - ubase < j1)
                j1 = t->start[k + 1] - ubase;
            for (i = 0; i < NCUTS; i++) /* cut where the class of |x| changes */
                if (class_cuts[i] > ubase + j0 && class_cuts[i] - ubase < j1)
                    j1 = class_cuts[i] - ubase;
            if (per_input(P, F, ubase + j0)) {
                for (j = j0; j < j1; j++) {
                    const uint32_t x = base | j, got = mf_from_f32_profile(P, F, f32_from_bits(x), R, o);
                    g_got[j] = got;
                    acc |= got ^ expect_code(P, F, R, s->sat, x, want);
                }
            } else {
                const uint32_t e = expect_code(P, F, R, s->sat, base | j0, want);
                for (j = j0; j < j1; j++) {
                    const uint32_t got = mf_from_f32_profile(P, F, f32_from_bits(base | j), R, o);
                    g_got[j] = got;
                    acc |= got ^ e;
                }
            }
            if (acc)
                record_mismatches(s, base, j0, j1, want, res);
            res->visited += j1 - j0;
            j0 = j1;
        }
        if (g_all) {
            for (j = 0; j < CHUNK; j++) {
                s1 += g_got[j];
                s2 += g_got[j] * j;
            }
            res->digest += mix64(((uint64_t)s2 << 32 | s1) + (uint64_t)c * 0x9E3779B97F4A7C15u);
        }
        if (bulk_selected(field, c)) {
            res->scalar_cpu += cpu_s() - t0;
            bulk_chunk(s, base, o, res);
            t0 = cpu_s();
        }
    }
    res->scalar_cpu += cpu_s() - t0;
}

#define SWEEP_FN(name, P, F)                                                                                           \
    static EX_NOINLINE EX_FLATTEN void sweep_##name(const sweep_def *s, const mfo_bp *const tab[2],                    \
                                                    const unsigned char field[256], sweep_result *res)                 \
    {                                                                                                                  \
        if (s->round == RN) /* the mode a constant too where it is rn */                                               \
            scalar_sweep(P, F, RN, s, tab, field, res);                                                                \
        else                                                                                                           \
            scalar_sweep(P, F, s->round, s, tab, field, res);                                                          \
    }

SWEEP_FN(cuda_f16, MF_PROFILE_CUDA, MF_FP16)
SWEEP_FN(cuda_bf16, MF_PROFILE_CUDA, MF_BF16)
SWEEP_FN(cuda_e4m3, MF_PROFILE_CUDA, MF_FP8_E4M3)
SWEEP_FN(cuda_e5m2, MF_PROFILE_CUDA, MF_FP8_E5M2)
SWEEP_FN(cuda_e2m3, MF_PROFILE_CUDA, MF_FP6_E2M3)
SWEEP_FN(cuda_e3m2, MF_PROFILE_CUDA, MF_FP6_E3M2)
SWEEP_FN(cuda_e2m1, MF_PROFILE_CUDA, MF_FP4_E2M1)
SWEEP_FN(cuda_e8m0, MF_PROFILE_CUDA, MF_E8M0)
SWEEP_FN(ml_f16, MF_PROFILE_ML_DTYPES, MF_FP16)
SWEEP_FN(ml_bf16, MF_PROFILE_ML_DTYPES, MF_BF16)
SWEEP_FN(ml_e4m3, MF_PROFILE_ML_DTYPES, MF_FP8_E4M3)
SWEEP_FN(ml_e5m2, MF_PROFILE_ML_DTYPES, MF_FP8_E5M2)
SWEEP_FN(ml_e2m3, MF_PROFILE_ML_DTYPES, MF_FP6_E2M3)
SWEEP_FN(ml_e3m2, MF_PROFILE_ML_DTYPES, MF_FP6_E3M2)
SWEEP_FN(ml_e2m1, MF_PROFILE_ML_DTYPES, MF_FP4_E2M1)
SWEEP_FN(ml_e8m0, MF_PROFILE_ML_DTYPES, MF_E8M0)
SWEEP_FN(ml_e4m3fnuz, MF_PROFILE_ML_DTYPES, MF_FP8_E4M3FNUZ)
SWEEP_FN(ml_e5m2fnuz, MF_PROFILE_ML_DTYPES, MF_FP8_E5M2FNUZ)
SWEEP_FN(ml_e4m3b11fnuz, MF_PROFILE_ML_DTYPES, MF_FP8_E4M3B11FNUZ)
SWEEP_FN(ml_e4m3ieee, MF_PROFILE_ML_DTYPES, MF_FP8_E4M3IEEE)
SWEEP_FN(ml_e3m4, MF_PROFILE_ML_DTYPES, MF_FP8_E3M4)
SWEEP_FN(torch_f16, MF_PROFILE_TORCH, MF_FP16)
SWEEP_FN(torch_bf16, MF_PROFILE_TORCH, MF_BF16)
SWEEP_FN(torch_e4m3, MF_PROFILE_TORCH, MF_FP8_E4M3)
SWEEP_FN(torch_e5m2, MF_PROFILE_TORCH, MF_FP8_E5M2)
SWEEP_FN(torch_e4m3fnuz, MF_PROFILE_TORCH, MF_FP8_E4M3FNUZ)
SWEEP_FN(torch_e5m2fnuz, MF_PROFILE_TORCH, MF_FP8_E5M2FNUZ)
SWEEP_FN(torch_e8m0, MF_PROFILE_TORCH, MF_E8M0)
SWEEP_FN(onnx_f16, MF_PROFILE_ONNX, MF_FP16)
SWEEP_FN(onnx_bf16, MF_PROFILE_ONNX, MF_BF16)
SWEEP_FN(onnx_e4m3, MF_PROFILE_ONNX, MF_FP8_E4M3)
SWEEP_FN(onnx_e5m2, MF_PROFILE_ONNX, MF_FP8_E5M2)
SWEEP_FN(onnx_e4m3fnuz, MF_PROFILE_ONNX, MF_FP8_E4M3FNUZ)
SWEEP_FN(onnx_e5m2fnuz, MF_PROFILE_ONNX, MF_FP8_E5M2FNUZ)
SWEEP_FN(onnx_e2m1, MF_PROFILE_ONNX, MF_FP4_E2M1)
SWEEP_FN(onnx_e8m0, MF_PROFILE_ONNX, MF_E8M0)

typedef void (*sweep_fn)(const sweep_def *, const mfo_bp *const[2], const unsigned char[256], sweep_result *);

typedef struct {
    mf_profile p;
    mf_format fmt;
    sweep_fn fn;
} sweep_impl;

static const sweep_impl impls[] = {
    {MF_PROFILE_CUDA, MF_FP16, sweep_cuda_f16},
    {MF_PROFILE_CUDA, MF_BF16, sweep_cuda_bf16},
    {MF_PROFILE_CUDA, MF_FP8_E4M3, sweep_cuda_e4m3},
    {MF_PROFILE_CUDA, MF_FP8_E5M2, sweep_cuda_e5m2},
    {MF_PROFILE_CUDA, MF_FP6_E2M3, sweep_cuda_e2m3},
    {MF_PROFILE_CUDA, MF_FP6_E3M2, sweep_cuda_e3m2},
    {MF_PROFILE_CUDA, MF_FP4_E2M1, sweep_cuda_e2m1},
    {MF_PROFILE_CUDA, MF_E8M0, sweep_cuda_e8m0},
    {MF_PROFILE_ML_DTYPES, MF_FP16, sweep_ml_f16},
    {MF_PROFILE_ML_DTYPES, MF_BF16, sweep_ml_bf16},
    {MF_PROFILE_ML_DTYPES, MF_FP8_E4M3, sweep_ml_e4m3},
    {MF_PROFILE_ML_DTYPES, MF_FP8_E5M2, sweep_ml_e5m2},
    {MF_PROFILE_ML_DTYPES, MF_FP6_E2M3, sweep_ml_e2m3},
    {MF_PROFILE_ML_DTYPES, MF_FP6_E3M2, sweep_ml_e3m2},
    {MF_PROFILE_ML_DTYPES, MF_FP4_E2M1, sweep_ml_e2m1},
    {MF_PROFILE_ML_DTYPES, MF_E8M0, sweep_ml_e8m0},
    {MF_PROFILE_ML_DTYPES, MF_FP8_E4M3FNUZ, sweep_ml_e4m3fnuz},
    {MF_PROFILE_ML_DTYPES, MF_FP8_E5M2FNUZ, sweep_ml_e5m2fnuz},
    {MF_PROFILE_ML_DTYPES, MF_FP8_E4M3B11FNUZ, sweep_ml_e4m3b11fnuz},
    {MF_PROFILE_ML_DTYPES, MF_FP8_E4M3IEEE, sweep_ml_e4m3ieee},
    {MF_PROFILE_ML_DTYPES, MF_FP8_E3M4, sweep_ml_e3m4},
    {MF_PROFILE_TORCH, MF_FP16, sweep_torch_f16},
    {MF_PROFILE_TORCH, MF_BF16, sweep_torch_bf16},
    {MF_PROFILE_TORCH, MF_FP8_E4M3, sweep_torch_e4m3},
    {MF_PROFILE_TORCH, MF_FP8_E5M2, sweep_torch_e5m2},
    {MF_PROFILE_TORCH, MF_FP8_E4M3FNUZ, sweep_torch_e4m3fnuz},
    {MF_PROFILE_TORCH, MF_FP8_E5M2FNUZ, sweep_torch_e5m2fnuz},
    {MF_PROFILE_TORCH, MF_E8M0, sweep_torch_e8m0},
    {MF_PROFILE_ONNX, MF_FP16, sweep_onnx_f16},
    {MF_PROFILE_ONNX, MF_BF16, sweep_onnx_bf16},
    {MF_PROFILE_ONNX, MF_FP8_E4M3, sweep_onnx_e4m3},
    {MF_PROFILE_ONNX, MF_FP8_E5M2, sweep_onnx_e5m2},
    {MF_PROFILE_ONNX, MF_FP8_E4M3FNUZ, sweep_onnx_e4m3fnuz},
    {MF_PROFILE_ONNX, MF_FP8_E5M2FNUZ, sweep_onnx_e5m2fnuz},
    {MF_PROFILE_ONNX, MF_FP4_E2M1, sweep_onnx_e2m1},
    {MF_PROFILE_ONNX, MF_E8M0, sweep_onnx_e8m0},
};

static sweep_fn find_impl(mf_profile p, mf_format f)
{
    size_t i;
    for (i = 0; i < sizeof impls / sizeof impls[0]; i++)
        if (impls[i].p == p && impls[i].fmt == f)
            return impls[i].fn;
    return NULL;
}

/* The sweeps of the profile under test, in order: format, mode, policy. */
#define MAX_SWEEPS 64
static sweep_def g_sweeps[MAX_SWEEPS];
static int g_nsweeps;

static void plan_sweeps(mf_profile p)
{
    size_t i;
    int r, sat;
    g_nsweeps = 0;
    for (i = 0; i < NFORMATS; i++)
        for (r = 0; r < NMODES; r++) {
            if (!(swept_modes(p, formats[i].fmt) & M(r)))
                continue;
            for (sat = 0; sat < 2; sat++) {
                sweep_def *s;
                const int caller = doc_caller_policy(p, formats[i].fmt);
                if (!caller && sat != doc_fixed_sat(p, formats[i].fmt))
                    continue;
                s = &g_sweeps[g_nsweeps++];
                s->p = p;
                s->fmt = formats[i].fmt;
                s->fe = &formats[i];
                s->round = (mf_round)r;
                s->caller = caller;
                s->sat = sat;
            }
        }
}

static mfo_mode oracle_mode(mf_round r)
{
    switch (r) {
    case RZ: return MFO_RZ;
    case RU: return MFO_RU;
    case RD: return MFO_RD;
    default: return MFO_RN;
    }
}

START_TEST(test_sweep)
{
    const sweep_def *s = &g_sweeps[_i];
    const mfo_fmt *of = mfo_format(s->fe->tag);
    const char *pol = s->caller ? (s->sat ? "sat" : "ieee") : "fixed";
    mfo_bp tabs[2];
    const mfo_bp *tab[2] = {&tabs[0], &tabs[1]};
    unsigned char field[256];
    sweep_result res;
    sweep_fn fn = find_impl(s->p, s->fmt);
    int neg;

    ck_assert_ptr_nonnull(of);
    ck_assert(fn != NULL);
    memset(&res, 0, sizeof res);
    for (neg = 0; neg < 2; neg++)
        ck_assert_int_eq(mfo_bp_build(&tabs[neg], of, oracle_mode(s->round), s->sat, neg), 0);
    boundary_fields(of, s->caller && s->sat, field);
    fn(s, tab, field, &res);
    mfo_bp_free(&tabs[0]);
    mfo_bp_free(&tabs[1]);

    if (g_all)
        printf("digest %s %s %s %s %016" PRIx64 "\n", g_prof->name, s->fe->tag, mode_names[s->round], pol, res.digest);
    printf("time %s %s %s %s: %" PRIu64 " inputs, scalar %.2f s cpu, bulk %.2f s cpu\n", g_prof->name, s->fe->tag,
           mode_names[s->round], pol, res.visited, res.scalar_cpu, res.bulk_cpu);
    if (res.bad)
        printf("FAIL %s %s %s %s scalar: %" PRIu64 " inputs differ; first 0x%08" PRIx32 ": got 0x%" PRIx32
               ", want 0x%" PRIx32 "\n",
               g_prof->name, s->fe->tag, mode_names[s->round], pol, res.bad, res.first_in, res.first_got,
               res.first_want);
    if (res.bulk_bad)
        printf("FAIL %s %s %s %s bulk: %" PRIu64 " elements differ from the scalar; first 0x%08" PRIx32
               ": got 0x%" PRIx32 ", scalar 0x%" PRIx32 "\n",
               g_prof->name, s->fe->tag, mode_names[s->round], pol, res.bulk_bad, res.bfirst_in, res.bfirst_got,
               res.bfirst_want);
    fflush(stdout);
    ck_assert_msg(res.visited == expected_visits(field), "%s %s: visited %" PRIu64 " inputs, want %" PRIu64,
                  g_prof->name, s->fe->tag, res.visited, expected_visits(field));
    ck_assert_uint_eq(res.bulk_checked, expected_bulk(field));
    ck_assert_msg(res.bulk_status == MF_OK, "mf_convert under %s: %s", g_prof->name, mf_strerror(res.bulk_status));
    ck_assert_msg(!res.bad, "%s %s %s %s: mf_from_f32_profile differs from the expected codes (FAIL line)",
                  g_prof->name, s->fe->tag, mode_names[s->round], pol);
    ck_assert_msg(!res.bulk_bad, "%s %s %s %s: mf_convert differs from mf_from_f32_profile (FAIL line)", g_prof->name,
                  s->fe->tag, mode_names[s->round], pol);
}
END_TEST

/* ---- what each system has ------------------------------------------------------------------------ */

START_TEST(test_support)
{
    const mf_profile p = g_prof->p;
    size_t i;
    int r, n = 0;
    for (i = 0; i < NFORMATS; i++) {
        const mf_format f = formats[i].fmt;
        for (r = 0; r < NMODES; r++) {
            const int want = (doc_modes(p, f) & M(r)) != 0;
            ck_assert_msg(mf_profile_supports(p, f, (mf_round)r) == want, "%s %s %s: supports %d, docs say %d",
                          g_prof->name, formats[i].tag, mode_names[r], mf_profile_supports(p, f, (mf_round)r), want);
            if (!want) /* refused: UINT32_MAX, whatever the input */
                ck_assert_uint_eq(mf_from_f32_profile(p, f, 1.0f, (mf_round)r, MF_OVERFLOW_IEEE), UINT32_MAX);
            n += want;
        }
    }
    /* f32 is every system's (and is returned unchanged) */
    ck_assert(mf_profile_supports(p, MF_FP32, RN));
    ck_assert_uint_eq(mf_from_f32_profile(p, MF_FP32, -1.5f, RN, MF_OVERFLOW_IEEE), 0xBFC00000u);
    ck_assert_int_gt(n, 0);
    ck_assert_int_gt(g_nsweeps, 0);
}
END_TEST

/* ---- decoding every code --------------------------------------------------------------------------- */

/* The f32 bits system p decodes a NaN code of format f (oracle format of) into. Default (docs/formats.md):
 * sign and payload kept, quiet (e8m0 0xFF -> 0x7FC00000, fnuz 0x80 -> 0xFFC00000), bf16 the plain shift; then
 * the "decode" rows of docs/compat.md. */
static uint32_t doc_nan_decode(mf_profile p, const mfo_fmt *of, mf_format f, uint32_t code)
{
    const uint32_t sign = of->kind == MFO_KIND_E8M0 ? 0 : (code >> (of->bits - 1)) & 1u;
    const uint32_t mant = code & ((1u << of->mbits) - 1);
    const uint32_t dflt = f == MF_BF16 ? code << 16 : sign << 31 | 0x7FC00000u | mant << (23 - of->mbits);
    switch (p) {
    case MF_PROFILE_ML_DTYPES:
    case MF_PROFILE_ONNX: /* ONNX: "FP8, f16, bf16, e2m1: as ml_dtypes" */
        if (f == MF_FP8_E4M3 || f == MF_FP8_E5M2 || f == MF_FP8_E4M3IEEE || f == MF_FP8_E3M4)
            return sign << 31 | 0x7FC00000u; /* payload dropped */
        if (f == MF_FP16)
            return sign << 31 | 0x7F800000u | mant << 13; /* not quieted */
        return dflt;
    case MF_PROFILE_TORCH:
        if (f == MF_FP8_E4M3FNUZ || f == MF_FP8_E5M2FNUZ || f == MF_E8M0)
            return 0x7F800001u;
        return dflt;
    case MF_PROFILE_CUDA:
        if (f == MF_FP16 || f == MF_FP8_E4M3 || f == MF_FP8_E5M2)
            return 0x7FFFFFFFu; /* __half2float's canonical NaN */
        if (f == MF_E8M0)
            return 0x7FFF0000u; /* through bf16 0x7FFF */
        return dflt;
    default: return dflt;
    }
}

START_TEST(test_decode)
{
    const mf_profile p = g_prof->p;
    size_t i;
    uint64_t checked = 0, want_checked = 0;
    for (i = 0; i < NFORMATS; i++) {
        const mf_format f = formats[i].fmt;
        const mfo_fmt *of = mfo_format(formats[i].tag);
        const uint32_t ncodes = 1u << of->bits, sbit = of->kind == MFO_KIND_E8M0 ? 0 : 1u << (of->bits - 1);
        const uint32_t maxc = mfo_max_code(of);
        uint32_t c;
        if (!doc_modes(p, f)) { /* a format the system lacks: a NaN */
            const uint32_t b = mf_test_f32_bits(mf_to_f32_profile(p, f, 0));
            ck_assert_msg((b & 0x7FFFFFFFu) > 0x7F800000u, "%s %s: decodes to 0x%08x, want a NaN", g_prof->name,
                          formats[i].tag, b);
            continue;
        }
        want_checked += ncodes;
        for (c = 0; c < ncodes; c++) {
            const uint32_t mag = c & ~sbit, neg = sbit && (c & sbit);
            uint32_t want;
            const uint32_t got = mf_test_f32_bits(mf_to_f32_profile(p, f, c));
            if (of->kind == MFO_KIND_FNUZ && c == sbit)
                want = doc_nan_decode(p, of, f, c);
            else if (mag <= maxc) {
                const float v = (float)mfo_mag_value(of, mag); /* exact in binary32 */
                want = mf_test_f32_bits(neg ? -v : v);
            } else if (of->kind == MFO_KIND_IEEE && mag == maxc + 1)
                want = (uint32_t)neg << 31 | 0x7F800000u;
            else
                want = doc_nan_decode(p, of, f, c);
            MF_EXPECT(got == want, "%s %s decode 0x%x: got 0x%08x, want 0x%08x", g_prof->name, formats[i].tag, c, got,
                      want);
            checked++;
        }
    }
    ck_assert_uint_eq(checked, want_checked);
    ck_assert_uint_gt(checked, 0);
}
END_TEST

static Suite *profile_suite(void)
{
    Suite *s = suite_create("exhaustive_profile");
    TCase *tc = tcase_create("codes");
    tcase_add_test(tc, test_support);
    tcase_add_test(tc, test_decode);
    suite_add_tcase(s, tc);
    tc = tcase_create("sweep");
    tcase_add_loop_test(tc, test_sweep, 0, g_nsweeps);
    tcase_set_timeout(tc, SWEEP_TIMEOUT);
    suite_add_tcase(s, tc);
    return s;
}

/* usage: test_exhaustive_profile PROFILE. MF_EXHAUSTIVE_SHARD=all: every input; a number k: shard k % 256 of
 * the non-boundary fields; unset: the shard of the day (days since 1970 % 256). */
int main(int argc, char **argv)
{
    size_t i;
    const char *e = getenv("MF_EXHAUSTIVE_SHARD");
    if (argc != 2) {
        fprintf(stderr, "usage: %s <cuda|ml_dtypes|torch|onnx>\n", argv[0]);
        return 2;
    }
    for (i = 0; i < sizeof profiles / sizeof profiles[0]; i++)
        if (strcmp(profiles[i].name, argv[1]) == 0)
            g_prof = &profiles[i];
    if (!g_prof) {
        fprintf(stderr, "unknown profile %s\n", argv[1]);
        return 2;
    }
    g_all = e && strcmp(e, "all") == 0;
    g_shard = e && *e && !g_all ? (int)(strtoul(e, NULL, 10) % NSHARD)
                                : (int)((unsigned long)(time(NULL) / 86400) % NSHARD);
    if (!g_all)
        printf("%s: the boundary fields of each format and shard %d of %u of the rest (chunks of %u inputs c with "
               "c %% %u == %d; MF_EXHAUSTIVE_SHARD=all for every input)\n",
               g_prof->name, g_shard, NSHARD, CHUNK, NSHARD, g_shard);
    plan_sweeps(g_prof->p);
    return mf_run_suite(profile_suite());
}
