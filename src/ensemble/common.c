/*
 * common.c -- helpers every ensemble uses: predicting a member on every row.
 *
 * Pipeline position: ensemble/.  (The base learner's lookup, gv_base_learner, is the
 * registry's: registry.c.)
 */
#include "ensemble.h"

void gv_component_predict_all(const gv_component *c, const grove_dataset *d, size_t k,
                              int n_threads, double *out)
{
    const long n = (long)d->n_rows;
#ifdef _OPENMP
#pragma omp parallel for num_threads(n_threads > 0 ? n_threads : 1) schedule(static) if (n > 4096)
#else
    (void)n_threads;
#endif
    for (long i = 0; i < n; i++) c->vt->predict_row(c->impl, d, (size_t)i, out + (size_t)i * k);
}
