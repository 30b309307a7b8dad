/*
 * split.c -- split search of the tree engine: node scores, and the scans of a node's
 * histograms for the best numeric split, binary category partition or multiway category split.
 *
 * Pipeline position: learn/, private to the tree engine (tree_int.h: layout, tie-breaking).
 * Every criterion is written as a node *score* sc such that the gain of a split is
 *     gain = sum over children sc(child) - sc(parent),
 * which equals the weighted impurity decrease W I(P) - sum W_c I(c) for gini, entropy and
 * variance (the terms linear in W cancel since W = sum W_c) and the Newton gain for GRAD
 * (Chen & Guestrin, KDD 2016, eq. 7, with L1 as in XGBoost).
 * Pseudo-loss (AdaBoost.M2, Freund & Schapire 1997 sec. 4): a leaf predicting plausibilities
 * h(y) in [0, 1] adds 1/2 (A - sum_y h(y) (A_y - B_y)) to the pseudo-loss, A = sum_y A_y; it is
 * linear in h, so h(y) = [A_y > B_y] minimizes it, and the leaf costs 1/2 sum_y min(A_y, B_y).
 * Real-valued h cannot do better for a fixed partition, so 0/1 plausibilities are used.  The
 * score sc = sum_y max(A_y - B_y, 0) makes gain = cost(P) - cost(L) - cost(R) (times 2) >= 0;
 * A and B are class-count slots, so histogram subtraction works unchanged.
 * References: Breiman et al., CART (1984) 9.3 and 4.2.2 (ordering the categories of a binary
 * partition by class-1 fraction / mean is optimal for K = 2 and for regression; Fisher 1958);
 * Quinlan, ID3 (1986) for multiway splits on information gain.
 */
