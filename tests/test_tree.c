/*
 * test_tree.c -- the histogram tree engine against a naive exact-split tree written plainly
 * below (sorting nothing, brute force over every threshold between distinct values, impurities
 * computed from their textbook definitions), plus hand-made categorical examples (ID3
 * multiway, binary partitions), missing-value sides, stumps, Newton leaf values, growth
 * limits, per-node feature sampling, determinism across thread counts, argument errors and
 * out-of-memory paths.
 *
 * The naive tree mirrors the engine's documented rules (src/learn/tree_int.h): a candidate is
 * valid iff both children meet the limits and gain > min_gain and gain > tol; candidates of a
 * feature are visited by threshold ascending, missing-right before missing-left, and replace
 * the best only when better by more than tol; features are combined in index order the same
 * way; without missing rows at a node the missing side is the heavier child (ties left).
 */
#include "check.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

#include "learn/plan.h"
#include "learn/tree.h"

#define TIE_REL 1e-10 /* GV_TREE_TIE_REL */

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return rng_state >> 33;
}
static double rnd_unit(void) { return (double)rnd() / 2147483648.0; }

/* ---- test data ---- */

typedef struct tdata {
    grove_dataset *d;
    gv_bin_mapper *m;
    gv_binned *b;
    size_t n, F;
    double *y, *w, *g, *h;
} tdata;

static void tdata_free(tdata *t)
{
    gv_binned_free(t->b);
    if (t->d) gv_bin_mappers_free(t->m, t->F);
    grove_dataset_free(t->d);
    free(t->y);
    free(t->w);
    free(t->g);
    free(t->h);
    memset(t, 0, sizeof *t);
}

/* n rows, F features; features listed in `cat` (may be NULL) are categorical with n_cat
 * categories each. */
static void tdata_init(tdata *t, size_t n, size_t F, const int *cat, size_t n_cat)
{
    memset(t, 0, sizeof *t);
    grove_schema *s = gv_schema_new(F);
    for (size_t f = 0; f < F; f++) {
        if (!cat || !cat[f]) continue;
        s->is_categorical[f] = 1;
        for (size_t c = 0; c < n_cat; c++) {
            char name[32];
            snprintf(name, sizeof name, "k%zu", c);
            gv_dict_add(&s->categories[f], name, strlen(name));
        }
    }
    t->d = gv_dataset_new(s, n, 0);
    t->n = n;
    t->F = F;
    t->y = calloc(n, sizeof *t->y);
    t->g = calloc(n, sizeof *t->g);
    t->h = calloc(n, sizeof *t->h);
}

/* Gives the schema K classes named 0..K-1 (K >= 2), or makes it a regression schema. */
static void tclasses(tdata *t, int K)
{
    grove_schema *s = t->d->schema;
    gv_dict_free(&s->classes);
    s->task = K >= 2 ? GROVE_CLASSIFICATION : GROVE_REGRESSION;
    for (int k = 0; k < K; k++) {
        char name[16];
        snprintf(name, sizeof name, "%d", k);
        gv_dict_add(&s->classes, name, strlen(name));
    }
}

static void tset(tdata *t, size_t f, size_t i, float x) { t->d->values[f * t->n + i] = x; }
static float tget(const tdata *t, size_t f, size_t i) { return t->d->values[f * t->n + i]; }

static void tdata_bin(tdata *t, int max_bins)
{
    CHECK_OK(gv_bin_mappers_build(t->d, max_bins, 0, 1, 1, &t->m));
    CHECK_OK(gv_binned_build(t->d, t->m, 1, &t->b));
}

/* The gradients and hessians rounded to float, as gbdt gives them (tree.h: one process, the
 * engine holds them as floats; the references here sum the same values in double). */
static void gh_float(double *g, double *h, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        g[i] = (double)(float)g[i];
        h[i] = (double)(float)h[i];
    }
}

static gv_tree_input tinput(const tdata *t)
{
    gv_tree_input in;
    memset(&in, 0, sizeof in);
    if (t->g) gh_float(t->g, t->h, t->n);
    in.X = t->b;
    in.n_rows = t->n;
    in.weight = t->w;
    in.y = t->y;
    in.grad = t->g;
    in.hess = t->h;
    return in;
}

/* ---- the naive tree ---- */

typedef struct naive {
    const gv_tree_config *cfg;
    const tdata *td;
    const gv_tree *t;
    double c;          /* root weighted mean of y (variance tolerance, as the engine) */
    float *thr;        /* [F * 65536] thresholds between neighbouring distinct values */
    size_t *n_thr;     /* [F] */
    size_t mismatches; /* nodes that disagreed (each also fails a CHECK) */
} naive;

