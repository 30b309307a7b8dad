/*
 * dataset.h -- internal layout of grove_schema and grove_dataset, and the loaders' entry points.
 *
 * Pipeline position: data/ (after core/, before bin/).
 * A dataset stores raw values column-major as float (one array per feature); a categorical
 * feature stores its category code (0..n_categories-1) as a float; a missing value is NaN.
 * Labels are doubles: the class index for classification, the target for regression.
 * A schema names everything; datasets own their schema (a copy when loaded "with" a schema),
 * and models own theirs, so no object outlives another.
 */
#ifndef GV_DATASET_H
#define GV_DATASET_H

#include "../core/core.h"
#include "../core/numparse.h"

/* A string -> code dictionary: codes are dense 0..n-1; `names` owned. */
typedef struct gv_dict {
    size_t n, cap;
    char **names;          /* names[code] */
    size_t *slots;         /* open-addressing hash table of code+1 (0 = empty), size n_slots */
    size_t n_slots;
} gv_dict;

/* Numeric labels with at most this many distinct integer values are classes (task auto). */
#define GV_AUTO_MAX_CLASSES 50

void gv_dict_init(gv_dict *d);
void gv_dict_free(gv_dict *d);
/* The code of `s` (length len), or -1 if absent. */
long gv_dict_find(const gv_dict *d, const char *s, size_t len);
/* Adds `s` if absent; returns its code, or -1 when out of memory. */
long gv_dict_add(gv_dict *d, const char *s, size_t len);
/* A deep copy; 0 ok, -1 out of memory. */
int gv_dict_copy(gv_dict *dst, const gv_dict *src);

struct grove_schema {
    size_t n_features;
    char **feature_names;     /* [n_features], owned */
    unsigned char *is_categorical; /* [n_features] */
    gv_dict *categories;      /* [n_features]; empty for numeric features */
    char *label_name;         /* owned; "" when the source has no name */
    grove_task task;
    gv_dict classes;          /* classification: class names in class-index order */
    /* Compact features (sparse sources): feature f is column feature_ids[f] of a
     * source n_columns wide (ids strictly increasing, all < n_columns); the other columns held
     * no stored value when the schema was made, and a reader following this schema drops
     * them.  NULL (and n_columns 0): feature f is column f.  Owned. */
    uint32_t *feature_ids;    /* [n_features] or NULL */
    size_t n_columns;
};

/* The largest source width of a schema with feature_ids: ids are uint32 below it.  An array or
 * CSR matrix may be this wide (docs/limits.md); a LIBSVM index stops at 2^31 - 1. */
#define GV_MAX_COLUMNS ((size_t)UINT32_MAX)

/* The width of the source the schema reads: n_columns with feature_ids, else n_features. */
static inline size_t gv_schema_width(const grove_schema *s)
{
    return s->feature_ids ? s->n_columns : s->n_features;
}

/* The feature of source column `column`, or -1 when the schema has none there. */
long gv_schema_feature_of(const grove_schema *s, size_t column);
/* Gives the schema compact features: ids[0..n_features) (copied; strictly increasing, below
 * n_columns).  0 ok, -1 out of memory. */
int gv_schema_set_ids(grove_schema *s, const uint32_t *ids, size_t n_columns);

/* The distinct values of col[0..n) (each < width), in increasing order: *ids (gv_free it; may
 * be NULL when *n_ids is 0).  Memory: a bitmap of width bits when that is at most 8 bytes a
 * value, else a sorted copy.  0 ok, -1 out of memory. */
int gv_distinct_ids(const uint32_t *col, size_t n, size_t width, uint32_t **ids, size_t *n_ids);
/* Rewrites every col[k] (each one of ids[0..n_ids), which are increasing and < width) as its
 * position in ids.  0 ok, -1 out of memory. */
int gv_remap_ids(uint32_t *col, size_t n, const uint32_t *ids, size_t n_ids, size_t width);

/* New empty schema with n_features features named "f0".. (all numeric). NULL: no memory. */
grove_schema *gv_schema_new(size_t n_features);
grove_schema *gv_schema_copy(const grove_schema *s);
void gv_schema_free(grove_schema *s);
/* 1 when two schemas describe the same features (names, kinds, categories), task and classes. */
int gv_schema_equal(const grove_schema *a, const grove_schema *b);

