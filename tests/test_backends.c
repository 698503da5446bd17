/* SPDX-License-Identifier: MIT */
/* tests/test_backends.c - every backend gives the portable backend's bytes and counts (unit tier).
 *
 * The portable backend is the law (its own correctness is the oracle tests' business). For every backend
 * this CPU supports: every (source, destination) pair, every mode, both policies, with and without
 * statistics, on data that mixes random codes with each format's boundary set; lengths 0..257 and
 * every misalignment; stochastic offsets that do and do not start on a Philox block; the bytes past
 * the end must be untouched. A backend the CPU lacks is reported as skipped (and if no SIMD backend can
 * run at all, the test exits 77).
 */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mf_test.h"
#include "../src/internal.h"
#include "oracle/ref.h"

/* What mf_convert runs with this backend chosen: the backend, or the ancestor that converts the pair. */
static void bk_convert(const mf__backend *backend, mf_format d, void *dst, mf_format s, const void *src, size_t n,
                       const mf_opts *o, mf_stats *st)
{
    mf__backend_for(backend, d, s)->convert(d, dst, s, src, n, o, st);
}

/* The caller's binary32 environment: MXCSR on x86 (its bits 0-5 are sticky flags, which a conversion
 * may add to), FPCR on aarch64 (no flags: FPSR holds them). */
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define HAVE_FPENV 1
#define ENV_NAME "MXCSR"
#define ENV_FLAGS 0x3Fu
static unsigned env_get(void) { return _mm_getcsr(); }
static void env_set(unsigned c) { _mm_setcsr(c); }
#elif defined(__aarch64__)
#define HAVE_FPENV 1
#define ENV_NAME "FPCR"
#define ENV_FLAGS 0u
static unsigned env_get(void)
{
    uint64_t r;
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(r));
    return (unsigned)r;
}
static void env_set(unsigned c)
{
    const uint64_t r = c;
    __asm__ __volatile__("msr fpcr, %0" : : "r"(r) : "memory");
}
#else
#define HAVE_FPENV 0
#endif

static uint64_t state = 0x853C49E6748FEA9Bu;
static uint64_t next(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

enum { NMAX = 2100, GUARD = 64 };

/* binary32 inputs: random bit patterns, values near every format's grid (codes, midpoints, one ulp
 * either side), and the specials. */
static float f32_input(void)
{
    static const mf_format fmts[] = {MF_FP16,         MF_BF16,         MF_FP8_E4M3,        MF_FP8_E5M2,
                                     MF_FP6_E2M3,     MF_FP6_E3M2,     MF_FP4_E2M1,        MF_E8M0,
                                     MF_FP8_E4M3FNUZ, MF_FP8_E5M2FNUZ, MF_FP8_E4M3B11FNUZ, MF_FP8_E4M3IEEE,
                                     MF_FP8_E3M4};
    uint64_t r = next();
    uint32_t bits;
    float x;
    mf_format f = fmts[(r >> 8) % (sizeof fmts / sizeof fmts[0])];
    mf_format_desc d;
    mf_format_describe(f, &d);
    switch (r & 7) {
    case 0:
    case 1: bits = (uint32_t)(r >> 32); memcpy(&x, &bits, 4); return x;
    case 2: { /* a code's value, or the midpoint to the next, nudged by a few ulps */
        uint32_t c = (uint32_t)((r >> 16) % (d.max_code + 1));
        double v = mf_to_f64(f, c), w = mf_to_f64(f, c + 1);
        float y = (float)((r >> 40) & 1 ? v : (v + w) / 2);
        int k = (int)((r >> 44) % 5) - 2;
        while (k-- > 0)
            y = nextafterf(y, INFINITY);
        while (++k < 0)
            y = nextafterf(y, -INFINITY);
        return (r >> 50) & 1 ? -y : y;
    }
    case 3: { /* the neighbourhood of max and of the smallest subnormal */
        float y = (float)((r >> 20) & 1 ? d.max : d.min_subnormal) * (float)(0.25 + (double)((r >> 24) % 64) / 16);
        return (r >> 50) & 1 ? -y : y;
    }
    case 4: bits = (uint32_t)(r >> 32) & 0x807FFFFFu; memcpy(&x, &bits, 4); return x; /* zero, subnormal */
    case 5: bits = ((uint32_t)(r >> 32) & 0x807FFFFFu) | 0x7F800000u; memcpy(&x, &bits, 4); return x;
    default: { /* the binades where the narrow formats live */
        bits = ((uint32_t)(r >> 32) & 0x807FFFFFu) | ((uint32_t)(100 + (r >> 12) % 50) << 23);
        memcpy(&x, &bits, 4);
        return x;
    }
    }
}

/* A source array of format s: binary32 inputs rounded into s, plus raw random codes. */
static void fill(mf_format s, uint8_t *buf, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        float x = f32_input();
        if (mf_storage_bytes(s, 2) == 1) { /* two codes a byte (e2m1, binary4p2sf): random bytes */
            buf[i / 2] = (uint8_t)next();
            continue;
        }
        switch (s) {
        case MF_FP64: {
            double v = (double)x;
            if (next() & 1) /* bits below binary32 precision, to exercise the f64 two-step path */
                v = nextafter(v, (next() & 1) ? INFINITY : -INFINITY);
            if ((next() & 15) == 0) /* beyond binary32's range at either end, and its top binade */
                v = ldexp((next() & 1 ? -1.0 : 1.0) * (1.0 + (double)(next() % 4096) / 4096),
                          (next() & 1) ? 120 + (int)(next() % 20) : -170 + (int)(next() % 30));
            memcpy(buf + 8 * i, &v, 8);
            break;
        }
        case MF_FP32: memcpy(buf + 4 * i, &x, 4); break;
        case MF_FP16:
        case MF_BF16: {
            uint16_t c = (next() & 3) ? (uint16_t)mf_from_f32(s, x, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0)
                                      : (uint16_t)next();
            memcpy(buf + 2 * i, &c, 2);
            break;
        }
        default: buf[i] = (next() & 3) ? (uint8_t)mf_from_f32(s, x, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0)
                                      : (uint8_t)next();
        }
    }
}

static uint8_t src_buf[NMAX * 8 + GUARD], want[NMAX * 8 + GUARD], got[NMAX * 8 + GUARD];

/* The backend's output for the call against the portable one's in want (and its counts sw, with o->stats) */
static void backend_against_want(const mf__backend *backend, mf_format d, mf_format s, size_t n, size_t sfix,
                                 size_t dfix, const mf_opts *o, const mf_stats *sw)
{
    mf_stats sg = {0, 0, 0, 0, 0}, *pg = o->stats ? &sg : NULL;
    const size_t bytes = mf_storage_bytes(d, n) + dfix + GUARD;
    memset(got, 0xC3, sizeof got);
    bk_convert(backend, d, got + dfix, s, src_buf + sfix, n, o, pg);
    if (memcmp(want, got, bytes) != 0) {
        size_t i = 0;
        while (want[i] == got[i])
            i++;
        ck_abort_msg("%s: %s -> %s mode %s %s n %zu sr_offset %llu: byte %zu differs: portable 0x%02x, backend 0x%02x",
                     backend->name, mf_format_name(s), mf_format_name(d), mf_round_name(o->round),
                     mf_overflow_name(o->overflow), n, (unsigned long long)o->sr_offset, i - dfix, want[i], got[i]);
    }
    if (o->stats)
        MF_EXPECT(sw->overflow == sg.overflow && sw->underflow == sg.underflow && sw->subnormal == sg.subnormal &&
                      sw->nan == sg.nan && sw->inexact == sg.inexact,
                  "%s: %s -> %s mode %s %s: stats differ (ovf %llu/%llu unf %llu/%llu sub %llu/%llu nan %llu/%llu "
                  "inx %llu/%llu)",
                  backend->name, mf_format_name(s), mf_format_name(d), mf_round_name(o->round),
                  mf_overflow_name(o->overflow), (unsigned long long)sw->overflow, (unsigned long long)sg.overflow,
                  (unsigned long long)sw->underflow, (unsigned long long)sg.underflow,
                  (unsigned long long)sw->subnormal, (unsigned long long)sg.subnormal, (unsigned long long)sw->nan,
                  (unsigned long long)sg.nan, (unsigned long long)sw->inexact, (unsigned long long)sg.inexact);
}

static void check_one(const mf__backend *backend, mf_format d, mf_format s, size_t n, size_t sfix, size_t dfix,
                      const mf_opts *o)
{
    static unsigned long calls;
    mf_stats sw = {0, 0, 0, 0, 0};
    if (mf__backend_for(backend, d, s) == &mf__backend_portable) /* the pair is portable's: nothing to compare */
        return;
    if (!mf_test_take(&calls)) /* MF_TEST_SAMPLE (tests/mf_test.h) */
        return;
    memset(want, 0xC3, sizeof want);
    mf__backend_portable.convert(d, want + dfix, s, src_buf + sfix, n, o, o->stats ? &sw : NULL);
    backend_against_want(backend, d, s, n, sfix, dfix, o, &sw);
}

/* One call against every SIMD backend this CPU runs: the portable backend's output (the costly part) once, then
 * each backend's that converts the pair itself (not through the portable one) against it; one call in
 * MF_TEST_SAMPLE. Returns the backends compared. */
static int check_all(mf_format d, mf_format s, size_t n, size_t sfix, size_t dfix, const mf_opts *o)
{
    static unsigned long calls;
    static const mf__backend *simd[8];
    static size_t nsimd = (size_t)-1;
    mf_stats sw = {0, 0, 0, 0, 0};
    const mf__backend *backend;
    int compared = 0;
    size_t ri;
    if (nsimd == (size_t)-1) { /* once: asking the CPU (cpuid) costs microseconds in a virtual machine */
        nsimd = 0;
        for (ri = 0; (backend = mf__backend_at(ri)) != NULL; ri++)
            if (backend != &mf__backend_portable && mf__backend_supported(backend) && nsimd < 8)
                simd[nsimd++] = backend;
    }
    if (!mf_test_take(&calls))
        return 0;
    memset(want, 0xC3, sizeof want);
    mf__backend_portable.convert(d, want + dfix, s, src_buf + sfix, n, o, o->stats ? &sw : NULL);
    for (ri = 0; ri < nsimd; ri++)
        if (mf__backend_for(simd[ri], d, s) != &mf__backend_portable) {
            backend_against_want(simd[ri], d, s, n, sfix, dfix, o, &sw);
            compared++;
        }
    return compared;
}

/* A call too large for check_one's buffers (the streaming paths): the portable backend's output once (with
 * stats: with its statistics), then every SIMD backend's against it, with the rest of the area's bytes
 * untouched; one call in MF_TEST_SAMPLE (tests/mf_test.h). */
