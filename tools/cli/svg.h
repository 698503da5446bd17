/* SPDX-License-Identifier: MIT */
/* tools/cli/svg.h - a few SVG primitives for the tool's plots (histograms, loss curves). Coordinates are
 * in SVG user units (pixels), y downwards. The functions write to a stdio stream and ignore errors;
 * the caller checks ferror() when it closes the file. */
#ifndef CLI_SVG_H
#define CLI_SVG_H

#include <stdio.h>

/* Start a document of w x h pixels with a white background. */
void cli_svg_begin(FILE *f, double w, double h);
/* Close the document. */
void cli_svg_end(FILE *f);
/* A filled rectangle; fill is an SVG colour ("#1f77b4"), opacity 0..1. */
void cli_svg_rect(FILE *f, double x, double y, double w, double h, const char *fill, double opacity);
/* A straight line; dash is 0 for solid, else the dash length. */
void cli_svg_line(FILE *f, double x1, double y1, double x2, double y2, const char *stroke, double width, double dash);
/* A polyline through n points; dash is NULL for solid, else an SVG dash pattern ("8 4"). */
void cli_svg_polyline(FILE *f, const double *xs, const double *ys, int n, const char *stroke, double width,
                      const char *dash);
/* Text; anchor is "start", "middle" or "end"; rotate in degrees about (x, y). The text is escaped. */
void cli_svg_text(FILE *f, double x, double y, const char *text, double size, const char *anchor, double rotate,
              const char *fill);

#endif /* CLI_SVG_H */
