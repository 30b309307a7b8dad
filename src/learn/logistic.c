/*
 * logistic.c -- L2-regularized logistic regression ("logistic"), binary and multinomial, and
 * its model component (kind "logistic").
 *
 * Pipeline position: learn/; features come from the linear map of linear.h (standardized
 * numeric features, one-hot categories); also meant as the meta-learner of stacking, so every
 * input (separable classes, constant features, one row, a class without rows, weights of any
 * scale) must give finite weights and probabilities.
 *
 * Model.  Two classes: P(class 1 | x) = sigma(z), z = w.x + b, one vector.  K > 2 classes:
 * P(k | x) = softmax(z)_k, z_k = w_k.x + b_k, K vectors (the multinomial model).
 * Objective (scikit-learn's LogisticRegression, penalty l2, with the same C):
 *     C * sum_i s_i * loss_i + 1/2 * sum_k ||w_k||^2          (intercepts not penalized)
 * with s_i the sample weights and loss_i = -log P(y_i | x_i).  It is minimized divided by
 * C * sum_i s_i, i.e.
 *     f = sum_i p_i * loss_i + lambda/2 * sum_k ||w_k||^2,   p_i = s_i / sum s,
 *     lambda = 1 / (C * sum s),
 * which has the same minimizer and makes the tolerance independent of the data's size and of
 * the weights' scale (scikit-learn >= 1.1 does the same; weights enter as q = s / w_scale,
 * linear.h, so no sum overflows).  Integer weights therefore equal duplicated rows, up to the solver's
 * tolerance.  Gradients: two classes, dloss/dz = -y sigma(-y z) with y = +-1; K classes,
 * dloss/dz_k = softmax(z)_k - [k = y].  The loss is evaluated stably (softplus, log-sum-exp).
 * Solver: L-BFGS (Nocedal & Wright, Numerical Optimization, 2nd ed., algorithms 7.4 and 7.5)
 * with 10 correction pairs, a diagonal initial matrix gamma * D with D_j = 1 / (h_j + lambda)
 * (h_j the loss Hessian's diagonal at the starting point, w = 0: c * sum_i p_i x_ij^2 with
 * c = 1/4 for two classes, (K-1)/K^2 for K), and a backtracking line search on the Armijo
 * condition (c1 = 1e-4); a pair enters the memory only when s.y > 1e-12 ||s|| ||y||.  Why
 * L-BFGS rather than Newton/IRLS: the one-hot columns make the dimension K * (columns + 1)
 * unbounded, and Newton's dense Hessian would be quadratic in it; L-BFGS costs one pass over
 * the rows per evaluation and O(dimension) memory.  It is deterministic (fixed order of every
 * sum) and starts from w = 0, b = 0.
 * Stopping: converged when max_j |df/dtheta_j| <= logistic.tol (scikit-learn's "gtol" on
 * the same normalized objective); otherwise after logistic.max_iter iterations, or when the
 * line search finds no acceptable step, or after ten iterations in a row that improve
 * neither f (beyond its precision) nor the smallest gradient seen.  Near the optimum f cannot
 * resolve decreases below ~1e-16 |f|, which caps a plain Armijo search at gradients near
 * 1e-8; the approximate Wolfe conditions of Hager & Zhang (SIAM J. Optim. 16, 2005) accept a
 * step there on the directional derivative instead, so tight tolerances are reachable.
 * "n_iter" and "converged" are recorded in the component.
 * The multinomial intercepts are identifiable only up to a common shift (their gradients sum
 * to 0, so L-BFGS from 0 keeps their sum at 0); they are centred at the end, which changes no
 * probability.
 * File form (docs/model-format.md): the linear fields (linear.c) plus "n_iter" (>= 0) and
 * "converged" (0 or 1).
 * C export (export_c): the linear model's code (linear.c), then the probabilities.
 */
#include "linear.h"

#include "../core/params.h"
#include "../core/json.h"
#include "../core/mathx.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define LBFGS_M 10

typedef struct gv_logistic {
    gv_linear_model lm; /* first: gv_linear_model_of (perceptron.c) relies on it */
    int64_t n_iter;
    int converged;
} gv_logistic;

/* The optimization problem; theta = [coef (n_vec * dim), intercept (n_vec)]. */
typedef struct problem {
    const gv_linear_map *map;
    size_t n, F, dim, n_vec, P;
    const double *enc;
    const int *y;
    double *p;      /* [n] normalized weights p_i (sum 1), owned by the caller */
    int K;
    double lambda;
    double *z;      /* [K] scratch */
} problem;

