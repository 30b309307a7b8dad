/*
 * tree.c -- the tree grower of the histogram engine: configuration checks, node bookkeeping,
 * row partitions, depth-wise and best-first growth, and the gv_tree it produces.
 *
 * Pipeline position: learn/ (reads bin/'s gv_binned through a row view; ensembles call it).
 * The engine in three files: hist.c (histograms), split.c (scores and split search), this
 * file (growth).  tree_int.h has the histogram layout and the tie-breaking rule.
 *
 * How a tree grows:
 *  - The rows of a node are the range idx[begin, end) of one index array; a split partitions
 *    the range in place, stably, so every node's rows stay in view order.  Node totals (and
 *    so the node values) are then summed over each child's rows in row order, by fixed blocks
 *    of ROW_BLOCK rows whose partial sums are added in block order: the same sums for any
 *    number of threads.
 *  - A node is *evaluated* right after it is created: if it may split (depth, row and leaf
 *    limits, not pure), its histograms are obtained and scanned for its best split.  With a
 *    feature subset per node, nodes are evaluated in id (creation) order, which is the order
 *    of the random feature draws, all made in the calling thread.
 *  - Histograms: when all features are candidates, the children of a split node whose
 *    histogram was kept get theirs by subtraction: every child but the largest is built from
 *    its rows, the largest is parent - the others (in place, in the parent's buffer).  A node
 *    keeps its histogram after evaluation only while the pool allows (max_kept buffers, from a
 *    256 MiB budget), otherwise its children are built from rows.  With a feature subset per
 *    node, each node builds only its own candidates' histograms, from rows (cheaper than
 *    subtraction over all features).
 *  - Depth-wise growth splits open nodes first in, first out (which is level by level, in id
 *    order within a level); best-first growth splits the open node with the largest gain
 *    (ties: lowest id).  With max_leaves, a split that would exceed it is skipped (a multiway
 *    split adds children - 1 leaves).
 *  - Numeric splits are "bin <= b" for 1 <= b <= n_bins - 2, so a threshold cuts[b - 1]
 *    always exists: a split of exactly "missing" from "present" is only found when the
 *    node's lowest value bins are empty (missing-left with an empty left prefix).
 *  - Multiway (ID3) splits make one child per category present at the node; a feature can be
 *    used again below, but a child holds one category (plus the missing rows) and cannot
 *    split on it again.  Splits of any kind on other features remain possible.
 * Leaf values: CLASS probabilities w_k / W (uniform if W = 0); REG the weighted mean (the
 * root's mean c if W = 0); GRAD the Newton step -T_a(G) / (H + lambda) (0 if H + lambda <= 0).
 * Every node stores its value, so a tree can also be cut back later.
 */
#include "tree_int.h"

#include "../dist/dist.h"

#include <assert.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Histogram memory kept across nodes (the buffers of nodes waiting to be split). */
#define HIST_BUDGET_BYTES ((size_t)256 << 20)
/* Free buffers the pool holds on to for reuse. */
#define HIST_FREE_CAP 64
/* Rows per block of the blocked sums and partitions (fixed: sums must not depend on threads). */
#define ROW_BLOCK 32768
/* Rows per block of a parallel partition (any size gives the same partition). */
#define PART_BLOCK 8192
/* Passes of a few operations per row (the row list's fill, the root's gather and totals) run
 * on one thread below this many rows: a parallel region's start and end cost about as much
 * (more where the machine is slow to wake a second vCPU). */
#define LIGHT_PASS_ROWS ((size_t)1 << 18)

void gv_tree_config_default(gv_tree_config *cfg, gv_stats_kind stats, int n_classes)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->stats = stats;
    cfg->criterion = stats == GV_STATS_CLASS  ? GV_SPLIT_GINI
                     : stats == GV_STATS_REG ? GV_SPLIT_VARIANCE
                                             : GV_SPLIT_NEWTON;
    cfg->n_classes = stats == GV_STATS_CLASS ? n_classes : 0;
    cfg->max_depth = 0;
    cfg->max_leaves = 0;
    cfg->best_first = 0;
    cfg->min_samples_leaf = 1;
    cfg->min_samples_split = 2;
    cfg->min_weight_leaf = 0;
    cfg->min_gain = 0;
    cfg->lambda = 0; /* no regularisation unless the caller (e.g. gbdt) asks for it */
    cfg->alpha = 0;
    cfg->multiway_categorical = 0;
    cfg->max_features = 0;
    cfg->n_threads = 1;
}

float *gv_tree_scratch_gh(gv_tree_scratch *s, size_t n)
{
    size_t m;
    if (!s || gv_mul_size(n, 2, &m) != 0) return NULL;
    if (s->cap_ns < m) {
        gv_free(s->ns);
        s->ns = gv_malloc_huge_array(m, sizeof *s->ns);
        s->cap_ns = s->ns ? m : 0;
    }
    return (float *)(void *)s->ns;
}

void gv_tree_scratch_free(gv_tree_scratch *s)
{
    if (!s) return;
    gv_free(s->idx);
    gv_free(s->tmp);
    gv_free(s->ns);
    gv_free(s->ns_tmp);
    gv_free(s->qrec);
    gv_free(s->qrec_tmp);
    gv_free(s->ncls);
    for (size_t i = 0; i < s->n_hists; i++) gv_free(s->hists[i]);
    gv_free(s->hists);
    gv_free(s->roots_mem);
    memset(s, 0, sizeof *s);
}

void gv_tree_free(gv_tree *t)
{
    if (!t) return;
    gv_free(t->nodes);
    gv_free(t->values);
    gv_free(t->cat_data);
    gv_free(t);
}

/* Growth-time state of a node (parallel to t->nodes). */
typedef struct gnode {
    size_t begin, end; /* rows idx[begin, end) */
    double *hist;      /* kept histogram (counted in e.n_kept), or NULL */
    gv_split split;    /* best split found at evaluation (feature -1: none) */
    size_t leaf_nl;    /* its children leaves: 1 + the rows split sends left, read off its
                          histogram (note_leaf_nl); 0: not known */
} gnode;

typedef struct grower {
    gv_engine e;
    gv_tree *t;
    gnode *g;             /* [cap_nodes] */
    double *tot;          /* [cap_nodes * S] node totals */
    size_t cap_nodes, cap_cat;
    size_t n_leaves;
    int subset;           /* 1: max_features candidates drawn per node */
    size_t mf;            /* candidates per node */
    gv_rng *rng;
    int32_t *all_feats;   /* [F] the candidate features, ascending (all, or cfg->feature_mask's) */
    size_t n_all;         /* entries of all_feats */
    int32_t *feats;       /* [F] the drawn candidates of the node being evaluated */
    size_t *perm;         /* [F] partial Fisher-Yates; the identity between draws */
    size_t *swap_j;       /* [mf] the draw's swaps, to undo them */
    uint32_t *child_of;   /* [max_categories] multiway: code -> child rank */
    size_t *child_pos;    /* [max_categories + 1] multiway partition offsets */
    size_t *open;         /* open nodes: FIFO (depth-wise) or heap (best-first) */
    size_t n_open, head, cap_open;
    size_t touched_rows;  /* nodes with fewer rows take the touched-bins way (gv_tree_fit) */
    size_t side_of;       /* the node whose children's totals side_tot holds (SIZE_MAX: none) */
    int fill_idx;         /* idx[i] = i is left to the root's pass (pos_init_sums) */
    size_t pre_id;        /* the node whose partition partition_level made (SIZE_MAX: none): */
    size_t pre_w;         /* where its right rows start, */
    int pre_summed;       /* whether its smaller child's totals are summed, in */
    double pre_tot[6];    /* its children's totals, partition_binary's tot2 */
    double *side_tot;     /* [2 S] hist_sides' totals of the left and right child */
    double *root_hist;    /* gv_tree_input.root_hist until grow takes it (owned) */
} grower;

/* ---- nodes ---- */

static grove_status ensure_nodes(grower *gr, size_t extra)
{
    gv_tree *t = gr->t;
    if (t->n_nodes + extra <= gr->cap_nodes) return GROVE_OK;
    if (t->n_nodes + extra > (size_t)INT32_MAX) return gv_err(GROVE_ERR_DATA, "tree: too many nodes");
    size_t cap = gr->cap_nodes ? 2 * gr->cap_nodes : 64;
    while (cap < t->n_nodes + extra) cap *= 2;
    size_t S = gr->e.S, no = (size_t)t->n_outputs, n_tot, n_val;
    if (gv_mul_size(cap, S, &n_tot) != 0 || gv_mul_size(cap, no, &n_val) != 0)
        return gv_err_nomem("tree nodes");
    gv_tree_node *nodes = gv_realloc_array(t->nodes, cap, sizeof *nodes);
    if (!nodes) return gv_err_nomem("tree nodes");
    t->nodes = nodes;
    double *values = gv_realloc_array(t->values, n_val, sizeof *values);
    if (!values) return gv_err_nomem("tree values");
    t->values = values;
    gnode *g = gv_realloc_array(gr->g, cap, sizeof *g);
    if (!g) return gv_err_nomem("tree nodes");
    gr->g = g;
    double *tot = gv_realloc_array(gr->tot, n_tot, sizeof *tot);
    if (!tot) return gv_err_nomem("tree node totals");
    gr->tot = tot;
    gr->cap_nodes = cap;
    return GROVE_OK;
}

/* Appends a node (room must exist); its totals are zeroed, to be summed by the caller. */
static size_t new_node(grower *gr, int depth, size_t begin, size_t end)
{
    gv_tree *t = gr->t;
    size_t id = t->n_nodes++;
    gv_tree_node *nd = &t->nodes[id];
    memset(nd, 0, sizeof *nd);
    nd->feature = -1;
    nd->type = GV_NODE_LEAF;
    nd->depth = (uint16_t)depth;
    nd->left = nd->right = -1;
    gnode *g = &gr->g[id];
    memset(g, 0, sizeof *g);
    g->begin = begin;
    g->end = end;
    g->split.feature = -1;
    memset(gr->tot + id * gr->e.S, 0, gr->e.S * sizeof(double));
    return id;
}

/* Fills a node's weight, count and value from its totals. */
static void node_finish(grower *gr, size_t id)
{
    const gv_engine *e = &gr->e;
    const gv_tree_config *cfg = e->cfg;
    const double *s = gr->tot + id * e->S;
    gv_tree_node *nd = &gr->t->nodes[id];
    double *v = gr->t->values + id * (size_t)gr->t->n_outputs;
    nd->count = s[0];
    nd->weight = gv_split_weight(e, s);
    switch (cfg->stats) {
    case GV_STATS_CLASS: {
        /* p_k = w_k / W (uniform when W = 0) */
        double W = nd->weight;
        for (size_t k = 0; k < e->K; k++) v[k] = W > 0 ? s[1 + k] / W : 1.0 / (double)e->K;
        break;
    }
    case GV_STATS_REG:
        /* mean = c + sum w (y - c) / W */
        v[0] = s[1] > 0 ? e->shift + s[2] / s[1] : e->shift;
        break;
    case GV_STATS_GRAD: {
        /* value = -T_a(G) / (H + lambda),  T_a(G) = sign(G) max(|G| - a, 0) */
        double G = s[1], d = s[2] + cfg->lambda, a = cfg->alpha;
        double tg = G > a ? G - a : (G < -a ? G + a : 0.0);
        v[0] = d > 0 ? -tg / d : 0.0;
        break;
    }
    }
}

/* Row r's statistics added to record t, with the arithmetic of sum_rows_serial (the count
 * aside: rows_counted): CLASS t[1 + y_r] += w_r (two classes with weights: t[1] += w_r [y_r = 0],
 * t[2] += w_r [y_r = 1], adding an exact 0 to the other class; repeated rows listed once: their
 * multiplicity m_r to t[1 + y_r] and to the count); REG (w, w d, w d^2), d = y - c; GRAD (g, h). */
static inline __attribute__((always_inline)) void row_add(const gv_engine *e, gv_row r, double *t)
{
    const gv_tree_input *in = e->in;
    switch (e->cfg->stats) {
    case GV_STATS_GRAD:
        t[1] += in->grad[r];
        t[2] += in->hess[r];
        break;
    case GV_STATS_REG: {
        double s[3];
        int32_t c;
        gv_row_stats(e, r, s, &c);
        t[1] += s[0];
        t[2] += s[1];
        t[3] += s[2];
        break;
    }
    case GV_STATS_CLASS:
        if (e->rmul) {
            const double m = e->rmul[r];
            t[1 + (size_t)in->y[r]] += m;
            t[0] += m;
        } else if (e->K == 2 && in->weight) {
            static const double is0[2] = {1.0, 0.0}, is1[2] = {0.0, 1.0};
            const size_t c = in->y[r] != 0.0;
            t[1] += in->weight[r] * is0[c];
            t[2] += in->weight[r] * is1[c];
        } else {
            t[1 + (size_t)in->y[r]] += in->weight ? in->weight[r] : 1.0;
        }
        break;
    }
}

/* The count of a record that row_add gave n rows (repeated rows counted themselves). */
static inline void rows_counted(const gv_engine *e, size_t n, double *t)
{
    if (!(e->cfg->stats == GV_STATS_CLASS && e->rmul)) t[0] += (double)n;
}

/* Two classes with weights (row_add's hot case): each class's sum in a register (no
 * store-to-load chain through t), in row order over positions [LO, HI) of idx into t[1], t[2];
 * a row of the other class adds w * 0 = 0, which leaves a sum of weights (>= 0, starting at
 * +0.0) unchanged bit for bit (no branch per row).  EACH (of i, w, c) runs for every row too. */
#define CLASS2_SUMS(e) ((e)->cfg->stats == GV_STATS_CLASS && !(e)->rmul && (e)->K == 2 && (e)->in->weight)
#define CLASS2_SUM_LOOP(T, LO, HI, EACH)                                                              \
    {                                                                                              \
        static const double is0[2] = {1.0, 0.0}, is1[2] = {0.0, 1.0};                              \
        const double *w_ = e->in->weight, *y_ = e->in->y;                                          \
        double a0 = (T)[1], a1 = (T)[2];                                                           \
        for (size_t i = (LO); i < (HI); i++) {                                                     \
            const size_t r = idx[i];                                                               \
            const double w = w_[r];                                                                \
            const size_t c = y_[r] != 0.0;                                                         \
            a0 += w * is0[c];                                                                      \
            a1 += w * is1[c];                                                                      \
            EACH;                                                                                  \
        }                                                                                          \
        (T)[1] = a0;                                                                               \
        (T)[2] = a1;                                                                               \
    }

/* Adds the statistics of rows idx[0..n) to record t, in row order (row_add's sums).  The two
 * loops that run over every row at every level keep their sums in registers. */
static void sum_rows_serial(const gv_engine *e, const gv_row *idx, size_t n, double *t)
{
    const gv_tree_input *in = e->in;
    if (e->cfg->stats == GV_STATS_GRAD) {
        double G = t[1], H = t[2];
        for (size_t i = 0; i < n; i++) {
            G += in->grad[idx[i]];
            H += in->hess[idx[i]];
        }
        t[1] = G;
        t[2] = H;
    } else if (CLASS2_SUMS(e)) {
        CLASS2_SUM_LOOP(t, 0, n, (void)0);
    } else {
        for (size_t i = 0; i < n; i++) row_add(e, idx[i], t);
    }
    rows_counted(e, n, t);
}

/* sum_rows's blocks one row at a time: rows added in order to record t (zeroed) through the
 * open block's partial p (zeroed; at ROW_BLOCK rows added to t and zeroed again, flush_block)
 * give t the bits sum_rows gives over the same rows in the same order. */
static inline void flush_block(const gv_engine *e, double *p, double *t)
{
    rows_counted(e, ROW_BLOCK, p);
    for (size_t k = 0; k < e->S; k++) t[k] += p[k];
    memset(p, 0, e->S * sizeof *p);
}

/* The last, open block: added to t in order, or with no full block before, the sums are t
 * itself (sum_rows_serial on the zeroed t: a -0.0 stays). */
static inline void block_rows_end(const gv_engine *e, double *p, double *t, size_t len,
                                  size_t full)
{
    if (full > 0 && len == 0) return;
    rows_counted(e, len, p);
    for (size_t k = 0; k < e->S; k++) t[k] = full == 0 ? p[k] : t[k] + p[k];
}

/* Block partial sums of n rows (ROW_BLOCK rows a block, S sums each): e->part zeroed when
 * there are several blocks, else t itself (one block sums straight into the zeroed totals);
 * *nb gets the number of blocks, at least 1. */
static double *block_parts(const gv_engine *e, size_t n, size_t S, double *t, size_t *nb)
{
    const size_t b = (n + ROW_BLOCK - 1) / ROW_BLOCK;
    *nb = b ? b : 1;
    if (b <= 1) return t;
    memset(e->part, 0, b * S * sizeof *e->part);
    return e->part;
}

/* t += the nb blocks' partial sums, in block order (nothing when they were t itself). */
static void add_parts(const double *part, size_t nb, size_t S, double *t)
{
    if (part == t) return;
    for (size_t b = 0; b < nb; b++)
        for (size_t k = 0; k < S; k++) t[k] += part[b * S + k];
}

/* Node totals: t (zeroed) = the sum over rows idx[0..n), taken over fixed blocks of
 * ROW_BLOCK rows (in parallel) whose partial sums are then added in block order.  The blocks
 * do not depend on the thread count, so neither do the sums. */
static void sum_rows(const gv_engine *e, const gv_row *idx, size_t n, double *t)
{
    size_t n_blocks = (n + ROW_BLOCK - 1) / ROW_BLOCK, S = e->S;
    if (n_blocks <= 1) {
        sum_rows_serial(e, idx, n, t);
        return;
    }
    double *part = block_parts(e, n, S, t, &n_blocks);
#ifdef _OPENMP
#pragma omp parallel for num_threads(e->nt) schedule(static) if (e->nt > 1)
#endif
    for (size_t b = 0; b < n_blocks; b++) {
        size_t lo = b * ROW_BLOCK, len = n - lo < ROW_BLOCK ? n - lo : ROW_BLOCK;
        sum_rows_serial(e, idx + lo, len, part + b * S);
    }
    add_parts(part, n_blocks, S, t);
}

/* The root's totals t (zeroed) as sum_rows(e, e->idx, e->n, t) gives them, and, CLASS and REG,
 * in the same pass over the rows (by the same blocks, in parallel) the gather of their
 * statistics for the root's histogram (gv_hist_gather's ns and ncls, hist.c). */
static void sum_rows_gather(gv_engine *e, double *t)
{
    const size_t n = e->n, S = e->S, stride = gv_ns_stride(e);
    if (e->cfg->stats == GV_STATS_GRAD) {
        sum_rows(e, e->idx, n, t);
        return;
    }
    const gv_row *idx = e->idx;
    double *ns = e->ns;
    int32_t *ncls = e->ncls;
    size_t n_blocks;
    double *part = block_parts(e, n, S, t, &n_blocks);
#ifdef _OPENMP
#pragma omp parallel for num_threads(e->nt) schedule(static) if (e->nt > 1 && n >= LIGHT_PASS_ROWS)
#endif
    for (size_t b = 0; b < n_blocks; b++) {
        const size_t lo = b * ROW_BLOCK, hi = n - lo < ROW_BLOCK ? n : lo + ROW_BLOCK;
        double *pt = part + b * S;
        if (CLASS2_SUMS(e)) {
            CLASS2_SUM_LOOP(pt, lo, hi, (ns[i] = w, ncls[i] = (int32_t)c));
        } else {
            for (size_t i = lo; i < hi; i++) {
                int32_t c = 0;
                gv_row_stats(e, idx[i], ns + i * stride, &c);
                if (ncls) ncls[i] = c;
                row_add(e, idx[i], pt);
            }
        }
        rows_counted(e, hi - lo, pt);
    }
    add_parts(part, n_blocks, S, t);
    e->gathered_begin = 0;
    e->gathered_end = n;
}

