/*
 * grove.h -- the one public header of libgrove, an ensemble-learning library.
 *
 * The pipeline: a file or an array becomes a grove_dataset (raw values, a schema naming the
 * features, their categories and the classes); grove_train() bins it once, grows the learner
 * named by the "algo" parameter and returns a grove_model; the model predicts, evaluates, saves
 * and loads.  Everything not declared here is internal and may change without notice.
 *
 * Conventions (read once, they hold for every function below):
 *  - Errors: every fallible function returns a grove_status.  On failure it records a message,
 *    readable with grove_last_error() on the same thread, that names the input first
 *    ("train.csv:12:7: expected a number, found \"abc\"", or "max_depth: must be in [0, 1000],
 *    got -1"), and it clears its out-parameters (sets them to NULL / 0).
 *  - NULL handles or out-pointers are rejected with GROVE_ERR_ARG; destructors accept NULL.
 *  - Ownership: "new" results are owned by the caller and freed with the named destructor;
 *    "borrowed" pointers stay owned by the object they came from and live as long as it does.
 *  - Threads: objects are not locked.  A trained grove_model and a loaded grove_dataset are
 *    read-only: many threads may predict or evaluate with them at once.  A grove_params must not
 *    be modified while another thread reads it.
 *  - The library never prints, never exits and never aborts because of input, parameters, files
 *    or memory; it does no setlocale() and reads and writes numbers in the C locale only.
 *  - Symbols: libgrove is built with hidden visibility, and every declaration of this header is
 *    GROVE_API (exported), by the visibility pragma around them: the shared library exports these
 *    grove_* functions and nothing else (tests/cli_exports.sh checks).
 */
#ifndef GROVE_H
#define GROVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define GROVE_API __attribute__((visibility("default")))
#pragma GCC visibility push(default)
#else
#define GROVE_API
#endif

#define GROVE_VERSION_MAJOR 0
#define GROVE_VERSION_MINOR 1
#define GROVE_VERSION_PATCH 0
#define GROVE_VERSION_STRING "0.1.0"

/* ---------------------------------------------------------------------------------------------
 * Status codes: one list, with their short descriptions.
 * ------------------------------------------------------------------------------------------ */
#define GROVE_STATUS_LIST(X)                                                                       \
    X(GROVE_OK, 0, "ok")                                                                           \
    X(GROVE_ERR_ARG, 1, "invalid argument")                                                        \
    X(GROVE_ERR_PARAM, 2, "invalid parameter")                                                     \
    X(GROVE_ERR_IO, 3, "input/output error")                                                       \
    X(GROVE_ERR_PARSE, 4, "malformed input")                                                       \
    X(GROVE_ERR_MODEL, 5, "malformed or incompatible model file")                                  \
    X(GROVE_ERR_DATA, 6, "data does not fit the task or the model")                                \
    X(GROVE_ERR_NOMEM, 7, "out of memory")                                                         \
    X(GROVE_ERR_INTERNAL, 8, "internal error")

typedef enum grove_status {
#define GROVE_STATUS_ENUM_(name, value, text) name = value,
    GROVE_STATUS_LIST(GROVE_STATUS_ENUM_)
#undef GROVE_STATUS_ENUM_
} grove_status;

/* The short description of a status ("invalid parameter"); never NULL, static storage. */
const char *grove_status_str(grove_status status);

/* The message of the last failure on the calling thread (borrowed, valid until the next grove
 * call on this thread); "" when the last call succeeded or nothing failed yet. */
const char *grove_last_error(void);

/* The library's version string, e.g. "0.1.0" (static storage). */
const char *grove_version(void);

/* Data-parallel runs (docs/distributed.md).  grove_dist_init joins the MPI job when the process
 * was started by mpirun and the library was built with MPI (-DGROVE_MPI=ON); otherwise the
 * process is rank 0 of 1.  Call it once before training, grove_dist_finalize before exit.
 * grove_dist_bytes_sent: the bytes this rank has sent through the collectives (log2-tree
 * estimate, docs/distributed.md). */
grove_status grove_dist_init(void);
void grove_dist_finalize(void);
int grove_dist_rank(void);
int grove_dist_size(void);
unsigned long long grove_dist_bytes_sent(void);

/* Writes the shortest text that strtod() reads back to exactly `x` into buf (NUL-terminated,
 * at most 24 characters; buf must hold GROVE_DOUBLE_TEXT bytes) and returns its length.
 * Integers below 10^15 in plain decimal ("150", "-0"), other values as printf's "%.{n}g" lays
 * out their n shortest digits ("0.1", "1e-300", "1.5e+20"), "nan", "inf", "-inf"; independent
 * of the locale; thread-safe.  Every CSV the library and the CLI write uses it. */
#define GROVE_DOUBLE_TEXT 32
size_t grove_format_double(double x, char *buf);

/* ---------------------------------------------------------------------------------------------
 * Opaque handles.
 * ------------------------------------------------------------------------------------------ */
typedef struct grove_params grove_params;   /* parameters: algorithm, tree limits, data options */
typedef struct grove_schema grove_schema;   /* feature names and kinds, categories, classes */
typedef struct grove_dataset grove_dataset; /* rows of raw values, optional labels and weights */
typedef struct grove_model grove_model;     /* a trained, immutable model */
typedef struct grove_eval grove_eval;       /* the metrics of a model on a labelled dataset */
typedef struct grove_output grove_output;   /* an output file being written (see below) */

/* ---------------------------------------------------------------------------------------------
 * Output files.  The one way grove writes a file (model saves use it too), so a program gets
 * the same safety for every output it writes.  What sits at the path decides how:
 *  - "-", "/dev/stdout", "/dev/stderr", "/dev/fd/N": that open descriptor, written straight
 *    through (a pipe or a shell's `>>` behind /dev/stdout keeps working);
 *  - an existing character device, FIFO or socket (/dev/null, a named pipe): written straight
 *    through; it is never replaced (opening a FIFO waits for its reader);
 *  - a regular file or nothing yet: written to a temporary file in the same folder, which commit
 *    flushes, fsync()s and renames over the path; until then (and after a failure or abort) the
 *    old file is intact.  A symbolic link is followed and its final target is replaced; the link
 *    stays.  A new file gets mode 0666 minus the umask; a replaced one keeps its permissions.
 *  - a folder, or an existing file that is the same file (device and inode) as one of
 *    `inputs`, is refused with GROVE_ERR_IO before anything is written.
 * Thread-safety: one output is used by one thread at a time.
 * ------------------------------------------------------------------------------------------ */

/* Opens `path` for writing as described above.  `inputs` is NULL or a NULL-terminated array of
 * the paths the program reads (checked for the same-file refusal; "-" is skipped).  New output
 * in *out: finish it with grove_output_commit() or grove_output_abort(). */
