/*
 * cascade.c -- the attentional cascade as data: stages of boosted trees (usually stumps) over
 * Haar-like features; its validation, its evaluation on one window with early rejection, and
 * grove's own versioned cascade file.
 *
 * Pipeline position: vision/, above the features; used by detect.c, train.c and the XML
 * reader and writer (cascade_xml.c).
 * Evaluation (Viola & Jones 2004, sec. 4; OpenCV's stage rule): for each stage in order,
 *   sum = sum_trees leaf(tree, x),  leaf reached by "v_f(x) < threshold ? left : right",
 *   reject at the first stage with sum < stage threshold - 1e-5 (OpenCV subtracts the same
 *   epsilon when it loads a cascade, so grove and OpenCV agree on every window).
 * The per-window normalization v_f = raw_f * norm is in single precision, as in OpenCV.
 *
 * File format ("format": "grove-cascade", "version": "1.0"; docs/model-format.md):
 *   {"window": [W, H], "features": [{"tilted": 0|1, "rects": [[x, y, w, h, weight], ...]}],
 *    "stages": [{"threshold": t, "trees": [{"nodes": [[left, right, feature, threshold]...],
 *                                          "leaves": [...]}]}],
 *    "training": {"stages": [{"f":..,"d":..,"F":..,"D":..,"negatives":..,"windows":..,
 *                             "seconds":..}]} (optional)}
 * Reals are written with 17 significant digits, so floats round-trip exactly.
 */
#include "vision.h"

#include "../core/json.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define STAGE_EPS 1e-5f

#if defined(__x86_64__) && defined(__GNUC__) && !defined(GROVE_NO_CLONES)
#include <immintrin.h>
#define GV_BATCH8 1 /* the eight-window first stage (AVX2, chosen at run time) */
#endif

void gv_cascade_free(struct grove_cascade *c)
{
    if (!c) return;
    gv_free(c->stages);
    gv_free(c->trees);
    gv_free(c->nodes);
    gv_free(c->leaves);
    gv_free(c->features);
    gv_free(c->stats);
    gv_free(c->source);
    gv_free(c);
}

grove_status gv_cascade_validate(const struct grove_cascade *c, const char *what)
{
    if (c->width < 4 || c->height < 4 || c->width > 256 || c->height > 256)
        return gv_err(GROVE_ERR_MODEL, "%s: window %dx%d out of range [4, 256]", what, c->width,
                      c->height);
    if (c->n_stages < 1) return gv_err(GROVE_ERR_MODEL, "%s: no stages", what);
    if (c->n_features < 1) return gv_err(GROVE_ERR_MODEL, "%s: no features", what);
    for (int f = 0; f < c->n_features; f++) {
        const gv_haar_feature *hf = &c->features[f];
        if (hf->n_rects < 1 || hf->n_rects > GV_HAAR_MAX_RECTS)
            return gv_err(GROVE_ERR_MODEL, "%s: feature %d: %d rectangles (expected 1 to 3)", what,
                          f, hf->n_rects);
        for (int k = 0; k < hf->n_rects; k++) {
            const gv_haar_rect *r = &hf->r[k];
            int ok = r->w >= 0 && r->h >= 0 && r->x >= 0 && r->y >= 0 && isfinite(r->weight);
            if (ok && !hf->tilted)
                ok = r->x + r->w <= c->width && r->y + r->h <= c->height;
            else if (ok)
                ok = r->x - r->h >= 0 && r->x + r->w <= c->width &&
                     r->y + r->w + r->h <= c->height;
            if (!ok)
                return gv_err(GROVE_ERR_MODEL,
                              "%s: feature %d: rectangle %d (%d %d %d %d) is not inside the %dx%d "
                              "window",
                              what, f, k, r->x, r->y, r->w, r->h, c->width, c->height);
        }
    }
    int tree_at = 0;
    for (int s = 0; s < c->n_stages; s++) {
        const gv_cascade_stage *st = &c->stages[s];
        if (st->n_trees < 1 || st->first_tree != tree_at || st->first_tree + st->n_trees > c->n_trees)
            return gv_err(GROVE_ERR_MODEL, "%s: stage %d: bad tree range", what, s);
        if (!isfinite(st->threshold))
            return gv_err(GROVE_ERR_MODEL, "%s: stage %d: threshold is not finite", what, s);
        tree_at += st->n_trees;
    }
    if (tree_at != c->n_trees) return gv_err(GROVE_ERR_MODEL, "%s: trees outside the stages", what);
    for (int t = 0; t < c->n_trees; t++) {
        const gv_cascade_tree *tr = &c->trees[t];
        if (tr->n_nodes < 1 || tr->first_node < 0 || tr->first_node + tr->n_nodes > c->n_nodes ||
            tr->first_leaf < 0 || tr->first_leaf + tr->n_nodes + 1 > c->n_leaves)
            return gv_err(GROVE_ERR_MODEL, "%s: tree %d: bad node or leaf range", what, t);
        for (int k = 0; k < tr->n_nodes; k++) {
            const gv_cascade_node *nd = &c->nodes[tr->first_node + k];
            /* children point forward (no cycles) to nodes or to leaves 0..n_nodes */
            int kids[2] = {nd->left, nd->right};
            for (int j = 0; j < 2; j++)
                if ((kids[j] > 0 && (kids[j] <= k || kids[j] >= tr->n_nodes)) ||
                    (kids[j] <= 0 && -kids[j] > tr->n_nodes))
                    return gv_err(GROVE_ERR_MODEL, "%s: tree %d node %d: child %d out of range",
                                  what, t, k, kids[j]);
            if (nd->feature < 0 || nd->feature >= c->n_features)
                return gv_err(GROVE_ERR_MODEL, "%s: tree %d node %d: feature %d out of range [0, %d)",
                              what, t, k, nd->feature, c->n_features);
            if (!isfinite(nd->threshold))
                return gv_err(GROVE_ERR_MODEL, "%s: tree %d node %d: threshold is not finite", what,
                              t, k);
        }
    }
    for (int l = 0; l < c->n_leaves; l++)
        if (!isfinite(c->leaves[l]))
            return gv_err(GROVE_ERR_MODEL, "%s: leaf %d is not finite", what, l);
    return GROVE_OK;
}

