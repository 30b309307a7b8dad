/*
 * model_json.c -- the model as a JSON document: the writer (model -> document, with its
 * checksum) and the reader (document -> model, every field checked).
 *
 * Pipeline position: model/, between the container (model.c) and the file (model_file.c).
 * The format (docs/model-format.md), in short:
 *
 *   {"format": "grove-model", "version": [1, 2], "grove_version", "algo", "n_outputs",
 *    "n_train_rows", "params": {name: text}, "schema": {...}, "bins": [...],
 *    "model": {"kind": "tree", ...component...}, "crc32": "8 hex digits"}
 *
 * Exactness: reals are written with 17 significant digits (%.17g), which reads back to the same
 * double, so every double -- and every float, widened to double -- round-trips bit for bit.
 * Packed arrays (format 1.1): a tree's per-node arrays are each one JSON string of numbers
 * separated by single spaces ("0 -1 3"); the gv_packed_* helpers (core/json.c) write and read
 * them as strictly as JSON numbers.  Format 1.0 files, with JSON arrays there, still load: the
 * reader tells the components which form to expect (gv_model_ctx.minor).
 * Checksum: the CRC-32 (zlib) of the canonical text of the document without "crc32":
 * json_dumps(JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17)).  The reader parses the
 * file, removes "crc32" and recomputes the same text, so the checksum covers every value but
 * no whitespace or key order.
 * Trust: a model file is untrusted input.  Reading checks, in this order: the JSON syntax
 * (path:line:column), that it is a grove model ("format"), that this build can read its
 * version (a newer major version is refused by name), the checksum, that every field is known,
 * the type and range of every field, and then the semantic checks of model_check.c that the
 * writer runs before writing.
 */
#include "model_int.h"
#include "../core/json.h"

#include "../core/params.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <isa-l/crc.h>

/* The canonical text the checksum is computed on. */
#define DUMP_CANONICAL (JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17))

static const char *const top_fields[] = {"format", "version", "grove_version", "algo",
                                         "n_outputs", "n_train_rows", "params", "schema",
                                         "bins", "model", "crc32"};
static const char *const schema_fields[] = {"task", "label", "classes", "features",
                                            "feature_ids", "n_columns"};
static const char *const feature_fields[] = {"name", "type", "categories"};
static const char *const bin_fields[] = {"n_bins", "cuts"};

/* ---- writing ---- */

/* Parameters that are not part of a model: the thread count is an execution setting, and a
 * model must not depend on it (same seed and data -> the same file for any "threads"). */
static int is_stored_param(gv_param_id id) { return id != GV_P_THREADS; }

static int add_base_param(void *obj, const char *key, const char *value)
{
    return gv_json_set_new(obj, key, json_string(value));
}

/* Every parameter of the table, then the base learner's ("base.KEY") that the user set. */
json_t *gv_model_params_json(const grove_params *p)
{
    json_t *obj = json_object();
    for (int i = 0; obj && i < GV_P_COUNT; i++) {
        if (!is_stored_param((gv_param_id)i)) continue;
        if (gv_json_set_new(obj, gv_param_name((gv_param_id)i),
                    json_string(gv_param_str(p, (gv_param_id)i)))) {
            json_decref(obj);
            return NULL;
        }
    }
    if (obj && gv_params_foreach_base(p, "", add_base_param, obj) != 0) {
        json_decref(obj);
        return NULL;
    }
    return obj;
}

/* The schema; with map (compact features, see model_doc) only the features it keeps. */
static json_t *schema_json(const grove_schema *s, const int32_t *map)
{
    json_t *obj = json_object(), *features = json_array();
    int bad = !obj || !features;
    bad |= gv_json_set_new(obj, "task", json_string(s->task == GROVE_CLASSIFICATION ? "classification"
                                                                            : "regression"));
    bad |= gv_json_set_new(obj, "label", json_string(s->label_name));
    bad |= gv_json_set_new(obj, "classes", gv_json_string_array(s->classes.names, s->classes.n));
    for (size_t f = 0; f < s->n_features && !bad; f++) {
        if (map && map[f] < 0) continue;
        json_t *feat = json_object();
        bad |= gv_json_set_new(feat, "name", json_string(s->feature_names[f]));
        bad |= gv_json_set_new(feat, "type", json_string(s->is_categorical[f] ? "categorical"
                                                                      : "numeric"));
        if (s->is_categorical[f])
            bad |= gv_json_set_new(feat, "categories",
                           gv_json_string_array(s->categories[f].names, s->categories[f].n));
        bad |= json_array_append_new(features, feat);
    }
    bad |= json_object_set(obj, "features", features);
    json_decref(features);
    if (!bad && s->feature_ids) {
        /* format 1.3: compact features, feature f reading column feature_ids[f] of n_columns */
        gv_buf ids = {0};
        for (size_t f = 0; f < s->n_features && !bad; f++)
            if (!map || map[f] >= 0) bad |= gv_packed_add_int(&ids, s->feature_ids[f]) != 0;
        bad |= gv_json_set_new(obj, "feature_ids", bad ? NULL : gv_packed_json(&ids));
        bad |= gv_json_set_new(obj, "n_columns", json_integer((json_int_t)s->n_columns));
        gv_buf_free(&ids);
    }
    if (bad) {
        json_decref(obj);
        return NULL;
    }
    return obj;
}

json_t *gv_schema_to_json(const grove_schema *s) { return schema_json(s, NULL); }

/* What a model with compact features keeps of its cut points (model_doc): the bits of the
 * cuts its numeric splits name, feature f's at offset[f] ..; rank[w]: kept cuts before word w. */
typedef struct cut_keep {
    size_t *offset;  /* [n_features + 1] */
    uint64_t *bits;
    uint32_t *rank;
} cut_keep;

/* The bin mappers: prediction reads raw values, so the cut points serve only to check that every
 * numeric split's threshold is a cut point of its feature; from format 1.2 a numeric feature no
 * split reads is written as {"n_bins": 0} (a stump over 30 features: 192 KB -> 8 KB). */
static json_t *bins_to_json(const grove_schema *s, const gv_bin_mapper *mappers,
                            const unsigned char *used, const int32_t *map, const cut_keep *ck)
{
    json_t *a = json_array();
    int bad = !a;
    for (size_t f = 0; f < s->n_features && !bad; f++) {
        if (map && map[f] < 0) continue;
        const gv_bin_mapper *b = &mappers[f];
        json_t *obj = json_object();
        if (!b->is_categorical && used && !used[f]) {
            bad |= gv_json_set_new(obj, "n_bins", json_integer(0));
            bad |= json_array_append_new(a, obj);
            continue;
        }
        bad |= gv_json_set_new(obj, "n_bins", json_integer(b->n_bins));
        if (!b->is_categorical) {
            json_t *cuts = json_array();
            uint32_t n_kept = 0;
            for (uint32_t c = 0; c < b->n_cuts && cuts; c++) {
                size_t pos = ck ? ck->offset[f] + c : 0;
                if (ck && !(ck->bits[pos / 64] >> (pos % 64) & 1)) continue; /* no split's */
                n_kept++;
                if (json_array_append_new(cuts, json_real((double)b->cuts[c]))) {
                    json_decref(cuts);
                    cuts = NULL;
                }
            }
            bad |= gv_json_set_new(obj, "cuts", cuts);
            if (ck) bad |= gv_json_set_new(obj, "n_bins", json_integer(n_kept + 2));
        }
        bad |= json_array_append_new(a, obj);
    }
    if (bad) {
        json_decref(a);
        return NULL;
    }
    return a;
}

