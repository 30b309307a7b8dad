/*
 * tree_pack.c -- trees compiled for prediction (tree_pack.h), walked over blocks of rows.
 *
 * A compiled node is 16 bytes (a gv_tree_node is 56), so a walk touches a quarter of the cache
 * lines.  A split's children are adjacent (left, left + 1), as the grower and the pruner leave
 * them, so one index is kept; a tree whose children are not adjacent, or with a categorical
 * split, is not compiled and walked by gv_tree_leaf (through a numeric fast path on the
 * gathered row).  A leaf points to itself through a threshold every value passes (missing
 * values go left too): a walk may take more steps than the leaf's depth and stay there, so a
 * block of rows walks a shallow tree's full depth without a branch per row.
 *
 * The step is gv_tree_leaf's rule, branch-free:
 *     left  iff  x <= threshold,  or x is NaN and the node sends missing values left;
 *     child = left ? node.left : node.left + 1.
 * Blocked prediction (as XGBoost's predictor does): the caller gathers R rows row-major (each
 * column read once), then walks each tree over them LANES rows at a time while the tree's top
 * levels stay in cache, the lanes' dependent loads overlapping.  Only the order in which leaves
 * are found changes, never a leaf, so every ensemble's sums stay bit-identical.
 *
 * A compiled tree at most COMPLETE_DEPTH deep (boosting's depth-limited trees) is also laid
 * out complete, as a heap: split i's children at 2i + 1 and 2i + 2, a leaf shallower than the
 * tree's depth d padded with splits whose every slot below is that leaf.  Each row then takes
 * exactly d steps  i = 2i + 1 + (x[f[i]] > t[i])  (the same rule: right iff not left), with
 * the missing-value rule only where gv_rows_gather saw a NaN in the block.  With AVX-512
 * (chosen at run time) 16 rows walk as one vector, four vectors at a time so that the
 * gathers of the rows' values overlap; a tree at most 6 deep keeps its features and
 * thresholds in registers (permutes instead of gathers).  gbdt walks the dataset's columns in
 * place (gv_tree_pack_leaves_cols / _add_cols: the top levels read their few columns 16 rows a
 * load, the leaves' values are added in the walk), with AVX-512 or, without it, AVX2 (8 rows a
 * vector).
 */
#include "tree_pack.h"

#include <math.h>
#include <string.h>

#define LEAF_BIT 0x80000000u
#define DEFAULT_LEFT_BIT 0x40000000u
#define FEATURE_MASK 0x3FFFFFFFu
/* Rows walked through a tree together. */
#define LANES 16
/* Trees at most this deep are walked a fixed number of steps. */
#define FIXED_DEPTH 12
/* Deeper trees: steps between tests whether every lane has reached its leaf. */
#define STRIDE 4
/* Trees deeper than this are walked by the AVX-512 gathers where the CPU has them. */
#define DEEP_SIMD_DEPTH COMPLETE_DEPTH
/* Trees at most this deep are also laid out complete (see struct gv_tree_pack). */
#define COMPLETE_DEPTH 10
#define CDR_BIT 0x80000000u
/* Splits of a complete tree held in vector registers by the AVX-512 walk (depth <= 6). */
#define TABLE 64
/* Levels of a complete tree whose few columns the column-major walk reads whole. */
#define LOAD_LEVELS 3

#if defined(__x86_64__) && defined(__GNUC__) && !defined(GROVE_NO_CLONES)
#include <immintrin.h>
#define GV_PACK_AVX512 1 /* the complete-tree walk 16 rows a vector (chosen at run time) */
#define AVX512_FN __attribute__((target("avx512f")))
#define AVX2_FN __attribute__((target("avx2")))
#endif
/* gv_tree_pack.simd: the vector walks the CPU allows (gv_tree_pack_set_simd). */
#define SIMD_AVX2 1   /* the column walk, 8 rows a vector */
#define SIMD_AVX512 2 /* the column and row-major walks, 16 rows a vector */

typedef struct pack_node {
    uint32_t info;   /* the feature | DEFAULT_LEFT_BIT; | LEAF_BIT for a leaf */
    float threshold; /* left iff x <= threshold (NaN: the default side); a leaf: +inf */
    int32_t left;    /* the left child's index in the tree; a leaf: its own */
    int32_t unused;  /* 0 */
} pack_node;

struct gv_tree_pack {
    size_t n_trees;
    const gv_tree **trees; /* [n_trees], borrowed; NULL for a member that is not a tree */
    pack_node *nodes;      /* every compiled tree's nodes, one after the other */
    size_t *off;           /* [n_trees]: tree t's nodes start at nodes + off[t] (unless it has
                            * 8-byte nodes, off8); SIZE_MAX: not compiled */
    int *depth;            /* [n_trees]: the deepest leaf's depth */
    /* Compiled trees at most COMPLETE_DEPTH deep, also laid out complete: tree t of depth d
     * has 2^d - 1 splits at cfeat/cinfo/cthr + coff[t] (node i's children at 2i + 1 and
     * 2i + 2, right iff x > threshold or x is NaN and the node sends missing values right)
     * and 2^d leaf slots at cleaf + coff[t] + t (the node index of the leaf reached).  A
     * leaf shallower than d is padded by a split whose every slot below is that leaf. */
    size_t *coff;          /* [n_trees]; SIZE_MAX: not laid out complete */
    uint32_t *cfeat;
    float *cthr;
    uint32_t *cinfo;       /* the feature | CDR_BIT when the split sends missing values right */
    int32_t *cleaf;
    double *cval;          /* beside cleaf: the leaf's value, for a tree of one output (else 0) */
    /* Compiled trees deeper than DEEP_SIMD_DEPTH, in 8-byte nodes instead where the CPU has
     * AVX-512 (its walk gathers two fields a step for the node, not three, from half the
     * bytes; walk8 elsewhere): tree t's at
     * nodes8 + off8[t] (SIZE_MAX: none, as when its node indices do not fit).  A node is
     * word = left << (fbits + 1) | default_left << fbits | feature, then its threshold; a
     * leaf is its own left child, default_left 1, threshold +inf (it stays there).  fbits: the
     * bits of the largest feature index of any compiled tree (at least 1). */
    size_t *off8;
    uint32_t *nodes8;      /* word, threshold bits, word, ... */
    int fbits;
    int simd;              /* 0, SIMD_AVX2 or SIMD_AVX512: the vector walks used */
};

void gv_tree_pack_free(gv_tree_pack *p)
{
    if (!p) return;
    gv_free(p->trees);
    gv_free(p->nodes);
    gv_free(p->off);
    gv_free(p->depth);
    gv_free(p->coff);
    gv_free(p->cfeat);
    gv_free(p->cthr);
    gv_free(p->cinfo);
    gv_free(p->cleaf);
    gv_free(p->cval);
    gv_free(p->off8);
    gv_free(p->nodes8);
    gv_free(p);
}

