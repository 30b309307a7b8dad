/*
 * perceptron.c -- the perceptron learner ("perceptron") and its model component (kind
 * "perceptron"): Rosenblatt's online perceptron with the averaged and pocket variants.
 *
 * Pipeline position: learn/; features come from the linear map of linear.h (standardized
 * numeric features, one-hot categories) plus a constant-1 feature for the bias (the intercept).
 *
 * Algorithm (Rosenblatt 1958; Novikoff 1962).  Two classes: y = +1 for class 1, -1 for
 * class 0; score z = w.x + b; a visit is a *mistake* when y z <= 0, and then
 *     w <- w + y x,   b <- b + y.
 * K > 2 classes (the multiclass perceptron of Duda & Hart, through Kesler's construction):
 * one vector per class; with r = argmax_{k != y} z_k (lowest index on ties), a visit is a
 * mistake when z_r >= z_y, and then w_y <- w_y + x, w_r <- w_r - x (and b_y += 1, b_r -= 1).
 * Novikoff: on data separable with margin gamma by a unit vector, at most (R/gamma)^2 mistakes
 * (R = max ||x||), whatever the order of the visits; tests/test_linear.c checks it through
 * gv_perceptron_run.
 * Variants (perceptron.variant):
 *   classic   the last weight vector.
 *   averaged  the average of the weight vectors after every visit (Freund & Schapire 1999),
 *             computed without storing them: with u = sum over updates of (t - 1) * update,
 *             where t is the visit's 1-based number, the average after T visits is w - u / T
 *             (Daume's trick).  Runs every epoch: the average keeps moving after convergence.
 *   pocket    Gallant's (1990) pocket algorithm with ratchet: the weight vector with the
 *             smallest weighted training error among the candidates seen.  A candidate is the
 *             current vector at the end of a run of consecutive correct visits that is longer
 *             than every earlier run (and the final vector); it replaces the pocket only when
 *             its error is strictly smaller.  Run lengths of a record strictly increase, so a
 *             training of T visits evaluates at most sqrt(2T) + 1 candidates.  It follows the
 *             classic trajectory, so its training error never exceeds classic's.
 * Epochs and weights.  An epoch visits the rows of the view in an order shuffled by the rng.
 * Sample weights (relative: multiplying them all by a constant changes nothing) decide how
 * many times a position is visited per epoch: s_p = n * q_p / sum q (n positions, so
 * sum s_p = n), visited floor(s_p) times plus once more with probability frac(s_p); the
 * multiset of visits is then shuffled (Fisher-Yates).  Equal weights visit every row exactly
 * once (the classic perceptron); a weight 0 row is never visited; an integer weight c (with
 * sum of weights = n) visits the row exactly c times, exactly as if the row appeared c times
 * in the view -- so "weights = duplication" holds exactly under those conditions (tested),
 * and holds in distribution otherwise.  The update itself is never scaled, so Novikoff's
 * bound holds for the sequence of visits as it stands.  Why sampling rather than scaling the
 * update by the weight: scaling is not equal to duplication for an online learner either, and
 * with AdaBoost's skewed weights it lets a few rows produce huge steps; sampling keeps the
 * learner the perceptron, run on the weighted distribution (boosting by resampling).
 * Classic and pocket stop after an epoch without a mistake once a check over every row of
 * positive weight finds them all classified correctly (the weights can no longer change, so
 * this equals running all epochs).
 * Output: the perceptron is not a probabilistic model, so predict_row puts probability 1 on
 * the predicted class (a hard vote): class 1 when z > 0 (two classes), else the argmax
 * (lowest index on ties).
 * File form (docs/model-format.md): the linear fields (linear.c) plus "variant" (a string),
 * "epochs" (epochs run) and "mistakes" (updates made during training).
 * C export (export_c): the linear model's code (linear.c), then the one-hot class.
 */
#include "linear.h"

#include "../core/params.h"
#include "../core/json.h"
#include "../core/streams.h"

#include <math.h>
#include <string.h>

static const char *const variant_names[] = {"classic", "averaged", "pocket"};

typedef struct gv_perceptron {
    gv_linear_model lm;
    int variant;       /* GV_PERCEPTRON_* */
    int64_t epochs;    /* epochs run */
    uint64_t mistakes; /* updates made */
} gv_perceptron;

/* The rows a perceptron trains on: encoded rows with their classes and relative weights. */
typedef struct problem {
    const gv_linear_map *map;
    size_t n;           /* positions */
    const double *enc;  /* [n * map->n_features] */
    const int *y;       /* [n] class index */
    const double *q;    /* [n] relative weights in [0, 1]; NULL = all 1 */
    double q_sum;
    int uniform;        /* all weights equal: every position visited once per epoch */
    int n_classes;
} problem;

