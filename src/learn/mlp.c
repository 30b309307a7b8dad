/*
 * mlp.c -- a small neural network base learner ("mlp"): one hidden layer, softmax output for K
 * classes or a linear output for regression, weighted loss, L2 penalty, trained by minibatch
 * Adam or SGD with momentum; and its model component (kind "mlp").
 *
 * Pipeline position: learn/; like the linear learners it reads the raw values of
 * gv_fit_input.data through the feature map of linear.h (numeric features standardized with the
 * view's weighted mean and std, categorical features one-hot, missing values at the mean / all
 * zeros), so it is a drop-in base learner for every ensemble ("bagging of networks").
 *
 * Model (x the encoded input, dim columns; H hidden units; O = K outputs, or 1):
 *     a = act(W1 x + b1)        act = relu (max(0, t)) or tanh
 *     z = W2 a + b2             classification: P(k | x) = softmax(z)_k
 *                               regression:     f(x) = y_mean + y_std * z
 * Regression targets are standardized internally (y' = (y - y_mean) / y_std, weighted over the
 * view) so that one learning rate suits every scale; the loss is 1/2 (z - y')^2.
 * Classification loss: -log softmax(z)_y (cross-entropy).
 * Objective, with sample weights w_i (per original row; a row repeated in the view counts once
 * per occurrence) and W = sum_i w_i:
 *     f(theta) = (1/W) [ sum_i w_i loss_i + alpha/2 (||W1||^2 + ||W2||^2) ]
 * which is scikit-learn's MLP objective (mean loss + alpha/(2n) ||W||^2) for unit weights; a row
 * of integer weight m is exactly m duplicated rows in f (the SGD path differs: weights =
 * duplication holds for the objective, approximately for the fitted network).
 * Stochastic gradient of a minibatch B of positions (n positions in the view, Q = sum of the
 * view's weights): g = n / (|B| W) * sum_{i in B} w_i grad loss_i + alpha / W * theta_W, an
 * unbiased estimate of grad f.
 * Solvers: Adam (Kingma & Ba, ICLR 2015; beta1 0.9, beta2 0.999, eps 1e-8) or SGD with
 * momentum mu: v = mu v - eta g, theta += v.
 * Initialization (Glorot & Bengio 2010, as scikit-learn): every weight and bias of a layer
 * uniform in [-b, b], b = sqrt(6 / (fan_in + fan_out)).
 * Stopping (scikit-learn's rule): after mlp.epochs epochs, or once the epoch's objective (the
 * weighted mean loss accumulated during the epoch plus the penalty) has failed to improve on the
 * best so far by mlp.tol for 10 epochs in a row.  A non-finite loss fails the fit
 * (GROVE_ERR_DATA, suggesting a smaller learning rate).
 * Determinism: the initial weights and every epoch's order (a Fisher-Yates shuffle) come from
 * the learner's rng, in that order; every sum runs in a fixed order and training is
 * single-threaded (ensembles train their members in parallel), so the same seed gives the same
 * network for any thread count.
 * File form (docs/model-format.md, "mlp"): n_classes (0 for regression), hidden, activation,
 * mean and std per raw feature (categorical: 0 and 0), w1 (dim * hidden reals, input column
 * major: column c's weights to the hidden units at c * hidden), b1 (hidden), w2 (outputs *
 * hidden, output major), b2 (outputs), y_mean, y_std (classification: 0 and 1), epochs.
 */
#include "linear.h"

#include "../core/params.h"
#include "../core/json.h"
#include "../core/mathx.h"

#include <math.h>
#include <string.h>

enum { ACT_RELU = 0, ACT_TANH = 1 };
static const char *const act_names[] = {"relu", "tanh"};

#define NO_CHANGE_EPOCHS 10
#define STACK_UNITS 256

typedef struct gv_mlp {
    gv_linear_map map; /* owned */
    int n_classes;     /* K >= 2, or 0 for regression */
    size_t n_out;      /* K, or 1 */
    size_t hidden;     /* H >= 1 */
    int activation;    /* ACT_RELU or ACT_TANH */
    double *theta;     /* [P] owned: w1 [dim * H] | b1 [H] | w2 [n_out * H] | b2 [n_out] */
    size_t P;
    double y_mean, y_std;
    int64_t epochs; /* epochs run */
} gv_mlp;

