/*
 * params.c -- parsing and validation of parameters, driven entirely by params_def.h.
 *
 * A grove_params holds, per table entry, the value as text (always), its parsed number, and
 * whether the user set it.  Setting validates first and changes nothing on failure, with a
 * message naming the parameter and its allowed values or range.
 */
#include "params.h"

#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

typedef enum { K_INT, K_FLOAT, K_STRING, K_ENUM, K_BOOL } kind_t;
#define KIND_INT K_INT
#define KIND_FLOAT K_FLOAT
#define KIND_STRING K_STRING
#define KIND_ENUM K_ENUM
#define KIND_BOOL K_BOOL

typedef struct param_def {
    const char *name;
    kind_t kind;
    const char *def;
    double lo, hi;
    const char *allowed;
    const char *help;
    const char *applies; /* '|'-separated algorithms, "*", "data" or "cascade" */
} param_def;

static const param_def defs[GV_P_COUNT] = {
#define GV_PARAM_DEF_(id, name, kind, def, lo, hi, allowed, help, applies)                        \
    {name, KIND_##kind, def, (double)(lo), (double)(hi), allowed, help, applies},
    GV_PARAM_TABLE(GV_PARAM_DEF_)
#undef GV_PARAM_DEF_
};

static const char *kind_names[] = {"int", "float", "string", "enum", "bool"};

struct grove_params {
    char *text[GV_P_COUNT];
    int64_t ival[GV_P_COUNT];
    double dval[GV_P_COUNT];
    unsigned char is_set[GV_P_COUNT];
    grove_progress_fn progress;
    void *progress_ctx;
    grove_round_fn round_fn;
    void *round_ctx;
    grove_note_fn note_fn;
    void *note_ctx;
    grove_params *base; /* "base.KEY" parameters of an ensemble's base learner; NULL = defaults */
    struct tracker *track; /* NULL unless grove_params_track: shared with every copy */
};

/* Which parameters were read since grove_params_track.  Copies made during training (stacking's
 * base parameters, bias-variance replicates, the model's own copy) share their original's
 * tracker, so a read through any of them counts; training threads mark reads concurrently,
 * hence the atomics.  `was_set` is the set of parameters the user had set when tracking began
 * (what the caller sets afterwards, e.g. the CLI's train_metric for --log, is not the user's). */
typedef struct tracker {
    atomic_int refs;
    atomic_uchar read[GV_P_COUNT];
    unsigned char was_set[GV_P_COUNT];
} tracker;

static grove_status track_levels(grove_params *p, int depth);

static void tracker_release(tracker *t)
{
    if (t && atomic_fetch_sub(&t->refs, 1) == 1) gv_free(t);
}

static void mark_read(const grove_params *p, int id)
{
    if (p && p->track) atomic_store_explicit(&p->track->read[id], 1, memory_order_relaxed);
}

#define BASE_PREFIX "base."
#define BASE_PREFIX_LEN 5

/* The index of `value` in a '|'-separated list, or -1. */
static int enum_index(const char *list, const char *value)
{
    size_t vlen = strlen(value);
    int i = 0;
    for (const char *s = list;; i++) {
        const char *bar = strchr(s, '|');
        size_t len = bar ? (size_t)(bar - s) : strlen(s);
        if (len == vlen && memcmp(s, value, len) == 0) return i;
        if (!bar) return -1;
        s = bar + 1;
    }
}

static grove_status check_max_features(const char *name, const char *v, double *num)
{
    if (!strcmp(v, "all") || !strcmp(v, "sqrt") || !strcmp(v, "log2")) {
        *num = 0;
        return GROVE_OK;
    }
    double d;
    int64_t i;
    if (gv_parse_int64(v, strlen(v), &i) == 0) {
        if (i >= 1) {
            *num = (double)i;
            return GROVE_OK;
        }
    } else if (gv_parse_double(v, strlen(v), &d) == 0 && d > 0 && d <= 1) {
        *num = d;
        return GROVE_OK;
    }
    return gv_err(GROVE_ERR_PARAM,
                  "%s: must be all, sqrt, log2, a fraction in (0, 1] or an integer >= 1, got '%s'",
                  name, v);
}

/* "[lo, hi]" of an INT parameter, exact up to INT64_MAX (the double 2^63 a table bound of
 * 9223372036854775807 rounds to is one past the largest value the parser accepts). */
static void int_range(const param_def *d, char *buf, size_t size)
{
    if (d->hi >= 9223372036854775807.0)
        snprintf(buf, size, "[%.0f, %" PRId64 "]", d->lo, INT64_MAX);
    else
        snprintf(buf, size, "[%.0f, %.0f]", d->lo, d->hi);
}

/* Validates `value` for parameter `id`; on success fills iv and dv. */
static grove_status parse_value(int id, const char *value, int64_t *iv, double *dv)
{
    const param_def *d = &defs[id];
    size_t len = strlen(value);
    *iv = 0;
    *dv = 0;
    switch (d->kind) {
    case K_INT: {
        int64_t v;
        if (gv_parse_int64(value, len, &v) != 0 || (double)v < d->lo || (double)v > d->hi) {
            char range[64];
            int_range(d, range, sizeof range);
            return gv_err(GROVE_ERR_PARAM, "%s: must be an integer in %s, got '%s'", d->name,
                          range, value);
        }
        *iv = v;
        *dv = (double)v;
        return GROVE_OK;
    }
    case K_FLOAT: {
        double v;
        if (gv_parse_double(value, len, &v) != 0 || isnan(v) || v < d->lo || v > d->hi)
            return gv_err(GROVE_ERR_PARAM, "%s: must be a number in [%g, %g], got '%s'", d->name,
                          d->lo, d->hi, value);
        *dv = v;
        return GROVE_OK;
    }
    case K_ENUM: {
        const char *at = id == GV_P_EVAL_METRIC ? strchr(value, '@') : NULL;
        if (at) { /* ndcg@K, map@K: the metric, and K as the value's number */
            char name[8];
            int64_t k = 0;
            size_t nlen = (size_t)(at - value), i = 1;
            int ok = nlen < sizeof name && at[1] != '\0';
            for (; ok && at[i]; i++) {
                ok = at[i] >= '0' && at[i] <= '9' && k < 1073741824;
                k = k * 10 + (at[i] - '0');
            }
            if (ok) {
                memcpy(name, value, nlen);
                name[nlen] = '\0';
                ok = k >= 1 && k <= 1073741824 && (!strcmp(name, "ndcg") || !strcmp(name, "map"));
            }
            if (!ok)
                return gv_err(GROVE_ERR_PARAM, "%s: must be one of %s (ndcg and map also as "
                              "ndcg@K, map@K, K >= 1), got '%s'", d->name, d->allowed, value);
            *iv = enum_index(d->allowed, name);
            *dv = (double)k;
            return GROVE_OK;
        }
        int i = enum_index(d->allowed, value);
        if (i < 0)
            return gv_err(GROVE_ERR_PARAM, "%s: must be one of %s, got '%s'", d->name,
                          d->allowed, value);
        *iv = i;
        return GROVE_OK;
    }
    case K_BOOL: {
        if (!strcmp(value, "1") || !strcmp(value, "true") || !strcmp(value, "yes"))
            *iv = 1;
        else if (!strcmp(value, "0") || !strcmp(value, "false") || !strcmp(value, "no"))
            *iv = 0;
        else
            return gv_err(GROVE_ERR_PARAM, "%s: must be true or false, got '%s'", d->name,
                          value);
        return GROVE_OK;
    }
    case K_STRING:
        if (id == GV_P_MAX_FEATURES) return check_max_features(d->name, value, dv);
        if (id == GV_P_SEP && strcmp(value, "auto") && strcmp(value, "tab") &&
            (strlen(value) != 1 || strchr("\"\r\n", value[0])))
            return gv_err(GROVE_ERR_PARAM,
                          "%s: must be auto, tab or one character other than a quote or a line "
                          "end, got '%s'", d->name, value);
        if (id == GV_P_DECIMAL && strcmp(value, ".") && strcmp(value, ","))
            return gv_err(GROVE_ERR_PARAM, "%s: must be . or , (the decimal mark), got '%s'",
                          d->name, value);
        return GROVE_OK;
    }
    return gv_err(GROVE_ERR_INTERNAL, "%s: unknown parameter kind", d->name);
}

static int find_param(const char *key)
{
    for (int i = 0; i < GV_P_COUNT; i++)
        if (!strcmp(defs[i].name, key)) return i;
    return -1;
}

void grove_params_free(grove_params *p)
{
    if (!p) return;
    grove_params_free(p->base);
    tracker_release(p->track);
    for (int i = 0; i < GV_P_COUNT; i++) gv_free(p->text[i]);
    gv_free(p);
}

grove_status grove_params_create(grove_params **out)
{
    gv_err_clear();
    if (!out) return gv_err(GROVE_ERR_ARG, "grove_params_create: out is NULL");
    *out = NULL;
    grove_params *p = gv_calloc(1, sizeof *p);
    if (!p) return gv_err_nomem("parameters");
    for (int i = 0; i < GV_P_COUNT; i++) {
        p->text[i] = gv_strdup(defs[i].def);
        if (!p->text[i]) {
            grove_params_free(p);
            return gv_err_nomem("parameters");
        }
        if (parse_value(i, defs[i].def, &p->ival[i], &p->dval[i]) != GROVE_OK) {
            grove_params_free(p);
            return GROVE_ERR_INTERNAL;
        }
    }
    *out = p;
    return GROVE_OK;
}

grove_status grove_params_copy(const grove_params *src, grove_params **out)
{
    gv_err_clear();
    if (!src || !out) return gv_err(GROVE_ERR_ARG, "grove_params_copy: NULL argument");
    *out = NULL;
    grove_params *p = gv_calloc(1, sizeof *p);
    if (!p) return gv_err_nomem("parameters");
    *p = *src;
    p->base = NULL;
    if (p->track) atomic_fetch_add(&p->track->refs, 1);
    for (int i = 0; i < GV_P_COUNT; i++) p->text[i] = NULL;
    if (src->base && grove_params_copy(src->base, &p->base) != GROVE_OK) {
        grove_params_free(p);
        return gv_err_nomem("parameters");
    }
    for (int i = 0; i < GV_P_COUNT; i++) {
        p->text[i] = gv_strdup(src->text[i]);
        if (!p->text[i]) {
            grove_params_free(p);
            return gv_err_nomem("parameters");
        }
    }
    *out = p;
    return GROVE_OK;
}

/* A key's shown form in messages: its first 40 bytes, then "...". */
static void key_excerpt(const char *key, char *buf, size_t size)
{
    size_t n = strnlen(key, 40);
    snprintf(buf, size, "%.*s%s", (int)n, key, key[n] ? "..." : "");
}

/* The error for an unknown key whose name starts after its `base.` prefixes (prefix bytes):
 * the nearest name of the table, under the same prefixes, as a suggestion. */
static grove_status unknown_param(const char *key, size_t prefix)
{
    const char *names[GV_P_COUNT];
    for (int i = 0; i < GV_P_COUNT; i++) names[i] = defs[i].name;
    const char *near = gv_suggest(key + prefix, strlen(key + prefix), names, GV_P_COUNT);
    if (near)
        return gv_err(GROVE_ERR_PARAM, "unknown parameter '%s' (did you mean %.*s%s?)", key,
                      (int)prefix, key, near);
    return gv_err(GROVE_ERR_PARAM, "unknown parameter '%s' (see `grove help params`)", key);
}

grove_status grove_params_set(grove_params *p, const char *key, const char *value)
{
    gv_err_clear();
    if (!p || !key || !value) return gv_err(GROVE_ERR_ARG, "grove_params_set: NULL argument");
    /* bounded before anything else, without recursion: a key from a model file may be hostile */
    size_t key_len = strnlen(key, GROVE_PARAM_KEY_MAX + 1);
    char shown[48];
    if (key_len > GROVE_PARAM_KEY_MAX) {
        key_excerpt(key, shown, sizeof shown);
        return gv_err(GROVE_ERR_PARAM, "parameter '%s': longer than %d bytes", shown,
                      GROVE_PARAM_KEY_MAX);
    }
    int levels = 0;
    const char *name = key;
    while (!strncmp(name, BASE_PREFIX, BASE_PREFIX_LEN)) {
        name += BASE_PREFIX_LEN;
        levels++;
    }
    if (levels > GROVE_PARAM_MAX_NESTING) {
        key_excerpt(key, shown, sizeof shown);
        return gv_err(GROVE_ERR_PARAM, "parameter '%s': %d levels of 'base.', at most %d",
                      shown, levels, GROVE_PARAM_MAX_NESTING);
    }
    if (levels > 0) {
        /* the base learners' own parameters, validated by the same table before any level is
         * created, so that a refused key leaves the parameters unchanged */
        int id = find_param(name);
        if (id < 0) return unknown_param(key, (size_t)(name - key));
        int64_t iv;
        double dv;
        grove_status st = parse_value(id, value, &iv, &dv);
        if (st != GROVE_OK) {
            for (int l = 0; l < levels; l++) gv_err_prefix("base");
            return st;
        }
        grove_params *level = p;
        for (int l = 0; l < levels; l++) {
            if (!level->base) {
                st = grove_params_create(&level->base);
                if (st == GROVE_OK && level->track) st = track_levels(level->base, 1);
                if (st != GROVE_OK) return st;
            }
            level = level->base;
        }
        p = level;
        key = name;
    }
    int id = find_param(key);
    if (id < 0) return unknown_param(key, 0);
    int64_t iv;
    double dv;
    grove_status st = parse_value(id, value, &iv, &dv);
    if (st != GROVE_OK) return st;
    char *copy = gv_strdup(value);
    if (!copy) return gv_err_nomem("a parameter value");
    gv_free(p->text[id]);
    p->text[id] = copy;
    p->ival[id] = iv;
    p->dval[id] = dv;
    p->is_set[id] = 1;
    return GROVE_OK;
}

grove_status grove_params_set_pair(grove_params *p, const char *kv)
{
    gv_err_clear();
    if (!p || !kv) return gv_err(GROVE_ERR_ARG, "grove_params_set_pair: NULL argument");
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv)
        return gv_err(GROVE_ERR_PARAM, "expected KEY=VALUE, got '%s'", kv);
    char key[128];
    size_t klen = (size_t)(eq - kv);
    if (klen >= sizeof key) return gv_err(GROVE_ERR_PARAM, "parameter name too long: '%s'", kv);
    memcpy(key, kv, klen);
    key[klen] = '\0';
    return grove_params_set(p, key, eq + 1);
}

