/*
 * gbdt.c -- gradient-boosted decision trees (algo "gbdt"): training.  The model (component kind
 * "gbdt": prediction, the log, the model file) is gbdt_model.c.
 *
 * Pipeline position: ensemble/.  Second-order boosting (Friedman 2001; Chen & Guestrin, KDD
 * 2016): the model is F(x) = base + sum_t eta f_t(x) (per class for softmax).  Every round, at
 * the current training scores F, each row gets the gradient g_i and hessian h_i of the loss
 * (times its sample weight; computed in double, rounded once to float, as XGBoost's and
 * LightGBM's are: the values every tree path sees), and one tree per output group is grown
 * by the histogram engine
 * with GV_STATS_GRAD / GV_SPLIT_NEWTON:
 *     leaf value   w* = -T_a(G) / (H + lambda),     T_a(G) = sign(G) max(|G| - alpha, 0)
 *     split gain   1/2 [T_a(G_L)^2/(H_L+lambda) + T_a(G_R)^2/(H_R+lambda) - T_a(G)^2/(H+lambda)]
 * with min_child_weight bounding H of each child.  gamma (XGBoost's min_split_loss, in
 * XGBoost's units: twice the engine's gain) prunes bottom-up after growth, as XGBoost's
 * pruner does: a split whose two children are leaves and whose loss reduction is below gamma
 * becomes a leaf, repeatedly.  The leaf values are then multiplied by eta (learning_rate), so a
 * stored tree's values are what it adds to the score.
 *
 * The objective is one entry of loss/'s table (gv_objective, loss.h; the formulas in
 * objective.c): its gradients and hessians, the initial score (base_score through the inverse
 * link, else the link of the weighted label mean, the class log-priors, or a weighted quantile
 * of the labels), the link that turns scores into outputs, and what happens to a tree's leaves
 * after growth -- Newton's values as grown, a refit to a weighted quantile of the leaf's
 * residuals y - F (absolute: the median, LAD TreeBoost, Friedman 2001), or, for the
 * exponential loss, AdaBoost's line search: with h_t(x) = sign(leaf value) in {-1, +1} and
 * eps = the e^{-y+ F}-weighted error of h_t, every leaf gets alpha h_t with
 * alpha = 1/2 ln((1 - eps)/eps) (eps clipped to [1e-10, 1 - 1e-10]).  With stumps, lambda = 0
 * and base_score 0.5 this is discrete AdaBoost (Friedman, Hastie & Tibshirani 2000): the
 * Newton gain G^2/H equals 2 x gini score - W, so the split is AdaBoost's gini stump, and
 * alpha is AdaBoost's.  Softmax grows one tree per class per round.
 *
 * Sampling and determinism: rows per tree (subsample; Bernoulli per row) from the stream
 * (seed, GV_STREAM_GBDT, t * 4096 + 0), features per tree (colsample_bytree) from (..., + 1),
 * and tree g's per-node draws (colsample_bynode) from (..., + 2 + g).  Row loops write one row
 * each (OpenMP static); sums run over fixed blocks of rows added in block order.  So the model
 * is bit-identical for any number of threads.  Every round's g and h are then rounded to a grid
 * common to all rows (dist.h: q the smallest power of two with rows x max|g| < 2^52 q; floats
 * stay floats), so every histogram and node sum is exact in any order: one process and any
 * number of MPI ranks write the same model (docs/distributed.md); the base score, the
 * exponential line search, the quantiles and the training metric are exact sums too.  (Not
 * for quantized_bits and the ranking objectives, one-process paths.)
 *
 * quantized_bits = B > 0 (Shi et al., NeurIPS 2022): before each tree, g and h are rounded
 * stochastically to B-bit integers (gv_tree_session_quantize, learn/tree_session.c) and the
 * engine searches splits on integer histograms of those; the node totals, so the leaf values,
 * are still summed from the exact g and h ("leaf refitting" in the paper).
 *
 * Training scores are updated from each tree's walk over the *binned* training rows (no raw
 * values, no per-row function pointers); validation scores from the raw validation rows.
 * Per round the log keeps the training and validation metric (eval_metric), and for the
 * exponential objective eps_t and alpha_t; early stopping keeps the rounds up to the best
 * validation metric.
 */
#include "gbdt_int.h"
#include "constraints.h"

#include "../core/mathx.h"
#include "../core/params.h"
#include "../core/json.h"
#include "../dist/dist.h"
#include "../loss/loss.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Objectives, metrics and their names: loss/loss.h. */
/* Rows below which row loops stay on the calling thread. */
#define PAR_MIN_ROWS GV_LOSS_PAR_MIN_ROWS

/* ---------------------------------------------------------------------------------------------
 * Training
 * ------------------------------------------------------------------------------------------ */

typedef struct trainer {
    const gv_fit_input *in;
    gv_gbdt *b;
    size_t n, nv, G, F_count;
    int obj, nt;
    const gv_objective *o;   /* obj's table entry (loss.h) */
    gv_loss_params lp;       /* the objectives' parameters */
    double quantile;         /* GV_BASE_QUANTILE, GV_LEAF_QUANTILE: the quantile */
    int dist;                /* a data-parallel run (dist/): rows are this rank's share */
    int exact;               /* the sums exact on dist.h's grids (g and h, base score, line
                                search, quantiles, train metric): every data-parallel run, and
                                one process too but for quantized_bits and the ranking
                                objectives (which are one-process paths), so that one process
                                and any number of ranks write the same model */
    size_t row0, n_total;    /* the global number of local row 0, the rows of all ranks */
    double wq;               /* the sample weights' common grid (dist.h) when exact */
    double eta, gamma;
    const double *y, *w;
    double *F, *Fv;          /* [n * G], [nv * G] scores */
    double *grad, *hess;     /* [G * n] group-major */
    int gh_checked;          /* every grad finite, every hess finite and >= 0 (gv_loss_gradients) */
    int gh_in_ns;            /* this round's (g, h) are in scratch's position buffer
                                (gv_tree_session_gh, gv_tree_input.gh_in_ns), not grad, hess */
    const double *owed;      /* G = 1, no one reading F between rounds: the last tree's values,
                                whose score update F[r] += owed[leaf[r]] the next gradient pass
                                makes (gv_loss_gradients_upd; flush_scores at the end), or NULL */
    size_t *rows;            /* [n] the round's sampled rows */
    size_t n_sampled;
    uint8_t *mask;           /* [F_count] per-tree feature mask */
    size_t *perm;            /* [F_count] */
    uint32_t *leaf;          /* [n] leaf of every training row in the current tree */
    gv_tree_session *engine; /* the tree engine's layouts and scratch (tree.h) */
    double *part;            /* [2 * (max(n, nv) / GV_LOSS_SUM_BLOCK + 1)] */
    gv_wv *tmp;              /* GV_LEAF_QUANTILE: [n] residuals by leaf */
    /* the run's settings (trainer_init) */
    const grove_dataset *valid; /* validation rows or NULL */
    size_t rounds, patience;    /* patience: early_stopping_rounds (0 = off) */
    uint64_t seed;
    double subsample, col_tree;
    gv_tree_config cfg;         /* the trees' configuration (feature mask: mask) */
    int8_t *mono;               /* cfg.monotone (monotone_constraints), or NULL */
    uint64_t *igroups;          /* cfg.igroups (interaction_constraints), or NULL */
    const gv_gbdt *init;        /* continued training: the saved model (borrowed), or NULL */
    size_t t0;                  /* its rounds: the first round this run fits */
    /* early stopping: the best validation value so far and its round */
    size_t best_t;
    double best_valid;
} trainer;

