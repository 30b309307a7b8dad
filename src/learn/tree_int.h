/*
 * tree_int.h -- private to the tree engine: the engine's state (gv_engine) and what its rooms
 * share -- tree*.c grow (grow_int.h), hist*.c build histograms (hist_int.h), split.c searches
 * splits, plan.c chooses the code paths.  Outside the engine only the tests include it
 * (ensembles reach the engine through tree.h; gbdt's layouts are tree_session.c's).
 *
 * Histogram layout: a node's histogram is one array of hist_len doubles; feature f occupies
 * hist_off[f] .. hist_off[f] + n_bins(f) * S, bin b of f at hist_off[f] + b * S, and a bin
 * record is S = 1 + n_stats doubles: the (unweighted) row count, then the statistics
 *   CLASS  w_0 .. w_{K-1}         (weighted class counts)
 *   REG    w, w (y - c), w (y - c)^2   (c = the root's weighted mean: centring keeps the
 *                                  variance terms accurate; gains do not depend on c)
 *   GRAD   g, h           (24 bytes a record: hist.c adds the count and then (g, h) as
 *                          one 128-bit vector)
 * A node's totals use the same record layout and are summed over its rows in row order.
 * Quantized gradients (gv_tree_input.qgh, e->quant): a GRAD record is instead integers, bin b
 * of f at byte quant * (hist_off[f] / 3 + b) of the same buffer (gv_qhist):
 *   quant = 8:  one 64-bit word  g << qsh_g  +  h << qsh_h  +  count  (mod 2^64), when the
 *               tree's rows n and the largest |g|, h fit: bits(n) + bits(n max h) +
 *               1 + bits(n max |g|) <= 64 (fields never carry into each other; g decodes by an
 *               arithmetic shift) -- a third of the doubles' bytes;
 *   quant = 16: four int32 (count, g, h, 0), otherwise.
 * Rows add exactly, so subtraction (wrapping, for the packed word) is exact too; the split
 * search decodes each feature into doubles (count, g qscale[0], h qscale[1]) and scans them
 * against the node's integer totals.
 *
 * Tie-breaking (mirrored by the naive tree of tests/test_tree.c):
 *  - a candidate's gain is score(children) - score(parent) (see split.c) and carries the
 *    rounding tolerance tol = GV_TREE_TIE_REL * (|score(parent)| + sum |score(child)|);
 *  - a candidate is valid iff the children meet the limits, gain > min_gain and gain > tol;
 *  - within a feature, candidates are visited in order (numeric and partitions: split point
 *    ascending, and at each point missing-right before missing-left; multiway: default
 *    child by category code ascending), and a later one replaces the best so far only if its
 *    gain exceeds the best's by more than its tol;
 *  - the per-feature winners are then combined the same way in feature-index order.
 * So among splits whose gains agree to rounding, the first feature, lowest bin, missing-right
 * wins, whatever order the sums were accumulated in (histogram subtraction or not).
 */
#ifndef GV_TREE_INT_H
#define GV_TREE_INT_H

#include "plan.h"
#include "tree.h"

/* Relative rounding tolerance on gains (see above).  Sums are exact to ~1e-16 relative;
 * subtraction and 65535-bin prefixes lose a few more digits; 1e-10 stays far below any
 * gain that means something. */
#define GV_TREE_TIE_REL 1e-10

/* A split candidate (the best of a feature, or of a node). */
typedef struct gv_split {
    double gain;          /* score(children) - score(parent) */
    double tol;           /* its rounding tolerance */
    int32_t feature;      /* -1: no valid split */
    uint8_t type;         /* GV_NODE_NUM, GV_NODE_CAT_SET, GV_NODE_CAT_MULTI */
    uint8_t default_left; /* NUM, CAT_SET */
    uint32_t bin;         /* NUM: bin_split; CAT_MULTI: code of the default child */
    uint32_t cat_len;     /* words of the bitset: CAT_SET left set, CAT_MULTI present codes */
    size_t cat_off;       /* where the bitset is: per-feature scratch during the search, then
                             engine->cat_pool */
} gv_split;

/* A present category and its ordering key (binary partitions). */
typedef struct gv_catkey {
    double key;
    uint32_t code;
} gv_catkey;

