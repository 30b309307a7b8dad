/*
 * metric.c -- weighted evaluation metrics on raw scores (loss.h): rmse, mae, logloss, error,
 * exploss, mlogloss, merror, poisson-nloglik, tweedie-nloglik, gamma-deviance and quantile
 * (pinball) as weighted means of a per-row loss, and the weighted AUC.
 *
 * Pipeline position: loss/ (core only).  gbdt logs them per round and stops early on them;
 * eval/ computes its AUC with gv_weighted_auc.
 * Determinism: the weighted means sum rows in blocks of GV_LOSS_SUM_BLOCK, then the blocks in
 * order, so the value does not depend on the number of threads.
 * AUC: the Mann-Whitney statistic, ties counting one half; with unit weights every partial sum
 * is a multiple of 1/2, so it is exact (the same double as the average-rank formula).
 * Data-parallel (gv_metric_value_dist): the weighted means' two sums exact over the ranks (the
 * terms on dist.h's grid), the AUC over all ranks' rows gathered in global row order.
 */
#include "loss.h"

#include "../dist/dist.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Weighted loss of row i for the additive metrics; *wi gets its weight. */
static double row_loss(const gv_metric_in *m, size_t i)
{
    const size_t G = m->G;
    const double *f = m->F + i * G;
    double y = m->y[i];
    /* a log link's prediction is the mean e^F (the model's output) */
    const gv_objective *o = gv_objective_get(m->objective);
    const double yhat = o && o->link == GV_LINK_LOG ? exp(f[0]) : f[0];
    switch (m->metric) {
    case GV_MET_RMSE: return (yhat - y) * (yhat - y);
    case GV_MET_MAE: return fabs(yhat - y);
    case GV_MET_QUANTILE: {
        const double a = m->quantile_alpha;
        return y >= yhat ? a * (y - yhat) : (1 - a) * (yhat - y);
    }
    /* F = log mu: the negative log-likelihoods (XGBoost's poisson-nloglik, tweedie-nloglik)
     * and the gamma deviance, written in F so that no log of a tiny mu is taken */
    case GV_MET_POISSON_NLOGLIK: return exp(f[0]) - y * f[0] + lgamma(y + 1);
    case GV_MET_TWEEDIE_NLOGLIK: {
        const double r = m->tweedie_power;
        return -y * exp((1 - r) * f[0]) / (1 - r) + exp((2 - r) * f[0]) / (2 - r);
    }
    case GV_MET_GAMMA_DEVIANCE: return 2 * (y * exp(-f[0]) - log(y) + f[0] - 1);
    case GV_MET_LOGLOSS: {
        double p = gv_loss_sigmoid(m->objective == GV_OBJ_EXPONENTIAL ? 2 * f[0] : f[0]);
        p = fmin(fmax(p, 1e-15), 1 - 1e-15);
        return y > 0.5 ? -log(p) : -log(1 - p);
    }
    case GV_MET_ERROR: {
        int pred = (m->objective == GV_OBJ_EXPONENTIAL ? 2 * f[0] : f[0]) > 0;
        return pred != (y > 0.5);
    }
    case GV_MET_EXPLOSS: return exp(-(2 * y - 1) * f[0]);
    case GV_MET_MLOGLOSS: {
        double mx = -INFINITY, z = 0;
        for (size_t k = 0; k < G; k++)
            if (f[k] > mx) mx = f[k];
        for (size_t k = 0; k < G; k++) z += exp(f[k] - mx);
        double lp = f[(size_t)y] - mx - log(z);
        return -fmax(lp, log(1e-15));
    }
    case GV_MET_MERROR: {
        size_t best = 0;
        for (size_t k = 1; k < G; k++)
            if (f[k] > f[best]) best = k;
        return best != (size_t)y;
    }
    }
    return 0;
}

/* A score as an unsigned key in the same order: the sign bit flipped for positives, every bit
 * for negatives; -0 is +0 (they compare equal, so they must stay in input order together). */
static inline uint64_t score_key(double s)
{
    uint64_t u;
    if (s == 0) s = 0.0;
    memcpy(&u, &s, sizeof u);
    return u >> 63 ? ~u : u | (uint64_t)1 << 63;
}

typedef struct keyed {
    uint64_t key;
    size_t row;
} keyed;

/* Sorts a[0..n) by key, stably (rows of equal keys keep their order), by least-significant-digit
 * radix passes of 8 bits into tmp and back; a byte that every key shares costs no pass.  O(n)
 * (the comparison sort took 10% of `grove eval` on 1M rows).  Returns the sorted array (a or
 * tmp). */
static keyed *radix_sort(keyed *a, keyed *tmp, size_t n)
{
    size_t count[8][256];
    memset(count, 0, sizeof count);
    for (size_t i = 0; i < n; i++)
        for (unsigned d = 0; d < 8; d++) count[d][(a[i].key >> (8 * d)) & 255]++;
    for (unsigned d = 0; d < 8; d++) {
        size_t *c = count[d];
        if (n == 0 || c[(a[0].key >> (8 * d)) & 255] == n) continue; /* one value: in order */
        size_t pos = 0;
        for (unsigned b = 0; b < 256; b++) {
            size_t k = c[b];
            c[b] = pos;
            pos += k;
        }
        for (size_t i = 0; i < n; i++) tmp[c[(a[i].key >> (8 * d)) & 255]++] = a[i];
        keyed *t = a;
        a = tmp;
        tmp = t;
    }
    return a;
}

