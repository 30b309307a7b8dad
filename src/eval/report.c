/*
 * report.c -- a model as one self-contained HTML page of charts (`grove report`).
 *
 * Pipeline position: eval/ (reads a trained model's component tree through the ensemble views
 * of ensemble.h, predicts through the public API; draws with plot.h).  The page is well-formed
 * XHTML with inline SVG: no script, nothing fetched, printable.  Sections, as the model has them:
 *   summary      algorithm, task, features, classes, the root component's summary;
 *   boosting     training error, prod Z_t and exp(-2 sum gamma_t^2) per round on a log scale
 *                with the validation error and the error on DATA (Freund & Schapire 1997,
 *                Theorem 6); eps_t and alpha_t; the margin distribution (CDF) on DATA after
 *                several rounds (Schapire, Freund, Bartlett & Lee 1998, Figure 2);
 *   bagging      OOB error against the number of members (Breiman 1996b), with the error on
 *                DATA (and VALID) of the first m members;
 *   gbdt         the training and validation metric per round from the log, the metric on DATA,
 *                the early-stopping round marked;
 *   filter-boost the recursion tree of majorities with each hypothesis' error, and the errors
 *                against g(p) = 3p^2 - 2p^3 (Schapire 1990: a majority of three hypotheses of
 *                error p has error at most g(p));
 *   confidence   the k runs' errors on the selection sample, the chosen one, and epsilon;
 *   importances  every kind the model has (impurity, OOB permutation, and the others that
 *                grove_model_importance knows), permutation importances on DATA, and for
 *                tree ensembles the mean |contribution| (TreeSHAP) of each feature on DATA;
 *   evaluation   with labelled DATA: metrics, confusion matrix, ROC curve (two classes),
 *                calibration; regression: predicted against true;
 *   bias-variance a `grove biasvar --json` result as a stacked bar.
 * Every chart's series can be counted in the markup (plot.h).
 */
#include "../data/dataset.h"
#include "../ensemble/ensemble.h"
#include "../model/model.h"
#include "plot.h"
#include "report.h"

#include "../loss/loss.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Points kept in a curve over rows (CDFs, ROC) and stages computed over rounds. */
#define MAX_CURVE 1000
#define MAX_STAGES 100
#define MAX_BARS 20

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct rep {
    gv_buf *b;
    const grove_model *m;
    const grove_dataset *data, *valid;
    int n_threads;
    int nomem;
} rep;

static void put(rep *r, const char *fmt, ...) GV_PRINTF(2, 3);
static void put(rep *r, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n >= sizeof buf) n = (int)sizeof buf - 1;
    if (gv_buf_append(r->b, buf, (size_t)n) != 0) r->nomem = 1;
}

static void put_text(rep *r, const char *s)
{
    if (gv_html_escape(r->b, s) != 0) r->nomem = 1;
}

/* Renders and frees the chart (NULL: out of memory). */
static void chart(rep *r, gv_plot *p)
{
    if (!p || gv_plot_render(p, r->b) != 0) r->nomem = 1;
    gv_plot_free(p);
}

static size_t n_out(const rep *r) { return r->m->n_outputs; }
static int is_cls(const rep *r) { return r->m->schema->task == GROVE_CLASSIFICATION; }

/* The error of outputs p (n rows) on d's labels: error rate, or RMSE for regression. */
static double error_of(const rep *r, const grove_dataset *d, const double *p)
{
    const size_t k = n_out(r), n = d->n_rows;
    double e = 0;
    for (size_t i = 0; i < n; i++) {
        if (is_cls(r)) {
            size_t best = 0;
            for (size_t c = 1; c < k; c++)
                if (p[i * k + c] > p[i * k + best]) best = c;
            e += best != (size_t)d->labels[i];
        } else {
            double t = p[i] - d->labels[i];
            e += t * t;
        }
    }
    e /= (double)(n ? n : 1);
    return is_cls(r) ? e : sqrt(e);
}

/* Up to MAX_STAGES rounds from 1 to T, spread evenly, T last; returns their number. */
static size_t pick_stages(size_t T, size_t *st)
{
    size_t n = T < MAX_STAGES ? T : MAX_STAGES;
    for (size_t j = 0; j < n; j++) st[j] = (size_t)((double)(j + 1) * (double)T / (double)n + 0.5);
    for (size_t j = 1; j < n; j++)
        if (st[j] <= st[j - 1]) st[j] = st[j - 1] + 1;
    if (n) st[n - 1] = T;
    return n;
}

/* ---------------------------------------------------------------------------------------------
 * Boosting
 * ------------------------------------------------------------------------------------------ */

/* The staged error of the model on d after each of the rounds st[0..n) (staged prediction). */
static int staged_errors(rep *r, const grove_dataset *d, const size_t *st, size_t n, double *err)
{
    const size_t k = n_out(r);
    double *p = gv_malloc_array(d->n_rows ? d->n_rows : 1, k * sizeof *p);
    if (!p) return -1;
    for (size_t j = 0; j < n; j++) {
        if (grove_model_predict_rounds(r->m, d, st[j], r->n_threads, p, d->n_rows * k) != GROVE_OK) {
            gv_free(p);
            return -1;
        }
        err[j] = error_of(r, d, p);
    }
    gv_free(p);
    return 0;
}

