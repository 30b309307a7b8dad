/*
 * csv.c -- the CSV loader: a header row, then one record per row (RFC 4180).
 *
 * Pipeline position: data/ (file text -> grove_dataset), called by grove_dataset_load().
 *
 * Syntax.  Fields are separated by commas, or by parameter "sep", or (sep=auto) by ';' or tabs
 * when the header line holds more of those than commas (a notice says so); records end at LF or
 * CRLF.  A header ending in a separator ("a,b,") has no last column: rows may end with the
 * separator or not, and a row that closes with one extra separator is read as if it did not.  A field may be quoted
 * ("a, b", with "" for a quote and newlines allowed inside); blanks (space, tab) around a field
 * and around the quotes are dropped; a quote anywhere else in an unquoted field is an error.
 * A UTF-8 byte-order mark is skipped, empty lines are skipped, a NUL byte is an error (binary
 * file).  Missing values: an empty field, NA, ?, NaN, and the infinities inf, -inf, infinity
 * (any case; quoted or not).  Numbers are decimal (numparse.c: no hex); a feature is stored as the float nearest to the
 * double strtod() reads, and a value beyond the float range is an error, not an infinity.
 * A missing label is an error (with a schema too); so is a missing or negative weight.
 *
 * Locations in messages are `path:line:field`: the 1-based line of the file where the field
 * starts (a quoted field may span lines) and the 1-based field number within its record, e.g.
 * `train.csv:12:7: expected a number for feature 'x', found "abc"` is the 7th field of line 12.
 *
 * Columns.  The label column is parameter "label" (a column name, else a 0-based index), by
 * default the column named "label", else the first column (a notice names it); "weight" names a
 * column of non-negative sample weights; "ignore" drops columns; "categorical" forces columns to
 * be categorical, "numeric" to be numeric (text in them is missing, counted in a warning).
 * Without a schema every other column is a feature: categorical when any of its values is
 * non-numeric and non-missing (categories = its distinct strings in byte order, so codes do not
 * depend on row order), numeric otherwise; a column that also holds numbers gets a warning with
 * the count and the first offending line (one "abc" among numbers is usually a typo).  With a schema, features are found by
 * name (extra columns are ignored, "categorical"/"ignore" do not apply), categories map through
 * the schema (an unseen one becomes missing and is counted in the dataset's warning), and the
 * label column (param "label", else the schema's label name, else "label") is optional: when
 * one of its values is missing, out of range or not a known class, the dataset has no labels
 * and a notice says why (prediction needs none; evaluation then fails by name).
 *
 * How (1M x 28 numbers, 250 MB, load in ~0.4 s on 2 cores; bench/load/run.sh):
 *   1. the whole file is in memory; one sequential memchr() scan finds each record's
 *      [start, end), stepping over quoted sections and checking where quotes stand (so quote
 *      errors are reported first, in file order, before any check of step 2);
 *   2. rows are parsed in parallel over fixed blocks of rows (gv_parse_rows, input.c, the
 *      pass libsvm.c uses too): numbers go straight
 *      into the column-major float matrix (a numeric field is tokenized and parsed in one pass
 *      when the fast path applies), labels and weights into their arrays; a column that meets
 *      text is only flagged; errors are kept per thread and the one of the lowest row wins, so
 *      the message never depends on the number of threads;
 *   3. without a schema, a sequential pass gives the flagged columns (and text labels) their
 *      category codes: strings are collected in a dictionary, sorted, and the codes renumbered.
 * A mapped file's pages go back to the kernel behind each pass (gv_text_release: the NUL scan
 * and step 1 every gv_text_release_step() bytes (32 MiB), step 2 per block of rows, step 3
 * likewise), so
 * the text is never all resident: a 10M-row CSV's peak memory is its columns, not its bytes.
 * Invariant: on any failure nothing is returned and everything allocated is freed.
 */
#include "dataset.h"

#include "../core/params.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_CATEGORIES 16777216 /* codes are stored as float: exact up to 2^24 */

/* ---- records and fields ---- */

typedef struct csv_field {
    const char *p;          /* first byte of the content (inside the quotes when quoted) */
    size_t len;             /* length of the content as written (quotes still doubled) */
    unsigned char escaped;  /* the content holds "" pairs to be undoubled */
    unsigned char parsed;   /* `number` holds the field's value (tokenizer's fast path) */
    double number;
} csv_field;

/* Blanks around fields: space and tab, unless tab is the separator. */
static int is_blank(char ch, char sep) { return (ch == ' ' || ch == '\t') && ch != sep; }

/* An unquoted field of 1 to 9 digits and nothing else at s (up to e or the separator): its
 * value (exact, as gv_scan_decimal reads it) parsed into *f; 0 when s holds anything else. */
static inline int small_int(const char *s, const char *e, char sep, csv_field *f)
{
    const char *q = s;
    uint32_t v = 0;
    while (q < e && (unsigned)(*q - '0') < 10 && q - s < 9) v = v * 10 + (uint32_t)(*q++ - '0');
    if (q == s || (q < e && *q != sep)) return 0;
    f->p = s;
    f->len = (size_t)(q - s);
    f->escaped = 0;
    f->parsed = 1;
    f->number = (double)v;
    return 1;
}

/* Splits the record text[s, e) into fields: stores the first `cap` in f[] and returns how many
 * there are.  The record's quotes were validated by find_records().  When numeric[k] is set,
 * an unquoted field k that is exactly a fast-path number is parsed on the way (one pass over
 * its bytes instead of three: the hot loop of a numeric CSV). */
static size_t split_record(const char *s, const char *e, csv_field *f, size_t cap,
                           const unsigned char *numeric, char sep)
{
    size_t k = 0;
    csv_field spare;
    for (;;) {
        /* filled in place: a field built aside and copied was read back (16-byte loads) right
         * after its narrower stores, a store-forwarding stall per field */
        csv_field *cur = k < cap ? &f[k] : &spare;
        while (s < e && is_blank(*s, sep)) s++;
        if (s < e && *s == '"') {
            const char *q = s + 1;
            cur->p = q;
            cur->escaped = 0;
            cur->parsed = 0;
            for (;;) {
                const char *close = memchr(q, '"', (size_t)(e - q));
                if (!close) { /* unreachable after find_records; keep the bytes as they are */
                    q = e;
                    break;
                }
                q = close;
                if (q + 1 < e && q[1] == '"') {
                    cur->escaped = 1;
                    q += 2;
                    continue;
                }
                break;
            }
            cur->len = (size_t)(q - cur->p);
            s = q < e ? q + 1 : e;
            while (s < e && *s != sep) s++; /* only blanks, after find_records */
        } else if (numeric && k < cap && numeric[k] && small_int(s, e, sep, cur)) {
            s += cur->len; /* (pixels, counts, codes: a few digits, in line) */
        } else if (numeric && k < cap && numeric[k] &&
                   (cur->p = gv_scan_decimal(s, e, &cur->number)) != NULL &&
                   (cur->p == e || *cur->p == sep)) {
            cur->len = (size_t)(cur->p - s);
            cur->p = s;
            cur->escaped = 0;
            cur->parsed = 1;
            s += cur->len;
        } else {
            const char *start = s;
            const char *comma = s < e ? memchr(s, sep, (size_t)(e - s)) : NULL;
            s = comma ? comma : e;
            const char *t = s;
            while (t > start && is_blank(t[-1], sep)) t--;
            cur->p = start;
            cur->len = (size_t)(t - start);
            cur->escaped = 0;
            cur->parsed = 0;
        }
        k++;
        if (s >= e) return k;
        s++; /* the separator */
    }
}

