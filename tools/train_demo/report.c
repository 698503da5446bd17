/* SPDX-License-Identifier: MIT */
/* tools/train_demo/report.c - the demo's results as text tables, CSV and an SVG of the curves. */
#include "train_demo.h"

#include <math.h>
#include <stdlib.h>

#include "cli_util.h"
#include "svg.h"

/* The name for printing: never NULL (a bad value prints as "?"). */
static const char *cname(demo_config c)
{
    const char *s = demo_config_name(c);
    return s ? s : "?";
}

/* ---- the tables --------------------------------------------------------------------------------- */

static double pct(uint64_t a, uint64_t b) { return b ? 100.0 * (double)a / (double)b : 0.0; }

static void print_log2(char *buf, size_t size, float v)
{
    if (v > 0)
        snprintf(buf, size, "2^%.1f", log2((double)v));
    else
        snprintf(buf, size, "-");
}

void demo_print_report(FILE *o, const demo_params *p, const demo_result *res, int n, int every)
{
    int i, e, k, has_ls = -1, has_fp8 = -1, has_mx = -1;
    char a[32], b[32];
    fprintf(o, "minifloat train-demo: two spirals (%d training / %d test points, %.2f turns, noise %.3g),\n",
            p->n_train, p->n_test, p->turns, p->noise);
    fprintf(o, "MLP 2");
    for (k = 0; k < p->layers; k++)
        fprintf(o, "-%d", p->hidden);
    fprintf(o, "-2 (ReLU), softmax cross-entropy averaged over the batch, Adam lr %g (cosine), batch %d,\n", p->lr,
            p->batch);
    fprintf(o, "initial weights N(0, %g^2), %d epoch%s of %d step%s, seed %llu; FP32 master weights.\n",
            p->init_std, p->epochs, p->epochs == 1 ? "" : "s", p->n_train / p->batch,
            p->n_train / p->batch == 1 ? "" : "s", (unsigned long long)p->seed);
    fprintf(o, "Every configuration starts from the same weights and sees the same batches.\n\n");

    fprintf(o, "training loss (mean over the epoch)\n  epoch");
    for (i = 0; i < n; i++)
        fprintf(o, " %10s", cname(res[i].config));
    fputc('\n', o);
    for (e = 0; e < p->epochs; e++) {
        if (!(e == 0 || (e + 1) % every == 0 || e == p->epochs - 1))
            continue;
        fprintf(o, "  %5d", e + 1);
        for (i = 0; i < n; i++)
            fprintf(o, " %10.5f", res[i].epoch[e].loss);
        fputc('\n', o);
    }

    fprintf(o, "\nresults (accuracy of the FP32 master weights after the last epoch)\n");
    fprintf(o, "  %-8s %9s %9s %10s %8s  %s\n", "config", "test acc", "train acc", "final loss", "skipped", "");
    for (i = 0; i < n; i++)
        fprintf(o, "  %-8s %8.2f%% %8.2f%% %10.5f %8llu  %s\n", cname(res[i].config),
                100 * res[i].test_acc, 100 * res[i].train_acc, res[i].final_loss,
                (unsigned long long)res[i].skipped, demo_config_title(res[i].config));

    fprintf(o, "\nrounding events (mf_stats), summed over all steps; %% of the elements rounded\n");
    fprintf(o, "  %-8s %-9s %12s %18s %18s %18s %8s\n", "config", "tensors", "elements", "overflow", "underflow",
            "subnormal", "nan");
    for (i = 0; i < n; i++) {
        const demo_result *r = &res[i];
        for (k = 0; k < 2; k++) {
            const demo_counts *c = k ? &r->grad : &r->fwd;
            if (r->config == DEMO_FP32) {
                if (k == 0)
                    fprintf(o, "  %-8s %-9s %12s\n", "fp32", "all", "(not rounded)");
                continue;
            }
            fprintf(o, "  %-8s %-9s %12llu %9llu (%5.1f%%) %9llu (%5.1f%%) %9llu (%5.1f%%) %8llu\n",
                    k ? "" : demo_config_name(r->config), k ? "gradient" : "forward",
                    (unsigned long long)c->elems, (unsigned long long)c->overflow, pct(c->overflow, c->elems),
                    (unsigned long long)c->underflow, pct(c->underflow, c->elems), (unsigned long long)c->subnormal,
                    pct(c->subnormal, c->elems), (unsigned long long)c->nan);
        }
    }

    for (i = 0; i < n; i++) {
        if (res[i].config == DEMO_FP16_LS)
            has_ls = i;
        if (res[i].config == DEMO_FP8)
            has_fp8 = i;
        if (res[i].config == DEMO_MXFP8)
            has_mx = i;
    }
    if (has_ls >= 0 || has_fp8 >= 0 || has_mx >= 0) {
        fprintf(o, "\nscale history (end of epoch)\n  epoch");
        if (has_ls >= 0)
            fprintf(o, " %12s %8s", "loss scale", "skipped");
        if (has_fp8 >= 0)
            fprintf(o, " %16s %16s", "fp8 dlogits", "fp8 dZ layer 1");
        if (has_mx >= 0)
            fprintf(o, "  %s", "mxfp8 grad block exponents");
        fputc('\n', o);
        for (e = 0; e < p->epochs; e++) {
            if (!(e == 0 || (e + 1) % every == 0 || e == p->epochs - 1))
                continue;
            fprintf(o, "  %5d", e + 1);
            if (has_ls >= 0) {
                print_log2(a, sizeof a, res[has_ls].epoch[e].loss_scale);
                fprintf(o, " %12s %8d", a, res[has_ls].epoch[e].skipped);
            }
            if (has_fp8 >= 0) {
                print_log2(a, sizeof a, res[has_fp8].epoch[e].fp8_scale_out);
                print_log2(b, sizeof b, res[has_fp8].epoch[e].fp8_scale_in);
                fprintf(o, " %16s %16s", a, b);
            }
            if (has_mx >= 0)
                fprintf(o, "  2^%d .. 2^%d", res[has_mx].epoch[e].mx_exp_min, res[has_mx].epoch[e].mx_exp_max);
            fputc('\n', o);
        }
        if (has_ls >= 0)
            fprintf(o, "  loss scale: GradScaler rules (x2 after %d clean steps, x0.5 and skip on inf/NaN)\n",
                    p->ls_growth_interval);
        if (has_fp8 >= 0)
            fprintf(o, "  fp8: e5m2 scale = 57344 / max(amax history of %d steps), for the logits gradient and"
                       " the first layer's output gradient\n",
                    p->fp8_history);
        if (has_mx >= 0)
            fprintf(o, "  mxfp8: range of the E8M0 block scales of the gradient tensors in the epoch's last step\n");
    }
}

