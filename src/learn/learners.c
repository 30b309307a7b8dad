/*
 * learners.c -- the tree-shaped learners: the translation of user parameters into a
 * tree-engine configuration, and their fit functions (the registry of every learner is
 * ensemble/registry.c).
 *
 * Pipeline position: learn/.  The tree-shaped learners of this file differ only in their
 * configuration of the one engine (tree.c):
 *   tree   CART (Breiman et al., 1984): binary splits, gini/entropy (classification) or
 *          variance (regression), categorical features split by binary partitions.
 *   id3    Quinlan (1986): information gain (entropy), one child per category of a categorical
 *          feature; numeric features get binary threshold splits (as in C4.5).
 *   stump  a tree of depth one: the best single split.
 */
#include "learner.h"

#include "../core/params.h"
#include "../dist/dist.h"

#include <string.h>

grove_status gv_tree_config_from_params(const char *name, const grove_params *p, int n_classes,
                                        int n_threads, size_t n_features, gv_tree_config *cfg)
{
    int is_id3 = !strcmp(name, "id3");
    int is_stump = !strcmp(name, "stump");
    int classification = n_classes >= 2;
    gv_tree_config_default(cfg, classification ? GV_STATS_CLASS : GV_STATS_REG,
                           classification ? n_classes : 0);

    int64_t crit = gv_param_int(p, GV_P_CRITERION);
    if (classification) {
        if (crit == GV_CRIT_VARIANCE)
            return gv_err(GROVE_ERR_PARAM,
                          "criterion: variance applies to regression; this is a classification "
                          "task (use gini or entropy)");
        if (crit == GV_CRIT_AUTO) crit = is_id3 ? GV_CRIT_ENTROPY : GV_CRIT_GINI;
        if (is_id3 && crit != GV_CRIT_ENTROPY)
            return gv_err(GROVE_ERR_PARAM, "criterion: id3 uses information gain (entropy)");
        cfg->criterion = crit == GV_CRIT_GINI     ? GV_SPLIT_GINI
                         : crit == GV_CRIT_PSEUDO ? GV_SPLIT_PSEUDO
                                                  : GV_SPLIT_ENTROPY;
    } else {
        if (crit == GV_CRIT_GINI || crit == GV_CRIT_ENTROPY || crit == GV_CRIT_PSEUDO)
            return gv_err(GROVE_ERR_PARAM,
                          "criterion: %s applies to classification; this is a regression task "
                          "(use variance)",
                          crit == GV_CRIT_GINI ? "gini" : crit == GV_CRIT_PSEUDO ? "pseudo" : "entropy");
        if (is_id3)
            return gv_err(GROVE_ERR_PARAM,
                          "algo: id3 is a classification algorithm; this is a regression task");
        cfg->criterion = GV_SPLIT_VARIANCE;
    }

    cfg->max_depth = (int)gv_param_int(p, GV_P_MAX_DEPTH);
    if (is_stump) {
        if (gv_param_is_set(p, GV_P_MAX_DEPTH) && cfg->max_depth != 1)
            return gv_err(GROVE_ERR_PARAM, "max_depth: a stump has depth 1, got %d",
                          cfg->max_depth);
        cfg->max_depth = 1;
    }
    cfg->max_leaves = (size_t)gv_param_int(p, GV_P_MAX_LEAVES);
    cfg->best_first = gv_param_int(p, GV_P_GROWTH) == GV_GROWTH_BESTFIRST;
    cfg->min_samples_leaf = (size_t)gv_param_int(p, GV_P_MIN_SAMPLES_LEAF);
    cfg->min_samples_split = (size_t)gv_param_int(p, GV_P_MIN_SAMPLES_SPLIT);
    cfg->min_weight_leaf = gv_param_double(p, GV_P_MIN_WEIGHT_LEAF);
    cfg->min_gain = gv_param_double(p, GV_P_MIN_GAIN);
    int64_t cs = gv_param_int(p, GV_P_CATEGORICAL_SPLIT);
    cfg->multiway_categorical = cs == GV_CATSPLIT_MULTIWAY || (cs == GV_CATSPLIT_AUTO && is_id3);
    size_t mf = gv_param_max_features(p, n_features);
    cfg->max_features = mf >= n_features ? 0 : mf;
    cfg->n_threads = n_threads > 0 ? n_threads : 1;
    cfg->dist = gv_dist_active();
    return GROVE_OK;
}

/* The weights of a tree: a copy of w[0..n) rounded to the common grid of dist.h (gv_dist_grid
 * over all ranks' n), so that the histograms and node totals built from them are exact sums,
 * the same in any order and for any split of the rows over ranks -- in one process too, so
 * that one process and every rank count grow the same trees (collective when cfg->dist).
 * *own = NULL (use w as it is) without weights. */
static grove_status dist_weights(const double *w, size_t n, double **own)
{
    *own = NULL;
    if (!w) return GROVE_OK;
    double *c = gv_malloc_array(n ? n : 1, sizeof *c);
    grove_status st = gv_dist_agree(c ? GROVE_OK : gv_err_nomem("the weights"));
    if (st != GROVE_OK) {
        gv_free(c);
        return st;
    }
    memcpy(c, w, n * sizeof *c);
    gv_dist_snap(c, n, gv_dist_grid(c, n, 1), 1);
    *own = c;
    return GROVE_OK;
}

