/*
 * export.c -- a trained model as one standalone C99 source file (`grove export --lang c`).
 *
 * Pipeline position: model/ (walks the component tree of a grove_model; the CLI writes the text).
 * The generated file depends on libm only.  It defines, with a caller-chosen prefix P:
 *   void P_predict(const float *x, double *out);          one row, n_features floats
 *   void P_predict_double(const double *x, double *out);  the same, each value rounded to float
 *   void P_predict_batch(const float *x, size_t n_rows, double *out);     row-major rows
 *   void P_predict_batch_double(const double *x, size_t n_rows, double *out);
 * writing n_outputs doubles per row: class probabilities, or the regression value.
 *
 * Exactness: grove stores raw values as floats (a double becomes (float)x when data is loaded),
 * walks trees on them, and sums in a fixed order.  The generated code mirrors each component's
 * predict_row (tree_predict.c, boost.c, bagging.c, gbdt.c, filter.c, confidence.c,
 * stacking.c's voting, linear.c, perceptron.c, logistic.c) operation for operation, in the same
 * order, with every constant written so that it reads back to the same float or double
 * (%.9g for floats, %.17g for doubles); constants the library computes from the model (the
 * softmax scale of a boosting variant) are computed here with the same operations.  So its
 * outputs equal grove_model_predict's bit for bit (tests/test_export.c checks every supported
 * algorithm on the public datasets).  The generated code must be compiled without
 * -ffast-math (which would let the compiler reorder the sums).
 *
 * The component tree becomes one static function per component, `static void cN(const float *x,
 * double *out)`, members before the ensembles that call them (the component tree:
 * docs/model-format.md, "Components").  Trees take one of two forms, chosen by the model's
 * total node count (or by the caller):
 *   code   one function per tree, one line per node (`nK: if (x[f] <= t) goto nL; goto nR;`)
 *          with the feature's name in a comment: readable, fastest for small models;
 *   table  every node of the model in one static table, walked by one loop: compiles in
 *          seconds where a million lines of code would take minutes.
 * Not exported (refused with a message naming what is missing): mlp (no exporter for its
 * network yet), also inside an ensemble (bagging of networks, stacking with an mlp member).
 */
#include "model.h"

#include "../data/dataset.h"
#include "../ensemble/ensemble.h"
#include "../learn/linear.h"
#include "../loss/loss.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Models with more nodes than this get the table form in auto mode. */
#define CODE_MAX_NODES 20000

typedef struct gen {
    const grove_model *m;
    const grove_schema *schema; /* names the features of the component being written (a
                                   stacking meta-learner reads the meta row) */
    const char *prefix;
    int table;       /* 1: trees in one node table */
    gv_buf body;     /* tree functions, member tables and component functions */
    gv_buf nodes;    /* table form: the node table's entries */
    gv_buf values;   /* table form: the leaf value table's entries */
    gv_buf cats;     /* table form: category bitsets and child maps */
    size_t n_nodes, n_values, n_cats; /* entries so far in each table */
    size_t n_trees, n_comps;          /* trees and components emitted so far */
    int has_cat;     /* some tree has a categorical split */
    int has_block;   /* a gbdt in table form wrote cBLOCK_block, a blocked batch predictor */
    size_t block_id;
    int nomem;
} gen;

/* ---- text helpers ---- */

static void out(gv_buf *b, gen *g, const char *fmt, ...) GV_PRINTF(3, 4);
static void out(gv_buf *b, gen *g, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        g->nomem = 1;
        return;
    }
    if ((size_t)n < sizeof small) {
        if (gv_buf_append(b, small, (size_t)n) != 0) g->nomem = 1;
        return;
    }
    char *big = gv_malloc((size_t)n + 1);
    if (!big) {
        g->nomem = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    if (gv_buf_append(b, big, (size_t)n) != 0) g->nomem = 1;
    gv_free(big);
}

/* A double literal that reads back to exactly x (x finite): %.17g with a '.' or exponent. */
static void dlit(double x, char *buf)
{
    snprintf(buf, 40, "%.17g", x);
    if (!strpbrk(buf, ".eEni")) strcat(buf, ".0");
}

/* A float literal that reads back to exactly x (x finite): %.9g, then 'f'. */
static void flit(float x, char *buf)
{
    snprintf(buf, 40, "%.9g", (double)x);
    if (!strpbrk(buf, ".eEni")) strcat(buf, ".0");
    strcat(buf, "f");
}

/* A feature's name for a comment: no "*" followed by "/", no newline, at most 60 bytes. */
static void cname(const char *s, char *buf)
{
    size_t j = 0;
    for (size_t i = 0; s[i] && j < 60; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 32 || c == 127) c = ' ';
        if (c == '/' && j > 0 && buf[j - 1] == '*') c = ' ';
        if (c == '*' && s[i + 1] == '/') c = ' ';
        buf[j++] = (char)c;
    }
    if (s[0] && j == 60) buf[j - 1] = '.';
    buf[j] = '\0';
}

/* A list of n doubles as initializer entries, 4 per line. */
static void dlist(gv_buf *b, gen *g, const double *v, size_t n)
{
    char lit[48];
    for (size_t i = 0; i < n; i++) {
        dlit(v[i], lit);
        out(b, g, "%s%s,", i % 4 == 0 ? "\n    " : " ", lit);
    }
    if (n == 0) out(b, g, "\n    0.0");
    out(b, g, "\n");
}

/* ---- trees ---- */

/* A tree, emitted: how to reach its leaf and its values from a component function. */
typedef struct tree_ref {
    size_t id;
    int n_outputs;
    size_t node_off, value_off, cat_off; /* table form: offsets into N, V, C */
} tree_ref;

/* "treeID(x)" or "walk(N + off, C + off, x)": an int expression, the leaf's node index. */
static void leaf_expr(const gen *g, const tree_ref *t, char *buf, size_t size)
{
    if (g->table)
        snprintf(buf, size, "walk(N + %zu, C + %zu, x)", t->node_off, t->cat_off);
    else
        snprintf(buf, size, "tree%zu(x)", t->id);
}

/* "treeID_value" or "(V + off)": a const double * expression, the node-major values. */
static void values_expr(const gen *g, const tree_ref *t, char *buf, size_t size)
{
    if (g->table)
        snprintf(buf, size, "(V + %zu)", t->value_off);
    else
        snprintf(buf, size, "tree%zu_value", t->id);
}

