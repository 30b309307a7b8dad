/*
 * model.c -- the model container's lifetime and its public accessors.
 *
 * Pipeline position: model/.  A grove_model owns its schema, bin mappers, algorithm name,
 * training parameters and root component (model.h); it is built by grove_train (api/train.c)
 * or by the loader (model_json.c) and never changed afterwards, so the accessors below only read.
 */
#include "model.h"

void gv_model_free(grove_model *m)
{
    if (!m) return;
    /* The mappers array has one entry per schema feature: free it before the schema. */
    if (m->mappers) gv_bin_mappers_free(m->mappers, m->schema ? m->schema->n_features : 0);
    gv_schema_free(m->schema);
    gv_free(m->algo);
    grove_params_free(m->params);
    gv_component_free(&m->root);
    gv_free(m);
}

void grove_model_free(grove_model *model) { gv_model_free(model); }

const grove_schema *grove_model_schema(const grove_model *model)
{
    return model ? model->schema : NULL;
}

const char *grove_model_algo(const grove_model *model) { return model ? model->algo : NULL; }

size_t grove_model_n_outputs(const grove_model *model) { return model ? model->n_outputs : 0; }
