/*
 * mathx.c -- the weighted median and quantiles (mathx.h).
 *
 * Pipeline position: core/.
 */
#include "mathx.h"

#include <stdlib.h>

static int cmp_wv(const void *a, const void *b)
{
    double x = ((const gv_wv *)a)->v, y = ((const gv_wv *)b)->v;
    return (x > y) - (x < y);
}

double gv_weighted_quantile(gv_wv *a, size_t n, double q)
{
    qsort(a, n, sizeof *a, cmp_wv);
    double total = 0, acc = 0;
    for (size_t j = 0; j < n; j++) total += a[j].w;
    for (size_t j = 0; j < n; j++) {
        acc += a[j].w;
        if (acc >= q * total) return a[j].v;
    }
    return a[n - 1].v;
}

double gv_weighted_median(gv_wv *a, size_t n) { return gv_weighted_quantile(a, n, 0.5); }
