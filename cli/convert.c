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
    "       grove convert --from xgboost|lightgbm|sklearn IN -o OUT\n"
    "\n"
    "Rewrites model IN as OUT in the encoding OUT's name asks for: a name ending in \".gvb\" is\n"
    "the binary encoding (loads and saves without parsing or printing numbers), \".gz\" gzip'd\n"
    "JSON text, any other JSON text (docs/model-format.md).  IN may be any of them.\n"
    "\n"
    "  --from FORMAT  IN is another library's model: xgboost (XGBoost's JSON model,\n"
    "                 save_model(\"m.json\")), lightgbm (LightGBM's text model) or sklearn\n"
    "                 (the dump of grove.from_sklearn); docs/convert.md\n"
    "  -o OUT         the output (instead of the second argument)\n";

int cmd_convert(int argc, char **argv)
{
    const char *pos[2] = {NULL, NULL};
    const char *from = NULL;
    int n_pos = 0;
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            fputs(convert_usage, stdout);
            return EXIT_OK;
        } else if (!strcmp(argv[i], "--from") || !strcmp(argv[i], "-o")) {
            if (i + 1 >= argc) {
                cli_error("convert: %s needs a value", argv[i]);
                return EXIT_USAGE;
            }
            if (argv[i][1] == 'o') {
                if (pos[1]) {
                    cli_error("convert: two outputs");
                    return EXIT_USAGE;
                }
                pos[1] = argv[++i];
            } else {
                from = argv[++i];
                if (strcmp(from, "xgboost") && strcmp(from, "lightgbm") && strcmp(from, "sklearn")) {
                    cli_error("convert: --from must be xgboost, lightgbm or sklearn, got '%s'", from);
                    return EXIT_USAGE;
                }
            }
        } else if (argv[i][0] == '-' && argv[i][1]) {
            cli_error("convert: unknown option '%s'", argv[i]);
            return EXIT_USAGE;
        } else if (n_pos < 2 && !pos[n_pos]) {
            pos[n_pos++] = argv[i];
        } else {
            cli_error("convert: too many arguments");
            return EXIT_USAGE;
        }
    }
    if (!pos[0] || !pos[1]) {
        fputs(convert_usage, stderr);
        return EXIT_USAGE;
    }
    cli_out out = {0};
    const char *inputs[] = {pos[0], NULL};
    if (cli_out_open_for(&out, pos[1], inputs) != 0) return EXIT_INPUT;
    grove_model *model = NULL;
    grove_status st = from ? grove_model_convert(from, pos[0], &model)
                           : grove_model_load(pos[0], &model);
    if (st == GROVE_OK) st = grove_model_write(model, out.g);
    grove_model_free(model);
    if (st != GROVE_OK) {
        cli_out_abort(&out);
        return cli_fail(st, NULL);
    }
    return cli_out_commit(&out) == 0 ? EXIT_OK : EXIT_INPUT;
}
