/*
 * test_stacking.c -- the neural network base learner (mlp), stacking, voting and the
 * bias-variance decomposition.
 *
 *  mlp: learns XOR (not linearly separable) and breast_cancer above a floor, regression on a
 *       sine, integer weights ~ duplicated rows (the objective is identical; the SGD paths
 *       differ, so the check is agreement of the predicted labels), determinism across thread
 *       counts, bagging of networks.
 *  stacking: against its best base learner on five public data sets (a table is printed;
 *       stacking may not lose more than 3 points to the best base learner), passthrough and a
 *       tree meta-learner, the regression default (Breiman's non-negative combiner).
 *  voting: hard votes with one non-zero weight reproduce that member's labels, soft votes its
 *       probabilities; equal weights.
 *  save -> load -> predict is bit-identical for mlp, stacking (three meta-learners), voting.
 *  biasvar: the identities (error = bias + net variance; mse = bias^2 + variance) and the
 *       textbook claims on synthetic data: bagging deep trees cuts the variance and leaves the
 *       bias about the same; boosting stumps (adaboost) cuts the bias of a stump.
 */
#include "check.h"
#include "fixtures.h"

#include <jansson.h>
#include <unistd.h>

#include "data/dataset.h"
#include "ensemble/registry.h"

static uint64_t rng_state = 12345;
static double accuracy(const grove_model *m, const grove_dataset *d)
{
    if (!m) return 0;
    grove_eval *e = NULL;
    double a = 0;
    CHECK_OK(grove_model_evaluate(m, d, 1, &e));
    if (e) grove_eval_get(e, "accuracy", &a);
    grove_eval_free(e);
    return a;
}

static double *predict(const grove_model *m, const grove_dataset *d, int threads)
{
    size_t n = grove_dataset_n_rows(d) * grove_model_n_outputs(m);
    double *out = calloc(n ? n : 1, sizeof *out);
    CHECK_OK(grove_model_predict(m, d, threads, out, n));
    return out;
}

static int same(const double *a, const double *b, size_t n)
{
    return memcmp(a, b, n * sizeof *a) == 0;
}

/* A two-feature synthetic set: XOR (label = x0 x1 > 0), circle (x0^2 + x1^2 < 0.5) or the
 * regression target sin(3 x0) + x1. */
enum { XOR, CIRCLE, SINE };
static double label_noise; /* the fraction of class labels flipped (training sets) */
static grove_dataset *synthetic(int kind, size_t n)
{
    double *X = malloc(2 * n * sizeof *X), *y = malloc(n * sizeof *y);
    for (size_t i = 0; i < n; i++) {
        double a = 2 * fx_unif(&rng_state) - 1, b = 2 * fx_unif(&rng_state) - 1;
        X[2 * i] = a;
        X[2 * i + 1] = b;
        y[i] = kind == XOR ? (a * b > 0) : kind == CIRCLE ? (a * a + b * b < 0.5) : sin(3 * a) + b;
        if (kind != SINE && fx_unif(&rng_state) < label_noise)
            y[i] = 1 - y[i];
    }
    grove_params *p = NULL;
    grove_params_create(&p);
    if (kind == SINE) grove_params_set(p, "task", "regression");
    grove_dataset *d = NULL;
    CHECK_OK(grove_dataset_from_array(X, GROVE_FLOAT64, n, 2, y, NULL, NULL, p, NULL, &d));
    grove_params_free(p);
    free(X);
    free(y);
    return d;
}

/* save -> load -> predict bit-identical, and the reloaded model saves to the same bytes. */
static void check_round_trip(const grove_model *m, const grove_dataset *d, const char *name)
{
    char path[256], path2[300];
    snprintf(path, sizeof path, "/tmp/grove_test_stacking_%s_%ld.model", name, (long)getpid());
    snprintf(path2, sizeof path2, "%s.2", path);
    grove_model *m2 = NULL;
    CHECK_OK(grove_model_save(m, path));
    CHECK_OK(grove_model_load(path, &m2));
    if (!m2) return;
    double *a = predict(m, d, 1), *b = predict(m2, d, 1);
    size_t n = grove_dataset_n_rows(d) * grove_model_n_outputs(m);
    if (!same(a, b, n)) fprintf(stderr, "round trip of %s differs\n", name);
    CHECK(same(a, b, n));
    CHECK_OK(grove_model_save(m2, path2));
    FILE *f1 = fopen(path, "rb"), *f2 = fopen(path2, "rb");
    int eq = f1 && f2;
    while (eq) {
        int c1 = fgetc(f1), c2 = fgetc(f2);
        if (c1 != c2) eq = 0;
        if (c1 == EOF || c2 == EOF) break;
    }
    CHECK(eq);
    if (f1) fclose(f1);
    if (f2) fclose(f2);
    remove(path);
    remove(path2);
    free(a);
    free(b);
    grove_model_free(m2);
}

