/*
 * hist.c -- histograms of the tree engine: gathering row statistics, building a node's
 * per-feature histograms (by column, and row-major over blocks of columns), subtraction, and
 * the pool of histogram buffers.  The sparse builders (compressed rows, small nodes' touched
 * bins, quantized sparse rows) are in hist_sparse.c, the shared roots of K trees in
 * hist_roots.c; hist_int.h has what they share.
 *
 * Pipeline position: learn/, private to the tree engine (tree_int.h has the layout).
 * The hot loop: for every row position i of the node, the row's bin in feature f (a gather
 * through the row index from the column-major binned matrix) selects a bin record, and the
 * row's statistics, gathered once per node into a position-aligned array (the "ordered
 * gradients" of LightGBM), are added to it.  Threads split the work by feature; each
 * feature's histogram is summed by one thread in row order, so results are bit-identical for
 * any number of threads (no atomics, no per-thread partial sums).
 */
#include "hist_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif


/* Quantized: the records a node's rows are summed in without the sparse rows (gv_row_nz):
 * QF_WORD the packed word at qsh (quant 8), QF_CHUNK the packed word at qpk_sh (quant 16 in
 * chunks, build_rows_p8), QF_WIDE (count, g, h, 0) (quant 16). */
enum { QF_WORD = 8, QF_CHUNK = 1, QF_WIDE = 16 };
static int quant_format(const gv_engine *e)
{
    if (e->quant == 8) return QF_WORD;
    return e->plan.pack ? QF_CHUNK : QF_WIDE;
}

/* Quantized: row r's integer record at position i of ns, where its doubles (g, h) would be. */
static inline void quant_record(const gv_engine *e, int fmt, size_t i, size_t r)
{
    const int32_t *qgh = e->in->qgh;
    if (fmt == QF_WIDE) {
        int32_t *q = (int32_t *)(void *)e->ns + 4 * i;
        q[0] = 1;
        q[1] = qgh[2 * r];
        q[2] = qgh[2 * r + 1];
        q[3] = 0;
    } else {
        const unsigned sh = fmt == QF_WORD ? e->qsh_h : e->qpk_sh_h;
        const unsigned sg = fmt == QF_WORD ? e->qsh_g : e->qpk_sh_g;
        ((uint64_t *)(void *)e->ns)[i] =
            ((uint64_t)(int64_t)qgh[2 * r] << sg) + ((uint64_t)qgh[2 * r + 1] << sh) + 1;
    }
}

static void gather_quant(gv_engine *e, size_t begin, size_t end, int fmt)
{
    const gv_row *idx = e->idx;
#ifdef _OPENMP
#pragma omp parallel for num_threads(e->nt) schedule(static) if (e->nt > 1 && end - begin >= PARALLEL_MIN_WORK)
#endif
    for (size_t i = begin; i < end; i++) quant_record(e, fmt, i, idx[i]);
    e->gathered_fmt = fmt;
}

void gv_hist_gather_sums(gv_engine *e, size_t a, size_t len, double *t)
{
    const gv_row *idx = e->idx;
    const double *grad = e->in->grad, *hess = e->in->hess;
    const int fmt = quant_format(e);
    double G = t[1], H = t[2];
    for (size_t i = a; i < a + len; i++) {
        const size_t r = idx[i];
        G += grad[r];
        H += hess[r];
        quant_record(e, fmt, i, r);
    }
    t[1] = G;
    t[2] = H;
    t[0] += (double)len;
}

void gv_hist_gathered_quant(gv_engine *e, size_t begin, size_t end)
{
    e->gathered_begin = begin;
    e->gathered_end = end;
    e->gathered_fmt = quant_format(e);
}

int gv_hist_quant_pos_ok(const gv_engine *e)
{
    return e->quant && !e->in->row_nz && quant_format(e) != QF_WIDE;
}

void gv_hist_pos_init(gv_engine *e)
{
    const gv_row *idx = e->idx;
    const double *grad = e->in->grad, *hess = e->in->hess;
    gv_gh *ns = (gv_gh *)(void *)e->ns;
    const long n = (long)e->n;
    const int fmt = e->q_pos ? quant_format(e) : 0;
    uint64_t *qrec = e->qrec;
#ifdef _OPENMP
#pragma omp parallel for num_threads(e->nt) schedule(static) if (e->nt > 1 && n >= PARALLEL_MIN_WORK)
#endif
    for (long i = 0; i < n; i++) {
        const gv_row r = idx[i];
        ns[i].g = (float)grad[r];
        ns[i].h = (float)hess[r];
        if (fmt) {
            const int32_t *q = e->in->qgh + 2 * (size_t)r;
            const unsigned sh = fmt == QF_WORD ? e->qsh_h : e->qpk_sh_h;
            const unsigned sg = fmt == QF_WORD ? e->qsh_g : e->qpk_sh_g;
            qrec[i] = ((uint64_t)(int64_t)q[0] << sg) + ((uint64_t)q[1] << sh) + 1;
        }
    }
    e->gathered_fmt = fmt;
}

void gv_hist_gather(gv_engine *e, size_t begin, size_t end)
{
    size_t stride = gv_ns_stride(e);
    double *ns = e->ns;
    int32_t *ncls = e->ncls;
    const gv_row *idx = e->idx;
    if (e->ns_pos) return; /* ns holds every position's (g, h) already (tree_int.h) */
    if (e->quant) {
        gather_quant(e, begin, end, e->quant == 8 ? QF_WORD : QF_WIDE);
        return;
    }
#ifdef _OPENMP
#pragma omp parallel for num_threads(e->nt) schedule(static) if (e->nt > 1 && end - begin >= PARALLEL_MIN_WORK)
#endif
    for (size_t i = begin; i < end; i++) {
        int32_t c = 0;
        gv_row_stats(e, idx[i], ns + i * stride, &c);
        if (ncls) ncls[i] = c;
    }
}

/* The loops over rows, one per statistics kind and bin width.  COL is the feature's column,
 * HF its histogram. */
#define HIST_LOOP_REG(COL)                                                                        \
    for (size_t i = begin; i < end; i++) {                                                         \
        double *hb = hf + 4 * (size_t)(COL)[idx[i]];                                               \
        hb[0] += 1.0;                                                                              \
        hb[1] += ns[3 * i];                                                                        \
        hb[2] += ns[3 * i + 1];                                                                    \
        hb[3] += ns[3 * i + 2];                                                                    \
    }
/* A CLASS row's count: 1, or with repeated rows listed once (e->rmul, tree_int.h) its
 * multiplicity, which is then also its weight ns[i].  `counted` is e->rmul != NULL. */
#define CLASS_COUNT(i) (counted ? ns[(i)] : 1.0)
#define HIST_LOOP_CLASS(COL)                                                                      \
    for (size_t i = begin; i < end; i++) {                                                         \
        double *hb = hf + S * (size_t)(COL)[idx[i]];                                               \
        hb[0] += CLASS_COUNT(i);                                                                   \
        hb[1 + ncls[i]] += ns[i];                                                                  \
    }

/* CLASS statistics over many rows: rows go round-robin to four histograms (the feature's and
 * three per-thread ones), so that runs of rows in the same bin (the zeros of a sparse feature)
 * do not chain every addition on the previous one's store; they are summed at the end, in the
 * same order for any number of threads.  At the root of a tree over all rows the row index is the
 * identity and the column is read in order. */
#define HIST_LOOP_CLASS2(COL, ROW)                                                                 \
    {                                                                                              \
        size_t i = begin;                                                                          \
        for (; i + 3 < end; i += 4) {                                                              \
            double *ha = hf + S * (size_t)(COL)[ROW(i)];                                           \
            double *hb = sub + S * (size_t)(COL)[ROW(i + 1)];                                      \
            double *hc = sub2 + S * (size_t)(COL)[ROW(i + 2)];                                     \
            double *hd = sub3 + S * (size_t)(COL)[ROW(i + 3)];                                     \
            ha[0] += CLASS_COUNT(i);                                                               \
            hb[0] += CLASS_COUNT(i + 1);                                                           \
            hc[0] += CLASS_COUNT(i + 2);                                                           \
            hd[0] += CLASS_COUNT(i + 3);                                                           \
            ha[1 + ncls[i]] += ns[i];                                                              \
            hb[1 + ncls[i + 1]] += ns[i + 1];                                                      \
            hc[1 + ncls[i + 2]] += ns[i + 2];                                                      \
            hd[1 + ncls[i + 3]] += ns[i + 3];                                                      \
        }                                                                                          \
        for (; i < end; i++) {                                                                     \
            double *ha = hf + S * (size_t)(COL)[ROW(i)];                                           \
            ha[0] += CLASS_COUNT(i);                                                               \
            ha[1 + ncls[i]] += ns[i];                                                              \
        }                                                                                          \
    }
