/*
 * tree_grow.c -- the growth of one tree: nodes, their evaluation, applying a split, and the
 * loop that picks the next node to split.
 *
 * Pipeline position: learn/, the tree engine (grow_int.h).
 * A node is evaluated when it is created: its totals t (count, statistics) decide whether it
 * may split; its histograms come from rows, or as parent - siblings (subtraction); the split
 * search (split.c) scans them for
 *     gain = score(left) + score(right) - score(parent)
 * and keeps the best.  Depth-wise growth takes open nodes first in, first out (level by level,
 * in id order; whole levels go to tree_level.c where they allow); best-first growth takes the
 * open node of the largest gain (ties: lowest id) from a max-heap.  Applying a split moves the
 * node's rows (tree_partition.c), sums the children's totals (tree_sums.c) and evaluates them.
 */
#include "grow_int.h"

#include "../dist/dist.h"

#include <assert.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- nodes ---- */

grove_status gv_grow_ensure_nodes(grower *gr, size_t extra)
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
size_t gv_grow_new_node(grower *gr, int depth, size_t begin, size_t end)
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
    g->lo = -INFINITY;
    g->hi = INFINITY;
    g->igroups = ~(uint64_t)0;
    g->ifeat = -1;
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
        if (cfg->monotone) { /* clipped to the node's bounds */
            const gnode *g = &gr->g[id];
            v[0] = v[0] < g->lo ? g->lo : (v[0] > g->hi ? g->hi : v[0]);
        }
        break;
    }
    }
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

/* Two-class children that will be leaves (split_in_place), of a node whose histogram `hist`
 * was built from its rows: their totals are the split feature's bins on each side, summed in
 * bin order (the sums the split search scored), so no pass over the rows sums them.  Not from
 * a subtracted histogram (a class without rows could keep -1e-17), nor a sparse feature's (its
 * frequent bin is a difference too), nor a data-parallel one (summed over the ranks already:
 * split_in_place's totals are this rank's).  Not with more classes: their leaf weights often
 * tie exactly (equal counts at equal weights), and the row-order sums break those ties the
 * way scikit-learn's trees do (py_sklearn_boost: samme stump for stump on digits). */
void gv_grow_hist_sides(grower *gr, size_t id, const double *hist)
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

/* A node whose children will be leaves, its split found from its full histogram hist: the
 * split's left count read off hist (as partition_binary reads it) to leaf_nl, for
 * leaves_batch's one pass. */
void gv_grow_note_leaf_nl(grower *gr, size_t id, const double *hist)
{
    const gv_engine *e = &gr->e;
    gnode *g = &gr->g[id];
    size_t nl;
    g->leaf_nl = 0;
    if (g->split.feature < 0 || gr->subset || e->X->csr_ptr || e->quant) return;
    const uint32_t *bits = g->split.type == GV_NODE_CAT_SET ? e->cat_pool + g->split.cat_off
                                                            : NULL;
    if (gv_grow_hist_left_rows(e, hist, &g->split, bits, &nl) && nl <= g->end - g->begin)
        g->leaf_nl = nl + 1;
}

/* Interaction constraints: the features node id may split on into gr->allow (every feature
 * at the root; else the one ungrouped feature of its path, or the members of the groups that
 * hold every feature of its path). */
static void node_allow(grower *gr, size_t id)
{
    const gnode *g = &gr->g[id];
    const uint64_t *ig = gr->e.cfg->igroups;
    const size_t F = gr->e.X->n_features;
    for (size_t f = 0; f < F; f++)
        gr->allow[f] = g->igroups == ~(uint64_t)0 ? 1
                       : g->igroups ? (ig[f] & g->igroups) != 0
                                    : (int32_t)f == g->ifeat;
}

/* Constraints: the children's bounds and interaction state from the split s of node id
 * (XGBoost's rules): on a feature with monotone direction c, the children's values w_l, w_r
 * (clipped to the parent's bounds) meet at mid = (w_l + w_r) / 2, which becomes the left
 * child's upper (c = 1) or lower (c = -1) bound and the right child's other one. */