/* Offsets of the blocks of theta. */
typedef struct layout {
    size_t w1, b1, w2, b2, P;
} layout;

static int make_layout(size_t dim, size_t H, size_t n_out, layout *l)
{
    size_t a, b;
    if (gv_mul_size(dim, H, &a) != 0 || gv_mul_size(n_out, H, &b) != 0) return -1;
    l->w1 = 0;
    l->b1 = a;
    if (a > SIZE_MAX / 4 - H) return -1;
    l->w2 = a + H;
    if (l->w2 > SIZE_MAX / 4 - b) return -1;
    l->b2 = l->w2 + b;
    l->P = l->b2 + n_out;
    return 0;
}

static void mlp_free(void *impl)
{
    gv_mlp *m = impl;
    if (!m) return;
    gv_linear_map_free(&m->map);
    gv_free(m->theta);
    gv_free(m);
}

static inline double activate(int act, double t)
{
    return act == ACT_RELU ? (t > 0 ? t : 0) : tanh(t);
}

/* d act / d t expressed through a = act(t). */
static inline double activate_deriv(int act, double a) { return act == ACT_RELU ? (a > 0) : 1 - a * a; }

/* Adds input entry v of feature f (encoded, see linear.h) times the column's weights to h[H]. */
static inline void add_input(const gv_linear_map *map, size_t f, double v, const double *w1,
                             size_t H, double *h)
{
    const double *w;
    if (map->is_categorical[f]) {
        if (!(v >= 0)) return;
        w = w1 + (map->offset[f] + (size_t)v) * H;
        for (size_t j = 0; j < H; j++) h[j] += w[j];
    } else if (v != 0) {
        w = w1 + map->offset[f] * H;
        for (size_t j = 0; j < H; j++) h[j] += v * w[j];
    }
}

/* The hidden activations a[H] (input added feature by feature) and outputs z[n_out]. */
static void output_layer(const double *theta, const layout *l, size_t H, size_t n_out, int act,
                         double *a, double *z)
{
    for (size_t j = 0; j < H; j++) a[j] = activate(act, a[j]);
    for (size_t o = 0; o < n_out; o++) {
        const double *w = theta + l->w2 + o * H;
        double s = theta[l->b2 + o];
        for (size_t j = 0; j < H; j++) s += w[j] * a[j];
        z[o] = s;
    }
}

/* Softmax of z[K] in place; stable; a NaN score gives the uniform distribution. */
static void softmax_inplace(double *z, size_t K)
{
    double mx = -INFINITY;
    int nan = 0;
    for (size_t k = 0; k < K; k++) {
        if (isnan(z[k])) nan = 1;
        if (z[k] > mx) mx = z[k];
    }
    if (nan || !isfinite(mx)) {
        for (size_t k = 0; k < K; k++) z[k] = 1.0 / (double)K;
        return;
    }
    double s = 0;
    for (size_t k = 0; k < K; k++) s += (z[k] = exp(z[k] - mx));
    for (size_t k = 0; k < K; k++) z[k] /= s;
}

/* ---------------------------------------------------------------------------------------------
 * Training
 * ------------------------------------------------------------------------------------------ */

typedef struct trainer {
    const gv_linear_map *map;
    size_t n, F, H, n_out;
    int act, K;
    layout l;
    double *enc;   /* [n * F] encoded rows */
    double *y;     /* [n] class index or standardized target */
    double *q;     /* [n] weight / w_scale */
    double q_sum, W, alpha;
} trainer;

/* Adds the gradient of q_i * loss_i at position i into grad (scaled by `scale`); returns
 * q_i * loss_i.  a, z, da are scratch ([H], [n_out], [H]). */
