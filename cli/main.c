/*
 * main.c -- `grove`, the command-line tool: one file per subcommand, listed and dispatched by
 * commands.c.
 */
#include "cli.h"

int main(int argc, char **argv)
{
    return cli_dispatch(argc, argv);
}
