/*
 * tree_component.c -- a gv_tree as a model component (kind "tree"), and the registry of
 * component kinds that model files may contain.
 *
 * Pipeline position: learn/; the model container (model/) reads and writes components through
 * gv_component_vt.  The JSON helpers gv_json_get_* live in model/model_io.c (declared in
 * model.h): the one include here that points forward in the pipeline, kept because every
 * component's reader must report bad fields the same way.
 *
 * File form of a tree (docs/model-format.md, "tree"): parallel arrays, one entry per node,
 *   n_nodes, n_outputs, type ("leaf" | "num" | "cat_set" | "cat_multi"), feature, depth,
 *   default_left (0/1), threshold, bin_split, left, right, cat_begin, cat_len, gain, weight,
 *   count; values (n_nodes * n_outputs, node-major); cat_data (uint32 words).
 * Fields a node type does not use are written in one canonical form (0, or -1 for children and
 * a leaf's feature) whatever the grower left in memory, and the reader insists on that form:
 * the same tree always gives the same bytes, and stray numbers in a file are an error.
 * Reading checks JSON types and ranges field by field, then gv_tree_validate() checks the
 * structure, so a tree that loads can be walked safely with any input.
 */
#include "learner.h"
#include "linear.h" /* the linear components' vtables, for the registry below */

#include "../model/model.h"
#include "../ensemble/ensemble.h"

#include <float.h>
#include <math.h>
#include <string.h>

static const char *const type_names[] = {"leaf", "num", "cat_set", "cat_multi"};

/* ---- writing ---- */

static int append_int(json_t *a, json_int_t v) { return json_array_append_new(a, json_integer(v)); }
static int append_real(json_t *a, double v) { return json_array_append_new(a, json_real(v)); }

/* The node as written: unused fields in canonical form. */
static gv_tree_node canonical_node(const gv_tree_node *n)
{
    gv_tree_node c = *n;
    if (n->type == GV_NODE_LEAF) {
        c.feature = -1;
        c.left = c.right = -1;
    }
    if (n->type != GV_NODE_NUM) {
        c.threshold = 0;
        c.bin_split = 0;
    }
    if (n->type == GV_NODE_LEAF || n->type == GV_NODE_NUM) c.cat_begin = c.cat_len = 0;
    if (n->type == GV_NODE_LEAF || n->type == GV_NODE_CAT_MULTI) c.default_left = 0;
    if (n->type == GV_NODE_CAT_MULTI) c.left = -1;
    return c;
}

/* The tree must satisfy gv_tree_validate() (the model writer checks it first): json_real()
 * refuses non-finite numbers, and that would read as out of memory here. */
static json_t *tree_to_json(const void *impl)
{
    const gv_tree *t = impl;
    enum { F_TYPE, F_FEATURE, F_DEPTH, F_DEFAULT_LEFT, F_THRESHOLD, F_BIN_SPLIT, F_LEFT, F_RIGHT,
           F_CAT_BEGIN, F_CAT_LEN, F_GAIN, F_WEIGHT, F_COUNT, F_VALUES, F_CAT_DATA, N_FIELDS };
    static const char *const names[N_FIELDS] = {
        "type",    "feature",   "depth",   "default_left", "threshold", "bin_split",
        "left",    "right",     "cat_begin", "cat_len",    "gain",      "weight",
        "count",   "values",    "cat_data"};
    json_t *obj = json_object();
    json_t *a[N_FIELDS] = {0};
    int bad = !obj;
    bad |= json_object_set_new(obj, "n_nodes", json_integer((json_int_t)t->n_nodes));
    bad |= json_object_set_new(obj, "n_outputs", json_integer(t->n_outputs));
    for (int j = 0; j < N_FIELDS && !bad; j++) {
        a[j] = json_array();
        /* json_object_set (not _new): the object and a[j] each hold a reference. */
        bad |= !a[j] || json_object_set(obj, names[j], a[j]);
    }
    for (size_t k = 0; k < t->n_nodes && !bad; k++) {
        gv_tree_node n = canonical_node(&t->nodes[k]);
        bad |= json_array_append_new(a[F_TYPE], json_string(type_names[n.type]));
        bad |= append_int(a[F_FEATURE], n.feature);
        bad |= append_int(a[F_DEPTH], n.depth);
        bad |= append_int(a[F_DEFAULT_LEFT], n.default_left);
        bad |= append_real(a[F_THRESHOLD], (double)n.threshold);
        bad |= append_int(a[F_BIN_SPLIT], n.bin_split);
        bad |= append_int(a[F_LEFT], n.left);
        bad |= append_int(a[F_RIGHT], n.right);
        bad |= append_int(a[F_CAT_BEGIN], n.cat_begin);
        bad |= append_int(a[F_CAT_LEN], n.cat_len);
        bad |= append_real(a[F_GAIN], n.gain);
        bad |= append_real(a[F_WEIGHT], n.weight);
        bad |= append_real(a[F_COUNT], n.count);
        for (int j = 0; j < t->n_outputs && !bad; j++)
            bad |= append_real(a[F_VALUES], t->values[k * (size_t)t->n_outputs + (size_t)j]);
    }
    for (size_t c = 0; c < t->n_cat_data && !bad; c++)
        bad |= append_int(a[F_CAT_DATA], t->cat_data[c]);
    for (int j = 0; j < N_FIELDS; j++) json_decref(a[j]);
    if (bad) {
        json_decref(obj);
        return NULL;
    }
    return obj;
}