/* The training state: weights and scratch (all owned, freed by state_free). */
typedef struct state {
    size_t n_vec, dim;
    double *coef, *intercept;      /* current */
    double *u, *ub;                /* averaged: sum of (t - 1) * update */
    double *pocket, *pocket_b;     /* pocket: best vector so far */
    double pocket_err;
    double *scores;                /* [K] */
    size_t *visits;                /* one epoch's visits */
} state;

static void state_free(state *s)
{
    gv_free(s->coef);
    gv_free(s->intercept);
    gv_free(s->u);
    gv_free(s->ub);
    gv_free(s->pocket);
    gv_free(s->pocket_b);
    gv_free(s->scores);
    gv_free(s->visits);
}

/* The class that the weights predict for the scores: two classes, class 1 iff z > 0; else the
 * first maximum (NaN never wins). */
static int predict_class(const double *z, int n_classes)
{
    if (n_classes == 2) return z[0] > 0;
    int best = 0;
    while (best < n_classes - 1 && isnan(z[best])) best++;
    for (int k = best + 1; k < n_classes; k++)
        if (z[k] > z[best]) best = k;
    return best;
}

/* The best wrong class r = argmax_{k != y} z_k (lowest index on ties). */
static int best_wrong(const double *z, int n_classes, int y)
{
    int r = y == 0 ? 1 : 0;
    for (int k = r + 1; k < n_classes; k++)
        if (k != y && z[k] > z[r]) r = k;
    return r;
}

/* 1 when the scores make a mistake on class y in the training sense (y z <= 0, or
 * z_r >= z_y), and the wrong class to push down in *r. */
static int is_mistake(const double *z, int n_classes, int y, int *r)
{
    if (n_classes == 2) {
        *r = 1 - y;
        return y == 1 ? !(z[0] > 0) : !(z[0] < 0);
    }
    *r = best_wrong(z, n_classes, y);
    return !(z[y] > z[*r]);
}

/* Weighted training error of (coef, intercept): sum of q over positions predicted wrong. */
static double weighted_error(const problem *pr, const double *coef, const double *intercept,
                             size_t n_vec, double *scores)
{
    size_t F = pr->map->n_features;
    double err = 0;
    for (size_t p = 0; p < pr->n; p++) {
        double q = pr->q ? pr->q[p] : 1;
        if (!(q > 0)) continue;
        gv_linear_scores_enc(pr->map, coef, intercept, n_vec, pr->enc + p * F, scores);
        if (predict_class(scores, pr->n_classes) != pr->y[p]) err += q;
    }
    return err;
}

/* 1 when every position of positive weight is classified correctly in the training sense. */
static int all_correct(const problem *pr, const state *s)
{
    size_t F = pr->map->n_features;
    for (size_t p = 0; p < pr->n; p++) {
        int r;
        if (pr->q && !(pr->q[p] > 0)) continue;
        gv_linear_scores_enc(pr->map, s->coef, s->intercept, s->n_vec, pr->enc + p * F,
                             s->scores);
        if (is_mistake(s->scores, pr->n_classes, pr->y[p], &r)) return 0;
    }
    return 1;
}

/* The pocket ratchet: takes the current vector when its error is strictly smaller. */
static void pocket_consider(const problem *pr, state *s)
{
    double err = weighted_error(pr, s->coef, s->intercept, s->n_vec, s->scores);
    if (err < s->pocket_err) {
        s->pocket_err = err;
        memcpy(s->pocket, s->coef, s->n_vec * s->dim * sizeof *s->coef);
        memcpy(s->pocket_b, s->intercept, s->n_vec * sizeof *s->intercept);
    }
}

/* Adds a * x to vector k (and a to its intercept when `bias`); the averaged variant also adds
 * (t - 1) * a * x to u. */
static void update(const problem *pr, state *s, size_t k, double a, const double *x, int bias,
                   double t_before)
{
    gv_linear_axpy(pr->map, x, a, s->coef + k * s->dim);
    if (bias) s->intercept[k] += a;
    if (s->u) {
        gv_linear_axpy(pr->map, x, a * t_before, s->u + k * s->dim);
        if (bias) s->ub[k] += a * t_before;
    }
}

