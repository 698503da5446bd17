/* SPDX-License-Identifier: MIT */
/* src/gemm/config.c - which micro-kernel runs: one table of kernels per backend (BLIS's cntx_init, XNNPACK's
 * configs), the dot-product kernel's self-test verdict, and each call's kernel, tile and blocking. */
#include <string.h>

#include "gemm_internal.h"

/* The kernels of each backend, the one place that chooses: the FP32 micro-kernel, the pair kernel (NULL: none),
 * the tensor-core models' panel kernel and the epilogue's plain stores. A backend not listed takes its parent's. */

#if MF_HAVE_BACKEND_avx2
#define TC_X86 &mf__tc_kernel_avx2
#else
#define TC_X86 &mf__tc_kernel_portable
#endif

static const struct {
    const mf__backend *backend;
    gemm_kernels k;
} KERNELS[] = {
#if MF_HAVE_BACKEND_avx512bf16
    {&mf__backend_avx512bf16, {&mf__gemm_ukr_avx512, &mf__gemm_ukr_pair_avx512bf16, TC_X86, &mf__gemm_store_avx512}},
#endif
#if MF_HAVE_BACKEND_avx512
    {&mf__backend_avx512, {&mf__gemm_ukr_avx512, NULL, TC_X86, &mf__gemm_store_avx512}},
#endif
#if MF_HAVE_BACKEND_avx2
    {&mf__backend_avx2, {&mf__gemm_ukr_avx2, NULL, &mf__tc_kernel_avx2, &mf__gemm_store_avx2}},
#endif
#if MF_HAVE_BACKEND_neon
    {&mf__backend_neon, {&mf__gemm_ukr_neon, NULL, &mf__tc_kernel_portable, &mf__gemm_store_portable}},
#endif
    {&mf__backend_portable, {&mf__gemm_ukr_portable, NULL, &mf__tc_kernel_portable, &mf__gemm_store_portable}},
};

/* A pair kernel's dot instruction is used only where it passed the self-test on this CPU (ukr_pair.c):
 * 0 not yet run, 1 passed, -1 failed. Two threads may both run it; they store the same answer. */
static int pair_verdict;

static int pair_verified(const mf__gemm_ukr_pair *pk)
{
#if defined(__GNUC__)
    int v = __atomic_load_n(&pair_verdict, __ATOMIC_ACQUIRE);
    if (!v) {
        v = mf__gemm_pair_selftest(pk) ? 1 : -1;
        __atomic_store_n(&pair_verdict, v, __ATOMIC_RELEASE);
    }
#else
    int v = pair_verdict ? pair_verdict : (pair_verdict = mf__gemm_pair_selftest(pk) ? 1 : -1);
#endif
    return v > 0;
}

gemm_kernels mf__gemm_pick_kernels(void)
{
    for (const mf__backend *bk = mf__backend_active(); bk; bk = bk->parent)
        for (size_t q = 0; q < sizeof KERNELS / sizeof KERNELS[0]; q++)
            if (KERNELS[q].backend == bk) {
                gemm_kernels k = KERNELS[q].k;
                if (k.pair && !pair_verified(k.pair))
                    k.pair = NULL;
                return k;
            }
    return KERNELS[sizeof KERNELS / sizeof KERNELS[0] - 1].k;
}

/* The FP32 path's kernel for a call: the pair kernel where both operands are bf16-valued without block scales
 * (their values then are the packed pairs), else the fma kernel. */
fp32_plan mf__gemm_fp32_plan_for(const gemm *g)
{
    const gemm_kernels ks = mf__gemm_pick_kernels();
    fp32_plan pl;
    memset(&pl, 0, sizeof pl);
    pl.store = ks.store;
    if (ks.pair && ks.pair->mr <= PAIR_MR_MAX && mf__gemm_pair_format(g->a.fmt) && mf__gemm_pair_format(g->b.fmt) &&
        !g->a.bs && !g->b.bs) {
        pl.pk = ks.pair;
        pl.mr = (size_t)pl.pk->mr, pl.nr = (size_t)pl.pk->nr, pl.mc = (size_t)pl.pk->mc, pl.kc = (size_t)pl.pk->kc;
    } else {
        pl.k = ks.ukr;
        pl.mr = (size_t)pl.k->mr, pl.nr = (size_t)pl.k->nr, pl.mc = MC, pl.kc = KC;
    }
    return pl;
}
