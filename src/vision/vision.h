/*
 * vision.h -- images, integral images, Haar-like features, boosted cascades and detection
 * (Viola & Jones 2001, 2004; Lienhart & Maydt 2002 for the 45-degree features).
 *
 * Pipeline position: src/vision/ sits above ensemble/: a cascade stage is a discrete AdaBoost
 * ensemble of stumps (its rounds use ensemble/'s AdaBoost step, ensemble.h), whose weak
 * learners read Haar-like feature values computed from integral images.  The public face of
 * this module is the vision section of grove.h (api: src/vision/vision_api.c).
 *
 * Conventions shared by every file here:
 *  - An image is 8-bit grey, row-major, no padding (stride = width).
 *  - Integral images have (h + 1) rows of `stride` >= w + 1 entries: sum[y][x] = the sum of the
 *    pixels above and left of (x, y) (exclusive), so a rectangle (x, y, w, h) sums to
 *    s[y][x] - s[y][x+w] - s[y+h][x] + s[y+h][x+w].  The squared integral is kept modulo 2^32
 *    (uint32): window sums of squares are then exact for windows up to 66,000 pixels.
 *    The tilted integral follows OpenCV's definition (Lienhart & Maydt 2002, eq. 2 shifted by
 *    one): t[Y][X] = sum of I(x, y) over y < Y and |x - X + 1| <= Y - 1 - y.
 *  - Feature values are normalized as OpenCV's cascade evaluator does, so that cascades read
 *    from and written to OpenCV's XML behave identically:  v = (sum_r w_r S_r) / (A sigma),
 *    with A sigma = sqrt(A * sum(I^2) - sum(I)^2) over the window shrunk by one pixel on
 *    every side (A = (W-2)(H-2)); the products are in single precision like OpenCV's.
 */
#ifndef GV_VISION_H
#define GV_VISION_H

#include "../core/core.h"

/* ---- images (image.c) ---- */
typedef struct grove_image {
    int width, height;
    uint8_t *pix; /* [width * height], owned */
} gv_image;

/* The largest image grove reads or accepts (docs/limits.md): each side at most
 * GV_IMAGE_MAX_SIDE pixels and width x height at most GV_IMAGE_MAX_PIXELS (2^27, e.g. 16384 x
 * 8192; a 128 MB grey picture).  Checked against the header before anything is allocated. */
#define GV_IMAGE_MAX_SIDE 100000L
#define GV_IMAGE_MAX_PIXELS (1L << 27)
/* GROVE_OK when a w x h image is within the limits, else an error naming `what` (a file). */
grove_status gv_image_size_check(const char *what, long width, long height);

/* A new zeroed image (NULL when out of memory or w, h < 1). */
gv_image *gv_image_new(int width, int height);
void gv_image_free(gv_image *img);

/* Loads an 8-bit grey image from a binary (P5) or plain (P2) PGM, a PNG (libpng) or a JPEG
 * (libjpeg), chosen by the file's first bytes.  Colour is turned to grey like OpenCV's
 * cvtColor(BGR2GRAY): Y = (9798 R + 19235 G + 3735 B + 16384) >> 15 (0.299, 0.587, 0.114 in 15-bit
 * fixed point); 16-bit samples are reduced to 8 bits, alpha is dropped.  New image in *out. */
grove_status gv_image_load(const char *path, gv_image **out);

/* Writes an RGB picture (rgb: [w*h*3], borrowed) as PNG; or a grey one as PGM (P5). */
/* Writes an RGB picture as PNG to fp (borrowed, left open; `path` names it in messages). */
grove_status gv_png_write_rgb(FILE *fp, const char *path, int w, int h, const uint8_t *rgb);
grove_status gv_pgm_write(const char *path, const gv_image *img);

/* Bilinear resize to (w, h) computed like OpenCV's resize(INTER_LINEAR) on 8-bit images, bit
 * for bit: source coordinate (d + 0.5) * scale - 0.5 in single precision, 11-bit fixed-point
 * coefficients, and the vertical pass's rounding; a copy when the size is unchanged and 2x2
 * averaging for an exact halving (as OpenCV switches to INTER_AREA then).  dst is caller-owned
 * with stride w. */
