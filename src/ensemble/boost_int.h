/*
 * boost_int.h -- what the AdaBoost family's training (boost.c) and its model (boost_model.c)
 * share: the model's struct and the helpers both use.  Private to ensemble/.
 */
#ifndef GV_BOOST_INT_H
#define GV_BOOST_INT_H

#include "ensemble.h"
#include "../learn/tree_pack.h"

enum { BV_ADABOOST, BV_M1, BV_SAMME, BV_SAMME_R, BV_M2, BV_R2, BV_COUNT };
static const char *const variant_names[BV_COUNT] = {"adaboost",    "adaboost.m1", "samme",
                                                    "samme.r",     "adaboost.m2", "adaboost.r2"};

typedef struct gv_boost {
    int variant;
    int n_classes;          /* K >= 2, or 0 for adaboost.r2 */
    size_t n_members, cap;
    gv_component *members;  /* [n_members], owned */
    double *alpha;          /* [n_members] */
    double **plaus;         /* adaboost.m2: [n_members] per-node plausibilities of tree members
                               ([n_nodes * K]) or NULL; NULL array for other variants */
    /* the training log, one entry per member */
    double *log_eps, *log_z, *log_train, *log_valid; /* log_valid NULL without validation data */
    char *stop;             /* why training stopped before "rounds" ("" if it did not) */
    gv_pack_cache pack;     /* the members compiled for prediction, on first use */
} gv_boost;

#define P_CLIP 1e-10

/* Frees a model (NULL: nothing); the component's free slot. */
void gv_boost_free(void *impl);
/* A new empty model of `variant` with room for cap members (log_valid with with_valid); NULL
 * without memory.  Free with gv_boost_free. */
gv_boost *gv_boost_new(int variant, int n_classes, size_t cap, int with_valid);
/* The plausibilities (m2) or class probabilities of member t for row i into h[K]. */
void gv_boost_member_output(const gv_boost *b, size_t t, const grove_dataset *d, size_t i,
                            double *h);
/* Accumulates member t's contribution for row i into the scores s[K] (not for r2). */
void gv_boost_add_score(const gv_boost *b, size_t t, const double *h, double *s);
/* sum_{t < rounds} |alpha_t|. */
double gv_boost_alpha_sum(const gv_boost *b, size_t rounds);

#endif /* GV_BOOST_INT_H */
