/*
 * haar.c -- Haar-like features: enumeration of every position and size in a base window,
 * compilation to integral-image offsets, and the window's variance normalization.
 *
 * Pipeline position: vision/, between the integral images and the cascade.
 * A feature is OpenCV's weighted-rectangle form: the whole area with weight -1 plus one or two
 * sub-rectangles with weights that make the total zero (Lienhart & Maydt 2002, eq. 1):
 *   edge (2 cells):   -1 whole + 2 second half          = second - first
 *   line (3 cells):   -1 whole + 3 centre               = 2 centre - outer two
 *   four (2 x 2):     -1 whole + 2 top-left + 2 bottom-right = diagonal - anti-diagonal
 * so every feature needs at most three rectangle sums (12 table reads).  In a 24 x 24 window
 * the five upright families give 43,200 + 43,200 + 27,600 + 27,600 + 20,736 = 162,336
 * features (Viola & Jones 2004 count 160,000+; the exact number depends on these families).
 * Tilted rectangles (x, y, w, h) have their top corner at (x, y); the table corners read are
 * (x, y), (x - h, y + h), (x + w, y + w), (x + w - h, y + w + h) of the tilted integral.
 */
#include "vision.h"

#include <math.h>

typedef struct family {
    unsigned flag;
    int a, b;    /* unit cells along w and h */
    int tilted;
    int kind;    /* 0 edge-second-half, 1 line-centre, 2 four */
    int along_h; /* the split runs along h (vertical / down-left) */
} family;

static const family families[] = {
    {GV_HAAR_EDGE_H, 2, 1, 0, 0, 0},      {GV_HAAR_EDGE_V, 1, 2, 0, 0, 1},
    {GV_HAAR_LINE_H, 3, 1, 0, 1, 0},      {GV_HAAR_LINE_V, 1, 3, 0, 1, 1},
    {GV_HAAR_FOUR, 2, 2, 0, 2, 0},        {GV_HAAR_TILTED_EDGE, 2, 1, 1, 0, 0},
    {GV_HAAR_TILTED_EDGE, 1, 2, 1, 0, 1}, {GV_HAAR_TILTED_LINE, 3, 1, 1, 1, 0},
    {GV_HAAR_TILTED_LINE, 1, 3, 1, 1, 1},
};
#define N_FAMILIES (sizeof families / sizeof families[0])

static gv_haar_rect rect(int x, int y, int w, int h, float weight)
{
    gv_haar_rect r = {x, y, w, h, weight};
    return r;
}

/* The feature of family fm with cell size (k, l) at (x, y). */
static void make_feature(const family *fm, int x, int y, int k, int l, gv_haar_feature *f)
{
    int W = fm->a * k, H = fm->b * l;
    f->tilted = fm->tilted;
    f->r[0] = rect(x, y, W, H, -1.f);
    f->r[2] = rect(0, 0, 0, 0, 0.f);
    f->n_rects = 2;
    /* moving one cell along w: upright (+k, 0), tilted (+k, +k); along h: upright (0, +l),
     * tilted (-l, +l) */
    int wx = k, wy = fm->tilted ? k : 0, hx = fm->tilted ? -l : 0, hy = l;
    if (fm->kind == 0) {
        if (fm->along_h)
            f->r[1] = rect(x + hx, y + hy, k, l, 2.f);
        else
            f->r[1] = rect(x + wx, y + wy, k, l, 2.f);
    } else if (fm->kind == 1) {
        if (fm->along_h)
            f->r[1] = rect(x + hx, y + hy, k, l, 3.f);
        else
            f->r[1] = rect(x + wx, y + wy, k, l, 3.f);
    } else {
        f->r[1] = rect(x, y, k, l, 2.f);
        f->r[2] = rect(x + k, y + l, k, l, 2.f);
        f->n_rects = 3;
    }
}

/* Calls fn for every placement of family fm in a w x h window; returns the count. */
static size_t each_placement(const family *fm, int w, int h, gv_haar_feature *out)
{
    size_t n = 0;
    for (int k = 1; fm->a * k <= w; k++)
        for (int l = 1; fm->b * l <= h; l++) {
            int W = fm->a * k, H = fm->b * l;
            if (!fm->tilted) {
                for (int y = 0; y + H <= h; y++)
                    for (int x = 0; x + W <= w; x++) {
                        if (out) make_feature(fm, x, y, k, l, &out[n]);
                        n++;
                    }
            } else {
                /* corners (x - H, y + H), (x + W, y + W), bottom (x + W - H, y + W + H) */
                for (int y = 0; y + W + H <= h; y++)
                    for (int x = H; x + W <= w; x++) {
                        if (out) make_feature(fm, x, y, k, l, &out[n]);
                        n++;
                    }
            }
        }
    return n;
}

grove_status gv_haar_enumerate(int w, int h, unsigned types, gv_haar_feature **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (w < 2 || h < 2 || w > 256 || h > 256)
        return gv_err(GROVE_ERR_PARAM, "window: must be between 2x2 and 256x256, got %dx%d", w, h);
    size_t total = 0;
    for (size_t i = 0; i < N_FAMILIES; i++)
        if (types & families[i].flag) total += each_placement(&families[i], w, h, NULL);
    if (total == 0)
        return gv_err(GROVE_ERR_PARAM, "features: no feature of the chosen types fits a %dx%d window",
                      w, h);
    gv_haar_feature *f = gv_malloc_array(total, sizeof *f);
    if (!f) return gv_err_nomem("Haar features");
    size_t at = 0;
    for (size_t i = 0; i < N_FAMILIES; i++)
        if (types & families[i].flag) at += each_placement(&families[i], w, h, f + at);
    *out = f;
    *n = at;
    return GROVE_OK;
}

void gv_haar_compile(const gv_haar_feature *f, int stride, gv_haar_compiled *out)
{
    out->n_rects = f->n_rects;
    out->tilted = f->tilted;
    for (int i = 0; i < GV_HAAR_MAX_RECTS; i++) {
        const gv_haar_rect *r = &f->r[i];
        int *o = out->ofs[i];
        out->weight[i] = i < f->n_rects ? r->weight : 0.f;
        if (i >= f->n_rects) {
            o[0] = o[1] = o[2] = o[3] = 0;
        } else if (!f->tilted) {
            o[0] = r->y * stride + r->x;
            o[1] = r->y * stride + r->x + r->w;
            o[2] = (r->y + r->h) * stride + r->x;
            o[3] = (r->y + r->h) * stride + r->x + r->w;
        } else {
            o[0] = r->y * stride + r->x;
            o[1] = (r->y + r->h) * stride + r->x - r->h;
            o[2] = (r->y + r->w) * stride + r->x + r->w;
            o[3] = (r->y + r->w + r->h) * stride + r->x + r->w - r->h;
        }
    }
}

int gv_window_norm(const int32_t *p, const uint32_t *q, int w, int h, int stride, float *norm)
{
    int o0 = stride + 1, o1 = stride + w - 1, o2 = (h - 1) * stride + 1,
        o3 = (h - 1) * stride + w - 1;
    int32_t s = p[o0] - p[o1] - p[o2] + p[o3];
    uint32_t sq = q[o0] - q[o1] - q[o2] + q[o3];
    double area = (double)(w - 2) * (h - 2);
    double nf = area * sq - (double)s * s;
    if (nf > 0.) {
        *norm = (float)(1. / sqrt(nf));
        return area * *norm < 1e-1;
    }
    *norm = 1.f;
    return 0;
}
