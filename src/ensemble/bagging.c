/*
 * bagging.c -- averaging ensembles: bagging of any base learner (Breiman 1996), random forests
 * (Breiman 2001) and extremely randomized trees (Geurts, Ernst & Wehenkel 2006), with the
 * out-of-bag (OOB) error and its curve against the number of models.  One component kind,
 * "bagging".
 *
 * Pipeline position: ensemble/ (written against learn/learner.h; forests call the tree engine
 * of learn/tree.h directly, as the "tree" learner does).
 *
 *   bagging      T models of the base learner ("base", default: tree, unpruned; parameters
 *                base.KEY), model t fitted on a replicate R_t: m = round(sample_fraction n)
 *                rows drawn with replacement (bootstrap, bagging.replace=true) or without.
 *                Rows of sample weight 0 take no part in the draws (n and the draws count
 *                only the rows of positive weight), so that they change no replicate.
 *   forest       bagged CART trees, unpruned, each node choosing among max_features candidates
 *                drawn afresh (default sqrt(F) for classification, floor(F/3) for regression);
 *                the tree parameters (max_depth, min_samples_leaf, criterion...) are the
 *                forest's own.
 *   extra-trees  as forest, but every candidate feature gets ONE random split point (tree.h,
 *                random_thresholds) and, unless bagging.replace / sample_fraction say
 *                otherwise, every tree sees all rows (Geurts et al. 2006); max_features default
 *                sqrt(F) (classification), F (regression).
 * Aggregation: hard vote -- H(x) = argmax_k #{t : h_t(x) = k}, h_t(x) the member's argmax with
 * ties to the lowest class, predicted probabilities the vote fractions (so argmax ties go to
 * the lowest class too); soft vote -- p(x) = 1/T sum_t p_t(x); regression -- f(x) = 1/T sum_t
 * f_t(x).  Sums run over t in order.
 *
 * Out-of-bag error (Breiman 1996b), exactly: for every example i, O_m(i) = {t <= m : i not in
 * R_t}; the OOB prediction H_m^oob(x_i) aggregates (as above) only the models in O_m(i); with
 * S_m = {i : O_m(i) non-empty},
 *     oob_error(m) = 1/|S_m| sum_{i in S_m} loss(H_m^oob(x_i), y_i),
 * loss = [H != y] (classification) or (H - y)^2 (regression: the OOB mean squared error);
 * unweighted.  The curve m = 1..T is stored with |S_m|; oob_error(T) and |S_T| are the OOB
 * estimate.  With no OOB rows (extra-trees' default) |S| = 0 and the error is undefined (NaN
 * in memory, null in the file).
 * OOB permutation importance (oob_importance=true, tree members): for tree t with OOB rows
 * O_t, err_t = its own error on O_t, err_t(f) = the same with feature f's values permuted
 * among O_t (stream (seed, GV_STREAM_OOB_PERMUTE, t F + f)); importance(f) = mean over trees
 * with O_t non-empty of err_t(f) - err_t (Breiman 2001, sec. 10); not normalized.
 *
 * Threads and determinism: models are fitted in batches of 2 x threads, in parallel over
 * models (OpenMP, each model single-threaded, its rng (seed, GV_STREAM_BAGGING, t) drawing its
 * rows and then growing it).  After each batch the OOB bookkeeping runs model by model in
 * index order (rows in parallel, each row owned by one thread), so the model, its curve and
 * its importances are bit-identical for any thread count.
 * Ownership: the component owns its members and arrays; training scratch is freed in one
 * place (fit_averaging's exit).
 * C export (export_c, core/cgen.h): the members, then the vote, divided by T.
 */
#include "ensemble.h"
#include "../learn/tree_pack.h"

#include "../core/params.h"
#include "../core/json.h"
#include "../core/mathx.h"
#include "../dist/dist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

enum { BAG_BAGGING, BAG_FOREST, BAG_EXTRA, BAG_COUNT };
static const char *const mode_names[BAG_COUNT] = {"bagging", "forest", "extra-trees"};
enum { VOTE_HARD, VOTE_SOFT, VOTE_MEAN, VOTE_COUNT };
static const char *const vote_names[VOTE_COUNT] = {"hard", "soft", "mean"};

typedef struct gv_bagging {
    int mode;               /* BAG_* */
    int vote;               /* VOTE_*; VOTE_MEAN iff regression */
    int n_classes;          /* K >= 2, or 0 for regression */
    size_t n_members;
    gv_component *members;  /* [n_members], owned */
    double *oob_error;      /* [n_members]: oob_error(m) at index m - 1; NaN when |S_m| = 0 */
    size_t *oob_n;          /* [n_members]: |S_m| */
    size_t n_features;      /* length of oob_importance (0 when NULL) */
    double *oob_importance; /* [n_features] or NULL */
    gv_pack_cache pack;     /* the members compiled for prediction, on first use */
} gv_bagging;

#define STACK_K 256

static size_t n_out(const gv_bagging *b) { return b->n_classes ? (size_t)b->n_classes : 1; }

static void bagging_free(void *impl)
{
    gv_bagging *b = impl;
    if (!b) return;
    if (b->members)
        for (size_t t = 0; t < b->n_members; t++) gv_component_free(&b->members[t]);
    gv_free(b->members);
    gv_free(b->oob_error);
    gv_free(b->oob_n);
    gv_free(b->oob_importance);
    gv_pack_cache_free(&b->pack);
    gv_free(b);
}

/* A new component with room for n members (n_members 0); NULL when out of memory. */
static gv_bagging *bagging_new(int mode, int vote, int n_classes, size_t n)
{
    gv_bagging *b = gv_calloc(1, sizeof *b);
    if (!b) return NULL;
    gv_pack_cache_init(&b->pack);
    b->mode = mode;
    b->vote = vote;
    b->n_classes = n_classes;
    b->members = gv_calloc(n ? n : 1, sizeof *b->members);
    b->oob_error = gv_calloc(n ? n : 1, sizeof *b->oob_error);
    b->oob_n = gv_calloc(n ? n : 1, sizeof *b->oob_n);
    if (!b->members || !b->oob_error || !b->oob_n) {
        bagging_free(b);
        return NULL;
    }
    return b;
}

/* Adds member output h[k] to the aggregate acc[k] (hard: one vote for argmax h). */
static inline void aggregate_add(int vote, const double *h, size_t k, double *acc)
{
    if (vote == VOTE_HARD) {
        acc[gv_argmax(h, k)] += 1;
        return;
    }
    for (size_t c = 0; c < k; c++) acc[c] += h[c];
}

static void bagging_predict_rounds(const void *impl, const grove_dataset *d, size_t i,
                                   size_t rounds, double *out)
{
    const gv_bagging *b = impl;
    const size_t k = n_out(b);
    if (rounds > b->n_members) rounds = b->n_members;
    double stack[STACK_K], *h = k <= STACK_K ? stack : gv_malloc_array(k, sizeof *h);
    if (!h) {
        for (size_t c = 0; c < k; c++) out[c] = NAN;
        return;
    }
    memset(out, 0, k * sizeof *out);
    for (size_t t = 0; t < rounds; t++) {
        b->members[t].vt->predict_row(b->members[t].impl, d, i, h);
        aggregate_add(b->vote, h, k, out);
    }
    /* vote fractions, mean probabilities or the mean value */
    for (size_t c = 0; c < k; c++) out[c] /= (double)rounds;
    if (h != stack) gv_free(h);
}

