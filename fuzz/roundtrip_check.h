/*
 * roundtrip_check.h -- what every model grove loads must satisfy: it predicts, on ordinary rows,
 * outputs that are numbers (class probabilities in [0, 1] summing to 1, finite regression
 * values), and it writes files that grove reads back to the same model.
 *
 * Shared by the libFuzzer target fuzz_roundtrip.c (which aborts on a failure) and the unit test
 * tests/test_model_roundtrip.c (which reports it).  Public API only (include/grove.h).
 *
 * The write-then-read property, for a model m, with J(m) its JSON text (grove_model_to_buffer,
 * the bytes of a .json file) and B(m) its binary file (grove_model_save to "*.gvb"):
 *   J(load(J(m))) == J(m),  B(load(B(m))) == B(m),  J(load(B(m))) == J(m),  B(load(J(m))) == B(m)
 * and every reloaded model predicts the same rows bit for bit.  A file grove wrote that it
 * cannot read is a failure; so is a model it loaded that it cannot write.
 */
#ifndef GROVE_ROUNDTRIP_CHECK_H
#define GROVE_ROUNDTRIP_CHECK_H

#include <grove.h>

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows predicted: RT_ROWS rows, row r holding rt_values[(r + c) % RT_NV] in column c (a
 * categorical column gets the code (r + c) % 3, or missing where the value is NaN).  Ordinary
 * values only: a model that loaded must turn them into numbers. */
#define RT_ROWS 7
static const double rt_values[] = {0.0, 1.0, -1.0, 0.5, -2.5, NAN, 3.0, 100.0};
#define RT_NV (sizeof rt_values / sizeof rt_values[0])
/* Schemas wider than this are not predicted (the rows would cost more than the check). */
#define RT_MAX_WIDTH 100000u

static inline int rt_fail(char *why, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
    return -1;
}

/* The rows above as a dataset of the model's schema, in *out (NULL when the schema is too wide
 * or the dataset cannot be made). */
static inline void rt_rows(const grove_model *m, grove_dataset **out)
{
    *out = NULL;
    const grove_schema *s = grove_model_schema(m);
    size_t nf = grove_schema_n_features(s), width = grove_schema_n_columns(s);
    if (width > RT_MAX_WIDTH) return;
    double *x = malloc((width ? width : 1) * RT_ROWS * sizeof *x);
    unsigned char *cat = calloc(width ? width : 1, 1);
    if (x && cat) {
        for (size_t f = 0; f < nf; f++)
            if (grove_schema_is_categorical(s, f)) cat[grove_schema_feature_column(s, f)] = 1;
        for (size_t r = 0; r < RT_ROWS; r++)
            for (size_t c = 0; c < width; c++) {
                double v = rt_values[(r + c) % RT_NV];
                x[r * width + c] = cat[c] ? (isnan(v) ? v : (double)((r + c) % 3)) : v;
            }
        grove_dataset_from_array(x, GROVE_FLOAT64, RT_ROWS, width, NULL, NULL, NULL, NULL, s, out);
    }
    free(x);
    free(cat);
}

/* m's predictions of `rows` (RT_ROWS x grove_model_n_outputs), a new array in *out; 0 when
 * predicted, 1 when grove refused to predict (not a failure), -1 with `why` when an output is not
 * a number it may be. */
static inline int rt_predict(const grove_model *m, const grove_dataset *rows, double **out,
                             char *why, size_t cap)
{
    *out = NULL;
    size_t k = grove_model_n_outputs(m);
    if (k == 0 || k > 1u << 20) return 1;
    double *p = malloc(RT_ROWS * k * sizeof *p);
    if (!p) return 1;
    if (grove_model_predict(m, rows, 1, p, RT_ROWS * k) != GROVE_OK) {
        free(p);
        return 1;
    }
    int cls = grove_schema_task(grove_model_schema(m)) == GROVE_CLASSIFICATION;
    for (size_t r = 0; r < RT_ROWS; r++) {
        double sum = 0;
        for (size_t c = 0; c < k; c++) {
            double v = p[r * k + c];
            if (cls ? !(v >= 0 && v <= 1) : !isfinite(v)) {
                free(p);
                return rt_fail(why, cap, "row %zu output %zu: %s %.17g", r, c,
                               cls ? "a probability outside [0, 1]:" : "a regression value not finite:",
                               v);
            }
            sum += v;
        }
        if (cls && k > 1 && !(fabs(sum - 1) <= 1e-6)) {
            free(p);
            return rt_fail(why, cap, "row %zu: the class probabilities sum to %.17g", r, sum);
        }
    }
    *out = p;
    return 0;
}

