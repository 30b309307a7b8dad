/*
 * tree_session.c -- the tree engine's state across the trees of one fit (tree.h's
 * gv_tree_session): gradient boosting hands it each tree's gradients and gets the tree back.
 *
 * Pipeline position: learn/, between the ensembles and gv_tree_fit.  As LightGBM's boosting
 * calls its tree learner, gbdt (ensemble/) holds scores, gradients and samples; the session holds
 * what only the engine reads, prepared once per fit from the binned matrix (borrowed, must
 * outlive the session):
 *     row_bins   the bins row-major (gv_binned_row_major; NULL where a bin takes 16 bits)
 *     bundles    exclusive feature bundles and the bundled rows (gv_bundles_build), where every
 *                tree offers every feature at every node and one process trains
 *     qgh        quantized_bits = B: the current tree's (g, h) as B-bit integers, with the
 *                sparse rows row_nz (gv_row_nz_build) -- B reduced while n (2^B - 1) >= 2^31
 *     scratch    row and histogram buffers kept across trees
 *     roots      a round's K root histograms built in one pass (gv_hist_roots_grad)
 * None of these change a tree: each is a faster way to the same sums (tests/test_gbdt.c).
 * gv_tree_prune is XGBoost's gamma pruning of a grown tree.
 */
#include "plan.h"
#include "tree.h"

#include "../core/streams.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Rows below which row loops stay on the calling thread (as gbdt's; results do not depend on
 * it). */
#define PAR_MIN_ROWS 8192

struct gv_tree_session {
    const gv_binned *X;    /* borrowed */
    int n_threads, dist;
    uint8_t *row_bins;     /* gv_binned_row_major, or NULL */
    gv_bundles *bundles;   /* with row_bins (no row_nz), every feature a candidate at every
                              node, one process: the bundles and the bundled rows, or NULL */
    uint8_t *row_bund;
    int qbits;             /* quantized_bits in effect (0: off) */
    int32_t *qgh;          /* [2 n] the current tree's quantized (g, h), or NULL */
    double qscale[2];      /* their grid (gv_tree_session_quantize) */
    gv_row_nz *row_nz;     /* with qgh: the sparse rows, or NULL */
    gv_tree_scratch scratch;
    double **roots;        /* [n_roots] the round's root histograms not yet taken, or NULL */
    size_t n_roots;
    gv_plan plan;          /* the first tree's (gv_tree_session_plan) */
    int has_plan;
};

/* Frees round_roots' histograms the trees did not take, and the array. */
static void free_roots(double **roots, size_t G)
{
    if (!roots) return;
    for (size_t g = 0; g < G; g++) gv_free(roots[g]);
    gv_free(roots);
}

grove_status gv_tree_session_open(const gv_binned *X, const gv_tree_session_opts *o,
                                  gv_tree_session **out)
{
    *out = NULL;
    gv_tree_session *s = gv_calloc(1, sizeof *s);
    if (!s) return gv_err_nomem("a tree session");
    s->X = X;
    s->n_threads = o->n_threads;
    s->dist = o->dist;
    const size_t n = X->n_rows;
    grove_status st;
    if ((st = gv_binned_row_major(X, s->n_threads, &s->row_bins)) != GROVE_OK) goto fail;
    s->qbits = o->quantized_bits;
    /* integer histograms sum up to n rows of 2^B - 1: fewer bits where that would pass 2^31 */
    while (s->qbits >= 2 && (double)n * (double)((1 << s->qbits) - 1) >= 2147483647.0) s->qbits--;
    if (s->qbits < 2) s->qbits = 0;
    if (s->qbits && s->row_bins) {
        s->qgh = gv_malloc_array(n ? n : 1, 2 * sizeof *s->qgh);
        if (!s->qgh) {
            st = gv_err_nomem("gbdt quantized gradients");
            goto fail;
        }
        if ((st = gv_row_nz_build(X, s->row_bins, s->n_threads, &s->row_nz)) != GROVE_OK) goto fail;
    }
    /* bundles (hist.c reads the bundled rows for the histograms of every feature; the sparse
     * rows row_nz go another way): only where every tree offers every feature at every node,
     * one process (ranks would bundle their own rows differently) */
    if (s->row_bins && !s->row_nz && o->every_feature && !s->dist) {
        if ((st = gv_bundles_build(X, &s->bundles)) != GROVE_OK) goto fail;
        if (s->bundles &&
            (st = gv_bundles_row_major(X, s->bundles, s->n_threads, &s->row_bund)) != GROVE_OK)
            goto fail;
    }
    *out = s;
    return GROVE_OK;
fail:
    gv_tree_session_close(s);
    return st;
}