static const char *side_comment(int default_left) { return default_left ? "left" : "right"; }

/* The code form: one goto per node.  NUM: x <= t goes left, NaN to the default side, which is
 * `!(x > t)` when the default is left.  Categorical nodes call cat_code() (raw_code of
 * tree_predict.c) and test a bitset or switch over the child map. */
static void emit_tree_code(gen *g, const gv_tree *t, tree_ref *ref)
{
    const grove_schema *s = g->schema;
    gv_buf *b = &g->body;
    char lit[48], nm[64];
    out(b, g, "\n/* tree %zu: %zu nodes, %zu leaves, depth %d */\n", ref->id, t->n_nodes,
        gv_tree_n_leaves(t), gv_tree_depth(t));
    out(b, g, "static UNUSED const double tree%zu_value[%zu] = {", ref->id,
        t->n_nodes * (size_t)t->n_outputs);
    dlist(b, g, t->values, t->n_nodes * (size_t)t->n_outputs);
    out(b, g, "};\n");
    out(b, g, "static NOINLINE int tree%zu(const float *x)\n{\n    (void)x;\n", ref->id);
    for (size_t k = 0; k < t->n_nodes; k++) {
        const gv_tree_node *n = &t->nodes[k];
        if (k == 0)
            out(b, g, "    ");
        else
            out(b, g, "n%zu: ", k);
        if (n->type == GV_NODE_LEAF) {
            out(b, g, "return %zu;\n", k);
            continue;
        }
        size_t f = (size_t)n->feature;
        cname(s->feature_names[f], nm);
        if (n->type == GV_NODE_NUM) {
            flit(n->threshold, lit);
            if (n->default_left)
                out(b, g, "if (!(x[%zu] > %s)) goto n%d; else goto n%d; /* %s; missing: left */\n",
                    f, lit, n->left, n->right, nm);
            else
                out(b, g, "if (x[%zu] <= %s) goto n%d; else goto n%d; /* %s */\n", f, lit, n->left,
                    n->right, nm);
        } else if (n->type == GV_NODE_CAT_SET) {
            out(b, g, "{ static const unsigned long set[%u] = {", (unsigned)n->cat_len);
            for (uint32_t w = 0; w < n->cat_len; w++)
                out(b, g, "%s%luUL", w ? ", " : "", (unsigned long)t->cat_data[n->cat_begin + w]);
            out(b, g, "};\n        if (cat_in_set(x[%zu], set, %uu, %d)) goto n%d; else goto n%d; } "
                      "/* %s in a set; missing: %s */\n",
                f, (unsigned)n->cat_len, n->default_left, n->left, n->right, nm,
                side_comment(n->default_left));
        } else { /* CAT_MULTI */
            out(b, g, "switch (cat_code(x[%zu], %uu)) { /* %s: one child per category */\n", f,
                (unsigned)n->cat_len, nm);
            for (uint32_t c = 0; c < n->cat_len; c++) {
                uint32_t child = t->cat_data[n->cat_begin + c];
                if (child != UINT32_MAX) out(b, g, "        case %u: goto n%u;\n", c, child);
            }
            out(b, g, "        default: goto n%d; }\n", n->right);
        }
    }
    out(b, g, "}\n");
}

/* The table form: the tree's nodes, values and category words appended to N, V and C. */
static void emit_tree_table(gen *g, const gv_tree *t, tree_ref *ref)
{
    char lit[48];
    ref->node_off = g->n_nodes;
    ref->value_off = g->n_values;
    ref->cat_off = g->n_cats;
    out(&g->nodes, g, "    /* tree %zu */\n", ref->id);
    for (size_t k = 0; k < t->n_nodes; k++) {
        const gv_tree_node *n = &t->nodes[k];
        flit(n->type == GV_NODE_NUM ? n->threshold : 0.0f, lit);
        out(&g->nodes, g, "    {%d, %d, %d, %s, %d, %d, %uu, %uu},\n", (int)n->feature,
            (int)n->type, (int)n->default_left, lit, (int)n->left, (int)n->right,
            (unsigned)n->cat_begin, (unsigned)n->cat_len);
    }
    g->n_nodes += t->n_nodes;
    for (size_t k = 0; k < t->n_nodes * (size_t)t->n_outputs; k++) {
        dlit(t->values[k], lit);
        out(&g->values, g, "%s%s,", g->n_values % 4 == 0 ? "\n    " : " ", lit);
        g->n_values++;
    }
    for (size_t k = 0; k < t->n_cat_data; k++) {
        out(&g->cats, g, "%s%luUL,", g->n_cats % 8 == 0 ? "\n    " : " ",
            (unsigned long)t->cat_data[k]);
        g->n_cats++;
    }
}

static void emit_tree(gen *g, const gv_tree *t, tree_ref *ref)
{
    ref->id = g->n_trees++;
    ref->n_outputs = t->n_outputs;
    for (size_t k = 0; k < t->n_nodes; k++)
        if (t->nodes[k].type == GV_NODE_CAT_SET || t->nodes[k].type == GV_NODE_CAT_MULTI)
            g->has_cat = 1;
    if (g->table)
        emit_tree_table(g, t, ref);
    else
        emit_tree_code(g, t, ref);
}

/* ---- components ---- */

static grove_status emit_component(gen *g, const gv_component *c, size_t *id);

static size_t comp_outputs(const gen *g) { return g->m->n_outputs; }

/* Opens "static void cID(const float *x, double *out)" in the body. */
static size_t open_function(gen *g, const char *what)
{
    size_t id = g->n_comps++;
    out(&g->body, g, "\n/* %s */\nstatic void c%zu(const float *x, double *out)\n{\n", what, id);
    return id;
}

static grove_status emit_tree_component(gen *g, const gv_tree *t, size_t *id)
{
    tree_ref ref;
    emit_tree(g, t, &ref);
    char leaf[96], vals[64], what[64];
    leaf_expr(g, &ref, leaf, sizeof leaf);
    values_expr(g, &ref, vals, sizeof vals);
    snprintf(what, sizeof what, "a tree (tree %zu)", ref.id);
    *id = open_function(g, what);
    out(&g->body, g, "    const double *v = %s + %d * (size_t)%s;\n", vals, t->n_outputs, leaf);
    out(&g->body, g, "    int j;\n    for (j = 0; j < %d; j++) out[j] = v[j];\n}\n",
        t->n_outputs);
    return GROVE_OK;
}

