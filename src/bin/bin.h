/*
 * bin.h -- the quantized (binned) representation that every tree learner reads.
 *
 * Pipeline position: bin/ (after data/, before learn/).
 * Bins of a feature: bin 0 is "missing" (NaN) for every feature.  A numeric feature with
 * cut points c[0] < c[1] < ... < c[m-1] has value bins 1..m+1: value x falls in bin
 * 1 + (the number of cut points < x), so "x <= c[b-1]" is exactly "bin <= b".  A categorical
 * feature with K categories has bins 1..K: bin = code + 1.  n_bins counts bin 0.
 * Cut points are found from (a deterministic sample of) the training rows: with at most
 * max_bins distinct values every distinct value gets its own bin (cut = midpoint between
 * neighbours, rounded to float, kept strictly between them); otherwise quantiles of the
 * (weighted by count) distinct values.  The mappers are stored in the model, so data seen
 * later is binned exactly like the training data, and trees keep float thresholds too, so
 * prediction reads raw values.
 */
#ifndef GV_BIN_H
#define GV_BIN_H

#include "../data/dataset.h"

typedef struct gv_bin_mapper {
    unsigned char is_categorical;
    uint32_t n_bins;  /* including the missing bin 0 */
    uint32_t n_cuts;  /* numeric: n_bins - 2 (or 0 for a constant/empty feature) */
    float *cuts;      /* numeric: [n_cuts], strictly increasing; owned */
} gv_bin_mapper;

/* The bin of value x for mapper m. */
uint32_t gv_bin_value(const gv_bin_mapper *m, float x);

/* Builds one mapper per feature of `d` (max_bins value bins at most, numeric features; a
 * categorical feature with more than 65535 categories is an error naming it).  `seed` drives
 * the row sample when d->n_rows > sample (sample 0 = all rows).  New array in *out
 * ([n_features]), free with gv_bin_mappers_free. */
grove_status gv_bin_mappers_build(const grove_dataset *d, int max_bins, size_t sample,
                                  uint64_t seed, int n_threads, gv_bin_mapper **out);
void gv_bin_mappers_free(gv_bin_mapper *m, size_t n_features);

/* Binned matrix: column-major, feature f row i at bins8[f*n_rows+i] (or bins16 when any
 * feature has more than 256 bins). */
typedef struct gv_binned {
    size_t n_rows, n_features;
    const gv_bin_mapper *mappers; /* borrowed: [n_features] */
    int wide;                     /* 0: bins8, 1: bins16 */
    uint8_t *bins8;               /* owned */
    uint16_t *bins16;             /* owned */
    /* Sparse features: where one bin holds at least half of the rows (the zeros of pixels or
     * one-hot columns) and there are at least GV_SPARSE_MIN_ROWS rows, the rows outside that
     * bin, ascending.  A histogram over all rows then reads only these and derives the frequent
     * bin from the totals (the sparse bins of LightGBM; Ke et al. 2017).  sparse_rows[f] is NULL
     * for dense features (and all are NULL when memory was short: it is only an optimization).
     * Owned; NULL arrays when no feature is sparse. */
    uint32_t *mode_bin;           /* [n_features] */
    size_t *n_sparse;             /* [n_features] */
    uint32_t **sparse_rows;       /* [n_features] */
    /* Rows per bin over all rows (when n_rows >= GV_SPARSE_MIN_ROWS, else NULL): feature f's
     * counts at root_count + root_count_off[f].  A histogram over all rows takes its row counts
     * from here instead of counting again (they do not depend on weights).  Owned. */
    double *root_count;
    size_t *root_count_off;       /* [n_features] */
    /* The mean over features of sum_k p_k^2, p_k the share of rows in bin k: the chance that
     * two rows fall in the same bin of a feature (1/n_bins for evenly spread values, 1/4 and
     * up where half the rows share a bin, as the zeros of pixels).  Counted with root_count
     * (n_rows >= GV_SPARSE_MIN_ROWS); 0 when not counted. */
    double bin_collision;
    /* The compressed-row layout, built from a sparse dataset (dataset.h) instead of bins8 and
     * bins16 (both NULL then): row i's entries csr_ptr[i] .. csr_ptr[i+1], features csr_feat
     * strictly increasing, bins csr_bin; every other bin of feature f is default_bin[f] (the
     * bin of the dataset's absent value).  Memory: 6 bytes per stored value, 8 per row, 4 per
     * feature (and the columns below).  NULL arrays for a dense matrix; owned. */
    size_t *csr_ptr;              /* [n_rows + 1] */
    uint32_t *csr_feat;           /* [nnz] */
    uint16_t *csr_bin;            /* [nnz] */
    uint32_t *default_bin;        /* [n_features] */
    /* The same entries by column (rows ascending): feature f's at csc_ptr[f] .. csc_ptr[f+1],
     * for nodes that offer few candidate features (forests).  6 more bytes per entry. */
    size_t *csc_ptr;              /* [n_features + 1] */
    uint32_t *csc_row;            /* [nnz] */
    uint16_t *csc_bin;            /* [nnz] */
} gv_binned;