/* Tree t's node k placed at complete position i, `rest` levels above the leaf slots. */
static void complete_fill(gv_tree_pack *p, const gv_tree *t, size_t k, size_t i, int rest, size_t d_splits,
                          size_t off, size_t loff)
{
    const gv_tree_node *nd = &t->nodes[k];
    if (rest == 0) {
        p->cleaf[loff + i - d_splits] = (int32_t)k;
        p->cval[loff + i - d_splits] = t->n_outputs == 1 ? t->values[k] : 0.0;
        return;
    }
    if (nd->type == GV_NODE_LEAF) { /* padding: both sides reach the leaf */
        p->cfeat[off + i] = 0;
        p->cinfo[off + i] = 0;
        p->cthr[off + i] = 0.0f;
        complete_fill(p, t, k, 2 * i + 1, rest - 1, d_splits, off, loff);
        complete_fill(p, t, k, 2 * i + 2, rest - 1, d_splits, off, loff);
        return;
    }
    p->cfeat[off + i] = (uint32_t)nd->feature;
    p->cinfo[off + i] = (uint32_t)nd->feature | (nd->default_left ? 0 : CDR_BIT);
    p->cthr[off + i] = nd->threshold;
    complete_fill(p, t, (size_t)nd->left, 2 * i + 1, rest - 1, d_splits, off, loff);
    complete_fill(p, t, (size_t)nd->left + 1, 2 * i + 2, rest - 1, d_splits, off, loff);
}

/* Whether tree t is compiled: numeric splits only, each with its children adjacent. */
static int compilable(const gv_tree *t, uint32_t *max_feature, int *depth)
{
    int ok = t->n_nodes <= INT32_MAX, d = 0;
    uint32_t mf = 0;
    for (size_t j = 0; j < t->n_nodes; j++) { /* (the depth of every tree: gv_tree_depth's) */
        const gv_tree_node *nd = &t->nodes[j];
        if (nd->type == GV_NODE_LEAF) {
            if (nd->depth > d) d = nd->depth;
            continue;
        }
        ok &= nd->type == GV_NODE_NUM && nd->right == nd->left + 1 && (uint32_t)nd->feature <= FEATURE_MASK;
        if ((uint32_t)nd->feature > mf) mf = (uint32_t)nd->feature;
    }
    *max_feature = mf;
    *depth = d;
    return ok;
}

/* Tree k's compiled nodes (and complete layout) into p, at the offsets set. */
static void pack_fill(gv_tree_pack *p, const gv_tree *t, size_t k)
{
    pack_node *f = p->nodes + p->off[k];
    for (size_t j = 0; j < t->n_nodes && p->off8[k] == SIZE_MAX; j++) {
        const gv_tree_node *nd = &t->nodes[j];
        if (nd->type == GV_NODE_LEAF)
            f[j] = (pack_node){LEAF_BIT | DEFAULT_LEFT_BIT, INFINITY, (int32_t)j, 0};
        else
            f[j] = (pack_node){(uint32_t)nd->feature | (nd->default_left ? DEFAULT_LEFT_BIT : 0),
                               nd->threshold, nd->left, 0};
    }
    if (p->coff[k] != SIZE_MAX) {
        size_t d_splits = ((size_t)1 << p->depth[k]) - 1;
        complete_fill(p, t, 0, 0, p->depth[k], d_splits, p->coff[k], p->coff[k] + k);
    }
    if (p->off8[k] != SIZE_MAX) {
        uint32_t *w = p->nodes8 + 2 * p->off8[k];
        const int fb = p->fbits;
        for (size_t j = 0; j < t->n_nodes; j++) {
            const gv_tree_node *nd = &t->nodes[j];
            float thr = nd->type == GV_NODE_LEAF ? INFINITY : nd->threshold;
            w[2 * j] = nd->type == GV_NODE_LEAF
                           ? (uint32_t)j << (fb + 1) | (uint32_t)1 << fb
                           : (uint32_t)nd->left << (fb + 1) | (uint32_t)(nd->default_left != 0) << fb |
                                 (uint32_t)nd->feature;
            memcpy(&w[2 * j + 1], &thr, sizeof thr);
        }
    }
}

grove_status gv_tree_pack_build(const gv_tree *const *trees, size_t n, gv_tree_pack **out)
{
    return gv_tree_pack_build_par(trees, n, 1, out);
}

grove_status gv_tree_pack_build_par(const gv_tree *const *trees, size_t n, int n_threads,
                                    gv_tree_pack **out)
{
    *out = NULL;
    gv_tree_pack *p = gv_calloc(1, sizeof *p);
    if (!p) return gv_err_nomem("compiled trees");
    p->n_trees = n;
    p->trees = gv_malloc_array(n ? n : 1, sizeof *p->trees);
    p->off = gv_malloc_array(n ? n : 1, sizeof *p->off);
    p->depth = gv_calloc(n ? n : 1, sizeof *p->depth);
    p->coff = gv_malloc_array(n ? n : 1, sizeof *p->coff);
    p->off8 = gv_malloc_array(n ? n : 1, sizeof *p->off8);
    uint32_t *maxf = gv_calloc(n ? n : 1, sizeof *maxf);
    if (!p->trees || !p->off || !p->depth || !p->coff || !p->off8 || !maxf) {
        gv_free(maxf);
        gv_tree_pack_free(p);
        return gv_err_nomem("compiled trees");
    }
    /* each tree's shape on the threads (off: 0 compiled, SIZE_MAX not), then the offsets in
     * order, then each tree's nodes on the threads: the same pack as one thread builds */
    const long nl = (long)n;
    const int nt = n_threads > 1 && n > 1 ? n_threads : 1;
    (void)nt;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1)
#endif
    for (long k = 0; k < nl; k++) {
        const gv_tree *t = trees[k];
        p->trees[k] = t;
        p->off[k] = t && compilable(t, &maxf[k], &p->depth[k]) ? 0 : SIZE_MAX;
        p->coff[k] = SIZE_MAX;
        p->off8[k] = SIZE_MAX;
    }
    uint32_t max_feature = 0;
    for (size_t k = 0; k < n; k++)
        if (p->off[k] == 0 && maxf[k] > max_feature) max_feature = maxf[k];
    gv_free(maxf);
    p->fbits = 1;
    while (p->fbits < 30 && (max_feature >> p->fbits) != 0) p->fbits++;
    /* the 8-byte nodes only where the AVX-512 walk may read them */
    int deep8 = 0;
#ifdef GV_PACK_AVX512
    deep8 = __builtin_cpu_supports("avx512f") != 0;
#endif
    size_t total = 0, ctotal = 0, total8 = 0;
    for (size_t k = 0; k < n; k++) {
        const gv_tree *t = trees[k];
        if (p->off[k] == 0) {
            if (p->depth[k] > COMPLETE_DEPTH && deep8 && p->depth[k] > DEEP_SIMD_DEPTH &&
                t->n_nodes <= ((size_t)1 << 29) &&
                ((t->n_nodes - 1) >> (31 - p->fbits)) == 0) { /* left << (fbits + 1) fits */
                p->off8[k] = total8; /* its 8-byte nodes only (off[k] stays 0: compiled) */
                total8 += t->n_nodes;
                continue;
            }
            p->off[k] = total;
            total += t->n_nodes;
            if (p->depth[k] <= COMPLETE_DEPTH) {
                p->coff[k] = ctotal;
                ctotal += ((size_t)1 << p->depth[k]) - 1;
            }
        }
    }
    p->nodes = gv_malloc_array(total ? total : 1, sizeof *p->nodes);
    p->nodes8 = gv_malloc_array(total8 ? 2 * total8 : 1, sizeof *p->nodes8);
    /* + TABLE: a vector walk loads a shallow tree's first TABLE splits whole */
    p->cfeat = gv_malloc_array(ctotal + 1, sizeof *p->cfeat);
    p->cinfo = gv_calloc(ctotal + TABLE, sizeof *p->cinfo);
    p->cthr = gv_calloc(ctotal + TABLE, sizeof *p->cthr);
    p->cleaf = gv_malloc_array(ctotal + n + 1, sizeof *p->cleaf);
    p->cval = gv_calloc(ctotal + n + TABLE, sizeof *p->cval);
    if (!p->nodes || !p->nodes8 || !p->cfeat || !p->cthr || !p->cinfo || !p->cleaf || !p->cval) {
        gv_tree_pack_free(p);
        return gv_err_nomem("compiled trees");
    }
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1)
#endif
    for (long k = 0; k < nl; k++)
        if (p->off[k] != SIZE_MAX) pack_fill(p, trees[k], (size_t)k);
    gv_tree_pack_set_simd(p, SIMD_AVX512);
    *out = p;
    return GROVE_OK;
}

