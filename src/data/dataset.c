/*
 * dataset.c -- string dictionaries, schemas and the dataset container.
 *
 * Pipeline position: data/.  The loaders (csv.c, libsvm.c, array.c) fill these structures;
 * bin/, learn/ and model/ read them.  Ownership: a dataset owns its schema, values, labels,
 * weights, source and warning; a schema owns its names and dictionaries.
 */
#include "dataset.h"

#include <stdarg.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- dictionary: FNV-1a hashing, linear probing, load factor <= 1/2 ---- */

static uint64_t hash_bytes(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

void gv_dict_init(gv_dict *d) { memset(d, 0, sizeof *d); }

void gv_dict_free(gv_dict *d)
{
    if (!d) return;
    for (size_t i = 0; i < d->n; i++) gv_free(d->names[i]);
    gv_free(d->names);
    gv_free(d->slots);
    memset(d, 0, sizeof *d);
}

long gv_dict_find(const gv_dict *d, const char *s, size_t len)
{
    if (d->n_slots == 0) return -1;
    size_t mask = d->n_slots - 1;
    for (size_t k = (size_t)hash_bytes(s, len) & mask;; k = (k + 1) & mask) {
        size_t v = d->slots[k];
        if (v == 0) return -1;
        const char *name = d->names[v - 1];
        if (strncmp(name, s, len) == 0 && name[len] == '\0') return (long)(v - 1);
    }
}

static int rehash(gv_dict *d, size_t n_slots)
{
    size_t *slots = gv_calloc(n_slots, sizeof *slots);
    if (!slots) return -1;
    size_t mask = n_slots - 1;
    for (size_t c = 0; c < d->n; c++) {
        size_t k = (size_t)hash_bytes(d->names[c], strlen(d->names[c])) & mask;
        while (slots[k]) k = (k + 1) & mask;
        slots[k] = c + 1;
    }
    gv_free(d->slots);
    d->slots = slots;
    d->n_slots = n_slots;
    return 0;
}

long gv_dict_add(gv_dict *d, const char *s, size_t len)
{
    long found = gv_dict_find(d, s, len);
    if (found >= 0) return found;
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 8;
        char **names = gv_realloc_array(d->names, cap, sizeof *names);
        if (!names) return -1;
        d->names = names;
        d->cap = cap;
    }
    if (2 * (d->n + 1) > d->n_slots && rehash(d, d->n_slots ? d->n_slots * 2 : 16) != 0)
        return -1;
    char *copy = gv_strndup(s, len);
    if (!copy) return -1;
    d->names[d->n] = copy;
    size_t mask = d->n_slots - 1;
    size_t k = (size_t)hash_bytes(s, len) & mask;
    while (d->slots[k]) k = (k + 1) & mask;
    d->slots[k] = d->n + 1;
    return (long)d->n++;
}

int gv_dict_copy(gv_dict *dst, const gv_dict *src)
{
    gv_dict_init(dst);
    for (size_t i = 0; i < src->n; i++) {
        if (gv_dict_add(dst, src->names[i], strlen(src->names[i])) < 0) {
            gv_dict_free(dst);
            return -1;
        }
    }
    return 0;
}

/* ---- schema ---- */

void gv_schema_free(grove_schema *s)
{
    if (!s) return;
    for (size_t f = 0; f < s->n_features; f++) {
        if (s->feature_names) gv_free(s->feature_names[f]);
        if (s->categories) gv_dict_free(&s->categories[f]);
    }
    gv_free(s->feature_names);
    gv_free(s->is_categorical);
    gv_free(s->categories);
    gv_free(s->label_name);
    gv_dict_free(&s->classes);
    gv_free(s->feature_ids);
    gv_free(s);
}

long gv_schema_feature_of(const grove_schema *s, size_t column)
{
    if (!s->feature_ids) return column < s->n_features ? (long)column : -1;
    size_t lo = 0, hi = s->n_features;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->feature_ids[mid] < column)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n_features && s->feature_ids[lo] == column ? (long)lo : -1;
}