/* The same over all rows (identity index), without the row counts: they come from the binned
 * matrix's root_count (bin.h), so each row costs one addition instead of two.  SS: the record
 * size S (a constant 3 for two classes: an address is then a lea, not a multiplication). */
#define HIST_LOOP_CLASS2_ROOT(COL, SS)                                                             \
    {                                                                                              \
        size_t i = begin;                                                                          \
        for (; i + 3 < end; i += 4) {                                                              \
            hf[(SS) * (size_t)(COL)[i] + 1 + (size_t)ncls[i]] += ns[i];                            \
            sub[(SS) * (size_t)(COL)[i + 1] + 1 + (size_t)ncls[i + 1]] += ns[i + 1];               \
            sub2[(SS) * (size_t)(COL)[i + 2] + 1 + (size_t)ncls[i + 2]] += ns[i + 2];              \
            sub3[(SS) * (size_t)(COL)[i + 3] + 1 + (size_t)ncls[i + 3]] += ns[i + 3];              \
        }                                                                                          \
        for (; i < end; i++) hf[(SS) * (size_t)(COL)[i] + 1 + (size_t)ncls[i]] += ns[i];           \
    }
#define ROW_IDENTITY(i) (i)
#define ROW_INDEXED(i) idx[i]
enum { CLASS2_MIN_ROWS = 4096 };

static void build_feature_class2(const gv_engine *e, size_t begin, size_t end, size_t f,
                                 double *hf, double *sub)
{
    const gv_binned *X = e->X;
    const size_t S = e->S, nb = (size_t)X->mappers[f].n_bins;
    const gv_row *idx = e->idx;
    const double *ns = e->ns;
    const int32_t *ncls = e->ncls;
    const int identity = begin == 0 && end == e->n && !e->in->rows;
    const int counted = e->rmul != NULL;
    double *sub2 = sub + nb * S, *sub3 = sub2 + nb * S;
    memset(sub, 0, 3 * nb * S * sizeof *sub);
    const double *counts = identity && X->root_count ? X->root_count + X->root_count_off[f] : NULL;
    if (X->wide) {
        const uint16_t *col = X->bins16 + f * X->n_rows;
        if (counts) HIST_LOOP_CLASS2_ROOT(col, S)
        else if (identity) HIST_LOOP_CLASS2(col, ROW_IDENTITY)
        else HIST_LOOP_CLASS2(col, ROW_INDEXED)
    } else {
        const uint8_t *col = X->bins8 + f * X->n_rows;
        if (counts && S == 3) HIST_LOOP_CLASS2_ROOT(col, 3)
        else if (counts) HIST_LOOP_CLASS2_ROOT(col, S)
        else if (identity) HIST_LOOP_CLASS2(col, ROW_IDENTITY)
        else HIST_LOOP_CLASS2(col, ROW_INDEXED)
    }
    for (size_t k = 0; k < nb * S; k++) hf[k] += (sub[k] + sub2[k]) + sub3[k];
    if (counts)
        for (size_t b = 0; b < nb; b++) hf[S * b] = counts[b];
}

/* CLASS statistics of all rows for a sparse feature (bin.h): only the rows outside its most
 * frequent bin are read; that bin is the root's totals minus the other bins. */
static void build_feature_class_sparse(const gv_engine *e, size_t f, double *hf)
{
    const gv_binned *X = e->X;
    const size_t S = e->S, nb = (size_t)X->mappers[f].n_bins, mode = X->mode_bin[f];
    const uint32_t *rows = X->sparse_rows[f];
    const size_t m = X->n_sparse[f];
    const double *ns = e->ns;
    const int32_t *ncls = e->ncls;
    if (X->wide) {
        const uint16_t *col = X->bins16 + f * X->n_rows;
        for (size_t j = 0; j < m; j++) {
            uint32_t r = rows[j];
            double *hb = hf + S * (size_t)col[r];
            hb[0] += 1.0;
            hb[1 + ncls[r]] += ns[r];
        }
    } else if (X->root_count) {
        /* counts from the binned matrix (bin.h), one addition per row */
        const uint8_t *col = X->bins8 + f * X->n_rows;
        for (size_t j = 0; j < m; j++) {
            uint32_t r = rows[j];
            hf[S * (size_t)col[r] + 1 + (size_t)ncls[r]] += ns[r];
        }
        const double *counts = X->root_count + X->root_count_off[f];
        for (size_t b = 0; b < nb; b++)
            if (b != mode) hf[S * b] = counts[b];
    } else {
        const uint8_t *col = X->bins8 + f * X->n_rows;
        for (size_t j = 0; j < m; j++) {
            uint32_t r = rows[j];
            double *hb = hf + S * (size_t)col[r];
            hb[0] += 1.0;
            hb[1 + ncls[r]] += ns[r];
        }
    }
    /* the frequent bin: total - sum of the other bins, in bin order */
    double *hm = hf + S * mode;
    for (size_t s = 0; s < S; s++) {
        double other = 0;
        for (size_t k = 0; k < nb; k++)
            if (k != mode) other += hf[S * k + s];
        hm[s] = e->root_total[s] - other;
    }
}

#define GRAD_ROW(i) ns_row(ns, F32, (i))
#define GRAD_ADD(hb, v)                                                                            \
    do {                                                                                           \
        double *hb_ = (hb);                                                                        \
        hb_[0] += 1.0;                                                                             \
        V2D_AT(hb_ + 1) += (v);                                                                    \
    } while (0)
#define HIST_LOOP_GRAD(COL)                                                                       \
    for (size_t i = begin; i < end; i++) GRAD_ADD(hf + 3 * (size_t)(COL)[idx[i]], GRAD_ROW(i));

/* Column-major GRAD over many rows: rows go round-robin to four histograms (the feature's and
 * three per-thread ones), so that runs of rows in the same bin do not chain every addition on
 * the previous one's store; they are summed at the end, in the same order for any number of
 * threads. */
#define HIST_LOOP_GRAD4(COL, ROW)                                                                  \
    {                                                                                              \
        size_t i = begin;                                                                          \
        for (; i + 3 < end; i += 4) {                                                              \
            GRAD_ADD(hf + 3 * (size_t)(COL)[ROW(i)], GRAD_ROW(i));                                 \
            GRAD_ADD(sub + 3 * (size_t)(COL)[ROW(i + 1)], GRAD_ROW(i + 1));                        \
            GRAD_ADD(sub2 + 3 * (size_t)(COL)[ROW(i + 2)], GRAD_ROW(i + 2));                       \
            GRAD_ADD(sub3 + 3 * (size_t)(COL)[ROW(i + 3)], GRAD_ROW(i + 3));                       \
        }                                                                                          \
        for (; i < end; i++) GRAD_ADD(hf + 3 * (size_t)(COL)[ROW(i)], GRAD_ROW(i));                \
    }

static inline __attribute__((always_inline)) void
build_feature_grad4(const gv_engine *e, size_t begin, size_t end, size_t f, double *hf,
                    double *sub, const int F32)
{
    const gv_binned *X = e->X;
    const size_t S = 3, nb = (size_t)X->mappers[f].n_bins;
    const gv_row *idx = e->idx;
    const double *ns = e->ns;
    const int identity = begin == 0 && end == e->n && !e->in->rows;
    double *sub2 = sub + nb * S, *sub3 = sub2 + nb * S;
    memset(sub, 0, 3 * nb * S * sizeof *sub);
    if (X->wide) {
        const uint16_t *col = X->bins16 + f * X->n_rows;
        if (identity) HIST_LOOP_GRAD4(col, ROW_IDENTITY)
        else HIST_LOOP_GRAD4(col, ROW_INDEXED)
    } else {
        const uint8_t *col = X->bins8 + f * X->n_rows;
        if (identity) HIST_LOOP_GRAD4(col, ROW_IDENTITY)
        else HIST_LOOP_GRAD4(col, ROW_INDEXED)
    }
    for (size_t k = 0; k < nb * S; k++) hf[k] += (sub[k] + sub2[k]) + sub3[k];
}

/* Row-major GRAD (hist_int.h): a block of columns' histograms within this many bytes, so that
 * they stay in cache while every row of the node adds to them. */
#define GRAD_BLOCK_BYTES ((size_t)192 << 10)
/* the doubles' records (24 bytes): half of that, measured on fashion-MNIST (784 features, 63
 * leaves, 1 thread): 5 rounds 9.99 -> 9.54 user s (four runs each), depth 6 5.44 -> 5.21; a
 * record's additions hit L2 less often (the blocks' rows are read twice as often, but those
 * reads are sequential) */