/* Members first, into ids[n]. */
static grove_status emit_members(gen *g, const gv_component *members, size_t n, size_t *ids)
{
    for (size_t t = 0; t < n; t++) {
        grove_status st = emit_component(g, &members[t], &ids[t]);
        if (st != GROVE_OK) return st;
    }
    return GROVE_OK;
}

static grove_status emit_boost(gen *g, const gv_boost_view *v, size_t *id)
{
    const size_t T = v->n_members, K = v->n_classes ? (size_t)v->n_classes : 1;
    size_t *ids = gv_malloc_array(T ? T : 1, sizeof *ids);
    tree_ref *plaus_tree = gv_calloc(T ? T : 1, sizeof *plaus_tree);
    if (!ids || !plaus_tree) {
        gv_free(ids);
        gv_free(plaus_tree);
        return gv_err_nomem("export");
    }
    grove_status st = GROVE_OK;
    char lit[48], buf[96];
    const int m2 = !strcmp(v->variant, "adaboost.m2");
    /* adaboost.m2 tree members answer with per-leaf plausibilities instead of their values */
    for (size_t t = 0; t < T && st == GROVE_OK; t++) {
        if (m2 && v->plaus && v->plaus[t]) {
            const gv_tree *tr = v->members[t].impl;
            emit_tree(g, tr, &plaus_tree[t]);
            ids[t] = SIZE_MAX;
            out(&g->body, g, "static const double tree%zu_plaus[%zu] = {", plaus_tree[t].id,
                tr->n_nodes * K);
            dlist(&g->body, g, v->plaus[t], tr->n_nodes * K);
            out(&g->body, g, "};\n");
        } else {
            st = emit_component(g, &v->members[t], &ids[t]);
        }
    }
    if (st != GROVE_OK) goto done;
    char what[96];
    snprintf(what, sizeof what, "%s, %zu members", v->variant, T);
    *id = open_function(g, what);
    gv_buf *b = &g->body;
    if (!strcmp(v->variant, "adaboost.r2")) {
        /* the weighted median of the members' values with weights alpha_t (boost.c) */
        out(b, g, "    wv a[%zu];\n", T);
        for (size_t t = 0; t < T; t++) {
            dlit(v->alpha[t], lit);
            out(b, g, "    c%zu(x, &a[%zu].v); a[%zu].w = %s;\n", ids[t], t, t, lit);
        }
        out(b, g, "    out[0] = weighted_median(a, %zu);\n}\n", T);
        goto done;
    }
    out(b, g, "    double h[%zu], s[%zu];\n    size_t c;\n", K, K);
    out(b, g, "    for (c = 0; c < %zu; c++) s[c] = 0;\n", K);
    for (size_t t = 0; t < T; t++) {
        dlit(v->alpha[t], lit);
        if (ids[t] == SIZE_MAX) {
            leaf_expr(g, &plaus_tree[t], buf, sizeof buf);
            out(b, g, "    { const double *p = tree%zu_plaus + %zu * (size_t)%s;\n"
                      "      for (c = 0; c < %zu; c++) h[c] = p[c]; }\n",
                plaus_tree[t].id, K, buf, K);
        } else {
            out(b, g, "    c%zu(x, h);\n", ids[t]);
        }
        if (m2)
            out(b, g, "    for (c = 0; c < %zu; c++) s[c] += %s * h[c];\n", K, lit);
        else if (!strcmp(v->variant, "samme.r"))
            out(b, g, "    samme_r_add(h, %zu, %s, s);\n", K, lit);
        else
            out(b, g, "    s[argmax(h, %zu)] += %s;\n", K, lit);
    }
    /* the softmax scale of the variant (boost.c's scores_to_proba), computed alike */
    double kk = (double)K, scale = 1;
    if (!strcmp(v->variant, "adaboost")) {
        scale = 2;
    } else if (!strcmp(v->variant, "adaboost.m1") || !strcmp(v->variant, "samme")) {
        scale = kk / ((kk - 1) * (kk - 1));
    } else if (!strcmp(v->variant, "samme.r")) {
        scale = 1 / (kk - 1);
    } else if (m2) {
        double z = 0;
        for (size_t t = 0; t < T; t++) z += fabs(v->alpha[t]);
        scale = z > 0 ? 1 / z : 1;
    }
    dlit(scale, lit);
    out(b, g, "    softmax_scaled(s, %zu, %s, out);\n}\n", K, lit);
done:
    gv_free(ids);
    gv_free(plaus_tree);
    return st;
}

static grove_status emit_bagging(gen *g, const gv_bagging_view *v, size_t *id)
{
    const size_t T = v->n_members, K = comp_outputs(g);
    size_t *ids = gv_malloc_array(T ? T : 1, sizeof *ids);
    if (!ids) return gv_err_nomem("export");
    grove_status st = emit_members(g, v->members, T, ids);
    if (st == GROVE_OK) {
        char what[96];
        snprintf(what, sizeof what, "%s, %zu members, %s vote", v->mode, T, v->vote);
        *id = open_function(g, what);
        gv_buf *b = &g->body;
        const int hard = !strcmp(v->vote, "hard");
        out(b, g, "    double h[%zu];\n    size_t c;\n", K);
        out(b, g, "    for (c = 0; c < %zu; c++) out[c] = 0;\n", K);
        for (size_t t = 0; t < T; t++) {
            if (hard)
                out(b, g, "    c%zu(x, h); out[argmax(h, %zu)] += 1;\n", ids[t], K);
            else
                out(b, g, "    c%zu(x, h); for (c = 0; c < %zu; c++) out[c] += h[c];\n", ids[t],
                    K);
        }
        out(b, g, "    for (c = 0; c < %zu; c++) out[c] /= %zu.0;\n}\n", K, T);
    }
    gv_free(ids);
    return st;
}

