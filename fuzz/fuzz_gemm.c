/* SPDX-License-Identifier: MIT */
/* fuzz/fuzz_gemm.c - mf_gemm (include/minifloat/gemm.h, docs/gemm.md) against a scalar reference that
 * shares no code with src/gemm.
 *
 * Input bytes (past the end, bytes come from a xorshift generator seeded by a hash of the input, so
 * a short input still fills large matrices; see fz_src):
 *   0      bit 0 layout, 1 trans_a, 2 trans_b, 3 stats on, 4-5 threads (0..3), 6 opts NULL where
 *          the options are the defaults, 7 repeat the call (tensor-core models)
 *   1, 2   fmt_a, fmt_b (% 8: f32 f16 bf16 e4m3 e5m2 e2m3 e3m2 e2m1)
 *   3      fmt_c (% 3), round ((>> 2) % 7), overflow (bit 5)
 *   4      accum (% 7)
 *   5-7    m, n, k: below 200 a size byte % 71, else an edge of the blocking (MC = 144, KC = 256,
 *          NC = 1024, and the tiles' multiples), kept within a work budget (shrink_dims)
 *   8-10   padding of lda, ldb, ldc
 *   11, 12 scale kinds of A and B (% 8), 13 their MX / NVFP4 axes (bits 0, 1), 14 promote_every
 *   15     fault: 224 and above inject one invalid argument (F_* below), else none
 *   16     element profiles of A, B, C (2 bits each): how codes are drawn (gen_code)
 *   then   alpha, beta (gen_float), seed and sr_offset (sr only), the scales, the codes of A, B and C
 *
 * Properties:
 *   - an invalid argument (exactly one per case) returns its documented status, and then C (with
 *     its padding and guard bytes) and the stats are untouched;
 *   - a valid call returns MF_OK, writes no byte outside C's m x n elements (guard bytes around and
 *     padding between every buffer), and modifies none of A, B, the scales;
 *   - MF_ACCUM_FP32: every C code equals the reference: acc = fmaf(a_p, b_p, acc) for p = 0..k-1
 *     from +0, then alpha * sa * sb * acc + beta * c formed exactly in MPFR and rounded once into C
 *     (round to odd at 53 bits, then fuzz/ref_slow.h's textbook rounding; stochastic rounding from the
 *     exact value's 32-bit fraction); the stats equal the per-element events;
 *   - MF_ACCUM_EXACT: the same with acc the exact dot product (MPFR);
 *   - tensor-core models: the pairs of docs/gemm.md's table run, the others return MF_E_FORMAT; the
 *     bits are the same for threads 1 and 3 and for the call repeated; and wherever the documented
 *     rules (cut to F bits below the block's top, truncation to binary32) cannot change the sum - all
 *     terms on a grid no finer than 2^(top - F), the sum within binary32's (or the 13-bit FP8 kinds')
 *     significand - C equals the exact reference.
 * Element values come from ref_slow.h's decoding; block-scaled values are the binary32 products the
 * dequantize functions document (element * scale, rounded to nearest even).
 */
#include <mpfr.h>

#include "fuzz_common.h"

/* ---- byte source ---------------------------------------------------------------------------------- */
typedef struct fz_src {
    const uint8_t *p;
    size_t n;
    uint64_t s;
} fz_src;

static uint8_t sb8(fz_src *r)
{
    if (r->n) {
        r->n--;
        return *r->p++;
    }
    r->s ^= r->s << 13, r->s ^= r->s >> 7, r->s ^= r->s << 17;
    return (uint8_t)(r->s >> 32);
}
static uint32_t sb32(fz_src *r)
{
    uint32_t v = 0;
    int i;
    for (i = 0; i < 4; i++)
        v |= (uint32_t)sb8(r) << (8 * i);
    return v;
}
static uint64_t sb64(fz_src *r)
{
    uint64_t v = sb32(r);
    return v | (uint64_t)sb32(r) << 32;
}

/* ---- formats -------------------------------------------------------------------------------------- */
static const mf_format ELEM_FMTS[8] = {MF_FP32,     MF_FP16,     MF_BF16,     MF_FP8_E4M3,
                                       MF_FP8_E5M2, MF_FP6_E2M3, MF_FP6_E3M2, MF_FP4_E2M1};
static const mf_format C_FMTS[3] = {MF_FP32, MF_FP16, MF_BF16};

static int width_bits(mf_format f)
{
    return f == MF_FP32 ? 32 : f == MF_FP16 || f == MF_BF16 ? 16 : f == MF_FP4_E2M1 ? 4 : 8;
}
/* bytes spanned by elements 0 .. count-1 */
static size_t span_bytes(mf_format f, size_t count)
{
    return width_bits(f) == 4 ? (count + 1) / 2 : count * (size_t)(width_bits(f) / 8);
}
static void put(unsigned char *buf, mf_format f, size_t e, uint32_t c)
{
    switch (width_bits(f)) {
    case 32: memcpy(buf + 4 * e, &c, 4); break;
    case 16: {
        uint16_t h = (uint16_t)c;
        memcpy(buf + 2 * e, &h, 2);
        break;
    }
    case 8: buf[e] = (unsigned char)c; break;
    default: buf[e / 2] = (unsigned char)((buf[e / 2] & (0xF0u >> (4 * (e & 1)))) | (c & 0xFu) << (4 * (e & 1)));
    }
}
static uint32_t get(const unsigned char *buf, mf_format f, size_t e)
{
    uint32_t c = 0;
    uint16_t h;
    switch (width_bits(f)) {
    case 32: memcpy(&c, buf + 4 * e, 4); return c;
    case 16: memcpy(&h, buf + 2 * e, 2); return h;
    case 8: return buf[e];
    default: return (uint32_t)(buf[e / 2] >> (4 * (e & 1))) & 0xFu;
    }
}

static uint32_t clamp_exp(int e, uint32_t emaxf)
{
    return e < 1 ? 1u : (uint32_t)e > emaxf ? emaxf : (uint32_t)e;
}

/* A code of format f drawn for the fuzzer: mostly moderate exponents, with specials, subnormals and the
 * extreme binades (whose products underflow or overflow binary32) at the profile's rate:
 *   profile 0 any kind, 1 moderate and zeros, 2 specials and extremes, 3 few significant bits (sums that
 *   the tensor-core models keep exactly). */
