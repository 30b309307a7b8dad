/*
 * plot.c -- charts as inline SVG (plot.h): axes with 1-2-5 or decade ticks, lines, steps,
 * points, bars (vertical, horizontal, stacked), reference lines, a legend and a note.
 *
 * Pipeline position: eval/, used by report.c.  Everything is copied into the chart and laid
 * out at render time: the ranges are fitted to all series (and reference lines), expanded to
 * whole ticks.  Out of memory is recorded in the chart and reported by gv_plot_render.
 */
#include "plot.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { S_LINE, S_STEP, S_POINTS, S_BARS, S_HBARS, S_VLINE, S_HLINE, S_STACK };

typedef struct series {
    int kind;
    char *name;
    size_t n;
    double *x, *y;      /* [n] (bars: y only; vline/hline: one value in y[0]) */
    char **labels;      /* bars, hbars, stacked: [n] or NULL */
    int dashed;
    size_t n_stack;     /* stacked: series names[n_stack], y[n_stack * n] */
    char **names;
} series;

struct gv_plot {
    char *id, *title, *x_label, *y_label;
    int width, height, x_log, y_log;
    int has_xr, has_yr;
    double xr[2], yr[2];
    series *s;
    size_t n_series, cap;
    gv_buf note;
    int nomem;
};

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                      "#9467bd", "#8c564b", "#e377c2", "#17becf"};
#define N_COLORS (sizeof palette / sizeof palette[0])

static char *dup_or_fail(gv_plot *p, const char *s)
{
    char *d = gv_strdup(s ? s : "");
    if (!d) p->nomem = 1;
    return d;
}

gv_plot *gv_plot_new(const char *id, const char *title, int width, int height)
{
    gv_plot *p = gv_calloc(1, sizeof *p);
    if (!p) return NULL;
    p->id = gv_strdup(id);
    p->title = gv_strdup(title);
    p->x_label = gv_strdup("");
    p->y_label = gv_strdup("");
    p->width = width;
    p->height = height;
    if (!p->id || !p->title || !p->x_label || !p->y_label) {
        gv_plot_free(p);
        return NULL;
    }
    return p;
}

static void free_strings(char **v, size_t n)
{
    if (!v) return;
    for (size_t i = 0; i < n; i++) gv_free(v[i]);
    gv_free(v);
}

void gv_plot_free(gv_plot *p)
{
    if (!p) return;
    for (size_t i = 0; i < p->n_series; i++) {
        series *s = &p->s[i];
        gv_free(s->name);
        gv_free(s->x);
        gv_free(s->y);
        free_strings(s->labels, s->n);
        free_strings(s->names, s->n_stack);
    }
    gv_free(p->s);
    gv_free(p->id);
    gv_free(p->title);
    gv_free(p->x_label);
    gv_free(p->y_label);
    gv_buf_free(&p->note);
    gv_free(p);
}

void gv_plot_axes(gv_plot *p, const char *x_label, const char *y_label, int x_log, int y_log)
{
    gv_free(p->x_label);
    gv_free(p->y_label);
    p->x_label = dup_or_fail(p, x_label);
    p->y_label = dup_or_fail(p, y_label);
    p->x_log = x_log != 0;
    p->y_log = y_log != 0;
}

void gv_plot_y_range(gv_plot *p, double lo, double hi)
{
    p->has_yr = 1;
    p->yr[0] = lo;
    p->yr[1] = hi;
}

void gv_plot_x_range(gv_plot *p, double lo, double hi)
{
    p->has_xr = 1;
    p->xr[0] = lo;
    p->xr[1] = hi;
}