/* The 1-based number of the field of record `rs` that contains position `at`. */
static size_t field_number(const char *rs, const char *at, char sep)
{
    size_t k = 1;
    int quoted = 0;
    for (const char *p = rs; p < at; p++) {
        if (*p == '"') quoted = !quoted;
        else if (*p == sep && !quoted) k++;
    }
    return k;
}

/* The content of a field with "" undoubled: f->p itself when nothing is doubled, else a copy in
 * `scratch`.  NULL when out of memory. */
static const char *field_text(const csv_field *f, gv_buf *scratch, size_t *len)
{
    if (!f->escaped) {
        *len = f->len;
        return f->p;
    }
    scratch->len = 0;
    if (gv_buf_reserve(scratch, f->len) != 0) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < f->len; i++) {
        scratch->data[o++] = f->p[i];
        if (f->p[i] == '"') i++; /* skip the second quote of a pair */
    }
    scratch->data[o] = '\0';
    scratch->len = o;
    *len = o;
    return scratch->data;
}

/* ---- the loader's state ---- */

enum { COL_SKIP = 0, COL_NUMERIC, COL_CATEGORICAL, COL_LABEL, COL_WEIGHT, COL_GROUP };

typedef struct csv_column {
    unsigned char role; /* COL_* */
    size_t feature;     /* COL_NUMERIC / COL_CATEGORICAL: the feature index */
} csv_column;

/* What each thread owns during the parallel pass (slot omp_get_thread_num()). */
typedef struct csv_worker {
    csv_field *fields;         /* [n_cols] */
    unsigned char *text_seen;  /* [n_cols]: a non-numeric, non-missing value was seen */
    gv_buf scratch;            /* undoubled quoted text */
    gv_row_error err;
    size_t n_unseen;           /* values of categories the schema does not know */
    size_t unseen_row;         /* the first of them (SIZE_MAX: none) */
    size_t unseen_col;
    const char *unseen_at;
    char unseen_text[80];
    size_t n_bad_labels;       /* following a schema: labels that are missing or unknown */
    size_t bad_label_row;      /* the first of them (SIZE_MAX: none) */
    const char *bad_label_at;
    char bad_label_text[80];
    size_t n_trailing;         /* "a,b," headers: rows with a value in the unnamed last column */
    const char *trailing_at;   /* the first of them */
} csv_worker;

typedef struct csv_ctx {
    const char *path, *text;
    int mapped;                /* text is a mapped file: passes release what they are done with */
    char sep;                  /* the field separator: ',', ';', '\t' or parameter "sep" */
    char decimal;              /* the decimal mark: '.' or ',' (parameter "decimal") */
    const char *header_start, *header_end;
    size_t n_cols;
    char **names;              /* [n_cols] column names, owned */
    gv_dict header;            /* name -> column index */
    csv_column *cols;          /* [n_cols] */
    unsigned char *numeric;    /* [n_cols]: numbers expected (numeric feature, label, weight) */
    const char **rec;          /* [2 * n_rows]: start and end of each data record */
    size_t n_rows, rec_cap;
    const grove_schema *follow; /* borrowed; NULL = infer */
    int task_param;
    long label_col, weight_col; /* -1: none */
    long group_col;            /* parameter "group": the query ids, or -1 */
    double *qid;               /* [n_rows] with group_col */
    int label_guessed;         /* no "label" parameter and no column named label: the first */
    int trailing_empty;        /* the header ends with an empty, unnamed field ("a,b,") */
    unsigned char *force_numeric; /* [n_cols]: parameter "numeric" */
    grove_dataset *ds;         /* being built, owned until returned */
} csv_ctx;

static void ctx_free(csv_ctx *c)
{
    for (size_t k = 0; c->names && k < c->n_cols; k++) gv_free(c->names[k]);
    gv_free(c->names);
    gv_dict_free(&c->header);
    gv_free(c->cols);
    gv_free(c->numeric);
    gv_free(c->force_numeric);
    gv_free(c->rec);
    gv_free(c->qid);
    grove_dataset_free(c->ds);
}

/* A sequential pass at p: hands back the mapped text from *done up to p once
 * gv_text_release_step() bytes have piled up. */
static void release_behind(const csv_ctx *c, const char **done, const char *p)
{
    if (c->mapped && (size_t)(p - *done) >= gv_text_release_step()) {
        gv_text_release(*done, p);
        *done = p;
    }
}

/* ---- step 1: records ---- */

static grove_status push_record(csv_ctx *c, const char *rs, const char *re)
{
    if (2 * c->n_rows + 2 > c->rec_cap) {
        size_t cap = c->rec_cap ? 2 * c->rec_cap : 2048;
        const char **r = gv_realloc_array(c->rec, cap, sizeof *r);
        if (!r) return gv_err_nomem("the record index");
        c->rec = r;
        c->rec_cap = cap;
    }
    c->rec[2 * c->n_rows] = rs;
    c->rec[2 * c->n_rows + 1] = re;
    c->n_rows++;
    return GROVE_OK;
}

/* 1 when the quote at q opens a field of record rs: only blanks since the last comma. */
static int opens_field(const char *rs, const char *q, char sep)
{
    while (q > rs && is_blank(q[-1], sep)) q--;
    return q == rs || q[-1] == sep;
}

/* The bytes of the field around position `at`, up to the next comma or line end (for an
 * excerpt in a message). */
static size_t rest_of_field(const char *at, const char *end, char sep)
{
    const char *e = at;
    while (e < end && *e != sep && *e != '\n' && *e != '\r') e++;
    return (size_t)(e - at);
}

/* Finds the header and every data record of text[p, end).  A record ends at the first newline
 * outside quotes.  Quotes are checked here, where the record boundaries depend on them: a quote
 * must open a field (after a comma and blanks) and its closing quote must be followed by blanks
 * and a comma or the end of the line; so a stray quote is reported on its own line instead of
 * swallowing the lines after it. */
static grove_status find_records(csv_ctx *c, const char *p, const char *end)
{
    char found[96];
    const char *released = p;
    while (p < end) {
        release_behind(c, &released, p);
        const char *rs = p, *scan = p;
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) nl = end;
        for (;;) {
            const char *q = memchr(scan, '"', (size_t)(nl - scan));
            if (!q) break;
            if (!opens_field(rs, q, c->sep)) {
                const char *fs = q;
                while (fs > rs && fs[-1] != c->sep) fs--;
                gv_excerpt(fs, rest_of_field(fs, end, c->sep), found, sizeof found);
                return gv_err(GROVE_ERR_PARSE,
                              "%s:%zu:%zu: expected '\"' only around a whole field, found %s",
                              c->path, gv_line_of(c->text, q), field_number(rs, q, c->sep), found);
            }
            const char *close = q + 1;
            for (;;) {
                close = memchr(close, '"', (size_t)(end - close));
                if (!close || close + 1 >= end || close[1] != '"') break;
                close += 2; /* a doubled quote inside the field */
            }
            if (!close) {
                gv_excerpt(q, (size_t)(end - q), found, sizeof found);
                return gv_err(GROVE_ERR_PARSE,
                              "%s:%zu:%zu: expected a closing '\"' for the quoted field %s, "
                              "found the end of the file",
                              c->path, gv_line_of(c->text, q), field_number(rs, q, c->sep), found);
            }
            scan = close + 1;
            const char *t = scan;
            while (t < end && is_blank(*t, c->sep)) t++;
            int ok = t == end || *t == c->sep || *t == '\n' ||
                     (*t == '\r' && (t + 1 == end || t[1] == '\n'));
            if (!ok) {
                gv_excerpt(t, rest_of_field(t, end, c->sep), found, sizeof found);
                return gv_err(GROVE_ERR_PARSE,
                              "%s:%zu:%zu: expected %s after a closing '\"', found %s", c->path,
                              gv_line_of(c->text, t), field_number(rs, q, c->sep),
                              c->sep == '\t' ? "a tab" : c->sep == ',' ? "','" : "the separator",
                              found);
            }
            if (close >= nl) { /* the quotes held a newline: the record goes on */
                nl = memchr(scan, '\n', (size_t)(end - scan));
                if (!nl) nl = end;
            }
        }
        const char *re = nl;
        if (re > rs && re[-1] == '\r') re--;
        p = nl < end ? nl + 1 : end;
        if (re == rs) continue; /* empty line */
        if (!c->header_start) {
            c->header_start = rs;
            c->header_end = re;
            continue;
        }
        grove_status st = push_record(c, rs, re);
        if (st != GROVE_OK) return st;
    }
    return GROVE_OK;
}

