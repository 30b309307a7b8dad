/*
 * train.c -- `grove train DATA -o MODEL [...]`: trains a model and saves it (atomically for a
 * regular file; outputs are opened before training), then
 * prints a short summary with the training (and validation) metrics.
 */
#include "cli.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_OUTPUT, OPT_VALID, OPT_LOG, OPT_INIT, OPT_VERBOSE };
static const cli_option train_options[] = {
    {OPT_OUTPUT, "--output", "-o", "MODEL",
     "model file to write (required; a name ending in .gz is gzip'd)", NULL},
    {CLI_PARAM, "--algo", "-a", "NAME",
     "tree, id3, stump, perceptron, logistic, mlp, adaboost,\n"
     "adaboost.m1, samme, samme.r, adaboost.m2, adaboost.r2,\n"
     "filter-boost, confidence-boost, bagging, forest, extra-trees,\n"
     "gbdt, stacking, voting (`grove help algos`)", "algo"},
    {CLI_PARAM, "--base", "-b", "LEARNER",
     "base learner of an ensemble (default stump); its parameters are\n"
     "--set base.KEY=VALUE, e.g. --set base.max_depth=3", "base"},
    {CLI_PARAM, "--label", NULL, "COL",
     "label column, by name or 0-based index (default: 'label', else first)", "label"},
    {CLI_PARAM, "--weight", NULL, "COL", "column of sample weights", "weight"},
    {CLI_PARAM, "--group", NULL, "COL",
     "column of query ids (ranking objectives; LIBSVM: qid:n)", "group"},
    {CLI_PARAM, "--rounds", "-r", "N", "rounds / ensemble members (ensemble algorithms)",
     "rounds"},
    {CLI_SET, "--set", "-s", "KEY=VALUE", "any parameter (`grove help params`), repeatable", NULL},
    {CLI_PARAM, "--seed", NULL, "N",
     "random seed (same seed: bit-identical model for any --threads)", "seed"},
    {CLI_PARAM, "--threads", "-j", "N", "threads (0 = all cores)", "threads"},
    {CLI_PARAM, "--sep", NULL, "C",
     "CSV field separator (default: ',', or ';' / tab when the header\n"
     "holds more of those; `tab` for a tab)", "sep"},
    {CLI_PARAM, "--decimal", NULL, "C",
     "decimal mark of CSV numbers: `,` reads 3,14 as 3.14 (default: .)", "decimal"},
    {OPT_VALID, "--valid", NULL, "FILE",
     "validation data: evaluated after training, and used for early\n"
     "stopping (--set early_stopping_rounds=N)", NULL},
    {OPT_INIT, "--init-model", NULL, "MODEL",
     "continued training (gbdt): start from this saved model and add\n"
     "--rounds N rounds; DATA is read with its schema", NULL},
    {OPT_LOG, "--log", NULL, "FILE.csv",
     "boosting: one row per round (t, epsilon, gamma, alpha, Z, training\n"
     "error, prod Z, exp(-2 sum gamma^2)[, validation error]), atomically", NULL},
    {CLI_STRICT, "--strict", NULL, NULL,
     "a parameter the algorithm does not use is an error (default: a\n"
     "warning, with a hint such as 'did you mean base.max_depth?')", NULL},
    {CLI_QUIET, "--quiet", "-q", NULL, "no progress, notes or summary (warnings are still printed)", NULL},
    {OPT_VERBOSE, "--verbose", "-v", NULL,
     "also print what training chose for this data, threads and CPU (gbdt:\n"
     "the tree engine's plan: histogram layout, records, code paths)", NULL},
    {0}};
const cli_command cli_train_command = {
    "train",
    "usage: grove train DATA -o MODEL [--algo NAME] [--base LEARNER] [--label COL] [--weight COL]\n"
    "                   [--group COL] [--rounds N] [--set KEY=VALUE]... [--seed N] [--threads N]\n"
    "                   [--sep C] [--valid FILE] [--init-model MODEL] [--log FILE.csv] [--strict]\n"
    "                   [--quiet] [--verbose]\n"
    "\n"
    "Trains the algorithm NAME (default: tree; `grove help algos`) on DATA (CSV or LIBSVM,\n"
    "gzip'd or not; `grove help formats`) and writes the model to MODEL atomically.\n"
    "\n",
    train_options, NULL, 23};

