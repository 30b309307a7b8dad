/*
 * objective.c -- the objectives of gradient boosting (loss.h): the table (gv_objective: task,
 * default metric, initial score, link and inverse link, leaf refit, the C export's link), the
 * choice of one for a task, and their gradients and hessians with respect to the raw scores.
 *
 * Pipeline position: loss/ (core only).  The tree learner sees gradients, never a loss.
 *   squared      l = (F - y)^2 / 2               g = F - y                h = 1
 *   absolute     l = |F - y|                     g = sign(F - y)          h = 1 (leaves refit
 *                                                                          to weighted medians)
 *   huber        l = Huber_delta(F - y)          g = clip(F - y, +-delta) h = 1
 *   logistic     l = log(1 + e^F) - y F          g = p - y, p = sigma(F)  h = max(p(1-p), 1e-16)
 *   exponential  l = exp(-y' F), y' = 2y - 1     g = -y' e^{-y'F}        h = e^{-y'F}
 *   softmax      l = -log p_y, p = softmax(F)    g_k = p_k - [k = y]      h_k = max(2 p_k (1-p_k), 1e-16)
 *   poisson      l = e^F - y F                   g = e^F - y              h = e^{F + max_delta_step}
 *                (and gbdt clips each leaf's Newton step to +-max_delta_step, as XGBoost does)
 *   tweedie      l = -y e^{(1-r)F}/(1-r) + e^{(2-r)F}/(2-r)   (r = tweedie_variance_power)
 *                g = e^{(2-r)F} - y e^{(1-r)F}   h = (2-r) e^{(2-r)F} - (1-r) y e^{(1-r)F}
 *   gamma        l = y e^{-F} + F                g = 1 - y e^{-F}         h = y e^{-F}
 *   quantile     l = a (y-F)+ + (1-a) (F-y)+     g = [F >= y] - a         h = 1 (leaves refit to
 *                                                                          weighted a-quantiles)
 * every g and h multiplied by the row's weight, then rounded once to single precision (the
 * value the trees see, as XGBoost's and LightGBM's float gradients: half the bytes a row moves
 * in the tree engine; sums of them are still taken in double).
 */
#include "loss.h"

#include "../core/params.h"
#include "../core/mathx.h"
#include "../core/vexp.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ln(DBL_MAX), rounded down: e^t is finite for every t < GV_LOG_DBL_MAX. */
#define GV_LOG_DBL_MAX 709.782712893384

const char *const gv_objective_names[GV_OBJ_COUNT] = {
    "auto",        "squared", "absolute", "huber", "logistic", "softmax",
    "exponential", "poisson", "tweedie",  "gamma", "quantile", "lambdarank", "rank:pairwise"};
const char *const gv_metric_names[GV_MET_COUNT] = {
    "auto",    "rmse",            "mae",             "logloss",        "error",   "auc",
    "mlogloss", "merror",         "exploss",         "poisson-nloglik", "tweedie-nloglik",
    "gamma-deviance", "quantile", "ndcg", "map"};

/* The objectives (indexed by GV_OBJ_*; entry 0, "auto", is resolved before use).  The
 * gradients are gradient_rows' cases below. */
