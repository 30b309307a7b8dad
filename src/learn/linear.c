/*
 * linear.c -- the feature map of the linear learners (standardize numeric features, one-hot
 * categorical ones), the encoded training view, and the linear model's scores and JSON form.
 *
 * Pipeline position: learn/, shared by perceptron.c and logistic.c (see linear.h for the
 * transform and its invariants).  The statistics of the map are weighted sums over the view in
 * view order; every weight enters as q = w / w_scale (a power of two, see linear.h), so a view
 * whose weights are all multiplied by a constant gets the same map up to rounding (exactly the
 * same for a power-of-two constant).
 * File form (docs/model-format.md, linear components): "n_classes", and per raw feature
 * "mean" and "std" (categorical features: 0 and 0, insisted on by the reader), then "coef"
 * (n_vec * dim reals, vector-major) and "intercept" (n_vec reals), where n_vec = 1 for two
 * classes and K otherwise, and dim comes from the schema (1 column per numeric feature, one
 * per category of a categorical feature).
 * The JSON form is read with core/json.h's typed getters (the same as every component's), so
 * every bad field is reported alike.
 * C export (gv_linear_model_export_c, the perceptron's and logistic regression's export_c slot):
 * the map and weights as static tables, the scores in the same order as gv_linear_scores, then
 * the kind's output.
 */
#include "linear.h"

#include "../core/json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- the feature map ---- */

void gv_linear_map_free(gv_linear_map *m)
{
    if (!m) return;
    gv_free(m->is_categorical);
    gv_free(m->offset);
    gv_free(m->width);
    gv_free(m->mean);
    gv_free(m->std);
    memset(m, 0, sizeof *m);
}

static grove_status map_alloc(gv_linear_map *m, size_t n_features)
{
    memset(m, 0, sizeof *m);
    m->n_features = n_features;
    m->is_categorical = gv_calloc(n_features, 1);
    m->offset = gv_calloc(n_features, sizeof *m->offset);
    m->width = gv_calloc(n_features, sizeof *m->width);
    m->mean = gv_calloc(n_features, sizeof *m->mean);
    m->std = gv_calloc(n_features, sizeof *m->std);
    if (!m->is_categorical || !m->offset || !m->width || !m->mean || !m->std) {
        gv_linear_map_free(m);
        return gv_err_nomem("a linear model's feature map");
    }
    return GROVE_OK;
}

grove_status gv_linear_map_init(gv_linear_map *m, const grove_schema *schema)
{
    grove_status st = map_alloc(m, schema->n_features);
    if (st != GROVE_OK) return st;
    size_t dim = 0;
    for (size_t f = 0; f < m->n_features; f++) {
        m->is_categorical[f] = schema->is_categorical[f] ? 1 : 0;
        m->width[f] = m->is_categorical[f] ? schema->categories[f].n : 1;
        m->offset[f] = dim;
        /* dim + 1 (the intercept) and later products are checked by their users; keep dim
         * well below SIZE_MAX so dim + 1 never wraps */
        if (m->width[f] > SIZE_MAX / 2 - dim) {
            gv_linear_map_free(m);
            return gv_err(GROVE_ERR_DATA, "too many encoded columns for a linear model");
        }
        dim += m->width[f];
    }
    m->dim = dim;
    return GROVE_OK;
}

grove_status gv_linear_map_identity(gv_linear_map *m, size_t n_features)
{
    grove_status st = map_alloc(m, n_features);
    if (st != GROVE_OK) return st;
    for (size_t f = 0; f < n_features; f++) {
        m->width[f] = 1;
        m->offset[f] = f;
        m->std[f] = 1;
    }
    m->dim = n_features;
    return GROVE_OK;
}

void gv_linear_axpy(const gv_linear_map *m, const double *enc, double a, double *w)
{
    for (size_t f = 0; f < m->n_features; f++) {
        double v = enc[f];
        if (m->is_categorical[f]) {
            if (v >= 0) w[m->offset[f] + (size_t)v] += a;
        } else if (v != 0) {
            w[m->offset[f]] += a * v;
        }
    }
}

/* Weighted mean and population standard deviation of numeric feature f over the view:
 *   mean = sum q x / sum q,   std = sqrt(sum q (x - mean)^2 / sum q)
 * over the positions with q > 0 and a finite value.  A feature whose finite values are all
 * equal gets std 0 exactly (rounding in the mean must not turn a constant into noise). */