static grove_status emit_gbdt(gen *g, const gv_gbdt_view *v, size_t *id)
{
    const size_t G = v->n_groups, R = v->n_rounds, n = R * G;
    tree_ref *refs = gv_malloc_array(n ? n : 1, sizeof *refs);
    if (!refs) return gv_err_nomem("export");
    for (size_t k = 0; k < n; k++) emit_tree(g, v->trees[k], &refs[k]);
    char what[96], lit[48], leaf[96], vals[64];
    gv_buf *b = &g->body;
    const size_t me = g->n_comps; /* the id open_function gives below */
    /* the scores F_g -> the outputs (gbdt.c's scores_to_outputs) */
    out(b, g, "\n/* gbdt: scores -> outputs */\nstatic void c%zu_out(const double *s, double *out)\n{\n",
        me);
    if (gv_objective_c_outputs(v->obj, G, b) != 0) g->nomem = 1;
    out(b, g, "}\n");
    snprintf(what, sizeof what, "gbdt, objective %s, %zu rounds x %zu trees", v->objective, R, G);
    *id = open_function(g, what);
    /* F_g = base_g + the trees of group g in round order (gbdt.c) */
    out(b, g, "    double s[%zu];\n", G);
    for (size_t gr = 0; gr < G; gr++) {
        dlit(v->base[gr], lit);
        out(b, g, "    s[%zu] = %s;\n", gr, lit);
    }
    for (size_t t = 0; t < R; t++)
        for (size_t gr = 0; gr < G; gr++) {
            const tree_ref *r = &refs[t * G + gr];
            leaf_expr(g, r, leaf, sizeof leaf);
            values_expr(g, r, vals, sizeof vals);
            out(b, g, "    s[%zu] += %s[%s];\n", gr, vals, leaf);
        }
    out(b, g, "    c%zu_out(s, out);\n}\n", me);
    if (g->table) {
        /* blocks of rows walk each tree in turn while it is in cache (as gbdt.c's blocked
         * predictor does); every row's sums still run over the trees in round order */
        out(b, g, "\n/* tree k of the gbdt: its nodes, values and category words start at "
                  "N + c%zu_tree[3k], V + c%zu_tree[3k + 1], C + c%zu_tree[3k + 2] */\n"
                  "static const size_t c%zu_tree[%zu] = {",
            me, me, me, me, 3 * (n ? n : 1));
        for (size_t k = 0; k < n; k++)
            out(b, g, "%s%zu, %zu, %zu,", k % 4 == 0 ? "\n    " : " ", refs[k].node_off,
                refs[k].value_off, refs[k].cat_off);
        if (n == 0) out(b, g, "0, 0, 0");
        out(b, g, "\n};\n");
        out(b, g, "static UNUSED void c%zu_block(const float *x, size_t n_rows, double *out)\n{\n"
                  "    double s[64 * %zu];\n    size_t i0, r, t, g;\n"
                  "    for (i0 = 0; i0 < n_rows; i0 += 64) {\n"
                  "        size_t nb = n_rows - i0 < 64 ? n_rows - i0 : 64;\n",
            me, G);
        for (size_t gr = 0; gr < G; gr++) {
            dlit(v->base[gr], lit);
            out(b, g, "        for (r = 0; r < nb; r++) s[r * %zu + %zu] = %s;\n", G, gr, lit);
        }
        out(b, g, "        for (t = 0; t < %zu; t++) {\n"
                  "            const node *tn = N + c%zu_tree[3 * t];\n"
                  "            const double *tv = V + c%zu_tree[3 * t + 1];\n"
                  "            const unsigned long *tc = C + c%zu_tree[3 * t + 2];\n"
                  "            g = t %% %zu;\n"
                  "            for (r = 0; r < nb; r++)\n"
                  "                s[r * %zu + g] += tv[walk(tn, tc, x + (i0 + r) * %zu)];\n"
                  "        }\n"
                  "        for (r = 0; r < nb; r++) c%zu_out(s + r * %zu, out + (i0 + r) * %zu);\n"
                  "    }\n}\n",
            n, me, me, me, G, G, g->schema->n_features, me, G, g->m->n_outputs);
        g->block_id = me;
        g->has_block = 1;
    }
    gv_free(refs);
    return GROVE_OK;
}

static grove_status emit_majority3(gen *g, const gv_majority3_view *v, size_t *id)
{
    size_t ids[3];
    grove_status st = emit_members(g, v->children, 3, ids);
    if (st != GROVE_OK) return st;
    const size_t K = (size_t)v->n_classes;
    *id = open_function(g, "filter-boost: the majority of three (filter.c)");
    gv_buf *b = &g->body;
    out(b, g, "    double h[%zu];\n    size_t c, v[3];\n    for (c = 0; c < %zu; c++) out[c] = 0;\n",
        K, K);
    for (int j = 0; j < 3; j++)
        out(b, g, "    c%zu(x, h); v[%d] = argmax(h, %zu);\n", ids[j], j, K);
    out(b, g, "    if (v[0] != v[1] && v[0] != v[2] && v[1] != v[2]) {\n"
              "        out[v[0]] = out[v[1]] = 0.25; /* three different votes: h3 decides */\n"
              "        out[v[2]] = 0.5;\n"
              "        return;\n"
              "    }\n"
              "    for (c = 0; c < 3; c++) out[v[c]] += 1.0 / 3.0;\n");
    out(b, g, "}\n");
    return GROVE_OK;
}

static grove_status emit_voting(gen *g, const gv_voting_view *v, size_t *id)
{
    const size_t L = v->n_members, K = v->n_classes ? (size_t)v->n_classes : 1;
    size_t *ids = gv_malloc_array(L ? L : 1, sizeof *ids);
    if (!ids) return gv_err_nomem("export");
    grove_status st = emit_members(g, v->members, L, ids);
    if (st == GROVE_OK) {
        *id = open_function(g, v->soft ? "voting (soft)" : "voting");
        gv_buf *b = &g->body;
        char lit[48];
        out(b, g, "    double h[%zu], wsum = 0;\n    size_t c;\n", K);
        out(b, g, "    for (c = 0; c < %zu; c++) out[c] = 0;\n", K);
        for (size_t l = 0; l < L; l++) {
            dlit(v->weights[l], lit);
            out(b, g, "    c%zu(x, h); wsum += %s;\n", ids[l], lit);
            if (!v->n_classes)
                out(b, g, "    out[0] += %s * h[0];\n", lit);
            else if (v->soft)
                out(b, g, "    for (c = 0; c < %zu; c++) out[c] += %s * h[c];\n", K, lit);
            else
                out(b, g, "    out[argmax(h, %zu)] += %s;\n", K, lit);
        }
        out(b, g, "    for (c = 0; c < %zu; c++) out[c] /= wsum;\n}\n", K);
    }
    gv_free(ids);
    return st;
}

