/*
 * fuzz_roundtrip.c -- libFuzzer target for the write-then-read round trip of model files: every
 * model grove loads must predict numbers and write files that it reads back to the same bytes
 * (roundtrip_check.h: J(load(J(m))) == J(m), B(load(B(m))) == B(m), and across the formats).
 *
 * An input is a model file's bytes, text (JSON, gzip'd or not) or binary (.gvb), loaded by path
 * as given and, when it is a JSON object or a .gvb file, once more with its checksum recomputed
 * (checksum.h) so that mutations reach the loader's checks.  A model that loads predicts seven
 * ordinary rows of its schema: a NaN, a probability outside [0, 1] or not summing to 1, or a
 * regression value that is not finite aborts; so does a model that cannot be written, a file
 * grove wrote that it cannot read, bytes that differ on re-saving, or a reloaded model that
 * predicts differently.  mutate.h's custom mutator puts finite extremes (1e308, 5e-324, ...)
 * into numbers and deep "base." chains into parameter keys.
 */
#define FUZZ_CUSTOM_MUTATOR
#include "checksum.h"
#include "fuzz_common.h"
#include "mutate.h"
#include "roundtrip_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const char *path)
{
    grove_model *m = NULL;
    if (grove_model_load(path, &m) == GROVE_OK) {
        char why[1024];
        if (rt_check(m, fuzz_dir(), why, sizeof why) != 0) {
            fprintf(stderr, "fuzz_roundtrip: %s\n", why);
            abort();
        }
    }
    grove_model_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[512];
    if (fuzz_write("model.in", data, size, path, sizeof path) != 0) return 0;
    check(path);
    char *fixed = with_checksum(data, size);
    if (fixed && fuzz_write("model.json", (const uint8_t *)fixed, strlen(fixed), path,
                            sizeof path) == 0)
        check(path);
    free(fixed);
    if (binary_with_checksum(data, size, path, sizeof path) == 0) check(path);
    return 0;
}