/* The document without "crc32", in the order of docs/model-format.md. */
static json_t *model_to_json(const grove_model *m, const unsigned char *used,
                             const int32_t *map, const cut_keep *ck)
{
    json_t *doc = json_object(), *version = json_array(), *component = NULL;
    int bad = !doc || !version;
    bad |= json_array_append_new(version, json_integer(GV_MODEL_FORMAT_MAJOR));
    /* a model without compact features is written as format 1.2, which older builds read */
    bad |= json_array_append_new(version, json_integer(m->schema && m->schema->feature_ids
                                                       ? GV_MODEL_FORMAT_MINOR : 2));
    bad |= gv_json_set_new(doc, "format", json_string(GV_MODEL_FORMAT_NAME));
    bad |= json_object_set(doc, "version", version);
    bad |= gv_json_set_new(doc, "grove_version", json_string(GROVE_VERSION_STRING));
    bad |= gv_json_set_new(doc, "algo", json_string(m->algo));
    bad |= gv_json_set_new(doc, "n_outputs", json_integer((json_int_t)m->n_outputs));
    bad |= gv_json_set_new(doc, "n_train_rows", json_integer((json_int_t)m->n_train_rows));
    bad |= gv_json_set_new(doc, "params", gv_model_params_json(m->params));
    bad |= gv_json_set_new(doc, "schema", schema_json(m->schema, map));
    bad |= gv_json_set_new(doc, "bins", bins_to_json(m->schema, m->mappers, used, map, ck));
    if (!bad) {
        /* {"kind": ..., then the component's own fields}, features renumbered by map */
        const int32_t *outer = gv_feature_map();
        gv_feature_map_set(map);
        if (ck) gv_cut_map_set(ck->offset, ck->bits, ck->rank);
        component = gv_component_to_json(&m->root);
        gv_feature_map_set(outer);
        if (ck) gv_cut_map_set(NULL, NULL, NULL);
        bad |= !component || json_object_set(doc, "model", component);
    }
    json_decref(component);
    json_decref(version);
    if (bad) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

/* zlib's CRC-32 (the reflected IEEE polynomial, crc32(crc, data, size) of any size), by ISA-L's
 * crc32_gzip_refl: carry-less multiplication folding where the CPU has it, picked at run time. */
uLong gv_crc32(uLong crc, const void *data, size_t size)
{
    return crc32_gzip_refl((uint32_t)crc, (const unsigned char *)data, (uint64_t)size);
}

/* The checksum of the canonical text, as it is produced: the CRC of the text since the last
 * long string (crc, len), and -- when `pieces` is on -- the long plain-looking strings set
 * aside with the sums before them, to be summed on the OpenMP threads and combined in order
 * (crc32_combine).  A long string that turns out not to be plain ASCII (its canonical text has
 * escapes) sends the whole sum back to the sequential way. */
typedef struct canon_piece {
    const char *s; /* a long string's bytes, or NULL: text already summed */
    size_t len;
    uLong crc;
    int plain;
} canon_piece;

typedef struct canon_sum {
    uLong crc;
    size_t len;
    int pieces;           /* set long strings aside */
    canon_piece *piece;
    size_t n, cap;
    int failed;           /* out of memory while setting aside */
} canon_sum;

/* Strings at least this long are summed apart (a packed array: megabytes). */
#define CANON_PIECE 4096

static int crc_callback(const char *buffer, size_t size, void *data)
{
    canon_sum *sum = data;
    sum->crc = gv_crc32(sum->crc, buffer, size);
    sum->len += size;
    return 0;
}

static int add_piece(canon_sum *sum, canon_piece p)
{
    if (sum->n == sum->cap) {
        size_t cap = sum->cap ? 2 * sum->cap : 256;
        canon_piece *q = gv_realloc_array(sum->piece, cap, sizeof *q);
        if (!q) return -1;
        sum->piece = q;
        sum->cap = cap;
    }
    sum->piece[sum->n++] = p;
    return 0;
}

/* The canonical text of `doc`, fed to the CRC without building it: jansson's
 * json_dump_callback(DUMP_CANONICAL) spelled out for the containers (keys in byte order, ","
 * and ":" without spaces) and for strings of plain printable ASCII (no '"' or '\\': written as
 * they are, in one piece -- a packed array is one such string of megabytes), and jansson's own
 * dump for everything else (numbers, literals, strings that need escapes), so that the text is
 * exactly jansson's (tested against it: test_model_io).  0, or -1 when out of memory. */
typedef struct canon_key {
    const char *key;
    size_t len;
    const json_t *value;
} canon_key;

static int canon_key_cmp(const void *a, const void *b)
{
    const canon_key *x = a, *y = b;
    int c = memcmp(x->key, y->key, x->len < y->len ? x->len : y->len);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* Whether jansson writes s[0..n) as it is (no escape). */
static int plain_ascii(const char *s, size_t n) { return gv_plain_run(s, n) == n; }

/* (plain: s is known to be plain ASCII, a packed array borrowed from the file) */
static int canon_string(canon_sum *crc, const char *s, size_t n, const json_t *v, int plain)
{
    if (crc->pieces && n >= CANON_PIECE) { /* its plainness is checked where it is summed */
        crc_callback("\"", 1, crc);
        if (add_piece(crc, (canon_piece){NULL, crc->len, crc->crc, 1}) != 0 ||
            add_piece(crc, (canon_piece){s, n, 0, plain}) != 0) {
            crc->failed = 1;
            return -1;
        }
        crc->crc = crc32(0L, Z_NULL, 0);
        crc->len = 0;
        crc_callback("\"", 1, crc);
        return 0;
    }
    if (plain || plain_ascii(s, n)) {
        crc_callback("\"", 1, crc);
        crc_callback(s, n, crc);
        crc_callback("\"", 1, crc);
        return 0;
    }
    json_t *tmp = v ? NULL : json_stringn(s, n);
    if (!v && !tmp) return -1;
    int rc = json_dump_callback(v ? v : tmp, crc_callback, crc, DUMP_CANONICAL | JSON_ENCODE_ANY);
    json_decref(tmp);
    return rc;
}

/* %.17g's text t[0..n) of a real as jansson's dump writes it (jsonp_dtostr): ".0" appended to
 * what would read as an integer, the exponent without its '+' and leading zeros; the new
 * length (t holds at least n + 3 bytes). */
static size_t jansson_real_text(char *t, size_t n)
{
    char *e = memchr(t, 'e', n);
    if (!e) {
        if (!memchr(t, '.', n)) {
            t[n++] = '.';
            t[n++] = '0';
        }
        return n;
    }
    char *start = e + 1, *end = e + 2, *stop = t + n;
    if (*start == '-') start++;
    while (end < stop && *end == '0') end++;
    if (end != start) {
        memmove(start, end, (size_t)(stop - end));
        n -= (size_t)(end - start);
    }
    return n;
}

static int canon_crc(canon_sum *crc, const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        size_t n = json_object_size(v), i = 0;
        canon_key *keys = gv_malloc_array(n ? n : 1, sizeof *keys);
        if (!keys) return -1;
        const char *key;
        json_t *x;
        json_object_foreach((json_t *)v, key, x) {
            keys[i].key = key;
            keys[i].len = strlen(key);
            keys[i++].value = x;
        }
        qsort(keys, i, sizeof *keys, canon_key_cmp);
        int rc = 0;
        crc_callback("{", 1, crc);
        for (size_t k = 0; k < i && rc == 0; k++) {
            if (k) crc_callback(",", 1, crc);
            rc = canon_string(crc, keys[k].key, keys[k].len, NULL, 0);
            if (rc == 0) {
                crc_callback(":", 1, crc);
                rc = canon_crc(crc, keys[k].value);
            }
        }
        crc_callback("}", 1, crc);
        gv_free(keys);
        return rc;
    }
    case JSON_ARRAY: {
        int rc = 0;
        crc_callback("[", 1, crc);
        for (size_t k = 0; k < json_array_size(v) && rc == 0; k++) {
            if (k) crc_callback(",", 1, crc);
            rc = canon_crc(crc, json_array_get(v, k));
        }
        crc_callback("]", 1, crc);
        return rc;
    }
    case JSON_STRING: { /* a borrowed packed array (model_file.c) is summed as its text */
        size_t n = 0;
        const char *s = gv_json_text(v, &n);
        int own = s == json_string_value(v);
        return canon_string(crc, s, n, own ? v : NULL, !own);
    }
    case JSON_REAL: { /* (a model's bins: 100,000s of reals, each a printf call in jansson) */
        char t[40];
        size_t n = gv_format_17g(json_real_value(v), t);
        if (n == 0) return json_dump_callback(v, crc_callback, crc, DUMP_CANONICAL | JSON_ENCODE_ANY);
        n = jansson_real_text(t, n);
        crc_callback(t, n, crc);
        return 0;
    }
    default:
        return json_dump_callback(v, crc_callback, crc, DUMP_CANONICAL | JSON_ENCODE_ANY);
    }
}

