/*
 * boost_model.c -- the AdaBoost family's model (component kind "boost"): prediction, margins,
 * the per-round log with its bounds, and the model file (boost.c trains it).
 *
 * Pipeline position: ensemble/.  A model is the members h_t with their weights alpha_t
 * (boost_int.h's gv_boost).  Scores: s_k = sum_t alpha_t [h_t(x) = k] (adaboost, m1, samme),
 * sum_t h_k^t(x) (samme.r), sum_t ln(1/beta_t) h_t(x, k) (m2); adaboost.r2 predicts the weighted
 * median of f_t(x) with weights alpha_t = ln(1/beta_t).  The log (boost_log_csv) adds
 * gamma_t = 1/2 - eps_t, prod Z_t and exp(-2 sum gamma^2), the training-error bounds of boost.c.
 *
 * Class probabilities (argmax unaffected): adaboost: p_1 = sigma(2 f), f = sum alpha_t h_t
 * (Friedman, Hastie & Tibshirani 2000); m1, samme: p ~ exp(K/(K-1)^2 s_k), s_k = sum alpha_t
 * [h_t = k] (the minimizer of SAMME's exponential loss); samme.r: p ~ exp(f_k/(K-1)); m2:
 * p ~ exp(s_k / sum alpha).
 * C export (export_c, core/cgen.h): the members, then the scores and softmax above, with the
 * same constants.
 */
#include "boost_int.h"

#include "../core/params.h"
#include "../core/json.h"
#include "../core/mathx.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------
 * Shared helpers
 * ------------------------------------------------------------------------------------------ */

void gv_boost_free(void *impl)
{
    gv_boost *b = impl;
    if (!b) return;
    for (size_t t = 0; t < b->n_members; t++) {
        gv_component_free(&b->members[t]);
        if (b->plaus) gv_free(b->plaus[t]);
    }
    gv_free(b->members);
    gv_free(b->plaus);
    gv_free(b->alpha);
    gv_free(b->log_eps);
    gv_free(b->log_z);
    gv_free(b->log_train);
    gv_free(b->log_valid);
    gv_free(b->stop);
    gv_pack_cache_free(&b->pack);
    gv_free(b);
}

gv_boost *gv_boost_new(int variant, int n_classes, size_t cap, int with_valid)
{
    gv_boost *b = gv_calloc(1, sizeof *b);
    if (!b) return NULL;
    gv_pack_cache_init(&b->pack);
    b->variant = variant;
    b->n_classes = n_classes;
    b->cap = cap ? cap : 1;
    b->members = gv_calloc(b->cap, sizeof *b->members);
    b->alpha = gv_calloc(b->cap, sizeof *b->alpha);
    b->log_eps = gv_calloc(b->cap, sizeof(double));
    b->log_z = gv_calloc(b->cap, sizeof(double));
    b->log_train = gv_calloc(b->cap, sizeof(double));
    b->log_valid = with_valid ? gv_calloc(b->cap, sizeof(double)) : NULL;
    b->plaus = variant == BV_M2 ? gv_calloc(b->cap, sizeof *b->plaus) : NULL;
    b->stop = gv_strdup("");
    if (!b->members || !b->alpha || !b->log_eps || !b->log_z || !b->log_train ||
        (with_valid && !b->log_valid) || (variant == BV_M2 && !b->plaus) || !b->stop) {
        gv_boost_free(b);
        return NULL;
    }
    return b;
}

static size_t boost_outputs(const gv_boost *b) { return b->n_classes ? (size_t)b->n_classes : 1; }

/* The plausibilities (m2) or class probabilities of member t for row i into h[K]. */
void gv_boost_member_output(const gv_boost *b, size_t t, const grove_dataset *d, size_t i, double *h)
{
    const gv_component *c = &b->members[t];
    if (b->plaus && b->plaus[t]) {
        size_t leaf = gv_tree_leaf(c->impl, d, i);
        memcpy(h, b->plaus[t] + leaf * (size_t)b->n_classes, (size_t)b->n_classes * sizeof *h);
        return;
    }
    c->vt->predict_row(c->impl, d, i, h);
}

