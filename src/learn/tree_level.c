/*
 * tree_level.c -- depth-wise growth a level at a time: the level's partitions, histograms and
 * split searches each in one parallel region, instead of one per node.
 *
 * Pipeline position: learn/, the tree engine (grow_int.h).
 * A level's nodes are taken together where every one of them is a GRAD node split on numeric
 * features with its histogram kept (level_batchable): the batch partitions all of them, builds
 * the smaller child's histogram of each (largest first) and derives the larger as
 *     h(larger) = h(parent) - h(smaller),
 * then scans every child.  The trees are those of node-by-node growth: the same rows in the same
 * order per node, the same sums (tests compare the two).  The last level's splits into leaves
 * need no histograms (leaves_batch): one pass sums each leaf's (G, H).
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

/* Depth-wise GRAD growth: whether node id's split makes two leaves that split_leaves_grad
 * computes (apply_split's first case), so that leaves_batch may take it with the level's
 * others. */
int gv_grow_leaf_batchable(const grower *gr, size_t id)
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
grove_status gv_grow_leaves_batch(grower *gr, const size_t *ids, size_t m)
{
    gv_engine *e = &gr->e;
    gv_tree *t = gr->t;
    grove_status st = gv_grow_ensure_nodes(gr, 2 * m);
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
        for (size_t c = 0; c < 2; c++) gv_grow_new_node(gr, depth, g->begin, g->begin);
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
        gv_grow_split_leaves_grad(gr, s, s->type == GV_NODE_CAT_SET ? e->cat_pool + s->cat_off : NULL,
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
        gv_grow_leaves_grad_one(gr, s, s->type == GV_NODE_CAT_SET ? e->cat_pool + s->cat_off : NULL,
                                gr->g[id].begin, gr->g[id].end, first0 + 2 * j, id, nl[j]);
    }
    gv_free(order);
    for (size_t j = 0; j < m; j++) {
        const size_t id = ids[j];
        const gv_split s = gr->g[id].split;
        uint32_t cat_begin = 0;
        if (s.type == GV_NODE_CAT_SET) {
            st = gv_grow_append_cat(gr, e->cat_pool + s.cat_off, s.cat_len, &cat_begin);
            if (st != GROVE_OK) return st;
        }
        gv_grow_finish_split(gr, id, first0 + 2 * j, 2, &s, cat_begin);
    }
    at_depth(e, depth);
    return GROVE_OK;
}

/* Obtains histograms for, and evaluates, the k children of a split node.  Takes over the
 * parent's histogram `phist` (may be NULL). */
grove_status gv_grow_eval_children(grower *gr, size_t first, size_t k, double *phist)
{
    gv_engine *e = &gr->e;
    at_depth(e, gr->t->nodes[first].depth);
    grove_status st = GROVE_OK;
    size_t largest = 0, others = 0;
    for (size_t c = 0; c < k; c++)
        if (gv_grow_node_count(gr, first + c) > gv_grow_node_count(gr, first + largest)) largest = c;
    size_t n_largest = gv_grow_node_count(gr, first + largest);
    for (size_t c = 0; c < k; c++)
        if (c != largest) others += gv_grow_node_count(gr, first + c);

    if (phist && !gr->subset && !e->X->csr_ptr && gv_grow_splittable(gr, first + largest) &&
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
            gv_grow_reduce_hist(e, hc, gr->all_feats, gr->n_all);
            if (k > 2)
                gv_hist_subtract(e, phist, hc);
            else
                last = hc;
            /* binary: hc stays ours until the larger child's scan has subtracted it (a child
             * that keeps hc does not split before then) */
            st = gv_grow_evaluate(gr, first + c, hc, NULL, k == 2);
            if (st != GROVE_OK) {
                if (last && gr->g[first + c].hist != last) gv_hist_release(e, last);
                gv_hist_release(e, phist);
                return st;
            }
        }
        st = gv_grow_evaluate(gr, first + largest, phist, last, 0);
        if (last && gr->g[first + (largest == 0)].hist != last) gv_hist_release(e, last);
        return st;
    }
    gv_hist_release(e, phist);
    for (size_t c = 0; c < k && st == GROVE_OK; c++) st = gv_grow_evaluate(gr, first + c, NULL, NULL, 0);
    return st;
}

/* level_batch builds a level's histograms before it scans any: only where they are small
 * (1M x 28: 172 KB; fashion-MNIST's 4.8 MB would be scanned from memory instead of cache, and
 * its nodes' own regions are long and balanced already: d6 fashion 15k, 5 rounds, took 4 %
 * longer batched). */
#define LEVEL_HIST_MAX_BYTES ((size_t)1 << 20)

/* Depth-wise GRAD growth, all features numeric candidates: whether node id (to split, its
 * histogram kept, its children may split) may be taken with its level's others (level_batch). */