static const gv_objective objectives[GV_OBJ_COUNT] = {
    {GV_OBJ_AUTO, "auto", GV_FIT_REGRESSION, GV_MET_RMSE, GV_BASE_MEAN, GV_LINK_IDENTITY, 1.0,
     GV_LEAF_NEWTON, 0.5, GV_LABELS_ANY},
    {GV_OBJ_SQUARED, "squared", GV_FIT_REGRESSION, GV_MET_RMSE, GV_BASE_MEAN, GV_LINK_IDENTITY,
     1.0, GV_LEAF_NEWTON, 0.5, GV_LABELS_ANY},
    /* LAD TreeBoost (Friedman 2001): leaves refit to the median of the residuals */
    {GV_OBJ_ABSOLUTE, "absolute", GV_FIT_REGRESSION, GV_MET_MAE, GV_BASE_QUANTILE,
     GV_LINK_IDENTITY, 1.0, GV_LEAF_QUANTILE, 0.5, GV_LABELS_ANY},
    {GV_OBJ_HUBER, "huber", GV_FIT_REGRESSION, GV_MET_MAE, GV_BASE_QUANTILE, GV_LINK_IDENTITY, 1.0,
     GV_LEAF_NEWTON, 0.5, GV_LABELS_ANY},
    {GV_OBJ_LOGISTIC, "logistic", GV_FIT_BINARY, GV_MET_LOGLOSS, GV_BASE_MEAN, GV_LINK_LOGIT, 1.0,
     GV_LEAF_NEWTON, 0.5, GV_LABELS_ANY},
    {GV_OBJ_SOFTMAX, "softmax", GV_FIT_MULTICLASS, GV_MET_MLOGLOSS, GV_BASE_LOG_PRIORS,
     GV_LINK_SOFTMAX, 1.0, GV_LEAF_NEWTON, 0.5, GV_LABELS_ANY},
    /* F is half the log-odds: P(y = 1) = sigma(2 F); leaves by AdaBoost's line search */
    {GV_OBJ_EXPONENTIAL, "exponential", GV_FIT_BINARY, GV_MET_EXPLOSS, GV_BASE_MEAN,
     GV_LINK_LOGIT, 2.0, GV_LEAF_ADABOOST, 0.5, GV_LABELS_ANY},
    /* log link: F = log E[y] (Poisson, Tweedie, gamma deviance; XGBoost's count:poisson,
     * reg:tweedie, reg:gamma) */
    {GV_OBJ_POISSON, "poisson", GV_FIT_REGRESSION, GV_MET_POISSON_NLOGLIK, GV_BASE_MEAN,
     GV_LINK_LOG, 1.0, GV_LEAF_NEWTON, 0.5, GV_LABELS_NONNEGATIVE},
    {GV_OBJ_TWEEDIE, "tweedie", GV_FIT_REGRESSION, GV_MET_TWEEDIE_NLOGLIK, GV_BASE_MEAN,
     GV_LINK_LOG, 1.0, GV_LEAF_NEWTON, 0.5, GV_LABELS_NONNEGATIVE},
    {GV_OBJ_GAMMA, "gamma", GV_FIT_REGRESSION, GV_MET_GAMMA_DEVIANCE, GV_BASE_MEAN, GV_LINK_LOG,
     1.0, GV_LEAF_NEWTON, 0.5, GV_LABELS_POSITIVE},
    /* pinball loss; leaves refit to the quantile of their residuals (LightGBM's quantile) */
    {GV_OBJ_QUANTILE, "quantile", GV_FIT_REGRESSION, GV_MET_QUANTILE, GV_BASE_QUANTILE,
     GV_LINK_IDENTITY, 1.0, GV_LEAF_QUANTILE, -1, GV_LABELS_ANY},
    /* learning to rank (rank.c): labels are relevance grades, scores only order a query's rows */
    {GV_OBJ_LAMBDARANK, "lambdarank", GV_FIT_REGRESSION, GV_MET_NDCG, GV_BASE_MEAN,
     GV_LINK_IDENTITY, 1.0, GV_LEAF_NEWTON, 0.5, GV_LABELS_NONNEGATIVE},
    {GV_OBJ_RANK_PAIRWISE, "rank:pairwise", GV_FIT_REGRESSION, GV_MET_NDCG, GV_BASE_MEAN,
     GV_LINK_IDENTITY, 1.0, GV_LEAF_NEWTON, 0.5, GV_LABELS_NONNEGATIVE},
};

const gv_objective *gv_objective_get(int id)
{
    return id > GV_OBJ_AUTO && id < GV_OBJ_COUNT ? &objectives[id] : NULL;
}

const gv_objective *gv_objective_find(const char *name)
{
    for (int i = 1; i < GV_OBJ_COUNT; i++)
        if (!strcmp(objectives[i].name, name)) return &objectives[i];
    return NULL;
}