grove_status gv_model_doc_checksum(const json_t *doc, char hex[9])
{
    canon_sum sum = {crc32(0L, Z_NULL, 0), 0, 1, NULL, 0, 0, 0};
    uLong crc = 0;
    int rc = canon_crc(&sum, doc), plain = 1;
    if (rc == 0) {
        /* the long strings summed on the threads, then all pieces combined in order */
        const long n = (long)sum.n;
#pragma omp parallel for schedule(dynamic, 1) if (n >= 8)
        for (long k = 0; k < n; k++) {
            canon_piece *p = &sum.piece[k];
            if (!p->s) continue;
            if (!p->plain) p->plain = plain_ascii(p->s, p->len);
            p->crc = gv_crc32(crc32(0L, Z_NULL, 0), p->s, p->len);
        }
        crc = crc32(0L, Z_NULL, 0);
        for (size_t k = 0; k < sum.n; k++) {
            plain &= sum.piece[k].plain;
            crc = crc32_combine(crc, sum.piece[k].crc, (z_off_t)sum.piece[k].len);
        }
        crc = crc32_combine(crc, sum.crc, (z_off_t)sum.len);
    }
    gv_free(sum.piece);
    if (rc != 0 || !plain) { /* out of memory setting strings aside, or one needs escapes */
        if (rc != 0 && !sum.failed) return gv_err_nomem("the model checksum");
        canon_sum seq = {crc32(0L, Z_NULL, 0), 0, 0, NULL, 0, 0, 0};
        if (canon_crc(&seq, doc) != 0) return gv_err_nomem("the model checksum");
        crc = seq.crc;
    }
    snprintf(hex, 9, "%08lx", (unsigned long)(crc & 0xFFFFFFFFul));
    return GROVE_OK;
}

/* The checked model's document without "crc32" (a new reference in *out).  In lazy mode
 * (learner.h) the members of the root component are placeholders, built when written. */
static grove_status model_doc(const grove_model *m, json_t **out, int32_t **map_out,
                              cut_keep *ck_out)
{
    *out = NULL;
    *map_out = NULL;
    *ck_out = (cut_keep){NULL, NULL, NULL};
    grove_status st = GROVE_OK;
    /* the root check marks the features numeric splits read, and for a model with compact
     * features (schema feature_ids) those any split reads and the cut points splits name */
    const size_t F = m->schema ? m->schema->n_features : 0;
    const int compact = m->schema && m->schema->feature_ids && m->mappers;
    unsigned char *mark_used = gv_calloc(F + 1, 1);
    unsigned char *mark_read = compact ? gv_calloc(F + 1, 1) : NULL;
    int32_t *map = NULL;
    int reads_all = 0;
    cut_keep ck = {NULL, NULL, NULL};
    size_t n_words = 0;
    json_t *doc = NULL;
    if (compact && (ck.offset = gv_malloc_array(F + 1, sizeof *ck.offset)) != NULL) {
        ck.offset[0] = 0;
        for (size_t f = 0; f < F; f++)
            ck.offset[f + 1] = ck.offset[f] + (m->mappers[f].is_categorical ? 0 : m->mappers[f].n_cuts);
        n_words = ck.offset[F] / 64 + 1;
        ck.bits = gv_calloc(n_words, sizeof *ck.bits);
        ck.rank = gv_malloc_array(n_words, sizeof *ck.rank);
    }
    if (!mark_used || (compact && (!mark_read || !ck.offset || !ck.bits || !ck.rank))) {
        st = gv_err_nomem("the model's JSON");
        goto done;
    }
    if ((st = gv_model_check_head(m)) != GROVE_OK || (st = gv_model_check_strings(m)) != GROVE_OK ||
        (st = gv_model_check_root_marks(m, 1, mark_used, mark_read, &reads_all, ck.bits,
                                        ck.offset)) != GROVE_OK) {
        if (st != GROVE_ERR_MODEL) goto done; /* NOMEM, or DATA: a name that is not UTF-8 */
        /* Our own trainer built it: an invalid model is a bug, not bad input. */
        gv_err_prefix("cannot write an invalid model");
        st = GROVE_ERR_INTERNAL;
        goto done;
    }
    /* Models store only the features they use: a model with compact features whose
     * components read features only through splits keeps those (at least one), renumbered in
     * order; the others, never read, are left out of its schema, bins and components.  Of the
     * cut points it keeps those its numeric splits name (a split's bin_split renumbered), as
     * the cuts serve only to check the thresholds. */
    if (compact && !reads_all) {
        size_t kept = 0;
        for (size_t f = 0; f < F; f++) kept += mark_read[f] != 0;
        if (kept == 0) mark_read[0] = 1, kept = 1;
        if (kept < F && !(map = gv_malloc_array(F, sizeof *map))) {
            st = gv_err_nomem("the model's JSON");
            goto done;
        }
        for (size_t f = 0; map && f < F; f++) map[f] = -1;
        int32_t next = 0;
        for (size_t f = 0; map && f < F; f++)
            if (mark_read[f]) map[f] = next++;
    }
    if (compact) {
        uint32_t r = 0;
        for (size_t w = 0; w < n_words; w++) {
            ck.rank[w] = r;
            r += (uint32_t)__builtin_popcountll(ck.bits[w]);
        }
    }
    doc = model_to_json(m, mark_used, map, compact ? &ck : NULL);
    if (!doc) st = gv_err_nomem("the model's JSON");
done:
    gv_free(mark_used);
    gv_free(mark_read);
    if (st != GROVE_OK) {
        json_decref(doc);
        gv_free(map);
        gv_free(ck.offset);
        gv_free(ck.bits);
        gv_free(ck.rank);
        return st;
    }
    /* the members not built yet (lazy) write their features and cuts through these */
    *out = doc;
    *map_out = map;
    *ck_out = ck;
    return GROVE_OK;
}

