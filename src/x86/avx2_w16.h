/* SPDX-License-Identifier: MIT */
/* src/x86/avx2_w16.h - f16 or bf16 -> fp8, fp6 and fp4 in 16-bit lanes, for the AVX2 backend
 * (src/simd/backend_paths.h: BK_HW_W16; src/simd/path_w16.h: bk_w16_run).
 *
 * Every mode but sr, both policies, no statistics; e8m0 targets, bf16 -> f16 and sr keep widening to
 * binary32 (hw_w16_ok refuses them). 16 codes a vector, integer operations only, so no MXCSR.
 *
 * The rounding is avx512_w16.h's (its comment says why it is mf__round_pack's): t, the significand
 * at D's last place times 2^s, is shifted right by s in the mode's rounding, with
 * s = min(C - d, 15), C = S.man - D.man + K, d = min(max(field, 1) - 1, K), K = S.bias - D.bias.
 * Here s >= S.man - D.man >= 4. AVX2 has no 16-bit variable shift (vpsrlvw is AVX512BW), so the shift is
 * a vpmulhuw: t >> (s - 1) = (t * 2^(17 - s)) >> 16, exact for s >= 2, the multiplier from two 16-entry
 * vpshufb tables (one for each byte). The modes, in r = t >> (s - 1) (the kept part, then one more bit):
 *   rz: r >> 1;   rna: (r + 1) >> 1, a vpavgw with 0;
 *   rn: (t + 2^(s-1) - 1 + odd) >> s, odd the kept part's last bit, equals ((t - 1 + odd) >> (s - 1) + 1)
 *       >> 1 for t >= 1 (floors compose); the saturating t - 1 gives 0 for t = 0 as well;
 *   away from zero (ru on +, rd on -): ceil(t / 2^s) = ((t - 1) >> s) + 1 for t >= 1, and 0 for t = 0;
 *   ro: the truncation, its last bit set where t > 0 and (t - 1) >> s equals it (t is no multiple of 2^s).
 * t <= |x| < 2^15, so the signed 16-bit compares are unsigned ones. */
#ifndef MF_X86_AVX2_W16_H
#define MF_X86_AVX2_W16_H

#include <string.h>

MF_V __m256i hw_w16_set(unsigned v) { return _mm256_set1_epi16((short)v); }

/* 2^(j + 2) for j = 15 - s = 0..13: its low bytes, its high bytes (in both 128-bit lanes) */
static const uint8_t hw_w16_pow2[2][32] __attribute__((aligned(32))) = {
    {4, 8, 16, 32, 64, 128, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 8, 16, 32, 64, 128, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, 128, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, 128, 0, 0}};

MF_V __m256i hw_w16_mul(const __m256i j)
{
    const __m256i i = _mm256_or_si256(j, hw_w16_set(0x8000)); /* the high bytes look up 0 */
    return _mm256_or_si256(_mm256_shuffle_epi8(_mm256_load_si256((const __m256i *)hw_w16_pow2[0]), i),
                           _mm256_slli_epi16(_mm256_shuffle_epi8(_mm256_load_si256((const __m256i *)hw_w16_pow2[1]), i), 8));
}

