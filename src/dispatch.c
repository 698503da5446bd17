/* SPDX-License-Identifier: MIT */
/* src/dispatch.c - the dispatcher: the one place that chooses a backend.
 *
 * The best backend the CPU and OS support is chosen once per process; MF_BACKEND=<backend name> in the
 * environment (read at the first conversion) forces another, for tests and benchmarks. Every backend
 * gives the portable backend's bytes and counts, so the choice changes speed only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#if MF_X86_BACKENDS
#include "x86/cpuid.h"
#endif

/* Best first: those the build compiled (MF_HAVE_BACKEND_*, from src/sources.cmake's table). */
static const mf__backend *const backends[] = {
#if MF_HAVE_BACKEND_avx512bf16
    &mf__backend_avx512bf16,
#endif
#if MF_HAVE_BACKEND_avx512
    &mf__backend_avx512,
#endif
#if MF_HAVE_BACKEND_avx2
    &mf__backend_avx2,
#endif
#if MF_HAVE_BACKEND_neon
    &mf__backend_neon,
#endif
    &mf__backend_portable,
};
#define N_BACKENDS (sizeof backends / sizeof backends[0])

int mf__backend_supported(const mf__backend *backend)
{
#if MF_X86_BACKENDS
    unsigned f = mf__x86_features();
#if MF_HAVE_BACKEND_avx512bf16
    if (backend == &mf__backend_avx512bf16)
        return (f & MF__X86_AVX512BF16) != 0;
#endif
#if MF_HAVE_BACKEND_avx512
    if (backend == &mf__backend_avx512)
        return (f & MF__X86_AVX512) != 0;
#endif
#if MF_HAVE_BACKEND_avx2
    if (backend == &mf__backend_avx2)
        return (f & MF__X86_AVX2) != 0;
#endif
    (void)f;
#endif
#if MF_HAVE_BACKEND_neon
    if (backend == &mf__backend_neon) /* Advanced SIMD is part of every AArch64 CPU that Linux runs on */
        return 1;
#endif
    return backend == &mf__backend_portable;
}

const mf__backend *mf__backend_at(size_t i) { return i < N_BACKENDS ? backends[i] : NULL; }

#ifdef MF_SIMD_ROWS
const uint64_t mf__simd_rows = MF_SIMD_ROWS;
#else
const uint64_t mf__simd_rows = ~(uint64_t)0;
#endif

const mf__backend *mf__backend_by_name(const char *name)
{
    size_t i;
    for (i = 0; name && i < N_BACKENDS; i++)
        if (strcmp(backends[i]->name, name) == 0)
            return backends[i];
    return NULL;
}

/* MF_BACKEND names no backend of this build, or one this CPU cannot run: said on stderr, once per process
 * (however many threads race to the first conversion), with the backends there are and the one taken. */
static void say_unusable(const char *want, const mf__backend *named, const mf__backend *taken)
{
    static int said;
    size_t i;
    if (__atomic_exchange_n(&said, 1, __ATOMIC_ACQ_REL))
        return;
    fprintf(stderr, "minifloat: MF_BACKEND=%s: %s (backends:", want,
            named ? "this CPU cannot run that backend" : "no such backend in this build");
    for (i = 0; i < N_BACKENDS; i++)
        fprintf(stderr, " %s", backends[i]->name);
    fprintf(stderr, "); using %s\n", taken->name);
}

static const mf__backend *choose(void)
{
    const char *want = getenv("MF_BACKEND");
    const mf__backend *r = mf__backend_by_name(want), *best = &mf__backend_portable;
    size_t i;
    if (r && mf__backend_supported(r))
        return r;
    for (i = 0; i < N_BACKENDS; i++)
        if (mf__backend_supported(backends[i])) {
            best = backends[i];
            break;
        }
    if (want && *want)
        say_unusable(want, r, best);
    return best;
}

const mf__backend *mf__backend_active(void)
{
    /* computed once; a racing first call computes the same pointer */
    static const mf__backend *active;
    const mf__backend *r = __atomic_load_n(&active, __ATOMIC_ACQUIRE);
    if (!r) {
        r = choose();
        __atomic_store_n(&active, r, __ATOMIC_RELEASE);
    }
    return r;
}

const char *mf_backend(void) { return mf__backend_active()->name; }