void gv_image_resize_linear(const uint8_t *src, int sw, int sh, uint8_t *dst, int w, int h);

/* ---- integral images (integral.c) ---- */
/* Fills sum, sq (may be NULL) and tilted (may be NULL) for the w x h image `pix` (stride
 * `pstride`); each output has h + 1 rows of `stride` entries (stride >= w + 1).  Requires
 * 255 * w * h < 2^31. */
void gv_integral(const uint8_t *pix, int w, int h, int pstride, int32_t *sum, uint32_t *sq,
                 int32_t *tilted, int stride);

/* ---- Haar-like features (haar.c) ---- */
#define GV_HAAR_MAX_RECTS 3
typedef struct gv_haar_rect {
    int x, y, w, h;
    float weight;
} gv_haar_rect;

typedef struct gv_haar_feature {
    int n_rects; /* 2 or 3 */
    int tilted;  /* rectangles are 45-degree rotated (Lienhart & Maydt): (x, y) is the top
                    corner, w runs down-right and h down-left */
    gv_haar_rect r[GV_HAAR_MAX_RECTS];
} gv_haar_feature;

/* Feature families, as bit flags for gv_haar_enumerate. */
enum {
    GV_HAAR_EDGE_H = 1 << 0,   /* two rectangles side by side (left - right) */
    GV_HAAR_EDGE_V = 1 << 1,   /* two rectangles one above the other */
    GV_HAAR_LINE_H = 1 << 2,   /* three side by side: centre against the outer two */
    GV_HAAR_LINE_V = 1 << 3,   /* three stacked */
    GV_HAAR_FOUR = 1 << 4,     /* 2 x 2 checkerboard: diagonal pairs */
    GV_HAAR_TILTED_EDGE = 1 << 5, /* 45-degree two-rectangle, both orientations */
    GV_HAAR_TILTED_LINE = 1 << 6, /* 45-degree three-rectangle, both orientations */
    GV_HAAR_BASIC = 0x1f,         /* the five upright families of Viola & Jones */
    GV_HAAR_ALL = 0x7f
};

/* Every feature of the families in `types` at every position and size inside a w x h window
 * (a feature of a family made of a x b unit cells takes sizes (i a, j b), i, j >= 1).  New
 * array in *out with *n entries (free with gv_free); for 24 x 24 and GV_HAAR_BASIC, 162,336. */
grove_status gv_haar_enumerate(int w, int h, unsigned types, gv_haar_feature **out, size_t *n);

/* A feature compiled for integral images of row stride `stride`: corner offsets relative to a
 * window's top-left entry.  Tilted rectangles index the tilted integral. */
typedef struct gv_haar_compiled {
    int ofs[GV_HAAR_MAX_RECTS][4];
    float weight[GV_HAAR_MAX_RECTS];
    int n_rects, tilted;
} gv_haar_compiled;

void gv_haar_compile(const gv_haar_feature *f, int stride, gv_haar_compiled *out);

/* sum_r w_r S_r at a window (p: the window's top-left entry of the upright integral, t: of the
 * tilted one, may be NULL when the feature is upright), in single precision. */
static inline float gv_haar_raw(const gv_haar_compiled *c, const int32_t *p, const int32_t *t)
{
    const int32_t *b = c->tilted ? t : p;
    const int *o0 = c->ofs[0], *o1 = c->ofs[1];
    float v = c->weight[0] * (float)(b[o0[0]] - b[o0[1]] - b[o0[2]] + b[o0[3]]) +
              c->weight[1] * (float)(b[o1[0]] - b[o1[1]] - b[o1[2]] + b[o1[3]]);
    if (c->weight[2] != 0.0f) {
        const int *o2 = c->ofs[2];
        v += c->weight[2] * (float)(b[o2[0]] - b[o2[1]] - b[o2[2]] + b[o2[3]]);
    }
    return v;
}

