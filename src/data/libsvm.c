/*
 * libsvm.c -- the LIBSVM / svmlight loader: one row per line, `label index:value ...`.
 *
 * Pipeline position: data/ (file text -> grove_dataset), called by grove_dataset_load().
 *
 * Syntax.  Tokens are separated by blanks (space, tab).  The first token is the label (a
 * decimal number); then `index:value` pairs with 1-based integer indices in [1, 2^31 - 1],
 * strictly increasing within a row (zero-based, [0, 2^31 - 2], when some row starts at index 0,
 * as scikit-learn's dump_svmlight_file writes by default, or when following a schema whose
 * first feature is "f0"; a notice says so, and the features are then named "f0".."fN-1"); a `qid:n` token gives the
 * row's query (learning to rank; dataset.h's query_ptr): when every row has one, the rows of a
 * query must be contiguous, else they are ignored with a notice; `#` starts a comment to the end
 * of the line; blank and comment-only lines are not rows; LF or CRLF.  A value may be a missing
 * token (NA, ?, NaN).  An index absent from a row means 0, or missing with parameter
 * libsvm_absent=missing.
 *
 * Features.  LIBSVM index k is column k-1, named "f<k>" (so "f1".."fN"; N = the largest index
 * seen).  When few cells are stored (below), only the columns that hold a value are features,
 * in column order (compact features: the schema's feature_ids, dataset.h), so an index costs
 * nothing by itself; else every column up to N is one.  Following a schema, column c is its
 * feature of that column (feature c without feature_ids) whatever its name; other columns are
 * dropped, and those beyond the schema's width counted in the warning, and a categorical feature's value
 * must be a category code.  Labels are numeric; the task follows labels.c's rule.
 *
 * Locations in messages are `path:line:token`: the 1-based line and the 1-based number of the
 * blank-separated token on it (the label is token 1), as in csv.c where it is the field.
 *
 * How: one sequential memchr() scan finds the rows; they are parsed in parallel over fixed
 * blocks of rows (gv_parse_rows, input.c, the pass csv.c uses too).  A first pass validates, finds the largest index and counts each row's
 * stored values (those other than the absent 0 or NaN); then the layout is chosen (sparse
 * compressed columns when at most 1/8 of the cells are stored, dataset.h) and a second pass
 * fills it, so memory follows the stored values, not rows x largest index.  Errors of the
 * lowest row win (see gv_row_error).
 */
#include "dataset.h"

#include "../core/params.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The largest feature index accepted (docs/limits.md): 2^31 - 1, so that a feature's column
 * (index - 1) fits the 32-bit ids of dataset.h.  Only the features that hold a stored value
 * get a column (compact features, below), so the index costs nothing by itself. */
#define MAX_INDEX 2147483647

/* Layout choice (gv_libsvm_set_layout): by dataset.h's GV_SPARSE_DENSITY. */
static int layout_force; /* 0 auto, 1 dense, 2 sparse */

void gv_libsvm_set_layout(int layout) { layout_force = layout; }

typedef struct svm_worker {
    gv_row_error err;
    size_t max_index;
    size_t n_ignored;      /* following a schema: pairs beyond its features */
    size_t ignored_row;    /* the first of them (SIZE_MAX: none) */
    const char *ignored_at;
    size_t ignored_index;
    size_t n_bad_labels;   /* following a schema: labels that are not numbers or not classes */
    const char *bad_label_at; /* the first of them */
} svm_worker;

typedef struct svm_ctx {
    const char *path, *text;
    const char **rec;      /* [2 * n_rows]: start and end (comment and CR cut) of each row */
    size_t n_rows, rec_cap;
    const grove_schema *follow; /* borrowed; NULL = infer */
    double *labels;        /* [n_rows] */
    grove_dataset *ds;     /* the dense dataset the second pass fills, or NULL */
    int pass2;             /* the second pass: store the values (ds's, or csr_col/csr_val) */
    int absent_missing;
    int zero_based;        /* indices start at 0 (scikit-learn's default): index i is feature i */
    size_t *row_nnz;       /* first pass: [n_rows + 1], the values each row stores (0 unless
                              they differ from the absent value); then the CSR row pointers */
    uint32_t *csr_col;     /* second pass of a sparse dataset: [nnz] features (columns,
                              index - 1, when the features are to be made compact) */
    float *csr_val;        /* [nnz] values */
    double *qid;           /* first pass: [n_rows] the rows' qid:n values, NaN without one */
} svm_ctx;