/* A new series slot (zeroed) or NULL (nomem recorded). */
static series *add_series(gv_plot *p, int kind, const char *name, size_t n)
{
    if (p->nomem) return NULL;
    if (p->n_series == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 8;
        series *s = gv_realloc_array(p->s, cap, sizeof *s);
        if (!s) {
            p->nomem = 1;
            return NULL;
        }
        p->s = s;
        p->cap = cap;
    }
    series *s = &p->s[p->n_series];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->n = n;
    s->name = gv_strdup(name ? name : "");
    s->x = gv_malloc_array(n ? n : 1, sizeof *s->x);
    s->y = gv_malloc_array(n ? n : 1, sizeof *s->y);
    if (!s->name || !s->x || !s->y) {
        gv_free(s->name);
        gv_free(s->x);
        gv_free(s->y);
        p->nomem = 1;
        return NULL;
    }
    p->n_series++;
    return s;
}

static void xy_series(gv_plot *p, int kind, const char *name, const double *x, const double *y,
                      size_t n, int dashed)
{
    series *s = add_series(p, kind, name, n);
    if (!s) return;
    for (size_t i = 0; i < n; i++) {
        s->x[i] = x ? x[i] : (double)(i + 1);
        s->y[i] = y[i];
    }
    s->dashed = dashed;
}

void gv_plot_line(gv_plot *p, const char *name, const double *x, const double *y, size_t n,
                  int dashed)
{
    xy_series(p, S_LINE, name, x, y, n, dashed);
}

void gv_plot_step(gv_plot *p, const char *name, const double *x, const double *y, size_t n)
{
    xy_series(p, S_STEP, name, x, y, n, 0);
}

void gv_plot_points(gv_plot *p, const char *name, const double *x, const double *y, size_t n)
{
    xy_series(p, S_POINTS, name, x, y, n, 0);
}