/* The cut between neighbouring distinct values lo < hi (bin.h). */
static float naive_cut(float lo, float hi)
{
    float c = (float)(((double)lo + (double)hi) / 2.0);
    if (!(c > lo && c < hi)) c = lo;
    if (isinf(c) && c < 0 && hi > -FLT_MAX) c = -FLT_MAX;
    return c;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static void naive_init(naive *nv, const gv_tree_config *cfg, const tdata *td, const gv_tree *t,
                       const size_t *rows, size_t n)
{
    memset(nv, 0, sizeof *nv);
    nv->cfg = cfg;
    nv->td = td;
    nv->t = t;
    nv->thr = malloc(td->F * 65536 * sizeof *nv->thr);
    nv->n_thr = calloc(td->F, sizeof *nv->n_thr);
    float *v = malloc(td->n * sizeof *v);
    for (size_t f = 0; f < td->F; f++) { /* thresholds from all rows (the binning's rows) */
        size_t m = 0;
        for (size_t i = 0; i < td->n; i++)
            if (!isnan(tget(td, f, i))) v[m++] = tget(td, f, i);
        qsort(v, m, sizeof *v, cmp_float);
        size_t D = 0;
        for (size_t i = 0; i < m; i++)
            if (D == 0 || v[i] != v[D - 1]) v[D++] = v[i];
        for (size_t j = 0; j + 1 < D; j++) nv->thr[f * 65536 + j] = naive_cut(v[j], v[j + 1]);
        nv->n_thr[f] = D ? D - 1 : 0;
    }
    free(v);
    double sw = 0, swy = 0;
    for (size_t k = 0; k < n; k++) {
        double w = td->w ? td->w[rows[k]] : 1.0;
        sw += w;
        swy += w * td->y[rows[k]];
    }
    nv->c = sw > 0 ? swy / sw : 0;
}

static void naive_free(naive *nv)
{
    free(nv->thr);
    free(nv->n_thr);
}

static double wt(const naive *nv, size_t r) { return nv->td->w ? nv->td->w[r] : 1.0; }

static double soft(double g, double a) { return g > a ? g - a : (g < -a ? g + a : 0.0); }

/* Of a set of rows: W I (weighted impurity; for newton -1/2 T(G)^2/(H+lambda)), the score
 * magnitude used for the tolerance, the weight (sum w, or sum h), and the leaf value. */
typedef struct nres {
    double wi, sc, weight;
    double value[8];
} nres;

static void naive_eval(const naive *nv, const size_t *rows, size_t n, nres *o)
{
    const gv_tree_config *cfg = nv->cfg;
    memset(o, 0, sizeof *o);
    if (cfg->stats == GV_STATS_CLASS) {
        double wk[8] = {0}, W = 0;
        for (size_t k = 0; k < n; k++) wk[(int)nv->td->y[rows[k]]] += wt(nv, rows[k]);
        for (int k = 0; k < cfg->n_classes; k++) W += wk[k];
        double I = 0;
        if (cfg->criterion == GV_SPLIT_GINI) {
            /* gini = 1 - sum p_k^2 */
            I = 1;
            for (int k = 0; k < cfg->n_classes; k++) I -= (wk[k] / W) * (wk[k] / W);
        } else {
            /* entropy = -sum p_k log2 p_k */
            for (int k = 0; k < cfg->n_classes; k++)
                if (wk[k] > 0) I -= (wk[k] / W) * log2(wk[k] / W);
        }
        o->wi = n && W > 0 ? W * I : 0;
        o->sc = cfg->criterion == GV_SPLIT_GINI ? W - o->wi : -o->wi;
        o->weight = W;
        for (int k = 0; k < cfg->n_classes; k++)
            o->value[k] = W > 0 ? wk[k] / W : 1.0 / cfg->n_classes;
    } else if (cfg->stats == GV_STATS_REG) {
        double W = 0, swy = 0, sc_s = 0, ss = 0;
        for (size_t k = 0; k < n; k++) {
            W += wt(nv, rows[k]);
            swy += wt(nv, rows[k]) * nv->td->y[rows[k]];
            sc_s += wt(nv, rows[k]) * (nv->td->y[rows[k]] - nv->c);
        }
        double mean = W > 0 ? swy / W : nv->c;
        for (size_t k = 0; k < n; k++) {
            double dlt = nv->td->y[rows[k]] - mean;
            ss += wt(nv, rows[k]) * dlt * dlt;
        }
        o->wi = ss; /* W Var = sum w (y - mean)^2 */
        o->sc = W > 0 ? sc_s * sc_s / W : 0;
        o->weight = W;
        o->value[0] = mean;
    } else {
        double G = 0, H = 0;
        for (size_t k = 0; k < n; k++) {
            G += nv->td->g[rows[k]];
            H += nv->td->h[rows[k]];
        }
        double d = H + cfg->lambda, t = soft(G, cfg->alpha);
        o->sc = n && d > 0 ? 0.5 * t * t / d : 0;
        o->wi = -o->sc;
        o->weight = H;
        o->value[0] = d > 0 ? -t / d : 0;
    }
}

typedef struct ncand {
    int valid;
    double gain, tol;
    size_t f, j;
    int default_left;
} ncand;

/* Offers the split L | R; returns 1 if it became the best. */
static int naive_try(const naive *nv, const size_t *L, size_t nL, const size_t *R, size_t nR,
                     const nres *P, ncand *best, int *heavier_left)
{
    const gv_tree_config *cfg = nv->cfg;
    if (nL < cfg->min_samples_leaf || nR < cfg->min_samples_leaf) return 0;
    nres rl, rr;
    naive_eval(nv, L, nL, &rl);
    naive_eval(nv, R, nR, &rr);
    if (cfg->min_weight_leaf > 0 && (rl.weight < cfg->min_weight_leaf || rr.weight < cfg->min_weight_leaf))
        return 0;
    double gain = P->wi - rl.wi - rr.wi;
    double tol = TIE_REL * (fabs(rl.sc) + fabs(rr.sc) + fabs(P->sc));
    if (!(gain > cfg->min_gain && gain > tol)) return 0;
    if (best->valid && !(gain > best->gain + tol)) return 0;
    best->valid = 1;
    best->gain = gain;
    best->tol = tol;
    *heavier_left = rl.weight >= rr.weight;
    return 1;
}

/* Grows the naive tree on rows[0..n) at `depth` and compares it with engine node `id`. */
static void naive_check(naive *nv, const size_t *rows, size_t n, int depth, int32_t id)
{
    const gv_tree_config *cfg = nv->cfg;
    const tdata *td = nv->td;
    const gv_tree *t = nv->t;
    const gv_tree_node *nd = &t->nodes[id];
    nres P;
    naive_eval(nv, rows, n, &P);
    size_t bad = 0;
    if (nd->count != (double)n) bad++;
    CHECK_EQ_DBL(nd->count, (double)n);
    for (int k = 0; k < t->n_outputs; k++) {
        double ev = t->values[(size_t)id * t->n_outputs + k];
        if (!(fabs(ev - P.value[k]) <= 1e-9 * (1 + fabs(P.value[k])))) bad++;
        CHECK_NEAR(ev, P.value[k], 1e-9 * (1 + fabs(P.value[k])));
    }
    CHECK_NEAR(nd->weight, P.weight, 1e-9 * (1 + fabs(P.weight)));

    int splittable = td->F > 0 && (cfg->max_depth == 0 || depth < cfg->max_depth) &&
                     n >= cfg->min_samples_split && n >= 2 * cfg->min_samples_leaf;
    if (cfg->stats == GV_STATS_CLASS) {
        int n_pos = 0;
        for (int k = 0; k < cfg->n_classes; k++) n_pos += P.value[k] > 0;
        if (n_pos <= 1) splittable = 0;
    }
    ncand best = {0};
    size_t *L = malloc((n + 1) * sizeof *L), *R = malloc((n + 1) * sizeof *R);
    size_t *Mi = malloc((n + 1) * sizeof *Mi);
    for (size_t f = 0; splittable && f < td->F; f++) {
        ncand fb = {0};
        for (size_t j = 0; j < nv->n_thr[f]; j++) {
            float thr = nv->thr[f * 65536 + j];
            size_t nl = 0, nr = 0, nm = 0;
            for (size_t k = 0; k < n; k++) {
                float x = tget(td, f, rows[k]);
                if (isnan(x))
                    Mi[nm++] = rows[k];
                else if (x <= thr)
                    L[nl++] = rows[k];
                else
                    R[nr++] = rows[k];
            }
            /* missing right: R + missing (row order does not matter for the sums' values
             * beyond rounding) */
            size_t *R2 = malloc((nr + nm + 1) * sizeof *R2);
            memcpy(R2, R, nr * sizeof *R);
            memcpy(R2 + nr, Mi, nm * sizeof *Mi);
            int heavier_left = 0;
            if (naive_try(nv, L, nl, R2, nr + nm, &P, &fb, &heavier_left)) {
                fb.f = f;
                fb.j = j;
                fb.default_left = nm ? 0 : heavier_left;
            }
            free(R2);
            if (nm) {
                size_t *L2 = malloc((nl + nm + 1) * sizeof *L2);
                memcpy(L2, L, nl * sizeof *L);
                memcpy(L2 + nl, Mi, nm * sizeof *Mi);
                if (naive_try(nv, L2, nl + nm, R, nr, &P, &fb, &heavier_left)) {
                    fb.f = f;
                    fb.j = j;
                    fb.default_left = 1;
                }
                free(L2);
            }
        }
        if (fb.valid && (!best.valid || fb.gain > best.gain + fb.tol)) best = fb;
    }
    if (!best.valid) {
        if (nd->type != GV_NODE_LEAF) bad++;
        CHECK_EQ_INT(nd->type, GV_NODE_LEAF);
    } else {
        float thr = nv->thr[best.f * 65536 + best.j];
        if (nd->type != GV_NODE_NUM || nd->feature != (int32_t)best.f || nd->threshold != thr ||
            nd->default_left != best.default_left)
            bad++;
        CHECK_EQ_INT(nd->type, GV_NODE_NUM);
        CHECK_EQ_INT(nd->feature, best.f);
        CHECK_EQ_DBL(nd->threshold, thr);
        CHECK_EQ_INT(nd->bin_split, best.j + 1);
        CHECK_EQ_INT(nd->default_left, best.default_left);
        CHECK_NEAR(nd->gain, best.gain, 1e-9 * (1 + fabs(best.gain)));
        if (nd->type == GV_NODE_NUM && nd->feature == (int32_t)best.f) {
            size_t nl = 0, nr = 0;
            for (size_t k = 0; k < n; k++) {
                float x = tget(td, best.f, rows[k]);
                int left = isnan(x) ? best.default_left : x <= thr;
                if (left)
                    L[nl++] = rows[k];
                else
                    R[nr++] = rows[k];
            }
            naive_check(nv, L, nl, depth + 1, nd->left);
            naive_check(nv, R, nr, depth + 1, nd->right);
        }
    }
    nv->mismatches += bad;
    free(L);
    free(R);
    free(Mi);
}

/* Random data for the differential test: features with at most `max_levels` distinct values
 * (some missing), labels with some structure. */
static void make_random(tdata *t, size_t n, size_t F, int stats, int n_classes, int weighted,
                        size_t max_levels)
{
    tdata_init(t, n, F, NULL, 0);
    for (size_t f = 0; f < F; f++) {
        size_t L = f == 0 ? max_levels : 2 + rnd() % 30;
        if (L > max_levels) L = max_levels;
        double scale = 0.1 + rnd_unit() * 10, offset = rnd_unit() * 100 - 50;
        double miss = f % 2 ? 0.1 : 0.0;
        for (size_t i = 0; i < n; i++) {
            size_t l = rnd() % L;
            tset(t, f, i, rnd_unit() < miss ? NAN : (float)(offset + scale * (double)l));
        }
    }
    if (weighted) {
        t->w = malloc(n * sizeof *t->w);
        for (size_t i = 0; i < n; i++) t->w[i] = 0.1 + 3 * rnd_unit();
    }
    for (size_t i = 0; i < n; i++) {
        double x0 = isnan(tget(t, 0, i)) ? 0 : tget(t, 0, i);
        double x1 = F < 2 || isnan(tget(t, 1, i)) ? 1 : tget(t, 1, i); /* F = 1: no second feature */
        double noise = rnd_unit() + rnd_unit() + rnd_unit() - 1.5;
        if (stats == GV_STATS_CLASS) {
            double s = (x0 > 0) + (x1 > 0.5 * x0) + (rnd_unit() < 0.25 ? (double)(rnd() % 3) : 0);
            t->y[i] = (double)((int)s % n_classes);
        } else if (stats == GV_STATS_REG) {
            t->y[i] = 0.3 * x0 - (x1 > 0 ? 2 : 0) + noise + 1000; /* offset: tests centring */
        } else {
            t->g[i] = 0.01 * x0 - (x1 > 0 ? 0.5 : 0) + noise;
            t->h[i] = 0.2 + rnd_unit();
        }
    }
}

/* Two trees have the same structure and values (node numbering may differ); row counts too
 * unless ignore_count. */
static int same_tree_c(const gv_tree *a, int32_t ia, const gv_tree *b, int32_t ib, int ignore_count)
{
    const gv_tree_node *x = &a->nodes[ia], *y = &b->nodes[ib];
    if (x->type != y->type || x->feature != y->feature) return 0;
    if (!ignore_count && x->count != y->count) return 0;
    for (int k = 0; k < a->n_outputs; k++)
        if (fabs(a->values[(size_t)ia * a->n_outputs + k] - b->values[(size_t)ib * b->n_outputs + k]) > 1e-9)
            return 0;
    if (x->type == GV_NODE_LEAF) return 1;
    if (x->threshold != y->threshold || x->default_left != y->default_left) return 0;
    return same_tree_c(a, x->left, b, y->left, ignore_count) &&
           same_tree_c(a, x->right, b, y->right, ignore_count);
}

static int same_tree(const gv_tree *a, int32_t ia, const gv_tree *b, int32_t ib)
{
    return same_tree_c(a, ia, b, ib, 0);
}

static int same_tree_bits(const gv_tree *a, const gv_tree *b)
{
    return a->n_nodes == b->n_nodes && a->n_outputs == b->n_outputs &&
           a->n_cat_data == b->n_cat_data &&
           memcmp(a->nodes, b->nodes, a->n_nodes * sizeof *a->nodes) == 0 &&
           memcmp(a->values, b->values, a->n_nodes * a->n_outputs * sizeof(double)) == 0 &&
           (a->n_cat_data == 0 || memcmp(a->cat_data, b->cat_data, a->n_cat_data * 4) == 0);
}

static void test_differential(void)
{
    struct {
        int stats, criterion, n_classes, max_depth, msl, max_bins;
        double mwl, min_gain, lambda, alpha;
        int big; /* >= 5000 rows: the interleaved histograms and root counts of hist.c */
    } cases[] = {
        {GV_STATS_CLASS, GV_SPLIT_GINI, 2, 0, 1, 255, 0, 0, 0, 0, 0},
        {GV_STATS_CLASS, GV_SPLIT_GINI, 3, 0, 1, 255, 0, 0, 0, 0, 0},
        {GV_STATS_CLASS, GV_SPLIT_ENTROPY, 3, 4, 3, 255, 0, 0, 0, 0, 0},
        {GV_STATS_CLASS, GV_SPLIT_ENTROPY, 2, 0, 1, 255, 0, 0.5, 0, 0, 0},
        {GV_STATS_CLASS, GV_SPLIT_GINI, 3, 3, 2, 255, 1.5, 0, 0, 0, 0},
        {GV_STATS_REG, GV_SPLIT_VARIANCE, 0, 0, 1, 255, 0, 0, 0, 0, 0},
        {GV_STATS_REG, GV_SPLIT_VARIANCE, 0, 3, 5, 255, 0, 0, 0, 0, 0},
        {GV_STATS_GRAD, GV_SPLIT_NEWTON, 0, 5, 1, 255, 0, 0, 1.0, 0.5, 0},
        {GV_STATS_GRAD, GV_SPLIT_NEWTON, 0, 0, 1, 255, 2.0, 0.1, 0.5, 0, 0},
        {GV_STATS_CLASS, GV_SPLIT_GINI, 2, 0, 1, 1000, 0, 0, 0, 0, 0}, /* 16-bit bins */
        {GV_STATS_CLASS, GV_SPLIT_GINI, 3, 4, 1, 255, 0, 0, 0, 0, 1},
        {GV_STATS_CLASS, GV_SPLIT_ENTROPY, 2, 3, 1, 1000, 0, 0, 0, 0, 1},
        {GV_STATS_GRAD, GV_SPLIT_NEWTON, 0, 4, 1, 255, 0, 0, 1.0, 0, 1},
        {GV_STATS_GRAD, GV_SPLIT_NEWTON, 0, 3, 1, 1000, 1.0, 0, 0.5, 0.2, 1},
    };
    size_t n_cases = sizeof cases / sizeof cases[0];
    size_t total_nodes = 0, total_mismatch = 0;
    for (size_t ci = 0; ci < n_cases; ci++) {
        for (int seed = 1; seed <= 6; seed++) {
            rng_state = (uint64_t)seed * 1000003u + ci;
            tdata td;
            size_t n = cases[ci].big            ? 5000 + rnd() % 1500
                       : cases[ci].max_bins > 255 ? 700 + rnd() % 300
                                                  : 150 + rnd() % 350,
                   F = 5;
            size_t levels = cases[ci].max_bins > 255 ? 600 : 255;
            make_random(&td, n, F, cases[ci].stats, cases[ci].n_classes, seed % 2 == 0, levels);
            if (cases[ci].big) {
                /* sparse features (bin.h): mostly zero, and mostly missing */
                for (size_t i = 0; i < n; i++) {
                    if (rnd_unit() < 0.7) tset(&td, 2, i, 0.0f);
                    if (rnd_unit() < 0.6) tset(&td, 3, i, NAN);
                }
            }
            tdata_bin(&td, cases[ci].max_bins);
            if (cases[ci].big) CHECK(td.b->sparse_rows && td.b->sparse_rows[2] && td.b->sparse_rows[3]);
            gv_tree_config cfg;
            gv_tree_config_default(&cfg, (gv_stats_kind)cases[ci].stats, cases[ci].n_classes);
            cfg.criterion = (gv_split_criterion)cases[ci].criterion;
            cfg.max_depth = cases[ci].max_depth;
            cfg.min_samples_leaf = (size_t)cases[ci].msl;
            cfg.min_weight_leaf = cases[ci].mwl;
            cfg.min_gain = cases[ci].min_gain;
            cfg.lambda = cases[ci].lambda;
            cfg.alpha = cases[ci].alpha;
            gv_tree_input in = tinput(&td);
            gv_tree *t = NULL;
            CHECK_OK(gv_tree_fit(&cfg, &in, NULL, &t));
            if (!t) {
                tdata_free(&td);
                continue;
            }
            if (cases[ci].max_bins > 255) CHECK_EQ_INT(td.b->wide, 1);
            size_t *rows = malloc(n * sizeof *rows);
            for (size_t i = 0; i < n; i++) rows[i] = i;
            naive nv;
            naive_init(&nv, &cfg, &td, t, rows, n);
            naive_check(&nv, rows, n, 0, 0);
            total_nodes += t->n_nodes;
            total_mismatch += nv.mismatches;
            if (nv.mismatches)
                fprintf(stderr, "differential: case %zu seed %d: %zu mismatching nodes\n", ci, seed,
                        nv.mismatches);

            /* gradient statistics from the row-major bins (gbdt's path), with the leaves of
             * the rows from the grower and its buffers reused: the same tree (sums in another
             * order), the naive tree agrees, and each row's leaf is where the walk ends */
            if (cases[ci].stats == GV_STATS_GRAD && !td.b->wide) {
                uint8_t *rb = NULL;
                CHECK_OK(gv_binned_row_major(td.b, 1, &rb));
                uint32_t *leaf = malloc(n * sizeof *leaf);
                gv_tree_scratch scr = {0};
                gv_tree_input in3 = in;
                in3.row_bins = rb;
                in3.leaf_of_row = leaf;
                in3.scratch = &scr;
                for (int rep = 0; rep < 2; rep++) { /* the second fit reuses the buffers */
                    gv_tree *t3 = NULL;
                    CHECK_OK(gv_tree_fit(&cfg, &in3, NULL, &t3));
                    if (!t3) continue;
                    CHECK(same_tree(t, 0, t3, 0));
                    size_t where = 0;
                    for (size_t i = 0; i < n; i++) where += leaf[i] == gv_tree_leaf_binned(t3, td.b, i);
                    CHECK_EQ_INT(where, n);
                    gv_tree_free(t3);
                }
                gv_tree_scratch_free(&scr);
                free(leaf);
                gv_free(rb);
            }

            /* class trees (boosting's members): the leaves of the rows from the grower are
             * where the raw-value walk ends (gv_fit_cells), and with the labels vouched for
             * (y_checked) the same tree grows */
            if (cases[ci].stats == GV_STATS_CLASS) {
                uint32_t *leaf = malloc(n * sizeof *leaf);
                gv_tree_input in4 = in;
                in4.leaf_of_row = leaf;
                in4.y_checked = 1;
                gv_tree *t4 = NULL;
                CHECK_OK(gv_tree_fit(&cfg, &in4, NULL, &t4));
                if (t4) {
                    CHECK(same_tree(t, 0, t4, 0));
                    size_t where = 0;
                    for (size_t i = 0; i < n; i++) where += leaf[i] == gv_tree_leaf(t4, td.d, i);
                    CHECK_EQ_INT(where, n);
                }
                gv_tree_free(t4);
                free(leaf);
            }

            /* raw-value and binned walks agree on every training row */
            size_t agree = 0;
            for (size_t i = 0; i < n; i++)
                agree += gv_tree_leaf(t, td.d, i) == gv_tree_leaf_binned(t, td.b, i);
            CHECK_EQ_INT(agree, n);

            /* the same tree from a reversed row view (sums in another order) */
            size_t *rev = malloc(n * sizeof *rev);
            for (size_t i = 0; i < n; i++) rev[i] = n - 1 - i;
            gv_tree_input in2 = in;
            in2.rows = rev;
            gv_tree *t2 = NULL;
            CHECK_OK(gv_tree_fit(&cfg, &in2, NULL, &t2));
            if (t2) CHECK(same_tree(t, 0, t2, 0));
            gv_tree_free(t2);

            /* best-first without a leaf limit grows the same tree (numbered otherwise) */
            cfg.best_first = 1;
            t2 = NULL;
            CHECK_OK(gv_tree_fit(&cfg, &in, NULL, &t2));
            if (t2) CHECK(same_tree(t, 0, t2, 0));
            gv_tree_free(t2);

            free(rev);
            naive_free(&nv);
            free(rows);
            gv_tree_free(t);
            tdata_free(&td);
        }
    }
    CHECK_EQ_INT(total_mismatch, 0);
    CHECK(total_nodes > 500); /* the trees were not trivial */
    fprintf(stderr, "differential: %zu nodes compared\n", total_nodes);
}

/* ---- categorical splits ---- */

static void test_multiway(void)
{
    /* f0: 4 categories (k3 unseen).  k0: 4 x class 0; k1: 4 x class 1; k2: 3 x class 1 and
     * 1 x class 0; missing: 2 x class 1.  ID3 splits into 3 children; the missing rows join
     * k1 (the only choice that keeps a child pure), which is the default child. */
    int cat[1] = {1};
    tdata td;
    tdata_init(&td, 14, 1, cat, 4);
    tclasses(&td, 2);
    float x[14] = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, NAN, NAN};
    double y[14] = {0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1};
    for (size_t i = 0; i < 14; i++) {
        tset(&td, 0, i, x[i]);
        td.y[i] = y[i];
    }
    tdata_bin(&td, 255);
    gv_tree_config cfg;
    gv_tree_config_default(&cfg, GV_STATS_CLASS, 2);
    cfg.criterion = GV_SPLIT_ENTROPY;
    cfg.multiway_categorical = 1;
    gv_tree_input in = tinput(&td);
    gv_tree *t = NULL;
    CHECK_OK(gv_tree_fit(&cfg, &in, NULL, &t));
    if (!t) goto done;
    const gv_tree_node *r = &t->nodes[0];
    CHECK_EQ_INT(r->type, GV_NODE_CAT_MULTI);
    CHECK_EQ_INT(r->feature, 0);
    CHECK_EQ_INT(r->cat_len, 4);
    const uint32_t *map = t->cat_data + r->cat_begin;
    CHECK_EQ_INT(map[0], 1);
    CHECK_EQ_INT(map[1], 2);
    CHECK_EQ_INT(map[2], 3);
    CHECK_EQ_INT(map[3], UINT32_MAX);
    CHECK_EQ_INT(r->left, 1);
    CHECK_EQ_INT(r->right, 2); /* default child = k1's */
    CHECK_EQ_DBL(t->nodes[1].count, 4);
    CHECK_EQ_DBL(t->nodes[2].count, 6);
    CHECK_EQ_DBL(t->nodes[3].count, 4);
    CHECK_EQ_DBL(t->values[2 * 2 + 1], 1.0);
    CHECK_EQ_DBL(t->values[3 * 2 + 1], 0.75);
    /* information gain in bits: H(root) W - sum W_c H(c) */
    double p = 9.0 / 14, hroot = -(p * log2(p) + (1 - p) * log2(1 - p));
    double h3 = -(0.75 * log2(0.75) + 0.25 * log2(0.25));
    CHECK_NEAR(r->gain, 14 * hroot - 4 * h3, 1e-12);
    /* k2's child cannot split again on f0 (one category): the tree stops */
    CHECK_EQ_INT(t->n_nodes, 4);
    CHECK_EQ_INT(gv_tree_n_leaves(t), 3);
    /* prediction: the unseen category and missing go to the default child */
    grove_dataset *d = td.d;
    d->values[0] = 3;
    CHECK_EQ_INT(gv_tree_leaf(t, d, 0), 2);
    d->values[0] = NAN;
    CHECK_EQ_INT(gv_tree_leaf(t, d, 0), 2);
    d->values[0] = 0;
    CHECK_EQ_INT(gv_tree_leaf(t, d, 0), 1);
    size_t ok = 0;
    for (size_t i = 0; i < 14; i++) ok += gv_tree_leaf(t, d, i) == gv_tree_leaf_binned(t, td.b, i);
    CHECK_EQ_INT(ok, 14);
    CHECK_OK(gv_tree_validate(t, d->schema));
    gv_tree_free(t);
done:
    tdata_free(&td);
}

