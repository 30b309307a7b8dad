/*
 * train.c -- grove_train: the public entry point of training.
 *
 * Pipeline position: api/.  Checks the arguments, bins the training data once (bin/), finds the
 * learner named by "algo" (learn/learners.c) and fits it on all rows, then wraps the result
 * into a model (model/).  Random streams: the learner's rng is (seed, component 1, index 0);
 * binning's row sample uses the seed itself.
 */
#include "../core/params.h"
#include "../core/streams.h"
#include "../model/model.h"
#include "../dist/dist.h"
#include "../data/dataset.h"

#include <math.h>
#include <string.h>

static grove_status check_training_data(const grove_dataset *d)
{
    if (d->n_rows == 0) return gv_err(GROVE_ERR_DATA, "%s: no rows to train on", d->source);
    if (d->schema->n_features == 0)
        return gv_err(GROVE_ERR_DATA, "%s: no features to train on", d->source);
    if (!d->labels)
        return gv_err(GROVE_ERR_DATA, "%s: the data has no label column to train on", d->source);
    if (d->schema->task == GROVE_CLASSIFICATION && d->schema->classes.n < 2)
        return gv_err(GROVE_ERR_DATA,
                      "%s: the label has a single class ('%s'); classification needs at least two",
                      d->source, d->schema->classes.n ? d->schema->classes.names[0] : "");
    if (d->schema->task == GROVE_CLASSIFICATION && d->schema->classes.n > GV_MAX_CLASSES)
        return gv_err(GROVE_ERR_DATA, "%s: the label has %zu classes, at most %d are supported",
                      d->source, d->schema->classes.n, GV_MAX_CLASSES);
    /* The largest sums a learner forms over rows are sum w, sum w y and sum w y^2 (a regression
     * tree's variance, a leaf's mean, boosting's weighted errors): where one overflows, every
     * learner would go on with inf and end in NaN or a model the writer refuses.  Refused here,
     * at the first row that makes one of them not finite, for every algorithm alike. */
    double sw = 0, swy = 0, swyy = 0;
    const int regression = d->schema->task == GROVE_REGRESSION;
    for (size_t i = 0; i < d->n_rows; i++) {
        double w = d->weights ? d->weights[i] : 1.0, y = regression ? d->labels[i] : 0.0;
        sw += w;
        swy += w * y;
        swyy += w * y * y;
        if (!isfinite(sw) || !isfinite(swy) || !isfinite(swyy))
            return gv_err(GROVE_ERR_DATA,
                          "%s: row %zu: %s %.17g: the sum of the %s over the rows so far "
                          "overflows a double (at most about 1e308); rescale them",
                          d->source, i, !isfinite(sw) ? "weight" : "label",
                          !isfinite(sw) ? w : y,
                          !isfinite(sw) ? "weights" : "weighted squared labels");
    }
    return GROVE_OK;
}

/* A data-parallel run's bin mappers (collective): the rows one process would sample (bin.c's
 * selection sampling over the global row numbers, rank r holding rows first .. first + n - 1)
 * gathered in row order from their ranks, and the mappers built from them as bin.c builds
 * them from its sample, so every rank bins as one process over all rows would. */