#define GRAD_BLOCK_BYTES_DBL ((size_t)96 << 10)


/* The row-major builds' one loop (build_rows_grad, build_rows_class2, the quantized builds):
 * for i in [B, E), row ROW(i)'s bytes lie at base + ROW(i) * F (a later row's first and last
 * line of the block prefetched); the declarations in ... take the row's value(s), and
 * ADD(k, bin) adds them to block feature k's bin, unrolled by four (independent additions in
 * flight).  The row's byte of block feature k is row[AT(k)]: AT_SAME when the block's features
 * are contiguous, else AT_LISTED (pos[k]).  Each caller has base, F, nk, span (the block's last
 * byte of a row) and, with ROW_INDEXED, idx. */
#define AT_SAME(k) (k)
#define AT_LISTED(k) pos[k]
#define ROWS_EACH(B, E, ROW, AT, ADD, ...)                                                         \
    for (size_t i = (B); i < (E); i++) {                                                           \
        if (i + GRAD_PREFETCH < (E)) {                                                             \
            const uint8_t *pf_ = base + ROW(i + GRAD_PREFETCH) * F;                                \
            __builtin_prefetch(pf_);                                                               \
            __builtin_prefetch(pf_ + span);                                                        \
        }                                                                                          \
        const uint8_t *row = base + ROW(i) * F;                                                    \
        __VA_ARGS__;                                                                               \
        size_t k = 0;                                                                              \
        for (; k + 4 <= nk; k += 4) {                                                              \
            ADD(k, row[AT(k)]);                                                                    \
            ADD(k + 1, row[AT(k + 1)]);                                                            \
            ADD(k + 2, row[AT(k + 2)]);                                                            \
            ADD(k + 3, row[AT(k + 3)]);                                                            \
        }                                                                                          \
        for (; k < nk; k++) ADD(k, row[AT(k)]);                                                    \
    }

/* The root's counts (integers, exact in any order): the binned matrix's root_count into the
 * count slot of block feature k's 3-double records hp[k], for the features feats[k0, k0 + nk). */
static void root_counts(const gv_binned *X, const int32_t *feats, size_t k0, size_t nk,
                        double *const *hp)
{
    for (size_t k = 0; k < nk; k++) {
        const size_t f = (size_t)feats[k0 + k], nb = (size_t)X->mappers[f].n_bins;
        const double *cnt = X->root_count + X->root_count_off[f];
        for (size_t b = 0; b < nb; b++) hp[k][3 * b] = cnt[b];
    }
}

/* The columns of one row-major block (ROWS_EACH's base, F, span and pos): the features
 * feats[k0, k1) of row_bins, or with feats NULL (bundles: gv_tree_input.bundles, every feature)
 * the columns [k0, k1) of row_bund, each a feature or a bundle of features whose histogram is
 * built in scratch and then marginalized into its members' (bundle_marg_*). */
typedef struct rows_block {
    const uint8_t *base;
    size_t F, nk, span, n_bins; /* n_bins: of all the block's columns */
    size_t max_bins;            /* of one column */
    int contiguous;
    uint32_t pos[GRAD_BLOCK_MAX];
    uint32_t nb[GRAD_BLOCK_MAX];  /* column k's bins */
    int32_t col[GRAD_BLOCK_MAX];  /* column k's feature, or -1 - its bundle */
} rows_block;

static void rows_block_init(const gv_engine *e, const int32_t *feats, size_t k0, size_t k1,
                            rows_block *rb)
{
    const gv_bundles *p = e->in->bundles;
    rb->nk = k1 - k0;
    rb->n_bins = 0;
    rb->max_bins = 0;
    if (!feats) {
        rb->base = e->in->row_bund + k0;
        rb->F = p->n_cols;
        rb->span = rb->nk - 1;
        rb->contiguous = 1;
        for (size_t k = 0; k < rb->nk; k++) {
            rb->pos[k] = (uint32_t)k;
            rb->col[k] = p->col[k0 + k];
            rb->nb[k] = p->col_bins[k0 + k];
            rb->n_bins += rb->nb[k];
            if (rb->nb[k] > rb->max_bins) rb->max_bins = rb->nb[k];
        }
        return;
    }
    const size_t f0 = (size_t)feats[k0];
    rb->base = e->in->row_bins + f0;
    rb->F = e->X->n_features;
    rb->span = (size_t)feats[k1 - 1] - f0; /* the block's last byte of a row */
    rb->contiguous = rb->span == rb->nk - 1;
    for (size_t k = 0; k < rb->nk; k++) {
        const size_t f = (size_t)feats[k0 + k];
        rb->pos[k] = (uint32_t)(f - f0);
        rb->col[k] = (int32_t)f;
        rb->nb[k] = e->X->mappers[f].n_bins;
        rb->n_bins += rb->nb[k];
        if (rb->nb[k] > rb->max_bins) rb->max_bins = rb->nb[k];
    }
}

/* Bundle bi's (gv_bundles) members in p->members[m0, m1) and its joint bins */
#define BUNDLE_MEMBERS(p, bi, m0, m1)                                                              \
    const size_t m0 = (p)->member_off[bi], m1 = (p)->member_off[(bi) + 1]
static size_t bundle_bins(const gv_bundles *p, size_t bi)
{
    return p->col_bins[p->n_cols - p->n_bundles + bi];
}

/* A GRAD bundle histogram src (joint bin j's (count, g, h) at src + ss * j; with ss 2 its
 * (g, h) only, the counts left 0) into its members' 3-double records of h: each member bin the
 * sum of its joint bins, in joint-bin order (the same sums for any number of threads; an order
 * other than the rows', so the last bits of g and h sums differ from an unbundled build's;
 * counts, integers, do not). */
static void bundle_marg_dbl(const gv_engine *e, size_t bi, const double *src, size_t ss,
                            double *h)
{
    const size_t c = ss == 2 ? 0 : 1; /* the g slot of a record */
    const gv_bundles *p = e->in->bundles;
    const size_t J = bundle_bins(p, bi);
    BUNDLE_MEMBERS(p, bi, m0, m1);
    for (size_t m = m0; m < m1; m++) {
        const size_t f = p->members[m];
        const uint8_t *dec = p->dec + m * 256;
        double *d = h + e->hist_off[f];
        memset(d, 0, (size_t)e->X->mappers[f].n_bins * 3 * sizeof *d);
        for (size_t j = 0; j < J; j++) {
            double *db = d + 3 * (size_t)dec[j];
            const double *sb = src + ss * j;
            if (c) db[0] += sb[0];
            db[1] += sb[c];
            db[2] += sb[c + 1];
        }
    }
}

/* The same for integer records of T (exact: the same histograms as an unbundled build);
 * DST(f) is member f's records. */
#define BUNDLE_MARG_INT(T, e, bi, src, DST)                                                        \
    do {                                                                                           \
        const gv_bundles *p_ = (e)->in->bundles;                                                   \
        const size_t J_ = bundle_bins(p_, bi);                                                     \
        BUNDLE_MEMBERS(p_, bi, m0_, m1_);                                                          \
        for (size_t m_ = m0_; m_ < m1_; m_++) {                                                    \
            const size_t f_ = p_->members[m_];                                                     \
            const uint8_t *dec_ = p_->dec + m_ * 256;                                              \
            T *d_ = (T *)(DST(f_));                                                                \
            memset(d_, 0, (size_t)(e)->X->mappers[f_].n_bins * sizeof(T));                        \
            for (size_t j_ = 0; j_ < J_; j_++) d_[dec_[j_]] += (src)[j_];                          \
        }                                                                                          \
    } while (0)

/* The root's counts of one feature (integers, exact in any order): the binned matrix's
 * root_count into the count slots of its 3-double records hf. */
static void root_counts_one(const gv_binned *X, size_t f, double *hf)
{
    const double *cnt = X->root_count + X->root_count_off[f];
    for (size_t b = 0, nb = X->mappers[f].n_bins; b < nb; b++) hf[3 * b] = cnt[b];
}

/* root_counts_one for every feature of block rb (a bundle's members) */
static void block_root_counts(const gv_engine *e, const rows_block *rb, double *h)
{
    const gv_bundles *p = e->in->bundles;
    for (size_t k = 0; k < rb->nk; k++) {
        if (rb->col[k] >= 0) {
            root_counts_one(e->X, (size_t)rb->col[k], h + e->hist_off[rb->col[k]]);
            continue;
        }
        BUNDLE_MEMBERS(p, (size_t)(-1 - rb->col[k]), m0, m1);
        for (size_t m = m0; m < m1; m++)
            root_counts_one(e->X, p->members[m], h + e->hist_off[p->members[m]]);
    }
}