int gv_schema_set_ids(grove_schema *s, const uint32_t *ids, size_t n_columns)
{
    uint32_t *copy = gv_malloc_array(s->n_features ? s->n_features : 1, sizeof *copy);
    if (!copy) return -1;
    if (s->n_features) memcpy(copy, ids, s->n_features * sizeof *copy);
    gv_free(s->feature_ids);
    s->feature_ids = copy;
    s->n_columns = n_columns;
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

int gv_distinct_ids(const uint32_t *col, size_t n, size_t width, uint32_t **ids, size_t *n_ids)
{
    *ids = NULL;
    *n_ids = 0;
    if (n == 0) return 0;
    size_t k = 0;
    uint32_t *out;
    if (width / 64 <= n) { /* a bitmap of at most 8 bytes a value */
        uint64_t *bits = gv_calloc(width / 64 + 1, sizeof *bits);
        if (!bits) return -1;
        size_t count = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t b = (uint64_t)1 << (col[i] & 63);
            count += !(bits[col[i] >> 6] & b);
            bits[col[i] >> 6] |= b;
        }
        out = gv_malloc_array(count, sizeof *out);
        if (!out) {
            gv_free(bits);
            return -1;
        }
        for (size_t w = 0; w <= width / 64; w++)
            for (uint64_t b = bits[w]; b; b &= b - 1)
                out[k++] = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(b));
        gv_free(bits);
    } else {
        out = gv_malloc_array(n, sizeof *out);
        if (!out) return -1;
        memcpy(out, col, n * sizeof *out);
        qsort(out, n, sizeof *out, cmp_u32);
        for (size_t i = 0; i < n; i++)
            if (i == 0 || out[i] != out[k - 1]) out[k++] = out[i];
    }
    *ids = out;
    *n_ids = k;
    return 0;
}

int gv_remap_ids(uint32_t *col, size_t n, const uint32_t *ids, size_t n_ids, size_t width)
{
    if (width / 4 <= n + n_ids) { /* a table of at most 16 bytes a value */
        uint32_t *pos = gv_malloc_array(width ? width : 1, sizeof *pos);
        if (!pos) return -1;
        for (size_t f = 0; f < n_ids; f++) pos[ids[f]] = (uint32_t)f;
        for (size_t i = 0; i < n; i++) col[i] = pos[col[i]];
        gv_free(pos);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        size_t lo = 0, hi = n_ids;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (ids[mid] < col[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        col[i] = (uint32_t)lo;
    }
    return 0;
}

grove_schema *gv_schema_new(size_t n_features)
{
    grove_schema *s = gv_calloc(1, sizeof *s);
    if (!s) return NULL;
    s->n_features = n_features;
    s->task = GROVE_CLASSIFICATION;
    s->feature_names = gv_calloc(n_features, sizeof *s->feature_names);
    s->is_categorical = gv_calloc(n_features, 1);
    s->categories = gv_calloc(n_features, sizeof *s->categories);
    s->label_name = gv_strdup("");
    if (!s->feature_names || !s->is_categorical || !s->categories || !s->label_name) {
        s->n_features = 0;
        gv_schema_free(s);
        return NULL;
    }
    for (size_t f = 0; f < n_features; f++) {
        char name[32];
        snprintf(name, sizeof name, "f%zu", f);
        s->feature_names[f] = gv_strdup(name);
        if (!s->feature_names[f]) {
            gv_schema_free(s);
            return NULL;
        }
    }
    return s;
}

grove_schema *gv_schema_copy(const grove_schema *src)
{
    grove_schema *s = gv_schema_new(src->n_features);
    if (!s) return NULL;
    s->task = src->task;
    gv_free(s->label_name);
    s->label_name = gv_strdup(src->label_name);
    if (!s->label_name || gv_dict_copy(&s->classes, &src->classes) != 0) goto fail;
    for (size_t f = 0; f < src->n_features; f++) {
        gv_free(s->feature_names[f]);
        s->feature_names[f] = gv_strdup(src->feature_names[f]);
        if (!s->feature_names[f]) goto fail;
        s->is_categorical[f] = src->is_categorical[f];
        if (gv_dict_copy(&s->categories[f], &src->categories[f]) != 0) goto fail;
    }
    if (src->feature_ids && gv_schema_set_ids(s, src->feature_ids, src->n_columns) != 0)
        goto fail;
    return s;
fail:
    gv_schema_free(s);
    return NULL;
}

static int dict_equal(const gv_dict *a, const gv_dict *b)
{
    if (a->n != b->n) return 0;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->names[i], b->names[i]) != 0) return 0;
    return 1;
}

int gv_schema_equal(const grove_schema *a, const grove_schema *b)
{
    if (a->n_features != b->n_features || a->task != b->task) return 0;
    if (!dict_equal(&a->classes, &b->classes)) return 0;
    if (!a->feature_ids != !b->feature_ids || gv_schema_width(a) != gv_schema_width(b) ||
        (a->feature_ids &&
         memcmp(a->feature_ids, b->feature_ids, a->n_features * sizeof *a->feature_ids)))
        return 0;
    for (size_t f = 0; f < a->n_features; f++) {
        if (strcmp(a->feature_names[f], b->feature_names[f]) != 0) return 0;
        if (a->is_categorical[f] != b->is_categorical[f]) return 0;
        if (!dict_equal(&a->categories[f], &b->categories[f])) return 0;
    }
    return 1;
}

