/* SPDX-License-Identifier: MIT */
/* src/internal.h - what the backends and the dispatcher share (never installed). */
#ifndef MF_SRC_INTERNAL_H
#define MF_SRC_INTERNAL_H

#include <minifloat.h>

/* A bulk conversion kernel. Arguments are already validated by mf_convert: formats and modes are in
 * range, pointers are non-NULL, n > 0, buffers do not overlap unless the formats are equal.
 * stats is NULL when the caller does not count; otherwise the kernel overwrites it. */
typedef void (*mf__convert_fn)(mf_format dst_fmt, void *dst, mf_format src_fmt, const void *src, size_t n,
                               const mf_opts *opts, mf_stats *stats);

/* The paths a backend's convert can take (src/simd/backend_paths.h; mf_plan.path names them). */
enum {
    MF__PATH_NONE,
    MF__PATH_PORTABLE, /* the portable backend: equal formats, f64 with statistics, odd e2m1 sr offsets */
    MF__PATH_BLOCKED,  /* blocks decoded into binary32, then a round kernel; every call with statistics */
    MF__PATH_DIRECT,   /* instructions that ignore the FP environment, which is therefore left alone */
    MF__PATH_W16,      /* f16/bf16 -> narrow formats in 16-bit lanes */
    MF__PATH_LUT,      /* narrow -> narrow through a 256-entry table of the call's results */
    MF__PATH_LUT_SR,   /* the same in sr: two tables and a threshold per code */
    MF__PATH_PROFILE,  /* a compatibility profile: the default's kernels, then a fix-up (portable/convert_profile.c) */
    MF__PATH_COUNT
};

struct mf__backend;

/* Every choice one call makes: the backend, the body's path, and the head and tail that go through
 * bounce buffers by ends_path (MF__PATH_NONE when there are none). */
typedef struct mf__plan {
    const struct mf__backend *backend;
    int path, ends_path;
    size_t head, body, tail;
    int stream; /* non-temporal stores */
} mf__plan;

typedef void (*mf__plan_fn)(mf__plan *plan, mf_format dst_fmt, const void *dst, mf_format src_fmt, const void *src,
                            size_t n, const mf_opts *opts, int count);

/* Where a kernel met NaN inputs, for a compatibility profile's fix-up (portable/convert_profile.c): mark is called,
 * after the kernel has stored them, for elements [from, to) of the call whenever one of them may be a NaN input
 * (it may also be called for ranges without one, never left out for one that has one). */
typedef struct mf__nan_marks {
    void (*mark)(const struct mf__nan_marks *m, size_t from, size_t to);
    void *ctx;
} mf__nan_marks;

/* A convert that marks its NaN inputs' ranges as it goes (no statistics); returns 0, having converted nothing,
 * for a call it has no marking kernel for. */
typedef int (*mf__convert_marked_fn)(mf_format dst_fmt, void *dst, mf_format src_fmt, const void *src, size_t n,
                                     const mf_opts *opts, const mf__nan_marks *marks);

/* A backend: its name, the pairs it converts itself (bit dst of own[src]), its convert for them and
 * the plan that convert follows; the other pairs are its parent's (the backend it builds on), so a
 * backend carries only what it changes. */
typedef struct mf__backend {
    const char *name;
    const struct mf__backend *parent; /* NULL for the portable backend, which converts every pair */
    uint64_t own[MF_FORMAT_COUNT]; /* a bit for every format row (mf__own_fits) */
    mf__convert_fn convert;
    mf__plan_fn plan;
    mf__convert_marked_fn convert_marked; /* NULL: none (a profile then scans the results) */
} mf__backend;

/* own[] has a bit for every row of minifloat/formats.inc: a row beyond 64 needs a wider field */
typedef char mf__own_fits[MF_FORMAT_COUNT <= 64 ? 1 : -1];

/* The backend that converts src -> dst for r: r itself, or the first ancestor that does. */
static inline const mf__backend *mf__backend_for(const mf__backend *r, mf_format dst, mf_format src)
{
    while (r->parent && !(r->own[src] >> (unsigned)dst & 1u))
        r = r->parent;
    return r;
}

/* MF_OVERFLOW_PROPAGATE's infinite inputs, after a conversion of the call under MF_OVERFLOW_SATURATE
 * (convert_portable.c): their codes and st's counts made the portable backend's. */
void mf__propagate_inf(mf_format d, void *dst, mf_format s, const void *src, size_t n, const mf_opts *o,
                       mf_stats *st);

