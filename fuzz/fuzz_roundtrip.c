/* SPDX-License-Identifier: MIT */
/* fuzz/fuzz_roundtrip.c - decoding then re-encoding gives the code back; rounding is idempotent.
 *
 * Input: records of 4 bytes code, one value (fz_value), 1 byte mode/policy, 4 bytes rbits; at most
 * 64 records. Per record:
 *   A. for each narrow format, the code (masked to its width) decodes with mf_to_f32 and mf_to_f64
 *      to the same value, and re-encoding that value with mf_from_f32 / mf_from_f64 in every mode and
 *      policy (any rbits) returns the code; except NaN codes, which give the canonical NaN, and
 *      +-inf under SATURATE, which give +-max. The same for binary32 codes through mf_from_f64.
 *   B. for each target format, c1 = round(x) with the record's mode and policy, then v = decode(c1)
 *      and c2 = round(v) in every mode and policy: c2 == c1 with the same NaN / inf exceptions.
 * The facts used (max code, NaN code, inf code) come from ref_slow.h, not from the library.
 */
#include "fuzz_common.h"

/* What re-encoding the value of a code must give under policy pol. */
static uint32_t expect_again(int rf, uint32_t code, int pol)
{
    const ref_info *I = ref_info_of(rf);
    double v = ref_decode(rf, code);
    if (isnan(v))
        return I->nan_code;
    if (isinf(v) && pol == REF_SAT)
        return I->max_code | (code & ref_sign_bit(rf));
    return code;
}

static void check_code(mf_format f, uint32_t code, uint32_t rbits)
{
    int rf = fz_ref_fmt(f), mode, pol;
    float v32 = mf_to_f32(f, code);
    double v64 = mf_to_f64(f, code);
    FZ_CHECK(isnan(v32) ? isnan(v64) : fz_f64_bits((double)v32) == fz_f64_bits(v64),
             "decode: %s 0x%x: mf_to_f32 %a and mf_to_f64 %a differ", fz_fmt_name(f), (unsigned)code, (double)v32,
             v64);
    for (mode = 0; mode < REF_NMODE; mode++)
        for (pol = 0; pol < 2; pol++) {
            uint32_t want = expect_again(rf, code, pol);
            uint32_t g64 = mf_from_f64(f, v64, fz_modes[mode], fz_policies[pol], rbits);
            FZ_CHECK(g64 == want, "round trip: %s code 0x%x -> %a -> mf_from_f64 %s %s rbits 0x%08x: expected 0x%x, got 0x%x",
                     fz_fmt_name(f), (unsigned)code, v64, fz_mode_names[mode], fz_pol_names[pol], (unsigned)rbits,
                     (unsigned)want, (unsigned)g64);
            if (f != MF_FP32) {
                uint32_t g32 = mf_from_f32(f, v32, fz_modes[mode], fz_policies[pol], rbits);
                FZ_CHECK(g32 == want,
                         "round trip: %s code 0x%x -> %a -> mf_from_f32 %s %s rbits 0x%08x: expected 0x%x, got 0x%x",
                         fz_fmt_name(f), (unsigned)code, (double)v32, fz_mode_names[mode], fz_pol_names[pol],
                         (unsigned)rbits, (unsigned)want, (unsigned)g32);
            }
        }
}

static void check_idempotent(mf_format f, double x, int is_f32, int m1, int p1, uint32_t rbits)
{
    int rf = fz_ref_fmt(f), mode, pol;
    uint32_t c1 = fz_from(f, x, is_f32, m1, p1, rbits, NULL);
    double v = mf_to_f64(f, c1);
    FZ_CHECK(c1 <= ref_code_mask(rf), "%s: code 0x%x wider than the format", fz_fmt_name(f), (unsigned)c1);
    if (isnan(x))
        FZ_CHECK(c1 == ref_info_of(rf)->nan_code, "%s: NaN input gave 0x%x, not the canonical NaN 0x%x",
                 fz_fmt_name(f), (unsigned)c1, (unsigned)ref_info_of(rf)->nan_code);
    for (mode = 0; mode < REF_NMODE; mode++)
        for (pol = 0; pol < 2; pol++) {
            uint32_t want = expect_again(rf, c1, pol);
            uint32_t c2 = mf_from_f64(f, v, fz_modes[mode], fz_policies[pol], ~rbits);
            FZ_CHECK(c2 == want,
                     "idempotence: %s(%a) %s %s rbits 0x%08x = 0x%x = %a, again with %s %s: expected 0x%x, got 0x%x",
                     fz_fmt_name(f), x, fz_mode_names[m1], fz_pol_names[p1], (unsigned)rbits, (unsigned)c1, v,
                     fz_mode_names[mode], fz_pol_names[pol], (unsigned)want, (unsigned)c2);
            if (f != MF_FP32) {
                c2 = mf_from_f32(f, mf_to_f32(f, c1), fz_modes[mode], fz_policies[pol], ~rbits);
                FZ_CHECK(c2 == want,
                         "idempotence (f32 path): %s(%a) %s %s = 0x%x, again with %s %s: expected 0x%x, got 0x%x",
                         fz_fmt_name(f), x, fz_mode_names[m1], fz_pol_names[p1], (unsigned)c1, fz_mode_names[mode],
                         fz_pol_names[pol], (unsigned)want, (unsigned)c2);
            }
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
        uint32_t code = fz_u32(&r);
        int is_f32 = 0, t, ntargets;
        double x = fz_value(&r, &is_f32);
        uint8_t mp = fz_u8(&r);
        uint32_t rbits = fz_u32(&r);
        int m1 = mp % REF_NMODE, p1 = (mp >> 3) & 1;
        for (t = 0; t < FZ_N_NARROW; t++)
            check_code(fz_target(t), code & ref_code_mask(fz_ref_fmt(fz_target(t))), rbits);
        check_code(MF_FP32, code, rbits);
        ntargets = is_f32 ? FZ_N_NARROW : FZ_N_TARGETS;
        for (t = 0; t < ntargets; t++)
            check_idempotent(fz_target(t), x, is_f32, m1, p1, rbits);
    }
    return 0;
}