/* Per-thread scratch of the split search. */
typedef struct gv_split_scratch {
    double *acc;          /* 4 * S doubles */
    double *qconv;        /* quantized: one feature's histogram as doubles (3 * max_bins) */
    double *sub;          /* CLASS, GRAD: three more histograms of one feature (3 * max_bins * S) */
    gv_catkey *keys;      /* [max_categories] */
    void *grad4_mem;      /* hist.c, build_rows_grad: its 32-byte records (grown as needed) */
    double *grad4;        /* (grad4_mem aligned to 32 bytes) */
    size_t grad4_cap;     /* records */
} gv_split_scratch;

/* A row's (g, h) as ns holds them in one process (gv_engine.ns_pos): floats, as gbdt's
 * objectives round them (loss/objective.c), moved as one 8-byte unit; every sum of them is
 * taken in double.  (Data-parallel trees gather doubles instead: their common grid, dist.h.) */
typedef struct gv_gh {
    float g, h;
} gv_gh;

/* The engine: one per gv_tree_fit call, owns all training scratch. */
typedef struct gv_engine {
    const gv_tree_config *cfg;
    const gv_tree_input *in;
    const gv_binned *X;
    size_t n_features;
    size_t K;               /* classes (CLASS), else 0 */
    size_t S;               /* doubles per bin record */
    double shift;           /* REG: c, subtracted from y */
    double *reg;            /* REG in a data-parallel run (cfg->dist): [3 * X->n_rows] every
                               view row's w, w d, w d^2 (d = y - c) on grids common to all
                               ranks (tree.c, reg_stats_dist); else NULL */
    int quant;              /* GRAD: 0, or the bytes (8, 16) of an integer record (see above) */
    unsigned qsh_h, qsh_g;  /* quant 8: the shifts of the h and g fields */
    uint64_t *qpk;          /* quant 16: [hist_len / 3] packed words (the quant 8 layout, at
                               shifts qpk_sh_h, qpk_sh_g), where hist.c sums chunks of at most
                               qpk_max rows before adding them to the quant 16 records (exact:
                               the same integers); NULL: not even 4095 rows fit a word */
    size_t qpk_max;
    unsigned qpk_sh_h, qpk_sh_g;
    int nt;                 /* threads */
    gv_plan plan;           /* the tree's code paths (plan.c, gv_plan_choose) */

    size_t *hist_off;       /* [n_features] */
    size_t hist_len;        /* doubles per node histogram */
    size_t max_feature_bins; /* the largest n_bins of any feature */
    double *root_total;     /* CLASS, GRAD: [S] the statistics of all rows, while the root's
                               histograms are built (sparse features derive a bin from it) */

    /* Rows: idx[begin, end) are the rows of a node; ns (and ncls) hold, at the same
     * positions, the gathered statistics of those rows while a histogram is built. */
    size_t n;               /* rows in the view */
    gv_row *idx, *tmp;      /* idx, tmp, ns, ncls: borrowed from in->scratch when given */
    double *ns;             /* [n * gv_ns_stride()]: CLASS w; REG w, wy, wyy; GRAD g, h (with
                               ns_pos gv_gh floats, [n] of them: half the buffer) */
    int ns_pos;             /* GRAD, one process: ns holds the (g, h) of every position [0, n)
                               at all times -- gathered once for the root, then moved with the
                               rows by every partition (sequential reads of the parent's range
                               instead of gathers from grad[r], hess[r]), so no node gathers;
                               gathered_begin/end are then unused.  Quantized trees only with
                               q_pos. */
    double *ns_tmp;         /* ns_pos: [n] gv_gh, the partition's staging of ns (as tmp of idx) */
    int q_pos;              /* quantized, with 8-byte records (hist.c's QF_WORD, QF_CHUNK) and no
                               sparse rows: qrec holds every position's record, kept in
                               position order like ns (then ns_pos too: ns has the exact (g, h)
                               that the node totals are summed from) */
    uint64_t *qrec, *qrec_tmp; /* q_pos: [n] */
    /* ns_pos: the rows (and their (g, h), records) of a node of depth d are in set d % 2 of
     * these buffers, at the node's positions: a partition moves them from the parent's set
     * straight to their places in the other (no copy back); idx, ns, qrec point at the set of
     * the depth being worked on and tmp, ns_tmp, qrec_tmp at the other (tree.c, at_depth).  A
     * node's positions in the other set are free: only its ancestors used them. */
    gv_row *rbuf[2];
    double *nsbuf[2];
    uint64_t *qbuf[2];
    size_t gathered_begin, gathered_end; /* ns already holds positions [begin, end) (a child
                                            whose totals were summed from it, tree.c); else
                                            equal */
    int gathered_fmt;       /* quantized: the records ns holds (hist.c's quant_format) */
    int32_t *ncls;          /* CLASS: [n] class of the row at each position */
    double *rmul;           /* CLASS, unweighted, a sorted row list with repeats (a bootstrap):
                               [X->n_rows] how often row r is listed; the rows are then listed
                               once each (n = distinct rows), and a position counts rmul[r]
                               rows, its weight is rmul[r] and its record's count too (the same
                               integers, so the same sums, as the repeated rows; tree.c);
                               else NULL */
    double *part;           /* [(n / ROW_BLOCK + 1) * S] per-block partial sums */
    double *root_fuse;      /* the root's build (tree.c, grow): non-NULL (zeroed partial sums,
                               root_fuse_rb rows a block), the build of the block of columns
                               that starts at 0 also fills idx[i] = i and sums each block of
                               positions' (count, g, h) from ns into it, as pos_init_sums does,
                               and sets *root_fused (the root's builds read no idx) */
    size_t root_fuse_rb;
    int *root_fused;
    size_t *block_left;     /* [3 * (n / PART_BLOCK + 1 + nt)] per-block partition bookkeeping */

    /* Small nodes of a tree with per-node feature sampling (forests) on dense 8-bit bins:
     * `clean` is a histogram kept all zero between nodes, and touched[4 f .. 4 f + 3] the bins
     * of feature f that the node's rows hit (bit b of word b / 64), so that a node of a few
     * rows costs its rows, not a zeroing and a scan of every bin (gv_hist_build_touched,
     * gv_hist_clean; split.c's numeric scan visits only the touched bins).  NULL otherwise. */
    double *clean;
    uint64_t *touched;        /* [4 * n_features] */
    size_t *touched_off;      /* [n_features] where feature f's records are in `clean`: its
                                 hist_off, or with a feature subset per node its candidate
                                 slot k * touched_slot (the node's candidates share mf slots,
                                 so the bins they hit stay in cache from node to node) */
    size_t touched_slot;      /* doubles a slot (0: no slots, touched_off = hist_off) */
    int use_touched;          /* 1 while a node's histogram is `clean` */

    /* Histogram pool: free buffers for reuse, and how many nodes keep one. */
    double **free_hists;
    size_t n_free, cap_free;
    size_t n_kept, max_kept;

    /* Split search: per-feature winners and their bitsets, per-thread scratch. */
    gv_split *fbest;        /* [n_features] */
    size_t *fbits_off;      /* [n_features] word offsets into fbits */
    uint32_t *fbits;
    gv_split_scratch *scratch; /* [nt] */
    size_t max_categories;

    /* Extra-trees (cfg->random_thresholds): the node's uniform draws in [0, 1), one per
     * candidate, by candidate position; drawn in the calling thread before the search. */
    double *rand_u;         /* [n_features] */

    /* Bitsets of the nodes' chosen splits (until the split is applied). */
    uint32_t *cat_pool;
    size_t n_cat_pool, cap_cat_pool;

    /* Compressed-row binned matrices (bin.h, X->csr_ptr): a node's histograms are built by
     * walking its rows' stored entries, and only the features met there (sp_feats, ascending)
     * are candidates: any other feature has all the node's rows in its default bin, so no
     * split.  sp_seen/sp_cand hold the epoch of the last node that met/offered a feature. */
    uint32_t *sp_seen, *sp_cand; /* [n_features] */
    int32_t *sp_feats;           /* [n_features] */
    uint32_t *sp_slot;           /* [n_features] the feature's place in sp_feats when met */
    double *sp_acc;              /* [n_features * S] per slot: the sum of its non-default bins */
    uint32_t sp_epoch;
    /* By column (few candidates): the node's positions of row r are sp_head[r], then
     * sp_next[p] .. (SIZE_MAX ends; a bootstrap repeats rows), valid when sp_rseen[r] is the
     * node's epoch. */
    size_t *sp_head;             /* [X->n_rows] */
    uint32_t *sp_rseen;          /* [X->n_rows] */
    size_t *sp_next;             /* [n] */

    /* Constraints (cfg->monotone, cfg->igroups): the node being searched, set by the grower
     * before each gv_split_find (nodes are then searched one at a time): its value's bounds,
     * and the features it may split on (cons_allow[f] != 0; NULL: all). */
    double cons_lo, cons_hi;
    const uint8_t *cons_allow;
} gv_engine;

