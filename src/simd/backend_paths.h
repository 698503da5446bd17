/* SPDX-License-Identifier: MIT */
/* src/simd/backend_paths.h - a backend's paths and its convert, compiled once per backend by
 * backend.c after its configuration header (with BK_PATHS defined, so that the path hooks come too).
 * its vocabulary (vec_*.h: the lanes, and the binary32 environment as v_csr_get / v_csr_set and the
 * V_CSR_* bits) and its hardware hooks:
 *
 *   BK_SYM                     the backend's symbol suffix (mf__backend_<BK_SYM>) and name
 *   hw_f16_special(u), hw_f16_plain(p, u, r), hw_f16_fix(p, u, r)
 *                                binary32 -> MF_VL f16 codes at p, rn/rz/ru/rd, IEEE overflow (F16C):
 *                                the lanes the instruction gets wrong, the plain and the mended store
 *   hw_f16_special2(u, v)        the lanes where u or v is one the instruction gets wrong (one test
 *                                for two vectors)
 *   hw_f16_to_f32(p)             MF_VL f16 codes at p -> binary32 bits                     (F16C)
 *   BK_HW_DECODE, hw_decode_ok(S), hw_decode_loop(S, out, src, n), hw_decode_prepare()
 *                                a faster exact decoder for some narrow formats (optional)
 *   BK_HW_BF16, hw_bf16_special(u), hw_bf16_plain(p, u), hw_bf16_plain2(p, u, v), hw_bf16_fix(p, u)
 *                                binary32 -> bf16 rn, IEEE overflow (optional); plain2 stores the
 *                                2 * MF_VL codes of u then v
 *   hw_f64_to_f32_ro(p)          MF_VL doubles -> binary32 bits, round to odd
 *   hw_f64_to_f32(p, r)          MF_VL doubles -> binary32 bits in rn/rz/ru/rd, IEEE overflow
 *   hw_f64_to_f32_sr(p, rp, w, man, e_lo, top)
 *                                MF_VL doubles plus each one's w random bits at its last place less w
 *                                (MXCSR = rz), as binary32 bits; +-inf from top on (bk_f64_sr)
 *   hw_f32_to_f64(out, u)        binary32 bits -> MF_VL doubles (exact; NaNs become quiet)
 *   hw_f32_to_f64_nt(out, u)     the same with non-temporal stores to a 64-byte aligned out
 *   BK_HW_LUT, hw_lut8_loop(dst, src, nblk, tab, s4, d4, stream), hw_lut16_loop(...)
 *                                dst[i] = tab[src[i]] in blocks of 64 elements, from bytes or packed
 *                                e2m1 (s4), into bytes, packed e2m1 (d4) or 16 bits (optional; bk_lut)
 *   hw_lut_sr8_loop(dst, src, nblk, tabs, cls, s4, d4, stream, ks, pb)
 *                                the same in sr: lo[x] + 1 where the element's Philox byte exceeds thr[x]
 *                                (with BK_HW_LUT; bk_lut_sr)
 *   BK_HW_W16, hw_w16_ok(d, s, o), hw_w16_loop(d, dst, s, src, n, o, stream)
 *                                f16 or bf16 -> narrow formats by integer operations on 16-bit lanes, the
 *                                conversions hw_w16_ok takes (optional; bk_w16): AVX-512, fp8/fp6/fp4/e8m0
 *                                in every mode and bf16 -> f16 in every mode but sr; AVX2, fp8/fp6/fp4 in
 *                                every mode but sr
 *
 * What runs as vectors, and what falls back to the portable backend (which always gives the same
 * bits; a fallback only costs speed):
 *   - any source but f64 -> any other format: vectors, every mode, both policies, with or without
 *     stats. Sources other than f32 are first decoded (exactly) into a block of binary32, but for
 *     f16 and bf16 -> fp8/fp6/fp4/e8m0 (every mode) and bf16 -> f16 (every mode but sr) without stats in
 *     the AVX-512 backends, and f16 and bf16 -> fp8/fp6/fp4 (every mode but sr) without stats in the AVX2
 *     backend, by hw_w16_loop (16-bit lanes, no widening; bf16 -> f16 rn and rz only when streaming),
 *     f16 <-> bf16 by the hardware conversions without stats, widened in registers, and for fp8, fp6,
 *     fp4 and e8m0 sources -> those formats, f16 or bf16 in a backend with byte tables (bk_lut; in sr
 *     bk_lut_sr, from 8192 elements, all but e8m0 -> f16).
 *   - f64 -> any narrow format: vectors for every mode and without stats, through the exact
 *     two-step f64 -ro-> f32 -r-> narrow (docs/rounding.md); in sr into fp8/fp6/fp4 the same
 *     (bk_vectorizable says why), into f16, bf16, f32 and e8m0 by adding the random bits in binary64
 *     (bk_f64_sr); f64 -> f32: vectors for every mode, without stats. f64 with stats: portable.
 *   - equal formats: portable (a copy).
 *   - the first elements of a stochastic call up to the first stream index that is a multiple of
 *     4 * 32 / mf_sr_width(destination) (so that vectors start on a Philox block's words), and the
 *     last n mod MF_VL elements (64 with the byte tables): portable, but for calls without statistics
 *     below the streaming size, where the last ones (BK_BOUNCE_MIN or more) go through a bounce
 *     buffer by the same paths (bk_split).
 *   - stochastic rounding with an e2m1 side and an odd sr_offset: portable.
 * The binary32 environment (x86 MXCSR: FTZ, DAZ, rounding, exception masks; aarch64 FPCR: FZ, FZ16,
 * DN, AHP, rounding, trap enables) is saved, cleared and
 * restored around the vector part, so the caller's settings cannot change a bit; the calls whose
 * instructions cannot depend on it skip that (bk_direct).
 */
#ifndef MF_SIMD_BACKEND_PATHS_H
#define MF_SIMD_BACKEND_PATHS_H

#include "backend_kernels.h"

#ifndef BK_HW_DECODE
#define BK_HW_DECODE 0
MF_V int hw_decode_ok(const mf_format S)
{
    (void)S;
    return 0;
}
MF_V void hw_decode_loop(const mf_format S, uint32_t *out, const void *src, size_t n)
{
    (void)S, (void)out, (void)src, (void)n;
}
static void hw_decode_prepare(void) {}
#endif