static char **copy_strings(gv_plot *p, const char *const *v, size_t n)
{
    char **d = gv_calloc(n ? n : 1, sizeof *d);
    if (!d) {
        p->nomem = 1;
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (!(d[i] = gv_strdup(v && v[i] ? v[i] : ""))) {
            free_strings(d, n);
            p->nomem = 1;
            return NULL;
        }
    return d;
}

static void bar_series(gv_plot *p, int kind, const char *name, const char *const *labels,
                       const double *v, size_t n)
{
    series *s = add_series(p, kind, name, n);
    if (!s) return;
    for (size_t i = 0; i < n; i++) {
        s->x[i] = (double)(i + 1);
        s->y[i] = v[i];
    }
    s->labels = copy_strings(p, labels, n);
}

void gv_plot_bars(gv_plot *p, const char *name, const char *const *labels, const double *v,
                  size_t n)
{
    bar_series(p, S_BARS, name, labels, v, n);
}

void gv_plot_hbars(gv_plot *p, const char *name, const char *const *labels, const double *v,
                   size_t n)
{
    bar_series(p, S_HBARS, name, labels, v, n);
}

void gv_plot_vline(gv_plot *p, const char *name, double x)
{
    series *s = add_series(p, S_VLINE, name, 1);
    if (s) s->x[0] = s->y[0] = x;
}

void gv_plot_hline(gv_plot *p, const char *name, double y)
{
    series *s = add_series(p, S_HLINE, name, 1);
    if (s) s->x[0] = s->y[0] = y;
}

void gv_plot_stacked(gv_plot *p, const char *const *names, size_t n_stack,
                     const char *const *labels, const double *v, size_t n)
{
    size_t total;
    if (gv_mul_size(n_stack, n, &total) != 0) {
        p->nomem = 1;
        return;
    }
    series *s = add_series(p, S_STACK, "stacked", total);
    if (!s) return;
    for (size_t i = 0; i < total; i++) {
        s->x[i] = (double)(i % (n ? n : 1) + 1);
        s->y[i] = v[i];
    }
    s->n = n;
    s->n_stack = n_stack;
    s->labels = copy_strings(p, labels, n);
    s->names = copy_strings(p, names, n_stack);
}

void gv_plot_note(gv_plot *p, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (p->note.len && gv_buf_append(&p->note, " ", 1) != 0) p->nomem = 1;
    if (gv_buf_append(&p->note, buf, strlen(buf)) != 0) p->nomem = 1;
}

/* ---- rendering ---- */

int gv_html_escape(gv_buf *out, const char *s)
{
    for (; *s; s++) {
        const char *r = NULL;
        switch (*s) {
        case '&': r = "&amp;"; break;
        case '<': r = "&lt;"; break;
        case '>': r = "&gt;"; break;
        case '"': r = "&quot;"; break;
        default: break;
        }
        /* control characters other than tab and newline are not allowed in XML */
        if (!r && (unsigned char)*s < 32 && *s != '\t' && *s != '\n') r = " ";
        if (r ? gv_buf_append(out, r, strlen(r)) : gv_buf_append(out, s, 1)) return -1;
    }
    return 0;
}

typedef struct frame {
    double x0, x1, y0, y1;     /* the plot area in pixels (y0 top) */
    double lo[2], hi[2];       /* data ranges (log axes: log10 of the values) */
    int log[2];
} frame;

/* The value on axis a as a coordinate of the range (log10 on log axes); NaN when not drawable. */
static double axis_value(const frame *f, int a, double v)
{
    if (isnan(v)) return NAN;
    if (f->log[a]) return v > 0 ? log10(v) : NAN;
    return v;
}

static double px(const frame *f, double v) /* v already through axis_value */
{
    return f->x0 + (v - f->lo[0]) / (f->hi[0] - f->lo[0]) * (f->x1 - f->x0);
}

static double py(const frame *f, double v)
{
    return f->y1 - (v - f->lo[1]) / (f->hi[1] - f->lo[1]) * (f->y1 - f->y0);
}

/* A 1-2-5 step near range / 5. */
static double nice_step(double range)
{
    if (!(range > 0)) return 1;
    double e = pow(10, floor(log10(range / 5)));
    double r = range / 5 / e;
    return (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10) * e;
}

/* Fits axis a's range to [lo, hi] (data values through axis_value), expanded to whole ticks. */
static void fit_axis(frame *f, int a, double lo, double hi)
{
    if (!(lo <= hi)) { /* no data */
        lo = f->log[a] ? -1 : 0;
        hi = f->log[a] ? 0 : 1;
    }
    if (hi - lo < 1e-12 * (fabs(lo) + fabs(hi)) || hi == lo) {
        double d = f->log[a] ? 0.5 : (lo == 0 ? 1 : fabs(lo) * 0.1);
        lo -= d;
        hi += d;
    }
    if (f->log[a]) {
        lo = floor(lo);
        hi = ceil(hi);
    } else {
        double st = nice_step(hi - lo);
        lo = floor(lo / st + 1e-9) * st;
        hi = ceil(hi / st - 1e-9) * st;
    }
    f->lo[a] = lo;
    f->hi[a] = hi;
}

static int emit(gv_buf *b, const char *fmt, ...) GV_PRINTF(2, 3);
static int emit(gv_buf *b, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf) return -1;
    return gv_buf_append(b, buf, (size_t)n);
}

/* A tick label: up to 4 significant digits ("0.25", "1e-05", "1200"). */
static void tick_text(double v, int is_log, char *buf, size_t size)
{
    if (is_log) v = pow(10, v);
    if (fabs(v) < 1e-12) v = 0;
    snprintf(buf, size, "%.4g", v);
}

