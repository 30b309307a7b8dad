/*
 * dataset_api.c -- the public dataset and schema functions of grove.h ("Datasets"): loading
 * with format detection, subsets, accessors and schema queries.
 *
 * Pipeline position: data/, the boundary between callers and the loaders.  Every status-
 * returning function clears the error record, rejects NULL arguments with GROVE_ERR_ARG and
 * clears its out-parameter on failure.  Accessors cannot fail loudly: given NULL or an index
 * out of range they return a neutral value (0, NULL, NaN, "") and leave a GROVE_ERR_ARG
 * message in grove_last_error().
 *
 * Format detection (parameter format=auto), on the name without a trailing ".gz":
 *   .csv -> CSV;  .libsvm .svm .svmlight -> LIBSVM;
 *   .txt .train .test -> LIBSVM, unless the first line that is not blank or a comment holds a
 *     comma (then CSV);
 *   anything else -> by content: LIBSVM when that first line is a number followed by an
 *     index:value token, else CSV.
 * gzip is detected by content (gv_read_file), so "data.csv.gz" and a gzip file named
 * "data.csv" both load.
 */
#include "dataset.h"

#include "../core/params.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- loading ---- */

/* 1 when `s` ends with `suffix`, ignoring ASCII case. */
static int ends_with(const char *s, size_t len, const char *suffix)
{
    size_t n = strlen(suffix);
    if (len < n) return 0;
    for (size_t i = 0; i < n; i++) {
        char a = s[len - n + i], b = suffix[i];
        if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
        if (a != b) return 0;
    }
    return 1;
}

/* The first line of text that is neither blank nor a '#' comment: [*start, *end). */
static void first_line(const char *text, size_t len, const char **start, const char **end)
{
    const char *p = text, *stop = text + len;
    if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3;
    while (p < stop) {
        const char *nl = memchr(p, '\n', (size_t)(stop - p));
        if (!nl) nl = stop;
        const char *s = p;
        while (s < nl && (*s == ' ' || *s == '\t' || *s == '\r')) s++;
        if (s < nl && *s != '#') {
            *start = s;
            *end = nl;
            return;
        }
        p = nl + 1;
    }
    *start = *end = stop;
}

/* LIBSVM-looking line: a number, blanks, then a token holding ':'. */
static int looks_libsvm(const char *s, const char *e)
{
    const char *t = s;
    while (t < e && *t != ' ' && *t != '\t') t++;
    double y;
    if (t == s || gv_parse_decimal(s, (size_t)(t - s), &y) != GV_NUM_OK) return 0;
    while (t < e && (*t == ' ' || *t == '\t')) t++;
    const char *u = t;
    while (u < e && *u != ' ' && *u != '\t' && *u != '\r') u++;
    return u > t && memchr(t, ':', (size_t)(u - t)) != NULL;
}

int gv_detect_format(const char *path, const char *text, size_t len)
{
    size_t n = strlen(path);
    if (ends_with(path, n, ".gz")) n -= 3;
    const char *s, *e;
    first_line(text, len, &s, &e);
    if (ends_with(path, n, ".csv")) return GV_FORMAT_CSV;
    if (ends_with(path, n, ".libsvm") || ends_with(path, n, ".svm") ||
        ends_with(path, n, ".svmlight"))
        return GV_FORMAT_LIBSVM;
    if (ends_with(path, n, ".txt") || ends_with(path, n, ".train") || ends_with(path, n, ".test"))
        return memchr(s, ',', (size_t)(e - s)) ? GV_FORMAT_CSV : GV_FORMAT_LIBSVM;
    return looks_libsvm(s, e) ? GV_FORMAT_LIBSVM : GV_FORMAT_CSV;
}

/* Reads `path` and parses it as `format` (GV_FORMAT_*; AUTO detects). */
static grove_status load(const char *path, int format, const grove_params *params,
                         const grove_schema *schema, grove_dataset **out)
{
    char *text;
    size_t len, mapped;
    int n_threads = gv_threads((int)gv_param_int(params, GV_P_THREADS));
    grove_status st = gv_read_file(path, n_threads, &text, &len, &mapped);
    if (st != GROVE_OK) return st;
    if (!strcmp(path, "-")) path = "stdin"; /* gv_read_file read standard input */
    if (format == GV_FORMAT_AUTO) format = gv_detect_format(path, text, len);
    if (format == GV_FORMAT_LIBSVM)
        st = gv_parse_libsvm(path, text, len, params, schema, out);
    else
        st = gv_parse_csv(path, text, len, mapped != 0, params, schema, out);
    gv_text_free(text, mapped);
    return st;
}

