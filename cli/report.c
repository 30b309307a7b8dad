/*
 * report.c -- `grove report MODEL [--data FILE] [--valid FILE] [--biasvar FILE] -o report.html`:
 * one self-contained HTML page of charts about the model (the library writes the page,
 * grove_model_report; this command loads the inputs and writes it atomically).
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

enum { OPT_DATA, OPT_VALID, OPT_BIASVAR, OPT_OUTPUT, OPT_THREADS };
static const cli_option report_options[] = {
    {OPT_DATA, "--data", NULL, "FILE",
     "labelled data (read with the model's schema): the error curves on it,\n"
     "the margins, permutation importances, the mean |contribution| of\n"
     "each feature (tree ensembles, TreeSHAP), and the evaluation: metrics,\n"
     "confusion matrix, ROC (two classes), calibration, or predicted vs true", NULL},
    {OPT_VALID, "--valid", NULL, "FILE", "labelled data for a second curve (bagging, gbdt)", NULL},
    {OPT_BIASVAR, "--biasvar", NULL, "FILE",
     "the output of `grove biasvar --json`, drawn as a stacked bar", NULL},
    {OPT_OUTPUT, "--output", "-o", "FILE", "write here (atomically); default stdout", NULL},
    {OPT_THREADS, "--threads", "-j", "N", "threads (0 = all cores)", NULL},
    {CLI_QUIET, "--quiet", "-q", NULL, "no notes about the data (warnings are still printed)", NULL},
    {0}};
static const cli_command report_command = {
    "report",
    "usage: grove report MODEL [--data FILE] [--valid FILE] [--biasvar FILE] [-o report.html]\n"
    "                    [--threads N] [--quiet]\n"
    "\n"
    "Writes one self-contained HTML file (inline SVG charts, no script, nothing fetched,\n"
    "printable): the model's summary; boosting: training error, prod Z_t and exp(-2 sum g^2)\n"
    "per round (log scale), eps_t and alpha_t, the margin distribution; bagging and forests: the\n"
    "OOB error against the number of members; gbdt: the metric per round with the early-\n"
    "stopping round; filter- and confidence-boosting: their recursion tree and runs; feature\n"
    "importances.\n"
    "\n",
    report_options, NULL, 22};

/* The whole file as a NUL-terminated string (malloc'd), or NULL after printing. */
static char *read_text(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        cli_error("%s: cannot open", path);
        return NULL;
    }
    size_t cap = 4096, len = 0;
    char *s = malloc(cap);
    while (s) {
        size_t got = fread(s + len, 1, cap - len - 1, fp);
        len += got;
        if (got == 0) break;
        if (len + 1 == cap) {
            char *t = realloc(s, cap * 2);
            if (!t) {
                free(s);
                s = NULL;
                break;
            }
            s = t;
            cap *= 2;
        }
    }
    int err = ferror(fp);
    fclose(fp);
    if (!s || err) {
        cli_error("%s: cannot read", path);
        free(s);
        return NULL;
    }
    s[len] = '\0';
    return s;
}

int cmd_report(int argc, char **argv)
{
    const char *model_path = NULL, *out_path = NULL, *data_path = NULL, *valid_path = NULL,
               *biasvar_path = NULL, *threads = "0";
    cli_args a = {.cmd = &report_command, .argc = argc, .argv = argv};
    for (int o; (o = cli_next(&a)) != CLI_END;) {
        switch (o) {
        case CLI_EXIT:
            return a.rc;
        case CLI_POSITIONAL:
            if (model_path) {
                cli_error("report: too many arguments");
                return EXIT_USAGE;
            }
            model_path = a.value;
            break;
        case OPT_DATA:
            data_path = a.value;
            break;
        case OPT_VALID:
            valid_path = a.value;
            break;
        case OPT_BIASVAR:
            biasvar_path = a.value;
            break;
        case OPT_OUTPUT:
            out_path = a.value;
            break;
        case OPT_THREADS:
            threads = a.value;
            break;
        }
    }
    const int quiet = a.quiet;
    if (!model_path) {
        cli_help(stderr, &report_command);
        return EXIT_USAGE;
    }
    long n_threads;
    if (cli_int_arg("--threads", threads, 0, 4096, &n_threads) != 0) return EXIT_USAGE;
    grove_model *model = NULL;
    grove_dataset *data = NULL, *valid = NULL;
    char *biasvar = NULL, *html = NULL;
    int rc = EXIT_OK;
    grove_status st = grove_model_load(model_path, &model);
    if (st != GROVE_OK) return cli_fail(st, NULL);
    if (data_path && (rc = cli_load_for_model(data_path, model, NULL, quiet, &data)) != EXIT_OK)
        goto done;
    if (valid_path && (rc = cli_load_for_model(valid_path, model, NULL, quiet, &valid)) != EXIT_OK)
        goto done;
    if (biasvar_path && !(biasvar = read_text(biasvar_path))) {
        rc = EXIT_INPUT;
        goto done;
    }
    if (data && !grove_dataset_has_labels(data)) {
        cli_error("report: %s has no label column; the report's curves and evaluation need one",
                  data_path);
        rc = EXIT_INPUT;
        goto done;
    }
    st = grove_model_report(model, data, valid, biasvar, (int)n_threads, &html);
    if (st != GROVE_OK) {
        rc = cli_fail(st, biasvar_path && st == GROVE_ERR_PARSE ? biasvar_path : NULL);
        goto done;
    }
    cli_out o;
    /* absent inputs are "-", which the check skips, so no NULL ends the list early */
    const char *inputs[] = {model_path, data_path ? data_path : "-", valid_path ? valid_path : "-",
                            biasvar_path ? biasvar_path : "-", NULL};
    if (cli_out_open_for(&o, out_path, inputs) != 0) {
        rc = EXIT_INPUT;
        goto done;
    }
    fputs(html, o.fp);
    rc = cli_out_commit(&o) == 0 ? EXIT_OK : EXIT_INPUT;
done:
    grove_string_free(html);
    free(biasvar);
    grove_dataset_free(data);
    grove_dataset_free(valid);
    grove_model_free(model);
    return rc;
}
