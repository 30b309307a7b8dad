/*
 * least_squares.h -- weighted least squares with sign constraints: the linear combiner of
 * Breiman (1996, "Stacked regressions"), which stacking's stack.meta=linear fits on the
 * out-of-fold predictions of its learners.
 *
 * Pipeline position: learn/ (reads a dataset's raw values; no bins, no component of its own:
 * stacking stores the fit in its file form as coef, fill and intercept).
 *     min_{b, beta} sum_i w_i (y_i - b - sum_c beta_c x_ic)^2,   beta_c >= 0 for c >= first_nonneg
 * Categorical columns are ignored (beta_c = 0); a missing or non-finite x_ic takes fill_c, the
 * column's weighted mean over its finite values.  Solved by cyclic coordinate descent on the
 * centred columns (each step the exact minimum along one coordinate, clipped at 0 where
 * constrained), until no step lowers the weighted squared error by more than 1e-14 of the
 * centred targets' weighted sum of squares (at most 10,000 sweeps); b = ybar - sum_c beta_c
 * fill_c.  Deterministic: every sum runs in row order.
 */
#ifndef GV_LEAST_SQUARES_H
#define GV_LEAST_SQUARES_H

#include "../data/dataset.h"

typedef struct gv_least_squares {
    double *coef;     /* [n_columns] beta, owned */
    double *fill;     /* [n_columns] the value of a missing x, owned */
    double intercept; /* b */
} gv_least_squares;

/* Fits X's columns (all of X's features) to targets y[n_rows] with weights w[n_rows] (both
 * required) into *out (cleared first; gv_least_squares_free frees it, also after a failure).
 * GROVE_ERR_DATA "WHO: ..." when every weight is 0 or the solution is not finite. */
grove_status gv_least_squares_fit(const grove_dataset *X, const double *y, const double *w,
                                  size_t first_nonneg, const char *who, gv_least_squares *out);

/* b + sum_c beta_c x_c over row[n_columns] (a non-finite x_c counts as fill_c); terms with
 * beta_c = 0 are skipped, in column order. */
double gv_least_squares_value(const gv_least_squares *m, size_t n_columns, const float *row);

void gv_least_squares_free(gv_least_squares *m);

#endif /* GV_LEAST_SQUARES_H */
