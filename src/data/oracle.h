/*
 * oracle.h -- the example oracle EX of boosting by filtering, and the image deformations that
 * make it an endless source of fresh examples.
 *
 * Pipeline position: data/ (reads a dataset, writes raw feature vectors; no bins, no learners).
 * Schapire's filter (ensemble/filter.c) assumes an oracle EX returning independent labelled
 * examples on request.  Two oracles:
 *   data    a training row drawn at random in proportion to its sample weight (the row itself);
 *   deform  a row drawn so, then deformed as an image: the examples never run out, which is
 *           how Drucker, Schapire & Simard (1993) fed three networks from a finite digit set.
 * A deformation of a width x height image I (pixel (x, y) at feature y * width + x) maps every
 * output pixel p back to a source point and interpolates I there (bilinear):
 *     s(p) = c + R(-theta) (p - c - t) / k + alpha * (G_sigma * U)(p)
 * c the image centre, t = (tx, ty) uniform in [-shift, shift]^2, theta uniform in
 * [-rotation, rotation], k uniform in [1 - scale, 1 + scale], and the elastic field of Simard,
 * Steinkraus & Platt (2003, sec. 2): U two fields of independent uniform [-1, 1] values per
 * pixel, convolved with a normalized Gaussian of standard deviation sigma (truncated at 3 sigma,
 * zero outside the image) and scaled by alpha (pixels).  Source points outside the image read
 * the image's smallest value (the background), so every output pixel is a convex combination of
 * the image's own values: the shape (width x height) and the intensity range [min, max] of the
 * row are kept (the result is clamped to it against rounding).
 * Determinism: draw j of an oracle uses the stream (seed, GV_STREAM_ORACLE, j) alone -- the row
 * and the deformation -- so a run's examples depend on the seed and the draw count only, not on
 * threads.  The data oracle draws rows from a caller's stream (the filter's, as before).
 * Ownership: the oracle borrows the dataset and owns its buffers (gv_oracle_free).
 */
#ifndef GV_ORACLE_H
#define GV_ORACLE_H

#include "dataset.h"
#include "../core/params.h"

enum { GV_ORACLE_DATA = 0, GV_ORACLE_DEFORM = 1 }; /* index of filter.oracle's values */
enum { GV_STREAM_ORACLE = 61 };

typedef struct gv_deform {
    size_t width, height;
    double shift;        /* pixels */
    double rotation;     /* radians */
    double scale;        /* relative */
    double alpha, sigma; /* elastic field: pixels, pixels; alpha 0 = none */
    size_t radius;       /* of the Gaussian kernel: ceil(3 sigma) */
    double *kernel;      /* [2 radius + 1], sums to 1; owned */
} gv_deform;

/* The deformation of image rows with n_features features from image.width, image.height,
 * deform.shift, deform.rotation, deform.scale, deform.elastic_alpha and deform.elastic_sigma.
 * image.width = image.height = 0 means square images; one of them 0 means n_features / the
 * other.  GROVE_ERR_PARAM naming image.width/image.height when width x height is not
 * n_features.  Free with gv_deform_free. */
grove_status gv_deform_init(gv_deform *d, const grove_params *params, size_t n_features);
void gv_deform_free(gv_deform *d);

/* Deforms the image src[width * height] into dst[width * height] (src != dst) with the random
 * parameters drawn from rng; scratch holds 3 * width * height doubles.  src must be finite. */
void gv_deform_image(const gv_deform *d, const float *src, float *dst, gv_rng *rng,
                     double *scratch);

/* The warp itself, for given parameters: dst = src deformed by rotation theta (radians), scale k,
 * translation (tx, ty) and the displacement fields fx, fy ([width * height] each, pixels; both
 * NULL = none).  With theta 0, k 1, integer (tx, ty) and no fields it is an exact translation;
 * gv_deform_image draws the parameters and calls it. */
void gv_deform_warp(const gv_deform *d, const float *src, float *dst, double theta, double k,
                    double tx, double ty, const double *fx, const double *fy);

typedef struct gv_oracle {
    const grove_dataset *data; /* borrowed */
    const double *y;           /* borrowed: [n_rows] class indices */
    int kind;                  /* GV_ORACLE_DATA or GV_ORACLE_DEFORM */
    double *cum;               /* [n_rows] cumulative sample weights; owned */
    uint64_t seed, n_draws;    /* deform: draw j uses (seed, GV_STREAM_ORACLE, j) */
    gv_deform deform;
    float *row;                /* [n_features] the source row being deformed; owned */
    double *scratch;           /* [3 * n_features]; owned */
} gv_oracle;

/* An oracle over data's rows with labels y and sample weights `weight` (NULL: all 1), of the
 * kind filter.oracle names, deformed per the image/deform parameters, seeded by `seed`.  The
 * deform oracle needs dense-or-sparse numeric rows without missing values (GROVE_ERR_DATA
 * naming the first missing cell, GROVE_ERR_PARAM for a categorical feature).  The weights
 * must sum to a positive number (GROVE_ERR_DATA).  Free with gv_oracle_free. */
grove_status gv_oracle_init(gv_oracle *o, const grove_dataset *data, const double *y,
                            const double *weight, const grove_params *params, uint64_t seed);
void gv_oracle_free(gv_oracle *o);

/* A row index drawn in proportion to the weights, from rng. */
size_t gv_oracle_row(const gv_oracle *o, gv_rng *rng);

/* The next example of a deform oracle: its features into x[n_features], its class into *y,
 * the source row into *row (may be NULL). */
void gv_oracle_draw(gv_oracle *o, float *x, double *y, size_t *row);

#endif /* GV_ORACLE_H */
