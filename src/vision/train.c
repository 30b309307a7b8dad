/*
 * train.c -- training an attentional cascade of boosted Haar-feature stumps (Viola & Jones
 * 2001, sec. 3 and 4; 2004, Table 1 and Table 2).
 *
 * Pipeline position: vision/, on ensemble/'s AdaBoost step (gv_adaboost_alpha and
 * gv_adaboost_reweight): a stage is discrete AdaBoost whose weak learners are single-feature
 * threshold-and-polarity stumps chosen among every Haar feature of the window.
 *
 * The cascade (2004, Table 2): with per-stage targets f (largest false-positive rate) and d
 * (smallest detection rate) and the overall target F_target:
 *   while F_i > F_target:  mine n negatives (and n for validation) among the windows of the
 *     negative images that the cascade so far accepts (hard negatives; at stage 1 any window);
 *     add stumps to stage i by AdaBoost until, with the stage threshold lowered so that at least
 *     d of the validation positives still pass, at most f of the validation negatives pass;
 *     F_{i} = F_{i-1} f_i,  D_i = D_{i-1} d_i  (f_i, d_i measured on the validation sets of
 *     windows that passed stages 1..i-1, so the products are the cascade's rates).
 *   Positives rejected by a finished stage are dropped from later stages' training.
 * Weights start at 1/(2l) for the l positives and 1/(2m) for the m negatives (2001, Table 1).
 *
 * The stump search (the inner loop): the values of every feature on the stage's training
 * windows are quantized once per stage into at most 256 bins whose edges are sample quantiles
 * of the feature's values (an 8-bit matrix, feature-major, kept in cascade.memory_mb; features
 * beyond that budget are recomputed each round), then each round makes, per feature, the
 * histograms of positive and negative weight by bin and scans them: a threshold below bin b
 * errs by  e+ = W-(<= b) + W+(> b)  (faces below)  or  e- = W+(<= b) + W-(> b)  (faces above).
 * "bin <= b" is exactly "value < cut_b", and the values are the detector's own single-precision
 * feature values, so the chosen stump classifies the training windows as the detector will.
 *
 * Negative mining samples windows uniformly over the positions of an image pyramid (scale
 * step 1.1, the detector's resize) of every negative image, and their mirror images, in
 * batches whose random streams are fixed by (seed, stage, candidate index), so the cascade is
 * the same for any number of threads.  Windows too flat for the detector (sigma <= 10) are never
 * detected and are skipped.
 */
#include "vision.h"

#include "../core/params.h"
#include "../ensemble/ensemble.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* ---- growable sets of windows ---- */

typedef struct patches {
    size_t n, cap;
    int w, h;
    uint8_t *pix; /* [n][w*h] */
} patches;

static int patches_add(patches *s, const uint8_t *p)
{
    size_t sz = (size_t)s->w * s->h;
    if (s->n == s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 256;
        uint8_t *q = gv_realloc_array(s->pix, nc, sz);
        if (!q) return -1;
        s->pix = q;
        s->cap = nc;
    }
    memcpy(s->pix + s->n * sz, p, sz);
    s->n++;
    return 0;
}

static void patches_free(patches *s)
{
    gv_free(s->pix);
    memset(s, 0, sizeof *s);
}

/* Windows ready for features: integral images and the detector's normalization. */
typedef struct exset {
    size_t n;
    int stride, cells;
    int32_t *sum, *tilt; /* [n][cells]; tilt NULL without tilted features */
    float *norm;         /* [n] */
} exset;

static void exset_free(exset *e)
{
    gv_free(e->sum);
    gv_free(e->tilt);
    gv_free(e->norm);
    memset(e, 0, sizeof *e);
}

/* The integral images of a window; returns 1 when the detector can normalize it. */
static int window_integrals(const uint8_t *pix, int w, int h, int32_t *sum, uint32_t *sq,
                            int32_t *tilt, float *norm)
{
    gv_integral(pix, w, h, w, sum, sq, tilt, w + 1);
    return gv_window_norm(sum, sq, w, h, w + 1, norm);
}

/* Builds the example set of the windows in `s` that the detector can normalize (flat ones
 * are never detected, so they are neither positives nor negatives). */
