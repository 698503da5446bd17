/* SPDX-License-Identifier: MIT */
/* fuzz/fuzz_monotonic.c - rounding is monotonic, and every mode picks one of the two neighbours.
 *
 * Input: records of two values (fz_value; if both are binary32 they are rounded as binary32,
 * otherwise as binary64) and 4 bytes of rbits; at most 64 records. With a <= b (NaN inputs skipped;
 * e8m0 reads |x|, so there a and b are ordered by magnitude), for every target format and both
 * policies:
 *   1. every mode except sr, and sr with the same rbits for both: decode(round(a)) <= decode(round(b)),
 *      ignoring NaN results (e4m3, the FNUZ formats and e8m0 overflow to NaN under IEEE);
 *   2. for x in {a, b}: rd(x) <= x <= ru(x) by value where no clamp to max can intervene (|x| <= max,
 *      or IEEE with an inf or NaN to go to) and the result is not NaN; |rz(x)| <= |x|;
 *   3. the code of every mode (rn, rna, rz, ro, sr with the record's rbits, 0 and all ones) is the
 *      code of rd(x) or of ru(x); if rd(x) and ru(x) agree, every mode gives that code;
 *      sr with rbits 0 equals rz under SATURATE.
 * e8m0 maps every magnitude below 2^-127 to 2^-127; properties 2 skip those inputs.
 */
#include "fuzz_common.h"

static double dec(mf_format f, uint32_t c) { return mf_to_f64(f, c); }

static void check_pair(mf_format f, double a, double b, int is_f32, uint32_t rbits)
{
    int mode, pol;
    for (pol = 0; pol < 2; pol++)
        for (mode = 0; mode < REF_NMODE; mode++) {
            uint32_t ca = fz_from(f, a, is_f32, mode, pol, rbits, NULL);
            uint32_t cb = fz_from(f, b, is_f32, mode, pol, rbits, NULL);
            double va = dec(f, ca), vb = dec(f, cb);
            if (isnan(va) || isnan(vb))
                continue;
            FZ_CHECK(va <= vb,
                     "monotonic: %s %s %s rbits 0x%08x: a = %a <= b = %a but round(a) = 0x%x = %a > round(b) = 0x%x = %a",
                     fz_fmt_name(f), fz_mode_names[mode], fz_pol_names[pol], (unsigned)rbits, a, b, (unsigned)ca, va,
                     (unsigned)cb, vb);
        }
}

static void check_neighbours(mf_format f, double x, int is_f32, uint32_t rbits)
{
    int rf = fz_ref_fmt(f), pol, mode;
    const ref_info *I = ref_info_of(rf);
    int e8 = f == MF_E8M0;
    double xx = e8 ? fabs(x) : x;
    if (isnan(x) || (e8 && xx < ldexp(1.0, -127)))
        return;
    for (pol = 0; pol < 2; pol++) {
        uint32_t cd = fz_from(f, x, is_f32, REF_RD, pol, 0, NULL);
        uint32_t cu = fz_from(f, x, is_f32, REF_RU, pol, 0, NULL);
        uint32_t cz = fz_from(f, x, is_f32, REF_RZ, pol, 0, NULL);
        double d = dec(f, cd), u = dec(f, cu), z = dec(f, cz);
        /* a negative value into an unsigned P3109 format is below its range: 0 or NaN, not a neighbour */
        int below = x < 0 && !e8 && !ref_signed(rf);
        int unclamped = !below && (fabs(xx) <= I->max || (pol == REF_IEEE && (I->has_inf || I->has_nan)));
        static const uint32_t fixed_rbits[2] = {0u, 0xFFFFFFFFu};
        int k;
        if (unclamped) {
            FZ_CHECK(isnan(d) || d <= xx, "rd: %s %s: rd(%a) = 0x%x = %a > x", fz_fmt_name(f), fz_pol_names[pol], x,
                     (unsigned)cd, d);
            FZ_CHECK(isnan(u) || xx <= u, "ru: %s %s: ru(%a) = 0x%x = %a < x", fz_fmt_name(f), fz_pol_names[pol], x,
                     (unsigned)cu, u);
        }
        FZ_CHECK(isnan(z) || fabs(z) <= fabs(xx), "rz: %s %s: |rz(%a)| = |0x%x| = |%a| > |x|", fz_fmt_name(f),
                 fz_pol_names[pol], x, (unsigned)cz, z);
        for (mode = 0; mode < REF_NMODE; mode++) {
            for (k = 0; k < (mode == REF_SR ? 3 : 1); k++) {
                uint32_t rb = k == 0 ? rbits : fixed_rbits[k - 1];
                uint32_t c = fz_from(f, x, is_f32, mode, pol, rb, NULL);
                FZ_CHECK(c == cd || c == cu,
                         "neighbours: %s %s %s rbits 0x%08x: round(%a) = 0x%x is neither rd 0x%x nor ru 0x%x",
                         fz_fmt_name(f), fz_mode_names[mode], fz_pol_names[pol], (unsigned)rb, x, (unsigned)c,
                         (unsigned)cd, (unsigned)cu);
                FZ_CHECK(cd != cu || c == cd, "exact: %s %s %s: rd = ru = 0x%x but round(%a) = 0x%x", fz_fmt_name(f),
                         fz_mode_names[mode], fz_pol_names[pol], (unsigned)cd, x, (unsigned)c);
                if (mode == REF_SR && rb == 0 && pol == REF_SAT)
                    FZ_CHECK(c == cz, "sr rbits 0: %s sat: sr(%a) = 0x%x, rz = 0x%x", fz_fmt_name(f), x, (unsigned)c,
                             (unsigned)cz);
            }
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
        int fa = 0, fb = 0, t, ntargets, is_f32;
        double a = fz_value(&r, &fa), b = fz_value(&r, &fb);
        uint32_t rbits = fz_u32(&r);
        is_f32 = fa && fb;
        ntargets = is_f32 ? FZ_N_NARROW : FZ_N_TARGETS;
        if (isnan(a) || isnan(b))
            continue;
        if (a > b || (a == b && signbit(b) && !signbit(a))) { /* order, -0 before +0 */
            double t2 = a;
            a = b;
            b = t2;
        }
        for (t = 0; t < ntargets; t++) {
            mf_format f = fz_target(t);
            if (f == MF_E8M0) {
                double ma = fabs(a), mb = fabs(b);
                if (ma <= mb)
                    check_pair(f, ma, mb, is_f32, rbits);
                else
                    check_pair(f, mb, ma, is_f32, rbits);
            } else {
                check_pair(f, a, b, is_f32, rbits);
            }
            check_neighbours(f, a, is_f32, rbits);
            check_neighbours(f, b, is_f32, rbits);
        }
    }
    return 0;
}
