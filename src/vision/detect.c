/*
 * detect.c -- multi-scale sliding-window detection with a cascade, and the grouping of
 * overlapping hits; the same algorithm as OpenCV's CascadeClassifier::detectMultiScale, so the
 * two find the same objects (tests/py_opencv_detect.py checks it on real photos).
 *
 * Pipeline position: vision/, the top: image -> pyramid -> integral images -> cascade per
 * window -> hits -> groups.
 * The pyramid (Viola & Jones 2004 scale the features; OpenCV and grove scale the image, which
 * gives the same windows with exact integer rectangles): for f = 1, s, s^2, ... (double) the
 * window round(W f) x round(H f) must fit in the image and the maximum size; smaller than the
 * minimum size skips the scale.  Scale f (as a float) resizes the image to
 * round(w / f) x round(h / f) (bilinear, OpenCV-exact); windows step by 2 pixels below f = 2
 * and by 1 above (or by the user's step); a window rejected by the first stage also skips the
 * next position; the window rows are those OpenCV's stripes cover (below: at some levels not
 * the last one).  A hit at (x, y) is the box (round(x f), round(y f), round(W f), round(H f)).
 * Threads: the pyramid levels are built in parallel, then the window rows of all levels are cut
 * into stripes that threads take dynamically; every stripe keeps its hits, and the hits are
 * concatenated in (level, row, column) order, so the output does not depend on the threads.
 */
#include "vision.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct level {
    float scale;
    int w, h;       /* the resized image */
    int step;
    int32_t *sum, *tilted;
    uint32_t *sq;
} level;

typedef struct stripe {
    int level, y0, y1;
    gv_rect *hits;
    size_t n_hits, cap;
    double windows;
} stripe;

static int push_hit(stripe *s, gv_rect r)
{
    if (s->n_hits == s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 16;
        gv_rect *h = gv_realloc_array(s->hits, nc, sizeof *h);
        if (!h) return -1;
        s->hits = h;
        s->cap = nc;
    }
    s->hits[s->n_hits++] = r;
    return 0;
}