static grove_status exset_build(const patches *s, int tilted, exset *e)
{
    memset(e, 0, sizeof *e);
    e->stride = s->w + 1;
    e->cells = (s->w + 1) * (s->h + 1);
    e->sum = gv_malloc_array(s->n + 1, (size_t)e->cells * sizeof(int32_t));
    e->tilt = tilted ? gv_malloc_array(s->n + 1, (size_t)e->cells * sizeof(int32_t)) : NULL;
    e->norm = gv_malloc_array(s->n + 1, sizeof(float));
    uint32_t *sq = gv_malloc_array((size_t)e->cells, sizeof *sq);
    if (!e->sum || (tilted && !e->tilt) || !e->norm || !sq) {
        gv_free(sq);
        exset_free(e);
        return gv_err_nomem("training windows");
    }
    for (size_t i = 0; i < s->n; i++) {
        int32_t *su = e->sum + e->n * e->cells, *ti = tilted ? e->tilt + e->n * e->cells : NULL;
        if (window_integrals(s->pix + i * (size_t)s->w * s->h, s->w, s->h, su, sq, ti,
                             &e->norm[e->n]))
            e->n++;
    }
    gv_free(sq);
    return GROVE_OK;
}

static inline float ex_value(const exset *e, const gv_haar_compiled *c, size_t i)
{
    const int32_t *p = e->sum + i * e->cells, *t = e->tilt ? e->tilt + i * e->cells : NULL;
    return gv_haar_raw(c, p, t) * e->norm[i];
}

/* ---- the cascade under construction ---- */

typedef struct builder {
    struct grove_cascade *c;
    int cap_stages, cap_trees, cap_nodes, cap_leaves, cap_features, cap_stats;
} builder;

static int grow(void **p, int *cap, int need, size_t size)
{
    if (need <= *cap) return 0;
    int nc = *cap ? *cap : 32;
    while (nc < need) nc *= 2;
    void *q = gv_realloc_array(*p, (size_t)nc, size);
    if (!q) return -1;
    *p = q;
    *cap = nc;
    return 0;
}

/* Appends a stump (feature f, "value < threshold ? left : right") to the last stage. */
static int add_stump(builder *b, const gv_haar_feature *f, float threshold, float left, float right)
{
    struct grove_cascade *c = b->c;
    if (grow((void **)&c->trees, &b->cap_trees, c->n_trees + 1, sizeof *c->trees) ||
        grow((void **)&c->nodes, &b->cap_nodes, c->n_nodes + 1, sizeof *c->nodes) ||
        grow((void **)&c->leaves, &b->cap_leaves, c->n_leaves + 2, sizeof *c->leaves) ||
        grow((void **)&c->features, &b->cap_features, c->n_features + 1, sizeof *c->features))
        return -1;
    gv_cascade_tree *t = &c->trees[c->n_trees++];
    t->n_nodes = 1;
    t->first_node = c->n_nodes;
    t->first_leaf = c->n_leaves;
    gv_cascade_node *nd = &c->nodes[c->n_nodes++];
    nd->left = 0;
    nd->right = -1;
    nd->feature = c->n_features;
    nd->threshold = threshold;
    c->features[c->n_features++] = *f;
    c->leaves[c->n_leaves++] = left;
    c->leaves[c->n_leaves++] = right;
    c->stages[c->n_stages - 1].n_trees++;
    return 0;
}

/* ---- negative images and mining ---- */

typedef struct neg_pool {
    size_t n_levels;
    gv_image **levels;  /* owned */
    double *cum;        /* [n_levels]: cumulative window positions */
    double total;
} neg_pool;

static void neg_pool_free(neg_pool *p)
{
    for (size_t i = 0; i < p->n_levels; i++) gv_image_free(p->levels[i]);
    gv_free(p->levels);
    gv_free(p->cum);
    memset(p, 0, sizeof *p);
}

/* Adds the pyramid (scale step 1.1) of `img` to the pool. */
static grove_status neg_pool_add(neg_pool *p, const gv_image *img, int W, int H, size_t *cap)
{
    for (double s = 1;; s *= 1.1) {
        int w = (int)lrint(img->width / s), h = (int)lrint(img->height / s);
        if (w < W || h < H) break;
        if (p->n_levels == *cap) {
            size_t nc = *cap ? 2 * *cap : 64;
            gv_image **l = gv_realloc_array(p->levels, nc, sizeof *l);
            if (!l) return gv_err_nomem("negative pyramid");
            p->levels = l;
            double *c = gv_realloc_array(p->cum, nc, sizeof *c);
            if (!c) return gv_err_nomem("negative pyramid");
            p->cum = c;
            *cap = nc;
        }
        gv_image *lv = gv_image_new(w, h);
        if (!lv) return gv_err_nomem("negative pyramid");
        gv_image_resize_linear(img->pix, img->width, img->height, lv->pix, w, h);
        p->total += (double)(w - W + 1) * (h - H + 1);
        p->levels[p->n_levels] = lv;
        p->cum[p->n_levels] = p->total;
        p->n_levels++;
    }
    return GROVE_OK;
}

