/*
 * biasvar.c -- bias-variance decomposition of a learning algorithm's error (grove_biasvar).
 *
 * Pipeline position: eval/, on top of the public training and prediction entry points.
 * The algorithm named by the parameters is trained on R bootstrap replicates D_1..D_R of the
 * training data (n rows drawn with replacement by the stream (seed, GV_STREAM_BIASVAR, r);
 * replicate r trains with seed + r, so randomized learners vary too) and predicts a fixed test
 * set; y(x) is the test label, taken as the noise-free target (so the noise term is 0 and any
 * label noise is counted in the bias).
 *
 * Squared loss (regression), the classical decomposition (Geman, Bienenstock & Doursat 1992):
 *   main prediction  ybar(x) = (1/R) sum_r f_r(x)
 *   bias^2   = mean_x (ybar(x) - y(x))^2
 *   variance = mean_x (1/R) sum_r (f_r(x) - ybar(x))^2
 *   mse      = mean_x (1/R) sum_r (f_r(x) - y(x))^2  = bias^2 + variance  (exactly)
 *
 * Zero-one loss (classification), Domingos (2000), "A unified bias-variance decomposition for
 * zero-one and squared loss", AAAI/ICML 2000, noise-free case:
 *   main prediction  y_m(x) = the mode of f_1(x)..f_R(x) (ties to the lowest class index)
 *   bias      B(x) = [y_m(x) != y(x)]                        (0 or 1)
 *   variance  V(x) = (1/R) #{r : f_r(x) != y_m(x)}
 *   expected loss  L(x) = (1/R) #{r : f_r(x) != y(x)} = B(x) + c(x) V(x),
 *     c(x) = 1 where B(x) = 0, and c(x) = -P_r(f_r(x) = y(x) | f_r(x) != y_m(x)) where
 *     B(x) = 1 (= -1 for two classes)
 * reported as averages over the test set: bias, variance, unbiased variance (mean of V over
 * the rows, counting V only where B = 0), biased variance (V only where B = 1), net variance
 * = unbiased variance + mean_x c(x) V(x) [B = 1] (two classes: unbiased - biased), and
 * error = bias + net variance (an identity, checked by the tests).
 */
#include "../core/params.h"
#include "../core/streams.h"
#include "../data/dataset.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPLIT_INDEX UINT64_C(0xB1A5)

static json_t *num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

/* Draw: holds out 30 % of train's rows (shuffled by the seed) as the test set: *pool gets the
 * rest.  Both new (grove_dataset_free). */
static grove_status hold_out(const grove_dataset *train, uint64_t seed, grove_dataset **pool,
                             grove_dataset **held)
{
    size_t n = train->n_rows, n_test = (size_t)floor(0.3 * (double)n + 0.5);
    if (n_test < 1 || n - n_test < 1)
        return gv_err(GROVE_ERR_DATA, "%s: %zu rows are too few to hold out a test set",
                      train->source, n);
    size_t *rows = gv_malloc_array(n, sizeof *rows);
    if (!rows) return gv_err_nomem("the held-out split");
    for (size_t i = 0; i < n; i++) rows[i] = i;
    gv_rng rng;
    gv_rng_seed(&rng, seed, GV_STREAM_BIASVAR, SPLIT_INDEX);
    gv_rng_shuffle(&rng, rows, n);
    grove_status st = grove_dataset_subset(train, rows + n_test, n - n_test, pool);
    if (st == GROVE_OK) st = grove_dataset_subset(train, rows, n_test, held);
    gv_free(rows);
    return st;
}

/* Draw and predict: replicate r trains on n rows of tr drawn with replacement by the stream
 * (seed, GV_STREAM_BIASVAR, r), with seed + r, and predicts the labels of te into
 * pred[x * R + r]. */
