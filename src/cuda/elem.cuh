/* SPDX-License-Identifier: MIT */
// src/cuda/elem.cuh - the element code of the bulk kernels (convert, unscale-and-check, amax) (private).
//
// Everything here is __host__ __device__: the kernels in convert.cu and reduce.cu call these functions
// per element or per group, and tests/cuda/test_cuda_host.cu runs the very same code on the CPU against
// mf_convert, mf_unscale_check and mf_amax. The rules are those of src/portable/convert_portable.c,
// src/scale/loss_scale.c and src/scale/fp8_recipes.c; each conversion goes through the public inline
// functions (mf_from_f32, mf_from_f64, mf_to_f32), so the device fast paths behind them apply.
#ifndef MF_CUDA_ELEM_CUH
#define MF_CUDA_ELEM_CUH

#include <string.h>

#include <minifloat.h>

// ---- loads and stores ---------------------------------------------------------------------------

// A little-endian integer of sizeof(T) bytes at p. aligned: p is a multiple of sizeof(T) (one load);
// otherwise byte loads, since arrays need no alignment and the GPU faults on misaligned accesses.
template <typename T> MF_HD inline T mf__cu_ld(const unsigned char *p, bool aligned)
{
    T v = 0;
#ifdef __CUDA_ARCH__
    if (aligned)
        return *reinterpret_cast<const T *>(p);
#else
    if (aligned) {
        memcpy(&v, p, sizeof v);
        return v;
    }
#endif
    for (unsigned k = 0; k < sizeof(T); k++)
        v = (T)(v | (T)((T)p[k] << (8 * k)));
    return v;
}

template <typename T> MF_HD inline void mf__cu_st(unsigned char *p, T v, bool aligned)
{
#ifdef __CUDA_ARCH__
    if (aligned) {
        *reinterpret_cast<T *>(p) = v;
        return;
    }
#else
    if (aligned) {
        memcpy(p, &v, sizeof v);
        return;
    }
#endif
    for (unsigned k = 0; k < sizeof(T); k++)
        p[k] = (unsigned char)(v >> (8 * k));
}

// Bytes of one element (0 for a format packed two a byte, as e2m1): the storage column of its row.
MF_HD inline unsigned mf__cu_elem_bytes(mf_format f) { return (unsigned)mf__fmt_store_bits(f) / 8; }

// Element i of an array of format f as a code (a code narrower than its byte: the low bits; e2m1: its nibble).
MF_HD inline uint64_t mf__cu_load(mf_format f, const unsigned char *p, size_t i, bool aligned)
{
    switch (mf__fmt_store_bits(f)) {
    case 64: return mf__cu_ld<uint64_t>(p + 8 * i, aligned);
    case 32: return mf__cu_ld<uint32_t>(p + 4 * i, aligned);
    case 16: return mf__cu_ld<uint16_t>(p + 2 * i, aligned) & mf__fmt_code_mask(mf__fmt_get(f));
    case 4: return (p[i >> 1] >> (4 * (i & 1))) & 0xFu;
    default: return p[i] & mf__fmt_code_mask(mf__fmt_get(f));
    }
}

// Store a code as element i of an array of format f not packed two a byte (whose pairs the caller packs).
MF_HD inline void mf__cu_store(mf_format f, unsigned char *p, size_t i, uint64_t code, bool aligned)
{
    switch (mf__fmt_store_bits(f)) {
    case 64: mf__cu_st<uint64_t>(p + 8 * i, code, aligned); break;
    case 32: mf__cu_st<uint32_t>(p + 4 * i, (uint32_t)code, aligned); break;
    case 16: mf__cu_st<uint16_t>(p + 2 * i, (uint16_t)code, aligned); break;
    default: p[i] = (unsigned char)code; break;
    }
}

// ---- one element of mf_convert ------------------------------------------------------------------

// A nonzero subnormal code of format f (e8m0 has none).
MF_HD inline bool mf__cu_is_subnormal(mf_format fmt, uint64_t code)
{
    const mf__fmt f = mf__fmt_get(fmt);
    const uint64_t mag = code & mf__fmt_mag_mask(f);
    return f.kind != MF__KIND_E8M0 && mag != 0 && (mag >> f.man) == 0;
}

