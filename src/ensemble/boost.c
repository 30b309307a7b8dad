/*
 * boost.c -- the AdaBoost family, written once against the base-learner interface.
 *
 * Pipeline position: ensemble/.  One training loop and one component kind ("boost") serve six
 * algorithms; they differ in how a round's hypothesis is scored, weighted and combined:
 *
 *   adaboost     discrete AdaBoost, two classes (Freund & Schapire 1997; y, h in {-1, +1}):
 *                  eps_t = sum_i D_t(i) [h_t(x_i) != y_i],  alpha_t = 1/2 ln((1 - eps_t)/eps_t),
 *                  D_{t+1}(i) = D_t(i) exp(-alpha_t y_i h_t(x_i)) / Z_t,  H = sign(sum alpha_t h_t)
 *                  training error <= prod Z_t = prod 2 sqrt(eps_t (1 - eps_t)) <= exp(-2 sum gamma_t^2),
 *                  gamma_t = 1/2 - eps_t.
 *   adaboost.m1  K classes: beta_t = eps_t / (1 - eps_t), D_{t+1}(i) ~ D_t(i) beta_t^[h_t(x_i) = y_i],
 *                alpha_t = ln(1/beta_t), H = argmax_k sum alpha_t [h_t = k]; stops when eps_t >= 1/2.
 *                training error <= prod 2 sqrt(eps_t (1 - eps_t)) (Freund & Schapire 1997, Thm 2's
 *                multiclass form).
 *   samme        K classes (Zhu, Zou, Rosset & Hastie 2009): alpha_t = ln((1 - eps_t)/eps_t) +
 *                ln(K - 1), D_{t+1}(i) ~ D_t(i) exp(alpha_t [h_t(x_i) != y_i]); needs
 *                eps_t < 1 - 1/K (better than random guessing among K classes).
 *   samme.r      K classes, real-valued (ibid., Algorithm 4): with the base learner's class
 *                probabilities p, h_k(x) = (K - 1)(ln p_k(x) - 1/K sum_j ln p_j(x)),
 *                D_{t+1}(i) ~ D_t(i) exp(-(K - 1)/K  sum_k y_ik ln p_k(x_i)), y_ik = 1 if k = y_i
 *                else -1/(K - 1); H = argmax_k sum_t h_k^t.  (p clipped to >= 1e-10.)
 *   adaboost.m2  K classes, pseudo-loss (Freund & Schapire 1997, sec. 4.2): weights w_{i,y} on
 *                the mislabels y != y_i, q(i, y) = w_{i,y} / W_i, D_t(i) = W_i / sum W;
 *                pseudo-loss eps_t = 1/2 sum_i D_t(i) (1 - h(x_i, y_i) + sum_{y != y_i} q(i,y) h(x_i, y));
 *                beta_t = eps_t/(1 - eps_t), w_{i,y} <- w_{i,y} beta_t^(1/2 (1 + h(x_i,y_i) - h(x_i,y))),
 *                H = argmax_y sum ln(1/beta_t) h_t(x, y); training error <= (K - 1) prod 2 sqrt(eps(1-eps)).
 *                Plausibilities h(x, y) in [0, 1]: a tree base learner gets q (gv_fit_input's
 *                mislabel) and grows the tree whose splits minimize the pseudo-loss itself
 *                (criterion pseudo, split.c; base.criterion=gini grows it on D_t with gini
 *                instead), and each leaf gets the plausibilities that minimize the pseudo-loss
 *                (for leaf L and class y, with A = sum_{i in L, y_i = y} D(i), B = sum_{i in L,
 *                y_i != y} D(i) q(i, y): h = 1 if A > B else 0); other base learners' class
 *                probabilities are their plausibilities.  Training stops when eps_t >= 1/2 -
 *                boost.min_edge (no edge left; the round's hypothesis is dropped).
 *   adaboost.r2  regression (Drucker 1997): with e_i = |y_i - f_t(x_i)| and E = max e_i, the loss
 *                L_i = e_i/E (linear), (e_i/E)^2 (square) or 1 - exp(-e_i/E) (exponential);
 *                Lbar = sum D_t(i) L_i, beta_t = Lbar/(1 - Lbar), D_{t+1}(i) ~ D_t(i) beta_t^(1 - L_i),
 *                prediction: the weighted median of f_t(x) with weights ln(1/beta_t); stops when
 *                Lbar >= 1/2.
 *
 * Every round D_t is given to the base learner as sample weights (boost.mode=reweight, scaled to
 * sum to n) or as a sample of boost.sample_size rows drawn from D_t with replacement
 * (boost.mode=resample, for learners that ignore weights).  boost.learning_rate nu multiplies
 * every alpha_t (the weight updates use nu * alpha_t too).
 *
 * Degenerate rounds (documented in docs/algorithms.md and tested):
 *   eps_t = 0 (a perfect hypothesis, alpha infinite): h_t is kept with alpha_t = 1 + the sum of
 *     the earlier alphas, so it alone decides every prediction, Z_t = 0, and training stops.
 *   eps_t at or beyond the algorithm's limit (1/2; SAMME: 1 - 1/K): h_t is discarded and training
 *     stops -- unless it is the first round, when it is kept alone with alpha = 1 so that a model
 *     exists; the stop reason says which.
 *   a base learner that fails: training fails with the round's number and the learner's message.
 * The per-round log (eps, alpha, Z, training error, validation error) is kept in the model;
 * boost_log_csv() (the log_csv slot) prints it with gamma, prod Z and exp(-2 sum gamma^2).  Z_t
 * is the actual normalizer of the weight update for adaboost (= 2 sqrt(eps(1-eps)) at nu = 1)
 * and samme.r, and 2 sqrt(eps_t (1 - eps_t)) for the others; the bounds are theorems for
 * adaboost, m1, and m2 (times K - 1), diagnostics for the rest.
 *
 * Class probabilities (argmax unaffected): adaboost: p_1 = sigma(2 f), f = sum alpha_t h_t
 * (Friedman, Hastie & Tibshirani 2000); m1, samme: p ~ exp(K/(K-1)^2 s_k), s_k = sum alpha_t
 * [h_t = k] (the minimizer of SAMME's exponential loss); samme.r: p ~ exp(f_k/(K-1)); m2:
 * p ~ exp(s_k / sum alpha).
 */
#include "ensemble.h"
#include "../learn/tree_pack.h"

#include "../core/params.h"
#include "../core/json.h"
#include "../core/mathx.h"
#include "../dist/dist.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { BV_ADABOOST, BV_M1, BV_SAMME, BV_SAMME_R, BV_M2, BV_R2, BV_COUNT };
static const char *const variant_names[BV_COUNT] = {"adaboost",    "adaboost.m1", "samme",
                                                    "samme.r",     "adaboost.m2", "adaboost.r2"};

typedef struct gv_boost {
    int variant;
    int n_classes;          /* K >= 2, or 0 for adaboost.r2 */
    size_t n_members, cap;
    gv_component *members;  /* [n_members], owned */
    double *alpha;          /* [n_members] */
    double **plaus;         /* adaboost.m2: [n_members] per-node plausibilities of tree members
                               ([n_nodes * K]) or NULL; NULL array for other variants */
    /* the training log, one entry per member */
    double *log_eps, *log_z, *log_train, *log_valid; /* log_valid NULL without validation data */
    char *stop;             /* why training stopped before "rounds" ("" if it did not) */
    gv_pack_cache pack;     /* the members compiled for prediction, on first use */
} gv_boost;

