/*
 * tree_component.c -- a gv_tree as a model component (kind "tree").
 *
 * Pipeline position: learn/; the model container (model/) reads and writes components through
 * gv_component_vt, with the JSON codec of core/json.h; the reader learns the file's minor version
 * and the model's bin mappers from the gv_model_ctx it is handed.
 *
 * File form of a tree (docs/model-format.md, "tree"): parallel arrays, one entry per node,
 *   n_nodes, n_outputs, type ("leaf" | "num" | "cat_set" | "cat_multi"), feature, depth,
 *   default_left (0/1), threshold, bin_split, left, right, cat_begin, cat_len, gain, weight,
 *   count; values (n_nodes * n_outputs, node-major); cat_data (uint32 words).
 * Each array is a packed array (format 1.1: one string, "num leaf leaf", "0 -1 -1"; core/json.h),
 * so a tree is a handful of JSON values rather than ~16 per node; a format 1.0 file has JSON
 * arrays there, and the same reader reads both (gv_packed_* take either form).
 * Fields a node type does not use are written in one canonical form (0, or -1 for children and
 * a leaf's feature) whatever the grower left in memory, and the reader insists on that form:
 * the same tree always gives the same bytes, and stray numbers in a file are an error.
 * Reading checks types and ranges entry by entry, then gv_tree_validate() checks the
 * structure, so a tree that loads can be walked safely with any input.
 */
#include "learner.h"

#include "../core/json.h"

#include <float.h>
#include <math.h>
#include <string.h>

static const char *const type_names[] = {"leaf", "num", "cat_set", "cat_multi"};

/* ---- writing ---- */

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

/* The per-node fields, in file order (docs/model-format.md); "values" and "cat_data" follow. */
enum { F_TYPE, F_FEATURE, F_DEPTH, F_DEFAULT_LEFT, F_THRESHOLD, F_BIN_SPLIT, F_LEFT, F_RIGHT,
       F_CAT_BEGIN, F_CAT_LEN, F_GAIN, F_WEIGHT, F_COUNT, N_NODE_FIELDS };
static const char *const node_fields[N_NODE_FIELDS] = {
    "type",  "feature",   "depth",   "default_left", "threshold", "bin_split", "left",
    "right", "cat_begin", "cat_len", "gain",         "weight",    "count"};

/* Every array field is a packed array (format 1.1): each field of every node is gathered into
 * one array (the canonical node's), which becomes one JSON string (gv_packed_ints and friends:
 * text, or in binary mode the narrowest binary form).  The tree must satisfy gv_tree_validate()
 * (the model writer checks it first): a packed array refuses non-finite reals, and that would
 * read as out of memory here. */
