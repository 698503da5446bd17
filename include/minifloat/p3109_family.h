/* SPDX-License-Identifier: MIT */
/* minifloat/p3109_family.h - every format of the IEEE P3109 family by its parameters: K = 3 ... 16 bits.
 *
 *   const mf_p3109 b10 = {10, 4, 0, 1};   K = 10, P = 4, unsigned, extended: Binary10p4ue
 *   uint32_t c = mf_p3109_from_f64(b10, 0.3, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0);
 *   double v = mf_p3109_to_f64(b10, c);
 *
 * A format is four numbers (the report's section 3.1): K bits, precision P (P - 1 trailing significand bits;
 * 1 <= P <= K - 1 signed, 1 <= P <= K unsigned), signed or unsigned, extended (with infinities) or finite.
 * The K = 8 formats and Binary4p2sf are also rows of mf_format (MF_BINARY8P4SE ...), which mf_convert (with
 * its SIMD kernels) and <minifloat/p3109.h>'s arithmetic take; mf_p3109_of and mf_p3109_format go between the
 * two. Every member is reached through these functions, which round with the library's one core
 * (detail/round.h) from the same four facts the rows are made of: the same bits as the rows where both exist.
 *
 * Projection (the report's 4.7.3): round in mode r with an unbounded exponent, then saturate by policy o
 * (MF_OVERFLOW_SATURATE = SatFinite, MF_OVERFLOW_PROPAGATE = SatPropagate, MF_OVERFLOW_IEEE = SatNone), as
 * docs/formats.md ("IEEE P3109") states. MF_ROUND_STOCHASTIC is StochasticA with N random bits when rbits holds
 * them in its top N bits (R << (32 - N)), N = 1 ... 32; mf_p3109_from_f64_sr has StochasticA, B and C with N as an
 * argument. Codes sit in the low K bits. Invalid arguments (mf_p3109_check fails, a code of more than K bits, a
 * mode or policy outside its enum) give UINT32_MAX from the functions returning a code, NaN from those returning
 * a value and MF_E_ARG (negative) from those returning an int. Inline, for C, C++ and CUDA device code.
 */
#ifndef MINIFLOAT_P3109_FAMILY_H
#define MINIFLOAT_P3109_FAMILY_H

#include "p3109.h"

MF_BEGIN_DECLS

/* A member of the family: Binary<k>p<p><s|u><e|f>. */
typedef struct mf_p3109 {
    int k;         /* bits: 3 ... 16 */
    int p;         /* precision: 1 ... k - 1 signed, 1 ... k unsigned */
    int is_signed; /* 1 signed, 0 unsigned */
    int extended;  /* 1 extended (infinities), 0 finite */
} mf_p3109;

/* A decoded code: cls is one of mf_p3109_class's MF_P3109_CLASS_* values, and for the finite classes the value
 * is significand * 2^exponent exactly (significand < 2^P; 0 for the zero), negative for the NEG_ classes. */
typedef struct mf_p3109_value {
    int cls;
    int32_t exponent;
    uint32_t significand;
} mf_p3109_value;

/* MF_OK if f is a member of the family this header covers (K = 3 ... 16), else MF_E_ARG. */
MF_HD MF_INLINE int mf_p3109_check(mf_p3109 f)
{
    const int pmax = f.is_signed ? f.k - 1 : f.k;
    return f.k >= 3 && f.k <= 16 && f.p >= 1 && f.p <= pmax && (f.is_signed == 0 || f.is_signed == 1) &&
                   (f.extended == 0 || f.extended == 1)
               ? MF_OK
               : MF_E_ARG;
}

/* The core's four facts of f (bits 0 where f is not a member): exponent bits K - P signed, K - P + 1
 * unsigned, bias 2^(K - P - 1) signed, 2^(K - P) unsigned. */