#define P_CLIP 1e-10

/* ---------------------------------------------------------------------------------------------
 * Shared helpers
 * ------------------------------------------------------------------------------------------ */

static void boost_free(void *impl)
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

static gv_boost *boost_new(int variant, int n_classes, size_t cap, int with_valid)
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
        boost_free(b);
        return NULL;
    }
    return b;
}

static size_t boost_outputs(const gv_boost *b) { return b->n_classes ? (size_t)b->n_classes : 1; }

/* The plausibilities (m2) or class probabilities of member t for row i into h[K]. */
static void member_output(const gv_boost *b, size_t t, const grove_dataset *d, size_t i, double *h)
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
static void add_member_score(const gv_boost *b, size_t t, const double *h, double *s)
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
    add_member_score(c->impl, t, h, s);
}

static double alpha_sum(const gv_boost *b, size_t rounds)
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
        double z = alpha_sum(b, rounds);
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
        member_output(b, t, d, i, h);
        add_member_score(b, t, h, s);
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
            /* member_output's source: m2's plausibilities, else the tree's leaf values */
            const double *src = b->plaus && b->plaus[t] ? b->plaus[t] : tree ? tree->values : NULL;
            for (size_t r = 0; r < B; r++) {
                const double *hr = h;
                if (src)
                    hr = src + (size_t)leaf[r] * k;
                else
                    member_output(b, t, d, r0 + r, h);
                if (r2) {
                    a[r * rounds + t].v = hr[0];
                    a[r * rounds + t].w = b->alpha[t];
                } else {
                    add_member_score(b, t, hr, s + r * k);
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
 * Training
 * ------------------------------------------------------------------------------------------ */

typedef struct trainer {
    const gv_fit_input *in;
    const gv_learner *base;
    gv_fit_input base_in;    /* what the base learner sees each round */
    gv_boost *b;
    size_t n, k, rounds;
    double nu;
    int resample;
    size_t sample_size;
    const double *y;
    double *D;               /* [n] current distribution (sums to 1) */
    double *D1;              /* [n] the first distribution: the training error is D_1-weighted,
                                as in the bound (uniform without sample weights) */
    double *w_round;         /* [n] weights given to the base learner (reweight) */
    size_t *sample;          /* [sample_size] rows drawn (resample) */
    double *cum;             /* [n] cumulative D (resample) */
    double *h;               /* [n * k] this round's member outputs on the training rows */
    uint32_t *pred;          /* [n] argmax of h per row (discrete variants) */
    uint32_t *yc;            /* [n] class labels (classification) */
    double *F, *Fv;          /* [n * k], [nv * k] running scores (not r2) */
    double *hv;              /* [nv * k] member outputs on the validation rows */
    double *mw;              /* adaboost.m2: [n * k] mislabel weights w_{i,y} */
    double *q;               /* adaboost.m2: [n * k] q(i, y) = w_{i,y} / W_i, the members' input */
    double *r2_pred;         /* adaboost.r2: [rounds * n] member predictions on training rows */
    double *r2_vpred;        /* adaboost.r2: [rounds * nv] on validation rows */
    gv_wv *r2_tmp;              /* [rounds] */
    double *c;               /* [n] per-row terms of a sum (rows_sum) */
    uint8_t *row_bins;       /* two classes, tree members, reweighting, one process: the binned
                                rows row-major for their histograms (gv_binned_row_major), or NULL */
    gv_fit_cells cells;      /* reweighting: the rows' cells the base learner reports, if any */
    double *cell_h;          /* [cap_cells * k] the round's member output per cell */
    uint32_t *cell_pred;     /* [cap_cells] its argmax */
    size_t cap_cells;
    int w_ready;             /* w_round already holds D * N for the next round */
    int train_logged;        /* this round's training error is logged (fused with the update) */
    int pred_ready;          /* pred (and h unless the variant votes) hold the round's member's */
    int eps_ready;           /* eps and dsum hold this round's sums (cells_output) */
    double eps, dsum;        /* sum_i D(i) [h(x_i) != y_i], sum_i D(i) (lane_sums) */
    double fac[2];           /* one process, discrete: the update's factors by [h(x_i) != y_i],
                                applied by normalize_and_log (update_discrete) */
    int dist;                /* 1: a data-parallel run (dist.h); the rows are this rank's share */
    size_t N;                /* rows over all ranks (n in one process) */
    size_t first;            /* this rank's first row in the global order */
    gv_rng rng;
} trainer;

/* The sum over the training rows (all ranks' in a data-parallel run) of v[0..n): in one
 * process in row order; data-parallel, exactly (gv_dist_sum_exact: v rounded to the common
 * grid, summed in integers), so the result does not depend on how the rows are split. */
static double rows_sum(const trainer *tr, const double *v)
{
    if (tr->dist) return gv_dist_sum_exact(v, tr->n);
    double s = 0;
    for (size_t i = 0; i < tr->n; i++) s += v[i];
    return s;
}

/* The discrete variants' sums over the rows in one process: row i goes to lane i mod 4, each
 * lane sums in row order, and the lanes add up as (l0 + l1) + (l2 + l3) -- fixed by the rows
 * alone, so the same for any thread count, with four additions in flight instead of one chain
 * of n.  BODY runs for every row i in order, adding its terms to lane j of its sums. */
#define LANE_ROW(J, BODY)                                                                          \
    {                                                                                              \
        const size_t j = (J), i = i0 + (J);                                                        \
        BODY;                                                                                      \
    }
#define LANE_LOOP(N, BODY)                                                                         \
    {                                                                                              \
        size_t i0 = 0;                                                                             \
        for (; i0 + 4 <= (N); i0 += 4) { /* (the lanes constant: the sums stay in registers) */   \
            LANE_ROW(0, BODY)                                                                      \
            LANE_ROW(1, BODY)                                                                      \
            LANE_ROW(2, BODY)                                                                      \
            LANE_ROW(3, BODY)                                                                      \
        }                                                                                          \
        if (i0 < (N)) LANE_ROW(0, BODY)                                                            \
        if (i0 + 1 < (N)) LANE_ROW(1, BODY)                                                        \
        if (i0 + 2 < (N)) LANE_ROW(2, BODY)                                                        \
    }
#define LANE_TOTAL(l) (((l)[0] + (l)[1]) + ((l)[2] + (l)[3]))

static void trainer_free(trainer *tr)
{
    gv_free(tr->D);
    gv_free(tr->D1);
    gv_free(tr->w_round);
    gv_free(tr->sample);
    gv_free(tr->cum);
    gv_free(tr->h);
    gv_free(tr->pred);
    gv_free(tr->yc);
    gv_free(tr->F);
    gv_free(tr->Fv);
    gv_free(tr->hv);
    gv_free(tr->q);
    gv_free(tr->mw);
    gv_free(tr->r2_pred);
    gv_free(tr->r2_vpred);
    gv_free(tr->r2_tmp);
    gv_free(tr->c);
    gv_free(tr->row_bins);
    gv_free(tr->cells.cell);
    gv_free(tr->cell_h);
    gv_free(tr->cell_pred);
}

static grove_status set_stop(gv_boost *b, const char *fmt, size_t t, double v)
{
    char msg[256];
    snprintf(msg, sizeof msg, fmt, t, v);
    char *s = gv_strdup(msg);
    if (!s) return gv_err_nomem("a stop reason");
    gv_free(b->stop);
    b->stop = s;
    return GROVE_OK;
}

/* Draws sample_size rows from D with replacement (inverse CDF, binary search): draw j is the
 * first row whose cumulative weight exceeds u_j acc.  Data-parallel, every rank draws all
 * sample_size u_j from the same stream and keeps the draws that land in its own rows: D is
 * rounded to the common grid first, so the cumulative sums (this rank's, offset by the lower
 * ranks' totals) are exact and each draw lands on the row one process over all rows finds.
 * Returns the number of draws kept (sample_size in one process). */
static size_t draw_sample(trainer *tr)
{
    double acc = 0, lo_tot = 0;
    if (tr->dist) {
        /* cum[i] = the global cumulative weight through row i: the lower ranks' total plus
         * this rank's prefix, all exact multiples of the grid */
        double q = gv_dist_grid(tr->D, tr->n);
        int64_t s = 0, R = gv_dist_size(), rk = gv_dist_rank();
        for (size_t i = 0; i < tr->n; i++) s += (int64_t)rint(tr->D[i] / q);
        int64_t *all = gv_malloc_array((size_t)R, sizeof *all);
        if (!all) return SIZE_MAX;
        gv_dist_allgather(&s, all, sizeof s);
        int64_t below = 0, tot = 0;
        for (int64_t r = 0; r < R; r++) {
            if (r < rk) below += all[r];
            tot += all[r];
        }
        gv_free(all);
        lo_tot = (double)below * q;
        acc = (double)tot * q;
        int64_t run = below;
        for (size_t i = 0; i < tr->n; i++) tr->cum[i] = (double)(run += (int64_t)rint(tr->D[i] / q)) * q;
    } else {
        for (size_t i = 0; i < tr->n; i++) tr->cum[i] = acc += tr->D[i];
    }
    const double hi_tot = tr->n ? tr->cum[tr->n - 1] : lo_tot;
    size_t kept = 0;
    for (size_t j = 0; j < tr->sample_size; j++) {
        double u = gv_rng_uniform(&tr->rng) * acc;
        if (tr->dist && (u < lo_tot || u >= hi_tot)) continue; /* another rank's row */
        size_t lo = 0, hi = tr->n - 1;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (tr->cum[mid] > u) hi = mid;
            else lo = mid + 1;
        }
        tr->sample[kept++] = lo;
    }
    return kept;
}

/* Fits round t's hypothesis on D (plus, for m2, the tree's pseudo-loss plausibilities). */
static grove_status fit_round(trainer *tr, size_t t, gv_component *c)
{
    gv_fit_input bi = tr->base_in;
    if (tr->resample) {
        size_t kept = draw_sample(tr);
        grove_status st = kept == SIZE_MAX ? gv_err_nomem("the boosting sample") : GROVE_OK;
        if (tr->dist) st = gv_dist_agree(st);
        if (st != GROVE_OK) return st;
        bi.rows = tr->sample;
        bi.n_rows = kept;
        bi.weight = NULL;
    } else {
        /* weights summing to the number of rows (over all ranks); the tree learner rounds
         * them to the common grid in a data-parallel run (learners.c) */
        if (!tr->w_ready) {
            for (size_t i = 0; i < tr->n; i++) tr->w_round[i] = tr->D[i] * (double)tr->N;
            bi.weights_checked = 0;
        }
        tr->w_ready = tr->base_in.weights_checked = 0;
        bi.weight = tr->w_round;
    }
    if (tr->q) {
        /* m2: the mislabel distribution q(i, y) = w_{i,y} / W_i; tree members minimize the
         * pseudo-loss with it (learners.c) */
        const size_t k = tr->k;
        for (size_t i = 0; i < tr->n; i++) {
            size_t yi = (size_t)tr->y[i];
            double W = 0;
            for (size_t y = 0; y < k; y++)
                if (y != yi) W += tr->mw[i * k + y];
            for (size_t y = 0; y < k; y++)
                tr->q[i * k + y] = y != yi && W > 0 ? tr->mw[i * k + y] / W : 0.0;
        }
        bi.mislabel = tr->q;
    }
    if (tr->cells.cell) tr->cells.impl = NULL;
    gv_rng rng;
    gv_rng_seed(&rng, (uint64_t)gv_param_int(tr->in->params, GV_P_SEED), GV_STREAM_BOOST,
                2 * t + 1);
    grove_status st = tr->base->fit(&bi, &rng, c);
    if (st != GROVE_OK) gv_err_prefix("round %zu: base learner '%s'", t + 1, tr->base->name);
    /* the learner accepted the labels of every row: later rounds need not check them again */
    if (st == GROVE_OK && !bi.rows) tr->base_in.labels_checked = 1;
    return st;
}

/* adaboost.m2 with a tree member: per-leaf plausibilities minimizing the pseudo-loss. */
static grove_status m2_tree_plausibilities(trainer *tr, const gv_tree *tree, double **out)
{
    const size_t k = tr->k, n = tr->n;
    double *A = gv_calloc(tree->n_nodes * k, sizeof *A);
    double *B = gv_calloc(tree->n_nodes * k, sizeof *B);
    double *pl = gv_calloc(tree->n_nodes * k, sizeof *pl);
    if (!A || !B || !pl) {
        gv_free(A);
        gv_free(B);
        gv_free(pl);
        return gv_err_nomem("plausibilities");
    }
    /* data-parallel: every term rounded to the grid of D (each is at most D(i)), so the sums
     * per leaf, and over the ranks, are exact */
    const double q = tr->dist ? gv_dist_grid(tr->D, n) : 0;
    for (size_t i = 0; i < n; i++) {
        size_t leaf = gv_tree_leaf(tree, tr->in->data, i), yi = (size_t)tr->y[i];
        double W = 0;
        for (size_t c = 0; c < k; c++)
            if (c != yi) W += tr->mw[i * k + c];
        A[leaf * k + yi] += q > 0 ? rint(tr->D[i] / q) * q : tr->D[i];
        /* D(i) q(i, y) = D(i) w_{i,y} / W_i */
        for (size_t c = 0; c < k; c++)
            if (c != yi && W > 0) {
                double v = tr->D[i] * tr->mw[i * k + c] / W;
                B[leaf * k + c] += q > 0 ? rint(v / q) * q : v;
            }
    }
    if (tr->dist) {
        gv_dist_sum_f64(A, tree->n_nodes * k);
        gv_dist_sum_f64(B, tree->n_nodes * k);
    }
    for (size_t j = 0; j < tree->n_nodes * k; j++) pl[j] = A[j] > B[j] ? 1.0 : 0.0;
    gv_free(A);
    gv_free(B);
    *out = pl;
    return GROVE_OK;
}

/* Appends member t (takes over c and plaus) with its log entry. */
static void add_member(gv_boost *b, gv_component *c, double *plaus, double alpha, double eps,
                       double z)
{
    size_t t = b->n_members++;
    b->members[t] = *c;
    c->vt = NULL;
    c->impl = NULL;
    if (b->plaus) b->plaus[t] = plaus;
    b->alpha[t] = alpha;
    b->log_eps[t] = eps;
    b->log_z[t] = z;
}

/* Updates the running scores with member t and returns the classification error (or RMSE for
 * r2) of the combined model on the rows of `d`, weighted by w (NULL: unweighted); h holds
 * member t's outputs on those rows. */
static double combined_error(trainer *tr, size_t t, const grove_dataset *d, const double *h,
                             double *F, double *r2_pred, const double *w)
{
    gv_boost *b = tr->b;
    const size_t n = d->n_rows, k = tr->k;
    if (b->variant == BV_R2) {
        /* the training rows: all ranks' (their squared errors summed exactly, rows_sum) */
        const int all = d == tr->in->data && tr->dist;
        const double nn = (double)(all ? tr->N : n);
        for (size_t i = 0; i < n; i++) r2_pred[t * n + i] = h[i];
        double se = 0;
        for (size_t i = 0; i < n; i++) {
            for (size_t s = 0; s <= t; s++) {
                tr->r2_tmp[s].v = r2_pred[s * n + i];
                tr->r2_tmp[s].w = b->alpha[s];
            }
            double r = d->labels[i] - gv_weighted_median(tr->r2_tmp, t + 1);
            double v = (w ? w[i] * nn : 1.0) * r * r;
            if (all) tr->c[i] = v;
            else se += v;
        }
        if (all) se = rows_sum(tr, tr->c);
        return sqrt(se / nn);
    }
    double wrong = 0; /* weighted: sum of w over wrong rows; unweighted: their count */
    const int vote = b->variant == BV_ADABOOST || b->variant == BV_M1 || b->variant == BV_SAMME;
    const double a = b->alpha[t];
    const int train = d == tr->in->data;          /* the training rows (all ranks' share) */
    const uint32_t *pred = train ? tr->pred : NULL; /* argmax of h, when known */
    for (size_t i = 0; i < n; i++) {
        double *f = F + i * k;
        if (vote)
            f[pred ? pred[i] : gv_argmax(h + i * k, k)] += a; /* = add_member_score for votes */
        else
            add_member_score(b, t, h + i * k, f);
        size_t best = k == 2 ? (size_t)(f[1] > f[0]) : gv_argmax(f, k);
        double v = (double)(best != (size_t)d->labels[i]) * (w ? w[i] : 1.0);
        if (train) tr->c[i] = v;
        else wrong += v;
    }
    if (train) wrong = rows_sum(tr, tr->c);
    return w ? wrong : wrong / (double)(train ? tr->N : n);
}

/* A perfect hypothesis decides alone: alpha above the sum of all earlier alphas. */
static double dominating_alpha(const gv_boost *b) { return 1.0 + alpha_sum(b, b->n_members); }

/* What one round's weight update found: the round's error (pseudo-loss for m2, the average
 * loss for r2), alpha and Z, or that the hypothesis is perfect or has no edge. */
typedef struct round_stats {
    double eps, alpha, z;
    double sum; /* the sum of the updated D (rows_sum's), when the update found it; else NaN */
    int perfect, too_weak, no_edge;
} round_stats;

/* The discrete variants' update D(i) *= (h(x_i) = y_i ? right : wrong); returns the sum of the
 * new D.  Data-parallel: now, summed by rows_sum.  In one process the sum needs no pass,
 *   sum_i D(i) f(i) = right (sum_i D(i) - eps) + wrong eps   (eps = sum of D over the misses),
 * and the factors wait in tr->fac for normalize_and_log's pass (D(i) f(i) / sum, once). */
static double scale_rows(trainer *tr, const uint32_t *pred, double right, double wrong)
{
    const size_t n = tr->n;
    const uint32_t *yc = tr->yc;
    double *D = tr->D;
    const double factor[2] = {right, wrong}; /* by [h(x_i) != y_i], without a branch */
    if (tr->dist) {
        for (size_t i = 0; i < n; i++) D[i] *= factor[pred[i] != yc[i]];
        return rows_sum(tr, D);
    }
    tr->fac[0] = right;
    tr->fac[1] = wrong;
    return right * (tr->dsum - tr->eps) + wrong * tr->eps;
}

/* The discrete variants in one process, once the member is kept: the whole round's update of
 * every row in one pass --
 *   D(i) <- D(i) f(i) / tot   (f(i) = fac[h(x_i) != y_i], tot = sum_i D(i) f(i): scale_rows),
 *   w(i) = D(i) N (the next round's weights),  F(i, h(x_i)) += alpha (the scores),
 * and returns combined_error's training error sum_i D_1(i) [argmax_k F(i, k) != y_i] (lanes). */
static double normalize_and_log(trainer *tr, double tot, double alpha)
{
    const size_t n = tr->n, k = tr->k;
    const uint32_t *pred = tr->pred, *yc = tr->yc; /* yc: the labels as integers */
    const double *D1 = tr->D1;
    const double N = (double)tr->N, g[2] = {tr->fac[0] / tot, tr->fac[1] / tot};
    static const double miss01[2] = {0.0, 1.0};
    double *D = tr->D, *w = tr->resample ? NULL : tr->w_round, *F = tr->F, wrong[4] = {0, 0, 0, 0};
    int big = 0; /* a weight above DBL_MAX or NaN (the tree learner then checks them itself) */
    if (k == 2 && w) {
        /* the scores in registers: f_c += alpha [c = h(x_i)] (adding an exact 0 to the other, a
         * sum of alphas > 0 from +0.0: the bits of f[h(x_i)] += alpha) */
        const double add0[2] = {alpha, 0.0}, add1[2] = {0.0, alpha};
        LANE_LOOP(n, {
            const uint32_t p = pred[i];
            w[i] = (D[i] *= g[p != yc[i]]) * N;
            big |= !(w[i] <= DBL_MAX);
            const double f0 = F[2 * i] + add0[p];
            const double f1 = F[2 * i + 1] + add1[p];
            F[2 * i] = f0;
            F[2 * i + 1] = f1;
            wrong[j] += miss01[(uint32_t)(f1 > f0) != yc[i]] * D1[i];
        })
    } else {
        LANE_LOOP(n, {
            const uint32_t p = pred[i];
            D[i] *= g[p != yc[i]];
            if (w) {
                w[i] = D[i] * N;
                big |= !(w[i] <= DBL_MAX);
            }
            double *f = F + i * k;
            f[p] += alpha;
            size_t best = k == 2 ? (size_t)(f[1] > f[0]) : gv_argmax(f, k);
            wrong[j] += miss01[best != yc[i]] * D1[i];
        })
    }
    tr->w_ready = w != NULL;
    /* D >= 0 and g >= 0: w >= 0; finite unless `big` */
    tr->base_in.weights_checked = w != NULL && !big;
    return LANE_TOTAL(wrong);
}

/* adaboost, adaboost.m1, samme: the weighted error of the labels h predicts, then
 *   adaboost  alpha = nu/2 ln((1-eps)/eps),  D(i) *= exp(-alpha y_i h(x_i)), Z = sum D
 *   m1        alpha = nu ln(1/beta), beta = eps/(1-eps),  D(i) *= beta^nu [h(x_i) = y_i]
 *   samme     alpha = nu (ln((1-eps)/eps) + ln(K-1)),  D(i) *= exp(alpha [h(x_i) != y_i]) */
static void update_discrete(trainer *tr, round_stats *rs)
{
    const int variant = tr->b->variant;
    const size_t n = tr->n, k = tr->k;
    const double nu = tr->nu;
    const uint32_t *pred = tr->pred, *yc = tr->yc;
    double eps = 0;
    if (tr->dist) {
        for (size_t i = 0; i < n; i++) tr->c[i] = tr->D[i] * (double)(pred[i] != yc[i]);
        eps = rows_sum(tr, tr->c);
    } else if (tr->eps_ready) { /* summed with pred (cells_output) */
        eps = tr->eps;
    } else { /* the lanes' sums of D over the misses and over all rows (scale_rows) */
        static const double miss01[2] = {0.0, 1.0};
        const double *D = tr->D;
        double e4[4] = {0, 0, 0, 0}, s4[4] = {0, 0, 0, 0};
        LANE_LOOP(n, {
            e4[j] += D[i] * miss01[pred[i] != yc[i]];
            s4[j] += D[i];
        })
        eps = tr->eps = LANE_TOTAL(e4);
        tr->dsum = LANE_TOTAL(s4);
    }
    rs->eps = eps;
    double limit = variant == BV_SAMME ? 1.0 - 1.0 / (double)k : 0.5;
    if (eps <= 0) {
        rs->perfect = 1;
    } else if (eps >= limit) {
        rs->too_weak = 1;
    } else if (variant == BV_ADABOOST) {
        double alpha = rs->alpha = gv_adaboost_alpha(eps, nu);
        /* D_{t+1}(i) = D_t(i) exp(-alpha y_i h(x_i)) / Z_t: y h = +1 or -1 */
        const double down = exp(-alpha), up = exp(alpha);
        rs->z = scale_rows(tr, pred, down, up);
    } else if (variant == BV_M1) {
        double beta = eps / (1 - eps);
        double alpha = rs->alpha = nu * log(1 / beta);
        /* D_{t+1}(i) ~ D_t(i) beta^[h(x_i) = y_i] (beta^nu with shrinkage) */
        double bnu = exp(-alpha);
        rs->sum = scale_rows(tr, pred, bnu, 1.0);
        rs->z = 2 * sqrt(eps * (1 - eps));
    } else {
        double alpha = rs->alpha = nu * (log((1 - eps) / eps) + log((double)k - 1));
        /* D_{t+1}(i) ~ D_t(i) exp(alpha [h(x_i) != y_i]) */
        double up = exp(alpha);
        rs->sum = scale_rows(tr, pred, 1.0, up);
        rs->z = 2 * sqrt(eps * (1 - eps));
    }
}

/* samme.r: alpha = nu, D(i) *= exp(-nu (K-1)/K sum_c y_ic ln p_c(x_i)) (y_ic = 1 for the true
 * class, -1/(K-1) for the others); eps is the weighted error of argmax p, for the log. */
static void update_samme_r(trainer *tr, round_stats *rs)
{
    const size_t n = tr->n, k = tr->k;
    const double *h = tr->h;
    const double nu = tr->nu;
    for (size_t i = 0; i < n; i++)
        tr->c[i] = gv_argmax(h + i * k, k) != (size_t)tr->y[i] ? tr->D[i] : 0.0;
    double eps = rows_sum(tr, tr->c);
    /* D_{t+1}(i) ~ D_t(i) exp(-nu (K-1)/K sum_c y_ic ln p_c(x_i)) */
    double kk = (double)k;
    for (size_t i = 0; i < n; i++) {
        size_t yi = (size_t)tr->y[i];
        double dot = 0;
        for (size_t c = 0; c < k; c++) {
            double lp = log(h[i * k + c] > P_CLIP ? h[i * k + c] : P_CLIP);
            dot += (c == yi ? 1.0 : -1.0 / (kk - 1)) * lp;
        }
        tr->D[i] *= exp(-nu * (kk - 1) / kk * dot);
    }
    rs->eps = eps;
    rs->alpha = nu;
    rs->z = rows_sum(tr, tr->D);
}

/* adaboost.m2: the pseudo-loss of the plausibilities h, then the mislabel weights
 * w_{i,y} *= beta^(1/2 (1 + h(x_i, y_i) - h(x_i, y))) (D follows from w when normalizing). */
static void update_m2(trainer *tr, round_stats *rs)
{
    const size_t n = tr->n, k = tr->k;
    const double *h = tr->h;
    const double nu = tr->nu;
    /* pseudo-loss: 1/2 sum_i D(i) (1 - h(x_i, y_i) + sum_{y != y_i} q(i, y) h(x_i, y)) */
    for (size_t i = 0; i < n; i++) {
        size_t yi = (size_t)tr->y[i];
        double W = 0, mis = 0;
        for (size_t c = 0; c < k; c++)
            if (c != yi) W += tr->mw[i * k + c];
        for (size_t c = 0; c < k; c++)
            if (c != yi && W > 0) mis += tr->mw[i * k + c] / W * h[i * k + c];
        tr->c[i] = 0.5 * tr->D[i] * (1 - h[i * k + yi] + mis);
    }
    double eps = rows_sum(tr, tr->c);
    rs->eps = eps;
    if (eps <= 0) {
        rs->perfect = 1;
    } else if (eps >= 0.5) {
        rs->too_weak = 1;
    } else if (eps >= 0.5 - gv_param_double(tr->in->params, GV_P_BOOST_MIN_EDGE)) {
        rs->too_weak = rs->no_edge = 1;
    } else {
        double beta = eps / (1 - eps);
        double alpha = rs->alpha = nu * log(1 / beta);
        /* w_{i,y} <- w_{i,y} beta^(1/2 (1 + h(x_i, y_i) - h(x_i, y))) */
        for (size_t i = 0; i < n; i++) {
            size_t yi = (size_t)tr->y[i];
            for (size_t c = 0; c < k; c++)
                if (c != yi)
                    tr->mw[i * k + c] *=
                        exp(-alpha * 0.5 * (1 + h[i * k + yi] - h[i * k + c]));
        }
        rs->z = 2 * sqrt(eps * (1 - eps));
    }
}

/* adaboost.r2 (Drucker 1997): losses L_i of |y_i - h(x_i)| relative to the round's largest
 * (linear, square or exponential), eps = sum D(i) L_i, D(i) *= beta^(1 - L_i). */
static void update_r2(trainer *tr, round_stats *rs)
{
    const size_t n = tr->n;
    const double *h = tr->h;
    const double nu = tr->nu;
    double eps = 0;
    double emax = 0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs(tr->y[i] - h[i]);
        if (e > emax) emax = e;
    }
    if (tr->dist) { /* the largest over all ranks: a double >= 0 orders as its bits */
        int64_t bits;
        memcpy(&bits, &emax, sizeof bits);
        gv_dist_max_i64(&bits, 1);
        memcpy(&emax, &bits, sizeof emax);
    }
    int64_t loss = gv_param_int(tr->in->params, GV_P_BOOST_LOSS);
    double *L = tr->w_round; /* scratch: the losses L_i */
    for (size_t i = 0; i < n; i++) {
        double r = emax > 0 ? fabs(tr->y[i] - h[i]) / emax : 0;
        L[i] = loss == 0 ? r : loss == 1 ? r * r : 1 - exp(-r);
        if (tr->dist) tr->c[i] = tr->D[i] * L[i];
        else eps += tr->D[i] * L[i];
    }
    if (tr->dist) eps = rows_sum(tr, tr->c); /* exact over the ranks */
    rs->eps = eps;
    if (eps <= 0) {
        rs->perfect = 1;
    } else if (eps >= 0.5) {
        rs->too_weak = 1;
    } else {
        double beta = eps / (1 - eps);
        double alpha = rs->alpha = nu * log(1 / beta);
        /* D_{t+1}(i) ~ D_t(i) beta^(1 - L_i) */
        for (size_t i = 0; i < n; i++) tr->D[i] *= exp(-alpha * (1 - L[i]));
        rs->z = 2 * sqrt(eps * (1 - eps));
    }
}

