/*
 * export.c -- `grove export MODEL --lang c [-o FILE] [--prefix NAME] [--form auto|code|table]`:
 * the model as one standalone C99 file (the library writes the text, grove_model_export; this
 * command writes it atomically).
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

enum { OPT_LANG, OPT_OUTPUT, OPT_PREFIX, OPT_FORM };
static const cli_option export_options[] = {
    {OPT_LANG, "--lang", NULL, "c", "the language (only c)", NULL},
    {OPT_OUTPUT, "--output", "-o", "FILE",
     "write here (a file is replaced atomically, a device or FIFO written\n"
     "through, never an input file); default stdout (-)", NULL},
    {OPT_PREFIX, "--prefix", NULL, "NAME", "the entry points' prefix, a C identifier (default: model)",
     NULL},
    {OPT_FORM, "--form", NULL, "F",
     "trees as one function each (code), one static node table (table), or\n"
     "chosen by size (auto, the default: tables above 20000 nodes)", NULL},
    {0}};
static const cli_command export_command = {
    "export",
    "usage: grove export MODEL --lang c [-o FILE] [--prefix NAME] [--form auto|code|table]\n"
    "\n"
    "Writes the model as one standalone C99 source file that needs only libm: functions\n"
    "NAME_predict(const float *x, double *out), NAME_predict_double, NAME_predict_batch and\n"
    "NAME_predict_batch_double, documented in the file's header comment (features in the\n"
    "model's order, NaN = missing, category codes for categorical features; class\n"
    "probabilities or the value out).  Their outputs equal `grove predict --proba` bit for bit.\n"
    "Trees, forests, extra-trees, bagging, the AdaBoost family, filter- and confidence-boosting,\n"
    "gbdt, voting, stacking, perceptron and logistic regression export; mlp does not (yet).\n"
    "\n",
    export_options, NULL, 21};

int cmd_export(int argc, char **argv)
{
    const char *model_path = NULL, *out_path = NULL, *lang = NULL, *prefix = "model",
               *form = "auto";
    cli_args a = {.cmd = &export_command, .argc = argc, .argv = argv};
    for (int o; (o = cli_next(&a)) != CLI_END;) {
        switch (o) {
        case CLI_EXIT:
            return a.rc;
        case CLI_POSITIONAL:
            if (model_path) {
                cli_error("export: too many arguments");
                return EXIT_USAGE;
            }
            model_path = a.value;
            break;
        case OPT_LANG:
            lang = a.value;
            break;
        case OPT_OUTPUT:
            out_path = a.value;
            break;
        case OPT_PREFIX:
            prefix = a.value;
            break;
        case OPT_FORM:
            form = a.value;
            break;
        }
    }
    if (!model_path || !lang) {
        if (model_path) cli_error("export: --lang is required (--lang c)");
        cli_help(stderr, &export_command);
        return EXIT_USAGE;
    }
    if (strcmp(lang, "c") != 0) {
        cli_error("export: --lang %s is not supported (c is)", lang);
        return EXIT_USAGE;
    }
    grove_model *model = NULL;
    grove_status st = grove_model_load(model_path, &model);
    if (st != GROVE_OK) return cli_fail(st, NULL);
    char *text = NULL;
    st = grove_model_export(model, lang, prefix, form, &text);
    grove_model_free(model);
    if (st != GROVE_OK) {
        /* an unsupported model or a bad --prefix/--form is a usage error */
        int rc = cli_fail(st, model_path);
        return st == GROVE_ERR_ARG ? EXIT_USAGE : rc;
    }
    cli_out o;
    int rc = EXIT_INPUT;
    const char *inputs[] = {model_path, NULL};
    if (cli_out_open_for(&o, out_path, inputs) == 0) {
        fputs(text, o.fp);
        rc = cli_out_commit(&o) == 0 ? EXIT_OK : EXIT_INPUT;
    }
    grove_string_free(text);
    return rc;
}
