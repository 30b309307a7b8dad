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
 * C export (export_c, core/cgen.h): the tree as one function with a goto per node, or as rows
 * of the model's node table walked by one loop (gv_cgen_tree, which boost and gbdt call for their
 * trees too), mirroring gv_tree_leaf (tree_predict.c).
 */
#include "learner.h"

#include "../core/json.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
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

/* ---- the compact binary form (binary model files, encoding 1.2; docs/model-format.md) ----
 * A binary file (and only a binary file) stores a tree without what its other fields determine,
 * the loader rebuilding the same gv_tree bit for bit:
 *   n_splits      the number of split (non-leaf) nodes; it marks the compact form
 *   type          every node
 *   feature, default_left, gain     one entry per split node, in node order
 *   bin_split     one per numeric split; the threshold is the feature's cut point bin_split
 *                 (tree_check demands exactly that of every model), so it is not stored
 *   cat_begin, cat_len              one per categorical split
 *   left, right   one per split node; both absent when the children are laid out level by
 *                 level (the i-th split node's are 2i + 1 and 2i + 2), as the depth-wise grower
 *                 leaves them
 *   depth         not stored: the root's is 0, a child's its parent's + 1 (gv_tree_validate
 *                 demands exactly that)
 *   leaf_gain     one per leaf, only when some leaf's gain is not 0
 *   class_weights n_outputs whole numbers per leaf, when every node's values are its class
 *                 weights c over their sum W (c / W, or 1 / n_outputs when W = 0), a split
 *                 node's c the sum of its children's, and its weight W: then "values" and
 *                 "weight" are not stored.  Otherwise "values" (n_nodes x n_outputs) and
 *                 "weight" (n_nodes).
 *   count         n_nodes entries, absent when every node's count equals its weight
 *   cat_data      as in the full form
 * The writer checks each derivation on the tree itself (the same double arithmetic the reader
 * does) before leaving a field out. */

/* Bit-for-bit equality of two doubles (0 and -0 differ). */
static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* The largest class weight stored as a whole number: every integer up to it is exact. */
#define CW_MAX 9007199254740992.0 /* 2^53 */

/* The class weights of every node into cw[n_nodes * K] when the tree's values, weights and
 * children make them exact (above); 0 when they do not. */
static int class_weights_of(const gv_tree *t, double *cw)
{
    size_t n = t->n_nodes, K = (size_t)t->n_outputs;
    for (size_t k = 0; k < n; k++) {
        const gv_tree_node *nd = &t->nodes[k];
        if (nd->type == GV_NODE_CAT_MULTI) return 0;
        if (nd->type != GV_NODE_LEAF) continue;
        for (size_t j = 0; j < K; j++) {
            double c = nd->weight > 0 ? nearbyint(t->values[k * K + j] * nd->weight) : 0;
            if (!(c >= 0 && c <= CW_MAX)) return 0;
            cw[k * K + j] = c;
        }
    }
    for (size_t k = n; k-- > 0;) {
        const gv_tree_node *nd = &t->nodes[k];
        if (nd->type == GV_NODE_LEAF) continue;
        for (size_t j = 0; j < K; j++)
            cw[k * K + j] = cw[(size_t)nd->left * K + j] + cw[(size_t)nd->right * K + j];
    }
    for (size_t k = 0; k < n; k++) {
        double W = 0;
        for (size_t j = 0; j < K; j++) W += cw[k * K + j];
        if (!same_bits(W, t->nodes[k].weight)) return 0;
        for (size_t j = 0; j < K; j++) {
            double v = W > 0 ? cw[k * K + j] / W : 1.0 / (double)K;
            if (!same_bits(v, t->values[k * K + j])) return 0;
        }
    }
    return 1;
}

