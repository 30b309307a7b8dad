/*
 * test_sparse.c -- the sparse layout (dataset.h's compressed columns, bin.h's compressed rows,
 * the tree engine's sparse histograms) against the dense one on the same files.
 *
 * Differential: a LIBSVM file loaded dense and sparse (gv_libsvm_set_layout) holds the same
 * values cell by cell, subsets alike, and trains the same trees, forests, boosted stumps and
 * gbdt, so the predictions are identical.  Regression: a four-row file naming feature
 * 2,000,011 is stored by its 7 values, and an index beyond the stated limit is refused by name.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "data/dataset.h"

static const char *tmp_file(const char *name)
{
    static char buf[512];
    const char *dir = getenv("TMPDIR");
    snprintf(buf, sizeof buf, "%s/grove_test_sparse_%ld_%s", dir ? dir : "/tmp", (long)getpid(),
             name);
    return buf;
}

static const char *write_file(const char *name, const char *text)
{
    const char *path = tmp_file(name);
    FILE *f = fopen(path, "w");
    if (!f) return NULL;
    fputs(text, f);
    fclose(f);
    return path;
}

/* A sparse classification file: n rows, F features, each row ~k stored values (some NaN, some
 * negative, repeated small integers so that bins are shared), three classes from a rule on a
 * few features.  Deterministic (LCG). */
static const char *make_file(const char *name, size_t n, size_t F, size_t k)
{
    const char *path = tmp_file(name);
    FILE *f = fopen(path, "w");
    if (!f) return NULL;
    unsigned long long s = 12345;
#define NEXT() (s = s * 6364136223846793005ULL + 1442695040888963407ULL, (unsigned)(s >> 33))
    for (size_t i = 0; i < n; i++) {
        double x1 = 0, x7 = 0;
        size_t idx = 0;
        char line[8192];
        size_t len = 0;
        for (size_t j = 0; j < k && idx < F; j++) {
            idx += 1 + NEXT() % (2 * F / k);
            if (idx > F) break;
            unsigned r = NEXT() % 100;
            char val[32];
            if (r < 3)
                snprintf(val, sizeof val, "nan");
            else if (r < 40)
                snprintf(val, sizeof val, "%u", 1 + NEXT() % 4);
            else
                snprintf(val, sizeof val, "%.3f", (double)(NEXT() % 2000) / 100.0 - 5.0);
            if (idx == 1) x1 = atof(val);
            if (idx == 7) x7 = atof(val);
            len += (size_t)snprintf(line + len, sizeof line - len, " %zu:%s", idx, val);
        }
        int y = (x1 > 1.0) + (x7 > 2.0 || (NEXT() % 10 == 0));
        fprintf(f, "%d%s\n", y, line);
    }
    fclose(f);
    return path;
#undef NEXT
}

static grove_dataset *load_layout(const char *path, int layout, const char *param)
{
    grove_params *p = NULL;
    grove_dataset *d = NULL;
    CHECK_OK(grove_params_create(&p));
    if (param) CHECK_OK(grove_params_set_pair(p, param));
    gv_libsvm_set_layout(layout);
    CHECK_OK(grove_dataset_load(path, p, NULL, &d));
    gv_libsvm_set_layout(0);
    grove_params_free(p);
    return d;
}

static int same_values(const grove_dataset *a, const grove_dataset *b)
{
    if (a->n_rows != b->n_rows || a->schema->n_features != b->schema->n_features) return 0;
    for (size_t f = 0; f < a->schema->n_features; f++)
        for (size_t i = 0; i < a->n_rows; i++) {
            float x = gv_value(a, f, i), y = gv_value(b, f, i);
            if (!(x == y || (isnan(x) && isnan(y)))) {
                fprintf(stderr, "feature %zu row %zu: %g vs %g\n", f, i, x, y);
                return 0;
            }
        }
    for (size_t i = 0; i < a->n_rows; i++)
        if (a->labels[i] != b->labels[i]) return 0;
    return 1;
}

static void test_values(void)
{
    const char *path = make_file("values.svm", 700, 300, 12);
    for (int missing = 0; missing < 2; missing++) {
        const char *param = missing ? "libsvm_absent=missing" : NULL;
        grove_dataset *dense = load_layout(path, 1, param), *sparse = load_layout(path, 2, param);
        grove_dataset *aut = load_layout(path, 0, param);
        CHECK(dense->values != NULL && dense->sp_col == NULL);
        CHECK(sparse->values == NULL && sparse->sp_col != NULL);
        CHECK(aut->values == NULL); /* 12 of 300 values per row: automatic choice is sparse */
        CHECK(same_values(dense, sparse));
        CHECK(same_values(dense, aut));
        /* subsets with repeated and reordered rows */
        size_t rows[] = {5, 3, 3, 699, 0, 17, 5, 400};
        grove_dataset *sd = NULL, *ss = NULL;
        CHECK_OK(grove_dataset_subset(dense, rows, 8, &sd));
        CHECK_OK(grove_dataset_subset(sparse, rows, 8, &ss));
        CHECK(ss->values == NULL);
        CHECK(same_values(sd, ss));
        float *v = gv_dataset_dense_values(sparse);
        CHECK(v && memcmp(v, dense->values, 700 * 300 * sizeof *v) == 0);
        gv_free(v);
        grove_dataset_free(sd);
        grove_dataset_free(ss);
        grove_dataset_free(dense);
        grove_dataset_free(sparse);
        grove_dataset_free(aut);
    }
    remove(path);
}

