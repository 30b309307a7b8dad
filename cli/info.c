/*
 * info.c -- `grove info MODEL [--all] [--json]`: what a model file holds (algorithm, parameters,
 * schema, size), as readable text or as the JSON object of grove_model_info_json.  The text
 * shows the parameters that apply to the model's algorithm (grove_params_applies) and the data
 * options that differ from their defaults; --all and --json show every one.
 */
#include "cli.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_JSON, OPT_ALL };
static const cli_option info_options[] = {
    {OPT_JSON, "--json", NULL, NULL, "one JSON object instead of the description (every parameter)",
     NULL},
    {OPT_ALL, "--all", "-a", NULL,
     "every stored parameter (default: those that apply to the algorithm,\n"
     "and data options set to other than their defaults)", NULL},
    {0}};
static const cli_command info_command = {
    "info",
    "usage: grove info MODEL [--all] [--json]\n"
    "\n"
    "Describes MODEL: algorithm, task, features, classes, parameters and the model's size.\n"
    "\n",
    info_options, NULL, 14};

static void print_value(const char *indent, const char *key, json_t *v)
{
    if (json_is_object(v)) {
        printf("%s%s:\n", indent, key);
        char deeper[64];
        snprintf(deeper, sizeof deeper, "%s  ", indent);
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x) print_value(deeper, k, x);
        return;
    }
    if (json_is_array(v) && json_array_size(v) > 12) {
        char *a = json_dumps(json_array_get(v, 0), JSON_ENCODE_ANY | JSON_COMPACT);
        char *b = json_dumps(json_array_get(v, 1), JSON_ENCODE_ANY | JSON_COMPACT);
        printf("%s%s: [%s, %s, ... %zu items]\n", indent, key, a ? a : "", b ? b : "",
               json_array_size(v));
        free(a);
        free(b);
        return;
    }
    char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(10));
    if (json_is_string(v))
        printf("%s%s: %s\n", indent, key, json_string_value(v));
    else
        printf("%s%s: %s\n", indent, key, s ? s : "?");
    free(s);
}

/* 1 when parameter `key` = `value` is shown for a model of `algo` without --all: it applies to
 * the algorithm, and a data option only where it is not at its default. */
static int param_shown(const char *algo, const char *key, json_t *value)
{
    if (!grove_params_applies(key, algo)) return 0;
    for (size_t i = 0; i < grove_params_count(); i++) {
        const char *name, *def;
        if (grove_params_describe(i, &name, NULL, &def, NULL, NULL) != GROVE_OK ||
            strcmp(name, key) != 0)
            continue;
        if (strcmp(grove_params_applies_to(i), "data") != 0) return 1;
        return !json_is_string(value) || strcmp(json_string_value(value), def) != 0;
    }
    return 1;
}

/* The parameters that apply (param_shown), and a line saying how many are not shown. */
static void print_params(const char *algo, json_t *params)
{
    printf("params:\n");
    const char *k;
    json_t *v;
    size_t hidden = 0;
    json_object_foreach(params, k, v)
    {
        if (param_shown(algo, k, v))
            print_value("  ", k, v);
        else
            hidden++;
    }
    if (hidden)
        printf("  (%zu more that do not apply to %s or are data options at their defaults: "
               "--all)\n", hidden, algo);
}

int cmd_info(int argc, char **argv)
{
    const char *path = NULL;
    int json = 0, all = 0;
    cli_args a = {.cmd = &info_command, .argc = argc, .argv = argv};
    for (int o; (o = cli_next(&a)) != CLI_END;) {
        switch (o) {
        case CLI_EXIT:
            return a.rc;
        case CLI_POSITIONAL:
            if (path) {
                cli_error("info: too many arguments");
                return EXIT_USAGE;
            }
            path = a.value;
            break;
        case OPT_JSON:
            json = 1;
            break;
        case OPT_ALL:
            all = 1;
            break;
        }
    }
    if (!path) {
        cli_help(stderr, &info_command);
        return EXIT_USAGE;
    }
    grove_model *model = NULL;
    grove_status st = grove_model_load(path, &model);
    if (st != GROVE_OK) return cli_fail(st, NULL);
    char *text = NULL;
    st = grove_model_info_json(model, &text);
    grove_model_free(model);
    if (st != GROVE_OK) return cli_fail(st, NULL);
    if (json) {
        printf("%s\n", text);
    } else {
        json_t *root = json_loads(text, 0, NULL);
        if (root) {
            printf("model file: %s\n", path);
            const char *k;
            json_t *v;
            const char *algo = json_string_value(json_object_get(root, "algo"));
            json_object_foreach(root, k, v)
            {
                if (!all && algo && !strcmp(k, "params") && json_is_object(v))
                    print_params(algo, v);
                else
                    print_value("", k, v);
            }
            json_decref(root);
        }
    }
    grove_string_free(text);
    return EXIT_OK;
}