int gv_grow_level_batchable(const grower *gr, size_t id)
{
    const gv_engine *e = &gr->e;
    const gv_tree_config *cfg = e->cfg;
    if (cfg->best_first || cfg->max_leaves != 0 || !e->ns_pos || e->quant || e->nt < 2 ||
        gr->subset || e->X->csr_ptr || e->touched || cfg->random_thresholds || cfg->dist ||
        cfg->monotone || cfg->igroups ||
        !gr->g[id].hist || gr->g[id].split.type != GV_NODE_NUM || gv_grow_leaf_batchable(gr, id) ||
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
int gv_grow_partition_level(grower *gr, const size_t *ids, double *const *ph, size_t m,
                            size_t *w, int *summed, double *tot)
{
    gv_engine *e = &gr->e;
    if (e->nt != 2 || e->S != 3 || !e->ns_pos) return 0;
    size_t n_tasks = 0, n_sums = 0;
    for (size_t j = 0; j < m; j++) {
        const gnode *g = &gr->g[ids[j]];
        const size_t n = g->end - g->begin;
        size_t nl;
        if (g->split.type != GV_NODE_NUM || !gv_grow_hist_left_rows(e, ph[j], &g->split, NULL, &nl) ||
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
                gv_grow_block_move(e, &g->split, NULL, g->begin, mid, g->begin, w[j]);
            else
                gv_grow_block_move_back(e, &g->split, NULL, mid, g->end, w[j], g->end);
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
grove_status gv_grow_level_batch(grower *gr, const size_t *ids, size_t m)
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
    const int pre = m > 1 && gv_grow_partition_level(gr, ids, ph, m, pw, psum, ptot);
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
        st = gv_grow_apply_split(gr, ids[j], 2, ph[j], &first[j]);
        gr->pre_id = SIZE_MAX;
        if (st != GROVE_OK) goto out;
    }
    const int depth = gr->t->nodes[first[0]].depth;
    at_depth(e, depth);
    int sub = 1;
    for (size_t j = 0; j < m && sub; j++) {
        /* eval_children's test, k = 2 (the larger: the right child only with more rows) */
        const size_t nl = gv_grow_node_count(gr, first[j]), nr = gv_grow_node_count(gr, first[j] + 1);
        const size_t large = first[j] + (nr > nl), n_large = nr > nl ? nr : nl;
        sub = gv_grow_splittable(gr, large) && n_large >= gr->touched_rows && nl + nr - n_large < n_large;
    }
    if (!sub) {
        for (size_t j = 0; j < m; j++) {
            double *p = ph[j];
            ph[j] = NULL; /* (eval_children's) */
            if ((st = gv_grow_eval_children(gr, first[j], 2, p)) != GROVE_OK) goto out;
            for (size_t c = 0; c < 2; c++)
                if (gr->g[first[j] + c].split.feature >= 0 &&
                    (st = gv_grow_open_push(gr, first[j] + c)) != GROVE_OK)
                    goto out;
        }
        goto out;
    }
    /* the smaller children's histograms, the nodes with most rows first */
    for (size_t j = 0; j < m; j++) {
        const size_t nl = gv_grow_node_count(gr, first[j]), nr = gv_grow_node_count(gr, first[j] + 1);
        rows[j] = nr > nl ? nl : nr;
        ord[2 * j] = rows[j];
        ord[2 * j + 1] = j;
    }
    qsort(ord, m, 2 * sizeof *ord, cmp_rows_desc);
    double **hs = hist + 2 * m;
    for (size_t q = 0; q < m; q++) {
        const size_t j = ord[2 * q + 1], small = first[j] + !(gv_grow_node_count(gr, first[j] + 1) > gv_grow_node_count(gr, first[j]));
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
        ord[2 * c] = gv_grow_node_count(gr, first[c / 2] + c % 2);
        ord[2 * c + 1] = c;
    }
    qsort(ord, 2 * m, 2 * sizeof *ord, cmp_rows_desc);
#ifdef _OPENMP
#pragma omp parallel for num_threads(e->nt) schedule(dynamic, 1)
#endif
    for (size_t q = 0; q < 2 * m; q++) {
        const size_t c = ord[2 * q + 1], j = c / 2, id = first[j] + c % 2;
        const int large = (gv_grow_node_count(gr, first[j] + 1) > gv_grow_node_count(gr, first[j])) == (int)(c % 2);
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        sts[c] = GROVE_OK;
        res[c].feature = -1;
        if (!gv_grow_splittable(gr, id)) continue;
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
        const size_t lg = gv_grow_node_count(gr, first[j] + 1) > gv_grow_node_count(gr, first[j]);
        for (size_t w = 0; w < 2; w++) {
            const size_t c = 2 * j + (w == 0 ? !lg : lg), id = first[j] + c % 2;
            double *h = w == 0 ? hc[j] : ph[j];
            gnode *g = &gr->g[id];
            g->split = res[c];
            if (!may_split) gv_grow_note_leaf_nl(gr, id, h);
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
                (st = gv_grow_open_push(gr, first[j] + c)) != GROVE_OK)
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
