/*
 * tree_predict.c -- walking a grown tree (on raw values or on bins), its size, and the
 * structural validation that stands between a model file and the walk.
 *
 * Pipeline position: learn/ (next to the grower, tree.c); model/ and ensembles call it.
 * Split semantics are tree.h's, in two equivalent forms:
 *   raw     NUM: x <= threshold -> left; NaN -> default side.  CAT_*: category code c = x.
 *   binned  NUM: bin <= bin_split -> left; bin 0 (missing) -> default side.  CAT_*: c = bin - 1.
 * For categorical splits, a missing value, a code outside the node's bitset / child map, a
 * negative, fractional or huge code, or (CAT_MULTI) a category without a child all go to the
 * default side (CAT_MULTI: the default child, node.right).  So the walk never reads outside
 * the tree for any input -- provided the tree passed gv_tree_validate(), which is why the model
 * loader runs it on every tree it reads: afterwards every walk ends at a leaf in at most
 * n_nodes steps (children come strictly after their parent).
 */
#include "tree.h"

#include <math.h>
#include <stdio.h>

/* The category code of raw value x if it is a code below `limit`; else -1 (default side).
 * The range test comes first: converting a float beyond uint32 range is undefined. */
static int64_t raw_code(float x, uint32_t limit)
{
    if (!(x >= 0.0f) || !((double)x < (double)limit)) return -1; /* NaN fails both */
    uint32_t c = (uint32_t)x;
    if ((float)c != x) return -1; /* fractional code: treated like an unknown category */
    return c;
}

/* The child of CAT_SET / CAT_MULTI node n for code c (-1 = missing or unknown). */
static size_t cat_child(const gv_tree *t, const gv_tree_node *n, int64_t c)
{
    if (n->type == GV_NODE_CAT_SET) {
        if (c < 0 || (uint64_t)c >= (uint64_t)n->cat_len * 32u)
            return (size_t)(n->default_left ? n->left : n->right);
        uint32_t word = t->cat_data[n->cat_begin + (uint32_t)c / 32u];
        return (size_t)((word >> ((uint32_t)c % 32u)) & 1u ? n->left : n->right);
    }
    /* GV_NODE_CAT_MULTI */
    if (c < 0 || (uint64_t)c >= n->cat_len) return (size_t)n->right;
    uint32_t child = t->cat_data[n->cat_begin + (uint32_t)c];
    return child == UINT32_MAX ? (size_t)n->right : (size_t)child;
}

/* The child of split node n for raw value x of its feature. */
static inline size_t raw_child(const gv_tree *t, const gv_tree_node *n, float x)
{
    if (n->type == GV_NODE_NUM) {
        if (isnan(x)) return (size_t)(n->default_left ? n->left : n->right);
        return (size_t)(x <= n->threshold ? n->left : n->right);
    }
    uint32_t limit = n->type == GV_NODE_CAT_SET ? UINT32_MAX : n->cat_len;
    return cat_child(t, n, raw_code(x, limit));
}

size_t gv_tree_leaf(const gv_tree *t, const grove_dataset *d, size_t i)
{
    size_t k = 0;
    for (;;) {
        const gv_tree_node *n = &t->nodes[k];
        if (n->type == GV_NODE_LEAF) return k;
        k = raw_child(t, n, gv_value(d, (size_t)n->feature, i));
    }
}

size_t gv_tree_child(const gv_tree *t, size_t node, float x)
{
    return raw_child(t, &t->nodes[node], x);
}

size_t gv_tree_leaf_binned(const gv_tree *t, const gv_binned *b, size_t i)
{
    size_t k = 0;
    for (;;) {
        const gv_tree_node *n = &t->nodes[k];
        if (n->type == GV_NODE_LEAF) return k;
        uint32_t bin = gv_bin_at(b, (size_t)n->feature, i);
        if (n->type == GV_NODE_NUM) {
            if (bin == 0)
                k = (size_t)(n->default_left ? n->left : n->right);
            else
                k = (size_t)(bin <= n->bin_split ? n->left : n->right);
        } else {
            k = cat_child(t, n, bin == 0 ? -1 : (int64_t)bin - 1);
        }
    }
}

