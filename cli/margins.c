/*
 * margins.c -- `grove margins MODEL DATA`: the normalized margins of a voting ensemble on
 * labelled data (boosting: y f(x) / sum |alpha|, Schapire, Freund, Bartlett & Lee 1998;
 * bagging, forests, voting: Breiman 2001's margin function, grove_model_margins), then their
 * cumulative distribution: for thresholds theta, the fraction of rows with margin <= theta.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

enum { OPT_CDF_ONLY, OPT_THREADS };
static const cli_option margins_options[] = {
    {OPT_CDF_ONLY, "--cdf-only", NULL, NULL,
     "print only the cumulative distribution, with the minimum margin first", NULL},
    {OPT_THREADS, "--threads", "-j", "N", "threads (0 = all cores)", NULL},
    {CLI_QUIET, "--quiet", "-q", NULL, "no summary line on stderr", NULL},
    {0}};
static const cli_command margins_command = {
    "margins",
    "usage: grove margins MODEL DATA [--cdf-only] [--threads N] [--quiet]\n"
    "\n"
    "Prints CSV: the margin of every row of the labelled DATA (row, label, margin), then a blank\n"
    "line and the cumulative distribution (theta, fraction of rows with margin <= theta) at\n"
    "every distinct margin.  Margins lie in [-1, 1]; a row is classified correctly iff its\n"
    "margin is > 0.  Voting ensembles: adaboost, adaboost.m1, samme and adaboost.m2 (alpha-\n"
    "weighted votes over sum alpha), and bagging, forest, extra-trees and voting classifiers\n"
    "(vote fraction or mean probability of the true class minus the largest other one).\n",
    margins_options, NULL, 19};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int cmd_margins(int argc, char **argv)
{
    const char *pos[2] = {0}, *threads = "0";
    int n_pos = 0, cdf_only = 0;
    cli_args a = {.cmd = &margins_command, .argc = argc, .argv = argv};
    for (int o; (o = cli_next(&a)) != CLI_END;) {
        switch (o) {
        case CLI_EXIT:
            return a.rc;
        case CLI_POSITIONAL:
            if (n_pos == 2) {
                cli_error("margins: too many arguments");
                return EXIT_USAGE;
            }
            pos[n_pos++] = a.value;
            break;
        case OPT_CDF_ONLY:
            cdf_only = 1;
            break;
        case OPT_THREADS:
            threads = a.value;
            break;
        }
    }
    const int quiet = a.quiet;
    if (n_pos != 2) {
        cli_help(stderr, &margins_command);
        return EXIT_USAGE;
    }
    grove_model *model = NULL;
    grove_dataset *data = NULL;
    double *m = NULL;
    int rc;
    long n_threads;
    if (cli_int_arg("--threads", threads, 0, 4096, &n_threads) != 0) return EXIT_USAGE;
    grove_status st = grove_model_load(pos[0], &model);
    if (st != GROVE_OK) return cli_fail(st, NULL);
    rc = cli_load_for_model(pos[1], model, NULL, quiet, &data);
    if (rc != EXIT_OK) goto done;
    size_t n = grove_dataset_n_rows(data);
    m = malloc((n ? n : 1) * sizeof *m);
    if (!m) {
        cli_error("margins: out of memory");
        rc = EXIT_INTERNAL;
        goto done;
    }
    st = grove_model_margins(model, data, (int)n_threads, m, n);
    if (st != GROVE_OK) {
        rc = st == GROVE_ERR_ARG ? (cli_fail(st, "margins"), EXIT_USAGE) : cli_fail(st, "margins");
        goto done;
    }
    const grove_schema *s = grove_model_schema(model);
    char buf[32];
    if (!cdf_only) {
        printf("row,label,margin\n");
        for (size_t i = 0; i < n; i++) {
            cli_format_double(m[i], buf);
            printf("%zu,", i + 1);
            cli_csv_field(stdout, grove_schema_class_name(s, (size_t)grove_dataset_label(data, i)));
            printf(",%s\n", buf);
        }
        putchar('\n');
    }
    qsort(m, n, sizeof *m, cmp_double);
    printf("theta,cdf\n");
    for (size_t i = 0; i < n; i++) {
        if (i + 1 < n && m[i + 1] == m[i]) continue;
        char cdf[GROVE_DOUBLE_TEXT];
        cli_format_double(m[i], buf);
        cli_format_double((double)(i + 1) / (double)n, cdf);
        printf("%s,%s\n", buf, cdf);
    }
    if (!quiet && n) {
        cli_format_double(m[0], buf);
        fprintf(stderr, "grove: %zu rows, minimum margin %s, median %.6g\n", n, buf, m[n / 2]);
    }
    rc = EXIT_OK;
done:
    free(m);
    grove_dataset_free(data);
    grove_model_free(model);
    return rc;
}
