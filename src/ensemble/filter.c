/*
 * filter.c -- boosting by filtering: Schapire's recursive majority of three (Schapire 1990,
 * "The strength of weak learnability", sec. 3).
 *
 * Pipeline position: ensemble/.  The example oracle EX (data/oracle.h, filter.oracle): a draw is
 * a training row chosen at random in proportion to the sample weights ("data"), or such a row
 * deformed as an image ("deform": shifts, rotations, scalings, elastic distortions -- fresh
 * examples that never run out, as Drucker, Schapire & Simard 1993 fed their three networks).
 * Learn(k, EX):
 *   k = 0: the base learner, trained unweighted on boost.sample_size examples drawn from EX
 *          (filter.depth = 0 trains just this one: the single learner the committee is
 *          compared with, on the same oracle);
 *   h1 = Learn(k-1, EX);
 *   EX2: flip a fair coin; heads: draw from EX until h1 is right, tails: until h1 is wrong --
 *        so h1's error under EX2 is exactly 1/2;  h2 = Learn(k-1, EX2);
 *   EX3: draw from EX until h1(x) != h2(x);  h3 = Learn(k-1, EX3);
 *   return the majority vote of h1, h2, h3.
 * If each h_j has error p on its own distribution, the majority has error at most
 * g(p) = 3p^2 - 2p^3 < p under EX (Schapire's lemma); depth k gives 3^k base learners.
 * Each hypothesis's error on its distribution is measured on fresh oracle draws and kept in the
 * model ("errors"), so the lemma can be checked.  A filter that finds no example within
 * filter.budget draws makes training fail (GROVE_ERR_DATA, no model) with a message naming the
 * step: h1 never wrong (it is
 * perfect on its distribution, nothing left to boost), or h1 and h2 never disagreeing (h2 has no
 * edge over h1 on EX2).
 * With the data oracle the base learners train on row views of the training set (no copies);
 * with the deform oracle every base learner gets a new dataset of its m drawn examples, binned
 * with the training set's bin mappers (tree learners read bins), freed after its fit.
 * Bound: every filtered example costs at most filter.budget draws from the oracle below it, so a
 * filter that keeps rejecting ends with GROVE_ERR_DATA, never a hang; at depth k a base
 * learner's example costs at most budget^k draws from EX.
 * Determinism: one stream (seed, GV_STREAM_FILTER, 0) drives the row draws of the data oracle
 * and the coin flips; deformed draw j uses (seed, GV_STREAM_ORACLE, j); base learner t uses
 * (seed, GV_STREAM_FILTER, t); all draws are sequential, so any thread count gives the same model.
 * Prediction: the vote of the three, as the paper's committee: h1 and h2's class when they agree,
 * otherwise h3's (the majority of three, with h3 deciding when all three differ, K > 2).  Class
 * probabilities are the vote fractions (1/3 each), except that three different votes give h3's
 * class 1/2 and the other two 1/4 each, so the argmax is h3's class.  (Until 2026-11 the lowest
 * class index won a three-way tie.)  Classification only.
 * C export (export_c, core/cgen.h): h1, h2, h3, then the majority of three.
 */
#include "ensemble.h"

#include "../bin/bin.h"
#include "../core/params.h"
#include "../core/json.h"
#include "../data/oracle.h"

#include <math.h>
#include <string.h>

typedef struct gv_majority3 {
    int n_classes;
    gv_component child[3]; /* owned: base components or gv_majority3 */
    double error[3];       /* error of child j on its own filtered distribution (measured) */
} gv_majority3;

static void maj_free(void *impl)
{
    gv_majority3 *m = impl;
    if (!m) return;
    for (int j = 0; j < 3; j++) gv_component_free(&m->child[j]);
    gv_free(m);
}

static size_t predict_class(const gv_component *c, const grove_dataset *d, size_t i, size_t k)
{
    double stack[64], *p = k <= 64 ? stack : gv_malloc_array(k, sizeof *p);
    if (!p) return 0;
    c->vt->predict_row(c->impl, d, i, p);
    size_t best = 0;
    for (size_t j = 1; j < k; j++)
        if (p[j] > p[best]) best = j;
    if (p != stack) gv_free(p);
    return best;
}