static void test_mlp(void)
{
    /* XOR: a linear model cannot beat ~50 %; one hidden layer can */
    grove_dataset *tr = synthetic(XOR, 600), *te = synthetic(XOR, 600);
    const char *kv[] = {"algo=mlp", "mlp.activation=tanh", "mlp.hidden=16", "seed=3", NULL};
    grove_model *m = fx_train(tr, NULL, kv);
    double acc = accuracy(m, te);
    fprintf(stderr, "mlp XOR accuracy %.4f\n", acc);
    CHECK(acc > 0.9);
    const char *lkv[] = {"algo=logistic", NULL};
    grove_model *lin = fx_train(tr, NULL, lkv);
    CHECK(accuracy(lin, te) < 0.7);
    check_round_trip(m, te, "mlp_xor");
    grove_model_free(lin);
    grove_model_free(m);

    /* regression: sin(3 x0) + x1 */
    grove_dataset *rtr = synthetic(SINE, 600), *rte = synthetic(SINE, 400);
    const char *rkv[] = {"algo=mlp", "mlp.activation=tanh", "seed=1", NULL};
    m = fx_train(rtr, NULL, rkv);
    grove_eval *e = NULL;
    double r2 = 0;
    CHECK_OK(grove_model_evaluate(m, rte, 1, &e));
    if (e) grove_eval_get(e, "r2", &r2);
    fprintf(stderr, "mlp sine r2 %.4f\n", r2);
    CHECK(r2 > 0.9);
    grove_eval_free(e);
    check_round_trip(m, rte, "mlp_reg");
    grove_model_free(m);
    grove_dataset_free(rtr);
    grove_dataset_free(rte);

    /* a public data set; the same seed on 1 and 4 threads gives the same network */
    grove_dataset *bc = fx_load("examples/data/breast_cancer_train.csv", NULL, NULL);
    grove_dataset *bt =
        fx_load("examples/data/breast_cancer_test.csv", NULL, grove_dataset_schema(bc));
    const char *k1[] = {"algo=mlp", "seed=7", "threads=1", NULL};
    const char *k4[] = {"algo=mlp", "seed=7", "threads=4", NULL};
    grove_model *m1 = fx_train(bc, NULL, k1), *m4 = fx_train(bc, NULL, k4);
    acc = accuracy(m1, bt);
    fprintf(stderr, "mlp breast_cancer accuracy %.4f\n", acc);
    CHECK(acc > 0.93);
    size_t n = grove_dataset_n_rows(bt) * 2;
    double *a = predict(m1, bt, 1), *b = predict(m4, bt, 3);
    CHECK(same(a, b, n));
    free(a);
    free(b);

    /* weights = duplication: rows 0..99 with weight 2 vs the same rows twice */
    size_t N = grove_dataset_n_rows(bc);
    size_t *rows = malloc((N + 100) * sizeof *rows);
    for (size_t i = 0; i < N; i++) rows[i] = i;
    for (size_t i = 0; i < 100; i++) rows[N + i] = i;
    grove_dataset *dup = NULL;
    CHECK_OK(grove_dataset_subset(bc, rows, N + 100, &dup));
    /* the weighted copy: bc's rows with weight 2 on rows 0..99 (set through the internal
     * layout: the dataset owns and frees its weights array) */
    grove_dataset *wd = NULL;
    CHECK_OK(grove_dataset_subset(bc, rows, N, &wd));
    if (!wd) return;
    wd->weights = malloc(N * sizeof *wd->weights);
    for (size_t i = 0; i < N; i++) wd->weights[i] = i < 100 ? 2 : 1;
    grove_model *mw = fx_train(wd, NULL, k1), *md = fx_train(dup, NULL, k1);
    double *lw = malloc(grove_dataset_n_rows(bt) * sizeof *lw);
    double *ld = malloc(grove_dataset_n_rows(bt) * sizeof *ld);
    CHECK_OK(grove_model_predict_label(mw, bt, 1, lw, grove_dataset_n_rows(bt)));
    CHECK_OK(grove_model_predict_label(md, bt, 1, ld, grove_dataset_n_rows(bt)));
    size_t agree = 0;
    for (size_t i = 0; i < grove_dataset_n_rows(bt); i++) agree += lw[i] == ld[i];
    double frac = (double)agree / (double)grove_dataset_n_rows(bt);
    fprintf(stderr, "mlp weights vs duplication: labels agree on %.4f of the test rows\n", frac);
    CHECK(frac >= 0.95);
    free(lw);
    free(ld);
    free(rows);
    grove_model_free(mw);
    grove_model_free(md);
    grove_dataset_free(wd);
    grove_dataset_free(dup);

    /* bagging of networks */
    if (gv_learner_find("bagging")) {
        const char *bk1[] = {"algo=bagging", "base=mlp", "rounds=5", "seed=2", "threads=1", NULL};
        const char *bk4[] = {"algo=bagging", "base=mlp", "rounds=5", "seed=2", "threads=4", NULL};
        grove_model *b1 = fx_train(bc, NULL, bk1), *b4 = fx_train(bc, NULL, bk4);
        acc = accuracy(b1, bt);
        fprintf(stderr, "bagging of 5 mlps on breast_cancer: accuracy %.4f\n", acc);
        CHECK(acc > 0.93);
        a = predict(b1, bt, 1);
        b = predict(b4, bt, 2);
        CHECK(same(a, b, n));
        check_round_trip(b1, bt, "bag_mlp");
        free(a);
        free(b);
        grove_model_free(b1);
        grove_model_free(b4);
    }
    grove_model_free(m1);
    grove_model_free(m4);
    grove_dataset_free(bc);
    grove_dataset_free(bt);
    grove_dataset_free(tr);
    grove_dataset_free(te);
}