struct grove_dataset {
    grove_schema *schema;     /* owned */
    size_t n_rows;
    float *values;            /* column-major: feature f, row i at values[f * n_rows + i]; owned;
                                 NULL when the dataset is sparse (sp_col below) */
    /* The sparse layout (LIBSVM files and CSR arrays of low density): compressed columns.
     * Feature f's stored values are sp_val[sp_col[f] .. sp_col[f+1]) at rows sp_row[same],
     * rows strictly increasing; every other value of f is sp_default (0, or NaN when absent
     * LIBSVM values mean missing).  Memory: 8 bytes per stored value plus 8 per feature.  All
     * NULL for a dense dataset; owned. */
    size_t *sp_col;           /* [n_features + 1] */
    uint32_t *sp_row;         /* [sp_col[n_features]] */
    float *sp_val;            /* [sp_col[n_features]] */
    float sp_default;
    double *labels;           /* [n_rows] or NULL when the data has no label column; owned */
    double *partial_labels;   /* [n_rows]: the labels of a file read for a model whose label
                                 column was ignored (labels NULL) because some rows had none
                                 usable; NaN on those rows (grove_dataset_labelled_rows); else
                                 NULL; owned */
    double *weights;          /* [n_rows] or NULL (all 1); owned */
    /* Query groups (learning to rank: LIBSVM `qid:` tokens, CSV parameter "group"): query q
     * is rows query_ptr[q] .. query_ptr[q + 1] (contiguous, in file order).  n_queries 0 and
     * query_ptr NULL when the data has none; owned. */
    size_t n_queries;
    size_t *query_ptr;        /* [n_queries + 1] */
    /* The ids of the first and the last query (when n_queries > 0): a data-parallel run checks
     * with them that no query continues on the next rank (ensemble/gbdt.c). */
    double query_id_first, query_id_last;
    char *source;             /* file name for messages ("<array>" for arrays); owned */
    char *warning;            /* "" or a message gathered while loading; owned */
    /* Columns passed through as text (parameter "keep", CSV only): column k's name, and row
     * i's field at kept_text[k] + kept_off[k][i] (NUL-terminated).  All owned; 0/NULL when
     * none (subsets and copies keep none). */
    size_t n_kept;
    char **kept_names;        /* [n_kept] */
    char **kept_text;         /* [n_kept] */
    size_t **kept_off;        /* [n_kept][n_rows] */
};

/* The value of feature f in row i of a sparse dataset: a binary search in f's rows. */
static inline float gv_value_sparse(const grove_dataset *d, size_t f, size_t i)
{
    size_t lo = d->sp_col[f], hi = d->sp_col[f + 1];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->sp_row[mid] < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < d->sp_col[f + 1] && d->sp_row[lo] == i ? d->sp_val[lo] : d->sp_default;
}

/* The value of feature f in row i (either layout). */
static inline float gv_value(const grove_dataset *d, size_t f, size_t i)
{
    if (d->values) return d->values[f * d->n_rows + i];
    return gv_value_sparse(d, f, i);
}

/* Sparse inputs (LIBSVM files, CSR arrays) are stored sparse when at most 1/GV_SPARSE_DENSITY
 * of the rows x features cells hold a value other than the absent one. */
#define GV_SPARSE_DENSITY 8

/* The largest number of rows of a sparse dataset (row indices are 32-bit). */
#define GV_SPARSE_MAX_ROWS ((size_t)UINT32_MAX)

/* An empty sparse dataset: n_rows rows, schema->n_features features, every value `dflt`, room
 * for nnz stored values (sp_col all zero, sp_row and sp_val unset), labels when with_labels;
 * takes over `schema` (freed on failure too).  NULL: no memory or too many rows. */
grove_dataset *gv_dataset_new_sparse(grove_schema *schema, size_t n_rows, size_t nnz,
                                     float dflt, int with_labels);

/* The compressed columns of a sparse dataset from compressed rows: row i's values are
 * val[ptr[i] .. ptr[i+1]) at features col[same], features strictly increasing, none >=
 * n_features.  Fills d->sp_col/sp_row/sp_val (d made by gv_dataset_new_sparse with
 * nnz = ptr[n_rows]).  0 ok, -1 out of memory. */
int gv_dataset_fill_csr(grove_dataset *d, const size_t *ptr, const uint32_t *col,
                        const float *val);