/* Candidate window k of a stage: a uniformly drawn position of the pool, maybe mirrored. */
static void draw_window(const neg_pool *p, uint64_t seed, int stage, uint64_t k, int W, int H,
                        uint8_t *out)
{
    gv_rng rng;
    gv_rng_seed(&rng, seed, (uint64_t)GV_STREAM_CASCADE_MINE + (uint64_t)stage, k);
    double u = gv_rng_uniform(&rng) * p->total;
    size_t lo = 0, hi = p->n_levels - 1;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (p->cum[mid] > u) hi = mid;
        else lo = mid + 1;
    }
    const gv_image *lv = p->levels[lo];
    uint64_t nx = (uint64_t)(lv->width - W + 1), ny = (uint64_t)(lv->height - H + 1);
    uint64_t pos = gv_rng_below(&rng, nx * ny);
    int x = (int)(pos % nx), y = (int)(pos / nx), mirror = (int)(gv_rng_next(&rng) >> 63);
    for (int r = 0; r < H; r++) {
        const uint8_t *src = lv->pix + (size_t)(y + r) * lv->width + x;
        uint8_t *dst = out + (size_t)r * W;
        if (mirror)
            for (int q = 0; q < W; q++) dst[q] = src[W - 1 - q];
        else
            memcpy(dst, src, (size_t)W);
    }
}

enum { MINE_BATCH = 8192 };

/* Fills `out` with up to `need` windows accepted by the cascade c (every normalizable window
 * when c has no stage yet), trying at most max_windows; *tried: windows drawn. */
static grove_status mine(const neg_pool *p, const struct grove_cascade *c, int W, int H,
                         uint64_t seed, int stage, uint64_t *next_k, size_t need,
                         double max_windows, int n_threads, const grove_params *params,
                         patches *out, double *tried)
{
    gv_cascade_run run = {0};
    grove_status st = GROVE_OK;
    int has_stage = c->n_stages > 0;
    if (has_stage && (st = gv_cascade_run_init(&run, c, W + 1))) return st;
    int cells = (W + 1) * (H + 1);
    size_t psz = (size_t)W * H;
    uint8_t *pix = gv_malloc_array(MINE_BATCH, psz);
    uint8_t *ok = gv_malloc(MINE_BATCH);
    if (!pix || !ok) {
        st = gv_err_nomem("mining");
        goto done;
    }
    *tried = 0;
    while (out->n < need && *tried < max_windows) {
        uint64_t k0 = *next_k;
        int failed = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads(n_threads) reduction(| : failed)
#endif
        {
            int32_t *sum = gv_malloc_array((size_t)cells, sizeof *sum);
            uint32_t *sq = gv_malloc_array((size_t)cells, sizeof *sq);
            int32_t *tilt = gv_malloc_array((size_t)cells, sizeof *tilt);
            if (!sum || !sq || !tilt) failed = 1;
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
            for (long j = 0; j < MINE_BATCH; j++) {
                uint8_t *w = pix + (size_t)j * psz;
                ok[j] = 0;
                if (failed) continue;
                draw_window(p, seed, stage, k0 + (uint64_t)j, W, H, w);
                float norm;
                if (!window_integrals(w, W, H, sum, sq, c->has_tilted ? tilt : NULL, &norm))
                    continue;
                ok[j] = !has_stage || gv_cascade_eval(&run, sum, sq, tilt, 0, NULL) == 1;
            }
            gv_free(sum);
            gv_free(sq);
            gv_free(tilt);
        }
        if (failed) {
            st = gv_err_nomem("mining");
            goto done;
        }
        size_t j = 0;
        for (; j < MINE_BATCH && out->n < need; j++)
            if (ok[j] && patches_add(out, pix + j * psz)) {
                st = gv_err_nomem("negatives");
                goto done;
            }
        *tried += (double)j;
        *next_k += j;
        if (gv_progress(params, "mining negatives", out->n, need)) {
            st = gv_err(GROVE_ERR_ARG, "cancelled");
            goto done;
        }
    }
done:
    gv_free(pix);
    gv_free(ok);
    gv_cascade_run_free(&run);
    return st;
}

/* Keeps the windows of `s` that the cascade accepts (c NULL: those the detector can
 * normalize). */