size_t gv_tree_n_leaves(const gv_tree *t)
{
    size_t n = 0;
    for (size_t k = 0; k < t->n_nodes; k++) n += t->nodes[k].type == GV_NODE_LEAF;
    return n;
}

double gv_tree_max_abs_value(const gv_tree *t)
{
    double m = 0;
    for (size_t k = 0; k < t->n_nodes * (size_t)t->n_outputs; k++)
        if (fabs(t->values[k]) > m) m = fabs(t->values[k]);
    return m;
}

int gv_tree_depth(const gv_tree *t)
{
    int depth = 0;
    for (size_t k = 0; k < t->n_nodes; k++)
        if (t->nodes[k].type == GV_NODE_LEAF && t->nodes[k].depth > depth)
            depth = t->nodes[k].depth;
    return depth;
}

/* ---- validation ---- */

#define NO_PARENT SIZE_MAX

/* Records that node p has child c (an index read from the tree, unchecked).  A node listed
 * several times by the same parent (a CAT_MULTI child map may send several categories to one
 * child) counts once; a node listed by two parents, or not after its parent, is an error. */
static grove_status link_child(const gv_tree *t, size_t *parent, size_t p, int64_t c,
                               const char *which)
{
    if (c < 0 || (uint64_t)c >= t->n_nodes)
        return gv_err(GROVE_ERR_MODEL, "node %zu: %s %lld is not a node (the tree has %zu)", p,
                      which, (long long)c, t->n_nodes);
    size_t ci = (size_t)c;
    if (ci <= p)
        return gv_err(GROVE_ERR_MODEL, "node %zu: %s %zu is not after its parent", p, which, ci);
    if (parent[ci] == p) return GROVE_OK;
    if (parent[ci] != NO_PARENT)
        return gv_err(GROVE_ERR_MODEL, "node %zu: %s %zu is already a child of node %zu", p,
                      which, ci, parent[ci]);
    parent[ci] = p;
    if (t->nodes[ci].depth != t->nodes[p].depth + 1)
        return gv_err(GROVE_ERR_MODEL, "node %zu: depth %u, but its parent %zu has depth %u", ci,
                      (unsigned)t->nodes[ci].depth, p, (unsigned)t->nodes[p].depth);
    return GROVE_OK;
}

/* cat_begin + cat_len inside cat_data (in 64 bits: no wrap-around). */
static grove_status check_cat_range(const gv_tree *t, size_t k, const gv_tree_node *n)
{
    if ((uint64_t)n->cat_begin + n->cat_len > (uint64_t)t->n_cat_data)
        return gv_err(GROVE_ERR_MODEL,
                      "node %zu: categories [%u, %u + %u) lie outside cat_data (%zu entries)", k,
                      (unsigned)n->cat_begin, (unsigned)n->cat_begin, (unsigned)n->cat_len,
                      t->n_cat_data);
    return GROVE_OK;
}