/* The statistics of original row r (gv_ns_stride() doubles, CLASS: its weight) and, for CLASS, its
 * class.  Histograms read rows through this, and node totals (tree.c, sum_rows) add the very
 * same numbers. */
static inline void gv_row_stats(const gv_engine *e, size_t r, double *out, int32_t *cls)
{
    const gv_tree_input *in = e->in;
    double w = in->weight ? in->weight[r] : 1.0;
    switch (e->cfg->stats) {
    case GV_STATS_CLASS:
        out[0] = e->rmul ? e->rmul[r] : w;
        *cls = (int32_t)in->y[r];
        break;
    case GV_STATS_REG: {
        if (e->reg) {
            out[0] = e->reg[3 * r];
            out[1] = e->reg[3 * r + 1];
            out[2] = e->reg[3 * r + 2];
            break;
        }
        double d = in->y[r] - e->shift;
        out[0] = w;
        out[1] = w * d;
        out[2] = w * d * d;
        break;
    }
    case GV_STATS_GRAD:
        out[0] = in->grad[r];
        out[1] = in->hess[r];
        break;
    }
}

/* Quantized: feature f's integer records in histogram h (the layout note above). */
static inline void *gv_qhist(const gv_engine *e, const double *h, size_t f)
{
    return (unsigned char *)(uintptr_t)h + (size_t)e->quant * (e->hist_off[f] / 3);
}