grove_status grove_params_get(const grove_params *p, const char *key, char *buf, size_t size)
{
    gv_err_clear();
    if (!p || !key || !buf) return gv_err(GROVE_ERR_ARG, "grove_params_get: NULL argument");
    if (!strncmp(key, BASE_PREFIX, BASE_PREFIX_LEN)) {
        if (p->base) return grove_params_get(p->base, key + BASE_PREFIX_LEN, buf, size);
        if (find_param(key + BASE_PREFIX_LEN) < 0)
            return gv_err(GROVE_ERR_PARAM, "unknown parameter '%s'", key);
        const char *d = defs[find_param(key + BASE_PREFIX_LEN)].def;
        if (strlen(d) + 1 > size) return gv_err(GROVE_ERR_ARG, "grove_params_get: buffer too small");
        memcpy(buf, d, strlen(d) + 1);
        return GROVE_OK;
    }
    int id = find_param(key);
    if (id < 0) return gv_err(GROVE_ERR_PARAM, "unknown parameter '%s'", key);
    mark_read(p, id);
    size_t n = strlen(p->text[id]);
    if (n + 1 > size) return gv_err(GROVE_ERR_ARG, "grove_params_get: buffer too small");
    memcpy(buf, p->text[id], n + 1);
    return GROVE_OK;
}