static grove_status check_split(const gv_tree *t, const grove_schema *s, size_t k,
                                size_t *parent)
{
    const gv_tree_node *n = &t->nodes[k];
    if (n->feature < 0 || (size_t)n->feature >= s->n_features)
        return gv_err(GROVE_ERR_MODEL, "node %zu: feature %ld is not a feature (the model has %zu)",
                      k, (long)n->feature, s->n_features);
    size_t f = (size_t)n->feature;
    int is_cat = s->is_categorical[f] != 0;
    if ((n->type == GV_NODE_NUM) == is_cat)
        return gv_err(GROVE_ERR_MODEL, "node %zu: a %s split on %s feature %zu ('%s')", k,
                      n->type == GV_NODE_NUM ? "numeric" : "categorical",
                      is_cat ? "categorical" : "numeric", f, s->feature_names[f]);
    if (n->default_left > 1)
        return gv_err(GROVE_ERR_MODEL, "node %zu: default_left must be 0 or 1, got %u", k,
                      (unsigned)n->default_left);
    size_t n_categories = s->categories[f].n;
    size_t max_words = n_categories ? (n_categories + 31) / 32 : 1;
    grove_status st;
    switch (n->type) {
    case GV_NODE_NUM:
        if (!isfinite(n->threshold))
            return gv_err(GROVE_ERR_MODEL, "node %zu: threshold %g is not finite", k,
                          (double)n->threshold);
        if (n->bin_split < 1)
            return gv_err(GROVE_ERR_MODEL, "node %zu: bin_split must be >= 1, got %u", k,
                          (unsigned)n->bin_split);
        break;
    case GV_NODE_CAT_SET:
        if ((st = check_cat_range(t, k, n)) != GROVE_OK) return st;
        /* Bits beyond the last category are never read; more words than needed are junk. */
        if (n->cat_len < 1 || n->cat_len > max_words)
            return gv_err(GROVE_ERR_MODEL,
                          "node %zu: a category set of %u words for feature '%s' with %zu "
                          "categories (1 to %zu words expected)",
                          k, (unsigned)n->cat_len, s->feature_names[f], n_categories, max_words);
        break;
    case GV_NODE_CAT_MULTI:
        if ((st = check_cat_range(t, k, n)) != GROVE_OK) return st;
        if (n->cat_len != n_categories)
            return gv_err(GROVE_ERR_MODEL,
                          "node %zu: a child map of %u entries for feature '%s' with %zu "
                          "categories",
                          k, (unsigned)n->cat_len, s->feature_names[f], n_categories);
        break;
    }
    if (n->type == GV_NODE_CAT_MULTI) {
        for (uint32_t c = 0; c < n->cat_len; c++) {
            uint32_t child = t->cat_data[n->cat_begin + c];
            if (child == UINT32_MAX) continue;
            char which[64];
            snprintf(which, sizeof which, "child of category %u", (unsigned)c);
            if ((st = link_child(t, parent, k, child, which)) != GROVE_OK) return st;
        }
        return link_child(t, parent, k, n->right, "default child");
    }
    if ((st = link_child(t, parent, k, n->left, "left child")) != GROVE_OK) return st;
    return link_child(t, parent, k, n->right, "right child");
}

static grove_status check_node_values(const gv_tree *t, size_t k, int probabilities)
{
    const gv_tree_node *n = &t->nodes[k];
    if (!isfinite(n->gain) || !isfinite(n->weight) || !isfinite(n->count) || n->count < 0)
        return gv_err(GROVE_ERR_MODEL,
                      "node %zu: gain %g, weight %g, count %g (finite, count >= 0 expected)", k,
                      n->gain, n->weight, n->count);
    const double *v = t->values + k * (size_t)t->n_outputs;
    double sum = 0;
    for (int j = 0; j < t->n_outputs; j++) {
        if (!isfinite(v[j]))
            return gv_err(GROVE_ERR_MODEL, "node %zu: value %d is not finite", k, j);
        if (probabilities && !(v[j] >= 0 && v[j] <= 1))
            return gv_err(GROVE_ERR_MODEL,
                          "node %zu: class probability %d is %.17g, outside [0, 1]", k, j, v[j]);
        sum += v[j];
    }
    /* K probabilities summing to 1 up to rounding (K additions of numbers <= 1). */
    if (probabilities && !(fabs(sum - 1) <= 1e-9 * t->n_outputs + 1e-12))
        return gv_err(GROVE_ERR_MODEL, "node %zu: class probabilities sum to %.17g, not 1", k,
                      sum);
    return GROVE_OK;
}

