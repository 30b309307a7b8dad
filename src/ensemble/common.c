/*
 * common.c -- what every ensemble shares: predicting a member on every row, and the model-level
 * reports (training log, margins) reached through a component's optional vtable slots
 * (learn/learner.h), so the model's entry points (api/predict.c) need no list of kinds.
 *
 * Pipeline position: ensemble/.  (The base learner's lookup, gv_base_learner, is the
 * registry's: registry.c; importances dispatch in importance.c.)
 *   margin of an averaging ensemble (bagging, forest, extra-trees, voting): its outputs are vote
 *   fractions (hard vote) or mean class probabilities (soft), both summing to 1, so
 *     margin(x, y) = p_y(x) - max_{k != y} p_k(x)   in [-1, 1]
 *   is Breiman's (2001, sec. 2) margin function av_t I(h_t(x) = y) - max_j av_t I(h_t(x) = j)
 *   for a hard vote, and its analogue over probabilities for a soft one.
 * Determinism: rows are split over OpenMP threads, each row written by exactly one thread.
 */
#include "ensemble.h"

#include <math.h>

void gv_component_predict_all(const gv_component *c, const grove_dataset *d, size_t k,
                              int n_threads, double *out)
{
    const long n = (long)d->n_rows;
#ifdef _OPENMP
#pragma omp parallel for num_threads(n_threads > 0 ? n_threads : 1) schedule(static) if (n > 4096)
#else
    (void)n_threads;
#endif
    for (long i = 0; i < n; i++) c->vt->predict_row(c->impl, d, (size_t)i, out + (size_t)i * k);
}

grove_status gv_component_log_csv(const gv_component *c, gv_buf *b)
{
    if (!c->vt->log_csv)
        return gv_err(GROVE_ERR_ARG, "a per-round log exists for the AdaBoost family; this "
                                     "model is a %s", c->vt->kind);
    return c->vt->log_csv(c->impl, b);
}

grove_status gv_component_margins(const gv_component *c, const grove_dataset *d, int n_threads,
                                  double *out)
{
    if (!c->vt->margins)
        return gv_err(GROVE_ERR_ARG, "margins are defined for voting ensembles (adaboost, "
                                     "adaboost.m1, samme, adaboost.m2, bagging, forest, "
                                     "extra-trees, voting); this model is a %s",
                      c->vt->kind);
    return c->vt->margins(c->impl, d, n_threads, out);
}

grove_status gv_margins_averaged(const gv_component *c, size_t n_classes, const char *algo,
                                 const grove_dataset *d, int n_threads, double *out)
{
    if (n_classes == 0)
        return gv_err(GROVE_ERR_ARG, "margins are defined for classification; this %s model is "
                                     "a regression model", algo);
    if (!d->labels) return gv_err(GROVE_ERR_DATA, "%s: margins need labels", d->source);
    const size_t n = d->n_rows, k = n_classes;
    double *p = gv_malloc_array(n ? n : 1, k * sizeof *p);
    if (!p) return gv_err_nomem("margins");
    gv_component_predict_all(c, d, k, n_threads, p);
    for (size_t i = 0; i < n; i++) {
        size_t y = (size_t)d->labels[i];
        double other = -INFINITY;
        for (size_t j = 0; j < k; j++)
            if (j != y && p[i * k + j] > other) other = p[i * k + j];
        out[i] = p[i * k + y] - other;
    }
    gv_free(p);
    return GROVE_OK;
}