static void fit_numeric(gv_linear_map *m, size_t f, const grove_dataset *d, const size_t *rows,
                        size_t n, const double *q)
{
    double sq = 0, sx = 0, lo = INFINITY, hi = -INFINITY;
    for (size_t p = 0; p < n; p++) {
        double v = (double)gv_value(d, f, rows ? rows[p] : p);
        if (q[p] > 0 && v - v == 0) {
            sq += q[p];
            sx += q[p] * v;
            if (v < lo) lo = v;
            if (v > hi) hi = v;
        }
    }
    m->mean[f] = 0;
    m->std[f] = 0;
    if (!(sq > 0)) return;
    if (lo == hi) {
        m->mean[f] = lo;
        return;
    }
    double mean = sx / sq, ss = 0;
    for (size_t p = 0; p < n; p++) {
        double v = (double)gv_value(d, f, rows ? rows[p] : p);
        if (q[p] > 0 && v - v == 0) ss += q[p] * (v - mean) * (v - mean);
    }
    double sd = sqrt(ss / sq);
    m->mean[f] = mean;
    if (sd > 0 && isfinite(sd)) m->std[f] = sd;
}

void gv_linear_map_fit(gv_linear_map *m, const grove_dataset *d, const size_t *rows, size_t n,
                       const double *q)
{
    for (size_t f = 0; f < m->n_features; f++)
        if (!m->is_categorical[f]) fit_numeric(m, f, d, rows, n, q);
}

void gv_linear_data_free(gv_linear_data *ld)
{
    if (!ld) return;
    gv_linear_map_free(&ld->map);
    gv_free(ld->enc);
    gv_free(ld->y);
    gv_free(ld->q);
    memset(ld, 0, sizeof *ld);
}

grove_status gv_linear_data_build(const gv_fit_input *in, const char *learner,
                                  gv_linear_data *ld)
{
    memset(ld, 0, sizeof *ld);
    const grove_dataset *d = in->data;
    if (in->n_classes < 2)
        return gv_err(GROVE_ERR_PARAM,
                      "algo: %s is a classification learner; this is a regression task",
                      learner);
    if (in->n_rows == 0) return gv_err(GROVE_ERR_DATA, "%s: no rows to train on", learner);
    size_t n = in->n_rows, n_features = d->schema->n_features;
    /* Labels and weights first: they are the caller's input, checked before any work. */
    double w_max = 0;
    for (size_t p = 0; p < n; p++) {
        size_t r = in->rows ? in->rows[p] : p;
        double y = in->y[r];
        if (!(y >= 0 && y < in->n_classes && y == floor(y)))
            return gv_err(GROVE_ERR_DATA, "row %zu: label %g is not a class index in [0, %d)", r,
                          y, in->n_classes);
        double w = in->weight ? in->weight[r] : 1;
        if (!(w >= 0 && isfinite(w)))
            return gv_err(GROVE_ERR_DATA,
                          "row %zu: sample weight %g is not a finite non-negative number", r, w);
        if (w > w_max) w_max = w;
    }
    if (!(w_max > 0))
        return gv_err(GROVE_ERR_DATA, "%s: every training row has sample weight 0", learner);

    size_t n_enc;
    if (gv_mul_size(n, n_features, &n_enc) != 0)
        return gv_err(GROVE_ERR_DATA, "%s: rows x features overflows", learner);
    grove_status st = gv_linear_map_init(&ld->map, d->schema);
    if (st != GROVE_OK) return st;
    ld->n = n;
    ld->n_classes = in->n_classes;
    int e;
    frexp(w_max, &e); /* w_max = m 2^e, m in [0.5, 1) */
    ld->w_scale = ldexp(1, e);
    ld->enc = gv_malloc_array(n_enc, sizeof *ld->enc);
    ld->y = gv_malloc_array(n, sizeof *ld->y);
    ld->q = gv_malloc_array(n, sizeof *ld->q);
    if (!ld->enc || !ld->y || !ld->q) {
        gv_linear_data_free(ld);
        return gv_err_nomem("a linear model's training rows");
    }
    double first = -1;
    ld->uniform = 1;
    for (size_t p = 0; p < n; p++) {
        size_t r = in->rows ? in->rows[p] : p;
        double w = in->weight ? in->weight[r] : 1;
        ld->y[p] = (int)in->y[r];
        ld->q[p] = ldexp(w, -e);
        ld->q_sum += ld->q[p];
        if (p == 0) first = w;
        if (w != first) ld->uniform = 0;
    }
    for (size_t f = 0; f < n_features; f++)
        if (!ld->map.is_categorical[f]) fit_numeric(&ld->map, f, d, in->rows, n, ld->q);
    for (size_t p = 0; p < n; p++) {
        size_t r = in->rows ? in->rows[p] : p;
        double *row = ld->enc + p * n_features;
        for (size_t f = 0; f < n_features; f++)
            row[f] = gv_linear_encode(&ld->map, f, gv_value(d, f, r));
    }
    return GROVE_OK;
}

