/*
 * constraints.c -- gbdt's monotone and interaction constraints: the parameters' text parsed
 * once into the arrays the tree engine reads (gv_tree_config.monotone, .igroups).
 *
 * Pipeline position: ensemble/ (gbdt.c calls it before the first tree).
 * A feature is named by its 0-based index or its name in the schema.  Errors name the
 * parameter, the 1-based character position and what is allowed there.
 */
#include "constraints.h"

#include "../data/dataset.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_ws(const char *s)
{
    while (*s && isspace((unsigned char)*s)) s++;
    return s;
}

/* A feature reference at *ps (a name, optionally quoted, or an index), ended by one of `stop`;
 * its index in *f.  *ps moves past it. */
static grove_status read_feature(const char *param, const char *text, const char **ps,
                                 const char *stop, const grove_schema *schema, size_t *f)
{
    const char *s = skip_ws(*ps), *b = s, *e;
    size_t at = (size_t)(s - text) + 1;
    if (*s == '"' || *s == '\'') {
        char q = *s++;
        b = s;
        while (*s && *s != q) s++;
        if (*s != q) return gv_err(GROVE_ERR_PARAM, "%s: unterminated quote at position %zu", param, at);
        e = s++;
    } else {
        while (*s && !strchr(stop, *s)) s++;
        e = s;
        while (e > b && isspace((unsigned char)e[-1])) e--;
    }
    *ps = s;
    size_t len = (size_t)(e - b), F = schema->n_features;
    if (len == 0)
        return gv_err(GROVE_ERR_PARAM, "%s: a feature name or index expected at position %zu", param, at);
    for (size_t k = 0; k < F; k++) {
        const char *nm = schema->feature_names ? schema->feature_names[k] : NULL;
        if (nm && strlen(nm) == len && memcmp(nm, b, len) == 0) {
            *f = k;
            return GROVE_OK;
        }
    }
    size_t v = 0, i = 0;
    for (; i < len && isdigit((unsigned char)b[i]) && v <= F; i++) v = 10 * v + (size_t)(b[i] - '0');
    if (i == len && v < F) {
        *f = v;
        return GROVE_OK;
    }
    return gv_err(GROVE_ERR_PARAM, "%s: '%.*s' at position %zu is not a feature (a name, or an index in [0, %zu))",
                  param, (int)len, b, at, F);
}

/* A direction -1, 0 or 1 at *ps. */
static grove_status read_dir(const char *param, const char *text, const char **ps, int8_t *d)
{
    const char *s = skip_ws(*ps);
    size_t at = (size_t)(s - text) + 1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || errno || v < -1 || v > 1)
        return gv_err(GROVE_ERR_PARAM, "%s: a direction -1, 0 or 1 expected at position %zu", param, at);
    *d = (int8_t)v;
    *ps = end;
    return GROVE_OK;
}

