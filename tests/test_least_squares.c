/*
 * test_least_squares.c -- weighted least squares with sign constraints (learn/least_squares.c,
 * stacking's linear combiner), against brute force:
 *  - unconstrained: the weighted squared error is the minimum that the normal equations give
 *    (built and solved here by Gaussian elimination with partial pivoting) within 1e-7 of it,
 *    and the coefficients within 1e-3 (coordinate descent stops on the error's decrease, and
 *    two of the columns are correlated);
 *  - constrained (beta_c >= 0): the same against the best of the 2^C unconstrained fits on
 *    every subset of columns that comes out feasible (the active-set characterization of a
 *    convex problem's minimum), and the binding coefficient is exactly 0;
 *  - a missing value is the column's weighted mean of its finite values: the fit equals the fit
 *    on the data with that mean written in;
 *  - all weights 0: GROVE_ERR_DATA naming the caller.
 */
#include "check.h"
#include "fixtures.h"

#include "data/dataset.h"
#include "learn/least_squares.h"

#include <math.h>

#define N 200
#define C 3

static uint64_t state = 42;
static grove_dataset *make(const double x[N][C])
{
    grove_dataset *d = gv_dataset_new(gv_schema_new(C), N, 1);
    for (size_t c = 0; c < C; c++)
        for (size_t i = 0; i < N; i++) d->values[c * N + i] = (float)x[i][c];
    return d;
}

/* The weighted squared error of b + beta x. */
static double sse_of(const grove_dataset *d, const double *y, const double *w, const double *beta,
                     double b)
{
    double sse = 0;
    for (size_t i = 0; i < N; i++) {
        double r = y[i] - b;
        for (size_t c = 0; c < C; c++) r -= beta[c] * (double)gv_value(d, c, i);
        sse += w[i] * r * r;
    }
    return sse;
}

/* Weighted least squares with an intercept on the columns in `mask`, by the normal equations;
 * beta[c] = 0 off the mask.  Returns the weighted squared error. */
static double brute_fit(const grove_dataset *d, const double *y, const double *w, unsigned mask,
                        double *beta, double *b)
{
    size_t cols[C + 1], m = 0;
    for (size_t c = 0; c < C; c++)
        if (mask >> c & 1) cols[m++] = c;
    size_t p = m + 1; /* + intercept, last */
    double A[C + 1][C + 2] = {{0}};
    for (size_t i = 0; i < N; i++) {
        double z[C + 1];
        for (size_t j = 0; j < m; j++) z[j] = (double)gv_value(d, cols[j], i);
        z[m] = 1;
        for (size_t j = 0; j < p; j++) {
            for (size_t k = 0; k < p; k++) A[j][k] += w[i] * z[j] * z[k];
            A[j][p] += w[i] * z[j] * y[i];
        }
    }
    for (size_t j = 0; j < p; j++) { /* elimination with partial pivoting */
        size_t piv = j;
        for (size_t r = j + 1; r < p; r++)
            if (fabs(A[r][j]) > fabs(A[piv][j])) piv = r;
        for (size_t k = 0; k <= p; k++) {
            double t = A[j][k];
            A[j][k] = A[piv][k];
            A[piv][k] = t;
        }
        for (size_t r = 0; r < p; r++) {
            if (r == j) continue;
            double f = A[r][j] / A[j][j];
            for (size_t k = j; k <= p; k++) A[r][k] -= f * A[j][k];
        }
    }
    for (size_t c = 0; c < C; c++) beta[c] = 0;
    for (size_t j = 0; j < m; j++) beta[cols[j]] = A[j][p] / A[j][j];
    *b = A[m][p] / A[m][m];
    return sse_of(d, y, w, beta, *b);
}

