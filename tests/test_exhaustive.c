/* SPDX-License-Identifier: MIT */
/* tests/test_exhaustive.c - every binary32 input, one format per process (argv[1] = format tag).
 *
 * The scalar sweep visits all 2^32 inputs once, in bit-pattern order, and converts each with the
 * inline mf_from_f32 in ten ways: rn, rna, rz, ru and rd, each under the IEEE and the saturating
 * overflow policy (in CI rn on every input under one of the two policies, the other the next day, and the modes
 * other than rn on a sixteenth of the inputs, a different one each day;
 * MF_EXHAUSTIVE_SHARD=all, as scripts/setup.sh test-all sets: every input in every mode; the FNUZ and IEEE-style FP8 formats e4m3fnuz, e5m2fnuz, e4m3b11fnuz, e4m3ieee and
 * e3m4: rn under both policies only, the two ways that CI time allows; their other modes are the
 * unit tier's, test_boundary and test_f64; P3109's conformance formats: every mode with
 * MF_EXHAUSTIVE_SHARD=all, rn only in CI; in CI every row takes each input under one rn policy, by the
 * parity of its chunk and of the day: g_rn_half). Each result is compared with the breakpoint oracle
 * (oracle/breakpoints.c): the inputs of one sign are visited in ascending magnitude, so the expected
 * code comes from a cursor into a table of decision boundaries, O(1) per input. Doing the ten
 * conversions of one input together lets the compiler share their unpacking (less than half the time
 * of ten sweeps).
 *
 * The bulk sweeps run mf_convert over the same inputs in chunks of 64 Ki elements and compare with
 * the oracle too (so also with the scalar): the chunks c with c % 32 in {0, 31}, i.e. 1/16 of the inputs,
 * including the neighbourhood of every aligned power-of-two boundary, in every mode (mf_convert takes the best
 * backend here, whose own sweep below has every input; the portable mf_convert costs ~4 ns per element: all
 * inputs for all modes would take ~25 CPU-minutes). With a SIMD backend named
 * (argv[2]) only the bulk sweeps run, every mode and policy of every format on every input (or a shard). All the
 * bulk combinations run in one pass: a chunk's inputs are written once and each combination converts and checks it.
 *
 * Digest of a sweep, printed as `digest <fmt> <mode> <policy> <16 hex digits>`: the inputs, in
 * bit-pattern order, form 2^18 blocks of 2^14; block b (inputs b * 2^14 + j, output codes w_j) has
 *     S1 = sum of w_j,  S2 = sum of j * w_j  (both mod 2^32)
 * and the digest is the sum over b of mix64((S2 << 32 | S1) + b * 0x9E3779B97F4A7C15) mod 2^64, with
 * mix64 the SplitMix64 finaliser. Sums do not depend on the order of evaluation, so a SIMD or GPU
 * backend can reproduce the digest with any split or reduction; one changed code changes S1 and two
 * swapped codes change S2, so either changes the digest.
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
#include "../src/internal.h" /* which backend converts a pair, which is the best */
#include "oracle/breakpoints.h"

/* Each sweep function is flattened, so that the inline conversion is specialised for its constant
 * format, mode and policy. */
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
#define NCOMBO 10       /* modes x policies; combo i = mode i / 2, policy i % 2 */
#define NCOMBO_RN 2     /* rn under both policies: the combos 0 and 1 */
#define SCHUNK 16384u   /* inputs per digest block */
#define BCHUNK 65536u   /* inputs per bulk call */
#define BULK_STRIDE 32u /* non-rn bulk sweeps check chunks c with c % BULK_STRIDE in {0, BULK_STRIDE-1} */

typedef struct {
    mf_format fmt;
    const char *tag; /* the oracle's name of the same format */
    int ncombo;      /* combos the portable sweeps take, 0 .. ncombo - 1: NCOMBO (every mode) or NCOMBO_RN (rn
                      * only); a SIMD backend's bulk sweeps take every combo */
    int rn_in_ci;    /* NCOMBO's modes with MF_EXHAUSTIVE_SHARD=all (scripts/setup.sh test-all), else rn only */
} fmt_entry;

/* The swept formats, one line each: EX_FORMAT(tag, format, combos, rn_in_ci). The oracle knows each
 * by its tag. */
#define EX_FORMATS(EX_FORMAT)                                                                                          \
    EX_FORMAT(f16, MF_FP16, NCOMBO, 0)                                                                                 \
    EX_FORMAT(bf16, MF_BF16, NCOMBO, 0)                                                                                \
    EX_FORMAT(e4m3, MF_FP8_E4M3, NCOMBO, 0)                                                                            \
    EX_FORMAT(e5m2, MF_FP8_E5M2, NCOMBO, 0)                                                                            \
    EX_FORMAT(e2m3, MF_FP6_E2M3, NCOMBO, 0)                                                                            \
    EX_FORMAT(e3m2, MF_FP6_E3M2, NCOMBO, 0)                                                                            \
    EX_FORMAT(e2m1, MF_FP4_E2M1, NCOMBO, 0)                                                                            \
    EX_FORMAT(e8m0, MF_E8M0, NCOMBO, 0)                                                                                \
    EX_FORMAT(e4m3fnuz, MF_FP8_E4M3FNUZ, NCOMBO_RN, 0)                                                                 \
    EX_FORMAT(e5m2fnuz, MF_FP8_E5M2FNUZ, NCOMBO_RN, 0)                                                                 \
    EX_FORMAT(e4m3b11fnuz, MF_FP8_E4M3B11FNUZ, NCOMBO_RN, 0)                                                           \
    EX_FORMAT(e4m3ieee, MF_FP8_E4M3IEEE, NCOMBO_RN, 0)                                                                 \
    EX_FORMAT(e3m4, MF_FP8_E3M4, NCOMBO_RN, 0)                                                                         \
    /* IEEE P3109's conformance formats (report 4.5): every mode, SatNone ("ieee") and SatFinite ("sat"), with
     * MF_EXHAUSTIVE_SHARD=all; in CI rn (CI time: binary8p4se and binary8p3se sweep every mode per backend); the
     * bulk loop sampled */          \
    EX_FORMAT(binary8p4se, MF_BINARY8P4SE, NCOMBO, 1)                                                                  \
    EX_FORMAT(binary8p3se, MF_BINARY8P3SE, NCOMBO, 1)                                                                  \
    EX_FORMAT(binary4p2sf, MF_BINARY4P2SF, NCOMBO, 1)

static const fmt_entry formats[] = {
#define EX_ENTRY(name, F, NC, CIRN) {F, #name, NC, CIRN},
    EX_FORMATS(EX_ENTRY)
#undef EX_ENTRY
};

typedef struct {
    mf_round round;
    mfo_mode oracle;
    const char *name;
} mode_entry;

static const mode_entry modes[] = {
    {MF_ROUND_NEAREST_EVEN, MFO_RN, "rn"}, {MF_ROUND_NEAREST_AWAY, MFO_RNA, "rna"},
    {MF_ROUND_TOWARD_ZERO, MFO_RZ, "rz"},  {MF_ROUND_UP, MFO_RU, "ru"},
    {MF_ROUND_DOWN, MFO_RD, "rd"},
};
#define NMODES 5

static const char *policy_names[] = {"ieee", "sat"};

/* The portable sweeps' combos for this run: g_fmt->ncombo, or NCOMBO_RN for a row with rn_in_ci outside test-all */
static int g_ncombo;
/* Set when a SIMD backend is under test: its bulk sweeps are cheap, so every mode sees every input. */
static int g_backend_only;
/* a backend's sweep over one sixteenth of the inputs: the chunks c with c % 16 == g_shard; -1: all */
static int g_shard = -1;
#define NSHARD 16u
/* The portable scalar sweep's modes other than rn on one sixteenth of the inputs (chunks of SCHUNK, c % 16 ==
 * g_scalar_shard; CI time), a different one each day; -1 (MF_EXHAUSTIVE_SHARD=all): every input in every mode */
static int g_scalar_shard = -1;
/* The rows swept in rn only (ncombo or rn_in_ci), in CI: each input under one policy, rn ieee on the chunks c with
 * (c + g_rn_half) even and rn sat on the others, g_rn_half the day's parity (CI time); -1: both on every input */
static int g_rn_half = -1;

/* The format under test (set by main before the suite runs; forked tests inherit it). */
static const fmt_entry *g_fmt;

static float g_src[BCHUNK];
static uint16_t g_dst[BCHUNK]; /* 2-byte elements fit every destination layout */

static double now_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* SplitMix64's finaliser. */
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

/* The oracle's tables of one format: tab[combo][sign]. */
typedef struct {
    mfo_bp tab[NCOMBO][2];
} oracle_set;

static void build_tables(oracle_set *o, const mfo_fmt *of, int nc)
{
    int i, neg;
    memset(o, 0, sizeof *o);
    for (i = 0; i < nc; i++)
        for (neg = 0; neg < 2; neg++)
            ck_assert_int_eq(mfo_bp_build(&o->tab[i][neg], of, modes[i / 2].oracle, i % 2, neg), 0);
}

static void free_tables(oracle_set *o)
{
    int i, neg;
    for (i = 0; i < NCOMBO; i++) /* the combos not built are empty: freeing them is a no-op */
        for (neg = 0; neg < 2; neg++)
            mfo_bp_free(&o->tab[i][neg]);
}

/* ---- the scalar sweep ------------------------------------------------------------------------ */

