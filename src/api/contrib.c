/*
 * contrib.c -- grove_model_contrib_groups, grove_model_predict_contrib and
 * grove_model_predict_margin: arguments checked here, the work in model/shap.c.
 *
 * Pipeline position: api/.  The model is read-only; rows are split over OpenMP threads inside
 * shap.c, each row written by one thread, so results do not depend on the thread count.
 */
#include "../model/model.h"

grove_status grove_model_contrib_groups(const grove_model *m, size_t *n_groups)
{
    gv_err_clear();
    if (!n_groups) return gv_err(GROVE_ERR_ARG, "grove_model_contrib_groups: NULL argument");
    *n_groups = 0;
    if (!m) return gv_err(GROVE_ERR_ARG, "grove_model_contrib_groups: NULL argument");
    gv_shap *s = NULL;
    grove_status st = gv_shap_build(m, &s);
    if (st != GROVE_OK) return st;
    *n_groups = gv_shap_groups(s);
    gv_shap_free(s);
    return GROVE_OK;
}

/* The prepared model and the checked size of out (per: values a row and group). */
static grove_status prepare(const grove_model *m, const grove_dataset *d, size_t per,
                            size_t out_len, const char *fn, gv_shap **s)
{
    *s = NULL;
    grove_status st = gv_check_compatible(m, d);
    if (st != GROVE_OK) return st;
    if ((st = gv_shap_build(m, s)) != GROVE_OK) return st;
    size_t need;
    const size_t G = gv_shap_groups(*s);
    if (gv_mul_size(d->n_rows, G, &need) != 0 || gv_mul_size(need, per, &need) != 0 ||
        out_len < need) {
        gv_shap_free(*s);
        *s = NULL;
        return gv_err(GROVE_ERR_ARG, "%s: out holds %zu values, %zu rows x %zu groups x %zu "
                      "needed", fn, out_len, d->n_rows, G, per);
    }
    return GROVE_OK;
}

grove_status grove_model_predict_contrib(const grove_model *m, const grove_dataset *d,
                                         int interactions, int n_threads, double *out,
                                         size_t out_len)
{
    gv_err_clear();
    if (!m || !d || !out)
        return gv_err(GROVE_ERR_ARG, "grove_model_predict_contrib: NULL argument");
    const size_t F1 = m->schema->n_features + 1;
    size_t per = F1;
    if (interactions && gv_mul_size(F1, F1, &per) != 0)
        return gv_err(GROVE_ERR_ARG, "grove_model_predict_contrib: too many features");
    gv_shap *s;
    grove_status st = prepare(m, d, per, out_len, "grove_model_predict_contrib", &s);
    if (st != GROVE_OK) return st;
    st = gv_shap_rows(s, d, interactions != 0, n_threads, out);
    gv_shap_free(s);
    return st;
}

grove_status grove_model_predict_margin(const grove_model *m, const grove_dataset *d,
                                        int n_threads, double *out, size_t out_len)
{
    gv_err_clear();
    if (!m || !d || !out)
        return gv_err(GROVE_ERR_ARG, "grove_model_predict_margin: NULL argument");
    gv_shap *s;
    grove_status st = prepare(m, d, 1, out_len, "grove_model_predict_margin", &s);
    if (st != GROVE_OK) return st;
    gv_shap_margin(s, d, n_threads, out);
    gv_shap_free(s);
    return GROVE_OK;
}
