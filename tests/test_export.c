/*
 * test_export.c -- export to C (model/export.c, grove_model_export): for every algorithm that
 * exports, a model trained on a public dataset is exported in both forms (one function per tree,
 * one node table), the file is compiled with `cc -std=c99 -Wall -Werror -O2` together with a
 * small driver, and its outputs on the test rows are compared with grove_model_predict's -- what
 * `grove predict` prints -- bit for bit (memcmp of the doubles), through the float batch entry
 * point and through the double one.  Models with a network (mlp, alone or inside an ensemble)
 * are refused with GROVE_ERR_ARG and a message naming it; so are bad prefixes and forms.
 *
 * Skipped (with a message, passing) when no C compiler `cc` is on the PATH.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#include "data/dataset.h"

static char dir[] = "/tmp/grove_export_XXXXXX";

static const char driver_text[] =
    "#include <stdio.h>\n#include <stdlib.h>\n"
    "void model_predict_batch(const float *x, size_t n_rows, double *out);\n"
    "void model_predict_double(const double *x, double *out);\n"
    "int main(int argc, char **argv)\n{\n"
    "    size_t n, f, k, i, j;\n    float *x;\n    double *xd, *o1, *o2;\n    FILE *fp;\n"
    "    if (argc != 6) return 2;\n"
    "    n = strtoul(argv[3], 0, 10); f = strtoul(argv[4], 0, 10); k = strtoul(argv[5], 0, 10);\n"
    "    x = malloc(n * f * sizeof *x + 1); xd = malloc(f * sizeof *xd + 1);\n"
    "    o1 = malloc(n * k * sizeof *o1 + 1); o2 = malloc(n * k * sizeof *o2 + 1);\n"
    "    fp = fopen(argv[1], \"rb\");\n"
    "    if (!x || !xd || !o1 || !o2 || !fp || fread(x, sizeof *x, n * f, fp) != n * f) return 3;\n"
    "    fclose(fp);\n"
    "    model_predict_batch(x, n, o1);\n"
    "    for (i = 0; i < n; i++) {\n"
    "        for (j = 0; j < f; j++) xd[j] = x[i * f + j];\n"
    "        model_predict_double(xd, o2 + i * k);\n    }\n"
    "    fp = fopen(argv[2], \"wb\");\n"
    "    if (!fp || fwrite(o1, sizeof *o1, n * k, fp) != n * k ||\n"
    "        fwrite(o2, sizeof *o2, n * k, fp) != n * k || fclose(fp) != 0) return 4;\n"
    "    return 0;\n}\n";

static int write_file(const char *path, const void *p, size_t n)
{
    FILE *fp = fopen(path, "wb");
    if (!fp) return -1;
    size_t w = fwrite(p, 1, n, fp);
    return fclose(fp) == 0 && w == n ? 0 : -1;
}

typedef struct exp_case {
    const char *train, *test; /* under examples/data */
    const char *params[8];    /* key=value, NULL-terminated */
} exp_case;

