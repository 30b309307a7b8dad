/*
 * model_bin.c -- the binary encoding of a model file: the same versioned document as the JSON
 * text (docs/model-format.md), with its big arrays as raw little-endian values, so that saving
 * prints no number and loading parses none.  Chosen by the extension ".gvb" when saving; a
 * loader recognizes it by its first bytes, whatever the name.
 *
 * Pipeline position: model/, beside model_file.c (the text file).
 * Layout (all integers little-endian):
 *   header   24 bytes: "GROVEBIN", u16 encoding major (1), u16 encoding minor (2), u16 model
 *            format major, u16 model format minor (what the document's "version" says), 8 zero
 *            bytes
 *   payload  one value: a tag byte, then
 *              'o' u32 n, n x (u32 key length, key bytes, value)   an object, keys in order
 *              'a' u32 n, n values                                   an array
 *              's' u64 length, zero bytes up to the next multiple of 8 of the file offset,
 *                  the bytes                                         a string
 *              'i' int64, 'r' IEEE double, 't' true, 'f' false, 'n' null
 *            A packed array (core/json.h) is a string in its binary form: 8 header bytes, then
 *            its entries, each array in the narrowest width that holds its values exactly
 *            (1-, 2-, 4- or 8-byte integers, floats, doubles, a word list and 1-byte indices);
 *            every array starts 8-aligned in the file (mmap-friendly).  Encoding 1.1 added
 *            the narrow widths; 1.0 files (8-byte values only) still load.  Encoding 1.2 writes
 *            each tree in its compact form (learn/tree_component.c: the fields of split nodes
 *            only, no threshold, depth or level-order children, class weights as whole numbers
 *            instead of values and weights, each rebuilt bit for bit when read); 1.0 and 1.1
 *            files, whose trees have every field of every node, still load.
 *   trailer  16 bytes: u64 payload length, u32 CRC-32 (zlib) of the payload, "GVBE"
 * Saving streams the payload (the CRC and length go last), so it never holds the file's bytes,
 * and builds each member's JSON only when its turn comes (learner.h, lazy members), so it holds
 * one member's document at a time.
 * Trust: the loader checks the magic, both versions (a newer major is refused by name), the
 * trailer, the length and the checksum, then decodes with every length checked against the
 * bytes left (nesting at most 64 deep, keys and text strings valid UTF-8, no duplicate keys),
 * and hands the document to model_json.c's reader: every field, index and range is checked
 * exactly as for a text file.
 */
#include "model_int.h"

#include "../core/json.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define MAGIC "GROVEBIN"
#define TRAILER_MAGIC "GVBE"
#define ENC_MAJOR 1
#define ENC_MINOR 2
#define HEADER 24
#define TRAILER 16
#define MAX_DEPTH 64

int gv_model_bin_path(const char *path)
{
    size_t n = strlen(path);
    return n >= 4 && strcmp(path + n - 4, ".gvb") == 0;
}

/* ---- writing ---- */

typedef struct writer {
    FILE *f;
    uLong crc;
    uint64_t len; /* payload bytes written */
    int err;      /* errno of a failed write */
    int nomem;    /* a member's JSON could not be built */
} writer;

static void put(writer *w, const void *p, size_t n)
{
    if (w->err || n == 0) return;
    if (fwrite(p, 1, n, w->f) != n) {
        w->err = errno ? errno : EIO;
        return;
    }
    /* zlib's crc32 takes an unsigned length: feed it in pieces */
    const unsigned char *b = p;
    for (size_t done = 0; done < n;) {
        unsigned chunk = n - done > (1u << 30) ? 1u << 30 : (unsigned)(n - done);
        w->crc = crc32(w->crc, b + done, chunk);
        done += chunk;
    }
    w->len += n;
}

static void put_u64(writer *w, uint64_t u)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)(u >> (8 * i));
    put(w, b, 8);
}

static void put_u32(writer *w, uint32_t u)
{
    unsigned char b[4];
    for (int i = 0; i < 4; i++) b[i] = (unsigned char)(u >> (8 * i));
    put(w, b, 4);
}

static void put_tag(writer *w, char t) { put(w, &t, 1); }

static void encode(writer *w, const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        put_tag(w, 'o');
        put_u32(w, (uint32_t)json_object_size(v));
        const char *key;
        const json_t *x;
        json_object_foreach((json_t *)v, key, x) {
            size_t n = strlen(key);
            put_u32(w, (uint32_t)n);
            put(w, key, n);
            encode(w, x);
        }
        break;
    }
    case JSON_ARRAY: {
        put_tag(w, 'a');
        put_u32(w, (uint32_t)json_array_size(v));
        for (size_t i = 0; i < json_array_size(v); i++) encode(w, json_array_get(v, i));
        break;
    }
    case JSON_STRING: {
        static const unsigned char zeros[8];
        size_t member;
        if (gv_component_lazy_index(v, &member)) {
            /* a member (learner.h): built, written and freed here */
            json_t *m = gv_component_lazy_build(member);
            if (!m) {
                w->nomem = 1;
                w->err = w->err ? w->err : ENOMEM;
                return;
            }
            encode(w, m);
            json_decref(m);
            break;
        }
        size_t n = json_string_length(v);
        put_tag(w, 's');
        put_u64(w, n);
        put(w, zeros, (8 - (HEADER + w->len) % 8) % 8);
        put(w, json_string_value(v), n);
        break;
    }
    case JSON_INTEGER:
        put_tag(w, 'i');
        put_u64(w, (uint64_t)json_integer_value(v));
        break;
    case JSON_REAL: {
        double d = json_real_value(v);
        uint64_t u;
        memcpy(&u, &d, sizeof u);
        put_tag(w, 'r');
        put_u64(w, u);
        break;
    }
    case JSON_TRUE: put_tag(w, 't'); break;
    case JSON_FALSE: put_tag(w, 'f'); break;
    default: put_tag(w, 'n'); break;
    }
}

