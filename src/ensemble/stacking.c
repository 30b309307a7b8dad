/*
 * stacking.c -- stacked generalization ("stacking", component kind "stacking") over a list of
 * any base learners (the list and the parallel fits: members.c; voting: voting.c).
 *
 * Pipeline position: ensemble/, written against the base-learner interface (learn/learner.h).
 *
 * Stacking (Wolpert 1992; Breiman 1996, "Stacked regressions"):
 *  1. The view's distinct rows are dealt into stack.folds folds: stratified by class (each
 *     class's rows, in row order, shuffled by the stream (seed, GV_STREAM_STACK, STREAM_FOLDS)
 *     and dealt round-robin, classes in class order, continuing the count), plain shuffled for
 *     regression.  A row repeated in the view (bagging of stacking) stays in one fold.
 *  2. For every learner l and fold j, l is fitted on the other folds and predicts fold j: the
 *     out-of-fold predictions are the meta-features -- per learner the class probabilities
 *     (two classes: P(class 1) only, as scikit-learn's StackingClassifier) or the value.
 *  3. The meta-learner (stack.meta) is fitted on the meta-features (and, with
 *     stack.passthrough, the raw features before them), with the view's labels and weights,
 *     as an in-memory dataset whose schema is the raw schema's features (passthrough) then one
 *     numeric column per meta-feature, named "stack<l>.<learner>.p<k>" (regression: ".value").
 *     The meta dataset stores floats, as every dataset does; prediction builds the same float
 *     row, so training and prediction see identical meta-features.
 *  4. Every base learner is refitted on all rows of the view: these are the model's members.
 * Prediction: the members predict the row, the meta row is assembled as in 3, and the
 * meta-learner predicts it.
 * Parameters: the base learners get the "base.KEY" parameters (all of them the same set; the
 * user's seed unless base.seed is set); the meta-learner gets this model's own parameters, so
 * `--set logistic.C=0.1` tunes a logistic meta-learner.  stack.meta=auto is logistic for
 * classification and "linear" for regression: the combiner of Breiman (1996), least squares
 *     min_{b, beta} sum_i w_i (y_i - b - sum_c beta_c x_ic)^2,   beta_c >= 0 for base columns
 * (raw passthrough columns unconstrained, categorical ones ignored; a missing raw value takes
 * the column's training mean), solved by cyclic coordinate descent (learn/least_squares.c).
 * Random streams: task t = l * (folds + 1) + j (j = folds: the refit on all rows) fits with
 * (seed, GV_STREAM_STACK, t); the meta-learner with (seed, GV_STREAM_STACK, L * (folds + 1)).
 * The fits run in parallel (one thread each, the rest of the threads inside the learners);
 * each depends only on its stream, so the model is the same for any thread count.
 *
 * File form (docs/model-format.md): n_classes, learners (names), folds, passthrough (0/1),
 * members (components), meta_name, and either meta (a component over the meta schema) or, for
 * "linear", coef, fill (one per meta column) and intercept.
 * C export (export_c, core/cgen.h): the members, the float meta row, then the meta-learner
 * (written with the meta row's schema) or the linear combiner.
 */
#include "members.h"

#include "../learn/least_squares.h"
#include "../core/params.h"
#include "../data/dataset.h"
#include "../core/json.h"
#include "../core/mathx.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define STREAM_FOLDS UINT64_C(0xF01D5)

typedef struct gv_stacking {
    int n_classes;          /* K >= 2, or 0 for regression */
    size_t n_learners;      /* L */
    char **names;           /* [L] learner names, owned */
    gv_component *members;  /* [L] refitted on all rows, owned */
    int64_t folds;
    int passthrough;
    size_t n_raw;           /* raw features */
    size_t per;             /* meta columns per learner: 1 (two classes, regression) or K */
    size_t n_meta;          /* passthrough * n_raw + L * per */
    grove_schema *meta_schema; /* owned */
    char *meta_name;        /* "linear" or a learner name, owned */
    gv_component meta;      /* the meta-learner (not "linear"), owned */
    gv_least_squares lin;   /* "linear": coef and fill [n_meta] each, owned; intercept */
} gv_stacking;

