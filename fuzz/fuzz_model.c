/*
 * fuzz_model.c -- libFuzzer target for the model-file reader (model/model_json.c, model_file.c).
 *
 * Each input is read three ways: as a file by grove_model_load (so gzip inputs reach the
 * decompressor), as a buffer by grove_model_from_buffer, and -- when it is a JSON object --
 * once more after its "crc32" is recomputed the way the writer computes it (CRC-32 of the
 * canonical text without "crc32", model_json.c), so that a mutated file reaches the semantic
 * checks behind the checksum instead of stopping at "checksum mismatch"; a binary model
 * (.gvb, model_bin.c: "GROVEBIN" first) is likewise loaded once more with its trailer's length
 * and CRC-32 recomputed, so that mutations reach the decoder and the array checks.  A model that
 * loads predicts rows built from its schema (ordinary values, NaN, +-inf, 1e308, category codes
 * past the last category), and its buffer form and its binary file must load again.  Besides
 * libFuzzer's mutations, mutate.h's put finite extremes in numbers and deep "base." chains in keys.
 */
#define FUZZ_CUSTOM_MUTATOR
#include "checksum.h"
#include "fuzz_common.h"
#include "mutate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const double odd_values[] = {0.0, 1.0, -1.0, NAN, INFINITY, -INFINITY, 1e308, -1e308,
                                    0.5, 3.0, 1e-310, 65536.0};
#define N_ODD (sizeof odd_values / sizeof odd_values[0])

/* Predicts N_ODD rows; row r holds odd_values[(r + c) % N_ODD] in column c (a category code
 * for a categorical feature's column: the value's integer part when it is one, else missing).
 * The rows are as wide as the data the schema reads (grove_schema_n_columns: wider than its
 * features when it has compact features). */
static void predict_odd_rows(const grove_model *model)
{
    const grove_schema *s = grove_model_schema(model);
    size_t nf = grove_schema_n_features(s), width = grove_schema_n_columns(s);
    if (width > 100000) return;
    double *x = malloc((width ? width : 1) * N_ODD * sizeof *x);
    unsigned char *cat = calloc(width ? width : 1, 1);
    if (!x || !cat) {
        free(x);
        free(cat);
        return;
    }
    for (size_t f = 0; f < nf; f++)
        if (grove_schema_is_categorical(s, f)) cat[grove_schema_feature_column(s, f)] = 1;
    for (size_t r = 0; r < N_ODD; r++)
        for (size_t c = 0; c < width; c++) {
            double v = odd_values[(r + c) % N_ODD];
            if (cat[c] && !(v >= 0 && v < 1e6 && v == floor(v))) v = NAN;
            x[r * width + c] = v;
        }
    grove_dataset *ds = NULL;
    if (grove_dataset_from_array(x, GROVE_FLOAT64, N_ODD, width, NULL, NULL, NULL, NULL, s, &ds) ==
        GROVE_OK)
        fuzz_predict(model, ds);
    grove_dataset_free(ds);
    free(x);
    free(cat);
}

static void use_model(grove_model *model)
{
    predict_odd_rows(model);
    char *info = NULL, *buf = NULL;
    size_t len = 0;
    if (grove_model_info_json(model, &info) == GROVE_OK) grove_string_free(info);
    if (grove_model_to_buffer(model, &buf, &len) == GROVE_OK) {
        grove_model *again = NULL;
        if (grove_model_from_buffer(buf, len, &again) != GROVE_OK) abort(); /* its own output */
        grove_model_free(again);
        grove_string_free(buf);
    }
    /* its binary file (written member by member) loads again too */
    char path[512];
    const char *dir = fuzz_dir();
    if (dir[0]) {
        snprintf(path, sizeof path, "%s/again.gvb", dir);
        if (grove_model_save(model, path) == GROVE_OK) {
            grove_model *again = NULL;
            if (grove_model_load(path, &again) != GROVE_OK) abort(); /* its own output */
            grove_model_free(again);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    grove_model *model = NULL;
    char path[512];
    if (fuzz_write("model.json", data, size, path, sizeof path) == 0 &&
        grove_model_load(path, &model) == GROVE_OK)
        use_model(model);
    grove_model_free(model);
    model = NULL;
    if (grove_model_from_buffer((const char *)data, size, &model) == GROVE_OK) use_model(model);
    grove_model_free(model);
    model = NULL;
    char *fixed = with_checksum(data, size);
    if (fixed && grove_model_from_buffer(fixed, strlen(fixed), &model) == GROVE_OK)
        use_model(model);
    grove_model_free(model);
    free(fixed);
    model = NULL;
    if (binary_with_checksum(data, size, path, sizeof path) == 0 &&
        grove_model_load(path, &model) == GROVE_OK)
        use_model(model);
    grove_model_free(model);
    return 0;
}
