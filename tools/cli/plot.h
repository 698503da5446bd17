/* SPDX-License-Identifier: MIT */
/* tools/cli/plot.h - the picture of `minifloat analyze --plot`: the data's log2-magnitude histogram with
 * each format's range drawn under it (underflow, subnormal band, normal range, overflow) and its
 * thresholds marked across it. Written as SVG with svg.h. */
#ifndef CLI_PLOT_H
#define CLI_PLOT_H

#include <stdint.h>
#include <stdio.h>

#include <minifloat.h>

#define CLI_PLOT_MAX_FORMATS 16

/* One format's lane. Thresholds are in the data's units (log2 |x| before scaling): a format used
 * with scale s overflows above log2(max / s). */
typedef struct cli_plot_format {
    const char *name;      /* "f16" */
    double scale_log2;     /* log2 of the scale applied before conversion (0: none) */
    double max_log2;       /* log2(max finite / s): above it values overflow */
    double min_normal_log2;/* log2(min normal / s): below it values are subnormal */
    double min_sub_log2;   /* log2(min subnormal / s) */
    double zero_log2;      /* below it values round to zero (log2(min subnormal / 2 / s) under rn) */
    int has_subnormals;
    uint64_t overflow, underflow, subnormal; /* the counts of the report, for the lane's caption */
} cli_plot_format;

typedef struct cli_plot_input {
    const char *title;          /* first title line (e.g. the file name) */
    const char *subtitle;       /* second line (e.g. element count and type), may be NULL */
    const uint64_t *hist;       /* counts of floor(log2 |x|) = hist_min + i, i < hist_bins */
    int hist_min, hist_bins;
    uint64_t n;                 /* elements in all (zeros, NaN and inf included) */
    uint64_t zeros, nonfinite;  /* elements not in the histogram */
    int nformats;
    cli_plot_format formats[CLI_PLOT_MAX_FORMATS];
} cli_plot_input;

/* Write the SVG picture of in to f. Returns 0, or -1 if f reports a write error. */
int cli_plot_svg(FILE *f, const cli_plot_input *in);

/* The colour a format is drawn in ("#1f77b4"). */
const char *cli_plot_format_color(const char *name);

#endif /* CLI_PLOT_H */
