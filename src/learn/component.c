/*
 * component.c -- what every model component shares, whatever its kind: free, check against the
 * model, summary, the JSON object {"kind": ..., fields}, and C export through the kind's export_c
 * slot (learner.h).
 *
 * Pipeline position: learn/.  The kinds themselves live with their learners (tree_component.c,
 * linear.c, ...) and the ensembles; the table of all kinds is the registry (ensemble/registry.c),
 * which also reads a component of any kind (gv_component_from_json).
 */
#include "learner.h"

#include <stdio.h>
#include <string.h>

void gv_component_free(gv_component *c)
{
    if (!c) return;
    if (c->vt && c->impl) c->vt->free(c->impl);
    c->vt = NULL;
    c->impl = NULL;
}

grove_status gv_component_check(const gv_component *c, const gv_model_ctx *ctx, size_t n_outputs)
{
    return c->vt->check ? c->vt->check(c->impl, ctx, n_outputs) : GROVE_OK;
}

grove_status gv_components_check(const gv_component *c, size_t n, const gv_model_ctx *ctx,
                                 size_t n_outputs, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        grove_status st = gv_component_check(&c[i], ctx, n_outputs);
        if (st != GROVE_OK) {
            gv_err_prefix("%s[%zu]", what, i);
            return st;
        }
    }
    return GROVE_OK;
}

json_t *gv_component_summary(const gv_component *c)
{
    return c->vt->summary ? c->vt->summary(c->impl) : json_pack("{s:s}", "kind", c->vt->kind);
}

static _Thread_local const int32_t *feature_map;

void gv_feature_map_set(const int32_t *map) { feature_map = map; }
const int32_t *gv_feature_map(void) { return feature_map; }
int32_t gv_feature_out(int32_t f) { return feature_map && f >= 0 ? feature_map[f] : f; }

static _Thread_local const size_t *cut_offset;
static _Thread_local const uint64_t *cut_bits;
static _Thread_local const uint32_t *cut_rank;

void gv_cut_map_set(const size_t *offset, const uint64_t *bits, const uint32_t *rank)
{
    cut_offset = offset;
    cut_bits = bits;
    cut_rank = rank;
}

/* The kept cuts before bit pos. */
static uint32_t kept_before(size_t pos)
{
    uint64_t below = cut_bits[pos / 64] & (((uint64_t)1 << (pos % 64)) - 1);
    return cut_rank[pos / 64] + (uint32_t)__builtin_popcountll(below);
}

uint32_t gv_bin_split_out(int32_t feature, uint32_t bin_split)
{
    if (!cut_bits || feature < 0 || bin_split == 0) return bin_split;
    size_t first = cut_offset[feature];
    return kept_before(first + bin_split - 1) - kept_before(first) + 1;
}


/* The member's object in form `kind` (GV_KIND_FIRST: {"kind", fields...}; GV_KIND_LAST:
 * {fields..., "kind"}; GV_KIND_NONE: the fields alone). */
static json_t *member_json(const gv_component_vt *vt, const void *impl, int kind)
{
    json_t *fields = vt->to_json(impl);
    if (!fields || kind == GV_KIND_NONE) return fields;
    if (kind == GV_KIND_LAST) {
        if (json_object_set_new(fields, "kind", json_string(vt->kind)) != 0) {
            json_decref(fields);
            return NULL;
        }
        return fields;
    }
    json_t *obj = json_object();
    int bad = !obj || json_object_set_new(obj, "kind", json_string(vt->kind)) != 0 ||
              json_object_update(obj, fields) != 0;
    json_decref(fields);
    if (bad) {
        json_decref(obj);
        return NULL;
    }
    return obj;
}

/* ---- lazy members (learner.h) ---- */
typedef struct lazy_member {
    const gv_component_vt *vt;
    const void *impl;
    int kind;
    const int32_t *map; /* the feature map in force when it was met (gv_feature_out) */
    const size_t *cut_offset; /* and the cut map (gv_bin_split_out) */
    const uint64_t *cut_bits;
    const uint32_t *cut_rank;
} lazy_member;
static _Thread_local int lazy_on, lazy_depth;
static _Thread_local lazy_member *lazies;
static _Thread_local size_t n_lazies, cap_lazies;