static const exp_case cases[] = {
    {"iris_train.csv", "iris_test.csv", {"algo=tree"}},
    {"boston_housing_train.csv", "boston_housing_test.csv", {"algo=tree", "max_depth=6"}},
    {"house_votes84_train.csv", "house_votes84_test.csv", {"algo=tree"}},
    {"house_votes84_train.csv", "house_votes84_test.csv", {"algo=id3"}},
    {"penguins_train.csv", "penguins_test.csv", {"algo=id3"}},
    {"breast_cancer_train.csv", "breast_cancer_test.csv", {"algo=stump"}},
    {"iris_train.csv", "iris_test.csv", {"algo=forest", "rounds=20"}},
    {"penguins_train.csv", "penguins_test.csv", {"algo=forest", "rounds=15"}},
    {"boston_housing_train.csv", "boston_housing_test.csv", {"algo=forest", "rounds=10"}},
    {"wine_train.csv", "wine_test.csv", {"algo=extra-trees", "rounds=15"}},
    {"breast_cancer_train.csv", "breast_cancer_test.csv", {"algo=bagging", "rounds=10"}},
    {"boston_housing_train.csv", "boston_housing_test.csv", {"algo=bagging", "rounds=8"}},
    {"breast_cancer_train.csv", "breast_cancer_test.csv", {"algo=adaboost", "rounds=30"}},
    {"house_votes84_train.csv", "house_votes84_test.csv", {"algo=adaboost", "rounds=10",
                                                           "base=tree", "base.max_depth=2"}},
    {"glass_train.csv", "glass_test.csv", {"algo=adaboost.m1", "rounds=15", "base=tree",
                                           "base.max_depth=3"}},
    {"wine_train.csv", "wine_test.csv", {"algo=samme", "rounds=20"}},
    {"iris_train.csv", "iris_test.csv", {"algo=samme.r", "rounds=10", "base=tree",
                                         "base.max_depth=2"}},
    {"glass_train.csv", "glass_test.csv", {"algo=adaboost.m2", "rounds=20"}},
    {"boston_housing_train.csv", "boston_housing_test.csv", {"algo=adaboost.r2", "rounds=15",
                                                             "base=tree", "base.max_depth=3"}},
    {"iris_train.csv", "iris_test.csv", {"algo=adaboost.m1", "rounds=5", "base=perceptron"}},
    {"boston_housing_train.csv", "boston_housing_test.csv", {"algo=gbdt", "rounds=30"}},
    {"boston_housing_train.csv", "boston_housing_test.csv", {"algo=gbdt", "rounds=20",
                                                             "objective=absolute"}},
    {"boston_housing_train.csv", "boston_housing_test.csv", {"algo=gbdt", "rounds=20",
                                                             "objective=huber"}},
    {"breast_cancer_train.csv", "breast_cancer_test.csv", {"algo=gbdt", "rounds=30"}},
    {"breast_cancer_train.csv", "breast_cancer_test.csv", {"algo=gbdt", "rounds=20",
                                                           "objective=exponential"}},
    {"iris_train.csv", "iris_test.csv", {"algo=gbdt", "rounds=15", "objective=softmax"}},
    /* log links (out = exp(s)) and the quantile objective's refit leaves */
    {"boston_housing_train.csv", "boston_housing_test.csv", {"algo=gbdt", "rounds=15",
                                                             "objective=poisson"}},
    {"boston_housing_train.csv", "boston_housing_test.csv", {"algo=gbdt", "rounds=15",
                                                             "objective=quantile", "quantile_alpha=0.8"}},
    {"penguins_train.csv", "penguins_test.csv", {"algo=gbdt", "rounds=10"}},
    {"house_votes84_train.csv", "house_votes84_test.csv", {"algo=gbdt", "rounds=10"}},
    {"iris_train.csv", "iris_test.csv", {"algo=perceptron"}},
    {"penguins_train.csv", "penguins_test.csv", {"algo=perceptron"}},
    {"breast_cancer_train.csv", "breast_cancer_test.csv", {"algo=logistic"}},
    {"penguins_train.csv", "penguins_test.csv", {"algo=logistic"}},
    {"breast_cancer_train.csv", "breast_cancer_test.csv", {"algo=filter-boost",
                                                           "filter.depth=2"}},
    {"digits_train.csv", "digits_test.csv", {"algo=filter-boost", "base=tree",
                                             "base.max_depth=3"}},
    {"digits_train.csv", "digits_test.csv", {"algo=confidence-boost",
                                                           "confidence.epsilon=0.3",
                                                           "base=tree", "base.max_depth=2"}},
    {"iris_train.csv", "iris_test.csv", {"algo=voting",
                                         "voting.learners=stump,tree,logistic"}},
    {"iris_train.csv", "iris_test.csv", {"algo=voting", "voting.learners=tree,logistic",
                                         "voting.mode=soft", "voting.weights=1,2"}},
    {"iris_train.csv", "iris_test.csv", {"algo=stacking",
                                         "stack.learners=stump,tree,logistic"}},
    {"penguins_train.csv", "penguins_test.csv", {"algo=stacking", "stack.learners=tree,forest",
                                                 "base.rounds=10", "stack.passthrough=true",
                                                 "stack.meta=tree"}},
    {"boston_housing_train.csv", "boston_housing_test.csv", {"algo=stacking",
                                                             "stack.learners=tree,forest",
                                                             "base.rounds=10"}},
    {"breast_cancer_train.csv", "breast_cancer_test.csv", {"algo=bagging", "rounds=3",
                                                           "base=logistic"}},
};