/* build_rows_grad's records while rows are added: (count, g, h, 0), 32 bytes, so that a row
 * adds to a bin with one aligned 256-bit addition (a quarter of the histogram's 24-byte
 * records straddle two cache lines); copied into the histogram at the end.  The same
 * additions in the same order, so the same sums.  Thread scratch sc's buffer of at least
 * n_bins records, NULL without memory (then the histogram's own records).  The bundles'
 * histograms (rows_block) of the other builds are kept there too. */
static gv_v4d *grad4_reserve(gv_split_scratch *sc, size_t n_bins)
{
    if (sc->grad4_cap < n_bins) {
        gv_free(sc->grad4_mem);
        sc->grad4 = NULL;
        sc->grad4_cap = 0;
        sc->grad4_mem = n_bins < SIZE_MAX / sizeof(gv_v4d) - 1
                            ? gv_malloc_array(n_bins + 1, sizeof(gv_v4d)) : NULL;
        if (!sc->grad4_mem) return NULL;
        sc->grad4 = (double *)(((uintptr_t)sc->grad4_mem + 31) & ~(uintptr_t)31);
        sc->grad4_cap = n_bins;
    }
    return (gv_v4d *)(void *)sc->grad4;
}
static gv_v4d *grad4_records(const gv_engine *e, size_t n_bins)
{
#ifdef _OPENMP
    return grad4_reserve(&e->scratch[omp_get_thread_num()], n_bins);
#else
    return grad4_reserve(&e->scratch[0], n_bins);
#endif
}

/* build_rows_grad's records of block column k start at record k * GRAD_STRIDE */
enum { GRAD_STRIDE = 256 };
/* the 32-byte records or the 24-byte ones (plan.c's rule, gv_plan.rec32) */
static int grad_rec32(const gv_engine *e) { return e->plan.rec32; }

/* The root's totals by positions' blocks and its row list (gv_engine.root_fuse) in a pass of
 * their own: the builds whose loops do not take them. */
static void root_fuse_plain(const gv_engine *e, size_t begin, size_t end)
{
    const gv_gh *ns = (const gv_gh *)(const void *)e->ns;
    gv_row *idx = e->idx;
    const size_t RB = e->root_fuse_rb;
    for (size_t lo = begin, b = 0; lo < end; lo += RB, b++) {
        const size_t hi = end - lo < RB ? end : lo + RB;
        double G = 0, H = 0;
        for (size_t i = lo; i < hi; i++) {
            idx[i] = (gv_row)i;
            G += ns[i].g;
            H += ns[i].h;
        }
        double *pt = e->root_fuse + 3 * b;
        pt[0] = (double)(hi - lo), pt[1] = G, pt[2] = H;
    }
}