static void maj_predict_row(const void *impl, const grove_dataset *d, size_t i, double *out)
{
    const gv_majority3 *m = impl;
    const size_t k = (size_t)m->n_classes;
    size_t c[3];
    for (size_t j = 0; j < k; j++) out[j] = 0;
    for (int j = 0; j < 3; j++) c[j] = predict_class(&m->child[j], d, i, k);
    if (c[0] != c[1] && c[0] != c[2] && c[1] != c[2]) {
        /* three different classes: h3 decides (Drucker, Schapire & Simard 1993) */
        out[c[0]] = out[c[1]] = 0.25;
        out[c[2]] = 0.5;
        return;
    }
    for (int j = 0; j < 3; j++) out[c[j]] += 1.0 / 3.0;
}

/* ---- the oracles ---- */

enum { EX_DATA, EX_HALF, EX_DISAGREE };

typedef struct oracle {
    int kind;
    const struct oracle *parent;  /* the oracle filtered (EX_HALF, EX_DISAGREE) */
    const gv_component *h1, *h2;  /* EX_HALF: h1; EX_DISAGREE: h1, h2 */
} oracle;

typedef struct filter_ctx {
    const gv_fit_input *in;
    const gv_learner *base;
    gv_fit_input base_in;
    size_t k;           /* classes */
    size_t m;           /* rows per base learner */
    size_t budget;
    gv_oracle ex;       /* EX: the data or deform oracle */
    grove_dataset *cand; /* deform: the one-row dataset holding the example just drawn; owned */
    gv_rng rng;
    size_t learners;    /* base learners trained so far (names the step in messages) */
    size_t total;       /* 3^depth base learners in all (progress) */
    size_t *rows;       /* scratch [m] (data oracle) */
} filter_ctx;

/* An example: row `row` of dataset `d` (the training set, or f->cand), class y. */
typedef struct example {
    const grove_dataset *d;
    size_t row;
    size_t y;
} example;

/* One draw from oracle o into *e; GROVE_ERR_DATA when the budget runs out.  A deformed example
 * lives in f->cand until the next draw. */
static grove_status draw(filter_ctx *f, const oracle *o, example *e)
{
    if (o->kind == EX_DATA) {
        if (f->ex.kind == GV_ORACLE_DEFORM) {
            double y;
            gv_oracle_draw(&f->ex, f->cand->values, &y, NULL);
            *e = (example){f->cand, 0, (size_t)y};
        } else {
            size_t r = gv_oracle_row(&f->ex, &f->rng);
            *e = (example){f->in->data, r, (size_t)f->in->y[r]};
        }
        return GROVE_OK;
    }
    int want_right = o->kind == EX_HALF ? (int)(gv_rng_next(&f->rng) >> 63) : 0;
    for (size_t tries = 0; tries < f->budget; tries++) {
        example c;
        grove_status st = draw(f, o->parent, &c);
        if (st != GROVE_OK) return st;
        size_t c1 = predict_class(o->h1, c.d, c.row, f->k);
        int pass;
        if (o->kind == EX_HALF)
            pass = (c1 == c.y) == want_right;
        else
            pass = c1 != predict_class(o->h2, c.d, c.row, f->k);
        if (pass) {
            *e = c;
            return GROVE_OK;
        }
    }
    if (o->kind == EX_HALF)
        return gv_err(GROVE_ERR_DATA,
                      "filter-boost: after %zu base learners, the filter for the next one found no "
                      "example that the first hypothesis gets %s in %zu draws (filter.budget): "
                      "it is %s on its distribution, so there is nothing to boost%s",
                      f->learners, want_right ? "right" : "wrong", f->budget,
                      want_right ? "always wrong" : "perfect",
                      f->ex.kind == GV_ORACLE_DATA && !want_right
                          ? " (filter.oracle=deform draws fresh examples from image rows)"
                          : "");
    return gv_err(GROVE_ERR_DATA,
                  "filter-boost: after %zu base learners, the filter for the third one found no "
                  "example where the first two hypotheses disagree in %zu draws (filter.budget): "
                  "the second learner has no edge on its distribution",
                  f->learners, f->budget);
}

/* The error of h on m fresh draws from o. */
static grove_status measure(filter_ctx *f, const oracle *o, const gv_component *h, double *err)
{
    size_t wrong = 0, m = f->m < 2000 ? 2000 : f->m;
    for (size_t j = 0; j < m; j++) {
        example e;
        grove_status st = draw(f, o, &e);
        if (st != GROVE_OK) return st;
        wrong += predict_class(h, e.d, e.row, f->k) != e.y;
    }
    *err = (double)wrong / (double)m;
    return GROVE_OK;
}

