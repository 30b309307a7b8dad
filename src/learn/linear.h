/*
 * linear.h -- what the linear learners (perceptron.c, logistic.c) share: the feature map from
 * raw dataset values to a standardized, one-hot-encoded vector, the training rows in that
 * encoding, and the linear model (one weight vector per score, plus intercepts) with its
 * prediction and its JSON form.
 *
 * Pipeline position: learn/.  Linear learners read the raw values of gv_fit_input.data, never
 * the bins.  The feature map (Hastie, Tibshirani & Friedman, ESL 2nd ed., section 3.4: inputs
 * are standardized before a penalized linear fit) is fitted on the training view:
 *   numeric feature f      x' = (x - mean_f) / std_f   with the weighted mean and population
 *                          standard deviation of the training rows' finite values;
 *                          std_f = 0 (a constant, or no finite value) ignores the feature
 *                          (x' = 0); a missing or non-finite x gives x' = 0 (the mean).
 *   categorical feature f  one column per category of the schema, x' = 1 in the column of the
 *                          row's code; missing (or a code outside the schema) -> all zeros.
 * The encoded columns of feature f start at offset[f]; dim is their total.  The map is stored
 * in the component, so prediction applies exactly the transform that training used.
 *
 * Weights: per ORIGINAL row (gv_fit_input.weight, NULL = all 1); a row repeated in the view
 * counts once per occurrence.  Internally weights are divided by w_scale, the power of two
 * just above the largest weight (q = w / w_scale < 1): no sum overflows whatever their scale,
 * and the division is exact, so integer weights stay exact multiples in every sum (this is
 * what makes "integer weights = duplicated rows" hold bit for bit where sums are exact).
 *
 * Encoded rows: an "encoded row" holds one double per raw feature: x' for a numeric feature,
 * the category code (or -1 when missing) for a categorical one; gv_linear_term() turns an
 * entry into its contribution to a score.  Training and prediction add the same terms in the
 * same order (feature by feature, intercept last), so their scores are bit-identical.
 */
#ifndef GV_LINEAR_H
#define GV_LINEAR_H

#include "learner.h"

/* ---- the feature map ---- */

typedef struct gv_linear_map {
    size_t n_features;             /* raw features (the schema's) */
    size_t dim;                    /* encoded columns, intercept excluded */
    unsigned char *is_categorical; /* [n_features], owned */
    size_t *offset;                /* [n_features]: first encoded column of feature f, owned */
    size_t *width;                 /* [n_features]: 1 (numeric) or the category count, owned */
    double *mean;                  /* [n_features]: numeric mean; 0 for categorical, owned */
    double *std;                   /* [n_features]: numeric std (0 = ignored); 0 for
                                      categorical, owned */
} gv_linear_map;

/* Lays out the map for `schema` (kinds, widths, offsets), with every mean and std 0.
 * GROVE_ERR_NOMEM, or GROVE_ERR_DATA when the encoded dimension overflows.  On failure the
 * map is empty (gv_linear_map_free is still safe). */
grove_status gv_linear_map_init(gv_linear_map *m, const grove_schema *schema);

/* A map for n_features numeric features with mean 0 and std 1: x' = x exactly (raw vectors). */
grove_status gv_linear_map_identity(gv_linear_map *m, size_t n_features);

/* Frees the map's arrays and zeroes it (an all-zero map is accepted). */
void gv_linear_map_free(gv_linear_map *m);

/* Fits the mean and std of every numeric feature of a map laid out by gv_linear_map_init on
 * the view rows[0..n) of d (rows NULL: rows 0..n-1) with per-position weights q[n] >= 0 (any
 * common scale), as gv_linear_data_build does; for learners of any task (mlp.c). */
void gv_linear_map_fit(gv_linear_map *m, const grove_dataset *d, const size_t *rows, size_t n,
                       const double *q);

/* The encoded entry of raw value x of feature f (see the file comment). */
/* The largest |encoded value| of a numeric feature (gv_linear_encode). */
#define GV_LINEAR_ENCODED_MAX 1e150

