/*
 * eval.c -- `grove eval MODEL DATA [--json]`: metrics of a model on labelled data, as a table
 * with a confusion matrix, or as one JSON object.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

enum { OPT_JSON, OPT_THREADS };
static const cli_option eval_options[] = {
    {OPT_JSON, "--json", NULL, NULL, "one JSON object instead of the table", NULL},
    {OPT_THREADS, "--threads", "-j", "N", "threads (0 = all cores)", NULL},
    {CLI_QUIET, "--quiet", "-q", NULL, "no notes about DATA (warnings are still printed)", NULL},
    {0}};
static const cli_command eval_command = {
    "eval",
    "usage: grove eval MODEL DATA [--json] [--threads N] [--quiet]\n"
    "\n"
    "Evaluates MODEL on the labelled DATA (CSV or LIBSVM, read with the model's schema).\n"
    "Classification: n, accuracy, error, logloss, auc (two classes), per-class precision,\n"
    "recall, F1 and support with their macro and weighted averages, and a confusion matrix.\n"
    "Regression: n, rmse, mae, r2.\n"
    "\n",
    eval_options, NULL, 19};

void cli_print_metrics(FILE *fp, const grove_eval *e, const grove_schema *schema,
                       const char *title, int confusion)
{
    static const char *names[] = {"n", "accuracy", "error", "logloss", "auc", "rmse", "mae", "r2"};
    fprintf(fp, "%s\n", title);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        double v;
        if (grove_eval_get(e, names[i], &v) != GROVE_OK) continue;
        if (!strcmp(names[i], "n"))
            fprintf(fp, "  %-9s %.0f\n", names[i], v);
        else
            fprintf(fp, "  %-9s %.6f\n", names[i], v);
    }
    size_t k;
    const double *cm = grove_eval_confusion(e, &k);
    if (!cm || !confusion) return;
    size_t w = 8;
    for (size_t c = 0; c < k; c++) {
        size_t l = strlen(grove_schema_class_name(schema, c));
        if (l + 1 > w) w = l + 1;
    }
    if (w > 24) w = 24;
    /* per class, then the averages (scikit-learn's classification_report) */
    size_t wn = w < 12 ? 12 : w;
    fprintf(fp, "  %-*s %10s %10s %10s %9s\n", (int)wn, "class", "precision", "recall", "f1",
            "support");
    for (size_t c = 0; c < k; c++) {
        double pr, rc, f1, sup;
        if (grove_eval_class(e, c, &pr, &rc, &f1, &sup) != GROVE_OK) return;
        fprintf(fp, "  %-*.*s %10.6f %10.6f %10.6f %9.0f\n", (int)wn, (int)wn,
                grove_schema_class_name(schema, c), pr, rc, f1, sup);
    }
    for (int a = 0; a < 2; a++) {
        static const char *pre[] = {"macro", "weighted"};
        double v[3];
        static const char *what[] = {"precision", "recall", "f1"};
        for (int j = 0; j < 3; j++) {
            char name[32];
            snprintf(name, sizeof name, "%s_%s", pre[a], what[j]);
            grove_eval_get(e, name, &v[j]);
        }
        char label[32];
        snprintf(label, sizeof label, "%s avg", pre[a]);
        double n;
        grove_eval_get(e, "n", &n);
        fprintf(fp, "  %-*s %10.6f %10.6f %10.6f %9.0f\n", (int)wn, label, v[0], v[1], v[2], n);
    }
    fprintf(fp, "confusion matrix (rows: true class, columns: predicted)\n  %*s", (int)w, "");
    for (size_t c = 0; c < k; c++) fprintf(fp, " %*.*s", (int)w, (int)w, grove_schema_class_name(schema, c));
    fputc('\n', fp);
    for (size_t r = 0; r < k; r++) {
        fprintf(fp, "  %*.*s", (int)w, (int)w, grove_schema_class_name(schema, r));
        for (size_t c = 0; c < k; c++) fprintf(fp, " %*.0f", (int)w, cm[r * k + c]);
        fputc('\n', fp);
    }
}

int cmd_eval(int argc, char **argv)
{
    const char *pos[2] = {0};
    int n_pos = 0, json = 0;
    const char *threads = "0";
    cli_args a = {.cmd = &eval_command, .argc = argc, .argv = argv};
    for (int o; (o = cli_next(&a)) != CLI_END;) {
        switch (o) {
        case CLI_EXIT:
            return a.rc;
        case CLI_POSITIONAL:
            if (n_pos == 2) {
                cli_error("eval: too many arguments");
                return EXIT_USAGE;
            }
            pos[n_pos++] = a.value;
            break;
        case OPT_JSON:
            json = 1;
            break;
        case OPT_THREADS:
            threads = a.value;
            break;
        }
    }
    const int quiet = a.quiet;
    if (n_pos != 2) {
        cli_help(stderr, &eval_command);
        return EXIT_USAGE;
    }
    grove_model *model = NULL;
    grove_dataset *data = NULL;
    grove_eval *e = NULL;
    int rc;
    long n_threads;
    if (cli_int_arg("--threads", threads, 0, 4096, &n_threads) != 0) return EXIT_USAGE;
    grove_status st = grove_model_load(pos[0], &model);
    if (st != GROVE_OK) return cli_fail(st, NULL);
    rc = cli_load_for_model(pos[1], model, NULL, (quiet ? CLI_LOAD_QUIET : 0) | CLI_LOAD_LABELS_OWN,
                            &data);
    if (rc != EXIT_OK) goto done;
    if (!grove_dataset_has_labels(data)) {
        /* rows without a usable label ('?', NA, a class the model does not know) are left
         * out, with one warning that counts them; a file without the column is refused */
        const char *why = strstr(grove_dataset_warning(data), "' is ignored: ");
        grove_dataset *labelled = NULL;
        size_t skipped = 0;
        if (!why || grove_dataset_labelled_rows(data, &labelled, &skipped) != GROVE_OK) {
            cli_error("%s: no label column '%s' to evaluate against", pos[1],
                      grove_schema_label_name(grove_model_schema(model)));
            rc = EXIT_INPUT;
            goto done;
        }
        const char *first = strstr(why, " (first: ");
        int len = first ? (int)strcspn(first, "\n") : 0;
        fprintf(stderr, "grove: eval: warning: %s: skipped %zu of %zu rows, without a usable "
                "label%.*s; evaluated on the other %zu\n", pos[1], skipped,
                grove_dataset_n_rows(data), len, first ? first : "",
                grove_dataset_n_rows(labelled));
        grove_dataset_free(data);
        data = labelled;
        if (grove_dataset_n_rows(data) == 0) {
            cli_error("%s: no row has a usable label to evaluate against", pos[1]);
            rc = EXIT_INPUT;
            goto done;
        }
    }
    st = grove_model_evaluate(model, data, (int)n_threads, &e);
    if (st != GROVE_OK) {
        rc = cli_fail(st, NULL);
        goto done;
    }
    if (json) {
        char *s = NULL;
        st = grove_eval_json(e, &s);
        if (st != GROVE_OK) {
            rc = cli_fail(st, NULL);
            goto done;
        }
        printf("%s\n", s);
        grove_string_free(s);
    } else {
        char title[512];
        snprintf(title, sizeof title, "%s on %s", pos[0], pos[1]);
        cli_print_metrics(stdout, e, grove_model_schema(model), title, 1);
    }
    rc = EXIT_OK;
done:
    grove_eval_free(e);
    grove_dataset_free(data);
    grove_model_free(model);
    return rc;
}
