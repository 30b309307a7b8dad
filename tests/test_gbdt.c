/*
 * test_gbdt.c -- gradient-boosted trees (algo gbdt) against known numbers and theory.
 *
 *  - exactness: XGBoost's classic mushroom demo (logistic, eta 1, gamma 1, min_child_weight 1,
 *    max_depth 3, lambda 1, 2 rounds, base_score 0.5): training errors 94/6513 then 8/6513,
 *    test errors 26/1611 then 0 -- from the per-round log and from staged predictions;
 *  - exponential objective with stumps and lambda 0 is discrete AdaBoost: the same first
 *    split as grove's adaboost, and eps_1, alpha_1 = 1/2 ln((1 - eps_1)/eps_1) equal to its log;
 *  - the first tree of a squared-loss model by hand: root leaf value = -G/(H + lambda) * eta;
 *  - staged prediction with r rounds equals a model trained with r rounds;
 *  - save -> load -> predict is bit-identical (logistic, softmax, squared, absolute, huber,
 *    exponential, with validation log); a model file with an unknown field is rejected;
 *  - the same seed gives the same model for 1 and 2 threads (with row and column sampling);
 *  - a tree's root totals summed inside its root histogram's build: the same models;
 *  - early stopping keeps the best validation round; objectives reduce their loss;
 *  - parameter errors name the parameter.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "check.h"
#include "fixtures.h"
#include "learn/plan.h"
#include "loss/loss.h"
#include "model/model.h"

static grove_params *params(const char *const *kv)
{
    grove_params *p = fx_params(NULL);
    CHECK_OK(grove_params_set(p, "train_metric", "true")); /* the tests read the log's train column */
    fx_params_apply(p, kv);
    return p;
}

static grove_model *train(const grove_dataset *d, const grove_dataset *v, const char *const *kv)
{
    grove_params *p = params(kv);
    grove_model *m = NULL;
    CHECK_OK(grove_train(d, v, p, &m));
    grove_params_free(p);
    return m;
}

/* Number of rows whose predicted label differs from the true label, after `rounds` (0 = all). */
static size_t n_errors(const grove_model *m, const grove_dataset *d, size_t rounds)
{
    size_t n = grove_dataset_n_rows(d), k = 2, errs = 0;
    double *p = malloc(n * k * sizeof *p);
    if (rounds)
        CHECK_OK(grove_model_predict_rounds(m, d, rounds, 1, p, n * k));
    else
        CHECK_OK(grove_model_predict(m, d, 1, p, n * k));
    for (size_t i = 0; i < n; i++) errs += (p[i * k + 1] > 0.5) != (grove_dataset_label(d, i) > 0.5);
    free(p);
    return errs;
}

/* Entry 0 (the root's) of a tree object's per-node field, a packed array; NaN if unreadable. */
static double first_entry(const json_t *tree, const char *field)
{
    gv_packed r;
    double x = NAN;
    if (gv_packed_open(tree, field, (size_t)-1, 1, &r) != GROVE_OK || r.n == 0 ||
        gv_packed_real(&r, &x) != GROVE_OK)
        return NAN;
    return x;
}

/* Reads column `col` (0-based) of data row `row` (0-based) of the log CSV. */
static double log_value(const grove_model *m, size_t row, int col)
{
    char *csv = NULL;
    CHECK_OK(grove_model_log_csv(m, &csv));
    double v = NAN;
    const char *line = csv;
    for (size_t r = 0; line && r <= row; r++) {
        line = strchr(line, '\n');
        if (line) line++;
    }
    for (int c = 0; line && c < col; c++) {
        line = strchr(line, ',');
        if (line) line++;
    }
    if (line) v = strtod(line, NULL);
    grove_string_free(csv);
    return v;
}

static void test_mushroom(void)
{
    grove_params *lp = params((const char *const[]){"format=libsvm", NULL});
    grove_dataset *tr = fx_load("examples/data/agaricus.txt.train", lp, NULL);
    grove_dataset *te = fx_load("examples/data/agaricus.txt.test", NULL, grove_dataset_schema(tr));
    grove_model *m = train(tr, te,
                           (const char *const[]){"algo=gbdt", "objective=logistic", "rounds=2",
                                                 "learning_rate=1", "gamma=1",
                                                 "min_child_weight=1", "max_depth=3", "lambda=1",
                                                 "base_score=0.5", "eval_metric=error", NULL});
    CHECK_EQ_INT(grove_dataset_n_rows(tr), 6513);
    CHECK_EQ_INT(grove_dataset_n_rows(te), 1611);
    CHECK_EQ_INT(n_errors(m, tr, 1), 94);
    CHECK_EQ_INT(n_errors(m, tr, 2), 8);
    CHECK_EQ_INT(n_errors(m, te, 1), 26);
    CHECK_EQ_INT(n_errors(m, te, 2), 0);
    CHECK_EQ_INT(lround(log_value(m, 0, 1) * 6513), 94);
    CHECK_EQ_INT(lround(log_value(m, 1, 1) * 6513), 8);
    CHECK_EQ_INT(lround(log_value(m, 0, 2) * 1611), 26);
    CHECK_EQ_INT(lround(log_value(m, 1, 2) * 1611), 0);
    grove_model_free(m);
    grove_dataset_free(te);
    grove_dataset_free(tr);
    grove_params_free(lp);
}

/* Model info "model" object of a model (new JSON text parsed by hand: the first occurrence of
 * `key` followed by a number). */
static double info_number(const grove_model *m, const char *key)
{
    char *info = NULL;
    CHECK_OK(grove_model_info_json(m, &info));
    char pat[128];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *s = strstr(info, pat);
    double v = s ? strtod(s + strlen(pat), NULL) : NAN;
    grove_string_free(info);
    return v;
}

static void test_exponential_is_adaboost(void)
{
    grove_dataset *d = fx_load("examples/data/ionosphere_train.csv", NULL, NULL);
    grove_model *ada = train(d, NULL, (const char *const[]){"algo=adaboost", "base=stump",
                                                            "rounds=1", NULL});
    grove_model *gb = train(d, NULL,
                            (const char *const[]){"algo=gbdt", "objective=exponential",
                                                  "rounds=1", "max_depth=1", "lambda=0",
                                                  "min_child_weight=0", "learning_rate=1",
                                                  "base_score=0.5", NULL});
    /* adaboost log: t,epsilon,gamma,alpha,...; gbdt log: t,train_exploss,epsilon,alpha */
    double eps_a = log_value(ada, 0, 1), alpha_a = log_value(ada, 0, 3);
    double eps_g = log_value(gb, 0, 2), alpha_g = log_value(gb, 0, 3);
    CHECK_NEAR(eps_g, eps_a, 1e-12);
    CHECK_NEAR(alpha_g, alpha_a, 1e-9);
    CHECK_NEAR(alpha_g, 0.5 * log((1 - eps_g) / eps_g), 1e-12);
    /* same first split: both models predict the same labels on every training row */
    size_t n = grove_dataset_n_rows(d);
    double *pa = malloc(2 * n * sizeof *pa), *pg = malloc(2 * n * sizeof *pg);
    CHECK_OK(grove_model_predict_label(ada, d, 1, pa, n));
    CHECK_OK(grove_model_predict_label(gb, d, 1, pg, n));
    size_t differ = 0;
    for (size_t i = 0; i < n; i++) differ += pa[i] != pg[i];
    CHECK_EQ_INT(differ, 0);
    /* the split itself: the stump's feature and threshold (component JSON) */
    json_t *ja = ada->root.vt->to_json(ada->root.impl), *jg = gb->root.vt->to_json(gb->root.impl);
    json_t *sa = json_array_get(json_object_get(ja, "members"), 0);
    json_t *sg = json_array_get(json_object_get(jg, "trees"), 0);
    CHECK(sa && sg);
    CHECK_EQ_DBL(first_entry(sa, "feature"), first_entry(sg, "feature"));
    CHECK(first_entry(sg, "feature") >= 0);
    CHECK_EQ_DBL(first_entry(sa, "threshold"), first_entry(sg, "threshold"));
    json_decref(ja);
    json_decref(jg);
    free(pa);
    free(pg);
    grove_model_free(ada);
    grove_model_free(gb);
    grove_dataset_free(d);
}