/* log(1 + e^t), stably. */
static double softplus(double t) { return t > 0 ? t + log1p(exp(-t)) : log1p(exp(t)); }

/* f(theta) and its gradient (see the file comment). */
static double objective(const problem *pr, const double *theta, double *grad)
{
    size_t nc = pr->n_vec * pr->dim;
    const double *coef = theta, *b = theta + nc;
    double *gc = grad, *gb = grad + nc;
    double f = 0;
    memset(grad, 0, pr->P * sizeof *grad);
    for (size_t i = 0; i < pr->n; i++) {
        double pi = pr->p[i];
        if (pi == 0) continue;
        const double *x = pr->enc + i * pr->F;
        gv_linear_scores_enc(pr->map, coef, b, pr->n_vec, x, pr->z);
        int y = pr->y[i];
        if (pr->n_vec == 1) {
            double ypm = y == 1 ? 1.0 : -1.0, t = -ypm * pr->z[0];
            /* loss = log(1 + e^t), dloss/dz = -y sigma(t) */
            double r = -ypm * gv_sigmoid(t);
            f += pi * softplus(t);
            gv_linear_axpy(pr->map, x, pi * r, gc);
            gb[0] += pi * r;
        } else {
            double m = pr->z[0], se = 0;
            for (int k = 1; k < pr->K; k++)
                if (pr->z[k] > m) m = pr->z[k];
            for (int k = 0; k < pr->K; k++) se += exp(pr->z[k] - m);
            double lse = m + log(se);
            /* loss = logsumexp(z) - z_y, dloss/dz_k = softmax_k - [k = y] */
            f += pi * (lse - pr->z[y]);
            for (int k = 0; k < pr->K; k++) {
                double r = exp(pr->z[k] - lse) - (k == y);
                gv_linear_axpy(pr->map, x, pi * r, gc + (size_t)k * pr->dim);
                gb[k] += pi * r;
            }
        }
    }
    double reg = 0;
    for (size_t j = 0; j < nc; j++) {
        reg += coef[j] * coef[j];
        gc[j] += pr->lambda * coef[j];
    }
    return f + 0.5 * pr->lambda * reg;
}

/* D_j = 1 / (h_j + lambda) (intercepts: 1 / h_j); 1 where that is 0 (a column that is 0 on
 * every row with weight, whose gradient is always 0). */
static void preconditioner(const problem *pr, double *D)
{
    size_t nc = pr->n_vec * pr->dim;
    const gv_linear_map *m = pr->map;
    double c = pr->K == 2 ? 0.25 : (double)(pr->K - 1) / ((double)pr->K * pr->K);
    memset(D, 0, pr->P * sizeof *D);
    for (size_t i = 0; i < pr->n; i++) {
        const double *x = pr->enc + i * pr->F;
        for (size_t f = 0; f < m->n_features; f++) {
            if (m->is_categorical[f]) {
                if (x[f] >= 0) D[m->offset[f] + (size_t)x[f]] += pr->p[i];
            } else {
                D[m->offset[f]] += pr->p[i] * x[f] * x[f];
            }
        }
    }
    for (size_t k = 1; k < pr->n_vec; k++) memcpy(D + k * pr->dim, D, pr->dim * sizeof *D);
    for (size_t j = 0; j < pr->P; j++) {
        double h = j < nc ? c * D[j] + pr->lambda : c;
        D[j] = h > 0 && isfinite(1 / h) ? 1 / h : 1;
    }
}

static double dot(const double *a, const double *b, size_t n)
{
    double s = 0;
    for (size_t j = 0; j < n; j++) s += a[j] * b[j];
    return s;
}

static double max_abs(const double *a, size_t n)
{
    double m = 0;
    for (size_t j = 0; j < n; j++)
        if (!(fabs(a[j]) <= m)) m = fabs(a[j]); /* NaN propagates as NaN */
    return m;
}

