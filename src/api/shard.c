/*
 * shard.c -- grove_dataset_load_shard: this rank's rows of a data-parallel run (dist/).
 *
 * Pipeline position: api/ (reads data/, agrees through dist/, shares the schema as model/'s
 * JSON).  With N > 1 ranks, either
 *  - PATH holds "{rank}": rank r loads the file named with r in its place; or
 *  - one CSV file: its bytes after the header line are cut into N ranges at N equal offsets,
 *    each moved forward to the next line start, and rank r parses the header plus range r
 *    (so ranks hold consecutive rows, in file order: rank 0 the first ones).  Records must not
 *    hold newlines inside quotes; gzip'd files cannot be cut (use {rank} files).
 * The schema (feature kinds, category codes, classes) is rank 0's: rank 0 parses first (with the
 * caller's schema when given) and the others parse with its schema, as a validation file is
 * parsed with the training schema.  Failures are agreed (gv_dist_agree): every rank returns the
 * lowest failing rank's status and message, "rank R: FILE:LINE:COL: ...", LINE counted in the
 * whole file.  Without MPI, or with one rank, this is grove_dataset_load.
 */
#include "../dist/dist.h"
#include "../data/dataset.h"
#include "../model/model.h"
#include "../core/params.h"

#include <errno.h>
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

/* Rank r's text: the header line and its range (see the file comment), and the number of
 * lines of the file before the range's first (for messages). */
static grove_status read_range(const char *path, char **text, size_t *len, size_t *lines_before)
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
    if ((st = line_start(fd, size, 1, &hdr)) != GROVE_OK) goto done;
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
static grove_status shift_line(grove_status st, const char *path, size_t shift)
{
    const char *msg = grove_last_error();
    size_t n = strlen(path);
    if (shift == 0 || strncmp(msg, path, n) != 0 || msg[n] != ':') return st;
    char *end;
    unsigned long long line = strtoull(msg + n + 1, &end, 10);
    if (end == msg + n + 1 || line < 2) return st;
    char *copy = gv_strdup(end);
    if (!copy) return st;
    st = gv_err(st, "%s:%llu%s", path, line + (unsigned long long)shift, copy);
    gv_free(copy);
    return st;
}

grove_status grove_dataset_load_shard(const char *path, const grove_params *params,
                                      const grove_schema *schema, grove_dataset **out)
{
    gv_err_clear();
    if (!out) return gv_err(GROVE_ERR_ARG, "grove_dataset_load_shard: out is NULL");
    *out = NULL;
    if (!path) return gv_err(GROVE_ERR_ARG, "grove_dataset_load_shard: path is NULL");
    if (gv_dist_size() <= 1 && !strstr(path, "{rank}")) return grove_dataset_load(path, params, schema, out);
    int rank = gv_dist_rank();
    char own[4096];
    const char *at = strstr(path, "{rank}");
    int per_rank = at != NULL;
    grove_status st = GROVE_OK;
    char *text = NULL;
    size_t len = 0, lines = 0, shift = 0;
    grove_dataset *d = NULL;
    if (per_rank) {
        if (snprintf(own, sizeof own, "%.*s%d%s", (int)(at - path), path, rank, at + 6) >= (int)sizeof own)
            st = gv_err(GROVE_ERR_ARG, "%s: path too long", path);
    } else {
        snprintf(own, sizeof own, "%s", path);
        size_t n = strlen(path);
        if (n > 3 && !strcmp(path + n - 3, ".gz"))
            st = gv_err(GROVE_ERR_ARG, "%s: a gzip'd file cannot be cut into shards; give one file "
                                       "per rank with {rank} in the path", path);
        else if (gv_param_int(params, GV_P_FORMAT) == GV_FORMAT_LIBSVM)
            st = gv_err(GROVE_ERR_ARG, "%s: only CSV files are cut into shards; give one file per "
                                       "rank with {rank} in the path", path);
        else
            st = read_range(path, &text, &len, &lines);
        /* lines before range r: the header's and those of ranges 0 .. r-1 (collective) */
        size_t first, total;
        gv_dist_offsets(st == GROVE_OK ? lines : 0, &first, &total);
        shift = rank == 0 ? 0 : first - 1; /* text line L >= 2 is file line L - 1 + first */
    }
    /* rank 0 first, with the caller's schema; then the others with rank 0's */
    if (st == GROVE_OK && rank == 0)
        st = per_rank ? grove_dataset_load(own, params, schema, &d)
                      : gv_parse_csv(own, text, len, params, schema, &d);
    st = gv_dist_agree(st);
    if (st != GROVE_OK) goto done;
    char *js = NULL;
    int64_t js_len = 0;
    if (rank == 0) {
        json_t *o = gv_schema_to_json(d->schema);
        js = o ? json_dumps(o, JSON_COMPACT) : NULL;
        json_decref(o);
        js_len = js ? (int64_t)strlen(js) + 1 : 0;
    }
    gv_dist_max_i64(&js_len, 1);
    if (js_len == 0) {
        st = gv_dist_agree(gv_err_nomem("the schema"));
        goto done;
    }
    grove_schema *shared = NULL;
    if (rank != 0) js = gv_malloc((size_t)js_len);
    /* in pieces, so that a rank without memory still takes part (and then fails) */
    char scratch[4096];
    for (size_t off = 0; off < (size_t)js_len; off += sizeof scratch) {
        size_t k = (size_t)js_len - off < sizeof scratch ? (size_t)js_len - off : sizeof scratch;
        if (rank == 0) memcpy(scratch, js + off, k);
        gv_dist_bcast(scratch, k, 0);
        if (rank != 0 && js) memcpy(js + off, scratch, k);
    }
    if (rank != 0 && !js) {
        st = gv_err_nomem("the shared schema");
    } else if (rank != 0) {
        json_error_t je;
        json_t *o = json_loads(js, 0, &je);
        st = o ? gv_schema_from_json(o, &shared) : gv_err(GROVE_ERR_INTERNAL, "the shared schema: %s", je.text);
        json_decref(o);
        if (st == GROVE_OK)
            st = per_rank ? grove_dataset_load(own, params, shared, &d)
                          : gv_parse_csv(own, text, len, params, shared, &d);
        if (st != GROVE_OK && !per_rank) st = shift_line(st, own, shift);
        gv_schema_free(shared);
    }
    if (rank == 0)
        free(js); /* jansson's (json_dumps) */
    else
        gv_free(js);
    st = gv_dist_agree(st);
done:
    gv_free(text);
    if (st != GROVE_OK) {
        grove_dataset_free(d);
        return st;
    }
    *out = d;
    return GROVE_OK;
}
