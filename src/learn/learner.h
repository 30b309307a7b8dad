/*
 * learner.h -- the base-learner interface and the model components it produces.
 *
 * Pipeline position: learn/ (ensembles and the model container are written against this).
 * A *component* is a trained piece of a model behind a small table of functions
 * (gv_component_vt): predict one row (and, optionally, a block of rows or the first rounds),
 * write and read itself as JSON, check itself, summarize itself, free, and (optionally) write
 * itself as C code (export_c, core/cgen.h); an ensemble fills the optional report slots it has
 * (training log, margins, OOB estimate, feature importances).  A
 * *learner* fits a component on a row view with per-row weights.  Every ensemble takes any
 * learner, so "AdaBoost of perceptrons" or "bagging of networks" need no special code.  A model
 * is a tree of components (model/model.h).
 */
#ifndef GV_LEARNER_H
#define GV_LEARNER_H

#include "../core/cgen.h"
#include "../core/json.h"
#include "tree.h"

/* What a component's reader and checker may know of the model around it.  The model file's
 * reader and writer fill it; an ensemble passes it on to its members (stacking gives its
 * meta-learner a copy with the meta-features' schema).  Borrowed and read-only. */
typedef struct gv_model_ctx {
    const grove_schema *schema;   /* the features the component reads */
    const gv_bin_mapper *mappers; /* [schema->n_features]: a numeric split's threshold is a cut point */
    const char *algo;             /* the model's algorithm ("adaboost", ...) */
    const void *root;             /* the impl of the model's root component */
    int minor;                    /* the format minor version being read (components whose fields
                                   * changed form: a tree's arrays are packed from 1.1 on) */
    unsigned char *mark_used;     /* NULL, or (the writer's check) [n_features] where a tree marks
                                   * each feature a numeric split reads: only those bin mappers
                                   * are written (format 1.2) */
    unsigned char *mark_read;     /* NULL, or (the writer's check) [n_features] where a tree marks
                                   * each feature any split reads */
    uint64_t *mark_cuts;          /* NULL, or (the writer's check of a model with compact
                                   * features) a bitmap where a numeric split marks its cut point,
                                   * bit cut_offset[feature] + bin_split - 1 */
    const size_t *cut_offset;     /* [n_features + 1] with mark_cuts: the features' cuts, in order */
    int *reads_all;               /* NULL, or set to 1 by a component that reads every feature (a
                                   * linear model, an mlp, stacking's passthrough): a model with
                                   * compact features keeps only the features its splits read
                                   * when none does (model_json.c) */
} gv_model_ctx;

/* While the calling thread writes a model that keeps only some of its features
 * (model_json.c), feature f is written as map[f] (-1: dropped, never read by what is written);
 * map NULL: as itself.  Components write every feature index through gv_feature_out. */
void gv_feature_map_set(const int32_t *map);
int32_t gv_feature_out(int32_t f);
/* The map in force (NULL: none). */
const int32_t *gv_feature_map(void);
/* Likewise for the cut points a compact model's file keeps (model_json.c): a numeric split's
 * bin_split on feature f (its cut: bit offset[f] + bin_split - 1 of `bits`) is written as 1 +
 * the number of f's kept cuts before it; rank[w] counts the kept cuts in the words before w.
 * NULL bits: as itself. */
void gv_cut_map_set(const size_t *offset, const uint64_t *bits, const uint32_t *rank);
uint32_t gv_bin_split_out(int32_t feature, uint32_t bin_split);

