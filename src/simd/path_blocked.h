/* SPDX-License-Identifier: MIT */
/* src/simd/path_blocked.h - the blocked path: blocks decoded into binary32, then a round kernel; every call with
 * statistics (included by backend_paths.h, once per backend). */

static int bk_vectorizable(mf_format d, mf_format s, const mf_opts *o, int count)
{
    if (d == s)
        return 0;
    if (o->round == MF_ROUND_STOCHASTIC && (o->sr_offset & 1) &&
        (mf__fmt_store_bits(d) == 4 || mf__fmt_store_bits(s) == 4))
        return 0; /* the portable head would end mid-byte */
    /* From f64 in sr into fp8/fp6/fp4 (8 random bits) the f32 step's round to odd keeps every bit down
     * to 2^-8 of the target's last place (at most 3 + 8 of binary32's 24), and truncating there is all
     * that sr looks at. Not so into f16, bf16 and f32 (16 and 32 random bits: more bits than binary32
     * keeps), nor into e8m0, whose top binade is binary32's (|x| >= 2^128 would leave the f32 step as
     * binary32's max, which rounds down to e8m0's max when r = 0): those take bk_f64_sr. */
    return !(s == MF_FP64 && count);
}

/* f64 -> d in sr by adding each element's random bits to |x| in binary64 (hw_f64_to_f32_sr), then
 * truncating: into binary32 there, into d by the backend's rz kernel */
static int bk_f64_sr(mf_format d, mf_format s, const mf_opts *o)
{
    return s == MF_FP64 && o->round == MF_ROUND_STOCHASTIC &&
           (d == MF_FP16 || d == MF_BF16 || d == MF_FP32 || d == MF_E8M0);
}

/* The stream words of elements idx .. idx + n of a call rounding to a format of k_sr_shift sh, in
 * order, into w (idx a multiple of 4 << sh, a Philox block's first element; w holds n >> sh words
 * rounded up to MF_VL) */
static void bk_sr_fill(uint32_t *w, size_t n, uint64_t idx, int sh, const k_philox_keys *ks)
{
    const size_t nw = (n + ((size_t)1 << sh) - 1) >> sh, chunk = (size_t)K_SR_CHAINS * MF_VL;
    size_t i = 0;
    int j;
    if (nw >= chunk) {
        vu cc = k_philox_counters(idx >> (sh + 2), sh), rb[K_SR_CHAINS];
        for (; i + chunk <= nw; i += chunk) {
            k_philox_chains(rb, &cc, idx + ((uint64_t)i << sh), sh, ks);
            for (j = 0; j < K_SR_CHAINS; j++)
                v_store_u32(w + i + (size_t)j * MF_VL, rb[j]);
        }
    }
    for (; i < nw; i += MF_VL)
        v_store_u32(w + i, k_philox(k_philox_counters((idx + ((uint64_t)i << sh)) >> (sh + 2), sh), ks));
}

/* binary32 NaN lanes of u made the binary32 NaN code, as hw_f64_to_f32 gives them */
MF_V vu bk_nan32(vu u)
{
    return v_blend(v_gt_u(v_and(u, v_set1(0x7FFFFFFFu)), v_set1(0x7F800000u)), u, v_set1(0x7FFFFFFFu));
}

/* Stage 1 of bk_f64_sr: m doubles at sp (stream index idx, a Philox block's first element) -> binary32
 * at out, under MXCSR = rz, with the block's random words in a buffer of its own */
__attribute__((noinline)) static void bk_f64_sr_block(mf_format d, uint32_t *out, const double *sp, size_t m,
                                                        uint64_t idx, const k_philox_keys *ks, int stream)
{
    uint32_t rbuf[BK_BLOCK + MF_VL]; /* the block's random words */
    const mf__fmt f = mf__fmt_get(d);
    const int w = (int)mf_sr_width(d), e_lo = 1023 + mf__fmt_emin(f);
    /* 2^(emax + 1), the grid point above max (f16, bf16, f32, e8m0) */
    const double top = mf__f64_from_bits((uint64_t)((1 << (mf__fmt_mag_bits(f) - f.man)) - 1 - f.bias + 1023) << 52);
    size_t i;
    bk_sr_fill(rbuf, m, idx, k_sr_shift(d), ks);
    for (i = 0; i < m; i += MF_VL) {
        vu u;
        if (stream) { /* MF_VL doubles: one or two lines */
            v_prefetch((const char *)(sp + i) + BK_F64_AHEAD);
            if (MF_VL == 16)
                v_prefetch((const char *)(sp + i) + BK_F64_AHEAD + 64);
        }
        u = hw_f64_to_f32_sr(sp + i, (const uint8_t *)rbuf + i * (size_t)w / 8, w, f.man, e_lo, top);
        if (d == MF_FP32)
            u = bk_nan32(u);
        v_store_u32(out + i, u);
    }
}

/* The blocked path, with its 12 KiB of buffers: a function of its own, so that the calls bk_direct
 * takes do not pay for setting up (and, with stack-clash protection, probing) that frame. */