/* The variance normalization of the w x h window at p / q (upright and squared integrals,
 * `stride`): 1 / sqrt(A sum(I^2) - sum(I)^2) over the window less its one-pixel border, as a
 * float.  Returns 0 (and *norm = 1) when the window is too flat to normalize -- OpenCV's
 * rule: a standard deviation of at most 10 grey levels (A * norm >= 0.1) -- else 1. */
int gv_window_norm(const int32_t *p, const uint32_t *q, int w, int h, int stride, float *norm);

/* ---- cascades (cascade.c, cascade_xml.c) ---- */
typedef struct gv_cascade_node {
    int left, right;  /* > 0: the next node of the tree (index within the tree);
                         <= 0: the leaf -left / -right of the tree */
    int feature;
    float threshold;  /* go left when the normalized feature value < threshold */
} gv_cascade_node;

typedef struct gv_cascade_tree {
    int n_nodes, first_node, first_leaf; /* leaves: n_nodes + 1 */
} gv_cascade_tree;

typedef struct gv_cascade_stage {
    int n_trees, first_tree;
    float threshold; /* the window passes when the sum of the trees' leaves >= threshold */
} gv_cascade_stage;

/* What training measured for a stage (grove-trained cascades only; zeros otherwise). */
typedef struct gv_stage_stats {
    double f, d;       /* the stage's false-positive and detection rates on validation data */
    double F, D;       /* cumulative products */
    size_t negatives;  /* training negatives mined for the stage */
    double windows;    /* windows scanned to mine them */
    double seconds;
} gv_stage_stats;

struct grove_cascade {
    int width, height; /* the base window */
    int n_stages, n_trees, n_nodes, n_leaves, n_features;
    gv_cascade_stage *stages;
    gv_cascade_tree *trees;
    gv_cascade_node *nodes;
    float *leaves;
    gv_haar_feature *features;
    int has_tilted, stumps_only;
    gv_stage_stats *stats; /* [n_stages] or NULL */
    char *source;          /* "opencv-xml", "grove" */
};

/* Frees everything (NULL accepted). */
void gv_cascade_free(struct grove_cascade *c);
/* Sets the derived flags (has_tilted, stumps_only) after the arrays are filled. */
void gv_cascade_finish(struct grove_cascade *c);
/* Structural checks (indices in range, trees well formed, features inside the window);
 * GROVE_ERR_MODEL naming `what` and the first problem. */
grove_status gv_cascade_validate(const struct grove_cascade *c, const char *what);

/* OpenCV's XML: reads the current format (cascade type_id "opencv-cascade-classifier", stage
 * type BOOST, feature type HAAR; stumps or trees) and the old one ("opencv-haar-classifier",
 * as haartraining wrote: trees of nodes with feature, threshold, left_val/left_node...).
 * Writes the current format. */
grove_status gv_cascade_read_xml(const char *path, struct grove_cascade **out);
grove_status gv_cascade_write_xml(const struct grove_cascade *c, const char *path);
/* grove's own file (JSON, "format": "grove-cascade", versioned; docs/model-format.md). */
grove_status gv_cascade_save_json(const struct grove_cascade *c, const char *path);
grove_status gv_cascade_load_json(const char *path, struct grove_cascade **out);

/* A cascade compiled for one integral-image stride (feature offsets resolved). */
typedef struct gv_cascade_run {
    const struct grove_cascade *c;  /* borrowed */
    gv_haar_compiled *feat;         /* [n_features], owned */
    struct gv_stump_run *stumps;    /* stumps-only cascades: [n_trees] in stage order, each
                                       with its compiled feature inline; owned, else NULL */
    int stride;
    int batch8;                     /* gv_cascade_batch8 available (AVX2, upright stumps) */
} gv_cascade_run;

grove_status gv_cascade_run_init(gv_cascade_run *r, const struct grove_cascade *c, int stride);
void gv_cascade_run_free(gv_cascade_run *r);

/* Evaluates the cascade on the window whose top-left integral entries are p / q / t (t may be
 * NULL without tilted features).  Returns 1 when every stage passes; GV_CASCADE_FLAT when the
 * window is too flat (gv_window_norm); else -(index of the rejecting stage) (0 for the first).  With
 * n_stages > 0 only that many first stages are run.  *score (may be NULL): the last stage
 * sum computed. */