/* The backends (each defined in its own file). */
extern const mf__backend mf__backend_portable;
extern const mf__backend mf__backend_avx2;
extern const mf__backend mf__backend_avx512;
extern const mf__backend mf__backend_avx512bf16;
extern const mf__backend mf__backend_neon; /* aarch64 */

/* The dispatcher (dispatch.c): the backend chosen for this process, and the list for tests and benchmarks. */
const mf__backend *mf__backend_active(void);
const mf__backend *mf__backend_at(size_t i);             /* i-th backend, best first; NULL past the end */
const mf__backend *mf__backend_by_name(const char *name); /* NULL if there is no such backend */
int mf__backend_supported(const mf__backend *backend);       /* can this CPU run it? */
/* The rows this build's SIMD kernels may convert (bit e for row e): MF_SIMD_FORMATS (src/sources.cmake), every
 * row by default; a test of the kernels' promises skips the others, which the portable backend converts. */
extern const uint64_t mf__simd_rows;

/* Bytes that n elements of fmt take (e2m1: two a byte), without mf_storage_bytes's checks (a valid
 * format, no overflow): for the backends, which ask often, after mf_convert has checked. */
static inline size_t mf__storage_bytes(mf_format fmt, size_t n)
{
    const int store = mf__fmt_store_bits(fmt);
    return store == 4 ? n / 2 + (n & 1) : n * (size_t)(store / 8);
}

/* The most bytes one array may span: 2^57 (128 PiB) on 64-bit targets, more than any 64-bit CPU's user
 * address space, so that a negative count cast to size_t (or SIZE_MAX / 2) is refused for every element
 * size rather than read as a huge array; PTRDIFF_MAX (the largest C object) elsewhere. */
#if SIZE_MAX > 0xFFFFFFFFu
#define MF__MAX_SPAN ((size_t)1 << 57)
#else
#define MF__MAX_SPAN ((size_t)PTRDIFF_MAX)
#endif

/* The one size check of every entry point that takes a count: n elements of w bytes each (w = 0: e2m1,
 * two a byte) at p. Sets *bytes and returns 1, or returns 0 (MF_E_SIZE) where they would span more than
 * MF__MAX_SPAN or wrap around the address space (p may be NULL where only the size matters). */
static inline int mf__span_ok(const void *p, size_t n, size_t w, size_t *bytes)
{
    if (w ? n > MF__MAX_SPAN / w : n / 2 >= MF__MAX_SPAN)
        return 0;
    *bytes = w ? n * w : n / 2 + (n & 1);
    return (uintptr_t)p <= UINTPTR_MAX - *bytes;
}

/* mf__span_ok for n elements of a valid format */
static inline int mf__span_fmt_ok(mf_format fmt, const void *p, size_t n, size_t *bytes)
{
    return mf__span_ok(p, n, (size_t)(mf__fmt_store_bits(fmt) / 8), bytes); /* 4 bits: w = 0 */
}

/* rows * cols in *n, or 0 where the product overflows size_t */
static inline int mf__count2_ok(size_t rows, size_t cols, size_t *n)
{
    if (cols != 0 && rows > SIZE_MAX / cols)
        return 0;
    *n = rows * cols;
    return 1;
}

/* Do the byte ranges [a, a + na) and [b, b + nb) share a byte? (Empty ranges share none.) */
static inline int mf__ranges_overlap(const void *a, size_t na, const void *b, size_t nb)
{
    uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
    return na && nb && pa < pb + nb && pb < pa + na;
}

/* The enum checks of mf_convert, in its order: MF_OK, MF_E_FORMAT, MF_E_ROUND, MF_E_POLICY or MF_E_ARG
 * (negative threads). Functions that convert as mf_convert does use it so their codes agree. */
/* mf_gemm's (and mf_cuda_gemm's) check of a stored rows x cols matrix with leading dimension ld:
 * its strides, and the bytes its elements
 * span in *bytes (0 when empty). Returns MF_OK, MF_E_ARG (ld too small) or MF_E_SIZE. */