/* ---- reading ---- */

static const char *const tree_fields[] = {
    "kind",      "n_nodes", "n_outputs", "type",   "feature", "depth",  "default_left",
    "threshold", "bin_split", "left",    "right",  "cat_begin", "cat_len", "gain",
    "weight",    "count",   "values",    "cat_data"};

/* Element k of number array `a` (field `name`) as an integer in [lo, hi]. */
static grove_status elem_int(const json_t *a, const char *name, size_t k, int64_t lo, int64_t hi,
                             int64_t *out)
{
    const json_t *v = json_array_get(a, k);
    if (!json_is_integer(v))
        return gv_err(GROVE_ERR_MODEL, "%s[%zu]: expected an integer, got %s", name, k,
                      json_is_real(v) ? "a real number" : "a non-number");
    int64_t x = (int64_t)json_integer_value(v);
    if (x < lo || x > hi)
        return gv_err(GROVE_ERR_MODEL, "%s[%zu]: must be in [%lld, %lld], got %lld", name, k,
                      (long long)lo, (long long)hi, (long long)x);
    *out = x;
    return GROVE_OK;
}

/* Element k of number array `a` as a double (gv_json_get_array checked it is a number; JSON
 * cannot hold NaN or infinities, and jansson rejects numbers that overflow a double). */
static double elem_double(const json_t *a, size_t k)
{
    return json_number_value(json_array_get(a, k));
}

/* A node field that must hold its canonical value `want` for this node type. */
static grove_status expect_unused(size_t k, const char *type, const char *field, double got,
                                  double want)
{
    if (got == want) return GROVE_OK;
    return gv_err(GROVE_ERR_MODEL, "node %zu: a %s node must have %s %g, got %.17g", k, type,
                  field, want, got);
}