/* Accumulates member t's contribution for row i into the scores s[K] (not for r2). */
void gv_boost_add_score(const gv_boost *b, size_t t, const double *h, double *s)
{
    const size_t k = (size_t)b->n_classes;
    const double a = b->alpha[t];
    switch (b->variant) {
    case BV_ADABOOST:
    case BV_M1:
    case BV_SAMME:
        s[gv_argmax(h, k)] += a;
        break;
    case BV_M2:
        for (size_t c = 0; c < k; c++) s[c] += a * h[c];
        break;
    case BV_SAMME_R: {
        /* h_k = (K - 1)(ln p_k - mean_j ln p_j), times the learning rate kept in alpha */
        double mean = 0;
        for (size_t c = 0; c < k; c++) mean += log(h[c] > P_CLIP ? h[c] : P_CLIP);
        mean /= (double)k;
        for (size_t c = 0; c < k; c++)
            s[c] += a * (double)(k - 1) * (log(h[c] > P_CLIP ? h[c] : P_CLIP) - mean);
        break;
    }
    }
}

void gv_boost_member_score(const gv_component *c, size_t t, const double *h, double *s)
{
    gv_boost_add_score(c->impl, t, h, s);
}

double gv_boost_alpha_sum(const gv_boost *b, size_t rounds)
{
    double z = 0;
    for (size_t t = 0; t < rounds; t++) z += fabs(b->alpha[t]);
    return z;
}

/* Scores -> class probabilities (see the file comment). */
static void scores_to_proba(const gv_boost *b, const double *s, size_t rounds, double *out)
{
    const size_t k = (size_t)b->n_classes;
    double kk = (double)k, scale = 1;
    switch (b->variant) {
    case BV_ADABOOST:
        scale = 2;
        break;
    case BV_M1:
    case BV_SAMME:
        scale = kk / ((kk - 1) * (kk - 1));
        break;
    case BV_SAMME_R:
        scale = 1 / (kk - 1);
        break;
    case BV_M2: {
        double z = gv_boost_alpha_sum(b, rounds);
        scale = z > 0 ? 1 / z : 1;
        break;
    }
    }
    gv_softmax_scaled(s, k, scale, out);
}

enum { STACK_K = 256 };

static void boost_predict_rounds(const void *impl, const grove_dataset *d, size_t i,
                                 size_t rounds, double *out)
{
    const gv_boost *b = impl;
    if (rounds > b->n_members) rounds = b->n_members;
    if (b->variant == BV_R2) {
        gv_wv stack[STACK_K], *a = rounds <= STACK_K ? stack : gv_malloc_array(rounds, sizeof *a);
        if (!a) {
            out[0] = NAN;
            return;
        }
        for (size_t t = 0; t < rounds; t++) {
            b->members[t].vt->predict_row(b->members[t].impl, d, i, &a[t].v);
            a[t].w = b->alpha[t];
        }
        out[0] = gv_weighted_median(a, rounds);
        if (a != stack) gv_free(a);
        return;
    }
    const size_t k = (size_t)b->n_classes;
    double stack[2 * STACK_K], *h = k <= STACK_K ? stack : gv_malloc_array(2 * k, sizeof *h);
    if (!h) {
        for (size_t c = 0; c < k; c++) out[c] = NAN;
        return;
    }
    double *s = h + k;
    memset(s, 0, k * sizeof *s);
    for (size_t t = 0; t < rounds; t++) {
        gv_boost_member_output(b, t, d, i, h);
        gv_boost_add_score(b, t, h, s);
    }
    scores_to_proba(b, s, rounds, out);
    if (h != stack) gv_free(h);
}

static void boost_predict_row(const void *impl, const grove_dataset *d, size_t i, double *out)
{
    const gv_boost *b = impl;
    boost_predict_rounds(impl, d, i, b->n_members, out);
}

/* Rows [begin, end) member by member (learner.h's predict_block): tree members through the
 * compiled trees (tree_pack.h) over row-major blocks, others row by row.  Each row's score
 * takes the members' outputs in boost_predict_rounds' order (r2: the same (value, alpha)
 * list), so the results are identical. */