/* 16 codes of S (f16 or bf16) -> 16 codes of D (e4m3, e5m2, e2m3, e3m2, e2m1), one a 16-bit lane */
MF_V __m256i hw_w16_round(const __m256i x, const mf_format S, const mf_format D, const mf_round R, const mf_overflow O)
{
    const mf__fmt fs = mf__fmt_get(S), fd = mf__fmt_get(D);
    const int K = fs.bias - fd.bias, C = fs.man - fd.man + K;
    const unsigned maxc = (unsigned)mf__fmt_max_code(fd), inf_s = (unsigned)mf__fmt_inf_code(fs);
    const unsigned nanc = (unsigned)mf__fmt_nan_code(fd);
    const int ieee = !k_sat_like(D, O); /* IEEE policy, and D has an infinity or a NaN */
    const __m256i one = hw_w16_set(1), zero = _mm256_setzero_si256();
    const __m256i a = _mm256_and_si256(x, hw_w16_set(0x7FFF));
    const __m256i dd = _mm256_min_epu16(_mm256_subs_epu16(_mm256_srli_epi16(a, fs.man), one), hw_w16_set((unsigned)K));
    const __m256i t = _mm256_sub_epi16(a, _mm256_slli_epi16(dd, fs.man));
    const __m256i m = hw_w16_mul(C >= 15 ? _mm256_subs_epu16(dd, hw_w16_set((unsigned)(C - 15)))
                                         : _mm256_add_epi16(dd, hw_w16_set((unsigned)(15 - C))));
    const __m256i neg = _mm256_srai_epi16(x, 15);
    const __m256i r = _mm256_mulhi_epu16(t, m);
    const __m256i sgn = _mm256_and_si256(_mm256_srli_epi16(x, 16 - fd.bits), hw_w16_set(1u << (fd.bits - 1)));
    __m256i q, c;
    switch (R) {
    case MF_ROUND_NEAREST_AWAY: q = _mm256_avg_epu16(r, zero); break;
    case MF_ROUND_TOWARD_ZERO: q = _mm256_srli_epi16(r, 1); break;
    case MF_ROUND_UP:
    case MF_ROUND_DOWN: { /* away from zero on one side */
        const __m256i side = R == MF_ROUND_UP ? _mm256_cmpgt_epi16(x, hw_w16_set(0xFFFF)) : neg;
        const __m256i tm = _mm256_subs_epu16(t, _mm256_and_si256(side, one));
        q = _mm256_sub_epi16(_mm256_srli_epi16(_mm256_mulhi_epu16(tm, m), 1),
                             _mm256_and_si256(side, _mm256_cmpgt_epi16(t, zero)));
        break;
    }
    case MF_ROUND_ODD: {
        const __m256i qd = _mm256_srli_epi16(_mm256_mulhi_epu16(_mm256_subs_epu16(t, one), m), 1);
        q = _mm256_srli_epi16(r, 1);
        q = _mm256_or_si256(q, _mm256_and_si256(_mm256_and_si256(_mm256_cmpeq_epi16(qd, q), _mm256_cmpgt_epi16(t, zero)), one));
        break;
    }
    default: { /* rn */
        const __m256i odd = _mm256_and_si256(_mm256_srli_epi16(r, 1), one);
        q = _mm256_avg_epu16(_mm256_mulhi_epu16(_mm256_add_epi16(_mm256_subs_epu16(t, one), odd), m), zero);
        break;
    }
    }
    if (ieee && fd.kind == MF__KIND_IEEE) { /* e5m2: overflow to the infinity where the mode goes there */
        const __m256i lim = R == MF_ROUND_NEAREST_EVEN || R == MF_ROUND_NEAREST_AWAY ? hw_w16_set(maxc + 1)
                            : R == MF_ROUND_UP   ? _mm256_add_epi16(hw_w16_set(maxc + 1), neg)
                            : R == MF_ROUND_DOWN ? _mm256_sub_epi16(hw_w16_set(maxc), neg)
                                                 : hw_w16_set(maxc);
        c = _mm256_min_epu16(q, lim);
        c = _mm256_blendv_epi8(c, hw_w16_set(maxc + 1), _mm256_cmpeq_epi16(a, hw_w16_set(inf_s))); /* inf stays */
        c = _mm256_or_si256(c, sgn);
    } else {
        c = _mm256_or_si256(_mm256_min_epu16(q, hw_w16_set(maxc)), sgn);
        if (ieee && fd.kind == MF__KIND_FN) { /* e4m3: overflow to NaN where the mode goes to the infinity,
                                                * and infinities and NaNs */
            __m256i nan = _mm256_cmpgt_epi16(a, hw_w16_set(inf_s - 1));
            if (R != MF_ROUND_TOWARD_ZERO && R != MF_ROUND_ODD) {
                const __m256i ovf = _mm256_cmpgt_epi16(q, hw_w16_set(maxc));
                nan = _mm256_or_si256(nan, R == MF_ROUND_UP     ? _mm256_andnot_si256(neg, ovf)
                                           : R == MF_ROUND_DOWN ? _mm256_and_si256(neg, ovf)
                                                                : ovf);
            }
            return _mm256_blendv_epi8(c, hw_w16_set(nanc), nan);
        }
    }
    return _mm256_blendv_epi8(c, hw_w16_set(nanc), _mm256_cmpgt_epi16(a, hw_w16_set(inf_s)));
}