static void trainer_free(trainer *tr)
{
    gv_free(tr->mono);
    gv_free(tr->igroups);
    gv_free(tr->F);
    gv_free(tr->Fv);
    gv_free(tr->grad);
    gv_free(tr->hess);
    gv_free(tr->rows);
    gv_free(tr->mask);
    gv_free(tr->perm);
    gv_free(tr->leaf);
    gv_free(tr->part);
    gv_free(tr->tmp);
    gv_tree_session_close(tr->engine);
}

/* Learning to rank in a data-parallel run (collective): each rank computes the gradients of
 * its own queries, so every query must lie whole on one rank -- the shards cut at query
 * boundaries ({rank} files holding whole queries, or byte ranges that happen to fall between
 * queries).  The ranks exchange their first and last query ids; a query whose id ends one
 * non-empty rank's rows and starts the next one's is cut in two, and every rank then fails
 * with the same message naming it.  A rank with rows but no query ids fails likewise. */
static grove_status rank_shards_check(const grove_dataset *d, const char *objective)
{
    const size_t R = (size_t)gv_dist_size();
    double mine[3] = {(double)d->n_rows, d->n_queries ? d->query_id_first : 0,
                      d->n_queries ? d->query_id_last : 0};
    if (d->n_rows && !d->n_queries) mine[0] = -1; /* rows without query ids */
    double *all = gv_malloc_array(R, sizeof mine);
    grove_status st = gv_dist_agree(all ? GROVE_OK : gv_err_nomem("the ranks' query ids"));
    if (st != GROVE_OK) {
        gv_free(all);
        return st;
    }
    gv_dist_allgather(mine, all, sizeof mine);
    size_t prev = SIZE_MAX; /* the last rank before r with rows */
    for (size_t r = 0; r < R && st == GROVE_OK; r++) {
        const double *a = all + 3 * r;
        if (a[0] < 0)
            st = gv_err(GROVE_ERR_DATA, "%s: objective %s needs query groups (LIBSVM qid:n "
                        "tokens, or a CSV column named by --group COL); rank %zu's rows have none",
                        d->source ? d->source : "the data", objective, r);
        else if (a[0] > 0) {
            if (prev != SIZE_MAX && all[3 * prev + 2] == a[1])
                st = gv_err(GROVE_ERR_DATA, "%s: objective %s over MPI: query %.17g has rows on "
                            "rank %zu and on rank %zu; every query must lie whole on one rank "
                            "(cut the data at query boundaries, e.g. one file per rank with "
                            "{rank} in the path)", d->source ? d->source : "the data",
                            objective, a[1], prev, r);
            prev = r;
        }
    }
    gv_free(all);
    return st;
}

/* Gradients and hessians of every group at the current scores (loss/objective.c). */
static void compute_gradients(trainer *tr)
{
    if (gv_objective_is_ranking(tr->obj)) { /* per query (loss/rank.c) */
        if (tr->owed)
            for (size_t i = 0; i < tr->n; i++) tr->F[i] += tr->owed[tr->leaf[i]];
        tr->owed = NULL;
        tr->gh_in_ns = 0;
        const grove_dataset *d = tr->in->data;
        tr->gh_checked = gv_rank_gradients(tr->obj, tr->y, tr->w, tr->F, tr->n, d->query_ptr,
                                           d->n_queries, &tr->lp, tr->nt, tr->grad, tr->hess);
        if (tr->exact) { /* each rank's own queries; the sums on dist.h's grid, as below */
            gv_dist_snap(tr->grad, tr->n, gv_dist_grid(tr->grad, tr->n, tr->nt), tr->nt);
            gv_dist_snap(tr->hess, tr->n, gv_dist_grid(tr->hess, tr->n, tr->nt), tr->nt);
            tr->gh_checked = 0;
        }
        return;
    }
    /* one group on every row, exact, one process: the pairs straight into the tree's position
     * buffer (what its root would copy them to) */
    float *gh = tr->G == 1 && tr->o->task != GV_FIT_MULTICLASS &&
                         !gv_tree_session_qbits(tr->engine) && !tr->dist && tr->subsample >= 1
                     ? gv_tree_session_gh(tr->engine)
                     : NULL;
    /* with the last tree's score update owed: both in one pass over the rows */
    tr->gh_checked = gv_loss_gradients_upd(tr->obj, tr->y, tr->w, tr->F, tr->n, tr->G,
                                           &tr->lp, tr->nt, tr->grad, tr->hess,
                                           tr->owed ? tr->leaf : NULL, tr->owed, gh);
    tr->owed = NULL;
    tr->gh_in_ns = gh != NULL;
    if (gh && tr->gh_checked && tr->exact) { /* the pairs on the grid, as in the branch below */
        gv_dist_snap_pairs_f32(gh, tr->n, tr->nt);
    }
    if (gh && !tr->gh_checked) { /* a bad pair: grad and hess, for the tree to name its row */
        for (size_t i = 0; i < tr->n; i++) {
            tr->grad[i] = gh[2 * i];
            tr->hess[i] = gh[2 * i + 1];
        }
        tr->gh_in_ns = 0;
    }
    if (tr->exact && !tr->gh_in_ns) {
        /* on the common grid of dist.h: every tree sum is exact, in any order and any split
         * of the rows, so one process (whose tree engine keeps them as floats: they are floats
         * on a grid of floats) and every rank count build the same trees */
        size_t m = tr->n * tr->G;
        gv_dist_snap(tr->grad, m, gv_dist_grid(tr->grad, m, tr->nt), tr->nt);
        gv_dist_snap(tr->hess, m, gv_dist_grid(tr->hess, m, tr->nt), tr->nt);
        tr->gh_checked = 0; /* the snapped values: the tree engine checks them */
    }
}

/* Leaf of every training row (binned walk), into tr->leaf; with only_unset, of the rows whose
 * entry is still UINT32_MAX.  (Walking LANES rows together, as gbdt_predict_block does,
 * measured no faster here: the binned column reads dominate.) */
static void assign_leaves(trainer *tr, const gv_tree *t, int only_unset)
{
    const gv_binned *X = tr->in->binned;
    uint32_t *leaf = tr->leaf;
    const long N = (long)tr->n;
#ifdef _OPENMP
#pragma omp parallel for num_threads(tr->nt) schedule(static) if (N >= PAR_MIN_ROWS && tr->nt > 1)
#endif
    for (long i = 0; i < N; i++)
        if (!only_unset || leaf[i] == UINT32_MAX)
            leaf[i] = (uint32_t)gv_tree_leaf_binned(t, X, (size_t)i);
}