/* ---- dataset ---- */

/* The dataset container; `fill` sets every value and label to NaN. */
static grove_dataset *dataset_alloc(grove_schema *schema, size_t n_rows, int with_labels,
                                    int fill)
{
    grove_dataset *d = gv_calloc(1, sizeof *d);
    if (!d) {
        gv_schema_free(schema);
        return NULL;
    }
    d->schema = schema;
    d->n_rows = n_rows;
    size_t n_values;
    if (gv_mul_size(n_rows, schema->n_features, &n_values) != 0) goto fail;
    d->values = gv_malloc_array(n_values, sizeof *d->values);
    d->source = gv_strdup("<array>");
    d->warning = gv_strdup("");
    if (!d->values || !d->source || !d->warning) goto fail;
    if (fill)
        for (size_t k = 0; k < n_values; k++) d->values[k] = NAN;
    if (with_labels) {
        d->labels = gv_malloc_array(n_rows, sizeof *d->labels);
        if (!d->labels) goto fail;
        if (fill)
            for (size_t i = 0; i < n_rows; i++) d->labels[i] = NAN;
    }
    return d;
fail:
    grove_dataset_free(d);
    return NULL;
}

grove_dataset *gv_dataset_new(grove_schema *schema, size_t n_rows, int with_labels)
{
    return dataset_alloc(schema, n_rows, with_labels, 1);
}

grove_dataset *gv_dataset_new_unfilled(grove_schema *schema, size_t n_rows, int with_labels)
{
    return dataset_alloc(schema, n_rows, with_labels, 0);
}

grove_dataset *gv_dataset_new_sparse(grove_schema *schema, size_t n_rows, size_t nnz,
                                     float dflt, int with_labels)
{
    grove_dataset *d = gv_calloc(1, sizeof *d);
    if (!d || n_rows > GV_SPARSE_MAX_ROWS) {
        gv_free(d);
        gv_schema_free(schema);
        return NULL;
    }
    d->schema = schema;
    d->n_rows = n_rows;
    d->sp_default = dflt;
    d->sp_col = gv_calloc(schema->n_features + 1, sizeof *d->sp_col);
    d->sp_row = gv_malloc_array(nnz, sizeof *d->sp_row);
    d->sp_val = gv_malloc_array(nnz, sizeof *d->sp_val);
    d->source = gv_strdup("<array>");
    d->warning = gv_strdup("");
    if (!d->sp_col || !d->sp_row || !d->sp_val || !d->source || !d->warning) goto fail;
    if (with_labels) {
        d->labels = gv_malloc_array(n_rows, sizeof *d->labels);
        if (!d->labels) goto fail;
        for (size_t i = 0; i < n_rows; i++) d->labels[i] = NAN;
    }
    return d;
fail:
    grove_dataset_free(d);
    return NULL;
}

int gv_dataset_fill_csr(grove_dataset *d, const size_t *ptr, const uint32_t *col,
                        const float *val)
{
    size_t F = d->schema->n_features, n = d->n_rows;
    size_t *next = gv_malloc_array(F + 1, sizeof *next);
    if (!next) return -1;
    /* counting sort by feature: rows are visited in order, so each column's rows increase */
    memset(d->sp_col, 0, (F + 1) * sizeof *d->sp_col);
    for (size_t k = 0; k < ptr[n]; k++) d->sp_col[col[k] + 1]++;
    for (size_t f = 0; f < F; f++) d->sp_col[f + 1] += d->sp_col[f];
    memcpy(next, d->sp_col, (F + 1) * sizeof *next);
    for (size_t i = 0; i < n; i++)
        for (size_t k = ptr[i]; k < ptr[i + 1]; k++) {
            size_t at = next[col[k]]++;
            d->sp_row[at] = (uint32_t)i;
            d->sp_val[at] = val[k];
        }
    gv_free(next);
    return 0;
}

float *gv_dataset_dense_values(const grove_dataset *d)
{
    size_t F = d->schema->n_features, n = d->n_rows, cells;
    if (gv_mul_size(F, n, &cells) != 0) return NULL;
    float *v = gv_malloc_array(cells, sizeof *v);
    if (!v) return NULL;
    if (d->values) {
        memcpy(v, d->values, cells * sizeof *v);
        return v;
    }
    for (size_t k = 0; k < cells; k++) v[k] = d->sp_default;
    for (size_t f = 0; f < F; f++)
        for (size_t k = d->sp_col[f]; k < d->sp_col[f + 1]; k++) v[f * n + d->sp_row[k]] = d->sp_val[k];
    return v;
}