static double backprop(const trainer *t, const double *theta, size_t i, double scale,
                       double *grad, double *a, double *z, double *da)
{
    const size_t H = t->H, O = t->n_out;
    const double *x = t->enc + i * t->F;
    const layout *l = &t->l;
    memcpy(a, theta + l->b1, H * sizeof *a);
    for (size_t f = 0; f < t->F; f++) add_input(t->map, f, x[f], theta + l->w1, H, a);
    output_layer(theta, l, H, O, t->act, a, z);
    double loss;
    if (t->K >= 2) {
        size_t y = (size_t)t->y[i];
        double mx = z[0], se = 0;
        for (size_t k = 1; k < O; k++)
            if (z[k] > mx) mx = z[k];
        for (size_t k = 0; k < O; k++) se += exp(z[k] - mx);
        double lse = mx + log(se);
        loss = lse - z[y];
        /* dloss/dz_k = softmax_k - [k = y] */
        for (size_t k = 0; k < O; k++) z[k] = exp(z[k] - lse) - (k == y);
    } else {
        double r = z[0] - t->y[i];
        loss = 0.5 * r * r;
        z[0] = r; /* dloss/dz */
    }
    double s = scale * t->q[i];
    /* output layer: dW2[o][j] = dz_o a_j, db2 = dz; hidden: da_j = sum_o dz_o W2[o][j] */
    for (size_t j = 0; j < H; j++) da[j] = 0;
    for (size_t o = 0; o < O; o++) {
        double dz = s * z[o];
        const double *w = theta + l->w2 + o * H;
        double *g = grad + l->w2 + o * H;
        grad[l->b2 + o] += dz;
        for (size_t j = 0; j < H; j++) {
            g[j] += dz * a[j];
            da[j] += dz * w[j];
        }
    }
    for (size_t j = 0; j < H; j++) da[j] *= activate_deriv(t->act, a[j]);
    for (size_t j = 0; j < H; j++) grad[l->b1 + j] += da[j];
    /* dW1[c][j] = x_c da_j, column by column */
    for (size_t f = 0; f < t->F; f++) {
        double v = x[f];
        if (t->map->is_categorical[f]) {
            if (!(v >= 0)) continue;
            double *g = grad + l->w1 + (t->map->offset[f] + (size_t)v) * H;
            for (size_t j = 0; j < H; j++) g[j] += da[j];
        } else if (v != 0) {
            double *g = grad + l->w1 + t->map->offset[f] * H;
            for (size_t j = 0; j < H; j++) g[j] += v * da[j];
        }
    }
    return t->q[i] * loss;
}

/* Checks labels and weights of the view (as gv_linear_data_build does); *w_max the largest
 * weight. */
static grove_status check_input(const gv_fit_input *in, double *w_max)
{
    *w_max = 0;
    for (size_t p = 0; p < in->n_rows; p++) {
        size_t r = in->rows ? in->rows[p] : p;
        double y = in->y[r];
        if (in->n_classes >= 2) {
            if (!(y >= 0 && y < in->n_classes && y == floor(y)))
                return gv_err(GROVE_ERR_DATA, "row %zu: label %g is not a class index in [0, %d)",
                              r, y, in->n_classes);
        } else if (!isfinite(y)) {
            return gv_err(GROVE_ERR_DATA, "row %zu: target %g is not finite", r, y);
        }
        double w = in->weight ? in->weight[r] : 1;
        if (!(w >= 0 && isfinite(w)))
            return gv_err(GROVE_ERR_DATA,
                          "row %zu: sample weight %g is not a finite non-negative number", r, w);
        if (w > *w_max) *w_max = w;
    }
    if (!(*w_max > 0)) return gv_err(GROVE_ERR_DATA, "mlp: every training row has sample weight 0");
    return GROVE_OK;
}