/* Trains on `pr`; on success s->coef and s->intercept hold the result (of the variant). */
static grove_status train(const problem *pr, int variant, int64_t epochs, int bias, gv_rng *rng,
                          state *s, uint64_t *mistakes, int64_t *epochs_run)
{
    const gv_linear_map *map = pr->map;
    size_t n = pr->n, F = map->n_features, n_vec = gv_linear_n_vec(pr->n_classes), n_coef;
    memset(s, 0, sizeof *s);
    *mistakes = 0;
    *epochs_run = 0;
    s->n_vec = n_vec;
    s->dim = map->dim;
    if (gv_mul_size(n_vec, map->dim, &n_coef) != 0)
        return gv_err(GROVE_ERR_DATA, "perceptron: too many weights");
    /* Visits per epoch: s_p = n q_p / sum q, rounded stochastically (see the file comment).
     * cap bounds the visits of any epoch. */
    double scale = pr->uniform ? 1 : (double)n / pr->q_sum;
    size_t cap = 0;
    for (size_t p = 0; p < n; p++) {
        double sp = pr->uniform ? 1 : pr->q[p] * scale;
        double c = floor(sp);
        cap += (size_t)c + (sp > c);
    }
    s->coef = gv_calloc(n_coef, sizeof *s->coef);
    s->intercept = gv_calloc(n_vec, sizeof *s->intercept);
    s->scores = gv_calloc((size_t)pr->n_classes, sizeof *s->scores);
    s->visits = gv_malloc_array(cap, sizeof *s->visits);
    int bad = !s->coef || !s->intercept || !s->scores || !s->visits;
    if (variant == GV_PERCEPTRON_AVERAGED) {
        s->u = gv_calloc(n_coef, sizeof *s->u);
        s->ub = gv_calloc(n_vec, sizeof *s->ub);
        bad |= !s->u || !s->ub;
    } else if (variant == GV_PERCEPTRON_POCKET) {
        s->pocket = gv_calloc(n_coef, sizeof *s->pocket);
        s->pocket_b = gv_calloc(n_vec, sizeof *s->pocket_b);
        bad |= !s->pocket || !s->pocket_b;
        s->pocket_err = INFINITY;
    }
    if (bad) return gv_err_nomem("the perceptron's training state");

    double t = 0;             /* visits so far (exact in a double up to 2^53) */
    size_t run = 0, record = 0; /* pocket: current run of correct visits, longest run */
    for (int64_t e = 0; e < epochs; e++) {
        size_t nv = 0;
        for (size_t p = 0; p < n; p++) {
            double sp = pr->uniform ? 1 : pr->q[p] * scale;
            double c = floor(sp);
            size_t times = (size_t)c;
            if (sp > c && gv_rng_uniform(rng) < sp - c) times++;
            for (size_t j = 0; j < times && nv < cap; j++) s->visits[nv++] = p;
        }
        gv_rng_shuffle(rng, s->visits, nv);
        uint64_t epoch_mistakes = 0;
        for (size_t v = 0; v < nv; v++) {
            size_t p = s->visits[v];
            const double *x = pr->enc + p * F;
            int y = pr->y[p], r;
            gv_linear_scores_enc(map, s->coef, s->intercept, n_vec, x, s->scores);
            if (is_mistake(s->scores, pr->n_classes, y, &r)) {
                if (s->pocket && run > record) {
                    record = run;
                    pocket_consider(pr, s);
                }
                run = 0;
                if (n_vec == 1) {
                    update(pr, s, 0, y == 1 ? 1.0 : -1.0, x, bias, t);
                } else {
                    update(pr, s, (size_t)y, 1.0, x, bias, t);
                    update(pr, s, (size_t)r, -1.0, x, bias, t);
                }
                epoch_mistakes++;
            } else {
                run++;
            }
            t += 1;
        }
        *mistakes += epoch_mistakes;
        *epochs_run = e + 1;
        if (variant != GV_PERCEPTRON_AVERAGED && epoch_mistakes == 0 && all_correct(pr, s))
            break;
    }
    if (variant == GV_PERCEPTRON_AVERAGED && t > 0) {
        /* average = w - u / T */
        for (size_t j = 0; j < n_coef; j++) s->coef[j] -= s->u[j] / t;
        for (size_t k = 0; k < n_vec; k++) s->intercept[k] -= s->ub[k] / t;
    } else if (variant == GV_PERCEPTRON_POCKET) {
        pocket_consider(pr, s);
        memcpy(s->coef, s->pocket, n_coef * sizeof *s->coef);
        memcpy(s->intercept, s->pocket_b, n_vec * sizeof *s->intercept);
    }
    for (size_t j = 0; j < n_coef; j++)
        if (!isfinite(s->coef[j]))
            return gv_err(GROVE_ERR_DATA, "perceptron: the weights overflowed (extreme values)");
    for (size_t k = 0; k < n_vec; k++)
        if (!isfinite(s->intercept[k]))
            return gv_err(GROVE_ERR_DATA, "perceptron: the weights overflowed (extreme values)");
    return GROVE_OK;
}