/* Flags the derived fields (has_tilted, stumps_only). */
static void cascade_finish(struct grove_cascade *c)
{
    c->has_tilted = 0;
    for (int f = 0; f < c->n_features; f++) c->has_tilted |= c->features[f].tilted;
    c->stumps_only = 1;
    for (int t = 0; t < c->n_trees; t++) c->stumps_only &= c->trees[t].n_nodes == 1;
}

/* ---- evaluation ---- */

/* A stump laid out for the hot loop: its feature's offsets inline, its threshold and both
 * leaves beside them, the stumps of a stage one after another (one cache line and a bit each,
 * no lookups through trees, nodes and the feature table). */
typedef struct gv_stump_run {
    gv_haar_compiled f;
    float threshold, left, right;
} gv_stump_run;

grove_status gv_cascade_run_init(gv_cascade_run *r, const struct grove_cascade *c, int stride)
{
    memset(r, 0, sizeof *r);
    r->c = c;
    r->stride = stride;
    r->feat = gv_malloc_array((size_t)c->n_features, sizeof *r->feat);
    if (!r->feat) return gv_err_nomem("compiled features");
    for (int f = 0; f < c->n_features; f++) gv_haar_compile(&c->features[f], stride, &r->feat[f]);
    if (c->stumps_only) {
        r->stumps = gv_malloc_array((size_t)c->n_trees, sizeof *r->stumps);
        if (!r->stumps) {
            gv_cascade_run_free(r);
            return gv_err_nomem("compiled stumps");
        }
        for (int k = 0; k < c->n_trees; k++) {
            const gv_cascade_tree *tr = &c->trees[k];
            const gv_cascade_node *nd = &c->nodes[tr->first_node];
            r->stumps[k].f = r->feat[nd->feature];
            r->stumps[k].threshold = nd->threshold;
            r->stumps[k].left = c->leaves[tr->first_leaf];
            r->stumps[k].right = c->leaves[tr->first_leaf + 1];
        }
    }
#ifdef GV_BATCH8
    /* eight-wide first stage: upright stumps whose window sums of squares fit in int32 */
    r->batch8 = r->stumps && !c->has_tilted &&
                (double)(c->width - 2) * (c->height - 2) * 65025.0 < 2147483647.0 &&
                __builtin_cpu_supports("avx2");
#endif
    return GROVE_OK;
}

void gv_cascade_run_free(gv_cascade_run *r)
{
    if (!r) return;
    gv_free(r->feat);
    gv_free(r->stumps);
    r->feat = NULL;
    r->stumps = NULL;
}