typedef struct {
    uint64_t visited;
    uint64_t digest[NCOMBO], bad[NCOMBO], swept[NCOMBO]; /* swept: the inputs a combo was checked on */
    uint32_t s1[NCOMBO], s2[NCOMBO]; /* the digest sums of the current block */
    uint32_t first_in[NCOMBO], first_got[NCOMBO], first_want[NCOMBO];
} scalar_result;

/* The rare path: some conversion in inputs base + [j0, j1) differs from the expected codes. Redo
 * them one by one, count and record the mismatches, and correct the block's digest sums (which the
 * hot loop accumulated as if every code were the expected one). */
static EX_NOINLINE void account_mismatches(mf_format F, int c0, int nc, uint32_t base, uint32_t j0, uint32_t j1,
                                           const uint32_t *want, scalar_result *res)
{
    uint32_t i, j;
    for (i = (uint32_t)c0; i < (uint32_t)(c0 + nc); i++)
        for (j = j0; j < j1; j++) {
            uint32_t got = mf_from_f32(F, f32_from_bits(base | j), modes[i / 2].round, (mf_overflow)(i % 2), 0);
            if (got == want[i])
                continue;
            if (res->bad[i]++ == 0) {
                res->first_in[i] = base | j;
                res->first_got[i] = got;
                res->first_want[i] = want[i];
            }
            res->s1[i] += got - want[i];
            res->s2[i] += (got - want[i]) * j;
        }
}

#define EX_CONV(i, R, O) acc |= mf_from_f32(F, x, R, O, 0) ^ want[i]
#define EX_CONV_IF(i, R, O)                                                                                            \
    if (C0 <= (i) && (i) < C0 + NC)                                                                                    \
    EX_CONV(i, R, O)

/* F and NC (the combos 0 .. NC - 1: NCOMBO or NCOMBO_RN) are constants at every call site. The hot
 * loop only converts and compares; a block's digest sums come from the runs of equal expected codes
 * (O(1) per run), corrected on a mismatch. */
/* The chunk c of SCHUNK inputs for the combos C0 .. C0 + NC - 1 (k: the oracle tables' cursors): every combo (C0 0,
 * NC NCOMBO), rn under both policies (0, NCOMBO_RN), under one (0 or 1, 1), or the modes other than rn (NCOMBO_RN,
 * NCOMBO - NCOMBO_RN) */
EX_FORCE_INLINE void scalar_chunk(mf_format F, const uint32_t C0, const uint32_t NC, const oracle_set *o,
                                  scalar_result *res, uint32_t c, size_t *k)
{
    const int neg = (int)(c >> 17);
    const uint32_t base = c * SCHUNK, ubase = base & 0x7FFFFFFFu;
    uint32_t j0 = 0, j, i;
    for (i = C0; i < C0 + NC; i++)
        res->s1[i] = res->s2[i] = 0;
    while (j0 < SCHUNK) {
        uint32_t want[NCOMBO], j1 = SCHUNK, acc = 0;
        uint64_t n, jsum;
        for (i = C0; i < C0 + NC; i++) { /* cut the block where any expected code changes */
            const mfo_bp *t = &o->tab[i][neg];
            while (t->start[k[i] + 1] <= ubase + j0)
                k[i]++;
            want[i] = t->code[k[i]];
            if (t->start[k[i] + 1] - ubase < j1)
                j1 = t->start[k[i] + 1] - ubase;
        }
        for (j = j0; j < j1; j++) {
            const float x = f32_from_bits(base | j);
            /* C0 and NC are constants at every call site: the loop has no branch here */
            EX_CONV_IF(0, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE);
            EX_CONV_IF(1, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE);
            EX_CONV_IF(2, MF_ROUND_NEAREST_AWAY, MF_OVERFLOW_IEEE);
            EX_CONV_IF(3, MF_ROUND_NEAREST_AWAY, MF_OVERFLOW_SATURATE);
            EX_CONV_IF(4, MF_ROUND_TOWARD_ZERO, MF_OVERFLOW_IEEE);
            EX_CONV_IF(5, MF_ROUND_TOWARD_ZERO, MF_OVERFLOW_SATURATE);
            EX_CONV_IF(6, MF_ROUND_UP, MF_OVERFLOW_IEEE);
            EX_CONV_IF(7, MF_ROUND_UP, MF_OVERFLOW_SATURATE);
            EX_CONV_IF(8, MF_ROUND_DOWN, MF_OVERFLOW_IEEE);
            EX_CONV_IF(9, MF_ROUND_DOWN, MF_OVERFLOW_SATURATE);
            if (C0 == 0 || C0 == 1) /* a chunk's inputs count once: the pass that takes rn */
                res->visited++;
        }
        n = j1 - j0;
        jsum = (uint64_t)(j0 + j1 - 1) * n / 2; /* j0 + ... + (j1 - 1) */
        for (i = C0; i < C0 + NC; i++) {
            res->s1[i] += (uint32_t)(want[i] * n);
            res->s2[i] += (uint32_t)(want[i] * jsum);
        }
        if (acc)
            account_mismatches(F, (int)C0, (int)NC, base, j0, j1, want, res);
        j0 = j1;
    }
    for (i = C0; i < C0 + NC; i++) {
        res->digest[i] += mix64(((uint64_t)res->s2[i] << 32 | res->s1[i]) + (uint64_t)c * 0x9E3779B97F4A7C15u);
        res->swept[i] += SCHUNK;
    }
}

/* F and NC (the combos 0 .. NC - 1: NCOMBO or NCOMBO_RN) are constants at every call site. The hot
 * loop only converts and compares; a block's digest sums come from the runs of equal expected codes
 * (O(1) per run), corrected on a mismatch. With g_rn_half >= 0 (CI) rn takes each chunk under one policy (ieee on
 * the chunks c with c + g_rn_half even, sat on the others) and the other modes take the chunks c with
 * c % NSHARD == g_scalar_shard only (the cursors of a combo catch up in the next chunk it takes). */
EX_FORCE_INLINE void scalar_sweep(mf_format F, const uint32_t NC, const oracle_set *o, scalar_result *res)
{
    size_t k[NCOMBO] = {0};
    uint32_t c, i;

    for (c = 0; c < ((uint64_t)1 << 32) / SCHUNK; c++) {
        if ((c & 0x1FFFFu) == 0) /* a new sign: magnitudes start again from zero */
            for (i = 0; i < NC; i++)
                k[i] = 0;
        if (g_rn_half < 0) {
            scalar_chunk(F, 0, NC, o, res, c, k);
            continue;
        }
        if ((c + (uint32_t)g_rn_half) & 1u) /* one rn policy a chunk */
            scalar_chunk(F, 1, 1, o, res, c, k);
        else
            scalar_chunk(F, 0, 1, o, res, c, k);
        if (NC == NCOMBO && c % NSHARD == (uint32_t)g_scalar_shard)
            scalar_chunk(F, NCOMBO_RN, NCOMBO - NCOMBO_RN, o, res, c, k);
    }
}

/* One function per format, flattened, and kept out of run_scalar (inlined there, the rn-only sweeps lost
 * their flattening). */
#define SCALAR_FN(name, F, NC, CIRN)                                                                             \
    static EX_NOINLINE EX_FLATTEN void scalar_##name(const oracle_set *o, scalar_result *res)                          \
    {                                                                                                                  \
        scalar_sweep(F, NC, o, res);                                                                                   \
    }                                                                                                                  \
    SCALAR_RN_FN_##CIRN(name, F)
/* the rn-only sweep of a row that takes it in CI (rn_in_ci) */
#define SCALAR_RN_FN_0(name, F)
#define SCALAR_RN_FN_1(name, F)                                                                                        \
    static EX_NOINLINE EX_FLATTEN void scalar_rn_##name(const oracle_set *o, scalar_result *res)                       \
    {                                                                                                                  \
        scalar_sweep(F, NCOMBO_RN, o, res);                                                                            \
    }

EX_FORMATS(SCALAR_FN)

#define SCALAR_RN_CALL_0(name) scalar_##name(o, res)
#define SCALAR_RN_CALL_1(name) (g_ncombo == NCOMBO_RN ? scalar_rn_##name(o, res) : scalar_##name(o, res))
static void run_scalar(mf_format F, const oracle_set *o, scalar_result *res)
{
    switch (F) {
#define EX_CASE(name, FMT, NC, CIRN)                                                                             \
    case FMT: SCALAR_RN_CALL_##CIRN(name); break;
        EX_FORMATS(EX_CASE)
#undef EX_CASE
    default: break;
    }
}