/* Minimizes f by L-BFGS from theta = 0; the result in theta[P]. */
static grove_status solve(const problem *pr, int64_t max_iter, double tol, double *theta,
                          int64_t *n_iter, int *converged)
{
    size_t P = pr->P, mp;
    *n_iter = 0;
    *converged = 0;
    if (gv_mul_size(P, LBFGS_M, &mp) != 0)
        return gv_err(GROVE_ERR_DATA, "logistic: too many weights");
    double *g = gv_malloc_array(P, sizeof *g), *gn = gv_malloc_array(P, sizeof *gn);
    double *xn = gv_malloc_array(P, sizeof *xn), *d = gv_malloc_array(P, sizeof *d);
    double *yv = gv_malloc_array(P, sizeof *yv), *D = gv_malloc_array(P, sizeof *D);
    double *S = gv_malloc_array(mp, sizeof *S), *Y = gv_malloc_array(mp, sizeof *Y);
    grove_status st = GROVE_OK;
    if (!g || !gn || !xn || !d || !yv || !D || !S || !Y) {
        st = gv_err_nomem("the logistic regression solver");
        goto done;
    }
    double rho[LBFGS_M], alpha[LBFGS_M];
    memset(theta, 0, P * sizeof *theta);
    preconditioner(pr, D);
    double f = objective(pr, theta, g);
    int head = 0, count = 0, stalls = 0; /* head: the slot of the next pair */
    double gbest = INFINITY;             /* the smallest max |gradient| so far */
    for (;;) {
        double gmax = max_abs(g, P);
        if (gmax <= tol) {
            *converged = 1;
            break;
        }
        if (*n_iter >= max_iter || !isfinite(f) || !(gmax == gmax)) break;
        /* d = -H g by the two-loop recursion, H0 = gamma D */
        memcpy(d, g, P * sizeof *d);
        for (int c = 0; c < count; c++) {
            int i = (head - 1 - c + 2 * LBFGS_M) % LBFGS_M;
            alpha[i] = rho[i] * dot(S + (size_t)i * P, d, P);
            for (size_t j = 0; j < P; j++) d[j] -= alpha[i] * Y[(size_t)i * P + j];
        }
        double gamma = 1;
        if (count > 0) {
            int i = (head - 1 + LBFGS_M) % LBFGS_M;
            const double *yi = Y + (size_t)i * P;
            double yDy = 0;
            for (size_t j = 0; j < P; j++) yDy += yi[j] * D[j] * yi[j];
            if (yDy > 0 && isfinite(yDy)) gamma = (1 / rho[i]) / yDy;
        }
        for (size_t j = 0; j < P; j++) d[j] *= gamma * D[j];
        for (int c = count - 1; c >= 0; c--) {
            int i = (head - 1 - c + 2 * LBFGS_M) % LBFGS_M;
            double beta = rho[i] * dot(Y + (size_t)i * P, d, P);
            for (size_t j = 0; j < P; j++) d[j] += (alpha[i] - beta) * S[(size_t)i * P + j];
        }
        for (size_t j = 0; j < P; j++) d[j] = -d[j];
        double gd = dot(g, d, P);
        if (!(gd < 0) || !isfinite(gd)) {
            /* not a descent direction (rounding): forget the pairs, take -D g */
            count = 0;
            for (size_t j = 0; j < P; j++) d[j] = -D[j] * g[j];
            gd = dot(g, d, P);
            if (!(gd < 0)) break;
        }
        /* backtracking line search: Armijo, f(theta + t d) <= f + 1e-4 t g.d; or, where f can
         * no longer resolve the decrease, Hager & Zhang's approximate Wolfe conditions:
         * f(theta + t d) <= f + feps and 0.9 g.d <= g(theta + t d).d <= -0.8 g.d */
        double t = 1, fn = 0, feps = 16 * DBL_EPSILON * fmax(1, fabs(f));
        int accepted = 0;
        for (int ls = 0; ls < 60 && !accepted; ls++) {
            for (size_t j = 0; j < P; j++) xn[j] = theta[j] + t * d[j];
            fn = objective(pr, xn, gn);
            if (isfinite(fn) && fn <= f + 1e-4 * t * gd) {
                accepted = 1;
            } else if (isfinite(fn) && fn <= f + feps) {
                double gnd = dot(gn, d, P);
                accepted = 0.9 * gd <= gnd && gnd <= -0.8 * gd;
            }
            if (!accepted) t *= 0.5;
        }
        if (!accepted) break;
        /* the pair s = theta_new - theta, y = g_new - g */
        for (size_t j = 0; j < P; j++) {
            d[j] = xn[j] - theta[j];
            yv[j] = gn[j] - g[j];
        }
        double sy = dot(d, yv, P), ss = dot(d, d, P), yy = dot(yv, yv, P);
        if (sy > 1e-12 * sqrt(ss) * sqrt(yy) && isfinite(1 / sy)) {
            memcpy(S + (size_t)head * P, d, P * sizeof *d);
            memcpy(Y + (size_t)head * P, yv, P * sizeof *yv);
            rho[head] = 1 / sy;
            head = (head + 1) % LBFGS_M;
            if (count < LBFGS_M) count++;
        }
        double decrease = f - fn;
        memcpy(theta, xn, P * sizeof *theta);
        memcpy(g, gn, P * sizeof *g);
        f = fn;
        ++*n_iter;
        /* no progress in f (beyond its precision) nor a new smallest gradient, 10 times
         * running */
        double gmax_new = max_abs(g, P);
        stalls = decrease <= feps && !(gmax_new < gbest) ? stalls + 1 : 0;
        if (gmax_new < gbest) gbest = gmax_new;
        if (stalls >= 10) {
            *converged = gmax_new <= tol;
            break;
        }
    }
done:
    gv_free(g);
    gv_free(gn);
    gv_free(xn);
    gv_free(d);
    gv_free(yv);
    gv_free(D);
    gv_free(S);
    gv_free(Y);
    return st;
}