/* One round: the family's statistics and weight update, then the degenerate cases, the
 * normalization of D and the new member.  Returns 1 to stop. */
static int round_update(trainer *tr, size_t t, gv_component *comp, double *plaus, grove_status *st)
{
    gv_boost *b = tr->b;
    const size_t n = tr->n, k = tr->k;
    round_stats rs = {0, 0, 0, NAN, 0, 0, 0};
    *st = GROVE_OK;
    switch (b->variant) {
    case BV_ADABOOST:
    case BV_M1:
    case BV_SAMME: update_discrete(tr, &rs); break;
    case BV_SAMME_R: update_samme_r(tr, &rs); break;
    case BV_M2: update_m2(tr, &rs); break;
    case BV_R2: update_r2(tr, &rs); break;
    }
    const double eps = rs.eps, alpha = rs.alpha, z = rs.z;
    const int perfect = rs.perfect, too_weak = rs.too_weak, no_edge = rs.no_edge;

    if (too_weak && b->n_members > 0) {
        gv_component_free(comp);
        gv_free(plaus);
        *st = set_stop(b, no_edge ? "round %zu: pseudo-loss %.6g is within boost.min_edge of 1/2; "
                                    "the best weak hypothesis has no edge on this distribution, "
                                    "training stopped"
                          : b->variant == BV_SAMME
                              ? "round %zu: error %.6g is not below 1 - 1/K; the base learner "
                                "has no edge on this distribution, training stopped"
                              : "round %zu: error %.6g is not below 1/2; the base learner has no "
                                "edge on this distribution, training stopped",
                       t + 1, eps);
        return 1;
    }
    if (too_weak) {
        /* the first round: keep it alone so that a model exists */
        add_member(b, comp, plaus, 1.0, eps, 2 * sqrt(eps * (1 - eps)));
        *st = set_stop(b, "round %zu: error %.6g of the first hypothesis is not below the "
                          "limit (1/2, or 1 - 1/K for samme); the model is that hypothesis alone",
                       t + 1, eps);
        return 1;
    }
    if (perfect) {
        add_member(b, comp, plaus, dominating_alpha(b), 0.0, 0.0);
        *st = set_stop(b, "round %zu: a perfect hypothesis (error %.6g); it decides alone and "
                          "training stopped",
                       t + 1, 0.0);
        return 1;
    }
    /* normalize D (m2: D(i) = W_i / sum W) */
    if (b->variant == BV_M2) {
        for (size_t i = 0; i < n; i++) {
            double W = 0;
            for (size_t c = 0; c < k; c++)
                if (c != (size_t)tr->y[i]) W += tr->mw[i * k + c];
            tr->D[i] = W;
        }
        double tot = rows_sum(tr, tr->D);
        for (size_t i = 0; i < n; i++) tr->D[i] /= tot;
    } else {
        const int discrete = b->variant == BV_ADABOOST || b->variant == BV_M1 ||
                             b->variant == BV_SAMME;
        double tot = discrete && !tr->dist ? (b->variant == BV_ADABOOST ? z : rs.sum)
                                           : rows_sum(tr, tr->D);
        if (!(tot > 0) || !isfinite(tot)) {
            gv_component_free(comp);
            gv_free(plaus);
            *st = set_stop(b, "round %zu: the example weights degenerated (sum %g); training "
                              "stopped", t + 1, tot);
            return 1;
        }
        if (discrete && !tr->dist) {
            add_member(b, comp, plaus, alpha, eps, z);
            b->log_train[t] = normalize_and_log(tr, tot, alpha);
            tr->train_logged = 1;
            return 0;
        }
        for (size_t i = 0; i < n; i++) tr->D[i] /= tot;
    }
    add_member(b, comp, plaus, alpha, eps, z);
    return 0;
}

