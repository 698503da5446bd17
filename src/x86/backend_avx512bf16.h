/* SPDX-License-Identifier: MIT */
/* src/x86/backend_avx512bf16.h - the avx512bf16 backend's configuration: the AVX-512 backend's hooks plus
 * AVX512_BF16's vcvtneps2bf16 (f32 -> bf16 rn) and, with BK_PATHS, AVX512_VBMI's byte tables. It
 * converts only the pairs those change (BK_OWN_DSTS) and inherits the rest from avx512. Compiled with the
 * AVX-512 flags and -mavx512bf16 -mavx512vbmi. */
#ifndef MF_X86_BACKEND_AVX512BF16_H
#define MF_X86_BACKEND_AVX512BF16_H
#define V_HAS_VBMI 1 /* this backend also requires AVX512_VBMI (cpuid.c) */
#include "vec_avx512.h"

#include "../simd/kernels.h"
#include "avx512_hooks.h"

/* vcvtneps2bf16 flushes binary32 subnormal inputs to zero and keeps NaN payloads: a vector holding
 * either takes the integer kernel instead (both are rare in real data, and the test is one
 * vfpclassps). */
MF_V vm hw_bf16_special(vu u)
{
    return _mm512_fpclass_ps_mask(_mm512_castsi512_ps(u), 0xA1); /* QNaN, denormal, SNaN */
}

MF_V void hw_bf16_plain(uint16_t *p, vu u)
{
    _mm256_storeu_si256((__m256i *)p, (__m256i)_mm512_cvtneps_pbh(_mm512_castsi512_ps(u)));
}

/* vcvtne2ps2bf16: two vectors in one instruction and one 64-byte store (v's codes go high) */
MF_V void hw_bf16_plain2(uint16_t *p, vu u, vu v)
{
    _mm512_storeu_si512(p, (__m512i)_mm512_cvtne2ps_pbh(_mm512_castsi512_ps(v), _mm512_castsi512_ps(u)));
}

/* NaN lanes alone (the common case: f16 sources have no binary32 subnormals) take the NaN code over
 * the instruction's result; a subnormal lane sends the vector through the integer kernel */
MF_V void hw_bf16_fix(uint16_t *p, vu u)
{
    const __m512 x = _mm512_castsi512_ps(u);
    __mmask16 nan;
    if (_mm512_fpclass_ps_mask(x, 0x20)) { /* denormal */
        v_store_u16(p, k_round_bf16(u, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, v_zero()));
        return;
    }
    hw_bf16_plain(p, u);
    nan = _mm512_fpclass_ps_mask(x, 0x81); /* QNaN, SNaN */
    if (nan)
        _mm256_mask_storeu_epi16(p, nan, _mm256_set1_epi16((short)mf__fmt_nan_code(mf__fmt_get(MF_BF16))));
}

/* vfpclassps reads a denormal as zero under DAZ, so hw_bf16_special holds only with DAZ clear. A call
 * that does not set MXCSR (bk_direct) asks the instruction itself, about one denormal (cheaper
 * than reading MXCSR back). */
MF_V int hw_bf16_direct_ok(void)
{
    __m128 d = _mm_castsi128_ps(_mm_cvtsi32_si128(1));
    __asm__("" : "+x"(d)); /* a run-time question: keep compilers from answering it */
    return _mm_fpclass_ss_mask(d, 0x20) != 0;
}
#define BK_HW_BF16 1

/* The pairs this backend converts itself: every destination bf16 (vcvtneps2bf16) and the byte-table
 * pairs (vpermt2b: a one-byte or e2m1 source into another of those, f16 or bf16; bk_lut_pair);
 * avx512 converts the rest. */
#define BK_BIT(f) ((uint64_t)1 << (f))
#define BK_OWN_DSTS(s)                                                                                    \
    ((K_FMTS >> (s) & 1u ? BK_BIT(MF_BF16) : 0u) |                                                        \
     (K_BYTE_FMTS >> (s) & 1u ? (K_BYTE_FMTS | BK_BIT(MF_FP16)) & ~BK_BIT(s) : 0u))
#define BK_PARENT mf__backend_avx512
/* its round kernel into bf16 differs from avx512's only in rn without statistics (vcvtneps2bf16) */
#define BK_ROUND_CHANGES(r, count) ((r) == MF_ROUND_NEAREST_EVEN && !(count))