/* Blocks of positions of ns_all (gv_gh pairs), two at once: [a, a + na) added to pa's
 * (count, g, h), [b, b + nb) to pb's, g and h in position order, with two chains of dependent
 * additions in flight instead of one (a (g, h) pair widened to doubles: one 128-bit addition,
 * its two lanes' doubles); nb 0: one block. */
typedef double gv_t2d __attribute__((vector_size(16), aligned(8), may_alias));
typedef float gv_t2f __attribute__((vector_size(8), aligned(4), may_alias));
#define GH_T2D(p) __builtin_convertvector(*(const gv_t2f *)(const void *)(p), gv_t2d)
static inline void gathered_two(const double *ns_all, size_t a, size_t na, double *pa, size_t b,
                                size_t nb, double *pb)
{
    const gv_gh *x = (const gv_gh *)(const void *)ns_all + a;
    const gv_gh *y = (const gv_gh *)(const void *)ns_all + b;
    gv_t2d sa = {pa[1], pa[2]}, sb = {pb[1], pb[2]};
    const size_t m = na < nb ? na : nb;
    for (size_t i = 0; i < m; i++) {
        sa += GH_T2D(x + i);
        sb += GH_T2D(y + i);
    }
    for (size_t i = m; i < na; i++) sa += GH_T2D(x + i);
    for (size_t i = m; i < nb; i++) sb += GH_T2D(y + i);
    pa[1] = sa[0], pa[2] = sa[1], pa[0] += (double)na;
    pb[1] = sb[0], pb[2] = sb[1], pb[0] += (double)nb;
}

/* Block b of sum_gathered's blocks over positions [lo, lo + n): its start and length */
static inline size_t gathered_span(size_t lo, size_t n, size_t b, size_t *len)
{
    *len = n - b * ROW_BLOCK < ROW_BLOCK ? n - b * ROW_BLOCK : ROW_BLOCK;
    return lo + b * ROW_BLOCK;
}

/* Blocks b and b + 1 of sum_gathered's nb blocks over positions [lo, lo + n) (block b alone
 * when it is the last) into part[3 b ..] (zeroed), each summed in position order. */
static inline void gathered_pair(const double *ns_all, size_t lo, size_t n, size_t b, size_t nb,
                                 double *part)
{
    size_t la, lb;
    const size_t a = gathered_span(lo, n, b, &la);
    if (b + 1 < nb) {
        const size_t c = gathered_span(lo, n, b + 1, &lb);
        gathered_two(ns_all, a, la, part + 3 * b, c, lb, part + 3 * (b + 1));
    } else {
        double none[3] = {0.0, 0.0, 0.0};
        gathered_two(ns_all, a, la, part + 3 * b, a, 0, none);
    }
}

/* GRAD node totals from the gathered statistics: t (zeroed) = the sum over positions
 * [lo, lo + n) of e->ns, by the blocks of sum_rows (the same numbers in the same order, so the
 * same sums as sum_rows over idx + lo). */
static void sum_gathered(const gv_engine *e, size_t lo, size_t n, double *t)
{
    size_t n_blocks;
    double *part = block_parts(e, n, 3, t, &n_blocks);
#ifdef _OPENMP
#pragma omp parallel for num_threads(e->nt) schedule(static) if (e->nt > 1 && n_blocks > 2)
#endif
    for (size_t b2 = 0; b2 < (n_blocks + 1) / 2; b2++) gathered_pair(e->ns, lo, n, 2 * b2, n_blocks, part);
    add_parts(part, n_blocks, 3, t);
}

/* ns_pos without records: the root's gather and totals in one pass (gv_hist_pos_init, then
 * sum_gathered(e, 0, n, t)): every position's (g, h) into ns, summed by sum_gathered's blocks
 * (the same numbers, so the same sums), and with fill (no row list: the view is every row in
 * order) idx[i] = i written in the same pass. */
static void pos_init_sums(gv_engine *e, double *t, int fill)
{
    const size_t n = e->n;
    const double *grad = e->in->grad, *hess = e->in->hess;
    const int gh_in = e->in->gh_in_ns && fill;
    gv_row *idx = e->idx;
    gv_gh *ns = (gv_gh *)(void *)e->ns;
    size_t n_blocks;
    double *part = block_parts(e, n, 3, t, &n_blocks);
#ifdef _OPENMP
#pragma omp parallel for num_threads(e->nt) schedule(static) if (e->nt > 1 && n_blocks > 1)
#endif
    for (size_t b = 0; b < n_blocks; b++) {
        const size_t lo = b * ROW_BLOCK, hi = n - lo < ROW_BLOCK ? n : lo + ROW_BLOCK;
        double *pt = part + b * 3;
        double G = pt[1], H = pt[2];
        if (gh_in) { /* (g, h) already in place (gh_in_ns: fill): idx and the sums only */
            for (size_t i = lo; i < hi; i++) {
                idx[i] = (gv_row)i;
                G += ns[i].g;
                H += ns[i].h;
            }
        } else {
            for (size_t i = lo; i < hi; i++) {
                const gv_row r = fill ? (gv_row)i : idx[i];
                if (fill) idx[i] = r;
                const float g = (float)grad[r], h = (float)hess[r];
                ns[i].g = g;
                ns[i].h = h;
                G += g;
                H += h;
            }
        }
        pt[1] = G;
        pt[2] = H;
        pt[0] += (double)(hi - lo);
    }
    add_parts(part, n_blocks, 3, t);
    e->gathered_fmt = 0;
}

/* Quantized GRAD node totals, with the gather of the rows' integer records for the node's
 * histogram in the same pass (gv_hist_gather_sums): t (zeroed) = sum_rows(e, idx + lo, n, t),
 * by the same blocks in the same order. */
static void sum_gather_quant(gv_engine *e, size_t lo, size_t n, double *t)
{
    size_t n_blocks = (n + ROW_BLOCK - 1) / ROW_BLOCK;
    if (n_blocks <= 1) {
        gv_hist_gather_sums(e, lo, n, t);
        return;
    }
    double *part = block_parts(e, n, 3, t, &n_blocks);
#ifdef _OPENMP
#pragma omp parallel for num_threads(e->nt) schedule(static) if (e->nt > 1)
#endif
    for (size_t b = 0; b < n_blocks; b++) {
        size_t len = n - b * ROW_BLOCK < ROW_BLOCK ? n - b * ROW_BLOCK : ROW_BLOCK;
        gv_hist_gather_sums(e, lo + b * ROW_BLOCK, len, part + b * 3);
    }
    add_parts(part, n_blocks, 3, t);
}

/* A node's row count: its rows here, or over all ranks in a data-parallel run (the totals'
 * count, summed over the ranks), so that every rank takes the same decisions; with repeated
 * rows listed once (e->rmul), the totals' count. */
static size_t node_count(const grower *gr, size_t id)
{
    if (gr->e.cfg->dist || gr->e.rmul) return (size_t)gr->tot[id * gr->e.S];
    return gr->g[id].end - gr->g[id].begin;
}

/* Data-parallel runs: a node's totals and a histogram's candidate features summed over the
 * ranks (the identity in one process; exact when the statistics are on a common grid). */
static void reduce_totals(const grower *gr, size_t id)
{
    if (gr->e.cfg->dist) gv_dist_sum_f64(gr->tot + id * gr->e.S, gr->e.S);
}

static void reduce_hist(const gv_engine *e, double *hist, const int32_t *feats, size_t n_feats)
{
    if (!e->cfg->dist) return;
    if (n_feats == e->X->n_features) {
        gv_dist_sum_f64(hist, e->hist_len);
        return;
    }
    for (size_t k = 0; k < n_feats; k++) {
        size_t f = (size_t)feats[k];
        gv_dist_sum_f64(hist + e->hist_off[f], (size_t)e->X->mappers[f].n_bins * e->S);
    }
}

/* Whether node id may be split at all (checked before any histogram work). */
/* ns_pos: points idx, ns, qrec at the buffers of the nodes of depth d (tree_int.h). */
static inline void at_depth(gv_engine *e, int d)
{
    if (!e->ns_pos) return;
    const int a = d & 1;
    e->idx = e->rbuf[a];
    e->tmp = e->rbuf[!a];
    e->ns = e->nsbuf[a];
    e->ns_tmp = e->nsbuf[!a];
    e->qrec = e->qbuf[a];
    e->qrec_tmp = e->qbuf[!a];
}

static int splittable(const grower *gr, size_t id)
{
    const gv_tree_config *cfg = gr->e.cfg;
    const gv_tree_node *nd = &gr->t->nodes[id];
    size_t count = node_count(gr, id);
    if (gr->e.n_features == 0) return 0;
    if (cfg->max_depth > 0 && nd->depth >= cfg->max_depth) return 0;
    if (nd->depth >= UINT16_MAX) return 0;
    if (count < cfg->min_samples_split || count / 2 < cfg->min_samples_leaf) return 0;
    if (cfg->max_leaves == 1) return 0;
    if (cfg->stats == GV_STATS_CLASS) { /* pure: no split can gain */
        const double *s = gr->tot + id * gr->e.S;
        size_t n_pos = 0;
        for (size_t k = 0; k < gr->e.K; k++) n_pos += s[1 + k] > 0;
        if (n_pos <= 1) return 0;
    }
    return 1;
}

/* ---- evaluation ---- */

static int cmp_int32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Draws the node's candidate features: mf distinct features by a partial Fisher-Yates
 * shuffle of all_feats (0..F-1 without a feature mask), then sorted (candidates are scanned in
 * feature order). */
static void draw_features(grower *gr)
{
    size_t F = gr->n_all;
    for (size_t i = 0; i < gr->mf; i++) {
        size_t j = i + (size_t)gv_rng_below(gr->rng, F - i);
        size_t tmp = gr->perm[i];
        gr->perm[i] = gr->perm[j];
        gr->perm[j] = tmp;
        gr->swap_j[i] = j;
        gr->feats[i] = gr->all_feats[gr->perm[i]];
    }
    /* undo the swaps, last first: perm is the identity again, so a node costs O(mf), not O(F)
     * (a million LIBSVM features) */
    for (size_t i = gr->mf; i-- > 0;) {
        size_t j = gr->swap_j[i], tmp = gr->perm[i];
        gr->perm[i] = gr->perm[j];
        gr->perm[j] = tmp;
    }
    qsort(gr->feats, gr->mf, sizeof *gr->feats, cmp_int32);
}

/* Evaluates node id: finds its best split.  Takes over `hist` (the node's complete histogram,
 * or NULL to build it; with `minus`, the node's histogram is hist - minus, subtracted during
 * the scan) and keeps it in the node or returns it to the pool -- except with `hold`, where a
 * given hist that the node does not keep stays with the caller (g->hist != hist tells). */
/* Whether the rows of bin b go left by split s (NUM or CAT_SET; bin 0: missing). */
static inline int bin_left(const gv_split *s, const uint32_t *bits, uint32_t b)
{
    if (b == 0) return s->default_left;
    if (bits) return (bits[(b - 1) / 32] >> ((b - 1) % 32)) & 1u;
    return b <= s->bin;
}

/* Two-class children that will be leaves (split_in_place), of a node whose histogram `hist`
 * was built from its rows: their totals are the split feature's bins on each side, summed in
 * bin order (the sums the split search scored), so no pass over the rows sums them.  Not from
 * a subtracted histogram (a class without rows could keep -1e-17), nor a sparse feature's (its
 * frequent bin is a difference too), nor a data-parallel one (summed over the ranks already:
 * split_in_place's totals are this rank's).  Not with more classes: their leaf weights often
 * tie exactly (equal counts at equal weights), and the row-order sums break those ties the
 * way scikit-learn's trees do (py_sklearn_boost: samme stump for stump on digits). */
static void hist_sides(grower *gr, size_t id, const double *hist)
{
    gv_engine *e = &gr->e;
    const gv_split *s = &gr->g[id].split;
    const size_t f = (size_t)s->feature, S = e->S;
    const gv_binned *X = e->X;
    if (e->cfg->stats != GV_STATS_CLASS || e->K != 2 || e->cfg->dist || X->csr_ptr ||
        (X->sparse_rows && X->sparse_rows[f]) || s->type == GV_NODE_CAT_MULTI || !gr->side_tot)
        return;
    const uint32_t *bits = s->type == GV_NODE_CAT_SET ? e->cat_pool + s->cat_off : NULL;
    const double *hf = hist + e->hist_off[f];
    double *side = gr->side_tot;
    memset(side, 0, 2 * S * sizeof *side);
    for (uint32_t b = 0; b < X->mappers[f].n_bins; b++) {
        double *t = side + (bin_left(s, bits, b) ? 0 : S);
        for (size_t k = 0; k < S; k++) t[k] += hf[S * b + k];
    }
    gr->side_of = id;
}

static int hist_left_rows(const gv_engine *e, const double *h, const gv_split *s,
                          const uint32_t *bits, size_t *out);

/* A node whose children will be leaves, its split found from its full histogram hist: the
 * split's left count read off hist (as partition_binary reads it) to leaf_nl, for
 * leaves_batch's one pass. */
static void note_leaf_nl(grower *gr, size_t id, const double *hist)
{
    const gv_engine *e = &gr->e;
    gnode *g = &gr->g[id];
    size_t nl;
    g->leaf_nl = 0;
    if (g->split.feature < 0 || gr->subset || e->X->csr_ptr || e->quant) return;
    const uint32_t *bits = g->split.type == GV_NODE_CAT_SET ? e->cat_pool + g->split.cat_off
                                                            : NULL;
    if (hist_left_rows(e, hist, &g->split, bits, &nl) && nl <= g->end - g->begin)
        g->leaf_nl = nl + 1;
}

static grove_status evaluate(grower *gr, size_t id, double *hist, const double *minus, int hold)
{
    gv_engine *e = &gr->e;
    gnode *g = &gr->g[id];
    g->split.feature = -1;
    at_depth(e, gr->t->nodes[id].depth);
    if (!splittable(gr, id)) {
        if (!hold) gv_hist_release(e, hist);
        return GROVE_OK;
    }
    assert(!minus || (hist && !gr->subset));
    const int32_t *feats = gr->all_feats;
    size_t n_feats = gr->n_all;
    if (gr->subset) {
        draw_features(gr);
        feats = gr->feats;
        n_feats = gr->mf;
    }
    const int given = hist != NULL;
    if (!hist && e->touched && g->end - g->begin < gr->touched_rows) {
        /* a small node of a forest tree: the clean histogram, only the touched bins */
        gv_hist_build_touched(e, g->begin, g->end, feats, n_feats, e->clean);
        if (e->cfg->random_thresholds)
            for (size_t k = 0; k < n_feats; k++) e->rand_u[k] = gv_rng_uniform(gr->rng);
        e->use_touched = 1;
        grove_status st = gv_split_find(e, e->clean, NULL, gr->tot + id * e->S, feats, n_feats,
                                        &g->split);
        e->use_touched = 0;
        gv_hist_clean(e, feats, n_feats, e->clean);
        return st;
    }
    if (!hist) {
        hist = gv_hist_acquire(e);
        if (!hist) return gv_err_nomem("tree histograms");
        if (e->X->csr_ptr) { /* only the features met in the node's rows (tree_int.h) */
            n_feats = gv_hist_build_sparse(e, g->begin, g->end, feats, n_feats, hist);
            feats = e->sp_feats;
        } else {
            gv_hist_build(e, g->begin, g->end, feats, n_feats, hist);
            reduce_hist(e, hist, feats, n_feats);
        }
    }
    if (e->cfg->random_thresholds) /* extra-trees: one draw per candidate, in feature order */
        for (size_t k = 0; k < n_feats; k++) e->rand_u[k] = gv_rng_uniform(gr->rng);
    gv_split split;
    grove_status st = gv_split_find(e, hist, minus, gr->tot + id * e->S, feats, n_feats, &split);
    if (st != GROVE_OK) {
        if (!hold || !given) gv_hist_release(e, hist);
        return st;
    }
    g->split = split;
    int depth = gr->t->nodes[id].depth;
    int children_may_split = e->cfg->max_depth == 0 || depth + 1 < e->cfg->max_depth;
    if (!children_may_split && !given && split.feature >= 0) hist_sides(gr, id, hist);
    if (!children_may_split) note_leaf_nl(gr, id, hist);
    if (!gr->subset && !e->X->csr_ptr && split.feature >= 0 && children_may_split &&
        e->n_kept < e->max_kept) {
        g->hist = hist;
        e->n_kept++;
    } else if (!hold || !given) {
        gv_hist_release(e, hist);
    }
    return GROVE_OK;
}

/* ---- splitting ---- */

static size_t popcount_words(const uint32_t *w, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t x = w[i];
        while (x) {
            x &= x - 1;
            c++;
        }
    }
    return c;
}

static grove_status append_cat(grower *gr, const uint32_t *src, size_t n, uint32_t *begin)
{
    gv_tree *t = gr->t;
    if (t->n_cat_data + n > UINT32_MAX) return gv_err(GROVE_ERR_DATA, "tree: categorical data too large");
    if (t->n_cat_data + n > gr->cap_cat) {
        size_t cap = gr->cap_cat ? 2 * gr->cap_cat : 64;
        while (cap < t->n_cat_data + n) cap *= 2;
        uint32_t *p = gv_realloc_array(t->cat_data, cap, sizeof *p);
        if (!p) return gv_err_nomem("tree categorical data");
        t->cat_data = p;
        gr->cap_cat = cap;
    }
    *begin = (uint32_t)t->n_cat_data;
    if (src) memcpy(t->cat_data + t->n_cat_data, src, n * sizeof *src);
    t->n_cat_data += n;
    return GROVE_OK;
}

/* Whether row r goes left by split s (NUM or CAT_SET). */
static inline int row_left(const gv_binned *X, const gv_split *s, const uint32_t *bits, size_t f,
                           gv_row r)
{
    return bin_left(s, bits, gv_bin_at(X, f, r));
}

/* Splits rows idx[lo, hi) by split s (NUM or CAT_SET) into tmp[lo, hi) (and with e->ns_pos
 * their (g, h) ns[lo, hi) into ns_tmp[lo, hi) alike, with e->q_pos their records too): the
 * left rows from the front in order, the right rows from the back in reverse order; returns
 * the number of left rows. */