static void stacking_free(void *impl)
{
    gv_stacking *s = impl;
    if (!s) return;
    if (s->members)
        for (size_t l = 0; l < s->n_learners; l++) gv_component_free(&s->members[l]);
    gv_free(s->members);
    gv_names_free(s->names, s->n_learners);
    gv_schema_free(s->meta_schema);
    gv_free(s->meta_name);
    gv_component_free(&s->meta);
    gv_least_squares_free(&s->lin);
    gv_free(s);
}

static int is_linear(const gv_stacking *s) { return !strcmp(s->meta_name, "linear"); }

/* The meta schema: the raw features (passthrough) then the meta columns; task and classes of
 * `raw`.  Sets s->per and s->n_meta.  NULL when out of memory. */
static grove_schema *meta_schema_new(gv_stacking *s, const grove_schema *raw)
{
    s->n_raw = raw->n_features;
    s->per = s->n_classes > 2 ? (size_t)s->n_classes : 1;
    s->n_meta = (s->passthrough ? s->n_raw : 0) + s->n_learners * s->per;
    grove_schema *m = gv_schema_new(s->n_meta);
    if (!m) return NULL;
    int bad = 0;
    size_t c = 0;
    if (s->passthrough)
        for (; c < s->n_raw && !bad; c++) {
            gv_free(m->feature_names[c]);
            m->feature_names[c] = gv_strdup(raw->feature_names[c]);
            m->is_categorical[c] = raw->is_categorical[c];
            bad |= !m->feature_names[c] || gv_dict_copy(&m->categories[c], &raw->categories[c]);
        }
    for (size_t l = 0; l < s->n_learners && !bad; l++)
        for (size_t k = 0; k < s->per && !bad; k++, c++) {
            char name[320];
            if (!s->n_classes)
                snprintf(name, sizeof name, "stack%zu.%s.value", l, s->names[l]);
            else
                snprintf(name, sizeof name, "stack%zu.%s.p%zu", l, s->names[l],
                         s->n_classes == 2 ? (size_t)1 : k);
            gv_free(m->feature_names[c]);
            bad |= !(m->feature_names[c] = gv_strdup(name));
        }
    gv_free(m->label_name);
    bad |= !(m->label_name = gv_strdup(raw->label_name));
    m->task = raw->task;
    bad |= gv_dict_copy(&m->classes, &raw->classes) != 0;
    if (bad) {
        gv_schema_free(m);
        return NULL;
    }
    return m;
}

/* Writes learner l's prediction p (K probabilities or a value) as its meta columns. */
static void put_meta(const gv_stacking *s, size_t l, const double *p, float *row)
{
    float *dst = row + (s->passthrough ? s->n_raw : 0) + l * s->per;
    if (s->n_classes == 2)
        dst[0] = (float)p[1];
    else
        for (size_t k = 0; k < s->per; k++) dst[k] = (float)p[k];
}

static void stacking_predict_row(const void *impl, const grove_dataset *d, size_t i, double *out)
{
    const gv_stacking *s = impl;
    size_t K = s->n_classes ? (size_t)s->n_classes : 1;
    float fbuf[GV_STACK_BUF];
    double pbuf[GV_STACK_BUF];
    float *row = s->n_meta <= GV_STACK_BUF ? fbuf : gv_malloc_array(s->n_meta, sizeof *row);
    double *p = K <= GV_STACK_BUF ? pbuf : gv_malloc_array(K, sizeof *p);
    if (!row || !p) { /* no memory for the scratch: a prediction that says so */
        for (size_t k = 0; k < K; k++) out[k] = s->n_classes ? 1.0 / (double)K : NAN;
        goto done;
    }
    if (s->passthrough)
        for (size_t f = 0; f < s->n_raw; f++) row[f] = gv_value(d, f, i);
    for (size_t l = 0; l < s->n_learners; l++) {
        s->members[l].vt->predict_row(s->members[l].impl, d, i, p);
        put_meta(s, l, p, row);
    }
    if (is_linear(s)) {
        out[0] = gv_least_squares_value(&s->lin, s->n_meta, row);
    } else {
        /* a one-row dataset over the caller's stack buffer (values are read-only here) */
        grove_dataset one;
        memset(&one, 0, sizeof one);
        one.schema = s->meta_schema;
        one.n_rows = 1;
        one.values = row;
        s->meta.vt->predict_row(s->meta.impl, &one, 0, out);
    }
done:
    if (row != fbuf) gv_free(row);
    if (p != pbuf) gv_free(p);
}

