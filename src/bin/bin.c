/*
 * bin.c -- bin mappers (cut points per numeric feature, category codes) and the binned matrix.
 *
 * Pipeline position: bin/ (reads data/'s raw floats; learn/ reads the binned matrix).
 * Semantics (bin.h): bin 0 is missing; a numeric value x falls in bin 1 + #{cuts < x}; a
 * category code c falls in bin c + 1.
 *
 * Cut points of a numeric feature come from the sorted non-missing values of (a deterministic
 * sample of) the rows, grouped into distinct values v[0] < ... < v[D-1] with counts (integer
 * columns of a small range -- pixels -- are counted instead of sorted: the same groups):
 *  - D <= max_bins: one bin per distinct value, cut i between v[i] and v[i+1];
 *  - D <= 4 max_bins: the rarest adjacent groups merged until max_bins remain (merge_rarest);
 *  - otherwise a greedy quantile pass over the distinct values weighted by their counts, in the
 *    spirit of LightGBM's GreedyFindBin (Ke et al., NIPS 2017, and its bin.cpp): a value
 *    holding at least N/max_bins rows ("big", e.g. the zeros of a sparse feature) gets a bin
 *    of its own, and the other values share the remaining bins evenly, so a feature that is
 *    90% zeros still gets ~max_bins bins for the rest; a big value's bin holds only it.
 * Every cut lies between two neighbouring distinct values lo < hi: the midpoint computed in
 * double and rounded to float, or lo when the rounded midpoint is not strictly between them
 * (neighbouring floats), so lo stays left and hi right of it and cuts increase strictly.
 *
 * Threads: features are independent and each feature's work is sequential, so mappers and the
 * binned matrix are identical for any number of threads.  The row sample (selection sampling,
 * Knuth TAOCP vol. 2, 3.4.2 algorithm S) depends only on n_rows, sample and seed.
 */
#include "bin.h"

#include "../core/streams.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif


/* The number of cut points < x (x not NaN), without data-dependent branches: the bulk binning
 * loop runs it once per value of the training matrix. */
static inline uint32_t count_below(const float *cuts, uint32_t n, float x)
{
    if (n == 0) return 0;
    const float *base = cuts;
    while (n > 1) {
        uint32_t half = n / 2;
        base = base[half] < x ? base + half : base;
        n -= half;
    }
    return (uint32_t)(base - cuts) + (*base < x);
}

/* The 8-bit bins of the n values x[0..n) of a numeric column whose n_cuts cuts are at most
 * 254 (8-bit bins): NaN bin 0, else 1 + count_below.  With AVX2, the cuts padded with +inf to
 * 256 in 16 blocks of 16: s = the blocks whose last cut is < x (all their cuts are < x; the
 * cuts of later blocks are >= block s's last, which is not), then the cuts < x of block s --
 * 4 vector comparisons a value instead of 8 dependent steps of a search; the same counts. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(GROVE_NO_CLONES)
#include <immintrin.h>
__attribute__((target("avx2,popcnt"))) static void bin_values8_avx2(const float *cuts,
                                                                     uint32_t n_cuts,
                                                                     const float *x, size_t n,
                                                                     uint8_t *dst)
{
    float pad[256] __attribute__((aligned(32)));
    float last[16] __attribute__((aligned(32)));
    for (uint32_t j = 0; j < 256; j++) pad[j] = j < n_cuts ? cuts[j] : INFINITY;
    for (uint32_t k = 0; k < 16; k++) last[k] = pad[16 * k + 15];
    const __m256 l0 = _mm256_load_ps(last), l1 = _mm256_load_ps(last + 8);
    const int blocks = n_cuts > 16;
    for (size_t i = 0; i < n; i++) {
        const float v = x[i];
        const __m256 xv = _mm256_set1_ps(v);
        unsigned s = 0;
        if (blocks)
            s = (unsigned)__builtin_popcount(
                (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(l0, xv, _CMP_LT_OQ)) |
                (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(l1, xv, _CMP_LT_OQ)) << 8);
        const float *b = pad + 16 * s;
        const unsigned c =
            16 * s + (unsigned)__builtin_popcount(
                         (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(_mm256_load_ps(b), xv, _CMP_LT_OQ)) |
                         (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(_mm256_load_ps(b + 8), xv, _CMP_LT_OQ)) << 8);
        dst[i] = v != v ? 0 : (uint8_t)(1 + c);
    }
}
#endif

static void bin_values8(const float *cuts, uint32_t n_cuts, const float *x, size_t n, uint8_t *dst)
{
#if defined(__x86_64__) && defined(__GNUC__) && !defined(GROVE_NO_CLONES)
    if (n_cuts <= 254 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt")) {
        bin_values8_avx2(cuts, n_cuts, x, n, dst);
        return;
    }
#endif
    for (size_t i = 0; i < n; i++) dst[i] = isnan(x[i]) ? 0 : (uint8_t)(1 + count_below(cuts, n_cuts, x[i]));
}

uint32_t gv_bin_value(const gv_bin_mapper *m, float x)
{
    if (isnan(x)) return 0;
    if (m->is_categorical) {
        /* Codes come from the schema; anything else (negative, fractional, beyond the last
         * category) cannot be a category and is treated as missing. */
        if (!(x >= 0.0f) || x >= (float)(m->n_bins - 1) || x != floorf(x)) return 0;
        return (uint32_t)x + 1;
    }
    /* 1 + the number of cut points < x: lower bound of x in cuts. */
    uint32_t lo = 0, hi = m->n_cuts;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->cuts[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 1 + lo;
}

void gv_bin_mappers_free(gv_bin_mapper *m, size_t n_features)
{
    if (!m) return;
    for (size_t f = 0; f < n_features; f++) gv_free(m[f].cuts);
    gv_free(m);
}