/* The weighted q-quantiles when exact (tr->exact), over the ranks (gv_dist_quantile_exact):
 * a[0..) sorted by group, then by value within each group, group k being a[off[k] ..
 * off[k + 1]); med[k] becomes the lower weighted q-quantile of the group's values over every
 * rank, or stays when the group is empty everywhere.  The weights are integers: 1 a row
 * without sample weights, else rint(w / wq), the sample weights on their common grid
 * (dist.h), in one process as over the ranks. */
static grove_status quantiles_dist(const trainer *tr, const gv_wv *a, const size_t *off, size_t K,
                                   double q, double *med)
{
    const size_t m = off[K];
    double *v = gv_malloc_array(m ? m : 1, sizeof *v);
    int64_t *cw = gv_malloc_array(m ? m : 1, sizeof *cw);
    grove_status st = gv_dist_agree(v && cw ? GROVE_OK : gv_err_nomem("gbdt quantiles"));
    if (st == GROVE_OK) {
        for (size_t k = 0; k < K; k++) {
            int64_t acc = 0;
            for (size_t j = off[k]; j < off[k + 1]; j++) {
                v[j] = a[j].v;
                acc += tr->w ? (int64_t)rint(a[j].w / tr->wq) : 1;
                cw[j] = acc;
            }
        }
        gv_dist_quantile_exact(v, cw, off, K, q, med);
    }
    gv_free(v);
    gv_free(cw);
    return st;
}

static int cmp_wv_value(const void *a, const void *b)
{
    double x = ((const gv_wv *)a)->v, z = ((const gv_wv *)b)->v;
    return (x > z) - (x < z);
}

/* GV_LEAF_QUANTILE (absolute: the median): every leaf's value becomes the weighted
 * tr->quantile-quantile of the residuals y - F over its sampled rows (gv_weighted_quantile;
 * over the sampled rows of every rank in a data-parallel run: quantiles_dist).  A leaf without
 * rows keeps its value.  The rows are grouped by leaf by a counting pass, in row order. */
static grove_status refit_quantile(trainer *tr, gv_tree *t)
{
    const size_t K = t->n_nodes, ns = tr->n_sampled;
    size_t *off = gv_calloc(2 * K + 1, sizeof *off);
    grove_status st = off ? GROVE_OK : gv_err_nomem("gbdt leaf refits");
    if (tr->dist) st = gv_dist_agree(st);
    if (st != GROVE_OK) {
        gv_free(off);
        return st;
    }
    size_t *cur = off + K + 1;
    for (size_t j = 0; j < ns; j++) off[tr->leaf[tr->rows ? tr->rows[j] : j] + 1]++;
    for (size_t k = 0; k < K; k++) {
        off[k + 1] += off[k];
        cur[k] = off[k];
    }
    for (size_t j = 0; j < ns; j++) {
        const size_t i = tr->rows ? tr->rows[j] : j;
        gv_wv *e = &tr->tmp[cur[tr->leaf[i]]++];
        e->v = tr->y[i] - tr->F[i];
        e->w = tr->w ? tr->w[i] : 1.0;
    }
    for (size_t k = 0; k < K; k++) {
        if (off[k] == off[k + 1]) continue;
        if (tr->exact)
            qsort(tr->tmp + off[k], off[k + 1] - off[k], sizeof *tr->tmp, cmp_wv_value);
        else
            t->values[k] = gv_weighted_quantile(tr->tmp + off[k], off[k + 1] - off[k], tr->quantile);
    }
    /* every leaf with rows on some rank gets its quantile; the others keep their value */
    if (tr->exact) st = quantiles_dist(tr, tr->tmp, off, K, tr->quantile, t->values);
    gv_free(off);
    return st;
}

/* exponential: the AdaBoost line search (see the file comment): *eps and *alpha.  In a
 * data-parallel run the two weight sums are exact over the ranks (gv_dist_sum_exact). */
static grove_status line_search_exp(trainer *tr, gv_tree *t, double *eps_out, double *alpha)
{
    double wrong = 0, tot = 0;
    const size_t ns = tr->n_sampled;
    double *term = NULL;
    if (tr->exact) {
        term = gv_malloc_array(ns ? ns : 1, 2 * sizeof *term);
        grove_status st = gv_dist_agree(term ? GROVE_OK : gv_err_nomem("gbdt line search"));
        if (st != GROVE_OK) return st;
    }
    for (size_t j = 0; j < ns; j++) {
        size_t i = tr->rows ? tr->rows[j] : j;
        double v = t->values[tr->leaf[i]];
        if (term) term[j] = term[ns + j] = 0;
        if (v == 0) continue;
        double ys = 2 * tr->y[i] - 1;
        double wi = (tr->w ? tr->w[i] : 1.0) * exp(-ys * tr->F[i]);
        tot += wi;
        if ((v > 0) != (ys > 0)) wrong += wi;
        if (term) {
            term[j] = wi;
            if ((v > 0) != (ys > 0)) term[ns + j] = wi;
        }
    }
    if (term) {
        int64_t bad = !isfinite(tot); /* an overflowed weight: one process's inf, on every rank */
        gv_dist_max_i64(&bad, 1);
        if (bad) {
            tot = INFINITY;
            wrong = NAN;
        } else {
            tot = gv_dist_sum_exact(term, ns);
            wrong = gv_dist_sum_exact(term + ns, ns);
        }
        gv_free(term);
    }
    double eps = tot > 0 ? wrong / tot : 0.5;
    double ec = fmin(fmax(eps, 1e-10), 1 - 1e-10);
    double a = 0.5 * log((1 - ec) / ec);
    for (size_t k = 0; k < t->n_nodes; k++) {
        double v = t->values[k];
        t->values[k] = v > 0 ? a : (v < 0 ? -a : 0.0);
    }
    *alpha = a;
    *eps_out = eps;
    return GROVE_OK;
}

/* GV_BASE_QUANTILE: the weighted q-quantile of y over all rows (gv_weighted_quantile); over
 * all ranks' rows in a data-parallel run (quantiles_dist). */
static grove_status label_quantile(const trainer *tr, double q, double *out)
{
    gv_wv *a = gv_malloc_array(tr->n ? tr->n : 1, sizeof *a);
    grove_status st = a ? GROVE_OK : gv_err_nomem("the label quantile");
    if (tr->dist) st = gv_dist_agree(st);
    if (st != GROVE_OK) {
        gv_free(a);
        return st;
    }
    for (size_t i = 0; i < tr->n; i++) {
        a[i].v = tr->y[i];
        a[i].w = tr->w ? tr->w[i] : 1.0;
    }
    if (tr->exact) {
        qsort(a, tr->n, sizeof *a, cmp_wv_value);
        size_t off[2] = {0, tr->n};
        *out = 0;
        st = quantiles_dist(tr, a, off, 1, q, out);
    } else if (tr->n) {
        *out = gv_weighted_quantile(a, tr->n, q);
    }
    gv_free(a);
    return st;
}

/* The weighted means when exact (tr->exact): the sums over all ranks made exact (dist.h), so
 * they do not depend on the split of the rows; t is scratch of n doubles. */