/* Deals the distinct rows of the view into folds (see the file comment): fold_of[r] for every
 * row r of the view (others untouched).  Returns the number of distinct rows. */
static size_t assign_folds(const gv_fit_input *in, size_t folds, uint64_t seed, size_t *fold_of,
                           uint8_t *seen, size_t *order)
{
    size_t N = in->data->n_rows, n_distinct = 0;
    memset(seen, 0, N);
    for (size_t p = 0; p < in->n_rows; p++) {
        size_t r = in->rows ? in->rows[p] : p;
        if (!seen[r]) n_distinct++;
        seen[r] = 1;
    }
    gv_rng rng;
    gv_rng_seed(&rng, seed, GV_STREAM_STACK, STREAM_FOLDS);
    size_t groups = in->n_classes >= 2 ? (size_t)in->n_classes : 1, dealt = 0;
    for (size_t g = 0; g < groups; g++) {
        size_t m = 0;
        for (size_t r = 0; r < N; r++)
            if (seen[r] && (groups == 1 || (size_t)in->y[r] == g)) order[m++] = r;
        gv_rng_shuffle(&rng, order, m);
        for (size_t j = 0; j < m; j++) fold_of[order[j]] = (dealt++) % folds;
    }
    return n_distinct;
}

grove_status gv_fit_stacking(const gv_fit_input *in, gv_rng *rng, gv_component *out)
{
    (void)rng; /* every fit has its own stream (file comment) */
    out->vt = NULL;
    out->impl = NULL;
    const grove_params *p = in->params;
    const grove_dataset *d = in->data;
    const int classification = in->n_classes >= 2;
    const uint64_t seed = (uint64_t)gv_param_int(p, GV_P_SEED);
    const size_t folds = (size_t)gv_param_int(p, GV_P_STACK_FOLDS);
    const size_t n = in->n_rows, N = d->n_rows, K = classification ? (size_t)in->n_classes : 1;
    grove_params *bp = NULL;
    gv_fit_task *tasks = NULL;
    size_t *fold_of = NULL, *order = NULL, *train_rows = NULL, n_tasks = 0;
    uint8_t *seen = NULL;
    size_t n_meta_cols = 0;
    double *pbuf = NULL, *meta_w = NULL;
    grove_dataset *meta_ds = NULL;
    gv_bin_mapper *mappers = NULL;
    gv_binned *binned = NULL;
    grove_status st;

    gv_stacking *s = gv_calloc(1, sizeof *s);
    if (!s) return gv_err_nomem("a stacking model");
    s->n_classes = classification ? in->n_classes : 0;
    s->folds = (int64_t)folds;
    s->passthrough = (int)gv_param_int(p, GV_P_STACK_PASSTHROUGH);
    if ((st = gv_learners_param(p, GV_P_STACK_LEARNERS, classification, &s->names,
                             &s->n_learners)) != GROVE_OK)
        goto done;
    const char *meta = gv_param_str(p, GV_P_STACK_META);
    if (!strcmp(meta, "auto")) meta = classification ? "logistic" : "linear";
    const gv_learner *meta_learner = NULL;
    if (!strcmp(meta, "linear")) {
        if (classification) {
            st = gv_err(GROVE_ERR_PARAM, "stack.meta: linear is a regression combiner; this is "
                                         "a classification task (use logistic or any learner)");
            goto done;
        }
    } else if (!strcmp(meta, "stacking")) {
        /* it would read these same stack.* parameters and recurse without end */
        st = gv_err(GROVE_ERR_PARAM, "stack.meta: stacking cannot be its own meta-learner");
        goto done;
    } else if (!(meta_learner = gv_learner_find(meta))) {
        st = gv_err(GROVE_ERR_PARAM, "stack.meta: unknown learner '%s' (see `grove help algos`)",
                    meta);
        goto done;
    }
    if (!(s->meta_name = gv_strdup(meta)) || !(s->meta_schema = meta_schema_new(s, d->schema))) {
        st = gv_err_nomem("a stacking model");
        goto done;
    }
    n_meta_cols = s->n_meta;
    if (n == 0) {
        st = gv_err(GROVE_ERR_DATA, "stacking: no rows to train on");
        goto done;
    }
    if ((st = gv_base_params_new(p, &bp)) != GROVE_OK) goto done;

    /* folds over the distinct rows */
    fold_of = gv_malloc_array(N, sizeof *fold_of);
    order = gv_malloc_array(N, sizeof *order);
    seen = gv_malloc(N ? N : 1);
    size_t L = s->n_learners, n_train_all;
    n_tasks = L * (folds + 1);
    if (gv_mul_size(folds, n, &n_train_all) != 0) n_train_all = SIZE_MAX;
    train_rows = gv_malloc_array(n_train_all, sizeof *train_rows);
    tasks = gv_calloc(n_tasks, sizeof *tasks);
    s->members = gv_calloc(L, sizeof *s->members);
    pbuf = gv_malloc_array(K, sizeof *pbuf);
    meta_w = gv_malloc_array(n, sizeof *meta_w);
    if (!fold_of || !order || !seen || !train_rows || !tasks || !s->members || !pbuf || !meta_w) {
        st = gv_err_nomem("stacking");
        goto done;
    }
    size_t n_distinct = assign_folds(in, folds, seed, fold_of, seen, order);
    if (n_distinct < folds) {
        st = gv_err(GROVE_ERR_DATA, "stacking: %zu distinct training rows, fewer than "
                                    "stack.folds = %zu", n_distinct, folds);
        goto done;
    }
    /* fold j's training rows: the view's positions outside fold j, in view order */
    size_t n_train[1001];
    for (size_t j = 0; j < folds; j++) {
        size_t *tr = train_rows + j * n, m = 0;
        for (size_t q = 0; q < n; q++) {
            size_t r = in->rows ? in->rows[q] : q;
            if (fold_of[r] != j) tr[m++] = r;
        }
        n_train[j] = m;
    }
    for (size_t l = 0; l < L; l++)
        for (size_t j = 0; j <= folds; j++) {
            gv_fit_task *k = &tasks[l * (folds + 1) + j];
            k->learner = gv_learner_find(s->names[l]);
            k->in = *in;
            k->in.params = bp;
            k->in.valid = NULL;
            k->in.pred = NULL;
            k->stream = l * (folds + 1) + j;
            if (j < folds) {
                k->in.rows = train_rows + j * n;
                k->in.n_rows = n_train[j];
            }
        }
    if ((st = gv_fit_tasks_run(tasks, n_tasks, in->n_threads, seed, GV_STREAM_STACK,
                        (const char *const *)s->names, folds + 1)) != GROVE_OK)
        goto done;

    /* the meta dataset: out-of-fold predictions (and raw values), labels, weights */
    grove_schema *ms = gv_schema_copy(s->meta_schema);
    meta_ds = ms ? gv_dataset_new(ms, n, 1) : NULL;
    if (meta_ds) {
        gv_free(meta_ds->source);
        meta_ds->source = gv_strdup("<stacking meta-features>");
    }
    if (!meta_ds || !meta_ds->source) {
        st = gv_err_nomem("the stacking meta-features");
        goto done;
    }
    float *row = gv_malloc_array(s->n_meta ? s->n_meta : 1, sizeof *row);
    if (!row) {
        st = gv_err_nomem("the stacking meta-features");
        goto done;
    }
    for (size_t q = 0; q < n; q++) {
        size_t r = in->rows ? in->rows[q] : q;
        if (s->passthrough)
            for (size_t f = 0; f < s->n_raw; f++) row[f] = gv_value(d, f, r);
        for (size_t l = 0; l < L; l++) {
            const gv_component *c = &tasks[l * (folds + 1) + fold_of[r]].comp;
            c->vt->predict_row(c->impl, d, r, pbuf);
            put_meta(s, l, pbuf, row);
        }
        for (size_t c = 0; c < s->n_meta; c++) meta_ds->values[c * n + q] = row[c];
        meta_ds->labels[q] = in->y[r];
        meta_w[q] = in->weight ? in->weight[r] : 1;
    }
    gv_free(row);
    /* the members: the fits on all rows; the fold models are done */
    for (size_t l = 0; l < L; l++) {
        s->members[l] = tasks[l * (folds + 1) + folds].comp;
        memset(&tasks[l * (folds + 1) + folds].comp, 0, sizeof(gv_component));
    }
    for (size_t t = 0; t < n_tasks; t++) gv_component_free(&tasks[t].comp);

    if (!meta_learner) {
        st = gv_least_squares_fit(meta_ds, meta_ds->labels, meta_w,
                                  s->passthrough ? s->n_raw : 0, "stacking", &s->lin);
        if (st != GROVE_OK) goto done;
    } else {
        int nt = in->n_threads > 0 ? in->n_threads : 1;
        st = gv_bin_mappers_build(meta_ds, (int)gv_param_int(p, GV_P_MAX_BINS),
                                  (size_t)gv_param_int(p, GV_P_BIN_SAMPLE), seed, nt, &mappers);
        if (st == GROVE_OK) st = gv_binned_build(meta_ds, mappers, nt, &binned);
        if (st != GROVE_OK) goto done;
        gv_fit_input mi = {
            .data = meta_ds,
            .binned = binned,
            .rows = NULL,
            .n_rows = n,
            .weight = meta_w,
            .y = meta_ds->labels,
            .n_classes = in->n_classes,
            .params = p,
            .n_threads = nt,
            .valid = NULL,
        };
        gv_rng mrng;
        gv_rng_seed(&mrng, seed, GV_STREAM_STACK, n_tasks);
        st = meta_learner->fit(&mi, &mrng, &s->meta);
        if (st != GROVE_OK) {
            gv_err_prefix("stack.meta (%s)", meta);
            goto done;
        }
    }
    out->vt = &gv_stacking_component;
    out->impl = s;
    s = NULL;
done:
    if (tasks)
        for (size_t t = 0; t < n_tasks; t++) gv_component_free(&tasks[t].comp);
    gv_free(tasks);
    stacking_free(s);
    grove_params_free(bp);
    gv_free(fold_of);
    gv_free(order);
    gv_free(seen);
    gv_free(train_rows);
    gv_free(pbuf);
    gv_free(meta_w);
    grove_dataset_free(meta_ds);
    gv_binned_free(binned);
    if (mappers) gv_bin_mappers_free(mappers, n_meta_cols);
    return st;
}