/* The tree that minimizes AdaBoost.M2's pseudo-loss (split.c, GV_SPLIT_PSEUDO): every row r of
 * the view becomes K copies in a repeated bin matrix, copy y of class slot y_r (A) with r's
 * weight when y = y_r, else of slot K + y (B_y) with r's weight times q(r, y); a class-count
 * histogram over the copies holds A_y and B_y per bin.  Costs K times the rows of a gini
 * tree.  (boost.c gives the leaves their 0/1 plausibilities [A_y > B_y].) */
static grove_status fit_pseudo(gv_tree_config *cfg, const gv_fit_input *in, gv_rng *rng,
                               gv_tree **out)
{
    const size_t N = in->binned->n_rows, K = (size_t)in->n_classes;
    const size_t nv = in->rows ? in->n_rows : N;
    gv_binned *X = NULL;
    grove_status st = gv_binned_repeat(in->binned, K, &X);
    if (st != GROVE_OK) return st;
    size_t *rows = gv_malloc_array(nv, K * sizeof *rows);
    double *w = gv_malloc_array(N, K * sizeof *w), *y = gv_malloc_array(N, K * sizeof *y);
    if (!rows || !w || !y) {
        st = gv_err_nomem("the pseudo-loss statistics");
        goto done;
    }
    for (size_t r = 0; r < N; r++) {
        size_t yr = (size_t)in->y[r];
        double wr = in->weight ? in->weight[r] : 1.0;
        for (size_t c = 0; c < K; c++) {
            y[r * K + c] = (double)(c == yr ? c : K + c);
            w[r * K + c] = c == yr ? wr : wr * in->mislabel[r * K + c];
        }
    }
    gv_dist_snap(w, N * K, gv_dist_grid(w, N * K, 1), 1); /* exact sums (dist_weights) */
    for (size_t p = 0; p < nv; p++) {
        size_t r = in->rows ? in->rows[p] : p;
        for (size_t c = 0; c < K; c++) rows[p * K + c] = r * K + c;
    }
    cfg->n_classes = (int)(2 * K);
    gv_tree_input ti = {.X = X, .rows = rows, .n_rows = nv * K, .weight = w, .y = y};
    gv_tree *t = NULL;
    st = gv_tree_fit(cfg, &ti, rng, &t);
    if (st != GROVE_OK) goto done;
    /* node values: the class distribution of the true-class slots, A_y / sum A (a tree's values
     * are class probabilities; M2 keeps the leaves' plausibilities [A_y > B_y] beside them) */
    for (size_t k = 0; k < t->n_nodes; k++) {
        const double *v = t->values + k * 2 * K;
        double *h = t->values + k * K, A = 0; /* k * K <= k * 2K: reads stay ahead of writes */
        for (size_t c = 0; c < K; c++) A += v[c];
        for (size_t c = 0; c < K; c++) h[c] = A > 0 ? v[c] / A : 1.0 / (double)K;
    }
    t->n_outputs = (int)K;
    *out = t;
done:
    gv_binned_free(X);
    gv_free(rows);
    gv_free(w);
    gv_free(y);
    return st;
}

static grove_status fit_tree_named(const char *name, const gv_fit_input *in, gv_rng *rng,
                                   gv_component *out)
{
    gv_tree_config cfg;
    grove_status st = gv_tree_config_from_params(name, in->params, in->n_classes, in->n_threads,
                                                 in->binned->n_features, &cfg);
    if (st != GROVE_OK) return st;
    /* AdaBoost.M2 passes its mislabel distribution: the pseudo-loss is then the default */
    if (in->mislabel && in->n_classes >= 2 && !gv_param_is_set(in->params, GV_P_CRITERION) &&
        strcmp(name, "id3") != 0)
        cfg.criterion = GV_SPLIT_PSEUDO;
    if (cfg.criterion == GV_SPLIT_PSEUDO && !in->mislabel)
        return gv_err(GROVE_ERR_PARAM, "criterion: pseudo is AdaBoost.M2's pseudo-loss; it "
                      "applies to the tree members of adaboost.m2 only (use gini or entropy)");
    gv_tree *t = NULL;
    if (cfg.criterion == GV_SPLIT_PSEUDO) {
        st = fit_pseudo(&cfg, in, rng, &t);
    } else {
        double *w = NULL;
        st = dist_weights(in->weight, in->binned->n_rows, &w);
        if (st != GROVE_OK) return st;
        gv_tree_input ti = {
            .X = in->binned,
            .rows = in->rows,
            .n_rows = in->n_rows,
            .weight = w ? w : in->weight,
            .y = in->y,
            /* every row's leaf, reported when the tree grows on all rows (gv_fit_cells) */
            .leaf_of_row = in->cells && !in->rows ? in->cells->cell : NULL,
            .row_bins = in->row_bins,
            .y_checked = in->labels_checked && !in->rows,
            .w_checked = in->weights_checked,
        };
        st = gv_tree_fit(&cfg, &ti, rng, &t);
        gv_free(w);
        if (st == GROVE_OK && ti.leaf_of_row) {
            in->cells->impl = t;
            in->cells->n_cells = t->n_nodes;
        }
    }
    if (st != GROVE_OK) return st;
    out->vt = &gv_tree_component;
    out->impl = t;
    return GROVE_OK;
}

grove_status gv_fit_tree(const gv_fit_input *in, gv_rng *rng, gv_component *out)
{
    return fit_tree_named("tree", in, rng, out);
}

grove_status gv_fit_id3(const gv_fit_input *in, gv_rng *rng, gv_component *out)
{
    return fit_tree_named("id3", in, rng, out);
}

grove_status gv_fit_stump(const gv_fit_input *in, gv_rng *rng, gv_component *out)
{
    return fit_tree_named("stump", in, rng, out);
}
