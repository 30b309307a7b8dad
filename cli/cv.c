/*
 * cv.c -- `grove cv DATA [--algo NAME] [--folds K] [--set ...] [--json]`: k-fold cross-
 * validation.  Folds are stratified for classification (each class's rows shuffled with the
 * seed and dealt round-robin, classes in class order, continuing the count) and plain shuffled
 * for regression, so the same seed gives the same folds.  Reports every fold's metrics and
 * their mean and standard deviation (n-1 denominator).
 */
#include "cli.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_FOLDS, OPT_JSON };
static const cli_option cv_options[] = {
    {OPT_FOLDS, "--folds", "-k", "K", "number of folds (default 5)", NULL},
    {OPT_JSON, "--json", NULL, NULL, "one JSON object instead of the table", NULL},
    {CLI_HEADING, NULL, NULL, NULL, "Training options (as for grove train):\n", NULL},
    CLI_TRAINING_OPTIONS,
    {0}};
static const cli_command cv_command = {
    "cv",
    "usage: grove cv DATA [--folds K] [--json] [training options]\n"
    "\n"
    "K-fold cross-validation (default K = 5; stratified by class for classification).\n"
    "Prints each fold's metrics and their mean and standard deviation; --json prints one JSON\n"
    "object {\"algo\", \"folds\", \"metrics\": {name: {\"mean\", \"sd\", \"folds\": [...]}}}.\n"
    "\n",
    cv_options, NULL, 23};

/* splitmix64 for the fold shuffle (the CLI sees only grove.h, so it has its own). */
static uint64_t mix(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void shuffle(size_t *a, size_t n, uint64_t *state)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(mix(state) % i);
        size_t t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

/* fold[i] for every row. */
static int assign_folds(const grove_dataset *d, size_t k, uint64_t seed, size_t *fold)
{
    size_t n = grove_dataset_n_rows(d);
    const grove_schema *s = grove_dataset_schema(d);
    size_t n_groups = grove_schema_task(s) == GROVE_CLASSIFICATION ? grove_schema_n_classes(s) : 1;
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!order) return -1;
    uint64_t state = seed ^ 0x5EEDF01Dull;
    size_t dealt = 0;
    for (size_t g = 0; g < n_groups; g++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (n_groups == 1 || (size_t)grove_dataset_label(d, i) == g) order[m++] = i;
        shuffle(order, m, &state);
        for (size_t j = 0; j < m; j++) fold[order[j]] = (dealt++) % k;
    }
    free(order);
    return 0;
}

static const char *cls_metrics[] = {"accuracy", "error", "logloss", "auc"};
static const char *reg_metrics[] = {"rmse", "mae", "r2"};

