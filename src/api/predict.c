/*
 * predict.c -- grove_model_predict and grove_model_predict_label; staged prediction, margins,
 * the OOB estimate and the training log, each through the root component's vtable slot (no
 * list of kinds here: a new kind fills its slots in its own file).
 *
 * Pipeline position: api/.  A model is read-only here, so any number of threads may call these
 * at once; inside, rows are split over OpenMP threads, each row written by exactly one thread,
 * so results do not depend on the thread count.
 */
#include "../ensemble/ensemble.h"
#include "../model/model.h"

#include <string.h>


/* The data must have the model's features: same count, kinds and category counts (data loaded
 * with the model's schema always does). */
grove_status gv_check_compatible(const grove_model *m, const grove_dataset *d)
{
    const grove_schema *ms = m->schema, *ds = d->schema;
    if (ms->n_features != ds->n_features)
        return gv_err(GROVE_ERR_DATA, "%s: the data has %zu features, the model expects %zu",
                      d->source, ds->n_features, ms->n_features);
    if (!ms->feature_ids != !ds->feature_ids || gv_schema_width(ms) != gv_schema_width(ds) ||
        (ms->feature_ids && memcmp(ms->feature_ids, ds->feature_ids,
                                   ms->n_features * sizeof *ms->feature_ids) != 0))
        return gv_err(GROVE_ERR_DATA, "%s: the data's features are other columns than the "
                      "model's; load the data with the model's schema", d->source);
    for (size_t f = 0; f < ms->n_features; f++) {
        if (ms->is_categorical[f] != ds->is_categorical[f] ||
            ms->categories[f].n != ds->categories[f].n)
            return gv_err(GROVE_ERR_DATA,
                          "%s: feature %zu ('%s') does not match the model's (%s%s); load the "
                          "data with the model's schema",
                          d->source, f, ds->feature_names[f],
                          ms->is_categorical[f] ? "categorical" : "numeric",
                          ms->is_categorical[f] ? " with other categories" : "");
    }
    return GROVE_OK;
}

/* Predicts every row with all rounds (rounds = 0) or the first `rounds`. */
static grove_status predict_rows(const grove_model *m, const grove_dataset *d, size_t rounds,
                                 int n_threads, double *out, size_t out_len, const char *fn)
{
    size_t need;
    if (gv_mul_size(d->n_rows, m->n_outputs, &need) != 0 || out_len < need)
        return gv_err(GROVE_ERR_ARG, "%s: out holds %zu values, %zu rows x %zu outputs needed",
                      fn, out_len, d->n_rows, m->n_outputs);
    grove_status st = gv_check_compatible(m, d);
    if (st != GROVE_OK) return st;
    const size_t k = m->n_outputs;
    const long n = (long)d->n_rows;
    const int nt = gv_threads(n_threads); /* 1 without OpenMP */
    if (m->root.vt->predict_block) {
        /* blocks of at most GV_PREDICT_BLOCK rows, as many as a multiple of the threads and of
         * about equal sizes (multiples of 16), so that the threads' shares are equal: 10,000 rows
         * were 4096 + 4096 + 1808, one thread predicting 8192 and the other 1808 */
        long n_blocks = (n + GV_PREDICT_BLOCK - 1) / GV_PREDICT_BLOCK, size = GV_PREDICT_BLOCK;
        const int par = n > 2048 && nt > 1;
        if (par) {
            n_blocks = (n_blocks + nt - 1) / nt * nt;
            size = ((n + n_blocks - 1) / n_blocks + 15) / 16 * 16;
            if (size > GV_PREDICT_BLOCK) size = GV_PREDICT_BLOCK;
            n_blocks = (n + size - 1) / size;
        }
        /* what the blocks share (compiled trees) built first, on the threads */
        if (m->root.vt->predict_prepare) m->root.vt->predict_prepare(m->root.impl, d, par ? nt : 1);
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static) if (par)
#endif
        for (long b = 0; b < n_blocks; b++) {
            size_t begin = (size_t)b * (size_t)size, end = begin + (size_t)size;
            if (end > (size_t)n) end = (size_t)n;
            m->root.vt->predict_block(m->root.impl, d, begin, end, rounds, out + begin * k);
        }
        return GROVE_OK;
    }
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static) if (n > 2048)
#endif
    for (long i = 0; i < n; i++) {
        if (rounds)
            m->root.vt->predict_row_rounds(m->root.impl, d, (size_t)i, rounds, out + (size_t)i * k);
        else
            m->root.vt->predict_row(m->root.impl, d, (size_t)i, out + (size_t)i * k);
    }
    return GROVE_OK;
}