static size_t block_split(const gv_engine *e, const gv_split *s, const uint32_t *bits,
                          size_t lo, size_t hi)
{
    const gv_binned *X = e->X;
    size_t f = (size_t)s->feature, nl = 0, nr = 0;
    const gv_row *idx = e->idx;
    gv_row *tmp = e->tmp;
    const gv_gh *ns = (const gv_gh *)(const void *)e->ns;
    gv_gh *nt = (gv_gh *)(void *)e->ns_tmp;
    const uint64_t *qr = e->qrec;
    uint64_t *qt = e->qrec_tmp;
    if (!bits && X->bins8) {
        /* the common case, numeric on 8-bit bins.  Without a branch (the side is
         * unpredictable): the row (and its (g, h) with GH, its record with Q) is written to both
         * cursors and only its side's advances.  The other write lands on a slot that a later
         * row of that side overwrites, or, once that side is complete, on the slot where the two
         * sides meet, which holds this same row by the end. */
        const uint8_t *col = X->bins8 + f * X->n_rows;
        uint32_t split = s->bin;
        int dl = s->default_left;
#define SPLIT_LOOP(GH, Q)                                                                          \
    for (size_t i = lo; i < hi; i++) {                                                             \
        gv_row r = idx[i];                                                                         \
        uint32_t b = col[r];                                                                       \
        size_t left = b == 0 ? (size_t)dl : (size_t)(b <= split);                                  \
        tmp[lo + nl] = r;                                                                          \
        tmp[hi - 1 - nr] = r;                                                                      \
        if (GH) nt[lo + nl] = nt[hi - 1 - nr] = ns[i];                                             \
        if (Q) qt[lo + nl] = qt[hi - 1 - nr] = qr[i];                                              \
        nl += left;                                                                                \
        nr += 1 - left;                                                                            \
    }
        if (e->q_pos)
            SPLIT_LOOP(1, 1)
        else if (e->ns_pos)
            SPLIT_LOOP(1, 0)
        else
            SPLIT_LOOP(0, 0)
#undef SPLIT_LOOP
        return nl;
    }
    for (size_t i = lo; i < hi; i++) {
        gv_row r = idx[i];
        size_t to = row_left(X, s, bits, f, r) ? lo + nl++ : hi - 1 - nr++;
        tmp[to] = r;
        if (e->ns_pos) nt[to] = ns[i];
        if (e->q_pos) qt[to] = qr[i];
    }
    return nl;
}

/* Numeric split on bin b without a branch (the side is unpredictable): b <= split is
 * b - 1 < split for b >= 1, and b = 0 (missing) wraps to the largest value, so goes by dl. */
#define SIDE_LEFT(b) ((size_t)((uint32_t)((b) - 1u) < split) | (dl & (size_t)((b) == 0)))

/* ns_pos: the left rows of idx[lo, hi). */
static size_t block_count(const gv_engine *e, const gv_split *s, const uint32_t *bits,
                          size_t lo, size_t hi)
{
    const gv_binned *X = e->X;
    const size_t f = (size_t)s->feature;
    const gv_row *idx = e->idx;
    size_t nl = 0;
    if (!bits && X->bins8) {
        const uint8_t *col = X->bins8 + f * X->n_rows;
        const uint32_t split = s->bin;
        const size_t dl = (size_t)s->default_left;
        for (size_t i = lo; i < hi; i++) {
            const uint32_t b = col[idx[i]];
            nl += SIDE_LEFT(b);
        }
        return nl;
    }
    for (size_t i = lo; i < hi; i++) nl += (size_t)row_left(X, s, bits, f, idx[i]);
    return nl;
}

/* lut[b]: the side of 8-bit bin b under the numeric split (bin, default_left), 1 left (as
 * SIDE_LEFT). */
static inline void side_lut(uint8_t *lut, uint32_t split, size_t dl)
{
    for (uint32_t b = 0; b < 256; b++)
        lut[b] = (uint8_t)(((uint32_t)(b - 1u) < split) | (dl & (size_t)(b == 0)));
}

/* ns_pos: moves the rows of idx[lo, hi), with their (g, h) (and records), to their places in
 * the other buffers.  Forward (back = 0): the left ones from pl on, the right ones from pr on,
 * each in order; backward (back = 1, from the last row): the left ones ending before pl, the
 * right ones before pr.  Returns pl as it ends.  (One store per row and array, at a position
 * picked without a branch; `back` is a constant in each caller, so each is its own loop.) */
static inline __attribute__((always_inline)) size_t
move_rows(gv_engine *e, const gv_split *s, const uint32_t *bits, size_t lo, size_t hi, size_t pl,
          size_t pr, const int back)
{
    const gv_binned *X = e->X;
    const size_t f = (size_t)s->feature, n = hi - lo;
    const gv_row *idx = e->idx;
    gv_row *to = e->tmp;
    const gv_gh *ns = (const gv_gh *)(const void *)e->ns;
    gv_gh *nt = (gv_gh *)(void *)e->ns_tmp;
    const uint64_t *qr = e->qrec;
    uint64_t *qt = e->qrec_tmp;
    /* the k-th row moved: its side (LEFT, of row r), its place, its (g, h) and record (Q) */
#define MOVE_ROW(LEFT, Q)                                                                          \
    do {                                                                                           \
        const size_t i_ = back ? hi - 1 - k : lo + k;                                              \
        const gv_row r = idx[i_];                                                                  \
        const size_t left_ = (LEFT), m_ = (size_t)0 - left_;                                       \
        if (back) pl -= left_, pr -= 1 - left_;                                                    \
        const size_t p_ = (pl & m_) | (pr & ~m_);                                                  \
        if (!back) pl += left_, pr += 1 - left_;                                                   \
        to[p_] = r;                                                                                \
        nt[p_] = ns[i_];                                                                           \
        if (Q) qt[p_] = qr[i_];                                                                    \
    } while (0)
    if (!bits && X->bins8) {
        /* 8-bit bins: each bin's side from a table, and one count: a right row's place is
         * c + i - pl (forward: pl before the row's increment; backward: after its decrement) */
        const uint8_t *col = X->bins8 + f * X->n_rows;
        uint8_t side[256];
        side_lut(side, s->bin, (size_t)s->default_left);
        const size_t c = pr + pl - (back ? hi : lo);
#define MOVE_ROW8(Q)                                                                               \
    do {                                                                                           \
        const size_t i_ = back ? hi - 1 - k : lo + k;                                              \
        const gv_row r = idx[i_];                                                                  \
        const size_t left_ = side[col[r]];                                                         \
        if (back) pl -= left_;                                                                     \
        const size_t p_ = left_ ? pl : c + i_ - pl;                                                \
        if (!back) pl += left_;                                                                    \
        to[p_] = r;                                                                                \
        nt[p_] = ns[i_];                                                                           \
        if (Q) qt[p_] = qr[i_];                                                                    \
    } while (0)
        if (e->q_pos)
            for (size_t k = 0; k < n; k++) MOVE_ROW8(1);
        else
            for (size_t k = 0; k < n; k++) MOVE_ROW8(0);
#undef MOVE_ROW8
        return pl;
    }
    for (size_t k = 0; k < n; k++) MOVE_ROW((size_t)row_left(X, s, bits, f, r), e->q_pos);
#undef MOVE_ROW
    return pl;
}

static size_t block_move(gv_engine *e, const gv_split *s, const uint32_t *bits, size_t lo,
                         size_t hi, size_t pl, size_t pr)
{
    return move_rows(e, s, bits, lo, hi, pl, pr, 0);
}

static size_t block_move_back(gv_engine *e, const gv_split *s, const uint32_t *bits, size_t lo,
                              size_t hi, size_t pl, size_t pr)
{
    return move_rows(e, s, bits, lo, hi, pl, pr, 1);
}

#undef SIDE_LEFT

/* ns_pos: the rows of [begin, end) that split s sends left, read off the node's histogram h
 * (counts are exact integers; the larger child's, from a subtraction, too); 0 when h is not
 * there (then the partition counts them). */
static int hist_left_rows(const gv_engine *e, const double *h, const gv_split *s,
                          const uint32_t *bits, size_t *out)
{
    if (!h || !e->ns_pos || e->S != 3 || s->type == GV_NODE_CAT_MULTI) return 0;
    const size_t f = (size_t)s->feature, nb = (size_t)e->X->mappers[f].n_bins;
    const double *hd = h + e->hist_off[f];
    const int32_t *h16 = e->quant == 16 ? (const int32_t *)gv_qhist(e, h, f) : NULL;
    const uint64_t *h8 = e->quant == 8 ? (const uint64_t *)gv_qhist(e, h, f) : NULL;
    const uint64_t m8 = e->quant == 8 ? ((uint64_t)1 << e->qsh_h) - 1 : 0;
    size_t c = 0;
    for (size_t b = 0; b < nb; b++) {
        int left;
        if (b == 0)
            left = s->default_left;
        else if (bits)
            left = (bits[(b - 1) / 32] >> ((b - 1) % 32)) & 1u;
        else
            left = b <= s->bin;
        if (!left) continue;
        c += h16 ? (size_t)(uint32_t)h16[4 * b] : h8 ? (size_t)(h8[b] & m8) : (size_t)hd[3 * b];
    }
    *out = c;
    return 1;
}

/* The start of block b of bs rows in [begin, end) (end past the last). */
static inline size_t block_lo(size_t begin, size_t end, size_t bs, size_t b)
{
    return end - begin > b * bs ? begin + b * bs : end;
}

/* partition_binary's smaller child's totals: its blocks' partial sums (e->part) added in
 * order to its zeroed record t, as sum_gathered adds them. */
static void small_sums_end(const gv_engine *e, size_t n_blocks, double *t, int *summed)
{
    if (!n_blocks) return;
    for (size_t b = 0; b < n_blocks; b++)
        for (size_t k = 0; k < 3; k++) t[k] += e->part[b * 3 + k];
    *summed = 1;
}

/* Stable binary partition of idx[begin, end) by split s; returns where the right rows start.
 * Large ranges are split in blocks of at most PART_BLOCK rows by several threads, in one parallel
 * region (the result is the same for any blocks).  With `gather` (GRAD statistics), the rows
 * of the smaller side (the left one on a tie) also get their (g, h) written to e->ns at their
 * new positions, as gv_hist_gather would write them, while the rows are moved. */
static size_t partition_binary(gv_engine *e, const gv_split *s, const uint32_t *bits,
                               size_t begin, size_t end, int gather, const double *hist,
                               double *tot2, int *summed)
{
    size_t n = end - begin, n_blocks = 1, bs = n;
    size_t nl_known;
    /* ns_pos with tot2 (the children's totals, zeroed): a smaller child of several ROW_BLOCKs
     * gets its totals summed in the partition's parallel region, after the moves, by
     * sum_gathered's blocks (the same sums; one region less): *summed = 1 then.  Its range
     * (small_lo, small_n) and record are known once the left rows are. */
    size_t small_lo = 0, small_n = 0, sum_blocks = 0;
    double *small_tot = NULL;
    *summed = 0;
#define SMALL_SET(NL)                                                                              \
    do {                                                                                           \
        const int left_small_ = (NL) <= n - (NL);                                                  \
        small_lo = left_small_ ? begin : begin + (NL);                                             \
        small_n = left_small_ ? (NL) : n - (NL);                                                   \
        sum_blocks = tot2 && e->ns_pos ? (small_n + ROW_BLOCK - 1) / ROW_BLOCK : 0;                \
        if (sum_blocks <= 1) sum_blocks = 0;                                                       \
        small_tot = tot2 + (left_small_ ? 0 : 3);                                                  \
        if (sum_blocks) memset(e->part, 0, sum_blocks * 3 * sizeof *e->part);                      \
    } while (0)
    /* (inside the region, after the moves' loop, which has no barrier of its own (nowait): one
     * here only when there are sums to take, and none after them -- the region's end has one --
     * so a partition without sums waits as often as before) */
#ifdef _OPENMP
#define SMALL_SUM_BLOCKS                                                                           \
    if (sum_blocks) {                                                                              \
        _Pragma("omp barrier") _Pragma("omp for schedule(static) nowait")                          \
        for (size_t b_ = 0; b_ < (sum_blocks + 1) / 2; b_++)                                       \
            gathered_pair(e->ns_tmp, small_lo, small_n, 2 * b_, sum_blocks, e->part);              \
    }
#else
#define SMALL_SUM_BLOCKS                                                                           \
    for (size_t b_ = 0; b_ < (sum_blocks + 1) / 2; b_++)                                           \
        gathered_pair(e->ns_tmp, small_lo, small_n, 2 * b_, sum_blocks, e->part);
#endif
    if (hist_left_rows(e, hist, s, bits, &nl_known) && nl_known <= n) {
        /* ns_pos, the left rows known: no counting pass.  One thread: forward; two: the first
         * half forward from both sides' starts, the second backward from both sides' ends
         * (they meet where the counts say) */
        const size_t pl = begin, pr = begin + nl_known;
        if (e->nt == 1 || n < 2 * PART_BLOCK) {
            size_t got = block_move(e, s, bits, begin, end, pl, pr);
            assert(got == pr);
            (void)got;
            return pr;
        }
        if (e->nt == 2) {
            const size_t mid = begin + n / 2;
            size_t got[2];
            SMALL_SET(nl_known);
#ifdef _OPENMP
#pragma omp parallel num_threads(2)
#endif
            {
#ifdef _OPENMP
#pragma omp for schedule(static) nowait
#endif
                for (int h = 0; h < 2; h++)
                    got[h] = h == 0 ? block_move(e, s, bits, begin, mid, pl, pr)
                                    : block_move_back(e, s, bits, mid, end, pr, end);
                SMALL_SUM_BLOCKS
            }
            assert(got[0] == got[1]);
            (void)got;
            small_sums_end(e, sum_blocks, small_tot, summed);
            return pr;
        }
    }
    if (e->nt > 1 && n >= 2 * PART_BLOCK) {
        /* blocks of at most PART_BLOCK rows, as many per thread (static: equal work) */
        size_t nt = (size_t)e->nt;
        n_blocks = ((n + PART_BLOCK - 1) / PART_BLOCK + nt - 1) / nt * nt;
        bs = (n + n_blocks - 1) / n_blocks;
    }
    size_t *n_left = e->block_left;
    gv_row *idx = e->idx;
    size_t *dst_left = e->block_left + n_blocks, *dst_right = dst_left + n_blocks;
    const gv_row *tmp = e->tmp;
    const double *grad = e->in->grad, *hess = e->in->hess;
    double *ns = e->ns;
    size_t total_left = 0;
    int left_small = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads(e->nt) if (n_blocks > 1)
#endif
    {
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
        for (size_t b = 0; b < n_blocks; b++) {
            size_t lo = block_lo(begin, end, bs, b), hi = block_lo(begin, end, bs, b + 1);
            n_left[b] = e->ns_pos ? block_count(e, s, bits, lo, hi) : block_split(e, s, bits, lo, hi);
        }
        /* block b's left rows go to begin + (left rows of earlier blocks), its right rows to
         * begin + total_left + (right rows of earlier blocks) */
#ifdef _OPENMP
#pragma omp single
#endif
        {
            for (size_t b = 0; b < n_blocks; b++) total_left += n_left[b];
            left_small = total_left <= n - total_left;
            if (e->ns_pos) SMALL_SET(total_left);
            size_t acc_l = begin, acc_r = begin + total_left;
            for (size_t b = 0; b < n_blocks; b++) {
                size_t lo = block_lo(begin, end, bs, b), hi = block_lo(begin, end, bs, b + 1);
                dst_left[b] = acc_l;
                dst_right[b] = acc_r;
                acc_l += n_left[b];
                acc_r += hi - lo - n_left[b];
            }
        }
#ifdef _OPENMP
#pragma omp for schedule(static) nowait
#endif
        for (size_t b = 0; b < n_blocks; b++) {
            size_t lo = block_lo(begin, end, bs, b), hi = block_lo(begin, end, bs, b + 1);
            if (e->ns_pos) { /* straight to the other buffers (tree_int.h) */
                block_move(e, s, bits, lo, hi, dst_left[b], dst_right[b]);
                continue;
            }
            size_t nl = n_left[b], nr = hi - lo - nl;
            gv_row *dl = idx + dst_left[b], *dr = idx + dst_right[b];
            const gv_row *tl = tmp + lo, *tr = tmp + hi - 1; /* the right rows run backwards */
            if (gather && left_small) {
                gv_gh *o = (gv_gh *)(void *)ns + dst_left[b];
                for (size_t j = 0; j < nl; j++) {
                    gv_row r = tl[j];
                    dl[j] = r;
                    o[j].g = (float)grad[r];
                    o[j].h = (float)hess[r];
                }
            } else {
                memcpy(dl, tl, nl * sizeof *idx);
                if (e->ns_pos)
                    memcpy((gv_gh *)(void *)ns + dst_left[b],
                           (const gv_gh *)(const void *)e->ns_tmp + lo, nl * sizeof(gv_gh));
                if (e->q_pos)
                    memcpy(e->qrec + dst_left[b], e->qrec_tmp + lo, nl * sizeof *e->qrec);
            }
            if (gather && !left_small) {
                gv_gh *o = (gv_gh *)(void *)ns + dst_right[b];
                for (size_t j = 0; j < nr; j++) {
                    gv_row r = tr[-(ptrdiff_t)j];
                    dr[j] = r;
                    o[j].g = (float)grad[r];
                    o[j].h = (float)hess[r];
                }
            } else {
                for (size_t j = 0; j < nr; j++) dr[j] = tr[-(ptrdiff_t)j];
                if (e->ns_pos) {
                    gv_gh *o = (gv_gh *)(void *)ns + dst_right[b];
                    const gv_gh *t = (const gv_gh *)(const void *)e->ns_tmp + hi - 1;
                    for (size_t j = 0; j < nr; j++) o[j] = t[-(ptrdiff_t)j];
                }
                if (e->q_pos) {
                    uint64_t *o = e->qrec + dst_right[b];
                    const uint64_t *t = e->qrec_tmp + hi - 1;
                    for (size_t j = 0; j < nr; j++) o[j] = t[-(ptrdiff_t)j];
                }
            }
        }
        SMALL_SUM_BLOCKS
    }
    small_sums_end(e, sum_blocks, small_tot, summed);
    return begin + total_left;
}
#undef SMALL_SUM_BLOCKS
#undef SMALL_SET

/* A binary split whose children are leaves (they are at max_depth): the rows need not move.
 * One pass over the node's rows idx[begin, end) in order sends each row's statistics to its
 * child c's open block p[c] (flush_block: the sums sum_rows gives over the rows a stable
 * partition would list for the child, bit for bit) and, with leaf_of_row, the row its leaf.
 * (A stump is all of this: its root's split, then one pass.)  ADD(c, r) adds row r to child c's
 * block, SPILL/LOAD move register sums to p and back around a flush (rare). */
#define IN_PLACE_LOOP(ADD, SPILL, LOAD)                                                            \
    for (size_t i = begin; i < end; i++) {                                                         \
        const gv_row r = idx[i];                                                                   \
        const size_t c = !row_left(X, s, bits, f, r);                                              \
        ADD(c, r);                                                                                 \
        if (leaf) leaf[r] = (uint32_t)(first + c);                                                 \
        if (++len[c] == ROW_BLOCK) {                                                               \
            SPILL;                                                                                 \
            flush_block(e, p[c], t[c]);                                                            \
            LOAD;                                                                                  \
            len[c] = 0;                                                                            \
            full[c]++;                                                                             \
        }                                                                                          \
    }
#define ROW_ADD(c, r) row_add(e, r, p[c])
/* two classes with weights: the four sums (child, class) in registers; a row adds w times a
 * one-hot row of in_place_hot to all four (x + w 0 = x for sums of weights >= 0, as
 * CLASS2_SUM_LOOP) */
