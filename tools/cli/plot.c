/* SPDX-License-Identifier: MIT */
/* tools/cli/plot.c - see plot.h. The picture, top to bottom: title, the histogram (log-scaled counts,
 * one bar per binade) with each format's overflow (solid) and underflow (dashed) thresholds drawn
 * across it, one lane per format showing where its underflow, subnormal, normal and overflow
 * regions fall on the same axis, the log2 |x| axis, and a legend. */
#include "plot.h"

#include <math.h>
#include <string.h>

#include "svg.h"

static const struct {
    const char *name, *color;
} colors[] = {{"f16", "#1f77b4"},      {"bf16", "#ff7f0e"},     {"e4m3", "#2ca02c"},     {"e5m2", "#9467bd"},
              {"e2m1", "#8c564b"},     {"e2m3", "#17becf"},     {"e3m2", "#e377c2"},     {"f32", "#7f7f7f"},
              {"e8m0", "#bcbd22"},     {"e4m3fnuz", "#1a6b1a"}, {"e5m2fnuz", "#5b3a8c"}, {"e4m3b11fnuz", "#8ca252"},
              {"e4m3ieee", "#393b79"}, {"e3m4", "#7b4173"}};

const char *cli_plot_format_color(const char *name)
{
    /* formats without a colour of their own above take one of these by enum value */
    static const char *const more[] = {"#e6550d", "#3182bd", "#31a354", "#756bb1", "#636363", "#fd8d3c",
                                       "#6baed6", "#74c476", "#9e9ac8", "#bdbdbd", "#843c39", "#637939"};
    mf_format f;
    size_t i;
    for (i = 0; i < sizeof colors / sizeof colors[0]; i++)
        if (strcmp(name, colors[i].name) == 0)
            return colors[i].color;
    if (mf_format_from_name(name, &f) == MF_OK)
        return more[(size_t)f % (sizeof more / sizeof more[0])];
    return "#555555";
}

#define CLI_OVERFLOW_COLOR "#d62728"
#define CLI_ZERO_COLOR "#d9d9d9"
#define CLI_BAR_COLOR "#4a5568"
#define CLI_INK "#222222"
#define CLI_GREY "#666666"

/* 12345 -> "12.3k" */
static void short_count(char *buf, size_t size, uint64_t c)
{
    double v = (double)c;
    if (c < 10000)
        snprintf(buf, size, "%llu", (unsigned long long)c);
    else if (v < 1e6)
        snprintf(buf, size, "%.3gk", v / 1e3);
    else if (v < 1e9)
        snprintf(buf, size, "%.3gM", v / 1e6);
    else
        snprintf(buf, size, "%.3gG", v / 1e9);
}

static void scale_label(char *buf, size_t size, double l)
{
    if (l == 0)
        buf[0] = '\0';
    else if (l == floor(l))
        snprintf(buf, size, " \xc3\x97" "2^%.0f", l); /* U+00D7 multiplication sign */
    else
        snprintf(buf, size, " \xc3\x97" "%.4g", pow(2.0, l));
}

typedef struct geom {
    double x0, x1, lo, hi; /* pixel span and the log2 range it shows */
} geom;

static double px(const geom *g, double l) { return g->x0 + (l - g->lo) / (g->hi - g->lo) * (g->x1 - g->x0); }

/* Width of text in pixels, roughly (DejaVu Sans averages 0.6 em; UTF-8 continuation bytes skipped). */
static double text_width(const char *s, double size)
{
    double n = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)
            n += 1;
    return n * size * 0.6;
}

static double clampd(double v, double a, double b) { return v < a ? a : v > b ? b : v; }

/* A horizontal segment [a, b] (log2 units) of a lane, clipped to the view. */
static void lane_seg(FILE *f, const geom *g, double a, double b, double y, double h, const char *fill, double op)
{
    a = clampd(a, g->lo, g->hi);
    b = clampd(b, g->lo, g->hi);
    if (b > a)
        cli_svg_rect(f, px(g, a), y, px(g, b) - px(g, a), h, fill, op);
}