static void boost_section(rep *r, const gv_boost_view *v)
{
    const size_t T = v->n_members;
    const int r2 = !strcmp(v->variant, "adaboost.r2");
    put(r, "<section id=\"boosting\">\n<h2>Boosting: %s, %zu rounds</h2>\n", v->variant, T);
    double *x = gv_malloc_array(T ? T : 1, 6 * sizeof *x);
    size_t *st = gv_malloc_array(MAX_STAGES, sizeof *st);
    double *sx = gv_malloc_array(MAX_STAGES, 2 * sizeof *sx);
    if (!x || !st || !sx) {
        r->nomem = 1;
        goto done;
    }
    double *prod = x + T, *bound = x + 2 * T, *gam = x + 3 * T, *eps = x + 4 * T, *alpha = x + 5 * T;
    double pz = 1, sg = 0;
    for (size_t t = 0; t < T; t++) {
        x[t] = (double)(t + 1);
        eps[t] = v->log_eps[t];
        alpha[t] = v->alpha[t];
        gam[t] = 0.5 - v->log_eps[t];
        pz *= v->log_z[t];
        sg += gam[t] * gam[t];
        prod[t] = pz;
        bound[t] = exp(-2 * sg);
    }
    /* errors and bounds */
    gv_plot *p = gv_plot_new("boost-bounds",
                             r2 ? "Training error (RMSE) per round"
                                : "Training error, \xe2\x88\x8f Z_t and exp(\xe2\x88\x92" "2 \xce\xa3 \xce\xb3_t\xc2\xb2) per round",
                             760, 400);
    if (p) {
        gv_plot_axes(p, "round t", r2 ? "RMSE" : "error / bound", 0, 1);
        gv_plot_line(p, r2 ? "training RMSE" : "training error", x, v->log_train, T, 0);
        if (!r2) {
            gv_plot_line(p, "\xe2\x88\x8f Z_t", x, prod, T, 1);
            gv_plot_line(p, "exp(\xe2\x88\x92" "2 \xce\xa3 \xce\xb3\xc2\xb2)", x, bound, T, 1);
        }
        if (v->log_valid) gv_plot_line(p, r2 ? "validation RMSE" : "validation error", x, v->log_valid, T, 0);
        size_t ns = pick_stages(T, st);
        for (size_t j = 0; j < ns; j++) sx[j] = (double)st[j];
        if (r->data && grove_dataset_has_labels(r->data)) {
            if (staged_errors(r, r->data, st, ns, sx + MAX_STAGES) == 0) {
                gv_plot_line(p, r2 ? "RMSE on DATA" : "error on DATA", sx, sx + MAX_STAGES, ns, 0);
                gv_plot_note(p, "DATA: %s (%zu rows), after %zu of the rounds.", r->data->source,
                             r->data->n_rows, ns);
            } else {
                r->nomem = 1;
            }
        }
        gv_plot_note(p, "%s", r2 ? "Training RMSE is D_1-weighted; zero values are not drawn "
                                   "on the log scale."
                                 : "The training error (D_1-weighted) never exceeds \xe2\x88\x8f "
                                   "Z_t \xe2\x89\xa4 exp(\xe2\x88\x92" "2 \xce\xa3 \xce\xb3_t\xc2\xb2) "
                                   "for adaboost (Freund & Schapire 1997, Theorem 6); for the "
                                   "multiclass variants the curves are diagnostics.  Zero errors "
                                   "are not drawn on the log scale.");
    }
    chart(r, p);
    /* eps_t and alpha_t */
    p = gv_plot_new("boost-eps-alpha", "\xce\xb5_t and \xce\xb1_t per round", 760, 320);
    if (p) {
        gv_plot_axes(p, "round t", "value", 0, 0);
        gv_plot_line(p, r2 ? "\xce\xb5_t (average loss)" : "\xce\xb5_t (weighted error)", x, eps, T, 0);
        gv_plot_line(p, "\xce\xb1_t", x, alpha, T, 0);
        if (!r2) gv_plot_hline(p, "1/2", 0.5);
    }
    chart(r, p);
    /* margins (voting variants) on DATA */
    if (!r2 && strcmp(v->variant, "samme.r") != 0) {
        if (!r->data || !grove_dataset_has_labels(r->data)) {
            put(r, "<p class=\"missing\">The margin distribution needs labelled data: "
                   "<code>--data FILE</code>.</p>\n");
        } else {
            size_t rounds[3], nr = 0;
            size_t cand[3] = {5, T / 10, T};
            for (int j = 0; j < 3; j++)
                if (cand[j] >= 1 && cand[j] <= T && (nr == 0 || cand[j] > rounds[nr - 1]))
                    rounds[nr++] = cand[j];
            size_t n = r->data->n_rows;
            double *mg = gv_malloc_array(n ? n : 1, nr * sizeof *mg);
            double *cx = gv_malloc_array(MAX_CURVE + 1, 2 * sizeof *cx);
            if (!mg || !cx ||
                gv_boost_margins_rounds(&r->m->root, r->data, rounds, nr, r->n_threads, mg) !=
                    GROVE_OK) {
                r->nomem = 1;
            } else {
                p = gv_plot_new("boost-margins", "Margin distribution (cumulative) on DATA", 760,
                                360);
                if (p) {
                    gv_plot_axes(p, "margin", "fraction of rows with margin \xe2\x89\xa4 x", 0, 0);
                    gv_plot_x_range(p, -1, 1);
                    gv_plot_y_range(p, 0, 1);
                    for (size_t j = 0; j < nr; j++) {
                        double *a = mg + j * n;
                        qsort(a, n, sizeof *a, cmp_double);
                        /* at most MAX_CURVE points: the empirical CDF at evenly spaced ranks */
                        size_t npt = n < MAX_CURVE ? n : MAX_CURVE;
                        for (size_t q = 0; q < npt; q++) {
                            size_t i = npt == n ? q : (size_t)((double)(q + 1) * (double)n / (double)npt) - 1;
                            cx[q] = a[i];
                            cx[MAX_CURVE + 1 + q] = (double)(i + 1) / (double)n;
                        }
                        char name[64];
                        snprintf(name, sizeof name, "%zu rounds", rounds[j]);
                        gv_plot_step(p, name, cx, cx + MAX_CURVE + 1, npt);
                    }
                    gv_plot_vline(p, "margin 0", 0);
                    gv_plot_note(p, "Normalized margins (s_y \xe2\x88\x92 max_{k\xe2\x89\xa0y} s_k) / "
                                    "\xce\xa3 \xce\xb1 of the %zu rows of %s after each number of "
                                    "rounds, as in Schapire, Freund, Bartlett & Lee (1998), "
                                    "Figure 2: boosting keeps pushing the distribution right "
                                    "after the training error stops falling.",
                                 n, r->data->source);
                }
                chart(r, p);
            }
            gv_free(mg);
            gv_free(cx);
        }
    }
done:
    put(r, "</section>\n");
    gv_free(x);
    gv_free(st);
    gv_free(sx);
}

