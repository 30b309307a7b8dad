/*
 * export.c -- a trained model as one standalone C99 source file (`grove export --lang c`).
 *
 * Pipeline position: model/ (the CLI writes the text).  Each component kind writes its own
 * function through its export_c slot (learner.h; the generator's state and text helpers:
 * core/cgen.h), in the file that owns the kind; this file writes what is the same for every
 * model: the header comment, the helpers the kinds' code calls, the node tables, the entry
 * points, and the choice of form.
 *
 * The generated file depends on libm only.  It defines, with a caller-chosen prefix P:
 *   void P_predict(const float *x, double *out);          one row, n_features floats
 *   void P_predict_double(const double *x, double *out);  the same, each value rounded to float
 *   void P_predict_batch(const float *x, size_t n_rows, double *out);     row-major rows
 *   void P_predict_batch_double(const double *x, size_t n_rows, double *out);
 * writing n_outputs doubles per row: class probabilities, or the regression value.
 *
 * Exactness: grove stores raw values as floats (a double becomes (float)x when data is loaded),
 * walks trees on them, and sums in a fixed order.  Each kind's export_c slot mirrors its
 * predict_row operation for operation, in the same order, with every constant written so that it
 * reads back to the same float or double (%.9g for floats, %.17g for doubles); constants the
 * library computes from the model (the softmax scale of a boosting variant) are computed there
 * with the same operations.  So its outputs equal grove_model_predict's bit for bit
 * (tests/test_export.c checks every supported algorithm on the public datasets).  The generated
 * code must be compiled without -ffast-math (which would let the compiler reorder the sums).
 *
 * The component tree becomes one static function per component, `static void cN(const float *x,
 * double *out)`, members before the ensembles that call them (the component tree:
 * docs/model-format.md, "Components").  Trees take one of two forms, chosen by the model's
 * total node count (or by the caller):
 *   code   one function per tree, one line per node (`nK: if (x[f] <= t) goto nL; goto nR;`)
 *          with the feature's name in a comment: readable, fastest for small models;
 *   table  every node of the model in one static table, walked by one loop: compiles in
 *          seconds where a million lines of code would take minutes.
 * Not exported: a kind without an export_c slot, refused here with a message naming it: mlp (no
 * exporter for its network yet), also inside an ensemble (bagging of networks, stacking with an
 * mlp member).
 */
#include "model.h"

#include "../data/dataset.h"
#include "../ensemble/ensemble.h"

#include <stdio.h>
#include <string.h>

/* Models with more nodes than this get the table form in auto mode. */
#define CODE_MAX_NODES 20000

/* The root written through its kind's export_c slot (members first, learner.h); a kind
 * without one is refused here, with a message naming it. */
