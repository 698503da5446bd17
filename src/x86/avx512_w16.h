/* SPDX-License-Identifier: MIT */
/* src/x86/avx512_w16.h - f16 or bf16 -> fp8, fp6, fp4 or e8m0, and bf16 -> f16, in 16-bit lanes
 * (AVX512BW), for the AVX-512 backends (src/simd/backend_paths.h: BK_HW_W16;
 * src/simd/path_w16.h: bk_w16_run).
 *
 * Every mode, both policies, no statistics (sr: into the formats that take 8 random bits, not f16). The
 * source is not widened: 32 codes a vector, integer operations only, so no MXCSR either. Widening to
 * binary32 first (bk_tab_loop) halves the elements an instruction serves, and these calls were
 * compute-bound on DRAM, below memcpy's rate (docs/perf/tuning.md).
 *
 * The rounding is mf__round_pack's for a 16-bit source (S: man m, bias b) and a target D (man M, bias B),
 * with K = b - B >= 0 and a = |x| as bits:
 *   - in D's normal range, a - (K << m) is D's code scaled by 2^(m - M): shift it right by m - M with the
 *     mode's rounding, and a carry runs into the exponent as it should;
 *   - below it, a - (d << m) with d = max(exponent field, 1) - 1 is the significand (implicit bit
 *     included), and the shift grows by K - d; the code it gives is D's subnormal code, and a carry out
 *     of the top subnormal is the smallest normal code.
 * d = min(max(field, 1) - 1, K) covers both. Shifts beyond 15 are cut to 15: the significand is below
 * 2^12, so the result is 0 or the smallest code either way, and 15 keeps t + 2^15 - 1 in 16 bits.
 * sr reads only the discarded fraction's top 8 bits (up iff floor(f * 2^8) + r >= 2^8): t is taken up
 * to a shift of at least 8 (clamped, as for bf16 -> f16), and (t >> (shift - 8) + r) >> 8 is the code.
 * Its shifts are not cut: far below the smallest subnormal, those top bits are still t >> (shift - 8),
 * exactly 0 from a shift of 16 on (vpsrlvw), and up to there they can round up.
 * Zeros come out as zeros (t = 0). Infinities and NaNs come out of the shift as overflows and are then
 * set as mf__round_pack sets them. */
#ifndef MF_X86_AVX512_W16_H
#define MF_X86_AVX512_W16_H

MF_V __m512i hw_w16_set(unsigned v) { return _mm512_set1_epi16((short)v); }

/* per shift s (0..15, vpermw indices): 2^(s-1) - 1, 2^(s-1) and 2^s - 1 */
static const uint16_t hw_w16_tabs[3][32] __attribute__((aligned(64))) = {
    {0, 0, 1, 3, 7, 15, 31, 63, 127, 255, 511, 1023, 2047, 4095, 8191, 16383},
    {0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384},
    {0, 1, 3, 7, 15, 31, 63, 127, 255, 511, 1023, 2047, 4095, 8191, 16383, 32767}};

MF_V __m512i hw_w16_tab(int which, __m512i sh)
{
    return _mm512_permutexvar_epi16(sh, _mm512_load_si512(hw_w16_tabs[which]));
}

/* 32 codes of S (f16 or bf16) -> 32 codes of D (e4m3, e5m2, e2m3, e3m2, e2m1; f16 from bf16), one a 16-bit
 * lane (e8m0: hw_w16_e8m0 below) */
