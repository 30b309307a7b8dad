/*
 * fuzz_params.c -- libFuzzer target for the parameter table (core/params.c): "key=value"
 * strings, one per line of the input, set with grove_params_set_pair.
 *
 * The parameters that were accepted are read back (grove_params_get on every declared one, the
 * unused list), copied, and then used: a small built-in CSV is loaded with them (label, weight,
 * categorical, ignore, sep, ... are data parameters) and a stump is trained with them and
 * predicts (fuzz_common.h).  The algorithm is always a stump so that "rounds=100000000" does
 * not turn into a timeout.  Besides libFuzzer's mutations, mutate.h's put deep "base." chains
 * (up to 20,000 levels) at the start of lines and finite extremes (1e308, 5e-324, ...) in values.
 */
#define FUZZ_CUSTOM_MUTATOR
#include "fuzz_common.h"
#include "mutate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char train_csv[] = "a,b,c,y\n"
                                "1,x,0.5,0\n2,y,,1\n3,x,1e308,0\n4,z,-inf,1\n"
                                "5,y,2.5,2\n6,x,NaN,0\n7,z,3,1\n8,y,-1,2\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[512];
    if (!path[0] && fuzz_write("train.csv", (const uint8_t *)train_csv, sizeof train_csv - 1,
                               path, sizeof path) != 0) {
        path[0] = '\0';
        return 0;
    }
    char *text = malloc(size + 1);
    grove_params *p = NULL;
    if (!text || grove_params_create(&p) != GROVE_OK) {
        free(text);
        return 0;
    }
    memcpy(text, data, size);
    text[size] = '\0';
    for (char *line = text, *end; line; line = end) {
        end = memchr(line, '\n', (size_t)(text + size - line));
        if (end) *end++ = '\0';
        grove_params_set_pair(p, line);
    }
    grove_params_track(p);
    char buf[256];
    for (size_t k = 0; k < grove_params_count(); k++) {
        const char *name = NULL, *kind = NULL, *def = NULL, *allowed = NULL, *help = NULL;
        if (grove_params_describe(k, &name, &kind, &def, &allowed, &help) == GROVE_OK)
            grove_params_get(p, name, buf, sizeof buf);
    }
    grove_params *copy = NULL;
    if (grove_params_copy(p, &copy) == GROVE_OK) {
        grove_dataset *ds = NULL;
        if (grove_dataset_load(path, copy, NULL, &ds) == GROVE_OK) fuzz_train_stump(ds, copy);
        grove_dataset_free(ds);
        char *unused = NULL;
        if (grove_params_unused(p, &unused) == GROVE_OK) grove_string_free(unused);
    }
    grove_params_free(copy);
    grove_params_free(p);
    free(text);
    return 0;
}
