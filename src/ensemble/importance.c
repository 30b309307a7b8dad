/*
 * importance.c -- feature importances of tree models: impurity (mean decrease in impurity),
 * the OOB permutation importances stored by bagging.c, and permutation importance on
 * labelled data.
 *
 * Pipeline position: ensemble/ (reads trees of learn/ and bagging components; the public entry
 * point grove_model_importance is in api/importance.c).
 *   impurity      for every tree, I_t(f) = sum over the nodes splitting on f of the node's gain
 *                 (its weighted impurity decrease, W I(P) - sum_c W_c I(c), as the engine
 *                 stores it), normalized to sum 1 per tree; averaged over the trees and
 *                 normalized again (Breiman et al. 1984 sec. 5.3.4; Breiman 2001; this is
 *                 scikit-learn's feature_importances_).  All zeros when no tree splits.
 *   gain, cover   gbdt, as XGBoost's get_score(importance_type="gain" / "cover"): over every
 *                 split on f in every tree, the mean of the split's loss reduction (XGBoost's
 *                 loss_chg, 2 x the engine's gain) / of the node's hessian sum.  Not normalized;
 *                 0 for a feature no tree splits on.
 *   permutation   on labelled data D: with e = the model's error on D (classification: the
 *                 error rate of the predicted labels; regression: the mean squared error), and
 *                 e(f) = the same after permuting column f of D (stream (seed,
 *                 GV_STREAM_PERMUTE, f)), importance(f) = e(f) - e (Breiman 2001 sec. 10;
 *                 Fisher, Rudin & Dominici 2019).  Unweighted, not normalized; may be < 0.
 * Determinism: predictions are row-parallel with each row owned by one thread; the error sums
 * run in row order.
 */
#include "ensemble.h"

#include "../model/model.h"

#include <math.h>
#include <string.h>

/* The trees of c: a tree, or a bagging component whose members are all trees. */
static grove_status collect_trees(const gv_component *c, const gv_component **trees, size_t *n)
{
    if (c->vt == &gv_tree_component) {
        *trees = c;
        *n = 1;
        return GROVE_OK;
    }
    if (c->vt == &gv_bagging_component) {
        *n = gv_bagging_members(c, trees);
        for (size_t t = 0; t < *n; t++)
            if ((*trees)[t].vt != &gv_tree_component)
                return gv_err(GROVE_ERR_ARG, "impurity importances need tree members; member "
                                             "%zu is a %s", t + 1, (*trees)[t].vt->kind);
        return GROVE_OK;
    }
    return gv_err(GROVE_ERR_ARG, "impurity importances exist for tree, bagging (of trees), "
                                 "forest and extra-trees models; this model is a %s",
                  c->vt->kind);
}

grove_status gv_importance_impurity(const gv_component *c, size_t n_features, double *out)
{
    const gv_component *trees = NULL;
    size_t n = 0;
    grove_status st = collect_trees(c, &trees, &n);
    if (st != GROVE_OK) return st;
    double *per = gv_calloc(n_features ? n_features : 1, sizeof *per);
    if (!per) return gv_err_nomem("importances");
    memset(out, 0, n_features * sizeof *out);
    for (size_t t = 0; t < n; t++) {
        const gv_tree *tree = trees[t].impl;
        memset(per, 0, n_features * sizeof *per);
        double total = 0;
        for (size_t k = 0; k < tree->n_nodes; k++) {
            const gv_tree_node *nd = &tree->nodes[k];
            if (nd->type == GV_NODE_LEAF || (size_t)nd->feature >= n_features) continue;
            per[nd->feature] += nd->gain;
            total += nd->gain;
        }
        if (total > 0)
            for (size_t f = 0; f < n_features; f++) out[f] += per[f] / total;
    }
    double sum = 0;
    for (size_t f = 0; f < n_features; f++) sum += out[f];
    if (sum > 0)
        for (size_t f = 0; f < n_features; f++) out[f] /= sum;
    gv_free(per);
    return GROVE_OK;
}