#include "tree_int.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* Bin records (bins x statistics) from which a node's scan is split over the threads by
 * feature (each feature's best split is the same whoever scans it).  libgomp's waiting threads
 * spin (GOMP_SPINCOUNT's default) before they sleep, so a parallel region right after another
 * costs about a microsecond, less than scanning 8192 records: best-first growth, which scans
 * one node's two children at a time, 100k x 50, 63 leaves, 2 threads, 1.31-1.38 -> 1.12-1.17 s
 * (7 classes -20 %), with depth 6, 300 and 784 columns, forests and samme unchanged.  (Threads
 * that sleep at once, OMP_WAIT_POLICY=passive, pay a futex wake per region instead: there the
 * same change costs 10-20 %.) */
#define SPLIT_PAR_MIN_WORK 8192
/* The threads take the features a chunk at a time, about this many chunks each: features'
 * scans differ (their candidates), and fixed halves (a static schedule) left fashion-MNIST's
 * two halves of 392 pixels 5 % apart node by node. */
#define SPLIT_PAR_CHUNKS 8

#if defined(__x86_64__) && defined(__GNUC__) && !defined(GROVE_NO_CLONES)
#include <immintrin.h>
#define GV_SPLIT_AVX2 1 /* the AVX2 ways below, chosen at run time */
#endif

/* Soft-thresholding by the L1 weight: T_a(G) = sign(G) max(|G| - a, 0) = max(G - a, 0) +
 * min(G + a, 0) for a >= 0 (one term is 0).  Without a branch: the sign of G is a coin flip
 * for the split search, and a mispredicted branch there cost more than the arithmetic. */
static inline double soft_threshold(double g, double a)
{
    double p = g - a, q = g + a;
    p = p > 0 ? p : 0.0;
    q = q < 0 ? q : 0.0;
    return p + q;
}

double gv_split_score(const gv_engine *e, const double *s)
{
    const gv_tree_config *cfg = e->cfg;
    if (s[0] <= 0) return 0.0; /* no rows */
    switch (cfg->criterion) {
    case GV_SPLIT_GINI: {
        /* sc = sum_k w_k^2 / W   (W gini = W - sum_k w_k^2 / W) */
        double W = 0, q = 0;
        for (size_t k = 0; k < e->K; k++) {
            W += s[1 + k];
            q += s[1 + k] * s[1 + k];
        }
        return W > 0 ? q / W : 0.0;
    }
    case GV_SPLIT_ENTROPY: {
        /* sc = sum_k w_k log2(w_k / W) = -W H,   H = -sum_k p_k log2 p_k (bits, as ID3) */
        double W = 0, sc = 0;
        for (size_t k = 0; k < e->K; k++) W += s[1 + k];
        if (!(W > 0)) return 0.0;
        for (size_t k = 0; k < e->K; k++)
            if (s[1 + k] > 0) sc += s[1 + k] * log2(s[1 + k] / W);
        return sc;
    }
    case GV_SPLIT_VARIANCE:
        /* sc = S^2 / W, S = sum w (y - c)   (W Var = sum w (y - c)^2 - S^2 / W) */
        return s[1] > 0 ? s[2] * s[2] / s[1] : 0.0;
    case GV_SPLIT_PSEUDO: {
        /* sc = sum_y max(A_y - B_y, 0); A at slots 1..M, B at M+1..2M */
        size_t M = e->K / 2;
        double sc = 0;
        for (size_t y = 0; y < M; y++) {
            double d = s[1 + y] - s[1 + M + y];
            sc += d > 0 ? d : 0.0;
        }
        return sc;
    }
    case GV_SPLIT_NEWTON: {
        /* sc = 1/2 T_a(G)^2 / (H + lambda) */
        double t = soft_threshold(s[1], cfg->alpha), d = s[2] + cfg->lambda;
        return d > 0 ? 0.5 * t * t / d : 0.0;
    }
    }
    return 0.0;
}

double gv_split_weight(const gv_engine *e, const double *s)
{
    switch (e->cfg->stats) {
    case GV_STATS_CLASS: {
        double W = 0;
        for (size_t k = 0; k < e->K; k++) W += s[1 + k];
        return W;
    }
    case GV_STATS_REG: return s[1];
    case GV_STATS_GRAD: return s[2];
    }
    return 0.0;
}

/* Whether a child record meets the leaf limits. */
static inline int child_ok(const gv_engine *e, const double *c)
{
    const gv_tree_config *cfg = e->cfg;
    if (c[0] < (double)cfg->min_samples_leaf) return 0;
    if (cfg->min_weight_leaf > 0 && gv_split_weight(e, c) < cfg->min_weight_leaf) return 0;
    return 1;
}

/* Offers a candidate with the given gain/tol to *best under the tie rule of tree_int.h. */
static inline int offer(const gv_engine *e, gv_split *best, double gain, double tol)
{
    if (!(gain > e->cfg->min_gain && gain > tol)) return 0;
    if (best->feature >= 0 && !(gain > best->gain + tol)) return 0;
    best->gain = gain;
    best->tol = tol;
    return 1;
}

/* Evaluates the binary split L | R of a node with score sp; returns 1 if it became the best. */
static int offer2(const gv_engine *e, gv_split *best, const double *L, const double *R, double sp)
{
    if (!child_ok(e, L) || !child_ok(e, R)) return 0;
    double sl = gv_split_score(e, L), sr = gv_split_score(e, R);
    /* gain = sc(L) + sc(R) - sc(P); tol = rel (|sc(L)| + |sc(R)| + |sc(P)|) */
    double gain = sl + sr - sp;
    double tol = GV_TREE_TIE_REL * (fabs(sl) + fabs(sr) + fabs(sp));
    return offer(e, best, gain, tol);
}

static inline void rec_zero(double *a, size_t S) { memset(a, 0, S * sizeof *a); }
static inline void rec_add(double *a, const double *b, size_t S)
{
    for (size_t k = 0; k < S; k++) a[k] += b[k];
}
/* c = a - b */
static inline void rec_sub(double *c, const double *a, const double *b, size_t S)
{
    for (size_t k = 0; k < S; k++) c[k] = a[k] - b[k];
}

/* The split L | R with the missing rows M moved left: L2 = L + M, R2 = tot - L2. */
static inline void with_missing(double *L2, double *R2, const double *L, const double *M,
                                const double *tot, size_t S)
{
    rec_zero(L2, S);
    rec_add(L2, L, S);
    rec_add(L2, M, S);
    rec_sub(R2, tot, L2, S);
}

/* Records the numeric split "bin <= b" of feature f as the best. */
static inline void take_numeric(gv_split *best, size_t f, uint32_t b, int default_left)
{
    best->feature = (int32_t)f;
    best->type = GV_NODE_NUM;
    best->bin = b;
    best->default_left = (uint8_t)default_left;
}

/* Offers the split point "bin <= b" of feature f, whose left record (missing rows excluded) is
 * L: missing right, then, when the node has missing rows (record M), missing left.  R, L2, R2
 * are scratch records. */
static void offer_point(const gv_engine *e, gv_split *best, size_t f, uint32_t b, const double *L,
                        const double *M, int has_missing, const double *tot, double sp, double *R,
                        double *L2, double *R2)
{
    const size_t S = e->S;
    rec_sub(R, tot, L, S);
    if (offer2(e, best, L, R, sp))
        /* No missing rows here: missing values later follow the heavier child. */
        take_numeric(best, f, b, has_missing ? 0 : gv_split_weight(e, L) >= gv_split_weight(e, R));
    if (has_missing) {
        with_missing(L2, R2, L, M, tot, S);
        if (offer2(e, best, L2, R2, sp)) take_numeric(best, f, b, 1);
    }
}

/* ---- monotone constraints (cfg->monotone; XGBoost's TreeEvaluator) ----
 * The node's value bounds [lo, hi] (e->cons_lo, e->cons_hi) clip every value: a record's
 * value is w = clip(-T_a(G) / (H + lambda), lo, hi) and its score at that value
 *     sc_w = -(T_a(G) w + 1/2 (H + lambda) w^2),
 * which is the unconstrained score 1/2 T_a(G)^2 / (H + lambda) where w is not clipped (the
 * half of XGBoost's CalcGainGivenWeight, as grove's scores are).  A split on a feature with
 * direction c != 0 is valid only when c (w_right - w_left) >= 0. */
static inline double cons_value(const gv_engine *e, const double *s)
{
    const gv_tree_config *cfg = e->cfg;
    double t = soft_threshold(s[1], cfg->alpha), d = s[2] + cfg->lambda;
    double w = d > 0 ? -t / d : 0.0;
    return w < e->cons_lo ? e->cons_lo : (w > e->cons_hi ? e->cons_hi : w);
}

static inline double cons_score(const gv_engine *e, const double *s, double w)
{
    if (s[0] <= 0) return 0.0;
    const gv_tree_config *cfg = e->cfg;
    double t = soft_threshold(s[1], cfg->alpha), d = s[2] + cfg->lambda;
    return -(t * w + 0.5 * d * w * w);
}

/* offer2 with the clipped values' scores and feature f's direction. */
static int offer2_cons(const gv_engine *e, gv_split *best, size_t f, const double *L,
                       const double *R, double sp)
{
    if (!child_ok(e, L) || !child_ok(e, R)) return 0;
    double wl = cons_value(e, L), wr = cons_value(e, R);
    int dir = e->cfg->monotone[f];
    if ((dir > 0 && wl > wr) || (dir < 0 && wl < wr)) return 0;
    double sl = cons_score(e, L, wl), sr = cons_score(e, R, wr);
    double gain = sl + sr - sp, tol = GV_TREE_TIE_REL * (fabs(sl) + fabs(sr) + fabs(sp));
    return offer(e, best, gain, tol);
}

/* scan_numeric's candidates (bins, missing right then left) under monotone constraints; sp
 * is the node's score at its clipped value. */
static void scan_numeric_cons(const gv_engine *e, size_t f, const double *hf, const double *tot,
                              double sp, gv_split_scratch *sc, gv_split *best)
{
    const size_t S = e->S;
    uint32_t nb = e->X->mappers[f].n_bins;
    const double *M = hf;
    double *L = sc->acc, *R = L + S, *L2 = L + 2 * S, *R2 = L + 3 * S;
    int has_missing = M[0] > 0;
    rec_zero(L, S);
    for (uint32_t b = 1; b + 1 < nb; b++) {
        const double *hb = hf + (size_t)b * S;
        if (hb[0] == 0 && b > 1) continue;
        rec_add(L, hb, S);
        rec_sub(R, tot, L, S);
        if (offer2_cons(e, best, f, L, R, sp))
            take_numeric(best, f, b, has_missing ? 0 : L[2] >= R[2]);
        if (has_missing) {
            with_missing(L2, R2, L, M, tot, S);
            if (offer2_cons(e, best, f, L2, R2, sp)) take_numeric(best, f, b, 1);
        }
    }
}

/* The lowest bin >= b marked in a small node's touched bins tb (tree_int.h), or 256. */
static inline uint32_t next_touched(const uint64_t *tb, uint32_t b)
{
    for (uint32_t w = b >> 6; w < 4; w++) {
        uint64_t m = tb[w] & (w == b >> 6 ? ~(uint64_t)0 << (b & 63) : ~(uint64_t)0);
        if (m) return 64 * w + (uint32_t)__builtin_ctzll(m);
    }
    return 256;
}

/* Numeric feature: "bin <= b" for b = 1 .. n_bins - 2 (so the threshold cuts[b - 1] exists),
 * missing right then left.  On a small node (e->use_touched) only bin 1 and the touched bins
 * are visited: the others are empty and skipped below anyway. */
static void scan_numeric(const gv_engine *e, size_t f, const double *hf, const double *tot,
                         double sp, gv_split_scratch *sc, gv_split *best)
{
    const size_t S = e->S;
    uint32_t nb = e->X->mappers[f].n_bins;
    const double *M = hf;
    double *L = sc->acc, *R = L + S, *L2 = L + 2 * S, *R2 = L + 3 * S;
    int has_missing = M[0] > 0;
    rec_zero(L, S);
    const uint64_t *tb = e->use_touched ? e->touched + 4 * f : NULL;
    for (uint32_t b = 1; b + 1 < nb; b = tb ? next_touched(tb, b + 1) : b + 1) {
        const double *hb = hf + (size_t)b * S;
        /* An empty bin gives the same partition as the bin before it: skip (the earlier one
         * wins ties anyway). */
        if (hb[0] == 0 && b > 1) continue;
        rec_add(L, hb, S);
        offer_point(e, best, f, b, L, M, has_missing, tot, sp, R, L2, R2);
    }
}

/* scan_numeric for the gini criterion on a node without missing rows: the same candidates in
 * the same order, the same arithmetic as offer_point, offer2, child_ok and gv_split_score (so the
 * same winner, bit for bit), inline: in a forest the generic scan's calls and switches per
 * candidate cost more than the sums. */
enum { GV_GINI_FAST_K = 256 }; /* classes of scan_numeric_gini's list (more: the generic scan) */
static void scan_numeric_gini(const gv_engine *e, size_t f, const double *hf, const double *tot,
                              double sp, gv_split_scratch *sc, gv_split *best)
{
    const size_t S = e->S, K = e->K;
    const gv_tree_config *cfg = e->cfg;
    const double msl = (double)cfg->min_samples_leaf, mwl = cfg->min_weight_leaf;
    const uint32_t nb = e->X->mappers[f].n_bins;
    double *L = sc->acc;
    rec_zero(L, S);
    const uint64_t *tb = e->use_touched ? e->touched + 4 * f : NULL;
    /* The classes to sum: on a node built from its rows (touched bins), a class without weight
     * in the node has +0 in every bin, and adding +0 changes no sum, so only the node's classes
     * (often two or three of ten deep in a tree) are read; elsewhere all K (a subtracted
     * histogram may hold rounding residue in an absent class). */
    uint32_t cls_all[GV_GINI_FAST_K], Kn = 0;
    for (size_t k = 0; k < K; k++)
        if (!tb || tot[1 + k] != 0) cls_all[Kn++] = (uint32_t)k;
    const uint32_t *cls = cls_all;
    for (uint32_t b = 1; b + 1 < nb; b = tb ? next_touched(tb, b + 1) : b + 1) {
        const double *hb = hf + (size_t)b * S;
        if (hb[0] == 0 && b > 1) continue; /* as scan_numeric */
        L[0] += hb[0];
        for (uint32_t j = 0; j < Kn; j++) L[1 + cls[j]] += hb[1 + cls[j]];
        const double cl = L[0], cr = tot[0] - L[0];
        double wl = 0, ql = 0, wr = 0, qr = 0;
        for (uint32_t j = 0; j < Kn; j++) {
            const double l = L[1 + cls[j]], r = tot[1 + cls[j]] - l;
            wl += l;
            ql += l * l;
            wr += r;
            qr += r * r;
        }
        /* child_ok of both sides */
        if (cl < msl || cr < msl) continue;
        if (mwl > 0 && (wl < mwl || wr < mwl)) continue;
        /* gv_split_score (GINI) of both sides, then offer2's gain and tolerance */
        const double sl = cl <= 0 ? 0.0 : wl > 0 ? ql / wl : 0.0;
        const double sr = cr <= 0 ? 0.0 : wr > 0 ? qr / wr : 0.0;
        const double gain = sl + sr - sp;
        const double tol = GV_TREE_TIE_REL * (fabs(sl) + fabs(sr) + fabs(sp));
        if (offer(e, best, gain, tol)) take_numeric(best, f, b, wl >= wr);
    }
}

/* scan_numeric for the Newton criterion (GRAD records: count, g, h): the same candidates,
 * in the same order, with the same arithmetic as scan_numeric (so the same winner), in three
 * passes: the left prefixes of the non-empty bins (sequential), every candidate's gain and
 * tolerance four at a time (vector divisions, no branch: they dominated the search on wide
 * data), then the tie rule in candidate order. */
typedef double gv_v4d_s __attribute__((vector_size(32), aligned(8), may_alias));
typedef int64_t gv_v4i_s __attribute__((vector_size(32), aligned(8), may_alias));

/* Built for AVX2 and for the baseline, as hist.c's row loop (same results). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(GROVE_NO_CLONES)
#define GV_TARGET_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define GV_TARGET_CLONES
#endif

/* x where mask m is set, else y */
#define VSEL(m, x, y) ((gv_v4d_s)((((gv_v4i_s)(x)) & (m)) | (((gv_v4i_s)(y)) & ~(m))))
/* T = T_a(g) of four sums: SOFT_L1 computes max(g - a, 0) + min(g + a, 0); without L1 (a = 0,
 * the default) that is g, but 0 for NaN and +0 for -0 (the same square), which SOFT_NONE gets
 * with one test instead of five operations (newton_scan_offer an eighth shorter on
 * fashion-MNIST).  The loops below are built once with each (T_SOFT picks by alpha). */
#define SOFT_L1(T, g)                                                                              \
    do {                                                                                           \
        gv_v4d_s p_ = (g) - alpha, q_ = (g) + alpha;                                               \
        p_ = VSEL(p_ > zero, p_, zero);                                                            \
        q_ = VSEL(q_ < zero, q_, zero);                                                            \
        T = p_ + q_;                                                                               \
    } while (0)
#define SOFT_NONE(T, g) (T = VSEL((g) == (g), (g), zero))
#define T_SOFT(LOOP)                                                                               \
    do {                                                                                           \
        if (alpha == 0) {                                                                          \
            LOOP(SOFT_NONE)                                                                        \
        } else {                                                                                   \
            LOOP(SOFT_L1)                                                                          \
        }                                                                                          \
    } while (0)
/* newton_score of four records into OUT: 0 without rows, else 1/2 T_a(g)^2 / (h + lambda), 0
 * when h + lambda <= 0 */
#define VNEWTON(OUT, c, g, h, SOFT)                                                                \
    do {                                                                                           \
        gv_v4d_s t_, d_ = (h) + lambda;                                                            \
        SOFT(t_, g);                                                                               \
        gv_v4d_s sc_ = 0.5 * t_ * t_ / d_;                                                         \
        OUT = VSEL(((c) > zero) & (d_ > zero), sc_, zero);                                         \
    } while (0)

/* The constants of NEWTON_BLOCK: e's limits and the parent's score sp. */
#define NEWTON_CONSTS(e, sp)                                                                       \
    const gv_tree_config *cfg = (e)->cfg;                                                          \
    const double alpha = cfg->alpha, lambda = cfg->lambda, msl = (double)cfg->min_samples_leaf;    \
    const double mwl = cfg->min_weight_leaf > 0 ? cfg->min_weight_leaf : -INFINITY;               \
    const double asp = fabs(sp), min_gain = cfg->min_gain;                                         \
    const gv_v4d_s zero = {0, 0, 0, 0};                                                            \
    const gv_v4i_s absmask = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX}

/* Gains GN, tolerances TL and validity OK (all-ones or 0: the child limits and offer()'s first
 * test, which does not depend on the best) of candidates j0 .. j0 + 3 with left records
 * (C, Gs, H)[j] and right = tot - left. */
#define NEWTON_BLOCK(j0, GN, TL, OK, SOFT)                                                         \
    do {                                                                                           \
        gv_v4d_s lc = *(const gv_v4d_s *)(C + (j0)), lg = *(const gv_v4d_s *)(Gs + (j0));          \
        gv_v4d_s lh = *(const gv_v4d_s *)(H + (j0));                                               \
        gv_v4d_s rc = tot[0] - lc, rg = tot[1] - lg, rh = tot[2] - lh;                             \
        gv_v4d_s sl, sr;                                                                           \
        VNEWTON(sl, lc, lg, lh, SOFT);                                                             \
        VNEWTON(sr, rc, rg, rh, SOFT);                                                             \
        gv_v4d_s al = (gv_v4d_s)((gv_v4i_s)sl & absmask);                                          \
        gv_v4d_s ar = (gv_v4d_s)((gv_v4i_s)sr & absmask);                                          \
        GN = sl + sr - sp;                                                                         \
        TL = GV_TREE_TIE_REL * (al + ar + asp);                                                    \
        OK = ~(lc < msl) & ~(rc < msl) & ~(lh < mwl) & ~(rh < mwl) & (GN > min_gain) & (GN > TL);  \
    } while (0)

/* Gains, tolerances and validity of candidates [0, n) (NEWTON_BLOCK); the arrays have room for
 * a multiple of 4. */
GV_TARGET_CLONES
static void newton_gains(const gv_engine *e, size_t n, const double *C, const double *Gs,
                         const double *H, const double *tot, double sp, double *gain, double *tol,
                         int64_t *ok)
{
    NEWTON_CONSTS(e, sp);
#define GAINS_LOOP(SOFT)                                                                           \
    for (size_t j = 0; j < n; j += 4) {                                                            \
        gv_v4d_s gn, tl;                                                                           \
        gv_v4i_s ok4;                                                                              \
        NEWTON_BLOCK(j, gn, tl, ok4, SOFT);                                                        \
        *(gv_v4d_s *)(gain + j) = gn;                                                              \
        *(gv_v4d_s *)(tol + j) = tl;                                                               \
        *(gv_v4i_s *)(ok + j) = ok4;                                                               \
    }
    T_SOFT(GAINS_LOOP);
#undef GAINS_LOOP
}

/* The first block of four candidates at or after j0 (< n) of which one could replace a best
 * of gain bg (-inf: none yet): ok and gain > bg + tol.  The best's gain only grows while a
 * feature is scanned, so a candidate that fails this against the best at the block's start
 * fails offer() too (rounding is monotone); the candidates it skips would all be refused. */
GV_TARGET_CLONES
static size_t newton_next_block(size_t j0, size_t n, const double *gain, const double *tol,
                                const int64_t *ok, double bg)
{
    for (; j0 < n; j0 += 4) {
        gv_v4d_s g = *(const gv_v4d_s *)(gain + j0), t = *(const gv_v4d_s *)(tol + j0);
        gv_v4i_s m = *(const gv_v4i_s *)(ok + j0) & (g > bg + t);
        if (m[0] | m[1] | m[2] | m[3]) break;
    }
    return j0;
}

/* newton_gains and the offers of newton_offer without missing rows in one pass: each block of
 * four candidates is offered right after its gains are computed, while they are in registers,
 * when one of them could replace the best (the test of newton_next_block, against the best as
 * it is at the block's start); the same candidates are offered in the same order. */
GV_TARGET_CLONES
static void newton_scan_offer(const gv_engine *e, size_t f, size_t n, const double *C,
                              const double *Gs, const double *H, const uint32_t *bin,
                              const double *tot, double sp, gv_split *best)
{
    NEWTON_CONSTS(e, sp);
    double bg = best->feature >= 0 ? best->gain : -INFINITY;
#define OFFER_LOOP(SOFT)                                                                           \
    for (size_t j0 = 0; j0 < n; j0 += 4) {                                                         \
        gv_v4d_s gn, tl;                                                                           \
        gv_v4i_s ok;                                                                               \
        NEWTON_BLOCK(j0, gn, tl, ok, SOFT);                                                        \
        gv_v4i_s m = ok & (gn > bg + tl);                                                          \
        if (!(m[0] | m[1] | m[2] | m[3])) continue;                                                \
        for (size_t j = j0; j < j0 + 4 && j < n; j++)                                              \
            if (ok[j - j0] && offer(e, best, gn[j - j0], tl[j - j0]))                              \
                take_numeric(best, f, bin[j], H[j] >= tot[2] - H[j]);                              \
        bg = best->feature >= 0 ? best->gain : -INFINITY;                                          \
    }
    T_SOFT(OFFER_LOOP);
#undef OFFER_LOOP
}

/* a[j] -= b[j], j < n, four at a time (elementwise: the same doubles as the scalar loop, which
 * gcc -O2 left scalar for fear of aliasing; it was a third of the split search on wide data). */
GV_TARGET_CLONES
static void hist_sub(double *a, const double *b, size_t n)
{
    size_t j = 0;
    for (; j + 16 <= n; j += 16) {
        gv_v4d_s x0 = *(const gv_v4d_s *)(a + j), x1 = *(const gv_v4d_s *)(a + j + 4);
        gv_v4d_s x2 = *(const gv_v4d_s *)(a + j + 8), x3 = *(const gv_v4d_s *)(a + j + 12);
        x0 -= *(const gv_v4d_s *)(b + j);
        x1 -= *(const gv_v4d_s *)(b + j + 4);
        x2 -= *(const gv_v4d_s *)(b + j + 8);
        x3 -= *(const gv_v4d_s *)(b + j + 12);
        *(gv_v4d_s *)(a + j) = x0;
        *(gv_v4d_s *)(a + j + 4) = x1;
        *(gv_v4d_s *)(a + j + 8) = x2;
        *(gv_v4d_s *)(a + j + 12) = x3;
    }
    for (; j < n; j++) a[j] -= b[j];
}

/* The Newton scan's second half: candidates j < n with left records (C, Gs, H)[j] (missing
 * rows excluded) at split bins bin[j] (bin NULL: j + 1), and the missing rows' record (mc, mg,
 * mh). */
#define BIN_OF(j) (bin ? bin[j] : (uint32_t)(j) + 1)
static void newton_offer(const gv_engine *e, size_t f, size_t n, double *C, double *Gs, double *H,
                         const uint32_t *bin, size_t cap, double mc, double mg, double mh,
                         const double *tot, double sp, gv_split *best)
{
    double *gain = H + cap, *tol = gain + cap;
    int64_t *ok = (int64_t *)(tol + cap);
    for (size_t j = n; j % 4; j++) C[j] = Gs[j] = H[j] = 0; /* the vector tail */
    if (!(mc > 0) && bin) {
        newton_scan_offer(e, f, n, C, Gs, H, bin, tot, sp, best);
        return;
    }
    newton_gains(e, n, C, Gs, H, tot, sp, gain, tol, ok);
    if (!(mc > 0)) {
        for (size_t j0 = 0;; j0 += 4) {
            j0 = newton_next_block(j0, n, gain, tol, ok,
                                   best->feature >= 0 ? best->gain : -INFINITY);
            if (j0 >= n) break;
            for (size_t j = j0; j < j0 + 4 && j < n; j++)
                if (ok[j] && offer(e, best, gain[j], tol[j]))
                    take_numeric(best, f, BIN_OF(j), H[j] >= tot[2] - H[j]);
        }
        return;
    }
    /* with missing rows: candidate j missing-right, then j missing-left (L + M) */
    double *C2 = (double *)(uintptr_t)(bin + cap + (cap & 1)), *G2 = C2 + cap, *H2 = G2 + cap;
    double *gain2 = H2 + cap, *tol2 = gain2 + cap;
    int64_t *ok2 = (int64_t *)(tol2 + cap);
    for (size_t j = 0; j < cap; j++) {
        C2[j] = C[j] + mc;
        G2[j] = Gs[j] + mg;
        H2[j] = H[j] + mh;
    }
    newton_gains(e, n, C2, G2, H2, tot, sp, gain2, tol2, ok2);
    /* a block is visited when its missing-right or its missing-left candidates may win */
    double bg = best->feature >= 0 ? best->gain : -INFINITY;
    size_t a = newton_next_block(0, n, gain, tol, ok, bg);
    size_t b = newton_next_block(0, n, gain2, tol2, ok2, bg);
    for (;;) {
        size_t j0 = a < b ? a : b;
        if (j0 >= n) break;
        for (size_t j = j0; j < j0 + 4 && j < n; j++) {
            if (ok[j] && offer(e, best, gain[j], tol[j])) take_numeric(best, f, BIN_OF(j), 0);
            if (ok2[j] && offer(e, best, gain2[j], tol2[j])) take_numeric(best, f, BIN_OF(j), 1);
        }
        bg = best->feature >= 0 ? best->gain : -INFINITY;
        if (a == j0) a = newton_next_block(j0 + 4, n, gain, tol, ok, bg);
        if (b == j0) b = newton_next_block(j0 + 4, n, gain2, tol2, ok2, bg);
    }
}

#ifdef GV_SPLIT_AVX2
/* NZ_FIX[m]: movemask m of the lanes (c0, c3, c2, c1) made in order (c0, c1, c2, c3) */
static const uint8_t NZ_FIX[16] = {0, 1, 8, 9, 4, 5, 12, 13, 2, 3, 10, 11, 6, 7, 14, 15};

/* The candidate bins of [w0, w0 + 64) as bits: bin 1, and the non-empty bins 2 .. last. */
__attribute__((target("avx2"))) static uint64_t candidate_bits(const double *hf, uint32_t w0,
                                                               uint32_t last)
{
    const __m256d zero = _mm256_setzero_pd();
    uint32_t hi = last + 1 < w0 + 64 ? last + 1 : w0 + 64; /* bins [w0, hi) */
    uint64_t m = 0;
    uint32_t b = w0;
    /* four bins' counts from three loads: lanes (c0, c3, c2, c1) after two blends; bins
     * b .. b + 3 <= last (< n_bins) are inside the feature's records */
    for (; b + 4 <= hi; b += 4) {
        const double *p = hf + 3 * (size_t)b;
        __m256d v0 = _mm256_loadu_pd(p), v1 = _mm256_loadu_pd(p + 4), v2 = _mm256_loadu_pd(p + 8);
        __m256d u = _mm256_blend_pd(_mm256_blend_pd(v0, v1, 4), v2, 2);
        unsigned k = (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(u, zero, _CMP_NEQ_UQ));
        m |= (uint64_t)NZ_FIX[k] << (b - w0);
    }
    for (; b < hi; b++) m |= (uint64_t)(hf[3 * (size_t)b] != 0) << (b - w0);
    if (w0 == 0) m = (m & ~(uint64_t)3) | 2; /* bin 0 never, bin 1 always */
    return m;
}

/* scan_numeric_newton's first pass in AVX2: the prefix (count, g, h, -) over the candidate
 * bins -- bin 1, and the non-empty bins -- found 64 at a time from the counts, so that empty
 * bins cost a count test (most of a small node's).  The scalar loop adds the same records in
 * the same order (an empty bin adds nothing there either).  A bin's record and the next bin's
 * count are one vector (b + 1 < nb: it exists).  Candidates compacted at C, Gs, H, bin[n];
 * returns n. */
__attribute__((target("avx2"))) static size_t dbl_prefix_avx2(const double *hf, uint32_t nb,
                                                               double *C, double *Gs, double *H,
                                                               uint32_t *bin)
{
    if (nb < 3) return 0;
    const uint32_t last = nb - 2;
    __m256d acc = _mm256_setzero_pd();
    size_t n = 0;
    for (uint32_t w0 = 0; w0 <= last; w0 += 64) {
        for (uint64_t m = candidate_bits(hf, w0, last); m; m &= m - 1) {
            const uint32_t b = w0 + (uint32_t)__builtin_ctzll(m);
            acc = _mm256_add_pd(acc, _mm256_loadu_pd(hf + 3 * (size_t)b));
            const __m128d lo = _mm256_castpd256_pd128(acc), hi = _mm256_extractf128_pd(acc, 1);
            _mm_store_sd(C + n, lo);
            _mm_storeh_pd(Gs + n, lo);
            _mm_store_sd(H + n, hi);
            bin[n++] = b;
        }
    }
    return n;
}
#endif

static void scan_numeric_newton(const gv_engine *e, size_t f, const double *hf, const double *tot,
                                double sp, gv_split_scratch *sc, gv_split *best)
{
    const uint32_t nb = e->X->mappers[f].n_bins;
    const size_t cap = ((size_t)nb + 3) / 4 * 4;
    double *C = sc->sub, *Gs = C + cap, *H = Gs + cap;
    uint32_t *bin = (uint32_t *)(H + 4 * cap);
    double lc = 0, lg = 0, lh = 0;
    size_t n = 0;
#ifdef GV_SPLIT_AVX2
    if (e->plan.split_simd) {
        n = dbl_prefix_avx2(hf, nb, C, Gs, H, bin);
        if (n == 0) return;
        newton_offer(e, f, n, C, Gs, H, bin, cap, hf[0], hf[1], hf[2], tot, sp, best);
        return;
    }
#endif
    for (uint32_t b = 1; b + 1 < nb; b++) {
        const double *hb = hf + 3 * (size_t)b;
        if (hb[0] == 0 && b > 1) continue;
        lc += hb[0];
        lg += hb[1];
        lh += hb[2];
        C[n] = lc;
        Gs[n] = lg;
        H[n] = lh;
        bin[n++] = b;
    }
    if (n == 0) return;
    newton_offer(e, f, n, C, Gs, H, bin, cap, hf[0], hf[1], hf[2], tot, sp, best);
}

#ifdef GV_SPLIT_AVX2
/* LUT_PERM[m]: vpermd indices moving the 64-bit lanes set in the 4-bit mask m to the front, in
 * order; LUT_POS[m]: those lanes' positions */
static const int32_t LUT_PERM[16][8] = {
    {0, 0, 0, 0, 0, 0, 0, 0}, {0, 1, 0, 0, 0, 0, 0, 0},
    {2, 3, 0, 0, 0, 0, 0, 0}, {0, 1, 2, 3, 0, 0, 0, 0},
    {4, 5, 0, 0, 0, 0, 0, 0}, {0, 1, 4, 5, 0, 0, 0, 0},
    {2, 3, 4, 5, 0, 0, 0, 0}, {0, 1, 2, 3, 4, 5, 0, 0},
    {6, 7, 0, 0, 0, 0, 0, 0}, {0, 1, 6, 7, 0, 0, 0, 0},
    {2, 3, 6, 7, 0, 0, 0, 0}, {0, 1, 2, 3, 6, 7, 0, 0},
    {4, 5, 6, 7, 0, 0, 0, 0}, {0, 1, 4, 5, 6, 7, 0, 0},
    {2, 3, 4, 5, 6, 7, 0, 0}, {0, 1, 2, 3, 4, 5, 6, 7},
};
static const int32_t LUT_POS[16][4] = {
    {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0},
    {2, 0, 0, 0}, {0, 2, 0, 0}, {1, 2, 0, 0}, {0, 1, 2, 0},
    {3, 0, 0, 0}, {0, 3, 0, 0}, {1, 3, 0, 0}, {0, 1, 3, 0},
    {2, 3, 0, 0}, {0, 2, 3, 0}, {1, 2, 3, 0}, {0, 1, 2, 3},
};

/* scan_numeric_newton_q's first pass on a packed-word (quant 8) feature, four bins a vector:
 * the words minus the sibling's mw when given (stored: the node keeps its histogram; bins 0 and
 * nb - 1 too), decoded; integer prefix sums (exact: any order gives the same); the candidates
 * (bin 1 and the non-empty bins 1 .. nb - 2) compacted as doubles (C, Gs = g dg, H = h dh)[n]
 * at bin[n], n returned.  The same values as the scalar loop of scan_numeric_newton_q. */
__attribute__((target("avx2"))) static size_t q8_prefix_avx2(uint64_t *w, const uint64_t *mw,
                                                              uint32_t nb, unsigned sh,
                                                              unsigned sg, double dg, double dh,
                                                              double *C, double *Gs, double *H,
                                                              uint32_t *bin)
{
    const uint64_t mcv = ((uint64_t)1 << sh) - 1, mhv = ((uint64_t)1 << (sg - sh)) - 1;
    const __m256i mc = _mm256_set1_epi64x((long long)mcv), mh = _mm256_set1_epi64x((long long)mhv);
    const __m256i sgn = _mm256_set1_epi64x((long long)((uint64_t)1 << (63 - sg)));
    const __m128i csh = _mm_cvtsi32_si128((int)sh), csg = _mm_cvtsi32_si128((int)sg);
    const __m256i zero = _mm256_setzero_si256(), magic = _mm256_set1_epi64x(0x4338000000000000LL);
    const __m256d magicd = _mm256_set1_pd(6755399441055744.0), vdg = _mm256_set1_pd(dg),
                  vdh = _mm256_set1_pd(dh);
    if (mw) {
        w[0] -= mw[0];
        if (nb > 1) w[nb - 1] -= mw[nb - 1];
    }
    __m256i lc = zero, lg = zero, lh = zero; /* the prefix so far, in every lane */
    size_t n = 0;
    uint32_t b = 1;
    for (; b + 4 < nb; b += 4) { /* bins b .. b + 3 <= nb - 2 */
        __m256i v = _mm256_loadu_si256((const __m256i *)(w + b));
        if (mw) {
            v = _mm256_sub_epi64(v, _mm256_loadu_si256((const __m256i *)(mw + b)));
            _mm256_storeu_si256((__m256i *)(w + b), v);
        }
        __m256i c = _mm256_and_si256(v, mc);
        __m256i h = _mm256_and_si256(_mm256_srl_epi64(v, csh), mh);
        __m256i g = _mm256_sub_epi64(_mm256_xor_si256(_mm256_srl_epi64(v, csg), sgn), sgn);
        int m = ~_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(c, zero))) & 15;
        m |= b == 1;
        /* inclusive prefix over the four lanes: + lanes shifted up by one, then by two */
#define PFX(x, l)                                                                                  \
    do {                                                                                           \
        x = _mm256_add_epi64(x, _mm256_blend_epi32(_mm256_permute4x64_epi64(x, 0x90), zero, 3));  \
        x = _mm256_add_epi64(x, _mm256_permute2x128_si256(x, x, 0x08));                           \
        x = _mm256_add_epi64(x, l);                                                                \
        l = _mm256_permute4x64_epi64(x, 0xff);                                                     \
    } while (0)
        PFX(c, lc);
        PFX(g, lg);
        PFX(h, lh);
#undef PFX
        const __m256i perm = _mm256_loadu_si256((const __m256i *)LUT_PERM[m]);
#define I2D(x) _mm256_sub_pd(_mm256_castsi256_pd(_mm256_add_epi64(x, magic)), magicd)
#define CSTORE(dst, x)                                                                             \
    _mm256_storeu_pd(dst + n, _mm256_castsi256_pd(_mm256_permutevar8x32_epi32(                     \
                                  _mm256_castpd_si256(x), perm)))
        CSTORE(C, I2D(c));
        CSTORE(Gs, _mm256_mul_pd(I2D(g), vdg));
        CSTORE(H, _mm256_mul_pd(I2D(h), vdh));
#undef CSTORE
#undef I2D
        _mm_storeu_si128((__m128i *)(bin + n),
                         _mm_add_epi32(_mm_loadu_si128((const __m128i *)LUT_POS[m]),
                                       _mm_set1_epi32((int)b)));
        n += (size_t)__builtin_popcount((unsigned)m);
    }
    int64_t sc = _mm256_extract_epi64(lc, 0), sgs = _mm256_extract_epi64(lg, 0),
            shs = _mm256_extract_epi64(lh, 0);
    for (; b + 1 < nb; b++) {
        if (mw) w[b] -= mw[b];
        const uint64_t v = w[b];
        const int64_t c = (int64_t)(v & mcv);
        sc += c;
        sgs += (int64_t)v >> sg;
        shs += (int64_t)((v >> sh) & mhv);
        C[n] = (double)sc;
        Gs[n] = (double)sgs * dg;
        H[n] = (double)shs * dh;
        bin[n] = b;
        n += c != 0 || b == 1;
    }
    return n;
}
#endif