/* Perceptron and logistic regression: linear.c's encoding and scores, then the kind's output. */
static grove_status emit_linear(gen *g, const gv_linear_model *lm, int logistic, size_t *id)
{
    const gv_linear_map *mp = &lm->map;
    const size_t F = mp->n_features, NV = lm->n_vec, K = (size_t)lm->n_classes;
    gv_buf *b = &g->body;
    size_t me = g->n_comps; /* the id open_function will give */
    out(b, g, "\n/* %s: feature map and weights */\n", logistic ? "logistic" : "perceptron");
    out(b, g, "static const double c%zu_mean[%zu] = {", me, F);
    dlist(b, g, mp->mean, F);
    out(b, g, "};\nstatic const double c%zu_std[%zu] = {", me, F);
    dlist(b, g, mp->std, F);
    out(b, g, "};\nstatic const double c%zu_coef[%zu] = {", me, NV * mp->dim);
    dlist(b, g, lm->coef, NV * mp->dim);
    out(b, g, "};\nstatic const double c%zu_intercept[%zu] = {", me, NV);
    dlist(b, g, lm->intercept, NV);
    out(b, g, "};\nstatic const unsigned char c%zu_is_cat[%zu] = {", me, F);
    for (size_t f = 0; f < F; f++) out(b, g, "%s%d", f ? ", " : "", mp->is_categorical[f]);
    out(b, g, "};\nstatic const size_t c%zu_offset[%zu] = {", me, F);
    for (size_t f = 0; f < F; f++) out(b, g, "%s%zu", f ? ", " : "", mp->offset[f]);
    out(b, g, "};\nstatic const size_t c%zu_width[%zu] = {", me, F);
    for (size_t f = 0; f < F; f++) out(b, g, "%s%zu", f ? ", " : "", mp->width[f]);
    out(b, g, "};\n");
    *id = open_function(g, logistic ? "logistic regression" : "perceptron");
    out(b, g, "    double z[%zu];\n    size_t f, k;\n", K);
    out(b, g, "    for (k = 0; k < %zu; k++) z[k] = 0;\n", NV);
    out(b, g, "    for (f = 0; f < %zu; f++) {\n", F);
    out(b, g, "        double v = lin_encode(c%zu_is_cat[f], c%zu_width[f], c%zu_mean[f], "
              "c%zu_std[f], x[f]);\n",
        me, me, me, me);
    out(b, g, "        for (k = 0; k < %zu; k++)\n            z[k] += lin_term(c%zu_is_cat[f], "
              "c%zu_offset[f], v, c%zu_coef + k * %zu);\n    }\n",
        NV, me, me, me, mp->dim);
    out(b, g, "    for (k = 0; k < %zu; k++) z[k] += c%zu_intercept[k];\n", NV, me);
    if (logistic)
        out(b, g, "    logistic_output(z, %zu, out);\n}\n", K);
    else
        out(b, g, "    { int c = perceptron_class(z, %zu);\n      for (k = 0; k < %zu; k++) "
                  "out[k] = (int)k == c; }\n}\n",
            K, K);
    return GROVE_OK;
}

/* Stacking (stacking.c): the members' outputs as floats into the meta row (after the raw
 * features with passthrough; two classes: P(class 1) only), then the meta-learner on that row,
 * or the linear combiner: intercept + sum of coef[c] * (x_c, or fill[c] when not finite). */
static grove_status emit_stacking(gen *g, const gv_stacking_view *v, size_t *id)
{
    const size_t L = v->n_members, K = v->n_classes ? (size_t)v->n_classes : 1;
    size_t *ids = gv_malloc_array(L ? L : 1, sizeof *ids);
    if (!ids) return gv_err_nomem("export");
    grove_status st = emit_members(g, v->members, L, ids);
    size_t meta = 0;
    if (st == GROVE_OK && v->meta) {
        const grove_schema *outer = g->schema;
        g->schema = v->meta_schema;
        st = emit_component(g, v->meta, &meta);
        g->schema = outer;
    }
    if (st == GROVE_OK) {
        *id = open_function(g, v->meta ? "stacking" : "stacking, linear combiner");
        gv_buf *b = &g->body;
        char lit[48];
        out(b, g, "    float row[%zu];\n    double p[%zu];\n", v->n_meta, K);
        if (v->passthrough)
            out(b, g, "    { size_t f; for (f = 0; f < %zu; f++) row[f] = x[f]; }\n", v->n_raw);
        for (size_t l = 0; l < L; l++) {
            size_t off = (v->passthrough ? v->n_raw : 0) + l * v->per;
            out(b, g, "    c%zu(x, p);", ids[l]);
            if (v->n_classes == 2)
                out(b, g, " row[%zu] = (float)p[1];\n", off);
            else
                for (size_t k = 0; k < v->per; k++)
                    out(b, g, "%s row[%zu] = (float)p[%zu];%s", k ? "   " : "", off + k, k,
                        k + 1 == v->per ? "\n" : "");
        }
        if (v->meta) {
            out(b, g, "    c%zu(row, out);\n}\n", meta);
        } else {
            int any = 0;
            for (size_t c = 0; c < v->n_meta; c++) any |= v->coef[c] != 0;
            dlit(v->intercept, lit);
            out(b, g, "    double v = %s%s;\n", lit, any ? ", xc" : "");
            for (size_t c = 0; c < v->n_meta; c++) {
                if (v->coef[c] == 0) continue;
                char fl[48];
                dlit(v->coef[c], lit);
                dlit(v->fill[c], fl);
                out(b, g, "    xc = (double)row[%zu]; v += %s * (isfinite(xc) ? xc : %s);\n", c,
                    lit, fl);
            }
            out(b, g, "    out[0] = v;\n}\n");
        }
    }
    gv_free(ids);
    return st;
}