// Source code -> destination code, exactly as the portable backend's convert_loop and copy_same:
// equal formats copy the code; destinations that hold every source value (f64; f32 from anything
// but f64) decode it, saturating infinities under MF_OVERFLOW_SATURATE; the others round once. The
// MF__EV_* events are ORed into *ev; COUNT = false skips what only the counts need (and takes
// mf_from_f32 / mf_from_f64 without events, which may run as one instruction).
template <bool COUNT>
MF_HD MF_FORCE_INLINE uint64_t mf__cu_convert_elem(mf_format d, mf_format s, uint64_t code, mf_round r, mf_overflow o,
                                                   uint32_t rbits, unsigned *ev)
{
    if (d == s) {
        if (COUNT) {
            *ev |= (mf__unpack(mf__fmt_get(s), code).cls == MF__CLS_NAN ? (unsigned)MF__EV_NAN : 0u) |
                   (mf__cu_is_subnormal(s, code) ? (unsigned)MF__EV_SUBNORMAL : 0u);
        }
        return code;
    }
    if (d == MF_FP64 || (d == MF_FP32 && s != MF_FP64)) {
        const mf__fmt df = mf__fmt_get(d);
        uint64_t out = d == MF_FP64 ? mf__decode_f64_bits(s, code) : mf__f32_bits(mf_to_f32(s, (uint32_t)code));
        if (o == MF_OVERFLOW_SATURATE && (out & mf__fmt_mag_mask(df)) == mf__fmt_inf_code(df)) {
            out = (out & ~mf__fmt_mag_mask(df)) | mf__fmt_max_code(df); // saturation applies to infinities
            *ev |= MF__EV_OVERFLOW | MF__EV_INEXACT;
        }
        if (COUNT) {
            *ev |= (mf__unpack(mf__fmt_get(s), code).cls == MF__CLS_NAN ? (unsigned)MF__EV_NAN : 0u) |
                   (mf__cu_is_subnormal(d, out) ? (unsigned)MF__EV_SUBNORMAL : 0u);
        }
        return out;
    }
    if (s == MF_FP64) { // one rounding straight from binary64, never through f32
        const double x = mf__f64_from_bits(code);
        return COUNT ? mf_from_f64_ev(d, x, r, o, rbits, ev) : mf_from_f64(d, x, r, o, rbits);
    }
    // every narrower source value is exact in binary32: decode, then the one rounding
    const float x = mf_to_f32(s, (uint32_t)code);
    return COUNT ? mf_from_f32_ev(d, x, r, o, rbits, ev) : mf_from_f32(d, x, r, o, rbits);
}

// ---- stochastic rounding bits -------------------------------------------------------------------

// mf_sr_rbits(seed, idx, mf_sr_width(dst)) with the Philox block kept between calls: consecutive
// elements share a block (16 of them for 8-bit destinations), so a group computes one or two.
struct mf__cu_sr {
    uint64_t seed;
    unsigned width, shift;
    uint64_t block; // the number of the block in blk (UINT64_MAX: none yet; real numbers are < 2^62)
    mf_philox4x32 blk;
};

MF_HD inline mf__cu_sr mf__cu_sr_init(uint64_t seed, mf_format dst)
{
    mf__cu_sr s;
    s.seed = seed;
    s.width = mf_sr_width(dst);
    s.shift = mf__sr_shift(s.width);
    s.block = UINT64_MAX;
    s.blk.v[0] = s.blk.v[1] = s.blk.v[2] = s.blk.v[3] = 0;
    return s;
}

MF_HD inline uint32_t mf__cu_sr_rbits(mf__cu_sr *s, uint64_t idx)
{
    const uint64_t word = idx >> s->shift;
    if (word >> 2 != s->block) {
        s->blk = mf_sr_block(s->seed, word);
        s->block = word >> 2;
    }
    return mf_sr_slice(s->blk.v[word & 3], idx, s->width);
}

// ---- a range of mf_convert ------------------------------------------------------------------------

// One bulk conversion as the kernels see it (arguments already checked, as in launch.h).
struct mf__cu_cvt {
    unsigned char *dst;
    const unsigned char *src;
    size_t n; // elements in the whole call (e2m1: an odd n keeps the last high nibble)
    mf_format src_fmt;
    mf_round round;
    mf_overflow overflow;
    uint64_t seed, sr_offset;
    bool src_aligned, dst_aligned; // each pointer a multiple of its element size
};

// Convert elements [i0, i1) of the call into destination format D, adding the events to *c when
// COUNT. For e2m1 destinations i0 must be even and i1 even or n: each byte is written by one range.
template <mf_format D, bool COUNT>
MF_HD inline void mf__cu_convert_range(const mf__cu_cvt &a, size_t i0, size_t i1, mf_stats *c)
{
    mf__cu_sr sr = mf__cu_sr_init(a.seed, D);
    unsigned lo = 0;
    for (size_t i = i0; i < i1; i++) {
        const uint64_t code = mf__cu_load(a.src_fmt, a.src, i, a.src_aligned);
        const uint32_t rbits = a.round == MF_ROUND_STOCHASTIC ? mf__cu_sr_rbits(&sr, a.sr_offset + i) : 0u;
        unsigned ev = 0;
        const uint64_t out = mf__cu_convert_elem<COUNT>(D, a.src_fmt, code, a.round, a.overflow, rbits, &ev);
        if (mf__fmt_store_bits(D) == 4) { // two codes a byte
            unsigned char *b = a.dst + (i >> 1);
            if (i & 1)
                *b = (unsigned char)(lo | (unsigned)out << 4);
            else if (i + 1 == a.n) // the last element of an odd count: the high nibble stays
                *b = (unsigned char)((*b & 0xF0u) | (unsigned)out);
            else
                lo = (unsigned)out;
        } else {
            mf__cu_store(D, a.dst, i, out, a.dst_aligned);
        }
        if (COUNT)
            mf__stats_add(c, ev);
    }
}