grove_status grove_output_open(const char *path, const char *const *inputs, grove_output **out);

/* The stream to write to (borrowed; valid until commit or abort; never close it yourself). */
FILE *grove_output_stream(grove_output *out);

/* The path as given to grove_output_open (borrowed). */
const char *grove_output_path(const grove_output *out);

/* The temporary file being written for a regular file (borrowed; valid until commit or abort),
 * or NULL when the output is written straight through.  For a program's signal handler, which
 * may unlink() it before the process dies.  Since 0.1. */
const char *grove_output_temp_path(const grove_output *out);

/* Flushes and, for a regular file, fsync()s and renames the temporary file over the path.
 * Frees `out` whether it succeeds or not; on failure (GROVE_ERR_IO, "PATH: cannot write: ...")
 * the temporary file is removed and the old file is intact. */
grove_status grove_output_commit(grove_output *out);

/* Discards what was written (removes the temporary file) and frees `out`; NULL is allowed. */
void grove_output_abort(grove_output *out);

/* ---------------------------------------------------------------------------------------------
 * Parameters.  Every parameter is declared once, in a table inside the library; the parser,
 * the range checks, `grove help params` and docs/params.md all come from that table.
 * Values are set as text ("5", "0.1", "gini") and validated at once.
 * ------------------------------------------------------------------------------------------ */

/* New parameters, all at their defaults.  Free with grove_params_free(). */
grove_status grove_params_create(grove_params **out);

/* A new deep copy of `params`.  Free with grove_params_free(). */
grove_status grove_params_copy(const grove_params *params, grove_params **out);

void grove_params_free(grove_params *params);

/* The longest parameter key, in bytes ("base.base.max_depth" is 19), and the most "base."
 * prefixes one key may have (the base learner of an ensemble of ensembles ... of learners).
 * grove_params_set refuses longer or deeper keys, and so does every model reader, so what
 * grove writes it reads back. */
#define GROVE_PARAM_KEY_MAX 127
#define GROVE_PARAM_MAX_NESTING 8

/* Sets `key` to `value`.  GROVE_ERR_PARAM when the key is unknown ("unknown parameter 'x'"),
 * longer than GROVE_PARAM_KEY_MAX bytes or with more than GROVE_PARAM_MAX_NESTING "base."
 * prefixes, or the value is not allowed ("max_depth: must be an integer in [0, 1000], got
 * 'abc'"); the parameters are unchanged then. */
grove_status grove_params_set(grove_params *params, const char *key, const char *value);

/* Parses "key=value" and calls grove_params_set. */
grove_status grove_params_set_pair(grove_params *params, const char *key_equals_value);

/* Writes the current value of `key` as text into buf (at most `size` bytes with the NUL);
 * GROVE_ERR_ARG if the buffer is too small. */
grove_status grove_params_get(const grove_params *params, const char *key, char *buf, size_t size);

/* The parameter table, for help screens and documentation: the number of parameters, and
 * for index i < count its name, kind ("int", "float", "string", "enum", "bool"), default value
 * as text, allowed values or range as text, and a one-line help.  All strings static. */
size_t grove_params_count(void);
grove_status grove_params_describe(size_t index, const char **name, const char **kind,
                                   const char **default_value, const char **allowed,
                                   const char **help);

/* Which models parameter `index` (< grove_params_count) applies to, as the table declares it
 * (static; NULL out of range): the algorithms whose training reads it, '|'-separated
 * ("tree|id3|forest|extra-trees|gbdt"), "*" (every model), "data" (reading data: every model)
 * or "cascade" (the cascade trainer, no model).  grove_params_applies: 1 when parameter `key`
 * applies to a model of algorithm `algo` (its "*", "data" or a list naming algo; a base
 * learner's "base.KEY", which are stored only where set, always), else 0 (also for an unknown
 * key).  What `grove info` shows.  Thread-safe.  Since 0.1. */
const char *grove_params_applies_to(size_t index);
int grove_params_applies(const char *key, const char *algo);

/* Unused parameters.  grove_params_track starts recording which parameters are read from
 * `params`, its base parameters ("base.KEY") and every copy made of them (training copies
 * parameters); it snapshots which ones the user has set so far.  After training (or any other
 * use), grove_params_unused lists the parameters that were set before tracking began and never
 * read: one per line, "KEY\n", or "KEY\tHINT\n" when a parameter that WAS read has the same
 * name one level up or down or the same last word (max_depth -> base.max_depth,
 * learning_rate -> boost.learning_rate); a parameter of a base learner that ran (one that read
 * some other parameter of its level) gets a third field, the learner's name:
 * "base.max_depth\t\tlogistic\n" (HINT empty) or "KEY\tHINT\tLEARNER\n".  A new string ("" when every set parameter was read),
 * freed with grove_string_free.  Reads may come from many threads at once. */
grove_status grove_params_track(grove_params *params);
grove_status grove_params_unused(const grove_params *params, char **out);

/* Progress reporting for long runs: called from the training thread with the stage name
 * ("tree", "round") and done/total counts; return non-zero to request cancellation (training
 * then stops with GROVE_ERR_ARG "cancelled").  `ctx` is borrowed.  Pass NULL to remove. */
typedef int (*grove_progress_fn)(void *ctx, const char *stage, size_t done, size_t total);
grove_status grove_params_set_progress(grove_params *params, grove_progress_fn fn, void *ctx);

/* Per-round metrics for live displays (XGBoost's verbose): called from the training thread after
 * each logged round of gbdt and of the AdaBoost family with the round (1-based), the rounds asked
 * for, the metric's name ("logloss", "rmse", "auc", ...; "error" for boosting: its combined
 * model's error) and its value on the training rows and on the validation data, each NaN when
 * the fit does not compute it (gbdt computes the training value only with train_metric=true or
 * without validation data; early stopping reads the validation value).  Return non-zero to
 * cancel as grove_progress_fn.  `ctx` is borrowed.  Pass NULL to remove.  Since 0.1. */
typedef int (*grove_round_fn)(void *ctx, size_t round, size_t total, const char *metric,
                              double train, double valid);
grove_status grove_params_set_round_callback(grove_params *params, grove_round_fn fn, void *ctx);

/* What training chose, for a verbose display: called from the training thread with a topic and
 * one line of text -- "plan" (gbdt: the tree engine's code paths for this data, threads and
 * CPU, the line `grove train --verbose` prints).  Informational only: nothing depends on it.
 * `ctx` is borrowed.  Pass NULL to remove.  Since 0.1. */
typedef void (*grove_note_fn)(void *ctx, const char *topic, const char *text);
grove_status grove_params_set_note_callback(grove_params *params, grove_note_fn fn, void *ctx);