START_TEST(test_scalar_sweep)
{
    const mfo_fmt *of = mfo_format(g_fmt->tag);
    oracle_set *o = (oracle_set *)malloc(sizeof *o);
    scalar_result *res = (scalar_result *)calloc(1, sizeof *res);
    double t0, c0, dt, dc;
    int i, failed = 0;

    ck_assert_ptr_nonnull(of);
    ck_assert_ptr_nonnull(o);
    ck_assert_ptr_nonnull(res);
    build_tables(o, of, g_ncombo);
    t0 = now_s(CLOCK_MONOTONIC);
    c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
    run_scalar(g_fmt->fmt, o, res);
    dt = now_s(CLOCK_MONOTONIC) - t0;
    dc = now_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    free_tables(o);
    free(o);

    for (i = 0; i < g_ncombo; i++)
        if (res->swept[i] == (uint64_t)1 << 32)
            printf("digest %s %s %s %016" PRIx64 "\n", g_fmt->tag, modes[i / 2].name, policy_names[i % 2],
                   res->digest[i]);
        else if (i < NCOMBO_RN) /* half of the chunks: the two halves' digests sum (mod 2^64) to a full sweep's */
            printf("digest %s %s %s half %d: %016" PRIx64 "\n", g_fmt->tag, modes[i / 2].name, policy_names[i % 2],
                   g_rn_half, res->digest[i]);
        else /* a digest of the shard's chunks: not comparable with a full sweep's */
            printf("digest %s %s %s shard %d of %u: %016" PRIx64 "\n", g_fmt->tag, modes[i / 2].name,
                   policy_names[i % 2], g_scalar_shard, NSHARD, res->digest[i]);
    {
        double conv = 0;
        for (i = 0; i < g_ncombo; i++)
            conv += (double)res->swept[i] / 4294967296.0;
        printf("time %s scalar sweep, %.3g x 2^32 conversions: %.1f s wall, %.1f s cpu\n", g_fmt->tag, conv, dt, dc);
    }
    for (i = 0; i < g_ncombo; i++)
        if (res->bad[i]) {
            failed = 1;
            printf("FAIL %s %s %s: %" PRIu64 " inputs differ from the oracle; first 0x%08" PRIx32 ": got 0x%" PRIx32
                   ", want 0x%" PRIx32 "\n",
                   g_fmt->tag, modes[i / 2].name, policy_names[i % 2], res->bad[i], res->first_in[i], res->first_got[i],
                   res->first_want[i]);
        }
    fflush(stdout);
    ck_assert_msg(res->visited == (uint64_t)1 << 32, "%s: visited %" PRIu64 " inputs, want 2^32", g_fmt->tag,
                  res->visited);
    for (i = 0; i < g_ncombo; i++)
        ck_assert_uint_eq(res->swept[i], i < NCOMBO_RN    ? (uint64_t)1 << (g_rn_half >= 0 ? 31 : 32)
                                         : g_scalar_shard < 0 ? (uint64_t)1 << 32
                                                              : ((uint64_t)1 << 32) / NSHARD);
    ck_assert_msg(!failed, "%s: mf_from_f32 differs from the oracle (see the FAIL lines)", g_fmt->tag);
    free(res);
}
END_TEST

/* ---- the bulk sweeps ------------------------------------------------------------------------- */

/* Element j of a bulk output array in format F's layout. */
EX_FORCE_INLINE uint32_t bulk_code(mf_format F, uint32_t j)
{
    const uint8_t *b = (const uint8_t *)g_dst;
    switch (F) {
    case MF_FP16:
    case MF_BF16: return g_dst[j];
    case MF_FP4_E2M1:
    case MF_BINARY4P2SF: return (uint32_t)(b[j >> 1] >> (4 * (j & 1u))) & 0xFu; /* two codes a byte */
    default: return b[j];
    }
}

typedef struct {
    uint64_t checked, bad;
    uint32_t first_in, first_got, first_want;
    int status;
} bulk_result;

/* OR of (code ^ want) over the packed e2m1 codes j0 .. j1 - 1 of g_dst: whole bytes are compared two codes
 * at a time, so that the loop vectorizes (bulk_code's shift by the element's parity keeps it scalar) */
EX_FORCE_INLINE uint32_t e2m1_run_diff(uint32_t j0, uint32_t j1, uint32_t want)
{
    const uint8_t *b = (const uint8_t *)g_dst;
    const uint32_t w2 = want | want << 4;
    uint32_t acc = 0, j = j0, k;
    if ((j & 1u) && j < j1)
        acc |= bulk_code(MF_FP4_E2M1, j++) ^ want;
    for (k = j >> 1; k < j1 >> 1; k++)
        acc |= b[k] ^ w2;
    if (j1 & 1u && j1 > j)
        acc |= bulk_code(MF_FP4_E2M1, j1 - 1) ^ want;
    return acc;
}

/* OR of (code ^ want) over the codes j0 .. j1 - 1 of g_dst, read in the storage's own width so that the loop
 * compares 16 (or 8) codes a vector instruction; a want wider than the storage counts as a difference */
EX_FORCE_INLINE uint32_t run_diff(mf_format F, uint32_t j0, uint32_t j1, uint32_t want)
{
    uint32_t j;
    if (F == MF_FP4_E2M1 || F == MF_BINARY4P2SF) /* the same packed layout */
        return e2m1_run_diff(j0, j1, want);
    if (F == MF_FP16 || F == MF_BF16) {
        const uint16_t w = (uint16_t)want;
        uint16_t acc = 0;
        for (j = j0; j < j1; j++)
            acc |= (uint16_t)(g_dst[j] ^ w);
        return acc | (want & ~0xFFFFu);
    } else {
        const uint8_t *b = (const uint8_t *)g_dst, w = (uint8_t)want;
        uint8_t acc = 0;
        for (j = j0; j < j1; j++)
            acc |= (uint8_t)(b[j] ^ w);
        return acc | (want & ~0xFFu);
    }
}

/* One combination's bulk sweep: its options, the oracle's tables (by sign), the chunks it takes (c % stride in
 * {0, stride - 1}), its cursor in the tables and its result */
typedef struct {
    mf_opts opts;
    const mfo_bp *tab[2];
    uint32_t stride;
    size_t k;
    bulk_result res;
} bulk_combo;

/* Every combination's sweep in one pass over the chunks: a chunk's inputs are written once and converted by each
 * combination that takes it (the inputs' writes cost as much as a backend's conversion) */
EX_FORCE_INLINE void bulk_sweep(mf_format F, bulk_combo *cb, int nc)
{
    uint32_t c;
    int i;

    for (c = 0; c < ((uint64_t)1 << 32) / BCHUNK; c++) {
        const uint32_t base = c * BCHUNK, ubase = base & 0x7FFFFFFFu;
        int made = 0;
        if ((c & 0x7FFFu) == 0) /* a new sign: magnitudes start again from zero */
            for (i = 0; i < nc; i++)
                cb[i].k = 0;
        if (g_shard >= 0 && c % NSHARD != (uint32_t)g_shard)
            continue;
        for (i = 0; i < nc; i++) {
            bulk_combo *b = &cb[i];
            const mfo_bp *t = b->tab[c >> 15];
            size_t k = b->k;
            uint32_t j0 = 0, j;
            int st;
            if (b->res.status != MF_OK || (c % b->stride != 0 && c % b->stride != b->stride - 1))
                continue;
            if (!made) {
                for (j = 0; j < BCHUNK; j++)
                    g_src[j] = f32_from_bits(base | j);
                made = 1;
            }
            st = mf_convert(F, g_dst, MF_FP32, g_src, BCHUNK, &b->opts);
            if (st != MF_OK) {
                b->res.status = st;
                continue;
            }
            while (j0 < BCHUNK) {
                uint32_t j1 = BCHUNK, want;
                while (t->start[k + 1] <= ubase + j0)
                    k++;
                want = t->code[k];
                if (t->start[k + 1] - ubase < j1)
                    j1 = t->start[k + 1] - ubase;
                if (run_diff(F, j0, j1, want))
                    for (j = j0; j < j1; j++)
                        if (bulk_code(F, j) != want && b->res.bad++ == 0) {
                            b->res.first_in = base | j;
                            b->res.first_got = bulk_code(F, j);
                            b->res.first_want = want;
                        }
                b->res.checked += j1 - j0;
                j0 = j1;
            }
            b->k = k;
        }
    }
}

#define BULK_FN(name, F)                                                                                               \
    static EX_FLATTEN void bulk_##name(bulk_combo *cb, int nc)                                                         \
    {                                                                                                                  \
        bulk_sweep(F, cb, nc);                                                                                         \
    }

#define EX_BULK_FN(name, F, NC, CIRN) BULK_FN(name, F)
EX_FORMATS(EX_BULK_FN)
#undef EX_BULK_FN

static void run_bulk(mf_format F, bulk_combo *cb, int nc)
{
    switch (F) {
#define EX_CASE(name, FMT, NC, CIRN)                                                                             \
    case FMT: bulk_##name(cb, nc); break;
        EX_FORMATS(EX_CASE)
#undef EX_CASE
    default: break;
    }
}

