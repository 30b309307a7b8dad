/*
 * test_limits.c -- the limits of docs/limits.md, each refused with an error naming it: one step
 * past the limit fails, and where it is cheap the limit itself is accepted.
 *
 * Classes: a label of 65,536 classes trains a stump whose model reads back (before the limit
 * was enforced at training, 70,000 classes trained and saved a model that no loader took:
 * "n_outputs: must be in [1, 65536]"); 65,537 classes are refused by grove_train.
 * Categories: 65,536 categories of one CSV column load (codes are exact floats up to 2^24) and
 * are refused by training (16-bit bins).  LIBSVM feature indices, CSR feature counts and the
 * numeric parameters (max_depth, rounds, max_bins, max_leaves) are refused past their ranges.
 */
#include "check.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

static const char *tmp(const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

/* A dataset of n rows, one feature, row i labelled i (classification forced). */
static grove_dataset *many_classes(size_t n)
{
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    grove_params *p = NULL;
    grove_dataset *d = NULL;
    CHECK_OK(grove_params_create(&p));
    CHECK_OK(grove_params_set(p, "task", "classification"));
    for (size_t i = 0; x && y && i < n; i++) {
        x[i] = (double)(i % 7);
        y[i] = (double)i;
    }
    if (x && y && p)
        CHECK_OK(grove_dataset_from_array(x, GROVE_FLOAT64, n, 1, y, NULL, NULL, p, NULL, &d));
    grove_params_free(p);
    free(x);
    free(y);
    return d;
}

static grove_status train_stump(const grove_dataset *d, grove_model **m)
{
    grove_params *p = NULL;
    CHECK_OK(grove_params_create(&p));
    CHECK_OK(grove_params_set(p, "algo", "stump"));
    CHECK_OK(grove_params_set(p, "threads", "1"));
    grove_status st = grove_train(d, NULL, p, m);
    grove_params_free(p);
    return st;
}

static void test_classes(void)
{
    grove_dataset *d = many_classes(65536);
    CHECK_EQ_INT(grove_schema_n_classes(grove_dataset_schema(d)), 65536);
    grove_model *m = NULL, *back = NULL;
    CHECK_OK(train_stump(d, &m));
    char *buf = NULL;
    size_t len = 0;
    if (m) CHECK_OK(grove_model_to_buffer(m, &buf, &len));
    if (buf) CHECK_OK(grove_model_from_buffer(buf, len, &back));
    if (back) CHECK_EQ_INT(grove_model_n_outputs(back), 65536);
    grove_string_free(buf);
    grove_model_free(back);
    grove_model_free(m);
    grove_dataset_free(d);

    d = many_classes(65537);
    m = NULL;
    CHECK_STATUS(train_stump(d, &m), GROVE_ERR_DATA);
    CHECK(m == NULL);
    CHECK_CONTAINS(grove_last_error(), "65537 classes, at most 65536 are supported");
    grove_dataset_free(d);
}

static void test_categories(void)
{
    const char *path = tmp("cats.csv");
    FILE *fp = fopen(path, "w");
    CHECK(fp != NULL);
    if (!fp) return;
    fprintf(fp, "y,c\n");
    for (int i = 0; i < 65536; i++) fprintf(fp, "%d,k%d\n", i % 2, i);
    fclose(fp);
    grove_dataset *d = NULL;
    CHECK_OK(grove_dataset_load(path, NULL, NULL, &d));
    if (!d) return;
    grove_model *m = NULL;
    CHECK_STATUS(train_stump(d, &m), GROVE_ERR_DATA);
    CHECK(m == NULL);
    CHECK_CONTAINS(grove_last_error(), "feature 'c': 65536 categories, at most 65535");
    grove_dataset_free(d);
}

static void test_libsvm_index(void)
{
    const char *path = tmp("big.svm");
    FILE *fp = fopen(path, "w");
    CHECK(fp != NULL);
    if (!fp) return;
    fprintf(fp, "0 1:1\n1 2147483648:1\n");
    fclose(fp);
    grove_dataset *d = NULL;
    CHECK_STATUS(grove_dataset_load(path, NULL, NULL, &d), GROVE_ERR_PARSE);
    CHECK(d == NULL);
    CHECK_CONTAINS(grove_last_error(), "big.svm:2:");
    CHECK_CONTAINS(grove_last_error(), "expected a feature index in [1, 2147483647]");
}

static void test_csr_features(void)
{
    const int64_t indptr[] = {0, 0};
    grove_dataset *d = NULL;
    CHECK_STATUS(grove_dataset_from_csr(NULL, GROVE_FLOAT64, indptr, NULL, 1,
                                        (size_t)UINT32_MAX + 1, NULL, NULL, NULL, NULL, &d),
                 GROVE_ERR_ARG);
    CHECK(d == NULL);
    CHECK_CONTAINS(grove_last_error(), "expected at most 4294967295");

    /* the limit itself: 4,294,967,295 columns, of which the two holding values become the
     * model's features; it trains, predicts, and its file reads back (before, the schema asked
     * for a full entry per column past 2^31 - 1 and failed as out of memory) */
    const size_t width = UINT32_MAX, n = 8;
    int64_t ptr[9], idx[16];
    double val[16], y[8];
    for (size_t i = 0; i < n; i++) {
        ptr[i] = (int64_t)(2 * i);
        idx[2 * i] = 0;
        idx[2 * i + 1] = (int64_t)width - 1;
        val[2 * i] = (double)i;
        val[2 * i + 1] = i % 2 ? 1.0 : -1.0;
        y[i] = (double)(i % 2);
    }
    ptr[n] = (int64_t)(2 * n);
    grove_params *p = NULL;
    grove_model *m = NULL, *back = NULL;
    CHECK_OK(grove_params_create(&p));
    CHECK_OK(grove_params_set(p, "algo", "tree"));
    CHECK_OK(grove_params_set(p, "task", "classification"));
    CHECK_OK(grove_dataset_from_csr(val, GROVE_FLOAT64, ptr, idx, n, width, y, NULL, p, NULL, &d));
    if (!d) {
        grove_params_free(p);
        return;
    }
    const grove_schema *s = grove_dataset_schema(d);
    CHECK(grove_schema_n_columns(s) == width);
    CHECK(grove_schema_n_features(s) == 2);
    CHECK(grove_schema_feature_column(s, 1) == width - 1);
    CHECK_OK(grove_train(d, NULL, p, &m));
    double pred[8];
    if (m) CHECK_OK(grove_model_predict_label(m, d, 1, pred, n));
    for (size_t i = 0; m && i < n; i++) CHECK(pred[i] == y[i]);
    char *buf = NULL;
    size_t len = 0;
    if (m) CHECK_OK(grove_model_to_buffer(m, &buf, &len));
    if (buf) CHECK_OK(grove_model_from_buffer(buf, len, &back));
    if (back) CHECK(grove_schema_n_columns(grove_model_schema(back)) == width);
    grove_string_free(buf);
    grove_model_free(back);
    grove_model_free(m);
    grove_dataset_free(d);
    grove_params_free(p);
}

static void test_params(void)
{
    static const struct {
        const char *key, *too_big, *range;
    } cases[] = {
        {"max_depth", "1001", "[0, 1000]"},
        {"rounds", "100000001", "[1, 100000000]"},
        {"max_bins", "65536", "[2, 65535]"},
        {"max_bins", "1", "[2, 65535]"},
        {"max_leaves", "1073741825", "[0, 1073741824]"},
        {"rounds", "99999999999999999999999", "[1, 100000000]"},
    };
    grove_params *p = NULL;
    CHECK_OK(grove_params_create(&p));
    for (size_t i = 0; p && i < sizeof cases / sizeof *cases; i++) {
        CHECK_STATUS(grove_params_set(p, cases[i].key, cases[i].too_big), GROVE_ERR_PARAM);
        CHECK_CONTAINS(grove_last_error(), cases[i].key);
        CHECK_CONTAINS(grove_last_error(), cases[i].range);
    }
    CHECK_OK(grove_params_set(p, "max_depth", "1000"));
    CHECK_OK(grove_params_set(p, "max_bins", "65535"));
    grove_params_free(p);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/grove_test_limits_%ld", (long)getpid());
    CHECK(mkdir(dir, 0700) == 0);
    test_classes();
    test_categories();
    test_libsvm_index();
    test_csr_features();
    test_params();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    TEST_MAIN_END();
}