static grove_status learn(filter_ctx *f, int depth, const oracle *ex, gv_component *out);

/* Deform oracle: the m examples drawn from ex as a new dataset (and its bins when the training
 * set has bins), for the base learner's input *bi. */
static grove_status draw_dataset(filter_ctx *f, const oracle *ex, grove_dataset **gen,
                                 gv_binned **gb)
{
    const grove_dataset *d = f->in->data;
    const size_t nf = d->schema->n_features;
    grove_schema *schema = gv_schema_copy(d->schema);
    *gen = schema ? gv_dataset_new(schema, f->m, 1) : NULL;
    *gb = NULL;
    if (!*gen) return gv_err_nomem("filter-boost: the drawn examples");
    for (size_t j = 0; j < f->m; j++) {
        example e;
        grove_status st = draw(f, ex, &e);
        if (st != GROVE_OK) return st;
        for (size_t c = 0; c < nf; c++) (*gen)->values[c * f->m + j] = f->cand->values[c];
        (*gen)->labels[j] = (double)e.y;
    }
    if (!f->in->binned) return GROVE_OK;
    return gv_binned_build(*gen, f->in->binned->mappers, f->in->n_threads, gb);
}

static grove_status learn_base(filter_ctx *f, const oracle *ex, gv_component *out)
{
    gv_fit_input bi = f->base_in;
    grove_dataset *gen = NULL;
    gv_binned *gb = NULL;
    grove_status st = GROVE_OK;
    if (f->ex.kind == GV_ORACLE_DEFORM) {
        if ((st = draw_dataset(f, ex, &gen, &gb)) != GROVE_OK) goto done;
        bi.data = gen;
        bi.binned = gb;
        bi.y = gen->labels;
        bi.rows = NULL;
    } else {
        for (size_t j = 0; j < f->m; j++) {
            example e;
            if ((st = draw(f, ex, &e)) != GROVE_OK) goto done;
            f->rows[j] = e.row;
        }
        bi.rows = f->rows;
    }
    bi.n_rows = f->m;
    bi.weight = NULL;
    gv_rng rng;
    gv_rng_seed(&rng, (uint64_t)gv_param_int(f->in->params, GV_P_SEED), GV_STREAM_FILTER,
                1 + f->learners);
    st = f->base->fit(&bi, &rng, out);
    if (st != GROVE_OK) gv_err_prefix("filter-boost: base learner %zu ('%s')", f->learners + 1,
                                      f->base->name);
    f->learners++;
    if (st == GROVE_OK && gv_progress(f->in->params, "learner", f->learners, f->total))
        st = gv_err(GROVE_ERR_ARG, "cancelled");
done:
    gv_binned_free(gb);
    grove_dataset_free(gen);
    return st;
}

static grove_status learn(filter_ctx *f, int depth, const oracle *ex, gv_component *out)
{
    if (depth == 0) return learn_base(f, ex, out);
    gv_majority3 *m = gv_calloc(1, sizeof *m);
    if (!m) return gv_err_nomem("a majority of three");
    m->n_classes = (int)f->k;
    oracle ex2 = {EX_HALF, ex, NULL, NULL}, ex3 = {EX_DISAGREE, ex, NULL, NULL};
    grove_status st = learn(f, depth - 1, ex, &m->child[0]);
    if (st != GROVE_OK) goto fail;
    if ((st = measure(f, ex, &m->child[0], &m->error[0])) != GROVE_OK) goto fail;
    ex2.h1 = &m->child[0];
    if ((st = learn(f, depth - 1, &ex2, &m->child[1])) != GROVE_OK) goto fail;
    if ((st = measure(f, &ex2, &m->child[1], &m->error[1])) != GROVE_OK) goto fail;
    ex3.h1 = &m->child[0];
    ex3.h2 = &m->child[1];
    if ((st = learn(f, depth - 1, &ex3, &m->child[2])) != GROVE_OK) goto fail;
    if ((st = measure(f, &ex3, &m->child[2], &m->error[2])) != GROVE_OK) goto fail;
    out->vt = &gv_majority3_component;
    out->impl = m;
    return GROVE_OK;
fail:
    maj_free(m);
    return st;
}

