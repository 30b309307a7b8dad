/*
 * format_speed.c -- numbers per second of grove_format_double against printf, one core.
 *
 *   format_speed [N]        (N = 2,000,000 values of each kind)
 *
 * Three kinds of values: probabilities (uniform in [0, 1), what predict --proba writes),
 * random bit patterns over every exponent, and small integers.  Per kind it times
 * grove_format_double, snprintf("%.17g") (the round-trip text the model file and the old
 * writers used) and the shortest-%.{p}g search the CLI did before, and checks that every
 * text of grove's reads back exactly.  Prints one line per (kind, method): M numbers per CPU-second
 * of one thread (CPU time, not wall time, so that a busy machine does not skew the ratio).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grove.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time: the machine is shared */
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t state = 12345;
static uint64_t next(void)
{
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void search_g(double x, char *buf) /* the former CLI writer */
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, 32, "%.*g", prec, x);
        if (strtod(buf, NULL) == x) return;
    }
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 2000000;
    double *v = malloc(n * sizeof *v);
    if (!v) return 1;
    const char *kinds[] = {"probability", "bits", "integer"};
    for (int kind = 0; kind < 3; kind++) {
        for (size_t i = 0; i < n; i++) {
            uint64_t u = next();
            double x;
            if (kind == 0)
                x = (double)(u >> 11) * 0x1p-53;
            else if (kind == 1) {
                memcpy(&x, &u, sizeof x);
                if (!isfinite(x)) x = 1.5;
            } else
                x = (double)(u % 100000);
            v[i] = x;
        }
        char buf[GROVE_DOUBLE_TEXT];
        size_t total = 0, bad = 0;
        double t0 = now();
        for (size_t i = 0; i < n; i++) total += grove_format_double(v[i], buf);
        double t_grove = now() - t0;
        for (size_t i = 0; i < n; i++) {
            grove_format_double(v[i], buf);
            bad += strtod(buf, NULL) != v[i];
        }
        size_t m = n / 10; /* printf is slow: a tenth of the values */
        t0 = now();
        for (size_t i = 0; i < m; i++) total += (size_t)snprintf(buf, sizeof buf, "%.17g", v[i]);
        double t_printf = now() - t0;
        t0 = now();
        for (size_t i = 0; i < m; i++) {
            search_g(v[i], buf);
            total += buf[0];
        }
        double t_search = now() - t0;
        printf("%-12s grove_format_double %7.1f M/s   printf %%.17g %6.2f M/s   shortest %%.{p}g search %6.2f M/s"
               "   (not read back exactly: %zu; %zu)\n",
               kinds[kind], n / t_grove * 1e-6, m / t_printf * 1e-6, m / t_search * 1e-6, bad, total % 7);
    }
    free(v);
    return 0;
}