MF_V __m512i hw_w16_round(const __m512i x, const mf_format S, const mf_format D, const mf_round R, const mf_overflow O,
                          const __m512i rnd)
{
    const mf__fmt fs = mf__fmt_get(S), fd = mf__fmt_get(D);
    /* L: bf16 -> f16 gains mantissa bits (sh0 = -3); t is taken 4 places up, below 2^16 once clamped
     * where it overflows anyway, so that every shift is at least 1 (the rn addend needs one); sr takes it
     * up to a shift of 8, clamped where adding r could leave 16 bits (a clamped t gives 255 > max) */
    const int sr = R == MF_ROUND_STOCHASTIC, lo = sr ? 8 : 1, K = fs.bias - fd.bias;
    const int L = fs.man - fd.man < lo ? lo - (fs.man - fd.man) : 0, sh0 = fs.man - fd.man + L;
    const int clamp = L && (!sr || ((0x7FFFu - ((unsigned)K << fs.man)) << L) + 255u > 0xFFFFu);
    const unsigned maxc = (unsigned)mf__fmt_max_code(fd), inf_s = (unsigned)mf__fmt_inf_code(fs);
    const int ieee = !k_sat_like(D, O); /* IEEE policy, and D has an infinity or a NaN */
    const __m512i a = _mm512_and_si512(x, hw_w16_set(0x7FFF));
    const __m512i dd = _mm512_min_epu16(_mm512_subs_epu16(_mm512_srli_epi16(a, fs.man), hw_w16_set(1)), hw_w16_set((unsigned)K));
    const __m512i t0 = _mm512_sub_epi16(a, _mm512_slli_epi16(dd, fs.man));
    const __m512i t = clamp ? _mm512_slli_epi16(_mm512_min_epu16(t0, hw_w16_set((sr ? 0xFF00u : 0xFFFFu) >> L)), L)
                      : L   ? _mm512_slli_epi16(t0, L)
                            : t0;
    /* sr: the shift less 8, uncut */
    const __m512i sh = sr ? _mm512_sub_epi16(hw_w16_set((unsigned)(sh0 - 8 + K)), dd)
                          : _mm512_min_epu16(_mm512_sub_epi16(hw_w16_set((unsigned)(sh0 + K)), dd), hw_w16_set(15));
    const __mmask32 neg = _mm512_movepi16_mask(x);
    /* lanes whose overflow gives the infinity (or e4m3's NaN): mf__overflow_code's to_inf */
    const __mmask32 to_inf = !ieee ? 0
                             : R == MF_ROUND_NEAREST_EVEN || R == MF_ROUND_NEAREST_AWAY || sr ? ~(__mmask32)0
                             : R == MF_ROUND_UP                                          ? ~neg
                             : R == MF_ROUND_DOWN                                        ? neg
                                                                                         : 0;
    const __m512i sgn = _mm512_srli_epi16(x, 16 - fd.bits); /* the sign at D's sign bit, and junk below */
    __m512i q, c;
    switch (R) {
    case MF_ROUND_NEAREST_AWAY: q = _mm512_srlv_epi16(_mm512_add_epi16(t, hw_w16_tab(1, sh)), sh); break;
    case MF_ROUND_TOWARD_ZERO: q = _mm512_srlv_epi16(t, sh); break;
    case MF_ROUND_STOCHASTIC: q = _mm512_srli_epi16(_mm512_add_epi16(_mm512_srlv_epi16(t, sh), rnd), 8); break;
    case MF_ROUND_UP:
    case MF_ROUND_DOWN: /* away from zero on one side: add an ulp less one there */
        q = _mm512_srlv_epi16(_mm512_mask_add_epi16(t, R == MF_ROUND_UP ? ~neg : neg, t, hw_w16_tab(2, sh)), sh);
        break;
    case MF_ROUND_ODD: /* truncate, then set the last bit where anything was dropped */
        q = _mm512_srlv_epi16(t, sh);
        q = _mm512_or_si512(q, _mm512_maskz_mov_epi16(_mm512_cmpneq_epu16_mask(_mm512_sllv_epi16(q, sh), t), hw_w16_set(1)));
        break;
    default: { /* rn: add half an ulp less one, plus the kept part's last bit */
        const __m512i odd = _mm512_and_si512(_mm512_srlv_epi16(t, sh), hw_w16_set(1));
        q = _mm512_srlv_epi16(_mm512_add_epi16(_mm512_add_epi16(t, hw_w16_tab(0, sh)), odd), sh);
        break;
    }
    }
    /* overflow: +-max, or in to_inf lanes the infinity (e5m2) or the unsigned NaN (e4m3) */
    if (ieee && fd.kind == MF__KIND_IEEE)
        c = _mm512_min_epu16(q, _mm512_mask_blend_epi16(to_inf, hw_w16_set(maxc), hw_w16_set(maxc + 1)));
    else
        c = _mm512_min_epu16(q, hw_w16_set(maxc));
    c = _mm512_ternarylogic_epi32(c, sgn, hw_w16_set(1u << (fd.bits - 1)), 0xF8); /* c | (sgn & bit) */
    /* sr never rounds down to max: infinities and NaNs overflow like the values above max, so their code
     * is already the overflow's */
    if (ieee && fd.kind == MF__KIND_FN) /* overflow to NaN, and infinities and NaNs (always NaN here) */
        return _mm512_mask_mov_epi16(c, (_mm512_cmpgt_epu16_mask(q, hw_w16_set(maxc)) & to_inf) |
                                            (sr ? 0 : _mm512_cmpge_epu16_mask(a, hw_w16_set(inf_s))),
                                     hw_w16_set((unsigned)mf__fmt_nan_code(fd)));
    if (ieee && !sr) /* e5m2: an infinity stays one in every mode */
        c = _mm512_mask_mov_epi16(c, _mm512_cmpeq_epu16_mask(a, hw_w16_set(inf_s)),
                                  _mm512_or_si512(hw_w16_set(maxc + 1), _mm512_and_si512(sgn, hw_w16_set(1u << (fd.bits - 1)))));
    return _mm512_mask_mov_epi16(c, _mm512_cmpgt_epu16_mask(a, hw_w16_set(inf_s)),
                                 hw_w16_set((unsigned)mf__fmt_nan_code(fd)));
}