// ---- the fast path: f32 -> f16 / bf16 / e4m3 / e5m2, rn, one policy -------------------------------

// Elements per group of the vector kernel: one 16-byte store.
template <mf_format D> MF_HD constexpr unsigned mf__cu_fast_group() { return D == MF_FP16 || D == MF_BF16 ? 8 : 16; }

// One element of the fast path: the same call as mf__cu_convert_elem makes for f32 sources, with
// the mode and policy constant so that mf_from_f32 folds to its instruction where there is one.
template <mf_format D, mf_overflow O> MF_HD MF_FORCE_INLINE uint32_t mf__cu_fast_elem(float x)
{
    return mf_from_f32(D, x, MF_ROUND_NEAREST_EVEN, O, 0u);
}

// ---- unscale-and-check ----------------------------------------------------------------------------

// The library's binary32 product from r, the IEEE round-to-nearest-even product a * b computed by
// the hardware: equal to it but for NaNs, where mf__f32_mul_bits returns the first NaN operand
// quieted, or 0x7FC00000 for 0 * inf (the GPU gives its canonical 0x7FFFFFFF instead).
MF_HD inline uint32_t mf__cu_mul_fix(uint32_t r, uint32_t a, uint32_t b)
{
    if ((r & 0x7FFFFFFFu) <= 0x7F800000u)
        return r;
    if ((a & 0x7FFFFFFFu) > 0x7F800000u)
        return a | 0x00400000u;
    if ((b & 0x7FFFFFFFu) > 0x7F800000u)
        return b | 0x00400000u;
    return 0x7FC00000u;
}

// a * b in binary32, round to nearest even, subnormals kept (nvcc does not flush unless -ftz=true,
// which this library never uses); __fmul_rn forbids contraction into an FMA.
MF_HD inline uint32_t mf__cu_mul(uint32_t a, uint32_t b)
{
#ifdef __CUDA_ARCH__
    const float r = __fmul_rn(__uint_as_float(a), __uint_as_float(b));
#else
    const float r = mf__f32_from_bits(a) * mf__f32_from_bits(b); // the host test's FP environment: rn
#endif
    return mf__cu_mul_fix(mf__f32_bits(r), a, b);
}

// One gradient of mf_unscale_check (F = MF_FP32, MF_FP16 or MF_BF16): its new code, and whether it was
// inf or NaN. inv is the binary32 factor; 0x3F800000 (1) means no multiplication (f32 then stays as it is,
// f16/bf16 still round back, which makes NaNs canonical).
template <mf_format F> MF_HD inline uint32_t mf__cu_unscale_elem(uint32_t code, uint32_t inv, bool *bad)
{
    if (F == MF_FP32) {
        *bad = (code & 0x7F800000u) == 0x7F800000u;
        return inv == 0x3F800000u ? code : mf__cu_mul(code, inv);
    }
    const uint32_t exp_mask = F == MF_FP16 ? 0x7C00u : 0x7F80u;
    uint32_t x = mf__f32_bits(mf_to_f32(F, code));
    *bad = (code & exp_mask) == exp_mask;
    if (inv != 0x3F800000u)
        x = mf__cu_mul(x, inv);
    return mf_from_f32(F, mf__f32_from_bits(x), MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0u);
}

// ---- amax ---------------------------------------------------------------------------------------

// The key max-reduced for mf_amax: the magnitude's code, which orders like the value; 0 for a NaN
// (skipped, as TE's fmaxf / __hmax skip them). -0 gives 0.
template <mf_format F> MF_HD inline uint64_t mf__cu_amax_key(uint64_t code)
{
    const uint64_t mag = F == MF_FP64 ? code & 0x7FFFFFFFFFFFFFFFu : F == MF_FP32 ? code & 0x7FFFFFFFu : code & 0x7FFFu;
    const uint64_t inf = F == MF_FP64   ? 0x7FF0000000000000u
                         : F == MF_FP32 ? 0x7F800000u
                         : F == MF_FP16 ? 0x7C00u
                                        : 0x7F80u;
    return mag <= inf ? mag : 0;
}

// The amax of a maximal key: widened exactly, or for f64 rounded once to binary32 (rn, IEEE).
MF_HD inline float mf__cu_amax_value(mf_format f, uint64_t key)
{
    if (f == MF_FP64)
        return mf__f32_from_bits(
            mf_from_f64(MF_FP32, mf__f64_from_bits(key), MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0u));
    return mf_to_f32(f, (uint32_t)key);
}

#endif // MF_CUDA_ELEM_CUH
