/*
 * convert.c -- models trained elsewhere as grove models (grove_model_convert): XGBoost's JSON
 * model (Booster.save_model("m.json"), gbtree or dart), LightGBM's text model
 * (Booster.save_model / the CLI's output_model), and a neutral dump of scikit-learn's fitted
 * tree ensembles that the Python package writes (docs/convert.md has all three).
 *
 * Pipeline position: model/.  Each reader turns its input into source trees (nodes in the
 * source's numbering, with the source's split semantics); one emitter rewrites every tree into
 * grove's (x <= threshold on a float, missing to a default side, category sets going left),
 * numbering nodes in preorder; the bin mappers are the sorted thresholds of each feature's
 * splits; the model document is then built and read back by the model reader, so a converted
 * model passes every check a loaded one does.
 *
 * Exactness: grove reads features as floats, as XGBoost does.  XGBoost sends x < c left (c a
 * float), which for a float x is x <= the float before c.  LightGBM and scikit-learn send
 * x <= t left (t a double), which for a float x is x <= the largest float not above t.  So a
 * converted model takes the same path as the original for every float input (LightGBM's own
 * predictor reads doubles: inputs that are not floats may differ).  Leaf values are kept as
 * doubles; XGBoost sums them in float, grove in double (differences near 1e-7 on margins).
 *
 * Invariants: every input error returns GROVE_ERR_MODEL naming the source and the JSON path or
 * line of the bad value; nothing here trusts a count, an index or a node link of the input.
 */
#include "convert_int.h"

#include "../core/numparse.h"
#include "../loss/loss.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void conv_free(conv *c)
{
    for (size_t f = 0; c->names && f < c->n_features; f++) gv_free(c->names[f]);
    gv_free(c->names);
    gv_free(c->is_cat);
    gv_free(c->n_cat);
    gv_free(c->base);
    for (int k = 0; c->classes && k < c->n_classes; k++) gv_free(c->classes[k]);
    gv_free(c->classes);
    for (size_t t = 0; c->trees && t < c->n_trees; t++) {
        gv_free(c->trees[t].nodes);
        gv_free(c->trees[t].values);
        gv_free(c->trees[t].cats);
    }
    gv_free(c->trees);
    for (size_t t = 0; c->out && t < c->n_trees; t++) gv_tree_free(c->out[t]);
    gv_free(c->out);
}

/* Features named names[f] (or "f0", "f1", ... when NULL), none categorical yet. */
grove_status gv_conv_features(conv *c, size_t n, const char *const *names)
{
    c->n_features = n;
    c->names = gv_calloc(n, sizeof *c->names);
    c->is_cat = gv_calloc(n, 1);
    c->n_cat = gv_calloc(n, sizeof *c->n_cat);
    if (!c->names || !c->is_cat || !c->n_cat) return gv_err_nomem("the features");
    for (size_t f = 0; f < n; f++) {
        char tmp[32];
        if (!names) snprintf(tmp, sizeof tmp, "f%zu", f);
        if (!(c->names[f] = gv_strdup(names ? names[f] : tmp))) return gv_err_nomem("the features");
        for (size_t g = 0; names && g < f; g++)
            if (!strcmp(names[g], names[f]))
                return gv_err(GROVE_ERR_MODEL, "%s: feature name '%s' appears twice", c->source,
                              names[f]);
    }
    return GROVE_OK;
}

grove_status gv_conv_classes(conv *c, int K)
{
    c->n_classes = K;
    if (K == 0) return GROVE_OK;
    if (!(c->classes = gv_calloc((size_t)K, sizeof *c->classes))) return gv_err_nomem("the classes");
    for (int k = 0; k < K; k++) {
        char tmp[32];
        snprintf(tmp, sizeof tmp, "%d", k);
        if (!(c->classes[k] = gv_strdup(tmp))) return gv_err_nomem("the classes");
    }
    return GROVE_OK;
}

grove_status gv_conv_trees(conv *c, size_t n)
{
    c->n_trees = n;
    if (!(c->trees = gv_calloc(n ? n : 1, sizeof *c->trees))) return gv_err_nomem("the trees");
    return GROVE_OK;
}

