/* SPDX-License-Identifier: MIT */
/* src/simd/round.c - one round kernel: blocks of binary32 bits -> BK_DST in every mode, policy and
 * counting, for one backend. sources.cmake compiles it once per (backend, destination) from a file it
 * generates, which defines BK_DST and BK_ROUND_NAME and includes the backend's configuration first. */
#include "backend_kernels.h"

#ifdef BK_ROUND_PARENT
/* A backend that changes only some calls of this kernel (BK_ROUND_CHANGES(r, count)) passes the others
 * to its parent's kernel for the same destination. */
void BK_ROUND_PARENT(void *dst, const uint32_t *src, size_t n, mf_round r, mf_overflow o, int count,
                     const k_philox_keys *ks, uint64_t idx0, k_counts *ct);
void BK_ROUND_NAME(void *dst, const uint32_t *src, size_t n, mf_round r, mf_overflow o, int count,
                   const k_philox_keys *ks, uint64_t idx0, k_counts *ct);

void BK_ROUND_NAME(void *dst, const uint32_t *src, size_t n, mf_round r, mf_overflow o, int count,
                   const k_philox_keys *ks, uint64_t idx0, k_counts *ct)
{
    if (!BK_ROUND_CHANGES(r, count))
        BK_ROUND_PARENT(dst, src, n, r, o, count, ks, idx0, ct);
    else
        switch (r) {
            BK_RCASE_O(BK_DST, MF_ROUND_NEAREST_EVEN) /* the one mode a backend changes so far */
        default: break;
        }
}
#else
BK_RFUNC(BK_DST, BK_ROUND_NAME)
#endif
