/*
 * predict_bench.c -- prediction throughput of a grove model: loads MODEL and DATA (with the
 * model's schema), then times grove_model_predict over all rows with THREADS threads (best of
 * REPS) and prints "rows_per_s rows_per_cpu_s": rows over the best wall time, and rows over the
 * least process CPU time (user + system, all threads) of a rep -- on a loaded machine the CPU
 * figure moves less.  Built by bench/gbdt/run.sh against libgrove.a.
 *   predict_bench MODEL DATA [threads=2] [reps=3]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "grove.h"

static double clock_s(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: predict_bench MODEL DATA [threads] [reps]\n");
        return 1;
    }
    int threads = argc > 3 ? atoi(argv[3]) : 2, reps = argc > 4 ? atoi(argv[4]) : 3;
    grove_model *m = NULL;
    grove_dataset *d = NULL;
    if (grove_model_load(argv[1], &m) != GROVE_OK ||
        grove_dataset_load(argv[2], NULL, grove_model_schema(m), &d) != GROVE_OK) {
        fprintf(stderr, "predict_bench: %s\n", grove_last_error());
        return 2;
    }
    size_t n = grove_dataset_n_rows(d), k = grove_schema_task(grove_model_schema(m)) ==
                                                    GROVE_CLASSIFICATION
                                                ? grove_schema_n_classes(grove_model_schema(m))
                                                : 1;
    double *out = malloc(n * k * sizeof *out), best = 1e300, best_cpu = 1e300;
    for (int r = 0; r < reps; r++) {
        double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
        if (grove_model_predict(m, d, threads, out, n * k) != GROVE_OK) {
            fprintf(stderr, "predict_bench: %s\n", grove_last_error());
            return 2;
        }
        double t = clock_s(CLOCK_MONOTONIC) - t0, c = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
        if (t < best) best = t;
        if (c < best_cpu) best_cpu = c;
    }
    printf("%.0f %.0f\n", (double)n / best, (double)n / best_cpu);
    free(out);
    grove_dataset_free(d);
    grove_model_free(m);
    return 0;
}