/* ---- the header and the columns' roles ---- */

static grove_status read_header(csv_ctx *c)
{
    size_t n = split_record(c->header_start, c->header_end, NULL, 0, NULL, c->sep);
    csv_field *f = gv_malloc_array(n, sizeof *f);
    c->names = gv_calloc(n, sizeof *c->names);
    c->cols = gv_calloc(n, sizeof *c->cols);
    if (!f || !c->names || !c->cols) {
        gv_free(f);
        return gv_err_nomem("the header");
    }
    c->n_cols = n;
    split_record(c->header_start, c->header_end, f, n, NULL, c->sep);
    gv_buf scratch = {0};
    grove_status st = GROVE_OK;
    for (size_t k = 0; k < n && st == GROVE_OK; k++) {
        size_t len;
        const char *name = field_text(&f[k], &scratch, &len);
        char generated[40];
        if (name && len == 0 && k + 1 == n && k > 0 && !f[k].escaped &&
            f[k].p >= c->header_end) {
            /* "a,b,": a separator closing the header line, not a column (rows may end with
             * one too, or not) */
            c->trailing_empty = 1;
        }
        if (name && len == 0) { /* e.g. the unnamed index column pandas writes */
            len = (size_t)snprintf(generated, sizeof generated, "column_%zu", k + 1);
            name = generated;
        }
        if (!name || !(c->names[k] = gv_strndup(name, len))) {
            st = gv_err_nomem("the column names");
            break;
        }
        long seen = gv_dict_find(&c->header, name, len);
        if (seen >= 0) {
            char found[96];
            gv_excerpt(name, len, found, sizeof found);
            st = gv_err(GROVE_ERR_PARSE,
                        "%s:%zu:%zu: expected unique column names, found %s again (field %ld)",
                        c->path, gv_line_of(c->text, f[k].p), k + 1, found, seen + 1);
        } else if (gv_dict_add(&c->header, name, len) < 0) {
            st = gv_err_nomem("the column names");
        }
    }
    gv_buf_free(&scratch);
    gv_free(f);
    return st;
}

/* The column named spec[0..len) (a header name first, else a 0-based index), or -1. */
static long find_column(const csv_ctx *c, const char *spec, size_t len)
{
    long k = gv_dict_find(&c->header, spec, len);
    if (k >= 0) return k;
    int64_t index;
    if (gv_parse_int64(spec, len, &index) == 0 && index >= 0 && (uint64_t)index < c->n_cols)
        return (long)index;
    return -1;
}