static grove_status dist_mappers(const grove_dataset *d, int max_bins, size_t sample,
                                 uint64_t seed, int nt, size_t *n_total, gv_bin_mapper **out)
{
    size_t first, N, n = d->n_rows, F = d->schema->n_features;
    gv_dist_offsets(n, &first, &N);
    *n_total = N;
    size_t *rows = gv_malloc_array(n ? n : 1, sizeof *rows), m = 0;
    grove_status st = rows && d->values ? GROVE_OK
                      : rows ? gv_err(GROVE_ERR_DATA, "%s: data-parallel training needs dense data", d->source)
                             : gv_err_nomem("the bin sample");
    if (st == GROVE_OK && sample > 0 && N > sample) {
        gv_rng rng;
        gv_rng_seed(&rng, seed, GV_STREAM_BIN, 0);
        size_t taken = 0;
        for (size_t i = 0; i < N && taken < sample && i < first + n; i++)
            if ((double)(N - i) * gv_rng_uniform(&rng) < (double)(sample - taken)) {
                taken++;
                if (i >= first) rows[m++] = i - first;
            }
    } else if (st == GROVE_OK) {
        for (size_t i = 0; i < n; i++) rows[m++] = i;
    }
    st = gv_dist_agree(st);
    int64_t counts_max = (int64_t)m;
    gv_dist_max_i64(&counts_max, 1);
    size_t M = (size_t)counts_max, R = (size_t)gv_dist_size();
    size_t first_s, n_s;
    gv_dist_offsets(m, &first_s, &n_s);
    int64_t mine = (int64_t)m, *cnt = gv_malloc_array(R, sizeof *cnt);
    float *block = gv_malloc_array(M ? M : 1, sizeof *block), *all = gv_malloc_array(R, (M ? M : 1) * sizeof *all);
    grove_schema *sc = st == GROVE_OK ? gv_schema_copy(d->schema) : NULL;
    grove_dataset *s = sc ? gv_dataset_new(sc, n_s, 0) : NULL;
    if (st == GROVE_OK && (!cnt || !block || !all || !s)) st = gv_err_nomem("the bin sample");
    st = gv_dist_agree(st);
    if (st == GROVE_OK) {
        gv_dist_allgather(&mine, cnt, sizeof mine);
        for (size_t f = 0; f < F; f++) {
            for (size_t k = 0; k < m; k++) block[k] = d->values[f * n + rows[k]];
            gv_dist_allgather(block, all, M * sizeof *block);
            float *col = s->values + f * n_s;
            for (size_t r = 0; r < R; r++) {
                memcpy(col, all + r * M, (size_t)cnt[r] * sizeof *col);
                col += cnt[r];
            }
        }
        st = gv_bin_mappers_build(s, max_bins, 0, seed, nt, out);
    }
    grove_dataset_free(s);
    gv_free(cnt);
    gv_free(block);
    gv_free(all);
    gv_free(rows);
    return gv_dist_agree(st);
}

/* The algorithms whose every sum is reduced over the ranks, exactly (docs/distributed.md). */
#define DIST_ALGOS "gbdt, adaboost, adaboost.m1, samme, samme.r, adaboost.m2, adaboost.r2, " \
                   "bagging, forest, extra-trees, tree, stump, id3"
static int dist_supported(const char *algo)
{
    static const char *const names[] = {"gbdt", "adaboost", "adaboost.m1", "samme", "samme.r",
                                        "adaboost.m2", "adaboost.r2", "bagging", "forest", "extra-trees",
                                        "tree", "stump", "id3"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(names[i], algo)) return 1;
    return 0;
}

/* grove_train; with pred (out given, impl clear), the learner may fill pred->out with the
 * model's outputs on the training rows (learner.h's gv_fit_pred). */