void gv_tree_session_close(gv_tree_session *s)
{
    if (!s) return;
    free_roots(s->roots, s->n_roots);
    gv_free(s->row_bins);
    gv_bundles_free(s->bundles);
    gv_free(s->row_bund);
    gv_free(s->qgh);
    gv_row_nz_free(s->row_nz);
    gv_tree_scratch_free(&s->scratch);
    gv_free(s);
}

const uint8_t *gv_tree_session_row_bins(const gv_tree_session *s) { return s->row_bins; }

int gv_tree_session_qbits(const gv_tree_session *s) { return s->qbits; }

int gv_tree_session_quantized(const gv_tree_session *s) { return s->qgh != NULL; }

float *gv_tree_session_gh(gv_tree_session *s)
{
    return gv_tree_scratch_gh(&s->scratch, s->X->n_rows);
}

/* quantized_bits = B (Shi et al., "Quantized Training of Gradient Boosting Decision Trees",
 * NeurIPS 2022): the gradients of group g become integers in [-(2^(B-1) - 1), 2^(B-1) - 1] and
 * the hessians in [0, 2^B - 1], by stochastic rounding q = floor(x / d + u), u uniform in
 * [0, 1) on a grid of 2^-32 (unbiased to that grid: E[q d] = x), with d = max |x| / levels over
 * all rows.  The draws come from
 * blocks of 4096 rows, each its own stream (GV_STREAM_GBDT_QUANT), so they do not depend on
 * the thread count.  The session keeps (d_g, d_h) for the next fit's qscale. */