int gv_tree_pack_set_simd(gv_tree_pack *p, int level)
{
    p->simd = 0;
#ifdef GV_PACK_AVX512
    if (level >= SIMD_AVX512 && __builtin_cpu_supports("avx512f"))
        p->simd = SIMD_AVX512;
    else if (level >= SIMD_AVX2 && __builtin_cpu_supports("avx2"))
        p->simd = SIMD_AVX2;
#else
    (void)level;
#endif
    return p->simd;
}

const gv_tree *gv_tree_pack_tree(const gv_tree_pack *p, size_t t) { return p->trees[t]; }

size_t gv_tree_pack_n(const gv_tree_pack *p) { return p->n_trees; }

/* ---- the lazily built pack ---- */

void gv_pack_cache_init(gv_pack_cache *c)
{
    pthread_mutex_init(&c->mu, NULL);
    atomic_init(&c->pack, NULL);
    atomic_init(&c->state, 0);
}

void gv_pack_cache_free(gv_pack_cache *c)
{
    gv_tree_pack_free(atomic_load(&c->pack));
    atomic_store(&c->pack, NULL);
    pthread_mutex_destroy(&c->mu);
}

/* Double-checked: the acquire load sees a pack another thread published completely. */
static const gv_tree_pack *cache_get(gv_pack_cache *c, const gv_component *members,
                                     gv_tree *const *trees, size_t n, int n_threads)
{
    int s = atomic_load_explicit(&c->state, memory_order_acquire);
    if (s == 1) return atomic_load_explicit(&c->pack, memory_order_acquire);
    if (s == 2) return NULL;
    pthread_mutex_lock(&c->mu);
    if (atomic_load_explicit(&c->state, memory_order_relaxed) == 0) {
        const gv_tree **list = gv_malloc_array(n ? n : 1, sizeof *list);
        gv_tree_pack *p = NULL;
        if (list) {
            for (size_t k = 0; k < n; k++)
                list[k] = trees ? trees[k] : members[k].vt == &gv_tree_component ? members[k].impl : NULL;
            if (gv_tree_pack_build_par(list, n, n_threads, &p) != GROVE_OK) p = NULL;
            gv_free(list);
        }
        atomic_store_explicit(&c->pack, p, memory_order_release);
        atomic_store_explicit(&c->state, p ? 1 : 2, memory_order_release);
    }
    pthread_mutex_unlock(&c->mu);
    return atomic_load_explicit(&c->pack, memory_order_acquire);
}

const gv_tree_pack *gv_pack_cache_get(gv_pack_cache *c, const gv_component *members, size_t n)
{
    return cache_get(c, members, NULL, n, 1);
}

const gv_tree_pack *gv_pack_cache_get_par(gv_pack_cache *c, const gv_component *members,
                                          size_t n, int n_threads)
{
    return cache_get(c, members, NULL, n, n_threads);
}

const gv_tree_pack *gv_pack_cache_get_trees(gv_pack_cache *c, gv_tree *const *trees, size_t n)
{
    return cache_get(c, NULL, trees, n, 1);
}

/* ---- walking ---- */

int gv_rows_gather(const grove_dataset *d, size_t r0, size_t B, float *xs)
{
    const size_t F = d->schema->n_features;
    int nan = 0;
    for (size_t j = 0; j < F; j++)
        for (size_t r = 0; r < B; r++) {
            float v = gv_value(d, j, r0 + r);
            nan |= v != v;
            xs[r * F + j] = v;
        }
    return nan;
}

#ifdef GV_PACK_AVX512
AVX512_FN static int cols_has_nan16(const grove_dataset *d, size_t r0, size_t B)
{
    const size_t F = d->schema->n_features;
    __mmask16 m = 0;
    int nan = 0;
    for (size_t j = 0; j < F; j++) {
        const float *c = d->values + j * d->n_rows + r0;
        size_t r = 0;
        for (; r + 16 <= B; r += 16) {
            __m512 v = _mm512_loadu_ps(c + r);
            m |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
        }
        for (; r < B; r++) nan |= c[r] != c[r];
    }
    return nan | (m != 0);
}
#endif

int gv_cols_has_nan(const grove_dataset *d, size_t r0, size_t B)
{
    const size_t F = d->schema->n_features;
#ifdef GV_PACK_AVX512
    if (__builtin_cpu_supports("avx512f")) return cols_has_nan16(d, r0, B);
#endif
    int nan = 0;
    for (size_t j = 0; j < F; j++) {
        const float *c = d->values + j * d->n_rows + r0;
        for (size_t r = 0; r < B; r++) nan |= c[r] != c[r];
    }
    return nan;
}

size_t gv_pack_block_rows(size_t F)
{
    size_t R = (131072 / (F ? F : 1)) / LANES * LANES;
    if (R < LANES) R = LANES;
    return R > 4096 ? 4096 : R;
}

size_t gv_pack_block_rows_deep(size_t F)
{
    size_t R = (524288 / (F ? F : 1)) / LANES * LANES;
    if (R < LANES) R = LANES;
    return R > GV_PREDICT_BLOCK ? GV_PREDICT_BLOCK : R;
}

/* One step: the child of node n for a row with raw values x[] (a leaf: itself). */
static inline int32_t step(const pack_node *n, const float *x)
{
    float v = x[n->info & FEATURE_MASK];
    int left = (v <= n->threshold) | (isnan(v) & ((n->info & DEFAULT_LEFT_BIT) != 0));
    return n->left + (1 - left);
}

static inline int32_t walk(const pack_node *nodes, const float *x)
{
    int32_t k = 0;
    while (!(nodes[k].info & LEAF_BIT)) k = step(&nodes[k], x);
    return k;
}

/* walk() on a tree's 8-byte nodes (struct gv_tree_pack): a leaf is the node a step does not
 * leave. */
static inline int32_t walk8(const uint32_t *w, int fbits, const float *x)
{
    uint32_t k = 0;
    for (;;) {
        const uint32_t word = w[2 * k];
        float thr;
        memcpy(&thr, &w[2 * k + 1], sizeof thr);
        const float v = x[word & ((1u << fbits) - 1)];
        const uint32_t left = (uint32_t)(v <= thr) | ((uint32_t)(isnan(v) != 0) & ((word >> fbits) & 1u));
        const uint32_t c = (word >> (fbits + 1)) + 1u - left;
        if (c == k) return (int32_t)k;
        k = c;
    }
}

