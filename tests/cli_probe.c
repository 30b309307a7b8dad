/*
 * cli_probe.c -- a test helper for tests/cli_help.sh: runs many one-option command lines of the
 * `grove` CLI, each in a child process forked from this one instead of a fresh `grove`
 * process (an exec, a dynamic link and, under the sanitizers, a runtime's start-up each).
 *
 * Usage: cli_probe COMMAND [SUBCOMMAND] -- WORD...
 * For each WORD, a child runs `grove COMMAND [SUBCOMMAND] WORD` through cli_dispatch (the CLI's
 * sources but main(), linked in) with stdin from /dev/null and stdout discarded, and this
 * program prints one line "WORD<TAB>STATUS<TAB>REJECTED": the child's exit status and 1 when
 * its stderr says the word is unknown (as an unknown option, command, subcommand or topic, or
 * one argument too many), else 0.
 */
#include "cli.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const unknown[] = {"unknown option",  "unknown command", "unknown subcommand",
                                      "unknown topic",   "too many arguments", "more than one"};

/* 1 when the text of file fd (from its start) holds one of unknown[] */
static int says_unknown(int fd)
{
    static char buf[1 << 16];
    lseek(fd, 0, SEEK_SET);
    ssize_t n = read(fd, buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = '\0';
    for (size_t i = 0; i < sizeof unknown / sizeof *unknown; i++)
        if (strstr(buf, unknown[i])) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    int dash = 1;
    while (dash < argc && strcmp(argv[dash], "--")) dash++;
    if (dash < 2 || dash > 3 || dash == argc) {
        fprintf(stderr, "usage: cli_probe COMMAND [SUBCOMMAND] -- WORD...\n");
        return 1;
    }
    char tmpl[] = "/tmp/cli_probe.XXXXXX";
    int err = mkstemp(tmpl);
    if (err < 0) {
        perror("cli_probe: mkstemp");
        return 1;
    }
    unlink(tmpl);
    for (int w = dash + 1; w < argc; w++) {
        if (ftruncate(err, 0) != 0) return 1;
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0) {
            perror("cli_probe: fork");
            return 1;
        }
        if (pid == 0) {
            int null = open("/dev/null", O_RDWR);
            dup2(null, 0);
            dup2(null, 1);
            dup2(err, 2);
            lseek(err, 0, SEEK_SET);
            char *args[5];
            int n = 0;
            args[n++] = "grove";
            for (int i = 1; i < dash; i++) args[n++] = argv[i];
            args[n++] = argv[w];
            args[n] = NULL;
            exit(cli_dispatch(n, args));
        }
        int status = 0;
        if (waitpid(pid, &status, 0) < 0) return 1;
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        printf("%s\t%d\t%d\n", argv[w], code, says_unknown(err));
    }
    close(err);
    return 0;
}