/* A one-leaf tree (max_depth 0 is unlimited, so use a huge min_child_weight): the root value is
 * -G/(H + lambda) * eta with G = sum(F0 - y), H = n. */
static void test_root_leaf_by_hand(void)
{
    const double X[5] = {1, 2, 3, 4, 5}, y[5] = {1, 2, 2, 4, 9};
    grove_params *p = params((const char *const[]){"task=regression", NULL});
    grove_dataset *d = NULL;
    CHECK_OK(grove_dataset_from_array(X, GROVE_FLOAT64, 5, 1, y, NULL, NULL, p, NULL, &d));
    grove_model *m = train(d, NULL, (const char *const[]){"algo=gbdt", "rounds=1",
                                                          "learning_rate=0.5", "lambda=2",
                                                          "base_score=1", "min_child_weight=100",
                                                          NULL});
    double out[5];
    CHECK_OK(grove_model_predict(m, d, 1, out, 5));
    /* G = sum(1 - y) = 5 - 18 = -13, H = 5: value = 13 / 7 * 0.5 */
    for (int i = 0; i < 5; i++) CHECK_NEAR(out[i], 1 + 0.5 * 13.0 / 7.0, 1e-12);
    grove_model_free(m);
    /* default base score: the mean (3.6); one split at depth 1 with lambda 0 and eta 1 makes
     * the two leaves the means of their rows */
    m = train(d, NULL, (const char *const[]){"algo=gbdt", "rounds=1", "learning_rate=1",
                                             "lambda=0", "max_depth=1", "min_child_weight=0",
                                             NULL});
    CHECK_OK(grove_model_predict(m, d, 1, out, 5));
    /* (the residuals F - y as floats, tree.h: the leaves the means of their rows to float
     * rounding, b - (float)(b - y)) */
    const double b = 18.0 / 5.0;
    CHECK_NEAR(out[4], b - (double)(float)(b - 9), 1e-12); /* the best split isolates the 9 */
    CHECK_NEAR(out[0],
               b - ((double)(float)(b - 1) + (double)(float)(b - 2) + (double)(float)(b - 2) +
                    (double)(float)(b - 4)) / 4,
               1e-12);
    CHECK_NEAR(out[4], 9, 1e-6);
    CHECK_NEAR(out[0], 9.0 / 4.0, 1e-6);
    grove_model_free(m);
    grove_dataset_free(d);
    grove_params_free(p);
}

static int same_predictions(const grove_model *a, const grove_model *b, const grove_dataset *d,
                            size_t k)
{
    size_t n = grove_dataset_n_rows(d);
    double *pa = malloc(n * k * sizeof *pa), *pb = malloc(n * k * sizeof *pb);
    CHECK_OK(grove_model_predict(a, d, 1, pa, n * k));
    CHECK_OK(grove_model_predict(b, d, 2, pb, n * k));
    int same = memcmp(pa, pb, n * k * sizeof *pa) == 0;
    free(pa);
    free(pb);
    return same;
}

static void round_trip(const char *train_rel, const char *test_rel, const char *const *kv,
                       size_t k)
{
    grove_dataset *d = fx_load(train_rel, NULL, NULL);
    grove_dataset *v = fx_load(test_rel, NULL, grove_dataset_schema(d));
    grove_model *m = train(d, v, kv);
    char path[] = "/tmp/grove_gbdt_rt_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    CHECK_OK(grove_model_save(m, path));
    grove_model *l = NULL;
    CHECK_OK(grove_model_load(path, &l));
    if (l) {
        CHECK(same_predictions(m, l, v, k));
        CHECK_EQ_INT(grove_model_n_rounds(l), grove_model_n_rounds(m));
        char *a = NULL, *b = NULL;
        CHECK_OK(grove_model_log_csv(m, &a));
        CHECK_OK(grove_model_log_csv(l, &b));
        if (a && b) CHECK_STR(a, b);
        grove_string_free(a);
        grove_string_free(b);
    }
    /* the component reader rejects a foreign field, a wrong-length base, a bad objective */
    const gv_component_vt *vt = m->root.vt;
    for (int j = 0; j < 3; j++) {
        json_t *o = vt->to_json(m->root.impl);
        const char *want = j == 0 ? "objectivX" : j == 1 ? "base" : "objective";
        if (j == 0) json_object_set_new(o, "objectivX", json_true());
        if (j == 1) json_array_append_new(json_object_get(o, "base"), json_real(1));
        if (j == 2) json_object_set_new(o, "objective", json_string("cox"));
        void *impl = NULL;
        CHECK_EQ_INT(vt->from_json(o, &(gv_model_ctx){.schema = grove_model_schema(m), .minor = 2}, &impl), GROVE_ERR_MODEL);
        CHECK_CONTAINS(grove_last_error(), want);
        CHECK(impl == NULL);
        json_decref(o);
    }
    unlink(path);
    grove_model_free(l);
    grove_model_free(m);
    grove_dataset_free(v);
    grove_dataset_free(d);
}

static void test_round_trips(void)
{
    round_trip("examples/data/breast_cancer_train.csv", "examples/data/breast_cancer_test.csv",
               (const char *const[]){"algo=gbdt", "rounds=20", "subsample=0.8",
                                     "colsample_bytree=0.7", "colsample_bynode=0.5", NULL},
               2);
    round_trip("examples/data/iris_train.csv", "examples/data/iris_test.csv",
               (const char *const[]){"algo=gbdt", "rounds=10", "max_leaves=4", NULL}, 3);
    round_trip("examples/data/boston_housing_train.csv", "examples/data/boston_housing_test.csv",
               (const char *const[]){"algo=gbdt", "rounds=15", "alpha=0.5", "gamma=0.1", NULL},
               1);
    round_trip("examples/data/boston_housing_train.csv", "examples/data/boston_housing_test.csv",
               (const char *const[]){"algo=gbdt", "rounds=10", "objective=absolute", NULL}, 1);
    round_trip("examples/data/boston_housing_train.csv", "examples/data/boston_housing_test.csv",
               (const char *const[]){"algo=gbdt", "rounds=10", "objective=huber",
                                     "huber_delta=2", NULL},
               1);
    round_trip("examples/data/sonar_train.csv", "examples/data/sonar_test.csv",
               (const char *const[]){"algo=gbdt", "rounds=10", "objective=exponential",
                                     "eval_metric=auc", NULL},
               2);
    /* without the per-round training metric (the default): the log has no train column */
    round_trip("examples/data/breast_cancer_train.csv", "examples/data/breast_cancer_test.csv",
               (const char *const[]){"algo=gbdt", "rounds=8", "train_metric=false", NULL}, 2);
    grove_dataset *d = fx_load("examples/data/breast_cancer_train.csv", NULL, NULL);
    grove_model *m = train(d, NULL, (const char *const[]){"algo=gbdt", "rounds=3", "train_metric=false", NULL});
    char *log = NULL;
    CHECK_OK(grove_model_log_csv(m, &log));
    if (log) CHECK_STR(log, "t\n1\n2\n3\n");
    grove_string_free(log);
    grove_model_free(m);
    grove_dataset_free(d);
}