/* ---- the linear model ---- */

grove_status gv_linear_model_alloc(gv_linear_model *lm, int n_classes)
{
    lm->n_classes = n_classes;
    lm->n_vec = gv_linear_n_vec(n_classes);
    size_t n_coef, bytes;
    if (gv_mul_size(lm->n_vec, lm->map.dim, &n_coef) != 0 ||
        gv_mul_size(n_coef, sizeof *lm->coef, &bytes) != 0)
        return gv_err(GROVE_ERR_DATA, "a linear model with %zu x %zu weights is too large",
                      lm->n_vec, lm->map.dim);
    lm->coef = gv_calloc(n_coef, sizeof *lm->coef);
    lm->intercept = gv_calloc(lm->n_vec, sizeof *lm->intercept);
    if (!lm->coef || !lm->intercept) return gv_err_nomem("a linear model");
    return GROVE_OK;
}

void gv_linear_model_free(gv_linear_model *lm)
{
    if (!lm) return;
    gv_linear_map_free(&lm->map);
    gv_free(lm->coef);
    gv_free(lm->intercept);
    memset(lm, 0, sizeof *lm);
}

void gv_linear_scores_enc(const gv_linear_map *m, const double *coef, const double *intercept,
                          size_t n_vec, const double *enc, double *out)
{
    for (size_t k = 0; k < n_vec; k++) out[k] = 0;
    for (size_t f = 0; f < m->n_features; f++)
        for (size_t k = 0; k < n_vec; k++)
            out[k] += gv_linear_term(m, f, enc[f], coef + k * m->dim);
    for (size_t k = 0; k < n_vec; k++) out[k] += intercept[k];
}

void gv_linear_scores(const gv_linear_model *lm, const grove_dataset *d, size_t i, double *out)
{
    const gv_linear_map *m = &lm->map;
    for (size_t k = 0; k < lm->n_vec; k++) out[k] = 0;
    for (size_t f = 0; f < m->n_features; f++) {
        double v = gv_linear_encode(m, f, gv_value(d, f, i));
        for (size_t k = 0; k < lm->n_vec; k++)
            out[k] += gv_linear_term(m, f, v, lm->coef + k * m->dim);
    }
    for (size_t k = 0; k < lm->n_vec; k++) out[k] += lm->intercept[k];
}

/* ---- JSON ---- */

int gv_linear_model_to_json(const gv_linear_model *lm, json_t *obj)
{
    const gv_linear_map *m = &lm->map;
    int bad = json_object_set_new(obj, "n_classes", json_integer(lm->n_classes));
    bad |= json_object_set_new(obj, "mean", gv_json_real_array(m->mean, m->n_features));
    bad |= json_object_set_new(obj, "std", gv_json_real_array(m->std, m->n_features));
    bad |= json_object_set_new(obj, "coef", gv_json_real_array(lm->coef, lm->n_vec * m->dim));
    bad |= json_object_set_new(obj, "intercept", gv_json_real_array(lm->intercept, lm->n_vec));
    return bad ? -1 : 0;
}

static const char *const common_fields[] = {"kind", "n_classes", "mean", "std", "coef",
                                            "intercept"};

/* The common fields and the learner's own ones (at most MAX_EXTRA). */
#define MAX_EXTRA 8
static grove_status check_fields(const json_t *obj, const char *const *extra, size_t n_extra)
{
    const char *known[GV_COUNT(common_fields) + MAX_EXTRA];
    size_t n = 0;
    for (size_t j = 0; j < GV_COUNT(common_fields); j++) known[n++] = common_fields[j];
    for (size_t j = 0; j < n_extra && j < MAX_EXTRA; j++) known[n++] = extra[j];
    return gv_json_check_fields(obj, known, n, "a linear model");
}