/* Trains `algo` on both layouts and checks that the predictions agree exactly. */
static void check_same_model(const grove_dataset *dense, const grove_dataset *sparse,
                             const char *const *params)
{
    grove_params *p = NULL;
    CHECK_OK(grove_params_create(&p));
    CHECK_OK(grove_params_set(p, "threads", "1")); /* the machine may be shared: no spinning */
    for (const char *const *kv = params; *kv; kv++) CHECK_OK(grove_params_set_pair(p, *kv));
    grove_model *md = NULL, *ms = NULL;
    CHECK_OK(grove_train(dense, NULL, p, &md));
    CHECK_OK(grove_train(sparse, NULL, p, &ms));
    if (!md || !ms) {
        grove_model_free(md);
        grove_model_free(ms);
        grove_params_free(p);
        return;
    }
    size_t n = dense->n_rows * grove_model_n_outputs(md);
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    CHECK_OK(grove_model_predict(md, dense, 1, a, n));
    CHECK_OK(grove_model_predict(ms, sparse, 2, b, n));
    CHECK_OK(grove_model_predict(md, sparse, 1, c, n)); /* a dense model on sparse rows */
    size_t diff = 0, diff_c = 0;
    for (size_t k = 0; k < n; k++) {
        diff += a[k] != b[k];
        diff_c += a[k] != c[k];
    }
    if (diff || diff_c) fprintf(stderr, "%s: %zu and %zu of %zu outputs differ\n", params[0], diff, diff_c, n);
    CHECK_EQ_INT(diff, 0);
    CHECK_EQ_INT(diff_c, 0);
    /* the model learned something: training accuracy above the majority class */
    size_t right = 0, K = grove_model_n_outputs(md);
    for (size_t i = 0; i < dense->n_rows && K > 1; i++) {
        size_t best = 0;
        for (size_t k = 1; k < K; k++)
            if (a[i * K + k] > a[i * K + best]) best = k;
        right += (double)best == dense->labels[i];
    }
    if (K > 1) CHECK(right > dense->n_rows / 2);
    free(a);
    free(b);
    free(c);
    grove_model_free(md);
    grove_model_free(ms);
    grove_params_free(p);
}

static void test_training(void)
{
    /* 5000 rows: above GV_SPARSE_MIN_ROWS, so the dense matrix uses its own sparse lists too */
    const char *path = make_file("train.svm", 5000, 400, 20);
    grove_dataset *dense = load_layout(path, 1, NULL), *sparse = load_layout(path, 2, NULL);
    static const char *const tree[] = {"algo=tree", "max_depth=6", NULL};
    static const char *const tree_bf[] = {"algo=tree", "growth=bestfirst", "max_leaves=20", NULL};
    static const char *const forest[] = {"algo=forest", "rounds=8", "max_depth=8", "seed=3", NULL};
    static const char *const ada[] = {"algo=samme", "rounds=20", NULL};
    static const char *const gbdt[] = {"algo=gbdt", "rounds=15", "max_depth=4", NULL};
    static const char *const gbdt_sub[] = {"algo=gbdt", "rounds=10", "colsample_bynode=0.5",
                                           "subsample=0.8", "seed=7", NULL};
    static const char *const reg[] = {"algo=tree", "task=regression", "max_depth=5", NULL};
    check_same_model(dense, sparse, tree);
    check_same_model(dense, sparse, tree_bf);
    check_same_model(dense, sparse, forest);
    check_same_model(dense, sparse, ada);
    check_same_model(dense, sparse, gbdt);
    check_same_model(dense, sparse, gbdt_sub);
    check_same_model(dense, sparse, reg);
    grove_dataset_free(dense);
    grove_dataset_free(sparse);
    remove(path);
}

/* Issue 16: "a 60-byte file exhausts the machine".  Only the columns that hold a value are
 * features (schema feature_ids); a file following the model's schema maps its indices to them
 * and drops the others; an index beyond 2^31 - 1 is refused by name. */
