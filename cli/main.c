/*
 * main.c -- `grove`, the command-line tool: one file per subcommand, listed and dispatched by
 * commands.c.
 */
#include "cli.h"

#include <stdlib.h>
#include <unistd.h>

/* OpenMP threads that wait (for the next parallel region, at a barrier) sleep instead of
 * spinning, unless the user chose a policy: libgomp spins by default (up to some 300,000
 * turns), and a spinning thread takes the CPU -- or, on a vCPU that shares a core, the core --
 * from the thread with the work.  With more runnable threads than CPUs (a shared machine),
 * 2 threads trained samme 200 x 100k in 2.7-4.0 s, 0.76-0.88 s waiting passively (1 thread:
 * 0.67-0.99 s); passive waiting costs a futex wake per parallel region (microseconds).
 * libgomp reads OMP_WAIT_POLICY when it loads, before main: the process runs itself again with
 * the variable set (once: it is set then; if exec fails, this process goes on spinning). */
static void wait_passive(char **argv)
{
#if defined(__linux__)
    if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT")) return;
    if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
    execv("/proc/self/exe", argv);
#else
    (void)argv;
#endif
}

int main(int argc, char **argv)
{
    wait_passive(argv);
    /* under mpirun, `grove train` trains with the rows split over the ranks
     * (docs/distributed.md); otherwise this process is rank 0 of 1 */
    if (grove_dist_init() != GROVE_OK) {
        cli_error("%s", grove_last_error());
        return EXIT_INTERNAL;
    }
    int rc = cli_dispatch(argc, argv);
    grove_dist_finalize();
    return rc;
}