grove_status gv_weighted_auc(const double *s, size_t stride, const double *y, const double *w,
                             size_t n, double *out)
{
    keyed *buf = gv_malloc_array(n ? 2 * n : 1, sizeof *buf);
    if (!buf) return gv_err_nomem("the AUC");
    for (size_t i = 0; i < n; i++) {
        buf[i].key = score_key(s[i * stride]);
        buf[i].row = i;
    }
    /* rows by score ascending, ties in row order; a tie group is a run of equal keys */
    const keyed *a = radix_sort(buf, buf + n, n);
    double neg = 0, pos = 0, area = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        double tp = 0, tn = 0;
        while (j < n && a[j].key == a[i].key) {
            size_t r = a[j].row;
            if (y[r] > 0.5) tp += w ? w[r] : 1.0;
            else tn += w ? w[r] : 1.0;
            j++;
        }
        area += tp * (neg + 0.5 * tn);
        neg += tn;
        pos += tp;
        i = j;
    }
    gv_free(buf);
    *out = pos > 0 && neg > 0 ? area / (pos * neg) : NAN;
    return GROVE_OK;
}

grove_status gv_metric_value(const gv_metric_in *m, int n_threads, double *part, double *out)
{
    if (m->metric == GV_MET_AUC) return gv_weighted_auc(m->F, 1, m->y, m->w, m->n, out);
    if (m->metric == GV_MET_NDCG || m->metric == GV_MET_MAP) return gv_rank_metric(m, n_threads, out);
    const long nb = (long)((m->n + GV_LOSS_SUM_BLOCK - 1) / GV_LOSS_SUM_BLOCK);
#ifdef _OPENMP
#pragma omp parallel for num_threads(n_threads) schedule(static) if (nb > 1 && n_threads > 1)
#else
    (void)n_threads;
#endif
    for (long k = 0; k < nb; k++) {
        size_t lo = (size_t)k * GV_LOSS_SUM_BLOCK, hi = lo + GV_LOSS_SUM_BLOCK < m->n ? lo + GV_LOSS_SUM_BLOCK : m->n;
        double s = 0, sw = 0;
        for (size_t i = lo; i < hi; i++) {
            double wi = m->w ? m->w[i] : 1.0;
            s += wi * row_loss(m, i);
            sw += wi;
        }
        part[2 * k] = s;
        part[2 * k + 1] = sw;
    }
    double s = 0, sw = 0;
    for (long k = 0; k < nb; k++) {
        s += part[2 * k];
        sw += part[2 * k + 1];
    }
    double v = sw > 0 ? s / sw : 0.0;
    *out = m->metric == GV_MET_RMSE ? sqrt(v) : v;
    return GROVE_OK;
}

int gv_metric_higher_better(int metric)
{
    return metric == GV_MET_AUC || metric == GV_MET_NDCG || metric == GV_MET_MAP;
}

grove_status gv_metric_value_dist(const gv_metric_in *m, double *out)
{
    const size_t n = m->n;
    if (m->metric == GV_MET_NDCG || m->metric == GV_MET_MAP) return gv_rank_metric_dist(m, 1, out);
    if (m->metric == GV_MET_AUC) { /* the rows of every rank, in global row order */
        double *r = gv_malloc_array(n ? n : 1, 3 * sizeof *r);
        grove_status st = gv_dist_agree(r ? GROVE_OK : gv_err_nomem("the AUC"));
        if (st != GROVE_OK) {
            gv_free(r);
            return st;
        }
        for (size_t i = 0; i < n; i++) {
            r[3 * i] = m->F[i * m->G];
            r[3 * i + 1] = m->y[i];
            r[3 * i + 2] = m->w ? m->w[i] : 1.0;
        }
        void *all = NULL;
        size_t bytes = 0;
        st = gv_dist_allgatherv(r, n * 3 * sizeof *r, &all, &bytes);
        gv_free(r);
        if (st != GROVE_OK) return st;
        const double *a = all;
        size_t N = bytes / (3 * sizeof *a);
        double *yw = gv_malloc_array(N ? N : 1, 2 * sizeof *yw);
        if ((st = gv_dist_agree(yw ? GROVE_OK : gv_err_nomem("the AUC"))) == GROVE_OK) {
            for (size_t i = 0; i < N; i++) {
                yw[i] = a[3 * i + 1];
                yw[N + i] = a[3 * i + 2];
            }
            st = gv_weighted_auc(a, 3, yw, m->w ? yw + N : NULL, N, out);
        }
        gv_free(yw);
        gv_free(all);
        return st;
    }
    double *t = gv_malloc_array(n ? n : 1, 2 * sizeof *t);
    grove_status st = gv_dist_agree(t ? GROVE_OK : gv_err_nomem("a training metric"));
    if (st != GROVE_OK) {
        gv_free(t);
        return st;
    }
    int64_t bad = 0; /* a non-finite term (exploss can overflow): the value is that of one process */
    for (size_t i = 0; i < n; i++) {
        double wi = m->w ? m->w[i] : 1.0;
        t[i] = wi * row_loss(m, i);
        t[n + i] = wi;
        if (!isfinite(t[i])) bad = 1;
    }
    gv_dist_max_i64(&bad, 1);
    double s = INFINITY, sw = 1;
    if (!bad) {
        s = gv_dist_sum_exact(t, n);
        sw = gv_dist_sum_exact(t + n, n);
    }
    gv_free(t);
    double v = sw > 0 ? s / sw : 0.0;
    *out = m->metric == GV_MET_RMSE ? sqrt(v) : v;
    return GROVE_OK;
}