/* A cut point with lo <= cut < hi (lo < hi): the float midpoint, else lo.  A cut of -inf
 * (lo = -inf) is moved to -FLT_MAX when that still separates, so thresholds stay finite. */
static float cut_between(float lo, float hi)
{
    float c = (float)(((double)lo + (double)hi) / 2.0);
    if (!(c > lo && c < hi)) c = lo;
    if (isinf(c) && c < 0 && hi > -FLT_MAX) c = -FLT_MAX;
    return c;
}

/* Order-preserving map of a float to uint32 (for the radix sort); NaN never reaches it. */
static inline uint32_t float_key(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

/* Sorts a[0..n) ascending (LSD radix sort on float_key, 4 passes of 8 bits); tmp holds n. */
static void sort_floats(float *a, float *tmp, size_t n)
{
    if (n < 64) { /* insertion sort: a sparse feature's few values (radix passes cost 4 x 256) */
        for (size_t i = 1; i < n; i++) {
            float x = a[i];
            size_t j = i;
            for (; j > 0 && a[j - 1] > x; j--) a[j] = a[j - 1];
            a[j] = x;
        }
        return;
    }
    /* the four bytes' counts in one pass (a byte's counts do not depend on the order) */
    size_t count[4][257];
    memset(count, 0, sizeof count);
    for (size_t i = 0; i < n; i++) {
        const uint32_t k = float_key(a[i]);
        count[0][(k & 0xffu) + 1]++;
        count[1][((k >> 8) & 0xffu) + 1]++;
        count[2][((k >> 16) & 0xffu) + 1]++;
        count[3][(k >> 24) + 1]++;
    }
    float *src = a, *dst = tmp;
    for (int pass = 0; pass < 4; pass++) {
        size_t *c = count[pass];
        const int shift = 8 * pass;
        if (c[1] == n && shift > 0) continue; /* all keys share this byte: pass is a no-op */
        for (int b = 0; b < 256; b++) c[b + 1] += c[b];
        for (size_t i = 0; i < n; i++) dst[c[(float_key(src[i]) >> shift) & 0xffu]++] = src[i];
        float *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) memcpy(a, src, n * sizeof *a);
}

/* Few more distinct values than bins (D <= NEAR_FACTOR * max_bins: pixel intensities, small
 * integers): merge the adjacent pair of groups with the smallest combined count (leftmost on
 * ties) until max_bins groups remain.  Every bin is used and only the rarest neighbours share
 * one -- with 256 pixel values and 255 bins a single rare pair is merged, where a quantile pass
 * would merge dozens of values (and cost 1.6 points of accuracy on fashion-MNIST with stumps).
 * O(D (D - max_bins)).  `end[g]` is the last distinct value of group g; returns the cuts. */
#define NEAR_FACTOR 4
static uint32_t merge_rarest(const float *v, const size_t *c, size_t D, int max_bins,
                             size_t *gcount, size_t *end, float *cuts)
{
    size_t G = D;
    for (size_t i = 0; i < D; i++) {
        gcount[i] = c[i];
        end[i] = i;
    }
    while (G > (size_t)max_bins) {
        size_t best = 0, best_sum = SIZE_MAX;
        for (size_t g = 0; g + 1 < G; g++) {
            size_t sum = gcount[g] + gcount[g + 1];
            if (sum < best_sum) {
                best_sum = sum;
                best = g;
            }
        }
        gcount[best] = best_sum;
        end[best] = end[best + 1];
        memmove(gcount + best + 1, gcount + best + 2, (G - best - 2) * sizeof *gcount);
        memmove(end + best + 1, end + best + 2, (G - best - 2) * sizeof *end);
        G--;
    }
    uint32_t n_cuts = 0;
    for (size_t g = 0; g + 1 < G; g++) cuts[n_cuts++] = cut_between(v[end[g]], v[end[g] + 1]);
    return n_cuts;
}

/* Cut points of distinct values v[0..D) with counts c[0..D) (N = sum of counts) into cuts
 * (room for max_bins - 1); returns the number of cuts (<= max_bins - 1).  scratch holds 2 D. */
static uint32_t find_cuts(const float *v, const size_t *c, size_t D, size_t N, int max_bins,
                          float *cuts, size_t *scratch)
{
    uint32_t n_cuts = 0;
    if (D <= (size_t)max_bins) {
        for (size_t i = 0; i + 1 < D; i++) cuts[n_cuts++] = cut_between(v[i], v[i + 1]);
        return n_cuts;
    }
    if (D <= (size_t)NEAR_FACTOR * (size_t)max_bins)
        return merge_rarest(v, c, D, max_bins, scratch, scratch + D, cuts);
    /* A value is big when it alone fills an average bin: big(i) <=> c[i] >= N / max_bins. */
    double big_size = (double)N / max_bins;
    size_t rest_bins = (size_t)max_bins, rest_count = N;
    for (size_t i = 0; i < D; i++) {
        if ((double)c[i] >= big_size) {
            rest_bins--;
            rest_count -= c[i];
        }
    }
    /* Target rows per bin of the non-big values still to place. */
    double mean = rest_bins > 0 ? (double)rest_count / (double)rest_bins : INFINITY;
    double in_bin = 0;
    for (size_t i = 0; i + 1 < D; i++) {
        int big = (double)c[i] >= big_size, next_big = (double)c[i + 1] >= big_size;
        if (!big) rest_count -= c[i];
        in_bin += (double)c[i];
        /* Close the bin after a big value, when it is full, or before a big value (so the big
         * value, e.g. the zero of a sparse feature, gets a bin of its own and "x <= 0" and
         * "x < 0" both remain possible splits). */
        if (big || next_big || in_bin >= mean) {
            cuts[n_cuts++] = cut_between(v[i], v[i + 1]);
            if (n_cuts >= (uint32_t)max_bins - 1) break;
            in_bin = 0;
            if (!big) {
                rest_bins--;
                mean = rest_bins > 0 ? (double)rest_count / (double)rest_bins : INFINITY;
            }
        }
    }
    return n_cuts;
}

/* Per-thread scratch for numeric features: sampled values, sort buffer, distinct values and
 * their counts, cuts. */
typedef struct bin_scratch {
    float *vals, *tmp, *distinct, *cuts;
    size_t *counts, *merge; /* merge: 2 x NEAR_FACTOR x max_bins (merge_rarest) */
} bin_scratch;

/* Values of one column that are all integers in a range of at most SMALL_RANGE (pixel
 * intensities, counts, codes): their distinct values and counts by a counting pass instead of
 * a sort (fashion-MNIST: 784 columns of 60,000 values in 0..255). */
#define SMALL_RANGE 4096

/* 1 when every v[0..n) (n >= 1) is an integer (no NaN, nothing beyond +-1e9) and
 * max - min < SMALL_RANGE, with the minimum in *base and max - min + 1 in *range. */
static int small_int_range(const float *v, size_t n, int32_t *base, size_t *range)
{
    float lo = v[0], hi = v[0];
    int ok = 1;
    /* in chunks of 256 values, stopping at the first that fails (a float column: its first;
     * ok only falls and hi - lo only grows, so the answer is the whole column's) */
    for (size_t i0 = 0; i0 < n; i0 += 256) {
        const size_t i1 = n - i0 > 256 ? i0 + 256 : n;
        for (size_t i = i0; i < i1; i++) {
            /* 0 in place of a value beyond int32 (converting it is undefined): then c != x */
            float x = v[i], c = x >= -1e9f && x <= 1e9f ? x : 0.0f;
            ok &= (c == x) & ((float)(int32_t)c == x);
            lo = x < lo ? x : lo;
            hi = x > hi ? x : hi;
        }
        if (!ok || hi - lo >= (float)SMALL_RANGE) return 0;
    }
    *base = (int32_t)lo;
    *range = (size_t)((int32_t)hi - *base) + 1;
    return 1;
}

/* The distinct values of s->vals[0..n) and their counts, ascending, into s->distinct and
 * s->counts (*D of them) -- what sorting and grouping give, a -0 counted as (and listed as)
 * +0, which changes no cut: cuts lie between neighbours at least 1 apart -- when every value
 * is an integer and max - min < SMALL_RANGE; returns 0 (nothing written) otherwise.  s->tmp
 * (n + 1 floats) holds the counts when n + 1 >= SMALL_RANGE, else the caller sorts anyway. */
static int small_integers(bin_scratch *s, size_t n, size_t *D)
{
    if (n + 1 < SMALL_RANGE || n >= UINT32_MAX) return 0;
    const float *v = s->vals;
    int32_t base;
    size_t range;
    if (!small_int_range(v, n, &base, &range)) return 0;
    uint32_t *count = (uint32_t *)(void *)s->tmp; /* floats and uint32 have one size */
    memset(count, 0, range * sizeof *count);
    for (size_t i = 0; i < n; i++) count[(int32_t)v[i] - base]++;
    size_t k = 0;
    for (size_t j = 0; j < range; j++) {
        if (!count[j]) continue;
        s->distinct[k] = (float)(base + (int32_t)j);
        s->counts[k++] = count[j];
    }
    *D = k;
    return 1;
}

/* Builds the mapper of numeric feature f from rows sample[0..n_sample) (all rows when sample
 * is NULL).  Returns 0, or -1 when out of memory. */
static int build_numeric(const grove_dataset *d, size_t f, const size_t *sample, size_t n_sample,
                         int max_bins, bin_scratch *s, gv_bin_mapper *m)
{
    size_t n = 0, n_default = 0; /* sparse: sampled rows holding the absent value */
    if (d->values) {
        const float *col = d->values + f * d->n_rows;
        for (size_t k = 0; k < n_sample; k++) {
            float x = col[sample ? sample[k] : k];
            if (!isnan(x)) s->vals[n++] = x;
        }
    } else {
        /* the stored values of the sampled rows (both lists ascend), then the absent value
         * once, weighted below by the sampled rows that hold it */
        size_t k = d->sp_col[f], k_end = d->sp_col[f + 1], stored = 0;
        if (sample) { /* each stored row looked up in the sample: O(nnz log sample) */
            for (; k < k_end; k++) {
                size_t lo = 0, hi = n_sample, r = d->sp_row[k];
                while (lo < hi) {
                    size_t mid = lo + (hi - lo) / 2;
                    if (sample[mid] < r)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                if (lo < n_sample && sample[lo] == r) {
                    stored++;
                    if (!isnan(d->sp_val[k])) s->vals[n++] = d->sp_val[k];
                }
            }
        } else {
            for (; k < k_end; k++, stored++)
                if (!isnan(d->sp_val[k])) s->vals[n++] = d->sp_val[k];
        }
        n_default = n_sample - stored;
        if (isnan(d->sp_default)) n_default = 0;
        if (n_default > 0) s->vals[n++] = d->sp_default;
    }
    size_t D = 0;
    if (d->values && small_integers(s, n, &D)) goto cuts;
    sort_floats(s->vals, s->tmp, n);
    int default_seen = 0;
    for (size_t i = 0; i < n; i++) {
        size_t c = 1;
        if (n_default > 0 && !default_seen && s->vals[i] == d->sp_default) {
            c = n_default;
            default_seen = 1;
        }
        if (D > 0 && s->vals[i] == s->distinct[D - 1]) {
            s->counts[D - 1] += c;
        } else {
            s->distinct[D] = s->vals[i];
            s->counts[D++] = c;
        }
    }
    if (n_default > 0) n += n_default - 1;
cuts:;
    uint32_t n_cuts = find_cuts(s->distinct, s->counts, D, n, max_bins, s->cuts, s->merge);
    m->is_categorical = 0;
    m->n_cuts = n_cuts;
    m->n_bins = n_cuts + 2;
    m->cuts = NULL;
    if (n_cuts > 0) {
        m->cuts = gv_malloc_array(n_cuts, sizeof *m->cuts);
        if (!m->cuts) return -1;
        memcpy(m->cuts, s->cuts, n_cuts * sizeof *m->cuts);
    }
    return 0;
}

grove_status gv_bin_mappers_build(const grove_dataset *d, int max_bins, size_t sample,
                                  uint64_t seed, int n_threads, gv_bin_mapper **out)
{
    if (!out) return gv_err(GROVE_ERR_ARG, "gv_bin_mappers_build: out is NULL");
    *out = NULL;
    if (!d || !d->schema) return gv_err(GROVE_ERR_ARG, "gv_bin_mappers_build: dataset is NULL");
    if (max_bins < 2 || max_bins > 65535)
        return gv_err(GROVE_ERR_ARG, "max_bins: must be in [2, 65535], got %d", max_bins);
    const grove_schema *schema = d->schema;
    size_t F = schema->n_features, n_rows = d->n_rows;
    for (size_t f = 0; f < F; f++) {
        if (schema->is_categorical[f] && schema->categories[f].n > 65535)
            return gv_err(GROVE_ERR_DATA,
                          "feature '%s': %zu categories, at most 65535 are supported",
                          schema->feature_names[f], schema->categories[f].n);
    }
    int nt = n_threads > 0 ? n_threads : 1;
#ifndef _OPENMP
    nt = 1;
#endif

    grove_status st = GROVE_OK;
    size_t *rows = NULL;
    bin_scratch *scratch = NULL;
    unsigned char *failed = NULL;
    gv_bin_mapper *m = gv_calloc(F, sizeof *m);
    if (!m) return gv_err_nomem("bin mappers");

    /* The rows whose values choose the cuts: all, or `sample` of them by selection sampling
     * (each row is taken with probability needed / remaining, so exactly `sample` rows are
     * taken, in increasing order). */
    size_t n_sample = n_rows;
    if (sample > 0 && n_rows > sample) {
        rows = gv_malloc_array(sample, sizeof *rows);
        if (!rows) goto nomem;
        gv_rng rng;
        gv_rng_seed(&rng, seed, GV_STREAM_BIN, 0);
        size_t taken = 0;
        for (size_t i = 0; i < n_rows && taken < sample; i++) {
            if ((double)(n_rows - i) * gv_rng_uniform(&rng) < (double)(sample - taken))
                rows[taken++] = i;
        }
        n_sample = sample;
    }

    scratch = gv_calloc((size_t)nt, sizeof *scratch);
    failed = gv_calloc(F ? F : 1, 1);
    if (!scratch || !failed) goto nomem;
    for (int t = 0; t < nt; t++) { /* n_sample + 1: a sparse feature's absent value */
        scratch[t].vals = gv_malloc_array(n_sample + 1, sizeof(float));
        scratch[t].tmp = gv_malloc_array(n_sample + 1, sizeof(float));
        scratch[t].distinct = gv_malloc_array(n_sample + 1, sizeof(float));
        scratch[t].counts = gv_malloc_array(n_sample + 1, sizeof(size_t));
        scratch[t].merge = gv_malloc_array(2 * NEAR_FACTOR * (size_t)max_bins, sizeof(size_t));
        scratch[t].cuts = gv_malloc_array((size_t)max_bins, sizeof(float));
        if (!scratch[t].vals || !scratch[t].tmp || !scratch[t].distinct || !scratch[t].counts || !scratch[t].merge ||
            !scratch[t].cuts)
            goto nomem;
    }

#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1 && F > 1)
#endif
    for (size_t f = 0; f < F; f++) {
        int t = 0;
#ifdef _OPENMP
        t = omp_get_thread_num();
#endif
        if (schema->is_categorical[f]) {
            m[f].is_categorical = 1;
            m[f].n_bins = (uint32_t)schema->categories[f].n + 1;
            m[f].n_cuts = 0;
            m[f].cuts = NULL;
        } else if (build_numeric(d, f, rows, n_sample, max_bins, &scratch[t], &m[f]) != 0) {
            failed[f] = 1;
        }
    }
    for (size_t f = 0; f < F; f++)
        if (failed[f]) goto nomem;
    goto done;

nomem:
    st = gv_err_nomem("bin mappers");
    gv_bin_mappers_free(m, F);
    m = NULL;
done:
    if (scratch) {
        for (int t = 0; t < nt; t++) {
            gv_free(scratch[t].vals);
            gv_free(scratch[t].tmp);
            gv_free(scratch[t].distinct);
            gv_free(scratch[t].counts);
            gv_free(scratch[t].merge);
            gv_free(scratch[t].cuts);
        }
    }
    gv_free(scratch);
    gv_free(failed);
    gv_free(rows);
    *out = m;
    return st;
}

grove_status gv_binned_repeat(const gv_binned *b, size_t k, gv_binned **out)
{
    *out = NULL;
    if (b->csr_ptr)
        return gv_err(GROVE_ERR_ARG, "sparse input: the pseudo-loss criterion (adaboost.m2) needs "
                      "dense data; set base.criterion=gini, or load the file as dense");
    size_t n, cells;
    if (gv_mul_size(b->n_rows, k, &n) != 0 || gv_mul_size(n, b->n_features, &cells) != 0)
        return gv_err(GROVE_ERR_ARG, "%zu rows x %zu copies x %zu features overflow", b->n_rows,
                      k, b->n_features);
    gv_binned *r = gv_calloc(1, sizeof *r);
    if (!r) return gv_err_nomem("the repeated bins");
    r->n_rows = n;
    r->n_features = b->n_features;
    r->mappers = b->mappers;
    r->wide = b->wide;
    if (b->wide)
        r->bins16 = gv_malloc_array(cells, sizeof *r->bins16);
    else
        r->bins8 = gv_malloc_array(cells, sizeof *r->bins8);
    if (!r->bins8 && !r->bins16) {
        gv_free(r);
        char what[96];
        snprintf(what, sizeof what, "the repeated bins (%zu rows x %zu features)", n,
                 b->n_features);
        return gv_err_nomem(what);
    }
    for (size_t f = 0; f < b->n_features; f++)
        for (size_t i = 0; i < b->n_rows; i++)
            for (size_t j = 0; j < k; j++) {
                size_t from = f * b->n_rows + i, to = f * n + i * k + j;
                if (b->wide)
                    r->bins16[to] = b->bins16[from];
                else
                    r->bins8[to] = b->bins8[from];
            }
    *out = r;
    return GROVE_OK;
}

void gv_binned_free(gv_binned *b)
{
    if (!b) return;
    if (b->sparse_rows)
        for (size_t f = 0; f < b->n_features; f++) gv_free(b->sparse_rows[f]);
    gv_free(b->sparse_rows);
    gv_free(b->n_sparse);
    gv_free(b->mode_bin);
    gv_free(b->root_count);
    gv_free(b->root_count_off);
    gv_free(b->bins8);
    gv_free(b->bins16);
    gv_free(b->csr_ptr);
    gv_free(b->csr_feat);
    gv_free(b->csr_bin);
    gv_free(b->default_bin);
    gv_free(b->csc_ptr);
    gv_free(b->csc_row);
    gv_free(b->csc_bin);
    gv_free(b);
}

/* The compressed rows of a sparse dataset (bin.h): each stored value whose bin differs from
 * its feature's absent-value bin, row by row, features ascending. */
static grove_status build_csr(const grove_dataset *d, gv_binned *b)
{
    size_t F = b->n_features, n = b->n_rows, nnz = 0;
    const gv_bin_mapper *mp = b->mappers;
    b->default_bin = gv_malloc_array(F ? F : 1, sizeof *b->default_bin);
    b->csr_ptr = gv_calloc(n + 1, sizeof *b->csr_ptr);
    if (!b->default_bin || !b->csr_ptr) return gv_err_nomem("binned matrix");
    for (size_t f = 0; f < F; f++) {
        uint32_t z = gv_bin_value(&mp[f], d->sp_default);
        b->default_bin[f] = z;
        for (size_t k = d->sp_col[f]; k < d->sp_col[f + 1]; k++)
            if (gv_bin_value(&mp[f], d->sp_val[k]) != z) b->csr_ptr[d->sp_row[k] + 1]++;
    }
    for (size_t i = 0; i < n; i++) b->csr_ptr[i + 1] += b->csr_ptr[i];
    nnz = b->csr_ptr[n];
    b->csr_feat = gv_malloc_array(nnz, sizeof *b->csr_feat);
    b->csr_bin = gv_malloc_array(nnz, sizeof *b->csr_bin);
    size_t *next = gv_malloc_array(n + 1, sizeof *next);
    if (!b->csr_feat || !b->csr_bin || !next) {
        gv_free(next);
        return gv_err_nomem("binned matrix");
    }
    b->csc_ptr = gv_malloc_array(F + 1, sizeof *b->csc_ptr);
    b->csc_row = gv_malloc_array(nnz, sizeof *b->csc_row);
    b->csc_bin = gv_malloc_array(nnz, sizeof *b->csc_bin);
    if (!b->csc_ptr || !b->csc_row || !b->csc_bin) {
        gv_free(next);
        return gv_err_nomem("binned matrix");
    }
    memcpy(next, b->csr_ptr, (n + 1) * sizeof *next);
    size_t c = 0;
    for (size_t f = 0; f < F; f++) { /* features in order, so each row's features ascend */
        b->csc_ptr[f] = c;
        for (size_t k = d->sp_col[f]; k < d->sp_col[f + 1]; k++) {
            uint32_t bin = gv_bin_value(&mp[f], d->sp_val[k]);
            if (bin == b->default_bin[f]) continue;
            size_t at = next[d->sp_row[k]]++;
            b->csr_feat[at] = (uint32_t)f;
            b->csr_bin[at] = (uint16_t)bin;
            b->csc_row[c] = d->sp_row[k];
            b->csc_bin[c++] = (uint16_t)bin;
        }
    }
    b->csc_ptr[F] = c;
    gv_free(next);
    return GROVE_OK;
}

/* The sparse row list of feature f when its most frequent bin holds at least half of the rows
 * (bin.h); leaves the feature dense when it does not or memory is short. */
static void find_sparse(gv_binned *b, size_t f, const uint32_t *counted, double *collision)
{
    size_t n = b->n_rows, nb = b->mappers[f].n_bins;
    size_t *count = gv_calloc(nb, sizeof *count);
    *collision = 0;
    if (!count) {
        b->mode_bin[f] = UINT32_MAX; /* marks root_count[f] as not filled */
        return;
    }
    if (counted) /* by the binning pass (8-bit bins) */
        for (size_t k = 0; k < nb; k++) count[k] = counted[k];
    else
        for (size_t i = 0; i < n; i++) count[gv_bin_at(b, f, i)]++;
    if (b->root_count)
        for (size_t k = 0; k < nb; k++) b->root_count[b->root_count_off[f] + k] = (double)count[k];
    size_t mode = 0;
    for (size_t k = 1; k < nb; k++)
        if (count[k] > count[mode]) mode = k;
    for (size_t k = 0; k < nb; k++) *collision += ((double)count[k] / (double)n) * ((double)count[k] / (double)n);
    size_t other = n - count[mode];
    gv_free(count);
    if (2 * other > n) return;
    uint32_t *rows = gv_malloc_array(other ? other : 1, sizeof *rows);
    if (!rows) return;
    size_t j = 0;
    for (size_t i = 0; i < n; i++)
        if (gv_bin_at(b, f, i) != mode) rows[j++] = (uint32_t)i;
    b->mode_bin[f] = (uint32_t)mode;
    b->n_sparse[f] = other;
    b->sparse_rows[f] = rows;
}

/* The 8-bit bins of a numeric column whose values are all integers within SMALL_RANGE of each
 * other (no NaN): one table lookup per value, the table holding 1 + count_below of each integer
 * of the range (the very bins of the search).  Returns 0 (nothing written) otherwise. */
static int bin_small_integers(const float *col, size_t n, const gv_bin_mapper *m, uint8_t *dst)
{
    if (n < 4 * SMALL_RANGE) return 0; /* the table would cost more than the searches */
    int32_t base;
    size_t range;
    if (!small_int_range(col, n, &base, &range)) return 0;
    uint8_t lut[SMALL_RANGE];
    for (size_t j = 0; j < range; j++)
        lut[j] = (uint8_t)(1 + count_below(m->cuts, m->n_cuts, (float)(base + (int32_t)j)));
    for (size_t i = 0; i < n; i++) dst[i] = lut[(int32_t)col[i] - base];
    return 1;
}

/* Adds the rows of each 8-bit bin of dst[0..n) into c[0..4)[bin] (four tables, so that a run
 * of one bin does not wait on its own last addition; counts are exact in any order). */
static void count_bins8(const uint8_t *dst, size_t n, uint32_t (*c)[256])
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        c[0][dst[i]]++;
        c[1][dst[i + 1]]++;
        c[2][dst[i + 2]]++;
        c[3][dst[i + 3]]++;
    }
    for (; i < n; i++) c[0][dst[i]]++;
}