static grove_status initial_scores_dist(const trainer *tr, double *base)
{
    const gv_objective *o = tr->o;
    const size_t n = tr->n;
    double *t = gv_malloc_array(n ? n : 1, sizeof *t);
    if (!t) return gv_err_nomem("gbdt initial scores");
    for (size_t i = 0; i < n; i++) t[i] = tr->w ? tr->w[i] : 1.0;
    double sw = gv_dist_sum_exact(t, n);
    if (o->base == GV_BASE_LOG_PRIORS) {
        for (size_t g = 0; g < tr->G; g++) {
            for (size_t i = 0; i < n; i++) t[i] = (size_t)tr->y[i] == g ? (tr->w ? tr->w[i] : 1.0) : 0;
            base[g] = gv_dist_sum_exact(t, n);
        }
    } else {
        for (size_t i = 0; i < n; i++) t[i] = (tr->w ? tr->w[i] : 1.0) * tr->y[i];
        base[0] = gv_dist_sum_exact(t, n);
    }
    gv_free(t);
    if (!(sw > 0)) return gv_err(GROVE_ERR_DATA, "gbdt: the sample weights sum to zero");
    if (o->base == GV_BASE_LOG_PRIORS) {
        for (size_t g = 0; g < tr->G; g++) base[g] = log(fmax(base[g] / sw, 1e-15));
    } else {
        base[0] = gv_objective_score_of_mean(o, base[0] / sw);
    }
    return GROVE_OK;
}

/* The initial scores base[G] (see the file comment): base_score through the inverse link,
 * or the objective's GV_BASE_* of the labels. */
static grove_status initial_scores(const trainer *tr, const grove_params *p, double *base)
{
    const gv_objective *o = tr->o;
    if (gv_param_is_set(p, GV_P_BASE_SCORE)) {
        double bs = gv_param_double(p, GV_P_BASE_SCORE);
        grove_status st = gv_objective_check_base(o, bs);
        if (st != GROVE_OK) return st;
        for (size_t g = 0; g < tr->G; g++) base[g] = gv_objective_score_of(o, bs);
        return GROVE_OK;
    }
    if (o->base == GV_BASE_QUANTILE) return label_quantile(tr, tr->quantile, base);
    if (tr->exact) return initial_scores_dist(tr, base);
    double sw = 0;
    for (size_t i = 0; i < tr->n; i++) sw += tr->w ? tr->w[i] : 1.0;
    if (!(sw > 0)) return gv_err(GROVE_ERR_DATA, "gbdt: the sample weights sum to zero");
    if (o->base == GV_BASE_LOG_PRIORS) {
        for (size_t g = 0; g < tr->G; g++) base[g] = 0;
        for (size_t i = 0; i < tr->n; i++) base[(size_t)tr->y[i]] += tr->w ? tr->w[i] : 1.0;
        for (size_t g = 0; g < tr->G; g++) base[g] = log(fmax(base[g] / sw, 1e-15));
        return GROVE_OK;
    }
    double swy = 0;
    for (size_t i = 0; i < tr->n; i++) swy += (tr->w ? tr->w[i] : 1.0) * tr->y[i];
    base[0] = gv_objective_score_of_mean(o, swy / sw);
    return GROVE_OK;
}

/* Draws the round's rows (subsample < 1: each row independently with that probability).  Row i
 * of the training data (its global number: tr->row0 + the local one in a data-parallel run)
 * takes the (i mod 4096)-th uniform of stream GV_STREAM_GBDT_ROWS, index t << 32 | (i / 4096),
 * so a row's draw depends only on the seed, the round and the row, never on how the rows are
 * split over ranks or threads.  When no row at all is drawn, the one row gv_rng_below(total) of
 * stream GV_STREAM_GBDT index t * 4096 is taken. */
static void draw_rows(trainer *tr, double subsample, uint64_t seed, size_t t)
{
    if (!(subsample < 1)) {
        tr->n_sampled = tr->n;
        return;
    }
    const size_t n = tr->n, first = tr->row0;
    size_t m = 0;
    for (size_t i = 0; i < n;) {
        size_t gi = first + i, b = gi / 4096, skip = gi % 4096;
        size_t len = 4096 - skip < n - i ? 4096 - skip : n - i;
        gv_rng rng;
        gv_rng_seed(&rng, seed, GV_STREAM_GBDT_ROWS, (uint64_t)t << 32 | (uint64_t)b);
        for (size_t k = 0; k < skip; k++) (void)gv_rng_next(&rng);
        for (size_t k = 0; k < len; k++, i++)
            if (gv_rng_uniform(&rng) < subsample) tr->rows[m++] = i;
    }
    int64_t any = (int64_t)m;
    if (tr->dist) gv_dist_sum_i64(&any, 1);
    if (any == 0) {
        gv_rng rng;
        gv_rng_seed(&rng, seed, GV_STREAM_GBDT, (uint64_t)t * 4096);
        size_t r = (size_t)gv_rng_below(&rng, tr->n_total);
        if (r >= first && r - first < n) tr->rows[m++] = r - first;
    }
    tr->n_sampled = m;
}

/* Draws the tree's features (colsample_bytree < 1): max(1, floor(c F)) of them. */
static void draw_features(trainer *tr, double c, uint64_t seed, size_t t)
{
    const size_t F = tr->F_count;
    size_t k = (size_t)(c * (double)F);
    if (k < 1) k = 1;
    gv_rng rng;
    gv_rng_seed(&rng, seed, GV_STREAM_GBDT, (uint64_t)t * 4096 + 1);
    for (size_t f = 0; f < F; f++) {
        tr->perm[f] = f;
        tr->mask[f] = 0;
    }
    for (size_t j = 0; j < k; j++) {
        size_t r = j + (size_t)gv_rng_below(&rng, F - j);
        size_t x = tr->perm[j];
        tr->perm[j] = tr->perm[r];
        tr->perm[r] = x;
        tr->mask[tr->perm[j]] = 1;
    }
}

/* The tree configuration of gbdt from the parameters (XGBoost's defaults: depth 6). */
static void tree_config(const grove_params *p, int n_threads, gv_tree_config *cfg)
{
    gv_tree_config_default(cfg, GV_STATS_GRAD, 0);
    cfg->lambda = gv_param_double(p, GV_P_LAMBDA);
    cfg->alpha = gv_param_double(p, GV_P_ALPHA);
    cfg->min_weight_leaf = gv_param_double(p, GV_P_MIN_CHILD_WEIGHT);
    cfg->min_gain = 0; /* gamma prunes after growth, as in XGBoost */
    cfg->max_leaves = (size_t)gv_param_int(p, GV_P_MAX_LEAVES);
    int leafwise = cfg->max_leaves > 0;
    if (gv_param_is_set(p, GV_P_GROWTH))
        leafwise = gv_param_int(p, GV_P_GROWTH) == GV_GROWTH_BESTFIRST;
    cfg->best_first = leafwise;
    if (gv_param_is_set(p, GV_P_MAX_DEPTH))
        cfg->max_depth = (int)gv_param_int(p, GV_P_MAX_DEPTH);
    else
        cfg->max_depth = cfg->max_leaves > 0 ? 0 : 6;
    cfg->min_samples_leaf = (size_t)gv_param_int(p, GV_P_MIN_SAMPLES_LEAF);
    cfg->multiway_categorical = 0;
    cfg->cat_smooth = gv_param_double(p, GV_P_CAT_SMOOTH);
    cfg->cat_l2 = gv_param_double(p, GV_P_CAT_L2);
    cfg->max_cat_threshold = (size_t)gv_param_int(p, GV_P_MAX_CAT_THRESHOLD);
    cfg->min_data_per_group = (size_t)gv_param_int(p, GV_P_MIN_DATA_PER_GROUP);
    cfg->n_threads = n_threads > 0 ? n_threads : 1;
}

