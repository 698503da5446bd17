/* SPDX-License-Identifier: MIT */
/* src/x86/avx2_lut.h - byte-code tables for the AVX2 backend (bk_lut, bk_lut_sr): 256-entry lookups
 * by vpshufb, which looks up 16 entries and gives 0 where the index byte has its top bit set.
 *
 * A table's 128 entries x = 16g + j (chunks g = 0..7) are looked up as the XOR over g of
 * vpshufb(D[g], x - 16g), where D[0] = chunk 0 and D[g] = chunk g ^ chunk g - 1: for g up to x's own
 * chunk, x - 16g is in 0..127 and the term is D[g][j]; above it, x - 16g is negative and the term is 0;
 * the XORs of the D[g] telescope to x's own chunk. Eight vpshufb, seven subtractions and seven XORs for
 * 32 codes. A 256-entry table takes the lookup of both halves and a blend on the index's top bit, unless
 * its top half is the bottom half XOR one constant k (signed results of signed sources: the sign), which costs
 * one compare, AND and XOR, and one more lookup for the last chunk, where NaN codes need not mirror
 * (hw_tab8_make finds out which).
 */
#ifndef MF_X86_AVX2_LUT_H
#define MF_X86_AVX2_LUT_H

typedef struct hw_tab8 {
    __m256i d[16]; /* the telescoped chunks of each half, in both 128-bit lanes */
    __m256i k;     /* sym: entry x + 128 is entry x ^ k, for x below 0x70 */
    __m256i fix;   /* entry 0xF0 + j is entry 0x70 + j ^ k ^ fix[j] */
    int sym;
} hw_tab8;

static void hw_tab8_make(hw_tab8 *t, const uint8_t *tab)
{
    uint8_t k = (uint8_t)(tab[0] ^ tab[128]), c[16];
    int g, j;
    t->sym = 1;
    for (j = 0; j < 112; j++)
        t->sym &= (uint8_t)(tab[j] ^ tab[j + 128]) == k;
    t->k = _mm256_set1_epi8((char)k);
    for (j = 0; j < 16; j++) /* NaN codes, whose results need not mirror the sign */
        c[j] = (uint8_t)(tab[0xF0 + j] ^ tab[0x70 + j] ^ k);
    t->fix = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)c));
    for (g = 0; g < 16; g++) {
        for (j = 0; j < 16; j++)
            c[j] = (uint8_t)(tab[16 * g + j] ^ (g & 7 ? tab[16 * g - 16 + j] : 0));
        t->d[g] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)c));
    }
}

/* x's entries in table a and (two) in table b, the index arithmetic shared; chunk by chunk, so that
 * few registers stay live (a loop of whole-table lookups spilled its index vectors) */
MF_V void hw_lut256(__m256i x, const hw_tab8 *a, const hw_tab8 *b, const int two, const int sym, __m256i *ra,
                    __m256i *rb)
{
    __m256i m = _mm256_and_si256(x, _mm256_set1_epi8(0x7F));
    __m256i la = _mm256_shuffle_epi8(a->d[0], m), lb = two ? _mm256_shuffle_epi8(b->d[0], m) : la;
    __m256i ha = sym ? la : _mm256_shuffle_epi8(a->d[8], m), hb = two && !sym ? _mm256_shuffle_epi8(b->d[8], m) : la;
    int g;
    for (g = 1; g < 8; g++) {
        m = _mm256_sub_epi8(m, _mm256_set1_epi8(16));
        la = _mm256_xor_si256(la, _mm256_shuffle_epi8(a->d[g], m));
        if (two)
            lb = _mm256_xor_si256(lb, _mm256_shuffle_epi8(b->d[g], m));
        if (!sym)
            ha = _mm256_xor_si256(ha, _mm256_shuffle_epi8(a->d[8 + g], m));
        if (two && !sym)
            hb = _mm256_xor_si256(hb, _mm256_shuffle_epi8(b->d[8 + g], m));
    }
    if (sym) { /* m is now x's index in the last chunk, or negative (fix's lookup 0) */
        const __m256i neg = _mm256_cmpgt_epi8(_mm256_setzero_si256(), x);
        *ra = _mm256_xor_si256(la, _mm256_and_si256(_mm256_xor_si256(a->k, _mm256_shuffle_epi8(a->fix, m)), neg));
        if (two)
            *rb = _mm256_xor_si256(lb, _mm256_and_si256(_mm256_xor_si256(b->k, _mm256_shuffle_epi8(b->fix, m)), neg));
    } else {
        *ra = _mm256_blendv_epi8(la, ha, x);
        if (two)
            *rb = _mm256_blendv_epi8(lb, hb, x);
    }
}

