/*
 * tree.h -- the one histogram tree engine, and the tree it grows.
 *
 * Pipeline position: learn/ (reads bin/'s gv_binned; ensembles call it).
 * Every tree-shaped learner (stump, CART, ID3, forest trees, gradient-boosted trees) grows its
 * tree here.  Only the per-row *statistics* differ between callers:
 *   GV_STATS_CLASS  weighted class counts       (gini, entropy)      leaf value: class probabilities
 *   GV_STATS_REG    sum w, sum w*y, sum w*y^2    (variance)           leaf value: weighted mean
 *   GV_STATS_GRAD   sum g, sum h                 (Newton, lambda/alpha) leaf value: -T(G)/(H+lambda)
 * AdaBoost.M2's pseudo-loss criterion (GV_SPLIT_PSEUDO) runs on CLASS statistics with 2M slots:
 * slot y < M holds A_y = sum D(i) over rows with y_i = y, slot M + y holds B_y = sum D(i) q(i, y)
 * over rows with y_i != y (learners.c makes one row copy per slot); see split.c.
 * Histograms hold, per bin, the row count followed by the statistics; a node's best split is a
 * scan of its histograms; the smaller child's histograms are built from rows and the larger
 * child's are parent minus sibling.
 *
 * Split semantics (also used by prediction on raw values; see gv_tree_leaf):
 *   NUM      x <= threshold goes left (binned: bin <= bin_split); missing -> default side.
 *   CAT_SET  category code c goes left iff bit c of the node's set is 1; missing, or a code the
 *            set does not cover -> default side.
 *   CAT_MULTI one child per category: child = child_map[c]; missing, or a category without
 *            training rows at this node -> the default child.
 *
 * Determinism: with the same inputs and rng state the tree is bit-identical for any n_threads
 * (threads split work by feature or by fixed row blocks, and sums run in a fixed order).
 */
#ifndef GV_TREE_H
#define GV_TREE_H

#include "../bin/bin.h"

typedef enum gv_stats_kind { GV_STATS_CLASS = 0, GV_STATS_REG = 1, GV_STATS_GRAD = 2 } gv_stats_kind;

typedef enum gv_split_criterion {
    GV_SPLIT_GINI = 0,
    GV_SPLIT_ENTROPY = 1,
    GV_SPLIT_VARIANCE = 2,
    GV_SPLIT_NEWTON = 3,
    GV_SPLIT_PSEUDO = 4  /* CLASS statistics over 2M "classes": A_0..A_{M-1}, B_0..B_{M-1} */
} gv_split_criterion;

typedef struct gv_tree_config {
    gv_stats_kind stats;
    gv_split_criterion criterion;
    int n_classes;            /* GV_STATS_CLASS: K >= 2 */
    int max_depth;            /* 0 = no limit */
    size_t max_leaves;        /* 0 = no limit */
    int best_first;           /* 0: depth-wise; 1: split the leaf with the largest gain first */
    size_t min_samples_leaf;  /* >= 1 */
    size_t min_samples_split; /* >= 2 */
    double min_weight_leaf;   /* sum of w (CLASS, REG) or of h (GRAD, = min_child_weight) */
    double min_gain;          /* minimum gain (impurity decrease, or Newton gain - gamma) */
    double lambda, alpha;     /* GRAD: L2 and L1 on leaf values */
    /* GRAD, categorical partitions (LightGBM's regularization; 0 = off, the plain order by
     * G/(H+lambda) over every category): order by G/(H+cat_smooth) the categories with at least
     * cat_smooth rows; try the left sets of at most max_cat_threshold categories from either end
     * of the order, each only after min_data_per_group more rows; children's gain with
     * lambda+cat_l2. */
    double cat_smooth, cat_l2;
    size_t max_cat_threshold, min_data_per_group;
    int multiway_categorical; /* 1: CAT_MULTI (ID3); 0: CAT_SET partitions */
    size_t max_features;      /* candidates drawn per node; 0 or >= n_features = all */
    int n_threads;            /* >= 1 */
    int random_thresholds;    /* 1: extra-trees (Geurts, Ernst & Wehenkel 2006): each candidate
                                 feature of a node gets ONE split point drawn at random (numeric:
                                 a threshold uniform between the node's smallest and largest
                                 value, at bin resolution; categorical partition: a random cut of
                                 the ordered categories), and the best of those wins; needs rng */
    const uint8_t *feature_mask; /* [n_features] or NULL: only features with a non-zero entry are
                                    candidates (per-tree column sampling of gbdt); max_features
                                    then draws from those */
    int dist;                    /* 1: the rows are this rank's share of a data-parallel run
                                    (dist/): node totals and histograms are summed over the
                                    ranks (GRAD and CLASS; the caller makes the sums exact:
                                    statistics on dist.h's common grid), and
                                    every decision reads those global sums, never local counts */
    /* GRAD only, both NULL/0 = off (XGBoost's semantics; see split.c and docs/algorithms.md).
     * monotone[f] in {-1, 0, 1}: the leaf values of the tree do not decrease (1) or increase (-1)
     * with feature f (numeric features only).  Every node carries bounds [lo, hi] on its value;
     * a split on f is taken only when its children's clipped values respect the direction,
     * the children's bounds meet at mid = (w_left + w_right) / 2, values are clipped to the
     * bounds and gains are computed with the clipped values. */
    const int8_t *monotone;      /* [n_features] or NULL */
    /* Interaction constraints: igroups[f] has bit g set iff feature f is in group g (at most 64
     * groups).  The root may split on any feature; a node below may split on the features of
     * its path and those of every group that holds all of them. */
    const uint64_t *igroups;     /* [n_features] or NULL */
} gv_tree_config;