static void test_staged(void)
{
    grove_dataset *d = fx_load("examples/data/twonorm_train.csv", NULL, NULL);
    grove_model *m20 = train(d, NULL, (const char *const[]){"algo=gbdt", "rounds=20",
                                                            "max_depth=3", NULL});
    grove_model *m7 = train(d, NULL, (const char *const[]){"algo=gbdt", "rounds=7",
                                                           "max_depth=3", NULL});
    size_t n = grove_dataset_n_rows(d);
    double *a = malloc(2 * n * sizeof *a), *b = malloc(2 * n * sizeof *b);
    CHECK_OK(grove_model_predict_rounds(m20, d, 7, 1, a, 2 * n));
    CHECK_OK(grove_model_predict(m7, d, 1, b, 2 * n));
    CHECK(memcmp(a, b, 2 * n * sizeof *a) == 0);
    CHECK_EQ_INT(grove_model_n_rounds(m20), 20);
    /* the training loss falls round after round */
    for (size_t t = 1; t < 20; t++) CHECK(log_value(m20, t, 1) <= log_value(m20, t - 1, 1));
    free(a);
    free(b);
    grove_model_free(m20);
    grove_model_free(m7);
    grove_dataset_free(d);
}

/* A dataset of the n x F floats X and labels y for `task` ("task=classification" or
 * "task=regression"); frees both. */
static grove_dataset *array_set(float *X, double *y, size_t n, size_t F, const char *task)
{
    grove_params *p = params((const char *const[]){task, NULL});
    grove_dataset *d = NULL;
    CHECK_OK(grove_dataset_from_array(X, GROVE_FLOAT32, n, F, y, NULL, NULL, p, NULL, &d));
    grove_params_free(p);
    free(X);
    free(y);
    return d;
}

/* n x F features from an LCG started at s: uniform in [0, 1); features f >= few_from small
 * integers (2 + f % 3 values: the few-valued features that bin.c bundles); each value missing
 * with probability 1 / nan_mod.  z = the sum of (f % 3 == 0 ? 1 : -0.5) x (f < 4 ? 3 : 1) over
 * the present values; the label, K = 2: z + 0.3 sin(freq i) > cut, else floor(3 |z|) mod K. */
static grove_dataset *lcg_set(size_t n, size_t F, uint64_t s, size_t few_from, unsigned nan_mod,
                              int K, double freq, double cut)
{
    float *X = malloc(n * F * sizeof *X);
    double *y = malloc(n * sizeof *y);
    for (size_t i = 0; i < n; i++) {
        double z = 0;
        for (size_t f = 0; f < F; f++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            float x = (float)((double)(s >> 11) / 9007199254740992.0);
            if (f >= few_from) x = (float)((s >> 7) % (2 + f % 3));
            if ((s >> 3) % nan_mod == 0) x = NAN;
            X[i * F + f] = x;
            if (!isnan(x)) z += (f % 3 == 0 ? 1.0 : -0.5) * x * (f < 4 ? 3 : 1);
        }
        y[i] = K == 2 ? (z + 0.3 * sin(freq * (double)i) > cut ? 1 : 0)
                      : (double)((int)floor(fabs(z) * 3) % K);
    }
    return array_set(X, y, n, F, "task=classification");
}

/* A synthetic set big enough for the parallel paths (row loops, histograms). */
static grove_dataset *synthetic(size_t n, size_t F, unsigned seed)
{
    return lcg_set(n, F, seed * 2654435761u + 1, F, 53, 2, 7.0, 0.2);
}

/* Whether models a and b save to the same bytes. */
static int same_bytes(const grove_model *a, const grove_model *b)
{
    char *ba = NULL, *bb = NULL;
    size_t la = 0, lb = 0;
    CHECK_OK(grove_model_to_buffer(a, &ba, &la));
    CHECK_OK(grove_model_to_buffer(b, &bb, &lb));
    const int same = ba && bb && la == lb && memcmp(ba, bb, la) == 0;
    grove_string_free(ba);
    grove_string_free(bb);
    return same;
}

static void test_threads(void)
{
    /* more than 65536 rows: the tree engine's row loops (partition, leaf of every row, row
     * list, gradient check) then run in blocks over the threads */
    grove_dataset *d = synthetic(70000, 12, 1);
    const char *kv1[] = {"algo=gbdt", "rounds=8", "subsample=0.7", "colsample_bytree=0.8",
                         "colsample_bynode=0.7", "seed=5", "threads=1", NULL};
    const char *kv2[] = {"algo=gbdt", "rounds=8", "subsample=0.7", "colsample_bytree=0.8",
                         "colsample_bynode=0.7", "seed=5", "threads=2", NULL};
    grove_model *a = train(d, NULL, kv1), *b = train(d, NULL, kv2);
    CHECK(same_predictions(a, b, d, 2));
    char *la = NULL, *lb = NULL;
    CHECK_OK(grove_model_log_csv(a, &la));
    CHECK_OK(grove_model_log_csv(b, &lb));
    if (la && lb) CHECK_STR(la, lb);
    grove_string_free(la);
    grove_string_free(lb);
    /* another seed gives another model */
    const char *kv3[] = {"algo=gbdt", "rounds=8", "subsample=0.7", "colsample_bytree=0.8",
                         "colsample_bynode=0.7", "seed=6", "threads=2", NULL};
    grove_model *c = train(d, NULL, kv3);
    CHECK(!same_predictions(a, c, d, 2));
    grove_model_free(a);
    grove_model_free(b);
    grove_model_free(c);
    /* leaf-wise growth too */
    const char *kv4[] = {"algo=gbdt", "rounds=4", "max_leaves=31", "threads=1", NULL};
    const char *kv5[] = {"algo=gbdt", "rounds=4", "max_leaves=31", "threads=2", NULL};
    a = train(d, NULL, kv4);
    b = train(d, NULL, kv5);
    CHECK(same_predictions(a, b, d, 2));
    CHECK(info_number(a, "total_leaves") <= 4 * 31);
    grove_model_free(a);
    grove_model_free(b);
    grove_dataset_free(d);
}

/* Depth-wise trees on 2 threads take a level's partitions, histograms, split scans and leaf
 * splits together (tree.c level_batch, partition_level, leaves_batch; 1 thread takes the
 * nodes one at a time, 3 threads the level's histograms and leaves together but not the
 * partitions): the same models for 1, 2 and 3 threads, with nodes of several 32768-row blocks
 * (300,000 rows: the smaller child's sums taken by the partition), with and without the train
 * metric (without it the gradients go straight into the tree's position buffer). */
