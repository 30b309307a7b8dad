/*
 * plot.h -- charts as inline SVG, for the HTML report (report.c).
 *
 * Pipeline position: eval/ (needs only core/).  A chart is built in a few calls -- axes, then
 * series (lines, points, bars), then reference lines and labels -- and rendered into a buffer
 * as one <svg> element.  The data is copied, so ranges are fitted to everything at render time.
 *
 * Why our own SVG and not a Debian-packaged C library (docs/report.md has the comparison):
 * cairo's SVG surface writes text as glyph outlines and every series as anonymous paths,
 * PLplot prints to stderr and calls exit() on errors and keeps global state, and GNU libplot
 * is a pen-plotter drawing API without axes or legends.  None gives what the tests need: a
 * chart whose series can be found and counted in the markup.  Here every series is
 *   <g class="series" data-name="NAME" data-kind="line|points|bars" data-points="N">
 * holding its N drawn points, and every chart is <svg class="chart" id="ID" data-title=...>,
 * so a test can count series and points with XPath.  The markup is well-formed XML (XHTML
 * inline SVG), printable, and needs no script.
 *
 * Log axes drop points that are not positive (data-dropped counts them); NaN points are
 * dropped on any axis.  Colors come from a fixed palette in series order.
 */
#ifndef GV_PLOT_H
#define GV_PLOT_H

#include "../core/core.h"

typedef struct gv_plot gv_plot;

/* A new chart `id` (unique in the page: letters, digits, '-') titled `title`, width x height
 * pixels.  NULL when out of memory.  Free with gv_plot_free (NULL accepted). */
gv_plot *gv_plot_new(const char *id, const char *title, int width, int height);
void gv_plot_free(gv_plot *p);

/* Axis labels, and log10 scales (x_log, y_log non-zero). */
void gv_plot_axes(gv_plot *p, const char *x_label, const char *y_label, int x_log, int y_log);
/* Fixes the y (x) range instead of fitting it to the data (e.g. [0, 1] for probabilities). */
void gv_plot_y_range(gv_plot *p, double lo, double hi);
void gv_plot_x_range(gv_plot *p, double lo, double hi);

/* Series (copied).  x may be NULL: 1, 2, ..., n.  `dashed` draws the line dashed. */
void gv_plot_line(gv_plot *p, const char *name, const double *x, const double *y, size_t n,
                  int dashed);
/* A step function (a CDF): horizontal then vertical segments through the points. */
void gv_plot_step(gv_plot *p, const char *name, const double *x, const double *y, size_t n);
void gv_plot_points(gv_plot *p, const char *name, const double *x, const double *y, size_t n);
/* Vertical bars at x = 1..n with category labels under them (labels copied; may be NULL). */
void gv_plot_bars(gv_plot *p, const char *name, const char *const *labels, const double *v,
                  size_t n);
/* Horizontal bars, one per label, top to bottom (importances: long feature names fit). */
void gv_plot_hbars(gv_plot *p, const char *name, const char *const *labels, const double *v,
                   size_t n);
/* A reference line across the chart at x = v (vertical) or y = v (horizontal), labelled. */
void gv_plot_vline(gv_plot *p, const char *name, double x);
void gv_plot_hline(gv_plot *p, const char *name, double y);
/* One stacked vertical bar per category: n_stack series (names) of n values each;
 * v[s * n + j] is series s of bar j. */
void gv_plot_stacked(gv_plot *p, const char *const *names, size_t n_stack,
                     const char *const *labels, const double *v, size_t n);
/* A note under the chart (what was dropped, where the data came from). */
void gv_plot_note(gv_plot *p, const char *fmt, ...) GV_PRINTF(2, 3);

/* Appends the chart as one <svg> element (and its note) to `out`.  0, or -1 when out of memory
 * (also when an earlier call on p ran out: such calls record the failure and return). */
int gv_plot_render(const gv_plot *p, gv_buf *out);

/* Appends s to out with &, <, >, " escaped (for text and attribute values).  0 or -1. */
int gv_html_escape(gv_buf *out, const char *s);

#endif /* GV_PLOT_H */