static uint32_t gen_code(fz_src *r, mf_format f, int profile)
{
    const int rf = fz_ref_fmt(f);
    const ref_format *F = &ref_formats[rf];
    const uint32_t eall = (1u << F->ebits) - 1u, mall = (1u << F->mbits) - 1u;
    const uint32_t sign = (uint32_t)(sb8(r) & 1) << (F->bits - 1);
    const uint8_t s = sb8(r);
    uint32_t E, M, sel;
    /* the largest exponent field of a finite normal value */
    const uint32_t emaxf = F->kind == REF_KIND_IEEE ? eall - 1 : eall;
    switch (profile) {
    case 1: sel = s % 9; break;
    case 2: sel = 8 + s % 8; break;
    case 3: sel = 6 + s % 3; break;
    default: { /* specials rare enough that most dot products of ~70 terms stay finite */
        static const uint8_t zero_sub_extreme[5] = {8, 11, 12, 13, 14};
        sel = s < 208 ? s % 8u : s < 248 ? zero_sub_extreme[s % 5] : s & 1 ? 9u : 10u;
        break;
    }
    }
    M = sb32(r) & mall;
    switch (sel) {
    default: /* 0..5: an exponent within 2 of 1.0 */
        E = clamp_exp(F->bias - 2 + sb8(r) % 5, emaxf);
        break;
    case 6:
    case 7: /* the same with the top two fraction bits only */
        E = clamp_exp(F->bias - 1 + sb8(r) % 3, emaxf);
        M = F->mbits >= 2 ? M & (3u << (F->mbits - 2)) : M;
        break;
    case 8: return sign; /* +-0 */
    case 9:
    case 15: return sb32(r) & ref_code_mask(rf); /* raw */
    case 10: /* inf, NaN, +-max */
        switch (sb8(r) % 4) {
        case 0: return F->kind == REF_KIND_IEEE ? sign | eall << F->mbits : sign | eall << F->mbits | mall;
        case 1: /* a NaN, any payload where the format has several */
            if (F->kind == REF_KIND_IEEE)
                return sign | eall << F->mbits | (M ? M : 1u);
            return sign | eall << F->mbits | mall;
        default:
            return F->kind == REF_KIND_IEEE ? sign | emaxf << F->mbits | mall
                   : F->kind == REF_KIND_FN ? sign | eall << F->mbits | (mall - 1)
                                            : sign | eall << F->mbits | mall;
        }
    case 11: return sign | (M ? M : 1u); /* subnormal */
    case 12:
        switch (sb8(r) % 3) {
        case 0: return sign | 1u;                     /* smallest subnormal */
        case 1: return sign | mall;                   /* largest subnormal */
        default: return sign | 1u << F->mbits | M;    /* smallest binade of normals */
        }
    case 13: E = emaxf - sb8(r) % (eall < 4 ? 1 : 3); break; /* the top binades */
    case 14: E = 1 + sb8(r) % (eall < 4 ? 1 : 3); break;     /* the bottom binades */
    }
    if (F->kind == REF_KIND_FN && E == eall && M == mall)
        M--; /* not the NaN */
    return sign | E << F->mbits | M;
}

/* A binary32 value (alpha, beta, scales, amax): small powers of two and simple values, or specials. */
static float gen_float(fz_src *r)
{
    const uint8_t s = sb8(r), t = sb8(r);
    const float sg = (t & 0x80) ? -1.0f : 1.0f;
    if (s < 96)
        return sg * ldexpf(1.0f, (int)(t % 9) - 4);
    if (s < 160)
        return sg * ldexpf((float)(1 + t % 15), -(int)(sb8(r) % 8));
    if (s < 192)
        return s & 1 ? 1.0f : -1.0f;
    if (s < 208)
        return sg * 0.0f;
    if (s < 216)
        return fz_f32_from_bits(sb32(r)); /* raw */
    if (s < 232) /* an extreme binade */
        return sg * ldexpf(1.0f + (float)(t & 7) / 8, (t & 0x40) ? 100 + (int)(t % 27) : -100 - (int)(t % 49));
    {
        static const float sp[] = {0.0f, INFINITY, NAN, FLT_MAX, FLT_MIN, 0x1p-149f, 0x1.fffffcp-127f, 0x1.8p127f,
                                   0x1p-75f, 0x1p64f, 3.0f, 0.1f, 448.0f, 2688.0f};
        return sg * sp[t % (sizeof sp / sizeof sp[0])];
    }
}

/* ---- tensor-core models: docs/gemm.md's table ---------------------------------------------------- */
static int is_fp8(mf_format f) { return f == MF_FP8_E4M3 || f == MF_FP8_E5M2; }
static int is_narrow(mf_format f) { return f != MF_FP32 && f != MF_FP16 && f != MF_BF16; }

/* Block size w and fraction bits F of a model and pair, and whether the result keeps 13 fraction bits
 * only; 0 where that GPU's tensor cores do not multiply the pair (MF_E_FORMAT). */
static int tc_params(mf_accum acc, mf_format fa, mf_format fb, int *w, int *F, int *kept13)
{
    const int gen = acc - MF_ACCUM_V100; /* 0 V100, 1 A100, 2 Ada, 3 H100, 4 B200 */
    *kept13 = 0;
    if (fa == fb && fa == MF_FP16) {
        static const int W[5] = {4, 8, 8, 16, 16}, FF[5] = {23, 24, 24, 25, 25};
        *w = W[gen], *F = FF[gen];
        return 1;
    }
    if (gen == 0)
        return 0;
    if (fa == fb && (fa == MF_BF16 || fa == MF_FP32)) {
        static const int W16[5] = {0, 8, 8, 16, 16}, W32[5] = {0, 4, 4, 8, 8}, FF[5] = {0, 24, 24, 25, 25};
        *w = fa == MF_BF16 ? W16[gen] : W32[gen], *F = FF[gen];
        return 1;
    }
    if (gen == 1)
        return 0;
    if (is_fp8(fa) && is_fp8(fb) && gen < 4) {
        *w = gen == 2 ? 16 : 32, *F = 13, *kept13 = 1;
        return 1;
    }
    if (gen == 4 && is_narrow(fa) && is_narrow(fb)) {
        *w = 32, *F = 25;
        return 1;
    }
    return 0;
}

/* ---- guarded buffers ------------------------------------------------------------------------------ */
#define GUARD 64
typedef struct gbuf {
    unsigned char *mem; /* GUARD bytes, the array (len), GUARD bytes */
    unsigned char *p;
    size_t len;
    unsigned char *copy; /* the whole of mem before the call */
} gbuf;

static void gbuf_init(gbuf *g, size_t len, unsigned char fill)
{
    g->len = len;
    g->mem = (unsigned char *)malloc(len + 2 * GUARD);
    g->copy = (unsigned char *)malloc(len + 2 * GUARD);
    if (!g->mem || !g->copy)
        fz_fail("out of memory");
    memset(g->mem, 0xA5, GUARD);
    memset(g->mem + GUARD, fill, len);
    memset(g->mem + GUARD + len, 0x5A, GUARD);
    g->p = g->mem + GUARD;
}
static void gbuf_snap(gbuf *g) { memcpy(g->copy, g->mem, g->len + 2 * GUARD); }
static void gbuf_free(gbuf *g)
{
    free(g->mem);
    free(g->copy);
}
/* the first byte that differs from the snapshot, or -1 */
static long gbuf_diff(const gbuf *g)
{
    size_t i;
    for (i = 0; i < g->len + 2 * GUARD; i++)
        if (g->mem[i] != g->copy[i])
            return (long)i - GUARD;
    return -1;
}

/* ---- one case ------------------------------------------------------------------------------------- */
enum { F_NONE, F_LAYOUT, F_TRANS_A, F_TRANS_B, F_ACCUM, F_KIND_A, F_KIND_B, F_THREADS, F_FMT_A, F_FMT_B,
       F_FMT_C, F_ROUND, F_POLICY, F_LDA, F_LDB, F_LDC, F_NULL_C, F_NULL_A, F_NULL_B, F_NULL_SA, F_OVERLAP,
       F_PROMOTE, F_BLOCK_FMT, F_BLOCK_TC, F_AXIS, F_MX_DIM, F_HUGE, F_TC_PAIR, F_COUNT };
static const char *const FAULT_NAMES[F_COUNT] = {
    "none",  "layout", "trans_a", "trans_b", "accum", "kind_a",  "kind_b",   "threads",  "fmt_a",  "fmt_b",
    "fmt_c", "round",  "policy",  "lda",     "ldb",   "ldc",     "null_c",   "null_a",   "null_b", "null_sa",
    "overlap", "promote", "block_fmt", "block_tc", "axis", "mx_dim", "huge", "tc_pair"};