grove_status gv_tree_validate(const gv_tree *t, const grove_schema *schema)
{
    if (t->n_nodes == 0) return gv_err(GROVE_ERR_MODEL, "the tree has no nodes");
    if (t->n_nodes > (size_t)INT32_MAX)
        return gv_err(GROVE_ERR_MODEL, "the tree has %zu nodes, more than %ld", t->n_nodes,
                      (long)INT32_MAX);
    size_t n_classes = schema->task == GROVE_CLASSIFICATION ? schema->classes.n : 0;
    if (t->n_outputs != 1 && !(n_classes >= 2 && (size_t)t->n_outputs == n_classes))
        return gv_err(GROVE_ERR_MODEL, "the tree has %d outputs; 1%s expected", t->n_outputs,
                      n_classes >= 2 ? " or the number of classes" : "");
    int probabilities = t->n_outputs >= 2;
    if (t->nodes[0].depth != 0)
        return gv_err(GROVE_ERR_MODEL, "node 0: the root has depth %u, not 0",
                      (unsigned)t->nodes[0].depth);

    size_t *parent = gv_malloc_array(t->n_nodes, sizeof *parent);
    if (!parent) return gv_err_nomem("tree validation");
    for (size_t k = 0; k < t->n_nodes; k++) parent[k] = NO_PARENT;
    grove_status st = GROVE_OK;
    for (size_t k = 0; k < t->n_nodes && st == GROVE_OK; k++) {
        const gv_tree_node *n = &t->nodes[k];
        if (k > 0 && parent[k] == NO_PARENT) {
            /* Children come after their parents, so every parent of k has been seen. */
            st = gv_err(GROVE_ERR_MODEL, "node %zu: not reachable from the root", k);
            break;
        }
        if ((st = check_node_values(t, k, probabilities)) != GROVE_OK) break;
        switch (n->type) {
        case GV_NODE_LEAF:
            if (n->feature != -1)
                st = gv_err(GROVE_ERR_MODEL, "node %zu: a leaf with feature %ld (-1 expected)", k,
                            (long)n->feature);
            break;
        case GV_NODE_NUM:
        case GV_NODE_CAT_SET:
        case GV_NODE_CAT_MULTI:
            st = check_split(t, schema, k, parent);
            break;
        default:
            st = gv_err(GROVE_ERR_MODEL, "node %zu: unknown node type %u", k,
                        (unsigned)n->type);
        }
    }
    gv_free(parent);
    return st;
}

/* gv_tree_leaf_binned's walk, with feature f read from row j (permutation importance). */
size_t gv_tree_leaf_binned_swap(const gv_tree *t, const gv_binned *b, size_t i, size_t f,
                                size_t j)
{
    size_t k = 0;
    for (;;) {
        const gv_tree_node *n = &t->nodes[k];
        if (n->type == GV_NODE_LEAF) return k;
        size_t feat = (size_t)n->feature;
        uint32_t bin = gv_bin_at(b, feat, feat == f ? j : i);
        if (n->type == GV_NODE_NUM) {
            if (bin == 0)
                k = (size_t)(n->default_left ? n->left : n->right);
            else
                k = (size_t)(bin <= n->bin_split ? n->left : n->right);
        } else if (n->type == GV_NODE_CAT_SET) {
            uint32_t c = bin - 1;
            if (bin == 0 || c >= n->cat_len * 32u)
                k = (size_t)(n->default_left ? n->left : n->right);
            else
                k = (size_t)((t->cat_data[n->cat_begin + c / 32u] >> (c % 32u)) & 1u ? n->left
                                                                                      : n->right);
        } else { /* CAT_MULTI */
            uint32_t c = bin - 1;
            uint32_t child = bin == 0 || c >= n->cat_len ? UINT32_MAX : t->cat_data[n->cat_begin + c];
            k = child == UINT32_MAX ? (size_t)n->right : (size_t)child;
        }
    }
}