void gv_tree_session_quantize(gv_tree_session *s, const double *gr, const double *hs, uint64_t seed,
                              uint64_t tree)
{
    const size_t n = s->X->n_rows;
    double *scale = s->qscale;
    const double lg = (double)((1 << (s->qbits - 1)) - 1), lh = (double)((1 << s->qbits) - 1);
    /* the largest |g| and h: over blocks in parallel, each from 0, then combined the same way
     * (a maximum: the same value in any order) */
    double mg = 0, mh = 0;
    enum { QMAX_BLOCKS = 64 };
    double bmg[QMAX_BLOCKS], bmh[QMAX_BLOCKS];
    const size_t qbs = (n + QMAX_BLOCKS - 1) / QMAX_BLOCKS;
#ifdef _OPENMP
#pragma omp parallel for num_threads(s->n_threads) schedule(static) \
    if (n >= PAR_MIN_ROWS && s->n_threads > 1)
#endif
    for (int k = 0; k < QMAX_BLOCKS; k++) {
        const size_t lo = (size_t)k * qbs < n ? (size_t)k * qbs : n;
        const size_t hi = lo + qbs < n ? lo + qbs : n;
        double m1 = 0, m2 = 0;
        for (size_t i = lo; i < hi; i++) { /* (gradients are finite: gv_tree_fit checks them) */
            double a = fabs(gr[i]);
            m1 = a > m1 ? a : m1;
            m2 = hs[i] > m2 ? hs[i] : m2;
        }
        bmg[k] = m1;
        bmh[k] = m2;
    }
    for (int k = 0; k < QMAX_BLOCKS; k++) {
        mg = bmg[k] > mg ? bmg[k] : mg;
        mh = bmh[k] > mh ? bmh[k] : mh;
    }
    const double dg = mg > 0 ? mg / lg : 1.0, dh = mh > 0 ? mh / lh : 1.0;
    const double ig = 1 / dg, ih = 1 / dh;
    scale[0] = dg;
    scale[1] = dh;
    int32_t *q = s->qgh;
    const long n_blocks = (long)((n + 4095) / 4096);
#ifdef _OPENMP
#pragma omp parallel for num_threads(s->n_threads) schedule(static) \
    if (n >= PAR_MIN_ROWS && s->n_threads > 1)
#endif
    for (long b = 0; b < n_blocks; b++) {
        gv_rng rng;
        gv_rng_seed(&rng, seed, GV_STREAM_GBDT_QUANT, tree << 24 | (uint64_t)b);
        size_t lo = (size_t)b * 4096, hi = lo + 4096 < n ? lo + 4096 : n;
        for (size_t i = lo; i < hi; i++) {
            /* one 64-bit draw: u_g from its high 32 bits, u_h from its low 32 */
            uint64_t u = gv_rng_next(&rng);
            double a = floor(gr[i] * ig + (double)(u >> 32) * 0x1p-32);
            double c = floor(hs[i] * ih + (double)(u & 0xffffffffu) * 0x1p-32);
            a = a < -lg ? -lg : (a > lg ? lg : a);
            c = c < 0 ? 0 : (c > lh ? lh : c);
            q[2 * i] = (int32_t)a;
            q[2 * i + 1] = (int32_t)c;
        }
    }
}

/* The root histograms of the round's G trees (softmax: one per class), built in one pass over
 * the rows (gv_hist_roots_grad: the sums each tree's own root build gives, bit for bit), where
 * every tree grows on every row and all features with row-major bins and exact histograms; NULL
 * otherwise (or without memory: then each tree builds its own).  Moved from gbdt's round. */
#define ROOTS_MAX_BYTES 512e6
static double **round_roots(gv_tree_session *s, const double *grad, const double *hess, size_t G,
                            int every_row_feature)
{
    const gv_binned *X = s->X;
    if (G < 2 || !every_row_feature || s->qgh || s->dist || !gv_hist_roots_ok(X, s->row_bins, G))
        return NULL;
    const size_t len = gv_hist_len_grad(X);
    /* memory: the G histograms held at once, and the rows' G (g, h) side by side (the G
     * gradient arrays' size again), each within ROOTS_MAX_BYTES (else the trees' own builds) */
    if ((double)G * (double)len * sizeof(double) > ROOTS_MAX_BYTES ||
        (double)X->n_rows * (double)(2 * G + 3) * sizeof(double) > ROOTS_MAX_BYTES)
        return NULL;
    double **roots = gv_calloc(G, sizeof *roots);
    if (!roots) return NULL;
    for (size_t g = 0; g < G; g++) {
        roots[g] = gv_tree_scratch_hist(&s->scratch, len);
        if (!roots[g]) {
            free_roots(roots, G);
            return NULL;
        }
    }
    if (gv_hist_roots_grad(X, s->row_bins, grad, hess, G, s->n_threads, &s->scratch,
                           roots) != GROVE_OK) {
        gv_err_clear();
        free_roots(roots, G);
        return NULL;
    }
    return roots;
}


void gv_tree_session_round(gv_tree_session *s, const double *grad, const double *hess, size_t G,
                           int every_row_feature)
{
    free_roots(s->roots, s->n_roots);
    s->roots = round_roots(s, grad, hess, G, every_row_feature);
    s->n_roots = s->roots ? G : 0;
}