/* ---------------------------------------------------------------------------------------------
 * Datasets.
 *
 * A dataset's schema fixes, for every feature, its name and whether it is numeric or
 * categorical (with the category strings), the label's name, the task and the class names.
 * Loading WITHOUT a schema infers it: a column with any non-numeric, non-missing value is
 * categorical (codes: category strings in byte order); the task is classification when a label
 * is non-numeric, or all labels are integers with at most 50 distinct values; otherwise
 * regression (parameter "task" overrides).  Classes are ordered numerically when all numeric,
 * else in byte order.
 * Loading WITH a schema (data to predict or evaluate, a validation set) follows it: columns are
 * matched by name (CSV) or index (LIBSVM), categories map to the schema's codes (an unseen
 * category becomes missing and is counted in the dataset's warning), the label is optional.
 *
 * Data parameters read from `params` (NULL = defaults): label (column name or 0-based index),
 * weight (column), categorical (comma-separated columns forced categorical), ignore (columns to
 * drop), task, libsvm_absent (zero|missing), format (auto|csv|libsvm).
 * Missing values: empty fields, NA, ?, NaN (any case), and NaN in arrays or the array marker.
 * ------------------------------------------------------------------------------------------ */

/* Loads a CSV or LIBSVM file (by parameter "format", else by content/extension); gzip-
 * compressed files are read transparently.  `schema` may be NULL (infer) or borrowed.
 * New dataset in *out, free with grove_dataset_free(). */
grove_status grove_dataset_load(const char *path, const grove_params *params,
                                const grove_schema *schema, grove_dataset **out);

/* This rank's rows of a data-parallel run (docs/distributed.md): with PATH holding "{rank}",
 * the file with this rank's number in its place; otherwise this rank's share of one CSV file
 * (its bytes after the header cut at line starts into one range per rank, in file order).
 * Every rank gets rank 0's schema (or `schema` when given).  Collective: all ranks call it; on
 * failure all return the lowest failing rank's status, its message prefixed "rank R: " and
 * naming the file's own line.  Without MPI or with one rank: grove_dataset_load.
 * (since 0.2) */
grove_status grove_dataset_load_shard(const char *path, const grove_params *params,
                                      const grove_schema *schema, grove_dataset **out);

typedef enum grove_dtype { GROVE_FLOAT32 = 0, GROVE_FLOAT64 = 1 } grove_dtype;

/* A dataset from a row-major n_rows x n_features array of `dtype` (borrowed, copied).
 * `labels` (n_rows doubles, may be NULL) are class values or regression targets, `weights`
 * (may be NULL) non-negative sample weights.  NaN is always missing; when `missing_marker` is
 * non-NULL, values equal to *missing_marker are missing too.  `schema` may be NULL (features
 * numeric, named f0..f{n-1}, task inferred from the labels) or borrowed (e.g. a model's schema;
 * categorical features then carry category codes as values). */
grove_status grove_dataset_from_array(const void *data, grove_dtype dtype, size_t n_rows,
                                      size_t n_features, const double *labels,
                                      const double *weights, const double *missing_marker,
                                      const grove_params *params, const grove_schema *schema,
                                      grove_dataset **out);

/* As grove_dataset_from_array, for any strided layout: element (i, f) of the borrowed array is
 * data[i * row_stride + f * feature_stride] (strides in elements, not bytes), so a row-major
 * array passes (n_features, 1), a column-major one (1, n_rows), and a numpy view its strides
 * divided by the item size.  The values are read in place and copied once into the dataset
 * (grove's column-major float layout); no other copy is made.  GROVE_ERR_ARG when the largest
 * index overflows size_t.  Thread-safe (reads only).  Since 0.1. */
grove_status grove_dataset_from_strided(const void *data, grove_dtype dtype, size_t n_rows,
                                        size_t n_features, size_t row_stride,
                                        size_t feature_stride, const double *labels,
                                        const double *weights, const double *missing_marker,
                                        const grove_params *params, const grove_schema *schema,
                                        grove_dataset **out);

/* A dataset from compressed sparse rows (scipy.sparse's CSR: row i's stored values are
 * values[indptr[i] .. indptr[i+1]) at columns indices[same]), borrowed and copied.  Entries
 * not stored are 0; stored NaN is missing; indptr[0] = 0, indptr never decreases, and each
 * row's indices are strictly increasing in [0, n_features) (sort and sum duplicates first;
 * GROVE_ERR_DATA names the row otherwise).  Labels, weights, params and schema as for
 * grove_dataset_from_array.  The dataset keeps only the stored values (8 bytes each) when at
 * most 1/8 of the cells are stored, as LIBSVM files are, so memory grows with the non-zeros,
 * not with n_rows x n_features.  Thread-safe (reads only).  Since 0.1. */
grove_status grove_dataset_from_csr(const void *values, grove_dtype dtype, const int64_t *indptr,
                                    const int64_t *indices, size_t n_rows, size_t n_features,
                                    const double *labels, const double *weights,
                                    const grove_params *params, const grove_schema *schema,
                                    grove_dataset **out);

/* Names feature `feature` of a dataset built from an array and, when `categories` is non-NULL,
 * makes it categorical with those n_categories category names (borrowed, copied; distinct):
 * its values must then already be category codes, integers in [0, n_categories), or NaN
 * (missing).  `name` NULL keeps the name.  This is how bindings carry data frames' column
 * names and categorical columns into a model, so that files the CLI loads with the model's
 * schema map their category strings to the same codes.  On failure (GROVE_ERR_ARG for a bad
 * index, GROVE_ERR_DATA for a repeated or NULL category or a value that is not a code, naming
 * the row) the dataset is unchanged.  Not thread-safe: call it before sharing the dataset.
 * Since 0.1. */
grove_status grove_dataset_set_feature(grove_dataset *data, size_t feature, const char *name,
                                       const char *const *categories, size_t n_categories);

/* Renames the classes of a classification dataset (class index c gets names[c]; n must equal
 * the class count; names borrowed, copied, distinct) and, when `label_name` is non-NULL, the
 * label.  Either may be NULL (unchanged).  For labels given to grove_dataset_from_array as
 * class indices 0..n-1 of string classes.  GROVE_ERR_DATA for a count mismatch, a regression
 * dataset, or a repeated or NULL name; the dataset is unchanged then.  Not thread-safe, like
 * grove_dataset_set_feature.  Since 0.1. */
grove_status grove_dataset_set_classes(grove_dataset *data, const char *const *names, size_t n,
                                       const char *label_name);

/* A new dataset holding rows[0..n-1] of `data` (indices may repeat), same schema. */
grove_status grove_dataset_subset(const grove_dataset *data, const size_t *rows, size_t n,
                                  grove_dataset **out);