/* Rows a chunk of the binning pass: binned, then counted while in L1 */
#define BIN_CHUNK 8192

grove_status gv_binned_build(const grove_dataset *d, const gv_bin_mapper *mappers,
                             int n_threads, gv_binned **out)
{
    if (!out) return gv_err(GROVE_ERR_ARG, "gv_binned_build: out is NULL");
    *out = NULL;
    if (!d || !d->schema || !mappers)
        return gv_err(GROVE_ERR_ARG, "gv_binned_build: dataset or mappers is NULL");
    size_t F = d->schema->n_features, n = d->n_rows, cells;
    int nt = n_threads > 0 ? n_threads : 1;
    gv_binned *b = gv_calloc(1, sizeof *b);
    if (!b) return gv_err_nomem("binned matrix");
    b->n_rows = n;
    b->n_features = F;
    b->mappers = mappers;
    for (size_t f = 0; f < F; f++)
        if (mappers[f].n_bins > 256) b->wide = 1;
    if (!d->values) {
        grove_status st = build_csr(d, b);
        if (st != GROVE_OK) {
            gv_binned_free(b);
            return st;
        }
        *out = b;
        return GROVE_OK;
    }
    if (gv_mul_size(F, n, &cells) != 0) {
        gv_binned_free(b);
        return gv_err_nomem("binned matrix (size overflow)");
    }
    if (b->wide)
        b->bins16 = gv_malloc_array(cells, sizeof *b->bins16);
    else
        b->bins8 = gv_malloc_huge_array(cells, sizeof *b->bins8);
    if (!b->bins8 && !b->bins16) {
        gv_binned_free(b);
        return gv_err_nomem("binned matrix");
    }
    (void)nt;
    /* with 8-bit bins and the sparse lists to find, each feature's rows per bin counted by the
     * binning pass (find_sparse's counts; without memory, find_sparse counts them) */
    const int sparse_pass = n >= GV_SPARSE_MIN_ROWS && n <= UINT32_MAX;
    uint32_t *counted =
        sparse_pass && !b->wide ? gv_calloc(F ? F : 1, 256 * sizeof *counted) : NULL;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && cells > 65536)