/* A tree that is not compiled: its numeric splits walked on the gathered row (gv_tree_leaf's
 * semantics), the rest of the walk handed to gv_tree_leaf. */
static size_t leaf_of_row(const gv_tree *t, const float *x, const grove_dataset *d, size_t i)
{
    const gv_tree_node *nodes = t->nodes;
    size_t k = 0;
    while (nodes[k].type == GV_NODE_NUM) {
        const gv_tree_node *n = &nodes[k];
        float v = x[n->feature];
        int left = (v <= n->threshold) | (isnan(v) & n->default_left);
        k = (size_t)(left ? n->left : n->right);
    }
    return nodes[k].type == GV_NODE_LEAF ? k : gv_tree_leaf(t, d, i);
}

size_t gv_tree_pack_leaf(const gv_tree_pack *p, size_t t, const float *x, const grove_dataset *d,
                         size_t i)
{
    if (p->off[t] == SIZE_MAX) return leaf_of_row(p->trees[t], x, d, i);
    if (p->off8[t] != SIZE_MAX) return (size_t)walk8(p->nodes8 + 2 * p->off8[t], p->fbits, x);
    return (size_t)walk(p->nodes + p->off[t], x);
}

#ifdef GV_PACK_AVX512
/* complete_leaves (below) with AVX-512, 16 rows a vector: per level, the splits' features and
 * thresholds picked from registers (a tree at most 6 deep) or gathered, the rows' values
 * gathered, one compare.  The same rule, so the same leaves. */
/* One level for 16 rows: `at` (their nodes) moves to the children. */
#define STEP16(at, xr)                                                                          \
    do {                                                                                        \
        __m512i in_;                                                                            \
        __m512 th_;                                                                             \
        if (d > 6) {                                                                            \
            in_ = _mm512_i32gather_epi32(at, (const void *)info, 4);                            \
            th_ = _mm512_i32gather_ps(at, thr, 4);                                              \
        } else if (l < 5) { /* splits 0..30 */                                                  \
            in_ = _mm512_permutex2var_epi32(I0, at, I1);                                        \
            th_ = _mm512_permutex2var_ps(T0, at, T1);                                           \
        } else { /* splits 31..62 */                                                            \
            __mmask16 hi_ = _mm512_test_epi32_mask(at, bit5);                                   \
            in_ = _mm512_mask_blend_epi32(hi_, _mm512_permutex2var_epi32(I0, at, I1),           \
                                          _mm512_permutex2var_epi32(I2, at, I3));               \
            th_ = _mm512_mask_blend_ps(hi_, _mm512_permutex2var_ps(T0, at, T1),                 \
                                       _mm512_permutex2var_ps(T2, at, T3));                     \
        }                                                                                       \
        __m512 x_ = _mm512_i32gather_ps(_mm512_add_epi32(rowoff, _mm512_and_si512(in_, fmask)), \
                                        xr, 4);                                                 \
        __mmask16 right_ = _mm512_cmp_ps_mask(x_, th_, _CMP_GT_OQ);                             \
        if (has_nan)                                                                            \
            right_ |= _mm512_cmp_ps_mask(x_, x_, _CMP_UNORD_Q) &                                \
                      _mm512_test_epi32_mask(in_, drbit);                                       \
        at = _mm512_add_epi32(_mm512_add_epi32(at, at), one);                                   \
        at = _mm512_mask_add_epi32(at, right_, at, one);                                        \
    } while (0)

AVX512_FN static void complete_leaves16(const gv_tree_pack *p, size_t t, int d, const float *xs,
                                        size_t F, size_t B, int has_nan, int32_t *leaf)
{
    const uint32_t *info = p->cinfo + p->coff[t];
    const float *thr = p->cthr + p->coff[t];
    const int32_t *lf = p->cleaf + p->coff[t] + t;
    const __m512i rowoff = _mm512_mullo_epi32(
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), _mm512_set1_epi32((int)F));
    const __m512i fmask = _mm512_set1_epi32(0x7FFFFFFF), one = _mm512_set1_epi32(1);
    const __m512i bit5 = _mm512_set1_epi32(32), drbit = _mm512_set1_epi32((int)CDR_BIT);
    const __m512i base = _mm512_set1_epi32((1 << d) - 1);
    const __m512i I0 = _mm512_loadu_si512(info), I1 = _mm512_loadu_si512(info + 16);
    const __m512i I2 = _mm512_loadu_si512(info + 32), I3 = _mm512_loadu_si512(info + 48);
    const __m512 T0 = _mm512_loadu_ps(thr), T1 = _mm512_loadu_ps(thr + 16);
    const __m512 T2 = _mm512_loadu_ps(thr + 32), T3 = _mm512_loadu_ps(thr + 48);
    size_t r = 0;
    /* four vectors at once: their gathers' latencies overlap */
    for (; r + 64 <= B; r += 64) {
        const float *xr = xs + r * F;
        __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
        for (int l = 0; l < d; l++) {
            STEP16(a0, xr);
            STEP16(a1, xr + 16 * F);
            STEP16(a2, xr + 32 * F);
            STEP16(a3, xr + 48 * F);
        }
        _mm512_storeu_si512(leaf + r, _mm512_i32gather_epi32(_mm512_sub_epi32(a0, base), (const void *)lf, 4));
        _mm512_storeu_si512(leaf + r + 16, _mm512_i32gather_epi32(_mm512_sub_epi32(a1, base), (const void *)lf, 4));
        _mm512_storeu_si512(leaf + r + 32, _mm512_i32gather_epi32(_mm512_sub_epi32(a2, base), (const void *)lf, 4));
        _mm512_storeu_si512(leaf + r + 48, _mm512_i32gather_epi32(_mm512_sub_epi32(a3, base), (const void *)lf, 4));
    }
    for (; r + 16 <= B; r += 16) {
        const float *xr = xs + r * F;
        __m512i a0 = _mm512_setzero_si512();
        for (int l = 0; l < d; l++) STEP16(a0, xr);
        _mm512_storeu_si512(leaf + r, _mm512_i32gather_epi32(_mm512_sub_epi32(a0, base), (const void *)lf, 4));
    }
    for (; r < B; r++) {
        const float *x = xs + r * F;
        uint32_t i = 0;
        for (int l = 0; l < d; l++) {
            float v = x[info[i] & FEATURE_MASK];
            i = 2 * i + 1 + ((v > thr[i]) | (isnan(v) & (info[i] >> 31)));
        }
        leaf[r] = lf[i - (((uint32_t)1 << d) - 1)];
    }
}
#undef STEP16

/* The leaf slot of row r of column-major x (columns ld apart) in a complete tree of depth d:
 * the scalar walk that finishes the vector column walks' last rows. */
static inline uint32_t complete_slot_col(const uint32_t *info, const float *thr, int d,
                                         const float *x, size_t ld, size_t r)
{
    uint32_t i = 0;
    for (int l = 0; l < d; l++) {
        float v = x[(size_t)(info[i] & FEATURE_MASK) * ld + r];
        i = 2 * i + 1 + ((v > thr[i]) | (isnan(v) & (info[i] >> 31)));
    }
    return i - (((uint32_t)1 << d) - 1);
}

/* The splits' thresholds (th), and their features' column offsets (co, levels >= LOAD_LEVELS)
 * and info (in, where has_nan), of 16 rows at nodes `at` of a complete tree. */
