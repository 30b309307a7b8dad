/*
 * model.h -- the model container: schema, bin mappers, training parameters and a root component.
 *
 * Pipeline position: model/ (after ensemble/, before api/).
 * A grove_model is immutable once built: prediction only reads it, so many threads may use it.
 * Saving and loading (model_io.c) walk the component tree; the file format is documented in
 * docs/model-format.md.
 */
#ifndef GV_MODEL_H
#define GV_MODEL_H

#include "../learn/learner.h"

struct grove_model {
    grove_schema *schema;       /* owned */
    gv_bin_mapper *mappers;     /* [schema->n_features], owned */
    char *algo;                 /* owned, e.g. "tree" */
    grove_params *params;       /* the training parameters, owned */
    size_t n_outputs;           /* n_classes for classification, 1 for regression */
    gv_component root;          /* owned */
    size_t n_train_rows;        /* rows it was trained on */
};

/* Frees everything the model owns (NULL accepted). */
void gv_model_free(grove_model *m);

/* GROVE_OK when `d` has the model's features (count, kinds, category counts); else
 * GROVE_ERR_DATA naming the first mismatch (api/predict.c). */
grove_status gv_check_compatible(const grove_model *m, const grove_dataset *d);

/* Writes the model as JSON text to a new buffer (exact round trip of every number). */
grove_status gv_model_to_text(const grove_model *m, gv_buf *out);
/* Parses and validates model text; `source` names the file in messages. */
grove_status gv_model_from_text(const char *text, size_t len, const char *source,
                                grove_model **out);

/* JSON helpers shared by the components' to_json/from_json (model_io.c).  The getters record a
 * GROVE_ERR_MODEL message naming `field` when it is absent or has the wrong type/range. */
grove_status gv_json_get_int(const json_t *obj, const char *field, int64_t lo, int64_t hi,
                             int64_t *out);
grove_status gv_json_get_double(const json_t *obj, const char *field, double *out);
grove_status gv_json_get_string(const json_t *obj, const char *field, const char **out);
/* A new JSON array of the n doubles (written with 17 digits: exact); NULL when out of memory. */
json_t *gv_json_real_array(const double *v, size_t n);
/* The numbers of array `a` into x[0..n) (a was checked first, e.g. by gv_json_get_array). */
void gv_json_array_values(const json_t *a, double *x, size_t n);
/* The array field `field` of exactly n finite numbers into out[n]. */
grove_status gv_json_get_reals(const json_t *obj, const char *field, size_t n, double *out);
/* An array field of exactly n numbers (n = (size_t)-1: any length, returned in *n_out). */
grove_status gv_json_get_array(const json_t *obj, const char *field, size_t n, const json_t **out);

#endif /* GV_MODEL_H */