/* What the members are written with: the feature map (NULL: none) and the kept cuts. */
typedef struct write_maps {
    int32_t *map;
    cut_keep ck;
} write_maps;

static void write_maps_free(write_maps *w)
{
    gv_free(w->map);
    gv_free(w->ck.offset);
    gv_free(w->ck.bits);
    gv_free(w->ck.rank);
}

/* The skeleton: the document with each member a placeholder (lazy mode, learner.h); *maps,
 * what the members are written with, is freed by the caller once every member is written. */
static grove_status skeleton(const grove_model *m, json_t **out, write_maps *maps)
{
    int old = gv_component_lazy(1);
    grove_status st = model_doc(m, out, &maps->map, &maps->ck);
    gv_component_lazy(old);
    if (st != GROVE_OK) gv_component_lazy_end();
    return st;
}

/* ---- writing the text, member by member ----
 * The skeleton's text is small; the writer copies it to the sink up to each placeholder, and
 * there builds the member's JSON, writes its text (indented to the placeholder's depth), adds
 * its canonical text to the checksum, and frees it.  The checksum is the CRC-32 of the
 * canonical text of the whole document: the skeleton's canonical text with each placeholder's
 * CRC-32 spliced in (crc32_combine), known when "crc32" -- the last field -- is reached. */

/* A placeholder in a dumped text at s[0..): `"\u0000member N\u0000"` (member N, *len bytes) or
 * `"\u0000crc32\u0000"` (returns 2); 0 when s is no placeholder. */
#define NUL_ESC "\\u0000"
#define CRC_MARK "crc32"
static int placeholder_at(const char *s, const char *end, size_t *member, size_t *len)
{
    size_t el = sizeof NUL_ESC - 1;
    if ((size_t)(end - s) < 2 + 2 * el || s[0] != '"' || memcmp(s + 1, NUL_ESC, el) != 0) return 0;
    const char *p = s + 1 + el;
    int kind;
    if ((size_t)(end - p) > 7 && !memcmp(p, "member ", 7)) {
        p += 7;
        size_t k = 0;
        const char *d = p;
        while (p < end && *p >= '0' && *p <= '9') k = k * 10 + (size_t)(*p++ - '0');
        if (p == d) return 0;
        *member = k;
        kind = 1;
    } else if ((size_t)(end - p) > sizeof CRC_MARK - 1 && !memcmp(p, CRC_MARK, sizeof CRC_MARK - 1)) {
        p += sizeof CRC_MARK - 1;
        kind = 2;
    } else {
        return 0;
    }
    if ((size_t)(end - p) < el + 1 || memcmp(p, NUL_ESC, el) != 0 || p[el] != '"') return 0;
    *len = (size_t)(p + el + 1 - s);
    return kind;
}

/* The next placeholder in s[0..end) at or after s: its start (end when none). */
static const char *next_placeholder(const char *s, const char *end, int *kind, size_t *member,
                                    size_t *len)
{
    for (const char *p = s; p < end; p++) {
        p = memchr(p, '"', (size_t)(end - p));
        if (!p) break;
        if ((*kind = placeholder_at(p, end, member, len)) != 0) return p;
    }
    *kind = 0;
    return end;
}

typedef struct text_sink {
    json_dump_callback_t sink;
    void *data;
    int failed;    /* the sink refused a write */
    size_t indent; /* spaces written after each newline */
} text_sink;

static int put_text(text_sink *t, const char *s, size_t n)
{
    if (t->failed) return -1;
    if (n && t->sink(s, n, t->data) != 0) {
        t->failed = 1;
        return -1;
    }
    return 0;
}

/* json_dump_callback's sink for a member: its newlines get the placeholder's indentation. */
static int indent_callback(const char *buffer, size_t size, void *data)
{
    static const char spaces[64] = "                                                               ";
    text_sink *t = data;
    while (size > 0) {
        const char *nl = memchr(buffer, '\n', size);
        size_t k = nl ? (size_t)(nl - buffer) + 1 : size;
        if (put_text(t, buffer, k) != 0) return -1;
        buffer += k;
        size -= k;
        for (size_t left = nl ? t->indent : 0; left > 0;) {
            size_t c = left < sizeof spaces ? left : sizeof spaces;
            if (put_text(t, spaces, c) != 0) return -1;
            left -= c;
        }
    }
    return 0;
}

typedef struct crc_len {
    uLong crc;
    size_t len;
} crc_len;

static int crc_len_callback(const char *buffer, size_t size, void *data)
{
    crc_len *c = data;
    c->len += size;
    c->crc = gv_crc32(c->crc, buffer, size);
    return 0;
}

/* ---- a member's text with its long strings kept out of jansson's dump ----
 * A member's packed arrays are strings of megabytes of plain ASCII (nothing to escape), which
 * jansson would scan byte by byte, twice (the file's text and the checksum's canonical text).
 * Instead each such string is swapped for a short placeholder `"\u0000piece N\u0000"`, the
 * (now small) member dumped both ways, and the strings spliced in where their placeholders
 * are: in the file's text written as they are, in the canonical text summed on their own and
 * combined in order (crc32_combine).  A member where any other string holds a NUL byte (so a
 * placeholder could be faked) goes the plain way (keys are grove's own names, set without
 * NUL bytes). */
typedef struct long_str {
    json_t *container; /* object or array holding it */
    const char *key;   /* its key in an object, or NULL */
    size_t index;      /* its index in an array */
    json_t *value;     /* the string (a reference kept) */
    uLong crc;         /* CRC-32 of its canonical text: the quotes and the bytes */
} long_str;

typedef struct long_strs {
    long_str *s;
    size_t n, cap;
    int nul;    /* some other string holds a NUL byte */
    int failed; /* out of memory */
} long_strs;

static void find_long(long_strs *ls, json_t *container, const char *key, size_t index, json_t *v)
{
    if (ls->nul || ls->failed) return;
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x) find_long(ls, v, k, 0, x); /* keys: grove's names */
        break;
    }
    case JSON_ARRAY:
        for (size_t i = 0; i < json_array_size(v); i++) find_long(ls, v, NULL, i, json_array_get(v, i));
        break;
    case JSON_STRING: {
        const char *s = json_string_value(v);
        size_t n = json_string_length(v);
        if (n >= CANON_PIECE && container && plain_ascii(s, n)) {
            if (ls->n == ls->cap) {
                size_t cap = ls->cap ? 2 * ls->cap : 16;
                long_str *q = gv_realloc_array(ls->s, cap, sizeof *q);
                if (!q) {
                    ls->failed = 1;
                    return;
                }
                ls->s = q;
                ls->cap = cap;
            }
            ls->s[ls->n++] = (long_str){container, key, index, v, 0};
        } else if (memchr(s, '\0', n)) {
            ls->nul = 1;
        }
        break;
    }
    default:
        break;
    }
}

#define PIECE_MARK "piece "
/* A piece placeholder `"\u0000piece N\u0000"` at s[0..end): its number and length, or 0. */
static int piece_at(const char *s, const char *end, size_t *piece, size_t *len)
{
    size_t el = sizeof NUL_ESC - 1, ml = sizeof PIECE_MARK - 1;
    if ((size_t)(end - s) < 2 + 2 * el + ml || s[0] != '"' || memcmp(s + 1, NUL_ESC, el) != 0 ||
        memcmp(s + 1 + el, PIECE_MARK, ml) != 0)
        return 0;
    const char *p = s + 1 + el + ml, *d = p;
    size_t k = 0;
    while (p < end && *p >= '0' && *p <= '9') k = k * 10 + (size_t)(*p++ - '0');
    if (p == d || (size_t)(end - p) < el + 1 || memcmp(p, NUL_ESC, el) != 0 || p[el] != '"') return 0;
    *piece = k;
    *len = (size_t)(p + el + 1 - s);
    return 1;
}