/* A deep copy of tree t into *out (continued training). */
static grove_status tree_copy(const gv_tree *t, gv_tree **out)
{
    gv_tree *c = gv_calloc(1, sizeof *c);
    if (!c) return gv_err_nomem("a tree copy");
    *c = *t;
    c->nodes = gv_malloc_array(t->n_nodes ? t->n_nodes : 1, sizeof *c->nodes);
    c->values = gv_malloc_array(t->n_nodes ? t->n_nodes : 1, (size_t)t->n_outputs * sizeof *c->values);
    c->cat_data = gv_malloc_array(t->n_cat_data ? t->n_cat_data : 1, sizeof *c->cat_data);
    if (!c->nodes || !c->values || !c->cat_data) {
        gv_free(c->nodes);
        gv_free(c->values);
        gv_free(c->cat_data);
        gv_free(c);
        return gv_err_nomem("a tree copy");
    }
    memcpy(c->nodes, t->nodes, t->n_nodes * sizeof *c->nodes);
    memcpy(c->values, t->values, t->n_nodes * (size_t)t->n_outputs * sizeof *c->values);
    if (t->n_cat_data) memcpy(c->cat_data, t->cat_data, t->n_cat_data * sizeof *c->cat_data);
    *out = c;
    return GROVE_OK;
}

/* Continued training: a copied tree's numeric splits renumbered to the run's bins (the bin
 * whose upper cut is the split's threshold).  A threshold that is not a cut of the run's bins
 * (the saved model was trained on other data) is an error naming it: the model could not say
 * which bins its splits separate. */
static grove_status rebin_tree(gv_tree *t, const gv_binned *X, size_t k)
{
    for (size_t j = 0; j < t->n_nodes; j++) {
        gv_tree_node *nd = &t->nodes[j];
        if (nd->type != GV_NODE_NUM) continue;
        const gv_bin_mapper *m = &X->mappers[nd->feature];
        size_t lo = 0, hi = m->is_categorical ? 0 : m->n_cuts; /* the first cut >= threshold */
        while (lo < hi) {
            const size_t mid = lo + (hi - lo) / 2;
            if (m->cuts[mid] < nd->threshold) lo = mid + 1;
            else hi = mid;
        }
        if (m->is_categorical || lo == m->n_cuts || m->cuts[lo] != nd->threshold)
            return gv_err(GROVE_ERR_DATA,
                          "init model: trees[%zu]: node %zu splits feature %d at %.9g, which is "
                          "not a cut point of this data's bins (continued training needs the "
                          "bins of the data the model was trained on)",
                          k, j, (int)nd->feature, (double)nd->threshold);
        nd->bin_split = (uint32_t)lo + 1;
    }
    return GROVE_OK;
}

/* Continued training: the new model starts as the saved one -- its initial scores, its t0
 * rounds of trees (copies, their splits on the run's bins) and their log entries (NaN where
 * the saved model logged nothing the new one logs). */
static grove_status init_rounds(trainer *tr)
{
    const gv_gbdt *ob = tr->init;
    gv_gbdt *b = tr->b;
    const size_t G = tr->G, t0 = tr->t0;
    memcpy(b->base, ob->base, G * sizeof *b->base);
    for (size_t k = 0; k < t0 * G; k++) {
        grove_status st = tree_copy(ob->trees[k], &b->trees[k]);
        b->n_rounds = (k + G) / G; /* (what is owned, for the failure path) */
        if (st == GROVE_OK) st = rebin_tree(b->trees[k], tr->in->binned, k);
        if (st != GROVE_OK) return st;
    }
    for (size_t t = 0; t < t0; t++) {
        if (b->log_train) b->log_train[t] = ob->log_train ? ob->log_train[t] : NAN;
        if (b->log_valid) b->log_valid[t] = ob->log_valid ? ob->log_valid[t] : NAN;
        if (b->log_eps) b->log_eps[t] = ob->log_eps ? ob->log_eps[t] : NAN;
        if (b->log_alpha) b->log_alpha[t] = ob->log_alpha ? ob->log_alpha[t] : NAN;
    }
    b->n_rounds = t0;
    b->n_log = t0;
    return GROVE_OK;
}

/* Continued training: F (and Fv) from base to the saved model's scores, its trees added in
 * round order -- the very sums a run that fitted those rounds itself has made (training rows
 * by the binned walk, the leaves the grower assigns; validation rows by the raw walk), so
 * training on continues as that run would. */
static void init_scores(trainer *tr)
{
    const gv_gbdt *b = tr->b;
    const gv_binned *X = tr->in->binned;
    const size_t G = tr->G;
    const long N = (long)tr->n, NV = (long)tr->nv;
    for (size_t t = 0; t < tr->t0; t++)
        for (size_t g = 0; g < G; g++) {
            const gv_tree *tree = b->trees[t * G + g];
#ifdef _OPENMP
#pragma omp parallel for num_threads(tr->nt) schedule(static) if (N >= PAR_MIN_ROWS && tr->nt > 1)
#endif
            for (long i = 0; i < N; i++)
                tr->F[(size_t)i * G + g] += tree->values[gv_tree_leaf_binned(tree, X, (size_t)i)];
            for (long i = 0; i < NV; i++)
                tr->Fv[(size_t)i * G + g] += tree->values[gv_tree_leaf(tree, tr->valid, (size_t)i)];
        }
}

/* Init: the run's settings, the training state and the initial scores F = Fv = base.  On
 * failure tr holds what was allocated (trainer_free, and gv_gbdt_free(tr->b)). */
