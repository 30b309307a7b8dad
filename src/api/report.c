/*
 * report.c -- grove_model_report: a model as one self-contained HTML page of charts.
 *
 * Pipeline position: api/.  Checks the arguments and the datasets' compatibility with the
 * model, then calls eval/report.c.
 */
#include "../eval/report.h"

grove_status grove_model_report(const grove_model *model, const grove_dataset *data,
                                const grove_dataset *valid, const char *biasvar_json,
                                int n_threads, char **out)
{
    gv_err_clear();
    if (!out) return gv_err(GROVE_ERR_ARG, "grove_model_report: out is NULL");
    *out = NULL;
    if (!model) return gv_err(GROVE_ERR_ARG, "grove_model_report: model is NULL");
    grove_status st;
    if (data && (st = gv_check_compatible(model, data)) != GROVE_OK) return st;
    if (valid && (st = gv_check_compatible(model, valid)) != GROVE_OK) return st;
    gv_buf text = {0};
    st = gv_report_html(model, data, valid, biasvar_json, gv_threads(n_threads), &text);
    if (st != GROVE_OK) {
        gv_buf_free(&text);
        return st;
    }
    *out = text.data;
    return GROVE_OK;
}
