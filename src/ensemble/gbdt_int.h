/*
 * gbdt_int.h -- what gradient boosting's training (gbdt.c) and its model (gbdt_model.c) share:
 * the model's struct and its constructor.  Private to ensemble/.
 */
#ifndef GV_GBDT_INT_H
#define GV_GBDT_INT_H

#include "ensemble.h"
#include "../learn/tree_pack.h"
#include "../loss/loss.h"

typedef struct gv_gbdt {
    int objective;          /* GV_OBJ_* (never GV_OBJ_AUTO) */
    const gv_objective *o;  /* its table entry (loss.h) */
    double tweedie_power;   /* tweedie: rho (its metric; the model file keeps it) */
    double quantile_alpha;  /* quantile: the quantile (likewise) */
    int n_classes;          /* K >= 2, or 0 for regression */
    size_t n_groups;        /* trees per round: K (softmax) or 1 */
    size_t n_rounds;        /* rounds kept */
    double learning_rate;   /* eta (already folded into the leaf values; informational) */
    double *base;           /* [n_groups] initial scores */
    gv_tree **trees;        /* [n_rounds * n_groups], round-major; owned */
    int metric;             /* GV_MET_* of the log */
    size_t n_log;           /* rounds logged (>= n_rounds: early stopping drops the tail) */
    double *log_train;      /* [n_log], NULL unless train_metric was set */
    double *log_valid;      /* [n_log], NULL without validation data */
    double *log_eps, *log_alpha; /* exponential: [n_log]; NULL otherwise */
    char *stop;             /* why training stopped early ("" if it did not) */
    gv_pack_cache pack;     /* the trees compiled for prediction, on first use (tree_pack.h) */
} gv_gbdt;

/* A new model with room for `cap` rounds (trees NULL, n_rounds 0); NULL without memory. */
gv_gbdt *gv_gbdt_new(int objective, int n_classes, size_t cap, int with_train, int with_valid);
/* Frees a model (NULL: nothing); the component's free slot. */
void gv_gbdt_free(void *impl);
/* The model's outputs per row: K classes, or 1. */
static inline size_t gv_gbdt_outputs(const gv_gbdt *b) { return b->n_classes ? (size_t)b->n_classes : 1; }
/* Turns the scores in `out` into the model's outputs in place (the objective's link, loss.h):
 * binary objectives keep F in out[1] and write [1 - p, p]; softmax keeps F_k in out[k];
 * regression leaves out[0]. */
static inline void gv_gbdt_scores_to_outputs(const gv_gbdt *b, double *out)
{
    gv_objective_outputs(b->o, (size_t)b->n_classes, out);
}

#endif