static void boost_predict_block(const void *impl, const grove_dataset *d, size_t begin,
                                size_t end, size_t rounds, double *out)
{
    gv_boost *b = (gv_boost *)impl; /* the pack cache is built on first use */
    const size_t k = boost_outputs(b);
    if (rounds == 0 || rounds > b->n_members) rounds = b->n_members;
    const size_t F = d->schema->n_features ? d->schema->n_features : 1;
    const size_t R = gv_pack_block_rows(F);
    const int r2 = b->variant == BV_R2;
    /* a sparse dataset is not copied row-major: its rows would be as wide as its largest index */
    const gv_tree_pack *pk = d->values && k <= STACK_K ? gv_pack_cache_get(&b->pack, b->members, b->n_members) : NULL;
    float *xs = pk && gv_tree_pack_n(pk) == b->n_members ? gv_malloc_array(R * F, sizeof *xs) : NULL;
    /* scores [R * K], or r2's (value, alpha) lists [R * rounds] */
    double *s = xs && !r2 ? gv_malloc_array(R * k, sizeof *s) : NULL;
    gv_wv *a = xs && r2 ? gv_malloc_array(R * rounds, sizeof *a) : NULL;
    int32_t *leaf = s || a ? gv_malloc_array(R, sizeof *leaf) : NULL;
    if (!leaf) {
        gv_free(a);
        gv_free(s);
        gv_free(xs);
        for (size_t i = begin; i < end; i++) boost_predict_rounds(impl, d, i, rounds, out + (i - begin) * k);
        return;
    }
    double h[STACK_K];
    for (size_t r0 = begin; r0 < end; r0 += R) {
        const size_t B = end - r0 < R ? end - r0 : R;
        const int nan = gv_rows_gather(d, r0, B, xs);
        if (s) memset(s, 0, B * k * sizeof *s);
        for (size_t t = 0; t < rounds; t++) {
            const gv_tree *tree = gv_tree_pack_tree(pk, t);
            if (tree) gv_tree_pack_leaves(pk, t, xs, F, B, d, r0, nan, leaf);
            /* gv_boost_member_output's source: m2's plausibilities, else the tree's leaf values */
            const double *src = b->plaus && b->plaus[t] ? b->plaus[t] : tree ? tree->values : NULL;
            for (size_t r = 0; r < B; r++) {
                const double *hr = h;
                if (src)
                    hr = src + (size_t)leaf[r] * k;
                else
                    gv_boost_member_output(b, t, d, r0 + r, h);
                if (r2) {
                    a[r * rounds + t].v = hr[0];
                    a[r * rounds + t].w = b->alpha[t];
                } else {
                    gv_boost_add_score(b, t, hr, s + r * k);
                }
            }
        }
        for (size_t r = 0; r < B; r++) {
            double *o = out + (r0 - begin + r) * k;
            if (r2)
                o[0] = gv_weighted_median(a + r * rounds, rounds);
            else
                scores_to_proba(b, s + r * k, rounds, o);
        }
    }
    gv_free(leaf);
    gv_free(a);
    gv_free(s);
    gv_free(xs);
}

static size_t boost_n_rounds(const void *impl) { return ((const gv_boost *)impl)->n_members; }

/* ---------------------------------------------------------------------------------------------
 * Margins and the log
 * ------------------------------------------------------------------------------------------ */

static grove_status margins_stages(const gv_boost *b, const grove_dataset *d,
                                   const size_t *rounds, size_t n_stages, int n_threads,
                                   double *out)
{
    if (b->variant == BV_SAMME_R || b->variant == BV_R2)
        return gv_err(GROVE_ERR_ARG, "margins are defined for voting ensembles (adaboost, "
                                     "adaboost.m1, samme, adaboost.m2, bagging, forest, "
                                     "extra-trees, voting), not %s",
                      variant_names[b->variant]);
    if (!d->labels) return gv_err(GROVE_ERR_DATA, "%s: margins need labels", d->source);
    for (size_t r = 0; r < n_stages; r++)
        if (rounds[r] < 1 || rounds[r] > b->n_members || (r > 0 && rounds[r] <= rounds[r - 1]))
            return gv_err(GROVE_ERR_ARG, "margins: rounds must increase within [1, %zu]",
                          b->n_members);
    const size_t k = (size_t)b->n_classes;
    const long n = (long)d->n_rows;
    int failed = 0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(n_threads > 0 ? n_threads : 1) schedule(static) reduction(|| : failed)
#else
    (void)n_threads;
#endif
    for (long i = 0; i < n; i++) {
        double *h = gv_malloc_array(2 * k, sizeof *h);
        if (!h) {
            failed = 1;
            continue;
        }
        double *s = h + k;
        memset(s, 0, k * sizeof *s);
        size_t y = (size_t)d->labels[i], stage = 0;
        for (size_t t = 0; t < b->n_members && stage < n_stages; t++) {
            gv_boost_member_output(b, t, d, (size_t)i, h);
            gv_boost_add_score(b, t, h, s);
            if (t + 1 != rounds[stage]) continue;
            double other = -INFINITY, z = gv_boost_alpha_sum(b, t + 1);
            for (size_t cl = 0; cl < k; cl++)
                if (cl != y && s[cl] > other) other = s[cl];
            out[stage * (size_t)n + (size_t)i] = z > 0 ? (s[y] - other) / z : 0;
            stage++;
        }
        gv_free(h);
    }
    return failed ? gv_err_nomem("margins") : GROVE_OK;
}