size_t grove_params_count(void) { return GV_P_COUNT; }

/* The defaults as the algorithms apply them, where they differ by algorithm (the table's value
 * is what an unset parameter reads as; these say what the learner then does with it). */
static const struct {
    gv_param_id id;
    const char *shown;
} shown_defaults[] = {
    {GV_P_MAX_DEPTH, "0 (no limit; gbdt: 6 unless max_leaves is set; stump: 1)"},
    {GV_P_BASE_SCORE,
     "label mean when unset (log-odds, class log-priors; absolute, huber: median)"},
    {GV_P_MAX_FEATURES, "all (forest, extra-trees: sqrt; regression: forest 1/3, extra-trees all)"},
    {GV_P_BASE, "stump (bagging: tree)"},
    {GV_P_BAGGING_REPLACE, "true (extra-trees: false)"},
    {GV_P_GROWTH, "depthwise (gbdt with max_leaves: bestfirst)"},
};

grove_status grove_params_describe(size_t i, const char **name, const char **kind,
                                   const char **def, const char **allowed, const char **help)
{
    gv_err_clear();
    if (i >= GV_P_COUNT)
        return gv_err(GROVE_ERR_ARG, "grove_params_describe: index %zu out of range", i);
    static _Thread_local char range[GV_P_COUNT][64];
    const param_def *d = &defs[i];
    if (name) *name = d->name;
    if (kind) *kind = kind_names[d->kind];
    if (def) {
        *def = d->def;
        for (size_t k = 0; k < sizeof shown_defaults / sizeof shown_defaults[0]; k++)
            if ((size_t)shown_defaults[k].id == i) *def = shown_defaults[k].shown;
    }
    if (help) *help = d->help;
    if (allowed) {
        if (d->kind == K_INT) {
            int_range(d, range[i], sizeof range[i]);
            *allowed = range[i];
        } else if (d->kind == K_FLOAT) {
            snprintf(range[i], sizeof range[i], "[%g, %g]", d->lo, d->hi);
            *allowed = range[i];
        } else {
            *allowed = d->allowed;
        }
    }
    return GROVE_OK;
}