/* The next piece placeholder in s[0..end): its start (end when none). */
static const char *next_piece(const char *s, const char *end, size_t *piece, size_t *len)
{
    for (const char *p = s; p < end; p++) {
        p = memchr(p, '"', (size_t)(end - p));
        if (!p) break;
        if (piece_at(p, end, piece, len)) return p;
    }
    return end;
}

/* Writes member `mj` (indented, t->indent) and sums its canonical text into *c.  0, -1 when
 * out of memory or the sink failed (t->failed). */
static int write_member(text_sink *t, json_t *mj, crc_len *c)
{
    long_strs ls = {NULL, 0, 0, 0, 0};
    find_long(&ls, NULL, NULL, 0, mj);
    if (ls.failed || ls.nul || ls.n == 0) {
        gv_free(ls.s);
        return json_dump_callback(mj, indent_callback, t, GV_MODEL_DUMP_FILE) != 0 ||
                       json_dump_callback(mj, crc_len_callback, c, DUMP_CANONICAL) != 0
                   ? -1
                   : 0;
    }
    int rc = 0;
    size_t swapped = 0;
    for (; swapped < ls.n && rc == 0; swapped++) {
        long_str *s = &ls.s[swapped];
        char name[48];
        int nl = snprintf(name, sizeof name, "%c" PIECE_MARK "%zu%c", 0, swapped, 0);
        json_t *ph = json_stringn_nocheck(name, (size_t)nl);
        json_incref(s->value);
        rc = !ph ? -1
             : s->key ? json_object_set_new(s->container, s->key, ph)
                      : json_array_set_new(s->container, s->index, ph);
        if (rc != 0) {
            json_decref(s->value);
            swapped++;
            rc = -1;
            break;
        }
    }
    /* the long strings' canonical CRCs (on one thread: a member's strings are a few MB, summed
     * at GB/s, and a parallel region per member would keep the other threads spinning) */
    for (size_t k = 0; k < ls.n; k++) {
        long_str *s = &ls.s[k];
        uLong x = gv_crc32(crc32(0L, Z_NULL, 0), "\"", 1);
        x = gv_crc32(x, json_string_value(s->value), json_string_length(s->value));
        s->crc = gv_crc32(x, "\"", 1);
    }
    gv_buf file = {0}, canon = {0};
    if (rc == 0 && (json_dump_callback(mj, gv_json_buf_sink, &file, GV_MODEL_DUMP_FILE) != 0 ||
                    json_dump_callback(mj, gv_json_buf_sink, &canon, DUMP_CANONICAL) != 0))
        rc = -1;
    size_t next = 0; /* each placeholder once in each text (not in the same order: the
                      * canonical text sorts the keys) */
    unsigned char *used = rc == 0 ? gv_calloc(ls.n, 1) : NULL;
    if (!used) rc = -1;
    for (const char *p = file.data, *end = file.data + file.len; rc == 0;) {
        size_t k = 0, len = 0;
        const char *q = next_piece(p, end, &k, &len);
        if (indent_callback(p, (size_t)(q - p), t) != 0) rc = -1;
        if (rc != 0 || q == end) break;
        if (k >= ls.n || used[k] != 0) {
            rc = -2;
            break;
        }
        used[k] = 1;
        next++;
        json_t *v = ls.s[k].value;
        if (put_text(t, "\"", 1) != 0 ||
            put_text(t, json_string_value(v), json_string_length(v)) != 0 ||
            put_text(t, "\"", 1) != 0)
            rc = -1;
        p = q + len;
    }
    if (rc == 0 && next != ls.n) rc = -2;
    next = 0;
    for (const char *p = canon.data, *end = canon.data + canon.len; rc == 0;) {
        size_t k = 0, len = 0;
        const char *q = next_piece(p, end, &k, &len);
        crc_len_callback(p, (size_t)(q - p), c);
        if (q == end) break;
        if (k >= ls.n || used[k] != 1) {
            rc = -2;
            break;
        }
        used[k] = 2;
        next++;
        size_t sl = json_string_length(ls.s[k].value) + 2;
        c->crc = crc32_combine(c->crc, ls.s[k].crc, (z_off_t)sl);
        c->len += sl;
        p = q + len;
    }
    if (rc == 0 && next != ls.n) rc = -2;
    gv_free(used);
    gv_buf_free(&file);
    gv_buf_free(&canon);
    for (size_t k = 0; k < swapped; k++) json_decref(ls.s[k].value);
    gv_free(ls.s);
    return rc == 0 ? 0 : -1;
}

/* A member rendered apart (on any thread): its text unindented (its newlines get the
 * placeholder's indentation when it is written: indent_text) and its canonical CRC. */
typedef struct rendered {
    const void *ref; /* gv_component_lazy_ref */
    gv_buf text;
    crc_len crc;
    int failed; /* out of memory */
} rendered;

static void render_member(rendered *r)
{
    text_sink ts = {gv_json_buf_sink, &r->text, 0, 0};
    r->crc = (crc_len){crc32(0L, Z_NULL, 0), 0};
    json_t *mj = gv_component_lazy_build_ref(r->ref);
    r->failed = !mj || write_member(&ts, mj, &r->crc) != 0;
    json_decref(mj);
}

static int indent_text(text_sink *t, size_t indent, const char *s, size_t n)
{
    t->indent = indent;
    return indent_callback(s, n, t);
}