typedef struct scale_in {
    mf_gemm_scale s;
    gbuf buf;      /* the floats (TENSOR, VECTOR, BLOCK_*) or codes (MX, NVFP4), guarded */
    int have_buf;
    size_t count;
    size_t bh, bw; /* block shape on the stored array seen as R x C (BLOCK_*, MX, NVFP4) */
    size_t scols;
} scale_in;

typedef struct gcase {
    mf_layout layout;
    mf_trans ta, tb;
    size_t m, n, k, lda, ldb, ldc;
    float alpha, beta;
    mf_format fa, fb, fc;
    mf_gemm_opts o;
    int stats_on, opts_null, repeat;
    size_t ra, ca, rb, cb; /* stored A, B: rows x cols */
    scale_in sa, sb;
} gcase;

/* the stored array's index of stored element (x, y) */
static size_t at(mf_layout l, size_t ld, size_t x, size_t y) { return l == MF_ROW_MAJOR ? x * ld + y : x + y * ld; }

/* the size-bytes: below 200 a size 0..70, else a blocking edge */
static size_t pick_dim(uint8_t b)
{
    static const size_t edges[] = {143, 144, 145, 255, 256, 257, 287, 288, 289, 511, 512, 513,
                                   1023, 1024, 1025, 95, 96, 97, 191, 192, 193, 127, 128, 129};
    if (b < 200)
        return b % 71;
    return edges[(b - 200) % (sizeof edges / sizeof edges[0])];
}

/* Keep m*n*k and m*n within a budget (the reference's cost): halve the largest dimension, those up to
 * 70 first so that a blocking edge stays; gran[] keeps the MX / NVFP4 blocked dimensions multiples. */
static void shrink_dims(size_t *d[3], const size_t gran[3], size_t work, size_t outs)
{
    int it, i;
    for (it = 0; it < 64; it++) {
        const size_t mn = *d[0] * *d[1], prod = mn * *d[2];
        int best = -1;
        if (prod <= work && mn <= outs)
            return;
        for (i = 0; i < 3; i++) {
            if ((i == 2 && mn > outs) || *d[i] <= gran[i])
                continue;
            if (best < 0 || (*d[i] <= 70) > (*d[best] <= 70) ||
                ((*d[i] <= 70) == (*d[best] <= 70) && *d[i] > *d[best]))
                best = i;
        }
        if (best < 0)
            return;
        *d[best] = *d[best] / 2 / gran[best] * gran[best];
        if (*d[best] < gran[best])
            *d[best] = gran[best];
    }
}

/* The value op(X)(row, col) of an operand: element value times its block's scale as binary32 (rn), or
 * the element itself; f32 read as TF32 under a tensor-core model. */
static double elem_value(const gcase *g, int isb, const unsigned char *buf, size_t i, size_t j, int tf32)
{
    const mf_format f = isb ? g->fb : g->fa;
    const mf_trans t = isb ? g->tb : g->ta;
    const size_t ld = isb ? g->ldb : g->lda;
    const scale_in *si = isb ? &g->sb : &g->sa;
    /* stored element (x, y) */
    const size_t x = t == MF_NO_TRANS ? i : j, y = t == MF_NO_TRANS ? j : i;
    uint32_t code = get(buf, f, at(g->layout, ld, x, y));
    double v, s;
    float sf;
    size_t r, c, idx;
    if (tf32 && f == MF_FP32)
        code &= 0xFFFFE000u;
    v = ref_decode(fz_ref_fmt(f), code);
    if (si->s.kind < MF_GEMM_SCALE_BLOCK_1X128)
        return v;
    /* the R x C tensor's (r, c): stored (x, y) for row-major, (y, x) for column-major */
    r = g->layout == MF_ROW_MAJOR ? x : y;
    c = g->layout == MF_ROW_MAJOR ? y : x;
    idx = (r / si->bh) * si->scols + c / si->bw;
    if (si->s.kind == MF_GEMM_SCALE_MX)
        s = ref_decode(REF_E8M0, si->buf.p[idx]);
    else if (si->s.kind == MF_GEMM_SCALE_NVFP4) {
        /* (float(e4m3) * amax) * (1/2688), each product binary32 rn (mx.h) */
        const float inv2688 = 1.0f / 2688.0f;
        const float t1 = (float)(ref_decode(REF_E4M3, si->buf.p[idx]) * (double)si->s.amax);
        s = (double)(float)((double)t1 * (double)inv2688);
    } else
        memcpy(&sf, si->buf.p + 4 * idx, 4), s = sf;
    return (double)(float)(v * s); /* the product is exact in binary64, then rounded once */
}

/* round-to-odd at 53 bits (the exact value's range is inside binary64's normal range) */
static double ro53(mpfr_t x)
{
    mpfr_t t;
    int inex;
    double d;
    if (mpfr_nan_p(x))
        return NAN;
    if (mpfr_inf_p(x))
        return mpfr_sgn(x) > 0 ? INFINITY : -INFINITY;
    if (mpfr_zero_p(x))
        return 0.0; /* an exact zero is +0 */
    mpfr_init2(t, 53);
    inex = mpfr_set(t, x, MPFR_RNDZ);
    d = mpfr_get_d(t, MPFR_RNDZ);
    mpfr_clear(t);
    if (!isnormal(d))
        fz_fail("reference: exact value outside binary64's normal range");
    if (inex) {
        uint64_t u = fz_f64_bits(d) | 1u;
        d = fz_f64_from_bits(u);
    }
    return d;
}

/* x (exact, in MPFR) rounded into C's format; stochastic rounding decides up or down on the exact
 * value's 32-bit fraction, which round-to-odd at 53 bits would not keep for an f32 C. */
static uint32_t round_c(int rc, mpfr_t x, int mode, int pol, uint32_t rbits, unsigned *ev)
{
    const double d = ro53(x);
    if (mode == REF_SR && isfinite(d) && d != 0 && fabs(d) < ref_info_of(rc)->virt) {
        double lo, hi;
        uint32_t lo_code;
        unsigned long fr;
        mpfr_t t;
        ref_neighbours(rc, fabs(d), &lo, &hi, &lo_code);
        if (fabs(d) == lo) /* exact */
            return ref_round(rc, d, REF_RN, pol, 0, ev);
        mpfr_init2(t, 4096);
        if (mpfr_abs(t, x, MPFR_RNDN) || mpfr_sub_d(t, t, lo, MPFR_RNDN) || mpfr_div_d(t, t, hi - lo, MPFR_RNDN) ||
            mpfr_mul_2ui(t, t, 32, MPFR_RNDN))
            fz_fail("reference: inexact stochastic fraction");
        fr = mpfr_get_ui(t, MPFR_RNDZ);
        mpfr_clear(t);
        if ((uint64_t)fr + rbits >= ((uint64_t)1 << 32))
            return ref_round(rc, d, signbit(d) ? REF_RD : REF_RU, pol, 0, ev);
        return ref_round(rc, d, REF_RZ, pol, 0, ev);
    }
    return ref_round(rc, d, mode, pol, rbits, ev);
}

static int ulp_exp(double v) /* the exponent of v's lowest set bit (v finite, nonzero) */
{
    int e;
    double m = frexp(fabs(v), &e); /* v = m 2^e, m in [0.5, 1) */
    uint64_t u = (uint64_t)ldexp(m, 53), b = 0;
    while (!((u >> b) & 1))
        b++;
    return e - 53 + (int)b;
}
static int raw_exp(double v, int emin) /* floor(log2 |v|), at least emin (a subnormal's exponent) */
{
    int e;
    frexp(fabs(v), &e);
    return e - 1 < emin ? emin : e - 1;
}