static int is_blank(char ch) { return ch == ' ' || ch == '\t' || ch == '\r'; }

/* The first row whose first feature index is 0 (indices increase within a row, so a 0 can only
 * come first), or NULL: a file with one is zero-based, as scikit-learn's dump_svmlight_file
 * writes by default (zero_based=True); without one, the LIBSVM convention (1-based) holds. */
static const char *find_index_zero(const svm_ctx *c)
{
    for (size_t i = 0; i < c->n_rows; i++) {
        const char *p = c->rec[2 * i], *e = c->rec[2 * i + 1];
        for (int t = 0; p < e; t++) {
            while (p < e && is_blank(*p)) p++;
            const char *tok = p;
            while (p < e && !is_blank(*p)) p++;
            if (t == 0 || (p - tok > 4 && !memcmp(tok, "qid:", 4))) continue;
            if (p - tok >= 2 && tok[0] == '0' && tok[1] == ':') return tok;
            break;
        }
    }
    return NULL;
}

/* A schema made from a zero-based file (or an array) names its first feature "f<column>"; a
 * one-based file's names it "f<column + 1>". */
static int schema_zero_based(const grove_schema *s)
{
    char name[32];
    if (s->n_features == 0) return 0;
    snprintf(name, sizeof name, "f%lu", s->feature_ids ? (unsigned long)s->feature_ids[0] : 0ul);
    return !strcmp(s->feature_names[0], name);
}

static grove_status find_rows(svm_ctx *c, const char *p, const char *end)
{
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) nl = end;
        const char *hash = memchr(p, '#', (size_t)(nl - p));
        const char *rs = p, *re = hash ? hash : nl;
        p = nl < end ? nl + 1 : end;
        while (rs < re && is_blank(*rs)) rs++;
        while (re > rs && is_blank(re[-1])) re--;
        if (rs == re) continue;
        if (2 * c->n_rows + 2 > c->rec_cap) {
            size_t cap = c->rec_cap ? 2 * c->rec_cap : 2048;
            const char **r = gv_realloc_array(c->rec, cap, sizeof *r);
            if (!r) return gv_err_nomem("the row index");
            c->rec = r;
            c->rec_cap = cap;
        }
        c->rec[2 * c->n_rows] = rs;
        c->rec[2 * c->n_rows + 1] = re;
        c->n_rows++;
    }
    return GROVE_OK;
}

/* Parses row i: validates it, stores its label, and, when c->ds is set, its values.  0 ok, -1
 * error recorded in w. */
