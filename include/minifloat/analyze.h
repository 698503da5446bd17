/* SPDX-License-Identifier: MIT */
/* minifloat/analyze.h - what a format does to a tensor: overflow, underflow, error, safe scales.
 *
 *   mf_analyze_opts o = {0};          // f32 data, rn, IEEE overflow, no scaling
 *   mf_analyze_report r;
 *   mf_analyze(MF_FP16, data, n, &o, &r);
 *   printf("%llu of %zu overflow in f16\n", (unsigned long long)r.overflow, r.n);
 *
 * Every count is the count the scalar conversions give element by element (mf_from_f64_ev on the
 * scaled value); the error statistics compare each element's decoded result with its (scaled)
 * input, in binary64. docs/analyze.md defines every field with a worked example.
 *
 * The scaled value of element i is s = x * scale rounded to nearest-even in binary64, computed in
 * integers (the caller's rounding mode and FTZ/DAZ do not change it); it is exact when scale is a
 * power of two and s stays within binary64's normal range. Where that product leaves binary64's range,
 * a finite x whose s is +-inf counts as an overflow and a nonzero x whose s is 0 counts as an
 * underflow (if the result is zero), both inexact; these two rules are the only additions to the
 * events of mf_from_f64_ev. Counts, amax/amin, the histogram and the safe scales are computed in
 * integers; the error statistics use binary64 arithmetic (they assume the default environment).
 * Following mf_from_f64_ev, an infinite input under MF_OVERFLOW_SATURATE becomes +-max and counts as
 * an overflow into every target, as mf_convert does; the one difference from mf_convert is a target
 * equal to the data's format (f16 data analysed as f16), which mf_convert copies, keeping the inf.
 *
 * Part of the overflow lab, a library of its own: include <minifloat/lab.h> and link minifloat_lab
 * (-lminifloat_lab, or minifloat::lab in CMake).
 */
#ifndef MINIFLOAT_ANALYZE_H
#define MINIFLOAT_ANALYZE_H

#include "types.h"

MF_BEGIN_DECLS

/* Bins of the log2-magnitude histogram: bin b counts the nonzero finite |x| with
 * floor(log2 |x|) = b + MF_ANALYZE_HIST_MIN; magnitudes outside the range go to the end bins. */
#define MF_ANALYZE_HIST_MIN (-160)
#define MF_ANALYZE_HIST_BINS 321 /* exponents -160 .. 160 */

typedef struct mf_analyze_opts {
    mf_format src_format; /* the data's format: MF_FP32 (0, the default), MF_FP64, MF_FP16 or MF_BF16 */
    mf_round round;       /* as for mf_convert; sr: mf_sr_rbits(seed, sr_offset + i, mf_sr_width(fmt)) */
    mf_overflow overflow;
    uint64_t seed;
    uint64_t sr_offset;
    double scale; /* each element is multiplied by this before conversion (in binary64, see above;
                     exact for powers of two); 0 means 1 */
} mf_analyze_opts;

typedef struct mf_analyze_report {
    mf_format format;    /* the target format analysed */
    size_t n;            /* elements */
    double scale;        /* the scale applied (1 if opts.scale was 0) */

    /* inputs (before scaling) */
    uint64_t in_zero, in_nan, in_inf; /* zeros, NaNs, infinities */
    double amax;         /* largest finite |x| (0 if none) */
    double amin;         /* smallest nonzero finite |x| (0 if none) */

    /* what the conversion did (finite nonzero inputs unless said) */
    uint64_t overflow;   /* magnitude beyond max finite, or an inf that did not stay inf (MF_EVENT_OVERFLOW) */
    uint64_t saturated;  /* ... of which the result is +-max finite */
    uint64_t to_inf;     /* finite inputs that became +-inf */
    uint64_t to_nan;     /* non-NaN inputs that became NaN (e4m3 and e8m0 overflow under IEEE) */
    uint64_t underflow;  /* nonzero inputs that became zero */
    uint64_t subnormal;  /* results that are nonzero subnormals */
    uint64_t inexact;    /* results whose value differs from the input's (MF_EVENT_INEXACT; NaN inputs
                            excluded, and e8m0, which stores |x|, does not count a dropped sign) */

    /* error over the elements whose scaled input s and result y are both finite and whose result is
     * not a saturated overflow: absolute |y - s| and relative |y - s| / |s| (relative over nonzero s),
     * each difference and quotient rounded once in binary64; means and RMS over err_count / rel_count
     * from compensated (Neumaier) sums, the sum of squares kept under a power-of-two scale so that it
     * neither overflows nor underflows; 0 when the count is 0 */
    uint64_t err_count, rel_count;
    double abs_err_max, abs_err_mean, abs_err_rms;
    double rel_err_max, rel_err_mean, rel_err_rms;

    /* power-of-two scales of the data as given (before opts.scale, which does not change them; they
     * are the powers of two opts.scale could be): multiplying the data by 2^scale_up_log2 is the
     * largest such scaling under which no finite element overflows; by 2^scale_down_log2 the smallest
     * under which no nonzero finite element underflows to zero (both under opts.round, opts.overflow
     * and, for stochastic rounding, each element's own random bits). If scale_down_log2 >
     * scale_up_log2 the data's dynamic range is wider than the format's. Both are 0 when there is no
     * finite nonzero element. When no scaling at all makes an element zero (e8m0 has no zero, ro
     * never rounds to zero, ru never rounds a positive value to zero and rd a negative one),
     * scale_down_unbounded is set and scale_down_log2 is instead the smallest k under which every
     * nonzero finite |x| * 2^k is at least the format's smallest positive value. 2^k itself can lie
     * outside binary64 (f64 data near 2^-1074 analysed into f32), and then cannot be an opts.scale. */
    int scale_up_log2;
    int scale_down_log2;

    /* the data's log2-magnitude histogram (nonzero finite inputs, after scaling; sums to their count) */
    uint64_t hist[MF_ANALYZE_HIST_BINS]; /* a scaled value that left binary64 (inf, 0) is in an end bin */
    /* the format's landmarks in the same units: floor(log2) of min subnormal, min normal, max (e8m0:
     * -127, -127, 127) */
    int fmt_min_subnormal_log2, fmt_min_normal_log2, fmt_max_log2;

    int scale_down_unbounded; /* 1: no power of two makes an element zero (see scale_down_log2) */
} mf_analyze_report;

/* Analyse converting n elements of data (format opts->src_format) into fmt.
 * opts may be NULL (f32 data, rn, IEEE, scale 1). fmt may be any format but MF_FP64.
 * Returns MF_OK, or (checked in this order) MF_E_FORMAT (fmt or src_format not accepted), MF_E_ROUND,
 * MF_E_POLICY, MF_E_ARG (scale negative, inf or NaN; -0 means 1 like 0), MF_E_NULL (report NULL, or
 * data NULL with n > 0), MF_E_SIZE (n elements would span more than 2^57 bytes or past the end of the
 * address space, as in mf_convert); nothing is written on error. n = 0 fills a report of zeros but for format,
 * scale and the format's landmarks. One pass over the data, on the calling thread. */
MF_API int mf_analyze(mf_format fmt, const void *data, size_t n, const mf_analyze_opts *opts,
                      mf_analyze_report *report);

MF_END_DECLS

#endif /* MINIFLOAT_ANALYZE_H */