grove_status gv_model_write_text(const grove_model *m, json_dump_callback_t sink, void *data,
                                 int *sink_failed)
{
    *sink_failed = 0;
    json_t *doc;
    write_maps maps;
    grove_status st = skeleton(m, &doc, &maps);
    if (st != GROVE_OK) return st;
    size_t n = gv_component_lazy_count();
    gv_buf canon = {0}, file = {0};
    crc_len *crcs = gv_calloc(n + 1, sizeof *crcs);
    unsigned char *seen = gv_calloc(n + 1, 1);
    int bad = !crcs || !seen ||
              json_dump_callback(doc, gv_json_buf_sink, &canon, DUMP_CANONICAL) != 0 ||
              gv_json_set_new(doc, CRC_MARK, json_stringn_nocheck("\0" CRC_MARK "\0",
                                                                  sizeof CRC_MARK + 1)) != 0 ||
              json_dump_callback(doc, gv_json_buf_sink, &file, GV_MODEL_DUMP_FILE) != 0;
    json_decref(doc);
    text_sink t = {sink, data, 0, 0};
    const char *p = file.data, *end = file.data + file.len;
    /* the members in the order of their placeholders, rendered in batches on the threads: one
     * member per thread, so saving holds at most one member's text per thread (the 1M-row
     * forest's trees are ~17 MB of text each; the peak-memory promise of bench/predict) */
    size_t n_order = 0, done = 0, batch_lo = 0, batch_hi = 0;
    const size_t batch = (size_t)gv_threads(0);
    rendered *ren = bad ? NULL : gv_calloc(batch ? batch : 1, sizeof *ren);
    size_t *order = bad ? NULL : gv_calloc(n + 1, sizeof *order);
    if (!ren || !order) bad = 1;
    for (const char *c = p; !bad;) {
        int ck;
        size_t cm = 0, cl = 0;
        const char *cq = next_placeholder(c, end, &ck, &cm, &cl);
        if (!ck) break;
        if (ck == 1) {
            if (n_order > n) break; /* more than n: reported below */
            order[n_order++] = cm;
        }
        c = cq + cl;
    }
    while (!bad && !t.failed && st == GROVE_OK) {
        int kind;
        size_t k = 0, len = 0;
        const char *q = next_placeholder(p, end, &kind, &k, &len);
        if (put_text(&t, p, (size_t)(q - p)) != 0 || !kind) break;
        if (kind == 1) {
            /* member k, indented as the line holding its placeholder */
            const char *line = q;
            while (line > file.data && line[-1] != '\n') line--;
            size_t indent = 0;
            while (line + indent < q && line[indent] == ' ') indent++;
            if (k >= n || seen[k] || done >= n_order || order[done] != k) {
                st = gv_err(GROVE_ERR_INTERNAL, "writing a model: member %zu placed twice", k);
                break;
            }
            seen[k] = 1;
            if (done >= batch_hi) { /* the next batch of members, each into its own buffer */
                batch_lo = done;
                batch_hi = done + batch < n_order ? done + batch : n_order;
                const long nb = (long)(batch_hi - batch_lo);
                for (long b = 0; b < nb; b++)
                    ren[b].ref = gv_component_lazy_ref(order[batch_lo + (size_t)b]);
#pragma omp parallel for schedule(dynamic, 1) if (nb > 1)
                for (long b = 0; b < nb; b++) render_member(&ren[b]);
            }
            rendered *r = &ren[done - batch_lo];
            done++;
            crcs[k] = r->crc;
            bad = r->failed || indent_text(&t, indent, r->text.data, r->text.len) != 0;
            gv_buf_free(&r->text);
        } else {
            /* "crc32": the checksum of the canonical text, every member spliced in */
            uLong crc = crc32(0L, Z_NULL, 0);
            const char *c = canon.data, *ce = canon.data + canon.len;
            for (;;) {
                int ck;
                size_t cm = 0, cl = 0;
                const char *cq = next_placeholder(c, ce, &ck, &cm, &cl);
                crc = gv_crc32(crc, c, (size_t)(cq - c));
                if (!ck) break;
                if (ck != 1 || cm >= n || !seen[cm]) {
                    st = gv_err(GROVE_ERR_INTERNAL, "writing a model: the checksum comes before "
                                "member %zu", cm);
                    break;
                }
                crc = crc32_combine(crc, crcs[cm].crc, (z_off_t)crcs[cm].len);
                c = cq + cl;
            }
            char hex[11];
            snprintf(hex, sizeof hex, "\"%08lx\"", (unsigned long)(crc & 0xFFFFFFFFul));
            if (st == GROVE_OK) put_text(&t, hex, 10);
        }
        p = q + len;
    }
    if (!bad && !t.failed && st == GROVE_OK) put_text(&t, "\n", 1);
    for (size_t b = 0; ren && b < batch; b++) gv_buf_free(&ren[b].text);
    gv_free(ren);
    gv_free(order);
    gv_buf_free(&canon);
    gv_buf_free(&file);
    gv_free(crcs);
    gv_free(seen);
    gv_component_lazy_end();
    write_maps_free(&maps);
    if (st != GROVE_OK) return st;
    if (t.failed) {
        *sink_failed = 1;
        return GROVE_ERR_IO;
    }
    return bad ? gv_err_nomem("the model's JSON") : GROVE_OK;
}

grove_status gv_model_write_bin(const grove_model *m, FILE *f, const char *path)
{
    int old = gv_packed_binary(1);
    json_t *doc;
    write_maps maps;
    grove_status st = skeleton(m, &doc, &maps);
    if (st != GROVE_OK) {
        gv_err_prefix("%s", path);
    } else {
        st = gv_model_bin_write(doc, f, path);
        json_decref(doc);
        gv_component_lazy_end();
        write_maps_free(&maps);
    }
    gv_packed_binary(old);
    return st;
}

grove_status gv_model_to_text(const grove_model *m, gv_buf *out)
{
    memset(out, 0, sizeof *out);
    int sink_failed;
    grove_status st = gv_model_write_text(m, gv_json_buf_sink, out, &sink_failed);
    if (st == GROVE_ERR_IO && sink_failed) st = gv_err_nomem("the model text");
    if (st != GROVE_OK) gv_buf_free(out);
    return st;
}

/* ---- reading ---- */

static grove_status parse_strings(const json_t *a, const char *field, gv_dict *dict)
{
    if (!json_is_array(a))
        return gv_err(GROVE_ERR_MODEL, "%s: %s", field,
                      a ? "expected an array of strings" : "missing");
    for (size_t i = 0; i < json_array_size(a); i++) {
        const json_t *v = json_array_get(a, i);
        if (!json_is_string(v))
            return gv_err(GROVE_ERR_MODEL, "%s[%zu]: expected a string, got %s", field, i,
                          gv_json_kind(v));
        long code = gv_dict_add(dict, json_string_value(v), json_string_length(v));
        if (code < 0) return gv_err_nomem("the schema");
        if ((size_t)code != i)
            return gv_err(GROVE_ERR_MODEL, "%s[%zu]: '%s' is also entry %ld", field, i,
                          json_string_value(v), code);
    }
    return GROVE_OK;
}

static grove_status parse_feature(const json_t *obj, grove_schema *s, size_t f)
{
    if (!json_is_object(obj))
        return gv_err(GROVE_ERR_MODEL, "expected an object, got %s", gv_json_kind(obj));
    grove_status st = gv_json_check_fields(obj, feature_fields, GV_COUNT(feature_fields), "a feature");
    const char *name, *type;
    if (st != GROVE_OK || (st = gv_json_get_string(obj, "name", &name)) != GROVE_OK ||
        (st = gv_json_get_string(obj, "type", &type)) != GROVE_OK)
        return st;
    char *copy = gv_strdup(name);
    if (!copy) return gv_err_nomem("the schema");
    gv_free(s->feature_names[f]);
    s->feature_names[f] = copy;
    const json_t *categories = json_object_get(obj, "categories");
    if (!strcmp(type, "numeric")) {
        if (categories)
            return gv_err(GROVE_ERR_MODEL, "categories: a numeric feature has no categories");
        return GROVE_OK;
    }
    if (strcmp(type, "categorical") != 0)
        return gv_err(GROVE_ERR_MODEL, "type: expected \"numeric\" or \"categorical\", got \"%s\"",
                      type);
    s->is_categorical[f] = 1;
    return parse_strings(categories, "categories", &s->categories[f]);
}