static void check_big(mf_format d, mf_format s, const void *in, size_t n, uint8_t *a, uint8_t *b, size_t out_at,
                      size_t area, const mf_opts *o, int stats)
{
    static unsigned long calls;
    const mf__backend *backend;
    mf_stats sa, sg;
    mf_opts oa = *o;
    size_t ri;
    if (!mf_test_take(&calls))
        return;
    memset(a, 0x5C, area);
    oa.stats = stats ? &sa : NULL;
    mf__backend_portable.convert(d, a + out_at, s, in, n, &oa, oa.stats);
    for (ri = 0; (backend = mf__backend_at(ri)) != NULL; ri++) {
        mf_opts ob = *o;
        if (backend == &mf__backend_portable || !mf__backend_supported(backend))
            continue;
        ob.stats = NULL;
        memset(b, 0x5C, area);
        bk_convert(backend, d, b + out_at, s, in, n, &ob, NULL);
        MF_EXPECT(memcmp(a, b, area) == 0, "%s: %s -> %s %s %s, n %zu, output at %zu, sr_offset %llu: output differs",
                  backend->name, mf_format_name(s), mf_format_name(d), mf_round_name(o->round),
                  mf_overflow_name(o->overflow), n, out_at, (unsigned long long)o->sr_offset);
        if (!stats)
            continue;
        ob.stats = &sg;
        memset(b, 0x5C, area);
        bk_convert(backend, d, b + out_at, s, in, n, &ob, &sg);
        MF_EXPECT(memcmp(a, b, area) == 0 && memcmp(&sa, &sg, sizeof sa) == 0, "%s: %s -> %s, n %zu, with stats differs",
                  backend->name, mf_format_name(s), mf_format_name(d), n);
    }
}

static int backends_tested;

/* Every pair, mode, policy, with and without stats, on NMAX elements. */
/* The dispatcher offers the backends this target has: on aarch64 the NEON backend, on every CPU (Advanced SIMD is
 * part of AArch64), and it is the one chosen unless MF_BACKEND says otherwise; on x86-64 the three
 * x86 backends, each supported or not by this CPU. */
START_TEST(test_backends_expected_backends)
{
#if defined(__aarch64__)
    const mf__backend *neon = mf__backend_by_name("neon");
    ck_assert_msg(neon != NULL, "no NEON backend in an aarch64 build");
    ck_assert(mf__backend_supported(neon));
    if (getenv("MF_BACKEND") == NULL)
        ck_assert_str_eq(mf_backend(), "neon");
#elif defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    /* MF_HAVE_BACKEND_*: the backends the build compiled (all, unless MF_SIMD_BACKENDS narrowed them) */
    int avx2 = 0, avx512 = 0, avx512bf16 = 0;
#ifdef MF_HAVE_BACKEND_avx2
    avx2 = 1;
#endif
#ifdef MF_HAVE_BACKEND_avx512
    avx512 = 1;
#endif
#ifdef MF_HAVE_BACKEND_avx512bf16
    avx512bf16 = 1;
#endif
    ck_assert((mf__backend_by_name("avx2") != NULL) == avx2);
    ck_assert((mf__backend_by_name("avx512") != NULL) == avx512);
    ck_assert((mf__backend_by_name("avx512bf16") != NULL) == avx512bf16);
#endif
    ck_assert(mf__backend_by_name("portable") != NULL && mf__backend_supported(mf__backend_by_name("portable")));
}
END_TEST

/* The plan each backend makes, for calls chosen to take each of its paths, and the bytes of those
 * calls against the portable backend's; each path a backend has must be taken by some call. The
 * expected path per backend comes from the paths each one offers (docs/architecture.md). */
typedef struct {
    mf_format d, s;
    mf_round r;
    mf_overflow ov;
    size_t n;
    int stats;
    const char *path[5]; /* avx2, avx512, avx512bf16, neon, portable */
} plan_case;

#define IEEE MF_OVERFLOW_IEEE
#define SAT MF_OVERFLOW_SATURATE
static const plan_case plan_cases[] = {
    {MF_FP8_E4M3, MF_FP32, MF_ROUND_NEAREST_EVEN, SAT, 4096, 1, {"blocked", "blocked", "blocked", "blocked", "portable"}},
    {MF_FP8_E4M3, MF_FP32, MF_ROUND_UP, SAT, 4096, 0, {"blocked", "blocked", "blocked", "blocked", "portable"}},
    {MF_FP8_E4M3, MF_FP32, MF_ROUND_NEAREST_EVEN, SAT, 4096, 0, {"blocked", "direct", "direct", "blocked", "portable"}},
    {MF_FP16, MF_FP32, MF_ROUND_TOWARD_ZERO, IEEE, 4096, 0, {"blocked", "direct", "direct", "blocked", "portable"}},
    {MF_BF16, MF_FP32, MF_ROUND_NEAREST_EVEN, IEEE, 4096, 0, {"blocked", "blocked", "direct", "blocked", "portable"}},
    /* saturating 16-bit: the clamp before the instruction keeps them on the direct path */
    {MF_FP16, MF_FP32, MF_ROUND_NEAREST_EVEN, SAT, 4096, 0, {"blocked", "direct", "direct", "blocked", "portable"}},
    {MF_FP16, MF_FP32, MF_ROUND_TOWARD_ZERO, SAT, 4096, 0, {"blocked", "direct", "direct", "blocked", "portable"}},
    {MF_FP16, MF_FP32, MF_ROUND_UP, SAT, 4096, 0, {"blocked", "blocked", "blocked", "blocked", "portable"}},
    {MF_BF16, MF_FP32, MF_ROUND_NEAREST_EVEN, SAT, 4096, 0, {"blocked", "blocked", "direct", "blocked", "portable"}},
    {MF_FP8_E4M3, MF_FP16, MF_ROUND_NEAREST_EVEN, SAT, 4096, 0, {"w16", "w16", "w16", "blocked", "portable"}},
    {MF_FP8_E4M3, MF_FP8_E5M2, MF_ROUND_NEAREST_EVEN, SAT, 4096, 0, {"lut", "blocked", "lut", "blocked", "portable"}},
    {MF_FP8_E4M3, MF_FP8_E5M2, MF_ROUND_STOCHASTIC, SAT, 8192, 0, {"lut_sr", "blocked", "lut_sr", "blocked", "portable"}},
    {MF_FP16, MF_E8M0, MF_ROUND_STOCHASTIC, SAT, 8192, 0, {"blocked", "blocked", "blocked", "blocked", "portable"}},
    /* the rest of the 8-bit family: the same paths as e4m3 */
    {MF_FP8_E4M3FNUZ, MF_FP32, MF_ROUND_NEAREST_EVEN, SAT, 4096, 0, {"blocked", "direct", "direct", "blocked", "portable"}},
    {MF_FP8_E5M2FNUZ, MF_FP32, MF_ROUND_NEAREST_EVEN, IEEE, 4096, 0, {"blocked", "direct", "direct", "blocked", "portable"}},
    {MF_FP8_E4M3B11FNUZ, MF_FP32, MF_ROUND_UP, SAT, 4096, 0, {"blocked", "blocked", "blocked", "blocked", "portable"}},
    {MF_FP8_E4M3IEEE, MF_FP32, MF_ROUND_NEAREST_EVEN, SAT, 4096, 0, {"blocked", "direct", "direct", "blocked", "portable"}},
    {MF_FP8_E3M4, MF_FP32, MF_ROUND_TOWARD_ZERO, IEEE, 4096, 0, {"blocked", "direct", "direct", "blocked", "portable"}},
    {MF_FP32, MF_FP8_E5M2FNUZ, MF_ROUND_NEAREST_EVEN, IEEE, 4096, 0, {"blocked", "blocked", "blocked", "blocked", "portable"}},
    {MF_FP8_E4M3FNUZ, MF_FP8_E3M4, MF_ROUND_NEAREST_EVEN, SAT, 4096, 0, {"lut", "blocked", "lut", "blocked", "portable"}},
    {MF_FP8_E4M3, MF_FP8_E4M3, MF_ROUND_NEAREST_EVEN, SAT, 4096, 0, {"portable", "portable", "portable", "portable", "portable"}},
    {MF_FP8_E4M3, MF_FP64, MF_ROUND_NEAREST_EVEN, SAT, 2048, 1, {"portable", "portable", "portable", "portable", "portable"}},
};

static const char *const plan_paths[MF__PATH_COUNT] = {"none", "portable", "blocked", "direct",
                                                      "w16", "lut", "lut_sr", "profile"};