#ifdef BK_PATHS
/* ---- byte-code tables (AVX512_VBMI): 256 entries in four registers, 64 lookups in four ops ---------- */
MF_V __m512i hw_lut256(__m512i idx, const __m512i *t)
{
    const __m512i a = _mm512_permutex2var_epi8(t[0], idx, t[1]); /* bits 0..6 of idx */
    const __m512i b = _mm512_permutex2var_epi8(t[2], idx, t[3]);
    return _mm512_mask_blend_epi8(_mm512_movepi8_mask(idx), a, b); /* bit 7 chooses */
}

/* 64 table indices: 64 source bytes, or (s4) 32 bytes of packed e2m1 codes, element 2i in bits 0..3.
 * A byte source sh bytes past a 64-byte boundary is read, but for the first and last of its nblk blocks,
 * as two aligned lines joined by vpermt2b (shidx = sh, sh + 1, ...): each unaligned 64-byte load splits
 * across two lines, which slowed DRAM-bound calls (docs/perf/tuning.md); the output's alignment comes first,
 * for the streaming stores; the aligned loads never leave the source's own bytes. */
MF_V __m512i hw_lut_idx(const uint8_t *src, size_t blk, const int s4, size_t nblk, size_t sh, __m512i shidx)
{
    __m512i w;
    if (!s4 && (!sh || blk == 0 || blk + 1 == nblk))
        return _mm512_loadu_si512(src + 64 * blk);
    if (!s4)
        return _mm512_permutex2var_epi8(_mm512_load_si512(src - sh + 64 * blk), shidx,
                                        _mm512_load_si512(src - sh + 64 * blk + 64));
    w = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(src + 32 * blk)));
    return _mm512_or_si512(_mm512_and_si512(w, _mm512_set1_epi16(0x000F)),
                           _mm512_and_si512(_mm512_slli_epi16(w, 4), _mm512_set1_epi16(0x0F00)));
}

/* nblk blocks of 64 elements: dst = tab[index] as bytes, or (d4) as packed e2m1 codes; stream:
 * non-temporal stores (dst 64-byte aligned) */
MF_V __m512i hw_lut_shidx(size_t sh)
{
    return _mm512_add_epi8(_mm512_set1_epi8((char)sh),
                           _mm512_set_epi8(63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44,
                                           43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25,
                                           24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4,
                                           3, 2, 1, 0));
}

/* block b's 64 one-byte results r, as bytes or (d4) packed e2m1 codes */
MF_V void hw_lut_store8(uint8_t *dst, size_t b, __m512i r, const int d4, const int stream)
{
    if (d4) { /* pairs (even, odd) -> even + 16 * odd, one byte each */
        const __m256i p = _mm512_cvtepi16_epi8(_mm512_maddubs_epi16(r, _mm512_set1_epi16(0x1001)));
        if (stream)
            _mm256_stream_si256((__m256i *)(dst + 32 * b), p);
        else
            _mm256_storeu_si256((__m256i *)(dst + 32 * b), p);
    } else if (stream) {
        _mm512_stream_si512((void *)(dst + 64 * b), r);
    } else {
        _mm512_storeu_si512(dst + 64 * b, r);
    }
}

static void hw_lut8_loop(uint8_t *dst, const uint8_t *src, size_t nblk, const uint8_t *tab, int s4, int d4, int stream)
{
    __m512i t[4];
    const size_t sh = (uintptr_t)src & 63u;
    const __m512i shidx = hw_lut_shidx(sh);
    size_t b, j;
    for (j = 0; j < 4; j++)
        t[j] = _mm512_loadu_si512(tab + 64 * j);
#define HW_LUT8_BODY(S4, D4, STREAM)                                                                  \
    for (b = 0; b < nblk; b++)                                                                        \
        hw_lut_store8(dst, b, hw_lut256(hw_lut_idx(src, b, S4, nblk, sh, shidx), t), D4, STREAM);
    if (stream) {
        if (d4) {
            HW_LUT8_BODY(0, 1, 1)
        } else if (s4) {
            HW_LUT8_BODY(1, 0, 1)
        } else {
            HW_LUT8_BODY(0, 0, 1)
        }
        _mm_sfence();
    } else if (d4) {
        HW_LUT8_BODY(0, 1, 0)
    } else if (s4) {
        HW_LUT8_BODY(1, 0, 0)
    } else {
        HW_LUT8_BODY(0, 0, 0)
    }
#undef HW_LUT8_BODY
}