/* Stages s0 .. ns - 1 on the window at p / t whose normalization is `norm`. */
static int eval_stages(const gv_cascade_run *r, const int32_t *p, const int32_t *t, float norm,
                       int s0, int ns, double *score)
{
    const struct grove_cascade *c = r->c;
    double sum = 0;
    const gv_cascade_node *nodes = c->nodes;
    for (int s = s0; s < ns; s++) {
        const gv_cascade_stage *st = &c->stages[s];
        sum = 0;
        if (r->stumps) {
            const gv_stump_run *sr = r->stumps + st->first_tree;
            for (int k = 0; k < st->n_trees; k++) {
                float v = gv_haar_raw(&sr[k].f, p, t) * norm;
                sum += v < sr[k].threshold ? sr[k].left : sr[k].right;
            }
        } else {
            const gv_cascade_tree *tr = c->trees + st->first_tree;
            for (int k = 0; k < st->n_trees; k++) {
                const gv_cascade_node *tn = nodes + tr[k].first_node;
                int idx = 0;
                do {
                    const gv_cascade_node *nd = &tn[idx];
                    float v = gv_haar_raw(&r->feat[nd->feature], p, t) * norm;
                    idx = v < nd->threshold ? nd->left : nd->right;
                } while (idx > 0);
                sum += c->leaves[tr[k].first_leaf - idx];
            }
        }
        if (sum < st->threshold - STAGE_EPS) {
            if (score) *score = sum;
            return -s;
        }
    }
    if (score) *score = sum;
    return 1;
}

int gv_cascade_eval(const gv_cascade_run *r, const int32_t *p, const uint32_t *q,
                    const int32_t *t, int n_stages, double *score)
{
    const struct grove_cascade *c = r->c;
    float norm;
    if (!gv_window_norm(p, q, c->width, c->height, r->stride, &norm)) {
        if (score) *score = 0;
        return GV_CASCADE_FLAT;
    }
    int ns = n_stages > 0 && n_stages < c->n_stages ? n_stages : c->n_stages;
    return eval_stages(r, p, t, norm, 0, ns, score);
}

/* ---- eight windows at once ----
 * Detection evaluates the windows x, x + step, ..., x + 7 step of a row side by side with AVX2,
 * stage after stage while at least three of them are still alive (most windows end in the
 * first stages), then finishes the survivors one by one.  The same integer rectangle sums, the
 * same float products and sums in the same order (no fused multiply-add: C11 mode keeps
 * -ffp-contract=off, and the intrinsics multiply and add separately), the same comparisons and
 * the same double stage sums: every window gets gv_cascade_eval's answer bit for bit
 * (tests/test_vision.c compares the two on every window of a photo). */
#ifdef GV_BATCH8
__attribute__((target("avx2"))) static inline __m256i load8(const int32_t *b, int step,
                                                             __m256i gather_index)
{
    if (step == 1) return _mm256_loadu_si256((const __m256i *)b);
    if (step == 2) {
        const __m256i even = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
        __m256i lo = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)b), even);
        __m256i hi =
            _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)(b + 8)), even);
        return _mm256_permute2x128_si256(lo, hi, 0x20);
    }
    return _mm256_i32gather_epi32((const int *)b, gather_index, 4);
}

__attribute__((target("avx2"))) static inline __m256 rect8(const int32_t *b, const int *o,
                                                           int step, __m256i gi)
{
    __m256i v = _mm256_sub_epi32(load8(b + o[0], step, gi), load8(b + o[1], step, gi));
    v = _mm256_add_epi32(_mm256_sub_epi32(v, load8(b + o[2], step, gi)), load8(b + o[3], step, gi));
    return _mm256_cvtepi32_ps(v);
}