/* The bytes of the file at `path`, a new buffer in *out (*len bytes); 0 on success. */
static inline int rt_read(const char *path, char **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp) return -1;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    while (b) {
        size_t got = fread(b + n, 1, cap - n, fp);
        n += got;
        if (n < cap) break;
        char *nb = realloc(b, cap *= 2);
        if (!nb) {
            free(b);
            b = NULL;
        }
        b = nb;
    }
    int bad = ferror(fp);
    fclose(fp);
    if (!b || bad) {
        free(b);
        return -1;
    }
    *out = b;
    *len = n;
    return 0;
}

/* J(m) into *json, B(m) into *bin (written at `gvb_path`); 0 on success, -1 with `why`. */
static inline int rt_write(const grove_model *m, const char *gvb_path, char **json, size_t *json_len,
                           char **bin, size_t *bin_len, char *why, size_t cap)
{
    *json = *bin = NULL;
    grove_status st = grove_model_to_buffer(m, json, json_len);
    if (st != GROVE_OK)
        return rt_fail(why, cap, "a model grove read cannot be written as JSON: %s",
                       grove_last_error());
    st = grove_model_save(m, gvb_path);
    if (st != GROVE_OK) {
        grove_string_free(*json);
        *json = NULL;
        return rt_fail(why, cap, "a model grove read cannot be written as .gvb: %s",
                       grove_last_error());
    }
    if (rt_read(gvb_path, bin, bin_len) != 0) {
        grove_string_free(*json);
        *json = NULL;
        return rt_fail(why, cap, "%s: cannot read back", gvb_path);
    }
    return 0;
}

/* Checks m (see the file comment).  `dir` is a writable directory for the binary files.
 * 0 when m passes, -1 with a sentence in `why` when it does not. */
static inline int rt_check(const grove_model *m, const char *dir, char *why, size_t cap)
{
    char p1[600], p2[600];
    snprintf(p1, sizeof p1, "%s/rt1.gvb", dir);
    snprintf(p2, sizeof p2, "%s/rt2.gvb", dir);
    grove_dataset *rows = NULL;
    rt_rows(m, &rows);
    double *pred = NULL;
    int rc = 0;
    if (rows && (rc = rt_predict(m, rows, &pred, why, cap)) < 0) {
        grove_dataset_free(rows);
        return -1;
    }
    char *j1 = NULL, *b1 = NULL;
    size_t j1n = 0, b1n = 0;
    if (rt_write(m, p1, &j1, &j1n, &b1, &b1n, why, cap) != 0) {
        free(pred);
        grove_dataset_free(rows);
        return -1;
    }
    rc = 0;
    for (int form = 0; form < 2 && rc == 0; form++) {
        /* form 0: reload the JSON text; form 1: reload the binary file */
        grove_model *again = NULL;
        grove_status st = form == 0 ? grove_model_from_buffer(j1, j1n, &again)
                                    : grove_model_load(p1, &again);
        if (st != GROVE_OK) {
            rc = rt_fail(why, cap, "grove cannot read the %s it wrote: %s",
                         form ? ".gvb file" : "JSON text", grove_last_error());
            break;
        }
        char *j2 = NULL, *b2 = NULL;
        size_t j2n = 0, b2n = 0;
        if (rt_write(again, p2, &j2, &j2n, &b2, &b2n, why, cap) != 0)
            rc = -1;
        else if (j2n != j1n || memcmp(j1, j2, j1n) != 0)
            rc = rt_fail(why, cap, "the JSON written after reloading the %s differs (%zu vs %zu bytes)",
                         form ? ".gvb file" : "JSON text", j2n, j1n);
        else if (b2n != b1n || memcmp(b1, b2, b1n) != 0)
            rc = rt_fail(why, cap, "the .gvb written after reloading the %s differs (%zu vs %zu bytes)",
                         form ? ".gvb file" : "JSON text", b2n, b1n);
        grove_string_free(j2);
        free(b2);
        if (rc == 0 && pred) {
            double *pred2 = NULL;
            int r2 = rt_predict(again, rows, &pred2, why, cap);
            if (r2 < 0)
                rc = -1;
            else if (r2 > 0 || memcmp(pred, pred2, RT_ROWS * grove_model_n_outputs(m) * sizeof *pred))
                rc = rt_fail(why, cap, "the model reloaded from its %s predicts differently",
                             form ? ".gvb file" : "JSON text");
            free(pred2);
        }
        grove_model_free(again);
    }
    grove_string_free(j1);
    free(b1);
    free(pred);
    grove_dataset_free(rows);
    return rc;
}

#endif
