/*
 * main.c -- `grove`, the command-line tool: one file per subcommand, listed and dispatched by
 * commands.c.
 */
#include "cli.h"

int main(int argc, char **argv)
{
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
