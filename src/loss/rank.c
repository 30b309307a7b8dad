/*
 * rank.c -- learning to rank (loss.h): the gradients of LambdaMART (objective lambdarank) and
 * of RankNet's pairwise logistic loss (rank:pairwise), query by query, and the metrics NDCG@k
 * and MAP@k.
 *
 * Pipeline position: loss/ (core only).  gbdt passes the training data's query groups (rows of
 * a query contiguous, dataset.h's query_ptr); the tree learner then sees gradients as for any
 * other objective.
 * Reference: C. J. C. Burges, "From RankNet to LambdaRank to LambdaMART: An Overview",
 * Microsoft Research MSR-TR-2010-82 (2010).
 *
 * A query's rows sorted by score, descending (ties: row order), position r (0-based) has the
 * discount D(r) = 1 / log2(r + 2); a row of label y the gain 2^y - 1.
 *   rank:pairwise  every pair (i, j) of the query with y_i > y_j, s = F_i - F_j,
 *                  p = 1 / (1 + e^s):  g_i -= p, g_j += p, h_i += p (1 - p), h_j += p (1 - p)
 *   lambdarank     the pairs of rows of different labels with at least one of them among the
 *                  top T = lambdarank_truncation positions, i the higher label, the pair's
 *                  |dNDCG| = |gain_i - gain_j| |D(r_i) - D(r_j)| / maxDCG@T, and with
 *                  p = 1 / (1 + e^s), w = |dNDCG| / (0.01 + |s|) (when the query's scores are
 *                  not all equal; else w = |dNDCG|):  g_i -= w p, g_j += w p,
 *                  h_i, h_j += w p (1 - p); then the query's g and h are multiplied by
 *                  log2(1 + S) / S, S = sum over pairs of 2 w p (LightGBM's lambdarank with
 *                  lambdarank_norm=true, sigmoid 1)
 * each g and h multiplied by the row's weight, rounded once to float.  A query's rows are its
 * own: queries run in parallel in any order, with the same values for any thread count.
 *
 * Metrics (mean over queries, each query counting once):
 *   NDCG@k  DCG@k / maxDCG@k, DCG@k = sum_{r < k} (2^y_(r) - 1) D(r); 1 when maxDCG@k = 0
 *   MAP@k   sum_{r < k, y_(r) > 0} P@(r + 1) / (rows with y > 0), P@n the fraction of the top n
 *           with y > 0; 1 when no row has y > 0 (XGBoost's map@k)
 * Data-parallel (gv_rank_metric_dist, dist/): every query lies whole on one rank (gbdt checks
 * it); the ranks' per-query values are gathered in rank order and added as one process adds
 * them, so the mean does not depend on the rank count.
 */
#include "loss.h"

#include "../dist/dist.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct ranked {
    double s;
    size_t i; /* the row within the query */
} ranked;

/* score descending, then row ascending (a total order: the same sort on any platform) */
static int by_score(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->s != y->s) return x->s > y->s ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