static int draw_axes(const gv_plot *p, const frame *f, gv_buf *b, int cat_x, int cat_y)
{
    int bad = 0;
    char t[64];
    bad |= emit(b, "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                   "fill=\"none\" stroke=\"#444\"/>\n",
                f->x0, f->y0, f->x1 - f->x0, f->y1 - f->y0);
    for (int a = 0; a < 2; a++) {
        if ((a == 0 && cat_x) || (a == 1 && cat_y)) continue;
        double st = f->log[a] ? 1 : nice_step(f->hi[a] - f->lo[a]);
        size_t n_ticks = (size_t)floor((f->hi[a] - f->lo[a]) / st + 1e-9) + 1;
        if (f->log[a] && n_ticks > 9) st = ceil((double)(n_ticks - 1) / 8);
        for (double v = f->lo[a]; v <= f->hi[a] + 1e-9 * st; v += st) {
            tick_text(v, f->log[a], t, sizeof t);
            if (a == 0) {
                double x = px(f, v);
                bad |= emit(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                               "stroke=\"#ddd\"/>\n",
                            x, f->y0, x, f->y1);
                bad |= emit(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
                               "text-anchor=\"middle\">%s</text>\n",
                            x, f->y1 + 14, t);
            } else {
                double y = py(f, v);
                bad |= emit(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                               "stroke=\"#ddd\"/>\n",
                            f->x0, y, f->x1, y);
                bad |= emit(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
                               "text-anchor=\"end\">%s</text>\n",
                            f->x0 - 4, y + 4, t);
            }
        }
    }
    bad |= emit(b, "<text class=\"xlabel\" x=\"%.1f\" y=\"%.1f\" font-size=\"12\" "
                   "text-anchor=\"middle\">",
                (f->x0 + f->x1) / 2, (double)p->height - 6);
    bad |= gv_html_escape(b, p->x_label);
    bad |= emit(b, "%s</text>\n", p->x_log ? " (log scale)" : "");
    bad |= emit(b, "<text class=\"ylabel\" x=\"14\" y=\"%.1f\" font-size=\"12\" "
                   "text-anchor=\"middle\" transform=\"rotate(-90 14 %.1f)\">",
                (f->y0 + f->y1) / 2, (f->y0 + f->y1) / 2);
    bad |= gv_html_escape(b, p->y_label);
    bad |= emit(b, "%s</text>\n", p->y_log ? " (log scale)" : "");
    return bad ? -1 : 0;
}

static int open_series(gv_buf *b, const series *s, const char *kind, size_t drawn,
                       size_t dropped, const char *color)
{
    int bad = emit(b, "<g class=\"series\" data-name=\"");
    bad |= gv_html_escape(b, s->name);
    bad |= emit(b, "\" data-kind=\"%s\" data-points=\"%zu\" data-dropped=\"%zu\" "
                   "data-color=\"%s\">\n",
                kind, drawn, dropped, color);
    return bad;
}

/* Lines, steps and points. */
static int draw_xy(const series *s, const frame *f, const char *color, gv_buf *b)
{
    size_t drawn = 0, dropped = 0;
    for (size_t i = 0; i < s->n; i++) {
        double x = axis_value(f, 0, s->x[i]), y = axis_value(f, 1, s->y[i]);
        if (isnan(x) || isnan(y)) dropped++;
        else drawn++;
    }
    const char *kind = s->kind == S_LINE ? "line" : s->kind == S_STEP ? "step" : "points";
    int bad = open_series(b, s, kind, drawn, dropped, color);
    if (s->kind == S_POINTS) {
        for (size_t i = 0; i < s->n; i++) {
            double x = axis_value(f, 0, s->x[i]), y = axis_value(f, 1, s->y[i]);
            if (isnan(x) || isnan(y)) continue;
            bad |= emit(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\" "
                           "fill-opacity=\"0.6\"/>\n",
                        px(f, x), py(f, y), color);
        }
    } else {
        bad |= emit(b, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\"%s d=\"", color,
                    s->dashed ? " stroke-dasharray=\"5,3\"" : "");
        int first = 1;
        double last_y = 0;
        for (size_t i = 0; i < s->n; i++) {
            double x = axis_value(f, 0, s->x[i]), y = axis_value(f, 1, s->y[i]);
            if (isnan(x) || isnan(y)) continue;
            if (first)
                bad |= emit(b, "M%.1f,%.1f", px(f, x), py(f, y));
            else if (s->kind == S_STEP)
                bad |= emit(b, " H%.1f V%.1f", px(f, x), py(f, y));
            else
                bad |= emit(b, " L%.1f,%.1f", px(f, x), py(f, y));
            first = 0;
            last_y = y;
        }
        (void)last_y;
        bad |= emit(b, "\"/>\n");
        if (drawn == 1) /* a single point: show it */
            for (size_t i = 0; i < s->n; i++) {
                double x = axis_value(f, 0, s->x[i]), y = axis_value(f, 1, s->y[i]);
                if (!isnan(x) && !isnan(y))
                    bad |= emit(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
                                px(f, x), py(f, y), color);
            }
    }
    bad |= emit(b, "</g>\n");
    return bad ? -1 : 0;
}

