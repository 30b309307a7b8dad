/*
 * params.c -- parsing and validation of parameters, driven entirely by params_def.h.
 *
 * A grove_params holds, per table entry, the value as text (always), its parsed number, and
 * whether the user set it.  Setting validates first and changes nothing on failure, with a
 * message naming the parameter and its allowed values or range.
 */
#include "params.h"

#include <math.h>
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
} param_def;

static const param_def defs[GV_P_COUNT] = {
#define GV_PARAM_DEF_(id, name, kind, def, lo, hi, allowed, help)                                 \
    {name, KIND_##kind, def, (double)(lo), (double)(hi), allowed, help},
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
    grove_params *base; /* "base.KEY" parameters of an ensemble's base learner; NULL = defaults */
};

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
        if (gv_parse_int64(value, len, &v) != 0 || (double)v < d->lo || (double)v > d->hi)
            return gv_err(GROVE_ERR_PARAM, "%s: must be an integer in [%.0f, %.0f], got '%s'",
                          d->name, d->lo, d->hi, value);
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

grove_status grove_params_set(grove_params *p, const char *key, const char *value)
{
    gv_err_clear();
    if (!p || !key || !value) return gv_err(GROVE_ERR_ARG, "grove_params_set: NULL argument");
    if (!strncmp(key, BASE_PREFIX, BASE_PREFIX_LEN)) {
        /* the base learner's own parameters, validated by the same table */
        if (!p->base) {
            grove_status st = grove_params_create(&p->base);
            if (st != GROVE_OK) return st;
        }
        grove_status st = grove_params_set(p->base, key + BASE_PREFIX_LEN, value);
        if (st != GROVE_OK) gv_err_prefix("base");
        return st;
    }
    int id = find_param(key);
    if (id < 0)
        return gv_err(GROVE_ERR_PARAM, "unknown parameter '%s' (see `grove help params`)", key);
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
    size_t n = strlen(p->text[id]);
    if (n + 1 > size) return gv_err(GROVE_ERR_ARG, "grove_params_get: buffer too small");
    memcpy(buf, p->text[id], n + 1);
    return GROVE_OK;
}

size_t grove_params_count(void) { return GV_P_COUNT; }

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
    if (def) *def = d->def;
    if (help) *help = d->help;
    if (allowed) {
        if (d->kind == K_INT || d->kind == K_FLOAT) {
            snprintf(range[i], sizeof range[i], d->kind == K_INT ? "[%.0f, %.0f]" : "[%g, %g]",
                     d->lo, d->hi);
            *allowed = range[i];
        } else {
            *allowed = d->allowed;
        }
    }
    return GROVE_OK;
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

int64_t gv_param_int(const grove_params *p, gv_param_id id)
{
    return p ? p->ival[id] : default_ival(id);
}

double gv_param_double(const grove_params *p, gv_param_id id)
{
    if (p) return p->dval[id];
    int64_t iv;
    double dv;
    parse_value(id, defs[id].def, &iv, &dv);
    return dv;
}

const char *gv_param_str(const grove_params *p, gv_param_id id)
{
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

const grove_params *gv_params_base(const grove_params *p) { return p ? p->base : NULL; }

int gv_params_foreach_base(const grove_params *p, const char *prefix,
                           int (*fn)(void *ctx, const char *key, const char *value), void *ctx)
{
    if (!p || !p->base) return 0;
    char key[256];
    for (int i = 0; i < GV_P_COUNT; i++) {
        /* threads is an execution setting, never part of a model */
        if (!p->base->is_set[i] || i == GV_P_THREADS) continue;
        snprintf(key, sizeof key, "%s" BASE_PREFIX "%s", prefix, defs[i].name);
        int r = fn(ctx, key, p->base->text[i]);
        if (r) return r;
    }
    snprintf(key, sizeof key, "%s" BASE_PREFIX, prefix);
    return gv_params_foreach_base(p->base, key, fn, ctx);
}