static void fail_case(const gcase *g, const char *what, size_t i, size_t j, uint32_t want, uint32_t got)
{
    fz_fail("%s at C(%zu, %zu): expected 0x%08x, got 0x%08x\n  %s %s%s m=%zu n=%zu k=%zu lda=%zu ldb=%zu ldc=%zu "
            "alpha=%a beta=%a %s x %s -> %s accum=%d round=%d overflow=%d scales=%d,%d axes=%d,%d amax=%a,%a "
            "threads=%d promote=%zu stats=%d",
            what, i, j, want, got, g->layout == MF_ROW_MAJOR ? "row" : "col", g->ta == MF_TRANS ? "T" : "N",
            g->tb == MF_TRANS ? "T" : "N", g->m, g->n, g->k, g->lda, g->ldb, g->ldc, (double)g->alpha,
            (double)g->beta, fz_fmt_name(g->fa), fz_fmt_name(g->fb), fz_fmt_name(g->fc), (int)g->o.accum,
            (int)g->o.round, (int)g->o.overflow, (int)g->sa.s.kind, (int)g->sb.s.kind, (int)g->sa.s.axis,
            (int)g->sb.s.axis, (double)g->sa.s.amax, (double)g->sb.s.amax, g->o.threads, g->o.promote_every,
            g->stats_on);
}

/* An operand's scale kind and its blocks' shape on the stored array seen as R x C. */
static void scale_setup(scale_in *si, mf_gemm_scale_kind kind, int axis)
{
    memset(si, 0, sizeof *si);
    si->s.kind = kind;
    si->s.axis = (mf_mx_axis)axis;
    si->bh = si->bw = 1;
    switch (kind) {
    case MF_GEMM_SCALE_BLOCK_1X128: si->bw = 128; break;
    case MF_GEMM_SCALE_BLOCK_128X128: si->bh = si->bw = 128; break;
    case MF_GEMM_SCALE_BLOCK_128X1: si->bh = 128; break;
    case MF_GEMM_SCALE_MX:
    case MF_GEMM_SCALE_NVFP4: {
        const size_t b = kind == MF_GEMM_SCALE_MX ? 32 : 16;
        if (axis == MF_MX_ROWWISE)
            si->bw = b;
        else
            si->bh = b;
        break;
    }
    default: break;
    }
}

/* The scale array once the shapes are final: R x C the stored array as a row-major tensor, len the
 * number of VECTOR scales. */
static void scale_fill(fz_src *r, scale_in *si, size_t R, size_t C, size_t len)
{
    const int codes = si->s.kind == MF_GEMM_SCALE_MX || si->s.kind == MF_GEMM_SCALE_NVFP4;
    size_t q;
    switch (si->s.kind) {
    case MF_GEMM_SCALE_NONE: return;
    case MF_GEMM_SCALE_TENSOR: si->count = 1; break;
    case MF_GEMM_SCALE_VECTOR: si->count = len; break;
    default:
        si->scols = (C + si->bw - 1) / si->bw;
        si->count = ((R + si->bh - 1) / si->bh) * si->scols;
    }
    gbuf_init(&si->buf, si->count * (codes ? 1 : 4), 0xEE);
    si->have_buf = 1;
    for (q = 0; q < si->count; q++) {
        if (codes) {
            const uint8_t s = sb8(r), t = sb8(r);
            if (si->s.kind == MF_GEMM_SCALE_MX) /* E8M0: near 2^0, or the extremes and NaN */
                si->buf.p[q] = s % 4 ? (uint8_t)(127 - 4 + t % 9) : (uint8_t)(t % 3 == 0 ? 0 : t % 3 == 1 ? 254 : t);
            else /* an e4m3 code: moderate, or any */
                si->buf.p[q] = s % 4 ? (uint8_t)(0x30 + t % 0x20) : t;
        } else {
            const float f = gen_float(r);
            memcpy(si->buf.p + 4 * q, &f, 4);
        }
    }
    if (si->s.kind == MF_GEMM_SCALE_NVFP4)
        si->s.amax = sb8(r) % 4 ? ldexpf(1.0f + (float)(sb8(r) % 8) / 8, (int)(sb8(r) % 16) - 4) : gen_float(r);
    si->s.data = si->buf.p;
    gbuf_snap(&si->buf);
}

static double scale_epi(const scale_in *si, size_t idx)
{
    float f;
    if (si->s.kind == MF_GEMM_SCALE_TENSOR || si->s.kind == MF_GEMM_SCALE_VECTOR) {
        memcpy(&f, si->buf.p + 4 * (si->s.kind == MF_GEMM_SCALE_TENSOR ? 0 : idx), 4);
        return f;
    }
    return 1.0;
}

