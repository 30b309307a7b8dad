/*
 * test_tree_pack.c -- the compiled, blocked tree walk (learn/tree_pack.c) against the reference
 * walk gv_tree_leaf, and every tree ensemble's blocked prediction against its row-by-row one.
 *
 *  - Tree level: for every tree of 17 trained ensembles (forest, extra-trees, bagging, the
 *    AdaBoost family with stumps and trees, gbdt), on data with missing values and categorical
 *    features (trees that stay uncompiled), gv_tree_pack_leaves over blocks of every length
 *    1..GV_PREDICT_BLOCK (with and without the missing-value rule where no value is NaN, with
 *    AVX-512, AVX2 or neither, on the row-major copy and on the dataset's columns) and
 *    gv_tree_pack_leaf reach exactly gv_tree_leaf's leaf; gv_tree_pack_add_cols adds its value.
 *  - Model level: grove_model_predict (predict_block, 1 and 2 threads) and
 *    grove_model_predict_rounds equal predict_row / predict_row_rounds bit for bit (for
 *    bagging and boosting the row path is gv_tree_leaf's walk member by member), including
 *    bagging of perceptrons (members that are not trees) and a sparse LIBSVM dataset (no
 *    row-major copy).
 */
#include "check.h"
#include "ensemble/ensemble.h"
#include "learn/tree_pack.h"
#include "model/model.h"

static grove_dataset *load(const char *rel)
{
    char path[1024];
    grove_dataset *d = NULL;
    CHECK_OK(grove_dataset_load(test_src_path(rel, path, sizeof path), NULL, NULL, &d));
    return d;
}

/* The trees of a model's root component (members that are trees, or gbdt's trees). */
static size_t model_trees(const grove_model *m, const gv_tree **out, size_t cap)
{
    gv_bagging_view bv;
    gv_boost_view ov;
    gv_gbdt_view gv;
    size_t n = 0;
    const gv_component *members = NULL;
    size_t n_members = 0;
    if (gv_bagging_view_of(&m->root, &bv)) {
        members = bv.members;
        n_members = bv.n_members;
    } else if (gv_boost_view_of(&m->root, &ov)) {
        members = ov.members;
        n_members = ov.n_members;
    } else if (gv_gbdt_view_of(&m->root, &gv)) {
        for (size_t t = 0; t < gv.n_rounds * gv.n_groups && n < cap; t++) out[n++] = gv.trees[t];
        return n;
    }
    for (size_t t = 0; t < n_members && n < cap; t++)
        if (members[t].vt == &gv_tree_component) out[n++] = members[t].impl;
    return n;
}

/* Rows walked on the dataset's columns (gv_tree_pack_leaves_cols): none where the CPU has no
 * AVX-512. */
static size_t n_cols_checked_, n_levels_checked_[3];
/* Trees deeper than 12 (walked by the deep-tree walks, not laid out complete). */
static size_t n_deep_;

/* Every tree's compiled walk against gv_tree_leaf on every row of d; returns the trees seen. */
static size_t check_tree_walks(const grove_model *m, const grove_dataset *d)
{
    const gv_tree *trees[256];
    size_t n = model_trees(m, trees, 256);
    gv_tree_pack *p = NULL;
    CHECK_OK(gv_tree_pack_build(trees, n, &p));
    if (!p) return 0;
    const size_t F = d->schema->n_features, N = d->n_rows;
    for (size_t t = 0; t < n; t++) n_deep_ += gv_tree_depth(trees[t]) > 12;
    float *xs = malloc(N * F * sizeof *xs);
    const int nan = gv_rows_gather(d, 0, N, xs);
    static int32_t leaf[GV_PREDICT_BLOCK], leaf_nan[GV_PREDICT_BLOCK], lc[GV_PREDICT_BLOCK], lcn[GV_PREDICT_BLOCK];
    static double sums[GV_PREDICT_BLOCK];
    size_t bad = 0;
    /* with AVX-512, AVX2 and no vector walk, where the CPU has them */
    for (int level = 2; level >= 0; level--) {
        if (gv_tree_pack_set_simd(p, level) != level) continue;
        n_levels_checked_[level]++;
        const int cols = d->values && gv_tree_pack_cols_ok(p, N, F);
        for (size_t t = 0; t < n; t++) {
            /* blocks of lengths 1, 2, 3, ..., then the first rows as one block (up to
             * GV_PREDICT_BLOCK: the 64-row groups) */
            size_t r0 = 0, B = 1;
            int whole = 0;
            while (r0 < N) {
                size_t len = N - r0 < B ? N - r0 : B;
                gv_tree_pack_leaves(p, t, xs + r0 * F, F, len, d, r0, nan, leaf);
                /* the walk with the missing-value rule, also on rows without NaN */
                gv_tree_pack_leaves(p, t, xs + r0 * F, F, len, d, r0, 1, leaf_nan);
                if (cols) { /* the walk on the dataset's columns, both ways */
                    gv_tree_pack_leaves_cols(p, t, d->values + r0, N, len, gv_cols_has_nan(d, r0, len), lc);
                    gv_tree_pack_leaves_cols(p, t, d->values + r0, N, len, 1, lcn);
                    for (size_t r = 0; r < len; r++) bad += (lc[r] != leaf[r]) + (lcn[r] != leaf[r]);
                    /* the leaves' values added in the walk */
                    for (size_t r = 0; r < len; r++) sums[r] = 0.5;
                    gv_tree_pack_add_cols(p, t, d->values + r0, N, len, gv_cols_has_nan(d, r0, len), sums, lc);
                    for (size_t r = 0; r < len; r++)
                        bad += sums[r] != 0.5 + trees[t]->values[(size_t)leaf[r] * (size_t)trees[t]->n_outputs];
                    n_cols_checked_ += len;
                }
                for (size_t r = 0; r < len; r++) {
                    size_t want = gv_tree_leaf(trees[t], d, r0 + r);
                    bad += (size_t)leaf[r] != want;
                    bad += (size_t)leaf_nan[r] != want;
                    bad += gv_tree_pack_leaf(p, t, xs + (r0 + r) * F, d, r0 + r) != want;
                }
                r0 += len;
                B = B % GV_PREDICT_BLOCK + 1;
                if (r0 == N && !whole) {
                    whole = 1;
                    r0 = 0;
                    B = N < GV_PREDICT_BLOCK ? N : GV_PREDICT_BLOCK;
                }
            }
        }
    }
    CHECK_EQ_INT(bad, 0);
    free(xs);
    gv_tree_pack_free(p);
    return n;
}