grove_status gv_load_csv(const char *path, const grove_params *params,
                         const grove_schema *schema, grove_dataset **out)
{
    return load(path, GV_FORMAT_CSV, params, schema, out);
}

grove_status gv_load_libsvm(const char *path, const grove_params *params,
                            const grove_schema *schema, grove_dataset **out)
{
    return load(path, GV_FORMAT_LIBSVM, params, schema, out);
}

grove_status grove_dataset_load(const char *path, const grove_params *params,
                                const grove_schema *schema, grove_dataset **out)
{
    gv_err_clear();
    if (!out) return gv_err(GROVE_ERR_ARG, "grove_dataset_load: out is NULL");
    *out = NULL;
    if (!path) return gv_err(GROVE_ERR_ARG, "grove_dataset_load: path is NULL");
    return load(path, (int)gv_param_int(params, GV_P_FORMAT), params, schema, out);
}

/* ---- subsets ---- */

/* The rows rows[0..n) of a sparse dataset, sparse too (labels allocated when `data` has
 * them, not filled): each old row's new positions (ascending), then each column's entries
 * copied to every position of their row and put in row order.  Takes over schema; NULL: no
 * memory. */
typedef struct sp_entry {
    uint32_t row;
    float value;
} sp_entry;

static int cmp_entry(const void *a, const void *b)
{
    uint32_t x = ((const sp_entry *)a)->row, y = ((const sp_entry *)b)->row;
    return (x > y) - (x < y);
}

static grove_dataset *sparse_subset(const grove_dataset *data, const size_t *rows, size_t n,
                                    grove_schema *schema)
{
    size_t F = schema->n_features, N = data->n_rows, nnz = 0;
    size_t *first = gv_calloc(N + 1, sizeof *first), *pos = gv_malloc_array(n ? n : 1, sizeof *pos);
    sp_entry *tmp = NULL;
    grove_dataset *d = NULL;
    if (!first || !pos || n > GV_SPARSE_MAX_ROWS) goto fail;
    for (size_t k = 0; k < n; k++) first[rows[k] + 1]++;
    for (size_t i = 0; i < N; i++) first[i + 1] += first[i];
    for (size_t k = 0; k < n; k++) pos[first[rows[k]]++] = k; /* first[r] now ends row r */
    for (size_t i = N; i > 0; i--) first[i] = first[i - 1];
    first[0] = 0;
    for (size_t j = 0; j < data->sp_col[F]; j++) nnz += first[data->sp_row[j] + 1] - first[data->sp_row[j]];
    d = gv_dataset_new_sparse(schema, n, nnz, data->sp_default, data->labels != NULL);
    schema = NULL;
    tmp = gv_malloc_array(nnz ? nnz : 1, sizeof *tmp);
    if (!d || !tmp) goto fail;
    size_t at = 0;
    for (size_t f = 0; f < F; f++) {
        size_t start = at;
        d->sp_col[f] = at;
        for (size_t j = data->sp_col[f]; j < data->sp_col[f + 1]; j++) {
            size_t r = data->sp_row[j];
            for (size_t q = first[r]; q < first[r + 1]; q++) {
                tmp[at].row = (uint32_t)pos[q];
                tmp[at++].value = data->sp_val[j];
            }
        }
        qsort(tmp + start, at - start, sizeof *tmp, cmp_entry);
    }
    d->sp_col[F] = at;
    for (size_t k = 0; k < at; k++) {
        d->sp_row[k] = tmp[k].row;
        d->sp_val[k] = tmp[k].value;
    }
    gv_free(tmp);
    gv_free(first);
    gv_free(pos);
    return d;
fail:
    gv_schema_free(schema);
    grove_dataset_free(d);
    gv_free(tmp);
    gv_free(first);
    gv_free(pos);
    return NULL;
}

