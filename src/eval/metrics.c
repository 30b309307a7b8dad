/*
 * metrics.c -- evaluation of a model on labelled data: accuracy, error, log-loss, AUC and the
 * confusion matrix for classification; RMSE, MAE and R^2 for regression.
 *
 * Pipeline position: eval/.  Definitions (unweighted, over the n rows):
 *   accuracy = (1/n) #{argmax p(x_i) = y_i}            error = 1 - accuracy
 *   logloss  = -(1/n) sum log max(p_{y_i}(x_i), 1e-15)  (p clipped as scikit-learn does)
 *   auc      = P(score of a random positive > score of a random negative), ties count 1/2,
 *              computed from average ranks (Mann-Whitney U); score = p(class 1); binary only
 *   rmse = sqrt(mean (y - f)^2), mae = mean |y - f|, r2 = 1 - SS_res / SS_tot (0 if SS_tot = 0
 *   and SS_res = 0; -inf is avoided by reporting 0 for a constant target with any residual)
 * Per class c, from the confusion matrix C (rows true, columns predicted):
 *   precision_c = C[c][c] / sum_r C[r][c], recall_c = C[c][c] / sum_j C[c][j],
 *   F1_c = 2 P R / (P + R), each 0 when its denominator is 0 (scikit-learn's zero_division=0);
 *   macro = the mean over the classes that are a true or a predicted label somewhere (those
 *   classification_report lists), weighted = sum_c support_c x_c / n.
 */
#include "../model/model.h"
#include "../core/mathx.h"
#include "../loss/loss.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct grove_eval {
    grove_task task;
    size_t n, n_classes;
    double accuracy, logloss, auc; /* auc NaN when not binary */
    double rmse, mae, r2;
    double *confusion; /* [K*K] */
};

void grove_eval_free(grove_eval *e)
{
    if (!e) return;
    gv_free(e->confusion);
    gv_free(e);
}

/* The metrics of outputs p ([n * k], grove_model_predict's layout) against d's labels. */
static grove_status evaluate(const grove_model *m, const grove_dataset *d, const double *p,
                             grove_eval **out)
{
    const size_t n = d->n_rows, k = m->n_outputs;
    /* a NaN would be scored as a wrong class or a zero error without a word: refused, by row */
    for (size_t i = 0; i < n * k; i++)
        if (isnan(p[i]))
            return gv_err(GROVE_ERR_MODEL, "row %zu: the model's output %zu is NaN, not a "
                          "number that can be scored", i / k + 1, i % k);
    grove_eval *e = gv_calloc(1, sizeof *e);
    if (!e) return gv_err_nomem("evaluation");
    grove_status st = GROVE_OK;
    e->task = m->schema->task;
    e->n = n;
    e->auc = NAN;
    if (e->task == GROVE_CLASSIFICATION) {
        e->n_classes = k;
        e->confusion = gv_calloc(k * k, sizeof *e->confusion);
        if (!e->confusion) {
            st = gv_err_nomem("a confusion matrix");
            goto done;
        }
        size_t correct = 0;
        double ll = 0;
        for (size_t i = 0; i < n; i++) {
            size_t y = (size_t)d->labels[i], best = gv_argmax(p + i * k, k);
            correct += best == y;
            e->confusion[y * k + best] += 1;
            double py = p[i * k + y];
            ll -= log(py > 1e-15 ? py : 1e-15);
        }
        e->accuracy = (double)correct / (double)n;
        e->logloss = ll / (double)n;
        /* the probability of class 1 ranks the rows (Mann-Whitney, ties one half) */
        if (k == 2 && (st = gv_weighted_auc(p + 1, 2, d->labels, NULL, n, &e->auc)) != GROVE_OK)
            goto done;
    } else {
        double se = 0, ae = 0, mean = 0, ss_tot = 0;
        for (size_t i = 0; i < n; i++) mean += d->labels[i];
        mean /= (double)n;
        for (size_t i = 0; i < n; i++) {
            double r = d->labels[i] - p[i];
            se += r * r;
            ae += fabs(r);
            ss_tot += (d->labels[i] - mean) * (d->labels[i] - mean);
        }
        e->rmse = sqrt(se / (double)n);
        e->mae = ae / (double)n;
        e->r2 = ss_tot > 0 ? 1.0 - se / ss_tot : 0.0;
    }
done:
    if (st != GROVE_OK) {
        grove_eval_free(e);
        return st;
    }
    *out = e;
    return GROVE_OK;
}

