/*
 * gbdt_model.c -- gradient boosting's model (component kind "gbdt"): prediction by rounds and by
 * blocks, the training log and the importances, the model file (JSON), its validation and
 * summary (gbdt.c trains it).
 *
 * Pipeline position: ensemble/.  A model is F(x) = base + sum_t f_t(x) per output group (the
 * leaf values already include the learning rate), turned into outputs by the objective's link
 * (loss.h): the binary objectives' F lives in out[1], softmax's F_k in out[k].
 * C export (export_c, core/cgen.h): the trees, the link as cN_out, the same sums; in the table
 * form also a blocked batch predictor.
 */
#include "gbdt_int.h"

#include "../core/mathx.h"
#include "../core/params.h"
#include "../core/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gv_gbdt_free(void *impl)
{
    gv_gbdt *b = impl;
    if (!b) return;
    if (b->trees)
        for (size_t k = 0; k < b->n_rounds * b->n_groups; k++) gv_tree_free(b->trees[k]);
    gv_free(b->trees);
    gv_free(b->base);
    gv_free(b->log_train);
    gv_free(b->log_valid);
    gv_free(b->log_eps);
    gv_free(b->log_alpha);
    gv_free(b->stop);
    gv_pack_cache_free(&b->pack);
    gv_free(b);
}

/* A new model with room for `cap` rounds (trees NULL, n_rounds 0). */
gv_gbdt *gv_gbdt_new(int objective, int n_classes, size_t cap, int with_train, int with_valid)
{
    gv_gbdt *b = gv_calloc(1, sizeof *b);
    if (!b) return NULL;
    gv_pack_cache_init(&b->pack);
    b->objective = objective;
    b->o = gv_objective_get(objective);
    b->n_classes = n_classes;
    b->n_groups = gv_objective_groups(b->o, n_classes);
    if (cap == 0) cap = 1;
    b->base = gv_calloc(b->n_groups, sizeof *b->base);
    b->trees = gv_calloc(cap, b->n_groups * sizeof *b->trees);
    b->log_train = with_train ? gv_calloc(cap, sizeof(double)) : NULL;
    b->log_valid = with_valid ? gv_calloc(cap, sizeof(double)) : NULL;
    const int line_search = b->o->leaf == GV_LEAF_ADABOOST; /* its eps_t and alpha_t logged */
    if (line_search) {
        b->log_eps = gv_calloc(cap, sizeof(double));
        b->log_alpha = gv_calloc(cap, sizeof(double));
    }
    b->stop = gv_strdup("");
    if (!b->base || !b->trees || (with_train && !b->log_train) || (with_valid && !b->log_valid) || !b->stop ||
        (line_search && (!b->log_eps || !b->log_alpha))) {
        gv_gbdt_free(b);
        return NULL;
    }
    return b;
}

/* ---------------------------------------------------------------------------------------------
 * Prediction: scores -> outputs
 * ------------------------------------------------------------------------------------------ */

/* Rows with at most this many features are copied to the stack before the trees are walked. */
#define ROW_BUF 1024

static void gbdt_predict_rounds(const void *impl, const grove_dataset *d, size_t i, size_t rounds,
                                double *out)
{
    const gv_gbdt *b = impl;
    const size_t G = b->n_groups, F = d->schema->n_features;
    double *f = b->n_classes == 2 && G == 1 ? out + 1 : out; /* binary: F lives in out[1] */
    if (rounds > b->n_rounds) rounds = b->n_rounds;
    float x[ROW_BUF];
    const gv_tree_pack *pk = F <= ROW_BUF ? gv_pack_cache_get_trees(&((gv_gbdt *)impl)->pack, b->trees, b->n_rounds * G) : NULL;
    if (pk)
        for (size_t j = 0; j < F; j++) x[j] = gv_value(d, j, i);
    for (size_t g = 0; g < G; g++) {
        double s = b->base[g];
        for (size_t t = 0; t < rounds; t++) {
            const gv_tree *tr = b->trees[t * G + g];
            s += tr->values[pk ? gv_tree_pack_leaf(pk, t * G + g, x, d, i) : gv_tree_leaf(tr, d, i)];
        }
        f[g] = s;
    }
    gv_gbdt_scores_to_outputs(b, out);
}