#ifndef BK_HW_LUT
#define BK_HW_LUT 0 /* no byte-table lookups in this backend (never called) */
static void hw_lut8_loop(uint8_t *dst, const uint8_t *src, size_t nblk, const uint8_t *tab, int s4, int d4, int stream)
{
    (void)dst, (void)src, (void)nblk, (void)tab, (void)s4, (void)d4, (void)stream;
}
static void hw_lut16_loop(uint16_t *dst, const uint8_t *src, size_t nblk, const uint16_t *tab, int s4, int stream)
{
    (void)dst, (void)src, (void)nblk, (void)tab, (void)s4, (void)stream;
}
enum { HW_SR_ANY, HW_SR_SYM, HW_SR_PER64 };
static void hw_lut_sr8_loop(uint8_t *dst, const uint8_t *src, size_t nblk, const uint8_t *tabs, int cls, int s4,
                            int d4, int stream, const k_philox_keys *ks, uint64_t pb)
{
    (void)dst, (void)src, (void)nblk, (void)tabs, (void)cls, (void)s4, (void)d4, (void)stream, (void)ks, (void)pb;
}
#endif

#ifdef BK_W16_LOOP /* the backend's 16-bit-lane kernels, compiled in a unit of their own (w16.c) */
int BK_W16_OK(mf_format d, mf_format s, const mf_opts *o);
void BK_W16_LOOP(mf_format d, void *dst, mf_format s, const void *src, size_t n, const mf_opts *o, int stream);
#define BK_HW_W16 1
#define hw_w16_ok BK_W16_OK
#define hw_w16_loop BK_W16_LOOP
#endif
#ifndef BK_HW_W16
#define BK_HW_W16 0 /* no 16-bit-lane kernels in this backend (never called) */
static int hw_w16_ok(mf_format d, mf_format s, const mf_opts *o)
{
    (void)d, (void)s, (void)o;
    return 0;
}
static void hw_w16_loop(mf_format d, void *dst, mf_format s, const void *src, size_t n, const mf_opts *o, int stream)
{
    (void)d, (void)dst, (void)s, (void)src, (void)n, (void)o, (void)stream;
}
#endif

#ifndef BK_HW_NOCSR
#define BK_HW_NOCSR 0 /* 1: the hooks' f16 and bf16 instructions raise no exceptions (see bk_direct) */
#endif

/* streamed f64 sources: each vector asks for the doubles 8 KiB ahead, which ran faster than a block's
 * burst of requests two blocks ahead, and than 4 or 16 KiB ahead (docs/perf/tuning.md) */
enum { BK_F64_AHEAD = 8192 };
enum { BK_BLOCK = 1024 }; /* elements a block: 4 KiB of binary32, L1-resident (streamed decodes ran slower with
                           * 512: docs/perf/tuning.md) */

#ifdef V_HAS_TABLE32
/* k_rn_tab_ok for a format known only at run time, folded per format at compile time (computing it
 * from the format's facts at each call was a measurable part of a short call: docs/perf/tuning.md) */
static int bk_tab_ok(mf_format d)
{
    switch (d) {
    case MF_FP8_E4M3: return k_rn_tab_ok(MF_FP8_E4M3);
    case MF_FP8_E5M2: return k_rn_tab_ok(MF_FP8_E5M2);
    case MF_FP6_E2M3: return k_rn_tab_ok(MF_FP6_E2M3);
    case MF_FP6_E3M2: return k_rn_tab_ok(MF_FP6_E3M2);
    case MF_FP4_E2M1: return k_rn_tab_ok(MF_FP4_E2M1);
    default: return 0; /* f16 qualifies but has its own instructions; the others do not */
    }
}
#endif

/* f16 <-> bf16 by the hardware conversions (vcvtneps2bf16 for rn into bf16, vcvtps2ph for rn, rz, ru, rd
 * into f16), the source widened in registers; 0 (nothing done) where it does not apply. Needs the backend's
 * MXCSR (no DAZ: vfpclassps and vcvtps2ph read it). */
static int bk_hw16_widening(mf_format d, void *dst, mf_format s, const void *src, size_t n, const mf_opts *o)
{
    const int sat = o->overflow == MF_OVERFLOW_SATURATE;
    uint16_t *p = (uint16_t *)dst;
    if (BK_HW_BF16 && s == MF_FP16 && d == MF_BF16 && o->round == MF_ROUND_NEAREST_EVEN) {
        bk_hw16_loop(MF_FP16, 1, p, src, n, MF_ROUND_NEAREST_EVEN, sat);
        return 1;
    }
    if (s != MF_BF16 || d != MF_FP16)
        return 0;
    switch (o->round) {
    case MF_ROUND_NEAREST_EVEN: bk_hw16_loop(MF_BF16, 0, p, src, n, MF_ROUND_NEAREST_EVEN, sat); return 1;
    case MF_ROUND_TOWARD_ZERO: bk_hw16_loop(MF_BF16, 0, p, src, n, MF_ROUND_TOWARD_ZERO, sat); return 1;
    case MF_ROUND_UP: bk_hw16_loop(MF_BF16, 0, p, src, n, MF_ROUND_UP, sat); return 1;
    case MF_ROUND_DOWN: bk_hw16_loop(MF_BF16, 0, p, src, n, MF_ROUND_DOWN, sat); return 1;
    default: return 0;
    }
}

/* The backend's round kernels, one per destination (round.c): its own, or its parent's where the
 * backend changes nothing for that destination. BK_ROUND_<tag> names them (backend.c). */
#define BK_ROUND_DECL(fn)                                                                                 \
    void fn(void *dst, const uint32_t *src, size_t n, mf_round r, mf_overflow o, int count,               \
            const k_philox_keys *ks, uint64_t idx0, k_counts *ct);
BK_ROUND_DECL(BK_ROUND_f16)
BK_ROUND_DECL(BK_ROUND_bf16)
BK_ROUND_DECL(BK_ROUND_e4m3)
BK_ROUND_DECL(BK_ROUND_e5m2)
BK_ROUND_DECL(BK_ROUND_e2m3)
BK_ROUND_DECL(BK_ROUND_e3m2)
BK_ROUND_DECL(BK_ROUND_e2m1)
BK_ROUND_DECL(BK_ROUND_e8m0)
#undef BK_ROUND_DECL

