/*
 * fuzz_cmdline.c -- libFuzzer target for whole `grove train` command lines: the CLI's option
 * parser (cli/util.c: cli_next over grove train's option table) over argv, then the
 * parameters it produced at work.
 *
 * The input is split into arguments at NUL bytes and newlines, and walked with grove train's
 * table as cmd_train walks it (an unknown option or a bad value ends it, as a usage error does);
 * the parameters then load a small built-in CSV and train a stump that predicts
 * (fuzz_common.h), and cli_check_unused reports the unused ones.  Arguments naming files are
 * not opened: the target exercises parsing, not the file system.
 */
#include "../cli/cli.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char train_csv[] = "x1,x2,x3,label\n"
                                "0.5,a,1,0\n1.5,b,2,1\n2.5,a,,0\n3.5,c,4,1\n"
                                "4.5,b,5,0\n5.5,c,6,1\n6.5,a,7,0\n7.5,b,8,1\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[512];
    if (!path[0] && fuzz_write("train.csv", (const uint8_t *)train_csv, sizeof train_csv - 1,
                               path, sizeof path) != 0) {
        path[0] = '\0';
        return 0;
    }
    if (size > 4096) return 0;
    char *text = malloc(size + 1);
    char **argv = malloc((size + 3) * sizeof *argv);
    grove_params *p = NULL;
    if (!text || !argv || grove_params_create(&p) != GROVE_OK) goto done;
    memcpy(text, data, size);
    text[size] = '\0';
    int argc = 0;
    argv[argc++] = "train";
    for (size_t i = 0, start = 0; i <= size; i++)
        if (i == size || text[i] == '\0' || text[i] == '\n') {
            text[i] = '\0';
            argv[argc++] = text + start;
            start = i + 1;
        }
    argv[argc] = NULL;
    /* grove train's option table; its own options (-o, --valid, --log) and DATA are skipped */
    cli_args a = {.cmd = &cli_train_command, .argc = argc, .argv = argv, .params = p};
    int r;
    while ((r = cli_next(&a)) != CLI_END && r != CLI_EXIT) {
    }
    if (r == CLI_END && cli_track_params(p) == EXIT_OK) {
        grove_dataset *ds = NULL;
        if (grove_dataset_load(path, p, NULL, &ds) == GROVE_OK) fuzz_train_stump(ds, p);
        grove_dataset_free(ds);
        (void)cli_check_unused(p, "train");
    }
done:
    grove_params_free(p);
    free(argv);
    free(text);
    return 0;
}