grove_status grove_model_predict(const grove_model *m, const grove_dataset *d, int n_threads,
                                 double *out, size_t out_len)
{
    gv_err_clear();
    if (!m || !d || !out) return gv_err(GROVE_ERR_ARG, "grove_model_predict: NULL argument");
    return predict_rows(m, d, 0, n_threads, out, out_len, "grove_model_predict");
}

grove_status grove_model_predict_label(const grove_model *m, const grove_dataset *d,
                                       int n_threads, double *out, size_t out_len)
{
    gv_err_clear();
    if (!m || !d || !out)
        return gv_err(GROVE_ERR_ARG, "grove_model_predict_label: NULL argument");
    if (out_len < d->n_rows)
        return gv_err(GROVE_ERR_ARG, "grove_model_predict_label: out holds %zu values, %zu needed",
                      out_len, d->n_rows);
    const size_t k = m->n_outputs;
    if (k == 1) return grove_model_predict(m, d, n_threads, out, out_len);
    double *p = gv_malloc_array(d->n_rows, k * sizeof *p);
    if (!p) return gv_err_nomem("predictions");
    grove_status st = grove_model_predict(m, d, n_threads, p, d->n_rows * k);
    if (st == GROVE_OK) {
        for (size_t i = 0; i < d->n_rows; i++) {
            /* argmax, ties to the lowest class index */
            size_t best = 0;
            for (size_t c = 1; c < k; c++)
                if (p[i * k + c] > p[i * k + best]) best = c;
            out[i] = (double)best;
        }
    }
    gv_free(p);
    return st;
}

size_t grove_model_n_rounds(const grove_model *m)
{
    gv_err_clear();
    if (!m) return 0;
    return m->root.vt->n_rounds ? m->root.vt->n_rounds(m->root.impl) : 0;
}

grove_status grove_model_predict_rounds(const grove_model *m, const grove_dataset *d,
                                        size_t rounds, int n_threads, double *out, size_t out_len)
{
    gv_err_clear();
    if (!m || !d || !out) return gv_err(GROVE_ERR_ARG, "grove_model_predict_rounds: NULL argument");
    size_t have = m->root.vt->n_rounds ? m->root.vt->n_rounds(m->root.impl) : 0;
    if (have == 0)
        return gv_err(GROVE_ERR_ARG, "rounds: a %s model has no rounds to stage", m->algo);
    if (rounds < 1 || rounds > have)
        return gv_err(GROVE_ERR_ARG, "rounds: must be in [1, %zu] for this model, got %zu", have,
                      rounds);
    return predict_rows(m, d, rounds, n_threads, out, out_len, "grove_model_predict_rounds");
}

grove_status grove_model_margins(const grove_model *m, const grove_dataset *d, int n_threads,
                                 double *out, size_t out_len)
{
    gv_err_clear();
    if (!m || !d || !out) return gv_err(GROVE_ERR_ARG, "grove_model_margins: NULL argument");
    if (out_len < d->n_rows)
        return gv_err(GROVE_ERR_ARG, "grove_model_margins: out holds %zu values, %zu needed",
                      out_len, d->n_rows);
    grove_status st = gv_check_compatible(m, d);
    if (st != GROVE_OK) return st;
    return gv_component_margins(&m->root, d, gv_threads(n_threads), out);
}

grove_status grove_model_oob(const grove_model *m, double *error, size_t *n_rows)
{
    gv_err_clear();
    if (!m) return gv_err(GROVE_ERR_ARG, "grove_model_oob: model is NULL");
    if (!m->root.vt->oob)
        return gv_err(GROVE_ERR_ARG, "a %s model has no out-of-bag estimate", m->algo);
    double e;
    size_t n;
    m->root.vt->oob(m->root.impl, &e, &n);
    if (error) *error = e;
    if (n_rows) *n_rows = n;
    return GROVE_OK;
}

grove_status grove_model_log_csv(const grove_model *m, char **out)
{
    gv_err_clear();
    if (!out) return gv_err(GROVE_ERR_ARG, "grove_model_log_csv: out is NULL");
    *out = NULL;
    if (!m) return gv_err(GROVE_ERR_ARG, "grove_model_log_csv: model is NULL");
    gv_buf b = {0};
    grove_status st = gv_component_log_csv(&m->root, &b);
    if (st != GROVE_OK) {
        gv_buf_free(&b);
        return st;
    }
    *out = b.data;
    return GROVE_OK;
}