/* A 22x12 legend swatch striped with the formats' colours. */
static void swatch(FILE *f, double x, double y, const cli_plot_input *in, double op)
{
    int i, n = in->nformats < 1 ? 1 : in->nformats > 4 ? 4 : in->nformats;
    for (i = 0; i < n; i++)
        cli_svg_rect(f, x + 22.0 * i / n, y, 22.0 / n, 12,
                 in->nformats ? cli_plot_format_color(in->formats[i].name) : "#555555", op);
}

int cli_plot_svg(FILE *f, const cli_plot_input *in)
{
    const double W = 1000, left = 108, right = 236, top = 74, hist_h = 290, lane_h = 18, lane_gap = 7;
    const int nf = in->nformats < CLI_PLOT_MAX_FORMATS ? in->nformats : CLI_PLOT_MAX_FORMATS;
    double lanes_top, axis_y, legend_y, H, lo = 0, hi = 0, span, t;
    int b, i, first = -1, last = -1, decades, k, step;
    uint64_t maxc = 0;
    geom g;
    char buf[200], c1[32], c2[32], c3[32];

    /* the data's extent in whole binades */
    for (b = 0; b < in->hist_bins; b++)
        if (in->hist[b]) {
            if (first < 0)
                first = b;
            last = b;
            if (in->hist[b] > maxc)
                maxc = in->hist[b];
        }
    if (first >= 0) {
        lo = first + in->hist_min;
        hi = last + in->hist_min + 1;
    } else {
        lo = -12;
        hi = 12;
    }
    /* thresholds within reach of the data are shown too, for context */
    span = hi - lo;
    t = span * 0.5 > 10 ? span * 0.5 : 10;
    for (i = 0; i < nf; i++) {
        const cli_plot_format *p = &in->formats[i];
        if (p->max_log2 > hi && p->max_log2 < hi + t)
            hi = p->max_log2;
        if (p->zero_log2 < lo && p->zero_log2 > lo - t)
            lo = p->zero_log2;
    }
    span = hi - lo;
    if (span < 16) {
        lo -= (16 - span) / 2;
        hi += (16 - span) / 2;
        span = 16;
    }
    g.lo = floor(lo - span * 0.04 - 0.5);
    g.hi = ceil(hi + span * 0.04 + 0.5);
    g.x0 = left;
    g.x1 = W - right;

    lanes_top = top + hist_h + 14;
    axis_y = lanes_top + nf * (lane_h + lane_gap) + 2;
    legend_y = axis_y + 52;
    H = legend_y + 46;

    cli_svg_begin(f, W, H);
    cli_svg_text(f, left, 28, in->title, 17, "start", 0, CLI_INK);
    if (in->subtitle)
        cli_svg_text(f, left, 48, in->subtitle, 12, "start", 0, CLI_GREY);
    if (in->zeros || in->nonfinite) {
        short_count(c1, sizeof c1, in->zeros);
        short_count(c2, sizeof c2, in->nonfinite);
        snprintf(buf, sizeof buf, "not shown: %s zeros, %s NaN/inf", c1, c2);
        cli_svg_text(f, left, 64, buf, 11, "start", 0, CLI_GREY);
    }

    /* histogram frame, decade grid (log-scaled counts) */
    decades = maxc > 0 ? (int)ceil(log10((double)maxc * 1.15)) : 1;
    if (decades < 1)
        decades = 1;
    cli_svg_rect(f, g.x0, top, g.x1 - g.x0, hist_h, "#f7f7f7", 1);
    for (k = 0; k <= decades; k++) {
        double y = top + hist_h - (k + 0.5) / (decades + 0.5) * hist_h;
        static const char *const lab[] = {"1", "10", "100", "1k", "10k", "100k", "1M", "10M", "100M", "1G"};
        cli_svg_line(f, g.x0, y, g.x1, y, "#dddddd", 1, 0);
        if (k < 10)
            cli_svg_text(f, g.x0 - 6, y + 4, lab[k], 11, "end", 0, CLI_GREY);
    }
    cli_svg_text(f, 22, top + hist_h / 2, "elements per binade (log scale)", 12, "middle", -90, CLI_INK);

    /* subnormal bands, faint, under the bars */
    for (i = 0; i < nf; i++) {
        const cli_plot_format *p = &in->formats[i];
        double a = clampd(p->zero_log2, g.lo, g.hi), c = clampd(p->min_normal_log2, g.lo, g.hi);
        if (p->has_subnormals && c > a)
            cli_svg_rect(f, px(&g, a), top, px(&g, c) - px(&g, a), hist_h, cli_plot_format_color(p->name), 0.10);
    }

    /* bars */
    for (b = 0; b < in->hist_bins; b++) {
        double l = b + in->hist_min, y0, h;
        if (!in->hist[b] || l < g.lo || l + 1 > g.hi)
            continue;
        h = (log10((double)in->hist[b]) + 0.5) / (decades + 0.5) * hist_h;
        y0 = top + hist_h - h;
        {
            /* a gap between bars where they are wide; at least 1.5 px where they are not */
            double bw = px(&g, l + 1) - px(&g, l), w = bw - (bw * 0.2 < 2 ? bw * 0.2 : 2);
            if (w < 1.5)
                w = 1.5;
            cli_svg_rect(f, px(&g, l) + (bw - w) / 2, y0, w, h, CLI_BAR_COLOR, 0.85);
        }
    }

    /* thresholds across the histogram: overflow solid, underflow dashed */
    for (i = 0; i < nf; i++) {
        const cli_plot_format *p = &in->formats[i];
        const char *col = cli_plot_format_color(p->name);
        if (p->max_log2 > g.lo && p->max_log2 < g.hi)
            cli_svg_line(f, px(&g, p->max_log2), top, px(&g, p->max_log2), top + hist_h, col, 1.8, 0);
        if (p->zero_log2 > g.lo && p->zero_log2 < g.hi)
            cli_svg_line(f, px(&g, p->zero_log2), top, px(&g, p->zero_log2), top + hist_h, col, 1.5, 4);
    }
    /* their labels, each in the first row where it overlaps no other, on a white backing */
    {
        double used[2 * CLI_PLOT_MAX_FORMATS][2];
        int row_of[2 * CLI_PLOT_MAX_FORMATS], nl = 0, j;
        for (i = 0; i < 2 * nf; i++) {
            const cli_plot_format *p = &in->formats[i / 2];
            int over = (i & 1) == 0, row;
            double l = over ? p->max_log2 : p->zero_log2, x, w, a, z;
            if (!(l > g.lo && l < g.hi))
                continue;
            snprintf(buf, sizeof buf, over ? "%s max" : "%s \xe2\x86\x92 0", p->name); /* U+2192 arrow */
            w = text_width(buf, 10.5);
            x = px(&g, l);
            a = over ? x - 3 - w : x + 3;
            z = a + w;
            for (row = 0; row < 2 * CLI_PLOT_MAX_FORMATS; row++) {
                for (j = 0; j < nl; j++)
                    if (row_of[j] == row && a < used[j][1] + 4 && z > used[j][0] - 4)
                        break;
                if (j == nl)
                    break;
            }
            used[nl][0] = a;
            used[nl][1] = z;
            row_of[nl++] = row;
            cli_svg_rect(f, a - 1, top + 3 + 14 * row, w + 2, 13, "white", 0.85);
            cli_svg_text(f, a, top + 13 + 14 * row, buf, 10.5, "start", 0, cli_plot_format_color(p->name));
        }
    }
    if (first < 0)
        cli_svg_text(f, (g.x0 + g.x1) / 2, top + hist_h / 2, "no finite nonzero elements", 14, "middle", 0, CLI_GREY);

    /* lanes */
    for (i = 0; i < nf; i++) {
        const cli_plot_format *p = &in->formats[i];
        const char *col = cli_plot_format_color(p->name);
        double y = lanes_top + i * (lane_h + lane_gap);
        lane_seg(f, &g, g.lo, p->zero_log2, y, lane_h, CLI_ZERO_COLOR, 1);
        if (p->has_subnormals)
            lane_seg(f, &g, p->zero_log2, p->min_normal_log2, y, lane_h, col, 0.35);
        lane_seg(f, &g, p->min_normal_log2, p->max_log2, y, lane_h, col, 0.9);
        lane_seg(f, &g, p->max_log2, g.hi, y, lane_h, CLI_OVERFLOW_COLOR, 0.8);
        scale_label(c1, sizeof c1, p->scale_log2);
        snprintf(buf, sizeof buf, "%s%s", p->name, c1);
        cli_svg_text(f, g.x0 - 6, y + lane_h - 5, buf, 12, "end", 0, col);
        short_count(c1, sizeof c1, p->overflow);
        short_count(c2, sizeof c2, p->underflow);
        short_count(c3, sizeof c3, p->subnormal);
        snprintf(buf, sizeof buf, "ovf %s \xc2\xb7 \xe2\x86\x92" "0 %s \xc2\xb7 sub %s", c1, c2, c3);
        cli_svg_text(f, g.x1 + 10, y + lane_h - 5, buf, 11.5, "start", 0,
                     p->overflow || p->underflow ? CLI_INK : CLI_GREY);
    }
    cli_svg_text(f, g.x1 + 10, lanes_top - 4, "elements: overflow \xc2\xb7 to 0 \xc2\xb7 subnormal", 10, "start", 0,
                 CLI_GREY);

    /* x axis */
    cli_svg_line(f, g.x0, axis_y, g.x1, axis_y, CLI_INK, 1, 0);
    span = g.hi - g.lo;
    step = span <= 24 ? 2 : span <= 60 ? 5 : span <= 150 ? 10 : 20;
    for (k = (int)ceil(g.lo); k <= (int)floor(g.hi); k++) {
        double x = px(&g, k);
        int major = k % step == 0;
        if (!major && step >= 10 && k % (step / 5) != 0)
            continue; /* minor ticks every binade only where they do not make a comb */
        cli_svg_line(f, x, axis_y, x, axis_y + (major ? 6 : 3), CLI_INK, 1, 0);
        if (major) {
            snprintf(buf, sizeof buf, "%d", k);
            cli_svg_text(f, x, axis_y + 19, buf, 11, "middle", 0, CLI_INK);
            cli_svg_line(f, x, top, x, top + hist_h, "#e6e6e6", 0.8, 0);
        }
    }
    cli_svg_text(f, (g.x0 + g.x1) / 2, axis_y + 38,
                 "log2 |x|   (x before scaling; a format used with scale s shows its range divided by s)", 12, "middle",
                 0, CLI_INK);

    /* legend */
    {
        double x = left, y = legend_y;
        swatch(f, x, y - 10, in, 0.9);
        cli_svg_text(f, x + 28, y, "normal range (format's colour)", 11, "start", 0, CLI_INK);
        x += 200;
        swatch(f, x, y - 10, in, 0.35);
        cli_svg_text(f, x + 28, y, "subnormal band", 11, "start", 0, CLI_INK);
        x += 128;
        cli_svg_rect(f, x, y - 10, 22, 12, CLI_ZERO_COLOR, 1);
        cli_svg_text(f, x + 28, y, "rounds to zero (underflow)", 11, "start", 0, CLI_INK);
        x += 180;
        cli_svg_rect(f, x, y - 10, 22, 12, CLI_OVERFLOW_COLOR, 0.8);
        cli_svg_text(f, x + 28, y, "overflows (inf, NaN or saturation)", 11, "start", 0, CLI_INK);
        y += 22;
        x = left;
        cli_svg_line(f, x, y - 4, x + 22, y - 4, CLI_INK, 1.8, 0);
        cli_svg_text(f, x + 28, y, "largest finite value: overflow to the right", 11, "start", 0, CLI_INK);
        x += 290;
        cli_svg_line(f, x, y - 4, x + 22, y - 4, CLI_INK, 1.5, 4);
        cli_svg_text(f, x + 28, y, "half the smallest subnormal: values to the left round to 0", 11, "start", 0,
                     CLI_INK);
        x += 370;
        cli_svg_rect(f, x, y - 10, 22, 12, CLI_BAR_COLOR, 0.85);
        cli_svg_text(f, x + 28, y, "data", 11, "start", 0, CLI_INK);
    }
    cli_svg_end(f);
    return ferror(f) ? -1 : 0;
}