/* Reads node k's fields from the arrays (all of length n_nodes, numbers, checked). */
static grove_status read_node(const json_t *const *a, size_t k, gv_tree_node *n)
{
    const json_t *type = json_array_get(a[0], k);
    const char *ts = json_string_value(type);
    int ti = -1;
    for (int j = 0; ts && j < 4; j++)
        if (!strcmp(ts, type_names[j])) ti = j;
    if (ti < 0)
        return gv_err(GROVE_ERR_MODEL,
                      "type[%zu]: expected \"leaf\", \"num\", \"cat_set\" or \"cat_multi\"%s%s%s",
                      k, ts ? ", got \"" : "", ts ? ts : "", ts ? "\"" : "");
    n->type = (uint8_t)ti;
    int64_t v[9];
    grove_status st;
    if ((st = elem_int(a[1], "feature", k, -1, INT32_MAX, &v[0])) != GROVE_OK ||
        (st = elem_int(a[2], "depth", k, 0, UINT16_MAX, &v[1])) != GROVE_OK ||
        (st = elem_int(a[3], "default_left", k, 0, 1, &v[2])) != GROVE_OK ||
        (st = elem_int(a[5], "bin_split", k, 0, UINT32_MAX, &v[3])) != GROVE_OK ||
        (st = elem_int(a[6], "left", k, -1, INT32_MAX, &v[4])) != GROVE_OK ||
        (st = elem_int(a[7], "right", k, -1, INT32_MAX, &v[5])) != GROVE_OK ||
        (st = elem_int(a[8], "cat_begin", k, 0, UINT32_MAX, &v[6])) != GROVE_OK ||
        (st = elem_int(a[9], "cat_len", k, 0, UINT32_MAX, &v[7])) != GROVE_OK)
        return st;
    n->feature = (int32_t)v[0];
    n->depth = (uint16_t)v[1];
    n->default_left = (uint8_t)v[2];
    n->bin_split = (uint32_t)v[3];
    n->left = (int32_t)v[4];
    n->right = (int32_t)v[5];
    n->cat_begin = (uint32_t)v[6];
    n->cat_len = (uint32_t)v[7];
    /* Thresholds are floats: only a double that is exactly a float is accepted (the range test
     * first, since converting an out-of-range double to float is undefined). */
    double th = elem_double(a[4], k);
    if (!(fabs(th) <= FLT_MAX) || (double)(float)th != th)
        return gv_err(GROVE_ERR_MODEL, "threshold[%zu]: %.17g is not a float value", k, th);
    n->threshold = (float)th;
    n->gain = elem_double(a[10], k);
    n->weight = elem_double(a[11], k);
    n->count = elem_double(a[12], k);

    const char *tn = type_names[ti];
    if (ti == GV_NODE_LEAF &&
        ((st = expect_unused(k, tn, "feature", n->feature, -1)) != GROVE_OK ||
         (st = expect_unused(k, tn, "left", n->left, -1)) != GROVE_OK ||
         (st = expect_unused(k, tn, "right", n->right, -1)) != GROVE_OK))
        return st;
    if (ti != GV_NODE_NUM &&
        ((st = expect_unused(k, tn, "threshold", n->threshold, 0)) != GROVE_OK ||
         (st = expect_unused(k, tn, "bin_split", n->bin_split, 0)) != GROVE_OK))
        return st;
    if ((ti == GV_NODE_LEAF || ti == GV_NODE_NUM) &&
        ((st = expect_unused(k, tn, "cat_begin", n->cat_begin, 0)) != GROVE_OK ||
         (st = expect_unused(k, tn, "cat_len", n->cat_len, 0)) != GROVE_OK))
        return st;
    if ((ti == GV_NODE_LEAF || ti == GV_NODE_CAT_MULTI) &&
        (st = expect_unused(k, tn, "default_left", n->default_left, 0)) != GROVE_OK)
        return st;
    if (ti == GV_NODE_CAT_MULTI && (st = expect_unused(k, tn, "left", n->left, -1)) != GROVE_OK)
        return st;
    return GROVE_OK;
}

