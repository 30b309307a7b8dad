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
 * The model -- prediction, margins, the log, the model file -- is boost_model.c (boost_int.h).
 */
#include "boost_int.h"

#include "../core/params.h"
#include "../core/json.h"
#include "../core/mathx.h"
#include "../dist/dist.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    double *r2_pred;         /* adaboost.r2: [r2_cap * n] member predictions on training rows */
    double *r2_vpred;        /* adaboost.r2: [r2_cap * nv] on validation rows */
    gv_wv *r2_tmp;              /* [r2_cap] */
    size_t r2_cap;           /* rounds the r2 arrays hold (grown as rounds run: boost_grow) */
    double *c;               /* [n] per-row terms of a sum (rows_sum) */
    gv_tree_session *engine; /* two classes, tree members, reweighting, one process: the tree
                                engine's session, whose row-major bins the members' histograms
                                read (gv_tree_session_row_bins), or NULL */
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
    int exact;               /* 1: every sum over the rows exact (gv_dist_sum_exact, D on dist.h's
                                grid): a data-parallel run (the rows are this rank's share), and
                                one process boosting tree members, so that both write the same
                                model; 0: one process's fused row-order sums (other members) */
    size_t N;                /* rows over all ranks (n in one process) */
    size_t first;            /* this rank's first row in the global order */
    gv_rng rng;
} trainer;

/* The sum over the training rows (all ranks' in a data-parallel run) of v[0..n): when exact
 * (data-parallel, or one process boosting tree members) exactly (gv_dist_sum_exact: v rounded
 * to the common grid, summed in integers), so the result does not depend on how the rows are
 * split; otherwise in row order. */