static grove_status filter_passing(patches *s, const struct grove_cascade *c)
{
    gv_cascade_run run = {0};
    grove_status st = c ? gv_cascade_run_init(&run, c, s->w + 1) : GROVE_OK;
    if (st) return st;
    int cells = (s->w + 1) * (s->h + 1);
    int32_t *sum = gv_malloc_array((size_t)cells, sizeof *sum);
    uint32_t *sq = gv_malloc_array((size_t)cells, sizeof *sq);
    int32_t *tilt = gv_malloc_array((size_t)cells, sizeof *tilt);
    if (!sum || !sq || !tilt) st = gv_err_nomem("filter");
    size_t psz = (size_t)s->w * s->h, kept = 0;
    for (size_t i = 0; i < s->n && !st; i++) {
        float norm;
        const uint8_t *w = s->pix + i * psz;
        if (!window_integrals(w, s->w, s->h, sum, sq, c && c->has_tilted ? tilt : NULL, &norm))
            continue;
        if (c && gv_cascade_eval(&run, sum, sq, tilt, 0, NULL) != 1) continue;
        memmove(s->pix + kept * psz, w, psz);
        kept++;
    }
    if (!st) s->n = kept;
    gv_free(sum);
    gv_free(sq);
    gv_free(tilt);
    gv_cascade_run_free(&run);
    return st;
}

/* ---- binned feature values ---- */

enum { MAX_CUTS = 255, CUT_STRIDE = 256, CUT_SAMPLE = 256 };

/* Shell sort (Ciura's gaps) of a few hundred floats: no comparison callback in this hot path. */
static void sort_floats(float *a, size_t n)
{
    static const size_t gaps[] = {301, 132, 57, 23, 10, 4, 1};
    for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++) {
        size_t gap = gaps[g];
        for (size_t i = gap; i < n; i++) {
            float x = a[i];
            size_t j = i;
            for (; j >= gap && a[j - gap] > x; j -= gap) a[j] = a[j - gap];
            a[j] = x;
        }
    }
}

/* Cut points of one feature from a deterministic sample of its values (every k-th window), as
 * strictly increasing quantiles; returns their number.  scratch: [CUT_SAMPLE] floats. */
static int make_cuts(const float *v, size_t n, float *cuts, float *scratch)
{
    size_t step = n > CUT_SAMPLE ? (n + CUT_SAMPLE - 1) / CUT_SAMPLE : 1, m = 0;
    for (size_t i = 0; i < n; i += step) scratch[m++] = v[i];
    sort_floats(scratch, m);
    int nc = 0;
    for (int q = 1; q <= MAX_CUTS; q++) {
        size_t at = (size_t)((double)q * m / (MAX_CUTS + 1));
        if (at == 0 || at >= m) continue;
        float c = scratch[at];
        if (c <= scratch[0]) continue; /* keep every cut above the smallest value */
        if (nc == 0 || c > cuts[nc - 1]) cuts[nc++] = c;
    }
    return nc;
}

/* bin = the number of cuts <= v, so "bin <= b" is "v < cuts[b]".  The cut array holds
 * CUT_STRIDE entries, those past the nc cuts +infinity, so the search has no branch. */
static inline uint8_t bin_of(float v, const float *cuts)
{
    unsigned idx = 0;
    for (unsigned step = CUT_STRIDE / 2; step > 0; step >>= 1)
        idx += cuts[idx + step - 1] <= v ? step : 0;
    return (uint8_t)idx;
}

static void pad_cuts(float *cuts, int nc)
{
    for (int k = nc; k < CUT_STRIDE; k++) cuts[k] = INFINITY;
}

typedef struct stump_pick {
    double err;
    long feature;
    int bin, polarity; /* polarity +1: faces below the cut */
} stump_pick;

static inline int better(const stump_pick *a, const stump_pick *b)
{
    return a->err < b->err || (a->err == b->err && a->feature < b->feature);
}

/* Scans one feature's bins with weights w (positives first: [0, n_pos)). */
static void scan_feature(const uint8_t *bins, int nc, const double *w, size_t n_pos, size_t n,
                         double wp, double wn, long f, stump_pick *best)
{
    double hp[MAX_CUTS + 1] = {0}, hn[MAX_CUTS + 1] = {0};
    for (size_t i = 0; i < n_pos; i++) hp[bins[i]] += w[i];
    for (size_t i = n_pos; i < n; i++) hn[bins[i]] += w[i];
    double cp = 0, cn = 0;
    for (int b = 0; b < nc; b++) {
        cp += hp[b];
        cn += hn[b];
        double e_below = cn + (wp - cp), e_above = cp + (wn - cn);
        stump_pick s = {e_below, f, b, 1};
        if (e_above < e_below) s.err = e_above, s.polarity = -1;
        if (better(&s, best)) *best = s;
    }
}

