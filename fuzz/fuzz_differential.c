/* SPDX-License-Identifier: MIT */
/* fuzz/fuzz_differential.c - the library against the independent slow reference (ref_slow.h).
 *
 * Input: a sequence of records, each one value (fz_value: binary32 or binary64), 4 bytes of rbits
 * and 2 bytes of a code; at most 64 records. For every record:
 *   - rounding: every target format (the narrow ones; binary32 too for binary64 values), every mode
 *     (sr with the record's rbits and with the two rbits either side of the rounding threshold),
 *     both policies: code and events of mf_from_f32_ev / mf_from_f64_ev equal the reference's;
 *   - binary32 values: mf_from_f32(MF_FP32, ...) returns the input bits unchanged, every mode, with
 *     the events of an exact result (NaN input, nonzero subnormal output);
 *   - decoding: the code (masked to each format's width) decodes with mf_to_f64 / mf_to_f32 to the
 *     reference's value, bit for bit (signed zeros, NaN sign and payload with the quiet bit set).
 */
#include "fuzz_common.h"

static void check_round(mf_format f, double x, int is_f32, int mode, int pol, uint32_t rbits)
{
    int rf = fz_ref_fmt(f);
    unsigned lev = 0, rev = 0;
    uint32_t got = fz_from(f, x, is_f32, mode, pol, rbits, &lev);
    uint32_t want = ref_round(rf, x, mode, pol, rbits, &rev);
    lev = fz_ev_to_ref(lev);
    if (got != want || lev != rev)
        fz_fail("differential: %s(%s %a = 0x%016llx) -> %s %s %s rbits=0x%08x: expected code 0x%x events 0x%x, "
                "got code 0x%x events 0x%x (events: 1 overflow, 2 underflow, 4 subnormal, 8 nan, 16 inexact)",
                is_f32 ? "mf_from_f32" : "mf_from_f64", is_f32 ? "f32" : "f64", x,
                (unsigned long long)fz_f64_bits(x), fz_fmt_name(f), fz_mode_names[mode], fz_pol_names[pol],
                (unsigned)rbits, (unsigned)want, rev, (unsigned)got, lev);
}

static void check_value(double x, int is_f32, uint32_t rbits)
{
    int t, mode, pol;
    int ntargets = is_f32 ? FZ_N_NARROW : FZ_N_TARGETS;
    if (is_f32) {
        float xf = (float)x;
        for (mode = 0; mode < REF_NMODE; mode++)
            for (pol = 0; pol < 2; pol++) {
                unsigned ev = 0;
                uint32_t got = mf_from_f32_ev(MF_FP32, xf, fz_modes[mode], fz_policies[pol], rbits, &ev);
                unsigned want_ev = isnan(x) ? (unsigned)MF_EVENT_NAN
                                   : ref_is_subnormal_code(REF_F32, fz_f32_bits(xf)) ? (unsigned)MF_EVENT_SUBNORMAL
                                                                                    : 0u;
                FZ_CHECK(got == fz_f32_bits(xf) && ev == want_ev,
                         "identity: mf_from_f32(MF_FP32, 0x%08x) %s %s gave 0x%08x events 0x%x",
                         (unsigned)fz_f32_bits(xf), fz_mode_names[mode], fz_pol_names[pol], (unsigned)got, ev);
            }
    }
    for (t = 0; t < ntargets; t++) {
        mf_format f = fz_target(t);
        uint32_t fr = ref_sr_fraction(fz_ref_fmt(f), x);
        for (pol = 0; pol < 2; pol++) {
            for (mode = 0; mode < REF_NMODE; mode++)
                check_round(f, x, is_f32, mode, pol, rbits);
            if (fr != 0) { /* the threshold: up iff fraction + rbits >= 2^32 */
                check_round(f, x, is_f32, REF_SR, pol, (uint32_t)(((uint64_t)1 << 32) - fr));
                check_round(f, x, is_f32, REF_SR, pol, (uint32_t)(((uint64_t)1 << 32) - fr - 1));
            }
            check_round(f, x, is_f32, REF_SR, pol, 0);
            check_round(f, x, is_f32, REF_SR, pol, 0xFFFFFFFFu);
        }
    }
}

static void check_decode(mf_format f, uint32_t code)
{
    int rf = fz_ref_fmt(f);
    double want = ref_decode(rf, code);
    double got = mf_to_f64(f, code);
    float got32 = mf_to_f32(f, code);
    if (isnan(want)) {
        FZ_CHECK(fz_f64_bits(got) == ref_nan_f64_bits(rf, code),
                 "decode: mf_to_f64(%s, 0x%x): expected NaN bits 0x%016llx, got 0x%016llx", fz_fmt_name(f),
                 (unsigned)code, (unsigned long long)ref_nan_f64_bits(rf, code),
                 (unsigned long long)fz_f64_bits(got));
        FZ_CHECK(fz_f32_bits(got32) == ref_nan_f32_bits(rf, code),
                 "decode: mf_to_f32(%s, 0x%x): expected NaN bits 0x%08x, got 0x%08x", fz_fmt_name(f),
                 (unsigned)code, (unsigned)ref_nan_f32_bits(rf, code), (unsigned)fz_f32_bits(got32));
    } else {
        FZ_CHECK(fz_f64_bits(got) == fz_f64_bits(want), "decode: mf_to_f64(%s, 0x%x): expected %a, got %a",
                 fz_fmt_name(f), (unsigned)code, want, got);
        FZ_CHECK(fz_f64_bits((double)got32) == fz_f64_bits(want),
                 "decode: mf_to_f32(%s, 0x%x): expected %a, got %a", fz_fmt_name(f), (unsigned)code, want,
                 (double)got32);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_reader r;
    int rec;
    r.p = data;
    r.n = size;
    ref_init();
    for (rec = 0; rec < 64 && (rec == 0 || r.n > 0); rec++) {
        int is_f32 = 0, t;
        double x = fz_value(&r, &is_f32);
        uint32_t rbits = fz_u32(&r);
        uint32_t code = fz_u16(&r);
        check_value(x, is_f32, rbits);
        if (!is_f32) /* the same binary64 value given as binary32 when it is one */
            if (!isnan(x) && (isinf(x) || (fabs(x) <= FLT_MAX && (double)(float)x == x)))
                check_value(x, 1, rbits);
        for (t = 0; t < FZ_N_NARROW; t++)
            check_decode(fz_target(t), code & ref_code_mask(fz_ref_fmt(fz_target(t))));
        check_decode(MF_FP32, code | (rbits & 0xFFFF0000u));
    }
    return 0;
}