__attribute__((noinline)) static void bk_blocked(mf_format d, void *dst, mf_format s, const void *src, size_t n,
                                                   const mf_opts *o, mf_stats *st)
{
    const int count = st != NULL;
    k_counts ct = {0, 0, 0, 0, 0};
    k_philox_keys ks;
    uint32_t buf[BK_BLOCK];
    uint64_t obuf[BK_BLOCK]; /* a block's output when streaming: 8 bytes an element at most */
    int stream, nt64;
    size_t head = 0, end, blk, m, bsize;
    /* MXCSR rounding control for vcvtpd2ps: the mode itself into f32, rz for round-to-odd, for rna
     * (hw_f64_to_f32 adds the half place first) and for sr (bk_f64_sr truncates) */
    static const unsigned rc[MF_ROUND_COUNT] = {V_CSR_RN, V_CSR_RZ, V_CSR_RZ, V_CSR_RU, V_CSR_RD, V_CSR_RZ, V_CSR_RZ};
    unsigned csr, csr_f64, csr_k;
    int csr_set, csr_once;
    const int f64sr = bk_f64_sr(d, s, o);
    const mf_round r2 = f64sr ? MF_ROUND_TOWARD_ZERO : o->round; /* stage 2's rounding */

    if (!bk_vectorizable(d, s, o, count)) {
        mf__backend_portable.convert(d, dst, s, src, n, o, st);
        return;
    }
    if (o->round == MF_ROUND_STOCHASTIC) {
        head = (size_t)(-o->sr_offset & ((4u << k_sr_shift(d)) - 1u)); /* to a Philox block's first element */
        if (head > n)
            head = n;
        k_philox_keys_init(&ks, o->seed);
    }
    stream = bk_streams(d, n);
    if (stream && o->round != MF_ROUND_STOCHASTIC) {
        /* a source that is not 64-byte aligned splits every vector load in two, which slows DRAM-bound
         * calls (docs/perf/tuning.md): the first elements go to the portable backend instead */
        const size_t sb = (size_t)((mf__fmt_get(s).bits + 7) / 8), mis = (size_t)(-(uintptr_t)src & 63u);
        head = mf__fmt_store_bits(s) != 4 && mis % sb == 0 ? mis / sb : 0;
        if ((head & 1) && mf__fmt_store_bits(d) == 4) /* e2m1 output must start on a whole byte */
            head = 0;
        if (head > n)
            head = n;
    }
    end = head + (n - head) / MF_VL * MF_VL;
    /* streamed binary64 results from a 64-byte aligned start are written from registers (a block
     * through the L1 buffer and its copy was slower on DRAM: docs/perf/tuning.md) */
    nt64 = stream && d == MF_FP64 && ((uintptr_t)dst + 8 * head) % 64 == 0;
    /* at most 4 KiB of source a block, 2 KiB for streamed f64: the sizes that ran fastest; sr takes whole
     * blocks, as bk_round_loop interleaves its Philox chains only over K_SR_CHAINS * 64 elements
     * (docs/perf/tuning.md) */
    bsize = s != MF_FP64 || o->round == MF_ROUND_STOCHASTIC ? BK_BLOCK : stream ? BK_BLOCK / 4 : BK_BLOCK / 2;
    bk_portable(d, dst, s, src, 0, head, o, &ct, count);

    /* no FTZ, no DAZ, round to nearest (or the kernel's mode: csr_k), exceptions masked: written only if
     * the caller's differs (ldmxcsr is slow: docs/perf/tuning.md) */
    csr = v_csr_get(); /* read once: stmxcsr is slow to read back (docs/perf/tuning.md) */
    csr_k = V_CSR_BASE | bk_kernel_csr(d, r2, count);
    csr_set = (csr & V_CSR_OWN) != csr_k;
    /* from f64, vcvtpd2ps rounds by MXCSR (below): where nothing else in a block does (into f32, or
     * where the backends' kernels name their rounding in the instruction), the call writes it once
     * (writing it twice a block was markedly slower on DRAM: docs/perf/tuning.md) */
    csr_f64 = (csr & ~V_CSR_OWN) | V_CSR_BASE | (d == MF_FP32 ? rc[o->round] : V_CSR_RZ);
#ifdef V_HAS_RC_IN_INSN
    csr_once = s == MF_FP64;
#else
    csr_once = s == MF_FP64 && d == MF_FP32;
#endif
    if (csr_once) {
        v_csr_set(csr_f64);
        csr_set = 1;
    } else if (csr_set)
        v_csr_set((csr & ~V_CSR_OWN) | csr_k);
    for (blk = head; blk < end; blk += m) {
        size_t i, dbytes = mf__fmt_store_bits(d) == 4 ? 0 : (size_t)((mf__fmt_get(d).bits + 7) / 8);
        const uint32_t *b32;
        void *final = (uint8_t *)dst + (mf__fmt_store_bits(d) == 4 ? blk / 2 : blk * dbytes), *dp = final;
        m = end - blk < bsize ? end - blk : bsize;
        if (((s == MF_FP32 && d != MF_FP64) || (d == MF_FP32 && s != MF_FP64)) && !stream)
            m = end - blk; /* nothing to stage: one pass over the whole range */
        if (stream) {
            /* the hardware prefetcher alone leaves DRAM idle between blocks: each block asks for the
             * next one's source (for f16, asking further ahead was slower; f64 sources ask as they go,
             * BK_F64_AHEAD) */
            const size_t sbytes = mf__storage_bytes(s, bsize);
            const char *next = (const char *)src + mf__storage_bytes(s, blk + m);
            for (i = 0; i < sbytes && blk + m < end && s != MF_FP64; i += 64)
                v_prefetch(next + i);
            dp = obuf;
        }
        /* stage 1: the block as binary32 (or, from f16 or bf16 widened in registers, the whole conversion) */
        if ((s == MF_FP16 || s == MF_BF16) && !count &&
            bk_hw16_widening(d, dp, s, (const uint8_t *)src + mf__storage_bytes(s, blk), m, o)) {
            b32 = NULL;
        } else if (s == MF_FP32) {
            b32 = (const uint32_t *)src + blk;
        } else if (s == MF_FP64) {
            const double *sp = (const double *)src + blk;
            uint32_t *out = d == MF_FP32 ? (uint32_t *)dp : buf;
            if (!csr_once) {
                v_csr_set(csr_f64);
                csr_set = 1;
            }
            if (f64sr)
                bk_f64_sr_block(d, out, sp, m, o->sr_offset + blk, &ks, stream);
            for (i = 0; i < m && !f64sr; i += MF_VL) {
                if (stream) { /* MF_VL doubles: one or two lines */
                    v_prefetch((const char *)(sp + i) + BK_F64_AHEAD);
                    if (MF_VL == 16)
                        v_prefetch((const char *)(sp + i) + BK_F64_AHEAD + 64);
                }
                if (d == MF_FP32 && o->round != MF_ROUND_ODD) {
                    v_store_u32(out + i, hw_f64_to_f32(sp + i, o->round));
                } else {
                    vu u = hw_f64_to_f32_ro(sp + i);
                    if (d == MF_FP32)
                        u = bk_nan32(u);
                    v_store_u32(out + i, u);
                }
            }
            if (!csr_once)
                v_csr_set((csr & ~V_CSR_OWN) | csr_k); /* restored below */
            if (d == MF_FP32) {
                if (o->overflow == MF_OVERFLOW_SATURATE) /* IEEE results: clamp infinities of finite inputs */
                    bk_saturate_f32(out, m);
                b32 = NULL; /* done */
            } else {
                b32 = buf;
            }
        } else {
            uint32_t *out = d == MF_FP32 ? (uint32_t *)dp : buf;
            const uint8_t *sp = (const uint8_t *)src + mf__storage_bytes(s, blk);
            bk_decode(s, out, sp, m);
            if (count && (d == MF_FP32 || d == MF_FP64))
                bk_decode_counts(out, m, d == MF_FP32, o->overflow == MF_OVERFLOW_SATURATE, &ct);
            if (d == MF_FP32 && o->overflow == MF_OVERFLOW_SATURATE)
                bk_saturate_f32(out, m);
            b32 = d == MF_FP32 ? NULL : buf;
        }
        /* stage 2: binary32 -> destination */
        if (!b32) {
            /* stage 1 wrote the destination */
        } else if (d == MF_FP64) {
            if (count && s == MF_FP32)
                bk_decode_counts(b32, m, 0, o->overflow == MF_OVERFLOW_SATURATE, &ct);
            for (i = 0; i < m; i += MF_VL) {
                const vu u = v_load_u32(b32 + i);
                /* saturation: the scalar pass only over a vector that holds an infinity (a pass over
                 * every block was slower on DRAM: docs/perf/tuning.md) */
                if (o->overflow == MF_OVERFLOW_SATURATE &&
                    m_any(v_eq(v_and(u, v_set1(0x7FFFFFFFu)), v_set1(0x7F800000u)))) {
                    double v[MF_VL];
                    hw_f32_to_f64(v, u);
                    bk_saturate_f64(v, MF_VL);
                    memcpy((double *)(nt64 ? final : dp) + i, v, sizeof v);
                } else if (nt64) {
                    hw_f32_to_f64_nt((double *)final + i, u);
                } else {
                    hw_f32_to_f64((double *)dp + i, u);
                }
            }
        } else {
            bk_round(d, dp, b32, m, r2, o->overflow, count, &ks, o->sr_offset + blk, &ct);
        }
        if (stream && !nt64)
            bk_stream_copy(final, obuf, mf__fmt_store_bits(d) == 4 ? m / 2 : m * dbytes);
    }
    if (stream)
        v_stream_fence(); /* order the streaming stores before the caller's */
    if (csr_set)
        v_csr_set(csr);

    bk_portable(d, dst, s, src, end, n, o, &ct, count);
    if (st) {
        st->overflow = ct.ovf;
        st->underflow = ct.unf;
        st->subnormal = ct.sub;
        st->nan = ct.nan;
        st->inexact = ct.inx;
    }
}