/* Fills `cfg` with defaults for `stats` (depth-wise, no limits, min_samples_leaf 1, ...). */
void gv_tree_config_default(gv_tree_config *cfg, gv_stats_kind stats, int n_classes);

/* A row number of the binned matrix in the engine's row lists (4 bytes: half the traffic of
 * size_t when rows are partitioned and histograms built; gv_tree_fit refuses matrices of more
 * than UINT32_MAX rows). */
typedef uint32_t gv_row;

/* Row buffers and histogram buffers a caller keeps across gv_tree_fit calls on the same rows
 * (gradient boosting grows hundreds of trees: without it every tree allocates, and the kernel
 * zeroes, tens of MB of rows and hundreds of MB of histograms -- measured 12% of a 63-leaf
 * gbdt's time on fashion-MNIST in page faults).  Zero-initialize, pass as
 * gv_tree_input.scratch (one fit at a time), free with gv_tree_scratch_free. */
typedef struct gv_tree_scratch {
    gv_row *idx, *tmp;     /* [cap] */
    double *ns;            /* [cap_ns] */
    double *ns_tmp;        /* [cap_ns_tmp] */
    uint64_t *qrec, *qrec_tmp; /* [cap_qrec] */
    int32_t *ncls;         /* [cap] or NULL */
    size_t cap, cap_ns, cap_ns_tmp, cap_qrec, cap_ncls;
    double **hists;        /* [n_hists] free histogram buffers of hist_len doubles each, owned */
    size_t n_hists, hist_len;
    void *roots_mem;       /* gv_hist_roots_grad's work memory, [cap_roots] 32-byte vectors */
    size_t cap_roots;
} gv_tree_scratch;
void gv_tree_scratch_free(gv_tree_scratch *s);
/* The scratch's position buffer for a GRAD fit on n rows without a row list, grown to 2 n
 * floats (contents not kept), for the caller to write every row's (g, h) at [2 r], [2 r + 1]
 * before a fit with gv_tree_input.gh_in_ns; NULL when out of memory. */
float *gv_tree_scratch_gh(gv_tree_scratch *s, size_t n);

/* Quantized gradient trees on sparse data (gv_row_nz_build, hist.c): every row's bins except
 * those in its feature's most frequent bin where that holds at least GV_NZ_MIN_MODE of the rows
 * (the zeros of pixels), in groups of GV_NZ_GROUP features, each group's rows one after
 * another; an integer histogram then adds only these and takes the frequent bin's record from
 * the node's total (exact: integers).  The entries of row r in group g are
 * ent[off[g (n_rows + 1) + r] .. off[g (n_rows + 1) + r + 1]), each bin b of feature f as the
 * record index sum_{64 g <= f' < f} n_bins(f') + b. */
#define GV_NZ_GROUP 64
#define GV_NZ_MIN_MODE 0.125
typedef struct gv_row_nz {
    size_t n_groups; /* ceil(n_features / GV_NZ_GROUP) */
    uint32_t *off;   /* [n_groups * (n_rows + 1)] */
    uint16_t *ent;
    uint16_t *skip;  /* [n_features] the bin left out, or 256 (none) */
} gv_row_nz;
/* *out: NULL without bin counts (bin.h root_count: few rows), when the entries are more than
 * GV_NZ_MAX_FILL of the bins, or when memory is short (an optimization only). */