/* grove_model_predict(_rounds) against the component's row path, bit for bit. */
static void check_model(const grove_model *m, const grove_dataset *d, const char *what)
{
    const size_t n = grove_dataset_n_rows(d), k = grove_model_n_outputs(m);
    double *a = malloc(n * k * sizeof *a), *b = malloc(n * k * sizeof *b);
    size_t T = m->root.vt->n_rounds ? m->root.vt->n_rounds(m->root.impl) : 0;
    size_t stages[] = {0, 1, T / 2 + 1};
    for (int s = 0; s < 3; s++) {
        size_t rounds = stages[s];
        if (rounds > T) continue;
        for (int threads = 1; threads <= 2; threads++) {
            if (rounds)
                CHECK_OK(grove_model_predict_rounds(m, d, rounds, threads, a, n * k));
            else
                CHECK_OK(grove_model_predict(m, d, threads, a, n * k));
            for (size_t i = 0; i < n; i++) {
                if (rounds)
                    m->root.vt->predict_row_rounds(m->root.impl, d, i, rounds, b + i * k);
                else
                    m->root.vt->predict_row(m->root.impl, d, i, b + i * k);
            }
            if (memcmp(a, b, n * k * sizeof *a) != 0)
                CHECK_FAIL_("%s: blocked prediction (rounds %zu, %d threads) differs from the row path",
                            what, rounds, threads);
            check_count_++;
        }
    }
    free(a);
    free(b);
}

/* 800 rows x 6 numeric features, a quarter of the values missing (NaN), labels from a rule
 * that sends missing values both ways, so trees learn default sides left and right. */
static grove_dataset *with_missing(int regression)
{
    enum { N = 800, F = 6 };
    static double x[N * F], y[N];
    uint64_t state = 42;
    for (size_t i = 0; i < N * F; i++) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        double u = (double)(state >> 11) * 0x1p-53;
        x[i] = (state >> 7) % 4 == 0 ? NAN : u;
    }
    for (size_t i = 0; i < N; i++) {
        const double *r = x + i * F;
        int a = isnan(r[0]) ? 1 : r[0] > 0.5, b = isnan(r[1]) ? 0 : r[1] < 0.3;
        y[i] = regression ? (double)a + 2.0 * b + (isnan(r[2]) ? 0.5 : r[2]) : (double)(a ^ b);
    }
    grove_dataset *d = NULL;
    CHECK_OK(grove_dataset_from_array(x, GROVE_FLOAT64, N, F, y, NULL, NULL, NULL, NULL, &d));
    return d;
}

