/*
 * json.h -- the JSON codec every reader and writer of model files shares: typed getters, the
 * check that an object holds only known fields, arrays of reals, and packed arrays.
 *
 * Pipeline position: core/ (jansson underneath).  Components (learn/, ensemble/), the model file
 * (model/) and the vision cascade read and write through these, so a field's message has one
 * shape everywhere: "FIELD: expected ..., got ...", "unknown field 'KEY' in WHAT".
 * Format details (packed arrays, exact reals): docs/model-format.md.
 */
#ifndef GV_JSON_H
#define GV_JSON_H

#include <jansson.h>

#include "core.h"

/* "an object", "an array", "a string", "an integer", "a real number", "true", "false", "null":
 * what a message says it found. */
const char *gv_json_kind(const json_t *v);

/* GROVE_OK when every member of object `obj` is named in known[0..n); else GROVE_ERR_MODEL
 * "unknown field 'KEY' in WHAT" (loaders reject what they do not understand). */
grove_status gv_json_check_fields(const json_t *obj, const char *const *known, size_t n,
                                  const char *what);
#define GV_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- typed getters: each records a GROVE_ERR_MODEL message naming `field` when it is absent or
 * has the wrong type or range ("n_bins: expected an integer, got a string") ---- */
grove_status gv_json_get_int(const json_t *obj, const char *field, int64_t lo, int64_t hi,
                             int64_t *out);
grove_status gv_json_get_double(const json_t *obj, const char *field, double *out);
grove_status gv_json_get_string(const json_t *obj, const char *field, const char **out);
/* A new JSON array of the n doubles (written with 17 digits: exact); NULL when out of memory. */
json_t *gv_json_real_array(const double *v, size_t n);
/* The numbers of array `a` into x[0..n) (a was checked first, e.g. by gv_json_get_array). */
void gv_json_array_values(const json_t *a, double *x, size_t n);
/* The array field `field` of exactly n finite numbers into out[n]. */
grove_status gv_json_get_reals(const json_t *obj, const char *field, size_t n, double *out);
/* An array field of exactly n numbers (n = (size_t)-1: any length, returned in *n_out). */
grove_status gv_json_get_array(const json_t *obj, const char *field, size_t n, const json_t **out);

/* An object-valued field. */
grove_status gv_json_get_object(const json_t *obj, const char *field, const json_t **out);

/* ---- building ---- */
/* json_object_set_new that takes NULL (out of memory while building the value): 0 ok, -1 failed
 * (value is released either way), so a writer can OR the results and check once. */
int gv_json_set_new(json_t *obj, const char *key, json_t *value);
/* A new JSON array of the n strings (UTF-8); NULL when out of memory. */
json_t *gv_json_string_array(char *const *names, size_t n);
/* json_dump_callback's sink appending to the gv_buf `data`. */
int gv_json_buf_sink(const char *buffer, size_t size, void *data);
/* Whether a failed json_load* (NULL returned, `e` filled) ran out of memory: jansson's
 * out-of-memory code, or no message at all (it returns NULL without one when its first buffer
 * cannot be allocated). */
int gv_json_load_nomem(const json_error_t *e);

/* ---- packed arrays (format 1.1; docs/model-format.md, "Packed arrays") ----
 * A packed array is one JSON string holding numbers separated by single spaces ("2 -1 0",
 * "0.5 1e-300 150"): integers in decimal, reals as %.17g (so they read back exactly), each
 * entry a JSON number; a word field (a tree's "type") holds names instead.  Written with the
 * gv_packed_add_* functions into a gv_buf, then turned into a JSON string. */

/* Appends one entry to the text of a packed array (a space first unless b is empty); 0 ok, -1
 * out of memory.  A real must be finite (a packed array cannot hold NaN or infinities: -1). */
