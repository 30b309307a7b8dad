/*
 * dump.c -- every tree of a model as text, JSON or CSV (grove_model_dump, `grove dump`), in
 * the spirit of XGBoost's dump_model / trees_to_dataframe and LightGBM's trees_to_dataframe.
 *
 * Pipeline position: model/ (walks the component tree with gv_component_walk, ensemble.h).
 * Trees are numbered 0, 1, ... in model order over every tree and every other member without
 * members (a linear model, a network); ensembles are described, not numbered.  Node ids are
 * the tree's own (the root is 0, children come after their parent).  A node sends row x to
 *   numeric      yes (left) when x <= split, else no; missing -> `missing` (tree.h);
 *   categorical  yes when x's category is one of the listed ones, else no; missing and
 *                categories the model never saw -> `missing`;
 *   multiway     the child named for x's category (id3); missing, unseen -> `missing`.
 * Leaves hold what the tree adds: gbdt a margin term (the row's margin in group g is the
 * model's base_score[g] plus the leaves its rows reach in the trees of group g), trees and
 * members of other ensembles their class probabilities (one value per class) or value.
 * Numbers are written in their shortest exact form (a threshold reads back to the float the
 * tree compares with), so walking the dump by hand reproduces the model's scores bit for bit.
 * gain: the split's gain as the tree stores it (impurity decrease; gbdt: XGBoost's loss_chg,
 * twice the Newton gain), cover: the training weight that reached the node (gbdt: the sum of
 * hessians), count: the training rows.
 */
#include "model_int.h"

#include "../data/dataset.h"
#include "../ensemble/ensemble.h"
#include "../learn/linear.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { DUMP_TEXT, DUMP_JSON, DUMP_CSV };

typedef struct dumper {
    const grove_model *m;
    int format;
    gv_buf b;
    size_t n_trees; /* trees and other members numbered so far */
    int nomem;
} dumper;

static void put(dumper *d, const char *fmt, ...) GV_PRINTF(2, 3);
static void put(dumper *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (gv_buf_vprintf(&d->b, fmt, ap) != 0) d->nomem = 1;
    va_end(ap);
}

static void num(dumper *d, double x)
{
    char buf[GROVE_DOUBLE_TEXT];
    gv_format_double(x, buf);
    put(d, "%s", buf);
}

/* A name as a JSON string, a CSV field (quoted when it holds , " CR or LF) or as it is. */
static void name(dumper *d, const char *s)
{
    if (d->format == DUMP_JSON) {
        put(d, "\"");
        for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
            if (*c == '"' || *c == '\\')
                put(d, "\\%c", *c);
            else if (*c < 0x20)
                put(d, "\\u%04x", *c);
            else
                put(d, "%c", *c);
        }
        put(d, "\"");
    } else if (d->format == DUMP_CSV && strpbrk(s, ",\"\r\n")) {
        put(d, "\"");
        for (const char *c = s; *c; c++) {
            if (*c == '"') put(d, "\"");
            put(d, "%c", *c);
        }
        put(d, "\"");
    } else {
        put(d, "%s", s);
    }
}

/* The values v[0..n): one number, or [a,b,...] (CSV: a;b;...). */
static void values(dumper *d, const double *v, size_t n)
{
    if (n == 1) {
        num(d, v[0]);
        return;
    }
    put(d, d->format == DUMP_CSV ? "" : "[");
    for (size_t k = 0; k < n; k++) {
        if (k) put(d, d->format == DUMP_CSV ? ";" : ",");
        num(d, v[k]);
    }
    put(d, d->format == DUMP_CSV ? "" : "]");
}

/* What the walk knows of the tree being written. */
typedef struct tree_ctx {
    const gv_walk_item *it;
    const grove_schema *s;
    const gv_tree *t;
    size_t id;
    double gain_scale; /* 2 for gbdt (XGBoost's units), else 1 */
} tree_ctx;

static const char *feature_name(const tree_ctx *tc, size_t k)
{
    return tc->s->feature_names[tc->t->nodes[k].feature];
}

static const char *category(const tree_ctx *tc, size_t k, size_t c)
{
    return tc->s->categories[tc->t->nodes[k].feature].names[c];
}

static size_t n_categories(const tree_ctx *tc, size_t k)
{
    return tc->s->categories[tc->t->nodes[k].feature].n;
}

/* The categories of a set split that go left (as the walk sends them: tree.h), separated by
 * `sep`; categories the set does not cover follow the missing side. */