static void bk_round(mf_format d, void *dst, const uint32_t *src, size_t n, mf_round r, mf_overflow o, int count,
                       const k_philox_keys *ks, uint64_t idx0, k_counts *ct)
{
    static const bk_round_fn by_dst[MF_FORMAT_COUNT] = {
        [MF_FP16] = BK_ROUND_f16,      [MF_BF16] = BK_ROUND_bf16,     [MF_FP8_E4M3] = BK_ROUND_e4m3,
        [MF_FP8_E5M2] = BK_ROUND_e5m2, [MF_FP6_E2M3] = BK_ROUND_e2m3, [MF_FP6_E3M2] = BK_ROUND_e3m2,
        [MF_FP4_E2M1] = BK_ROUND_e2m1, [MF_E8M0] = BK_ROUND_e8m0};
    if ((unsigned)d < MF_FORMAT_COUNT && by_dst[d])
        by_dst[d](dst, src, n, r, o, count, ks, idx0, ct);
}

/* ---- one block: source format -> binary32 bits (exact) ---------------------------------------------- */
MF_V void bk_decode_loop(const mf_format S, uint32_t *out, const void *src, size_t n)
{
    size_t i;
    if (hw_decode_ok(S)) {
        hw_decode_loop(S, out, src, n);
        return;
    }
    if (S == MF_FP16) { /* F16C, four vectors a step */
        const uint16_t *h = (const uint16_t *)src;
        for (i = 0; i + 4 * MF_VL <= n; i += 4 * MF_VL) {
            vu a = hw_f16_to_f32(h + i), b = hw_f16_to_f32(h + i + MF_VL);
            vu c = hw_f16_to_f32(h + i + 2 * MF_VL), e = hw_f16_to_f32(h + i + 3 * MF_VL);
            v_store_u32(out + i, a);
            v_store_u32(out + i + MF_VL, b);
            v_store_u32(out + i + 2 * MF_VL, c);
            v_store_u32(out + i + 3 * MF_VL, e);
        }
        for (; i < n; i += MF_VL)
            v_store_u32(out + i, hw_f16_to_f32(h + i));
        return;
    }
    for (i = 0; i < n; i += MF_VL) {
        vu c;
        if (S == MF_BF16)
            c = v_load_u16((const uint16_t *)src + i);
        else if (S == MF_FP4_E2M1)
            c = v_load_u4((const uint8_t *)src + i / 2);
        else if (S == MF_FP6_E2M3 || S == MF_FP6_E3M2)
            c = v_and(v_load_u8((const uint8_t *)src + i), v_set1(0x3Fu));
        else
            c = v_load_u8((const uint8_t *)src + i);
        v_store_u32(out + i, k_decode(c, S));
    }
}

static void bk_decode(mf_format s, uint32_t *out, const void *src, size_t n)
{
    hw_decode_prepare();
    switch (s) {
    case MF_FP16: bk_decode_loop(MF_FP16, out, src, n); break;
    case MF_BF16: bk_decode_loop(MF_BF16, out, src, n); break;
    case MF_FP8_E4M3: bk_decode_loop(MF_FP8_E4M3, out, src, n); break;
    case MF_FP8_E5M2: bk_decode_loop(MF_FP8_E5M2, out, src, n); break;
    case MF_FP6_E2M3: bk_decode_loop(MF_FP6_E2M3, out, src, n); break;
    case MF_FP6_E3M2: bk_decode_loop(MF_FP6_E3M2, out, src, n); break;
    case MF_FP4_E2M1: bk_decode_loop(MF_FP4_E2M1, out, src, n); break;
    case MF_E8M0: bk_decode_loop(MF_E8M0, out, src, n); break;
    default: break;
    }
}

/* Events of a decoded block (the destination is binary32 or binary64): NaN inputs, subnormal
 * binary32 results (binary64 holds every narrow value as a normal number), and under saturation the
 * infinities, which become +-max. */
static void bk_decode_counts(const uint32_t *b, size_t n, int f32_out, int sat, k_counts *ct)
{
    size_t i;
    for (i = 0; i < n; i += MF_VL) {
        vu u = v_and(v_load_u32(b + i), v_set1(0x7FFFFFFFu));
        ct->nan += m_count(v_gt_u(u, v_set1(0x7F800000u)));
        if (f32_out)
            ct->sub += m_count(m_and(v_nonzero(u), v_lt_u(u, v_set1(0x00800000u))));
        if (sat) {
            uint64_t k = m_count(v_eq(u, v_set1(0x7F800000u)));
            ct->ovf += k;
            ct->inx += k;
        }
    }
}

/* Saturation for binary32 results: +-inf becomes +-FLT_MAX. */
static void bk_saturate_f32(uint32_t *b, size_t n)
{
    size_t i;
    for (i = 0; i < n; i += MF_VL) {
        vu u = v_load_u32(b + i);
        vu a = v_and(u, v_set1(0x7FFFFFFFu));
        vu sat = v_or(v_and(u, v_set1(0x80000000u)), v_set1(0x7F7FFFFFu));
        v_store_u32(b + i, v_blend(v_eq(a, v_set1(0x7F800000u)), u, sat));
    }
}

/* Saturation for binary64 results: +-inf becomes +-DBL_MAX (rare: a scalar pass). */
static void bk_saturate_f64(void *p, size_t n)
{
    uint8_t *b = (uint8_t *)p;
    size_t i;
    for (i = 0; i < n; i++) {
        uint64_t v;
        memcpy(&v, b + 8 * i, 8);
        if ((v & 0x7FFFFFFFFFFFFFFFu) == 0x7FF0000000000000u) {
            v = (v & 0x8000000000000000u) | 0x7FEFFFFFFFFFFFFFu;
            memcpy(b + 8 * i, &v, 8);
        }
    }
}

/* ---- streaming the output of very large calls ---------------------------------------------------------
 * An output far larger than the caches is written with non-temporal stores, so that DRAM is not also
 * read for ownership of every line written: each block is converted into an L1 buffer as usual,
 * then copied out with streaming stores (the copy costs little next to the DRAM traffic saved). */
enum { BK_STREAM_BYTES = 16 << 20 };

static int bk_streams(mf_format d, size_t n)
{
    return n >= BK_STREAM_BYTES / 8 && mf__storage_bytes(d, n) >= BK_STREAM_BYTES;
}

