/*
 * test_binding_api.c -- the C API that language bindings use: datasets from strided arrays,
 * compressed sparse rows, naming features, categories and classes, and models to and from
 * memory buffers.
 *
 * Differential checks: every strided layout (row-major, column-major, a view with gaps) gives
 * the same model bytes as the row-major array; a buffer equals the file grove_model_save writes;
 * a model read back from its buffer predicts bit-identically.
 */
#include "check.h"

#include "grove.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 200, F = 3 };

static char *model_bytes(const grove_model *m, size_t *len)
{
    char *buf = NULL;
    CHECK_OK(grove_model_to_buffer(m, &buf, len));
    return buf;
}

static grove_model *train(const grove_dataset *d)
{
    grove_params *p = NULL;
    grove_model *m = NULL;
    CHECK_OK(grove_params_create(&p));
    CHECK_OK(grove_params_set(p, "algo", "forest"));
    CHECK_OK(grove_params_set(p, "rounds", "5"));
    CHECK_OK(grove_params_set(p, "seed", "7"));
    CHECK_OK(grove_train(d, NULL, p, &m));
    grove_params_free(p);
    return m;
}

static void test_layouts_and_buffers(void)
{
    static double rm[N * F], cm[N * F], gap[N * 2 * F], y[N];
    static float rm32[N * F];
    for (size_t i = 0; i < N; i++) {
        for (size_t f = 0; f < F; f++) {
            double x = (i % 3 == 1 && f == 2) ? NAN : sin((double)(i * 7 + f * 13)) * 10;
            rm[i * F + f] = x;
            rm32[i * F + f] = (float)x;
            cm[f * N + i] = x;
            gap[i * 2 * F + 2 * f] = x;          /* every other element of a wider array */
            gap[i * 2 * F + 2 * f + 1] = 1e300;  /* never read */
        }
        y[i] = rm[i * F] + rm[i * F + 1] > 0 ? 3 : 5;
    }
    grove_dataset *a = NULL, *b = NULL, *c = NULL, *d = NULL;
    CHECK_OK(grove_dataset_from_array(rm, GROVE_FLOAT64, N, F, y, NULL, NULL, NULL, NULL, &a));
    CHECK_OK(grove_dataset_from_strided(cm, GROVE_FLOAT64, N, F, 1, N, y, NULL, NULL, NULL,
                                        NULL, &b));
    CHECK_OK(grove_dataset_from_strided(gap, GROVE_FLOAT64, N, F, 2 * F, 2, y, NULL, NULL, NULL,
                                        NULL, &c));
    CHECK_OK(grove_dataset_from_strided(rm32, GROVE_FLOAT32, N, F, F, 1, y, NULL, NULL, NULL,
                                        NULL, &d));
    grove_model *ma = train(a), *mb = train(b), *mc = train(c), *md = train(d);
    size_t la, lb, lc, ld;
    char *ba = model_bytes(ma, &la), *bb = model_bytes(mb, &lb), *bc = model_bytes(mc, &lc),
         *bd = model_bytes(md, &ld);
    CHECK_EQ_INT(la, lb);
    CHECK(la == lb && memcmp(ba, bb, la) == 0);
    CHECK(la == lc && memcmp(ba, bc, la) == 0);
    CHECK(la == ld && memcmp(ba, bd, la) == 0);
    CHECK_EQ_INT(strlen(ba), la);

    /* the buffer is the file's bytes */
    char path[] = "/tmp/grove_test_binding_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK_OK(grove_model_save(ma, path));
    FILE *fp = fopen(path, "rb");
    char *file = calloc(la + 16, 1);
    size_t got = fp ? fread(file, 1, la + 16, fp) : 0;
    if (fp) fclose(fp);
    remove(path);
    CHECK_EQ_INT(got, la);
    CHECK(memcmp(file, ba, la) == 0);
    free(file);

    /* read back: the same predictions, bit for bit */
    grove_model *back = NULL;
    CHECK_OK(grove_model_from_buffer(ba, la, &back));
    double p1[N * 2], p2[N * 2];
    CHECK_OK(grove_model_predict(ma, a, 1, p1, N * 2));
    CHECK_OK(grove_model_predict(back, a, 2, p2, N * 2));
    CHECK(memcmp(p1, p2, sizeof p1) == 0);

    /* a cut buffer is refused with a message naming the buffer */
    grove_model *bad = (grove_model *)1;
    CHECK_STATUS(grove_model_from_buffer(ba, la / 2, &bad), GROVE_ERR_MODEL);
    CHECK(bad == NULL);
    CHECK_CONTAINS(grove_last_error(), "<buffer>");
    CHECK_STATUS(grove_model_from_buffer(NULL, 5, &bad), GROVE_ERR_ARG);
    CHECK_STATUS(grove_model_to_buffer(ma, NULL, &la), GROVE_ERR_ARG);

    /* strides whose last index overflows are refused */
    grove_dataset *o = NULL;
    CHECK_STATUS(grove_dataset_from_strided(rm, GROVE_FLOAT64, N, F, SIZE_MAX / 4, 1, NULL,
                                            NULL, NULL, NULL, NULL, &o), GROVE_ERR_ARG);
    CHECK(o == NULL);

    grove_string_free(ba);
    grove_string_free(bb);
    grove_string_free(bc);
    grove_string_free(bd);
    grove_model_free(ma);
    grove_model_free(mb);
    grove_model_free(mc);
    grove_model_free(md);
    grove_model_free(back);
    grove_dataset_free(a);
    grove_dataset_free(b);
    grove_dataset_free(c);
    grove_dataset_free(d);
}