#define HOT_ADD(c, r)                                                                              \
    {                                                                                              \
        const double w_ = W[r], *m_ = in_place_hot[2 * (c) + (Y[r] != 0.0)];                       \
        a0 += w_ * m_[0];                                                                          \
        a1 += w_ * m_[1];                                                                          \
        a2 += w_ * m_[2];                                                                          \
        a3 += w_ * m_[3];                                                                          \
    }
#define HOT_SPILL (p[0][1] = a0, p[0][2] = a1, p[1][1] = a2, p[1][2] = a3)
#define HOT_LOAD (a0 = p[0][1], a1 = p[0][2], a2 = p[1][1], a3 = p[1][2])
static const double in_place_hot[4][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};

static void split_in_place(grower *gr, const gv_split *s, const uint32_t *bits, size_t begin,
                           size_t end, size_t first, int sums)
{
    gv_engine *e = &gr->e;
    const gv_binned *X = e->X;
    const size_t S = e->S, f = (size_t)s->feature;
    const gv_row *idx = e->idx;
    uint32_t *leaf = e->in->leaf_of_row;
    if (!sums) { /* the totals are known (hist_sides): the leaves only */
        if (!leaf) return;
        if (!X->wide && X->bins8 && !X->csr_ptr && !bits) {
            /* 8-bit numeric: right iff bin > s->bin, bin 0 (missing) by default_left; without
             * a branch (vectorized) */
            const uint8_t *col = X->bins8 + f * X->n_rows;
            const uint32_t b = s->bin, miss_right = !s->default_left, l = (uint32_t)first;
            for (size_t i = begin; i < end; i++) {
                const uint32_t v = col[idx[i]];
                leaf[idx[i]] = l + (v == 0 ? miss_right : (uint32_t)(v > b));
            }
            return;
        }
        for (size_t i = begin; i < end; i++)
            leaf[idx[i]] = (uint32_t)(first + !row_left(X, s, bits, f, idx[i]));
        return;
    }
    double *p[2] = {e->part, e->part + S}, *t[2] = {gr->tot + first * S, gr->tot + (first + 1) * S};
    size_t len[2] = {0, 0}, full[2] = {0, 0};
    memset(e->part, 0, 2 * S * sizeof *e->part);
    if (CLASS2_SUMS(e)) {
        const double *W = e->in->weight, *Y = e->in->y;
        double a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        IN_PLACE_LOOP(HOT_ADD, HOT_SPILL, HOT_LOAD)
        HOT_SPILL;
    } else {
        IN_PLACE_LOOP(ROW_ADD, (void)0, (void)0)
    }
    for (size_t c = 0; c < 2; c++) block_rows_end(e, p[c], t[c], len[c], full[c]);
}
#undef HOT_LOAD
#undef HOT_SPILL
#undef HOT_ADD
#undef ROW_ADD
#undef IN_PLACE_LOOP

/* Which side of split s row r goes: 1 left.  FAST: numeric on 8-bit bins (col), from the
 * split's table of the bins' sides (lut, side_lut). */
#define LEAF_SIDE(FAST, r) ((FAST) ? (size_t)lut[col[r]] : (size_t)row_left(X, s, bits, f, (r)))

/* A split into two leaves (first = l0, l0 + 1), the rows at positions [lo, hi): each row's leaf
 * to leaf (if not NULL) and its side, 1 left, to side[position]; returns the left count.  What
 * split_leaves_grad's chunks and leaves_grad_one run. */
static inline __attribute__((always_inline)) size_t
leaf_sides(const gv_binned *X, const gv_split *s, const uint32_t *bits, const gv_row *idx,
           uint32_t *leaf, uint32_t l0, uint8_t *side, size_t lo, size_t hi)
{
    const size_t f = (size_t)s->feature;
    const uint8_t *col = !bits && X->bins8 ? X->bins8 + f * X->n_rows : NULL;
    uint8_t lut[256];
    if (col) side_lut(lut, s->bin, (size_t)s->default_left);
    size_t nl = 0;
#define LEAF_SIDES(FAST)                                                                           \
    for (size_t i = lo; i < hi; i++) {                                                             \
        const gv_row r = idx[i];                                                                   \
        const size_t left = LEAF_SIDE(FAST, r);                                                    \
        if (leaf) leaf[r] = l0 + (uint32_t)(1 - left);                                             \
        side[i] = (uint8_t)left;                                                                   \
        nl += left;                                                                                \
    }
    if (col)
        LEAF_SIDES(1)
    else
        LEAF_SIDES(0)
#undef LEAF_SIDES
    return nl;
}

/* Position i's (g, h) from ns (gv_gh pairs) added to (*G, *H) where m is 1, +0.0 where m is
 * 0: the bits masked, without a branch (sums from +0.0 are never -0.0, so they keep their
 * bits).  What the leaf splits (leaves_grad_one, split_leaves_grad) sum the smaller side's
 * rows with. */
static inline __attribute__((always_inline)) void add_masked(const double *ns, size_t i,
                                                             size_t m, double *G, double *H)
{
    const uint32_t mask = (uint32_t)0 - (uint32_t)m;
    uint32_t gb, hb;
    float gf, hf;
    const gv_gh *p = (const gv_gh *)(const void *)ns + i;
    memcpy(&gb, &p->g, sizeof gb);
    memcpy(&hb, &p->h, sizeof hb);
    gb &= mask;
    hb &= mask;
    memcpy(&gf, &gb, sizeof gf);
    memcpy(&hf, &hb, sizeof hf);
    *G += (double)gf;
    *H += (double)hf;
}

/* leaf_sides with the left count known (from the node's histogram: `want`, the smaller side's
 * LEAF_SIDE, the left on a tie), in one pass: each row's leaf to leaf (if not NULL), and the
 * smaller side's rows summed in position order by blocks of ROW_BLOCK of them into t (zeroed),
 * as leaves_grad_one's second pass sums them (the same bits).  Returns the left count. */
static inline __attribute__((always_inline)) size_t
leaf_sides_sum(const gv_binned *X, const gv_split *s, const uint32_t *bits, const gv_row *idx,
               const double *ns, uint32_t *leaf, uint32_t l0, size_t want, double *t, size_t lo,
               size_t hi)
{
    const size_t f = (size_t)s->feature;
    const uint8_t *col = !bits && X->bins8 ? X->bins8 + f * X->n_rows : NULL;
    uint8_t lut[256];
    if (col) side_lut(lut, s->bin, (size_t)s->default_left);
    size_t nl = 0, len = 0;
    double G = 0, H = 0;
#define LEAF_SIDES_SUM(FAST)                                                                       \
    for (size_t i = lo; i < hi; i++) {                                                             \
        const gv_row r = idx[i];                                                                   \
        const size_t left = LEAF_SIDE(FAST, r), m = left == want;                                  \
        if (leaf) leaf[r] = l0 + (uint32_t)(1 - left);                                             \
        nl += left;                                                                                \
        add_masked(ns, i, m, &G, &H);                                                              \
        len += m;                                                                                  \
        if (len == ROW_BLOCK) {                                                                    \
            t[0] += (double)ROW_BLOCK, t[1] += G, t[2] += H;                                       \
            len = 0, G = 0, H = 0;                                                                 \
        }                                                                                          \
    }
    if (col)
        LEAF_SIDES_SUM(1)
    else
        LEAF_SIDES_SUM(0)
#undef LEAF_SIDES_SUM
    if (len) t[0] += (double)len, t[1] += G, t[2] += H;
    return nl;
}
#undef LEAF_SIDE

/* split_leaves_grad on one thread (its one chunk): the leaves and sides of the positions, then
 * the smaller side's blocks of ROW_BLOCK rows added to its zeroed totals as they complete (as
 * add_parts adds them, in order), the larger's the parent's minus those.  The same bits as any
 * number of chunks; what a level's leaf splits run, one node per thread (leaves_batch). */
static void leaves_grad_one(grower *gr, const gv_split *s, const uint32_t *bits, size_t begin,
                            size_t end, size_t first, size_t id, size_t nl_known)
{
    gv_engine *e = &gr->e;
    const gv_binned *X = e->X;
    const size_t n = end - begin;
    const gv_row *idx = e->idx;
    const double *ns = e->ns;
    uint32_t *leaf = e->in->leaf_of_row;
    const uint32_t l0 = (uint32_t)first;
    if (nl_known <= n) { /* one pass */
        const size_t want = nl_known <= n - nl_known;
        double *t = gr->tot + (want ? first : first + 1) * 3;
        const size_t got = leaf_sides_sum(X, s, bits, idx, ns, leaf, l0, want, t, begin, end);
        assert(got == nl_known);
        (void)got;
        double *large = gr->tot + (want ? first + 1 : first) * 3;
        for (size_t k = 0; k < 3; k++) large[k] = gr->tot[id * 3 + k] - t[k];
        return;
    }
    uint8_t *side = (uint8_t *)(void *)(e->tmp + begin) - begin;
    const size_t nl = leaf_sides(X, s, bits, idx, leaf, l0, side, begin, end);
    const size_t want = nl <= n - nl; /* the small side's LEAF_SIDE */
    double *t = gr->tot + (want ? first : first + 1) * 3;
    size_t len = 0;
    double G = 0, H = 0;
    for (size_t i = begin; i < end; i++) {
        const size_t m = side[i] == want;
        add_masked(ns, i, m, &G, &H);
        len += m;
        if (len == ROW_BLOCK) {
            t[0] += (double)ROW_BLOCK, t[1] += G, t[2] += H;
            len = 0, G = 0, H = 0;
        }
    }
    if (len) t[0] += (double)len, t[1] += G, t[2] += H;
    double *large = gr->tot + (want ? first + 1 : first) * 3;
    for (size_t k = 0; k < 3; k++) large[k] = gr->tot[id * 3 + k] - t[k];
}

/* GRAD with ns_pos, a binary split whose children (ids first, first + 1) are leaves: the rows
 * stay in the parent's range (the children own none of it; leaves_of_rows skips them), each
 * row's leaf is written to leaf_of_row, and the smaller child's totals are summed from ns at
 * the parent's positions, its rows taken in order, by the blocks of ROW_BLOCK of its rows that
 * sum_gathered would take after a partition (so the same bits); the larger child's are the
 * parent's minus those, as apply_split does.  Two passes over the positions, in parallel over equal chunks: the leaves and the
 * left count of each chunk, then the smaller side's blocks, each summed by the chunk where it
 * starts. */
static void split_leaves_grad(grower *gr, const gv_split *s, const uint32_t *bits, size_t begin,
                              size_t end, size_t first, size_t id)
{
    gv_engine *e = &gr->e;
    const size_t n = end - begin;
    if (e->nt < 2 || n < 2 * PART_BLOCK) { /* one chunk */
        leaves_grad_one(gr, s, bits, begin, end, first, id, SIZE_MAX);
        return;
    }
    const size_t nc = (size_t)e->nt;
    const gv_binned *X = e->X;
    const gv_row *idx = e->idx;
    const double *ns = e->ns;
    uint32_t *leaf = e->in->leaf_of_row;
    const uint32_t l0 = (uint32_t)first;
    /* each position's side, 1 left: a byte at the children's positions in the other buffers
     * (free: the children are leaves; the parent's own rows are read, tree_int.h) */
    uint8_t *side = (uint8_t *)(void *)(e->tmp + begin) - begin;
    size_t *cnt = e->block_left, *pre = cnt + nc; /* [nc] left rows, [nc + 1] small rows before */
    double *part = e->part;
    const size_t n_blocks_max = n / ROW_BLOCK + 1;
    size_t n_small = 0, left_small = 1;
    double *t = NULL;
#ifdef _OPENMP
#pragma omp parallel num_threads(e->nt)
#endif
    {
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
        for (size_t c = 0; c < nc; c++) {
            const size_t lo = block_lo(begin, end, (n + nc - 1) / nc, c);
            const size_t hi = block_lo(begin, end, (n + nc - 1) / nc, c + 1);
            const size_t nl = leaf_sides(X, s, bits, idx, leaf, l0, side, lo, hi);
            cnt[c] = nl;
        }
#ifdef _OPENMP
#pragma omp single
#endif
        {
            size_t nl = 0;
            for (size_t c = 0; c < nc; c++) nl += cnt[c];
            left_small = nl <= n - nl;
            n_small = left_small ? nl : n - nl;
            pre[0] = 0;
            for (size_t c = 0; c < nc; c++) {
                const size_t lo = block_lo(begin, end, (n + nc - 1) / nc, c);
                const size_t hi = block_lo(begin, end, (n + nc - 1) / nc, c + 1);
                pre[c + 1] = pre[c] + (left_small ? cnt[c] : hi - lo - cnt[c]);
            }
            t = gr->tot + (left_small ? first : first + 1) * 3;
            memset(part, 0, n_blocks_max * 3 * sizeof *part);
        }
        /* chunk c sums the blocks that start among its small rows: small rows j in
         * [ceil(pre[c] / RB) RB, ceil(pre[c + 1] / RB) RB) (the last chunk: to n_small);
         * (nowait: the region's end waits) */
#ifdef _OPENMP
#pragma omp for schedule(static) nowait
#endif
        for (size_t c = 0; c < nc; c++) {
            const size_t RB = ROW_BLOCK;
            const size_t j0 = (pre[c] + RB - 1) / RB * RB;
            size_t j1 = (pre[c + 1] + RB - 1) / RB * RB;
            if (c == nc - 1 || j1 > n_small) j1 = n_small;
            if (j0 >= j1) continue;
            const size_t want = left_small; /* the small side's LEAF_SIDE */
            size_t i = block_lo(begin, end, (n + nc - 1) / nc, c), j = pre[c];
            for (; j < j0; i++) j += side[i] == want;
            /* (a row of the other side adds +0.0: sums from +0.0 are never -0.0, so they keep
             * their bits) */
            size_t b = j0 / RB, len = 0;
            double G = 0, H = 0;
            for (; j < j1; i++) {
                const size_t m = side[i] == want;
                add_masked(ns, i, m, &G, &H);
                j += m;
                len += m;
                if (len == RB) {
                    part[3 * b] = (double)RB, part[3 * b + 1] = G, part[3 * b + 2] = H;
                    b++, len = 0, G = 0, H = 0;
                }
            }
            if (len) part[3 * b] = (double)len, part[3 * b + 1] = G, part[3 * b + 2] = H;
        }
    }
    /* sum_gathered's combination: the blocks added in order to the zeroed totals (0 + x = x
     * where sum_gathered sums one block straight into them) */
    const size_t n_blocks = (n_small + ROW_BLOCK - 1) / ROW_BLOCK;
    add_parts(part, n_blocks ? n_blocks : 1, 3, t);
    double *large = gr->tot + (left_small ? first + 1 : first) * 3;
    for (size_t k = 0; k < 3; k++) large[k] = gr->tot[id * 3 + k] - t[k];
}

/* The end of a split of node id into its k children first..: their values, the parent's split. */
static void finish_split(grower *gr, size_t id, size_t first, size_t k, const gv_split *s,
                         uint32_t cat_begin)
{
    const gv_bin_mapper *mp = &gr->e.X->mappers[s->feature];
    for (size_t c = 0; c < k; c++) node_finish(gr, first + c);

    gv_tree_node *nd = &gr->t->nodes[id];
    nd->feature = s->feature;
    nd->type = s->type;
    nd->gain = s->gain;
    if (s->type == GV_NODE_NUM) {
        nd->default_left = s->default_left;
        nd->bin_split = s->bin;
        nd->threshold = mp->cuts[s->bin - 1]; /* bin <= b  <=>  x <= cuts[b - 1] */
        nd->left = (int32_t)first;
        nd->right = (int32_t)first + 1;
    } else if (s->type == GV_NODE_CAT_SET) {
        nd->default_left = s->default_left;
        nd->left = (int32_t)first;
        nd->right = (int32_t)first + 1;
        nd->cat_begin = cat_begin;
        nd->cat_len = s->cat_len;
    } else {
        nd->left = (int32_t)first;
        nd->right = (int32_t)(first + gr->child_of[s->bin]);
        nd->cat_begin = cat_begin;
        nd->cat_len = mp->n_bins - 1;
    }
    gr->n_leaves += k - 1;
}

/* Applies node id's split: creates its k children (ids first..first+k-1), partitions the rows
 * stably (with the node's histogram `hist`, or NULL, giving the left count), sums the
 * children's totals and fills the parent's node. */