static void bk_stream_copy(void *dst, const void *src, size_t bytes)
{
    uint8_t *d = (uint8_t *)dst;
    const uint8_t *s = (const uint8_t *)src;
    size_t head = (size_t)(-(uintptr_t)d & 63u), i;
    if (head > bytes)
        head = bytes;
    memcpy(d, s, head);
    for (i = head; i + 64 <= bytes; i += 64)
        v_stream_line(d + i, s + i);
    memcpy(d + i, s + i, bytes - i);
}

/* ---- the backend's convert ------------------------------------------------------------------------------ */
static void bk_portable(mf_format d, void *dst, mf_format s, const void *src, size_t from, size_t to,
                          const mf_opts *o, k_counts *ct, int count)
{
    mf_opts po;
    mf_stats st;
    size_t sb, db;
    if (to <= from)
        return;
    po = *o;
    /* from is even here, so packed e2m1 starts on a whole byte */
    sb = mf__storage_bytes(s, from);
    db = mf__storage_bytes(d, from);
    po.sr_offset = o->sr_offset + from;
    mf__backend_portable.convert(d, (uint8_t *)dst + db, s, (const uint8_t *)src + sb, to - from, &po, count ? &st : NULL);
    if (count) {
        ct->ovf += st.overflow;
        ct->unf += st.underflow;
        ct->sub += st.subnormal;
        ct->nan += st.nan;
        ct->inx += st.inexact;
    }
}

/* ---- calls that need no binary32 environment -----------------------------------------------------
 * With exception-free instructions (BK_HW_NOCSR), these conversions give the same bits whatever
 * MXCSR holds, so they skip reading it (stmxcsr is slow, a large part of a short call: docs/perf/tuning.md):
 * f32 -> f16 rn and rz take the rounding from the instruction, which ignores FTZ, and DAZ only turns
 * binary32 subnormal inputs into zeros of the same sign, which rn and rz give them anyway (ru and rd
 * would not); vcvtneps2bf16 never consults MXCSR and the lanes it gets wrong are mended with integer
 * operations (found by vfpclassps, which does read DAZ: hw_bf16_direct_ok); vcvtph2ps ignores DAZ;
 * k_round_rn_tab and k_round_dir_tab in rz round with {rn-sae} or {rz-sae}, after vcvtph2ps
 * {sae} or a shift for f16 and bf16 sources (their IEEE overflow step is integer compares);
 * k_round_e8m0_fast is integer arithmetic.
 * Returns 0 for every other call. */
enum { BK_DIRECT_NONE, BK_DIRECT_F16, BK_DIRECT_BF16, BK_DIRECT_ROUND, BK_DIRECT_F16_F32 };
static int bk_direct_kind(mf_format d, mf_format s, size_t n, const mf_opts *o)
{
    if (!BK_HW_NOCSR || bk_streams(d, n))
        return BK_DIRECT_NONE;
    if (s == MF_FP32 && d == MF_FP16 && o->overflow == MF_OVERFLOW_IEEE &&
        (o->round == MF_ROUND_NEAREST_EVEN || o->round == MF_ROUND_TOWARD_ZERO))
        return BK_DIRECT_F16;
    if (BK_HW_BF16 && s == MF_FP32 && d == MF_BF16 && o->overflow == MF_OVERFLOW_IEEE &&
        o->round == MF_ROUND_NEAREST_EVEN && hw_bf16_direct_ok())
        return BK_DIRECT_BF16;
#ifdef V_HAS_TABLE32
    if (s == MF_FP32 && (o->round == MF_ROUND_NEAREST_EVEN || o->round == MF_ROUND_TOWARD_ZERO) && bk_tab_ok(d))
        return BK_DIRECT_ROUND;
#endif
    if (s == MF_FP32 && d == MF_E8M0 && k_e8m0_fast_ok(o->round)) /* integer operations only */
        return BK_DIRECT_ROUND;
    if (s == MF_FP16 && d == MF_FP32)
        return BK_DIRECT_F16_F32;
    return BK_DIRECT_NONE;
}

static void bk_direct_run(int kind, mf_format d, void *dst, mf_format s, const void *src, size_t n, const mf_opts *o)
{
    const size_t end = n / MF_VL * MF_VL;
    k_counts none = {0, 0, 0, 0, 0};
    switch (kind) {
    case BK_DIRECT_F16:
        if (o->round == MF_ROUND_NEAREST_EVEN)
            bk_hw16_loop(MF_FP32, 0, (uint16_t *)dst, src, end, MF_ROUND_NEAREST_EVEN, 0);
        else
            bk_hw16_loop(MF_FP32, 0, (uint16_t *)dst, src, end, MF_ROUND_TOWARD_ZERO, 0);
        break;
    case BK_DIRECT_BF16: bk_hw16_loop(MF_FP32, 1, (uint16_t *)dst, src, end, MF_ROUND_NEAREST_EVEN, 0); break;
    case BK_DIRECT_ROUND:
        bk_round(d, dst, (const uint32_t *)src, end, o->round, o->overflow, 0, NULL, 0, &none);
        break;
    default: /* BK_DIRECT_F16_F32 */
        bk_decode_loop(MF_FP16, (uint32_t *)dst, src, end);
        if (o->overflow == MF_OVERFLOW_SATURATE)
            bk_saturate_f32((uint32_t *)dst, end);
        break;
    }
    bk_portable(d, dst, s, src, end, n, o, &none, 0);
}