typedef struct gv_component_vt {
    const char *kind; /* the "kind" written in model files: "tree", ... */
    /* Writes n_outputs doubles for row i of d: class probabilities (summing to 1) or a value. */
    void (*predict_row)(const void *impl, const grove_dataset *d, size_t i, double *out);
    /* A new JSON object describing the component (without "kind"); NULL when out of memory. */
    json_t *(*to_json)(const void *impl);
    /* Reads and fully validates a component; GROVE_ERR_MODEL naming the bad field on failure. */
    grove_status (*from_json)(const json_t *obj, const gv_model_ctx *ctx, void **out);
    void (*free)(void *impl);
    /* Full structural validation against the schema (what from_json checks after parsing);
     * the model writer runs it before writing.  Recursive for ensembles. */
    grove_status (*validate)(const void *impl, const grove_schema *schema);
    /* Invariants between the component and the model holding it: it produces `n_outputs`
     * values per row, and its splits agree with the model's bin mappers.  Recursive for
     * ensembles.  GROVE_ERR_MODEL naming what is wrong. */
    grove_status (*check)(const void *impl, const gv_model_ctx *ctx, size_t n_outputs);
    /* A new JSON object summarizing the component for `grove info` (size, depth, rounds...). */
    json_t *(*summary)(const void *impl);
    /* Staged prediction (optional, NULL when the component has no rounds): the number of rounds,
     * and predict_row using only the first `rounds` of them (rounds >= 1). */
    size_t (*n_rounds)(const void *impl);
    void (*predict_row_rounds)(const void *impl, const grove_dataset *d, size_t i, size_t rounds,
                               double *out);
    /* Optional batch prediction of rows [begin, end) (at most GV_PREDICT_BLOCK rows) with the
     * first `rounds` rounds (0 = all) into out[(end - begin) * n_outputs]; results equal
     * predict_row's bit for bit.  Lets a component walk each of its trees over a block of rows
     * while the tree is in cache.  NULL: rows are predicted one by one. */
    void (*predict_block)(const void *impl, const grove_dataset *d, size_t begin, size_t end,
                          size_t rounds, double *out);
    /* Optional, with predict_block: builds now, on up to n_threads threads, what predict_block
     * builds on its first call for rows of d (compiled trees), before a parallel prediction --
     * else one of its threads builds it while the others wait.  NULL: nothing to build. */
    void (*predict_prepare)(const void *impl, const grove_dataset *d, int n_threads);
    /* ---- Optional reports of an ensemble (NULL: the kind has none).  The model's entry points
     * call them through ensemble/common.c and ensemble/importance.c, which name the kinds that
     * have each when the slot is NULL; a new kind fills the slots it has, in its own file. ---- */
    /* The per-round training log as CSV text (a header line, then one line per round) into b. */
    grove_status (*log_csv)(const void *impl, gv_buf *b);
    /* Margins of the labelled rows of d (whose features match the component's) into
     * out[d->n_rows]: GROVE_ERR_ARG when this component has none (e.g. a regression model). */
    grove_status (*margins)(const void *impl, const grove_dataset *d, int n_threads, double *out);
    /* The out-of-bag estimate: the final OOB error (NaN when no row was ever out of bag) and the
     * number of rows it averages. */
    void (*oob)(const void *impl, double *error, size_t *n_rows);
    /* Feature importances of `type` ("impurity", "gain", "cover", "oob_permutation"): returns 0
     * when the component has none of that type (out and *st untouched); else fills
     * out[n_features], sets *st (GROVE_OK or the error) and returns 1. */
    int (*importance)(const void *impl, const char *type, size_t n_features, double *out,
                      grove_status *st);
    /* Optional: the output of every row in `cell` (a cell the learner reported through
     * gv_fit_cells, e.g. a tree's leaf), equal to predict_row's for such a row bit for bit. */
    void (*cell_output)(const void *impl, size_t cell, double *out);
    /* Optional: writes the component as C code into g (`grove export --lang c`, core/cgen.h):
     * its members first (gv_cgen_component), then its own function (gv_cgen_open_function), whose
     * number goes to *id; the function computes predict_row's outputs bit for bit from the row
     * as floats.  Reads g->schema for the feature names of its comments (a stacking meta-learner
     * sets it to the meta row's).  NULL: the kind cannot be exported (gv_cgen_component). */
    grove_status (*export_c)(const void *impl, gv_cgen *g, size_t *id);
} gv_component_vt;

/* Rows per predict_block call: large, so that each tree's nodes are read from memory once per
 * block and then serve its rows from cache (a 100-tree forest of 60k nodes a tree is 100 MB of
 * compiled nodes; walked over 64-row blocks it ran from memory; a forest walks blocks of up to
 * this many rows, gv_pack_block_rows_deep). */
#define GV_PREDICT_BLOCK 16384

typedef struct gv_component {
    const gv_component_vt *vt; /* static */
    void *impl;                /* owned */
} gv_component;

extern const gv_component_vt gv_tree_component; /* impl: gv_tree */

/* ---- every kind (component.c); the table of kinds and the reader of any kind are the
 * registry's (ensemble/registry.h) ---- */

