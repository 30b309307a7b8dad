/*
 * permutation.c -- permutation importance of any model on labelled data
 * (grove_model_importance "permutation", api/importance.c).
 *
 * Pipeline position: eval/ (it predicts with a whole model).
 *   permutation   on labelled data D: with e = the model's error on D (classification: the
 *                 error rate of the predicted labels; regression: the mean squared error), and
 *                 e(f) = the same after permuting column f of D (stream (seed,
 *                 GV_STREAM_PERMUTE, f)), importance(f) = e(f) - e (Breiman 2001 sec. 10;
 *                 Fisher, Rudin & Dominici 2019).  Unweighted, not normalized; may be < 0.
 * Determinism: predictions are row-parallel with each row owned by one thread; the error sums
 * run in row order.
 */
#include "eval.h"

#include "../core/mathx.h"
#include "../core/streams.h"
#include "../ensemble/ensemble.h"

#include <string.h>

/* The model's error on the rows of d (predictions p [n * k] computed here). */
static double model_error(const grove_model *m, const grove_dataset *d, int n_threads, double *p)
{
    const size_t k = m->n_outputs;
    gv_component_predict_all(&m->root, d, k, n_threads, p);
    double e = 0;
    for (size_t i = 0; i < d->n_rows; i++) {
        const double *v = p + i * k;
        if (m->schema->task == GROVE_CLASSIFICATION) {
            size_t best = gv_argmax(v, k); /* ties to the lowest class */
            e += (double)best != d->labels[i];
        } else {
            double r = v[0] - d->labels[i];
            e += r * r;
        }
    }
    return d->n_rows ? e / (double)d->n_rows : 0;
}

grove_status gv_importance_permutation(const grove_model *m, const grove_dataset *d,
                                       uint64_t seed, int n_threads, double *out)
{
    const size_t n = d->n_rows, F = m->schema->n_features;
    if (!d->labels) return gv_err(GROVE_ERR_DATA, "%s: permutation importance needs labels", d->source);
    size_t nv, np;
    if (gv_mul_size(n, F, &nv) != 0 || gv_mul_size(n, m->n_outputs, &np) != 0)
        return gv_err_nomem("permutation importance");
    float *values = gv_dataset_dense_values(d); /* a sparse dataset is made dense here */
    float *dense = d->values ? NULL : gv_dataset_dense_values(d);
    double *p = gv_malloc_array(np ? np : 1, sizeof *p);
    size_t *perm = gv_malloc_array(n ? n : 1, sizeof *perm);
    if (!values || !p || !perm || (!d->values && !dense)) {
        gv_free(values);
        gv_free(dense);
        gv_free(p);
        gv_free(perm);
        return gv_err_nomem("permutation importance");
    }
    grove_dataset shuffled = *d; /* borrows d's schema and labels; values are ours */
    shuffled.values = values;
    const float *orig_values = d->values ? d->values : dense;
    double e0 = model_error(m, d, n_threads, p);
    for (size_t f = 0; f < F; f++) {
        gv_rng rng;
        gv_rng_seed(&rng, seed, GV_STREAM_PERMUTE, f);
        for (size_t i = 0; i < n; i++) perm[i] = i;
        gv_rng_shuffle(&rng, perm, n);
        float *col = values + f * n;
        const float *orig = orig_values + f * n;
        for (size_t i = 0; i < n; i++) col[i] = orig[perm[i]];
        out[f] = model_error(m, &shuffled, n_threads, p) - e0;
        memcpy(col, orig, n * sizeof *col);
    }
    gv_free(values);
    gv_free(dense);
    gv_free(p);
    gv_free(perm);
    return GROVE_OK;
}
