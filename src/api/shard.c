/*
 * shard.c -- grove_dataset_load_shard: this rank's rows of a data-parallel run (dist/).
 *
 * Pipeline position: api/ (reads data/, agrees through dist/, shares the schema as model/'s
 * JSON).  With N > 1 ranks, either
 *  - PATH holds "{rank}": rank r loads the file named with r in its place; or
 *  - one CSV file: its bytes after the header line are cut into N ranges at N equal offsets,
 *    each moved forward to the next line start, and rank r parses the header plus range r
 *    (so ranks hold consecutive rows, in file order: rank 0 the first ones).  Records must not
 *    hold newlines inside quotes; gzip'd files cannot be cut (use {rank} files);
 *  - one LIBSVM file (parameter format, else the extension or first line, as grove_dataset_load
 *    decides): the same cut of all its bytes (no header).  Each part's loader names and picks
 *    its features from its own rows (the largest index, zero-based or not, compact features);
 *    svm_file_agree decides those as one process does over the whole file, and svm_widen gives
 *    every part's schema the whole file's features before the merge.
 * Dense data: in a data-parallel run (any rank count, one included) a part that LIBSVM's
 * loader stored sparse is made dense (densify), rows x features x 4 bytes per rank.
 * The schema (feature kinds, category codes, classes): with the caller's schema (a validation
 * file), every rank parses with it.  Without, every rank infers its part's schema, the ranks
 * exchange them, and every rank merges them into the schema one process infers over all rows
 * (schema_merge: unions of categories and classes in one process's order); a rank whose own
 * schema differs parses its part again with the merged one.  Failures are agreed (gv_dist_agree): every rank returns the
 * lowest failing rank's status and message, "rank R: FILE:LINE:COL: ...", LINE counted in the
 * whole file.  Without MPI, or with one rank, this is grove_dataset_load.
 */
#include "../dist/dist.h"
#include "../data/dataset.h"
#include "../model/model.h"
#include "../core/params.h"

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The first line start at or after p (p = 0, or one past the first '\n' at or after p - 1). */
static grove_status line_start(int fd, size_t size, size_t p, size_t *out)
{
    char buf[4096];
    if (p == 0 || p >= size) {
        *out = p < size ? p : size;
        return GROVE_OK;
    }
    for (size_t at = p - 1; at < size;) {
        ssize_t got = pread(fd, buf, sizeof buf, (off_t)at);
        if (got <= 0) return gv_err(GROVE_ERR_IO, "read failed: %s", strerror(errno));
        char *nl = memchr(buf, '\n', (size_t)got);
        if (nl) {
            *out = at + (size_t)(nl - buf) + 1;
            return GROVE_OK;
        }
        at += (size_t)got;
    }
    *out = size;
    return GROVE_OK;
}

static grove_status read_at(int fd, char *dst, size_t len, size_t off)
{
    while (len > 0) {
        ssize_t got = pread(fd, dst, len, (off_t)off);
        if (got <= 0) return gv_err(GROVE_ERR_IO, "read failed: %s", got < 0 ? strerror(errno) : "short file");
        dst += got;
        off += (size_t)got;
        len -= (size_t)got;
    }
    return GROVE_OK;
}

/* Rank r's text: the header line (CSV; svm: LIBSVM, which has none) and its range (see the
 * file comment), and the number of lines in the range (rank 0's includes the header). */
