/*
 * main.c -- `grove`, the command-line tool: one file per subcommand, listed and dispatched by
 * commands.c.
 */
#include "cli.h"

#include <stdlib.h>

/* OpenMP's wait policy set to passive unless the user chose one: libgomp spins by default (up
 * to some 300,000 turns), and a spinning thread takes the CPU -- or, on a vCPU that shares a
 * core, the core -- from the thread with the work.  With more runnable threads than CPUs (a shared machine),
 * 2 threads trained samme 200 x 100k in 2.7-4.0 s, 0.76-0.88 s waiting passively (1 thread:
 * 0.67-0.99 s); passive waiting costs a futex wake per parallel region (microseconds).
 * libgomp reads OMP_WAIT_POLICY once, in its own initializer, before main.  The executable's
 * pre-initializers (.preinit_array) run before the initializers of every shared library, so
 * setting the variable there reaches libgomp without starting the process again.  What it
 * reaches, measured with Debian 12's libgomp (OMP_DISPLAY_ENV=verbose): the policy PASSIVE, but
 * GOMP_SPINCOUNT stays at its default 300,000 (the variable set in the environment before the
 * start makes it 0), so a thread that waits spins a while before it sleeps, which keeps a
 * parallel region right after another at about a microsecond (learn/split.c). */
#if defined(__linux__) && defined(__ELF__)
static void wait_passive(int argc, char **argv, char **envp)
{
    (void)argc;
    (void)argv;
    (void)envp;
    if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT")) return;
    setenv("OMP_WAIT_POLICY", "passive", 1);
}
__attribute__((section(".preinit_array"), used)) static void (*const wait_passive_hook)(int, char **,
                                                                                       char **) =
    wait_passive;
#endif

int main(int argc, char **argv)
{
    /* under mpirun, `grove train` trains with the rows split over the ranks
     * (docs/distributed.md); otherwise this process is rank 0 of 1 */
    grove_status st = grove_dist_init();
    if (st != GROVE_OK) { /* a bad GROVE_DIST_TIMEOUT is a usage error; MPI failing, internal */
        cli_error("%s", grove_last_error());
        return st == GROVE_ERR_PARAM ? EXIT_USAGE : EXIT_INTERNAL;
    }
    int rc = cli_dispatch(argc, argv);
    grove_dist_finalize();
    return rc;
}