grove_status gv_mlp_fit(const gv_fit_input *in, gv_rng *rng, gv_component *out)
{
    out->vt = NULL;
    out->impl = NULL;
    const grove_dataset *d = in->data;
    const grove_params *p = in->params;
    if (in->n_rows == 0) return gv_err(GROVE_ERR_DATA, "mlp: no rows to train on");
    double w_max;
    grove_status st = check_input(in, &w_max);
    if (st != GROVE_OK) return st;

    trainer t;
    memset(&t, 0, sizeof t);
    gv_mlp *m = gv_calloc(1, sizeof *m);
    double *grad = NULL, *mom = NULL, *vel = NULL, *scratch = NULL;
    size_t *order = NULL;
    if (!m) return gv_err_nomem("a neural network");
    if ((st = gv_linear_map_init(&m->map, d->schema)) != GROVE_OK) goto done;
    m->n_classes = in->n_classes >= 2 ? in->n_classes : 0;
    m->n_out = m->n_classes ? (size_t)m->n_classes : 1;
    m->hidden = (size_t)gv_param_int(p, GV_P_MLP_HIDDEN);
    m->activation = (int)gv_param_int(p, GV_P_MLP_ACTIVATION);
    m->y_mean = 0;
    m->y_std = 1;
    layout l;
    if (make_layout(m->map.dim, m->hidden, m->n_out, &l) != 0) {
        st = gv_err(GROVE_ERR_DATA, "mlp: too many weights (%zu inputs x %zu hidden units)",
                    m->map.dim, m->hidden);
        goto done;
    }
    m->P = l.P;

    size_t n = in->n_rows, F = d->schema->n_features, n_enc;
    if (gv_mul_size(n, F, &n_enc) != 0) {
        st = gv_err(GROVE_ERR_DATA, "mlp: rows x features overflows");
        goto done;
    }
    int e;
    frexp(w_max, &e); /* q = w / 2^e < 1: no sum overflows (linear.h) */
    t.map = &m->map;
    t.n = n;
    t.F = F;
    t.H = m->hidden;
    t.n_out = m->n_out;
    t.act = m->activation;
    t.K = m->n_classes;
    t.l = l;
    t.enc = gv_malloc_array(n_enc ? n_enc : 1, sizeof *t.enc);
    t.y = gv_malloc_array(n, sizeof *t.y);
    t.q = gv_malloc_array(n, sizeof *t.q);
    order = gv_malloc_array(n, sizeof *order);
    m->theta = gv_malloc_array(l.P, sizeof *m->theta);
    grad = gv_malloc_array(l.P, sizeof *grad);
    mom = gv_calloc(l.P, sizeof *mom);
    vel = gv_calloc(l.P, sizeof *vel);
    scratch = gv_malloc_array(2 * t.H + t.n_out, sizeof *scratch);
    if (!t.enc || !t.y || !t.q || !order || !m->theta || !grad || !mom || !vel || !scratch) {
        st = gv_err_nomem("a neural network");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        size_t r = in->rows ? in->rows[i] : i;
        t.q[i] = ldexp(in->weight ? in->weight[r] : 1, -e);
        t.q_sum += t.q[i];
        t.y[i] = in->y[r];
        order[i] = i;
    }
    gv_linear_map_fit(&m->map, d, in->rows, n, t.q);
    for (size_t i = 0; i < n; i++) {
        size_t r = in->rows ? in->rows[i] : i;
        for (size_t f = 0; f < F; f++) t.enc[i * F + f] = gv_linear_encode(&m->map, f, gv_value(d, f, r));
    }
    if (!m->n_classes) {
        /* y' = (y - mean) / std, weighted over the view; std 0 (a constant target) -> 1 */
        double sy = 0, ss = 0;
        for (size_t i = 0; i < n; i++) sy += t.q[i] * t.y[i];
        m->y_mean = sy / t.q_sum;
        for (size_t i = 0; i < n; i++) ss += t.q[i] * (t.y[i] - m->y_mean) * (t.y[i] - m->y_mean);
        double sd = sqrt(ss / t.q_sum);
        m->y_std = sd > 0 && isfinite(sd) ? sd : 1;
        for (size_t i = 0; i < n; i++) t.y[i] = (t.y[i] - m->y_mean) / m->y_std;
    }
    t.W = t.q_sum; /* in units of 2^e: the objective below is divided by the same */
    t.alpha = ldexp(gv_param_double(p, GV_P_MLP_ALPHA), -e);

    /* Glorot-uniform initialization, layer by layer: weights, then biases */
    double b1 = sqrt(6.0 / (double)(m->map.dim + t.H)), b2 = sqrt(6.0 / (double)(t.H + t.n_out));
    for (size_t j = 0; j < l.w2; j++) m->theta[j] = (2 * gv_rng_uniform(rng) - 1) * b1;
    for (size_t j = l.w2; j < l.P; j++) m->theta[j] = (2 * gv_rng_uniform(rng) - 1) * b2;

    int64_t epochs = gv_param_int(p, GV_P_MLP_EPOCHS);
    size_t bs = (size_t)gv_param_int(p, GV_P_MLP_BATCH_SIZE);
    if (bs > n) bs = n;
    double eta = gv_param_double(p, GV_P_MLP_LEARNING_RATE);
    double tol = gv_param_double(p, GV_P_MLP_TOL);
    double mu = gv_param_double(p, GV_P_MLP_MOMENTUM);
    int adam = gv_param_int(p, GV_P_MLP_SOLVER) == 0;
    const double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
    double pow1 = 1, pow2 = 1, best = INFINITY;
    int no_change = 0;
    double *a = scratch, *da = scratch + t.H, *z = scratch + 2 * t.H;
    for (int64_t ep = 0; ep < epochs; ep++) {
        gv_rng_shuffle(rng, order, n);
        double loss = 0;
        for (size_t b0 = 0; b0 < n; b0 += bs) {
            size_t B = n - b0 < bs ? n - b0 : bs;
            memset(grad, 0, l.P * sizeof *grad);
            /* g = n / (|B| W) sum_B q_i grad loss_i + alpha / W theta_W */
            double scale = (double)n / ((double)B * t.W);
            for (size_t k = 0; k < B; k++)
                loss += backprop(&t, m->theta, order[b0 + k], scale, grad, a, z, da);
            double reg = t.alpha / t.W;
            for (size_t j = l.w1; j < l.b1; j++) grad[j] += reg * m->theta[j];
            for (size_t j = l.w2; j < l.b2; j++) grad[j] += reg * m->theta[j];
            if (adam) {
                pow1 *= beta1;
                pow2 *= beta2;
                double step = eta * sqrt(1 - pow2) / (1 - pow1);
                for (size_t j = 0; j < l.P; j++) {
                    mom[j] = beta1 * mom[j] + (1 - beta1) * grad[j];
                    vel[j] = beta2 * vel[j] + (1 - beta2) * grad[j] * grad[j];
                    m->theta[j] -= step * mom[j] / (sqrt(vel[j]) + eps);
                }
            } else {
                for (size_t j = 0; j < l.P; j++) {
                    vel[j] = mu * vel[j] - eta * grad[j];
                    m->theta[j] += vel[j];
                }
            }
        }
        double pen = 0;
        for (size_t j = l.w1; j < l.b1; j++) pen += m->theta[j] * m->theta[j];
        for (size_t j = l.w2; j < l.b2; j++) pen += m->theta[j] * m->theta[j];
        double obj = (loss + 0.5 * t.alpha * pen) / t.W;
        m->epochs = ep + 1;
        if (!isfinite(obj)) {
            st = gv_err(GROVE_ERR_DATA,
                        "mlp: training diverged in epoch %lld (the loss is not finite); lower "
                        "mlp.learning_rate",
                        (long long)(ep + 1));
            goto done;
        }
        if (tol > 0) {
            no_change = obj > best - tol ? no_change + 1 : 0;
            if (obj < best) best = obj;
            if (no_change >= NO_CHANGE_EPOCHS) break;
        }
    }
    for (size_t j = 0; j < l.P; j++)
        if (!isfinite(m->theta[j])) {
            st = gv_err(GROVE_ERR_DATA, "mlp: training diverged (a weight is not finite); lower "
                                        "mlp.learning_rate");
            goto done;
        }
    out->vt = &gv_mlp_component;
    out->impl = m;
    m = NULL;
done:
    mlp_free(m);
    gv_free(t.enc);
    gv_free(t.y);
    gv_free(t.q);
    gv_free(order);
    gv_free(grad);
    gv_free(mom);
    gv_free(vel);
    gv_free(scratch);
    return st;
}

