/*
 * labels.c -- the task and the classes of a label column, shared by the CSV, LIBSVM and array
 * loaders so that one rule (grove.h, "Datasets") holds everywhere:
 *
 *   classification when a label is non-numeric (the text loaders decide that case themselves),
 *   or when every label is an integer and there are at most 50 distinct values; otherwise
 *   regression.  Parameter "task" overrides.  Numeric classes are ordered by value and named by
 *   the shortest text that reads back as the value ("1", "2", "0.5"; integers in plain digits,
 *   "10" rather than "1e+01"), so "1", "1.0" and "+1" in a file are the same class "1".
 *
 * Pipeline position: data/.  Labels are doubles: the class index for classification (what the
 * learners read), the target for regression.  Following a schema, a numeric label is matched
 * to the class whose name reads as the same number.
 */
#include "dataset.h"

#include "../core/params.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AUTO_MAX_CLASSES GV_AUTO_MAX_CLASSES

/* The name of numeric class v: integers below 2^53 in plain digits, others in the shortest
 * round-trip text.  buf holds 32 bytes. */
static void class_name(double v, char *buf)
{
    if (v == floor(v) && fabs(v) < 9007199254740992.0)
        snprintf(buf, 32, "%.0f", v);
    else
        gv_format_double(v, buf);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The index of v in sorted distinct values[0..k) (v is present). */
static size_t find_sorted(const double *values, size_t k, double v)
{
    size_t lo = 0, hi = k;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (values[mid] <= v)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Inserts v into the sorted distinct set values[0..*k) of capacity cap; 0 ok, -1 full. */
static int set_insert(double *values, size_t *k, size_t cap, double v)
{
    size_t lo = 0, hi = *k;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (values[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < *k && values[lo] == v) return 0;
    if (*k == cap) return -1;
    memmove(values + lo + 1, values + lo, (*k - lo) * sizeof *values);
    values[lo] = v;
    (*k)++;
    return 0;
}

grove_status gv_labels_infer_numeric(double *y, size_t n, int task_param, grove_schema *schema)
{
    /* A label 0 may be -0.0 ("-0" in a file); one class "0" for both. */
    for (size_t i = 0; i < n; i++)
        if (y[i] == 0) y[i] = 0.0;

    /* The distinct values, when there are few (the common case, and the auto rule's test). */
    double few[AUTO_MAX_CLASSES + 1];
    size_t k = 0;
    int all_integers = 1, many = 0;
    for (size_t i = 0; i < n && !many; i++) {
        if (y[i] != floor(y[i]) || fabs(y[i]) > 9007199254740992.0) all_integers = 0;
        if (set_insert(few, &k, AUTO_MAX_CLASSES + 1, y[i]) != 0) many = 1;
    }
    int classify = task_param == GV_TASK_CLASSIFICATION ||
                   (task_param == GV_TASK_AUTO && all_integers && k <= AUTO_MAX_CLASSES);
    if (!classify) {
        schema->task = GROVE_REGRESSION;
        return GROVE_OK;
    }
    schema->task = GROVE_CLASSIFICATION;

    double *values = few, *sorted = NULL;
    if (k > AUTO_MAX_CLASSES) { /* forced classification with many values: sort them all */
        sorted = gv_malloc_array(n, sizeof *sorted);
        if (!sorted) return gv_err_nomem("the class values");
        memcpy(sorted, y, n * sizeof *sorted);
        qsort(sorted, n, sizeof *sorted, compare_doubles);
        k = 0;
        for (size_t i = 0; i < n; i++)
            if (k == 0 || sorted[i] != sorted[k - 1]) sorted[k++] = sorted[i];
        values = sorted;
    }
    for (size_t c = 0; c < k; c++) {
        char name[32];
        class_name(values[c], name);
        if (gv_dict_add(&schema->classes, name, strlen(name)) < 0) {
            gv_free(sorted);
            gv_dict_free(&schema->classes);
            return gv_err_nomem("the class names");
        }
    }
    for (size_t i = 0; i < n; i++) y[i] = (double)find_sorted(values, k, y[i]);
    gv_free(sorted);
    return GROVE_OK;
}

long gv_labels_class_of_number(const grove_schema *schema, double v)
{
    if (!isfinite(v)) return -1;
    if (v == 0) v = 0.0;
    char name[32];
    class_name(v, name);
    return gv_dict_find(&schema->classes, name, strlen(name));
}

long gv_labels_class_of_text(const grove_schema *schema, const char *s, size_t len)
{
    long c = gv_dict_find(&schema->classes, s, len);
    if (c >= 0) return c;
    double v;
    if (gv_parse_decimal(s, len, &v) == GV_NUM_OK) return gv_labels_class_of_number(schema, v);
    return -1;
}

int gv_labels_numeric_classes(const grove_schema *schema)
{
    for (size_t c = 0; c < schema->classes.n; c++) {
        double v;
        const char *name = schema->classes.names[c];
        if (gv_parse_decimal(name, strlen(name), &v) != GV_NUM_OK) return 0;
    }
    return 1;
}

void gv_labels_list(const grove_schema *schema, char *buf, size_t size)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t c = 0; c < schema->classes.n; c++) {
        const char *sep = c ? ", " : "";
        if (c == 8 || o + strlen(schema->classes.names[c]) + 8 >= size) {
            snprintf(buf + o, size - o, "%s...", sep);
            return;
        }
        int n = snprintf(buf + o, size - o, "%s%s", sep, schema->classes.names[c]);
        if (n < 0) return;
        o += (size_t)n;
    }
}