/* The combos 0 .. g_ncombo - 1 (combo i = mode i / 2, policy i % 2; a backend: every combo) in one pass */
START_TEST(test_bulk_sweep)
{
    const mfo_fmt *of = mfo_format(g_fmt->tag);
    const int nc = g_backend_only ? NCOMBO : g_ncombo;
    oracle_set *o = (oracle_set *)malloc(sizeof *o);
    bulk_combo cb[NCOMBO];
    double t0, c0, dt, dc;
    int i, failed = 0;

    ck_assert_ptr_nonnull(of);
    ck_assert_ptr_nonnull(o);
    build_tables(o, of, nc);
    memset(cb, 0, sizeof cb);
    for (i = 0; i < nc; i++) {
        const mode_entry *m = &modes[i / 2];
        /* Without a backend named, mf_convert takes the best one, whose own sweep (exhaustive_<fmt>_<backend>) has
         * every input in every mode: here the 1/16 of chunks (loads, stores, every power-of-two neighbourhood). */
        const int full = g_backend_only;
        cb[i].opts.round = m->round;
        cb[i].opts.overflow = (mf_overflow)(i % 2);
        cb[i].tab[0] = &o->tab[i][0];
        cb[i].tab[1] = &o->tab[i][1];
        cb[i].stride = full ? 1u : BULK_STRIDE;
        cb[i].res.status = MF_OK;
    }
    t0 = now_s(CLOCK_MONOTONIC);
    c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
    run_bulk(g_fmt->fmt, cb, nc);
    dt = now_s(CLOCK_MONOTONIC) - t0;
    dc = now_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    free_tables(o);
    free(o);
    printf("time %s bulk sweeps, %d combinations: %.1f s wall, %.1f s cpu\n", g_fmt->tag, nc, dt, dc);
    for (i = 0; i < nc; i++) {
        const mode_entry *m = &modes[i / 2];
        const bulk_result *r = &cb[i].res;
        const uint64_t expect = cb[i].stride != 1 ? ((uint64_t)1 << 32) / cb[i].stride * 2
                                : g_shard >= 0    ? ((uint64_t)1 << 32) / NSHARD
                                                  : (uint64_t)1 << 32;
        printf("bulk %s %s %s: %" PRIu64 " inputs, %" PRIu64 " differ\n", g_fmt->tag, m->name, policy_names[i % 2],
               r->checked, r->bad);
        if (r->status != MF_OK) {
            printf("FAIL %s %s %s: mf_convert returned %d\n", g_fmt->tag, m->name, policy_names[i % 2], r->status);
            failed = 1;
        } else if (r->checked != expect) {
            printf("FAIL %s %s %s: bulk checked %" PRIu64 " inputs, want %" PRIu64 "\n", g_fmt->tag, m->name,
                   policy_names[i % 2], r->checked, expect);
            failed = 1;
        } else if (r->bad != 0) {
            printf("FAIL %s %s %s: mf_convert differs from the oracle on %" PRIu64 " inputs; first 0x%08" PRIx32
                   ": got 0x%" PRIx32 ", want 0x%" PRIx32 "\n",
                   g_fmt->tag, m->name, policy_names[i % 2], r->bad, r->first_in, r->first_got, r->first_want);
            failed = 1;
        }
    }
    fflush(stdout);
    ck_assert_msg(!failed, "%s: mf_convert differs from the oracle (see the FAIL lines)", g_fmt->tag);
}
END_TEST

/* ---- the oracle's own checks ----------------------------------------------------------------- */

/* The tables agree with the slow nearest-value search at every boundary, one pattern either side
 * of it, and on a spread of other patterns. */
START_TEST(test_oracle_tables)
{
    const mode_entry *m = &modes[_i / 2];
    const int sat = _i % 2;
    const mfo_fmt *of = mfo_format(g_fmt->tag);
    uint64_t checked = 0;
    int neg;

    ck_assert_ptr_nonnull(of);
    for (neg = 0; neg < 2; neg++) {
        const uint32_t s = neg ? 0x80000000u : 0u;
        mfo_bp t;
        size_t k;
        uint32_t u;
        ck_assert_int_eq(mfo_bp_build(&t, of, m->oracle, sat, neg), 0);
        for (k = 0; k < t.n; k++) {
            int d;
            for (d = -1; d <= 1; d++) {
                uint32_t p = t.start[k] + (uint32_t)d;
                uint32_t want;
                if (p > 0x7FFFFFFFu)
                    continue;
                want = mfo_round_slow(of, m->oracle, sat, (double)f32_from_bits(s | p));
                MF_EXPECT(mfo_bp_lookup(&t, s | p) == want, "%s %s %d: 0x%08x table 0x%x slow 0x%x", of->tag, m->name,
                          sat, s | p, mfo_bp_lookup(&t, s | p), want);
                checked++;
            }
        }
        for (u = 0; u < 0x7FFFFFFFu - 999983u; u += 999983u) {
            uint32_t want = mfo_round_slow(of, m->oracle, sat, (double)f32_from_bits(s | u));
            MF_EXPECT(mfo_bp_lookup(&t, s | u) == want, "%s %s %d: 0x%08x table 0x%x slow 0x%x", of->tag, m->name, sat,
                      s | u, mfo_bp_lookup(&t, s | u), want);
            checked++;
        }
        mfo_bp_free(&t);
    }
    ck_assert_uint_gt(checked, 2 * 2000);
}
END_TEST

static uint32_t oracle_rn(const char *tag, int sat, float x)
{
    return mfo_round_slow(mfo_format(tag), MFO_RN, sat, (double)x);
}

