/*
 * loss.h -- objectives (scores -> gradients, hessians) and weighted metrics on scores.
 *
 * Pipeline position: loss/, after core/ (it needs nothing else).  gbdt (ensemble/gbdt.c) boosts
 * on these objectives and logs these metrics; eval/ computes its AUC with gv_weighted_auc.
 * Scores F are row-major [n * G] (G = 1, or the number of classes for softmax); y is the class
 * index or the target; w the row weights or NULL (all 1).
 */
#ifndef GV_LOSS_H
#define GV_LOSS_H

#include "../core/core.h"

#include <math.h>

/* Objectives and metrics: indices of the parameter table's allowed lists (objective,
 * eval_metric). */
enum { GV_OBJ_AUTO, GV_OBJ_SQUARED, GV_OBJ_ABSOLUTE, GV_OBJ_HUBER, GV_OBJ_LOGISTIC, GV_OBJ_SOFTMAX,
       GV_OBJ_EXPONENTIAL, GV_OBJ_POISSON, GV_OBJ_TWEEDIE, GV_OBJ_GAMMA, GV_OBJ_QUANTILE,
       GV_OBJ_LAMBDARANK, GV_OBJ_RANK_PAIRWISE, GV_OBJ_COUNT };
enum { GV_MET_AUTO, GV_MET_RMSE, GV_MET_MAE, GV_MET_LOGLOSS, GV_MET_ERROR, GV_MET_AUC,
       GV_MET_MLOGLOSS, GV_MET_MERROR, GV_MET_EXPLOSS, GV_MET_POISSON_NLOGLIK,
       GV_MET_TWEEDIE_NLOGLIK, GV_MET_GAMMA_DEVIANCE, GV_MET_QUANTILE, GV_MET_NDCG, GV_MET_MAP,
       GV_MET_COUNT };
extern const char *const gv_objective_names[GV_OBJ_COUNT];
extern const char *const gv_metric_names[GV_MET_COUNT];

/* What an objective fits: the task it needs and the trees a round grows. */
enum { GV_FIT_REGRESSION, GV_FIT_BINARY, GV_FIT_MULTICLASS };
/* 1 for the learning-to-rank objectives (gradients per query: gv_rank_gradients). */
static inline int gv_objective_is_ranking(int obj)
{
    return obj == GV_OBJ_LAMBDARANK || obj == GV_OBJ_RANK_PAIRWISE;
}
/* The initial score when base_score is not set: the link of the weighted label mean (the
 * mean clipped to the link's domain), the class log-priors, or a weighted quantile of the
 * labels (the median, or quantile_alpha's). */
enum { GV_BASE_MEAN, GV_BASE_LOG_PRIORS, GV_BASE_QUANTILE };
/* The link between a score F and the model's outputs (the inverse link maps outputs to
 * scores): identity; logit (outputs [1 - p, p], p = sigma(scale F)); softmax over the K
 * scores; log (the output is the mean e^F). */
enum { GV_LINK_IDENTITY, GV_LINK_LOGIT, GV_LINK_SOFTMAX, GV_LINK_LOG };
/* The labels an objective accepts (regression): any finite value, y >= 0, y > 0. */
enum { GV_LABELS_ANY, GV_LABELS_NONNEGATIVE, GV_LABELS_POSITIVE };
/* What happens to a tree's leaf values after growth (before shrinkage by eta): nothing
 * (Newton's values), a refit to a weighted quantile of the residuals y - F of the leaf's rows,
 * or AdaBoost's line search (exponential). */
enum { GV_LEAF_NEWTON, GV_LEAF_QUANTILE, GV_LEAF_ADABOOST };

/* One objective: everything gbdt, export and the report need to know about it besides its
 * gradients (gv_loss_gradients, which switches on the id inside its row loops). */
typedef struct gv_objective {
    int id;            /* GV_OBJ_* */
    const char *name;  /* its value of parameter "objective" and of model files */
    int task;          /* GV_FIT_* */
    int metric;        /* the metric of eval_metric=auto */
    int base;          /* GV_BASE_* */
    int link;          /* GV_LINK_* */
    double scale;      /* logit: P(y = 1) = sigma(scale F) (exponential: 2, F half the log-odds) */
    int leaf;          /* GV_LEAF_* */
    double quantile;   /* GV_BASE_QUANTILE, GV_LEAF_QUANTILE: the quantile (0.5: the median;
                          -1: parameter quantile_alpha's) */
    int labels;        /* GV_LABELS_* */
} gv_objective;

