/*
 * voting.c -- weighted voting ("voting", component kind "voting") over a list of any base
 * learners (the list and the parallel fits: members.c).
 *
 * Pipeline position: ensemble/, written against the base-learner interface (learn/learner.h).
 *
 * Every learner is fitted on all rows with (seed, GV_STREAM_VOTING, l); prediction is
 * the weighted plurality of the members' labels (voting.mode=hard; ties to the lowest class;
 * the output "probabilities" are the normalized vote shares) or the weighted mean of their class
 * probabilities (soft), or of their values (regression).
 *
 * File form (docs/model-format.md): n_classes, learners, soft (0/1), weights, members.
 * C export (export_c, core/cgen.h): the members, then the weighted vote.
 */
#include "members.h"

#include "../core/params.h"
#include "../core/json.h"
#include "../core/mathx.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct gv_voting {
    int n_classes;         /* K >= 2, or 0 */
    int soft;
    size_t n_learners;
    char **names;          /* owned */
    gv_component *members; /* owned */
    double *weights;       /* [n_learners], >= 0, sum > 0, owned */
} gv_voting;

static void voting_free(void *impl)
{
    gv_voting *v = impl;
    if (!v) return;
    if (v->members)
        for (size_t l = 0; l < v->n_learners; l++) gv_component_free(&v->members[l]);
    gv_free(v->members);
    gv_names_free(v->names, v->n_learners);
    gv_free(v->weights);
    gv_free(v);
}

/* The weights of voting.weights ("" = all 1) for L learners. */
static grove_status parse_weights(const char *text, size_t L, double *w)
{
    if (!*text) {
        for (size_t l = 0; l < L; l++) w[l] = 1;
        return GROVE_OK;
    }
    size_t k = 0;
    double sum = 0;
    const char *s = text;
    for (;;) {
        const char *e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        while (len && (*s == ' ' || *s == '\t')) s++, len--;
        while (len && (s[len - 1] == ' ' || s[len - 1] == '\t')) len--;
        double x;
        if (k == L)
            return gv_err(GROVE_ERR_PARAM, "voting.weights: more weights than the %zu learners",
                          L);
        if (gv_parse_double(s, len, &x) != 0 || !(x >= 0) || !isfinite(x))
            return gv_err(GROVE_ERR_PARAM,
                          "voting.weights: weight %zu must be a finite number >= 0 in '%s'",
                          k + 1, text);
        w[k++] = x;
        sum += x;
        if (!e) break;
        s = e + 1;
    }
    if (k != L)
        return gv_err(GROVE_ERR_PARAM, "voting.weights: %zu weights for %zu learners", k, L);
    if (!(sum > 0)) return gv_err(GROVE_ERR_PARAM, "voting.weights: all weights are 0");
    return GROVE_OK;
}

grove_status gv_fit_voting(const gv_fit_input *in, gv_rng *rng, gv_component *out)
{
    (void)rng; /* member l has its own stream (seed, GV_STREAM_VOTING, l) */
    out->vt = NULL;
    out->impl = NULL;
    const grove_params *p = in->params;
    grove_params *bp = NULL;
    gv_fit_task *tasks = NULL;
    grove_status st;
    gv_voting *v = gv_calloc(1, sizeof *v);
    if (!v) return gv_err_nomem("a voting model");
    v->n_classes = in->n_classes >= 2 ? in->n_classes : 0;
    v->soft = gv_param_int(p, GV_P_VOTING_MODE) == 1;
    if ((st = gv_learners_param(p, GV_P_VOTING_LEARNERS, v->n_classes != 0, &v->names,
                             &v->n_learners)) != GROVE_OK)
        goto done;
    size_t L = v->n_learners;
    v->weights = gv_malloc_array(L, sizeof *v->weights);
    v->members = gv_calloc(L, sizeof *v->members);
    tasks = gv_calloc(L, sizeof *tasks);
    if (!v->weights || !v->members || !tasks) {
        st = gv_err_nomem("a voting model");
        goto done;
    }
    if ((st = parse_weights(gv_param_str(p, GV_P_VOTING_WEIGHTS), L, v->weights)) != GROVE_OK)
        goto done;
    if ((st = gv_base_params_new(p, &bp)) != GROVE_OK) goto done;
    for (size_t l = 0; l < L; l++) {
        tasks[l].learner = gv_learner_find(v->names[l]);
        tasks[l].in = *in;
        tasks[l].in.params = bp;
        tasks[l].in.valid = NULL;
        tasks[l].in.pred = NULL;
        tasks[l].stream = l;
    }
    st = gv_fit_tasks_run(tasks, L, in->n_threads, (uint64_t)gv_param_int(p, GV_P_SEED),
                   GV_STREAM_VOTING, (const char *const *)v->names, 1);
    for (size_t l = 0; l < L; l++) v->members[l] = tasks[l].comp;
    if (st != GROVE_OK) goto done;
    out->vt = &gv_voting_component;
    out->impl = v;
    v = NULL;
done:
    gv_free(tasks);
    voting_free(v);
    grove_params_free(bp);
    return st;
}

