/*
 * confidence.c -- boosting the confidence (Kearns & Vazirani 1994, sec. 4.2; Haussler, Kearns,
 * Littlestone & Warmuth 1991): from a learner that reaches error epsilon/3 only with some
 * constant probability, a learner that reaches error epsilon with probability 1 - delta.
 *
 * Pipeline position: ensemble/.  BoostConfidence(A):
 *   k = ceil(log2(2/delta)) runs of the base learner A, each on a fresh sample;
 *   a fresh selection sample of m = ceil((9/epsilon^2) ln(4k/delta)) examples;
 *   output the hypothesis with the least error on the selection sample (ties: the first).
 * "Fresh" samples are disjoint parts of the training rows after a shuffle by the seed: runs get
 * boost.sample_size rows each (0 = an equal share of what the selection sample leaves), the
 * selection sample the last m rows.  When the data has fewer rows than k runs of at least one
 * row plus m, training fails and says how many rows epsilon and delta require.
 * The component keeps the chosen hypothesis and, for inspection, k, m, every run's selection
 * error and the index chosen.
 * C export (export_c, core/cgen.h): the chosen run's component.
 */
#include "ensemble.h"

#include "../core/params.h"
#include "../core/json.h"

#include <math.h>
#include <string.h>

typedef struct gv_confidence {
    gv_component chosen; /* owned */
    size_t k, m, chosen_index;
    double *errors;      /* [k] selection-sample error of every run */
} gv_confidence;

static void conf_free(void *impl)
{
    gv_confidence *c = impl;
    if (!c) return;
    gv_component_free(&c->chosen);
    gv_free(c->errors);
    gv_free(c);
}

static void conf_predict_row(const void *impl, const grove_dataset *d, size_t i, double *out)
{
    const gv_confidence *c = impl;
    c->chosen.vt->predict_row(c->chosen.impl, d, i, out);
}

/* The error of h on rows[0..m-1]: misclassification rate, or mean squared error (regression). */
static double sample_error(const gv_component *h, const gv_fit_input *in, const size_t *rows,
                           size_t m, double *buf)
{
    size_t k = in->n_classes ? (size_t)in->n_classes : 1;
    double err = 0;
    for (size_t j = 0; j < m; j++) {
        size_t r = rows[j];
        h->vt->predict_row(h->impl, in->data, r, buf);
        if (in->n_classes) {
            size_t best = 0;
            for (size_t c = 1; c < k; c++)
                if (buf[c] > buf[best]) best = c;
            err += best != (size_t)in->y[r];
        } else {
            err += (buf[0] - in->y[r]) * (buf[0] - in->y[r]);
        }
    }
    return err / (double)m;
}

grove_status gv_fit_confidence_boost(const gv_fit_input *in, gv_rng *rng, gv_component *out)
{
    (void)rng;
    if (in->rows)
        return gv_err(GROVE_ERR_INTERNAL, "confidence-boost: row views are not supported");
    const gv_learner *base;
    grove_status st = gv_base_learner(in->params, &base);
    if (st != GROVE_OK) return st;
    double eps = gv_param_double(in->params, GV_P_CONFIDENCE_EPSILON);
    double delta = gv_param_double(in->params, GV_P_CONFIDENCE_DELTA);
    size_t n = in->data->n_rows;
    /* k = ceil(log2(2/delta)), m = ceil((9/eps^2) ln(4k/delta)) */
    size_t k = (size_t)ceil(log2(2.0 / delta));
    if (k < 1) k = 1;
    double m_real = ceil(9.0 / (eps * eps) * log(4.0 * (double)k / delta));
    size_t per_run = (size_t)gv_param_int(in->params, GV_P_BOOST_SAMPLE_SIZE);
    if (m_real + (double)k * (double)(per_run ? per_run : 1) > (double)n)
        return gv_err(GROVE_ERR_DATA,
                      "confidence-boost: epsilon = %g and delta = %g need k = %zu runs and a "
                      "selection sample of m = %.0f examples, at least %.0f rows in all; the data "
                      "has %zu (raise confidence.epsilon or confidence.delta, or add data)",
                      eps, delta, k, m_real, m_real + (double)k * (double)(per_run ? per_run : 1),
                      n);
    size_t m = (size_t)m_real;
    if (per_run == 0) per_run = (n - m) / k;

    size_t *order = gv_malloc_array(n, sizeof *order);
    size_t out_k = in->n_classes ? (size_t)in->n_classes : 1;
    double *buf = gv_malloc_array(out_k, sizeof *buf);
    gv_confidence *c = gv_calloc(1, sizeof *c);
    if (c) c->errors = gv_calloc(k, sizeof *c->errors);
    if (!order || !buf || !c || !c->errors) {
        st = gv_err_nomem("confidence-boost");
        goto done;
    }
    c->k = k;
    c->m = m;
    uint64_t seed = (uint64_t)gv_param_int(in->params, GV_P_SEED);
    gv_rng shuffle_rng;
    gv_rng_seed(&shuffle_rng, seed, GV_STREAM_CONFIDENCE, 0);
    for (size_t i = 0; i < n; i++) order[i] = i;
    gv_rng_shuffle(&shuffle_rng, order, n);
    const size_t *selection = order + (n - m);

    gv_fit_input bi = *in;
    bi.params = gv_params_base(in->params);
    bi.valid = NULL;
    bi.pred = NULL;
    for (size_t run = 0; run < k; run++) {
        gv_component h = {0};
        bi.rows = order + run * per_run;
        bi.n_rows = per_run;
        gv_rng r;
        gv_rng_seed(&r, seed, GV_STREAM_CONFIDENCE, run + 1);
        st = base->fit(&bi, &r, &h);
        if (st != GROVE_OK) {
            gv_err_prefix("confidence-boost: run %zu of %zu ('%s')", run + 1, k, base->name);
            goto done;
        }
        c->errors[run] = sample_error(&h, in, selection, m, buf);
        if (run == 0 || c->errors[run] < c->errors[c->chosen_index]) {
            gv_component_free(&c->chosen);
            c->chosen = h;
            c->chosen_index = run;
        } else {
            gv_component_free(&h);
        }
        if (gv_progress(in->params, "run", run + 1, k)) {
            st = gv_err(GROVE_ERR_ARG, "cancelled");
            goto done;
        }
    }
    out->vt = &gv_confidence_component;
    out->impl = c;
    c = NULL;
done:
    conf_free(c);
    gv_free(order);
    gv_free(buf);
    return st;
}