/* Stage s's sums for the eight windows. */
__attribute__((target("avx2"))) static void stage8(const gv_cascade_run *r, int s,
                                                   const int32_t *p, int step, __m256i gi,
                                                   __m256 nv, double sum[8])
{
    const gv_cascade_stage *st = &r->c->stages[s];
    const gv_stump_run *sr = r->stumps + st->first_tree;
    __m256d lo = _mm256_setzero_pd(), hi = _mm256_setzero_pd();
    for (int k = 0; k < st->n_trees; k++) {
        const gv_haar_compiled *f = &sr[k].f;
        __m256 v = _mm256_add_ps(_mm256_mul_ps(_mm256_set1_ps(f->weight[0]),
                                               rect8(p, f->ofs[0], step, gi)),
                                 _mm256_mul_ps(_mm256_set1_ps(f->weight[1]),
                                               rect8(p, f->ofs[1], step, gi)));
        if (f->weight[2] != 0.0f)
            v = _mm256_add_ps(v, _mm256_mul_ps(_mm256_set1_ps(f->weight[2]),
                                               rect8(p, f->ofs[2], step, gi)));
        v = _mm256_mul_ps(v, nv);
        __m256 left = _mm256_cmp_ps(v, _mm256_set1_ps(sr[k].threshold), _CMP_LT_OQ);
        __m256 leaf = _mm256_blendv_ps(_mm256_set1_ps(sr[k].right), _mm256_set1_ps(sr[k].left),
                                       left);
        lo = _mm256_add_pd(lo, _mm256_cvtps_pd(_mm256_castps256_ps128(leaf)));
        hi = _mm256_add_pd(hi, _mm256_cvtps_pd(_mm256_extractf128_ps(leaf, 1)));
    }
    _mm256_storeu_pd(sum, lo);
    _mm256_storeu_pd(sum + 4, hi);
}

__attribute__((target("avx2"))) static void batch8(const gv_cascade_run *r, const int32_t *p,
                                                   int step, const float norm[8], int res[8])
{
    const struct grove_cascade *c = r->c;
    __m256i gi = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                    _mm256_set1_epi32(step));
    __m256 nv = _mm256_loadu_ps(norm);
    int alive = 0, s = 0;
    for (int j = 0; j < 8; j++) alive += res[j] == 1;
    for (; s < c->n_stages && alive > 2; s++) {
        double sum[8];
        stage8(r, s, p, step, gi, nv, sum);
        float thr = c->stages[s].threshold - STAGE_EPS;
        for (int j = 0; j < 8; j++)
            if (res[j] == 1 && sum[j] < thr) {
                res[j] = -s;
                alive--;
            }
    }
    for (int j = 0; j < 8 && s < c->n_stages; j++)
        if (res[j] == 1) res[j] = eval_stages(r, p + j * step, NULL, norm[j], s, c->n_stages, NULL);
}
#endif

int gv_cascade_batch8(const gv_cascade_run *r, const int32_t *p, const uint32_t *q, int step,
                      int res[8])
{
#ifdef GV_BATCH8
    if (!r->batch8) return 0;
    const struct grove_cascade *c = r->c;
    float norm[8];
    for (int j = 0; j < 8; j++)
        res[j] = gv_window_norm(p + j * step, q + j * step, c->width, c->height, r->stride,
                                &norm[j])
                     ? 1
                     : GV_CASCADE_FLAT;
    batch8(r, p, step, norm, res);
    return 1;
#else
    (void)r, (void)p, (void)q, (void)step, (void)res;
    return 0;
#endif
}

/* ---- grove's cascade file ---- */

static json_t *real(double x) { return json_real(x); }