static void children_constraints(grower *gr, size_t id, size_t first, size_t k, int32_t f)
{
    const gv_engine *e = &gr->e;
    const gv_tree_config *cfg = e->cfg;
    const gnode *p = &gr->g[id];
    uint64_t ig = ~(uint64_t)0;
    int32_t ifeat = -1;
    if (cfg->igroups) {
        ig = (p->igroups == ~(uint64_t)0 ? cfg->igroups[f] : p->igroups & cfg->igroups[f]);
        ifeat = ig ? -1 : f;
    }
    for (size_t c = 0; c < k; c++) {
        gnode *g = &gr->g[first + c];
        g->lo = p->lo;
        g->hi = p->hi;
        g->igroups = ig;
        g->ifeat = ifeat;
    }
    int dir = cfg->monotone ? cfg->monotone[f] : 0;
    if (dir == 0 || k != 2) return;
    double w[2];
    for (size_t c = 0; c < 2; c++) {
        const double *s = gr->tot + (first + c) * e->S;
        double G = s[1], d = s[2] + cfg->lambda, a = cfg->alpha;
        double tg = G > a ? G - a : (G < -a ? G + a : 0.0);
        double v = d > 0 ? -tg / d : 0.0;
        w[c] = v < p->lo ? p->lo : (v > p->hi ? p->hi : v);
    }
    double mid = 0.5 * (w[0] + w[1]);
    if (dir > 0) {
        gr->g[first].hi = mid;
        gr->g[first + 1].lo = mid;
    } else {
        gr->g[first].lo = mid;
        gr->g[first + 1].hi = mid;
    }
}

/* Evaluates node id: finds its best split.  Takes over `hist` (the node's complete histogram,
 * or NULL to build it; with `minus`, the node's histogram is hist - minus, subtracted during
 * the scan) and keeps it in the node or returns it to the pool -- except with `hold`, where a
 * given hist that the node does not keep stays with the caller (g->hist != hist tells). */