#endif
    for (size_t f = 0; f < F; f++) {
        const float *col = d->values + f * n;
        const gv_bin_mapper *m = &mappers[f];
        uint8_t *dst8 = b->bins8 ? b->bins8 + f * n : NULL;
        uint32_t c4[4][256], (*cnt)[256] = counted ? c4 : NULL;
        if (cnt) memset(c4, 0, sizeof c4);
        if (b->wide) {
            uint16_t *dst = b->bins16 + f * n;
            for (size_t i = 0; i < n; i++) dst[i] = (uint16_t)gv_bin_value(m, col[i]);
        } else if (m->is_categorical) {
            for (size_t i = 0; i < n; i++) dst8[i] = (uint8_t)gv_bin_value(m, col[i]);
            if (cnt) count_bins8(dst8, n, cnt);
        } else if (bin_small_integers(col, n, m, dst8)) {
            if (cnt) count_bins8(dst8, n, cnt);
        } else {
            for (size_t i0 = 0; i0 < n; i0 += BIN_CHUNK) {
                const size_t len = n - i0 < BIN_CHUNK ? n - i0 : BIN_CHUNK;
                bin_values8(m->cuts, m->n_cuts, col + i0, len, dst8 + i0);
                if (cnt) count_bins8(dst8 + i0, len, cnt);
            }
        }
        if (cnt)
            for (size_t k = 0; k < 256; k++)
                counted[f * 256 + k] = c4[0][k] + c4[1][k] + c4[2][k] + c4[3][k];
    }
    if (sparse_pass) {
        b->mode_bin = gv_calloc(F, sizeof *b->mode_bin);
        b->n_sparse = gv_calloc(F, sizeof *b->n_sparse);
        b->sparse_rows = gv_calloc(F, sizeof *b->sparse_rows);
        size_t any = 0, total_bins = 0;
        b->root_count_off = gv_malloc_array(F ? F : 1, sizeof *b->root_count_off);
        if (b->root_count_off) {
            for (size_t f = 0; f < F; f++) {
                b->root_count_off[f] = total_bins;
                total_bins += mappers[f].n_bins;
            }
            b->root_count = gv_malloc_array(total_bins ? total_bins : 1, sizeof *b->root_count);
        }
        if (!b->root_count) { /* an optimization only: without memory, count as before */
            gv_free(b->root_count_off);
            b->root_count_off = NULL;
        }
        double *coll_f = gv_calloc(F ? F : 1, sizeof *coll_f); /* each feature's sum_k p_k^2 */
        if (b->mode_bin && b->n_sparse && b->sparse_rows && coll_f) {
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(dynamic, 4) if (nt > 1 && F > 1)
#endif
            for (size_t f = 0; f < F; f++)
                find_sparse(b, f, counted ? counted + f * 256 : NULL, &coll_f[f]);
            int filled = 1;
            double coll = 0;
            for (size_t f = 0; f < F; f++) {
                any += b->sparse_rows[f] != NULL;
                filled &= b->mode_bin[f] != UINT32_MAX;
                coll += coll_f[f];
            }
            b->bin_collision = F ? coll / (double)F : 0;
            if (!filled) {
                gv_free(b->root_count);
                gv_free(b->root_count_off);
                b->root_count = NULL;
                b->root_count_off = NULL;
            }
        } else {
            gv_free(b->root_count); /* its counts are filled by find_sparse */
            gv_free(b->root_count_off);
            b->root_count = NULL;
            b->root_count_off = NULL;
        }
        gv_free(coll_f);
        if (!any) { /* no sparse feature (or no memory for the lists): NULL arrays, bin.h */
            gv_free(b->mode_bin);
            gv_free(b->n_sparse);
            gv_free(b->sparse_rows);
            b->mode_bin = NULL;
            b->n_sparse = NULL;
            b->sparse_rows = NULL;
        }
    }
    gv_free(counted);
    *out = b;
    return GROVE_OK;
}