/* floor(log2(i)) for i = 1..31 (vpermw indices; 0 for 0), and 5 + that for the next five bits */
static const uint16_t hw_w16_log2[2][32] __attribute__((aligned(64))) = {
    {0, 0, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4},
    {0, 5, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9}};

/* 32 codes of S (f16 or bf16) -> 32 e8m0 codes, one a 16-bit lane. e8m0 is unsigned: |x| is rounded
 * (rd is rz, rn is rna: the kept significand is 1, odd), to the code of its binade, e + 127, plus one
 * where the mode rounds the significand up to 2. The fraction below the leading bit decides; an f16
 * subnormal is first shifted up until its leading bit is where a normal's implicit bit is (its bit
 * position from the two tables above), a bf16 subnormal is at most one place down (below that it lies
 * under 2^-127, whose code 0 every mode gives). */
MF_V __m512i hw_w16_e8m0(const __m512i x, const mf_format S, const mf_round R, const mf_overflow O, const __m512i rnd)
{
    const mf__fmt fs = mf__fmt_get(S);
    const int m = fs.man, f16 = S == MF_FP16;
    const mf__fmt fe = mf__fmt_get(MF_E8M0);
    const unsigned inf_s = (unsigned)mf__fmt_inf_code(fs), mmask = (1u << m) - 1;
    const unsigned nanc = (unsigned)mf__fmt_nan_code(fe), maxc = (unsigned)mf__fmt_max_code(fe);
    const __m512i a = _mm512_and_si512(x, hw_w16_set(0x7FFF));
    const __m512i mant = _mm512_and_si512(a, hw_w16_set(mmask));
    const __mmask32 sub = _mm512_cmplt_epu16_mask(a, hw_w16_set(1u << m));
    __m512i lsh, frac, code;
    if (f16) { /* 10 - floor(log2(mant)) */
        const __m512i p = _mm512_max_epu16(_mm512_permutexvar_epi16(mant, _mm512_load_si512(hw_w16_log2[0])),
                                           _mm512_permutexvar_epi16(_mm512_srli_epi16(mant, 5), _mm512_load_si512(hw_w16_log2[1])));
        lsh = _mm512_maskz_sub_epi16(sub, hw_w16_set(10), p);
    } else {
        lsh = _mm512_maskz_mov_epi16(sub, hw_w16_set(1));
    }
    frac = _mm512_and_si512(_mm512_sllv_epi16(mant, lsh), hw_w16_set(mmask));
    /* e + 127 = max(field, 1) - lsh + 127 - bias */
    code = _mm512_sub_epi16(_mm512_max_epu16(_mm512_srli_epi16(a, m), hw_w16_set(1)),
                            _mm512_sub_epi16(lsh, hw_w16_set((unsigned)(fe.bias - fs.bias))));
    switch (R) {
    case MF_ROUND_NEAREST_EVEN:
    case MF_ROUND_NEAREST_AWAY:
        code = _mm512_add_epi16(code, _mm512_srli_epi16(frac, m - 1));
        break;
    case MF_ROUND_UP: code = _mm512_mask_add_epi16(code, _mm512_test_epi16_mask(frac, frac), code, hw_w16_set(1)); break;
    case MF_ROUND_STOCHASTIC: { /* up where the fraction's top 8 bits plus r carry */
        const __m512i f8 = m >= 8 ? _mm512_srli_epi16(frac, m - 8) : _mm512_slli_epi16(frac, 8 - m);
        code = _mm512_add_epi16(code, _mm512_srli_epi16(_mm512_add_epi16(f8, rnd), 8));
        break;
    }
    case MF_ROUND_ODD: code = _mm512_mask_mov_epi16(code, _mm512_test_epi16_mask(frac, frac),
                                                    _mm512_or_si512(code, hw_w16_set(1))); break;
    default: break; /* rz, rd */
    }
    /* above 2^127: the NaN code where IEEE overflow rounds to the infinity, else max */
    code = _mm512_min_epu16(code, hw_w16_set(O == MF_OVERFLOW_IEEE && (R == MF_ROUND_NEAREST_EVEN || R == MF_ROUND_NEAREST_AWAY ||
                                                                       R == MF_ROUND_UP || R == MF_ROUND_STOCHASTIC)
                                                  ? nanc
                                                  : maxc));
    /* zeros, and bf16 below 2^-127: 0 */
    code = _mm512_maskz_mov_epi16(_mm512_cmpge_epu16_mask(a, hw_w16_set(f16 ? 1u : 1u << (m - 1))), code);
    /* infinities: NaN (IEEE) or max; NaNs: NaN */
    code = _mm512_mask_mov_epi16(code, _mm512_cmpeq_epu16_mask(a, hw_w16_set(inf_s)),
                                 hw_w16_set(O == MF_OVERFLOW_IEEE ? nanc : maxc));
    return _mm512_mask_mov_epi16(code, _mm512_cmpgt_epu16_mask(a, hw_w16_set(inf_s)), hw_w16_set(nanc));
}