grove_status gv_conv_tree_alloc(src_tree *t, size_t n_nodes, int n_out, size_t n_cats)
{
    t->n_nodes = n_nodes;
    t->nodes = gv_calloc(n_nodes ? n_nodes : 1, sizeof *t->nodes);
    t->values = gv_malloc_array(n_nodes ? n_nodes : 1, (size_t)n_out * sizeof *t->values);
    t->cats = gv_calloc(n_cats ? n_cats : 1, sizeof *t->cats);
    t->n_cats = n_cats;
    if (!t->nodes || !t->values || !t->cats) return gv_err_nomem("a tree");
    for (size_t k = 0; k < n_nodes * (size_t)n_out; k++) t->values[k] = 0.0;
    return GROVE_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Emitting grove trees
 * ------------------------------------------------------------------------------------------ */

/* A tree may grow (LightGBM's zero-as-missing splits copy subtrees); beyond this, refuse. */
#define CV_MAX_NODES ((size_t)1 << 26)

typedef struct emitter {
    const conv *c;
    const src_tree *s;
    size_t tree;           /* for messages */
    gv_tree_node *nodes;
    double *values;
    size_t n, cap;
    uint32_t *cat_data;
    size_t n_cat_data, cap_cat;
    double scale;          /* new nodes' weight and count multiplied by it (emit_zero's copies) */
} emitter;

static int64_t new_node(emitter *e, const gv_tree_node *proto, const double *value)
{
    if (e->n == e->cap) {
        size_t cap = e->cap ? 2 * e->cap : 64;
        gv_tree_node *nn = gv_realloc_array(e->nodes, cap, sizeof *nn);
        if (nn) e->nodes = nn;
        double *nv = nn ? gv_realloc_array(e->values, cap, (size_t)e->c->n_out * sizeof *nv) : NULL;
        if (!nv) return -1;
        e->values = nv;
        e->cap = cap;
    }
    e->nodes[e->n] = *proto;
    e->nodes[e->n].weight *= e->scale;
    e->nodes[e->n].count *= e->scale;
    memcpy(e->values + e->n * (size_t)e->c->n_out, value, (size_t)e->c->n_out * sizeof *value);
    return (int64_t)e->n++;
}

/* The largest float below c (x < c for a float x iff x <= it) and the largest float not
 * above t (x <= t iff x <= it); -inf when there is none. */
static float float_below(double c)
{
    float f = (float)c;
    while ((double)f >= c) f = nextafterf(f, -INFINITY);
    return f;
}
static float float_at_most(double t)
{
    if (t >= (double)FLT_MAX) return FLT_MAX;
    float f = (float)t;
    while ((double)f > t) f = nextafterf(f, -INFINITY);
    return f;
}

static grove_status emit(emitter *e, int64_t k, unsigned depth, int64_t *out);

/* A NUM node on feature f: x <= thr left (children emitted from source nodes l and r, each
 * possibly a second copy), missing to dl. */
static grove_status emit_num(emitter *e, int32_t f, float thr, int dl, int64_t l, int64_t r,
                             const src_node *sn, const double *value, unsigned depth,
                             int64_t *out)
{
    if (!isfinite(thr))
        return gv_err(GROVE_ERR_MODEL, "%s: tree %zu: threshold %.17g on feature '%s' is below "
                      "every float", e->c->source, e->tree, sn->thr, e->c->names[f]);
    gv_tree_node nd = {0};
    nd.type = GV_NODE_NUM;
    nd.feature = f;
    nd.threshold = thr;
    nd.default_left = (uint8_t)dl;
    nd.depth = (uint16_t)depth;
    nd.gain = sn->gain;
    nd.weight = sn->weight;
    nd.count = sn->count;
    int64_t me = new_node(e, &nd, value);
    if (me < 0) return gv_err_nomem("a tree");
    int64_t a, b;
    grove_status st;
    if ((st = emit(e, l, depth + 1, &a)) != GROVE_OK || (st = emit(e, r, depth + 1, &b)) != GROVE_OK)
        return st;
    e->nodes[me].left = (int32_t)a;
    e->nodes[me].right = (int32_t)b;
    *out = me;
    return GROVE_OK;
}

/* A synthetic NUM node whose children are themselves built by the callbacks' arguments: the
 * zero-as-missing rewrite needs "x <= a ? (x <= b ? L : R) : ...".  Children given as
 * (threshold, left source, right source) triples, or thr NaN for a plain source node. */
typedef struct child_spec {
    float thr;      /* NaN: the child is source node `l` itself */
    int dl;
    int64_t l, r;
} child_spec;

static grove_status emit_child(emitter *e, const child_spec *cs, int32_t f, const src_node *sn,
                               const double *value, unsigned depth, int64_t *out)
{
    if (isnan(cs->thr)) return emit(e, cs->l, depth, out);
    return emit_num(e, f, cs->thr, cs->dl, cs->l, cs->r, sn, value, depth, out);
}

/* A synthetic node's weight and count: its children's. */
static void sum_children(emitter *e, int64_t k)
{
    gv_tree_node *nd = &e->nodes[k];
    nd->weight = e->nodes[nd->left].weight + e->nodes[nd->right].weight;
    nd->count = e->nodes[nd->left].count + e->nodes[nd->right].count;
}

static grove_status emit_pair(emitter *e, int32_t f, float thr, int dl, const child_spec *lc,
                              const child_spec *rc, const src_node *sn, const double *value,
                              unsigned depth, int64_t *out)
{
    gv_tree_node nd = {0};
    nd.type = GV_NODE_NUM;
    nd.feature = f;
    nd.threshold = thr;
    nd.default_left = (uint8_t)dl;
    nd.depth = (uint16_t)depth;
    nd.gain = sn->gain;
    nd.weight = sn->weight;
    nd.count = sn->count;
    int64_t me = new_node(e, &nd, value);
    if (me < 0) return gv_err_nomem("a tree");
    int64_t a, b;
    grove_status st;
    const double scale = e->scale;
    e->scale = scale / 2; /* each side's copies hold half the rows (see emit_zero) */
    if ((st = emit_child(e, lc, f, sn, value, depth + 1, &a)) != GROVE_OK ||
        (st = emit_child(e, rc, f, sn, value, depth + 1, &b)) != GROVE_OK)
        return st;
    e->scale = scale;
    e->nodes[me].left = (int32_t)a;
    e->nodes[me].right = (int32_t)b;
    sum_children(e, me);
    *out = me;
    return GROVE_OK;
}

/* LightGBM's zero-as-missing split: |x| <= z (z = 1e-35f) and NaN go to the default side D,
 * other x by x <= t.  As grove splits (zn = the float before -z):
 *   D's side holds the whole band:   one node, x <= t, NaN to D;
 *   t < -z, D left:   x <= zn ? (x <= t ? L : R) : (x <= z ? L : R), NaN left;
 *   t >= z, D right:  x <= zn ? L : (x <= z ? R : (x <= t ? L : R)), NaN right;
 *   -z <= t < z:      D left: x <= z ? L : R;  D right: x <= zn ? L : R (NaN to D).
 * Covers (the node weights TreeSHAP reads): each copy of L or R gets half the weights and
 * counts of the original subtree, and a new node the sum of its children's, so that L's copies
 * together weigh L and R's weigh R.  The expectation of the tree given any set of features,
 * computed with the covers, is then the original tree's, so the contributions are the
 * original's (LightGBM's predict_contrib) as well as the predictions. */
static grove_status emit_zero(emitter *e, const src_node *sn, float tf, const double *value,
                              unsigned depth, int64_t *out)
{
    const float z = 1e-35f, zn = nextafterf(-1e-35f, -INFINITY);
    const double t = sn->thr;
    int D = sn->default_left;
    int32_t f = sn->feature;
    if ((D && (double)z <= t) || (!D && t < -(double)z))
        return emit_num(e, f, tf, D, sn->left, sn->right, sn, value, depth, out);
    if (t >= -(double)z && t < (double)z)
        return emit_num(e, f, D ? z : zn, D, sn->left, sn->right, sn, value, depth, out);
    if (D) { /* t < -z */
        child_spec lc = {tf, 1, sn->left, sn->right}, rc = {z, 1, sn->left, sn->right};
        return emit_pair(e, f, zn, 1, &lc, &rc, sn, value, depth, out);
    }
    /* t >= z, D right: the right part is x <= z ? R : (x <= t ? L : R) */
    child_spec lc = {NAN, 0, sn->left, -1};
    gv_tree_node nd = {0};
    nd.type = GV_NODE_NUM;
    nd.feature = f;
    nd.threshold = zn;
    nd.default_left = 0;
    nd.depth = (uint16_t)depth;
    nd.gain = sn->gain;
    nd.weight = sn->weight;
    nd.count = sn->count;
    int64_t me = new_node(e, &nd, value);
    if (me < 0) return gv_err_nomem("a tree");
    int64_t a, b;
    grove_status st;
    const double scale = e->scale;
    e->scale = scale / 2;
    st = emit_child(e, &lc, f, sn, value, depth + 1, &a);
    e->scale = scale;
    if (st != GROVE_OK) return st;
    child_spec inner_l = {NAN, 0, sn->right, -1}, inner_r = {tf, 0, sn->left, sn->right};
    if ((st = emit_pair(e, f, z, 0, &inner_l, &inner_r, sn, value, depth + 1, &b)) != GROVE_OK)
        return st;
    e->nodes[me].left = (int32_t)a;
    e->nodes[me].right = (int32_t)b;
    sum_children(e, me);
    *out = me;
    return GROVE_OK;
}

static grove_status emit(emitter *e, int64_t k, unsigned depth, int64_t *out)
{
    const src_tree *s = e->s;
    const conv *c = e->c;
    if (k < 0 || (size_t)k >= s->n_nodes)
        return gv_err(GROVE_ERR_MODEL, "%s: tree %zu: a child index %lld is not a node (the tree "
                      "has %zu)", c->source, e->tree, (long long)k, s->n_nodes);
    if (depth > 65535)
        return gv_err(GROVE_ERR_MODEL, "%s: tree %zu: deeper than 65535 levels, or a cycle",
                      c->source, e->tree);
    if (e->n >= CV_MAX_NODES)
        return gv_err(GROVE_ERR_MODEL, "%s: tree %zu: more than %zu nodes once converted",
                      c->source, e->tree, CV_MAX_NODES);
    const src_node *sn = &s->nodes[k];
    const double *value = s->values + (size_t)k * (size_t)c->n_out;
    if (sn->kind == SN_LEAF) {
        gv_tree_node nd = {0};
        nd.type = GV_NODE_LEAF;
        nd.feature = -1;
        nd.left = nd.right = -1;
        nd.depth = (uint16_t)depth;
        nd.weight = sn->weight;
        nd.count = sn->count;
        int64_t me = new_node(e, &nd, value);
        if (me < 0) return gv_err_nomem("a tree");
        *out = me;
        return GROVE_OK;
    }
    if (sn->feature < 0 || (size_t)sn->feature >= c->n_features)
        return gv_err(GROVE_ERR_MODEL, "%s: tree %zu: node %lld splits on feature %ld, not in "
                      "[0, %zu)", c->source, e->tree, (long long)k, (long)sn->feature,
                      c->n_features);
    if (sn->kind == SN_NUM) {
        if (c->is_cat[sn->feature])
            return gv_err(GROVE_ERR_MODEL, "%s: tree %zu: node %lld: a numeric split on "
                          "categorical feature '%s'", c->source, e->tree, (long long)k,
                          c->names[sn->feature]);
        /* XGBoost's condition is a float: its JSON text is the shortest decimal that reads
         * back to it, so it is rounded to float first */
        float tf = sn->cmp == CMP_LT ? float_below((double)(float)sn->thr) : float_at_most(sn->thr);
        if (sn->missing == MISS_ZERO) return emit_zero(e, sn, tf, value, depth, out);
        int dl = sn->missing == MISS_NONE ? (0.0f <= tf) : sn->default_left;
        return emit_num(e, sn->feature, tf, dl, sn->left, sn->right, sn, value, depth, out);
    }
    /* SN_CAT: grove's set is the categories going left, in ceil(K / 32) words */
    if (!c->is_cat[sn->feature])
        return gv_err(GROVE_ERR_MODEL, "%s: tree %zu: node %lld: a categorical split on numeric "
                      "feature '%s'", c->source, e->tree, (long long)k, c->names[sn->feature]);
    uint32_t K = c->n_cat[sn->feature];
    size_t words = (K + 31) / 32;
    if (e->n_cat_data + words > e->cap_cat) {
        size_t cap = 2 * (e->n_cat_data + words) + 16;
        uint32_t *nc = gv_realloc_array(e->cat_data, cap, sizeof *nc);
        if (!nc) return gv_err_nomem("a tree");
        e->cat_data = nc;
        e->cap_cat = cap;
    }
    uint32_t *bits = e->cat_data + e->n_cat_data;
    memset(bits, 0, words * sizeof *bits);
    for (size_t i = 0; i < sn->cat_n; i++) {
        uint32_t v = s->cats[sn->cat_off + i];
        if (v < K) bits[v / 32] |= 1u << (v % 32);
    }
    if (sn->cats_right) {
        for (size_t w = 0; w < words; w++) bits[w] = ~bits[w];
        if (K % 32) bits[words - 1] &= (1u << (K % 32)) - 1u;
    }
    gv_tree_node nd = {0};
    nd.type = GV_NODE_CAT_SET;
    nd.feature = sn->feature;
    nd.default_left = (uint8_t)sn->default_left;
    nd.depth = (uint16_t)depth;
    nd.cat_begin = (uint32_t)e->n_cat_data;
    nd.cat_len = (uint32_t)words;
    nd.gain = sn->gain;
    nd.weight = sn->weight;
    nd.count = sn->count;
    e->n_cat_data += words;
    int64_t me = new_node(e, &nd, value);
    if (me < 0) return gv_err_nomem("a tree");
    int64_t a, b;
    grove_status st;
    if ((st = emit(e, sn->left, depth + 1, &a)) != GROVE_OK ||
        (st = emit(e, sn->right, depth + 1, &b)) != GROVE_OK)
        return st;
    e->nodes[me].left = (int32_t)a;
    e->nodes[me].right = (int32_t)b;
    *out = me;
    return GROVE_OK;
}

/* Every node is the child of at most one node and the root of none: then the walk from the
 * root is a tree (copies made by emit_zero aside). */
static grove_status check_links(const conv *c, const src_tree *s, size_t t)
{
    unsigned char *seen = gv_calloc(s->n_nodes ? s->n_nodes : 1, 1);
    if (!seen) return gv_err_nomem("a tree");
    grove_status st = GROVE_OK;
    for (size_t k = 0; k < s->n_nodes && st == GROVE_OK; k++) {
        const src_node *n = &s->nodes[k];
        if (n->kind == SN_LEAF) continue;
        int64_t ch[2] = {n->left, n->right};
        for (int j = 0; j < 2 && st == GROVE_OK; j++) {
            if (ch[j] <= 0 || (size_t)ch[j] >= s->n_nodes)
                st = gv_err(GROVE_ERR_MODEL, "%s: tree %zu: node %zu: child %lld is not a node "
                            "in [1, %zu)", c->source, t, k, (long long)ch[j], s->n_nodes);
            else if (seen[ch[j]]++)
                st = gv_err(GROVE_ERR_MODEL, "%s: tree %zu: node %lld is the child of two nodes",
                            c->source, t, (long long)ch[j]);
        }
    }
    gv_free(seen);
    return st;
}

/* Internal nodes' values (what they would predict as leaves; reports and staged views): the
 * weight-weighted mean of their children's, bottom-up over the emitted preorder. */
static void fill_internal_values(gv_tree_node *nodes, double *values, size_t n, int n_out)
{
    for (size_t k = n; k-- > 0;) {
        if (nodes[k].type == GV_NODE_LEAF) continue;
        const gv_tree_node *l = &nodes[nodes[k].left], *r = &nodes[nodes[k].right];
        double wl = l->weight, wr = r->weight;
        if (!(wl >= 0 && wr >= 0 && wl + wr > 0)) wl = wr = 1.0;
        for (int o = 0; o < n_out; o++) {
            double v = (wl * values[(size_t)nodes[k].left * (size_t)n_out + (size_t)o] +
                        wr * values[(size_t)nodes[k].right * (size_t)n_out + (size_t)o]) / (wl + wr);
            values[k * (size_t)n_out + (size_t)o] = v;
        }
    }
}

static grove_status emit_tree(conv *c, size_t t)
{
    const src_tree *s = &c->trees[t];
    grove_status st = check_links(c, s, t);
    if (st != GROVE_OK) return st;
    emitter e = {0};
    e.scale = 1;
    e.c = c;
    e.s = s;
    e.tree = t;
    int64_t root;
    st = emit(&e, 0, 0, &root);
    if (st == GROVE_OK) {
        gv_tree *g = gv_calloc(1, sizeof *g);
        if (!g) {
            st = gv_err_nomem("a tree");
        } else {
            fill_internal_values(e.nodes, e.values, e.n, c->n_out);
            g->n_nodes = e.n;
            g->nodes = e.nodes;
            g->n_outputs = c->n_out;
            g->values = e.values;
            g->n_cat_data = e.n_cat_data;
            g->cat_data = e.cat_data ? e.cat_data : gv_calloc(1, sizeof *g->cat_data);
            c->out[t] = g;
            if (!g->cat_data) return gv_err_nomem("a tree");
            return GROVE_OK;
        }
    }
    gv_free(e.nodes);
    gv_free(e.values);
    gv_free(e.cat_data);
    return st;
}

/* ---------------------------------------------------------------------------------------------
 * The model document
 * ------------------------------------------------------------------------------------------ */

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Feature f's cut points: the sorted distinct thresholds of its splits; each split's bin_split
 * then names its threshold's place. */
static grove_status feature_cuts(conv *c, size_t f, float **cuts, size_t *n_cuts)
{
    size_t n = 0;
    for (size_t t = 0; t < c->n_trees; t++)
        for (size_t k = 0; k < c->out[t]->n_nodes; k++)
            n += c->out[t]->nodes[k].type == GV_NODE_NUM && (size_t)c->out[t]->nodes[k].feature == f;
    *cuts = NULL;
    *n_cuts = 0;
    if (n == 0) return GROVE_OK;
    float *v = gv_malloc_array(n, sizeof *v);
    if (!v) return gv_err_nomem("the bin mappers");
    size_t m = 0;
    for (size_t t = 0; t < c->n_trees; t++)
        for (size_t k = 0; k < c->out[t]->n_nodes; k++) {
            const gv_tree_node *nd = &c->out[t]->nodes[k];
            if (nd->type == GV_NODE_NUM && (size_t)nd->feature == f) v[m++] = nd->threshold;
        }
    qsort(v, n, sizeof *v, cmp_float);
    m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || v[i] != v[m - 1]) v[m++] = v[i];
    if (m > GV_MODEL_MAX_BINS - 2) {
        gv_free(v);
        return gv_err(GROVE_ERR_MODEL, "%s: feature '%s' has %zu distinct thresholds; a grove "
                      "model holds at most %d", c->source, c->names[f], m, GV_MODEL_MAX_BINS - 2);
    }
    for (size_t t = 0; t < c->n_trees; t++)
        for (size_t k = 0; k < c->out[t]->n_nodes; k++) {
            gv_tree_node *nd = &c->out[t]->nodes[k];
            if (nd->type != GV_NODE_NUM || (size_t)nd->feature != f) continue;
            size_t lo = 0, hi = m; /* first cut >= threshold: it is there */
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (v[mid] < nd->threshold) lo = mid + 1;
                else hi = mid;
            }
            nd->bin_split = (uint32_t)lo + 1;
        }
    *cuts = v;
    *n_cuts = m;
    return GROVE_OK;
}

