/*
 * dump.c -- `grove dump MODEL [--format text|json|csv] [-o FILE]`: every tree of a model (the
 * library writes the text, grove_model_dump; this command writes it atomically).
 */
#include "cli.h"

#include <string.h>

enum { OPT_FORMAT, OPT_OUTPUT };
static const cli_option dump_options[] = {
    {OPT_FORMAT, "--format", "-f", "F",
     "text (XGBoost's dump_model lines, the default), json (nested, one\n"
     "object per tree) or csv (one row per node, as trees_to_dataframe)", NULL},
    {OPT_OUTPUT, "--output", "-o", "FILE",
     "write here (a file is replaced atomically, a device or FIFO written\n"
     "through, never an input file); default stdout (-)", NULL},
    {0}};
static const cli_command dump_command = {
    "dump",
    "usage: grove dump MODEL [--format text|json|csv] [-o FILE]\n"
    "\n"
    "Writes every tree of MODEL: per node its split (feature name, threshold or categories),\n"
    "children (yes: x <= split; missing values and unseen categories go to `missing`), gain,\n"
    "cover (training weight; gbdt: hessian sum) and count; leaves their values (gbdt: margin\n"
    "terms, whose sum along a row's paths plus base_score is the margin; classification\n"
    "trees: class probabilities).  Ensemble members carry their round and class (gbdt),\n"
    "alpha (AdaBoost family) or weight (voting).  Linear members print their coefficients.\n"
    "Numbers are exact.  The format of each: docs/cli.md, `grove dump`.\n"
    "\n",
    dump_options, NULL, 21};

int cmd_dump(int argc, char **argv)
{
    const char *model_path = NULL, *out_path = NULL, *format = "text";
    cli_args a = {.cmd = &dump_command, .argc = argc, .argv = argv};
    for (int o; (o = cli_next(&a)) != CLI_END;) {
        switch (o) {
        case CLI_EXIT:
            return a.rc;
        case CLI_POSITIONAL:
            if (model_path) {
                cli_error("dump: too many arguments");
                return EXIT_USAGE;
            }
            model_path = a.value;
            break;
        case OPT_FORMAT:
            format = a.value;
            break;
        case OPT_OUTPUT:
            out_path = a.value;
            break;
        }
    }
    if (!model_path) {
        cli_help(stderr, &dump_command);
        return EXIT_USAGE;
    }
    if (strcmp(format, "text") != 0 && strcmp(format, "json") != 0 && strcmp(format, "csv") != 0) {
        cli_error("dump: --format must be text, json or csv, got '%s'", format);
        return EXIT_USAGE;
    }
    grove_model *model = NULL;
    grove_status st = grove_model_load(model_path, &model);
    if (st != GROVE_OK) return cli_fail(st, NULL);
    char *text = NULL;
    st = grove_model_dump(model, format, &text);
    grove_model_free(model);
    if (st != GROVE_OK) return cli_fail(st, model_path);
    cli_out o;
    int rc = EXIT_INPUT;
    const char *inputs[] = {model_path, NULL};
    if (cli_out_open_for(&o, out_path, inputs) == 0) {
        fputs(text, o.fp);
        rc = cli_out_commit(&o) == 0 ? EXIT_OK : EXIT_INPUT;
        cli_out_abort(&o);
    }
    grove_string_free(text);
    return rc;
}