#define SPLITS16(at, th, co, in)                                                                \
    do {                                                                                        \
        if (d > 6) {                                                                            \
            in = _mm512_i32gather_epi32(at, (const void *)info, 4);                             \
            th = _mm512_i32gather_ps(at, thr, 4);                                               \
            co = _mm512_mullo_epi32(_mm512_and_si512(in, fmask), ldv);                          \
        } else if (l < 5) { /* splits 0..30 */                                                  \
            th = _mm512_permutex2var_ps(T0, at, T1);                                            \
            if (l >= LOAD_LEVELS) co = _mm512_permutex2var_epi32(C0, at, C1);                   \
            if (has_nan) in = _mm512_permutex2var_epi32(I0, at, I1);                            \
        } else { /* splits 31..62: at - 31 in 0..31 */                                          \
            __m512i j_ = _mm512_sub_epi32(at, c31);                                             \
            th = _mm512_permutex2var_ps(T5a, j_, T5b);                                          \
            co = _mm512_permutex2var_epi32(C5a, j_, C5b);                                       \
            if (has_nan) in = _mm512_permutex2var_epi32(I5a, j_, I5b);                          \
        }                                                                                       \
    } while (0)

/* One level for 16 rows of column-major values from xr (row q's feature f at xr[f * ld + q]):
 * the top LOAD_LEVELS levels read their few columns whole and pick per row; deeper levels
 * gather. */
#define STEPC16(at, xr)                                                                         \
    do {                                                                                        \
        __m512i in_ = _mm512_setzero_si512(), co_ = in_;                                        \
        __m512 th_, x_;                                                                         \
        SPLITS16(at, th_, co_, in_);                                                            \
        if (l == 0)                                                                             \
            x_ = _mm512_loadu_ps(xr + co[0]);                                                   \
        else if (l == 1)                                                                        \
            x_ = _mm512_mask_blend_ps(_mm512_cmpeq_epi32_mask(at, two), _mm512_loadu_ps(xr + co[1]), \
                                      _mm512_loadu_ps(xr + co[2]));                             \
        else if (l == 2) {                                                                      \
            __m512i j_ = _mm512_sub_epi32(at, three);                                           \
            __mmask16 b0_ = _mm512_test_epi32_mask(j_, one), b1_ = _mm512_test_epi32_mask(j_, two); \
            x_ = _mm512_mask_blend_ps(                                                          \
                b1_, _mm512_mask_blend_ps(b0_, _mm512_loadu_ps(xr + co[3]), _mm512_loadu_ps(xr + co[4])), \
                _mm512_mask_blend_ps(b0_, _mm512_loadu_ps(xr + co[5]), _mm512_loadu_ps(xr + co[6]))); \
        } else                                                                                  \
            x_ = _mm512_i32gather_ps(_mm512_add_epi32(co_, lane), xr, 4);                       \
        __mmask16 right_ = _mm512_cmp_ps_mask(x_, th_, _CMP_GT_OQ);                             \
        if (has_nan)                                                                            \
            right_ |= _mm512_cmp_ps_mask(x_, x_, _CMP_UNORD_Q) &                                \
                      _mm512_test_epi32_mask(in_, drbit);                                       \
        at = _mm512_add_epi32(_mm512_add_epi32(at, at), one);                                   \
        at = _mm512_mask_add_epi32(at, right_, at, one);                                        \
    } while (0)

/* s[0..16) += the values of the leaf slots `slot` of a complete tree of depth d (cv: its
 * slots' values): a tree at most 6 deep picks them from its 64 slots by permutes. */
AVX512_FN static inline void add16(__m512i slot, int d, const double *cv, double *s)
{
    __m512i ix[2] = {_mm512_cvtepu32_epi64(_mm512_castsi512_si256(slot)),
                     _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(slot, 1))};
    for (int h = 0; h < 2; h++) {
        __m512d v;
        if (d <= 6) {
            const __m512i b4 = _mm512_set1_epi64(16), b5 = _mm512_set1_epi64(32);
            __mmask8 m4 = _mm512_test_epi64_mask(ix[h], b4), m5 = _mm512_test_epi64_mask(ix[h], b5);
            __m512d p0 = _mm512_permutex2var_pd(_mm512_loadu_pd(cv), ix[h], _mm512_loadu_pd(cv + 8));
            __m512d p1 = _mm512_permutex2var_pd(_mm512_loadu_pd(cv + 16), ix[h], _mm512_loadu_pd(cv + 24));
            __m512d p2 = _mm512_permutex2var_pd(_mm512_loadu_pd(cv + 32), ix[h], _mm512_loadu_pd(cv + 40));
            __m512d p3 = _mm512_permutex2var_pd(_mm512_loadu_pd(cv + 48), ix[h], _mm512_loadu_pd(cv + 56));
            v = _mm512_mask_blend_pd(m5, _mm512_mask_blend_pd(m4, p0, p1), _mm512_mask_blend_pd(m4, p2, p3));
        } else {
            v = _mm512_i64gather_pd(ix[h], cv, 8);
        }
        _mm512_storeu_pd(s + 8 * h, _mm512_add_pd(_mm512_loadu_pd(s + 8 * h), v));
    }
}

/* complete_leaves16 over B column-major rows: row r's feature f at x[f * ld + r] (f * ld + 15
 * fits in int32, see gv_tree_pack_cols_ok).  No row-major copy.  With s (a tree of one output),
 * s[r] += the leaf's value instead of storing the leaves. */
