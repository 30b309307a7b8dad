/*
 * array.c -- a dataset from a caller's row-major array (the C and Python entry point for data
 * already in memory): grove_dataset_from_array().
 *
 * Pipeline position: data/ (array -> grove_dataset).
 * The array is borrowed and copied, transposed to the column-major float layout of dataset.h;
 * any layout with element strides (row-major, column-major, a numpy view) is read in place.
 * Missing: NaN, and values equal to *missing_marker.  Other non-finite values, and finite
 * values beyond the float range, are errors (a float would turn them into infinities).
 *
 * Labels.  Without a schema they are numbers and labels.c's rule picks the task and the classes
 * (ordered by value, named by their shortest text).  With a schema (e.g. a model's), a
 * classification label is matched by value to a class name when every class name is a number
 * (classes "1", "2", "3": pass 1, 2, 3); when the classes are names ("benign", "malignant")
 * the label is the class index (0, 1).  Regression labels are targets.  Categorical features of
 * a schema carry category codes: integers in [0, n_categories).
 * Messages name the row and feature: "<array>: row 12, feature 3 ('color'): ...".
 *
 * grove_dataset_from_csr() takes compressed sparse rows (scipy.sparse.csr_matrix's indptr,
 * indices, data): absent entries are 0, stored values follow the rules above.  The dataset is
 * stored sparse (dataset.h's compressed columns, 8 bytes per stored value) when at most
 * 1/GV_SPARSE_DENSITY of the cells are stored, as LIBSVM files are; otherwise dense.
 */
#include "dataset.h"

#include "../core/params.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static grove_status bad_value(size_t row, size_t f, const grove_schema *s, const char *what,
                              double x)
{
    char text[32];
    gv_format_double(x, text);
    return gv_err(GROVE_ERR_DATA, "<array>: row %zu, feature %zu ('%s'): expected %s, found %s",
                  row, f, s->feature_names[f], what, text);
}

/* One array value of row i, feature f checked and converted: NaN (or the marker) is missing;
 * other non-finite values, finite values beyond the float range and, for a categorical
 * feature, values that are not category codes are errors. */
static grove_status take_value(const grove_schema *s, size_t i, size_t f, double x,
                               const double *marker, float *out)
{
    if (isnan(x) || (marker && x == *marker)) {
        *out = NAN;
        return GROVE_OK;
    }
    if (!isfinite(x) || fabs(x) > FLT_MAX) {
        /* beyond FLT_MAX a float may still round down to FLT_MAX; be exact */
        float y = (float)x;
        if (!isfinite(x) || isinf(y))
            return bad_value(i, f, s, "a finite number within the float range", x);
    }
    if (s->is_categorical[f]) {
        size_t n_cat = s->categories[f].n;
        if (!(x >= 0 && x < (double)n_cat && x == floor(x)))
            return bad_value(i, f, s, "a category code", x);
    }
    *out = (float)x;
    return GROVE_OK;
}

/* Copies rows [i0, i1) of `data` into ds (column-major), checking every value: element (i, f)
 * is data[i * row_stride + f * feature_stride]; inside the block feature by feature, so both a
 * row-major and a column-major source are read in long runs. */
static grove_status copy_block(grove_dataset *ds, const void *data, grove_dtype dtype,
                               size_t row_stride, size_t feature_stride, const double *marker,
                               size_t i0, size_t i1)
{
    const grove_schema *s = ds->schema;
    const size_t n_rows = ds->n_rows, n_features = s->n_features;
    const float *f32 = dtype == GROVE_FLOAT32 ? data : NULL;
    const double *f64 = dtype == GROVE_FLOAT64 ? data : NULL;
    for (size_t f = 0; f < n_features; f++) {
        float *col = &ds->values[f * n_rows];
        for (size_t i = i0; i < i1; i++) {
            size_t k = i * row_stride + (s->feature_ids ? s->feature_ids[f] : f) * feature_stride;
            grove_status st = take_value(s, i, f, f32 ? (double)f32[k] : f64[k], marker, &col[i]);
            if (st != GROVE_OK) return st;
        }
    }
    return GROVE_OK;
}

