/* src/x86/room_avx512bf16.c - the AVX-512 room plus AVX512_BF16's vcvtneps2bf16 for f32 -> bf16 rn.
 * Built with the AVX-512 flags and -mavx512bf16. */
#include "vec_avx512.h"

#include "kernels.h"
#include "room_avx512_hw.h"

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

MF_V void hw_bf16_fix(uint16_t *p, vu u)
{
    if (hw_bf16_special(u))
        v_store_u16(p, k_round(u, MF_BF16, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, v_zero(), 0, NULL));
    else
        hw_bf16_plain(p, u);
}

/* vfpclassps reads a denormal as zero under DAZ, so hw_bf16_special holds only with DAZ clear. A call
 * that does not set MXCSR (room_direct) asks the instruction itself, about one denormal (cheaper
 * than reading MXCSR back). */
MF_V int hw_bf16_direct_ok(void)
{
    __m128 d = _mm_castsi128_ps(_mm_cvtsi32_si128(1));
    __asm__("" : "+x"(d)); /* a run-time question: keep compilers from answering it */
    return _mm_fpclass_ss_mask(d, 0x20) != 0;
}
#define ROOM_HW_BF16 1

/* ---- byte-code tables (AVX512_VBMI): 256 entries in four registers, 64 lookups in four ops ---------- */
MF_V __m512i hw_lut256(__m512i idx, const __m512i *t)
{
    const __m512i a = _mm512_permutex2var_epi8(t[0], idx, t[1]); /* bits 0..6 of idx */
    const __m512i b = _mm512_permutex2var_epi8(t[2], idx, t[3]);
    return _mm512_mask_blend_epi8(_mm512_movepi8_mask(idx), a, b); /* bit 7 chooses */
}

/* dst[i] = tab[src[i]]; stream: non-temporal stores from the first 64-byte boundary of dst */
static void hw_lut8_loop(uint8_t *dst, const uint8_t *src, size_t n, const uint8_t *tab, int stream)
{
    __m512i t[4];
    size_t i = 0, j;
    for (j = 0; j < 4; j++)
        t[j] = _mm512_loadu_si512(tab + 64 * j);
    if (stream) {
        const size_t head = (size_t)(-(uintptr_t)dst & 63u);
        for (; i < head && i < n; i++)
            dst[i] = tab[src[i]];
        for (; i + 64 <= n; i += 64)
            _mm512_stream_si512((void *)(dst + i), hw_lut256(_mm512_loadu_si512(src + i), t));
        _mm_sfence();
    }
    for (; i + 64 <= n; i += 64)
        _mm512_storeu_si512(dst + i, hw_lut256(_mm512_loadu_si512(src + i), t));
    for (; i < n; i++)
        dst[i] = tab[src[i]];
}

/* dst[i] = tab[src[i]] for 16-bit results: a table of low bytes and one of high bytes, interleaved
 * by vpunpck[lh]bw, whose 128-bit lanes the source bytes are first permuted for (vpermb) */
static void hw_lut16_loop(uint16_t *dst, const uint8_t *src, size_t n, const uint16_t *tab, int stream)
{
    __m512i lo[4], hi[4], perm;
    uint8_t p[64];
    size_t i = 0, j;
    for (j = 0; j < 4; j++) {
        const __m512i w0 = _mm512_loadu_si512(tab + 64 * j), w1 = _mm512_loadu_si512(tab + 64 * j + 32);
        lo[j] = _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi16_epi8(w0)), _mm512_cvtepi16_epi8(w1), 1);
        hi[j] = _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi16_epi8(_mm512_srli_epi16(w0, 8))),
                                   _mm512_cvtepi16_epi8(_mm512_srli_epi16(w1, 8)), 1);
    }
    for (j = 0; j < 64; j++) /* lane l of the low unpack gets elements 8l..8l+7, of the high one 32+8l.. */
        p[j] = (uint8_t)((j & 8) ? 32 + (j >> 4) * 8 + (j & 7) : (j >> 4) * 8 + (j & 7));
    perm = _mm512_loadu_si512(p);
    stream = stream && ((uintptr_t)dst & 1u) == 0;
    if (stream)
        for (; i < n && ((uintptr_t)(dst + i) & 63u); i++)
            dst[i] = tab[src[i]];
    for (; i + 64 <= n; i += 64) {
        const __m512i x = _mm512_permutexvar_epi8(perm, _mm512_loadu_si512(src + i));
        const __m512i l = hw_lut256(x, lo), h = hw_lut256(x, hi);
        if (stream) {
            _mm512_stream_si512((void *)(dst + i), _mm512_unpacklo_epi8(l, h));
            _mm512_stream_si512((void *)(dst + i + 32), _mm512_unpackhi_epi8(l, h));
        } else {
            _mm512_storeu_si512(dst + i, _mm512_unpacklo_epi8(l, h));
            _mm512_storeu_si512(dst + i + 32, _mm512_unpackhi_epi8(l, h));
        }
    }
    if (stream)
        _mm_sfence();
    for (; i < n; i++)
        dst[i] = tab[src[i]];
}
#define ROOM_HW_LUT 1

#define ROOM_SYM avx512bf16
#include "room.h"
