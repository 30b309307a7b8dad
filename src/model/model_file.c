/*
 * model_file.c -- model files: save (atomic), write to an open output, load; gzip'd when the
 * path ends in ".gz" (writing) or the bytes say so (reading); the binary encoding
 * (model_bin.c) when the path ends in ".gvb" (writing) or the first bytes are its magic.
 *
 * Pipeline position: model/, over the document of model_json.c.
 * Saving goes through core/output.c (grove_output): a regular file is replaced atomically
 * (temporary file, fsync, rename; on failure the old file is untouched), a device or FIFO is
 * written straight through, a symbolic link's target is replaced.
 * Memory: saving holds the model and one member's document at a time (model_json.c writes the
 * file member by member); loading reads the file whole into memory, once (never mapped: a
 * file rewritten underneath must give an error, not a SIGBUS; and FIFOs, pipes and /dev/stdin
 * can be read only once), inflates it when gzip's magic starts it, and parses it in one pass
 * with its packed arrays read where they lie in that buffer (borrowed: core/json.h).
 */
#include "model_int.h"

#include "../core/json.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static const char *errno_text(int e, char *buf, size_t size)
{
    if (strerror_r(e, buf, size) != 0) snprintf(buf, size, "error %d", e);
    return buf;
}

/* json_dump_callback's sink for a file: a failed fwrite ends the dump, with its errno kept. */
typedef struct file_sink {
    FILE *f;          /* a plain file, or */
    gzFile gz;        /* a gzip stream (a path ending in ".gz") */
    int err;          /* errno of the failed write, 0 while none failed */
} file_sink;

static int file_callback(const char *buffer, size_t size, void *data)
{
    file_sink *sink = data;
    if (!sink->gz) {
        if (fwrite(buffer, 1, size, sink->f) == size) return 0;
        sink->err = errno ? errno : EIO;
        return -1;
    }
    while (size > 0) {
        unsigned n = size > (1u << 30) ? 1u << 30 : (unsigned)size;
        int w = gzwrite(sink->gz, buffer, n);
        if (w <= 0) {
            int zerr;
            gzerror(sink->gz, &zerr);
            sink->err = zerr == Z_ERRNO && errno ? errno : EIO;
            return -1;
        }
        buffer += w;
        size -= (size_t)w;
    }
    return 0;
}

/* Whether a model path asks for gzip ("model.json.gz"). */
static int gz_path(const char *path)
{
    size_t n = strlen(path);
    return n >= 3 && strcmp(path + n - 3, ".gz") == 0;
}

/* Writes the model's file text (GV_MODEL_DUMP_FILE and a final newline) to the output, gzip'd
 * when its path ends in ".gz".  The text is streamed member by member (model_json.c): no copy
 * of the whole file, nor of the whole document, is held in memory. */
static grove_status write_text(const grove_model *model, grove_output *out)
{
    const char *path = grove_output_path(out);
    FILE *f = grove_output_stream(out);
    char msg[128];
    /* gzip: a stream on a second descriptor of the same file, closed (finished) before the
     * output is committed through the first; level 1, the fast one (forests make big files) */
    file_sink sink = {f, NULL, 0};
    if (gz_path(path)) {
        if (fflush(f) != 0) return gv_err(GROVE_ERR_IO, "%s: cannot write: %s", path,
                                          errno_text(errno, msg, sizeof msg));
        int fd2 = dup(gv_output_fd(out));
        if (fd2 < 0 || !(sink.gz = gzdopen(fd2, "wb1"))) {
            int e = errno;
            if (fd2 >= 0) close(fd2);
            if (fd2 >= 0) return gv_err(GROVE_ERR_NOMEM, "%s: out of memory while writing", path);
            return gv_err(GROVE_ERR_IO, "%s: cannot write: %s", path, errno_text(e, msg, sizeof msg));
        }
    }
    int sink_failed = 0;
    grove_status st = gv_model_write_text(model, file_callback, &sink, &sink_failed);
    if (sink.gz && gzclose(sink.gz) != Z_OK && st == GROVE_OK) {
        st = GROVE_ERR_IO;
        sink_failed = 1;
        sink.err = errno ? errno : EIO;
    }
    if (st == GROVE_OK) return GROVE_OK;
    if (!sink_failed) {
        gv_err_prefix("%s", path);
        return st;
    }
    if (sink.err)
        return gv_err(GROVE_ERR_IO, "%s: cannot write: %s", path,
                      errno_text(sink.err, msg, sizeof msg));
    return gv_err(GROVE_ERR_NOMEM, "%s: out of memory while writing", path);
}