static grove_status apply_split(grower *gr, size_t id, size_t k, const double *hist,
                                size_t *first_out)
{
    gv_engine *e = &gr->e;
    const gv_split s = gr->g[id].split;
    grove_status st = ensure_nodes(gr, k);
    if (st != GROVE_OK) return st;
    gv_tree *t = gr->t;
    const gv_binned *X = e->X;
    const gv_bin_mapper *mp = &X->mappers[s.feature];
    size_t f = (size_t)s.feature, S = e->S;
    size_t begin = gr->g[id].begin, end = gr->g[id].end;
    int depth = t->nodes[id].depth + 1;
    size_t first = t->n_nodes;
    e->gathered_begin = e->gathered_end = 0; /* the rows move: ns no longer matches */
    at_depth(e, depth - 1); /* (ns_pos: the parent's buffers; the children's are the others) */
    for (size_t c = 0; c < k; c++) new_node(gr, depth, begin, begin);
    gv_row *idx = e->idx, *tmp = e->tmp;
    /* children that cannot split (max_depth) need totals and leaves only, not their rows
     * (split_in_place; GRAD with ns_pos: split_leaves_grad, which keeps its sums' order) */
    const int leaves = e->cfg->max_depth > 0 && depth >= e->cfg->max_depth;
    const int in_place = leaves && e->cfg->stats != GV_STATS_GRAD && !e->ns_pos;
    uint32_t cat_begin = 0;

    if (s.type != GV_NODE_CAT_MULTI && leaves && e->ns_pos && e->plan.leaf_in_place) {
        /* GRAD: the same, the (g, h) read where they are */
        const uint32_t *bits = s.type == GV_NODE_CAT_SET ? e->cat_pool + s.cat_off : NULL;
        split_leaves_grad(gr, &s, bits, begin, end, first, id);
        if (bits) {
            st = append_cat(gr, bits, s.cat_len, &cat_begin);
            if (st != GROVE_OK) return st;
        }
    } else if (s.type != GV_NODE_CAT_MULTI && in_place) {
        /* the children's rows stay in the parent's range; they own none of it (leaves_of_rows
         * skips them: split_in_place wrote their rows' leaves) */
        const uint32_t *bits = s.type == GV_NODE_CAT_SET ? e->cat_pool + s.cat_off : NULL;
        const int known = gr->side_of == id;
        if (known) memcpy(gr->tot + first * S, gr->side_tot, 2 * S * sizeof *gr->tot);
        gr->side_of = SIZE_MAX;
        split_in_place(gr, &s, bits, begin, end, first, !known);
        if (!known) {
            reduce_totals(gr, first);
            reduce_totals(gr, first + 1);
        }
        if (bits) {
            st = append_cat(gr, bits, s.cat_len, &cat_begin);
            if (st != GROVE_OK) return st;
        }
    } else if (s.type != GV_NODE_CAT_MULTI) {
        const uint32_t *bits = s.type == GV_NODE_CAT_SET ? e->cat_pool + s.cat_off : NULL;
        /* GRAD: the smaller child's statistics are gathered while the rows move (in parallel),
         * once, for both its totals (summed from them in order, not through idx) and its
         * histogram if it may split (gv_hist_build) */
        const int gather = e->cfg->stats == GV_STATS_GRAD && !e->quant && !e->cfg->dist &&
                           !e->ns_pos;
        int summed = 0;
        size_t w;
        if (gr->pre_id == id) { /* made with its level's (partition_level) */
            w = gr->pre_w;
            summed = gr->pre_summed;
            memcpy(gr->tot + first * S, gr->pre_tot, sizeof gr->pre_tot);
            gr->pre_id = SIZE_MAX;
        } else {
            w = partition_binary(e, &s, bits, begin, end, gather,
                                 gr->subset || X->csr_ptr ? NULL : hist,
                                 e->cfg->stats == GV_STATS_GRAD ? gr->tot + first * S : NULL,
                                 &summed);
        }
        at_depth(e, depth);
        size_t n_right = end - w;
        if (e->cfg->stats == GV_STATS_GRAD) {
            /* gradient sums: the smaller child's from its rows, the larger's as parent minus
             * smaller (counts stay exact; nothing depends on the thread count).  Class and
             * regression totals are summed from rows: subtraction could leave a class weight
             * of -1e-15 where a class has no row, or cancel in the variance. */
            size_t small = w - begin <= n_right ? first : first + 1, large = 2 * first + 1 - small;
            if (e->cfg->dist) /* the same child on every rank: the left one */
                small = first, large = first + 1;
            size_t lo = small == first ? begin : w, hi = small == first ? w : end;
            if (e->ns_pos) { /* ns holds every position's (g, h) (summed by the partition?) */
                if (!summed) sum_gathered(e, lo, hi - lo, gr->tot + small * S);
            } else if (gather) { /* (the smaller child is partition_binary's, the left on a tie) */
                sum_gathered(e, lo, hi - lo, gr->tot + small * S);
                e->gathered_begin = lo;
                e->gathered_end = hi;
            } else if (e->quant && !e->cfg->dist &&
                       (e->cfg->max_depth == 0 || depth < e->cfg->max_depth)) {
                /* the same for the integer records (the totals from the exact g, h) */
                sum_gather_quant(e, lo, hi - lo, gr->tot + small * S);
                gv_hist_gathered_quant(e, lo, hi);
            } else {
                sum_rows(e, idx + lo, hi - lo, gr->tot + small * S);
            }
            reduce_totals(gr, small);
            for (size_t q = 0; q < S; q++)
                gr->tot[large * S + q] = gr->tot[id * S + q] - gr->tot[small * S + q];
        } else {
            sum_rows(e, idx + begin, w - begin, gr->tot + first * S);
            sum_rows(e, idx + w, n_right, gr->tot + (first + 1) * S);
            reduce_totals(gr, first);
            reduce_totals(gr, first + 1);
        }
        gr->g[first].begin = begin;
        gr->g[first].end = w;
        gr->g[first + 1].begin = w;
        gr->g[first + 1].end = end;
        if (bits) {
            st = append_cat(gr, bits, s.cat_len, &cat_begin);
            if (st != GROVE_OK) return st;
        }
    } else {
        /* Multiway: children in code order of the present categories; missing rows (and
         * categories without rows here) go to the default child. */
        uint32_t n_cat = mp->n_bins - 1;
        const uint32_t *present = e->cat_pool + s.cat_off;
        uint32_t rank = 0;
        for (uint32_t c = 0; c < n_cat; c++)
            gr->child_of[c] = (present[c / 32] >> (c % 32)) & 1u ? rank++ : UINT32_MAX;
        uint32_t def = gr->child_of[s.bin];
        size_t *pos = gr->child_pos;
        memset(pos, 0, (k + 1) * sizeof *pos);
        for (size_t i = begin; i < end; i++) {
            uint32_t b = gv_bin_at(X, f, idx[i]);
            uint32_t ch = b == 0 || gr->child_of[b - 1] == UINT32_MAX ? def : gr->child_of[b - 1];
            pos[ch + 1]++;
        }
        for (size_t c = 0; c < k; c++) pos[c + 1] += pos[c];
        for (size_t c = 0; c < k; c++) {
            gr->g[first + c].begin = begin + pos[c];
            gr->g[first + c].end = begin + pos[c + 1];
        }
        for (size_t i = begin; i < end; i++) {
            gv_row r = idx[i];
            uint32_t b = gv_bin_at(X, f, r);
            uint32_t ch = b == 0 || gr->child_of[b - 1] == UINT32_MAX ? def : gr->child_of[b - 1];
            if (e->ns_pos) { /* straight to the children's buffers (tree_int.h) */
                ((gv_gh *)(void *)e->ns_tmp)[begin + pos[ch]] = ((const gv_gh *)(const void *)e->ns)[i];
                if (e->q_pos) e->qrec_tmp[begin + pos[ch]] = e->qrec[i];
                tmp[begin + pos[ch]++] = r;
                continue;
            }
            tmp[pos[ch]++] = r;
        }
        if (e->ns_pos) {
            at_depth(e, depth);
            idx = e->idx;
        } else {
            memcpy(idx + begin, tmp, (end - begin) * sizeof *idx);
        }
        for (size_t c = 0; c < k; c++) {
            sum_rows(e, idx + gr->g[first + c].begin, gr->g[first + c].end - gr->g[first + c].begin,
                     gr->tot + (first + c) * S);
            reduce_totals(gr, first + c);
        }
        st = append_cat(gr, NULL, n_cat, &cat_begin);
        if (st != GROVE_OK) return st;
        for (uint32_t c = 0; c < n_cat; c++)
            t->cat_data[cat_begin + c] =
                gr->child_of[c] == UINT32_MAX ? UINT32_MAX : (uint32_t)first + gr->child_of[c];
    }
    finish_split(gr, id, first, k, &s, cat_begin);
    *first_out = first;
    return GROVE_OK;
}

/* Depth-wise GRAD growth: whether node id's split makes two leaves that split_leaves_grad
 * computes (apply_split's first case), so that leaves_batch may take it with the level's
 * others. */
static int leaf_batchable(const grower *gr, size_t id)
{
    const gv_engine *e = &gr->e;
    const gv_tree_config *cfg = e->cfg;
    return !cfg->best_first && cfg->max_leaves == 0 && cfg->max_depth > 0 && e->ns_pos &&
           e->plan.leaf_in_place && gr->g[id].split.type != GV_NODE_CAT_MULTI &&
           gr->t->nodes[id].depth + 1 >= cfg->max_depth;
}

static int cmp_rows_desc(const void *a, const void *b)
{
    const size_t *x = a, *y = b; /* (rows, index) pairs: most rows first, then index order */
    if (x[0] != y[0]) return x[0] < y[0] ? 1 : -1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/* apply_split (and eval_children, which has nothing to do for leaves) for the m nodes ids[]
 * of one level whose children are leaves (leaf_batchable), in one parallel region instead of
 * one per node: the children are created in the order apply_split would create them, each
 * node's leaves and sums are leaves_grad_one's (one thread each, the largest nodes first;
 * a node too large to share out so goes through split_leaves_grad's chunks first), and the
 * nodes are filled in order.  The same bits as one node after the other. */
static grove_status leaves_batch(grower *gr, const size_t *ids, size_t m)
{
    gv_engine *e = &gr->e;
    gv_tree *t = gr->t;
    grove_status st = ensure_nodes(gr, 2 * m);
    if (st != GROVE_OK) return st;
    size_t *order = gv_malloc_array(3 * m, sizeof *order), *nl = order + 2 * m;
    if (!order) return gv_err_nomem("tree level");
    const size_t first0 = t->n_nodes;
    const int depth = t->nodes[ids[0]].depth + 1;
    size_t total = 0;
    e->gathered_begin = e->gathered_end = 0;
    at_depth(e, depth - 1);
    for (size_t j = 0; j < m; j++) {
        gnode *g = &gr->g[ids[j]];
        assert(t->nodes[ids[j]].depth + 1 == depth);
        nl[j] = g->leaf_nl ? g->leaf_nl - 1 : SIZE_MAX; /* known: one pass */
        if (g->hist) {
            e->n_kept--;
            gv_hist_release(e, g->hist);
            g->hist = NULL;
        }
        for (size_t c = 0; c < 2; c++) new_node(gr, depth, g->begin, g->begin);
        order[2 * j] = g->end - g->begin;
        order[2 * j + 1] = j;
        total += g->end - g->begin;
    }
    qsort(order, m, 2 * sizeof *order, cmp_rows_desc);
    /* a node of more than a 2 nt-th of the rows: its own chunks (else one thread would be
     * left with it alone) */
    size_t n_big = 0;
    const size_t nt = (size_t)e->nt;
    while (n_big < m && nt > 1 && order[2 * n_big] >= 2 * PART_BLOCK &&
           order[2 * n_big] * 2 * nt > total) {
        const size_t j = order[2 * n_big + 1], id = ids[j];
        const gv_split *s = &gr->g[id].split;
        split_leaves_grad(gr, s, s->type == GV_NODE_CAT_SET ? e->cat_pool + s->cat_off : NULL,
                          gr->g[id].begin, gr->g[id].end, first0 + 2 * j, id);
        total -= order[2 * n_big];
        n_big++;
    }
#ifdef _OPENMP
#pragma omp parallel for num_threads(e->nt) schedule(dynamic, 1) \
    if (nt > 1 && m - n_big > 1 && total >= 2 * PART_BLOCK)
#endif
    for (size_t q = n_big; q < m; q++) {
        const size_t j = order[2 * q + 1], id = ids[j];
        const gv_split *s = &gr->g[id].split;
        leaves_grad_one(gr, s, s->type == GV_NODE_CAT_SET ? e->cat_pool + s->cat_off : NULL,
                        gr->g[id].begin, gr->g[id].end, first0 + 2 * j, id, nl[j]);
    }
    gv_free(order);
    for (size_t j = 0; j < m; j++) {
        const size_t id = ids[j];
        const gv_split s = gr->g[id].split;
        uint32_t cat_begin = 0;
        if (s.type == GV_NODE_CAT_SET) {
            st = append_cat(gr, e->cat_pool + s.cat_off, s.cat_len, &cat_begin);
            if (st != GROVE_OK) return st;
        }
        finish_split(gr, id, first0 + 2 * j, 2, &s, cat_begin);
    }
    at_depth(e, depth);
    return GROVE_OK;
}

/* Obtains histograms for, and evaluates, the k children of a split node.  Takes over the
 * parent's histogram `phist` (may be NULL). */
static grove_status eval_children(grower *gr, size_t first, size_t k, double *phist)
{
    gv_engine *e = &gr->e;
    at_depth(e, gr->t->nodes[first].depth);
    grove_status st = GROVE_OK;
    size_t largest = 0, others = 0;
    for (size_t c = 0; c < k; c++)
        if (node_count(gr, first + c) > node_count(gr, first + largest)) largest = c;
    size_t n_largest = node_count(gr, first + largest);
    for (size_t c = 0; c < k; c++)
        if (c != largest) others += node_count(gr, first + c);

    if (phist && !gr->subset && !e->X->csr_ptr && splittable(gr, first + largest) &&
        n_largest >= gr->touched_rows &&
        others < n_largest) {
        /* histogram(largest) = histogram(parent) - sum of the others' histograms.  A binary
         * split subtracts during the larger child's scan (split.c), feature by feature while
         * the feature is in cache; a multiway one subtracts each other child first. */
        double *last = NULL;
        for (size_t c = 0; c < k; c++) {
            if (c == largest) continue;
            double *hc = gv_hist_acquire(e);
            if (!hc) {
                gv_hist_release(e, phist);
                return gv_err_nomem("tree histograms");
            }
            gv_hist_build(e, gr->g[first + c].begin, gr->g[first + c].end, gr->all_feats,
                          gr->n_all, hc);
            reduce_hist(e, hc, gr->all_feats, gr->n_all);
            if (k > 2)
                gv_hist_subtract(e, phist, hc);
            else
                last = hc;
            /* binary: hc stays ours until the larger child's scan has subtracted it (a child
             * that keeps hc does not split before then) */
            st = evaluate(gr, first + c, hc, NULL, k == 2);
            if (st != GROVE_OK) {
                if (last && gr->g[first + c].hist != last) gv_hist_release(e, last);
                gv_hist_release(e, phist);
                return st;
            }
        }
        st = evaluate(gr, first + largest, phist, last, 0);
        if (last && gr->g[first + (largest == 0)].hist != last) gv_hist_release(e, last);
        return st;
    }
    gv_hist_release(e, phist);
    for (size_t c = 0; c < k && st == GROVE_OK; c++) st = evaluate(gr, first + c, NULL, NULL, 0);
    return st;
}

/* ---- open nodes: a FIFO (depth-wise) or a max-heap on (gain, -id) (best-first) ---- */

static int heap_before(const grower *gr, size_t a, size_t b)
{
    double ga = gr->g[a].split.gain, gb = gr->g[b].split.gain;
    if (ga != gb) return ga > gb;
    return a < b;
}

static grove_status open_push(grower *gr, size_t id)
{
    if (gr->n_open == gr->cap_open) {
        size_t cap = gr->cap_open ? 2 * gr->cap_open : 64;
        size_t *p = gv_realloc_array(gr->open, cap, sizeof *p);
        if (!p) return gv_err_nomem("tree open nodes");
        gr->open = p;
        gr->cap_open = cap;
    }
    size_t i = gr->n_open++;
    gr->open[i] = id;
    if (gr->e.cfg->best_first) {
        while (i > 0) {
            size_t parent = (i - 1) / 2;
            if (!heap_before(gr, gr->open[i], gr->open[parent])) break;
            size_t t = gr->open[i];
            gr->open[i] = gr->open[parent];
            gr->open[parent] = t;
            i = parent;
        }
    }
    return GROVE_OK;
}

/* Takes the next node to split; 0 when none is left. */
static int open_pop(grower *gr, size_t *id)
{
    if (!gr->e.cfg->best_first) {
        if (gr->head == gr->n_open) return 0;
        *id = gr->open[gr->head++];
        return 1;
    }
    if (gr->n_open == 0) return 0;
    *id = gr->open[0];
    gr->open[0] = gr->open[--gr->n_open];
    size_t i = 0, n = gr->n_open;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && heap_before(gr, gr->open[l], gr->open[m])) m = l;
        if (r < n && heap_before(gr, gr->open[r], gr->open[m])) m = r;
        if (m == i) break;
        size_t t = gr->open[i];
        gr->open[i] = gr->open[m];
        gr->open[m] = t;
        i = m;
    }
    return 1;
}

/* level_batch builds a level's histograms before it scans any: only where they are small
 * (1M x 28: 172 KB; fashion-MNIST's 4.8 MB would be scanned from memory instead of cache, and
 * its nodes' own regions are long and balanced already: d6 fashion 15k, 5 rounds, took 4 %
 * longer batched). */
#define LEVEL_HIST_MAX_BYTES ((size_t)1 << 20)

/* Depth-wise GRAD growth, all features numeric candidates: whether node id (to split, its
 * histogram kept, its children may split) may be taken with its level's others (level_batch). */
static int level_batchable(const grower *gr, size_t id)
{
    const gv_engine *e = &gr->e;
    const gv_tree_config *cfg = e->cfg;
    if (cfg->best_first || cfg->max_leaves != 0 || !e->ns_pos || e->quant || e->nt < 2 ||
        gr->subset || e->X->csr_ptr || e->touched || cfg->random_thresholds || cfg->dist ||
        !gr->g[id].hist || gr->g[id].split.type != GV_NODE_NUM || leaf_batchable(gr, id) ||
        e->hist_len * sizeof(double) > LEVEL_HIST_MAX_BYTES)
        return 0;
    for (size_t k = 0; k < gr->n_all; k++)
        if (e->X->mappers[gr->all_feats[k]].is_categorical) return 0;
    return 1;
}

/* level_batch, 2 threads: the partitions of the m nodes ids[] (histograms ph[], each left
 * count known from it) in one parallel region instead of one per node: partition_binary's
 * moves (a node of 2 PART_BLOCK rows or more: the first half forward, the second backward;
 * a smaller one forward on one thread), then every smaller child's blocks' sums (the largest
 * blocks first: a child of one block summed here instead of on one thread after the region,
 * sum_gathered's), added in order to w[], summed[], tot[6 m].  The same partitions and sums.
 * 0 (nothing done) where some node's left count is not known. */
static int partition_level(grower *gr, const size_t *ids, double *const *ph, size_t m,
                           size_t *w, int *summed, double *tot)
{
    gv_engine *e = &gr->e;
    if (e->nt != 2 || e->S != 3 || !e->ns_pos) return 0;
    size_t n_tasks = 0, n_sums = 0;
    for (size_t j = 0; j < m; j++) {
        const gnode *g = &gr->g[ids[j]];
        const size_t n = g->end - g->begin;
        size_t nl;
        if (g->split.type != GV_NODE_NUM || !hist_left_rows(e, ph[j], &g->split, NULL, &nl) ||
            nl > n)
            return 0;
        w[j] = g->begin + nl;
        n_tasks += n < 2 * PART_BLOCK ? 1 : 2;
        const size_t small_n = nl <= n - nl ? nl : n - nl, nb = (small_n + ROW_BLOCK - 1) / ROW_BLOCK;
        n_sums += nb;
    }
    size_t *task = gv_malloc_array(2 * n_tasks + 3 * n_sums + m + 1, sizeof *task);
    double *part = gv_malloc_array(3 * (n_sums + 1), sizeof *part);
    if (!task || !part) {
        gv_free(task);
        gv_free(part);
        return 0;
    }
    /* tasks (rows, 2 j + half), largest first; sum tasks (rows, j, block), largest first;
     * node j's blocks at off[j] */
    size_t *sum = task + 2 * n_tasks, *off = sum + 3 * n_sums, q = 0, r = 0;
    for (size_t j = 0; j < m; j++) {
        const gnode *g = &gr->g[ids[j]];
        const size_t n = g->end - g->begin, nl = w[j] - g->begin;
        const size_t small_n = nl <= n - nl ? nl : n - nl, nb = (small_n + ROW_BLOCK - 1) / ROW_BLOCK;
        if (n < 2 * PART_BLOCK) {
            task[2 * q] = n, task[2 * q + 1] = 2 * j, q++;
        } else {
            task[2 * q] = n / 2, task[2 * q + 1] = 2 * j, q++;
            task[2 * q] = n - n / 2, task[2 * q + 1] = 2 * j + 1, q++;
        }
        off[j] = r;
        summed[j] = nb > 0;
        for (size_t b = 0; b < nb; b++) {
            size_t *u = sum + 3 * (r + b);
            u[0] = small_n - b * ROW_BLOCK < ROW_BLOCK ? small_n - b * ROW_BLOCK : ROW_BLOCK;
            u[1] = j;
            u[2] = b;
        }
        r += nb;
    }
    qsort(task, n_tasks, 2 * sizeof *task, cmp_rows_desc);
    qsort(sum, n_sums, 3 * sizeof *sum, cmp_rows_desc); /* (any order: each block has its slot) */
    memset(part, 0, 3 * (n_sums + 1) * sizeof *part);
    at_depth(e, gr->t->nodes[ids[0]].depth);
#ifdef _OPENMP
#pragma omp parallel num_threads(2)
#endif
    {
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
        for (size_t k = 0; k < n_tasks; k++) {
            const size_t j = task[2 * k + 1] / 2, half = task[2 * k + 1] % 2;
            const gnode *g = &gr->g[ids[j]];
            const size_t n = g->end - g->begin, mid = n < 2 * PART_BLOCK ? g->end : g->begin + n / 2;
            if (half == 0)
                block_move(e, &g->split, NULL, g->begin, mid, g->begin, w[j]);
            else
                block_move_back(e, &g->split, NULL, mid, g->end, w[j], g->end);
        }
        /* two blocks a task (the next largest: similar lengths), summed side by side */
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1) nowait
#endif
        for (size_t k2 = 0; k2 < (n_sums + 1) / 2; k2++) {
            size_t a[2], len[2];
            double *dst[2];
            const size_t nk = 2 * k2 + 1 < n_sums ? 2 : 1;
            for (size_t u = 0; u < nk; u++) {
                const size_t k = 2 * k2 + u, j = sum[3 * k + 1], b = sum[3 * k + 2];
                const gnode *g = &gr->g[ids[j]];
                const size_t n = g->end - g->begin, nl = w[j] - g->begin;
                const int left_small = nl <= n - nl;
                a[u] = gathered_span(left_small ? g->begin : w[j], left_small ? nl : n - nl, b,
                                     &len[u]);
                dst[u] = part + 3 * (off[j] + b);
            }
            if (nk == 2)
                gathered_two(e->ns_tmp, a[0], len[0], dst[0], a[1], len[1], dst[1]);
            else
                gathered_two(e->ns_tmp, a[0], len[0], dst[0], a[0], 0, part + 3 * n_sums);
        }
    }
    /* small_sums_end: the blocks added in order to the zeroed totals of the smaller child */
    for (size_t j = 0; j < m; j++) {
        double *t = tot + 6 * j;
        memset(t, 0, 6 * sizeof *t);
        if (!summed[j]) continue;
        const gnode *g = &gr->g[ids[j]];
        const size_t n = g->end - g->begin, nl = w[j] - g->begin;
        const size_t small_n = nl <= n - nl ? nl : n - nl, nb = (small_n + ROW_BLOCK - 1) / ROW_BLOCK;
        double *st = t + (nl <= n - nl ? 0 : 3);
        for (size_t b = 0; b < nb; b++)
            for (size_t k = 0; k < 3; k++) st[k] += part[3 * (off[j] + b) + k];
    }
    gv_free(task);
    gv_free(part);
    return 1;
}