#define GV_NZ_MAX_FILL 0.75
grove_status gv_row_nz_build(const gv_binned *X, const uint8_t *row_bins, int n_threads,
                             gv_row_nz **out);
void gv_row_nz_free(gv_row_nz *z);

/* Root histograms built outside the tree (gbdt: the K class trees of a round in one pass over
 * the rows, hist.c).  A GRAD histogram over all features of X: feature f's bins at
 * 3 * sum_{f' < f} n_bins(f'), (count, g, h) each; gv_hist_len_grad doubles. */
size_t gv_hist_len_grad(const gv_binned *X);
/* Whether gv_hist_roots_grad takes X and row_bins (8-bit dense bins with root counts). */
int gv_hist_roots_ok(const gv_binned *X, const uint8_t *row_bins, size_t K);
/* out[c] (c < K, gv_hist_len_grad doubles each) gets the root histogram over every row of X of
 * the statistics grad + c n_rows, hess + c n_rows -- bit for bit what gv_tree_fit builds for
 * the root of a tree on every row with row_bins and no quantized gradients.  ws (optional)
 * keeps the work memory for the next call. */
grove_status gv_hist_roots_grad(const gv_binned *X, const uint8_t *row_bins, const double *grad,
                                const double *hess, size_t K, int n_threads,
                                gv_tree_scratch *ws, double *const *out);
/* A histogram buffer of len doubles: one of the scratch's free ones when their length is len,
 * else a new one; NULL without memory.  (For gv_tree_input.root_hist.) */
double *gv_tree_scratch_hist(gv_tree_scratch *s, size_t len);

/* What a tree is grown on: a view of rows of a binned matrix, and per-row statistics indexed by
 * the ORIGINAL row number (so ensembles pass index views, not copies). */
typedef struct gv_tree_input {
    const gv_binned *X;
    const size_t *rows;    /* [n_rows] row numbers into X (may repeat); NULL = all rows 0..X->n_rows-1 */
    size_t n_rows;
    const double *weight;  /* [X->n_rows] or NULL (all 1); CLASS and REG */
    const double *y;       /* [X->n_rows]: class index (CLASS) or target (REG) */
    const double *grad;    /* [X->n_rows] GRAD: float values (gbdt rounds them so; one process,
                              the engine holds them as floats, tree_int.h's gv_gh) */
    const double *hess;    /* [X->n_rows] GRAD, likewise */
    const uint8_t *row_bins; /* optional, 8-bit bins: X's bins row-major
                                ([X->n_rows * X->n_features], gv_binned_row_major); GRAD
                                histograms, and the small nodes of trees with a feature subset
                                per node, then read rows (faster, same sums) */
    const gv_bundles *bundles; /* optional, with row_bins: X's feature bundles (gv_bundles_build) */
    const uint8_t *row_bund; /* with bundles: X's bundled rows (gv_bundles_row_major); GRAD
                                histograms of every feature from row_bins then read these, one
                                addition per bundle instead of one per member feature, and each
                                member's histogram is the bundle's marginal (hist.c) */
    const int32_t *qgh;    /* optional, GRAD: [2 * X->n_rows] the rows' gradient and hessian as
                              integers, g ~ qgh[2 r] qscale[0], h ~ qgh[2 r + 1] qscale[1], with
                              |qgh| * X->n_rows < 2^31.  With row_bins, one process and no
                              feature subset per node, splits are searched on integer
                              histograms of these (Shi et al. 2022); node totals and leaf
                              values still come from grad and hess.  Ignored otherwise. */
    double qscale[2];
    int32_t qmax[2];       /* optional, with qgh: bounds on every |qgh[2 r]| and on every
                              qgh[2 r + 1] >= 0 that the caller guarantees (gbdt: its levels),
                              sparing gv_tree_fit its pass over the rows to find them (the
                              record layout may then differ; the integers, so the trees, do
                              not); {0, 0}: that pass */
    const gv_row_nz *row_nz; /* optional, with qgh: the sparse rows (gv_row_nz_build) */
    uint32_t *leaf_of_row; /* optional [X->n_rows]: on success, every row of the view gets the
                              id of the leaf it fell in (other entries are left alone) */
    gv_tree_scratch *scratch; /* optional: row buffers reused across fits */
    double *root_hist;     /* optional, GRAD on every row of X (rows NULL) with row_bins and no
                              qgh: the root's histogram as gv_hist_roots_grad gives it
                              (gv_tree_scratch_hist's buffer); gv_tree_fit takes it over on
                              every return (keeps it in scratch or frees it), and uses it
                              instead of building the root's when it would build that one
                              with build_rows_grad (one process, no quantized histograms) */
    int w_checked;         /* CLASS, REG: 1 when the caller knows that every weight[r] is finite
                              and >= 0 (the rows' weights are then not read to check them) */
    int y_checked;         /* CLASS without rows: 1 when the caller knows that every y[r] is a
                              class index in [0, n_classes) (an earlier fit on the same labels
                              accepted them), so that only the weights are checked */
    int gh_checked;        /* GRAD: 1 when the caller knows that every grad[r] is finite and
                              every hess[r] finite and >= 0, for all rows of X (gbdt: checked
                              while they were computed), so they are not read again */
    int gh_in_ns;          /* GRAD without rows, qgh or dist, with scratch and gh_checked: the
                              rows' (g, h) are in gv_tree_scratch_gh's buffer (written by the
                              caller for this fit; the fit overwrites it), and grad and hess
                              are not read (may be NULL) -- the root's copy of them spared */
    struct gv_plan *plan_out; /* optional: gets the fit's plan (plan.h), for a verbose display */
} gv_tree_input;