static inline __attribute__((always_inline)) void
build_rows_grad_t(const gv_engine *e, size_t begin, size_t end, const int32_t *feats, size_t k0,
                  size_t k1, double *h, const int F32)
{
    const gv_binned *X = e->X;
    const gv_tree_input *in = e->in;
    rows_block rb;
    rows_block_init(e, feats, k0, k1, &rb);
    const size_t F = rb.F, nk = rb.nk, span = rb.span;
    const uint8_t *base = rb.base;
    const uint32_t *pos = rb.pos;
    const gv_row *idx = e->idx;
    const double *ns = e->ns;
    double *hp[GRAD_BLOCK_MAX];
    gv_v4d *r4 = grad_rec32(e) && rb.max_bins <= GRAD_STRIDE ? grad4_records(e, nk * GRAD_STRIDE)
                                                                 : NULL;
    /* without r4, the bundles' histograms in the thread's scratch (gv_hist_build reserved it) */
    double *bsc = r4 || feats ? NULL : (double *)(void *)grad4_records(e, rb.n_bins);
    /* (with r4 a bundle's records are in r4: its hp is unused, NULL) */
    for (size_t k = 0, o = 0; k < nk; k++) {
        hp[k] = rb.col[k] >= 0 ? h + e->hist_off[rb.col[k]] : bsc ? bsc + 3 * o : NULL;
        o += rb.nb[k];
        if (!r4) memset(hp[k], 0, (size_t)rb.nb[k] * 3 * sizeof(double));
    }
    /* All rows in order (the root of a tree on every row): the rows are read in order, and the
     * counts (integers, exact in any order) are the binned matrix's root_count, so each row
     * adds only its (g, h). */
    const int root = begin == 0 && end == e->n && !in->rows && X->root_count;
    /* the root's totals and row list too (gv_engine.root_fuse): the block of columns from 0,
     * whose rows' (g, h) are read anyway; the root's loops take row i as i (idx may be being
     * filled) */
    const int fuse = root && e->root_fuse && k0 == 0;
    if (fuse) *e->root_fused = 1;
    /* a row's (g, h) to block feature k's bin: with its count 1, or without (the root) */
#define ADD_GRAD(k, b) GRAD_ADD(hp[k] + 3 * (size_t)(b), v)
#define ADD_GH(k, b) (V2D_AT(hp[k] + 3 * (size_t)(b) + 1) += v)
#define ROWS_GRAD_LOOP(ROW, AT, ADD)                                                               \
    ROWS_EACH(begin, end, ROW, AT, ADD, const gv_v2d v = GRAD_ROW(i))
    if (r4) {
        /* column k's records at r4 + k * GRAD_STRIDE (every column has at most GRAD_STRIDE
         * bins, 8-bit): a row's additions then take constant displacements from one base */
        const double one = 1.0;
        /* the root: 16-byte (g, h) records (its counts are root_count; 11 % less time an
         * update offline, 1M x 28), below it the 32-byte ones with the count; doubles a
         * record rs, its g at go */
        const size_t rs = root ? 2 : 4, go = root ? 0 : 1;
        gv_v2d *r2 = (gv_v2d *)(void *)r4;
        for (size_t k = 0; k < nk; k++)
            memset((double *)(void *)r4 + k * GRAD_STRIDE * rs, 0, (size_t)rb.nb[k] * rs * sizeof(double));
/* an addition to column k + j's record of the row's bin: the bin's byte offset kept opaque (an
 * empty asm) so that GCC takes the column's offset as an address displacement instead of adding
 * it to the bin before the shift, and a second opaque copy of it for the store so that the load
 * and the store each take disp(q, o) (movzbl, shl, add from memory, a register move the core
 * eliminates, store) instead of one lea to (reg) for both; the same additions.  Measured on 1M x
 * 28, depth 6, 2 threads, thread CPU time an update (three pairs each step): root 0.570 -> 0.535
 * (displacement) -> 0.465 ns (two copies), below the root 0.922 -> 0.886 -> 0.792 ns (with the
 * constant nk of ROWS_GRAD4_LOOP between) */
#define ADD_R4(AT, j)                                                                              \
    do {                                                                                           \
        size_t o_ = (size_t)row[AT(k + (j))] * sizeof *q, s_;                                      \
        __asm__("" : "+r"(o_));                                                                    \
        s_ = o_;                                                                                   \
        __asm__("" : "+r"(s_));                                                                    \
        *(__typeof__(q))(void *)((char *)(void *)q + (j) * GRAD_STRIDE * sizeof *q + s_) =         \
            *(__typeof__(q))(void *)((char *)(void *)q + (j) * GRAD_STRIDE * sizeof *q + o_) + v;  \
    } while (0)
#define V4_OF_ROW()                                                                                \
    const gv_v2d gh_ = GRAD_ROW(i);                                                                \
    const gv_v4d v = {one, gh_[0], gh_[1], 0.0};                                                   \
    gv_v4d *q = r4
#define V2_OF_ROW() const gv_v2d v = GRAD_ROW(i); gv_v2d *q = r2
#define NO_EXTRA() (void)0
/* the fused root's extra work a row (gv_engine.root_fuse): its (g, h) to the block's sums facc,
 * its position to the row list, the block's record stored as the block completes */
#define FUSE_ROW()                                                                                 \
    do {                                                                                           \
        facc += v;                                                                                 \
        fidx[i] = (gv_row)i;                                                                       \
        if (--fleft == 0) {                                                                        \
            fpart[0] = (double)RB;                                                                 \
            V2D_AT(fpart + 1) = facc;                                                              \
            fpart += 3, fleft = RB, facc = (gv_v2d){0.0, 0.0};                                     \
        }                                                                                          \
    } while (0)
#define ROWS_GRAD4_LOOPN(NK, ROW, AT, PFD, PFL, VQ, EXTRA)                                         \
    for (size_t i = begin; i < end; i++) {                                                         \
        if (i + (PFD) < end) {                                                                     \
            const uint8_t *pf_ = base + ROW(i + (PFD)) * F;                                        \
            __builtin_prefetch(pf_, 0, PFL);                                                       \
            __builtin_prefetch(pf_ + span, 0, PFL);                                                \
        }                                                                                          \
        const uint8_t *row = base + ROW(i) * F;                                                    \
        VQ();                                                                                      \
        EXTRA();                                                                                   \
        size_t k = 0;                                                                              \
        for (; k + 8 <= (NK); k += 8, q += 8 * GRAD_STRIDE) {                                      \
            ADD_R4(AT, 0);                                                                         \
            ADD_R4(AT, 1);                                                                         \
            ADD_R4(AT, 2);                                                                         \
            ADD_R4(AT, 3);                                                                         \
            ADD_R4(AT, 4);                                                                         \
            ADD_R4(AT, 5);                                                                         \
            ADD_R4(AT, 6);                                                                         \
            ADD_R4(AT, 7);                                                                         \
        }                                                                                          \
        switch ((NK) & 7) {                                                                        \
        case 7: ADD_R4(AT, 6); /* fall through */                                                  \
        case 6: ADD_R4(AT, 5); /* fall through */                                                  \
        case 5: ADD_R4(AT, 4); /* fall through */                                                  \
        case 4: ADD_R4(AT, 3); /* fall through */                                                  \
        case 3: ADD_R4(AT, 2); /* fall through */                                                  \
        case 2: ADD_R4(AT, 1); /* fall through */                                                  \
        case 1: ADD_R4(AT, 0); /* fall through */                                                  \
        default: break;                                                                            \
        }                                                                                          \
    }
/* The loop with the block's column count nk a constant, for every nk up to GRAD4_CONST_NK (no
 * loop over the columns and no switch on the remainder: fewer instructions a row, and the
 * additions of a row in one straight run); wider blocks take the same loop with nk a variable.
 * A row's updates are its columns, so a constant column count saves a fixed few instructions a
 * row: the most where blocks are narrow (few columns, or many threads sharing them). */
#define GRAD4_CONST_NK 16
#define GRAD4_NK_CASE(N, ROW, AT, PFD, PFL, VQ, EXTRA)                                             \
    case N: ROWS_GRAD4_LOOPN(N, ROW, AT, PFD, PFL, VQ, EXTRA) break;
#define ROWS_GRAD4_LOOP(ROW, AT, PFD, PFL, VQ, EXTRA)                                              \
    switch (nk) {                                                                                  \
        GRAD4_NK_CASE(1, ROW, AT, PFD, PFL, VQ, EXTRA)                                             \
        GRAD4_NK_CASE(2, ROW, AT, PFD, PFL, VQ, EXTRA)                                             \
        GRAD4_NK_CASE(3, ROW, AT, PFD, PFL, VQ, EXTRA)                                             \
        GRAD4_NK_CASE(4, ROW, AT, PFD, PFL, VQ, EXTRA)                                             \
        GRAD4_NK_CASE(5, ROW, AT, PFD, PFL, VQ, EXTRA)                                             \
        GRAD4_NK_CASE(6, ROW, AT, PFD, PFL, VQ, EXTRA)                                             \
        GRAD4_NK_CASE(7, ROW, AT, PFD, PFL, VQ, EXTRA)                                             \
        GRAD4_NK_CASE(8, ROW, AT, PFD, PFL, VQ, EXTRA)                                             \
        GRAD4_NK_CASE(9, ROW, AT, PFD, PFL, VQ, EXTRA)                                             \
        GRAD4_NK_CASE(10, ROW, AT, PFD, PFL, VQ, EXTRA)                                            \
        GRAD4_NK_CASE(11, ROW, AT, PFD, PFL, VQ, EXTRA)                                            \
        GRAD4_NK_CASE(12, ROW, AT, PFD, PFL, VQ, EXTRA)                                            \
        GRAD4_NK_CASE(13, ROW, AT, PFD, PFL, VQ, EXTRA)                                            \
        GRAD4_NK_CASE(14, ROW, AT, PFD, PFL, VQ, EXTRA)                                            \
        GRAD4_NK_CASE(15, ROW, AT, PFD, PFL, VQ, EXTRA)                                            \
        GRAD4_NK_CASE(16, ROW, AT, PFD, PFL, VQ, EXTRA)                                            \
    default: ROWS_GRAD4_LOOPN(nk, ROW, AT, PFD, PFL, VQ, EXTRA) break;                             \
    }
        /* below the root, a node's rows lie apart (a cache line or two each): fetched
         * GRAD_PREFETCH_FAR rows ahead into L2 (prefetcht1), which leaves the L1 misses that
         * the records' additions take to them (measured on 1M x 28, depth 6, 30 rounds, CPU
         * time a (row, feature) update below the root: 2.72/2.87 -> 2.37/2.40 cycles at 32
         * rows, 2.37/2.32 at 48; prefetcht2 2.58/2.59; the L1 prefetch at 32 or 64 rows
         * 2.63-2.93) */
        if (fuse && rb.contiguous) {
            /* pos_init_sums's blocks: each position's (g, h) added to the block's sums (one
             * 128-bit addition: the two lanes' doubles), stored as the block completes */
            gv_row *fidx = e->idx;
            double *fpart = e->root_fuse;
            const size_t RB = e->root_fuse_rb;
            size_t fleft = RB;
            gv_v2d facc = {0.0, 0.0};
            ROWS_GRAD4_LOOP(ROW_IDENTITY, AT_SAME, GRAD_PREFETCH, 3, V2_OF_ROW, FUSE_ROW)
            if (fleft != RB) {
                fpart[0] = (double)(RB - fleft);
                V2D_AT(fpart + 1) = facc;
            }
        } else if (root && rb.contiguous) {
            ROWS_GRAD4_LOOP(ROW_IDENTITY, AT_SAME, GRAD_PREFETCH, 3, V2_OF_ROW, NO_EXTRA)
        } else if (rb.contiguous) {
            ROWS_GRAD4_LOOP(ROW_INDEXED, AT_SAME, GRAD_PREFETCH_FAR, 2, V4_OF_ROW, NO_EXTRA)
        } else if (root) {
            if (fuse) root_fuse_plain(e, begin, end);
            ROWS_GRAD4_LOOP(ROW_IDENTITY, AT_LISTED, GRAD_PREFETCH, 3, V2_OF_ROW, NO_EXTRA)
        } else {
            ROWS_GRAD4_LOOP(ROW_INDEXED, AT_LISTED, GRAD_PREFETCH_FAR, 2, V4_OF_ROW, NO_EXTRA)
        }
#undef ROWS_GRAD4_LOOP
#undef GRAD4_NK_CASE
#undef ROWS_GRAD4_LOOPN
#undef FUSE_ROW
#undef V4_OF_ROW
#undef V2_OF_ROW
#undef NO_EXTRA
#undef ADD_R4
        for (size_t k = 0; k < nk; k++) {
            const double *src = (const double *)(const void *)r4 + k * GRAD_STRIDE * rs;
            if (rb.col[k] < 0) {
                bundle_marg_dbl(e, (size_t)(-1 - rb.col[k]), src, rs, h);
                continue;
            }
            double *d = hp[k];
            for (size_t b = 0, nb = rb.nb[k]; b < nb; b++) {
                d[3 * b] = go ? src[rs * b] : 0.0;
                d[3 * b + 1] = src[rs * b + go];
                d[3 * b + 2] = src[rs * b + go + 1];
            }
        }
    } else {
        if (fuse) root_fuse_plain(e, begin, end);
        if (root && rb.contiguous)
            ROWS_GRAD_LOOP(ROW_IDENTITY, AT_SAME, ADD_GH)
        else if (root)
            ROWS_GRAD_LOOP(ROW_IDENTITY, AT_LISTED, ADD_GH)
        else if (rb.contiguous)
            ROWS_GRAD_LOOP(ROW_INDEXED, AT_SAME, ADD_GRAD)
        else
            ROWS_GRAD_LOOP(ROW_INDEXED, AT_LISTED, ADD_GRAD)
        for (size_t k = 0; k < nk; k++)
            if (rb.col[k] < 0) bundle_marg_dbl(e, (size_t)(-1 - rb.col[k]), hp[k], 3, h);
    }
    if (root) block_root_counts(e, &rb, h);
#undef ROWS_GRAD_LOOP
#undef ADD_GH
#undef ADD_GRAD
}
/* build_rows_grad_t for ns's (g, h) as they are (gv_ns_f32) */
GV_TARGET_CLONES
static void build_rows_grad(const gv_engine *e, size_t begin, size_t end, const int32_t *feats,
                            size_t k0, size_t k1, double *h)
{
    if (gv_ns_f32(e))
        build_rows_grad_t(e, begin, end, feats, k0, k1, h, 1);
    else
        build_rows_grad_t(e, begin, end, feats, k0, k1, h, 0);
}

