/*
 * test_model_io.c -- the model file (model/model_io.c), the tree component and tree walks
 * (learn/tree_component.c, learn/tree_predict.c).
 *
 * A hand-made 3-class model over numeric and categorical features, with a tree that has every
 * split type (NUM, CAT_SET, CAT_MULTI), missing-value defaults and a category without a child.
 * Checked: the walks against a hand-written reference and against each other (raw vs binned);
 * save -> load -> predict bit-identical; deterministic bytes; jansson re-serialisation of a
 * file is byte-identical; atomic save (no temp files left, old file intact on failure); the
 * loader rejects empty, truncated (every prefix), corrupted, foreign and newer files and every
 * structural corruption (with the checksum recomputed so that structure, not the checksum,
 * rejects them) and random structural edits; packed arrays (format 1.1): every bad entry
 * (non-numbers, out of range, NaN/inf text, huge exponents, non-float thresholds, bad
 * separators, wrong counts) named by field and index, and random edits of their text; a
 * packed file claiming 1.0 and a 1.0 file claiming 1.1 are rejected; out-of-memory loops over
 * save and load; the stored 1.0 and 1.1 files still load (and a 1.0 file saves as today's
 * file); a comma locale does not change packed arrays (when one is installed).
 *
 * Set GROVE_REGEN_MODELS=1 to rewrite tests/data/models/tree-1.2.json (only when the format
 * version changes: old files must keep loading, so tree-1.0.json and tree-1.1.json are never
 * rewritten).
 */
#include "check.h"

#include "model/model.h"
#include "core/params.h"

#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <locale.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define CANONICAL (JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17))
#define FILE_FLAGS (JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17))
#define GOLDEN_1_0 "tests/data/models/tree-1.0.json"
#define GOLDEN_1_1 "tests/data/models/tree-1.1.json"
#define GOLDEN "tests/data/models/tree-1.2.json" /* the current format */

static char tmpdir[256];

static const char *tmp_path(const char *name)
{
    static char buf[8][512];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, 512, "%s/%s", tmpdir, name);
    return p;
}

/* ---- the hand-made model ---- */

/* Features: x (numeric), color (red green blue yellow), shape (circle square triangle), y2. */
static grove_schema *make_schema(void)
{
    grove_schema *s = gv_schema_new(4);
    const char *names[] = {"x", "color", "shape", "y2"};
    for (int f = 0; f < 4; f++) {
        gv_free(s->feature_names[f]);
        s->feature_names[f] = gv_strdup(names[f]);
    }
    const char *colors[] = {"red", "green", "blue", "yellow"};
    const char *shapes[] = {"circle", "square", "triangle"};
    const char *classes[] = {"a", "b", "c"};
    s->is_categorical[1] = s->is_categorical[2] = 1;
    for (int c = 0; c < 4; c++) gv_dict_add(&s->categories[1], colors[c], strlen(colors[c]));
    for (int c = 0; c < 3; c++) gv_dict_add(&s->categories[2], shapes[c], strlen(shapes[c]));
    for (int c = 0; c < 3; c++) gv_dict_add(&s->classes, classes[c], strlen(classes[c]));
    gv_free(s->label_name);
    s->label_name = gv_strdup("label");
    s->task = GROVE_CLASSIFICATION;
    return s;
}

static const float x_cuts[] = {0.5f, 1.5f, 2.5f};
static const float y2_cuts[] = {-1.0f, 0.25f};

static gv_bin_mapper *make_mappers(void)
{
    gv_bin_mapper *m = gv_calloc(4, sizeof *m);
    m[0].n_cuts = 3;
    m[0].n_bins = 5;
    m[0].cuts = gv_malloc(sizeof x_cuts);
    memcpy(m[0].cuts, x_cuts, sizeof x_cuts);
    m[1].is_categorical = 1;
    m[1].n_bins = 5;
    m[2].is_categorical = 1;
    m[2].n_bins = 4;
    m[3].n_cuts = 2;
    m[3].n_bins = 4;
    m[3].cuts = gv_malloc(sizeof y2_cuts);
    memcpy(m[3].cuts, y2_cuts, sizeof y2_cuts);
    return m;
}

/*
 *  0 NUM x <= 1.5 (bin <= 2), missing left ----------- 1 CAT_SET color {red, blue} -> 3 | 4,
 *  |                                                       missing/unknown -> 3 (left)
 *  +-- 2 CAT_MULTI shape: circle -> 5, square -> (none), triangle -> 6; default child 7
 *                                               7 NUM y2 <= -1 (bin <= 1), missing right -> 8 | 9
 * Leaves 3 4 5 6 8 9 keep left = right = 0 in memory (as a zeroing grower would): the writer
 * must normalise them.
 */
static gv_tree *make_tree(void)
{
    gv_tree *t = gv_calloc(1, sizeof *t);
    t->n_nodes = 10;
    t->n_outputs = 3;
    t->nodes = gv_calloc(10, sizeof *t->nodes);
    t->values = gv_malloc_array(30, sizeof *t->values);
    t->n_cat_data = 4;
    t->cat_data = gv_malloc_array(4, sizeof *t->cat_data);
    uint32_t cat[] = {(1u << 0) | (1u << 2), 5, UINT32_MAX, 6};
    memcpy(t->cat_data, cat, sizeof cat);
    static const int depth[] = {0, 1, 1, 2, 2, 2, 2, 2, 3, 3};
    for (int k = 0; k < 10; k++) {
        gv_tree_node *n = &t->nodes[k];
        n->feature = -1;
        n->type = GV_NODE_LEAF;
        n->depth = (uint16_t)depth[k];
        n->weight = 10.0 / (k + 1);
        n->count = 20 - k;
        /* values with no short decimal form: the round trip must be exact */
        double p0 = 1.0 / (k + 3), p1 = 1.0 / (k + 7);
        t->values[3 * k] = p0;
        t->values[3 * k + 1] = p1;
        t->values[3 * k + 2] = 1.0 - p0 - p1;
    }
    t->nodes[0] = (gv_tree_node){.feature = 0, .type = GV_NODE_NUM, .default_left = 1,
                                 .bin_split = 2, .threshold = 1.5f, .left = 1, .right = 2,
                                 .gain = 0.1, .weight = 10, .count = 20};
    t->nodes[1] = (gv_tree_node){.feature = 1, .type = GV_NODE_CAT_SET, .default_left = 1,
                                 .depth = 1, .left = 3, .right = 4, .cat_begin = 0, .cat_len = 1,
                                 .gain = 1.0 / 3, .weight = 5, .count = 11};
    t->nodes[2] = (gv_tree_node){.feature = 2, .type = GV_NODE_CAT_MULTI, .depth = 1,
                                 .left = 5, /* unused by CAT_MULTI: written as -1 */
                                 .right = 7, .cat_begin = 1, .cat_len = 3, .gain = 2.0 / 7,
                                 .weight = 5, .count = 9};
    t->nodes[7] = (gv_tree_node){.feature = 3, .type = GV_NODE_NUM, .default_left = 0,
                                 .depth = 2, .bin_split = 1, .threshold = -1.0f, .left = 8,
                                 .right = 9, .gain = 1e-300, .weight = 2.5, .count = 4};
    return t;
}

static grove_model *make_model(void)
{
    grove_model *m = gv_calloc(1, sizeof *m);
    m->schema = make_schema();
    m->mappers = make_mappers();
    m->algo = gv_strdup("tree");
    grove_params_create(&m->params);
    grove_params_set(m->params, "max_depth", "3");
    grove_params_set(m->params, "seed", "42");
    grove_params_set(m->params, "label", "label");
    m->n_outputs = 3;
    m->n_train_rows = 123;
    m->root.vt = &gv_tree_component;
    m->root.impl = make_tree();
    return m;
}

/* The leaf of the tree above for one row, written out by hand from tree.h's semantics. */
static int is_code(float v, int n) { return v >= 0 && v < (float)n && v == floorf(v); }

static size_t reference_leaf(float x, float color, float shape, float y2)
{
    if (isnan(x) || x <= 1.5f) {
        if (is_code(color, 32)) return ((int)color == 0 || (int)color == 2) ? 3 : 4;
        return 3; /* missing, or a code the 1-word set does not cover: default (left) */
    }
    if (is_code(shape, 3) && (int)shape == 0) return 5;
    if (is_code(shape, 3) && (int)shape == 2) return 6;
    if (isnan(y2)) return 9;
    return y2 <= -1.0f ? 8 : 9;
}

static const float xs[] = {NAN, -3, 0.5f, 1.0f, 1.5f, 1.50000012f, 2.5f, 3};
static const float colors[] = {NAN, 0, 1, 2, 3, 7, 31, 32, 40, -1, 2.5f, 1e10f};
static const float shapes[] = {NAN, 0, 1, 2, 3, -3, 1.5f, 4e9f};
static const float y2s[] = {NAN, -2, -1, -0.5f, 0.25f, 5};
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Every combination; `valid_only` keeps NaN and real category codes (what binning can hold). */
static grove_dataset *make_data(int valid_only)
{
    size_t n = 0, cap = N_OF(xs) * N_OF(colors) * N_OF(shapes) * N_OF(y2s);
    grove_dataset *d = gv_dataset_new(make_schema(), cap, 0);
    for (size_t a = 0; a < N_OF(xs); a++)
        for (size_t b = 0; b < N_OF(colors); b++)
            for (size_t c = 0; c < N_OF(shapes); c++)
                for (size_t e = 0; e < N_OF(y2s); e++) {
                    if (valid_only && ((!isnan(colors[b]) && !is_code(colors[b], 4)) ||
                                       (!isnan(shapes[c]) && !is_code(shapes[c], 3))))
                        continue;
                    d->values[0 * cap + n] = xs[a];
                    d->values[1 * cap + n] = colors[b];
                    d->values[2 * cap + n] = shapes[c];
                    d->values[3 * cap + n] = y2s[e];
                    n++;
                }
    /* shrink to n rows: the layout is column-major with stride n_rows */
    for (size_t f = 1; f < 4; f++)
        memmove(d->values + f * n, d->values + f * cap, n * sizeof(float));
    d->n_rows = n;
    return d;
}

/* bin.h's rule, written independently: bin 0 missing; numeric 1 + #(cuts < x); code + 1. */
static uint32_t reference_bin(const gv_bin_mapper *m, float x)
{
    if (isnan(x)) return 0;
    if (m->is_categorical) return (uint32_t)x + 1;
    uint32_t b = 1;
    for (uint32_t c = 0; c < m->n_cuts; c++) b += m->cuts[c] < x;
    return b;
}

static gv_binned *bin_by_hand(const grove_dataset *d, const gv_bin_mapper *mappers, int wide)
{
    gv_binned *b = gv_calloc(1, sizeof *b);
    b->n_rows = d->n_rows;
    b->n_features = 4;
    b->mappers = mappers;
    b->wide = wide;
    if (wide)
        b->bins16 = gv_malloc_array(4 * d->n_rows, sizeof *b->bins16);
    else
        b->bins8 = gv_malloc_array(4 * d->n_rows, sizeof *b->bins8);
    for (size_t f = 0; f < 4; f++)
        for (size_t i = 0; i < d->n_rows; i++) {
            uint32_t v = reference_bin(&mappers[f], gv_value(d, f, i));
            if (wide)
                b->bins16[f * d->n_rows + i] = (uint16_t)v;
            else
                b->bins8[f * d->n_rows + i] = (uint8_t)v;
        }
    return b;
}

static void free_binned_by_hand(gv_binned *b)
{
    gv_free(b->bins8);
    gv_free(b->bins16);
    gv_free(b);
}

/* ---- file helpers ---- */

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (fread(s, 1, (size_t)n, f) != (size_t)n) n = 0;
    s[n] = '\0';
    fclose(f);
    if (len) *len = (size_t)n;
    return s;
}

static void write_all(const char *path, const char *s, size_t len)
{
    FILE *f = fopen(path, "wb");
    fwrite(s, 1, len, f);
    fclose(f);
}

/* Files in the temp dir whose name starts with ".grove-save-" (left-over temporaries). */
static int count_temp_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) n += !strncmp(e->d_name, ".grove-save-", 12);
    closedir(d);
    return n;
}

/* ---- tests ---- */