static void test_huge_index(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s",
             write_file("huge.svm", "1 1:0.5 3:1\n0 2000011:1\n1 1:0.7\n0 2:1 5:2\n"));
    for (int layout = 0; layout <= 2; layout++) {
        grove_dataset *d = load_layout(path, layout, NULL);
        if (!d) continue;
        static const uint32_t ids[] = {0, 1, 2, 4, 2000010};
        CHECK(layout == 1 ? d->values != NULL : d->values == NULL);
        CHECK_EQ_INT(d->schema->n_features, 5);
        CHECK_EQ_INT(d->schema->n_columns, 2000011);
        CHECK(d->schema->feature_ids && !memcmp(d->schema->feature_ids, ids, sizeof ids));
        CHECK(!strcmp(d->schema->feature_names[4], "f2000011"));
        CHECK(gv_value(d, 4, 1) == 1.0f && gv_value(d, 4, 0) == 0.0f && gv_value(d, 3, 3) == 2.0f);
        grove_params *p = NULL;
        grove_model *m = NULL;
        CHECK_OK(grove_params_create(&p));
        CHECK_OK(grove_params_set(p, "algo", "stump"));
        CHECK_OK(grove_params_set(p, "threads", "1"));
        CHECK_OK(grove_train(d, NULL, p, &m));
        double out[8];
        CHECK_OK(grove_model_predict(m, d, 1, out, 8));
        CHECK(out[0] > out[1] || out[0] < out[1]);
        /* another file read with the model's schema: its index 2000011 is the model's feature
         * 4, index 7 (no value in training) and 3000000 (beyond) are dropped */
        const char *other = write_file("huge2.svm", "0 7:3 2000011:1\n1 1:0.5 3:1 3000000:1\n");
        grove_dataset *e = NULL;
        double o2[4] = {0};
        CHECK_OK(grove_dataset_load(other, p, grove_model_schema(m), &e));
        if (e) {
            CHECK_EQ_INT(e->schema->n_features, 5);
            CHECK(gv_value(e, 4, 0) == 1.0f && gv_value(e, 0, 1) == 0.5f);
            CHECK(strstr(e->warning, "index 3000000") != NULL);
            CHECK_OK(grove_model_predict(m, e, 1, o2, 4));
            CHECK(o2[0] == out[2] && o2[2] == out[0]);
        }
        /* saved, the model keeps only the features its split reads, and the file
         * read back with the saved model's schema predicts the same */
        char *buf = NULL;
        size_t len = 0;
        grove_model *back = NULL;
        CHECK_OK(grove_model_to_buffer(m, &buf, &len));
        if (buf) CHECK_OK(grove_model_from_buffer(buf, len, &back));
        /* and of its cut points only the one the split names: one mapper of 3 bins */
        const char *nb = buf ? strstr(buf, "\"n_bins\": ") : NULL;
        CHECK(nb && !strncmp(nb, "\"n_bins\": 3,", 12) && !strstr(nb + 1, "\"n_bins\""));
        if (back) {
            const grove_schema *bs = grove_model_schema(back);
            CHECK_EQ_INT(grove_schema_n_features(bs), 1);
            CHECK_EQ_INT(grove_schema_n_columns(bs), 2000011);
            grove_dataset *e2 = NULL;
            CHECK_OK(grove_dataset_load(other, p, bs, &e2));
            double o3[4];
            if (e2) CHECK_OK(grove_model_predict(back, e2, 1, o3, 4));
            if (e2) CHECK(!memcmp(o3, o2, sizeof o3));
            grove_dataset_free(e2);
            char *buf2 = NULL;
            size_t len2 = 0;
            CHECK_OK(grove_model_to_buffer(back, &buf2, &len2));
            CHECK(len2 == len && buf2 && !memcmp(buf, buf2, len));
            grove_string_free(buf2);
        }
        grove_model_free(back);
        grove_string_free(buf);
        grove_dataset_free(e);
        remove(other);
        grove_model_free(m);
        grove_params_free(p);
        grove_dataset_free(d);
    }
    remove(path);
    snprintf(path, sizeof path, "%s",
             write_file("huger.svm", "1 1:0.5 3:1\n0 2147483647:1\n1 1:0.7\n0 2:1 5:2\n"));
    grove_dataset *e = NULL;
    CHECK_OK(grove_dataset_load(path, NULL, NULL, &e));
    if (e) CHECK_EQ_INT(e->schema->n_columns, 2147483647);
    grove_dataset_free(e);
    e = NULL;
    write_file("huger.svm", "1 1:0.5 3:1\n0 2147483648:1\n1 1:0.7\n0 2:1 5:2\n");
    CHECK_STATUS(grove_dataset_load(path, NULL, NULL, &e), GROVE_ERR_PARSE);
    CHECK(e == NULL);
    CHECK_CONTAINS(grove_last_error(), ":2:2: expected a feature index in [1, 2147483647], found "
                                       "\"2147483648\"");
    remove(path);
}

int main(void)
{
    test_values();
    test_training();
    test_huge_index();
    TEST_MAIN_END();
}