grove_status grove_model_write(const grove_model *model, grove_output *out)
{
    gv_err_clear();
    if (!model || !out) return gv_err(GROVE_ERR_ARG, "grove_model_write: NULL argument");
    const char *path = grove_output_path(out);
    if (!gv_model_bin_path(path)) return write_text(model, out);
    return gv_model_write_bin(model, grove_output_stream(out), path);
}

grove_status grove_model_save(const grove_model *model, const char *path)
{
    gv_err_clear();
    if (!model || !path) return gv_err(GROVE_ERR_ARG, "grove_model_save: NULL argument");
    grove_output *out;
    grove_status st = grove_output_open(path, NULL, &out);
    if (st != GROVE_OK) return st;
    st = grove_model_write(model, out);
    if (st != GROVE_OK) {
        grove_output_abort(out);
        return st;
    }
    return grove_output_commit(out);
}

/* ---- long strings past jansson ----
 * jansson reads a string byte by byte (escapes, UTF-8), and a text model is mostly long strings
 * of plain ASCII: its packed arrays, megabytes each.  The source below hands jansson the file
 * with each such string *value* -- at least LONG_STRING bytes in 0x20..0x7e without '"' or '\\',
 * not followed by ':' (a key keeps its text: duplicate keys are still found) -- replaced by a
 * placeholder "\u0001" + its number, keeps the string itself (json_stringn_nocheck: plain
 * ASCII is UTF-8), and put_back() swaps each placeholder for its string once parsed.  A string
 * is found exactly as jansson's lexer finds it (a '"' outside a string opens one, '\\' escapes
 * the next byte), and its bytes are the string's value, so the document is the one jansson
 * would build from the file.  A file that spells "\u0001" anywhere (its strings could then look
 * like placeholders), or that does not parse, is read again without the filter, so its
 * document -- or its error message, with the file's own line and column -- is jansson's. */
#define LONG_STRING 128
enum { S_OUT, S_PLAIN, S_AFTER, S_PASS, S_ESC, S_U };

/* A string taken out: its value (read from a stream), or its bytes in the file's buffer. */
typedef struct taken {
    json_t *value;
    const char *bytes;
    size_t len;
    int used;            /* put back */
} taken;

typedef struct str_filter {
    int direct;          /* the whole file in one filter_bytes call (always, the file read whole): strings are not
                          * copied, str_p and str_n say where they lie */
    const char *str_p;
    size_t str_n;
    gv_buf out;          /* bytes for jansson, from out_pos */
    size_t out_pos;
    gv_buf str;          /* S_PLAIN, S_AFTER: the plain string read so far */
    gv_buf ws;           /* S_AFTER: the whitespace after it */
    int state, eof, failed, collision;
    char u[4];           /* S_U: the \u escape's digits so far */
    int n_u;
    taken *subs;         /* the strings taken out, by number */
    size_t n_subs, cap_subs;
} str_filter;

static void emit(str_filter *f, const void *p, size_t n)
{
    if (n && !f->failed && gv_buf_append(&f->out, p, n) != 0) f->failed = 1;
}

/* The plain string in f->str (and the whitespace after it) as they were. */
static const char *str_data(const str_filter *f) { return f->direct ? f->str_p : f->str.data; }
static size_t str_len(const str_filter *f) { return f->direct ? f->str_n : f->str.len; }

static void str_clear(str_filter *f)
{
    f->str.len = f->str_n = 0;
}

static void emit_string(str_filter *f)
{
    emit(f, "\"", 1);
    emit(f, str_data(f), str_len(f));
    emit(f, "\"", 1);
    emit(f, f->ws.data, f->ws.len);
    str_clear(f);
    f->ws.len = 0;
}

/* The long plain string in f->str as a value: kept, and a placeholder for jansson. */
static void take_string(str_filter *f)
{
    if (f->n_subs == f->cap_subs) {
        size_t cap = f->cap_subs ? 2 * f->cap_subs : 64;
        taken *s = gv_realloc_array(f->subs, cap, sizeof *s);
        if (!s) {
            f->failed = 1;
            return;
        }
        f->subs = s;
        f->cap_subs = cap;
    }
    /* a string is made a value when put back (put_back: borrowed or copied) */
    json_t *v = f->direct ? NULL : json_stringn_nocheck(f->str.data, f->str.len);
    if (!v && !f->direct) {
        f->failed = 1;
        return;
    }
    f->subs[f->n_subs] = (taken){v, str_data(f), str_len(f), 0};
    char ph[40];
    int n = snprintf(ph, sizeof ph, "\"\\u0001%zu\"", f->n_subs++);
    emit(f, ph, (size_t)n);
    emit(f, f->ws.data, f->ws.len);
    str_clear(f);
    f->ws.len = 0;
}