grove_status gv_cascade_save_json(const struct grove_cascade *c, const char *path)
{
    grove_status st = gv_cascade_validate(c, path);
    if (st) return st;
    json_t *doc = json_object(), *feats = json_array(), *stages = json_array();
    if (!doc || !feats || !stages) goto nomem;
    json_object_set_new(doc, "format", json_string("grove-cascade"));
    json_object_set_new(doc, "version", json_string("1.0"));
    json_object_set_new(doc, "window", json_pack("[ii]", c->width, c->height));
    for (int f = 0; f < c->n_features; f++) {
        json_t *rects = json_array();
        for (int k = 0; k < c->features[f].n_rects; k++) {
            const gv_haar_rect *r = &c->features[f].r[k];
            json_array_append_new(rects, json_pack("[iiiio]", r->x, r->y, r->w, r->h,
                                                   real(r->weight)));
        }
        json_array_append_new(feats, json_pack("{s:i,s:o}", "tilted", c->features[f].tilted,
                                               "rects", rects));
    }
    for (int s = 0; s < c->n_stages; s++) {
        json_t *trees = json_array();
        for (int t = 0; t < c->stages[s].n_trees; t++) {
            const gv_cascade_tree *tr = &c->trees[c->stages[s].first_tree + t];
            json_t *nodes = json_array(), *leaves = json_array();
            for (int k = 0; k < tr->n_nodes; k++) {
                const gv_cascade_node *nd = &c->nodes[tr->first_node + k];
                json_array_append_new(nodes, json_pack("[iiio]", nd->left, nd->right, nd->feature,
                                                       real(nd->threshold)));
            }
            for (int k = 0; k <= tr->n_nodes; k++)
                json_array_append_new(leaves, real(c->leaves[tr->first_leaf + k]));
            json_array_append_new(trees, json_pack("{s:o,s:o}", "nodes", nodes, "leaves", leaves));
        }
        json_array_append_new(stages, json_pack("{s:o,s:o}", "threshold",
                                                real(c->stages[s].threshold), "trees", trees));
    }
    json_object_set_new(doc, "features", feats);
    json_object_set_new(doc, "stages", stages);
    feats = stages = NULL;
    if (c->stats) {
        json_t *ts = json_array();
        for (int s = 0; s < c->n_stages; s++) {
            const gv_stage_stats *x = &c->stats[s];
            json_array_append_new(
                ts, json_pack("{s:o,s:o,s:o,s:o,s:I,s:o,s:o}", "f", real(x->f), "d", real(x->d),
                              "F", real(x->F), "D", real(x->D), "negatives",
                              (json_int_t)x->negatives, "windows", real(x->windows), "seconds",
                              real(x->seconds)));
        }
        json_object_set_new(doc, "training", json_pack("{s:o}", "stages", ts));
    }
    /* grove_output: a device or FIFO written through, a regular file replaced atomically (a
     * failed save keeps the old file) */
    grove_output *out = NULL;
    st = grove_output_open(path, NULL, &out);
    if (st != GROVE_OK) {
        json_decref(doc);
        return st;
    }
    if (json_dumpf(doc, grove_output_stream(out),
                   JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17))) {
        grove_output_abort(out);
        json_decref(doc);
        return gv_err(GROVE_ERR_IO, "%s: cannot write", path);
    }
    json_decref(doc);
    return grove_output_commit(out);
nomem:
    json_decref(doc);
    json_decref(feats);
    json_decref(stages);
    return gv_err_nomem("cascade document");
}

static int get_num(const json_t *v, double *out)
{
    if (!json_is_number(v)) return -1;
    *out = json_number_value(v);
    return 0;
}

static int get_int(const json_t *v, int lo, int hi, int *out)
{
    if (!json_is_integer(v)) return -1;
    json_int_t x = json_integer_value(v);
    if (x < lo || x > hi) return -1;
    *out = (int)x;
    return 0;
}

