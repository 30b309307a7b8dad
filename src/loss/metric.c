/*
 * metric.c -- weighted evaluation metrics on raw scores (loss.h): rmse, mae, logloss, error,
 * exploss, mlogloss, merror as weighted means of a per-row loss, and the weighted AUC.
 *
 * Pipeline position: loss/ (core only).  gbdt logs them per round and stops early on them;
 * eval/ computes its AUC with gv_weighted_auc.
 * Determinism: the weighted means sum rows in blocks of GV_LOSS_SUM_BLOCK, then the blocks in
 * order, so the value does not depend on the number of threads.
 * AUC: the Mann-Whitney statistic, ties counting one half; with unit weights every partial sum
 * is a multiple of 1/2, so it is exact (the same double as the average-rank formula).
 */
#include "loss.h"

#include <math.h>
#include <stdlib.h>

/* Weighted loss of row i for the additive metrics; *wi gets its weight. */
static double row_loss(const gv_metric_in *m, size_t i)
{
    const size_t G = m->G;
    const double *f = m->F + i * G;
    double y = m->y[i];
    switch (m->metric) {
    case GV_MET_RMSE: return (f[0] - y) * (f[0] - y);
    case GV_MET_MAE: return fabs(f[0] - y);
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

typedef struct scored {
    double s, y, w;
} scored;
static int cmp_scored(const void *a, const void *b)
{
    double x = ((const scored *)a)->s, z = ((const scored *)b)->s;
    return (x > z) - (x < z);
}

grove_status gv_weighted_auc(const double *s, size_t stride, const double *y, const double *w,
                             size_t n, double *out)
{
    scored *a = gv_malloc_array(n ? n : 1, sizeof *a);
    if (!a) return gv_err_nomem("the AUC");
    for (size_t i = 0; i < n; i++) {
        a[i].s = s[i * stride];
        a[i].y = y[i];
        a[i].w = w ? w[i] : 1.0;
    }
    qsort(a, n, sizeof *a, cmp_scored);
    double neg = 0, pos = 0, area = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        double tp = 0, tn = 0;
        while (j < n && a[j].s == a[i].s) {
            if (a[j].y > 0.5) tp += a[j].w;
            else tn += a[j].w;
            j++;
        }
        area += tp * (neg + 0.5 * tn);
        neg += tn;
        pos += tp;
        i = j;
    }
    gv_free(a);
    *out = pos > 0 && neg > 0 ? area / (pos * neg) : NAN;
    return GROVE_OK;
}

grove_status gv_metric_value(const gv_metric_in *m, int n_threads, double *part, double *out)
{
    if (m->metric == GV_MET_AUC) return gv_weighted_auc(m->F, 1, m->y, m->w, m->n, out);
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

int gv_metric_higher_better(int metric) { return metric == GV_MET_AUC; }