/* For the m nodes ids[] of one level (level_batchable, their histograms kept, the pool room
 * for all their children's: n_kept + m <= max_kept, so every keep eval_children would make
 * is made here too): apply_split for each in order, then eval_children's subtraction for
 * all of them at once: the smaller children's histograms in one parallel region
 * (gv_hist_build_level), the 2 m scans in another (gv_split_find_one, one child per thread,
 * largest first), then each child's split and kept histogram in eval_children's order.
 * Where some node's children do not take the subtraction, eval_children for each in order.
 * The same trees as one node after the other. */
static grove_status level_batch(grower *gr, const size_t *ids, size_t m)
{
    gv_engine *e = &gr->e;
    const size_t S = e->S, F = e->X->n_features, nt = (size_t)e->nt;
    grove_status st = GROVE_OK;
    size_t *first = gv_malloc_array(4 * m, sizeof *first);
    double **hist = gv_malloc_array(4 * m, sizeof *hist); /* [m] parents', [m] smaller's, [2 m] */
    size_t *ord = gv_malloc_array(4 * m, sizeof *ord);
    gv_split *res = gv_malloc_array(2 * m, sizeof *res);
    grove_status *sts = gv_malloc_array(2 * m, sizeof *sts);
    gv_split *fb = gv_malloc_array(nt * F, sizeof *fb);
    int *psum = gv_malloc_array(m, sizeof *psum);
    double *ptot = gv_malloc_array(6 * m, sizeof *ptot);
    if (!first || !hist || !ord || !res || !sts || !fb || !psum || !ptot) {
        st = gv_err_nomem("tree level");
        goto out;
    }
    for (size_t j = 0; j < 2 * m; j++) hist[j] = NULL; /* the histograms held here */
    double **ph = hist, **hc = hist + m;
    size_t *rows = first + m, *bg = first + 2 * m, *en = first + 3 * m;
    for (size_t j = 0; j < m; j++) ph[j] = gr->g[ids[j]].hist;
    /* the partitions first, together (handed to apply_split one node at a time) */
    size_t *pw = ord;
    const int pre = m > 1 && partition_level(gr, ids, ph, m, pw, psum, ptot);
    for (size_t j = 0; j < m; j++) {
        gnode *g = &gr->g[ids[j]];
        e->n_kept--;
        g->hist = NULL;
        if (pre) {
            gr->pre_id = ids[j];
            gr->pre_w = pw[j];
            gr->pre_summed = psum[j];
            memcpy(gr->pre_tot, ptot + 6 * j, sizeof gr->pre_tot);
        }
        st = apply_split(gr, ids[j], 2, ph[j], &first[j]);
        gr->pre_id = SIZE_MAX;
        if (st != GROVE_OK) goto out;
    }
    const int depth = gr->t->nodes[first[0]].depth;
    at_depth(e, depth);
    int sub = 1;
    for (size_t j = 0; j < m && sub; j++) {
        /* eval_children's test, k = 2 (the larger: the right child only with more rows) */
        const size_t nl = node_count(gr, first[j]), nr = node_count(gr, first[j] + 1);
        const size_t large = first[j] + (nr > nl), n_large = nr > nl ? nr : nl;
        sub = splittable(gr, large) && n_large >= gr->touched_rows && nl + nr - n_large < n_large;
    }
    if (!sub) {
        for (size_t j = 0; j < m; j++) {
            double *p = ph[j];
            ph[j] = NULL; /* (eval_children's) */
            if ((st = eval_children(gr, first[j], 2, p)) != GROVE_OK) goto out;
            for (size_t c = 0; c < 2; c++)
                if (gr->g[first[j] + c].split.feature >= 0 &&
                    (st = open_push(gr, first[j] + c)) != GROVE_OK)
                    goto out;
        }
        goto out;
    }
    /* the smaller children's histograms, the nodes with most rows first */
    for (size_t j = 0; j < m; j++) {
        const size_t nl = node_count(gr, first[j]), nr = node_count(gr, first[j] + 1);
        rows[j] = nr > nl ? nl : nr;
        ord[2 * j] = rows[j];
        ord[2 * j + 1] = j;
    }
    qsort(ord, m, 2 * sizeof *ord, cmp_rows_desc);
    double **hs = hist + 2 * m;
    for (size_t q = 0; q < m; q++) {
        const size_t j = ord[2 * q + 1], small = first[j] + !(node_count(gr, first[j] + 1) > node_count(gr, first[j]));
        if (!(hc[j] = gv_hist_acquire(e))) {
            st = gv_err_nomem("tree histograms");
            goto out;
        }
        bg[q] = gr->g[small].begin;
        en[q] = gr->g[small].end;
        hs[q] = hc[j];
    }
    gv_hist_build_level(e, m, bg, en, gr->all_feats, gr->n_all, hs);
    /* the 2 m scans, the children with most rows first (child c of node j: task 2 j + c) */
    for (size_t c = 0; c < 2 * m; c++) {
        ord[2 * c] = node_count(gr, first[c / 2] + c % 2);
        ord[2 * c + 1] = c;
    }
    qsort(ord, 2 * m, 2 * sizeof *ord, cmp_rows_desc);
#ifdef _OPENMP
#pragma omp parallel for num_threads(e->nt) schedule(dynamic, 1)
#endif
    for (size_t q = 0; q < 2 * m; q++) {
        const size_t c = ord[2 * q + 1], j = c / 2, id = first[j] + c % 2;
        const int large = (node_count(gr, first[j] + 1) > node_count(gr, first[j])) == (int)(c % 2);
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        sts[c] = GROVE_OK;
        res[c].feature = -1;
        if (!splittable(gr, id)) continue;
        sts[c] = gv_split_find_one(e, tid, fb + (size_t)tid * F, large ? ph[j] : hc[j],
                                   large ? hc[j] : NULL, gr->tot + id * S, gr->all_feats,
                                   gr->n_all, &res[c]);
    }
    for (size_t c = 0; c < 2 * m; c++)
        if (sts[c] != GROVE_OK) {
            st = sts[c];
            goto out;
        }
    /* evaluate's end for the smaller child (holding hc), then the larger (taking ph), as
     * eval_children calls them */
    const int may_split = e->cfg->max_depth == 0 || depth + 1 < e->cfg->max_depth;
    for (size_t j = 0; j < m; j++) {
        const size_t lg = node_count(gr, first[j] + 1) > node_count(gr, first[j]);
        for (size_t w = 0; w < 2; w++) {
            const size_t c = 2 * j + (w == 0 ? !lg : lg), id = first[j] + c % 2;
            double *h = w == 0 ? hc[j] : ph[j];
            gnode *g = &gr->g[id];
            g->split = res[c];
            if (!may_split) note_leaf_nl(gr, id, h);
            if (res[c].feature >= 0 && may_split && e->n_kept < e->max_kept) {
                g->hist = h;
                e->n_kept++;
            } else if (w == 1) {
                gv_hist_release(e, h);
            }
        }
        ph[j] = NULL;
        if (gr->g[first[j] + !lg].hist != hc[j]) gv_hist_release(e, hc[j]);
        hc[j] = NULL;
    }
    for (size_t j = 0; j < m; j++)
        for (size_t c = 0; c < 2; c++)
            if (gr->g[first[j] + c].split.feature >= 0 &&
                (st = open_push(gr, first[j] + c)) != GROVE_OK)
                goto out;
out:
    if (hist) /* (after an error: the histograms still held) */
        for (size_t j = 0; j < 2 * m; j++) gv_hist_release(e, hist[j]);
    gv_free(first);
    gv_free(hist);
    gv_free(ord);
    gv_free(res);
    gv_free(sts);
    gv_free(fb);
    gv_free(psum);
    gv_free(ptot);
    return st;
}

/* ---- checks and setup ---- */

static grove_status check_config(const gv_tree_config *cfg, const gv_tree_input *in,
                                 const gv_rng *rng)
{
    if (cfg->stats == GV_STATS_CLASS) {
        if (cfg->criterion != GV_SPLIT_GINI && cfg->criterion != GV_SPLIT_ENTROPY &&
            cfg->criterion != GV_SPLIT_PSEUDO)
            return gv_err(GROVE_ERR_ARG,
                          "gv_tree_fit: class statistics need criterion gini, entropy or pseudo");
        if (cfg->criterion == GV_SPLIT_PSEUDO && cfg->n_classes % 2 != 0)
            return gv_err(GROVE_ERR_ARG, "gv_tree_fit: the pseudo-loss needs 2M class slots, got %d",
                          cfg->n_classes);
        if (cfg->n_classes < 2)
            return gv_err(GROVE_ERR_ARG, "gv_tree_fit: n_classes must be >= 2, got %d", cfg->n_classes);
        if (!in->y) return gv_err(GROVE_ERR_ARG, "gv_tree_fit: class labels y are NULL");
    } else if (cfg->stats == GV_STATS_REG) {
        if (cfg->criterion != GV_SPLIT_VARIANCE)
            return gv_err(GROVE_ERR_ARG, "gv_tree_fit: regression statistics need criterion variance");
        if (!in->y) return gv_err(GROVE_ERR_ARG, "gv_tree_fit: targets y are NULL");
    } else if (cfg->stats == GV_STATS_GRAD) {
        if (cfg->criterion != GV_SPLIT_NEWTON)
            return gv_err(GROVE_ERR_ARG, "gv_tree_fit: gradient statistics need criterion newton");
        if (in->gh_in_ns ? !in->X || !in->scratch || in->rows || in->qgh || cfg->dist || !in->gh_checked ||
                               in->weight || !in->scratch->ns || in->scratch->cap_ns < 2 * in->X->n_rows
                         : !in->grad || !in->hess)
            return gv_err(GROVE_ERR_ARG, in->gh_in_ns ? "gv_tree_fit: gh_in_ns needs scratch's (g, h) of every row, checked, without rows, qgh or dist"
                                                      : "gv_tree_fit: gradients or hessians are NULL");
        if (in->qgh && !(in->qscale[0] > 0 && isfinite(in->qscale[0]) && in->qscale[1] > 0 &&
                         isfinite(in->qscale[1])))
            return gv_err(GROVE_ERR_ARG, "gv_tree_fit: quantized gradients need finite scales > 0, got %g and %g",
                          in->qscale[0], in->qscale[1]);
    } else {
        return gv_err(GROVE_ERR_ARG, "gv_tree_fit: unknown statistics kind %d", (int)cfg->stats);
    }
    if (cfg->max_depth < 0)
        return gv_err(GROVE_ERR_ARG, "gv_tree_fit: max_depth must be >= 0, got %d", cfg->max_depth);
    if (cfg->min_samples_leaf < 1)
        return gv_err(GROVE_ERR_ARG, "gv_tree_fit: min_samples_leaf must be >= 1, got %zu", cfg->min_samples_leaf);
    if (cfg->min_samples_split < 2)
        return gv_err(GROVE_ERR_ARG, "gv_tree_fit: min_samples_split must be >= 2, got %zu", cfg->min_samples_split);
    if (!(cfg->min_weight_leaf >= 0))
        return gv_err(GROVE_ERR_ARG, "gv_tree_fit: min_weight_leaf must be >= 0, got %g", cfg->min_weight_leaf);
    if (isnan(cfg->min_gain))
        return gv_err(GROVE_ERR_ARG, "gv_tree_fit: min_gain is NaN");
    if (!(cfg->lambda >= 0) || !isfinite(cfg->lambda) || !(cfg->alpha >= 0) || !isfinite(cfg->alpha))
        return gv_err(GROVE_ERR_ARG, "gv_tree_fit: lambda and alpha must be finite and >= 0, got %g and %g",
                      cfg->lambda, cfg->alpha);
    if (cfg->n_threads < 1)
        return gv_err(GROVE_ERR_ARG, "gv_tree_fit: n_threads must be >= 1, got %d", cfg->n_threads);
    if (!in->X || !in->X->mappers)
        return gv_err(GROVE_ERR_ARG, "gv_tree_fit: the binned matrix (or its mappers) is NULL");
    size_t F = in->X->n_features;
    if (cfg->random_thresholds && !rng)
        return gv_err(GROVE_ERR_ARG, "gv_tree_fit: random thresholds need a random stream");
    if (cfg->max_features > 0 && cfg->max_features < F && !rng)
        return gv_err(GROVE_ERR_ARG, "gv_tree_fit: max_features = %zu of %zu needs a random stream",
                      cfg->max_features, F);
    for (size_t f = 0; f < F; f++) {
        const gv_bin_mapper *m = &in->X->mappers[f];
        /* numeric splits read the threshold cuts[b - 1] for b <= n_bins - 2 */
        if (m->n_bins < 1 || m->n_bins > 65536 ||
            (!m->is_categorical && m->n_bins > 2 && (!m->cuts || m->n_cuts + 2 < m->n_bins)))
            return gv_err(GROVE_ERR_ARG, "gv_tree_fit: feature %zu: bad bin mapper", f);
    }
    return GROVE_OK;
}

/* Checks the rows of the view and their statistics (labels, targets, weights, gradients). */
static grove_status check_rows(const gv_engine *e)
{
    const gv_tree_input *in = e->in;
    if (e->cfg->stats == GV_STATS_GRAD && !in->weight && in->gh_checked) return GROVE_OK;
    if (e->cfg->stats == GV_STATS_GRAD && !in->weight && !in->rows) {
        /* every row, in order, without a branch (vectorized; gbdt checks every tree's
         * gradients); the loop below only names the first bad row */
        int bad = 0;
        const double *g = in->grad, *h = in->hess;
        const long n = (long)e->n;
#ifdef _OPENMP
#pragma omp parallel for num_threads(e->nt) schedule(static) reduction(|:bad) if (e->nt > 1 && n >= 65536)
#endif
        for (long r = 0; r < n; r++)
            bad |= !(fabs(g[r]) <= DBL_MAX) | !(h[r] >= 0 && h[r] <= DBL_MAX);
        if (!bad) return GROVE_OK;
    }
    if (e->cfg->stats == GV_STATS_CLASS && !in->rows) {
        /* every row, in order, without a branch (the weights unless w_checked: boosting's
         * update pass checks its own; the labels only once, y_checked); the loop below only
         * names the first bad row */
        const double K = (double)e->K; /* K <= 2^31 (n_classes is an int) */
        int bad = 0;
        for (size_t r = 0; r < (in->y_checked ? 0 : e->n); r++) {
            double y = in->y[r], yin = ((y >= 0) & (y < K)) ? y : 0.0;
            bad |= (y != yin) | ((double)(int32_t)yin != yin);
        }
        if (in->weight && !in->w_checked)
            for (size_t r = 0; r < e->n; r++)
                bad |= !((in->weight[r] >= 0) & (in->weight[r] <= DBL_MAX));
        if (!bad) return GROVE_OK;
    }
    for (size_t i = 0; i < e->n; i++) {
        size_t r = in->rows ? e->idx[i] : i; /* (without a row list idx may not be filled yet) */
        if (in->weight && !(in->weight[r] >= 0 && isfinite(in->weight[r])))
            return gv_err(GROVE_ERR_DATA, "gv_tree_fit: row %zu: weight must be finite and >= 0, got %g",
                          r, in->weight[r]);
        switch (e->cfg->stats) {
        case GV_STATS_CLASS: {
            double y = in->y[r];
            if (!(y >= 0 && y < (double)e->K && y == floor(y)))
                return gv_err(GROVE_ERR_DATA, "gv_tree_fit: row %zu: class label must be an integer in [0, %zu), got %g",
                              r, e->K, y);
            break;
        }
        case GV_STATS_REG:
            if (!isfinite(in->y[r]))
                return gv_err(GROVE_ERR_DATA, "gv_tree_fit: row %zu: target must be finite, got %g", r, in->y[r]);
            break;
        case GV_STATS_GRAD:
            if (!isfinite(in->grad[r]) || !(in->hess[r] >= 0 && isfinite(in->hess[r])))
                return gv_err(GROVE_ERR_DATA,
                              "gv_tree_fit: row %zu: gradient must be finite and hessian finite and >= 0, got %g and %g",
                              r, in->grad[r], in->hess[r]);
            break;
        }
    }
    return GROVE_OK;
}

/* A bootstrap's row list (CLASS, no weights, rows ascending with repeats): each row listed
 * once, its multiplicity in e->rmul (tree_int.h).  A row listed c times then adds c to its
 * bin's count and class weight once instead of 1 c times: the same integer sums (exact in
 * doubles), so the same tree, for about 63% of the row visits of a bootstrap of n rows.  Other
 * inputs (weights, unsorted lists, regression's centred sums, sparse or data-parallel
 * matrices) keep their rows as given.  Without memory, too. */