static int by_label(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

static inline double discount(size_t r) { return 1.0 / log2((double)r + 2.0); }
static inline double gain(double y) { return exp2(y) - 1.0; }

/* Sorts with cmp; queries of up to 32 rows by insertion (no calls through qsort).  Both orders
 * used here are total or sort equal keys only (labels), so the result is qsort's. */
#define SMALL_SORT 32
static void sort_ranked(ranked *o, size_t m)
{
    if (m > SMALL_SORT) {
        qsort(o, m, sizeof *o, by_score);
        return;
    }
    for (size_t a = 1; a < m; a++) {
        const ranked x = o[a];
        size_t b = a;
        for (; b > 0 && by_score(&x, &o[b - 1]) < 0; b--) o[b] = o[b - 1];
        o[b] = x;
    }
}

static void sort_labels(double *t, size_t m)
{
    if (m > SMALL_SORT) {
        qsort(t, m, sizeof *t, by_label);
        return;
    }
    for (size_t a = 1; a < m; a++) {
        const double x = t[a];
        size_t b = a;
        for (; b > 0 && t[b - 1] < x; b--) t[b] = t[b - 1];
        t[b] = x;
    }
}

/* maxDCG@k of labels y[0..m) (sorted into tmp). */
static double max_dcg(const double *y, size_t m, size_t k, double *tmp)
{
    for (size_t i = 0; i < m; i++) tmp[i] = y[i];
    sort_labels(tmp, m);
    double d = 0;
    for (size_t r = 0; r < m && r < k; r++) d += gain(tmp[r]) * discount(r);
    return d;
}

/* One query: rows y[0..m), F[0..m) -> g, h [m] (unweighted, double).  o: [m] scratch order,
 * tmp [3 m] (the labels sorted, then each row's gain and each position's discount, computed
 * once a query rather than once a pair: the same values). */
static void query_gradients(int obj, const double *y, const double *F, size_t m,
                            size_t trunc, ranked *o, double *tmp, double *g, double *h)
{
    for (size_t i = 0; i < m; i++) {
        g[i] = h[i] = 0;
        o[i].s = F[i];
        o[i].i = i;
    }
    if (m < 2) return;
    sort_ranked(o, m);
    if (obj == GV_OBJ_RANK_PAIRWISE) {
        for (size_t a = 0; a < m; a++)
            for (size_t b = a + 1; b < m; b++) {
                size_t i = o[a].i, j = o[b].i;
                if (y[i] == y[j]) continue;
                if (y[i] < y[j]) {
                    size_t t = i;
                    i = j;
                    j = t;
                }
                const double p = 1.0 / (1.0 + exp(F[i] - F[j]));
                const double ph = p * (1.0 - p);
                g[i] -= p;
                g[j] += p;
                h[i] += ph;
                h[j] += ph;
            }
        return;
    }
    const double idcg = max_dcg(y, m, trunc, tmp);
    if (!(idcg > 0)) return; /* no relevant row in the top T: nothing to reorder */
    const double inv = 1.0 / idcg;
    const int spread = o[0].s != o[m - 1].s;
    double *gn = tmp + m, *disc = tmp + 2 * m;
    for (size_t i = 0; i < m; i++) {
        gn[i] = gain(y[i]);
        disc[i] = discount(i);
    }
    double sum = 0;
    const size_t top = m < trunc ? m : trunc;
    for (size_t a = 0; a < top; a++)
        for (size_t b = a + 1; b < m; b++) {
            size_t i = o[a].i, j = o[b].i, ri = a, rj = b;
            if (y[i] == y[j]) continue;
            if (y[i] < y[j]) {
                size_t t = i;
                i = j;
                j = t;
                t = ri;
                ri = rj;
                rj = t;
            }
            const double s = F[i] - F[j];
            double dn = fabs(gn[i] - gn[j]) * fabs(disc[ri] - disc[rj]) * inv;
            if (spread) dn /= 0.01 + fabs(s);
            const double p = 1.0 / (1.0 + exp(s));
            const double l = dn * p, lh = dn * p * (1.0 - p);
            g[i] -= l;
            g[j] += l;
            h[i] += lh;
            h[j] += lh;
            sum += 2 * l;
        }
    if (sum > 0) {
        const double f = log2(1.0 + sum) / sum;
        for (size_t i = 0; i < m; i++) {
            g[i] *= f;
            h[i] *= f;
        }
    }
}

int gv_rank_gradients(int obj, const double *y, const double *w, const double *F, size_t n,
                      const size_t *query_ptr, size_t n_queries, const gv_loss_params *lp,
                      int n_threads, double *grad, double *hess)
{
    size_t big = 0;
    for (size_t q = 0; q < n_queries; q++)
        if (query_ptr[q + 1] - query_ptr[q] > big) big = query_ptr[q + 1] - query_ptr[q];
    (void)n;
    const size_t trunc = lp->lambdarank_truncation ? lp->lambdarank_truncation : SIZE_MAX;
    int bad = 0;
    const long nq = (long)n_queries;
#ifdef _OPENMP
#pragma omp parallel num_threads(n_threads) reduction(|:bad) if (n_threads > 1 && nq > 1)
#else
    (void)n_threads;
#endif
    {
        ranked *o = gv_malloc_array(big ? big : 1, sizeof *o);
        double *tmp = gv_malloc_array(big ? big : 1, 5 * sizeof *tmp);
        if (!o || !tmp) bad = 2;
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 16)
#endif
        for (long q = 0; q < nq; q++) {
            if (!o || !tmp) continue;
            const size_t lo = query_ptr[q], m = query_ptr[q + 1] - lo;
            double *g = tmp + 3 * big, *h = tmp + 4 * big;
            query_gradients(obj, y + lo, F + lo, m, trunc, o, tmp, g, h);
            for (size_t i = 0; i < m; i++) {
                const double wi = w ? w[lo + i] : 1.0;
                grad[lo + i] = (double)(float)(wi * g[i]);
                hess[lo + i] = (double)(float)(wi * fmax(h[i], GV_LOSS_HESS_MIN));
                bad |= !(fabs(grad[lo + i]) <= DBL_MAX) || !(hess[lo + i] <= DBL_MAX);
            }
        }
        gv_free(o);
        gv_free(tmp);
    }
    return bad ? 0 : 1;
}