/* the same for 16-bit results: a table of low bytes and one of high bytes, interleaved by
 * vpunpck[lh]bw, whose 128-bit lanes the indices are first permuted for (vpermb) */
static void hw_lut16_loop(uint16_t *dst, const uint8_t *src, size_t nblk, const uint16_t *tab, int s4, int stream)
{
    __m512i lo[4], hi[4], perm;
    const size_t sh = (uintptr_t)src & 63u;
    const __m512i shidx = hw_lut_shidx(sh);
    uint8_t p[64];
    size_t b, j;
    for (j = 0; j < 4; j++) {
        const __m512i w0 = _mm512_loadu_si512(tab + 64 * j), w1 = _mm512_loadu_si512(tab + 64 * j + 32);
        lo[j] = _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi16_epi8(w0)), _mm512_cvtepi16_epi8(w1), 1);
        hi[j] = _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi16_epi8(_mm512_srli_epi16(w0, 8))),
                                   _mm512_cvtepi16_epi8(_mm512_srli_epi16(w1, 8)), 1);
    }
    for (j = 0; j < 64; j++) /* lane l of the low unpack gets elements 8l..8l+7, of the high one 32+8l.. */
        p[j] = (uint8_t)((j & 8) ? 32 + (j >> 4) * 8 + (j & 7) : (j >> 4) * 8 + (j & 7));
    perm = _mm512_loadu_si512(p);
#define HW_LUT16_BODY(S4, STREAM)                                                                     \
    for (b = 0; b < nblk; b++) {                                                                      \
        const __m512i x = _mm512_permutexvar_epi8(perm, hw_lut_idx(src, b, S4, nblk, sh, shidx));                      \
        const __m512i l = hw_lut256(x, lo), h = hw_lut256(x, hi);                                     \
        if (STREAM) {                                                                                 \
            _mm512_stream_si512((void *)(dst + 64 * b), _mm512_unpacklo_epi8(l, h));                  \
            _mm512_stream_si512((void *)(dst + 64 * b + 32), _mm512_unpackhi_epi8(l, h));             \
        } else {                                                                                      \
            _mm512_storeu_si512(dst + 64 * b, _mm512_unpacklo_epi8(l, h));                            \
            _mm512_storeu_si512(dst + 64 * b + 32, _mm512_unpackhi_epi8(l, h));                       \
        }                                                                                             \
    }
    if (stream) {
        if (s4) {
            HW_LUT16_BODY(1, 1)
        } else {
            HW_LUT16_BODY(0, 1)
        }
        _mm_sfence();
    } else if (s4) {
        HW_LUT16_BODY(1, 0)
    } else {
        HW_LUT16_BODY(0, 0)
    }
#undef HW_LUT16_BODY
}

/* ---- sr through tables (bk_lut_sr) ---------------------------------------------------------------
 * nblk blocks of 64 elements into a one-byte format or e2m1 with 8 random bits an element. tabs holds
 * 256 bytes each of lo and thr: an element with code x takes lo[x] + 1 where its random byte exceeds
 * thr[x], else lo[x]. Block b's bytes are the Philox words of blocks pb + 4b .. pb + 4b + 3 in order,
 * byte e for element e (minifloat/philox.h, 8 bits an element, pb the first element's stream index / 16).
 * The tables' shape (cls) saves lookups: HW_SR_PER64, both repeat every 64 codes (e2m1 and the fp6
 * sources: one vpermb each); HW_SR_SYM, thr does not depend on the sign bit (fp8: one vpermi2b); else
 * four operations each. Philox takes most of the time: 30 operations a block against 4-8 for the rest.
 * HW_SR_G blocks a step, their Philox rounds interleaved: a round waits on its multiplication. */
enum { HW_SR_G = 16 }; /* the fastest of 4, 8, 16 and 32 on DRAM; prefetching did not help (docs/perf/tuning.md) */
enum { HW_SR_ANY, HW_SR_SYM, HW_SR_PER64 };

MF_V void hw_lut_sr_one(uint8_t *dst, const uint8_t *src, size_t b, size_t nblk, size_t sh, __m512i shidx,
                        const __m512i *t, __m512i rnd, const int cls, const int s4, const int d4, const int stream)
{
    const __m512i x = hw_lut_idx(src, b, s4, nblk, sh, shidx);
    const __m512i lo = cls == HW_SR_PER64 ? _mm512_permutexvar_epi8(x, t[0]) : hw_lut256(x, t);
    const __m512i thr = cls == HW_SR_PER64 ? _mm512_permutexvar_epi8(x, t[4])
                      : cls == HW_SR_SYM   ? _mm512_permutex2var_epi8(t[4], x, t[5])
                                           : hw_lut256(x, t + 4);
    hw_lut_store8(dst, b, _mm512_mask_sub_epi8(lo, _mm512_cmpgt_epu8_mask(rnd, thr), lo, _mm512_set1_epi8(-1)), d4,
                  stream);
}