grove_status gv_perceptron_run(const double *X, const double *y, size_t n, size_t d, int epochs,
                               uint64_t seed, double *w, size_t *mistakes)
{
    if (mistakes) *mistakes = 0;
    if (!X || !y || !w || !mistakes || n == 0 || d == 0 || epochs < 1)
        return gv_err(GROVE_ERR_ARG, "gv_perceptron_run: invalid argument");
    memset(w, 0, d * sizeof *w);
    gv_linear_map map;
    grove_status st = gv_linear_map_identity(&map, d);
    if (st != GROVE_OK) return st;
    int *cls = gv_malloc_array(n, sizeof *cls);
    if (!cls) {
        gv_linear_map_free(&map);
        return gv_err_nomem("gv_perceptron_run");
    }
    for (size_t i = 0; i < n; i++) cls[i] = y[i] > 0;
    problem pr = {.map = &map, .n = n, .enc = X, .y = cls, .q = NULL, .q_sum = (double)n,
                  .uniform = 1, .n_classes = 2};
    gv_rng rng;
    gv_rng_seed(&rng, seed, GV_STREAM_PERCEPTRON, 0);
    state s;
    uint64_t m;
    int64_t ran;
    st = train(&pr, GV_PERCEPTRON_CLASSIC, epochs, 0, &rng, &s, &m, &ran);
    if (st == GROVE_OK) {
        memcpy(w, s.coef, d * sizeof *w);
        *mistakes = (size_t)m;
    }
    state_free(&s);
    gv_free(cls);
    gv_linear_map_free(&map);
    return st;
}

/* ---- the learner ---- */

static void perceptron_free(void *impl)
{
    gv_perceptron *pc = impl;
    if (!pc) return;
    gv_linear_model_free(&pc->lm);
    gv_free(pc);
}

grove_status gv_perceptron_fit(const gv_fit_input *in, gv_rng *rng, gv_component *out)
{
    out->vt = NULL;
    out->impl = NULL;
    gv_linear_data ld;
    grove_status st = gv_linear_data_build(in, "perceptron", &ld);
    if (st != GROVE_OK) return st;
    int variant = (int)gv_param_int(in->params, GV_P_PERCEPTRON_VARIANT);
    int64_t epochs = gv_param_int(in->params, GV_P_PERCEPTRON_EPOCHS);
    problem pr = {.map = &ld.map, .n = ld.n, .enc = ld.enc, .y = ld.y, .q = ld.q,
                  .q_sum = ld.q_sum, .uniform = ld.uniform, .n_classes = ld.n_classes};
    state s;
    uint64_t mistakes;
    int64_t ran;
    gv_perceptron *pc = NULL;
    gv_rng own_rng;
    if (!rng) { /* a caller without a stream gets the one of seed 0 */
        gv_rng_seed(&own_rng, 0, GV_STREAM_LEARNER, 0);
        rng = &own_rng;
    }
    st = train(&pr, variant, epochs, 1, rng, &s, &mistakes, &ran);
    if (st == GROVE_OK && !(pc = gv_calloc(1, sizeof *pc))) st = gv_err_nomem("a perceptron");
    if (st == GROVE_OK) {
        /* the model takes over the map and the trained weights */
        pc->lm.map = ld.map;
        memset(&ld.map, 0, sizeof ld.map);
        pc->lm.n_classes = ld.n_classes;
        pc->lm.n_vec = s.n_vec;
        pc->lm.coef = s.coef;
        pc->lm.intercept = s.intercept;
        s.coef = s.intercept = NULL;
        pc->variant = variant;
        pc->epochs = ran;
        pc->mistakes = mistakes;
        out->vt = &gv_perceptron_component;
        out->impl = pc;
    }
    state_free(&s);
    gv_linear_data_free(&ld);
    return st;
}

/* ---- the component ---- */

static void perceptron_predict_row(const void *impl, const grove_dataset *d, size_t i,
                                   double *out)
{
    const gv_perceptron *pc = impl;
    int K = pc->lm.n_classes;
    gv_linear_scores(&pc->lm, d, i, out); /* n_vec <= K scores into out */
    int c = predict_class(out, K);
    for (int k = 0; k < K; k++) out[k] = k == c;
}