static json_t *tree_to_json_compact(const gv_tree *t)
{
    size_t n = t->n_nodes, K = (size_t)t->n_outputs, n_values = n * K; /* allocated: no overflow */
    size_t big = n_values > n ? n_values : n, cells;
    json_t *obj = json_object();
    /* the split nodes' columns, gathered in one pass (unused fields in canonical form):
     * col[0..S) feature, [n..) default_left, [2n..) left, [3n..) right, [4n..) bin_split of
     * the numeric splits, [5n..) cat_begin, [6n..) cat_len of the categorical ones */
    int64_t *iv = gv_mul_size(big ? big : 1, 7, &cells) ? NULL : gv_malloc_array(cells, sizeof *iv);
    double *rv = gv_malloc_array(big ? big : 1, sizeof *rv);
    unsigned char *types = gv_malloc(n ? n : 1);
    int bad = !obj || !iv || !rv || !types;
    if (bad) goto done;
    size_t S = 0, n_num = 0, n_cat = 0;
    int level_order = 1, leaf_gain = 0;
    int64_t *fe = iv, *dl = iv + n, *lc = iv + 2 * n, *rc = iv + 3 * n, *bs = iv + 4 * n,
            *cb = iv + 5 * n, *cl = iv + 6 * n;
    for (size_t k = 0; k < n; k++) {
        const gv_tree_node *nd = &t->nodes[k];
        types[k] = nd->type;
        if (nd->type == GV_NODE_LEAF) {
            leaf_gain |= !same_bits(nd->gain, 0.0);
            continue;
        }
        int multi = nd->type == GV_NODE_CAT_MULTI;
        fe[S] = gv_feature_out(nd->feature);
        dl[S] = multi ? 0 : nd->default_left;
        lc[S] = multi ? -1 : nd->left;
        rc[S] = nd->right;
        level_order &= lc[S] == (int64_t)(2 * S + 1) && rc[S] == (int64_t)(2 * S + 2);
        rv[S] = nd->gain;
        if (nd->type == GV_NODE_NUM) {
            bs[n_num++] = gv_bin_split_out(nd->feature, nd->bin_split);
        } else {
            cb[n_cat] = nd->cat_begin;
            cl[n_cat++] = nd->cat_len;
        }
        S++;
    }
    bad |= json_object_set_new(obj, "n_nodes", json_integer((json_int_t)n));
    bad |= json_object_set_new(obj, "n_outputs", json_integer((json_int_t)K));
    bad |= json_object_set_new(obj, "n_splits", json_integer((json_int_t)S));
    bad |= json_object_set_new(obj, "type", gv_packed_words(type_names, 4, types, n));
    bad |= json_object_set_new(obj, "feature", gv_packed_ints(fe, S));
    bad |= json_object_set_new(obj, "default_left", gv_packed_ints(dl, S));
    bad |= json_object_set_new(obj, "bin_split", gv_packed_ints(bs, n_num));
    bad |= json_object_set_new(obj, "cat_begin", gv_packed_ints(cb, n_cat));
    bad |= json_object_set_new(obj, "cat_len", gv_packed_ints(cl, n_cat));
    if (!level_order) { /* (a multiway split's left, -1, is never level order) */
        bad |= json_object_set_new(obj, "left", gv_packed_ints(lc, S));
        bad |= json_object_set_new(obj, "right", gv_packed_ints(rc, S));
    }
    bad |= json_object_set_new(obj, "gain", gv_json_packed_reals(rv, S));
    if (leaf_gain) {
        size_t m = 0;
        for (size_t k = 0; k < n; k++)
            if (t->nodes[k].type == GV_NODE_LEAF) rv[m++] = t->nodes[k].gain;
        bad |= json_object_set_new(obj, "leaf_gain", gv_json_packed_reals(rv, m));
    }
    if (bad) goto done;

    /* the node statistics: class weights when they are exact, else values and weights */
    if (class_weights_of(t, rv)) {
        size_t m = 0;
        for (size_t k = 0; k < n; k++)
            if (t->nodes[k].type == GV_NODE_LEAF)
                for (size_t j = 0; j < K; j++) iv[m++] = (int64_t)rv[k * K + j];
        bad |= json_object_set_new(obj, "class_weights", gv_packed_ints(iv, m));
    } else {
        bad |= json_object_set_new(obj, "values", gv_json_packed_reals(t->values, n_values));
        for (size_t k = 0; k < n; k++) rv[k] = t->nodes[k].weight;
        bad |= json_object_set_new(obj, "weight", gv_json_packed_reals(rv, n));
    }
    int count_is_weight = 1;
    for (size_t k = 0; k < n && count_is_weight; k++)
        count_is_weight = same_bits(t->nodes[k].count, t->nodes[k].weight);
    if (!count_is_weight) {
        for (size_t k = 0; k < n; k++) rv[k] = t->nodes[k].count;
        bad |= json_object_set_new(obj, "count", gv_json_packed_reals(rv, n));
    }
    /* the cat_data words */
    int64_t *cv = t->n_cat_data <= cells ? iv : gv_malloc_array(t->n_cat_data, sizeof *cv);
    for (size_t c = 0; cv && c < t->n_cat_data; c++) cv[c] = t->cat_data[c];
    bad |= json_object_set_new(obj, "cat_data", cv ? gv_packed_ints(cv, t->n_cat_data) : NULL);
    if (cv != iv) gv_free(cv);
done:
    gv_free(iv);
    gv_free(rv);
    gv_free(types);
    if (bad) {
        json_decref(obj);
        return NULL;
    }
    return obj;
}