static grove_status read_range(const char *path, int svm, char **text, size_t *len,
                               size_t *lines_before)
{
    *text = NULL;
    int fd = open(path, O_RDONLY);
    if (fd < 0) return gv_err(GROVE_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    grove_status st = GROVE_OK;
    char *t = NULL;
    if (fstat(fd, &sb) != 0) {
        st = gv_err(GROVE_ERR_IO, "%s: %s", path, strerror(errno));
        goto done;
    }
    size_t size = (size_t)sb.st_size, hdr, lo, hi;
    size_t r = (size_t)gv_dist_rank(), N = (size_t)gv_dist_size();
    hdr = 0; /* LIBSVM: no header */
    if (!svm && (st = line_start(fd, size, 1, &hdr)) != GROVE_OK) goto done;
    size_t body = size - hdr;
    if ((st = line_start(fd, size, r == 0 ? 0 : hdr + body / N * r + body % N * r / N, &lo)) != GROVE_OK ||
        (st = line_start(fd, size, r + 1 == N ? size : hdr + body / N * (r + 1) + body % N * (r + 1) / N, &hi)) != GROVE_OK)
        goto done;
    if (r > 0 && lo < hdr) lo = hdr;
    if (hi < lo) hi = lo;
    size_t head = r == 0 ? 0 : hdr;
    t = gv_malloc(head + (hi - lo) + 1);
    if (!t) {
        st = gv_err_nomem("a shard");
        goto done;
    }
    if ((st = read_at(fd, t, head, 0)) != GROVE_OK || (st = read_at(fd, t + head, hi - lo, lo)) != GROVE_OK) {
        gv_err_prefix("%s", path);
        goto done;
    }
    *len = head + (hi - lo);
    t[*len] = '\0';
    size_t nl = 0;
    for (size_t i = head; i < *len; i++) nl += t[i] == '\n';
    *text = t;
    t = NULL;
    *lines_before = nl; /* this range's lines: the caller turns them into an offset */
done:
    gv_free(t);
    close(fd);
    return st;
}

/* "PATH:LINE:..." with LINE moved by `shift` (a line of rank r's text is line + shift of the
 * file), as the message of status st. */
static grove_status shift_line(grove_status st, const char *path, size_t shift, int svm)
{
    const char *msg = grove_last_error();
    size_t n = strlen(path);
    if (shift == 0 || strncmp(msg, path, n) != 0 || msg[n] != ':') return st;
    char *end;
    unsigned long long line = strtoull(msg + n + 1, &end, 10);
    if (end == msg + n + 1 || line < (svm ? 1u : 2u)) return st; /* CSV's line 1: the header */
    char *copy = gv_strdup(end);
    if (!copy) return st;
    st = gv_err(st, "%s:%llu%s", path, line + (unsigned long long)shift, copy);
    gv_free(copy);
    return st;
}

/* This rank's rows: its own file ({rank}) or its range of the text, with `schema` (NULL: the
 * schema is inferred); a range's line numbers are the whole file's. */
static grove_status parse_own(int per_rank, int svm, const char *own, const char *text,
                              size_t len, const grove_params *params, const grove_schema *schema,
                              size_t shift, grove_dataset **d)
{
    grove_status st = per_rank ? grove_dataset_load(own, params, schema, d)
                      : svm    ? gv_parse_libsvm(own, text, len, params, schema, d)
                               : gv_parse_csv(own, text, len, 0, params, schema, d);
    if (st != GROVE_OK && !per_rank) st = shift_line(st, own, shift, svm);
    return st;
}

/* A data-parallel run trains on dense data (the tree engine's all-reduced histograms are over
 * dense binned columns): a part that LIBSVM's loader stored sparse (at most 1/8 of its cells
 * set, dataset.h) is made dense here, rows x features x 4 bytes. */
static grove_status densify(grove_dataset *d)
{
    if (!d || d->values) return GROVE_OK;
    float *v = gv_dataset_dense_values(d);
    if (!v) return gv_err_nomem("the dense values of a sparse shard");
    d->values = v;
    gv_free(d->sp_col);
    gv_free(d->sp_row);
    gv_free(d->sp_val);
    d->sp_col = NULL;
    d->sp_row = NULL;
    d->sp_val = NULL;
    return GROVE_OK;
}

/* The feature number k of a LIBSVM schema's name "fk" (LIBSVM index k), or SIZE_MAX. */
static size_t svm_index(const char *name)
{
    char *end;
    if (name[0] != 'f' || name[1] < '0' || name[1] > '9') return SIZE_MAX;
    unsigned long long k = strtoull(name + 1, &end, 10);
    return *end ? SIZE_MAX : (size_t)k;
}

/* What one process's LIBSVM loader decides from the whole file (libsvm.c): whether indices are
 * zero-based, the width (columns), and whether the features are compact -- when at most
 * 1/GV_SPARSE_DENSITY of the rows x width cells hold a stored value, only the columns that hold
 * one are features (ids), unless that is every column. */
typedef struct svm_file {
    int zero;
    size_t width;
    uint32_t *ids; /* compact: [n_ids] columns, increasing; NULL: every column is a feature */
    size_t n_ids;
} svm_file;

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Whether a part's schema is zero-based (libsvm.c's rule: its first feature is named by its
 * column, not column + 1). */