AVX512_FN static void complete_leaves16c(const gv_tree_pack *p, size_t t, int d, const float *x,
                                         size_t ld, size_t B, int has_nan, int32_t *leaf, double *s)
{
    const double *cv = p->cval + p->coff[t] + t;
    const uint32_t *info = p->cinfo + p->coff[t];
    const float *thr = p->cthr + p->coff[t];
    const int32_t *lf = p->cleaf + p->coff[t] + t;
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i fmask = _mm512_set1_epi32(0x7FFFFFFF), one = _mm512_set1_epi32(1);
    const __m512i two = _mm512_set1_epi32(2), three = _mm512_set1_epi32(3), c31 = _mm512_set1_epi32(31);
    const __m512i drbit = _mm512_set1_epi32((int)CDR_BIT), ldv = _mm512_set1_epi32((int)ld);
    const __m512i base = _mm512_set1_epi32((1 << d) - 1);
    const __m512i I0 = _mm512_loadu_si512(info), I1 = _mm512_loadu_si512(info + 16);
    const __m512i I5a = _mm512_loadu_si512(info + 31), I5b = _mm512_loadu_si512(info + 47);
    const __m512 T0 = _mm512_loadu_ps(thr), T1 = _mm512_loadu_ps(thr + 16);
    const __m512 T5a = _mm512_loadu_ps(thr + 31), T5b = _mm512_loadu_ps(thr + 47);
    const __m512i C0 = _mm512_mullo_epi32(_mm512_and_si512(I0, fmask), ldv);
    const __m512i C1 = _mm512_mullo_epi32(_mm512_and_si512(I1, fmask), ldv);
    const __m512i C5a = _mm512_mullo_epi32(_mm512_and_si512(I5a, fmask), ldv);
    const __m512i C5b = _mm512_mullo_epi32(_mm512_and_si512(I5b, fmask), ldv);
    size_t co[7] = {0};
    for (size_t k = 0; k < 7 && k + 1 < ((size_t)1 << d); k++) co[k] = (info[k] & FEATURE_MASK) * ld;
    size_t r = 0;
    for (; r + 64 <= B; r += 64) {
        const float *xr = x + r;
        __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
        for (int l = 0; l < d; l++) {
            STEPC16(a0, xr);
            STEPC16(a1, xr + 16);
            STEPC16(a2, xr + 32);
            STEPC16(a3, xr + 48);
        }
        if (s) {
            add16(_mm512_sub_epi32(a0, base), d, cv, s + r);
            add16(_mm512_sub_epi32(a1, base), d, cv, s + r + 16);
            add16(_mm512_sub_epi32(a2, base), d, cv, s + r + 32);
            add16(_mm512_sub_epi32(a3, base), d, cv, s + r + 48);
            continue;
        }
        _mm512_storeu_si512(leaf + r, _mm512_i32gather_epi32(_mm512_sub_epi32(a0, base), (const void *)lf, 4));
        _mm512_storeu_si512(leaf + r + 16, _mm512_i32gather_epi32(_mm512_sub_epi32(a1, base), (const void *)lf, 4));
        _mm512_storeu_si512(leaf + r + 32, _mm512_i32gather_epi32(_mm512_sub_epi32(a2, base), (const void *)lf, 4));
        _mm512_storeu_si512(leaf + r + 48, _mm512_i32gather_epi32(_mm512_sub_epi32(a3, base), (const void *)lf, 4));
    }
    for (; r + 16 <= B; r += 16) {
        const float *xr = x + r;
        __m512i a0 = _mm512_setzero_si512();
        for (int l = 0; l < d; l++) STEPC16(a0, xr);
        if (s)
            add16(_mm512_sub_epi32(a0, base), d, cv, s + r);
        else
            _mm512_storeu_si512(leaf + r, _mm512_i32gather_epi32(_mm512_sub_epi32(a0, base), (const void *)lf, 4));
    }
    for (; r < B; r++) {
        uint32_t i = complete_slot_col(info, thr, d, x, ld, r);
        if (s)
            s[r] += cv[i];
        else
            leaf[r] = lf[i];
    }
}
#undef STEPC16
#undef SPLITS16

/* AVX2 version of complete_leaves16c: 8 rows a vector, four vectors at once; the top
 * LOAD_LEVELS levels read their columns whole and take their thresholds from a register,
 * deeper levels gather features, thresholds and values. */
#define STEPC8(at, xr)                                                                          \
    do {                                                                                        \
        __m256i in_ = _mm256_setzero_si256();                                                   \
        __m256 th_, x_;                                                                         \
        if (l < LOAD_LEVELS) {                                                                  \
            th_ = _mm256_permutevar8x32_ps(T0, at);                                             \
            if (has_nan) in_ = _mm256_permutevar8x32_epi32(I0, at);                             \
            if (l == 0)                                                                         \
                x_ = _mm256_loadu_ps(xr + co[0]);                                               \
            else if (l == 1)                                                                    \
                x_ = _mm256_blendv_ps(_mm256_loadu_ps(xr + co[1]), _mm256_loadu_ps(xr + co[2]), \
                                      _mm256_castsi256_ps(_mm256_cmpeq_epi32(at, two)));        \
            else {                                                                              \
                __m256i j_ = _mm256_sub_epi32(at, three);                                       \
                __m256 b0_ = _mm256_castsi256_ps(_mm256_slli_epi32(j_, 31));                    \
                __m256 b1_ = _mm256_castsi256_ps(_mm256_slli_epi32(j_, 30));                    \
                x_ = _mm256_blendv_ps(                                                          \
                    _mm256_blendv_ps(_mm256_loadu_ps(xr + co[3]), _mm256_loadu_ps(xr + co[4]), b0_), \
                    _mm256_blendv_ps(_mm256_loadu_ps(xr + co[5]), _mm256_loadu_ps(xr + co[6]), b0_), \
                    b1_);                                                                       \
            }                                                                                   \
        } else {                                                                                \
            in_ = _mm256_i32gather_epi32((const int *)info, at, 4);                             \
            th_ = _mm256_i32gather_ps(thr, at, 4);                                              \
            __m256i co_ = _mm256_mullo_epi32(_mm256_and_si256(in_, fmask), ldv);                \
            x_ = _mm256_i32gather_ps(xr, _mm256_add_epi32(co_, lane), 4);                       \
        }                                                                                       \
        __m256 right_ = _mm256_cmp_ps(x_, th_, _CMP_GT_OQ);                                     \
        if (has_nan)                                                                            \
            right_ = _mm256_or_ps(right_, _mm256_and_ps(_mm256_cmp_ps(x_, x_, _CMP_UNORD_Q),    \
                                                        _mm256_castsi256_ps(in_)));             \
        /* the dr bit is the sign: blendv and the and above read only the sign bit */           \
        at = _mm256_add_epi32(_mm256_add_epi32(at, at), one);                                   \
        at = _mm256_sub_epi32(at, _mm256_srai_epi32(_mm256_castps_si256(right_), 31));          \
    } while (0)

/* The leaves of rows r..r+8 at complete slots `slot`: stored at leaf[r..r+8), or with s, their
 * values (cv) added to s[r..r+8) (the other pointer may be NULL: no offset is applied to it). */
AVX2_FN static inline void out8(__m256i slot, const int32_t *lf, const double *cv, int32_t *leaf,
                                double *s, size_t r)
{
    if (!s) {
        _mm256_storeu_si256((__m256i *)(leaf + r), _mm256_i32gather_epi32(lf, slot, 4));
        return;
    }
    s += r;
    __m256d v0 = _mm256_i32gather_pd(cv, _mm256_castsi256_si128(slot), 8);
    __m256d v1 = _mm256_i32gather_pd(cv, _mm256_extracti128_si256(slot, 1), 8);
    _mm256_storeu_pd(s, _mm256_add_pd(_mm256_loadu_pd(s), v0));
    _mm256_storeu_pd(s + 4, _mm256_add_pd(_mm256_loadu_pd(s + 4), v1));
}

AVX2_FN static void complete_leaves8c(const gv_tree_pack *p, size_t t, int d, const float *x,
                                      size_t ld, size_t B, int has_nan, int32_t *leaf, double *s)
{
    const uint32_t *info = p->cinfo + p->coff[t];
    const float *thr = p->cthr + p->coff[t];
    const int32_t *lf = p->cleaf + p->coff[t] + t;
    const double *cv = p->cval + p->coff[t] + t;
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i fmask = _mm256_set1_epi32(0x7FFFFFFF), one = _mm256_set1_epi32(1);
    const __m256i two = _mm256_set1_epi32(2), three = _mm256_set1_epi32(3);
    const __m256i ldv = _mm256_set1_epi32((int)ld), base = _mm256_set1_epi32((1 << d) - 1);
    const __m256i I0 = _mm256_loadu_si256((const __m256i *)info);
    const __m256 T0 = _mm256_loadu_ps(thr);
    size_t co[7] = {0};
    for (size_t k = 0; k < 7 && k + 1 < ((size_t)1 << d); k++) co[k] = (info[k] & FEATURE_MASK) * ld;
    size_t r = 0;
    for (; r + 32 <= B; r += 32) {
        const float *xr = x + r;
        __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
        for (int l = 0; l < d; l++) {
            STEPC8(a0, xr);
            STEPC8(a1, xr + 8);
            STEPC8(a2, xr + 16);
            STEPC8(a3, xr + 24);
        }
        out8(_mm256_sub_epi32(a0, base), lf, cv, leaf, s, r);
        out8(_mm256_sub_epi32(a1, base), lf, cv, leaf, s, r + 8);
        out8(_mm256_sub_epi32(a2, base), lf, cv, leaf, s, r + 16);
        out8(_mm256_sub_epi32(a3, base), lf, cv, leaf, s, r + 24);
    }
    for (; r + 8 <= B; r += 8) {
        const float *xr = x + r;
        __m256i a0 = _mm256_setzero_si256();
        for (int l = 0; l < d; l++) STEPC8(a0, xr);
        out8(_mm256_sub_epi32(a0, base), lf, cv, leaf, s, r);
    }
    for (; r < B; r++) {
        uint32_t i = complete_slot_col(info, thr, d, x, ld, r);
        if (s)
            s[r] += cv[i];
        else
            leaf[r] = lf[i];
    }
}
#undef STEPC8
#endif

