/*
 * bench_tree.c -- micro benchmark of the histogram tree engine: one tree on n x F random
 * binned rows (255 value bins + missing, uint8), gradient statistics, depth-wise, for a list
 * of thread counts.  Prints the median of `reps` fits per thread count and checks that every
 * thread count grew the bit-identical tree.
 *
 * Build and run from the repository root (not part of the ctest suite):
 *   gcc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -fopenmp -Iinclude -Isrc \
 *       src/core/[a-z]*.c src/data/dataset.c src/bin/bin.c src/learn/tree.c src/learn/tree_grow.c \
 *       src/learn/tree_level.c src/learn/tree_partition.c src/learn/tree_sums.c src/learn/hist*.c \
 *       src/learn/split.c src/learn/plan.c bench/tree/bench_tree.c -ljansson -lz -lm -o bench_tree
 *   ./bench_tree [n_rows=1000000] [n_features=28] [max_depth=6] [reps=5] [threads=1,2]
 *   (stats: GRAD by default; set BENCH_STATS=class or reg for the other kinds, and
 *   BENCH_MAX_FEATURES=k for k candidate features drawn per node, as in forests)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "learn/tree.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
    size_t F = argc > 2 ? strtoull(argv[2], NULL, 10) : 28;
    int depth = argc > 3 ? atoi(argv[3]) : 6;
    int reps = argc > 4 ? atoi(argv[4]) : 5;
    const char *threads = argc > 5 ? argv[5] : "1,2";
    const char *stats_env = getenv("BENCH_STATS");
    gv_stats_kind stats = GV_STATS_GRAD;
    if (stats_env && !strcmp(stats_env, "class")) stats = GV_STATS_CLASS;
    if (stats_env && !strcmp(stats_env, "reg")) stats = GV_STATS_REG;

    gv_bin_mapper *m = calloc(F, sizeof *m);
    float *cuts = malloc(254 * sizeof *cuts);
    for (int i = 0; i < 254; i++) cuts[i] = (float)i + 0.5f;
    for (size_t f = 0; f < F; f++) {
        m[f].n_bins = 256;
        m[f].n_cuts = 254;
        m[f].cuts = cuts; /* shared, read-only */
    }
    gv_binned X = {n, F, m, 0, malloc(n * F), NULL};
    double *g = malloc(n * sizeof *g), *h = malloc(n * sizeof *h), *y = malloc(n * sizeof *y);
    gv_rng rng;
    gv_rng_seed(&rng, 1, 2, 3);
    for (size_t k = 0; k < n * F; k++) X.bins8[k] = (uint8_t)(1 + gv_rng_below(&rng, 255));
    for (size_t i = 0; i < n; i++) {
        /* a little signal in features 0 and 1 so the splits are not all noise */
        double s = (X.bins8[i] > 128 ? 1.0 : -1.0) + (X.bins8[n + i] > 64 ? 0.5 : 0.0);
        g[i] = gv_rng_uniform(&rng) - 0.5 - 0.2 * s;
        h[i] = 0.5 + gv_rng_uniform(&rng);
        y[i] = stats == GV_STATS_CLASS ? (double)(gv_rng_uniform(&rng) < 0.5 + 0.2 * s) : -g[i];
    }
    gv_tree_input in = {&X, NULL, n, NULL, y, g, h};
    printf("tree engine: %zu rows x %zu features, depth %d, %s statistics, median of %d\n", n, F,
           depth, stats == GV_STATS_GRAD ? "gradient" : stats == GV_STATS_REG ? "regression" : "class",
           reps);

    gv_tree *first = NULL;
    char *list = strdup(threads);
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        gv_tree_config cfg;
        gv_tree_config_default(&cfg, stats, 2);
        cfg.max_depth = depth;
        cfg.lambda = 1.0;
        cfg.n_threads = atoi(tok);
        if (getenv("BENCH_MAX_FEATURES")) cfg.max_features = strtoull(getenv("BENCH_MAX_FEATURES"), NULL, 10);
        double *times = malloc((size_t)reps * sizeof *times);
        for (int r = 0; r < reps; r++) {
            gv_tree *t = NULL;
            gv_rng frng;
            gv_rng_seed(&frng, 7, 8, 9);
            double t0 = now();
            grove_status st = gv_tree_fit(&cfg, &in, &frng, &t);
            times[r] = now() - t0;
            if (st != GROVE_OK) {
                fprintf(stderr, "fit failed: %s\n", grove_last_error());
                return 1;
            }
            if (!first) {
                first = t;
            } else {
                int same = first->n_nodes == t->n_nodes &&
                           !memcmp(first->nodes, t->nodes, t->n_nodes * sizeof *t->nodes) &&
                           !memcmp(first->values, t->values, t->n_nodes * t->n_outputs * sizeof(double));
                if (!same) {
                    fprintf(stderr, "threads=%d grew a different tree\n", cfg.n_threads);
                    return 1;
                }
                gv_tree_free(t);
            }
        }
        qsort(times, (size_t)reps, sizeof *times, cmp_double);
        printf("threads=%-3d median %.3f s  (min %.3f, max %.3f)  nodes %zu\n", cfg.n_threads,
               times[reps / 2], times[0], times[reps - 1], first->n_nodes);
        free(times);
    }
    free(list);
    gv_tree_free(first);
    free(X.bins8);
    free(g);
    free(h);
    free(y);
    free(cuts);
    free(m);
    return 0;
}