void gv_bundles_free(gv_bundles *p)
{
    gv_free(p);
}

/* one buffer: the struct, then its arrays (the largest alignment first) */
static gv_bundles *bundles_alloc(size_t F, size_t n_cols, size_t n_bundles, size_t n_members)
{
    size_t sz = sizeof(gv_bundles);
    sz = (sz + 7) & ~(size_t)7;
    const size_t o_col = sz;
    sz += n_cols * sizeof(int32_t);
    const size_t o_cb = sz;
    sz += n_cols * sizeof(uint32_t);
    const size_t o_mo = sz;
    sz += (n_bundles + 1) * sizeof(uint32_t);
    const size_t o_m = sz;
    sz += n_members * sizeof(uint32_t);
    const size_t o_enc = sz;
    sz += n_members * 256;
    const size_t o_dec = sz;
    sz += n_members * 256;
    unsigned char *mem = gv_calloc(1, sz);
    if (!mem) return NULL;
    gv_bundles *p = (gv_bundles *)(void *)mem;
    p->n_features = F;
    p->n_cols = n_cols;
    p->n_bundles = n_bundles;
    p->col = (int32_t *)(void *)(mem + o_col);
    p->col_bins = (uint32_t *)(void *)(mem + o_cb);
    p->member_off = (uint32_t *)(void *)(mem + o_mo);
    p->members = (uint32_t *)(void *)(mem + o_m);
    p->enc = mem + o_enc;
    p->dec = mem + o_dec;
    return p;
}