static void test_walks(void)
{
    gv_tree *t = make_tree();
    grove_schema *s = make_schema();
    CHECK_OK(gv_tree_validate(t, s));
    CHECK_EQ_INT(gv_tree_n_leaves(t), 6);
    CHECK_EQ_INT(gv_tree_depth(t), 3);

    grove_dataset *d = make_data(0);
    CHECK(d->n_rows == N_OF(xs) * N_OF(colors) * N_OF(shapes) * N_OF(y2s));
    int seen[10] = {0};
    for (size_t i = 0; i < d->n_rows; i++) {
        size_t want = reference_leaf(gv_value(d, 0, i), gv_value(d, 1, i), gv_value(d, 2, i),
                                     gv_value(d, 3, i));
        size_t got = gv_tree_leaf(t, d, i);
        if (got != want)
            fprintf(stderr, "row x=%g color=%g shape=%g y2=%g\n", gv_value(d, 0, i),
                    gv_value(d, 1, i), gv_value(d, 2, i), gv_value(d, 3, i));
        CHECK_EQ_INT(got, want);
        seen[got]++;
    }
    for (int k = 3; k < 10; k++)
        if (k != 7) CHECK(seen[k] > 0); /* every leaf reached */

    /* raw and binned walks agree on data the mappers can bin (8- and 16-bit bins) */
    gv_bin_mapper *mappers = make_mappers();
    grove_dataset *dv = make_data(1);
    for (int wide = 0; wide <= 1; wide++) {
        gv_binned *b = bin_by_hand(dv, mappers, wide);
        for (size_t i = 0; i < dv->n_rows; i++)
            CHECK_EQ_INT(gv_tree_leaf_binned(t, b, i), gv_tree_leaf(t, dv, i));
        free_binned_by_hand(b);
    }
    /* ... and on the same data binned by bin/ itself */
    gv_binned *built = NULL;
    CHECK_OK(gv_binned_build(dv, mappers, 1, &built));
    for (size_t i = 0; built && i < dv->n_rows; i++)
        CHECK_EQ_INT(gv_tree_leaf_binned(t, built, i), gv_tree_leaf(t, dv, i));
    gv_binned_free(built);
    gv_bin_mappers_free(mappers, 4);
    grove_dataset_free(dv);
    grove_dataset_free(d);

    /* a single-leaf tree */
    gv_tree one = {.n_nodes = 1, .n_outputs = 1};
    gv_tree_node leaf = {.feature = -1};
    double v = 2.5;
    one.nodes = &leaf;
    one.values = &v;
    CHECK_OK(gv_tree_validate(&one, s));
    CHECK_EQ_INT(gv_tree_n_leaves(&one), 1);
    CHECK_EQ_INT(gv_tree_depth(&one), 0);
    gv_schema_free(s);
    gv_tree_free(t);
}

/* In-memory validation: each corruption of a valid tree, and the message naming the node. */
static void test_validate_in_memory(void)
{
    grove_schema *s = make_schema();
    struct {
        int node;
        const char *field;
        long value;
        const char *want;
    } cases[] = {
        {0, "left", 10, "node 0: left child 10 is not a node"},
        {0, "right", -1, "node 0: right child -1 is not a node"},
        {7, "right", 7, "node 7: right child 7 is not after its parent"},
        {7, "left", 2, "node 7: left child 2 is not after its parent"},
        {1, "right", 5, "already a child of node 1"},
        {0, "feature", 4, "node 0: feature 4 is not a feature"},
        {0, "feature", 1, "node 0: a numeric split on categorical feature 1 ('color')"},
        {1, "type", GV_NODE_NUM, "node 1: a numeric split on categorical feature 1"},
        {0, "type", 9, "node 0: unknown node type 9"},
        {3, "feature", 2, "node 3: a leaf with feature 2"},
        {1, "cat_begin", 4, "node 1: categories [4, 4 + 1) lie outside cat_data"},
        {2, "cat_begin", 2, "node 2: categories [2, 2 + 3) lie outside cat_data"},
        {2, "cat_len", 2, "node 2: a child map of 2 entries for feature 'shape' with 3"},
        {1, "cat_len", 0, "node 1: a category set of 0 words"},
        {1, "cat_len", 2, "node 1: a category set of 2 words"},
        {0, "bin_split", 0, "node 0: bin_split must be >= 1"},
        {5, "depth", 3, "node 5: depth 3, but its parent 2 has depth 1"},
        {0, "depth", 1, "node 0: the root has depth 1"},
        {0, "default_left", 2, "node 0: default_left must be 0 or 1"},
    };
    for (size_t c = 0; c < N_OF(cases); c++) {
        gv_tree *t = make_tree();
        gv_tree_node *n = &t->nodes[cases[c].node];
        const char *f = cases[c].field;
        long v = cases[c].value;
        if (!strcmp(f, "left")) n->left = (int32_t)v;
        if (!strcmp(f, "right")) n->right = (int32_t)v;
        if (!strcmp(f, "feature")) n->feature = (int32_t)v;
        if (!strcmp(f, "type")) n->type = (uint8_t)v;
        if (!strcmp(f, "cat_begin")) n->cat_begin = (uint32_t)v;
        if (!strcmp(f, "cat_len")) n->cat_len = (uint32_t)v;
        if (!strcmp(f, "bin_split")) n->bin_split = (uint32_t)v;
        if (!strcmp(f, "depth")) n->depth = (uint16_t)v;
        if (!strcmp(f, "default_left")) n->default_left = (uint8_t)v;
        CHECK_STATUS(gv_tree_validate(t, s), GROVE_ERR_MODEL);
        CHECK_CONTAINS(grove_last_error(), cases[c].want);
        gv_tree_free(t);
    }
    /* child-map entries, values, thresholds, and unreachable nodes */
    gv_tree *t = make_tree();
    t->cat_data[3] = 100;
    CHECK_STATUS(gv_tree_validate(t, s), GROVE_ERR_MODEL);
    CHECK_CONTAINS(grove_last_error(), "node 2: child of category 2 100 is not a node");
    t->cat_data[3] = 5; /* two categories to one child is fine, but then 6 is unreachable */
    CHECK_STATUS(gv_tree_validate(t, s), GROVE_ERR_MODEL);
    CHECK_CONTAINS(grove_last_error(), "node 6: not reachable from the root");
    t->cat_data[3] = 6;
    t->nodes[0].threshold = NAN;
    CHECK_STATUS(gv_tree_validate(t, s), GROVE_ERR_MODEL);
    CHECK_CONTAINS(grove_last_error(), "node 0: threshold nan is not finite");
    t->nodes[0].threshold = 1.5f;
    t->values[4] = NAN;
    CHECK_STATUS(gv_tree_validate(t, s), GROVE_ERR_MODEL);
    CHECK_CONTAINS(grove_last_error(), "node 1: value 1 is not finite");
    t->values[4] = 1.5;
    CHECK_STATUS(gv_tree_validate(t, s), GROVE_ERR_MODEL);
    CHECK_CONTAINS(grove_last_error(), "node 1: class probability 1 is 1.5, outside [0, 1]");
    t->values[4] = 0.5;
    CHECK_STATUS(gv_tree_validate(t, s), GROVE_ERR_MODEL);
    CHECK_CONTAINS(grove_last_error(), "node 1: class probabilities sum to");
    t->values[4] = 1.0 / 8;
    t->nodes[4].count = -1;
    CHECK_STATUS(gv_tree_validate(t, s), GROVE_ERR_MODEL);
    CHECK_CONTAINS(grove_last_error(), "node 4: gain 0, weight");
    t->nodes[4].count = 16;
    t->n_outputs = 2;
    CHECK_STATUS(gv_tree_validate(t, s), GROVE_ERR_MODEL);
    CHECK_CONTAINS(grove_last_error(), "the tree has 2 outputs");
    t->n_outputs = 3;
    CHECK_OK(gv_tree_validate(t, s));
    t->n_nodes = 0;
    CHECK_STATUS(gv_tree_validate(t, s), GROVE_ERR_MODEL);
    CHECK_CONTAINS(grove_last_error(), "the tree has no nodes");
    t->n_nodes = 10;
    gv_tree_free(t);
    gv_schema_free(s);
}

static void predict_all(const grove_model *m, const grove_dataset *d, double *out)
{
    for (size_t i = 0; i < d->n_rows; i++)
        m->root.vt->predict_row(m->root.impl, d, i, out + i * m->n_outputs);
}

static void test_round_trip(void)
{
    grove_model *m = make_model();
    const char *p1 = tmp_path("m1.json"), *p2 = tmp_path("m2.json"), *p3 = tmp_path("m3.json");
    CHECK_OK(grove_model_save(m, p1));
    CHECK_OK(grove_model_save(m, p2));
    size_t n1, n2, n3;
    char *t1 = read_all(p1, &n1), *t2 = read_all(p2, &n2);
    CHECK(n1 > 0 && n1 == n2 && memcmp(t1, t2, n1) == 0); /* deterministic bytes */
    struct stat fst;
    CHECK(stat(p1, &fst) == 0 && (fst.st_mode & 0777) == 0644); /* 0666 - umask, not 0600 */

    grove_model *l = NULL;
    CHECK_OK(grove_model_load(p1, &l));
    if (!l) return;
    CHECK_STR(grove_model_algo(l), "tree");
    CHECK_EQ_INT(grove_model_n_outputs(l), 3);
    CHECK_EQ_INT(l->n_train_rows, 123);
    CHECK(gv_schema_equal(grove_model_schema(l), m->schema));
    CHECK_STR(grove_model_schema(l)->label_name, "label");
    char buf[64];
    CHECK_OK(grove_params_get(l->params, "max_depth", buf, sizeof buf));
    CHECK_STR(buf, "3");
    CHECK_OK(grove_params_get(l->params, "seed", buf, sizeof buf));
    CHECK_STR(buf, "42");
    CHECK(strstr(t1, "\"threads\"") == NULL); /* not part of a model */
    /* the file does not depend on the thread count the model was trained with */
    CHECK_OK(grove_params_set(m->params, "threads", "7"));
    gv_buf text7;
    CHECK_OK(gv_model_to_text(m, &text7));
    CHECK(text7.len == n1 && memcmp(text7.data, t1, n1) == 0);
    gv_buf_free(&text7);
    for (size_t f = 0; f < 4; f++) {
        CHECK_EQ_INT(l->mappers[f].n_bins, m->mappers[f].n_bins);
        CHECK_EQ_INT(l->mappers[f].n_cuts, m->mappers[f].n_cuts);
        CHECK_EQ_INT(l->mappers[f].is_categorical, m->mappers[f].is_categorical);
        for (uint32_t c = 0; c < m->mappers[f].n_cuts; c++)
            CHECK_EQ_DBL(l->mappers[f].cuts[c], m->mappers[f].cuts[c]);
    }
    const gv_tree *a = m->root.impl, *b = l->root.impl;
    CHECK(l->root.vt == &gv_tree_component);
    CHECK_EQ_INT(b->n_nodes, a->n_nodes);
    CHECK(memcmp(a->values, b->values, 30 * sizeof(double)) == 0);
    CHECK(memcmp(a->cat_data, b->cat_data, 4 * sizeof(uint32_t)) == 0);
    for (size_t k = 0; k < a->n_nodes; k++) {
        CHECK_EQ_DBL(b->nodes[k].gain, a->nodes[k].gain); /* 1/3, 2/7, 1e-300: exact */
        CHECK_EQ_DBL(b->nodes[k].weight, a->nodes[k].weight);
        CHECK_EQ_DBL(b->nodes[k].threshold, a->nodes[k].threshold);
        if (a->nodes[k].type == GV_NODE_LEAF) CHECK_EQ_INT(b->nodes[k].left, -1); /* normalised */
    }
    CHECK_EQ_INT(b->nodes[2].left, -1);

    /* predictions bit-identical on every row, NaNs and odd codes included */
    grove_dataset *d = make_data(0);
    double *pa = malloc(d->n_rows * 3 * sizeof *pa), *pb = malloc(d->n_rows * 3 * sizeof *pb);
    predict_all(m, d, pa);
    predict_all(l, d, pb);
    CHECK(memcmp(pa, pb, d->n_rows * 3 * sizeof *pa) == 0);
    for (size_t i = 0; i < d->n_rows; i++) {
        size_t leaf = reference_leaf(gv_value(d, 0, i), gv_value(d, 1, i), gv_value(d, 2, i),
                                     gv_value(d, 3, i));
        if (memcmp(pb + 3 * i, a->values + 3 * leaf, 3 * sizeof(double)) != 0) {
            CHECK_EQ_INT(i, -1);
            break;
        }
    }
    free(pa);
    free(pb);
    grove_dataset_free(d);

    /* save(load(file)) == file */
    CHECK_OK(grove_model_save(l, p3));
    char *t3 = read_all(p3, &n3);
    CHECK(n3 == n1 && memcmp(t1, t3, n1) == 0);

    /* jansson re-serialisation of the file is byte-identical (reals print as %.17g) */
    json_error_t err;
    json_t *doc = json_loadb(t1, n1, 0, &err);
    CHECK(doc != NULL);
    char *again = json_dumps(doc, FILE_FLAGS);
    CHECK(again && strlen(again) + 1 == n1 && memcmp(again, t1, n1 - 1) == 0 && t1[n1 - 1] == '\n');
    free(again);
    json_decref(doc);

    /* gv_model_to_text == the file */
    gv_buf text;
    CHECK_OK(gv_model_to_text(m, &text));
    CHECK(text.len == n1 && memcmp(text.data, t1, n1) == 0);
    gv_buf_free(&text);

    /* the description */
    char *info = NULL;
    CHECK_OK(grove_model_info_json(l, &info));
    json_t *j = json_loads(info ? info : "", 0, &err);
    CHECK(j != NULL);
    CHECK_STR(json_string_value(json_object_get(j, "algo")), "tree");
    CHECK_STR(json_string_value(json_object_get(j, "task")), "classification");
    CHECK_EQ_INT(json_integer_value(json_object_get(j, "n_features")), 4);
    CHECK_EQ_INT(json_integer_value(json_object_get(j, "n_outputs")), 3);
    CHECK_EQ_INT(json_integer_value(json_object_get(j, "n_train_rows")), 123);
    CHECK_STR(json_string_value(json_array_get(json_object_get(j, "classes"), 2)), "c");
    CHECK_STR(json_string_value(
                  json_object_get(json_array_get(json_object_get(j, "features"), 1), "name")),
              "color");
    CHECK_STR(json_string_value(json_object_get(json_object_get(j, "params"), "max_depth")), "3");
    json_t *summary = json_object_get(j, "model");
    CHECK_STR(json_string_value(json_object_get(summary, "kind")), "tree");
    CHECK_EQ_INT(json_integer_value(json_object_get(summary, "n_nodes")), 10);
    CHECK_EQ_INT(json_integer_value(json_object_get(summary, "n_leaves")), 6);
    CHECK_EQ_INT(json_integer_value(json_object_get(summary, "depth")), 3);
    json_decref(j);
    grove_string_free(info);

    /* arguments */
    CHECK_STATUS(grove_model_save(NULL, p1), GROVE_ERR_ARG);
    CHECK_STATUS(grove_model_save(m, NULL), GROVE_ERR_ARG);
    grove_model *none = (grove_model *)1;
    CHECK_STATUS(grove_model_load(NULL, &none), GROVE_ERR_ARG);
    CHECK(none == NULL);
    CHECK_STATUS(grove_model_load(p1, NULL), GROVE_ERR_ARG);
    CHECK_STATUS(grove_model_info_json(NULL, &info), GROVE_ERR_ARG);
    CHECK(grove_model_schema(NULL) == NULL && grove_model_n_outputs(NULL) == 0);
    grove_model_free(NULL);

    free(t1);
    free(t2);
    free(t3);
    grove_model_free(l);
    grove_model_free(m);
}