static void list_once(gv_engine *e)
{
    const gv_tree_input *in = e->in;
    size_t n = e->n, repeats = 0;
    gv_row *idx = e->idx;
    if (e->cfg->stats != GV_STATS_CLASS || !in->rows || in->weight || e->cfg->dist ||
        e->X->csr_ptr || n < 2)
        return;
    for (size_t i = 1; i < n; i++) {
        if (idx[i] < idx[i - 1]) return;
        repeats += idx[i] == idx[i - 1];
    }
    if (repeats < n / 16) return; /* too few to pay for the pass */
    e->rmul = gv_malloc_array(e->X->n_rows, sizeof *e->rmul);
    if (!e->rmul) return;
    size_t u = 0;
    for (size_t i = 0; i < n; i++) {
        if (u > 0 && idx[i] == idx[u - 1]) {
            e->rmul[idx[i]] += 1.0;
        } else {
            idx[u++] = idx[i];
            e->rmul[idx[i]] = 1.0;
        }
    }
    e->n = u;
}

static void engine_free(gv_engine *e)
{
    gv_free(e->reg);
    e->reg = NULL;
    gv_free(e->rmul);
    e->rmul = NULL;
    gv_free(e->hist_off);
    gv_free(e->qpk);
    e->qpk = NULL;
    gv_tree_scratch *sc = e->in ? e->in->scratch : NULL;
    if (!sc) {
        gv_free(e->idx);
        gv_free(e->tmp);
        gv_free(e->ns);
        gv_free(e->ns_tmp);
        gv_free(e->qrec);
        gv_free(e->qrec_tmp);
        gv_free(e->ncls);
    } else if (e->free_hists && e->n_free > 0) {
        /* the pool's buffers go back to the caller's scratch, for the next tree (the array of
         * pointers moves with them) */
        for (size_t i = 0; i < sc->n_hists; i++) gv_free(sc->hists[i]);
        gv_free(sc->hists);
        sc->hists = e->free_hists;
        sc->n_hists = e->n_free;
        sc->hist_len = e->hist_len;
        e->free_hists = NULL;
        e->n_free = 0;
    }
    gv_hist_pool_free(e);
    gv_free(e->free_hists);
    gv_free(e->fbest);
    gv_free(e->fbits_off);
    gv_free(e->fbits);
    if (e->scratch) {
        for (int t = 0; t < e->nt; t++) {
            gv_free(e->scratch[t].acc);
            gv_free(e->scratch[t].sub);
            gv_free(e->scratch[t].qconv);
            gv_free(e->scratch[t].keys);
            gv_free(e->scratch[t].grad4_mem);
        }
    }
    gv_free(e->scratch);
    gv_free(e->root_total);
    gv_free(e->cat_pool);
    gv_free(e->rand_u);
    gv_free(e->part);
    gv_free(e->block_left);
    gv_free(e->sp_seen);
    gv_free(e->sp_cand);
    gv_free(e->sp_feats);
    gv_free(e->sp_head);
    gv_free(e->sp_slot);
    gv_free(e->sp_acc);
    gv_free(e->sp_rseen);
    gv_free(e->sp_next);
    gv_free(e->clean);
    gv_free(e->touched);
    gv_free(e->touched_off);
}

/* Sets up the engine (everything but the rows' contents). */
static grove_status engine_init(gv_engine *e, const gv_tree_config *cfg, const gv_tree_input *in)
{
    const gv_binned *X = in->X;
    size_t F = X->n_features;
    e->cfg = cfg;
    e->in = in;
    e->X = X;
    e->n_features = F;
    e->nt = cfg->n_threads;
    e->K = cfg->stats == GV_STATS_CLASS ? (size_t)cfg->n_classes : 0;
    /* CLASS: count + K; REG: count + 3; GRAD: count, g, h */
    e->S = cfg->stats == GV_STATS_CLASS ? 1 + e->K : cfg->stats == GV_STATS_REG ? 4 : 3;
    e->n = in->rows ? in->n_rows : X->n_rows;

    e->hist_off = gv_malloc_array(F ? F : 1, sizeof *e->hist_off);
    e->fbest = gv_malloc_array(F ? F : 1, sizeof *e->fbest);
    e->fbits_off = gv_malloc_array(F ? F : 1, sizeof *e->fbits_off);
    e->rand_u = gv_malloc_array(F ? F : 1, sizeof *e->rand_u);
    if (!e->hist_off || !e->fbest || !e->fbits_off || !e->rand_u)
        return gv_err_nomem("tree engine");
    if (X->csr_ptr) {
        e->sp_seen = gv_calloc(F ? F : 1, sizeof *e->sp_seen);
        e->sp_cand = gv_calloc(F ? F : 1, sizeof *e->sp_cand);
        e->sp_feats = gv_malloc_array(F ? F : 1, sizeof *e->sp_feats);
        e->sp_head = gv_malloc_array(X->n_rows ? X->n_rows : 1, sizeof *e->sp_head);
        e->sp_slot = gv_malloc_array(F ? F : 1, sizeof *e->sp_slot);
        e->sp_acc = gv_malloc_array(F ? F : 1, e->S * sizeof *e->sp_acc);
        e->sp_rseen = gv_calloc(X->n_rows ? X->n_rows : 1, sizeof *e->sp_rseen);
        e->sp_next = gv_malloc_array(e->n ? e->n : 1, sizeof *e->sp_next);
        if (!e->sp_seen || !e->sp_cand || !e->sp_feats || !e->sp_head || !e->sp_rseen ||
            !e->sp_next || !e->sp_slot || !e->sp_acc)
            return gv_err_nomem("tree engine");
    }
    size_t off = 0, words = 0;
    for (size_t f = 0; f < F; f++) {
        const gv_bin_mapper *m = &X->mappers[f];
        size_t len;
        e->hist_off[f] = off;
        if (gv_mul_size(m->n_bins, e->S, &len) != 0 || off + len < off)
            return gv_err_nomem("tree histograms (size overflow)");
        off += len;
        e->fbits_off[f] = words;
        if (m->is_categorical) {
            words += (m->n_bins - 1 + 31) / 32;
            if (m->n_bins - 1 > e->max_categories) e->max_categories = m->n_bins - 1;
        }
    }
    e->hist_len = off;
    size_t hist_bytes = (off ? off : 1) * sizeof(double);
    e->max_kept = HIST_BUDGET_BYTES / hist_bytes;
    if (e->max_kept < 2) e->max_kept = 2;
    e->cap_free = HIST_FREE_CAP;
    gv_tree_scratch *hs = in->scratch;
    if (hs && hs->hists && hs->hist_len == e->hist_len) {
        /* the previous tree's buffers (HIST_FREE_CAP pointers, as allocated below) */
        e->free_hists = hs->hists;
        e->n_free = hs->n_hists;
        hs->hists = NULL;
        hs->n_hists = 0;
    } else {
        e->free_hists = gv_malloc_array(e->cap_free, sizeof *e->free_hists);
    }
    e->fbits = gv_malloc_array(words ? words : 1, sizeof *e->fbits);
    e->scratch = gv_calloc((size_t)e->nt, sizeof *e->scratch);
    if (!e->free_hists || !e->fbits || !e->scratch) return gv_err_nomem("tree engine");
    for (int t = 0; t < e->nt; t++) {
        e->scratch[t].acc = gv_malloc_array(4 * e->S, sizeof(double));
        if (cfg->stats == GV_STATS_CLASS || cfg->stats == GV_STATS_GRAD) {
            size_t mb = 0;
            for (size_t f = 0; f < e->n_features; f++)
                if (e->X->mappers[f].n_bins > mb) mb = e->X->mappers[f].n_bins;
            e->max_feature_bins = mb;
            if (!e->root_total) e->root_total = gv_calloc(e->S, sizeof(double));
            if (!e->root_total) return gv_err_nomem("tree engine");
            /* CLASS, GRAD histograms: three more of one feature; GRAD also the Newton split
             * scan's candidate arrays (split.c, 14 arrays of mb + 4) */
            size_t n_sub = 3 * mb * e->S;
            if (cfg->stats == GV_STATS_GRAD && n_sub < 14 * (mb + 4)) n_sub = 14 * (mb + 4);
            e->scratch[t].sub = gv_malloc_array(n_sub, sizeof(double));
            if (!e->scratch[t].sub) return gv_err_nomem("tree engine");
            if (in->qgh) {
                e->scratch[t].qconv = gv_malloc_array(3 * (mb ? mb : 1), sizeof(double));
                if (!e->scratch[t].qconv) return gv_err_nomem("tree engine");
            }
        }
        e->scratch[t].keys = gv_malloc_array(e->max_categories ? e->max_categories : 1, sizeof(gv_catkey));
        if (!e->scratch[t].acc || !e->scratch[t].keys) return gv_err_nomem("tree engine");
    }
    size_t stride = gv_ns_stride(e), n_ns;
    if (gv_mul_size(e->n, stride, &n_ns) != 0) return gv_err_nomem("tree rows (size overflow)");
    size_t n_cls = cfg->stats == GV_STATS_CLASS ? e->n : 0;
    /* (quantized trees: gv_tree_fit decides, once their records are known) */
    e->ns_pos = cfg->stats == GV_STATS_GRAD && !in->qgh && !cfg->dist;
    size_t n_ns_tmp = cfg->stats == GV_STATS_GRAD && !cfg->dist ? n_ns : 0;
    gv_tree_scratch *sc = in->scratch;
    if (sc) {
        /* grow the caller's buffers as needed (contents are not kept) */
        if (sc->cap < e->n) {
            gv_free(sc->idx);
            gv_free(sc->tmp);
            sc->idx = gv_malloc_huge_array(e->n, sizeof *sc->idx);
            sc->tmp = gv_malloc_huge_array(e->n, sizeof *sc->tmp);
            sc->cap = sc->idx && sc->tmp ? e->n : 0;
        }
        if (sc->cap_ns < n_ns) {
            gv_free(sc->ns);
            sc->ns = gv_malloc_huge_array(n_ns, sizeof *sc->ns);
            sc->cap_ns = sc->ns ? n_ns : 0;
        }
        if (sc->cap_ns_tmp < n_ns_tmp) {
            gv_free(sc->ns_tmp);
            sc->ns_tmp = gv_malloc_huge_array(n_ns_tmp, sizeof *sc->ns_tmp);
            sc->cap_ns_tmp = sc->ns_tmp ? n_ns_tmp : 0;
        }
        if (sc->cap_ncls < n_cls) {
            gv_free(sc->ncls);
            sc->ncls = gv_malloc_array(n_cls, sizeof *sc->ncls);
            sc->cap_ncls = sc->ncls ? n_cls : 0;
        }
        if (sc->cap < e->n || sc->cap_ns < n_ns || sc->cap_ns_tmp < n_ns_tmp ||
            sc->cap_ncls < n_cls)
            return gv_err_nomem("tree rows");
        e->idx = sc->idx;
        e->tmp = sc->tmp;
        e->ns = sc->ns;
        e->ns_tmp = n_ns_tmp ? sc->ns_tmp : NULL;
        e->ncls = n_cls ? sc->ncls : NULL;
    } else {
        e->idx = gv_malloc_array(e->n, sizeof *e->idx);
        e->tmp = gv_malloc_array(e->n, sizeof *e->tmp);
        e->ns = gv_malloc_array(n_ns, sizeof *e->ns);
        if (n_ns_tmp) e->ns_tmp = gv_malloc_array(n_ns_tmp, sizeof *e->ns_tmp);
        if (n_cls) e->ncls = gv_malloc_array(n_cls, sizeof *e->ncls);
        if (!e->idx || !e->tmp || !e->ns || (n_ns_tmp && !e->ns_tmp) || (n_cls && !e->ncls))
            return gv_err_nomem("tree rows");
    }
    size_t max_blocks = e->n / ROW_BLOCK + 2; /* (split_in_place: two) */
    e->part = gv_malloc_array(max_blocks * e->S, sizeof *e->part);
    e->block_left = gv_malloc_array(3 * (e->n / PART_BLOCK + 1 + (size_t)e->nt), sizeof *e->block_left);
    if (!e->part || !e->block_left) return gv_err_nomem("tree rows");
    return GROVE_OK;
}

static void grower_free(grower *gr)
{
    if (gr->g) {
        /* the histograms of nodes left open go back to the pool (and with it to the next
         * tree): a best-first tree ends with dozens, and fresh buffers cost page faults */
        for (size_t i = 0; i < gr->t->n_nodes; i++) {
            if (gr->e.free_hists)
                gv_hist_release(&gr->e, gr->g[i].hist);
            else
                gv_free(gr->g[i].hist);
        }
    }
    gv_free(gr->g);
    gv_free(gr->tot);
    gv_free(gr->side_tot);
    gv_free(gr->all_feats);
    gv_free(gr->feats);
    gv_free(gr->perm);
    gv_free(gr->swap_j);
    gv_free(gr->child_of);
    gv_free(gr->child_pos);
    gv_free(gr->open);
    if (gr->root_hist && gr->e.free_hists && gr->e.X &&
        gr->e.hist_len == gv_hist_len_grad(gr->e.X))
        gv_hist_release(&gr->e, gr->root_hist);
    else
        gv_free(gr->root_hist);
    engine_free(&gr->e);
}

/* Whether the root's totals and row list may be made by its histogram's build (gv_engine.
 * root_fuse): GRAD with every position's (g, h) in place (gh_in_ns) and idx to fill, the root
 * built by build_rows_grad (hist_build's row-major doubles, the binned root counts) over every
 * feature, as evaluate would build it (no touched bins, no subsets, one process). */
static int root_fusable(const grower *gr)
{
    const gv_engine *e = &gr->e;
    const gv_tree_config *cfg = e->cfg;
    return e->plan.root_fuse && e->ns_pos && !e->q_pos && !e->quant && e->in->gh_in_ns &&
           gr->fill_idx && !gr->root_hist && cfg->stats == GV_STATS_GRAD && e->S == 3 &&
           e->in->row_bins && !e->in->rows && e->n == e->X->n_rows && e->X->root_count &&
           !e->X->csr_ptr && !cfg->dist && !gr->subset && gr->touched_rows == 0 &&
           gr->n_all > 0 && gr->n_all <= 1024 * (size_t)64 && e->part;
}

static grove_status grow(grower *gr)
{
    gv_engine *e = &gr->e;
    const gv_tree_config *cfg = e->cfg;
    grove_status st;
    double *fh = NULL; /* the root's histogram built with its totals (root_fusable) */
    if ((st = ensure_nodes(gr, 1)) != GROVE_OK) return st;
    size_t root = new_node(gr, 0, 0, e->n);
    if (e->ns_pos) {
        /* every position's (g, h) (and record), once (partitions move them); the root's
         * totals from them, by sum_rows's blocks (the same sums) */
        e->rbuf[0] = e->idx;
        e->rbuf[1] = e->tmp;
        e->nsbuf[0] = e->ns;
        e->nsbuf[1] = e->ns_tmp;
        e->qbuf[0] = e->qrec;
        e->qbuf[1] = e->qrec_tmp;
        if (e->q_pos) {
            gv_hist_pos_init(e);
            sum_gathered(e, 0, e->n, gr->tot);
        } else if (root_fusable(gr)) {
            /* the root's histogram first, its build also summing the totals and filling idx
             * (pos_init_sums's work, by its blocks: the same sums) in the block of columns
             * with the fewest columns, instead of a pass of its own */
            const size_t nbk = (e->n + ROW_BLOCK - 1) / ROW_BLOCK;
            int fused = 0;
            if (!(fh = gv_hist_acquire(e))) return gv_err_nomem("tree histograms");
            memset(e->part, 0, nbk * 3 * sizeof *e->part);
            e->root_fuse = e->part;
            e->root_fuse_rb = ROW_BLOCK;
            e->root_fused = &fused;
            gv_hist_build(e, 0, e->n, gr->all_feats, gr->n_all, fh);
            e->root_fuse = NULL;
            e->root_fused = NULL;
            assert(fused); /* (root_fusable: build_rows_grad's root, which reads no idx) */
            if (fused)
                add_parts(e->part, nbk, 3, gr->tot);
            else
                pos_init_sums(e, gr->tot, gr->fill_idx);
            e->gathered_fmt = 0;
        } else {
            pos_init_sums(e, gr->tot, gr->fill_idx);
        }
    } else {
        sum_rows_gather(e, gr->tot);
    }
    reduce_totals(gr, root);
    node_finish(gr, root);
    gr->n_leaves = 1;
    /* a root histogram built outside (gbdt's K classes in one pass): the one gv_hist_build
     * gives where that is build_rows_grad on every row (the same sums) */
    double *rh = NULL;
    if (gr->root_hist && cfg->stats == GV_STATS_GRAD && !e->quant && e->in->row_bins &&
        !e->in->rows && e->n == e->X->n_rows && !e->X->csr_ptr && !cfg->dist && !gr->subset &&
        e->hist_len == gv_hist_len_grad(e->X) && gr->n_all <= 1024 * (size_t)64) {
        rh = gr->root_hist;
        gr->root_hist = NULL;
    }
    if (fh) rh = fh; /* (root_fusable: no root_hist given) */
    if ((st = evaluate(gr, root, rh, NULL, 0)) != GROVE_OK) return st;
    if (gr->g[root].split.feature >= 0 && (st = open_push(gr, root)) != GROVE_OK) return st;

    size_t id;
    while (open_pop(gr, &id)) {
        if (leaf_batchable(gr, id)) {
            /* the rest of the level with it (FIFO: its nodes are next, in id order) */
            size_t m = 1;
            while (gr->head + m - 1 < gr->n_open && leaf_batchable(gr, gr->open[gr->head + m - 1]))
                m++;
            st = leaves_batch(gr, gr->open + gr->head - 1, m);
            if (st != GROVE_OK) return st;
            gr->head += m - 1;
            continue;
        }
        if (level_batchable(gr, id)) {
            /* the rest of the level with it, while the pool keeps every child's histogram */
            const int d = gr->t->nodes[id].depth;
            size_t m = 1;
            while (gr->head + m - 1 < gr->n_open && gr->t->nodes[gr->open[gr->head + m - 1]].depth == d &&
                   level_batchable(gr, gr->open[gr->head + m - 1]))
                m++;
            if (e->n_kept + m <= e->max_kept) {
                gr->head += m - 1;
                if ((st = level_batch(gr, gr->open + gr->head - m, m)) != GROVE_OK) return st;
                continue;
            }
        }
        gnode *g = &gr->g[id];
        size_t k = g->split.type == GV_NODE_CAT_MULTI
                       ? popcount_words(e->cat_pool + g->split.cat_off, g->split.cat_len)
                       : 2;
        double *phist = g->hist;
        if (phist) e->n_kept--;
        g->hist = NULL;
        if (cfg->max_leaves > 0 && gr->n_leaves + (k - 1) > cfg->max_leaves) {
            gv_hist_release(e, phist);
            continue;
        }
        size_t first;
        st = apply_split(gr, id, k, phist, &first);
        if (st != GROVE_OK) {
            gv_hist_release(e, phist);
            return st;
        }
        if (cfg->max_leaves > 0 && gr->n_leaves >= cfg->max_leaves && !gr->subset &&
            !cfg->random_thresholds) {
            /* the last split the leaf budget allows: the children stay leaves, so no
             * histogram or scan for them (evaluate would draw nothing from rng here) */
            gv_hist_release(e, phist);
            continue;
        }
        if ((st = eval_children(gr, first, k, phist)) != GROVE_OK) return st;
        for (size_t c = 0; c < k; c++)
            if (gr->g[first + c].split.feature >= 0 && (st = open_push(gr, first + c)) != GROVE_OK)
                return st;
    }
    return GROVE_OK;
}