double gv_objective_quantile(const gv_objective *o, const gv_loss_params *lp)
{
    return o->quantile >= 0 ? o->quantile : lp->quantile_alpha;
}

grove_status gv_objective_check_labels(const gv_objective *o, const double *y, size_t n,
                                       const char *source, size_t row0)
{
    if (o->labels == GV_LABELS_ANY) return GROVE_OK;
    const int positive = o->labels == GV_LABELS_POSITIVE;
    for (size_t i = 0; i < n; i++)
        if (positive ? !(y[i] > 0) : !(y[i] >= 0))
            return gv_err(GROVE_ERR_DATA,
                          "%s: row %zu: objective %s needs labels %s, got %g",
                          source ? source : "the data", row0 + i + 1, o->name,
                          positive ? "> 0" : ">= 0", y[i]);
    return GROVE_OK;
}

size_t gv_objective_groups(const gv_objective *o, int K)
{
    return o->task == GV_FIT_MULTICLASS ? (size_t)K : 1;
}

int gv_objective_fits(const gv_objective *o, int K)
{
    switch (o->task) {
    case GV_FIT_REGRESSION: return K == 0;
    case GV_FIT_BINARY: return K == 2;
    default: return K >= 2;
    }
}

void gv_objective_outputs(const gv_objective *o, size_t K, double *out)
{
    switch (o->link) {
    case GV_LINK_LOGIT: {
        const double f = out[1] * o->scale;
        const double p = f == f ? gv_loss_sigmoid(f) : 0.5; /* NaN: inf - inf, no side favoured */
        out[0] = 1.0 - p;
        out[1] = p;
        break;
    }
    case GV_LINK_SOFTMAX: gv_softmax_scaled(out, K, 1.0, out); break;
    /* e^F overflows past F = ln(DBL_MAX) = 709.78...: the prediction stays the largest double */
    case GV_LINK_LOG: out[0] = out[0] < GV_LOG_DBL_MAX ? exp(out[0]) : DBL_MAX; break;
    default: break;
    }
}

double gv_objective_score_of(const gv_objective *o, double v)
{
    switch (o->link) {
    case GV_LINK_LOGIT: return log(v / (1 - v)) * (1.0 / o->scale);
    case GV_LINK_LOG: return log(v);
    default: return v;
    }
}

double gv_objective_score_of_mean(const gv_objective *o, double mean)
{
    if (o->link == GV_LINK_LOGIT) mean = fmin(fmax(mean, 1e-6), 1 - 1e-6);
    if (o->link == GV_LINK_LOG) mean = fmax(mean, 1e-15);
    return gv_objective_score_of(o, mean);
}

grove_status gv_objective_check_base(const gv_objective *o, double v)
{
    if (o->link == GV_LINK_LOGIT && !(v > 0 && v < 1))
        return gv_err(GROVE_ERR_PARAM,
                      "base_score: must be a probability in (0, 1) for objective %s, got %g",
                      o->name, v);
    if (o->link == GV_LINK_LOG && !(v > 0))
        return gv_err(GROVE_ERR_PARAM,
                      "base_score: must be > 0 for objective %s (a mean, whose log is the "
                      "initial score), got %g", o->name, v);
    return GROVE_OK;
}

int gv_objective_c_outputs(const gv_objective *o, size_t G, gv_buf *b)
{
    switch (o->link) {
    case GV_LINK_LOGIT: {
        char lit[40];
        snprintf(lit, sizeof lit, "%.17g", o->scale);
        if (!strpbrk(lit, ".en")) strcat(lit, ".0"); /* a double literal */
        return gv_buf_printf(b, "    double f = s[0] * %s;\n    double p = 1.0 / (1.0 + exp(-f));\n"
                                "    out[0] = 1.0 - p;\n    out[1] = p;\n", lit);
    }
    case GV_LINK_SOFTMAX:
        return gv_buf_printf(b, "    size_t g;\n    for (g = 0; g < %zu; g++) out[g] = s[g];\n"
                                "    softmax_scaled(out, %zu, 1.0, out);\n", G, G);
    case GV_LINK_LOG:
        return gv_buf_printf(b, "    out[0] = s[0] < 709.782712893384 ? exp(s[0]) : 1.7976931348623157e308;\n");
    default: return gv_buf_printf(b, "    out[0] = s[0];\n");
    }
}