void gv_tree_pack_leaves_cols(const gv_tree_pack *p, size_t t, const float *x, size_t ld,
                              size_t B, int has_nan, int32_t *leaf);

int gv_tree_pack_cols_ok(const gv_tree_pack *p, size_t n_rows, size_t F)
{
#ifdef GV_PACK_AVX512
    /* the largest offset, (F - 1) * n_rows + 15, fits in int32 */
    if (!p->simd || n_rows == 0 || F > (size_t)INT32_MAX / (n_rows + 16)) return 0;
    for (size_t t = 0; t < p->n_trees; t++)
        if (p->coff[t] == SIZE_MAX) return 0;
    return 1;
#else
    (void)p, (void)n_rows, (void)F;
    return 0;
#endif
}

void gv_tree_pack_add_cols(const gv_tree_pack *p, size_t t, const float *x, size_t ld, size_t B,
                           int has_nan, double *s, int32_t *leaf)
{
#ifdef GV_PACK_AVX512
    if (p->trees[t]->n_outputs == 1) {
        if (p->simd == SIMD_AVX512)
            complete_leaves16c(p, t, p->depth[t], x, ld, B, has_nan, NULL, s);
        else
            complete_leaves8c(p, t, p->depth[t], x, ld, B, has_nan, NULL, s);
        return;
    }
    gv_tree_pack_leaves_cols(p, t, x, ld, B, has_nan, leaf);
    for (size_t r = 0; r < B; r++) s[r] += p->trees[t]->values[(size_t)leaf[r] * (size_t)p->trees[t]->n_outputs];
#else
    (void)p, (void)t, (void)x, (void)ld, (void)B, (void)has_nan, (void)s, (void)leaf;
#endif
}

void gv_tree_pack_leaves_cols(const gv_tree_pack *p, size_t t, const float *x, size_t ld,
                              size_t B, int has_nan, int32_t *leaf)
{
#ifdef GV_PACK_AVX512
    if (p->simd == SIMD_AVX512)
        complete_leaves16c(p, t, p->depth[t], x, ld, B, has_nan, leaf, NULL);
    else
        complete_leaves8c(p, t, p->depth[t], x, ld, B, has_nan, leaf, NULL);
#else
    (void)p, (void)t, (void)x, (void)ld, (void)B, (void)has_nan, (void)leaf;
#endif
}

#ifdef GV_PACK_AVX512
/* The rows [0, B) of xs (F values a row) to their leaves by STEP (one step of 16 rows), four
 * vectors at once so that their gathers' latencies overlap; the last rows one by one by TAIL
 * (the scalar walk of row r). */
#define DEEP_LEAVES16(STEP, TAIL)                                                                  \
    do {                                                                                           \
        size_t r = 0;                                                                              \
        for (; r + 64 <= B; r += 64) {                                                             \
            const float *xr = xs + r * F;                                                          \
            __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;                        \
            int d0 = 0, d1 = 0, d2 = 0, d3 = 0;                                                    \
            while (!(d0 & d1 & d2 & d3)) {                                                         \
                if (!d0) STEP(a0, xr, d0);                                                         \
                if (!d1) STEP(a1, xr + 16 * F, d1);                                                \
                if (!d2) STEP(a2, xr + 32 * F, d2);                                                \
                if (!d3) STEP(a3, xr + 48 * F, d3);                                                \
            }                                                                                      \
            _mm512_storeu_si512(leaf + r, a0);                                                     \
            _mm512_storeu_si512(leaf + r + 16, a1);                                                \
            _mm512_storeu_si512(leaf + r + 32, a2);                                                \
            _mm512_storeu_si512(leaf + r + 48, a3);                                                \
        }                                                                                          \
        for (; r + 16 <= B; r += 16) {                                                             \
            const float *xr = xs + r * F;                                                          \
            __m512i a0 = _mm512_setzero_si512();                                                   \
            int d0 = 0;                                                                            \
            while (!d0) STEP(a0, xr, d0);                                                          \
            _mm512_storeu_si512(leaf + r, a0);                                                     \
        }                                                                                          \
        for (; r < B; r++) leaf[r] = (TAIL);                                                       \
    } while (0)

/* A compiled tree of any depth, 16 rows a vector: per step, the nodes' info, thresholds and
 * left children gathered (a node is 4 int32s), then the rows' values; a lane at its leaf stays
 * there (the leaf's threshold passes every value), and a vector stops once every lane is at
 * a leaf.  Four vectors at once so that their gathers' latencies overlap.  The same rule as
 * step(), so the same leaves. */
#define STEPD16(at, xr, done)                                                                   \
    do {                                                                                        \
        __m512i ix_ = _mm512_slli_epi32(at, 2);                                                 \
        __m512i in_ = _mm512_i32gather_epi32(ix_, base, 4);                                     \
        __m512 th_ = _mm512_i32gather_ps(ix_, (const float *)(base + 1), 4);                    \
        __m512i lc_ = _mm512_i32gather_epi32(ix_, base + 2, 4);                                 \
        __m512 x_ = _mm512_i32gather_ps(_mm512_add_epi32(rowoff, _mm512_and_si512(in_, fmask)), \
                                        xr, 4);                                                 \
        __mmask16 left_ = _mm512_cmp_ps_mask(x_, th_, _CMP_LE_OQ);                              \
        if (has_nan)                                                                            \
            left_ |= _mm512_cmp_ps_mask(x_, x_, _CMP_UNORD_Q) & _mm512_test_epi32_mask(in_, dlbit); \
        at = _mm512_mask_add_epi32(lc_, (__mmask16)~left_, lc_, one);                           \
        done = _mm512_test_epi32_mask(in_, leafbit) == 0xFFFF;                                  \
    } while (0)

AVX512_FN static void deep_leaves16(const pack_node *nodes, const float *xs, size_t F, size_t B,
                                    int has_nan, int32_t *leaf)
{
    const int *base = (const int *)nodes;
    const __m512i rowoff = _mm512_mullo_epi32(
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), _mm512_set1_epi32((int)F));
    const __m512i fmask = _mm512_set1_epi32((int)FEATURE_MASK), one = _mm512_set1_epi32(1);
    const __m512i leafbit = _mm512_set1_epi32((int)LEAF_BIT), dlbit = _mm512_set1_epi32((int)DEFAULT_LEFT_BIT);
    DEEP_LEAVES16(STEPD16, walk(nodes, xs + r * F));
}
#undef STEPD16