static json_t *tree_to_json(const void *impl)
{
    const gv_tree *t = impl;
    size_t n = t->n_nodes, n_values = t->n_nodes * (size_t)t->n_outputs; /* allocated: no overflow */
    json_t *obj = json_object();
    /* the columns, gathered in one pass over the canonical nodes: column[c * n + k] is node k's
     * field of column c (its slot among the integer fields, in iv, or the real ones, in rv) */
    static const int col[N_NODE_FIELDS] = {0, 0, 1, 2, 0, 3, 4, 5, 6, 7, 1, 2, 3};
    size_t cells;
    int64_t *iv = gv_mul_size(n ? n : 1, 8, &cells) ? NULL : gv_malloc_array(cells, sizeof *iv);
    double *rv = iv ? gv_malloc_array(n ? n : 1, 4 * sizeof *rv) : NULL;
    unsigned char *types = gv_malloc(n ? n : 1);
    int bad = !obj || !iv || !rv || !types;
    bad |= json_object_set_new(obj, "n_nodes", json_integer((json_int_t)t->n_nodes));
    bad |= json_object_set_new(obj, "n_outputs", json_integer(t->n_outputs));
    for (size_t k = 0; k < n && !bad; k++) {
        gv_tree_node c = canonical_node(&t->nodes[k]);
        types[k] = c.type;
        iv[0 * n + k] = gv_feature_out(c.feature);
        iv[1 * n + k] = c.depth;
        iv[2 * n + k] = c.default_left;
        iv[3 * n + k] =
            c.type == GV_NODE_NUM ? gv_bin_split_out(c.feature, c.bin_split) : c.bin_split;
        iv[4 * n + k] = c.left;
        iv[5 * n + k] = c.right;
        iv[6 * n + k] = c.cat_begin;
        iv[7 * n + k] = c.cat_len;
        rv[0 * n + k] = (double)c.threshold;
        rv[1 * n + k] = c.gain;
        rv[2 * n + k] = c.weight;
        rv[3 * n + k] = c.count;
    }
    for (int j = 0; j < N_NODE_FIELDS && !bad; j++) {
        int real = j == F_THRESHOLD || j == F_GAIN || j == F_WEIGHT || j == F_COUNT;
        json_t *a = j == F_TYPE ? gv_packed_words(type_names, 4, types, n)
                    : real      ? gv_json_packed_reals(rv + (size_t)col[j] * n, n)
                                : gv_packed_ints(iv + (size_t)col[j] * n, n);
        bad |= json_object_set_new(obj, node_fields[j], a);
    }
    gv_free(rv);
    gv_free(types);
    bad |= json_object_set_new(obj, "values",
                               bad ? NULL : gv_json_packed_reals(t->values, n_values));
    /* the cat_data words, in the integer columns' space when they fit */
    int64_t *cv = bad ? NULL : t->n_cat_data <= cells ? iv
                                : gv_malloc_array(t->n_cat_data, sizeof *cv);
    for (size_t c = 0; cv && c < t->n_cat_data; c++) cv[c] = t->cat_data[c];
    bad |= json_object_set_new(obj, "cat_data", cv ? gv_packed_ints(cv, t->n_cat_data) : NULL);
    if (cv != iv) gv_free(cv);
    gv_free(iv);
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

/* A node field that must hold its canonical value `want` for this node type. */
static grove_status expect_unused(size_t k, const char *type, const char *field, double got,
                                  double want)
{
    if (got == want) return GROVE_OK;
    return gv_err(GROVE_ERR_MODEL, "node %zu: a %s node must have %s %g, got %.17g", k, type,
                  field, want, got);
}

/* Reads node k's fields, the next entry of each per-node array (opened with n_nodes entries). */
static grove_status read_node(gv_packed *a, size_t k, gv_tree_node *n)
{
    int ti;
    int64_t v[9];
    grove_status st;
    if ((st = gv_packed_word(&a[F_TYPE], type_names, 4, &ti)) != GROVE_OK ||
        (st = gv_packed_int(&a[F_FEATURE], -1, INT32_MAX, &v[0])) != GROVE_OK ||
        (st = gv_packed_int(&a[F_DEPTH], 0, UINT16_MAX, &v[1])) != GROVE_OK ||
        (st = gv_packed_int(&a[F_DEFAULT_LEFT], 0, 1, &v[2])) != GROVE_OK ||
        (st = gv_packed_int(&a[F_BIN_SPLIT], 0, UINT32_MAX, &v[3])) != GROVE_OK ||
        (st = gv_packed_int(&a[F_LEFT], -1, INT32_MAX, &v[4])) != GROVE_OK ||
        (st = gv_packed_int(&a[F_RIGHT], -1, INT32_MAX, &v[5])) != GROVE_OK ||
        (st = gv_packed_int(&a[F_CAT_BEGIN], 0, UINT32_MAX, &v[6])) != GROVE_OK ||
        (st = gv_packed_int(&a[F_CAT_LEN], 0, UINT32_MAX, &v[7])) != GROVE_OK ||
        /* thresholds are floats: only a number that is exactly a float is accepted */
        (st = gv_packed_float(&a[F_THRESHOLD], &n->threshold)) != GROVE_OK ||
        (st = gv_packed_real(&a[F_GAIN], &n->gain)) != GROVE_OK ||
        (st = gv_packed_real(&a[F_WEIGHT], &n->weight)) != GROVE_OK ||
        (st = gv_packed_real(&a[F_COUNT], &n->count)) != GROVE_OK)
        return st;
    n->type = (uint8_t)ti;
    n->feature = (int32_t)v[0];
    n->depth = (uint16_t)v[1];
    n->default_left = (uint8_t)v[2];
    n->bin_split = (uint32_t)v[3];
    n->left = (int32_t)v[4];
    n->right = (int32_t)v[5];
    n->cat_begin = (uint32_t)v[6];
    n->cat_len = (uint32_t)v[7];

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

/* Reads the fields of a tree object into `t` (allocated, zeroed, freed by the caller).  The
 * arrays are packed strings, or JSON arrays in a format 1.0 file; every array's length (and a
 * packed array's separators) is checked before any entry is read or any node allocated. */
static grove_status read_tree(const json_t *obj, int minor, gv_tree *t)
{
    int64_t n_nodes, n_outputs;
    grove_status st;
    if ((st = gv_json_check_fields(obj, tree_fields, GV_COUNT(tree_fields), "a tree")) != GROVE_OK ||
        (st = gv_json_get_int(obj, "n_nodes", 1, INT32_MAX, &n_nodes)) != GROVE_OK ||
        (st = gv_json_get_int(obj, "n_outputs", 1, 65536, &n_outputs)) != GROVE_OK)
        return st;
    t->n_outputs = (int)n_outputs;

    int packed = minor >= 1;
    gv_packed a[N_NODE_FIELDS], values, cat_data;
    for (int j = 0; j < N_NODE_FIELDS; j++)
        if ((st = gv_packed_open(obj, node_fields[j], (size_t)n_nodes, packed, &a[j])) != GROVE_OK)
            return st;
    size_t n_values;
    if (gv_mul_size((size_t)n_nodes, (size_t)n_outputs, &n_values) != 0)
        return gv_err(GROVE_ERR_MODEL, "values: n_nodes x n_outputs overflows");
    if ((st = gv_packed_open(obj, "values", n_values, packed, &values)) != GROVE_OK ||
        (st = gv_packed_open(obj, "cat_data", (size_t)-1, packed, &cat_data)) != GROVE_OK)
        return st;

    t->n_nodes = (size_t)n_nodes;
    t->n_cat_data = cat_data.n;
    t->nodes = gv_calloc(t->n_nodes, sizeof *t->nodes);
    t->values = gv_malloc_array(n_values, sizeof *t->values);
    t->cat_data = gv_malloc_array(t->n_cat_data, sizeof *t->cat_data);
    if (!t->nodes || !t->values || !t->cat_data) return gv_err_nomem("a tree");
    for (size_t k = 0; k < t->n_nodes; k++)
        if ((st = read_node(a, k, &t->nodes[k])) != GROVE_OK) return st;
    for (size_t k = 0; k < n_values; k++)
        if ((st = gv_packed_real(&values, &t->values[k])) != GROVE_OK) return st;
    for (size_t k = 0; k < t->n_cat_data; k++) {
        int64_t w;
        if ((st = gv_packed_int(&cat_data, 0, UINT32_MAX, &w)) != GROVE_OK) return st;
        t->cat_data[k] = (uint32_t)w;
    }
    return GROVE_OK;
}

static grove_status tree_from_json(const json_t *obj, const gv_model_ctx *ctx, void **out)
{
    *out = NULL;
    gv_tree *t = gv_calloc(1, sizeof *t);
    if (!t) return gv_err_nomem("a tree");
    grove_status st = read_tree(obj, ctx->minor, t);
    if (st == GROVE_OK) st = gv_tree_validate(t, ctx->schema);
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

/* A leaf's output (gv_fit_cells: the cells of a tree are its node ids). */
static void tree_cell_output(const void *impl, size_t cell, double *out)
{
    const gv_tree *t = impl;
    memcpy(out, t->values + cell * (size_t)t->n_outputs, (size_t)t->n_outputs * sizeof *out);
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
static grove_status tree_check(const void *impl, const gv_model_ctx *ctx, size_t n_outputs)
{
    const gv_tree *t = impl;
    if ((size_t)t->n_outputs != n_outputs)
        return gv_err(GROVE_ERR_MODEL, "model: a tree has %d outputs, %zu expected",
                      t->n_outputs, n_outputs);
    for (size_t k = 0; k < t->n_nodes; k++) {
        const gv_tree_node *n = &t->nodes[k];
        if (ctx->mark_read && n->type != GV_NODE_LEAF) ctx->mark_read[n->feature] = 1;
        if (n->type != GV_NODE_NUM) continue;
        const gv_bin_mapper *b = &ctx->mappers[n->feature];
        const char *name = ctx->schema->feature_names[n->feature];
        if (ctx->mark_used) ctx->mark_used[n->feature] = 1;
        if (b->n_bins == 0) /* format 1.2: not stored, as no split read it when saved */
            return gv_err(GROVE_ERR_MODEL, "model: node %zu splits on feature '%s', whose bins "
                          "are not in the file", k, name);
        if (n->bin_split > b->n_cuts)
            return gv_err(GROVE_ERR_MODEL, "model: node %zu: bin_split %lu, but feature '%s' has "
                          "%lu cut points", k, (unsigned long)n->bin_split, name,
                          (unsigned long)b->n_cuts);
        if (n->threshold != b->cuts[n->bin_split - 1])
            return gv_err(GROVE_ERR_MODEL, "model: node %zu: threshold %.9g is not cut point %lu "
                          "(%.9g) of feature '%s'", k, (double)n->threshold,
                          (unsigned long)n->bin_split, (double)b->cuts[n->bin_split - 1], name);
        if (ctx->mark_cuts) {
            size_t pos = ctx->cut_offset[n->feature] + n->bin_split - 1;
            ctx->mark_cuts[pos / 64] |= (uint64_t)1 << (pos % 64);
        }
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
    .cell_output = tree_cell_output,
};