/* 64 codes (16-bit lanes of c0 then c1, each below 256) -> 64 bytes in order */
MF_V __m512i hw_w16_bytes(__m512i c0, __m512i c1)
{
    return _mm512_permutexvar_epi64(_mm512_set_epi64(7, 5, 3, 1, 6, 4, 2, 0), _mm512_packus_epi16(c0, c1));
}

/* 64 e2m1 codes in bytes -> 32 bytes, element 2i in the low nibble */
MF_V __m256i hw_w16_nibbles(__m512i b) { return _mm512_cvtepi16_epi8(_mm512_maddubs_epi16(b, _mm512_set1_epi16(0x1001))); }

/* rnd: sr's random bits, one byte zero-extended a lane (ignored in the other modes) */
MF_V __m512i hw_w16_code_r(const __m512i x, const mf_format S, const mf_format D, const mf_round R, const mf_overflow O,
                           const __m512i rnd)
{
    return D == MF_E8M0 ? hw_w16_e8m0(x, S, R, O, rnd) : hw_w16_round(x, S, D, R, O, rnd);
}
MF_V __m512i hw_w16_code(const __m512i x, const mf_format S, const mf_format D, const mf_round R, const mf_overflow O)
{
    return hw_w16_code_r(x, S, D, R, O, _mm512_setzero_si512());
}

/* Streamed calls into one-byte and e2m1 codes ask for the source 8 KiB ahead: the hardware prefetcher alone
 * left the loop waiting (bf16 -> f16, with twice the output, gained nothing: docs/perf/tuning.md) */
enum { HW_W16_AHEAD = 8192 };

