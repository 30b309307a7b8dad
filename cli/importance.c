/*
 * importance.c -- `grove importance MODEL [DATA]`: feature importances of any model.
 * Without DATA: those the model carries: impurity (trees, bagging of trees, forests, boosting
 * of trees), the OOB
 * permutation importances when stored, gain and cover (gbdt); with DATA (labelled, read with
 * the model's schema) also the permutation importances on DATA, for any model.  Rows are
 * sorted by the last column.
 */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_SEED, OPT_THREADS, OPT_CSV };
static const cli_option importance_options[] = {
    {OPT_SEED, "--seed", NULL, "N", "the permutations' seed (default 0)", NULL},
    {OPT_THREADS, "--threads", "-j", "N", "threads (0 = all cores)", NULL},
    {OPT_CSV, "--csv", NULL, NULL, "CSV instead of the table", NULL},
    {CLI_QUIET, "--quiet", "-q", NULL, "no notes about DATA (warnings are still printed)", NULL},
    {0}};
static const cli_command importance_command = {
    "importance",
    "usage: grove importance MODEL [DATA] [--seed N] [--threads N] [--csv] [--quiet]\n"
    "\n"
    "Feature importances of MODEL, those that apply:\n"
    "  impurity         tree, bagging of trees, forest, extra-trees: mean decrease in\n"
    "                   impurity, normalized to sum 1; AdaBoost family of trees: the\n"
    "                   rounds' importances weighted by |alpha|\n"
    "  oob_permutation  increase of each tree's out-of-bag error when the feature is permuted\n"
    "                   (stored when trained with --set oob_importance=true)\n"
    "  gain, cover      gbdt: mean loss reduction / mean hessian sum of the splits on the\n"
    "                   feature (XGBoost's get_score)\n"
    "  permutation      any model, with DATA: increase of the model's error on DATA (error\n"
    "                   rate, or mean squared error) when the feature's column is permuted\n"
    "\n",
    importance_options, "Features are listed by decreasing importance (the last column).\n", 19};

typedef struct row {
    size_t f;
    double key;
} row;

static int cmp_row(const void *a, const void *b)
{
    const row *x = a, *y = b;
    if (x->key != y->key) return x->key > y->key ? -1 : 1;
    return (x->f > y->f) - (x->f < y->f);
}