static void test_level_threads(void)
{
    grove_dataset *d = synthetic(300000, 6, 4);
    for (int metric = 0; metric < 2; metric++) {
        grove_model *m[3] = {NULL, NULL, NULL};
        char *log[3] = {NULL, NULL, NULL};
        for (int t = 0; t < 3; t++) {
            const char *thr[] = {"threads=1", "threads=2", "threads=3"};
            const char *kv[] = {"algo=gbdt", "rounds=3", "max_depth=6", "learning_rate=0.3",
                                metric ? "train_metric=true" : "train_metric=false", thr[t],
                                NULL};
            m[t] = train(d, NULL, kv);
            CHECK_OK(grove_model_log_csv(m[t], &log[t]));
        }
        CHECK(info_number(m[0], "total_leaves") > 3 * 32);
        for (int t = 1; t < 3; t++) {
            CHECK(same_bytes(m[0], m[t])); /* the model files, byte for byte */
            CHECK(same_predictions(m[0], m[t], d, 2));
            if (log[0] && log[t]) CHECK_STR(log[0], log[t]);
        }
        for (int t = 0; t < 3; t++) {
            grove_model_free(m[t]);
            grove_string_free(log[t]);
        }
    }
    grove_dataset_free(d);
}

/* Forces the engine's code path `field` (learn/plan.h: 0 never, 1 where the data allows) for
 * the fits until force_none. */
#define FORCE_PATH(field, value)                                                                   \
    do {                                                                                           \
        gv_plan_force f_ = *gv_plan_forced();                                                      \
        f_.field = (value);                                                                        \
        gv_plan_force_set(&f_);                                                                    \
    } while (0)
static void force_none(void) { gv_plan_force_set(NULL); }

/* A tree's root totals and row list summed inside its root's histogram build (by the blocks
 * of 32768 positions of the pass they replace: 100,000 rows, four blocks, the last partial),
 * or in that pass: the same models to the bit, with bundled few-valued features, missing
 * values, 1, 2 and 3 threads (the column blocks, one of which sums, differ). */
static void test_root_fuse(void)
{
    grove_dataset *d = lcg_set(100000, 9, 99, 6, 41, 2, 3.0, 0.1); /* 6-8: bundled */
    grove_model *ref = NULL;
    for (int t = 1; t <= 3; t++) {
        char th[24];
        snprintf(th, sizeof th, "threads=%d", t);
        const char *kv[] = {"algo=gbdt", "rounds=3", "max_depth=6", "seed=3",
                            "train_metric=false", th, NULL};
        for (int fuse = 1; fuse >= 0; fuse--) {
            FORCE_PATH(root_fuse, fuse);
            grove_model *m = train(d, NULL, kv);
            force_none();
            if (!ref) {
                ref = m;
            } else {
                CHECK(same_bytes(ref, m));
                grove_model_free(m);
            }
        }
    }
    grove_model_free(ref);
    grove_dataset_free(d);
}

/* A softmax round builds its K trees' root histograms in one pass over the rows
 * (gv_hist_roots_grad): the same models as when every tree builds its own, with 1 and 2
 * threads, 4 classes, missing values, best-first trees. */
static void test_softmax_roots(void)
{
    grove_dataset *d = lcg_set(6000, 30, 99, 30, 41, 4, 0.0, 0.0);
    const char *kv1[] = {"algo=gbdt", "rounds=3", "growth=bestfirst", "max_leaves=15",
                         "max_depth=0", "seed=3", "threads=1", NULL};
    const char *kv2[] = {"algo=gbdt", "rounds=3", "growth=bestfirst", "max_leaves=15",
                         "max_depth=0", "seed=3", "threads=2", NULL};
    grove_model *a = train(d, NULL, kv1), *b = train(d, NULL, kv2);
    FORCE_PATH(shared_roots, 0);
    grove_model *c = train(d, NULL, kv1), *e = train(d, NULL, kv2);
    force_none();
    CHECK(same_predictions(a, b, d, 4));
    CHECK(same_predictions(a, c, d, 4));
    CHECK(same_predictions(b, e, d, 4));
    grove_model_free(a);
    grove_model_free(b);
    grove_model_free(c);
    grove_model_free(e);
    grove_dataset_free(d);
}

/* quantized_bits (Shi et al. 2022): bit-identical models for 1 and 2 threads (rows quantized in
 * parallel blocks; both integer record widths: 60k rows at 3 bits pack into one 64-bit word,
 * 200k rows at 8 bits do not), and for the split search's scalar and AVX2 ways; at 3 bits a model
 * unlike the unquantized one. */
static void test_quantized_threads(void)
{
    static const size_t rows[] = {60000, 200000};
    static const char *bits[] = {"quantized_bits=3", "quantized_bits=8"};
    for (int c = 0; c < 2; c++) {
        grove_dataset *d = synthetic(rows[c], 12, 2);
        const char *kv1[] = {"algo=gbdt", "rounds=4", "max_depth=4", "subsample=0.7",
                             "colsample_bytree=0.8", "seed=5", bits[c], "threads=1", NULL};
        const char *kv2[] = {"algo=gbdt", "rounds=4", "max_depth=4", "subsample=0.7",
                             "colsample_bytree=0.8", "seed=5", bits[c], "threads=2", NULL};
        const char *kv0[] = {"algo=gbdt", "rounds=4", "max_depth=4", "subsample=0.7",
                             "colsample_bytree=0.8", "seed=5", "threads=2", NULL};
        grove_model *a = train(d, NULL, kv1), *b = train(d, NULL, kv2), *z = train(d, NULL, kv0);
        CHECK(same_predictions(a, b, d, 2));
        /* the split search's scalar way finds the same trees as its vector way */
        FORCE_PATH(split_simd, 0);
        grove_model *s = train(d, NULL, kv2), *zs = train(d, NULL, kv0);
        force_none();
        CHECK(same_predictions(b, s, d, 2));
        CHECK(same_predictions(z, zs, d, 2)); /* unquantized too */
        if (c == 1) {
            /* the wide records summed in packed words, by chunks of 65,535 rows (200k rows at 8
             * bits: 16 + 24 + 24 bits), are the wide records summed directly */
            FORCE_PATH(pack, 0);
            grove_model *w1 = train(d, NULL, kv1), *w2 = train(d, NULL, kv2);
            force_none();
            CHECK(same_predictions(a, w1, d, 2));
            CHECK(same_predictions(b, w2, d, 2));
            grove_model_free(w1);
            grove_model_free(w2);
        }
        grove_model_free(s);
        grove_model_free(zs);
        if (c == 0) CHECK(!same_predictions(a, z, d, 2)); /* (8 bits may find the same trees) */
        grove_model_free(a);
        grove_model_free(b);
        grove_model_free(z);
        grove_dataset_free(d);
    }
}

/* Quantized histograms of bundled features (few-valued features sharing a byte of the bundled
 * rows, each histogram a bundle's marginal: bin.h, hist.c) are the unbundled ones, integers: the
 * same models with bundles and without, for both record widths (60,000 rows at 4 bits pack into
 * one word, 200,000 at 8 bits do not), row subsampling, one and two threads. */