void grove_dataset_free(grove_dataset *d)
{
    if (!d) return;
    gv_schema_free(d->schema);
    gv_free(d->values);
    gv_free(d->sp_col);
    gv_free(d->sp_row);
    gv_free(d->sp_val);
    gv_free(d->labels);
    gv_free(d->partial_labels);
    gv_free(d->weights);
    gv_free(d->query_ptr);
    gv_free(d->source);
    gv_free(d->warning);
    for (size_t k = 0; k < d->n_kept; k++) {
        if (d->kept_names) gv_free(d->kept_names[k]);
        if (d->kept_text) gv_free(d->kept_text[k]);
        if (d->kept_off) gv_free(d->kept_off[k]);
    }
    gv_free(d->kept_names);
    gv_free(d->kept_text);
    gv_free(d->kept_off);
    gv_free(d);
}

/* ---- helpers for the loaders ---- */

grove_status gv_dataset_warn(grove_dataset *d, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    gv_buf b = {0};
    if ((d->warning && *d->warning && gv_buf_printf(&b, "%s\n", d->warning) != 0) ||
        gv_buf_printf(&b, "%s", line) != 0) {
        gv_buf_free(&b);
        return gv_err_nomem("a warning");
    }
    gv_free(d->warning);
    d->warning = b.data;
    return GROVE_OK;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b); /* strcmp compares as unsigned char */
}

int gv_dict_sort(gv_dict *d, size_t *old_to_new)
{
    if (d->n == 0) return 0;
    char **sorted = gv_malloc_array(d->n, sizeof *sorted);
    size_t *slots = gv_calloc(d->n_slots, sizeof *slots);
    if (!sorted || !slots) {
        gv_free(sorted);
        gv_free(slots);
        return -1;
    }
    memcpy(sorted, d->names, d->n * sizeof *sorted);
    qsort(sorted, d->n, sizeof *sorted, compare_names);
    if (old_to_new)
        for (size_t r = 0; r < d->n; r++)
            old_to_new[gv_dict_find(d, sorted[r], strlen(sorted[r]))] = r;
    /* From here on nothing can fail: install the new order and its hash table. */
    memcpy(d->names, sorted, d->n * sizeof *sorted);
    gv_free(sorted);
    size_t mask = d->n_slots - 1;
    for (size_t c = 0; c < d->n; c++) {
        size_t k = (size_t)hash_bytes(d->names[c], strlen(d->names[c])) & mask;
        while (slots[k]) k = (k + 1) & mask;
        slots[k] = c + 1;
    }
    gv_free(d->slots);
    d->slots = slots;
    return 0;
}

int gv_schema_name_features(grove_schema *s, const char *prefix, size_t first)
{
    for (size_t f = 0; f < s->n_features; f++) {
        char name[64];
        snprintf(name, sizeof name, "%s%zu", prefix, first + f);
        char *copy = gv_strdup(name);
        if (!copy) return -1;
        gv_free(s->feature_names[f]);
        s->feature_names[f] = copy;
    }
    return 0;
}

typedef struct query_run {
    double id;
    size_t row; /* its first row */
} query_run;

static int run_cmp(const void *a, const void *b)
{
    const query_run *x = a, *y = b;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

int gv_dataset_set_queries(grove_dataset *d, const double *qid, size_t n, size_t *bad_row)
{
    size_t n_runs = 0;
    for (size_t i = 0; i < n; i++) n_runs += i == 0 || qid[i] != qid[i - 1];
    size_t *ptr = gv_malloc_array(n_runs + 1, sizeof *ptr);
    query_run *runs = gv_malloc_array(n_runs ? n_runs : 1, sizeof *runs);
    if (!ptr || !runs) {
        gv_free(ptr);
        gv_free(runs);
        return -1;
    }
    size_t q = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || qid[i] != qid[i - 1]) {
            runs[q].id = qid[i];
            runs[q].row = i;
            ptr[q++] = i;
        }
    ptr[n_runs] = n;
    /* an id in two runs: sorted by (id, first row), the later run of each pair is a repeat;
     * the earliest such run is the row to name */
    qsort(runs, n_runs, sizeof *runs, run_cmp);
    size_t bad = SIZE_MAX;
    for (size_t k = 1; k < n_runs; k++)
        if (runs[k].id == runs[k - 1].id && runs[k].row < bad) bad = runs[k].row;
    gv_free(runs);
    if (bad != SIZE_MAX) {
        gv_free(ptr);
        *bad_row = bad;
        return 1;
    }
    gv_free(d->query_ptr);
    d->query_ptr = ptr;
    d->n_queries = n_runs;
    d->query_id_first = n ? qid[0] : 0;
    d->query_id_last = n ? qid[n - 1] : 0;
    return 0;
}