/* ---- the learner ---- */

static void logistic_free(void *impl)
{
    gv_logistic *lr = impl;
    if (!lr) return;
    gv_linear_model_free(&lr->lm);
    gv_free(lr);
}

grove_status gv_logistic_fit(const gv_fit_input *in, gv_rng *rng, gv_component *out)
{
    (void)rng; /* deterministic: no random choice */
    out->vt = NULL;
    out->impl = NULL;
    gv_linear_data ld;
    grove_status st = gv_linear_data_build(in, "logistic", &ld);
    if (st != GROVE_OK) return st;
    double C = gv_param_double(in->params, GV_P_LOGISTIC_C);
    int64_t max_iter = gv_param_int(in->params, GV_P_LOGISTIC_MAX_ITER);
    double tol = gv_param_double(in->params, GV_P_LOGISTIC_TOL);

    gv_logistic *lr = gv_calloc(1, sizeof *lr);
    double *theta = NULL, *z = NULL;
    size_t dim = ld.map.dim, n_vec = gv_linear_n_vec(ld.n_classes), P;
    if (!lr) {
        st = gv_err_nomem("a logistic regression");
        goto done;
    }
    if (gv_mul_size(n_vec, dim + 1, &P) != 0) {
        st = gv_err(GROVE_ERR_DATA, "logistic: too many weights");
        goto done;
    }
    theta = gv_malloc_array(P, sizeof *theta);
    z = gv_malloc_array((size_t)ld.n_classes, sizeof *z);
    if (!theta || !z) {
        st = gv_err_nomem("a logistic regression");
        goto done;
    }
    /* p_i = q_i / sum q; lambda = 1 / (C * sum s) = 1 / (C * w_scale * sum q), computed so
     * it cannot overflow (a lambda beyond 1e300 already zeroes every coefficient) */
    for (size_t i = 0; i < ld.n; i++) ld.q[i] /= ld.q_sum;
    double lambda = 1 / C / ld.w_scale / ld.q_sum;
    if (!(lambda <= 1e300)) lambda = 1e300;
    problem pr = {.map = &ld.map, .n = ld.n, .F = ld.map.n_features, .dim = dim,
                  .n_vec = n_vec, .P = P, .enc = ld.enc, .y = ld.y, .p = ld.q,
                  .K = ld.n_classes, .lambda = lambda, .z = z};
    st = solve(&pr, max_iter, tol, theta, &lr->n_iter, &lr->converged);
    if (st != GROVE_OK) goto done;
    for (size_t j = 0; j < P; j++)
        if (!isfinite(theta[j])) {
            st = gv_err(GROVE_ERR_INTERNAL, "logistic: the solver produced a non-finite weight");
            goto done;
        }
    /* the model takes over the map */
    lr->lm.map = ld.map;
    memset(&ld.map, 0, sizeof ld.map);
    if ((st = gv_linear_model_alloc(&lr->lm, ld.n_classes)) != GROVE_OK) goto done;
    memcpy(lr->lm.coef, theta, n_vec * dim * sizeof *theta);
    memcpy(lr->lm.intercept, theta + n_vec * dim, n_vec * sizeof *theta);
    if (n_vec > 1) {
        double mean = 0;
        for (size_t k = 0; k < n_vec; k++) mean += lr->lm.intercept[k];
        mean /= (double)n_vec;
        for (size_t k = 0; k < n_vec; k++) lr->lm.intercept[k] -= mean;
    }
    out->vt = &gv_logistic_component;
    out->impl = lr;
    lr = NULL;
done:
    logistic_free(lr);
    gv_free(theta);
    gv_free(z);
    gv_linear_data_free(&ld);
    return st;
}

/* ---- the component ---- */

/* Class probabilities from the scores, finite and summing to 1 whatever the scores: a NaN
 * score gives the uniform distribution, +inf scores share the mass. */