const char *grove_params_applies_to(size_t index)
{
    return index < GV_P_COUNT ? defs[index].applies : NULL;
}

int grove_params_applies(const char *key, const char *algo)
{
    if (!key || !algo) return 0;
    if (!strncmp(key, BASE_PREFIX, BASE_PREFIX_LEN)) return 1; /* the base learner's, as set */
    for (int i = 0; i < GV_P_COUNT; i++) {
        if (strcmp(defs[i].name, key) != 0) continue;
        const char *a = defs[i].applies;
        return !strcmp(a, GV_AP_ALL) || !strcmp(a, GV_AP_DATA) || enum_index(a, algo) >= 0;
    }
    return 0;
}

grove_status grove_params_set_progress(grove_params *p, grove_progress_fn fn, void *ctx)
{
    gv_err_clear();
    if (!p) return gv_err(GROVE_ERR_ARG, "grove_params_set_progress: params is NULL");
    p->progress = fn;
    p->progress_ctx = ctx;
    return GROVE_OK;
}

/* ---- internal getters ---- */

static int64_t default_ival(gv_param_id id)
{
    int64_t iv;
    double dv;
    parse_value(id, defs[id].def, &iv, &dv);
    return iv;
}

size_t gv_param_eval_at(const grove_params *p)
{
    const double k = gv_param_double(p, GV_P_EVAL_METRIC);
    return k >= 1 ? (size_t)k : (size_t)gv_param_int(p, GV_P_EVAL_AT);
}