grove_status grove_dataset_subset(const grove_dataset *data, const size_t *rows, size_t n,
                                  grove_dataset **out)
{
    gv_err_clear();
    if (!out) return gv_err(GROVE_ERR_ARG, "grove_dataset_subset: out is NULL");
    *out = NULL;
    if (!data) return gv_err(GROVE_ERR_ARG, "grove_dataset_subset: data is NULL");
    if (!rows && n > 0) return gv_err(GROVE_ERR_ARG, "grove_dataset_subset: rows is NULL");
    for (size_t k = 0; k < n; k++)
        if (rows[k] >= data->n_rows)
            return gv_err(GROVE_ERR_ARG,
                          "grove_dataset_subset: rows[%zu] = %zu is out of range (%zu rows)", k,
                          rows[k], data->n_rows);
    grove_schema *schema = gv_schema_copy(data->schema);
    if (!schema) return gv_err_nomem("the subset's schema");
    grove_dataset *d = data->values ? gv_dataset_new(schema, n, data->labels != NULL)
                                    : sparse_subset(data, rows, n, schema); /* take over schema */
    if (!d) return gv_err_nomem("the subset");
    gv_free(d->source);
    gv_free(d->warning);
    d->source = gv_strdup(data->source);
    d->warning = gv_strdup(data->warning);
    if (data->weights) d->weights = gv_malloc_array(n, sizeof *d->weights);
    if (!d->source || !d->warning || (data->weights && !d->weights)) {
        grove_dataset_free(d);
        return gv_err_nomem("the subset");
    }
    for (size_t f = 0; f < schema->n_features && d->values; f++) {
        const float *src = data->values + f * data->n_rows;
        float *dst = d->values + f * n;
        for (size_t k = 0; k < n; k++) dst[k] = src[rows[k]];
    }
    for (size_t k = 0; k < n; k++) {
        if (d->labels) d->labels[k] = data->labels[rows[k]];
        if (d->weights) d->weights[k] = data->weights[rows[k]];
    }
    *out = d;
    return GROVE_OK;
}

grove_status grove_dataset_labelled_rows(const grove_dataset *data, grove_dataset **out,
                                         size_t *n_skipped)
{
    gv_err_clear();
    if (!out) return gv_err(GROVE_ERR_ARG, "grove_dataset_labelled_rows: out is NULL");
    *out = NULL;
    if (n_skipped) *n_skipped = 0;
    if (!data) return gv_err(GROVE_ERR_ARG, "grove_dataset_labelled_rows: data is NULL");
    const double *y = data->labels ? data->labels : data->partial_labels;
    if (!y) return gv_err(GROVE_ERR_DATA, "%s: no label column", data->source);
    size_t *rows = gv_malloc_array(data->n_rows ? data->n_rows : 1, sizeof *rows);
    if (!rows) return gv_err_nomem("the labelled rows");
    size_t n = 0;
    for (size_t i = 0; i < data->n_rows; i++)
        if (!isnan(y[i])) rows[n++] = i;
    grove_dataset *d = NULL;
    grove_status st = grove_dataset_subset(data, rows, n, &d);
    if (st == GROVE_OK && !d->labels) {
        d->labels = gv_malloc_array(n ? n : 1, sizeof *d->labels);
        if (!d->labels) {
            grove_dataset_free(d);
            d = NULL;
            st = gv_err_nomem("the labelled rows");
        } else {
            for (size_t k = 0; k < n; k++) d->labels[k] = y[rows[k]];
        }
    }
    gv_free(rows);
    if (st != GROVE_OK) return st;
    if (n_skipped) *n_skipped = data->n_rows - n;
    *out = d;
    return GROVE_OK;
}

/* ---- accessors ---- */

static int null_arg(const void *p, const char *fn)
{
    gv_err_clear();
    if (p) return 0;
    gv_err(GROVE_ERR_ARG, "%s: NULL argument", fn);
    return 1;
}

size_t grove_dataset_n_rows(const grove_dataset *data)
{
    return null_arg(data, __func__) ? 0 : data->n_rows;
}

size_t grove_dataset_n_features(const grove_dataset *data)
{
    return null_arg(data, __func__) ? 0 : data->schema->n_features;
}

int grove_dataset_has_labels(const grove_dataset *data)
{
    return null_arg(data, __func__) ? 0 : data->labels != NULL;
}

const grove_schema *grove_dataset_schema(const grove_dataset *data)
{
    return null_arg(data, __func__) ? NULL : data->schema;
}

double grove_dataset_label(const grove_dataset *data, size_t row)
{
    if (null_arg(data, __func__) || !data->labels) return NAN;
    if (row >= data->n_rows) {
        gv_err(GROVE_ERR_ARG, "grove_dataset_label: row %zu is out of range (%zu rows)", row,
               data->n_rows);
        return NAN;
    }
    return data->labels[row];
}