static grove_status trainer_init(trainer *tr, const gv_fit_input *in)
{
    const grove_params *p = in->params;
    const int K = in->n_classes;
    const grove_dataset *valid = in->valid;
    memset(tr, 0, sizeof *tr);
    tr->in = in;
    tr->valid = valid;
    tr->patience = (size_t)gv_param_int(p, GV_P_EARLY_STOPPING_ROUNDS);
    if (tr->patience > 0 && !valid)
        return gv_err(GROVE_ERR_PARAM, "early_stopping_rounds: needs validation data (--valid FILE)");
    if (valid && !valid->labels)
        return gv_err(GROVE_ERR_DATA, "%s: the validation data has no labels", valid->source);
    grove_status st = gv_objective_resolve(p, K, &tr->obj, &tr->lp);
    if (st != GROVE_OK) return st;
    if (in->init) { /* continued training: the saved model's objective (and its parameters) */
        if (in->init->vt != &gv_gbdt_component)
            return gv_err(GROVE_ERR_PARAM, "init model: a gbdt model is needed, this one is a %s",
                          in->init->vt->kind);
        const gv_gbdt *ob = tr->init = in->init->impl;
        if (ob->n_classes != K)
            return gv_err(GROVE_ERR_DATA, "init model: it has %d classes, the data %d",
                          ob->n_classes, K);
        if (gv_param_is_set(p, GV_P_OBJECTIVE) && tr->obj != ob->objective)
            return gv_err(GROVE_ERR_PARAM, "objective: the init model's is %s, got %s "
                          "(continued training keeps the objective)",
                          gv_objective_names[ob->objective], gv_objective_names[tr->obj]);
        tr->obj = ob->objective;
        if (!gv_param_is_set(p, GV_P_TWEEDIE_VARIANCE_POWER)) tr->lp.tweedie_power = ob->tweedie_power;
        if (!gv_param_is_set(p, GV_P_QUANTILE_ALPHA)) tr->lp.quantile_alpha = ob->quantile_alpha;
        tr->t0 = ob->n_rounds;
    }
    tr->o = gv_objective_get(tr->obj);
    tr->quantile = gv_objective_quantile(tr->o, &tr->lp);
    if (gv_objective_is_ranking(tr->obj)) {
        /* a query's gradients need all its rows: in a data-parallel run every query must lie
         * whole on one rank */
        if (gv_dist_active() && (st = rank_shards_check(in->data, tr->o->name)) != GROVE_OK)
            return st;
        /* (a rank without rows has no queries; the check above has passed every rank) */
        if (!in->data->n_queries && !(gv_dist_active() && !in->data->n_rows))
            return gv_err(GROVE_ERR_DATA, "%s: objective %s needs query groups (LIBSVM qid:n "
                          "tokens, or a CSV column named by --group COL)",
                          in->data->source ? in->data->source : "the data", tr->o->name);
        if (valid && !valid->n_queries)
            return gv_err(GROVE_ERR_DATA, "%s: objective %s needs query groups in the validation "
                          "data too", valid->source ? valid->source : "the validation data",
                          tr->o->name);
    }
    int metric = GV_MET_AUTO;
    if ((st = gv_metric_resolve(p, tr->obj, K, &metric)) != GROVE_OK) return st;
    tr->rounds = tr->t0 + (size_t)gv_param_int(p, GV_P_ROUNDS); /* (t0: the saved rounds) */
    tr->seed = (uint64_t)gv_param_int(p, GV_P_SEED);
    tr->subsample = gv_param_double(p, GV_P_SUBSAMPLE);
    tr->col_tree = gv_param_double(p, GV_P_COLSAMPLE_BYTREE);
    const double col_node = gv_param_double(p, GV_P_COLSAMPLE_BYNODE);
    tr->n = in->data->n_rows;
    tr->nv = valid ? valid->n_rows : 0;
    tr->nt = in->n_threads > 0 ? in->n_threads : 1;
    tr->eta = gv_param_double(p, GV_P_LEARNING_RATE);
    tr->gamma = gv_param_double(p, GV_P_GAMMA);
    tr->y = in->y;
    tr->w = in->weight;
    tr->F_count = in->binned->n_features;
    tree_config(p, tr->nt, &tr->cfg);
    if ((st = gv_monotone_parse("monotone_constraints", gv_param_str(p, GV_P_MONOTONE_CONSTRAINTS),
                                in->data->schema, &tr->mono)) != GROVE_OK ||
        (st = gv_interactions_parse("interaction_constraints",
                                    gv_param_str(p, GV_P_INTERACTION_CONSTRAINTS), in->data->schema,
                                    &tr->igroups)) != GROVE_OK)
        return st;
    if (tr->mono && tr->o->leaf == GV_LEAF_QUANTILE)
        return gv_err(GROVE_ERR_PARAM, "monotone_constraints: objective %s refits the leaves to "
                      "quantiles of their residuals, which the constraints cannot bound; use squared, "
                      "huber or another Newton objective", gv_objective_names[tr->obj]);
    tr->cfg.monotone = tr->mono;
    tr->cfg.igroups = tr->igroups;
    tr->dist = tr->cfg.dist = gv_dist_active();
    tr->n_total = tr->n;
    if (tr->dist) gv_dist_offsets(tr->n, &tr->row0, &tr->n_total);
    st = gv_objective_check_labels(tr->o, tr->y, tr->n, in->data->source, tr->row0);
    if (st == GROVE_OK && valid)
        st = gv_objective_check_labels(tr->o, valid->labels, valid->n_rows, valid->source, 0);
    if (tr->dist) st = gv_dist_agree(st);
    if (st != GROVE_OK) return st;
    if (tr->dist) {
        /* what the data-parallel path does not reduce (yet): say so rather than differ */
        if (in->binned->csr_ptr)
            return gv_err(GROVE_ERR_PARAM, "gbdt over MPI: sparse data not supported");
    }
    tr->exact = tr->dist || !gv_param_int(p, GV_P_QUANTIZED_BITS);
    /* the sample weights' grid, for exact quantiles (GV_BASE_QUANTILE, GV_LEAF_QUANTILE) */
    if (tr->exact) tr->wq = tr->w ? gv_dist_grid(tr->w, tr->n, tr->nt) : 1.0;

    tr->b = gv_gbdt_new(tr->obj, K, tr->rounds, (int)gv_param_int(p, GV_P_TRAIN_METRIC),
                     valid != NULL);
    if (!tr->b) return gv_err_nomem("a gbdt model");
    gv_gbdt *b = tr->b;
    b->metric = metric;
    b->learning_rate = tr->eta;
    b->tweedie_power = tr->lp.tweedie_power;
    b->quantile_alpha = tr->lp.quantile_alpha;
    tr->G = b->n_groups;
    const size_t n = tr->n, nv = tr->nv, G = tr->G;
    const int sub = tr->subsample < 1, col = tr->col_tree < 1;
    size_t n_part = 2 * ((n > nv ? n : nv) / GV_LOSS_SUM_BLOCK + 1);
    tr->F = gv_malloc_array(n, G * sizeof *tr->F);
    tr->Fv = valid ? gv_malloc_array(nv ? nv : 1, G * sizeof *tr->Fv) : NULL;
    tr->grad = gv_malloc_huge_array(n, G * sizeof *tr->grad);
    tr->hess = gv_malloc_huge_array(n, G * sizeof *tr->hess);
    tr->rows = sub ? gv_malloc_array(n ? n : 1, sizeof *tr->rows) : NULL;
    tr->mask = col ? gv_malloc_array(tr->F_count, sizeof *tr->mask) : NULL;
    tr->perm = col ? gv_malloc_array(tr->F_count, sizeof *tr->perm) : NULL;
    tr->leaf = gv_malloc_array(n, sizeof *tr->leaf);
    tr->part = gv_malloc_array(n_part, sizeof *tr->part);
    const int refit = tr->o->leaf == GV_LEAF_QUANTILE;
    tr->tmp = refit ? gv_malloc_array(n ? n : 1, sizeof *tr->tmp) : NULL;
    if (!tr->F || (valid && !tr->Fv) || !tr->grad || !tr->hess || (sub && !tr->rows) ||
        (col && (!tr->mask || !tr->perm)) || !tr->leaf || !tr->part ||
        (refit && !tr->tmp))
        return gv_err_nomem("gbdt training state");
    const int qbits = (int)gv_param_int(p, GV_P_QUANTIZED_BITS);
    if (qbits == 1)
        return gv_err(GROVE_ERR_PARAM, "quantized_bits: must be 0 (off) or in [2, 8], got 1");
    /* the integer histograms are a one-process path: refuse rather than silently train exact */
    if (qbits && tr->dist)
        return gv_err(GROVE_ERR_PARAM, "quantized_bits: not supported in data-parallel training "
                      "(mpirun), whose ranks sum exact histograms; use quantized_bits=0");
    /* the engine's layouts: row-major bins, quantized gradients, sparse rows, feature bundles */
    const gv_tree_session_opts eo = {.n_threads = tr->nt, .quantized_bits = qbits,
                                     .every_feature = !col && col_node >= 1, .dist = tr->dist};
    if ((st = gv_tree_session_open(in->binned, &eo, &tr->engine)) != GROVE_OK) return st;
    if (tr->init) {
        if ((st = init_rounds(tr)) != GROVE_OK) return st;
    } else if ((st = initial_scores(tr, p, b->base)) != GROVE_OK) {
        return st;
    }
    if (G == 1) /* one score a row: a plain fill (not a memcpy call a row) */
        for (size_t i = 0; i < n; i++) tr->F[i] = b->base[0];
    else
        for (size_t i = 0; i < n; i++) memcpy(tr->F + i * G, b->base, G * sizeof *tr->F);
    for (size_t i = 0; i < nv; i++) memcpy(tr->Fv + i * G, b->base, G * sizeof *tr->Fv);
    if (tr->init) init_scores(tr);

    size_t n_cand = tr->F_count;
    if (col) {
        n_cand = (size_t)(tr->col_tree * (double)tr->F_count);
        if (n_cand < 1) n_cand = 1;
    }
    if (col_node < 1) {
        size_t mf = (size_t)(col_node * (double)n_cand);
        tr->cfg.max_features = mf < 1 ? 1 : mf;
    }
    tr->cfg.feature_mask = tr->mask;
    tr->best_valid = NAN;
    return GROVE_OK;
}

