/*
 * bench_export.c -- the compiled export of a model against the library's batch predictor, in
 * one run: loads MODEL and DATA (a CSV of numeric features with the label in the first column),
 * predicts every row with grove_model_predict (1 thread) and with the exported
 * model_predict_batch (linked into this program; single-threaded by construction), best of REPS
 * each, checks that the outputs are bit-identical, and prints
 *   grove_rows_per_s export_rows_per_s identical(0/1)
 * Built by bench/export/run.sh against libgrove.a and the exported model.c.
 *   bench_export MODEL DATA [reps=3]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grove.h"

void model_predict_batch(const float *x, size_t n_rows, double *out);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The CSV's features as float rows (strtod then a float cast, as grove reads numbers). */
static float *read_rows(const char *path, size_t n, size_t f)
{
    FILE *fp = fopen(path, "r");
    float *x = malloc(n * f * sizeof *x);
    static char line[1 << 16];
    if (!fp || !x || !fgets(line, sizeof line, fp)) return NULL;
    for (size_t i = 0; i < n; i++) {
        if (!fgets(line, sizeof line, fp)) return NULL;
        char *p = strchr(line, ',');
        for (size_t j = 0; j < f; j++) {
            if (!p) return NULL;
            x[i * f + j] = (float)strtod(p + 1, &p);
        }
    }
    fclose(fp);
    return x;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_export MODEL DATA [reps]\n");
        return 1;
    }
    int reps = argc > 3 ? atoi(argv[3]) : 3;
    grove_model *m = NULL;
    grove_dataset *d = NULL;
    if (grove_model_load(argv[1], &m) != GROVE_OK ||
        grove_dataset_load(argv[2], NULL, grove_model_schema(m), &d) != GROVE_OK) {
        fprintf(stderr, "bench_export: %s\n", grove_last_error());
        return 2;
    }
    size_t n = grove_dataset_n_rows(d), f = grove_dataset_n_features(d);
    size_t k = grove_model_n_outputs(m);
    float *x = read_rows(argv[2], n, f);
    double *a = malloc(n * k * sizeof *a), *b = malloc(n * k * sizeof *b);
    if (!x || !a || !b) {
        fprintf(stderr, "bench_export: cannot read %s\n", argv[2]);
        return 2;
    }
    double best_lib = 1e300, best_exp = 1e300;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        if (grove_model_predict(m, d, 1, a, n * k) != GROVE_OK) {
            fprintf(stderr, "bench_export: %s\n", grove_last_error());
            return 2;
        }
        double t1 = now();
        model_predict_batch(x, n, b);
        double t2 = now();
        if (t1 - t0 < best_lib) best_lib = t1 - t0;
        if (t2 - t1 < best_exp) best_exp = t2 - t1;
    }
    printf("%.0f %.0f %d\n", (double)n / best_lib, (double)n / best_exp,
           memcmp(a, b, n * k * sizeof *a) == 0);
    free(x);
    free(a);
    free(b);
    grove_dataset_free(d);
    grove_model_free(m);
    return 0;
}
