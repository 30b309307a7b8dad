/*
 * tree_pack.h -- the trees of an ensemble compiled for prediction, walked tree by tree over
 * blocks of rows.  One predictor for every tree ensemble (gbdt, bagging, forests,
 * extra-trees, the AdaBoost family): the ensemble asks for the leaf each row of a block reaches
 * in member t and combines the leaves' values exactly as its row-by-row path does, so the
 * results are bit-identical to gv_tree_leaf's walk.
 *
 * Pipeline position: learn/ (ensembles call it).  See tree_pack.c for the node layout.
 */
#ifndef GV_TREE_PACK_H
#define GV_TREE_PACK_H

#include <pthread.h>
#include <stdatomic.h>

#include "learner.h"

typedef struct gv_tree_pack gv_tree_pack;

/* Compiles trees[0..n) (an entry may be NULL: a member that is not a tree).  A tree with a
 * categorical split is kept and walked by gv_tree_leaf.  New pack in *out (free with
 * gv_tree_pack_free); the trees are borrowed and must outlive it. */
grove_status gv_tree_pack_build(const gv_tree *const *trees, size_t n, gv_tree_pack **out);
/* The same on up to n_threads OpenMP threads (the same pack). */
grove_status gv_tree_pack_build_par(const gv_tree *const *trees, size_t n, int n_threads,
                                    gv_tree_pack **out);
void gv_tree_pack_free(gv_tree_pack *p);

/* A pack built on first use, once, by whichever thread gets there first (the model stays
 * logically immutable: many threads may predict at once).  Building it lazily keeps training
 * and saving free of its memory (16 bytes a node).  Zero-initialize with gv_pack_cache_init;
 * free with gv_pack_cache_free. */
typedef struct gv_pack_cache {
    pthread_mutex_t mu;
    _Atomic(gv_tree_pack *) pack;
    atomic_int state; /* 0 not tried, 1 built, 2 failed (out of memory: callers walk rows) */
} gv_pack_cache;
void gv_pack_cache_init(gv_pack_cache *c);
void gv_pack_cache_free(gv_pack_cache *c);
/* The pack of members[0..n) (tree members compiled, others NULL); NULL when it could not be
 * built (out of memory): callers then take their row-by-row path. */
const gv_tree_pack *gv_pack_cache_get(gv_pack_cache *c, const gv_component *members, size_t n);
/* The same, built (when not yet) on up to n_threads OpenMP threads: a caller about to predict
 * on that many threads builds it first, rather than one of them while the others wait. */
const gv_tree_pack *gv_pack_cache_get_par(gv_pack_cache *c, const gv_component *members,
                                          size_t n, int n_threads);
/* The same for bare trees (gbdt). */
const gv_tree_pack *gv_pack_cache_get_trees(gv_pack_cache *c, gv_tree *const *trees, size_t n);

/* Rows [r0, r0 + B) of dense dataset d copied row-major into xs[B * n_features] (each column
 * read once, in order).  Returns nonzero when a value is NaN. */
int gv_rows_gather(const grove_dataset *d, size_t r0, size_t B, float *xs);

/* Whether a value of rows [r0, r0 + B) of dense dataset d is NaN. */
int gv_cols_has_nan(const grove_dataset *d, size_t r0, size_t B);

/* The leaf (node index in tree t) each of B rows reaches: row r's raw values are
 * xs[r * F .. r * F + F), and it is row r0 + r of d (for a tree that is not compiled).  Tree t
 * must not be NULL.  has_nan: whether a value in xs may be NaN (gv_rows_gather's result; 0
 * lets a walk skip the missing-value rule).  Walks LANES rows at once, their dependent loads
 * overlapping. */
void gv_tree_pack_leaves(const gv_tree_pack *p, size_t t, const float *xs, size_t F, size_t B,
                         const grove_dataset *d, size_t r0, int has_nan, int32_t *leaf);
/* Whether gv_tree_pack_leaves_cols serves every tree of the pack on a dense dataset of n_rows
 * rows and F features (each tree complete, the CPU with AVX2 or AVX-512, offsets within int32). */
int gv_tree_pack_cols_ok(const gv_tree_pack *p, size_t n_rows, size_t F);
/* gv_tree_pack_leaves on column-major values, without a row-major copy: row r's feature f at
 * x[f * ld + r] (x = the dataset's values + r0, ld = its rows).  Only where cols_ok. */
void gv_tree_pack_leaves_cols(const gv_tree_pack *p, size_t t, const float *x, size_t ld,
                              size_t B, int has_nan, int32_t *leaf);
/* s[r] += tree t's value (its first output) at the leaf row r reaches, for the B rows of
 * gv_tree_pack_leaves_cols, in row order; fused into the walk for a tree of one output.  leaf:
 * room for B entries.  Only where cols_ok. */
void gv_tree_pack_add_cols(const gv_tree_pack *p, size_t t, const float *x, size_t ld, size_t B,
                           int has_nan, double *s, int32_t *leaf);
/* The same for one row. */
size_t gv_tree_pack_leaf(const gv_tree_pack *p, size_t t, const float *x, const grove_dataset *d,
                         size_t i);
/* Which vector walks of complete trees are used: level 2 AVX-512 (column and row-major walks),
 * 1 AVX2 (the column walk), 0 none; the CPU's best by default.  Takes the highest level at
 * most `level` the CPU has and returns it: tests compare every walk. */
int gv_tree_pack_set_simd(gv_tree_pack *p, int level);
/* Tree t of the pack (NULL for a member that is not a tree), and the number of members. */
const gv_tree *gv_tree_pack_tree(const gv_tree_pack *p, size_t t);
size_t gv_tree_pack_n(const gv_tree_pack *p);

/* Rows of a block that blocked prediction gathers at once for F features: R * F floats stay
 * within 512 KiB, R a multiple of 16, at most 4096. */
size_t gv_pack_block_rows(size_t F);
/* The same for a forest's deep trees: within 2 MiB, at most GV_PREDICT_BLOCK.  Each tree's
 * nodes (random reads) are then fetched once for more rows (read in order, prefetched): 100
 * trees of 25k nodes over 200k rows of 28 features walked in 1.65 CPU s at 512 KiB, 1.12 at
 * 2 MiB, 1.29 at 8 MiB, 2.1 at 256 KiB; fashion-MNIST's 784 features likewise. */
size_t gv_pack_block_rows_deep(size_t F);

#endif /* GV_TREE_PACK_H */