grove_status gv_tree_session_fit(gv_tree_session *s, const gv_tree_config *cfg, gv_tree_input *in,
                                 size_t group, gv_rng *rng, gv_tree **out)
{
    in->X = s->X;
    in->row_bins = s->row_bins;
    in->bundles = s->bundles;
    in->row_bund = s->row_bund;
    in->qgh = s->qgh;
    in->row_nz = s->row_nz;
    in->scratch = &s->scratch;
    in->root_hist = NULL;
    if (group < s->n_roots) {
        in->root_hist = s->roots[group];
        s->roots[group] = NULL; /* the fit's now */
    }
    if (s->qgh) {
        in->qscale[0] = s->qscale[0];
        in->qscale[1] = s->qscale[1];
        in->qmax[0] = (1 << (s->qbits - 1)) - 1; /* its levels: every |g| and h within */
        in->qmax[1] = (1 << s->qbits) - 1;
    }
    gv_plan plan;
    in->plan_out = s->has_plan ? NULL : &plan;
    grove_status st = gv_tree_fit(cfg, in, rng, out);
    if (in->plan_out && st == GROVE_OK) {
        s->plan = plan;
        s->has_plan = 1;
    }
    in->plan_out = NULL;
    return st;
}

void gv_tree_session_plan(const gv_tree_session *s, char *buf, size_t n)
{
    if (n == 0) return;
    buf[0] = '\0';
    if (s->has_plan) gv_plan_describe(&s->plan, buf, n);
}

/* XGBoost's pruner: bottom-up, a binary split whose children are both leaves and whose loss
 * reduction 2 * gain (XGBoost's units) is below gamma becomes a leaf; then the tree is
 * compacted (reachable nodes keep their order, so children still follow their parents). */
grove_status gv_tree_prune(gv_tree *t, double gamma, int *changed_out)
{
    *changed_out = 0;
    if (!(gamma > 0)) return GROVE_OK;
    int changed = 0;
    for (size_t k = t->n_nodes; k-- > 0;) {
        gv_tree_node *n = &t->nodes[k];
        if (n->type != GV_NODE_NUM && n->type != GV_NODE_CAT_SET) continue;
        if (t->nodes[n->left].type != GV_NODE_LEAF || t->nodes[n->right].type != GV_NODE_LEAF)
            continue;
        if (!(2 * n->gain < gamma)) continue;
        n->type = GV_NODE_LEAF;
        n->feature = -1;
        n->left = n->right = -1;
        n->gain = 0;
        n->threshold = 0;
        n->bin_split = 0;
        n->default_left = 0;
        n->cat_begin = n->cat_len = 0;
        changed = 1;
    }
    if (!changed) return GROVE_OK;
    *changed_out = 1;
    int32_t *map = gv_malloc_array(t->n_nodes, sizeof *map);
    if (!map) return gv_err_nomem("tree pruning");
    for (size_t k = 0; k < t->n_nodes; k++) map[k] = -1;
    map[0] = 0;
    size_t m = 0;
    for (size_t k = 0; k < t->n_nodes; k++) {
        if (map[k] < 0) continue; /* unreachable: its parent became a leaf */
        map[k] = (int32_t)m;
        gv_tree_node *n = &t->nodes[k];
        if (n->type != GV_NODE_LEAF) {
            map[n->left] = 0; /* reachable; numbered when the loop gets there */
            map[n->right] = 0;
        }
        t->nodes[m] = *n;
        memmove(t->values + m * (size_t)t->n_outputs, t->values + k * (size_t)t->n_outputs,
                (size_t)t->n_outputs * sizeof *t->values);
        m++;
    }
    /* children come after their parents, so their new numbers were set above (map is only
     * read for nodes already visited, and a node's new number is final once visited) */
    for (size_t j = 0; j < m; j++) {
        gv_tree_node *n = &t->nodes[j];
        if (n->type == GV_NODE_LEAF) continue;
        n->left = map[n->left];
        n->right = map[n->right];
    }
    gv_free(map);
    t->n_nodes = m;
    return GROVE_OK;
}