/* sr: 64 codes of S at src -> 64 codes of D in bytes, element e taking byte e of the stream words w
 * (w = 8: a Philox block's 16 bytes serve 16 elements in order) */
MF_V __m512i hw_w16_sr64(const mf_format S, const mf_format D, const mf_overflow O, const uint16_t *src, __m512i w)
{
    const __m512i r0 = _mm512_cvtepu8_epi16(_mm512_castsi512_si256(w));
    const __m512i r1 = _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64(w, 1));
    return hw_w16_bytes(hw_w16_code_r(_mm512_loadu_si512(src), S, D, MF_ROUND_STOCHASTIC, O, r0),
                        hw_w16_code_r(_mm512_loadu_si512(src + 32), S, D, MF_ROUND_STOCHASTIC, O, r1));
}

/* sr: elements i.. (64, or 128 for e2m1, with the words of the second 64 in w1) */
MF_V void hw_w16_sr_step(const mf_format S, const mf_format D, const mf_overflow O, uint8_t *p, const uint16_t *src,
                         size_t i, __m512i w0, __m512i w1, const int stream)
{
    if (D == MF_FP4_E2M1) {
        const __m512i pair = _mm512_set1_epi16(0x1001);
        const __m512i b = hw_w16_bytes(_mm512_maddubs_epi16(hw_w16_sr64(S, D, O, src + i, w0), pair),
                                       _mm512_maddubs_epi16(hw_w16_sr64(S, D, O, src + i + 64, w1), pair));
        if (stream) {
            _mm_prefetch((const char *)(src + i) + HW_W16_AHEAD, _MM_HINT_T0);
            _mm_prefetch((const char *)(src + i) + HW_W16_AHEAD + 64, _MM_HINT_T0);
            _mm_prefetch((const char *)(src + i) + HW_W16_AHEAD + 128, _MM_HINT_T0);
            _mm_prefetch((const char *)(src + i) + HW_W16_AHEAD + 192, _MM_HINT_T0);
            _mm512_stream_si512((void *)(p + i / 2), b);
        } else {
            _mm512_storeu_si512(p + i / 2, b);
        }
    } else {
        const __m512i b = hw_w16_sr64(S, D, O, src + i, w0);
        if (stream) {
            _mm_prefetch((const char *)(src + i) + HW_W16_AHEAD, _MM_HINT_T0);
            _mm_prefetch((const char *)(src + i) + HW_W16_AHEAD + 64, _MM_HINT_T0);
            _mm512_stream_si512((void *)(p + i), b);
        } else {
            _mm512_storeu_si512(p + i, b);
        }
    }
}

/* sr into a one-byte format or e2m1: element i takes stream index idx0 + i, idx0 a Philox block's first
 * (a multiple of 16). K_SR_CHAINS vectors of words a step (kernels.h: one chain alone waits on its
 * multiplications), then one at a time, then the last 1..63 elements masked. */