/* The arguments of both entry points: labelled, non-empty data. */
static grove_status check_args(const grove_model *m, const grove_dataset *d, grove_eval **out,
                               const char *fn)
{
    if (!out) return gv_err(GROVE_ERR_ARG, "%s: out is NULL", fn);
    *out = NULL;
    if (!m || !d) return gv_err(GROVE_ERR_ARG, "%s: NULL argument", fn);
    if (!d->labels) return gv_err(GROVE_ERR_DATA, "%s: no label column to evaluate against", d->source);
    if (d->n_rows == 0) return gv_err(GROVE_ERR_DATA, "%s: no rows to evaluate", d->source);
    return GROVE_OK;
}

grove_status grove_model_evaluate(const grove_model *m, const grove_dataset *d, int n_threads,
                                  grove_eval **out)
{
    gv_err_clear();
    grove_status st = check_args(m, d, out, "grove_model_evaluate");
    if (st != GROVE_OK) return st;
    const size_t n = d->n_rows, k = m->n_outputs;
    double *p = gv_malloc_array(n, k * sizeof *p);
    if (!p) return gv_err_nomem("evaluation");
    st = grove_model_predict(m, d, n_threads, p, n * k);
    if (st == GROVE_OK) st = evaluate(m, d, p, out);
    gv_free(p);
    return st;
}

grove_status grove_eval_predictions(const grove_model *m, const grove_dataset *d,
                                    const double *pred, size_t pred_len, grove_eval **out)
{
    gv_err_clear();
    grove_status st = check_args(m, d, out, "grove_eval_predictions");
    if (st != GROVE_OK) return st;
    size_t need;
    if (!pred || gv_mul_size(d->n_rows, m->n_outputs, &need) != 0 || pred_len < need)
        return gv_err(GROVE_ERR_ARG, "grove_eval_predictions: pred holds %zu values, %zu rows x "
                      "%zu outputs needed", pred ? pred_len : 0, d->n_rows, m->n_outputs);
    if ((st = gv_check_compatible(m, d)) != GROVE_OK) return st;
    return evaluate(m, d, pred, out);
}

static double class_average(const grove_eval *e, int which, int weighted);

/* "precision" 0, "recall" 1, "f1" 2, else -1. */
static int average_kind(const char *name)
{
    return !strcmp(name, "precision") ? 0
           : !strcmp(name, "recall")  ? 1
           : !strcmp(name, "f1")      ? 2
                                      : -1;
}

grove_status grove_eval_get(const grove_eval *e, const char *metric, double *value)
{
    gv_err_clear();
    if (!e || !metric || !value) return gv_err(GROVE_ERR_ARG, "grove_eval_get: NULL argument");
    int cls = e->task == GROVE_CLASSIFICATION;
    if (!strcmp(metric, "n")) *value = (double)e->n;
    else if (cls && !strcmp(metric, "accuracy")) *value = e->accuracy;
    else if (cls && !strcmp(metric, "error")) *value = 1.0 - e->accuracy;
    else if (cls && !strcmp(metric, "logloss")) *value = e->logloss;
    else if (cls && e->n_classes == 2 && !strcmp(metric, "auc")) *value = e->auc;
    else if (cls && !strncmp(metric, "macro_", 6) && average_kind(metric + 6) >= 0)
        *value = class_average(e, average_kind(metric + 6), 0);
    else if (cls && !strncmp(metric, "weighted_", 9) && average_kind(metric + 9) >= 0)
        *value = class_average(e, average_kind(metric + 9), 1);
    else if (!cls && !strcmp(metric, "rmse")) *value = e->rmse;
    else if (!cls && !strcmp(metric, "mae")) *value = e->mae;
    else if (!cls && !strcmp(metric, "r2")) *value = e->r2;
    else
        return gv_err(GROVE_ERR_ARG, "metric '%s' does not apply to this %s model", metric,
                      cls ? "classification" : "regression");
    return GROVE_OK;
}