/* Resolves objective "auto" and checks it against the task. */
grove_status gv_objective_resolve(const grove_params *p, int K, int *out, gv_loss_params *lp)
{
    int obj = (int)gv_param_int(p, GV_P_OBJECTIVE);
    if (obj == GV_OBJ_AUTO) obj = K == 0 ? GV_OBJ_SQUARED : (K == 2 ? GV_OBJ_LOGISTIC : GV_OBJ_SOFTMAX);
    const gv_objective *o = &objectives[obj];
    if (o->task == GV_FIT_REGRESSION && K != 0)
        return gv_err(GROVE_ERR_PARAM,
                      "objective: %s is for regression; this is a classification task (use "
                      "logistic, softmax or exponential, or --set task=regression)",
                      o->name);
    if (o->task != GV_FIT_REGRESSION && K == 0)
        return gv_err(GROVE_ERR_PARAM,
                      "objective: %s is for classification; this is a regression task (use "
                      "squared, absolute, huber, poisson, tweedie, gamma or quantile)",
                      o->name);
    if (o->task == GV_FIT_BINARY && K != 2)
        return gv_err(GROVE_ERR_PARAM,
                      "objective: %s is for two classes, this task has %d (use softmax)",
                      o->name, K);
    if (lp) {
        memset(lp, 0, sizeof *lp);
        lp->huber_delta = gv_param_double(p, GV_P_HUBER_DELTA);
        lp->quantile_alpha = gv_param_double(p, GV_P_QUANTILE_ALPHA);
        lp->tweedie_power = gv_param_double(p, GV_P_TWEEDIE_VARIANCE_POWER);
        lp->poisson_max_delta_step = gv_param_double(p, GV_P_POISSON_MAX_DELTA_STEP);
        lp->lambdarank_truncation = (size_t)gv_param_int(p, GV_P_LAMBDARANK_TRUNCATION);
    }
    *out = obj;
    return GROVE_OK;
}

/* Resolves eval_metric "auto" and checks it against the objective. */
grove_status gv_metric_resolve(const grove_params *p, int obj, int K, int *out)
{
    int m = (int)gv_param_int(p, GV_P_EVAL_METRIC);
    if (m == GV_MET_AUTO) m = objectives[obj].metric;
    int ok;
    switch (m) {
    case GV_MET_RMSE:
    case GV_MET_MAE:
    case GV_MET_QUANTILE: ok = K == 0 && !gv_objective_is_ranking(obj); break;
    /* the log-likelihoods of a mean: on the scores of a log link */
    case GV_MET_POISSON_NLOGLIK:
    case GV_MET_TWEEDIE_NLOGLIK:
    case GV_MET_GAMMA_DEVIANCE: ok = objectives[obj].link == GV_LINK_LOG; break;
    case GV_MET_NDCG:
    case GV_MET_MAP: ok = gv_objective_is_ranking(obj); break;
    case GV_MET_LOGLOSS:
    case GV_MET_ERROR:
    case GV_MET_AUC:
    case GV_MET_EXPLOSS: ok = K == 2 && objectives[obj].task == GV_FIT_BINARY; break;
    default: ok = K >= 2; break; /* mlogloss, merror */
    }
    if (!ok)
        return gv_err(GROVE_ERR_PARAM, "eval_metric: %s does not apply to objective %s",
                      gv_metric_names[m], gv_objective_names[obj]);
    *out = m;
    return GROVE_OK;
}

/* fmax(h, GV_LOSS_HESS_MIN) for every h (NaN too: both give the floor), without fmax's libm
 * call per row (x86 has no instruction with fmax's NaN rule, so it is not inlined). */
static inline double hess_floor(double h) { return h > GV_LOSS_HESS_MIN ? h : GV_LOSS_HESS_MIN; }

