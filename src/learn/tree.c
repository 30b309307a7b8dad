/*
 * tree.c -- the tree engine's entry (gv_tree_fit): configuration checks, the engine's setup
 * (row lists, histogram layout, quantization, the plan), and the gv_tree it produces.
 *
 * Pipeline position: learn/ (reads bin/'s gv_binned through a row view; ensembles call it).
 * The engine's rooms, each a file:
 *   tree.c            checks, setup, gv_tree_fit                 (this file)
 *   plan.c            the code paths of a fit, chosen once        (plan.h)
 *   tree_grow.c       nodes, evaluation, applying a split, the growth loop (depth-wise FIFO,
 *                     best-first heap)
 *   tree_level.c      depth-wise levels batched: one parallel region per level
 *   tree_partition.c  moving a node's rows to its children (and the leaves of the last level)
 *   tree_sums.c       node totals: blocked sums of the rows' statistics
 *   hist*.c           histograms (hist.c the builders' dispatch and row-major dense builds,
 *                     hist_sparse.c sparse rows and columns, hist_roots.c shared roots)
 *   split.c           scores and split search
 * tree_int.h has the histogram layout and the tie-breaking rule, grow_int.h the grower.
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
    if ((cfg->monotone || cfg->igroups) && (cfg->stats != GV_STATS_GRAD || cfg->random_thresholds))
        return gv_err(GROVE_ERR_ARG, "gv_tree_fit: constraints need gradient statistics and searched thresholds");
    if (cfg->monotone)
        for (size_t f = 0; f < F; f++)
            if (cfg->monotone[f] != 0 && in->X->mappers[f].is_categorical)
                return gv_err(GROVE_ERR_ARG, "gv_tree_fit: a monotone constraint on categorical feature %zu", f);
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
    gv_free(gr->allow);
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
static unsigned bits_of(uint64_t x)
{
    return x ? 64u - (unsigned)__builtin_clzll((unsigned long long)x) : 0u;
}

/* Regression statistics (every GV_STATS_REG tree, one process or data-parallel): the sums of
 * w, w d and w d^2 (d = y - c) are not exact in floating point, so every view row's three
 * terms are rounded to grids common to all ranks (dist.h: each the smallest power of two q
 * with the total view rows x the largest |term| < 2^52 q), and every histogram, node total,
 * subtraction and sum over the ranks of them is exact, in any order.  c, the weighted mean of
 * y, comes from exact sums too.  The rounding moves each term by at most q / 2, about
 * n 2^-53 of the largest term; in exchange one process and any number of ranks build the
 * same trees (docs/distributed.md). */
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
    gv_dist_snap(a, n, gv_dist_grid(a, n, 1), 1); /* (no-op for weights learners.c snapped) */
    for (size_t i = 0; i < n; i++) b[i] = a[i] * in->y[e->idx[i]];
    double sw = gv_dist_sum_exact(a, n), swy = gv_dist_sum_exact(b, n);
    e->shift = sw > 0 ? swy / sw : 0.0;
    for (size_t i = 0; i < n; i++) {
        size_t r = e->idx[i];
        reg[3 * r] = a[i];
        b[i] = a[i] * (in->y[r] - e->shift);
    }
    gv_dist_snap(b, n, gv_dist_grid(b, n, 1), 1);
    for (size_t i = 0; i < n; i++) {
        size_t r = e->idx[i];
        double d = in->y[r] - e->shift;
        reg[3 * r + 1] = b[i];
        b[i] = a[i] * d * d;
    }
    gv_dist_snap(b, n, gv_dist_grid(b, n, 1), 1);
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
void gv_grow_leaves_of_rows(const grower *gr, uint32_t *leaf_of_row)
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
    if (in->plan_out) *in->plan_out = e->plan;
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
    if (cfg->igroups) gr.allow = gv_malloc_array(F ? F : 1, sizeof *gr.allow);
    if (!gr.all_feats || !gr.feats || !gr.perm || !gr.swap_j || !gr.child_of || !gr.child_pos ||
        (cfg->igroups && !gr.allow)) {
        st = gv_err_nomem("tree");
        goto fail;
    }
    for (size_t f = 0, j = 0; f < F; f++)
        if (!cfg->feature_mask || cfg->feature_mask[f]) gr.all_feats[j++] = (int32_t)f;
    for (size_t i = 0; i < F; i++) gr.perm[i] = i;

    if (cfg->stats == GV_STATS_REG && (st = reg_stats_dist(e)) != GROVE_OK) goto fail;

    if ((st = gv_grow_tree(&gr)) != GROVE_OK) goto fail;
    if (in->leaf_of_row) gv_grow_leaves_of_rows(&gr, in->leaf_of_row);
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