grove_status gv_boost_margins_rounds(const gv_component *c, const grove_dataset *d,
                                     const size_t *rounds, size_t n_stages, int n_threads,
                                     double *out)
{
    if (c->vt != &gv_boost_component)
        return gv_err(GROVE_ERR_ARG, "gv_boost_margins_rounds: the model is a %s, not boost",
                      c->vt->kind);
    return margins_stages(c->impl, d, rounds, n_stages, n_threads, out);
}

/* The margins slot: after all the rounds. */
static grove_status boost_margins(const void *impl, const grove_dataset *d, int n_threads,
                                  double *out)
{
    const gv_boost *b = impl;
    return margins_stages(b, d, &b->n_members, 1, n_threads, out);
}

/* The log_csv slot: t, epsilon, gamma = 1/2 - epsilon, alpha, Z, the training error, prod Z and
 * the bound exp(-2 sum gamma^2) (Freund & Schapire 1997, thm. 6)[, the validation error]. */
static grove_status boost_log_csv(const void *impl, gv_buf *buf)
{
    const gv_boost *b = impl;
    int bad = gv_buf_printf(buf, "t,epsilon,gamma,alpha,Z,train_error,prod_Z,bound%s\n",
                            b->log_valid ? ",valid_error" : "");
    double prod_z = 1, sum_g2 = 0;
    char v[8][32];
    for (size_t t = 0; t < b->n_members && !bad; t++) {
        double eps = b->log_eps[t], gamma = 0.5 - eps;
        prod_z *= b->log_z[t];
        sum_g2 += gamma * gamma;
        gv_format_double(eps, v[0]);
        gv_format_double(gamma, v[1]);
        gv_format_double(b->alpha[t], v[2]);
        gv_format_double(b->log_z[t], v[3]);
        gv_format_double(b->log_train[t], v[4]);
        gv_format_double(prod_z, v[5]);
        gv_format_double(exp(-2 * sum_g2), v[6]);
        bad |= gv_buf_printf(buf, "%zu,%s,%s,%s,%s,%s,%s,%s", t + 1, v[0], v[1], v[2], v[3],
                             v[4], v[5], v[6]);
        if (b->log_valid) {
            gv_format_double(b->log_valid[t], v[7]);
            bad |= gv_buf_printf(buf, ",%s", v[7]);
        }
        bad |= gv_buf_printf(buf, "\n");
    }
    return bad ? gv_err_nomem("the training log") : GROVE_OK;
}

/* ---------------------------------------------------------------------------------------------
 * The component: JSON, validation, summary
 * ------------------------------------------------------------------------------------------ */