/* Hand-derived cases from the semantics, checked against the oracle itself (not the library). */
START_TEST(test_oracle_anchors)
{
    /* e4m3: 464 is the midpoint of 448 (0x7E, even) and the virtual 480; 465 overflows. */
    ck_assert_uint_eq(oracle_rn("e4m3", 0, 464.0f), 0x7E);
    ck_assert_uint_eq(oracle_rn("e4m3", 0, 465.0f), 0x7F);
    ck_assert_uint_eq(oracle_rn("e4m3", 0, -465.0f), 0x7F); /* the NaN has its sign clear */
    ck_assert_uint_eq(oracle_rn("e4m3", 1, -465.0f), 0xFE);
    /* e5m2: 61440 is the midpoint of 57344 (0x7B, odd) and 65536 (even): overflow. */
    ck_assert_uint_eq(oracle_rn("e5m2", 0, 61440.0f), 0x7C);
    ck_assert_uint_eq(oracle_rn("e5m2", 1, 61440.0f), 0x7B);
    ck_assert_uint_eq(oracle_rn("e5m2", 0, 61439.0f), 0x7B);
    /* f16: 65520 is the midpoint of 65504 (0x7BFF, odd) and 65536. */
    ck_assert_uint_eq(oracle_rn("f16", 0, 65520.0f), 0x7C00);
    ck_assert_uint_eq(oracle_rn("f16", 0, 65519.0f), 0x7BFF);
    ck_assert_uint_eq(oracle_rn("f16", 0, -0.0f), 0x8000);
    ck_assert_uint_eq(oracle_rn("f16", 0, 0x1p-25f), 0x0000); /* tie with 0x0001 goes to even */
    ck_assert_uint_eq(oracle_rn("f16", 0, 0x1.000002p-25f), 0x0001);
    ck_assert_uint_eq(oracle_rn("bf16", 0, 1.0f + 0x1p-8f), 0x3F80); /* tie, 0x3F80 even */
    ck_assert_uint_eq(oracle_rn("bf16", 0, 1.0f + 3 * 0x1p-8f), 0x3F82);
    /* e2m1: 5.0 is the midpoint of 4 (0x6) and 6 (0x7); 0.25 of 0 and 0.5. */
    ck_assert_uint_eq(oracle_rn("e2m1", 0, 5.0f), 0x6);
    ck_assert_uint_eq(oracle_rn("e2m1", 0, 0.25f), 0x0);
    ck_assert_uint_eq(oracle_rn("e2m1", 0, -0.25f), 0x8);
    ck_assert_uint_eq(oracle_rn("e2m1", 0, 100.0f), 0x7);
    ck_assert_uint_eq(oracle_rn("e2m1", 0, -100.0f), 0xF);
    ck_assert_uint_eq(oracle_rn("e2m3", 0, 7.75f), 0x1F);
    ck_assert_uint_eq(oracle_rn("e3m2", 0, -30.0f), 0x3F);
    /* e8m0: ties go up; |x| is used; tiny inputs clamp to code 0. */
    ck_assert_uint_eq(oracle_rn("e8m0", 0, 1.5f), 0x80);
    ck_assert_uint_eq(oracle_rn("e8m0", 0, 3.0f), 0x81);
    ck_assert_uint_eq(oracle_rn("e8m0", 0, -1.0f), 0x7F);
    ck_assert_uint_eq(oracle_rn("e8m0", 0, 0.0f), 0x00);
    ck_assert_uint_eq(oracle_rn("e8m0", 0, 0x1p-128f), 0x00);
    ck_assert_uint_eq(oracle_rn("e8m0", 0, 0x1.8p127f), 0xFF);
    ck_assert_uint_eq(oracle_rn("e8m0", 1, 0x1.8p127f), 0xFE);
    ck_assert_uint_eq(mfo_round_slow(mfo_format("e8m0"), MFO_RU, 0, 0x1.000002p127), 0xFF);
    ck_assert_uint_eq(mfo_round_slow(mfo_format("e8m0"), MFO_RD, 0, -3.0), 0x80);
    ck_assert_uint_eq(mfo_round_slow(mfo_format("e8m0"), MFO_RU, 0, -3.0), 0x81);
    /* Directed overflow: ru of a negative value stays finite; rd of it goes to -inf. */
    ck_assert_uint_eq(mfo_round_slow(mfo_format("e4m3"), MFO_RU, 0, -1000.0), 0xFE);
    ck_assert_uint_eq(mfo_round_slow(mfo_format("e4m3"), MFO_RD, 0, -1000.0), 0x7F);
    ck_assert_uint_eq(mfo_round_slow(mfo_format("f16"), MFO_RZ, 0, 1e30), 0x7BFF);
    ck_assert_uint_eq(mfo_round_slow(mfo_format("f16"), MFO_RZ, 0, -(double)INFINITY), 0xFC00);
    ck_assert_uint_eq(mfo_round_slow(mfo_format("f16"), MFO_RN, 1, (double)INFINITY), 0x7BFF);
    ck_assert_uint_eq(mfo_round_slow(mfo_format("bf16"), MFO_RN, 0, -(double)NAN), 0x7FFF);
    ck_assert_uint_eq(mfo_round_slow(mfo_format("e5m2"), MFO_RU, 0, 0x1p-18), 0x01);

    /* The FNUZ formats (docs/formats.md): NaN = 0x80, no inf, no -0. e4m3fnuz (bias 8): max 240 = 0x7F
     * (E 15, M 7); the virtual next value is 256 (code 0x80, even), so 248 is a tie that goes up:
     * overflow, the NaN 0x80 under IEEE (whatever the sign), +-max when saturating. */
    ck_assert_uint_eq(oracle_rn("e4m3fnuz", 0, 240.0f), 0x7F);
    ck_assert_uint_eq(oracle_rn("e4m3fnuz", 0, 247.0f), 0x7F);
    ck_assert_uint_eq(oracle_rn("e4m3fnuz", 0, 248.0f), 0x80);
    ck_assert_uint_eq(oracle_rn("e4m3fnuz", 0, -248.0f), 0x80);
    ck_assert_uint_eq(oracle_rn("e4m3fnuz", 1, 248.0f), 0x7F);
    ck_assert_uint_eq(oracle_rn("e4m3fnuz", 1, -248.0f), 0xFF);
    ck_assert_uint_eq(oracle_rn("e4m3fnuz", 0, 1.0f), 0x40); /* E = 8 */
    ck_assert_uint_eq(oracle_rn("e4m3fnuz", 0, -1.0f), 0xC0);
    ck_assert_uint_eq(oracle_rn("e4m3fnuz", 0, 0x1p-10f), 0x01); /* the smallest subnormal */
    ck_assert_uint_eq(oracle_rn("e4m3fnuz", 0, -0x1p-10f), 0x81);
    ck_assert_uint_eq(oracle_rn("e4m3fnuz", 0, 0x1p-11f), 0x00);  /* a tie with 0x01: to even */
    ck_assert_uint_eq(oracle_rn("e4m3fnuz", 0, -0x1p-11f), 0x00); /* no -0: +0 */
    ck_assert_uint_eq(oracle_rn("e4m3fnuz", 0, -0.0f), 0x00);
    ck_assert_uint_eq(oracle_rn("e4m3fnuz", 0, (float)NAN), 0x80);
    ck_assert_uint_eq(oracle_rn("e4m3fnuz", 0, -(float)NAN), 0x80);
    ck_assert_uint_eq(oracle_rn("e4m3fnuz", 0, (float)INFINITY), 0x80);
    ck_assert_uint_eq(oracle_rn("e4m3fnuz", 0, -(float)INFINITY), 0x80);
    ck_assert_uint_eq(oracle_rn("e4m3fnuz", 1, -(float)INFINITY), 0xFF);
    /* directed modes at zero: rd of a tiny negative value is -min (0x81), ru and rz give +0 */
    ck_assert_uint_eq(mfo_round_slow(mfo_format("e4m3fnuz"), MFO_RD, 0, -0x1p-12), 0x81);
    ck_assert_uint_eq(mfo_round_slow(mfo_format("e4m3fnuz"), MFO_RU, 0, -0x1p-12), 0x00);
    ck_assert_uint_eq(mfo_round_slow(mfo_format("e4m3fnuz"), MFO_RZ, 0, -0x1p-12), 0x00);
    ck_assert_uint_eq(mfo_round_slow(mfo_format("e4m3fnuz"), MFO_RD, 0, -0.0), 0x00);
    ck_assert_uint_eq(mfo_round_slow(mfo_format("e4m3fnuz"), MFO_RU, 0, 0x1p-12), 0x01);
    /* directed overflow as for e4m3: toward the NaN where IEEE would give an infinity, else +-max */
    ck_assert_uint_eq(mfo_round_slow(mfo_format("e4m3fnuz"), MFO_RU, 0, 241.0), 0x80);
    ck_assert_uint_eq(mfo_round_slow(mfo_format("e4m3fnuz"), MFO_RU, 0, -241.0), 0xFF);
    ck_assert_uint_eq(mfo_round_slow(mfo_format("e4m3fnuz"), MFO_RD, 0, -241.0), 0x80);
    ck_assert_uint_eq(mfo_round_slow(mfo_format("e4m3fnuz"), MFO_RZ, 0, 1000.0), 0x7F);
    /* e5m2fnuz (bias 16): max 57344 = 0x7F (odd), 61440 ties to the virtual 65536: overflow */
    ck_assert_uint_eq(oracle_rn("e5m2fnuz", 0, 57344.0f), 0x7F);
    ck_assert_uint_eq(oracle_rn("e5m2fnuz", 0, 61439.0f), 0x7F);
    ck_assert_uint_eq(oracle_rn("e5m2fnuz", 0, 61440.0f), 0x80);
    ck_assert_uint_eq(oracle_rn("e5m2fnuz", 1, 61440.0f), 0x7F);
    ck_assert_uint_eq(oracle_rn("e5m2fnuz", 0, 1.0f), 0x40); /* E = 16 */
    ck_assert_uint_eq(oracle_rn("e5m2fnuz", 0, 0x1p-17f), 0x01);
    ck_assert_uint_eq(oracle_rn("e5m2fnuz", 0, -0x1p-18f), 0x00);
    ck_assert_uint_eq(oracle_rn("e5m2fnuz", 0, 0x1p-15f), 0x04); /* the smallest normal */
    /* e4m3b11fnuz (bias 11): max 30 = 0x7F, the virtual 32, 31 is the tie that overflows */
    ck_assert_uint_eq(oracle_rn("e4m3b11fnuz", 0, 30.0f), 0x7F);
    ck_assert_uint_eq(oracle_rn("e4m3b11fnuz", 0, 30.5f), 0x7F);
    ck_assert_uint_eq(oracle_rn("e4m3b11fnuz", 0, 31.0f), 0x80);
    ck_assert_uint_eq(oracle_rn("e4m3b11fnuz", 1, -31.0f), 0xFF);
    ck_assert_uint_eq(oracle_rn("e4m3b11fnuz", 0, 1.0f), 0x58); /* E = 11 */
    ck_assert_uint_eq(oracle_rn("e4m3b11fnuz", 0, 0x1p-13f), 0x01);
    ck_assert_uint_eq(oracle_rn("e4m3b11fnuz", 0, -0x1p-14f), 0x00);
    /* The IEEE-style ones, like e5m2. e4m3ieee: max 240 = 0x77 (odd), inf 0x78 = 256 as the virtual
     * next value, so 248 rounds to inf; -0 exists; NaN in gives 0x7F. */
    ck_assert_uint_eq(oracle_rn("e4m3ieee", 0, 240.0f), 0x77);
    ck_assert_uint_eq(oracle_rn("e4m3ieee", 0, 247.0f), 0x77);
    ck_assert_uint_eq(oracle_rn("e4m3ieee", 0, 248.0f), 0x78);
    ck_assert_uint_eq(oracle_rn("e4m3ieee", 0, -248.0f), 0xF8);
    ck_assert_uint_eq(oracle_rn("e4m3ieee", 1, -248.0f), 0xF7);
    ck_assert_uint_eq(oracle_rn("e4m3ieee", 0, 1.0f), 0x38);
    ck_assert_uint_eq(oracle_rn("e4m3ieee", 0, -0.0f), 0x80);
    ck_assert_uint_eq(oracle_rn("e4m3ieee", 0, -0x1p-10f), 0x80); /* a tie with -2^-9: to -0 */
    ck_assert_uint_eq(oracle_rn("e4m3ieee", 0, -(float)NAN), 0x7F);
    ck_assert_uint_eq(oracle_rn("e4m3ieee", 0, -(float)INFINITY), 0xF8);
    ck_assert_uint_eq(oracle_rn("e4m3ieee", 1, (float)INFINITY), 0x77);
    ck_assert_uint_eq(mfo_round_slow(mfo_format("e4m3ieee"), MFO_RZ, 0, 1000.0), 0x77);
    ck_assert_uint_eq(mfo_round_slow(mfo_format("e4m3ieee"), MFO_RD, 0, -241.0), 0xF8);
    /* e3m4 (bias 3): max 15.5 = 0x6F (E 6, M 15, odd), inf 0x70 = 16, so 15.75 rounds to inf */
    ck_assert_uint_eq(oracle_rn("e3m4", 0, 15.5f), 0x6F);
    ck_assert_uint_eq(oracle_rn("e3m4", 0, 15.75f), 0x70);
    ck_assert_uint_eq(oracle_rn("e3m4", 1, 15.75f), 0x6F);
    ck_assert_uint_eq(oracle_rn("e3m4", 0, 15.749999f), 0x6F);
    ck_assert_uint_eq(oracle_rn("e3m4", 0, 1.0f), 0x30);
    ck_assert_uint_eq(oracle_rn("e3m4", 0, 1.03125f), 0x30); /* a tie with 1.0625 (0x31): to even */
    ck_assert_uint_eq(oracle_rn("e3m4", 0, 0x1p-6f), 0x01);
    ck_assert_uint_eq(oracle_rn("e3m4", 0, 0x1p-7f), 0x00);
    ck_assert_uint_eq(oracle_rn("e3m4", 0, (float)INFINITY), 0x70);
    ck_assert_uint_eq(oracle_rn("e3m4", 0, (float)NAN), 0x7F);
}
END_TEST

