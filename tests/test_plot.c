/*
 * test_plot.c -- the SVG chart module (eval/plot.c): every series is one
 * <g class="series" data-name=... data-points=N data-dropped=M> holding N drawn marks; log axes
 * drop non-positive values and count them; NaN is dropped on any axis; names are escaped;
 * bars, horizontal bars, stacked bars and reference lines; out of memory is reported by
 * gv_plot_render, at every allocation of a chart's life.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#include "eval/plot.h"

/* Occurrences of `needle` in `hay`. */
static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle)) n++;
    return n;
}

/* The text of the series element named `name` up to its closing tag (a new string). */
static char *series_text(const char *svg, const char *name)
{
    char key[128];
    snprintf(key, sizeof key, "class=\"series\" data-name=\"%s\"", name);
    const char *a = strstr(svg, key);
    if (!a) return NULL;
    const char *b = strstr(a, "</g>");
    if (!b) return NULL;
    size_t n = (size_t)(b - a);
    char *s = malloc(n + 1);
    memcpy(s, a, n);
    s[n] = '\0';
    return s;
}

static void test_lines_and_log_axis(void)
{
    gv_plot *p = gv_plot_new("t1", "errors & bounds <log>", 600, 300);
    CHECK(p != NULL);
    double x[5] = {1, 2, 3, 4, 5}, y[5] = {0.5, 0.1, 0, 0.01, NAN}, z[5] = {1, 0.5, 0.25, 0.125, 0.0625};
    gv_plot_axes(p, "round", "error", 0, 1);
    gv_plot_line(p, "train \"error\"", x, y, 5, 0);
    gv_plot_line(p, "bound", NULL, z, 5, 1);
    gv_plot_step(p, "cdf", x, z, 5);
    gv_plot_vline(p, "stop", 3);
    gv_plot_note(p, "a & b");
    gv_buf b = {0};
    CHECK_EQ_INT(gv_plot_render(p, &b), 0);
    CHECK_CONTAINS(b.data, "id=\"t1\"");
    CHECK_CONTAINS(b.data, "data-title=\"errors &amp; bounds &lt;log&gt;\"");
    char *s = series_text(b.data, "train &quot;error&quot;");
    CHECK(s != NULL);
    /* 0 cannot be drawn on a log axis, NaN nowhere: 3 drawn, 2 dropped */
    CHECK_CONTAINS(s, "data-points=\"3\" data-dropped=\"2\"");
    CHECK_EQ_INT(count(s, " L") + count(s, "M"), 3);
    free(s);
    s = series_text(b.data, "bound");
    CHECK_CONTAINS(s, "data-points=\"5\" data-dropped=\"0\"");
    CHECK_CONTAINS(s, "stroke-dasharray");
    free(s);
    s = series_text(b.data, "cdf");
    CHECK_CONTAINS(s, "data-kind=\"step\"");
    CHECK_EQ_INT(count(s, " H"), 4);
    free(s);
    CHECK_EQ_INT(count(b.data, "class=\"series\""), 3);
    CHECK_CONTAINS(b.data, "class=\"marker\" data-name=\"stop\" data-value=\"3\"");
    CHECK_CONTAINS(b.data, "<figcaption>a &amp; b</figcaption>");
    CHECK_CONTAINS(b.data, "(log scale)");
    /* decade ticks from 1e-2 to 1 on the log axis */
    CHECK_CONTAINS(b.data, ">0.01</text>");
    CHECK_CONTAINS(b.data, ">1</text>");
    gv_buf_free(&b);
    gv_plot_free(p);
}

static void test_bars(void)
{
    gv_plot *p = gv_plot_new("t2", "bars", 400, 300);
    const char *labels[3] = {"a", "b<c", "d"};
    double v[3] = {3, 1, 2}, w[6] = {0.2, 0.1, 0.3, 0.05, -0.1, 0.2};
    const char *names[2] = {"bias", "variance"};
    gv_plot_bars(p, "count", labels, v, 3);
    gv_plot_hline(p, "two", 2);
    gv_buf b = {0};
    CHECK_EQ_INT(gv_plot_render(p, &b), 0);
    char *s = series_text(b.data, "count");
    CHECK_CONTAINS(s, "data-kind=\"bars\" data-points=\"3\"");
    CHECK_EQ_INT(count(s, "<rect"), 3);
    CHECK_CONTAINS(s, ">b&lt;c</text>");
    free(s);
    gv_buf_free(&b);
    gv_plot_free(p);

    p = gv_plot_new("t3", "importances", 400, 300);
    gv_plot_hbars(p, "gain", labels, v, 3);
    CHECK_EQ_INT(gv_plot_render(p, &b), 0);
    s = series_text(b.data, "gain");
    CHECK_CONTAINS(s, "data-kind=\"hbars\" data-points=\"3\"");
    CHECK_EQ_INT(count(s, "<rect"), 3);
    free(s);
    gv_buf_free(&b);
    gv_plot_free(p);

    p = gv_plot_new("t4", "stacked", 400, 300);
    gv_plot_stacked(p, names, 2, labels, w, 3);
    CHECK_EQ_INT(gv_plot_render(p, &b), 0);
    CHECK_EQ_INT(count(b.data, "class=\"series\""), 2);
    s = series_text(b.data, "variance");
    CHECK_CONTAINS(s, "data-kind=\"stack\" data-points=\"3\"");
    CHECK_EQ_INT(count(s, "<rect"), 3);
    free(s);
    gv_buf_free(&b);
    gv_plot_free(p);
}

/* Every allocation of a chart's life may fail; the failure surfaces as -1 or NULL, never as a
 * crash or a leak (the ASan build checks the leaks). */
static void test_out_of_memory(void)
{
    double x[3] = {1, 2, 3};
    const char *labels[3] = {"a", "b", "c"};
    int failures = 0;
    for (long n = 1; n < 200; n++) {
        gv_alloc_fail_after(n);
        gv_plot *p = gv_plot_new("m", "memory", 300, 200);
        int rc = -1;
        gv_buf b = {0};
        if (p) {
            gv_plot_axes(p, "x", "y", 0, 0);
            gv_plot_line(p, "l", x, x, 3, 0);
            gv_plot_bars(p, "b", labels, x, 3);
            gv_plot_note(p, "note %d", 1);
            rc = gv_plot_render(p, &b);
        }
        gv_alloc_fail_after(0);
        if (rc != 0) failures++;
        gv_buf_free(&b);
        gv_plot_free(p);
        if (rc == 0) break; /* enough allocations succeeded */
    }
    CHECK(failures > 0);
}

int main(void)
{
    test_lines_and_log_axis();
    test_bars();
    test_out_of_memory();
    TEST_MAIN_END();
}