/* ---------------------------------------------------------------------------------------------
 * The component
 * ------------------------------------------------------------------------------------------ */

static void mlp_predict_row(const void *impl, const grove_dataset *d, size_t i, double *out)
{
    const gv_mlp *m = impl;
    const size_t H = m->hidden;
    double stack_a[STACK_UNITS];
    double *a = H <= STACK_UNITS ? stack_a : gv_malloc_array(H, sizeof *a);
    if (!a) { /* no memory for the scratch: a prediction that says so */
        for (size_t o = 0; o < m->n_out; o++) out[o] = m->n_classes ? 1.0 / (double)m->n_out : NAN;
        return;
    }
    layout l;
    make_layout(m->map.dim, H, m->n_out, &l);
    memcpy(a, m->theta + l.b1, H * sizeof *a);
    for (size_t f = 0; f < m->map.n_features; f++)
        add_input(&m->map, f, gv_linear_encode(&m->map, f, gv_value(d, f, i)), m->theta + l.w1, H,
                  a);
    output_layer(m->theta, &l, H, m->n_out, m->activation, a, out);
    if (m->n_classes)
        softmax_inplace(out, m->n_out);
    else
        out[0] = gv_clamp_finite(m->y_mean + m->y_std * out[0]);
    if (a != stack_a) gv_free(a);
}

