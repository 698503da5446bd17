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
 *                                conversions hw_w16_ok takes (optional; bk_w16), from the w16 header's
 *                                hw_w16_ok, hw_w16_has(S, D, R) and hw_w16_one(S, D, R, O, ...) by
 *                                src/simd/w16.c, in a unit of their own: AVX-512, fp8/fp6/fp4/e8m0
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
    switch (d) { /* f16 qualifies too but has its own instructions */
#define MF__FORMAT(e, value, tag, bits, man, bias, kind, storage, ...) K_IF_BYTE_##storage(case e : return k_rn_tab_ok(e);)
#include <minifloat/formats.inc>
#undef MF__FORMAT
    default: return 0;
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
        bk_hw16_loop(MF_FP16, 1, p, src, n, MF_ROUND_NEAREST_EVEN, sat, NULL);
        return 1;
    }
    if (s != MF_BF16 || d != MF_FP16)
        return 0;
    switch (o->round) {
    case MF_ROUND_NEAREST_EVEN: bk_hw16_loop(MF_BF16, 0, p, src, n, MF_ROUND_NEAREST_EVEN, sat, NULL); return 1;
    case MF_ROUND_TOWARD_ZERO: bk_hw16_loop(MF_BF16, 0, p, src, n, MF_ROUND_TOWARD_ZERO, sat, NULL); return 1;
    case MF_ROUND_UP: bk_hw16_loop(MF_BF16, 0, p, src, n, MF_ROUND_UP, sat, NULL); return 1;
    case MF_ROUND_DOWN: bk_hw16_loop(MF_BF16, 0, p, src, n, MF_ROUND_DOWN, sat, NULL); return 1;
    default: return 0;
    }
}

/* The backend's round kernels, one per destination (round.c): its own, or its parent's where the
 * backend changes nothing for that destination. BK_ROUND_<tag> names them (backend.c). */
#define BK_ROUND_DECL(fn)                                                                                 \
    void fn(void *dst, const uint32_t *src, size_t n, mf_round r, mf_overflow o, int count,               \
            const k_philox_keys *ks, uint64_t idx0, k_counts *ct);
#define MF__FORMAT(e, value, tag, bits, man, bias, kind, storage, ...) K_IF_NARROW_##storage(BK_ROUND_DECL(BK_ROUND_##tag))
#include <minifloat/formats.inc>
#undef MF__FORMAT
#undef BK_ROUND_DECL

static void bk_round(mf_format d, void *dst, const uint32_t *src, size_t n, mf_round r, mf_overflow o, int count,
                       const k_philox_keys *ks, uint64_t idx0, k_counts *ct)
{
    static const bk_round_fn by_dst[MF_FORMAT_COUNT] = {
#define MF__FORMAT(e, value, tag, bits, man, bias, kind, storage, ...) K_IF_NARROW_##storage([e] = BK_ROUND_##tag, )
#include <minifloat/formats.inc>
#undef MF__FORMAT
    };
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
        else if (mf__fmt_store_bits(S) == 4)
            c = v_load_u4((const uint8_t *)src + i / 2);
        else if (mf__fmt_get(S).bits < 8) /* fp6: the code in a byte's low bits */
            c = v_and(v_load_u8((const uint8_t *)src + i), v_set1((1u << mf__fmt_get(S).bits) - 1u));
        else
            c = v_load_u8((const uint8_t *)src + i);
        v_store_u32(out + i, k_decode(c, S));
    }
}

static void bk_decode(mf_format s, uint32_t *out, const void *src, size_t n)
{
    hw_decode_prepare();
    switch (s) {
#define MF__FORMAT(e, value, tag, bits, man, bias, kind, storage, ...)                                      \
    K_IF_NARROW_##storage(case e : if (K_FMTS >> (e) & 1u) bk_decode_loop(e, out, src, n); break;)
#include <minifloat/formats.inc>
#undef MF__FORMAT
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

/* The options of the elements from `from` on, converted as a call of their own: sr_offset moved along
 * (every part of a call is re-based by this one function). */
static mf_opts bk_opts_at(const mf_opts *o, uint64_t from)
{
    mf_opts r = *o;
    r.sr_offset = o->sr_offset + from;
    return r;
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
    po = bk_opts_at(o, from);
    /* from is even here, so packed e2m1 starts on a whole byte */
    sb = mf__storage_bytes(s, from);
    db = mf__storage_bytes(d, from);
    mf__backend_portable.convert(d, (uint8_t *)dst + db, s, (const uint8_t *)src + sb, to - from, &po, count ? &st : NULL);
    if (count) {
        ct->ovf += st.overflow;
        ct->unf += st.underflow;
        ct->sub += st.subnormal;
        ct->nan += st.nan;
        ct->inx += st.inexact;
    }
}


#include "path_direct.h"
#include "path_blocked.h"
#include "path_lut.h"
#include "path_w16.h"
#include "path_choice.h"
#include "path_ends.h"
#include "plan.h"

#endif /* MF_SIMD_BACKEND_PATHS_H */