#define GV_SPARSE_MIN_ROWS 4096

/* The bin of feature f in row i of a compressed-row matrix: a binary search in row i. */
static inline uint32_t gv_bin_at_csr(const gv_binned *b, size_t f, size_t i)
{
    size_t lo = b->csr_ptr[i], hi = b->csr_ptr[i + 1], end = hi;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (b->csr_feat[mid] < f)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < end && b->csr_feat[lo] == f ? b->csr_bin[lo] : b->default_bin[f];
}

static inline uint32_t gv_bin_at(const gv_binned *b, size_t f, size_t i)
{
    if (b->csr_ptr) return gv_bin_at_csr(b, f, i);
    return b->wide ? b->bins16[f * b->n_rows + i] : b->bins8[f * b->n_rows + i];
}

/* Bins every value of `d` with `mappers` (borrowed, must outlive the result): a dense dataset
 * into bins8/bins16, a sparse one into the compressed rows. */
grove_status gv_binned_build(const grove_dataset *d, const gv_bin_mapper *mappers,
                             int n_threads, gv_binned **out);
void gv_binned_free(gv_binned *b);

/* A dense matrix whose row r * k + j (j < k) is row r of `b`: k copies of every row, side by
 * side (AdaBoost.M2's pseudo-loss statistics are class counts over such copies, learners.c).
 * Same mappers (borrowed); no sparse-feature index.  GROVE_ERR_ARG for a compressed-row `b`. */
grove_status gv_binned_repeat(const gv_binned *b, size_t k, gv_binned **out);

/* The 8-bit bins of `b` row-major, [n_rows * n_features] (row i at i * n_features), for
 * learners that read whole rows (gradient-boosted trees' histograms).  NULL when the bins are
 * 16-bit or compressed rows; GROVE_ERR_NOMEM possible.  Free with gv_free. */
grove_status gv_binned_row_major(const gv_binned *b, int n_threads, uint8_t **out);

/* Bundles (row-major GRAD histograms): features with few bins in use share one byte of a
 * bundled row -- their joint bin, the product of their used-bin counts at most 256 -- so that a
 * row adds to one histogram for all of them; each member's histogram is then the marginal of
 * the bundle's (a sum over its joint bins: hist.c).  Used bins are the bins that some row of
 * the matrix falls in (the missing bin 0 only where a value is missing).  Features with at
 * most GV_BUNDLE_MAX_USED used bins are candidates, fewest first, packed greedily (at most
 * GV_BUNDLE_MAX_MEMBERS each); a bundle of one feature is no bundle.  A bundled row is n_cols
 * bytes: the unbundled features ascending, then the bundles.  The 1M x 28 benchmark set's seven
 * three-valued features make two bundles (3^5 and 3^2 joint bins): 23 bytes a row. */
#define GV_BUNDLE_MAX_USED 16
#define GV_BUNDLE_MAX_MEMBERS 8
typedef struct gv_bundles {
    size_t n_features;    /* of the binned matrix */
    size_t n_cols;        /* bytes of a bundled row */
    size_t n_bundles;
    int32_t *col;         /* [n_cols]: column c is feature col[c] (>= 0) or bundle -1 - col[c] */
    uint32_t *col_bins;   /* [n_cols]: the column's bins (a bundle: its joint bins, <= 256) */
    uint32_t *member_off; /* [n_bundles + 1]: bundle b's members are members[member_off[b] ..
                             member_off[b + 1]), ascending */
    uint32_t *members;    /* features */
    uint8_t *enc;         /* member m's (index into members) bin x adds enc[m * 256 + x] to the
                             joint bin */
    uint8_t *dec;         /* member m's bin in joint bin j: dec[m * 256 + j] */
} gv_bundles;

/* The bundles of dense 8-bit matrix `b` (all one buffer: free with gv_bundles_free); *out NULL
 * when no two features bundle, or for 16-bit bins and compressed rows.  Deterministic: the
 * matrix's bins only.  GROVE_ERR_NOMEM possible. */
grove_status gv_bundles_build(const gv_binned *b, gv_bundles **out);
void gv_bundles_free(gv_bundles *p);

/* The bundled rows of `b`, [n_rows * p->n_cols] (row i at i * n_cols): column c's byte is
 * feature col[c]'s bin, or its bundle's joint bin.  Free with gv_free. */
grove_status gv_bundles_row_major(const gv_binned *b, const gv_bundles *p, int n_threads,
                                  uint8_t **out);

#endif /* GV_BIN_H */