static json_t *stacking_to_json(const void *impl)
{
    const gv_stacking *s = impl;
    json_t *obj = json_object();
    if (!obj) return NULL;
    int bad = json_object_set_new(obj, "n_classes", json_integer(s->n_classes));
    bad |= json_object_set_new(obj, "learners", gv_json_string_array(s->names, s->n_learners));
    bad |= json_object_set_new(obj, "folds", json_integer((json_int_t)s->folds));
    bad |= json_object_set_new(obj, "passthrough", json_integer(s->passthrough));
    bad |= json_object_set_new(obj, "members", gv_members_json(s->members, s->n_learners));
    bad |= json_object_set_new(obj, "meta_name", json_string(s->meta_name));
    if (is_linear(s)) {
        bad |= json_object_set_new(obj, "coef", gv_json_real_array(s->lin.coef, s->n_meta));
        bad |= json_object_set_new(obj, "fill", gv_json_real_array(s->lin.fill, s->n_meta));
        bad |= json_object_set_new(obj, "intercept", json_real(s->lin.intercept));
    } else {
        bad |= json_object_set_new(obj, "meta", gv_component_to_json(&s->meta));
    }
    if (bad) {
        json_decref(obj);
        return NULL;
    }
    return obj;
}

static grove_status stacking_validate(const void *impl, const grove_schema *schema)
{
    const gv_stacking *s = impl;
    if ((schema->task == GROVE_CLASSIFICATION) != (s->n_classes >= 2) ||
        (s->n_classes && (size_t)s->n_classes != schema->classes.n))
        return gv_err(GROVE_ERR_MODEL, "n_classes: %d does not fit the schema", s->n_classes);
    if (s->n_raw != schema->n_features)
        return gv_err(GROVE_ERR_MODEL, "stacking: built for %zu features, the schema has %zu",
                      s->n_raw, schema->n_features);
    grove_status st;
    for (size_t l = 0; l < s->n_learners; l++)
        if (s->members[l].vt->validate &&
            (st = s->members[l].vt->validate(s->members[l].impl, schema)) != GROVE_OK) {
            gv_err_prefix("members[%zu]", l);
            return st;
        }
    if (is_linear(s)) {
        if (s->n_classes) return gv_err(GROVE_ERR_MODEL, "meta_name: linear in a classifier");
        size_t first_meta = s->passthrough ? s->n_raw : 0;
        for (size_t c = 0; c < s->n_meta; c++) {
            if (!isfinite(s->lin.coef[c]) || !isfinite(s->lin.fill[c]))
                return gv_err(GROVE_ERR_MODEL, "coef/fill[%zu]: must be finite", c);
            if (c >= first_meta && s->lin.coef[c] < 0)
                return gv_err(GROVE_ERR_MODEL, "coef[%zu]: a base learner's weight must be >= 0",
                              c);
            if (s->meta_schema->is_categorical[c] && s->lin.coef[c] != 0)
                return gv_err(GROVE_ERR_MODEL, "coef[%zu]: must be 0 for a categorical column",
                              c);
        }
        if (!isfinite(s->lin.intercept))
            return gv_err(GROVE_ERR_MODEL, "intercept: must be finite");
        /* the value's bound: every column a float (or its fill), so no row's sum overflows */
        double bound = fabs(s->lin.intercept);
        for (size_t c = 0; c < s->n_meta; c++) {
            double x = fabs(s->lin.fill[c]) > FLT_MAX ? fabs(s->lin.fill[c]) : FLT_MAX;
            bound += fabs(s->lin.coef[c]) * x;
        }
        if (!isfinite(bound))
            return gv_err(GROVE_ERR_MODEL, "coef: the stacked value can overflow (|intercept| + "
                                           "sum |coef| max(FLT_MAX, |fill|) is not finite)");
    } else if (s->meta.vt->validate &&
               (st = s->meta.vt->validate(s->meta.impl, s->meta_schema)) != GROVE_OK) {
        gv_err_prefix("meta");
        return st;
    }
    return GROVE_OK;
}