static void bagging_predict_row(const void *impl, const grove_dataset *d, size_t i, double *out)
{
    bagging_predict_rounds(impl, d, i, ((const gv_bagging *)impl)->n_members, out);
}

/* Rows [begin, end) member by member (learner.h's predict_block): tree members through the
 * compiled trees (tree_pack.h) over row-major blocks, others row by row; every row's aggregate
 * adds the members' outputs in bagging_predict_rounds' order, so the results are identical. */
static void bagging_predict_block(const void *impl, const grove_dataset *d, size_t begin,
                                  size_t end, size_t rounds, double *out)
{
    gv_bagging *b = (gv_bagging *)impl; /* the pack cache is built on first use */
    const size_t k = n_out(b);
    if (rounds == 0 || rounds > b->n_members) rounds = b->n_members;
    const size_t F = d->schema->n_features ? d->schema->n_features : 1;
    const size_t R = gv_pack_block_rows_deep(F);
    /* a sparse dataset is not copied row-major: its rows would be as wide as its largest index */
    const gv_tree_pack *pk = d->values && k <= STACK_K ? gv_pack_cache_get(&b->pack, b->members, b->n_members) : NULL;
    float *xs = pk && gv_tree_pack_n(pk) == b->n_members ? gv_malloc_array(R * F, sizeof *xs) : NULL;
    double *acc = xs ? gv_malloc_array(R * k, sizeof *acc) : NULL;
    int32_t *leaf = acc ? gv_malloc_array(R, sizeof *leaf) : NULL;
    if (!leaf) {
        gv_free(acc);
        gv_free(xs);
        for (size_t i = begin; i < end; i++) bagging_predict_rounds(impl, d, i, rounds, out + (i - begin) * k);
        return;
    }
    double h[STACK_K];
    for (size_t r0 = begin; r0 < end; r0 += R) {
        const size_t B = end - r0 < R ? end - r0 : R;
        const int nan = gv_rows_gather(d, r0, B, xs);
        memset(acc, 0, B * k * sizeof *acc);
        for (size_t t = 0; t < rounds; t++) {
            const gv_tree *tree = gv_tree_pack_tree(pk, t);
            if (tree) {
                gv_tree_pack_leaves(pk, t, xs, F, B, d, r0, nan, leaf);
                for (size_t r = 0; r < B; r++) aggregate_add(b->vote, tree->values + (size_t)leaf[r] * k, k, acc + r * k);
            } else {
                for (size_t r = 0; r < B; r++) {
                    b->members[t].vt->predict_row(b->members[t].impl, d, r0 + r, h);
                    aggregate_add(b->vote, h, k, acc + r * k);
                }
            }
        }
        for (size_t r = 0; r < B; r++)
            for (size_t c = 0; c < k; c++) out[(r0 - begin + r) * k + c] = acc[r * k + c] / (double)rounds;
    }
    gv_free(leaf);
    gv_free(acc);
    gv_free(xs);
}

static void bagging_predict_prepare(const void *impl, const grove_dataset *d, int n_threads)
{
    gv_bagging *b = (gv_bagging *)impl;
    if (d->values && n_out(b) <= STACK_K) gv_pack_cache_get_par(&b->pack, b->members, b->n_members, n_threads);
}

static size_t bagging_n_rounds(const void *impl) { return ((const gv_bagging *)impl)->n_members; }

/* ---------------------------------------------------------------------------------------------
 * Replicates
 * ------------------------------------------------------------------------------------------ */

size_t gv_bagging_replicate(size_t n, double fraction, int replace, gv_rng *rng, size_t *rows,
                            uint8_t *in_bag, uint32_t *count)
{
    return gv_bagging_replicate_part(n, 0, n, fraction, replace, rng, rows, in_bag, count);
}

size_t gv_bagging_replicate_part(size_t N, size_t first, size_t n, double fraction, int replace,
                                 gv_rng *rng, size_t *rows, uint8_t *in_bag, uint32_t *count)
{
    double want = floor(fraction * (double)N + 0.5);
    size_t m = want < 1 ? 1 : (size_t)want;
    if (replace) {
        /* m uniform draws over all N rows; this part counts its own; emitted by row so that
         * each replicate reads its rows in order */
        memset(count, 0, n * sizeof *count);
        for (size_t j = 0; j < m; j++) {
            size_t r = gv_rng_below(rng, N);
            if (r >= first && r - first < n) count[r - first]++;
        }
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            in_bag[i] = count[i] > 0;
            for (uint32_t c = 0; c < count[i]; c++) rows[k++] = i;
        }
        return k;
    }
    if (m > N) m = N;
    if (m == N) {
        for (size_t i = 0; i < n; i++) {
            rows[i] = i;
            in_bag[i] = 1;
        }
        return n;
    }
    /* Selection sampling (Knuth, TAOCP 2, 3.4.2, Algorithm S): row i is taken with probability
     * (m - taken) / (N - i); exactly m rows, every m-subset equally likely.  A part runs the
     * whole selection (the same draws) and keeps its own rows. */
    size_t taken = 0, kept = 0;
    for (size_t i = 0; i < N; i++) { /* to the end: the rng must advance as one process's */
        int take = taken < m && (double)(N - i) * gv_rng_uniform(rng) < (double)(m - taken);
        taken += (size_t)take;
        if (i < first || i - first >= n) continue;
        in_bag[i - first] = (uint8_t)take;
        if (take) rows[kept++] = i - first;
    }
    return kept;
}

/* ---------------------------------------------------------------------------------------------
 * Training
 * ------------------------------------------------------------------------------------------ */

typedef struct slot {
    size_t *rows;      /* [m_max] the replicate (data rows) */
    uint8_t *in_bag;   /* [n] by view position */
    uint32_t *count;   /* [n] scratch (with replacement) */
    size_t *perm;      /* [n] OOB permutation scratch (oob_importance), one per thread */
    grove_status st;
    char msg[512];
} slot;