int cmd_cv(int argc, char **argv)
{
    grove_params *params = NULL;
    grove_dataset *data = NULL;
    size_t *fold = NULL, *rows = NULL;
    double *values = NULL;
    const char *data_path = NULL, *folds_text = "5";
    int quiet = 0, json = 0, rc = EXIT_USAGE;
    grove_status st = grove_params_create(&params);
    if (st != GROVE_OK) return cli_fail(st, NULL);
    cli_args a = {.cmd = &cv_command, .argc = argc, .argv = argv, .params = params};
    for (int o; (o = cli_next(&a)) != CLI_END;) {
        switch (o) {
        case CLI_EXIT:
            rc = a.rc;
            goto done;
        case CLI_POSITIONAL:
            if (data_path) {
                cli_error("cv: more than one DATA file");
                goto done;
            }
            data_path = a.value;
            break;
        case OPT_FOLDS:
            folds_text = a.value;
            break;
        case OPT_JSON:
            json = 1;
            break;
        }
    }
    quiet = a.quiet;
    if (!data_path) {
        cli_help(stderr, &cv_command);
        goto done;
    }
    long k;
    if (cli_int_arg("--folds", folds_text, 2, 1000, &k) != 0) goto done;
    if ((rc = cli_track_params(params)) != EXIT_OK) goto done;
    if ((rc = cli_load(data_path, params, NULL, quiet, &data)) != EXIT_OK) goto done;
    size_t n = grove_dataset_n_rows(data);
    if (n < (size_t)k) {
        cli_error("cv: %s has %zu rows, fewer than %ld folds", data_path, n, k);
        rc = EXIT_INPUT;
        goto done;
    }
    const grove_schema *s = grove_dataset_schema(data);
    int cls = grove_schema_task(s) == GROVE_CLASSIFICATION;
    const char **names = cls ? cls_metrics : reg_metrics;
    size_t n_metrics = cls ? (grove_schema_n_classes(s) == 2 ? 4 : 3) : 3;
    char seed_text[32];
    grove_params_get(params, "seed", seed_text, sizeof seed_text);
    fold = malloc(n * sizeof *fold);
    rows = malloc(n * sizeof *rows);
    values = calloc((size_t)k * n_metrics, sizeof *values);
    if (!fold || !rows || !values || assign_folds(data, (size_t)k, strtoull(seed_text, NULL, 10), fold)) {
        cli_error("cv: out of memory");
        rc = EXIT_INTERNAL;
        goto done;
    }
    cli_enable_progress(params, quiet);
    for (long f = 0; f < k; f++) {
        size_t n_train = 0, n_test = 0;
        for (size_t i = 0; i < n; i++)
            if (fold[i] != (size_t)f) rows[n_train++] = i;
        for (size_t i = 0; i < n; i++)
            if (fold[i] == (size_t)f) rows[n_train + n_test++] = i;
        grove_dataset *train = NULL, *test = NULL;
        grove_model *model = NULL;
        grove_eval *e = NULL;
        st = grove_dataset_subset(data, rows, n_train, &train);
        if (st == GROVE_OK) st = grove_dataset_subset(data, rows + n_train, n_test, &test);
        if (st == GROVE_OK) st = grove_train(train, NULL, params, &model);
        if (st == GROVE_OK) st = grove_model_evaluate(model, test, 0, &e);
        for (size_t m = 0; st == GROVE_OK && m < n_metrics; m++)
            grove_eval_get(e, names[m], &values[(size_t)f * n_metrics + m]);
        grove_eval_free(e);
        grove_model_free(model);
        grove_dataset_free(test);
        grove_dataset_free(train);
        if (st != GROVE_OK) {
            char what[64];
            snprintf(what, sizeof what, "cv: fold %ld", f + 1);
            rc = cli_fail(st, what);
            goto done;
        }
    }
    cli_progress_done();
    if ((rc = cli_check_unused(params, "cv")) != EXIT_OK) goto done;
    rc = EXIT_USAGE;
    char algo[64];
    grove_params_get(params, "algo", algo, sizeof algo);
    json_t *root = json_object(), *metrics = json_object();
    json_object_set_new(root, "algo", json_string(algo));
    json_object_set_new(root, "folds", json_integer(k));
    json_object_set_new(root, "n", json_integer((json_int_t)n));
    if (!json) printf("%ld-fold cross-validation of %s on %s (%zu rows)\n%-9s %10s %10s   folds\n", k, algo, data_path, n, "metric", "mean", "sd");
    for (size_t m = 0; m < n_metrics; m++) {
        double mean = 0, ss = 0;
        for (long f = 0; f < k; f++) mean += values[(size_t)f * n_metrics + m];
        mean /= (double)k;
        for (long f = 0; f < k; f++) {
            double d = values[(size_t)f * n_metrics + m] - mean;
            ss += d * d;
        }
        double sd = sqrt(ss / (double)(k - 1));
        json_t *o = json_object(), *arr = json_array();
        for (long f = 0; f < k; f++) {
            double v = values[(size_t)f * n_metrics + m];
            json_array_append_new(arr, isfinite(v) ? json_real(v) : json_null());
        }
        json_object_set_new(o, "mean", isfinite(mean) ? json_real(mean) : json_null());
        json_object_set_new(o, "sd", isfinite(sd) ? json_real(sd) : json_null());
        json_object_set_new(o, "folds", arr);
        json_object_set_new(metrics, names[m], o);
        if (!json) {
            printf("%-9s %10.6f %10.6f  ", names[m], mean, sd);
            for (long f = 0; f < k; f++) printf(" %.4f", values[(size_t)f * n_metrics + m]);
            putchar('\n');
        }
    }
    json_object_set_new(root, "metrics", metrics);
    if (json) {
        char *text = json_dumps(root, JSON_COMPACT | JSON_REAL_PRECISION(17));
        if (text) printf("%s\n", text);
        free(text);
    }
    json_decref(root);
    rc = EXIT_OK;
done:
    cli_progress_done();
    free(values);
    free(rows);
    free(fold);
    grove_dataset_free(data);
    grove_params_free(params);
    return rc;
}