/* ---- one stage of AdaBoost ---- */

typedef struct stage_data {
    const gv_haar_feature *feat; /* [n_feat] */
    const gv_haar_compiled *comp;
    size_t n_feat, n_resident;
    uint8_t *bins;   /* [n_resident][n] */
    float *cuts;     /* [n_resident][CUT_STRIDE], padded with +infinity */
    int *n_cuts;     /* [n_resident] */
    exset tr;        /* positives then negatives */
    size_t n_pos;
} stage_data;

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* The stage threshold keeping at least d of the positive scores (as the detector compares:
 * pass when score >= (float)threshold - 1e-5f), and the rates it gives. */
static float stage_threshold(const double *ps, size_t np, const double *ns, size_t nn, double d,
                             double *det, double *fp, double *scratch)
{
    memcpy(scratch, ps, np * sizeof *ps);
    qsort(scratch, np, sizeof *scratch, cmp_desc);
    size_t k = (size_t)ceil(d * (double)np - 1e-9);
    if (k < 1) k = 1;
    if (k > np) k = np;
    float thr = (float)scratch[k - 1];
    size_t pass_p = 0, pass_n = 0;
    for (size_t i = 0; i < np; i++) pass_p += ps[i] >= thr - 1e-5f;
    for (size_t i = 0; i < nn; i++) pass_n += ns[i] >= thr - 1e-5f;
    *det = np ? (double)pass_p / (double)np : 1;
    *fp = nn ? (double)pass_n / (double)nn : 0;
    return thr;
}