static void gbdt_predict_row(const void *impl, const grove_dataset *d, size_t i, double *out)
{
    gbdt_predict_rounds(impl, d, i, ((const gv_gbdt *)impl)->n_rounds, out);
}

static size_t gbdt_n_rounds(const void *impl) { return ((const gv_gbdt *)impl)->n_rounds; }

/* Rows [begin, end) tree by tree (learner.h's predict_block), through the compiled trees
 * (tree_pack.h): the rows are gathered row-major, R at a time, and each tree walked over them
 * while it is in cache.  The sums run over the trees in the same order as gbdt_predict_rounds',
 * so the results are identical. */
static void gbdt_predict_block(const void *impl, const grove_dataset *d, size_t begin,
                               size_t end, size_t rounds, double *out)
{
    const gv_gbdt *b = impl;
    const size_t G = b->n_groups;
    const size_t k = b->n_classes >= 2 ? (size_t)b->n_classes : 1;
    if (rounds == 0 || rounds > b->n_rounds) rounds = b->n_rounds;
    const size_t F = d->schema->n_features ? d->schema->n_features : 1;
    const size_t R = gv_pack_block_rows(F);
    /* a sparse dataset is not copied row-major: its rows would be as wide as its largest index */
    const gv_tree_pack *pk = d->values ? gv_pack_cache_get_trees(&((gv_gbdt *)impl)->pack, b->trees, b->n_rounds * G) : NULL;
    /* every tree walked on the dataset's columns directly, or on a row-major copy */
    const int cols = pk && gv_tree_pack_cols_ok(pk, d->n_rows, F);
    float *xs = pk && !cols ? gv_malloc_array(R * F, sizeof *xs) : NULL;
    double *s = pk && (cols || xs) ? gv_malloc_array(R * G, sizeof *s) : NULL;
    int32_t *leaf = s ? gv_malloc_array(R, sizeof *leaf) : NULL;
    if (!leaf) { /* a sparse dataset, or no memory: one row at a time */
        gv_free(s);
        gv_free(xs);
        for (size_t i = begin; i < end; i++) gbdt_predict_rounds(impl, d, i, rounds, out + (i - begin) * k);
        return;
    }
    for (size_t r0 = begin; r0 < end; r0 += R) {
        const size_t B = end - r0 < R ? end - r0 : R;
        const int nan = cols ? gv_cols_has_nan(d, r0, B) : gv_rows_gather(d, r0, B, xs);
        /* group g's scores of the block's rows at s + g * B (each row's sum in tree order) */
        for (size_t g = 0; g < G; g++)
            for (size_t r = 0; r < B; r++) s[g * B + r] = b->base[g];
        for (size_t t = 0; t < rounds; t++)
            for (size_t g = 0; g < G; g++) {
                const double *v = b->trees[t * G + g]->values;
                double *sg = s + g * B;
                if (cols) { /* the leaves' values added in the walk */
                    gv_tree_pack_add_cols(pk, t * G + g, d->values + r0, d->n_rows, B, nan, sg, leaf);
                    continue;
                }
                gv_tree_pack_leaves(pk, t * G + g, xs, F, B, d, r0, nan, leaf);
                for (size_t r = 0; r < B; r++) sg[r] += v[leaf[r]];
            }
        for (size_t r = 0; r < B; r++) {
            double *o = out + (r0 - begin + r) * k;
            double *f = b->n_classes == 2 && G == 1 ? o + 1 : o; /* binary: F lives in out[1] */
            for (size_t g = 0; g < G; g++) f[g] = s[g * B + r];
            gv_gbdt_scores_to_outputs(b, o);
        }
    }
    gv_free(leaf);
    gv_free(s);
    gv_free(xs);
}