static void test_quantized_bundles(void)
{
    static const size_t rows[] = {60000, 200000};
    static const char *bits[] = {"quantized_bits=4", "quantized_bits=8"};
    for (int c = 0; c < 2; c++) {
        const size_t n = rows[c], F = 12;
        float *X = malloc(n * F * sizeof *X);
        double *y = malloc(n * sizeof *y);
        uint64_t s = 4321;
        for (size_t i = 0; i < n; i++) {
            double z = 0;
            for (size_t f = 0; f < F; f++) {
                s = s * 6364136223846793005ULL + 1442695040888963407ULL;
                float x = (float)((double)(s >> 11) / 9007199254740992.0);
                /* five features of 2, 3 or 4 values (the others dense: not the sparse rows) */
                if (f >= 7) x = (float)((s >> 7) % (2 + f % 3));
                if (f % 2 && (s >> 3) % 53 == 0) x = NAN;
                X[i * F + f] = x;
                if (!isnan(x)) z += (f % 2 ? 0.4 : -0.3) * x;
            }
            y[i] = z + 0.3 * sin(5.0 * i) > 0.2 ? 1 : 0;
        }
        grove_dataset *d = array_set(X, y, n, F, "task=classification");
        grove_model *m[2] = {NULL, NULL};
        for (int t = 1; t <= 2; t++) {
            const char *kv[] = {"algo=gbdt", "rounds=3", "max_depth=5", "subsample=0.8", "seed=3",
                                bits[c], t == 1 ? "threads=1" : "threads=2", NULL};
            grove_model *a = train(d, NULL, kv);
            FORCE_PATH(bundles, 0);
            grove_model *b = train(d, NULL, kv);
            force_none();
            CHECK(same_predictions(a, b, d, 2));
            grove_model_free(b);
            m[t - 1] = a;
        }
        CHECK(same_predictions(m[0], m[1], d, 2));
        grove_model_free(m[0]);
        grove_model_free(m[1]);
        grove_dataset_free(d);
    }
}

/* Quantized histograms from the sparse rows (gv_row_nz: features often 0 skip their frequent
 * bin and take it from the node's total) are the dense rows' histograms: the same trees, with
 * both record widths (8,000 rows at 4 bits pack into one word, 200,000 at 8 bits do not), 70
 * features (two groups of 64, the second partial), row subsampling, one and two threads. */
static void test_quantized_sparse(void)
{
    static const size_t rows[] = {8000, 200000}, nf[] = {70, 12};
    static const char *bits[] = {"quantized_bits=4", "quantized_bits=8"};
    for (int c = 0; c < 2; c++) {
        const size_t n = rows[c], F = nf[c];
        float *X = malloc(n * F * sizeof *X);
        double *y = malloc(n * sizeof *y);
        uint64_t s = 12345;
        for (size_t i = 0; i < n; i++) {
            double z = 0;
            for (size_t f = 0; f < F; f++) {
                s = s * 6364136223846793005ULL + 1442695040888963407ULL;
                float x = (float)((double)(s >> 11) / 9007199254740992.0);
                /* mostly zeros, some zeros, or none (a dense feature) */
                if ((s >> 5) % 10 < (f % 5 == 4 ? 0u : f % 3 ? 7u : 3u)) x = 0;
                if ((s >> 3) % 97 == 0) x = NAN;
                X[i * F + f] = x;
                if (!isnan(x)) z += (f % 2 ? 1.0 : -0.7) * x;
            }
            y[i] = z + 0.2 * sin(3.0 * i) > 0 ? 1 : 0;
        }
        grove_dataset *d = array_set(X, y, n, F, "task=classification");
        for (int t = 1; t <= 2; t++) {
            const char *kv[] = {"algo=gbdt", "rounds=3", "max_depth=5", "subsample=0.8", "seed=3",
                                bits[c], t == 1 ? "threads=1" : "threads=2", NULL};
            grove_model *a = train(d, NULL, kv);
            FORCE_PATH(row_nz, 0);
            grove_model *b = train(d, NULL, kv);
            force_none();
            CHECK(same_predictions(a, b, d, 2));
            grove_model_free(a);
            grove_model_free(b);
        }
        grove_dataset_free(d);
    }
}

/* Stochastic rounding is exact on values already on the grid: squared loss from base score 0
 * on integer targets in [-3, 3] gives gradients -y, and 3 bits have the levels -3..3 with scale
 * max |g| / 3 = 1, so the first tree's gradient sums are the exact ones and the tree (its leaf
 * values come from the exact gradients anyway) is the unquantized tree.  The hessians (all 1)
 * become 7 levels of 1/7, so min_child_weight is 0 here (7 (1/7) may round below 1). */
static void test_quantized_exact_grid(void)
{
    enum { N = 3000, F = 5 };
    float *X = malloc(N * F * sizeof *X);
    double *y = malloc(N * sizeof *y);
    uint64_t s = 99;
    for (size_t i = 0; i < N; i++) {
        double z = 0;
        for (size_t f = 0; f < F; f++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            X[i * F + f] = (float)((double)(s >> 11) / 9007199254740992.0);
            z += (f + 1.0) * X[i * F + f];
        }
        y[i] = fmin(3, fmax(-3, floor(z - 7.5)));
    }
    grove_dataset *d = array_set(X, y, N, F, "task=regression");
    const char *kq[] = {"algo=gbdt", "objective=squared", "base_score=0", "learning_rate=1",
                        "rounds=1", "max_depth=5", "min_child_weight=0", "quantized_bits=3", NULL};
    const char *k0[] = {"algo=gbdt", "objective=squared", "base_score=0", "learning_rate=1",
                        "rounds=1", "max_depth=5", "min_child_weight=0", NULL};
    grove_model *a = train(d, NULL, kq), *b = train(d, NULL, k0);
    CHECK(same_predictions(a, b, d, 1));
    CHECK(info_number(a, "total_leaves") > 8); /* a real tree, not a stump */
    grove_model_free(a);
    grove_model_free(b);
    /* one bit is no quantization: refused naming the parameter and the range */
    grove_params *q = params((const char *const[]){"algo=gbdt", "quantized_bits=1", NULL});
    grove_model *m = NULL;
    CHECK_STATUS(grove_train(d, NULL, q, &m), GROVE_ERR_PARAM);
    CHECK_CONTAINS(grove_last_error(), "quantized_bits: must be 0 (off) or in [2, 8], got 1");
    grove_params_free(q);
    grove_dataset_free(d);
}

static void test_early_stopping(void)
{
    grove_dataset *d = fx_load("examples/data/sonar_train.csv", NULL, NULL);
    grove_dataset *v = fx_load("examples/data/sonar_test.csv", NULL, grove_dataset_schema(d));
    grove_model *m = train(d, v, (const char *const[]){"algo=gbdt", "rounds=300",
                                                       "learning_rate=0.5", "max_depth=4",
                                                       "early_stopping_rounds=10", NULL});
    size_t kept = grove_model_n_rounds(m);
    CHECK(kept >= 1 && kept < 300);
    /* the kept round has the smallest validation logloss of all logged rounds */
    double best = log_value(m, kept - 1, 2);
    for (size_t t = 0; t < kept + 10; t++) CHECK(log_value(m, t, 2) >= best);
    CHECK(!isnan(log_value(m, kept + 9, 2)));
    grove_model_free(m);
    grove_dataset_free(v);
    grove_dataset_free(d);
}