static void test_partition(void)
{
    /* 5 categories, k4 unseen.  (class 0, class 1) counts: k0 (1, 9), k1 (9, 1), k2 (2, 8),
     * k3 (8, 2).  Ordered by the class-1 fraction: k1, k3, k2, k0; the best prefix is
     * {k1, k3}.  Both sides weigh 20, so missing (none here) and the unseen k4 go left. */
    int cat[1] = {1};
    tdata td;
    tdata_init(&td, 40, 1, cat, 5);
    tclasses(&td, 2);
    int c1[4] = {9, 1, 8, 2};
    size_t i = 0;
    for (int c = 0; c < 4; c++)
        for (int k = 0; k < 10; k++, i++) {
            tset(&td, 0, i, (float)c);
            td.y[i] = k < c1[c] ? 1 : 0;
        }
    tdata_bin(&td, 255);
    gv_tree_config cfg;
    gv_tree_config_default(&cfg, GV_STATS_CLASS, 2);
    cfg.max_depth = 1;
    gv_tree_input in = tinput(&td);
    gv_tree *t = NULL;
    CHECK_OK(gv_tree_fit(&cfg, &in, NULL, &t));
    if (t) {
        const gv_tree_node *r = &t->nodes[0];
        CHECK_EQ_INT(r->type, GV_NODE_CAT_SET);
        CHECK_EQ_INT(r->cat_len, 1);
        CHECK_EQ_INT(r->default_left, 1);
        CHECK_EQ_INT(t->cat_data[r->cat_begin], (1u << 1) | (1u << 3) | (1u << 4));
        /* gini gain: 40 * 0.5 - 2 * 20 * (1 - 0.15^2 - 0.85^2) */
        CHECK_NEAR(r->gain, 20 - 40 * (1 - 0.15 * 0.15 - 0.85 * 0.85), 1e-12);
        CHECK_NEAR(t->values[1 * 2 + 1], 0.15, 1e-15);
        CHECK_OK(gv_tree_validate(t, td.d->schema));
        gv_tree_free(t);
    }

    /* with missing rows of class 1 (they belong right) and more weight left */
    td.w = malloc(40 * sizeof *td.w);
    for (i = 0; i < 40; i++) td.w[i] = 1;
    for (i = 10; i < 20; i++) td.w[i] = 2; /* k1 heavier */
    tset(&td, 0, 0, NAN);                  /* a class-1 row of k0 becomes missing */
    tset(&td, 0, 1, NAN);
    gv_binned_free(td.b);
    td.b = NULL;
    CHECK_OK(gv_binned_build(td.d, td.m, 1, &td.b));
    in = tinput(&td);
    t = NULL;
    CHECK_OK(gv_tree_fit(&cfg, &in, NULL, &t));
    if (t) {
        const gv_tree_node *r = &t->nodes[0];
        CHECK_EQ_INT(r->type, GV_NODE_CAT_SET);
        CHECK_EQ_INT(r->default_left, 0);
        CHECK_EQ_INT(t->cat_data[r->cat_begin], (1u << 1) | (1u << 3)); /* k4 follows missing */
        CHECK_EQ_DBL(t->nodes[2].count, 20);
        gv_tree_free(t);
    }

    /* regression: categories ordered by mean (k0: 3, k1: 1, k2: 2, k3: 10) -> {k1,k2,k0} | {k3} */
    tdata_free(&td);
    tdata_init(&td, 40, 1, cat, 4);
    double mean[4] = {3, 1, 2, 10};
    for (i = 0; i < 40; i++) {
        tset(&td, 0, i, (float)(i % 4));
        td.y[i] = mean[i % 4] + ((i / 4) % 2 ? 0.1 : -0.1);
    }
    tdata_bin(&td, 255);
    gv_tree_config_default(&cfg, GV_STATS_REG, 0);
    cfg.max_depth = 1;
    in = tinput(&td);
    t = NULL;
    CHECK_OK(gv_tree_fit(&cfg, &in, NULL, &t));
    if (t) {
        CHECK_EQ_INT(t->nodes[0].type, GV_NODE_CAT_SET);
        CHECK_EQ_INT(t->cat_data[t->nodes[0].cat_begin], 0x7u);
        CHECK_NEAR(t->values[1], 2.0, 1e-12);
        CHECK_NEAR(t->values[2], 10.0, 1e-12);
        gv_tree_free(t);
    }
    tdata_free(&td);
}