MF_V void hw_w16_sr_loop(const mf_format S, const mf_format D, const mf_overflow O, uint8_t *p, const uint16_t *src,
                         size_t n, const int stream, const k_philox_keys *ks, uint64_t idx0)
{
    const int d4 = D == MF_FP4_E2M1, SH = k_sr_shift(D), B = SH + 2; /* idx >> B: the Philox block */
    const size_t chunk = (size_t)K_SR_CHAINS * 64;
    size_t i = 0;
    int j;
    if (n >= chunk) {
        __m512i rb[K_SR_CHAINS], cc = k_philox_counters(idx0 >> B, SH);
        for (; i + chunk <= n; i += chunk) {
            k_philox_chains(rb, &cc, idx0 + i, SH, ks);
            for (j = 0; j < K_SR_CHAINS; j += 1 + d4)
                hw_w16_sr_step(S, D, O, p, src, i + 64 * (size_t)j, rb[j], rb[j + d4], stream);
        }
    }
    for (; i + 64 <= n; i += 64 << d4) {
        const __m512i w0 = k_philox(k_philox_counters((idx0 + i) >> B, SH), ks);
        if (d4 && i + 128 <= n) {
            hw_w16_sr_step(S, D, O, p, src, i, w0, k_philox(k_philox_counters((idx0 + i + 64) >> B, SH), ks), stream);
        } else if (d4) { /* 64 e2m1 elements: 32 bytes */
            const __m256i b = hw_w16_nibbles(hw_w16_sr64(S, D, O, src + i, w0));
            if (stream)
                _mm256_stream_si256((__m256i *)(p + i / 2), b);
            else
                _mm256_storeu_si256((__m256i *)(p + i / 2), b);
            i += 64;
            break;
        } else {
            hw_w16_sr_step(S, D, O, p, src, i, w0, w0, stream);
        }
    }
    if (i < n) { /* the last 1..63, 32 a time, from one vector of words */
        const __m512i w = k_philox(k_philox_counters((idx0 + i) >> B, SH), ks);
        __m256i wr = _mm512_castsi512_si256(w);
        for (; i < n; i += 32, wr = _mm512_extracti64x4_epi64(w, 1)) {
            const size_t r = n - i < 32 ? n - i : 32;
            const __mmask32 k = (__mmask32)(((uint64_t)1 << r) - 1);
            const __m512i c = hw_w16_code_r(_mm512_maskz_loadu_epi16(k, src + i), S, D, MF_ROUND_STOCHASTIC, O,
                                            _mm512_cvtepu8_epi16(wr));
            if (d4)
                _mm_mask_storeu_epi8(p + i / 2, (__mmask16)(((uint32_t)1 << (r / 2)) - 1),
                                     _mm256_castsi256_si128(hw_w16_nibbles(hw_w16_bytes(c, c))));
            else
                _mm256_mask_storeu_epi8(p + i, k, _mm512_cvtepi16_epi8(c));
        }
    }
}

/* dst[i] = D(src[i]) for n elements (even for e2m1); stream: dst is 64-byte aligned and the whole steps
 * are written with non-temporal stores (the caller fences); sr: element i takes stream index idx0 + i,
 * a multiple of 16 (hw_w16_sr_loop) */