/* ---------------------------------------------------------------------------------------------
 * The log and the importances (the component's report slots)
 * ------------------------------------------------------------------------------------------ */

/* The log_csv slot: t, train_METRIC[, valid_METRIC][, epsilon, alpha]. */
static grove_status gbdt_log_csv(const void *impl, gv_buf *buf)
{
    const gv_gbdt *b = impl;
    const char *m = gv_metric_names[b->metric];
    int bad = gv_buf_printf(buf, "t");
    if (b->log_train) bad |= gv_buf_printf(buf, ",train_%s", m);
    if (b->log_valid) bad |= gv_buf_printf(buf, ",valid_%s", m);
    if (b->log_eps) bad |= gv_buf_printf(buf, ",epsilon,alpha");
    bad |= gv_buf_printf(buf, "\n");
    char v[32];
    for (size_t t = 0; t < b->n_log && !bad; t++) {
        bad |= gv_buf_printf(buf, "%zu", t + 1);
        if (b->log_train) {
            gv_format_double(b->log_train[t], v);
            bad |= gv_buf_printf(buf, ",%s", v);
        }
        if (b->log_valid) {
            gv_format_double(b->log_valid[t], v);
            bad |= gv_buf_printf(buf, ",%s", v);
        }
        if (b->log_eps) {
            gv_format_double(b->log_eps[t], v);
            bad |= gv_buf_printf(buf, ",%s", v);
            gv_format_double(b->log_alpha[t], v);
            bad |= gv_buf_printf(buf, ",%s", v);
        }
        bad |= gv_buf_printf(buf, "\n");
    }
    return bad ? gv_err_nomem("the training log") : GROVE_OK;
}

/* The importance slot: gain and cover over every tree of every round (importance.c). */
static int gbdt_importance(const void *impl, const char *type, size_t n_features, double *out,
                           grove_status *st)
{
    const gv_gbdt *b = impl;
    int cover = !strcmp(type, "cover");
    if (!cover && strcmp(type, "gain")) return 0;
    *st = gv_importance_gain_cover((const gv_tree *const *)b->trees, b->n_rounds * b->n_groups,
                                   cover, n_features, out);
    return 1;
}

/* ---------------------------------------------------------------------------------------------
 * The component: JSON, validation, summary
 *
 * {"objective", "n_classes", "learning_rate", "base": [G], "trees": [rounds * G tree objects,
 *  round-major, as kind "tree" writes them], "metric", "log": {"train": [] | null, "valid": [] | null,
 *  "epsilon": [] | null, "alpha": [] | null}, "stop"}
 * ------------------------------------------------------------------------------------------ */

static json_t *real_array_or_null(const double *v, size_t n)
{
    return v ? gv_json_real_array(v, n) : json_null();
}

