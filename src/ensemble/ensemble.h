/*
 * ensemble.h -- ensembles written against the base-learner interface (learn/learner.h).
 *
 * Pipeline position: ensemble/ (after learn/, before model/).  Each ensemble is itself a
 * learner (so ensembles nest: bagging of AdaBoost works) and produces a component.  The base
 * learner is named by parameter "base" and configured by "base.KEY" parameters: the registry
 * looks it up (registry.h, gv_base_learner).  Random streams come from (seed, stream id,
 * index), every id in core/streams.h.  This header declares each ensemble's fit and component
 * kind, what ensembles share (common.c: predicting on every row, the report slots' dispatch;
 * importance.c: the importance formulas) and read-only views of each kind for dumps and
 * reports.  Adding an ensemble: its file here, its fit and kind below, its rows in registry.c.
 */
#ifndef GV_ENSEMBLE_H
#define GV_ENSEMBLE_H

#include "../learn/learner.h"
#include "registry.h"
#include "../core/streams.h"

/* Random stream ids: core/streams.h. */

/* The AdaBoost family (boost.c): algo adaboost, adaboost.m1, samme, samme.r, adaboost.m2,
 * adaboost.r2 -- one component kind "boost". */
grove_status gv_fit_adaboost(const gv_fit_input *in, gv_rng *rng, gv_component *out);
grove_status gv_fit_adaboost_m1(const gv_fit_input *in, gv_rng *rng, gv_component *out);
grove_status gv_fit_samme(const gv_fit_input *in, gv_rng *rng, gv_component *out);
grove_status gv_fit_samme_r(const gv_fit_input *in, gv_rng *rng, gv_component *out);
grove_status gv_fit_adaboost_m2(const gv_fit_input *in, gv_rng *rng, gv_component *out);
grove_status gv_fit_adaboost_r2(const gv_fit_input *in, gv_rng *rng, gv_component *out);
extern const gv_component_vt gv_boost_component;

/* Schapire's boosting by filtering, recursive majority of three (filter.c). */
grove_status gv_fit_filter_boost(const gv_fit_input *in, gv_rng *rng, gv_component *out);
extern const gv_component_vt gv_majority3_component;

/* Boosting the confidence (confidence.c). */
grove_status gv_fit_confidence_boost(const gv_fit_input *in, gv_rng *rng, gv_component *out);
extern const gv_component_vt gv_confidence_component;

/* Averaging ensembles (bagging.c): bagging of any base learner, random forest, extra-trees --
 * one component kind "bagging".  Random streams: model t draws its rows and grows with
 * (seed, GV_STREAM_BAGGING, t); OOB permutations use (seed, GV_STREAM_OOB_PERMUTE, t). */
grove_status gv_fit_bagging(const gv_fit_input *in, gv_rng *rng, gv_component *out);
grove_status gv_fit_forest(const gv_fit_input *in, gv_rng *rng, gv_component *out);
grove_status gv_fit_extra_trees(const gv_fit_input *in, gv_rng *rng, gv_component *out);
extern const gv_component_vt gv_bagging_component;
/* Draws model t's rows (bagging.c): with `replace`, m = max(1, round(fraction n)) draws with
 * replacement, else m = min(n, that) distinct rows (Knuth's selection sampling); rows[] gets
 * them in ascending order (repeats adjacent; caller-owned, room for m), in_bag[i] = 1 iff row
 * i was drawn; returns m.  `count` is scratch [n] (with replacement).  Stream (seed,
 * GV_STREAM_BAGGING, t), which the model's tree t then continues to use for its growth. */
size_t gv_bagging_replicate(size_t n, double fraction, int replace, gv_rng *rng, size_t *rows,
                            uint8_t *in_bag, uint32_t *count);
/* The same draws over N rows, of which this part (a data-parallel rank) holds rows first ..
 * first + n - 1: rows[] gets its drawn rows (0-based within the part; room for the whole m),
 * in_bag[0..n) its flags, count is scratch [n]; returns the number of its rows drawn.  The rng
 * is left where one process over all N rows leaves it (so the tree grown next draws alike). */