grove_status grove_eval_json(const grove_eval *e, char **out)
{
    gv_err_clear();
    if (!out) return gv_err(GROVE_ERR_ARG, "grove_eval_json: out is NULL");
    *out = NULL;
    if (!e) return gv_err(GROVE_ERR_ARG, "grove_eval_json: eval is NULL");
    static const char *cls_metrics[] = {"accuracy", "error", "logloss", "auc"};
    static const char *reg_metrics[] = {"rmse", "mae", "r2"};
    int cls = e->task == GROVE_CLASSIFICATION;
    const char **names = cls ? cls_metrics : reg_metrics;
    size_t n_names = cls ? (e->n_classes == 2 ? 4 : 3) : 3;
    json_t *o = json_object();
    if (!o || json_object_set_new(o, "n", json_integer((json_int_t)e->n)) != 0) goto nomem;
    for (size_t i = 0; i < n_names; i++) {
        double v;
        grove_eval_get(e, names[i], &v);
        /* JSON has no NaN: an undefined AUC (one class absent) is null */
        if (json_object_set_new(o, names[i], isfinite(v) ? json_real(v) : json_null()) != 0)
            goto nomem;
    }
    if (cls) {
        static const char *avg[] = {"macro_precision", "macro_recall", "macro_f1",
                                    "weighted_precision", "weighted_recall", "weighted_f1"};
        for (size_t i = 0; i < 6; i++) {
            double v;
            grove_eval_get(e, avg[i], &v);
            if (json_object_set_new(o, avg[i], json_real(v)) != 0) goto nomem;
        }
        /* per class, in class order: [{"precision", "recall", "f1", "support"}] */
        json_t *arr = json_array();
        if (!arr || json_object_set_new(o, "classes", arr) != 0) goto nomem;
        for (size_t c = 0; c < e->n_classes; c++) {
            double pr, rc, f1, sup;
            grove_eval_class(e, c, &pr, &rc, &f1, &sup);
            if (json_array_append_new(arr, json_pack("{s:f, s:f, s:f, s:I}", "precision", pr,
                                                     "recall", rc, "f1", f1, "support",
                                                     (json_int_t)sup)) != 0)
                goto nomem;
        }
    }
    char *s = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(o);
    if (!s) return gv_err_nomem("JSON text");
    *out = gv_strdup(s);
    free(s);
    return *out ? GROVE_OK : gv_err_nomem("JSON text");
nomem:
    json_decref(o);
    return gv_err_nomem("JSON");
}

grove_status grove_eval_class(const grove_eval *e, size_t c, double *precision, double *recall,
                              double *f1, double *support)
{
    gv_err_clear();
    if (!e) return gv_err(GROVE_ERR_ARG, "grove_eval_class: eval is NULL");
    if (e->task != GROVE_CLASSIFICATION)
        return gv_err(GROVE_ERR_ARG, "grove_eval_class: a regression evaluation has no classes");
    if (c >= e->n_classes)
        return gv_err(GROVE_ERR_ARG, "grove_eval_class: class %zu out of range [0, %zu)", c,
                      e->n_classes);
    const size_t k = e->n_classes;
    double tp = e->confusion[c * k + c], predicted = 0, actual = 0;
    for (size_t j = 0; j < k; j++) {
        predicted += e->confusion[j * k + c];
        actual += e->confusion[c * k + j];
    }
    double p = predicted > 0 ? tp / predicted : 0, r = actual > 0 ? tp / actual : 0;
    if (precision) *precision = p;
    if (recall) *recall = r;
    if (f1) *f1 = p + r > 0 ? 2 * p * r / (p + r) : 0;
    if (support) *support = actual;
    return GROVE_OK;
}

/* which: 0 precision, 1 recall, 2 F1; weighted or macro (see the header). */
static double class_average(const grove_eval *e, int which, int weighted)
{
    double sum = 0, n = 0;
    for (size_t c = 0; c < e->n_classes; c++) {
        double v[3], support, predicted = 0;
        grove_eval_class(e, c, &v[0], &v[1], &v[2], &support);
        for (size_t r = 0; r < e->n_classes; r++) predicted += e->confusion[r * e->n_classes + c];
        if (support == 0 && predicted == 0) continue; /* a class absent from both */
        sum += (weighted ? support : 1) * v[which];
        n += weighted ? support : 1;
    }
    return n > 0 ? sum / n : 0;
}

const double *grove_eval_confusion(const grove_eval *e, size_t *n_classes)
{
    if (!e || e->task != GROVE_CLASSIFICATION) {
        if (n_classes) *n_classes = 0;
        return NULL;
    }
    if (n_classes) *n_classes = e->n_classes;
    return e->confusion;
}