typedef struct trainer {
    const gv_fit_input *in;
    int mode, vote, replace, classification, oob_imp;
    size_t n, k, n_models, n_slots, m_max, F;
    double fraction;
    uint64_t seed;
    int nt;
    const gv_learner *base;       /* bagging */
    const grove_params *base_params;
    gv_tree_config cfg;           /* forest, extra-trees */
    slot *slots;
    gv_bagging *b;
    double *acc;                  /* [n * k] OOB aggregate by view position */
    uint32_t *oob_count;          /* [n] |O_m(i)| */
    double *h;                    /* [nt * k] per-thread member outputs */
    double *imp_sum;              /* [F] sum over trees of err_t(f) - err_t */
    double *imp_err;              /* [F] this tree's err_t(f) */
    size_t imp_trees;             /* trees with OOB rows */
    size_t *oob_rows;             /* [n] this tree's OOB data rows */
    gv_tree_session *engine;      /* forest, extra-trees with max_features: the tree engine's
                                     session (its row-major bins: small nodes read rows), or NULL */
    const uint8_t *row_bins;      /* its gv_tree_session_row_bins */
    int dist;                     /* 1: a data-parallel run: the n rows are this rank's share */
    int exact;                    /* 1: the weights and the OOB squared errors on dist.h's
                                     grids (always: one process as every rank count) */
    double *oob_terms;            /* data-parallel regression: [n] the rows' OOB squared errors */
    size_t N, first;              /* rows over all ranks, this rank's first (N = n, 0 otherwise) */
    double *weight;               /* [data->n_rows] the sample weights on the grid, or NULL */
    size_t *pos;                  /* rows of positive weight (view positions), the only ones the
                                     replicates draw, when some row weighs 0; else NULL */
    size_t n_pos, N_pos, first_pos; /* their count here, over all ranks, this rank's first */
} trainer;

static size_t row_of(const trainer *tr, size_t pos) { return tr->in->rows ? tr->in->rows[pos] : pos; }

static int thread_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* Draws model t's replicate and fits it into the component's member t. */
static void fit_one(trainer *tr, slot *s, size_t t)
{
    const gv_fit_input *in = tr->in;
    gv_rng rng;
    gv_rng_seed(&rng, tr->seed, GV_STREAM_BAGGING, t);
    size_t m;
    if (!tr->pos) {
        m = gv_bagging_replicate_part(tr->N, tr->first, tr->n, tr->fraction, tr->replace, &rng,
                                      s->rows, s->in_bag, s->count);
    } else {
        /* drawn among the rows of positive weight, then mapped to view positions (increasing,
         * as the draws are); in_bag spread out in place from the back, the others out of bag */
        m = gv_bagging_replicate_part(tr->N_pos, tr->first_pos, tr->n_pos, tr->fraction,
                                      tr->replace, &rng, s->rows, s->in_bag, s->count);
        for (size_t j = 0; j < m; j++) s->rows[j] = tr->pos[s->rows[j]];
        size_t hi = tr->n;
        for (size_t i = tr->n_pos; i-- > 0;) {
            uint8_t b = s->in_bag[i];
            for (size_t q = tr->pos[i] + 1; q < hi; q++) s->in_bag[q] = 0;
            s->in_bag[tr->pos[i]] = b;
            hi = tr->pos[i];
        }
        for (size_t q = 0; q < hi; q++) s->in_bag[q] = 0;
    }
    if (in->rows)
        for (size_t j = 0; j < m; j++) s->rows[j] = in->rows[s->rows[j]];
    gv_component *c = &tr->b->members[t];
    grove_status st;
    if (tr->mode == BAG_BAGGING) {
        gv_fit_input bi = *in;
        bi.rows = s->rows;
        bi.n_rows = m;
        bi.pred = NULL;
        bi.params = tr->base_params;
        bi.n_threads = tr->dist ? tr->nt : 1; /* data-parallel: one model at a time */
        bi.valid = NULL;
        st = tr->base->fit(&bi, &rng, c);
    } else {
        gv_tree_input ti = {
            .X = in->binned,
            .rows = s->rows,
            .n_rows = m,
            .weight = tr->weight ? tr->weight : in->weight,
            .y = in->y,
            .row_bins = tr->row_bins,
        };
        gv_tree *tree = NULL;
        st = gv_tree_fit(&tr->cfg, &ti, &rng, &tree);
        if (st == GROVE_OK) {
            c->vt = &gv_tree_component;
            c->impl = tree;
        }
    }
    s->st = st;
    if (st != GROVE_OK) snprintf(s->msg, sizeof s->msg, "%s", grove_last_error());
}

/* The loss of a prediction v (member output or aggregate over k) for data row r. */
static inline double loss_of(const trainer *tr, const double *v, size_t r)
{
    if (tr->classification) return (double)gv_argmax(v, tr->k) != tr->in->y[r];
    double d = v[0] - tr->in->y[r];
    return d * d;
}

/* Breiman's OOB permutation importance, tree t (see the file comment). */
static void oob_importance_tree(trainer *tr, const slot *s, size_t t)
{
    const gv_tree *tree = tr->b->members[t].impl;
    const gv_binned *X = tr->in->binned;
    const size_t k = tr->k;
    size_t q = 0;
    for (size_t pos = 0; pos < tr->n; pos++)
        if (!s->in_bag[pos]) tr->oob_rows[q++] = row_of(tr, pos);
    if (q == 0) return;
    double e0 = 0;
    for (size_t j = 0; j < q; j++) {
        size_t r = tr->oob_rows[j];
        e0 += loss_of(tr, tree->values + gv_tree_leaf_binned(tree, X, r) * k, r);
    }
    e0 /= (double)q;
    const long F = (long)tr->F;
#ifdef _OPENMP
#pragma omp parallel for num_threads(tr->nt) schedule(dynamic, 1)
#endif
    for (long f = 0; f < F; f++) {
        size_t *perm = tr->slots[thread_id()].perm;
        gv_rng rng;
        gv_rng_seed(&rng, tr->seed, GV_STREAM_OOB_PERMUTE, (uint64_t)t * tr->F + (uint64_t)f);
        memcpy(perm, tr->oob_rows, q * sizeof *perm);
        gv_rng_shuffle(&rng, perm, q);
        double e = 0;
        for (size_t j = 0; j < q; j++) {
            size_t r = tr->oob_rows[j];
            size_t leaf = gv_tree_leaf_binned_swap(tree, X, r, (size_t)f, perm[j]);
            e += loss_of(tr, tree->values + leaf * k, r);
        }
        tr->imp_err[f] = e / (double)q - e0;
    }
    for (size_t f = 0; f < tr->F; f++) tr->imp_sum[f] += tr->imp_err[f];
    tr->imp_trees++;
}

/* Adds model t to the OOB aggregates and records oob_error(t + 1) and |S_{t+1}|. */
/* The leaf of a training row in a tree grown on the binned matrix, read from the row's
 * row-major bins: the very leaf of the raw-value walk (x <= threshold <=> bin <= bin_split, and
 * a missing value is bin 0), without gathering a float from another column at every level.
 * SIZE_MAX at a category split (the caller walks the raw values). */
static size_t leaf_row_major(const gv_tree *t, const uint8_t *row)
{
    size_t k = 0;
    for (;;) {
        const gv_tree_node *nd = &t->nodes[k];
        if (nd->type == GV_NODE_LEAF) return k;
        if (nd->type != GV_NODE_NUM) return SIZE_MAX;
        const uint32_t bin = row[nd->feature];
        k = (size_t)(bin == 0 ? (nd->default_left ? nd->left : nd->right)
                              : (bin <= nd->bin_split ? nd->left : nd->right));
    }
}