static void test_objectives(void)
{
    grove_dataset *d = fx_load("examples/data/boston_housing_train.csv", NULL, NULL);
    const char *objs[] = {"objective=squared", "objective=absolute", "objective=huber"};
    for (int k = 0; k < 3; k++) {
        grove_model *m = train(d, NULL, (const char *const[]){"algo=gbdt", "rounds=30",
                                                              "learning_rate=0.3", objs[k],
                                                              NULL});
        CHECK(log_value(m, 29, 1) < 0.5 * log_value(m, 0, 1));
        grove_model_free(m);
    }
    grove_dataset *iris = fx_load("examples/data/iris_train.csv", NULL, NULL);
    grove_model *m = train(iris, NULL, (const char *const[]){"algo=gbdt", "rounds=20",
                                                             "eval_metric=merror", NULL});
    CHECK(log_value(m, 19, 1) < 0.05);
    grove_model_free(m);

    /* parameter errors name the parameter */
    grove_params *p = params((const char *const[]){"algo=gbdt", "objective=squared", NULL});
    grove_model *bad = NULL;
    CHECK_EQ_INT(grove_train(iris, NULL, p, &bad), GROVE_ERR_PARAM);
    CHECK_CONTAINS(grove_last_error(), "objective");
    grove_params_free(p);
    p = params((const char *const[]){"algo=gbdt", "eval_metric=auc", NULL});
    CHECK_EQ_INT(grove_train(iris, NULL, p, &bad), GROVE_ERR_PARAM);
    CHECK_CONTAINS(grove_last_error(), "eval_metric");
    grove_params_free(p);
    p = params((const char *const[]){"algo=gbdt", "early_stopping_rounds=3", NULL});
    CHECK_EQ_INT(grove_train(iris, NULL, p, &bad), GROVE_ERR_PARAM);
    CHECK_CONTAINS(grove_last_error(), "early_stopping_rounds");
    grove_params_free(p);
    p = params(NULL);
    CHECK_EQ_INT(grove_params_set(p, "subsample", "0"), GROVE_ERR_PARAM);
    CHECK_EQ_INT(grove_params_set(p, "objective", "cox"), GROVE_ERR_PARAM);
    grove_params_free(p);
    grove_dataset *bc = fx_load("examples/data/breast_cancer_train.csv", NULL, NULL);
    p = params((const char *const[]){"algo=gbdt", "base_score=1.5", NULL});
    CHECK_EQ_INT(grove_train(bc, NULL, p, &bad), GROVE_ERR_PARAM);
    CHECK_CONTAINS(grove_last_error(), "base_score");
    grove_params_free(p);
    CHECK(bad == NULL);
    grove_dataset_free(bc);
    grove_dataset_free(iris);
    grove_dataset_free(d);
}

/* Blocked prediction (predict_block, used by grove_model_predict) equals the row-by-row walk
 * bit for bit: all rounds and staged, several objectives, a last block shorter than the others. */
static void test_block_prediction(void)
{
    static const char *objectives[] = {"objective=logistic", "objective=softmax", "objective=squared"};
    static const char *files[] = {"examples/data/breast_cancer_train.csv",
                                  "examples/data/iris_train.csv",
                                  "examples/data/boston_housing_train.csv"};
    for (int o = 0; o < 3; o++) {
        grove_dataset *d = fx_load(files[o], NULL, NULL);
        grove_params *p = NULL;
        CHECK_OK(grove_params_create(&p));
        CHECK_OK(grove_params_set(p, "algo", "gbdt"));
        CHECK_OK(grove_params_set(p, "train_metric", "true"));
        CHECK_OK(grove_params_set(p, "rounds", "15"));
        CHECK_OK(grove_params_set_pair(p, objectives[o]));
        grove_model *m = NULL;
        CHECK_OK(grove_train(d, NULL, p, &m));
        size_t n = grove_dataset_n_rows(d), k = grove_model_n_outputs(m);
        CHECK(n % GV_PREDICT_BLOCK != 0);
        double *a = malloc(n * k * sizeof *a), *b = malloc(n * k * sizeof *b);
        for (size_t rounds = 0; rounds <= 15; rounds += 5) {
            if (rounds)
                CHECK_OK(grove_model_predict_rounds(m, d, rounds, 2, a, n * k));
            else
                CHECK_OK(grove_model_predict(m, d, 2, a, n * k));
            for (size_t i = 0; i < n; i++) {
                if (rounds)
                    m->root.vt->predict_row_rounds(m->root.impl, d, i, rounds, b + i * k);
                else
                    m->root.vt->predict_row(m->root.impl, d, i, b + i * k);
            }
            CHECK(memcmp(a, b, n * k * sizeof *a) == 0);
        }
        free(a);
        free(b);
        grove_model_free(m);
        grove_params_free(p);
        grove_dataset_free(d);
    }
}

/* The training scores (updated from each tree's leaf of every binned row) equal the model's
 * predictions on the training data (raw-value walk): the last round's training loss in the log
 * equals grove_model_evaluate's, on data with categorical features and missing values. */
static void test_training_scores_match(void)
{
    static const char *files[] = {"examples/data/penguins_train.csv",
                                  "examples/data/breast_cancer_train.csv"};
    /* the training rows' leaves come from the grower, from walks of the rows out of the
     * sample (subsample), or from walks of all rows after pruning (gamma) */
    static const char *extra[] = {"seed=1", "subsample=0.7", "gamma=0.5"};
    for (int f = 0; f < 6; f++) {
        grove_dataset *d = fx_load(files[f % 2], NULL, NULL);
        grove_params *p = NULL;
        CHECK_OK(grove_params_create(&p));
        CHECK_OK(grove_params_set(p, "algo", "gbdt"));
        CHECK_OK(grove_params_set(p, "train_metric", "true"));
        CHECK_OK(grove_params_set(p, "rounds", "20"));
        CHECK_OK(grove_params_set_pair(p, extra[f / 2]));
        grove_model *m = NULL;
        CHECK_OK(grove_train(d, NULL, p, &m));
        char *log = NULL;
        CHECK_OK(grove_model_log_csv(m, &log));
        const char *last = log ? strrchr(log, '\n') : NULL;
        while (last && last > log && last[-1] != '\n') last--; /* the start of the last row */
        double logged = NAN;
        if (last) {
            const char *comma = strchr(last, ',');
            logged = comma ? strtod(comma + 1, NULL) : NAN;
        }
        grove_eval *e = NULL;
        double loss = NAN;
        CHECK_OK(grove_model_evaluate(m, d, 2, &e));
        if (e) grove_eval_get(e, "logloss", &loss);
        CHECK_NEAR(logged, loss, 1e-9 * (1 + fabs(loss)));
        grove_eval_free(e);
        grove_string_free(log);
        grove_model_free(m);
        grove_params_free(p);
        grove_dataset_free(d);
    }
}

/* grove_train_predicted: the outputs gbdt hands back from its training scores are bit for bit
 * grove_model_predict's on the training data, and grove_eval_predictions on them gives
 * grove_model_evaluate's metrics exactly -- for every objective, softmax, categorical features
 * and missing values, sparse data, row and column sampling, pruning, sample weights, quantized
 * histograms, 1 and 2 threads, and validation data.  Early stopping that drops rounds, and
 * algorithms without such scores (a voting ensemble with a gbdt member among them), hand back
 * nothing. */