void gv_component_free(gv_component *c);
/* vt->check when the kind has one (GROVE_OK otherwise); vt->summary, or {"kind": kind}. */
grove_status gv_component_check(const gv_component *c, const gv_model_ctx *ctx,
                                size_t n_outputs);
json_t *gv_component_summary(const gv_component *c);
/* gv_component_check of each of c[0..n), with "<what>[i]" prefixed to the first failure. */
grove_status gv_components_check(const gv_component *c, size_t n, const gv_model_ctx *ctx,
                                 size_t n_outputs, const char *what);
/* A new JSON object {"kind": kind, then the component's own fields}; NULL when out of memory. */
json_t *gv_component_to_json(const gv_component *c);
/* A member's JSON in one of the forms ensembles write: {"kind", fields} (gv_component_to_json),
 * {fields, "kind"} (bagging), or the fields alone (gbdt's trees, all of kind "tree"). */
enum { GV_KIND_FIRST, GV_KIND_LAST, GV_KIND_NONE };
json_t *gv_component_json(const gv_component_vt *vt, const void *impl, int kind);

/* ---- C export (core/cgen.h; component.c, tree_component.c) ---- */

/* c written as C code through its export_c slot (members first), its function's number into
 * *id.  A kind without the slot: GROVE_ERR_ARG naming the kind, and g->refused set to it (the
 * first such kind; the exporter words the message). */
grove_status gv_cgen_component(gv_cgen *g, const gv_component *c, size_t *id);
/* gv_cgen_component of members[0..n) in order, their numbers into ids[n]. */
grove_status gv_cgen_members(gv_cgen *g, const gv_component *members, size_t n, size_t *ids);

/* A tree written for a component function to walk (gv_cgen_tree): code form, the function
 * `int treeID(const float *x)` returning the leaf's node index and the node-major values
 * `treeID_value`; table form, its nodes, values and category words appended to N, V and C at
 * the offsets below. */
typedef struct gv_cgen_tree_ref {
    size_t id;
    int n_outputs;
    size_t node_off, value_off, cat_off; /* table form: offsets into N, V, C */
} gv_cgen_tree_ref;
void gv_cgen_tree(gv_cgen *g, const gv_tree *t, gv_cgen_tree_ref *ref);
/* "treeID(x)" or "walk(N + off, C + off, x)": an int expression, the leaf's node index. */
void gv_cgen_tree_leaf(const gv_cgen *g, const gv_cgen_tree_ref *t, char *buf, size_t size);
/* "treeID_value" or "(V + off)": a const double * expression, the node-major values. */
void gv_cgen_tree_values(const gv_cgen *g, const gv_cgen_tree_ref *t, char *buf, size_t size);

/* Lazy members: saving a model member by member.  While the calling thread is in lazy mode
 * (gv_component_lazy(1), which returns the previous mode), gv_component_json builds the root
 * component (the outermost call) in full but gives each component nested in it a placeholder
 * string (a NUL byte, "member N", a NUL byte -- no name holds a NUL byte) and remembers the
 * component; the writer builds member N's JSON when it reaches the placeholder
 * (gv_component_lazy_build: a new reference, NULL when out of memory), writes it and frees it,
 * so the whole document is never held; it is built with the feature map that was in force
 * when its placeholder was made (gv_feature_map_set), which the writer keeps until then.
 * gv_component_lazy_index: 1 when v is placeholder *i; gv_component_lazy_end forgets the
 * members.  The components must outlive the writing. */
int gv_component_lazy(int on);
int gv_component_lazy_index(const json_t *v, size_t *i);
size_t gv_component_lazy_count(void);
json_t *gv_component_lazy_build(size_t i);
/* Member i's record (valid until gv_component_lazy_end), and the member built from such a record
 * on any thread (the lazy state is the calling thread's, so the calling thread takes the record
 * and another may build it). */
const void *gv_component_lazy_ref(size_t i);
json_t *gv_component_lazy_build_ref(const void *ref);
void gv_component_lazy_end(void);

/* What a learner may report about the rows it was fitted on (gv_fit_input.cells): the cell of
 * every row of the data (for a tree, the leaf it fell in while growing), so that a caller that
 * needs the new component's outputs on the training rows (boosting) reads them once per cell
 * (vt->cell_output) instead of predicting every row again.  The caller gives `cell` and clears
 * `impl`; a learner that fits on all rows (no row view) may fill cell[0..data->n_rows) and then
 * sets impl to the impl of the component it returns (a learner that wraps others must not
 * pass the struct on unchanged: the caller trusts the cells only when impl is its component's)
 * and n_cells (every cell[i] < n_cells).  Learners that report nothing leave impl NULL. */