static void oob_update(trainer *tr, const slot *s, size_t t)
{
    const gv_component *c = &tr->b->members[t];
    const grove_dataset *d = tr->in->data;
    const size_t k = tr->k;
    const long n = (long)tr->n;
    /* tree members on the row-major bins (forests): leaves from the bins (leaf_row_major) */
    const uint8_t *rb = c->vt == &gv_tree_component && tr->row_bins &&
                                ((const gv_tree *)c->impl)->n_outputs == (int)k
                            ? tr->row_bins
                            : NULL;
#ifdef _OPENMP
#pragma omp parallel for num_threads(tr->nt) schedule(static) if (n > 4096)
#endif
    for (long pos = 0; pos < n; pos++) {
        if (s->in_bag[pos]) continue;
        double *h = tr->h + (size_t)thread_id() * k;
        const size_t r = row_of(tr, (size_t)pos);
        size_t leaf = SIZE_MAX;
        if (rb) leaf = leaf_row_major(c->impl, rb + r * tr->F);
        if (leaf != SIZE_MAX)
            memcpy(h, ((const gv_tree *)c->impl)->values + leaf * k, k * sizeof *h);
        else
            c->vt->predict_row(c->impl, d, r, h);
        aggregate_add(tr->vote, h, k, tr->acc + (size_t)pos * k);
        tr->oob_count[pos]++;
    }
    /* oob_error(m) = 1/|S_m| sum_{i in S_m} loss(H_m^oob(x_i), y_i), in row order; in a
     * data-parallel run |S_m| and the count of errors are summed over the ranks as integers,
     * so a classification error is one process's to the bit; regression's squared errors are
     * summed exactly on dist.h's grid (the same for any rank count) */
    size_t S = 0;
    double err = 0, mean;
    for (size_t pos = 0; pos < tr->n; pos++) {
        if (!tr->oob_count[pos]) continue;
        S++;
        const double *a = tr->acc + pos * k;
        if (!tr->classification) {
            mean = a[0] / (double)tr->oob_count[pos];
            a = &mean;
        }
        err += loss_of(tr, a, row_of(tr, pos));
    }
    if (tr->dist && tr->classification) {
        int64_t v[2] = {(int64_t)S, (int64_t)err};
        gv_dist_sum_i64(v, 2);
        S = (size_t)v[0];
        err = (double)v[1];
    } else if (tr->exact && !tr->classification) {
        /* regression: the squared errors' sum exact on dist.h's grid (one process too) */
        double *terms = tr->oob_terms;
        for (size_t pos = 0; pos < tr->n; pos++) {
            terms[pos] = 0;
            if (!tr->oob_count[pos]) continue;
            double avg = tr->acc[pos * k] / (double)tr->oob_count[pos];
            terms[pos] = loss_of(tr, &avg, row_of(tr, pos));
        }
        int64_t v = (int64_t)S;
        gv_dist_sum_i64(&v, 1);
        S = (size_t)v;
        err = gv_dist_sum_exact(terms, tr->n);
    }
    tr->b->oob_error[t] = S ? err / (double)S : NAN;
    tr->b->oob_n[t] = S;
    if (tr->oob_imp && c->vt == &gv_tree_component) oob_importance_tree(tr, s, t);
}

static void trainer_free(trainer *tr)
{
    if (tr->slots)
        for (size_t j = 0; j < tr->n_slots; j++) {
            gv_free(tr->slots[j].rows);
            gv_free(tr->slots[j].in_bag);
            gv_free(tr->slots[j].count);
            gv_free(tr->slots[j].perm);
        }
    gv_free(tr->slots);
    gv_free(tr->acc);
    gv_free(tr->oob_count);
    gv_free(tr->oob_terms);
    gv_free(tr->h);
    gv_free(tr->imp_sum);
    gv_free(tr->imp_err);
    gv_free(tr->oob_rows);
    gv_tree_session_close(tr->engine);
    gv_free(tr->weight);
    gv_free(tr->pos);
    bagging_free(tr->b);
}

/* Rows of weight 0 take no part in the replicates' draws: the draws run over the rows of
 * positive weight only (numbered over all ranks), so that a model trained with some weights 0
 * is the model trained without those rows (scikit-learn's sample-weight invariance), at any
 * number of models.  Such rows are out of bag in every replicate.  Without a zero weight
 * nothing changes: tr->pos stays NULL and the draws are those of every row. */
static grove_status zero_weight_rows(trainer *tr)
{
    const gv_fit_input *in = tr->in;
    if (!in->weight) return GROVE_OK;
    size_t n_pos = 0;
    for (size_t i = 0; i < tr->n; i++) n_pos += in->weight[row_of(tr, i)] > 0;
    size_t first = 0, total = n_pos;
    if (tr->dist) gv_dist_offsets(n_pos, &first, &total);
    if (total == tr->N || total == 0) return GROVE_OK; /* (no rows at all: refused later) */
    tr->pos = gv_malloc_array(n_pos ? n_pos : 1, sizeof *tr->pos);
    grove_status st = tr->pos ? GROVE_OK : gv_err_nomem("the rows of positive weight");
    if (tr->dist) st = gv_dist_agree(st);
    if (st != GROVE_OK) return st;
    size_t k = 0;
    for (size_t i = 0; i < tr->n; i++)
        if (in->weight[row_of(tr, i)] > 0) tr->pos[k++] = i;
    tr->n_pos = n_pos;
    tr->N_pos = total;
    tr->first_pos = first;
    return GROVE_OK;
}