/* Quantized: record b of a feature's records q, decoded: out = (count, g, h) sums. */
static inline void gv_qrec(const gv_engine *e, const void *q, size_t b, int64_t out[3])
{
    if (e->quant == 8) {
        uint64_t v = ((const uint64_t *)q)[b];
        out[0] = (int64_t)(v & (((uint64_t)1 << e->qsh_h) - 1));
        out[1] = (int64_t)v >> e->qsh_g; /* arithmetic: g's sign */
        out[2] = (int64_t)((v >> e->qsh_h) & (((uint64_t)1 << (e->qsh_g - e->qsh_h)) - 1));
    } else {
        const int32_t *r = (const int32_t *)q + 4 * b;
        out[0] = r[0];
        out[1] = r[1];
        out[2] = r[2];
    }
}

/* Quantized: a -= b over n_bins records of one feature (exact; the packed word wraps). */
static inline void gv_qsub(const gv_engine *e, void *a, const void *b, size_t n_bins)
{
    if (e->quant == 8) {
        uint64_t *x = a;
        const uint64_t *y = b;
        for (size_t k = 0; k < n_bins; k++) x[k] -= y[k];
    } else {
        int32_t *x = a;
        const int32_t *y = b;
        for (size_t k = 0; k < 4 * n_bins; k++) x[k] -= y[k];
    }
}

/* GRAD: 1 when ns holds gv_gh floats (one process: ns_pos, the only way a GRAD tree gathers
 * there), 0 when doubles (data-parallel: gv_row_stats's gather of the common grid's values). */
static inline int gv_ns_f32(const gv_engine *e) { return !e->cfg->dist; }

/* Doubles per row in gv_engine.ns: CLASS the weight (the class is in ncls); REG w, wy, wyy;
 * GRAD g, h. */
static inline size_t gv_ns_stride(const gv_engine *e)
{
    switch (e->cfg->stats) {
    case GV_STATS_CLASS: return 1;
    case GV_STATS_REG: return 3;
    case GV_STATS_GRAD: return 2;
    }
    return 1;
}

/* ---- plan.c ---- */
/* Chooses e->plan from the tree's layouts (after its records and quantization are set). */
void gv_plan_choose(gv_engine *e);

/* ---- hist.c ---- */
/* Tests: when set, called after each gv_hist_build with each built feature's records (f's
 * n_bins records of rec_bytes bytes: 3 doubles, or quant bytes of integers). */
extern void (*gv_hist_observe)(size_t f, size_t n_bins, const void *rec, size_t rec_bytes);

/* Copies the statistics of rows idx[begin, end) into ns/ncls at the same positions. */
void gv_hist_gather(gv_engine *e, size_t begin, size_t end);
/* ns_pos: every position's (g, h) into ns, and with q_pos its record into qrec (the root). */
void gv_hist_pos_init(gv_engine *e);
/* Quantized: 1 when the tree's records are 8 bytes and no sparse rows are used (q_pos may
 * be set). */