/* 32 bytes of packed e2m1 codes -> their 64 entries of a 16-entry table t (in both lanes), in element
 * order: e2m1 element 2i is bits 0..3 of byte i */
MF_V void hw_lut_e2m1(__m256i w, __m256i t, __m256i *r0, __m256i *r1)
{
    const __m256i lo = _mm256_and_si256(w, _mm256_set1_epi8(0x0F));
    const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(w, 4), _mm256_set1_epi8(0x0F));
    const __m256i e = _mm256_shuffle_epi8(t, lo), o = _mm256_shuffle_epi8(t, hi);
    const __m256i a = _mm256_unpacklo_epi8(e, o), b = _mm256_unpackhi_epi8(e, o); /* 0..15 | 32..47, 16..31 | 48..63 */
    *r0 = _mm256_permute2x128_si256(a, b, 0x20);
    *r1 = _mm256_permute2x128_si256(a, b, 0x31);
}

MF_V void hw_store32(void *p, __m256i v, const int stream)
{
    if (stream)
        _mm256_stream_si256((__m256i *)p, v);
    else
        _mm256_storeu_si256((__m256i *)p, v);
}

/* block b's 64 one-byte results (r0: elements 0..31), as bytes or (d4) packed e2m1 codes */
MF_V void hw_lut_store8(uint8_t *dst, size_t b, __m256i r0, __m256i r1, const int d4, const int stream)
{
    if (d4) { /* pairs (even, odd) -> even + 16 * odd, a word each, packed to bytes */
        const __m256i p0 = _mm256_maddubs_epi16(r0, _mm256_set1_epi16(0x1001));
        const __m256i p1 = _mm256_maddubs_epi16(r1, _mm256_set1_epi16(0x1001));
        hw_store32(dst + 32 * b, _mm256_permute4x64_epi64(_mm256_packus_epi16(p0, p1), 0xD8), stream);
    } else {
        hw_store32(dst + 64 * b, r0, stream);
        hw_store32(dst + 64 * b + 32, r1, stream);
    }
}

/* block b's 64 results (one byte each, element order) in table a (a0: elements 0..31) and (two) b */
MF_V void hw_lut_block(const uint8_t *src, size_t b, const hw_tab8 *a, const hw_tab8 *bt, const int two, const int s4,
                       const int sym, __m256i *a0, __m256i *a1, __m256i *b0, __m256i *b1)
{
    if (s4) {
        const __m256i w = _mm256_loadu_si256((const __m256i *)(src + 32 * b));
        hw_lut_e2m1(w, a->d[0], a0, a1);
        if (two)
            hw_lut_e2m1(w, bt->d[0], b0, b1);
    } else {
        hw_lut256(_mm256_loadu_si256((const __m256i *)(src + 64 * b)), a, bt, two, sym, a0, b0);
        hw_lut256(_mm256_loadu_si256((const __m256i *)(src + 64 * b + 32)), a, bt, two, sym, a1, b1);
    }
}

/* nblk blocks of 64 elements: dst = tab[index] as bytes, or (d4) as packed e2m1 codes; from bytes, or
 * (s4) packed e2m1 codes (tab's first 16 entries); stream: non-temporal stores (dst 64-byte aligned) */
MF_V void hw_lut8_t(uint8_t *dst, const uint8_t *src, size_t nblk, const hw_tab8 *t, const int s4, const int sym,
                    const int d4, const int stream)
{
    size_t b;
    for (b = 0; b < nblk; b++) {
        __m256i r0, r1;
        hw_lut_block(src, b, t, t, 0, s4, sym, &r0, &r1, &r0, &r1);
        hw_lut_store8(dst, b, r0, r1, d4, stream);
    }
}