/* Runs the bytes p[0..n) through the string finder. */
static void filter_bytes(str_filter *f, const unsigned char *p, size_t n)
{
    size_t i = 0;
    while (i < n && !f->failed) {
        unsigned char c = p[i];
        switch (f->state) {
        case S_OUT: {
            const unsigned char *q = memchr(p + i, '"', n - i);
            size_t run = q ? (size_t)(q - (p + i)) : n - i;
            emit(f, p + i, run);
            i += run;
            if (q) {
                f->state = S_PLAIN;
                str_clear(f);
                i++;
                f->str_p = (const char *)p + i;
            }
            break;
        }
        case S_PLAIN: {
            size_t j = i + gv_plain_run(p + i, n - i);
            if (f->direct)
                f->str_n += j - i;
            else if (gv_buf_append(&f->str, p + i, j - i) != 0)
                f->failed = 1;
            i = j;
            if (i == n) break;
            c = p[i++];
            if (c == '"' && str_len(f) >= LONG_STRING) {
                f->state = S_AFTER;
            } else if (c == '"') {
                emit_string(f);
                f->state = S_OUT;
            } else { /* an escape or a byte jansson checks: the rest as it is */
                emit(f, "\"", 1);
                emit(f, str_data(f), str_len(f));
                emit(f, &c, 1);
                str_clear(f);
                f->state = c == '\\' ? S_ESC : S_PASS;
            }
            break;
        }
        case S_AFTER:
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                if (gv_buf_append(&f->ws, &c, 1) != 0) f->failed = 1;
                i++;
                break;
            }
            if (c == ':')
                emit_string(f); /* a key */
            else
                take_string(f);
            f->state = S_OUT; /* c is read there */
            break;
        case S_PASS:
            emit(f, &c, 1);
            i++;
            if (c == '\\') f->state = S_ESC;
            if (c == '"') f->state = S_OUT;
            break;
        case S_ESC:
            emit(f, &c, 1);
            i++;
            f->n_u = 0;
            f->state = c == 'u' ? S_U : S_PASS;
            break;
        case S_U:
            emit(f, &c, 1);
            i++;
            f->u[f->n_u++] = (char)c;
            if (f->n_u == 4) {
                f->collision |= memcmp(f->u, "0001", 4) == 0;
                f->state = S_PASS;
            }
            break;
        }
    }
}

/* The end of the input: what is pending goes as it was. */
static void filter_end(str_filter *f)
{
    f->eof = 1;
    if (f->state == S_PLAIN) {
        emit(f, "\"", 1);
        emit(f, str_data(f), str_len(f));
    } else if (f->state == S_AFTER) {
        emit_string(f);
    }
}

/* Whether v is a placeholder: 1 with its number in *k, 0 not one, -1 one that names no string
 * or one already put back (never, in a file without "\u0001"). */
static int placeholder(const json_t *v, const str_filter *f, size_t *k)
{
    const char *s = json_string_value(v);
    if (!s || s[0] != '\x01') return 0;
    size_t n = json_string_length(v), x = 0;
    if (n < 2 || n > 21) return -1;
    for (size_t i = 1; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        x = x * 10 + (size_t)(s[i] - '0');
    }
    if (x >= f->n_subs || f->subs[x].used) return -1;
    *k = x;
    return 1;
}

/* String k's value, taken from f (NULL when out of memory): the file's packed arrays --
 * the long strings of a tree object (learn/tree_component.c reads every one of them with
 * gv_packed_open) -- are borrowed where they lie, other strings copied. */
static json_t *take_back(str_filter *f, size_t k, int borrow)
{
    taken *t = &f->subs[k];
    json_t *s = t->value;
    if (!s) s = borrow ? gv_packed_borrow_text(t->bytes, t->len) : json_stringn_nocheck(t->bytes, t->len);
    t->value = NULL;
    t->used = 1;
    return s;
}

/* Whether v is a tree component's object: "kind": "tree". */
static int tree_object(const json_t *v)
{
    const char *kind = json_string_value(json_object_get(v, "kind"));
    return kind && strcmp(kind, "tree") == 0;
}

