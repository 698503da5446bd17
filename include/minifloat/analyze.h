/* minifloat/analyze.h - what a format does to a tensor: overflow, underflow, error, safe scales.
 *
 *   mf_analyze_opts o = {0};          // f32 data, rn, IEEE overflow, no scaling
 *   mf_analyze_report r;
 *   mf_analyze(MF_FP16, data, n, &o, &r);
 *   printf("%llu of %zu overflow in f16\n", (unsigned long long)r.overflow, r.n);
 *
 * Every count is the count the scalar conversions give element by element (mf_from_f64_ev on the
 * scaled value); the error statistics compare each element's decoded result with its exact (scaled)
 * input, in binary64.
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
    mf_round round;       /* as for mf_convert; stochastic uses mf_sr_bits(seed, sr_offset + i) */
    mf_overflow overflow;
    uint64_t seed;
    uint64_t sr_offset;
    double scale; /* each element is multiplied by this before conversion (exactly, in binary64);
                     0 means 1 */
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
    uint64_t inexact;    /* results whose value differs from the input's */

    /* error over the elements whose input and result are both finite and whose result is not a
     * saturated overflow: absolute |y - x| and relative |y - x| / |x| (relative over nonzero x) */
    uint64_t err_count, rel_count;
    double abs_err_max, abs_err_mean, abs_err_rms;
    double rel_err_max, rel_err_mean, rel_err_rms;

    /* power-of-two scales: multiplying the data by 2^scale_up_log2 is the largest such scaling under
     * which no finite element overflows; by 2^scale_down_log2 the smallest under which no nonzero
     * finite element underflows to zero (both under opts.round). If scale_down_log2 > scale_up_log2
     * the data's dynamic range is wider than the format's. Both are 0 when there is no finite nonzero
     * element. */
    int scale_up_log2;
    int scale_down_log2;

    /* the data's log2-magnitude histogram (nonzero finite inputs, after scaling) */
    uint64_t hist[MF_ANALYZE_HIST_BINS];
    /* the format's landmarks in the same units: floor(log2) of min subnormal, min normal, max */
    int fmt_min_subnormal_log2, fmt_min_normal_log2, fmt_max_log2;
} mf_analyze_report;

/* Analyse converting n elements of data (format opts->src_format) into fmt.
 * opts may be NULL (f32 data, rn, IEEE, scale 1). fmt may be any format but MF_FP64.
 * Returns MF_OK, or MF_E_NULL (data NULL with n > 0, report NULL), MF_E_FORMAT (fmt or src_format
 * not accepted), MF_E_ROUND, MF_E_POLICY, MF_E_ARG (scale negative, inf or NaN); nothing is written on
 * error. n = 0 fills a report of zeros. */
MF_API int mf_analyze(mf_format fmt, const void *data, size_t n, const mf_analyze_opts *opts,
                      mf_analyze_report *report);

MF_END_DECLS

#endif /* MINIFLOAT_ANALYZE_H */