const char *grove_dataset_warning(const grove_dataset *data)
{
    return null_arg(data, __func__) ? "" : data->warning;
}

size_t grove_dataset_n_queries(const grove_dataset *data)
{
    return null_arg(data, __func__) ? 0 : data->n_queries;
}

size_t grove_dataset_query_start(const grove_dataset *data, size_t q)
{
    if (null_arg(data, __func__)) return 0;
    return data->query_ptr && q <= data->n_queries ? data->query_ptr[q] : data->n_rows;
}

size_t grove_dataset_n_kept(const grove_dataset *data)
{
    return null_arg(data, __func__) ? 0 : data->n_kept;
}

const char *grove_dataset_kept_name(const grove_dataset *data, size_t k)
{
    return null_arg(data, __func__) || k >= data->n_kept ? "" : data->kept_names[k];
}

const char *grove_dataset_kept_value(const grove_dataset *data, size_t k, size_t row)
{
    if (null_arg(data, __func__) || k >= data->n_kept || row >= data->n_rows) return "";
    return data->kept_text[k] + data->kept_off[k][row];
}

/* ---- schema queries ---- */

grove_task grove_schema_task(const grove_schema *schema)
{
    return null_arg(schema, __func__) ? GROVE_CLASSIFICATION : schema->task;
}

size_t grove_schema_n_features(const grove_schema *schema)
{
    return null_arg(schema, __func__) ? 0 : schema->n_features;
}

static int bad_feature(const grove_schema *schema, size_t feature, const char *fn)
{
    if (null_arg(schema, fn)) return 1;
    if (feature < schema->n_features) return 0;
    gv_err(GROVE_ERR_ARG, "%s: feature %zu is out of range (%zu features)", fn, feature,
           schema->n_features);
    return 1;
}

const char *grove_schema_feature_name(const grove_schema *schema, size_t feature)
{
    return bad_feature(schema, feature, __func__) ? NULL : schema->feature_names[feature];
}

int grove_schema_is_categorical(const grove_schema *schema, size_t feature)
{
    return bad_feature(schema, feature, __func__) ? 0 : schema->is_categorical[feature];
}

size_t grove_schema_n_columns(const grove_schema *schema)
{
    return null_arg(schema, __func__) ? 0 : gv_schema_width(schema);
}

size_t grove_schema_feature_column(const grove_schema *schema, size_t feature)
{
    if (bad_feature(schema, feature, __func__)) return 0;
    return schema->feature_ids ? schema->feature_ids[feature] : feature;
}

size_t grove_schema_n_classes(const grove_schema *schema)
{
    if (null_arg(schema, __func__) || schema->task != GROVE_CLASSIFICATION) return 0;
    return schema->classes.n;
}

const char *grove_schema_class_name(const grove_schema *schema, size_t class_index)
{
    if (null_arg(schema, __func__)) return NULL;
    size_t n_classes = schema->task == GROVE_CLASSIFICATION ? schema->classes.n : 0;
    if (class_index >= n_classes) {
        gv_err(GROVE_ERR_ARG, "grove_schema_class_name: class %zu is out of range (%zu classes)",
               class_index, n_classes);
        return NULL;
    }
    return schema->classes.names[class_index];
}

const char *grove_schema_label_name(const grove_schema *schema)
{
    return null_arg(schema, __func__) ? NULL : schema->label_name;
}

/* ---- naming a dataset built from an array (the Python binding's schema) ---- */

/* 1 when names[0..n) holds a NULL, or two equal strings; *dup is the first repeated index. */
static int names_bad(const char *const *names, size_t n, size_t *dup)
{
    for (size_t i = 0; i < n; i++) {
        if (!names[i]) {
            *dup = i;
            return 1;
        }
        for (size_t j = 0; j < i; j++)
            if (strcmp(names[i], names[j]) == 0) {
                *dup = i;
                return 1;
            }
    }
    return 0;
}