/* --verbose: what training chose, a line each */
static void print_note(void *ctx, const char *topic, const char *text)
{
    (void)ctx;
    fprintf(stderr, "grove: %s: %s\n", topic, text);
}

/* "depth 5, 23 leaves" from the model's info JSON, when it describes a tree, and why training
 * stopped before its rounds ran out (boosting, gbdt: the "stop" text, "" if it did not). */
static void describe_model(const grove_model *m, char *buf, size_t size, char *stop,
                           size_t stop_size)
{
    buf[0] = '\0';
    stop[0] = '\0';
    char *info = NULL;
    if (grove_model_info_json(m, &info) != GROVE_OK) return;
    json_t *root = json_loads(info, 0, NULL);
    grove_string_free(info);
    if (!root) return;
    json_t *c = json_object_get(root, "model");
    json_t *leaves = c ? json_object_get(c, "n_leaves") : NULL;
    json_t *depth = c ? json_object_get(c, "depth") : NULL;
    json_t *why = c ? json_object_get(c, "stop") : NULL;
    if (json_is_integer(leaves) && json_is_integer(depth))
        snprintf(buf, size, ", depth %lld, %lld leaves", (long long)json_integer_value(depth),
                 (long long)json_integer_value(leaves));
    if (json_is_string(why)) snprintf(stop, stop_size, "%s", json_string_value(why));
    json_decref(root);
}