/* ---------------------------------------------------------------------------------------------
 * Bagging
 * ------------------------------------------------------------------------------------------ */

/* The error on d of the first m members, m = 1..T, into err[T]. */
static int member_curve(rep *r, const gv_bagging_view *v, const grove_dataset *d, double *err)
{
    const size_t T = v->n_members, k = n_out(r), n = d->n_rows;
    double *acc = gv_calloc(n ? n : 1, k * sizeof *acc), *h = gv_malloc_array(k, sizeof *h);
    double *p = gv_malloc_array(n ? n : 1, k * sizeof *p);
    if (!acc || !h || !p) {
        gv_free(acc);
        gv_free(h);
        gv_free(p);
        return -1;
    }
    const int hard = !strcmp(v->vote, "hard");
    for (size_t t = 0; t < T; t++) {
        for (size_t i = 0; i < n; i++) {
            v->members[t].vt->predict_row(v->members[t].impl, d, i, h);
            if (hard) {
                size_t best = 0;
                for (size_t c = 1; c < k; c++)
                    if (h[c] > h[best]) best = c;
                acc[i * k + best] += 1;
            } else {
                for (size_t c = 0; c < k; c++) acc[i * k + c] += h[c];
            }
        }
        for (size_t j = 0; j < n * k; j++) p[j] = acc[j] / (double)(t + 1);
        err[t] = error_of(r, d, p);
        if (!is_cls(r)) err[t] *= err[t]; /* the OOB curve of regression is an MSE */
    }
    gv_free(acc);
    gv_free(h);
    gv_free(p);
    return 0;
}

static void bagging_section(rep *r, const gv_bagging_view *v)
{
    const size_t T = v->n_members;
    put(r, "<section id=\"bagging\">\n<h2>%s: %zu members, %s vote</h2>\n", v->mode, T, v->vote);
    double *x = gv_malloc_array(T ? T : 1, 3 * sizeof *x);
    if (!x) {
        r->nomem = 1;
        goto done;
    }
    for (size_t t = 0; t < T; t++) x[t] = (double)(t + 1);
    gv_plot *p = gv_plot_new("bagging-oob",
                             is_cls(r) ? "Out-of-bag error against the number of members"
                                       : "Out-of-bag mean squared error against the number of "
                                         "members",
                             760, 380);
    if (p) {
        gv_plot_axes(p, "members", is_cls(r) ? "error rate" : "mean squared error", 0, 0);
        gv_plot_line(p, "OOB error", x, v->oob_error, T, 0);
        const grove_dataset *sets[2] = {r->data, r->valid};
        const char *names[2] = {"error on DATA", "error on VALID"};
        for (int s = 0; s < 2; s++) {
            if (!sets[s] || !grove_dataset_has_labels(sets[s])) continue;
            if (member_curve(r, v, sets[s], x + (size_t)(s + 1) * T) != 0) {
                r->nomem = 1;
                continue;
            }
            gv_plot_line(p, names[s], x, x + (size_t)(s + 1) * T, T, s == 1);
            gv_plot_note(p, "%s: %s (%zu rows).", s ? "VALID" : "DATA", sets[s]->source,
                         sets[s]->n_rows);
        }
        gv_plot_note(p, "OOB error of the first m members: each training row is predicted by "
                        "the members that did not see it (Breiman 1996b); rows no member left "
                        "out are not counted.");
    }
    chart(r, p);
done:
    put(r, "</section>\n");
    gv_free(x);
}

/* ---------------------------------------------------------------------------------------------
 * Gradient boosting
 * ------------------------------------------------------------------------------------------ */

typedef struct scored {
    double s;
    int y;
} scored;
static int cmp_scored_desc(const void *a, const void *b)
{
    double x = ((const scored *)a)->s, y = ((const scored *)b)->s;
    return (x < y) - (x > y);
}

/* The gbdt metric (loss/metric.c, unweighted) on d for scores F[n * G]. */
static double gbdt_metric(const gv_gbdt_view *v, const grove_dataset *d, const double *F,
                          double *part)
{
    int met = 0;
    while (met < GV_MET_COUNT - 1 && strcmp(gv_metric_names[met], v->metric)) met++;
    gv_metric_in m = {F,   d->labels,        NULL, d->n_rows, v->n_groups, v->obj->id,
                      met, v->tweedie_power, v->quantile_alpha, d->query_ptr, d->n_queries, 10};
    double out = NAN;
    if ((met == GV_MET_NDCG || met == GV_MET_MAP) && !d->n_queries) return NAN;
    if (gv_metric_value(&m, 1, part, &out) != GROVE_OK) return NAN;
    return out;
}

/* The metric on d after every round (1..R) into out[R]. */
static int gbdt_curve(const gv_gbdt_view *v, const grove_dataset *d, double *out)
{
    const size_t n = d->n_rows, G = v->n_groups;
    double *F = gv_malloc_array(n ? n : 1, G * sizeof *F);
    double *tmp = gv_malloc_array(2 * (n / GV_LOSS_SUM_BLOCK + 1), sizeof *tmp);
    if (!F || !tmp) {
        gv_free(F);
        gv_free(tmp);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t g = 0; g < G; g++) F[i * G + g] = v->base[g];
    for (size_t t = 0; t < v->n_rounds; t++) {
        for (size_t g = 0; g < G; g++) {
            const gv_tree *tr = v->trees[t * G + g];
            for (size_t i = 0; i < n; i++) F[i * G + g] += tr->values[gv_tree_leaf(tr, d, i)];
        }
        out[t] = gbdt_metric(v, d, F, tmp);
    }
    gv_free(F);
    gv_free(tmp);
    return 0;
}

