/* SPDX-License-Identifier: MIT */
/* tools/cli/svg.c - see svg.h. */
#include "svg.h"

void cli_svg_begin(FILE *f, double w, double h)
{
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
            "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n"
            "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n",
            w, h, w, h, w, h);
}

void cli_svg_end(FILE *f) { fputs("</svg>\n", f); }

void cli_svg_rect(FILE *f, double x, double y, double w, double h, const char *fill, double opacity)
{
    if (w < 0) {
        x += w;
        w = -w;
    }
    if (h < 0) {
        y += h;
        h = -h;
    }
    fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\" fill-opacity=\"%.3f\"/>\n", x, y,
            w, h, fill, opacity);
}

void cli_svg_line(FILE *f, double x1, double y1, double x2, double y2, const char *stroke, double width, double dash)
{
    fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" stroke-width=\"%.2f\"", x1, y1, x2,
            y2, stroke, width);
    if (dash > 0)
        fprintf(f, " stroke-dasharray=\"%.1f %.1f\"", dash, dash);
    fputs("/>\n", f);
}

void cli_svg_polyline(FILE *f, const double *xs, const double *ys, int n, const char *stroke, double width,
                      const char *dash)
{
    int i;
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%.2f\" ", stroke, width);
    if (dash)
        fprintf(f, "stroke-dasharray=\"%s\" stroke-linejoin=\"round\" ", dash);
    fputs("points=\"", f);
    for (i = 0; i < n; i++)
        fprintf(f, "%s%.2f,%.2f", i ? " " : "", xs[i], ys[i]);
    fputs("\"/>\n", f);
}

void cli_svg_text(FILE *f, double x, double y, const char *text, double size, const char *anchor, double rotate,
              const char *fill)
{
    fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%.1f\" text-anchor=\"%s\" fill=\"%s\"", x, y, size, anchor,
            fill);
    if (rotate != 0)
        fprintf(f, " transform=\"rotate(%.1f %.2f %.2f)\"", rotate, x, y);
    fputc('>', f);
    for (; *text; text++) {
        switch (*text) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*text, f);
        }
    }
    fputs("</text>\n", f);
}