static void test_partition_multiclass(void)
{
    /* K = 3: categories ordered by the weighted fraction of the node's majority class (0).
     * Class counts (0, 1, 2): k0 (9, 1, 0), k1 (1, 4, 5), k2 (6, 2, 2), k3 (3, 7, 0):
     * fractions of class 0: .9, .1, .6, .3 -> order k1, k3, k2, k0; the split is the best
     * prefix of that order (found here by brute force over the three prefixes). */
    int cat[1] = {1};
    int counts[4][3] = {{9, 1, 0}, {1, 4, 5}, {6, 2, 2}, {3, 7, 0}};
    int order[4] = {1, 3, 2, 0};
    tdata td;
    tdata_init(&td, 40, 1, cat, 4);
    tclasses(&td, 3);
    size_t i = 0;
    for (int c = 0; c < 4; c++)
        for (int k = 0; k < 3; k++)
            for (int j = 0; j < counts[c][k]; j++, i++) {
                tset(&td, 0, i, (float)c);
                td.y[i] = k;
            }
    tdata_bin(&td, 255);
    double best = -1;
    uint32_t best_set = 0;
    for (int j = 1; j < 4; j++) {
        double l[3] = {0}, r[3] = {0}, WL = 0, WR = 0, gl = 1, gr = 1;
        uint32_t set = 0;
        for (int q = 0; q < 4; q++) {
            int c = order[q];
            for (int k = 0; k < 3; k++) (q < j ? l : r)[k] += counts[c][k];
            if (q < j) set |= 1u << c;
        }
        for (int k = 0; k < 3; k++) {
            WL += l[k];
            WR += r[k];
        }
        for (int k = 0; k < 3; k++) {
            gl -= (l[k] / WL) * (l[k] / WL);
            gr -= (r[k] / WR) * (r[k] / WR);
        }
        double score = -(WL * gl + WR * gr);
        if (score > best + 1e-12 || best == -1) {
            best = score;
            best_set = set;
        }
    }
    gv_tree_config cfg;
    gv_tree_config_default(&cfg, GV_STATS_CLASS, 3);
    cfg.max_depth = 1;
    gv_tree_input in = tinput(&td);
    gv_tree *t = NULL;
    CHECK_OK(gv_tree_fit(&cfg, &in, NULL, &t));
    if (t) {
        CHECK_EQ_INT(t->nodes[0].type, GV_NODE_CAT_SET);
        CHECK_EQ_INT(t->cat_data[t->nodes[0].cat_begin], best_set);
        CHECK_OK(gv_tree_validate(t, td.d->schema));
        gv_tree_free(t);
    }
    tdata_free(&td);
}

/* A row view with repeated rows (a bootstrap sample) grows the tree that the distinct sampled
 * rows grow with their multiplicities as weights (row counts aside).  (Not all rows with
 * weight 0 for the unsampled ones: rows of weight 0 still count as rows, e.g. as missing
 * rows when choosing a missing side.) */
static void test_bootstrap_view(void)
{
    for (int stats = 0; stats < 2; stats++) {
        rng_state = 808 + (uint64_t)stats;
        tdata td;
        size_t n = 400;
        make_random(&td, n, 5, stats, 3, 0, 255);
        tdata_bin(&td, 255);
        size_t *rows = malloc(n * sizeof *rows);
        double *mult = calloc(n, sizeof *mult);
        for (size_t i = 0; i < n; i++) {
            rows[i] = rnd() % n;
            mult[rows[i]] += 1;
        }
        gv_tree_config cfg;
        gv_tree_config_default(&cfg, (gv_stats_kind)stats, 3);
        cfg.min_samples_split = 2;
        gv_tree_input in = tinput(&td);
        in.rows = rows;
        gv_tree *a = NULL, *b = NULL;
        CHECK_OK(gv_tree_fit(&cfg, &in, NULL, &a));
        size_t *uniq = malloc(n * sizeof *uniq), n_uniq = 0;
        for (size_t i = 0; i < n; i++)
            if (mult[i] > 0) uniq[n_uniq++] = i;
        in.rows = uniq;
        in.n_rows = n_uniq;
        in.weight = mult;
        CHECK_OK(gv_tree_fit(&cfg, &in, NULL, &b));
        free(uniq);
        if (a && b) {
            CHECK(a->n_nodes > 20);
            CHECK(same_tree_c(a, 0, b, 0, 1));
            CHECK_EQ_DBL(a->nodes[0].count, (double)n);
            CHECK_NEAR(a->nodes[0].weight, b->nodes[0].weight, 1e-9);
        }
        gv_tree_free(a);
        gv_tree_free(b);
        free(rows);
        free(mult);
        tdata_free(&td);
    }
}

/* A bootstrap's sorted row list (repeats adjacent) is grown with each row listed once and its
 * multiplicity as its count and class weight (tree.c, list_once): the very tree, bit for bit,
 * that the same rows grow listed in another order (each repeat visited), with and without a
 * feature subset per node (small nodes' touched bins), over several row blocks and threads. */
static void test_bootstrap_listed_once(void)
{
    rng_state = 909;
    tdata td;
    size_t n = 40000, F = 8;
    make_random(&td, n, F, GV_STATS_CLASS, 4, 0, 255);
    tdata_bin(&td, 255);
    uint8_t *rb = NULL;
    CHECK_OK(gv_binned_row_major(td.b, 1, &rb));
    size_t *sorted = malloc(n * sizeof *sorted), *shuffled = malloc(n * sizeof *shuffled);
    size_t *count = calloc(n, sizeof *count);
    for (size_t i = 0; i < n; i++) count[rnd() % n]++;
    for (size_t r = 0, k = 0; r < n; r++)
        for (size_t c = 0; c < count[r]; c++) sorted[k++] = r;
    for (size_t i = 0; i < n; i++) shuffled[i] = sorted[n - 1 - i]; /* descending: not listed once */
    for (int variant = 0; variant < 4; variant++) {
        gv_tree_config cfg;
        gv_tree_config_default(&cfg, GV_STATS_CLASS, 4);
        cfg.max_features = variant & 1 ? 3 : 0;
        cfg.n_threads = variant & 2 ? 2 : 1;
        cfg.min_samples_leaf = variant == 2 ? 3 : 1;
        gv_tree_input in = tinput(&td);
        in.row_bins = variant & 1 ? rb : NULL;
        gv_tree *a = NULL, *b = NULL;
        gv_rng ra, rb2;
        gv_rng_seed(&ra, 5, 7, 0);
        gv_rng_seed(&rb2, 5, 7, 0);
        in.rows = sorted;
        CHECK_OK(gv_tree_fit(&cfg, &in, &ra, &a));
        in.rows = shuffled;
        CHECK_OK(gv_tree_fit(&cfg, &in, &rb2, &b));
        if (a && b) {
            CHECK(a->n_nodes > 1000);
            CHECK(same_tree_bits(a, b));
            CHECK_EQ_DBL(a->nodes[0].count, (double)n);
        }
        gv_tree_free(a);
        gv_tree_free(b);
    }
    gv_free(rb);
    free(sorted);
    free(shuffled);
    free(count);
    tdata_free(&td);
}

/* Trees whose last level is split in place (tree.c, split_in_place: children at max_depth, no
 * partition) and stump roots built from rows (hist.c, build_rows_class2, two classes with
 * row_bins): leaf_of_row names every row's leaf (gv_tree_leaf's); the same tree for 1 and 2
 * threads, bit for bit; without weights (counts: exact in any order) the same bits with and
 * without row_bins; with weights the same splits and values to 1e-12. */
static void test_in_place_leaves(void)
{
    rng_state = 4242;
    tdata td;
    const size_t n = 30000, F = 6;
    tdata_init(&td, n, F, NULL, 0);
    tclasses(&td, 2);
    for (size_t f = 0; f < F; f++)
        for (size_t i = 0; i < n; i++) /* dense: no sparse feature; some missing */
            tset(&td, f, i, f == 1 && i % 17 == 0 ? NAN : (float)(rnd() % 200) + (float)f);
    for (size_t i = 0; i < n; i++)
        td.y[i] = (double)((tget(&td, 0, i) > 90) ^ (rnd_unit() < 0.2));
    double *w = malloc(n * sizeof *w);
    for (size_t i = 0; i < n; i++) w[i] = 0.1 + rnd_unit();
    tdata_bin(&td, 255);
    CHECK(td.b->root_count != NULL && td.b->sparse_rows == NULL);
    uint8_t *rb = NULL;
    CHECK_OK(gv_binned_row_major(td.b, 1, &rb));
    uint32_t *leaf = malloc(n * sizeof *leaf);
    for (int depth = 1; depth <= 3; depth += 2)
        for (int weighted = 0; weighted < 2; weighted++) {
            gv_tree *t[3] = {NULL, NULL, NULL}; /* row_bins 1 thread, 2 threads; no row_bins */
            for (int v = 0; v < 3; v++) {
                gv_tree_config cfg;
                gv_tree_config_default(&cfg, GV_STATS_CLASS, 2);
                cfg.max_depth = depth;
                cfg.n_threads = v == 1 ? 2 : 1;
                gv_tree_input in = tinput(&td);
                in.weight = weighted ? w : NULL;
                in.row_bins = v < 2 ? rb : NULL;
                in.leaf_of_row = leaf;
                memset(leaf, 0xff, n * sizeof *leaf);
                gv_rng r;
                gv_rng_seed(&r, 1, 2, 3);
                CHECK_OK(gv_tree_fit(&cfg, &in, &r, &t[v]));
                if (!t[v]) continue;
                size_t bad = 0;
                for (size_t i = 0; i < n; i++) bad += leaf[i] != (uint32_t)gv_tree_leaf(t[v], td.d, i);
                CHECK(bad == 0);
            }
            if (t[0] && t[1] && t[2]) {
                CHECK(t[0]->n_nodes >= 3);
                CHECK(same_tree_bits(t[0], t[1]));
                if (weighted)
                    CHECK(same_tree(t[0], 0, t[2], 0));
                else
                    CHECK(same_tree_bits(t[0], t[2]));
            }
            for (int v = 0; v < 3; v++) gv_tree_free(t[v]);
        }
    free(leaf);
    free(w);
    gv_free(rb);
    tdata_free(&td);
}