/* The bits of x: 0 for 0, else 1 + floor(log2 x). */
static unsigned bits_of(uint64_t x)
{
    return x ? 64u - (unsigned)__builtin_clzll((unsigned long long)x) : 0u;
}

/* A data-parallel run's regression statistics (cfg->dist): the sums of w, w d and w d^2
 * (d = y - c) are not exact in floating point, so every view row's three terms are rounded to
 * grids common to all ranks (dist.h: each the smallest power of two q with the total view rows
 * x the largest |term| < 2^52 q), and every histogram, node total, subtraction and sum over the
 * ranks of them is exact, in any order.  c, the weighted mean of y, comes from exact sums too.
 * One process adds the unrounded terms: its sums differ from these by at most n q / 2, about
 * n^2 2^-53 of the largest term (docs/distributed.md). */
static grove_status reg_stats_dist(gv_engine *e)
{
    const gv_tree_input *in = e->in;
    const size_t n = e->n, N = e->X->n_rows;
    double *t = gv_malloc_array(n ? n : 1, 2 * sizeof *t);
    double *reg = gv_malloc_array(N ? N : 1, 3 * sizeof *reg);
    grove_status st = gv_dist_agree(t && reg ? GROVE_OK : gv_err_nomem("regression statistics"));
    if (st != GROVE_OK) {
        gv_free(t);
        gv_free(reg);
        return st;
    }
    double *a = t, *b = t + n;
    for (size_t i = 0; i < n; i++) a[i] = in->weight ? in->weight[e->idx[i]] : 1.0;
    gv_dist_snap(a, n, gv_dist_grid(a, n)); /* (no-op for weights learners.c snapped) */
    for (size_t i = 0; i < n; i++) b[i] = a[i] * in->y[e->idx[i]];
    double sw = gv_dist_sum_exact(a, n), swy = gv_dist_sum_exact(b, n);
    e->shift = sw > 0 ? swy / sw : 0.0;
    for (size_t i = 0; i < n; i++) {
        size_t r = e->idx[i];
        reg[3 * r] = a[i];
        b[i] = a[i] * (in->y[r] - e->shift);
    }
    gv_dist_snap(b, n, gv_dist_grid(b, n));
    for (size_t i = 0; i < n; i++) {
        size_t r = e->idx[i];
        double d = in->y[r] - e->shift;
        reg[3 * r + 1] = b[i];
        b[i] = a[i] * d * d;
    }
    gv_dist_snap(b, n, gv_dist_grid(b, n));
    for (size_t i = 0; i < n; i++) reg[3 * e->idx[i] + 2] = b[i];
    gv_free(t);
    e->reg = reg;
    return GROVE_OK;
}

/* A leaf's range of positions, for leaves_of_rows. */
typedef struct leaf_range {
    size_t begin, end, id;
} leaf_range;
static int cmp_leaf_range(const void *a, const void *b)
{
    size_t x = ((const leaf_range *)a)->begin, y = ((const leaf_range *)b)->begin;
    return (x > y) - (x < y);
}

/* leaf_of_row[r] = the leaf of every row r of the tree: each leaf's rows are its range of idx,
 * and the non-empty ranges are disjoint (they tile [0, n) but where split_in_place left a
 * parent's range to leaves that own none of it, having written their rows').  In parallel over equal blocks of positions (static: equal
 * work), each walking the leaves in position order from the first that reaches its block. */
static void leaves_of_rows(const grower *gr, uint32_t *leaf_of_row)
{
    const gv_engine *e = &gr->e;
    const gv_tree *t = gr->t;
    const size_t n = e->n;
    /* a leaf's rows: in the buffers of its depth's parity with ns_pos (tree_int.h) */
#define LEAF_ROWS(id) (e->ns_pos ? e->rbuf[t->nodes[id].depth & 1] : e->idx)
    const size_t n_leaves = gv_tree_n_leaves(t);
    leaf_range *lr = gv_malloc_array(n_leaves ? n_leaves : 1, sizeof *lr);
    size_t nl = 0;
    for (size_t id = 0; id < t->n_nodes; id++) {
        if (t->nodes[id].type != GV_NODE_LEAF) continue;
        if (!lr) { /* no memory: leaf by leaf, on this thread */
            const gv_row *idx = LEAF_ROWS(id);
            for (size_t i = gr->g[id].begin; i < gr->g[id].end; i++) leaf_of_row[idx[i]] = (uint32_t)id;
            continue;
        }
        /* (a leaf without rows here -- a data-parallel rank's share may have none -- is left
         * out: then the ranges' starts, and ends, strictly increase) */
        if (gr->g[id].end > gr->g[id].begin) lr[nl++] = (leaf_range){gr->g[id].begin, gr->g[id].end, id};
    }
    if (!lr || nl == 0) { /* (a stump: split_in_place did it all) */
        gv_free(lr);
        return;
    }
    qsort(lr, nl, sizeof *lr, cmp_leaf_range);
    const size_t nt = (size_t)e->nt, n_blocks = nt > 1 && n >= 65536 ? 4 * nt : 1;
    const size_t bs = (n + n_blocks - 1) / n_blocks;
#ifdef _OPENMP
#pragma omp parallel for num_threads(e->nt) schedule(static) if (n_blocks > 1)
#endif
    for (size_t b = 0; b < n_blocks; b++) {
        size_t lo = b * bs < n ? b * bs : n, hi = lo + bs < n ? lo + bs : n;
        size_t k = 0, top = nl; /* the first leaf whose range ends after lo */
        while (k < top) {
            size_t mid = k + (top - k) / 2;
            if (lr[mid].end <= lo) k = mid + 1;
            else top = mid;
        }
        for (; k < nl && lr[k].begin < hi; k++) { /* leaf k's positions in the block */
            const size_t start = lr[k].begin > lo ? lr[k].begin : lo;
            const size_t stop = lr[k].end < hi ? lr[k].end : hi;
            const gv_row *idx = LEAF_ROWS(lr[k].id);
            const uint32_t id = (uint32_t)lr[k].id;
            for (size_t i = start; i < stop; i++) leaf_of_row[idx[i]] = id;
        }
    }
    gv_free(lr);
#undef LEAF_ROWS
}

static grove_status tree_fit(const gv_tree_config *cfg, const gv_tree_input *in, gv_rng *rng,
                             gv_tree **out, double **root_hist);

grove_status gv_tree_fit(const gv_tree_config *cfg, const gv_tree_input *in, gv_rng *rng,
                         gv_tree **out)
{
    double *rh = in ? in->root_hist : NULL; /* ours on every return */
    grove_status st = tree_fit(cfg, in, rng, out, &rh);
    gv_free(rh);
    return st;
}

double *gv_tree_scratch_hist(gv_tree_scratch *s, size_t len)
{
    if (s && s->hists && s->n_hists > 0 && s->hist_len == len) return s->hists[--s->n_hists];
    return gv_malloc_huge_array(len ? len : 1, sizeof(double));
}

static grove_status tree_fit(const gv_tree_config *cfg, const gv_tree_input *in, gv_rng *rng,
                             gv_tree **out, double **root_hist)
{
    if (!out) return gv_err(GROVE_ERR_ARG, "gv_tree_fit: out is NULL");
    *out = NULL;
    if (!cfg || !in) return gv_err(GROVE_ERR_ARG, "gv_tree_fit: config or input is NULL");
    grove_status st = check_config(cfg, in, rng);
    if (st != GROVE_OK) return st;
    const gv_binned *X = in->X;
    if (!in->rows && in->n_rows != 0 && in->n_rows != X->n_rows)
        return gv_err(GROVE_ERR_ARG, "gv_tree_fit: without a row list n_rows must be 0 or %zu, got %zu",
                      X->n_rows, in->n_rows);
    size_t n = in->rows ? in->n_rows : X->n_rows;
    if (n == 0 && !cfg->dist) return gv_err(GROVE_ERR_DATA, "gv_tree_fit: no rows to grow a tree on");
    if (cfg->dist && X->csr_ptr)
        return gv_err(GROVE_ERR_ARG, "gv_tree_fit: data-parallel trees need a dense binned matrix");
    if (X->n_rows > UINT32_MAX)
        return gv_err(GROVE_ERR_DATA, "gv_tree_fit: %zu rows: at most %lu rows fit the row lists",
                      X->n_rows, (unsigned long)UINT32_MAX);
    if (in->rows) {
        for (size_t i = 0; i < n; i++)
            if (in->rows[i] >= X->n_rows)
                return gv_err(GROVE_ERR_ARG, "gv_tree_fit: rows[%zu] = %zu is not below %zu",
                              i, in->rows[i], X->n_rows);
    }

    grower gr;
    memset(&gr, 0, sizeof gr);
    gv_tree *t = gv_calloc(1, sizeof *t);
    if (!t) return gv_err_nomem("tree");
    gr.root_hist = *root_hist;
    *root_hist = NULL;
    t->n_outputs = cfg->stats == GV_STATS_CLASS ? cfg->n_classes : 1;
    gr.t = t;
    gv_engine *e = &gr.e;
    size_t F = X->n_features;
    if ((st = engine_init(e, cfg, in)) != GROVE_OK) goto fail;
    if (in->rows) {
        for (size_t i = 0; i < n; i++) e->idx[i] = (gv_row)in->rows[i];
    } else if (e->ns_pos) {
        gr.fill_idx = 1; /* (in the root's pass over its (g, h), pos_init_sums) */
    } else {
        gv_row *idx = e->idx;
        const long nl = (long)n;
#ifdef _OPENMP
#pragma omp parallel for num_threads(e->nt) schedule(static) if (e->nt > 1 && n >= LIGHT_PASS_ROWS)
#endif
        for (long i = 0; i < nl; i++) idx[i] = (gv_row)i;
    }
    if ((st = check_rows(e)) != GROVE_OK) goto fail;
    list_once(e);
    n = e->n;

    gr.rng = rng;
    gr.n_all = F;
    if (cfg->feature_mask) {
        gr.n_all = 0;
        for (size_t f = 0; f < F; f++) gr.n_all += cfg->feature_mask[f] != 0;
    }
    gr.subset = cfg->max_features > 0 && cfg->max_features < gr.n_all;
    /* Nodes below touched_rows rows build their histograms from rows into the clean
     * histogram (tree_int.h): with a feature subset per node, every node of fewer than
     * GV_HIST_TOUCHED_MAX_ROWS (the same sums as the usual build); without, class and
     * regression trees' nodes whose rows are fewer than a quarter of their widest feature's
     * bin records (cheaper than subtracting and scanning every bin; a child built from rows
     * sums in another order than a subtraction, so such trees' last digits differ from a
     * build that subtracts).  Gradient trees always subtract. */
    if (gr.subset)
        gr.touched_rows = GV_HIST_TOUCHED_MAX_ROWS;
    else if (cfg->stats != GV_STATS_GRAD)
        gr.touched_rows = e->max_feature_bins * e->S / 4;
    if (gr.touched_rows > GV_HIST_TOUCHED_MAX_ROWS) gr.touched_rows = GV_HIST_TOUCHED_MAX_ROWS;
    if (gr.touched_rows > 0 && X->bins8 && !X->csr_ptr && !cfg->dist) {
        /* small nodes use a clean histogram and touched bins (tree_int.h); an optimization
         * only, so without memory the nodes just take the usual way */
        size_t clean_len = e->hist_len, mb = 0;
        if (gr.subset) { /* one slot of the widest feature per candidate */
            for (size_t f = 0; f < F; f++)
                if (X->mappers[f].n_bins > mb) mb = X->mappers[f].n_bins;
            e->touched_slot = mb * e->S;
            clean_len = cfg->max_features * e->touched_slot;
        }
        e->clean = gv_calloc(clean_len ? clean_len : 1, sizeof *e->clean);
        e->touched = gv_calloc(4 * (F ? F : 1), sizeof *e->touched);
        e->touched_off = gv_malloc_array(F ? F : 1, sizeof *e->touched_off);
        if (!e->clean || !e->touched || !e->touched_off) {
            gv_free(e->clean);
            gv_free(e->touched);
            gv_free(e->touched_off);
            e->clean = NULL;
            e->touched = NULL;
            e->touched_off = NULL;
        } else {
            memcpy(e->touched_off, e->hist_off, F * sizeof *e->touched_off);
        }
    }
    if (!e->touched) gr.touched_rows = 0;
    /* integer histograms (tree_int.h): the row-major build of one process over all candidates */
    if (in->qgh && cfg->stats == GV_STATS_GRAD && in->row_bins && X->bins8 && !X->csr_ptr &&
        !cfg->dist && !gr.subset && gr.touched_rows == 0 &&
        F <= 65536 /* hist.c's row-major blocks: at most 1024 of 64 features */) {
        uint64_t mg = 0, mh = 0;
        const int bounded = in->qmax[0] > 0 && in->qmax[1] > 0;
        if (bounded) {
            mg = (uint64_t)in->qmax[0];
            mh = (uint64_t)in->qmax[1];
        }
        for (size_t i = 0; !bounded && i < n; i++) {
            const int32_t *q = in->qgh + 2 * e->idx[i];
            uint64_t ag = q[0] < 0 ? (uint64_t)-(int64_t)q[0] : (uint64_t)q[0];
            if (ag > mg) mg = ag;
            if (q[1] < 0) {
                st = gv_err(GROVE_ERR_ARG, "gv_tree_fit: row %zu: quantized hessian %d is below 0",
                            (size_t)e->idx[i], (int)q[1]);
                goto fail;
            }
            if ((uint64_t)q[1] > mh) mh = (uint64_t)q[1];
        }
        if ((double)n * (double)(mg > mh ? mg : mh) >= 2147483647.0) {
            st = gv_err(GROVE_ERR_ARG, "gv_tree_fit: %zu rows of quantized statistics up to %llu "
                        "could overflow 32 bits", n, (unsigned long long)(mg > mh ? mg : mh));
            goto fail;
        }
        /* bits(x): the bits of x >= 0 */
        unsigned bc = bits_of(n), bh = bits_of((uint64_t)n * mh), bg = 1 + bits_of((uint64_t)n * mg);
        e->quant = bc + bh + bg <= 64 ? 8 : 16;
        e->qsh_h = bc;
        e->qsh_g = bc + bh;
        /* quant 16: the most rows (2^b - 1, b >= 12) whose sums still fit one packed word --
         * 2^18 - 1 at 4 bits; hist.c sums chunks of that many rows in packed words, a third of
         * the bytes a row and feature */
        for (unsigned b = bc; e->quant == 16 && b >= 12; b--) {
            uint64_t m = ((uint64_t)1 << b) - 1;
            unsigned ph = bits_of(m * mh), pg = 1 + bits_of(m * mg);
            if (b + ph + pg > 64) continue;
            e->qpk = gv_malloc_array(e->hist_len / 3 ? e->hist_len / 3 : 1, sizeof *e->qpk);
            if (e->qpk) { /* else the quant 16 records only: an optimization */
                e->qpk_max = (size_t)m;
                e->qpk_sh_h = b;
                e->qpk_sh_g = b + ph;
            }
            break;
        }
    }
    gv_plan_choose(e); /* (the records and quantization are known) */
    if (in->qgh && cfg->stats == GV_STATS_GRAD && !cfg->dist && e->ns_tmp) {
        /* quantized gradients: (g, h) in position order when the histograms are of doubles,
         * and with their records too when those are 8 bytes (an optimization only: without
         * memory, the nodes gather as before) */
        if (!e->quant) {
            e->ns_pos = 1;
        } else if (gv_hist_quant_pos_ok(e)) {
            gv_tree_scratch *sc = in->scratch;
            if (sc) {
                if (sc->cap_qrec < n) {
                    gv_free(sc->qrec);
                    gv_free(sc->qrec_tmp);
                    sc->qrec = gv_malloc_huge_array(n, sizeof *sc->qrec);
                    sc->qrec_tmp = gv_malloc_huge_array(n, sizeof *sc->qrec_tmp);
                    sc->cap_qrec = sc->qrec && sc->qrec_tmp ? n : 0;
                }
                if (sc->cap_qrec >= n) {
                    e->qrec = sc->qrec;
                    e->qrec_tmp = sc->qrec_tmp;
                }
            } else {
                e->qrec = gv_malloc_array(n, sizeof *e->qrec);
                e->qrec_tmp = gv_malloc_array(n, sizeof *e->qrec_tmp);
                if (!e->qrec || !e->qrec_tmp) {
                    gv_free(e->qrec);
                    gv_free(e->qrec_tmp);
                    e->qrec = e->qrec_tmp = NULL;
                }
            }
            if (e->qrec) e->ns_pos = e->q_pos = 1;
        }
    }
    gr.mf = gr.subset ? cfg->max_features : gr.n_all;
    gr.side_of = SIZE_MAX;
    gr.pre_id = SIZE_MAX;
    gr.side_tot = gv_malloc_array(2 * e->S, sizeof *gr.side_tot); /* (optional: hist_sides) */
    gr.all_feats = gv_malloc_array(F ? F : 1, sizeof *gr.all_feats);
    gr.feats = gv_malloc_array(F ? F : 1, sizeof *gr.feats);
    gr.perm = gv_malloc_array(F ? F : 1, sizeof *gr.perm);
    gr.swap_j = gv_malloc_array(gr.mf ? gr.mf : 1, sizeof *gr.swap_j);
    gr.child_of = gv_malloc_array(e->max_categories ? e->max_categories : 1, sizeof *gr.child_of);
    gr.child_pos = gv_malloc_array(e->max_categories + 1, sizeof *gr.child_pos);
    if (!gr.all_feats || !gr.feats || !gr.perm || !gr.swap_j || !gr.child_of || !gr.child_pos) {
        st = gv_err_nomem("tree");
        goto fail;
    }
    for (size_t f = 0, j = 0; f < F; f++)
        if (!cfg->feature_mask || cfg->feature_mask[f]) gr.all_feats[j++] = (int32_t)f;
    for (size_t i = 0; i < F; i++) gr.perm[i] = i;

    if (cfg->stats == GV_STATS_REG && cfg->dist) {
        if ((st = reg_stats_dist(e)) != GROVE_OK) goto fail;
    } else if (cfg->stats == GV_STATS_REG) {
        /* c = sum w y / sum w over the view, subtracted from every y (0 if no weight) */
        double sw = 0, swy = 0;
        for (size_t i = 0; i < n; i++) {
            size_t r = e->idx[i];
            double w = in->weight ? in->weight[r] : 1.0;
            sw += w;
            swy += w * in->y[r];
        }
        e->shift = sw > 0 ? swy / sw : 0.0;
    }

    if ((st = grow(&gr)) != GROVE_OK) goto fail;
    if (in->leaf_of_row) leaves_of_rows(&gr, in->leaf_of_row);
    /* Give back the unused capacity (a failed shrink keeps the larger arrays). */
    gv_tree_node *nodes = gv_realloc_array(t->nodes, t->n_nodes, sizeof *nodes);
    if (nodes) t->nodes = nodes;
    double *values = gv_realloc_array(t->values, t->n_nodes * (size_t)t->n_outputs, sizeof *values);
    if (values) t->values = values;
    if (t->n_cat_data > 0) {
        uint32_t *cat = gv_realloc_array(t->cat_data, t->n_cat_data, sizeof *cat);
        if (cat) t->cat_data = cat;
    }
    grower_free(&gr);
    *out = t;
    return GROVE_OK;
fail:
    grower_free(&gr);
    gv_tree_free(t);
    return st;
}