/* Swaps each placeholder in v for its string, counting them in *done; -1 on a bad one. */
static int put_back(json_t *v, str_filter *f, size_t *done)
{
    size_t k = 0;
    if (json_is_object(v)) {
        int borrow = f->direct && tree_object(v);
        for (void *it = json_object_iter(v); it; it = json_object_iter_next(v, it)) {
            json_t *x = json_object_iter_value(it);
            int ph = placeholder(x, f, &k);
            if (ph < 0) return -1;
            if (ph) {
                json_t *s = take_back(f, k, borrow);
                if (!s || json_object_iter_set_new(v, it, s) != 0) return -1;
                ++*done;
            } else if (put_back(x, f, done) != 0) {
                return -1;
            }
        }
    } else if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++) {
            json_t *x = json_array_get(v, i);
            int ph = placeholder(x, f, &k);
            if (ph < 0) return -1;
            if (ph) {
                json_t *s = take_back(f, k, 0);
                if (!s || json_array_set_new(v, i, s) != 0) return -1;
                ++*done;
            } else if (put_back(x, f, done) != 0) {
                return -1;
            }
        }
    }
    return 0;
}

static void filter_free(str_filter *f)
{
    if (!f) return;
    for (size_t k = 0; k < f->n_subs; k++) json_decref(f->subs[k].value);
    gv_free(f->subs);
    gv_buf_free(&f->out);
    gv_buf_free(&f->str);
    gv_buf_free(&f->ws);
    gv_free(f);
}

/* The whole of `path` read into *out (NUL-terminated): a regular file, a FIFO, a pipe or a
 * device alike, opened once.  Never mapped: a file rewritten while it is read (cp, cat >) then
 * reads as a short or mixed text that the parser or the checksum refuses, never a SIGBUS. */
static grove_status read_whole(const char *path, gv_buf *out)
{
    char msg[128];
    int fd;
    do
        fd = open(path, O_RDONLY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return gv_err(GROVE_ERR_IO, "%s: cannot open: %s", path, errno_text(errno, msg, sizeof msg));
    /* a regular file's size, plus one byte for the read that sees its end: no growing */
    size_t want = (size_t)1 << 16;
    struct stat sb;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0 &&
        (uintmax_t)sb.st_size < SIZE_MAX / 2)
        want = (size_t)sb.st_size + 1;
    out->data = gv_malloc(want + 1);
    if (!out->data) {
        close(fd);
        return gv_err_nomem(path);
    }
    out->len = 0;
    out->cap = want + 1;
    for (;;) {
        if (out->cap - out->len < 2 && gv_buf_reserve(out, out->cap) != 0) {
            close(fd);
            gv_buf_free(out);
            return gv_err_nomem(path);
        }
        size_t room = out->cap - out->len - 1;
        ssize_t n = read(fd, out->data + out->len, room > (1u << 30) ? 1u << 30 : room);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            int e = errno;
            close(fd);
            gv_buf_free(out);
            return gv_err(GROVE_ERR_IO, "%s: cannot read: %s", path, errno_text(e, msg, sizeof msg));
        }
        if (n == 0) break;
        out->len += (size_t)n;
    }
    close(fd);
    out->data[out->len] = '\0';
    return GROVE_OK;
}

/* The text inside gzip bytes (one member or several in a row, as gzip writes them), into *out;
 * GROVE_ERR_MODEL naming zlib's complaint, or a stream that ends early. */
static grove_status gunzip(const unsigned char *b, size_t n, const char *path, gv_buf *out)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK) return gv_err_nomem(path); /* 16: gzip only */
    size_t pos = 0;
    grove_status st = GROVE_OK;
    for (;;) {
        if (gv_buf_reserve(out, out->len < (1u << 16) ? 1u << 16 : out->len) != 0) {
            st = gv_err_nomem(path);
            break;
        }
        size_t in = n - pos, room = out->cap - out->len - 1;
        z.next_in = (Bytef *)(b + pos);
        z.avail_in = (uInt)(in > (1u << 30) ? 1u << 30 : in);
        z.next_out = (Bytef *)(out->data + out->len);
        z.avail_out = (uInt)(room > (1u << 30) ? 1u << 30 : room);
        int ret = inflate(&z, Z_NO_FLUSH);
        pos = (size_t)((const unsigned char *)z.next_in - b);
        out->len = (size_t)((char *)z.next_out - out->data);
        if (ret == Z_STREAM_END) {
            /* another member follows (gzip -c a b), as gzread reads it */
            if (n - pos >= 2 && b[pos] == 0x1f && b[pos + 1] == 0x8b && inflateReset(&z) == Z_OK)
                continue;
            break;
        }
        if (ret == Z_MEM_ERROR) {
            st = gv_err_nomem(path);
            break;
        }
        if (ret != Z_OK && ret != Z_BUF_ERROR) {
            st = gv_err(GROVE_ERR_MODEL, "%s: bad gzip data: %s", path,
                        z.msg ? z.msg : "corrupt compressed stream");
            break;
        }
        if (pos == n && z.avail_out > 0) { /* all input used, the stream not ended */
            st = gv_err(GROVE_ERR_MODEL, "%s: bad gzip data: the compressed stream ends early "
                        "(truncated file)", path);
            break;
        }
    }
    inflateEnd(&z);
    if (st != GROVE_OK)
        gv_buf_free(out);
    else
        out->data[out->len] = '\0';
    return st;
}