size_t gv_bagging_replicate_part(size_t N, size_t first, size_t n, double fraction, int replace,
                                 gv_rng *rng, size_t *rows, uint8_t *in_bag, uint32_t *count);
/* The members of a bagging component (borrowed) and their number. */
size_t gv_bagging_members(const gv_component *c, const gv_component **members);

/* Feature importances (importance.c).  gv_component_importance: importances of `type`
 * ("impurity", "gain", "cover", "oob_permutation") of component c into out[n_features], through
 * its kind's `importance` slot (a lone tree's impurity directly); GROVE_ERR_ARG naming the kinds
 * that have them when c's kind has none.  The formulas the slots call:
 *   impurity: per tree the summed gain per feature normalized to 1, averaged over the trees,
 *   normalized (scikit-learn's feature_importances_); GROVE_ERR_ARG naming the first member of
 *   trees[0..n) that is not a tree.
 *   gain, cover: the mean loss reduction (cover = 0) or mean hessian sum (cover = 1) of the
 *   splits on each feature over trees[0..n), as XGBoost's get_score. */
grove_status gv_component_importance(const gv_component *c, const char *type,
                                     size_t n_features, double *out);
grove_status gv_importance_impurity_trees(const gv_component *trees, size_t n,
                                          size_t n_features, double *out);
grove_status gv_importance_gain_cover(const gv_tree *const *trees, size_t n, int cover,
                                      size_t n_features, double *out);

/* Normalized margins of a voting ensemble ("boost" of adaboost, m1, samme, m2; after all the
 * rounds: its `margins` slot) after each of the first rounds[0] < rounds[1] < ... <
 * rounds[n_stages - 1] rounds (each in [1, T]): out[s * n_rows + i] is row i's margin using the
 * first rounds[s] members (normalized by their sum |alpha|), as in Schapire et al. 1998's margin
 * distribution graphs.  c must be a boost component. */
grove_status gv_boost_margins_rounds(const gv_component *c, const grove_dataset *d,
                                     const size_t *rounds, size_t n_stages, int n_threads,
                                     double *out);

/* ---- common.c ---- */
/* Predicts component c on every row of d into out[n_rows * k] (OpenMP over rows). */
void gv_component_predict_all(const gv_component *c, const grove_dataset *d, size_t k,
                              int n_threads, double *out);
/* c's per-round log as CSV into b (its `log_csv` slot); GROVE_ERR_ARG when its kind has none. */
grove_status gv_component_log_csv(const gv_component *c, gv_buf *b);
/* c's margins on the labelled rows of d into out[d->n_rows] (its `margins` slot): (s_y -
 * max_{k != y} s_k) / sum |alpha| for the AdaBoost family's voting variants, p_y - max_{k != y}
 * p_k for averaging ensembles; GROVE_ERR_ARG naming the kinds that have margins otherwise. */
grove_status gv_component_margins(const gv_component *c, const grove_dataset *d, int n_threads,
                                  double *out);
/* The margins slot of the averaging ensembles (bagging, forest, extra-trees, voting), whose
 * n_classes outputs sum to 1: p_y(x) - max_{k != y} p_k(x) for every row of d into out[n_rows].
 * GROVE_ERR_ARG naming `algo` when n_classes is 0 (regression); GROVE_ERR_DATA without labels. */
grove_status gv_margins_averaged(const gv_component *c, size_t n_classes, const char *algo,
                                 const grove_dataset *d, int n_threads, double *out);

/* Gradient-boosted trees (gbdt.c): algo gbdt, component kind "gbdt".  Random streams
 * (seed, GV_STREAM_GBDT, round * 4096 + j): j = 0 rows, 1 features, 2 + g tree g. */
grove_status gv_fit_gbdt(const gv_fit_input *in, gv_rng *rng, gv_component *out);
extern const gv_component_vt gv_gbdt_component;