/* ---- the component ---- */

static json_t *conf_to_json(const void *impl)
{
    const gv_confidence *c = impl;
    json_t *h = gv_component_to_json(&c->chosen), *errs = json_array();
    if (!h || !errs) {
        json_decref(h);
        json_decref(errs);
        return NULL;
    }
    for (size_t j = 0; j < c->k; j++)
        if (json_array_append_new(errs, json_real(c->errors[j])) != 0) {
            json_decref(h);
            json_decref(errs);
            return NULL;
        }
    return json_pack("{s:o, s:I, s:I, s:I, s:o}", "chosen", h, "k", (json_int_t)c->k, "m",
                     (json_int_t)c->m, "chosen_index", (json_int_t)c->chosen_index, "errors",
                     errs);
}

static grove_status conf_from_json(const json_t *obj, const gv_model_ctx *ctx, void **out)
{
    *out = NULL;
    static const char *const known[] = {"kind", "chosen", "k", "m", "chosen_index", "errors"};
    int64_t k, m, ci;
    grove_status st;
    if ((st = gv_json_check_fields(obj, known, GV_COUNT(known), "a confidence-boost model")) != GROVE_OK ||
        (st = gv_json_get_int(obj, "k", 1, 64, &k)) != GROVE_OK ||
        (st = gv_json_get_int(obj, "m", 1, INT64_MAX, &m)) != GROVE_OK ||
        (st = gv_json_get_int(obj, "chosen_index", 0, k - 1, &ci)) != GROVE_OK)
        return st;
    const json_t *errs = json_object_get(obj, "errors");
    const json_t *h = json_object_get(obj, "chosen");
    if (!json_is_array(errs) || json_array_size(errs) != (size_t)k)
        return gv_err(GROVE_ERR_MODEL, "errors: expected an array of k = %lld numbers",
                      (long long)k);
    gv_confidence *c = gv_calloc(1, sizeof *c);
    if (c) c->errors = gv_calloc((size_t)k, sizeof *c->errors);
    if (!c || !c->errors) {
        conf_free(c);
        return gv_err_nomem("a confidence-boost model");
    }
    c->k = (size_t)k;
    c->m = (size_t)m;
    c->chosen_index = (size_t)ci;
    for (size_t j = 0; j < c->k; j++) {
        const json_t *e = json_array_get(errs, j);
        if (!json_is_number(e) || !(json_number_value(e) >= 0) || !isfinite(json_number_value(e))) {
            conf_free(c);
            return gv_err(GROVE_ERR_MODEL, "errors[%zu]: expected a finite number >= 0", j);
        }
        c->errors[j] = json_number_value(e);
    }
    if ((st = gv_component_from_json(h, ctx, &c->chosen)) != GROVE_OK) {
        gv_err_prefix("chosen");
        conf_free(c);
        return st;
    }
    *out = c;
    return GROVE_OK;
}

static grove_status conf_validate(const void *impl, const grove_schema *schema)
{
    const gv_confidence *c = impl;
    return c->chosen.vt->validate ? c->chosen.vt->validate(c->chosen.impl, schema) : GROVE_OK;
}

static grove_status conf_check(const void *impl, const gv_model_ctx *ctx, size_t n_outputs)
{
    const gv_confidence *c = impl;
    return gv_component_check(&c->chosen, ctx, n_outputs);
}

static json_t *conf_summary(const void *impl)
{
    const gv_confidence *c = impl;
    json_t *errs = json_array();
    for (size_t j = 0; errs && j < c->k; j++) json_array_append_new(errs, json_real(c->errors[j]));
    return json_pack("{s:s, s:I, s:I, s:I, s:o, s:o}", "kind", "confidence", "k",
                     (json_int_t)c->k, "m", (json_int_t)c->m, "chosen_index",
                     (json_int_t)c->chosen_index, "errors", errs ? errs : json_null(), "chosen",
                     gv_component_summary(&c->chosen));
}

/* C export (learner.h's export_c slot, core/cgen.h): the chosen run's component, which is what
 * conf_predict_row predicts with. */
static grove_status conf_export_c(const void *impl, gv_cgen *g, size_t *id)
{
    const gv_confidence *c = impl;
    return gv_cgen_component(g, &c->chosen, id);
}

const gv_component_vt gv_confidence_component = {
    .kind = "confidence",
    .predict_row = conf_predict_row,
    .to_json = conf_to_json,
    .from_json = conf_from_json,
    .free = conf_free,
    .validate = conf_validate,
    .check = conf_check,
    .summary = conf_summary,
    .export_c = conf_export_c,
};

int gv_confidence_view_of(const gv_component *c, gv_confidence_view *v)
{
    if (!c || c->vt != &gv_confidence_component) return 0;
    const gv_confidence *cc = c->impl;
    v->chosen = &cc->chosen;
    v->k = cc->k;
    v->m = cc->m;
    v->chosen_index = cc->chosen_index;
    v->errors = cc->errors;
    return 1;
}
