/*
 * test_linear.c -- the linear learners (learn/linear.c, perceptron.c, logistic.c).
 *
 *  - Novikoff's theorem: on data separable with margin gamma through the origin, the classic
 *    perceptron makes at most (R / gamma)^2 mistakes, and converges.
 *  - The averaged and pocket variants do at least as well as classic on noisy data (pocket's
 *    training error never exceeds classic's: same trajectory, final vector a candidate).
 *  - Weights = duplication: for the perceptron bit for bit (integer weights summing to the row
 *    count, exact sums -- see perceptron.c), for logistic regression up to the solver's tol.
 *  - Logistic regression against scikit-learn on the same standardized features: binary,
 *    weighted and multinomial (reference numbers below, with the Python that made them).
 *  - Robustness of logistic regression (separable, constant features, one row, extreme weights,
 *    a class without rows); errors for regression tasks, bad labels, zero weights.
 *  - to_json -> text -> from_json gives bit-identical predictions; malformed components are
 *    rejected naming the field; the whole pipeline (grove_train, save, load) works.
 *  - Out-of-memory: every allocation of a fit and of a load may fail without a crash or leak.
 */
#include "check.h"

#include "core/params.h"
#include "data/dataset.h"
#include "learn/linear.h"
#include "model/model.h"

#include <stdarg.h>
#include <unistd.h>

/* ---- helpers ---- */

/* A dataset of n rows from row-major X (n x F); n_cats[f] = 0 for a numeric feature, else the
 * number of categories (values are codes, NaN = missing).  K classes (0: regression). */
static grove_dataset *make_data(size_t n, size_t F, const int *n_cats, int K, const double *X,
                                const double *y)
{
    grove_schema *s = gv_schema_new(F);
    if (!s) return NULL;
    for (size_t f = 0; f < F; f++) {
        if (!n_cats || !n_cats[f]) continue;
        s->is_categorical[f] = 1;
        for (int c = 0; c < n_cats[f]; c++) {
            char name[16];
            snprintf(name, sizeof name, "c%d", c);
            if (gv_dict_add(&s->categories[f], name, strlen(name)) < 0) {
                gv_schema_free(s);
                return NULL;
            }
        }
    }
    s->task = K ? GROVE_CLASSIFICATION : GROVE_REGRESSION;
    for (int k = 0; k < K; k++) {
        char name[16];
        snprintf(name, sizeof name, "%d", k);
        if (gv_dict_add(&s->classes, name, strlen(name)) < 0) {
            gv_schema_free(s);
            return NULL;
        }
    }
    grove_dataset *d = gv_dataset_new(s, n, 1);
    if (!d) return NULL;
    for (size_t i = 0; i < n; i++) {
        for (size_t f = 0; f < F; f++) d->values[f * n + i] = (float)X[i * F + f];
        d->labels[i] = y[i];
    }
    return d;
}

/* New parameters from "key=value" strings (NULL-terminated list). */
static grove_params *make_params(const char *kv, ...)
{
    grove_params *p = NULL;
    if (grove_params_create(&p) != GROVE_OK) return NULL;
    va_list ap;
    va_start(ap, kv);
    for (const char *s = kv; s; s = va_arg(ap, const char *)) CHECK_OK(grove_params_set_pair(p, s));
    va_end(ap);
    return p;
}

static int n_classes_of(const grove_dataset *d)
{
    return d->schema->task == GROVE_CLASSIFICATION ? (int)d->schema->classes.n : 0;
}

/* Fits learner `algo` on the view (rows NULL = all rows) with weights w (NULL = 1). */
static grove_status fit(const char *algo, const grove_dataset *d, const size_t *rows,
                        size_t n_rows, const double *w, const grove_params *p, uint64_t seed,
                        gv_component *out)
{
    gv_fit_input in = {
        .data = d,
        .binned = NULL,
        .rows = rows,
        .n_rows = rows ? n_rows : d->n_rows,
        .weight = w,
        .y = d->labels,
        .n_classes = n_classes_of(d),
        .params = p,
        .n_threads = 1,
    };
    gv_rng rng;
    gv_rng_seed(&rng, seed, 1, 0);
    const gv_learner *l = gv_learner_find(algo);
    if (!l) return gv_err(GROVE_ERR_INTERNAL, "no learner %s", algo);
    return l->fit(&in, &rng, out);
}