/* The rows of `data` that have a usable label, with their labels, as a new dataset (same
 * schema; free with grove_dataset_free), and in *n_skipped (may be NULL) how many rows had none.
 * For a CSV file read for a model (a schema given) whose label column was ignored because some
 * values were missing, unknown classes or text for a regression target: grove_dataset_warning
 * says so and grove_dataset_has_labels is 0, yet those rows can still be evaluated.  A dataset
 * with labels gives all its rows; one without a label column: GROVE_ERR_DATA.  Since 0.1. */
grove_status grove_dataset_labelled_rows(const grove_dataset *data, grove_dataset **out,
                                         size_t *n_skipped);

void grove_dataset_free(grove_dataset *data);

size_t grove_dataset_n_rows(const grove_dataset *data);
size_t grove_dataset_n_features(const grove_dataset *data);
int grove_dataset_has_labels(const grove_dataset *data);
/* Borrowed schema of the dataset. */
const grove_schema *grove_dataset_schema(const grove_dataset *data);
/* The label of row i: class index (classification) or target (regression); NaN if none. */
double grove_dataset_label(const grove_dataset *data, size_t row);
/* A warning gathered while loading (unseen categories, ignored LIBSVM indices), or "" if none.
 * Borrowed. */
const char *grove_dataset_warning(const grove_dataset *data);

/* Columns kept as text (parameter "keep", CSV files): how many, column k's name, and its field
 * in `row` (borrowed, NUL-terminated, "" out of range).  Subsets keep none.  Since 0.1. */
size_t grove_dataset_n_kept(const grove_dataset *data);
const char *grove_dataset_kept_name(const grove_dataset *data, size_t k);
const char *grove_dataset_kept_value(const grove_dataset *data, size_t k, size_t row);

/* Query groups (learning to rank: LIBSVM `qid:n` tokens, or the CSV column of parameter
 * "group"; the rows of a query are contiguous): how many queries (0 when the data has none),
 * and the first row of query q (q = n_queries: n_rows; beyond: n_rows).  Query q is rows
 * [grove_dataset_query_start(d, q), grove_dataset_query_start(d, q + 1)).  Subsets keep none.
 * Since 0.1. */
size_t grove_dataset_n_queries(const grove_dataset *data);
size_t grove_dataset_query_start(const grove_dataset *data, size_t q);
/* Sets the query groups of `data` from one query id per row, qid[0..n) (borrowed), n =
 * grove_dataset_n_rows: the runs of equal ids, whose rows must be contiguous (as LIBSVM's
 * qid:n).  For bindings whose arrays carry no qid column (XGBRanker's qid, or group sizes
 * turned into ids).  GROVE_ERR_ARG for a NULL argument or n other than the row count,
 * GROVE_ERR_DATA for a NaN id or an id that comes back after other ids' rows (naming the row);
 * the dataset is unchanged then.  Not thread-safe, like grove_dataset_set_feature.  Since 0.1. */
grove_status grove_dataset_set_queries(grove_dataset *data, const double *qid, size_t n);

/* Schema queries (all returned strings borrowed from the schema). */
typedef enum grove_task { GROVE_CLASSIFICATION = 0, GROVE_REGRESSION = 1 } grove_task;
grove_task grove_schema_task(const grove_schema *schema);
size_t grove_schema_n_features(const grove_schema *schema);
const char *grove_schema_feature_name(const grove_schema *schema, size_t feature);
int grove_schema_is_categorical(const grove_schema *schema, size_t feature);
/* Compact features: a schema made from a sparse LIBSVM file or CSR array has a
 * feature only for each column that holds a value, and a model's file keeps only the features
 * its splits read; grove_schema_feature_column gives feature `feature`'s column of the source
 * (the LIBSVM index - 1, the CSR or array column) and grove_schema_n_columns the source's width
 * (data read with the schema must be that wide; other columns are dropped).  For any other
 * schema feature f is column f and the width is n_features.  Since 0.1. */
size_t grove_schema_n_columns(const grove_schema *schema);
size_t grove_schema_feature_column(const grove_schema *schema, size_t feature);
size_t grove_schema_n_classes(const grove_schema *schema); /* 0 for regression */
const char *grove_schema_class_name(const grove_schema *schema, size_t class_index);
const char *grove_schema_label_name(const grove_schema *schema);

/* ---------------------------------------------------------------------------------------------
 * Training.  Parameter "algo" names the algorithm (`grove help algos`): tree (CART), id3,
 * stump, ...  "seed" fixes every random choice: the same seed, data and parameters give a
 * bit-identical model for any "threads" value.
 * ------------------------------------------------------------------------------------------ */

/* Trains on `data` (borrowed; must have labels).  `valid` (may be NULL) is a validation set
 * with the same schema, used by algorithms with early stopping.  New model in *out, free with
 * grove_model_free(). */
grove_status grove_train(const grove_dataset *data, const grove_dataset *valid,
                         const grove_params *params, grove_model **out);

/* grove_train, and the model's outputs on its training rows when the algorithm has them at
 * hand from training (gbdt: its training scores): then train_pred (data's n_rows x
 * grove_model_n_outputs values, as grove_model_predict lays them out; train_pred_len at least
 * n_rows x the number of classes, or n_rows for regression) holds exactly what
 * grove_model_predict(model, data, ...) would write, bit for bit, and *predicted is 1.
 * Otherwise *predicted is 0 and train_pred's contents are unspecified (predict the rows if
 * needed).  Saves the pass over every training row that a summary of the fit on its own data
 * (grove_eval_predictions) would otherwise cost.  Since 0.1. */
grove_status grove_train_predicted(const grove_dataset *data, const grove_dataset *valid,
                                   const grove_params *params, grove_model **out,
                                   double *train_pred, size_t train_pred_len, int *predicted);

/* Continued training (gbdt): a new model that starts with every round of `init` (borrowed; a
 * gbdt model, e.g. from grove_model_load) -- its initial scores, trees and log -- and adds
 * params' "rounds" more, fitted on `data` at the scores init gives its rows.  `data` must have
 * init's schema (load it with grove_model_schema(init)); it is binned with init's bins.  The
 * objective (and tweedie_variance_power, quantile_alpha) are init's unless params set them,
 * and then they must agree; "algo" likewise.  Round t of the run is round t0 + t of a model of
 * t0 + rounds rounds (its random draws too), so training t0 rounds, saving, and continuing with
 * the same data and parameters gives the model a single run of t0 + rounds rounds gives (up
 * to the parameters recorded).  Errors: GROVE_ERR_PARAM (not gbdt, another objective or
 * algorithm), GROVE_ERR_DATA (another schema or number of classes).  New model in *out, free
 * with grove_model_free().  Since 0.1. */