static grove_status emit_component(gen *g, const gv_component *c, size_t *id)
{
    gv_stacking_view sv;
    if (gv_stacking_view_of(c, &sv)) return emit_stacking(g, &sv, id);
    gv_boost_view bv;
    gv_bagging_view bg;
    gv_gbdt_view gb;
    gv_majority3_view mj;
    gv_confidence_view cf;
    gv_voting_view vo;
    const gv_linear_model *lm;
    if (c->vt == &gv_tree_component) return emit_tree_component(g, c->impl, id);
    if (gv_boost_view_of(c, &bv)) return emit_boost(g, &bv, id);
    if (gv_bagging_view_of(c, &bg)) return emit_bagging(g, &bg, id);
    if (gv_gbdt_view_of(c, &gb)) return emit_gbdt(g, &gb, id);
    if (gv_majority3_view_of(c, &mj)) return emit_majority3(g, &mj, id);
    if (gv_confidence_view_of(c, &cf)) return emit_component(g, cf.chosen, id);
    if (gv_voting_view_of(c, &vo)) return emit_voting(g, &vo, id);
    if ((lm = gv_linear_model_of(c)) != NULL)
        return emit_linear(g, lm, c->vt == &gv_logistic_component, id);
    if (c->vt == &gv_mlp_component)
        return gv_err(GROVE_ERR_ARG,
                      "export: an mlp (neural network) component cannot be exported to C yet: "
                      "the exporter has no code for its layers (trees, tree ensembles, gbdt, "
                      "voting, stacking and the linear learners can be exported)");
    return gv_err(GROVE_ERR_ARG, "export: component kind '%s' cannot be exported to C",
                  c->vt->kind);
}

/* The total nodes of every tree in the component tree (to choose the form). */
static int add_nodes(void *ctx, const gv_walk_item *it)
{
    if (it->tree) *(size_t *)ctx += it->tree->n_nodes;
    return 0;
}

static size_t count_nodes(const gv_component *c)
{
    size_t n = 0;
    gv_component_walk(c, add_nodes, &n);
    return n;
}

/* ---- the fixed parts of the file ---- */