static json_t *mlp_to_json(const void *impl)
{
    const gv_mlp *m = impl;
    layout l;
    make_layout(m->map.dim, m->hidden, m->n_out, &l);
    json_t *obj = json_object();
    if (!obj) return NULL;
    int bad = json_object_set_new(obj, "n_classes", json_integer(m->n_classes));
    bad |= json_object_set_new(obj, "hidden", json_integer((json_int_t)m->hidden));
    bad |= json_object_set_new(obj, "activation", json_string(act_names[m->activation]));
    bad |= json_object_set_new(obj, "mean", gv_json_real_array(m->map.mean, m->map.n_features));
    bad |= json_object_set_new(obj, "std", gv_json_real_array(m->map.std, m->map.n_features));
    bad |= json_object_set_new(obj, "w1", gv_json_real_array(m->theta + l.w1, l.b1 - l.w1));
    bad |= json_object_set_new(obj, "b1", gv_json_real_array(m->theta + l.b1, l.w2 - l.b1));
    bad |= json_object_set_new(obj, "w2", gv_json_real_array(m->theta + l.w2, l.b2 - l.w2));
    bad |= json_object_set_new(obj, "b2", gv_json_real_array(m->theta + l.b2, l.P - l.b2));
    bad |= json_object_set_new(obj, "y_mean", json_real(m->y_mean));
    bad |= json_object_set_new(obj, "y_std", json_real(m->y_std));
    bad |= json_object_set_new(obj, "epochs", json_integer((json_int_t)m->epochs));
    if (bad) {
        json_decref(obj);
        return NULL;
    }
    return obj;
}

/* Whether every output stays finite for any input: the encoded inputs are bounded
 * (GV_LINEAR_ENCODED_MAX, a category's column 1), so each hidden unit's sum is within |b1| plus
 * the |weights| times those bounds, its activation within that (relu) or 1 (tanh), and each
 * output within |b2| + sum |w2| times the activations' bounds; a regression's y_mean + y_std
 * times it is then at worst +-inf, which prediction takes to +-DBL_MAX.
 * GROVE_ERR_MODEL naming the unit whose bound is not finite. */