static grove_status train_stage(builder *bld, stage_data *sd, const exset *vp, const exset *vn,
                                double max_fp, double min_detect, int max_weak, int n_threads,
                                const grove_params *params, int stage, double *f_i, double *d_i)
{
    const size_t n = sd->tr.n, n_pos = sd->n_pos, n_neg = n - n_pos;
    grove_status st = GROVE_OK;
    double *w = gv_malloc_array(n + 1, sizeof *w);
    uint8_t *correct = gv_malloc(n + 1);
    double *vps = gv_calloc(vp->n + 1, sizeof *vps), *vns = gv_calloc(vn->n + 1, sizeof *vns);
    double *scratch = gv_malloc_array(vp->n + 1, sizeof *scratch);
    size_t n_thr = (size_t)(n_threads > 0 ? n_threads : 1);
    stump_pick *picks = gv_malloc_array(n_thr, sizeof *picks);
    /* per-thread buffers for recomputed features: values, bins, cuts, sample */
    float *fv = gv_malloc_array(n_thr, (n + CUT_SAMPLE + CUT_STRIDE + 1) * sizeof(float));
    uint8_t *fb = gv_malloc_array(n_thr, n + 1);
    if (!w || !correct || !vps || !vns || !scratch || !picks || !fv || !fb) {
        st = gv_err_nomem("stage training");
        goto done;
    }
    /* 2001, Table 1: w = 1/(2l) for the l positives, 1/(2m) for the m negatives */
    for (size_t i = 0; i < n; i++) w[i] = i < n_pos ? 0.5 / (double)n_pos : 0.5 / (double)n_neg;
    *f_i = 1;
    *d_i = 1;
    for (int t = 0; t < max_weak; t++) {
        double wp = 0, wn = 0;
        for (size_t i = 0; i < n; i++) *(i < n_pos ? &wp : &wn) += w[i];
        for (size_t k = 0; k < n_thr; k++) picks[k] = (stump_pick){INFINITY, -1, 0, 1};
        int failed = 0;
#ifdef _OPENMP
#pragma omp parallel for num_threads((int)n_thr) schedule(dynamic, 256)
#endif
        for (long f = 0; f < (long)sd->n_feat; f++) {
#ifdef _OPENMP
            int tid = omp_get_thread_num();
#else
            int tid = 0;
#endif
            if ((size_t)f < sd->n_resident) {
                scan_feature(sd->bins + (size_t)f * n, sd->n_cuts[f], w, n_pos, n, wp, wn, f,
                             &picks[tid]);
            } else {
                float *v = fv + (size_t)tid * (n + CUT_SAMPLE + CUT_STRIDE + 1);
                float *sample = v + n, *cuts = sample + CUT_SAMPLE;
                uint8_t *b = fb + (size_t)tid * (n + 1);
                for (size_t i = 0; i < n; i++) v[i] = ex_value(&sd->tr, &sd->comp[f], i);
                int nc = make_cuts(v, n, cuts, sample);
                pad_cuts(cuts, nc);
                for (size_t i = 0; i < n; i++) b[i] = bin_of(v[i], cuts);
                scan_feature(b, nc, w, n_pos, n, wp, wn, f, &picks[tid]);
            }
        }
        if (failed) {
            st = gv_err_nomem("stump search");
            goto done;
        }
        stump_pick best = picks[0];
        for (size_t k = 1; k < n_thr; k++)
            if (better(&picks[k], &best)) best = picks[k];
        if (best.feature < 0) break; /* no feature splits the windows */
        /* the exact threshold of the chosen cut, and every training window's side of it */
        const gv_haar_compiled *c = &sd->comp[best.feature];
        float thr;
        {
            float *v = fv, *sample = v + n, *cuts = sample + CUT_SAMPLE;
            for (size_t i = 0; i < n; i++) v[i] = ex_value(&sd->tr, c, i);
            int nc;
            if ((size_t)best.feature < sd->n_resident) {
                nc = sd->n_cuts[best.feature];
                memcpy(cuts, sd->cuts + (size_t)best.feature * CUT_STRIDE, (size_t)nc * sizeof *cuts);
            } else {
                nc = make_cuts(v, n, cuts, sample);
            }
            thr = cuts[best.bin];
            double eps = 0;
            for (size_t i = 0; i < n; i++) {
                int face = (v[i] < thr) == (best.polarity > 0);
                correct[i] = face == (i < n_pos);
                if (!correct[i]) eps += w[i] / (wp + wn);
            }
            (void)nc;
            if (eps >= 0.5) break;     /* no stump beats chance any more */
            if (eps < 1e-10) eps = 1e-10; /* a perfect stump: a large but finite vote */
            double alpha = gv_adaboost_alpha(eps, 1.0);
            gv_adaboost_reweight(w, correct, n, alpha);
            float fa = (float)alpha;
            float left = best.polarity > 0 ? fa : -fa, right = -left;
            if (add_stump(bld, &sd->feat[best.feature], thr, left, right)) {
                st = gv_err_nomem("cascade");
                goto done;
            }
            /* validation scores, summed as the detector sums them */
            for (size_t i = 0; i < vp->n; i++) vps[i] += ex_value(vp, c, i) < thr ? left : right;
            for (size_t i = 0; i < vn->n; i++) vns[i] += ex_value(vn, c, i) < thr ? left : right;
        }
        double det, fp;
        float sthr = stage_threshold(vps, vp->n, vns, vn->n, min_detect, &det, &fp, scratch);
        bld->c->stages[bld->c->n_stages - 1].threshold = sthr;
        *f_i = fp;
        *d_i = det;
        char what[64];
        snprintf(what, sizeof what, "stage %d: features (f = %.3f)", stage + 1, fp);
        if (gv_progress(params, what, (size_t)t + 1, (size_t)max_weak)) {
            st = gv_err(GROVE_ERR_ARG, "cancelled");
            goto done;
        }
        if (fp <= max_fp) break;
    }
done:
    gv_free(w);
    gv_free(correct);
    gv_free(vps);
    gv_free(vns);
    gv_free(scratch);
    gv_free(picks);
    gv_free(fv);
    gv_free(fb);
    return st;
}

/* Concatenates two example sets' windows (positives then negatives) into one set. */
static grove_status join_patches(const patches *a, const patches *b, patches *out)
{
    memset(out, 0, sizeof *out);
    out->w = a->w;
    out->h = a->h;
    for (size_t i = 0; i < a->n; i++)
        if (patches_add(out, a->pix + i * (size_t)a->w * a->h)) return gv_err_nomem("windows");
    for (size_t i = 0; i < b->n; i++)
        if (patches_add(out, b->pix + i * (size_t)b->w * b->h)) return gv_err_nomem("windows");
    return GROVE_OK;
}

/* Bins the resident features of the stage's training windows.  Blocks of features are
 * evaluated window by window (a window's integral image stays in the first-level cache while
 * every feature of the block reads it), then each feature's row is cut and binned. */
enum { BIN_BLOCK = 128 };