grove_status gv_model_bin_write(const json_t *doc, FILE *f, const char *path)
{
    unsigned char head[HEADER] = {0};
    memcpy(head, MAGIC, 8);
    /* the model format version of the document itself (1.2 unless it needs 1.3) */
    const json_t *doc_minor = json_array_get(json_object_get(doc, "version"), 1);
    const unsigned v[4] = {ENC_MAJOR, ENC_MINOR, GV_MODEL_FORMAT_MAJOR,
                           json_is_integer(doc_minor) ? (unsigned)json_integer_value(doc_minor)
                                                      : GV_MODEL_FORMAT_MINOR};
    for (int i = 0; i < 4; i++) {
        head[8 + 2 * i] = (unsigned char)v[i];
        head[9 + 2 * i] = (unsigned char)(v[i] >> 8);
    }
    errno = 0;
    writer w = {f, crc32(0L, Z_NULL, 0), 0, 0, 0};
    if (fwrite(head, 1, HEADER, f) != HEADER) w.err = errno ? errno : EIO;
    encode(&w, doc);
    uint64_t len = w.len;
    uLong crc = w.crc;
    put_u64(&w, len);
    put_u32(&w, (uint32_t)crc);
    put(&w, TRAILER_MAGIC, 4);
    if (w.nomem) return gv_err(GROVE_ERR_NOMEM, "%s: out of memory while writing", path);
    if (w.err) return gv_err(GROVE_ERR_IO, "%s: cannot write: %s", path, strerror(w.err));
    return GROVE_OK;
}

/* ---- reading ---- */

typedef struct reader {
    const unsigned char *base, *p, *end; /* the payload */
    const char *path;
} reader;

static grove_status bad(const reader *r, const char *what)
{
    return gv_err(GROVE_ERR_MODEL, "%s: binary model: byte %zu: %s", r->path,
                  (size_t)(HEADER + (r->p - r->base)), what);
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t u = 0;
    for (int i = 0; i < 8; i++) u |= (uint64_t)p[i] << (8 * i);
    return u;
}

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static size_t left(const reader *r) { return (size_t)(r->end - r->p); }