/* 1 unless gradient g or hessian h is one the tree engine refuses (not finite, h < 0). */
static inline int gh_bad(double g, double h) { return !(fabs(g) <= DBL_MAX) | !(h >= 0 && h <= DBL_MAX); }

/* x rounded to the nearest float (to infinity past FLT_MAX: gh_bad then refuses it). */
static inline double to_f32(double x) { return (double)(float)x; }

/* Built for AVX2 (four rows a vector in logistic_rows' exp and tail loops) and for the
 * baseline; the loader picks by the CPU.  Both compute the same doubles (IEEE operations, no
 * contraction). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(GROVE_NO_CLONES)
#define LOSS_TARGET_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define LOSS_TARGET_CLONES
#endif

/* gradient_rows for the logistic objective with G = 1 and gh (interleaved), w NULL or not:
 * rows in chunks of LOGISTIC_CHUNK -- first each row's owed score update, then e = exp(-F)
 * for the chunk (core/vexp.h's gv_exp4_mid / gv_exp4, four rows a vector, the last few rows by
 * gv_exp: the same doubles on every build), then the rest of sigma, g, h and the check for the
 * chunk's rows side by side (vectorized; the very operations of gradient_rows, so the same
 * doubles). */
enum { LOGISTIC_CHUNK = 256 };
typedef double gv_loss_v4d __attribute__((vector_size(32), may_alias, aligned(8)));
typedef long long gv_loss_v4l __attribute__((vector_size(32), may_alias, aligned(8)));
typedef float gv_loss_v4f __attribute__((vector_size(16), may_alias, aligned(4)));
typedef int gv_loss_v4i __attribute__((vector_size(16), may_alias, aligned(4)));
/* lanes a, b, c, d of the concatenation of x and y (GCC's and clang's builtins) */
#ifdef __clang__
#define LOSS_SHUFFLE_F(x, y, a, b, c, d) __builtin_shufflevector(x, y, a, b, c, d)
#else
#define LOSS_SHUFFLE_F(x, y, a, b, c, d) __builtin_shuffle(x, y, (gv_loss_v4i){a, b, c, d})
#endif
/* rows j of a chunk: p = sigma (from e = exp(-F)), g = w (p - y), h = w max(p (1 - p), floor),
 * each rounded to float, into ghc[2 j], ghc[2 j + 1]; returns 1 if a pair is bad (gh_bad).
 * Four rows a vector, the rest one at a time: the same operations either way.  wc NULL:
 * weight 1 (w g = g exactly). */