/* Stacking and voting over a list of learners (stacking.c, voting.c; the list and its parallel
 * fits: members.c): algo stacking (component kind "stacking"; stack.* parameters) and voting
 * (kind "voting"; voting.* parameters).  Random streams (seed, GV_STREAM_STACK,
 * l * (folds + 1) + j) for learner l on fold j (j = folds: all rows), (seed, GV_STREAM_VOTING, l)
 * for voting's learner l. */
grove_status gv_fit_stacking(const gv_fit_input *in, gv_rng *rng, gv_component *out);
grove_status gv_fit_voting(const gv_fit_input *in, gv_rng *rng, gv_component *out);
extern const gv_component_vt gv_stacking_component;
extern const gv_component_vt gv_voting_component;

/* ---------------------------------------------------------------------------------------------
 * Read-only views of the ensemble components, for the code that walks a model's component tree
 * from outside its kind's file (model/dump.c lists it, model/shap.c explains it, eval/report.c
 * draws it; C export goes through each kind's export_c slot instead).
 * Each gv_*_view_of fills *v and returns 1 when c is a component of that kind, else returns 0
 * and leaves *v alone.  Every pointer is borrowed from the component and lives as long as it.
 * ------------------------------------------------------------------------------------------ */
typedef struct gv_boost_view {
    const char *variant;         /* "adaboost", "adaboost.m1", "samme", "samme.r", "adaboost.m2",
                                    "adaboost.r2" */
    int n_classes;               /* K >= 2, or 0 for adaboost.r2 */
    size_t n_members;            /* T */
    const gv_component *members; /* [T] */
    const double *alpha;         /* [T] */
    const double *const *plaus;  /* adaboost.m2: [T] per-node plausibilities of tree members
                                    ([n_nodes * K]) or NULL entries; NULL for other variants */
    const double *log_eps, *log_z, *log_train, *log_valid; /* [T]; log_valid may be NULL */
} gv_boost_view;
int gv_boost_view_of(const gv_component *c, gv_boost_view *v);
/* Adds member t's share of the class scores s[K] for its output h[K] (its class probabilities,
 * or adaboost.m2's plausibilities), exactly as the boost component's prediction does: alpha_t
 * at the argmax (adaboost, m1, samme), alpha_t h (m2), alpha_t (K - 1)(ln p - mean ln p)
 * (samme.r).  c must be a boost component other than adaboost.r2, t < its members. */
void gv_boost_member_score(const gv_component *c, size_t t, const double *h, double *s);

typedef struct gv_bagging_view {
    const char *mode;            /* "bagging", "forest", "extra-trees" */
    const char *vote;            /* "hard", "soft", "mean" */
    int n_classes;               /* K >= 2, or 0 for regression */
    size_t n_members;
    const gv_component *members;
    const double *oob_error;     /* [n_members]; NaN where oob_n is 0 */
    const size_t *oob_n;         /* [n_members] */
} gv_bagging_view;
int gv_bagging_view_of(const gv_component *c, gv_bagging_view *v);

struct gv_objective;
typedef struct gv_gbdt_view {
    const char *objective;       /* resolved: "squared", ..., "exponential" */
    const struct gv_objective *obj; /* its table entry (loss/loss.h): link, export, metric */
    double tweedie_power, quantile_alpha; /* the metric's parameters (tweedie, quantile) */
    const char *metric;          /* the log's metric name */
    int n_classes;               /* K >= 2, or 0 for regression */
    size_t n_groups;             /* trees per round (K for softmax, else 1) */
    size_t n_rounds;             /* rounds kept */
    const double *base;          /* [n_groups] */
    const gv_tree *const *trees; /* [n_rounds * n_groups], round-major */
    size_t n_log;                /* rounds logged (>= n_rounds with early stopping) */
    const double *log_train, *log_valid; /* [n_log] or NULL */
    const double *log_eps, *log_alpha;   /* exponential: [n_log]; else NULL */
} gv_gbdt_view;
int gv_gbdt_view_of(const gv_component *c, gv_gbdt_view *v);

