/*
 * tree_partition.c -- moving a node's rows to its children.
 *
 * Pipeline position: learn/, the tree engine (grow_int.h).
 * A split sends row r left iff its bin b = bin(r, f) satisfies the split's rule (bin_left in
 * grow_int.h: numeric b != 0 and b <= split, or b == 0 (missing) and default_left; categorical
 * by the set's bit); on 8-bit bins a 256-entry table of that rule (side_lut) decides each row.
 * Partitions are stable (every node's rows stay in view order) and run by fixed blocks of rows:
 * each block counts its left rows, a prefix over the blocks gives every block its places, and
 * the blocks move in parallel -- the same partition for any number of threads.  A split whose
 * children are leaves may leave its rows in place and only sum the smaller child's totals.
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

/* ---- splitting ---- */

size_t gv_grow_popcount_words(const uint32_t *w, size_t n)
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

grove_status gv_grow_append_cat(grower *gr, const uint32_t *src, size_t n, uint32_t *begin)
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

size_t gv_grow_block_move(gv_engine *e, const gv_split *s, const uint32_t *bits, size_t lo,
                          size_t hi, size_t pl, size_t pr)
{
    return move_rows(e, s, bits, lo, hi, pl, pr, 0);
}

size_t gv_grow_block_move_back(gv_engine *e, const gv_split *s, const uint32_t *bits, size_t lo,
                               size_t hi, size_t pl, size_t pr)
{
    return move_rows(e, s, bits, lo, hi, pl, pr, 1);
}

#undef SIDE_LEFT

/* ns_pos: the rows of [begin, end) that split s sends left, read off the node's histogram h
 * (counts are exact integers; the larger child's, from a subtraction, too); 0 when h is not
 * there (then the partition counts them). */
int gv_grow_hist_left_rows(const gv_engine *e, const double *h, const gv_split *s,
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
void gv_grow_small_sums_end(const gv_engine *e, size_t n_blocks, double *t, int *summed)
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
size_t gv_grow_partition_binary(gv_engine *e, const gv_split *s, const uint32_t *bits,
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
    if (gv_grow_hist_left_rows(e, hist, s, bits, &nl_known) && nl_known <= n) {
        /* ns_pos, the left rows known: no counting pass.  One thread: forward; two: the first
         * half forward from both sides' starts, the second backward from both sides' ends
         * (they meet where the counts say) */
        const size_t pl = begin, pr = begin + nl_known;
        if (e->nt == 1 || n < 2 * PART_BLOCK) {
            size_t got = gv_grow_block_move(e, s, bits, begin, end, pl, pr);
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
                    got[h] = h == 0 ? gv_grow_block_move(e, s, bits, begin, mid, pl, pr)
                                    : gv_grow_block_move_back(e, s, bits, mid, end, pr, end);
                SMALL_SUM_BLOCKS
            }
            assert(got[0] == got[1]);
            (void)got;
            gv_grow_small_sums_end(e, sum_blocks, small_tot, summed);
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
                gv_grow_block_move(e, s, bits, lo, hi, dst_left[b], dst_right[b]);
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
    gv_grow_small_sums_end(e, sum_blocks, small_tot, summed);
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

void gv_grow_split_in_place(grower *gr, const gv_split *s, const uint32_t *bits, size_t begin,
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
void gv_grow_leaves_grad_one(grower *gr, const gv_split *s, const uint32_t *bits, size_t begin,
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
void gv_grow_split_leaves_grad(grower *gr, const gv_split *s, const uint32_t *bits, size_t begin,
                               size_t end, size_t first, size_t id)
{
    gv_engine *e = &gr->e;
    const size_t n = end - begin;
    if (e->nt < 2 || n < 2 * PART_BLOCK) { /* one chunk */
        gv_grow_leaves_grad_one(gr, s, bits, begin, end, first, id, SIZE_MAX);
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
    gv_grow_add_parts(part, n_blocks ? n_blocks : 1, 3, t);
    double *large = gr->tot + (left_small ? first + 1 : first) * 3;
    for (size_t k = 0; k < 3; k++) large[k] = gr->tot[id * 3 + k] - t[k];
}

/* The end of a split of node id into its k children first..: their values, the parent's split. */
