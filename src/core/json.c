/*
 * json.c -- the JSON codec of model files: typed getters, known-field checks, real arrays and
 * packed arrays (json.h).
 *
 * Pipeline position: core/.  Moved here from model/model_io.c so that the components in learn/
 * and ensemble/ read and write their fields without reaching up into the model layer.
 * Exactness: reals are written with 17 significant digits (%.17g), which reads back to the same
 * double.  Packed arrays (format 1.1) hold a field's numbers as one JSON string separated by
 * single spaces; the reader checks every entry against JSON's number grammar.
 */
#include "json.h"
#include "numparse.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *gv_json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE: return "true";
    case JSON_FALSE: return "false";
    case JSON_NULL: return "null";
    }
    return "an unknown value";
}

grove_status gv_json_get_int(const json_t *obj, const char *field, int64_t lo, int64_t hi,
                             int64_t *out)
{
    const json_t *v = json_object_get(obj, field);
    if (!v) return gv_err(GROVE_ERR_MODEL, "%s: missing", field);
    if (!json_is_integer(v))
        return gv_err(GROVE_ERR_MODEL, "%s: expected an integer, got %s", field, gv_json_kind(v));
    int64_t x = (int64_t)json_integer_value(v);
    if (x < lo || x > hi)
        return gv_err(GROVE_ERR_MODEL, "%s: must be in [%lld, %lld], got %lld", field,
                      (long long)lo, (long long)hi, (long long)x);
    *out = x;
    return GROVE_OK;
}

grove_status gv_json_get_double(const json_t *obj, const char *field, double *out)
{
    const json_t *v = json_object_get(obj, field);
    if (!v) return gv_err(GROVE_ERR_MODEL, "%s: missing", field);
    if (!json_is_number(v))
        return gv_err(GROVE_ERR_MODEL, "%s: expected a number, got %s", field, gv_json_kind(v));
    *out = json_number_value(v); /* finite: JSON has no NaN, jansson rejects overflow */
    return GROVE_OK;
}

grove_status gv_json_get_string(const json_t *obj, const char *field, const char **out)
{
    const json_t *v = json_object_get(obj, field);
    if (!v) return gv_err(GROVE_ERR_MODEL, "%s: missing", field);
    if (!json_is_string(v))
        return gv_err(GROVE_ERR_MODEL, "%s: expected a string, got %s", field, gv_json_kind(v));
    *out = json_string_value(v);
    return GROVE_OK;
}

/* An array of numbers; n = (size_t)-1 accepts any length (read it with json_array_size). */
grove_status gv_json_get_array(const json_t *obj, const char *field, size_t n, const json_t **out)
{
    const json_t *v = json_object_get(obj, field);
    if (!v) return gv_err(GROVE_ERR_MODEL, "%s: missing", field);
    if (!json_is_array(v))
        return gv_err(GROVE_ERR_MODEL, "%s: expected an array, got %s", field, gv_json_kind(v));
    size_t len = json_array_size(v);
    if (n != (size_t)-1 && len != n)
        return gv_err(GROVE_ERR_MODEL, "%s: expected %zu entries, got %zu", field, n, len);
    for (size_t i = 0; i < len; i++) {
        const json_t *x = json_array_get(v, i);
        if (!json_is_number(x))
            return gv_err(GROVE_ERR_MODEL, "%s[%zu]: expected a number, got %s", field, i,
                          gv_json_kind(x));
    }
    *out = v;
    return GROVE_OK;
}

grove_status gv_json_check_fields(const json_t *obj, const char *const *known, size_t n,
                                  const char *what)
{
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)obj, key, value) {
        (void)value;
        size_t j = 0;
        while (j < n && strcmp(key, known[j]) != 0) j++;
        if (j == n) return gv_err(GROVE_ERR_MODEL, "unknown field '%s' in %s", key, what);
    }
    return GROVE_OK;
}

grove_status gv_json_get_object(const json_t *obj, const char *field, const json_t **out)
{
    const json_t *v = json_object_get(obj, field);
    if (!v) return gv_err(GROVE_ERR_MODEL, "%s: missing", field);
    if (!json_is_object(v))
        return gv_err(GROVE_ERR_MODEL, "%s: expected an object, got %s", field, gv_json_kind(v));
    *out = v;
    return GROVE_OK;
}

int gv_json_set_new(json_t *obj, const char *key, json_t *value)
{
    return json_object_set_new(obj, key, value); /* decrefs value on failure, takes NULL */
}