static int draw_label(gv_buf *b, double x, double y, const char *anchor, const char *text,
                      double rotate)
{
    int bad;
    if (rotate != 0)
        bad = emit(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"%s\" "
                      "transform=\"rotate(%.0f %.1f %.1f)\">",
                   x, y, anchor, rotate, x, y);
    else
        bad = emit(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"%s\">", x, y,
                   anchor);
    bad |= gv_html_escape(b, text);
    bad |= emit(b, "</text>\n");
    return bad;
}

static int draw_bars(const series *s, const frame *f, const char *color, gv_buf *b,
                     size_t slot, size_t n_slots)
{
    int bad = open_series(b, s, s->kind == S_HBARS ? "hbars" : "bars", s->n, 0, color);
    if (s->kind == S_BARS) {
        double w = (f->x1 - f->x0) / (f->hi[0] - f->lo[0]) * 0.8 / (double)n_slots;
        double base = py(f, f->lo[1] > 0 ? f->lo[1] : f->hi[1] < 0 ? f->hi[1] : 0);
        for (size_t i = 0; i < s->n; i++) {
            double xc = px(f, s->x[i]) - 0.4 * (double)n_slots * w + ((double)slot + 0.5) * w;
            double y = isnan(s->y[i]) ? base : py(f, s->y[i]);
            bad |= emit(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                           "fill=\"%s\"/>\n",
                        xc - w / 2, y < base ? y : base, w, fabs(base - y), color);
            if (slot == 0 && s->labels)
                bad |= draw_label(b, px(f, s->x[i]), f->y1 + 14, s->n > 12 ? "end" : "middle",
                                  s->labels[i], s->n > 12 ? -45 : 0);
        }
    } else { /* horizontal: label i at row i from the top */
        double h = (f->y1 - f->y0) / (double)(s->n ? s->n : 1);
        double base = px(f, f->lo[0] > 0 ? f->lo[0] : 0);
        for (size_t i = 0; i < s->n; i++) {
            double y = f->y0 + (double)i * h;
            double x = isnan(s->y[i]) ? base : px(f, s->y[i]);
            bad |= emit(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                           "fill=\"%s\"/>\n",
                        x < base ? x : base, y + 0.15 * h, fabs(x - base), 0.7 * h, color);
            if (s->labels) bad |= draw_label(b, f->x0 - 4, y + 0.5 * h + 4, "end", s->labels[i], 0);
        }
    }
    bad |= emit(b, "</g>\n");
    return bad ? -1 : 0;
}

static int draw_stacked(const series *s, const frame *f, gv_buf *b)
{
    int bad = 0;
    double w = (f->x1 - f->x0) / (f->hi[0] - f->lo[0]) * 0.6;
    for (size_t k = 0; k < s->n_stack; k++) {
        series one = *s;
        one.name = s->names[k];
        const char *color = palette[k % N_COLORS];
        bad |= open_series(b, &one, "stack", s->n, 0, color);
        for (size_t j = 0; j < s->n; j++) {
            double below = 0;
            for (size_t q = 0; q < k; q++)
                if (s->y[q * s->n + j] > 0) below += s->y[q * s->n + j];
            double v = s->y[k * s->n + j];
            if (!(v > 0)) v = 0;
            double yt = py(f, below + v), yb = py(f, below);
            bad |= emit(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                           "fill=\"%s\"/>\n",
                        px(f, (double)(j + 1)) - w / 2, yt, w, yb - yt, color);
            if (k == 0 && s->labels)
                bad |= draw_label(b, px(f, (double)(j + 1)), f->y1 + 14, "middle", s->labels[j],
                                  0);
        }
        bad |= emit(b, "</g>\n");
    }
    return bad ? -1 : 0;
}