static int mf_gemm_call(const gcase *g, const void *a, const void *b, void *c, const mf_gemm_opts *o)
{
    return mf_gemm(g->layout, g->ta, g->tb, g->m, g->n, g->k, g->alpha, a, g->fa, g->lda, b, g->fb, g->ldb, g->beta,
                   c, g->fc, g->ldc, g->opts_null ? NULL : o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const mf_round MODES[7] = {MF_ROUND_NEAREST_EVEN, MF_ROUND_NEAREST_AWAY, MF_ROUND_TOWARD_ZERO,
                                      MF_ROUND_UP,           MF_ROUND_DOWN,         MF_ROUND_ODD,
                                      MF_ROUND_STOCHASTIC};
    gcase g;
    fz_src r;
    uint64_t h = 0xcbf29ce484222325ull;
    size_t q, i, j, p;
    uint8_t b0, b3, pad[3], kinds[2], axes, prom, fault_b, prof;
    int fault, tcw = 0, tcF = 0, kept13 = 0, is_tc, rc, expect[3], nexpect = 0;
    size_t *dims[3];
    gbuf A, B, C;
    mf_stats st, st_before;
    unsigned char *Aread, *Bread; /* what the library is handed (NULL under a fault) */
    unsigned char *cptr;
    const mf_stats zero_st = {0, 0, 0, 0, 0};

    for (q = 0; q < size; q++)
        h = (h ^ data[q]) * 0x100000001b3ull;
    r.p = data, r.n = size, r.s = h | 1;
    memset(&g, 0, sizeof g);

    b0 = sb8(&r);
    g.layout = (b0 & 1) ? MF_COL_MAJOR : MF_ROW_MAJOR;
    g.ta = (b0 & 2) ? MF_TRANS : MF_NO_TRANS;
    g.tb = (b0 & 4) ? MF_TRANS : MF_NO_TRANS;
    g.stats_on = (b0 >> 3) & 1;
    g.o.threads = (b0 >> 4) & 3;
    g.opts_null = (b0 >> 6) & 1;
    g.repeat = (b0 >> 7) & 1;
    g.fa = ELEM_FMTS[sb8(&r) % 8];
    g.fb = ELEM_FMTS[sb8(&r) % 8];
    b3 = sb8(&r);
    g.fc = C_FMTS[b3 % 3];
    g.o.round = MODES[(b3 >> 2) % 7];
    g.o.overflow = (b3 >> 5) & 1 ? MF_OVERFLOW_SATURATE : MF_OVERFLOW_IEEE;
    g.o.accum = (mf_accum)(sb8(&r) % MF_ACCUM_COUNT);
    g.m = pick_dim(sb8(&r));
    g.n = pick_dim(sb8(&r));
    g.k = pick_dim(sb8(&r));
    for (q = 0; q < 3; q++) {
        const uint8_t x = sb8(&r);
        pad[q] = (uint8_t)(x < 192 ? x % 4 : x % 64);
    }
    kinds[0] = sb8(&r);
    kinds[1] = sb8(&r);
    axes = sb8(&r);
    prom = sb8(&r);
    fault_b = sb8(&r);
    prof = sb8(&r);
    fault = fault_b < 224 ? F_NONE : 1 + (fault_b - 224) % (F_COUNT - 1); /* one case in eight */
    is_tc = g.o.accum >= MF_ACCUM_V100;

    /* a tensor-core model takes its pairs only: move to one (unless the fault wants another) */
    if (is_tc && !tc_params(g.o.accum, g.fa, g.fb, &tcw, &tcF, &kept13)) {
        if (fault != F_TC_PAIR) {
            static const mf_format pairs[3] = {MF_FP16, MF_BF16, MF_FP32};
            g.fa = g.fb = g.o.accum == MF_ACCUM_V100 ? MF_FP16 : pairs[prof % 3];
            tc_params(g.o.accum, g.fa, g.fb, &tcw, &tcF, &kept13);
        }
    } else if (fault == F_TC_PAIR) {
        fault = F_NONE;
    }
    if (is_tc && fault != F_TC_PAIR) /* promote_every: 0, or a few blocks */
        g.o.promote_every = prom % 3 == 0 ? (size_t)tcw * (1 + prom % 5) : prom % 3 == 1 && 128 % tcw == 0 ? 128 : 0;

    /* scale kinds: any kind for any format, then put back where it is invalid (unless that is the fault) */
    {
        mf_gemm_scale_kind ka = (mf_gemm_scale_kind)(kinds[0] % 8), kb = (mf_gemm_scale_kind)(kinds[1] % 8);
        mf_gemm_scale_kind *kk[2] = {&ka, &kb};
        const mf_format ff[2] = {g.fa, g.fb};
        for (q = 0; q < 2; q++) {
            mf_gemm_scale_kind k2 = *kk[q];
            int ok = k2 <= MF_GEMM_SCALE_VECTOR || (k2 <= MF_GEMM_SCALE_BLOCK_128X1 && is_fp8(ff[q])) ||
                     (k2 == MF_GEMM_SCALE_MX && is_narrow(ff[q])) ||
                     (k2 == MF_GEMM_SCALE_NVFP4 && ff[q] == MF_FP4_E2M1);
            if (ok && is_tc && k2 > MF_GEMM_SCALE_VECTOR)
                ok = 0;
            if (!ok && !((fault == F_BLOCK_FMT && !is_tc) || (fault == F_BLOCK_TC && is_tc)))
                *kk[q] = (mf_gemm_scale_kind)(k2 % 3);
        }
        if (fault == F_BLOCK_FMT || fault == F_BLOCK_TC) {
            /* the fault needs an invalid block kind on A: make one */
            const int bad_a = !(ka <= MF_GEMM_SCALE_VECTOR || (ka <= MF_GEMM_SCALE_BLOCK_128X1 && is_fp8(g.fa)) ||
                                (ka == MF_GEMM_SCALE_MX && is_narrow(g.fa)) ||
                                (ka == MF_GEMM_SCALE_NVFP4 && g.fa == MF_FP4_E2M1)) ||
                              (is_tc && ka > MF_GEMM_SCALE_VECTOR);
            const int bad_b = !(kb <= MF_GEMM_SCALE_VECTOR || (kb <= MF_GEMM_SCALE_BLOCK_128X1 && is_fp8(g.fb)) ||
                                (kb == MF_GEMM_SCALE_MX && is_narrow(g.fb)) ||
                                (kb == MF_GEMM_SCALE_NVFP4 && g.fb == MF_FP4_E2M1)) ||
                              (is_tc && kb > MF_GEMM_SCALE_VECTOR);
            if (!bad_a && !bad_b) {
                if (is_tc)
                    ka = MF_GEMM_SCALE_BLOCK_1X128 + (mf_gemm_scale_kind)(kinds[0] % 5);
                else if (g.fa == MF_FP32 || g.fa == MF_FP16 || g.fa == MF_BF16)
                    ka = MF_GEMM_SCALE_BLOCK_1X128 + (mf_gemm_scale_kind)(kinds[0] % 5);
                else if (g.fa != MF_FP4_E2M1)
                    ka = is_fp8(g.fa) ? MF_GEMM_SCALE_NVFP4 : MF_GEMM_SCALE_BLOCK_1X128;
                else
                    ka = MF_GEMM_SCALE_BLOCK_128X1;
                if (ka == MF_GEMM_SCALE_MX || ka == MF_GEMM_SCALE_NVFP4)
                    axes &= (uint8_t)~1u; /* rowwise; the blocked dimension is made a multiple below */
            }
        }
        scale_setup(&g.sa, ka, axes & 1);
        scale_setup(&g.sb, kb, (axes >> 1) & 1);
    }

    /* shapes: the MX / NVFP4 blocked dimensions made multiples of their blocks, then all within the
     * budget; A's blocked dimension left one off where that is the fault */
    dims[0] = &g.m, dims[1] = &g.n, dims[2] = &g.k;
    {
        size_t gran[3] = {1, 1, 1};
        size_t *blocked_a = NULL;
        for (q = 0; q < 2; q++) {
            const scale_in *si = q ? &g.sb : &g.sa;
            const mf_trans t = q ? g.tb : g.ta;
            /* stored rows and cols (A: m x k, B: k x n, transposed or not) as dimension indices */
            const int srow = q ? (t == MF_NO_TRANS ? 2 : 1) : (t == MF_NO_TRANS ? 0 : 2);
            const int scol = q ? (t == MF_NO_TRANS ? 1 : 2) : (t == MF_NO_TRANS ? 2 : 0);
            const int R = g.layout == MF_ROW_MAJOR ? srow : scol, Cc = g.layout == MF_ROW_MAJOR ? scol : srow;
            int bd;
            size_t blk;
            if (si->s.kind != MF_GEMM_SCALE_MX && si->s.kind != MF_GEMM_SCALE_NVFP4)
                continue;
            blk = si->s.kind == MF_GEMM_SCALE_MX ? 32 : 16;
            bd = si->s.axis == MF_MX_ROWWISE ? Cc : R;
            if (blk > gran[bd])
                gran[bd] = blk;
            if (q == 0)
                blocked_a = dims[bd];
        }
        for (q = 0; q < 3; q++) {
            *dims[q] = (*dims[q] + gran[q] - 1) / gran[q] * gran[q];
            if (*dims[q] > 288)
                *dims[q] = 256;
        }
        shrink_dims(dims, gran, g.o.accum == MF_ACCUM_EXACT || is_tc ? 20000 : 80000, 6000);
        if (fault == F_MX_DIM) {
            if (blocked_a)
                *blocked_a += 1 + fault_b % 7;
            else
                fault = F_NONE;
        }
        g.ra = g.ta == MF_NO_TRANS ? g.m : g.k, g.ca = g.ta == MF_NO_TRANS ? g.k : g.m;
        g.rb = g.tb == MF_NO_TRANS ? g.k : g.n, g.cb = g.tb == MF_NO_TRANS ? g.n : g.k;
    }
    if (fault == F_AXIS && g.sa.s.kind != MF_GEMM_SCALE_MX && g.sa.s.kind != MF_GEMM_SCALE_NVFP4)
        fault = F_NONE;
    {
        /* leading dimensions: the stored row length in the layout, at least 1, plus padding */
        const size_t ina = g.layout == MF_ROW_MAJOR ? g.ca : g.ra, inb = g.layout == MF_ROW_MAJOR ? g.cb : g.rb,
                     inc = g.layout == MF_ROW_MAJOR ? g.n : g.m;
        g.lda = (ina ? ina : 1) + pad[0];
        g.ldb = (inb ? inb : 1) + pad[1];
        g.ldc = (inc ? inc : 1) + pad[2];
    }

    g.alpha = gen_float(&r);
    g.beta = gen_float(&r);
    if (sb8(&r) % 4 == 0)
        g.alpha = 1.0f, g.beta = sb8(&r) & 1 ? 1.0f : 0.0f; /* the direct epilogue and the tensor cores' C input */
    if (g.o.round == MF_ROUND_STOCHASTIC)
        g.o.seed = sb64(&r), g.o.sr_offset = sb64(&r);
    {
        const int ra_ = (g.ta == MF_NO_TRANS) == (g.layout == MF_ROW_MAJOR);
        const int rb_ = (g.tb == MF_NO_TRANS) == (g.layout == MF_ROW_MAJOR);
        /* the stored arrays as R x C row-major tensors */
        scale_fill(&r, &g.sa, ra_ ? g.m : g.k, ra_ ? g.k : g.m, g.m);
        scale_fill(&r, &g.sb, rb_ ? g.k : g.n, rb_ ? g.n : g.k, g.n);
    }
    g.o.scale_a = g.sa.s;
    g.o.scale_b = g.sb.s;
    if (g.opts_null && (g.o.accum != MF_ACCUM_FP32 || g.sa.s.kind || g.sb.s.kind || g.o.round || g.o.overflow ||
                        g.stats_on || g.o.threads > 1 || fault))
        g.opts_null = 0;
    if (g.opts_null)
        g.o.threads = 0;

    /* the arrays: padding bytes 0xFF (NaN-like in every format: read, they would show) */
    {
        const size_t spa = (g.layout == MF_ROW_MAJOR ? g.ra : g.ca), spb = (g.layout == MF_ROW_MAJOR ? g.rb : g.cb),
                     spc = (g.layout == MF_ROW_MAJOR ? g.m : g.n);
        const size_t ea = spa ? (spa - 1) * g.lda + (g.layout == MF_ROW_MAJOR ? g.ca : g.ra) : 0;
        const size_t eb = spb ? (spb - 1) * g.ldb + (g.layout == MF_ROW_MAJOR ? g.cb : g.rb) : 0;
        const size_t ec = spc ? (spc - 1) * g.ldc + (g.layout == MF_ROW_MAJOR ? g.n : g.m) : 0;
        const int pa = prof & 3, pb = (prof >> 2) & 3, pc = (prof >> 4) & 3;
        gbuf_init(&A, span_bytes(g.fa, ea), 0xFF);
        gbuf_init(&B, span_bytes(g.fb, eb), 0xFF);
        gbuf_init(&C, span_bytes(g.fc, ec), 0xFF);
        for (i = 0; i < g.ra; i++)
            for (j = 0; j < g.ca; j++)
                put(A.p, g.fa, at(g.layout, g.lda, i, j), gen_code(&r, g.fa, pa));
        for (i = 0; i < g.rb; i++)
            for (j = 0; j < g.cb; j++)
                put(B.p, g.fb, at(g.layout, g.ldb, i, j), gen_code(&r, g.fb, pb));
        for (i = 0; i < g.m; i++)
            for (j = 0; j < g.n; j++)
                put(C.p, g.fc, at(g.layout, g.ldc, i, j), gen_code(&r, g.fc, pc));
    }
    gbuf_snap(&A);
    gbuf_snap(&B);
    gbuf_snap(&C);
    Aread = A.p, Bread = B.p, cptr = C.p;
    memset(&st, 0x77, sizeof st);
    st_before = st;
    g.o.stats = g.stats_on ? &st : NULL;

    /* ---- the fault, if any: its documented status, and nothing written ---- */
    {
        const int reads_ab = g.m * g.n * g.k > 0 && g.alpha != 0.0f;
        mf_gemm_opts o = g.o;
        gcase gf = g;
        void *cc = cptr;
        const void *aa = Aread, *bb = Bread;
        int applies = 1;
        switch (fault) {
        case F_NONE: applies = 0; break;
        case F_LAYOUT: gf.layout = (mf_layout)(2 + fault_b % 3); expect[nexpect++] = MF_E_ARG; break;
        case F_TRANS_A: gf.ta = (mf_trans)(2 + fault_b % 5); expect[nexpect++] = MF_E_ARG; break;
        case F_TRANS_B: gf.tb = (mf_trans)-1; expect[nexpect++] = MF_E_ARG; break;
        case F_ACCUM: o.accum = (mf_accum)(MF_ACCUM_COUNT + fault_b % 3); expect[nexpect++] = MF_E_ARG; break;
        case F_KIND_A: o.scale_a.kind = (mf_gemm_scale_kind)(MF_GEMM_SCALE_COUNT + fault_b % 2); expect[nexpect++] = MF_E_ARG; break;
        case F_KIND_B: o.scale_b.kind = (mf_gemm_scale_kind)-2; expect[nexpect++] = MF_E_ARG; break;
        case F_THREADS: o.threads = -1 - fault_b % 2; expect[nexpect++] = MF_E_ARG; break;
        case F_FMT_A: {
            static const mf_format bad[4] = {MF_E8M0, MF_FP64, MF_FP8_E4M3FNUZ, (mf_format)MF_FORMAT_COUNT};
            gf.fa = bad[fault_b % 4];
            expect[nexpect++] = MF_E_FORMAT;
            break;
        }
        case F_FMT_B: gf.fb = fault_b & 1 ? MF_FP8_E3M4 : (mf_format)-1; expect[nexpect++] = MF_E_FORMAT; break;
        case F_FMT_C: {
            static const mf_format bad[4] = {MF_FP8_E4M3, MF_FP64, MF_FP4_E2M1, MF_E8M0};
            gf.fc = bad[fault_b % 4];
            expect[nexpect++] = MF_E_FORMAT;
            break;
        }
        case F_ROUND: o.round = (mf_round)(MF_ROUND_COUNT + fault_b % 2); expect[nexpect++] = MF_E_ROUND; break;
        case F_POLICY: o.overflow = (mf_overflow)(MF_OVERFLOW_COUNT + fault_b % 2); expect[nexpect++] = MF_E_POLICY; break;
        case F_LDA: gf.lda = (g.layout == MF_ROW_MAJOR ? g.ca : g.ra); gf.lda = gf.lda ? gf.lda - 1 : 0; expect[nexpect++] = MF_E_ARG; break;
        case F_LDB: gf.ldb = (g.layout == MF_ROW_MAJOR ? g.cb : g.rb); gf.ldb = gf.ldb ? gf.ldb - 1 : 0; expect[nexpect++] = MF_E_ARG; break;
        case F_LDC: gf.ldc = (g.layout == MF_ROW_MAJOR ? g.n : g.m); gf.ldc = gf.ldc ? gf.ldc - 1 : 0; expect[nexpect++] = MF_E_ARG; break;
        case F_NULL_C: cc = NULL; expect[nexpect++] = g.m * g.n > 0 ? MF_E_NULL : MF_OK; break;
        case F_NULL_A: aa = NULL; expect[nexpect++] = reads_ab ? MF_E_NULL : MF_OK; break;
        case F_NULL_B: bb = NULL; expect[nexpect++] = reads_ab ? MF_E_NULL : MF_OK; break;
        case F_NULL_SA:
            if (g.sa.s.kind == MF_GEMM_SCALE_NONE)
                applies = 0;
            o.scale_a.data = NULL;
            expect[nexpect++] = reads_ab ? MF_E_NULL : MF_OK;
            break;
        case F_OVERLAP:
            /* C over A's first bytes: only an error where A is read (else A's span is empty to it) */
            if (!reads_ab || g.fa != MF_FP32 || A.len < 4)
                applies = 0;
            cc = A.p;
            gf.fc = MF_FP32, gf.ldc = g.layout == MF_ROW_MAJOR ? g.n : g.m;
            expect[nexpect++] = MF_E_OVERLAP;
            break;
        case F_PROMOTE:
            o.promote_every = is_tc ? (size_t)tcw * (1 + fault_b % 3) + 1 + fault_b % ((size_t)tcw - 1) : (size_t)(1 + fault_b % 64);
            expect[nexpect++] = MF_E_ARG;
            break;
        case F_BLOCK_FMT:
        case F_BLOCK_TC: expect[nexpect++] = MF_E_ARG; break;
        case F_AXIS: o.scale_a.axis = (mf_mx_axis)(2 + fault_b % 3); expect[nexpect++] = MF_E_ARG; break;
        case F_MX_DIM: expect[nexpect++] = MF_E_ARG; break;
        case F_HUGE:
            /* a negative int as m: the span is past the address space (or m past C's ld) */
            gf.m = (size_t)-(1 + (long)(fault_b % 3));
            expect[nexpect++] = MF_E_SIZE;
            expect[nexpect++] = MF_E_ARG;
            if (g.n == 0) /* m * n = 0 succeeds */
                expect[nexpect++] = MF_OK;
            break;
        case F_TC_PAIR: expect[nexpect++] = MF_E_FORMAT; break;
        default: applies = 0;
        }
        if (applies) {
            rc = mf_gemm(gf.layout, gf.ta, gf.tb, gf.m, gf.n, gf.k, gf.alpha, aa, gf.fa, gf.lda, bb, gf.fb, gf.ldb,
                         gf.beta, cc, gf.fc, gf.ldc, &o);
            for (q = 0; q < (size_t)nexpect; q++)
                if (rc == expect[q])
                    break;
            if (q == (size_t)nexpect)
                fail_case(&g, FAULT_NAMES[fault], 0, 0, (uint32_t)expect[0], (uint32_t)rc);
            if (rc != MF_OK) {
                long d;
                if ((d = gbuf_diff(&C)) >= 0 || (d = gbuf_diff(&A)) >= 0 || (d = gbuf_diff(&B)) >= 0)
                    fz_fail("fault %s: rc %d but byte %ld of a buffer changed", FAULT_NAMES[fault], rc, d);
                if (memcmp(&st, &st_before, sizeof st))
                    fz_fail("fault %s: rc %d but the stats changed", FAULT_NAMES[fault], rc);
                goto done;
            }
            /* a fault that is none here (a NULL that is not read): the call ran; check it as usual */
            if (fault == F_NULL_A)
                Aread = NULL;
            else if (fault == F_NULL_B)
                Bread = NULL;
            else if (fault == F_NULL_C)
                goto check_untouched;
            else if (fault == F_NULL_SA) {
                /* not read: fine; but rerun the real call below on fresh C */
            }
            memcpy(C.mem, C.copy, C.len + 2 * GUARD);
            memset(&st, 0x77, sizeof st);
        }
    }

    /* ---- the call ---- */
    rc = mf_gemm_call(&g, Aread, Bread, cptr, &g.o);
    if (rc != MF_OK)
        fail_case(&g, "valid call failed", 0, 0, MF_OK, (uint32_t)rc);
check_untouched : {
    long d;
    if ((d = gbuf_diff(&A)) >= 0 || (d = gbuf_diff(&B)) >= 0 || (g.sa.have_buf && (d = gbuf_diff(&g.sa.buf)) >= 0) ||
        (g.sb.have_buf && (d = gbuf_diff(&g.sb.buf)) >= 0))
        fz_fail("A, B or a scale array changed at byte %ld", d);
    /* C: nothing but its m x n elements */
    {
        unsigned char *mask = (unsigned char *)calloc(C.len + 2 * GUARD, 1);
        if (!mask)
            fz_fail("out of memory");
        if (fault != F_NULL_C)
            for (i = 0; i < g.m; i++)
                for (j = 0; j < g.n; j++) {
                    const size_t e = at(g.layout, g.ldc, i, j);
                    if (width_bits(g.fc) == 32)
                        memset(mask + GUARD + 4 * e, 1, 4);
                    else
                        memset(mask + GUARD + 2 * e, 1, 2);
                }
        for (q = 0; q < C.len + 2 * GUARD; q++)
            if (!mask[q] && C.mem[q] != C.copy[q])
                fz_fail("C: byte %ld outside the m x n elements written (0x%02x -> 0x%02x)", (long)q - GUARD,
                        C.copy[q], C.mem[q]);
        free(mask);
    }
    if (fault == F_NULL_C) {
        if (g.stats_on && memcmp(&st, &zero_st, sizeof st))
            fz_fail("m * n = 0: stats not zeroed");
        goto done;
    }
}
    if (g.m * g.n == 0) {
        if (g.stats_on && memcmp(&st, &zero_st, sizeof st))
            fz_fail("m * n = 0: stats not zeroed");
        goto done;
    }

    /* ---- the tensor-core models: the same bits for threads 1 and 3, and repeated ---- */
    if (is_tc) {
        unsigned char *c2 = (unsigned char *)malloc(C.len + 2 * GUARD);
        mf_gemm_opts o2 = g.o;
        mf_stats st2;
        if (!c2)
            fz_fail("out of memory");
        memcpy(c2, C.mem, C.len + 2 * GUARD); /* the first call's result */
        memcpy(C.mem, C.copy, C.len + 2 * GUARD);
        o2.threads = g.o.threads >= 2 ? 1 : 3;
        memset(&st2, 0x77, sizeof st2);
        o2.stats = g.stats_on ? &st2 : NULL;
        rc = mf_gemm_call(&g, Aread, Bread, cptr, &o2);
        if (rc != MF_OK || memcmp(c2, C.mem, C.len + 2 * GUARD) || (g.stats_on && memcmp(&st, &st2, sizeof st)))
            fail_case(&g, "threads 1 and 3 differ", 0, 0, (uint32_t)o2.threads, (uint32_t)rc);
        if (g.repeat) {
            memcpy(C.mem, C.copy, C.len + 2 * GUARD);
            rc = mf_gemm_call(&g, Aread, Bread, cptr, &o2);
            if (rc != MF_OK || memcmp(c2, C.mem, C.len + 2 * GUARD))
                fail_case(&g, "a repeated call differs", 0, 0, 0, (uint32_t)rc);
        }
        free(c2);
    }

    /* ---- the reference ---- */
    {
        const int rcf = fz_ref_fmt(g.fc), mode = g.o.round, pol = g.o.overflow == MF_OVERFLOW_SATURATE;
        const int products = g.k > 0 && g.alpha != 0.0f;
        const int tc_c_in = is_tc && fz_f32_bits(g.alpha) == 0x3F800000u && fz_f32_bits(g.beta) == 0x3F800000u &&
                            g.sa.s.kind == MF_GEMM_SCALE_NONE && g.sb.s.kind == MF_GEMM_SCALE_NONE && g.fc == MF_FP32;
        const int emin_a = 1 - ref_formats[fz_ref_fmt(g.fa)].bias, emin_b = 1 - ref_formats[fz_ref_fmt(g.fb)].bias;
        double *va = (double *)malloc((g.m * g.k + 1) * sizeof(double));
        double *vb = (double *)malloc((g.k * g.n + 1) * sizeof(double));
        mf_stats want_st;
        int all_certain = 1;
        mpfr_t acc, t;
        if (!va || !vb)
            fz_fail("out of memory");
        /* operands as values (op(A) row-major m x k, op(B) column-major k x n) */
        if (products) {
            for (i = 0; i < g.m; i++)
                for (p = 0; p < g.k; p++)
                    va[i * g.k + p] = elem_value(&g, 0, A.p, i, p, is_tc);
            for (j = 0; j < g.n; j++)
                for (p = 0; p < g.k; p++)
                    vb[j * g.k + p] = elem_value(&g, 1, B.p, p, j, is_tc);
        }
        memset(&want_st, 0, sizeof want_st);
        mpfr_init2(acc, 2048);
        mpfr_init2(t, 2048);
        for (i = 0; i < g.m; i++)
            for (j = 0; j < g.n; j++) {
                const size_t e = at(g.layout, g.ldc, i, j);
                const uint32_t c_code = get(C.copy + GUARD, g.fc, e);
                const double cv = ref_decode(rcf, c_code);
                const uint32_t got = get(C.p, g.fc, e);
                unsigned ev = 0;
                uint32_t want, rbits;
                int certain = 1;
                mpfr_set_zero(acc, 1);
                if (products) {
                    if (g.o.accum == MF_ACCUM_FP32) {
                        float s = 0.0f;
                        for (p = 0; p < g.k; p++)
                            s = fmaf((float)va[i * g.k + p], (float)vb[j * g.k + p], s);
                        mpfr_set_flt(acc, s, MPFR_RNDN);
                    } else {
                        /* the exact sum; for a model, whether its rules could have changed it */
                        double sum_abs = 0;
                        int q_min = INT32_MAX, top = INT32_MIN, any_nan = 0, nonfinite = 0;
                        for (p = 0; p < g.k; p++) {
                            const double x = va[i * g.k + p], y = vb[j * g.k + p], pr = x * y;
                            if (mpfr_add_d(acc, acc, pr, MPFR_RNDN))
                                fz_fail("reference: inexact sum");
                            if (!is_tc)
                                continue;
                            if (isnan(x) || isnan(y))
                                any_nan = 1;
                            if (!isfinite(pr)) {
                                nonfinite = 1;
                                continue;
                            }
                            if (pr != 0) {
                                const int re = raw_exp(x, g.fa == MF_FP32 ? -126 : emin_a) +
                                               raw_exp(y, g.fb == MF_FP32 ? -126 : emin_b);
                                const int ue = ulp_exp(pr);
                                top = re > top ? re : top;
                                q_min = ue < q_min ? ue : q_min;
                                sum_abs += fabs(pr);
                            }
                        }
                        if (is_tc && tc_c_in) {
                            if (!isfinite(cv))
                                nonfinite = 1;
                            else if (cv != 0) {
                                const int re = raw_exp(cv, -126), ue = ulp_exp(cv);
                                top = re > top ? re : top;
                                q_min = ue < q_min ? ue : q_min;
                                sum_abs += fabs(cv);
                            }
                        }
                        if (is_tc) {
                            if (any_nan && (g.fa == MF_FP32 || g.fb == MF_FP32))
                                certain = 0; /* TF32 truncation of a NaN's payload: not documented */
                            else if (nonfinite)
                                certain = sum_abs < 0x1p127; /* no finite partial sum overflows */
                            else if (q_min != INT32_MAX) {
                                int T = top, sb_;
                                frexp(sum_abs * (1 + 0x1p-40), &sb_); /* above the rounding of sum_abs */ /* every partial sum is below 2^sb_ */
                                T = sb_ - 1 > T ? sb_ - 1 : T;
                                if (q_min < -126 && T < -126)
                                    T = -126;
                                if (g.o.accum == MF_ACCUM_H100 && T < -133)
                                    T = -133;
                                certain = q_min >= -149 && T - tcF <= q_min && T + 1 - q_min <= (kept13 ? 14 : 24) &&
                                          sum_abs < 0x1p126;
                            }
                        }
                    }
                    if (!tc_c_in) {
                        if (mpfr_mul_d(acc, acc, (double)g.alpha, MPFR_RNDN) ||
                            mpfr_mul_d(acc, acc, scale_epi(&g.sa, i), MPFR_RNDN) ||
                            mpfr_mul_d(acc, acc, scale_epi(&g.sb, j), MPFR_RNDN))
                            fz_fail("reference: inexact product");
                    }
                } else if (is_tc && tc_c_in && isfinite(cv) && cv == 0)
                    certain = 0; /* k = 0 with C as the accumulator input: its zero's sign is C's */
                if (g.beta != 0.0f) {
                    if (mpfr_set_d(t, cv, MPFR_RNDN) || mpfr_mul_d(t, t, (double)g.beta, MPFR_RNDN) ||
                        mpfr_add(acc, acc, t, MPFR_RNDN))
                        fz_fail("reference: inexact epilogue");
                }
                rbits = mode == REF_SR ? mf_sr_rbits(g.o.seed, g.o.sr_offset + i * g.n + j, mf_sr_width(g.fc)) : 0;
                want = round_c(rcf, acc, mode, pol, rbits, &ev);
                want_st.overflow += (ev & REF_EV_OVERFLOW) != 0;
                want_st.underflow += (ev & REF_EV_UNDERFLOW) != 0;
                want_st.subnormal += (ev & REF_EV_SUBNORMAL) != 0;
                want_st.nan += (ev & REF_EV_NAN) != 0;
                want_st.inexact += (ev & REF_EV_INEXACT) != 0;
                if (!certain) {
                    all_certain = 0;
                    continue;
                }
                if (got != want)
                    fail_case(&g, is_tc ? "tensor-core model, exact case" : "element", i, j, want, got);
            }
        mpfr_clear(acc);
        mpfr_clear(t);
        free(va);
        free(vb);
        if (getenv("MF_FUZZ_GEMM_VERBOSE"))
            fprintf(stderr, "case %s%s%s m=%zu n=%zu k=%zu %s x %s -> %s accum=%d scales=%d,%d round=%d threads=%d "
                    "alpha=%a beta=%a: %zu elements, certain %d, nan %llu inexact %llu\n",
                    g.layout == MF_ROW_MAJOR ? "row" : "col", g.ta == MF_TRANS ? "T" : "N", g.tb == MF_TRANS ? "T" : "N",
                    g.m, g.n, g.k, fz_fmt_name(g.fa), fz_fmt_name(g.fb), fz_fmt_name(g.fc), (int)g.o.accum,
                    (int)g.sa.s.kind, (int)g.sb.s.kind, (int)g.o.round, g.o.threads, (double)g.alpha, (double)g.beta,
                    g.m * g.n, all_certain, (unsigned long long)want_st.nan, (unsigned long long)want_st.inexact);
        if (g.stats_on && all_certain && memcmp(&st, &want_st, sizeof st))
            fz_fail("stats: expected overflow %llu underflow %llu subnormal %llu nan %llu inexact %llu, got %llu %llu "
                    "%llu %llu %llu",
                    (unsigned long long)want_st.overflow, (unsigned long long)want_st.underflow,
                    (unsigned long long)want_st.subnormal, (unsigned long long)want_st.nan,
                    (unsigned long long)want_st.inexact, (unsigned long long)st.overflow,
                    (unsigned long long)st.underflow, (unsigned long long)st.subnormal, (unsigned long long)st.nan,
                    (unsigned long long)st.inexact);
    }

done:
    gbuf_free(&A);
    gbuf_free(&B);
    gbuf_free(&C);
    if (g.sa.have_buf)
        gbuf_free(&g.sa.buf);
    if (g.sb.have_buf)
        gbuf_free(&g.sb.buf);
    return 0;
}