/* ---- SatPropagate (test_exhaustive FORMAT propagate) ------------------------------------------------------
 * MF_OVERFLOW_PROPAGATE, scalar (mf_from_f32) and bulk (mf_convert, the best backend) on every input against the
 * oracle's tables built for it (saturate 2), every mode with MF_EXHAUSTIVE_SHARD=all; in CI rn on the day's
 * sixteenth of the inputs (g_scalar_shard: chunks c with c % 16 == it), so that sixteen days cover them all. */
enum { PCHUNK = 1 << 16 };

START_TEST(test_propagate_sweep)
{
    const mfo_fmt *of = mfo_format(g_fmt->tag);
    const mf_format F = g_fmt->fmt;
    const int nibble = mf_storage_bytes(F, 2) == 1, nmodes = g_scalar_shard >= 0 ? 1 : NMODES;
    static float x[PCHUNK];
    static uint8_t out[PCHUNK];
    uint64_t checked = 0, bad = 0;
    for (int m = 0; m < nmodes; m++) {
        mfo_bp t[2];
        const mf_opts o = {modes[m].round, MF_OVERFLOW_PROPAGATE, 0, 0, NULL, 0, MF_PROFILE_DEFAULT};
        size_t k = 0;
        for (int neg = 0; neg < 2; neg++)
            ck_assert_int_eq(mfo_bp_build(&t[neg], of, modes[m].oracle, 2, neg), 0);
        for (uint32_t c = 0; c < (uint32_t)(((uint64_t)1 << 32) / PCHUNK); c++) {
            const uint32_t base = c * PCHUNK;
            const mfo_bp *tb = &t[base >> 31];
            if (base == 0x80000000u)
                k = 0; /* the other sign's table */
            if (g_scalar_shard >= 0 && c % NSHARD != (uint32_t)g_scalar_shard)
                continue;
            for (uint32_t j = 0; j < PCHUNK; j++)
                x[j] = f32_from_bits(base | j);
            ck_assert_int_eq(mf_convert(F, out, MF_FP32, x, PCHUNK, &o), MF_OK);
            for (uint32_t j = 0; j < PCHUNK; j++) {
                const uint32_t mag = (base | j) & 0x7FFFFFFFu;
                uint32_t want, got, bulk;
                while (k + 1 < tb->n && tb->start[k + 1] <= mag)
                    k++;
                want = tb->code[k];
                got = mf_from_f32(F, x[j], modes[m].round, MF_OVERFLOW_PROPAGATE, 0);
                bulk = nibble ? (uint32_t)(out[j / 2] >> (4 * (j & 1)) & 15u) : out[j];
                if (got != want || bulk != want) {
                    if (bad++ < 5)
                        printf("FAIL %s %s propagate: 0x%08x -> 0x%x (bulk 0x%x), oracle 0x%x\n", g_fmt->tag,
                               modes[m].name, base | j, got, bulk, want);
                }
                checked++;
            }
        }
        mfo_bp_free(&t[0]);
        mfo_bp_free(&t[1]);
        printf("%s propagate %s: %" PRIu64 " inputs checked so far, scalar and bulk (%s)\n", g_fmt->tag, modes[m].name,
               checked, mf_backend());
    }
    ck_assert_uint_eq(bad, 0);
    ck_assert_uint_eq(checked, (uint64_t)nmodes << (g_scalar_shard >= 0 ? 28 : 32));
}
END_TEST

/* ---- round to odd and the stochastic roundings (test_exhaustive FORMAT ro-sr), the P3109 rows --------------------
 * Every binary32 input x, for each of SatNone, SatFinite and SatPropagate:
 * - ro: mf_from_f32 and mf_convert against the oracle's round-to-odd tables;
 * - StochasticA, B and C (mf_p3109_from_f64_sr) with n = 1 + c % 31 random bits in chunk c: the oracle gives the
 *   threshold T (x goes up iff R >= T) and the library is asked at R = T - 1 and R = T (R = 0 and 2^n - 1 where T is 0
 *   or 2^n, nothing to pin), which fixes where it steps; every n meets 1/31 of the inputs;
 * - MF_ROUND_STOCHASTIC: mf_from_f32 with rbits at both sides of the threshold of all 32 bits (StochasticA with
 *   N = 32); mf_convert with Philox bits (element i takes mf_sr_rbits(seed, i, w), w = mf_sr_width(F):
 *   StochasticA with N = w), whose R the oracle reads from the same word.
 * About 27 conversions an input: every input with MF_EXHAUSTIVE_SHARD=all
 * (scripts/setup.sh test-all); in CI (CI time) the day's 1/256 of the chunks, c % 256 == g_rosr_shard. */
enum { RCHUNK = 1 << 16, NPOL = 3, NSHARD_ROSR = 256 };
static int g_rosr_shard = -1;

typedef struct {
    const mfo_fmt *of;
    uint32_t top;                   /* the grid index above max */
    double vals[260];               /* the grid's magnitudes, 0 ... top */
    uint32_t code_of[NPOL][2][260]; /* [policy][sign][grid index]: the code a rounding not toward the range
                                            * gives; index top, an overflow */
    mfo_bp ro[NPOL][2];             /* round to odd, [policy][sign] */
    size_t k_ro[NPOL];              /* cursors into ro */
    uint32_t k;                     /* the grid cursor: vals[k] <= |x| < vals[k + 1] */
    uint64_t checked, bad;
} rosr_state;

static float g_rx[RCHUNK];
static uint8_t g_rout[NPOL][2][RCHUNK]; /* [policy][ro, sr] */
static const mf_overflow g_pols[NPOL] = {MF_OVERFLOW_IEEE, MF_OVERFLOW_SATURATE, MF_OVERFLOW_PROPAGATE};
#define ROSR_SEED 0x3109u

static EX_NOINLINE void rosr_fail(rosr_state *st, const char *what, int pol, uint32_t in, uint64_t rnd, uint32_t got,
                                  uint32_t want)
{
    if (st->bad++ < 8)
        printf("FAIL %s %s policy %d: 0x%08x (R %" PRIu64 ") -> 0x%x, oracle 0x%x\n", g_fmt->tag, what, pol, in, rnd,
               got, want);
}

/* The two R of a threshold T in [0, 2^n]: both sides of it, or 0 and 2^n - 1 where T is an end */
EX_FORCE_INLINE uint64_t rosr_r(uint64_t T, int n, int side)
{
    const uint64_t one = (uint64_t)1 << n;
    if (T == 0 || T == one)
        return side ? one - 1 : 0;
    return side ? T : T - 1;
}

/* Chunk c (RCHUNK inputs from c * RCHUNK, already in g_rx and converted into g_rout); F is a constant at the call
 * site, so that the conversions are specialised for it */
EX_FORCE_INLINE void rosr_chunk(mf_format F, rosr_state *st, uint32_t c)
{
    static const mf_p3109_stochastic kinds[3] = {MF_P3109_STOCHASTIC_A, MF_P3109_STOCHASTIC_B, MF_P3109_STOCHASTIC_C};
    static const char *const kind_names[3] = {"StochasticA", "StochasticB", "StochasticC"};
    const uint32_t base = c * RCHUNK, top = st->top;
    const int neg = (int)(base >> 31), n = 1 + (int)(c % 31), nibble = F == MF_BINARY4P2SF;
    const int w = (int)mf_sr_width(F);
    mf_p3109 pf = {0, 0, 0, 0};
    (void)mf_p3109_of(F, &pf);
    for (uint32_t j = 0; j < RCHUNK; j++) {
        const uint32_t in = base | j, mag = in & 0x7FFFFFFFu;
        const float x = g_rx[j];
        const double a = fabs((double)x);
        const int finite = mag < 0x7F800000u;
        double nu = 0; /* (|x| - lo) / (hi - lo) */
        int over = 0;  /* both neighbours above max */
        const uint64_t rs = mf_sr_rbits(ROSR_SEED, in, (unsigned)w) >> (32 - w);
        uint64_t T[5]; /* the thresholds of StochasticA, B, C with n bits, of A with 32 bits and with w bits */
        if (finite) {
            while (st->k < top && st->vals[st->k + 1] <= a)
                st->k++;
            over = st->k >= top;
            if (!over)
                nu = (a - st->vals[st->k]) / (st->vals[st->k + 1] - st->vals[st->k]);
        }
        for (int q = 0; q < 3; q++) /* powers of two: the products are exact */
            T[q] = finite && !over ? mfo_sr_threshold((mfo_sr_kind)q, n, nu * (double)((uint64_t)1 << n))
                                   : (uint64_t)1 << n;
        T[3] = finite && !over ? mfo_sr_threshold(MFO_SR_A, 32, nu * 0x1p32) : (uint64_t)1 << 32;
        T[4] = finite && !over ? mfo_sr_threshold(MFO_SR_A, w, nu * (double)((uint64_t)1 << w)) : (uint64_t)1 << w;
        for (int p = 0; p < NPOL; p++) {
            const mfo_bp *t = &st->ro[p][neg];
            const uint32_t *codes = st->code_of[p][neg];
            const uint32_t special = finite               ? 0u
                                     : mag == 0x7F800000u ? mfo_inf_result(st->of, neg, p)
                                                          : mfo_nan_result(st->of);
            uint32_t want, got, bulk;
            while (st->k_ro[p] + 1 < t->n && t->start[st->k_ro[p] + 1] <= mag)
                st->k_ro[p]++;
            want = t->code[st->k_ro[p]];
            got = mf_from_f32(F, x, MF_ROUND_ODD, g_pols[p], 0);
            bulk = nibble ? (uint32_t)(g_rout[p][0][j / 2] >> (4 * (j & 1)) & 15u) : g_rout[p][0][j];
            if (got != want || bulk != want)
                rosr_fail(st, got != want ? "ro scalar" : "ro bulk", p, in, 0, got != want ? got : bulk, want);
#define ROSR_WANT(T, r) (!finite ? special : over ? codes[top] : codes[st->k + ((r) >= (T))])
            for (int q = 0; q < 3; q++)
                for (int side = 0; side < 2; side++) {
                    const uint64_t r = rosr_r(T[q], n, side);
                    want = ROSR_WANT(T[q], r);
                    got = mf_p3109_from_f64_sr(pf, (double)x, kinds[q], n, (uint32_t)r, g_pols[p]);
                    if (got != want)
                        rosr_fail(st, kind_names[q], p, in, r, got, want);
                }
            for (int side = 0; side < 2; side++) {
                const uint64_t r = rosr_r(T[3], 32, side);
                want = ROSR_WANT(T[3], r);
                got = mf_from_f32(F, x, MF_ROUND_STOCHASTIC, g_pols[p], (uint32_t)r);
                if (got != want)
                    rosr_fail(st, "sr scalar", p, in, r, got, want);
            }
            want = ROSR_WANT(T[4], rs);
            bulk = nibble ? (uint32_t)(g_rout[p][1][j / 2] >> (4 * (j & 1)) & 15u) : g_rout[p][1][j];
            if (bulk != want)
                rosr_fail(st, "sr bulk", p, in, rs, bulk, want);
#undef ROSR_WANT
        }
        st->checked++;
    }
}