static inline int mf__stored_matrix(mf_layout layout, mf_format f, const void *p, size_t rows, size_t cols, size_t ld,
                                    size_t *rs, size_t *cs, size_t *bytes)
{
    const size_t outer = layout == MF_ROW_MAJOR ? rows : cols, inner = layout == MF_ROW_MAJOR ? cols : rows;
    size_t span;
    if (ld < 1 || ld < inner)
        return MF_E_ARG;
    *rs = layout == MF_ROW_MAJOR ? ld : 1;
    *cs = layout == MF_ROW_MAJOR ? 1 : ld;
    *bytes = 0;
    if (outer == 0 || inner == 0)
        return MF_OK;
    if (outer - 1 > (SIZE_MAX - inner) / ld)
        return MF_E_SIZE;
    span = (outer - 1) * ld + inner;
    return mf__span_fmt_ok(f, p, span, bytes) ? MF_OK : MF_E_SIZE;
}

/* Under profile p: both formats are the system's, and it rounds into d in mode r where the pair rounds.
 * 0 for a profile out of range. Inline: the lab library checks its arguments with it too. */
static inline int mf__profile_pair_ok(mf_profile p, mf_format d, mf_format s, mf_round r)
{
    if (!mf__profile_has(p, d) || !mf__profile_has(p, s))
        return 0;
    if (d == s || d == MF_FP64 || (d == MF_FP32 && s != MF_FP64))
        return 1; /* a copy or a decode: no rounding */
    return mf__profile_mode(p, d, r);
}

/* mf_convert under opts->profile != MF_PROFILE_DEFAULT, d != s (convert_profile.c). */
void mf__convert_profile(mf_format d, void *dst, mf_format s, const void *src, size_t n, const mf_opts *o,
                         mf_stats *st);

/* opts' mode, policy and threads, in that order: MF_OK, MF_E_ROUND, MF_E_POLICY or MF_E_ARG */
static inline int mf__check_opts(const mf_opts *o)
{
    if ((unsigned)o->round >= MF_ROUND_COUNT)
        return MF_E_ROUND;
    if ((unsigned)o->overflow >= MF_OVERFLOW_COUNT)
        return MF_E_POLICY;
    return o->threads < 0 ? MF_E_ARG : MF_OK;
}

static inline int mf__check_convert_args(mf_format dst_fmt, mf_format src_fmt, const mf_opts *o)
{
    int rc;
    if ((unsigned)dst_fmt >= MF_FORMAT_COUNT || (unsigned)src_fmt >= MF_FORMAT_COUNT)
        return MF_E_FORMAT;
    if ((rc = mf__check_opts(o)) != MF_OK)
        return rc;
    if (o->profile != MF_PROFILE_DEFAULT && o->overflow == MF_OVERFLOW_PROPAGATE) /* no library it reproduces has it */
        return MF_E_POLICY;
    if (o->profile != MF_PROFILE_DEFAULT && !mf__profile_pair_ok(o->profile, dst_fmt, src_fmt, o->round))
        return MF_E_PROFILE;
    return MF_OK;
}

/* The elements of each piece mf__convert_parallel cuts [0, n) into for `threads` threads (the last
 * piece may be shorter); n where it does not split the call. */
size_t mf__parallel_piece(mf_format dst_fmt, mf_format src_fmt, size_t n, int threads);

/* Run backend->convert over [0, n) on up to `threads` threads (parallel.c); stats summed. */
void mf__convert_parallel(const mf__backend *backend, mf_format dst_fmt, void *dst, mf_format src_fmt, const void *src,
                          size_t n, const mf_opts *opts, mf_stats *stats, int threads);

/* The thread team (team.c), the one that mf_convert's threads, mf_gemm and its models share: fn(team, member,
 * ctx) runs on the calling thread (member 0) and on up to want - 1 new threads (members 1, 2, ...; fewer where a
 * thread cannot be started, at most MF__TEAM_MAX in all); mf__team_run returns how many members ran. Members
 * take their work from the team's queue, so every item is done whatever their number:
 *   mf__team_take      the next of total items, in order, or SIZE_MAX when all are taken;
 *   mf__team_finished  one item is finished;
 *   mf__team_wait      until count items are finished (work in phases: an item of a phase waits for the
 *                      items of the phases before it, all taken earlier by members that do not wait on it). */
enum { MF__TEAM_MAX = 64 };
typedef struct mf__team mf__team;
typedef void (*mf__team_fn)(mf__team *tm, size_t member, void *ctx);
size_t mf__team_run(size_t want, mf__team_fn fn, void *ctx);
size_t mf__team_take(mf__team *tm, size_t total);
void mf__team_finished(mf__team *tm);
void mf__team_wait(mf__team *tm, size_t count);

#endif /* MF_SRC_INTERNAL_H */