/* The writer refuses a model the reader would refuse (our trainer's bugs show at save time). */
static void test_save_refuses_invalid(void)
{
    const char *p = tmp_path("invalid.json");
    grove_model *m = make_model();
    gv_tree *t = m->root.impl;
    t->nodes[0].threshold = 1.25f; /* not the cut point of bin_split 2 */
    CHECK_STATUS(grove_model_save(m, p), GROVE_ERR_INTERNAL);
    CHECK_CONTAINS(grove_last_error(), "cannot write an invalid model: model: node 0: threshold "
                                       "1.25 is not cut point 2 (1.5) of feature 'x'");
    t->nodes[0].threshold = 1.5f;
    t->nodes[0].bin_split = 4;
    CHECK_STATUS(grove_model_save(m, p), GROVE_ERR_INTERNAL);
    CHECK_CONTAINS(grove_last_error(), "node 0: bin_split 4, but feature 'x' has 3 cut points");
    t->nodes[0].bin_split = 2;
    t->values[0] = NAN;
    CHECK_STATUS(grove_model_save(m, p), GROVE_ERR_INTERNAL);
    CHECK_CONTAINS(grove_last_error(), "node 0: value 0 is not finite");
    t->values[0] = 1.0 / 3;
    m->mappers[0].cuts[1] = 0.25f;
    CHECK_STATUS(grove_model_save(m, p), GROVE_ERR_INTERNAL);
    CHECK_CONTAINS(grove_last_error(), "bins[0]: cuts[1] = 0.25 is not above cuts[0] = 0.5");
    m->mappers[0].cuts[1] = 1.5f;
    gv_free(m->schema->feature_names[3]);
    m->schema->feature_names[3] = gv_strdup("color");
    CHECK_STATUS(grove_model_save(m, p), GROVE_ERR_INTERNAL);
    CHECK_CONTAINS(grove_last_error(), "features[3]: the name 'color' is also feature 1");
    gv_free(m->schema->feature_names[3]);
    m->schema->feature_names[3] = gv_strdup("y\xff");
    CHECK_STATUS(grove_model_save(m, p), GROVE_ERR_DATA);
    CHECK_CONTAINS(grove_last_error(), "the name of feature 3 is not valid UTF-8");
    gv_free(m->schema->feature_names[3]);
    m->schema->feature_names[3] = gv_strdup("y2");
    gv_free(m->algo);
    m->algo = gv_strdup("id3");
    CHECK_STATUS(grove_model_save(m, p), GROVE_ERR_INTERNAL);
    CHECK_CONTAINS(grove_last_error(), "algo: 'id3' differs from the parameter algo 'tree'");
    gv_free(m->algo);
    m->algo = gv_strdup("tree");
    m->n_outputs = 1;
    CHECK_STATUS(grove_model_save(m, p), GROVE_ERR_INTERNAL);
    CHECK_CONTAINS(grove_last_error(), "n_outputs: must be 3 (the number of classes), got 1");
    m->n_outputs = 3;
    CHECK_OK(grove_model_save(m, p));
    CHECK(access(p, F_OK) == 0);
    grove_model_free(m);
}

static void test_atomic_save(void)
{
    grove_model *m = make_model();
    char path[600];

    /* a folder that does not exist: an error naming the path, nothing created */
    snprintf(path, sizeof path, "%s/no/such/dir/m.json", tmpdir);
    CHECK_STATUS(grove_model_save(m, path), GROVE_ERR_IO);
    CHECK_CONTAINS(grove_last_error(), path);
    CHECK_CONTAINS(grove_last_error(), "No such file or directory");
    CHECK_EQ_INT(count_temp_files(tmpdir), 0);

    /* replacing an existing file */
    const char *p = tmp_path("replace.json");
    write_all(p, "old contents\n", 13);
    CHECK_OK(grove_model_save(m, p));
    size_t n;
    char *s = read_all(p, &n);
    CHECK(n > 13 && !strncmp(s, "{\n \"format\": \"grove-model\"", 26));
    free(s);
    CHECK_EQ_INT(count_temp_files(tmpdir), 0);
    struct stat st;
    CHECK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0644); /* the old file's mode, not 0600 */

    /* a failing save leaves the old file intact and no temp file: every allocation failure */
    write_all(p, "old contents\n", 13);
    int failures = 0;
    for (long k = 1; k < 100000; k++) {
        gv_alloc_fail_after(k);
        grove_status r = grove_model_save(m, p);
        gv_alloc_fail_after(0);
        if (r == GROVE_OK) break;
        failures++;
        CHECK_EQ_INT(r, GROVE_ERR_NOMEM);
        s = read_all(p, &n);
        CHECK(n == 13 && !memcmp(s, "old contents\n", 13));
        free(s);
        CHECK_EQ_INT(count_temp_files(tmpdir), 0);
    }
    CHECK(failures > 10);

    /* a failing write (file size limit: EFBIG) after the temporary file exists */
    write_all(p, "old contents\n", 13);
    struct rlimit old_limit, small;
    if (getrlimit(RLIMIT_FSIZE, &old_limit) == 0) {
        small = old_limit;
        small.rlim_cur = 100;
        void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
        if (setrlimit(RLIMIT_FSIZE, &small) == 0) {
            grove_status r = grove_model_save(m, p);
            setrlimit(RLIMIT_FSIZE, &old_limit);
            CHECK_EQ_INT(r, GROVE_ERR_IO);
            CHECK_CONTAINS(grove_last_error(), "cannot write: File too large");
            CHECK_CONTAINS(grove_last_error(), p);
            s = read_all(p, &n);
            CHECK(n == 13 && !memcmp(s, "old contents\n", 13));
            free(s);
            CHECK_EQ_INT(count_temp_files(tmpdir), 0);
        }
        signal(SIGXFSZ, old_handler);
    }

    /* a folder is refused before anything is written (grove_output) */
    const char *dir = tmp_path("a_folder");
    mkdir(dir, 0755);
    write_all(tmp_path("a_folder/keep"), "x", 1);
    CHECK_STATUS(grove_model_save(m, dir), GROVE_ERR_IO);
    CHECK_CONTAINS(grove_last_error(), "is a folder");
    CHECK_EQ_INT(count_temp_files(tmpdir), 0);
    unlink(tmp_path("a_folder/keep"));
    rmdir(dir);
    grove_model_free(m);
}

/* ---- the loader against bad files ---- */

static char *valid_text;
static size_t valid_len;

/* Loads `text` from a file; expects GROVE_ERR_MODEL and a message with `want` (and the path
 * first). */
static void expect_reject(const char *text, size_t len, const char *want, int line)
{
    const char *p = tmp_path("bad.json");
    write_all(p, text, len);
    grove_model *m = (grove_model *)1;
    grove_status st = grove_model_load(p, &m);
    check_count_++;
    if (st != GROVE_ERR_MODEL || m != NULL || strncmp(grove_last_error(), p, strlen(p)) != 0 ||
        !strstr(grove_last_error(), want)) {
        check_failures_++;
        fprintf(stderr, "%s:%d: load should fail with GROVE_ERR_MODEL and '%s', got %d: %s\n",
                __FILE__, line, want, (int)st, grove_last_error());
    }
    if (st == GROVE_OK) grove_model_free(m);
}
#define EXPECT_REJECT(text, len, want) expect_reject(text, len, want, __LINE__)

static void set_checksum(json_t *doc)
{
    json_object_del(doc, "crc32");
    char *canon = json_dumps(doc, CANONICAL);
    char hex[9];
    snprintf(hex, sizeof hex, "%08lx", crc32(0L, (const Bytef *)canon, (uInt)strlen(canon)));
    free(canon);
    json_object_set_new(doc, "crc32", json_string(hex));
}

/* The model checksum of doc is zlib's crc32 of its canonical text (CANONICAL), as 8 hex digits;
 * doc is released. */
static void check_checksum_is_crc32(json_t *doc)
{
    char *canon = json_dumps(doc, CANONICAL);
    char want[9], got[9] = "";
    snprintf(want, sizeof want, "%08lx",
             crc32(0L, (const Bytef *)canon, (uInt)strlen(canon)) & 0xFFFFFFFFul);
    CHECK_OK(gv_model_doc_checksum(doc, got));
    CHECK_STR(got, want);
    free(canon);
    json_decref(doc);
}

/* gv_model_doc_checksum (which writes the canonical text of containers and plain strings
 * itself) agrees with the CRC of jansson's canonical dump, on documents with every kind of value
 * and key: escapes, control characters, non-ASCII, 0x7f, '/', empty containers, numbers. */