/* All rows, in blocks of 256 shared among the threads (params' threads); a bad value is
 * reported from the first block that has one, found again in the calling thread so that the
 * message is the same for any number of threads. */
static grove_status copy_values(grove_dataset *ds, const void *data, grove_dtype dtype,
                                size_t row_stride, size_t feature_stride, const double *marker,
                                int n_threads)
{
    enum { BLOCK = 256 };
    const size_t n_rows = ds->n_rows, n_blocks = (n_rows + BLOCK - 1) / BLOCK;
    size_t first_bad = n_blocks;
#ifdef _OPENMP
#pragma omp parallel for num_threads(n_threads) schedule(static) reduction(min : first_bad)
#endif
    for (size_t b = 0; b < n_blocks; b++) {
        size_t i0 = b * BLOCK, i1 = i0 + BLOCK < n_rows ? i0 + BLOCK : n_rows;
        if (b < first_bad &&
            copy_block(ds, data, dtype, row_stride, feature_stride, marker, i0, i1) != GROVE_OK)
            first_bad = b;
    }
    (void)n_threads;
    if (first_bad == n_blocks) return GROVE_OK;
    size_t i0 = first_bad * BLOCK;
    return copy_block(ds, data, dtype, row_stride, feature_stride, marker, i0,
                      i0 + BLOCK < n_rows ? i0 + BLOCK : n_rows);
}

static grove_status copy_labels(grove_dataset *ds, const double *labels, int task_param,
                                int follow)
{
    grove_schema *s = ds->schema;
    for (size_t i = 0; i < ds->n_rows; i++) {
        if (!isfinite(labels[i])) {
            char text[32];
            gv_format_double(labels[i], text);
            return gv_err(GROVE_ERR_DATA, "<array>: row %zu: expected a finite label, found %s",
                          i, text);
        }
        ds->labels[i] = labels[i];
    }
    if (!follow) return gv_labels_infer_numeric(ds->labels, ds->n_rows, task_param, s);
    if (s->task == GROVE_REGRESSION) return GROVE_OK;
    int by_value = gv_labels_numeric_classes(s);
    for (size_t i = 0; i < ds->n_rows; i++) {
        double y = ds->labels[i];
        long cls = by_value ? gv_labels_class_of_number(s, y)
                            : (y >= 0 && y < (double)s->classes.n && y == floor(y) ? (long)y : -1);
        if (cls < 0) {
            char text[32], classes[160];
            gv_format_double(y, text);
            gv_labels_list(s, classes, sizeof classes);
            return gv_err(GROVE_ERR_DATA,
                          by_value ? "<array>: row %zu: expected one of the classes (%s), found %s"
                                   : "<array>: row %zu: expected a class index for the classes "
                                     "(%s), found %s",
                          i, classes, text);
        }
        ds->labels[i] = (double)cls;
    }
    return GROVE_OK;
}

/* The common end of both entry points: labels and weights into ds when the values went in
 * (st), then *out = ds, or ds freed and the first error returned. */
static grove_status finish(grove_dataset *ds, grove_status st, const double *labels,
                           const double *weights, const grove_params *params, int follow,
                           grove_dataset **out)
{
    size_t n_rows = ds->n_rows;
    if (st == GROVE_OK && labels)
        st = copy_labels(ds, labels, gv_param_task(params), follow);
    if (st == GROVE_OK && weights) {
        ds->weights = gv_malloc_array(n_rows, sizeof *ds->weights);
        if (!ds->weights) st = gv_err_nomem("the weights");
        for (size_t i = 0; st == GROVE_OK && i < n_rows; i++) {
            if (!(weights[i] >= 0 && isfinite(weights[i]))) {
                char text[32];
                gv_format_double(weights[i], text);
                st = gv_err(GROVE_ERR_DATA, "<array>: row %zu: expected a non-negative finite "
                            "weight, found %s", i, text);
            } else {
                ds->weights[i] = weights[i];
            }
        }
    }
    if (st != GROVE_OK) {
        grove_dataset_free(ds);
        return st;
    }
    *out = ds;
    return GROVE_OK;
}

