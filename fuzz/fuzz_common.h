/*
 * fuzz_common.h -- what the libFuzzer targets of fuzz/ share.
 *
 * Every target feeds its bytes to one parser through the public API (include/grove.h), then
 * runs what follows a parser on whatever it accepted: a stump is trained on a parsed dataset
 * and predicts it back, a parsed model predicts a few rows (NaN, +-inf, 1e308, codes past the
 * last category) and round-trips through its buffer form, a parsed image is scanned by a small
 * cascade.  A target returns 0 always; a crash, a sanitizer report, a leak or a timeout is the
 * finding.  Files that the API reads by path are written under a private temporary directory
 * (/dev/shm when it exists), made once per process.
 */
#ifndef GROVE_FUZZ_COMMON_H
#define GROVE_FUZZ_COMMON_H

#include <grove.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The private directory, made on first use; "" if none could be made (targets then skip). */
static inline const char *fuzz_dir(void)
{
    static char dir[256];
    if (!dir[0]) {
        const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(dir, sizeof dir, "%s/grove-fuzz-XXXXXX", base);
        if (!mkdtemp(dir)) dir[0] = '\0';
    }
    return dir;
}

/* Writes `data` to the file `name` in the private directory; its path in `path`.  0 on success. */
static inline int fuzz_write(const char *name, const uint8_t *data, size_t size, char *path, size_t cap)
{
    const char *dir = fuzz_dir();
    if (!dir[0]) return -1;
    snprintf(path, cap, "%s/%s", dir, name);
    FILE *fp = fopen(path, "wb");
    if (!fp) return -1;
    size_t n = size ? fwrite(data, 1, size, fp) : 0;
    return (fclose(fp) != 0 || n != size) ? -1 : 0;
}

/* The largest dataset the stump step trains on: its cost is rows x features x bins. */
#define FUZZ_MAX_CELLS 2000000u

/* Predicts every row of `data` with `model` and checks the outputs' count. */
static inline void fuzz_predict(const grove_model *model, const grove_dataset *data)
{
    size_t n = grove_dataset_n_rows(data), k = grove_model_n_outputs(model);
    if (n == 0 || k == 0 || n > SIZE_MAX / k) return;
    double *out = malloc(n * k * sizeof *out);
    double *label = malloc(n * sizeof *label);
    if (out && label) {
        if (grove_model_predict(model, data, 1, out, n * k) == GROVE_OK)
            for (size_t i = 0; i < n * k; i++)
                if (isnan(out[i]) && grove_schema_task(grove_model_schema(model)) ==
                                         GROVE_CLASSIFICATION)
                    abort(); /* a class probability is never NaN */
        grove_model_predict_label(model, data, 1, label, n);
    }
    free(out);
    free(label);
}

/* Trains a stump on `data` (with `params` when non-NULL, one thread) and predicts it back,
 * then saves the model to a buffer and loads it again. */
static inline void fuzz_train_stump(const grove_dataset *data, const grove_params *params)
{
    size_t n = grove_dataset_n_rows(data), f = grove_dataset_n_features(data);
    if (!grove_dataset_has_labels(data) || n == 0 || (f && n > FUZZ_MAX_CELLS / f)) return;
    grove_params *p = NULL;
    if ((params ? grove_params_copy(params, &p) : grove_params_create(&p)) != GROVE_OK) return;
    grove_model *model = NULL;
    if (grove_params_set(p, "algo", "stump") == GROVE_OK &&
        grove_params_set(p, "threads", "1") == GROVE_OK &&
        grove_train(data, NULL, p, &model) == GROVE_OK) {
        fuzz_predict(model, data);
        char *buf = NULL;
        size_t len = 0;
        grove_model *again = NULL;
        if (grove_model_to_buffer(model, &buf, &len) == GROVE_OK) {
            if (grove_model_from_buffer(buf, len, &again) != GROVE_OK) abort(); /* own output */
            fuzz_predict(again, data);
        }
        grove_model_free(again);
        grove_string_free(buf);
    }
    grove_model_free(model);
    grove_params_free(p);
}

#endif