/* ---- missing values ---- */

static void test_missing_side(void)
{
    /* x = 1..10, class 0 for x <= 5, class 1 above; 3 missing rows */
    for (int miss_class = 0; miss_class < 2; miss_class++) {
        tdata td;
        tdata_init(&td, 13, 1, NULL, 0);
        for (size_t i = 0; i < 13; i++) {
            tset(&td, 0, i, i < 10 ? (float)(i + 1) : NAN);
            td.y[i] = i < 10 ? (i >= 5) : miss_class;
        }
        tdata_bin(&td, 255);
        gv_tree_config cfg;
        gv_tree_config_default(&cfg, GV_STATS_CLASS, 2);
        gv_tree_input in = tinput(&td);
        gv_tree *t = NULL;
        CHECK_OK(gv_tree_fit(&cfg, &in, NULL, &t));
        if (t) {
            CHECK_EQ_INT(t->nodes[0].type, GV_NODE_NUM);
            CHECK_EQ_DBL(t->nodes[0].threshold, 5.5f);
            CHECK_EQ_INT(t->nodes[0].bin_split, 5);
            CHECK_EQ_INT(t->nodes[0].default_left, miss_class == 0);
            CHECK_EQ_INT(gv_tree_n_leaves(t), 2);
            gv_tree_free(t);
        }
        tdata_free(&td);
    }
    /* no missing rows: missing follows the heavier child (ties left) */
    for (int heavy_right = 0; heavy_right < 3; heavy_right++) {
        tdata td;
        tdata_init(&td, 10, 1, NULL, 0);
        td.w = malloc(10 * sizeof *td.w);
        for (size_t i = 0; i < 10; i++) {
            tset(&td, 0, i, (float)i);
            td.y[i] = i >= 5;
            td.w[i] = heavy_right == 2 ? 1.0 : (i >= 5) == heavy_right ? 2.0 : 1.0;
        }
        tdata_bin(&td, 255);
        gv_tree_config cfg;
        gv_tree_config_default(&cfg, GV_STATS_CLASS, 2);
        gv_tree_input in = tinput(&td);
        gv_tree *t = NULL;
        CHECK_OK(gv_tree_fit(&cfg, &in, NULL, &t));
        if (t) {
            CHECK_EQ_INT(t->nodes[0].default_left, heavy_right != 1);
            gv_tree_free(t);
        }
        tdata_free(&td);
    }
}

/* ---- stump vs brute force over bins ---- */

static void test_stump_bruteforce(void)
{
    for (int seed = 1; seed <= 5; seed++) {
        rng_state = 77 + (uint64_t)seed;
        tdata td;
        size_t n = 400, F = 6;
        make_random(&td, n, F, GV_STATS_CLASS, 3, 1, 255);
        tdata_bin(&td, 255);
        gv_tree_config cfg;
        gv_tree_config_default(&cfg, GV_STATS_CLASS, 3);
        cfg.max_depth = 1;
        cfg.criterion = seed % 2 ? GV_SPLIT_GINI : GV_SPLIT_ENTROPY;
        gv_tree_input in = tinput(&td);
        gv_tree *t = NULL;
        CHECK_OK(gv_tree_fit(&cfg, &in, NULL, &t));
        if (!t) {
            tdata_free(&td);
            continue;
        }
        /* brute force: every feature, bin and missing side; largest gain (exact ties are
         * measure-zero with random weights) */
        double best = -1;
        size_t bf = 0, bb = 0;
        int bl = 0;
        for (size_t f = 0; f < F; f++) {
            for (uint32_t b = 1; b + 1 < td.m[f].n_bins; b++) {
                for (int ml = 0; ml < 2; ml++) {
                    double wl[3] = {0}, wr[3] = {0}, wp[3] = {0};
                    size_t nm = 0;
                    for (size_t i = 0; i < n; i++) {
                        uint32_t bin = gv_bin_at(td.b, f, i);
                        int c = (int)td.y[i];
                        wp[c] += td.w[i];
                        nm += bin == 0;
                        if (bin == 0 ? ml : bin <= b)
                            wl[c] += td.w[i];
                        else
                            wr[c] += td.w[i];
                    }
                    if (ml && nm == 0) continue;
                    double WL = wl[0] + wl[1] + wl[2], WR = wr[0] + wr[1] + wr[2], W = WL + WR;
                    if (WL == 0 || WR == 0) continue;
                    double IL = 0, IR = 0, IP = 0;
                    for (int c = 0; c < 3; c++) {
                        if (cfg.criterion == GV_SPLIT_GINI) {
                            IL -= (wl[c] / WL) * (wl[c] / WL);
                            IR -= (wr[c] / WR) * (wr[c] / WR);
                            IP -= (wp[c] / W) * (wp[c] / W);
                        } else {
                            if (wl[c] > 0) IL -= wl[c] / WL * log2(wl[c] / WL);
                            if (wr[c] > 0) IR -= wr[c] / WR * log2(wr[c] / WR);
                            if (wp[c] > 0) IP -= wp[c] / W * log2(wp[c] / W);
                        }
                    }
                    double gain = W * IP - WL * IL - WR * IR; /* the constant 1 of gini cancels */
                    if (gain > best + 1e-9) {
                        best = gain;
                        bf = f;
                        bb = b;
                        bl = ml;
                    }
                }
            }
        }
        CHECK_EQ_INT(t->n_nodes, 3);
        CHECK_EQ_INT(t->nodes[0].feature, bf);
        CHECK_EQ_INT(t->nodes[0].bin_split, bb);
        CHECK_NEAR(t->nodes[0].gain, best, 1e-9);
        size_t nm = 0;
        for (size_t i = 0; i < n; i++) nm += gv_bin_at(td.b, bf, i) == 0;
        if (nm) CHECK_EQ_INT(t->nodes[0].default_left, bl);
        gv_tree_free(t);
        tdata_free(&td);
    }
}

/* ---- Newton leaf values ---- */

static void test_grad_values(void)
{
    for (int ai = 0; ai < 2; ai++) {
        rng_state = 99 + (uint64_t)ai;
        tdata td;
        size_t n = 70000; /* more than two blocks of the blocked sums */
        make_random(&td, n, 4, GV_STATS_GRAD, 0, 0, 255);
        tdata_bin(&td, 255);
        gv_tree_config cfg;
        gv_tree_config_default(&cfg, GV_STATS_GRAD, 0);
        cfg.max_depth = 4;
        cfg.lambda = 1.0;
        cfg.alpha = ai ? 3.0 : 0.0;
        gv_tree_input in = tinput(&td);
        gv_tree *t = NULL;
        CHECK_OK(gv_tree_fit(&cfg, &in, NULL, &t));
        if (!t) {
            tdata_free(&td);
            continue;
        }
        CHECK(t->n_nodes > 7);
        CHECK_EQ_INT(t->n_outputs, 1);
        double *G = calloc(t->n_nodes, sizeof *G), *H = calloc(t->n_nodes, sizeof *H);
        for (size_t i = 0; i < n; i++) { /* sum g, h over every node on the row's path */
            size_t k = 0;
            for (;;) {
                G[k] += td.g[i];
                H[k] += td.h[i];
                const gv_tree_node *nd = &t->nodes[k];
                if (nd->type == GV_NODE_LEAF) break;
                uint32_t b = gv_bin_at(td.b, (size_t)nd->feature, i);
                k = (size_t)(b == 0 ? (nd->default_left ? nd->left : nd->right)
                                    : (b <= nd->bin_split ? nd->left : nd->right));
            }
        }
        size_t ok = 0;
        for (size_t k = 0; k < t->n_nodes; k++) {
            double tg = soft(G[k], cfg.alpha);
            double want = -tg / (H[k] + cfg.lambda);
            ok += fabs(t->values[k] - want) <= 1e-9 * (1 + fabs(want));
            ok += fabs(t->nodes[k].weight - H[k]) <= 1e-9 * H[k];
        }
        CHECK_EQ_INT(ok, 2 * t->n_nodes);
        free(G);
        free(H);
        gv_tree_free(t);
        tdata_free(&td);
    }
}

/* ---- growth limits ---- */

static void test_limits(void)
{
    rng_state = 123;
    tdata td;
    size_t n = 5000;
    make_random(&td, n, 6, GV_STATS_CLASS, 2, 1, 255);
    tclasses(&td, 2);
    tdata_bin(&td, 255);
    gv_tree_input in = tinput(&td);
    gv_tree_config cfg;
    for (int bf = 0; bf < 2; bf++) {
        for (size_t ml = 2; ml <= 40; ml += 19) {
            gv_tree_config_default(&cfg, GV_STATS_CLASS, 2);
            cfg.best_first = bf;
            cfg.max_leaves = ml;
            gv_tree *t = NULL;
            CHECK_OK(gv_tree_fit(&cfg, &in, NULL, &t));
            if (!t) continue;
            CHECK_EQ_INT(gv_tree_n_leaves(t), ml);
            if (bf) { /* every split made has a positive gain */
                for (size_t k = 0; k < t->n_nodes; k++)
                    if (t->nodes[k].type != GV_NODE_LEAF) CHECK(t->nodes[k].gain > 0);
            }
            gv_tree_free(t);
        }
    }
    /* best-first with max_leaves picks the largest gains: its first split is the root's
     * best, and the 3-leaf tree splits the child whose best gain is larger */
    gv_tree_config_default(&cfg, GV_STATS_CLASS, 2);
    cfg.max_depth = 2;
    gv_tree *full = NULL, *t3 = NULL;
    CHECK_OK(gv_tree_fit(&cfg, &in, NULL, &full));
    cfg.max_depth = 0;
    cfg.best_first = 1;
    cfg.max_leaves = 3;
    CHECK_OK(gv_tree_fit(&cfg, &in, NULL, &t3));
    if (full && t3 && full->nodes[0].type == GV_NODE_NUM) {
        const gv_tree_node *l = &full->nodes[full->nodes[0].left], *r = &full->nodes[full->nodes[0].right];
        double gl = l->type == GV_NODE_LEAF ? 0 : l->gain, gr = r->type == GV_NODE_LEAF ? 0 : r->gain;
        int32_t expect = gl >= gr ? 1 : 2;
        CHECK_EQ_INT(t3->nodes[expect].type, GV_NODE_NUM);
        CHECK_EQ_INT(t3->nodes[3 - expect].type, GV_NODE_LEAF);
        CHECK_NEAR(t3->nodes[expect].gain, gl >= gr ? gl : gr, 1e-9);
    }
    gv_tree_free(full);
    gv_tree_free(t3);

    /* min_samples_leaf, min_weight_leaf, max_depth, min_samples_split */
    for (size_t msl = 1; msl <= 50; msl += 7) {
        gv_tree_config_default(&cfg, GV_STATS_CLASS, 2);
        cfg.min_samples_leaf = msl;
        cfg.min_weight_leaf = (double)msl * 0.5;
        cfg.max_depth = (int)(msl % 9);
        cfg.min_samples_split = 3 * msl;
        gv_tree *t = NULL;
        CHECK_OK(gv_tree_fit(&cfg, &in, NULL, &t));
        if (!t) continue;
        size_t ok = 0, leaves = 0;
        for (size_t k = 0; k < t->n_nodes; k++) {
            const gv_tree_node *nd = &t->nodes[k];
            if (nd->type == GV_NODE_LEAF) {
                leaves++;
                ok += nd->count >= (double)msl && nd->weight >= cfg.min_weight_leaf;
            } else {
                CHECK(nd->count >= (double)cfg.min_samples_split);
            }
        }
        CHECK_EQ_INT(ok, leaves);
        if (cfg.max_depth > 0) CHECK(gv_tree_depth(t) <= cfg.max_depth);
        CHECK_OK(gv_tree_validate(t, td.d->schema));
        gv_tree_free(t);
    }
    tdata_free(&td);
}