grove_status grove_dataset_from_array(const void *data, grove_dtype dtype, size_t n_rows,
                                      size_t n_features, const double *labels,
                                      const double *weights, const double *missing_marker,
                                      const grove_params *params, const grove_schema *schema,
                                      grove_dataset **out)
{
    return grove_dataset_from_strided(data, dtype, n_rows, n_features, n_features, 1, labels,
                                      weights, missing_marker, params, schema, out);
}

grove_status grove_dataset_from_strided(const void *data, grove_dtype dtype, size_t n_rows,
                                        size_t n_features, size_t row_stride,
                                        size_t feature_stride, const double *labels,
                                        const double *weights, const double *missing_marker,
                                        const grove_params *params, const grove_schema *schema,
                                        grove_dataset **out)
{
    gv_err_clear();
    if (!out) return gv_err(GROVE_ERR_ARG, "grove_dataset_from_array: out is NULL");
    *out = NULL;
    if (!data && n_rows > 0 && n_features > 0)
        return gv_err(GROVE_ERR_ARG, "grove_dataset_from_array: data is NULL");
    if (dtype != GROVE_FLOAT32 && dtype != GROVE_FLOAT64)
        return gv_err(GROVE_ERR_ARG, "grove_dataset_from_array: unknown dtype %d", (int)dtype);
    if (n_features == 0)
        return gv_err(GROVE_ERR_ARG, "grove_dataset_from_array: expected at least one feature, "
                      "found n_features = 0");
    /* a schema with compact features (dataset.h) reads its columns of a wider array */
    if (schema && n_features != gv_schema_width(schema))
        return gv_err(GROVE_ERR_DATA, "<array>: expected %zu features (the schema's), found %zu",
                      gv_schema_width(schema), n_features);
    size_t n_values, last_row, last_feature, last;
    if (gv_mul_size(n_rows, n_features, &n_values) != 0)
        return gv_err(GROVE_ERR_ARG, "grove_dataset_from_array: %zu x %zu values overflow",
                      n_rows, n_features);
    /* the last element's index must be representable (the strides come from the caller) */
    if (n_rows > 0 && (gv_mul_size(n_rows - 1, row_stride, &last_row) != 0 ||
                       gv_mul_size(n_features - 1, feature_stride, &last_feature) != 0 ||
                       (last = last_row + last_feature) < last_row))
        return gv_err(GROVE_ERR_ARG, "grove_dataset_from_array: strides %zu, %zu overflow for "
                      "%zu x %zu values", row_stride, feature_stride, n_rows, n_features);

    grove_schema *s = schema ? gv_schema_copy(schema) : gv_schema_new(n_features);
    if (!s) return gv_err_nomem("the schema");
    grove_dataset *ds = gv_dataset_new(s, n_rows, labels != NULL); /* takes over s */
    if (!ds) return gv_err_nomem("the dataset");
    int n_threads = gv_threads((int)gv_param_int(params, GV_P_THREADS));
    return finish(ds, copy_values(ds, data, dtype, row_stride, feature_stride, missing_marker,
                                  n_threads),
                  labels, weights, params, schema != NULL, out);
}

/* Validates the CSR structure: indptr starts at 0 and never decreases, and every row's column
 * indices are strictly increasing and below n_features. */
