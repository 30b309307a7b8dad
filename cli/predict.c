/*
 * predict.c -- `grove predict MODEL DATA [-o FILE] [--proba] [--contrib | --interactions]`: a
 * CSV with the predicted label (class name, or value for regression) in column `label`, with
 * --proba one column p_<class> per class in the model's class order, with --contrib one
 * column per feature and the bias (per score group: grove_model_predict_contrib) and with
 * --interactions one per pair of them.  -o: a regular file is replaced atomically, a device
 * or FIFO written through; default stdout.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

enum { OPT_OUTPUT, OPT_PROBA, OPT_KEEP, OPT_ROUNDS, OPT_THREADS, OPT_CONTRIB, OPT_INTERACTIONS };
static const cli_option predict_options[] = {
    {OPT_OUTPUT, "--output", "-o", "FILE",
     "write here (a file is replaced atomically, a device or FIFO written\n"
     "through, never an input file); default stdout (-)", NULL},
    {OPT_PROBA, "--proba", NULL, NULL, "add the class probabilities (classification)", NULL},
    {OPT_CONTRIB, "--contrib", NULL, NULL,
     "add each feature's contribution to the score (SHAP values) and\n"
     "the bias: phi_<feature>..., phi_bias (per class: phi_<class>_<feature>)", NULL},
    {OPT_INTERACTIONS, "--interactions", NULL, NULL,
     "add the SHAP interaction values of every pair of features and the\n"
     "bias instead: phi_<a>:<b> (per class: phi_<class>_<a>:<b>)", NULL},
    {OPT_KEEP, "--keep", "-k", "COL",
     "copy column COL of DATA (a name or 0-based index; e.g. a row ID)\n"
     "into the output, before the predictions; repeatable (CSV DATA)", NULL},
    {OPT_ROUNDS, "--rounds", "-r", "T",
     "staged prediction: use only the first T rounds of a boosting model", NULL},
    {CLI_PARAM, "--sep", NULL, "C", "CSV field separator of DATA (default: sniffed from its header)",
     "sep"},
    {CLI_PARAM, "--decimal", NULL, "C",
     "decimal mark of DATA's numbers (default: the one the model was trained with)", "decimal"},
    {OPT_THREADS, "--threads", "-j", "N", "threads (0 = all cores)", NULL},
    {CLI_QUIET, "--quiet", "-q", NULL, "no notes about DATA (warnings are still printed)", NULL},
    {0}};
static const cli_command predict_command = {
    "predict",
    "usage: grove predict MODEL DATA [-o FILE] [--proba] [--contrib | --interactions]\n"
    "                     [--keep COL]... [--rounds T] [--sep C] [--decimal C]\n"
    "                     [--threads N] [--quiet]\n"
    "\n"
    "Predicts every row of DATA (CSV or LIBSVM; read with the model's schema, the label column\n"
    "is optional) and writes CSV: a header, then the predicted class name or value in column\n"
    "'label'; with --proba also p_<class> for every class, in the model's class order.\n"
    "--contrib adds the path-dependent TreeSHAP values of the model's score: gbdt's margin\n"
    "before the sigmoid or softmax (one group, or one per class for softmax), the class\n"
    "probabilities of trees and forests, the class scores of the AdaBoost family; a row's\n"
    "columns of one group sum to its score.  --interactions writes the SHAP interaction values\n"
    "instead ((features + 1)^2 columns a group).\n"
    "\n",
    predict_options, NULL, 21};

int cmd_predict(int argc, char **argv)
{
    const char *pos[2] = {0}, *out_path = NULL, *threads = "0", *rounds_text = NULL;
    int n_pos = 0, proba = 0, contrib = 0;
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
        case OPT_CONTRIB:
            if (contrib == 2) goto both;
            contrib = 1;
            break;
        case OPT_INTERACTIONS:
            if (contrib == 1) goto both;
            contrib = 2;
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
    if (contrib && rounds_text) {
        cli_error("predict: --rounds and --%s cannot be combined",
                  contrib == 1 ? "contrib" : "interactions");
        goto usage;
    }
    if (*keep && (st = grove_params_set(params, "keep", keep)) != GROVE_OK) {
        cli_fail(st, NULL);
        goto usage;
    }
    grove_model *model = NULL;
    grove_dataset *data = NULL;
    double *p = NULL, *phi = NULL;
    size_t G = 0, per = 0; /* contributions: score groups, values a row and group */
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
    if (contrib && (st = grove_model_contrib_groups(model, &G)) != GROVE_OK) {
        cli_fail(st, pos[0]);
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
    const size_t F = grove_schema_n_features(s), F1 = F + 1;
    if (st == GROVE_OK && contrib) {
        per = contrib == 2 ? F1 * F1 : F1;
        phi = (n && G * per <= SIZE_MAX / sizeof *phi / n) ? malloc(n * G * per * sizeof *phi)
                                                           : NULL;
        if (n && !phi) {
            cli_error("predict: out of memory for %zu rows x %zu contributions", n, G * per);
            rc = EXIT_INTERNAL;
            goto done;
        }
        if (n) st = grove_model_predict_contrib(model, data, contrib == 2, (int)n_threads, phi,
                                                n * G * per);
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
    /* contribution columns: phi_[<class>_]<feature>, or phi_[<class>_]<a>:<b> */
    for (size_t g = 0; g < G; g++)
        for (size_t j = 0; j < per; j++) {
            const size_t fa = contrib == 2 ? j / F1 : j, fb = j % F1;
            const char *na = fa < F ? grove_schema_feature_name(s, fa) : "bias";
            const char *nb = fb < F ? grove_schema_feature_name(s, fb) : "bias";
            char name[2048];
            int len = snprintf(name, sizeof name, "phi_");
            if (G > 1)
                len += snprintf(name + len, sizeof name - (size_t)len, "%s_",
                                cls && G == k ? grove_schema_class_name(s, g) : "");
            if (contrib == 2)
                snprintf(name + len, sizeof name - (size_t)len, "%s:%s", na, nb);
            else
                snprintf(name + len, sizeof name - (size_t)len, "%s", na);
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
    /* a name, then k numbers of <= 24 characters and their commas, and the contributions */
    line_cap += longest + G * per * (GROVE_DOUBLE_TEXT + 1);
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
        for (size_t j = 0; j < G * per; j++) {
            *w++ = ',';
            w += grove_format_double(phi[i * G * per + j], w);
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
    free(phi);
    grove_dataset_free(data);
    grove_model_free(model);
    grove_params_free(params);
    return rc;
both:
    cli_error("predict: --contrib and --interactions cannot be combined");
usage:
    grove_params_free(params);
    return EXIT_USAGE;
}