static grove_status output_bound(const gv_mlp *m)
{
    const size_t H = m->hidden;
    layout l;
    if (make_layout(m->map.dim, H, m->n_out, &l) != 0) return GROVE_OK; /* (checked on reading) */
    double out_max = 0;
    for (size_t o = 0; o < m->n_out; o++) {
        double bo = fabs(m->theta[l.b2 + o]);
        for (size_t j = 0; j < H; j++) {
            double a = fabs(m->theta[l.b1 + j]);
            for (size_t f = 0; f < m->map.n_features; f++) {
                const size_t off = m->map.offset[f];
                if (m->map.is_categorical[f]) {
                    double mx = 0;
                    for (size_t c = 0; c < m->map.width[f]; c++)
                        mx = fmax(mx, fabs(m->theta[l.w1 + (off + c) * H + j]));
                    a += mx;
                } else {
                    a += GV_LINEAR_ENCODED_MAX * fabs(m->theta[l.w1 + off * H + j]);
                }
            }
            if (!isfinite(a))
                return gv_err(GROVE_ERR_MODEL, "weights: hidden unit %zu's sum can overflow for "
                              "some input (|b1| + sum |w1| x %g is not finite)", j,
                              GV_LINEAR_ENCODED_MAX);
            bo += fabs(m->theta[l.w2 + o * H + j]) * (m->activation == ACT_RELU ? a : 1.0);
        }
        out_max = fmax(out_max, bo);
    }
    if (!isfinite(out_max))
        return gv_err(GROVE_ERR_MODEL, "weights: an output can overflow for some input (its "
                      "bound |b2| + sum |w2| x the hidden units' bounds is not finite)");
    return GROVE_OK;
}

static grove_status mlp_validate(const void *impl, const grove_schema *schema)
{
    const gv_mlp *m = impl;
    if (m->n_classes) {
        if (schema->task != GROVE_CLASSIFICATION || (size_t)m->n_classes != schema->classes.n)
            return gv_err(GROVE_ERR_MODEL,
                          "n_classes: %d classes, but the schema has %zu (task %s)", m->n_classes,
                          schema->classes.n,
                          schema->task == GROVE_CLASSIFICATION ? "classification" : "regression");
    } else if (schema->task != GROVE_REGRESSION) {
        return gv_err(GROVE_ERR_MODEL, "n_classes: 0 (regression) in a classification model");
    }
    if (m->map.n_features != schema->n_features)
        return gv_err(GROVE_ERR_MODEL, "mean: %zu features, the schema has %zu",
                      m->map.n_features, schema->n_features);
    for (size_t f = 0; f < m->map.n_features; f++) {
        int cat = schema->is_categorical[f] != 0;
        size_t width = cat ? schema->categories[f].n : 1;
        if ((m->map.is_categorical[f] != 0) != cat || m->map.width[f] != width)
            return gv_err(GROVE_ERR_MODEL, "feature %zu: kind or category count differs from the "
                                           "schema", f);
        if (!isfinite(m->map.mean[f]) || !(m->map.std[f] >= 0) || !isfinite(m->map.std[f]))
            return gv_err(GROVE_ERR_MODEL, "mean/std of feature %zu: must be finite, std >= 0", f);
        if (cat && (m->map.mean[f] != 0 || m->map.std[f] != 0))
            return gv_err(GROVE_ERR_MODEL, "mean/std of categorical feature %zu: must be 0", f);
    }
    for (size_t j = 0; j < m->P; j++)
        if (!isfinite(m->theta[j])) return gv_err(GROVE_ERR_MODEL, "weights: a non-finite number");
    if (!isfinite(m->y_mean) || !(m->y_std > 0) || !isfinite(m->y_std))
        return gv_err(GROVE_ERR_MODEL, "y_mean/y_std: must be finite with y_std > 0");
    if (m->n_classes && (m->y_mean != 0 || m->y_std != 1))
        return gv_err(GROVE_ERR_MODEL, "y_mean/y_std: must be 0 and 1 for classification");
    return output_bound(m);
}

static const char *const mlp_fields[] = {"kind", "n_classes", "hidden", "activation", "mean",
                                         "std", "w1", "b1", "w2", "b2", "y_mean", "y_std",
                                         "epochs"};