static int parse_row(svm_ctx *c, svm_worker *w, size_t i)
{
    const char *p = c->rec[2 * i], *e = c->rec[2 * i + 1];
    grove_dataset *ds = c->ds;
    const grove_schema *schema = c->follow;
    size_t n_rows = c->n_rows;
    size_t prev = 0, stored = 0;
    char found[96];
    for (size_t t = 1;; t++) {
        while (p < e && is_blank(*p)) p++;
        if (p == e) break;
        const char *tok = p;
        while (p < e && !is_blank(*p)) p++;
        size_t len = (size_t)(p - tok);
        const char *colon = memchr(tok, ':', len);
        if (t == 1) {
            double y;
            int r = colon ? GV_NUM_BAD : gv_parse_decimal(tok, len, &y);
            /* following a schema the label is optional value by value (as in csv.c): one that
             * is not a number or not a class makes the dataset label-less, with a notice */
            if (schema && !colon &&
                (r != GV_NUM_OK ||
                 (schema->task == GROVE_CLASSIFICATION &&
                  gv_labels_class_of_number(schema, y) < 0))) {
                if (w->n_bad_labels++ == 0 || tok < w->bad_label_at) w->bad_label_at = tok;
                c->labels[i] = NAN;
                continue;
            }
            if (r != GV_NUM_OK) {
                gv_excerpt(tok, len, found, sizeof found);
                gv_row_fail(&w->err, r == GV_NUM_NOMEM ? GROVE_ERR_NOMEM : GROVE_ERR_PARSE, i, tok,
                            t, colon ? "expected a label before the features, found %s"
                                     : "expected a numeric label, found %s", found);
                return -1;
            }
            if (schema && schema->task == GROVE_CLASSIFICATION) {
                long cls = gv_labels_class_of_number(schema, y);
                if (cls < 0) {
                    char classes[160];
                    gv_labels_list(schema, classes, sizeof classes);
                    gv_excerpt(tok, len, found, sizeof found);
                    gv_row_fail(&w->err, GROVE_ERR_DATA, i, tok, t,
                                "expected one of the classes (%s), found %s", classes, found);
                    return -1;
                }
                y = (double)cls;
            }
            c->labels[i] = y;
            continue;
        }
        if (len > 4 && memcmp(tok, "qid:", 4) == 0) {
            double q;
            if (c->pass2) continue;
            if (gv_parse_decimal(tok + 4, len - 4, &q) != GV_NUM_OK || q != floor(q) ||
                !(fabs(q) < 9007199254740992.0)) {
                gv_excerpt(tok, len, found, sizeof found);
                gv_row_fail(&w->err, GROVE_ERR_PARSE, i, tok, t,
                            "expected qid:n with an integer n, found %s", found);
                return -1;
            }
            c->qid[i] = q;
            continue;
        }
        if (!colon) {
            gv_excerpt(tok, len, found, sizeof found);
            gv_row_fail(&w->err, GROVE_ERR_PARSE, i, tok, t, "expected index:value, found %s",
                        found);
            return -1;
        }
        /* index: 1..MAX_INDEX, plain digits */
        size_t index = 0, n_digits = (size_t)(colon - tok);
        int ok = n_digits > 0 && n_digits <= 10;
        for (size_t k = 0; ok && k < n_digits; k++) {
            unsigned d = (unsigned)(tok[k] - '0');
            ok = d < 10;
            index = index * 10 + d;
        }
        if (!ok || index + (size_t)c->zero_based < 1 || index + (size_t)c->zero_based > MAX_INDEX) {
            char idx[96];
            gv_excerpt(tok, n_digits, idx, sizeof idx);
            gv_row_fail(&w->err, GROVE_ERR_PARSE, i, tok, t,
                        "expected a feature index in [%d, %d], found %s", 1 - c->zero_based,
                        MAX_INDEX - c->zero_based, idx);
            return -1;
        }
        index += (size_t)c->zero_based; /* from here on 1-based */
        if (index <= prev) {
            gv_row_fail(&w->err, GROVE_ERR_PARSE, i, tok, t,
                        "expected feature indices in increasing order, found %zu after %zu",
                        index - (size_t)c->zero_based, prev - (size_t)c->zero_based);
            return -1;
        }
        prev = index;
        /* value */
        const char *v = colon + 1;
        size_t vlen = (size_t)(p - v);
        double x;
        int r = gv_parse_decimal(v, vlen, &x);
        float value = (float)x;
        if (r == GV_NUM_BAD && vlen > 0 && gv_is_missing_token(v, vlen)) {
            value = NAN;
        } else if (r != GV_NUM_OK || isinf(value)) {
            char val[96];
            gv_excerpt(v, vlen, val, sizeof val);
            gv_row_fail(&w->err, r == GV_NUM_NOMEM ? GROVE_ERR_NOMEM : GROVE_ERR_PARSE, i, tok, t,
                        r == GV_NUM_BAD ? "expected a number after \"%zu:\", found %s"
                                        : "expected a number within the float range after "
                                          "\"%zu:\", found %s", index, val);
            return -1;
        }
        if (index > w->max_index) w->max_index = index;
        size_t f = index - 1;
        if (schema) {
            /* following a schema: its feature of this column; a column it does not have is
             * dropped, counted when beyond the schema's width (a column inside it held no
             * value in the data the schema was made from, so no model reads it) */
            long g = gv_schema_feature_of(schema, index - 1);
            if (g < 0) {
                if (index > gv_schema_width(schema) && w->n_ignored++ == 0) {
                    w->ignored_row = i;
                    w->ignored_at = tok;
                    w->ignored_index = index;
                }
                continue;
            }
            f = (size_t)g;
            if (schema->is_categorical[f] && !isnan(value)) {
                size_t n_cat = schema->categories[f].n;
                if (!(value >= 0 && value < (float)n_cat && value == floorf(value))) {
                    gv_excerpt(tok, len, found, sizeof found);
                    gv_row_fail(&w->err, GROVE_ERR_DATA, i, tok, t,
                                "expected a category code of feature '%s' in [0, %zu), found %s",
                                schema->feature_names[f], n_cat, found);
                    return -1;
                }
            }
        }
        /* only values other than the absent one are stored (and counted) */
        if (c->absent_missing ? isnan(value) : value == 0.0f) continue;
        if (!c->pass2) {
            stored++;
        } else if (c->csr_col) {
            size_t at = c->row_nnz[i] + stored++;
            c->csr_col[at] = (uint32_t)f;
            c->csr_val[at] = value;
        } else {
            ds->values[f * n_rows + i] = value;
        }
    }
    if (!c->pass2) c->row_nnz[i] = stored;
    return 0;
}