int gv_param_task(const grove_params *p)
{
    const int task = (int)gv_param_int(p, GV_P_TASK);
    const int obj = (int)gv_param_int(p, GV_P_OBJECTIVE);
    const char *allowed = defs[GV_P_OBJECTIVE].allowed;
    if (task == GV_TASK_AUTO &&
        (obj == enum_index(allowed, "lambdarank") || obj == enum_index(allowed, "rank:pairwise")))
        return GV_TASK_REGRESSION;
    return task;
}

int64_t gv_param_int(const grove_params *p, gv_param_id id)
{
    mark_read(p, id);
    return p ? p->ival[id] : default_ival(id);
}

double gv_param_double(const grove_params *p, gv_param_id id)
{
    mark_read(p, id);
    if (p) return p->dval[id];
    int64_t iv;
    double dv;
    parse_value(id, defs[id].def, &iv, &dv);
    return dv;
}

const char *gv_param_str(const grove_params *p, gv_param_id id)
{
    mark_read(p, id);
    return p ? p->text[id] : defs[id].def;
}

int gv_param_is_set(const grove_params *p, gv_param_id id) { return p ? p->is_set[id] : 0; }

const char *gv_param_name(gv_param_id id) { return defs[id].name; }

size_t gv_param_max_features(const grove_params *p, size_t n_features)
{
    const char *v = gv_param_str(p, GV_P_MAX_FEATURES);
    double k;
    if (!strcmp(v, "all")) return n_features;
    if (!strcmp(v, "sqrt"))
        k = floor(sqrt((double)n_features));
    else if (!strcmp(v, "log2"))
        k = floor(log2((double)n_features));
    else if (strchr(v, '.') || strchr(v, 'e') || strchr(v, 'E'))
        k = floor(gv_param_double(p, GV_P_MAX_FEATURES) * (double)n_features);
    else
        k = gv_param_double(p, GV_P_MAX_FEATURES);
    if (k < 1) k = 1;
    if (k > (double)n_features) k = (double)n_features;
    return (size_t)k;
}

