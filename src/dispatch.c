/* src/dispatch.c - the door: the one place that chooses a room.
 *
 * The best room the CPU and OS support is chosen once per process; MF_BACKEND=<room name> in the
 * environment (read at the first conversion) forces another, for tests and benchmarks. Every room
 * gives the portable room's bytes and counts, so the choice changes speed only.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#if MF_X86_ROOMS
#include "x86/cpuid.h"
#endif

/* Best first. */
static const mf__room *const rooms[] = {
#if MF_X86_ROOMS
    &mf__room_avx512bf16, &mf__room_avx512, &mf__room_avx2,
#endif
#if MF_ARM_ROOMS
    &mf__room_neon,
#endif
    &mf__room_portable,
};
#define N_ROOMS (sizeof rooms / sizeof rooms[0])

int mf__room_supported(const mf__room *room)
{
#if MF_X86_ROOMS
    unsigned f = mf__x86_features();
    if (room == &mf__room_avx512bf16)
        return (f & MF__X86_AVX512BF16) != 0;
    if (room == &mf__room_avx512)
        return (f & MF__X86_AVX512) != 0;
    if (room == &mf__room_avx2)
        return (f & MF__X86_AVX2) != 0;
#endif
#if MF_ARM_ROOMS
    if (room == &mf__room_neon) /* Advanced SIMD is part of every AArch64 CPU that Linux runs on */
        return 1;
#endif
    return room == &mf__room_portable;
}

const mf__room *mf__room_at(size_t i) { return i < N_ROOMS ? rooms[i] : NULL; }

const mf__room *mf__room_by_name(const char *name)
{
    size_t i;
    for (i = 0; name && i < N_ROOMS; i++)
        if (strcmp(rooms[i]->name, name) == 0)
            return rooms[i];
    return NULL;
}

static const mf__room *choose(void)
{
    const char *want = getenv("MF_BACKEND");
    const mf__room *r = mf__room_by_name(want);
    size_t i;
    if (r && mf__room_supported(r))
        return r;
    for (i = 0; i < N_ROOMS; i++)
        if (mf__room_supported(rooms[i]))
            return rooms[i];
    return &mf__room_portable;
}

const mf__room *mf__room_active(void)
{
    /* computed once; a racing first call computes the same pointer */
    static const mf__room *active;
    const mf__room *r = __atomic_load_n(&active, __ATOMIC_ACQUIRE);
    if (!r) {
        r = choose();
        __atomic_store_n(&active, r, __ATOMIC_RELEASE);
    }
    return r;
}

const char *mf_backend(void) { return mf__room_active()->name; }
