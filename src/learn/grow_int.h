/*
 * grow_int.h -- private to the tree engine's growth (tree.c, tree_grow.c, tree_level.c,
 * tree_partition.c, tree_sums.c): the grower, the per-row helpers its hot loops share, and the
 * functions each room offers the others (gv_grow_*).  See tree.c for the rooms and how a tree
 * grows; tree_int.h for the histogram layout.
 */
#ifndef GV_GROW_INT_H
#define GV_GROW_INT_H

#include "tree_int.h"

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


/* Growth-time state of a node (parallel to t->nodes). */
typedef struct gnode {
    size_t begin, end; /* rows idx[begin, end) */
    double *hist;      /* kept histogram (counted in e.n_kept), or NULL */
    gv_split split;    /* best split found at evaluation (feature -1: none) */
    size_t leaf_nl;    /* its children leaves: 1 + the rows split sends left, read off its
                          histogram (note_leaf_nl); 0: not known */
    double lo, hi;     /* monotone constraints: bounds on its value (-inf, inf: none) */
    uint64_t igroups;  /* interaction constraints: the groups holding every feature of its
                          path (all ones at the root: any feature) */
    int32_t ifeat;     /* with igroups 0: the one feature (in no group) its path used */
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
    uint8_t *allow;       /* [F] interaction constraints: the evaluated node's features */
} grower;


/* ---- shared per-row helpers (inlined into the hot loops of several rooms) ---- */

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

/* The bin-side rule of a numeric split, written once: the rows of bin b go left iff
 *     b <= split  (b >= 1)    or    b = 0 (missing) and default_left (dl = 1),
 * without a branch (the side is unpredictable): b - 1 < split for b >= 1, and b = 0 wraps to the
 * largest value, so goes by dl.  1 left, 0 right.  Every partition, leaf pass and side table
 * (tree_partition.c's side_lut) takes its sides from this. */
static inline size_t gv_num_left(uint32_t b, uint32_t split, size_t dl)
{
    return (size_t)((uint32_t)(b - 1u) < split) | (dl & (size_t)(b == 0));
}

/* Whether the rows of bin b go left by split s (NUM by gv_num_left; CAT_SET by bit b - 1 of its
 * set bits, bin 0 (missing) by default_left). */
static inline int bin_left(const gv_split *s, const uint32_t *bits, uint32_t b)
{
    if (!bits) return (int)gv_num_left(b, s->bin, (size_t)s->default_left);
    if (b == 0) return s->default_left;
    return (bits[(b - 1) / 32] >> ((b - 1) % 32)) & 1u;
}

/* ---- tree_sums.c ---- */
void gv_grow_sum_rows_serial(const gv_engine *e, const gv_row *idx, size_t n, double *t);
void gv_grow_add_parts(const double *part, size_t nb, size_t S, double *t);
void gv_grow_sum_rows(const gv_engine *e, const gv_row *idx, size_t n, double *t);
void gv_grow_sum_rows_gather(gv_engine *e, double *t);
void gv_grow_sum_gathered(const gv_engine *e, size_t lo, size_t n, double *t);
void gv_grow_pos_init_sums(gv_engine *e, double *t, int fill);
void gv_grow_sum_gather_quant(gv_engine *e, size_t lo, size_t n, double *t);
size_t gv_grow_node_count(const grower *gr, size_t id);
void gv_grow_reduce_totals(const grower *gr, size_t id);
void gv_grow_reduce_hist(const gv_engine *e, double *hist, const int32_t *feats, size_t n_feats);
int gv_grow_splittable(const grower *gr, size_t id);

/* ---- tree_partition.c ---- */
int gv_grow_hist_left_rows(const gv_engine *e, const double *h, const gv_split *s,
                           const uint32_t *bits, size_t *out);
size_t gv_grow_popcount_words(const uint32_t *w, size_t n);
grove_status gv_grow_append_cat(grower *gr, const uint32_t *src, size_t n, uint32_t *begin);
size_t gv_grow_block_move(gv_engine *e, const gv_split *s, const uint32_t *bits, size_t lo,
                          size_t hi, size_t pl, size_t pr);
size_t gv_grow_block_move_back(gv_engine *e, const gv_split *s, const uint32_t *bits, size_t lo,
                               size_t hi, size_t pl, size_t pr);
void gv_grow_small_sums_end(const gv_engine *e, size_t n_blocks, double *t, int *summed);
size_t gv_grow_partition_binary(gv_engine *e, const gv_split *s, const uint32_t *bits,
                                size_t begin, size_t end, int gather, const double *hist,
                                double *tot2, int *summed);
void gv_grow_split_in_place(grower *gr, const gv_split *s, const uint32_t *bits, size_t begin,
                            size_t end, size_t first, int sums);
void gv_grow_leaves_grad_one(grower *gr, const gv_split *s, const uint32_t *bits, size_t begin,
                             size_t end, size_t first, size_t id, size_t nl_known);
void gv_grow_split_leaves_grad(grower *gr, const gv_split *s, const uint32_t *bits, size_t begin,
                               size_t end, size_t first, size_t id);

/* ---- tree_grow.c ---- */
grove_status gv_grow_ensure_nodes(grower *gr, size_t extra);
size_t gv_grow_new_node(grower *gr, int depth, size_t begin, size_t end);
void gv_grow_hist_sides(grower *gr, size_t id, const double *hist);
void gv_grow_note_leaf_nl(grower *gr, size_t id, const double *hist);
grove_status gv_grow_evaluate(grower *gr, size_t id, double *hist, const double *minus, int hold);
void gv_grow_finish_split(grower *gr, size_t id, size_t first, size_t k, const gv_split *s,
                          uint32_t cat_begin);
grove_status gv_grow_apply_split(grower *gr, size_t id, size_t k, const double *hist,
                                 size_t *first_out);
grove_status gv_grow_open_push(grower *gr, size_t id);
grove_status gv_grow_tree(grower *gr);

/* ---- tree_level.c ---- */
int gv_grow_leaf_batchable(const grower *gr, size_t id);
grove_status gv_grow_leaves_batch(grower *gr, const size_t *ids, size_t m);
grove_status gv_grow_eval_children(grower *gr, size_t first, size_t k, double *phist);
int gv_grow_level_batchable(const grower *gr, size_t id);
int gv_grow_partition_level(grower *gr, const size_t *ids, double *const *ph, size_t m,
                            size_t *w, int *summed, double *tot);
grove_status gv_grow_level_batch(grower *gr, const size_t *ids, size_t m);

/* ---- tree.c ---- */
void gv_grow_leaves_of_rows(const grower *gr, uint32_t *leaf_of_row);

#endif /* GV_GROW_INT_H */