static void left_categories(dumper *d, const tree_ctx *tc, size_t k, const char *sep)
{
    const gv_tree_node *n = &tc->t->nodes[k];
    int first = 1;
    for (size_t c = 0; c < n_categories(tc, k); c++) {
        if (gv_tree_child(tc->t, k, (float)c) != (size_t)n->left) continue;
        put(d, "%s", first ? "" : sep);
        name(d, category(tc, k, c));
        first = 0;
    }
}

/* The class a leaf of a classification tree predicts (argmax, ties to the lowest), else NULL. */
static const char *leaf_class(const tree_ctx *tc, size_t k)
{
    const grove_schema *s = tc->s;
    size_t K = (size_t)tc->t->n_outputs;
    if (K < 2 || s->task != GROVE_CLASSIFICATION || K != s->classes.n) return NULL;
    const double *v = tc->t->values + k * K;
    size_t best = 0;
    for (size_t c = 1; c < K; c++)
        if (v[c] > v[best]) best = c;
    return s->classes.names[best];
}

/* ---- text: XGBoost's dump format, one line per node, indented by depth ---- */

static void text_node(dumper *d, const tree_ctx *tc, size_t k)
{
    const gv_tree *t = tc->t;
    const gv_tree_node *n = &t->nodes[k];
    for (int i = 0; i < n->depth; i++) put(d, "\t");
    put(d, "%zu:", k);
    if (n->type == GV_NODE_LEAF) {
        put(d, "leaf=");
        values(d, t->values + k * (size_t)t->n_outputs, (size_t)t->n_outputs);
    } else {
        size_t miss = gv_tree_child(t, k, NAN);
        if (n->type == GV_NODE_NUM) {
            put(d, "[%s<=", feature_name(tc, k));
            num(d, (double)n->threshold);
            put(d, "] yes=%d,no=%d,missing=%zu", n->left, n->right, miss);
        } else if (n->type == GV_NODE_CAT_SET) {
            put(d, "[%s in {", feature_name(tc, k));
            left_categories(d, tc, k, ",");
            put(d, "}] yes=%d,no=%d,missing=%zu", n->left, n->right, miss);
        } else {
            put(d, "[%s] ", feature_name(tc, k));
            for (size_t c = 0; c < n_categories(tc, k); c++)
                put(d, "%s=%zu,", category(tc, k, c), gv_tree_child(t, k, (float)c));
            put(d, "missing=%zu", miss);
        }
        put(d, ",gain=");
        num(d, tc->gain_scale * n->gain);
    }
    put(d, ",cover=");
    num(d, n->weight);
    put(d, ",count=");
    num(d, n->count);
    put(d, "\n");
}

/* ---- json: one object per node, its children nested ---- */

static void json_node_open(dumper *d, const tree_ctx *tc, size_t k)
{
    const gv_tree *t = tc->t;
    const gv_tree_node *n = &t->nodes[k];
    put(d, "{\"nodeid\":%zu,\"depth\":%d,", k, (int)n->depth);
    if (n->type == GV_NODE_LEAF) {
        put(d, "\"leaf\":");
        values(d, t->values + k * (size_t)t->n_outputs, (size_t)t->n_outputs);
    } else {
        put(d, "\"split\":");
        name(d, feature_name(tc, k));
        if (n->type == GV_NODE_NUM) {
            put(d, ",\"split_condition\":");
            num(d, (double)n->threshold);
        } else if (n->type == GV_NODE_CAT_SET) {
            put(d, ",\"categories\":[");
            left_categories(d, tc, k, ",");
            put(d, "]");
        } else {
            put(d, ",\"category_children\":{");
            for (size_t c = 0; c < n_categories(tc, k); c++) {
                put(d, c ? "," : "");
                name(d, category(tc, k, c));
                put(d, ":%zu", gv_tree_child(t, k, (float)c));
            }
            put(d, "}");
        }
        if (n->type != GV_NODE_CAT_MULTI) put(d, ",\"yes\":%d,\"no\":%d", n->left, n->right);
        put(d, ",\"missing\":%zu,\"gain\":", gv_tree_child(t, k, NAN));
        num(d, tc->gain_scale * n->gain);
    }
    put(d, ",\"cover\":");
    num(d, n->weight);
    put(d, ",\"count\":");
    num(d, n->count);
}