static grove_status mlp_from_json(const json_t *obj, const gv_model_ctx *ctx, void **out)
{
    *out = NULL;
    grove_status st0 = gv_json_check_fields(obj, mlp_fields, GV_COUNT(mlp_fields), "an mlp");
    if (st0 != GROVE_OK) return st0;
    gv_mlp *m = gv_calloc(1, sizeof *m);
    if (!m) return gv_err_nomem("a neural network");
    int64_t nc, hidden, epochs;
    const char *act;
    const json_t *a;
    layout l;
    grove_status st = gv_json_get_int(obj, "n_classes", 0, 65536, &nc);
    if (st == GROVE_OK && nc == 1) st = gv_err(GROVE_ERR_MODEL, "n_classes: must be 0 or >= 2");
    if (st == GROVE_OK) st = gv_json_get_int(obj, "hidden", 1, 65536, &hidden);
    if (st == GROVE_OK) st = gv_json_get_int(obj, "epochs", 0, INT64_MAX, &epochs);
    if (st == GROVE_OK) st = gv_json_get_string(obj, "activation", &act);
    if (st == GROVE_OK) {
        if (!strcmp(act, "relu"))
            m->activation = ACT_RELU;
        else if (!strcmp(act, "tanh"))
            m->activation = ACT_TANH;
        else
            st = gv_err(GROVE_ERR_MODEL, "activation: must be relu or tanh, got '%s'", act);
    }
    if (st == GROVE_OK) st = gv_json_get_double(obj, "y_mean", &m->y_mean);
    if (st == GROVE_OK) st = gv_json_get_double(obj, "y_std", &m->y_std);
    if (st == GROVE_OK) {
        st = gv_linear_map_init(&m->map, ctx->schema);
        if (st == GROVE_ERR_DATA) st = GROVE_ERR_MODEL;
    }
    if (st != GROVE_OK) goto fail;
    m->n_classes = (int)nc;
    m->n_out = nc ? (size_t)nc : 1;
    m->hidden = (size_t)hidden;
    m->epochs = epochs;
    if (make_layout(m->map.dim, m->hidden, m->n_out, &l) != 0) {
        st = gv_err(GROVE_ERR_MODEL, "hidden: too many weights");
        goto fail;
    }
    m->P = l.P;
    m->theta = gv_malloc_array(l.P, sizeof *m->theta);
    if (!m->theta) {
        st = gv_err_nomem("a neural network");
        goto fail;
    }
    static const char *const blocks[] = {"w1", "b1", "w2", "b2"};
    size_t start[5] = {l.w1, l.b1, l.w2, l.b2, l.P};
    for (int b = 0; b < 4 && st == GROVE_OK; b++)
        if ((st = gv_json_get_array(obj, blocks[b], start[b + 1] - start[b], &a)) == GROVE_OK)
            gv_json_array_values(a, m->theta + start[b], start[b + 1] - start[b]);
    if (st == GROVE_OK && (st = gv_json_get_array(obj, "mean", m->map.n_features, &a)) == GROVE_OK)
        gv_json_array_values(a, m->map.mean, m->map.n_features);
    if (st == GROVE_OK && (st = gv_json_get_array(obj, "std", m->map.n_features, &a)) == GROVE_OK)
        gv_json_array_values(a, m->map.std, m->map.n_features);
    if (st == GROVE_OK) st = mlp_validate(m, ctx->schema);
    if (st == GROVE_OK) {
        *out = m;
        return GROVE_OK;
    }
fail:
    mlp_free(m);
    return st;
}

static grove_status mlp_check(const void *impl, const gv_model_ctx *ctx, size_t n_outputs)
{
    if (ctx->reads_all) *ctx->reads_all = 1; /* every feature, not only split ones */
    (void)ctx; /* reads raw values: no relation to the bin mappers */
    const gv_mlp *m = impl;
    if (m->n_out != n_outputs)
        return gv_err(GROVE_ERR_MODEL, "an mlp with %zu outputs where %zu are expected", m->n_out,
                      n_outputs);
    return GROVE_OK;
}

static json_t *mlp_summary(const void *impl)
{
    const gv_mlp *m = impl;
    return json_pack("{s:s, s:I, s:s, s:I, s:I}", "kind", "mlp", "hidden", (json_int_t)m->hidden,
                     "activation", act_names[m->activation], "n_weights", (json_int_t)m->P,
                     "epochs", (json_int_t)m->epochs);
}

const gv_component_vt gv_mlp_component = {
    .kind = "mlp",
    .predict_row = mlp_predict_row,
    .to_json = mlp_to_json,
    .from_json = mlp_from_json,
    .free = mlp_free,
    .validate = mlp_validate,
    .check = mlp_check,
    .summary = mlp_summary,
};