static json_t *perceptron_to_json(const void *impl)
{
    const gv_perceptron *pc = impl;
    json_t *obj = json_object();
    if (!obj) return NULL;
    int bad = gv_linear_model_to_json(&pc->lm, obj);
    bad |= json_object_set_new(obj, "variant", json_string(variant_names[pc->variant]));
    bad |= json_object_set_new(obj, "epochs", json_integer((json_int_t)pc->epochs));
    bad |= json_object_set_new(obj, "mistakes", json_integer((json_int_t)pc->mistakes));
    if (bad) {
        json_decref(obj);
        return NULL;
    }
    return obj;
}

static grove_status perceptron_from_json(const json_t *obj, const gv_model_ctx *ctx,
                                         void **out)
{
    static const char *const extra[] = {"variant", "epochs", "mistakes"};
    *out = NULL;
    gv_perceptron *pc = gv_calloc(1, sizeof *pc);
    if (!pc) return gv_err_nomem("a perceptron");
    grove_status st = gv_linear_model_from_json(obj, ctx->schema, extra, 3, &pc->lm);
    const char *variant = NULL;
    int64_t epochs, mistakes;
    if (st == GROVE_OK && (st = gv_json_get_string(obj, "variant", &variant)) == GROVE_OK) {
        pc->variant = -1;
        for (int j = 0; j < 3; j++)
            if (!strcmp(variant, variant_names[j])) pc->variant = j;
        if (pc->variant < 0)
            st = gv_err(GROVE_ERR_MODEL,
                        "variant: expected \"classic\", \"averaged\" or \"pocket\", got \"%s\"",
                        variant);
    }
    if (st == GROVE_OK && (st = gv_json_get_int(obj, "epochs", 1, INT64_MAX, &epochs)) == GROVE_OK)
        pc->epochs = epochs;
    if (st == GROVE_OK &&
        (st = gv_json_get_int(obj, "mistakes", 0, INT64_MAX, &mistakes)) == GROVE_OK)
        pc->mistakes = (uint64_t)mistakes;
    if (st != GROVE_OK) {
        perceptron_free(pc);
        return st;
    }
    *out = pc;
    return GROVE_OK;
}

static grove_status perceptron_validate(const void *impl, const grove_schema *schema)
{
    const gv_perceptron *pc = impl;
    if (pc->variant < 0 || pc->variant > 2)
        return gv_err(GROVE_ERR_MODEL, "variant: unknown variant %d", pc->variant);
    if (pc->epochs < 1) return gv_err(GROVE_ERR_MODEL, "epochs: must be >= 1");
    if (pc->mistakes > (uint64_t)INT64_MAX)
        return gv_err(GROVE_ERR_MODEL, "mistakes: too large for a model file");
    return gv_linear_model_validate(&pc->lm, schema);
}

static grove_status perceptron_check(const void *impl, const gv_model_ctx *ctx,
                                     size_t n_outputs)
{
    if (ctx->reads_all) *ctx->reads_all = 1; /* every feature, not only split ones */
    (void)ctx; /* reads raw values: no relation to the bin mappers */
    return gv_linear_model_check(&((const gv_perceptron *)impl)->lm, n_outputs);
}

static json_t *perceptron_summary(const void *impl)
{
    const gv_perceptron *pc = impl;
    return json_pack("{s:s, s:s, s:i, s:I, s:I, s:I}", "kind", "perceptron", "variant",
                     variant_names[pc->variant], "n_classes", pc->lm.n_classes, "n_weights",
                     (json_int_t)(pc->lm.n_vec * (pc->lm.map.dim + 1)), "epochs",
                     (json_int_t)pc->epochs, "mistakes", (json_int_t)pc->mistakes);
}

static grove_status perceptron_export_c(const void *impl, gv_cgen *g, size_t *id)
{
    return gv_linear_model_export_c(&((const gv_perceptron *)impl)->lm, 0, g, id);
}

const gv_component_vt gv_perceptron_component = {
    .kind = "perceptron",
    .predict_row = perceptron_predict_row,
    .to_json = perceptron_to_json,
    .from_json = perceptron_from_json,
    .free = perceptron_free,
    .validate = perceptron_validate,
    .check = perceptron_check,
    .summary = perceptron_summary,
    .export_c = perceptron_export_c,
};

const gv_linear_model *gv_linear_model_of(const gv_component *c)
{
    if (!c) return NULL;
    if (c->vt == &gv_perceptron_component) return &((const gv_perceptron *)c->impl)->lm;
    /* gv_logistic (logistic.c) keeps its gv_linear_model as its first member too, and a pointer
     * to a struct points to its first member */
    if (c->vt == &gv_logistic_component) return (const gv_linear_model *)c->impl;
    return NULL;
}