double gv_rank_query_metric(int metric, const double *s, const double *y, size_t m, size_t k)
{
    ranked *o = gv_malloc_array(m ? m : 1, sizeof *o);
    double *tmp = gv_malloc_array(m ? m : 1, sizeof *tmp);
    double v = NAN;
    if (!o || !tmp) goto done;
    for (size_t i = 0; i < m; i++) {
        o[i].s = s[i];
        o[i].i = i;
    }
    sort_ranked(o, m);
    if (metric == GV_MET_NDCG) {
        const double idcg = max_dcg(y, m, k, tmp);
        double dcg = 0;
        for (size_t r = 0; r < m && r < k; r++) dcg += gain(y[o[r].i]) * discount(r);
        v = idcg > 0 ? dcg / idcg : 1.0;
    } else {
        size_t hits = 0, n_rel = 0;
        double ap = 0;
        for (size_t r = 0; r < m; r++) {
            if (!(y[o[r].i] > 0)) continue;
            n_rel++;
            if (r < k) ap += (double)++hits / (double)(r + 1);
        }
        v = n_rel ? ap / (double)n_rel : 1.0;
    }
done:
    gv_free(o);
    gv_free(tmp);
    return v;
}

/* The mean over queries; dist: over every rank's queries, gathered in rank order and added as
 * one process adds them (so the value does not depend on the split). */
static grove_status rank_metric(const gv_metric_in *m, int n_threads, int dist, double *out)
{
    const long nq = (long)m->n_queries;
    double *v = gv_malloc_array(m->n_queries ? m->n_queries : 1, sizeof *v);
    if (!v) return gv_err_nomem("a ranking metric");
#ifdef _OPENMP
#pragma omp parallel for num_threads(n_threads) schedule(dynamic, 16) if (n_threads > 1 && nq > 1)
#else
    (void)n_threads;
#endif
    for (long q = 0; q < nq; q++) {
        const size_t lo = m->query_ptr[q], len = m->query_ptr[q + 1] - lo;
        v[q] = gv_rank_query_metric(m->metric, m->F + lo * m->G, m->y + lo, len, m->at);
    }
    int64_t nomem = 0;
    for (long q = 0; q < nq; q++) nomem |= isnan(v[q]);
    size_t n_all = m->n_queries;
    const double *all = v;
    void *gathered = NULL;
    if (dist) { /* every rank's queries in rank order: one process's sum */
        gv_dist_max_i64(&nomem, 1);
        size_t bytes = 0;
        grove_status st = nomem ? GROVE_OK
                                : gv_dist_allgatherv(v, m->n_queries * sizeof *v, &gathered, &bytes);
        if (st != GROVE_OK) {
            gv_free(v);
            return st;
        }
        all = gathered;
        n_all = bytes / sizeof *v;
    }
    double sum = 0;
    for (size_t q = 0; q < n_all && !nomem; q++) sum += all[q];
    gv_free(gathered);
    gv_free(v);
    if (nomem) return gv_err_nomem("a ranking metric");
    *out = n_all ? sum / (double)n_all : 0.0;
    return GROVE_OK;
}

grove_status gv_rank_metric(const gv_metric_in *m, int n_threads, double *out)
{
    return rank_metric(m, n_threads, 0, out);
}

grove_status gv_rank_metric_dist(const gv_metric_in *m, int n_threads, double *out)
{
    return rank_metric(m, n_threads, 1, out);
}