/* Reads the fields of a tree object into `t` (allocated, zeroed, freed by the caller). */
static grove_status read_tree(const json_t *obj, gv_tree *t)
{
    const char *key;
    json_t *value;
    /* json_object_foreach wants a non-const object; it only reads it. */
    json_object_foreach((json_t *)obj, key, value) {
        size_t j = 0;
        while (j < sizeof tree_fields / sizeof tree_fields[0] && strcmp(key, tree_fields[j]))
            j++;
        if (j == sizeof tree_fields / sizeof tree_fields[0])
            return gv_err(GROVE_ERR_MODEL, "unknown field '%s' in a tree", key);
    }
    int64_t n_nodes, n_outputs;
    grove_status st;
    if ((st = gv_json_get_int(obj, "n_nodes", 1, INT32_MAX, &n_nodes)) != GROVE_OK ||
        (st = gv_json_get_int(obj, "n_outputs", 1, 65536, &n_outputs)) != GROVE_OK)
        return st;
    t->n_outputs = (int)n_outputs;

    /* Same order as read_node's a[]. */
    static const char *const node_fields[] = {
        "type",  "feature", "depth",     "default_left", "threshold", "bin_split", "left",
        "right", "cat_begin", "cat_len", "gain",         "weight",    "count"};
    enum { N_NODE_FIELDS = sizeof node_fields / sizeof node_fields[0] };
    const json_t *a[N_NODE_FIELDS];
    a[0] = json_object_get(obj, "type");
    if (!json_is_array(a[0]))
        return gv_err(GROVE_ERR_MODEL, "type: %s", a[0] ? "expected an array" : "missing");
    if (json_array_size(a[0]) != (size_t)n_nodes)
        return gv_err(GROVE_ERR_MODEL, "type: expected %lld entries (n_nodes), got %zu",
                      (long long)n_nodes, json_array_size(a[0]));
    for (int j = 1; j < N_NODE_FIELDS; j++)
        if ((st = gv_json_get_array(obj, node_fields[j], (size_t)n_nodes, &a[j])) != GROVE_OK)
            return st;
    size_t n_values;
    const json_t *values, *cat_data;
    if (gv_mul_size((size_t)n_nodes, (size_t)n_outputs, &n_values) != 0)
        return gv_err(GROVE_ERR_MODEL, "values: n_nodes x n_outputs overflows");
    if ((st = gv_json_get_array(obj, "values", n_values, &values)) != GROVE_OK ||
        (st = gv_json_get_array(obj, "cat_data", (size_t)-1, &cat_data)) != GROVE_OK)
        return st;

    t->n_nodes = (size_t)n_nodes;
    t->n_cat_data = json_array_size(cat_data);
    t->nodes = gv_calloc(t->n_nodes, sizeof *t->nodes);
    t->values = gv_malloc_array(n_values, sizeof *t->values);
    t->cat_data = gv_malloc_array(t->n_cat_data, sizeof *t->cat_data);
    if (!t->nodes || !t->values || !t->cat_data) return gv_err_nomem("a tree");
    for (size_t k = 0; k < t->n_nodes; k++)
        if ((st = read_node(a, k, &t->nodes[k])) != GROVE_OK) return st;
    for (size_t k = 0; k < n_values; k++) t->values[k] = elem_double(values, k);
    for (size_t k = 0; k < t->n_cat_data; k++) {
        int64_t w;
        if ((st = elem_int(cat_data, "cat_data", k, 0, UINT32_MAX, &w)) != GROVE_OK) return st;
        t->cat_data[k] = (uint32_t)w;
    }
    return GROVE_OK;
}

static grove_status tree_from_json(const json_t *obj, const grove_schema *schema, void **out)
{
    *out = NULL;
    gv_tree *t = gv_calloc(1, sizeof *t);
    if (!t) return gv_err_nomem("a tree");
    grove_status st = read_tree(obj, t);
    if (st == GROVE_OK) st = gv_tree_validate(t, schema);
    if (st != GROVE_OK) {
        gv_tree_free(t);
        return st;
    }
    *out = t;
    return GROVE_OK;
}

static void tree_predict_row(const void *impl, const grove_dataset *d, size_t i, double *out)
{
    const gv_tree *t = impl;
    size_t leaf = gv_tree_leaf(t, d, i);
    memcpy(out, t->values + leaf * (size_t)t->n_outputs, (size_t)t->n_outputs * sizeof *out);
}

static void tree_free(void *impl) { gv_tree_free(impl); }

/* ---- model-level invariants ---- */

static grove_status tree_validate_schema(const void *impl, const grove_schema *schema)
{
    return gv_tree_validate(impl, schema);
}

/* The tree's outputs are what its parent expects, and every numeric split agrees with the bin
 * mappers -- bin_split names a cut point and the threshold is that cut point, so the raw-value
 * walk and the binned walk take the same path (bin.h: x <= c[b-1] iff bin <= b). */