static void test_stacking_table(void)
{
    static const char *const sets[] = {"breast_cancer", "ionosphere", "sonar", "wine", "iris",
                                       "glass"};
    static const char *const bases[] = {"tree", "forest", "logistic"};
    fprintf(stderr, "\n%-14s %8s %8s %8s %8s %8s\n", "data", "tree", "forest", "logistic",
            "stacking", "best");
    for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++) {
        char a[256], b[256];
        snprintf(a, sizeof a, "examples/data/%s_train.csv", sets[s]);
        snprintf(b, sizeof b, "examples/data/%s_test.csv", sets[s]);
        grove_dataset *tr = fx_load(a, NULL, NULL);
        if (!tr) continue;
        grove_dataset *te = fx_load(b, NULL, grove_dataset_schema(tr));
        double acc[3], best = 0;
        for (int l = 0; l < 3; l++) {
            char algo[64];
            snprintf(algo, sizeof algo, "algo=%s", bases[l]);
            const char *kv[] = {algo, "seed=1", NULL};
            grove_model *m = fx_train(tr, NULL, kv);
            acc[l] = accuracy(m, te);
            if (acc[l] > best) best = acc[l];
            grove_model_free(m);
        }
        const char *kv[] = {"algo=stacking", "stack.learners=tree,forest,logistic", "seed=1",
                            NULL};
        grove_model *m = fx_train(tr, NULL, kv);
        double st = accuracy(m, te);
        fprintf(stderr, "%-14s %8.4f %8.4f %8.4f %8.4f %8.4f\n", sets[s], acc[0], acc[1], acc[2],
                st, best);
        /* "a couple of points", plus one test row for the tiny test sets (glass: 65 rows) */
        CHECK(st >= best - 0.03 - 1.0 / (double)grove_dataset_n_rows(te));
        if (s == 0) check_round_trip(m, te, "stack_logistic");
        grove_model_free(m);
        grove_dataset_free(tr);
        grove_dataset_free(te);
    }
}