/* The children of node k in order (a multiway split's distinct children, the default last). */
static size_t children(const gv_tree *t, size_t k, int32_t *out)
{
    const gv_tree_node *n = &t->nodes[k];
    if (n->type == GV_NODE_LEAF) return 0;
    if (n->type != GV_NODE_CAT_MULTI) {
        out[0] = n->left;
        out[1] = n->right;
        return 2;
    }
    size_t m = 0;
    for (uint32_t c = 0; c < n->cat_len; c++) {
        uint32_t ch = t->cat_data[n->cat_begin + c];
        int seen = ch == UINT32_MAX || ch == (uint32_t)n->right;
        for (size_t j = 0; j < m && !seen; j++) seen = out[j] == (int32_t)ch;
        if (!seen) out[m++] = (int32_t)ch;
    }
    out[m++] = n->right;
    return m;
}

/* The nested nodes, without recursion (a tree may be thousands of levels deep): the stack
 * holds what is left to write, a node to open (after a comma unless it is the first child) or
 * one to close. */
enum { OPEN_FIRST, OPEN_NEXT, CLOSE };
typedef struct json_step {
    int32_t node;
    int what;
} json_step;

static void json_tree(dumper *d, const tree_ctx *tc)
{
    const gv_tree *t = tc->t;
    size_t max_kids = 2;
    for (size_t k = 0; k < t->n_nodes; k++)
        if (t->nodes[k].type == GV_NODE_CAT_MULTI && t->nodes[k].cat_len + 1 > max_kids)
            max_kids = t->nodes[k].cat_len + 1;
    /* each node is pushed once to open and once to close */
    json_step *stack = gv_malloc_array(2 * t->n_nodes + 1, sizeof *stack);
    int32_t *kids = gv_malloc_array(max_kids, sizeof *kids);
    size_t top = 0;
    if (!stack || !kids)
        d->nomem = 1;
    else
        stack[top++] = (json_step){0, OPEN_FIRST};
    while (top && !d->nomem) {
        json_step e = stack[--top];
        if (e.what == CLOSE) {
            put(d, "]}");
            continue;
        }
        if (e.what == OPEN_NEXT) put(d, ",");
        json_node_open(d, tc, (size_t)e.node);
        size_t m = children(t, (size_t)e.node, kids);
        if (!m) {
            put(d, "}");
            continue;
        }
        put(d, ",\"children\":[");
        stack[top++] = (json_step){e.node, CLOSE};
        for (size_t j = m; j-- > 0;) stack[top++] = (json_step){kids[j], j ? OPEN_NEXT : OPEN_FIRST};
    }
    gv_free(stack);
    gv_free(kids);
}

/* ---- csv: one row per node, the columns of XGBoost's and LightGBM's trees_to_dataframe ---- */

static const char csv_header[] =
    "Tree,Node,ID,Feature,Split,Category,Yes,No,Missing,Gain,Cover,Count,Value,Class,Member,"
    "Round,Weight\n";

static void csv_node(dumper *d, const tree_ctx *tc, size_t k)
{
    const gv_tree *t = tc->t;
    const gv_tree_node *n = &t->nodes[k];
    const size_t id = tc->id;
    put(d, "%zu,%zu,%zu-%zu,", id, k, id, k);
    if (n->type == GV_NODE_LEAF) {
        put(d, "Leaf,,,,,,");
    } else {
        name(d, feature_name(tc, k));
        put(d, ",");
        if (n->type == GV_NODE_NUM) num(d, (double)n->threshold);
        put(d, ",");
        if (n->type != GV_NODE_NUM) {
            /* the categories that go left, or (multiway) each category's child */
            gv_buf field = d->b;
            d->b = (gv_buf){0};
            int fmt = d->format;
            d->format = DUMP_TEXT;
            if (n->type == GV_NODE_CAT_SET)
                left_categories(d, tc, k, ";");
            else
                for (size_t c = 0; c < n_categories(tc, k); c++)
                    put(d, "%s%s=%zu-%zu", c ? ";" : "", category(tc, k, c), id,
                        gv_tree_child(t, k, (float)c));
            d->format = fmt;
            gv_buf cats = d->b;
            d->b = field;
            name(d, cats.data ? cats.data : "");
            gv_buf_free(&cats);
        }
        if (n->type == GV_NODE_CAT_MULTI)
            put(d, ",,");
        else
            put(d, ",%zu-%d,%zu-%d", id, n->left, id, n->right);
        put(d, ",%zu-%zu,", id, gv_tree_child(t, k, NAN));
        num(d, tc->gain_scale * n->gain);
    }
    put(d, ",");
    num(d, n->weight);
    put(d, ",");
    num(d, n->count);
    put(d, ",");
    if (n->type == GV_NODE_LEAF) values(d, t->values + k * (size_t)t->n_outputs, (size_t)t->n_outputs);
    put(d, ",");
    const gv_walk_item *it = tc->it;
    const char *cls = NULL;
    if (it->group >= 0 && tc->s->classes.n > 2)
        cls = tc->s->classes.names[it->group];
    else if (n->type == GV_NODE_LEAF)
        cls = leaf_class(tc, k);
    if (cls) name(d, cls);
    put(d, ",%zu,%zu,", it->member, it->round);
    if (!isnan(it->weight)) num(d, it->weight);
    put(d, "\n");
}