int gv_progress(const grove_params *p, const char *stage, size_t done, size_t total)
{
    if (!p || !p->progress) return 0;
    return p->progress(p->progress_ctx, stage, done, total);
}

grove_status grove_params_set_round_callback(grove_params *p, grove_round_fn fn, void *ctx)
{
    gv_err_clear();
    if (!p) return gv_err(GROVE_ERR_ARG, "grove_params_set_round_callback: params is NULL");
    p->round_fn = fn;
    p->round_ctx = ctx;
    return GROVE_OK;
}

int gv_progress_round(const grove_params *p, size_t round, size_t total, const char *metric,
                      double train, double valid)
{
    if (!p || !p->round_fn) return 0;
    return p->round_fn(p->round_ctx, round, total, metric, train, valid);
}

grove_status grove_params_set_note_callback(grove_params *p, grove_note_fn fn, void *ctx)
{
    gv_err_clear();
    if (!p) return gv_err(GROVE_ERR_ARG, "grove_params_set_note_callback: params is NULL");
    p->note_fn = fn;
    p->note_ctx = ctx;
    return GROVE_OK;
}

void gv_note(const grove_params *p, const char *topic, const char *text)
{
    if (p && p->note_fn) p->note_fn(p->note_ctx, topic, text);
}

const grove_params *gv_params_base(const grove_params *p) { return p ? p->base : NULL; }

int gv_params_foreach_base(const grove_params *p, const char *prefix,
                           int (*fn)(void *ctx, const char *key, const char *value), void *ctx)
{
    /* keys are at most GROVE_PARAM_KEY_MAX bytes and levels at most GROVE_PARAM_MAX_NESTING
     * (grove_params_set refuses others), so a level's prefix always fits */
    char key[GROVE_PARAM_KEY_MAX + 1 + 64];
    int n = snprintf(key, sizeof key, "%s", prefix);
    if (n < 0 || (size_t)n >= sizeof key) return -1;
    size_t len = (size_t)n;
    for (const grove_params *level = p ? p->base : NULL; level; level = level->base) {
        if (len + BASE_PREFIX_LEN >= sizeof key) return -1;
        memcpy(key + len, BASE_PREFIX, BASE_PREFIX_LEN + 1);
        len += BASE_PREFIX_LEN;
        for (int i = 0; i < GV_P_COUNT; i++) {
            /* threads is an execution setting, never part of a model */
            if (!level->is_set[i] || i == GV_P_THREADS) continue;
            if (len + strlen(defs[i].name) >= sizeof key) return -1;
            memcpy(key + len, defs[i].name, strlen(defs[i].name) + 1);
            int r = fn(ctx, key, level->text[i]);
            if (r) return r;
        }
        key[len] = '\0';
    }
    return 0;
}

/* ---- which parameters were used ---- */

/* Tracks p and its base parameters; creates empty base parameters `depth` levels down. */
static grove_status track_levels(grove_params *p, int depth)
{
    if (!p->track) {
        tracker *t = gv_calloc(1, sizeof *t);
        if (!t) return gv_err_nomem("parameter tracking");
        atomic_init(&t->refs, 1);
        for (int i = 0; i < GV_P_COUNT; i++) {
            atomic_init(&t->read[i], 0);
            t->was_set[i] = p->is_set[i];
        }
        p->track = t;
    }
    /* the base learner reads its parameters through p->base: an empty one (all defaults, as
     * NULL means) records those reads, which the hints need; two levels cover the nesting the
     * learners have (an ensemble of ensembles) */
    if (!p->base && depth > 0) {
        grove_status st = grove_params_create(&p->base);
        if (st != GROVE_OK) return st;
    }
    return p->base ? track_levels(p->base, depth - 1) : GROVE_OK;
}