static grove_status stacking_from_json(const json_t *obj, const gv_model_ctx *ctx, void **out)
{
    static const char *const fields[] = {"kind",      "n_classes", "learners", "folds",
                                         "passthrough", "members", "meta_name", "meta",
                                         "coef",      "fill",      "intercept"};
    *out = NULL;
    grove_status st = gv_json_check_fields(obj, fields, GV_COUNT(fields), "a stacking model");
    if (st != GROVE_OK) return st;
    gv_stacking *s = gv_calloc(1, sizeof *s);
    if (!s) return gv_err_nomem("a stacking model");
    int64_t nc, pt;
    const char *meta_name;
    const json_t *a;
    if ((st = gv_json_get_int(obj, "n_classes", 0, 65536, &nc)) != GROVE_OK) goto fail;
    if (nc == 1) {
        st = gv_err(GROVE_ERR_MODEL, "n_classes: must be 0 or >= 2");
        goto fail;
    }
    s->n_classes = (int)nc;
    if ((st = gv_json_get_int(obj, "folds", 2, 1000, &s->folds)) != GROVE_OK ||
        (st = gv_json_get_int(obj, "passthrough", 0, 1, &pt)) != GROVE_OK ||
        (st = gv_json_get_string(obj, "meta_name", &meta_name)) != GROVE_OK)
        goto fail;
    s->passthrough = (int)pt;
    if (strcmp(meta_name, "linear") && !gv_learner_find(meta_name)) {
        st = gv_err(GROVE_ERR_MODEL, "meta_name: unknown learner '%s'", meta_name);
        goto fail;
    }
    if (!(s->meta_name = gv_strdup(meta_name))) {
        st = gv_err_nomem("a stacking model");
        goto fail;
    }
    if ((st = gv_members_read(obj, ctx, &s->names, &s->members, &s->n_learners)) != GROVE_OK)
        goto fail;
    if ((ctx->schema->task == GROVE_CLASSIFICATION) != (nc >= 2)) {
        st = gv_err(GROVE_ERR_MODEL, "n_classes: %d does not fit the ctx->schema's task", (int)nc);
        goto fail;
    }
    if (!(s->meta_schema = meta_schema_new(s, ctx->schema))) {
        st = gv_err_nomem("a stacking model");
        goto fail;
    }
    if (is_linear(s)) {
        if (json_object_get(obj, "meta")) {
            st = gv_err(GROVE_ERR_MODEL, "meta: not expected with meta_name linear");
            goto fail;
        }
        s->lin.coef = gv_malloc_array(s->n_meta, sizeof *s->lin.coef);
        s->lin.fill = gv_malloc_array(s->n_meta, sizeof *s->lin.fill);
        if (!s->lin.coef || !s->lin.fill) {
            st = gv_err_nomem("a stacking model");
            goto fail;
        }
        if ((st = gv_json_get_array(obj, "coef", s->n_meta, &a)) != GROVE_OK) goto fail;
        for (size_t c = 0; c < s->n_meta; c++)
            s->lin.coef[c] = json_number_value(json_array_get(a, c));
        if ((st = gv_json_get_array(obj, "fill", s->n_meta, &a)) != GROVE_OK) goto fail;
        for (size_t c = 0; c < s->n_meta; c++)
            s->lin.fill[c] = json_number_value(json_array_get(a, c));
        if ((st = gv_json_get_double(obj, "intercept", &s->lin.intercept)) != GROVE_OK) goto fail;
    } else {
        if (json_object_get(obj, "coef") || json_object_get(obj, "fill") ||
            json_object_get(obj, "intercept")) {
            st = gv_err(GROVE_ERR_MODEL, "coef/fill/intercept: only with meta_name linear");
            goto fail;
        }
        const json_t *m = json_object_get(obj, "meta");
        if (!m) {
            st = gv_err(GROVE_ERR_MODEL, "meta: missing");
            goto fail;
        }
        /* the meta-learner reads the meta-features (no bin mappers in the model) */
        gv_model_ctx meta_ctx = *ctx;
        meta_ctx.schema = s->meta_schema;
        meta_ctx.mappers = NULL;
        if ((st = gv_component_from_json(m, &meta_ctx, &s->meta)) != GROVE_OK) {
            gv_err_prefix("meta");
            goto fail;
        }
    }
    if ((st = stacking_validate(s, ctx->schema)) != GROVE_OK) goto fail;
    *out = s;
    return GROVE_OK;
fail:
    stacking_free(s);
    return st;
}