grove_status gv_monotone_parse(const char *param, const char *text, const grove_schema *schema,
                               int8_t **out)
{
    *out = NULL;
    const size_t F = schema->n_features;
    const char *s = skip_ws(text);
    if (!*s) return GROVE_OK;
    int8_t *m = gv_calloc(F ? F : 1, sizeof *m);
    if (!m) return gv_err_nomem("monotone constraints");
    grove_status st = GROVE_OK;
    char close = 0;
    if (*s == '(' || *s == '[') {
        close = *s == '(' ? ')' : ']';
        s++;
    }
    const int named = strchr(s, ':') != NULL;
    size_t n = 0;
    int any = 0;
    for (;;) {
        s = skip_ws(s);
        if (close && *s == close && n == 0) break; /* () */
        if (named) {
            size_t f;
            if ((st = read_feature(param, text, &s, ":,)]", schema, &f)) != GROVE_OK) goto fail;
            s = skip_ws(s);
            if (*s != ':') {
                st = gv_err(GROVE_ERR_PARAM, "%s: ':' expected at position %zu (feature:direction)",
                            param, (size_t)(s - text) + 1);
                goto fail;
            }
            s++;
            if ((st = read_dir(param, text, &s, &m[f])) != GROVE_OK) goto fail;
        } else {
            int8_t d;
            if ((st = read_dir(param, text, &s, &d)) != GROVE_OK) goto fail;
            if (n < F) m[n] = d;
        }
        n++;
        s = skip_ws(s);
        if (*s == ',') {
            s++;
            continue;
        }
        break;
    }
    s = skip_ws(s);
    if (close) {
        if (*s != close) {
            st = gv_err(GROVE_ERR_PARAM, "%s: '%c' or ',' expected at position %zu", param, close,
                        (size_t)(s - text) + 1);
            goto fail;
        }
        s = skip_ws(s + 1);
    }
    if (*s) {
        st = gv_err(GROVE_ERR_PARAM, "%s: unexpected '%c' at position %zu", param, *s, (size_t)(s - text) + 1);
        goto fail;
    }
    if (!named && n != F) {
        st = gv_err(GROVE_ERR_PARAM, "%s: %zu directions for %zu features (one per feature, or feature:direction pairs)",
                    param, n, F);
        goto fail;
    }
    for (size_t f = 0; f < F; f++) {
        if (m[f] != 0 && schema->is_categorical && schema->is_categorical[f]) {
            st = gv_err(GROVE_ERR_PARAM, "%s: feature %zu (%s) is categorical; monotone constraints need numeric features",
                        param, f, schema->feature_names ? schema->feature_names[f] : "?");
            goto fail;
        }
        any |= m[f] != 0;
    }
    if (!any) { /* all 0: no constraint (the unconstrained trees, bit for bit) */
        gv_free(m);
        return GROVE_OK;
    }
    *out = m;
    return GROVE_OK;
fail:
    gv_free(m);
    return st;
}

grove_status gv_interactions_parse(const char *param, const char *text, const grove_schema *schema,
                                   uint64_t **out)
{
    *out = NULL;
    const size_t F = schema->n_features;
    const char *s = skip_ws(text);
    if (!*s) return GROVE_OK;
    uint64_t *g = gv_calloc(F ? F : 1, sizeof *g);
    if (!g) return gv_err_nomem("interaction constraints");
    grove_status st = GROVE_OK;
    size_t n_groups = 0;
    if (*s != '[') {
        st = gv_err(GROVE_ERR_PARAM, "%s: '[' expected at position %zu (groups as [[0,1],[2,3,4]])", param,
                    (size_t)(s - text) + 1);
        goto fail;
    }
    s = skip_ws(s + 1);
    while (*s == '[') {
        if (n_groups == 64) {
            st = gv_err(GROVE_ERR_PARAM, "%s: more than 64 groups at position %zu", param, (size_t)(s - text) + 1);
            goto fail;
        }
        s = skip_ws(s + 1);
        if (*s != ']')
            for (;;) {
                size_t f;
                if ((st = read_feature(param, text, &s, ",]", schema, &f)) != GROVE_OK) goto fail;
                g[f] |= (uint64_t)1 << n_groups;
                s = skip_ws(s);
                if (*s == ',') {
                    s++;
                    continue;
                }
                if (*s == ']') break;
                st = gv_err(GROVE_ERR_PARAM, "%s: ',' or ']' expected at position %zu", param, (size_t)(s - text) + 1);
                goto fail;
            }
        n_groups++;
        s = skip_ws(s + 1);
        if (*s == ',') s = skip_ws(s + 1);
    }
    if (*s != ']') {
        st = gv_err(GROVE_ERR_PARAM, "%s: '[' or ']' expected at position %zu", param, (size_t)(s - text) + 1);
        goto fail;
    }
    s = skip_ws(s + 1);
    if (*s) {
        st = gv_err(GROVE_ERR_PARAM, "%s: unexpected '%c' at position %zu", param, *s, (size_t)(s - text) + 1);
        goto fail;
    }
    if (n_groups == 0) { /* [] : no constraint */
        gv_free(g);
        return GROVE_OK;
    }
    *out = g;
    return GROVE_OK;
fail:
    gv_free(g);
    return st;
}