MF_V void hw_lut_sr8_t(uint8_t *dst, const uint8_t *src, size_t nblk, const __m512i *t, const k_philox_keys *ks,
                       uint64_t pb, const int cls, const int s4, const int d4, const int stream)
{
    const size_t sh = (uintptr_t)src & 63u;
    const __m512i shidx = hw_lut_shidx(sh);
    size_t b = 0;
    int j, r;
    for (; b + HW_SR_G <= nblk; b += HW_SR_G) {
        __m512i w[HW_SR_G];
        const uint64_t q = pb + 4 * (uint64_t)b;
        if ((uint32_t)q <= 0xFFFFFFFFu - 4 * HW_SR_G) { /* no lane's low counter word wraps: stepped in registers */
            w[0] = k_philox_counters(q, 2);
            for (j = 1; j < HW_SR_G; j++)
                w[j] = v_add(w[j - 1], v_philox_step());
        } else {
            for (j = 0; j < HW_SR_G; j++)
                w[j] = k_philox_counters(q + 4 * (uint64_t)j, 2);
        }
        for (r = 0; r < 9; r++)
            for (j = 0; j < HW_SR_G; j++)
                w[j] = v_philox_round(w[j], ks->k[r]);
        for (j = 0; j < HW_SR_G; j++)
            hw_lut_sr_one(dst, src, b + (size_t)j, nblk, sh, shidx, t, v_philox_last(w[j], ks->k[9]), cls, s4, d4,
                          stream);
    }
    for (; b < nblk; b++)
        hw_lut_sr_one(dst, src, b, nblk, sh, shidx, t, k_philox(k_philox_counters(pb + 4 * (uint64_t)b, 2), ks), cls,
                      s4, d4, stream);
}

/* the instantiations: e2m1 sources are HW_SR_PER64, and an e2m1 source never meets an e2m1 result */
MF_V void hw_lut_sr8_s(uint8_t *dst, const uint8_t *src, size_t nblk, const __m512i *t, const k_philox_keys *ks,
                       uint64_t pb, int cls, int s4, int d4, const int stream)
{
    if (s4)
        hw_lut_sr8_t(dst, src, nblk, t, ks, pb, HW_SR_PER64, 1, 0, stream);
    else if (cls == HW_SR_PER64)
        d4 ? hw_lut_sr8_t(dst, src, nblk, t, ks, pb, HW_SR_PER64, 0, 1, stream)
           : hw_lut_sr8_t(dst, src, nblk, t, ks, pb, HW_SR_PER64, 0, 0, stream);
    else if (cls == HW_SR_SYM)
        d4 ? hw_lut_sr8_t(dst, src, nblk, t, ks, pb, HW_SR_SYM, 0, 1, stream)
           : hw_lut_sr8_t(dst, src, nblk, t, ks, pb, HW_SR_SYM, 0, 0, stream);
    else
        d4 ? hw_lut_sr8_t(dst, src, nblk, t, ks, pb, HW_SR_ANY, 0, 1, stream)
           : hw_lut_sr8_t(dst, src, nblk, t, ks, pb, HW_SR_ANY, 0, 0, stream);
}

static void hw_lut_sr8_loop(uint8_t *dst, const uint8_t *src, size_t nblk, const uint8_t *tabs, int cls, int s4,
                            int d4, int stream, const k_philox_keys *ks, uint64_t pb)
{
    __m512i t[8];
    int j;
    for (j = 0; j < 8; j++)
        t[j] = _mm512_loadu_si512(tabs + 64 * j);
    if (stream) {
        hw_lut_sr8_s(dst, src, nblk, t, ks, pb, cls, s4, d4, 1);
        _mm_sfence();
    } else {
        hw_lut_sr8_s(dst, src, nblk, t, ks, pb, cls, s4, d4, 0);
    }
}
#define BK_HW_LUT 1
#endif /* BK_PATHS */

#endif /* MF_X86_BACKEND_AVX512BF16_H */
