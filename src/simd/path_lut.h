/* SPDX-License-Identifier: MIT */
/* src/simd/path_lut.h - the byte-table paths: narrow sources through a table of the call's results (lut), and in
 * sr (lut_sr) (included by backend_paths.h, once per backend). */

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
    const int s4 = mf__fmt_store_bits(s) == 4, d4 = mf__fmt_store_bits(d) == 4, wide = d == MF_FP16 || d == MF_BF16;
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

/* the pairs the byte tables serve: a source of one-byte codes or packed nibbles (e2m1, binary4p2sf), a result of
 * those, f16 or bf16; not nibbles into nibbles (the loops have no such case: the blocked path converts them) */
static int bk_lut_pair(mf_format d, mf_format s)
{
    const int s4 = mf__fmt_store_bits(s) == 4, d4 = mf__fmt_store_bits(d) == 4, wide = d == MF_FP16 || d == MF_BF16;
    return BK_HW_LUT && d != s && !(s4 && d4) && (s4 || mf__storage_bytes(s, 64) == 64) &&
           (wide || d4 || mf__storage_bytes(d, 64) == 64);
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
        if (!(K_FMTS >> (D) & 1u))                                                                    \
            break; /* not a row of K_FMTS: never this backend's (BK_OWN_DSTS) */                     \
        if (o == MF_OVERFLOW_SATURATE)                                                                \
            bk_sr_probe_t(D, MF_OVERFLOW_SATURATE, u, n, lo, hi, T);                                \
        else                                                                                          \
            bk_sr_probe_t(D, MF_OVERFLOW_IEEE, u, n, lo, hi, T);                                    \
        break;
    switch (d) {
#define MF__FORMAT(e, value, tag, bits, man, bias, kind, storage, ...) K_IF_NARROW_##storage(BK_PROBE(e))
#include <minifloat/formats.inc>
#undef MF__FORMAT
    default: break;
    }
#undef BK_PROBE
}

/* elements [from, to) by the blocked path, as a call of their own (sr_offset moved along) */
static void bk_blocked_part(mf_format d, void *dst, mf_format s, const void *src, size_t from, size_t to,
                              const mf_opts *o)
{
    mf_opts po;
    if (to <= from)
        return;
    po = bk_opts_at(o, from);
    bk_blocked(d, (uint8_t *)dst + mf__storage_bytes(d, from), s, (const uint8_t *)src + mf__storage_bytes(s, from),
                 to - from, &po, NULL);
}

__attribute__((noinline)) static int bk_lut_sr_run(mf_format d, void *dst, mf_format s, const void *src, size_t n,
                                                     const mf_opts *o)
{
    const int s4 = mf__fmt_store_bits(s) == 4, d4 = mf__fmt_store_bits(d) == 4, wide = d == MF_FP16 || d == MF_BF16;
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