static double rows_sum(const trainer *tr, const double *v)
{
    if (tr->exact) return gv_dist_sum_exact(v, tr->n);
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
    gv_tree_session_close(tr->engine);
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
    if (tr->exact) {
        /* cum[i] = the global cumulative weight through row i: the lower ranks' total plus
         * this rank's prefix, all exact multiples of the grid */
        double q = gv_dist_grid(tr->D, tr->n, 1);
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
        if (tr->exact && (u < lo_tot || u >= hi_tot)) continue; /* another rank's row */
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
        if (tr->exact) st = gv_dist_agree(st);
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
    const double q = tr->exact ? gv_dist_grid(tr->D, n, 1) : 0;
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
    if (tr->exact) {
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

/* ptr (an array of cap_old entries, or NULL: not used) grown to cap entries, the new ones
 * zero; returns from the caller with an out-of-memory status on failure. */
#define GROW_ZEROED(ptr, cap_old, cap)                                                             \
    do {                                                                                           \
        if (ptr) {                                                                                 \
            void *q_ = gv_realloc_array(ptr, cap, sizeof *(ptr));                                  \
            if (!q_) return gv_err_nomem("boosting rounds");                                       \
            ptr = q_;                                                                              \
            memset(ptr + (cap_old), 0, ((cap) - (cap_old)) * sizeof *(ptr));                       \
        }                                                                                          \
    } while (0)

/* Room for `need` rounds in the model's per-round arrays and adaboost.r2's, doubled as rounds
 * run: `rounds` (up to 1e8) is a bound, not an allocation made before the first round. */
static grove_status boost_grow(gv_boost *b, double **r2_pred, double **r2_vpred, gv_wv **r2_tmp,
                               size_t *r2_cap, size_t n, size_t nv, size_t need)
{
    if (need > b->cap) {
        size_t cap = b->cap * 2 > need ? b->cap * 2 : need, old = b->cap;
        GROW_ZEROED(b->members, old, cap);
        GROW_ZEROED(b->alpha, old, cap);
        GROW_ZEROED(b->log_eps, old, cap);
        GROW_ZEROED(b->log_z, old, cap);
        GROW_ZEROED(b->log_train, old, cap);
        GROW_ZEROED(b->log_valid, old, cap);
        GROW_ZEROED(b->plaus, old, cap);
        b->cap = cap;
    }
    if (*r2_tmp && need > *r2_cap) {
        size_t cap = *r2_cap * 2 > need ? *r2_cap * 2 : need;
        void *p = gv_realloc_array(*r2_pred, cap, n * sizeof **r2_pred);
        if (!p) return gv_err_nomem("boosting rounds");
        *r2_pred = p;
        if (*r2_vpred) {
            p = gv_realloc_array(*r2_vpred, cap, (nv ? nv : 1) * sizeof **r2_vpred);
            if (!p) return gv_err_nomem("boosting rounds");
            *r2_vpred = p;
        }
        p = gv_realloc_array(*r2_tmp, cap, sizeof **r2_tmp);
        if (!p) return gv_err_nomem("boosting rounds");
        *r2_tmp = p;
        *r2_cap = cap;
    }
    return GROVE_OK;
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
        const int all = d == tr->in->data && tr->exact;
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
            f[pred ? pred[i] : gv_argmax(h + i * k, k)] += a; /* = gv_boost_add_score for votes */
        else
            gv_boost_add_score(b, t, h + i * k, f);
        size_t best = k == 2 ? (size_t)(f[1] > f[0]) : gv_argmax(f, k);
        double v = (double)(best != (size_t)d->labels[i]) * (w ? w[i] : 1.0);
        if (train) tr->c[i] = v;
        else wrong += v;
    }
    if (train) wrong = rows_sum(tr, tr->c);
    return w ? wrong : wrong / (double)(train ? tr->N : n);
}

/* A perfect hypothesis decides alone: alpha above the sum of all earlier alphas. */
static double dominating_alpha(const gv_boost *b) { return 1.0 + gv_boost_alpha_sum(b, b->n_members); }

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
    if (tr->exact) {
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
    if (tr->exact) {
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
    if (tr->exact) { /* the largest over all ranks: a double >= 0 orders as its bits */
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
        if (tr->exact) tr->c[i] = tr->D[i] * L[i];
        else eps += tr->D[i] * L[i];
    }
    if (tr->exact) eps = rows_sum(tr, tr->c); /* exact over the ranks */
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
        /* the discrete variants' update found the sum of the new D (scale_rows; when exact,
         * rows_sum of this same D) */
        double tot = discrete ? (b->variant == BV_ADABOOST ? z : rs.sum) : rows_sum(tr, tr->D);
        if (!(tot > 0) || !isfinite(tot)) {
            gv_component_free(comp);
            gv_free(plaus);
            *st = set_stop(b, "round %zu: the example weights degenerated (sum %g); training "
                              "stopped", t + 1, tot);
            return 1;
        }
        if (discrete && !tr->exact) {
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
    if ((variant == BV_ADABOOST || variant == BV_M1 || variant == BV_SAMME) && !tr->exact) {
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
    const int dist = gv_dist_active();
    const int tree_members = tr.base->fit == gv_fit_tree || tr.base->fit == gv_fit_stump ||
                             tr.base->fit == gv_fit_id3;
    /* tree members: the data-parallel arithmetic in one process too (exact sums, D on the
     * grid), so that one process and every rank count write the same model */
    tr.exact = dist || tree_members;
    tr.N = n;
    if (dist) {
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

    /* the per-round arrays start small and grow as rounds run (boost_grow) */
    const size_t first_cap = tr.rounds < 64 ? tr.rounds : 64;
    tr.b = gv_boost_new(variant, K, first_cap, valid != NULL);
    tr.D = gv_malloc_array(n, sizeof *tr.D);
    tr.D1 = gv_malloc_array(n, sizeof *tr.D1);
    tr.w_round = gv_malloc_array(n, sizeof *tr.w_round);
    tr.h = gv_malloc_array(n, k * sizeof *tr.h);
    tr.pred = gv_malloc_array(n, sizeof *tr.pred);
    tr.yc = gv_malloc_array(n, sizeof *tr.yc);
    tr.c = gv_malloc_array(n ? n : 1, sizeof *tr.c);
    tr.hv = valid ? gv_malloc_array(nv ? nv : 1, k * sizeof *tr.hv) : NULL;
    if (variant == BV_R2) {
        tr.r2_cap = first_cap;
        tr.r2_pred = gv_malloc_array(first_cap, n * sizeof *tr.r2_pred);
        tr.r2_vpred = valid ? gv_malloc_array(first_cap, (nv ? nv : 1) * sizeof(double)) : NULL;
        tr.r2_tmp = gv_malloc_array(first_cap, sizeof *tr.r2_tmp);
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
    if (dist) st = gv_dist_agree(st); /* no rank may be left waiting in a collective */
    if (st != GROVE_OK) goto fail;
    if (K == 2 && variant != BV_M2 && !tr.resample && !dist &&
        (tr.base->fit == gv_fit_tree || tr.base->fit == gv_fit_stump || tr.base->fit == gv_fit_id3)) {
        /* the members' root histograms read whole rows (hist.c, build_rows_class2) */
        const gv_tree_session_opts eo = {.n_threads = in->n_threads};
        if ((st = gv_tree_session_open(in->binned, &eo, &tr.engine)) != GROVE_OK) goto fail;
        tr.base_in.row_bins = gv_tree_session_row_bins(tr.engine);
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
        /* every rank grows at the same rounds (64, 128, ...): agreed only then, so the rounds
         * in between cost no collective */
        int grows = t + 1 > tr.b->cap || (tr.r2_tmp && t + 1 > tr.r2_cap);
        st = boost_grow(tr.b, &tr.r2_pred, &tr.r2_vpred, &tr.r2_tmp, &tr.r2_cap, n, nv, t + 1);
        if (dist && grows) st = gv_dist_agree(st);
        if (st != GROVE_OK) goto fail;
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
                    for (size_t i = 0; i < nv; i++) gv_boost_member_output(b, t, valid, i, tr.hv + i * k);
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
    gv_boost_free(tr.b);
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

