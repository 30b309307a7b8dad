/*
 * fuzz_data.c -- libFuzzer target for the dataset readers (data/csv.c or data/libsvm.c, chosen
 * at compile time by FUZZ_FORMAT, "csv" or "libsvm").
 *
 * The bytes are written to a file and loaded with format=FUZZ_FORMAT.  Whatever loads is
 * trained on (a stump, fuzz_common.h), and loaded a second time following the trained model's
 * schema (the path grove predict takes), which the model then predicts.  A gzip file is just
 * more bytes: seeds in fuzz/corpus/<name>/ include compressed ones.
 */
#include "fuzz_common.h"

#ifndef FUZZ_FORMAT
#error "FUZZ_FORMAT must be \"csv\" or \"libsvm\""
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[512];
    if (fuzz_write("input." FUZZ_FORMAT, data, size, path, sizeof path) != 0) return 0;
    grove_params *p = NULL;
    if (grove_params_create(&p) != GROVE_OK) return 0;
    grove_dataset *ds = NULL;
    if (grove_params_set(p, "format", FUZZ_FORMAT) == GROVE_OK &&
        grove_dataset_load(path, p, NULL, &ds) == GROVE_OK) {
        (void)grove_dataset_warning(ds);
        size_t n = grove_dataset_n_rows(ds), f = grove_dataset_n_features(ds);
        if (grove_dataset_has_labels(ds) && n && (!f || n <= FUZZ_MAX_CELLS / f)) {
            grove_params *sp = NULL;
            grove_model *model = NULL;
            fuzz_train_stump(ds, p);
            if (grove_params_copy(p, &sp) == GROVE_OK &&
                grove_params_set(sp, "algo", "stump") == GROVE_OK &&
                grove_params_set(sp, "threads", "1") == GROVE_OK &&
                grove_train(ds, NULL, sp, &model) == GROVE_OK) {
                grove_dataset *again = NULL;
                if (grove_dataset_load(path, p, grove_model_schema(model), &again) == GROVE_OK)
                    fuzz_predict(model, again);
                grove_dataset_free(again);
            }
            grove_model_free(model);
            grove_params_free(sp);
        }
    }
    grove_dataset_free(ds);
    grove_params_free(p);
    return 0;
}