/* scan_numeric_newton on a quantized feature (tree_int.h): records q, minus the sibling's mq
 * when given (every bin, in place: the node keeps its histogram); prefix sums in integers
 * (exact), candidates in doubles.  An empty bin adds nothing and is not a candidate: written
 * and then overwritten, without a branch (in a small node most bins are empty). */
static void scan_numeric_newton_q(const gv_engine *e, size_t f, void *q, const void *mq,
                                  const double *tot, double sp, gv_split_scratch *sc,
                                  gv_split *best)
{
    const uint32_t nb = e->X->mappers[f].n_bins;
    const size_t cap = ((size_t)nb + 3) / 4 * 4;
    double *C = sc->sub, *Gs = C + cap, *H = Gs + cap;
    uint32_t *bin = (uint32_t *)(H + 4 * cap);
    const double dg = e->in->qscale[0], dh = e->in->qscale[1];
    int64_t m[3], lc = 0, lg = 0, lh = 0;
    size_t n = 0;
#ifdef GV_SPLIT_AVX2
    if (e->quant == 8 && e->plan.split_simd) {
        n = q8_prefix_avx2(q, mq, nb, e->qsh_h, e->qsh_g, dg, dh, C, Gs, H, bin);
        gv_qrec(e, q, 0, m);
        if (n == 0) return;
        newton_offer(e, f, n, C, Gs, H, bin, cap, (double)m[0], (double)m[1] * dg,
                     (double)m[2] * dh, tot, sp, best);
        return;
    }
#endif
    if (mq) gv_qsub(e, q, mq, nb);
    gv_qrec(e, q, 0, m);
    if (e->quant == 8) {
        const uint64_t *w = q;
        const unsigned sh = e->qsh_h, sg = e->qsh_g;
        const uint64_t mc = ((uint64_t)1 << sh) - 1, mh = ((uint64_t)1 << (sg - sh)) - 1;
        for (uint32_t b = 1; b + 1 < nb; b++) {
            const uint64_t v = w[b];
            const int64_t c = (int64_t)(v & mc);
            lc += c;
            lg += (int64_t)v >> sg;
            lh += (int64_t)((v >> sh) & mh);
            C[n] = (double)lc;
            Gs[n] = (double)lg * dg;
            H[n] = (double)lh * dh;
            bin[n] = b;
            n += c != 0 || b == 1;
        }
    } else {
        const int32_t *r = q;
        for (uint32_t b = 1; b + 1 < nb; b++) {
            const int64_t c = r[4 * b];
            lc += c;
            lg += r[4 * b + 1];
            lh += r[4 * b + 2];
            C[n] = (double)lc;
            Gs[n] = (double)lg * dg;
            H[n] = (double)lh * dh;
            bin[n] = b;
            n += c != 0 || b == 1;
        }
    }
    if (n == 0) return;
    newton_offer(e, f, n, C, Gs, H, bin, cap, (double)m[0], (double)m[1] * dg, (double)m[2] * dh,
                 tot, sp, best);
}