static grove_status no_column(const csv_ctx *c, const char *param, const char *spec,
                              size_t len)
{
    char found[96];
    gv_excerpt(spec, len, found, sizeof found);
    const char *near = gv_suggest(spec, len, (const char *const *)c->names, c->n_cols);
    return gv_err(GROVE_ERR_DATA,
                  "%s:%zu: parameter %s: expected a column name or 0-based index, found %s "
                  "(the header has %zu columns%s%s%s)",
                  c->path, gv_line_of(c->text, c->header_start), param, found, c->n_cols,
                  near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
}

/* Sets role `role` on every column listed in parameter `id` (comma-separated) that is still a
 * feature column. */
static grove_status mark_columns(csv_ctx *c, const grove_params *params, gv_param_id id, int role)
{
    const char *list = gv_param_str(params, id);
    for (const char *s = list; *s;) {
        const char *comma = strchr(s, ',');
        const char *e = comma ? comma : s + strlen(s), *t = e;
        while (s < e && is_blank(*s, ',')) s++;
        while (t > s && is_blank(t[-1], ',')) t--;
        if (t > s) {
            long k = find_column(c, s, (size_t)(t - s));
            if (k < 0) return no_column(c, gv_param_name(id), s, (size_t)(t - s));
            if (c->cols[k].role == COL_NUMERIC || c->cols[k].role == COL_CATEGORICAL)
                c->cols[k].role = (unsigned char)role;
        }
        s = comma ? comma + 1 : e;
    }
    return GROVE_OK;
}

/* Parameter `id` (label or weight) as a column: -1 when unset, else the column or an error. */
static grove_status param_column(const csv_ctx *c, const grove_params *params, gv_param_id id,
                                 long *col)
{
    const char *spec = gv_param_str(params, id);
    *col = -1;
    if (!*spec) return GROVE_OK;
    *col = find_column(c, spec, strlen(spec));
    if (*col < 0) return no_column(c, gv_param_name(id), spec, strlen(spec));
    return GROVE_OK;
}

static grove_status assign_roles(csv_ctx *c, const grove_params *params)
{
    grove_status st;
    if ((st = param_column(c, params, GV_P_LABEL, &c->label_col)) != GROVE_OK) return st;
    if ((st = param_column(c, params, GV_P_WEIGHT, &c->weight_col)) != GROVE_OK) return st;
    if ((st = param_column(c, params, GV_P_GROUP, &c->group_col)) != GROVE_OK) return st;
    size_t header_line = gv_line_of(c->text, c->header_start);
    if (c->group_col >= 0 && (c->group_col == c->weight_col || c->group_col == c->label_col))
        return gv_err(GROVE_ERR_DATA, "%s:%zu: expected the group column '%s' to be neither the "
                      "label nor the weight", c->path, header_line, c->names[c->group_col]);

    if (!c->follow) {
        if (c->label_col < 0) {
            long k = gv_dict_find(&c->header, "label", 5);
            c->label_col = k >= 0 && k != c->weight_col ? k : 0;
            c->label_guessed = !(k >= 0 && k != c->weight_col);
        }
        if (c->label_col == c->weight_col)
            return gv_err(GROVE_ERR_DATA, "%s:%zu: expected different label and weight columns, "
                          "found '%s' for both", c->path, header_line, c->names[c->label_col]);
        for (size_t k = 0; k < c->n_cols; k++) c->cols[k].role = COL_NUMERIC;
        c->cols[c->label_col].role = COL_LABEL;
        if (c->weight_col >= 0) c->cols[c->weight_col].role = COL_WEIGHT;
        if (c->group_col >= 0) c->cols[c->group_col].role = COL_GROUP;
        if (c->trailing_empty && c->cols[c->n_cols - 1].role == COL_NUMERIC)
            c->cols[c->n_cols - 1].role = COL_SKIP;
        if ((st = mark_columns(c, params, GV_P_IGNORE, COL_SKIP)) != GROVE_OK) return st;
        /* "numeric" columns stay numeric whatever they hold (marked COL_SKIP for a moment to
         * find them; a column named in both lists is categorical) */
        for (size_t k = 0; k < c->n_cols; k++)
            if (c->cols[k].role == COL_NUMERIC) c->cols[k].feature = 1;
        if ((st = mark_columns(c, params, GV_P_NUMERIC, COL_SKIP)) != GROVE_OK) return st;
        c->force_numeric = gv_calloc(c->n_cols, 1);
        if (!c->force_numeric) return gv_err_nomem("the column flags");
        for (size_t k = 0; k < c->n_cols; k++)
            if (c->cols[k].role == COL_SKIP && c->cols[k].feature == 1) {
                c->cols[k].role = COL_NUMERIC;
                c->force_numeric[k] = 1;
            }
        if ((st = mark_columns(c, params, GV_P_CATEGORICAL, COL_CATEGORICAL)) != GROVE_OK)
            return st;
        for (size_t k = 0; k < c->n_cols; k++)
            if (c->cols[k].role != COL_NUMERIC) c->force_numeric[k] = 0;
        size_t n_features = 0;
        for (size_t k = 0; k < c->n_cols; k++)
            if (c->cols[k].role == COL_NUMERIC || c->cols[k].role == COL_CATEGORICAL)
                c->cols[k].feature = n_features++;
        if (n_features == 0)
            return gv_err(GROVE_ERR_DATA,
                          "%s:%zu: expected at least one feature column besides the label '%s', "
                          "found none", c->path, header_line, c->names[c->label_col]);
        return GROVE_OK;
    }

    /* Following a schema: features by name, the label if present. */
    const grove_schema *s = c->follow;
    for (size_t f = 0; f < s->n_features; f++) {
        const char *name = s->feature_names[f];
        long k = gv_dict_find(&c->header, name, strlen(name));
        if (k < 0)
            return gv_err(GROVE_ERR_DATA, "%s:%zu: expected a column for feature '%s', found none",
                          c->path, header_line, name);
        c->cols[k].role = s->is_categorical[f] ? COL_CATEGORICAL : COL_NUMERIC;
        c->cols[k].feature = f;
    }
    if (c->label_col < 0 && s->label_name[0])
        c->label_col = gv_dict_find(&c->header, s->label_name, strlen(s->label_name));
    if (c->label_col < 0) {
        long k = gv_dict_find(&c->header, "label", 5);
        if (k >= 0 && c->cols[k].role == COL_SKIP && k != c->weight_col) c->label_col = k;
    }
    if (c->label_col >= 0 && c->cols[c->label_col].role != COL_SKIP)
        return gv_err(GROVE_ERR_DATA, "%s:%zu: expected the label column '%s' not to be a "
                      "feature, found it among the features", c->path, header_line,
                      c->names[c->label_col]);
    if (c->label_col >= 0) c->cols[c->label_col].role = COL_LABEL;
    if (c->weight_col >= 0) {
        if (c->cols[c->weight_col].role != COL_SKIP)
            return gv_err(GROVE_ERR_DATA, "%s:%zu: expected the weight column '%s' to be neither "
                          "a feature nor the label", c->path, header_line,
                          c->names[c->weight_col]);
        c->cols[c->weight_col].role = COL_WEIGHT;
    }
    if (c->group_col >= 0) {
        if (c->cols[c->group_col].role != COL_SKIP)
            return gv_err(GROVE_ERR_DATA, "%s:%zu: expected the group column '%s' to be neither "
                          "a feature nor the label", c->path, header_line,
                          c->names[c->group_col]);
        c->cols[c->group_col].role = COL_GROUP;
    }
    return GROVE_OK;
}

/* ---- step 2: the parallel pass ---- */

/* Following a schema (prediction, evaluation), the label column is optional, and so is each of
 * its values: a missing label ('?', NA, empty), one out of range, a class the model does not
 * know or text for a regression target makes the dataset label-less (counted, with the first,
 * in the warning; gv_parse_csv drops the labels) instead of failing, so predict reads what
 * train wrote.  1 when f is such a value (recorded in w). */
static int label_unusable(const csv_ctx *c, const csv_field *f, int r, int missing,
                          csv_worker *w)
{
    int bad = missing || r == GV_NUM_RANGE ||
              (c->follow->task == GROVE_REGRESSION && r != GV_NUM_OK);
    if (!bad && c->follow->task == GROVE_CLASSIFICATION) {
        size_t len;
        const char *s = field_text(f, &w->scratch, &len);
        bad = s && gv_labels_class_of_text(c->follow, s, len) < 0;
    }
    if (!bad) return 0;
    if (w->n_bad_labels++ == 0 || f->p < w->bad_label_at) {
        w->bad_label_at = f->p;
        if (f->len)
            gv_excerpt(f->p, f->len, w->bad_label_text, sizeof w->bad_label_text);
        else
            snprintf(w->bad_label_text, sizeof w->bad_label_text, "an empty field");
    }
    return 1;
}

/* Parses data row i into the dataset; 0 ok, -1 error recorded in w. */
/* A number field under the decimal mark c->decimal: with ',' the field's one comma is read as
 * the point ("3,14" is 3.14) and a field holding a '.' as well is not a number. */
static int parse_number(const csv_ctx *c, const char *p, size_t len, double *v)
{
    const char *comma = c->decimal == ',' && len ? memchr(p, ',', len) : NULL;
    if (!comma) return gv_parse_decimal(p, len, v);
    char t[64];
    if (len >= sizeof t || memchr(p, '.', len)) return GV_NUM_BAD;
    memcpy(t, p, len);
    t[comma - p] = '.';
    return gv_parse_decimal(t, len, v);
}

/* Whether a field reads as a number when ',' is the decimal mark (for the hint). */
static int comma_number(const char *p, size_t len)
{
    csv_ctx c = {0};
    c.decimal = ',';
    double v;
    return memchr(p, ',', len) && parse_number(&c, p, len, &v) == GV_NUM_OK;
}

static int parse_row(csv_ctx *c, csv_worker *w, size_t i)
{
    const char *rs = c->rec[2 * i], *re = c->rec[2 * i + 1];
    size_t n_fields = split_record(rs, re, w->fields, c->n_cols, c->numeric, c->sep);
    /* "a,b," headers: rows with or without the closing separator; and a row closed by a
     * separator (an extra empty field) under a header that is not */
    if (c->trailing_empty && n_fields == c->n_cols - 1) {
        w->fields[n_fields] = (csv_field){.p = re, .len = 0};
        n_fields = c->n_cols;
    } else if (n_fields == c->n_cols + 1 && re > rs && re[-1] == c->sep) {
        n_fields = c->n_cols;
    } else if (c->trailing_empty && n_fields == c->n_cols && w->fields[n_fields - 1].len > 0 &&
               (w->n_trailing++ == 0 || w->fields[n_fields - 1].p < w->trailing_at)) {
        w->trailing_at = w->fields[n_fields - 1].p;
    }
    if (n_fields != c->n_cols) {
        size_t k = n_fields < c->n_cols ? n_fields : c->n_cols;
        const char *at = n_fields < c->n_cols ? rs : w->fields[k - 1].p;
        gv_row_fail(&w->err, GROVE_ERR_PARSE, i, at, k + 1, "expected %zu fields, found %zu",
                    c->n_cols, n_fields);
        return -1;
    }
    grove_dataset *ds = c->ds;
    const grove_schema *schema = ds->schema;
    const size_t n_rows = ds->n_rows;
    for (size_t k = 0; k < c->n_cols; k++) {
        const csv_field *f = &w->fields[k];
        const csv_column *col = &c->cols[k];
        if (col->role == COL_SKIP) continue;
        float *value = col->role == COL_NUMERIC || col->role == COL_CATEGORICAL
                           ? &ds->values[col->feature * n_rows + i]
                           : NULL;
        double v = 0;
        int r = col->role == COL_CATEGORICAL ? GV_NUM_BAD
                : f->parsed                   ? (v = f->number, GV_NUM_OK)
                                              : parse_number(c, f->p, f->len, &v);
        if (r == GV_NUM_NOMEM) {
            gv_row_fail(&w->err, GROVE_ERR_NOMEM, i, f->p, k + 1,
                        "out of memory while reading a number");
            return -1;
        }
        int missing = r == GV_NUM_BAD && gv_is_missing_token(f->p, f->len);
        char found[96];
        switch (col->role) {
        case COL_NUMERIC: {
            float x = (float)v;
            if (r == GV_NUM_OK && !isinf(x)) {
                *value = x;
            } else if (missing) {
                *value = NAN;
            } else if (r == GV_NUM_BAD && !c->follow) {
                *value = NAN;
                w->text_seen[k] = 1; /* categorical in step 3, unless forced numeric */
            } else {
                gv_excerpt(f->p, f->len, found, sizeof found);
                gv_row_fail(&w->err, GROVE_ERR_PARSE, i, f->p, k + 1,
                         r == GV_NUM_BAD ? "expected a number for feature '%s', found %s"
                                         : "expected a number within the float range for "
                                           "feature '%s', found %s",
                         c->names[k], found);
                return -1;
            }
            break;
        }
        case COL_CATEGORICAL: {
            *value = NAN;                      /* missing or unseen */
            if (!c->follow || missing) break; /* inferred categories: step 3 */
            size_t len;
            const char *s = field_text(f, &w->scratch, &len);
            if (!s) {
                gv_row_fail(&w->err, GROVE_ERR_NOMEM, i, f->p, k + 1, "out of memory");
                return -1;
            }
            long code = gv_dict_find(&schema->categories[col->feature], s, len);
            if (code >= 0) {
                *value = (float)code;
            } else if (w->n_unseen++ == 0) {
                w->unseen_row = i;
                w->unseen_col = k;
                w->unseen_at = f->p;
                gv_excerpt(s, len, w->unseen_text, sizeof w->unseen_text);
            }
            break;
        }
        case COL_LABEL: {
            if (c->follow && label_unusable(c, f, r, missing, w)) {
                ds->labels[i] = NAN; /* kept aside as partial_labels */
                break;
            }
            if (r == GV_NUM_BAD && missing) {
                if (f->len) gv_excerpt(f->p, f->len, found, sizeof found);
                gv_row_fail(&w->err, GROVE_ERR_PARSE, i, f->p, k + 1,
                         "expected a label in column '%s', found %s", c->names[k],
                         f->len ? found : "an empty field");
                return -1;
            }
            if (r == GV_NUM_RANGE) {
                gv_excerpt(f->p, f->len, found, sizeof found);
                gv_row_fail(&w->err, GROVE_ERR_PARSE, i, f->p, k + 1,
                         "expected a label within the double range, found %s", found);
                return -1;
            }
            int regression = c->follow ? schema->task == GROVE_REGRESSION
                                       : c->task_param == GV_TASK_REGRESSION;
            if (regression && r != GV_NUM_OK) {
                gv_excerpt(f->p, f->len, found, sizeof found);
                gv_row_fail(&w->err, GROVE_ERR_PARSE, i, f->p, k + 1,
                         "expected a number for the regression target '%s', found %s",
                         c->names[k], found);
                return -1;
            }
            if (regression || (!c->follow && r == GV_NUM_OK)) {
                ds->labels[i] = v;
            } else if (!c->follow) {
                w->text_seen[k] = 1; /* text classes: step 3 */
            } else {
                size_t len;
                const char *s = field_text(f, &w->scratch, &len);
                if (!s) {
                    gv_row_fail(&w->err, GROVE_ERR_NOMEM, i, f->p, k + 1, "out of memory");
                    return -1;
                }
                long cls = gv_labels_class_of_text(schema, s, len);
                if (cls < 0) {
                    char classes[160];
                    gv_labels_list(schema, classes, sizeof classes);
                    gv_excerpt(s, len, found, sizeof found);
                    gv_row_fail(&w->err, GROVE_ERR_DATA, i, f->p, k + 1,
                             "expected one of the classes of '%s' (%s), found %s", c->names[k],
                             classes, found);
                    return -1;
                }
                ds->labels[i] = (double)cls;
            }
            break;
        }
        case COL_WEIGHT:
            if (r != GV_NUM_OK || !(v >= 0)) {
                if (f->len) gv_excerpt(f->p, f->len, found, sizeof found);
                gv_row_fail(&w->err, GROVE_ERR_PARSE, i, f->p, k + 1,
                         "expected a non-negative number for the weight '%s', found %s",
                         c->names[k], f->len ? found : "an empty field");
                return -1;
            }
            ds->weights[i] = v;
            break;
        case COL_GROUP:
            if (r != GV_NUM_OK || v != floor(v) || !(fabs(v) < 9007199254740992.0)) {
                if (f->len) gv_excerpt(f->p, f->len, found, sizeof found);
                gv_row_fail(&w->err, GROVE_ERR_PARSE, i, f->p, k + 1,
                            "expected an integer query id in the group column '%s', found %s",
                            c->names[k], f->len ? found : "an empty field");
                return -1;
            }
            c->qid[i] = v;
            break;
        default:
            break;
        }
    }
    return 0;
}

static void workers_free(csv_worker *w, int n)
{
    for (int t = 0; w && t < n; t++) {
        gv_free(w[t].fields);
        gv_free(w[t].text_seen);
        gv_buf_free(&w[t].scratch);
    }
    gv_free(w);
}

/* Runs step 2 with n_threads threads; merges the per-thread flags into text_seen[n_cols] and
 * builds the warning. */
/* One row of step 2; the last row of a block hands the block's mapped text back. */
static int parse_row_of(void *ctx, void *w, size_t i)
{
    const csv_ctx *c = ctx;
    if (parse_row(ctx, w, i) != 0) return 1;
    if (c->mapped && ((i + 1) % GV_ROWS_PER_BLOCK == 0 || i + 1 == c->n_rows))
        gv_text_release(c->rec[2 * (i - i % GV_ROWS_PER_BLOCK)], c->rec[2 * i + 1]);
    return 0;
}

static grove_status parse_rows(csv_ctx *c, int n_threads, unsigned char *text_seen)
{
    n_threads = gv_row_threads(c->n_rows, n_threads);
    csv_worker *workers = gv_calloc((size_t)n_threads, sizeof *workers);
    if (!workers) return gv_err_nomem("the parser threads");
    for (int t = 0; t < n_threads; t++) {
        csv_worker *w = &workers[t];
        w->fields = gv_malloc_array(c->n_cols, sizeof *w->fields);
        w->text_seen = gv_calloc(c->n_cols, 1);
        gv_row_error_init(&w->err);
        w->unseen_row = SIZE_MAX;
        if (!w->fields || !w->text_seen) {
            workers_free(workers, n_threads);
            return gv_err_nomem("the parser threads");
        }
    }
    gv_parse_rows(c->n_rows, n_threads, workers, sizeof *workers, parse_row_of, c);

    /* The error of the lowest row wins; the first unseen category is the lowest row's. */
    const gv_row_error *err = NULL;
    const csv_worker *unseen = NULL, *bad_label = NULL;
    size_t n_unseen = 0, n_bad_labels = 0, n_trailing = 0;
    const char *trailing_at = NULL;
    for (int t = 0; t < n_threads; t++) {
        const csv_worker *w = &workers[t];
        if (w->err.status != GROVE_OK && (!err || w->err.row < err->row)) err = &w->err;
        n_unseen += w->n_unseen;
        if (w->n_unseen && (!unseen || w->unseen_row < unseen->unseen_row)) unseen = w;
        n_bad_labels += w->n_bad_labels;
        n_trailing += w->n_trailing;
        if (w->n_trailing && (!trailing_at || w->trailing_at < trailing_at))
            trailing_at = w->trailing_at;
        if (w->n_bad_labels && (!bad_label || w->bad_label_at < bad_label->bad_label_at))
            bad_label = w;
        for (size_t k = 0; k < c->n_cols; k++) text_seen[k] |= w->text_seen[k];
    }
    grove_status st = GROVE_OK;
    if (err) {
        st = gv_row_error_report(err, c->path, c->text);
    } else {
        if (unseen)
            st = gv_dataset_warn(c->ds,
                                 "%s: %zu value%s of unseen categories treated as missing (first: "
                                 "column '%s' line %zu: %s)",
                                 c->path, n_unseen, n_unseen == 1 ? "" : "s",
                                 c->names[unseen->unseen_col],
                                 gv_line_of(c->text, unseen->unseen_at), unseen->unseen_text);
        if (n_trailing && st == GROVE_OK && c->cols[c->n_cols - 1].role == COL_SKIP) {
            char found[96];
            gv_excerpt(trailing_at, rest_of_field(trailing_at, c->text + strlen(c->text), c->sep),
                       found, sizeof found);
            st = gv_dataset_warn(c->ds, "%s: the header ends with a separator, so its last column "
                                 "has no name and is ignored, but %zu %s a value there "
                                 "(first: line %zu: %s); name the column to use it",
                                 c->path, n_trailing, n_trailing == 1 ? "row holds" : "rows hold",
                                 gv_line_of(c->text, trailing_at), found);
        }
        if (bad_label && st == GROVE_OK) {
            st = gv_dataset_warn(c->ds,
                                 "note: %s: the label column '%s' is ignored: %zu row%s without a "
                                 "usable label (first: line %zu: %s)",
                                 c->path, c->names[c->label_col], n_bad_labels,
                                 n_bad_labels == 1 ? "" : "s",
                                 gv_line_of(c->text, bad_label->bad_label_at),
                                 bad_label->bad_label_text);
            c->ds->partial_labels = c->ds->labels;
            c->ds->labels = NULL;
        }
    }
    workers_free(workers, n_threads);
    return st;
}

/* ---- step 3: inferred categories and text classes ---- */

/* Sorts dictionary d and renumbers the codes stored in values[0..n) (NaN stays NaN). */
static grove_status renumber(gv_dict *d, float *values, size_t n, double *labels)
{
    size_t *map = gv_malloc_array(d->n ? d->n : 1, sizeof *map);
    if (!map || gv_dict_sort(d, map) != 0) {
        gv_free(map);
        return gv_err_nomem("the category codes");
    }
    for (size_t i = 0; i < n; i++) {
        if (values && !isnan(values[i])) values[i] = (float)map[(size_t)values[i]];
        if (labels) labels[i] = (double)map[(size_t)labels[i]];
    }
    gv_free(map);
    return GROVE_OK;
}

static grove_status collect_categories(csv_ctx *c, const unsigned char *is_text)
{
    grove_dataset *ds = c->ds;
    grove_schema *schema = ds->schema;
    const size_t n_rows = ds->n_rows;
    csv_field *fields = gv_malloc_array(c->n_cols, sizeof *fields);
    gv_buf scratch = {0};
    grove_status st = GROVE_OK;
    const char *released = c->rec[0];
    if (!fields) return gv_err_nomem("the category pass");
    for (size_t i = 0; i < n_rows && st == GROVE_OK; i++) {
        split_record(c->rec[2 * i], c->rec[2 * i + 1], fields, c->n_cols, NULL, c->sep);
        release_behind(c, &released, c->rec[2 * i]);
        for (size_t k = 0; k < c->n_cols; k++) {
            if (!is_text[k]) continue;
            const csv_field *f = &fields[k];
            size_t len;
            const char *s = field_text(f, &scratch, &len);
            if (!s) {
                st = gv_err_nomem("a category name");
                break;
            }
            if (c->cols[k].role == COL_LABEL) {
                long cls = gv_dict_add(&schema->classes, s, len);
                if (cls < 0) {
                    st = gv_err_nomem("a class name");
                    break;
                }
                ds->labels[i] = (double)cls;
                continue;
            }
            size_t feature = c->cols[k].feature;
            float *x = &ds->values[feature * n_rows + i];
            if (gv_is_missing_token(f->p, f->len)) {
                *x = NAN;
                continue;
            }
            gv_dict *d = &schema->categories[feature];
            long code = gv_dict_add(d, s, len);
            if (code < 0) {
                st = gv_err_nomem("a category name");
                break;
            }
            if (d->n > MAX_CATEGORIES) {
                st = gv_err(GROVE_ERR_DATA, "%s:%zu:%zu: expected at most %d categories in "
                            "column '%s', found more", c->path, gv_line_of(c->text, f->p), k + 1,
                            MAX_CATEGORIES, c->names[k]);
                break;
            }
            *x = (float)code;
        }
    }
    gv_free(fields);
    gv_buf_free(&scratch);
    for (size_t k = 0; k < c->n_cols && st == GROVE_OK; k++) {
        if (!is_text[k]) continue;
        if (c->cols[k].role == COL_LABEL)
            st = renumber(&schema->classes, NULL, n_rows, ds->labels);
        else
            st = renumber(&schema->categories[c->cols[k].feature],
                          ds->values + c->cols[k].feature * n_rows, n_rows, NULL);
    }
    return st;
}

/* ---- type guessing: what turned a column categorical ---- */

/* For every column k with mask[k], counts its values that are numbers and those that are text
 * (neither a number nor missing), and finds the first text value: one more pass over the rows,
 * made only when some column met text. */
typedef struct text_stats {
    size_t n_numbers, n_text;
    size_t n_comma; /* text values that are numbers with a decimal comma */
    const char *first; /* the first text value (NULL: none) */
    size_t first_len;
} text_stats;

static grove_status count_text(csv_ctx *c, const unsigned char *mask, text_stats *st)
{
    csv_field *fields = gv_malloc_array(c->n_cols, sizeof *fields);
    if (!fields) return gv_err_nomem("the type check");
    for (size_t i = 0; i < c->n_rows; i++) {
        size_t n = split_record(c->rec[2 * i], c->rec[2 * i + 1], fields, c->n_cols, NULL, c->sep);
        for (size_t k = 0; k < c->n_cols && k < n; k++) {
            if (!mask[k]) continue;
            const csv_field *f = &fields[k];
            double v;
            int r = parse_number(c, f->p, f->len, &v);
            if (r == GV_NUM_OK || r == GV_NUM_RANGE) {
                st[k].n_numbers++;
            } else if (r == GV_NUM_BAD && !gv_is_missing_token(f->p, f->len)) {
                if (c->decimal == '.' && comma_number(f->p, f->len)) st[k].n_comma++;
                if (st[k].n_text++ == 0) {
                    st[k].first = f->p;
                    st[k].first_len = f->len;
                }
            }
        }
    }
    gv_free(fields);
    return GROVE_OK;
}

/* Warnings for the columns that text made categorical although most of their values are
 * numbers (one stray "abc" or "1,5"), and for the forced-numeric ones whose text became
 * missing; and the notices: which column became the label, which separator was sniffed. */
static grove_status explain_columns(csv_ctx *c, const grove_params *params,
                                    const unsigned char *text_seen, const unsigned char *guessed)
{
    grove_status st = GROVE_OK;
    if (c->label_guessed)
        st = gv_dataset_warn(c->ds, "note: %s: no column is named 'label': the first column, '%s', "
                             "is the label (--label COL to choose another)",
                             c->path, c->names[c->label_col]);
    if (st == GROVE_OK && c->sep != ',' && !strcmp(gv_param_str(params, GV_P_SEP), "auto"))
        st = gv_dataset_warn(c->ds, "note: %s: fields are separated by %s (from the header line; "
                             "--sep to choose)", c->path, c->sep == '\t' ? "tabs" : "';'");
    unsigned char *mask = gv_calloc(c->n_cols, 1);
    text_stats *ts = gv_calloc(c->n_cols, sizeof *ts);
    if (!mask || !ts) {
        gv_free(mask);
        gv_free(ts);
        return st == GROVE_OK ? gv_err_nomem("the type check") : st;
    }
    int any = 0;
    for (size_t k = 0; k < c->n_cols; k++)
        any |= mask[k] = guessed[k] || (c->force_numeric[k] && text_seen[k]);
    if (st == GROVE_OK && any) st = count_text(c, mask, ts);
    for (size_t k = 0; k < c->n_cols && st == GROVE_OK; k++) {
        if (!mask[k] || !ts[k].n_text) continue;
        char found[96];
        gv_excerpt(ts[k].first, ts[k].first_len, found, sizeof found);
        size_t line = gv_line_of(c->text, ts[k].first);
        if (ts[k].n_comma == ts[k].n_text)
            st = gv_dataset_warn(c->ds, "%s: column '%s' is read as categorical because its "
                                 "values look like numbers with a decimal comma (first: line %zu: "
                                 "%s); --decimal , reads them as numbers",
                                 c->path, c->names[k], line, found);
        else if (c->force_numeric[k])
            st = gv_dataset_warn(c->ds, "%s: column '%s' (numeric=): %zu value%s that %s not a "
                                 "number read as missing (first: line %zu: %s)",
                                 c->path, c->names[k], ts[k].n_text,
                                 ts[k].n_text == 1 ? "" : "s", ts[k].n_text == 1 ? "is" : "are",
                                 line, found);
        else if (ts[k].n_numbers > 0)
            st = gv_dataset_warn(c->ds, "%s: column '%s' is read as categorical because %zu of "
                                 "its %zu values %s (first: line %zu: %s); "
                                 "--set numeric=%s reads them as missing instead",
                                 c->path, c->names[k], ts[k].n_text,
                                 ts[k].n_text + ts[k].n_numbers,
                                 ts[k].n_text == 1 ? "is not a number" : "are not numbers", line,
                                 found, c->names[k]);
    }
    gv_free(mask);
    gv_free(ts);
    return st;
}

/* ---- columns kept as text (parameter "keep") ---- */

static grove_status keep_columns(csv_ctx *c, const grove_params *params)
{
    const char *list = gv_param_str(params, GV_P_KEEP);
    if (!*list) return GROVE_OK;
    grove_dataset *ds = c->ds;
    size_t n = 1;
    for (const char *s = list; *s; s++) n += *s == ',';
    long *col = gv_malloc_array(n, sizeof *col);
    ds->kept_names = gv_calloc(n, sizeof *ds->kept_names);
    ds->kept_text = gv_calloc(n, sizeof *ds->kept_text);
    ds->kept_off = gv_calloc(n, sizeof *ds->kept_off);
    csv_field *fields = gv_malloc_array(c->n_cols, sizeof *fields);
    gv_buf scratch = {0};
    grove_status st = GROVE_OK;
    if (!col || !ds->kept_names || !ds->kept_text || !ds->kept_off || !fields) {
        st = gv_err_nomem("the kept columns");
        goto done;
    }
    ds->n_kept = n;
    size_t k = 0;
    for (const char *s = list; k < n; k++) {
        const char *comma = strchr(s, ',');
        const char *e = comma ? comma : s + strlen(s), *t = e;
        while (s < e && is_blank(*s, ',')) s++;
        while (t > s && is_blank(t[-1], ',')) t--;
        if ((col[k] = find_column(c, s, (size_t)(t - s))) < 0) {
            st = no_column(c, "keep", s, (size_t)(t - s));
            goto done;
        }
        ds->kept_names[k] = gv_strdup(c->names[col[k]]);
        ds->kept_off[k] = gv_malloc_array(c->n_rows ? c->n_rows : 1, sizeof **ds->kept_off);
        if (!ds->kept_names[k] || !ds->kept_off[k]) {
            st = gv_err_nomem("the kept columns");
            goto done;
        }
        s = comma ? comma + 1 : e;
    }
    gv_buf *text = gv_calloc(n, sizeof *text);
    if (!text) {
        st = gv_err_nomem("the kept columns");
        goto done;
    }
    for (size_t i = 0; i < c->n_rows && st == GROVE_OK; i++) {
        size_t nf = split_record(c->rec[2 * i], c->rec[2 * i + 1], fields, c->n_cols, NULL, c->sep);
        for (k = 0; k < n; k++) {
            size_t len = 0;
            const char *v = (size_t)col[k] < nf ? field_text(&fields[col[k]], &scratch, &len) : "";
            ds->kept_off[k][i] = text[k].len;
            if (!v || gv_buf_append(&text[k], v, len) != 0 || gv_buf_append(&text[k], "", 1) != 0) {
                st = gv_err_nomem("the kept columns");
                break;
            }
        }
    }
    for (k = 0; k < n; k++) {
        if (st == GROVE_OK && !text[k].data && gv_buf_append(&text[k], "", 1) != 0)
            st = gv_err_nomem("the kept columns");
        ds->kept_text[k] = text[k].data; /* owned by the dataset, freed with it */
    }
    gv_free(text);
done:
    gv_free(col);
    gv_free(fields);
    gv_buf_free(&scratch);
    return st;
}

/* ---- the loader ---- */

/* The separator of a file whose text starts at p: parameter "sep", else the most frequent of
 * ',', ';' and tab outside quotes on the first non-empty line (',' on a tie, and when the line
 * has none of them: a one-column file). */
static char sniff_separator(const grove_params *params, const char *p, const char *end)
{
    const char *want = gv_param_str(params, GV_P_SEP);
    if (!strcmp(want, "tab")) return '\t';
    if (strcmp(want, "auto") != 0) return want[0];
    while (p < end && (*p == '\n' || *p == '\r')) p++;
    size_t comma = 0, semicolon = 0, tab = 0;
    int quoted = 0;
    for (; p < end && (quoted || *p != '\n'); p++) {
        if (*p == '"') quoted = !quoted;
        else if (quoted) continue;
        else if (*p == ',') comma++;
        else if (*p == ';') semicolon++;
        else if (*p == '\t') tab++;
    }
    if (semicolon > comma && semicolon >= tab) return ';';
    if (tab > comma && tab > semicolon) return '\t';
    return ',';
}

static grove_status build_dataset(csv_ctx *c)
{
    grove_schema *schema;
    if (c->follow) {
        schema = gv_schema_copy(c->follow);
    } else {
        size_t n_features = 0;
        for (size_t k = 0; k < c->n_cols; k++)
            if (c->cols[k].role == COL_NUMERIC || c->cols[k].role == COL_CATEGORICAL)
                n_features++;
        schema = gv_schema_new(n_features);
        if (schema) {
            gv_free(schema->label_name);
            schema->label_name = gv_strdup(c->names[c->label_col]);
            int ok = schema->label_name != NULL;
            for (size_t k = 0; k < c->n_cols && ok; k++) {
                const csv_column *col = &c->cols[k];
                if (col->role != COL_NUMERIC && col->role != COL_CATEGORICAL) continue;
                gv_free(schema->feature_names[col->feature]);
                schema->feature_names[col->feature] = gv_strdup(c->names[k]);
                ok = schema->feature_names[col->feature] != NULL;
                schema->is_categorical[col->feature] = col->role == COL_CATEGORICAL;
            }
            if (!ok) {
                gv_schema_free(schema);
                schema = NULL;
            }
        }
    }
    if (!schema) return gv_err_nomem("the schema");
    /* Step 2 writes every value and label (step 3 every categorical one). */
    c->ds = gv_dataset_new_unfilled(schema, c->n_rows, c->label_col >= 0);
    if (!c->ds) return gv_err_nomem("the dataset");
    gv_free(c->ds->source);
    c->ds->source = gv_strdup(c->path);
    if (!c->ds->source) return gv_err_nomem("the dataset");
    if (c->weight_col >= 0) {
        c->ds->weights = gv_malloc_array(c->n_rows, sizeof *c->ds->weights);
        if (!c->ds->weights) return gv_err_nomem("the weights");
    }
    if (c->group_col >= 0) {
        c->qid = gv_malloc_array(c->n_rows, sizeof *c->qid);
        if (!c->qid) return gv_err_nomem("the query ids");
    }
    return GROVE_OK;
}

grove_status gv_parse_csv(const char *path, const char *buf, size_t len, int mapped,
                          const grove_params *params, const grove_schema *schema,
                          grove_dataset **out)
{
    *out = NULL;
    csv_ctx c;
    memset(&c, 0, sizeof c);
    gv_dict_init(&c.header);
    c.path = path;
    c.text = buf;
    c.mapped = mapped;
    c.follow = schema;
    c.task_param = gv_param_task(params);
    c.label_col = c.weight_col = c.group_col = -1;
    unsigned char *text_seen = NULL, *guessed = NULL;
    grove_status st = GROVE_OK;

    const char *nul = NULL;
    const size_t release_step = gv_text_release_step();
    for (size_t at = 0; at < len && !nul; at += release_step) {
        size_t step = len - at < release_step ? len - at : release_step;
        nul = memchr(buf + at, '\0', step);
        if (mapped) gv_text_release(buf + at, buf + at + step);
    }
    if (nul) {
        const char *ls = nul;
        while (ls > buf && ls[-1] != '\n') ls--;
        st = gv_err(GROVE_ERR_PARSE, "%s:%zu:%zu: expected text, found a NUL byte (binary file?)",
                    path, gv_line_of(buf, nul), field_number(ls, nul, ','));
        goto done;
    }
    const char *start = buf;
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) start += 3;
    c.sep = sniff_separator(params, start, buf + len);
    c.decimal = gv_param_str(params, GV_P_DECIMAL)[0];
    if (c.decimal == ',' && c.sep == ',') {
        st = gv_err(GROVE_ERR_PARAM, "%s: decimal=, needs a field separator other than ',' "
                    "(--sep ';')", path);
        goto done;
    }
    if ((st = find_records(&c, start, buf + len)) != GROVE_OK) goto done;
    if (!c.header_start) {
        st = gv_err(GROVE_ERR_PARSE, "%s:1: expected a header row, found an empty file", path);
        goto done;
    }
    if (c.n_rows == 0) {
        st = gv_err(GROVE_ERR_PARSE, "%s:%zu: expected data rows after the header, found none",
                    path, gv_line_of(buf, c.header_end) + 1);
        goto done;
    }
    if ((st = read_header(&c)) != GROVE_OK) goto done;
    if ((st = assign_roles(&c, params)) != GROVE_OK) goto done;
    c.numeric = gv_calloc(c.n_cols, 1);
    if (!c.numeric) {
        st = gv_err_nomem("the column flags");
        goto done;
    }
    for (size_t k = 0; k < c.n_cols; k++)
        c.numeric[k] = c.cols[k].role == COL_NUMERIC || c.cols[k].role == COL_LABEL ||
                       c.cols[k].role == COL_WEIGHT || c.cols[k].role == COL_GROUP;
    if ((st = build_dataset(&c)) != GROVE_OK) goto done;
    text_seen = gv_calloc(c.n_cols, 1);
    if (!text_seen) {
        st = gv_err_nomem("the column flags");
        goto done;
    }
    int n_threads = gv_threads((int)gv_param_int(params, GV_P_THREADS));
    if ((st = parse_rows(&c, n_threads, text_seen)) != GROVE_OK) goto done;

    if (!c.follow) {
        /* Columns with text, and forced ones, are categorical; so is a text label; columns
         * forced numeric stay numeric (their text was read as missing). */
        guessed = gv_calloc(c.n_cols, 1);
        if (!guessed) {
            st = gv_err_nomem("the column flags");
            goto done;
        }
        int any = 0;
        for (size_t k = 0; k < c.n_cols; k++) {
            if (c.cols[k].role == COL_CATEGORICAL) text_seen[k] = 1;
            if (c.cols[k].role == COL_NUMERIC && text_seen[k] && !c.force_numeric[k]) {
                c.cols[k].role = COL_CATEGORICAL;
                c.ds->schema->is_categorical[c.cols[k].feature] = 1;
                guessed[k] = 1;
            }
        }
        if ((st = explain_columns(&c, params, text_seen, guessed)) != GROVE_OK) goto done;
        for (size_t k = 0; k < c.n_cols; k++) {
            if (c.force_numeric[k]) text_seen[k] = 0;
            any |= text_seen[k];
        }
        if (any && (st = collect_categories(&c, text_seen)) != GROVE_OK) goto done;
        if (text_seen[c.label_col])
            c.ds->schema->task = GROVE_CLASSIFICATION;
        else if ((st = gv_labels_infer_numeric(c.ds->labels, c.n_rows, c.task_param,
                                               c.ds->schema)) != GROVE_OK)
            goto done;
    }
    if ((st = keep_columns(&c, params)) != GROVE_OK) goto done;
    if (c.qid) { /* query groups */
        size_t bad = 0;
        int r = gv_dataset_set_queries(c.ds, c.qid, c.n_rows, &bad);
        if (r < 0) {
            st = gv_err_nomem("the query groups");
            goto done;
        }
        if (r > 0) {
            st = gv_err(GROVE_ERR_DATA, "%s:%zu: query %.0f of column '%s' comes back after rows "
                        "of other queries (the rows of a query must be contiguous)", path,
                        gv_line_of(buf, c.rec[2 * bad]), c.qid[bad], c.names[c.group_col]);
            goto done;
        }
    }
    *out = c.ds;
    c.ds = NULL;
done:
    gv_free(text_seen);
    gv_free(guessed);
    ctx_free(&c);
    return st;
}