/* Row-major CLASS statistics of all rows, two classes (the root of a boosting stump, with
 * gv_tree_input.row_bins): each row adds its weight w to slot 1 + y of its bin in every feature
 * feats[k0, k1) in turn -- one read of the row's bytes and of (w, y) for all those features
 * instead of one per feature, while their histograms stay in cache (grad_blocks).  The counts
 * are the binned matrix's root_count.  Each feature is summed in row order by one thread: the
 * same sums for any number of threads (an order other than build_feature_class2's four
 * round-robin histograms: the last bits of weighted sums differ; counts, integers, do not). */
GV_TARGET_CLONES
static void build_rows_class2(const gv_engine *e, const int32_t *feats, size_t k0, size_t k1,
                              double *h)
{
    const gv_binned *X = e->X;
    const size_t F = X->n_features, nk = k1 - k0, n = e->n, f0 = (size_t)feats[k0];
    const double *ns = e->ns;
    const int32_t *ncls = e->ncls;
    double *hp[GRAD_BLOCK_MAX];
    uint32_t pos[GRAD_BLOCK_MAX];
    for (size_t k = 0; k < nk; k++) {
        const size_t f = (size_t)feats[k0 + k];
        hp[k] = h + e->hist_off[f];
        pos[k] = (uint32_t)(f - f0);
        memset(hp[k], 0, (size_t)X->mappers[f].n_bins * 3 * sizeof(double));
    }
    const int contiguous = (size_t)feats[k1 - 1] - f0 == nk - 1;
    const uint8_t *base = e->in->row_bins + f0;
    const size_t span = (size_t)feats[k1 - 1] - f0;
    /* a row's weight w to slot c = 1 + y of block feature k's bin */
#define ADD_CLASS2(k, b) (hp[k][3 * (size_t)(b) + c] += w)
#define ROWS_CLASS2_LOOP(AT)                                                                       \
    ROWS_EACH(0, n, ROW_IDENTITY, AT, ADD_CLASS2, const double w = ns[i];                          \
              const size_t c = 1 + (size_t)ncls[i])
    if (contiguous)
        ROWS_CLASS2_LOOP(AT_SAME)
    else
        ROWS_CLASS2_LOOP(AT_LISTED)
#undef ROWS_CLASS2_LOOP
#undef ADD_CLASS2
    root_counts(X, feats, k0, nk, hp);
}

/* Whether gv_hist_build takes build_rows_class2: CLASS, two classes, every row of the matrix
 * once (not a view, not repeated rows listed once), 8-bit dense bins without sparse features,
 * with row_bins and root_count. */
static int class2_rows(const gv_engine *e, size_t begin, size_t end, size_t n_feats)
{
    const gv_binned *X = e->X;
    return e->cfg->stats == GV_STATS_CLASS && e->K == 2 && e->in->row_bins && !e->rmul &&
           begin == 0 && end == e->n && !e->in->rows && X->root_count && !X->sparse_rows &&
           !X->wide && X->bins8 && !X->csr_ptr && n_feats > 0 &&
           n_feats <= 1024 * (size_t)GRAD_BLOCK_MAX;
}

/* build_rows_grad on quantized rows (tree_int.h): each row adds its integer record -- one
 * 64-bit addition (quant 8) or one 128-bit one (quant 16) per feature -- to records of a third
 * or two thirds of the doubles' bytes.  Integer sums are exact: any order gives the same
 * histogram. */
typedef int32_t gv_v4si __attribute__((vector_size(16), may_alias));
typedef uint64_t gv_u64a __attribute__((may_alias));
#define ROWS_QUANT(NAME, T)                                                                        \
    GV_TARGET_CLONES                                                                               \
    static void NAME(const gv_engine *e, size_t begin, size_t end, const int32_t *feats,          \
                     size_t k0, size_t k1, double *h)                                              \
    {                                                                                              \
        rows_block rb;                                                                             \
        rows_block_init(e, feats, k0, k1, &rb);                                                    \
        const size_t F = rb.F, nk = rb.nk, span = rb.span;                                         \
        const uint8_t *base = rb.base;                                                             \
        const uint32_t *pos = rb.pos;                                                              \
        const gv_row *idx = e->idx;                                                                \
        const T *rec = (const T *)(e->q_pos ? (const void *)e->qrec : (const void *)e->ns);       \
        T *bsc = feats ? NULL : (T *)(void *)grad4_records(e, rb.n_bins);                          \
        T *hp[GRAD_BLOCK_MAX];                                                                     \
        for (size_t k = 0, o = 0; k < nk; k++) {                                                   \
            hp[k] = rb.col[k] >= 0 ? (T *)gv_qhist(e, h, (size_t)rb.col[k]) : bsc + o;             \
            o += rb.nb[k];                                                                         \
            memset(hp[k], 0, (size_t)rb.nb[k] * sizeof(T));                                        \
        }                                                                                          \
        if (rb.contiguous)                                                                         \
            ROWS_QUANT_LOOP(T, AT_SAME)                                                            \
        else                                                                                       \
            ROWS_QUANT_LOOP(T, AT_LISTED)                                                          \
        for (size_t k = 0; k < nk; k++)                                                            \
            if (rb.col[k] < 0)                                                                     \
                BUNDLE_MARG_INT(T, e, (size_t)(-1 - rb.col[k]), hp[k], QHIST_OF);                  \
    }
#define QHIST_OF(f) gv_qhist(e, h, f)
#define ADD_Q(k, b) (hp[k][b] += v)
#define ROWS_QUANT_LOOP(T, AT) ROWS_EACH(begin, end, ROW_INDEXED, AT, ADD_Q, const T v = rec[i])
ROWS_QUANT(build_rows_q16, gv_v4si)
ROWS_QUANT(build_rows_q8, gv_u64a)
#undef QHIST_OF
/* quant 16 chunk's packed words p of feature f (e->qpk) widened into, or (first 0) added to,
 * its quant 16 records */
static void p8_widen(const gv_engine *e, double *h, size_t f, const uint64_t *p, int first)
{
    const unsigned sh = e->qpk_sh_h, sg = e->qpk_sh_g;
    const uint64_t mc = ((uint64_t)1 << sh) - 1, mh = ((uint64_t)1 << (sg - sh)) - 1;
    const size_t nb = (size_t)e->X->mappers[f].n_bins;
    int32_t *d = (int32_t *)gv_qhist(e, h, f);
    if (first) {
        for (size_t b = 0; b < nb; b++) {
            const uint64_t v = p[b];
            d[4 * b] = (int32_t)(v & mc);
            d[4 * b + 1] = (int32_t)((int64_t)v >> sg);
            d[4 * b + 2] = (int32_t)((v >> sh) & mh);
            d[4 * b + 3] = 0;
        }
    } else {
        for (size_t b = 0; b < nb; b++) {
            const uint64_t v = p[b];
            d[4 * b] += (int32_t)(v & mc);
            d[4 * b + 1] += (int32_t)((int64_t)v >> sg);
            d[4 * b + 2] += (int32_t)((v >> sh) & mh);
        }
    }
}
/* quant 16 in packed words (e->qpk, tree_int.h): the node's rows in chunks of at most
 * e->qpk_max, whose sums fit the word; each chunk's words (the block's features only: blocks
 * never share a feature) are widened into, or added to, the feature's quant 16 records while
 * still in cache.  The same integers as build_rows_q16's, with a third of its bytes per
 * addition and histogram (28 features of 256 bins: 57 KB instead of 115 KB).  A bundle's
 * chunk words are summed into its members' words (the sum of a chunk's words fits the word
 * whatever the bins), then widened. */