static inline __attribute__((always_inline)) int logistic_tail(const double *e, const double *yc,
                                                               const double *wc, float *ghc,
                                                               size_t m)
{
    const gv_loss_v4d one = {1.0, 1.0, 1.0, 1.0};
    const gv_loss_v4d floor4 = {GV_LOSS_HESS_MIN, GV_LOSS_HESS_MIN, GV_LOSS_HESS_MIN, GV_LOSS_HESS_MIN};
    const gv_loss_v4f zero = {0.0f, 0.0f, 0.0f, 0.0f}, big = {FLT_MAX, FLT_MAX, FLT_MAX, FLT_MAX};
    const gv_loss_v4i abs_mask = {INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX};
    gv_loss_v4i ok = {-1, -1, -1, -1};
    size_t j = 0;
    for (; j + 4 <= m; j += 4) {
        const gv_loss_v4d ev = *(const gv_loss_v4d *)(e + j), yv = *(const gv_loss_v4d *)(yc + j);
        const gv_loss_v4d p = one / (one + ev);
        const gv_loss_v4d ph = p * (one - p);
        const gv_loss_v4l above = ph > floor4;
        gv_loss_v4d g = p - yv;
        gv_loss_v4d h = (gv_loss_v4d)(((gv_loss_v4l)ph & above) | ((gv_loss_v4l)floor4 & ~above));
        if (wc) {
            const gv_loss_v4d wv = *(const gv_loss_v4d *)(wc + j);
            g = wv * g;
            h = wv * h;
        }
        const gv_loss_v4f gf = __builtin_convertvector(g, gv_loss_v4f);
        const gv_loss_v4f hf = __builtin_convertvector(h, gv_loss_v4f);
        /* (gh_bad of the floats: a float is finite where its double is) */
        const gv_loss_v4f ag = (gv_loss_v4f)((gv_loss_v4i)gf & abs_mask);
        ok &= (ag <= big) & (hf >= zero) & (hf <= big);
        *(gv_loss_v4f *)(ghc + 2 * j) = LOSS_SHUFFLE_F(gf, hf, 0, 4, 1, 5);
        *(gv_loss_v4f *)(ghc + 2 * j + 4) = LOSS_SHUFFLE_F(gf, hf, 2, 6, 3, 7);
    }
    int bc = !(ok[0] & ok[1] & ok[2] & ok[3]);
    for (; j < m; j++) {
        const double wi = wc ? wc[j] : 1.0;
        const double p = 1.0 / (1.0 + e[j]);
        const double ph = p * (1.0 - p);
        const float gj = (float)(wi * (p - yc[j]));
        const float hj = (float)(wi * (ph > GV_LOSS_HESS_MIN ? ph : GV_LOSS_HESS_MIN));
        ghc[2 * j] = gj;
        ghc[2 * j + 1] = hj;
        bc |= gh_bad(gj, hj);
    }
    return bc;
}
LOSS_TARGET_CLONES
static int logistic_rows(const double *y, const double *w, const double *F, double *Fu,
                         const uint32_t *leaf, const double *val, float *gh, size_t lo, size_t hi)
{
    double x[LOGISTIC_CHUNK], e[LOGISTIC_CHUNK];
    int bad = 0;
    for (size_t c0 = lo; c0 < hi; c0 += LOGISTIC_CHUNK) {
        const size_t m = hi - c0 < LOGISTIC_CHUNK ? hi - c0 : LOGISTIC_CHUNK;
        /* x = -F after the owed update (Fu is F: each row read before it is written), and
         * e = exp(x): four rows a vector, by the faster form while |F| <= 708 (all rows of
         * nearly every chunk); the last m % 4 rows one at a time */
        const size_t m4 = m & ~(size_t)3;
        gv_exp_v4l wide = {0, 0, 0, 0};
        if (leaf)
            for (size_t j = 0; j < m4; j += 4) {
                const size_t i = c0 + j;
                const gv_exp_v4d v = {val[leaf[i]], val[leaf[i + 1]], val[leaf[i + 2]],
                                      val[leaf[i + 3]]};
                const gv_exp_v4d f = *(const gv_exp_v4d *)(F + i) + v;
                *(gv_exp_v4d *)(Fu + i) = f;
                *(gv_exp_v4d *)(x + j) = -f;
                gv_exp4_mid(x + j, e + j, &wide);
            }
        else
            for (size_t j = 0; j < m4; j += 4) {
                *(gv_exp_v4d *)(x + j) = -*(const gv_exp_v4d *)(F + c0 + j);
                gv_exp4_mid(x + j, e + j, &wide);
            }
        if (wide[0] | wide[1] | wide[2] | wide[3])
            for (size_t j = 0; j < m4; j += 4) gv_exp4(x + j, e + j);
        for (size_t j = m4; j < m; j++) {
            const size_t i = c0 + j;
            x[j] = -(leaf ? (Fu[i] = F[i] + val[leaf[i]]) : F[i]);
            e[j] = gv_exp(x[j]);
        }
        const double *yc = y + c0;
        float *ghc = gh + 2 * c0;
        if (w)
            bad |= logistic_tail(e, yc, w + c0, ghc, m);
        else
            bad |= logistic_tail(e, yc, NULL, ghc, m);
    }
    return bad;
}

/* Rows [lo, hi) of gv_loss_gradients; obj is a constant at each call (gv_loss_gradients), so
 * each objective gets its own loop (no switch per row).  Returns 1 if a pair is bad. */