/* Reads and checks the parameters into tr (everything but the scratch). */
static grove_status setup(trainer *tr, int mode, const gv_fit_input *in)
{
    const grove_params *p = in->params;
    tr->in = in;
    tr->mode = mode;
    tr->classification = in->n_classes >= 2;
    tr->k = tr->classification ? (size_t)in->n_classes : 1;
    tr->n = in->rows ? in->n_rows : in->data->n_rows;
    tr->F = in->binned ? in->binned->n_features : in->data->schema->n_features;
    tr->n_models = (size_t)gv_param_int(p, GV_P_ROUNDS);
    tr->seed = (uint64_t)gv_param_int(p, GV_P_SEED);
    tr->nt = in->n_threads > 0 ? in->n_threads : 1;
    tr->fraction = gv_param_double(p, GV_P_SAMPLE_FRACTION);
    tr->replace = mode == BAG_EXTRA && !gv_param_is_set(p, GV_P_BAGGING_REPLACE)
                      ? 0
                      : (int)gv_param_int(p, GV_P_BAGGING_REPLACE);
    if (tr->n == 0) return gv_err(GROVE_ERR_DATA, "%s: no rows to train on", mode_names[mode]);
    if (!tr->replace && tr->fraction > 1)
        return gv_err(GROVE_ERR_PARAM,
                      "sample_fraction: must be at most 1 without replacement "
                      "(bagging.replace=false), got %g",
                      tr->fraction);
    int64_t v = gv_param_int(p, GV_P_BAGGING_VOTE); /* auto | hard | soft */
    if (!tr->classification)
        tr->vote = VOTE_MEAN;
    else if (v == 0)
        tr->vote = mode == BAG_BAGGING ? VOTE_HARD : VOTE_SOFT;
    else
        tr->vote = v == 1 ? VOTE_HARD : VOTE_SOFT;
    tr->oob_imp = (int)gv_param_int(p, GV_P_OOB_IMPORTANCE) && in->binned;
    tr->N = tr->n;
    tr->dist = gv_dist_active();
    tr->exact = 1;
    if (tr->dist) {
        /* data-parallel: the replicates are drawn over the global row numbers; the trees'
         * histograms (class counts, or regression sums on dist.h's grid) are summed over the
         * ranks exactly */
        if (tr->oob_imp)
            return gv_err(GROVE_ERR_PARAM, "oob_importance: not supported in data-parallel "
                                           "training (mpirun): its permutations mix the ranks' rows");
        if (in->rows)
            return gv_err(GROVE_ERR_INTERNAL, "%s: data-parallel training of a row view", mode_names[mode]);
        gv_dist_offsets(tr->n, &tr->first, &tr->N);
    }

    if (mode == BAG_BAGGING) {
        if (gv_param_is_set(p, GV_P_BASE)) {
            grove_status st = gv_base_learner(p, &tr->base);
            if (st != GROVE_OK) return st;
        } else {
            tr->base = gv_learner_find("tree");
            if (!tr->base) return gv_err(GROVE_ERR_INTERNAL, "bagging: no 'tree' learner");
        }
        tr->base_params = gv_params_base(p);
        if (tr->dist && tr->base->fit != gv_fit_tree && tr->base->fit != gv_fit_stump &&
            tr->base->fit != gv_fit_id3)
            return gv_err(GROVE_ERR_PARAM, "base: data-parallel training (mpirun) bags tree, "
                                           "stump or id3 members, got '%s'", tr->base->name);
        return GROVE_OK;
    }
    if (!in->binned)
        return gv_err(GROVE_ERR_INTERNAL, "%s: needs the binned training data", mode_names[mode]);
    grove_status st = gv_tree_config_from_params("tree", p, in->n_classes, 1, tr->F, &tr->cfg);
    if (st != GROVE_OK) return st;
    if (!gv_param_is_set(p, GV_P_MAX_FEATURES)) {
        /* defaults: sqrt(F) for classification; regression F/3 (forest, Breiman 2001) or F
         * (extra-trees, Geurts et al. 2006) */
        size_t mf = tr->classification ? (size_t)floor(sqrt((double)tr->F))
                    : mode == BAG_FOREST ? tr->F / 3
                                         : tr->F;
        if (mf < 1) mf = 1;
        tr->cfg.max_features = mf >= tr->F ? 0 : mf;
    }
    tr->cfg.random_thresholds = mode == BAG_EXTRA;
    if (tr->dist) tr->cfg.n_threads = tr->nt; /* one tree at a time, each over the ranks */
    if (tr->exact) {
        if (in->weight) {
            /* sample weights on dist.h's grid: exact histogram sums (learners.c does the same
             * for bagging's members) */
            /* (indexed as in->weight, by the data's row numbers: a view's rows are among them) */
            const size_t N = in->data->n_rows;
            tr->weight = gv_malloc_array(N ? N : 1, sizeof *tr->weight);
            st = gv_dist_agree(tr->weight ? GROVE_OK : gv_err_nomem("the weights"));
            if (st != GROVE_OK) return st;
            memcpy(tr->weight, in->weight, N * sizeof *tr->weight);
            gv_dist_snap(tr->weight, N, gv_dist_grid(tr->weight, N, 1), 1);
        }
    }
    return zero_weight_rows(tr);
}

static grove_status alloc_scratch(trainer *tr)
{
    /* room for the whole replicate: in a data-parallel run all m draws may be this rank's */
    double want = floor(tr->fraction * (double)tr->N + 0.5);
    tr->m_max = want < 1 ? 1 : want > (double)SIZE_MAX / 16 ? SIZE_MAX / 16 : (size_t)want;
    if (!tr->replace && tr->m_max > tr->n) tr->m_max = tr->n;
    tr->n_slots = tr->dist ? 1 : 2 * (size_t)tr->nt; /* data-parallel: one model at a time */
    if (tr->n_slots > tr->n_models) tr->n_slots = tr->n_models;
    if (tr->oob_imp && tr->n_slots < (size_t)tr->nt) tr->n_slots = (size_t)tr->nt; /* perm per thread */
    tr->slots = gv_calloc(tr->n_slots, sizeof *tr->slots);
    if (!tr->slots) return gv_err_nomem("bagging scratch");
    /* (data-parallel trees build every node's histogram from its rows: no row-major copy) */
    if (tr->mode != BAG_BAGGING && tr->cfg.max_features > 0 && !tr->dist) {
        const gv_tree_session_opts eo = {.n_threads = tr->nt};
        grove_status st = gv_tree_session_open(tr->in->binned, &eo, &tr->engine);
        if (st != GROVE_OK) return st;
        tr->row_bins = gv_tree_session_row_bins(tr->engine);
    }
    for (size_t j = 0; j < tr->n_slots; j++) {
        slot *s = &tr->slots[j];
        s->rows = gv_malloc_array(tr->m_max, sizeof *s->rows);
        s->in_bag = gv_malloc_array(tr->n, sizeof *s->in_bag);
        s->count = tr->replace ? gv_malloc_array(tr->n, sizeof *s->count) : NULL;
        s->perm = tr->oob_imp ? gv_malloc_array(tr->n, sizeof *s->perm) : NULL;
        if (!s->rows || !s->in_bag || (tr->replace && !s->count) || (tr->oob_imp && !s->perm))
            return gv_err_nomem("bagging replicates");
    }
    size_t nk;
    if (gv_mul_size(tr->n, tr->k, &nk) != 0) return gv_err_nomem("OOB aggregates");
    tr->acc = gv_calloc(nk, sizeof *tr->acc);
    tr->oob_count = gv_calloc(tr->n, sizeof *tr->oob_count);
    tr->h = gv_malloc_array((size_t)tr->nt * tr->k, sizeof *tr->h);
    if (!tr->acc || !tr->oob_count || !tr->h) return gv_err_nomem("OOB aggregates");
    if (tr->exact && !tr->classification) {
        tr->oob_terms = gv_malloc_array(tr->n ? tr->n : 1, sizeof *tr->oob_terms);
        if (!tr->oob_terms) return gv_err_nomem("OOB aggregates");
    }
    if (tr->oob_imp) {
        tr->imp_sum = gv_calloc(tr->F ? tr->F : 1, sizeof *tr->imp_sum);
        tr->imp_err = gv_calloc(tr->F ? tr->F : 1, sizeof *tr->imp_err);
        tr->oob_rows = gv_malloc_array(tr->n, sizeof *tr->oob_rows);
        if (!tr->imp_sum || !tr->imp_err || !tr->oob_rows) return gv_err_nomem("OOB importances");
    }
    return GROVE_OK;
}