static void test_stacking_variants(void)
{
    grove_dataset *tr = fx_load("examples/data/glass_train.csv", NULL, NULL);
    grove_dataset *te = fx_load("examples/data/glass_test.csv", NULL, grove_dataset_schema(tr));
    /* passthrough + a tree meta-learner; determinism across threads */
    const char *k1[] = {"algo=stacking", "stack.learners=tree,logistic,mlp",
                        "stack.passthrough=true", "stack.meta=forest", "rounds=30", "seed=4",
                        "threads=1", NULL};
    const char *k3[] = {"algo=stacking", "stack.learners=tree,logistic,mlp",
                        "stack.passthrough=true", "stack.meta=forest", "rounds=30", "seed=4",
                        "threads=3", NULL};
    grove_model *m1 = fx_train(tr, NULL, k1), *m3 = fx_train(tr, NULL, k3);
    double acc = accuracy(m1, te);
    fprintf(stderr, "glass stacking (passthrough, forest meta): accuracy %.4f\n", acc);
    CHECK(acc > 0.6);
    size_t n = grove_dataset_n_rows(te) * grove_model_n_outputs(m1);
    double *a = predict(m1, te, 1), *b = predict(m3, te, 4);
    CHECK(same(a, b, n));
    check_round_trip(m1, te, "stack_forest_meta");
    free(a);
    free(b);
    grove_model_free(m1);
    grove_model_free(m3);

    /* bad parameters */
    grove_params *p =
        fx_params((const char *const[]){"algo=stacking", "stack.learners=tree,nope", NULL});
    grove_model *m = NULL;
    CHECK_STATUS(grove_train(tr, NULL, p, &m), GROVE_ERR_PARAM);
    CHECK_CONTAINS(grove_last_error(), "nope");
    grove_params_free(p);
    p = fx_params((const char *const[]){"algo=stacking", "stack.meta=linear", NULL});
    CHECK_STATUS(grove_train(tr, NULL, p, &m), GROVE_ERR_PARAM);
    grove_params_free(p);
    p = fx_params((const char *const[]){"algo=voting", "voting.learners=tree,logistic",
                                        "voting.weights=1", NULL});
    CHECK_STATUS(grove_train(tr, NULL, p, &m), GROVE_ERR_PARAM);
    CHECK_CONTAINS(grove_last_error(), "voting.weights");
    grove_params_free(p);
    grove_dataset_free(tr);
    grove_dataset_free(te);

    /* regression: the default meta-learner (Breiman's non-negative combiner) and passthrough */
    tr = fx_load("examples/data/boston_housing_train.csv", NULL, NULL);
    te = fx_load("examples/data/boston_housing_test.csv", NULL, grove_dataset_schema(tr));
    const char *rkv[] = {"algo=stacking", "stack.learners=tree,forest", "rounds=50", "seed=1",
                         NULL};
    const char *fkv[] = {"algo=forest", "rounds=50", "seed=1", NULL};
    const char *pkv[] = {"algo=stacking", "stack.learners=tree,forest", "rounds=50",
                         "stack.passthrough=true", "seed=1", NULL};
    grove_model *ms = fx_train(tr, NULL, rkv), *mf = fx_train(tr, NULL, fkv),
                *mp = fx_train(tr, NULL, pkv);
    grove_eval *e = NULL;
    double rs = 0, rf = 0, rp = 0;
    CHECK_OK(grove_model_evaluate(ms, te, 1, &e));
    grove_eval_get(e, "rmse", &rs);
    grove_eval_free(e);
    CHECK_OK(grove_model_evaluate(mf, te, 1, &e));
    grove_eval_get(e, "rmse", &rf);
    grove_eval_free(e);
    CHECK_OK(grove_model_evaluate(mp, te, 1, &e));
    grove_eval_get(e, "rmse", &rp);
    grove_eval_free(e);
    fprintf(stderr, "boston_housing rmse: forest %.4f, stacking %.4f, stacking+passthrough %.4f\n",
            rf, rs, rp);
    CHECK(rs <= rf * 1.1);
    CHECK(rp <= rf * 1.2);
    check_round_trip(ms, te, "stack_linear");
    check_round_trip(mp, te, "stack_linear_pass");
    grove_model_free(ms);
    grove_model_free(mf);
    grove_model_free(mp);
    grove_dataset_free(tr);
    grove_dataset_free(te);
}

