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

/* One level of gv_component_walk: `it` describes c (its parent's fields filled in). */
static int walk(const gv_walk_item *it, gv_walk_fn fn, void *ctx)
{
    const gv_component *c = it->c;
    int r = fn(ctx, it);
    if (r) return r;
    gv_walk_item m = {.parent = c, .group = -1, .weight = NAN, .depth = it->depth + 1,
                      .schema = it->schema};
    gv_boost_view bv;
    gv_bagging_view bg;
    gv_gbdt_view gb;
    gv_majority3_view mj;
    gv_confidence_view cf;
    gv_voting_view vo;
    gv_stacking_view sv;
    const gv_component *members = NULL;
    size_t n = 0;
    const double *weights = NULL;
    if (gv_gbdt_view_of(c, &gb)) {
        for (size_t k = 0; k < gb.n_rounds * gb.n_groups && !r; k++) {
            m.c = NULL;
            m.tree = gb.trees[k];
            m.member = k;
            m.round = k / gb.n_groups;
            m.group = (int)(k % gb.n_groups);
            r = fn(ctx, &m);
        }
        return r;
    }
    if (gv_boost_view_of(c, &bv)) {
        members = bv.members;
        n = bv.n_members;
        weights = bv.alpha;
    } else if (gv_bagging_view_of(c, &bg)) {
        members = bg.members;
        n = bg.n_members;
    } else if (gv_majority3_view_of(c, &mj)) {
        members = mj.children;
        n = 3;
    } else if (gv_confidence_view_of(c, &cf)) {
        members = cf.chosen;
        n = 1;
    } else if (gv_voting_view_of(c, &vo)) {
        members = vo.members;
        n = vo.n_members;
        weights = vo.weights;
    } else if (gv_stacking_view_of(c, &sv)) {
        members = sv.members;
        n = sv.n_members;
    }
    for (size_t t = 0; t < n && !r; t++) {
        m.c = &members[t];
        m.tree = members[t].vt == &gv_tree_component ? members[t].impl : NULL;
        m.member = m.round = t;
        m.weight = weights ? weights[t] : NAN;
        r = walk(&m, fn, ctx);
    }
    if (!r && gv_stacking_view_of(c, &sv) && sv.meta) {
        m.c = sv.meta;
        m.tree = sv.meta->vt == &gv_tree_component ? sv.meta->impl : NULL;
        m.member = m.round = sv.n_members;
        m.weight = NAN;
        m.schema = sv.meta_schema;
        r = walk(&m, fn, ctx);
    }
    return r;
}

int gv_component_walk(const gv_component *c, gv_walk_fn fn, void *ctx)
{
    gv_walk_item it = {.c = c, .tree = c->vt == &gv_tree_component ? c->impl : NULL,
                       .group = -1, .weight = NAN};
    return walk(&it, fn, ctx);
}