/* The round's member c on the training rows from the cells its learner reported: its output
 * per cell (vt->cell_output), then pred, and h where more than the vote is read (samme.r, m2
 * without a tree).  Returns 0 (nothing done) when the cell table cannot grow. */
static int cells_output(trainer *tr, const gv_component *c)
{
    const size_t n = tr->n, k = tr->k, nc = tr->cells.n_cells;
    if (nc > tr->cap_cells) {
        size_t cap = nc < 64 ? 64 : nc;
        double *ch = gv_malloc_array(cap, k * sizeof *ch);
        uint32_t *cp = gv_malloc_array(cap, sizeof *cp);
        if (!ch || !cp) {
            gv_free(ch);
            gv_free(cp);
            return 0;
        }
        gv_free(tr->cell_h);
        gv_free(tr->cell_pred);
        tr->cell_h = ch;
        tr->cell_pred = cp;
        tr->cap_cells = cap;
    }
    for (size_t j = 0; j < nc; j++) {
        double *h = tr->cell_h + j * k;
        c->vt->cell_output(c->impl, j, h);
        tr->cell_pred[j] = k == 2 ? (uint32_t)(h[1] > h[0]) : (uint32_t)gv_argmax(h, k);
    }
    const uint32_t *cell = tr->cells.cell, *cp = tr->cell_pred, *yc = tr->yc;
    uint32_t *pred = tr->pred;
    const int variant = tr->b->variant;
    if ((variant == BV_ADABOOST || variant == BV_M1 || variant == BV_SAMME) && !tr->dist) {
        /* with update_discrete's sums (the same terms in the same lanes) */
        static const double miss01[2] = {0.0, 1.0};
        const double *D = tr->D;
        double e4[4] = {0, 0, 0, 0}, s4[4] = {0, 0, 0, 0};
        LANE_LOOP(n, {
            const uint32_t p = cp[cell[i]];
            pred[i] = p;
            e4[j] += D[i] * miss01[p != yc[i]];
            s4[j] += D[i];
        })
        tr->eps = LANE_TOTAL(e4);
        tr->dsum = LANE_TOTAL(s4);
        tr->eps_ready = 1;
    } else {
        for (size_t i = 0; i < n; i++) pred[i] = cp[cell[i]];
    }
    if (variant != BV_ADABOOST && variant != BV_M1 && variant != BV_SAMME)
        for (size_t i = 0; i < n; i++) memcpy(tr->h + i * k, tr->cell_h + cell[i] * k, k * sizeof *tr->h);
    tr->pred_ready = 1;
    return 1;
}