static inline double gv_linear_encode(const gv_linear_map *m, size_t f, float x)
{
    if (m->is_categorical[f]) {
        /* the range test first: it is false for NaN, and converting it is then safe */
        if (x >= 0 && (double)x < (double)m->width[f] && x == (float)(size_t)x) return (double)x;
        return -1;
    }
    double v = (double)x;
    if (!(m->std[f] > 0) || !(v - v == 0)) return 0; /* ignored, missing or infinite */
    v = (v - m->mean[f]) / m->std[f];
    /* within GV_LINEAR_ENCODED_MAX standard deviations: the bound that keeps a loaded model's
     * scores finite (gv_mlp's check); no real feature comes near it */
    return v > GV_LINEAR_ENCODED_MAX ? GV_LINEAR_ENCODED_MAX
           : v < -GV_LINEAR_ENCODED_MAX ? -GV_LINEAR_ENCODED_MAX : v;
}

/* Feature f's contribution to the score of weight vector w (dim entries) for entry v. */
static inline double gv_linear_term(const gv_linear_map *m, size_t f, double v, const double *w)
{
    if (m->is_categorical[f]) return v >= 0 ? w[m->offset[f] + (size_t)v] : 0.0;
    return v * w[m->offset[f]];
}

/* w += a * x for encoded row `enc` (dim entries of w). */
void gv_linear_axpy(const gv_linear_map *m, const double *enc, double a, double *w);

/* ---- training rows ---- */

/* The training view in the encoded form, built once per fit. */
typedef struct gv_linear_data {
    gv_linear_map map; /* fitted on the view; the learner moves it into its model */
    size_t n;          /* positions in the view (repeats included) */
    double *enc;       /* [n * map.n_features] encoded rows, row-major, owned */
    int *y;            /* [n] class indices, owned */
    double *q;         /* [n] weight / w_scale, in [0, 1), owned */
    double q_sum;      /* sum of q (> 0) */
    double w_scale;    /* a power of two above the largest weight: weight = q * w_scale */
    int uniform;       /* 1 when every position has the same weight */
    int n_classes;     /* K >= 2 */
} gv_linear_data;

/* Checks the task (classification; else GROVE_ERR_PARAM "algo: <learner> is a classification
 * learner ..."), the labels (class indices in [0, K)) and weights (finite, >= 0, not all 0:
 * GROVE_ERR_DATA), fits the feature map on the view and encodes its rows.  `out` is filled
 * (new arrays, free with gv_linear_data_free) or left empty on failure. */
grove_status gv_linear_data_build(const gv_fit_input *in, const char *learner,
                                  gv_linear_data *out);
void gv_linear_data_free(gv_linear_data *ld);

/* ---- the linear model ---- */

/* n_vec score vectors: 1 for two classes (score of class 1; class 0 scores 0), else K. */
typedef struct gv_linear_model {
    gv_linear_map map; /* owned */
    int n_classes;     /* K >= 2 */
    size_t n_vec;      /* 1 when K = 2, else K */
    double *coef;      /* [n_vec * map.dim], vector k at coef + k * dim, owned */
    double *intercept; /* [n_vec], owned */
} gv_linear_model;

/* The number of score vectors for K classes. */
static inline size_t gv_linear_n_vec(int n_classes) { return n_classes == 2 ? 1 : (size_t)n_classes; }

/* Allocates coef and intercept (zeroed) for lm->map and n_classes; GROVE_ERR_NOMEM. */
grove_status gv_linear_model_alloc(gv_linear_model *lm, int n_classes);
void gv_linear_model_free(gv_linear_model *lm);

/* out[k] = sum_f term_f(coef_k) + intercept[k], k < n_vec, for an encoded row. */
void gv_linear_scores_enc(const gv_linear_map *m, const double *coef, const double *intercept,
                          size_t n_vec, const double *enc, double *out);
/* The same for row i of raw dataset d (the training schema's layout); bit-identical to
 * encoding the row and calling gv_linear_scores_enc. */