static json_t *boost_to_json(const void *impl)
{
    const gv_boost *b = impl;
    json_t *o = json_object(), *members = json_array(), *plaus = NULL;
    int bad = !o || !members;
    for (size_t t = 0; !bad && t < b->n_members; t++) {
        json_t *m = gv_component_to_json(&b->members[t]);
        bad |= !m || json_array_append_new(members, m) != 0;
    }
    if (b->plaus) {
        plaus = json_array();
        bad |= !plaus;
        for (size_t t = 0; !bad && t < b->n_members; t++) {
            json_t *p = json_null();
            if (b->plaus[t]) {
                const gv_tree *tree = b->members[t].impl;
                p = gv_json_real_array(b->plaus[t], tree->n_nodes * (size_t)b->n_classes);
            }
            bad |= json_array_append_new(plaus, p) != 0;
        }
    }
    json_t *log = json_object();
    bad |= !log;
    if (!bad) {
        bad |= json_object_set_new(log, "epsilon", gv_json_real_array(b->log_eps, b->n_members)) != 0;
        bad |= json_object_set_new(log, "Z", gv_json_real_array(b->log_z, b->n_members)) != 0;
        bad |= json_object_set_new(log, "train_error", gv_json_real_array(b->log_train, b->n_members)) != 0;
        bad |= json_object_set_new(log, "valid_error", b->log_valid ? gv_json_real_array(b->log_valid, b->n_members) : json_null()) != 0;
    }
    if (!bad) {
        bad |= json_object_set_new(o, "variant", json_string(variant_names[b->variant])) != 0;
        bad |= json_object_set_new(o, "n_classes", json_integer(b->n_classes)) != 0;
        bad |= json_object_set_new(o, "alpha", gv_json_real_array(b->alpha, b->n_members)) != 0;
        bad |= json_object_set_new(o, "members", members) != 0;
        members = NULL;
        if (plaus) {
            bad |= json_object_set_new(o, "plausibilities", plaus) != 0;
            plaus = NULL;
        }
        bad |= json_object_set_new(o, "log", log) != 0;
        log = NULL;
        bad |= json_object_set_new(o, "stop", json_string(b->stop)) != 0;
    }
    json_decref(members);
    json_decref(plaus);
    json_decref(log);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static grove_status boost_validate(const void *impl, const grove_schema *schema);

static grove_status boost_from_json(const json_t *obj, const gv_model_ctx *ctx, void **out)
{
    *out = NULL;
    static const char *const known[] = {"kind",  "variant", "n_classes", "alpha", "members",
                                        "plausibilities", "log", "stop"};
    static const char *const log_fields[] = {"epsilon", "Z", "train_error", "valid_error"};
    const char *vname;
    grove_status st = gv_json_check_fields(obj, known, GV_COUNT(known), "a boosting model");
    if (st == GROVE_OK) st = gv_json_get_string(obj, "variant", &vname);
    if (st != GROVE_OK) return st;
    int variant = -1;
    for (int v = 0; v < BV_COUNT; v++)
        if (!strcmp(variant_names[v], vname)) variant = v;
    if (variant < 0) return gv_err(GROVE_ERR_MODEL, "variant: unknown '%s'", vname);
    int64_t K;
    st = gv_json_get_int(obj, "n_classes", 0, 1 << 20, &K);
    if (st != GROVE_OK) return st;
    if ((variant == BV_R2) != (K == 0) || K == 1)
        return gv_err(GROVE_ERR_MODEL, "n_classes: %lld does not fit variant %s", (long long)K,
                      vname);
    const json_t *members = json_object_get(obj, "members");
    if (!json_is_array(members) || json_array_size(members) == 0)
        return gv_err(GROVE_ERR_MODEL, "members: expected a non-empty array");
    size_t n = json_array_size(members);
    const json_t *log = json_object_get(obj, "log");
    if (!json_is_object(log)) return gv_err(GROVE_ERR_MODEL, "log: expected an object");
    if ((st = gv_json_check_fields(log, log_fields, GV_COUNT(log_fields), "log")) != GROVE_OK)
        return st;
    if (variant == BV_ADABOOST && K != 2)
        return gv_err(GROVE_ERR_MODEL, "n_classes: adaboost has two classes, got %lld",
                      (long long)K);
    int with_valid = !json_is_null(json_object_get(log, "valid_error"));
    gv_boost *b = gv_boost_new(variant, (int)K, n, with_valid);
    if (!b) return gv_err_nomem("a boosting model");
    const char *stop;
    if ((st = gv_json_get_reals(obj, "alpha", n, b->alpha)) != GROVE_OK ||
        (st = gv_json_get_string(obj, "stop", &stop)) != GROVE_OK)
        goto fail;
    if ((st = gv_json_get_reals(log, "epsilon", n, b->log_eps)) != GROVE_OK ||
        (st = gv_json_get_reals(log, "Z", n, b->log_z)) != GROVE_OK ||
        (st = gv_json_get_reals(log, "train_error", n, b->log_train)) != GROVE_OK ||
        (with_valid && (st = gv_json_get_reals(log, "valid_error", n, b->log_valid)) != GROVE_OK)) {
        gv_err_prefix("log");
        goto fail;
    }
    gv_free(b->stop);
    b->stop = gv_strdup(stop);
    if (!b->stop) {
        st = gv_err_nomem("a boosting model");
        goto fail;
    }
    for (size_t t = 0; t < n; t++) {
        if (b->alpha[t] < 0) {
            st = gv_err(GROVE_ERR_MODEL, "alpha[%zu]: must be >= 0", t);
            goto fail;
        }
        st = gv_component_from_json(json_array_get(members, t), ctx, &b->members[t]);
        if (st != GROVE_OK) {
            gv_err_prefix("members[%zu]", t);
            goto fail;
        }
        b->n_members = t + 1;
    }
    const json_t *plaus = json_object_get(obj, "plausibilities");
    if (variant == BV_M2) {
        if (!json_is_array(plaus) || json_array_size(plaus) != n) {
            st = gv_err(GROVE_ERR_MODEL, "plausibilities: expected an array of %zu entries", n);
            goto fail;
        }
        for (size_t t = 0; t < n; t++) {
            const json_t *p = json_array_get(plaus, t);
            if (json_is_null(p)) continue;
            if (b->members[t].vt != &gv_tree_component) {
                st = gv_err(GROVE_ERR_MODEL, "plausibilities[%zu]: only tree members have them", t);
                goto fail;
            }
            size_t len = ((const gv_tree *)b->members[t].impl)->n_nodes * (size_t)K;
            b->plaus[t] = gv_malloc_array(len, sizeof(double));
            if (!b->plaus[t]) {
                st = gv_err_nomem("plausibilities");
                goto fail;
            }
            json_t *wrap = json_pack("{s:O}", "p", p);
            st = wrap ? gv_json_get_reals(wrap, "p", len, b->plaus[t]) : gv_err_nomem("JSON");
            json_decref(wrap);
            if (st != GROVE_OK) {
                gv_err_prefix("plausibilities[%zu]", t);
                goto fail;
            }
        }
    } else if (plaus) {
        st = gv_err(GROVE_ERR_MODEL, "plausibilities: only adaboost.m2 has them");
        goto fail;
    }
    if ((st = boost_validate(b, ctx->schema)) != GROVE_OK) goto fail;
    *out = b;
    return GROVE_OK;
fail:
    gv_boost_free(b);
    return st;
}

static grove_status boost_validate(const void *impl, const grove_schema *schema)
{
    const gv_boost *b = impl;
    double alpha_sum = 0;
    for (size_t t = 0; t < b->n_members; t++) {
        if (!isfinite(b->alpha[t]) || b->alpha[t] < 0)
            return gv_err(GROVE_ERR_MODEL, "alpha[%zu]: must be finite and >= 0", t);
        /* the scores sum alpha_t h_t, m2 divides by sum_t alpha_t and r2's weighted median
         * halves it: sum_t alpha_t must be finite */
        if (!isfinite(alpha_sum += b->alpha[t]))
            return gv_err(GROVE_ERR_MODEL, "alpha[%zu]: the sum of alpha up to this member is "
                          "not finite", t);
        const gv_component *c = &b->members[t];
        if (c->vt->validate) {
            grove_status st = c->vt->validate(c->impl, schema);
            if (st != GROVE_OK) {
                gv_err_prefix("members[%zu]", t);
                return st;
            }
        }
        if (b->plaus && b->plaus[t]) {
            size_t len = ((const gv_tree *)c->impl)->n_nodes * (size_t)b->n_classes;
            for (size_t j = 0; j < len; j++)
                if (!(b->plaus[t][j] >= 0 && b->plaus[t][j] <= 1))
                    return gv_err(GROVE_ERR_MODEL, "plausibilities[%zu][%zu]: must be in [0, 1]",
                                  t, j);
        }
    }
    return GROVE_OK;
}

static grove_status boost_check(const void *impl, const gv_model_ctx *ctx, size_t n_outputs)
{
    const gv_boost *b = impl;
    /* at the root, the variant is the model's algorithm */
    if (ctx->root == impl && strcmp(ctx->algo, variant_names[b->variant]) != 0)
        return gv_err(GROVE_ERR_MODEL, "model: variant '%s' differs from algo '%s'",
                      variant_names[b->variant], ctx->algo);
    if (boost_outputs(b) != n_outputs)
        return gv_err(GROVE_ERR_MODEL, "model: a boosting component has %zu outputs, %zu expected",
                      boost_outputs(b), n_outputs);
    return gv_components_check(b->members, b->n_members, ctx, n_outputs, "members");
}

static json_t *boost_summary(const void *impl)
{
    const gv_boost *b = impl;
    json_t *o = json_pack("{s:s, s:s, s:I, s:s}", "kind", "boost", "variant",
                          variant_names[b->variant], "rounds", (json_int_t)b->n_members, "stop",
                          b->stop);
    if (o && b->n_members) {
        json_t *first = gv_component_summary(&b->members[0]);
        if (first) json_object_set_new(o, "first_member", first);
        json_object_set_new(o, "final_train_error", json_real(b->log_train[b->n_members - 1]));
        if (b->log_valid)
            json_object_set_new(o, "final_valid_error", json_real(b->log_valid[b->n_members - 1]));
    }
    return o;
}

/* The importance slot: impurity importances weighted by the rounds' |alpha| (scikit-learn's
 * AdaBoost feature_importances_): sum_t |alpha_t| I_t(f) / sum_t |alpha_t|, I_t a member's own
 * normalized impurity importances (a tree, or a forest or bagging of trees).  GROVE_ERR_ARG
 * naming the round whose member has none. */
static int boost_importance(const void *impl, const char *type, size_t n_features, double *out,
                            grove_status *st)
{
    const gv_boost *b = impl;
    if (strcmp(type, "impurity")) return 0;
    double *per = gv_malloc_array(n_features ? n_features : 1, sizeof *per);
    if (!per) {
        *st = gv_err_nomem("importances");
        return 1;
    }
    memset(out, 0, n_features * sizeof *out);
    double total = 0;
    *st = GROVE_OK;
    for (size_t t = 0; t < b->n_members && *st == GROVE_OK; t++) {
        if ((*st = gv_component_importance(&b->members[t], type, n_features, per)) != GROVE_OK) {
            gv_err_prefix("round %zu: ", t + 1);
            break;
        }
        const double a = fabs(b->alpha[t]);
        for (size_t f = 0; f < n_features; f++) out[f] += a * per[f];
        total += a;
    }
    if (*st == GROVE_OK && total > 0)
        for (size_t f = 0; f < n_features; f++) out[f] /= total;
    gv_free(per);
    return 1;
}

/* ---------------------------------------------------------------------------------------------
 * C export (learner.h's export_c slot, core/cgen.h): the members' functions (adaboost.m2's tree
 * members as their trees and per-leaf plausibilities), then the scores and the softmax of
 * boost_predict_row, operation for operation.
 * ------------------------------------------------------------------------------------------ */

static grove_status boost_export_c(const void *impl, gv_cgen *g, size_t *id)
{
    const gv_boost *v = impl;
    const char *variant = variant_names[v->variant];
    const size_t T = v->n_members, K = v->n_classes ? (size_t)v->n_classes : 1;
    size_t *ids = gv_malloc_array(T ? T : 1, sizeof *ids);
    gv_cgen_tree_ref *plaus_tree = gv_calloc(T ? T : 1, sizeof *plaus_tree);
    if (!ids || !plaus_tree) {
        gv_free(ids);
        gv_free(plaus_tree);
        return gv_err_nomem("export");
    }
    grove_status st = GROVE_OK;
    char lit[GV_CGEN_LIT], buf[96];
    const int m2 = v->variant == BV_M2;
    /* adaboost.m2 tree members answer with per-leaf plausibilities instead of their values */
    for (size_t t = 0; t < T && st == GROVE_OK; t++) {
        if (m2 && v->plaus && v->plaus[t]) {
            const gv_tree *tr = v->members[t].impl;
            gv_cgen_tree(g, tr, &plaus_tree[t]);
            ids[t] = SIZE_MAX;
            gv_cgen_out(&g->body, g, "static const double tree%zu_plaus[%zu] = {", plaus_tree[t].id,
                        tr->n_nodes * K);
            gv_cgen_dlist(&g->body, g, v->plaus[t], tr->n_nodes * K);
            gv_cgen_out(&g->body, g, "};\n");
        } else {
            st = gv_cgen_component(g, &v->members[t], &ids[t]);
        }
    }
    if (st != GROVE_OK) goto done;
    char what[96];
    snprintf(what, sizeof what, "%s, %zu members", variant, T);
    *id = gv_cgen_open_function(g, what);
    gv_buf *b = &g->body;
    if (v->variant == BV_R2) {
        /* the weighted median of the members' values with weights alpha_t, as
         * boost_predict_row's gv_weighted_median */
        gv_cgen_out(b, g, "    wv a[%zu];\n", T);
        for (size_t t = 0; t < T; t++) {
            gv_cgen_dlit(v->alpha[t], lit);
            gv_cgen_out(b, g, "    c%zu(x, &a[%zu].v); a[%zu].w = %s;\n", ids[t], t, t, lit);
        }
        gv_cgen_out(b, g, "    out[0] = weighted_median(a, %zu);\n}\n", T);
        goto done;
    }
    gv_cgen_out(b, g, "    double h[%zu], s[%zu];\n    size_t c;\n", K, K);
    gv_cgen_out(b, g, "    for (c = 0; c < %zu; c++) s[c] = 0;\n", K);
    for (size_t t = 0; t < T; t++) {
        gv_cgen_dlit(v->alpha[t], lit);
        if (ids[t] == SIZE_MAX) {
            gv_cgen_tree_leaf(g, &plaus_tree[t], buf, sizeof buf);
            gv_cgen_out(b, g,
                        "    { const double *p = tree%zu_plaus + %zu * (size_t)%s;\n"
                        "      for (c = 0; c < %zu; c++) h[c] = p[c]; }\n",
                        plaus_tree[t].id, K, buf, K);
        } else {
            gv_cgen_out(b, g, "    c%zu(x, h);\n", ids[t]);
        }
        if (m2)
            gv_cgen_out(b, g, "    for (c = 0; c < %zu; c++) s[c] += %s * h[c];\n", K, lit);
        else if (v->variant == BV_SAMME_R)
            gv_cgen_out(b, g, "    samme_r_add(h, %zu, %s, s);\n", K, lit);
        else
            gv_cgen_out(b, g, "    s[argmax(h, %zu)] += %s;\n", K, lit);
    }
    /* the softmax scale of the variant (scores_to_proba), computed alike */
    double kk = (double)K, scale = 1;
    if (v->variant == BV_ADABOOST) {
        scale = 2;
    } else if (v->variant == BV_M1 || v->variant == BV_SAMME) {
        scale = kk / ((kk - 1) * (kk - 1));
    } else if (v->variant == BV_SAMME_R) {
        scale = 1 / (kk - 1);
    } else if (m2) {
        double z = 0;
        for (size_t t = 0; t < T; t++) z += fabs(v->alpha[t]);
        scale = z > 0 ? 1 / z : 1;
    }
    gv_cgen_dlit(scale, lit);
    gv_cgen_out(b, g, "    softmax_scaled(s, %zu, %s, out);\n}\n", K, lit);
done:
    gv_free(ids);
    gv_free(plaus_tree);
    return st;
}

const gv_component_vt gv_boost_component = {
    .kind = "boost",
    .predict_row = boost_predict_row,
    .to_json = boost_to_json,
    .from_json = boost_from_json,
    .free = gv_boost_free,
    .validate = boost_validate,
    .check = boost_check,
    .summary = boost_summary,
    .n_rounds = boost_n_rounds,
    .predict_row_rounds = boost_predict_rounds,
    .log_csv = boost_log_csv,
    .margins = boost_margins,
    .predict_block = boost_predict_block,
    .importance = boost_importance,
    .export_c = boost_export_c,
};

int gv_boost_view_of(const gv_component *c, gv_boost_view *v)
{
    if (!c || c->vt != &gv_boost_component) return 0;
    const gv_boost *b = c->impl;
    v->variant = variant_names[b->variant];
    v->n_classes = b->n_classes;
    v->n_members = b->n_members;
    v->members = b->members;
    v->alpha = b->alpha;
    v->plaus = (const double *const *)b->plaus;
    v->log_eps = b->log_eps;
    v->log_z = b->log_z;
    v->log_train = b->log_train;
    v->log_valid = b->log_valid;
    return 1;
}