static void test_doc_checksum(void)
{
    static const char *const docs[] = {
        "{}",
        "[]",
        "{\"b\": 1, \"a\": [], \"c\": {}, \"ab\": [{}, [], [[]]], \"a\\u0001\": 0}",
        "{\"x\": \"plain 0 1 -2 3.5e-7 leaf num\", \"y\": \"q\\\"uote\", \"z\": \"back\\\\slash\"}",
        "{\"\\u00e9t\\u00e9\": \"\\u00e9\\u4e2d\\ud83d\\ude00\", \"ctl\": \"a\\u0001b\\n\\t\\r\\b\\f\", \"nul\": \"a\\u0000b\"}",
        "{\"del\": \"\\u007f\", \"slash\": \"a/b\", \"k\\\"ey\": \"v\", \"k\\\\\": \"\", \"\": \"\"}",
        "{\"n\": [0, -1, 9007199254740993, -9223372036854775808, 0.1, -0.0, 1e300, 5e-324, "
        "2.5, 1.7976931348623157e308, 123456789.123456789], \"t\": true, \"f\": false, "
        "\"z\": null}",
        "[\"\", \" \", \"~\", \"  two  spaces \", [1, [2, [3, {\"d\": [4]}]]]]",
        /* each escape in the middle of a long string (the 8-byte test) */
        "[\"0123456789abcdef\\u007f0123\", \"01234567\\\"89abcdef\", \"0123456789\\u00e9abc\", "
        "\"0123456789\\\\abcdef\", \"01234567\\u001f89abcdef\", \"0123456789abcdef0123456!~ \", "
        "\"abcdefgh\\u0020ijklmnop\\u0080\"]",
    };
    for (size_t i = 0; i < sizeof docs / sizeof *docs; i++) {
        json_error_t e;
        json_t *doc = json_loads(docs[i], JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
        CHECK(doc != NULL);
        if (!doc) {
            fprintf(stderr, "doc %zu: %s\n", i, e.text);
            continue;
        }
        check_checksum_is_crc32(doc);
    }
    /* a long packed string, as a model's arrays are */
    gv_buf b = {0};
    for (int k = 0; k < 100000; k++) CHECK(gv_packed_add_real(&b, k * 0.37 - 5) == 0);
    json_t *doc = json_pack("{s:o, s:s}", "values", gv_packed_json(&b), "name", "f\"1");
    gv_buf_free(&b);
    check_checksum_is_crc32(doc);
    /* reals (a model's bin cut points: summed with the fast %.17g, written as jansson writes
     * them): whole ones (".0" added), the exponents of [1e-5, 1e-4) and beyond the fast range,
     * random ones of every magnitude */
    {
        json_t *d = json_object(), *arr = json_array();
        const double fixed[] = {0.5,   15.0,   -3.0, 1e15, 9.5e15, 1e16,  1.5e-5, 1e-5, 9.99e-5,
                                1e-4,  0.0001, -0.0, 0.0,  1e17,  1e300, 5e-324, 1e-300, 123456789.0,
                                0.1,   1.0 / 3, 2.5, 4e-5, -7.25e-5};
        for (size_t i = 0; i < N_OF(fixed); i++) json_array_append_new(arr, json_real(fixed[i]));
        gv_rng rng;
        gv_rng_seed(&rng, 17, 2, 0);
        for (int k = 0; k < 20000; k++) {
            double m = (double)(gv_rng_next(&rng) >> 11) / 9007199254740992.0;
            int e = (int)(gv_rng_next(&rng) % 50) - 25;
            double x = k % 4 == 0 ? floor(m * 1e6) : m * pow(10, e);
            json_array_append_new(arr, json_real(k % 3 == 0 ? -x : x));
        }
        json_object_set_new(d, "cuts", arr);
        check_checksum_is_crc32(d);
    }
    /* many long strings (summed apart, on threads, and combined), one of them long but not
     * plain (its escapes send the sum back to the sequential way), long keys */
    for (int with_escape = 0; with_escape < 2; with_escape++) {
        json_t *d = json_object(), *arr = json_array();
        char *s = malloc(20001);
        for (int k = 0; k < 40; k++) {
            for (int i = 0; i < 20000; i++) s[i] = (char)('0' + (i * 7 + k) % 10);
            s[k * 400 + 3] = ' ';
            s[5000 + k * 300] = '\0';
            json_array_append_new(arr, json_string(s));
            s[5000 + k * 300] = '1';
            s[20000] = '\0';
            if (k % 9 == 0) json_object_set_new(d, s + k * 100, json_integer(k));
        }
        if (with_escape) {
            s[4321] = '"';
            s[12345] = '\n';
            json_array_append_new(arr, json_string(s));
        }
        json_object_set_new(d, "arrays", arr);
        json_object_set_new(d, "small", json_string("x"));
        free(s);
        check_checksum_is_crc32(d);
    }
}

/* Loads valid_text with feature names names[0..3) (set_checksum): 1 when it loads with exactly
 * those names. */
static int loads_with_names(const char *const names[3])
{
    json_t *doc = json_loads(valid_text, 0, NULL);
    json_t *features = json_object_get(json_object_get(doc, "schema"), "features");
    CHECK(json_array_size(features) >= 3);
    for (size_t f = 0; f < 3; f++)
        json_object_set_new(json_array_get(features, f), "name", json_string(names[f]));
    set_checksum(doc);
    char *text = json_dumps(doc, JSON_INDENT(1));
    json_decref(doc);
    const char *p = tmp_path("names.json");
    write_all(p, text, strlen(text));
    free(text);
    grove_model *m = NULL;
    int ok = grove_model_load(p, &m) == GROVE_OK;
    if (!ok) fprintf(stderr, "  %s\n", grove_last_error());
    for (size_t f = 0; ok && f < 3; f++)
        ok = !strcmp(grove_schema_feature_name(grove_model_schema(m), f), names[f]);
    grove_model_free(m);
    return ok;
}

/* The long strings the text loader keeps away from jansson (model_file.c, str_filter): keys stay
 * keys, errors keep the file's line and column, and a file that spells "\u0001" (whose strings
 * could look like placeholders) is read as it is. */
static void test_long_strings(void)
{
    char a[300], b[300], q[300];
    memset(a, 'a', sizeof a - 1);
    a[sizeof a - 1] = '\0';
    memset(b, 'b', sizeof b - 1);
    b[sizeof b - 1] = '\0';
    memcpy(q, b, sizeof q);
    q[150] = '"';         /* an escape in the middle of a long string */
    q[160] = '\x7f';
    gv_buf t = {0};
    CHECK(gv_buf_printf(&t, "{\"%s\" \n\t: 1, \"%s\":2}", a, a) == 0);
    EXPECT_REJECT(t.data, t.len, "duplicate");
    t.len = 0;
    CHECK(gv_buf_printf(&t, "{\"%s\" \r\n : \"%s\"}", a, b) == 0);
    EXPECT_REJECT(t.data, t.len, "not a grove model file");
    /* a syntax error after long strings on its line: jansson's own line and column */
    static const char *const tails[] = {" 1}", "}", "", ", \"x\": \"\\u00", ", \"y\": [1,,2]}"};
    for (size_t i = 0; i < sizeof tails / sizeof *tails; i++) {
        t.len = 0;
        CHECK(gv_buf_printf(&t, "{\"format\": \"%s\",\n \"x\": \"%s\", \"z\": \"%s\"%s", a, b, a,
                            tails[i]) == 0);
        if (i == 1) t.data[t.len - 2] = ' '; /* a value with no closing quote */
        json_error_t e;
        json_t *none = json_loadb(t.data, t.len, JSON_REJECT_DUPLICATES, &e);
        CHECK(none == NULL);
        json_decref(none);
        char want[300];
        snprintf(want, sizeof want, "bad.json:%d:%d: %s", e.line, e.column, e.text);
        EXPECT_REJECT(t.data, t.len, want);
    }
    gv_buf_free(&t);
    /* long names (taken out and put back), one with an escape, one that looks like a
     * placeholder (read again without the filter) */
    const char *const plain[3] = {a, b, "f"};
    CHECK(loads_with_names(plain));
    const char *const escaped[3] = {q, a, "\x01"};
    CHECK(loads_with_names(escaped));
    const char *const lookalike[3] = {"\x01" "0", a, b};
    CHECK(loads_with_names(lookalike));
    const char *const lookalike2[3] = {a, "\x01" "1", "\x01" "0"};
    CHECK(loads_with_names(lookalike2));
}

/* Packed string s with entry k replaced by `token` (NULL: entry k removed, with a space), as a
 * new JSON string; NULL when s has no entry k. */
static json_t *packed_edit(const char *s, size_t k, const char *token)
{
    size_t len = strlen(s), start = 0;
    for (size_t i = 0; i < k; i++) {
        const char *q = strchr(s + start, ' ');
        if (!q) return NULL;
        start = (size_t)(q - s) + 1;
    }
    const char *q = strchr(s + start, ' ');
    size_t end = q ? (size_t)(q - s) : len;
    if (start == len && !token) return NULL;
    if (!token) { /* drop the entry and the space after it (before it, for the last one) */
        if (q)
            end++;
        else if (start > 0)
            start--;
        token = "";
    }
    size_t n = strlen(token);
    char *t = malloc(len + n + 1);
    memcpy(t, s, start);
    memcpy(t + start, token, n);
    memcpy(t + start + n, s + end, len - end + 1);
    json_t *v = json_string(t);
    free(t);
    return v;
}

/* The entries of a packed string (its spaces + 1; 0 when empty). */
static size_t packed_count(const char *s)
{
    size_t n = *s != '\0';
    for (; *s; s++) n += *s == ' ';
    return n;
}

/* Sets (value != NULL) or removes the member or element at a path like "model.left[0]" or
 * "schema.features[1].categories".  An index into a string edits a packed array: entry k
 * becomes value's text (a string as it is, an integer in decimal, a real as %.17g). */
static int edit_path(json_t *doc, const char *path, json_t *value)
{
    json_t *cur = doc;
    const char *s = path;
    for (;;) {
        char key[64];
        size_t k = strcspn(s, ".[");
        memcpy(key, s, k);
        key[k] = '\0';
        s += k;
        long index = -1;
        if (*s == '[') {
            index = strtol(s + 1, (char **)&s, 10);
            s++; /* ']' */
        }
        int last = *s == '\0';
        if (last && index < 0) {
            if (value) return json_object_set_new(cur, key, value);
            return json_object_del(cur, key);
        }
        json_t *next = k ? json_object_get(cur, key) : cur;
        if (last && json_is_string(next)) {
            char text[64];
            const char *token = NULL;
            if (json_is_string(value)) token = json_string_value(value);
            if (json_is_integer(value)) {
                snprintf(text, sizeof text, "%lld", (long long)json_integer_value(value));
                token = text;
            }
            if (json_is_real(value)) {
                snprintf(text, sizeof text, "%.17g", json_real_value(value));
                token = text;
            }
            json_t *edited = packed_edit(json_string_value(next), (size_t)index, token);
            json_decref(value);
            return edited ? json_object_set_new(cur, key, edited) : -1;
        }
        if (last) {
            if (value) return json_array_set_new(next, (size_t)index, value);
            return json_array_remove(next, (size_t)index);
        }
        cur = index >= 0 ? json_array_get(next, (size_t)index) : next;
        if (*s == '.') s++;
        if (!cur) return -1;
    }
}

/* A file (`base`) with one field changed and the checksum recomputed: structure must reject. */
static void reject_edit_of(const char *base, const char *path, json_t *value, const char *want,
                           int line)
{
    json_error_t err;
    json_t *doc = json_loadb(base, strlen(base), 0, &err);
    if (edit_path(doc, path, value) != 0) {
        check_failures_++;
        fprintf(stderr, "%s:%d: cannot edit %s\n", __FILE__, line, path);
    }
    set_checksum(doc);
    char *text = json_dumps(doc, FILE_FLAGS);
    expect_reject(text, strlen(text), want, line);
    free(text);
    json_decref(doc);
}
#define REJECT_EDIT(path, value, want) reject_edit_of(valid_text, path, value, want, __LINE__)

static void test_load_rejects(void)
{
    grove_model *m = make_model();
    const char *good = tmp_path("good.json");
    CHECK_OK(grove_model_save(m, good));
    grove_model_free(m);
    valid_text = read_all(good, &valid_len);

    /* not there, empty, not JSON, foreign JSON */
    grove_model *l = (grove_model *)1;
    CHECK_STATUS(grove_model_load(tmp_path("missing.json"), &l), GROVE_ERR_IO);
    CHECK(l == NULL);
    CHECK_CONTAINS(grove_last_error(), "missing.json: cannot open: No such file or directory");
    CHECK_STATUS(grove_model_load(tmpdir, &l), GROVE_ERR_IO); /* a folder */
    EXPECT_REJECT("", 0, "empty file");
    /* text that is not a JSON object (a data file given as MODEL) is named, not parsed */
    EXPECT_REJECT("hello, world\n", 13,
                  "bad.json: is not a grove model file (it starts with \"hello, world\"");
    EXPECT_REJECT("label,x\n1,2\n", 12, "is not a grove model file (it starts with \"label,x\"");
    EXPECT_REJECT("{\"a\":1}", 7, "not a grove model file");
    EXPECT_REJECT("[1,2]", 5, "is not a grove model file (it starts with \"[1,2]\"");
    EXPECT_REJECT("{\"format\":\"other\"}", 18, "not a grove model file");
    EXPECT_REJECT("{\"format\":\"grove-model\",\"format\":\"grove-model\"}", 47, "duplicate");
    EXPECT_REJECT("\x1f\x8b\x08\x00", 4, "bad.json:");

    /* every truncation: a clean GROVE_ERR_MODEL, no leak, no crash; the full text minus its
     * final newline is still the whole document */
    for (size_t len = 0; len + 1 < valid_len; len++) {
        const char *p = tmp_path("trunc.json");
        write_all(p, valid_text, len);
        grove_model *t = (grove_model *)1;
        grove_status st = grove_model_load(p, &t);
        if (st != GROVE_ERR_MODEL || t != NULL) {
            CHECK_EQ_INT(st, GROVE_ERR_MODEL);
            fprintf(stderr, "  truncated to %zu bytes: %s\n", len, grove_last_error());
            if (st == GROVE_OK) grove_model_free(t);
            break;
        }
    }
    {
        const char *p = tmp_path("trunc.json");
        write_all(p, valid_text, valid_len - 1);
        CHECK_OK(grove_model_load(p, &l));
        grove_model_free(l);
    }
    /* a truncated file names line and column */
    EXPECT_REJECT(valid_text, valid_len / 2, "bad.json:");

    /* a flipped digit: the checksum catches it */
    char *flip = malloc(valid_len + 1);
    memcpy(flip, valid_text, valid_len + 1);
    char *rows = strstr(flip, "\"n_train_rows\": 123");
    CHECK(rows != NULL);
    if (rows) rows[strlen("\"n_train_rows\": 12")] = '4';
    EXPECT_REJECT(flip, valid_len, "checksum mismatch: the file was modified or corrupted");
    /* a flipped digit in a real number, too */
    memcpy(flip, valid_text, valid_len + 1);
    char *third = strstr(flip, "0.33333333333333331");
    CHECK(third != NULL);
    if (third) third[3] = '4';
    EXPECT_REJECT(flip, valid_len, "checksum mismatch");
    /* NaN is not JSON */
    memcpy(flip, valid_text, valid_len + 1);
    char *th = strstr(flip, "1.5,");
    CHECK(th != NULL);
    if (th) memcpy(th, "NaN", 3);
    EXPECT_REJECT(flip, valid_len, "bad.json:");
    free(flip);

    /* versions and identification */
    REJECT_EDIT("version", json_pack("[i,i]", 2, 0),
                "written by a newer grove (format 2.0); this build reads format 1.x");
    REJECT_EDIT("version", json_pack("[i,i]", 0, 9), "format 0.9 is not supported");
    REJECT_EDIT("version", json_pack("[i]", 1), "version: expected [major, minor]");
    REJECT_EDIT("version", NULL, "version: expected [major, minor]");
    REJECT_EDIT("format", NULL, "not a grove model file");
    REJECT_EDIT("extra", json_integer(1), "unknown field 'extra' in the model file");
    {
        /* crc32 absent or malformed */
        json_error_t err;
        json_t *doc = json_loadb(valid_text, valid_len, 0, &err);
        json_object_del(doc, "crc32");
        char *text = json_dumps(doc, FILE_FLAGS);
        EXPECT_REJECT(text, strlen(text), "crc32: missing");
        free(text);
        json_object_set_new(doc, "crc32", json_string("XYZ"));
        text = json_dumps(doc, FILE_FLAGS);
        EXPECT_REJECT(text, strlen(text), "crc32: expected 8 lowercase hexadecimal digits");
        free(text);
        json_decref(doc);
    }
    {
        /* a newer minor version with only known fields is read */
        json_error_t err;
        json_t *doc = json_loadb(valid_text, valid_len, 0, &err);
        json_object_set_new(doc, "version", json_pack("[i,i]", 1, 7));
        set_checksum(doc);
        char *text = json_dumps(doc, FILE_FLAGS);
        const char *p = tmp_path("minor.json");
        write_all(p, text, strlen(text));
        CHECK_OK(grove_model_load(p, &l));
        grove_model_free(l);
        free(text);
        json_decref(doc);
    }

    /* top-level fields */
    REJECT_EDIT("n_outputs", json_string("3"), "n_outputs: expected an integer, got a string");
    REJECT_EDIT("n_outputs", json_integer(2), "n_outputs: must be 3 (the number of classes)");
    REJECT_EDIT("n_outputs", json_integer(0), "n_outputs: must be in [1, 65536], got 0");
    REJECT_EDIT("n_train_rows", json_integer(-1), "n_train_rows: must be in [0, ");
    REJECT_EDIT("n_train_rows", NULL, "n_train_rows: missing");
    REJECT_EDIT("algo", json_string("id3"), "algo: 'id3' differs from the parameter algo 'tree'");
    REJECT_EDIT("algo", json_real(1), "algo: expected a string, got a real number");
    REJECT_EDIT("grove_version", NULL, "grove_version: missing");
    REJECT_EDIT("params.foo", json_string("1"), "params: unknown parameter 'foo'");
    REJECT_EDIT("params.max_depth", json_string("-1"), "params: max_depth: must be an integer");
    REJECT_EDIT("params.max_depth", json_integer(3), "params: max_depth: expected a string");
    REJECT_EDIT("params.threads", json_string("2"),
                "params: threads: an execution setting, not stored in models");
    REJECT_EDIT("params", json_array(), "params: expected an object, got an array");
    REJECT_EDIT("model", NULL, "model: missing");
    REJECT_EDIT("model.kind", json_string("forest"), "unknown component kind 'forest'");
    REJECT_EDIT("model.kind", NULL, "model: kind: missing");

    /* schema */
    REJECT_EDIT("schema.task", json_string("ranking"), "schema: task: expected \"classification\"");
    REJECT_EDIT("schema.colour", json_true(), "schema: unknown field 'colour' in the schema");
    REJECT_EDIT("schema.features", json_array(), "schema: features: expected an array of at least");
    REJECT_EDIT("schema.features[3].name", json_string("x"),
                "schema: features[3]: the name 'x' is also feature 0");
    REJECT_EDIT("schema.features[0].name", json_integer(7),
                "schema: features[0]: name: expected a string, got an integer");
    REJECT_EDIT("schema.features[0].type", json_string("ordinal"),
                "features[0]: type: expected \"numeric\" or \"categorical\", got \"ordinal\"");
    REJECT_EDIT("schema.features[0].categories", json_pack("[s]", "a"),
                "features[0]: categories: a numeric feature has no categories");
    REJECT_EDIT("schema.features[1].categories[1]", json_string("red"),
                "features[1]: categories[1]: 'red' is also entry 0");
    REJECT_EDIT("schema.features[1].categories", NULL, "features[1]: categories: missing");
    REJECT_EDIT("schema.features[1].size", json_integer(1),
                "features[1]: unknown field 'size' in a feature");
    REJECT_EDIT("schema.classes[2]", json_string("a"), "schema: classes[2]: 'a' is also entry 0");
    REJECT_EDIT("schema.classes", json_pack("[s]", "a"),
                "classes: a classification model needs at least 2 classes");
    REJECT_EDIT("schema.classes", json_pack("[s,i,s]", "a", 1, "c"),
                "schema: classes[1]: expected a string, got an integer");
    REJECT_EDIT("schema.label", NULL, "schema: label: missing");

    /* bins */
    REJECT_EDIT("bins[3]", NULL, "bins: expected 4 entries (one per feature), got 3");
    REJECT_EDIT("bins[1].n_bins", json_integer(4),
                "bins[1]: categorical feature 'color' has 4 categories, so 5 bins, got 4");
    REJECT_EDIT("bins[0].n_bins", json_integer(65537), "bins[0]: n_bins: must be in [0, 65536]");
    REJECT_EDIT("bins[0].n_bins", json_integer(4), "bins[0]: 4 bins need 2 cut points, got 3");
    /* format 1.2: a numeric feature's bins may be left out ({"n_bins": 0}) only when no split
     * reads it, and then without cuts; a categorical feature's never */
    REJECT_EDIT("bins[0]", json_pack("{s:i}", "n_bins", 0), "model: node 0 splits on feature 'x', whose bins are not in the file");
    REJECT_EDIT("bins[0]", json_pack("{s:i, s:[]}", "n_bins", 0, "cuts"),
                "bins[0]: n_bins 0 (not stored) is for a numeric feature, without cuts");
    REJECT_EDIT("bins[1]", json_pack("{s:i}", "n_bins", 0),
                "bins[1]: n_bins 0 (not stored) is for a numeric feature, without cuts");
    REJECT_EDIT("bins[0].cuts[1]", json_real(0.25), "bins[0]: cuts[1] = 0.25 is not above cuts[0]");
    REJECT_EDIT("bins[0].cuts[1]", json_real(0.1), "bins[0]: cuts[1]: 0.10000000000000001 is not a "
                                                   "float value");
    REJECT_EDIT("bins[0].cuts[1]", json_real(1e300), "is not a float value");
    REJECT_EDIT("bins[0].cuts[1]", json_string("1"), "bins[0]: cuts[1]: expected a number");
    REJECT_EDIT("bins[0].cuts", NULL, "bins[0]: cuts: missing");
    REJECT_EDIT("bins[1].cuts", json_array(), "bins[1]: a categorical feature has no cuts");
    REJECT_EDIT("bins[1].width", json_integer(1), "bins[1]: unknown field 'width' in a bin mapper");

    /* the tree: structure (each message names the node) */
    REJECT_EDIT("model.left[0]", json_integer(99), "model: node 0: left child 99 is not a node");
    REJECT_EDIT("model.right[7]", json_integer(2), "model: node 7: right child 2 is not after its "
                                                   "parent");
    REJECT_EDIT("model.left[1]", json_integer(1), "node 1: left child 1 is not after its parent");
    REJECT_EDIT("model.right[1]", json_integer(5), "is already a child of node 1");
    REJECT_EDIT("model.feature[0]", json_integer(9), "node 0: feature 9 is not a feature");
    REJECT_EDIT("model.feature[0]", json_integer(2),
                "node 0: a numeric split on categorical feature 2 ('shape')");
    REJECT_EDIT("model.feature[1]", json_integer(0),
                "node 1: a categorical split on numeric feature 0 ('x')");
    REJECT_EDIT("model.feature[7]", json_integer(1),
                "node 7: a numeric split on categorical feature 1 ('color')");
    REJECT_EDIT("model.type[0]", json_string("cat_set"),
                "node 0: a cat_set node must have threshold 0");
    REJECT_EDIT("model.type[0]", json_string("oak"), "model: type[0]: expected \"leaf\", \"num\"");
    REJECT_EDIT("model.type[0]", json_integer(1), "model: type[0]: expected \"leaf\"");
    REJECT_EDIT("model.cat_begin[2]", json_integer(3),
                "node 2: categories [3, 3 + 3) lie outside cat_data (4 entries)");
    REJECT_EDIT("model.cat_len[1]", json_integer(4000000000),
                "node 1: categories [0, 0 + 4000000000) lie outside cat_data");
    REJECT_EDIT("model.cat_len[2]", json_integer(2), "node 2: a child map of 2 entries for feature "
                                                     "'shape' with 3 categories");
    REJECT_EDIT("model.cat_data[3]", json_integer(100),
                "node 2: child of category 2 100 is not a node");
    REJECT_EDIT("model.cat_data[3]", json_integer(5), "node 6: not reachable from the root");
    REJECT_EDIT("model.cat_data[3]", json_integer(-1), "cat_data[3]: must be in [0, 4294967295]");
    REJECT_EDIT("model.depth[5]", json_integer(7), "node 5: depth 7, but its parent 2 has depth 1");
    REJECT_EDIT("model.threshold[0]", json_real(1e39),
                "model: threshold[0]: 9.9999999999999994e+38 is not a float value");
    REJECT_EDIT("model.threshold[0]", json_real(1.25),
                "node 0: threshold 1.25 is not cut point 2 (1.5) of feature 'x'");
    REJECT_EDIT("model.bin_split[0]", json_integer(0), "node 0: bin_split must be >= 1");
    REJECT_EDIT("model.bin_split[0]", json_integer(4),
                "node 0: bin_split 4, but feature 'x' has 3");
    REJECT_EDIT("model.values[3]", json_real(1.5), "node 1: class probability 0 is 1.5");
    REJECT_EDIT("model.values[3]", json_real(0.5), "node 1: class probabilities sum to");
    REJECT_EDIT("model.gain[9]", NULL, "model: gain: expected 10 entries, got 9");
    REJECT_EDIT("model.values[29]", NULL, "model: values: expected 30 entries, got 29");
    REJECT_EDIT("model.n_nodes", json_integer(11), "model: type: expected 11 entries, got 10");
    REJECT_EDIT("model.n_nodes", json_integer(0), "model: n_nodes: must be in [1, ");
    REJECT_EDIT("model.n_outputs", json_integer(1), "model: values: expected 10 entries, got 30");
    REJECT_EDIT("model.feature[3]", json_integer(0), "node 3: a leaf node must have feature -1");
    REJECT_EDIT("model.left[3]", json_integer(0), "node 3: a leaf node must have left -1, got 0");
    REJECT_EDIT("model.threshold[1]", json_real(2), "node 1: a cat_set node must have threshold 0");
    REJECT_EDIT("model.left[2]", json_integer(5), "node 2: a cat_multi node must have left -1");
    REJECT_EDIT("model.default_left[0]", json_integer(2), "default_left[0]: must be in [0, 1]");
    REJECT_EDIT("model.feature[1]", json_string("1.0"),
                "model: feature[1]: expected an integer, got \"1.0\"");
    REJECT_EDIT("model.branches", json_integer(2), "model: unknown field 'branches' in a tree");
    REJECT_EDIT("model.cat_data", NULL, "model: cat_data: missing");
    REJECT_EDIT("model.count[4]", json_real(-1), "node 4: gain 0, weight 2, count -1");
    CHECK_EQ_INT(count_temp_files(tmpdir), 0);
}

/* Loads an edited document (checksum recomputed; doc is freed): it either loads, and then every
 * row of d walks to a leaf (under ASan/valgrind the proof that validation guards every read of
 * the walk), or fails with GROVE_ERR_MODEL, leaving no model and a message that starts with
 * "fuzz: model: ".  Counts the outcome. */
static void load_edited(json_t *doc, const grove_dataset *d, int *loaded, int *rejected)
{
    set_checksum(doc);
    char *text = json_dumps(doc, FILE_FLAGS);
    json_decref(doc);
    grove_model *m = NULL;
    grove_status st = gv_model_from_text(text, strlen(text), "fuzz", &m);
    free(text);
    if (st == GROVE_OK) {
        (*loaded)++;
        const gv_tree *t = m->root.impl;
        for (size_t i = 0; i < d->n_rows; i++) {
            size_t leaf = gv_tree_leaf(t, d, i);
            if (leaf >= t->n_nodes || t->nodes[leaf].type != GV_NODE_LEAF) {
                CHECK_EQ_INT(leaf, -1);
                break;
            }
        }
        grove_model_free(m);
    } else {
        (*rejected)++;
        CHECK_EQ_INT(st, GROVE_ERR_MODEL);
        CHECK(m == NULL);
        CHECK_CONTAINS(grove_last_error(), "fuzz: model: ");
    }
}

/* Property: random small-integer edits of the tree's structural fields either load or fail
 * cleanly (load_edited). */
static void test_random_edits(void)
{
    static const char *const fields[] = {"feature",   "left",    "right",     "cat_begin",
                                         "cat_len",   "bin_split", "depth",   "cat_data",
                                         "default_left"};
    grove_dataset *d = make_data(0);
    gv_rng rng;
    gv_rng_seed(&rng, 12345, 7, 0);
    int loaded = 0, rejected = 0;
    for (int iter = 0; iter < 1500; iter++) {
        json_error_t err;
        json_t *doc = json_loadb(valid_text, valid_len, 0, &err);
        json_t *tree = json_object_get(doc, "model");
        int n_edits = 1 + (int)gv_rng_below(&rng, 3);
        for (int e = 0; e < n_edits; e++) {
            const char *f = fields[gv_rng_below(&rng, N_OF(fields))];
            const char *a = json_string_value(json_object_get(tree, f));
            size_t k = (size_t)gv_rng_below(&rng, packed_count(a));
            long long v = (long long)gv_rng_below(&rng, 14) - 2;
            if (!strcmp(f, "cat_data") && gv_rng_below(&rng, 4) == 0) v = 4294967295;
            char token[32];
            snprintf(token, sizeof token, "%lld", v);
            json_object_set_new(tree, f, packed_edit(a, k, token));
        }
        load_edited(doc, d, &loaded, &rejected);
    }
    CHECK(loaded > 10 && rejected > 100);
    grove_dataset_free(d);
}

/* Out of memory at every allocation of a load: NOMEM and nothing leaked (ASan/valgrind). */
static void test_load_out_of_memory(void)
{
    const char *p = tmp_path("good.json");
    int failures = 0;
    for (long k = 1; k < 100000; k++) {
        grove_model *m = (grove_model *)1;
        gv_alloc_fail_after(k);
        grove_status st = grove_model_load(p, &m);
        gv_alloc_fail_after(0);
        if (st == GROVE_OK) {
            grove_model_free(m);
            break;
        }
        failures++;
        CHECK_EQ_INT(st, GROVE_ERR_NOMEM);
        CHECK(m == NULL);
        CHECK_CONTAINS(grove_last_error(), "out of memory");
    }
    CHECK(failures > 20);
    /* and gv_model_to_text */
    grove_model *m = make_model();
    for (long k = 1; k < 100000; k++) {
        gv_buf text;
        gv_alloc_fail_after(k);
        grove_status st = gv_model_to_text(m, &text);
        gv_alloc_fail_after(0);
        if (st == GROVE_OK) {
            gv_buf_free(&text);
            break;
        }
        CHECK_EQ_INT(st, GROVE_ERR_NOMEM);
        CHECK(text.data == NULL);
    }
    grove_model_free(m);
}

/* A regression model (1 output) round-trips too. */
static void test_regression(void)
{
    grove_model *m = make_model();
    m->schema->task = GROVE_REGRESSION;
    gv_dict_free(&m->schema->classes);
    m->n_outputs = 1;
    gv_tree *t = m->root.impl;
    t->n_outputs = 1;
    for (size_t k = 0; k < t->n_nodes; k++) t->values[k] = -1e10 / (double)(k + 3);
    const char *p = tmp_path("reg.json");
    CHECK_OK(grove_model_save(m, p));
    grove_model *l = NULL;
    CHECK_OK(grove_model_load(p, &l));
    if (l) {
        CHECK_EQ_INT(l->schema->task, GROVE_REGRESSION);
        CHECK_EQ_INT(l->schema->classes.n, 0);
        grove_dataset *d = make_data(0);
        for (size_t i = 0; i < d->n_rows; i++) {
            double a, b;
            m->root.vt->predict_row(m->root.impl, d, i, &a);
            l->root.vt->predict_row(l->root.impl, d, i, &b);
            if (memcmp(&a, &b, sizeof a) != 0) {
                CHECK_EQ_DBL(a, b);
                break;
            }
        }
        grove_dataset_free(d);
    }
    grove_model_free(l);
    grove_model_free(m);
}

/* Loads `path` and checks its predictions against make_model()'s on every row. */
static void check_loads_like_make_model(const char *path)
{
    grove_model *m = make_model(), *l = NULL;
    CHECK_OK(grove_model_load(path, &l));
    if (l) {
        grove_dataset *d = make_data(0);
        double *pa = malloc(d->n_rows * 3 * sizeof *pa), *pb = malloc(d->n_rows * 3 * sizeof *pb);
        predict_all(m, d, pa);
        predict_all(l, d, pb);
        CHECK(memcmp(pa, pb, d->n_rows * 3 * sizeof *pa) == 0);
        free(pa);
        free(pb);
        grove_dataset_free(d);
    }
    grove_model_free(l);
    grove_model_free(m);
}

/* The stored files keep loading and predicting (old model files must keep working): the 1.0
 * file (JSON arrays), the 1.1 file (packed arrays, every bin mapper) and the 1.2 file (bin
 * mappers only for the features splits read); 1.0 and 1.1 files save as today's file. */
static void test_golden(void)
{
    char golden[512], golden10[512], golden11[512];
    test_src_path(GOLDEN, golden, sizeof golden);
    test_src_path(GOLDEN_1_0, golden10, sizeof golden10);
    test_src_path(GOLDEN_1_1, golden11, sizeof golden11);
    if (getenv("GROVE_REGEN_MODELS")) {
        grove_model *m = make_model();
        CHECK_OK(grove_model_save(m, golden));
        grove_model_free(m);
    }
    check_loads_like_make_model(golden);
    check_loads_like_make_model(golden10);
    check_loads_like_make_model(golden11);
    const char *old[] = {golden10, golden11};
    for (size_t k = 0; k < 2; k++) {
        grove_model *l = NULL;
        CHECK_OK(grove_model_load(old[k], &l));
        if (l) {
            const char *p = tmp_path("upgraded.json");
            CHECK_OK(grove_model_save(l, p));
            size_t n;
            char *t = read_all(p, &n);
            CHECK(t && n == valid_len && memcmp(t, valid_text, n) == 0);
            free(t);
        }
        grove_model_free(l);
    }
}

/* The packed-array helpers on their own: exact round trips at the edges of double and int64. */
/* Whether gv_packed_add_real writes x into the emptied b as printf's %.17g does (a failed
 * check names both texts). */
static int same_as_printf(gv_buf *b, double x)
{
    char printed[40];
    snprintf(printed, sizeof printed, "%.17g", x);
    b->len = 0;
    CHECK(gv_packed_add_real(b, x) == 0);
    if (strcmp(b->data, printed) == 0) return 1;
    CHECK_STR(b->data, printed);
    return 0;
}

/* gv_crc32 (ISA-L's crc32_gzip_refl) is zlib's crc32: every length to
 * 600 from every alignment to 16, longer ones, any starting value. */
static void test_crc32(void)
{
    enum { LEN = 200000 };
    unsigned char *b = malloc(LEN + 16);
    gv_rng rng;
    gv_rng_seed(&rng, 5, 7, 0);
    for (size_t i = 0; i < LEN + 16; i++) b[i] = (unsigned char)gv_rng_next(&rng);
    size_t bad = 0, n = 0;
    for (size_t len = 0; len <= 600; len++)
        for (size_t at = 0; at < 16; at++, n++) {
            uLong start = len % 3 == 0 ? crc32(0L, Z_NULL, 0) : (uLong)(gv_rng_next(&rng) & 0xFFFFFFFFu);
            bad += gv_crc32(start, b + at, len) != crc32(start, b + at, (uInt)len);
        }
    const size_t longer[] = {1024, 4095, 4096, 4097, 65536 + 48, 199999, LEN};
    for (size_t i = 0; i < N_OF(longer); i++, n++)
        bad += gv_crc32(0, b + i % 3, longer[i]) != crc32(0, b + i % 3, (uInt)longer[i]);
    CHECK_EQ_INT(bad, 0);
    CHECK(n > 9000);
    free(b);
}

/* The separators of long packed arrays (gv_packed_open counts them 64 bytes a step with AVX2):
 * every length, and an empty entry at every place -- across the steps' boundaries included --
 * found and named as in a short one. */
static void test_packed_separators(void)
{
    char s[400], want[64];
    for (size_t k = 1; k <= 190; k++) { /* "7 7 ... 7": k entries, 2k - 1 bytes */
        for (size_t i = 0; i < 2 * k - 1; i++) s[i] = i % 2 ? ' ' : '7';
        s[2 * k - 1] = '\0';
        json_t *obj = json_object();
        json_object_set_new(obj, "a", json_string(s));
        gv_packed r;
        CHECK_OK(gv_packed_open(obj, "a", k, 1, &r));
        CHECK_EQ_INT(r.n, k);
        /* entry j emptied: "7  7" (its neighbours' spaces now adjacent), or a space added at
         * either end */
        for (size_t j = 0; j < k; j++) {
            s[2 * j] = ' ';
            json_object_set_new(obj, "a", json_string(s));
            CHECK_STATUS(gv_packed_open(obj, "a", (size_t)-1, 1, &r), GROVE_ERR_MODEL);
            snprintf(want, sizeof want, "a[%zu]: empty entry", j);
            CHECK_CONTAINS(grove_last_error(), want);
            s[2 * j] = '7';
        }
        s[2 * k - 1] = ' ';
        s[2 * k] = '\0';
        json_object_set_new(obj, "a", json_string(s));
        CHECK_STATUS(gv_packed_open(obj, "a", (size_t)-1, 1, &r), GROVE_ERR_MODEL);
        snprintf(want, sizeof want, "a[%zu]: empty entry", k);
        CHECK_CONTAINS(grove_last_error(), want);
        json_decref(obj);
    }
}

static void test_packed_helpers(void)
{
    double v[64 + 2000];
    size_t n = 0;
    const double fixed[] = {0.0, -0.0, 1.0, -1.0, 0.1, 1.0 / 3, 2.0 / 3, 1e-300, 4.9406564584124654e-324,
                            2.2250738585072014e-308, 2.2250738585072009e-308, DBL_MAX, -DBL_MAX,
                            9007199254740993.0, 1e22, 1e23, 123456789012345678.0, FLT_MAX,
                            (double)FLT_MIN, 1.5e-45, 150.0, -2.5, 5e-324};
    for (size_t i = 0; i < N_OF(fixed); i++) v[n++] = fixed[i];
    gv_rng rng;
    gv_rng_seed(&rng, 99, 3, 0);
    while (n < N_OF(v)) { /* random bit patterns: every exponent, every mantissa */
        uint64_t bits = gv_rng_next(&rng);
        double x;
        memcpy(&x, &bits, sizeof x);
        if (isfinite(x)) v[n++] = x;
    }
    json_t *obj = json_object();
    json_object_set_new(obj, "v", gv_json_packed_reals(v, n));
    CHECK(json_is_string(json_object_get(obj, "v")));
    double *back = malloc(n * sizeof *back);
    CHECK_OK(gv_json_get_packed_reals(obj, "v", n, 1, back));
    CHECK(memcmp(v, back, n * sizeof *v) == 0); /* bit for bit: -0.0 and subnormals included */
    CHECK_STATUS(gv_json_get_packed_reals(obj, "v", n + 1, 1, back), GROVE_ERR_MODEL);
    char want[64];
    snprintf(want, sizeof want, "v: expected %zu entries, got %zu", n + 1, n);
    CHECK_CONTAINS(grove_last_error(), want);
    CHECK_STATUS(gv_json_get_packed_reals(obj, "v", n, 0, back), GROVE_ERR_MODEL);
    CHECK_CONTAINS(grove_last_error(), "v: expected an array, got a string");
    free(back);
    /* every real is written as %.17g writes it (whole numbers take a faster path) */
    gv_buf b = {0};
    for (size_t i = 0; i < n; i++) {
        double x = i < 200 ? trunc(fmod(v[i], 1e5)) : v[i]; /* whole ones first */
        if (i == 200) x = -0.0;
        if (i == 201) x = 9007199254740991.0;
        if (i == 202) x = -9007199254740992.0;
        if (i == 203) x = 1e16;
        if (!same_as_printf(&b, x)) break;
    }
    /* the 128-bit path (1e-5 <= |x| < 1e16) and printf's, on the doubles where they could
     * part: random bits, log-uniform, powers of ten and their neighbours, ties at the 18th
     * digit (quarters of 16-digit integers), ratios */
    uint64_t st = 88172645463325252ull;
#define NEXT_RND() (st ^= st << 13, st ^= st >> 7, st ^= st << 17)
    for (int i = 0, bad = 0; i < 400000 && !bad; i++) {
        double x;
        uint64_t u = NEXT_RND();
        switch (i % 8) {
        case 0: memcpy(&x, &u, sizeof x); if (!isfinite(x)) x = 0.5; break;
        case 1: x = pow(10, (double)(u >> 11) / 9007199254740992.0 * 23 - 6); break;
        case 2: x = nextafter(pow(10, (int)(u % 24) - 6), (u >> 40) & 1 ? 0 : 1e300); break;
        case 3: x = (double)(1000000000000000ull + u % 1250000000000000ull) + 0.25 * (double)(u >> 62); break;
        case 4: x = (double)(u % 100000 + 1) / (double)((u >> 20) % 100000 + 1); break;
        case 5: x = (double)(u % 100000000000000000ull) / 1e16; break;
        case 6: x = (double)(u % 100000000000000000ull) / 1e20; break;
        default: x = pow(10, (int)(u % 24) - 6); break;
        }
        if (u >> 63) x = -x;
        bad = !same_as_printf(&b, x);
    }
#undef NEXT_RND
    gv_buf_free(&b);
    /* non-finite reals cannot be written */
    CHECK(gv_packed_add_real(&b, NAN) != 0 && gv_packed_add_real(&b, -INFINITY) != 0);
    CHECK(gv_json_packed_reals((const double[]){1, NAN}, 2) == NULL);
    /* integers, words, and the empty array */
    const int64_t ints[] = {0, -1, 1, INT64_MAX, INT64_MIN, 4294967295, -2147483648};
    for (size_t i = 0; i < N_OF(ints); i++) CHECK(gv_packed_add_int(&b, ints[i]) == 0);
    CHECK(gv_packed_add_word(&b, "cat_set") == 0);
    CHECK_STR(b.data, "0 -1 1 9223372036854775807 -9223372036854775808 4294967295 -2147483648 "
                      "cat_set");
    json_object_set_new(obj, "i", gv_packed_json(&b));
    gv_buf_free(&b);
    json_object_set_new(obj, "e", gv_packed_json(&b)); /* an empty buffer: "" */
    gv_packed r;
    CHECK_OK(gv_packed_open(obj, "i", (size_t)-1, 1, &r));
    CHECK_EQ_INT(r.n, N_OF(ints) + 1);
    for (size_t i = 0; i < N_OF(ints); i++) {
        int64_t x = 0;
        CHECK_OK(gv_packed_int(&r, INT64_MIN, INT64_MAX, &x));
        CHECK_EQ_INT(x, ints[i]);
    }
    static const char *const words[] = {"leaf", "num", "cat_set"};
    int w = -1;
    CHECK_OK(gv_packed_word(&r, words, 3, &w));
    CHECK_EQ_INT(w, 2);
    CHECK_STATUS(gv_packed_int(&r, 0, 1, &(int64_t){0}), GROVE_ERR_INTERNAL); /* past the end */
    CHECK_OK(gv_packed_open(obj, "e", (size_t)-1, 1, &r));
    CHECK_EQ_INT(r.n, 0);
    CHECK_STATUS(gv_packed_open(obj, "none", 3, 1, &r), GROVE_ERR_MODEL);
    CHECK_CONTAINS(grove_last_error(), "none: missing");
    json_decref(obj);
}

/* Every kind of bad entry in a packed array, named by field and index. */
static void test_packed_rejects(void)
{
    /* entries that are not JSON numbers */
    static const char *const not_numbers[] = {"abc", "+1", "0x10", ".5", "5.", "1.e5", "1e",
                                              "1e+", "--1", "1-", "0-1", "nan", "NaN", "inf",
                                              "-inf", "Infinity", "1,5", "\xef\xbc\x91", "true"};
    for (size_t i = 0; i < N_OF(not_numbers); i++) {
        char want[128];
        snprintf(want, sizeof want, "model: gain[0]: expected a number, got \"");
        REJECT_EDIT("model.gain[0]", json_string(not_numbers[i]), want);
        REJECT_EDIT("model.left[0]", json_string(not_numbers[i]),
                    "model: left[0]: expected an integer, got \"");
    }
    REJECT_EDIT("model.threshold[0]", json_string("nan"),
                "model: threshold[0]: expected a number, got \"nan\"");
    REJECT_EDIT("model.values[2]", json_string("\xef\xbc\x91"),
                "model: values[2]: expected a number, got \"???\"");
    /* numbers that are not integers, and integers out of range */
    static const char *const not_ints[] = {"1.0", "1e0", "1E2", "0.5", "-0.0", "01", "-01"};
    for (size_t i = 0; i < N_OF(not_ints); i++) {
        char want[128];
        snprintf(want, sizeof want, "model: right[0]: expected an integer, got \"%s\"",
                 not_ints[i]);
        REJECT_EDIT("model.right[0]", json_string(not_ints[i]), want);
    }
    REJECT_EDIT("model.feature[1]", json_string("2147483648"),
                "model: feature[1]: must be in [-1, 2147483647], got 2147483648");
    REJECT_EDIT("model.feature[1]", json_string("-2"), "feature[1]: must be in [-1, 2147483647], "
                                                       "got -2");
    REJECT_EDIT("model.left[0]", json_string("9223372036854775807"),
                "left[0]: must be in [-1, 2147483647], got 9223372036854775807");
    REJECT_EDIT("model.left[0]", json_string("9223372036854775808"),
                "left[0]: must be in [-1, 2147483647], got 9223372036854775808");
    REJECT_EDIT("model.left[0]", json_string("-9223372036854775809"),
                "left[0]: must be in [-1, 2147483647], got -9223372036854775809");
    REJECT_EDIT("model.cat_data[0]", json_string("4294967296"),
                "cat_data[0]: must be in [0, 4294967295], got 4294967296");
    REJECT_EDIT("model.cat_data[3]", json_string("-1"), "cat_data[3]: must be in [0, 4294967295]");
    REJECT_EDIT("model.depth[1]", json_string("65536"), "depth[1]: must be in [0, 65535]");
    REJECT_EDIT("model.bin_split[0]", json_string("1" "000000000000000000000000000000000000000000"
                                                  "000000000000000000000000000000000000000000"),
                "bin_split[0]: must be in [0, 4294967295], got 1000000000000000000000000000000"
                "000000000...");
    /* reals that overflow a double, however written; thresholds that are not floats */
    REJECT_EDIT("model.gain[0]", json_string("1e999"),
                "model: gain[0]: expected a finite number, got \"1e999\"");
    REJECT_EDIT("model.weight[0]", json_string("-1.8e308"), "weight[0]: expected a finite number");
    REJECT_EDIT("model.count[0]", json_string("1e99999999999999999999"),
                "count[0]: expected a finite number, got \"1e99999999999999999999\"");
    REJECT_EDIT("model.values[0]", json_string("1e+0400"), "values[0]: expected a finite number");
    REJECT_EDIT("model.threshold[0]", json_string("1e39"),
                "model: threshold[0]: 9.9999999999999994e+38 is not a float value");
    REJECT_EDIT("model.threshold[0]", json_string("3.4028235677973366e+38"),
                "threshold[0]: 3.4028235677973366e+38 is not a float value");
    REJECT_EDIT("model.threshold[0]", json_string("1.5000001"),
                "threshold[0]: 1.5000001000000001 is not a float value");
    REJECT_EDIT("model.threshold[0]", json_string("0.10000000000000001"),
                "threshold[0]: 0.10000000000000001 is not a float value");
    REJECT_EDIT("model.threshold[7]", json_string("-1.0000000000000002"),
                "threshold[7]: -1.0000000000000002 is not a float value");
    /* other spellings of the same numbers load: JSON's number grammar, not one form */
    static const struct {
        const char *path, *token;
    } same[] = {{"model.threshold[0]", "1.5"},     {"model.threshold[0]", "1.50"},
                {"model.threshold[0]", "15e-1"},   {"model.threshold[0]", "0.15E1"},
                {"model.threshold[0]", "1.5e+0"},  {"model.cat_begin[0]", "-0"},
                {"model.gain[3]", "0e5"},          {"model.gain[3]", "-0.0"},
                {"model.gain[3]", "1e-400"}, /* underflows to 0, as in JSON */
                {"model.weight[0]", "10.000000000000000000000000000000000000000000000000000000"
                                    "000000000000000000000000000000000000000000000000000000001"}};
    for (size_t i = 0; i < N_OF(same); i++) {
        json_error_t err;
        json_t *doc = json_loadb(valid_text, valid_len, 0, &err);
        CHECK(edit_path(doc, same[i].path, json_string(same[i].token)) == 0);
        set_checksum(doc);
        char *text = json_dumps(doc, FILE_FLAGS);
        grove_model *m = NULL;
        CHECK_OK(gv_model_from_text(text, strlen(text), "same", &m));
        if (m) {
            const gv_tree *t = m->root.impl;
            CHECK_EQ_DBL(t->nodes[0].threshold, 1.5);
            CHECK_EQ_INT(t->nodes[0].cat_begin, 0);
            CHECK_EQ_DBL(t->nodes[3].gain, 0);
            CHECK_EQ_DBL(t->nodes[0].weight, 10);
        }
        grove_model_free(m);
        free(text);
        json_decref(doc);
    }
    /* separators: single spaces only, nothing around the entries */
    REJECT_EDIT("model.left", json_string("1 3  5 -1 -1 -1 -1 8 -1 -1"),
                "model: left[2]: empty entry (entries are separated by single spaces)");
    REJECT_EDIT("model.left", json_string(" 1 3 -1 -1 -1 -1 -1 8 -1 -1"), "model: left[0]: empty "
                                                                          "entry");
    REJECT_EDIT("model.left", json_string("1 3 -1 -1 -1 -1 -1 8 -1 -1 "), "model: left[10]: empty "
                                                                          "entry");
    REJECT_EDIT("model.left", json_string(" "), "model: left[0]: empty entry");
    REJECT_EDIT("model.left", json_string("1\t3 -1 -1 -1 -1 -1 8 -1 -1"),
                "model: left: expected 10 entries, got 9");
    REJECT_EDIT("model.left", json_string("1 3 -1 -1 -1 -1 -1 8 -1 -1\n"),
                "model: left[9]: expected an integer, got \"-1?\"");
    REJECT_EDIT("model.left", json_string("1 3 -1 -1 -1 -1 -1 8 -1 -1 -1"),
                "model: left: expected 10 entries, got 11");
    REJECT_EDIT("model.left", json_string(""), "model: left: expected 10 entries, got 0");
    REJECT_EDIT("model.left[4]", NULL, "model: left: expected 10 entries, got 9");
    REJECT_EDIT("model.cat_data", json_string(""), "node 1: categories [0, 0 + 1) lie outside "
                                                   "cat_data (0 entries)");
    /* the form of the field */
    REJECT_EDIT("model.left", json_pack("[i,i]", 1, 3),
                "model: left: expected a packed array (a string of numbers), got an array (the "
                "format 1.0 form)");
    REJECT_EDIT("model.gain", json_integer(0), "model: gain: expected a packed array (a string of "
                                               "numbers), got an integer");
    REJECT_EDIT("model.values", NULL, "model: values: missing");
    /* node types are words */
    REJECT_EDIT("model.type[1]", json_string("Leaf"), "model: type[1]: expected \"leaf\", \"num\", "
                                                      "\"cat_set\" or \"cat_multi\", got \"Leaf\"");
    REJECT_EDIT("model.type[9]", json_string("3"), "model: type[9]: expected \"leaf\"");
    REJECT_EDIT("model.type", json_string("num cat_set cat_multi leaf leaf leaf leaf num leaf"),
                "model: type: expected 10 entries, got 9");
    CHECK_EQ_INT(count_temp_files(tmpdir), 0);
}

/* The form of the tree fields follows the file's version: arrays in 1.0, packed from 1.1 on. */
static void test_format_versions(void)
{
    char golden10[512];
    test_src_path(GOLDEN_1_0, golden10, sizeof golden10);
    char *old = read_all(golden10, NULL);
    CHECK(old != NULL);
    if (!old) return;
    /* packed arrays in a file that says 1.0; arrays in a file that says 1.1 (or later) */
    REJECT_EDIT("version", json_pack("[i,i]", 1, 0),
                "model: type: expected an array, got a string (a packed array: format 1.1 and "
                "later)");
    reject_edit_of(old, "version", json_pack("[i,i]", 1, 1),
                   "model: type: expected a packed array (a string of numbers), got an array (the "
                   "format 1.0 form)", __LINE__);
    reject_edit_of(old, "version", json_pack("[i,i]", 1, 9), "model: type: expected a packed array",
                   __LINE__);
    /* one field of each form in one file */
    reject_edit_of(old, "model.gain", json_string("0 0 0 0 0 0 0 0 0 0"),
                   "model: gain: expected an array, got a string", __LINE__);
    /* the 1.0 reader is as strict as it was */
    reject_edit_of(old, "model.feature[1]", json_real(1.0),
                   "model: feature[1]: expected an integer, got a real number", __LINE__);
    reject_edit_of(old, "model.feature[1]", json_string("1"),
                   "model: feature[1]: expected an integer, got a string", __LINE__);
    reject_edit_of(old, "model.gain[9]", NULL, "model: gain: expected 10 entries, got 9",
                   __LINE__);
    reject_edit_of(old, "model.values[3]", json_string("0.5"),
                   "model: values[3]: expected a number, got a string", __LINE__);
    reject_edit_of(old, "model.type[0]", json_integer(1),
                   "model: type[0]: expected \"leaf\", \"num\", \"cat_set\" or \"cat_multi\", got "
                   "an integer", __LINE__);
    reject_edit_of(old, "model.type[0]", json_string("oak"), "type[0]: expected \"leaf\"",
                   __LINE__);
    reject_edit_of(old, "model.threshold[0]", json_real(1e39),
                   "model: threshold[0]: 9.9999999999999994e+38 is not a float value", __LINE__);
    reject_edit_of(old, "model.cat_data[3]", json_integer(-1),
                   "cat_data[3]: must be in [0, 4294967295], got -1", __LINE__);
    reject_edit_of(old, "model.left[0]", json_integer(99),
                   "model: node 0: left child 99 is not a node", __LINE__);
    reject_edit_of(old, "model.n_nodes", json_integer(11),
                   "model: type: expected 11 entries, got 10", __LINE__);
    free(old);
}

/* Property: random edits of the text of any packed array (a bad token, a byte changed, added
 * or removed, an entry dropped or doubled) load or fail with GROVE_ERR_MODEL, never crash; a
 * tree that loads walks every row to a leaf. */
static void test_packed_fuzz(void)
{
    static const char *const fields[] = {"type", "feature", "depth", "default_left",
                                         "threshold", "bin_split", "left", "right",
                                         "cat_begin", "cat_len", "gain", "weight",
                                         "count", "values", "cat_data"};
    static const char *const tokens[] = {
        "", "-", "0", "-0", "1", "-1", "2", "7", "9", "10", "01", "+1", "1.0", "0.5", "1e0",
        "1.5", "1.5000001", "-1", "2.5", "0.25", "1e39", "1e999", "-1e999", "1e-999", "nan",
        "inf", "-inf", "NaN", "0x1", ".5", "5.", "1e", "leaf", "num", "cat_set", "cat_multi",
        "4294967295", "4294967296", "2147483647", "2147483648", "9223372036854775808",
        "-9223372036854775809", "1e99999999999999999999", "0.33333333333333331", "1  2", " ",
        "1\t2", "\xc3\xa9"};
    static const char bytes[] = " 0123456789-+.eE,xna\t\n\\\"";
    grove_dataset *d = make_data(0);
    gv_rng rng;
    gv_rng_seed(&rng, 777, 9, 0);
    int loaded = 0, rejected = 0;
    for (int iter = 0; iter < 3000; iter++) {
        json_error_t err;
        json_t *doc = json_loadb(valid_text, valid_len, 0, &err);
        json_t *tree = json_object_get(doc, "model");
        const char *f = fields[gv_rng_below(&rng, N_OF(fields))];
        const char *a = json_string_value(json_object_get(tree, f));
        size_t len = strlen(a), n = packed_count(a);
        char *t = malloc(len + 64);
        strcpy(t, a);
        size_t at = len ? (size_t)gv_rng_below(&rng, len) : 0;
        json_t *edited = NULL;
        switch (gv_rng_below(&rng, 5)) {
        case 0: /* an entry becomes a bad token */
            edited = packed_edit(a, (size_t)gv_rng_below(&rng, n),
                                 tokens[gv_rng_below(&rng, N_OF(tokens))]);
            break;
        case 1: /* a byte changes */
            if (len) t[at] = bytes[gv_rng_below(&rng, sizeof bytes - 1)];
            edited = json_string(t);
            break;
        case 2: /* a byte is added */
            memmove(t + at + 1, t + at, len - at + 1);
            t[at] = bytes[gv_rng_below(&rng, sizeof bytes - 1)];
            edited = json_string(t);
            break;
        case 3: /* a byte is removed */
            if (len) memmove(t + at, t + at + 1, len - at);
            edited = json_string(t);
            break;
        default: /* an entry is dropped, or doubled */
            if (gv_rng_below(&rng, 2)) {
                edited = packed_edit(a, (size_t)gv_rng_below(&rng, n), NULL);
            } else {
                char *two = malloc(2 * len + 2); /* 2n entries */
                snprintf(two, 2 * len + 2, "%s %s", a, a);
                edited = json_string(two);
                free(two);
            }
            break;
        }
        free(t);
        if (edited) json_object_set_new(tree, f, edited);
        load_edited(doc, d, &loaded, &rejected);
    }
    CHECK(loaded > 100 && rejected > 1500); /* 341 and 2659 when written */
    grove_dataset_free(d);
}

/* A host program's locale (a comma as the radix character) changes neither the text of a packed
 * array, nor parameters, nor what is read from them.  Needs a comma locale installed; skipped
 * without one (LOCPATH may point to one made with localedef). */
static void test_locale(void)
{
    static const char *const names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8"};
    const char *found = NULL;
    for (size_t i = 0; i < N_OF(names) && !found; i++)
        if (setlocale(LC_NUMERIC, names[i])) found = names[i];
    if (!found || strcmp(localeconv()->decimal_point, ",") != 0) {
        setlocale(LC_NUMERIC, "C");
        fprintf(stderr, "test_locale: no comma locale installed, skipped\n");
        return;
    }
    /* 17 significant digits and large exponents take strtod's path, short ones the fast path */
    const double v[] = {0.1, 1.0 / 3, 2.5, -1e-300, 1e300, 0.33333333333333331, 150, 1.5e-7};
    json_t *obj = json_object();
    json_object_set_new(obj, "v", gv_json_packed_reals(v, N_OF(v)));
    const char *text = json_string_value(json_object_get(obj, "v"));
    CHECK(text && !strchr(text, ',') && strchr(text, '.'));
    double back[N_OF(v)];
    CHECK_OK(gv_json_get_packed_reals(obj, "v", N_OF(v), 1, back));
    CHECK(memcmp(v, back, sizeof v) == 0);
    json_object_set_new(obj, "w", json_string("0,5"));
    CHECK_STATUS(gv_json_get_packed_reals(obj, "w", 1, 1, back), GROVE_ERR_MODEL);
    json_decref(obj);
    /* parameters (core/text.c): "0.1" reads and "0.25" writes as in the C locale */
    grove_params *p = NULL;
    CHECK_OK(grove_params_create(&p));
    CHECK_OK(grove_params_set(p, "learning_rate", "0.25"));
    CHECK_STATUS(grove_params_set(p, "learning_rate", "0,25"), GROVE_ERR_PARAM);
    char buf[64];
    CHECK_OK(grove_params_get(p, "learning_rate", buf, sizeof buf));
    CHECK_STR(buf, "0.25");
    grove_params_free(p);
    setlocale(LC_NUMERIC, "C");
}

static void remove_tmpdir(void)
{
    DIR *d = opendir(tmpdir);
    if (!d) return;
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        unlink(tmp_path(e->d_name));
    }
    closedir(d);
    rmdir(tmpdir);
}