static grove_status train(const grove_dataset *data, const grove_dataset *valid,
                          const grove_params *params, gv_fit_pred *pred, grove_model **out)
{
    if (!out) return gv_err(GROVE_ERR_ARG, "grove_train: out is NULL");
    *out = NULL;
    if (!data) return gv_err(GROVE_ERR_ARG, "grove_train: data is NULL");
    const int dist = gv_dist_active();
    grove_status st = check_training_data(data);
    if (dist) st = gv_dist_agree(st);
    if (st != GROVE_OK) return st;
    if (valid && !gv_schema_equal(valid->schema, data->schema))
        return gv_err(GROVE_ERR_DATA, "%s: the validation data does not have the training data's "
                                      "schema (load it with the training schema)",
                      valid->source);

    /* a data-parallel run trains on dense data (the all-reduced histograms are over dense binned
     * columns): a sparse dataset (LIBSVM with few cells set) is viewed through a dense copy of
     * its values (shard.c has made the parts of a cut file dense already) */
    grove_dataset dense_view;
    float *dense_values = NULL;
    if (dist && !data->values) {
        dense_values = gv_dataset_dense_values(data);
        st = gv_dist_agree(dense_values ? GROVE_OK : gv_err_nomem("the dense training values"));
        if (st != GROVE_OK) return st;
        dense_view = *data;
        dense_view.values = dense_values;
        dense_view.sp_col = NULL;
        dense_view.sp_row = NULL;
        dense_view.sp_val = NULL;
        data = &dense_view;
    }

    grove_params *own_params = NULL;
    if (!params) {
        st = grove_params_create(&own_params);
        if (st != GROVE_OK) {
            gv_free(dense_values);
            return st;
        }
        params = own_params;
    }
    const char *algo = gv_param_str(params, GV_P_ALGO);
    const gv_learner *learner = gv_learner_find(algo);
    int n_threads = gv_threads((int)gv_param_int(params, GV_P_THREADS));
    uint64_t seed = (uint64_t)gv_param_int(params, GV_P_SEED);
    size_t n_features = data->schema->n_features;
    int n_classes =
        data->schema->task == GROVE_CLASSIFICATION ? (int)data->schema->classes.n : 0;

    grove_model *m = NULL;
    gv_bin_mapper *mappers = NULL;
    gv_binned *binned = NULL;
    if (!learner) {
        st = gv_err(GROVE_ERR_INTERNAL, "algo: no learner named '%s' in this build", algo);
        goto done;
    }
    size_t n_total = data->n_rows;
    if (dist && !dist_supported(algo)) {
        st = gv_err(GROVE_ERR_PARAM, "algo: data-parallel training (mpirun) supports %s, got '%s'",
                    DIST_ALGOS, algo);
        goto done;
    }
    if (dist)
        st = dist_mappers(data, (int)gv_param_int(params, GV_P_MAX_BINS),
                          (size_t)gv_param_int(params, GV_P_BIN_SAMPLE), seed, n_threads, &n_total,
                          &mappers);
    else
        st = gv_bin_mappers_build(data, (int)gv_param_int(params, GV_P_MAX_BINS),
                                  (size_t)gv_param_int(params, GV_P_BIN_SAMPLE), seed, n_threads,
                                  &mappers);
    if (st != GROVE_OK) goto done;
    st = gv_binned_build(data, mappers, n_threads, &binned);
    if (st != GROVE_OK) goto done;

    m = gv_calloc(1, sizeof *m);
    if (!m) {
        st = gv_err_nomem("a model");
        goto done;
    }
    /* the schema first: gv_model_free needs its feature count to free the mappers */
    m->schema = gv_schema_copy(data->schema);
    if (!m->schema) {
        st = gv_err_nomem("a model");
        goto done;
    }
    m->mappers = mappers;
    mappers = NULL;
    m->algo = gv_strdup(algo);
    if (!m->algo) {
        st = gv_err_nomem("a model");
        goto done;
    }
    st = grove_params_copy(params, &m->params);
    if (st != GROVE_OK) goto done;
    m->n_outputs = n_classes >= 2 ? (size_t)n_classes : 1;
    m->n_train_rows = n_total;

    gv_fit_input in = {
        .data = data,
        .binned = binned,
        .rows = NULL,
        .n_rows = data->n_rows,
        .weight = data->weights,
        .y = data->labels,
        .n_classes = n_classes,
        .params = params,
        .n_threads = n_threads,
        .valid = valid,
        .pred = dist ? NULL : pred,
    };
    gv_rng rng;
    gv_rng_seed(&rng, seed, GV_STREAM_LEARNER, 0);
    if (gv_progress(params, algo, 0, 1)) {
        st = gv_err(GROVE_ERR_ARG, "cancelled");
        goto done;
    }
    st = learner->fit(&in, &rng, &m->root);
    if (dist) st = gv_dist_agree(st);
    if (st != GROVE_OK) goto done;
    gv_progress(params, algo, 1, 1);

done:
    gv_free(dense_values);
    gv_binned_free(binned);
    if (mappers) gv_bin_mappers_free(mappers, n_features);
    grove_params_free(own_params);
    if (st != GROVE_OK) {
        gv_model_free(m);
        return st;
    }
    *out = m;
    return GROVE_OK;
}

grove_status grove_train(const grove_dataset *data, const grove_dataset *valid,
                         const grove_params *params, grove_model **out)
{
    gv_err_clear();
    return train(data, valid, params, NULL, out);
}

grove_status grove_train_predicted(const grove_dataset *data, const grove_dataset *valid,
                                   const grove_params *params, grove_model **out,
                                   double *train_pred, size_t train_pred_len, int *predicted)
{
    gv_err_clear();
    if (!predicted) return gv_err(GROVE_ERR_ARG, "grove_train_predicted: predicted is NULL");
    *predicted = 0;
    if (out) *out = NULL;
    if (!data) return gv_err(GROVE_ERR_ARG, "grove_train: data is NULL");
    size_t k = data->schema->task == GROVE_CLASSIFICATION ? data->schema->classes.n : 1, need;
    if (gv_mul_size(data->n_rows, k < 1 ? 1 : k, &need) != 0 || !train_pred || train_pred_len < need)
        return gv_err(GROVE_ERR_ARG, "grove_train_predicted: train_pred holds %zu values, %zu rows "
                      "x %zu outputs needed", train_pred ? train_pred_len : 0, data->n_rows, k);
    gv_fit_pred pred = {.out = train_pred, .impl = NULL};
    grove_status st = train(data, valid, params, &pred, out);
    /* trusted only when the model's own component filled it */
    if (st == GROVE_OK && pred.impl && pred.impl == (*out)->root.impl) *predicted = 1;
    return st;
}