static json_t *gbdt_to_json(const void *impl)
{
    const gv_gbdt *b = impl;
    json_t *o = json_object(), *trees = json_array(), *log = json_object();
    int bad = !o || !trees || !log;
    for (size_t k = 0; !bad && k < b->n_rounds * b->n_groups; k++) {
        json_t *t = gv_component_json(&gv_tree_component, b->trees[k], GV_KIND_NONE);
        bad |= !t || json_array_append_new(trees, t) != 0;
    }
    if (!bad) {
        bad |= json_object_set_new(log, "train", real_array_or_null(b->log_train, b->n_log)) != 0;
        bad |= json_object_set_new(log, "valid", real_array_or_null(b->log_valid, b->n_log)) != 0;
        bad |= json_object_set_new(log, "epsilon", real_array_or_null(b->log_eps, b->n_log)) != 0;
        bad |= json_object_set_new(log, "alpha", real_array_or_null(b->log_alpha, b->n_log)) != 0;
        bad |= json_object_set_new(o, "objective", json_string(gv_objective_names[b->objective])) != 0;
        bad |= json_object_set_new(o, "n_classes", json_integer(b->n_classes)) != 0;
        bad |= json_object_set_new(o, "learning_rate", json_real(b->learning_rate)) != 0;
        bad |= json_object_set_new(o, "base", gv_json_real_array(b->base, b->n_groups)) != 0;
        /* the objective's parameters that its metric needs (only where it has them) */
        if (b->objective == GV_OBJ_TWEEDIE)
            bad |= json_object_set_new(o, "tweedie_variance_power", json_real(b->tweedie_power)) != 0;
        if (b->objective == GV_OBJ_QUANTILE)
            bad |= json_object_set_new(o, "quantile_alpha", json_real(b->quantile_alpha)) != 0;
        bad |= json_object_set_new(o, "metric", json_string(gv_metric_names[b->metric])) != 0;
        bad |= json_object_set_new(o, "trees", trees) != 0;
        trees = NULL;
        bad |= json_object_set_new(o, "log", log) != 0;
        log = NULL;
        bad |= json_object_set_new(o, "stop", json_string(b->stop)) != 0;
    }
    json_decref(trees);
    json_decref(log);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static int name_index(const char *const *names, int count, const char *s)
{
    for (int i = 1; i < count; i++) /* 0 is "auto", never stored */
        if (!strcmp(names[i], s)) return i;
    return -1;
}

static grove_status gbdt_validate(const void *impl, const grove_schema *schema);

static grove_status gbdt_from_json(const json_t *obj, const gv_model_ctx *ctx, void **out)
{
    *out = NULL;
    static const char *const known[] = {"kind",  "objective", "n_classes", "learning_rate",
                                        "base",  "metric",    "trees",     "log",
                                        "stop",  "tweedie_variance_power", "quantile_alpha"};
    if (gv_json_check_fields(obj, known, GV_COUNT(known), "a gbdt model") != GROVE_OK)
        return GROVE_ERR_MODEL;
    const char *oname, *mname, *stop;
    int64_t K;
    double eta;
    grove_status st;
    if ((st = gv_json_get_string(obj, "objective", &oname)) != GROVE_OK ||
        (st = gv_json_get_string(obj, "metric", &mname)) != GROVE_OK ||
        (st = gv_json_get_int(obj, "n_classes", 0, 1 << 20, &K)) != GROVE_OK ||
        (st = gv_json_get_double(obj, "learning_rate", &eta)) != GROVE_OK ||
        (st = gv_json_get_string(obj, "stop", &stop)) != GROVE_OK)
        return st;
    const gv_objective *o = gv_objective_find(oname);
    if (!o) return gv_err(GROVE_ERR_MODEL, "objective: unknown '%s'", oname);
    const int objective = o->id;
    int metric = name_index(gv_metric_names, GV_MET_COUNT, mname);
    if (metric < 0) return gv_err(GROVE_ERR_MODEL, "metric: unknown '%s'", mname);
    if (!gv_objective_fits(o, (int)K))
        return gv_err(GROVE_ERR_MODEL, "n_classes: %lld does not fit objective %s", (long long)K,
                      oname);
    if (!isfinite(eta) || !(eta > 0))
        return gv_err(GROVE_ERR_MODEL, "learning_rate: must be finite and > 0, got %g", eta);
    const json_t *trees = json_object_get(obj, "trees");
    const json_t *log = json_object_get(obj, "log");
    if (!json_is_array(trees)) return gv_err(GROVE_ERR_MODEL, "trees: expected an array");
    if (!json_is_object(log)) return gv_err(GROVE_ERR_MODEL, "log: expected an object");
    size_t G = gv_objective_groups(o, (int)K);
    size_t n_trees = json_array_size(trees);
    if (n_trees == 0 || n_trees % G != 0)
        return gv_err(GROVE_ERR_MODEL, "trees: expected a non-empty multiple of %zu trees, got %zu",
                      G, n_trees);
    size_t rounds = n_trees / G;
    /* the rounds logged: the train or valid arrays' length (more than the rounds kept after
     * early stopping), or the rounds kept when neither was recorded */
    const json_t *ltrain = json_object_get(log, "train"), *lvalid = json_object_get(log, "valid");
    if (!json_is_array(ltrain) && !json_is_null(ltrain))
        return gv_err(GROVE_ERR_MODEL, "log.train: expected an array or null");
    if (!json_is_array(lvalid) && !json_is_null(lvalid))
        return gv_err(GROVE_ERR_MODEL, "log.valid: expected an array or null");
    size_t n_log = json_is_array(ltrain)   ? json_array_size(ltrain)
                   : json_is_array(lvalid) ? json_array_size(lvalid)
                                           : rounds;
    if (n_log < rounds)
        return gv_err(GROVE_ERR_MODEL, "log: %zu rounds logged, fewer than the %zu kept", n_log,
                      rounds);
    int with_train = json_is_array(ltrain);
    int with_valid = json_is_array(lvalid);
    gv_gbdt *b = gv_gbdt_new(objective, (int)K, n_log, with_train, with_valid);
    if (!b) return gv_err_nomem("a gbdt model");
    b->metric = metric;
    b->learning_rate = eta;
    b->n_log = n_log;
    b->tweedie_power = 1.5;
    b->quantile_alpha = 0.5;
    if ((objective == GV_OBJ_TWEEDIE &&
         (st = gv_json_get_double(obj, "tweedie_variance_power", &b->tweedie_power)) != GROVE_OK) ||
        (objective == GV_OBJ_QUANTILE &&
         (st = gv_json_get_double(obj, "quantile_alpha", &b->quantile_alpha)) != GROVE_OK))
        goto fail;
    if (!(b->tweedie_power > 1 && b->tweedie_power < 2) ||
        !(b->quantile_alpha > 0 && b->quantile_alpha < 1)) {
        st = gv_err(GROVE_ERR_MODEL, "tweedie_variance_power must be in (1, 2) and quantile_alpha "
                    "in (0, 1), got %g and %g", b->tweedie_power, b->quantile_alpha);
        goto fail;
    }
    gv_free(b->stop);
    b->stop = gv_strdup(stop);
    if (!b->stop) {
        st = gv_err_nomem("a gbdt model");
        goto fail;
    }
    if ((st = gv_json_get_reals(obj, "base", G, b->base)) != GROVE_OK) goto fail;
    if ((with_train && (st = gv_json_get_reals(log, "train", n_log, b->log_train)) != GROVE_OK) ||
        (with_valid && (st = gv_json_get_reals(log, "valid", n_log, b->log_valid)) != GROVE_OK)) {
        gv_err_prefix("log");
        goto fail;
    }
    if (o->leaf == GV_LEAF_ADABOOST) {
        if ((st = gv_json_get_reals(log, "epsilon", n_log, b->log_eps)) != GROVE_OK ||
            (st = gv_json_get_reals(log, "alpha", n_log, b->log_alpha)) != GROVE_OK) {
            gv_err_prefix("log");
            goto fail;
        }
    } else if (!json_is_null(json_object_get(log, "epsilon")) ||
               !json_is_null(json_object_get(log, "alpha"))) {
        st = gv_err(GROVE_ERR_MODEL, "log: epsilon and alpha must be null for objective %s", oname);
        goto fail;
    }
    for (size_t k = 0; k < n_trees; k++) {
        void *t = NULL;
        st = gv_tree_component.from_json(json_array_get(trees, k), ctx, &t);
        if (st != GROVE_OK) {
            gv_err_prefix("trees[%zu]", k);
            b->n_rounds = (k + G - 1) / G; /* frees what was read (NULL entries are fine) */
            goto fail;
        }
        b->trees[k] = t;
    }
    b->n_rounds = rounds;
    if ((st = gbdt_validate(b, ctx->schema)) != GROVE_OK) goto fail;
    *out = b;
    return GROVE_OK;
fail:
    gv_gbdt_free(b);
    return st;
}

static grove_status gbdt_validate(const void *impl, const grove_schema *schema)
{
    const gv_gbdt *b = impl;
    for (size_t g = 0; g < b->n_groups; g++)
        if (!isfinite(b->base[g])) return gv_err(GROVE_ERR_MODEL, "base[%zu]: not finite", g);
    if (b->n_rounds == 0 || b->n_rounds > b->n_log)
        return gv_err(GROVE_ERR_MODEL, "trees: %zu rounds kept, %zu logged", b->n_rounds, b->n_log);
    for (size_t k = 0; k < b->n_rounds * b->n_groups; k++) {
        const gv_tree *t = b->trees[k];
        if (!t) return gv_err(GROVE_ERR_MODEL, "trees[%zu]: missing", k);
        if (t->n_outputs != 1)
            return gv_err(GROVE_ERR_MODEL, "trees[%zu]: %d outputs, 1 expected", k, t->n_outputs);
        for (size_t j = 0; j < t->n_nodes; j++)
            if (t->nodes[j].type == GV_NODE_CAT_MULTI)
                return gv_err(GROVE_ERR_MODEL, "trees[%zu]: node %zu: gbdt trees have binary "
                              "splits only", k, j);
        grove_status st = gv_tree_validate(t, schema);
        if (st != GROVE_OK) {
            gv_err_prefix("trees[%zu]", k);
            return st;
        }
    }
    for (size_t t = 0; b->log_train && t < b->n_log; t++)
        if (!isfinite(b->log_train[t]) && !isnan(b->log_train[t]))
            return gv_err(GROVE_ERR_MODEL, "log.train[%zu]: not finite", t);
    /* Every score is finite: F_g(x) = base_g + sum_t v_tg(x), and
     *   |F_g(x)| <= |base_g| + sum_t max_j |v_tg[j]| = B_g,
     * so B_g finite means no partial sum, in any row and in tree order, overflows to +-inf (and
     * none is inf - inf = NaN).  Training never comes near (its labels' sums are finite); only
     * a file can hold leaves of 1e308 whose sum overflows. */
    for (size_t g = 0; g < b->n_groups; g++) {
        double bound = fabs(b->base[g]);
        for (size_t t = 0; t < b->n_rounds; t++) {
            bound += gv_tree_max_abs_value(b->trees[t * b->n_groups + g]);
            if (!isfinite(bound))
                return gv_err(GROVE_ERR_MODEL, "trees[%zu]: the scores can overflow: |base[%zu]| "
                              "plus the largest |value| of each tree of output %zu up to this one "
                              "is not finite", t * b->n_groups + g, g, g);
        }
    }
    return GROVE_OK;
}

static grove_status gbdt_check(const void *impl, const gv_model_ctx *ctx, size_t n_outputs)
{
    const gv_gbdt *b = impl;
    if (gv_gbdt_outputs(b) != n_outputs)
        return gv_err(GROVE_ERR_MODEL, "model: a gbdt component has %zu outputs, %zu expected",
                      gv_gbdt_outputs(b), n_outputs);
    for (size_t k = 0; k < b->n_rounds * b->n_groups; k++) {
        grove_status st = gv_tree_component.check(b->trees[k], ctx, 1);
        if (st != GROVE_OK) {
            gv_err_prefix("trees[%zu]", k);
            return st;
        }
    }
    return GROVE_OK;
}

static json_t *gbdt_summary(const void *impl)
{
    const gv_gbdt *b = impl;
    size_t leaves = 0;
    int depth = 0;
    for (size_t k = 0; k < b->n_rounds * b->n_groups; k++) {
        leaves += gv_tree_n_leaves(b->trees[k]);
        int d = gv_tree_depth(b->trees[k]);
        if (d > depth) depth = d;
    }
    json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:I, s:i, s:f, s:s, s:s}", "kind", "gbdt",
                          "objective", gv_objective_names[b->objective], "rounds", (json_int_t)b->n_rounds,
                          "trees", (json_int_t)(b->n_rounds * b->n_groups), "total_leaves",
                          (json_int_t)leaves, "max_tree_depth", depth, "learning_rate",
                          b->learning_rate, "metric", gv_metric_names[b->metric], "stop", b->stop);
    if (o && b->n_rounds) {
        char key[64];
        snprintf(key, sizeof key, "final_train_%s", gv_metric_names[b->metric]);
        if (b->log_train) json_object_set_new(o, key, json_real(b->log_train[b->n_rounds - 1]));
        if (b->log_valid) {
            snprintf(key, sizeof key, "final_valid_%s", gv_metric_names[b->metric]);
            json_object_set_new(o, key, json_real(b->log_valid[b->n_rounds - 1]));
        }
    }
    return o;
}