/* A placeholder's text: a NUL byte, "member ", the index, a NUL byte (no name a model holds
 * has a NUL byte, so no other string of a document reads as one). */
#define LAZY_PREFIX "member "

int gv_component_lazy(int on)
{
    int old = lazy_on;
    lazy_on = on;
    return old;
}

void gv_component_lazy_end(void)
{
    gv_free(lazies);
    lazies = NULL;
    n_lazies = cap_lazies = 0;
}

static json_t *lazy_placeholder(const gv_component_vt *vt, const void *impl, int kind)
{
    if (n_lazies == cap_lazies) {
        size_t cap = cap_lazies ? 2 * cap_lazies : 64;
        lazy_member *l = gv_realloc_array(lazies, cap, sizeof *l);
        if (!l) return NULL;
        lazies = l;
        cap_lazies = cap;
    }
    char text[48];
    int n = snprintf(text, sizeof text, "%c" LAZY_PREFIX "%zu%c", 0, n_lazies, 0);
    json_t *v = json_stringn_nocheck(text, (size_t)n);
    if (!v) return NULL;
    lazies[n_lazies++] = (lazy_member){vt, impl, kind, feature_map, cut_offset, cut_bits, cut_rank};
    return v;
}

int gv_component_lazy_index(const json_t *v, size_t *i)
{
    if (!json_is_string(v)) return 0;
    const char *s = json_string_value(v);
    size_t len = json_string_length(v), pl = sizeof LAZY_PREFIX - 1;
    if (len < pl + 3 || s[0] != 0 || s[len - 1] != 0 || memcmp(s + 1, LAZY_PREFIX, pl) != 0)
        return 0;
    size_t k = 0;
    for (size_t j = 1 + pl; j < len - 1; j++) {
        if (s[j] < '0' || s[j] > '9') return 0;
        k = k * 10 + (size_t)(s[j] - '0');
    }
    if (k >= n_lazies) return 0;
    *i = k;
    return 1;
}

size_t gv_component_lazy_count(void) { return n_lazies; }

const void *gv_component_lazy_ref(size_t i) { return &lazies[i]; }

json_t *gv_component_lazy_build(size_t i) { return gv_component_lazy_build_ref(&lazies[i]); }

json_t *gv_component_lazy_build_ref(const void *ref)
{
    int old = lazy_on;
    const int32_t *outer = feature_map;
    const size_t *o_offset = cut_offset;
    const uint64_t *o_bits = cut_bits;
    const uint32_t *o_rank = cut_rank;
    const lazy_member *l = ref;
    lazy_on = 0;
    feature_map = l->map;
    gv_cut_map_set(l->cut_offset, l->cut_bits, l->cut_rank);
    json_t *j = member_json(l->vt, l->impl, l->kind);
    feature_map = outer;
    gv_cut_map_set(o_offset, o_bits, o_rank);
    lazy_on = old;
    return j;
}

json_t *gv_component_json(const gv_component_vt *vt, const void *impl, int kind)
{
    if (lazy_on && lazy_depth > 0) return lazy_placeholder(vt, impl, kind);
    lazy_depth++;
    json_t *j = member_json(vt, impl, kind);
    lazy_depth--;
    return j;
}

json_t *gv_component_to_json(const gv_component *c)
{
    return gv_component_json(c->vt, c->impl, GV_KIND_FIRST);
}

grove_status gv_cgen_component(gv_cgen *g, const gv_component *c, size_t *id)
{
    if (c->vt->export_c) return c->vt->export_c(c->impl, g, id);
    if (!g->refused) g->refused = c->vt->kind;
    return gv_err(GROVE_ERR_ARG, "export: component kind '%s' cannot be exported to C",
                  c->vt->kind);
}

grove_status gv_cgen_members(gv_cgen *g, const gv_component *members, size_t n, size_t *ids)
{
    for (size_t t = 0; t < n; t++) {
        grove_status st = gv_cgen_component(g, &members[t], &ids[t]);
        if (st != GROVE_OK) return st;
    }
    return GROVE_OK;
}