static json_t *string_array(char *const *s, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, json_string(s[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

static json_t *null_array(size_t n, int zeros)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, zeros ? json_integer(0) : json_null()) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

static grove_status build_doc(conv *c, json_t **out)
{
    *out = NULL;
    json_t *doc = json_object(), *ver = json_array(), *params = json_object(),
           *schema = json_object(), *features = json_array(), *bins = json_array();
    int bad = !doc || !ver || !params || !schema || !features || !bins;
    bad |= json_array_append_new(ver, json_integer(1)) | json_array_append_new(ver, json_integer(2));
    const char *algo = c->kind == CV_GBDT ? "gbdt" : c->kind == CV_TREE ? "tree" : c->mode;
    char num[64];
    bad |= gv_json_set_new(params, "algo", json_string(algo));
    if (c->kind == CV_GBDT) {
        bad |= gv_json_set_new(params, "objective", json_string(gv_objective_names[c->objective]));
        snprintf(num, sizeof num, "%zu", c->n_trees / c->n_groups);
        bad |= gv_json_set_new(params, "rounds", json_string(num));
        snprintf(num, sizeof num, "%.17g", c->learning_rate);
        bad |= gv_json_set_new(params, "learning_rate", json_string(num));
    } else if (c->kind == CV_BAGGING) {
        snprintf(num, sizeof num, "%zu", c->n_trees);
        bad |= gv_json_set_new(params, "rounds", json_string(num));
    }
    bad |= gv_json_set_new(params, "task", json_string(c->n_classes ? "classification" : "regression"));
    bad |= gv_json_set_new(schema, "task", json_string(c->n_classes ? "classification" : "regression"));
    bad |= gv_json_set_new(schema, "label", json_string(""));
    bad |= gv_json_set_new(schema, "classes", string_array(c->classes, (size_t)c->n_classes));
    grove_status st = GROVE_OK;
    for (size_t f = 0; !bad && f < c->n_features; f++) {
        json_t *feat = json_object(), *bin = json_object();
        bad |= !feat || !bin;
        bad |= gv_json_set_new(feat, "name", json_string(c->names[f]));
        bad |= gv_json_set_new(feat, "type", json_string(c->is_cat[f] ? "categorical" : "numeric"));
        if (c->is_cat[f]) {
            json_t *cats = json_array();
            bad |= !cats;
            for (uint32_t k = 0; !bad && k < c->n_cat[f]; k++) {
                snprintf(num, sizeof num, "%u", (unsigned)k);
                bad |= json_array_append_new(cats, json_string(num)) != 0;
            }
            bad |= gv_json_set_new(feat, "categories", cats);
            bad |= gv_json_set_new(bin, "n_bins", json_integer((json_int_t)c->n_cat[f] + 1));
        } else if (!bad) {
            float *cuts;
            size_t n_cuts;
            if ((st = feature_cuts(c, f, &cuts, &n_cuts)) != GROVE_OK) {
                json_decref(feat);
                json_decref(bin);
                break;
            }
            bad |= gv_json_set_new(bin, "n_bins", json_integer(cuts ? (json_int_t)n_cuts + 2 : 0));
            if (cuts) {
                json_t *a = json_array();
                bad |= !a;
                for (size_t i = 0; !bad && i < n_cuts; i++)
                    bad |= json_array_append_new(a, json_real((double)cuts[i])) != 0;
                bad |= gv_json_set_new(bin, "cuts", a);
            }
            gv_free(cuts);
        }
        bad |= json_array_append_new(features, feat) != 0;
        bad |= json_array_append_new(bins, bin) != 0;
    }
    bad |= gv_json_set_new(schema, "features", features);
    features = NULL;
    json_t *model = json_object(), *trees = json_array();
    bad |= !model || !trees;
    for (size_t t = 0; !bad && st == GROVE_OK && t < c->n_trees; t++) {
        json_t *tj = gv_component_json(&gv_tree_component, c->out[t],
                                       c->kind == CV_GBDT ? GV_KIND_NONE : GV_KIND_FIRST);
        bad |= !tj || json_array_append_new(trees, tj) != 0;
    }
    size_t n_out = c->n_classes ? (size_t)c->n_classes : 1;
    if (c->kind == CV_GBDT) {
        json_t *log = json_object();
        bad |= !log;
        bad |= gv_json_set_new(log, "train", json_null());
        bad |= gv_json_set_new(log, "valid", json_null());
        bad |= gv_json_set_new(log, "epsilon", json_null());
        bad |= gv_json_set_new(log, "alpha", json_null());
        int metric = c->objective == GV_OBJ_LOGISTIC ? GV_MET_LOGLOSS
                     : c->objective == GV_OBJ_SOFTMAX ? GV_MET_MLOGLOSS
                     : c->objective == GV_OBJ_ABSOLUTE ? GV_MET_MAE : GV_MET_RMSE;
        bad |= gv_json_set_new(model, "kind", json_string("gbdt"));
        bad |= gv_json_set_new(model, "objective", json_string(gv_objective_names[c->objective]));
        bad |= gv_json_set_new(model, "n_classes", json_integer(c->n_classes));
        bad |= gv_json_set_new(model, "learning_rate", json_real(c->learning_rate));
        bad |= gv_json_set_new(model, "base", gv_json_real_array(c->base, c->n_groups));
        bad |= gv_json_set_new(model, "metric", json_string(gv_metric_names[metric]));
        bad |= gv_json_set_new(model, "trees", trees);
        bad |= gv_json_set_new(model, "log", log);
        bad |= gv_json_set_new(model, "stop", json_string(""));
    } else if (c->kind == CV_BAGGING) {
        bad |= gv_json_set_new(model, "kind", json_string("bagging"));
        bad |= gv_json_set_new(model, "mode", json_string(c->mode));
        bad |= gv_json_set_new(model, "vote", json_string(c->vote));
        bad |= gv_json_set_new(model, "n_classes", json_integer(c->n_classes));
        bad |= gv_json_set_new(model, "members", trees);
        bad |= gv_json_set_new(model, "oob_error", null_array(c->n_trees, 0));
        bad |= gv_json_set_new(model, "oob_n", null_array(c->n_trees, 1));
    } else {
        json_decref(model);
        model = json_incref(json_array_get(trees, 0));
        json_decref(trees);
        bad |= !model;
    }
    bad |= gv_json_set_new(doc, "format", json_string(GV_MODEL_FORMAT_NAME));
    bad |= gv_json_set_new(doc, "version", ver);
    bad |= gv_json_set_new(doc, "grove_version", json_string(GROVE_VERSION_STRING));
    bad |= gv_json_set_new(doc, "algo", json_string(algo));
    bad |= gv_json_set_new(doc, "n_outputs", json_integer((json_int_t)n_out));
    bad |= gv_json_set_new(doc, "n_train_rows", json_integer(0));
    bad |= gv_json_set_new(doc, "params", params);
    bad |= gv_json_set_new(doc, "schema", schema);
    bad |= gv_json_set_new(doc, "bins", bins);
    bad |= gv_json_set_new(doc, "model", model);
    json_decref(features);
    if (st == GROVE_OK && bad) st = gv_err_nomem("the model");
    if (st == GROVE_OK) {
        char hex[9];
        if ((st = gv_model_doc_checksum(doc, hex)) == GROVE_OK &&
            gv_json_set_new(doc, "crc32", json_string(hex)) != 0)
            st = gv_err_nomem("the model");
    }
    if (st != GROVE_OK) {
        json_decref(doc);
        return st;
    }
    *out = doc;
    return GROVE_OK;
}

/* Emits every tree, then the document, then reads it as the loader would. */
static grove_status conv_finish(conv *c, grove_model **out)
{
    /* a categorical feature's categories: every code a split names, at least one */
    for (size_t t = 0; t < c->n_trees; t++) {
        const src_tree *s = &c->trees[t];
        for (size_t k = 0; k < s->n_nodes; k++) {
            const src_node *n = &s->nodes[k];
            if (n->kind != SN_CAT || n->feature < 0 || (size_t)n->feature >= c->n_features)
                continue;
            for (size_t i = 0; i < n->cat_n; i++) {
                uint32_t v = s->cats[n->cat_off + i];
                if (v >= 65535)
                    return gv_err(GROVE_ERR_MODEL, "%s: tree %zu: node %zu: category %u is "
                                  "beyond grove's 65535", c->source, t, k, (unsigned)v);
                if (v + 1 > c->n_cat[n->feature]) c->n_cat[n->feature] = v + 1;
            }
        }
    }
    for (size_t f = 0; f < c->n_features; f++)
        if (c->is_cat[f] && c->n_cat[f] == 0) c->n_cat[f] = 1;
    if (!(c->out = gv_calloc(c->n_trees ? c->n_trees : 1, sizeof *c->out)))
        return gv_err_nomem("the trees");
    grove_status st;
    for (size_t t = 0; t < c->n_trees; t++)
        if ((st = emit_tree(c, t)) != GROVE_OK) return st;
    json_t *doc;
    if ((st = build_doc(c, &doc)) != GROVE_OK) return st;
    st = gv_model_from_parsed(doc, NULL, 1, c->source, out);
    return st;
}

/* ---------------------------------------------------------------------------------------------
 * JSON helpers with paths
 * ------------------------------------------------------------------------------------------ */

static const json_t *jget(const conv *c, const json_t *obj, const char *key, int type,
                          const char *path, grove_status *st)
{
    const json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
    static const char *const kinds[] = {"an object", "an array", "a string", "an integer",
                                        "a number", "true", "false", "null"};
    if (!v) {
        *st = gv_err(GROVE_ERR_MODEL, "%s: %s.%s: missing", c->source, path, key);
        return NULL;
    }
    int ok = type == JSON_REAL ? json_is_number(v) : json_typeof(v) == (json_type)type;
    if (!ok) {
        *st = gv_err(GROVE_ERR_MODEL, "%s: %s.%s: expected %s, got %s", c->source, path, key,
                     kinds[type], gv_json_kind(v));
        return NULL;
    }
    return v;
}

/* Array `key` of obj with exactly n entries (n = SIZE_MAX: any). */
static const json_t *jarray(const conv *c, const json_t *obj, const char *key, size_t n,
                            const char *path, grove_status *st)
{
    const json_t *a = jget(c, obj, key, JSON_ARRAY, path, st);
    if (a && n != SIZE_MAX && json_array_size(a) != n) {
        *st = gv_err(GROVE_ERR_MODEL, "%s: %s.%s: expected %zu entries, got %zu", c->source, path,
                     key, n, json_array_size(a));
        return NULL;
    }
    return a;
}

static grove_status jnum_at(const conv *c, const json_t *a, size_t i, const char *path,
                            const char *key, double *out)
{
    const json_t *v = json_array_get(a, i);
    if (!json_is_number(v) || !isfinite(json_number_value(v)))
        return gv_err(GROVE_ERR_MODEL, "%s: %s.%s[%zu]: expected a finite number, got %s",
                      c->source, path, key, i, gv_json_kind(v));
    *out = json_number_value(v);
    return GROVE_OK;
}

static grove_status jint_at(const conv *c, const json_t *a, size_t i, const char *path,
                            const char *key, int64_t lo, int64_t hi, int64_t *out)
{
    const json_t *v = json_array_get(a, i);
    int64_t x;
    if (json_is_integer(v)) x = (int64_t)json_integer_value(v);
    else if (json_is_boolean(v)) x = json_is_true(v);
    else
        return gv_err(GROVE_ERR_MODEL, "%s: %s.%s[%zu]: expected an integer, got %s", c->source,
                      path, key, i, gv_json_kind(v));
    if (x < lo || x > hi)
        return gv_err(GROVE_ERR_MODEL, "%s: %s.%s[%zu]: must be in [%lld, %lld], got %lld",
                      c->source, path, key, i, (long long)lo, (long long)hi, (long long)x);
    *out = x;
    return GROVE_OK;
}

/* A number written as a JSON number or as text ("5E-1": XGBoost's learner_model_param). */
static grove_status jnum_text(const conv *c, const json_t *obj, const char *key, const char *path,
                              double *out)
{
    const json_t *v = json_object_get(obj, key);
    if (json_is_number(v)) {
        *out = json_number_value(v);
    } else if (json_is_string(v)) {
        const char *s = json_string_value(v);
        if (gv_parse_decimal(s, strlen(s), out) != GV_NUM_OK)
            return gv_err(GROVE_ERR_MODEL, "%s: %s.%s: expected a number, got \"%s\"", c->source,
                          path, key, s);
    } else {
        return gv_err(GROVE_ERR_MODEL, "%s: %s.%s: %s", c->source, path, key,
                      v ? "expected a number" : "missing");
    }
    if (!isfinite(*out))
        return gv_err(GROVE_ERR_MODEL, "%s: %s.%s: not finite", c->source, path, key);
    return GROVE_OK;
}

/* ---------------------------------------------------------------------------------------------
 * XGBoost JSON (1.x and 2.x save_model: learner.gradient_booster.model.trees[])
 * ------------------------------------------------------------------------------------------ */

static double logit(double p) { return log(p / (1.0 - p)); }

static grove_status xgb_tree(conv *c, const json_t *tj, const char *path, size_t n_features,
                             size_t t)
{
    grove_status st = GROVE_OK;
    const json_t *tp = jget(c, tj, "tree_param", JSON_OBJECT, path, &st);
    if (!tp) return st;
    char sub[160];
    snprintf(sub, sizeof sub, "%s.tree_param", path);
    double nn;
    if ((st = jnum_text(c, tp, "num_nodes", sub, &nn)) != GROVE_OK) return st;
    if (!(nn >= 1 && nn <= 2147483647.0 && nn == floor(nn)))
        return gv_err(GROVE_ERR_MODEL, "%s: %s.num_nodes: must be a count >= 1, got %.17g",
                      c->source, sub, nn);
    size_t n = (size_t)nn;
    const json_t *L = jarray(c, tj, "left_children", n, path, &st),
                 *R = L ? jarray(c, tj, "right_children", n, path, &st) : NULL,
                 *F = R ? jarray(c, tj, "split_indices", n, path, &st) : NULL,
                 *C = F ? jarray(c, tj, "split_conditions", n, path, &st) : NULL,
                 *D = C ? jarray(c, tj, "default_left", n, path, &st) : NULL,
                 *G = D ? jarray(c, tj, "loss_changes", n, path, &st) : NULL,
                 *H = G ? jarray(c, tj, "sum_hessian", n, path, &st) : NULL;
    if (!H) return st;
    const json_t *T = json_object_get(tj, "split_type");
    if (T && (!json_is_array(T) || json_array_size(T) != n))
        return gv_err(GROVE_ERR_MODEL, "%s: %s.split_type: expected an array of %zu entries",
                      c->source, path, n);
    const json_t *cn = NULL, *cseg = NULL, *csz = NULL, *cats = NULL;
    size_t n_cn = 0, n_catv = 0;
    if (T) {
        cn = json_object_get(tj, "categories_nodes");
        cseg = json_object_get(tj, "categories_segments");
        csz = json_object_get(tj, "categories_sizes");
        cats = json_object_get(tj, "categories");
        if (!json_is_array(cn) || !json_is_array(cseg) || !json_is_array(csz) ||
            !json_is_array(cats) || json_array_size(cseg) != json_array_size(cn) ||
            json_array_size(csz) != json_array_size(cn))
            return gv_err(GROVE_ERR_MODEL, "%s: %s: categories_nodes, categories_segments and "
                          "categories_sizes must be arrays of one length, with categories",
                          c->source, path);
        n_cn = json_array_size(cn);
        n_catv = json_array_size(cats);
    }
    src_tree *s = &c->trees[t];
    if ((st = gv_conv_tree_alloc(s, n, 1, n_catv)) != GROVE_OK) return st;
    for (size_t i = 0; i < n_catv; i++) {
        int64_t v;
        if ((st = jint_at(c, cats, i, path, "categories", 0, 65534, &v)) != GROVE_OK) return st;
        s->cats[i] = (uint32_t)v;
    }
    for (size_t k = 0; k < n; k++) {
        src_node *sn = &s->nodes[k];
        int64_t l, r, f, dl = 0, ty = 0;
        double cond, g, h;
        if ((st = jint_at(c, L, k, path, "left_children", -1, (int64_t)n - 1, &l)) != GROVE_OK ||
            (st = jint_at(c, R, k, path, "right_children", -1, (int64_t)n - 1, &r)) != GROVE_OK ||
            (st = jnum_at(c, G, k, path, "loss_changes", &g)) != GROVE_OK ||
            (st = jnum_at(c, H, k, path, "sum_hessian", &h)) != GROVE_OK ||
            (T && (st = jint_at(c, T, k, path, "split_type", 0, 1, &ty)) != GROVE_OK))
            return st;
        /* a categorical split's condition is NaN (null here), and not read */
        if ((l == -1 || ty == 0) &&
            (st = jnum_at(c, C, k, path, "split_conditions", &cond)) != GROVE_OK)
            return st;
        sn->gain = g;
        sn->weight = h;
        sn->count = h >= 0 ? h : 0;
        if ((l == -1) != (r == -1))
            return gv_err(GROVE_ERR_MODEL, "%s: %s: node %zu has one child (left %lld, right "
                          "%lld)", c->source, path, k, (long long)l, (long long)r);
        if (l == -1) {
            sn->kind = SN_LEAF;
            s->values[k] = cond;
            continue;
        }
        if ((st = jint_at(c, F, k, path, "split_indices", 0, (int64_t)n_features - 1, &f)) != GROVE_OK ||
            (st = jint_at(c, D, k, path, "default_left", 0, 1, &dl)) != GROVE_OK)
            return st;
        sn->feature = (int32_t)f;
        sn->left = l;
        sn->right = r;
        sn->default_left = (int)dl;
        if (ty == 0) {
            sn->kind = SN_NUM;
            sn->thr = cond;
            sn->cmp = CMP_LT;
            sn->missing = MISS_NAN;
            continue;
        }
        sn->kind = SN_CAT;
        sn->cats_right = 1;
        size_t j = 0;
        for (; j < n_cn; j++) {
            int64_t id;
            if ((st = jint_at(c, cn, j, path, "categories_nodes", 0, (int64_t)n - 1, &id)) != GROVE_OK)
                return st;
            if ((size_t)id == k) break;
        }
        if (j == n_cn)
            return gv_err(GROVE_ERR_MODEL, "%s: %s: node %zu is a categorical split missing "
                          "from categories_nodes", c->source, path, k);
        int64_t off, len;
        if ((st = jint_at(c, cseg, j, path, "categories_segments", 0, (int64_t)n_catv, &off)) != GROVE_OK ||
            (st = jint_at(c, csz, j, path, "categories_sizes", 0, (int64_t)n_catv - off, &len)) != GROVE_OK)
            return st;
        sn->cat_off = (size_t)off;
        sn->cat_n = (size_t)len;
        c->is_cat[f] = 1;
    }
    return GROVE_OK;
}

static grove_status from_xgboost(conv *c, const json_t *doc)
{
    grove_status st = GROVE_OK;
    const json_t *learner = jget(c, doc, "learner", JSON_OBJECT, "$", &st);
    const json_t *lmp = learner ? jget(c, learner, "learner_model_param", JSON_OBJECT, "$.learner", &st) : NULL;
    const json_t *obj = lmp ? jget(c, learner, "objective", JSON_OBJECT, "$.learner", &st) : NULL;
    const json_t *gb = obj ? jget(c, learner, "gradient_booster", JSON_OBJECT, "$.learner", &st) : NULL;
    const json_t *oname = gb ? jget(c, obj, "name", JSON_STRING, "$.learner.objective", &st) : NULL;
    const json_t *gname = oname ? jget(c, gb, "name", JSON_STRING, "$.learner.gradient_booster", &st) : NULL;
    if (!gname) return st;
    const char *booster = json_string_value(gname);
    const json_t *model, *weight_drop = NULL;
    const char *mpath;
    if (!strcmp(booster, "gbtree")) {
        mpath = "$.learner.gradient_booster.model";
        model = jget(c, gb, "model", JSON_OBJECT, "$.learner.gradient_booster", &st);
    } else if (!strcmp(booster, "dart")) {
        const json_t *inner = jget(c, gb, "gbtree", JSON_OBJECT, "$.learner.gradient_booster", &st);
        mpath = "$.learner.gradient_booster.gbtree.model";
        model = inner ? jget(c, inner, "model", JSON_OBJECT, "$.learner.gradient_booster.gbtree", &st) : NULL;
        weight_drop = model ? jget(c, gb, "weight_drop", JSON_ARRAY, "$.learner.gradient_booster", &st) : NULL;
        if (!weight_drop) model = NULL;
    } else {
        return gv_err(GROVE_ERR_MODEL, "%s: $.learner.gradient_booster.name: '%s' is not a tree "
                      "booster (gbtree or dart)", c->source, booster);
    }
    if (!model) return st;
    double base_score, nf, nc;
    if ((st = jnum_text(c, lmp, "base_score", "$.learner.learner_model_param", &base_score)) != GROVE_OK ||
        (st = jnum_text(c, lmp, "num_feature", "$.learner.learner_model_param", &nf)) != GROVE_OK ||
        (st = jnum_text(c, lmp, "num_class", "$.learner.learner_model_param", &nc)) != GROVE_OK)
        return st;
    const json_t *nt = json_object_get(lmp, "num_target");
    if (nt) {
        double v;
        if ((st = jnum_text(c, lmp, "num_target", "$.learner.learner_model_param", &v)) != GROVE_OK)
            return st;
        if (v != 1.0)
            return gv_err(GROVE_ERR_MODEL, "%s: $.learner.learner_model_param.num_target: %.17g "
                          "targets; grove models have one", c->source, v);
    }
    if (!(nf >= 1 && nf <= CV_MAX_FEATURES && nf == floor(nf)))
        return gv_err(GROVE_ERR_MODEL, "%s: $.learner.learner_model_param.num_feature: must be "
                      "a count in [1, %d], got %.17g", c->source, CV_MAX_FEATURES, nf);
    if (!(nc >= 0 && nc <= 65536 && nc == floor(nc) && nc != 1))
        return gv_err(GROVE_ERR_MODEL, "%s: $.learner.learner_model_param.num_class: must be 0 "
                      "or a count in [2, 65536], got %.17g", c->source, nc);
    const char *on = json_string_value(oname);
    int K = 0;
    if (!strcmp(on, "binary:logitraw")) {
        c->objective = GV_OBJ_LOGISTIC; /* its base_score is a margin already */
        K = 2;
    } else if (!strcmp(on, "binary:logistic")) {
        c->objective = GV_OBJ_LOGISTIC;
        K = 2;
        if (!(base_score > 0 && base_score < 1))
            return gv_err(GROVE_ERR_MODEL, "%s: $.learner.learner_model_param.base_score: must "
                          "be a probability in (0, 1) for %s, got %.17g", c->source, on, base_score);
        base_score = logit(base_score);
    } else if (!strcmp(on, "multi:softprob") || !strcmp(on, "multi:softmax")) {
        c->objective = GV_OBJ_SOFTMAX;
        K = (int)nc;
        if (K < 2)
            return gv_err(GROVE_ERR_MODEL, "%s: $.learner.learner_model_param.num_class: %s "
                          "needs at least 2 classes, got %d", c->source, on, K);
    } else if (!strcmp(on, "reg:squarederror") || !strcmp(on, "reg:linear")) {
        c->objective = GV_OBJ_SQUARED;
    } else if (!strcmp(on, "reg:absoluteerror")) {
        c->objective = GV_OBJ_ABSOLUTE;
    } else if (!strcmp(on, "reg:pseudohubererror")) {
        c->objective = GV_OBJ_HUBER;
    } else {
        return gv_err(GROVE_ERR_MODEL, "%s: $.learner.objective.name: objective '%s' has no "
                      "grove counterpart (binary:logistic, binary:logitraw, multi:softprob, "
                      "multi:softmax, reg:squarederror, reg:absoluteerror, reg:pseudohubererror)",
                      c->source, on);
    }
    if (K == 0 && nc > 1)
        return gv_err(GROVE_ERR_MODEL, "%s: $.learner.learner_model_param.num_class: %.17g for "
                      "objective %s", c->source, nc, on);
    /* feature names and types, when the booster had them */
    const json_t *fn = json_object_get(learner, "feature_names");
    const json_t *ft = json_object_get(learner, "feature_types");
    size_t n_features = (size_t)nf;
    const char **names = NULL;
    if (json_is_array(fn) && json_array_size(fn) > 0) {
        if (json_array_size(fn) != n_features)
            return gv_err(GROVE_ERR_MODEL, "%s: $.learner.feature_names: expected %zu entries, "
                          "got %zu", c->source, n_features, json_array_size(fn));
        if (!(names = gv_calloc(n_features, sizeof *names))) return gv_err_nomem("the features");
        for (size_t f = 0; f < n_features; f++) {
            names[f] = json_string_value(json_array_get(fn, f));
            if (!names[f] || !names[f][0]) {
                gv_free(names);
                return gv_err(GROVE_ERR_MODEL, "%s: $.learner.feature_names[%zu]: expected a "
                              "non-empty string", c->source, f);
            }
        }
    }
    st = gv_conv_features(c, n_features, names);
    gv_free(names);
    if (st != GROVE_OK || (st = gv_conv_classes(c, K)) != GROVE_OK) return st;
    if (json_is_array(ft) && json_array_size(ft) == n_features)
        for (size_t f = 0; f < n_features; f++) {
            const char *s = json_string_value(json_array_get(ft, f));
            if (s && !strcmp(s, "c")) c->is_cat[f] = 1;
        }
    c->kind = CV_GBDT;
    c->n_out = 1;
    c->learning_rate = 1.0;
    c->n_groups = c->objective == GV_OBJ_SOFTMAX ? (size_t)K : 1;
    if (!(c->base = gv_malloc_array(c->n_groups, sizeof *c->base))) return gv_err_nomem("the model");
    for (size_t g = 0; g < c->n_groups; g++) c->base[g] = base_score;

    const json_t *trees = jget(c, model, "trees", JSON_ARRAY, mpath, &st);
    const json_t *info = trees ? jarray(c, model, "tree_info", json_array_size(trees), mpath, &st) : NULL;
    if (!info) return st;
    size_t n = json_array_size(trees);
    if (n == 0) return gv_err(GROVE_ERR_MODEL, "%s: %s.trees: no trees", c->source, mpath);
    if (weight_drop && json_array_size(weight_drop) != n)
        return gv_err(GROVE_ERR_MODEL, "%s: $.learner.gradient_booster.weight_drop: expected %zu "
                      "entries, got %zu", c->source, n, json_array_size(weight_drop));
    /* grove's gbdt holds one tree per group a round, round-major: each group's trees in order,
     * padded with zero leaves where a group has fewer (num_parallel_tree, or a hand-made file) */
    size_t *count = gv_calloc(c->n_groups, sizeof *count), *grp = gv_calloc(n, sizeof *grp);
    if (!count || !grp) {
        gv_free(count);
        gv_free(grp);
        return gv_err_nomem("the trees");
    }
    size_t rounds = 0;
    for (size_t t = 0; t < n && st == GROVE_OK; t++) {
        int64_t g;
        st = jint_at(c, info, t, mpath, "tree_info", 0, (int64_t)c->n_groups - 1, &g);
        if (st == GROVE_OK) {
            grp[t] = (size_t)g;
            if (++count[g] > rounds) rounds = count[g];
        }
    }
    /* padding at most doubles the trees (an honest file has as many trees in every group) */
    if (st == GROVE_OK && rounds * c->n_groups > 2 * n)
        st = gv_err(GROVE_ERR_MODEL, "%s: %s.tree_info: %zu trees over %zu output groups, %zu "
                    "in one of them; the groups must hold about as many trees each", c->source,
                    mpath, n, c->n_groups, rounds);
    if (st == GROVE_OK && (st = gv_conv_trees(c, rounds * c->n_groups)) == GROVE_OK) {
        for (size_t g = 0; g < c->n_groups; g++) count[g] = 0;
        for (size_t t = 0; t < n && st == GROVE_OK; t++) {
            size_t slot = count[grp[t]]++ * c->n_groups + grp[t];
            char path[128];
            snprintf(path, sizeof path, "%s.trees[%zu]", mpath, t);
            st = xgb_tree(c, json_array_get(trees, t), path, n_features, slot);
            if (st == GROVE_OK && weight_drop) {
                double w;
                if ((st = jnum_at(c, weight_drop, t, "$.learner.gradient_booster", "weight_drop",
                                  &w)) == GROVE_OK)
                    for (size_t k = 0; k < c->trees[slot].n_nodes; k++) c->trees[slot].values[k] *= w;
            }
        }
        for (size_t t = 0; t < c->n_trees && st == GROVE_OK; t++)
            if (!c->trees[t].nodes) { /* padding: one leaf of value 0 */
                st = gv_conv_tree_alloc(&c->trees[t], 1, 1, 0);
                if (st == GROVE_OK) c->trees[t].nodes[0].kind = SN_LEAF;
            }
    }
    gv_free(count);
    gv_free(grp);
    return st;
}

/* ---------------------------------------------------------------------------------------------
 * scikit-learn tree dump (written by the Python package's grove.from_sklearn)
 * ------------------------------------------------------------------------------------------ */

static grove_status from_sklearn(conv *c, const json_t *doc)
{
    grove_status st = GROVE_OK;
    const json_t *fmt = jget(c, doc, "format", JSON_STRING, "$", &st);
    if (!fmt) return st;
    if (strcmp(json_string_value(fmt), "grove-sklearn-trees"))
        return gv_err(GROVE_ERR_MODEL, "%s: $.format: expected \"grove-sklearn-trees\", got "
                      "\"%s\"", c->source, json_string_value(fmt));
    const json_t *kind = jget(c, doc, "kind", JSON_STRING, "$", &st),
                 *nf = kind ? jget(c, doc, "n_features", JSON_INTEGER, "$", &st) : NULL,
                 *nc = nf ? jget(c, doc, "n_classes", JSON_INTEGER, "$", &st) : NULL,
                 *trees = nc ? jget(c, doc, "trees", JSON_ARRAY, "$", &st) : NULL;
    if (!trees) return st;
    json_int_t n_features = json_integer_value(nf), K = json_integer_value(nc);
    if (n_features < 1 || n_features > CV_MAX_FEATURES)
        return gv_err(GROVE_ERR_MODEL, "%s: $.n_features: must be in [1, %d], got %lld",
                      c->source, CV_MAX_FEATURES, (long long)n_features);
    if (K < 0 || K == 1 || K > 65536)
        return gv_err(GROVE_ERR_MODEL, "%s: $.n_classes: must be 0 or in [2, 65536], got %lld",
                      c->source, (long long)K);
    const char *k = json_string_value(kind);
    if ((st = gv_conv_features(c, (size_t)n_features, NULL)) != GROVE_OK ||
        (st = gv_conv_classes(c, (int)K)) != GROVE_OK)
        return st;
    size_t n = json_array_size(trees);
    if (n == 0) return gv_err(GROVE_ERR_MODEL, "%s: $.trees: no trees", c->source);
    if (!strcmp(k, "gbdt")) {
        const json_t *obj = jget(c, doc, "objective", JSON_STRING, "$", &st);
        const json_t *base = obj ? jget(c, doc, "base", JSON_ARRAY, "$", &st) : NULL;
        if (!base) return st;
        const char *o = json_string_value(obj);
        c->objective = !strcmp(o, "logistic") ? GV_OBJ_LOGISTIC : !strcmp(o, "softmax") ? GV_OBJ_SOFTMAX
                       : !strcmp(o, "squared") ? GV_OBJ_SQUARED : -1;
        if (c->objective < 0 || (c->objective == GV_OBJ_SQUARED) != (K == 0) ||
            (c->objective == GV_OBJ_LOGISTIC && K != 2))
            return gv_err(GROVE_ERR_MODEL, "%s: $.objective: '%s' does not fit n_classes %lld",
                          c->source, o, (long long)K);
        c->kind = CV_GBDT;
        c->n_out = 1;
        c->learning_rate = 1.0;
        c->n_groups = c->objective == GV_OBJ_SOFTMAX ? (size_t)K : 1;
        if (json_array_size(base) != c->n_groups)
            return gv_err(GROVE_ERR_MODEL, "%s: $.base: expected %zu entries, got %zu", c->source,
                          c->n_groups, json_array_size(base));
        if (n % c->n_groups)
            return gv_err(GROVE_ERR_MODEL, "%s: $.trees: %zu trees are not whole rounds of %zu",
                          c->source, n, c->n_groups);
        if (!(c->base = gv_malloc_array(c->n_groups, sizeof *c->base))) return gv_err_nomem("the model");
        for (size_t g = 0; g < c->n_groups; g++)
            if ((st = jnum_at(c, base, g, "$", "base", &c->base[g])) != GROVE_OK) return st;
    } else if (!strcmp(k, "forest") || !strcmp(k, "extra-trees") || !strcmp(k, "tree")) {
        c->kind = !strcmp(k, "tree") ? CV_TREE : CV_BAGGING;
        c->mode = !strcmp(k, "extra-trees") ? "extra-trees" : "forest";
        c->vote = K ? "soft" : "mean";
        c->n_out = K ? (int)K : 1;
        if (c->kind == CV_TREE && n != 1)
            return gv_err(GROVE_ERR_MODEL, "%s: $.trees: a tree model has one tree, got %zu",
                          c->source, n);
    } else {
        return gv_err(GROVE_ERR_MODEL, "%s: $.kind: expected \"gbdt\", \"forest\", "
                      "\"extra-trees\" or \"tree\", got \"%s\"", c->source, k);
    }
    if ((st = gv_conv_trees(c, n)) != GROVE_OK) return st;
    for (size_t t = 0; t < n; t++) {
        char path[64];
        snprintf(path, sizeof path, "$.trees[%zu]", t);
        const json_t *tj = json_array_get(trees, t);
        const json_t *L = jarray(c, tj, "left", SIZE_MAX, path, &st);
        size_t nn = L ? json_array_size(L) : 0;
        if (L && nn == 0) return gv_err(GROVE_ERR_MODEL, "%s: %s.left: no nodes", c->source, path);
        const json_t *R = L ? jarray(c, tj, "right", nn, path, &st) : NULL,
                     *F = R ? jarray(c, tj, "feature", nn, path, &st) : NULL,
                     *T = F ? jarray(c, tj, "threshold", nn, path, &st) : NULL,
                     *V = T ? jarray(c, tj, "value", nn * (size_t)c->n_out, path, &st) : NULL,
                     *W = V ? jarray(c, tj, "weight", nn, path, &st) : NULL,
                     *N = W ? jarray(c, tj, "count", nn, path, &st) : NULL,
                     *G = N ? jarray(c, tj, "gain", nn, path, &st) : NULL;
        if (!G) return st;
        /* optional: where NaN goes (HistGradientBoosting); left when absent */
        const json_t *DL = json_object_get(tj, "default_left");
        if (DL && !(DL = jarray(c, tj, "default_left", nn, path, &st))) return st;
        src_tree *s = &c->trees[t];
        s->group = c->kind == CV_GBDT ? t % c->n_groups : 0;
        if ((st = gv_conv_tree_alloc(s, nn, c->n_out, 0)) != GROVE_OK) return st;
        for (size_t i = 0; i < nn * (size_t)c->n_out; i++)
            if ((st = jnum_at(c, V, i, path, "value", &s->values[i])) != GROVE_OK) return st;
        for (size_t i = 0; i < nn; i++) {
            src_node *sn = &s->nodes[i];
            int64_t l, r, f;
            if ((st = jint_at(c, L, i, path, "left", -1, (int64_t)nn - 1, &l)) != GROVE_OK ||
                (st = jint_at(c, R, i, path, "right", -1, (int64_t)nn - 1, &r)) != GROVE_OK ||
                (st = jnum_at(c, W, i, path, "weight", &sn->weight)) != GROVE_OK ||
                (st = jnum_at(c, N, i, path, "count", &sn->count)) != GROVE_OK ||
                (st = jnum_at(c, G, i, path, "gain", &sn->gain)) != GROVE_OK)
                return st;
            if (sn->count < 0) sn->count = 0;
            if ((l == -1) != (r == -1))
                return gv_err(GROVE_ERR_MODEL, "%s: %s: node %zu has one child", c->source, path, i);
            if (l == -1) {
                sn->kind = SN_LEAF;
                continue;
            }
            if ((st = jint_at(c, F, i, path, "feature", 0, n_features - 1, &f)) != GROVE_OK ||
                (st = jnum_at(c, T, i, path, "threshold", &sn->thr)) != GROVE_OK)
                return st;
            sn->kind = SN_NUM;
            sn->feature = (int32_t)f;
            sn->left = l;
            sn->right = r;
            sn->cmp = CMP_LE;
            sn->missing = MISS_NAN;
            sn->default_left = 1;
            if (DL) {
                int64_t dl;
                if ((st = jint_at(c, DL, i, path, "default_left", 0, 1, &dl)) != GROVE_OK) return st;
                sn->default_left = (int)dl;
            }
        }
    }
    return GROVE_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Entry points
 * ------------------------------------------------------------------------------------------ */

/* XGBoost writes NaN (a categorical split's condition) and infinities as bare words, which
 * JSON does not have: a copy of the text with each such word outside strings as null (so a
 * number read there is refused by name).  NULL when out of memory. */
static char *json_nan_to_null(const char *t, size_t len, size_t *out_len)
{
    static const char *const words[] = {"-Infinity", "Infinity", "-NaN", "NaN", "-inf", "inf",
                                        "-nan", "nan"};
    /* each word becomes at most a third longer ("NaN" -> "null") */
    char *o = gv_malloc(len + len / 3 + 2);
    if (!o) return NULL;
    size_t n = 0;
    int in_str = 0;
    for (size_t i = 0; i < len;) {
        char ch = t[i];
        if (in_str) {
            o[n++] = t[i++];
            if (ch == '\\' && i < len) o[n++] = t[i++];
            else if (ch == '"') in_str = 0;
            continue;
        }
        size_t w = 0;
        for (size_t k = 0; k < GV_COUNT(words) && !w; k++) {
            size_t wl = strlen(words[k]);
            if (wl <= len - i && !memcmp(t + i, words[k], wl)) w = wl;
        }
        if (w) {
            memcpy(o + n, "null", 4);
            n += 4;
            i += w;
        } else {
            in_str = ch == '"';
            o[n++] = t[i++];
        }
    }
    o[n] = '\0';
    *out_len = n;
    return o;
}

static grove_status convert_text(const char *from, const char *text, size_t len,
                                 const char *source, grove_model **out)
{
    conv c = {0};
    c.source = source;
    grove_status st;
    if (!strcmp(from, "lightgbm")) {
        st = gv_conv_from_lightgbm(&c, text, len);
    } else {
        json_error_t je;
        size_t clen = 0;
        char *clean = len ? json_nan_to_null(text, len, &clen) : NULL;
        if (len && !clean) return gv_err_nomem(source);
        json_t *doc = len ? json_loadb(clean, clen, JSON_REJECT_DUPLICATES, &je) : NULL;
        gv_free(clean);
        if (!doc) {
            st = len == 0 ? gv_err(GROVE_ERR_MODEL, "%s: empty file", source)
                 : gv_json_load_nomem(&je) ? gv_err(GROVE_ERR_NOMEM, "%s: out of memory while parsing", source)
                 : gv_err(GROVE_ERR_MODEL, "%s:%d:%d: %s", source, je.line, je.column, je.text);
            return st;
        }
        st = !strcmp(from, "xgboost") ? from_xgboost(&c, doc) : from_sklearn(&c, doc);
        json_decref(doc);
    }
    if (st == GROVE_OK) st = conv_finish(&c, out);
    conv_free(&c);
    return st;
}

static grove_status check_from(const char *fn, const char *from)
{
    if (!from || (strcmp(from, "xgboost") && strcmp(from, "lightgbm") && strcmp(from, "sklearn")))
        return gv_err(GROVE_ERR_ARG, "%s: from must be \"xgboost\", \"lightgbm\" or \"sklearn\", "
                      "got %s%s%s", fn, from ? "'" : "", from ? from : "NULL", from ? "'" : "");
    return GROVE_OK;
}

grove_status grove_model_convert(const char *from, const char *path, grove_model **out)
{
    gv_err_clear();
    if (!out) return gv_err(GROVE_ERR_ARG, "grove_model_convert: out is NULL");
    *out = NULL;
    if (!path) return gv_err(GROVE_ERR_ARG, "grove_model_convert: path is NULL");
    grove_status st = check_from("grove_model_convert", from);
    if (st != GROVE_OK) return st;
    char *data;
    size_t len, mapped;
    if ((st = gv_read_file(path, 1, &data, &len, &mapped)) != GROVE_OK) return st;
    unsigned long failed = gv_alloc_failures();
    st = gv_nomem_if_failed(convert_text(from, data, len, path, out), failed, path);
    gv_text_free(data, mapped);
    return st;
}

grove_status grove_model_convert_buffer(const char *from, const char *data, size_t len,
                                        grove_model **out)
{
    gv_err_clear();
    if (!out) return gv_err(GROVE_ERR_ARG, "grove_model_convert_buffer: out is NULL");
    *out = NULL;
    if (!data && len > 0) return gv_err(GROVE_ERR_ARG, "grove_model_convert_buffer: data is NULL");
    grove_status st = check_from("grove_model_convert_buffer", from);
    if (st != GROVE_OK) return st;
    unsigned long failed = gv_alloc_failures();
    return gv_nomem_if_failed(convert_text(from, data ? data : "", len, "<buffer>", out), failed,
                              "<buffer>");
}