GV_TARGET_CLONES
static void build_rows_p8(const gv_engine *e, size_t b0, size_t b1, const int32_t *feats,
                          size_t k0, size_t k1, double *h)
{
    rows_block rb;
    rows_block_init(e, feats, k0, k1, &rb);
    const size_t F = rb.F, nk = rb.nk, span = rb.span;
    const uint8_t *base = rb.base;
    const uint32_t *pos = rb.pos;
    const gv_row *idx = e->idx;
    const gv_u64a *rec = (const gv_u64a *)(e->q_pos ? (const void *)e->qrec : (const void *)e->ns);
    gv_u64a *bsc = feats ? NULL : (gv_u64a *)(void *)grad4_records(e, rb.n_bins);
    gv_u64a *hp[GRAD_BLOCK_MAX];
    for (size_t k = 0, o = 0; k < nk; k++) {
        hp[k] = rb.col[k] >= 0 ? e->qpk + e->hist_off[rb.col[k]] / 3 : bsc + o;
        o += rb.nb[k];
    }
    const gv_bundles *p = e->in->bundles;
    size_t begin = b0;
    do { /* (one chunk, of no rows, for an empty node: zero records) */
        const size_t end = b1 - begin > e->qpk_max ? begin + e->qpk_max : b1;
        for (size_t k = 0; k < nk; k++) memset(hp[k], 0, (size_t)rb.nb[k] * sizeof(uint64_t));
        if (rb.contiguous)
            ROWS_QUANT_LOOP(gv_u64a, AT_SAME)
        else
            ROWS_QUANT_LOOP(gv_u64a, AT_LISTED)
        for (size_t k = 0; k < nk; k++) {
            if (rb.col[k] >= 0) {
                p8_widen(e, h, (size_t)rb.col[k], hp[k], begin == b0);
                continue;
            }
            const size_t bi = (size_t)(-1 - rb.col[k]);
#define QPK_OF(f) (e->qpk + e->hist_off[f] / 3)
            BUNDLE_MARG_INT(uint64_t, e, bi, hp[k], QPK_OF);
            BUNDLE_MEMBERS(p, bi, m0, m1);
            for (size_t m = m0; m < m1; m++)
                p8_widen(e, h, p->members[m], QPK_OF(p->members[m]), begin == b0);
#undef QPK_OF
        }
        begin = end;
    } while (begin < b1);
}
#undef ROWS_QUANT_LOOP
#undef ADD_Q
#undef ROWS_EACH
#undef AT_LISTED
#undef AT_SAME

/* build_rows_q8/q16 of feature group g (gv_row_nz) on all its features: the rows' entries only
 * (each the record's index from the group's first feature: the histogram lays features out one
 * after another, tree.c); then each sparse feature's frequent bin (not added, 0) gets the node's
 * total minus the sum of the feature's records -- exact (integers; the packed word wraps), so
 * the same histogram. */
#define ROWS_NZ(NAME, T)                                                                           \
    GV_TARGET_CLONES                                                                               \
    static void NAME(const gv_engine *e, size_t begin, size_t end, size_t g, double *h)           \
    {                                                                                              \
        const gv_binned *X = e->X;                                                                 \
        const gv_row_nz *z = e->in->row_nz;                                                        \
        const size_t F = X->n_features, f0 = g * GV_NZ_GROUP;                                      \
        const size_t nk = F - f0 < GV_NZ_GROUP ? F - f0 : GV_NZ_GROUP;                             \
        const gv_row *idx = e->idx;                                                                \
        const T *rec = (const T *)(e->q_pos ? (const void *)e->qrec : (const void *)e->ns);       \
        const uint32_t *off = z->off + g * (X->n_rows + 1);                                        \
        T *base = (T *)gv_qhist(e, h, f0);                                                         \
        size_t len = 0;                                                                            \
        for (size_t k = 0; k < nk; k++) len += X->mappers[f0 + k].n_bins;                          \
        memset(base, 0, len * sizeof(T));                                                          \
        T tot = (T){0};                                                                            \
        for (size_t i = begin; i < end; i++) {                                                     \
            if (i + GRAD_PREFETCH < end) { /* a later row's entries: two cache lines */           \
                const uint16_t *pf = z->ent + off[idx[i + GRAD_PREFETCH]];                         \
                __builtin_prefetch(pf);                                                            \
                __builtin_prefetch(pf + 32);                                                       \
            }                                                                                      \
            const size_t r = idx[i];                                                               \
            const T v = rec[i];                                                                    \
            tot += v;                                                                              \
            const uint16_t *p = z->ent + off[r], *q = z->ent + off[r + 1];                         \
            for (; p + 4 <= q; p += 4) {                                                           \
                base[p[0]] += v;                                                                   \
                base[p[1]] += v;                                                                   \
                base[p[2]] += v;                                                                   \
                base[p[3]] += v;                                                                   \
            }                                                                                      \
            for (; p < q; p++) base[*p] += v;                                                      \
        }                                                                                          \
        for (size_t k = 0; k < nk; k++) {                                                          \
            const size_t m = z->skip[f0 + k];                                                      \
            if (m >= 256) continue;                                                                \
            T *hk = (T *)gv_qhist(e, h, f0 + k), sum = (T){0};                                     \
            for (size_t b = 0, nb = X->mappers[f0 + k].n_bins; b < nb; b++) sum += hk[b];          \
            hk[m] = tot - sum;                                                                     \
        }                                                                                          \
    }
ROWS_NZ(build_nz_q16, gv_v4si)
ROWS_NZ(build_nz_q8, gv_u64a)
#undef ROWS_NZ

/* Splits feats[0, n_feats) into consecutive blocks for build_rows_grad: each block's
 * histograms within GRAD_BLOCK_BYTES and GRAD_BLOCK_MAX features, and at least `min_blocks`
 * blocks when there are that many features.  bounds[0..n] gets the block starts and the end;
 * returns n. */
static size_t grad_blocks(const gv_engine *e, const int32_t *feats, size_t n_feats,
                          size_t min_blocks, size_t rec_bytes, size_t *bounds, size_t cap)
{
    size_t total = 0;
    /* bytes of a bin record */
    const size_t rec = rec_bytes ? rec_bytes : e->quant ? (size_t)e->quant : 24;
    for (size_t k = 0; k < n_feats; k++) /* (feats NULL: the bundled columns, rows_block) */
        total += (size_t)(feats ? e->X->mappers[feats[k]].n_bins : e->in->bundles->col_bins[k]) * rec;
    const size_t block = rec == 24 ? GRAD_BLOCK_BYTES_DBL : GRAD_BLOCK_BYTES;
    size_t nb = (total + block - 1) / block;
    size_t by_count = (n_feats + GRAD_BLOCK_MAX - 1) / GRAD_BLOCK_MAX;
    if (nb < by_count) nb = by_count;
    if (nb < min_blocks) nb = min_blocks;
    if (nb > n_feats) nb = n_feats;
    if (nb > cap) nb = cap;
    if (nb < 1) nb = 1;
    /* equal feature counts; a block never exceeds GRAD_BLOCK_MAX since nb >= by_count */
    for (size_t b = 0; b <= nb; b++) bounds[b] = b * n_feats / nb;
    return nb;
}

/* Whether gv_hist_build reads the bundled rows: bundles given, feats every feature (0 .. F - 1
 * in order), and each thread's scratch holds the bundles' histograms (rows_block). */
static int bundled(const gv_engine *e, const int32_t *feats, size_t n_feats)
{
    const gv_bundles *p = e->in->bundles;
    if (!e->plan.bundles ||
        n_feats != e->X->n_features ||
        p->n_features != n_feats || p->n_cols > 1024 * (size_t)GRAD_BLOCK_MAX)
        return 0;
    for (size_t k = 0; k < n_feats; k++)
        if ((size_t)feats[k] != k) return 0;
    size_t total = 0;
    for (size_t c = 0; c < p->n_cols; c++) total += p->col_bins[c];
    for (int t = 0; t < e->nt; t++)
        if (!grad4_reserve(&e->scratch[t], total)) return 0;
    return 1;
}

static void build_feature(const gv_engine *e, size_t begin, size_t end, size_t f, double *h)
{
    const gv_binned *X = e->X;
    const size_t S = e->S;
    const gv_row *idx = e->idx;
    const double *ns = e->ns;
    const int32_t *ncls = e->ncls;
    const int counted = e->rmul != NULL;
    const int F32 = e->cfg->stats == GV_STATS_GRAD && gv_ns_f32(e); /* (HIST_LOOP_GRAD) */
    double *hf = h + e->hist_off[f];
    memset(hf, 0, (size_t)X->mappers[f].n_bins * S * sizeof *hf);
    if (e->cfg->stats == GV_STATS_CLASS && X->sparse_rows && X->sparse_rows[f] && begin == 0 &&
        end == e->n && !e->in->rows) {
        build_feature_class_sparse(e, f, hf);
        return;
    }
    if (e->cfg->stats == GV_STATS_GRAD && end - begin >= CLASS2_MIN_ROWS) {
#ifdef _OPENMP
        int tid = omp_get_thread_num();
#else
        int tid = 0;
#endif
        if (gv_ns_f32(e))
            build_feature_grad4(e, begin, end, f, hf, e->scratch[tid].sub, 1);
        else
            build_feature_grad4(e, begin, end, f, hf, e->scratch[tid].sub, 0);
        return;
    }
    if (e->cfg->stats == GV_STATS_CLASS && end - begin >= CLASS2_MIN_ROWS) {
#ifdef _OPENMP
        int tid = omp_get_thread_num();
#else
        int tid = 0;
#endif
        build_feature_class2(e, begin, end, f, hf, e->scratch[tid].sub);
        return;
    }
    if (X->wide) {
        const uint16_t *col = X->bins16 + f * X->n_rows;
        switch (e->cfg->stats) {
        case GV_STATS_GRAD: HIST_LOOP_GRAD(col) break;
        case GV_STATS_REG: HIST_LOOP_REG(col) break;
        case GV_STATS_CLASS: HIST_LOOP_CLASS(col) break;
        }
    } else {
        const uint8_t *col = X->bins8 + f * X->n_rows;
        switch (e->cfg->stats) {
        case GV_STATS_GRAD: HIST_LOOP_GRAD(col) break;
        case GV_STATS_REG: HIST_LOOP_REG(col) break;
        case GV_STATS_CLASS: HIST_LOOP_CLASS(col) break;
        }
    }
}