grove_status gv_detect(const struct grove_cascade *c, const gv_image *img,
                       const gv_detect_opts *opts, gv_rect **out, size_t *n,
                       double *raw_windows)
{
    *out = NULL;
    *n = 0;
    if (raw_windows) *raw_windows = 0;
    if (!(opts->scale_factor > 1.0) || opts->scale_factor > 100)
        return gv_err(GROVE_ERR_PARAM, "scale_factor: must be in (1, 100], got %g",
                      opts->scale_factor);
    if (opts->step < 0 || opts->step > 1000)
        return gv_err(GROVE_ERR_PARAM, "step: must be in [0, 1000], got %d", opts->step);
    if ((double)img->width * img->height * 255.0 >= 2147483647.0)
        return gv_err(GROVE_ERR_DATA, "image: %dx%d is too large (at most 8.4 million pixels)",
                      img->width, img->height);
    int max_w = opts->max_w > 0 ? opts->max_w : img->width;
    int max_h = opts->max_h > 0 ? opts->max_h : img->height;
    /* the scales, as OpenCV lists them */
    size_t n_levels = 0, cap_levels = 0;
    level *lv = NULL;
    grove_status st = GROVE_OK;
    for (double factor = 1;; factor *= opts->scale_factor) {
        int ww = (int)lrint(c->width * factor), wh = (int)lrint(c->height * factor);
        if (ww > max_w || wh > max_h || ww > img->width || wh > img->height) break;
        if (ww < opts->min_w || wh < opts->min_h) continue;
        if (n_levels == cap_levels) {
            size_t nc = cap_levels ? 2 * cap_levels : 32;
            level *q = gv_realloc_array(lv, nc, sizeof *q);
            if (!q) {
                gv_free(lv);
                return gv_err_nomem("pyramid");
            }
            lv = q;
            cap_levels = nc;
        }
        level *L = &lv[n_levels++];
        memset(L, 0, sizeof *L);
        L->scale = (float)factor;
        L->w = (int)lrintf((float)img->width / L->scale);
        L->h = (int)lrintf((float)img->height / L->scale);
        L->step = opts->step > 0 ? opts->step : (L->scale >= 2 ? 1 : 2);
    }
    if (n_levels == 0) {
        gv_free(lv);
        return GROVE_OK;
    }
    /* one stride for all levels (the widest), so the compiled features serve every level */
    int stride = lv[0].w + 1;
    for (size_t i = 0; i < n_levels; i++)
        if (lv[i].w + 1 > stride) stride = lv[i].w + 1;
    gv_cascade_run run;
    st = gv_cascade_run_init(&run, c, stride);
    if (st) {
        gv_free(lv);
        return st;
    }
    for (size_t i = 0; i < n_levels && !st; i++) {
        /* + 16: gv_cascade_batch8 may read that far past the last window's entries */
        size_t cells = (size_t)stride * (size_t)(lv[i].h + 1) + 16;
        lv[i].sum = gv_malloc_array(cells, sizeof(int32_t));
        lv[i].sq = gv_malloc_array(cells, sizeof(uint32_t));
        lv[i].tilted = c->has_tilted ? gv_malloc_array(cells, sizeof(int32_t)) : NULL;
        if (!lv[i].sum || !lv[i].sq || (c->has_tilted && !lv[i].tilted))
            st = gv_err_nomem("integral images");
    }
    int n_threads = gv_threads(opts->n_threads);
    int failed = 0;
    if (!st) {
#ifdef _OPENMP
#pragma omp parallel for num_threads(n_threads) schedule(dynamic, 1) reduction(| : failed)
#endif
        for (long i = 0; i < (long)n_levels; i++) {
            level *L = &lv[i];
            uint8_t *buf = gv_malloc((size_t)L->w * L->h);
            if (!buf) {
                failed = 1;
                continue;
            }
            gv_image_resize_linear(img->pix, img->width, img->height, buf, L->w, L->h);
            gv_integral(buf, L->w, L->h, L->w, L->sum, L->sq, L->tilted, stride);
            gv_free(buf);
        }
        if (failed) st = gv_err_nomem("pyramid level");
    }
    /* stripes of window rows.  The rows OpenCV scans: it cuts every level's rows into
     * nstripes = ceil(cols_0 / 32) stripes (cols_0: the first level's window columns) of
     * ceil((rows / step) / nstripes) steps each, rows / step rounded down, so when rows is
     * odd (step 2) and rows / 2 a multiple of nstripes the last window row is never scanned;
     * grove scans the rows it scans */
    const int cols0 = lv[0].w + 1 - c->width > 0 ? lv[0].w + 1 - c->width : 0;
    const int n_cv_stripes = (cols0 + 31) / 32;
    size_t n_stripes = 0, cap_stripes = 0;
    stripe *sp = NULL;
    for (size_t i = 0; i < n_levels && !st; i++) {
        int rows = lv[i].h + 1 - c->height > 0 ? lv[i].h + 1 - c->height : 0;
        if (n_cv_stripes == 0) {
            rows = 0;
        } else {
            long per = ((long)(rows / lv[i].step) + n_cv_stripes - 1) / n_cv_stripes;
            long cover = (per > 1 ? per : 1) * lv[i].step * n_cv_stripes;
            if (cover < rows) rows = (int)cover; /* window rows y in [0, rows) */
        }
        int chunk = 8 * lv[i].step;
        for (int y0 = 0; y0 < rows; y0 += chunk) {
            if (n_stripes == cap_stripes) {
                size_t nc = cap_stripes ? 2 * cap_stripes : 64;
                stripe *q = gv_realloc_array(sp, nc, sizeof *q);
                if (!q) {
                    st = gv_err_nomem("stripes");
                    break;
                }
                sp = q;
                cap_stripes = nc;
            }
            stripe *s = &sp[n_stripes++];
            memset(s, 0, sizeof *s);
            s->level = (int)i;
            s->y0 = y0;
            s->y1 = y0 + chunk < rows ? y0 + chunk : rows;
        }
    }
    if (!st) {
        failed = 0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(n_threads) schedule(dynamic, 1) reduction(| : failed)
#endif
        for (long k = 0; k < (long)n_stripes; k++) {
            stripe *s = &sp[k];
            const level *L = &lv[s->level];
            int cols = L->w + 1 - c->width;
            int bw = (int)lrintf((float)c->width * L->scale);
            int bh = (int)lrintf((float)c->height * L->scale);
            double windows = 0;
            for (int y = s->y0; y < s->y1; y += L->step) {
                const int32_t *prow = L->sum + (size_t)y * stride;
                const uint32_t *qrow = L->sq + (size_t)y * stride;
                const int32_t *trow = L->tilted ? L->tilted + (size_t)y * stride : NULL;
                /* eight windows at once where available (gv_cascade_batch8): lanes hold the
                 * windows xb, xb + step, ...; the walk takes their answers in order and still
                 * skips the position after a first-stage rejection */
                int xb = -1, have = 0, res[8];
                for (int x = 0; x < cols; x += L->step) {
                    windows++;
                    int r, lane = have ? (x - xb) / L->step : 8;
                    if (lane >= 8 && x + 7 * L->step < cols) {
                        xb = x;
                        lane = 0;
                        have = gv_cascade_batch8(&run, prow + x, qrow + x, L->step, res);
                    }
                    if (have && lane < 8)
                        r = res[lane];
                    else
                        r = gv_cascade_eval(&run, prow + x, qrow + x, trow ? trow + x : NULL, 0,
                                            NULL);
                    if (r > 0) {
                        gv_rect h = {(int)lrintf((float)x * L->scale),
                                     (int)lrintf((float)y * L->scale), bw, bh, 1};
                        if (push_hit(s, h)) failed = 1;
                    } else if (r == 0) {
                        x += L->step;
                    }
                }
            }
            s->windows = windows;
        }
        if (failed) st = gv_err_nomem("hits");
    }
    size_t total = 0;
    double windows = 0;
    for (size_t k = 0; k < n_stripes; k++) {
        total += sp[k].n_hits;
        windows += sp[k].windows;
    }
    gv_rect *all = NULL;
    if (!st) {
        all = gv_malloc_array(total + 1, sizeof *all);
        if (!all) st = gv_err_nomem("hits");
    }
    if (!st) {
        size_t at = 0;
        for (size_t k = 0; k < n_stripes; k++) {
            if (sp[k].n_hits) memcpy(all + at, sp[k].hits, sp[k].n_hits * sizeof *all);
            at += sp[k].n_hits;
        }
        st = gv_group_rects(all, &total, opts->min_neighbors,
                            opts->group_eps > 0 ? opts->group_eps : 0.2, img->width, img->height);
    }
    for (size_t k = 0; k < n_stripes; k++) gv_free(sp[k].hits);
    gv_free(sp);
    for (size_t i = 0; i < n_levels; i++) {
        gv_free(lv[i].sum);
        gv_free(lv[i].sq);
        gv_free(lv[i].tilted);
    }
    gv_free(lv);
    gv_cascade_run_free(&run);
    if (st) {
        gv_free(all);
        return st;
    }
    *out = all;
    *n = total;
    if (raw_windows) *raw_windows = windows;
    return GROVE_OK;
}