static void hw_lut8_loop(uint8_t *dst, const uint8_t *src, size_t nblk, const uint8_t *tab, int s4, int d4, int stream)
{
    hw_tab8 t;
    hw_tab8_make(&t, tab);
#define HW_LUT8_CASES(STREAM)                                                                                     \
    if (s4)                                                                                                      \
        hw_lut8_t(dst, src, nblk, &t, 1, 0, 0, STREAM); /* e2m1 never meets e2m1 */                               \
    else if (t.sym)                                                                                              \
        d4 ? hw_lut8_t(dst, src, nblk, &t, 0, 1, 1, STREAM) : hw_lut8_t(dst, src, nblk, &t, 0, 1, 0, STREAM);     \
    else                                                                                                         \
        d4 ? hw_lut8_t(dst, src, nblk, &t, 0, 0, 1, STREAM) : hw_lut8_t(dst, src, nblk, &t, 0, 0, 0, STREAM);
    if (stream) {
        HW_LUT8_CASES(1)
        _mm_sfence();
    } else {
        HW_LUT8_CASES(0)
    }
#undef HW_LUT8_CASES
}

/* the same for 16-bit results: a table of low bytes and one of high bytes, interleaved */
MF_V void hw_lut16_t(uint16_t *dst, const uint8_t *src, size_t nblk, const hw_tab8 *lt, const hw_tab8 *ht,
                     const int s4, const int sym, const int stream)
{
    size_t b;
    for (b = 0; b < nblk; b++) {
        __m256i l0, l1, h0, h1, a, c;
        hw_lut_block(src, b, lt, ht, 1, s4, sym, &l0, &l1, &h0, &h1);
        a = _mm256_unpacklo_epi8(l0, h0); /* elements 0..7 | 16..23 */
        c = _mm256_unpackhi_epi8(l0, h0); /* 8..15 | 24..31 */
        hw_store32(dst + 64 * b, _mm256_permute2x128_si256(a, c, 0x20), stream);
        hw_store32(dst + 64 * b + 16, _mm256_permute2x128_si256(a, c, 0x31), stream);
        a = _mm256_unpacklo_epi8(l1, h1);
        c = _mm256_unpackhi_epi8(l1, h1);
        hw_store32(dst + 64 * b + 32, _mm256_permute2x128_si256(a, c, 0x20), stream);
        hw_store32(dst + 64 * b + 48, _mm256_permute2x128_si256(a, c, 0x31), stream);
    }
}

static void hw_lut16_loop(uint16_t *dst, const uint8_t *src, size_t nblk, const uint16_t *tab, int s4, int stream)
{
    uint8_t lo[256], hi[256];
    hw_tab8 lt, ht;
    int j;
    for (j = 0; j < 256; j++) {
        lo[j] = (uint8_t)tab[j];
        hi[j] = (uint8_t)(tab[j] >> 8);
    }
    hw_tab8_make(&lt, lo);
    hw_tab8_make(&ht, hi);
#define HW_LUT16_CASES(STREAM)                                                                                    \
    if (s4)                                                                                                      \
        hw_lut16_t(dst, src, nblk, &lt, &ht, 1, 0, STREAM);                                                        \
    else if (lt.sym && ht.sym)                                                                                   \
        hw_lut16_t(dst, src, nblk, &lt, &ht, 0, 1, STREAM);                                                        \
    else                                                                                                         \
        hw_lut16_t(dst, src, nblk, &lt, &ht, 0, 0, STREAM);
    if (stream) {
        HW_LUT16_CASES(1)
        _mm_sfence();
    } else {
        HW_LUT16_CASES(0)
    }
#undef HW_LUT16_CASES
}

/* ---- sr through tables (bk_lut_sr) ---------------------------------------------------------------
 * nblk blocks of 64 elements into a one-byte format or e2m1 with 8 random bits an element: an element
 * with code x takes lo[x] + 1 where its random byte exceeds thr[x] (tabs: 256 bytes of lo, then of thr),
 * else lo[x]. Block b's bytes are the Philox words of blocks pb + 4b .. pb + 4b + 3 in order, byte e for
 * element e: two vectors of two blocks each. The unsigned compare is a signed one with both sides'
 * top bits flipped (thr's in its table). cls (the AVX-512 backend's table shapes) is not needed here:
 * hw_tab8_make finds the sign symmetry itself. HW_SR_G blocks a step, their Philox rounds interleaved. */
enum { HW_SR_ANY, HW_SR_SYM, HW_SR_PER64 };
enum { HW_SR_G = 4 };