typedef struct gv_fit_cells {
    uint32_t *cell;   /* [data->n_rows], the caller's */
    const void *impl; /* set by the learner: whose cells these are (NULL: none reported) */
    size_t n_cells;   /* set by the learner */
} gv_fit_cells;

/* What a learner may hand back about the rows it was fitted on (gv_fit_input.pred): the new
 * component's outputs on every row of the data, when it has them at hand from training (gbdt:
 * its training scores), bit-identical to what its prediction would write for those rows (the
 * same sums in the same order), so that a caller that wants them (the train summary's metrics)
 * need not predict every row again.  The caller gives `out` ([data->n_rows * outputs], the
 * layout of grove_model_predict) and clears `impl`; a learner that fits on all rows (no row
 * view) may fill out and then sets impl to the impl of the component it returns (as with
 * gv_fit_cells, the caller trusts out only when impl is its component's; a learner that wraps
 * others clears pred in the inputs it passes on, so no member writes the caller's out).  Learners that report nothing leave impl NULL. */
typedef struct gv_fit_pred {
    double *out;      /* [data->n_rows * outputs], the caller's */
    const void *impl; /* set by the learner: whose outputs these are (NULL: none reported) */
} gv_fit_pred;

/* What a learner is fitted on: a view of rows, weights and targets by ORIGINAL row number. */
typedef struct gv_fit_input {
    const grove_dataset *data;  /* raw values (learners that do not use bins read these) */
    const gv_binned *binned;    /* the same rows binned (tree learners) */
    const uint8_t *row_bins;    /* optional: binned's 8-bit bins row-major (gv_binned_row_major),
                                   for the tree learners' histograms (gv_tree_input.row_bins) */
    const size_t *rows;         /* [n_rows] row numbers (may repeat); NULL = all rows */
    size_t n_rows;
    const double *weight;       /* [data->n_rows] or NULL (all 1) */
    const double *y;            /* [data->n_rows]: class index (classification) or target */
    int n_classes;              /* K >= 2, or 0 for regression */
    const grove_params *params;
    int n_threads;
    const grove_dataset *valid; /* validation rows (early stopping) or NULL; ensembles only */
    const double *mislabel;     /* AdaBoost.M2: [data->n_rows * n_classes] the mislabel
                                   distribution q(i, y) (0 at y = y_i), or NULL; tree learners
                                   then grow the tree that minimizes the pseudo-loss
                                   (criterion pseudo, the default under M2) */
    gv_fit_cells *cells;        /* optional output: the training rows' cells (see above), or
                                   NULL */
    gv_fit_pred *pred;          /* optional output: the outputs on the training rows (see
                                   above), or NULL */
    int weights_checked;        /* 1: the caller knows every weight[r] is finite and >= 0
                                   (boosting's own weights: its update pass checks them) */
    const struct gv_component *init; /* continued training (gbdt): the saved model's root,
                                   whose rounds the new model starts with, or NULL; borrowed */
    int labels_checked;         /* 1: an earlier fit of this learner on all the rows of data
                                   (no row view) accepted y, so it need not be checked again
                                   (boosting's later rounds) */
} gv_fit_input;

typedef struct gv_learner {
    const char *name;
    grove_status (*fit)(const gv_fit_input *in, gv_rng *rng, gv_component *out);
} gv_learner;

/* The tree-shaped learners (learners.c): CART, ID3, a stump.  Every learner of the build, by
 * name, is in the registry (ensemble/registry.h: gv_learner_find). */
grove_status gv_fit_tree(const gv_fit_input *in, gv_rng *rng, gv_component *out);
grove_status gv_fit_id3(const gv_fit_input *in, gv_rng *rng, gv_component *out);
grove_status gv_fit_stump(const gv_fit_input *in, gv_rng *rng, gv_component *out);

/* Builds the tree-engine configuration for learner `name` from the parameters; errors name the
 * parameter (e.g. criterion=variance for a classification task). */
grove_status gv_tree_config_from_params(const char *name, const grove_params *params,
                                        int n_classes, int n_threads, size_t n_features,
                                        gv_tree_config *cfg);

#endif /* GV_LEARNER_H */