/* ---- feature sampling and threads ---- */

static void test_max_features_threads(void)
{
    rng_state = 555;
    tdata td;
    size_t n = 100000, F = 10; /* several row blocks: blocked sums and partitions */
    make_random(&td, n, F, GV_STATS_CLASS, 3, 1, 255);
    tdata_bin(&td, 255);
    gv_tree_input in = tinput(&td);
    gv_tree_config cfg;
    gv_tree_config_default(&cfg, GV_STATS_CLASS, 3);
    cfg.max_features = 3;
    cfg.max_depth = 12;
    gv_tree *t1 = NULL, *t2 = NULL, *t3 = NULL;
    gv_rng r1, r2, r3;
    gv_rng_seed(&r1, 42, 7, 0);
    gv_rng_seed(&r2, 42, 7, 0);
    gv_rng_seed(&r3, 43, 7, 0);
    cfg.n_threads = 1;
    CHECK_OK(gv_tree_fit(&cfg, &in, &r1, &t1));
    cfg.n_threads = 2;
    CHECK_OK(gv_tree_fit(&cfg, &in, &r2, &t2));
    CHECK_OK(gv_tree_fit(&cfg, &in, &r3, &t3));
    if (t1 && t2 && t3) {
        CHECK(t1->n_nodes > 50);
        CHECK(same_tree_bits(t1, t2));
        CHECK(!same_tree_bits(t1, t3));
        CHECK(memcmp(&r1, &r2, sizeof r1) == 0); /* the same number of draws */
    }
    gv_tree_free(t1);
    gv_tree_free(t2);
    gv_tree_free(t3);
    /* a subset without a random stream */
    t1 = (gv_tree *)1;
    CHECK_STATUS(gv_tree_fit(&cfg, &in, NULL, &t1), GROVE_ERR_ARG);
    CHECK(t1 == NULL);

    /* all features, histogram subtraction, 1 vs 2 threads, every stats kind */
    for (int stats = 0; stats < 3; stats++) {
        tdata_free(&td);
        rng_state = 556 + (uint64_t)stats;
        make_random(&td, n, F, stats, 3, stats != 2, 255);
        tdata_bin(&td, 255);
        in = tinput(&td);
        gv_tree_config_default(&cfg, (gv_stats_kind)stats, 3);
        if (stats == GV_STATS_GRAD) cfg.lambda = 1;
        cfg.max_depth = 10;
        cfg.min_samples_leaf = 5;
        t1 = t2 = NULL;
        cfg.n_threads = 1;
        CHECK_OK(gv_tree_fit(&cfg, &in, NULL, &t1));
        cfg.n_threads = 2;
        CHECK_OK(gv_tree_fit(&cfg, &in, NULL, &t2));
        if (t1 && t2) {
            CHECK(t1->n_nodes > 50);
            CHECK(same_tree_bits(t1, t2));
        }
        gv_tree_free(t1);
        gv_tree_free(t2);
    }
    tdata_free(&td);
}

/* ---- errors and out of memory ---- */

static void test_errors(void)
{
    tdata td;
    tdata_init(&td, 10, 2, NULL, 0);
    for (size_t i = 0; i < 10; i++) {
        tset(&td, 0, i, (float)i);
        tset(&td, 1, i, (float)(i % 3));
        td.y[i] = i % 2;
        td.h[i] = 1;
    }
    tdata_bin(&td, 255);
    gv_tree_input in = tinput(&td);
    gv_tree_config cfg;
    gv_tree *t = (gv_tree *)1;

    gv_tree_config_default(&cfg, GV_STATS_CLASS, 1);
    CHECK_STATUS(gv_tree_fit(&cfg, &in, NULL, &t), GROVE_ERR_ARG);
    CHECK(t == NULL);
    CHECK_CONTAINS(grove_last_error(), "n_classes");

    gv_tree_config_default(&cfg, GV_STATS_CLASS, 2);
    in.y = NULL;
    CHECK_STATUS(gv_tree_fit(&cfg, &in, NULL, &t), GROVE_ERR_ARG);
    in.y = td.y;
    size_t none = 0;
    in.rows = &none;
    in.n_rows = 0;
    CHECK_STATUS(gv_tree_fit(&cfg, &in, NULL, &t), GROVE_ERR_DATA);
    size_t far = 10;
    in.rows = &far;
    in.n_rows = 1;
    CHECK_STATUS(gv_tree_fit(&cfg, &in, NULL, &t), GROVE_ERR_ARG);
    in = tinput(&td);
    td.y[3] = 2;
    CHECK_STATUS(gv_tree_fit(&cfg, &in, NULL, &t), GROVE_ERR_DATA);
    CHECK_CONTAINS(grove_last_error(), "row 3");
    td.y[3] = 0.5;
    CHECK_STATUS(gv_tree_fit(&cfg, &in, NULL, &t), GROVE_ERR_DATA);
    td.y[3] = 1;
    cfg.criterion = GV_SPLIT_VARIANCE;
    CHECK_STATUS(gv_tree_fit(&cfg, &in, NULL, &t), GROVE_ERR_ARG);
    cfg.criterion = GV_SPLIT_GINI;
    cfg.min_samples_leaf = 0;
    CHECK_STATUS(gv_tree_fit(&cfg, &in, NULL, &t), GROVE_ERR_ARG);
    cfg.min_samples_leaf = 1;
    cfg.n_threads = 0;
    CHECK_STATUS(gv_tree_fit(&cfg, &in, NULL, &t), GROVE_ERR_ARG);
    cfg.n_threads = 1;
    double w[10] = {1, 1, 1, 1, -1, 1, 1, 1, 1, 1};
    in.weight = w;
    CHECK_STATUS(gv_tree_fit(&cfg, &in, NULL, &t), GROVE_ERR_DATA);
    in.weight = NULL;
    CHECK_STATUS(gv_tree_fit(&cfg, &in, NULL, NULL), GROVE_ERR_ARG);
    CHECK_STATUS(gv_tree_fit(NULL, &in, NULL, &t), GROVE_ERR_ARG);

    gv_tree_config_default(&cfg, GV_STATS_GRAD, 0);
    in.hess = NULL;
    CHECK_STATUS(gv_tree_fit(&cfg, &in, NULL, &t), GROVE_ERR_ARG);
    in.hess = td.h;
    td.h[2] = -1;
    CHECK_STATUS(gv_tree_fit(&cfg, &in, NULL, &t), GROVE_ERR_DATA);
    td.h[2] = 1;
    cfg.lambda = -1;
    CHECK_STATUS(gv_tree_fit(&cfg, &in, NULL, &t), GROVE_ERR_ARG);
    gv_tree_config_default(&cfg, GV_STATS_REG, 0);
    td.y[1] = INFINITY;
    CHECK_STATUS(gv_tree_fit(&cfg, &in, NULL, &t), GROVE_ERR_DATA);
    td.y[1] = 1;

    /* a single row, or only constant features: a root leaf */
    gv_tree_config_default(&cfg, GV_STATS_CLASS, 2);
    size_t one = 4;
    in.rows = &one;
    in.n_rows = 1;
    CHECK_OK(gv_tree_fit(&cfg, &in, NULL, &t));
    if (t) {
        CHECK_EQ_INT(t->n_nodes, 1);
        CHECK_EQ_DBL(t->values[0], 1.0);
        gv_tree_free(t);
    }
    gv_tree_free(NULL);
    tdata_free(&td);
}

static void test_out_of_memory(void)
{
    int cat[3] = {0, 1, 1};
    for (int variant = 0; variant < 4; variant++) {
        rng_state = 31 + (uint64_t)variant;
        tdata td;
        size_t n = 300;
        tdata_init(&td, n, 3, cat, 6);
        tclasses(&td, variant < 2 ? 2 : 0);
        for (size_t i = 0; i < n; i++) {
            tset(&td, 0, i, rnd() % 10 == 0 ? NAN : (float)(rnd() % 50));
            tset(&td, 1, i, rnd() % 10 == 0 ? NAN : (float)(rnd() % 6));
            tset(&td, 2, i, (float)(rnd() % 6));
            td.y[i] = (double)(((tget(&td, 0, i) > 20) + (rnd() % 4 == 0)) % 2);
            td.g[i] = rnd_unit() - 0.5;
            td.h[i] = 1;
        }
        tdata_bin(&td, 255);
        gv_tree_input in = tinput(&td);
        gv_tree_config cfg;
        gv_stats_kind kind = variant == 3 ? GV_STATS_GRAD : variant == 2 ? GV_STATS_REG : GV_STATS_CLASS;
        gv_tree_config_default(&cfg, kind, 2);
        cfg.multiway_categorical = variant == 1;
        if (variant == 1) cfg.criterion = GV_SPLIT_ENTROPY;
        cfg.best_first = variant == 2;
        cfg.max_features = variant == 3 ? 2 : 0;
        gv_rng rng;
        int done = 0;
        for (long k = 1; k < 2000 && !done; k++) {
            gv_rng_seed(&rng, 1, 2, 3);
            gv_tree *t = (gv_tree *)1;
            gv_alloc_fail_after(k);
            grove_status st = gv_tree_fit(&cfg, &in, &rng, &t);
            gv_alloc_fail_after(0);
            if (st == GROVE_OK) {
                done = 1;
                CHECK(t->n_nodes > 3);
                CHECK_OK(gv_tree_validate(t, td.d->schema));
                gv_tree_free(t);
            } else {
                CHECK_EQ_INT(st, GROVE_ERR_NOMEM);
                CHECK(t == NULL);
            }
        }
        CHECK(done);
        tdata_free(&td);
    }
}

/* ---- gradient histogram records ---- */

/* Forces the engine's code path `field` (learn/plan.h: 0 never, 1 where the data allows, -1 its
 * rule) for the fits that follow. */
#define FORCE_PATH(field, value)                                                                   \
    do {                                                                                           \
        gv_plan_force f_ = *gv_plan_forced();                                                      \
        f_.field = (value);                                                                        \
        gv_plan_force_set(&f_);                                                                    \
    } while (0)

