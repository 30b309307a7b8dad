/*
 * convert.c -- `grove convert IN OUT`: a model file in another encoding.  OUT's name chooses:
 * ".gvb" the binary encoding, ".gz" gzip'd JSON text, anything else JSON text; IN may be any
 * of them (a binary file is known by its first bytes).  The model is loaded (every check of
 * grove_model_load) and written as grove_model_save writes it, so text -> binary -> text gives
 * the same bytes as the text a current grove writes.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const char convert_usage[] =
    "usage: grove convert IN OUT\n"
    "\n"
    "Rewrites model IN as OUT in the encoding OUT's name asks for: a name ending in \".gvb\" is\n"
    "the binary encoding (loads and saves without parsing or printing numbers), \".gz\" gzip'd\n"
    "JSON text, any other JSON text (docs/model-format.md).  IN may be any of them.\n";

int cmd_convert(int argc, char **argv)
{
    const char *pos[2] = {NULL, NULL};
    int n_pos = 0;
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            fputs(convert_usage, stdout);
            return EXIT_OK;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            cli_error("convert: unknown option '%s'", argv[i]);
            return EXIT_USAGE;
        } else if (n_pos < 2) {
            pos[n_pos++] = argv[i];
        } else {
            cli_error("convert: too many arguments");
            return EXIT_USAGE;
        }
    }
    if (n_pos < 2) {
        fputs(convert_usage, stderr);
        return EXIT_USAGE;
    }
    cli_out out = {0};
    const char *inputs[] = {pos[0], NULL};
    if (cli_out_open_for(&out, pos[1], inputs) != 0) return EXIT_INPUT;
    grove_model *model = NULL;
    grove_status st = grove_model_load(pos[0], &model);
    if (st == GROVE_OK) st = grove_model_write(model, out.g);
    grove_model_free(model);
    if (st != GROVE_OK) {
        cli_out_abort(&out);
        return cli_fail(st, NULL);
    }
    return cli_out_commit(&out) == 0 ? EXIT_OK : EXIT_INPUT;
}