static grove_status bin_stage(stage_data *sd, size_t memory_bytes, int n_threads)
{
    const size_t n = sd->tr.n;
    size_t per = n + CUT_STRIDE * sizeof(float) + sizeof(int);
    sd->n_resident = memory_bytes / per;
    if (sd->n_resident > sd->n_feat) sd->n_resident = sd->n_feat;
    sd->bins = gv_malloc_array(sd->n_resident + 1, n + 1);
    sd->cuts = gv_malloc_array(sd->n_resident + 1, CUT_STRIDE * sizeof(float));
    sd->n_cuts = gv_malloc_array(sd->n_resident + 1, sizeof(int));
    if (!sd->bins || !sd->cuts || !sd->n_cuts) return gv_err_nomem("binned feature values");
    const long n_blocks = (long)((sd->n_resident + BIN_BLOCK - 1) / BIN_BLOCK);
    int failed = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads(n_threads) reduction(| : failed)
#endif
    {
        float *v = gv_malloc_array((size_t)BIN_BLOCK * n + CUT_SAMPLE + 1, sizeof(float));
        if (!v) failed = 1;
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 4)
#endif
        for (long blk = 0; blk < n_blocks; blk++) {
            if (!v) continue;
            size_t f0 = (size_t)blk * BIN_BLOCK, f1 = f0 + BIN_BLOCK;
            if (f1 > sd->n_resident) f1 = sd->n_resident;
            for (size_t i = 0; i < n; i++) {
                const int32_t *p = sd->tr.sum + i * sd->tr.cells;
                const int32_t *t = sd->tr.tilt ? sd->tr.tilt + i * sd->tr.cells : NULL;
                float nrm = sd->tr.norm[i];
                for (size_t f = f0; f < f1; f++)
                    v[(f - f0) * n + i] = gv_haar_raw(&sd->comp[f], p, t) * nrm;
            }
            float *sample = v + (size_t)BIN_BLOCK * n;
            for (size_t f = f0; f < f1; f++) {
                const float *vf = v + (f - f0) * n;
                float *cuts = sd->cuts + f * CUT_STRIDE;
                int nc = make_cuts(vf, n, cuts, sample);
                pad_cuts(cuts, nc);
                sd->n_cuts[f] = nc;
                uint8_t *b = sd->bins + f * n;
                for (size_t i = 0; i < n; i++) b[i] = bin_of(vf[i], cuts);
            }
        }
        gv_free(v);
    }
    return failed ? gv_err_nomem("binning") : GROVE_OK;
}

static void stage_data_free(stage_data *sd)
{
    gv_free(sd->bins);
    gv_free(sd->cuts);
    gv_free(sd->n_cuts);
    exset_free(&sd->tr);
    sd->bins = NULL;
    sd->cuts = NULL;
    sd->n_cuts = NULL;
}

