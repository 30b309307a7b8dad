/*
 * cli.h -- shared pieces of the `grove` command-line tool: option parsing, exit codes, atomic
 * output files, progress on a terminal.  The CLI uses only the public header grove.h (and
 * jansson to print JSON); it is the only part of grove that writes to stderr or chooses exit
 * codes: 0 ok, 1 usage, 2 bad input, 3 internal.
 */
#ifndef GROVE_CLI_H
#define GROVE_CLI_H

#include <stdio.h>

#include "grove.h"

enum { EXIT_OK = 0, EXIT_USAGE = 1, EXIT_INPUT = 2, EXIT_INTERNAL = 3 };

/* Prints "grove: <message>" to stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "grove: <what>: <grove_last_error()>" and returns the exit code for `status`. */
int cli_fail(grove_status status, const char *what);
/* The exit code for a library status. */
int cli_exit_code(grove_status status);

/* Option parsing: `argv[*i]` is an option; if it is `name` (as "--name VALUE" or "--name=VALUE",
 * or the short alias), stores the value and advances *i; returns 1 if matched, 0 if not, -1
 * (after printing) when the value is missing. */
int cli_opt_value(int argc, char **argv, int *i, const char *name, const char *alias,
                  const char **value);
/* 1 if argv[i] is the flag `name` (or alias). */
int cli_opt_flag(const char *arg, const char *name, const char *alias);
/* 1 if argv[i] is -h or --help. */
int cli_is_help(const char *arg);
/* The value of an integer option in [lo, hi] into *out: 0, or -1 after printing
 * "OPTION: must be an integer in [lo, hi], got 'TEXT'". */
int cli_int_arg(const char *option, const char *text, long lo, long hi, long *out);

/* Common training options: --algo, --label, --rounds, --set K=V, --seed, --threads, --quiet,
 * --strict.
 * Returns 1 when argv[*i] was one of them (consumed), 0 if not, or -(exit code) on error. */
int cli_common_option(int argc, char **argv, int *i, grove_params *params, int *quiet);
/* The part of them every training command takes, cascade training too: --seed, --threads,
 * --set, --quiet. */
int cli_run_option(int argc, char **argv, int *i, grove_params *params, int *quiet);

/* Unused parameters: cli_track_params starts recording which parameters are read (call it after
 * the options are parsed, before loading data); cli_check_unused then prints one warning per
 * parameter nothing read, with a hint where one exists, and returns EXIT_OK, or EXIT_USAGE when
 * --strict was given and some were unused (the caller then writes nothing). */
int cli_track_params(grove_params *params);
int cli_check_unused(const grove_params *params, const char *command, int quiet);

/* The options of cli_common_option, for the usage texts of the commands that train. */
#define CLI_TRAINING_OPTIONS_HELP                                                              \
    "  -a, --algo NAME      algorithm (default tree; `grove help algos`)\n"                        \
    "  -b, --base LEARNER   base learner of an ensemble; its parameters: --set base.KEY=VALUE\n"  \
    "      --label COL      label column, by name or 0-based index (default: 'label', else\n"     \
    "                       the first column, named in a notice)\n"                               \
    "      --weight COL     column of sample weights\n"                                           \
    "  -r, --rounds N       rounds / ensemble members (ensemble algorithms)\n"                    \
    "  -s, --set KEY=VALUE  any parameter (`grove help params`), repeatable\n"                    \
    "      --seed N         random seed (same seed: bit-identical model for any --threads)\n"    \
    "  -j, --threads N      threads (0 = all cores)\n"                                            \
    "      --sep C          CSV field separator (default: ',', or ';' / tab when the header\n"   \
    "                       holds more of those; `tab` for a tab)\n"                              \
    "      --strict         a parameter the algorithm does not use is an error (default: a\n"    \
    "                       warning, with a hint such as 'did you mean base.max_depth?')\n"       \
    "  -q, --quiet          no progress, warnings or summary\n"

/* Loads data for `model`: with its schema, and the CSV separator it was trained with when
 * `params` (may be NULL) does not choose one. */
int cli_load_for_model(const char *path, const grove_model *model, const grove_params *params,
                       int quiet, grove_dataset **out);

/* Loads a dataset, printing its warning (if any) to stderr unless quiet. */
int cli_load(const char *path, const grove_params *params, const grove_schema *schema,
             int quiet, grove_dataset **out);

/* Progress callback for grove_params_set_progress: a line on stderr when it is a terminal. */
void cli_enable_progress(grove_params *params, int quiet);
void cli_progress_done(void);

/* Output files through grove_output (grove.h): "-" and devices written straight through, regular
 * files replaced atomically at commit, symlinks followed, an output that is one of `inputs`
 * (NULL-terminated, may be NULL) refused.  Open every output before long work, so a bad path
 * fails before anything is done. */
typedef struct cli_out {
    FILE *fp;        /* write here */
    grove_output *g;
} cli_out;
int cli_out_open_for(cli_out *o, const char *path, const char *const *inputs); /* 0, or -1 */
int cli_out_open(cli_out *o, const char *path);  /* no inputs to check; 0 ok, -1 (after printing) */
int cli_out_commit(cli_out *o);                  /* 0 ok, -1: the old file is kept */
/* 1 when o writes to this process's standard output (then summaries go to stderr). */
int cli_out_is_stdout(const cli_out *o);
/* 1 when two output paths name the same file (existing or not: same folder and name). */
int cli_same_output(const char *a, const char *b);
void cli_out_abort(cli_out *o);

/* Writes `s` as one CSV field (quoted when it holds a comma, quote, CR or LF). */
void cli_csv_field(FILE *fp, const char *s);
/* Shortest text that reads back to x (grove_format_double; buf of GROVE_DOUBLE_TEXT bytes). */
void cli_format_double(double x, char *buf);

double cli_now(void);

/* Prints the metrics table of an evaluation under `title`, and with `confusion` the confusion
 * matrix (classification). */
void cli_print_metrics(FILE *fp, const grove_eval *e, const grove_schema *schema,
                       const char *title, int confusion);

/* The list of commands (main.c), and `grove help COMMAND`: runs COMMAND --help; -1 when there
 * is no such command. */
void cli_usage(FILE *fp);
int cli_command_help(const char *name);

/* Subcommands. */
int cmd_train(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_cv(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_margins(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_importance(int argc, char **argv);
int cmd_biasvar(int argc, char **argv);
int cmd_detect(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_cascade(int argc, char **argv);

#endif