static int parse_row_of(void *c, void *w, size_t i) { return parse_row(c, w, i); }

/* One parallel pass over all rows; merges the workers' results into *merged. */
static grove_status parse_rows(svm_ctx *c, int n_threads, svm_worker *merged)
{
    n_threads = gv_row_threads(c->n_rows, n_threads);
    svm_worker *workers = gv_calloc((size_t)n_threads, sizeof *workers);
    if (!workers) return gv_err_nomem("the parser threads");
    for (int t = 0; t < n_threads; t++) {
        gv_row_error_init(&workers[t].err);
        workers[t].ignored_row = SIZE_MAX;
    }
    gv_parse_rows(c->n_rows, n_threads, workers, sizeof *workers, parse_row_of, c);

    memset(merged, 0, sizeof *merged);
    gv_row_error_init(&merged->err);
    merged->ignored_row = SIZE_MAX;
    for (int t = 0; t < n_threads; t++) {
        const svm_worker *w = &workers[t];
        if (w->err.status != GROVE_OK && w->err.row < merged->err.row) merged->err = w->err;
        if (w->max_index > merged->max_index) merged->max_index = w->max_index;
        merged->n_ignored += w->n_ignored;
        merged->n_bad_labels += w->n_bad_labels;
        if (w->n_bad_labels && (!merged->bad_label_at || w->bad_label_at < merged->bad_label_at))
            merged->bad_label_at = w->bad_label_at;
        if (w->n_ignored && w->ignored_row < merged->ignored_row) {
            merged->ignored_row = w->ignored_row;
            merged->ignored_at = w->ignored_at;
            merged->ignored_index = w->ignored_index;
        }
    }
    gv_free(workers);
    if (merged->err.status != GROVE_OK)
        return gv_row_error_report(&merged->err, c->path, c->text);
    return GROVE_OK;
}

/* The schema and the empty dataset for n_features features (c->ds), with absent values set to
 * 0 or NaN: sparse (room for nnz values) or dense.  ids: the columns of compact features
 * ([n_features], of a source n_columns wide), or NULL. */
