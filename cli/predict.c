/*
 * predict.c -- `grove predict MODEL DATA [-o FILE] [--proba]`: a CSV with the predicted label
 * (class name, or value for regression) in column `label`, and with --proba one column
 * p_<class> per class in the model's class order.  -o: a regular file is replaced
 * atomically, a device or FIFO written through; default stdout.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

enum { OPT_OUTPUT, OPT_PROBA, OPT_KEEP, OPT_ROUNDS, OPT_THREADS };
static const cli_option predict_options[] = {
    {OPT_OUTPUT, "--output", "-o", "FILE",
     "write here (a file is replaced atomically, a device or FIFO written\n"
     "through, never an input file); default stdout (-)", NULL},
    {OPT_PROBA, "--proba", NULL, NULL, "add the class probabilities (classification)", NULL},
    {OPT_KEEP, "--keep", "-k", "COL",
     "copy column COL of DATA (a name or 0-based index; e.g. a row ID)\n"
     "into the output, before the predictions; repeatable (CSV DATA)", NULL},
    {OPT_ROUNDS, "--rounds", "-r", "T",
     "staged prediction: use only the first T rounds of a boosting model", NULL},
    {CLI_PARAM, "--sep", NULL, "C", "CSV field separator of DATA (default: sniffed from its header)",
     "sep"},
    {OPT_THREADS, "--threads", "-j", "N", "threads (0 = all cores)", NULL},
    {CLI_QUIET, "--quiet", "-q", NULL, "no notes about DATA (warnings are still printed)", NULL},
    {0}};
static const cli_command predict_command = {
    "predict",
    "usage: grove predict MODEL DATA [-o FILE] [--proba] [--keep COL]... [--rounds T]\n"
    "                     [--sep C] [--threads N] [--quiet]\n"
    "\n"
    "Predicts every row of DATA (CSV or LIBSVM; read with the model's schema, the label column\n"
    "is optional) and writes CSV: a header, then the predicted class name or value in column\n"
    "'label'; with --proba also p_<class> for every class, in the model's class order.\n"
    "\n",
    predict_options, NULL, 21};

int cmd_predict(int argc, char **argv)
{
    const char *pos[2] = {0}, *out_path = NULL, *threads = "0", *rounds_text = NULL;
    int n_pos = 0, proba = 0;
    char keep[4096] = "";
    grove_params *params = NULL;
    grove_status st = grove_params_create(&params);
    if (st != GROVE_OK) return cli_fail(st, NULL);
    cli_args a = {.cmd = &predict_command, .argc = argc, .argv = argv, .params = params};
    for (int o; (o = cli_next(&a)) != CLI_END;) {
        switch (o) {
        case CLI_EXIT:
            grove_params_free(params);
            return a.rc;
        case CLI_POSITIONAL:
            if (n_pos == 2) {
                cli_error("predict: too many arguments");
                goto usage;
            }
            pos[n_pos++] = a.value;
            break;
        case OPT_OUTPUT:
            out_path = a.value;
            break;
        case OPT_PROBA:
            proba = 1;
            break;
        case OPT_KEEP:
            if (strlen(keep) + strlen(a.value) + 2 > sizeof keep) {
                cli_error("--keep: too many columns");
                goto usage;
            }
            if (*keep) strcat(keep, ",");
            strcat(keep, a.value);
            break;
        case OPT_ROUNDS:
            rounds_text = a.value;
            break;
        case OPT_THREADS:
            threads = a.value;
            break;
        }
    }
    const int quiet = a.quiet;
    if (n_pos != 2) {
        cli_help(stderr, &predict_command);
        goto usage;
    }
    if (*keep && (st = grove_params_set(params, "keep", keep)) != GROVE_OK) {
        cli_fail(st, NULL);
        goto usage;
    }
    grove_model *model = NULL;
    grove_dataset *data = NULL;
    double *p = NULL;
    cli_out out = {0};
    int rc;
    long n_threads;
    if (cli_int_arg("--threads", threads, 0, 4096, &n_threads) != 0) goto usage;
    /* the output is opened (checked) first: refused when it is an input, nothing written on error */
    const char *inputs[] = {pos[0], pos[1], NULL};
    if (cli_out_open_for(&out, out_path, inputs) != 0) {
        grove_params_free(params);
        return EXIT_INPUT;
    }
    st = grove_model_load(pos[0], &model);
    if (st != GROVE_OK) {
        cli_out_abort(&out);
        grove_params_free(params);
        return cli_fail(st, NULL);
    }
    const grove_schema *s = grove_model_schema(model);
    int cls = grove_schema_task(s) == GROVE_CLASSIFICATION;
    if (proba && !cls) {
        cli_error("predict: --proba needs a classification model; %s is a regression model",
                  pos[0]);
        rc = EXIT_USAGE;
        goto done;
    }
    rc = cli_load_for_model(pos[1], model, params, quiet, &data);
    if (rc != EXIT_OK) goto done;
    size_t n_kept = grove_dataset_n_kept(data);
    if (*keep && !n_kept) {
        cli_error("predict: --keep needs CSV data; %s is LIBSVM", pos[1]);
        rc = EXIT_USAGE;
        goto done;
    }
    size_t n = grove_dataset_n_rows(data), k = grove_model_n_outputs(model);
    p = malloc((n ? n : 1) * k * sizeof *p);
    if (!p) {
        cli_error("predict: out of memory for %zu predictions", n);
        rc = EXIT_INTERNAL;
        goto done;
    }
    if (rounds_text) {
        char *end;
        unsigned long long t = strtoull(rounds_text, &end, 10);
        if (*end || !*rounds_text || rounds_text[0] == '-') {
            cli_error("--rounds: expected a positive integer, got '%s'", rounds_text);
            rc = EXIT_USAGE;
            goto done;
        }
        st = grove_model_predict_rounds(model, data, (size_t)t, (int)n_threads, p, n * k);
        if (st == GROVE_ERR_ARG) {
            rc = cli_fail(st, pos[0]);
            rc = EXIT_USAGE;
            goto done;
        }
    } else {
        st = grove_model_predict(model, data, (int)n_threads, p, n * k);
    }
    if (st != GROVE_OK) {
        rc = cli_fail(st, NULL);
        goto done;
    }
    for (size_t c = 0; c < n_kept; c++) {
        cli_csv_field(out.fp, grove_dataset_kept_name(data, c));
        fputc(',', out.fp);
    }
    fputs("label", out.fp);
    if (proba)
        for (size_t c = 0; c < k; c++) {
            char name[1024];
            snprintf(name, sizeof name, "p_%s", grove_schema_class_name(s, c));
            fputc(',', out.fp);
            cli_csv_field(out.fp, name);
        }
    fputc('\n', out.fp);
    /* one line at a time into a buffer, one fwrite each: the class names quoted once */
    size_t n_names = cls ? k : 0, line_cap = 2 + k * (GROVE_DOUBLE_TEXT + 1), longest = 0;
    char **names = calloc(n_names ? n_names : 1, sizeof *names);
    rc = names ? EXIT_OK : EXIT_INTERNAL;
    for (size_t c = 0; c < n_names && rc == EXIT_OK; c++) {
        const char *name = grove_schema_class_name(s, c);
        size_t len = strlen(name), q = 0;
        for (const char *t = name; *t; t++) q += *t == '"';
        int quote = strpbrk(name, ",\"\r\n") != NULL;
        names[c] = malloc(len + q + 3);
        if (!names[c]) {
            rc = EXIT_INTERNAL;
            break;
        }
        char *w = names[c];
        if (quote) *w++ = '"';
        for (const char *t = name; *t; t++) {
            if (*t == '"') *w++ = '"';
            *w++ = *t;
        }
        if (quote) *w++ = '"';
        *w = '\0';
        if ((size_t)(w - names[c]) > longest) longest = (size_t)(w - names[c]);
    }
    line_cap += longest; /* a name, then k numbers of <= 24 characters and their commas */
    char *line = rc == EXIT_OK ? malloc(line_cap) : NULL;
    if (!line) {
        cli_error("predict: out of memory");
        rc = EXIT_INTERNAL;
    }
    for (size_t i = 0; line && i < n; i++) {
        const double *row = p + i * k;
        for (size_t c = 0; c < n_kept; c++) { /* kept columns straight to the stream */
            cli_csv_field(out.fp, grove_dataset_kept_value(data, c, i));
            fputc(',', out.fp);
        }
        char *w = line;
        if (cls) {
            size_t best = 0; /* argmax, ties to the lowest class index */
            for (size_t c = 1; c < k; c++)
                if (row[c] > row[best]) best = c;
            size_t len = strlen(names[best]);
            memcpy(w, names[best], len);
            w += len;
        } else {
            w += grove_format_double(row[0], w);
        }
        if (proba)
            for (size_t c = 0; c < k; c++) {
                *w++ = ',';
                w += grove_format_double(row[c], w);
            }
        *w++ = '\n';
        fwrite(line, 1, (size_t)(w - line), out.fp);
    }
    free(line);
    for (size_t c = 0; names && c < n_names; c++) free(names[c]);
    free(names);
    if (rc != EXIT_OK) goto done;
    rc = cli_out_commit(&out) == 0 ? EXIT_OK : EXIT_INPUT;
done:
    if (rc != EXIT_OK) cli_out_abort(&out);
    free(p);
    grove_dataset_free(data);
    grove_model_free(model);
    grove_params_free(params);
    return rc;
usage:
    grove_params_free(params);
    return EXIT_USAGE;
}