grove_status gv_schema_from_json(const json_t *obj, grove_schema **out)
{
    grove_status st = gv_json_check_fields(obj, schema_fields, GV_COUNT(schema_fields), "the schema");
    const char *task, *label;
    if (st != GROVE_OK || (st = gv_json_get_string(obj, "task", &task)) != GROVE_OK ||
        (st = gv_json_get_string(obj, "label", &label)) != GROVE_OK)
        return st;
    const json_t *features = json_object_get(obj, "features");
    if (!json_is_array(features) || json_array_size(features) == 0)
        return gv_err(GROVE_ERR_MODEL, "features: %s",
                      features ? "expected an array of at least one feature" : "missing");
    grove_task t;
    if (!strcmp(task, "classification"))
        t = GROVE_CLASSIFICATION;
    else if (!strcmp(task, "regression"))
        t = GROVE_REGRESSION;
    else
        return gv_err(GROVE_ERR_MODEL,
                      "task: expected \"classification\" or \"regression\", got \"%s\"", task);
    size_t n = json_array_size(features);
    grove_schema *s = gv_schema_new(n);
    if (!s) return gv_err_nomem("the schema");
    s->task = t;
    char *copy = gv_strdup(label);
    if (!copy) {
        st = gv_err_nomem("the schema");
        goto fail;
    }
    gv_free(s->label_name);
    s->label_name = copy;
    if ((st = parse_strings(json_object_get(obj, "classes"), "classes", &s->classes)) != GROVE_OK)
        goto fail;
    for (size_t f = 0; f < n; f++) {
        if ((st = parse_feature(json_array_get(features, f), s, f)) != GROVE_OK) {
            gv_err_prefix("features[%zu]", f);
            goto fail;
        }
    }
    if (json_object_get(obj, "feature_ids") || json_object_get(obj, "n_columns")) {
        /* compact features (format 1.3): increasing columns below n_columns */
        int64_t width, id, prev = -1;
        gv_packed r;
        if ((st = gv_json_get_int(obj, "n_columns", 1, (int64_t)GV_MAX_COLUMNS, &width)) != GROVE_OK ||
            (st = gv_packed_open(obj, "feature_ids", n, 1, &r)) != GROVE_OK)
            goto fail;
        if (!(s->feature_ids = gv_malloc_array(n, sizeof *s->feature_ids))) {
            st = gv_err_nomem("the schema");
            goto fail;
        }
        s->n_columns = (size_t)width;
        for (size_t f = 0; f < n; f++) {
            if ((st = gv_packed_int(&r, prev + 1, width - 1, &id)) != GROVE_OK) {
                gv_err_prefix("feature_ids: expected increasing columns below n_columns = %lld",
                              (long long)width);
                goto fail;
            }
            s->feature_ids[f] = (uint32_t)id;
            prev = id;
        }
    }
    *out = s;
    return GROVE_OK;
fail:
    gv_schema_free(s);
    return st;
}

/* Fills mappers[0..n_features-1] (allocated, zeroed, owned by the model being built). */
static grove_status parse_bins(const json_t *a, const grove_schema *s, gv_bin_mapper *mappers)
{
    if (json_array_size(a) != s->n_features)
        return gv_err(GROVE_ERR_MODEL, "bins: expected %zu entries (one per feature), got %zu",
                      s->n_features, json_array_size(a));
    for (size_t f = 0; f < s->n_features; f++) {
        const json_t *obj = json_array_get(a, f);
        gv_bin_mapper *b = &mappers[f];
        grove_status st;
        int64_t n_bins;
        if (!json_is_object(obj))
            return gv_err(GROVE_ERR_MODEL, "bins[%zu]: expected an object, got %s", f,
                          gv_json_kind(obj));
        if ((st = gv_json_check_fields(obj, bin_fields, GV_COUNT(bin_fields), "a bin mapper")) != GROVE_OK ||
            (st = gv_json_get_int(obj, "n_bins", 0, GV_MODEL_MAX_BINS, &n_bins)) != GROVE_OK) {
            gv_err_prefix("bins[%zu]", f);
            return st;
        }
        b->n_bins = (uint32_t)n_bins;
        b->is_categorical = s->is_categorical[f];
        if (n_bins == 0) { /* format 1.2: a numeric feature whose bins are not stored */
            if (b->is_categorical || json_object_get(obj, "cuts"))
                return gv_err(GROVE_ERR_MODEL, "bins[%zu]: n_bins 0 (not stored) is for a "
                              "numeric feature, without cuts", f);
            continue;
        }
        if (b->is_categorical) {
            if (json_object_get(obj, "cuts"))
                return gv_err(GROVE_ERR_MODEL, "bins[%zu]: a categorical feature has no cuts", f);
            continue;
        }
        const json_t *cuts;
        if ((st = gv_json_get_array(obj, "cuts", (size_t)-1, &cuts)) != GROVE_OK) {
            gv_err_prefix("bins[%zu]", f);
            return st;
        }
        size_t n_cuts = json_array_size(cuts);
        if (n_cuts > GV_MODEL_MAX_BINS - 2)
            return gv_err(GROVE_ERR_MODEL, "bins[%zu]: %zu cut points, more than %d", f, n_cuts,
                          GV_MODEL_MAX_BINS - 2);
        b->cuts = gv_malloc_array(n_cuts, sizeof *b->cuts);
        if (!b->cuts) return gv_err_nomem("the bin mappers");
        b->n_cuts = (uint32_t)n_cuts;
        for (size_t c = 0; c < n_cuts; c++) {
            double x = json_number_value(json_array_get(cuts, c));
            /* range first: converting an out-of-range double to float is undefined */
            if (!(fabs(x) <= FLT_MAX) || (double)(float)x != x)
                return gv_err(GROVE_ERR_MODEL, "bins[%zu]: cuts[%zu]: %.17g is not a float value",
                              f, c, x);
            b->cuts[c] = (float)x;
        }
    }
    return GROVE_OK;
}

static grove_status parse_params(const json_t *obj, grove_params **out)
{
    grove_params *p = NULL;
    grove_status st = grove_params_create(&p);
    if (st != GROVE_OK) return st;
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)obj, key, value) {
        if (!json_is_string(value)) {
            st = gv_err(GROVE_ERR_MODEL, "%s: expected a string, got %s", key, gv_json_kind(value));
            break;
        }
        for (int i = 0; i < GV_P_COUNT; i++)
            if (!is_stored_param((gv_param_id)i) && !strcmp(key, gv_param_name((gv_param_id)i)))
                st = gv_err(GROVE_ERR_MODEL, "%s: an execution setting, not stored in models",
                            key);
        if (st != GROVE_OK) break;
        st = grove_params_set(p, key, json_string_value(value));
        if (st != GROVE_OK) {
            if (st == GROVE_ERR_PARAM) st = GROVE_ERR_MODEL;
            break;
        }
    }
    if (st != GROVE_OK) {
        grove_params_free(p);
        return st;
    }
    *out = p;
    return GROVE_OK;
}

/* "format" and "version": is this a grove model that this build can read? */
static grove_status check_format(const json_t *doc, long long *minor_out)
{
    if (!json_is_object(doc))
        return gv_err(GROVE_ERR_MODEL, "not a grove model file (the JSON value is %s, not an "
                      "object)", gv_json_kind(doc));
    const json_t *format = json_object_get(doc, "format");
    if (!json_is_string(format) || strcmp(json_string_value(format), GV_MODEL_FORMAT_NAME) != 0)
        return gv_err(GROVE_ERR_MODEL, "not a grove model file (no \"format\": \"%s\")",
                      GV_MODEL_FORMAT_NAME);
    const json_t *version = json_object_get(doc, "version");
    const json_t *major = json_array_get(version, 0), *minor = json_array_get(version, 1);
    if (json_array_size(version) != 2 || !json_is_integer(major) || !json_is_integer(minor) ||
        json_integer_value(major) < 0 || json_integer_value(minor) < 0)
        return gv_err(GROVE_ERR_MODEL, "version: expected [major, minor]");
    long long ma = json_integer_value(major), mi = json_integer_value(minor);
    if (ma > GV_MODEL_FORMAT_MAJOR)
        return gv_err(GROVE_ERR_MODEL, "written by a newer grove (format %lld.%lld); this build "
                      "reads format %d.x", ma, mi, GV_MODEL_FORMAT_MAJOR);
    if (ma < GV_MODEL_FORMAT_MAJOR)
        return gv_err(GROVE_ERR_MODEL, "format %lld.%lld is not supported; this build reads "
                      "format %d.x", ma, mi, GV_MODEL_FORMAT_MAJOR);
    /* A newer minor version adds only optional fields: it is read when every field in it is
     * known here (check_fields below refuses the others by name).  The minor version also says
     * how the tree's arrays are spelled (JSON arrays in 1.0, packed arrays from 1.1 on). */
    *minor_out = mi;
    return GROVE_OK;
}

