/*
 * least_squares.c -- weighted least squares with sign constraints by cyclic coordinate descent
 * (the formula, the stopping rule and the handling of missing values: least_squares.h).
 *
 * Pipeline position: learn/.  Used by stacking's linear combiner (ensemble/stacking.c).
 */
#include "least_squares.h"

#include <math.h>
#include <string.h>

void gv_least_squares_free(gv_least_squares *m)
{
    if (!m) return;
    gv_free(m->coef);
    gv_free(m->fill);
    memset(m, 0, sizeof *m);
}

double gv_least_squares_value(const gv_least_squares *m, size_t n_columns, const float *row)
{
    double v = m->intercept;
    for (size_t c = 0; c < n_columns; c++) {
        if (m->coef[c] == 0) continue;
        double x = (double)row[c];
        v += m->coef[c] * (isfinite(x) ? x : m->fill[c]);
    }
    return v;
}

grove_status gv_least_squares_fit(const grove_dataset *X, const double *y, const double *w,
                                  size_t first_nonneg, const char *who, gv_least_squares *out)
{
    memset(out, 0, sizeof *out);
    size_t n = X->n_rows, C = X->schema->n_features;
    out->coef = gv_calloc(C, sizeof *out->coef);
    out->fill = gv_calloc(C, sizeof *out->fill);
    double *xc = gv_malloc_array(n, C * sizeof(double)); /* centred columns */
    double *r = gv_malloc_array(n, sizeof *r), *ss = gv_calloc(C, sizeof *ss);
    grove_status st = GROVE_OK;
    if (!out->coef || !out->fill || !xc || !r || !ss) {
        st = gv_err_nomem("the least-squares fit");
        goto done;
    }
    double W = 0, ym = 0;
    for (size_t i = 0; i < n; i++) {
        W += w[i];
        ym += w[i] * y[i];
    }
    if (!(W > 0)) {
        st = gv_err(GROVE_ERR_DATA, "%s: every training row has sample weight 0", who);
        goto done;
    }
    ym /= W;
    /* fill_c = the weighted mean of the finite values; xc_c = x_c - fill_c; ss_c = sum w xc^2 */
    for (size_t c = 0; c < C; c++) {
        double *col = xc + c * n, sw = 0, sx = 0;
        if (X->schema->is_categorical[c]) {
            for (size_t i = 0; i < n; i++) col[i] = 0;
            continue;
        }
        for (size_t i = 0; i < n; i++) {
            double v = (double)gv_value(X, c, i);
            if (isfinite(v)) {
                sw += w[i];
                sx += w[i] * v;
            }
        }
        out->fill[c] = sw > 0 ? sx / sw : 0;
        for (size_t i = 0; i < n; i++) {
            double v = (double)gv_value(X, c, i);
            col[i] = (isfinite(v) ? v : out->fill[c]) - out->fill[c];
            ss[c] += w[i] * col[i] * col[i];
        }
    }
    for (size_t i = 0; i < n; i++) r[i] = y[i] - ym;
    /* cyclic coordinate descent: beta_c <- beta_c + sum_i w_i xc_ic r_i / ss_c, the minimum
     * along the line (clipped at 0 for constrained columns); the residuals
     * r = y - ym - sum_c beta_c xc_c are kept up to date */
    double scale = 0;
    for (size_t i = 0; i < n; i++) scale += w[i] * r[i] * r[i];
    for (int sweep = 0; sweep < 10000; sweep++) {
        double change = 0;
        for (size_t c = 0; c < C; c++) {
            if (!(ss[c] > 1e-300)) continue;
            const double *col = xc + c * n;
            double g = 0;
            for (size_t i = 0; i < n; i++) g += w[i] * col[i] * r[i];
            double b = out->coef[c] + g / ss[c];
            if (c >= first_nonneg && b < 0) b = 0;
            double delta = b - out->coef[c];
            if (delta == 0) continue;
            for (size_t i = 0; i < n; i++) r[i] -= delta * col[i];
            out->coef[c] = b;
            /* the decrease of the weighted squared error from this step */
            double dec = delta * delta * ss[c];
            if (dec > change) change = dec;
        }
        if (!(change > 1e-14 * (scale > 0 ? scale : 1))) break;
    }
    /* b = ym - sum_c beta_c fill_c */
    out->intercept = ym;
    for (size_t c = 0; c < C; c++) out->intercept -= out->coef[c] * out->fill[c];
    for (size_t c = 0; c < C; c++)
        if (!isfinite(out->coef[c]) || !isfinite(out->fill[c])) {
            st = gv_err(GROVE_ERR_DATA, "%s: the least-squares fit is not finite", who);
            break;
        }
    if (!isfinite(out->intercept) && st == GROVE_OK)
        st = gv_err(GROVE_ERR_DATA, "%s: the least-squares fit is not finite", who);
done:
    gv_free(xc);
    gv_free(r);
    gv_free(ss);
    return st;
}