static grove_status fit_averaging(int mode, const gv_fit_input *in, gv_component *out)
{
    trainer tr;
    memset(&tr, 0, sizeof tr);
    grove_status st = setup(&tr, mode, in);
    if (st != GROVE_OK) goto done;
    tr.b = bagging_new(mode, tr.vote, tr.classification ? in->n_classes : 0, tr.n_models);
    if (!tr.b) {
        st = gv_err_nomem("a bagging model");
        goto done;
    }
    if ((st = alloc_scratch(&tr)) != GROVE_OK) goto done;

    for (size_t b0 = 0; b0 < tr.n_models; b0 += tr.n_slots) {
        size_t bs = tr.n_models - b0 < tr.n_slots ? tr.n_models - b0 : tr.n_slots;
        const long nb = (long)bs;
        if (tr.dist && (st = gv_dist_round(b0 + 1)) != GROVE_OK) goto done; /* bs = 1 */
#ifdef _OPENMP
#pragma omp parallel for num_threads(tr.nt) schedule(dynamic, 1) if (!tr.dist)
#endif
        for (long j = 0; j < nb; j++) fit_one(&tr, &tr.slots[j], b0 + (size_t)j);
        /* members fitted so far are owned by tr.b (freed with it on failure) */
        tr.b->n_members = b0 + bs;
        for (size_t j = 0; j < bs; j++)
            if (tr.slots[j].st != GROVE_OK) {
                st = gv_err(tr.slots[j].st, "%s: model %zu: %s", mode_names[mode], b0 + j + 1,
                            tr.slots[j].msg);
                goto done;
            }
        for (size_t j = 0; j < bs; j++) oob_update(&tr, &tr.slots[j], b0 + j);
        if (gv_progress(in->params, "tree", b0 + bs, tr.n_models)) {
            st = gv_err(GROVE_ERR_ARG, "cancelled");
            goto done;
        }
    }
    if (tr.oob_imp && tr.imp_trees > 0) {
        tr.b->oob_importance = gv_malloc_array(tr.F ? tr.F : 1, sizeof(double));
        if (!tr.b->oob_importance) {
            st = gv_err_nomem("OOB importances");
            goto done;
        }
        tr.b->n_features = tr.F;
        for (size_t f = 0; f < tr.F; f++)
            tr.b->oob_importance[f] = tr.imp_sum[f] / (double)tr.imp_trees;
    }
    out->vt = &gv_bagging_component;
    out->impl = tr.b;
    tr.b = NULL;
done:
    trainer_free(&tr);
    return st;
}

grove_status gv_fit_bagging(const gv_fit_input *in, gv_rng *rng, gv_component *out)
{
    (void)rng; /* every model has its own stream (seed, GV_STREAM_BAGGING, t) */
    return fit_averaging(BAG_BAGGING, in, out);
}

grove_status gv_fit_forest(const gv_fit_input *in, gv_rng *rng, gv_component *out)
{
    (void)rng;
    return fit_averaging(BAG_FOREST, in, out);
}

grove_status gv_fit_extra_trees(const gv_fit_input *in, gv_rng *rng, gv_component *out)
{
    (void)rng;
    return fit_averaging(BAG_EXTRA, in, out);
}

/* ---------------------------------------------------------------------------------------------
 * The OOB log and estimate, margins, importances (the component's report slots); members
 * ------------------------------------------------------------------------------------------ */

/* The log_csv slot: the OOB error curve, "models,oob_error,oob_n". */
static grove_status bagging_log_csv(const void *impl, gv_buf *buf)
{
    const gv_bagging *b = impl;
    int bad = gv_buf_printf(buf, "models,oob_error,oob_n\n");
    char v[32];
    for (size_t t = 0; t < b->n_members && !bad; t++) {
        gv_format_double(b->oob_error[t], v);
        bad |= gv_buf_printf(buf, "%zu,%s,%zu\n", t + 1, v, b->oob_n[t]);
    }
    return bad ? gv_err_nomem("the OOB log") : GROVE_OK;
}

/* The oob slot: the OOB error and |S| after the last member (error NaN when |S| = 0). */
static void bagging_oob(const void *impl, double *error, size_t *n)
{
    const gv_bagging *b = impl;
    *error = b->n_members ? b->oob_error[b->n_members - 1] : NAN;
    *n = b->n_members ? b->oob_n[b->n_members - 1] : 0;
}

/* The margins slot: p_y - max_{k != y} p_k over the averaged outputs (common.c). */
static grove_status bagging_margins(const void *impl, const grove_dataset *d, int n_threads,
                                    double *out)
{
    const gv_bagging *b = impl;
    const gv_component self = {&gv_bagging_component, (void *)impl};
    return gv_margins_averaged(&self, (size_t)b->n_classes, mode_names[b->mode], d, n_threads,
                               out);
}

/* The importance slot: impurity over the members (all trees), and the OOB permutation
 * importances stored at training time. */
static int bagging_importance(const void *impl, const char *type, size_t n_features,
                              double *out, grove_status *st)
{
    const gv_bagging *b = impl;
    if (!strcmp(type, "impurity")) {
        *st = gv_importance_impurity_trees(b->members, b->n_members, n_features, out);
        return 1;
    }
    if (strcmp(type, "oob_permutation") || !b->oob_importance) return 0;
    if (b->n_features != n_features)
        *st = gv_err(GROVE_ERR_INTERNAL, "OOB importances: %zu values for %zu features",
                     b->n_features, n_features);
    else {
        memcpy(out, b->oob_importance, n_features * sizeof *out);
        *st = GROVE_OK;
    }
    return 1;
}

size_t gv_bagging_members(const gv_component *c, const gv_component **members)
{
    const gv_bagging *b = c->impl;
    *members = b->members;
    return b->n_members;
}


/* ---------------------------------------------------------------------------------------------
 * The component: JSON, validation, summary
 * ------------------------------------------------------------------------------------------ */

static json_t *oob_error_json(double e) { return isfinite(e) ? json_real(e) : json_null(); }

static json_t *bagging_to_json(const void *impl)
{
    const gv_bagging *b = impl;
    json_t *o = json_object(), *members = json_array(), *err = json_array(), *cnt = json_array();
    json_t *imp = b->oob_importance ? json_array() : json_null();
    int bad = !o || !members || !err || !cnt || !imp;
    for (size_t t = 0; !bad && t < b->n_members; t++) {
        json_t *m = gv_component_json(b->members[t].vt, b->members[t].impl, GV_KIND_LAST);
        bad |= json_array_append_new(members, m) != 0;
        bad |= json_array_append_new(err, oob_error_json(b->oob_error[t])) != 0;
        bad |= json_array_append_new(cnt, json_integer((json_int_t)b->oob_n[t])) != 0;
    }
    /* a feature no split reads (dropped from a compact model's file) has importance 0 */
    for (size_t f = 0; !bad && b->oob_importance && f < b->n_features; f++)
        if (gv_feature_out((int32_t)f) >= 0)
            bad |= json_array_append_new(imp, json_real(b->oob_importance[f])) != 0;
    if (!bad) {
        bad |= json_object_set_new(o, "mode", json_string(mode_names[b->mode])) != 0;
        bad |= json_object_set_new(o, "vote", json_string(vote_names[b->vote])) != 0;
        bad |= json_object_set_new(o, "n_classes", json_integer(b->n_classes)) != 0;
        bad |= json_object_set_new(o, "members", members) != 0;
        bad |= json_object_set_new(o, "oob_error", err) != 0;
        bad |= json_object_set_new(o, "oob_n", cnt) != 0;
        bad |= json_object_set_new(o, "oob_importance", imp) != 0;
        members = err = cnt = imp = NULL;
    }
    json_decref(members);
    json_decref(err);
    json_decref(cnt);
    json_decref(imp);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static int name_index(const char *const *names, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], s)) return i;
    return -1;
}

