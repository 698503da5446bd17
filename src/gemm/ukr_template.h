/* SPDX-License-Identifier: MIT */
/* src/gemm/ukr_template.h - the GEMM micro-kernel, written once for AVX2, AVX-512 and NEON (kernels.h has
 * the contract): a 6 x 2V tile (V = the vector's lanes) in twelve registers, per step one broadcast of A per
 * row and two aligned loads of B, each accumulator one fused multiply-add (one rounding, as fmaf).
 *
 * The including file defines the vocabulary: VEC, VL (lanes), V_LOADU, V_LOAD (aligned), V_BCAST, V_FMA
 * (x * y + acc, fused), V_STOREU, V_ZERO, and UKR_NAME; packed B is 64-byte aligned (macro.c). The
 * accumulators are named variables: GCC keeps an array of vectors in memory across the loop. */
#define MR 6
#define NR (2 * VL)

static void UKR_NAME(size_t kc, const float *a, const float *b, float *c, int load)
{
    VEC c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
    if (load) {
        c00 = V_LOADU(c + 0 * NR), c01 = V_LOADU(c + 0 * NR + VL);
        c10 = V_LOADU(c + 1 * NR), c11 = V_LOADU(c + 1 * NR + VL);
        c20 = V_LOADU(c + 2 * NR), c21 = V_LOADU(c + 2 * NR + VL);
        c30 = V_LOADU(c + 3 * NR), c31 = V_LOADU(c + 3 * NR + VL);
        c40 = V_LOADU(c + 4 * NR), c41 = V_LOADU(c + 4 * NR + VL);
        c50 = V_LOADU(c + 5 * NR), c51 = V_LOADU(c + 5 * NR + VL);
    } else { /* the first k block: the tile starts at +0, and c is only written */
        c00 = c01 = c10 = c11 = c20 = c21 = c30 = c31 = c40 = c41 = c50 = c51 = V_ZERO();
    }
#define STEP(q)                                                                                                        \
    do {                                                                                                               \
        const VEC b0 = V_LOAD(b + (q)*NR), b1 = V_LOAD(b + (q)*NR + VL);                                               \
        VEC x = V_BCAST(a + (q)*MR + 0);                                                                               \
        c00 = V_FMA(x, b0, c00), c01 = V_FMA(x, b1, c01);                                                              \
        x = V_BCAST(a + (q)*MR + 1);                                                                                   \
        c10 = V_FMA(x, b0, c10), c11 = V_FMA(x, b1, c11);                                                              \
        x = V_BCAST(a + (q)*MR + 2);                                                                                   \
        c20 = V_FMA(x, b0, c20), c21 = V_FMA(x, b1, c21);                                                              \
        x = V_BCAST(a + (q)*MR + 3);                                                                                   \
        c30 = V_FMA(x, b0, c30), c31 = V_FMA(x, b1, c31);                                                              \
        x = V_BCAST(a + (q)*MR + 4);                                                                                   \
        c40 = V_FMA(x, b0, c40), c41 = V_FMA(x, b1, c41);                                                              \
        x = V_BCAST(a + (q)*MR + 5);                                                                                   \
        c50 = V_FMA(x, b0, c50), c51 = V_FMA(x, b1, c51);                                                              \
    } while (0)
    size_t p = 0;
    for (; p + 4 <= kc; p += 4, a += 4 * MR, b += 4 * NR) { /* four steps a turn: less loop overhead */
        STEP(0);
        STEP(1);
        STEP(2);
        STEP(3);
    }
    for (; p < kc; p++, a += MR, b += NR)
        STEP(0);
#undef STEP
    V_STOREU(c + 0 * NR, c00), V_STOREU(c + 0 * NR + VL, c01);
    V_STOREU(c + 1 * NR, c10), V_STOREU(c + 1 * NR + VL, c11);
    V_STOREU(c + 2 * NR, c20), V_STOREU(c + 2 * NR + VL, c21);
    V_STOREU(c + 3 * NR, c30), V_STOREU(c + 3 * NR + VL, c31);
    V_STOREU(c + 4 * NR, c40), V_STOREU(c + 4 * NR + VL, c41);
    V_STOREU(c + 5 * NR, c50), V_STOREU(c + 5 * NR + VL, c51);
}
