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

/* ---- Options, each declared once, in its command's table: the table feeds both the parser
 * (cli_next) and the help (cli_help), so an option cannot be accepted and left out of --help. */
enum {
    CLI_END = -1,        /* cli_next: no more arguments */
    CLI_POSITIONAL = -2, /* cli_next: a positional argument, in value */
    CLI_EXIT = -3,       /* cli_next: the command ends with exit code rc: 0 after -h or --help
                          * (the help printed on stdout), 1 after an unknown option (named, and
                          * the help printed on stderr) or a missing or bad value (named) */
    /* ids cli_next applies itself, to cli_args.params (never returned): */
    CLI_PARAM = -10,     /* sets the parameter `param` to the value (grove_params_set) */
    CLI_SET = -11,       /* --set KEY=VALUE (grove_params_set_pair) */
    CLI_STRICT = -12,    /* --strict: unused parameters are errors (cli_check_unused) */
    CLI_QUIET = -13,     /* --quiet: sets cli_args.quiet */
    CLI_HEADING = -20    /* not an option: `help` is a line of the help, printed as it is */
};

typedef struct cli_option {
    int id;            /* what cli_next returns for it (>= 0), or one of the CLI_* above */
    const char *name;  /* "--threads"; NULL for CLI_HEADING and for the table's end ({0}) */
    const char *alias; /* "-j" (shown in the help), another long spelling (not shown), or NULL */
    const char *arg;   /* the value's name in the help ("N"), or NULL for a flag */
    const char *help;  /* the description; each '\n' starts a line at the description column */
    const char *param; /* CLI_PARAM: the parameter the value sets */
} cli_option;

typedef struct cli_command {
    const char *name;          /* in messages: "margins" */
    const char *usage;         /* the help before the options: usage lines, what it does */
    const cli_option *options; /* ended by {0} */
    const char *tail;          /* the help after the options, or NULL */
    int column;                /* where the descriptions start (an option column wider than
                                  column - 2 is followed by two spaces instead) */
} cli_command;

/* The command's help: usage, one line per option ("  -j, --threads N" and its description, or
 * "      --seed N" without a short alias), tail. */
void cli_help(FILE *fp, const cli_command *c);

/* Walks argv[1..argc) against a command's table.  Set cmd, argc, argv, i = 0 (or the index of
 * the last argument already taken), and params when the table has CLI_PARAM, CLI_SET or
 * CLI_STRICT entries; cli_next writes value, quiet and rc.  An option takes its value as
 * "--name VALUE", "--name=VALUE" or "-j VALUE". */
typedef struct cli_args {
    const cli_command *cmd;
    int argc;
    char **argv;
    int i;                 /* the argument last read */
    grove_params *params;  /* borrowed, or NULL */
    int quiet;             /* 1 after a CLI_QUIET option */
    int rc;                /* CLI_EXIT: the exit code */
    const char *value;     /* the option's value, or the positional argument */
} cli_args;
/* The next argument: an option's id (>= 0; its value in a->value if it takes one), or one of
 * CLI_END, CLI_POSITIONAL (a->value), CLI_EXIT (a->rc). */
int cli_next(cli_args *a);

/* grove train's table (train.c; the fuzz target of the command line walks it too). */
extern const cli_command cli_train_command;

/* 1 if arg is -h or --help. */
int cli_is_help(const char *arg);
/* The value of an integer option in [lo, hi] into *out: 0, or -1 after printing
 * "OPTION: must be an integer in [lo, hi], got 'TEXT'". */
int cli_int_arg(const char *option, const char *text, long lo, long hi, long *out);

/* The options that set training parameters, as cv and biasvar list them (train lists the same
 * ids with its own wording). */