#define ROSR_FN(name, F)                                                                                               \
    static EX_NOINLINE EX_FLATTEN void rosr_##name(rosr_state *st, uint32_t c) { rosr_chunk(F, st, c); }
ROSR_FN(binary8p4se, MF_BINARY8P4SE)
ROSR_FN(binary8p3se, MF_BINARY8P3SE)
ROSR_FN(binary4p2sf, MF_BINARY4P2SF)

START_TEST(test_ro_sr_sweep)
{
    const mf_format F = g_fmt->fmt;
    void (*chunk)(rosr_state *, uint32_t) = 0;
    rosr_state *st = (rosr_state *)calloc(1, sizeof *st);
    double t0 = now_s(CLOCK_MONOTONIC);

    switch (F) {
    case MF_BINARY8P4SE: chunk = rosr_binary8p4se; break;
    case MF_BINARY8P3SE: chunk = rosr_binary8p3se; break;
    case MF_BINARY4P2SF: chunk = rosr_binary4p2sf; break;
    default: ck_abort_msg("%s: no ro-sr sweep", g_fmt->tag);
    }
    ck_assert_ptr_nonnull(st);
    st->of = mfo_format(g_fmt->tag);
    ck_assert_ptr_nonnull(st->of);
    st->top = mfo_max_code(st->of) + 1u;
    ck_assert_uint_lt(st->top, 259);
    for (uint32_t j = 0; j <= st->top; j++)
        st->vals[j] = mfo_mag_value(st->of, j);
    for (int p = 0; p < NPOL; p++)
        for (int neg = 0; neg < 2; neg++) {
            ck_assert_int_eq(mfo_bp_build(&st->ro[p][neg], st->of, MFO_RO, p, neg), 0);
            for (uint32_t j = 0; j <= st->top; j++)
                st->code_of[p][neg][j] = mfo_mag_code(st->of, MFO_RO, p, neg, j);
        }
    for (uint32_t c = 0; c < (uint32_t)(((uint64_t)1 << 32) / RCHUNK); c++) {
        const uint32_t base = c * RCHUNK;
        if (c == 0 || base == 0x80000000u) { /* magnitudes start again from zero */
            st->k = 0;
            for (int p = 0; p < NPOL; p++)
                st->k_ro[p] = 0;
        }
        if (g_rosr_shard >= 0 && c % NSHARD_ROSR != (uint32_t)g_rosr_shard)
            continue;
        for (uint32_t j = 0; j < RCHUNK; j++)
            g_rx[j] = f32_from_bits(base | j);
        for (int p = 0; p < NPOL; p++) {
            const mf_opts oro = {MF_ROUND_ODD, g_pols[p], 0, 0, NULL, 0, MF_PROFILE_DEFAULT};
            const mf_opts osr = {MF_ROUND_STOCHASTIC, g_pols[p], ROSR_SEED, base, NULL, 0, MF_PROFILE_DEFAULT};
            ck_assert_int_eq(mf_convert(F, g_rout[p][0], MF_FP32, g_rx, RCHUNK, &oro), MF_OK);
            ck_assert_int_eq(mf_convert(F, g_rout[p][1], MF_FP32, g_rx, RCHUNK, &osr), MF_OK);
        }
        chunk(st, c);
    }
    for (int p = 0; p < NPOL; p++)
        for (int neg = 0; neg < 2; neg++)
            mfo_bp_free(&st->ro[p][neg]);
    printf("%s ro and sr: %" PRIu64 " inputs x 3 policies (ro scalar and bulk; StochasticA/B/C, n = 1 ... 31, at both "
           "sides of each threshold; sr scalar (32 bits) and bulk (%s)), %" PRIu64 " differ, %.1f s\n",
           g_fmt->tag, st->checked, mf_backend(), st->bad, now_s(CLOCK_MONOTONIC) - t0);
    ck_assert_uint_eq(st->bad, 0);
    ck_assert_uint_eq(st->checked, ((uint64_t)1 << 32) / (g_rosr_shard >= 0 ? NSHARD_ROSR : 1));
    free(st);
}
END_TEST

/* The ro tables against the slow search, and the stochastic oracle's hand-derived anchors (docs/formats.md's
 * formulas worked by hand, not by the library) */
START_TEST(test_ro_sr_oracle)
{
    const mfo_fmt *of = mfo_format(g_fmt->tag), *p4 = mfo_format("binary8p4se");
    uint64_t checked = 0;
    ck_assert_ptr_nonnull(of);
    for (int sat = 0; sat < 3; sat++)
        for (int neg = 0; neg < 2; neg++) {
            const uint32_t sgn = neg ? 0x80000000u : 0u;
            mfo_bp t;
            ck_assert_int_eq(mfo_bp_build(&t, of, MFO_RO, sat, neg), 0);
            for (size_t i = 0; i < t.n; i++)
                for (int d = -1; d <= 1; d++) {
                    const uint32_t u = t.start[i] + (uint32_t)d;
                    if (u > 0x7FFFFFFFu)
                        continue;
                    MF_EXPECT(mfo_bp_lookup(&t, sgn | u) ==
                                  mfo_round_slow(of, MFO_RO, sat, (double)f32_from_bits(sgn | u)),
                              "%s ro %d: 0x%08x", of->tag, sat, sgn | u);
                    checked++;
                }
            mfo_bp_free(&t);
        }
    ck_assert_uint_gt(checked, 100);
    /* binary8p4se: 1 = 0x40, 1.125 = 0x41, max 224 = 0x7E, +inf 0x7F, the virtual next value 240 */
    ck_assert_uint_eq(mfo_round_slow(p4, MFO_RO, 0, 1.0625), 0x41);
    ck_assert_uint_eq(mfo_round_slow(p4, MFO_RO, 0, 1.1875), 0x41); /* between 0x41 and 0x42: the odd one */
    ck_assert_uint_eq(mfo_round_slow(p4, MFO_RO, 0, -1.25), 0xC2);
    ck_assert_uint_eq(mfo_round_slow(p4, MFO_RO, 0, 1e-10), 0x01); /* between 0 and the least subnormal */
    ck_assert_uint_eq(mfo_round_slow(p4, MFO_RO, 0, 230.0), 0x7F); /* odd is the virtual 240: SatNone +inf */
    ck_assert_uint_eq(mfo_round_slow(p4, MFO_RO, 1, 230.0), 0x7E); /* SatFinite: max */
    ck_assert_uint_eq(mfo_round_slow(p4, MFO_RO, 1, -1e9), 0xFE);
    ck_assert_uint_eq(mfo_round_slow(mfo_format("e4m3"), MFO_RO, 0, 460.0), 0x7E); /* outside P3109: max, as rz */
    /* nu 2^n = 0.5 (x = 1.03125, nu 1/4, n = 1): A never goes up, B does for R = 1, C ties to 0: never */
    ck_assert_uint_eq(mfo_round_sr_slow(p4, MFO_SR_A, 1, 1, 0, 1.03125), 0x40);
    ck_assert_uint_eq(mfo_round_sr_slow(p4, MFO_SR_B, 1, 1, 0, 1.03125), 0x41);
    ck_assert_uint_eq(mfo_round_sr_slow(p4, MFO_SR_B, 1, 0, 0, 1.03125), 0x40);
    ck_assert_uint_eq(mfo_round_sr_slow(p4, MFO_SR_C, 1, 1, 0, 1.03125), 0x40);
    /* nu 2^n = 1.5 (x = 1.09375, n = 1): A up for R = 1 only, B and C for every R */
    ck_assert_uint_eq(mfo_round_sr_slow(p4, MFO_SR_A, 1, 0, 0, 1.09375), 0x40);
    ck_assert_uint_eq(mfo_round_sr_slow(p4, MFO_SR_A, 1, 1, 0, 1.09375), 0x41);
    ck_assert_uint_eq(mfo_round_sr_slow(p4, MFO_SR_B, 1, 0, 0, 1.09375), 0x41);
    ck_assert_uint_eq(mfo_round_sr_slow(p4, MFO_SR_C, 1, 0, 0, -1.09375), 0xC1);
    /* exact values never move; past max: up is an overflow (SatNone +inf, SatFinite max) */
    ck_assert_uint_eq(mfo_round_sr_slow(p4, MFO_SR_B, 4, 15, 0, 1.125), 0x41);
    ck_assert_uint_eq(mfo_round_sr_slow(p4, MFO_SR_A, 4, 15, 0, 232.0), 0x7F);
    ck_assert_uint_eq(mfo_round_sr_slow(p4, MFO_SR_A, 4, 7, 0, 232.0), 0x7E);
    ck_assert_uint_eq(mfo_round_sr_slow(p4, MFO_SR_A, 4, 15, 1, 232.0), 0x7E);
    ck_assert_uint_eq(mfo_sr_threshold(MFO_SR_C, 3, 7.5), 0); /* RNE(7.5) = 8: always up */
    ck_assert_uint_eq(mfo_sr_threshold(MFO_SR_C, 3, 6.5), 2); /* RNE(6.5) = 6 */
    ck_assert_uint_eq(mfo_sr_threshold(MFO_SR_B, 3, 6.5), 1); /* 13 + 2R + 1 >= 16 */
    ck_assert_uint_eq(mfo_sr_threshold(MFO_SR_A, 3, 6.5), 2);
}
END_TEST