static int bk_vectorizable(mf_format d, mf_format s, const mf_opts *o, int count)
{
    if (d == s)
        return 0;
    if (o->round == MF_ROUND_STOCHASTIC && (o->sr_offset & 1) && (d == MF_FP4_E2M1 || s == MF_FP4_E2M1))
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
        head = s != MF_FP4_E2M1 && mis % sb == 0 ? mis / sb : 0;
        if ((head & 1) && d == MF_FP4_E2M1) /* e2m1 output must start on a whole byte */
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
        size_t i, dbytes = d == MF_FP4_E2M1 ? 0 : (size_t)((mf__fmt_get(d).bits + 7) / 8);
        const uint32_t *b32;
        void *final = (uint8_t *)dst + (d == MF_FP4_E2M1 ? blk / 2 : blk * dbytes), *dp = final;
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
            bk_stream_copy(final, obuf, d == MF_FP4_E2M1 ? m / 2 : m * dbytes);
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

/* ---- narrow sources through a table --------------------------------------------------------------
 * From fp8, fp6, e8m0 (a code a byte) or e2m1 into any of those, f16 or bf16, in any mode but sr and
 * without statistics, each result depends on the source code alone: the backend converts every code once,
 * by its own blocked path (so the table holds exactly what the element-wise path gives), and looks the
 * array up in that table, 64 elements a step; the elements before the output's first 64-byte boundary
 * (when streaming) and after the last whole step go to the portable backend. Building the table costs about
 * what converting a short array does, hence the minimum length. Returns 0 for every other call. */
enum { BK_LUT_MIN = 1024 }; /* from here on the table was measured to pay for itself (docs/perf/tuning.md) */

/* the call's work, in a function of its own so that the calls bk_lut turns away do not pay for
 * setting up its 768 bytes of tables (zeroing them slowed the other paths' calls: docs/perf/tuning.md) */
__attribute__((noinline)) static void bk_lut_run(mf_format d, void *dst, mf_format s, const void *src, size_t n,
                                                   const mf_opts *o)
{
    uint16_t tab[256] = {0}; /* one-byte results in its first 256 bytes */
    uint8_t codes[256], *t8 = (uint8_t *)tab;
    const int s4 = s == MF_FP4_E2M1, d4 = d == MF_FP4_E2M1, wide = d == MF_FP16 || d == MF_BF16;
    const size_t db = d4 ? 0 : wide ? 2 : 1;
    int stream, i;
    size_t head = 0, nblk;
    k_counts none = {0, 0, 0, 0, 0};
    for (i = 0; i < 256; i++)
        codes[i] = (uint8_t)(s4 ? (2 * i) | (2 * i + 1) << 4 : i); /* e2m1: codes 0..15 in the first 8 bytes */
    if (d4) { /* 256 results, packed, then spread one per byte */
        uint8_t packed[128];
        bk_blocked(d, packed, s, codes, 256, o, NULL);
        for (i = 0; i < 256; i++)
            t8[i] = (uint8_t)(packed[i / 2] >> (4 * (i & 1)) & 0xF);
    } else {
        bk_blocked(d, tab, s, codes, s4 ? 16 : 256, o, NULL);
    }
    stream = bk_streams(d, n);
    if (stream) { /* non-temporal stores need an aligned output: the elements before go to the portable backend */
        const size_t mis = (size_t)(-(uintptr_t)dst & 63u);
        head = d4 ? 2 * mis : db == 2 ? ((uintptr_t)dst & 1u ? 0 : mis / 2) : mis;
        stream = (db != 2 || !((uintptr_t)dst & 1u)) && !(s4 && (head & 1));
        if (!stream)
            head = 0;
    }
    nblk = (n - head) / 64;
    bk_portable(d, dst, s, src, 0, head, o, &none, 0);
    {
        const uint8_t *sp = (const uint8_t *)src + (s4 ? head / 2 : head);
        uint8_t *dp = (uint8_t *)dst + (d4 ? head / 2 : head * db);
        if (wide)
            hw_lut16_loop((uint16_t *)dp, sp, nblk, tab, s4, stream);
        else
            hw_lut8_loop(dp, sp, nblk, t8, s4, d4, stream);
    }
    bk_portable(d, dst, s, src, head + 64 * nblk, n, o, &none, 0);
}

/* the pairs the byte tables serve: a source of one-byte codes or e2m1, a result of those, f16 or bf16 */
static int bk_lut_pair(mf_format d, mf_format s)
{
    const int s4 = s == MF_FP4_E2M1, d4 = d == MF_FP4_E2M1, wide = d == MF_FP16 || d == MF_BF16;
    return BK_HW_LUT && d != s && (s4 || mf__storage_bytes(s, 64) == 64) && (wide || d4 || mf__storage_bytes(d, 64) == 64);
}

static int bk_lut_ok(mf_format d, mf_format s, size_t n, const mf_opts *o)
{
    return n >= BK_LUT_MIN && o->round != MF_ROUND_STOCHASTIC && bk_lut_pair(d, s);
}

/* ---- narrow sources in sr, through tables -----------------------------------------------------------
 * With w = mf_sr_width(d) random bits r an element, sr gives a source code x one of two results: lo[x]
 * while r < T[x], hi[x] from T[x] on (T = 2^w - floor(f * 2^w), f the fraction rounding discards; 2^w
 * where it discards nothing). The backend finds lo, hi and T with its own kernels, evaluated on every code
 * at chosen r (T by bisection: w + 2 evaluations a code; its cost: docs/perf/tuning.md), so the
 * tables hold what its element-wise path gives. Where no code's T is below 2^w (every value of s is
 * one of d: e2m1 -> e4m3, any of them -> bf16), the result is lo[x] whatever the random bits, a plain
 * lookup (bk_lut's loops); else, for one-byte and e2m1 results where hi is always the code after lo
 * (every pair here), hw_lut_sr8_loop draws the Philox bytes and adds 1 where r > T - 1 (f16 results
 * from e8m0 are left to the blocked path). The elements before the first whole
 * Philox block (and, streaming, the output's 64-byte boundary, where both can hold) and after the last
 * block of 64 go to bk_blocked. */
enum { BK_LUT_SR_MIN = 8192 };

MF_V void bk_sr_probe_t(const mf_format D, const mf_overflow O, const uint32_t *u, size_t n, uint32_t *lo,
                          uint32_t *hi, uint32_t *T)
{
    k_counts none = {0, 0, 0, 0, 0};
    const int w = (int)mf_sr_width(D);
#ifdef V_HAS_TABLE32
    k_rn_tab spare;
    const k_rn_tab tab = *bk_tab(k_rn_tab_ok(D) ? D : MF_FP8_E4M3, &spare);
    const void *tp = &tab;
#else
    const void *tp = NULL;
#endif
    size_t i;
    int k;
    for (i = 0; i < n; i += MF_VL) {
        const vu x = v_load_u32(u + i);
        const vu l = bk_round_code(D, MF_ROUND_STOCHASTIC, O, 0, x, v_zero(), tp, &none);
        vu a = v_zero(), b = v_set1(1u << w); /* r = a gives lo; r = b gives hi, or b = 2^w */
        for (k = 0; k < w; k++) {
            const vu mid = v_srli(v_add(a, b), 1);
            const vm up = v_ne(bk_round_code(D, MF_ROUND_STOCHASTIC, O, 0, x, mid, tp, &none), l);
            b = v_blend(up, b, mid);
            a = v_blend(up, mid, a);
        }
        v_store_u32(lo + i, l);
        v_store_u32(hi + i, bk_round_code(D, MF_ROUND_STOCHASTIC, O, 0, x, v_set1((1u << w) - 1u), tp, &none));
        v_store_u32(T + i, b);
    }
}

static void bk_sr_probe(mf_format d, mf_overflow o, const uint32_t *u, size_t n, uint32_t *lo, uint32_t *hi,
                          uint32_t *T)
{
#define BK_PROBE(D)                                                                                 \
    case D:                                                                                           \
        if (o == MF_OVERFLOW_SATURATE)                                                                \
            bk_sr_probe_t(D, MF_OVERFLOW_SATURATE, u, n, lo, hi, T);                                \
        else                                                                                          \
            bk_sr_probe_t(D, MF_OVERFLOW_IEEE, u, n, lo, hi, T);                                    \
        break;
    switch (d) {
        BK_PROBE(MF_FP16)
        BK_PROBE(MF_BF16)
        BK_PROBE(MF_FP8_E4M3)
        BK_PROBE(MF_FP8_E5M2)
        BK_PROBE(MF_FP6_E2M3)
        BK_PROBE(MF_FP6_E3M2)
        BK_PROBE(MF_FP4_E2M1)
        BK_PROBE(MF_E8M0)
    default: break;
    }
#undef BK_PROBE
}

/* elements [from, to) by the blocked path, as a call of their own (sr_offset moved along) */
static void bk_blocked_part(mf_format d, void *dst, mf_format s, const void *src, size_t from, size_t to,
                              const mf_opts *o)
{
    mf_opts po = *o;
    if (to <= from)
        return;
    po.sr_offset = o->sr_offset + from;
    bk_blocked(d, (uint8_t *)dst + mf__storage_bytes(d, from), s, (const uint8_t *)src + mf__storage_bytes(s, from),
                 to - from, &po, NULL);
}

__attribute__((noinline)) static int bk_lut_sr_run(mf_format d, void *dst, mf_format s, const void *src, size_t n,
                                                     const mf_opts *o)
{
    const int s4 = s == MF_FP4_E2M1, d4 = d == MF_FP4_E2M1, wide = d == MF_FP16 || d == MF_BF16;
    const size_t nc = s4 ? 16 : 256, db = d4 ? 0 : wide ? 2 : 1;
    const unsigned w = mf_sr_width(d), csr = v_csr_get();
    uint32_t u[256], lo[256], hi[256], T[256];
    uint8_t codes[256], tabs[512];
    uint16_t tab16[256];
    int never = 1, inc = 1, sym = 1, per64 = 1, stream;
    size_t i, head, nblk;
    k_philox_keys ks;
    for (i = 0; i < 256; i++)
        codes[i] = (uint8_t)(s4 ? (2 * i) | (2 * i + 1) << 4 : i); /* e2m1: codes 0..15 in the first 8 bytes */
    if ((csr & V_CSR_OWN) != V_CSR_BASE) /* the kernels' environment, as bk_blocked sets it */
        v_csr_set((csr & ~V_CSR_OWN) | V_CSR_BASE);
    bk_decode(s, u, codes, nc);
    bk_sr_probe(d, o->overflow, u, nc, lo, hi, T);
    if ((csr & V_CSR_OWN) != V_CSR_BASE)
        v_csr_set(csr);
    for (i = 0; i < 256; i++) { /* e2m1's 16 codes repeated */
        const size_t x = i % nc;
        never &= T[x] == 1u << w;
        inc &= T[x] == 1u << w || hi[x] == lo[x] + 1u; /* hi is the next code */
        sym &= T[x] == T[(i ^ 0x80) % nc];
        per64 &= T[x] == T[i % 64 % nc] && lo[x] == lo[i % 64 % nc];
        tabs[i] = (uint8_t)lo[x];
        tabs[256 + i] = (uint8_t)(T[x] - 1u); /* lo + 1 where r > T - 1 */
        tab16[i] = (uint16_t)lo[x];
    }
    if (!never && (wide || !inc))
        return 0;
    /* the first element: a Philox block's (its stream index a multiple of 16), even for e2m1, and where
     * it can be, the output's 64-byte boundary (non-temporal stores); never: the boundary alone */
    stream = bk_streams(d, n);
    {
        const size_t mis = (size_t)(-(uintptr_t)dst & 63u);
        const size_t align = d4 ? 2 * mis : db == 2 ? ((uintptr_t)dst & 1u ? 0 : mis / 2) : mis; /* elements */
        const size_t ph = (size_t)(-o->sr_offset & 15u);
        if (never) {
            head = align;
            stream = stream && (db != 2 || !((uintptr_t)dst & 1u)) && !(s4 && (head & 1));
            if (!stream)
                head = 0;
        } else {
            head = ph;
            if (stream && align % 16 == ph) /* both: the boundary, or a line further on */
                head = align;
            else
                stream = 0;
            if ((s4 || d4) && (head & 1))
                return 0; /* an odd sr_offset: a byte of packed e2m1 would be split */
        }
    }
    if (head > n)
        head = n;
    nblk = (n - head) / 64;
    bk_blocked_part(d, dst, s, src, 0, head, o);
    {
        const uint8_t *sp = (const uint8_t *)src + (s4 ? head / 2 : head);
        uint8_t *dp = (uint8_t *)dst + (d4 ? head / 2 : head * db);
        if (!never) {
            k_philox_keys_init(&ks, o->seed);
            hw_lut_sr8_loop(dp, sp, nblk, tabs, per64 ? HW_SR_PER64 : sym ? HW_SR_SYM : HW_SR_ANY, s4, d4, stream, &ks,
                            (o->sr_offset + head) >> 4);
        } else if (wide) {
            hw_lut16_loop((uint16_t *)dp, sp, nblk, tab16, s4, stream);
        } else {
            hw_lut8_loop(dp, sp, nblk, tabs, s4, d4, stream);
        }
    }
    bk_blocked_part(d, dst, s, src, head + 64 * nblk, n, o);
    return 1;
}

/* Every value of s is one of d's: sr never rounds (T = 2^w for every code) */
static int bk_values_within(mf_format s, mf_format d)
{
    const mf__fmt fs = mf__fmt_get(s), fd = mf__fmt_get(d);
    const int emax_s = (int)(mf__fmt_max_code(fs) >> fs.man) - fs.bias;
    const int emax_d = (int)(mf__fmt_max_code(fd) >> fd.man) - fd.bias;
    return emax_s <= emax_d && fs.man <= fd.man && mf__fmt_emin(fs) - fs.man >= mf__fmt_emin(fd) - fd.man;
}

/* bk_lut_sr_run declines f16 and bf16 results that sr can round (the tables hold one-byte codes) */
static int bk_lut_sr_ok(mf_format d, mf_format s, size_t n, const mf_opts *o)
{
    return n >= BK_LUT_SR_MIN && o->round == MF_ROUND_STOCHASTIC && bk_lut_pair(d, s) &&
           (!(d == MF_FP16 || d == MF_BF16) || bk_values_within(s, d));
}

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
    mf_opts wo = *o; /* sr: sr_offset is the stream index of hw_w16_loop's first element */
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
        wo.sr_offset = o->sr_offset + pre;
        hw_w16_loop(d, (uint8_t *)dst + mf__storage_bytes(d, pre), s, (const uint16_t *)src + pre, head - pre, &wo, 0);
    }
    wo.sr_offset = o->sr_offset + head;
    hw_w16_loop(d, (uint8_t *)dst + mf__storage_bytes(d, head), s, (const uint16_t *)src + head, m - head, &wo, stream);
    if (stream)
        v_stream_fence(); /* order the streaming stores before the caller's */
    bk_portable(d, dst, s, src, m, n, o, &none, 0);
}