/* Every array field is a packed array (format 1.1): each field of every node is gathered into
 * one array (the canonical node's), which becomes one JSON string (gv_packed_ints and friends:
 * text, or in binary mode the narrowest binary form).  The tree must satisfy gv_tree_validate()
 * (the model writer checks it first): a packed array refuses non-finite reals, and that would
 * read as out of memory here. */
static json_t *tree_to_json(const void *impl)
{
    const gv_tree *t = impl;
    if (gv_packed_binary_mode()) return tree_to_json_compact(t);
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

/* ---- reading the compact binary form ---- */

static const char *const compact_fields[] = {
    "kind",     "n_nodes",   "n_outputs", "n_splits",  "type",          "feature",
    "default_left", "bin_split", "cat_begin", "cat_len", "left",        "right",
    "gain",     "leaf_gain", "class_weights", "values", "weight",       "count",
    "cat_data"};

/* Opens optional field `field` (n entries) when the object has it; *has says whether. */
static grove_status open_optional(const json_t *obj, const char *field, size_t n, gv_packed *r,
                                  int *has)
{
    *has = json_object_get(obj, field) != NULL;
    return *has ? gv_packed_open(obj, field, n, 1, r) : GROVE_OK;
}

/* Child c of node k, as the derivations below use it before gv_tree_validate: after k, in the
 * tree. */
static grove_status child_in_tree(const gv_tree *t, size_t k, int64_t c, const char *which)
{
    if (c <= (int64_t)k || c >= (int64_t)t->n_nodes)
        return gv_err(GROVE_ERR_MODEL, "node %zu: %s %lld is not a node after it (the tree has "
                      "%zu)", k, which, (long long)c, t->n_nodes);
    return GROVE_OK;
}

/* The depths, from the root's (0) down: a child's is its parent's + 1 (a node no split names
 * keeps 0, and gv_tree_validate finds it unreachable). */
static grove_status derive_depths(gv_tree *t)
{
    grove_status st;
    for (size_t k = 0; k < t->n_nodes; k++) {
        const gv_tree_node *nd = &t->nodes[k];
        if (nd->type == GV_NODE_LEAF) continue;
        if (nd->depth == UINT16_MAX)
            return gv_err(GROVE_ERR_MODEL, "node %zu: deeper than %u", k, (unsigned)UINT16_MAX);
        uint16_t d = (uint16_t)(nd->depth + 1);
        if ((st = child_in_tree(t, k, nd->right, "right child")) != GROVE_OK) return st;
        t->nodes[nd->right].depth = d;
        if (nd->type != GV_NODE_CAT_MULTI) {
            if ((st = child_in_tree(t, k, nd->left, "left child")) != GROVE_OK) return st;
            t->nodes[nd->left].depth = d;
            continue;
        }
        if ((uint64_t)nd->cat_begin + nd->cat_len > (uint64_t)t->n_cat_data)
            return gv_err(GROVE_ERR_MODEL, "node %zu: categories [%u, %u + %u) lie outside "
                          "cat_data (%zu entries)", k, (unsigned)nd->cat_begin,
                          (unsigned)nd->cat_begin, (unsigned)nd->cat_len, t->n_cat_data);
        for (uint32_t c = 0; c < nd->cat_len; c++) {
            uint32_t child = t->cat_data[nd->cat_begin + c];
            if (child == UINT32_MAX) continue;
            if ((st = child_in_tree(t, k, child, "child")) != GROVE_OK) return st;
            t->nodes[child].depth = d;
        }
    }
    return GROVE_OK;
}

/* A numeric split's threshold: cut point bin_split of its feature. */
static grove_status derive_thresholds(gv_tree *t, const gv_model_ctx *ctx)
{
    for (size_t k = 0; k < t->n_nodes; k++) {
        gv_tree_node *nd = &t->nodes[k];
        if (nd->type != GV_NODE_NUM) continue;
        if (!ctx->mappers || !ctx->schema || (size_t)nd->feature >= ctx->schema->n_features)
            return gv_err(GROVE_ERR_MODEL, "node %zu: feature %ld has no bins to give the "
                          "threshold", k, (long)nd->feature);
        const gv_bin_mapper *b = &ctx->mappers[nd->feature];
        if (b->is_categorical || b->n_bins == 0 || nd->bin_split < 1 || nd->bin_split > b->n_cuts)
            return gv_err(GROVE_ERR_MODEL, "node %zu: bin_split %lu is not a cut point of "
                          "feature %ld", k, (unsigned long)nd->bin_split, (long)nd->feature);
        nd->threshold = b->cuts[nd->bin_split - 1];
    }
    return GROVE_OK;
}

static grove_status read_tree_compact(const json_t *obj, const gv_model_ctx *ctx, gv_tree *t)
{
    int64_t n_nodes, n_outputs, n_splits;
    grove_status st;
    if ((st = gv_json_check_fields(obj, compact_fields, GV_COUNT(compact_fields), "a tree")) != GROVE_OK ||
        (st = gv_json_get_int(obj, "n_nodes", 1, INT32_MAX, &n_nodes)) != GROVE_OK ||
        (st = gv_json_get_int(obj, "n_outputs", 1, 65536, &n_outputs)) != GROVE_OK ||
        (st = gv_json_get_int(obj, "n_splits", 0, n_nodes - 1, &n_splits)) != GROVE_OK)
        return st;
    size_t n = (size_t)n_nodes, K = (size_t)n_outputs, S = (size_t)n_splits, L = n - S;
    t->n_outputs = (int)n_outputs;
    gv_packed ty;
    if ((st = gv_packed_open(obj, "type", n, 1, &ty)) != GROVE_OK) return st;
    /* the type array holds n entries (checked against its bytes): the nodes can be allocated */
    t->n_nodes = n;
    if (!(t->nodes = gv_calloc(n, sizeof *t->nodes))) return gv_err_nomem("a tree");
    size_t n_split = 0, n_num = 0, n_cat = 0, n_multi = 0;
    for (size_t k = 0; k < n; k++) {
        int ti;
        if ((st = gv_packed_word(&ty, type_names, 4, &ti)) != GROVE_OK) return st;
        t->nodes[k].type = (uint8_t)ti;
        n_split += ti != GV_NODE_LEAF;
        n_num += ti == GV_NODE_NUM;
        n_cat += ti == GV_NODE_CAT_SET || ti == GV_NODE_CAT_MULTI;
        n_multi += ti == GV_NODE_CAT_MULTI;
    }
    if (n_split != S)
        return gv_err(GROVE_ERR_MODEL, "n_splits is %zu, but the tree has %zu split nodes", S,
                      n_split);
    size_t n_values;
    if (gv_mul_size(n, K, &n_values) != 0)
        return gv_err(GROVE_ERR_MODEL, "values: n_nodes x n_outputs overflows");
    gv_packed feature, dleft, bin_split, cat_begin, cat_len, left, right, gain, leaf_gain, cw,
        values, weight, count, cat_data;
    int has_left, has_right, has_leaf_gain, has_cw, has_values, has_weight, has_count;
    if ((st = gv_packed_open(obj, "feature", S, 1, &feature)) != GROVE_OK ||
        (st = gv_packed_open(obj, "default_left", S, 1, &dleft)) != GROVE_OK ||
        (st = gv_packed_open(obj, "bin_split", n_num, 1, &bin_split)) != GROVE_OK ||
        (st = gv_packed_open(obj, "cat_begin", n_cat, 1, &cat_begin)) != GROVE_OK ||
        (st = gv_packed_open(obj, "cat_len", n_cat, 1, &cat_len)) != GROVE_OK ||
        (st = gv_packed_open(obj, "gain", S, 1, &gain)) != GROVE_OK ||
        (st = open_optional(obj, "left", S, &left, &has_left)) != GROVE_OK ||
        (st = open_optional(obj, "right", S, &right, &has_right)) != GROVE_OK ||
        (st = open_optional(obj, "leaf_gain", L, &leaf_gain, &has_leaf_gain)) != GROVE_OK ||
        (st = open_optional(obj, "class_weights", L * K, &cw, &has_cw)) != GROVE_OK ||
        (st = open_optional(obj, "values", n_values, &values, &has_values)) != GROVE_OK ||
        (st = open_optional(obj, "weight", n, &weight, &has_weight)) != GROVE_OK ||
        (st = open_optional(obj, "count", n, &count, &has_count)) != GROVE_OK ||
        (st = gv_packed_open(obj, "cat_data", (size_t)-1, 1, &cat_data)) != GROVE_OK)
        return st;
    if (has_left != has_right)
        return gv_err(GROVE_ERR_MODEL, "a tree with %s but not %s", has_left ? "left" : "right",
                      has_left ? "right" : "left");
    if (!has_left && n_multi)
        return gv_err(GROVE_ERR_MODEL, "a tree with multiway splits needs left and right");
    if (has_cw ? has_values || has_weight || n_multi : !has_values || !has_weight)
        return gv_err(GROVE_ERR_MODEL, "a tree needs class_weights (and no multiway split) or "
                      "values and weight, not both");
    /* binary splits only: one leaf more than splits (gv_tree_validate would find any other
     * count wrong), which also bounds the values allocated by the class weights read */
    if (has_cw && L != S + 1)
        return gv_err(GROVE_ERR_MODEL, "a tree of %zu binary splits with %zu leaves (%zu "
                      "expected)", S, L, S + 1);
    t->n_cat_data = cat_data.n;
    t->values = gv_malloc_array(n_values, sizeof *t->values);
    t->cat_data = gv_malloc_array(t->n_cat_data, sizeof *t->cat_data);
    if (!t->values || !t->cat_data) return gv_err_nomem("a tree");
    for (size_t c = 0; c < t->n_cat_data; c++) {
        int64_t w;
        if ((st = gv_packed_int(&cat_data, 0, UINT32_MAX, &w)) != GROVE_OK) return st;
        t->cat_data[c] = (uint32_t)w;
    }

    /* the nodes' own fields; a leaf keeps the canonical form (feature and children -1) */
    for (size_t k = 0, i = 0; k < n; k++) {
        gv_tree_node *nd = &t->nodes[k];
        int ti = nd->type;
        const char *tn = type_names[ti];
        if (ti == GV_NODE_LEAF) {
            nd->feature = nd->left = nd->right = -1;
            if (has_leaf_gain && (st = gv_packed_real(&leaf_gain, &nd->gain)) != GROVE_OK)
                return st;
            continue;
        }
        int64_t v[4];
        if ((st = gv_packed_int(&feature, 0, INT32_MAX, &v[0])) != GROVE_OK ||
            (st = gv_packed_int(&dleft, 0, 1, &v[1])) != GROVE_OK ||
            (st = gv_packed_real(&gain, &nd->gain)) != GROVE_OK)
            return st;
        nd->feature = (int32_t)v[0];
        nd->default_left = (uint8_t)v[1];
        if (ti == GV_NODE_NUM) {
            if ((st = gv_packed_int(&bin_split, 0, UINT32_MAX, &v[2])) != GROVE_OK) return st;
            nd->bin_split = (uint32_t)v[2];
        } else {
            if ((st = gv_packed_int(&cat_begin, 0, UINT32_MAX, &v[2])) != GROVE_OK ||
                (st = gv_packed_int(&cat_len, 0, UINT32_MAX, &v[3])) != GROVE_OK)
                return st;
            nd->cat_begin = (uint32_t)v[2];
            nd->cat_len = (uint32_t)v[3];
        }
        if (has_left) {
            if ((st = gv_packed_int(&left, -1, INT32_MAX, &v[2])) != GROVE_OK ||
                (st = gv_packed_int(&right, -1, INT32_MAX, &v[3])) != GROVE_OK)
                return st;
        } else { /* level order: the i-th split node's children are 2i + 1 and 2i + 2 */
            v[2] = (int64_t)(2 * i + 1);
            v[3] = (int64_t)(2 * i + 2);
            if (v[3] >= (int64_t)n)
                return gv_err(GROVE_ERR_MODEL, "node %zu: children %lld and %lld are not nodes "
                              "(the tree has %zu)", k, (long long)v[2], (long long)v[3], n);
        }
        nd->left = (int32_t)v[2];
        nd->right = (int32_t)v[3];
        if (ti == GV_NODE_CAT_MULTI &&
            ((st = expect_unused(k, tn, "default_left", nd->default_left, 0)) != GROVE_OK ||
             (st = expect_unused(k, tn, "left", nd->left, -1)) != GROVE_OK))
            return st;
        i++;
    }
    if ((st = derive_depths(t)) != GROVE_OK || (st = derive_thresholds(t, ctx)) != GROVE_OK)
        return st;

    /* the statistics */
    if (has_cw) {
        /* the class weights into values: the leaves' from the file, a split node's the sum of
         * its children's (children after parents: derive_depths checked them), then each
         * node's weight W their sum and its values c / W (1 / K when W = 0) */
        for (size_t k = 0; k < n; k++) {
            if (t->nodes[k].type != GV_NODE_LEAF) continue;
            for (size_t j = 0; j < K; j++) {
                int64_t c;
                if ((st = gv_packed_int(&cw, 0, (int64_t)CW_MAX, &c)) != GROVE_OK) return st;
                t->values[k * K + j] = (double)c;
            }
        }
        for (size_t k = n; k-- > 0;) {
            const gv_tree_node *nd = &t->nodes[k];
            if (nd->type == GV_NODE_LEAF) continue;
            for (size_t j = 0; j < K; j++)
                t->values[k * K + j] =
                    t->values[(size_t)nd->left * K + j] + t->values[(size_t)nd->right * K + j];
        }
        for (size_t k = 0; k < n; k++) {
            double W = 0;
            for (size_t j = 0; j < K; j++) W += t->values[k * K + j];
            t->nodes[k].weight = W;
            for (size_t j = 0; j < K; j++)
                t->values[k * K + j] = W > 0 ? t->values[k * K + j] / W : 1.0 / (double)K;
        }
    } else {
        for (size_t k = 0; k < n_values; k++)
            if ((st = gv_packed_real(&values, &t->values[k])) != GROVE_OK) return st;
        for (size_t k = 0; k < n; k++)
            if ((st = gv_packed_real(&weight, &t->nodes[k].weight)) != GROVE_OK) return st;
    }
    for (size_t k = 0; k < n; k++)
        if (!has_count)
            t->nodes[k].count = t->nodes[k].weight;
        else if ((st = gv_packed_real(&count, &t->nodes[k].count)) != GROVE_OK)
            return st;
    return GROVE_OK;
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
    grove_status st = gv_packed_binary_mode() && json_object_get(obj, "n_splits")
                          ? read_tree_compact(obj, ctx, t)
                          : read_tree(obj, ctx->minor, t);
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

/* ---- C export (learner.h, core/cgen.h): the tree walked as tree_predict.c's gv_tree_leaf ---- */

static const char *side_comment(int default_left) { return default_left ? "left" : "right"; }

/* The code form: one goto per node.  NUM: x <= t goes left, NaN to the default side, which is
 * `!(x > t)` when the default is left.  Categorical nodes call cat_code() (raw_code of
 * tree_predict.c) and test a bitset or switch over the child map. */
static void cgen_tree_code(gv_cgen *g, const gv_tree *t, gv_cgen_tree_ref *ref)
{
    const grove_schema *s = g->schema;
    gv_buf *b = &g->body;
    char lit[GV_CGEN_LIT], nm[64];
    gv_cgen_out(b, g, "\n/* tree %zu: %zu nodes, %zu leaves, depth %d */\n", ref->id, t->n_nodes,
                gv_tree_n_leaves(t), gv_tree_depth(t));
    gv_cgen_out(b, g, "static UNUSED const double tree%zu_value[%zu] = {", ref->id,
                t->n_nodes * (size_t)t->n_outputs);
    gv_cgen_dlist(b, g, t->values, t->n_nodes * (size_t)t->n_outputs);
    gv_cgen_out(b, g, "};\n");
    gv_cgen_out(b, g, "static NOINLINE int tree%zu(const float *x)\n{\n    (void)x;\n", ref->id);
    for (size_t k = 0; k < t->n_nodes; k++) {
        const gv_tree_node *n = &t->nodes[k];
        if (k == 0)
            gv_cgen_out(b, g, "    ");
        else
            gv_cgen_out(b, g, "n%zu: ", k);
        if (n->type == GV_NODE_LEAF) {
            gv_cgen_out(b, g, "return %zu;\n", k);
            continue;
        }
        size_t f = (size_t)n->feature;
        gv_cgen_name(s->feature_names[f], nm);
        if (n->type == GV_NODE_NUM) {
            gv_cgen_flit(n->threshold, lit);
            if (n->default_left)
                gv_cgen_out(
                    b, g, "if (!(x[%zu] > %s)) goto n%d; else goto n%d; /* %s; missing: left */\n",
                    f, lit, n->left, n->right, nm);
            else
                gv_cgen_out(b, g, "if (x[%zu] <= %s) goto n%d; else goto n%d; /* %s */\n", f, lit,
                            n->left, n->right, nm);
        } else if (n->type == GV_NODE_CAT_SET) {
            gv_cgen_out(b, g, "{ static const unsigned long set[%u] = {", (unsigned)n->cat_len);
            for (uint32_t w = 0; w < n->cat_len; w++)
                gv_cgen_out(b, g, "%s%luUL", w ? ", " : "",
                            (unsigned long)t->cat_data[n->cat_begin + w]);
            gv_cgen_out(
                b, g,
                "};\n        if (cat_in_set(x[%zu], set, %uu, %d)) goto n%d; else goto n%d; } "
                "/* %s in a set; missing: %s */\n",
                f, (unsigned)n->cat_len, n->default_left, n->left, n->right, nm,
                side_comment(n->default_left));
        } else { /* CAT_MULTI */
            gv_cgen_out(b, g, "switch (cat_code(x[%zu], %uu)) { /* %s: one child per category */\n",
                        f, (unsigned)n->cat_len, nm);
            for (uint32_t c = 0; c < n->cat_len; c++) {
                uint32_t child = t->cat_data[n->cat_begin + c];
                if (child != UINT32_MAX)
                    gv_cgen_out(b, g, "        case %u: goto n%u;\n", c, child);
            }
            gv_cgen_out(b, g, "        default: goto n%d; }\n", n->right);
        }
    }
    gv_cgen_out(b, g, "}\n");
}

/* The table form: the tree's nodes, values and category words appended to N, V and C. */
static void cgen_tree_table(gv_cgen *g, const gv_tree *t, gv_cgen_tree_ref *ref)
{
    char lit[GV_CGEN_LIT];
    ref->node_off = g->n_nodes;
    ref->value_off = g->n_values;
    ref->cat_off = g->n_cats;
    gv_cgen_out(&g->nodes, g, "    /* tree %zu */\n", ref->id);
    for (size_t k = 0; k < t->n_nodes; k++) {
        const gv_tree_node *n = &t->nodes[k];
        gv_cgen_flit(n->type == GV_NODE_NUM ? n->threshold : 0.0f, lit);
        gv_cgen_out(&g->nodes, g, "    {%d, %d, %d, %s, %d, %d, %uu, %uu},\n", (int)n->feature,
                    (int)n->type, (int)n->default_left, lit, (int)n->left, (int)n->right,
                    (unsigned)n->cat_begin, (unsigned)n->cat_len);
    }
    g->n_nodes += t->n_nodes;
    for (size_t k = 0; k < t->n_nodes * (size_t)t->n_outputs; k++) {
        gv_cgen_dlit(t->values[k], lit);
        gv_cgen_out(&g->values, g, "%s%s,", g->n_values % 4 == 0 ? "\n    " : " ", lit);
        g->n_values++;
    }
    for (size_t k = 0; k < t->n_cat_data; k++) {
        gv_cgen_out(&g->cats, g, "%s%luUL,", g->n_cats % 8 == 0 ? "\n    " : " ",
                    (unsigned long)t->cat_data[k]);
        g->n_cats++;
    }
}

void gv_cgen_tree(gv_cgen *g, const gv_tree *t, gv_cgen_tree_ref *ref)
{
    ref->id = g->n_trees++;
    ref->n_outputs = t->n_outputs;
    for (size_t k = 0; k < t->n_nodes; k++)
        if (t->nodes[k].type == GV_NODE_CAT_SET || t->nodes[k].type == GV_NODE_CAT_MULTI)
            g->has_cat = 1;
    if (g->table)
        cgen_tree_table(g, t, ref);
    else
        cgen_tree_code(g, t, ref);
}

void gv_cgen_tree_leaf(const gv_cgen *g, const gv_cgen_tree_ref *t, char *buf, size_t size)
{
    if (g->table)
        snprintf(buf, size, "walk(N + %zu, C + %zu, x)", t->node_off, t->cat_off);
    else
        snprintf(buf, size, "tree%zu(x)", t->id);
}

void gv_cgen_tree_values(const gv_cgen *g, const gv_cgen_tree_ref *t, char *buf, size_t size)
{
    if (g->table)
        snprintf(buf, size, "(V + %zu)", t->value_off);
    else
        snprintf(buf, size, "tree%zu_value", t->id);
}

/* The tree component: the values of the leaf the row reaches. */
static grove_status tree_export_c(const void *impl, gv_cgen *g, size_t *id)
{
    const gv_tree *t = impl;
    gv_cgen_tree_ref ref;
    gv_cgen_tree(g, t, &ref);
    char leaf[96], vals[64], what[64];
    gv_cgen_tree_leaf(g, &ref, leaf, sizeof leaf);
    gv_cgen_tree_values(g, &ref, vals, sizeof vals);
    snprintf(what, sizeof what, "a tree (tree %zu)", ref.id);
    *id = gv_cgen_open_function(g, what);
    gv_cgen_out(&g->body, g, "    const double *v = %s + %d * (size_t)%s;\n", vals, t->n_outputs,
                leaf);
    gv_cgen_out(&g->body, g, "    int j;\n    for (j = 0; j < %d; j++) out[j] = v[j];\n}\n",
                t->n_outputs);
    return GROVE_OK;
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
    .export_c = tree_export_c,
};
