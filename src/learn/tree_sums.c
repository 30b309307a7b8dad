/*
 * tree_sums.c -- node totals: the sums of the rows' statistics.
 *
 * Pipeline position: learn/, the tree engine (grow_int.h).
 * A node's totals are t = (count, sum s_r) over its rows r in row order, s_r = (w) per class
 * (CLASS), (w, w d, w d^2) with d = y - c (REG), (g, h) (GRAD).  Sums run by fixed blocks of
 * ROW_BLOCK rows whose partial sums are added in block order, so they are the same for any
 * number of threads; a data-parallel run adds the ranks' totals (reduce_totals).
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

/* Adds the statistics of rows idx[0..n) to record t, in row order (row_add's sums).  The two
 * loops that run over every row at every level keep their sums in registers. */
void gv_grow_sum_rows_serial(const gv_engine *e, const gv_row *idx, size_t n, double *t)
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
void gv_grow_add_parts(const double *part, size_t nb, size_t S, double *t)
{
    if (part == t) return;
    for (size_t b = 0; b < nb; b++)
        for (size_t k = 0; k < S; k++) t[k] += part[b * S + k];
}

/* Node totals: t (zeroed) = the sum over rows idx[0..n), taken over fixed blocks of
 * ROW_BLOCK rows (in parallel) whose partial sums are then added in block order.  The blocks
 * do not depend on the thread count, so neither do the sums. */
void gv_grow_sum_rows(const gv_engine *e, const gv_row *idx, size_t n, double *t)
{
    size_t n_blocks = (n + ROW_BLOCK - 1) / ROW_BLOCK, S = e->S;
    if (n_blocks <= 1) {
        gv_grow_sum_rows_serial(e, idx, n, t);
        return;
    }
    double *part = block_parts(e, n, S, t, &n_blocks);
#ifdef _OPENMP
#pragma omp parallel for num_threads(e->nt) schedule(static) if (e->nt > 1)
#endif
    for (size_t b = 0; b < n_blocks; b++) {
        size_t lo = b * ROW_BLOCK, len = n - lo < ROW_BLOCK ? n - lo : ROW_BLOCK;
        gv_grow_sum_rows_serial(e, idx + lo, len, part + b * S);
    }
    gv_grow_add_parts(part, n_blocks, S, t);
}

/* The root's totals t (zeroed) as gv_grow_sum_rows(e, e->idx, e->n, t) gives them, and, CLASS and REG,
 * in the same pass over the rows (by the same blocks, in parallel) the gather of their
 * statistics for the root's histogram (gv_hist_gather's ns and ncls, hist.c). */
void gv_grow_sum_rows_gather(gv_engine *e, double *t)
{
    const size_t n = e->n, S = e->S, stride = gv_ns_stride(e);
    if (e->cfg->stats == GV_STATS_GRAD) {
        gv_grow_sum_rows(e, e->idx, n, t);
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
    gv_grow_add_parts(part, n_blocks, S, t);
    e->gathered_begin = 0;
    e->gathered_end = n;
}

/* GRAD node totals from the gathered statistics: t (zeroed) = the sum over positions
 * [lo, lo + n) of e->ns, by the blocks of sum_rows (the same numbers in the same order, so the
 * same sums as sum_rows over idx + lo). */
void gv_grow_sum_gathered(const gv_engine *e, size_t lo, size_t n, double *t)
{
    size_t n_blocks;
    double *part = block_parts(e, n, 3, t, &n_blocks);
#ifdef _OPENMP
#pragma omp parallel for num_threads(e->nt) schedule(static) if (e->nt > 1 && n_blocks > 2)
#endif
    for (size_t b2 = 0; b2 < (n_blocks + 1) / 2; b2++) gathered_pair(e->ns, lo, n, 2 * b2, n_blocks, part);
    gv_grow_add_parts(part, n_blocks, 3, t);
}

/* ns_pos without records: the root's gather and totals in one pass (gv_hist_pos_init, then
 * gv_grow_sum_gathered(e, 0, n, t)): every position's (g, h) into ns, summed by sum_gathered's blocks
 * (the same numbers, so the same sums), and with fill (no row list: the view is every row in
 * order) idx[i] = i written in the same pass. */
void gv_grow_pos_init_sums(gv_engine *e, double *t, int fill)
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
    gv_grow_add_parts(part, n_blocks, 3, t);
    e->gathered_fmt = 0;
}

/* Quantized GRAD node totals, with the gather of the rows' integer records for the node's
 * histogram in the same pass (gv_hist_gather_sums): t (zeroed) = gv_grow_sum_rows(e, idx + lo, n, t),
 * by the same blocks in the same order. */
void gv_grow_sum_gather_quant(gv_engine *e, size_t lo, size_t n, double *t)
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
    gv_grow_add_parts(part, n_blocks, 3, t);
}

/* A node's row count: its rows here, or over all ranks in a data-parallel run (the totals'
 * count, summed over the ranks), so that every rank takes the same decisions; with repeated
 * rows listed once (e->rmul), the totals' count. */
size_t gv_grow_node_count(const grower *gr, size_t id)
{
    if (gr->e.cfg->dist || gr->e.rmul) return (size_t)gr->tot[id * gr->e.S];
    return gr->g[id].end - gr->g[id].begin;
}

/* Data-parallel runs: a node's totals and a histogram's candidate features summed over the
 * ranks (the identity in one process; exact when the statistics are on a common grid). */
void gv_grow_reduce_totals(const grower *gr, size_t id)
{
    if (gr->e.cfg->dist) gv_dist_sum_f64(gr->tot + id * gr->e.S, gr->e.S);
}

void gv_grow_reduce_hist(const gv_engine *e, double *hist, const int32_t *feats, size_t n_feats)
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

int gv_grow_splittable(const grower *gr, size_t id)
{
    const gv_tree_config *cfg = gr->e.cfg;
    const gv_tree_node *nd = &gr->t->nodes[id];
    size_t count = gv_grow_node_count(gr, id);
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