static grove_status check_checksum(json_t *doc)
{
    const json_t *v = json_object_get(doc, "crc32");
    if (!v) return gv_err(GROVE_ERR_MODEL, "crc32: missing");
    const char *stored = json_string_value(v);
    if (!stored || strlen(stored) != 8 || strspn(stored, "0123456789abcdef") != 8)
        return gv_err(GROVE_ERR_MODEL, "crc32: expected 8 lowercase hexadecimal digits");
    char want[9], got[9];
    memcpy(want, stored, 9);
    json_object_del(doc, "crc32");
    grove_status st = gv_model_doc_checksum(doc, got);
    if (st != GROVE_OK) return st;
    if (strcmp(want, got) != 0)
        return gv_err(GROVE_ERR_MODEL, "checksum mismatch: the file was modified or corrupted "
                      "(crc32 %s stored, %s computed)", want, got);
    return GROVE_OK;
}

/* Builds a model from a parsed document (modified: "crc32" is removed).  Messages have no
 * file prefix. */
static grove_status model_from_doc(json_t *doc, int binary, grove_model **out)
{
    grove_status st;
    long long minor = 0;
    if (binary && json_object_get(doc, "crc32"))
        return gv_err(GROVE_ERR_MODEL, "crc32: not part of a binary model (its checksum is the file's)");
    if ((st = check_format(doc, &minor)) != GROVE_OK ||
        (!binary && (st = check_checksum(doc)) != GROVE_OK) ||
        (st = gv_json_check_fields(doc, top_fields, GV_COUNT(top_fields), "the model file")) != GROVE_OK)
        return st;
    const char *grove_version, *algo, *kind;
    int64_t n_outputs, n_train_rows;
    const json_t *params, *schema, *model;
    const json_t *bins = json_object_get(doc, "bins");
    if ((st = gv_json_get_string(doc, "grove_version", &grove_version)) != GROVE_OK ||
        (st = gv_json_get_string(doc, "algo", &algo)) != GROVE_OK ||
        (st = gv_json_get_int(doc, "n_outputs", 1, GV_MAX_CLASSES, &n_outputs)) != GROVE_OK ||
        (st = gv_json_get_int(doc, "n_train_rows", 0, INT64_MAX, &n_train_rows)) != GROVE_OK ||
        (st = gv_json_get_object(doc, "params", &params)) != GROVE_OK ||
        (st = gv_json_get_object(doc, "schema", &schema)) != GROVE_OK ||
        (st = gv_json_get_object(doc, "model", &model)) != GROVE_OK)
        return st;
    if (!json_is_array(bins))
        return gv_err(GROVE_ERR_MODEL, "bins: %s", bins ? "expected an array" : "missing");
    if ((st = gv_json_get_string(model, "kind", &kind)) != GROVE_OK) {
        gv_err_prefix("model");
        return st;
    }
    const gv_component_vt *vt = gv_component_kind(kind);
    if (!vt) return gv_err(GROVE_ERR_MODEL, "model: kind: unknown component kind '%s'", kind);

    grove_model *m = gv_calloc(1, sizeof *m);
    if (!m) return gv_err_nomem("a model");
    m->n_outputs = (size_t)n_outputs;
    m->n_train_rows = (size_t)n_train_rows;
    if (!(m->algo = gv_strdup(algo))) {
        st = gv_err_nomem("a model");
        goto fail;
    }
    if ((st = parse_params(params, &m->params)) != GROVE_OK) {
        gv_err_prefix("params");
        goto fail;
    }
    if ((st = gv_schema_from_json(schema, &m->schema)) != GROVE_OK) {
        gv_err_prefix("schema");
        goto fail;
    }
    /* The schema is in place, so gv_model_free can free the mappers from here on. */
    if (!(m->mappers = gv_calloc(m->schema->n_features, sizeof *m->mappers))) {
        st = gv_err_nomem("the bin mappers");
        goto fail;
    }
    if ((st = parse_bins(bins, m->schema, m->mappers)) != GROVE_OK ||
        (st = gv_model_check_head(m)) != GROVE_OK)
        goto fail;
    void *impl = NULL;
    /* the components read the file's form of their fields (a newer minor as the newest known) */
    gv_model_ctx ctx = gv_model_ctx_of(m, minor < GV_MODEL_FORMAT_MINOR ? (int)minor : GV_MODEL_FORMAT_MINOR, NULL);
    st = vt->from_json(model, &ctx, &impl);
    if (st != GROVE_OK) {
        gv_err_prefix("model");
        goto fail;
    }
    m->root.vt = vt;
    m->root.impl = impl;
    if ((st = gv_model_check_root(m, 0, NULL)) != GROVE_OK) goto fail;
    *out = m;
    return GROVE_OK;
fail:
    gv_model_free(m);
    return st;
}

/* Duplicate keys would let two readers see different models in one file. */
#define GV_MODEL_LOAD_FLAGS JSON_REJECT_DUPLICATES

/* The model of a parsed document (doc: what jansson returned for `len` bytes of text, NULL on a
 * parse error described by jerr, which is NULL when nothing was parsed; taken over). */
grove_status gv_model_from_parsed(json_t *doc, const json_error_t *jerr, size_t len,
                                      const char *source, grove_model **out)
{
    if (!doc && jerr && gv_json_load_nomem(jerr))
        return gv_err(GROVE_ERR_NOMEM, "%s: out of memory while parsing", source);
    if (len == 0) {
        json_decref(doc);
        return gv_err(GROVE_ERR_MODEL, "%s: empty file, not a grove model", source);
    }
    if (!doc) {
        return gv_err(GROVE_ERR_MODEL, "%s:%d:%d: %s", source, jerr->line, jerr->column,
                      jerr->text);
    }
    grove_status st = model_from_doc(doc, 0, out);
    json_decref(doc);
    if (st != GROVE_OK) gv_err_prefix("%s", source);
    return st;
}

grove_status gv_model_from_text(const char *text, size_t len, const char *source,
                                grove_model **out)
{
    *out = NULL;
    json_error_t jerr;
    json_t *doc = len ? json_loadb(text, len, GV_MODEL_LOAD_FLAGS, &jerr) : NULL;
    return gv_model_from_parsed(doc, len ? &jerr : NULL, len, source, out);
}

grove_status gv_model_from_bin_doc(json_t *doc, const char *source, grove_model **out)
{
    *out = NULL;
    int old = gv_packed_binary(1);
    grove_status st = model_from_doc(doc, 1, out);
    gv_packed_binary(old);
    if (st != GROVE_OK) gv_err_prefix("%s", source);
    return st;
}