json_t *gv_json_string_array(char *const *names, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++) {
        if (json_array_append_new(a, json_string(names[i]))) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

int gv_json_buf_sink(const char *buffer, size_t size, void *data)
{
    return gv_buf_append(data, buffer, size);
}

json_t *gv_json_real_array(const double *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, json_real(v[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

grove_status gv_json_get_reals(const json_t *obj, const char *field, size_t n, double *out)
{
    const json_t *a = json_object_get(obj, field);
    if (!json_is_array(a))
        return gv_err(GROVE_ERR_MODEL, "%s: %s", field, a ? "expected an array" : "missing");
    if (json_array_size(a) != n)
        return gv_err(GROVE_ERR_MODEL, "%s: expected %zu values, got %zu", field, n,
                      json_array_size(a));
    for (size_t i = 0; i < n; i++) {
        const json_t *v = json_array_get(a, i);
        if (!json_is_number(v) || !isfinite(json_number_value(v)))
            return gv_err(GROVE_ERR_MODEL, "%s[%zu]: expected a finite number", field, i);
        out[i] = json_number_value(v);
    }
    return GROVE_OK;
}

void gv_json_array_values(const json_t *a, double *x, size_t n)
{
    for (size_t i = 0; i < n; i++) x[i] = json_number_value(json_array_get(a, i));
}

/* ---- packed arrays ----
 * The writer's half turns numbers into text and the reader's half checks every entry against
 * JSON's number grammar (RFC 8259, section 6) before converting it, so a packed array accepts
 * exactly the numbers a JSON array would: no "+1", "01", ".5", "1.", "0x10", "nan" or "inf",
 * and reals that overflow a double are refused (as jansson refuses them).  Reals are parsed by
 * gv_parse_decimal (core/numparse.c): strtod's value, without its locale dependence. */

/* How many bytes of a bad entry a message quotes. */
#define SHOWN_MAX 40

/* Appends " token" (just "token" to an empty buffer). */
static int add_token(gv_buf *b, const char *s, size_t n)
{
    if (gv_buf_reserve(b, n + 1) != 0) return -1;
    if (b->len) b->data[b->len++] = ' ';
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

/* ---- the binary form (json.h) ---- */
static _Thread_local int binary_mode;

int gv_packed_binary(int on)
{
    int old = binary_mode;
    binary_mode = on;
    return old;
}

int gv_packed_binary_mode(void) { return binary_mode; }

/* ---- borrowed arrays (json.h): the values standing for bytes in a mapped file, by identity ---- */
typedef struct borrowed {
    const json_t *value;
    const char *bytes;
    size_t len;
} borrowed;
static _Thread_local borrowed *borrows;
static _Thread_local size_t n_borrows, cap_borrows;
static _Thread_local int borrows_sorted; /* by value address, for bsearch */

/* The header of a value standing for a borrowed array: 0x01 then kind 'B' (a binary form) or
 * 'T' (the text of a packed array, json.h: gv_packed_borrow_text). */
static const char borrow_marker[8] = {0x01, 'B'};
static const char text_marker[8] = {0x01, 'T'};

static json_t *borrow(const char marker[8], const void *bytes, size_t len)
{
    if (n_borrows == cap_borrows) {
        size_t cap = cap_borrows ? 2 * cap_borrows : 64;
        borrowed *b = gv_realloc_array(borrows, cap, sizeof *b);
        if (!b) return NULL;
        borrows = b;
        cap_borrows = cap;
    }
    json_t *v = json_stringn_nocheck(marker, 8);
    if (!v) return NULL;
    borrows[n_borrows++] = (borrowed){v, bytes, len};
    borrows_sorted = 0;
    return v;
}

json_t *gv_packed_borrow(const void *bytes, size_t len) { return borrow(borrow_marker, bytes, len); }

json_t *gv_packed_borrow_text(const char *text, size_t len) { return borrow(text_marker, text, len); }

void gv_packed_borrow_end(void)
{
    gv_free(borrows);
    borrows = NULL;
    n_borrows = cap_borrows = 0;
}

static int borrow_cmp(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const borrowed *)a)->value, y = (uintptr_t)((const borrowed *)b)->value;
    return x < y ? -1 : x > y;
}

/* A helper thread's view of another thread's borrowed arrays (sorted), or NULL. */
static _Thread_local const borrowed *lent;
static _Thread_local size_t n_lent;

static void sort_borrows(void)
{
    if (!borrows_sorted && n_borrows) qsort(borrows, n_borrows, sizeof *borrows, borrow_cmp);
    borrows_sorted = 1;
}

static const borrowed *find_borrow(const json_t *v)
{
    borrowed key = {v, NULL, 0};
    if (n_lent) return bsearch(&key, lent, n_lent, sizeof *lent, borrow_cmp);
    if (!n_borrows) return NULL;
    sort_borrows();
    return bsearch(&key, borrows, n_borrows, sizeof *borrows, borrow_cmp);
}

const char *gv_json_text(const json_t *v, size_t *len)
{
    const char *s = json_string_value(v);
    if (!s) return NULL;
    *len = json_string_length(v);
    if (*len == 8 && !memcmp(s, text_marker, 8)) {
        const borrowed *b = find_borrow(v);
        if (b) {
            *len = b->len;
            return b->bytes;
        }
    }
    return s;
}

gv_packed_view gv_packed_view_get(void)
{
    sort_borrows();
    gv_packed_view v = {binary_mode, borrows, n_borrows};
    return v;
}

void gv_packed_view_set(const gv_packed_view *view)
{
    binary_mode = view ? view->binary : 0;
    lent = view ? view->borrows : NULL;
    n_lent = view ? view->n_borrows : 0;
}

static void put_le64(unsigned char *p, uint64_t u)
{
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(u >> (8 * i));
}

static uint64_t get_le64(const unsigned char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t u;
    memcpy(&u, p, sizeof u);
    return u;
#else
    uint64_t u = 0;
    for (int i = 0; i < 8; i++) u |= (uint64_t)p[i] << (8 * i);
    return u;
#endif
}

/* One binary entry: a tag, then 8 bytes (or a word's length byte and bytes). */
static int add_record(gv_buf *b, char tag, uint64_t u)
{
    unsigned char rec[9];
    rec[0] = (unsigned char)tag;
    put_le64(rec + 1, u);
    return gv_buf_append(b, rec, sizeof rec);
}

int gv_packed_add_int(gv_buf *b, int64_t v)
{
    if (binary_mode) return add_record(b, 'i', (uint64_t)v);
    char text[24], *p = text + sizeof text;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v; /* INT64_MIN included */
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) *--p = '-';
    return add_token(b, p, (size_t)(text + sizeof text - p));
}

int gv_packed_add_real(gv_buf *b, double v)
{
    if (!isfinite(v)) return -1;
    if (binary_mode) {
        uint64_t u;
        memcpy(&u, &v, sizeof u);
        return add_record(b, 'r', u);
    }
    /* Whole numbers below 2^53 (counts, weights, the zeros of unused fields) are written as
     * integers, the same text %.17g gives them ("150", "0"), without printf's cost; -0 is
     * left to printf ("-0"). */
    if (v == trunc(v) && fabs(v) < 9007199254740992.0 && !(v == 0 && signbit(v)))
        return gv_packed_add_int(b, (int64_t)v);
    char text[40];
    size_t fast = gv_format_17g(v, text);
    if (fast) return add_token(b, text, fast);
    int n = snprintf(text, sizeof text, "%.17g", v);
    if (n <= 0 || (size_t)n >= sizeof text) return -1; /* at most 24 characters */
    /* printf writes the locale's radix character, which a host program may have made ",":
     * the file's is always "." (every other character of %.17g is a digit, '-', '+' or 'e'). */
    size_t len = 0;
    for (int i = 0; i < n; i++) {
        char c = text[i];
        if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == 'e')
            text[len++] = c;
        else if (len == 0 || text[len - 1] != '.')
            text[len++] = '.'; /* a multibyte radix becomes one '.' */
    }
    return add_token(b, text, len);
}

int gv_packed_add_word(gv_buf *b, const char *word)
{
    size_t n = strlen(word);
    if (!binary_mode) return add_token(b, word, n);
    unsigned char head[2] = {'w', (unsigned char)n};
    if (n > 255) return -1;
    return gv_buf_append(b, head, 2) != 0 || gv_buf_append(b, word, n) != 0 ? -1 : 0;
}

/* The width (1, 2, 4 or 8 bytes) that holds every signed value in [lo, hi]. */
static int int_width(int64_t lo, int64_t hi)
{
    if (lo >= INT8_MIN && hi <= INT8_MAX) return 1;
    if (lo >= INT16_MIN && hi <= INT16_MAX) return 2;
    if (lo >= INT32_MIN && hi <= INT32_MAX) return 4;
    return 8;
}

static void put_le(unsigned char *p, uint64_t u, int w)
{
    for (int i = 0; i < w; i++) p[i] = (unsigned char)(u >> (8 * i));
}

/* The binary string of the records in b (see json.h): the narrowest kind that holds every
 * entry exactly. */
static json_t *packed_binary_json(const gv_buf *b)
{
    const unsigned char *p = (const unsigned char *)b->data, *e = p ? p + b->len : p;
    int all_i = 1, all_r = 1, all_w = 1, floats = 1, whole = 1;
    int64_t lo = 0, hi = 0;
    size_t n = 0;
    const unsigned char *words[256]; /* the distinct words, in order of first use */
    int n_words = 0;
    for (const unsigned char *q = p; q < e; n++) {
        all_i &= *q == 'i';
        all_r &= *q == 'r';
        all_w &= *q == 'w';
        if (*q == 'w') {
            int j = 0;
            while (j < n_words && (words[j][1] != q[1] || memcmp(words[j] + 2, q + 2, q[1]))) j++;
            if (j == n_words) {
                if (n_words < 255)
                    words[n_words++] = q;
                else
                    all_w = 0;
            }
            q += 2 + q[1];
            continue;
        }
        uint64_t u = get_le64(q + 1);
        int64_t x;
        if (*q == 'r') {
            double d;
            memcpy(&d, &u, sizeof d);
            floats &= (double)(float)d == d;
            /* a whole number in int32's range, not -0: stored as an integer, read as a real */
            if (whole && d == trunc(d) && fabs(d) <= INT32_MAX && !(d == 0 && signbit(d)))
                x = (int64_t)d;
            else
                whole = 0, x = 0;
        } else {
            x = (int64_t)u;
        }
        if (n == 0 || x < lo) lo = x;
        if (n == 0 || x > hi) hi = x;
        q += 9;
    }
    char kind = 'T';
    int w = 0; /* the entry width, or the number of words */
    if (n && all_i)
        kind = 'I', w = int_width(lo, hi);
    else if (n && all_r && whole)
        kind = 'N', w = int_width(lo, hi);
    else if (n && all_r)
        kind = 'R', w = floats ? 4 : 8;
    else if (n && all_w)
        kind = 'W', w = n_words;
    size_t dict = 0;
    for (int j = 0; j < (kind == 'W' ? n_words : 0); j++) dict += 1 + words[j][1];
    size_t len = 8 + (kind == 'T' ? b->len : kind == 'W' ? dict + n : (size_t)w * n);
    unsigned char *s = gv_malloc(len);
    if (!s) return NULL;
    memset(s, 0, 8);
    s[0] = 0x01;
    s[1] = (unsigned char)kind;
    s[2] = (unsigned char)w;
    unsigned char *o = s + 8;
    if (kind == 'T') {
        if (b->len) memcpy(o, p, b->len);
    } else if (kind == 'W') {
        for (int j = 0; j < n_words; j++) {
            memcpy(o, words[j] + 1, 1u + words[j][1]);
            o += 1 + words[j][1];
        }
        for (const unsigned char *q = p; q < e; q += 2 + q[1]) {
            int j = 0;
            while (words[j][1] != q[1] || memcmp(words[j] + 2, q + 2, q[1])) j++;
            *o++ = (unsigned char)j;
        }
    } else {
        for (size_t k = 0; k < n; k++, o += w) {
            uint64_t u = get_le64(p + 9 * k + 1);
            double d;
            memcpy(&d, &u, sizeof d);
            if (kind == 'N') {
                u = (uint64_t)(int64_t)d;
            } else if (kind == 'R' && w == 4) {
                float f = (float)d;
                uint32_t v;
                memcpy(&v, &f, sizeof v);
                u = v;
            }
            put_le(o, u, w);
        }
    }
    json_t *j = json_stringn_nocheck((const char *)s, len);
    gv_free(s);
    return j;
}

json_t *gv_packed_json(const gv_buf *b)
{
    if (binary_mode) return packed_binary_json(b);
    /* the text is ASCII by construction: no UTF-8 check needed */
    return json_stringn_nocheck(b->data ? b->data : "", b->len);
}

/* One value of w bytes (1, 2, 4 or 8), little-endian. */
static inline void put_w(unsigned char *o, uint64_t u, int w)
{
    switch (w) {
    case 1: o[0] = (unsigned char)u; break;
    case 2: o[0] = (unsigned char)u; o[1] = (unsigned char)(u >> 8); break;
    case 4: for (int i = 0; i < 4; i++) o[i] = (unsigned char)(u >> (8 * i)); break;
    default: put_le64(o, u); break;
    }
}

/* A new binary string: the header (kind, width) and `body` bytes, filled by the caller through
 * *out; NULL when out of memory.  The string is made by fill_done. */
static unsigned char *bin_start(char kind, int w, size_t body)
{
    unsigned char *s = gv_malloc(8 + body);
    if (!s) return NULL;
    memset(s, 0, 8);
    s[0] = 0x01;
    s[1] = (unsigned char)kind;
    s[2] = (unsigned char)w;
    return s;
}

static json_t *bin_done(unsigned char *s, size_t body)
{
    if (!s) return NULL;
    json_t *j = json_stringn_nocheck((const char *)s, 8 + body);
    gv_free(s);
    return j;
}

json_t *gv_packed_ints(const int64_t *v, size_t n)
{
    if (!binary_mode || n == 0) {
        gv_buf b = {0};
        json_t *s = NULL;
        size_t i = 0;
        while (i < n && gv_packed_add_int(&b, v[i]) == 0) i++;
        if (i == n) s = gv_packed_json(&b);
        gv_buf_free(&b);
        return s;
    }
    int64_t lo = v[0], hi = v[0];
    for (size_t i = 1; i < n; i++) {
        if (v[i] < lo) lo = v[i];
        if (v[i] > hi) hi = v[i];
    }
    int w = int_width(lo, hi);
    unsigned char *s = bin_start('I', w, (size_t)w * n);
    if (!s) return NULL;
    for (size_t i = 0; i < n; i++) put_w(s + 8 + (size_t)w * i, (uint64_t)v[i], w);
    return bin_done(s, (size_t)w * n);
}

json_t *gv_json_packed_reals(const double *v, size_t n)
{
    if (!binary_mode || n == 0) {
        gv_buf b = {0};
        json_t *s = NULL;
        size_t i = 0;
        while (i < n && gv_packed_add_real(&b, v[i]) == 0) i++;
        if (i == n) s = gv_packed_json(&b);
        gv_buf_free(&b);
        return s;
    }
    /* the kinds packed_binary_json would choose for the same entries */
    int floats = 1, whole = 1;
    int64_t lo = 0, hi = 0;
    for (size_t i = 0; i < n; i++) {
        double d = v[i];
        if (!isfinite(d)) return NULL;
        floats &= (double)(float)d == d;
        if (whole && d == trunc(d) && fabs(d) <= INT32_MAX && !(d == 0 && signbit(d))) {
            int64_t x = (int64_t)d;
            if (i == 0 || x < lo) lo = x;
            if (i == 0 || x > hi) hi = x;
        } else {
            whole = 0;
        }
    }
    char kind = whole ? 'N' : 'R';
    int w = whole ? int_width(lo, hi) : floats ? 4 : 8;
    unsigned char *s = bin_start(kind, w, (size_t)w * n);
    if (!s) return NULL;
    unsigned char *o = s + 8;
    for (size_t i = 0; i < n; i++, o += w) {
        uint64_t u;
        if (whole) {
            u = (uint64_t)(int64_t)v[i];
        } else if (w == 4) {
            float f = (float)v[i];
            uint32_t x;
            memcpy(&x, &f, sizeof x);
            u = x;
        } else {
            memcpy(&u, &v[i], sizeof u);
        }
        put_w(o, u, w);
    }
    return bin_done(s, (size_t)w * n);
}

json_t *gv_packed_words(const char *const *words, int n_words, const unsigned char *idx, size_t n)
{
    if (!binary_mode || n == 0 || n_words > 255) {
        gv_buf b = {0};
        json_t *s = NULL;
        size_t i = 0;
        while (i < n && idx[i] < n_words && gv_packed_add_word(&b, words[idx[i]]) == 0) i++;
        if (i == n) s = gv_packed_json(&b);
        gv_buf_free(&b);
        return s;
    }
    /* the list in order of first use, as packed_binary_json makes it */
    int slot[256], used[256], n_used = 0;
    for (int j = 0; j < 256; j++) slot[j] = -1;
    size_t dict = 0;
    for (size_t i = 0; i < n; i++) {
        int j = idx[i];
        if (j >= n_words || strlen(words[j]) > 255) return NULL;
        if (slot[j] < 0) {
            slot[j] = n_used;
            used[n_used++] = j;
            dict += 1 + strlen(words[j]);
        }
    }
    unsigned char *s = bin_start('W', n_used, dict + n);
    if (!s) return NULL;
    unsigned char *o = s + 8;
    for (int k = 0; k < n_used; k++) {
        size_t len = strlen(words[used[k]]);
        *o++ = (unsigned char)len;
        memcpy(o, words[used[k]], len);
        o += len;
    }
    for (size_t i = 0; i < n; i++) *o++ = (unsigned char)slot[idx[i]];
    return bin_done(s, dict + n);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(GROVE_NO_CLONES)
#define GV_JSON_AVX2 1
static size_t spaces_avx2(const char *s, size_t n, int *adjacent);
#endif

grove_status gv_packed_open(const json_t *obj, const char *field, size_t n, int packed,
                            gv_packed *r)
{
    memset(r, 0, sizeof *r);
    r->field = field;
    const json_t *v = json_object_get(obj, field);
    if (!v) return gv_err(GROVE_ERR_MODEL, "%s: missing", field);
    size_t count = 0;
    if (!packed) {
        if (!json_is_array(v))
            return gv_err(GROVE_ERR_MODEL, "%s: expected an array, got %s%s", field, gv_json_kind(v),
                          json_is_string(v) ? " (a packed array: format 1.1 and later)" : "");
        r->array = v;
        count = json_array_size(v);
    } else {
        if (!json_is_string(v))
            return gv_err(GROVE_ERR_MODEL, "%s: expected a packed array (a string of numbers), "
                          "got %s%s", field, gv_json_kind(v),
                          json_is_array(v) ? " (the format 1.0 form)" : "");
        size_t len = 0;
        const char *s = gv_json_text(v, &len), *e = s + len;
        if (binary_mode && e - s == 8 && !memcmp(s, borrow_marker, 8)) {
            /* a borrowed array: its bytes lie in the file being read */
            const borrowed *b = find_borrow(v);
            if (!b || b->len < 8)
                return gv_err(GROVE_ERR_MODEL, "%s: a bad binary array", field);
            s = b->bytes;
            e = s + b->len;
        }
        if (binary_mode && e - s >= 8 && s[0] == 0x01) {
            /* the binary form: 8 header bytes, then flat values or tagged entries */
            const unsigned char *p = (const unsigned char *)s + 8, *pe = (const unsigned char *)e;
            r->bin = s[1];
            r->width = (unsigned char)s[2];
            if (r->bin == 'I' || r->bin == 'R' || r->bin == 'N') {
                if (r->width == 0) r->width = 8; /* encoding 1.0: 8-byte values only */
                int ok = r->bin == 'R' ? r->width == 4 || r->width == 8
                                       : r->width == 1 || r->width == 2 || r->width == 4 ||
                                             (r->width == 8 && r->bin == 'I');
                if (!ok)
                    return gv_err(GROVE_ERR_MODEL, "%s: a binary array of kind '%c' with %d-byte "
                                  "values", field, r->bin, r->width);
                if ((size_t)(pe - p) % (size_t)r->width)
                    return gv_err(GROVE_ERR_MODEL, "%s: a binary array of %zu bytes is not whole "
                                  "%d-byte values", field, (size_t)(pe - p), r->width);
                count = (size_t)(pe - p) / (size_t)r->width;
            } else if (r->bin == 'W') {
                /* a dictionary of r->width words (a length byte, the bytes), then one byte per
                 * entry: the index of its word */
                if (r->width == 0)
                    return gv_err(GROVE_ERR_MODEL, "%s: a binary word array without words", field);
                r->dict = (const char *)p;
                for (int j = 0; j < r->width; j++) {
                    if (p >= pe || (size_t)(pe - p) < 1u + *p)
                        return gv_err(GROVE_ERR_MODEL, "%s: a bad binary word list", field);
                    p += 1 + *p;
                }
                s = (const char *)p - 8; /* the entries begin at r->p = s + 8 */
                for (const unsigned char *q = p; q < pe; q++, count++)
                    if (*q >= r->width)
                        return gv_err(GROVE_ERR_MODEL, "%s[%zu]: word %u of a list of %d", field,
                                      count, (unsigned)*q, r->width);
            } else if (r->bin == 'T') {
                for (; p < pe; count++) {
                    size_t need = *p == 'w' ? (pe - p >= 2 ? 2u + p[1] : 2u) : 9u;
                    if ((*p != 'i' && *p != 'r' && *p != 'w') || (size_t)(pe - p) < need)
                        return gv_err(GROVE_ERR_MODEL, "%s[%zu]: a bad binary entry", field, count);
                    p += need;
                }
            } else {
                return gv_err(GROVE_ERR_MODEL, "%s: unknown binary array kind 0x%02x", field,
                              (unsigned)(unsigned char)s[1]);
            }
            r->p = s + 8;
            r->end = e;
            if (n != (size_t)-1 && count != n)
                return gv_err(GROVE_ERR_MODEL, "%s: expected %zu entries, got %zu", field, n, count);
            r->n = count;
            return GROVE_OK;
        }
        /* entries are the runs between single spaces: an empty run is an error.  One pass
         * counts the spaces and finds any empty run; the loop below names the first one */
        size_t spaces = 0;
        int sp = 1, empty = s < e && e[-1] == ' ';
        const char *c8 = s;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        /* eight bytes at a time: m has the high bit of each byte that is a space (exact), and
         * a space right after a space (in the word or across words) is an empty entry */
        if (c8 < e) {
            empty |= *c8 == ' ';
            const uint64_t lo7 = 0x7F7F7F7F7F7F7F7Full, high = 0x8080808080808080ull;
            uint64_t prev = 0, adj = 0;
#ifdef GV_JSON_AVX2
            if (e - c8 >= 64 && __builtin_cpu_supports("avx2")) { /* 64 bytes a step */
                int adjacent = 0;
                size_t done = (size_t)(e - c8) / 64 * 64;
                spaces += spaces_avx2(c8, done, &adjacent);
                adj |= (uint64_t)adjacent;
                c8 += done;
                prev = c8[-1] == ' ' ? high : 0; /* its last byte's bit, as the loop keeps it */
            }
#endif
            for (; e - c8 >= 8; c8 += 8) {
                uint64_t x, t, m;
                memcpy(&x, c8, 8);
                t = x ^ 0x2020202020202020ull;
                m = ~(((t & lo7) + lo7) | t) & high;
                spaces += (size_t)(((m >> 7) * 0x0101010101010101ull) >> 56); /* bytes of 0/1 summed */
                adj |= m & ((m << 8) | (prev >> 56));
                prev = m;
            }
            empty |= adj != 0;
            sp = c8 > s ? c8[-1] == ' ' : 1;
        }
#endif
        for (; c8 < e; c8++) {
            int c = *c8 == ' ';
            empty |= c & sp;
            spaces += (size_t)c;
            sp = c;
        }
        count = s < e ? spaces + 1 : 0;
        for (size_t k = 0, p0 = 0; p0 < (size_t)(e - s) && empty; k++) {
            const char *p = s + p0, *q = memchr(p, ' ', (size_t)(e - p));
            if (q == p || (q && q + 1 == e))
                return gv_err(GROVE_ERR_MODEL, "%s[%zu]: empty entry (entries are separated by "
                              "single spaces)", field, k + (q != p));
            p0 = q ? (size_t)(q + 1 - s) : (size_t)(e - s);
        }
        r->p = s;
        r->end = e;
    }
    if (n != (size_t)-1 && count != n)
        return gv_err(GROVE_ERR_MODEL, "%s: expected %zu entries, got %zu", field, n, count);
    r->n = count;
    return GROVE_OK;
}

/* The next entry of a packed (string) array: s[0..*len), non-empty (gv_packed_open checked). */
static const char *next_token(const gv_packed *r, size_t *len)
{
    const char *q = r->p; /* entries are short: a loop, not a memchr call each */
    while (q < r->end && *q != ' ') q++;
    *len = (size_t)(q - r->p);
    return r->p;
}

#ifdef GV_JSON_AVX2
#include <immintrin.h>
/* The spaces among s[0..n) (n a multiple of 64); *adjacent set when two of them are
 * neighbours. */
__attribute__((target("avx2,popcnt"))) static size_t spaces_avx2(const char *s, size_t n,
                                                                  int *adjacent)
{
    const __m256i space = _mm256_set1_epi8(' ');
    size_t count = 0;
    uint64_t adj = 0, prev = 0; /* prev: the last byte of the step before was a space */
    for (size_t i = 0; i < n; i += 64) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(s + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(s + i + 32));
        uint64_t m = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, space)) |
                     (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, space)) << 32;
        count += (size_t)__builtin_popcountll(m);
        adj |= m & ((m << 1) | prev);
        prev = m >> 63;
    }
    *adjacent = adj != 0;
    return count;
}
/* gv_plain_run's bulk, 64 bytes a step with AVX2 (a text model is megabytes of plain strings):
 * as signed bytes, plain is 0x20..0x7e -- below 0x20 (0x80..0xff included) or 0x7f is not --
 * and neither '"' nor '\\'.  The plain bytes before the first that is not, or before the last
 * partial step (left to the caller's loop). */