grove_status grove_train_continue(const grove_model *init, const grove_dataset *data,
                                  const grove_dataset *valid, const grove_params *params,
                                  grove_model **out);

void grove_model_free(grove_model *model);

/* Borrowed schema of the model (use it to load data to predict). */
const grove_schema *grove_model_schema(const grove_model *model);
const char *grove_model_algo(const grove_model *model);
/* Outputs per row of grove_model_predict: the number of classes (probabilities) or 1. */
size_t grove_model_n_outputs(const grove_model *model);

/* Predicts every row of `data` (same schema as the model's; the caller-owned `out` holds
 * n_rows * n_outputs doubles, row-major): class probabilities for classification, the value
 * for regression.  Thread-safe; `n_threads` 0 = all cores. */
grove_status grove_model_predict(const grove_model *model, const grove_dataset *data,
                                 int n_threads, double *out, size_t out_len);

/* The predicted class index (classification, argmax with ties to the lowest index) or value
 * (regression) of every row, into caller-owned out[n_rows]. */
grove_status grove_model_predict_label(const grove_model *model, const grove_dataset *data,
                                       int n_threads, double *out, size_t out_len);

/* Per-feature contributions (SHAP values; path-dependent TreeSHAP, Lundberg et al. 2018,
 * Algorithm 2) of the model's score on every row of `data` (the model's schema).  The score of a
 * row is a sum over trees, in G groups (grove_model_contrib_groups):
 *   gbdt          the margin before the link, one group per tree of a round (G = 1 for
 *                 regression and two classes, where P(class 1) = sigmoid(score), or
 *                 sigmoid(2 score) for objective exponential; G = K for softmax, whose
 *                 probabilities are softmax(scores)) -- XGBoost's output_margin;
 *   tree, id3, stump, bagging / forest / extra-trees of trees  the prediction itself: G = K
 *                 class probabilities (vote fractions for a hard vote) or G = 1 value;
 *   adaboost, adaboost.m1, samme, samme.r, adaboost.m2 of trees  the K class scores
 *                 sum_t alpha_t h_t(x) whose scaled softmax is the probabilities.
 * Other models (adaboost.r2, filter- and confidence-boosting, stacking, voting, linear models,
 * networks) have no contributions: GROVE_ERR_ARG naming these kinds.
 * Layout (XGBoost's pred_contribs): out[(i * G + g) * (F + 1) + j], F the model's features,
 * j = F the bias (the expected score under the training covers); for every row and group the
 * F + 1 values sum to the score (grove_model_predict_margin) up to rounding.  With
 * `interactions` non-zero, SHAP interaction values (Lundberg et al. 2020; XGBoost's
 * pred_interactions): out[((i * G + g) * (F + 1) + j) * (F + 1) + k], symmetric, row j summing
 * to contribution j, the bias row and column 0 except [F][F] = the bias.  Covers are the
 * training weights the trees store (sum of sample weights, of hessians for gbdt).  out_len
 * must be at least n_rows x G x (F + 1) (squared with interactions).  Thread-safe; `n_threads`
 * 0 = all cores; the same values for any thread count.  Since 0.1. */
grove_status grove_model_predict_contrib(const grove_model *model, const grove_dataset *data,
                                         int interactions, int n_threads, double *out,
                                         size_t out_len);

/* The number of score groups G of grove_model_predict_contrib (GROVE_ERR_ARG, *n_groups = 0,
 * for a model without contributions).  Since 0.1. */
grove_status grove_model_contrib_groups(const grove_model *model, size_t *n_groups);

/* The scores that the contributions add up to (see grove_model_predict_contrib), G per row,
 * into out[n_rows * G]: each the group's bias plus its trees' leaf values in model order.
 * GROVE_ERR_ARG for a model without contributions.  Thread-safe.  Since 0.1. */
grove_status grove_model_predict_margin(const grove_model *model, const grove_dataset *data,
                                        int n_threads, double *out, size_t out_len);

/* Models with rounds: the number of rounds kept (AdaBoost family: members; gbdt: boosting
 * rounds, after early stopping; bagging, forest, extra-trees: members); 0 for other models. */
size_t grove_model_n_rounds(const grove_model *model);

/* Staged prediction: like grove_model_predict, using only the first `rounds` rounds
 * (1 <= rounds <= grove_model_n_rounds; GROVE_ERR_ARG otherwise, naming both numbers). */
grove_status grove_model_predict_rounds(const grove_model *model, const grove_dataset *data,
                                        size_t rounds, int n_threads, double *out,
                                        size_t out_len);

/* Normalized margins of a voting ensemble on labelled data, in [-1, 1]; a row is classified
 * correctly iff its margin is > 0 (ties aside).  Into caller-owned out[n_rows].
 *  adaboost, adaboost.m1, samme, adaboost.m2: (s_y(x) - max_{k != y} s_k(x)) / sum_t alpha_t,
 *    s_k(x) the alpha-weighted vote for class k (two classes: y f(x) / sum |alpha|).
 *  bagging, forest, extra-trees, voting (classification): p_y(x) - max_{k != y} p_k(x) with p
 *    the vote fractions (hard vote: Breiman 2001's margin function) or the mean probabilities
 *    (soft vote).
 * GROVE_ERR_ARG for other models. */
grove_status grove_model_margins(const grove_model *model, const grove_dataset *data,
                                 int n_threads, double *out, size_t out_len);

/* The training log of a model with rounds as CSV text (new string, free with
 * grove_string_free), one row per round or member:
 *  AdaBoost family: header "t,epsilon,gamma,alpha,Z,train_error,prod_Z,bound" (plus
 *    ",valid_error" when trained with validation data): t, eps_t, gamma_t = 1/2 - eps_t,
 *    alpha_t, Z_t, the training error of the combined hypothesis after t rounds,
 *    prod_{s<=t} Z_s and exp(-2 sum_{s<=t} gamma_s^2);
 *  gbdt: "t" then ",train_METRIC" (train_metric=true), ",valid_METRIC" (validation data) and
 *    ",epsilon,alpha" (objective exponential);
 *  bagging, forest, extra-trees: "models,oob_error,oob_n", the out-of-bag error of the first
 *    `models` members and the number of rows it is measured on.
 * GROVE_ERR_ARG for other models. */
grove_status grove_model_log_csv(const grove_model *model, char **out);

/* The out-of-bag estimate of a bagged model (bagging, forest, extra-trees): the error (0-1 loss,
 * or squared error for regression) over the rows that were out of bag for at least one member,
 * and their number.  GROVE_ERR_ARG for other models.  Either pointer may be NULL. */
grove_status grove_model_oob(const grove_model *model, double *error, size_t *n_rows);