/* Extra-trees, numeric feature: ONE split point at random (Geurts et al. 2006, Algorithm 2's
 * "pick a random cut-point"): with lo and hi the lowest and highest non-empty value bins of the
 * node, a threshold t uniform in [cuts[lo - 1], cuts[hi - 2]] (the node's value range at bin
 * resolution), and the split "bin <= b" for the first b >= lo with cuts[b - 1] >= t; then
 * missing right, and missing left, as in scan_numeric.  No split when the feature is constant
 * here. */
static void scan_numeric_random(const gv_engine *e, size_t f, const double *hf, const double *tot,
                                double sp, double u, gv_split_scratch *sc, gv_split *best)
{
    const size_t S = e->S;
    const gv_bin_mapper *mp = &e->X->mappers[f];
    uint32_t nb = mp->n_bins, lo = 0, hi = 0;
    for (uint32_t b = 1; b < nb; b++)
        if (hf[(size_t)b * S] > 0) {
            if (!lo) lo = b;
            hi = b;
        }
    if (lo == 0 || lo >= hi) return;
    double a = (double)mp->cuts[lo - 1], z = (double)mp->cuts[hi - 2];
    double t = a + u * (z - a); /* t = a + u (z - a), u ~ U[0, 1) */
    uint32_t bs = lo;
    while (bs < hi - 1 && (double)mp->cuts[bs - 1] < t) bs++;
    const double *M = hf;
    double *L = sc->acc, *R = L + S, *L2 = L + 2 * S, *R2 = L + 3 * S;
    int has_missing = M[0] > 0;
    rec_zero(L, S);
    for (uint32_t b = lo; b <= bs; b++) rec_add(L, hf + (size_t)b * S, S);
    offer_point(e, best, f, bs, L, M, has_missing, tot, sp, R, L2, R2);
}