/* The path of a call without statistics: the first that takes it, in this order. */
static int bk_path(mf_format d, mf_format s, size_t n, const mf_opts *o)
{
    if (bk_w16_ok(d, s, n, o))
        return MF__PATH_W16;
    if (bk_direct_kind(d, s, n, o) != BK_DIRECT_NONE)
        return MF__PATH_DIRECT;
    if (bk_lut_ok(d, s, n, o))
        return MF__PATH_LUT;
    if (bk_lut_sr_ok(d, s, n, o))
        return MF__PATH_LUT_SR;
    return bk_vectorizable(d, s, o, 0) ? MF__PATH_BLOCKED : MF__PATH_PORTABLE;
}

static void bk_run(int path, mf_format d, void *dst, mf_format s, const void *src, size_t n, const mf_opts *o)
{
    switch (path) {
    case MF__PATH_W16: bk_w16_run(d, dst, s, src, n, o); break;
    case MF__PATH_DIRECT: bk_direct_run(bk_direct_kind(d, s, n, o), d, dst, s, src, n, o); break;
    case MF__PATH_LUT: bk_lut_run(d, dst, s, src, n, o); break;
    case MF__PATH_LUT_SR:
        if (bk_lut_sr_run(d, dst, s, src, n, o))
            break;
        bk_blocked(d, dst, s, src, n, o, NULL); /* not reached: bk_lut_sr_ok knows what it declines */
        break;
    default: bk_blocked(d, dst, s, src, n, o, NULL); break; /* blocked, or portable within it */
    }
}