MF_HD MF_INLINE mf__fmt mf__p3109_facts(mf_p3109 f)
{
    mf__fmt r = {0, 0, 0, 0};
    if (mf_p3109_check(f) != MF_OK)
        return r;
    r.bits = f.k;
    r.man = f.p - 1;
    r.bias = 1 << (f.is_signed ? f.k - f.p - 1 : f.k - f.p);
    r.kind = f.is_signed ? (f.extended ? MF__KIND_P3109SE : MF__KIND_P3109SF)
                         : (f.extended ? MF__KIND_P3109UE : MF__KIND_P3109UF);
    return r;
}

/* The parameters of an mf_format row of the family into *out: MF_OK, MF_E_FORMAT (not a P3109 row),
 * MF_E_NULL. */
MF_HD MF_INLINE int mf_p3109_of(mf_format fmt, mf_p3109 *out)
{
    const mf__fmt f = mf__fmt_get(fmt);
    if (!out)
        return MF_E_NULL;
    if (f.bits == 0 || !mf__fmt_p3109(f))
        return MF_E_FORMAT;
    out->k = f.bits;
    out->p = f.man + 1;
    out->is_signed = mf__fmt_signed(f);
    out->extended = mf__fmt_has_inf(f);
    return MF_OK;
}

/* The mf_format row that is f (the K = 8 members and Binary4p2sf), or MF_FORMAT_COUNT where f has none. */
MF_HD MF_INLINE mf_format mf_p3109_format(mf_p3109 f)
{
    const mf__fmt w = mf__p3109_facts(f);
    mf__fmt r;
#define MF__FORMAT(e, value, tag, nbits, nman, nbias, nkind, ...)                                                      \
    r = mf__fmt_get(e);                                                                                                \
    if (w.bits != 0 && mf__fmt_p3109(r) && r.bits == w.bits && r.man == w.man && r.bias == w.bias && r.kind == w.kind) \
        return e;
#include "formats.inc"
#undef MF__FORMAT
    return (mf_format)MF_FORMAT_COUNT;
}

/* Round a binary64 value into f; returns the code. */
MF_HD MF_INLINE uint32_t mf_p3109_from_f64_ev(mf_p3109 f, double x, mf_round r, mf_overflow o, uint32_t rbits,
                                              unsigned *events)
{
    const mf__fmt w = mf__p3109_facts(f);
    if (w.bits == 0 || (unsigned)r >= MF_ROUND_COUNT || (unsigned)o >= MF_OVERFLOW_COUNT)
        return MF__BAD_CODE;
    return mf__round_pack(w, mf__unpack(mf__fmt_get(MF_FP64), mf__f64_bits(x)), r, o, rbits, events);
}

MF_HD MF_INLINE uint32_t mf_p3109_from_f64(mf_p3109 f, double x, mf_round r, mf_overflow o, uint32_t rbits)
{
    unsigned ev = 0;
    return mf_p3109_from_f64_ev(f, x, r, o, rbits, &ev);
}

/* Round a binary32 value into f (exact in binary64, so the same code as mf_p3109_from_f64). */
MF_HD MF_INLINE uint32_t mf_p3109_from_f32(mf_p3109 f, float x, mf_round r, mf_overflow o, uint32_t rbits)
{
    return mf_p3109_from_f64(f, (double)x, r, o, rbits);
}

/* The report's stochastic roundings (4.7.4) with N random bits R (0 <= R < 2^N, N = 1 ... 31). With nu the part of
 * a unit in the last place that rounding toward zero drops (0 <= nu < 1), the magnitude goes up a unit iff
 *   MF_P3109_STOCHASTIC_A   floor(nu * 2^N) + R >= 2^N             (MF_ROUND_STOCHASTIC with rbits = R << (32 - N))
 *   MF_P3109_STOCHASTIC_B   floor(nu * 2^(N + 1)) + 2R + 1 >= 2^(N + 1)
 *   MF_P3109_STOCHASTIC_C   RNE(nu * 2^N) + R >= 2^N               (nu * 2^N to the nearest integer, ties to even)
 * and the result is then saturated by o as MF_ROUND_STOCHASTIC's is. */
typedef enum mf_p3109_stochastic {
    MF_P3109_STOCHASTIC_A,
    MF_P3109_STOCHASTIC_B,
    MF_P3109_STOCHASTIC_C
} mf_p3109_stochastic;