/* Saves to `path` through a grove_output (see "Output files" below): a regular file is replaced
 * atomically (on failure the old file is intact), a device or FIFO is written straight through,
 * a symbolic link's target is replaced.  A path ending in ".gz" is gzip'd.  Format:
 * docs/model-format.md. */
grove_status grove_model_save(const grove_model *model, const char *path);

/* Writes the model file's bytes to an open output (gzip'd when its path ends in ".gz"); the
 * caller commits or aborts `out` (it stays owned by the caller either way).  Lets a program open
 * every output before a long training run, so that a bad path fails before anything is done. */
grove_status grove_model_write(const grove_model *model, grove_output *out);

/* Loads and validates a model file; truncated, corrupted, foreign or newer-version files are
 * rejected with GROVE_ERR_MODEL and a message naming the file and what is wrong. */
grove_status grove_model_load(const char *path, grove_model **out);

/* The model as the bytes grove_model_save writes to an uncompressed file: a new buffer of *len
 * bytes (NUL-terminated, the NUL not counted) in *out, free with grove_string_free().  The same
 * model always gives the same bytes.  Thread-safe (reads the model only).  Since 0.1. */
grove_status grove_model_to_buffer(const grove_model *model, char **out, size_t *len);

/* A model from data[0..len) (borrowed; the text of a model file, uncompressed), validated as
 * grove_model_load does; messages name the source "<buffer>".  New model in *out, free with
 * grove_model_free().  Thread-safe.  Since 0.1. */
grove_status grove_model_from_buffer(const char *data, size_t len, grove_model **out);

/* A model trained by another library, as a grove model.  `from` names the input's format:
 * "xgboost" (XGBoost's JSON model, Booster.save_model("m.json"): gbtree or dart; objectives
 * binary:logistic, binary:logitraw, multi:softprob, multi:softmax, reg:squarederror,
 * reg:absoluteerror, reg:pseudohubererror; numeric and categorical splits), "lightgbm" (LightGBM's
 * text model: binary, multiclass, regression, regression_l1, huber; numeric splits with every
 * missing-value type, categorical splits) or "sklearn" (the tree dump grove.from_sklearn writes;
 * docs/convert.md).  The result predicts as the original does on float inputs, and saves, exports
 * and reports like any grove model (features without names are called f0, f1, ...; a categorical
 * feature's categories are "0", "1", ...).  Every malformed input is GROVE_ERR_MODEL naming the
 * file (or "<buffer>") and the JSON path or line of the bad value; an unknown `from` is
 * GROVE_ERR_ARG.  New model in *out (NULL on failure), free with grove_model_free().
 * Thread-safe.  Since 0.1. */
grove_status grove_model_convert(const char *from, const char *path, grove_model **out);
/* The same from data[0..len) (borrowed). */
grove_status grove_model_convert_buffer(const char *from, const char *data, size_t len,
                                        grove_model **out);

/* A JSON description of the model (algorithm, parameters, schema, size, training summary) as a
 * new NUL-terminated string; free with grove_string_free(). */
grove_status grove_model_info_json(const grove_model *model, char **out);

void grove_string_free(char *s);

/* The model as source code of language `lang` (only "c": one standalone C99 file that needs
 * only libm), as a new string (free with grove_string_free).  The file defines
 * PREFIX_predict(const float *x, double *out), PREFIX_predict_double, PREFIX_predict_batch and
 * PREFIX_predict_batch_double, documented in its header comment (inputs: the model's features
 * in order, NaN = missing, category codes for categorical features; outputs: class
 * probabilities or the value), whose outputs equal grove_model_predict's bit for bit.
 * `prefix` (NULL = "model") must be a C identifier of at most 64 characters.  `form` (NULL =
 * "auto"): "code" writes one function per tree, "table" one static node table for all trees,
 * "auto" chooses by size (tables above 20000 nodes).  Trees, forests, extra-trees, bagging,
 * the AdaBoost family, filter- and confidence-boosting, gbdt, voting, stacking, perceptron and
 * logistic regression export, nested in any way; GROVE_ERR_ARG naming the component that does
 * not (mlp, also inside an ensemble).
 * `lang` "h" gives the matching header instead: the same comment, PREFIX_N_FEATURES,
 * PREFIX_N_OUTPUTS and the four prototypes (for C and C++ callers).
 * Thread-safe.  Since 0.1. */
grove_status grove_model_export(const grove_model *model, const char *lang, const char *prefix,
                                const char *form, char **out);

/* Every tree of the model as text, as XGBoost's dump_model and trees_to_dataframe show them,
 * as a new string (free with grove_string_free).  `format` (NULL = "text"):
 *   "text"  per tree a line "booster[N]" (with round, group and class for gbdt; member, alpha
 *           or weight and the ensemble's kind for members) and one line per node, indented by
 *           depth: "0:[age<=30.5] yes=1,no=2,missing=1,gain=..,cover=..,count=.." (a
 *           categorical split: "[color in {red,blue}]"; id3's multiway: "[color] red=1,...")
 *           and leaves "3:leaf=0.25,cover=..,count=.." (several outputs: leaf=[p0,p1,...]);
 *           ensembles as "# " lines saying how their members add up (gbdt: base_score).
 *   "json"  {"algo", "task", "classes", "base_score" (gbdt), "trees": [one object per tree:
 *           "tree", placement fields, "root": nested nodes ("nodeid", "depth", "split",
 *           "split_condition" or "categories", "yes", "no", "missing", "gain", "cover",
 *           "count", "children"; leaves "leaf")]}.
 *   "csv"   one row per node: Tree,Node,ID,Feature,Split,Category,Yes,No,Missing,Gain,Cover,
 *           Count,Value,Class,Member,Round,Weight (IDs "tree-node"; Feature "Leaf" for
 *           leaves; Value the leaf's value, several separated by ';'; Class gbdt's class of
 *           the tree or a classification leaf's predicted class).
 * yes: x <= split (or the category is listed); missing values and unseen categories go to
 * `missing`.  Numbers are exact (shortest round-trip text), so summing a gbdt's leaves along a
 * row's paths plus base_score gives grove_model_predict_margin bit for bit.  gain: the split's
 * impurity decrease (gbdt: XGBoost's loss_chg, twice the Newton gain); cover: the training
 * weight at the node (gbdt: hessian sum); count: training rows.  Members without trees (linear
 * models: their intercepts and coefficients; networks: a line) are numbered with the trees in
 * text and JSON and left out of CSV.  Any model; GROVE_ERR_ARG for another format.
 * Thread-safe.  Since 0.1. */
grove_status grove_model_dump(const grove_model *model, const char *format, char **out);

