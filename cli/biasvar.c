/*
 * biasvar.c -- `grove biasvar DATA [--algo NAME] [--replicates R] [--test FILE] [--set ...]
 * [--json]`: the bias-variance decomposition of an algorithm's test error (grove_biasvar).
 */
#include "cli.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_REPLICATES, OPT_TEST, OPT_JSON };
static const cli_option biasvar_options[] = {
    {OPT_REPLICATES, "--replicates", "-R", "R", "bootstrap replicates (default 20)", NULL},
    {OPT_TEST, "--test", NULL, "FILE", "the fixed test set (default: 30 % of DATA held out by the seed)",
     NULL},
    {OPT_JSON, "--json", NULL, NULL, "the library's JSON report instead of the table", NULL},
    {CLI_HEADING, NULL, NULL, NULL, "Training options (as for grove train):\n", NULL},
    CLI_TRAINING_OPTIONS,
    {0}};
static const cli_command biasvar_command = {
    "biasvar",
    "usage: grove biasvar DATA [--replicates R] [--test FILE] [--json] [training options]\n"
    "\n"
    "Trains the algorithm on R bootstrap replicates of DATA (default R = 20; replicate r uses\n"
    "seed + r), predicts a fixed test set (--test FILE, else 30 % of DATA held out by the seed)\n"
    "and decomposes the test error, the test labels taken as the noise-free targets:\n"
    "  regression, squared loss:   mse = bias^2 + variance, with the mean prediction\n"
    "    ybar(x) = mean_r f_r(x): bias^2 = mean_x (ybar(x) - y)^2, variance = mean_x\n"
    "    mean_r (f_r(x) - ybar(x))^2.\n"
    "  classification, 0-1 loss (Domingos 2000, \"A unified bias-variance decomposition for\n"
    "    zero-one and squared loss\"): main prediction y_m(x) = the mode of the f_r(x);\n"
    "    bias = mean_x [y_m(x) != y]; variance = mean_x P_r(f_r(x) != y_m(x)); unbiased\n"
    "    variance (where y_m = y) and biased variance (where y_m != y); net variance =\n"
    "    unbiased - biased (two classes; multiclass weights biased rows by P(f_r = y | f_r !=\n"
    "    y_m)); error = bias + net variance.\n"
    "\n",
    biasvar_options, NULL, 23};

static void print_row(const json_t *o, const char *key, const char *label)
{
    const json_t *v = json_object_get(o, key);
    if (json_is_number(v))
        printf("  %-24s %.6f\n", label, json_number_value(v));
    else
        printf("  %-24s -\n", label);
}

int cmd_biasvar(int argc, char **argv)
{
    grove_params *params = NULL;
    grove_dataset *data = NULL, *test = NULL;
    const char *data_path = NULL, *test_path = NULL, *rep_text = "20";
    int quiet = 0, json = 0, rc = EXIT_USAGE;
    char *report = NULL;
    json_t *o = NULL;
    grove_status st = grove_params_create(&params);
    if (st != GROVE_OK) return cli_fail(st, NULL);
    cli_args a = {.cmd = &biasvar_command, .argc = argc, .argv = argv, .params = params};
    for (int opt; (opt = cli_next(&a)) != CLI_END;) {
        switch (opt) {
        case CLI_EXIT:
            rc = a.rc;
            goto done;
        case CLI_POSITIONAL:
            if (data_path) {
                cli_error("biasvar: more than one DATA file");
                goto done;
            }
            data_path = a.value;
            break;
        case OPT_REPLICATES:
            rep_text = a.value;
            break;
        case OPT_TEST:
            test_path = a.value;
            break;
        case OPT_JSON:
            json = 1;
            break;
        }
    }
    quiet = a.quiet;
    if (!data_path) {
        cli_help(stderr, &biasvar_command);
        goto done;
    }
    long R;
    if (cli_int_arg("--replicates", rep_text, 2, 100000, &R) != 0) goto done;
    if ((rc = cli_track_params(params)) != EXIT_OK) goto done;
    if ((rc = cli_load(data_path, params, NULL, quiet, &data)) != EXIT_OK) goto done;
    if (test_path &&
        (rc = cli_load(test_path, params, grove_dataset_schema(data), quiet, &test)) != EXIT_OK)
        goto done;
    cli_enable_progress(params, quiet);
    st = grove_biasvar(data, test, params, (size_t)R, &report);
    cli_progress_done();
    if (st != GROVE_OK) {
        rc = cli_fail(st, "biasvar");
        goto done;
    }
    if ((rc = cli_check_unused(params, "biasvar")) != EXIT_OK) goto done;
    rc = EXIT_USAGE;
    if (json) {
        printf("%s\n", report);
        rc = EXIT_OK;
        goto done;
    }
    o = json_loads(report, 0, NULL);
    if (!o) {
        cli_error("biasvar: cannot read the report");
        rc = EXIT_INTERNAL;
        goto done;
    }
    const char *task = json_string_value(json_object_get(o, "task"));
    printf("bias-variance of %s on %s: %lld replicates, %lld training rows, %lld test rows (%s)\n",
           json_string_value(json_object_get(o, "algo")), data_path,
           (long long)json_integer_value(json_object_get(o, "replicates")),
           (long long)json_integer_value(json_object_get(o, "n_train")),
           (long long)json_integer_value(json_object_get(o, "n_test")),
           test_path ? test_path : "held-out 30%");
    if (task && !strcmp(task, "regression")) {
        print_row(o, "mse", "mse");
        print_row(o, "bias2", "bias^2");
        print_row(o, "variance", "variance");
    } else {
        print_row(o, "error", "error (0-1 loss)");
        print_row(o, "bias", "bias");
        print_row(o, "variance", "variance");
        print_row(o, "unbiased_variance", "unbiased variance");
        print_row(o, "biased_variance", "biased variance");
        print_row(o, "net_variance", "net variance");
        print_row(o, "bias_plus_net_variance", "bias + net variance");
    }
    printf("definition: %s\nreference: %s\n", json_string_value(json_object_get(o, "definition")),
           json_string_value(json_object_get(o, "reference")));
    rc = EXIT_OK;
done:
    json_decref(o);
    grove_string_free(report);
    grove_dataset_free(test);
    grove_dataset_free(data);
    grove_params_free(params);
    return rc;
}