grove_status gv_bundles_build(const gv_binned *b, gv_bundles **out)
{
    *out = NULL;
    const size_t F = b->n_features, n = b->n_rows;
    if (b->wide || !b->bins8 || b->csr_ptr || F < 2 || n == 0 || F > INT32_MAX) return GROVE_OK;
    /* each feature's used bins: flags[f * 256 + x] */
    uint8_t *flags = gv_calloc(F, 256);
    uint32_t *used = gv_calloc(F, sizeof *used);
    uint32_t *cand = gv_malloc_array(F, sizeof *cand);
    uint32_t *bund = gv_malloc_array(F, sizeof *bund); /* feature's bundle, or UINT32_MAX */
    if (!flags || !used || !cand || !bund) {
        gv_free(flags);
        gv_free(used);
        gv_free(cand);
        gv_free(bund);
        return gv_err_nomem("feature bundles");
    }
    size_t n_cand = 0;
    for (size_t f = 0; f < F; f++) {
        uint8_t *fl = flags + f * 256;
        if (b->root_count) {
            const double *cnt = b->root_count + b->root_count_off[f];
            for (size_t x = 0; x < b->mappers[f].n_bins && x < 256; x++) fl[x] = cnt[x] > 0;
        } else {
            const uint8_t *colp = b->bins8 + f * n;
            for (size_t i = 0; i < n; i++) fl[colp[i]] = 1;
        }
        for (size_t x = 0; x < 256; x++) used[f] += fl[x];
        bund[f] = UINT32_MAX;
        if (used[f] <= GV_BUNDLE_MAX_USED) cand[n_cand++] = (uint32_t)f;
    }
    /* fewest used bins first, then by index (insertion sort: stable, few candidates) */
    for (size_t i = 1; i < n_cand; i++) {
        uint32_t c = cand[i];
        size_t j = i;
        for (; j > 0 && used[cand[j - 1]] > used[c]; j--) cand[j] = cand[j - 1];
        cand[j] = c;
    }
    /* greedy packing: a bundle closes when the next candidate does not fit */
    size_t n_bundles = 0, n_members = 0;
    for (size_t i = 0; i < n_cand;) {
        size_t j = i, prod = 1;
        while (j < n_cand && j - i < GV_BUNDLE_MAX_MEMBERS && prod * used[cand[j]] <= 256)
            prod *= used[cand[j++]];
        if (j - i >= 2) {
            for (size_t k = i; k < j; k++) bund[cand[k]] = (uint32_t)n_bundles;
            n_bundles++;
            n_members += j - i;
        }
        i = j > i ? j : i + 1;
    }
    grove_status st = GROVE_OK;
    if (n_bundles > 0) {
        const size_t n_cols = F - n_members + n_bundles;
        gv_bundles *p = bundles_alloc(F, n_cols, n_bundles, n_members);
        if (!p) {
            st = gv_err_nomem("feature bundles");
        } else {
            size_t c = 0, m = 0;
            for (size_t f = 0; f < F; f++)
                if (bund[f] == UINT32_MAX) {
                    p->col[c] = (int32_t)f;
                    p->col_bins[c++] = b->mappers[f].n_bins;
                }
            for (size_t bi = 0; bi < n_bundles; bi++) {
                p->member_off[bi] = (uint32_t)m;
                size_t stride = 1;
                for (size_t f = 0; f < F; f++) {
                    if (bund[f] != bi) continue;
                    p->members[m] = (uint32_t)f;
                    const uint8_t *fl = flags + f * 256;
                    uint8_t *enc = p->enc + m * 256;
                    for (size_t x = 0, r = 0; x < 256; x++)
                        if (fl[x]) enc[x] = (uint8_t)(r++ * stride);
                    stride *= used[f];
                    m++;
                }
                /* joint bin j: member k's rank (j / stride_k) % used_k, its bin the rank-th used */
                for (size_t k = p->member_off[bi], s = 1; k < m; k++) {
                    const size_t f = p->members[k], u = used[f];
                    const uint8_t *fl = flags + f * 256;
                    uint8_t bins[256];
                    for (size_t x = 0, r = 0; x < 256; x++)
                        if (fl[x]) bins[r++] = (uint8_t)x;
                    for (size_t jb = 0; jb < stride; jb++) p->dec[k * 256 + jb] = bins[jb / s % u];
                    s *= u;
                }
                p->col[c] = -1 - (int32_t)bi;
                p->col_bins[c++] = (uint32_t)stride;
            }
            p->member_off[n_bundles] = (uint32_t)m;
            *out = p;
        }
    }
    gv_free(flags);
    gv_free(used);
    gv_free(cand);
    gv_free(bund);
    return st;
}

