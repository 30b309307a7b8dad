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
 * past the last category), and its buffer form and its binary file must load again.
 */
#include "fuzz_common.h"

#include <jansson.h>
#include <zlib.h>

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

static int crc_cb(const char *buffer, size_t size, void *ctx)
{
    uLong *crc = ctx;
    *crc = crc32(*crc, (const Bytef *)buffer, (uInt)size);
    return 0;
}

/* The input with "crc32" recomputed, as a new string, or NULL when it is not a JSON object. */
static char *with_checksum(const uint8_t *data, size_t size)
{
    json_t *doc = json_loadb((const char *)data, size, 0, NULL);
    if (!json_is_object(doc)) {
        json_decref(doc);
        return NULL;
    }
    json_object_del(doc, "crc32");
    uLong crc = crc32(0L, Z_NULL, 0);
    char hex[9], *text = NULL;
    if (json_dump_callback(doc, crc_cb, &crc,
                           JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17)) == 0) {
        snprintf(hex, sizeof hex, "%08lx", (unsigned long)(crc & 0xFFFFFFFFul));
        if (json_object_set_new(doc, "crc32", json_string(hex)) == 0)
            text = json_dumps(doc, JSON_REAL_PRECISION(17));
    }
    json_decref(doc);
    return text;
}

/* A binary model (model_bin.c) with its trailer's length and CRC-32 recomputed, written to a
 * file (binary models load from files only): 0 when written. */
static int binary_with_checksum(const uint8_t *data, size_t size, char *path, size_t cap)
{
    if (size < 40 || memcmp(data, "GROVEBIN", 8) != 0) return -1;
    uint8_t *b = malloc(size);
    if (!b) return -1;
    memcpy(b, data, size);
    uint64_t len = size - 40;
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, b + 24, (uInt)len);
    for (int i = 0; i < 8; i++) b[size - 16 + i] = (uint8_t)(len >> (8 * i));
    for (int i = 0; i < 4; i++) b[size - 8 + i] = (uint8_t)(crc >> (8 * i));
    memcpy(b + size - 4, "GVBE", 4);
    int rc = fuzz_write("fixed.gvb", b, size, path, cap);
    free(b);
    return rc;
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