/* Scores: F[r] += val[leaf[r]] in column g for every training row. */
static void add_leaf_values(trainer *tr, const double *val, size_t g)
{
    const size_t G = tr->G;
    const uint32_t *leaf = tr->leaf;
    double *F = tr->F + g;
    const long N = (long)tr->n;
#ifdef _OPENMP
#pragma omp parallel for num_threads(tr->nt) schedule(static) if (N >= PAR_MIN_ROWS && tr->nt > 1)
#endif
    for (long i = 0; i < N; i++) F[(size_t)i * G] += val[leaf[i]];
}

/* The score update a gradient pass was owed (trainer.owed), made on its own. */
static void flush_scores(trainer *tr)
{
    if (tr->owed) add_leaf_values(tr, tr->owed, 0);
    tr->owed = NULL;
}

/* Round t: gradients at the current scores, the round's rows and features, one tree per group
 * (pruned, its leaves refit or line-searched as the objective says, shrunk by eta), and the
 * scores F (and Fv) moved by it. */
static grove_status fit_round(trainer *tr, size_t t)
{
    gv_gbdt *b = tr->b;
    const size_t n = tr->n, nv = tr->nv, G = tr->G;
    const int sub = tr->subsample < 1;
    compute_gradients(tr);
    draw_rows(tr, tr->subsample, tr->seed, t);
    if (tr->col_tree < 1) draw_features(tr, tr->col_tree, tr->seed, t);
    gv_tree_session_round(tr->engine, tr->grad, tr->hess, G,
                          !sub && tr->col_tree >= 1 &&
                              !(tr->cfg.max_features > 0 && tr->cfg.max_features < tr->F_count));
    for (size_t g = 0; g < G; g++) {
        gv_tree_input ti = {
            .rows = sub ? tr->rows : NULL,
            .n_rows = tr->n_sampled,
            .grad = tr->gh_in_ns ? NULL : tr->grad + g * n,
            .hess = tr->gh_in_ns ? NULL : tr->hess + g * n,
            .gh_in_ns = tr->gh_in_ns,
            .leaf_of_row = tr->leaf,
            .gh_checked = tr->gh_checked,
        };
        if (gv_tree_session_quantized(tr->engine))
            gv_tree_session_quantize(tr->engine, tr->grad + g * n, tr->hess + g * n, tr->seed,
                                     (uint64_t)t * G + g);
        gv_rng trng;
        gv_rng_seed(&trng, tr->seed, GV_STREAM_GBDT, (uint64_t)t * 4096 + 2 + g);
        gv_tree *tree = NULL;
        if (sub) /* the rows out of the sample stay unset: walked below */
            memset(tr->leaf, 0xFF, n * sizeof *tr->leaf);
        grove_status st = gv_tree_session_fit(tr->engine, &tr->cfg, &ti, g, &trng, &tree);
        int pruned = 0;
        if (st == GROVE_OK) st = gv_tree_prune(tree, tr->gamma, &pruned);
        if (st != GROVE_OK) {
            gv_tree_free(tree);
            gv_err_prefix("round %zu", t + 1);
            return st;
        }
        b->trees[t * G + g] = tree;
        /* the grower set the leaves of the rows it grew on; the others (subsample) are
         * walked, and all are after pruning renumbered the nodes */
        if (pruned || sub) assign_leaves(tr, tree, !pruned);
        if (tr->o->leaf == GV_LEAF_QUANTILE) st = refit_quantile(tr, tree);
        if (st == GROVE_OK && tr->o->leaf == GV_LEAF_ADABOOST)
            st = line_search_exp(tr, tree, &b->log_eps[t], &b->log_alpha[t]);
        if (st != GROVE_OK) {
            gv_err_prefix("round %zu", t + 1);
            return st;
        }
        if (tr->obj == GV_OBJ_POISSON && tr->lp.poisson_max_delta_step > 0) {
            /* XGBoost's max_delta_step for count:poisson: each Newton step (a node's value
             * before eta) at most poisson_max_delta_step in absolute value */
            const double c = tr->lp.poisson_max_delta_step;
            for (size_t k = 0; k < tree->n_nodes; k++)
                tree->values[k] = fmin(fmax(tree->values[k], -c), c);
        }
        for (size_t k = 0; k < tree->n_nodes; k++) tree->values[k] *= tr->eta;
        /* scores: F += value of the row's leaf (binned walk done above); with one group and
         * nothing reading F before the next round's gradients (no train metric, one process),
         * owed to that pass (compute_gradients) */
        const double *val = tree->values;
        if (G == 1 && !tr->dist && !b->log_train)
            tr->owed = val;
        else
            add_leaf_values(tr, val, g);
        if (tr->valid) {
            const long NV = (long)nv;
            double *Fv = tr->Fv + g;
#ifdef _OPENMP
#pragma omp parallel for num_threads(tr->nt) schedule(static) if (NV >= PAR_MIN_ROWS && tr->nt > 1)
#endif
            for (long i = 0; i < NV; i++)
                Fv[(size_t)i * G] += val[gv_tree_leaf(tree, tr->valid, (size_t)i)];
        }
    }
    b->n_rounds = t + 1;
    b->n_log = t + 1;
    return GROVE_OK;
}