/* The objectives' parameters (from the parameter table; gbdt passes them down). */
typedef struct gv_loss_params {
    double huber_delta;            /* huber: residuals beyond it count linearly */
    double quantile_alpha;         /* quantile: the quantile fitted */
    double tweedie_power;          /* tweedie: the variance power rho in (1, 2) */
    double poisson_max_delta_step; /* poisson: the hessian is e^{F + this} */
    size_t lambdarank_truncation;  /* lambdarank: pairs with a member in the top this many */
} gv_loss_params;

/* The table's entry of objective id (GV_OBJ_AUTO excluded); NULL when out of range. */
const gv_objective *gv_objective_get(int id);
/* The objective named name (a model file's), or NULL. */
const gv_objective *gv_objective_find(const char *name);
/* The quantile of GV_BASE_QUANTILE and GV_LEAF_QUANTILE: the table's, or lp's quantile_alpha. */
double gv_objective_quantile(const gv_objective *o, const gv_loss_params *lp);
/* GROVE_OK when every label y[0..n) is one the objective accepts (GV_LABELS_*), else
 * GROVE_ERR_DATA naming the first row that is not (source: the data's name; row0: the
 * global number of row 0). */
grove_status gv_objective_check_labels(const gv_objective *o, const double *y, size_t n,
                                       const char *source, size_t row0);
/* The trees a round grows: K for softmax, else 1. */
size_t gv_objective_groups(const gv_objective *o, int K);
/* 1 when n_classes K fits the objective's task (0: regression; 2 for logit links). */
int gv_objective_fits(const gv_objective *o, int K);
/* Scores -> outputs in place (out has max(K, 1) entries): logit keeps F in out[1] and writes
 * [1 - p, p]; softmax turns out[0..K) into probabilities; identity leaves out[0]. */
void gv_objective_outputs(const gv_objective *o, size_t K, double *out);
/* The score of an output value v (the inverse link: base_score, the label mean): logit
 * log(v / (1 - v)) / scale; log: log(v); identity v.  The value is not clipped. */
double gv_objective_score_of(const gv_objective *o, double v);
/* The initial score of a weighted label mean: the mean clipped to [1e-6, 1 - 1e-6] (logit)
 * or to at least 1e-15 (log), then gv_objective_score_of. */
double gv_objective_score_of_mean(const gv_objective *o, double mean);
/* GROVE_OK when base_score v is in the inverse link's domain, else GROVE_ERR_PARAM naming it. */
grove_status gv_objective_check_base(const gv_objective *o, double v);
/* The body of a C function `void f(const double *s, double *out)` turning G scores s into the
 * outputs as gv_objective_outputs does (the same operations, so the same doubles), appended
 * to b (what `grove export --lang c` writes).  Returns 0, or -1 without memory. */
int gv_objective_c_outputs(const gv_objective *o, size_t G, gv_buf *b);

/* Rows per block of the blocked (thread-count independent) sums. */
#define GV_LOSS_SUM_BLOCK 16384
/* Rows below which row loops stay on the calling thread. */
#define GV_LOSS_PAR_MIN_ROWS 8192
/* The smallest hessian (logistic, softmax). */
#define GV_LOSS_HESS_MIN 1e-16

/* 1 / (1 + e^-x) as gbdt has always computed it (models and their predictions depend on the
 * exact doubles; core/mathx.h's gv_sigmoid is the overflow-free form the linear models use). */
static inline double gv_loss_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

/* The objective of parameter "objective" for a task with K classes (0: regression), "auto"
 * resolved (squared; logistic for two classes, softmax for more); GROVE_ERR_PARAM when it does
 * not fit the task.  With lp: the objectives' parameters. */
grove_status gv_objective_resolve(const grove_params *p, int K, int *out, gv_loss_params *lp);
/* The metric of parameter "eval_metric" for objective obj, "auto" resolved (rmse, mae,
 * logloss, exploss, mlogloss); GROVE_ERR_PARAM when it does not apply. */
grove_status gv_metric_resolve(const grove_params *p, int obj, int K, int *out);