static void logistic_predict_row(const void *impl, const grove_dataset *d, size_t i,
                                 double *out)
{
    const gv_logistic *lr = impl;
    int K = lr->lm.n_classes;
    gv_linear_scores(&lr->lm, d, i, out);
    if (K == 2) {
        double z = out[0];
        if (isnan(z)) {
            out[0] = out[1] = 0.5;
        } else {
            out[0] = gv_sigmoid(-z);
            out[1] = gv_sigmoid(z);
        }
        return;
    }
    double m = -INFINITY;
    int nan = 0;
    for (int k = 0; k < K; k++) {
        if (isnan(out[k])) nan = 1;
        if (out[k] > m) m = out[k];
    }
    if (nan || m == -INFINITY) {
        for (int k = 0; k < K; k++) out[k] = 1.0 / K;
        return;
    }
    if (m == INFINITY) {
        int n_inf = 0;
        for (int k = 0; k < K; k++) n_inf += out[k] == INFINITY;
        for (int k = 0; k < K; k++) out[k] = out[k] == INFINITY ? 1.0 / n_inf : 0;
        return;
    }
    double s = 0;
    for (int k = 0; k < K; k++) s += (out[k] = exp(out[k] - m));
    for (int k = 0; k < K; k++) out[k] /= s;
}

static json_t *logistic_to_json(const void *impl)
{
    const gv_logistic *lr = impl;
    json_t *obj = json_object();
    if (!obj) return NULL;
    int bad = gv_linear_model_to_json(&lr->lm, obj);
    bad |= json_object_set_new(obj, "n_iter", json_integer((json_int_t)lr->n_iter));
    bad |= json_object_set_new(obj, "converged", json_integer(lr->converged));
    if (bad) {
        json_decref(obj);
        return NULL;
    }
    return obj;
}

static grove_status logistic_from_json(const json_t *obj, const gv_model_ctx *ctx, void **out)
{
    static const char *const extra[] = {"n_iter", "converged"};
    *out = NULL;
    gv_logistic *lr = gv_calloc(1, sizeof *lr);
    if (!lr) return gv_err_nomem("a logistic regression");
    int64_t conv;
    grove_status st = gv_linear_model_from_json(obj, ctx->schema, extra, 2, &lr->lm);
    if (st == GROVE_OK) st = gv_json_get_int(obj, "n_iter", 0, INT64_MAX, &lr->n_iter);
    if (st == GROVE_OK && (st = gv_json_get_int(obj, "converged", 0, 1, &conv)) == GROVE_OK)
        lr->converged = (int)conv;
    if (st != GROVE_OK) {
        logistic_free(lr);
        return st;
    }
    *out = lr;
    return GROVE_OK;
}

static grove_status logistic_validate(const void *impl, const grove_schema *schema)
{
    const gv_logistic *lr = impl;
    if (lr->n_iter < 0) return gv_err(GROVE_ERR_MODEL, "n_iter: must be >= 0");
    if (lr->converged != 0 && lr->converged != 1)
        return gv_err(GROVE_ERR_MODEL, "converged: must be 0 or 1");
    return gv_linear_model_validate(&lr->lm, schema);
}

static grove_status logistic_check(const void *impl, const gv_model_ctx *ctx,
                                   size_t n_outputs)
{
    if (ctx->reads_all) *ctx->reads_all = 1; /* every feature, not only split ones */
    (void)ctx; /* reads raw values: no relation to the bin mappers */
    return gv_linear_model_check(&((const gv_logistic *)impl)->lm, n_outputs);
}

static json_t *logistic_summary(const void *impl)
{
    const gv_logistic *lr = impl;
    return json_pack("{s:s, s:i, s:I, s:I, s:b}", "kind", "logistic", "n_classes",
                     lr->lm.n_classes, "n_weights",
                     (json_int_t)(lr->lm.n_vec * (lr->lm.map.dim + 1)), "n_iter",
                     (json_int_t)lr->n_iter, "converged", lr->converged);
}

static grove_status logistic_export_c(const void *impl, gv_cgen *g, size_t *id)
{
    return gv_linear_model_export_c(&((const gv_logistic *)impl)->lm, 1, g, id);
}

const gv_component_vt gv_logistic_component = {
    .kind = "logistic",
    .predict_row = logistic_predict_row,
    .to_json = logistic_to_json,
    .from_json = logistic_from_json,
    .free = logistic_free,
    .validate = logistic_validate,
    .check = logistic_check,
    .summary = logistic_summary,
    .export_c = logistic_export_c,
};