enum { GV_NODE_LEAF = 0, GV_NODE_NUM = 1, GV_NODE_CAT_SET = 2, GV_NODE_CAT_MULTI = 3 };

typedef struct gv_tree_node {
    int32_t feature;       /* -1 for a leaf */
    uint8_t type;          /* GV_NODE_* */
    uint8_t default_left;  /* NUM, CAT_SET: missing goes left (1) or right (0) */
    uint16_t depth;        /* root = 0 */
    uint32_t bin_split;    /* NUM: left iff bin <= bin_split (1 <= bin_split < n_bins) */
    float threshold;       /* NUM: left iff x <= threshold */
    int32_t left, right;   /* NUM, CAT_SET: children; CAT_MULTI: right = the default child */
    uint32_t cat_begin;    /* CAT_SET: first word of the bitset in cat_data;
                              CAT_MULTI: first entry of the child map in cat_data */
    uint32_t cat_len;      /* CAT_SET: words in the bitset; CAT_MULTI: entries (= categories) */
    double gain;           /* split gain (0 for leaves) */
    double weight;         /* sum of w (or h) of the training rows in the node */
    double count;          /* training rows in the node */
} gv_tree_node;

typedef struct gv_tree {
    size_t n_nodes;
    gv_tree_node *nodes;   /* [n_nodes], nodes[0] = root; owned */
    int n_outputs;         /* K (class probabilities) or 1 */
    double *values;        /* [n_nodes * n_outputs]: the value every node would predict as a leaf */
    size_t n_cat_data;
    uint32_t *cat_data;    /* bitsets (CAT_SET) and child maps (CAT_MULTI; UINT32_MAX = none); owned */
} gv_tree;

/* Grows a tree.  `rng` (may be NULL when max_features selects all) draws the per-node feature
 * subsets.  New tree in *out, free with gv_tree_free. */
grove_status gv_tree_fit(const gv_tree_config *cfg, const gv_tree_input *in, gv_rng *rng,
                         gv_tree **out);
void gv_tree_free(gv_tree *t);

/* The leaf index reached by row i of raw dataset d (same feature layout as the training data). */
size_t gv_tree_leaf(const gv_tree *t, const grove_dataset *d, size_t i);
/* The child that split node `node` of t sends raw value x of its feature to (NaN: missing),
 * as gv_tree_leaf's walk does. */
size_t gv_tree_child(const gv_tree *t, size_t node, float x);
/* The leaf index reached by row i of binned matrix b. */
size_t gv_tree_leaf_binned(const gv_tree *t, const gv_binned *b, size_t i);
/* The leaf of tree t reached by binned row i, except that feature f is read from row j
 * (permutation importance on binned rows; tree_predict.c). */
size_t gv_tree_leaf_binned_swap(const gv_tree *t, const gv_binned *b, size_t i, size_t f,
                                size_t j);