static void test_voting(void)
{
    grove_dataset *tr = fx_load("examples/data/wine_train.csv", NULL, NULL);
    grove_dataset *te = fx_load("examples/data/wine_test.csv", NULL, grove_dataset_schema(tr));
    size_t n = grove_dataset_n_rows(te), K = 3;
    const char *tk[] = {"algo=tree", "seed=5", NULL};
    grove_model *tree = fx_train(tr, NULL, tk);
    /* one non-zero weight: the vote is that member (tree, trained with the member's stream;
     * trees do not use their stream, so it equals a tree trained alone) */
    const char *hk[] = {"algo=voting", "voting.learners=tree,logistic,mlp",
                        "voting.weights=1,0,0", "seed=5", NULL};
    const char *sk[] = {"algo=voting", "voting.learners=tree,logistic,mlp", "voting.mode=soft",
                        "voting.weights=1,0,0", "seed=5", NULL};
    grove_model *hv = fx_train(tr, NULL, hk), *sv = fx_train(tr, NULL, sk);
    double *lt = calloc(n, sizeof *lt), *lh = calloc(n, sizeof *lh);
    CHECK_OK(grove_model_predict_label(tree, te, 1, lt, n));
    CHECK_OK(grove_model_predict_label(hv, te, 1, lh, n));
    CHECK(same(lt, lh, n));
    double *pt = predict(tree, te, 1), *ps = predict(sv, te, 1);
    CHECK(same(pt, ps, n * K));
    free(lt);
    free(lh);
    free(pt);
    free(ps);
    grove_model_free(hv);
    grove_model_free(sv);
    grove_model_free(tree);

    const char *h[] = {"algo=voting", "voting.learners=tree,logistic,mlp", "seed=5", NULL};
    const char *s[] = {"algo=voting", "voting.learners=tree,logistic,mlp", "voting.mode=soft",
                       "seed=5", NULL};
    hv = fx_train(tr, NULL, h);
    sv = fx_train(tr, NULL, s);
    double ah = accuracy(hv, te), as = accuracy(sv, te);
    fprintf(stderr, "wine voting: hard %.4f, soft %.4f\n", ah, as);
    CHECK(ah > 0.9);
    CHECK(as > 0.9);
    /* hard-vote outputs are vote shares: multiples of 1/3 */
    double *ph = predict(hv, te, 1);
    for (size_t i = 0; i < n * K; i++) CHECK_NEAR(ph[i] * 3, floor(ph[i] * 3 + 0.5), 1e-12);
    free(ph);
    check_round_trip(hv, te, "vote_hard");
    check_round_trip(sv, te, "vote_soft");
    grove_model_free(hv);
    grove_model_free(sv);
    grove_dataset_free(tr);
    grove_dataset_free(te);
}

static json_t *biasvar(const grove_dataset *tr, const grove_dataset *te, const char *const *kv,
                       size_t R)
{
    grove_params *p = fx_params(kv);
    char *text = NULL;
    CHECK_OK(grove_biasvar(tr, te, p, R, &text));
    grove_params_free(p);
    json_t *o = text ? json_loads(text, 0, NULL) : NULL;
    grove_string_free(text);
    return o;
}

static double jnum(const json_t *o, const char *k)
{
    return json_number_value(json_object_get(o, k));
}