static void gbdt_section(rep *r, const gv_gbdt_view *v)
{
    const size_t R = v->n_rounds, L = v->n_log > R ? v->n_log : R;
    put(r, "<section id=\"gbdt\">\n<h2>Gradient boosting: objective %s, %zu rounds</h2>\n",
        v->objective, R);
    double *x = gv_malloc_array(L ? L : 1, 3 * sizeof *x);
    if (!x) {
        r->nomem = 1;
        goto done;
    }
    for (size_t t = 0; t < L; t++) x[t] = (double)(t + 1);
    char title[128], yl[64];
    snprintf(title, sizeof title, "%s per round", v->metric);
    snprintf(yl, sizeof yl, "%s", v->metric);
    gv_plot *p = gv_plot_new("gbdt-metric", title, 760, 380);
    if (p) {
        int any = 0;
        gv_plot_axes(p, "round", yl, 0, 0);
        if (v->log_train) {
            gv_plot_line(p, "training", x, v->log_train, v->n_log, 0);
            any = 1;
        }
        if (v->log_valid) {
            gv_plot_line(p, "validation (log)", x, v->log_valid, v->n_log, 0);
            any = 1;
        }
        const grove_dataset *sets[2] = {r->data, r->valid};
        const char *names[2] = {"DATA", "VALID"};
        for (int s = 0; s < 2; s++) {
            if (!sets[s] || !grove_dataset_has_labels(sets[s])) continue;
            if (gbdt_curve(v, sets[s], x + (size_t)(s + 1) * L) != 0) {
                r->nomem = 1;
                continue;
            }
            gv_plot_line(p, names[s], x, x + (size_t)(s + 1) * L, R, s == 1);
            gv_plot_note(p, "%s: %s (%zu rows).", names[s], sets[s]->source, sets[s]->n_rows);
            any = 1;
        }
        if (v->n_log > R) {
            char name[96];
            snprintf(name, sizeof name, "early stopping: best round %zu", R);
            gv_plot_vline(p, name, (double)R);
            gv_plot_note(p, "Training ran %zu rounds; early stopping kept the first %zu (the "
                            "best validation %s).",
                         v->n_log, R, v->metric);
        }
        if (!any)
            gv_plot_note(p, "No curve: the model was trained without train_metric "
                            "(grove train --log) or --valid, and no --data was given.");
    }
    chart(r, p);
    if (v->log_eps && v->log_alpha) {
        /* the exponential objective's line search: AdaBoost's eps_t and alpha_t */
        p = gv_plot_new("gbdt-eps-alpha", "\xce\xb5_t and \xce\xb1_t per round (exponential loss)",
                        760, 320);
        if (p) {
            gv_plot_axes(p, "round", "value", 0, 0);
            gv_plot_line(p, "\xce\xb5_t (weighted error)", x, v->log_eps, v->n_log, 0);
            gv_plot_line(p, "\xce\xb1_t", x, v->log_alpha, v->n_log, 0);
            gv_plot_hline(p, "1/2", 0.5);
        }
        chart(r, p);
    }
done:
    put(r, "</section>\n");
    gv_free(x);
}

/* ---------------------------------------------------------------------------------------------
 * Filter boosting and confidence boosting
 * ------------------------------------------------------------------------------------------ */

/* The recursion tree as nested lists; collects (max child error, own error) points where the
 * node's own error is known (own < 0: unknown). */
static void majority_tree(rep *r, const gv_component *c, const char *name, double own, int depth,
                          double *px, double *py, size_t *np)
{
    gv_majority3_view mv;
    put(r, "<li><span class=\"node\">");
    put_text(r, name);
    if (own >= 0) put(r, ": error %.4f", own);
    if (!gv_majority3_view_of(c, &mv)) {
        put(r, " (%s)</span></li>\n", c->vt->kind);
        return;
    }
    double mx = 0;
    for (int j = 0; j < 3; j++)
        if (mv.errors[j] > mx) mx = mv.errors[j];
    put(r, " &#8212; majority of three, level %d; g(max child error %.4f) = %.4f</span>\n<ul>\n",
        depth, mx, 3 * mx * mx - 2 * mx * mx * mx);
    if (own >= 0 && *np < 4096) {
        px[*np] = mx;
        py[*np] = own;
        (*np)++;
    }
    static const char *const names[3] = {"h1 (on EX)", "h2 (on EX2: h1 right half the time)",
                                         "h3 (on EX3: where h1 and h2 disagree)"};
    for (int j = 0; j < 3; j++)
        majority_tree(r, &mv.children[j], names[j], mv.errors[j], depth + 1, px, py, np);
    put(r, "</ul></li>\n");
}

static void filter_section(rep *r, const gv_component *root)
{
    put(r, "<section id=\"filter\">\n<h2>Boosting by filtering: the recursion tree</h2>\n");
    double *px = gv_malloc_array(4096, 2 * sizeof *px);
    if (!px) {
        r->nomem = 1;
        put(r, "</section>\n");
        return;
    }
    size_t np = 0;
    double own = -1;
    if (r->data && grove_dataset_has_labels(r->data)) {
        double *p = gv_malloc_array(r->data->n_rows ? r->data->n_rows : 1, n_out(r) * sizeof *p);
        if (p && grove_model_predict(r->m, r->data, r->n_threads, p, r->data->n_rows * n_out(r)) ==
                     GROVE_OK)
            own = error_of(r, r->data, p);
        gv_free(p);
    }
    put(r, "<p>Each hypothesis' error is measured on its own filtered distribution; the root's "
           "on DATA.</p>\n<ul class=\"tree\">\n");
    majority_tree(r, root, "the model", own, 1, px, px + 4096, &np);
    put(r, "</ul>\n");
    double gx[101], gy[101];
    for (int i = 0; i <= 100; i++) {
        gx[i] = 0.005 * i;
        gy[i] = 3 * gx[i] * gx[i] - 2 * gx[i] * gx[i] * gx[i];
    }
    gv_plot *p = gv_plot_new("filter-g", "Majority error against g(p) = 3p\xc2\xb2 \xe2\x88\x92 2p\xc2\xb3",
                             560, 420);
    if (p) {
        gv_plot_axes(p, "p: the largest error of the three hypotheses", "error of their majority",
                     0, 0);
        gv_plot_x_range(p, 0, 0.5);
        gv_plot_y_range(p, 0, 0.5);
        gv_plot_line(p, "g(p) = 3p\xc2\xb2 \xe2\x88\x92 2p\xc2\xb3", gx, gy, 101, 0);
        gv_plot_line(p, "p", gx, gx, 101, 1);
        gv_plot_points(p, "majorities", px, px + 4096, np);
        gv_plot_note(p, "Schapire (1990): if h1, h2, h3 each have error at most p on their "
                        "distributions, their majority has error at most g(p) < p for p < 1/2.  "
                        "One point per majority whose own error is known (its parent measured "
                        "it, or DATA for the root).");
    }
    chart(r, p);
    gv_free(px);
    put(r, "</section>\n");
}