grove_status gv_grow_evaluate(grower *gr, size_t id, double *hist, const double *minus, int hold)
{
    gv_engine *e = &gr->e;
    gnode *g = &gr->g[id];
    g->split.feature = -1;
    e->cons_lo = g->lo;
    e->cons_hi = g->hi;
    e->cons_allow = NULL;
    if (gr->allow) {
        node_allow(gr, id);
        e->cons_allow = gr->allow;
    }
    at_depth(e, gr->t->nodes[id].depth);
    if (!gv_grow_splittable(gr, id)) {
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
            gv_grow_reduce_hist(e, hist, feats, n_feats);
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
    if (!children_may_split && !given && split.feature >= 0) gv_grow_hist_sides(gr, id, hist);
    if (!children_may_split) gv_grow_note_leaf_nl(gr, id, hist);
    if (!gr->subset && !e->X->csr_ptr && split.feature >= 0 && children_may_split &&
        e->n_kept < e->max_kept) {
        g->hist = hist;
        e->n_kept++;
    } else if (!hold || !given) {
        gv_hist_release(e, hist);
    }
    return GROVE_OK;
}

void gv_grow_finish_split(grower *gr, size_t id, size_t first, size_t k, const gv_split *s,
                          uint32_t cat_begin)
{
    const gv_bin_mapper *mp = &gr->e.X->mappers[s->feature];
    if (gr->e.cfg->monotone || gr->e.cfg->igroups)
        children_constraints(gr, id, first, k, s->feature);
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
grove_status gv_grow_apply_split(grower *gr, size_t id, size_t k, const double *hist,
                                 size_t *first_out)
{
    gv_engine *e = &gr->e;
    const gv_split s = gr->g[id].split;
    grove_status st = gv_grow_ensure_nodes(gr, k);
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
    for (size_t c = 0; c < k; c++) gv_grow_new_node(gr, depth, begin, begin);
    gv_row *idx = e->idx, *tmp = e->tmp;
    /* children that cannot split (max_depth) need totals and leaves only, not their rows
     * (split_in_place; GRAD with ns_pos: split_leaves_grad, which keeps its sums' order) */
    const int leaves = e->cfg->max_depth > 0 && depth >= e->cfg->max_depth;
    const int in_place = leaves && e->cfg->stats != GV_STATS_GRAD && !e->ns_pos;
    uint32_t cat_begin = 0;

    if (s.type != GV_NODE_CAT_MULTI && leaves && e->ns_pos && e->plan.leaf_in_place) {
        /* GRAD: the same, the (g, h) read where they are */
        const uint32_t *bits = s.type == GV_NODE_CAT_SET ? e->cat_pool + s.cat_off : NULL;
        gv_grow_split_leaves_grad(gr, &s, bits, begin, end, first, id);
        if (bits) {
            st = gv_grow_append_cat(gr, bits, s.cat_len, &cat_begin);
            if (st != GROVE_OK) return st;
        }
    } else if (s.type != GV_NODE_CAT_MULTI && in_place) {
        /* the children's rows stay in the parent's range; they own none of it (leaves_of_rows
         * skips them: split_in_place wrote their rows' leaves) */
        const uint32_t *bits = s.type == GV_NODE_CAT_SET ? e->cat_pool + s.cat_off : NULL;
        const int known = gr->side_of == id;
        if (known) memcpy(gr->tot + first * S, gr->side_tot, 2 * S * sizeof *gr->tot);
        gr->side_of = SIZE_MAX;
        gv_grow_split_in_place(gr, &s, bits, begin, end, first, !known);
        if (!known) {
            gv_grow_reduce_totals(gr, first);
            gv_grow_reduce_totals(gr, first + 1);
        }
        if (bits) {
            st = gv_grow_append_cat(gr, bits, s.cat_len, &cat_begin);
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
            w = gv_grow_partition_binary(e, &s, bits, begin, end, gather,
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
                if (!summed) gv_grow_sum_gathered(e, lo, hi - lo, gr->tot + small * S);
            } else if (gather) { /* (the smaller child is partition_binary's, the left on a tie) */
                gv_grow_sum_gathered(e, lo, hi - lo, gr->tot + small * S);
                e->gathered_begin = lo;
                e->gathered_end = hi;
            } else if (e->quant && !e->cfg->dist &&
                       (e->cfg->max_depth == 0 || depth < e->cfg->max_depth)) {
                /* the same for the integer records (the totals from the exact g, h) */
                gv_grow_sum_gather_quant(e, lo, hi - lo, gr->tot + small * S);
                gv_hist_gathered_quant(e, lo, hi);
            } else {
                gv_grow_sum_rows(e, idx + lo, hi - lo, gr->tot + small * S);
            }
            gv_grow_reduce_totals(gr, small);
            for (size_t q = 0; q < S; q++)
                gr->tot[large * S + q] = gr->tot[id * S + q] - gr->tot[small * S + q];
        } else {
            gv_grow_sum_rows(e, idx + begin, w - begin, gr->tot + first * S);
            gv_grow_sum_rows(e, idx + w, n_right, gr->tot + (first + 1) * S);
            gv_grow_reduce_totals(gr, first);
            gv_grow_reduce_totals(gr, first + 1);
        }
        gr->g[first].begin = begin;
        gr->g[first].end = w;
        gr->g[first + 1].begin = w;
        gr->g[first + 1].end = end;
        if (bits) {
            st = gv_grow_append_cat(gr, bits, s.cat_len, &cat_begin);
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
            gv_grow_sum_rows(e, idx + gr->g[first + c].begin, gr->g[first + c].end - gr->g[first + c].begin,
                             gr->tot + (first + c) * S);
            gv_grow_reduce_totals(gr, first + c);
        }
        st = gv_grow_append_cat(gr, NULL, n_cat, &cat_begin);
        if (st != GROVE_OK) return st;
        for (uint32_t c = 0; c < n_cat; c++)
            t->cat_data[cat_begin + c] =
                gr->child_of[c] == UINT32_MAX ? UINT32_MAX : (uint32_t)first + gr->child_of[c];
    }
    gv_grow_finish_split(gr, id, first, k, &s, cat_begin);
    *first_out = first;
    return GROVE_OK;
}

/* ---- open nodes: a FIFO (depth-wise) or a max-heap on (gain, -id) (best-first) ---- */

static int heap_before(const grower *gr, size_t a, size_t b)
{
    double ga = gr->g[a].split.gain, gb = gr->g[b].split.gain;
    if (ga != gb) return ga > gb;
    return a < b;
}

grove_status gv_grow_open_push(grower *gr, size_t id)
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

grove_status gv_grow_tree(grower *gr)
{
    gv_engine *e = &gr->e;
    const gv_tree_config *cfg = e->cfg;
    grove_status st;
    double *fh = NULL; /* the root's histogram built with its totals (root_fusable) */
    if ((st = gv_grow_ensure_nodes(gr, 1)) != GROVE_OK) return st;
    size_t root = gv_grow_new_node(gr, 0, 0, e->n);
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
            gv_grow_sum_gathered(e, 0, e->n, gr->tot);
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
                gv_grow_add_parts(e->part, nbk, 3, gr->tot);
            else
                gv_grow_pos_init_sums(e, gr->tot, gr->fill_idx);
            e->gathered_fmt = 0;
        } else {
            gv_grow_pos_init_sums(e, gr->tot, gr->fill_idx);
        }
    } else {
        gv_grow_sum_rows_gather(e, gr->tot);
    }
    gv_grow_reduce_totals(gr, root);
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
    if ((st = gv_grow_evaluate(gr, root, rh, NULL, 0)) != GROVE_OK) return st;
    if (gr->g[root].split.feature >= 0 && (st = gv_grow_open_push(gr, root)) != GROVE_OK) return st;

    size_t id;
    while (open_pop(gr, &id)) {
        if (gv_grow_leaf_batchable(gr, id)) {
            /* the rest of the level with it (FIFO: its nodes are next, in id order) */
            size_t m = 1;
            while (gr->head + m - 1 < gr->n_open && gv_grow_leaf_batchable(gr, gr->open[gr->head + m - 1]))
                m++;
            st = gv_grow_leaves_batch(gr, gr->open + gr->head - 1, m);
            if (st != GROVE_OK) return st;
            gr->head += m - 1;
            continue;
        }
        if (gv_grow_level_batchable(gr, id)) {
            /* the rest of the level with it, while the pool keeps every child's histogram */
            const int d = gr->t->nodes[id].depth;
            size_t m = 1;
            while (gr->head + m - 1 < gr->n_open && gr->t->nodes[gr->open[gr->head + m - 1]].depth == d &&
                   gv_grow_level_batchable(gr, gr->open[gr->head + m - 1]))
                m++;
            if (e->n_kept + m <= e->max_kept) {
                gr->head += m - 1;
                if ((st = gv_grow_level_batch(gr, gr->open + gr->head - m, m)) != GROVE_OK) return st;
                continue;
            }
        }
        gnode *g = &gr->g[id];
        size_t k = g->split.type == GV_NODE_CAT_MULTI
                       ? gv_grow_popcount_words(e->cat_pool + g->split.cat_off, g->split.cat_len)
                       : 2;
        double *phist = g->hist;
        if (phist) e->n_kept--;
        g->hist = NULL;
        if (cfg->max_leaves > 0 && gr->n_leaves + (k - 1) > cfg->max_leaves) {
            gv_hist_release(e, phist);
            continue;
        }
        size_t first;
        st = gv_grow_apply_split(gr, id, k, phist, &first);
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
        if ((st = gv_grow_eval_children(gr, first, k, phist)) != GROVE_OK) return st;
        for (size_t c = 0; c < k; c++)
            if (gr->g[first + c].split.feature >= 0 && (st = gv_grow_open_push(gr, first + c)) != GROVE_OK)
                return st;
    }
    return GROVE_OK;
}

/* The bits of x: 0 for 0, else 1 + floor(log2 x). */