int main(void)
{
    double x[N][C], y[N], w[N];
    for (size_t i = 0; i < N; i++) {
        for (size_t c = 0; c < C; c++)
            x[i][c] = 4 * fx_unif(&state) - 1;
        x[i][2] = 0.7 * x[i][0] + 0.3 * fx_unif(&state); /* correlated with column 0 */
        /* column 1 enters with a negative sign: the constraint binds on it */
        y[i] = 1.5 + 2 * x[i][0] - 0.8 * x[i][1] + 0.5 * x[i][2] + 0.2 * (fx_unif(&state) - 0.5);
        w[i] = 0.25 + fx_unif(&state);
    }
    grove_dataset *d = make(x);
    CHECK(d != NULL);
    double beta[C], b;
    gv_least_squares m;

    /* unconstrained (first_nonneg = C) = the normal equations */
    CHECK_OK(gv_least_squares_fit(d, y, w, C, "test", &m));
    double opt = brute_fit(d, y, w, (1u << C) - 1, beta, &b);
    CHECK(beta[1] < -0.5);
    CHECK_NEAR(sse_of(d, y, w, m.coef, m.intercept), opt, 1e-7 * opt);
    for (size_t c = 0; c < C; c++) CHECK_NEAR(m.coef[c], beta[c], 1e-3);
    CHECK_NEAR(m.intercept, b, 1e-3);
    gv_least_squares_free(&m);

    /* every column >= 0: the best feasible fit over the 2^C subsets */
    CHECK_OK(gv_least_squares_fit(d, y, w, 0, "test", &m));
    double best = INFINITY, best_beta[C] = {0}, best_b = 0;
    for (unsigned mask = 0; mask < (1u << C); mask++) {
        double sse = brute_fit(d, y, w, mask, beta, &b);
        int feasible = 1;
        for (size_t c = 0; c < C; c++) feasible &= beta[c] >= 0;
        if (feasible && sse < best) {
            best = sse;
            for (size_t c = 0; c < C; c++) best_beta[c] = beta[c];
            best_b = b;
        }
    }
    CHECK_EQ_DBL(m.coef[1], 0.0);
    CHECK_NEAR(sse_of(d, y, w, m.coef, m.intercept), best, 1e-7 * best);
    for (size_t c = 0; c < C; c++) CHECK_NEAR(m.coef[c], best_beta[c], 1e-3);
    CHECK_NEAR(m.intercept, best_b, 1e-3);
    /* value = b + sum beta x */
    float row[C] = {0.5f, -0.25f, 1.0f};
    CHECK_NEAR(gv_least_squares_value(&m, C, row),
               m.intercept + m.coef[0] * 0.5 + m.coef[1] * -0.25 + m.coef[2] * 1.0, 1e-12);
    gv_least_squares_free(&m);

    /* a missing value = the weighted mean of the column's finite values */
    d->values[0 * N + 7] = NAN;
    double sw = 0, sx = 0;
    for (size_t i = 0; i < N; i++)
        if (i != 7) {
            sw += w[i];
            sx += w[i] * (double)d->values[i];
        }
    CHECK_OK(gv_least_squares_fit(d, y, w, C, "test", &m));
    CHECK_NEAR(m.fill[0], sx / sw, 1e-12);
    float row_nan[C] = {NAN, 0.f, 0.f};
    CHECK_NEAR(gv_least_squares_value(&m, C, row_nan), m.intercept + m.coef[0] * (sx / sw), 1e-12);
    d->values[7] = (float)(sx / sw);
    gv_least_squares m2;
    CHECK_OK(gv_least_squares_fit(d, y, w, C, "test", &m2));
    for (size_t c = 0; c < C; c++) CHECK_NEAR(m.coef[c], m2.coef[c], 1e-6);
    gv_least_squares_free(&m2);
    gv_least_squares_free(&m);

    /* all weights 0 */
    for (size_t i = 0; i < N; i++) w[i] = 0;
    CHECK_STATUS(gv_least_squares_fit(d, y, w, 0, "stacking", &m), GROVE_ERR_DATA);
    CHECK_CONTAINS(grove_last_error(), "stacking: every training row has sample weight 0");
    gv_least_squares_free(&m);
    grove_dataset_free(d);
    TEST_MAIN_END();
}
