/*
 * detect_bench.c -- grove_cascade_detect's speed: the median of REPS runs on one image (loaded
 * once, as cv2's timing below excludes imread), with the given scale factor, min neighbours and
 * threads.  Prints "grove,THREADS,MEDIAN_MS,BOXES,WINDOWS".
 *   detect_bench CASCADE IMAGE THREADS REPS [SCALE_FACTOR MIN_NEIGHBORS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "grove.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: detect_bench CASCADE IMAGE THREADS REPS [SCALE MINN]\n");
        return 1;
    }
    int threads = atoi(argv[3]), reps = atoi(argv[4]);
    double sf = argc > 5 ? atof(argv[5]) : 1.1;
    int mn = argc > 6 ? atoi(argv[6]) : 3;
    grove_cascade *c = NULL;
    grove_image *img = NULL;
    if (grove_cascade_load(argv[1], &c) || grove_image_load(argv[2], &img)) {
        fprintf(stderr, "detect_bench: %s\n", grove_last_error());
        return 1;
    }
    double *t = malloc(sizeof *t * (size_t)reps), windows = 0;
    size_t n = 0;
    for (int r = 0; r < reps; r++) {
        int *boxes = NULL;
        double t0 = now_ms();
        if (grove_cascade_detect(c, img, sf, mn, NULL, NULL, 0, threads, &boxes, &n, &windows)) {
            fprintf(stderr, "detect_bench: %s\n", grove_last_error());
            return 1;
        }
        t[r] = now_ms() - t0;
        grove_boxes_free(boxes);
    }
    qsort(t, (size_t)reps, sizeof *t, cmp);
    printf("grove,%d,%.2f,%zu,%.0f\n", threads, t[reps / 2], n, windows);
    free(t);
    grove_image_free(img);
    grove_cascade_free(c);
    return 0;
}
