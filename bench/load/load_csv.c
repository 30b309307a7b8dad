/*
 * load_csv.c -- times grove_dataset_load() on one file, using only grove.h.
 *
 *   load_csv FILE [THREADS [REPEATS]]
 *
 * Prints one line: "grove threads=T rows=R features=F best=S median=S" (seconds of wall-clock
 * time over REPEATS loads, default 3).  Built and run by bench/load/run.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "grove.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: %s FILE [THREADS [REPEATS]]\n", argv[0]);
        return 1;
    }
    const char *threads = argc > 2 ? argv[2] : "0";
    int repeats = argc > 3 ? atoi(argv[3]) : 3;
    if (repeats < 1 || repeats > 100) repeats = 3;
    grove_params *params = NULL;
    if (grove_params_create(&params) != GROVE_OK ||
        grove_params_set(params, "threads", threads) != GROVE_OK) {
        fprintf(stderr, "load_csv: %s\n", grove_last_error());
        return 1;
    }
    double seconds[100];
    size_t rows = 0, features = 0;
    for (int r = 0; r < repeats; r++) {
        grove_dataset *d = NULL;
        double t0 = now();
        grove_status st = grove_dataset_load(argv[1], params, NULL, &d);
        seconds[r] = now() - t0;
        if (st != GROVE_OK) {
            fprintf(stderr, "load_csv: %s\n", grove_last_error());
            grove_params_free(params);
            return 2;
        }
        rows = grove_dataset_n_rows(d);
        features = grove_dataset_n_features(d);
        grove_dataset_free(d);
    }
    qsort(seconds, (size_t)repeats, sizeof *seconds, compare);
    printf("grove threads=%s rows=%zu features=%zu best=%.3f median=%.3f\n", threads, rows,
           features, seconds[0], seconds[repeats / 2]);
    grove_params_free(params);
    return 0;
}