int cmd_train(int argc, char **argv)
{
    grove_params *params = NULL;
    grove_dataset *data = NULL, *valid = NULL;
    grove_model *model = NULL;
    grove_eval *e = NULL;
    double *train_pred = NULL; /* the model's outputs on the training rows, when training had them */
    size_t train_pred_len = 0;
    int predicted = 0;
    const char *data_path = NULL, *out_path = NULL, *valid_path = NULL, *log_path = NULL;
    const char *init_path = NULL;
    grove_model *init = NULL;
    int quiet = 0, verbose = 0, rc = EXIT_USAGE;
    cli_out model_out = {0}, log_out = {0};
    grove_status st = grove_params_create(&params);
    if (st != GROVE_OK) return cli_fail(st, NULL);

    cli_args a = {.cmd = &cli_train_command, .argc = argc, .argv = argv, .params = params};
    for (int o; (o = cli_next(&a)) != CLI_END;) {
        switch (o) {
        case CLI_EXIT:
            rc = a.rc;
            goto done;
        case CLI_POSITIONAL:
            if (data_path) {
                cli_error("train: more than one DATA file ('%s', '%s')", data_path, a.value);
                goto done;
            }
            data_path = a.value;
            break;
        case OPT_OUTPUT:
            out_path = a.value;
            break;
        case OPT_VALID:
            valid_path = a.value;
            break;
        case OPT_LOG:
            log_path = a.value;
            break;
        case OPT_INIT:
            init_path = a.value;
            break;
        case OPT_VERBOSE:
            verbose = 1;
            break;
        }
    }
    quiet = a.quiet;
    if (!data_path || !out_path) {
        cli_error("train: %s", !data_path ? "DATA is required" : "-o MODEL is required");
        cli_help(stderr, &cli_train_command);
        goto done;
    }
    /* record which parameters training reads (before the CLI sets any of its own) */
    if ((rc = cli_track_params(params)) != EXIT_OK) goto done;
    rc = EXIT_USAGE;
    /* gbdt records its training metric per round only when asked: a log wants it */
    if (log_path && (st = grove_params_set(params, "train_metric", "true")) != GROVE_OK) {
        rc = cli_fail(st, NULL);
        goto done;
    }
    cli_enable_progress(params, quiet);
    if (verbose && !quiet) grove_params_set_note_callback(params, print_note, NULL);

    /* every output is opened (checked) before anything is loaded or trained: a bad path fails
     * now, writes nothing and leaves the old files intact */
    const char *inputs[] = {data_path, valid_path, init_path, NULL};
    if (log_path && cli_same_output(out_path, log_path)) {
        cli_error("train: --log %s is also the model's output (-o); choose another file",
                  log_path);
        goto done;
    }
    /* a data-parallel run (mpirun): rank 0 writes, every rank trains the same model */
    const int writer = grove_dist_rank() == 0;
    if (!writer) {
        quiet = 1;
        cli_enable_progress(params, 1);
    } else if (cli_out_open_for(&model_out, out_path, inputs) != 0 ||
        (log_path && cli_out_open_for(&log_out, log_path, inputs) != 0)) {
        rc = EXIT_INPUT;
        goto done;
    }

    double t0 = cli_now();
    if (init_path) { /* continued training: DATA read with the saved model's schema */
        if ((st = grove_model_load(init_path, &init)) != GROVE_OK) {
            rc = cli_fail(st, NULL);
            goto done;
        }
        if (grove_dist_size() > 1) {
            cli_error("train: --init-model is not supported in data-parallel training (mpirun)");
            goto done;
        }
        if ((rc = cli_load(data_path, params, grove_model_schema(init), quiet, &data)) != EXIT_OK)
            goto done;
    } else if ((rc = cli_load_shard(data_path, params, quiet, &data)) != EXIT_OK) {
        goto done;
    }
    if (valid_path &&
        (rc = cli_load(valid_path, params, grove_dataset_schema(data), quiet, &valid)) != EXIT_OK)
        goto done;
    /* integer labels: the task was chosen from them (task auto); say which, and how to change it */
    char task[32] = "auto";
    grove_params_get(params, "task", task, sizeof task);
    const grove_schema *ls = grove_dataset_schema(data);
    if (!quiet && !strcmp(task, "auto") && grove_schema_task(ls) == GROVE_CLASSIFICATION) {
        size_t k = grove_schema_n_classes(ls), c = 0;
        for (; c < k; c++) {
            const char *name = grove_schema_class_name(ls, c);
            char *end;
            (void)strtol(name, &end, 10);
            if (!*name || *end) break;
        }
        if (k > 0 && c == k)
            fprintf(stderr, "grove: note: the label '%s' holds %zu distinct integers: trained as "
                    "classification with %zu classes (--set task=regression to predict a number)\n",
                    grove_schema_label_name(ls), k, k);
    }
    double t1 = cli_now();
    /* the summary's training metrics: from the outputs training had at hand (gbdt), else
     * from predicting the rows after the save */
    if (!quiet && grove_dist_size() == 1) {
        const grove_schema *ds = grove_dataset_schema(data);
        size_t k = grove_schema_task(ds) == GROVE_CLASSIFICATION ? grove_schema_n_classes(ds) : 1;
        size_t n = grove_dataset_n_rows(data);
        if (n > 0 && k > 0 && n <= SIZE_MAX / sizeof(double) / k &&
            (train_pred = malloc(n * k * sizeof *train_pred)) != NULL)
            train_pred_len = n * k;
    }
    st = init         ? grove_train_continue(init, data, valid, params, &model)
         : train_pred ? grove_train_predicted(data, valid, params, &model, train_pred,
                                              train_pred_len, &predicted)
                      : grove_train(data, valid, params, &model);
    if (st != GROVE_OK) {
        rc = cli_fail(st, "train");
        goto done;
    }
    double t2 = cli_now();
    cli_progress_done();
    if ((rc = cli_check_unused(params, "train")) != EXIT_OK) goto done;
    /* the log first: a model without rounds and --log is a usage error, and writes nothing */
    char *log = NULL;
    if (log_path && (st = grove_model_log_csv(model, &log)) != GROVE_OK) {
        rc = cli_fail(st, "--log");
        if (st == GROVE_ERR_ARG) rc = EXIT_USAGE;
        goto done;
    }
    if (!writer) {
        rc = EXIT_OK;
        goto done;
    }
    st = grove_model_write(model, model_out.g);
    if (st != GROVE_OK) {
        grove_string_free(log);
        rc = cli_fail(st, NULL);
        goto done;
    }
    if (log_path) fputs(log, log_out.fp);
    grove_string_free(log);
    /* a model or log written to standard output keeps it clean: the summary goes to stderr */
    FILE *sum = cli_out_is_stdout(&model_out) || (log_path && cli_out_is_stdout(&log_out))
                    ? stderr
                    : stdout;
    /* the log's bytes are complete before the model replaces the old one */
    if (cli_out_commit(&model_out) != 0 || (log_path && cli_out_commit(&log_out) != 0)) {
        rc = EXIT_INPUT;
        goto done;
    }
    /* save: writing the model (and log) and committing them (fsync, rename) */
    double t3 = cli_now();
    rc = EXIT_OK;
    if (quiet) goto done;

    const grove_schema *s = grove_model_schema(model);
    char shape[128], stop[512];
    describe_model(model, shape, sizeof shape, stop, sizeof stop);
    fprintf(sum, "trained %s on %s: %zu rows, %zu features, ", grove_model_algo(model),
            strcmp(data_path, "-") ? data_path : "standard input",
           grove_dataset_n_rows(data), grove_dataset_n_features(data));
    if (grove_schema_task(s) == GROVE_CLASSIFICATION)
        fprintf(sum, "%zu classes", grove_schema_n_classes(s));
    else
        fprintf(sum, "regression");
    fprintf(sum, "%s\nload %.3f s, train %.3f s, save %.3f s; model written to %s\n", shape,
            t1 - t0, t2 - t1, t3 - t2, out_path);
    if (grove_dist_size() > 1) /* rows: rank 0's share; bytes: the cost model's count (dist.h) */
        fprintf(sum, "data-parallel: %d ranks (rows above: rank 0's share); rank 0 sent %llu bytes\n",
                grove_dist_size(), grove_dist_bytes_sent());
    if (grove_model_n_rounds(model)) {
        char asked[32] = "";
        grove_params_get(params, "rounds", asked, sizeof asked);
        fprintf(sum, "rounds: %zu", grove_model_n_rounds(model));
        /* ε = 0, ε >= 1/2, no edge, early stopping: say so, not only in `grove info` */
        if (stop[0]) fprintf(sum, " of %s; stopped early: %s", asked, stop);
        fputc('\n', sum);
    }
    double oob;
    size_t oob_n;
    if (grove_model_oob(model, &oob, &oob_n) == GROVE_OK) {
        /* a bagged model's error on its own training rows says little (and costs a pass of
         * every member over every row); its out-of-bag estimate is the honest one */
        fprintf(sum, "out-of-bag error %.6g over %zu rows (grove eval MODEL DATA for other data)\n",
                oob, oob_n);
    } else if (predicted
                   ? grove_eval_predictions(model, data, train_pred, train_pred_len, &e) == GROVE_OK
                   : grove_dist_size() == 1 && grove_model_evaluate(model, data, 0, &e) == GROVE_OK) {
        cli_print_metrics(sum, e, s, "training data", 0);
    }
    grove_eval_free(e);
    e = NULL;
    if (valid && grove_model_evaluate(model, valid, 0, &e) == GROVE_OK) {
        char title[512];
        snprintf(title, sizeof title, "validation data (%s)", valid_path);
        cli_print_metrics(sum, e, s, title, 0);
    }
done:
    cli_progress_done();
    free(train_pred);
    cli_out_abort(&model_out);
    cli_out_abort(&log_out);
    grove_eval_free(e);
    grove_model_free(model);
    grove_model_free(init);
    grove_dataset_free(valid);
    grove_dataset_free(data);
    grove_params_free(params);
    return rc;
}