MF_V void hw_w16_loop_t(const mf_format S, const mf_format D, const mf_round R, const mf_overflow O, void *dst,
                        const uint16_t *src, size_t n, const int stream, const k_philox_keys *ks, uint64_t idx0)
{
    uint8_t *p = (uint8_t *)dst;
    size_t i = 0;
    const int d4 = D == MF_FP4_E2M1;
    if (R == MF_ROUND_STOCHASTIC) {
        hw_w16_sr_loop(S, D, O, p, src, n, stream, ks, idx0);
        return;
    }
    if (d4) /* e2m1: 128 elements a step, 64 bytes: one more pack instead of two vpmovwb */
        for (i = 0; i + 128 <= n; i += 128) {
            __m512i w[2];
            int j;
            if (stream) {
                _mm_prefetch((const char *)(src + i) + HW_W16_AHEAD, _MM_HINT_T0);
                _mm_prefetch((const char *)(src + i) + HW_W16_AHEAD + 64, _MM_HINT_T0);
                _mm_prefetch((const char *)(src + i) + HW_W16_AHEAD + 128, _MM_HINT_T0);
                _mm_prefetch((const char *)(src + i) + HW_W16_AHEAD + 192, _MM_HINT_T0);
            }
            for (j = 0; j < 2; j++) {
                const __m512i c0 = hw_w16_code(_mm512_loadu_si512(src + i + 64 * j), S, D, R, O);
                const __m512i c1 = hw_w16_code(_mm512_loadu_si512(src + i + 64 * j + 32), S, D, R, O);
                w[j] = _mm512_maddubs_epi16(hw_w16_bytes(c0, c1), _mm512_set1_epi16(0x1001));
            }
            if (stream)
                _mm512_stream_si512((void *)(p + i / 2), hw_w16_bytes(w[0], w[1]));
            else
                _mm512_storeu_si512(p + i / 2, hw_w16_bytes(w[0], w[1]));
        }
    if (D == MF_FP16) { /* from bf16: 16-bit codes, stored as they are */
        uint16_t *h = (uint16_t *)dst;
        for (; i + 32 <= n; i += 32) {
            const __m512i c = hw_w16_code(_mm512_loadu_si512(src + i), S, D, R, O);
            if (stream)
                _mm512_stream_si512((void *)(h + i), c);
            else
                _mm512_storeu_si512(h + i, c);
        }
        if (i < n) {
            const __mmask32 k = (__mmask32)(((uint64_t)1 << (n - i)) - 1);
            _mm512_mask_storeu_epi16(h + i, k, hw_w16_code(_mm512_maskz_loadu_epi16(k, src + i), S, D, R, O));
        }
        return;
    }
    for (; i + 64 <= n; i += 64) {
        if (stream) {
            _mm_prefetch((const char *)(src + i) + HW_W16_AHEAD, _MM_HINT_T0);
            _mm_prefetch((const char *)(src + i) + HW_W16_AHEAD + 64, _MM_HINT_T0);
        }
        const __m512i c0 = hw_w16_code(_mm512_loadu_si512(src + i), S, D, R, O);
        const __m512i c1 = hw_w16_code(_mm512_loadu_si512(src + i + 32), S, D, R, O);
        const __m512i b = hw_w16_bytes(c0, c1);
        if (d4 && stream)
            _mm256_stream_si256((__m256i *)(p + i / 2), hw_w16_nibbles(b));
        else if (d4)
            _mm256_storeu_si256((__m256i *)(p + i / 2), hw_w16_nibbles(b));
        else if (stream)
            _mm512_stream_si512((void *)(p + i), b);
        else
            _mm512_storeu_si512(p + i, b);
    }
    for (; i < n; i += 32) { /* the last 1..63 elements, masked */
        const size_t r = n - i < 32 ? n - i : 32;
        const __mmask32 k = (__mmask32)(((uint64_t)1 << r) - 1);
        const __m512i c = hw_w16_code(_mm512_maskz_loadu_epi16(k, src + i), S, D, R, O);
        if (d4)
            _mm_mask_storeu_epi8(p + i / 2, (__mmask16)(((uint32_t)1 << (r / 2)) - 1),
                                 _mm256_castsi256_si128(hw_w16_nibbles(hw_w16_bytes(c, c))));
        else
            _mm256_mask_storeu_epi8(p + i, k, _mm512_cvtepi16_epi8(c));
    }
}

/* the conversions hw_w16_loop takes (sr: not into f16, nor e2m1 from an odd stream index, whose first
 * element would be the second of a byte) */
static int hw_w16_ok(mf_format d, mf_format s, const mf_opts *o)
{
    if (o->round == MF_ROUND_STOCHASTIC && (d == MF_FP16 || (d == MF_FP4_E2M1 && (o->sr_offset & 1))))
        return 0;
    return (s == MF_FP16 || s == MF_BF16) && (unsigned)o->round < MF_ROUND_COUNT &&
           (d == MF_FP8_E4M3 || d == MF_FP8_E5M2 || d == MF_FP6_E2M3 || d == MF_FP6_E3M2 || d == MF_FP4_E2M1 ||
            d == MF_E8M0 || (s == MF_BF16 && d == MF_FP16));
}

/* whether there is a loop for S -> D in mode R (src/simd/w16.c folds the arguments; hw_w16_ok keeps the rest away) */
#define hw_w16_has(S, D, R) ((R) != MF_ROUND_STOCHASTIC || (D) != MF_FP16)

/* one conversion, its Philox keys made here; sr: element 0 takes stream index o->sr_offset, a multiple of 16 */
MF_V void hw_w16_one(const mf_format S, const mf_format D, const mf_round R, const mf_overflow O, void *dst,
                     const uint16_t *src, size_t n, const mf_opts *o, const int stream)
{
    k_philox_keys ks;
    if (R == MF_ROUND_STOCHASTIC)
        k_philox_keys_init(&ks, o->seed);
    hw_w16_loop_t(S, D, R, O, dst, src, n, stream, &ks, o->sr_offset);
}

#endif /* MF_X86_AVX512_W16_H */