/* ---- the whole cascade ---- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

grove_status gv_cascade_train_sets(const gv_image *const *pos_train, size_t n_pos_train,
                                   const gv_image *const *pos_valid, size_t n_pos_valid,
                                   const gv_image *const *neg_images, size_t n_neg_images,
                                   const gv_train_opts *o, const grove_params *params,
                                   struct grove_cascade **out)
{
    *out = NULL;
    grove_status st = GROVE_OK;
    const int W = o->width, H = o->height;
    int tilted = (o->types & (GV_HAAR_TILTED_EDGE | GV_HAAR_TILTED_LINE)) != 0;
    int n_threads = gv_threads(o->n_threads);
    patches tp = {0, 0, W, H, NULL}, vp = {0, 0, W, H, NULL};
    patches tn = {0, 0, W, H, NULL}, vn = {0, 0, W, H, NULL}, all = {0, 0, W, H, NULL};
    neg_pool pool = {0};
    gv_haar_feature *feat = NULL;
    gv_haar_compiled *comp = NULL;
    size_t n_feat = 0, pool_cap = 0;
    builder bld = {0};
    stage_data sd;
    memset(&sd, 0, sizeof sd);
    exset evp = {0}, evn = {0};

    bld.c = gv_calloc(1, sizeof *bld.c);
    if (!bld.c) return gv_err_nomem("cascade");
    bld.c->width = W;
    bld.c->height = H;
    bld.c->has_tilted = tilted;
    bld.c->stumps_only = 1;
    bld.c->source = gv_strdup("grove");
    if (!bld.c->source) {
        st = gv_err_nomem("cascade");
        goto done;
    }
    for (size_t i = 0; i < n_pos_train && !st; i++)
        if (patches_add(&tp, pos_train[i]->pix)) st = gv_err_nomem("positives");
    for (size_t i = 0; i < n_pos_valid && !st; i++)
        if (patches_add(&vp, pos_valid[i]->pix)) st = gv_err_nomem("positives");
    for (size_t i = 0; i < n_neg_images && !st; i++) {
        if (neg_images[i]->width < W || neg_images[i]->height < H) continue;
        st = neg_pool_add(&pool, neg_images[i], W, H, &pool_cap);
    }
    if (st) goto done;
    /* windows the detector cannot normalize are never detected: not positives either */
    if ((st = filter_passing(&tp, NULL)) || (st = filter_passing(&vp, NULL))) goto done;
    if (tp.n < 2) {
        st = gv_err(GROVE_ERR_DATA, "positives: %zu usable training windows (at least 2 needed; "
                    "windows with a grey-level deviation of 10 or less are unusable)", tp.n);
        goto done;
    }
    if (pool.n_levels == 0) {
        st = gv_err(GROVE_ERR_DATA, "negatives: no negative image is at least %dx%d", W, H);
        goto done;
    }
    if ((st = gv_haar_enumerate(W, H, o->types, &feat, &n_feat))) goto done;
    comp = gv_malloc_array(n_feat, sizeof *comp);
    if (!comp) {
        st = gv_err_nomem("features");
        goto done;
    }
    for (size_t f = 0; f < n_feat; f++) gv_haar_compile(&feat[f], W + 1, &comp[f]);

    size_t need = o->negatives ? o->negatives : 2 * tp.n;
    double F = 1, D = 1;
    uint64_t next_k = 0;
    for (int stage = 0; stage < o->max_stages && F > o->target_fp; stage++) {
        double t0 = now_s();
        if (stage > 0 && ((st = filter_passing(&tp, bld.c)) || (st = filter_passing(&vp, bld.c))))
            goto done;
        if (tp.n < 2) break; /* every training face rejected: nothing left to learn */
        tn.n = vn.n = 0;
        double tried_t = 0, tried_v = 0;
        if ((st = mine(&pool, bld.c, W, H, o->seed, stage, &next_k, need, o->max_windows,
                       n_threads, params, &tn, &tried_t)) ||
            (st = mine(&pool, bld.c, W, H, o->seed, stage, &next_k, need, o->max_windows,
                       n_threads, params, &vn, &tried_v)))
            goto done;
        if (tn.n < need / 10 + 1 || vn.n < 1) break; /* the negatives are exhausted */
        all.n = 0;
        if ((st = join_patches(&tp, &tn, &all))) goto done;
        if ((st = exset_build(&all, tilted, &sd.tr))) goto done;
        patches_free(&all);
        all.w = W;
        all.h = H;
        sd.feat = feat;
        sd.comp = comp;
        sd.n_feat = n_feat;
        sd.n_pos = tp.n;
        if ((st = bin_stage(&sd, o->memory_bytes, n_threads))) goto done;
        if ((st = exset_build(vp.n ? &vp : &tp, tilted, &evp)) || (st = exset_build(&vn, tilted, &evn)))
            goto done;
        struct grove_cascade *c = bld.c;
        if (grow((void **)&c->stages, &bld.cap_stages, c->n_stages + 1, sizeof *c->stages) ||
            grow((void **)&c->stats, &bld.cap_stats, c->n_stages + 1, sizeof *c->stats)) {
            st = gv_err_nomem("cascade");
            goto done;
        }
        gv_cascade_stage *sg = &c->stages[c->n_stages++];
        sg->n_trees = 0;
        sg->first_tree = c->n_trees;
        sg->threshold = 0;
        double f_i = 1, d_i = 1;
        st = train_stage(&bld, &sd, &evp, &evn, o->max_fp, o->min_detect, o->max_weak, n_threads,
                         params, stage, &f_i, &d_i);
        stage_data_free(&sd);
        exset_free(&evp);
        exset_free(&evn);
        if (st) goto done;
        if (sg->n_trees == 0 || f_i >= 1.0) { /* no stump helps: the stage would reject nothing */
            c->n_stages--;
            break;
        }
        F *= f_i;
        D *= d_i;
        gv_stage_stats *x = &c->stats[c->n_stages - 1];
        x->f = f_i;
        x->d = d_i;
        x->F = F;
        x->D = D;
        x->negatives = tn.n;
        x->windows = tried_t + tried_v;
        x->seconds = now_s() - t0;
    }
    if (bld.c->n_stages == 0) {
        st = gv_err(GROVE_ERR_DATA, "training made no stage (too few negatives or positives, or "
                    "no feature separates them)");
        goto done;
    }
    gv_cascade_finish(bld.c);
    st = gv_cascade_validate(bld.c, "trained cascade");
done:
    patches_free(&tp);
    patches_free(&vp);
    patches_free(&tn);
    patches_free(&vn);
    patches_free(&all);
    neg_pool_free(&pool);
    gv_free(feat);
    gv_free(comp);
    stage_data_free(&sd);
    exset_free(&evp);
    exset_free(&evn);
    if (st) {
        gv_cascade_free(bld.c);
        return st;
    }
    *out = bld.c;
    return GROVE_OK;
}