int gv_hist_quant_pos_ok(const gv_engine *e);
/* Quantized: gathers positions [a, a + len) in the records gv_hist_build will sum, and adds
 * the rows' exact (count, g, h) to t as tree.c's sum_rows_serial does (the same additions in
 * the same order).  Thread-safe on disjoint positions. */
void gv_hist_gather_sums(gv_engine *e, size_t a, size_t len, double *t);
/* Quantized: records that ns holds positions [begin, end) gathered by gv_hist_gather_sums. */
void gv_hist_gathered_quant(gv_engine *e, size_t begin, size_t end);
/* Builds into h the histograms of features feats[0..n_feats) over rows idx[begin, end)
 * (gathered first, unless e->gathered_* says ns holds them), each feature's segment zeroed first.  OpenMP over features, each
 * feature summed in row order. */
void gv_hist_build(gv_engine *e, size_t begin, size_t end, const int32_t *feats,
                   size_t n_feats, double *h);
/* ns_pos, GRAD doubles: gv_hist_build for the m nodes rows idx[begin[j], end[j]) into h[j], in
 * one parallel region ((node, feature block) tasks, dynamic, in the order given: largest
 * first is best) instead of one per node.  The same histograms. */
void gv_hist_build_level(gv_engine *e, size_t m, const size_t *begin, const size_t *end,
                         const int32_t *feats, size_t n_feats, double *const *h);
/* Compressed-row matrices: builds into h the histograms of those features of feats[0..n_feats)
 * (ascending) that have an entry in some row of idx[begin, end), lists them ascending in
 * e->sp_feats and returns their number.  A feature's default bin is the node's totals minus
 * its other bins.  One thread; time O(entries of the node's rows + bins of the listed
 * features). */
size_t gv_hist_build_sparse(gv_engine *e, size_t begin, size_t end, const int32_t *feats,
                            size_t n_feats, double *h);
/* Small nodes (e->touched, n < GV_HIST_TOUCHED_MAX_ROWS): adds rows idx[begin, end) (gathered
 * first) to the all-zero histogram h for features feats[0..n_feats), and marks the bins hit in
 * e->touched.  The same sums, in the same order, as gv_hist_build on such a node. */
#define GV_HIST_TOUCHED_MAX_ROWS 4096
void gv_hist_build_touched(gv_engine *e, size_t begin, size_t end, const int32_t *feats,
                           size_t n_feats, double *h);
/* Zeroes the touched bins of features feats[0..n_feats) in h and clears their marks. */
void gv_hist_clean(gv_engine *e, const int32_t *feats, size_t n_feats, double *h);
/* a -= b on every feature's segment (both full histograms). */
void gv_hist_subtract(const gv_engine *e, double *a, const double *b);
/* A histogram buffer from the pool (contents undefined), or NULL when out of memory. */
double *gv_hist_acquire(gv_engine *e);
/* Returns a buffer to the pool (NULL accepted). */
void gv_hist_release(gv_engine *e, double *h);
/* Frees the pool's buffers. */
void gv_hist_pool_free(gv_engine *e);

/* ---- split.c ---- */
/* The node score of a bin record (gain = score(children) - score(parent)). */
double gv_split_score(const gv_engine *e, const double *s);
/* The weight of a record: sum of w (CLASS, REG) or of h (GRAD). */
double gv_split_weight(const gv_engine *e, const double *s);
/* Finds the best split of a node with totals `tot` over features feats[0..n_feats) (ascending)
 * of histogram h.  With `minus` (not NULL), each listed feature's segment of h first becomes
 * h - minus (histogram subtraction fused into the scan; other features are left alone).
 * *best gets the winner (feature -1 if none); its bitset, if any, is copied to e->cat_pool.
 * GROVE_ERR_NOMEM possible (cat_pool growth). */
grove_status gv_split_find(gv_engine *e, double *h, const double *minus, const double *tot,
                           const int32_t *feats, size_t n_feats, gv_split *best);
/* gv_split_find on the calling thread alone (inside a parallel region: scratch[tid], the
 * features' best splits in fbest[F], the caller's), for numeric features only (nothing goes
 * to e->cat_pool): the same *best. */
grove_status gv_split_find_one(gv_engine *e, int tid, gv_split *fbest, double *h,
                               const double *minus, const double *tot, const int32_t *feats,
                               size_t n_feats, gv_split *best);

#endif /* GV_TREE_INT_H */