int gv_packed_add_int(gv_buf *b, int64_t v);
int gv_packed_add_real(gv_buf *b, double v);
/* A word: letters, digits and '_' only (callers pass their own names). */
int gv_packed_add_word(gv_buf *b, const char *word);
/* A new JSON string holding b's text (b is not changed); NULL when out of memory. */
json_t *gv_packed_json(const gv_buf *b);
/* A whole array at once, the same string as adding its entries one by one, but without the
 * per-entry work in binary mode: the n doubles (finite), the n integers, or the n words
 * words[idx[i]] (idx[i] < n_words <= 256).  A new packed-array string; NULL when out of memory
 * (or a real is not finite). */
json_t *gv_json_packed_reals(const double *v, size_t n);
json_t *gv_packed_ints(const int64_t *v, size_t n);
json_t *gv_packed_words(const char *const *words, int n_words, const unsigned char *idx, size_t n);

/* A packed array being read, entry by entry; also reads the 1.0 form of the same field (a JSON
 * array), so a component has one reader for both.  Borrows the JSON value it reads. */
typedef struct gv_packed {
    const char *field;   /* the field's name, for messages: "left[3]: ..." */
    const json_t *array; /* the 1.0 form, or NULL */
    const char *p, *end; /* the packed form: the text not read yet */
    size_t n, next;      /* the number of entries, and the index of the next one */
    int bin;             /* 0: text; the binary form's kind ('I', 'N', 'R', 'W' or 'T'; below) */
    int width;           /* its entry width in bytes ('W': the number of words) */
    const char *dict;    /* 'W': the words */
#define GV_PACKED_WMAP 16
    const char *const *wlist;    /* 'W': the list wmap maps to (NULL: none yet) */
    short wmap[GV_PACKED_WMAP];  /* 'W': the list index of each of the first words, or -1 */
} gv_packed;

/* Opens field `field` of `obj`: a packed string when `packed` (else a JSON array) of exactly n
 * entries (n = (size_t)-1: any number; r->n says how many).  The separators are checked here
 * (single spaces, nothing before the first entry or after the last: "field[k]: empty entry"),
 * so the entries can be counted before any is read.  GROVE_ERR_MODEL naming the field. */
grove_status gv_packed_open(const json_t *obj, const char *field, size_t n, int packed,
                            gv_packed *r);
/* The length of the run of bytes at s[0..n) that JSON text holds as they are (0x20..0x7e but
 * '"' and '\\': nothing to escape), eight bytes at a time. */
size_t gv_plain_run(const void *s, size_t n);
/* The next entry (r->next < r->n: callers read at most r->n entries) as an integer in [lo, hi],
 * a double, a float (a number that is exactly a 32-bit float, not rounded to one), or the index
 * of one of words[0..n_words).  Errors name the entry (`feature[3]: expected an integer, got
 * "1.5"`); after one, r is not read further. */
grove_status gv_packed_int_any(gv_packed *r, int64_t lo, int64_t hi, int64_t *out);
static inline grove_status gv_packed_int(gv_packed *r, int64_t lo, int64_t hi, int64_t *out)
{
    /* in line, the common case: a text entry of at most 18 digits, in range; else the general
     * reader (every form, every message) */
    if (r->next < r->n && !r->bin && !r->array) {
        const char *p = r->p, *e = r->end, *q = p + (p < e && *p == '-');
        const char *d0 = q;
        uint64_t u = 0;
        for (; q < e && (unsigned)(*q - '0') < 10 && q - d0 < 18; q++) u = u * 10 + (uint64_t)(*q - '0');
        if (q > d0 && (q == e || *q == ' ') && (q - d0 == 1 || *d0 != '0')) {
            int64_t x = d0 > p ? -(int64_t)u : (int64_t)u;
            if (x >= lo && x <= hi) {
                *out = x;
                r->p = q + (q < e); /* and the space */
                r->next++;
                return GROVE_OK;
            }
        }
    }
    return gv_packed_int_any(r, lo, hi, out);
}
grove_status gv_packed_real(gv_packed *r, double *out);
grove_status gv_packed_float(gv_packed *r, float *out);
grove_status gv_packed_word(gv_packed *r, const char *const *words, int n_words, int *out);
/* Field `field` of exactly n reals, packed (or a JSON array when !packed), into out[0..n). */
grove_status gv_json_get_packed_reals(const json_t *obj, const char *field, size_t n, int packed,
                                      double *out);