__attribute__((target("avx2"))) static size_t plain_run_avx2(const unsigned char *p, size_t n)
{
    const __m256i space = _mm256_set1_epi8(0x20), del = _mm256_set1_epi8(0x7f),
                  quote = _mm256_set1_epi8('"'), bslash = _mm256_set1_epi8('\\');
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(p + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(p + i + 32));
        __m256i ba = _mm256_or_si256(
            _mm256_or_si256(_mm256_cmpgt_epi8(space, a), _mm256_cmpeq_epi8(a, del)),
            _mm256_or_si256(_mm256_cmpeq_epi8(a, quote), _mm256_cmpeq_epi8(a, bslash)));
        __m256i bb = _mm256_or_si256(
            _mm256_or_si256(_mm256_cmpgt_epi8(space, b), _mm256_cmpeq_epi8(b, del)),
            _mm256_or_si256(_mm256_cmpeq_epi8(b, quote), _mm256_cmpeq_epi8(b, bslash)));
        uint64_t m = (uint64_t)(uint32_t)_mm256_movemask_epi8(ba) |
                     (uint64_t)(uint32_t)_mm256_movemask_epi8(bb) << 32;
        if (m) return i + (size_t)__builtin_ctzll(m);
    }
    return i;
}
#define GV_PLAIN_AVX2 1
#endif