static void test_names_and_categories(void)
{
    /* feature 0 numeric, feature 1 a category code of {"red", "green", "blue"} or missing */
    double x[8 * 2] = {1, 0, 2, 1, 3, 2, 4, NAN, 5, 0, 6, 1, 7, 2, 8, 0};
    double y[8] = {0, 1, 0, 1, 0, 1, 0, 1};
    grove_dataset *d = NULL;
    CHECK_OK(grove_dataset_from_array(x, GROVE_FLOAT64, 8, 2, y, NULL, NULL, NULL, NULL, &d));
    const char *colors[] = {"red", "green", "blue"};
    const char *two[] = {"red", "green"};
    const char *dup[] = {"red", "red", "blue"};
    CHECK_OK(grove_dataset_set_feature(d, 1, "color", colors, 3));
    CHECK_OK(grove_dataset_set_feature(d, 0, "size", NULL, 0));
    const grove_schema *s = grove_dataset_schema(d);
    CHECK_STR(grove_schema_feature_name(s, 0), "size");
    CHECK_STR(grove_schema_feature_name(s, 1), "color");
    CHECK(grove_schema_is_categorical(s, 1));
    CHECK(!grove_schema_is_categorical(s, 0));
    /* a code outside the categories, a repeated category, a feature out of range */
    CHECK_STATUS(grove_dataset_set_feature(d, 1, NULL, two, 2), GROVE_ERR_DATA);
    CHECK_CONTAINS(grove_last_error(), "row 2, feature 1 ('color')");
    CHECK_STATUS(grove_dataset_set_feature(d, 1, NULL, dup, 3), GROVE_ERR_DATA);
    CHECK_CONTAINS(grove_last_error(), "repeated");
    CHECK_STATUS(grove_dataset_set_feature(d, 2, "x", NULL, 0), GROVE_ERR_ARG);
    CHECK(grove_schema_is_categorical(s, 1));

    const char *classes[] = {"no", "yes"};
    const char *three[] = {"a", "b", "c"};
    CHECK_OK(grove_dataset_set_classes(d, classes, 2, "answer"));
    CHECK_STR(grove_schema_class_name(s, 1), "yes");
    CHECK_STR(grove_schema_label_name(s), "answer");
    CHECK_STATUS(grove_dataset_set_classes(d, three, 3, NULL), GROVE_ERR_DATA);
    CHECK_STR(grove_schema_class_name(s, 0), "no");

    /* a model trained on it carries the names; data built with its schema follows them */
    grove_params *p = NULL;
    grove_model *m = NULL;
    CHECK_OK(grove_params_create(&p));
    CHECK_OK(grove_params_set(p, "min_samples_leaf", "1"));
    CHECK_OK(grove_train(d, NULL, p, &m));
    const grove_schema *ms = grove_model_schema(m);
    CHECK_STR(grove_schema_feature_name(ms, 1), "color");
    CHECK_STR(grove_schema_class_name(ms, 0), "no");
    double q[2] = {1, 5}; /* code 5 is not a color */
    grove_dataset *bad = NULL;
    CHECK_STATUS(grove_dataset_from_array(q, GROVE_FLOAT64, 1, 2, NULL, NULL, NULL, NULL, ms,
                                          &bad), GROVE_ERR_DATA);
    grove_params_free(p);
    grove_model_free(m);
    grove_dataset_free(d);
}

/* CSR input: a sparse matrix (5% stored: kept sparse) and a half-full one (stored dense) give
 * the model bytes and predictions of the same values passed as a dense array; stored NaN is
 * missing; malformed structure is refused naming the row. */