int main(void)
{
    /* missing values in compiled trees: their default sides */
    static const char *const missing_cases[][4] = {
        {"algo=forest", "rounds=10", NULL}, {"algo=gbdt", "rounds=10", NULL},
        {"algo=adaboost", "base=tree", "base.max_depth=3", NULL}, {"algo=extra-trees", "rounds=10", NULL},
        {"algo=gbdt", "rounds=10", "max_depth=9", NULL},
    };
    size_t n_missing_trees = 0;
    for (int c = 0; c < 6; c++) {
        grove_dataset *d = with_missing(c == 5);
        grove_params *p = NULL;
        CHECK_OK(grove_params_create(&p));
        const char *const *kv = c == 5 ? missing_cases[0] : missing_cases[c];
        for (int j = 0; kv[j]; j++) CHECK_OK(grove_params_set_pair(p, kv[j]));
        grove_model *m = NULL;
        CHECK_OK(grove_train(d, NULL, p, &m));
        if (m) {
            n_missing_trees += check_tree_walks(m, d);
            check_model(m, d, kv[0]);
        }
        grove_model_free(m);
        grove_params_free(p);
        grove_dataset_free(d);
    }
    CHECK(n_missing_trees >= 40);

    static const struct {
        const char *train, *test;
        const char *kv[6];
    } cases[] = {
        {"examples/data/penguins_train.csv", "examples/data/penguins_test.csv", {"algo=forest", "rounds=20", NULL}},
        {"examples/data/breast_cancer_train.csv", "examples/data/breast_cancer_test.csv", {"algo=forest", "rounds=15", NULL}},
        {"examples/data/boston_housing_train.csv", "examples/data/boston_housing_test.csv", {"algo=forest", "rounds=15", NULL}},
        {"examples/data/iris_train.csv", "examples/data/iris_test.csv", {"algo=extra-trees", "rounds=15", NULL}},
        {"examples/data/penguins_train.csv", "examples/data/penguins_test.csv", {"algo=bagging", "rounds=10", NULL}},
        {"examples/data/iris_train.csv", "examples/data/iris_test.csv", {"algo=bagging", "base=perceptron", "rounds=5", NULL}},
        {"examples/data/breast_cancer_train.csv", "examples/data/breast_cancer_test.csv", {"algo=adaboost", "rounds=30", NULL}},
        {"examples/data/penguins_train.csv", "examples/data/penguins_test.csv", {"algo=samme", "base=tree", "base.max_depth=3", "rounds=10", NULL}},
        {"examples/data/iris_train.csv", "examples/data/iris_test.csv", {"algo=samme.r", "base=tree", "base.max_depth=2", "rounds=10", NULL}},
        {"examples/data/wine_train.csv", "examples/data/wine_test.csv", {"algo=adaboost.m1", "base=tree", "base.max_depth=2", "rounds=10", NULL}},
        {"examples/data/glass_train.csv", "examples/data/glass_test.csv", {"algo=adaboost.m2", "rounds=20", NULL}},
        {"examples/data/boston_housing_train.csv", "examples/data/boston_housing_test.csv", {"algo=adaboost.r2", "base=tree", "base.max_depth=4", "rounds=15", NULL}},
        {"examples/data/penguins_train.csv", "examples/data/penguins_test.csv", {"algo=gbdt", "rounds=10", NULL}},
        {"examples/data/breast_cancer_train.csv", "examples/data/breast_cancer_test.csv", {"algo=gbdt", "rounds=10", "max_depth=14", NULL}},
        {"examples/data/boston_housing_train.csv", "examples/data/boston_housing_test.csv", {"algo=gbdt", "rounds=10", NULL}},
        {"examples/data/house_votes84_train.csv", "examples/data/house_votes84_test.csv", {"algo=forest", "rounds=10", NULL}},
        {"examples/data/breast_cancer.libsvm", "examples/data/breast_cancer.libsvm", {"algo=forest", "rounds=5", NULL}},
    };
    size_t n_trees = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        grove_dataset *tr = load(cases[c].train);
        grove_params *p = NULL;
        CHECK_OK(grove_params_create(&p));
        for (int j = 0; cases[c].kv[j]; j++) CHECK_OK(grove_params_set_pair(p, cases[c].kv[j]));
        grove_model *m = NULL;
        CHECK_OK(grove_train(tr, NULL, p, &m));
        if (m) {
            char path[1024];
            grove_dataset *te = NULL;
            CHECK_OK(grove_dataset_load(test_src_path(cases[c].test, path, sizeof path), NULL, grove_model_schema(m), &te));
            if (te) {
                n_trees += check_tree_walks(m, te);
                check_model(m, te, cases[c].kv[0]);
                check_model(m, tr, cases[c].kv[0]);
            }
            grove_dataset_free(te);
        }
        grove_model_free(m);
        grove_params_free(p);
        grove_dataset_free(tr);
    }
    printf("trees walked: %zu (deeper than 12: %zu); rows walked on columns: %zu; packs walked "
           "with AVX-512, AVX2, no vectors: %zu, %zu, %zu\n", n_trees, n_deep_, n_cols_checked_,
           n_levels_checked_[2], n_levels_checked_[1], n_levels_checked_[0]);
    CHECK(n_deep_ > 0);
    CHECK(n_levels_checked_[0] > 0);
    CHECK(n_trees > 200);
    TEST_MAIN_END();
}