static grove_status new_dataset(svm_ctx *c, size_t n_features, int sparse, size_t nnz,
                                const uint32_t *ids, size_t n_columns)
{
    grove_schema *schema = c->follow ? gv_schema_copy(c->follow) : gv_schema_new(n_features);
    if (schema && !c->follow) {
        gv_free(schema->label_name);
        schema->label_name = gv_strdup("label");
        int bad = !schema->label_name;
        if (!bad && ids) {
            /* feature f is index ids[f] + 1 (zero-based: ids[f]), named by it */
            bad = gv_schema_set_ids(schema, ids, n_columns) != 0;
            for (size_t f = 0; f < n_features && !bad; f++) {
                char name[32];
                snprintf(name, sizeof name, "f%lu",
                         (unsigned long)ids[f] + (c->zero_based ? 0ul : 1ul));
                gv_free(schema->feature_names[f]);
                bad = !(schema->feature_names[f] = gv_strdup(name));
            }
        } else if (!bad) {
            bad = gv_schema_name_features(schema, "f", c->zero_based ? 0 : 1) != 0;
        }
        if (bad) {
            gv_schema_free(schema);
            schema = NULL;
        }
    }
    if (!schema) return gv_err_nomem("the schema");
    c->ds = sparse ? gv_dataset_new_sparse(schema, c->n_rows, nnz, c->absent_missing ? NAN : 0.0f, 0)
                   : gv_dataset_new(schema, c->n_rows, 0);
    if (!c->ds) {
        char what[112];
        if (sparse)
            snprintf(what, sizeof what, "the sparse dataset (%zu rows, %zu values)", c->n_rows,
                     nnz);
        else
            snprintf(what, sizeof what, "the dataset (%zu rows x %zu features)", c->n_rows,
                     n_features);
        return gv_err_nomem(what);
    }
    gv_free(c->ds->source);
    c->ds->source = gv_strdup(c->path);
    if (!c->ds->source) return gv_err_nomem("the dataset");
    if (!c->absent_missing && c->ds->values) {
        size_t n_values = c->n_rows * n_features; /* checked by gv_dataset_new */
        memset(c->ds->values, 0, n_values * sizeof *c->ds->values);
    }
    return GROVE_OK;
}

static grove_status csr_arrays(svm_ctx *c, size_t nnz)
{
    c->csr_col = gv_malloc_array(nnz, sizeof *c->csr_col);
    c->csr_val = gv_malloc_array(nnz, sizeof *c->csr_val);
    if (c->csr_col && c->csr_val) return GROVE_OK;
    char what[112];
    snprintf(what, sizeof what, "the sparse dataset (%zu rows, %zu values)", c->n_rows, nnz);
    return gv_err_nomem(what);
}

/* The dataset from the first pass's counts.  A file that follows no schema and stores at most
 * 1/GV_SPARSE_DENSITY of its rows x largest index cells has compact features: its values are
 * read into compressed rows by column, the columns that hold a value become the features (the
 * schema's feature_ids), and the rows are stored by those -- sparse, unless the test hook
 * forces the dense layout -- so neither memory nor time depends on the largest index.  Else
 * every column up to the largest index (or the schema's) is a feature, stored by the layout
 * of the density (or the hook), and the second pass writes into it. */