static grove_status predict_replicates(const grove_dataset *tr, const grove_dataset *te,
                                       const grove_params *params, grove_params *rp,
                                       uint64_t seed, size_t R, double *pred)
{
    const size_t n = tr->n_rows, m = te->n_rows;
    size_t *rows = gv_malloc_array(n, sizeof *rows);
    double *ybuf = gv_malloc_array(m, sizeof *ybuf);
    grove_dataset *boot = NULL;
    grove_model *model = NULL;
    grove_status st = GROVE_OK;
    if (!rows || !ybuf) st = gv_err_nomem("the bias-variance replicates");
    for (size_t r = 0; st == GROVE_OK && r < R; r++) {
        gv_rng rng;
        gv_rng_seed(&rng, seed, GV_STREAM_BIASVAR, r);
        for (size_t i = 0; i < n; i++) rows[i] = (size_t)gv_rng_below(&rng, n);
        char seed_text[32];
        snprintf(seed_text, sizeof seed_text, "%llu",
                 (unsigned long long)((seed + r) & UINT64_C(0x7FFFFFFFFFFFFFFF)));
        if ((st = grove_params_set(rp, "seed", seed_text)) != GROVE_OK) break;
        if ((st = grove_dataset_subset(tr, rows, n, &boot)) != GROVE_OK) break;
        st = grove_train(boot, NULL, rp, &model);
        if (st == GROVE_OK) st = grove_model_predict_label(model, te, 0, ybuf, m);
        grove_model_free(model);
        model = NULL;
        grove_dataset_free(boot);
        boot = NULL;
        if (st != GROVE_OK) {
            gv_err_prefix("grove_biasvar: replicate %zu", r + 1);
            break;
        }
        for (size_t x = 0; x < m; x++) pred[x * R + r] = ybuf[x];
        if (gv_progress(params, "replicate", r + 1, R)) st = gv_err(GROVE_ERR_ARG, "cancelled");
    }
    gv_free(rows);
    gv_free(ybuf);
    return st;
}

/* Decompose and report, squared loss (the file comment's first block); 0, or nonzero when out
 * of memory. */
static int decompose_squared(const double *pred, const grove_dataset *te, size_t R, json_t *obj)
{
    const size_t m = te->n_rows;
    double b2 = 0, var = 0, mse = 0;
    for (size_t x = 0; x < m; x++) {
        const double *f = pred + x * R, y = te->labels[x];
        double mean = 0, v = 0, e = 0;
        for (size_t r = 0; r < R; r++) mean += f[r];
        mean /= (double)R;
        for (size_t r = 0; r < R; r++) {
            v += (f[r] - mean) * (f[r] - mean);
            e += (f[r] - y) * (f[r] - y);
        }
        b2 += (mean - y) * (mean - y);
        var += v / (double)R;
        mse += e / (double)R;
    }
    int bad = json_object_set_new(obj, "loss", json_string("squared"));
    bad |= json_object_set_new(obj, "mse", num(mse / (double)m));
    bad |= json_object_set_new(obj, "bias2", num(b2 / (double)m));
    bad |= json_object_set_new(obj, "variance", num(var / (double)m));
    bad |= json_object_set_new(
        obj, "definition",
        json_string("ybar(x) = mean_r f_r(x); bias2 = mean_x (ybar(x) - y(x))^2; variance = "
                    "mean_x mean_r (f_r(x) - ybar(x))^2; mse = bias2 + variance, the test "
                    "label y(x) taken as the noise-free target"));
    bad |= json_object_set_new(
        obj, "reference",
        json_string("Geman, Bienenstock & Doursat (1992), Neural Computation 4(1)"));
    return bad;
}

/* Decompose and report, zero-one loss over K classes (the file comment's second block); 0, or
 * nonzero when out of memory. */
static int decompose_zero_one(const double *pred, const grove_dataset *te, size_t R, size_t K,
                              json_t *obj)
{
    const size_t m = te->n_rows;
    double bias = 0, var = 0, vu = 0, vb = 0, net = 0, err = 0;
    size_t *count = gv_calloc(K, sizeof *count);
    if (!count) return 1;
    for (size_t x = 0; x < m; x++) {
        const double *f = pred + x * R;
        size_t y = (size_t)te->labels[x], ym = 0;
        memset(count, 0, K * sizeof *count);
        for (size_t r = 0; r < R; r++) count[(size_t)f[r]]++;
        for (size_t k = 1; k < K; k++)
            if (count[k] > count[ym]) ym = k;
        double V = (double)(R - count[ym]) / (double)R;
        double L = (double)(R - count[y]) / (double)R;
        var += V;
        err += L;
        if (ym == y) {
            vu += V;
            net += V;
        } else {
            bias += 1;
            vb += V;
            /* c V = -P(f = y | f != y_m) V = -(#{f = y} / R) */
            net -= (double)count[y] / (double)R;
        }
    }
    gv_free(count);
    double md = (double)m;
    int bad = json_object_set_new(obj, "loss", json_string("zero-one"));
    bad |= json_object_set_new(obj, "error", num(err / md));
    bad |= json_object_set_new(obj, "bias", num(bias / md));
    bad |= json_object_set_new(obj, "variance", num(var / md));
    bad |= json_object_set_new(obj, "unbiased_variance", num(vu / md));
    bad |= json_object_set_new(obj, "biased_variance", num(vb / md));
    bad |= json_object_set_new(obj, "net_variance", num(net / md));
    bad |= json_object_set_new(obj, "bias_plus_net_variance", num(bias / md + net / md));
    bad |= json_object_set_new(
        obj, "definition",
        json_string("main prediction y_m(x) = mode_r f_r(x); bias B(x) = [y_m(x) != y(x)]; "
                    "variance V(x) = P_r(f_r(x) != y_m(x)); unbiased/biased variance: V "
                    "averaged where B = 0 / B = 1 (over all test rows); net variance = "
                    "unbiased variance - sum over biased rows of P_r(f_r = y | f_r != y_m) "
                    "V(x) / n (two classes: unbiased - biased); error = bias + net variance "
                    "(noise-free: the test label is the target)"));
    bad |= json_object_set_new(
        obj, "reference",
        json_string("Domingos (2000), A unified bias-variance decomposition for zero-one "
                    "and squared loss, AAAI 2000 / ICML 2000"));
    return bad;
}