typedef struct gv_majority3_view {
    int n_classes;
    const gv_component *children; /* [3]: h1, h2, h3 */
    const double *errors;         /* [3]: each child's error on its own filtered distribution */
} gv_majority3_view;
int gv_majority3_view_of(const gv_component *c, gv_majority3_view *v);

typedef struct gv_confidence_view {
    const gv_component *chosen;
    size_t k, m, chosen_index;
    const double *errors;         /* [k] */
} gv_confidence_view;
int gv_confidence_view_of(const gv_component *c, gv_confidence_view *v);

typedef struct gv_voting_view {
    int n_classes;                /* K >= 2, or 0 for regression */
    int soft;
    size_t n_members;
    const gv_component *members;
    const double *weights;        /* [n_members] */
} gv_voting_view;
int gv_voting_view_of(const gv_component *c, gv_voting_view *v);
/* Walking the component tree: gv_component_walk calls fn(ctx, item) for c and every component
 * below it, in model order and pre-order (an ensemble before its members), and for each tree of
 * a gbdt (its trees are no components: item->c is NULL there).  The one walk that the code
 * listing or counting a model's trees from outside the kinds' files shares (model/dump.c,
 * model/export.c).  It stops at fn's first non-zero return and returns it; 0 after the whole
 * walk.  Every pointer in the item is borrowed from the model and valid during the call. */
typedef struct gv_walk_item {
    const gv_component *c;      /* the component, or NULL for a gbdt tree */
    const gv_tree *tree;        /* a tree component's or gbdt's tree, else NULL */
    const gv_component *parent; /* the ensemble holding it; NULL for c itself */
    size_t member;              /* its index among the parent's members (gbdt: round G + group;
                                   filter-boost: 0..2 for h1..h3; stacking's meta: n_members) */
    size_t round;               /* gbdt: the boosting round; otherwise = member */
    int group;                  /* gbdt: the score group (softmax: the class); else -1 */
    double weight;              /* alpha_t (AdaBoost family), the voting weight; else NaN */
    int depth;                  /* 0 for c, 1 for its members, ... */
    const grove_schema *schema; /* the features the component reads: NULL for the walk's own,
                                   a stacking meta-learner's meta row below it */
} gv_walk_item;
typedef int (*gv_walk_fn)(void *ctx, const gv_walk_item *item);
int gv_component_walk(const gv_component *c, gv_walk_fn fn, void *ctx);

/* The discrete AdaBoost round (Freund & Schapire 1997), shared by boost.c and the Viola-Jones
 * stage trainer (vision/train.c): for a hypothesis with weighted error 0 < eps < 1/2,
 *   alpha = nu/2 ln((1 - eps)/eps),  D(i) <- D(i) exp(-alpha y_i h(x_i)) / Z,
 * with y_i h(x_i) = +1 where correct[i] is non-zero (adaboost_step.c).  gv_adaboost_alpha returns
 * alpha; gv_adaboost_reweight updates D in place, renormalizes it to sum 1 and returns Z (the
 * normalizer: 2 sqrt(eps(1 - eps)) when alpha is the nu = 1 value and D summed to 1). */
double gv_adaboost_alpha(double eps, double nu);
double gv_adaboost_reweight(double *D, const uint8_t *correct, size_t n, double alpha);

typedef struct gv_stacking_view {
    int n_classes;                /* K >= 2, or 0 for regression */
    size_t n_members;
    const gv_component *members;
    int passthrough;              /* the meta row starts with the n_raw raw features */
    size_t n_raw, per, n_meta;    /* per: meta columns per member (1 for two classes: P(1)) */
    const grove_schema *meta_schema;
    const gv_component *meta;     /* the meta-learner, or NULL for the linear combiner */
    const double *coef, *fill;    /* linear combiner: [n_meta] each */
    double intercept;
} gv_stacking_view;
int gv_stacking_view_of(const gv_component *c, gv_stacking_view *v);

#endif /* GV_ENSEMBLE_H */