static int catkey_cmp(const void *a, const void *b)
{
    const gv_catkey *x = a, *y = b;
    if (x->key < y->key) return -1;
    if (x->key > y->key) return 1;
    return (x->code > y->code) - (x->code < y->code);
}

/* The ordering key of a category's record for binary partitions:
 *   CLASS K = 2: w_1 / W (fraction of class 1; optimal order, Breiman et al. 1984);
 *   CLASS K > 2: w_m / W for the node's majority class m (a heuristic: the optimal
 *                partition is exponential to find for K > 2);
 *   REG: the weighted mean S / W;  GRAD: G / (H + lambda) (minus the Newton leaf value).
 * A record without weight gets key 0. */
static double cat_key(const gv_engine *e, const double *s, size_t majority)
{
    switch (e->cfg->stats) {
    case GV_STATS_CLASS: {
        double W = gv_split_weight(e, s);
        size_t k = e->K == 2 ? 1 : majority;
        return W > 0 ? s[1 + k] / W : 0.0;
    }
    case GV_STATS_REG: return s[1] > 0 ? s[2] / s[1] : 0.0;
    case GV_STATS_GRAD: {
        double d = s[2] + e->cfg->lambda;
        return d > 0 ? s[1] / d : 0.0;
    }
    }
    return 0.0;
}