grove_status grove_biasvar(const grove_dataset *train, const grove_dataset *test,
                           const grove_params *params, size_t replicates, char **out)
{
    gv_err_clear();
    if (!out) return gv_err(GROVE_ERR_ARG, "grove_biasvar: out is NULL");
    *out = NULL;
    if (!train) return gv_err(GROVE_ERR_ARG, "grove_biasvar: train is NULL");
    if (replicates < 2 || replicates > 100000)
        return gv_err(GROVE_ERR_ARG, "grove_biasvar: replicates must be in [2, 100000], got %zu",
                      replicates);
    if (!train->labels)
        return gv_err(GROVE_ERR_DATA, "%s: the data has no label column", train->source);
    if (test && !test->labels)
        return gv_err(GROVE_ERR_DATA, "%s: the test data has no label column", test->source);
    if (test && !gv_schema_equal(test->schema, train->schema))
        return gv_err(GROVE_ERR_DATA, "%s: the test data does not have the training data's "
                                      "schema (load it with the training schema)",
                      test->source);

    grove_params *rp = NULL;
    grove_dataset *pool = NULL, *held = NULL;
    double *pred = NULL;
    json_t *obj = NULL;
    uint64_t seed = (uint64_t)gv_param_int(params, GV_P_SEED);
    grove_status st = params ? grove_params_copy(params, &rp) : grove_params_create(&rp);
    if (st != GROVE_OK) return st;

    /* the test set: given, or 30 % of the rows held out */
    const grove_dataset *tr = train, *te = test;
    if (!te) {
        if ((st = hold_out(train, seed, &pool, &held)) != GROVE_OK) goto done;
        tr = pool;
        te = held;
    }
    const size_t n = tr->n_rows, m = te->n_rows, R = replicates;
    const int classification = tr->schema->task == GROVE_CLASSIFICATION;
    size_t mr;
    if (n == 0 || m == 0) {
        st = gv_err(GROVE_ERR_DATA, "grove_biasvar: no training or no test rows");
        goto done;
    }
    if (gv_mul_size(m, R, &mr) != 0) {
        st = gv_err(GROVE_ERR_DATA, "grove_biasvar: test rows x replicates overflows");
        goto done;
    }
    if (!(pred = gv_malloc_array(mr, sizeof *pred))) { /* pred[x * R + r] */
        st = gv_err_nomem("the bias-variance replicates");
        goto done;
    }
    if ((st = predict_replicates(tr, te, params, rp, seed, R, pred)) != GROVE_OK) goto done;

    obj = json_object();
    if (!obj) {
        st = gv_err_nomem("the bias-variance report");
        goto done;
    }
    int bad = json_object_set_new(obj, "algo", json_string(gv_param_str(params, GV_P_ALGO)));
    bad |= json_object_set_new(obj, "task", json_string(classification ? "classification"
                                                                        : "regression"));
    bad |= json_object_set_new(obj, "replicates", json_integer((json_int_t)R));
    bad |= json_object_set_new(obj, "n_train", json_integer((json_int_t)n));
    bad |= json_object_set_new(obj, "n_test", json_integer((json_int_t)m));
    bad |= json_object_set_new(obj, "test", json_string(test ? "given" : "held-out 30%"));
    bad |= classification ? decompose_zero_one(pred, te, R, tr->schema->classes.n, obj)
                          : decompose_squared(pred, te, R, obj);
    if (bad) {
        st = gv_err_nomem("the bias-variance report");
        goto done;
    }
    char *text = json_dumps(obj, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    *out = text ? gv_strdup(text) : NULL; /* freed by grove_string_free (gv_free) */
    free(text);
    if (!*out) st = gv_err_nomem("the bias-variance report");
done:
    json_decref(obj);
    grove_params_free(rp);
    grove_dataset_free(pool);
    grove_dataset_free(held);
    gv_free(pred);
    return st;
}