/* "Did you mean": the entry of candidates[0..n) closest to `word` by edit distance (insertions,
 * deletions, substitutions, adjacent transpositions), within one edit per three characters of
 * word (1 to 3), or NULL when none is that close.  Ties go to the first; an exact match is not
 * a suggestion; NULL entries are skipped.  The library's own messages (unknown parameters,
 * unknown label or weight columns) use it; so does the CLI for options.  The result is borrowed
 * from candidates.  Thread-safe.  Since 0.1. */
const char *grove_suggest(const char *word, const char *const *candidates, size_t n);

/* A report of the model as one self-contained HTML page (XHTML with inline SVG charts; no
 * script, nothing fetched, printable), as a new string (free with grove_string_free): the
 * model's summary; for boosting the training error against prod Z_t and exp(-2 sum gamma^2),
 * eps_t and alpha_t, the margin distribution; for bagging the OOB error curve; for gbdt the
 * metric per round and the early-stopping round; for filter/confidence boosting their
 * recursion tree / runs; feature importances.  `data` (may be NULL; labelled, loaded with the
 * model's schema) adds the evaluation (metrics, confusion matrix, ROC, calibration, or
 * predicted against true) and the curves on it, and for models with contributions
 * (grove_model_predict_contrib) the mean |contribution| of each feature over its first 10,000
 * rows; `valid` (may be NULL) adds curves on it;
 * `biasvar_json` (may be NULL) is the output of grove_biasvar, drawn as a stacked bar
 * (GROVE_ERR_PARSE when it is not one).  Thread-safe; `n_threads` 0 = all cores.  Since 0.1. */
grove_status grove_model_report(const grove_model *model, const grove_dataset *data,
                                const grove_dataset *valid, const char *biasvar_json,
                                int n_threads, char **out);

/* Feature importances of `model` into caller-owned out[n_features] (out_len >= the model's
 * feature count), by `kind`:
 *  "impurity"         mean decrease in impurity: per tree, the summed split gains (weighted
 *                     impurity decrease) per feature normalized to 1, averaged over the trees,
 *                     normalized to sum 1 (scikit-learn's feature_importances_).  Tree, bagging
 *                     of trees, forest and extra-trees models; the AdaBoost family of tree
 *                     members weights each round's by its |alpha| (sum_t |alpha_t| I_t /
 *                     sum_t |alpha_t|, scikit-learn's AdaBoost).  `data` must be NULL.
 *  "oob_permutation"  stored at training time (oob_importance=true): the mean over trees of
 *                     the increase of the tree's error on its out-of-bag rows when the
 *                     feature's values are permuted among them (Breiman 2001).  `data` NULL.
 *  "gain", "cover"    gbdt models, as XGBoost's get_score(importance_type=...): the mean over
 *                     every split on the feature of the split's loss reduction (XGBoost's
 *                     units) / of the node's hessian sum.  Not normalized.  `data` NULL.
 *  "permutation"      any model, on labelled `data` (the model's schema): the increase of the
 *                     model's error (classification: error rate; regression: mean squared
 *                     error) when the feature's column is permuted; permutations from `seed`.
 * The permutation kinds are not normalized and may be negative.  GROVE_ERR_ARG for an unknown
 * kind or a model without that kind of importance.  Thread-safe; `n_threads` 0 = all cores.
 * Since 0.1. */
grove_status grove_model_importance(const grove_model *model, const char *kind,
                                    const grove_dataset *data, uint64_t seed, int n_threads,
                                    double *out, size_t out_len);

/* ---------------------------------------------------------------------------------------------
 * Evaluation.
 * ------------------------------------------------------------------------------------------ */

/* Evaluates `model` on labelled `data`.  New result in *out, free with grove_eval_free(). */
grove_status grove_model_evaluate(const grove_model *model, const grove_dataset *data,
                                  int n_threads, grove_eval **out);

/* As grove_model_evaluate, from the model's outputs on `data` already computed: `pred` holds
 * what grove_model_predict(model, data, ...) writes (pred_len >= n_rows x n_outputs), e.g.
 * from grove_train_predicted.  The same result as grove_model_evaluate.  Since 0.1. */
grove_status grove_eval_predictions(const grove_model *model, const grove_dataset *data,
                                    const double *pred, size_t pred_len, grove_eval **out);

/* Learning to rank: metric "ndcg" (NDCG@k, gains 2^y - 1, discounts 1/log2(r + 2)) or "map"
 * (MAP@k, relevant: y > 0) of model's scores (one output a row) on labelled `data` with query
 * groups (grove_dataset_n_queries > 0): each query's value into per_query[q] (NULL: not wanted;
 * else room for n_queries), their mean into *mean.  A query without relevant rows counts 1.
 * GROVE_ERR_DATA without queries or labels, GROVE_ERR_ARG for another metric, k = 0 or a model
 * of several outputs.  Thread-safe.  Since 0.1. */
grove_status grove_model_rank_metric(const grove_model *model, const grove_dataset *data,
                                     const char *metric, size_t k, int n_threads,
                                     double *per_query, double *mean);

void grove_eval_free(grove_eval *eval);

/* A metric by name: "n", "accuracy", "error", "logloss", "auc" (binary only), "rmse", "mae",
 * "r2"; classification also "macro_precision", "macro_recall", "macro_f1" (unweighted means over
 * the classes that occur as a true or a predicted label) and "weighted_precision",
 * "weighted_recall", "weighted_f1" (means weighted by each class's true count), as
 * scikit-learn's classification_report with zero_division=0.  GROVE_ERR_ARG if the metric does
 * not apply to this task. */
grove_status grove_eval_get(const grove_eval *eval, const char *metric, double *value);

/* The metrics that apply, as a JSON object (new string, free with grove_string_free()). */
grove_status grove_eval_json(const grove_eval *eval, char **out);

/* Classification: the K x K confusion matrix (rows = true class, columns = predicted), as a
 * borrowed row-major array of counts, and K.  NULL for regression. */
const double *grove_eval_confusion(const grove_eval *eval, size_t *n_classes);

/* Classification: class c's precision TP/(TP+FP), recall TP/(TP+FN), F1 = 2PR/(P+R) (each 0
 * when its denominator is 0) and support (rows whose true class is c).  Any output may be
 * NULL.  GROVE_ERR_ARG for regression or c >= K. */
grove_status grove_eval_class(const grove_eval *eval, size_t c, double *precision,
                              double *recall, double *f1, double *support);