/* The row-major gradient build adds rows into 32-byte records (count, g, h, 0) or straight into
 * the histogram's 24-byte ones: the same doubles in the same order, so the same histograms and
 * the same tree to the bit -- on all rows (the root takes its counts from the binned matrix) and
 * on a row list (counts summed), one and two threads (the features split between them), and a
 * block of listed (not contiguous) features (max_features). */
static void test_grad_records32(void)
{
    rng_state = 4242;
    tdata td;
    size_t n = 30000, F = 9;
    make_random(&td, n, F, GV_STATS_GRAD, 0, 0, 255);
    tdata_bin(&td, 255);
    uint8_t *rb = NULL;
    CHECK_OK(gv_binned_row_major(td.b, 1, &rb));
    size_t *rows = malloc(n / 2 * sizeof *rows);
    for (size_t i = 0; i < n / 2; i++) rows[i] = 2 * i + (i % 3 == 0);
    for (int variant = 0; variant < 8; variant++) {
        gv_tree_config cfg;
        gv_tree_config_default(&cfg, GV_STATS_GRAD, 0);
        cfg.max_depth = 6;
        cfg.lambda = 1.0;
        cfg.n_threads = variant & 1 ? 2 : 1;
        cfg.max_features = variant & 4 ? 5 : 0;
        gv_tree_input in = tinput(&td);
        in.row_bins = rb;
        if (variant & 2) {
            in.rows = rows;
            in.n_rows = n / 2;
        }
        gv_tree *t[2] = {NULL, NULL};
        for (int r = 0; r < 2; r++) {
            gv_rng rng;
            gv_rng_seed(&rng, 11, 7, 0);
            FORCE_PATH(rec32, r);
            CHECK_OK(gv_tree_fit(&cfg, &in, &rng, &t[r]));
        }
        gv_plan_force_set(NULL);
        if (t[0] && t[1]) {
            CHECK(t[0]->n_nodes > 40);
            CHECK(same_tree_bits(t[0], t[1]));
        }
        gv_tree_free(t[0]);
        gv_tree_free(t[1]);
    }
    free(rows);
    gv_free(rb);
    tdata_free(&td);
}

/* ---- every block width of the row-major gradient build ---- */

/* The row-major gradient build (hist.c, build_rows_grad) takes each block of columns with its
 * width a constant up to a bound and a variable above it, and splits the columns into blocks by
 * the thread count: widths 1..40 at 1..3 threads reach every specialized width and the general
 * loop, with the 32- and 24-byte records (the plan's rec32 forced each way).  Each tree must be
 * the column-wise build's tree (sums in another order: same_tree), which the naive tree checks,
 * and the row-major trees must agree to the bit whatever the threads and records. */
static void test_grad_block_widths(void)
{
    size_t mismatches = 0;
    for (size_t F = 1; F <= 40; F++) {
        rng_state = 9000 + F;
        tdata td;
        const size_t n = 400 + rnd() % 200;
        make_random(&td, n, F, GV_STATS_GRAD, 0, 0, 255);
        tdata_bin(&td, 255);
        gv_tree_config cfg;
        gv_tree_config_default(&cfg, GV_STATS_GRAD, 0);
        cfg.max_depth = 4;
        cfg.lambda = 1.0;
        gv_tree_input in = tinput(&td);
        gv_tree *ref = NULL;
        CHECK_OK(gv_tree_fit(&cfg, &in, NULL, &ref));
        if (!ref) {
            tdata_free(&td);
            continue;
        }
        size_t *rows = malloc(n * sizeof *rows);
        for (size_t i = 0; i < n; i++) rows[i] = i;
        naive nv;
        naive_init(&nv, &cfg, &td, ref, rows, n);
        naive_check(&nv, rows, n, 0, 0);
        mismatches += nv.mismatches;
        naive_free(&nv);
        free(rows);
        uint8_t *rb = NULL;
        CHECK_OK(gv_binned_row_major(td.b, 1, &rb));
        gv_tree *first = NULL;
        for (int nt = 1; nt <= 3; nt++) {
            for (int rec32 = 0; rec32 <= 1; rec32++) {
                gv_tree_config c2 = cfg;
                c2.n_threads = nt;
                gv_tree_input in2 = in;
                in2.row_bins = rb;
                FORCE_PATH(rec32, rec32);
                gv_tree *t = NULL;
                CHECK_OK(gv_tree_fit(&c2, &in2, NULL, &t));
                gv_plan_force_set(NULL);
                if (!t) continue;
                CHECK(same_tree(ref, 0, t, 0));
                if (!first) {
                    first = t;
                } else {
                    CHECK(same_tree_bits(first, t));
                    gv_tree_free(t);
                }
            }
        }
        gv_tree_free(first);
        gv_tree_free(ref);
        gv_free(rb);
        tdata_free(&td);
    }
    CHECK_EQ_INT(mismatches, 0);
}

/* ---- gradient splits into leaves ---- */

/* A gradient tree's splits whose children are leaves (max_depth) leave the rows in place and
 * sum the smaller child's (g, h) at the parent's positions, by its own blocks of rows: the same
 * tree to the bit, and the same leaf_of_row, as partitioning the rows and summing the child --
 * with children of several 32768-row blocks, 1-3 threads (the blocks summed by the chunk where
 * they start), a row list, a feature subset per node (the left count not known from a
 * histogram), a categorical feature (a set split) and missing values; and the same tree for 1-3
 * threads. */
static void test_grad_leaf_in_place(void)
{
    rng_state = 777;
    const size_t n = 150000, F = 5;
    int cat[5] = {0, 0, 0, 1, 0};
    tdata td;
    tdata_init(&td, n, F, cat, 12);
    for (size_t i = 0; i < n; i++) {
        const double x0 = (double)(rnd() % 250), x1 = rnd_unit() * 10;
        tset(&td, 0, i, i % 13 == 0 ? NAN : (float)x0);
        tset(&td, 1, i, (float)x1);
        tset(&td, 2, i, (float)(rnd() % 3));
        const size_t k = rnd() % 12;
        tset(&td, 3, i, (float)k);
        tset(&td, 4, i, (float)(rnd() % 40));
        td.g[i] = 0.01 * x0 - (x1 > 5 ? 0.5 : 0) + (k % 3 == 1 ? 0.7 : 0) + rnd_unit() - 0.5;
        td.h[i] = 0.2 + rnd_unit();
    }
    tdata_bin(&td, 255);
    size_t *rows = malloc(n / 2 * sizeof *rows);
    for (size_t i = 0; i < n / 2; i++) rows[i] = 2 * i + (i % 5 == 0);
    uint32_t *leaf[2] = {malloc(n * sizeof(uint32_t)), malloc(n * sizeof(uint32_t))};
    for (int variant = 0; variant < 12; variant++) {
        gv_tree_config cfg;
        gv_tree_config_default(&cfg, GV_STATS_GRAD, 0);
        cfg.max_depth = variant % 3 == 0 ? 1 : variant % 3 == 1 ? 2 : 5;
        cfg.lambda = 1.0;
        cfg.n_threads = 1 + (variant / 3) % 3;
        cfg.max_features = variant >= 9 ? 3 : 0;
        gv_tree_input in = tinput(&td);
        if (variant % 2) {
            in.rows = rows;
            in.n_rows = n / 2;
        }
        gv_tree *t[2] = {NULL, NULL};
        for (int r = 0; r < 2; r++) {
            gv_rng rng;
            gv_rng_seed(&rng, 5, 6, 7);
            memset(leaf[r], 0xff, n * sizeof(uint32_t));
            in.leaf_of_row = leaf[r];
            FORCE_PATH(leaf_in_place, r);
            CHECK_OK(gv_tree_fit(&cfg, &in, &rng, &t[r]));
        }
        gv_plan_force_set(NULL);
        if (t[0] && t[1]) {
            CHECK(t[0]->n_nodes >= 3);
            CHECK(same_tree_bits(t[0], t[1]));
            CHECK(memcmp(leaf[0], leaf[1], n * sizeof(uint32_t)) == 0);
        }
        gv_tree_free(t[0]);
        gv_tree_free(t[1]);
    }
    /* 1, 2 and 3 threads: the same tree (2 and 3 sum a smaller child of several blocks in the
     * partition's region, tree.c partition_binary; 1 after it, sum_gathered) */
    gv_tree *ref = NULL;
    for (int nt = 1; nt <= 3; nt++) {
        gv_tree_config cfg;
        gv_tree_config_default(&cfg, GV_STATS_GRAD, 0);
        cfg.max_depth = 4;
        cfg.lambda = 1.0;
        cfg.n_threads = nt;
        gv_tree_input in = tinput(&td);
        gv_rng rng;
        gv_rng_seed(&rng, 5, 6, 7);
        gv_tree *t = NULL;
        CHECK_OK(gv_tree_fit(&cfg, &in, &rng, &t));
        if (nt == 1)
            ref = t;
        else if (t && ref)
            CHECK(same_tree_bits(ref, t));
        if (nt > 1) gv_tree_free(t);
    }
    gv_tree_free(ref);
    free(leaf[0]);
    free(leaf[1]);
    free(rows);
    tdata_free(&td);
}

/* gv_tree_input.root_hist (gbdt's K class roots of a round in one pass, gv_hist_roots_grad):
 * every class's tree grown on its prebuilt root equals, bit for bit, the tree grown without
 * it -- K classes (one and several 32-byte vectors of (g, h) pairs a bin), missing values,
 * several feature blocks, 1 and 2 threads, both record layouts of the tree's own build. */