/* ---- CSV ---------------------------------------------------------------------------------------- */

int demo_write_csv(FILE *f, const demo_result *res, int n)
{
    int i, e;
    fputs("config,epoch,train_loss,test_acc,steps,skipped,loss_scale,fp8_scale_dlogits,fp8_scale_dz1,"
          "mx_grad_exp_min,mx_grad_exp_max,fwd_elems,fwd_overflow,fwd_underflow,fwd_subnormal,fwd_nan,"
          "grad_elems,grad_overflow,grad_underflow,grad_subnormal,grad_nan\n",
          f);
    for (i = 0; i < n; i++) {
        const demo_result *r = &res[i];
        for (e = 0; e < r->epochs; e++) {
            const demo_epoch *p = &r->epoch[e];
            fprintf(f, "%s,%d,%.17g,%.6f,%d,%d,", demo_config_name(r->config), e + 1, p->loss, p->test_acc,
                    p->steps, p->skipped);
            if (r->config == DEMO_FP16_LS)
                fprintf(f, "%.9g", p->loss_scale);
            fputc(',', f);
            if (r->config == DEMO_FP8)
                fprintf(f, "%.9g,%.9g", p->fp8_scale_out, p->fp8_scale_in);
            else
                fputc(',', f);
            fputc(',', f);
            if (r->config == DEMO_MXFP8)
                fprintf(f, "%d,%d", p->mx_exp_min, p->mx_exp_max);
            else
                fputc(',', f);
            fprintf(f, ",%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n", (unsigned long long)p->fwd.elems,
                    (unsigned long long)p->fwd.overflow, (unsigned long long)p->fwd.underflow,
                    (unsigned long long)p->fwd.subnormal, (unsigned long long)p->fwd.nan,
                    (unsigned long long)p->grad.elems, (unsigned long long)p->grad.overflow,
                    (unsigned long long)p->grad.underflow, (unsigned long long)p->grad.subnormal,
                    (unsigned long long)p->grad.nan);
        }
    }
    return ferror(f) ? -1 : 0;
}

/* ---- the plot ----------------------------------------------------------------------------------- */