/* The core's 32-bit comparison word that makes MF_ROUND_STOCHASTIC round u as the mode does. The core goes up iff
 * floor(nu 2^32) + word >= 2^32: A's word is R << (32 - N); B's adds a half unit of R's last bit, which is
 * B's 2R + 1 over 2^(N + 1); C is B but where nu 2^N is an even integer plus exactly a half, which C rounds down
 * and B up: there it is A. */
MF_HD MF_INLINE uint32_t mf__p3109_sr_word(mf__fmt w, mf__unpacked u, mf_p3109_stochastic kind, int n, uint32_t rnd)
{
    const uint32_t a = rnd << (32 - n), b = a | (uint32_t)1 << (31 - n);
    if (kind == MF_P3109_STOCHASTIC_A)
        return a;
    if (kind == MF_P3109_STOCHASTIC_C && u.cls == MF__CLS_FINITE) {
        const mf__split sp = mf__round_split(w, u);
        if (sp.frac << n == (uint64_t)1 << 63 && ((sp.frac >> (64 - n)) & 1u) == 0)
            return a;
    }
    return b;
}

/* Round a binary64 value into f with a stochastic mode of the report and the N random bits rnd (their low N
 * bits; rnd < 2^N); returns the code, or UINT32_MAX for an invalid argument. */
MF_HD MF_INLINE uint32_t mf_p3109_from_f64_sr(mf_p3109 f, double x, mf_p3109_stochastic kind, int n, uint32_t rnd,
                                              mf_overflow o)
{
    const mf__fmt w = mf__p3109_facts(f);
    const mf__unpacked u = mf__unpack(mf__fmt_get(MF_FP64), mf__f64_bits(x));
    unsigned ev = 0;
    if (w.bits == 0 || (unsigned)kind > MF_P3109_STOCHASTIC_C || n < 1 || n > 31 || rnd >> n != 0 ||
        (unsigned)o >= MF_OVERFLOW_COUNT)
        return MF__BAD_CODE;
    return mf__round_pack(w, u, MF_ROUND_STOCHASTIC, o, mf__p3109_sr_word(w, u, kind, n, rnd), &ev);
}

/* Round a code of one member into another (one rounding; a member into itself is the identity). */
MF_HD MF_INLINE uint32_t mf_p3109_recode(mf_p3109 to, mf_p3109 from, uint32_t code, mf_round r, mf_overflow o,
                                         uint32_t rbits)
{
    const mf__fmt wt = mf__p3109_facts(to), wf = mf__p3109_facts(from);
    unsigned ev = 0;
    if (wt.bits == 0 || wf.bits == 0 || code > mf__fmt_code_mask(wf) || (unsigned)r >= MF_ROUND_COUNT ||
        (unsigned)o >= MF_OVERFLOW_COUNT)
        return MF__BAD_CODE;
    return mf__round_pack(wt, mf__unpack(wf, code), r, o, rbits, &ev);
}

/* The exact value of a code into *v: MF_OK, MF_E_ARG (f or the code invalid), MF_E_NULL. */
MF_HD MF_INLINE int mf_p3109_decode(mf_p3109 f, uint32_t code, mf_p3109_value *v)
{
    const mf__fmt w = mf__p3109_facts(f);
    mf__unpacked u;
    if (!v)
        return MF_E_NULL;
    if (w.bits == 0 || code > mf__fmt_code_mask(w))
        return MF_E_ARG;
    u = mf__unpack(w, code);
    v->exponent = 0;
    v->significand = 0;
    switch (u.cls) {
    case MF__CLS_NAN: v->cls = MF_P3109_CLASS_NAN; break;
    case MF__CLS_INF: v->cls = u.sign ? MF_P3109_CLASS_NEG_INF : MF_P3109_CLASS_POS_INF; break;
    case MF__CLS_ZERO: v->cls = MF_P3109_CLASS_ZERO; break;
    default:
        v->significand = (uint32_t)(u.sig >> (63 - w.man));
        v->exponent = u.exp - w.man;
        if (u.exp < mf__fmt_emin(w)) { /* subnormal: the field's own grid, 2^(emin - man) */
            v->significand >>= mf__fmt_emin(w) - u.exp;
            v->exponent = mf__fmt_emin(w) - w.man;
            v->cls = u.sign ? MF_P3109_CLASS_NEG_SUBNORMAL : MF_P3109_CLASS_POS_SUBNORMAL;
        } else {
            v->cls = u.sign ? MF_P3109_CLASS_NEG_NORMAL : MF_P3109_CLASS_POS_NORMAL;
        }
        break;
    }
    return MF_OK;
}