static inline __attribute__((always_inline)) int
gradient_rows(const int obj, const double *y, const double *w, const double *F, size_t n, size_t G,
              const gv_loss_params *lp, double *grad, double *hess, size_t lo, size_t hi, double *Fu,
              const uint32_t *leaf, const double *val, float *gh)
{
    if (obj == GV_OBJ_LOGISTIC && gh) return logistic_rows(y, w, F, Fu, leaf, val, gh, lo, hi);
    int bad = 0;
    for (size_t i = lo; i < hi; i++) {
        double wi = w ? w[i] : 1.0, g, h;
        /* with leaf (G = 1): the owed score update first, F[i] += val[leaf[i]] (the same sum) */
        const double Fi = leaf ? (Fu[i] = F[i] + val[leaf[i]]) : F[i];
        switch (obj) {
        case GV_OBJ_SQUARED:
            g = Fi - y[i];
            h = 1.0;
            break;
        case GV_OBJ_ABSOLUTE: {
            double r = Fi - y[i];
            g = (r > 0) - (r < 0);
            h = 1.0;
            break;
        }
        case GV_OBJ_HUBER: {
            double r = Fi - y[i];
            const double delta = lp->huber_delta;
            g = r > delta ? delta : (r < -delta ? -delta : r);
            h = 1.0;
            break;
        }
        case GV_OBJ_LOGISTIC: {
            double p = 1.0 / (1.0 + gv_exp(-Fi)); /* (logistic_rows' p) */
            g = p - y[i];
            h = hess_floor(p * (1.0 - p));
            break;
        }
        case GV_OBJ_EXPONENTIAL: {
            double ys = 2 * y[i] - 1, e = exp(-ys * Fi);
            g = -ys * e;
            h = e;
            break;
        }
        case GV_OBJ_POISSON:
            g = exp(Fi) - y[i];
            h = exp(Fi + lp->poisson_max_delta_step);
            break;
        case GV_OBJ_TWEEDIE: {
            const double rho = lp->tweedie_power;
            const double a = y[i] * exp((1 - rho) * Fi), c = exp((2 - rho) * Fi);
            g = c - a;
            h = (2 - rho) * c - (1 - rho) * a;
            break;
        }
        case GV_OBJ_GAMMA: {
            const double a = y[i] * exp(-Fi);
            g = 1.0 - a;
            h = a;
            break;
        }
        case GV_OBJ_QUANTILE: {
            const double q = lp->quantile_alpha;
            g = Fi >= y[i] ? 1.0 - q : -q;
            h = 1.0;
            break;
        }
        default: { /* GV_OBJ_SOFTMAX */
            const double *f = F + i * G;
            double mx = -INFINITY, z = 0;
            for (size_t k = 0; k < G; k++)
                if (f[k] > mx) mx = f[k];
            for (size_t k = 0; k < G; k++) z += exp(f[k] - mx);
            for (size_t k = 0; k < G; k++) {
                double p = exp(f[k] - mx) / z;
                const double gk = to_f32(wi * (p - (k == (size_t)y[i])));
                const double hk = to_f32(wi * hess_floor(2.0 * p * (1.0 - p)));
                grad[k * n + i] = gk;
                hess[k * n + i] = hk;
                bad |= gh_bad(gk, hk);
            }
            continue;
        }
        }
        if (gh) { /* interleaved (G = 1) */
            gh[2 * i] = (float)(wi * g);
            gh[2 * i + 1] = (float)(wi * h);
            bad |= gh_bad(gh[2 * i], gh[2 * i + 1]);
            continue;
        }
        grad[i] = to_f32(wi * g);
        hess[i] = to_f32(wi * h);
        bad |= gh_bad(grad[i], hess[i]);
    }
    return bad;
}

int gv_loss_gradients(int obj, const double *y, const double *w, const double *F, size_t n,
                      size_t G, const gv_loss_params *lp, int n_threads, double *grad,
                      double *hess)
{
    return gv_loss_gradients_upd(obj, y, w, (double *)(uintptr_t)F, n, G, lp, n_threads, grad,
                                 hess, NULL, NULL, NULL);
}

