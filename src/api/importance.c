/*
 * importance.c -- grove_model_importance: the public entry point of feature importances.
 *
 * Pipeline position: api/.  Checks the arguments and calls ensemble/importance.c (or, for
 * permutation importance, eval/permutation.c).
 */
#include "../ensemble/ensemble.h"
#include "../model/model.h"
#include "../eval/eval.h"

#include <string.h>

grove_status grove_model_importance(const grove_model *m, const char *kind,
                                    const grove_dataset *d, uint64_t seed, int n_threads,
                                    double *out, size_t out_len)
{
    gv_err_clear();
    if (!m || !kind || !out) return gv_err(GROVE_ERR_ARG, "grove_model_importance: NULL argument");
    const size_t F = m->schema->n_features;
    if (out_len < F)
        return gv_err(GROVE_ERR_ARG, "grove_model_importance: out holds %zu values, %zu needed",
                      out_len, F);
    int permutation = !strcmp(kind, "permutation");
    if (!permutation && strcmp(kind, "impurity") && strcmp(kind, "oob_permutation") &&
        strcmp(kind, "gain") && strcmp(kind, "cover"))
        return gv_err(GROVE_ERR_ARG, "importance: unknown kind '%s' (impurity, oob_permutation, "
                                     "gain, cover, permutation)", kind);
    if (permutation != (d != NULL))
        return gv_err(GROVE_ERR_ARG, "importance: '%s' %s", kind,
                      permutation ? "needs labelled data" : "takes no data");
    if (permutation) {
        grove_status st = gv_check_compatible(m, d);
        if (st != GROVE_OK) return st;
        return gv_importance_permutation(m, d, seed, gv_threads(n_threads), out);
    }
    return gv_component_importance(&m->root, kind, F, out);
}