static int part_zero_based(const grove_schema *s)
{
    if (s->n_features == 0) return 0;
    size_t first = s->feature_ids ? s->feature_ids[0] : 0;
    return svm_index(s->feature_names[0]) == first;
}

/* The whole file's svm_file from every rank's part d (collective): each rank counts its stored
 * values (libsvm.c stores a value other than the absent one: 0, or NaN with
 * libsvm_absent=missing) and the indices that hold one; the ranks gather the counts and those
 * indices, and every rank decides as one process does over all rows. */
static grove_status svm_file_agree(const grove_dataset *d, int absent_missing, svm_file *out)
{
    memset(out, 0, sizeof *out);
    const grove_schema *s = d->schema;
    const size_t F = s->n_features, n = d->n_rows;
    uint32_t *mine = gv_malloc_array(F ? F : 1, sizeof *mine);
    grove_status st = gv_dist_agree(mine ? GROVE_OK : gv_err_nomem("the LIBSVM columns"));
    if (st != GROVE_OK) {
        gv_free(mine);
        return st;
    }
    int zero = part_zero_based(s);
    size_t width = gv_schema_width(s), m = 0;
    int64_t head[4] = {zero, (int64_t)(zero && width ? width - 1 : width), 0, (int64_t)n};
    for (size_t f = 0; f < F; f++) {
        size_t cnt = 0;
        if (d->values) {
            const float *v = d->values + f * n;
            for (size_t i = 0; i < n; i++) cnt += absent_missing ? !isnan(v[i]) : v[i] != 0.0f;
        } else {
            for (size_t k = d->sp_col[f]; k < d->sp_col[f + 1]; k++)
                cnt += absent_missing ? !isnan(d->sp_val[k]) : d->sp_val[k] != 0.0f;
        }
        head[2] += (int64_t)cnt;
        if (cnt) mine[m++] = (uint32_t)svm_index(s->feature_names[f]); /* raw index */
    }
    const size_t R = (size_t)gv_dist_size();
    int64_t *heads = gv_malloc_array(R, sizeof head);
    st = gv_dist_agree(heads ? GROVE_OK : gv_err_nomem("the LIBSVM columns"));
    void *all = NULL;
    size_t bytes = 0;
    if (st == GROVE_OK) {
        gv_dist_allgather(head, heads, sizeof head);
        st = gv_dist_allgatherv(mine, m * sizeof *mine, &all, &bytes);
    }
    gv_free(mine);
    if (st != GROVE_OK) {
        gv_free(heads);
        return st;
    }
    size_t top = 0, nnz = 0, rows = 0, cells;
    for (size_t r = 0; r < R; r++) {
        zero |= heads[4 * r] != 0;
        top = (size_t)heads[4 * r + 1] > top ? (size_t)heads[4 * r + 1] : top;
        nnz += (size_t)heads[4 * r + 2];
        rows += (size_t)heads[4 * r + 3];
    }
    gv_free(heads);
    out->zero = zero;
    out->width = zero ? top + 1 : top;
    int few = gv_mul_size(rows, out->width, &cells) != 0 || nnz <= cells / GV_SPARSE_DENSITY;
    uint32_t *ids = all;
    size_t k = bytes / sizeof *ids, u = 0;
    if (few) { /* the columns holding a value: the parts' raw indices as columns, deduplicated */
        for (size_t j = 0; j < k; j++) ids[j] -= zero ? 0 : 1;
        qsort(ids, k, sizeof *ids, cmp_u32);
        for (size_t j = 0; j < k; j++)
            if (u == 0 || ids[j] != ids[u - 1]) ids[u++] = ids[j];
    }
    if (few && u > 0 && u < out->width) {
        out->ids = ids;
        out->n_ids = u;
    } else {
        gv_free(all);
    }
    return GROVE_OK;
}

/* LIBSVM parts name their features by the indices they hold: each part's schema s[r] is
 * replaced by the whole file's features as one process names them (f: the whole file's
 * svm_file) -- "f<index>" for every column up to the width, or for the compact columns, with
 * their feature_ids -- its own features keeping their kinds and categories, its label and
 * classes unchanged. */