static grove_status check_csr(const int64_t *indptr, const int64_t *indices, size_t n_rows,
                              size_t n_features)
{
    if (indptr[0] != 0)
        return gv_err(GROVE_ERR_DATA, "<csr>: expected indptr[0] = 0, found %lld",
                      (long long)indptr[0]);
    for (size_t i = 0; i < n_rows; i++) {
        if (indptr[i + 1] < indptr[i])
            return gv_err(GROVE_ERR_DATA, "<csr>: row %zu: indptr decreases (%lld after %lld)", i,
                          (long long)indptr[i + 1], (long long)indptr[i]);
        for (int64_t k = indptr[i]; k < indptr[i + 1]; k++) {
            if (indices[k] < 0 || (uint64_t)indices[k] >= n_features)
                return gv_err(GROVE_ERR_DATA, "<csr>: row %zu: expected a column index in [0, "
                              "%zu), found %lld", i, n_features, (long long)indices[k]);
            if (k > indptr[i] && indices[k] <= indices[k - 1])
                return gv_err(GROVE_ERR_DATA, "<csr>: row %zu: expected strictly increasing "
                              "column indices, found %lld after %lld (sort them and sum "
                              "duplicates first)", i, (long long)indices[k],
                              (long long)indices[k - 1]);
        }
    }
    return GROVE_OK;
}

/* The stored values of a CSR array checked into ds: the compressed columns when ds is sparse,
 * else scattered into its zero-filled dense columns.  Row i keeps the entries ptr[i] ..
 * ptr[i+1]: feature col[k], value values[src[k]]. */
static grove_status copy_csr(grove_dataset *ds, const void *values, grove_dtype dtype,
                             const size_t *ptr, const uint32_t *col, const size_t *src)
{
    const grove_schema *s = ds->schema;
    const size_t n = ds->n_rows, m = ptr[n];
    const float *f32 = dtype == GROVE_FLOAT32 ? values : NULL;
    const double *f64 = dtype == GROVE_FLOAT64 ? values : NULL;
    if (ds->values) {
        memset(ds->values, 0, n * s->n_features * sizeof *ds->values);
        for (size_t i = 0; i < n; i++)
            for (size_t k = ptr[i]; k < ptr[i + 1]; k++) {
                size_t f = col[k];
                grove_status st = take_value(s, i, f, f32 ? (double)f32[src[k]] : f64[src[k]],
                                             NULL, &ds->values[f * n + i]);
                if (st != GROVE_OK) return st;
            }
        return GROVE_OK;
    }
    float *val = gv_malloc_array(m, sizeof *val);
    grove_status st = !val ? gv_err_nomem("the CSR copy") : GROVE_OK;
    for (size_t i = 0; st == GROVE_OK && i < n; i++)
        for (size_t k = ptr[i]; st == GROVE_OK && k < ptr[i + 1]; k++)
            st = take_value(s, i, col[k], f32 ? (double)f32[src[k]] : f64[src[k]], NULL, &val[k]);
    if (st == GROVE_OK && gv_dataset_fill_csr(ds, ptr, col, val) != 0)
        st = gv_err_nomem("the sparse dataset's columns");
    gv_free(val);
    return st;
}