static void confidence_section(rep *r, const gv_confidence_view *v)
{
    put(r, "<section id=\"confidence\">\n<h2>Boosting the confidence: %zu runs, selection "
           "sample of %zu rows</h2>\n",
        v->k, v->m);
    char **labels = gv_calloc(v->k ? v->k : 1, sizeof *labels);
    char (*text)[32] = gv_malloc_array(v->k ? v->k : 1, sizeof *text);
    if (!labels || !text) {
        r->nomem = 1;
    } else {
        for (size_t j = 0; j < v->k; j++) {
            snprintf(text[j], sizeof text[j], "run %zu%s", j + 1, j == v->chosen_index ? " *" : "");
            labels[j] = text[j];
        }
        gv_plot *p = gv_plot_new("confidence-runs", "Error of each run on the selection sample",
                                 560, 340);
        if (p) {
            gv_plot_axes(p, "run (* = chosen)", "error", 0, 0);
            gv_plot_bars(p, "error", (const char *const *)labels, v->errors, v->k);
            char buf[32];
            if (grove_params_get(r->m->params, "confidence.epsilon", buf, sizeof buf) == GROVE_OK) {
                double eps = atof(buf);
                gv_plot_hline(p, "\xce\xb5", eps);
            }
            gv_plot_note(p, "k = \xe2\x8c\x88log2(2/\xce\xb4)\xe2\x8c\x89 runs of the base "
                            "learner; the one with the least error on a fresh selection sample "
                            "of m rows is kept (run %zu).",
                         v->chosen_index + 1);
        }
        chart(r, p);
    }
    gv_free(labels);
    gv_free(text);
    put(r, "</section>\n");
}

/* ---------------------------------------------------------------------------------------------
 * Importances
 * ------------------------------------------------------------------------------------------ */

typedef struct ranked {
    double v;
    size_t f;
} ranked;
static int cmp_ranked(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->v != y->v) return (x->v < y->v) - (x->v > y->v);
    return (x->f > y->f) - (x->f < y->f);
}

static void importance_chart(rep *r, const char *kind, const double *imp, const char *note)
{
    const grove_schema *s = r->m->schema;
    const size_t F = s->n_features;
    ranked *rk = gv_malloc_array(F, sizeof *rk);
    const char **labels = gv_malloc_array(MAX_BARS, sizeof *labels);
    double *v = gv_malloc_array(MAX_BARS, sizeof *v);
    if (!rk || !labels || !v) {
        r->nomem = 1;
        goto done;
    }
    for (size_t f = 0; f < F; f++) {
        rk[f].v = imp[f];
        rk[f].f = f;
    }
    qsort(rk, F, sizeof *rk, cmp_ranked);
    size_t n = F < MAX_BARS ? F : MAX_BARS;
    for (size_t j = 0; j < n; j++) {
        labels[j] = s->feature_names[rk[j].f];
        v[j] = rk[j].v;
    }
    char id[64], title[128];
    snprintf(id, sizeof id, "importance-%s", kind);
    for (char *c = id; *c; c++)
        if (*c == '_') *c = '-';
    snprintf(title, sizeof title, "Feature importance: %s", kind);
    gv_plot *p = gv_plot_new(id, title, 640, 80 + 22 * (int)n);
    if (p) {
        gv_plot_axes(p, "importance", "", 0, 0);
        gv_plot_hbars(p, kind, labels, v, n);
        if (F > n) gv_plot_note(p, "The %zu largest of %zu features.", n, F);
        gv_plot_note(p, "%s", note);
    }
    chart(r, p);
done:
    gv_free(rk);
    gv_free(labels);
    gv_free(v);
}

/* Rows of DATA whose contributions the report averages (the first ones). */
#define CONTRIB_ROWS 10000

/* imp[F] = the mean over the first rows of DATA of sum_g |phi_g,f| (grove_model_predict_contrib);
 * 0 when the model has no contributions (or memory is short: then r->nomem). */
static int contrib_importance(rep *r, double *imp)
{
    const size_t F = r->m->schema->n_features, F1 = F + 1;
    size_t G = 0;
    if (grove_model_contrib_groups(r->m, &G) != GROVE_OK || r->data->n_rows == 0) return 0;
    grove_dataset *sub = NULL;
    const grove_dataset *d = r->data;
    size_t n = d->n_rows;
    if (n > CONTRIB_ROWS) {
        size_t *rows = gv_malloc_array(CONTRIB_ROWS, sizeof *rows);
        if (!rows) {
            r->nomem = 1;
            return 0;
        }
        for (size_t i = 0; i < CONTRIB_ROWS; i++) rows[i] = i;
        grove_status st = grove_dataset_subset(d, rows, CONTRIB_ROWS, &sub);
        gv_free(rows);
        if (st != GROVE_OK) {
            r->nomem = st == GROVE_ERR_NOMEM;
            return 0;
        }
        d = sub;
        n = CONTRIB_ROWS;
    }
    double *phi = gv_malloc_array(n * G, F1 * sizeof *phi);
    int ok = phi && grove_model_predict_contrib(r->m, d, 0, r->n_threads, phi, n * G * F1) ==
                        GROVE_OK;
    if (!phi) r->nomem = 1;
    if (ok) {
        for (size_t f = 0; f < F; f++) imp[f] = 0;
        for (size_t i = 0; i < n * G; i++)
            for (size_t f = 0; f < F; f++) imp[f] += fabs(phi[i * F1 + f]);
        for (size_t f = 0; f < F; f++) imp[f] /= (double)n;
    }
    gv_free(phi);
    grove_dataset_free(sub);
    return ok;
}