/* ---- grouping ---- */

static int similar(const gv_rect *a, const gv_rect *b, double eps)
{
    double delta = eps * ((a->w < b->w ? a->w : b->w) + (a->h < b->h ? a->h : b->h)) * 0.5;
    return fabs((double)a->x - b->x) <= delta && fabs((double)a->y - b->y) <= delta &&
           fabs((double)a->x + a->w - b->x - b->w) <= delta &&
           fabs((double)a->y + a->h - b->y - b->h) <= delta;
}

static size_t find(size_t *parent, size_t i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

grove_status gv_group_rects(gv_rect *r, size_t *n, int min_neighbors, double eps, int img_w,
                            int img_h)
{
    size_t m = *n;
    if (min_neighbors > 0 && m > 0) {
        size_t *parent = gv_malloc_array(m, sizeof *parent);
        size_t *label = gv_malloc_array(m, sizeof *label);
        size_t *root_label = gv_malloc_array(m, sizeof *root_label);
        int64_t *acc = gv_calloc(m * 4, sizeof *acc);
        int *count = gv_calloc(m, sizeof *count);
        gv_rect *mean = gv_malloc_array(m, sizeof *mean);
        if (!parent || !label || !root_label || !acc || !count || !mean) {
            gv_free(parent);
            gv_free(label);
            gv_free(root_label);
            gv_free(acc);
            gv_free(count);
            gv_free(mean);
            return gv_err_nomem("grouping");
        }
        for (size_t i = 0; i < m; i++) parent[i] = i;
        for (size_t i = 0; i < m; i++)
            for (size_t j = i + 1; j < m; j++)
                if (similar(&r[i], &r[j], eps)) {
                    size_t a = find(parent, i), b = find(parent, j);
                    if (a != b) parent[a > b ? a : b] = a < b ? a : b;
                }
        /* classes numbered in the order of their first member (as cv::partition does) */
        size_t n_classes = 0;
        for (size_t i = 0; i < m; i++) root_label[i] = (size_t)-1;
        for (size_t i = 0; i < m; i++) {
            size_t root = find(parent, i);
            if (root_label[root] == (size_t)-1) root_label[root] = n_classes++;
            label[i] = root_label[root];
            int64_t *a = acc + 4 * label[i];
            a[0] += r[i].x;
            a[1] += r[i].y;
            a[2] += r[i].w;
            a[3] += r[i].h;
            count[label[i]]++;
        }
        for (size_t k = 0; k < n_classes; k++) {
            float s = 1.f / (float)count[k];
            const int64_t *a = acc + 4 * k;
            mean[k].x = (int)lrintf((float)a[0] * s);
            mean[k].y = (int)lrintf((float)a[1] * s);
            mean[k].w = (int)lrintf((float)a[2] * s);
            mean[k].h = (int)lrintf((float)a[3] * s);
            mean[k].neighbors = count[k];
        }
        size_t kept = 0;
        for (size_t i = 0; i < n_classes; i++) {
            const gv_rect *r1 = &mean[i];
            int n1 = count[i];
            if (n1 <= min_neighbors) continue;
            size_t j;
            /* drop a class inside a stronger one */
            for (j = 0; j < n_classes; j++) {
                int n2 = count[j];
                if (j == i || n2 <= min_neighbors) continue;
                const gv_rect *r2 = &mean[j];
                int dx = (int)lrint(r2->w * eps), dy = (int)lrint(r2->h * eps);
                if (r1->x >= r2->x - dx && r1->y >= r2->y - dy &&
                    r1->x + r1->w <= r2->x + r2->w + dx && r1->y + r1->h <= r2->y + r2->h + dy &&
                    (n2 > (n1 > 3 ? n1 : 3) || n1 < 3))
                    break;
            }
            if (j == n_classes) r[kept++] = *r1;
        }
        m = kept;
        gv_free(parent);
        gv_free(label);
        gv_free(root_label);
        gv_free(acc);
        gv_free(count);
        gv_free(mean);
    } else {
        for (size_t i = 0; i < m; i++) r[i].neighbors = 1;
    }
    /* clip to the image, dropping empty boxes (OpenCV's clipObjects) */
    size_t kept = 0;
    for (size_t i = 0; i < m; i++) {
        int x0 = r[i].x > 0 ? r[i].x : 0, y0 = r[i].y > 0 ? r[i].y : 0;
        int x1 = r[i].x + r[i].w < img_w ? r[i].x + r[i].w : img_w;
        int y1 = r[i].y + r[i].h < img_h ? r[i].y + r[i].h : img_h;
        if (x1 > x0 && y1 > y0) {
            gv_rect q = {x0, y0, x1 - x0, y1 - y0, r[i].neighbors};
            r[kept++] = q;
        }
    }
    *n = kept;
    return GROVE_OK;
}
