/*
 * model_info.c -- the JSON description of a model (grove_model_info_json, `grove info`): the
 * schema, the parameters and the root component's summary.
 *
 * Pipeline position: model/.
 */
#include "model_int.h"

#include "../core/params.h"
#include "../learn/plan.h"

#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* gbdt: the tree engine's plan for dense rows of the model's features with its parameters, on
 * this machine (a fit's own plan depends on the data too: `grove train --verbose` prints it). */
static json_t *engine_plan(const grove_model *m)
{
    const grove_schema *s = m->schema;
    const int64_t max_bins = gv_param_int(m->params, GV_P_MAX_BINS);
    int threads = (int)gv_param_int(m->params, GV_P_THREADS);
#ifdef _OPENMP
    if (threads <= 0) threads = omp_get_max_threads();
#endif
    if (threads <= 0) threads = 1;
    size_t n_bins = 0;
    int bins8 = 1;
    for (size_t f = 0; f < s->n_features; f++) {
        size_t nb = s->is_categorical[f] ? s->categories[f].n + 1
                    : m->mappers[f].n_bins ? m->mappers[f].n_bins : (size_t)max_bins + 1;
        if (nb > 256) bins8 = 0;
        n_bins += nb;
    }
    gv_plan plan;
    gv_plan_for_shape(n_bins, bins8, gv_param_int(m->params, GV_P_QUANTIZED_BITS) > 0, threads,
                      &plan);
    char line[512];
    gv_plan_describe(&plan, line, sizeof line);
    return json_string(line);
}

grove_status grove_model_info_json(const grove_model *model, char **out)
{
    gv_err_clear();
    if (!out) return gv_err(GROVE_ERR_ARG, "grove_model_info_json: out is NULL");
    *out = NULL;
    if (!model) return gv_err(GROVE_ERR_ARG, "grove_model_info_json: model is NULL");
    const grove_model *m = model;
    const grove_schema *s = m->schema;
    grove_status st = gv_model_check_strings(m); /* json_string() refuses what is not UTF-8 */
    if (st != GROVE_OK) return st;
    json_t *info = json_object(), *features = json_array();
    int bad = !info || !features;
    bad |= gv_json_set_new(info, "algo", json_string(m->algo));
    bad |= gv_json_set_new(info, "task", json_string(s->task == GROVE_CLASSIFICATION ? "classification"
                                                                             : "regression"));
    bad |= gv_json_set_new(info, "label", json_string(s->label_name));
    bad |= gv_json_set_new(info, "n_features", json_integer((json_int_t)s->n_features));
    for (size_t f = 0; f < s->n_features && !bad; f++) {
        json_t *feat = json_object();
        bad |= gv_json_set_new(feat, "name", json_string(s->feature_names[f]));
        bad |= gv_json_set_new(feat, "type", json_string(s->is_categorical[f] ? "categorical"
                                                                      : "numeric"));
        if (s->is_categorical[f])
            bad |= gv_json_set_new(feat, "n_categories", json_integer((json_int_t)s->categories[f].n));
        bad |= json_array_append_new(features, feat);
    }
    bad |= json_object_set(info, "features", features);
    bad |= gv_json_set_new(info, "classes", gv_json_string_array(s->classes.names, s->classes.n));
    bad |= gv_json_set_new(info, "n_outputs", json_integer((json_int_t)m->n_outputs));
    bad |= gv_json_set_new(info, "n_train_rows", json_integer((json_int_t)m->n_train_rows));
    bad |= gv_json_set_new(info, "params", gv_model_params_json(m->params));
    bad |= gv_json_set_new(info, "model", gv_component_summary(&m->root));
    if (!strcmp(m->algo, "gbdt")) bad |= gv_json_set_new(info, "plan", engine_plan(m));
    json_decref(features);
    gv_buf text = {0};
    /* one line: `grove info --json` prints it as it is */
    if (!bad && json_dump_callback(info, gv_json_buf_sink, &text,
                                   JSON_COMPACT | JSON_PRESERVE_ORDER |
                                       JSON_REAL_PRECISION(17)) != 0)
        bad = 1;
    json_decref(info);
    if (bad || !text.data) {
        gv_buf_free(&text);
        return gv_err_nomem("the model description");
    }
    *out = text.data; /* gv_buf memory is gv_malloc'ed: grove_string_free frees it */
    return GROVE_OK;
}