grove_status gv_importance_gbdt(const gv_component *c, size_t n_features, int cover,
                                double *out)
{
    gv_gbdt_view v;
    if (!gv_gbdt_view_of(c, &v))
        return gv_err(GROVE_ERR_ARG, "%s importances exist for gbdt models; this model is a %s",
                      cover ? "cover" : "gain", c->vt->kind);
    size_t *uses = gv_calloc(n_features ? n_features : 1, sizeof *uses);
    if (!uses) return gv_err_nomem("importances");
    memset(out, 0, n_features * sizeof *out);
    for (size_t t = 0; t < v.n_rounds * v.n_groups; t++) {
        const gv_tree *tree = v.trees[t];
        for (size_t k = 0; k < tree->n_nodes; k++) {
            const gv_tree_node *nd = &tree->nodes[k];
            if (nd->type == GV_NODE_LEAF || (size_t)nd->feature >= n_features) continue;
            /* XGBoost's units: loss_chg = 2 x the engine's Newton gain; cover = sum of h */
            out[nd->feature] += cover ? nd->weight : 2 * nd->gain;
            uses[nd->feature]++;
        }
    }
    for (size_t f = 0; f < n_features; f++)
        if (uses[f]) out[f] /= (double)uses[f];
    gv_free(uses);
    return GROVE_OK;
}

grove_status gv_importance_oob(const gv_component *c, size_t n_features, double *out)
{
    size_t nf = 0;
    const double *v = c->vt == &gv_bagging_component ? gv_bagging_oob_importance(c, &nf) : NULL;
    if (!v)
        return gv_err(GROVE_ERR_ARG, "the model holds no OOB permutation importances (train "
                                     "bagging of trees, forest or extra-trees with "
                                     "oob_importance=true and bootstrap replicates)");
    if (nf != n_features)
        return gv_err(GROVE_ERR_INTERNAL, "OOB importances: %zu values for %zu features", nf,
                      n_features);
    memcpy(out, v, n_features * sizeof *out);
    return GROVE_OK;
}

/* The model's error on the rows of d (predictions p [n * k] computed here). */
static double model_error(const grove_model *m, const grove_dataset *d, int n_threads, double *p)
{
    const size_t k = m->n_outputs;
    gv_component_predict_all(&m->root, d, k, n_threads, p);
    double e = 0;
    for (size_t i = 0; i < d->n_rows; i++) {
        const double *v = p + i * k;
        if (m->schema->task == GROVE_CLASSIFICATION) {
            size_t best = 0; /* argmax, ties to the lowest class */
            for (size_t c = 1; c < k; c++)
                if (v[c] > v[best]) best = c;
            e += (double)best != d->labels[i];
        } else {
            double r = v[0] - d->labels[i];
            e += r * r;
        }
    }
    return d->n_rows ? e / (double)d->n_rows : 0;
}

grove_status gv_importance_permutation(const grove_model *m, const grove_dataset *d,
                                       uint64_t seed, int n_threads, double *out)
{
    const size_t n = d->n_rows, F = m->schema->n_features;
    if (!d->labels) return gv_err(GROVE_ERR_DATA, "%s: permutation importance needs labels", d->source);
    size_t nv, np;
    if (gv_mul_size(n, F, &nv) != 0 || gv_mul_size(n, m->n_outputs, &np) != 0)
        return gv_err_nomem("permutation importance");
    float *values = gv_dataset_dense_values(d); /* a sparse dataset is made dense here */
    float *dense = d->values ? NULL : gv_dataset_dense_values(d);
    double *p = gv_malloc_array(np ? np : 1, sizeof *p);
    size_t *perm = gv_malloc_array(n ? n : 1, sizeof *perm);
    if (!values || !p || !perm || (!d->values && !dense)) {
        gv_free(values);
        gv_free(dense);
        gv_free(p);
        gv_free(perm);
        return gv_err_nomem("permutation importance");
    }
    grove_dataset shuffled = *d; /* borrows d's schema and labels; values are ours */
    shuffled.values = values;
    const float *orig_values = d->values ? d->values : dense;
    double e0 = model_error(m, d, n_threads, p);
    for (size_t f = 0; f < F; f++) {
        gv_rng rng;
        gv_rng_seed(&rng, seed, GV_STREAM_PERMUTE, f);
        for (size_t i = 0; i < n; i++) perm[i] = i;
        gv_rng_shuffle(&rng, perm, n);
        float *col = values + f * n;
        const float *orig = orig_values + f * n;
        for (size_t i = 0; i < n; i++) col[i] = orig[perm[i]];
        out[f] = model_error(m, &shuffled, n_threads, p) - e0;
        memcpy(col, orig, n * sizeof *col);
    }
    gv_free(values);
    gv_free(dense);
    gv_free(p);
    gv_free(perm);
    return GROVE_OK;
}
