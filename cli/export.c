/*
 * export.c -- `grove export MODEL --lang c|h [-o FILE] [--header FILE] [--prefix NAME] [--form F]`:
 * the model as one standalone C99 file (the library writes the text, grove_model_export; this
 * command writes it atomically).
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

enum { OPT_LANG, OPT_OUTPUT, OPT_PREFIX, OPT_FORM, OPT_HEADER };
static const cli_option export_options[] = {
    {OPT_LANG, "--lang", NULL, "c|h", "c: the C file (and its header, see --header); h: the header alone",
     NULL},
    {OPT_OUTPUT, "--output", "-o", "FILE",
     "write here (a file is replaced atomically, a device or FIFO written\n"
     "through, never an input file); default stdout (-)", NULL},
    {OPT_PREFIX, "--prefix", NULL, "NAME", "the entry points' prefix, a C identifier (default: model)",
     NULL},
    {OPT_FORM, "--form", NULL, "F",
     "trees as one function each (code), one static node table (table), or\n"
     "chosen by size (auto, the default: tables above 20000 nodes)", NULL},
    {OPT_HEADER, "--header", NULL, "FILE",
     "also write the header (prototypes, sizes) here; default with\n"
     "-o NAME.c: NAME.h beside it; `--header none`: no header", NULL},
    {0}};
static const cli_command export_command = {
    "export",
    "usage: grove export MODEL --lang c|h [-o FILE] [--header FILE] [--prefix NAME]\n"
    "                    [--form auto|code|table]\n"
    "\n"
    "Writes the model as one standalone C99 source file that needs only libm: functions\n"
    "NAME_predict(const float *x, double *out), NAME_predict_double, NAME_predict_batch and\n"
    "NAME_predict_batch_double, documented in the file's header comment (features in the\n"
    "model's order, NaN = missing, category codes for categorical features; class\n"
    "probabilities or the value out).  Their outputs equal `grove predict --proba` bit for bit.\n"
    "With -o NAME.c the header NAME.h is written too: the same comment, NAME_N_FEATURES,\n"
    "NAME_N_OUTPUTS and the four prototypes (extern \"C\" for C++); #include it where you call\n"
    "them.  --lang h writes the header alone.\n"
    "Trees, forests, extra-trees, bagging, the AdaBoost family, filter- and confidence-boosting,\n"
    "gbdt, voting, stacking, perceptron and logistic regression export; mlp does not (yet).\n"
    "\n",
    export_options, NULL, 21};

int cmd_export(int argc, char **argv)
{
    const char *model_path = NULL, *out_path = NULL, *lang = NULL, *prefix = "model",
               *form = "auto", *header_path = NULL;
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
        case OPT_HEADER:
            header_path = a.value;
            break;
        }
    }
    if (!model_path || !lang) {
        if (model_path) cli_error("export: --lang is required (--lang c)");
        cli_help(stderr, &export_command);
        return EXIT_USAGE;
    }
    if (strcmp(lang, "c") != 0 && strcmp(lang, "h") != 0) {
        cli_error("export: --lang %s is not supported (c and h are)", lang);
        return EXIT_USAGE;
    }
    /* the header beside a NAME.c output, unless chosen or declined */
    char derived[4096];
    size_t olen = out_path ? strlen(out_path) : 0;
    if (header_path && !strcmp(header_path, "none")) {
        header_path = NULL;
    } else if (!header_path && !strcmp(lang, "c") && olen > 2 && olen < sizeof derived &&
               !strcmp(out_path + olen - 2, ".c")) {
        snprintf(derived, sizeof derived, "%.*s.h", (int)(olen - 2), out_path);
        header_path = derived;
    }
    if (header_path && out_path && cli_same_output(header_path, out_path)) {
        cli_error("export: --header %s is also the output (-o); choose another file", header_path);
        return EXIT_USAGE;
    }
    grove_model *model = NULL;
    grove_status st = grove_model_load(model_path, &model);
    if (st != GROVE_OK) return cli_fail(st, NULL);
    char *text = NULL, *header = NULL;
    st = grove_model_export(model, lang, prefix, form, &text);
    if (st == GROVE_OK && header_path) st = grove_model_export(model, "h", prefix, form, &header);
    grove_model_free(model);
    if (st != GROVE_OK) {
        grove_string_free(text);
        /* an unsupported model or a bad --prefix/--form is a usage error */
        int rc = cli_fail(st, model_path);
        return st == GROVE_ERR_ARG ? EXIT_USAGE : rc;
    }
    cli_out o, h = {0};
    int rc = EXIT_INPUT;
    const char *inputs[] = {model_path, NULL};
    if (cli_out_open_for(&o, out_path, inputs) == 0) {
        if (!header_path || cli_out_open_for(&h, header_path, inputs) == 0) {
            fputs(text, o.fp);
            if (header_path) fputs(header, h.fp);
            /* the header first: a C file is never left without the header it names */
            rc = (!header_path || cli_out_commit(&h) == 0) && cli_out_commit(&o) == 0
                     ? EXIT_OK
                     : EXIT_INPUT;
        }
        cli_out_abort(&h);
        cli_out_abort(&o);
    }
    grove_string_free(header);
    grove_string_free(text);
    return rc;
}
