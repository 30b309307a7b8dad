/*
 * hist_sparse.c -- histograms of the tree engine built from stored entries only: compressed-row
 * matrices (a node's rows' entries; a feature's default bin is the node's totals minus its other
 * bins), small nodes' touched bins (a node of m rows costs m additions a feature, not a zeroing
 * and a scan of every bin), and the quantized builds' sparse rows (gv_row_nz).
 *
 * Pipeline position: learn/, private to the tree engine (tree_int.h has the layout).
 * Every builder here adds the same statistics in the same row order as hist.c's dense builds
 * on the same node, so the histograms (and the trees) are the same whichever builds them:
 *     h_f[b] = sum over rows r of the node with bin(r, f) = b of (1, s_r)
 *     h_f[default] = t - sum over b != default of h_f[b]   (t: the node's totals)
 */
#include "hist_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

void gv_row_nz_free(gv_row_nz *z)
{
    if (!z) return;
    gv_free(z->off);
    gv_free(z->ent);
    gv_free(z->skip);
    gv_free(z);
}

grove_status gv_row_nz_build(const gv_binned *X, const uint8_t *row_bins, int n_threads,
                             gv_row_nz **out)
{
    *out = NULL;
    const size_t n = X->n_rows, F = X->n_features, G = (F + GV_NZ_GROUP - 1) / GV_NZ_GROUP;
    if (!X->root_count || !row_bins || X->wide || n == 0 || F == 0) return GROVE_OK;
    uint16_t *skip = gv_malloc_array(F, sizeof *skip);
    if (!skip) return GROVE_OK;
    /* each feature's most frequent bin (bin.c's counts over all rows), when it holds at least
     * GV_NZ_MIN_MODE of the rows */
    size_t nnz = 0;
    for (size_t f = 0; f < F; f++) {
        const double *cnt = X->root_count + X->root_count_off[f];
        size_t mode = 0;
        for (size_t b = 1; b < X->mappers[f].n_bins; b++)
            if (cnt[b] > cnt[mode]) mode = b;
        const int use = cnt[mode] >= GV_NZ_MIN_MODE * (double)n;
        skip[f] = use ? (uint16_t)mode : 256;
        nnz += use ? n - (size_t)cnt[mode] : n;
    }
    if ((double)nnz > GV_NZ_MAX_FILL * (double)n * (double)F || nnz >= UINT32_MAX ||
        n >= (SIZE_MAX - 1) / G / sizeof(uint32_t)) {
        gv_free(skip);
        return GROVE_OK;
    }
    gv_row_nz *z = gv_calloc(1, sizeof *z);
    if (!z) {
        gv_free(skip);
        return GROVE_OK;
    }
    z->n_groups = G;
    z->skip = skip;
    z->off = gv_malloc_huge_array(G * (n + 1), sizeof *z->off);
    z->ent = gv_malloc_huge_array(nnz ? nnz : 1, sizeof *z->ent);
    uint16_t *at = gv_malloc_array(F, sizeof *at); /* record index of bin 0 in the group */
    if (!z->off || !z->ent || !at) {
        gv_free(at);
        gv_row_nz_free(z);
        return GROVE_OK;
    }
    for (size_t f = 0, c = 0; f < F; f++) {
        if (f % GV_NZ_GROUP == 0) c = 0;
        at[f] = (uint16_t)c; /* < 64 * 256 */
        c += X->mappers[f].n_bins;
    }
    (void)n_threads;
    /* entries per row and group at off[g (n + 1) + r] (they add up to nnz: bin.c's counts) */
    long nl = (long)n;
#ifdef _OPENMP
#pragma omp parallel for num_threads(n_threads) schedule(static) if (n_threads > 1 && n >= 4096)
#endif
    for (long r = 0; r < nl; r++) {
        const uint8_t *row = row_bins + (size_t)r * F;
        for (size_t g = 0; g < G; g++) {
            uint32_t c = 0;
            size_t f = g * GV_NZ_GROUP, f1 = f + GV_NZ_GROUP < F ? f + GV_NZ_GROUP : F;
            for (; f < f1; f++) c += row[f] != skip[f];
            z->off[g * (n + 1) + (size_t)r] = c;
        }
    }
    uint32_t acc = 0; /* group-major: a group's rows one after another */
    for (size_t g = 0; g < G; g++) {
        uint32_t *o = z->off + g * (n + 1);
        for (size_t r = 0; r < n; r++) {
            uint32_t c = o[r];
            o[r] = acc;
            acc += c;
        }
        o[n] = acc;
    }
#ifdef _OPENMP
#pragma omp parallel for num_threads(n_threads) schedule(static) if (n_threads > 1 && n >= 4096)
#endif
    for (long r = 0; r < nl; r++) {
        const uint8_t *row = row_bins + (size_t)r * F;
        for (size_t g = 0; g < G; g++) {
            uint16_t *dst = z->ent + z->off[g * (n + 1) + (size_t)r];
            size_t f = g * GV_NZ_GROUP, f1 = f + GV_NZ_GROUP < F ? f + GV_NZ_GROUP : F;
            for (; f < f1; f++)
                if (row[f] != skip[f]) *dst++ = (uint16_t)(at[f] + row[f]);
        }
    }
    gv_free(at);
    *out = z;
    return GROVE_OK;
}