grove_status gv_linear_model_from_json(const json_t *obj, const grove_schema *schema,
                                       const char *const *extra, size_t n_extra,
                                       gv_linear_model *lm)
{
    grove_status st = check_fields(obj, extra, n_extra);
    if (st != GROVE_OK) return st;
    int64_t n_classes;
    if ((st = gv_json_get_int(obj, "n_classes", 2, 65536, &n_classes)) != GROVE_OK) return st;
    if (schema->task != GROVE_CLASSIFICATION)
        return gv_err(GROVE_ERR_MODEL,
                      "n_classes: a linear classifier in a model of a regression task");
    if ((size_t)n_classes != schema->classes.n)
        return gv_err(GROVE_ERR_MODEL, "n_classes: the schema has %zu classes, got %lld",
                      schema->classes.n, (long long)n_classes);
    if ((st = gv_linear_map_init(&lm->map, schema)) != GROVE_OK) {
        /* a schema that loaded has a dimension that fits; only memory can fail here */
        if (st == GROVE_ERR_DATA) st = GROVE_ERR_MODEL;
        return st;
    }
    gv_linear_map *m = &lm->map;
    const json_t *mean, *sd, *coef, *intercept;
    size_t n_vec = gv_linear_n_vec((int)n_classes), n_coef;
    if (gv_mul_size(n_vec, m->dim, &n_coef) != 0)
        return gv_err(GROVE_ERR_MODEL, "coef: n_classes x columns overflows");
    if ((st = gv_json_get_array(obj, "mean", m->n_features, &mean)) != GROVE_OK ||
        (st = gv_json_get_array(obj, "std", m->n_features, &sd)) != GROVE_OK ||
        (st = gv_json_get_array(obj, "coef", n_coef, &coef)) != GROVE_OK ||
        (st = gv_json_get_array(obj, "intercept", n_vec, &intercept)) != GROVE_OK)
        return st;
    gv_json_array_values(mean, m->mean, m->n_features);
    gv_json_array_values(sd, m->std, m->n_features);
    if ((st = gv_linear_model_alloc(lm, (int)n_classes)) != GROVE_OK) return st;
    gv_json_array_values(coef, lm->coef, n_coef);
    gv_json_array_values(intercept, lm->intercept, n_vec);
    /* the same checks as the writer's (the statistics' values; JSON numbers are finite) */
    return gv_linear_model_validate(lm, schema);
}

grove_status gv_linear_model_validate(const gv_linear_model *lm, const grove_schema *schema)
{
    const gv_linear_map *m = &lm->map;
    if (schema->task != GROVE_CLASSIFICATION || (size_t)lm->n_classes != schema->classes.n ||
        lm->n_classes < 2)
        return gv_err(GROVE_ERR_MODEL, "n_classes: %d, but the schema has %zu classes%s",
                      lm->n_classes, schema->classes.n,
                      schema->task != GROVE_CLASSIFICATION ? " (a regression task)" : "");
    if (lm->n_vec != gv_linear_n_vec(lm->n_classes))
        return gv_err(GROVE_ERR_MODEL, "coef: %zu weight vectors for %d classes", lm->n_vec,
                      lm->n_classes);
    if (m->n_features != schema->n_features)
        return gv_err(GROVE_ERR_MODEL, "mean: %zu features, but the schema has %zu",
                      m->n_features, schema->n_features);
    size_t dim = 0;
    for (size_t f = 0; f < m->n_features; f++) {
        size_t width = schema->is_categorical[f] ? schema->categories[f].n : 1;
        if (m->is_categorical[f] != (schema->is_categorical[f] ? 1 : 0) || m->width[f] != width ||
            m->offset[f] != dim)
            return gv_err(GROVE_ERR_MODEL, "feature %zu: its encoding does not match the schema",
                          f);
        dim += width;
        if (!isfinite(m->mean[f]) || !isfinite(m->std[f]))
            return gv_err(GROVE_ERR_MODEL, "%s[%zu]: not a finite number",
                          isfinite(m->mean[f]) ? "std" : "mean", f);
        if (m->is_categorical[f] && (m->mean[f] != 0 || m->std[f] != 0))
            return gv_err(GROVE_ERR_MODEL,
                          "%s[%zu]: a categorical feature must have mean 0 and std 0, got %.17g",
                          m->mean[f] != 0 ? "mean" : "std", f,
                          m->mean[f] != 0 ? m->mean[f] : m->std[f]);
        if (!(m->std[f] >= 0))
            return gv_err(GROVE_ERR_MODEL, "std[%zu]: must be >= 0, got %.17g", f, m->std[f]);
    }
    if (dim != m->dim)
        return gv_err(GROVE_ERR_MODEL, "coef: %zu columns, but the schema encodes %zu", m->dim,
                      dim);
    for (size_t j = 0; j < lm->n_vec * m->dim; j++)
        if (!isfinite(lm->coef[j]))
            return gv_err(GROVE_ERR_MODEL, "coef[%zu]: not a finite number", j);
    for (size_t k = 0; k < lm->n_vec; k++)
        if (!isfinite(lm->intercept[k]))
            return gv_err(GROVE_ERR_MODEL, "intercept[%zu]: not a finite number", k);
    return GROVE_OK;
}