MF_V void hw_lut_sr_one(uint8_t *dst, const uint8_t *src, size_t b, const hw_tab8 *lt, const hw_tab8 *tt, __m256i w0,
                        __m256i w1, const int s4, const int sym, const int d4, const int stream)
{
    const __m256i top = _mm256_set1_epi8((char)0x80);
    __m256i l0, l1, t0, t1;
    hw_lut_block(src, b, lt, tt, 1, s4, sym, &l0, &l1, &t0, &t1);
    l0 = _mm256_sub_epi8(l0, _mm256_cmpgt_epi8(_mm256_xor_si256(w0, top), t0));
    l1 = _mm256_sub_epi8(l1, _mm256_cmpgt_epi8(_mm256_xor_si256(w1, top), t1));
    hw_lut_store8(dst, b, l0, l1, d4, stream);
}

MF_V void hw_lut_sr8_t(uint8_t *dst, const uint8_t *src, size_t nblk, const hw_tab8 *lt, const hw_tab8 *tt,
                       const k_philox_keys *ks, uint64_t pb, const int s4, const int sym, const int d4,
                       const int stream)
{
    size_t b = 0;
    int j, r;
    for (; b + HW_SR_G <= nblk; b += HW_SR_G) {
        __m256i w[2 * HW_SR_G];
        const uint64_t q = pb + 4 * (uint64_t)b;
        if ((uint32_t)q <= 0xFFFFFFFFu - 4 * HW_SR_G) { /* no lane's low counter word wraps: stepped in registers */
            w[0] = k_philox_counters(q, 2);
            for (j = 1; j < 2 * HW_SR_G; j++)
                w[j] = v_add(w[j - 1], v_philox_step());
        } else {
            for (j = 0; j < 2 * HW_SR_G; j++)
                w[j] = k_philox_counters(q + 2 * (uint64_t)j, 2);
        }
        for (r = 0; r < 9; r++)
            for (j = 0; j < 2 * HW_SR_G; j++)
                w[j] = v_philox_round(w[j], ks->k[r]);
        for (j = 0; j < HW_SR_G; j++)
            hw_lut_sr_one(dst, src, b + (size_t)j, lt, tt, v_philox_last(w[2 * j], ks->k[9]),
                          v_philox_last(w[2 * j + 1], ks->k[9]), s4, sym, d4, stream);
    }
    for (; b < nblk; b++) {
        const uint64_t q = pb + 4 * (uint64_t)b;
        hw_lut_sr_one(dst, src, b, lt, tt, k_philox(k_philox_counters(q, 2), ks), k_philox(k_philox_counters(q + 2, 2), ks),
                      s4, sym, d4, stream);
    }
}

static void hw_lut_sr8_loop(uint8_t *dst, const uint8_t *src, size_t nblk, const uint8_t *tabs, int cls, int s4,
                            int d4, int stream, const k_philox_keys *ks, uint64_t pb)
{
    uint8_t thr[256];
    hw_tab8 lt, tt;
    int j, sym;
    (void)cls;
    for (j = 0; j < 256; j++)
        thr[j] = (uint8_t)(tabs[256 + j] ^ 0x80);
    hw_tab8_make(&lt, tabs);
    hw_tab8_make(&tt, thr);
    sym = lt.sym && tt.sym;
#define HW_LUT_SR_CASES(STREAM)                                                                                   \
    if (s4)                                                                                                      \
        hw_lut_sr8_t(dst, src, nblk, &lt, &tt, ks, pb, 1, 0, 0, STREAM);                                           \
    else if (sym)                                                                                                \
        d4 ? hw_lut_sr8_t(dst, src, nblk, &lt, &tt, ks, pb, 0, 1, 1, STREAM)                                      \
           : hw_lut_sr8_t(dst, src, nblk, &lt, &tt, ks, pb, 0, 1, 0, STREAM);                                     \
    else                                                                                                         \
        d4 ? hw_lut_sr8_t(dst, src, nblk, &lt, &tt, ks, pb, 0, 0, 1, STREAM)                                      \
           : hw_lut_sr8_t(dst, src, nblk, &lt, &tt, ks, pb, 0, 0, 0, STREAM);
    if (stream) {
        HW_LUT_SR_CASES(1)
        _mm_sfence();
    } else {
        HW_LUT_SR_CASES(0)
    }
#undef HW_LUT_SR_CASES
}
#define BK_HW_LUT 1

#endif /* MF_X86_AVX2_LUT_H */