static void emit_header(gen *g, gv_buf *b, size_t n_tree_nodes, int header_file)
{
    const grove_model *m = g->m;
    const grove_schema *s = m->schema;
    const char *P = g->prefix;
    char nm[64];
    out(b, g, "/*\n * A grove model exported to standalone C99 by grove %s (`grove export --lang "
              "c`).\n",
        GROVE_VERSION_STRING);
    out(b, g, " * Algorithm: %s; %s; %zu features; %zu tree nodes (%s form).\n", m->algo,
        s->task == GROVE_CLASSIFICATION ? "classification" : "regression", s->n_features,
        n_tree_nodes, g->table ? "node table" : "one function per tree");
    if (header_file)
        out(b, g, " *\n * Entry points (defined in the C file exported with this header):\n");
    else
        out(b, g, " *\n * Entry points (declared in the header `grove export` writes beside this "
                  "file):\n");
    out(b, g, " *   void %s_predict(const float *x, double *out);\n", P);
    out(b, g, " *   void %s_predict_double(const double *x, double *out);\n", P);
    out(b, g, " *   void %s_predict_batch(const float *x, size_t n_rows, double *out);\n", P);
    out(b, g, " *   void %s_predict_batch_double(const double *x, size_t n_rows, double *out);\n",
        P);
    out(b, g, " * x: one row of %zu values (batch: n_rows rows, row-major), in this order:\n",
        s->n_features);
    if (s->feature_ids)
        out(b, g, " * (compact features: these are columns of %zu-wide data, the only ones the\n"
                  " * model reads; pass those values, each at its x[] position)\n", s->n_columns);
    for (size_t f = 0; f < s->n_features; f++) {
        cname(s->feature_names[f], nm);
        if (!s->is_categorical[f]) {
            if (s->feature_ids)
                out(b, g, " *   x[%zu] %s (numeric; column %lu of the data)\n", f, nm,
                    (unsigned long)s->feature_ids[f]);
            else
                out(b, g, " *   x[%zu] %s (numeric)\n", f, nm);
            continue;
        }
        out(b, g, " *   x[%zu] %s (categorical, the category's code:", f, nm);
        size_t nc = s->categories[f].n;
        for (size_t c = 0; c < nc && c < 12; c++) {
            cname(s->categories[f].names[c], nm);
            out(b, g, "%s %zu = \"%s\"", c ? "," : "", c, nm);
        }
        out(b, g, "%s)\n", nc > 12 ? ", ..." : "");
    }
    out(b, g, " * Missing values are NaN.  A categorical value that is not one of the codes "
              "above\n * (negative, fractional, too large) is treated as missing.\n");
    if (s->task == GROVE_CLASSIFICATION) {
        out(b, g, " * out: %zu class probabilities, in this order:", m->n_outputs);
        for (size_t c = 0; c < s->classes.n; c++) {
            cname(s->classes.names[c], nm);
            out(b, g, "%s \"%s\"", c ? "," : "", nm);
        }
        out(b, g, "\n * (the predicted class is the first largest).\n");
    } else {
        out(b, g, " * out: 1 value, the prediction.\n");
    }
    out(b, g, " * The outputs equal grove's (grove predict, grove_model_predict) bit for bit: "
              "grove reads\n * values as floats, so the double entry points round each value "
              "to float first.\n * Compile without -ffast-math (it reorders the sums); link with "
              "-lm.\n */\n");
    if (header_file) {
        /* the header: the same comment, the sizes and the prototypes, for C and C++ callers */
        out(b, g, "#ifndef %s_GROVE_EXPORT_H\n#define %s_GROVE_EXPORT_H\n\n#include <stddef.h>\n\n"
                  "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n", P, P);
        out(b, g, "#define %s_N_FEATURES %zu\n#define %s_N_OUTPUTS %zu\n\n", P, s->n_features, P,
            m->n_outputs);
        out(b, g, "void %s_predict(const float *x, double *out);\n", P);
        out(b, g, "void %s_predict_double(const double *x, double *out);\n", P);
        out(b, g, "void %s_predict_batch(const float *x, size_t n_rows, double *out);\n", P);
        out(b, g, "void %s_predict_batch_double(const double *x, size_t n_rows, double *out);\n",
            P);
        out(b, g, "\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
        return;
    }
    out(b, g, "#include <math.h>\n#include <stddef.h>\n#include <stdlib.h>\n\n");
    out(b, g, "#define %s_N_FEATURES %zu\n#define %s_N_OUTPUTS %zu\n\n", P, s->n_features, P,
        m->n_outputs);
    out(b, g, "void %s_predict(const float *x, double *out);\n", P);
    out(b, g, "void %s_predict_double(const double *x, double *out);\n", P);
    out(b, g, "void %s_predict_batch(const float *x, size_t n_rows, double *out);\n", P);
    out(b, g, "void %s_predict_batch_double(const double *x, size_t n_rows, double *out);\n", P);
}

/* Helpers every file gets (static; unused ones are marked so that -Wall stays quiet). */
static const char helpers_text[] =
    "\n/* NOINLINE: a tree function stays a function (inlining hundreds of trees into one makes\n"
    " * compilers take minutes) */\n"
    "#if defined(__GNUC__)\n#define UNUSED __attribute__((unused))\n"
    "#define NOINLINE __attribute__((noinline))\n#else\n#define UNUSED\n#define NOINLINE\n"
    "#endif\n"
    "\n/* The first largest of v[0..k) (ties to the lowest index). */\n"
    "static UNUSED size_t argmax(const double *v, size_t k)\n{\n"
    "    size_t best = 0, c;\n    for (c = 1; c < k; c++)\n        if (v[c] > v[best]) best = c;\n"
    "    return best;\n}\n"
    "\n/* out = softmax(scale * s) over k classes (out may be s). */\n"
    "static UNUSED void softmax_scaled(const double *s, size_t k, double scale, double *out)\n{\n"
    "    double mx = -INFINITY, z = 0;\n    size_t c;\n"
    "    for (c = 0; c < k; c++)\n        if (scale * s[c] > mx) mx = scale * s[c];\n"
    "    for (c = 0; c < k; c++) z += out[c] = exp(scale * s[c] - mx);\n"
    "    for (c = 0; c < k; c++) out[c] /= z;\n}\n"
    "\n/* SAMME.R: s_c += a (K - 1)(ln p_c - mean_j ln p_j), p clipped at 1e-10. */\n"
    "static UNUSED void samme_r_add(const double *h, size_t k, double a, double *s)\n{\n"
    "    double mean = 0;\n    size_t c;\n"
    "    for (c = 0; c < k; c++) mean += log(h[c] > 1e-10 ? h[c] : 1e-10);\n"
    "    mean /= (double)k;\n"
    "    for (c = 0; c < k; c++)\n"
    "        s[c] += a * (double)(k - 1) * (log(h[c] > 1e-10 ? h[c] : 1e-10) - mean);\n}\n"
    "\n/* Weighted median (Drucker 1997): the smallest value whose cumulative weight reaches half "
    "the total. */\n"
    "typedef struct wv { double v, w; } wv;\n"
    "static int cmp_wv(const void *a, const void *b)\n{\n"
    "    double x = ((const wv *)a)->v, y = ((const wv *)b)->v;\n    return (x > y) - (x < y);\n}\n"
    "static UNUSED double weighted_median(wv *a, size_t n)\n{\n"
    "    double total = 0, acc = 0;\n    size_t j;\n"
    "    qsort(a, n, sizeof *a, cmp_wv);\n"
    "    for (j = 0; j < n; j++) total += a[j].w;\n"
    "    for (j = 0; j < n; j++) {\n        acc += a[j].w;\n"
    "        if (acc >= 0.5 * total) return a[j].v;\n    }\n    return a[n - 1].v;\n}\n"
    "\n/* A linear model's encoded entry: (x - mean) / std for a numeric feature (0 when ignored,\n"
    " * missing or infinite), the code for a categorical one (-1 when missing or not a code). */\n"
    "static UNUSED double lin_encode(int is_cat, size_t width, double mean, double std, float x)\n"
    "{\n    double v;\n"
    "    if (is_cat) {\n"
    "        if (x >= 0 && (double)x < (double)width && x == (float)(size_t)x) return (double)x;\n"
    "        return -1;\n    }\n"
    "    v = (double)x;\n    if (!(std > 0) || !(v - v == 0)) return 0;\n"
    "    v = (v - mean) / std; /* within 1e150 standard deviations, as grove's */\n"
    "    return v > 1e150 ? 1e150 : v < -1e150 ? -1e150 : v;\n}\n"
    "static UNUSED double lin_term(int is_cat, size_t offset, double v, const double *w)\n{\n"
    "    if (is_cat) return v >= 0 ? w[offset + (size_t)v] : 0.0;\n    return v * w[offset];\n}\n"
    "\n/* The perceptron's class: two classes, 1 iff z > 0; else the first largest (NaN never "
    "wins). */\n"
    "static UNUSED int perceptron_class(const double *z, int k)\n{\n"
    "    int best = 0, j;\n    if (k == 2) return z[0] > 0;\n"
    "    while (best < k - 1 && isnan(z[best])) best++;\n"
    "    for (j = best + 1; j < k; j++)\n        if (z[j] > z[best]) best = j;\n"
    "    return best;\n}\n"
    "static UNUSED double lr_sigmoid(double t)\n{\n    double e;\n"
    "    if (t >= 0) return 1 / (1 + exp(-t));\n    e = exp(t);\n    return e / (1 + e);\n}\n"
    "/* Logistic regression's probabilities from its scores (finite whatever the scores). */\n"
    "static UNUSED void logistic_output(const double *z, int k, double *out)\n{\n"
    "    double m = -INFINITY, s = 0;\n    int j, nan = 0, n_inf = 0;\n"
    "    if (k == 2) {\n"
    "        if (isnan(z[0])) { out[0] = out[1] = 0.5; return; }\n"
    "        out[0] = lr_sigmoid(-z[0]);\n        out[1] = lr_sigmoid(z[0]);\n        return;\n"
    "    }\n"
    "    for (j = 0; j < k; j++) {\n        out[j] = z[j];\n        if (isnan(z[j])) nan = 1;\n"
    "        if (z[j] > m) m = z[j];\n    }\n"
    "    if (nan || m == -INFINITY) { for (j = 0; j < k; j++) out[j] = 1.0 / k; return; }\n"
    "    if (m == INFINITY) {\n        for (j = 0; j < k; j++) n_inf += out[j] == INFINITY;\n"
    "        for (j = 0; j < k; j++) out[j] = out[j] == INFINITY ? 1.0 / n_inf : 0;\n"
    "        return;\n    }\n"
    "    for (j = 0; j < k; j++) s += (out[j] = exp(out[j] - m));\n"
    "    for (j = 0; j < k; j++) out[j] /= s;\n}\n";

/* Categorical splits (tree_predict.c's raw_code and cat_child), emitted when a tree has one. */
static const char cat_text[] =
    "\n/* The category code of x if it is a whole number in [0, limit); else -1 (missing). */\n"
    "static long cat_code(float x, unsigned long limit)\n{\n    unsigned long c;\n"
    "    if (!(x >= 0.0f) || !((double)x < (double)limit)) return -1;\n"
    "    c = (unsigned long)x;\n    if ((float)c != x) return -1;\n    return (long)c;\n}\n"
    "/* 1: left.  Category c goes left iff bit c of the set is 1; missing or unknown codes go to\n"
    " * the default side. */\n"
    "static UNUSED int cat_in_set(float x, const unsigned long *set, unsigned n_words, int "
    "default_left)\n{\n"
    "    long c = cat_code(x, 4294967295UL);\n"
    "    if (c < 0 || (unsigned long)c >= (unsigned long)n_words * 32u) return default_left;\n"
    "    return (int)((set[(unsigned long)c / 32u] >> ((unsigned long)c % 32u)) & 1u);\n}\n";

/* The table form's node type and walk (tree_predict.c's gv_tree_leaf). */
static const char walk_text[] =
    "\n/* A tree node: type 0 leaf, 1 numeric (x <= threshold goes left), 2 category set, 3 one\n"
    " * child per category (right = the default child); missing values go to the default side. */\n"
    "typedef struct node {\n    int feature, type, default_left;\n    float threshold;\n"
    "    int left, right;\n    unsigned cat_begin, cat_len;\n} node;\n";

static const char walk_fn_text[] =
    "\n/* The leaf (node index) a row reaches in the tree whose nodes start at t. */\n"
    "static int walk(const node *t, const unsigned long *cats, const float *x)\n{\n"
    "    int k = 0;\n    (void)cats;\n"
    "    for (;;) {\n        const node *n = &t[k];\n        float v;\n"
    "        if (n->type == 0) return k;\n        v = x[n->feature];\n"
    "        if (n->type == 1) {\n"
    "            if (isnan(v)) k = n->default_left ? n->left : n->right;\n"
    "            else k = v <= n->threshold ? n->left : n->right;\n"
    "        } else if (n->type == 2) {\n"
    "            k = cat_in_set(v, cats + n->cat_begin, n->cat_len, n->default_left) ? n->left : "
    "n->right;\n"
    "        } else {\n            long c = cat_code(v, n->cat_len);\n"
    "            unsigned long child = c < 0 ? 4294967295UL : cats[n->cat_begin + (unsigned "
    "long)c];\n"
    "            k = child == 4294967295UL ? n->right : (int)child;\n        }\n    }\n}\n";

/* Appends buffer `from` (possibly empty: data NULL) to `to`. */
static void append_buf(gv_buf *to, const gv_buf *from, gen *g)
{
    if (from->len && gv_buf_append(to, from->data, from->len) != 0) g->nomem = 1;
}

grove_status gv_model_export_c(const grove_model *m, const char *prefix, int form, int header,
                               gv_buf *text)
{
    gen g;
    memset(&g, 0, sizeof g);
    g.m = m;
    g.schema = m->schema;
    g.prefix = prefix;
    size_t n_tree_nodes = count_nodes(&m->root);
    /* a model without trees (a linear learner) has no table to write */
    g.table = n_tree_nodes > 0 && (form == GV_EXPORT_TABLE ||
                                   (form == GV_EXPORT_AUTO && n_tree_nodes > CODE_MAX_NODES));
    size_t root = 0;
    grove_status st = GROVE_OK;
    if (header)
        emit_header(&g, text, n_tree_nodes, 1);
    else
        st = emit_component(&g, &m->root, &root);
    if (st == GROVE_OK && !g.nomem && !header) {
        const char *P = prefix;
        const size_t F = m->schema->n_features, K = m->n_outputs;
        emit_header(&g, text, n_tree_nodes, 0);
        out(text, &g, "%s", helpers_text);
        if (g.has_cat || g.table) out(text, &g, "%s", cat_text);
        if (g.table) {
            out(text, &g, "%s", walk_text);
            out(text, &g, "\n/* every node of the model's trees (tree by tree) */\n"
                          "static UNUSED const node N[%zu] = {\n",
                g.n_nodes ? g.n_nodes : 1);
            append_buf(text, &g.nodes, &g);
            out(text, &g, "%s};\n\n/* their values, node-major */\nstatic UNUSED const double V[%zu] = {",
                g.n_nodes ? "" : "    {0, 0, 0, 0.0f, 0, 0, 0u, 0u}\n", g.n_values ? g.n_values : 1);
            append_buf(text, &g.values, &g);
            out(text, &g, "%s\n};\n\n/* category sets and child maps */\nstatic const unsigned "
                          "long C[%zu] = {",
                g.n_values ? "" : "0.0", g.n_cats ? g.n_cats : 1);
            append_buf(text, &g.cats, &g);
            out(text, &g, "%s\n};\n", g.n_cats ? "" : "0UL");
            out(text, &g, "%s", walk_fn_text);
        }
        append_buf(text, &g.body, &g);
        out(text, &g, "\n/* ---- entry points ---- */\n");
        out(text, &g, "void %s_predict(const float *x, double *out)\n{\n    c%zu(x, out);\n}\n\n",
            P, root);
        out(text, &g, "void %s_predict_double(const double *x, double *out)\n{\n"
                      "    float r[%zu];\n    size_t j;\n"
                      "    for (j = 0; j < %zu; j++) r[j] = (float)x[j];\n    c%zu(r, out);\n}\n\n",
            P, F, F, root);
        if (g.has_block && g.block_id == root)
            out(text, &g, "void %s_predict_batch(const float *x, size_t n_rows, double *out)\n"
                          "{\n    c%zu_block(x, n_rows, out);\n}\n\n",
                P, root);
        else
            out(text, &g, "void %s_predict_batch(const float *x, size_t n_rows, double *out)\n{\n"
                          "    size_t i;\n    for (i = 0; i < n_rows; i++) c%zu(x + i * %zu, out + i * "
                          "%zu);\n}\n\n",
                P, root, F, K);
        out(text, &g, "void %s_predict_batch_double(const double *x, size_t n_rows, double *out)\n"
                      "{\n    size_t i;\n    for (i = 0; i < n_rows; i++) %s_predict_double(x + i * "
                      "%zu, out + i * %zu);\n}\n",
            P, P, F, K);
    }
    gv_buf_free(&g.body);
    gv_buf_free(&g.nodes);
    gv_buf_free(&g.values);
    gv_buf_free(&g.cats);
    if (st == GROVE_OK && g.nomem) st = gv_err_nomem("the exported C code");
    if (st != GROVE_OK) {
        gv_buf_free(text);
        memset(text, 0, sizeof *text);
    }
    return st;
}