/* rows_major reads its columns ROWS_AHEAD rows (bytes) ahead of its tile: 28 column streams
 * (1M x 28) outrun the hardware's prefetch, and the loads missed (68 % of its samples) */
#define ROWS_AHEAD 512

/* The rows of `b` row-major, C bytes each: with plan p its columns (a feature's bin or its
 * bundle's joint bin), without one every feature (C = n_features).  Tiles of 64 rows x all
 * columns: each column read is one cache line. */
static grove_status rows_major(const gv_binned *b, const gv_bundles *p, int n_threads,
                               uint8_t **out)
{
    *out = NULL;
    const size_t n = b->n_rows, C = p ? p->n_cols : b->n_features;
    size_t len;
    if (gv_mul_size(n, C, &len) != 0) return gv_err_nomem("row-major bins (size overflow)");
    uint8_t *r = gv_malloc_huge(len ? len : 1);
    if (!r) return gv_err_nomem("row-major bins");
    const long n_tiles = (long)((n + 63) / 64);
    (void)n_threads;
#ifdef _OPENMP
#pragma omp parallel for num_threads(n_threads) schedule(static) if (n_threads > 1 && n >= 65536)
#endif
    for (long t = 0; t < n_tiles; t++) {
        size_t lo = (size_t)t * 64, hi = lo + 64 < n ? lo + 64 : n;
        for (size_t c = 0; c < C; c++) {
            const int32_t src = p ? p->col[c] : (int32_t)c;
            if (src >= 0) {
                const uint8_t *colp = b->bins8 + (size_t)src * n;
                if (hi + ROWS_AHEAD < n) __builtin_prefetch(colp + hi + ROWS_AHEAD);
                for (size_t i = lo; i < hi; i++) r[i * C + c] = colp[i];
                continue;
            }
            const size_t bi = (size_t)(-1 - src);
            for (size_t i = lo; i < hi; i++) r[i * C + c] = 0;
            for (size_t k = p->member_off[bi]; k < p->member_off[bi + 1]; k++) {
                const uint8_t *colp = b->bins8 + (size_t)p->members[k] * n;
                const uint8_t *enc = p->enc + k * 256;
                if (hi + ROWS_AHEAD < n) __builtin_prefetch(colp + hi + ROWS_AHEAD);
                for (size_t i = lo; i < hi; i++) r[i * C + c] = (uint8_t)(r[i * C + c] + enc[colp[i]]);
            }
        }
    }
    *out = r;
    return GROVE_OK;
}

grove_status gv_binned_row_major(const gv_binned *b, int n_threads, uint8_t **out)
{
    *out = NULL;
    if (b->wide || b->csr_ptr || b->n_features == 0 || b->n_rows == 0) return GROVE_OK;
    return rows_major(b, NULL, n_threads, out);
}

grove_status gv_bundles_row_major(const gv_binned *b, const gv_bundles *p, int n_threads,
                                  uint8_t **out)
{
    return rows_major(b, p, n_threads, out);
}