/* ---- ragged ends through a bounce buffer --------------------------------------------------------
 * The paths above give the elements after their last whole step (MF_VL elements; 64 with the byte
 * tables) to the portable backend, which costs far more an element than a vector path
 * (docs/perf/tuning.md). Without statistics and below the streaming size, a call with BK_BOUNCE_MIN or more
 * such elements converts them instead by the same paths in a zero-padded buffer of whole steps (an sr
 * element at the position its stream index has in its Philox block, so that the paths start on a
 * block and leave nothing to the portable backend) and copies out only their own
 * bytes (an odd e2m1 end keeps the high nibble of its last byte); that costs about what a short call
 * does. f16 -> f32 also takes a head up to the output's 64-byte boundary that way
 * (bk_head; other pairs ran as fast or slower, the extra call costing more than the split
 * accesses). Each result depends on its own code and, in sr, its stream index alone, so the bytes
 * are the portable backend's. A buffer is filled before the body and converted after it: a vector load of
 * bytes just written by narrower stores waits for them to reach the cache. */
enum { BK_GRAIN = 64, BK_BOUNCE_MIN = 6 };

typedef struct {
    uint64_t s[2 * BK_GRAIN], d[2 * BK_GRAIN]; /* 8 bytes an element at most */
    size_t from, t, q, m;                          /* elements [from, from + t) at position q of m */
} bk_end;

static void bk_end_in(bk_end *e, mf_format s, const void *src, size_t from, size_t to, const mf_opts *o)
{
    e->from = from;
    e->t = to - from;
    e->q = o->round == MF_ROUND_STOCHASTIC ? (size_t)((o->sr_offset + from) & 15u) : 0; /* even with e2m1 */
    e->m = (e->q + e->t + BK_GRAIN - 1) / BK_GRAIN * BK_GRAIN;
    memset(e->s, 0, mf__storage_bytes(s, e->m));
    memcpy((uint8_t *)e->s + mf__storage_bytes(s, e->q), (const uint8_t *)src + mf__storage_bytes(s, from), mf__storage_bytes(s, e->t));
}

__attribute__((noinline)) static void bk_end_run(bk_end *e, int path, mf_format d, mf_format s,
                                                   const mf_opts *o)
{
    mf_opts po = *o;
    po.sr_offset = o->sr_offset + e->from - e->q;
    bk_run(path, d, e->d, s, e->s, e->m, &po);
}

static void bk_end_out(const bk_end *e, mf_format d, void *dst)
{
    const size_t dq = mf__storage_bytes(d, e->q), dt = mf__storage_bytes(d, e->t);
    const uint8_t *b = (const uint8_t *)e->d + dq;
    uint8_t *out = (uint8_t *)dst + mf__storage_bytes(d, e->from);
    if (d == MF_FP4_E2M1 && (e->t & 1)) {
        memcpy(out, b, dt - 1);
        out[dt - 1] = (uint8_t)((out[dt - 1] & 0xF0u) | (b[dt - 1] & 0x0Fu));
    } else {
        memcpy(out, b, dt);
    }
}