/* A path ending in ".gz" is written gzip'd (the same text inside); loading reads gzip and plain
 * files alike; a cut or corrupt gzip file is a model error that says so. */
static void test_gzip(void)
{
    grove_model *m = make_model();
    const char *plain = tmp_path("z.json"), *gz = tmp_path("z.json.gz");
    CHECK_OK(grove_model_save(m, plain));
    CHECK_OK(grove_model_save(m, gz));
    CHECK_EQ_INT(count_temp_files(tmpdir), 0);
    size_t n_plain, n_gz;
    char *t_plain = read_all(plain, &n_plain), *t_gz = read_all(gz, &n_gz);
    CHECK(n_gz > 18 && (unsigned char)t_gz[0] == 0x1f && (unsigned char)t_gz[1] == 0x8b);
    CHECK(n_gz < n_plain);
    /* the text inside is the plain file's, byte for byte */
    gzFile z = gzopen(gz, "rb");
    char *inflated = malloc(n_plain + 16);
    int got = z ? gzread(z, inflated, (unsigned)n_plain + 16) : -1;
    if (z) gzclose(z);
    CHECK(got == (int)n_plain && memcmp(inflated, t_plain, n_plain) == 0);
    free(inflated);
    grove_model *a = NULL, *b = NULL;
    CHECK_OK(grove_model_load(plain, &a));
    CHECK_OK(grove_model_load(gz, &b));
    if (a && b) {
        gv_buf ta = {0}, tb = {0};
        CHECK_OK(gv_model_to_text(a, &ta));
        CHECK_OK(gv_model_to_text(b, &tb));
        CHECK(ta.len == tb.len && memcmp(ta.data, tb.data, ta.len) == 0);
        gv_buf_free(&ta);
        gv_buf_free(&tb);
    }
    grove_model_free(a);
    grove_model_free(b);
    /* cut short at several lengths, and a corrupt stream */
    const char *cut = tmp_path("cut.json.gz");
    size_t cuts[] = {n_gz / 4, n_gz / 2, n_gz - 9};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        write_all(cut, t_gz, cuts[i]);
        grove_model *c = NULL;
        CHECK_STATUS(grove_model_load(cut, &c), GROVE_ERR_MODEL);
        CHECK(c == NULL);
        CHECK_CONTAINS(grove_last_error(), cut);
    }
    write_all(cut, t_gz, n_gz / 2);
    grove_model *c = NULL;
    CHECK_STATUS(grove_model_load(cut, &c), GROVE_ERR_MODEL);
    CHECK_CONTAINS(grove_last_error(), "truncated");
    t_gz[n_gz / 2] ^= 0x55;
    t_gz[n_gz / 2 + 1] ^= 0x55;
    write_all(cut, t_gz, n_gz);
    CHECK_STATUS(grove_model_load(cut, &c), GROVE_ERR_MODEL);
    CHECK(c == NULL);
    free(t_plain);
    free(t_gz);
    grove_model_free(m);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/grove-test-model-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    umask(022);
    test_walks();
    test_validate_in_memory();
    test_round_trip();
    test_save_refuses_invalid();
    test_atomic_save();
    test_gzip();
    test_load_rejects();
    test_doc_checksum();
    test_long_strings();
    test_packed_helpers();
    test_packed_separators();
    test_crc32();
    test_packed_rejects();
    test_format_versions();
    test_random_edits();
    test_packed_fuzz();
    test_load_out_of_memory();
    test_regression();
    test_golden();
    test_locale();
    free(valid_text);
    remove_tmpdir();
    TEST_MAIN_END();
}