/* ---------------------------------------------------------------------------------------------
 * C export (learner.h's export_c slot, core/cgen.h): the trees, the objective's link
 * (gv_objective_c_outputs) as cN_out, and F_g = base_g + the trees of group g in round order, as
 * gbdt_predict_row sums them; in the table form also cN_block, the blocked batch predictor.
 * ------------------------------------------------------------------------------------------ */

static grove_status gbdt_export_c(const void *impl, gv_cgen *g, size_t *id)
{
    const gv_gbdt *v = impl;
    const size_t G = v->n_groups, R = v->n_rounds, n = R * G;
    gv_cgen_tree_ref *refs = gv_malloc_array(n ? n : 1, sizeof *refs);
    if (!refs) return gv_err_nomem("export");
    for (size_t k = 0; k < n; k++) gv_cgen_tree(g, v->trees[k], &refs[k]);
    char what[96], lit[GV_CGEN_LIT], leaf[96], vals[64];
    gv_buf *b = &g->body;
    const size_t me = g->n_comps; /* the id open_function gives below */
    /* the scores F_g -> the outputs (gv_gbdt_scores_to_outputs) */
    gv_cgen_out(
        b, g,
        "\n/* gbdt: scores -> outputs */\nstatic void c%zu_out(const double *s, double *out)\n{\n",
        me);
    if (gv_objective_c_outputs(v->o, G, b) != 0) g->nomem = 1;
    gv_cgen_out(b, g, "}\n");
    snprintf(what, sizeof what, "gbdt, objective %s, %zu rounds x %zu trees",
             gv_objective_names[v->objective], R, G);
    *id = gv_cgen_open_function(g, what);
    /* F_g = base_g + the trees of group g in round order (gbdt_predict_row) */
    gv_cgen_out(b, g, "    double s[%zu];\n", G);
    for (size_t gr = 0; gr < G; gr++) {
        gv_cgen_dlit(v->base[gr], lit);
        gv_cgen_out(b, g, "    s[%zu] = %s;\n", gr, lit);
    }
    for (size_t t = 0; t < R; t++)
        for (size_t gr = 0; gr < G; gr++) {
            const gv_cgen_tree_ref *r = &refs[t * G + gr];
            gv_cgen_tree_leaf(g, r, leaf, sizeof leaf);
            gv_cgen_tree_values(g, r, vals, sizeof vals);
            gv_cgen_out(b, g, "    s[%zu] += %s[%s];\n", gr, vals, leaf);
        }
    gv_cgen_out(b, g, "    c%zu_out(s, out);\n}\n", me);
    if (g->table) {
        /* blocks of rows walk each tree in turn while it is in cache (as
         * gbdt_predict_block does); every row's sums still run over the trees in round order */
        gv_cgen_out(b, g,
                    "\n/* tree k of the gbdt: its nodes, values and category words start at "
                    "N + c%zu_tree[3k], V + c%zu_tree[3k + 1], C + c%zu_tree[3k + 2] */\n"
                    "static const size_t c%zu_tree[%zu] = {",
                    me, me, me, me, 3 * (n ? n : 1));
        for (size_t k = 0; k < n; k++)
            gv_cgen_out(b, g, "%s%zu, %zu, %zu,", k % 4 == 0 ? "\n    " : " ", refs[k].node_off,
                        refs[k].value_off, refs[k].cat_off);
        if (n == 0) gv_cgen_out(b, g, "0, 0, 0");
        gv_cgen_out(b, g, "\n};\n");
        gv_cgen_out(b, g,
                    "static UNUSED void c%zu_block(const float *x, size_t n_rows, double *out)\n{\n"
                    "    double s[64 * %zu];\n    size_t i0, r, t, g;\n"
                    "    for (i0 = 0; i0 < n_rows; i0 += 64) {\n"
                    "        size_t nb = n_rows - i0 < 64 ? n_rows - i0 : 64;\n",
                    me, G);
        for (size_t gr = 0; gr < G; gr++) {
            gv_cgen_dlit(v->base[gr], lit);
            gv_cgen_out(b, g, "        for (r = 0; r < nb; r++) s[r * %zu + %zu] = %s;\n", G, gr,
                        lit);
        }
        gv_cgen_out(
            b, g,
            "        for (t = 0; t < %zu; t++) {\n"
            "            const node *tn = N + c%zu_tree[3 * t];\n"
            "            const double *tv = V + c%zu_tree[3 * t + 1];\n"
            "            const unsigned long *tc = C + c%zu_tree[3 * t + 2];\n"
            "            g = t %% %zu;\n"
            "            for (r = 0; r < nb; r++)\n"
            "                s[r * %zu + g] += tv[walk(tn, tc, x + (i0 + r) * %zu)];\n"
            "        }\n"
            "        for (r = 0; r < nb; r++) c%zu_out(s + r * %zu, out + (i0 + r) * %zu);\n"
            "    }\n}\n",
            n, me, me, me, G, G, g->schema->n_features, me, G, g->n_outputs);
        g->block_id = me;
        g->has_block = 1;
    }
    gv_free(refs);
    return GROVE_OK;
}