/* the head: for f16 -> f32 from BK_HEAD_MIN elements, the elements before the output's 64-byte
 * boundary, which made misaligned calls faster. Not for f32 -> f16, whose head made them slower
 * (docs/perf/tuning.md). */
enum { BK_HEAD_MIN = 1024 };
static size_t bk_head(mf_format d, const void *dst, mf_format s, const void *src, size_t n, const mf_opts *o)
{
    const uintptr_t a = (uintptr_t)dst;
    (void)src;
    if (n < BK_HEAD_MIN || !(s == MF_FP16 && d == MF_FP32) || o->round == MF_ROUND_STOCHASTIC || (a & 3u))
        return 0;
    return (size_t)(-a & 63u) / 4;
}

__attribute__((noinline)) static void bk_split(const mf__plan *p, mf_format d, void *dst, mf_format s,
                                                 const void *src, size_t n, const mf_opts *o)
{
    bk_end head, tail;
    const size_t h = p->head, rest = p->head + p->body;
    if (h)
        bk_end_in(&head, s, src, 0, h, o);
    if (rest < n)
        bk_end_in(&tail, s, src, rest, n, o);
    if (p->body) {
        mf_opts bo = *o;
        bo.sr_offset = o->sr_offset + h;
        bk_run(p->path, d, (uint8_t *)dst + mf__storage_bytes(d, h), s, (const uint8_t *)src + mf__storage_bytes(s, h),
                 p->body, &bo);
    }
    if (h)
        bk_end_run(&head, p->ends_path, d, s, o);
    if (rest < n)
        bk_end_run(&tail, p->ends_path, d, s, o);
    if (h)
        bk_end_out(&head, d, dst);
    if (rest < n)
        bk_end_out(&tail, d, dst);
}

/* ---- the plan: every choice a call makes, made here ---------------------------------------------
 * With statistics, the blocked path (or the portable backend, where it does not vectorise); else a
 * head (bk_head) and a tail (the elements after the body's last whole step) that go through the
 * bounce buffers, each by the path bk_path gives for a buffer, and the body by the path it gives for
 * the body. The convert below only carries the plan out. */
const mf__backend BK_CAT(mf__backend_, BK_SYM);

static void BK_CAT(bk_plan_, BK_SYM)(mf__plan *p, mf_format d, const void *dst, mf_format s, const void *src,
                                            size_t n, const mf_opts *o, int count)
{
    mf_opts bo;
    p->backend = &BK_CAT(mf__backend_, BK_SYM);
    p->head = p->tail = 0;
    p->body = n;
    p->ends_path = MF__PATH_NONE;
    p->stream = bk_streams(d, n);
    if (count) {
        p->path = bk_vectorizable(d, s, o, 1) ? MF__PATH_BLOCKED : MF__PATH_PORTABLE;
        return;
    }
    if (!((n < BK_HEAD_MIN && n % MF_VL < BK_BOUNCE_MIN) || !bk_vectorizable(d, s, o, 0) || p->stream)) {
        const size_t step =
            bk_lut_pair(d, s) && n >= (o->round == MF_ROUND_STOCHASTIC ? BK_LUT_SR_MIN : BK_LUT_MIN)
                ? 64 /* the paths' whole steps */
                : MF_VL;
        p->head = bk_head(d, dst, s, src, n, o);
        p->body = n - p->head;
        if (p->body % step >= BK_BOUNCE_MIN)
            p->body -= p->body % step;
        p->tail = n - p->head - p->body;
    }
    if (p->head || p->tail) { /* a buffer holds BK_GRAIN or 2 * BK_GRAIN elements from a Philox block start */
        bo = *o;
        bo.sr_offset = (o->sr_offset + p->head + p->body) & ~(uint64_t)15;
        p->ends_path = bk_path(d, s, BK_GRAIN, &bo);
    }
    if (p->head) {
        bo = *o;
        bo.sr_offset = o->sr_offset + p->head;
        p->path = bk_path(d, s, p->body, &bo);
    } else {
        p->path = bk_path(d, s, p->body, o);
    }
}

static void BK_CAT(bk_convert_, BK_SYM)(mf_format d, void *dst, mf_format s, const void *src, size_t n,
                                               const mf_opts *o, mf_stats *st)
{
    mf__plan p;
    BK_CAT(bk_plan_, BK_SYM)(&p, d, dst, s, src, n, o, st != NULL);
    if (st)
        bk_blocked(d, dst, s, src, n, o, st); /* the portable backend within it, where it must */
    else if (p.head || p.tail)
        bk_split(&p, d, dst, s, src, n, o);
    else
        bk_run(p.path, d, dst, s, src, n, o);
}

/* The pairs this backend converts itself (bit d of own[s]); the others go to its parent. A backend's
 * configuration that changes only some pairs defines BK_OWN_DSTS(s) and BK_PARENT. */
#ifndef BK_OWN_DSTS
#define BK_OWN_DSTS(s) 0xFFFFu
#define BK_PARENT mf__backend_portable
#endif
extern const mf__backend BK_PARENT;

const mf__backend BK_CAT(mf__backend_, BK_SYM) = {
    BK_STR(BK_SYM),
    &BK_PARENT,
    {[MF_FP32] = BK_OWN_DSTS(MF_FP32), [MF_FP64] = BK_OWN_DSTS(MF_FP64), [MF_FP16] = BK_OWN_DSTS(MF_FP16),
     [MF_BF16] = BK_OWN_DSTS(MF_BF16), [MF_FP8_E4M3] = BK_OWN_DSTS(MF_FP8_E4M3),
     [MF_FP8_E5M2] = BK_OWN_DSTS(MF_FP8_E5M2), [MF_FP6_E2M3] = BK_OWN_DSTS(MF_FP6_E2M3),
     [MF_FP6_E3M2] = BK_OWN_DSTS(MF_FP6_E3M2), [MF_FP4_E2M1] = BK_OWN_DSTS(MF_FP4_E2M1),
     [MF_E8M0] = BK_OWN_DSTS(MF_E8M0)},
    BK_CAT(bk_convert_, BK_SYM),
    BK_CAT(bk_plan_, BK_SYM)};

#endif /* MF_SIMD_BACKEND_PATHS_H */