static void hist_build(gv_engine *e, size_t begin, size_t end, const int32_t *feats,
                       size_t n_feats, double *h);

void (*gv_hist_observe)(size_t f, size_t n_bins, const void *rec, size_t rec_bytes) = NULL;

void gv_hist_build(gv_engine *e, size_t begin, size_t end, const int32_t *feats,
                   size_t n_feats, double *h)
{
    hist_build(e, begin, end, feats, n_feats, h);
    if (gv_hist_observe)
        for (size_t k = 0; k < n_feats; k++) {
            const size_t f = (size_t)feats[k];
            gv_hist_observe(f, e->X->mappers[f].n_bins,
                            e->quant ? (const void *)gv_qhist(e, h, f) : (const void *)(h + e->hist_off[f]),
                            e->quant ? (size_t)e->quant : e->S * sizeof(double));
        }
}

static void hist_build(gv_engine *e, size_t begin, size_t end, const int32_t *feats,
                       size_t n_feats, double *h)
{
    const int use_nz = e->plan.row_nz && n_feats == e->X->n_features &&
                       (size_t)feats[n_feats - 1] == n_feats - 1 && (size_t)feats[0] == 0;
    /* quantized: the records to sum (the sparse rows take the tree's own) */
    const int fmt = !e->quant ? 0 : use_nz ? (e->quant == 8 ? QF_WORD : QF_WIDE) : quant_format(e);
    const int pk = fmt == QF_CHUNK;
    if (!e->ns_pos && (begin != e->gathered_begin || end != e->gathered_end ||
                       (e->quant && fmt != e->gathered_fmt))) {
        if (e->quant)
            gather_quant(e, begin, end, fmt);
        else
            gv_hist_gather(e, begin, end);
    }
    e->gathered_begin = e->gathered_end = 0;
    if (e->cfg->stats == GV_STATS_CLASS && e->X->sparse_rows && begin == 0 && end == e->n &&
        !e->in->rows) {
        /* the root's totals, in row order, for the sparse features' frequent bins */
        memset(e->root_total, 0, e->S * sizeof *e->root_total);
        for (size_t i = 0; i < e->n; i++) {
            e->root_total[0] += 1.0;
            e->root_total[1 + e->ncls[i]] += e->ns[i];
        }
    }
    size_t work = (end - begin) * n_feats;
    int parallel = e->nt > 1 && n_feats > 1 && work >= PARALLEL_MIN_WORK;
    (void)parallel;
    if (use_nz) {
        /* every feature (ascending, distinct: so 0 .. F - 1): the sparse rows, by group */
        const size_t G = e->in->row_nz->n_groups;
        (void)G;
#ifdef _OPENMP
#pragma omp parallel for num_threads(e->nt) schedule(dynamic, 1) if (parallel && G > 1)
#endif
        for (size_t g = 0; g < G; g++) {
            if (e->quant == 8)
                build_nz_q8(e, begin, end, g, h);
            else
                build_nz_q16(e, begin, end, g, h);
        }
        return;
    }
    if (e->cfg->stats == GV_STATS_GRAD && e->in->row_bins && n_feats > 0 &&
        n_feats <= 1024 * (size_t)GRAD_BLOCK_MAX) {
        /* every feature with bundles: the bundled rows' columns instead (rows_block) */
        const int bund = bundled(e, feats, n_feats);
        const int32_t *cols = bund ? NULL : feats;
        const size_t n_cols = bund ? e->in->bundles->n_cols : n_feats;
        size_t bounds[1025];
        size_t nb = grad_blocks(e, cols, n_cols, parallel ? (size_t)e->nt : 1, pk ? 8 : 0,
                                bounds, 1024);
#ifdef _OPENMP
#pragma omp parallel for num_threads(e->nt) schedule(dynamic, 1) if (parallel && nb > 1)
#endif
        for (size_t b = 0; b < nb; b++) {
            if (pk)
                build_rows_p8(e, begin, end, cols, bounds[b], bounds[b + 1], h);
            else if (e->quant == 8)
                build_rows_q8(e, begin, end, cols, bounds[b], bounds[b + 1], h);
            else if (e->quant == 16)
                build_rows_q16(e, begin, end, cols, bounds[b], bounds[b + 1], h);
            else
                build_rows_grad(e, begin, end, cols, bounds[b], bounds[b + 1], h);
        }
        return;
    }
    if (class2_rows(e, begin, end, n_feats)) {
        size_t bounds[1025];
        size_t nb = grad_blocks(e, feats, n_feats, parallel ? (size_t)e->nt : 1, 24, bounds, 1024);
#ifdef _OPENMP
#pragma omp parallel for num_threads(e->nt) schedule(dynamic, 1) if (parallel && nb > 1)
#endif
        for (size_t b = 0; b < nb; b++) build_rows_class2(e, feats, bounds[b], bounds[b + 1], h);
        return;
    }
#ifdef _OPENMP
#pragma omp parallel for num_threads(e->nt) schedule(dynamic, 4) if (parallel)
#endif
    for (size_t k = 0; k < n_feats; k++) build_feature(e, begin, end, (size_t)feats[k], h);
}

void gv_hist_build_level(gv_engine *e, size_t m, const size_t *begin, const size_t *end,
                         const int32_t *feats, size_t n_feats, double *const *h)
{
    size_t rows = 0;
    for (size_t j = 0; j < m; j++) rows += end[j] - begin[j];
    if (!e->ns_pos || e->quant || e->cfg->stats != GV_STATS_GRAD || !e->in->row_bins ||
        n_feats == 0 || n_feats > 1024 * (size_t)GRAD_BLOCK_MAX || gv_hist_observe || m < 2 ||
        e->nt < 2 || rows * n_feats < PARALLEL_MIN_WORK) {
        for (size_t j = 0; j < m; j++) gv_hist_build(e, begin[j], end[j], feats, n_feats, h[j]);
        return;
    }
    /* hist_build's rows path, its blocks for every node (each feature is summed over a node's
     * rows in order by one task, whatever the blocks) */
    const int bund = bundled(e, feats, n_feats);
    const int32_t *cols = bund ? NULL : feats;
    const size_t n_cols = bund ? e->in->bundles->n_cols : n_feats;
    size_t bounds[1025];
    const size_t nb = grad_blocks(e, cols, n_cols, (size_t)e->nt, 0, bounds, 1024);
    e->gathered_begin = e->gathered_end = 0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(e->nt) schedule(dynamic, 1)
#endif
    for (size_t q = 0; q < m * nb; q++) {
        const size_t j = q / nb, b = q % nb;
        build_rows_grad(e, begin[j], end[j], cols, bounds[b], bounds[b + 1], h[j]);
    }
}

void gv_hist_subtract(const gv_engine *e, double *a, const double *b)
{
    size_t F = e->n_features;
    (void)F;
    if (e->quant) { /* every feature's integer records, one after another: exact */
        gv_qsub(e, a, b, e->hist_len / 3);
        return;
    }
#ifdef _OPENMP
#pragma omp parallel for num_threads(e->nt) schedule(static) if (e->nt > 1 && F > 1 && e->hist_len >= PARALLEL_MIN_WORK)
#endif
    for (size_t f = 0; f < e->n_features; f++) {
        size_t lo = e->hist_off[f], hi = lo + (size_t)e->X->mappers[f].n_bins * e->S;
        for (size_t k = lo; k < hi; k++) a[k] -= b[k];
    }
}

double *gv_hist_acquire(gv_engine *e)
{
    if (e->n_free > 0) return e->free_hists[--e->n_free];
    return gv_malloc_huge_array(e->hist_len ? e->hist_len : 1, sizeof(double));
}

void gv_hist_release(gv_engine *e, double *h)
{
    if (!h) return;
    if (e->n_free < e->cap_free)
        e->free_hists[e->n_free++] = h;
    else
        gv_free(h);
}

void gv_hist_pool_free(gv_engine *e)
{
    for (size_t i = 0; i < e->n_free; i++) gv_free(e->free_hists[i]);
    e->n_free = 0;
}
