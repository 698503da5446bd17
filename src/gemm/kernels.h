/* SPDX-License-Identifier: MIT */
/* src/gemm/kernels.h - GEMM micro-kernels, one per instruction set (private).
 *
 * A micro-kernel adds to an MR x NR tile of binary32 accumulators (row-major, contiguous) the products
 * of kc packed columns of A (MR values each) and rows of B (NR values each):
 *     c[i * NR + j] = fma(a[p * MR + i], b[p * NR + j], c[i * NR + j])   for p = 0 .. kc-1, in order
 * where the tile's starting values are c's when load is nonzero, else +0 (c is then only written: the
 * first block of k needs no cleared tile), with one rounding per fma, to nearest even (the caller sets the
 * default floating-point environment).
 * So every kernel gives every accumulator the same bits: MF_ACCUM_FP32's contract does not depend on
 * the instruction set, and a kernel is a faster way to run the same sums.
 */
#ifndef MF_GEMM_KERNELS_H
#define MF_GEMM_KERNELS_H

#include <stddef.h>
#include <stdint.h>

typedef void (*mf__gemm_ukr_fn)(size_t kc, const float *a, const float *b, float *c, int load);

typedef struct mf__gemm_ukr {
    const char *name; /* the instruction set */
    int mr, nr;       /* tile rows and columns */
    mf__gemm_ukr_fn fn;
} mf__gemm_ukr;

/* The guard (src/gemm/ukr_pair.c has the argument): a sliver's summary of its bf16 elements, its smallest
 * biased exponent among nonzero elements (255 if none), its largest, and whether any is subnormal, inf or
 * NaN. The dot kernel may run a tile of slivers a and b when mf__pair_guard(a, b) holds. */
typedef struct mf__pair_sum {
    uint16_t emin, emax;
    uint32_t bad;
} mf__pair_sum;

static inline int mf__pair_guard(mf__pair_sum a, mf__pair_sum b)
{
    return !(a.bad | b.bad) && a.emin + b.emin >= 142 && a.emax + b.emax <= 380;
}

/* A pair micro-kernel runs the same sums on bf16 pairs: packed A holds, per pair of k steps and per row, one
 * 32-bit word (x[k] << 16) | x[k + 1] (the element that comes first in k in the high half), packed B the same
 * per column, kp pairs in all (an odd k ends with a zero element). `dot` is the dot-product instruction, which
 * gives kernels.h's fma chain only under the guard below; `chain` is the same sums by fma, k-order exactly,
 * for the tiles the guard keeps off `dot`. mc/kc are this kernel's block sizes (kc in elements, even). */
typedef void (*mf__gemm_ukr_pair_fn)(size_t kp, const uint32_t *a, const uint32_t *b, float *c, int load);

typedef struct mf__gemm_ukr_pair {
    const char *name;
    int mr, nr;
    int mc, kc;
    mf__gemm_ukr_pair_fn dot, chain;
    /* packing's helper, or NULL: out[q] = lut[src[q]] for q < n (8-bit codes widened to bf16) */
    void (*widen8)(uint16_t *out, const uint8_t *src, size_t n, const uint16_t *lut);
    void (*sum)(mf__pair_sum *s, const uint16_t *x, size_t n); /* mf__pair_sum_run's, or NULL */
    /* packing's helper, or NULL: ns slivers' pair words from two rows of B, sliver t's nr words at dst + t * step:
     * dst[t * step + c] = r0[t * nr + c] << 16 | r1[t * nr + c] for c < nr */
    void (*zip)(uint32_t *dst, size_t step, const uint16_t *r0, const uint16_t *r1, size_t ns);
    /* packing's helper, or NULL: one sliver of A's pair words from its mr rows of kb codes each,
     * ap[p * mr + r] = run[r][2p] << 16 | run[r][2p + 1] for p < kb / 2, and for odd kb the last element and a zero,
     * ap[(kb / 2) * mr + r] = run[r][kb - 1] << 16 */
    void (*weave)(uint32_t *ap, const uint16_t *const *run, size_t kb);
} mf__gemm_ukr_pair;

/* The epilogue's plain runs (src/gemm/macro.c): for q < n, `copy` stores dst[q] = w[q] and `scale` dst[q] = w[q] * f
 * rounded to nearest even (+0 where w[q] is +0, whatever f's sign); both return whether no w[q] is a NaN, an
 * infinity, a subnormal or -0 (where one is, the caller rewrites all n through the epilogue). */
typedef struct mf__gemm_store {
    int (*copy)(float *dst, const float *w, size_t n);
    int (*scale)(float *dst, const float *w, size_t n, float f);
} mf__gemm_store;

void mf__pair_sum_run(mf__pair_sum *s, const uint16_t *x, size_t n); /* fold n bf16 codes into s */
/* 1 if k's dot kernel equals its chain on the self-test's adversarial tiles (run once per process) */
int mf__gemm_pair_selftest(const mf__gemm_ukr_pair *k);

extern const mf__gemm_ukr mf__gemm_ukr_portable;
extern const mf__gemm_store mf__gemm_store_portable; /* src/gemm/macro.c */

#if MF_HAVE_BACKEND_avx2
extern const mf__gemm_ukr mf__gemm_ukr_avx2; /* src/x86/gemm_avx2.c */
extern const mf__gemm_store mf__gemm_store_avx2;
#endif
#if MF_HAVE_BACKEND_neon
extern const mf__gemm_ukr mf__gemm_ukr_neon; /* src/arm/gemm_neon.c */
#endif
#if MF_HAVE_BACKEND_avx512
extern const mf__gemm_ukr mf__gemm_ukr_avx512; /* src/x86/gemm_avx512.c */
extern const mf__gemm_store mf__gemm_store_avx512;
#endif
#if MF_HAVE_BACKEND_avx512bf16
extern const mf__gemm_ukr_pair mf__gemm_ukr_pair_avx512bf16; /* src/x86/gemm_avx512bf16.c: vdpbf16ps */
#endif

#endif /* MF_GEMM_KERNELS_H */