static grove_status fit_boost(int variant, const gv_fit_input *in, gv_rng *rng,
                              gv_component *out)
{
    (void)rng;
    const size_t n = in->data->n_rows;
    const int K = in->n_classes;
    const char *name = variant_names[variant];
    if (variant == BV_R2 && K != 0)
        return gv_err(GROVE_ERR_PARAM, "algo: adaboost.r2 is for regression; this is a "
                                       "classification task (use adaboost, samme, ...)");
    if (variant != BV_R2 && K == 0)
        return gv_err(GROVE_ERR_PARAM,
                      "algo: %s is for classification; use adaboost.r2 for regression", name);
    if (variant == BV_ADABOOST && K != 2)
        return gv_err(GROVE_ERR_PARAM,
                      "algo: adaboost is for two classes, this task has %d; use adaboost.m1, "
                      "samme, samme.r or adaboost.m2",
                      K);
    if (in->rows)
        return gv_err(GROVE_ERR_INTERNAL, "%s: boosting a row view is not supported", name);
    if (gv_param_int(in->params, GV_P_EARLY_STOPPING_ROUNDS) > 0 && !in->valid)
        return gv_err(GROVE_ERR_PARAM,
                      "early_stopping_rounds: needs validation data (--valid FILE)");

    trainer tr;
    memset(&tr, 0, sizeof tr);
    tr.in = in;
    grove_status st = gv_base_learner(in->params, &tr.base);
    if (st != GROVE_OK) return st;
    tr.base_in = *in;
    tr.base_in.params = gv_params_base(in->params);
    tr.base_in.valid = NULL;
    tr.base_in.pred = NULL; /* a member's outputs are not the ensemble's */
    tr.n = n;
    tr.k = K ? (size_t)K : 1;
    tr.rounds = (size_t)gv_param_int(in->params, GV_P_ROUNDS);
    tr.nu = gv_param_double(in->params, GV_P_BOOST_LEARNING_RATE);
    tr.resample = gv_param_int(in->params, GV_P_BOOST_MODE) == 1;
    tr.y = in->y;
    tr.dist = gv_dist_active();
    tr.N = n;
    if (tr.dist) {
        /* data-parallel: tree members only (their histograms are summed over the ranks) */
        if (tr.base->fit != gv_fit_tree && tr.base->fit != gv_fit_stump && tr.base->fit != gv_fit_id3)
            return gv_err(GROVE_ERR_PARAM, "base: data-parallel training (mpirun) boosts tree, "
                                           "stump or id3 members, got '%s'", tr.base->name);
        gv_dist_offsets(n, &tr.first, &tr.N);
    }
    /* the sample is drawn over all ranks' rows: N draws by default */
    tr.sample_size = (size_t)gv_param_int(in->params, GV_P_BOOST_SAMPLE_SIZE);
    if (tr.sample_size == 0) tr.sample_size = tr.N;
    gv_rng_seed(&tr.rng, (uint64_t)gv_param_int(in->params, GV_P_SEED), GV_STREAM_BOOST, 0);
    const grove_dataset *valid = in->valid;
    const size_t nv = valid ? valid->n_rows : 0, k = tr.k;
    size_t patience = (size_t)gv_param_int(in->params, GV_P_EARLY_STOPPING_ROUNDS);

    tr.b = boost_new(variant, K, tr.rounds, valid != NULL);
    tr.D = gv_malloc_array(n, sizeof *tr.D);
    tr.D1 = gv_malloc_array(n, sizeof *tr.D1);
    tr.w_round = gv_malloc_array(n, sizeof *tr.w_round);
    tr.h = gv_malloc_array(n, k * sizeof *tr.h);
    tr.pred = gv_malloc_array(n, sizeof *tr.pred);
    tr.yc = gv_malloc_array(n, sizeof *tr.yc);
    tr.c = gv_malloc_array(n ? n : 1, sizeof *tr.c);
    tr.hv = valid ? gv_malloc_array(nv ? nv : 1, k * sizeof *tr.hv) : NULL;
    if (variant == BV_R2) {
        tr.r2_pred = gv_malloc_array(tr.rounds, n * sizeof *tr.r2_pred);
        tr.r2_vpred = valid ? gv_malloc_array(tr.rounds, (nv ? nv : 1) * sizeof(double)) : NULL;
        tr.r2_tmp = gv_malloc_array(tr.rounds, sizeof *tr.r2_tmp);
    } else {
        tr.F = gv_calloc(n * k, sizeof *tr.F);
        tr.Fv = valid ? gv_calloc((nv ? nv : 1) * k, sizeof *tr.Fv) : NULL;
    }
    if (tr.resample) {
        tr.sample = gv_malloc_array(tr.sample_size, sizeof *tr.sample);
        tr.cum = gv_malloc_array(n, sizeof *tr.cum);
    }
    if (variant == BV_M2) {
        tr.mw = gv_malloc_array(n, k * sizeof *tr.mw);
        tr.q = gv_malloc_array(n, k * sizeof *tr.q);
    }
    if (!tr.resample && n > 0) {
        /* the base learner may report each row's cell (gv_fit_cells): an optimization only,
         * so without the memory every row is predicted as before */
        tr.cells.cell = gv_malloc_array(n, sizeof *tr.cells.cell);
        if (tr.cells.cell) tr.base_in.cells = &tr.cells;
    }
    if (!tr.b || !tr.D || !tr.D1 || !tr.w_round || !tr.h || !tr.pred || !tr.yc || !tr.c || (valid && !tr.hv) ||
        (variant == BV_R2 && (!tr.r2_pred || !tr.r2_tmp || (valid && !tr.r2_vpred))) ||
        (variant != BV_R2 && (!tr.F || (valid && !tr.Fv))) ||
        (tr.resample && (!tr.sample || !tr.cum)) || (variant == BV_M2 && (!tr.mw || !tr.q)))
        st = gv_err_nomem("boosting state");
    if (tr.dist) st = gv_dist_agree(st); /* no rank may be left waiting in a collective */
    if (st != GROVE_OK) goto fail;
    if (K == 2 && variant != BV_M2 && !tr.resample && !tr.dist &&
        (tr.base->fit == gv_fit_tree || tr.base->fit == gv_fit_stump || tr.base->fit == gv_fit_id3)) {
        /* the members' root histograms read whole rows (hist.c, build_rows_class2) */
        if ((st = gv_binned_row_major(in->binned, in->n_threads, &tr.row_bins)) != GROVE_OK) goto fail;
        tr.base_in.row_bins = tr.row_bins;
    }
    /* D_1 proportional to the sample weights (uniform without them) */
    for (size_t i = 0; i < n; i++) tr.D[i] = in->weight ? in->weight[i] : 1.0;
    double tot = rows_sum(&tr, tr.D);
    if (!(tot > 0)) {
        st = gv_err(GROVE_ERR_DATA, "%s: the sample weights sum to zero", name);
        goto fail;
    }
    for (size_t i = 0; i < n; i++) tr.D1[i] = tr.D[i] /= tot;
    for (size_t i = 0; i < n; i++) tr.yc[i] = variant == BV_R2 ? 0 : (uint32_t)tr.y[i];
    if (variant == BV_M2) {
        /* w_{i,y} = D(i) / (K - 1) for every mislabel y != y_i */
        for (size_t i = 0; i < n; i++)
            for (size_t c = 0; c < k; c++)
                tr.mw[i * k + c] = c == (size_t)tr.y[i] ? 0.0 : tr.D[i] / (double)(k - 1);
    }

    size_t best_t = 0;
    double best_valid = INFINITY;
    for (size_t t = 0; t < tr.rounds; t++) {
        if (gv_progress(in->params, "round", t, tr.rounds)) {
            st = gv_err(GROVE_ERR_ARG, "cancelled");
            goto fail;
        }
        gv_component c = {0};
        double *plaus = NULL;
        if ((st = gv_dist_round(t + 1)) != GROVE_OK) goto fail;
        tr.pred_ready = tr.eps_ready = tr.train_logged = 0;
        st = fit_round(&tr, t, &c);
        if (st != GROVE_OK) goto fail;
        if (variant == BV_M2 && c.vt == &gv_tree_component) {
            st = m2_tree_plausibilities(&tr, c.impl, &plaus);
            if (st != GROVE_OK) {
                gv_component_free(&c);
                goto fail;
            }
            for (size_t i = 0; i < n; i++) {
                size_t leaf = gv_tree_leaf(c.impl, in->data, i);
                memcpy(tr.h + i * k, plaus + leaf * k, k * sizeof *tr.h);
            }
        } else if (tr.cells.cell && tr.cells.impl && tr.cells.impl == c.impl &&
                   c.vt->cell_output && variant != BV_R2 && cells_output(&tr, &c)) {
            /* the member's outputs per cell (pred, and h where the update reads it) */
        } else {
            gv_component_predict_all(&c, in->data, k, in->n_threads, tr.h);
        }
        if (variant != BV_R2 && !tr.pred_ready) {
            if (k == 2)
                for (size_t i = 0; i < n; i++) tr.pred[i] = tr.h[2 * i + 1] > tr.h[2 * i];
            else
                for (size_t i = 0; i < n; i++) tr.pred[i] = (uint32_t)gv_argmax(tr.h + i * k, k);
        }
        int stop = round_update(&tr, t, &c, plaus, &st);
        if (st != GROVE_OK) goto fail;
        size_t added = tr.b->n_members;
        if (added == t + 1) {
            /* the member was kept: log its effect on the combined model */
            gv_boost *b = tr.b;
            if (!tr.train_logged)
                b->log_train[t] = combined_error(&tr, t, in->data, tr.h, tr.F, tr.r2_pred, tr.D1);
            if (valid) {
                if (b->plaus && b->plaus[t]) {
                    for (size_t i = 0; i < nv; i++) member_output(b, t, valid, i, tr.hv + i * k);
                } else {
                    gv_component_predict_all(&b->members[t], valid, k, in->n_threads, tr.hv);
                }
                b->log_valid[t] = combined_error(&tr, t, valid, tr.hv, tr.Fv, tr.r2_vpred, NULL);
            }
            if (gv_progress_round(in->params, t + 1, tr.rounds, "error", b->log_train[t],
                                  valid ? b->log_valid[t] : NAN)) {
                st = gv_err(GROVE_ERR_ARG, "cancelled");
                goto fail;
            }
            if (valid) {
                if (b->log_valid[t] < best_valid) {
                    best_valid = b->log_valid[t];
                    best_t = t;
                }
                if (patience && t - best_t >= patience) {
                    st = set_stop(b, "round %zu: no validation improvement for %g rounds; "
                                     "kept the best round",
                                  t + 1, (double)patience);
                    if (st != GROVE_OK) goto fail;
                    break;
                }
            }
        }
        if (stop) break;
    }
    if (patience && valid && tr.b->n_members > best_t + 1) {
        /* early stopping keeps the rounds up to the best validation error */
        gv_boost *b = tr.b;
        for (size_t t = best_t + 1; t < b->n_members; t++) {
            gv_component_free(&b->members[t]);
            if (b->plaus) {
                gv_free(b->plaus[t]);
                b->plaus[t] = NULL;
            }
        }
        b->n_members = best_t + 1;
    }
    gv_progress(in->params, "round", tr.rounds, tr.rounds);
    out->vt = &gv_boost_component;
    out->impl = tr.b;
    tr.b = NULL;
    trainer_free(&tr);
    return GROVE_OK;
fail:
    boost_free(tr.b);
    trainer_free(&tr);
    return st;
}