static void voting_predict_row(const void *impl, const grove_dataset *d, size_t i, double *out)
{
    const gv_voting *v = impl;
    size_t K = v->n_classes ? (size_t)v->n_classes : 1;
    double pbuf[GV_STACK_BUF];
    double *p = K <= GV_STACK_BUF ? pbuf : gv_malloc_array(K, sizeof *p);
    for (size_t k = 0; k < K; k++) out[k] = 0;
    if (!p) {
        for (size_t k = 0; k < K; k++) out[k] = v->n_classes ? 1.0 / (double)K : NAN;
        return;
    }
    double wsum = 0;
    for (size_t l = 0; l < v->n_learners; l++) {
        double w = v->weights[l];
        v->members[l].vt->predict_row(v->members[l].impl, d, i, p);
        wsum += w;
        if (!v->n_classes)
            out[0] += w * p[0];
        else if (v->soft)
            for (size_t k = 0; k < K; k++) out[k] += w * p[k];
        else
            out[gv_argmax(p, K)] += w;
    }
    for (size_t k = 0; k < K; k++) out[k] /= wsum;
    if (!v->n_classes && !isfinite(out[0])) {
        /* the weighted sum overflowed (members near the largest double): the same mean as a
         * sum of fractions w / wsum <= 1 of finite values, which stays finite */
        double s = 0;
        for (size_t l = 0; l < v->n_learners; l++) {
            v->members[l].vt->predict_row(v->members[l].impl, d, i, p);
            s += v->weights[l] / wsum * p[0];
        }
        out[0] = gv_clamp_finite(s);
    }
    if (p != pbuf) gv_free(p);
}

static json_t *voting_to_json(const void *impl)
{
    const gv_voting *v = impl;
    json_t *obj = json_object();
    if (!obj) return NULL;
    int bad = json_object_set_new(obj, "n_classes", json_integer(v->n_classes));
    bad |= json_object_set_new(obj, "learners", gv_json_string_array(v->names, v->n_learners));
    bad |= json_object_set_new(obj, "soft", json_integer(v->soft));
    bad |= json_object_set_new(obj, "weights", gv_json_real_array(v->weights, v->n_learners));
    bad |= json_object_set_new(obj, "members", gv_members_json(v->members, v->n_learners));
    if (bad) {
        json_decref(obj);
        return NULL;
    }
    return obj;
}

static grove_status voting_validate(const void *impl, const grove_schema *schema)
{
    const gv_voting *v = impl;
    if ((schema->task == GROVE_CLASSIFICATION) != (v->n_classes >= 2) ||
        (v->n_classes && (size_t)v->n_classes != schema->classes.n))
        return gv_err(GROVE_ERR_MODEL, "n_classes: %d does not fit the schema", v->n_classes);
    double sum = 0;
    for (size_t l = 0; l < v->n_learners; l++) {
        if (!(v->weights[l] >= 0) || !isfinite(v->weights[l]))
            return gv_err(GROVE_ERR_MODEL, "weights[%zu]: must be finite and >= 0", l);
        sum += v->weights[l];
    }
    if (!(sum > 0) || !isfinite(sum))
        return gv_err(GROVE_ERR_MODEL, "weights: must have a positive finite sum");
    for (size_t l = 0; l < v->n_learners; l++) {
        grove_status st;
        if (v->members[l].vt->validate &&
            (st = v->members[l].vt->validate(v->members[l].impl, schema)) != GROVE_OK) {
            gv_err_prefix("members[%zu]", l);
            return st;
        }
    }
    return GROVE_OK;
}

static grove_status voting_from_json(const json_t *obj, const gv_model_ctx *ctx, void **out)
{
    static const char *const fields[] = {"kind", "n_classes", "learners", "soft", "weights",
                                         "members"};
    *out = NULL;
    grove_status st = gv_json_check_fields(obj, fields, GV_COUNT(fields), "a voting model");
    if (st != GROVE_OK) return st;
    gv_voting *v = gv_calloc(1, sizeof *v);
    if (!v) return gv_err_nomem("a voting model");
    int64_t nc, soft;
    const json_t *a;
    if ((st = gv_json_get_int(obj, "n_classes", 0, 65536, &nc)) != GROVE_OK ||
        (st = gv_json_get_int(obj, "soft", 0, 1, &soft)) != GROVE_OK)
        goto fail;
    if (nc == 1) {
        st = gv_err(GROVE_ERR_MODEL, "n_classes: must be 0 or >= 2");
        goto fail;
    }
    v->n_classes = (int)nc;
    v->soft = (int)soft;
    if ((st = gv_members_read(obj, ctx, &v->names, &v->members, &v->n_learners)) != GROVE_OK)
        goto fail;
    if (!(v->weights = gv_malloc_array(v->n_learners, sizeof *v->weights))) {
        st = gv_err_nomem("a voting model");
        goto fail;
    }
    if ((st = gv_json_get_array(obj, "weights", v->n_learners, &a)) != GROVE_OK) goto fail;
    for (size_t l = 0; l < v->n_learners; l++)
        v->weights[l] = json_number_value(json_array_get(a, l));
    if ((st = voting_validate(v, ctx->schema)) != GROVE_OK) goto fail;
    *out = v;
    return GROVE_OK;
fail:
    voting_free(v);
    return st;
}