int gv_loss_gradients_upd(int obj, const double *y, const double *w, double *F, size_t n,
                          size_t G, const gv_loss_params *lp, int n_threads, double *grad,
                          double *hess, const uint32_t *leaf, const double *val, float *gh)
{
    if (G != 1 || obj == GV_OBJ_SOFTMAX) gh = NULL; /* (documented: G = 1 only) */
    if (leaf && (G != 1 || obj == GV_OBJ_SOFTMAX)) { /* (not fused: column 0's update first) */
        for (size_t i = 0; i < n; i++) F[i * G] += val[leaf[i]];
        leaf = NULL;
        val = NULL;
    }
    /* equal chunks of rows, one per thread (each row on its own: any chunks give the same) */
    const int par = n >= GV_LOSS_PAR_MIN_ROWS && n_threads > 1;
    const long n_chunks = par ? n_threads : 1;
    const size_t cs = (n + (size_t)n_chunks - 1) / (size_t)n_chunks;
    int bad = 0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(n_threads) schedule(static) reduction(|:bad) if (par)
#else
    (void)n_threads;
#endif
    for (long c = 0; c < n_chunks; c++) {
        const size_t lo = (size_t)c * cs < n ? (size_t)c * cs : n, hi = lo + cs < n ? lo + cs : n;
        /* one loop per objective (a constant in each), w NULL a constant for the logistic's
         * unweighted loop; FU, LF, VL: the fused score update (F, leaf, val) or none */
#define ROWS(OBJ, W, FU, LF, VL, GH)                                                               \
    gradient_rows(OBJ, y, W, F, n, G, lp, grad, hess, lo, hi, FU, LF, VL, GH)
#define BY_OBJECTIVE(FU, LF, VL, GH)                                                               \
    switch (obj) {                                                                                 \
    case GV_OBJ_SQUARED: bad |= ROWS(GV_OBJ_SQUARED, w, FU, LF, VL, GH); break;                    \
    case GV_OBJ_ABSOLUTE: bad |= ROWS(GV_OBJ_ABSOLUTE, w, FU, LF, VL, GH); break;                  \
    case GV_OBJ_HUBER: bad |= ROWS(GV_OBJ_HUBER, w, FU, LF, VL, GH); break;                        \
    case GV_OBJ_LOGISTIC:                                                                          \
        bad |= w ? ROWS(GV_OBJ_LOGISTIC, w, FU, LF, VL, GH)                                        \
                 : ROWS(GV_OBJ_LOGISTIC, NULL, FU, LF, VL, GH);                                    \
        break;                                                                                     \
    case GV_OBJ_EXPONENTIAL: bad |= ROWS(GV_OBJ_EXPONENTIAL, w, FU, LF, VL, GH); break;            \
    case GV_OBJ_POISSON: bad |= ROWS(GV_OBJ_POISSON, w, FU, LF, VL, GH); break;                    \
    case GV_OBJ_TWEEDIE: bad |= ROWS(GV_OBJ_TWEEDIE, w, FU, LF, VL, GH); break;                    \
    case GV_OBJ_GAMMA: bad |= ROWS(GV_OBJ_GAMMA, w, FU, LF, VL, GH); break;                        \
    case GV_OBJ_QUANTILE: bad |= ROWS(GV_OBJ_QUANTILE, w, FU, LF, VL, GH); break;                  \
    default: bad |= ROWS(GV_OBJ_SOFTMAX, w, FU, LF, VL, GH); break;                                \
    }
        if (leaf && gh)
            BY_OBJECTIVE(F, leaf, val, gh)
        else if (gh)
            BY_OBJECTIVE(NULL, NULL, NULL, gh)
        else if (leaf)
            BY_OBJECTIVE(F, leaf, val, NULL)
        else
            BY_OBJECTIVE(NULL, NULL, NULL, NULL)
#undef BY_OBJECTIVE
#undef ROWS
    }
    return !bad;
}
