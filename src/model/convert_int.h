/*
 * convert_int.h -- what the readers of convert.c and convert_lightgbm.c share: the source trees
 * (nodes in the source's numbering, with the source's split semantics), the conversion's state,
 * and the allocation of its features, classes and trees.  Private to src/model/.
 */
#ifndef GV_CONVERT_INT_H
#define GV_CONVERT_INT_H

#include "model_int.h"

#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------------------------------------
 * Source trees
 * ------------------------------------------------------------------------------------------ */

enum { SN_LEAF, SN_NUM, SN_CAT };
enum { MISS_NAN, MISS_NONE, MISS_ZERO };  /* NaN to the default side; NaN read as 0; LightGBM's
                                             zero-as-missing (|x| <= 1e-35f and NaN) */
enum { CMP_LT, CMP_LE };                  /* x < thr goes left (XGBoost); x <= thr */

typedef struct src_node {
    int kind;
    int32_t feature;
    double thr;
    int cmp, missing, default_left;
    int cats_right;        /* SN_CAT: the listed categories go right (XGBoost); else left */
    int64_t left, right;   /* source node indices */
    size_t cat_off, cat_n; /* SN_CAT: categories listed at cats[cat_off .. +cat_n) */
    double gain, weight, count;
} src_node;

typedef struct src_tree {
    src_node *nodes;
    size_t n_nodes;
    double *values;   /* [n_nodes * n_out]: leaves' values (internal ones computed) */
    uint32_t *cats;   /* category codes, see src_node */
    size_t n_cats;
    size_t group;
} src_tree;

enum { CV_GBDT, CV_BAGGING, CV_TREE };

/* The most features a converted model may declare: a few bytes of input cannot make the
 * converter allocate gigabytes of feature names. */
#define CV_MAX_FEATURES 4194304

typedef struct conv {
    const char *source;
    size_t n_features;
    char **names;             /* [n_features] owned */
    unsigned char *is_cat;    /* [n_features] */
    uint32_t *n_cat;          /* [n_features]: categories of each categorical feature */
    int kind;
    int objective;            /* CV_GBDT: GV_OBJ_* */
    int n_classes;            /* 0 for regression */
    size_t n_groups;          /* CV_GBDT: trees per round */
    double *base;             /* [n_groups] */
    double learning_rate;
    const char *mode, *vote;  /* CV_BAGGING */
    char **classes;           /* [n_classes] or NULL: "0", "1", ... */
    int n_out;                /* values per node: 1, or K (probability trees) */
    src_tree *trees;
    size_t n_trees;
    gv_tree **out;            /* [n_trees] emitted */
} conv;


/* Features named names[f] (or "f0", "f1", ... when NULL), none categorical yet. */
grove_status gv_conv_features(conv *c, size_t n, const char *const *names);
/* K classes named "0" .. "K-1" (K = 0: regression). */
grove_status gv_conv_classes(conv *c, int K);
/* Room for n source trees. */
grove_status gv_conv_trees(conv *c, size_t n);
/* Room for a source tree of n_nodes nodes, n_out values each, n_cats category words. */
grove_status gv_conv_tree_alloc(src_tree *t, size_t n_nodes, int n_out, size_t n_cats);
/* LightGBM's text model (convert_lightgbm.c) into c's source trees. */
grove_status gv_conv_from_lightgbm(conv *c, const char *text, size_t len);

#endif