/* Newton gain of the partition L | R of a node with score sp, the children regularized by
 * lambda + cat_l2 (LightGBM's cat_l2: the parent keeps lambda, so a partition of many
 * categories must gain more than a numeric split to be chosen). */
static int offer_cat(const gv_engine *e, gv_split *best, const double *L, const double *R, double sp)
{
    const gv_tree_config *cfg = e->cfg;
    if (!child_ok(e, L) || !child_ok(e, R)) return 0;
    double tl = soft_threshold(L[1], cfg->alpha), tr = soft_threshold(R[1], cfg->alpha);
    double dl = L[2] + cfg->lambda + cfg->cat_l2, dr = R[2] + cfg->lambda + cfg->cat_l2;
    double sl = dl > 0 ? 0.5 * tl * tl / dl : 0.0, sr = dr > 0 ? 0.5 * tr * tr / dr : 0.0;
    double tol = GV_TREE_TIE_REL * (fabs(sl) + fabs(sr) + fabs(sp));
    return offer(e, best, sl + sr - sp, tol);
}

/* Categorical feature, binary partition of gradient trees with regularization (LightGBM's
 * categorical splits, Ke et al. 2017 and its cat_* parameters): the categories with at least
 * cat_smooth rows at the node, ordered by G / (H + cat_smooth) (ties by code); left sets of the
 * first j or the last j of that order, j <= max_cat_threshold and j <= (m + 1) / 2, each tried
 * only once min_data_per_group more rows have joined it since the last one tried; gain by
 * offer_cat; missing right, then left.  The other categories go right (with the missing
 * values when those go right).  Returns the left set as (from_end, j) through *dir, *len. */