const gv_component_vt gv_gbdt_component = {
    .kind = "gbdt",
    .predict_row = gbdt_predict_row,
    .to_json = gbdt_to_json,
    .from_json = gbdt_from_json,
    .free = gv_gbdt_free,
    .validate = gbdt_validate,
    .check = gbdt_check,
    .summary = gbdt_summary,
    .n_rounds = gbdt_n_rounds,
    .predict_row_rounds = gbdt_predict_rounds,
    .predict_block = gbdt_predict_block,
    .log_csv = gbdt_log_csv,
    .importance = gbdt_importance,
    .export_c = gbdt_export_c,
};

int gv_gbdt_view_of(const gv_component *c, gv_gbdt_view *v)
{
    if (!c || c->vt != &gv_gbdt_component) return 0;
    const gv_gbdt *b = c->impl;
    v->objective = gv_objective_names[b->objective];
    v->obj = b->o;
    v->tweedie_power = b->tweedie_power;
    v->quantile_alpha = b->quantile_alpha;
    v->metric = gv_metric_names[b->metric];
    v->n_classes = b->n_classes;
    v->n_groups = b->n_groups;
    v->n_rounds = b->n_rounds;
    v->base = b->base;
    v->trees = (const gv_tree *const *)b->trees;
    v->n_log = b->n_log;
    v->log_train = b->log_train;
    v->log_valid = b->log_valid;
    v->log_eps = b->log_eps;
    v->log_alpha = b->log_alpha;
    return 1;
}