static grove_dataset *load(const char *name, const grove_schema *schema)
{
    char rel[256], path[512];
    snprintf(rel, sizeof rel, "examples/data/%s", name);
    grove_dataset *d = NULL;
    CHECK_OK(grove_dataset_load(test_src_path(rel, path, sizeof path), NULL, schema, &d));
    return d;
}

/* Exports m in `form`, compiles it with the driver, runs it on d's rows and compares. */
static void check_export(const grove_model *m, const grove_dataset *d, const char *form,
                         const char *what)
{
    char *text = NULL;
    CHECK_OK(grove_model_export(m, "c", "model", form, &text));
    if (!text) return;
    char path[600], cmd[2400];
    snprintf(path, sizeof path, "%s/model.c", dir);
    CHECK(write_file(path, text, strlen(text)) == 0);
    grove_string_free(text);
    snprintf(cmd, sizeof cmd,
             "cc -std=c99 -Wall -Wextra -Werror -O2 -o %s/prog %s/model.c %s/driver.c -lm", dir,
             dir, dir);
    int rc = system(cmd);
    CHECK_EQ_INT(rc, 0);
    if (rc != 0) {
        fprintf(stderr, "  compile failed for %s (%s form); kept in %s\n", what, form, dir);
        return;
    }
    const size_t n = d->n_rows, F = d->schema->n_features, K = grove_model_n_outputs(m);
    float *x = malloc(n * F * sizeof *x + 1);
    double *want = malloc(n * K * sizeof *want + 1), *got = malloc(2 * n * K * sizeof *got + 1);
    CHECK(x && want && got);
    if (!x || !want || !got) goto done;
    for (size_t i = 0; i < n; i++)
        for (size_t f = 0; f < F; f++) x[i * F + f] = gv_value(d, f, i);
    snprintf(path, sizeof path, "%s/rows.bin", dir);
    CHECK(write_file(path, x, n * F * sizeof *x) == 0);
    snprintf(cmd, sizeof cmd, "%s/prog %s/rows.bin %s/out.bin %zu %zu %zu", dir, dir, dir, n, F,
             K);
    CHECK_EQ_INT(system(cmd), 0);
    snprintf(path, sizeof path, "%s/out.bin", dir);
    FILE *fp = fopen(path, "rb");
    CHECK(fp != NULL);
    if (!fp) goto done;
    size_t r = fread(got, sizeof *got, 2 * n * K, fp);
    fclose(fp);
    CHECK_EQ_INT(r, 2 * n * K);
    CHECK_OK(grove_model_predict(m, d, 1, want, n * K));
    size_t bad = 0, first = SIZE_MAX;
    for (size_t j = 0; j < n * K; j++)
        if (memcmp(&want[j], &got[j], sizeof *want) || memcmp(&want[j], &got[n * K + j], sizeof *want)) {
            bad++;
            if (first == SIZE_MAX) first = j;
        }
    CHECK_EQ_INT(bad, 0);
    if (bad)
        fprintf(stderr, "  %s (%s form): %zu of %zu outputs differ; first: row %zu output %zu: "
                        "grove %.17g, export %.17g / %.17g\n",
                what, form, bad, n * K, first / K, first % K, want[first], got[first],
                got[n * K + first]);
    else
        fprintf(stderr, "  %-60s %-5s %4zu rows x %zu outputs: bit-identical\n", what, form, n, K);
done:
    free(x);
    free(want);
    free(got);
}