static int scan_partition_reg(const gv_engine *e, size_t f, const double *hf, const double *tot,
                              double sp, gv_split_scratch *sc, int *dir, size_t *len,
                              gv_split *best)
{
    const gv_tree_config *cfg = e->cfg;
    const size_t S = e->S;
    uint32_t n_cat = e->X->mappers[f].n_bins - 1;
    const double *M = hf;
    double *L = sc->acc, *R = L + S, *L2 = L + 2 * S, *R2 = L + 3 * S;
    int has_missing = M[0] > 0, found = 0;
    size_t m = 0;
    for (uint32_t c = 0; c < n_cat; c++) {
        const double *hc = hf + (size_t)(c + 1) * S;
        if (hc[0] > 0 && hc[0] >= cfg->cat_smooth) {
            double d = hc[2] + cfg->cat_smooth;
            sc->keys[m].key = d > 0 ? hc[1] / d : 0.0;
            sc->keys[m].code = c;
            m++;
        }
    }
    if (m < 2) return 0;
    qsort(sc->keys, m, sizeof *sc->keys, catkey_cmp);
    size_t max_j = (m + 1) / 2 < cfg->max_cat_threshold ? (m + 1) / 2 : cfg->max_cat_threshold;
    for (int from_end = 0; from_end < 2; from_end++) {
        double group = 0;
        rec_zero(L, S);
        for (size_t j = 0; j < max_j && j + 1 < m; j++) {
            const double *hc = hf + (size_t)(sc->keys[from_end ? m - 1 - j : j].code + 1) * S;
            rec_add(L, hc, S);
            group += hc[0];
            if (group < (double)cfg->min_data_per_group) continue;
            group = 0;
            rec_sub(R, tot, L, S);
            if (offer_cat(e, best, L, R, sp)) {
                found = 1, *dir = from_end, *len = j + 1;
                best->default_left = has_missing ? 0 : gv_split_weight(e, L) >= gv_split_weight(e, R);
            }
            if (has_missing) {
                with_missing(L2, R2, L, M, tot, S);
                if (offer_cat(e, best, L2, R2, sp)) found = 1, *dir = from_end, *len = j + 1, best->default_left = 1;
            }
        }
    }
    return found;
}

/* Categorical feature, binary partition: the present categories ordered by cat_key (ties by
 * code), prefixes of that order go left; missing right then left.  Gradient trees with
 * max_cat_threshold set take scan_partition_reg instead.  Categories without rows
 * at the node follow the missing values (their bits equal default_left).
 * Extra-trees (u >= 0): only the prefix j = floor(u (m - 1)) of the m present categories is
 * tried (a random cut of the ordered categories). */
static void scan_partition(const gv_engine *e, size_t f, const double *hf, const double *tot,
                           double sp, size_t majority, double u, gv_split_scratch *sc,
                           uint32_t *bits, gv_split *best)
{
    const size_t S = e->S;
    uint32_t nb = e->X->mappers[f].n_bins, n_cat = nb - 1;
    const double *M = hf;
    double *L = sc->acc, *R = L + S, *L2 = L + 2 * S, *R2 = L + 3 * S;
    int has_missing = M[0] > 0;
    size_t m = 0;
    if (e->cfg->stats == GV_STATS_GRAD && e->cfg->max_cat_threshold > 0 && u < 0) {
        int dir = 0;
        size_t len = 0;
        if (!scan_partition_reg(e, f, hf, tot, sp, sc, &dir, &len, best)) return;
        best->feature = (int32_t)f;
        best->type = GV_NODE_CAT_SET;
        best->bin = 0;
        best->cat_len = (n_cat + 31) / 32;
        uint32_t fill = best->default_left ? 0xffffffffu : 0u;
        for (uint32_t w = 0; w < best->cat_len; w++) bits[w] = fill;
        for (uint32_t c = 0; c < n_cat; c++) /* present categories right, then the left set */
            if (hf[(size_t)(c + 1) * S] > 0) bits[c / 32] &= ~(1u << (c % 32));
        size_t mk = 0; /* the keys scan_partition_reg sorted: the categories it ordered */
        for (uint32_t c = 0; c < n_cat; c++) {
            const double *hc = hf + (size_t)(c + 1) * S;
            mk += hc[0] > 0 && hc[0] >= e->cfg->cat_smooth;
        }
        for (size_t j = 0; j < len; j++) {
            uint32_t c = sc->keys[dir ? mk - 1 - j : j].code;
            bits[c / 32] |= 1u << (c % 32);
        }
        if (n_cat % 32) bits[best->cat_len - 1] &= (1u << (n_cat % 32)) - 1;
        return;
    }
    for (uint32_t c = 0; c < n_cat; c++) {
        const double *hc = hf + (size_t)(c + 1) * S;
        if (hc[0] > 0) {
            sc->keys[m].key = cat_key(e, hc, majority);
            sc->keys[m].code = c;
            m++;
        }
    }
    if (m < 2) return;
    qsort(sc->keys, m, sizeof *sc->keys, catkey_cmp);
    size_t best_j = 0, only_j = u >= 0 ? (size_t)(u * (double)(m - 1)) : SIZE_MAX;
    int found = 0;
    rec_zero(L, S);
    for (size_t j = 0; j + 1 < m; j++) {
        rec_add(L, hf + (size_t)(sc->keys[j].code + 1) * S, S);
        if (only_j != SIZE_MAX && j != only_j) continue;
        rec_sub(R, tot, L, S);
        if (offer2(e, best, L, R, sp)) {
            found = 1;
            best_j = j;
            best->feature = (int32_t)f;
            best->default_left = has_missing ? 0 : gv_split_weight(e, L) >= gv_split_weight(e, R);
        }
        if (has_missing) {
            with_missing(L2, R2, L, M, tot, S);
            if (offer2(e, best, L2, R2, sp)) {
                found = 1;
                best_j = j;
                best->feature = (int32_t)f;
                best->default_left = 1;
            }
        }
    }
    if (!found) return;
    best->feature = (int32_t)f;
    best->type = GV_NODE_CAT_SET;
    best->bin = 0;
    best->cat_len = (n_cat + 31) / 32;
    uint32_t fill = best->default_left ? 0xffffffffu : 0u;
    for (uint32_t w = 0; w < best->cat_len; w++) bits[w] = fill;
    for (uint32_t c = 0; c < n_cat; c++) /* present categories: cleared, then the left ones set */
        if (hf[(size_t)(c + 1) * S] > 0) bits[c / 32] &= ~(1u << (c % 32));
    for (size_t j = 0; j <= best_j; j++) {
        uint32_t c = sc->keys[j].code;
        bits[c / 32] |= 1u << (c % 32);
    }
    if (n_cat % 32) bits[best->cat_len - 1] &= (1u << (n_cat % 32)) - 1; /* unused bits 0 */
}

/* Categorical feature, multiway (ID3): one child per present category; the missing rows join
 * the child (tried in code order) that gives the largest gain, which becomes the default
 * child; without missing rows the default child is the heaviest (ties: lowest code). */
static void scan_multiway(const gv_engine *e, size_t f, const double *hf, double sp,
                          gv_split_scratch *sc, uint32_t *bits, gv_split *best)
{
    const size_t S = e->S;
    uint32_t nb = e->X->mappers[f].n_bins, n_cat = nb - 1;
    const double *M = hf;
    double *T = sc->acc;
    size_t m = 0, n_bad = 0;
    double sum_sc = 0, sum_abs = 0;
    for (uint32_t c = 0; c < n_cat; c++) {
        const double *hc = hf + (size_t)(c + 1) * S;
        if (hc[0] > 0) {
            double s = gv_split_score(e, hc);
            m++;
            sum_sc += s;
            sum_abs += fabs(s);
            if (!child_ok(e, hc)) n_bad++;
        }
    }
    if (m < 2) return;
    int found = 0;
    uint32_t def = 0;
    if (!(M[0] > 0)) {
        if (n_bad > 0) return;
        /* gain = sum_c sc(c) - sc(P) */
        double gain = sum_sc - sp, tol = GV_TREE_TIE_REL * (sum_abs + fabs(sp));
        if (!offer(e, best, gain, tol)) return;
        double wmax = -INFINITY;
        for (uint32_t c = 0; c < n_cat; c++) {
            const double *hc = hf + (size_t)(c + 1) * S;
            if (hc[0] > 0 && gv_split_weight(e, hc) > wmax) {
                wmax = gv_split_weight(e, hc);
                def = c;
            }
        }
        found = 1;
    } else {
        for (uint32_t c = 0; c < n_cat; c++) {
            const double *hc = hf + (size_t)(c + 1) * S;
            if (!(hc[0] > 0)) continue;
            if (n_bad - !child_ok(e, hc) > 0) continue;
            rec_zero(T, S);
            rec_add(T, hc, S);
            rec_add(T, M, S);
            if (!child_ok(e, T)) continue;
            double s_old = gv_split_score(e, hc), s_new = gv_split_score(e, T);
            /* gain = sum_{c' != c} sc(c') + sc(c + missing) - sc(P) */
            double gain = sum_sc - s_old + s_new - sp;
            double tol = GV_TREE_TIE_REL * (sum_abs - fabs(s_old) + fabs(s_new) + fabs(sp));
            if (offer(e, best, gain, tol)) {
                def = c;
                found = 1;
                best->feature = (int32_t)f;
            }
        }
    }
    if (!found) return;
    best->feature = (int32_t)f;
    best->type = GV_NODE_CAT_MULTI;
    best->default_left = 0;
    best->bin = def;
    best->cat_len = (n_cat + 31) / 32;
    memset(bits, 0, best->cat_len * sizeof *bits);
    for (uint32_t c = 0; c < n_cat; c++)
        if (hf[(size_t)(c + 1) * S] > 0) bits[c / 32] |= 1u << (c % 32);
}