#define CLI_TRAINING_OPTIONS                                                                       \
    {CLI_PARAM, "--algo", "-a", "NAME", "algorithm (default tree; `grove help algos`)", "algo"},  \
    {CLI_PARAM, "--base", "-b", "LEARNER",                                                         \
     "base learner of an ensemble; its parameters: --set base.KEY=VALUE", "base"},                 \
    {CLI_PARAM, "--label", NULL, "COL",                                                            \
     "label column, by name or 0-based index (default: 'label', else\n"                            \
     "the first column, named in a notice)", "label"},                                             \
    {CLI_PARAM, "--weight", NULL, "COL", "column of sample weights", "weight"},                    \
    {CLI_PARAM, "--rounds", "-r", "N", "rounds / ensemble members (ensemble algorithms)",          \
     "rounds"},                                                                                    \
    {CLI_SET, "--set", "-s", "KEY=VALUE", "any parameter (`grove help params`), repeatable", NULL}, \
    {CLI_PARAM, "--seed", NULL, "N",                                                               \
     "random seed (same seed: bit-identical model for any --threads)", "seed"},                    \
    {CLI_PARAM, "--threads", "-j", "N", "threads (0 = all cores)", "threads"},                     \
    {CLI_PARAM, "--sep", NULL, "C",                                                                \
     "CSV field separator (default: ',', or ';' / tab when the header\n"                           \
     "holds more of those; `tab` for a tab)", "sep"},                                              \
    {CLI_PARAM, "--decimal", NULL, "C",                                                            \
     "decimal mark of CSV numbers: `,` reads 3,14 as 3.14 (default: .)", "decimal"},              \
    {CLI_STRICT, "--strict", NULL, NULL,                                                           \
     "a parameter the algorithm does not use is an error (default: a\n"                            \
     "warning, with a hint such as 'did you mean base.max_depth?')", NULL},                        \
    {CLI_QUIET, "--quiet", "-q", NULL, "no progress, notes or summary (warnings are still printed)", NULL}

/* Unused parameters: cli_track_params starts recording which parameters are read (call it after
 * the options are parsed, before loading data); cli_check_unused then prints one warning per
 * parameter nothing read (-q does not hide them), with a hint where one exists, and returns EXIT_OK, or EXIT_USAGE when
 * --strict was given and some were unused (the caller then writes nothing). */
int cli_track_params(grove_params *params);
int cli_check_unused(const grove_params *params, const char *command);

/* Loads data for `model`: with its schema, and the CSV separator it was trained with when
 * `params` (may be NULL) does not choose one. */
int cli_load_for_model(const char *path, const grove_model *model, const grove_params *params,
                       int quiet, grove_dataset **out);

/* Loads a dataset, printing its warnings (if any) to stderr, and its notes unless quiet.
 * `quiet` is 0, 1 or flags: CLI_LOAD_QUIET (no notes), CLI_LOAD_LABELS_OWN (no note that the
 * label column is ignored: the caller says what it does about it). */
enum { CLI_LOAD_QUIET = 1, CLI_LOAD_LABELS_OWN = 2 };
int cli_load(const char *path, const grove_params *params, const grove_schema *schema,
             int quiet, grove_dataset **out);
/* This rank's rows of DATA in a data-parallel run (grove_dataset_load_shard); cli_load when
 * alone. */
int cli_load_shard(const char *path, const grove_params *params, int quiet, grove_dataset **out);

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
    int slot;        /* its temporary file's slot for the signal handler (util.c), or -1 */
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

/* The list of commands (commands.c), and `grove help COMMAND`: runs COMMAND --help; -1 when
 * there is no such command.  cli_dispatch runs the command line `grove ARGS` (main's argv) and
 * returns the exit status. */
void cli_usage(FILE *fp);
int cli_command_help(const char *name);
int cli_dispatch(int argc, char **argv);

/* Subcommands. */
int cmd_train(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_cv(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_margins(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_importance(int argc, char **argv);
int cmd_biasvar(int argc, char **argv);
int cmd_detect(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_cascade(int argc, char **argv);

#endif
