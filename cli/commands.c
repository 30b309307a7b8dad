/*
 * commands.c -- the table of `grove`'s commands (name, entry point, one-line summary), the
 * usage text built from it, and the dispatch of a command line to its command.  main.c is only
 * main(), so the fuzz target fuzz_cmdline links every command without a second main.
 */
#include "cli.h"

#include <errno.h>
#include <string.h>

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"train", cmd_train, "train a model on a CSV or LIBSVM file"},
    {"predict", cmd_predict, "predict labels (and class probabilities) for a file"},
    {"eval", cmd_eval, "evaluate a model on a labelled file"},
    {"cv", cmd_cv, "k-fold cross-validation of an algorithm on a file"},
    {"info", cmd_info, "describe a model file"},
    {"convert", cmd_convert, "a model file as JSON or binary (.gvb); XGBoost, LightGBM models"},
    {"margins", cmd_margins, "normalized margins of a voting ensemble and their distribution"},
    {"help", cmd_help, "a command's options; parameters, algorithms, file formats"},
    {"importance", cmd_importance,
     "feature importances (impurity, gain, cover; permutation on data)"},
    {"biasvar", cmd_biasvar, "bias-variance decomposition of an algorithm's error"},
    {"cascade", cmd_cascade, "train a Viola-Jones face cascade; its stages, rates, conversion"},
    {"detect", cmd_detect, "find faces/objects in images with a Haar cascade (OpenCV XML or grove)"},
    {"export", cmd_export, "a model as one standalone C99 file (--lang c)"},
    {"report", cmd_report, "a model as one self-contained HTML page of charts"},
    {"dump", cmd_dump, "every tree of a model as text, JSON or CSV (one row per node)"},
};

void cli_usage(FILE *fp)
{
    fprintf(fp, "grove %s -- ensemble learning\n\nusage: grove COMMAND [ARGS]\n\ncommands:\n",
            grove_version());
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(fp, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(fp, "\n`grove help COMMAND` (or `grove COMMAND --help`) describes a command and every "
                "option it takes;\n`grove help params|algos|formats`: every parameter, the "
                "algorithms, the file formats.\n`grove --version`: the version.\n"
                "Exit status: 0 ok, 1 usage, 2 bad input, 3 internal error.\n");
}

int cli_command_help(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(name, commands[i].name) && commands[i].run != cmd_help) {
            char *argv[] = {(char *)commands[i].name, (char *)"--help", NULL};
            return commands[i].run(2, argv);
        }
    return -1;
}

int cli_dispatch(int argc, char **argv)
{
    if (argc < 2) {
        cli_usage(stderr);
        return EXIT_USAGE;
    }
    if (cli_is_help(argv[1])) {
        cli_usage(stdout);
        return EXIT_OK;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
        printf("grove %s\n", grove_version());
        return EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) {
            int rc = commands[i].run(argc - 1, argv + 1);
            /* what a command printed on standard output (eval's metrics, info, importance) is
             * flushed here: a full disk or a closed pipe is an error, not a lost result */
            errno = 0;
            if ((fflush(stdout) != 0 || ferror(stdout)) && rc == EXIT_OK) {
                cli_error("standard output: cannot write: %s",
                          strerror(errno ? errno : EIO));
                rc = EXIT_INPUT;
            }
            return rc;
        }
    cli_error("unknown command '%s'", argv[1]);
    cli_usage(stderr);
    return EXIT_USAGE;
}