grove_status gv_cascade_load_json(const char *path, struct grove_cascade **out)
{
    *out = NULL;
    json_error_t jerr;
    json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    if (!doc && gv_json_load_nomem(&jerr))
        return gv_err(GROVE_ERR_NOMEM, "%s: out of memory while parsing", path);
    if (!doc)
        return gv_err(GROVE_ERR_MODEL, "%s:%d:%d: %s", path, jerr.line, jerr.column, jerr.text);
    grove_status st = GROVE_OK;
    struct grove_cascade *c = gv_calloc(1, sizeof *c);
    const char *fmt = json_string_value(json_object_get(doc, "format"));
    const char *ver = json_string_value(json_object_get(doc, "version"));
    json_t *win = json_object_get(doc, "window"), *feats = json_object_get(doc, "features"),
           *stages = json_object_get(doc, "stages");
    if (!c) {
        st = gv_err_nomem("cascade");
        goto done;
    }
    if (!fmt || strcmp(fmt, "grove-cascade")) {
        st = gv_err(GROVE_ERR_MODEL, "%s: not a grove cascade file (format \"%s\")", path,
                    fmt ? fmt : "");
        goto done;
    }
    if (!ver || strncmp(ver, "1.", 2)) {
        st = gv_err(GROVE_ERR_MODEL, "%s: cascade file version %s is not supported (1.x only)",
                    path, ver ? ver : "(none)");
        goto done;
    }
    const char *known[] = {"format", "version", "window", "features", "stages", "training"};
    const char *key;
    json_t *val;
    json_object_foreach(doc, key, val)
    {
        size_t i = 0;
        while (i < 6 && strcmp(key, known[i])) i++;
        if (i == 6) {
            st = gv_err(GROVE_ERR_MODEL, "%s: unknown key \"%s\"", path, key);
            goto done;
        }
    }
    if (!json_is_array(win) || json_array_size(win) != 2 ||
        get_int(json_array_get(win, 0), 4, 256, &c->width) ||
        get_int(json_array_get(win, 1), 4, 256, &c->height)) {
        st = gv_err(GROVE_ERR_MODEL, "%s: \"window\" must be [width, height] in [4, 256]", path);
        goto done;
    }
    if (!json_is_array(feats) || !json_is_array(stages) || json_array_size(feats) > (1u << 24) ||
        json_array_size(stages) > 100000) {
        st = gv_err(GROVE_ERR_MODEL, "%s: \"features\" and \"stages\" must be arrays", path);
        goto done;
    }
    c->n_features = (int)json_array_size(feats);
    c->n_stages = (int)json_array_size(stages);
    c->features = gv_calloc((size_t)c->n_features + 1, sizeof *c->features);
    c->stages = gv_calloc((size_t)c->n_stages + 1, sizeof *c->stages);
    if (!c->features || !c->stages) {
        st = gv_err_nomem("cascade");
        goto done;
    }
    for (int f = 0; f < c->n_features; f++) {
        json_t *jf = json_array_get(feats, (size_t)f), *rects = json_object_get(jf, "rects");
        if (get_int(json_object_get(jf, "tilted"), 0, 1, &c->features[f].tilted) ||
            !json_is_array(rects) || json_array_size(rects) < 1 ||
            json_array_size(rects) > GV_HAAR_MAX_RECTS) {
            st = gv_err(GROVE_ERR_MODEL, "%s: feature %d: expected {\"tilted\": 0|1, \"rects\": "
                        "[1 to 3 rectangles]}", path, f);
            goto done;
        }
        c->features[f].n_rects = (int)json_array_size(rects);
        for (int k = 0; k < c->features[f].n_rects; k++) {
            json_t *jr = json_array_get(rects, (size_t)k);
            gv_haar_rect *r = &c->features[f].r[k];
            double wt;
            if (!json_is_array(jr) || json_array_size(jr) != 5 ||
                get_int(json_array_get(jr, 0), 0, 256, &r->x) ||
                get_int(json_array_get(jr, 1), 0, 256, &r->y) ||
                get_int(json_array_get(jr, 2), 0, 256, &r->w) ||
                get_int(json_array_get(jr, 3), 0, 256, &r->h) || get_num(json_array_get(jr, 4), &wt)) {
                st = gv_err(GROVE_ERR_MODEL, "%s: feature %d rectangle %d: expected [x, y, w, h, "
                            "weight]", path, f, k);
                goto done;
            }
            r->weight = (float)wt;
        }
    }
    /* count trees, nodes, leaves */
    size_t n_trees = 0, n_nodes = 0, n_leaves = 0;
    for (int s = 0; s < c->n_stages; s++) {
        json_t *trees = json_object_get(json_array_get(stages, (size_t)s), "trees");
        if (!json_is_array(trees)) {
            st = gv_err(GROVE_ERR_MODEL, "%s: stage %d: \"trees\" must be an array", path, s);
            goto done;
        }
        for (size_t t = 0; t < json_array_size(trees); t++) {
            json_t *jt = json_array_get(trees, t);
            json_t *nodes = json_object_get(jt, "nodes"), *leaves = json_object_get(jt, "leaves");
            if (!json_is_array(nodes) || !json_is_array(leaves) || json_array_size(nodes) < 1 ||
                json_array_size(leaves) != json_array_size(nodes) + 1) {
                st = gv_err(GROVE_ERR_MODEL, "%s: stage %d tree %zu: expected \"nodes\" and one "
                            "more \"leaves\" than nodes", path, s, t);
                goto done;
            }
            n_trees++;
            n_nodes += json_array_size(nodes);
            n_leaves += json_array_size(leaves);
        }
    }
    if (n_nodes > (1u << 26)) {
        st = gv_err(GROVE_ERR_MODEL, "%s: too many nodes", path);
        goto done;
    }
    c->trees = gv_calloc(n_trees + 1, sizeof *c->trees);
    c->nodes = gv_calloc(n_nodes + 1, sizeof *c->nodes);
    c->leaves = gv_calloc(n_leaves + 1, sizeof *c->leaves);
    if (!c->trees || !c->nodes || !c->leaves) {
        st = gv_err_nomem("cascade");
        goto done;
    }
    for (int s = 0; s < c->n_stages; s++) {
        json_t *js = json_array_get(stages, (size_t)s), *trees = json_object_get(js, "trees");
        double thr;
        if (get_num(json_object_get(js, "threshold"), &thr)) {
            st = gv_err(GROVE_ERR_MODEL, "%s: stage %d: \"threshold\" must be a number", path, s);
            goto done;
        }
        c->stages[s].threshold = (float)thr;
        c->stages[s].first_tree = c->n_trees;
        c->stages[s].n_trees = (int)json_array_size(trees);
        for (size_t t = 0; t < json_array_size(trees); t++) {
            json_t *jt = json_array_get(trees, t);
            json_t *nodes = json_object_get(jt, "nodes"), *leaves = json_object_get(jt, "leaves");
            gv_cascade_tree *tr = &c->trees[c->n_trees++];
            tr->n_nodes = (int)json_array_size(nodes);
            tr->first_node = c->n_nodes;
            tr->first_leaf = c->n_leaves;
            for (int k = 0; k < tr->n_nodes; k++) {
                json_t *jn = json_array_get(nodes, (size_t)k);
                gv_cascade_node *nd = &c->nodes[c->n_nodes++];
                double th;
                if (!json_is_array(jn) || json_array_size(jn) != 4 ||
                    get_int(json_array_get(jn, 0), -100000, 100000, &nd->left) ||
                    get_int(json_array_get(jn, 1), -100000, 100000, &nd->right) ||
                    get_int(json_array_get(jn, 2), 0, 1 << 24, &nd->feature) ||
                    get_num(json_array_get(jn, 3), &th)) {
                    st = gv_err(GROVE_ERR_MODEL, "%s: stage %d tree %zu node %d: expected [left, "
                                "right, feature, threshold]", path, s, t, k);
                    goto done;
                }
                nd->threshold = (float)th;
            }
            for (size_t k = 0; k < json_array_size(leaves); k++) {
                double v;
                if (get_num(json_array_get(leaves, k), &v)) {
                    st = gv_err(GROVE_ERR_MODEL, "%s: stage %d tree %zu: leaf %zu is not a number",
                                path, s, t, k);
                    goto done;
                }
                c->leaves[c->n_leaves++] = (float)v;
            }
        }
    }
    json_t *training = json_object_get(doc, "training");
    json_t *ts = training ? json_object_get(training, "stages") : NULL;
    if (ts && json_is_array(ts) && json_array_size(ts) == (size_t)c->n_stages) {
        c->stats = gv_calloc((size_t)c->n_stages, sizeof *c->stats);
        if (!c->stats) {
            st = gv_err_nomem("cascade");
            goto done;
        }
        for (int s = 0; s < c->n_stages; s++) {
            json_t *x = json_array_get(ts, (size_t)s);
            gv_stage_stats *o = &c->stats[s];
            double neg = 0;
            if (get_num(json_object_get(x, "f"), &o->f) || get_num(json_object_get(x, "d"), &o->d) ||
                get_num(json_object_get(x, "F"), &o->F) || get_num(json_object_get(x, "D"), &o->D) ||
                get_num(json_object_get(x, "negatives"), &neg) ||
                get_num(json_object_get(x, "windows"), &o->windows) ||
                get_num(json_object_get(x, "seconds"), &o->seconds)) {
                st = gv_err(GROVE_ERR_MODEL, "%s: training stage %d: expected f, d, F, D, "
                            "negatives, windows, seconds", path, s);
                goto done;
            }
            /* a count: a whole number that size_t holds exactly (found by fuzz_cascade: -40) */
            if (!(neg >= 0 && neg <= 9007199254740992.0) || neg != floor(neg)) {
                st = gv_err(GROVE_ERR_MODEL, "%s: training stage %d: negatives %g is not a whole "
                            "number in [0, 2^53]", path, s, neg);
                goto done;
            }
            o->negatives = (size_t)neg;
        }
    } else if (training) {
        st = gv_err(GROVE_ERR_MODEL, "%s: \"training\" must hold one entry per stage", path);
        goto done;
    }
    c->source = gv_strdup("grove");
    if (!c->source) {
        st = gv_err_nomem("cascade");
        goto done;
    }
    cascade_finish(c);
    st = gv_cascade_validate(c, path);
done:
    json_decref(doc);
    if (st) {
        gv_cascade_free(c);
        return st;
    }
    *out = c;
    return GROVE_OK;
}

void gv_cascade_finish(struct grove_cascade *c) { cascade_finish(c); }