static int plan_column(const char *name)
{
    static const char *const names[5] = {"avx2", "avx512", "avx512bf16", "neon", "portable"};
    int i;
    for (i = 0; i < 5; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

START_TEST(test_backends_plans)
{
    const mf__backend *backend;
    size_t ri, k;
    for (ri = 0; (backend = mf__backend_at(ri)) != NULL; ri++) {
        const int col = plan_column(backend->name);
        unsigned seen = 0, offered = 0;
        ck_assert_msg(col >= 0, "backend %s has no column in plan_cases", backend->name);
        if (!mf__backend_supported(backend))
            continue;
        for (k = 0; k < sizeof plan_cases / sizeof plan_cases[0]; k++) {
            const plan_case *c = &plan_cases[k];
            mf_opts o = {c->r, c->ov, 99, 0, NULL, 0, MF_PROFILE_DEFAULT};
            mf_stats st;
            mf__plan p;
            if (!(mf__simd_rows >> c->d & mf__simd_rows >> c->s & 1u))
                continue; /* a row this build leaves to the portable backend (MF_SIMD_FORMATS) */
            o.stats = c->stats ? &st : NULL;
            mf__backend_for(backend, c->d, c->s)->plan(&p, c->d, NULL, c->s, NULL, c->n, &o, c->stats);
            ck_assert_msg(strcmp(plan_paths[p.path], c->path[col]) == 0, "%s: %s -> %s %s %s n=%zu%s: path %s, want %s",
                          backend->name, mf_format_name(c->s), mf_format_name(c->d), mf_round_name(c->r),
                          mf_overflow_name(c->ov), c->n,
                          c->stats ? " stats" : "", plan_paths[p.path], c->path[col]);
            ck_assert(p.head + p.body + p.tail == c->n);
            ck_assert(mf_storage_bytes(c->s, c->n) <= NMAX * 8 && mf_storage_bytes(c->d, c->n) <= NMAX * 8);
            seen |= 1u << p.path;
            fill(c->s, src_buf, c->n);
            check_one(backend, c->d, c->s, c->n, 0, 0, &o);
        }
        for (k = 0; k < sizeof plan_cases / sizeof plan_cases[0]; k++) {
            int pth;
            if (!(mf__simd_rows >> plan_cases[k].d & mf__simd_rows >> plan_cases[k].s & 1u))
                continue;
            for (pth = 0; pth < MF__PATH_COUNT; pth++)
                if (strcmp(plan_cases[k].path[col], plan_paths[pth]) == 0)
                    offered |= 1u << pth;
        }
        ck_assert_msg(seen == offered, "%s: paths taken 0x%x, expected 0x%x", backend->name, seen, offered);
        printf("backend %s: %d paths planned and checked\n", backend->name, __builtin_popcount(seen));
    }
}
END_TEST

/* A call with ragged ends: the body by its path, head and tail bounced; the public plan agrees. */
START_TEST(test_backends_plan_api)
{
    mf_plan pl;
    mf_opts o = {MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0, 0, NULL, 0, MF_PROFILE_DEFAULT};
    const mf__backend *active = mf__backend_for(mf__backend_active(), MF_FP8_E4M3, MF_FP32);
    ck_assert_int_eq(mf_convert_plan(MF_FP8_E4M3, NULL, MF_FP32, NULL, 4095, &o, &pl), MF_OK);
    ck_assert_str_eq(pl.backend, active->name);
    ck_assert_uint_eq(pl.head + pl.body + pl.tail, 4095);
    ck_assert_int_eq(pl.threads, 1);
    if (strcmp(active->name, "portable") != 0) { /* a tail of 6 or more is bounced */
        const size_t vl = strcmp(active->name, "avx2") == 0 ? 8 : strcmp(active->name, "neon") == 0 ? 4 : 16;
        ck_assert_uint_eq(pl.tail, 4095 % vl >= 6 ? 4095 % vl : 0);
        ck_assert((pl.ends_path != NULL) == (pl.tail != 0));
    }
    ck_assert_int_eq(mf_convert_plan(MF_FP8_E4M3, NULL, MF_FP32, NULL, 0, &o, &pl), MF_OK);
    ck_assert_str_eq(pl.path, "none");
    ck_assert_int_eq(mf_convert_plan(MF_FP8_E4M3, NULL, MF_FP32, NULL, 10, &o, NULL), MF_E_NULL);
    ck_assert_int_eq(mf_convert_plan((mf_format)MF_FORMAT_COUNT, NULL, MF_FP32, NULL, 10, &o, &pl), MF_E_FORMAT);
    ck_assert_int_eq(mf_convert_plan(MF_FP8_E4M3, NULL, MF_FP32, NULL, SIZE_MAX, &o, &pl), MF_E_SIZE);
    o.threads = 4;
    ck_assert_int_eq(mf_convert_plan(MF_FP8_E4M3, NULL, MF_FP32, NULL, (size_t)4 << 20, &o, &pl), MF_OK);
    ck_assert_int_eq(pl.threads, 4);
    ck_assert_uint_eq(pl.head + pl.body + pl.tail, (size_t)1 << 20);
}
END_TEST

START_TEST(test_backends_all_pairs)
{
    size_t ri;
    const mf__backend *backend;
    uint64_t cases = 0, compared = 0;
    int s, d, r, o, c;
    for (ri = 0; (backend = mf__backend_at(ri)) != NULL; ri++)
        if (backend != &mf__backend_portable && !mf__backend_supported(backend))
            printf("backend %s: not supported by this CPU, skipped\n", backend->name);
    for (s = 0; s < MF_FORMAT_COUNT; s++) {
        fill((mf_format)s, src_buf, NMAX);
        for (d = 0; d < MF_FORMAT_COUNT; d++)
            for (r = 0; r < MF_ROUND_COUNT; r++)
                for (o = 0; o < MF_OVERFLOW_COUNT; o++)
                    for (c = 0; c < 2; c++) {
                        mf_stats st;
                        mf_opts opt = {(mf_round)r, (mf_overflow)o, next(), (next() & 1) ? 0 : next() % 9,
                                       c ? &st : NULL, 0, MF_PROFILE_DEFAULT};
                        compared += (uint64_t)check_all((mf_format)d, (mf_format)s, NMAX, 0, 0, &opt);
                        cases++;
                    }
    }
    ck_assert_uint_eq(cases, (uint64_t)MF_FORMAT_COUNT * MF_FORMAT_COUNT * MF_ROUND_COUNT * MF_OVERFLOW_COUNT * 2);
    ck_assert_uint_gt(compared, cases / 8 / mf_test_sample()); /* the SIMD pairs are most of them */
    printf("%d SIMD backends checked on %llu (pair, mode, policy, stats) cases: %llu comparisons\n", backends_tested,
           (unsigned long long)cases, (unsigned long long)compared);
}
END_TEST

/* Every f16 and bf16 code into every format, mode and policy, with and without stats (the backends
 * widen these sources in registers on some paths, so the 8-bit sources' mixture is not enough). */
START_TEST(test_backends_every_16bit_code)
{
    static const mf_format srcs[] = {MF_FP16, MF_BF16};
    size_t k;
    uint64_t cases = 0, compared = 0;
    uint32_t base;
    for (k = 0; k < 2; k++)
        for (base = 0; base < 65536; base += 2048) {
            int d, r, o, c;
            uint32_t i;
            for (i = 0; i < 2048; i++) {
                uint16_t code = (uint16_t)(base + i);
                memcpy(src_buf + 2 * i, &code, 2);
            }
            for (d = 0; d < MF_FORMAT_COUNT; d++)
                for (r = 0; r < MF_ROUND_COUNT; r++)
                    for (o = 0; o < MF_OVERFLOW_COUNT; o++)
                        for (c = 0; c < 2; c++) {
                            mf_stats st;
                            mf_opts opt = {(mf_round)r, (mf_overflow)o, next(), 0, c ? &st : NULL, 0,
                                           MF_PROFILE_DEFAULT};
                            compared += (uint64_t)check_all((mf_format)d, srcs[k], 2048, 0, 0, &opt);
                            cases++;
                        }
        }
    ck_assert_uint_eq(cases, (uint64_t)2 * 32 * MF_FORMAT_COUNT * MF_ROUND_COUNT * MF_OVERFLOW_COUNT * 2);
    ck_assert_uint_gt(compared, cases / 8 / mf_test_sample());
}
END_TEST

/* Lengths 0..257, misaligned arrays, sr offsets 0..7: tails, heads and guard bytes. */
START_TEST(test_backends_lengths)
{
    static const mf_format pairs[][2] = {
        {MF_FP32, MF_FP8_E4M3}, {MF_FP32, MF_FP4_E2M1}, {MF_FP32, MF_FP16},    {MF_FP32, MF_BF16},
        {MF_FP32, MF_E8M0},     {MF_FP4_E2M1, MF_FP32}, {MF_FP16, MF_FP32},    {MF_FP64, MF_FP8_E5M2},
        {MF_FP64, MF_FP32},     {MF_FP32, MF_FP64},     {MF_FP6_E3M2, MF_FP4_E2M1}, {MF_BF16, MF_FP6_E2M3},
        {MF_FP32, MF_BINARY4P2SF}, {MF_BINARY4P2SF, MF_FP32},
    };
    size_t k, n;
    uint64_t cases = 0;
    for (k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        mf_format s = pairs[k][0], d = pairs[k][1];
        fill(s, src_buf, NMAX);
        for (n = 0; n <= 257; n++) {
            int r = (int)(next() % MF_ROUND_COUNT);
            mf_stats st;
            /* stream offsets near 4 * 2^32 stream words (elements: times 32 / mf_sr_width(d)), where
             * the Philox block counter's low word wraps */
            const int sh = mf_sr_width(d) == 16 ? 1 : mf_sr_width(d) == 8 ? 2 : 0;
            uint64_t off = (n % 5 == 0) ? ((uint64_t)1 << (34 + sh)) - 4 * (next() % 40) - next() % 4 : next() % 8;
            mf_opts opt = {(mf_round)r, (mf_overflow)(n & 1), next(), off, (n & 2) ? &st : NULL, 0, MF_PROFILE_DEFAULT};
            size_t sfix = mf_storage_bytes(s, 2) == 1 ? 0 : n % 8, dfix = (n / 8) % 8;
            check_all(d, s, n, sfix, dfix, &opt);
            opt.round = MF_ROUND_STOCHASTIC;
            check_all(d, s, n, sfix, dfix, &opt);
            cases += 2;
        }
    }
    ck_assert_uint_eq(cases, (uint64_t)(sizeof pairs / sizeof pairs[0]) * 258 * 2);
}
END_TEST

/* The split of bk_convert: heads up to the wider array's 64-byte boundary (f32 <-> f16 from 1024
 * elements), bodies of whole steps (64 for the byte tables) and the ragged ends converted in a bounce
 * buffer (sr: at their Philox block position). Lengths 1000..1100 (tails of every size for both steps,
 * odd for e2m1), source and output at every byte offset from a 64-byte boundary, sr offsets 0..31. */
START_TEST(test_backends_heads_tails)
{
    static const mf_format pairs[][2] = {
        {MF_FP32, MF_FP16},     {MF_FP16, MF_FP32},     {MF_FP32, MF_FP8_E4M3}, {MF_FP8_E5M2, MF_FP8_E4M3},
        {MF_FP8_E4M3, MF_FP4_E2M1}, {MF_FP4_E2M1, MF_FP16}, {MF_FP8_E4M3, MF_FP32}, {MF_BF16, MF_FP4_E2M1},
        {MF_FP32, MF_BINARY4P2SF}, {MF_BINARY4P2SF, MF_FP16}, {MF_FP8_E4M3, MF_BINARY4P2SF},
        {MF_FP64, MF_FP16},     {MF_FP32, MF_BF16},     {MF_FP16, MF_BF16},     {MF_FP6_E3M2, MF_E8M0},
    };
    static const mf_round modes[] = {MF_ROUND_NEAREST_EVEN, MF_ROUND_TOWARD_ZERO, MF_ROUND_STOCHASTIC, MF_ROUND_UP};
    /* offsets from the backend's arrays' 64-byte boundaries (the portable backend's output may sit anywhere) */
    const size_t sbase = (size_t)(-(uintptr_t)src_buf & 63u), dbase = (size_t)(-(uintptr_t)got & 63u);
    size_t k, n, m;
    uint64_t cases = 0;
    for (k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        const mf_format s = pairs[k][0], d = pairs[k][1];
        for (n = 1000; n <= 1100; n++)
            for (m = 0; m < sizeof modes / sizeof modes[0]; m++) {
                mf_opts opt = {modes[m], (mf_overflow)((n + m) & 1), next(), next() % 32, NULL, 0, MF_PROFILE_DEFAULT};
                const size_t sfix = sbase + (mf_storage_bytes(s, 2) == 1 ? 0 : (n * 7 + m * 13) % 64);
                const size_t dfix = dbase + (n * 5 + m * 11) % 64;
                fill(s, src_buf, n + 64);
                check_all(d, s, n, sfix, dfix, &opt);
                cases++;
            }
    }
    ck_assert_uint_eq(cases, (uint64_t)(sizeof pairs / sizeof pairs[0]) * 101 * 4);
}
END_TEST

/* f32 -> f16 in rn and rz (bk_direct's vcvtps2ph loop, which tests a block of 256 for NaN at once,
 * hw_f16_acc) and in ru and rd: one NaN of random sign and payload at each position of two blocks,
 * among ordinary values; an infinity beside a zero (inf * 0) and beside the other infinity; values
 * whose products overflow; both policies, 64-byte aligned and not. */
START_TEST(test_backends_f16_nan_blocks)
{
    const size_t base = (size_t)(-(uintptr_t)src_buf & 63u), n = 1100;
    float *x;
    size_t ri, p, v;
    const mf__backend *backend;
    uint64_t cases = 0;
    for (ri = 0; (backend = mf__backend_at(ri)) != NULL; ri++) {
        if (backend == &mf__backend_portable || !mf__backend_supported(backend))
            continue;
        for (v = 0; v < 4; v++)
            for (p = 0; p < 512 + 3; p++) {
                const size_t sfix = base + (v & 1 ? 0 : 4 * (p % 16));
                size_t i;
                uint32_t b;
                x = (float *)(void *)(src_buf + sfix);
                for (i = 0; i < n; i++)
                    x[i] = (float)((double)(next() % 20000) / 64 - 150);
                if (p < 512) { /* a NaN at p, or at p of the block after the head */
                    b = 0x7F800001u | (uint32_t)next() % 0x7FFFFFu | (uint32_t)(next() & 1) << 31;
                    memcpy(&x[p + (v & 2 ? 0 : 12)], &b, 4);
                } else if (p == 512) { /* inf * 0 */
                    x[100] = INFINITY;
                    x[116] = 0;
                } else if (p == 513) { /* inf - inf */
                    x[300] = INFINITY;
                    x[301] = -INFINITY;
                } else { /* products that overflow */
                    for (i = 0; i < n; i++)
                        x[i] = (i & 1 ? -3e20f : 2e20f) * (float)(1 + i % 7);
                }
                {
                    static const mf_round modes[] = {MF_ROUND_NEAREST_EVEN, MF_ROUND_TOWARD_ZERO, MF_ROUND_DOWN,
                                                     MF_ROUND_UP};
                    mf_opts opt = {modes[p % 4], (mf_overflow)(v >> 1 & 1), 1, 0, NULL, 0, MF_PROFILE_DEFAULT};
                    check_one(backend, MF_FP16, MF_FP32, n, sfix, base + 8 * (p % 8), &opt);
                    cases++;
                }
            }
    }
    ck_assert_uint_eq(cases, (uint64_t)backends_tested * 4 * 515);
}
END_TEST

/* f64 -> f32 in every mode but sr, on doubles at and next to binary32 ties (a binary32 value plus or
 * minus half its place, moved by -2 .. 2 binary64 places), around the overflow threshold, far above
 * it and in the subnormal range: where the backends' vcvtpd2ps paths (and rna's added half place) could
 * go wrong. */
START_TEST(test_backends_f64_ties)
{
    size_t ri, i;
    const mf__backend *backend;
    double *x = (double *)src_buf;
    for (i = 0; i < NMAX; i++) {
        uint32_t f = (uint32_t)next();
        float fv;
        double d, h;
        uint64_t b;
        int e;
        if (i % 7 == 0)
            f = (f & 0x80000000u) | (0x7F7FFFF0u + (f & 15u)); /* near max */
        else if (i % 7 == 1)
            f &= 0x807FFFFFu; /* subnormal */
        memcpy(&fv, &f, 4);
        if (fv != fv || fv - fv != 0) /* NaN, inf: kept as they are */
            fv = 1.5f;
        e = (int)((f >> 23) & 0xFF);
        h = ldexp(1.0, (e ? e : 1) - 127 - 24); /* half the binary32 place */
        d = (next() & 1) ? (double)fv + h : (double)fv - h;
        memcpy(&b, &d, 8);
        b += (uint64_t)(int64_t)((int)(next() % 5) - 2);
        memcpy(&x[i], &b, 8);
        if (i % 7 == 2) /* far above binary32's range */
            x[i] = ldexp((next() & 1) ? -1.75 : 1.25, 127 + (int)(next() % 897));
    }
    for (ri = 0; (backend = mf__backend_at(ri)) != NULL; ri++) {
        int r, o;
        if (backend == &mf__backend_portable || !mf__backend_supported(backend))
            continue;
        for (r = 0; r < MF_ROUND_COUNT; r++)
            for (o = 0; o < MF_OVERFLOW_COUNT; o++) {
                mf_opts opt = {(mf_round)r, (mf_overflow)o, 1, 0, NULL, 0, MF_PROFILE_DEFAULT};
                if (r == MF_ROUND_STOCHASTIC)
                    continue;
                check_one(backend, MF_FP32, MF_FP64, NMAX, 0, 0, &opt);
            }
    }
}
END_TEST

/* Long stochastic runs across the Philox counter's 32-bit wrap, for every backend. */
START_TEST(test_backends_philox_wrap)
{
    size_t ri;
    const mf__backend *backend;
    fill(MF_FP32, src_buf, NMAX);
    for (ri = 0; (backend = mf__backend_at(ri)) != NULL; ri++) {
        uint64_t k;
        if (backend == &mf__backend_portable || !mf__backend_supported(backend))
            continue;
        for (k = 0; k < 64; k++) {
            /* the wrap is at 2^34 stream words: element 2^36 of an 8-bit destination, 2^35 of bf16 */
            mf_opts opt = {MF_ROUND_STOCHASTIC, MF_OVERFLOW_SATURATE, 77, ((uint64_t)1 << 36) - 4 * k - 1000, NULL, 0, MF_PROFILE_DEFAULT};
            check_one(backend, MF_FP8_E4M3, MF_FP32, 1500, 0, 0, &opt);
            opt.sr_offset = ((uint64_t)1 << 35) - 4 * k - 1000 + (k & 3);
            check_one(backend, MF_BF16, MF_FP32, 1500, 0, 0, &opt);
            opt.sr_offset = ((uint64_t)1 << 35) - 8 * k - 1200 + (k & 7); /* several 512-element chunks */
            check_one(backend, MF_FP16, MF_FP32, 2000, 0, 0, &opt);
            /* and across the wrap of the stream index itself, at 2^64 (found by fuzz_bulk) */
            opt.sr_offset = (uint64_t)0 - 4 * k - 300 - (k & 3);
            check_one(backend, MF_FP6_E2M3, MF_FP8_E5M2, 1500, 0, 0, &opt);
            /* f16 and bf16 sources (16-bit lanes): in or after the second 1024-element chunk */
            opt.sr_offset = ((uint64_t)1 << 36) - 16 * k - 1040 + (k & 15);
            check_one(backend, MF_FP8_E5M2, MF_FP16, 2100, 0, 0, &opt);
            opt.sr_offset &= ~(uint64_t)1; /* e2m1 from an odd index is portable */
            check_one(backend, MF_FP4_E2M1, MF_BF16, 2100, 0, 0, &opt);
        }
    }
    /* f64 sources (bk_f64_sr's words come from bk_sr_fill), across the same wraps */
    fill(MF_FP64, src_buf, NMAX);
    for (ri = 0; (backend = mf__backend_at(ri)) != NULL; ri++) {
        uint64_t k;
        if (backend == &mf__backend_portable || !mf__backend_supported(backend))
            continue;
        for (k = 0; k < 16; k++) {
            mf_opts opt = {MF_ROUND_STOCHASTIC, MF_OVERFLOW_IEEE, 78, ((uint64_t)1 << 35) - 8 * k - 1200 + (k & 7), NULL, 0, MF_PROFILE_DEFAULT};
            check_one(backend, MF_FP16, MF_FP64, 2000, 0, 0, &opt);
            opt.sr_offset = ((uint64_t)1 << 34) - 4 * k - 1100 + (k & 3); /* binary32: a word an element */
            check_one(backend, MF_FP32, MF_FP64, 2000, 0, 0, &opt);
            opt.sr_offset = (uint64_t)0 - 16 * k - 700 - (k & 15);
            check_one(backend, MF_E8M0, MF_FP64, 2000, 0, 0, &opt);
            check_one(backend, MF_BF16, MF_FP64, 2000, 0, 0, &opt);
        }
    }
}
END_TEST

/* The code of element i in a converted array of format d. */
/* tests/oracle/ref.h's names for the modes and formats (f64 has none: it is never a target there) */
static const ref_mode ref_modes[MF_ROUND_COUNT] = {
    [MF_ROUND_NEAREST_EVEN] = REF_RN, [MF_ROUND_NEAREST_AWAY] = REF_RNA, [MF_ROUND_TOWARD_ZERO] = REF_RZ,
    [MF_ROUND_UP] = REF_RU,           [MF_ROUND_DOWN] = REF_RD,          [MF_ROUND_ODD] = REF_RO,
    [MF_ROUND_STOCHASTIC] = REF_SR};
/* The oracle's format of each library format, found by name by refs_init (REF_NFORMATS where the oracle
 * has none); f64 is never a target of ref_round here. */
static ref_format refs[MF_FORMAT_COUNT];

static void refs_init(void)
{
    int f;
    for (f = 0; f < MF_FORMAT_COUNT; f++)
        refs[f] = f == MF_FP64 ? REF_F32 : ref_format_named(mf_format_name((mf_format)f));
}

/* Every format but f64 has its row in the oracle (one appended to formats.inc without one fails here). */
START_TEST(test_backends_ref_names)
{
    int f;
    for (f = 0; f < MF_FORMAT_COUNT; f++)
        if (f != MF_FP64)
            ck_assert_msg(refs[f] != REF_NFORMATS, "%s: no row in tests/oracle/ref.c", mf_format_name((mf_format)f));
}
END_TEST

static uint32_t code_at(mf_format d, const uint8_t *p, size_t i)
{
    if (d == MF_FP32) {
        uint32_t u;
        memcpy(&u, p + 4 * i, 4);
        return u;
    }
    if (d == MF_BF16 || d == MF_FP16)
        return (uint32_t)p[2 * i] | (uint32_t)p[2 * i + 1] << 8;
    if (d == MF_FP4_E2M1)
        return (uint32_t)(p[i / 2] >> (4 * (i & 1))) & 0xFu;
    return p[i];
}

/* Stochastic conversions of f32 (and those of the table kernels in the other modes) on 2^22 bit
 * patterns spread over every binade (each 1024th pattern, at a moving offset): the backends' own kernels
 * against the portable backend,
 * and every backend (the portable one too) against the textbook reference tests/oracle/ref.c, which shares
 * no code with src/, on each 64th element (rbits from mf_sr_rbits, the stream's definition). The full
 * sweep of all 2^32 patterns against the portable backend was run once by hand (docs/performance.md). */
START_TEST(test_backends_sr_sweep)
{
    enum { CH = 1 << 16 };
    static uint32_t in[CH];
    static uint8_t a[2 * CH], b[2 * CH];
    static const struct {
        mf_format d;
        mf_round r;
        mf_overflow o;
    } cases[] = {{MF_BF16, MF_ROUND_STOCHASTIC, MF_OVERFLOW_IEEE},        {MF_BF16, MF_ROUND_STOCHASTIC, MF_OVERFLOW_SATURATE},
                 {MF_FP8_E4M3, MF_ROUND_STOCHASTIC, MF_OVERFLOW_SATURATE}, {MF_FP8_E5M2, MF_ROUND_STOCHASTIC, MF_OVERFLOW_SATURATE},
                 {MF_FP6_E2M3, MF_ROUND_STOCHASTIC, MF_OVERFLOW_SATURATE}, {MF_FP6_E3M2, MF_ROUND_STOCHASTIC, MF_OVERFLOW_SATURATE},
                 {MF_FP4_E2M1, MF_ROUND_STOCHASTIC, MF_OVERFLOW_SATURATE}, {MF_FP8_E4M3, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE},
                 {MF_FP4_E2M1, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_SATURATE},
                 /* the table kernel's other modes; ro is outside the exhaustive tier's list */
                 {MF_FP8_E4M3, MF_ROUND_ODD, MF_OVERFLOW_SATURATE},          {MF_FP8_E5M2, MF_ROUND_ODD, MF_OVERFLOW_SATURATE},
                 {MF_FP6_E2M3, MF_ROUND_ODD, MF_OVERFLOW_SATURATE},          {MF_FP6_E3M2, MF_ROUND_ODD, MF_OVERFLOW_SATURATE},
                 {MF_FP4_E2M1, MF_ROUND_ODD, MF_OVERFLOW_IEEE},              {MF_FP8_E5M2, MF_ROUND_NEAREST_AWAY, MF_OVERFLOW_SATURATE},
                 {MF_FP8_E4M3, MF_ROUND_TOWARD_ZERO, MF_OVERFLOW_SATURATE},  {MF_FP6_E3M2, MF_ROUND_UP, MF_OVERFLOW_IEEE},
                 {MF_FP4_E2M1, MF_ROUND_DOWN, MF_OVERFLOW_SATURATE},         {MF_FP8_E4M3, MF_ROUND_ODD, MF_OVERFLOW_IEEE},
                 {MF_FP8_E5M2, MF_ROUND_ODD, MF_OVERFLOW_IEEE},              {MF_BF16, MF_ROUND_ODD, MF_OVERFLOW_IEEE},
                 {MF_BF16, MF_ROUND_ODD, MF_OVERFLOW_SATURATE},              {MF_FP16, MF_ROUND_ODD, MF_OVERFLOW_IEEE},
                 {MF_FP16, MF_ROUND_ODD, MF_OVERFLOW_SATURATE},
                 /* the sr table kernel's f16 and IEEE cases, e8m0's integer ro and its sr */
                 {MF_FP16, MF_ROUND_STOCHASTIC, MF_OVERFLOW_IEEE},       {MF_FP16, MF_ROUND_STOCHASTIC, MF_OVERFLOW_SATURATE},
                 {MF_FP8_E4M3, MF_ROUND_STOCHASTIC, MF_OVERFLOW_IEEE},   {MF_FP8_E5M2, MF_ROUND_STOCHASTIC, MF_OVERFLOW_IEEE},
                 {MF_E8M0, MF_ROUND_ODD, MF_OVERFLOW_IEEE},              {MF_E8M0, MF_ROUND_ODD, MF_OVERFLOW_SATURATE},
                 {MF_E8M0, MF_ROUND_STOCHASTIC, MF_OVERFLOW_SATURATE},
                 /* an FNUZ and an IEEE-style FP8 format's bulk sr (the exhaustive tier sweeps them in rn only) */
                 {MF_FP8_E4M3FNUZ, MF_ROUND_STOCHASTIC, MF_OVERFLOW_IEEE}, {MF_FP8_E3M4, MF_ROUND_STOCHASTIC, MF_OVERFLOW_IEEE}};
    static unsigned long calls;
    size_t ri, k;
    uint32_t c, j;
    const mf__backend *backend;
    /* each chunk: the portable backend's output against the reference on one input in 64, then every SIMD
     * backend's against the portable one's; one chunk in MF_TEST_SAMPLE */
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (c = 0; c < 64; c++) {
            const mf_opts o = {cases[k].r, cases[k].o, 0x9E3779B97F4A7C15u + c, (uint64_t)c << 20, NULL, 0, MF_PROFILE_DEFAULT};
            const size_t nb = mf_storage_bytes(cases[k].d, CH);
            if (!mf_test_take(&calls))
                continue;
            for (j = 0; j < CH; j++)
                in[j] = (c * CH + j) * 1024u + ((j * 7u + c) & 1023u);
            mf__backend_portable.convert(cases[k].d, a, MF_FP32, in, CH, &o, NULL);
            for (j = c & 63u; j < CH; j += 64) {
                float x;
                uint32_t ref;
                memcpy(&x, &in[j], 4);
                ref = ref_round(refs[cases[k].d], (double)x, ref_modes[cases[k].r], cases[k].o == MF_OVERFLOW_SATURATE,
                                mf_sr_rbits(o.seed, o.sr_offset + j, mf_sr_width(cases[k].d)), NULL);
                MF_EXPECT(code_at(cases[k].d, a, j) == ref, "portable f32 -> %s %s %s: input %#x gives %#x, the reference %#x",
                          mf_format_name(cases[k].d), mf_round_name(cases[k].r), mf_overflow_name(cases[k].o), in[j],
                          code_at(cases[k].d, a, j), ref);
            }
            for (ri = 0; (backend = mf__backend_at(ri)) != NULL; ri++) {
                if (backend == &mf__backend_portable || !mf__backend_supported(backend))
                    continue;
                bk_convert(backend, cases[k].d, b, MF_FP32, in, CH, &o, NULL);
                if (memcmp(a, b, nb) != 0) {
                    size_t i = 0;
                    while (a[i] == b[i])
                        i++;
                    MF_EXPECT(0, "%s f32 -> %s %s %s: byte %zu is %#x, not %#x", backend->name, mf_format_name(cases[k].d),
                              mf_round_name(cases[k].r), mf_overflow_name(cases[k].o), i, b[i], a[i]);
                }
            }
        }
}
END_TEST

/* Stochastic rounding from f64, on doubles whose 53 significand bits are all random, spread over
 * every binade of each target from far below its smallest subnormal to past its overflow, with the
 * grid point above max (where sr overflows or not) and the specials: every backend, the portable one
 * too, against the textbook reference tests/oracle/ref.c on every element, with the rbits of
 * mf_sr_rbits. Into f16, bf16, f32 and e8m0 sr reads bits below binary32's precision (bk_f64_sr adds
 * the random bits in binary64); the fp8/fp6/fp4 targets go through round to odd into binary32. */
START_TEST(test_backends_f64_sr)
{
    enum { N = 1 << 14 };
    static double in[N];
    static uint8_t out[4 * N + GUARD];
    static const mf_format dsts[] = {MF_FP16,     MF_BF16,     MF_FP32,     MF_E8M0,
                                     MF_FP8_E4M3, MF_FP8_E5M2, MF_FP6_E3M2, MF_FP4_E2M1};
    size_t ri, k, j;
    unsigned long long checked = 0, expected = 0;
    int pol, c;
    const mf__backend *backend;
    for (ri = 0; (backend = mf__backend_at(ri)) != NULL; ri++) {
        if (!mf__backend_supported(backend))
            continue;
        for (k = 0; k < sizeof dsts / sizeof dsts[0]; k++) {
            const mf_format d = dsts[k];
            const ref_info *fi = ref_format_info(refs[d]);
            const int emin = 1 - fi->bias, emax = (1 << fi->exp_bits) - 2 - fi->bias + (d == MF_E8M0);
            for (pol = 0; pol < 2; pol++)
                for (c = 0; c < 4; c++) {
                    /* offsets on a Philox block and off it (a portable head), odd for e2m1 too */
                    mf_opts o = {MF_ROUND_STOCHASTIC, pol ? MF_OVERFLOW_SATURATE : MF_OVERFLOW_IEEE,
                                 0xD1B54A32D192ED03u * (uint64_t)(c + 1), (uint64_t)c * 1000003u, NULL, 0, MF_PROFILE_DEFAULT};
                    int bad = 0;
                    expected += N;
                    for (j = 0; j < N; j++) {
                        const uint64_t r = next();
                        const double sig = 1.0 + (double)(next() >> 12) * 0x1p-52; /* 52 random bits */
                        double v;
                        switch (r & 15) {
                        case 0: { /* zeros, infinities, NaNs, the largest and a subnormal double */
                            static const uint64_t sp[] = {0, 0x7FF0000000000000u, 0x7FF8000000000001u,
                                                          0x7FF0000000000123u, 0x7FEFFFFFFFFFFFFFu, 1};
                            const uint64_t b = sp[(r >> 8) % 6];
                            memcpy(&v, &b, 8);
                            break;
                        }
                        case 1: /* just below or above the grid point above max: 2^(emax + 1) */
                            v = ldexp(1.0, emax + 1) * (1.0 + ((r >> 8) & 1 ? 1 : -1) * (sig - 1.0) *
                                                                  ldexp(1.0, -fi->man_bits - 1 - (int)((r >> 9) % 24)));
                            break;
                        default: /* every binade from 2^(emin - man - 24) to 2^(emax + 2) */
                            v = ldexp(sig, emin - fi->man_bits - 24 + (int)((r >> 8) % (unsigned)(emax - emin + fi->man_bits + 27)));
                        }
                        in[j] = (r >> 40) & 1 ? -v : v;
                    }
                    memset(out, 0xC3, sizeof out);
                    bk_convert(backend, d, out, MF_FP64, in, N, &o, NULL);
                    for (j = 0; j < N && !bad; j++, checked++) {
                        const uint32_t ref = ref_round(refs[d], in[j], REF_SR, pol, mf_sr_rbits(o.seed, o.sr_offset + j, mf_sr_width(d)), NULL);
                        if (code_at(d, out, j) != ref) {
                            MF_EXPECT(0, "%s f64 -> %s sr %s sr_offset %llu: element %zu (%a) gives %#x, the reference %#x",
                                      backend->name, mf_format_name(d), mf_overflow_name(o.overflow),
                                      (unsigned long long)o.sr_offset, j, in[j], code_at(d, out, j), ref);
                            bad = 1;
                        }
                    }
                    for (j = mf_storage_bytes(d, N); j < sizeof out && !bad; j++)
                        MF_EXPECT(out[j] == 0xC3, "%s f64 -> %s: byte %zu past the end written", backend->name, mf_format_name(d), j);
                }
        }
    }
    ck_assert_uint_eq(checked, expected);
    ck_assert_uint_ge(expected, 2ull * 4 * (sizeof dsts / sizeof dsts[0]) * 2 * N); /* the portable backend and one more */
}
END_TEST

/* Outputs past 16 MiB take the streaming-store path: same bytes, same counts, misaligned too
 * (the output 3 bytes past a 64-byte boundary, the source at three offsets), and for binary64
 * results, which are streamed straight from registers when the output is aligned, both. */
START_TEST(test_backends_streaming)
{
    static const struct {
        mf_format s, d;
        size_t n;
        mf_round r;
    } big[] = {{MF_FP32, MF_FP8_E4M3, ((size_t)17 << 20) + 13, MF_ROUND_NEAREST_EVEN},
               {MF_FP32, MF_FP4_E2M1, ((size_t)33 << 20) + 6, MF_ROUND_NEAREST_EVEN},
               {MF_FP4_E2M1, MF_FP32, ((size_t)5 << 20) + 7, MF_ROUND_NEAREST_EVEN},
               {MF_FP16, MF_FP64, ((size_t)9 << 18) + 5, MF_ROUND_NEAREST_EVEN},
               {MF_FP8_E4M3, MF_FP64, ((size_t)9 << 18) + 3, MF_ROUND_NEAREST_EVEN},
               {MF_FP64, MF_FP8_E4M3, ((size_t)17 << 20) + 3, MF_ROUND_NEAREST_EVEN},
               {MF_FP16, MF_FP8_E4M3, ((size_t)17 << 20) + 5, MF_ROUND_NEAREST_EVEN},
               {MF_BF16, MF_FP4_E2M1, ((size_t)33 << 20) + 2, MF_ROUND_NEAREST_EVEN},
               {MF_FP8_E5M2, MF_FP6_E2M3, ((size_t)17 << 20) + 9, MF_ROUND_NEAREST_EVEN},
               {MF_BF16, MF_FP16, ((size_t)9 << 20) + 7, MF_ROUND_ODD}};
    size_t k, i;
    for (k = 0; k < sizeof big / sizeof big[0]; k++) {
        size_t sb = mf_storage_bytes(big[k].s, big[k].n), db = mf_storage_bytes(big[k].d, big[k].n) + 64;
        uint8_t *in0 = malloc(sb + 64), *a = NULL, *b = NULL;
        const size_t out_at = big[k].d == MF_FP64 ? 0 : 3;
        const size_t eb = big[k].s == MF_FP4_E2M1 ? 1 : mf_storage_bytes(big[k].s, 1);
        size_t sh;
        ck_assert_ptr_nonnull(in0);
        ck_assert_int_eq(posix_memalign((void **)&a, 64, db), 0);
        ck_assert_int_eq(posix_memalign((void **)&b, 64, db), 0);
        fill(big[k].s, src_buf, NMAX); /* the test's mixture, repeated over the input */
        /* the source at 0, 1 and 2 elements past a 64-byte boundary: the backends align their loads */
        for (sh = 0; sh < 3; sh++) {
            uint8_t *in = (uint8_t *)((uintptr_t)(in0 + 63) & ~(uintptr_t)63) + sh * eb;
            const mf_opts o = {big[k].r, MF_OVERFLOW_SATURATE, 1, 0, NULL, 0, MF_PROFILE_DEFAULT};
            for (i = 0; i < sb; i += mf_storage_bytes(big[k].s, NMAX))
                memcpy(in + i, src_buf, sb - i < mf_storage_bytes(big[k].s, NMAX) ? sb - i : mf_storage_bytes(big[k].s, NMAX));
            check_big(big[k].d, big[k].s, in, big[k].n, a, b, out_at + sh, db, &o, 1);
        }
        free(in0);
        free(a);
        free(b);
    }
}
END_TEST

/* sr from f16 and bf16 past 16 MiB of output (bk_w16 streams): the elements up to a Philox block
 * start portable, then plain stores up to the output's 64-byte boundary where that is a block start
 * too (else plain stores throughout), at a stream offset that crosses the block counter's 32-bit wrap
 * too. */
START_TEST(test_backends_sr_streaming)
{
    static const struct {
        mf_format s, d;
        size_t n, out_at;
        uint64_t off;
    } big[] = {{MF_FP16, MF_FP8_E4M3, ((size_t)17 << 20) + 5, 3, 3 + 16 * 5}, /* boundary at a block start */
               {MF_FP16, MF_FP8_E4M3, ((size_t)17 << 20) + 5, 3, 5},          /* not */
               {MF_BF16, MF_FP4_E2M1, ((size_t)33 << 20) + 3, 3, 6},          /* 10 portable, 112 plain */
               {MF_BF16, MF_E8M0, ((size_t)17 << 20) + 7, 17, ((uint64_t)1 << 36) - ((uint64_t)1 << 19) + 1}};
    size_t k, i;
    for (k = 0; k < sizeof big / sizeof big[0]; k++) {
        const size_t sb = mf_storage_bytes(big[k].s, big[k].n), db = mf_storage_bytes(big[k].d, big[k].n) + 64;
        uint8_t *in = malloc(sb), *a = NULL, *b = NULL;
        ck_assert_ptr_nonnull(in);
        ck_assert_int_eq(posix_memalign((void **)&a, 64, db), 0);
        ck_assert_int_eq(posix_memalign((void **)&b, 64, db), 0);
        fill(big[k].s, src_buf, NMAX);
        for (i = 0; i < sb; i += mf_storage_bytes(big[k].s, NMAX))
            memcpy(in + i, src_buf, sb - i < mf_storage_bytes(big[k].s, NMAX) ? sb - i : mf_storage_bytes(big[k].s, NMAX));
        {
            const mf_opts o = {MF_ROUND_STOCHASTIC, (mf_overflow)(k & 1), 99 + k, big[k].off, NULL, 0, MF_PROFILE_DEFAULT};
            check_big(big[k].d, big[k].s, in, big[k].n, a, b, big[k].out_at, db, &o, 0);
        }
        free(in);
        free(a);
        free(b);
    }
}
END_TEST

/* The byte-table tests' pairs, and their inputs: every byte value in every 256 consecutive bytes */
static const mf_format srcs[] = {MF_FP8_E4M3, MF_FP8_E5M2, MF_FP6_E2M3, MF_FP6_E3M2, MF_E8M0, MF_FP4_E2M1};
/* The decode and reference tests' sources: those, the FNUZ and IEEE-style FP8 formats and IEEE P3109's signed
 * 8-bit formats of P >= 2. (Their byte-table paths as sources are test_backends_all_pairs' business, NMAX
 * elements being past bk_lut's 1024; the lengths, misalignments and streamed calls of those kernels do not
 * depend on the source format.) */
static const mf_format srcs_all[] = {
    MF_FP8_E4M3,    MF_FP8_E5M2,     MF_FP6_E2M3,     MF_FP6_E3M2,    MF_E8M0,         MF_FP4_E2M1,
    MF_FP8_E4M3FNUZ, MF_FP8_E5M2FNUZ, MF_FP8_E4M3B11FNUZ, MF_FP8_E4M3IEEE, MF_FP8_E3M4,
    MF_BINARY8P2SE, MF_BINARY8P2SF,  MF_BINARY8P3SE,  MF_BINARY8P3SF, MF_BINARY8P4SE,  MF_BINARY8P4SF,
    MF_BINARY8P5SE, MF_BINARY8P5SF,  MF_BINARY8P6SE,  MF_BINARY8P6SF, MF_BINARY8P7SE,  MF_BINARY8P7SF};
#define N_SRCS_ALL (sizeof srcs_all / sizeof srcs_all[0])
static const mf_format dsts[] = {MF_FP16,     MF_BF16,     MF_FP8_E4M3, MF_FP8_E5M2,
                                 MF_FP6_E2M3, MF_FP6_E3M2, MF_E8M0,     MF_FP4_E2M1};

/* Every 8-bit format is one kernel family: each SIMD backend converts every narrow source of srcs_all to and
 * from f32 itself (or through the backend it builds on, never the portable one), by a vector path, in every
 * mode and policy, with the portable backend's bytes and counts (the exhaustive tier sweeps f32 -> each of
 * them per backend). */
START_TEST(test_backends_family)
{
    const mf__backend *backend;
    size_t ri, si;
    int r, o, c, checked = 0, kept = 0;
    for (ri = 0; (backend = mf__backend_at(ri)) != NULL; ri++) {
        if (backend == &mf__backend_portable || !mf__backend_supported(backend))
            continue;
        for (si = 0; si < N_SRCS_ALL; si++) {
            const mf_format f = srcs_all[si];
            if (!(mf__simd_rows >> f & 1u))
                continue; /* a row this build leaves to the portable backend (MF_SIMD_FORMATS) */
            ck_assert_msg(mf__backend_for(backend, f, MF_FP32) != &mf__backend_portable, "%s: f32 -> %s is portable's",
                          backend->name, mf_format_name(f));
            ck_assert_msg(mf__backend_for(backend, MF_FP32, f) != &mf__backend_portable, "%s: %s -> f32 is portable's",
                          backend->name, mf_format_name(f));
            for (r = 0; r < MF_ROUND_COUNT; r++)
                for (o = 0; o < MF_OVERFLOW_COUNT; o++)
                    for (c = 0; c < 2; c++) {
                        mf_stats st;
                        mf_opts opt = {(mf_round)r, (mf_overflow)o, 5, 16, c ? &st : NULL, 0, MF_PROFILE_DEFAULT};
                        mf__plan p;
                        mf__backend_for(backend, f, MF_FP32)->plan(&p, f, NULL, MF_FP32, NULL, 4096, &opt, c);
                        ck_assert_msg(p.path != MF__PATH_PORTABLE, "%s: f32 -> %s %s: the portable path", backend->name,
                                      mf_format_name(f), mf_round_name((mf_round)r));
                        fill(MF_FP32, src_buf, NMAX);
                        check_one(backend, f, MF_FP32, NMAX, 0, 0, &opt);
                        fill(f, src_buf, NMAX);
                        check_one(backend, MF_FP32, f, NMAX, 0, 0, &opt);
                        checked++;
                    }
        }
    }
    for (si = 0; si < N_SRCS_ALL; si++)
        kept += (int)(mf__simd_rows >> srcs_all[si] & 1u);
    ck_assert_int_eq(checked, backends_tested * kept * MF_ROUND_COUNT * MF_OVERFLOW_COUNT * 2);
}
END_TEST

static void every_byte(uint8_t *p, size_t n)
{
    size_t j;
    for (j = 0; j < n; j++)
        p[j] = (uint8_t)(j * 167u + 13u);
}

/* three buffers of big bytes (the first filled by every_byte) for the streamed calls */
static void big_buffers(uint8_t **in, uint8_t **a, uint8_t **b, size_t big)
{
    *in = malloc(big);
    *a = malloc(big);
    *b = malloc(big);
    ck_assert_ptr_nonnull(*in);
    ck_assert_ptr_nonnull(*a);
    ck_assert_ptr_nonnull(*b);
    every_byte(*in, big);
}

/* One byte-table case: the portable backend's output and backend's, and the bytes around them, compared; 0 if
 * they differ (reported) */
static int lut_case(const mf__backend *backend, mf_format d, mf_format s, const uint8_t *in, size_t n, size_t doff,
                    const mf_opts *opt, uint8_t *a, uint8_t *b, size_t area)
{
    size_t k = 0;
    memset(a, 0x5C, area);
    memset(b, 0x5C, area);
    mf__backend_portable.convert(d, a + doff, s, in, n, opt, NULL);
    bk_convert(backend, d, b + doff, s, in, n, opt, NULL);
    if (memcmp(a, b, area) == 0)
        return 1;
    while (a[k] == b[k])
        k++;
    MF_EXPECT(0, "%s: %s -> %s %s %s, n %zu, sr_offset %llu: byte %zu of the output area is %#x, not %#x", backend->name,
              mf_format_name(s), mf_format_name(d), mf_round_name(opt->round), mf_overflow_name(opt->overflow), n,
              (unsigned long long)opt->sr_offset, k, b[k], a[k]);
    return 0;
}

/* fp8, fp6, fp4 and e8m0 sources into those formats, f16 or bf16 go through a table of the source codes
 * in the backends that have byte lookups (bk_lut, from 1024 elements): every byte value, every mode but
 * sr, both policies, lengths that leave tails (odd for e2m1), misaligned source and output, the bytes
 * around the output untouched; and calls past 16 MiB of output, which stream from an unaligned start. */
START_TEST(test_backends_byte_tables)
{
    static const struct {
        mf_format s, d;
        size_t n, soff, doff;
    } streamed[] = {{MF_FP8_E4M3, MF_BF16, ((size_t)8 << 20) + 11, 1, 2},
                    {MF_FP4_E2M1, MF_FP16, ((size_t)8 << 20) + 7, 1, 6},
                    {MF_FP8_E5M2, MF_FP4_E2M1, ((size_t)32 << 20) + 5, 3, 1},
                    {MF_FP4_E2M1, MF_FP8_E4M3, ((size_t)16 << 20) + 9, 0, 5}};
    static const size_t lens[] = {1024, 1025, 1024 + 63, 2048 + 130};
    enum { N = 2048 + 130 };
    static uint8_t in[N + 8], a[2 * N + 2 * GUARD], b[2 * N + 2 * GUARD];
    uint8_t *bin, *ba, *bb;
    size_t ri, si, di, li, j, pairs = 0;
    int r, o;
    uint64_t cases = 0;
    const mf__backend *backend;
    big_buffers(&bin, &ba, &bb, (size_t)33 << 20); /* the largest source or output above, and then some */
    every_byte(in, sizeof in);
    for (ri = 0; (backend = mf__backend_at(ri)) != NULL; ri++) {
        if (backend == &mf__backend_portable || !mf__backend_supported(backend))
            continue;
        for (si = 0; si < sizeof srcs / sizeof srcs[0]; si++)
            for (di = 0; di < sizeof dsts / sizeof dsts[0]; di++) {
                if (srcs[si] == dsts[di])
                    continue;
                pairs++;
                for (r = 0; r < MF_ROUND_COUNT; r++)
                    for (o = 0; o < MF_OVERFLOW_COUNT; o++)
                        for (li = 0; li < sizeof lens / sizeof lens[0]; li++) {
                            const size_t n = lens[li], soff = li, doff = GUARD + 2 * li + 1;
                            mf_opts opt = {(mf_round)r, (mf_overflow)o, 7, 0, NULL, 0, MF_PROFILE_DEFAULT};
                            if (r == MF_ROUND_STOCHASTIC)
                                continue;
                            cases++;
                            if (!lut_case(backend, dsts[di], srcs[si], in + soff, n, doff, &opt, a, b, sizeof a))
                                break;
                        }
            }
    }
    for (j = 0; j < sizeof streamed / sizeof streamed[0]; j++) {
        const mf_opts opt = {MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 7, 0, NULL, 0, MF_PROFILE_DEFAULT};
        const size_t ob = mf_storage_bytes(streamed[j].d, streamed[j].n) + streamed[j].doff + 64;
        check_big(streamed[j].d, streamed[j].s, bin + streamed[j].soff, streamed[j].n, ba, bb, streamed[j].doff, ob,
                  &opt, 0);
    }
    free(bin);
    free(ba);
    free(bb);
    ck_assert_uint_eq(pairs, (uint64_t)backends_tested * 42);
    ck_assert_uint_eq(cases, (uint64_t)backends_tested * 42 * (MF_ROUND_COUNT - 1) * MF_OVERFLOW_COUNT * 4);
}
END_TEST

/* Every code of the fp8, fp6, fp4 and e8m0 sources decoded into binary32 and binary64 (the backends decode
 * these with their own instructions: tables, or F16C's vcvtph2ps in the AVX2 backend), both policies, with
 * and without stats, lengths that leave tails of 8 and fewer (odd for e2m1), misaligned source and output. */
START_TEST(test_backends_every_byte_decoded)
{
    static const mf_format wide[] = {MF_FP32, MF_FP64};
    static const size_t lens[] = {512, 512 + 8, 512 + 13, 1024 + 5};
    enum { N = 1024 + 5 };
    static uint8_t in[N + 8], a[8 * N + 2 * GUARD], b[8 * N + 2 * GUARD];
    size_t ri, si, wi, li;
    int o, c;
    uint64_t cases = 0;
    const mf__backend *backend;
    every_byte(in, sizeof in);
    for (ri = 0; (backend = mf__backend_at(ri)) != NULL; ri++) {
        if (backend == &mf__backend_portable || !mf__backend_supported(backend))
            continue;
        for (si = 0; si < N_SRCS_ALL; si++)
            for (wi = 0; wi < 2; wi++)
                for (o = 0; o < MF_OVERFLOW_COUNT; o++)
                    for (c = 0; c < 2; c++)
                        for (li = 0; li < sizeof lens / sizeof lens[0]; li++) {
                            mf_stats sw = {0, 0, 0, 0, 0}, sg = {0, 0, 0, 0, 0};
                            const size_t n = lens[li], soff = li, doff = GUARD + 4 * li + 1;
                            mf_opts opt = {MF_ROUND_NEAREST_EVEN, (mf_overflow)o, 7, 0, c ? &sw : NULL, 0, MF_PROFILE_DEFAULT};
                            cases++;
                            memset(a, 0x5C, sizeof a);
                            memset(b, 0x5C, sizeof b);
                            mf__backend_portable.convert(wide[wi], a + doff, srcs_all[si], in + soff, n, &opt, opt.stats);
                            opt.stats = c ? &sg : NULL;
                            bk_convert(backend, wide[wi], b + doff, srcs_all[si], in + soff, n, &opt, opt.stats);
                            MF_EXPECT(memcmp(a, b, sizeof a) == 0, "%s: %s -> %s %s, n %zu: output differs",
                                      backend->name, mf_format_name(srcs_all[si]), mf_format_name(wide[wi]),
                                      mf_overflow_name(opt.overflow), n);
                            MF_EXPECT(sw.overflow == sg.overflow && sw.nan == sg.nan && sw.subnormal == sg.subnormal &&
                                          sw.inexact == sg.inexact && sw.underflow == sg.underflow,
                                      "%s: %s -> %s %s: stats differ", backend->name, mf_format_name(srcs_all[si]),
                                      mf_format_name(wide[wi]), mf_overflow_name(opt.overflow));
                        }
    }
    ck_assert_uint_eq(cases, (uint64_t)backends_tested * N_SRCS_ALL * 2 * MF_OVERFLOW_COUNT * 2 * 4);
}
END_TEST

/* The same sources in sr, which the backends with byte lookups take through tables from 8192 elements
 * (bk_lut_sr: a lookup alone where no code is rounded, else a choice between two tables by each
 * element's Philox byte): every pair, both policies, lengths that leave tails, misaligned source and
 * output, sr offsets that start mid-block and near where the block counter's low word wraps, and calls
 * past 16 MiB of output whose offset lets the Philox blocks and the output's 64-byte lines start
 * together (streamed) or not. */
/* Every code of every narrow source (fp8, fp6, fp4, e8m0) into every other format, every mode and policy,
 * in every backend, the portable one too, against tests/oracle/ref.c, which shares no code with src/: a narrow
 * value is exact in binary64, so ref_round(d, ref_decode(s, code)) is the answer (the rbits of sr from
 * mf_sr_rbits). Long enough for the byte tables (bk_lut from 1024 elements, bk_lut_sr from 8192) and the
 * backends' decoders; into f32 and f64 a NaN code need only give a NaN (decodes keep what payload there is).
 * A pair a backend inherits runs its parent's code, checked where the parent is. */
START_TEST(test_backends_narrow_vs_reference)
{
    static const mf_format dsts_all[] = {MF_FP32,         MF_FP64,         MF_FP16,            MF_BF16,
                                         MF_FP8_E4M3,     MF_FP8_E5M2,     MF_FP6_E2M3,        MF_FP6_E3M2,
                                         MF_FP4_E2M1,     MF_E8M0,         MF_FP8_E4M3FNUZ,    MF_FP8_E5M2FNUZ,
                                         MF_FP8_E4M3B11FNUZ, MF_FP8_E4M3IEEE, MF_FP8_E3M4};
    enum { N = 8192 + 64 };
    static uint8_t in[N], out[8 * N];
    size_t ri, si, di, j;
    unsigned long long checked = 0, expected = 0, simd = 0;
    unsigned long calls = 0;
    int r, pol;
    const mf__backend *backend;
    for (ri = 0; (backend = mf__backend_at(ri)) != NULL; ri++) {
        if (!mf__backend_supported(backend))
            continue;
        for (si = 0; si < N_SRCS_ALL; si++) {
            const mf_format s = srcs_all[si];
            const uint32_t ncodes = s == MF_FP4_E2M1 ? 16u : (s == MF_FP6_E2M3 || s == MF_FP6_E3M2) ? 64u : 256u;
            for (j = 0; j < N; j++) /* every code, in a moving order */
                if (s == MF_FP4_E2M1)
                    in[j / 2] = (uint8_t)(j & 1 ? in[j / 2] | ((j * 7 + j / 16) % 16) << 4 : (j * 7 + j / 16) % 16);
                else
                    in[j] = (uint8_t)((j * 37 + j / ncodes) % ncodes);
            for (di = 0; di < sizeof dsts_all / sizeof dsts_all[0]; di++) {
                const mf_format d = dsts_all[di];
                if (d == s || mf__backend_for(backend, d, s) != backend)
                    continue;
                for (r = 0; r < MF_ROUND_COUNT; r++)
                    for (pol = 0; pol < 2; pol++) {
                        const size_t n = r == MF_ROUND_STOCHASTIC ? N : 2048;
                        mf_opts o = {(mf_round)r, pol ? MF_OVERFLOW_SATURATE : MF_OVERFLOW_IEEE, 0x243F6A8885A308D3u,
                                     (uint64_t)r * 64, NULL, 0, MF_PROFILE_DEFAULT};
                        if (!mf_test_take(&calls)) /* MF_TEST_SAMPLE (tests/mf_test.h) */
                            continue;
                        expected += n;
                        simd += backend != &mf__backend_portable ? n : 0;
                        bk_convert(backend, d, out, s, in, n, &o, NULL);
                        for (j = 0; j < n; j++, checked++) {
                            const uint32_t code = s == MF_FP4_E2M1 ? (uint32_t)(in[j / 2] >> (4 * (j & 1))) & 0xFu : in[j];
                            const double v = ref_decode(refs[s], code);
                            if (d == MF_FP64) { /* exact, but saturation makes the infinities +-max */
                                const double exact = pol && isinf(v) ? copysign(DBL_MAX, v) : v;
                                double y;
                                memcpy(&y, out + 8 * j, 8);
                                if (isnan(v) ? !isnan(y) : memcmp(&y, &exact, 8) != 0) {
                                    MF_EXPECT(0, "%s %s -> f64 %s: code %#x gives %a, the reference %a", backend->name,
                                              mf_format_name(s), mf_overflow_name(o.overflow), code, y, exact);
                                    break;
                                }
                            } else {
                                const uint32_t c = code_at(d, out, j);
                                const uint32_t ref = ref_round(refs[d], v, ref_modes[r], pol,
                                                               mf_sr_rbits(o.seed, o.sr_offset + j, mf_sr_width(d)), NULL);
                                const int nan_ok = d == MF_FP32 && isnan(v) && (c & 0x7F800000u) == 0x7F800000u &&
                                                   (c & 0x7FFFFFu) != 0;
                                if (c != ref && !nan_ok) {
                                    MF_EXPECT(0, "%s %s -> %s %s %s: element %zu, code %#x, gives %#x, the reference %#x",
                                              backend->name, mf_format_name(s), mf_format_name(d), mf_round_name(o.round),
                                              mf_overflow_name(o.overflow), j, code, c, ref);
                                    break;
                                }
                            }
                        }
                    }
            }
        }
    }
    ck_assert_uint_eq(checked, expected);
    { /* MF_TEST_SAMPLE = k takes one call in k, whose lengths differ (sr's are longer): half the share is the floor */
        const unsigned long long k = mf_test_sample() == 1 ? 1 : 2 * mf_test_sample();
        ck_assert_uint_ge(expected, 2ull * 6 * 9 * 2 * (6 * 2048 + N) / k); /* the portable backend and one more */
        ck_assert_uint_ge(simd, 6ull * 9 * 2 * (6 * 2048 + N) / k);          /* a SIMD backend's own pairs among them */
    }
}
END_TEST

START_TEST(test_backends_byte_tables_sr)
{
    static const struct {
        mf_format s, d;
        size_t n, soff, doff;
        int line; /* 1: sr_offset chosen so that the output streams */
    } streamed[] = {{MF_FP8_E5M2, MF_FP6_E2M3, ((size_t)16 << 20) + 9, 1, 3, 1},
                    {MF_FP8_E4M3, MF_FP4_E2M1, ((size_t)32 << 20) + 6, 2, 5, 1},
                    {MF_FP4_E2M1, MF_E8M0, ((size_t)16 << 20) + 4, 0, 7, 1},
                    {MF_FP8_E4M3, MF_FP8_E5M2, ((size_t)16 << 20) + 3, 0, 1, 0},
                    {MF_FP6_E3M2, MF_BF16, ((size_t)8 << 20) + 5, 1, 2, 1}};
    static const size_t lens[] = {8192, 8193, 8192 + 63, 8192 + 130};
    static const uint64_t offs[] = {0, 5, 16 * 7 + 2, ((uint64_t)1 << 36) - 16 * 37 - 6};
    enum { N = 8192 + 130 };
    static uint8_t in[N + 8], a[2 * N + 2 * GUARD], b[2 * N + 2 * GUARD];
    uint8_t *bin, *ba, *bb;
    size_t ri, si, di, li, j;
    int o;
    uint64_t cases = 0;
    const mf__backend *backend;
    big_buffers(&bin, &ba, &bb, (size_t)33 << 20);
    every_byte(in, sizeof in);
    for (ri = 0; (backend = mf__backend_at(ri)) != NULL; ri++) {
        if (backend == &mf__backend_portable || !mf__backend_supported(backend))
            continue;
        for (si = 0; si < sizeof srcs / sizeof srcs[0]; si++)
            for (di = 0; di < sizeof dsts / sizeof dsts[0]; di++) {
                if (srcs[si] == dsts[di])
                    continue;
                for (o = 0; o < MF_OVERFLOW_COUNT; o++)
                    for (li = 0; li < sizeof lens / sizeof lens[0]; li++) {
                        const size_t n = lens[li], soff = srcs[si] == MF_FP4_E2M1 ? 0 : li + 1, doff = GUARD + 3 * li;
                        mf_opts opt = {MF_ROUND_STOCHASTIC, (mf_overflow)o, 0x9E3779B97F4A7C15ull + li, offs[li], NULL, 0, MF_PROFILE_DEFAULT};
                        cases++;
                        if (!lut_case(backend, dsts[di], srcs[si], in + soff, n, doff, &opt, a, b, sizeof a))
                            break;
                    }
            }
    }
    for (j = 0; j < sizeof streamed / sizeof streamed[0]; j++) {
        const int d4 = streamed[j].d == MF_FP4_E2M1;
        /* elements to the backends' output's next 64-byte boundary; sr_offset + that a multiple of 16 (or not) */
        const size_t lb = (size_t)(-(uintptr_t)(bb + streamed[j].doff) & 63u);
        const size_t to_line = d4 ? 2 * lb : lb / mf_storage_bytes(streamed[j].d, 1);
        const uint64_t off = 4096 + ((uint64_t)(16 - to_line % 16) & 15u) + (streamed[j].line ? 0 : 2);
        const mf_opts opt = {MF_ROUND_STOCHASTIC, MF_OVERFLOW_IEEE, 11, off, NULL, 0, MF_PROFILE_DEFAULT};
        const size_t ob = mf_storage_bytes(streamed[j].d, streamed[j].n) + streamed[j].doff + 64;
        check_big(streamed[j].d, streamed[j].s, bin + streamed[j].soff, streamed[j].n, ba, bb, streamed[j].doff, ob,
                  &opt, 0);
    }
    free(bin);
    free(ba);
    free(bb);
    ck_assert_uint_eq(cases, (uint64_t)backends_tested * 42 * MF_OVERFLOW_COUNT * 4);
}
END_TEST

#if HAVE_FPENV
/* The caller's environment (x86: FTZ/DAZ, rounding, exception masks; aarch64: FZ, FZ16, DN, AHP,
 * rounding) cannot change a backend's bits (nor raise a signal: the inputs hold signalling NaNs,
 * subnormals and overflows), and it comes back as it was. */
START_TEST(test_backends_ignore_fpenv)
{
    size_t ri;
    const mf__backend *backend;
    const unsigned csr = env_get();
#if defined(__aarch64__)
    /* FZ 24, DN 25, AHP 26, FZ16 19, RMode 22-23 (RP 1, RM 2, RZ 3); trap enables are left alone
     * (most cores do not implement them, and a trap would end the test) */
    const unsigned envs[] = {
        (csr & ~0x07CF0000u) | 0x01400000u, /* FZ, round up */
        (csr & ~0x07CF0000u) | 0x03C00000u, /* FZ, DN, toward zero */
        (csr & ~0x07CF0000u) | 0x04880000u, /* AHP, FZ16, round down */
        (csr & ~0x07CF0000u) | 0x07080000u, /* FZ, DN, AHP, FZ16, rn */
        csr & ~0x07CF0000u,                 /* the default: the backends that set another rounding must restore it */
    };
#else
    const unsigned envs[] = {
        csr | 0x8040u | 0x4000u,         /* FTZ, DAZ, round up */
        csr | 0x8040u | 0x6000u,         /* FTZ, DAZ, toward zero */
        (csr & ~0x1F80u) | 0x8040u,      /* every exception unmasked, FTZ, DAZ */
        (csr & ~0x7F80u) | 0x2000u,      /* every exception unmasked, round down */
        (csr & ~0xE040u) | 0x1F80u,      /* the default: the backends that set another rounding must restore it */
    };
#endif
    unsigned long calls = 0;
    for (ri = 0; (backend = mf__backend_at(ri)) != NULL; ri++) {
        int s, d, r, o;
        size_t e;
        if (!mf__backend_supported(backend)) /* the portable backend too: it must not depend on the environment either */
            continue;
        for (s = 0; s < MF_FORMAT_COUNT; s++) {
            fill((mf_format)s, src_buf, 512);
            for (d = 0; d < MF_FORMAT_COUNT; d++)
                for (r = 0; r < MF_ROUND_COUNT; r++)
                    for (o = 0; o < 2; o++) {
                        const mf_opts opt = {(mf_round)r, o ? MF_OVERFLOW_SATURATE : MF_OVERFLOW_IEEE, 3, 0, NULL, 0, MF_PROFILE_DEFAULT};
                        if (!mf_test_take(&calls)) /* MF_TEST_SAMPLE (tests/mf_test.h) */
                            continue;
                        memset(want, 0, sizeof want); /* the portable backend's bytes, in the default environment */
                        mf__backend_portable.convert((mf_format)d, want, (mf_format)s, src_buf, 512, &opt, NULL);
                        for (e = 0; e < sizeof envs / sizeof envs[0]; e++) {
                            unsigned after;
                            memset(got, 0, sizeof got);
                            env_set(envs[e]);
                            bk_convert(backend, (mf_format)d, got, (mf_format)s, src_buf, 512, &opt, NULL);
                            after = env_get();
                            env_set(csr);
                            /* the exception flags may gain what the conversion raised */
                            MF_EXPECT((after & ~ENV_FLAGS) == (envs[e] & ~ENV_FLAGS), "%s did not restore " ENV_NAME " (%#x, was %#x)",
                                      backend->name, after, envs[e]);
                            if (memcmp(want, got, sizeof want) != 0) {
                                size_t i = 0;
                                while (want[i] == got[i])
                                    i++;
                                MF_EXPECT(0, "%s %s -> %s mode %d policy %d under " ENV_NAME " %#x differs at byte %zu: %#x, not %#x",
                                          backend->name, mf_format_name((mf_format)s), mf_format_name((mf_format)d), r, o,
                                          envs[e], i, got[i], want[i]);
                            }
                        }
                    }
        }
    }
}
END_TEST
#endif

int main(void)
{
    Suite *s;
    refs_init();
    s = suite_create("backends");
    TCase *tc = tcase_create("backends");
    size_t ri;
    const mf__backend *backend;
    int any = 0;
    for (ri = 0; (backend = mf__backend_at(ri)) != NULL; ri++)
        any |= backend != &mf__backend_portable && mf__backend_supported(backend);
    if (!any) {
        printf("no SIMD backend runs on this CPU: skipped\n");
        return 77;
    }
    for (ri = 0; (backend = mf__backend_at(ri)) != NULL; ri++)
        backends_tested += backend != &mf__backend_portable && mf__backend_supported(backend);
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_backends_expected_backends);
    tcase_add_test(tc, test_backends_ref_names);
    tcase_add_test(tc, test_backends_all_pairs);
    tcase_add_test(tc, test_backends_plans);
    tcase_add_test(tc, test_backends_family);
    tcase_add_test(tc, test_backends_plan_api);
    tcase_add_test(tc, test_backends_lengths);
    tcase_add_test(tc, test_backends_heads_tails);
    tcase_add_test(tc, test_backends_f16_nan_blocks);
    tcase_add_test(tc, test_backends_every_16bit_code);
    tcase_add_test(tc, test_backends_philox_wrap);
    tcase_add_test(tc, test_backends_f64_ties);
    tcase_add_test(tc, test_backends_streaming);
    tcase_add_test(tc, test_backends_sr_streaming);
    tcase_add_test(tc, test_backends_byte_tables);
    tcase_add_test(tc, test_backends_byte_tables_sr);
    tcase_add_test(tc, test_backends_every_byte_decoded);
    tcase_add_test(tc, test_backends_sr_sweep);
    tcase_add_test(tc, test_backends_f64_sr);
    tcase_add_test(tc, test_backends_narrow_vs_reference);
#if HAVE_FPENV
    tcase_add_test(tc, test_backends_ignore_fpenv);
#endif
    suite_add_tcase(s, tc);
    return mf_run_suite(s);
}