static void importance_section(rep *r)
{
    static const struct {
        const char *kind, *note;
    } kinds[] = {
        {"impurity", "Mean decrease in impurity: per tree the split gains per feature, "
                     "normalized, averaged over the trees."},
        {"gain", "Mean gain per split: the loss reduction of the splits on each feature, "
                 "averaged over those splits (XGBoost's gain)."},
        {"cover", "Mean cover per split: the hessian sum (training rows, for squared loss) "
                  "the feature's splits covered, averaged over those splits (XGBoost's "
                  "cover)."},
        {"oob_permutation", "Increase of each tree's out-of-bag error when the feature is "
                            "permuted (Breiman 2001), averaged over the trees."},
    };
    const size_t F = r->m->schema->n_features;
    double *imp = gv_malloc_array(F, sizeof *imp);
    if (!imp) {
        r->nomem = 1;
        return;
    }
    int opened = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        if (grove_model_importance(r->m, kinds[k].kind, NULL, 0, r->n_threads, imp, F) != GROVE_OK)
            continue;
        if (!opened) put(r, "<section id=\"importance\">\n<h2>Feature importances</h2>\n");
        opened = 1;
        importance_chart(r, kinds[k].kind, imp, kinds[k].note);
    }
    if (r->data && grove_dataset_has_labels(r->data) &&
        grove_model_importance(r->m, "permutation", r->data, 1, r->n_threads, imp, F) == GROVE_OK) {
        if (!opened) put(r, "<section id=\"importance\">\n<h2>Feature importances</h2>\n");
        opened = 1;
        importance_chart(r, "permutation", imp,
                         is_cls(r) ? "Increase of the error rate on DATA when the feature's "
                                     "column is permuted."
                                   : "Increase of the mean squared error on DATA when the "
                                     "feature's column is permuted.");
    }
    if (r->data && contrib_importance(r, imp)) {
        if (!opened) put(r, "<section id=\"importance\">\n<h2>Feature importances</h2>\n");
        opened = 1;
        char note[512];
        snprintf(note, sizeof note,
                 "Mean |contribution| of each feature to the model's score over %zu rows of "
                 "DATA (path-dependent TreeSHAP, Lundberg et al. 2018; summed over the score's "
                 "groups): `grove predict --contrib` gives them row by row.",
                 r->data->n_rows < CONTRIB_ROWS ? r->data->n_rows : (size_t)CONTRIB_ROWS);
        importance_chart(r, "contributions", imp, note);
    }
    gv_err_clear(); /* kinds the model does not have are skipped, not errors */
    if (opened) put(r, "</section>\n");
    gv_free(imp);
}

/* ---------------------------------------------------------------------------------------------
 * Evaluation on DATA
 * ------------------------------------------------------------------------------------------ */

static void confusion_table(rep *r, const double *p, const grove_dataset *d)
{
    const grove_schema *s = r->m->schema;
    const size_t K = n_out(r), n = d->n_rows;
    size_t *cm = gv_calloc(K * K, sizeof *cm);
    if (!cm) {
        r->nomem = 1;
        return;
    }
    size_t mx = 1;
    for (size_t i = 0; i < n; i++) {
        size_t best = 0;
        for (size_t c = 1; c < K; c++)
            if (p[i * K + c] > p[i * K + best]) best = c;
        size_t y = (size_t)d->labels[i];
        if (++cm[y * K + best] > mx) mx = cm[y * K + best];
    }
    put(r, "<h3>Confusion matrix (rows: true class, columns: predicted)</h3>\n"
           "<table class=\"confusion\" id=\"confusion\">\n<tr><th></th>");
    for (size_t c = 0; c < K; c++) {
        put(r, "<th>");
        put_text(r, s->classes.names[c]);
        put(r, "</th>");
    }
    put(r, "</tr>\n");
    for (size_t y = 0; y < K; y++) {
        put(r, "<tr><th>");
        put_text(r, s->classes.names[y]);
        put(r, "</th>");
        for (size_t c = 0; c < K; c++) {
            double a = (double)cm[y * K + c] / (double)mx;
            put(r, "<td style=\"background: rgba(%s, %.2f)\">%zu</td>",
                y == c ? "31, 119, 180" : "214, 39, 40", 0.08 + 0.6 * a, cm[y * K + c]);
        }
        put(r, "</tr>\n");
    }
    put(r, "</table>\n");
    gv_free(cm);
}

static void roc_chart(rep *r, const double *p, const grove_dataset *d)
{
    const size_t n = d->n_rows;
    scored *a = gv_malloc_array(n ? n : 1, sizeof *a);
    double *xy = gv_malloc_array(MAX_CURVE + 2, 2 * sizeof *xy);
    if (!a || !xy) {
        r->nomem = 1;
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        a[i].s = p[i * 2 + 1];
        a[i].y = d->labels[i] == 1;
    }
    double auc;
    if (gv_weighted_auc(p + 1, 2, d->labels, NULL, n, &auc) != GROVE_OK) {
        r->nomem = 1;
        goto done;
    }
    qsort(a, n, sizeof *a, cmp_scored_desc); /* the curve walks the scores downwards */
    double P = 0, N = 0;
    for (size_t i = 0; i < n; i++) {
        if (a[i].y) P++;
        else N++;
    }
    /* the curve's corners at distinct thresholds, at most MAX_CURVE of them, plus (0, 0) */
    size_t npt = 0, n_thr = 0;
    for (size_t i = 0; i < n; i++)
        if (i + 1 == n || a[i + 1].s != a[i].s) n_thr++;
    size_t every = n_thr > MAX_CURVE ? (n_thr + MAX_CURVE - 1) / MAX_CURVE : 1;
    xy[npt] = 0;
    xy[MAX_CURVE + 2 + npt++] = 0;
    double tp = 0, fp = 0;
    size_t thr = 0;
    for (size_t i = 0; i < n; i++) {
        if (a[i].y) tp++;
        else fp++;
        if (i + 1 < n && a[i + 1].s == a[i].s) continue;
        thr++;
        if (thr % every != 0 && i + 1 != n) continue;
        xy[npt] = N > 0 ? fp / N : 0;
        xy[MAX_CURVE + 2 + npt++] = P > 0 ? tp / P : 0;
    }
    char title[96];
    snprintf(title, sizeof title, "ROC curve (AUC %.4f)", auc);
    gv_plot *pl = gv_plot_new("roc", title, 480, 440);
    if (pl) {
        double diag[2] = {0, 1};
        gv_plot_axes(pl, "false positive rate", "true positive rate", 0, 0);
        gv_plot_x_range(pl, 0, 1);
        gv_plot_y_range(pl, 0, 1);
        gv_plot_line(pl, "ROC", xy, xy + MAX_CURVE + 2, npt, 0);
        gv_plot_line(pl, "chance", diag, diag, 2, 1);
        gv_plot_note(pl, "Positive class: the second class; scores: its predicted probability.");
    }
    chart(r, pl);
done:
    gv_free(a);
    gv_free(xy);
}