/* Okabe-Ito colours (distinguishable with colour-blindness), one per configuration. */
static const char *const config_colors[DEMO_CONFIG_COUNT] = {"#000000", "#0072B2", "#D55E00",
                                                                 "#009E73", "#CC79A7", "#E69F00"};
static const double config_widths[DEMO_CONFIG_COUNT] = {3.2, 2.0, 2.4, 2.0, 1.8, 1.8};

static const char *config_dash(demo_config c)
{
    switch (c) {
    case DEMO_FP16_LS: return "8 4";
    case DEMO_FP8: return "2 3";
    case DEMO_MXFP8: return "10 3 2 3";
    default: return NULL;
    }
}

typedef struct panel {
    double x0, y0, w, h;  /* plot area in pixels */
    double xmin, xmax, ymin, ymax;
    int logy;
} panel;

static double px(const panel *p, double x) { return p->x0 + (x - p->xmin) / (p->xmax - p->xmin) * p->w; }

static double py(const panel *p, double y)
{
    double v = p->logy ? log10(y) : y;
    double lo = p->logy ? log10(p->ymin) : p->ymin, hi = p->logy ? log10(p->ymax) : p->ymax;
    if (v < lo)
        v = lo;
    if (v > hi)
        v = hi;
    return p->y0 + p->h - (v - lo) / (hi - lo) * p->h;
}

static void panel_frame(FILE *f, const panel *p, const char *title, const char *ylabel)
{
    cli_svg_rect(f, p->x0, p->y0, p->w, p->h, "#f7f7f7", 1.0);
    cli_svg_line(f, p->x0, p->y0 + p->h, p->x0 + p->w, p->y0 + p->h, "#333333", 1.2, 0);
    cli_svg_line(f, p->x0, p->y0, p->x0, p->y0 + p->h, "#333333", 1.2, 0);
    cli_svg_text(f, p->x0 + p->w / 2, p->y0 - 10, title, 15, "middle", 0, "#111111");
    cli_svg_text(f, p->x0 - 52, p->y0 + p->h / 2, ylabel, 13, "middle", -90, "#111111");
    cli_svg_text(f, p->x0 + p->w / 2, p->y0 + p->h + 38, "epoch", 13, "middle", 0, "#111111");
}