static void test_train_predicted(void)
{
    static const struct {
        const char *file;
        const char *kv[6];
        const char *weight; /* the column of sample weights, or NULL */
        int want;           /* 1: outputs handed back */
    } cases[] = {
        {"examples/data/breast_cancer_train.csv", {"threads=1", NULL}, NULL, 1},
        {"examples/data/breast_cancer_train.csv", {"threads=2", "subsample=0.7", "colsample_bytree=0.6", NULL}, NULL, 1},
        {"examples/data/breast_cancer_train.csv", {"gamma=0.5", "quantized_bits=4", NULL}, "mean_texture", 1},
        {"examples/data/breast_cancer_train.csv", {"objective=exponential", "max_depth=1", NULL}, NULL, 1},
        {"examples/data/breast_cancer.libsvm", {"threads=2", NULL}, NULL, 1},
        {"examples/data/penguins_train.csv", {"threads=2", "colsample_bynode=0.5", NULL}, NULL, 1},
        {"examples/data/house_votes84_train.csv", {"growth=bestfirst", "max_leaves=7", NULL}, NULL, 1},
        {"examples/data/glass_train.csv", {"threads=2", "subsample=0.8", NULL}, NULL, 1},
        {"examples/data/boston_housing_train.csv", {"objective=squared", NULL}, NULL, 1},
        {"examples/data/boston_housing_train.csv", {"objective=absolute", "subsample=0.8", NULL}, "rm", 1},
        {"examples/data/boston_housing_train.csv", {"objective=huber", "threads=2", NULL}, NULL, 1},
        {"examples/data/iris_train.csv", {"algo=voting", "voting.learners=gbdt,tree", NULL}, NULL, 0},
        {"examples/data/iris_train.csv", {"algo=forest", NULL}, NULL, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        grove_params *lp = fx_params(NULL);
        if (cases[c].weight) CHECK_OK(grove_params_set(lp, "weight", cases[c].weight));
        grove_dataset *d = fx_load(cases[c].file, lp, NULL);
        grove_params_free(lp);
        grove_params *p = fx_params((const char *const[]){"algo=gbdt", "rounds=15", NULL});
        fx_params_apply(p, cases[c].kv);
        const size_t n = grove_dataset_n_rows(d);
        const grove_schema *s = grove_dataset_schema(d);
        const size_t k = grove_schema_n_classes(s) ? grove_schema_n_classes(s) : 1;
        double *a = malloc(n * k * sizeof *a), *b = malloc(n * k * sizeof *b);
        grove_model *m = NULL;
        int predicted = -1;
        CHECK_OK(grove_train_predicted(d, NULL, p, &m, a, n * k, &predicted));
        CHECK_EQ_INT(predicted, cases[c].want);
        if (m && predicted == 1) {
            CHECK_OK(grove_model_predict(m, d, 1, b, n * k));
            CHECK(memcmp(a, b, n * k * sizeof *a) == 0);
            grove_eval *e1 = NULL, *e2 = NULL;
            char *j1 = NULL, *j2 = NULL;
            CHECK_OK(grove_model_evaluate(m, d, 2, &e1));
            CHECK_OK(grove_eval_predictions(m, d, a, n * k, &e2));
            CHECK_OK(grove_eval_json(e1, &j1));
            CHECK_OK(grove_eval_json(e2, &j2));
            CHECK(j1 && j2 && strcmp(j1, j2) == 0);
            grove_string_free(j1);
            grove_string_free(j2);
            grove_eval_free(e1);
            grove_eval_free(e2);
        }
        if (m) { /* the same model as grove_train's */
            grove_model *m2 = NULL;
            CHECK_OK(grove_train(d, NULL, p, &m2));
            CHECK(same_bytes(m, m2));
            grove_model_free(m2);
        }
        grove_model_free(m);
        free(a);
        free(b);
        grove_params_free(p);
        grove_dataset_free(d);
    }
    /* early stopping: the scores include the rounds after the best one, so nothing comes back
     * when rounds were dropped */
    grove_dataset *d = fx_load("examples/data/sonar_train.csv", NULL, NULL);
    grove_dataset *v = fx_load("examples/data/sonar_test.csv", NULL, grove_dataset_schema(d));
    grove_params *p = fx_params((const char *const[]){"algo=gbdt", "rounds=300", "learning_rate=0.5",
                                                      "max_depth=4", "early_stopping_rounds=10", NULL});
    const size_t n = grove_dataset_n_rows(d);
    double *a = malloc(n * 2 * sizeof *a);
    grove_model *m = NULL;
    int predicted = -1;
    CHECK_OK(grove_train_predicted(d, v, p, &m, a, n * 2, &predicted));
    CHECK(m && grove_model_n_rounds(m) < 300);
    CHECK_EQ_INT(predicted, 0);
    /* too small a buffer is an argument error */
    grove_model *m2 = NULL;
    CHECK(grove_train_predicted(d, v, p, &m2, a, n, &predicted) == GROVE_ERR_ARG && !m2);
    grove_eval *e = NULL;
    CHECK(grove_eval_predictions(m, d, a, n, &e) == GROVE_ERR_ARG && !e);
    free(a);
    grove_model_free(m);
    grove_params_free(p);
    grove_dataset_free(v);
    grove_dataset_free(d);
}

/* The weighted AUC (radix-sorted) against its definition, pair by pair: sum over positive i and
 * negative j of w_i w_j ([s_i > s_j] + [s_i = s_j] / 2), over (sum w_pos)(sum w_neg).  Scores
 * from a few values (ties, -0 and +0, negatives) and integer weights, so both sums are exact. */
static void test_auc_brute_force(void)
{
    static const double vals[] = {-3.5, -1e-300, -0.0, 0.0, 1e-300, 0.25, 0.25000000000000006, 7};
    enum { N = 500 };
    double s[N], y[N], w[N];
    unsigned x = 12345;
    for (int rep = 0; rep < 4; rep++) {
        for (int i = 0; i < N; i++) {
            x = x * 1103515245u + 12345u;
            s[i] = vals[(x >> 16) % 8];
            x = x * 1103515245u + 12345u;
            y[i] = (x >> 16) % 3 == 0;
            x = x * 1103515245u + 12345u;
            w[i] = (double)(1 + (x >> 16) % 4);
        }
        double num = 0, wp = 0, wn = 0;
        for (int i = 0; i < N; i++) {
            if (y[i] > 0.5) wp += w[i]; else wn += w[i];
            for (int j = 0; j < N; j++)
                if (y[i] > 0.5 && y[j] < 0.5)
                    num += w[i] * w[j] * (s[i] > s[j] ? 1.0 : s[i] == s[j] ? 0.5 : 0.0);
        }
        double auc = NAN;
        CHECK_OK(gv_weighted_auc(s, 1, y, rep % 2 ? w : NULL, N, &auc));
        if (rep % 2 == 0) { /* unit weights */
            num = 0;
            wp = wn = 0;
            for (int i = 0; i < N; i++) {
                if (y[i] > 0.5) wp += 1; else wn += 1;
                for (int j = 0; j < N; j++)
                    if (y[i] > 0.5 && y[j] < 0.5) num += s[i] > s[j] ? 1.0 : s[i] == s[j] ? 0.5 : 0.0;
            }
        }
        CHECK_EQ_DBL(auc, num / (wp * wn));
    }
    double auc = 0, one = 1, lab = 1;
    CHECK_OK(gv_weighted_auc(&one, 1, &lab, NULL, 1, &auc)); /* one class only: undefined */
    CHECK(isnan(auc));
}

/* Monotone and interaction constraints: predictions along x0 never decrease and along x1
 * never increase on a grid over other rows (with missing values in the data, depth-wise and
 * leaf-wise, exact and quantized histograms, regression and two classes); the same model for 1
 * and 2 threads; with interaction constraints no tree path mixes the groups {0, 1} and
 * {2, 3}; all-zero directions and an empty group list are no constraint (the same
 * predictions as without them). */
static void test_constraints(void)
{
    const size_t n = 1500, F = 4, NG = 40, NR = 30;
    uint64_t s = 12345;
    float *X = malloc(n * F * sizeof *X);
    double *yr = malloc(n * sizeof *yr), *yb = malloc(n * sizeof *yb);
    for (size_t i = 0; i < n; i++) {
        double v[4];
        for (size_t f = 0; f < F; f++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            v[f] = (double)(s >> 11) / 9007199254740992.0 * 2 - 1;
            X[i * F + f] = (float)v[f];
        }
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        double e = ((double)(s >> 11) / 9007199254740992.0 - 0.5);
        /* non-monotone in x0 and x1 locally (the sin), monotone in trend */
        double z = 2 * v[0] + 0.8 * sin(9 * v[0]) - 1.5 * v[1] + 0.6 * sin(7 * v[1]) + v[2] * v[3] + e;
        yr[i] = z;
        yb[i] = z > 0;
        if (i % 17 == 3) X[i * F + (i % F)] = NAN;
    }
    /* the grid: NR rows, x0 (then x1) over NG values */
    float *Xg = malloc(2 * NR * NG * F * sizeof *Xg);
    double *yg = calloc(2 * NR * NG, sizeof *yg);
    for (size_t c = 0; c < 2; c++)
        for (size_t r = 0; r < NR; r++)
            for (size_t k = 0; k < NG; k++) {
                float *row = Xg + ((c * NR + r) * NG + k) * F;
                memcpy(row, X + (r * 37 + 5) * F, F * sizeof *row);
                row[c] = (float)(-1.2 + 2.4 * (double)k / (NG - 1));
            }
    for (int task = 0; task < 2; task++) {
        const char *tk = task ? "task=classification" : "task=regression";
        float *Xc = malloc(n * F * sizeof *Xc);
        double *yc = malloc(n * sizeof *yc);
        memcpy(Xc, X, n * F * sizeof *Xc);
        memcpy(yc, task ? yb : yr, n * sizeof *yc);
        grove_dataset *d = array_set(Xc, yc, n, F, tk);
        float *Xgc = malloc(2 * NR * NG * F * sizeof *Xgc);
        double *ygc = malloc(2 * NR * NG * sizeof *ygc);
        memcpy(Xgc, Xg, 2 * NR * NG * F * sizeof *Xgc);
        memcpy(ygc, yg, 2 * NR * NG * sizeof *ygc);
        grove_dataset *g = array_set(Xgc, ygc, 2 * NR * NG, F, tk);
        const size_t k = task ? 2 : 1, ng = 2 * NR * NG;
        double *pg = malloc(ng * k * sizeof *pg);
        for (int grow = 0; grow < 4; grow++) {
            const char *g1 = grow & 1 ? "growth=bestfirst" : "max_depth=5";
            const char *g2 = grow & 1 ? "max_leaves=20" : "max_leaves=0";
            const char *q = grow & 2 ? "quantized_bits=8" : "quantized_bits=0";
            const char *kv[] = {"algo=gbdt", "rounds=25", "learning_rate=0.3", tk, g1, g2, q,
                                "monotone_constraints=(1,-1,0,0)", "threads=1", NULL};
            grove_model *m = train(d, NULL, kv);
            kv[8] = "threads=2";
            grove_model *m2 = train(d, NULL, kv);
            CHECK(same_bytes(m, m2));
            CHECK_OK(grove_model_predict(m, g, 1, pg, ng * k));
            double worst0 = INFINITY, worst1 = -INFINITY, span = 0;
            for (size_t r = 0; r < NR; r++)
                for (size_t j = 1; j < NG; j++) {
                    size_t a0 = (r * NG + j) * k + k - 1, a1 = ((NR + r) * NG + j) * k + k - 1;
                    double d0 = pg[a0] - pg[a0 - k], d1 = pg[a1] - pg[a1 - k];
                    if (d0 < worst0) worst0 = d0;
                    if (d1 > worst1) worst1 = d1;
                    span += fabs(d0);
                }
            CHECK(worst0 >= 0);
            CHECK(worst1 <= 0);
            CHECK(span > 0);
            grove_model_free(m);
            grove_model_free(m2);
            /* interaction constraints: every path within one group */
            const char *kvi[] = {"algo=gbdt", "rounds=15", tk, g1, g2, q,
                                 "interaction_constraints=[[0,1],[2,3]]", NULL};
            m = train(d, NULL, kvi);
            char *buf = NULL;
            size_t len = 0;
            CHECK_OK(grove_model_to_buffer(m, &buf, &len));
            json_t *root = json_loads(buf, 0, NULL);
            json_t *trees = json_object_get(json_object_get(root, "model"), "trees");
            CHECK(json_array_size(trees) > 0);
            size_t mixed = 0, paths = 0;
            for (size_t t = 0; t < json_array_size(trees); t++) {
                json_t *tr = json_array_get(trees, t);
                const char *fs = json_string_value(json_object_get(tr, "feature"));
                const char *ls = json_string_value(json_object_get(tr, "left"));
                const char *rs = json_string_value(json_object_get(tr, "right"));
                size_t nn = (size_t)json_integer_value(json_object_get(tr, "n_nodes"));
                if (!fs || !ls || !rs || nn == 0) {
                    CHECK(0);
                    continue;
                }
                int *fe = malloc(3 * nn * sizeof *fe), *le = fe + nn, *ri = le + nn;
                int *grp = malloc(nn * sizeof *grp); /* bit 0: group {0,1} used; bit 1: {2,3} */
                char *e;
                for (size_t i = 0; i < nn; i++) {
                    fe[i] = (int)strtol(fs, &e, 10), fs = e;
                    le[i] = (int)strtol(ls, &e, 10), ls = e;
                    ri[i] = (int)strtol(rs, &e, 10), rs = e;
                }
                grp[0] = 0;
                for (size_t i = 0; i < nn; i++) { /* children come after their parent */
                    if (fe[i] < 0) {
                        paths++;
                        mixed += grp[i] == 3;
                        continue;
                    }
                    int gi = grp[i] | (fe[i] < 2 ? 1 : 2);
                    grp[le[i]] = grp[ri[i]] = gi;
                }
                free(fe);
                free(grp);
            }
            CHECK(paths > 0);
            CHECK(mixed == 0);
            json_decref(root);
            grove_string_free(buf);
            grove_model_free(m);
        }
        /* all-zero directions and an empty group list: no constraint, the same predictions */
        const char *kv0[] = {"algo=gbdt", "rounds=10", tk, NULL};
        const char *kvz[] = {"algo=gbdt", "rounds=10", tk, "monotone_constraints=0,0,0,0",
                             "interaction_constraints=[]", NULL};
        grove_model *a = train(d, NULL, kv0), *b = train(d, NULL, kvz);
        CHECK(same_predictions(a, b, g, k));
        grove_model_free(a);
        grove_model_free(b);
        free(pg);
        grove_dataset_free(g);
        grove_dataset_free(d);
    }
    free(X);
    free(yr);
    free(yb);
    free(Xg);
    free(yg);
}

int main(void)
{
    test_auc_brute_force();
    test_training_scores_match();
    test_train_predicted();
    test_block_prediction();
    test_mushroom();
    test_exponential_is_adaboost();
    test_root_leaf_by_hand();
    test_round_trips();
    test_staged();
    test_threads();
    test_level_threads();
    test_root_fuse();
    test_quantized_threads();
    test_softmax_roots();
    test_quantized_sparse();
    test_quantized_bundles();
    test_quantized_exact_grid();
    test_early_stopping();
    test_objectives();
    test_constraints();
    TEST_MAIN_END();
}