static int draw_marker(const series *s, const frame *f, gv_buf *b)
{
    int bad = emit(b, "<g class=\"marker\" data-name=\"");
    bad |= gv_html_escape(b, s->name);
    bad |= emit(b, "\" data-value=\"%.17g\">\n", s->y[0]);
    double v = axis_value(f, s->kind == S_VLINE ? 0 : 1, s->y[0]);
    if (!isnan(v)) {
        if (s->kind == S_VLINE) {
            double x = px(f, v);
            bad |= emit(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\" "
                           "stroke-dasharray=\"2,3\"/>\n",
                        x, f->y0, x, f->y1);
            bad |= draw_label(b, x + 3, f->y0 + 12, "start", s->name, 0);
        } else {
            double y = py(f, v);
            bad |= emit(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\" "
                           "stroke-dasharray=\"2,3\"/>\n",
                        f->x0, y, f->x1, y);
            bad |= draw_label(b, f->x1 - 3, y - 3, "end", s->name, 0);
        }
    }
    bad |= emit(b, "</g>\n");
    return bad ? -1 : 0;
}

int gv_plot_render(const gv_plot *p, gv_buf *b)
{
    if (p->nomem) return -1;
    frame f;
    memset(&f, 0, sizeof f);
    f.log[0] = p->x_log;
    f.log[1] = p->y_log;
    /* categorical axes: bars put categories on x, hbars on y */
    int cat_x = 0, cat_y = 0;
    size_t n_cat = 0, n_bar_series = 0, label_len = 0;
    for (size_t i = 0; i < p->n_series; i++) {
        const series *s = &p->s[i];
        if (s->kind == S_BARS || s->kind == S_STACK) {
            cat_x = 1;
            if (s->n > n_cat) n_cat = s->n;
            n_bar_series += s->kind == S_BARS;
        }
        if (s->kind == S_HBARS) {
            cat_y = 1;
            if (s->n > n_cat) n_cat = s->n;
            for (size_t j = 0; j < s->n; j++)
                if (s->labels && strlen(s->labels[j]) > label_len) label_len = strlen(s->labels[j]);
        }
    }
    if (label_len > 32) label_len = 32;
    f.x0 = cat_y ? 16 + 6.0 * (double)label_len : 62;
    f.x1 = p->width - 16;
    f.y0 = 46;
    f.y1 = p->height - (cat_x && n_cat > 12 ? 90 : 42);
    /* data ranges */
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (size_t i = 0; i < p->n_series; i++) {
        const series *s = &p->s[i];
        size_t count = s->kind == S_STACK ? s->n : s->n;
        for (size_t j = 0; j < count; j++) {
            double v[2] = {s->x[j], s->y[j]};
            if (s->kind == S_VLINE) v[1] = NAN;
            if (s->kind == S_HLINE) v[0] = NAN;
            if (s->kind == S_HBARS) { /* values on x */
                v[0] = s->y[j];
                v[1] = NAN;
            }
            if (s->kind == S_STACK) {
                double top = 0;
                for (size_t q = 0; q < s->n_stack; q++)
                    if (s->y[q * s->n + j] > 0) top += s->y[q * s->n + j];
                v[1] = top;
            }
            for (int a = 0; a < 2; a++) {
                double t = axis_value(&f, a, v[a]);
                if (isnan(t) || isinf(t)) continue;
                if (t < lo[a]) lo[a] = t;
                if (t > hi[a]) hi[a] = t;
            }
        }
        /* bars start at zero */
        if ((s->kind == S_BARS || s->kind == S_STACK) && !p->y_log) {
            if (lo[1] > 0) lo[1] = 0;
            if (hi[1] < 0) hi[1] = 0;
        }
        if (s->kind == S_HBARS && !p->x_log) {
            if (lo[0] > 0) lo[0] = 0;
            if (hi[0] < 0) hi[0] = 0;
        }
    }
    if (p->has_xr) {
        lo[0] = axis_value(&f, 0, p->xr[0]);
        hi[0] = axis_value(&f, 0, p->xr[1]);
    }
    if (p->has_yr) {
        lo[1] = axis_value(&f, 1, p->yr[0]);
        hi[1] = axis_value(&f, 1, p->yr[1]);
    }
    fit_axis(&f, 0, lo[0], hi[0]);
    fit_axis(&f, 1, lo[1], hi[1]);
    if (cat_x) {
        f.lo[0] = 0.5;
        f.hi[0] = (double)n_cat + 0.5;
    }
    if (cat_y) {
        f.lo[1] = 0;
        f.hi[1] = (double)n_cat;
    }

    int bad = emit(b, "<figure>\n<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" "
                      "id=\"%s\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                      "font-family=\"sans-serif\" data-title=\"",
                   p->id, p->width, p->height, p->width, p->height);
    bad |= gv_html_escape(b, p->title);
    bad |= emit(b, "\">\n<title>");
    bad |= gv_html_escape(b, p->title);
    bad |= emit(b, "</title>\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    bad |= emit(b, "<text x=\"%d\" y=\"18\" font-size=\"14\" font-weight=\"bold\" "
                   "text-anchor=\"middle\">",
                p->width / 2);
    bad |= gv_html_escape(b, p->title);
    bad |= emit(b, "</text>\n");
    bad |= draw_axes(p, &f, b, cat_x, cat_y);
    /* series, in order; colors by series index (stacked: by stack index) */
    size_t color = 0, slot = 0;
    double lx = f.x0;
    for (size_t i = 0; i < p->n_series && !bad; i++) {
        const series *s = &p->s[i];
        const char *c = palette[color % N_COLORS];
        switch (s->kind) {
        case S_LINE:
        case S_STEP:
        case S_POINTS:
            bad |= draw_xy(s, &f, c, b);
            color++;
            break;
        case S_BARS:
        case S_HBARS:
            bad |= draw_bars(s, &f, c, b, slot++, n_bar_series ? n_bar_series : 1);
            color++;
            break;
        case S_STACK:
            bad |= draw_stacked(s, &f, b);
            break;
        default:
            bad |= draw_marker(s, &f, b);
            continue;
        }
        /* legend entries, in a row under the title */
        size_t n_entries = s->kind == S_STACK ? s->n_stack : 1;
        for (size_t k = 0; k < n_entries; k++) {
            const char *name = s->kind == S_STACK ? s->names[k] : s->name;
            const char *col = s->kind == S_STACK ? palette[k % N_COLORS] : c;
            if (!*name) continue;
            bad |= emit(b, "<g class=\"legend\"><rect x=\"%.1f\" y=\"28\" width=\"12\" "
                           "height=\"8\" fill=\"%s\"/>",
                        lx, col);
            bad |= draw_label(b, lx + 15, 36, "start", name, 0);
            bad |= emit(b, "</g>\n");
            lx += 26 + 6.0 * (double)strlen(name);
        }
    }
    bad |= emit(b, "</svg>\n");
    if (p->note.len) {
        bad |= emit(b, "<figcaption>");
        bad |= gv_html_escape(b, p->note.data);
        bad |= emit(b, "</figcaption>\n");
    }
    bad |= emit(b, "</figure>\n");
    return bad ? -1 : 0;
}