/* Early stopping: logs round t's metrics and sets *stop (with the model's stop reason) when the
 * validation metric has not improved for `patience` rounds. */
static grove_status log_round(trainer *tr, size_t t, int *stop)
{
    gv_gbdt *b = tr->b;
    const int metric = b->metric;
    grove_status st;
    *stop = 0;
    const size_t at = gv_param_eval_at(tr->in->params);
    gv_metric_in mi = {tr->F, tr->y, tr->w, tr->n, tr->G, tr->obj, metric,
                       tr->lp.tweedie_power, tr->lp.quantile_alpha, tr->in->data->query_ptr,
                       tr->in->data->n_queries, at};
    if (b->log_train &&
        (st = tr->exact ? gv_metric_value_dist(&mi, &b->log_train[t])
                       : gv_metric_value(&mi, tr->nt, tr->part, &b->log_train[t])) != GROVE_OK)
        return st;
    if (!tr->valid) return GROVE_OK;
    gv_metric_in mv = {tr->Fv,   tr->valid->labels, tr->valid->weights,      tr->nv,
                       tr->G,    tr->obj,           metric,                  tr->lp.tweedie_power,
                       tr->lp.quantile_alpha, tr->valid->query_ptr, tr->valid->n_queries, at};
    if ((st = gv_metric_value(&mv, tr->nt, tr->part, &b->log_valid[t])) != GROVE_OK) return st;
    double v = b->log_valid[t];
    if (t == tr->t0 || (gv_metric_higher_better(metric) ? v > tr->best_valid : v < tr->best_valid)) {
        tr->best_valid = v;
        tr->best_t = t;
    }
    if (tr->patience && t - tr->best_t >= tr->patience) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "round %zu: no validation improvement for %zu rounds; kept the best "
                 "round %zu", t + 1, tr->patience, tr->best_t + 1);
        char *s = gv_strdup(msg);
        if (!s) return gv_err_nomem("a stop reason");
        gv_free(b->stop);
        b->stop = s;
        *stop = 1;
    }
    return GROVE_OK;
}

/* Early stopping: keeps the rounds up to the best one. */
static void keep_best_rounds(trainer *tr)
{
    gv_gbdt *b = tr->b;
    if (!(tr->patience && tr->valid && b->n_rounds > tr->best_t + 1)) return;
    for (size_t k = (tr->best_t + 1) * tr->G; k < b->n_rounds * tr->G; k++) {
        gv_tree_free(b->trees[k]);
        b->trees[k] = NULL;
    }
    b->n_rounds = tr->best_t + 1;
}

/* The model's outputs on the training rows from the scores F (learner.h's gv_fit_pred): F is
 * base + the trees' values in round order, the sum gbdt_predict_rounds and gbdt_predict_block
 * make, and the binned walk that placed the rows in their leaves is the raw walk's equivalent
 * (tree_predict.c), so the outputs are bit-identical to predicting the rows. */
static void train_outputs(const gv_gbdt *b, const double *F, size_t n, int nt, double *out)
{
    const size_t G = b->n_groups, k = gv_gbdt_outputs(b);
    const int binary = b->n_classes == 2 && G == 1; /* binary: F lives in out[1] */
    const long N = (long)n;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static) if (N >= PAR_MIN_ROWS && nt > 1)
#endif
    for (long i = 0; i < N; i++) {
        double *o = out + (size_t)i * k;
        memcpy(binary ? o + 1 : o, F + (size_t)i * G, G * sizeof *F);
        gv_gbdt_scores_to_outputs(b, o);
    }
}

grove_status gv_fit_gbdt(const gv_fit_input *in, gv_rng *rng_unused, gv_component *out)
{
    (void)rng_unused;
    const grove_params *p = in->params;
    if (in->rows) return gv_err(GROVE_ERR_INTERNAL, "gbdt: boosting a row view is not supported");
    if (!in->binned) return gv_err(GROVE_ERR_INTERNAL, "gbdt: needs the binned training data");
    trainer tr;
    grove_status st = trainer_init(&tr, in);
    if (st != GROVE_OK) goto fail;
    const size_t rounds = tr.rounds;
    for (size_t t = tr.t0; t < rounds; t++) {
        if (gv_progress(p, "round", t - tr.t0, rounds - tr.t0)) {
            st = gv_err(GROVE_ERR_ARG, "cancelled");
            goto fail;
        }
        int stop;
        if ((st = gv_dist_round(t + 1)) != GROVE_OK || (st = fit_round(&tr, t)) != GROVE_OK ||
            (st = log_round(&tr, t, &stop)) != GROVE_OK)
            goto fail;
        if (t == tr.t0) { /* the engine's plan, as the first tree had it */
            char plan[512];
            gv_tree_session_plan(tr.engine, plan, sizeof plan);
            if (plan[0]) gv_note(p, "plan", plan);
        }
        if (gv_progress_round(p, t + 1, rounds, gv_metric_names[tr.b->metric],
                              tr.b->log_train ? tr.b->log_train[t] : NAN,
                              tr.valid ? tr.b->log_valid[t] : NAN)) {
            st = gv_err(GROVE_ERR_ARG, "cancelled");
            goto fail;
        }
        if (stop) break;
    }
    flush_scores(&tr); /* (before keep_best_rounds frees the trees it reads) */
    const size_t fitted = tr.b->n_rounds;
    keep_best_rounds(&tr);
    /* the scores F are the model's on the training rows when every fitted round was kept (and
     * they are this process's rows) */
    const int pred = in->pred && !tr.dist && tr.b->n_rounds == fitted;
    gv_progress(p, "round", rounds - tr.t0, rounds - tr.t0);
    out->vt = &gv_gbdt_component;
    out->impl = tr.b;
    /* the outputs after the training buffers are gone: they add nothing to the peak memory */
    double *F = tr.F;
    tr.F = NULL;
    tr.b = NULL;
    trainer_free(&tr);
    if (pred) {
        train_outputs(out->impl, F, in->data->n_rows, in->n_threads > 0 ? in->n_threads : 1,
                      in->pred->out);
        in->pred->impl = out->impl;
    }
    gv_free(F);
    return GROVE_OK;
fail:
    if (tr.b) {
        /* trees of an unfinished round are owned too */
        size_t have = tr.b->n_rounds * tr.G;
        while (have < tr.rounds * tr.G && tr.b->trees[have]) have++;
        for (size_t k = 0; k < have; k++) gv_tree_free(tr.b->trees[k]);
        tr.b->n_rounds = 0;
        gv_gbdt_free(tr.b);
    }
    trainer_free(&tr);
    return st;
}