/* ---- the walk ---- */

/* The fields that place member `it` in its ensemble: text " member=3 alpha=0.5", json
 * ,"member":3,"alpha":0.5. */
static void placement(dumper *d, const gv_walk_item *it, const grove_schema *s)
{
    const int json = d->format == DUMP_JSON;
    if (!it->parent) return;
    const char *wname = it->parent->vt == &gv_voting_component ? "weight" : "alpha";
    if (it->group >= 0) {
        put(d, json ? ",\"round\":%zu,\"group\":%d" : " round=%zu group=%d", it->round, it->group);
        if (s->classes.n > 2) {
            put(d, json ? ",\"class\":" : " class=");
            name(d, s->classes.names[it->group]);
        }
    } else {
        put(d, json ? ",\"member\":%zu" : " member=%zu", it->member);
    }
    if (!isnan(it->weight)) {
        put(d, json ? ",\"%s\":" : " %s=", wname);
        num(d, it->weight);
    }
    put(d, json ? ",\"in\":\"%s\"" : " in=%s", it->parent->vt->kind);
}

static void dump_tree(dumper *d, const gv_walk_item *it, const grove_schema *s)
{
    tree_ctx tc = {.it = it, .s = s, .t = it->tree, .id = d->n_trees++,
                   .gain_scale = it->parent && it->parent->vt == &gv_gbdt_component ? 2 : 1};
    const gv_tree *t = it->tree;
    if (d->format == DUMP_CSV) {
        for (size_t k = 0; k < t->n_nodes && !d->nomem; k++) csv_node(d, &tc, k);
        return;
    }
    if (d->format == DUMP_JSON) {
        put(d, "%s{\"tree\":%zu,\"kind\":\"tree\"", tc.id ? ",\n" : "", tc.id);
        placement(d, it, s);
        put(d, ",\"n_nodes\":%zu,\"root\":", t->n_nodes);
        json_tree(d, &tc);
        put(d, "}");
        return;
    }
    put(d, "booster[%zu]", tc.id);
    placement(d, it, s);
    put(d, ":\n");
    for (size_t k = 0; k < t->n_nodes && !d->nomem; k++) text_node(d, &tc, k);
}

/* A member without trees: a linear model's coefficients, or a line saying what it is. */
static void dump_other(dumper *d, const gv_walk_item *it, const grove_schema *s)
{
    const gv_linear_model *lm = gv_linear_model_of(it->c);
    const int json = d->format == DUMP_JSON;
    size_t id = d->n_trees++;
    if (d->format == DUMP_CSV) return; /* rows are nodes */
    if (json) {
        put(d, "%s{\"tree\":%zu,\"kind\":\"%s\"", id ? ",\n" : "", id, it->c->vt->kind);
    } else {
        put(d, "booster[%zu]", id);
    }
    placement(d, it, s);
    if (!lm) {
        put(d, json ? ",\"note\":\"no trees: a %s\"}" : ": %s (no trees to dump)\n",
            it->c->vt == &gv_mlp_component ? "neural network" : it->c->vt->kind);
        return;
    }
    /* score_k(x) = intercept_k + sum_f coef_k,f z_f, z_f = (x_f - mean_f) / std_f for a numeric
     * feature (0 where std is 0), one-hot columns name=category for a categorical one */
    const gv_linear_map *map = &lm->map;
    if (json) {
        put(d, ",\"columns\":[");
    } else {
        put(d, ": %s, score_k = intercept_k + sum coef_k,j z_j; z_j = (x - mean) / std or "
               "one-hot\n\tcolumns:", it->c->vt->kind);
    }
    for (size_t f = 0; f < map->n_features; f++)
        for (size_t w = 0; w < map->width[f]; w++) {
            if (!json || f || w) put(d, json ? "," : " ");
            if (!map->is_categorical[f]) {
                name(d, s->feature_names[f]);
                continue;
            }
            char buf[512];
            snprintf(buf, sizeof buf, "%s=%s", s->feature_names[f], s->categories[f].names[w]);
            name(d, buf);
        }
    put(d, json ? "],\"mean\":" : "\n\tmean=");
    values(d, map->mean, map->n_features);
    put(d, json ? ",\"std\":" : " std=");
    values(d, map->std, map->n_features);
    put(d, json ? ",\"intercept\":" : "\n\tintercept=");
    values(d, lm->intercept, lm->n_vec);
    put(d, json ? ",\"coef\":[" : "\n");
    for (size_t k = 0; k < lm->n_vec; k++) {
        if (json && k) put(d, ",");
        if (!json) put(d, "\tcoef[%zu]=", k);
        values(d, lm->coef + k * map->dim, map->dim);
        put(d, json ? "" : "\n");
    }
    put(d, json ? "]}" : "");
}