static void test_csr(void)
{
    enum { R = 300, C = 40 };
    static double dense[R * C], y[R], vals[R * C], p1[R * 2], p2[R * 2];
    static int64_t indptr[R + 1], idx[R * C];
    for (int fill = 0; fill < 2; fill++) {
        int64_t nnz = 0;
        indptr[0] = 0;
        for (size_t i = 0; i < R; i++) {
            for (size_t f = 0; f < C; f++) {
                unsigned h = (unsigned)(i * 2654435761u ^ f * 40503u) % 100;
                int stored = fill ? h < 50 : h < 5;
                double x = stored ? (h % 7 == 3 ? NAN : cos((double)(i + 3 * f)) * 5) : 0.0;
                dense[i * C + f] = x;
                if (stored) {
                    vals[nnz] = x;
                    idx[nnz++] = (int64_t)f;
                }
            }
            indptr[i + 1] = nnz;
            y[i] = (i % 4 == 0) ? 1 : 2;
        }
        grove_dataset *a = NULL, *b = NULL;
        CHECK_OK(grove_dataset_from_array(dense, GROVE_FLOAT64, R, C, y, NULL, NULL, NULL, NULL,
                                          &a));
        CHECK_OK(grove_dataset_from_csr(vals, GROVE_FLOAT64, indptr, idx, R, C, y, NULL, NULL,
                                        NULL, &b));
        CHECK_EQ_INT(grove_dataset_n_rows(b), R);
        CHECK_EQ_INT(grove_dataset_n_features(b), C);
        grove_model *ma = train(a), *mb = train(b);
        size_t la, lb;
        char *ba = model_bytes(ma, &la), *bb = model_bytes(mb, &lb);
        CHECK(la == lb && memcmp(ba, bb, la) == 0);
        CHECK_OK(grove_model_predict(ma, a, 1, p1, R * 2));
        CHECK_OK(grove_model_predict(ma, b, 2, p2, R * 2));
        CHECK(memcmp(p1, p2, sizeof p1) == 0);
        grove_string_free(ba);
        grove_string_free(bb);
        grove_model_free(ma);
        grove_model_free(mb);
        grove_dataset_free(a);
        grove_dataset_free(b);
    }
    /* malformed: unsorted indices, an index out of range, indptr not starting at 0 or going
     * down; an infinite stored value */
    double v[3] = {1, 2, 3};
    int64_t ip[3] = {0, 2, 3}, bad_order[3] = {1, 0, 2}, bad_range[3] = {0, 1, 9},
            ip1[3] = {1, 2, 3}, ip_down[3] = {0, 3, 2}, good[3] = {0, 1, 2};
    grove_dataset *o = NULL;
    CHECK_STATUS(grove_dataset_from_csr(v, GROVE_FLOAT64, ip, bad_order, 2, 3, NULL, NULL, NULL,
                                        NULL, &o), GROVE_ERR_DATA);
    CHECK_CONTAINS(grove_last_error(), "row 0");
    CHECK_STATUS(grove_dataset_from_csr(v, GROVE_FLOAT64, ip, bad_range, 2, 3, NULL, NULL, NULL,
                                        NULL, &o), GROVE_ERR_DATA);
    CHECK_CONTAINS(grove_last_error(), "row 1");
    CHECK_STATUS(grove_dataset_from_csr(v, GROVE_FLOAT64, ip1, good, 2, 3, NULL, NULL, NULL,
                                        NULL, &o), GROVE_ERR_DATA);
    CHECK_STATUS(grove_dataset_from_csr(v, GROVE_FLOAT64, ip_down, good, 2, 3, NULL, NULL, NULL,
                                        NULL, &o), GROVE_ERR_DATA);
    v[1] = INFINITY;
    CHECK_STATUS(grove_dataset_from_csr(v, GROVE_FLOAT64, ip, good, 2, 3, NULL, NULL, NULL, NULL,
                                        &o), GROVE_ERR_DATA);
    CHECK(o == NULL);
}

/* The array copy is shared among threads: with a bad value in two blocks, every thread count
 * names the first one. */
static void test_parallel_copy_first_error(void)
{
    enum { R = 5000, C = 4 };
    static double x[R * C];
    for (size_t k = 0; k < R * C; k++) x[k] = (double)(k % 97);
    x[4321 * C + 2] = INFINITY;
    x[1234 * C + 1] = -INFINITY;
    for (int th = 1; th <= 4; th++) {
        grove_params *p = NULL;
        char t[16];
        snprintf(t, sizeof t, "%d", th);
        CHECK_OK(grove_params_create(&p));
        CHECK_OK(grove_params_set(p, "threads", t));
        grove_dataset *d = NULL;
        CHECK_STATUS(grove_dataset_from_array(x, GROVE_FLOAT64, R, C, NULL, NULL, NULL, p, NULL,
                                              &d), GROVE_ERR_DATA);
        CHECK_CONTAINS(grove_last_error(), "row 1234, feature 1");
        CHECK(d == NULL);
        grove_params_free(p);
    }
}

int main(void)
{
    test_layouts_and_buffers();
    test_names_and_categories();
    test_csr();
    test_parallel_copy_first_error();
    TEST_MAIN_END();
}