/* ---- the binary form of packed arrays (binary model files, model/model_bin.c) ----
 * While the calling thread is in binary mode, the gv_packed_add_* functions record entries in
 * binary and gv_packed_json makes a string of 8 header bytes -- 0x01, a kind, a width, five zero
 * bytes -- then the entries, in the narrowest kind that holds every entry exactly:
 *   'I' integers, little-endian signed, width 1, 2, 4 or 8 bytes each
 *   'N' reals that are all whole numbers (not -0) in int32's range, stored as 'I' is (1, 2, 4)
 *   'R' reals: width 4, all exactly floats (IEEE single); width 8, IEEE doubles
 *   'W' words: the width is the number k of distinct words (1..255), then k times a length
 *       byte and the word, then one byte per entry, the index of its word
 *   'T' anything else (mixed): tagged entries ('i' or 'r' and 8 bytes, or 'w', a length byte
 *       and the word); also an empty array
 * (Encoding 1.0 wrote 'I' and 'R' with width byte 0, meaning 8, and 'T' for words: still read.)
 * gv_packed_open accepts that form only in binary mode (a text file never holds it), checks its
 * shape (the kind, the width, whole entries, every word index in the list), and the entry
 * readers apply the text form's checks to it: an integer field takes an integer, or a real that
 * is a whole number, in its range; a real must be finite; a word must be one of the list.
 * Returns the previous mode. */
int gv_packed_binary(int on);
/* Whether the calling thread is in binary mode (a component may write a compact binary form). */
int gv_packed_binary_mode(void);

/* Borrowed arrays: a binary model file's packed arrays are read where they lie in the mapped
 * file, not copied into the document.  gv_packed_borrow returns a new JSON string standing for
 * the bytes[0..len) of a binary form (its first byte 0x01), which the caller keeps readable and
 * unchanged until gv_packed_borrow_end; gv_packed_open (in binary mode) reads those bytes when
 * it is handed that very value -- known by its identity, so no string a file holds can name
 * other memory.  NULL when out of memory.  gv_packed_borrow_end forgets every borrowed array
 * of the calling thread (the values themselves stay valid strings that read as nothing). */
json_t *gv_packed_borrow(const void *bytes, size_t len);
void gv_packed_borrow_end(void);
/* The same for the text form: a new JSON string standing for the packed array text[0..len)
 * (plain printable ASCII, as a text model file holds it), which gv_packed_open (not in binary
 * mode) and gv_json_text read in its place.  The caller keeps the text readable and unchanged
 * until gv_packed_borrow_end; NULL when out of memory. */
json_t *gv_packed_borrow_text(const char *text, size_t len);
/* A string value's bytes (*len of them, no NUL needed after them): the borrowed text when v
 * stands for one (gv_packed_borrow_text, on this thread or the view lent to it), else its own;
 * NULL when v is not a string. */
const char *gv_json_text(const json_t *v, size_t *len);

/* The calling thread's binary mode and borrowed arrays, lent to helper threads that read the
 * same document (a model's members read in parallel): gv_packed_view_get on the reading thread
 * (it readies the borrowed arrays for lookups), then gv_packed_view_set(&view) on each helper
 * before it reads and gv_packed_view_set(NULL) after (a helper never borrows itself).  The
 * reading thread must not borrow or end its borrowing meanwhile. */
typedef struct gv_packed_view {
    int binary;
    const void *borrows;
    size_t n_borrows;
} gv_packed_view;
gv_packed_view gv_packed_view_get(void);
void gv_packed_view_set(const gv_packed_view *view);

#endif /* GV_JSON_H */
