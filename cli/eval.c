/*
 * eval.c -- `grove eval MODEL DATA [--json]`: metrics of a model on labelled data, as a table
 * with a confusion matrix, or as one JSON object.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

enum { OPT_JSON, OPT_THREADS, OPT_GROUP, OPT_AT, OPT_PER_QUERY };
static const cli_option eval_options[] = {
    {OPT_JSON, "--json", NULL, NULL, "one JSON object instead of the table (ranking: with every\n"
     "query's values)", NULL},
    {OPT_GROUP, "--group", NULL, "COL", "CSV column of query ids (ranking; LIBSVM: qid:n)", NULL},
    {OPT_AT, "--at", NULL, "K", "ranking: the top K positions of each query counted (default 10)",
     NULL},
    {OPT_PER_QUERY, "--per-query", NULL, NULL, "ranking: also each query's ndcg@K and map@K", NULL},
    {OPT_THREADS, "--threads", "-j", "N", "threads (0 = all cores)", NULL},
    {CLI_QUIET, "--quiet", "-q", NULL, "no notes about DATA (warnings are still printed)", NULL},
    {0}};
static const cli_command eval_command = {
    "eval",
    "usage: grove eval MODEL DATA [--json] [--group COL] [--at K] [--per-query] [--threads N]\n"
    "                  [--quiet]\n"
    "\n"
    "Evaluates MODEL on the labelled DATA (CSV or LIBSVM, read with the model's schema).\n"
    "Classification: n, accuracy, error, logloss, auc (two classes), per-class precision,\n"
    "recall, F1 and support with their macro and weighted averages, and a confusion matrix.\n"
    "Regression: n, rmse, mae, r2.  Data with query groups (LIBSVM qid:n, or --group COL):\n"
    "also the mean over queries of ndcg@K and map@K (`docs/algorithms.md`).\n"
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
    const char *threads = "0", *group = NULL, *at_arg = "10";
    int per_query = 0;
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
        case OPT_GROUP:
            group = a.value;
            break;
        case OPT_AT:
            at_arg = a.value;
            break;
        case OPT_PER_QUERY:
            per_query = 1;
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
    grove_params *lp = NULL;
    double *rank_v = NULL;
    int rc;
    long n_threads, at;
    if (cli_int_arg("--threads", threads, 0, 4096, &n_threads) != 0) return EXIT_USAGE;
    if (cli_int_arg("--at", at_arg, 1, 1073741824, &at) != 0) return EXIT_USAGE;
    grove_status st = grove_model_load(pos[0], &model);
    if (st != GROVE_OK) return cli_fail(st, NULL);
    if (group && ((st = grove_params_create(&lp)) != GROVE_OK ||
                  (st = grove_params_set(lp, "group", group)) != GROVE_OK)) {
        rc = cli_fail(st, NULL);
        goto done;
    }
    rc = cli_load_for_model(pos[1], model, lp, (quiet ? CLI_LOAD_QUIET : 0) | CLI_LOAD_LABELS_OWN,
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
    /* ranking: ndcg@K and map@K per query (rank_v: nq of each) and their means */
    const size_t nq = grove_dataset_n_queries(data);
    double rank_mean[2] = {0, 0};
    static const char *const rank_names[2] = {"ndcg", "map"};
    if (nq) {
        rank_v = malloc(2 * nq * sizeof *rank_v);
        if (!rank_v) {
            cli_error("eval: out of memory");
            rc = EXIT_INTERNAL;
            goto done;
        }
        for (int r = 0; r < 2; r++)
            if ((st = grove_model_rank_metric(model, data, rank_names[r], (size_t)at, (int)n_threads,
                                              rank_v + (size_t)r * nq, &rank_mean[r])) != GROVE_OK) {
                rc = cli_fail(st, NULL);
                goto done;
            }
    }
    if (json) {
        char *s = NULL;
        st = grove_eval_json(e, &s);
        if (st != GROVE_OK) {
            rc = cli_fail(st, NULL);
            goto done;
        }
        size_t len = strlen(s);
        if (nq && len && s[len - 1] == '}') {
            /* the ranking metrics appended to the object (numbers as %.17g round-trip) */
            s[len - 1] = '\0';
            printf("%s, \"queries\": %zu, \"ndcg@%ld\": %.17g, \"map@%ld\": %.17g, \"per_query\": [", s,
                   nq, at, rank_mean[0], at, rank_mean[1]);
            for (size_t q = 0; q < nq; q++)
                printf("%s{\"query\": %zu, \"rows\": %zu, \"ndcg@%ld\": %.17g, \"map@%ld\": %.17g}",
                       q ? ", " : "", q, grove_dataset_query_start(data, q + 1) -
                       grove_dataset_query_start(data, q), at, rank_v[q], at, rank_v[nq + q]);
            printf("]}\n");
        } else {
            printf("%s\n", s);
        }
        grove_string_free(s);
    } else {
        char title[512];
        snprintf(title, sizeof title, "%s on %s", pos[0], pos[1]);
        cli_print_metrics(stdout, e, grove_model_schema(model), title, 1);
        if (nq) {
            printf("ranking (%zu queries, mean over queries)\n  ndcg@%-4ld %.6f\n  map@%-5ld %.6f\n",
                   nq, at, rank_mean[0], at, rank_mean[1]);
            if (per_query) {
                printf("per query\n  %8s %8s %10s %10s\n", "query", "rows", "ndcg", "map");
                for (size_t q = 0; q < nq; q++)
                    printf("  %8zu %8zu %10.6f %10.6f\n", q,
                           grove_dataset_query_start(data, q + 1) - grove_dataset_query_start(data, q),
                           rank_v[q], rank_v[nq + q]);
            }
        }
    }
    rc = EXIT_OK;
done:
    free(rank_v);
    grove_params_free(lp);
    grove_eval_free(e);
    grove_dataset_free(data);
    grove_model_free(model);
    return rc;
}