grove_status gv_fit_filter_boost(const gv_fit_input *in, gv_rng *rng, gv_component *out)
{
    (void)rng;
    if (in->n_classes < 2)
        return gv_err(GROVE_ERR_PARAM, "algo: filter-boost is for classification");
    if (in->rows) return gv_err(GROVE_ERR_INTERNAL, "filter-boost: row views are not supported");
    filter_ctx f;
    memset(&f, 0, sizeof f);
    f.in = in;
    grove_status st = gv_base_learner(in->params, &f.base);
    if (st != GROVE_OK) return st;
    f.base_in = *in;
    f.base_in.params = gv_params_base(in->params);
    f.base_in.valid = NULL;
    f.base_in.pred = NULL; /* the outputs on the rows would be the base learner's */
    f.k = (size_t)in->n_classes;
    size_t n = in->data->n_rows;
    f.m = (size_t)gv_param_int(in->params, GV_P_BOOST_SAMPLE_SIZE);
    if (f.m == 0) f.m = n;
    f.budget = (size_t)gv_param_int(in->params, GV_P_FILTER_BUDGET);
    uint64_t seed = (uint64_t)gv_param_int(in->params, GV_P_SEED);
    gv_rng_seed(&f.rng, seed, GV_STREAM_FILTER, 0);
    st = gv_oracle_init(&f.ex, in->data, in->y, in->weight, in->params, seed);
    if (st != GROVE_OK) {
        gv_err_prefix("filter-boost");
        return st;
    }
    if (f.ex.kind == GV_ORACLE_DEFORM) {
        grove_schema *schema = gv_schema_copy(in->data->schema);
        f.cand = schema ? gv_dataset_new(schema, 1, 1) : NULL;
        if (!f.cand) {
            st = gv_err_nomem("filter-boost");
            goto done;
        }
    } else if (!(f.rows = gv_malloc_array(f.m, sizeof *f.rows))) {
        st = gv_err_nomem("filter-boost");
        goto done;
    }
    oracle ex = {EX_DATA, NULL, NULL, NULL};
    int depth = (int)gv_param_int(in->params, GV_P_FILTER_DEPTH);
    f.total = 1;
    for (int k = 0; k < depth; k++) f.total *= 3;
    st = learn(&f, depth, &ex, out);
done:
    gv_oracle_free(&f.ex);
    grove_dataset_free(f.cand);
    gv_free(f.rows);
    return st;
}

/* ---- the component ---- */

