/*
 * component.c -- what every model component shares, whatever its kind: free, check against the
 * model, summary, and the JSON object {"kind": ..., fields} (learner.h).
 *
 * Pipeline position: learn/.  The kinds themselves live with their learners (tree_component.c,
 * linear.c, ...) and the ensembles; the table of all kinds is the registry (ensemble/registry.c),
 * which also reads a component of any kind (gv_component_from_json).
 */
#include "learner.h"

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

json_t *gv_component_to_json(const gv_component *c)
{
    json_t *fields = c->vt->to_json(c->impl), *obj = json_object();
    int bad = !fields || !obj || json_object_set_new(obj, "kind", json_string(c->vt->kind)) != 0 ||
              json_object_update(obj, fields) != 0;
    json_decref(fields);
    if (bad) {
        json_decref(obj);
        return NULL;
    }
    return obj;
}