/* Gradients and hessians of objective obj at scores F for every row, into grad and hess
 * (group-major [G * n]); rows in parallel on n_threads (each row on its own: deterministic).
 * Each g and h is computed in double and rounded once to float (the values every tree path
 * sees; objective.c).  Returns 1 when every gradient is finite and every hessian finite and
 * >= 0 (what the tree engine requires; checked on the values as they are written), else 0. */
int gv_loss_gradients(int obj, const double *y, const double *w, const double *F, size_t n,
                      size_t G, const gv_loss_params *lp, int n_threads, double *grad,
                      double *hess);
/* gv_loss_gradients after the score update F[i] += val[leaf[i]] of every row, in the same pass
 * (each row: the update, then its gradient; the same numbers as the update's own pass followed
 * by gv_loss_gradients).  Fused for G = 1; otherwise column 0's update runs first, alone.
 * With gh (G = 1 only; ignored otherwise): the pairs go to gh[2 r], gh[2 r + 1] as floats
 * (interleaved, gv_tree_scratch_gh's layout) instead of grad and hess (not written). */
int gv_loss_gradients_upd(int obj, const double *y, const double *w, double *F, size_t n,
                          size_t G, const gv_loss_params *lp, int n_threads, double *grad,
                          double *hess, const uint32_t *leaf, const double *val, float *gh);

/* A metric over scores. */
typedef struct gv_metric_in {
    const double *F;      /* [n * G] scores */
    const double *y, *w;  /* [n] labels, weights or NULL */
    size_t n, G;
    int objective;        /* exponential scores are halved log-odds (logloss, error); log links'
                             are log-means (rmse, mae, quantile on e^F) */
    int metric;
    double tweedie_power;  /* tweedie-nloglik's rho */
    double quantile_alpha; /* quantile's alpha */
    const size_t *query_ptr; /* ndcg, map: the queries' rows [n_queries + 1] (dataset.h) */
    size_t n_queries;
    size_t at;             /* ndcg, map: the top positions counted (eval_at) */
} gv_metric_in;
/* The weighted metric over all rows into *out; `part` is scratch of
 * 2 * (n / GV_LOSS_SUM_BLOCK + 1) doubles. */
grove_status gv_metric_value(const gv_metric_in *m, int n_threads, double *part, double *out);
/* The same over the rows of every rank of a data-parallel run (collective; dist.h): the
 * weighted mean's sums exact (the terms on the common grid, so the value does not depend on
 * the rank count; a non-finite term makes it +inf), the AUC over all ranks' rows gathered in
 * rank order (24 bytes a row). */
grove_status gv_metric_value_dist(const gv_metric_in *m, double *out);
/* 1 when a larger value of the metric is better (auc). */
int gv_metric_higher_better(int metric);
/* The weighted AUC of scores s[i * stride] for labels y (positive: y > 1/2), ties counting one
 * half; NAN when one class has no weight. */
grove_status gv_weighted_auc(const double *s, size_t stride, const double *y, const double *w,
                             size_t n, double *out);

/* rank.c: learning to rank. */
/* Gradients and hessians of ranking objective obj (lambdarank, rank:pairwise) at scores F,
 * query by query (queries q: rows query_ptr[q] .. query_ptr[q + 1]), into grad and hess [n]
 * (each multiplied by its row's weight, rounded once to float).  Queries in parallel, each on
 * its own: the same values for any n_threads.  Returns 1 when every pair is finite, else 0. */
int gv_rank_gradients(int obj, const double *y, const double *w, const double *F, size_t n,
                      const size_t *query_ptr, size_t n_queries, const gv_loss_params *lp,
                      int n_threads, double *grad, double *hess);
/* NDCG@k (metric GV_MET_NDCG) or MAP@k (GV_MET_MAP) of one query: scores s[0..m), labels
 * y[0..m); ties in score keep row order.  A query with no relevant row scores 1. */
double gv_rank_query_metric(int metric, const double *s, const double *y, size_t m, size_t k);
/* The mean over the queries of gv_rank_query_metric; GROVE_ERR_NOMEM without memory. */
grove_status gv_rank_metric(const gv_metric_in *m, int n_threads, double *out);
/* The same over a data-parallel run's ranks (collective): each rank's own queries, their
 * values gathered in rank order and averaged as one process averages them. */
grove_status gv_rank_metric_dist(const gv_metric_in *m, int n_threads, double *out);

#endif /* GV_LOSS_H */