static double nice_step(double range, int target)
{
    double raw = range / target, mag = pow(10, floor(log10(raw))), f = raw / mag;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

static void x_ticks(FILE *f, const panel *p)
{
    double st = nice_step(p->xmax - p->xmin, 8), x;
    char buf[32];
    for (x = ceil(p->xmin / st) * st; x <= p->xmax + 1e-9; x += st) {
        cli_svg_line(f, px(p, x), p->y0 + p->h, px(p, x), p->y0 + p->h + 5, "#333333", 1, 0);
        cli_svg_line(f, px(p, x), p->y0, px(p, x), p->y0 + p->h, "#dddddd", 0.8, 0);
        snprintf(buf, sizeof buf, "%g", x);
        cli_svg_text(f, px(p, x), p->y0 + p->h + 19, buf, 12, "middle", 0, "#333333");
    }
}

int demo_plot_svg(const char *path, const demo_result *res, int n, const demo_params *prm, const char *title)
{
    const double W = 1100, H = 520;
    panel lp, ap;
    cli_out out;
    FILE *f;
    int i, e, maxe = 1, k;
    double lmin = 1e300, lmax = 0, amin = 1.0;
    double *xs, *ys;
    char buf[256];

    for (i = 0; i < n; i++) {
        if (res[i].epochs > maxe)
            maxe = res[i].epochs;
        for (e = 0; e < res[i].epochs; e++) {
            double l = res[i].epoch[e].loss, a = res[i].epoch[e].test_acc;
            if (l > 0 && l < 1e30) {
                if (l < lmin)
                    lmin = l;
                if (l > lmax)
                    lmax = l;
            }
            if (a < amin)
                amin = a;
        }
    }
    if (!(lmax > 0)) {
        lmin = 0.01;
        lmax = 1;
    }
    xs = malloc((size_t)maxe * sizeof *xs);
    ys = malloc((size_t)maxe * sizeof *ys);
    if (!xs || !ys || cli_out_open(&out, path) != 0) { /* written whole or not at all (cli_out) */
        free(xs);
        free(ys);
        return -1;
    }
    f = out.f;
    cli_svg_begin(f, W, H);
    if (!title) {
        snprintf(buf, sizeof buf,
                 "Two spirals, MLP 2-%d x%d-2, batch %d, %d epochs, seed %llu: one model, six number formats",
                 prm ? prm->hidden : 0, prm ? prm->layers : 0, prm ? prm->batch : 0, maxe,
                 (unsigned long long)(prm ? prm->seed : 0));
        title = buf;
    }
    cli_svg_text(f, W / 2, 26, title, 16, "middle", 0, "#000000");

    /* left: training loss, log scale over whole decades */
    lp.x0 = 80, lp.y0 = 70, lp.w = 420, lp.h = 340;
    lp.xmin = 0, lp.xmax = maxe, lp.logy = 1;
    lp.ymin = pow(10, floor(log10(lmin)));
    lp.ymax = pow(10, ceil(log10(lmax)));
    panel_frame(f, &lp, "training loss (cross-entropy, log scale)", "loss");
    x_ticks(f, &lp);
    for (k = (int)floor(log10(lp.ymin)); k <= (int)ceil(log10(lp.ymax)); k++) {
        int m;
        for (m = 1; m <= 9; m++) {
            double v = m * pow(10, k);
            if (v < lp.ymin * 0.999 || v > lp.ymax * 1.001)
                continue;
            cli_svg_line(f, lp.x0, py(&lp, v), lp.x0 + lp.w, py(&lp, v), m == 1 ? "#cfcfcf" : "#e8e8e8", 0.8, 0);
            if (m == 1 || m == 2 || m == 5) {
                snprintf(buf, sizeof buf, "%g", v);
                cli_svg_text(f, lp.x0 - 8, py(&lp, v) + 4, buf, 12, "end", 0, "#333333");
            }
        }
    }

    /* right: test accuracy */
    ap.x0 = 620, ap.y0 = 70, ap.w = 420, ap.h = 340;
    ap.xmin = 0, ap.xmax = maxe, ap.logy = 0;
    ap.ymin = amin < 0.5 ? floor(amin * 10) * 10 : 50;
    ap.ymax = 100;
    panel_frame(f, &ap, "test accuracy (FP32 master weights)", "accuracy (%)");
    x_ticks(f, &ap);
    {
        double st = nice_step(ap.ymax - ap.ymin, 6), v;
        for (v = ceil(ap.ymin / st) * st; v <= ap.ymax + 1e-9; v += st) {
            cli_svg_line(f, ap.x0, py(&ap, v), ap.x0 + ap.w, py(&ap, v), "#dddddd", 0.8, 0);
            snprintf(buf, sizeof buf, "%g", v);
            cli_svg_text(f, ap.x0 - 8, py(&ap, v) + 4, buf, 12, "end", 0, "#333333");
        }
    }

    /* curves: fp32 first (widest, underneath) */
    for (i = 0; i < n; i++) {
        const demo_result *r = &res[i];
        const char *col = config_colors[r->config], *dash = config_dash(r->config);
        double wdt = config_widths[r->config];
        int m = 0;
        for (e = 0; e < r->epochs; e++) {
            double l = r->epoch[e].loss;
            if (!(l > 0 && l < 1e30))
                break; /* a NaN loss ends the curve */
            xs[m] = px(&lp, e + 1);
            ys[m] = py(&lp, l);
            m++;
        }
        cli_svg_polyline(f, xs, ys, m, col, wdt, dash);
        for (e = 0; e < r->epochs; e++) {
            xs[e] = px(&ap, e + 1);
            ys[e] = py(&ap, 100 * r->epoch[e].test_acc);
        }
        cli_svg_polyline(f, xs, ys, r->epochs, col, wdt, dash);
    }

    /* legend below the panels: name, final test accuracy, gradient underflow */
    for (i = 0; i < n; i++) {
        const demo_result *r = &res[i];
        double lx = 80 + (i % 3) * 340, ly = H - 52 + (i / 3) * 24;
        const char *col = config_colors[r->config], *dash = config_dash(r->config);
        double lxs[2], lys[2];
        lxs[0] = lx, lxs[1] = lx + 36, lys[0] = lys[1] = ly - 4;
        cli_svg_polyline(f, lxs, lys, 2, col, config_widths[r->config], dash);
        snprintf(buf, sizeof buf, "%s: %.1f%% test, grad underflow %.1f%%", cname(r->config),
                 100 * r->test_acc, r->grad.elems ? 100.0 * (double)r->grad.underflow / (double)r->grad.elems : 0.0);
        cli_svg_text(f, lx + 44, ly, buf, 13, "start", 0, "#111111");
    }
    cli_svg_end(f);
    free(xs);
    free(ys);
    return cli_out_commit(&out); /* in place only if every write went through */
}