static void calibration_chart(rep *r, const double *p, const grove_dataset *d)
{
    enum { BINS = 10 };
    const size_t K = n_out(r), n = d->n_rows;
    double sum_p[BINS] = {0}, sum_y[BINS] = {0}, cnt[BINS] = {0};
    for (size_t i = 0; i < n; i++) {
        size_t best = 0;
        for (size_t c = 1; c < K; c++)
            if (p[i * K + c] > p[i * K + best]) best = c;
        /* two classes: P(second class) against its frequency; more: the confidence of the
         * predicted class against its accuracy */
        double q = K == 2 ? p[i * 2 + 1] : p[i * K + best];
        double hit = K == 2 ? d->labels[i] == 1 : (size_t)d->labels[i] == best;
        int b = (int)(q * BINS);
        if (b >= BINS) b = BINS - 1;
        if (b < 0) b = 0;
        sum_p[b] += q;
        sum_y[b] += hit;
        cnt[b]++;
    }
    double x[BINS], y[BINS];
    size_t m = 0;
    for (int b = 0; b < BINS; b++)
        if (cnt[b] > 0) {
            x[m] = sum_p[b] / cnt[b];
            y[m++] = sum_y[b] / cnt[b];
        }
    gv_plot *pl = gv_plot_new("calibration", "Calibration (reliability diagram)", 480, 440);
    if (pl) {
        double diag[2] = {0, 1};
        gv_plot_axes(pl, K == 2 ? "mean predicted probability" : "mean confidence",
                     K == 2 ? "fraction positive" : "accuracy", 0, 0);
        gv_plot_x_range(pl, 0, 1);
        gv_plot_y_range(pl, 0, 1);
        gv_plot_line(pl, "model", x, y, m, 0);
        gv_plot_points(pl, "bins", x, y, m);
        gv_plot_line(pl, "perfect", diag, diag, 2, 1);
        gv_plot_note(pl, "%s in %d equal-width bins; empty bins are not drawn.",
                     K == 2 ? "P(second class)" : "The predicted class's probability", BINS);
    }
    chart(r, pl);
}

static void regression_chart(rep *r, const double *p, const grove_dataset *d)
{
    const size_t n = d->n_rows;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        double v[2] = {p[i], d->labels[i]};
        for (int j = 0; j < 2; j++) {
            if (v[j] < lo) lo = v[j];
            if (v[j] > hi) hi = v[j];
        }
    }
    gv_plot *pl = gv_plot_new("pred-vs-true", "Predicted against true", 520, 480);
    if (pl) {
        double diag[2] = {lo, hi};
        gv_plot_axes(pl, "true value", "predicted value", 0, 0);
        gv_plot_points(pl, "rows", d->labels, p, n);
        if (n) gv_plot_line(pl, "y = x", diag, diag, 2, 1);
    }
    chart(r, pl);
}

static void evaluation_section(rep *r)
{
    const grove_dataset *d = r->data;
    put(r, "<section id=\"evaluation\">\n<h2>On DATA: ");
    put_text(r, d->source);
    put(r, " (%zu rows)</h2>\n", d->n_rows);
    grove_eval *e = NULL;
    char *json = NULL;
    if (grove_model_evaluate(r->m, d, r->n_threads, &e) == GROVE_OK &&
        grove_eval_json(e, &json) == GROVE_OK) {
        json_t *o = json_loads(json, 0, NULL);
        const char *key;
        json_t *val;
        put(r, "<table class=\"metrics\">\n");
        if (o)
            json_object_foreach(o, key, val)
            {
                if (!json_is_number(val)) continue;
                put(r, "<tr><th>");
                put_text(r, key);
                put(r, "</th><td>%.6g</td></tr>\n", json_number_value(val));
            }
        put(r, "</table>\n");
        json_decref(o);
    }
    grove_string_free(json);
    grove_eval_free(e);
    const size_t k = n_out(r);
    double *p = gv_malloc_array(d->n_rows ? d->n_rows : 1, k * sizeof *p);
    if (!p || grove_model_predict(r->m, d, r->n_threads, p, d->n_rows * k) != GROVE_OK) {
        if (!p) r->nomem = 1;
        gv_free(p);
        put(r, "</section>\n");
        return;
    }
    if (is_cls(r)) {
        confusion_table(r, p, d);
        if (k == 2) roc_chart(r, p, d);
        calibration_chart(r, p, d);
    } else {
        regression_chart(r, p, d);
    }
    gv_free(p);
    put(r, "</section>\n");
}

/* ---------------------------------------------------------------------------------------------
 * Bias-variance
 * ------------------------------------------------------------------------------------------ */