static grove_status emit_root(gv_cgen *g, const gv_component *root, size_t *id)
{
    grove_status st = gv_cgen_component(g, root, id);
    if (st == GROVE_OK || !g->refused) return st;
    if (!strcmp(g->refused, "mlp"))
        return gv_err(GROVE_ERR_ARG,
                      "export: an mlp (neural network) component cannot be exported to C yet: "
                      "the exporter has no code for its layers (trees, tree ensembles, gbdt, "
                      "voting, stacking and the linear learners can be exported)");
    return gv_err(GROVE_ERR_ARG, "export: component kind '%s' cannot be exported to C", g->refused);
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

static void emit_header(gv_cgen *g, const grove_model *m, const char *P, gv_buf *b,
                        size_t n_tree_nodes, int header_file)
{
    const grove_schema *s = m->schema;
    char nm[64];
    gv_cgen_out(b, g,
                "/*\n * A grove model exported to standalone C99 by grove %s (`grove export --lang "
                "c`).\n",
                GROVE_VERSION_STRING);
    gv_cgen_out(b, g, " * Algorithm: %s; %s; %zu features; %zu tree nodes (%s form).\n", m->algo,
                s->task == GROVE_CLASSIFICATION ? "classification" : "regression", s->n_features,
                n_tree_nodes, g->table ? "node table" : "one function per tree");
    if (header_file)
        gv_cgen_out(b, g,
                    " *\n * Entry points (defined in the C file exported with this header):\n");
    else
        gv_cgen_out(b, g,
                    " *\n * Entry points (declared in the header `grove export` writes beside this "
                    "file):\n");
    gv_cgen_out(b, g, " *   void %s_predict(const float *x, double *out);\n", P);
    gv_cgen_out(b, g, " *   void %s_predict_double(const double *x, double *out);\n", P);
    gv_cgen_out(b, g, " *   void %s_predict_batch(const float *x, size_t n_rows, double *out);\n",
                P);
    gv_cgen_out(b, g,
                " *   void %s_predict_batch_double(const double *x, size_t n_rows, double *out);\n",
                P);
    gv_cgen_out(b, g,
                " * x: one row of %zu values (batch: n_rows rows, row-major), in this order:\n",
                s->n_features);
    if (s->feature_ids)
        gv_cgen_out(b, g,
                    " * (compact features: these are columns of %zu-wide data, the only ones the\n"
                    " * model reads; pass those values, each at its x[] position)\n",
                    s->n_columns);
    for (size_t f = 0; f < s->n_features; f++) {
        gv_cgen_name(s->feature_names[f], nm);
        if (!s->is_categorical[f]) {
            if (s->feature_ids)
                gv_cgen_out(b, g, " *   x[%zu] %s (numeric; column %lu of the data)\n", f, nm,
                            (unsigned long)s->feature_ids[f]);
            else
                gv_cgen_out(b, g, " *   x[%zu] %s (numeric)\n", f, nm);
            continue;
        }
        gv_cgen_out(b, g, " *   x[%zu] %s (categorical, the category's code:", f, nm);
        size_t nc = s->categories[f].n;
        for (size_t c = 0; c < nc && c < 12; c++) {
            gv_cgen_name(s->categories[f].names[c], nm);
            gv_cgen_out(b, g, "%s %zu = \"%s\"", c ? "," : "", c, nm);
        }
        gv_cgen_out(b, g, "%s)\n", nc > 12 ? ", ..." : "");
    }
    gv_cgen_out(b, g,
                " * Missing values are NaN.  A categorical value that is not one of the codes "
                "above\n * (negative, fractional, too large) is treated as missing.\n");
    if (s->task == GROVE_CLASSIFICATION) {
        gv_cgen_out(b, g, " * out: %zu class probabilities, in this order:", m->n_outputs);
        for (size_t c = 0; c < s->classes.n; c++) {
            gv_cgen_name(s->classes.names[c], nm);
            gv_cgen_out(b, g, "%s \"%s\"", c ? "," : "", nm);
        }
        gv_cgen_out(b, g, "\n * (the predicted class is the first largest).\n");
    } else {
        gv_cgen_out(b, g, " * out: 1 value, the prediction.\n");
    }
    gv_cgen_out(b, g,
                " * The outputs equal grove's (grove predict, grove_model_predict) bit for bit: "
                "grove reads\n * values as floats, so the double entry points round each value "
                "to float first.\n * Compile without -ffast-math (it reorders the sums); link with "
                "-lm.\n */\n");
    if (header_file) {
        /* the header: the same comment, the sizes and the prototypes, for C and C++ callers */
        gv_cgen_out(
            b, g,
            "#ifndef %s_GROVE_EXPORT_H\n#define %s_GROVE_EXPORT_H\n\n#include <stddef.h>\n\n"
            "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n",
            P, P);
        gv_cgen_out(b, g, "#define %s_N_FEATURES %zu\n#define %s_N_OUTPUTS %zu\n\n", P,
                    s->n_features, P, m->n_outputs);
        gv_cgen_out(b, g, "void %s_predict(const float *x, double *out);\n", P);
        gv_cgen_out(b, g, "void %s_predict_double(const double *x, double *out);\n", P);
        gv_cgen_out(b, g, "void %s_predict_batch(const float *x, size_t n_rows, double *out);\n",
                    P);
        gv_cgen_out(b, g,
                    "void %s_predict_batch_double(const double *x, size_t n_rows, double *out);\n",
                    P);
        gv_cgen_out(b, g, "\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
        return;
    }
    gv_cgen_out(b, g, "#include <math.h>\n#include <stddef.h>\n#include <stdlib.h>\n\n");
    gv_cgen_out(b, g, "#define %s_N_FEATURES %zu\n#define %s_N_OUTPUTS %zu\n\n", P, s->n_features,
                P, m->n_outputs);
    gv_cgen_out(b, g, "void %s_predict(const float *x, double *out);\n", P);
    gv_cgen_out(b, g, "void %s_predict_double(const double *x, double *out);\n", P);
    gv_cgen_out(b, g, "void %s_predict_batch(const float *x, size_t n_rows, double *out);\n", P);
    gv_cgen_out(b, g,
                "void %s_predict_batch_double(const double *x, size_t n_rows, double *out);\n", P);
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

grove_status gv_model_export_c(const grove_model *m, const char *prefix, int form, int header,
                               gv_buf *text)
{
    gv_cgen g;
    memset(&g, 0, sizeof g);
    g.schema = m->schema;
    g.n_outputs = m->n_outputs;
    size_t n_tree_nodes = count_nodes(&m->root);
    /* a model without trees (a linear learner) has no table to write */
    g.table = n_tree_nodes > 0 && (form == GV_EXPORT_TABLE ||
                                   (form == GV_EXPORT_AUTO && n_tree_nodes > CODE_MAX_NODES));
    size_t root = 0;
    grove_status st = GROVE_OK;
    if (header)
        emit_header(&g, m, prefix, text, n_tree_nodes, 1);
    else
        st = emit_root(&g, &m->root, &root);
    if (st == GROVE_OK && !g.nomem && !header) {
        const char *P = prefix;
        const size_t F = m->schema->n_features, K = m->n_outputs;
        emit_header(&g, m, prefix, text, n_tree_nodes, 0);
        gv_cgen_out(text, &g, "%s", helpers_text);
        if (g.has_cat || g.table) gv_cgen_out(text, &g, "%s", cat_text);
        if (g.table) {
            gv_cgen_out(text, &g, "%s", walk_text);
            gv_cgen_out(text, &g,
                        "\n/* every node of the model's trees (tree by tree) */\n"
                        "static UNUSED const node N[%zu] = {\n",
                        g.n_nodes ? g.n_nodes : 1);
            gv_cgen_append(text, &g.nodes, &g);
            gv_cgen_out(
                text, &g,
                "%s};\n\n/* their values, node-major */\nstatic UNUSED const double V[%zu] = {",
                g.n_nodes ? "" : "    {0, 0, 0, 0.0f, 0, 0, 0u, 0u}\n",
                g.n_values ? g.n_values : 1);
            gv_cgen_append(text, &g.values, &g);
            gv_cgen_out(text, &g,
                        "%s\n};\n\n/* category sets and child maps */\nstatic const unsigned "
                        "long C[%zu] = {",
                        g.n_values ? "" : "0.0", g.n_cats ? g.n_cats : 1);
            gv_cgen_append(text, &g.cats, &g);
            gv_cgen_out(text, &g, "%s\n};\n", g.n_cats ? "" : "0UL");
            gv_cgen_out(text, &g, "%s", walk_fn_text);
        }
        gv_cgen_append(text, &g.body, &g);
        gv_cgen_out(text, &g, "\n/* ---- entry points ---- */\n");
        gv_cgen_out(text, &g,
                    "void %s_predict(const float *x, double *out)\n{\n    c%zu(x, out);\n}\n\n", P,
                    root);
        gv_cgen_out(text, &g,
                    "void %s_predict_double(const double *x, double *out)\n{\n"
                    "    float r[%zu];\n    size_t j;\n"
                    "    for (j = 0; j < %zu; j++) r[j] = (float)x[j];\n    c%zu(r, out);\n}\n\n",
                    P, F, F, root);
        if (g.has_block && g.block_id == root)
            gv_cgen_out(text, &g,
                        "void %s_predict_batch(const float *x, size_t n_rows, double *out)\n"
                        "{\n    c%zu_block(x, n_rows, out);\n}\n\n",
                        P, root);
        else
            gv_cgen_out(
                text, &g,
                "void %s_predict_batch(const float *x, size_t n_rows, double *out)\n{\n"
                "    size_t i;\n    for (i = 0; i < n_rows; i++) c%zu(x + i * %zu, out + i * "
                "%zu);\n}\n\n",
                P, root, F, K);
        gv_cgen_out(text, &g,
                    "void %s_predict_batch_double(const double *x, size_t n_rows, double *out)\n"
                    "{\n    size_t i;\n    for (i = 0; i < n_rows; i++) %s_predict_double(x + i * "
                    "%zu, out + i * %zu);\n}\n",
                    P, P, F, K);
    }
    gv_cgen_free(&g);
    if (st == GROVE_OK && g.nomem) st = gv_err_nomem("the exported C code");
    if (st != GROVE_OK) {
        gv_buf_free(text);
        memset(text, 0, sizeof *text);
    }
    return st;
}