/* deep_leaves16 on the 8-byte nodes (nodes8): per step the node's word and threshold gathered
 * (the left child and the feature are fields of the word), then the rows' values; a lane at its
 * leaf stays there (its own left child, every value passing), and a vector stops once a step
 * moves no lane.  The same rule, so the same leaves. */
#define STEPW16(at, xr, done)                                                                   \
    do {                                                                                        \
        __m512i ix_ = _mm512_slli_epi32(at, 1);                                                 \
        __m512i w_ = _mm512_i32gather_epi32(ix_, base, 4);                                      \
        __m512 th_ = _mm512_i32gather_ps(ix_, (const float *)(base + 1), 4);                    \
        __m512 x_ = _mm512_i32gather_ps(_mm512_add_epi32(rowoff, _mm512_and_si512(w_, fmask)), \
                                        xr, 4);                                                 \
        __mmask16 left_ = _mm512_cmp_ps_mask(x_, th_, _CMP_LE_OQ);                              \
        if (has_nan)                                                                            \
            left_ |= _mm512_cmp_ps_mask(x_, x_, _CMP_UNORD_Q) & _mm512_test_epi32_mask(w_, dlbit); \
        __m512i lc_ = _mm512_srl_epi32(w_, cshift);                                             \
        __m512i nx_ = _mm512_mask_add_epi32(lc_, (__mmask16)~left_, lc_, one);                  \
        done = _mm512_cmpeq_epi32_mask(nx_, at) == 0xFFFF;                                      \
        at = nx_;                                                                               \
    } while (0)

AVX512_FN static void deep_leaves16w(const uint32_t *nodes8, int fbits, const float *xs,
                                     size_t F, size_t B, int has_nan, int32_t *leaf)
{
    const int *base = (const int *)nodes8;
    const __m512i rowoff = _mm512_mullo_epi32(
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), _mm512_set1_epi32((int)F));
    const __m512i fmask = _mm512_set1_epi32((int)((1u << fbits) - 1)), one = _mm512_set1_epi32(1);
    const __m512i dlbit = _mm512_set1_epi32((int)(1u << fbits));
    const __m128i cshift = _mm_cvtsi32_si128(fbits + 1);
    DEEP_LEAVES16(STEPW16, walk8(nodes8, fbits, xs + r * F));
}
#undef STEPW16
#undef DEEP_LEAVES16
#endif

/* A complete tree of depth d over B rows, LANES at a time: d steps each, no branch.  Without
 * NaN among the values, x > threshold alone decides. */
static void complete_leaves(const gv_tree_pack *p, size_t t, int d, const float *xs, size_t F,
                            size_t B, int has_nan, int32_t *leaf)
{
    const uint32_t *feat = p->cfeat + p->coff[t];
    const uint32_t *info = p->cinfo + p->coff[t];
    const float *thr = p->cthr + p->coff[t];
    const int32_t *lf = p->cleaf + p->coff[t] + t - (((size_t)1 << d) - 1);
    size_t r = 0;
    for (; r + LANES <= B; r += LANES) {
        const float *xr = xs + r * F;
        uint32_t at[LANES] = {0};
        if (has_nan) {
            for (int l = 0; l < d; l++)
                for (int q = 0; q < LANES; q++) {
                    uint32_t i = at[q];
                    float v = xr[(size_t)q * F + feat[i]];
                    at[q] = 2 * i + 1 + ((v > thr[i]) | (isnan(v) & (info[i] >> 31)));
                }
        } else {
            for (int l = 0; l < d; l++)
                for (int q = 0; q < LANES; q++) {
                    uint32_t i = at[q];
                    at[q] = 2 * i + 1 + (xr[(size_t)q * F + feat[i]] > thr[i]);
                }
        }
        for (int q = 0; q < LANES; q++) leaf[r + q] = lf[at[q]];
    }
    for (; r < B; r++) {
        const float *x = xs + r * F;
        uint32_t i = 0;
        for (int l = 0; l < d; l++) {
            float v = x[feat[i]];
            i = 2 * i + 1 + ((v > thr[i]) | (isnan(v) & (info[i] >> 31)));
        }
        leaf[r] = lf[i];
    }
}

void gv_tree_pack_leaves(const gv_tree_pack *p, size_t t, const float *xs, size_t F, size_t B,
                         const grove_dataset *d, size_t r0, int has_nan, int32_t *leaf)
{
    if (p->off[t] == SIZE_MAX) {
        for (size_t r = 0; r < B; r++) leaf[r] = (int32_t)leaf_of_row(p->trees[t], xs + r * F, d, r0 + r);
        return;
    }
    if (p->coff[t] != SIZE_MAX) {
#ifdef GV_PACK_AVX512
        if (p->simd == SIMD_AVX512 && F < ((size_t)1 << 26)) {
            complete_leaves16(p, t, p->depth[t], xs, F, B, has_nan, leaf);
            return;
        }
#endif
        complete_leaves(p, t, p->depth[t], xs, F, B, has_nan, leaf);
        return;
    }
    if (p->off8[t] != SIZE_MAX) { /* a deep tree in 8-byte nodes only */
        const uint32_t *w = p->nodes8 + 2 * p->off8[t];
#ifdef GV_PACK_AVX512
        if (p->simd == SIMD_AVX512 && F < ((size_t)1 << 26)) {
            deep_leaves16w(w, p->fbits, xs, F, B, has_nan, leaf);
            return;
        }
#endif
        for (size_t r = 0; r < B; r++) leaf[r] = walk8(w, p->fbits, xs + r * F);
        return;
    }
    const pack_node *nodes = p->nodes + p->off[t];
    const int depth = p->depth[t];
#ifdef GV_PACK_AVX512
    if (p->simd == SIMD_AVX512 && depth > DEEP_SIMD_DEPTH && F < ((size_t)1 << 26) &&
        p->trees[t]->n_nodes < ((size_t)1 << 29)) { /* 4 * node index within int32 */
        deep_leaves16(nodes, xs, F, B, has_nan, leaf);
        return;
    }
#endif
    size_t r = 0;
    for (; r + LANES <= B; r += LANES) {
        const float *xr = xs + r * F;
        int32_t at[LANES] = {0};
        if (depth <= FIXED_DEPTH) {
            /* every lane takes `depth` steps: no branch, lanes overlap */
            for (int dd = 0; dd < depth; dd++)
                for (int q = 0; q < LANES; q++) at[q] = step(&nodes[at[q]], xr + (size_t)q * F);
        } else {
            /* STRIDE steps for every lane (a lane at its leaf stays there), then one test
             * whether all lanes are at leaves: no branch per lane and step */
            for (;;) {
                for (int k = 0; k < STRIDE; k++)
                    for (int q = 0; q < LANES; q++) at[q] = step(&nodes[at[q]], xr + (size_t)q * F);
                uint32_t all = LEAF_BIT;
                for (int q = 0; q < LANES; q++) all &= nodes[at[q]].info;
                if (all) break;
            }
        }
        memcpy(leaf + r, at, sizeof at);
    }
    for (; r < B; r++) leaf[r] = walk(nodes, xs + r * F);
}