/* The component's JSON as canonical text (new string, free()). */
static char *component_text(const gv_component *c)
{
    json_t *obj = c->vt->to_json(c->impl);
    if (!obj) return NULL;
    char *s = json_dumps(obj, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
    json_decref(obj);
    return s;
}

/* Reads number array `field` of the component's JSON into out[0..n); returns its length. */
static size_t component_array(const gv_component *c, const char *field, double *out, size_t n)
{
    json_t *obj = c->vt->to_json(c->impl);
    json_t *a = json_object_get(obj, field);
    size_t len = json_array_size(a);
    for (size_t i = 0; i < len && i < n; i++) out[i] = json_number_value(json_array_get(a, i));
    json_decref(obj);
    return len;
}

static int64_t component_int(const gv_component *c, const char *field)
{
    json_t *obj = c->vt->to_json(c->impl);
    int64_t v = (int64_t)json_integer_value(json_object_get(obj, field));
    json_decref(obj);
    return v;
}

/* The error rate of component c on the rows of d (argmax of its output, lowest on ties). */
static double error_rate(const gv_component *c, const grove_dataset *d)
{
    int K = n_classes_of(d);
    double out[16];
    size_t wrong = 0;
    for (size_t i = 0; i < d->n_rows; i++) {
        c->vt->predict_row(c->impl, d, i, out);
        int best = 0;
        for (int k = 1; k < K; k++)
            if (out[k] > out[best]) best = k;
        wrong += best != (int)d->labels[i];
    }
    return (double)wrong / (double)d->n_rows;
}

static double gauss(gv_rng *r)
{
    double u1 = gv_rng_uniform(r), u2 = gv_rng_uniform(r);
    return sqrt(-2 * log(1 - u1)) * cos(6.283185307179586 * u2);
}

/* ---- Novikoff's bound ---- */

static void test_novikoff(void)
{
    static const double margins[] = {0.05, 0.1, 0.2, 0.3};
    for (uint64_t seed = 1; seed <= 6; seed++) {
        for (size_t mi = 0; mi < sizeof margins / sizeof margins[0]; mi++) {
            double gamma = margins[mi];
            size_t d = 2 + (size_t)(seed % 5), n = 300;
            gv_rng rng;
            gv_rng_seed(&rng, seed, 77, mi);
            double u[8], norm = 0;
            for (size_t j = 0; j < d; j++) {
                u[j] = gauss(&rng);
                norm += u[j] * u[j];
            }
            for (size_t j = 0; j < d; j++) u[j] /= sqrt(norm);
            double *X = malloc(n * d * sizeof *X), *y = malloc(n * sizeof *y);
            double R = 0, true_margin = INFINITY;
            for (size_t i = 0; i < n;) {
                double *x = X + i * d, m = 0, r2 = 0;
                for (size_t j = 0; j < d; j++) {
                    x[j] = 2 * gv_rng_uniform(&rng) - 1;
                    m += u[j] * x[j];
                    r2 += x[j] * x[j];
                }
                if (fabs(m) < gamma) continue; /* drop points inside the margin */
                y[i] = m > 0 ? 1 : -1;
                if (sqrt(r2) > R) R = sqrt(r2);
                if (fabs(m) < true_margin) true_margin = fabs(m);
                i++;
            }
            double w[8], w2[8];
            size_t mistakes = 0, mistakes2 = 0;
            CHECK_OK(gv_perceptron_run(X, y, n, d, 1000000, seed, w, &mistakes));
            /* Novikoff: mistakes <= (R / gamma)^2, for the margin asked and the true one */
            double bound = (R / gamma) * (R / gamma);
            double tight = (R / true_margin) * (R / true_margin);
            CHECK((double)mistakes <= bound);
            CHECK((double)mistakes <= tight);
            CHECK(mistakes >= 1);
            /* converged: the final epoch had no mistake, so every point is on its side */
            size_t wrong = 0;
            for (size_t i = 0; i < n; i++) {
                double z = 0;
                for (size_t j = 0; j < d; j++) z += w[j] * X[i * d + j];
                wrong += !(y[i] * z > 0);
            }
            CHECK_EQ_INT(wrong, 0);
            /* deterministic */
            CHECK_OK(gv_perceptron_run(X, y, n, d, 1000000, seed, w2, &mistakes2));
            CHECK_EQ_INT(mistakes2, mistakes);
            CHECK(memcmp(w, w2, d * sizeof *w) == 0);
            free(X);
            free(y);
        }
    }
    double x = 1, yy = 1, w = 0;
    size_t m = 0;
    CHECK_STATUS(gv_perceptron_run(&x, &yy, 0, 1, 1, 0, &w, &m), GROVE_ERR_ARG);
    CHECK_STATUS(gv_perceptron_run(&x, &yy, 1, 1, 0, 0, &w, &m), GROVE_ERR_ARG);
}

/* ---- the variants on noisy data ---- */

/* n rows of d features in [-1, 1], class by a random hyperplane (K = 2) or by the nearest of K
 * random centres, each label replaced by a random class with probability `noise`. */
static grove_dataset *noisy_data(size_t n, size_t d, int K, double noise, uint64_t seed,
                                 uint64_t stream)
{
    gv_rng rng, lab;
    gv_rng_seed(&rng, seed, 91, 0); /* the concept: same for train and test */
    double u[8 * 8];
    for (size_t j = 0; j < (size_t)K * d; j++) u[j] = gauss(&rng);
    gv_rng_seed(&rng, seed, 92, stream);
    gv_rng_seed(&lab, seed, 93, stream);
    double *X = malloc(n * d * sizeof *X), *y = malloc(n * sizeof *y);
    for (size_t i = 0; i < n; i++) {
        double *x = X + i * d;
        for (size_t j = 0; j < d; j++) x[j] = 2 * gv_rng_uniform(&rng) - 1;
        int c;
        if (K == 2) {
            double z = 0.1;
            for (size_t j = 0; j < d; j++) z += u[j] * x[j];
            c = z > 0;
        } else {
            double best = INFINITY;
            c = 0;
            for (int k = 0; k < K; k++) {
                double dist = 0;
                for (size_t j = 0; j < d; j++) {
                    double t = x[j] - 0.5 * u[(size_t)k * d + j];
                    dist += t * t;
                }
                if (dist < best) best = dist, c = k;
            }
        }
        if (gv_rng_uniform(&lab) < noise) c = (int)gv_rng_below(&lab, (uint64_t)K);
        y[i] = c;
    }
    grove_dataset *ds = make_data(n, d, NULL, K, X, y);
    free(X);
    free(y);
    return ds;
}

static void test_variants_noisy(void)
{
    static const char *const variants[] = {"perceptron.variant=classic",
                                           "perceptron.variant=averaged",
                                           "perceptron.variant=pocket"};
    for (int K = 2; K <= 3; K++) {
        double test_err[3] = {0}, train_err[3];
        int seeds = 10;
        for (uint64_t seed = 1; seed <= (uint64_t)seeds; seed++) {
            grove_dataset *train = noisy_data(300, 5, K, 0.2, seed, 0);
            grove_dataset *test = noisy_data(3000, 5, K, 0.0, seed, 1);
            for (int v = 0; v < 3; v++) {
                grove_params *p = make_params(variants[v], "perceptron.epochs=10", NULL);
                gv_component c = {0};
                CHECK_OK(fit("perceptron", train, NULL, 0, NULL, p, seed, &c));
                train_err[v] = error_rate(&c, train);
                test_err[v] += error_rate(&c, test) / seeds;
                CHECK(component_int(&c, "mistakes") > 0);
                CHECK_EQ_INT(component_int(&c, "epochs"), 10); /* noisy: never converges */
                gv_component_free(&c);
                grove_params_free(p);
            }
            /* pocket follows classic's trajectory and its final vector is a candidate */
            CHECK(train_err[2] <= train_err[0]);
            grove_dataset_free(train);
            grove_dataset_free(test);
        }
        fprintf(stderr, "K=%d mean test error: classic %.4f averaged %.4f pocket %.4f\n", K,
                test_err[0], test_err[1], test_err[2]);
        CHECK(test_err[1] <= test_err[0] + 0.005);
        CHECK(test_err[2] <= test_err[0] + 0.005);
    }
}

/* A perceptron on separable data with a categorical feature classifies its training rows (the
 * prediction path encodes rows exactly as training did); its mistakes are recorded. */
static void test_perceptron_separable(void)
{
    size_t n = 200;
    int n_cats[3] = {0, 0, 3};
    double *X = malloc(n * 3 * sizeof *X), *y = malloc(n * sizeof *y);
    gv_rng rng;
    gv_rng_seed(&rng, 5, 1, 0);
    for (size_t i = 0; i < n;) {
        /* unstandardized numeric features (offsets and scales far from 0 and 1) */
        double a = 10 + 5 * gv_rng_uniform(&rng), b = -3 + gv_rng_uniform(&rng);
        int c = (int)gv_rng_below(&rng, 3);
        double z = (a - 12.5) + 2 * (b + 2.5) + (c == 1 ? 1.5 : c == 2 ? -1.5 : 0);
        if (fabs(z) < 0.2) continue; /* keep a margin */
        X[i * 3] = a;
        X[i * 3 + 1] = b;
        X[i * 3 + 2] = c;
        y[i++] = z > 0;
    }
    grove_dataset *d = make_data(n, 3, n_cats, 2, X, y);
    grove_params *p = make_params("perceptron.epochs=10000", NULL);
    gv_component c = {0};
    CHECK_OK(fit("perceptron", d, NULL, 0, NULL, p, 3, &c));
    CHECK_EQ_DBL(error_rate(&c, d), 0);
    CHECK(component_int(&c, "epochs") < 10000);
    CHECK(component_int(&c, "mistakes") > 0);
    /* outputs are hard votes */
    double out[2];
    c.vt->predict_row(c.impl, d, 0, out);
    CHECK(out[0] + out[1] == 1 && (out[0] == 1 || out[1] == 1));
    gv_component_free(&c);
    grove_params_free(p);
    grove_dataset_free(d);
    free(X);
    free(y);
}

/* ---- weights = duplication ---- */

/* 64 rows with small integer features (so every sum of the standardization is exact) and
 * integer weights in {0, 1, 2, 3, ...} summing to 64; the same rows repeated weight times. */
static void test_duplication(void)
{
    enum { N = 64, F = 4 };
    int n_cats[F] = {0, 0, 0, 3};
    for (int K = 2; K <= 3; K++) {
        for (uint64_t seed = 1; seed <= 3; seed++) {
            gv_rng rng;
            gv_rng_seed(&rng, seed, 55, (uint64_t)K);
            double X[N * F], y[N], w[N];
            for (size_t i = 0; i < N; i++) {
                for (size_t f = 0; f < 3; f++) X[i * F + f] = (double)gv_rng_below(&rng, 17) - 8;
                X[i * F + 3] = (double)gv_rng_below(&rng, 3);
                double z = X[i * F] - 0.5 * X[i * F + 1] + X[i * F + 3] - 1;
                y[i] = K == 2 ? (z > 0) != (gv_rng_uniform(&rng) < 0.1)
                              : (double)(z < -3 ? 0 : z < 3 ? 1 : 2);
                w[i] = 1;
            }
            for (int moves = 0; moves < 40; moves++) { /* shift unit weights between rows */
                size_t a = (size_t)gv_rng_below(&rng, N), b = (size_t)gv_rng_below(&rng, N);
                if (w[a] > 0 && a != b) w[a] -= 1, w[b] += 1;
            }
            size_t rows[N], nr = 0;
            for (size_t i = 0; i < N; i++)
                for (int j = 0; j < (int)w[i]; j++) rows[nr++] = i;
            CHECK_EQ_INT(nr, N);
            grove_dataset *d = make_data(N, F, n_cats, K, X, y);
            static const char *const variants[] = {"perceptron.variant=classic",
                                                   "perceptron.variant=averaged",
                                                   "perceptron.variant=pocket"};
            for (int v = 0; v < 3; v++) {
                grove_params *p = make_params(variants[v], "perceptron.epochs=7", NULL);
                gv_component a = {0}, b = {0};
                CHECK_OK(fit("perceptron", d, NULL, 0, w, p, seed, &a));
                CHECK_OK(fit("perceptron", d, rows, nr, NULL, p, seed, &b));
                char *ta = component_text(&a), *tb = component_text(&b);
                CHECK_STR(ta, tb); /* bit for bit: weights, map, mistakes, epochs */
                free(ta);
                free(tb);
                gv_component_free(&a);
                gv_component_free(&b);
                grove_params_free(p);
            }
            /* logistic regression: the same objective, equal up to the solver's tolerance */
            grove_params *p = make_params("logistic.tol=1e-10", "logistic.max_iter=1000", NULL);
            gv_component a = {0}, b = {0};
            CHECK_OK(fit("logistic", d, NULL, 0, w, p, seed, &a));
            CHECK_OK(fit("logistic", d, rows, nr, NULL, p, seed, &b));
            double ca[64], cb[64];
            size_t na = component_array(&a, "coef", ca, 64), nb = component_array(&b, "coef", cb, 64);
            CHECK_EQ_INT(na, nb);
            for (size_t j = 0; j < na && j < 64; j++) CHECK_NEAR(ca[j], cb[j], 1e-8);
            na = component_array(&a, "intercept", ca, 64);
            component_array(&b, "intercept", cb, 64);
            for (size_t j = 0; j < na && j < 64; j++) CHECK_NEAR(ca[j], cb[j], 1e-8);
            CHECK_EQ_INT(component_int(&a, "converged"), 1);
            gv_component_free(&a);
            gv_component_free(&b);
            grove_params_free(p);
            grove_dataset_free(d);
        }
    }
}

/* ---- logistic regression against scikit-learn ----
 *
 * The reference numbers come from scikit-learn 1.2.1 (Debian's /usr/bin/python3), fitted on
 * the features exactly as grove encodes them (float32 values, weighted mean / population std,
 * missing -> 0, one-hot categories in feature order):
 *
 *   import numpy as np
 *   from sklearn.linear_model import LogisticRegression
 *   nan = np.nan
 *   def encode(num, cat, ncat, w):
 *       cols = []
 *       for x in num:
 *           x = np.asarray(x, dtype=np.float32).astype(np.float64)
 *           ok = ~np.isnan(x)
 *           m = np.sum(w[ok] * x[ok]) / np.sum(w[ok])
 *           s = np.sqrt(np.sum(w[ok] * (x[ok] - m) ** 2) / np.sum(w[ok]))
 *           cols.append(np.where(ok, (x - m) / s, 0.0) if s > 0 else np.zeros_like(x))
 *       for c, k in zip(cat, ncat):
 *           c = np.asarray(c, dtype=np.float64)
 *           for j in range(k):
 *               cols.append((c == j).astype(np.float64))
 *       return np.column_stack(cols)
 *   def fit(X, y, w=None):
 *       # newton-cg reaches machine precision here (the default lbfgs stops on scipy's ftol
 *       # near |grad| ~ 1e-5, too loose for a reference); optimality is checked by the
 *       # gradient of C * sum_i w_i loss_i + ||coef||^2 / 2, which must be below 1e-7
 *       a = LogisticRegression(C=1.0, tol=1e-7, max_iter=10000, solver="newton-cg")
 *       return a.fit(X, y, sample_weight=w)
 *   def show(name, a, X):
 *       print(name, "coef", repr(a.coef_.ravel().tolist()))
 *       ic = a.intercept_ - (a.intercept_.mean() if len(a.intercept_) > 2 else 0)
 *       print(name, "intercept", repr(ic.tolist()))
 *       print(name, "proba", repr(a.predict_proba(X).ravel().tolist()))
 *   # binary (columns reordered to grove's feature order: f0, f1, f2 one-hot, f3)
 *   X = encode([f0, f1, f3], [f2], [3], np.ones(12))[:, [0, 1, 3, 4, 5, 2]]
 *   show("binary", fit(X, y), X)
 *   w = np.array([0.5, 2.0, 1.0, 3.0, 0.25, 1.5, 1.0, 2.5, 0.75, 1.0, 4.0, 0.5])
 *   Xw = encode([f0, f1, f3], [f2], [3], w)[:, [0, 1, 3, 4, 5, 2]]
 *   show("weighted", fit(Xw, y, w), Xw)
 *   Xm = encode([g0, g1], [g2], [2], np.ones(15))
 *   show("multinomial", fit(Xm, ym), Xm)
 *
 * with the data of BIN_* and MULTI_* below (f0..f3 = the columns of BIN_X, y = BIN_Y; g0..g2,
 * ym = MULTI_X, MULTI_Y).  scikit-learn's multinomial intercepts are centred (grove centres
 * them; probabilities do not change).
 */
#define NA NAN
static const double BIN_X[12 * 4] = {
    0.5, 1.0, 0, 5,  1.2, 0.2, 1, 5,   -0.3, 0.5, 2, 5,  2.2, -1.5, 0, 5,
    1.9, 2.0, 1, 5,  -1.0, 0.3, 2, 5,  0.1, -0.4, 0, 5,  3.0, 1.1, NA, 5,
    -0.7, 0.9, 1, 5, 1.5, -2.0, 2, 5,  0.8, 0.0, 0, 5,   NA, 0.6, 1, 5};
static const double BIN_Y[12] = {0, 1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0};
static const double BIN_W[12] = {0.5, 2.0, 1.0, 3.0, 0.25, 1.5, 1.0, 2.5, 0.75, 1.0, 4.0, 0.5};
static const int BIN_CATS[4] = {0, 0, 3, 0};
static const double BIN_COEF[6] = {1.4746654431670834,   -0.38018131585353115,
                                   -0.06474508746674662, 0.06944390366788204,
                                   -0.08985324253158947, 0.0};
static const double BIN_INTERCEPT = 0.03547590200595271;
static const double BIN_PROBA[24] = {
    0.6723120531335187,  0.3276879468664813,  0.36365669753977825, 0.6363433024602217,
    0.8242530391136705,  0.17574696088632946, 0.09458753385921004, 0.90541246614079,
    0.31567115694469217, 0.6843288430553078,  0.9114783332993748,  0.08852166670062525,
    0.6700119763256298,  0.3299880236743702,  0.0851544137197604,  0.9148455862802396,
    0.8828204341614,     0.11717956583860002, 0.1744153900151828,  0.8255846099848172,
    0.4983433465319952,  0.5016566534680048,  0.5072956138632994,  0.4927043861367007};
static const double WBIN_COEF[6] = {1.5268281084888111,  -0.509079094505818,
                                    0.22699335598617157, 0.007609710666260116,
                                    -0.3481860408729568, 0.0};
static const double WBIN_INTERCEPT = 1.2821572403103076;
static const double WBIN_PROBA[24] = {
    0.45894865273192553, 0.5410513472680745,  0.22208615149339817, 0.7779138485066018,
    0.7608344880156794,  0.23916551198432057, 0.025657571779912014, 0.974342428220088,
    0.23403318334336176, 0.7659668166566382,  0.8739448697167558,  0.12605513028324417,
    0.4013205413869997,  0.5986794586130003,  0.045433192615766615, 0.9545668073842334,
    0.8203691591679843,  0.1796308408320157,  0.08006216145480272, 0.9199378385451973,
    0.2548064446013666,  0.7451935553986334,  0.27930446459806946, 0.7206955354019305};
static const double MULTI_X[15 * 3] = {
    0.2, 1.1, 0,   1.5, -0.6, 1,  -0.8, 0.3, 1, 2.4, 0.8, 0,  0.9, -1.7, 1,
    -1.3, 2.2, 0,  0.4, NA, 0,    1.8, -0.9, 1, -0.2, 1.4, NA, 2.9, 0.1, 0,
    -1.9, 0.6, 1,  0.7, -1.2, 1,  1.1, 1.9, 0,  -0.5, -0.3, 0, 2.0, 0.5, 1};
static const double MULTI_Y[15] = {0, 1, 0, 2, 1, 0, 2, 1, 0, 2, 0, 1, 2, 0, 1};
static const int MULTI_CATS[3] = {0, 0, 2};
static const double MULTI_COEF[12] = {
    -1.2313361616245369, 0.3849128854583443,  -0.06258881994184551, -0.1284803855328744,
    0.5216296075582811,  -0.733240704754498,  -0.636520017699311,   0.6933225117464336,
    0.7097065540662559,  0.34832781929615425, 0.6991088376411564,   -0.5648421262135592};
static const double MULTI_INTERCEPT[3] = {0.3560644819265451, -0.13008153140132425,
                                          -0.22598295052522085};
static const double MULTI_PROBA[45] = {
    0.5777104163684463,  0.05213396670807904,  0.37015561692347465, 0.07479249820064997,
    0.8247490611784775,  0.10045844062087268,  0.7892443550071541,  0.17392670087947348,
    0.03682894411337242, 0.05315893873487234,  0.1151861381987178,  0.8316549230664099,
    0.059528384721147784, 0.9056953617962655, 0.03477625348258662, 0.9305596735043751,
    0.003906516555290304, 0.0655338099403346, 0.46710127418394504, 0.12242646405823222,
    0.41047226175782264, 0.03973207824182,    0.8770525234725526,  0.08321539828562731,
    0.8089307940651557,  0.05680249890762042,  0.134266707027224,   0.02355978446934694,
    0.19848684848871248, 0.7779533670419405,  0.9541336720241058,  0.03690036952544434,
    0.00896595845044993, 0.1174558464526409,  0.8320172501124599,  0.05052690343489913,
    0.29171369363425287, 0.03819387662959094, 0.6700924297361562,  0.7187850379652755,
    0.1061862029248908,  0.17502875910983384, 0.0935935543185876,  0.6563362207228862,
    0.25007022495852627};

static void check_against(const grove_dataset *d, const double *w, const double *coef,
                          size_t n_coef, const double *intercept, size_t n_vec,
                          const double *proba)
{
    grove_params *p = make_params("logistic.tol=1e-10", "logistic.max_iter=1000", NULL);
    gv_component c = {0};
    CHECK_OK(fit("logistic", d, NULL, 0, w, p, 0, &c));
    if (!c.impl) {
        grove_params_free(p);
        return;
    }
    double got[64];
    CHECK_EQ_INT(component_array(&c, "coef", got, 64), n_coef);
    for (size_t j = 0; j < n_coef; j++) CHECK_NEAR(got[j], coef[j], 1e-7);
    CHECK_EQ_INT(component_array(&c, "intercept", got, 64), n_vec);
    for (size_t k = 0; k < n_vec; k++) CHECK_NEAR(got[k], intercept[k], 1e-7);
    CHECK_EQ_INT(component_int(&c, "converged"), 1);
    int K = n_classes_of(d);
    for (size_t i = 0; i < d->n_rows; i++) {
        double out[8];
        c.vt->predict_row(c.impl, d, i, out);
        for (int k = 0; k < K; k++) CHECK_NEAR(out[k], proba[i * (size_t)K + (size_t)k], 1e-8);
    }
    gv_component_free(&c);
    grove_params_free(p);
}

static void test_logistic_sklearn(void)
{
    grove_dataset *b = make_data(12, 4, BIN_CATS, 2, BIN_X, BIN_Y);
    check_against(b, NULL, BIN_COEF, 6, &BIN_INTERCEPT, 1, BIN_PROBA);
    check_against(b, BIN_W, WBIN_COEF, 6, &WBIN_INTERCEPT, 1, WBIN_PROBA);
    /* the default tolerance (1e-6) is within 1e-4 of the reference */
    gv_component c = {0};
    CHECK_OK(fit("logistic", b, NULL, 0, NULL, NULL, 0, &c));
    double got[8];
    component_array(&c, "coef", got, 8);
    for (size_t j = 0; j < 6; j++) CHECK_NEAR(got[j], BIN_COEF[j], 1e-4);
    gv_component_free(&c);
    grove_dataset_free(b);
    grove_dataset *m = make_data(15, 3, MULTI_CATS, 3, MULTI_X, MULTI_Y);
    check_against(m, NULL, MULTI_COEF, 12, MULTI_INTERCEPT, 3, MULTI_PROBA);
    grove_dataset_free(m);
}

/* ---- robustness of logistic regression ---- */

static int all_finite_probs(const gv_component *c, const grove_dataset *d)
{
    int K = n_classes_of(d);
    for (size_t i = 0; i < d->n_rows; i++) {
        double out[8], s = 0;
        c->vt->predict_row(c->impl, d, i, out);
        for (int k = 0; k < K; k++) {
            if (!(out[k] >= 0 && out[k] <= 1)) return 0;
            s += out[k];
        }
        if (fabs(s - 1) > 1e-12) return 0;
    }
    return 1;
}

static void test_logistic_robust(void)
{
    /* separable: finite weights, the classes told apart */
    double X[8] = {-3, -2, -1, -0.5, 0.5, 1, 2, 3}, y[8] = {0, 0, 0, 0, 1, 1, 1, 1};
    grove_dataset *d = make_data(8, 1, NULL, 2, X, y);
    grove_params *hard = make_params("logistic.C=1e12", "logistic.tol=0", "logistic.max_iter=5000",
                                     NULL);
    gv_component c = {0};
    CHECK_OK(fit("logistic", d, NULL, 0, NULL, hard, 0, &c));
    CHECK(all_finite_probs(&c, d));
    CHECK_EQ_DBL(error_rate(&c, d), 0);
    gv_component_free(&c);
    /* weights of extreme scale: finite, and scale-free together with C */
    double big[8], tiny[8];
    for (int i = 0; i < 8; i++) big[i] = 1e300, tiny[i] = 1e-300;
    CHECK_OK(fit("logistic", d, NULL, 0, big, NULL, 0, &c));
    CHECK(all_finite_probs(&c, d));
    gv_component_free(&c);
    CHECK_OK(fit("logistic", d, NULL, 0, tiny, NULL, 0, &c));
    CHECK(all_finite_probs(&c, d));
    double coef_tiny[1], coef_unit[1];
    component_array(&c, "coef", coef_tiny, 1);
    gv_component_free(&c);
    double mixed[8] = {1e300, 1e-300, 1, 0, 1e300, 5, 1e-300, 1};
    CHECK_OK(fit("logistic", d, NULL, 0, mixed, NULL, 0, &c));
    CHECK(all_finite_probs(&c, d));
    gv_component_free(&c);
    CHECK_OK(fit("logistic", d, NULL, 0, NULL, NULL, 0, &c));
    component_array(&c, "coef", coef_unit, 1);
    CHECK(fabs(coef_tiny[0]) < 1e-250); /* lambda huge: coefficients vanish */
    CHECK(coef_unit[0] > 0.5);
    gv_component_free(&c);
    /* weights x a with C / a: the same problem */
    double w6[8];
    for (int i = 0; i < 8; i++) w6[i] = 1e6;
    grove_params *c6 = make_params("logistic.C=1e-6", "logistic.tol=1e-12", NULL);
    grove_params *c1 = make_params("logistic.tol=1e-12", NULL);
    gv_component a = {0}, b = {0};
    CHECK_OK(fit("logistic", d, NULL, 0, w6, c6, 0, &a));
    CHECK_OK(fit("logistic", d, NULL, 0, NULL, c1, 0, &b));
    double ca[2], cb[2];
    component_array(&a, "coef", ca, 1);
    component_array(&b, "coef", cb, 1);
    component_array(&a, "intercept", ca + 1, 1);
    component_array(&b, "intercept", cb + 1, 1);
    CHECK_NEAR(ca[0], cb[0], 1e-9);
    CHECK_NEAR(ca[1], cb[1], 1e-9);
    gv_component_free(&a);
    gv_component_free(&b);
    /* zero weights = rows left out */
    double wz[8] = {1, 0, 1, 1, 0, 1, 1, 1};
    size_t keep[6] = {0, 2, 3, 5, 6, 7};
    CHECK_OK(fit("logistic", d, NULL, 0, wz, c1, 0, &a));
    CHECK_OK(fit("logistic", d, keep, 6, NULL, c1, 0, &b));
    component_array(&a, "coef", ca, 1);
    component_array(&b, "coef", cb, 1);
    CHECK_NEAR(ca[0], cb[0], 1e-12);
    gv_component_free(&a);
    gv_component_free(&b);
    /* every weight 0: an error, not a NaN */
    double w0[8] = {0};
    CHECK_STATUS(fit("logistic", d, NULL, 0, w0, NULL, 0, &c), GROVE_ERR_DATA);
    CHECK_CONTAINS(grove_last_error(), "weight 0");
    CHECK(c.impl == NULL);
    CHECK_STATUS(fit("perceptron", d, NULL, 0, w0, NULL, 0, &c), GROVE_ERR_DATA);
    double wneg[8] = {1, 1, -1, 1, 1, 1, 1, 1};
    CHECK_STATUS(fit("logistic", d, NULL, 0, wneg, NULL, 0, &c), GROVE_ERR_DATA);
    CHECK_CONTAINS(grove_last_error(), "row 2");
    /* one row: the intercept leans to its class, finitely */
    size_t one = 6;
    CHECK_OK(fit("logistic", d, &one, 1, NULL, NULL, 0, &c));
    CHECK(all_finite_probs(&c, d));
    double out[2];
    c.vt->predict_row(c.impl, d, 0, out);
    CHECK(out[1] > 0.99);
    gv_component_free(&c);
    grove_dataset_free(d);
    /* constant features only: P(class 1) = its weighted frequency */
    double Xc[12] = {3, 7, 3, 7, 3, 7, 3, 7, 3, 7, 3, 7}, yc[6] = {1, 0, 1, 1, 0, 1};
    double wc[6] = {1, 2, 1, 1, 1, 1};
    d = make_data(6, 2, NULL, 2, Xc, yc);
    grove_params *tight = make_params("logistic.tol=1e-12", NULL);
    CHECK_OK(fit("logistic", d, NULL, 0, wc, tight, 0, &c));
    c.vt->predict_row(c.impl, d, 0, out);
    CHECK_NEAR(out[1], 4.0 / 7.0, 1e-9);
    CHECK(all_finite_probs(&c, d));
    gv_component_free(&c);
    CHECK_OK(fit("perceptron", d, NULL, 0, NULL, NULL, 0, &c));
    CHECK(all_finite_probs(&c, d));
    gv_component_free(&c);
    grove_dataset_free(d);
    /* a class without rows (multinomial): finite, and unlikely */
    double Xm[6] = {-1, -0.5, 0, 0.5, 1, 1.5}, ym[6] = {0, 0, 1, 1, 0, 1};
    d = make_data(6, 1, NULL, 3, Xm, ym);
    CHECK_OK(fit("logistic", d, NULL, 0, NULL, NULL, 0, &c));
    CHECK(all_finite_probs(&c, d));
    double out3[3];
    c.vt->predict_row(c.impl, d, 2, out3);
    CHECK(out3[2] < 0.01);
    gv_component_free(&c);
    /* labels that are not class indices */
    d->labels[3] = 7;
    CHECK_STATUS(fit("logistic", d, NULL, 0, NULL, NULL, 0, &c), GROVE_ERR_DATA);
    CHECK_CONTAINS(grove_last_error(), "row 3");
    grove_dataset_free(d);
    /* no features at all (an ensemble may pass such data): the intercepts alone */
    double y0[4] = {1, 0, 1, 1};
    d = make_data(4, 0, NULL, 2, NULL, y0);
    CHECK_OK(fit("logistic", d, NULL, 0, NULL, tight, 0, &c));
    c.vt->predict_row(c.impl, d, 0, out);
    CHECK_NEAR(out[1], 0.75, 1e-9);
    gv_component_free(&c);
    CHECK_OK(fit("perceptron", d, NULL, 0, NULL, NULL, 0, &c));
    CHECK(all_finite_probs(&c, d));
    gv_component_free(&c);
    grove_dataset_free(d);
    /* regression: a classification learner */
    double yr[6] = {0.5, 1.5, 2, 3, 4, 5};
    d = make_data(6, 1, NULL, 0, Xm, yr);
    CHECK_STATUS(fit("perceptron", d, NULL, 0, NULL, NULL, 0, &c), GROVE_ERR_PARAM);
    CHECK_CONTAINS(grove_last_error(), "algo: perceptron is a classification learner");
    CHECK_STATUS(fit("logistic", d, NULL, 0, NULL, NULL, 0, &c), GROVE_ERR_PARAM);
    CHECK_CONTAINS(grove_last_error(), "algo: logistic is a classification learner");
    grove_dataset_free(d);
    grove_params_free(hard);
    grove_params_free(c6);
    grove_params_free(c1);
    grove_params_free(tight);
}

/* ---- JSON: round trip, malformed components ---- */

/* A component read back from its own canonical text. */
static grove_status reload(const gv_component *c, const grove_schema *s, gv_component *out)
{
    char *text = component_text(c);
    json_error_t e;
    json_t *obj = text ? json_loads(text, 0, &e) : NULL;
    free(text);
    out->vt = c->vt;
    out->impl = NULL;
    grove_status st = obj ? c->vt->from_json(obj, &(gv_model_ctx){.schema = s, .minor = 2}, &out->impl) : GROVE_ERR_NOMEM;
    json_decref(obj);
    return st;
}

static void test_round_trip(void)
{
    grove_dataset *b = make_data(12, 4, BIN_CATS, 2, BIN_X, BIN_Y);
    grove_dataset *m = make_data(15, 3, MULTI_CATS, 3, MULTI_X, MULTI_Y);
    /* rows to predict: the training rows and odd values (missing, infinite, bad codes) */
    double odd_b[5 * 4] = {NA, NA, NA, NA, INFINITY, -INFINITY, 7, 1e30,
                           1e38, -1e38, 1.5, 5, -2, 3, -1, 4, 0.25, 0.5, 2, 5};
    double odd_y[5] = {0, 1, 0, 1, 0};
    grove_dataset *ob = make_data(5, 4, BIN_CATS, 2, odd_b, odd_y);
    static const char *const configs[][2] = {
        {"perceptron", "perceptron.variant=classic"},
        {"perceptron", "perceptron.variant=averaged"},
        {"perceptron", "perceptron.variant=pocket"},
        {"logistic", "logistic.C=0.3"},
    };
    for (size_t t = 0; t < sizeof configs / sizeof configs[0]; t++) {
        for (int which = 0; which < 2; which++) {
            grove_dataset *d = which ? m : b;
            grove_params *p = make_params(configs[t][1], NULL);
            gv_component c = {0}, r = {0};
            CHECK_OK(fit(configs[t][0], d, NULL, 0, which ? NULL : BIN_W, p, 9, &c));
            CHECK_OK(reload(&c, d->schema, &r));
            if (!c.impl || !r.impl) {
                grove_params_free(p);
                gv_component_free(&c);
                continue;
            }
            CHECK_STR(c.vt->kind, configs[t][0]);
            int K = n_classes_of(d);
            for (int pass = 0; pass < 2; pass++) {
                const grove_dataset *q = pass ? ob : d;
                if (pass && which) continue; /* odd rows are in the binary schema */
                for (size_t i = 0; i < q->n_rows; i++) {
                    double o1[8], o2[8], s = 0;
                    c.vt->predict_row(c.impl, q, i, o1);
                    r.vt->predict_row(r.impl, q, i, o2);
                    CHECK(memcmp(o1, o2, (size_t)K * sizeof *o1) == 0);
                    for (int k = 0; k < K; k++) s += o1[k];
                    CHECK(fabs(s - 1) <= 1e-12);
                }
            }
            char *t1 = component_text(&c), *t2 = component_text(&r);
            CHECK_STR(t1, t2);
            free(t1);
            free(t2);
            gv_component_free(&c);
            gv_component_free(&r);
            grove_params_free(p);
        }
    }
    grove_dataset_free(b);
    grove_dataset_free(m);
    grove_dataset_free(ob);
}

/* Loads `json` as a component of `vt` with schema s; expects GROVE_ERR_MODEL naming `field`. */
static void expect_bad(const gv_component_vt *vt, const grove_schema *s, json_t *obj,
                       const char *field)
{
    void *impl = (void *)1;
    CHECK_STATUS(vt->from_json(obj, &(gv_model_ctx){.schema = s, .minor = 2}, &impl), GROVE_ERR_MODEL);
    CHECK(impl == NULL);
    CHECK_CONTAINS(grove_last_error(), field);
    json_decref(obj);
}

static void test_malformed(void)
{
    grove_dataset *b = make_data(12, 4, BIN_CATS, 2, BIN_X, BIN_Y);
    gv_component pc = {0}, lr = {0};
    CHECK_OK(fit("perceptron", b, NULL, 0, NULL, NULL, 0, &pc));
    CHECK_OK(fit("logistic", b, NULL, 0, NULL, NULL, 0, &lr));
    if (!pc.impl || !lr.impl) return;
    json_t *good_p = pc.vt->to_json(pc.impl), *good_l = lr.vt->to_json(lr.impl);
    const grove_schema *s = b->schema;
    json_t *o;
#define MUTATE(good, stmt) (o = json_deep_copy(good), (stmt), o)
    expect_bad(pc.vt, s, MUTATE(good_p, json_object_del(o, "coef")), "coef: missing");
    expect_bad(pc.vt, s, MUTATE(good_p, json_array_append_new(json_object_get(o, "coef"),
                                                               json_real(1))),
               "coef: expected 6 entries, got 7");
    expect_bad(pc.vt, s, MUTATE(good_p, json_array_set_new(json_object_get(o, "coef"), 2,
                                                            json_string("x"))),
               "coef[2]: expected a number");
    expect_bad(pc.vt, s, MUTATE(good_p, json_object_set_new(o, "intercept", json_array())),
               "intercept: expected 1 entries");
    expect_bad(pc.vt, s, MUTATE(good_p, json_object_set_new(o, "mean", json_integer(3))),
               "mean: expected an array");
    expect_bad(pc.vt, s, MUTATE(good_p, json_array_set_new(json_object_get(o, "std"), 1,
                                                            json_real(-1))),
               "std[1]: must be >= 0");
    expect_bad(pc.vt, s, MUTATE(good_p, json_array_set_new(json_object_get(o, "mean"), 2,
                                                            json_real(0.5))),
               "mean[2]: a categorical feature");
    expect_bad(pc.vt, s, MUTATE(good_p, json_object_set_new(o, "bogus", json_true())),
               "unknown field 'bogus'");
    expect_bad(pc.vt, s, MUTATE(good_p, json_object_set_new(o, "n_classes", json_integer(3))),
               "n_classes: the schema has 2 classes, got 3");
    expect_bad(pc.vt, s, MUTATE(good_p, json_object_set_new(o, "n_classes", json_string("2"))),
               "n_classes: expected an integer");
    expect_bad(pc.vt, s, MUTATE(good_p, json_object_set_new(o, "variant", json_string("voted"))),
               "variant: expected");
    expect_bad(pc.vt, s, MUTATE(good_p, json_object_set_new(o, "mistakes", json_integer(-1))),
               "mistakes: must be in");
    expect_bad(pc.vt, s, MUTATE(good_p, json_object_del(o, "epochs")), "epochs: missing");
    expect_bad(pc.vt, s, MUTATE(good_p, json_object_set_new(o, "n_iter", json_integer(1))),
               "unknown field 'n_iter'");
    expect_bad(lr.vt, s, MUTATE(good_l, json_object_set_new(o, "converged", json_integer(2))),
               "converged: must be in [0, 1]");
    expect_bad(lr.vt, s, MUTATE(good_l, json_object_set_new(o, "n_iter", json_real(1.5))),
               "n_iter: expected an integer");
    expect_bad(lr.vt, s, MUTATE(good_l, json_object_set_new(o, "variant", json_string("x"))),
               "unknown field 'variant'");
    expect_bad(lr.vt, s, MUTATE(good_l, json_object_del(o, "std")), "std: missing");
    /* a schema of another shape */
    grove_dataset *m = make_data(15, 3, MULTI_CATS, 3, MULTI_X, MULTI_Y);
    expect_bad(lr.vt, m->schema, json_deep_copy(good_l), "n_classes");
    double yr[12] = {0};
    grove_dataset *r = make_data(12, 4, BIN_CATS, 0, BIN_X, yr);
    expect_bad(lr.vt, r->schema, json_deep_copy(good_l), "n_classes");
#undef MUTATE
    /* the unmodified objects load */
    void *impl = NULL;
    CHECK_OK(pc.vt->from_json(good_p, &(gv_model_ctx){.schema = s, .minor = 2}, &impl));
    pc.vt->free(impl);
    CHECK_OK(lr.vt->from_json(good_l, &(gv_model_ctx){.schema = s, .minor = 2}, &impl));
    lr.vt->free(impl);
    json_decref(good_p);
    json_decref(good_l);
    gv_component_free(&pc);
    gv_component_free(&lr);
    grove_dataset_free(b);
    grove_dataset_free(m);
    grove_dataset_free(r);
    /* the registry knows both kinds */
    CHECK(gv_component_kind("perceptron") == &gv_perceptron_component);
    CHECK(gv_component_kind("logistic") == &gv_logistic_component);
}

/* ---- the whole pipeline: grove_train, predict, save, load ---- */

static void test_pipeline(void)
{
    size_t n = 120;
    double *X = malloc(n * 2 * sizeof *X), *y = malloc(n * sizeof *y);
    gv_rng rng;
    gv_rng_seed(&rng, 3, 3, 3);
    for (size_t i = 0; i < n; i++) {
        X[2 * i] = gauss(&rng);
        X[2 * i + 1] = gauss(&rng);
        y[i] = X[2 * i] + X[2 * i + 1] + 0.5 * gauss(&rng) > 0 ? 1 : i % 3 == 0 ? 2 : 0;
    }
    grove_dataset *d = NULL;
    CHECK_OK(grove_dataset_from_array(X, GROVE_FLOAT64, n, 2, y, NULL, NULL, NULL, NULL, &d));
    char dir[] = "/tmp/grove_test_linear_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    static const char *const algos[] = {"algo=perceptron", "algo=logistic"};
    for (int a = 0; a < 2 && d; a++) {
        grove_params *p = make_params(algos[a], "perceptron.variant=averaged", NULL);
        grove_model *m = NULL, *m2 = NULL;
        CHECK_OK(grove_train(d, NULL, p, &m));
        if (m) {
            size_t K = grove_model_n_outputs(m);
            CHECK_EQ_INT(K, 3);
            double *o1 = malloc(n * K * sizeof *o1), *o2 = malloc(n * K * sizeof *o2);
            CHECK_OK(grove_model_predict(m, d, 2, o1, n * K));
            char path[128];
            snprintf(path, sizeof path, "%s/m.json", dir);
            CHECK_OK(grove_model_save(m, path));
            CHECK_OK(grove_model_load(path, &m2));
            if (m2) {
                CHECK_OK(grove_model_predict(m2, d, 1, o2, n * K));
                CHECK(memcmp(o1, o2, n * K * sizeof *o1) == 0);
                CHECK_STR(grove_model_algo(m2), algos[a] + 5);
            }
            char *info = NULL;
            CHECK_OK(grove_model_info_json(m, &info));
            CHECK_CONTAINS(info, a == 0 ? "\"perceptron\"" : "\"logistic\"");
            CHECK_CONTAINS(info, "n_weights");
            grove_string_free(info);
            /* the component's model-level checks */
            CHECK_OK(m->root.vt->validate(m->root.impl, m->schema));
            CHECK_OK(m->root.vt->check(m->root.impl, &(gv_model_ctx){.schema = m->schema, .mappers = m->mappers, .algo = m->algo, .root = m->root.impl, .minor = 2}, 3));
            CHECK_STATUS(m->root.vt->check(m->root.impl, &(gv_model_ctx){.schema = m->schema, .mappers = m->mappers, .algo = m->algo, .root = m->root.impl, .minor = 2}, 2), GROVE_ERR_MODEL);
            CHECK_CONTAINS(grove_last_error(), "3 outputs, 2 expected");
            grove_eval *e = NULL;
            double acc = 0;
            CHECK_OK(grove_model_evaluate(m, d, 1, &e));
            CHECK_OK(grove_eval_get(e, "accuracy", &acc));
            CHECK(acc > 0.6);
            grove_eval_free(e);
            unlink(path);
            free(o1);
            free(o2);
        }
        grove_model_free(m);
        grove_model_free(m2);
        grove_params_free(p);
    }
    rmdir(dir);
    grove_dataset_free(d);
    free(X);
    free(y);
}

/* ---- out of memory ---- */

static void alloc_loop(const char *algo, const grove_dataset *d, const double *w,
                       const grove_params *p)
{
    int done = 0;
    for (long k = 1; k < 100000 && !done; k++) {
        gv_component c = {0}, r = {0};
        gv_alloc_fail_after(k);
        grove_status st = fit(algo, d, NULL, 0, w, p, 1, &c);
        grove_status st2 = GROVE_OK;
        if (st == GROVE_OK) st2 = reload(&c, d->schema, &r);
        gv_alloc_fail_after(0);
        if (st != GROVE_OK) {
            CHECK_EQ_INT(st, GROVE_ERR_NOMEM);
            CHECK(c.impl == NULL);
        } else if (st2 != GROVE_OK) {
            CHECK_EQ_INT(st2, GROVE_ERR_NOMEM);
            CHECK(r.impl == NULL);
        } else {
            done = 1;
        }
        gv_component_free(&c);
        gv_component_free(&r);
    }
    CHECK(done);
}

static void test_out_of_memory(void)
{
    grove_dataset *b = make_data(12, 4, BIN_CATS, 2, BIN_X, BIN_Y);
    grove_dataset *m = make_data(15, 3, MULTI_CATS, 3, MULTI_X, MULTI_Y);
    grove_params *avg = make_params("perceptron.variant=averaged", NULL);
    grove_params *pocket = make_params("perceptron.variant=pocket", NULL);
    alloc_loop("perceptron", b, BIN_W, avg);
    alloc_loop("perceptron", m, NULL, pocket);
    alloc_loop("logistic", b, BIN_W, NULL);
    alloc_loop("logistic", m, NULL, NULL);
    double x = 1, y = 1, w = 0;
    size_t mistakes;
    for (long k = 1; k < 10; k++) {
        gv_alloc_fail_after(k);
        grove_status st = gv_perceptron_run(&x, &y, 1, 1, 3, 0, &w, &mistakes);
        gv_alloc_fail_after(0);
        CHECK(st == GROVE_OK || st == GROVE_ERR_NOMEM);
    }
    grove_params_free(avg);
    grove_params_free(pocket);
    grove_dataset_free(b);
    grove_dataset_free(m);
}

/* ---- parameters ---- */

static void test_params(void)
{
    grove_params *p = NULL;
    CHECK_OK(grove_params_create(&p));
    CHECK_OK(grove_params_set(p, "algo", "perceptron"));
    CHECK_OK(grove_params_set(p, "algo", "logistic"));
    CHECK_STATUS(grove_params_set(p, "perceptron.variant", "voted"), GROVE_ERR_PARAM);
    CHECK_STATUS(grove_params_set(p, "perceptron.epochs", "0"), GROVE_ERR_PARAM);
    CHECK_STATUS(grove_params_set(p, "logistic.C", "0"), GROVE_ERR_PARAM);
    CHECK_STATUS(grove_params_set(p, "logistic.C", "nan"), GROVE_ERR_PARAM);
    CHECK_STATUS(grove_params_set(p, "logistic.max_iter", "0"), GROVE_ERR_PARAM);
    CHECK_STATUS(grove_params_set(p, "logistic.tol", "-1"), GROVE_ERR_PARAM);
    CHECK_EQ_INT(gv_param_int(NULL, GV_P_PERCEPTRON_EPOCHS), 10);
    CHECK_EQ_INT(gv_param_int(NULL, GV_P_PERCEPTRON_VARIANT), GV_PERCEPTRON_CLASSIC);
    CHECK_EQ_DBL(gv_param_double(NULL, GV_P_LOGISTIC_C), 1.0);
    CHECK_EQ_INT(gv_param_int(NULL, GV_P_LOGISTIC_MAX_ITER), 200);
    CHECK_EQ_DBL(gv_param_double(NULL, GV_P_LOGISTIC_TOL), 1e-6);
    grove_params_free(p);
}

int main(void)
{
    test_params();
    test_novikoff();
    test_variants_noisy();
    test_perceptron_separable();
    test_duplication();
    test_logistic_sklearn();
    test_logistic_robust();
    test_round_trip();
    test_malformed();
    test_pipeline();
    test_out_of_memory();
    TEST_MAIN_END();
}