static grove_status svm_widen(grove_schema **s, size_t R, const svm_file *f)
{
    const size_t N = f->ids ? f->n_ids : f->width;
    for (size_t r = 0; r < R; r++) {
        grove_schema *w = gv_schema_new(N);
        if (!w) return gv_err_nomem("a LIBSVM schema");
        grove_status st = GROVE_OK;
        gv_free(w->label_name);
        w->label_name = gv_strdup(s[r]->label_name);
        w->task = s[r]->task;
        if (!w->label_name || gv_dict_copy(&w->classes, &s[r]->classes) != 0 ||
            (f->ids && gv_schema_set_ids(w, f->ids, f->width) != 0))
            st = gv_err_nomem("a LIBSVM schema");
        for (size_t j = 0; j < N && st == GROVE_OK; j++) { /* "f<index>" */
            size_t col = f->ids ? f->ids[j] : j;
            char name[32];
            snprintf(name, sizeof name, "f%zu", col + (f->zero ? 0 : 1));
            gv_free(w->feature_names[j]);
            if (!(w->feature_names[j] = gv_strdup(name))) st = gv_err_nomem("a LIBSVM schema");
        }
        for (size_t g = 0; g < s[r]->n_features && st == GROVE_OK; g++) {
            size_t col = svm_index(s[r]->feature_names[g]) - (f->zero ? 0 : 1);
            long j = gv_schema_feature_of(w, col);
            if (j < 0) continue;
            w->is_categorical[j] = s[r]->is_categorical[g];
            gv_dict_free(&w->categories[j]);
            if (gv_dict_copy(&w->categories[j], &s[r]->categories[g]) != 0)
                st = gv_err_nomem("a LIBSVM schema");
        }
        if (st != GROVE_OK) {
            gv_schema_free(w);
            return st;
        }
        gv_schema_free(s[r]);
        s[r] = w;
    }
    return GROVE_OK;
}