static void test_biasvar(void)
{
    /* 20 % of the training labels flipped (deep trees fit them: variance); the test labels
     * are the noise-free targets */
    label_noise = 0.2;
    grove_dataset *tr = synthetic(CIRCLE, 300);
    label_noise = 0;
    grove_dataset *te = synthetic(CIRCLE, 1000);
    const char *tk[] = {"algo=tree", "seed=1", NULL};
    const char *bk[] = {"algo=bagging", "base=tree", "rounds=25", "seed=1", NULL};
    const char *sk[] = {"algo=stump", "seed=1", NULL};
    const char *ak[] = {"algo=adaboost", "base=stump", "rounds=100", "seed=1", NULL};
    const char *const *algos[] = {tk, bk, sk, ak};
    const char *names[] = {"tree (deep)", "bagging 25 trees", "stump", "adaboost 100 stumps"};
    json_t *o[4];
    fprintf(stderr, "\nbias-variance (0-1 loss, Domingos 2000), circle with 20 %% flipped training labels, n = 300, 20 replicates, "
                    "1000 test rows\n%-22s %8s %8s %8s %8s %8s %8s\n",
            "algorithm", "error", "bias", "variance", "V_unb", "V_bias", "net_var");
    for (int a = 0; a < 4; a++) {
        o[a] = NULL;
        if (a == 1 && !gv_learner_find("bagging")) continue;
        o[a] = biasvar(tr, te, algos[a], 20);
        if (!o[a]) continue;
        fprintf(stderr, "%-22s %8.4f %8.4f %8.4f %8.4f %8.4f %8.4f\n", names[a],
                jnum(o[a], "error"), jnum(o[a], "bias"), jnum(o[a], "variance"),
                jnum(o[a], "unbiased_variance"), jnum(o[a], "biased_variance"),
                jnum(o[a], "net_variance"));
        /* Domingos' identity in the noise-free two-class case */
        CHECK_NEAR(jnum(o[a], "error"), jnum(o[a], "bias") + jnum(o[a], "net_variance"), 1e-12);
        CHECK_NEAR(jnum(o[a], "net_variance"),
                   jnum(o[a], "unbiased_variance") - jnum(o[a], "biased_variance"), 1e-12);
    }
    if (o[0] && o[1]) { /* bagging cuts variance, bias about the same */
        /* under 0-1 loss averaging also repairs some of the tree's noise-driven main
         * predictions, so the bias may fall too; it must not rise */
        CHECK(jnum(o[1], "variance") < 0.8 * jnum(o[0], "variance"));
        CHECK(jnum(o[1], "bias") <= jnum(o[0], "bias") + 0.01);
    }
    if (o[2] && o[3]) /* boosting stumps cuts bias */
        CHECK(jnum(o[3], "bias") < jnum(o[2], "bias") - 0.1);
    for (int a = 0; a < 4; a++) json_decref(o[a]);

    /* regression: mse = bias^2 + variance; held-out split when no test set */
    grove_dataset *rtr = synthetic(SINE, 400);
    const char *rk[] = {"algo=tree", "max_depth=4", "seed=1", NULL};
    json_t *r = biasvar(rtr, NULL, rk, 10);
    if (r) {
        fprintf(stderr, "regression tree depth 4 on the sine: mse %.4f = bias2 %.4f + variance "
                        "%.4f\n",
                jnum(r, "mse"), jnum(r, "bias2"), jnum(r, "variance"));
        CHECK_NEAR(jnum(r, "mse"), jnum(r, "bias2") + jnum(r, "variance"),
                   1e-9 * jnum(r, "mse"));
        CHECK_EQ_INT(json_integer_value(json_object_get(r, "n_test")), 120);
    }
    json_decref(r);
    /* squared loss, the cleanest form of the claim: noisy training targets (sd 0.5), bagging
     * deep regression trees cuts the variance and leaves bias^2 about the same */
    if (gv_learner_find("bagging")) {
        grove_dataset *ntr = synthetic(SINE, 300), *nte = synthetic(SINE, 500);
        for (size_t i = 0; i < ntr->n_rows; i++) {
            double u1 = fx_unif(&rng_state) + 1e-12, u2 = fx_unif(&rng_state);
            ntr->labels[i] += 0.5 * sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
        }
        const char *rt[] = {"algo=tree", "seed=1", NULL};
        const char *rb[] = {"algo=bagging", "base=tree", "rounds=25", "seed=1", NULL};
        json_t *t = biasvar(ntr, nte, rt, 20), *b = biasvar(ntr, nte, rb, 20);
        if (t && b) {
            fprintf(stderr, "squared loss, sine + noise: tree mse %.4f = bias2 %.4f + var %.4f; "
                            "bagging mse %.4f = bias2 %.4f + var %.4f\n",
                    jnum(t, "mse"), jnum(t, "bias2"), jnum(t, "variance"), jnum(b, "mse"),
                    jnum(b, "bias2"), jnum(b, "variance"));
            CHECK(jnum(b, "variance") < 0.5 * jnum(t, "variance"));
            CHECK(fabs(jnum(b, "bias2") - jnum(t, "bias2")) < 0.25 * jnum(t, "bias2") + 0.01);
        }
        json_decref(t);
        json_decref(b);
        grove_dataset_free(ntr);
        grove_dataset_free(nte);
    }
    char *text = NULL;
    CHECK_STATUS(grove_biasvar(rtr, NULL, NULL, 1, &text), GROVE_ERR_ARG);
    CHECK(text == NULL);
    grove_dataset_free(rtr);
    grove_dataset_free(tr);
    grove_dataset_free(te);
}

int main(void)
{
    test_mlp();
    test_stacking_table();
    test_stacking_variants();
    test_voting();
    test_biasvar();
    TEST_MAIN_END();
}