static grove_status voting_check(const void *impl, const gv_model_ctx *ctx, size_t n_outputs)
{
    const gv_voting *v = impl;
    return gv_components_check(v->members, v->n_learners, ctx, n_outputs, "members");
}

static json_t *voting_summary(const void *impl)
{
    const gv_voting *v = impl;
    json_t *obj = json_pack("{s:s, s:s}", "kind", "voting", "mode", v->soft ? "soft" : "hard");
    json_t *ms = json_array();
    int bad = !obj || !ms;
    for (size_t l = 0; l < v->n_learners && !bad; l++)
        bad |= json_array_append_new(ms, gv_component_summary(&v->members[l]));
    if (!bad) {
        bad |= json_object_set_new(obj, "members", ms);
        ms = NULL;
    }
    if (!bad) bad |= json_object_set_new(obj, "weights", gv_json_real_array(v->weights, v->n_learners));
    if (bad) {
        json_decref(obj);
        json_decref(ms);
        return NULL;
    }
    return obj;
}

/* The margins slot: p_y - max_{k != y} p_k over the weighted vote (common.c). */
static grove_status voting_margins(const void *impl, const grove_dataset *d, int n_threads,
                                   double *out)
{
    const gv_voting *v = impl;
    const gv_component self = {&gv_voting_component, (void *)impl};
    return gv_margins_averaged(&self, (size_t)v->n_classes, "voting", d, n_threads, out);
}

/* C export (learner.h's export_c slot, core/cgen.h): the members, then voting_predict_row's
 * weighted vote (regression, soft: the weighted outputs; hard: the weight at the argmax) over the
 * summed weights. */
static grove_status voting_export_c(const void *impl, gv_cgen *g, size_t *id)
{
    const gv_voting *v = impl;
    const size_t L = v->n_learners, K = v->n_classes ? (size_t)v->n_classes : 1;
    size_t *ids = gv_malloc_array(L ? L : 1, sizeof *ids);
    if (!ids) return gv_err_nomem("export");
    grove_status st = gv_cgen_members(g, v->members, L, ids);
    if (st == GROVE_OK) {
        *id = gv_cgen_open_function(g, v->soft ? "voting (soft)" : "voting");
        gv_buf *b = &g->body;
        char lit[GV_CGEN_LIT];
        gv_cgen_out(b, g, "    double h[%zu], wsum = 0;\n    size_t c;\n", K);
        gv_cgen_out(b, g, "    for (c = 0; c < %zu; c++) out[c] = 0;\n", K);
        for (size_t l = 0; l < L; l++) {
            gv_cgen_dlit(v->weights[l], lit);
            gv_cgen_out(b, g, "    c%zu(x, h); wsum += %s;\n", ids[l], lit);
            if (!v->n_classes)
                gv_cgen_out(b, g, "    out[0] += %s * h[0];\n", lit);
            else if (v->soft)
                gv_cgen_out(b, g, "    for (c = 0; c < %zu; c++) out[c] += %s * h[c];\n", K, lit);
            else
                gv_cgen_out(b, g, "    out[argmax(h, %zu)] += %s;\n", K, lit);
        }
        gv_cgen_out(b, g, "    for (c = 0; c < %zu; c++) out[c] /= wsum;\n}\n", K);
    }
    gv_free(ids);
    return st;
}

const gv_component_vt gv_voting_component = {
    .kind = "voting",
    .predict_row = voting_predict_row,
    .to_json = voting_to_json,
    .from_json = voting_from_json,
    .free = voting_free,
    .validate = voting_validate,
    .check = voting_check,
    .summary = voting_summary,
    .margins = voting_margins,
    .export_c = voting_export_c,
};

int gv_voting_view_of(const gv_component *c, gv_voting_view *v)
{
    if (!c || c->vt != &gv_voting_component) return 0;
    const gv_voting *vo = c->impl;
    v->n_classes = vo->n_classes;
    v->soft = vo->soft;
    v->n_members = vo->n_learners;
    v->members = vo->members;
    v->weights = vo->weights;
    return 1;
}