static grove_status stacking_check(const void *impl, const gv_model_ctx *ctx, size_t n_outputs)
{
    if (ctx->reads_all) *ctx->reads_all = 1; /* every feature, not only split ones */
    const gv_stacking *s = impl;
    size_t K = s->n_classes ? (size_t)s->n_classes : 1;
    if (K != n_outputs)
        return gv_err(GROVE_ERR_MODEL, "stacking with %zu outputs where %zu are expected", K,
                      n_outputs);
    /* the members read the model's features (and bins); the meta-learner reads the meta
     * schema, which has no bin mappers in the model: validate() covered it */
    return gv_components_check(s->members, s->n_learners, ctx, n_outputs, "members");
}

static json_t *stacking_summary(const void *impl)
{
    const gv_stacking *s = impl;
    json_t *obj = json_pack("{s:s, s:I, s:b, s:s}", "kind", "stacking", "folds",
                            (json_int_t)s->folds, "passthrough", s->passthrough, "meta_learner",
                            s->meta_name);
    if (!obj) return NULL;
    json_t *ms = json_array();
    int bad = !ms;
    for (size_t l = 0; l < s->n_learners && !bad; l++)
        bad |= json_array_append_new(ms, gv_component_summary(&s->members[l]));
    bad |= json_object_set_new(obj, "members", ms);
    if (!bad && !is_linear(s))
        bad |= json_object_set_new(obj, "meta", gv_component_summary(&s->meta));
    if (!bad && is_linear(s))
        bad |= json_object_set_new(obj, "meta_coef", gv_json_real_array(s->lin.coef, s->n_meta));
    if (bad) {
        json_decref(obj);
        return NULL;
    }
    return obj;
}