static grove_status tree_check(const void *impl, const grove_model *m, size_t n_outputs)
{
    const gv_tree *t = impl;
    if ((size_t)t->n_outputs != n_outputs)
        return gv_err(GROVE_ERR_MODEL, "model: a tree has %d outputs, %zu expected",
                      t->n_outputs, n_outputs);
    for (size_t k = 0; k < t->n_nodes; k++) {
        const gv_tree_node *n = &t->nodes[k];
        if (n->type != GV_NODE_NUM) continue;
        const gv_bin_mapper *b = &m->mappers[n->feature];
        const char *name = m->schema->feature_names[n->feature];
        if (n->bin_split > b->n_cuts)
            return gv_err(GROVE_ERR_MODEL, "model: node %zu: bin_split %lu, but feature '%s' has "
                          "%lu cut points", k, (unsigned long)n->bin_split, name,
                          (unsigned long)b->n_cuts);
        if (n->threshold != b->cuts[n->bin_split - 1])
            return gv_err(GROVE_ERR_MODEL, "model: node %zu: threshold %.9g is not cut point %lu "
                          "(%.9g) of feature '%s'", k, (double)n->threshold,
                          (unsigned long)n->bin_split, (double)b->cuts[n->bin_split - 1], name);
    }
    return GROVE_OK;
}

static json_t *tree_summary(const void *impl)
{
    const gv_tree *t = impl;
    return json_pack("{s:s, s:I, s:I, s:i}", "kind", "tree", "n_nodes", (json_int_t)t->n_nodes,
                     "n_leaves", (json_int_t)gv_tree_n_leaves(t), "depth", gv_tree_depth(t));
}

const gv_component_vt gv_tree_component = {
    .kind = "tree",
    .predict_row = tree_predict_row,
    .to_json = tree_to_json,
    .from_json = tree_from_json,
    .free = tree_free,
    .validate = tree_validate_schema,
    .check = tree_check,
    .summary = tree_summary,
};

/* ---- the registry of component kinds: one line per kind ---- */

static const gv_component_vt *const component_kinds[] = {
    &gv_tree_component,
    &gv_perceptron_component, /* linear.h */
    &gv_logistic_component,   /* linear.h */
    &gv_boost_component,      /* ensemble.h */
    &gv_majority3_component,  /* ensemble.h */
    &gv_confidence_component, /* ensemble.h */
    &gv_bagging_component,    /* ensemble.h: bagging, forest, extra-trees */
    &gv_gbdt_component,       /* ensemble.h */
    &gv_mlp_component,        /* linear.h */
    &gv_stacking_component,   /* ensemble.h */
    &gv_voting_component,     /* ensemble.h */
};

const gv_component_vt *gv_component_kind(const char *kind)
{
    for (size_t i = 0; i < sizeof component_kinds / sizeof component_kinds[0]; i++)
        if (!strcmp(component_kinds[i]->kind, kind)) return component_kinds[i];
    return NULL;
}

void gv_component_free(gv_component *c)
{
    if (!c) return;
    if (c->vt && c->impl) c->vt->free(c->impl);
    c->vt = NULL;
    c->impl = NULL;
}

grove_status gv_component_check(const gv_component *c, const grove_model *m, size_t n_outputs)
{
    return c->vt->check ? c->vt->check(c->impl, m, n_outputs) : GROVE_OK;
}

grove_status gv_components_check(const gv_component *c, size_t n, const grove_model *m,
                                 size_t n_outputs, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        grove_status st = gv_component_check(&c[i], m, n_outputs);
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

grove_status gv_component_from_json(const json_t *obj, const grove_schema *schema,
                                    gv_component *out)
{
    out->vt = NULL;
    out->impl = NULL;
    const char *kind;
    if (!json_is_object(obj)) return gv_err(GROVE_ERR_MODEL, "expected an object with a kind");
    grove_status st = gv_json_get_string(obj, "kind", &kind);
    if (st != GROVE_OK) return st;
    const gv_component_vt *vt = gv_component_kind(kind);
    if (!vt) return gv_err(GROVE_ERR_MODEL, "kind: unknown component kind '%s'", kind);
    st = vt->from_json(obj, schema, &out->impl);
    if (st == GROVE_OK) out->vt = vt;
    return st;
}