/* gv_split_find with the features' best splits in fbest[] (indexed by feature); tid >= 0: on
 * the calling thread alone, with scratch[tid] (a node of a level scanned with the level's
 * others, one node per thread: gv_split_find_one). */
static grove_status split_find(gv_engine *e, gv_split *fbest, int tid, double *h,
                               const double *minus, const double *tot, const int32_t *feats,
                               size_t n_feats, gv_split *best)
{
    const gv_tree_config *cfg = e->cfg;
    double qtot[3];
    if (e->quant && n_feats > 0) {
        /* the node's integer totals: every row is in one bin of any feature, so the sum of
         * one feature's records (exact) */
        size_t f0 = (size_t)feats[0], nb = e->X->mappers[f0].n_bins;
        const void *a = gv_qhist(e, h, f0), *m = minus ? gv_qhist(e, minus, f0) : NULL;
        int64_t t[3] = {0, 0, 0}, r[3];
        for (size_t b = 0; b < nb; b++) {
            gv_qrec(e, a, b, r);
            for (int j = 0; j < 3; j++) t[j] += r[j];
            if (!m) continue;
            gv_qrec(e, m, b, r);
            for (int j = 0; j < 3; j++) t[j] -= r[j];
        }
        qtot[0] = (double)t[0];
        qtot[1] = (double)t[1] * e->in->qscale[0];
        qtot[2] = (double)t[2] * e->in->qscale[1];
        tot = qtot;
    }
    double sp = gv_split_score(e, tot);
    const double sp_cons = cfg->monotone ? cons_score(e, tot, cons_value(e, tot)) : sp;
    size_t majority = 0;
    for (size_t k = 1; k < e->K; k++)
        if (tot[1 + k] > tot[1 + majority]) majority = k;
    size_t work = 0;
    for (size_t k = 0; k < n_feats; k++) work += e->X->mappers[feats[k]].n_bins;
    (void)work;
    const size_t chunk = n_feats / (SPLIT_PAR_CHUNKS * (size_t)e->nt) + 1;
    (void)chunk;
#ifdef _OPENMP
#pragma omp parallel for num_threads(e->nt) schedule(dynamic, chunk) \
    if (tid < 0 && e->nt > 1 && n_feats > 1 && work * e->S >= SPLIT_PAR_MIN_WORK && !e->use_touched)
#endif
    for (size_t k = 0; k < n_feats; k++) {
        size_t f = (size_t)feats[k];
        int t = tid < 0 ? 0 : tid;
#ifdef _OPENMP
        if (tid < 0) t = omp_get_thread_num();
#endif
        gv_split *fb = &fbest[f];
        memset(fb, 0, sizeof *fb);
        fb->feature = -1;
        if (e->cons_allow && !e->cons_allow[f]) continue; /* interaction constraints */
        double *hf = h + (e->use_touched ? e->touched_off[f] : e->hist_off[f]);
        const int cons = cfg->monotone != NULL;
        if (e->quant && !e->X->mappers[f].is_categorical && !cfg->random_thresholds && !cons) {
            scan_numeric_newton_q(e, f, gv_qhist(e, h, f), minus ? gv_qhist(e, minus, f) : NULL,
                                  tot, sp, &e->scratch[t], fb);
            continue;
        }
        if (e->quant) {
            /* the integer records (minus the sibling's), as the doubles the other scans read */
            void *q = gv_qhist(e, h, f);
            const size_t nb = e->X->mappers[f].n_bins;
            if (minus) gv_qsub(e, q, gv_qhist(e, minus, f), nb);
            const double dg = e->in->qscale[0], dh = e->in->qscale[1];
            hf = e->scratch[t].qconv;
            for (size_t b = 0; b < nb; b++) {
                int64_t r[3];
                gv_qrec(e, q, b, r);
                hf[3 * b] = (double)r[0];
                hf[3 * b + 1] = (double)r[1] * dg;
                hf[3 * b + 2] = (double)r[2] * dh;
            }
        } else if (minus) {
            /* the subtraction, feature by feature, right before the scan reads the feature
             * (from L1 instead of from memory after a pass over all features) */
            hist_sub(hf, minus + e->hist_off[f], (size_t)e->X->mappers[f].n_bins * e->S);
        }
        uint32_t *bits = e->fbits + e->fbits_off[f];
        double u = cfg->random_thresholds ? e->rand_u[k] : -1.0;
        if (!e->X->mappers[f].is_categorical) {
            if (cons)
                scan_numeric_cons(e, f, hf, tot, sp_cons, &e->scratch[t], fb);
            else if (cfg->random_thresholds)
                scan_numeric_random(e, f, hf, tot, sp, u, &e->scratch[t], fb);
            else if (cfg->criterion == GV_SPLIT_NEWTON && cfg->stats == GV_STATS_GRAD)
                scan_numeric_newton(e, f, hf, tot, sp, &e->scratch[t], fb);
            else if (cfg->criterion == GV_SPLIT_GINI && cfg->stats == GV_STATS_CLASS &&
                     e->K <= GV_GINI_FAST_K && !(hf[0] > 0))
                scan_numeric_gini(e, f, hf, tot, sp, &e->scratch[t], fb);
            else
                scan_numeric(e, f, hf, tot, sp, &e->scratch[t], fb);
        } else if (cfg->multiway_categorical) {
            scan_multiway(e, f, hf, sp, &e->scratch[t], bits, fb);
        } else {
            scan_partition(e, f, hf, tot, sp, majority, u, &e->scratch[t], bits, fb);
        }
    }
    memset(best, 0, sizeof *best);
    best->feature = -1;
    for (size_t k = 0; k < n_feats; k++) {
        const gv_split *fb = &fbest[feats[k]];
        if (fb->feature < 0) continue;
        if (best->feature < 0 || fb->gain > best->gain + fb->tol) *best = *fb;
    }
    if (best->feature >= 0 && best->type != GV_NODE_NUM) {
        size_t need = e->n_cat_pool + best->cat_len;
        if (need > e->cap_cat_pool) {
            size_t cap = e->cap_cat_pool ? 2 * e->cap_cat_pool : 64;
            while (cap < need) cap *= 2;
            uint32_t *p = gv_realloc_array(e->cat_pool, cap, sizeof *p);
            if (!p) return gv_err_nomem("tree split bitsets");
            e->cat_pool = p;
            e->cap_cat_pool = cap;
        }
        memcpy(e->cat_pool + e->n_cat_pool, e->fbits + e->fbits_off[best->feature],
               best->cat_len * sizeof(uint32_t));
        best->cat_off = e->n_cat_pool;
        e->n_cat_pool = need;
    }
    return GROVE_OK;
}

grove_status gv_split_find(gv_engine *e, double *h, const double *minus, const double *tot,
                           const int32_t *feats, size_t n_feats, gv_split *best)
{
    return split_find(e, e->fbest, -1, h, minus, tot, feats, n_feats, best);
}

grove_status gv_split_find_one(gv_engine *e, int tid, gv_split *fbest, double *h,
                               const double *minus, const double *tot, const int32_t *feats,
                               size_t n_feats, gv_split *best)
{
    return split_find(e, fbest, tid, h, minus, tot, feats, n_feats, best);
}
