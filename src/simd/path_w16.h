/* SPDX-License-Identifier: MIT */
/* src/simd/path_w16.h - the w16 path: f16 and bf16 sources into narrow formats in 16-bit lanes (included by
 * backend_paths.h, once per backend). */

/* ---- f16 and bf16 into fp8, fp6, fp4 and e8m0, and bf16 into f16, in 16-bit lanes ----------------
 * Every mode (sr into the formats that take 8 random bits), without statistics, by integer operations
 * (so whatever MXCSR holds): the backend's hw_w16_loop, where it has one (BK_HW_W16). sr's elements
 * before the first Philox block start go to the portable backend. When streaming, the elements before the
 * output's first 64-byte boundary are written with plain stores (sr: where that boundary is not also a
 * block start, the whole call is); an odd last e2m1 element goes to the portable backend. Returns 0 for
 * every other call. */
static int bk_w16_ok(mf_format d, mf_format s, size_t n, const mf_opts *o)
{
    if (!BK_HW_W16 || !hw_w16_ok(d, s, o))
        return 0;
    /* bf16 -> f16 rn and rz: the blocked path's vcvtps2ph after a shift is faster from L1; streamed, and
     * in rna, ru, rd and ro, this is */
    return !(s == MF_BF16 && d == MF_FP16 && !bk_streams(d, n) &&
             (o->round == MF_ROUND_NEAREST_EVEN || o->round == MF_ROUND_TOWARD_ZERO));
}

static void bk_w16_run(mf_format d, void *dst, mf_format s, const void *src, size_t n, const mf_opts *o)
{
    const int d4 = d == MF_FP4_E2M1;
    const size_t m = d4 ? n & ~(size_t)1 : n;
    k_counts none = {0, 0, 0, 0, 0};
    size_t pre = 0, head = 0;
    mf_opts wo; /* sr: sr_offset is the stream index of hw_w16_loop's first element */
    int stream = bk_streams(d, n);
    if (o->round == MF_ROUND_STOCHASTIC) {
        pre = (size_t)(-o->sr_offset & ((4u << k_sr_shift(d)) - 1u)); /* to a Philox block's first element */
        if (pre > m)
            pre = m;
        bk_portable(d, dst, s, src, 0, pre, o, &none, 0);
    }
    head = pre;
    if (stream) {
        head = d == MF_FP16 ? (size_t)(-(uintptr_t)dst & 63u) / 2 : (size_t)(-(uintptr_t)dst & 63u) << d4;
        if (d == MF_FP16 && ((uintptr_t)dst & 1u)) /* never 64-byte aligned: plain stores */
            head = 0, stream = 0;
        if (o->round == MF_ROUND_STOCHASTIC && (head - pre) % (4u << k_sr_shift(d)) != 0)
            head = pre, stream = 0;
        if (head > m)
            head = m;
        wo = bk_opts_at(o, pre);
        hw_w16_loop(d, (uint8_t *)dst + mf__storage_bytes(d, pre), s, (const uint16_t *)src + pre, head - pre, &wo, 0);
    }
    wo = bk_opts_at(o, head);
    hw_w16_loop(d, (uint8_t *)dst + mf__storage_bytes(d, head), s, (const uint16_t *)src + head, m - head, &wo, stream);
    if (stream)
        v_stream_fence(); /* order the streaming stores before the caller's */
    bk_portable(d, dst, s, src, m, n, o, &none, 0);
}