void gv_linear_scores(const gv_linear_model *lm, const grove_dataset *d, size_t i, double *out);

/* Adds the fields every linear component writes: n_classes, mean, std, coef, intercept.
 * 0 ok, -1 out of memory (or a non-finite number, which json_real refuses). */
int gv_linear_model_to_json(const gv_linear_model *lm, json_t *obj);
/* Reads those fields into `lm` (zeroed by the caller; freed by the caller on failure too),
 * checking them against `schema`, after rejecting any member of obj that is neither one of
 * them, "kind", nor one of extra[0..n_extra-1].  GROVE_ERR_MODEL naming the field. */
grove_status gv_linear_model_from_json(const json_t *obj, const grove_schema *schema,
                                       const char *const *extra, size_t n_extra,
                                       gv_linear_model *lm);

/* The component-level checks shared by both kinds (gv_component_vt.validate and .check):
 * the model agrees with `schema` (classification with n_classes classes, the same features,
 * kinds and category counts), its statistics are valid (std >= 0; categorical mean = std = 0)
 * and every number is finite.  GROVE_ERR_MODEL naming what is wrong. */
grove_status gv_linear_model_validate(const gv_linear_model *lm, const grove_schema *schema);
/* The model produces n_outputs values per row (= n_classes).  GROVE_ERR_MODEL otherwise. */
grove_status gv_linear_model_check(const gv_linear_model *lm, size_t n_outputs);

/* The model as C code (learner.h's export_c slot, core/cgen.h): its tables and its function
 * (number into *id), which encodes the row and sums the scores as gv_linear_scores does, then
 * writes logistic regression's probabilities (logistic = 1) or the perceptron's one-hot class
 * (logistic = 0). */
grove_status gv_linear_model_export_c(const gv_linear_model *lm, int logistic, gv_cgen *g,
                                      size_t *id);

/* ---- the learners and their components ---- */

enum { GV_PERCEPTRON_CLASSIC = 0, GV_PERCEPTRON_AVERAGED = 1, GV_PERCEPTRON_POCKET = 2 };

/* Fits the perceptron (perceptron.c) / logistic regression (logistic.c) on `in`; the
 * component is new in *out (freed with gv_component_free).  Parameters: perceptron.*,
 * logistic.* (params_def.h). */
grove_status gv_perceptron_fit(const gv_fit_input *in, gv_rng *rng, gv_component *out);
grove_status gv_logistic_fit(const gv_fit_input *in, gv_rng *rng, gv_component *out);

extern const gv_component_vt gv_perceptron_component; /* impl: gv_perceptron */
/* The linear model of a perceptron or logistic component (borrowed), or NULL for other kinds:
 * for code that walks a model from outside these files (model/dump.c). */
const gv_linear_model *gv_linear_model_of(const gv_component *c);
extern const gv_component_vt gv_logistic_component;   /* impl: gv_logistic */

/* The one-hidden-layer neural network (mlp.c), classification and regression, on the same
 * feature map; parameters mlp.* (params_def.h).  Component kind "mlp". */
grove_status gv_mlp_fit(const gv_fit_input *in, gv_rng *rng, gv_component *out);
extern const gv_component_vt gv_mlp_component; /* impl: gv_mlp */

/* Rosenblatt's classic perceptron on raw vectors, for tests of the theory: X is n x d
 * row-major (borrowed), y[i] = +1 or -1 (y > 0 counts as +1); no standardization and no bias
 * (a separator through the origin; append a constant-1 column for a bias).  Epochs visit
 * every row once, in an order shuffled by the stream (seed, 0x70657263, 0); training stops
 * after the first epoch without a mistake, or after `epochs`.  w (d entries, caller-owned)
 * receives the weights, *mistakes the total number of updates.  GROVE_ERR_NOMEM or
 * GROVE_ERR_ARG (n or d zero, epochs < 1). */
grove_status gv_perceptron_run(const double *X, const double *y, size_t n, size_t d, int epochs,
                               uint64_t seed, double *w, size_t *mistakes);

#endif /* GV_LINEAR_H */