int cmd_importance(int argc, char **argv)
{
    const char *pos[2] = {NULL, NULL}, *threads = "0", *seed = "0";
    int n_pos = 0, csv = 0;
    cli_args a = {.cmd = &importance_command, .argc = argc, .argv = argv};
    for (int o; (o = cli_next(&a)) != CLI_END;) {
        switch (o) {
        case CLI_EXIT:
            return a.rc;
        case CLI_POSITIONAL:
            if (n_pos == 2) {
                cli_error("importance: too many arguments");
                return EXIT_USAGE;
            }
            pos[n_pos++] = a.value;
            break;
        case OPT_SEED:
            seed = a.value;
            break;
        case OPT_THREADS:
            threads = a.value;
            break;
        case OPT_CSV:
            csv = 1;
            break;
        }
    }
    const int quiet = a.quiet;
    if (n_pos < 1) {
        cli_help(stderr, &importance_command);
        return EXIT_USAGE;
    }
    char *end;
    unsigned long long seed_v = strtoull(seed, &end, 10);
    if (!*seed || *end) {
        cli_error("importance: --seed expects a non-negative integer, got '%s'", seed);
        return EXIT_USAGE;
    }
    grove_model *model = NULL;
    grove_dataset *data = NULL;
    enum { N_KINDS = 5 };
    double *v[N_KINDS] = {NULL};
    row *rows = NULL;
    static const char *const names[N_KINDS] = {"impurity", "oob_permutation", "gain", "cover",
                                               "permutation"};
    int have[N_KINDS] = {0}, rc = EXIT_OK;
    long n_threads;
    if (cli_int_arg("--threads", threads, 0, 4096, &n_threads) != 0) return EXIT_USAGE;
    grove_status st = grove_model_load(pos[0], &model);
    if (st != GROVE_OK) return cli_fail(st, NULL);
    const grove_schema *schema = grove_model_schema(model);
    size_t F = grove_schema_n_features(schema);
    for (int k = 0; k < N_KINDS; k++) {
        v[k] = calloc(F ? F : 1, sizeof(double));
        if (!v[k]) {
            cli_error("importance: out of memory");
            rc = EXIT_INTERNAL;
            goto done;
        }
    }
    rows = calloc(F ? F : 1, sizeof *rows);
    if (!rows) {
        cli_error("importance: out of memory");
        rc = EXIT_INTERNAL;
        goto done;
    }
    /* the kinds the model carries (each GROVE_ERR_ARG when it does not apply) */
    int any = 0;
    for (int k = 0; k < N_KINDS - 1; k++)
        any |= have[k] = grove_model_importance(model, names[k], NULL, 0, (int)n_threads, v[k],
                                                F) == GROVE_OK;
    if (!any && !pos[1]) {
        cli_error("importance: %s (a %s model) carries no importances; give labelled DATA for "
                  "permutation importances: grove importance MODEL DATA", pos[0],
                  grove_model_algo(model));
        rc = EXIT_USAGE;
        goto done;
    }
    if (pos[1]) {
        rc = cli_load_for_model(pos[1], model, NULL, quiet, &data);
        if (rc != EXIT_OK) goto done;
        if (!grove_dataset_has_labels(data)) {
            cli_error("%s: no label column '%s' to compute permutation importances", pos[1],
                      grove_schema_label_name(schema));
            rc = EXIT_INPUT;
            goto done;
        }
        st = grove_model_importance(model, "permutation", data, (uint64_t)seed_v, (int)n_threads,
                                    v[N_KINDS - 1], F);
        if (st != GROVE_OK) {
            rc = cli_fail(st, NULL);
            goto done;
        }
        have[N_KINDS - 1] = 1;
    }
    int last = 0;
    for (int k = 0; k < N_KINDS; k++)
        if (have[k]) last = k;
    for (size_t f = 0; f < F; f++) {
        rows[f].f = f;
        rows[f].key = v[last][f];
    }
    qsort(rows, F, sizeof *rows, cmp_row);
    size_t w = 7;
    for (size_t f = 0; f < F; f++) {
        size_t l = strlen(grove_schema_feature_name(schema, f));
        if (l > w) w = l;
    }
    if (w > 40) w = 40;
    if (csv) {
        fputs("feature", stdout);
        for (int k = 0; k < N_KINDS; k++)
            if (have[k]) printf(",%s", names[k]);
        fputc('\n', stdout);
    } else {
        printf("%-*s", (int)w, "feature");
        for (int k = 0; k < N_KINDS; k++)
            if (have[k]) printf("  %16s", names[k]);
        fputc('\n', stdout);
    }
    for (size_t j = 0; j < F; j++) {
        size_t f = rows[j].f;
        const char *name = grove_schema_feature_name(schema, f);
        if (csv) {
            cli_csv_field(stdout, name);
            char buf[32];
            for (int k = 0; k < N_KINDS; k++)
                if (have[k]) {
                    cli_format_double(v[k][f], buf);
                    printf(",%s", buf);
                }
            fputc('\n', stdout);
        } else {
            printf("%-*.*s", (int)w, (int)w, name);
            for (int k = 0; k < N_KINDS; k++)
                if (have[k]) printf("  %16.6f", v[k][f]);
            fputc('\n', stdout);
        }
    }
done:
    for (int k = 0; k < N_KINDS; k++) free(v[k]);
    free(rows);
    grove_dataset_free(data);
    grove_model_free(model);
    return rc;
}
