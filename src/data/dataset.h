/*
 * dataset.h -- internal layout of grove_schema and grove_dataset, and the loaders' entry points.
 *
 * Pipeline position: data/ (after core/, before bin/).
 * A dataset stores raw values column-major as float (one array per feature); a categorical
 * feature stores its category code (0..n_categories-1) as a float; a missing value is NaN.
 * Labels are doubles: the class index for classification, the target for regression.
 * A schema names everything; datasets own their schema (a copy when loaded "with" a schema),
 * and models own theirs, so no object outlives another.
 */
#ifndef GV_DATASET_H
#define GV_DATASET_H

#include "../core/core.h"

/* A string -> code dictionary: codes are dense 0..n-1; `names` owned. */
typedef struct gv_dict {
    size_t n, cap;
    char **names;          /* names[code] */
    size_t *slots;         /* open-addressing hash table of code+1 (0 = empty), size n_slots */
    size_t n_slots;
} gv_dict;

void gv_dict_init(gv_dict *d);
void gv_dict_free(gv_dict *d);
/* The code of `s` (length len), or -1 if absent. */
long gv_dict_find(const gv_dict *d, const char *s, size_t len);
/* Adds `s` if absent; returns its code, or -1 when out of memory. */
long gv_dict_add(gv_dict *d, const char *s, size_t len);
/* A deep copy; 0 ok, -1 out of memory. */
int gv_dict_copy(gv_dict *dst, const gv_dict *src);

struct grove_schema {
    size_t n_features;
    char **feature_names;     /* [n_features], owned */
    unsigned char *is_categorical; /* [n_features] */
    gv_dict *categories;      /* [n_features]; empty for numeric features */
    char *label_name;         /* owned; "" when the source has no name */
    grove_task task;
    gv_dict classes;          /* classification: class names in class-index order */
};

/* New empty schema with n_features features named "f0".. (all numeric). NULL: no memory. */
grove_schema *gv_schema_new(size_t n_features);
grove_schema *gv_schema_copy(const grove_schema *s);
void gv_schema_free(grove_schema *s);
/* 1 when two schemas describe the same features (names, kinds, categories), task and classes. */
int gv_schema_equal(const grove_schema *a, const grove_schema *b);

struct grove_dataset {
    grove_schema *schema;     /* owned */
    size_t n_rows;
    float *values;            /* column-major: feature f, row i at values[f * n_rows + i]; owned */
    double *labels;           /* [n_rows] or NULL when the data has no label column; owned */
    double *weights;          /* [n_rows] or NULL (all 1); owned */
    char *source;             /* file name for messages ("<array>" for arrays); owned */
    char *warning;            /* "" or a message gathered while loading; owned */
};

/* The value of feature f in row i. */
static inline float gv_value(const grove_dataset *d, size_t f, size_t i)
{
    return d->values[f * d->n_rows + i];
}

/* An empty dataset with room for n_rows x schema->n_features values (NaN-filled), labels when
 * with_labels, no weights; takes over `schema` (freed on failure too).  NULL: no memory. */
grove_dataset *gv_dataset_new(grove_schema *schema, size_t n_rows, int with_labels);

/* Loaders (csv.c, libsvm.c, array.c).  `schema` NULL = infer (see grove.h), else follow. */
grove_status gv_load_csv(const char *path, const grove_params *params,
                         const grove_schema *schema, grove_dataset **out);
grove_status gv_load_libsvm(const char *path, const grove_params *params,
                            const grove_schema *schema, grove_dataset **out);

#endif /* GV_DATASET_H */