static grove_status load_values(svm_ctx *c, int n_threads, size_t width, svm_worker *result)
{
    size_t nnz = 0, cells;
    for (size_t i = 0; i < c->n_rows; i++) {
        size_t k = c->row_nnz[i];
        c->row_nnz[i] = nnz;
        nnz += k;
    }
    c->row_nnz[c->n_rows] = nnz;
    int few = gv_mul_size(c->n_rows, width, &cells) != 0 || nnz <= cells / GV_SPARSE_DENSITY;
    int sparse = layout_force ? layout_force == 2 : few;
    if (c->n_rows > GV_SPARSE_MAX_ROWS) sparse = 0;
    grove_status st;
    c->pass2 = 1;
    if (!c->follow && few) {
        if ((st = csr_arrays(c, nnz)) != GROVE_OK ||
            (st = parse_rows(c, n_threads, result)) != GROVE_OK)
            return st;
        uint32_t *ids;
        size_t n_ids;
        if (gv_distinct_ids(c->csr_col, nnz, width, &ids, &n_ids) != 0)
            return gv_err_nomem("the feature columns");
        /* no value stored at all ("1 10000000:0", found by fuzz_libsvm): the largest column
         * named is the one feature, all zeros, rather than every column up to it */
        uint32_t last = width ? (uint32_t)(width - 1) : 0;
        const uint32_t *use = n_ids ? ids : &last;
        size_t n_use = n_ids ? n_ids : (width ? 1 : 0);
        int compact = n_use > 0 && n_use < width;
        if (compact && gv_remap_ids(c->csr_col, nnz, use, n_use, width) != 0) {
            gv_free(ids);
            return gv_err_nomem("the feature columns");
        }
        st = new_dataset(c, compact ? n_use : width, sparse, nnz, compact ? use : NULL, width);
        gv_free(ids);
        if (st != GROVE_OK) return st;
        if (!sparse) {
            grove_dataset *d = c->ds;
            for (size_t i = 0; i < c->n_rows; i++)
                for (size_t k = c->row_nnz[i]; k < c->row_nnz[i + 1]; k++)
                    d->values[(size_t)c->csr_col[k] * c->n_rows + i] = c->csr_val[k];
            return GROVE_OK;
        }
    } else {
        if ((st = new_dataset(c, width, sparse, nnz, NULL, 0)) != GROVE_OK ||
            (sparse && (st = csr_arrays(c, nnz)) != GROVE_OK) ||
            (st = parse_rows(c, n_threads, result)) != GROVE_OK)
            return st;
        if (!sparse) return GROVE_OK;
    }
    if (gv_dataset_fill_csr(c->ds, c->row_nnz, c->csr_col, c->csr_val) != 0)
        return gv_err_nomem("the sparse dataset's columns");
    return GROVE_OK;
}