/* Bias-variance decomposition of the algorithm named by `params` (borrowed; NULL = defaults):
 * trains it on `replicates` (>= 2) bootstrap replicates of `train` (n rows drawn with
 * replacement from the seed; replicate r trains with seed + r) and predicts `test` (same
 * schema, labelled; NULL: 30 % of train's rows, shuffled by the seed, are held out and the
 * rest is the pool the replicates are drawn from).  The test labels are the noise-free targets.
 * Regression, squared loss: bias2 = mean_x (mean_r f_r(x) - y)^2, variance = mean_x var_r
 * f_r(x), mse = bias2 + variance.  Classification, zero-one loss (Domingos 2000, "A unified
 * bias-variance decomposition"): main prediction y_m = the mode of the f_r(x); bias =
 * mean_x [y_m != y]; variance = mean_x P_r(f_r != y_m); unbiased/biased variance; net variance
 * = unbiased - biased (two classes; the exact multiclass weights otherwise); error = bias + net
 * variance.  *out: a new JSON object as text (those numbers, "definition", "reference"), free
 * with grove_string_free.  Since 0.1. */
grove_status grove_biasvar(const grove_dataset *train, const grove_dataset *test,
                           const grove_params *params, size_t replicates, char **out);


/* ---------------------------------------------------------------------------------------------
 * Vision: boosted Haar cascades (Viola & Jones 2001, 2004) -- images, detection, training.
 *
 * A grove_image is an 8-bit grey picture; a grove_cascade is an attentional cascade of boosted
 * stumps (or trees) over Haar-like features in a base window, read from OpenCV's cascade XML
 * or grove's own cascade file, or trained by grove_cascade_train.  Cascades are immutable once
 * made: many threads may detect with one at once.  Since 0.1.
 * ------------------------------------------------------------------------------------------ */
typedef struct grove_image grove_image;
typedef struct grove_cascade grove_cascade;

/* Loads a PGM (P5/P2), PNG or JPEG file (by content) as 8-bit grey; colour is converted with
 * OpenCV's weights (0.299 R + 0.587 G + 0.114 B in 15-bit fixed point).  New image in *out,
 * free with grove_image_free. */
grove_status grove_image_load(const char *path, grove_image **out);
/* A new image from w x h grey pixels (row-major, `stride` bytes per row; copied). */
grove_status grove_image_from_gray(const uint8_t *pixels, int width, int height, size_t stride,
                                   grove_image **out);
void grove_image_free(grove_image *image);
int grove_image_width(const grove_image *image);
int grove_image_height(const grove_image *image);
/* Borrowed pixels, row-major, stride = width. */
const uint8_t *grove_image_pixels(const grove_image *image);

/* Writes the image as a colour PNG with n_boxes rectangles drawn (boxes: [n_boxes * 5] ints
 * x, y, width, height, neighbours, as grove_cascade_detect returns them; colors: [n_boxes * 3]
 * RGB bytes, or NULL for green), `thickness` pixels wide.  Atomic like model saves. */
grove_status grove_image_save_png_boxes(const grove_image *image, const int *boxes,
                                        size_t n_boxes, const uint8_t *colors, int thickness,
                                        const char *path);

/* Loads a cascade: OpenCV's Haar XML (current "opencv-cascade-classifier" or old
 * "opencv-haar-classifier" layout; stumps or trees; upright and tilted features) or grove's
 * JSON cascade file (by content).  LBP/HOG cascades are refused.  New cascade in *out, free
 * with grove_cascade_free. */
grove_status grove_cascade_load(const char *path, grove_cascade **out);
/* Saves grove's versioned cascade file (JSON; docs/model-format.md), atomically. */
grove_status grove_cascade_save(const grove_cascade *cascade, const char *path);
/* Writes OpenCV's current XML format, which cv2.CascadeClassifier loads and runs. */
grove_status grove_cascade_save_opencv(const grove_cascade *cascade, const char *path);
void grove_cascade_free(grove_cascade *cascade);
/* The base window, stage count and total weak classifiers of a cascade. */
grove_status grove_cascade_describe(const grove_cascade *cascade, int *width, int *height,
                                    int *n_stages, int *n_weak);
/* The training record of stage `stage` of a grove-trained cascade: its false-positive rate f and
 * detection rate d on the validation data, the cumulative F = prod f_i and D = prod d_i, the
 * weak classifiers, the negatives mined for it and the windows scanned to find them, and its
 * seconds.  GROVE_ERR_ARG when the cascade has no record (OpenCV files) or stage is out of range.
 * Any pointer may be NULL. */
grove_status grove_cascade_stage_stats(const grove_cascade *cascade, int stage, double *f,
                                       double *d, double *F, double *D, int *n_weak,
                                       size_t *negatives, double *windows, double *seconds);

/* Multi-scale detection, OpenCV's detectMultiScale algorithm (same boxes on the same grey
 * image and settings): scale_factor > 1 (OpenCV: 1.1), min_neighbors (OpenCV: 3; 0 = raw
 * windows, ungrouped), min_size / max_size ({width, height}, NULL or zeros = no limit), step
 * (0 = OpenCV's: 2 pixels below scale 2, then 1), n_threads (0 = all cores; the result does
 * not depend on it).  *boxes: a new array of *n_boxes * 5 ints (x, y, width, height,
 * neighbours), free with grove_boxes_free; *windows (may be NULL): windows evaluated.  Thread-safe. */
/* Trains a cascade (Viola & Jones 2004): AdaBoost over every Haar feature of the window picks
 * threshold-and-polarity stumps for each stage until the stage, with its threshold lowered to
 * keep cascade.min_detect of the validation faces, passes at most cascade.max_fp of the
 * validation negatives; each stage's negatives are mined from the negative images among the
 * windows the cascade so far accepts; training stops at cascade.stages stages or when the
 * product of the stages' false-positive rates reaches cascade.target_fp (or the negative images
 * yield too few hard negatives).  `positives`: a folder of crops (PGM/PNG/JPEG; each resized to
 * the window) or a CSV "image,x,y,w,h" of boxes (with a header; paths relative to the CSV);
 * `negatives`: a folder of images without the object.  Parameters (NULL = defaults): the
 * cascade.* group (`grove help params`), seed, threads; the progress callback is called per
 * weak classifier and while mining.  The same seed gives the same cascade for any thread count.
 * New cascade in *out, free with grove_cascade_free. */
grove_status grove_cascade_train(const char *positives, const char *negatives,
                                 const grove_params *params, grove_cascade **out);

grove_status grove_cascade_detect(const grove_cascade *cascade, const grove_image *image,
                                  double scale_factor, int min_neighbors, const int *min_size,
                                  const int *max_size, int step, int n_threads, int **boxes,
                                  size_t *n_boxes, double *windows);
void grove_boxes_free(int *boxes);

/* Runs the cascade on one window: the image resized to the cascade's window (the detector's
 * resize).  *accepted: 1 when every stage passes, else 0; *stages_passed (may be NULL): how many
 * stages passed (-1 when the window is too flat to normalize, as the detector skips it). */
grove_status grove_cascade_classify(const grove_cascade *cascade, const grove_image *image,
                                    int *accepted, int *stages_passed);

#if defined(__GNUC__) || defined(__clang__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* GROVE_H */