/* 32 codes (16-bit lanes of c0 then c1, each below 256) -> 32 bytes in order */
MF_V __m256i hw_w16_bytes(const __m256i c0, const __m256i c1)
{
    return _mm256_permute4x64_epi64(_mm256_packus_epi16(c0, c1), 0xD8);
}

/* 32 output bytes from src: 32 elements, or 64 into e2m1 (element 2i in the low nibble of byte i) */
MF_V __m256i hw_w16_step(const mf_format S, const mf_format D, const mf_round R, const mf_overflow O, const uint16_t *src)
{
#define HW_W16_B(k)                                                                                                    \
    hw_w16_bytes(hw_w16_round(_mm256_loadu_si256((const __m256i *)(src + (k))), S, D, R, O),                          \
                 hw_w16_round(_mm256_loadu_si256((const __m256i *)(src + (k) + 16)), S, D, R, O))
    if (D != MF_FP4_E2M1)
        return HW_W16_B(0);
    return hw_w16_bytes(_mm256_maddubs_epi16(HW_W16_B(0), hw_w16_set(0x1001)),
                        _mm256_maddubs_epi16(HW_W16_B(32), hw_w16_set(0x1001)));
#undef HW_W16_B
}

#ifndef HW_W16_AHEAD
#define HW_W16_AHEAD 8192
#endif

/* dst[i] = D(src[i]) for n elements (even for e2m1); stream: dst is 32-byte aligned and the whole steps
 * are written with non-temporal stores (the caller fences) */
MF_V void hw_w16_loop_t(const mf_format S, const mf_format D, const mf_round R, const mf_overflow O, void *dst,
                        const uint16_t *src, size_t n, const int stream)
{
    uint8_t *p = (uint8_t *)dst;
    const int d4 = D == MF_FP4_E2M1;
    const size_t step = (size_t)32 << d4;
    size_t i;
    for (i = 0; i + step <= n; i += step) {
        const __m256i b = hw_w16_step(S, D, R, O, src + i);
        if (stream) {
            _mm_prefetch((const char *)(src + i) + HW_W16_AHEAD, _MM_HINT_T0);
            if (d4)
                _mm_prefetch((const char *)(src + i) + HW_W16_AHEAD + 64, _MM_HINT_T0);
            _mm256_stream_si256((__m256i *)(p + (i >> d4)), b);
        } else
            _mm256_storeu_si256((__m256i *)(p + (i >> d4)), b);
    }
    if (i < n) { /* the last 1..step - 1 elements, through buffers */
        uint16_t in[64] = {0};
        uint8_t out[32];
        memcpy(in, src + i, (n - i) * 2);
        _mm256_storeu_si256((__m256i *)out, hw_w16_step(S, D, R, O, in));
        memcpy(p + (i >> d4), out, (n - i) >> d4);
    }
}

/* the conversions hw_w16_loop takes */
static int hw_w16_ok(mf_format d, mf_format s, const mf_opts *o)
{
    return (s == MF_FP16 || s == MF_BF16) && (unsigned)o->round < MF_ROUND_COUNT && o->round != MF_ROUND_STOCHASTIC &&
           (d == MF_FP8_E4M3 || d == MF_FP8_E5M2 || d == MF_FP6_E2M3 || d == MF_FP6_E3M2 || d == MF_FP4_E2M1);
}

/* whether there is a loop for S -> D in mode R (src/simd/w16.c folds the arguments; hw_w16_ok keeps the rest away) */
#define hw_w16_has(S, D, R) ((R) != MF_ROUND_STOCHASTIC && (D) != MF_E8M0 && (D) != MF_FP16)

/* one conversion (no sr here) */
MF_V void hw_w16_one(const mf_format S, const mf_format D, const mf_round R, const mf_overflow O, void *dst,
                     const uint16_t *src, size_t n, const mf_opts *o, const int stream)
{
    (void)o;
    hw_w16_loop_t(S, D, R, O, dst, src, n, stream);
}

#endif /* MF_X86_AVX2_W16_H */