/* A dense copy of a sparse dataset's values ([n_features * n_rows], column-major), or of a
 * dense one's; gv_free it.  NULL: no memory or the product overflows. */
float *gv_dataset_dense_values(const grove_dataset *d);

/* An empty dataset with room for n_rows x schema->n_features values (NaN-filled), labels when
 * with_labels, no weights; takes over `schema` (freed on failure too).  NULL: no memory. */
grove_dataset *gv_dataset_new(grove_schema *schema, size_t n_rows, int with_labels);

/* As gv_dataset_new, but values and labels are left unset: for loaders that write every one
 * (csv.c, whose parallel pass then also takes the first-touch page faults). */
grove_dataset *gv_dataset_new_unfilled(grove_schema *schema, size_t n_rows, int with_labels);
/* Appends a line to d->warning (lines separated by '\n'; a line starting "note: " is a notice,
 * not a warning).  GROVE_ERR_NOMEM, with d->warning unchanged, when out of memory. */
grove_status gv_dataset_warn(grove_dataset *d, const char *fmt, ...) GV_PRINTF(2, 3);

/* The query groups of per-row query ids qid[0..n) into d (query_ptr, n_queries): runs of equal
 * ids.  0 ok, -1 out of memory, 1 when an id comes back after another id's rows (the rows of
 * a query must be contiguous): *bad_row then gets the first row of its second run. */
int gv_dataset_set_queries(grove_dataset *d, const double *qid, size_t n, size_t *bad_row);

/* Loaders (csv.c, libsvm.c, array.c).  `schema` NULL = infer (see grove.h), else follow. */
grove_status gv_load_csv(const char *path, const grove_params *params,
                         const grove_schema *schema, grove_dataset **out);
grove_status gv_load_libsvm(const char *path, const grove_params *params,
                            const grove_schema *schema, grove_dataset **out);

/* ---- helpers shared by the loaders (added with the loaders; see each file's header) ---- */

/* Sorts a dictionary's names in byte order (strcmp) and renumbers the codes to match.  When
 * `old_to_new` is non-NULL it receives, for every old code, its new code ([d->n] entries).
 * 0 ok, -1 out of memory (d unchanged then). */
int gv_dict_sort(gv_dict *d, size_t *old_to_new);

/* input.c: whole-file reading and message helpers. */
/* Reads all of `path` (gzip-compressed files, by magic bytes, are inflated) into a new buffer
 * with a NUL appended, *len excluding the NUL, or maps a large regular file read-only (then
 * *mapped is the mapping's length, else 0); either way the caller frees it with
 * gv_text_free(*data, *mapped).  A large file that is read is read by up to n_threads threads.
 * GROVE_ERR_IO "path: cannot open: <reason>" and the like on failure. */
grove_status gv_read_file(const char *path, int n_threads, char **data, size_t *len,
                          size_t *mapped);
void gv_text_free(char *data, size_t mapped);
/* A loader is done with text[lo, hi) of a mapped file: the whole pages inside go back to the
 * kernel (touched again, they are mapped back from the page cache).  Only for mapped text:
 * on a buffer it would discard the contents. */
void gv_text_release(const char *lo, const char *hi);
/* Sequential passes over mapped text release it every this many bytes: half the mapping
 * threshold (32 MiB by default; a page or less when a test maps small files). */
size_t gv_text_release_step(void);
/* Test hook: files of at least this many bytes are mapped; 0 restores the default (64 MiB).
 * Not thread-safe: for tests only. */
void gv_read_set_map_min(size_t bytes);
/* Test hook: the chunk size of parallel reads (files of 4 chunks or more are read in
 * parallel); 0 restores the default (16 MiB).  Not thread-safe: for tests only. */
void gv_read_set_chunk(size_t bytes);
/* Test hook: the layout of LIBSVM datasets, 0 automatic (libsvm.c), 1 always dense, 2 always
 * sparse.  Not thread-safe: for tests only. */
void gv_libsvm_set_layout(int layout);
/* The 1-based line number of position `at` in `text` (1 + the newlines before it). */
size_t gv_line_of(const char *text, const char *at);
/* Writes s[0..len) as a double-quoted excerpt for messages into buf: at most ~48 characters
 * ("..." marks a cut), with '"', '\\' and control bytes escaped.  buf holds >= 80 bytes. */