grove_status gv_fit_adaboost(const gv_fit_input *in, gv_rng *rng, gv_component *out)
{
    return fit_boost(BV_ADABOOST, in, rng, out);
}
grove_status gv_fit_adaboost_m1(const gv_fit_input *in, gv_rng *rng, gv_component *out)
{
    return fit_boost(BV_M1, in, rng, out);
}
grove_status gv_fit_samme(const gv_fit_input *in, gv_rng *rng, gv_component *out)
{
    return fit_boost(BV_SAMME, in, rng, out);
}
grove_status gv_fit_samme_r(const gv_fit_input *in, gv_rng *rng, gv_component *out)
{
    return fit_boost(BV_SAMME_R, in, rng, out);
}
grove_status gv_fit_adaboost_m2(const gv_fit_input *in, gv_rng *rng, gv_component *out)
{
    return fit_boost(BV_M2, in, rng, out);
}
grove_status gv_fit_adaboost_r2(const gv_fit_input *in, gv_rng *rng, gv_component *out)
{
    return fit_boost(BV_R2, in, rng, out);
}

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
            member_output(b, t, d, (size_t)i, h);
            add_member_score(b, t, h, s);
            if (t + 1 != rounds[stage]) continue;
            double other = -INFINITY, z = alpha_sum(b, t + 1);
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
    gv_boost *b = boost_new(variant, (int)K, n, with_valid);
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
    boost_free(b);
    return st;
}

static grove_status boost_validate(const void *impl, const grove_schema *schema)
{
    const gv_boost *b = impl;
    for (size_t t = 0; t < b->n_members; t++) {
        if (!isfinite(b->alpha[t]) || b->alpha[t] < 0)
            return gv_err(GROVE_ERR_MODEL, "alpha[%zu]: must be finite and >= 0", t);
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

const gv_component_vt gv_boost_component = {
    .kind = "boost",
    .predict_row = boost_predict_row,
    .to_json = boost_to_json,
    .from_json = boost_from_json,
    .free = boost_free,
    .validate = boost_validate,
    .check = boost_check,
    .summary = boost_summary,
    .n_rounds = boost_n_rounds,
    .predict_row_rounds = boost_predict_rounds,
    .log_csv = boost_log_csv,
    .margins = boost_margins,
    .predict_block = boost_predict_block,
    .importance = boost_importance,
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