/* The value of a code as a binary64 number: exact for every code of a member with at most 11 exponent bits
 * (K - P <= 11 signed, K - P <= 10 unsigned; all K <= 11). Members with more exponent bits have values beyond
 * binary64: those above it give +-inf and those below it +-0 (mf_p3109_decode is exact for all). The NaN code
 * gives the quiet NaN with sign and payload clear. Integer operations only, as the conversions. */
MF_HD MF_INLINE double mf_p3109_to_f64(mf_p3109 f, uint32_t code)
{
    const mf__fmt w = mf__p3109_facts(f);
    mf__unpacked u;
    if (w.bits == 0 || code > mf__fmt_code_mask(w))
        return mf__f64_from_bits(0x7FF8000000000000u);
    u = mf__unpack(w, code);
    if (u.cls == MF__CLS_NAN)
        return mf__f64_from_bits(0x7FF8000000000000u);
    if (u.cls == MF__CLS_FINITE && u.exp > 1023)
        u.cls = MF__CLS_INF;
    if (u.cls == MF__CLS_FINITE && u.exp < -1074)
        u.cls = MF__CLS_ZERO;
    return mf__f64_from_bits(mf__pack_f64_exact(u));
}

/* The same as a binary32 number, rounded to nearest even where it is not one: exact for members with at most 8
 * exponent bits (all K <= 8); beyond binary32's range +-inf, or the nearest subnormal or zero. The NaN code
 * gives the quiet NaN with sign and payload clear. */
MF_HD MF_INLINE float mf_p3109_to_f32(mf_p3109 f, uint32_t code)
{
    const mf__fmt w = mf__p3109_facts(f);
    mf__unpacked u;
    unsigned ev = 0;
    if (w.bits == 0 || code > mf__fmt_code_mask(w))
        return mf__f32_from_bits(0x7FC00000u);
    u = mf__unpack(w, code);
    if (u.cls == MF__CLS_NAN) /* the quiet NaN with sign and payload clear, as the rows decode it */
        return mf__f32_from_bits(0x7FC00000u);
    return mf__f32_from_bits(mf__round_pack(mf__fmt_get(MF_FP32), u, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0, &ev));
}

/* Bulk conversions (the library; errors and stats as mf_convert's, minifloat/convert.h): n binary32 values into
 * f's codes, and n codes of f into binary32, each element as mf_p3109_from_f32 / mf__round_pack into binary32 would
 * round it in opts' mode and policy (NULL opts: rn, SatNone), stochastic rounding with the bits mf_convert gives
 * element i (mf_sr_rbits(seed, sr_offset + i, w), w = 8 for K <= 8 and 16 above). Codes take one byte each for
 * K <= 8 and two (uint16_t) above, in the low K bits; reading them, the bits above K are ignored. Returns MF_OK,
 * MF_E_ARG (f not a member, negative threads), MF_E_ROUND, MF_E_POLICY, MF_E_PROFILE (any profile but the
 * default), MF_E_NULL, MF_E_SIZE or MF_E_OVERLAP (the two arrays share a byte), and writes nothing on error. */
MF_API int mf_p3109_convert_from_f32(mf_p3109 f, void *dst, const float *src, size_t n, const mf_opts *opts);
MF_API int mf_p3109_convert_to_f32(float *dst, mf_p3109 f, const void *src, size_t n, const mf_opts *opts);

MF_END_DECLS

#endif /* MINIFLOAT_P3109_FAMILY_H */