static grove_status validate_fields(const gv_bagging *b, const grove_schema *schema, int members);

/* Member t of the "members" array into *c (vt set only when read). */
static grove_status read_member(const json_t *members, size_t t, const gv_model_ctx *ctx,
                                gv_component *c)
{
    const json_t *m = json_array_get(members, t);
    const char *kind;
    if (!json_is_object(m) || gv_json_get_string(m, "kind", &kind) != GROVE_OK)
        return gv_err(GROVE_ERR_MODEL, "members[%zu]: expected an object with a kind", t);
    const gv_component_vt *vt = gv_component_kind(kind);
    if (!vt) return gv_err(GROVE_ERR_MODEL, "members[%zu]: unknown kind '%s'", t, kind);
    grove_status st = vt->from_json(m, ctx, &c->impl);
    if (st != GROVE_OK) {
        gv_err_prefix("members[%zu]", t);
        return st;
    }
    c->vt = vt;
    return GROVE_OK;
}


/* The first failing member of a parallel loop over members 0..n-1: the error kept is the
 * lowest-numbered member's, what one thread going through them in order would report; members
 * after a failed one need not run (first_fail_after).  ff->t is SIZE_MAX while none failed. */
typedef struct first_fail {
    size_t t;
    grove_status st;
    char msg[1024];
} first_fail;

static int first_fail_after(first_fail *ff, size_t t)
{
    size_t first;
#pragma omp atomic read
    first = ff->t;
    return t > first;
}

static void first_fail_note(first_fail *ff, size_t t, grove_status st)
{
    if (st == GROVE_OK) return;
    /* unnamed: a named critical's lock is a common symbol the shared library would export */
#pragma omp critical
    if (t < ff->t) {
        snprintf(ff->msg, sizeof ff->msg, "%s", grove_last_error());
        ff->st = st;
#pragma omp atomic write
        ff->t = t;
    }
}

static grove_status bagging_from_json(const json_t *obj, const gv_model_ctx *ctx, void **out)
{
    *out = NULL;
    static const char *const known[] = {"kind",      "mode",  "vote",          "n_classes",
                                        "members",   "oob_error", "oob_n", "oob_importance"};
    const char *mname, *vname;
    int64_t K;
    grove_status st;
    if ((st = gv_json_check_fields(obj, known, GV_COUNT(known), "a bagging model")) != GROVE_OK ||
        (st = gv_json_get_string(obj, "mode", &mname)) != GROVE_OK ||
        (st = gv_json_get_string(obj, "vote", &vname)) != GROVE_OK ||
        (st = gv_json_get_int(obj, "n_classes", 0, 1 << 20, &K)) != GROVE_OK)
        return st;
    int mode = name_index(mode_names, BAG_COUNT, mname);
    int vote = name_index(vote_names, VOTE_COUNT, vname);
    if (mode < 0) return gv_err(GROVE_ERR_MODEL, "mode: unknown '%s'", mname);
    if (vote < 0) return gv_err(GROVE_ERR_MODEL, "vote: unknown '%s'", vname);
    if (K == 1 || (vote == VOTE_MEAN) != (K == 0))
        return gv_err(GROVE_ERR_MODEL, "n_classes: %lld does not fit vote '%s'", (long long)K,
                      vname);
    const json_t *members = json_object_get(obj, "members");
    if (!json_is_array(members) || json_array_size(members) == 0)
        return gv_err(GROVE_ERR_MODEL, "members: expected a non-empty array");
    size_t n = json_array_size(members);
    const json_t *err, *cnt;
    if ((st = gv_json_get_array(obj, "oob_n", n, &cnt)) != GROVE_OK) return st;
    err = json_object_get(obj, "oob_error");
    if (!json_is_array(err) || json_array_size(err) != n)
        return gv_err(GROVE_ERR_MODEL, "oob_error: expected an array of %zu entries", n);
    gv_bagging *b = bagging_new(mode, vote, (int)K, n);
    if (!b) return gv_err_nomem("a bagging model");
    for (size_t t = 0; t < n; t++) {
        const json_t *c = json_array_get(cnt, t), *e = json_array_get(err, t);
        if (!json_is_integer(c) || json_integer_value(c) < 0 ||
            (t > 0 && (size_t)json_integer_value(c) < b->oob_n[t - 1])) {
            st = gv_err(GROVE_ERR_MODEL, "oob_n[%zu]: expected a count >= 0, not below the "
                                         "previous one", t);
            goto fail;
        }
        b->oob_n[t] = (size_t)json_integer_value(c);
        if (b->oob_n[t] == 0 ? !json_is_null(e) : !json_is_number(e)) {
            st = gv_err(GROVE_ERR_MODEL, "oob_error[%zu]: expected %s", t,
                        b->oob_n[t] ? "a number" : "null (oob_n is 0)");
            goto fail;
        }
        b->oob_error[t] = b->oob_n[t] ? json_number_value(e) : NAN;
    }
    /* The members are read on the OpenMP threads (a forest's trees are most of its load time);
     * the document is only read, and the helpers see the reading thread's binary mode and
     * borrowed arrays (core/json.h).  The error is the first failing member's, as one thread
     * reading them in order would report it. */
    first_fail ff = {SIZE_MAX, GROVE_OK, ""};
    b->n_members = n; /* members not read stay empty (bagging_free skips them) */
    const gv_packed_view view = gv_packed_view_get();
#pragma omp parallel if (n >= 4)
    {
        const int helper = thread_id() != 0;
        if (helper) gv_packed_view_set(&view);
#pragma omp for schedule(dynamic, 1)
        for (size_t t = 0; t < n; t++)
            if (!first_fail_after(&ff, t))
                first_fail_note(&ff, t, read_member(members, t, ctx, &b->members[t]));
        if (helper) gv_packed_view_set(NULL);
    }
    if (ff.t != SIZE_MAX) {
        st = gv_err(ff.st, "%s", ff.msg);
        goto fail;
    }
    const json_t *imp = json_object_get(obj, "oob_importance");
    if (imp && !json_is_null(imp)) {
        size_t F = ctx->schema->n_features;
        const json_t *a;
        if ((st = gv_json_get_array(obj, "oob_importance", F, &a)) != GROVE_OK) goto fail;
        b->oob_importance = gv_malloc_array(F ? F : 1, sizeof(double));
        if (!b->oob_importance) {
            st = gv_err_nomem("OOB importances");
            goto fail;
        }
        b->n_features = F;
        for (size_t f = 0; f < F; f++) b->oob_importance[f] = json_number_value(json_array_get(a, f));
    }
    /* a tree member's from_json validated it */
    if ((st = validate_fields(b, ctx->schema, 0)) != GROVE_OK) goto fail;
    *out = b;
    return GROVE_OK;
fail:
    bagging_free(b);
    return st;
}

