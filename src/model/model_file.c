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
 * file member by member); loading a text file parses it as it reads it (json_load_callback), so
 * it holds the document and the model, never the whole text; a binary file is mapped.
 */
#include "model_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
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
        int fd2 = dup(fileno(f));
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

/* json_load_callback's source for a file, plain or gzip (zlib's gzread reads both): the bytes
 * read, and what failed. */
typedef struct file_source {
    gzFile f;
    size_t n_read;
    int err;              /* errno of a failed read */
    const char *zmsg;     /* or zlib's message for bad compressed data */
} file_source;

static size_t read_callback(void *buffer, size_t size, void *data)
{
    file_source *src = data;
    unsigned want = size > (1u << 30) ? 1u << 30 : (unsigned)size;
    int n = gzread(src->f, buffer, want);
    if (n < 0) {
        int zerr;
        const char *m = gzerror(src->f, &zerr);
        if (zerr == Z_ERRNO)
            src->err = errno ? errno : EIO;
        else
            src->zmsg = m;
        return (size_t)-1;
    }
    src->n_read += (size_t)n;
    return (size_t)n;
}

grove_status grove_model_load(const char *path, grove_model **out)
{
    gv_err_clear();
    if (!out) return gv_err(GROVE_ERR_ARG, "grove_model_load: out is NULL");
    *out = NULL;
    if (!path) return gv_err(GROVE_ERR_ARG, "grove_model_load: path is NULL");
    char msg[128];
    /* a binary model (model_bin.c) is known by its first bytes, whatever its name */
    FILE *peek = fopen(path, "rb");
    if (peek) {
        char magic[8];
        int is_bin = fread(magic, 1, 8, peek) == 8 && memcmp(magic, "GROVEBIN", 8) == 0;
        fclose(peek);
        if (is_bin) return gv_model_bin_load(path, out);
    }
    errno = 0;
    gzFile f = gzopen(path, "rb");
    if (!f)
        return gv_err(errno ? GROVE_ERR_IO : GROVE_ERR_NOMEM, "%s: cannot open: %s", path,
                      errno ? errno_text(errno, msg, sizeof msg) : "out of memory");
    gzbuffer(f, 1u << 17);
    /* parsed as it is read: the text is never held whole, only the document */
    file_source src = {f, 0, 0, NULL};
    json_error_t jerr;
    errno = 0;
    unsigned long failed = gv_alloc_failures();
    json_t *doc = json_load_callback(read_callback, &src, GV_MODEL_LOAD_FLAGS, &jerr);
    /* a gzip file cut short reads as a short text; zlib says so at the end */
    int zend;
    gzerror(f, &zend);
    char zmsg[128];
    const char *zm = src.zmsg ? src.zmsg : "";
    size_t pl = strlen(path);
    if (strncmp(zm, path, pl) == 0 && zm[pl] == ':' && zm[pl + 1] == ' ') zm += pl + 2; /* "path: " */
    snprintf(zmsg, sizeof zmsg, "%s", zm);
    gzclose(f);
    if (src.err) {
        json_decref(doc);
        return gv_err(GROVE_ERR_IO, "%s: cannot read: %s", path,
                      errno_text(src.err, msg, sizeof msg));
    }
    if (src.zmsg || zend == Z_BUF_ERROR) {
        json_decref(doc);
        return gv_err(GROVE_ERR_MODEL, "%s: bad gzip data: %s", path,
                      src.zmsg ? zmsg : "the compressed stream ends early (truncated file)");
    }
    return gv_nomem_if_failed(gv_model_from_parsed(doc, &jerr, src.n_read, path, out), failed,
                              path);
}