static grove_status biasvar_section(rep *r, const char *text)
{
    json_error_t jerr;
    json_t *o = json_loads(text, 0, &jerr);
    if (!o || !json_is_object(o)) {
        json_decref(o);
        return gv_err(GROVE_ERR_PARSE, "biasvar: %d:%d: %s (expected the JSON of `grove biasvar "
                                       "--json`)",
                      jerr.line, jerr.column, jerr.text);
    }
    const char *task = json_string_value(json_object_get(o, "task"));
    const char *algo = json_string_value(json_object_get(o, "algo"));
    int cls = task && !strcmp(task, "classification");
    const char *keys_c[2] = {"bias", "net_variance"}, *keys_r[2] = {"bias2", "variance"};
    const char *const *keys = cls ? keys_c : keys_r;
    double v[2];
    for (int j = 0; j < 2; j++) {
        json_t *x = json_object_get(o, keys[j]);
        if (!json_is_number(x)) {
            json_decref(o);
            return gv_err(GROVE_ERR_PARSE, "biasvar: no number '%s' (expected the JSON of "
                                           "`grove biasvar --json`)",
                          keys[j]);
        }
        v[j] = json_number_value(x);
    }
    put(r, "<section id=\"biasvar\">\n<h2>Bias-variance decomposition</h2>\n");
    const char *names_c[2] = {"bias", "net variance"}, *names_r[2] = {"bias\xc2\xb2", "variance"};
    const char *label = algo ? algo : "model";
    gv_plot *p = gv_plot_new("biasvar", cls ? "Zero-one loss = bias + net variance"
                                            : "Squared error = bias\xc2\xb2 + variance",
                             420, 380);
    if (p) {
        gv_plot_axes(p, "", cls ? "zero-one loss" : "squared error", 0, 0);
        gv_plot_stacked(p, cls ? names_c : names_r, 2, &label, v, 1);
        if (cls) {
            json_t *u = json_object_get(o, "unbiased_variance"), *b = json_object_get(o, "biased_variance");
            if (json_is_number(u) && json_is_number(b))
                gv_plot_note(p, "Net variance = unbiased variance %.4f \xe2\x88\x92 biased "
                                "variance %.4f (Domingos 2000); a negative net variance is "
                                "drawn as 0.",
                             json_number_value(u), json_number_value(b));
        }
        json_t *n = json_object_get(o, "replicates");
        if (json_is_integer(n))
            gv_plot_note(p, "%lld bootstrap replicates.", (long long)json_integer_value(n));
    }
    chart(r, p);
    put(r, "</section>\n");
    json_decref(o);
    return GROVE_OK;
}

/* ---------------------------------------------------------------------------------------------
 * The page
 * ------------------------------------------------------------------------------------------ */

static const char style_text[] =
    "body { font-family: sans-serif; max-width: 900px; margin: 1em auto; color: #222; }\n"
    "h1 { font-size: 1.5em; } h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; }\n"
    "figure { margin: 1em 0; break-inside: avoid; } figcaption { font-size: 0.85em; color: #555; "
    "max-width: 760px; }\n"
    "table { border-collapse: collapse; font-size: 0.9em; } th, td { border: 1px solid #ccc; "
    "padding: 2px 8px; text-align: right; }\n"
    "ul.tree { font-size: 0.9em; } .missing { color: #a00; }\n"
    "@media print { body { max-width: none; } section { break-before: auto; } }\n";

static void summary_section(rep *r)
{
    const grove_model *m = r->m;
    const grove_schema *s = m->schema;
    put(r, "<section id=\"summary\">\n<table class=\"summary\">\n");
    put(r, "<tr><th>algorithm</th><td>");
    put_text(r, m->algo);
    put(r, "</td></tr>\n<tr><th>task</th><td>%s</td></tr>\n",
        s->task == GROVE_CLASSIFICATION ? "classification" : "regression");
    put(r, "<tr><th>features</th><td>%zu</td></tr>\n", s->n_features);
    if (s->task == GROVE_CLASSIFICATION) {
        put(r, "<tr><th>classes</th><td>");
        for (size_t c = 0; c < s->classes.n; c++) {
            if (c) put(r, ", ");
            put_text(r, s->classes.names[c]);
        }
        put(r, "</td></tr>\n");
    }
    put(r, "<tr><th>training rows</th><td>%zu</td></tr>\n", m->n_train_rows);
    json_t *sum = gv_component_summary(&m->root);
    const char *key;
    json_t *val;
    if (sum)
        json_object_foreach(sum, key, val)
        {
            char buf[256];
            if (json_is_integer(val))
                snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(val));
            else if (json_is_real(val))
                snprintf(buf, sizeof buf, "%.6g", json_real_value(val));
            else if (json_is_string(val))
                snprintf(buf, sizeof buf, "%s", json_string_value(val));
            else
                continue;
            put(r, "<tr><th>");
            put_text(r, key);
            put(r, "</th><td>");
            put_text(r, buf);
            put(r, "</td></tr>\n");
        }
    json_decref(sum);
    put(r, "</table>\n</section>\n");
}

grove_status gv_report_html(const grove_model *m, const grove_dataset *data,
                            const grove_dataset *valid, const char *biasvar_json, int n_threads,
                            gv_buf *out)
{
    rep r = {out, m, data, valid, n_threads, 0};
    put(&r, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n"
            "<head>\n<meta charset=\"utf-8\"/>\n<title>grove report: ");
    put_text(&r, m->algo);
    put(&r, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>grove report: ", style_text);
    put_text(&r, m->algo);
    put(&r, " (%s)</h1>\n", m->schema->task == GROVE_CLASSIFICATION ? "classification"
                                                                    : "regression");
    put(&r, "<p>Written by grove %s.  No script, nothing fetched: this file is the whole "
            "report.</p>\n",
        GROVE_VERSION_STRING);
    summary_section(&r);
    gv_boost_view bv;
    gv_bagging_view bg;
    gv_gbdt_view gb;
    gv_majority3_view mj;
    gv_confidence_view cf;
    if (gv_boost_view_of(&m->root, &bv)) boost_section(&r, &bv);
    if (gv_bagging_view_of(&m->root, &bg)) bagging_section(&r, &bg);
    if (gv_gbdt_view_of(&m->root, &gb)) gbdt_section(&r, &gb);
    if (gv_majority3_view_of(&m->root, &mj)) filter_section(&r, &m->root);
    if (gv_confidence_view_of(&m->root, &cf)) confidence_section(&r, &cf);
    importance_section(&r);
    if (data && grove_dataset_has_labels(data)) evaluation_section(&r);
    grove_status st = GROVE_OK;
    if (biasvar_json) st = biasvar_section(&r, biasvar_json);
    put(&r, "</body>\n</html>\n");
    if (st == GROVE_OK && r.nomem) st = gv_err_nomem("the report");
    return st;
}