static void test_refusals(void)
{
    grove_dataset *d = load("iris_train.csv", NULL);
    grove_params *p = NULL;
    CHECK_OK(grove_params_create(&p));
    grove_model *m = NULL;
    char *text = NULL;
    CHECK_OK(grove_params_set(p, "algo", "mlp"));
    CHECK_OK(grove_params_set(p, "mlp.epochs", "5"));
    CHECK_OK(grove_train(d, NULL, p, &m));
    CHECK_STATUS(grove_model_export(m, "c", NULL, NULL, &text), GROVE_ERR_ARG);
    CHECK(text == NULL);
    CHECK_CONTAINS(grove_last_error(), "mlp");
    CHECK_CONTAINS(grove_last_error(), "cannot be exported");
    grove_model_free(m);
    m = NULL;
    /* bagging of networks: the member is named */
    CHECK_OK(grove_params_set(p, "algo", "bagging"));
    CHECK_OK(grove_params_set(p, "rounds", "2"));
    CHECK_OK(grove_params_set(p, "base", "mlp"));
    CHECK_OK(grove_params_set(p, "base.mlp.epochs", "3"));
    CHECK_OK(grove_train(d, NULL, p, &m));
    CHECK_STATUS(grove_model_export(m, "c", NULL, NULL, &text), GROVE_ERR_ARG);
    CHECK_CONTAINS(grove_last_error(), "mlp");
    grove_model_free(m);
    m = NULL;
    grove_params_free(p);
    CHECK_OK(grove_params_create(&p));
    /* stacking with a network among its members */
    CHECK_OK(grove_params_set(p, "algo", "stacking"));
    CHECK_OK(grove_params_set(p, "stack.learners", "stump,mlp"));
    CHECK_OK(grove_train(d, NULL, p, &m));
    CHECK_STATUS(grove_model_export(m, "c", NULL, NULL, &text), GROVE_ERR_ARG);
    CHECK_CONTAINS(grove_last_error(), "mlp");
    /* arguments */
    CHECK_STATUS(grove_model_export(m, "python", NULL, NULL, &text), GROVE_ERR_ARG);
    CHECK_CONTAINS(grove_last_error(), "python");
    grove_model_free(m);
    m = NULL;
    grove_params_free(p);
    CHECK_OK(grove_params_create(&p));
    CHECK_OK(grove_params_set(p, "algo", "stump"));
    CHECK_OK(grove_train(d, NULL, p, &m));
    CHECK_STATUS(grove_model_export(m, "c", "9bad", NULL, &text), GROVE_ERR_ARG);
    CHECK_CONTAINS(grove_last_error(), "9bad");
    CHECK_STATUS(grove_model_export(m, "c", "ok", "fancy", &text), GROVE_ERR_ARG);
    CHECK_CONTAINS(grove_last_error(), "fancy");
    CHECK_STATUS(grove_model_export(m, "c", "ok", NULL, NULL), GROVE_ERR_ARG);
    CHECK_OK(grove_model_export(m, "c", "my_model", "code", &text));
    CHECK_CONTAINS(text, "void my_model_predict(const float *x, double *out)");
    CHECK_CONTAINS(text, "petal_length_cm");
    grove_string_free(text);
    grove_model_free(m);
    grove_params_free(p);
    grove_dataset_free(d);
}

int main(void)
{
    if (system("cc --version >/dev/null 2>&1") != 0) {
        fprintf(stderr, "test_export: no C compiler `cc`; the compile-and-compare checks are "
                        "skipped\n");
        test_refusals();
        TEST_MAIN_END();
    }
    CHECK(mkdtemp(dir) != NULL);
    char path[600];
    snprintf(path, sizeof path, "%s/driver.c", dir);
    CHECK(write_file(path, driver_text, strlen(driver_text)) == 0);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const exp_case *ec = &cases[c];
        grove_dataset *tr = load(ec->train, NULL);
        grove_params *p = NULL;
        CHECK_OK(grove_params_create(&p));
        char what[256];
        snprintf(what, sizeof what, "%s", ec->train);
        for (const char *const *kv = ec->params; *kv; kv++) {
            CHECK_OK(grove_params_set_pair(p, *kv));
            strncat(what, " ", sizeof what - strlen(what) - 1);
            strncat(what, *kv, sizeof what - strlen(what) - 1);
        }
        grove_model *m = NULL;
        CHECK_OK(grove_train(tr, NULL, p, &m));
        if (m) {
            grove_dataset *te = load(ec->test, grove_model_schema(m));
            if (te) {
                check_export(m, te, "code", what);
                check_export(m, te, "table", what);
            }
            grove_dataset_free(te);
        }
        grove_model_free(m);
        grove_params_free(p);
        grove_dataset_free(tr);
    }
    test_refusals();
    if (check_failures_ == 0) {
        char cmd[700];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    }
    TEST_MAIN_END();
}