static Suite *exhaustive_suite(int bulk_only)
{
    Suite *s = suite_create("exhaustive");
    TCase *tc;
    if (bulk_only) { /* a SIMD backend: its bulk output against the oracle, every mode and policy */
        tc = tcase_create("bulk");
        tcase_add_test(tc, test_bulk_sweep);
        tcase_set_timeout(tc, SWEEP_TIMEOUT);
        suite_add_tcase(s, tc);
        return s;
    }
    tc = tcase_create("oracle");
    tcase_add_test(tc, test_oracle_anchors);
    tcase_add_loop_test(tc, test_oracle_tables, 0, NCOMBO);
    tcase_set_timeout(tc, 300);
    suite_add_tcase(s, tc);
    tc = tcase_create("scalar");
    tcase_add_test(tc, test_scalar_sweep);
    tcase_set_timeout(tc, SWEEP_TIMEOUT);
    suite_add_tcase(s, tc);
    tc = tcase_create("bulk");
    tcase_add_test(tc, test_bulk_sweep);
    tcase_set_timeout(tc, SWEEP_TIMEOUT);
    suite_add_tcase(s, tc);
    return s;
}

/* The shard a backend's sweep takes: MF_EXHAUSTIVE_SHARD=all sweeps every input, a number k sweeps shard
 * k % 16; unset, the backend whose code converts f32 -> d for the best backend this CPU runs (itself, or
 * the one it inherits the pair from) sweeps every input and the others the shard of the day (days since
 * 1970 % 16), so that sixteen days of runs cover every input of every backend. */
static int choose_shard(const mf__backend *backend, mf_format d)
{
    const char *e = getenv("MF_EXHAUSTIVE_SHARD");
    const mf__backend *best = NULL;
    size_t i;
    if (e && strcmp(e, "all") == 0)
        return -1;
    if (e && *e)
        return (int)(strtoul(e, NULL, 10) % NSHARD);
    for (i = 0; mf__backend_at(i) && !best; i++)
        if (mf__backend_supported(mf__backend_at(i)))
            best = mf__backend_at(i);
    if (best && backend == mf__backend_for(best, d, MF_FP32))
        return -1;
    return (int)((unsigned long)(time(NULL) / 86400) % NSHARD);
}

/* usage: test_exhaustive FORMAT [ROOM]. With ROOM (run with MF_BACKEND=ROOM) only the bulk sweeps
 * run, through that backend, on every input or on a shard (choose_shard); a backend this CPU cannot run, or
 * one that inherits f32 -> FORMAT from the backend it builds on (swept there), is a skip (exit 77). */
int main(int argc, char **argv)
{
    size_t i;
    int propagate, rosr;
    if (argc != 2 && argc != 3) {
        fprintf(stderr,
                "usage: %s <f16|bf16|e4m3|e5m2|e2m3|e3m2|e2m1|e8m0|e4m3fnuz|e5m2fnuz|e4m3b11fnuz|e4m3ieee|e3m4|"
                "binary8p4se|binary8p3se|binary4p2sf> [backend | propagate | ro-sr]\n",
                argv[0]);
        return 2;
    }
    propagate = argc == 3 && strcmp(argv[2], "propagate") == 0;
    rosr = argc == 3 && strcmp(argv[2], "ro-sr") == 0;
    if (argc == 3 && !propagate && !rosr && strcmp(mf_backend(), argv[2]) != 0) {
        printf("backend %s is not available here (MF_BACKEND=%s gives %s): skipped\n", argv[2],
               getenv("MF_BACKEND") ? getenv("MF_BACKEND") : "", mf_backend());
        return 77;
    }
    for (i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (strcmp(formats[i].tag, argv[1]) == 0)
            g_fmt = &formats[i];
    if (!g_fmt) {
        fprintf(stderr, "unknown format %s\n", argv[1]);
        return 2;
    }
    {
        const char *e = getenv("MF_EXHAUSTIVE_SHARD");
        g_scalar_shard = e && strcmp(e, "all") == 0 ? -1
                         : e && *e                 ? (int)(strtoul(e, NULL, 10) % NSHARD)
                                                   : (int)((unsigned long)(time(NULL) / 86400) % NSHARD);
        g_rosr_shard = e && strcmp(e, "all") == 0 ? -1
                       : e && *e                 ? (int)(strtoul(e, NULL, 10) % NSHARD_ROSR)
                                                 : (int)((unsigned long)(time(NULL) / 86400) % NSHARD_ROSR);
    }
    if (propagate) { /* the SatPropagate sweep alone */
        Suite *s = suite_create("exhaustive_propagate");
        TCase *tc = tcase_create("propagate");
        tcase_add_test(tc, test_propagate_sweep);
        tcase_set_timeout(tc, SWEEP_TIMEOUT);
        suite_add_tcase(s, tc);
        return mf_run_suite(s);
    }
    if (rosr) { /* round to odd and the stochastic roundings of a P3109 row */
        Suite *s = suite_create("exhaustive_ro_sr");
        TCase *tc = tcase_create("ro_sr");
        mf_p3109 pf;
        if (mf_p3109_of(g_fmt->fmt, &pf) != MF_OK) {
            fprintf(stderr, "%s is not a P3109 row\n", argv[1]);
            return 2;
        }
        if (g_rosr_shard >= 0)
            printf("%s: ro and sr on the chunks of %d inputs c with c %% %d == %d (MF_EXHAUSTIVE_SHARD=all: every "
                   "input)\n",
                   argv[1], (int)RCHUNK, (int)NSHARD_ROSR, g_rosr_shard);
        tcase_add_test(tc, test_ro_sr_oracle);
        tcase_add_test(tc, test_ro_sr_sweep);
        tcase_set_timeout(tc, 3 * SWEEP_TIMEOUT);
        suite_add_tcase(s, tc);
        return mf_run_suite(s);
    }
    g_ncombo = g_fmt->ncombo;
    if (argc == 2 && g_ncombo == NCOMBO && g_scalar_shard >= 0)
        printf("%s: the scalar sweep in the modes other than rn on shard %d of %u (chunks of %u inputs c "
               "with c %% %u == %d; MF_EXHAUSTIVE_SHARD=all for every input)\n",
               argv[1], g_scalar_shard, NSHARD, SCHUNK, NSHARD, g_scalar_shard);
    if (g_fmt->rn_in_ci && !(getenv("MF_EXHAUSTIVE_SHARD") && strcmp(getenv("MF_EXHAUSTIVE_SHARD"), "all") == 0)) {
        g_ncombo = NCOMBO_RN;
        printf("%s: rn only (MF_EXHAUSTIVE_SHARD=all for every mode)\n", argv[1]);
    }
    if (argc == 2 && g_scalar_shard >= 0) {
        g_rn_half = g_scalar_shard & 1;
        printf("%s: the scalar sweep of every input under one policy, rn ieee on the chunks of %u inputs c with "
               "(c + %d) even, rn sat on the others (MF_EXHAUSTIVE_SHARD=all: both on every input)\n",
               argv[1], SCHUNK, g_rn_half);
    }
    g_backend_only = argc == 3;
    if (g_backend_only) {
        const mf__backend *backend = mf__backend_by_name(argv[2]),
                          *owner = mf__backend_for(backend, g_fmt->fmt, MF_FP32);
        if (owner != backend) {
            printf("%s inherits f32 -> %s from %s, whose sweep covers it: skipped\n", argv[2], argv[1], owner->name);
            return 77;
        }
        g_shard = choose_shard(backend, g_fmt->fmt);
        if (g_shard >= 0)
            printf("%s: shard %d of %u (chunks of %u inputs c with c %% %u == %d; MF_EXHAUSTIVE_SHARD=all for "
                   "every input)\n",
                   argv[2], g_shard, NSHARD, BCHUNK, NSHARD, g_shard);
    }
    return mf_run_suite(exhaustive_suite(argc == 3));
}