static int cmp_feat(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

enum { SPARSE_COL_GAIN = 8 };

/* Adds position i's record (count 1, then its statistics) to bin record hb. */
static inline void sparse_add(const gv_engine *e, size_t i, double *hb)
{
    const double *ns = e->ns;
    hb[0] += 1.0;
    switch (e->cfg->stats) {
    case GV_STATS_CLASS: hb[1 + e->ncls[i]] += ns[i]; break;
    case GV_STATS_REG:
        hb[1] += ns[3 * i];
        hb[2] += ns[3 * i + 1];
        hb[3] += ns[3 * i + 2];
        break;
    case GV_STATS_GRAD:
        V2D_AT(hb + 1) += ns_row(ns, gv_ns_f32(e), i); /* (g, h) as ns holds them */
        break;
    }
}

/* Starts feature f's histogram in this node when it is first met: zeroed, listed, and its
 * running sum of the non-default bins (sp_acc, in slot sp_slot[f]) zeroed. */
static inline double *sparse_meet(gv_engine *e, size_t f, double *h, size_t *n_t, double **acc)
{
    double *hf = h + e->hist_off[f];
    if (e->sp_seen[f] != e->sp_epoch) {
        e->sp_seen[f] = e->sp_epoch;
        e->sp_slot[f] = (uint32_t)*n_t;
        e->sp_feats[(*n_t)++] = (int32_t)f;
        memset(hf, 0, (size_t)e->X->mappers[f].n_bins * e->S * sizeof *hf);
        memset(e->sp_acc + e->S * e->sp_slot[f], 0, e->S * sizeof *e->sp_acc);
    }
    *acc = e->sp_acc + e->S * e->sp_slot[f];
    return hf;
}

size_t gv_hist_build_sparse(gv_engine *e, size_t begin, size_t end, const int32_t *feats,
                            size_t n_feats, double *h)
{
    const gv_binned *X = e->X;
    const size_t S = e->S;
    const gv_row *idx = e->idx;
    gv_hist_gather(e, begin, end);
    if (++e->sp_epoch == 0) { /* wrapped: forget every mark */
        memset(e->sp_seen, 0, e->n_features * sizeof *e->sp_seen);
        memset(e->sp_cand, 0, e->n_features * sizeof *e->sp_cand);
        memset(e->sp_rseen, 0, X->n_rows * sizeof *e->sp_rseen);
        e->sp_epoch = 1;
    }
    const uint32_t epoch = e->sp_epoch;
    const int all = n_feats == e->n_features; /* feats ascending and distinct: every feature */
    /* the node's totals, and the work of each way: the entries of the node's rows, or those
     * of the candidate features' columns */
    double T[4 + 256];
    double *tot = S <= 260 ? T : e->scratch[0].acc; /* acc holds 4 S doubles */
    memset(tot, 0, S * sizeof *tot);
    size_t by_rows = 0, by_cols = 0;
    for (size_t i = begin; i < end; i++) {
        sparse_add(e, i, tot);
        by_rows += X->csr_ptr[idx[i] + 1] - X->csr_ptr[idx[i]];
    }
    if (all)
        by_cols = X->csc_ptr[e->n_features];
    else
        for (size_t k = 0; k < n_feats && by_cols <= SPARSE_COL_GAIN * by_rows; k++)
            by_cols += X->csc_ptr[feats[k] + 1] - X->csc_ptr[feats[k]];
    size_t n_t = 0;
    /* A row's entries land all over the histogram (a cache miss each when there are many
     * features), a column's in one feature's bins: columns win unless they are many times more
     * work (measured on a news20-like set: 1.35M features, gbdt of depth 6). */
    if (by_cols + (end - begin) < SPARSE_COL_GAIN * by_rows) {
        /* by column: the node's positions of each row, then each candidate's entries */
        for (size_t i = end; i-- > begin;) {
            size_t r = idx[i];
            e->sp_next[i] = e->sp_rseen[r] == epoch ? e->sp_head[r] : SIZE_MAX;
            e->sp_head[r] = i;
            e->sp_rseen[r] = epoch;
        }
        for (size_t k = 0; k < n_feats; k++) {
            const size_t f = (size_t)feats[k];
            double *hf = NULL, *acc = NULL;
            for (size_t j = X->csc_ptr[f]; j < X->csc_ptr[f + 1]; j++) {
                const size_t r = X->csc_row[j];
                if (e->sp_rseen[r] != epoch) continue;
                if (!hf) hf = sparse_meet(e, f, h, &n_t, &acc);
                double *hb = hf + S * (size_t)X->csc_bin[j];
                for (size_t p = e->sp_head[r]; p != SIZE_MAX; p = e->sp_next[p]) {
                    sparse_add(e, p, hb);
                    sparse_add(e, p, acc);
                }
            }
        }
    } else {
        /* by row: each row's entries, features offered to this node only */
        if (!all)
            for (size_t k = 0; k < n_feats; k++) e->sp_cand[feats[k]] = epoch;
        for (size_t i = begin; i < end; i++) {
            const size_t r = idx[i];
            for (size_t k = X->csr_ptr[r]; k < X->csr_ptr[r + 1]; k++) {
                const size_t f = X->csr_feat[k];
                if (!all && e->sp_cand[f] != epoch) continue;
                double *acc, *hf = sparse_meet(e, f, h, &n_t, &acc);
                sparse_add(e, i, hf + S * (size_t)X->csr_bin[k]);
                sparse_add(e, i, acc);
            }
        }
        qsort(e->sp_feats, n_t, sizeof *e->sp_feats, cmp_feat);
    }
    /* the default bin: the node's totals minus the feature's other bins (their running sum);
     * a bin without rows gets exact zeros, and weights cannot go below zero by rounding */
    for (size_t j = 0; j < n_t; j++) {
        const size_t f = (size_t)e->sp_feats[j], d = X->default_bin[f];
        double *hd = h + e->hist_off[f] + S * d;
        const double *acc = e->sp_acc + S * e->sp_slot[f];
        for (size_t s = 0; s < S; s++) hd[s] = tot[s] - acc[s];
        if (hd[0] < 0.5) {
            memset(hd, 0, S * sizeof *hd);
        } else if (e->cfg->stats == GV_STATS_CLASS) {
            for (size_t s = 1; s < S; s++)
                if (hd[s] < 0) hd[s] = 0;
        } else if (e->cfg->stats == GV_STATS_REG) {
            if (hd[1] < 0) hd[1] = 0;
            if (hd[3] < 0) hd[3] = 0;
        } else if (hd[2] < 0) {
            hd[2] = 0;
        }
    }
    return n_t;
}

enum { TOUCHED_PREFETCH = 16 };

/* Adds position i's record (count 1 -- or its multiplicity, e->rmul -- then its statistics)
 * to bin record hb. */
static inline void touched_add(const gv_engine *e, size_t i, double *hb)
{
    const double *ns = e->ns;
    switch (e->cfg->stats) {
    case GV_STATS_CLASS:
        hb[0] += e->rmul ? ns[i] : 1.0;
        hb[1 + e->ncls[i]] += ns[i];
        return;
    case GV_STATS_REG:
        hb[0] += 1.0;
        hb[1] += ns[3 * i];
        hb[2] += ns[3 * i + 1];
        hb[3] += ns[3 * i + 2];
        break;
    case GV_STATS_GRAD:
        hb[0] += 1.0;
        V2D_AT(hb + 1) += ns_row(ns, gv_ns_f32(e), i); /* (g, h) as ns holds them */
        break;
    }
}

/* Whether a small node of m rows reads its n_feats candidates' bins faster column by column
 * than row by row.  Cache lines read per row: by row, the distinct lines of the row that hold
 * a candidate, L = l (1 - (1 - 1/l)^n_feats) for rows of l lines; by column, n_feats times the
 * lines of a column touched per row, (1 - exp(-rho)) / rho with rho = 64 m / N rows per line.
 * Columns are walked in address order (the hardware prefetcher streams them; a row walk
 * jumps a row at a time), which counts here as a third fewer lines: columns win when
 * n_feats (1 - exp(-rho)) / rho < 1.5 L.  Fashion-MNIST (784 one-byte features, 28
 * candidates, 60,000 rows): from about 1,000 rows (measured: 0.92x the CPU of rows only);
 * 28 features (one line a row): never below 4,096 rows. */
static int touched_by_column(const gv_engine *e, size_t m, size_t n_feats)
{
    const size_t N = e->X->n_rows, F = e->X->n_features;
    if (m == 0 || N == 0) return 0;
    const double l = (double)((F + 63) / 64);
    const double by_row = l * (1.0 - pow(1.0 - 1.0 / l, (double)n_feats));
    const double rho = 64.0 * (double)m / (double)N;
    const double by_col = (double)n_feats * -expm1(-rho) / rho;
    return by_col < 1.5 * by_row;
}

void gv_hist_build_touched(gv_engine *e, size_t begin, size_t end, const int32_t *feats,
                           size_t n_feats, double *h)
{
    const gv_binned *X = e->X;
    const size_t S = e->S;
    const gv_row *idx = e->idx;
    gv_hist_gather(e, begin, end);
    if (e->touched_slot)
        for (size_t k = 0; k < n_feats; k++) e->touched_off[feats[k]] = k * e->touched_slot;
    if (e->in->row_bins && !touched_by_column(e, end - begin, n_feats)) {
        /* Row-major (forests: gv_tree_input.row_bins): a row's sampled features lie in a few
         * cache lines of its row (fashion-MNIST: 28 of 784 features in ~11 of 13 lines)
         * instead of one line per feature of the columns.  Each bin still adds its rows in
         * row order: the same sums as the loop by column below. */
        const size_t F = X->n_features;
        const uint8_t *rb = e->in->row_bins;
        for (size_t i = begin; i < end; i++) {
            const uint8_t *row = rb + idx[i] * F;
            const uint8_t *next = i + TOUCHED_PREFETCH < end ? rb + idx[i + TOUCHED_PREFETCH] * F : row;
            for (size_t k = 0; k < n_feats; k++) {
                const size_t f = (size_t)feats[k];
                __builtin_prefetch(next + f);
                const unsigned b = row[f];
                e->touched[4 * f + (b >> 6)] |= (uint64_t)1 << (b & 63);
                touched_add(e, i, h + e->touched_off[f] + S * b);
            }
        }
        return;
    }
    for (size_t k = 0; k < n_feats; k++) {
        const size_t f = (size_t)feats[k];
        const uint8_t *col = X->bins8 + f * X->n_rows;
        uint64_t *tb = e->touched + 4 * f;
        double *hf = h + e->touched_off[f];
        /* row order, one accumulator per bin: build_feature's sums on a node this small */
        for (size_t i = begin; i < end; i++) {
            /* the column is read at random rows: ask for a later row's byte early */
            if (i + TOUCHED_PREFETCH < end) __builtin_prefetch(col + idx[i + TOUCHED_PREFETCH]);
            const unsigned b = col[idx[i]];
            tb[b >> 6] |= (uint64_t)1 << (b & 63);
            touched_add(e, i, hf + S * b);
        }
    }
}

void gv_hist_clean(gv_engine *e, const int32_t *feats, size_t n_feats, double *h)
{
    const size_t S = e->S;
    for (size_t k = 0; k < n_feats; k++) {
        const size_t f = (size_t)feats[k];
        uint64_t *tb = e->touched + 4 * f;
        double *hf = h + e->touched_off[f];
        for (unsigned w = 0; w < 4; w++) {
            for (uint64_t m = tb[w]; m; m &= m - 1)
                memset(hf + S * (64 * w + (unsigned)__builtin_ctzll(m)), 0, S * sizeof *hf);
            tb[w] = 0;
        }
    }
}