#define GV_CASCADE_FLAT (-1000000)
int gv_cascade_eval(const gv_cascade_run *r, const int32_t *p, const uint32_t *q,
                    const int32_t *t, int n_stages, double *score);

/* gv_cascade_eval on the eight windows p, p + step, ..., p + 7 step of one row of an upright,
 * stumps-only cascade, side by side (AVX2): res[j] is window j's answer, bit for bit the
 * scalar one.  Returns 0 (nothing done) when not available (no AVX2, tilted features or
 * trees); the caller then goes window by window.  Reads up to 16 table entries past the last
 * window's: pad the integral images. */
int gv_cascade_batch8(const gv_cascade_run *r, const int32_t *p, const uint32_t *q, int step,
                      int res[8]);

/* ---- detection (detect.c) ---- */
typedef struct gv_detect_opts {
    double scale_factor; /* > 1; OpenCV's 1.1 */
    int min_neighbors;   /* OpenCV's 3 */
    int min_w, min_h, max_w, max_h; /* 0: no limit */
    int step;            /* 0: OpenCV's rule (2 below scale 2, then 1) */
    int n_threads;
    double group_eps;    /* 0.2 */
} gv_detect_opts;

typedef struct gv_rect {
    int x, y, w, h, neighbors;
} gv_rect;

/* Multi-scale detection of cascade c on img, OpenCV's detectMultiScale: an image pyramid
 * (the image resized by 1/s for s = 1, f, f^2, ... while the scaled window fits and stays below
 * the maximum size; scales below the minimum size skipped), every window at the step of its
 * scale evaluated with early rejection (a window rejected by the first stage skips the next
 * position), hits mapped back (x s, y s, round(W s), round(H s)), then grouped
 * (gv_group_rects).  Rows of all scales are shared among threads in fixed stripes and the hits
 * are gathered in scale, row, column order, so the result does not depend on the number of
 * threads.  New array in *out (free with gv_free), *n entries.  *raw_windows (may be NULL):
 * the number of windows evaluated. */
grove_status gv_detect(const struct grove_cascade *c, const gv_image *img,
                       const gv_detect_opts *opts, gv_rect **out, size_t *n,
                       double *raw_windows);

/* OpenCV's groupRectangles: rectangles are joined into classes by the equivalence closure of
 * "similar" (every side within eps * (min widths + min heights) / 2), a class with more than
 * min_neighbors members becomes its mean rectangle (neighbors = its size), and a class lying
 * inside a bigger class with more neighbours (or when it has fewer than 3) is dropped.  Then
 * rectangles are clipped to the image (img_w, img_h).  min_neighbors <= 0: no grouping.
 * Rewrites r in place, *n updated. */
grove_status gv_group_rects(gv_rect *r, size_t *n, int min_neighbors, double eps, int img_w,
                            int img_h);

/* ---- training (train.c, train_io.c) ---- */
typedef struct gv_train_opts {
    int width, height;  /* the base window */
    unsigned types;     /* GV_HAAR_* families */
    int max_stages, max_weak;
    double max_fp, min_detect, target_fp; /* f, d, F_target */
    double max_windows;  /* most windows scanned per stage when mining negatives */
    size_t negatives;    /* training negatives per stage (as many for validation); 0: 2 x positives */
    size_t memory_bytes; /* for the binned feature values */
    uint64_t seed;
    int n_threads;
} gv_train_opts;

/* Trains a cascade (Viola & Jones 2004, Table 2) on positive windows (images of exactly the
 * window size; training and validation sets, all borrowed) and negative images (any size >=
 * the window, borrowed).  `params` (may be NULL) carries the progress callback.  New cascade
 * with its per-stage record in *out. */
grove_status gv_cascade_train_sets(const gv_image *const *pos_train, size_t n_pos_train,
                                   const gv_image *const *pos_valid, size_t n_pos_valid,
                                   const gv_image *const *neg_images, size_t n_neg_images,
                                   const gv_train_opts *opts, const grove_params *params,
                                   struct grove_cascade **out);

#endif /* GV_VISION_H */