size_t gv_plain_run(const void *s, size_t n)
{
    const unsigned char *p = s;
    const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
    size_t i = 0;
#ifdef GV_PLAIN_AVX2
    if (n >= 64 && __builtin_cpu_supports("avx2")) {
        i = plain_run_avx2(p, n);
        if (i + 64 <= n) return i; /* stopped at a byte that is not plain */
    }
#endif
    for (; i + 8 <= n; i += 8) { /* a word at a time while it is all plain (the tests are exact) */
        uint64_t x, q, b;
        memcpy(&x, p + i, 8);
        q = x ^ (ones * '"');
        b = x ^ (ones * '\\');
        if ((((x - ones * 0x20) & ~x) | (x + ones * (127 - 0x7e)) | x | ((q - ones) & ~q) |
             ((b - ones) & ~b)) & high)
            break;
    }
    while (i < n && p[i] >= 0x20 && p[i] <= 0x7e && p[i] != '"' && p[i] != '\\') i++;
    return i;
}

static void skip_token(gv_packed *r, size_t len)
{
    r->p += len;
    if (r->p < r->end) r->p++; /* the space */
    r->next++;
}

/* An entry as a message shows it: at most SHOWN_MAX bytes, other than printable ASCII as '?'. */
static const char *shown(const char *s, size_t len, char buf[SHOWN_MAX + 4])
{
    size_t n = len > SHOWN_MAX ? SHOWN_MAX : len;
    for (size_t i = 0; i < n; i++) buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
    strcpy(buf + n, len > SHOWN_MAX ? "..." : "");
    return buf;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* 1 when s[0..len) is a JSON number; *is_int: without fraction and exponent. */
static int json_number_text(const char *s, size_t len, int *is_int)
{
    const char *p = s, *e = s + len;
    if (p < e && *p == '-') p++;
    if (p == e || !is_digit(*p)) return 0;
    if (*p == '0')
        p++;
    else
        while (p < e && is_digit(*p)) p++;
    *is_int = 1;
    if (p < e && *p == '.') {
        if (++p == e || !is_digit(*p)) return 0;
        while (p < e && is_digit(*p)) p++;
        *is_int = 0;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        if (++p < e && (*p == '+' || *p == '-')) p++;
        if (p == e || !is_digit(*p)) return 0;
        while (p < e && is_digit(*p)) p++;
        *is_int = 0;
    }
    return p == e;
}

static grove_status past_end(const gv_packed *r)
{
    return gv_err(GROVE_ERR_INTERNAL, "%s: reading entry %zu of %zu", r->field, r->next, r->n);
}

/* A little-endian signed value of w bytes (1, 2, 4 or 8). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int64_t get_signed(const unsigned char *p, int w)
{
    switch (w) {
    case 1: return (int8_t)p[0];
    case 2: return (int16_t)(uint16_t)(p[0] | p[1] << 8);
    case 4: return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                             (uint32_t)p[3] << 24);
    default: return (int64_t)get_le64(p);
    }
}

/* The next binary entry: its tag ('i': *u holds an int64; 'r': a double's bits; 'w': a word),
 * its 8 bytes or its word; advances. */
static char bin_next(gv_packed *r, uint64_t *u, const char **word, size_t *len)
{
    const unsigned char *p = (const unsigned char *)r->p;
    r->next++;
    switch (r->bin) {
    case 'I':
        *u = (uint64_t)get_signed(p, r->width);
        r->p += r->width;
        return 'i';
    case 'N': {
        double d = (double)get_signed(p, r->width);
        memcpy(u, &d, sizeof d);
        r->p += r->width;
        return 'r';
    }
    case 'R':
        if (r->width == 4) {
            uint32_t v = (uint32_t)get_signed(p, 4);
            float f;
            memcpy(&f, &v, sizeof f);
            double d = f;
            memcpy(u, &d, sizeof d);
        } else {
            *u = get_le64(p);
        }
        r->p += r->width;
        return 'r';
    case 'W': {
        const unsigned char *w = (const unsigned char *)r->dict;
        for (unsigned j = *p; j > 0; j--) w += 1 + *w;
        *len = *w;
        *word = (const char *)w + 1;
        r->p++;
        return 'w';
    }
    }
    char tag = (char)*p++;
    if (tag == 'w') {
        *len = *p++;
        *word = (const char *)p;
        p += *len;
    } else {
        *u = get_le64(p);
        p += 8;
    }
    r->p = (const char *)p;
    return tag;
}

static double as_double(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static grove_status bin_int(gv_packed *r, int64_t lo, int64_t hi, int64_t *out)
{
    size_t k = r->next, len;
    uint64_t u = 0;
    const char *w;
    char tag = bin_next(r, &u, &w, &len);
    int64_t x;
    if (tag == 'i') {
        x = (int64_t)u;
    } else if (tag == 'r') {
        double d = as_double(u);
        /* a whole number in int64's range, as the text form would have been written */
        if (!(d == trunc(d) && fabs(d) < 9223372036854775808.0))
            return gv_err(GROVE_ERR_MODEL, "%s[%zu]: expected an integer, got %.17g", r->field, k, d);
        x = (int64_t)d;
    } else {
        return gv_err(GROVE_ERR_MODEL, "%s[%zu]: expected an integer, got a word", r->field, k);
    }
    if (x < lo || x > hi)
        return gv_err(GROVE_ERR_MODEL, "%s[%zu]: must be in [%lld, %lld], got %lld", r->field, k,
                      (long long)lo, (long long)hi, (long long)x);
    *out = x;
    return GROVE_OK;
}

static grove_status bin_real(gv_packed *r, double *out)
{
    size_t k = r->next, len;
    uint64_t u = 0;
    const char *w;
    char tag = bin_next(r, &u, &w, &len);
    if (tag == 'w') return gv_err(GROVE_ERR_MODEL, "%s[%zu]: expected a number, got a word", r->field, k);
    double x = tag == 'i' ? (double)(int64_t)u : as_double(u);
    if (!isfinite(x))
        return gv_err(GROVE_ERR_MODEL, "%s[%zu]: expected a finite number, got %g", r->field, k, x);
    *out = x;
    return GROVE_OK;
}

grove_status gv_packed_int_any(gv_packed *r, int64_t lo, int64_t hi, int64_t *out)
{
    if (r->next >= r->n) return past_end(r);
    if (r->bin == 'I') { /* the common case, in line: an integer in range */
        int64_t x = get_signed((const unsigned char *)r->p, r->width);
        if (x >= lo && x <= hi) {
            r->p += r->width;
            r->next++;
            *out = x;
            return GROVE_OK;
        }
    }
    if (r->bin) return bin_int(r, lo, hi, out);
    size_t k = r->next, len = 0;
    char buf[SHOWN_MAX + 4];
    int64_t x;
    if (r->array) {
        const json_t *v = json_array_get(r->array, k);
        if (!json_is_integer(v))
            return gv_err(GROVE_ERR_MODEL, "%s[%zu]: expected an integer, got %s", r->field, k,
                          gv_json_kind(v));
        x = (int64_t)json_integer_value(v);
        if (x < lo || x > hi)
            return gv_err(GROVE_ERR_MODEL, "%s[%zu]: must be in [%lld, %lld], got %lld", r->field,
                          k, (long long)lo, (long long)hi, (long long)x);
    } else {
        const char *s = next_token(r, &len);
        int is_int = 0;
        if (!json_number_text(s, len, &is_int) || !is_int)
            return gv_err(GROVE_ERR_MODEL, "%s[%zu]: expected an integer, got \"%s\"", r->field, k,
                          shown(s, len, buf));
        /* the magnitude, saturating: beyond 2^63 is out of any range anyway */
        int negative = s[0] == '-';
        uint64_t u = 0, limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
        int over = 0;
        for (size_t i = (size_t)negative; i < len && !over; i++) {
            uint64_t d = (uint64_t)(s[i] - '0');
            if (u > (limit - d) / 10)
                over = 1;
            else
                u = u * 10 + d;
        }
        x = negative ? (u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u) : (int64_t)u;
        if (over || x < lo || x > hi)
            return gv_err(GROVE_ERR_MODEL, "%s[%zu]: must be in [%lld, %lld], got %s", r->field, k,
                          (long long)lo, (long long)hi, shown(s, len, buf));
    }
    *out = x;
    if (r->array)
        r->next++;
    else
        skip_token(r, len);
    return GROVE_OK;
}

grove_status gv_packed_real(gv_packed *r, double *out)
{
    if (r->next >= r->n) return past_end(r);
    if (r->bin == 'R' || r->bin == 'N') { /* the common cases, in line */
        const unsigned char *p = (const unsigned char *)r->p;
        double x;
        if (r->bin == 'N') {
            x = (double)get_signed(p, r->width);
        } else if (r->width == 8) {
            uint64_t u = get_le64(p);
            memcpy(&x, &u, sizeof x);
        } else {
            uint32_t v = (uint32_t)get_signed(p, 4);
            float f;
            memcpy(&f, &v, sizeof f);
            x = f;
        }
        if (isfinite(x)) {
            r->p += r->width;
            r->next++;
            *out = x;
            return GROVE_OK;
        }
    }
    if (r->bin) return bin_real(r, out);
    size_t k = r->next;
    if (r->array) {
        const json_t *v = json_array_get(r->array, k);
        if (!json_is_number(v))
            return gv_err(GROVE_ERR_MODEL, "%s[%zu]: expected a number, got %s", r->field, k,
                          gv_json_kind(v));
        *out = json_number_value(v); /* finite: JSON has no NaN, jansson rejects overflow */
        r->next++;
        return GROVE_OK;
    }
    double x = 0;
    const char *q = gv_scan_json_number(r->p, r->end, &x);
    if (q) { /* the common case, one pass */
        *out = x;
        skip_token(r, (size_t)(q - r->p));
        return GROVE_OK;
    }
    size_t len;
    const char *s = next_token(r, &len);
    char buf[SHOWN_MAX + 4];
    int is_int;
    int rc = json_number_text(s, len, &is_int) ? gv_parse_decimal(s, len, &x) : GV_NUM_BAD;
    if (rc == GV_NUM_NOMEM) return gv_err_nomem("a number");
    if (rc == GV_NUM_RANGE || (rc == GV_NUM_OK && !isfinite(x)))
        return gv_err(GROVE_ERR_MODEL, "%s[%zu]: expected a finite number, got \"%s\"", r->field,
                      k, shown(s, len, buf));
    if (rc != GV_NUM_OK)
        return gv_err(GROVE_ERR_MODEL, "%s[%zu]: expected a number, got \"%s\"", r->field, k,
                      shown(s, len, buf));
    *out = x;
    skip_token(r, len);
    return GROVE_OK;
}

grove_status gv_packed_float(gv_packed *r, float *out)
{
    size_t k = r->next;
    double x;
    grove_status st = gv_packed_real(r, &x);
    if (st != GROVE_OK) return st;
    /* the range first: converting an out-of-range double to float is undefined */
    if (!(fabs(x) <= FLT_MAX) || (double)(float)x != x)
        return gv_err(GROVE_ERR_MODEL, "%s[%zu]: %.17g is not a float value", r->field, k, x);
    *out = (float)x;
    return GROVE_OK;
}

grove_status gv_packed_word(gv_packed *r, const char *const *words, int n_words, int *out)
{
    if (r->next >= r->n) return past_end(r);
    /* a word list's entry: its index in `words` once known (the same list each time) */
    unsigned d = r->bin == 'W' ? *(const unsigned char *)r->p : GV_PACKED_WMAP;
    if (d < GV_PACKED_WMAP && r->wlist == words && r->wmap[d] >= 0) {
        *out = r->wmap[d];
        r->p++;
        r->next++;
        return GROVE_OK;
    }
    size_t k = r->next, len;
    const char *s;
    int bin_number = 0;
    if (r->bin) {
        const gv_packed before = *r;
        uint64_t u;
        s = NULL;
        len = 0;
        bin_number = bin_next(r, &u, &s, &len) != 'w';
        *r = before; /* advanced below on a match, as the text form is */
        if (bin_number)
            s = NULL;
    } else if (r->array) {
        const json_t *v = json_array_get(r->array, k);
        s = json_string_value(v);
        len = s ? json_string_length(v) : 0;
    } else {
        s = next_token(r, &len);
    }
    for (int j = 0; s && j < n_words; j++)
        if (strlen(words[j]) == len && !memcmp(words[j], s, len)) {
            *out = j;
            if (d < GV_PACKED_WMAP) {
                if (r->wlist != words) {
                    for (int c = 0; c < GV_PACKED_WMAP; c++) r->wmap[c] = -1;
                    r->wlist = words;
                }
                r->wmap[d] = (short)j;
            }
            if (r->bin) {
                uint64_t u;
                bin_next(r, &u, &s, &len);
            } else if (r->array) {
                r->next++;
            } else {
                skip_token(r, len);
            }
            return GROVE_OK;
        }
    /* expected "a", "b" or "c", got "x" (or: got an integer) */
    char list[256] = "", buf[SHOWN_MAX + 4];
    size_t used = 0;
    for (int j = 0; j < n_words && used < sizeof list; j++) {
        int w = snprintf(list + used, sizeof list - used, "%s\"%s\"",
                         j == 0 ? "" : j + 1 < n_words ? ", " : " or ", words[j]);
        if (w < 0) break;
        used += (size_t)w;
    }
    if (!s)
        return gv_err(GROVE_ERR_MODEL, "%s[%zu]: expected %s, got %s", r->field, k, list,
                      bin_number ? "a number" : gv_json_kind(json_array_get(r->array, k)));
    return gv_err(GROVE_ERR_MODEL, "%s[%zu]: expected %s, got \"%s\"", r->field, k, list,
                  shown(s, len, buf));
}

grove_status gv_json_get_packed_reals(const json_t *obj, const char *field, size_t n, int packed,
                                      double *out)
{
    gv_packed r;
    grove_status st = gv_packed_open(obj, field, n, packed, &r);
    for (size_t i = 0; st == GROVE_OK && i < n; i++) st = gv_packed_real(&r, &out[i]);
    return st;
}

int gv_json_load_nomem(const json_error_t *e)
{
    return json_error_code(e) == json_error_out_of_memory || e->text[0] == '\0';
}