grove_status gv_parse_libsvm(const char *path, const char *buf, size_t len,
                             const grove_params *params, const grove_schema *schema,
                             grove_dataset **out)
{
    *out = NULL;
    svm_ctx c;
    memset(&c, 0, sizeof c);
    c.path = path;
    c.text = buf;
    c.follow = schema;
    c.absent_missing = gv_param_int(params, GV_P_LIBSVM_ABSENT) == GV_ABSENT_MISSING;
    int n_threads = gv_threads((int)gv_param_int(params, GV_P_THREADS));
    svm_worker result;
    grove_status st = GROVE_OK;

    const char *nul = memchr(buf, '\0', len);
    if (nul) {
        const char *ls = nul;
        size_t token = 0;
        int in_token = 0;
        while (ls > buf && ls[-1] != '\n') ls--;
        for (const char *q = ls; q <= nul; q++) {
            if (!is_blank(*q) && !in_token) token++;
            in_token = !is_blank(*q);
        }
        st = gv_err(GROVE_ERR_PARSE, "%s:%zu:%zu: expected text, found a NUL byte (binary file?)",
                    path, gv_line_of(buf, nul), token);
        goto done;
    }
    if ((st = find_rows(&c, buf, buf + len)) != GROVE_OK) goto done;
    if (c.n_rows == 0) {
        const char *last = len > 0 && buf[len - 1] == '\n' ? buf + len - 1 : buf + len;
        st = gv_err(GROVE_ERR_PARSE, "%s:%zu: expected at least one data row, found none", path,
                    gv_line_of(buf, last));
        goto done;
    }
    /* zero-based: an index 0 in this file, or a model trained on a zero-based file (its first
     * feature is "f0") */
    const char *zero = find_index_zero(&c);
    c.zero_based = zero || (schema && schema_zero_based(schema));
    c.labels = gv_malloc_array(c.n_rows, sizeof *c.labels);
    if (!c.labels) {
        st = gv_err_nomem("the labels");
        goto done;
    }
    c.row_nnz = gv_malloc_array(c.n_rows + 1, sizeof *c.row_nnz);
    if (!c.row_nnz) {
        st = gv_err_nomem("the row index");
        goto done;
    }
    c.qid = gv_malloc_array(c.n_rows, sizeof *c.qid);
    if (!c.qid) {
        st = gv_err_nomem("the query ids");
        goto done;
    }
    for (size_t i = 0; i < c.n_rows; i++) c.qid[i] = NAN;
    /* validate, size and count, then fill */
    if ((st = parse_rows(&c, n_threads, &result)) != GROVE_OK) goto done;
    if (!schema && result.max_index == 0) {
        st = gv_err(GROVE_ERR_DATA, "%s:1: expected at least one index:value feature, "
                    "found only labels", path);
        goto done;
    }
    if ((st = load_values(&c, n_threads, schema ? schema->n_features : result.max_index,
                          &result)) != GROVE_OK)
        goto done;
    size_t n_qid = 0, no_qid = SIZE_MAX;
    for (size_t i = 0; i < c.n_rows; i++) {
        if (!isnan(c.qid[i])) n_qid++;
        else if (no_qid == SIZE_MAX) no_qid = i;
    }
    if (n_qid == c.n_rows) { /* query groups */
        size_t bad = 0;
        int r = gv_dataset_set_queries(c.ds, c.qid, c.n_rows, &bad);
        if (r < 0) {
            st = gv_err_nomem("the query groups");
            goto done;
        }
        if (r > 0) {
            st = gv_err(GROVE_ERR_DATA, "%s:%zu: qid:%.0f comes back after rows of other queries "
                        "(the rows of a query must be contiguous)", path,
                        gv_line_of(buf, c.rec[2 * bad]), c.qid[bad]);
            goto done;
        }
    } else if (n_qid &&
               (st = gv_dataset_warn(c.ds, "note: %s: qid:n tokens ignored (no query groups): "
                                     "line %zu has none", path, gv_line_of(buf, c.rec[2 * no_qid]))) != GROVE_OK) {
        goto done;
    }
    if (zero &&
        (st = gv_dataset_warn(c.ds, "note: %s: feature indices are zero-based (index 0 on line "
                              "%zu), as scikit-learn's dump_svmlight_file writes them: index i is "
                              "feature f%s", path, gv_line_of(buf, zero), "<i>")) != GROVE_OK)
        goto done;
    if (schema && result.n_ignored &&
        (st = gv_dataset_warn(c.ds, "%s: %zu value%s of features beyond the schema's %zu ignored "
                              "(first: line %zu, index %zu)",
                              path, result.n_ignored, result.n_ignored == 1 ? "" : "s",
                              gv_schema_width(schema), gv_line_of(buf, result.ignored_at),
                              result.ignored_index - (size_t)c.zero_based)) != GROVE_OK)
        goto done;
    if (!schema) {
        st = gv_labels_infer_numeric(c.labels, c.n_rows, gv_param_task(params),
                                     c.ds->schema);
        if (st != GROVE_OK) goto done;
    }
    if (result.n_bad_labels) {
        char found[96];
        const char *e = result.bad_label_at;
        while (*e && *e != ' ' && *e != '\t' && *e != '\r' && *e != '\n') e++;
        gv_excerpt(result.bad_label_at, (size_t)(e - result.bad_label_at), found, sizeof found);
        st = gv_dataset_warn(c.ds, "note: %s: the labels are ignored: %zu row%s without a usable "
                             "label (first: line %zu: %s)", path, result.n_bad_labels,
                             result.n_bad_labels == 1 ? "" : "s",
                             gv_line_of(buf, result.bad_label_at), found);
        if (st != GROVE_OK) goto done;
    } else {
        c.ds->labels = c.labels;
        c.labels = NULL;
    }
    *out = c.ds;
    c.ds = NULL;
done:
    gv_free(c.rec);
    gv_free(c.labels);
    gv_free(c.row_nnz);
    gv_free(c.csr_col);
    gv_free(c.csr_val);
    gv_free(c.qid);
    grove_dataset_free(c.ds);
    return st;
}