void gv_excerpt(const char *s, size_t len, char *buf, size_t size);
/* A row-level error found by a worker thread; formatted on the calling thread as
 * "path:line:column: msg", where line = gv_line_of(text, at).  The lowest row wins, so the
 * message does not depend on the number of threads. */
typedef struct gv_row_error {
    grove_status status; /* GROVE_OK: none */
    size_t row;          /* SIZE_MAX: none */
    const char *at;      /* where in the text (for the line number) */
    size_t column;       /* 1-based field (CSV) or token (LIBSVM) number */
    char msg[400];
} gv_row_error;
void gv_row_error_init(gv_row_error *e);
/* Records the error unless e already holds one of an earlier (or the same) row. */
void gv_row_fail(gv_row_error *e, grove_status st, size_t row, const char *at, size_t column,
                 const char *fmt, ...) GV_PRINTF(6, 7);
/* Records e with gv_err() and returns its status. */
grove_status gv_row_error_report(const gv_row_error *e, const char *path, const char *text);

/* The parallel row pass of the text loaders (csv.c, libsvm.c; input.c).  Rows [0, n_rows) are
 * cut into blocks of GV_ROWS_PER_BLOCK handed to the threads as they come free (OpenMP, schedule
 * dynamic); parse_row(ctx, worker, i) parses row i with the state of the thread running it,
 * workers + t * worker_size for thread t, and returns non-zero on an error (after recording it,
 * gv_row_fail).  An error ends its block, and blocks that start after the lowest failed row so
 * far are skipped: every row before the first error is parsed, so the lowest row's error, the
 * one reported, is the one a serial pass would report.  gv_row_threads gives the number of
 * workers to allocate: n_threads, at most one per block, at least 1. */
#define GV_ROWS_PER_BLOCK 4096
int gv_row_threads(size_t n_rows, int n_threads);
void gv_parse_rows(size_t n_rows, int n_threads, void *workers, size_t worker_size,
                   int (*parse_row)(void *ctx, void *worker, size_t row), void *ctx);

/* Renames the features of `s` to prefix0, prefix1, ... starting at `first`.  0 ok, -1 memory. */
int gv_schema_name_features(grove_schema *s, const char *prefix, size_t first);

/* labels.c: the task and the classes (the rule in grove.h, shared by every loader). */
/* Infers the task (task_param: GV_TASK_AUTO/_CLASSIFICATION/_REGRESSION) from the finite
 * numeric labels y[0..n), fills schema->task and schema->classes (which must be empty; class
 * names are the shortest text of each value, in numeric order) and, for classification,
 * rewrites y[i] as its class index.  GROVE_ERR_NOMEM (no message context) on failure. */
grove_status gv_labels_infer_numeric(double *y, size_t n, int task_param, grove_schema *schema);
/* The class index whose name reads as the number v (classification), or -1. */
long gv_labels_class_of_number(const grove_schema *schema, double v);
/* The class index of text label s[0..len): the class of that exact name, else, when s is a
 * number, the class of its value ("1.0" matches class "1"); -1 if none. */
long gv_labels_class_of_text(const grove_schema *schema, const char *s, size_t len);
/* 1 when every class name of the schema is a decimal number. */
int gv_labels_numeric_classes(const grove_schema *schema);
/* "a, b, c" (the first few class names, then "...") into buf, for messages. */
void gv_labels_list(const grove_schema *schema, char *buf, size_t size);

/* The format of a file (GV_FORMAT_CSV or GV_FORMAT_LIBSVM) by its name's extension, else by
 * its first line, text[0..len) being its start (dataset_api.c's rule for format=auto). */
int gv_detect_format(const char *path, const char *text, size_t len);

/* Parsers over a file already in memory (buf[len] == '\0'; `path` names it in messages).
 * csv.c and libsvm.c; gv_load_csv/gv_load_libsvm above read the file and call these.
 * mapped: buf is a mapped file (gv_read_file), whose pages the parser may release. */
grove_status gv_parse_csv(const char *path, const char *buf, size_t len, int mapped,
                          const grove_params *params, const grove_schema *schema,
                          grove_dataset **out);
grove_status gv_parse_libsvm(const char *path, const char *buf, size_t len,
                             const grove_params *params, const grove_schema *schema,
                             grove_dataset **out);

#endif /* GV_DATASET_H */