static int cmp_class_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The schema one process infers over all rows, from the ranks' own schemas s[0..R) (each
 * inferred from its rows alone; csv.c's rules):
 *  - a feature is categorical when it is so in every part (a column that is numeric in one part
 *    stays numeric; text in it then fails to parse, naming the line, where one process would
 *    read the column as categorical: --set categorical=NAME makes every part do so); its
 *    categories are the union of the parts' in byte order, as one process sorts them;
 *  - the task is regression when any part's is; else the classes are the union of the parts',
 *    in numeric order when every name is a number (numeric labels: csv.c names them by value)
 *    and then regression if there are more than GV_AUTO_MAX_CLASSES under task=auto, else in
 *    byte order (text labels).
 * The parts must have the same columns (one file's header; {rank} files may differ). */
static grove_status schema_merge(grove_schema *const *s, size_t R, int64_t task_param,
                                 grove_schema **out)
{
    *out = NULL;
    grove_schema *m = gv_schema_copy(s[0]);
    if (!m) return gv_err_nomem("the merged schema");
    grove_status st = GROVE_OK;
    for (size_t r = 1; r < R && st == GROVE_OK; r++) {
        int same = s[r]->n_features == m->n_features && !strcmp(s[r]->label_name, m->label_name);
        for (size_t f = 0; same && f < m->n_features; f++)
            same = !strcmp(s[r]->feature_names[f], m->feature_names[f]);
        if (!same)
            st = gv_err(GROVE_ERR_DATA, "rank %zu: its data has other columns than rank 0's", r);
    }
    for (size_t f = 0; f < m->n_features && st == GROVE_OK; f++) {
        int cat = 1;
        for (size_t r = 0; r < R; r++) cat &= s[r]->is_categorical[f] != 0;
        m->is_categorical[f] = (unsigned char)cat;
        gv_dict_free(&m->categories[f]);
        gv_dict_init(&m->categories[f]);
        for (size_t r = 0; cat && r < R && st == GROVE_OK; r++)
            for (size_t c = 0; c < s[r]->categories[f].n && st == GROVE_OK; c++) {
                const char *name = s[r]->categories[f].names[c];
                if (gv_dict_add(&m->categories[f], name, strlen(name)) < 0) st = gv_err_nomem("the merged schema");
            }
        if (st == GROVE_OK && cat && gv_dict_sort(&m->categories[f], NULL) != 0) st = gv_err_nomem("the merged schema");
    }
    int regression = 0, numeric = 1;
    for (size_t r = 0; r < R; r++) regression |= s[r]->task == GROVE_REGRESSION;
    gv_dict_free(&m->classes);
    gv_dict_init(&m->classes);
    for (size_t r = 0; r < R && !regression && st == GROVE_OK; r++)
        for (size_t c = 0; c < s[r]->classes.n && st == GROVE_OK; c++) {
            const char *name = s[r]->classes.names[c];
            char *end;
            (void)strtod(name, &end);
            numeric &= end != name && *end == '\0';
            if (gv_dict_add(&m->classes, name, strlen(name)) < 0) st = gv_err_nomem("the merged schema");
        }
    if (st == GROVE_OK && !regression && numeric) {
        size_t k = m->classes.n;
        double *v = gv_malloc_array(k ? k : 1, sizeof *v);
        gv_dict sorted;
        gv_dict_init(&sorted);
        if (!v) st = gv_err_nomem("the merged schema");
        for (size_t c = 0; c < k && st == GROVE_OK; c++) v[c] = strtod(m->classes.names[c], NULL);
        if (st == GROVE_OK) qsort(v, k, sizeof *v, cmp_class_value);
        for (size_t c = 0; c < k && st == GROVE_OK; c++) {
            /* the name of value v[c] as the parts wrote it */
            for (size_t j = 0; j < k; j++)
                if (strtod(m->classes.names[j], NULL) == v[c]) {
                    if (gv_dict_add(&sorted, m->classes.names[j], strlen(m->classes.names[j])) < 0)
                        st = gv_err_nomem("the merged schema");
                    break;
                }
        }
        gv_free(v);
        gv_dict_free(&m->classes);
        m->classes = sorted;
        if (task_param == GV_TASK_AUTO && k > GV_AUTO_MAX_CLASSES) {
            regression = 1;
            gv_dict_free(&m->classes);
            gv_dict_init(&m->classes);
        }
    } else if (st == GROVE_OK && !regression && gv_dict_sort(&m->classes, NULL) != 0) {
        st = gv_err_nomem("the merged schema");
    }
    m->task = regression ? GROVE_REGRESSION : GROVE_CLASSIFICATION;
    if (st != GROVE_OK) {
        gv_schema_free(m);
        return st;
    }
    *out = m;
    return GROVE_OK;
}

/* Every rank's schema (as the model file's schema JSON, broadcast from each rank in turn, in
 * pieces so that a rank without memory still takes part) and their merge (collective); svm:
 * LIBSVM parts, whose schemas are first widened to the whole file's features (svm_widen). */
static grove_status share_schemas(const grove_schema *mine, const svm_file *svm,
                                  int64_t task_param, grove_schema **out)
{
    *out = NULL;
    size_t R = (size_t)gv_dist_size(), me = (size_t)gv_dist_rank();
    grove_schema **all = gv_calloc(R, sizeof *all);
    json_t *o = gv_schema_to_json(mine);
    char *js = o ? json_dumps(o, JSON_COMPACT) : NULL; /* jansson's: free() */
    json_decref(o);
    grove_status st = gv_dist_agree(all && js ? GROVE_OK : gv_err_nomem("the schema"));
    for (size_t r = 0; r < R && st == GROVE_OK; r++) {
        int64_t n = r == me ? (int64_t)strlen(js) + 1 : 0;
        gv_dist_bcast(&n, sizeof n, (int)r);
        char *buf = r == me ? js : gv_malloc((size_t)n);
        char scratch[4096];
        for (size_t off = 0; off < (size_t)n; off += sizeof scratch) {
            size_t k = (size_t)n - off < sizeof scratch ? (size_t)n - off : sizeof scratch;
            if (r == me) memcpy(scratch, js + off, k);
            gv_dist_bcast(scratch, k, (int)r);
            if (r != me && buf) memcpy(buf + off, scratch, k);
        }
        if (!buf) {
            st = gv_err_nomem("the shared schema");
        } else {
            json_error_t je;
            json_t *x = json_loads(buf, 0, &je);
            st = x ? gv_schema_from_json(x, &all[r])
                   : gv_err(GROVE_ERR_INTERNAL, "the shared schema: %s", je.text);
            json_decref(x);
        }
        if (r != me) gv_free(buf);
        st = gv_dist_agree(st);
    }
    if (st == GROVE_OK && svm) st = gv_dist_agree(svm_widen(all, R, svm));
    if (st == GROVE_OK) st = gv_dist_agree(schema_merge(all, R, task_param, out));
    for (size_t r = 0; all && r < R; r++) gv_schema_free(all[r]);
    gv_free(all);
    free(js);
    return st;
}

/* The format of one file to be cut into ranges: parameter format, else dataset_api.c's rule
 * on its name and first bytes. */
static int file_format(const char *path, const grove_params *params)
{
    int format = (int)gv_param_int(params, GV_P_FORMAT);
    if (format != GV_FORMAT_AUTO) return format;
    char buf[4096];
    ssize_t got = 0;
    int fd = open(path, O_RDONLY);
    if (fd >= 0) {
        got = pread(fd, buf, sizeof buf - 1, 0);
        close(fd);
    }
    if (got < 0) got = 0;
    buf[got] = '\0';
    return gv_detect_format(path, buf, (size_t)got);
}

grove_status grove_dataset_load_shard(const char *path, const grove_params *params,
                                      const grove_schema *schema, grove_dataset **out)
{
    gv_err_clear();
    if (!out) return gv_err(GROVE_ERR_ARG, "grove_dataset_load_shard: out is NULL");
    *out = NULL;
    if (!path) return gv_err(GROVE_ERR_ARG, "grove_dataset_load_shard: path is NULL");
    grove_status st = GROVE_OK;
    grove_dataset *d = NULL;
    if (gv_dist_size() <= 1 && !strstr(path, "{rank}")) {
        st = grove_dataset_load(path, params, schema, &d);
        if (st == GROVE_OK && gv_dist_active()) st = densify(d); /* as with more ranks */
        goto done;
    }
    int rank = gv_dist_rank();
    char own[4096];
    const char *at = strstr(path, "{rank}");
    int per_rank = at != NULL, svm = 0;
    char *text = NULL;
    size_t len = 0, lines = 0, shift = 0;
    if (per_rank) {
        if (snprintf(own, sizeof own, "%.*s%d%s", (int)(at - path), path, rank, at + 6) >= (int)sizeof own)
            st = gv_err(GROVE_ERR_ARG, "%s: path too long", path);
    } else {
        snprintf(own, sizeof own, "%s", path);
        size_t n = strlen(path);
        if (n > 3 && !strcmp(path + n - 3, ".gz"))
            st = gv_err(GROVE_ERR_ARG, "%s: a gzip'd file cannot be cut into shards; give one file "
                                       "per rank with {rank} in the path", path);
        else
            st = read_range(path, svm = file_format(path, params) == GV_FORMAT_LIBSVM, &text,
                            &len, &lines);
        /* lines before range r: the header's and those of ranges 0 .. r-1 (collective) */
        size_t first, total;
        gv_dist_offsets(st == GROVE_OK ? lines : 0, &first, &total);
        /* CSV: text line L >= 2 is file line L - 1 + first; LIBSVM: line L is L + first */
        shift = rank == 0 ? 0 : svm ? first : first - 1;
    }
    /* every rank parses its part: with the caller's schema when given, else inferring one */
    if (st == GROVE_OK) st = parse_own(per_rank, svm, own, text, len, params, schema, shift, &d);
    st = gv_dist_agree(st);
    if (st != GROVE_OK || schema) goto parsed;
    /* then the ranks' schemas merged into the one a single process infers over all rows, and
     * the parts whose own schema differs parsed again with it ({rank} files: LIBSVM when the
     * first one is) */
    if (per_rank) {
        int32_t f = file_format(own, params) == GV_FORMAT_LIBSVM;
        gv_dist_bcast(&f, sizeof f, 0);
        svm = f != 0;
    }
    svm_file whole = {0};
    if (svm) st = svm_file_agree(d, gv_param_int(params, GV_P_LIBSVM_ABSENT) != 0, &whole);
    grove_schema *merged = NULL;
    if (st == GROVE_OK)
        st = share_schemas(d->schema, svm ? &whole : NULL, gv_param_int(params, GV_P_TASK), &merged);
    gv_free(whole.ids);
    if (st == GROVE_OK && !gv_schema_equal(merged, d->schema)) {
        grove_dataset_free(d);
        d = NULL;
        st = parse_own(per_rank, svm, own, text, len, params, merged, shift, &d);
    }
    gv_schema_free(merged);
    st = gv_dist_agree(st);
parsed:
    if (st == GROVE_OK) st = gv_dist_agree(densify(d));
    gv_free(text);
done:
    if (st != GROVE_OK) {
        grove_dataset_free(d);
        return st;
    }
    *out = d;
    return GROVE_OK;
}