/* Number of leaves, and the depth of the deepest leaf. */
size_t gv_tree_n_leaves(const gv_tree *t);
/* max |values[k]| over every node and output: a bound on what the tree predicts for any row (a
 * row stops at a leaf, or at an inner node with the value it would predict as a leaf). */
double gv_tree_max_abs_value(const gv_tree *t);
int gv_tree_depth(const gv_tree *t);
/* Checks every structural invariant of a tree (children in range and after their parent, no
 * cycles, cat ranges inside cat_data, features < n_features, finite thresholds, values finite);
 * used by the model loader.  GROVE_ERR_MODEL with a message naming the node on failure. */
grove_status gv_tree_validate(const gv_tree *t, const grove_schema *schema);

/* XGBoost's pruner (gamma = min_split_loss, in XGBoost's units: twice the engine's gain):
 * bottom-up, a split whose two children are leaves and whose 2 gain < gamma becomes a leaf,
 * repeatedly; the tree is then compacted (children still after their parents).  *changed_out:
 * whether any node changed (then node numbers, so leaf ids, did).  gamma <= 0: nothing. */
grove_status gv_tree_prune(gv_tree *t, double gamma, int *changed_out);

/* A tree session (tree_session.c): the engine's layouts for many GRAD trees on one binned matrix
 * X (row-major bins, feature bundles, sparse rows, quantized gradients, scratch, a round's root
 * histograms), prepared once; gradient boosting hands it each tree's gradients and gets the
 * tree back.  One fit at a time; not shared between threads. */
typedef struct gv_tree_session gv_tree_session;
typedef struct gv_tree_session_opts {
    int n_threads;      /* >= 1 */
    int quantized_bits; /* 0 (off) or in [2, 8]: reduced while X->n_rows (2^B - 1) >= 2^31 */
    int every_feature;  /* 1: every tree offers every feature at every node (feature bundles) */
    int dist;           /* 1: a data-parallel run (no bundles, no round roots) */
} gv_tree_session_opts;
/* New session on X (borrowed: must outlive it) in *out; free with gv_tree_session_close. */
grove_status gv_tree_session_open(const gv_binned *X, const gv_tree_session_opts *o,
                                  gv_tree_session **out);
void gv_tree_session_close(gv_tree_session *s); /* NULL: nothing */
/* The session's row-major bins (gv_tree_input.row_bins: what ensembles of CLASS or REG trees
 * hand their members through gv_fit_input), NULL where a bin takes 16 bits. */
const uint8_t *gv_tree_session_row_bins(const gv_tree_session *s);
/* quantized_bits in effect (0: off), and whether the trees search quantized histograms (then
 * gv_tree_session_quantize before each fit). */
int gv_tree_session_qbits(const gv_tree_session *s);
int gv_tree_session_quantized(const gv_tree_session *s);
/* The buffer for every row's (g, h) at [2 r], [2 r + 1] before a fit with gh_in_ns
 * (gv_tree_scratch_gh on X's rows); NULL without memory. */
float *gv_tree_session_gh(gv_tree_session *s);
/* Rounds the next tree's grad, hess ([X->n_rows] each) to the session's integers, stochastically
 * from the stream (seed, GV_STREAM_GBDT_QUANT, tree << 24 | block); only where
 * gv_tree_session_quantized. */
void gv_tree_session_quantize(gv_tree_session *s, const double *grad, const double *hess,
                              uint64_t seed, uint64_t tree);
/* Starts a round of G trees on grad + g n, hess + g n (g < G, n = X->n_rows): where
 * every_row_feature (every tree on every row and every feature) and the layouts allow, their
 * root histograms in one pass, each taken by the fit of its group. */
void gv_tree_session_round(gv_tree_session *s, const double *grad, const double *hess, size_t G,
                           int every_row_feature);
/* gv_tree_fit with the session's layouts: the caller fills in's rows, n_rows, grad, hess,
 * gh_checked, gh_in_ns and leaf_of_row; the session the rest (group: the tree's index in the
 * round, for its root histogram). */
grove_status gv_tree_session_fit(gv_tree_session *s, const gv_tree_config *cfg, gv_tree_input *in,
                                 size_t group, gv_rng *rng, gv_tree **out);
/* One line describing the plan of the session's first tree (plan.h's gv_plan_describe) into buf
 * of n bytes; "" before any tree. */
void gv_tree_session_plan(const gv_tree_session *s, char *buf, size_t n);

#endif /* GV_TREE_H */