grove_status grove_dataset_from_csr(const void *values, grove_dtype dtype, const int64_t *indptr,
                                    const int64_t *indices, size_t n_rows, size_t n_features,
                                    const double *labels, const double *weights,
                                    const grove_params *params, const grove_schema *schema,
                                    grove_dataset **out)
{
    gv_err_clear();
    if (!out) return gv_err(GROVE_ERR_ARG, "grove_dataset_from_csr: out is NULL");
    *out = NULL;
    if (!indptr) return gv_err(GROVE_ERR_ARG, "grove_dataset_from_csr: indptr is NULL");
    if (dtype != GROVE_FLOAT32 && dtype != GROVE_FLOAT64)
        return gv_err(GROVE_ERR_ARG, "grove_dataset_from_csr: unknown dtype %d", (int)dtype);
    if (n_features == 0)
        return gv_err(GROVE_ERR_ARG, "grove_dataset_from_csr: expected at least one feature, "
                      "found n_features = 0");
    if (n_features > UINT32_MAX)
        return gv_err(GROVE_ERR_ARG, "grove_dataset_from_csr: n_features = %zu, expected at "
                      "most %lu", n_features, (unsigned long)UINT32_MAX);
    if (schema && n_features != gv_schema_width(schema))
        return gv_err(GROVE_ERR_DATA, "<csr>: expected %zu features (the schema's), found %zu",
                      gv_schema_width(schema), n_features);
    if (indptr[n_rows] > 0 && (!values || !indices))
        return gv_err(GROVE_ERR_ARG, "grove_dataset_from_csr: values or indices is NULL");
    grove_status st = check_csr(indptr, indices, n_rows, n_features);
    if (st != GROVE_OK) return st;

    size_t nnz = (size_t)indptr[n_rows], cells;
    int few = gv_mul_size(n_rows, n_features, &cells) != 0 || nnz <= cells / GV_SPARSE_DENSITY;
    int sparse = few && n_rows <= GV_SPARSE_MAX_ROWS;
    /* the entries kept and their features: all, by column; following a schema with compact
     * features, those of its columns; without a schema, when few cells are stored, the
     * columns that hold an entry become compact features (dataset.h), as in libsvm.c */
    size_t *ptr = gv_malloc_array(n_rows + 1, sizeof *ptr);
    uint32_t *col = gv_malloc_array(nnz, sizeof *col);
    size_t *src = gv_malloc_array(nnz, sizeof *src);
    uint32_t *ids = NULL;
    size_t n_ids = 0, m = 0;
    grove_schema *s = NULL;
    if (!ptr || !col || !src) {
        st = gv_err_nomem("the CSR copy");
        goto done;
    }
    for (size_t i = 0; i < n_rows; i++) {
        ptr[i] = m;
        for (int64_t k = indptr[i]; k < indptr[i + 1]; k++) {
            long f = schema ? gv_schema_feature_of(schema, (size_t)indices[k]) : (long)indices[k];
            if (f < 0) continue;
            col[m] = (uint32_t)f;
            src[m++] = (size_t)k;
        }
    }
    ptr[n_rows] = m;
    if (!schema && few && n_features <= GV_MAX_COLUMNS) {
        if (gv_distinct_ids(col, m, n_features, &ids, &n_ids) != 0 ||
            (n_ids > 0 && n_ids < n_features && gv_remap_ids(col, m, ids, n_ids, n_features) != 0)) {
            st = gv_err_nomem("the feature columns");
            goto done;
        }
    }
    int compact = ids && n_ids > 0 && n_ids < n_features;
    s = schema ? gv_schema_copy(schema) : gv_schema_new(compact ? n_ids : n_features);
    if (s && compact) {
        int bad = gv_schema_set_ids(s, ids, n_features) != 0;
        for (size_t f = 0; f < n_ids && !bad; f++) {
            char name[32];
            snprintf(name, sizeof name, "f%lu", (unsigned long)ids[f]);
            gv_free(s->feature_names[f]);
            bad = !(s->feature_names[f] = gv_strdup(name));
        }
        if (bad) {
            gv_schema_free(s);
            s = NULL;
        }
    }
    if (!s) {
        st = gv_err_nomem("the schema");
        goto done;
    }
    grove_dataset *ds = sparse ? gv_dataset_new_sparse(s, n_rows, m, 0.0f, labels != NULL)
                               : gv_dataset_new(s, n_rows, labels != NULL); /* take over s */
    if (!ds) {
        st = gv_err_nomem("the dataset");
        goto done;
    }
    st = finish(ds, copy_csr(ds, values, dtype, ptr, col, src), labels, weights, params,
                schema != NULL, out);
done:
    gv_free(ptr);
    gv_free(col);
    gv_free(src);
    gv_free(ids);
    return st;
}
