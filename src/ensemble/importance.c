/*
 * importance.c -- feature importances of tree models: impurity (mean decrease in impurity),
 * gbdt's gain and cover, and the OOB permutation importances stored by bagging.c
 * (permutation importance on labelled data, of any model: eval/permutation.c).
 *
 * Pipeline position: ensemble/ (reads trees of learn/; each ensemble kind's `importance` slot
 * says which of its trees count and calls the formulas here; the public entry point
 * grove_model_importance is in api/importance.c).
 *   impurity      for every tree, I_t(f) = sum over the nodes splitting on f of the node's gain
 *                 (its weighted impurity decrease, W I(P) - sum_c W_c I(c), as the engine
 *                 stores it), normalized to sum 1 per tree; averaged over the trees and
 *                 normalized again (Breiman et al. 1984 sec. 5.3.4; Breiman 2001; this is
 *                 scikit-learn's feature_importances_).  All zeros when no tree splits.
 *   gain, cover   gbdt, as XGBoost's get_score(importance_type="gain" / "cover"): over every
 *                 split on f in every tree, the mean of the split's loss reduction (XGBoost's
 *                 loss_chg, 2 x the engine's gain) / of the node's hessian sum.  Not normalized;
 *                 0 for a feature no tree splits on.
 * Determinism: the sums run in tree and node order.
 */
#include "ensemble.h"

#include <string.h>

grove_status gv_importance_impurity_trees(const gv_component *trees, size_t n,
                                          size_t n_features, double *out)
{
    for (size_t t = 0; t < n; t++)
        if (trees[t].vt != &gv_tree_component)
            return gv_err(GROVE_ERR_ARG, "impurity importances need tree members; member "
                                         "%zu is a %s", t + 1, trees[t].vt->kind);
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

grove_status gv_importance_gain_cover(const gv_tree *const *trees, size_t n, int cover,
                                      size_t n_features, double *out)
{
    size_t *uses = gv_calloc(n_features ? n_features : 1, sizeof *uses);
    if (!uses) return gv_err_nomem("importances");
    memset(out, 0, n_features * sizeof *out);
    for (size_t t = 0; t < n; t++) {
        const gv_tree *tree = trees[t];
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

grove_status gv_component_importance(const gv_component *c, const char *type,
                                     size_t n_features, double *out)
{
    int impurity = !strcmp(type, "impurity");
    /* a lone tree (learn/, below the ensembles) is the base case of impurity importances */
    if (impurity && c->vt == &gv_tree_component)
        return gv_importance_impurity_trees(c, 1, n_features, out);
    grove_status st = GROVE_OK;
    if (c->vt->importance && c->vt->importance(c->impl, type, n_features, out, &st)) return st;
    if (impurity)
        return gv_err(GROVE_ERR_ARG, "impurity importances exist for tree, bagging (of trees), "
                                     "forest, extra-trees and boosting (of trees) models; this "
                                     "model is a %s",
                      c->vt->kind);
    if (!strcmp(type, "gain") || !strcmp(type, "cover"))
        return gv_err(GROVE_ERR_ARG, "%s importances exist for gbdt models; this model is a %s",
                      type, c->vt->kind);
    return gv_err(GROVE_ERR_ARG, "the model holds no OOB permutation importances (train "
                                 "bagging of trees, forest or extra-trees with "
                                 "oob_importance=true and bootstrap replicates)");
}