grove_status grove_dataset_set_queries(grove_dataset *data, const double *qid, size_t n)
{
    gv_err_clear();
    if (!data || !qid) return gv_err(GROVE_ERR_ARG, "grove_dataset_set_queries: NULL argument");
    if (n != data->n_rows)
        return gv_err(GROVE_ERR_ARG, "grove_dataset_set_queries: %zu query ids for %zu rows", n,
                      data->n_rows);
    for (size_t i = 0; i < n; i++)
        if (isnan(qid[i]))
            return gv_err(GROVE_ERR_DATA, "%s: row %zu: the query id is NaN", data->source, i);
    size_t bad = 0;
    int r = gv_dataset_set_queries(data, qid, n, &bad);
    if (r < 0) return gv_err_nomem("the query groups");
    if (r > 0)
        return gv_err(GROVE_ERR_DATA, "%s: row %zu: query %.17g comes back after rows of other "
                      "queries (the rows of a query must be contiguous)", data->source, bad,
                      qid[bad]);
    return GROVE_OK;
}

grove_status grove_dataset_set_feature(grove_dataset *data, size_t feature, const char *name,
                                       const char *const *categories, size_t n_categories)
{
    gv_err_clear();
    if (!data) return gv_err(GROVE_ERR_ARG, "grove_dataset_set_feature: data is NULL");
    grove_schema *s = data->schema;
    if (feature >= s->n_features)
        return gv_err(GROVE_ERR_ARG, "grove_dataset_set_feature: feature %zu out of range "
                      "(%zu features)", feature, s->n_features);
    size_t dup;
    if (categories && names_bad(categories, n_categories, &dup))
        return gv_err(GROVE_ERR_DATA, "feature %zu ('%s'): category %zu is %s", feature,
                      name ? name : s->feature_names[feature], dup,
                      categories[dup] ? "repeated" : "NULL");
    if (categories) {
        /* every value must already be a code of these categories (or missing) */
        const float *col = &data->values[feature * data->n_rows];
        for (size_t i = 0; i < data->n_rows; i++) {
            float x = col[i];
            if (isnan(x)) continue;
            if (!(x >= 0 && x < (double)n_categories && x == floorf(x)))
                return gv_err(GROVE_ERR_DATA, "%s: row %zu, feature %zu ('%s'): expected a "
                              "category code in [0, %zu), found %.9g", data->source, i, feature,
                              name ? name : s->feature_names[feature], n_categories, (double)x);
        }
    }
    char *new_name = NULL;
    gv_dict dict;
    gv_dict_init(&dict);
    if (name && !(new_name = gv_strdup(name))) return gv_err_nomem("a feature name");
    for (size_t c = 0; categories && c < n_categories; c++) {
        if (gv_dict_add(&dict, categories[c], strlen(categories[c])) < 0) {
            gv_free(new_name);
            gv_dict_free(&dict);
            return gv_err_nomem("the categories");
        }
    }
    if (new_name) {
        gv_free(s->feature_names[feature]);
        s->feature_names[feature] = new_name;
    }
    if (categories) {
        gv_dict_free(&s->categories[feature]);
        s->categories[feature] = dict;
        s->is_categorical[feature] = 1;
    }
    return GROVE_OK;
}

grove_status grove_dataset_set_classes(grove_dataset *data, const char *const *names, size_t n,
                                       const char *label_name)
{
    gv_err_clear();
    if (!data) return gv_err(GROVE_ERR_ARG, "grove_dataset_set_classes: data is NULL");
    grove_schema *s = data->schema;
    char *new_label = NULL;
    gv_dict dict;
    gv_dict_init(&dict);
    if (names) {
        size_t dup;
        if (s->task != GROVE_CLASSIFICATION || n != s->classes.n)
            return gv_err(GROVE_ERR_DATA, "grove_dataset_set_classes: %zu class names given, the "
                          "data has %zu classes", n, s->task == GROVE_CLASSIFICATION ?
                          s->classes.n : (size_t)0);
        if (names_bad(names, n, &dup))
            return gv_err(GROVE_ERR_DATA, "grove_dataset_set_classes: class %zu is %s", dup,
                          names[dup] ? "repeated" : "NULL");
        for (size_t c = 0; c < n; c++) {
            if (gv_dict_add(&dict, names[c], strlen(names[c])) < 0) {
                gv_dict_free(&dict);
                return gv_err_nomem("the class names");
            }
        }
    }
    if (label_name && !(new_label = gv_strdup(label_name))) {
        gv_dict_free(&dict);
        return gv_err_nomem("the label name");
    }
    if (names) {
        gv_dict_free(&s->classes);
        s->classes = dict;
    }
    if (new_label) {
        gv_free(s->label_name);
        s->label_name = new_label;
    }
    return GROVE_OK;
}