static grove_status decode(reader *r, int depth, json_t **out)
{
    *out = NULL;
    if (depth > MAX_DEPTH) return bad(r, "nested more than 64 deep");
    if (left(r) < 1) return bad(r, "truncated: a value expected");
    char tag = (char)*r->p++;
    grove_status st = GROVE_OK;
    switch (tag) {
    case 'o': {
        if (left(r) < 4) return bad(r, "truncated object");
        uint32_t n = get_u32(r->p);
        r->p += 4;
        json_t *obj = json_object();
        if (!obj) return gv_err_nomem("a binary model");
        for (uint32_t i = 0; i < n && st == GROVE_OK; i++) {
            if (left(r) < 4) {
                st = bad(r, "truncated object");
                break;
            }
            uint32_t klen = get_u32(r->p);
            r->p += 4;
            if (left(r) < klen) {
                st = bad(r, "truncated key");
                break;
            }
            const char *key = (const char *)r->p;
            if (memchr(key, 0, klen) || json_object_getn(obj, key, klen)) {
                st = bad(r, memchr(key, 0, klen) ? "a key holds a NUL byte" : "a repeated key");
                break;
            }
            r->p += klen;
            json_t *v;
            if ((st = decode(r, depth + 1, &v)) != GROVE_OK) break;
            if (json_object_setn_new(obj, key, klen, v) != 0) {
                r->p = (const unsigned char *)key;
                st = bad(r, "a key that is not UTF-8");
            }
        }
        if (st != GROVE_OK) {
            json_decref(obj);
            return st;
        }
        *out = obj;
        return GROVE_OK;
    }
    case 'a': {
        if (left(r) < 4) return bad(r, "truncated array");
        uint32_t n = get_u32(r->p);
        r->p += 4;
        if (n > left(r)) return bad(r, "an array longer than the file");
        json_t *a = json_array();
        if (!a) return gv_err_nomem("a binary model");
        for (uint32_t i = 0; i < n && st == GROVE_OK; i++) {
            json_t *v;
            if ((st = decode(r, depth + 1, &v)) == GROVE_OK && json_array_append_new(a, v) != 0)
                st = gv_err_nomem("a binary model");
        }
        if (st != GROVE_OK) {
            json_decref(a);
            return st;
        }
        *out = a;
        return GROVE_OK;
    }
    case 's': {
        if (left(r) < 8) return bad(r, "truncated string");
        uint64_t n = get_u64(r->p);
        r->p += 8;
        size_t pad = (8 - (size_t)(HEADER + (r->p - r->base)) % 8) % 8;
        if (left(r) < pad || left(r) - pad < n) return bad(r, "truncated string");
        for (size_t i = 0; i < pad; i++)
            if (r->p[i]) return bad(r, "non-zero padding");
        r->p += pad;
        const char *s = (const char *)r->p;
        /* a packed array's binary form (0x01 first, its header's last byte zero: no name or
         * text holds a NUL byte) is borrowed where it lies, for core/json.c to check when the
         * model reader reads it; any other string must be UTF-8 */
        int packed = n >= 8 && s[0] == 0x01 && s[7] == 0;
        /* a NUL would cut the string wherever it is read as C text ("lab\0el" -> "lab"); the
         * text format refuses "\u0000" the same way */
        if (!packed && memchr(s, 0, (size_t)n)) return bad(r, "a string holds a NUL byte");
        json_t *v = packed ? gv_packed_borrow(s, (size_t)n) : json_stringn(s, (size_t)n);
        if (!v) return packed ? gv_err_nomem("a binary model") : bad(r, "a string that is not UTF-8");
        r->p += n;
        *out = v;
        return GROVE_OK;
    }
    case 'i':
    case 'r': {
        if (left(r) < 8) return bad(r, "truncated number");
        uint64_t u = get_u64(r->p);
        double d;
        memcpy(&d, &u, sizeof d);
        if (tag == 'r' && !isfinite(d)) return bad(r, "a number that is not finite");
        r->p += 8;
        *out = tag == 'i' ? json_integer((json_int_t)u) : json_real(d);
        return *out ? GROVE_OK : gv_err_nomem("a binary model");
    }
    case 't': *out = json_true(); return GROVE_OK;
    case 'f': *out = json_false(); return GROVE_OK;
    case 'n': *out = json_null(); return GROVE_OK;
    default:
        r->p--;
        return bad(r, "unknown value tag");
    }
}

grove_status gv_model_bin_load_bytes(const unsigned char *b, size_t size, const char *path,
                                     grove_model **out)
{
    if (size < HEADER + TRAILER || memcmp(b, MAGIC, 8) != 0)
        return gv_err(GROVE_ERR_MODEL, "%s: binary model: %s", path,
                      size < HEADER + TRAILER ? "truncated (shorter than its header and trailer)"
                                              : "not a grove binary model (magic)");
    unsigned v[4];
    for (int i = 0; i < 4; i++) v[i] = (unsigned)b[8 + 2 * i] | (unsigned)b[9 + 2 * i] << 8;
    if (v[0] != ENC_MAJOR)
        return gv_err(GROVE_ERR_MODEL, "%s: binary model: encoding version %u.%u; this build "
                      "reads %d.x", path, v[0], v[1], ENC_MAJOR);
    if (v[2] > GV_MODEL_FORMAT_MAJOR)
        return gv_err(GROVE_ERR_MODEL, "%s: binary model: model format %u.%u is newer than "
                      "this build reads (%d.%d)", path, v[2], v[3], GV_MODEL_FORMAT_MAJOR,
                      GV_MODEL_FORMAT_MINOR);
    const unsigned char *t = b + size - TRAILER;
    uint64_t len = get_u64(t);
    if (memcmp(t + 12, TRAILER_MAGIC, 4) != 0 || len != size - HEADER - TRAILER)
        return gv_err(GROVE_ERR_MODEL, "%s: binary model: truncated or extended (%zu bytes; "
                      "the trailer is missing or gives another length)", path, size);
    uLong crc = crc32(0L, Z_NULL, 0);
    for (size_t done = 0; done < len;) {
        unsigned chunk = len - done > (1u << 30) ? 1u << 30 : (unsigned)(len - done);
        crc = crc32(crc, b + HEADER + done, chunk);
        done += chunk;
    }
    if ((uint32_t)crc != get_u32(t + 8))
        return gv_err(GROVE_ERR_MODEL, "%s: binary model: checksum mismatch: the file was "
                      "modified or corrupted (crc32 %08x stored, %08x computed)", path,
                      (unsigned)get_u32(t + 8), (unsigned)(uint32_t)crc);
    reader r = {b + HEADER, b + HEADER, b + HEADER + len, path};
    json_t *doc;
    /* the packed arrays are borrowed from b until the model is read */
    grove_status st = decode(&r, 0, &doc);
    if (st == GROVE_OK && r.p != r.end) {
        json_decref(doc);
        st = bad(&r, "bytes after the document");
    } else if (st == GROVE_OK) {
        st = gv_model_from_bin_doc(doc, path, out);
        json_decref(doc);
    }
    gv_packed_borrow_end();
    return st;
}
