/*
 * eval.h -- evaluation over whole models that the api/ entry points call (eval/).
 *
 * Pipeline position: eval/ (after model/).
 */
#ifndef GV_EVAL_H
#define GV_EVAL_H

#include "../model/model.h"

/* Permutation importance of model m on labelled d (same schema) into out[n_features]
 * (permutation.c). */
grove_status gv_importance_permutation(const grove_model *m, const grove_dataset *d,
                                       uint64_t seed, int n_threads, double *out);

#endif /* GV_EVAL_H */