static json_t *maj_to_json(const void *impl)
{
    const gv_majority3 *m = impl;
    json_t *o = json_object(), *children = json_array(), *err = json_array();
    int bad = !o || !children || !err;
    for (int j = 0; !bad && j < 3; j++) {
        json_t *c = gv_component_to_json(&m->child[j]);
        bad |= !c || json_array_append_new(children, c) != 0;
        bad |= json_array_append_new(err, json_real(m->error[j])) != 0;
    }
    if (!bad) {
        bad |= json_object_set_new(o, "n_classes", json_integer(m->n_classes)) != 0;
        bad |= json_object_set_new(o, "children", children) != 0;
        children = NULL;
        bad |= json_object_set_new(o, "errors", err) != 0;
        err = NULL;
    }
    json_decref(children);
    json_decref(err);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static grove_status maj_from_json(const json_t *obj, const gv_model_ctx *ctx, void **out)
{
    *out = NULL;
    static const char *const known[] = {"kind", "n_classes", "children", "errors"};
    int64_t k;
    grove_status st = gv_json_check_fields(obj, known, GV_COUNT(known), "a majority of three");
    if (st == GROVE_OK) st = gv_json_get_int(obj, "n_classes", 2, 1 << 20, &k);
    if (st != GROVE_OK) return st;
    const json_t *children = json_object_get(obj, "children");
    const json_t *errors = json_object_get(obj, "errors");
    if (!json_is_array(children) || json_array_size(children) != 3 || !json_is_array(errors) ||
        json_array_size(errors) != 3)
        return gv_err(GROVE_ERR_MODEL, "majority3: children and errors must be arrays of 3");
    gv_majority3 *m = gv_calloc(1, sizeof *m);
    if (!m) return gv_err_nomem("a majority of three");
    m->n_classes = (int)k;
    for (int j = 0; j < 3; j++) {
        const json_t *c = json_array_get(children, (size_t)j);
        const json_t *e = json_array_get(errors, (size_t)j);
        if (!json_is_number(e) || !(json_number_value(e) >= 0 && json_number_value(e) <= 1)) {
            st = gv_err(GROVE_ERR_MODEL, "errors[%d]: expected a number in [0, 1]", j);
            goto fail;
        }
        m->error[j] = json_number_value(e);
        if ((st = gv_component_from_json(c, ctx, &m->child[j])) != GROVE_OK) {
            gv_err_prefix("children[%d]", j);
            goto fail;
        }
    }
    *out = m;
    return GROVE_OK;
fail:
    maj_free(m);
    return st;
}

static grove_status maj_validate(const void *impl, const grove_schema *schema)
{
    const gv_majority3 *m = impl;
    for (int j = 0; j < 3; j++) {
        if (!m->child[j].vt->validate) continue;
        grove_status st = m->child[j].vt->validate(m->child[j].impl, schema);
        if (st != GROVE_OK) {
            gv_err_prefix("children[%d]", j);
            return st;
        }
    }
    return GROVE_OK;
}

static grove_status maj_check(const void *impl, const gv_model_ctx *ctx, size_t n_outputs)
{
    const gv_majority3 *m = impl;
    if ((size_t)m->n_classes != n_outputs)
        return gv_err(GROVE_ERR_MODEL, "majority3: %d classes, %zu outputs expected",
                      m->n_classes, n_outputs);
    return gv_components_check(m->child, 3, ctx, n_outputs, "children");
}

static size_t count_base(const gv_component *c)
{
    if (c->vt != &gv_majority3_component) return 1;
    const gv_majority3 *m = c->impl;
    return count_base(&m->child[0]) + count_base(&m->child[1]) + count_base(&m->child[2]);
}

static json_t *maj_summary(const void *impl)
{
    const gv_majority3 *m = impl;
    gv_component self = {&gv_majority3_component, (void *)impl};
    return json_pack("{s:s, s:I, s:[f,f,f]}", "kind", "majority3", "base_learners",
                     (json_int_t)count_base(&self), "errors", m->error[0], m->error[1],
                     m->error[2]);
}

/* C export (learner.h's export_c slot, core/cgen.h): h1, h2, h3, then maj_predict_row's vote. */
static grove_status maj_export_c(const void *impl, gv_cgen *g, size_t *id)
{
    const gv_majority3 *v = impl;
    size_t ids[3];
    grove_status st = gv_cgen_members(g, v->child, 3, ids);
    if (st != GROVE_OK) return st;
    const size_t K = (size_t)v->n_classes;
    *id = gv_cgen_open_function(g, "filter-boost: the majority of three (filter.c)");
    gv_buf *b = &g->body;
    gv_cgen_out(b, g, "    double h[%zu];\n    size_t c, v[3];\n", K);
    gv_cgen_out(b, g, "    for (c = 0; c < %zu; c++) out[c] = 0;\n", K);
    for (int j = 0; j < 3; j++)
        gv_cgen_out(b, g, "    c%zu(x, h); v[%d] = argmax(h, %zu);\n", ids[j], j, K);
    gv_cgen_out(b, g,
                "    if (v[0] != v[1] && v[0] != v[2] && v[1] != v[2]) {\n"
                "        out[v[0]] = out[v[1]] = 0.25; /* three different votes: h3 decides */\n"
                "        out[v[2]] = 0.5;\n"
                "        return;\n"
                "    }\n"
                "    for (c = 0; c < 3; c++) out[v[c]] += 1.0 / 3.0;\n");
    gv_cgen_out(b, g, "}\n");
    return GROVE_OK;
}

const gv_component_vt gv_majority3_component = {
    .kind = "majority3",
    .predict_row = maj_predict_row,
    .to_json = maj_to_json,
    .from_json = maj_from_json,
    .free = maj_free,
    .validate = maj_validate,
    .check = maj_check,
    .summary = maj_summary,
    .export_c = maj_export_c,
};

int gv_majority3_view_of(const gv_component *c, gv_majority3_view *v)
{
    if (!c || c->vt != &gv_majority3_component) return 0;
    const gv_majority3 *m = c->impl;
    v->n_classes = m->n_classes;
    v->children = m->child;
    v->errors = m->error;
    return 1;
}