grove_status grove_model_load(const char *path, grove_model **out)
{
    gv_err_clear();
    if (!out) return gv_err(GROVE_ERR_ARG, "grove_model_load: out is NULL");
    *out = NULL;
    if (!path) return gv_err(GROVE_ERR_ARG, "grove_model_load: path is NULL");
    /* read once, then known by its first bytes whatever its name: so a FIFO or a pipe works */
    gv_buf file = {0};
    grove_status st = read_whole(path, &file);
    if (st != GROVE_OK) return st;
    const unsigned char *b = (const unsigned char *)file.data;
    if (file.len >= 8 && memcmp(b, "GROVEBIN", 8) == 0) {
        st = gv_model_bin_load_bytes(b, file.len, path, out);
        gv_buf_free(&file);
        return st;
    }
    if (file.len >= 2 && b[0] == 0x1f && b[1] == 0x8b) { /* gzip's magic */
        gv_buf text = {0};
        st = gunzip(b, file.len, path, &text);
        gv_buf_free(&file);
        if (st != GROVE_OK) return st;
        file = text;
    }
    {
        /* a model is JSON text (an object), GROVEBIN or gzip: anything else -- a data file
         * given as MODEL, say -- is named as such, not as a JSON syntax error */
        const char *h = file.data ? file.data : "";
        size_t got = file.len < 64 ? file.len : 64, i = 0;
        while (i < got && strchr(" \t\r\n", h[i])) i++;
        if (got > 0 && (i == got || h[i] != '{')) {
            size_t n = i;
            while (n < got && n - i < 40 && h[n] != '\n' && h[n] != '\r' &&
                   (unsigned char)h[n] >= 0x20 && (unsigned char)h[n] < 0x7f)
                n++;
            st = gv_err(GROVE_ERR_MODEL,
                        "%s: is not a grove model file (it starts with \"%.*s\"; a model is "
                        "JSON text or GROVEBIN binary, as grove train writes it)",
                        path, (int)(n - i), h + i);
            gv_buf_free(&file);
            return st;
        }
    }
    unsigned long failed = gv_alloc_failures();
    json_error_t jerr;
    json_t *doc = NULL;
    str_filter *flt = gv_calloc(1, sizeof *flt);
    if (!flt) {
        gv_buf_free(&file);
        return gv_err_nomem(path);
    }
    /* filtered in one pass, its packed arrays borrowed where they lie in the buffer (put_back)
     * until the model is read */
    flt->direct = 1;
    filter_bytes(flt, (const unsigned char *)file.data, file.len);
    filter_end(flt);
    memset(&jerr, 0, sizeof jerr); /* no text: out of memory (gv_json_load_nomem) */
    if (!flt->failed)
        doc = json_loadb(flt->out.data ? flt->out.data : "", flt->out.len, GV_MODEL_LOAD_FLAGS,
                         &jerr);
    if (!flt->failed) {
        /* parsed again without the filter: a file that spells "\u0001", or that does not parse
         * (its message then has the file's own line and column) */
        size_t done = 0;
        int again = flt->collision || (!doc && flt->n_subs > 0);
        if (doc && !again && flt->n_subs > 0 && (put_back(doc, flt, &done) != 0 || done != flt->n_subs))
            again = 1;
        if (again) {
            json_decref(doc);
            filter_free(flt);
            flt = NULL;
            doc = json_loadb(file.data ? file.data : "", file.len, GV_MODEL_LOAD_FLAGS, &jerr);
        }
    }
    filter_free(flt);
    st = gv_nomem_if_failed(gv_model_from_parsed(doc, &jerr, file.len, path, out), failed, path);
    gv_packed_borrow_end();
    gv_buf_free(&file);
    return st;
}
