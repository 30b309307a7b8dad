/*
 * util.c -- helpers shared by the subcommands: errors and exit codes, option parsing, dataset
 * loading with warnings, progress lines, output files, CSV fields.
 */
#define _GNU_SOURCE
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("grove: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int cli_exit_code(grove_status st)
{
    switch (st) {
    case GROVE_OK:
        return EXIT_OK;
    case GROVE_ERR_PARAM:
        return EXIT_USAGE;
    case GROVE_ERR_IO:
    case GROVE_ERR_PARSE:
    case GROVE_ERR_MODEL:
    case GROVE_ERR_DATA:
        return EXIT_INPUT;
    default:
        return EXIT_INTERNAL;
    }
}

int cli_fail(grove_status st, const char *what)
{
    cli_progress_done();
    if (grove_dist_rank() != 0) /* every rank holds the same agreed message: rank 0 says it */
        return cli_exit_code(st);
    if (what)
        cli_error("%s: %s", what, grove_last_error());
    else
        cli_error("%s", grove_last_error());
    return cli_exit_code(st);
}

int cli_int_arg(const char *option, const char *text, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end || errno == ERANGE || v < lo || v > hi) {
        cli_error("%s: must be an integer in [%ld, %ld], got '%s'", option, lo, hi, text);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_is_help(const char *arg) { return !strcmp(arg, "-h") || !strcmp(arg, "--help"); }

/* --strict: unused parameters are errors (cli_check_unused) */
static int strict;

static int is_end(const cli_option *o) { return !o->name && o->id != CLI_HEADING; }

/* 1 when arg names option o: its name or alias, or (an option with a value) "NAME=VALUE" */
static int matches(const cli_option *o, const char *arg)
{
    size_t n = strlen(o->name);
    return !strcmp(arg, o->name) || (o->alias && !strcmp(arg, o->alias)) ||
           (o->arg && !strncmp(arg, o->name, n) && arg[n] == '=');
}

/* " (did you mean --max-depth?)" for an unknown option: the nearest option of the command
 * (grove_suggest), else, for a command with --set, a parameter of that name or last word
 * (--depth -> --set max_depth=VALUE); "" when none. */
static void option_hint(const cli_command *cmd, const char *arg, char *buf, size_t size)
{
    buf[0] = '\0';
    const char *names[256];
    size_t n = 0, len = strcspn(arg, "=");
    int has_set = 0;
    for (const cli_option *o = cmd->options; !is_end(o) && n < 256; o++) {
        if (!o->name) continue;
        names[n++] = o->name;
        has_set |= o->id == CLI_SET;
    }
    char word[128];
    snprintf(word, sizeof word, "%.*s", (int)(len < sizeof word ? len : sizeof word - 1), arg);
    const char *near = grove_suggest(word, names, n);
    if (near) {
        snprintf(buf, size, " (did you mean %s?)", near);
        return;
    }
    if (!has_set) return;
    /* a parameter: the word without dashes, '-' read as '_' */
    const char *w = word;
    while (*w == '-') w++;
    char key[128];
    size_t k = 0;
    for (; w[k] && k + 1 < sizeof key; k++) key[k] = w[k] == '-' ? '_' : w[k];
    key[k] = '\0';
    if (!k) return;
    const char *pnames[512];
    size_t np = grove_params_count() < 512 ? grove_params_count() : 512;
    const char *exact = NULL, *suffix = NULL;
    for (size_t i = 0; i < np; i++) {
        grove_params_describe(i, &pnames[i], NULL, NULL, NULL, NULL);
        size_t pl = strlen(pnames[i]);
        if (!strcmp(pnames[i], key)) exact = pnames[i];
        else if (!suffix && pl > k && !strcmp(pnames[i] + pl - k, key) &&
                 strchr("_.", pnames[i][pl - k - 1]))
            suffix = pnames[i];
    }
    const char *p = exact ? exact : suffix ? suffix : grove_suggest(key, pnames, np);
    if (p) snprintf(buf, size, " (did you mean --set %s=%s?)", p, len < strlen(arg) ? arg + len + 1 : "VALUE");
}

int cli_next(cli_args *a)
{
    for (;;) {
        if (++a->i >= a->argc) return CLI_END;
        const char *arg = a->argv[a->i];
        a->value = arg;
        if (cli_is_help(arg)) {
            cli_help(stdout, a->cmd);
            a->rc = EXIT_OK;
            return CLI_EXIT;
        }
        if (arg[0] != '-' || !arg[1]) return CLI_POSITIONAL;
        const cli_option *o = a->cmd->options;
        while (!is_end(o) && (!o->name || !matches(o, arg))) o++;
        if (is_end(o)) {
            char hint[160];
            option_hint(a->cmd, arg, hint, sizeof hint);
            cli_error("%s: unknown option '%s'%s", a->cmd->name, arg, hint);
            cli_help(stderr, a->cmd);
            a->rc = EXIT_USAGE;
            return CLI_EXIT;
        }
        if (o->arg) {
            size_t n = strlen(o->name);
            if (!strncmp(arg, o->name, n) && arg[n] == '=') {
                a->value = arg + n + 1;
            } else if (a->i + 1 >= a->argc) {
                cli_error("option %s needs a value", arg);
                a->rc = EXIT_USAGE;
                return CLI_EXIT;
            } else {
                a->value = a->argv[++a->i];
            }
        }
        grove_status st = GROVE_OK;
        switch (o->id) {
        case CLI_PARAM:
            st = grove_params_set(a->params, o->param, a->value);
            break;
        case CLI_SET:
            st = grove_params_set_pair(a->params, a->value);
            break;
        case CLI_STRICT:
            strict = 1;
            break;
        case CLI_QUIET:
            a->quiet = 1;
            break;
        default:
            return o->id;
        }
        if (st != GROVE_OK) {
            a->rc = cli_fail(st, NULL);
            return CLI_EXIT;
        }
    }
}

void cli_help(FILE *fp, const cli_command *c)
{
    fputs(c->usage, fp);
    for (const cli_option *o = c->options; !is_end(o); o++) {
        if (o->id == CLI_HEADING) {
            fputs(o->help, fp);
            continue;
        }
        /* a short alias is shown before the name; a long one is the description's business */
        const char *shown = o->alias && o->alias[1] != '-' ? o->alias : NULL;
        int n = fprintf(fp, "  %s%s%s%s%s", shown ? shown : "", shown ? ", " : "    ", o->name,
                        o->arg ? " " : "", o->arg ? o->arg : "");
        fprintf(fp, "%*s", n + 2 > c->column ? 2 : c->column - n, "");
        for (const char *h = o->help; *h; h++) {
            fputc(*h, fp);
            if (*h == '\n') fprintf(fp, "%*s", c->column, "");
        }
        fputc('\n', fp);
    }
    if (c->tail) fputs(c->tail, fp);
}

int cli_track_params(grove_params *p)
{
    grove_status st = grove_params_track(p);
    return st == GROVE_OK ? EXIT_OK : cli_fail(st, NULL);
}

int cli_check_unused(const grove_params *p, const char *command)
{
    char *list = NULL;
    grove_status st = grove_params_unused(p, &list);
    if (st != GROVE_OK) return cli_fail(st, NULL);
    char algo[64] = "";
    grove_params_get(p, "algo", algo, sizeof algo);
    int n = 0;
    for (char *line = list; *line;) {
        char *end = strchr(line, '\n');
        if (end) *end = '\0';
        char *hint = strchr(line, '\t'), *learner = NULL;
        if (hint) *hint++ = '\0';
        if (hint && (learner = strchr(hint, '\t')) != NULL) *learner++ = '\0';
        if (hint && !*hint) hint = NULL;
        /* -q hides progress, notes and summaries, never a warning; one rank speaks */
        if (grove_dist_rank() == 0 && learner) {
            const char *name = strrchr(line, '.');
            fprintf(stderr, "grove: %s: %s: parameter '%s': the base learner %s has no %s%s%s%s\n",
                    command, strict ? "error" : "warning", line, learner, name ? name + 1 : line,
                    hint ? " (did you mean " : "", hint ? hint : "", hint ? "?)" : "");
        } else if (grove_dist_rank() == 0) {
            fprintf(stderr, "grove: %s: %s: parameter '%s' is not used by --algo %s%s%s%s\n",
                    command, strict ? "error" : "warning", line, algo,
                    hint ? " (did you mean " : "", hint ? hint : "", hint ? "?)" : "");
        }
        n++;
        if (!end) break;
        line = end + 1;
    }
    grove_string_free(list);
    if (n && strict) {
        cli_error("%s: --strict: %d unused parameter%s, nothing written", command, n,
                  n == 1 ? "" : "s");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* the loader's notice that a label column was ignored (src/data/csv.c) */
#define LABEL_IGNORED "' is ignored: "

int cli_load(const char *path, const grove_params *params, const grove_schema *schema, int quiet,
             grove_dataset **out)
{
    grove_status st = grove_dataset_load(path, params, schema, out);
    if (st != GROVE_OK) return cli_fail(st, NULL);
    const char *w = grove_dataset_warning(*out);
    /* one line per warning; "note: " lines are notices, which -q hides (never a warning) */
    for (const char *line = w; line && *line;) {
        const char *end = strchr(line, '\n');
        int len = end ? (int)(end - line) : (int)strlen(line);
        if (!strncmp(line, "note: ", 6)) {
            int own = (quiet & CLI_LOAD_LABELS_OWN) && memmem(line, (size_t)len, LABEL_IGNORED,
                                                               strlen(LABEL_IGNORED));
            if (!(quiet & CLI_LOAD_QUIET) && !own) fprintf(stderr, "grove: %.*s\n", len, line);
        } else
            fprintf(stderr, "grove: warning: %.*s\n", len, line);
        line = end ? end + 1 : line + len;
    }
    return EXIT_OK;
}

int cli_load_shard(const char *path, const grove_params *params, int quiet, grove_dataset **out)
{
    if (grove_dist_size() == 1 && !strstr(path, "{rank}")) return cli_load(path, params, NULL, quiet, out);
    grove_status st = grove_dataset_load_shard(path, params, NULL, out);
    if (st != GROVE_OK) return cli_fail(st, NULL);
    return EXIT_OK;
}

int cli_load_for_model(const char *path, const grove_model *model, const grove_params *params,
                       int quiet, grove_dataset **out)
{
    /* the separator (--sep) and decimal mark (--decimal) the model was trained with, unless
     * the caller chose them */
    grove_params *own = NULL;
    static const char *const keys[2] = {"sep", "decimal"}, *const dflt[2] = {"auto", "."};
    char *info = NULL;
    json_t *root = NULL;
    for (int i = 0; i < 2; i++) {
        char v[16];
        snprintf(v, sizeof v, "%s", dflt[i]);
        if (params) grove_params_get(params, keys[i], v, sizeof v);
        if (strcmp(v, dflt[i])) continue;
        if (!root && !info && grove_model_info_json(model, &info) == GROVE_OK)
            root = json_loads(info, 0, NULL);
        const char *trained = json_string_value(
            json_object_get(json_object_get(root, "params"), keys[i]));
        if (trained && strcmp(trained, dflt[i]) &&
            (own || (params ? grove_params_copy(params, &own) : grove_params_create(&own)) ==
                        GROVE_OK) &&
            grove_params_set(own, keys[i], trained) == GROVE_OK)
            params = own;
    }
    json_decref(root);
    grove_string_free(info);
    int rc = cli_load(path, params, grove_model_schema(model), quiet, out);
    grove_params_free(own);
    return rc;
}

/* ---- progress ---- */

static int progress_shown;

static int progress_cb(void *ctx, const char *stage, size_t done, size_t total)
{
    (void)ctx;
    /* at most ten redraws a second, and the last one */
    static double last;
    double now = cli_now();
    if (done != total && now - last < 0.1) return 0;
    last = now;
    fprintf(stderr, "\r\033[Kgrove: %s %zu/%zu", stage, done, total);
    fflush(stderr);
    progress_shown = 1;
    return 0;
}

void cli_enable_progress(grove_params *params, int quiet)
{
    if (!quiet && isatty(STDERR_FILENO)) grove_params_set_progress(params, progress_cb, NULL);
}

void cli_progress_done(void)
{
    if (progress_shown) fputs("\r\033[K", stderr);
    progress_shown = 0;
}

/* ---- output files (grove_output: see grove.h) ---- */

/* The temporary files of open outputs, for the SIGINT/SIGTERM handler: it unlinks them (an
 * async-signal-safe call on paths copied here beforehand), then dies of the same signal, so an
 * interrupted `grove train` leaves no .grove-tmp-* file beside its output. */
enum { TEMP_SLOTS = 8, TEMP_PATH = 4096 };
static char temp_path[TEMP_SLOTS][TEMP_PATH];
static volatile sig_atomic_t temp_used[TEMP_SLOTS];

static void on_fatal_signal(int sig)
{
    for (int i = 0; i < TEMP_SLOTS; i++)
        if (temp_used[i]) unlink(temp_path[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

static int temp_register(const char *path)
{
    static int installed;
    if (!path || strlen(path) >= TEMP_PATH) return -1;
    if (!installed) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        sigaddset(&sa.sa_mask, SIGINT);
        sigaddset(&sa.sa_mask, SIGTERM);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        installed = 1;
    }
    for (int i = 0; i < TEMP_SLOTS; i++)
        if (!temp_used[i]) {
            memcpy(temp_path[i], path, strlen(path) + 1);
            temp_used[i] = 1;
            return i;
        }
    return -1;
}

static void temp_release(int slot)
{
    if (slot >= 0 && slot < TEMP_SLOTS) temp_used[slot] = 0;
}

int cli_out_open_for(cli_out *o, const char *path, const char *const *inputs)
{
    memset(o, 0, sizeof *o);
    grove_status st = grove_output_open(path ? path : "-", inputs, &o->g);
    if (st != GROVE_OK) {
        cli_error("%s", grove_last_error());
        return -1;
    }
    o->fp = grove_output_stream(o->g);
    o->slot = temp_register(grove_output_temp_path(o->g));
    return 0;
}

int cli_out_open(cli_out *o, const char *path) { return cli_out_open_for(o, path, NULL); }

int cli_out_is_stdout(const cli_out *o)
{
    struct stat a, b;
    return o->fp && fstat(fileno(o->fp), &a) == 0 && fstat(STDOUT_FILENO, &b) == 0 &&
           a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The path with its folder resolved (the file itself may not exist yet); NULL if unresolvable. */
static char *resolve_parent(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == path) snprintf(dir, sizeof dir, "/");
    else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    char *real = realpath(dir, NULL);
    if (!real) return NULL;
    const char *base = slash ? slash + 1 : path;
    char *full = malloc(strlen(real) + strlen(base) + 2);
    if (full) sprintf(full, "%s/%s", real, base);
    free(real);
    return full;
}

int cli_same_output(const char *a, const char *b)
{
    if (!strcmp(a, b)) return 1;
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char *ra = resolve_parent(a), *rb = resolve_parent(b);
    int same = ra && rb && !strcmp(ra, rb);
    free(ra);
    free(rb);
    return same;
}

int cli_out_commit(cli_out *o)
{
    grove_status st = grove_output_commit(o->g);
    temp_release(o->slot);
    memset(o, 0, sizeof *o);
    if (st != GROVE_OK) {
        cli_error("%s", grove_last_error());
        return -1;
    }
    return 0;
}

void cli_out_abort(cli_out *o)
{
    if (o->g) temp_release(o->slot);
    grove_output_abort(o->g);
    memset(o, 0, sizeof *o);
}

void cli_csv_field(FILE *fp, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, fp);
        return;
    }
    fputc('"', fp);
    for (; *s; s++) {
        if (*s == '"') fputc('"', fp);
        fputc(*s, fp);
    }
    fputc('"', fp);
}

void cli_format_double(double x, char *buf) { (void)grove_format_double(x, buf); }

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