/* C export (learner.h's export_c slot, core/cgen.h), as stacking_predict_row: the members'
 * outputs as floats into the meta row (after the raw features with passthrough; two classes:
 * P(class 1) only), then the meta-learner on that row (written with the meta row's schema), or
 * the linear combiner: intercept + sum of coef[c] * (x_c, or fill[c] when not finite). */
static grove_status stacking_export_c(const void *impl, gv_cgen *g, size_t *id)
{
    const gv_stacking *v = impl;
    const gv_component *meta_c = is_linear(v) ? NULL : &v->meta;
    const size_t L = v->n_learners, K = v->n_classes ? (size_t)v->n_classes : 1;
    size_t *ids = gv_malloc_array(L ? L : 1, sizeof *ids);
    if (!ids) return gv_err_nomem("export");
    grove_status st = gv_cgen_members(g, v->members, L, ids);
    size_t meta = 0;
    if (st == GROVE_OK && meta_c) {
        const grove_schema *outer = g->schema;
        g->schema = v->meta_schema;
        st = gv_cgen_component(g, meta_c, &meta);
        g->schema = outer;
    }
    if (st == GROVE_OK) {
        *id = gv_cgen_open_function(g, meta_c ? "stacking" : "stacking, linear combiner");
        gv_buf *b = &g->body;
        char lit[GV_CGEN_LIT];
        gv_cgen_out(b, g, "    float row[%zu];\n    double p[%zu];\n", v->n_meta, K);
        if (v->passthrough)
            gv_cgen_out(b, g, "    { size_t f; for (f = 0; f < %zu; f++) row[f] = x[f]; }\n",
                        v->n_raw);
        for (size_t l = 0; l < L; l++) {
            size_t off = (v->passthrough ? v->n_raw : 0) + l * v->per;
            gv_cgen_out(b, g, "    c%zu(x, p);", ids[l]);
            if (v->n_classes == 2)
                gv_cgen_out(b, g, " row[%zu] = (float)p[1];\n", off);
            else
                for (size_t k = 0; k < v->per; k++)
                    gv_cgen_out(b, g, "%s row[%zu] = (float)p[%zu];%s", k ? "   " : "", off + k, k,
                                k + 1 == v->per ? "\n" : "");
        }
        if (meta_c) {
            gv_cgen_out(b, g, "    c%zu(row, out);\n}\n", meta);
        } else {
            int any = 0;
            for (size_t c = 0; c < v->n_meta; c++) any |= v->lin.coef[c] != 0;
            gv_cgen_dlit(v->lin.intercept, lit);
            gv_cgen_out(b, g, "    double v = %s%s;\n", lit, any ? ", xc" : "");
            for (size_t c = 0; c < v->n_meta; c++) {
                if (v->lin.coef[c] == 0) continue;
                char fl[GV_CGEN_LIT];
                gv_cgen_dlit(v->lin.coef[c], lit);
                gv_cgen_dlit(v->lin.fill[c], fl);
                gv_cgen_out(b, g,
                            "    xc = (double)row[%zu]; v += %s * (isfinite(xc) ? xc : %s);\n", c,
                            lit, fl);
            }
            gv_cgen_out(b, g, "    out[0] = v;\n}\n");
        }
    }
    gv_free(ids);
    return st;
}

const gv_component_vt gv_stacking_component = {
    .kind = "stacking",
    .predict_row = stacking_predict_row,
    .to_json = stacking_to_json,
    .from_json = stacking_from_json,
    .free = stacking_free,
    .validate = stacking_validate,
    .check = stacking_check,
    .summary = stacking_summary,
    .export_c = stacking_export_c,
};

int gv_stacking_view_of(const gv_component *c, gv_stacking_view *v)
{
    if (!c || c->vt != &gv_stacking_component) return 0;
    const gv_stacking *s = c->impl;
    v->n_classes = s->n_classes;
    v->n_members = s->n_learners;
    v->members = s->members;
    v->passthrough = s->passthrough;
    v->n_raw = s->n_raw;
    v->per = s->per;
    v->n_meta = s->n_meta;
    v->meta_schema = s->meta_schema;
    v->meta = is_linear(s) ? NULL : &s->meta;
    v->coef = s->lin.coef;
    v->fill = s->lin.fill;
    v->intercept = s->lin.intercept;
    return 1;
}