grove_status gv_linear_model_check(const gv_linear_model *lm, size_t n_outputs)
{
    if ((size_t)lm->n_classes != n_outputs)
        return gv_err(GROVE_ERR_MODEL, "model: a linear model with %d outputs, %zu expected",
                      lm->n_classes, n_outputs);
    return GROVE_OK;
}

/* ---- C export: gv_linear_encode and gv_linear_scores_enc's terms as the generated helpers
 * lin_encode and lin_term (model/export.c writes them), feature by feature, intercept last ---- */

grove_status gv_linear_model_export_c(const gv_linear_model *lm, int logistic, gv_cgen *g,
                                      size_t *id)
{
    const gv_linear_map *mp = &lm->map;
    const size_t F = mp->n_features, NV = lm->n_vec, K = (size_t)lm->n_classes;
    gv_buf *b = &g->body;
    size_t me = g->n_comps; /* the id open_function will give */
    gv_cgen_out(b, g, "\n/* %s: feature map and weights */\n",
                logistic ? "logistic" : "perceptron");
    gv_cgen_out(b, g, "static const double c%zu_mean[%zu] = {", me, F);
    gv_cgen_dlist(b, g, mp->mean, F);
    gv_cgen_out(b, g, "};\nstatic const double c%zu_std[%zu] = {", me, F);
    gv_cgen_dlist(b, g, mp->std, F);
    gv_cgen_out(b, g, "};\nstatic const double c%zu_coef[%zu] = {", me, NV * mp->dim);
    gv_cgen_dlist(b, g, lm->coef, NV * mp->dim);
    gv_cgen_out(b, g, "};\nstatic const double c%zu_intercept[%zu] = {", me, NV);
    gv_cgen_dlist(b, g, lm->intercept, NV);
    gv_cgen_out(b, g, "};\nstatic const unsigned char c%zu_is_cat[%zu] = {", me, F);
    for (size_t f = 0; f < F; f++) gv_cgen_out(b, g, "%s%d", f ? ", " : "", mp->is_categorical[f]);
    gv_cgen_out(b, g, "};\nstatic const size_t c%zu_offset[%zu] = {", me, F);
    for (size_t f = 0; f < F; f++) gv_cgen_out(b, g, "%s%zu", f ? ", " : "", mp->offset[f]);
    gv_cgen_out(b, g, "};\nstatic const size_t c%zu_width[%zu] = {", me, F);
    for (size_t f = 0; f < F; f++) gv_cgen_out(b, g, "%s%zu", f ? ", " : "", mp->width[f]);
    gv_cgen_out(b, g, "};\n");
    *id = gv_cgen_open_function(g, logistic ? "logistic regression" : "perceptron");
    gv_cgen_out(b, g, "    double z[%zu];\n    size_t f, k;\n", K);
    gv_cgen_out(b, g, "    for (k = 0; k < %zu; k++) z[k] = 0;\n", NV);
    gv_cgen_out(b, g, "    for (f = 0; f < %zu; f++) {\n", F);
    gv_cgen_out(b, g,
                "        double v = lin_encode(c%zu_is_cat[f], c%zu_width[f], c%zu_mean[f], "
                "c%zu_std[f], x[f]);\n",
                me, me, me, me);
    gv_cgen_out(b, g,
                "        for (k = 0; k < %zu; k++)\n            z[k] += lin_term(c%zu_is_cat[f], "
                "c%zu_offset[f], v, c%zu_coef + k * %zu);\n    }\n",
                NV, me, me, me, mp->dim);
    gv_cgen_out(b, g, "    for (k = 0; k < %zu; k++) z[k] += c%zu_intercept[k];\n", NV, me);
    if (logistic)
        gv_cgen_out(b, g, "    logistic_output(z, %zu, out);\n}\n", K);
    else
        gv_cgen_out(b, g,
                    "    { int c = perceptron_class(z, %zu);\n      for (k = 0; k < %zu; k++) "
                    "out[k] = (int)k == c; }\n}\n",
                    K, K);
    return GROVE_OK;
}