static void test_root_hist(void)
{
    rng_state = 777;
    tdata td;
    const size_t n = 6000, F = 70;
    make_random(&td, n, F, GV_STATS_GRAD, 0, 0, 255);
    tdata_bin(&td, 255);
    uint8_t *rb = NULL;
    CHECK_OK(gv_binned_row_major(td.b, 1, &rb));
    CHECK(gv_hist_roots_ok(td.b, rb, 10));
    const size_t len = gv_hist_len_grad(td.b);
    static const size_t Ks[] = {1, 3, 10};
    for (size_t ki = 0; ki < sizeof Ks / sizeof *Ks; ki++) {
        const size_t K = Ks[ki];
        double *g = malloc(K * n * sizeof *g), *h = malloc(K * n * sizeof *h);
        for (size_t c = 0; c < K; c++)
            for (size_t i = 0; i < n; i++) {
                double x0 = isnan(tget(&td, 0, i)) ? 0 : tget(&td, 0, i);
                double x1 = isnan(tget(&td, 1 + c % 5, i)) ? 1 : tget(&td, 1 + c % 5, i);
                g[c * n + i] = 0.01 * x0 * (double)(c + 1) - (x1 > 0 ? 0.5 : 0) + rnd_unit() - 0.5;
                h[c * n + i] = c == 1 && i % 7 == 0 ? 0.0 : 0.05 + rnd_unit();
            }
        gh_float(g, h, K * n);
        for (int variant = 0; variant < 8; variant++) {
            const int nt = variant & 1 ? 2 : 1;
            gv_tree_scratch ws;
            memset(&ws, 0, sizeof ws);
            double **roots = calloc(K, sizeof *roots);
            for (size_t c = 0; c < K; c++) CHECK((roots[c] = gv_tree_scratch_hist(&ws, len)) != NULL);
            CHECK_OK(gv_hist_roots_grad(td.b, rb, g, h, K, nt, variant & 4 ? &ws : NULL, roots));
            FORCE_PATH(rec32, variant & 2 ? 1 : 0);
            for (size_t c = 0; c < K; c++) {
                gv_tree_config cfg;
                gv_tree_config_default(&cfg, GV_STATS_GRAD, 0);
                cfg.best_first = 1;
                cfg.max_leaves = 31;
                cfg.min_samples_leaf = 5;
                cfg.lambda = 1.0;
                cfg.n_threads = nt;
                gv_tree_input in = tinput(&td);
                in.grad = g + c * n;
                in.hess = h + c * n;
                in.row_bins = rb;
                gv_tree *t[2] = {NULL, NULL};
                for (int r = 0; r < 2; r++) {
                    in.scratch = variant & 4 ? &ws : NULL;
                    in.root_hist = r ? roots[c] : NULL;
                    CHECK_OK(gv_tree_fit(&cfg, &in, NULL, &t[r]));
                }
                roots[c] = NULL; /* the fit's */
                if (t[0] && t[1]) {
                    CHECK(t[0]->n_nodes > 30);
                    CHECK(same_tree_bits(t[0], t[1]));
                }
                gv_tree_free(t[0]);
                gv_tree_free(t[1]);
            }
            gv_plan_force_set(NULL);
            free(roots);
            gv_tree_scratch_free(&ws);
        }
        free(g);
        free(h);
    }
    /* a matrix the one-pass build does not take, and a root_hist the fit cannot use (a row
     * list): the fit frees it and builds its own */
    CHECK(!gv_hist_roots_ok(td.b, NULL, 3));
    {
        gv_tree_config cfg;
        gv_tree_config_default(&cfg, GV_STATS_GRAD, 0);
        cfg.max_depth = 3;
        size_t rows[100];
        for (size_t i = 0; i < 100; i++) rows[i] = 3 * i;
        gv_tree_input in = tinput(&td);
        in.row_bins = rb;
        in.rows = rows;
        in.n_rows = 100;
        gv_tree *t[2] = {NULL, NULL};
        for (int r = 0; r < 2; r++) {
            in.root_hist = r ? gv_tree_scratch_hist(NULL, len) : NULL;
            CHECK_OK(gv_tree_fit(&cfg, &in, NULL, &t[r]));
        }
        if (t[0] && t[1]) CHECK(same_tree_bits(t[0], t[1]));
        gv_tree_free(t[0]);
        gv_tree_free(t[1]);
    }
    gv_free(rb);
    tdata_free(&td);
}

/* ---- feature bundles ---- */

extern void (*gv_hist_observe)(size_t f, size_t n_bins, const void *rec, size_t rec_bytes);

/* every histogram gv_hist_build made: (f, n_bins, rec_bytes) and the records, one after another */
typedef struct hlog {
    unsigned char *buf;
    size_t len, cap;
} hlog;
static hlog *hlog_now;
static void hlog_put(const void *p, size_t n)
{
    hlog *l = hlog_now;
    if (l->len + n > l->cap) {
        l->cap = 2 * (l->len + n);
        l->buf = realloc(l->buf, l->cap);
    }
    memcpy(l->buf + l->len, p, n);
    l->len += n;
}
static void hlog_observe(size_t f, size_t n_bins, const void *rec, size_t rec_bytes)
{
    size_t hd[3] = {f, n_bins, rec_bytes};
    hlog_put(hd, sizeof hd);
    hlog_put(rec, n_bins * rec_bytes);
}

/* The two logs hold the same histograms: integers (quantized records) and counts equal, the
 * doubles' g and h sums within 1e-12 of the feature's sum of |g|, |h|.  Returns histograms. */
static size_t hlog_same(const hlog *a, const hlog *b)
{
    CHECK_EQ_INT(a->len, b->len);
    if (a->len != b->len) return 0;
    size_t at = 0, n = 0;
    while (at < a->len) {
        size_t ha[3], hb[3];
        memcpy(ha, a->buf + at, sizeof ha);
        memcpy(hb, b->buf + at, sizeof hb);
        CHECK(ha[0] == hb[0] && ha[1] == hb[1] && ha[2] == hb[2]);
        at += sizeof ha;
        const size_t bytes = ha[1] * ha[2];
        if (ha[2] != 3 * sizeof(double)) {
            CHECK(memcmp(a->buf + at, b->buf + at, bytes) == 0);
        } else {
            const size_t nb = ha[1];
            double *x = malloc(bytes), *y = malloc(bytes), scale[3] = {0, 0, 0};
            memcpy(x, a->buf + at, bytes);
            memcpy(y, b->buf + at, bytes);
            for (size_t k = 0; k < 3 * nb; k++) scale[k % 3] += fabs(x[k]);
            for (size_t k = 0; k < 3 * nb; k++) {
                if (k % 3 == 0)
                    CHECK(x[k] == y[k]);
                else
                    CHECK(fabs(x[k] - y[k]) <= 1e-12 * scale[k % 3]);
            }
            free(x);
            free(y);
        }
        at += bytes;
        n++;
    }
    return n;
}

/* Features with few bins in use share a byte of the bundled rows (gv_bundles_build), and the
 * row-major GRAD build adds a row once per bundle; each member's histogram is the bundle's
 * marginal.  Every histogram equals the unbundled build's: quantized integers exactly (and so
 * the trees), the doubles' sums to 1e-12 (counts exactly) -- on data whose bundles have members
 * with missing values, all rows and a row list, one and two threads, both double record widths
 * and every quantized build (64-bit words, packed words, quant 16 records). */
static void test_bundles(void)
{
    rng_state = 777;
    tdata td;
    const size_t n = 30000, F = 12;
    make_random(&td, n, F, GV_STATS_GRAD, 0, 0, 255);
    /* features 2 .. 8: 2, 3 or 4 levels, the odd ones with missing values; g depends on them */
    for (size_t f = 2; f <= 8; f++)
        for (size_t i = 0; i < n; i++)
            tset(&td, f, i, f % 2 && rnd_unit() < 0.1 ? NAN : (float)(rnd() % (2 + f % 3)));
    for (size_t i = 0; i < n; i++)
        td.g[i] += 0.3 * (tget(&td, 3, i) == 1) - 0.2 * (tget(&td, 4, i) > 0) +
                   0.25 * isnan(tget(&td, 5, i));
    tdata_bin(&td, 255);
    gv_bundles *p = NULL;
    CHECK_OK(gv_bundles_build(td.b, &p));
    CHECK(p != NULL);
    if (!p) {
        tdata_free(&td);
        return;
    }
    /* the plan: every feature once, a bundle's members' used bins multiply to its bins */
    CHECK(p->n_bundles >= 1 && p->n_cols < F);
    int missing_member = 0;
    for (size_t bi = 0; bi < p->n_bundles; bi++) {
        CHECK(p->member_off[bi + 1] - p->member_off[bi] >= 2);
        for (size_t m = p->member_off[bi]; m < p->member_off[bi + 1]; m++)
            missing_member |= p->members[m] % 2 && p->members[m] <= 8;
    }
    CHECK(missing_member);
    uint8_t *rb = NULL, *rbund = NULL;
    CHECK_OK(gv_binned_row_major(td.b, 1, &rb));
    CHECK_OK(gv_bundles_row_major(td.b, p, 1, &rbund));
    /* the bundled rows decode to the rows */
    for (size_t i = 0; i < n; i += 7)
        for (size_t c = 0; c < p->n_cols; c++) {
            if (p->col[c] >= 0) {
                CHECK(rbund[i * p->n_cols + c] == rb[i * F + (size_t)p->col[c]]);
                continue;
            }
            const size_t bi = (size_t)(-1 - p->col[c]);
            for (size_t m = p->member_off[bi]; m < p->member_off[bi + 1]; m++)
                CHECK(p->dec[m * 256 + rbund[i * p->n_cols + c]] == rb[i * F + p->members[m]]);
        }
    size_t *rows = malloc(n / 2 * sizeof *rows);
    for (size_t i = 0; i < n / 2; i++) rows[i] = 2 * i + (i % 3 == 0);
    int32_t *qgh = malloc(2 * n * sizeof *qgh);
    for (int variant = 0; variant < 20; variant++) {
        const int mode = variant / 4; /* doubles 32-byte, 24-byte; quant small, large, unpacked */
        gv_tree_config cfg;
        gv_tree_config_default(&cfg, GV_STATS_GRAD, 0);
        cfg.max_depth = 4;
        cfg.lambda = 1.0;
        cfg.n_threads = variant & 1 ? 2 : 1;
        gv_tree_input in = tinput(&td);
        in.row_bins = rb;
        in.bundles = p;
        in.row_bund = rbund;
        if (variant & 2) {
            in.rows = rows;
            in.n_rows = n / 2;
        }
        if (mode >= 2) { /* integers: a few levels (64-bit words), or 2^11 (wider records) */
            const double L = mode == 2 ? 7 : 2047;
            for (size_t i = 0; i < n; i++) {
                qgh[2 * i] = (int32_t)lrint(fmax(-L, fmin(L, td.g[i] * L / 2)));
                qgh[2 * i + 1] = (int32_t)lrint(td.h[i] * L / 1.2);
            }
            in.qgh = qgh;
            in.qscale[0] = 2 / L;
            in.qscale[1] = 1.2 / L;
        }
        FORCE_PATH(rec32, mode == 0 ? 1 : mode == 1 ? 0 : -1);
        FORCE_PATH(pack, mode != 4 ? -1 : 0);
        hlog logs[2] = {{NULL, 0, 0}, {NULL, 0, 0}};
        gv_tree *t[2] = {NULL, NULL};
        gv_hist_observe = hlog_observe;
        for (int r = 0; r < 2; r++) {
            gv_rng rng;
            gv_rng_seed(&rng, 11, 7, 0);
            FORCE_PATH(bundles, r ? -1 : 0);
            hlog_now = &logs[r];
            CHECK_OK(gv_tree_fit(&cfg, &in, &rng, &t[r]));
        }
        gv_hist_observe = NULL;
        gv_plan_force_set(NULL);
        CHECK(hlog_same(&logs[0], &logs[1]) >= 5 * F);
        if (t[0] && t[1]) {
            CHECK(t[0]->n_nodes > 15);
            if (mode >= 2) CHECK(same_tree_bits(t[0], t[1]));
        }
        free(logs[0].buf);
        free(logs[1].buf);
        gv_tree_free(t[0]);
        gv_tree_free(t[1]);
    }
    free(qgh);
    free(rows);
    gv_free(rb);
    gv_free(rbund);
    gv_bundles_free(p);
    tdata_free(&td);
}

int main(void)
{
    test_differential();
    test_multiway();
    test_partition();
    test_partition_multiclass();
    test_bootstrap_view();
    test_bootstrap_listed_once();
    test_in_place_leaves();
    test_missing_side();
    test_stump_bruteforce();
    test_grad_values();
    test_grad_records32();
    test_grad_block_widths();
    test_grad_leaf_in_place();
    test_root_hist();
    test_bundles();
    test_limits();
    test_max_features_threads();
    test_errors();
    test_out_of_memory();
    TEST_MAIN_END();
}