/* An ensemble: one comment line of text (what its members add up to). */
static void dump_ensemble(dumper *d, const gv_walk_item *it)
{
    if (d->format != DUMP_TEXT) return;
    gv_gbdt_view gb;
    gv_boost_view bv;
    gv_bagging_view bg;
    gv_voting_view vo;
    put(d, "# %*s%s", 2 * it->depth, "", it->c->vt->kind);
    if (gv_gbdt_view_of(it->c, &gb)) {
        put(d, ": objective %s, %zu rounds of %zu tree(s); margin[group] = base_score[group] + "
               "the leaves of the group's trees; base_score=",
            gb.objective, gb.n_rounds, gb.n_groups);
        values(d, gb.base, gb.n_groups);
    } else if (gv_boost_view_of(it->c, &bv)) {
        put(d, " (%s): %zu members; %s", bv.variant, bv.n_members,
            bv.n_classes ? "class scores = sum_t alpha_t h_t(x)"
                         : "the alpha-weighted median of the members");
    } else if (gv_bagging_view_of(it->c, &bg)) {
        put(d, " (%s): %zu members, %s", bg.mode, bg.n_members,
            !strcmp(bg.vote, "hard") ? "plurality vote" : "mean of the members' outputs");
    } else if (gv_voting_view_of(it->c, &vo)) {
        put(d, ": %zu members, %s", vo.n_members, vo.soft ? "weighted mean" : "weighted vote");
    }
    put(d, "\n");
}

static int visit(void *ctx, const gv_walk_item *it)
{
    dumper *d = ctx;
    const grove_schema *s = it->schema ? it->schema : d->m->schema;
    if (it->tree)
        dump_tree(d, it, s);
    else if (gv_linear_model_of(it->c) || it->c->vt == &gv_mlp_component)
        dump_other(d, it, s);
    else
        dump_ensemble(d, it);
    return d->nomem;
}

grove_status grove_model_dump(const grove_model *model, const char *format, char **out)
{
    gv_err_clear();
    if (!out) return gv_err(GROVE_ERR_ARG, "grove_model_dump: out is NULL");
    *out = NULL;
    if (!model) return gv_err(GROVE_ERR_ARG, "grove_model_dump: model is NULL");
    dumper d = {.m = model};
    if (!format || !strcmp(format, "text"))
        d.format = DUMP_TEXT;
    else if (!strcmp(format, "json"))
        d.format = DUMP_JSON;
    else if (!strcmp(format, "csv"))
        d.format = DUMP_CSV;
    else
        return gv_err(GROVE_ERR_ARG, "dump: format must be text, json or csv, got '%s'", format);
    grove_status st = gv_model_check_strings(model); /* names go into JSON strings */
    if (st != GROVE_OK) return st;
    if (d.format == DUMP_CSV) put(&d, "%s", csv_header);
    if (d.format == DUMP_JSON) {
        put(&d, "{\"algo\":");
        name(&d, model->algo);
        put(&d, ",\"task\":\"%s\",\"classes\":[",
            model->schema->task == GROVE_CLASSIFICATION ? "classification" : "regression");
        for (size_t c = 0; c < model->schema->classes.n; c++) {
            put(&d, c ? "," : "");
            name(&d, model->schema->classes.names[c]);
        }
        gv_gbdt_view gb;
        if (gv_gbdt_view_of(&model->root, &gb)) {
            put(&d, "],\"base_score\":[");
            for (size_t g = 0; g < gb.n_groups; g++) {
                put(&d, g ? "," : "");
                num(&d, gb.base[g]);
            }
        }
        put(&d, "],\"trees\":[\n");
    }
    gv_component_walk(&model->root, visit, &d);
    if (d.format == DUMP_JSON) put(&d, "]}\n");
    if (d.nomem || !d.b.data) {
        gv_buf_free(&d.b);
        return gv_err_nomem("the model dump");
    }
    *out = d.b.data;
    return GROVE_OK;
}