/* The component's own fields and each member's validate; without `members`, trees are taken
 * as valid (a tree's from_json validated it: reading need not walk every tree twice). */
static grove_status validate_fields(const gv_bagging *b, const grove_schema *schema, int members)
{
    if (b->oob_importance && b->n_features != schema->n_features)
        return gv_err(GROVE_ERR_MODEL, "oob_importance: %zu values for %zu features",
                      b->n_features, schema->n_features);
    for (size_t f = 0; b->oob_importance && f < b->n_features; f++)
        if (!isfinite(b->oob_importance[f]))
            return gv_err(GROVE_ERR_MODEL, "oob_importance[%zu]: must be finite", f);
    /* a regression's mean (1/T) sum_t f_t(x): the sum is computed first, so it must not
     * overflow: sum_t max |v_t| finite over the tree members (training never comes near: its
     * labels' sums are finite; only a file can hold leaves of 1e308) */
    double bound = 0;
    for (size_t t = 0; b->n_classes == 0 && t < b->n_members; t++)
        if (b->members[t].vt == &gv_tree_component &&
            !isfinite(bound += gv_tree_max_abs_value(b->members[t].impl)))
            return gv_err(GROVE_ERR_MODEL, "members[%zu]: the mean can overflow: the largest "
                          "|value| of each tree up to this one sums to more than the largest "
                          "double", t);
    for (size_t t = 0; t < b->n_members; t++) {
        double e = b->oob_error[t];
        if (b->oob_n[t] > 0 && !(e >= 0 && (b->n_classes == 0 ? isfinite(e) : e <= 1)))
            return gv_err(GROVE_ERR_MODEL, "oob_error[%zu]: %g is not a valid error", t, e);
        const gv_component *c = &b->members[t];
        if (c->vt->validate && (members || c->vt != &gv_tree_component)) {
            grove_status st = c->vt->validate(c->impl, schema);
            if (st != GROVE_OK) {
                gv_err_prefix("members[%zu]", t);
                return st;
            }
        }
    }
    return GROVE_OK;
}

static grove_status bagging_validate(const void *impl, const grove_schema *schema)
{
    return validate_fields(impl, schema, 1);
}

static grove_status bagging_check(const void *impl, const gv_model_ctx *ctx, size_t n_outputs)
{
    const gv_bagging *b = impl;
    if (n_out(b) != n_outputs)
        return gv_err(GROVE_ERR_MODEL, "model: a bagging component has %zu outputs, %zu expected",
                      n_out(b), n_outputs);
    /* the reader's check (nothing marked) of many members on the OpenMP threads, as the
     * members were read; the error is the first failing member's, as gv_components_check's */
    if (ctx->mark_used || ctx->mark_read || ctx->mark_cuts || ctx->reads_all || b->n_members < 8)
        return gv_components_check(b->members, b->n_members, ctx, n_outputs, "members");
    const size_t n = b->n_members;
    first_fail ff = {SIZE_MAX, GROVE_OK, ""};
#pragma omp parallel for schedule(dynamic, 1)
    for (size_t t = 0; t < n; t++)
        if (!first_fail_after(&ff, t))
            first_fail_note(&ff, t, gv_component_check(&b->members[t], ctx, n_outputs));
    if (ff.t == SIZE_MAX) return GROVE_OK;
    grove_status st = gv_err(ff.st, "%s", ff.msg);
    gv_err_prefix("members[%zu]", ff.t);
    return st;
}

static json_t *bagging_summary(const void *impl)
{
    const gv_bagging *b = impl;
    double e = b->n_members ? b->oob_error[b->n_members - 1] : NAN;
    size_t n = b->n_members ? b->oob_n[b->n_members - 1] : 0;
    json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:o, s:I}", "kind", "bagging", "mode",
                          mode_names[b->mode], "vote", vote_names[b->vote], "models",
                          (json_int_t)b->n_members, "oob_error", oob_error_json(e), "oob_n",
                          (json_int_t)n);
    if (o && b->n_members) {
        json_t *first = gv_component_summary(&b->members[0]);
        if (first) json_object_set_new(o, "first_member", first);
    }
    return o;
}

/* C export (learner.h's export_c slot, core/cgen.h): the members' functions, then
 * bagging_predict_row's vote (hard: +1 at each member's argmax; soft, mean: the sum of their
 * outputs) divided by T. */
static grove_status bagging_export_c(const void *impl, gv_cgen *g, size_t *id)
{
    const gv_bagging *v = impl;
    const size_t T = v->n_members, K = g->n_outputs;
    size_t *ids = gv_malloc_array(T ? T : 1, sizeof *ids);
    if (!ids) return gv_err_nomem("export");
    grove_status st = gv_cgen_members(g, v->members, T, ids);
    if (st == GROVE_OK) {
        char what[96];
        snprintf(what, sizeof what, "%s, %zu members, %s vote", mode_names[v->mode], T,
                 vote_names[v->vote]);
        *id = gv_cgen_open_function(g, what);
        gv_buf *b = &g->body;
        const int hard = v->vote == VOTE_HARD;
        gv_cgen_out(b, g, "    double h[%zu];\n    size_t c;\n", K);
        gv_cgen_out(b, g, "    for (c = 0; c < %zu; c++) out[c] = 0;\n", K);
        for (size_t t = 0; t < T; t++) {
            if (hard)
                gv_cgen_out(b, g, "    c%zu(x, h); out[argmax(h, %zu)] += 1;\n", ids[t], K);
            else
                gv_cgen_out(b, g, "    c%zu(x, h); for (c = 0; c < %zu; c++) out[c] += h[c];\n",
                            ids[t], K);
        }
        gv_cgen_out(b, g, "    for (c = 0; c < %zu; c++) out[c] /= %zu.0;\n}\n", K, T);
    }
    gv_free(ids);
    return st;
}

const gv_component_vt gv_bagging_component = {
    .kind = "bagging",
    .predict_row = bagging_predict_row,
    .to_json = bagging_to_json,
    .from_json = bagging_from_json,
    .free = bagging_free,
    .validate = bagging_validate,
    .check = bagging_check,
    .summary = bagging_summary,
    .n_rounds = bagging_n_rounds,
    .predict_row_rounds = bagging_predict_rounds,
    .log_csv = bagging_log_csv,
    .margins = bagging_margins,
    .oob = bagging_oob,
    .importance = bagging_importance,
    .predict_block = bagging_predict_block,
    .predict_prepare = bagging_predict_prepare,
    .export_c = bagging_export_c,
};

int gv_bagging_view_of(const gv_component *c, gv_bagging_view *v)
{
    if (!c || c->vt != &gv_bagging_component) return 0;
    const gv_bagging *b = c->impl;
    v->mode = mode_names[b->mode];
    v->vote = vote_names[b->vote];
    v->n_classes = b->n_classes;
    v->n_members = b->n_members;
    v->members = b->members;
    v->oob_error = b->oob_error;
    v->oob_n = b->oob_n;
    return 1;
}