grove_status grove_params_track(grove_params *p)
{
    gv_err_clear();
    if (!p) return gv_err(GROVE_ERR_ARG, "grove_params_track: params is NULL");
    return track_levels(p, 2);
}

/* The tracked levels: p, p->base, p->base->base ... (at most `max`), into lv; returns the count. */
static int tracked_levels(const grove_params *p, const grove_params **lv, int max)
{
    int n = 0;
    for (; p && p->track && n < max; p = p->base) lv[n++] = p;
    return n;
}

static const char *short_name(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot ? dot + 1 : name;
}

static void level_prefix(int level, char *buf, size_t size)
{
    buf[0] = '\0';
    for (int i = 0; i < level && strlen(buf) + BASE_PREFIX_LEN < size; i++)
        strcat(buf, BASE_PREFIX);
}

grove_status grove_params_unused(const grove_params *p, char **out)
{
    gv_err_clear();
    if (!out) return gv_err(GROVE_ERR_ARG, "grove_params_unused: out is NULL");
    *out = NULL;
    if (!p) return gv_err(GROVE_ERR_ARG, "grove_params_unused: params is NULL");
    if (!p->track)
        return gv_err(GROVE_ERR_ARG, "grove_params_unused: call grove_params_track first");
    enum { MAX_LEVELS = 8 };
    const grove_params *lv[MAX_LEVELS];
    int n_levels = tracked_levels(p, lv, MAX_LEVELS);
    size_t cap = 256, len = 0;
    char *text = gv_malloc(cap);
    if (!text) return gv_err_nomem("the unused parameters");
    text[0] = '\0';
    for (int l = 0; l < n_levels; l++) {
        const tracker *t = lv[l]->track;
        for (int id = 0; id < GV_P_COUNT; id++) {
            if (!t->was_set[id] || atomic_load(&t->read[id])) continue;
            /* a hint: the same name one level up or down (max_depth <-> base.max_depth), else a
             * read parameter with the same last word (learning_rate -> boost.learning_rate) */
            int hint_level = -1, hint_id = -1;
            for (int pass = 0; pass < 2 && hint_id < 0; pass++)
                for (int l2 = 0; l2 < n_levels && hint_id < 0; l2++)
                    for (int j = 0; j < GV_P_COUNT; j++) {
                        if ((l2 == l && j == id) || !atomic_load(&lv[l2]->track->read[j])) continue;
                        int same = pass == 0 ? j == id
                                             : !strcmp(short_name(defs[j].name),
                                                       short_name(defs[id].name));
                        if (same) {
                            hint_level = l2;
                            hint_id = j;
                            break;
                        }
                    }
            /* a base level whose learner ran (it read some parameter): the learner's name, as
             * the level above holds it (read directly: this is no use of the parameter) */
            const char *learner = NULL;
            for (int j = 0; l > 0 && j < GV_P_COUNT && !learner; j++)
                if (atomic_load(&t->read[j])) learner = lv[l - 1]->text[GV_P_BASE];
            char pre[64], hpre[64] = "", line[384];
            level_prefix(l, pre, sizeof pre);
            if (hint_id >= 0) level_prefix(hint_level, hpre, sizeof hpre);
            int n = snprintf(line, sizeof line, "%s%s%s%s%s%s%s\n", pre, defs[id].name,
                             hint_id >= 0 || learner ? "\t" : "", hpre,
                             hint_id >= 0 ? defs[hint_id].name : "", learner ? "\t" : "",
                             learner ? learner : "");
            if (n < 0 || (size_t)n >= sizeof line) continue;
            if (len + (size_t)n + 1 > cap) {
                while (len + (size_t)n + 1 > cap) cap *= 2;
                char *grown = gv_realloc(text, cap);
                if (!grown) {
                    gv_free(text);
                    return gv_err_nomem("the unused parameters");
                }
                text = grown;
            }
            memcpy(text + len, line, (size_t)n + 1);
            len += (size_t)n;
        }
    }
    *out = text;
    return GROVE_OK;
}
