/*
 * test_bin.c -- bin mappers and the binned matrix: exact bin semantics, one bin per distinct
 * value, quantiles with heavy ties, sampling, determinism across thread counts, 16-bit
 * storage, categorical limits and out-of-memory paths.
 */
#include "check.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

#include "bin/bin.h"

/* A dataset of n rows and n_num numeric + n_cat categorical features (categorical ones get
 * `n_categories` categories named c0..), values NaN. */
static grove_dataset *make_data(size_t n, size_t n_num, size_t n_cat, size_t n_categories)
{
    grove_schema *s = gv_schema_new(n_num + n_cat);
    if (!s) return NULL;
    for (size_t f = n_num; f < n_num + n_cat; f++) {
        s->is_categorical[f] = 1;
        for (size_t c = 0; c < n_categories; c++) {
            char name[32];
            snprintf(name, sizeof name, "c%zu", c);
            if (gv_dict_add(&s->categories[f], name, strlen(name)) < 0) {
                gv_schema_free(s);
                return NULL;
            }
        }
    }
    return gv_dataset_new(s, n, 0);
}

static void set(grove_dataset *d, size_t f, size_t i, float x) { d->values[f * d->n_rows + i] = x; }

/* Checks the bin.h contract of mapper m on value x: cuts[b-2] < x <= cuts[b-1]. */
static int bin_contract_ok(const gv_bin_mapper *m, float x)
{
    uint32_t b = gv_bin_value(m, x);
    if (isnan(x)) return b == 0;
    if (b < 1 || b > m->n_cuts + 1) return 0;
    if (b >= 2 && !(m->cuts[b - 2] < x)) return 0;
    if (b <= m->n_cuts && !(x <= m->cuts[b - 1])) return 0;
    return 1;
}

static int cuts_increasing(const gv_bin_mapper *m)
{
    for (uint32_t i = 0; i + 1 < m->n_cuts; i++)
        if (!(m->cuts[i] < m->cuts[i + 1])) return 0;
    for (uint32_t i = 0; i < m->n_cuts; i++)
        if (!isfinite(m->cuts[i])) return 0;
    return m->is_categorical || m->n_bins == m->n_cuts + 2;
}

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

static void test_exact_semantics(void)
{
    grove_dataset *d = make_data(7, 1, 1, 3);
    CHECK(d != NULL);
    float v[7] = {1, 2, 3, NAN, 2, 5, 1};
    float c[7] = {0, 1, 2, NAN, 2, 0, 1};
    for (size_t i = 0; i < 7; i++) {
        set(d, 0, i, v[i]);
        set(d, 1, i, c[i]);
    }
    gv_bin_mapper *m = NULL;
    CHECK_OK(gv_bin_mappers_build(d, 255, 0, 1, 1, &m));
    CHECK_EQ_INT(m[0].is_categorical, 0);
    CHECK_EQ_INT(m[0].n_cuts, 3);
    CHECK_EQ_INT(m[0].n_bins, 5);
    CHECK_EQ_DBL(m[0].cuts[0], 1.5f);
    CHECK_EQ_DBL(m[0].cuts[1], 2.5f);
    CHECK_EQ_DBL(m[0].cuts[2], 4.0f);
    CHECK_EQ_INT(gv_bin_value(&m[0], 1), 1);
    CHECK_EQ_INT(gv_bin_value(&m[0], 2), 2);
    CHECK_EQ_INT(gv_bin_value(&m[0], 3), 3);
    CHECK_EQ_INT(gv_bin_value(&m[0], 5), 4);
    CHECK_EQ_INT(gv_bin_value(&m[0], NAN), 0);
    CHECK_EQ_INT(gv_bin_value(&m[0], -100), 1);
    CHECK_EQ_INT(gv_bin_value(&m[0], 1.5f), 1); /* x <= cut stays left */
    CHECK_EQ_INT(gv_bin_value(&m[0], 1.50001f), 2);
    CHECK_EQ_INT(gv_bin_value(&m[0], 4.0f), 3);
    CHECK_EQ_INT(gv_bin_value(&m[0], 1e30f), 4);
    CHECK_EQ_INT(gv_bin_value(&m[0], INFINITY), 4);
    CHECK_EQ_INT(m[1].is_categorical, 1);
    CHECK_EQ_INT(m[1].n_bins, 4);
    CHECK_EQ_INT(m[1].n_cuts, 0);
    CHECK_EQ_INT(gv_bin_value(&m[1], 0), 1);
    CHECK_EQ_INT(gv_bin_value(&m[1], 2), 3);
    CHECK_EQ_INT(gv_bin_value(&m[1], NAN), 0);
    CHECK_EQ_INT(gv_bin_value(&m[1], 3), 0);    /* not a category: missing */
    CHECK_EQ_INT(gv_bin_value(&m[1], -1), 0);
    CHECK_EQ_INT(gv_bin_value(&m[1], 0.5f), 0);

    gv_binned *b = NULL;
    CHECK_OK(gv_binned_build(d, m, 1, &b));
    CHECK_EQ_INT(b->wide, 0);
    CHECK_EQ_INT(b->n_rows, 7);
    CHECK_EQ_INT(b->n_features, 2);
    uint32_t want0[7] = {1, 2, 3, 0, 2, 4, 1}, want1[7] = {1, 2, 3, 0, 3, 1, 2};
    for (size_t i = 0; i < 7; i++) {
        CHECK_EQ_INT(gv_bin_at(b, 0, i), want0[i]);
        CHECK_EQ_INT(gv_bin_at(b, 1, i), want1[i]);
    }
    gv_binned_free(b);
    gv_bin_mappers_free(m, 2);
    grove_dataset_free(d);
}

static void test_edge_values(void)
{
    /* neighbouring floats (the midpoint rounds onto one of them), infinities, constant and
     * all-missing features */
    grove_dataset *d = make_data(4, 3, 0, 0);
    float lo = 1.0f, hi = nextafterf(1.0f, 2.0f);
    float v0[4] = {lo, hi, lo, hi};
    float v1[4] = {-INFINITY, 0, INFINITY, 0};
    for (size_t i = 0; i < 4; i++) {
        set(d, 0, i, v0[i]);
        set(d, 1, i, v1[i]);
        set(d, 2, i, i == 3 ? NAN : 7.0f);
    }
    gv_bin_mapper *m = NULL;
    CHECK_OK(gv_bin_mappers_build(d, 255, 0, 1, 1, &m));
    CHECK_EQ_INT(m[0].n_cuts, 1);
    CHECK_EQ_DBL(m[0].cuts[0], lo);
    CHECK_EQ_INT(gv_bin_value(&m[0], lo), 1);
    CHECK_EQ_INT(gv_bin_value(&m[0], hi), 2);
    CHECK_EQ_INT(m[1].n_cuts, 2);
    CHECK(cuts_increasing(&m[1]));
    CHECK_EQ_DBL(m[1].cuts[0], -FLT_MAX);
    CHECK_EQ_DBL(m[1].cuts[1], 0.0f);
    CHECK_EQ_INT(gv_bin_value(&m[1], -INFINITY), 1);
    CHECK_EQ_INT(gv_bin_value(&m[1], 0), 2);
    CHECK_EQ_INT(gv_bin_value(&m[1], INFINITY), 3);
    CHECK_EQ_INT(m[2].n_cuts, 0);
    CHECK_EQ_INT(m[2].n_bins, 2);
    CHECK_EQ_INT(gv_bin_value(&m[2], 7.0f), 1);
    CHECK_EQ_INT(gv_bin_value(&m[2], NAN), 0);
    gv_bin_mappers_free(m, 3);
    grove_dataset_free(d);

    d = make_data(3, 1, 0, 0); /* all missing */
    CHECK_OK(gv_bin_mappers_build(d, 255, 0, 1, 1, &m));
    CHECK_EQ_INT(m[0].n_bins, 2);
    CHECK_EQ_INT(m[0].n_cuts, 0);
    gv_bin_mappers_free(m, 1);
    grove_dataset_free(d);

    d = make_data(0, 2, 1, 2); /* no rows */
    CHECK_OK(gv_bin_mappers_build(d, 255, 0, 1, 1, &m));
    CHECK_EQ_INT(m[0].n_bins, 2);
    CHECK_EQ_INT(m[2].n_bins, 3);
    gv_binned *b = NULL;
    CHECK_OK(gv_binned_build(d, m, 2, &b));
    CHECK_EQ_INT(b->n_rows, 0);
    gv_binned_free(b);
    gv_bin_mappers_free(m, 3);
    grove_dataset_free(d);
}

/* With at most max_bins distinct values, each distinct value has its own bin, in order. */
static void test_one_bin_per_value(void)
{
    uint64_t seed = 7;
    for (int rep = 0; rep < 5; rep++) {
        size_t n = 3000, D = 1 + lcg(&seed) % 255;
        grove_dataset *d = make_data(n, 1, 0, 0);
        float *vals = malloc(D * sizeof *vals);
        /* distinct values: a random increasing sequence, some of them very close together */
        float x = -50.0f;
        for (size_t k = 0; k < D; k++) {
            x = (lcg(&seed) % 4 == 0) ? nextafterf(x, INFINITY) : x + (float)(lcg(&seed) % 1000) / 100.0f + 0.01f;
            vals[k] = x;
        }
        for (size_t i = 0; i < n; i++)
            set(d, 0, i, i < D ? vals[i] : (lcg(&seed) % 10 == 0 ? NAN : vals[lcg(&seed) % D]));
        gv_bin_mapper *m = NULL;
        CHECK_OK(gv_bin_mappers_build(d, 255, 0, 3, 1, &m));
        CHECK_EQ_INT(m[0].n_bins, D + 1);
        CHECK(cuts_increasing(&m[0]));
        int ok = 1;
        for (size_t k = 0; k < D; k++) ok &= gv_bin_value(&m[0], vals[k]) == k + 1;
        for (size_t i = 0; i < n; i++) ok &= bin_contract_ok(&m[0], gv_value(d, 0, i));
        CHECK(ok);
        gv_bin_mappers_free(m, 1);
        grove_dataset_free(d);
        free(vals);
    }
}

/* Counts rows per bin for feature 0 (bins up to nb). */
static void bin_counts(const grove_dataset *d, const gv_bin_mapper *m, size_t *counts)
{
    memset(counts, 0, m->n_bins * sizeof *counts);
    for (size_t i = 0; i < d->n_rows; i++) counts[gv_bin_value(m, gv_value(d, 0, i))]++;
}

static void test_quantiles(void)
{
    uint64_t seed = 11;
    /* many distinct values: bins of near-equal size */
    size_t n = 100000;
    grove_dataset *d = make_data(n, 1, 0, 0);
    for (size_t i = 0; i < n; i++) set(d, 0, i, (float)(lcg(&seed) % 1000000) / 7.0f);
    gv_bin_mapper *m = NULL;
    CHECK_OK(gv_bin_mappers_build(d, 255, 0, 3, 1, &m));
    CHECK(m[0].n_bins <= 256);
    CHECK(m[0].n_bins >= 250);
    CHECK(cuts_increasing(&m[0]));
    size_t *counts = calloc(65537, sizeof *counts);
    bin_counts(d, &m[0], counts);
    size_t mx = 0;
    for (uint32_t b = 1; b < m[0].n_bins; b++) mx = counts[b] > mx ? counts[b] : mx;
    CHECK(mx <= 2 * n / 254);
    gv_bin_mappers_free(m, 1);

    /* 90% zeros, the rest distinct positives: zero alone, the rest spread over the others */
    for (size_t i = 0; i < n; i++) set(d, 0, i, i % 10 == 3 ? 1.0f + (float)(lcg(&seed) % 100000) : 0.0f);
    CHECK_OK(gv_bin_mappers_build(d, 32, 0, 3, 1, &m));
    CHECK(m[0].n_bins <= 33);
    CHECK(m[0].n_bins >= 25);
    CHECK(cuts_increasing(&m[0]));
    bin_counts(d, &m[0], counts);
    CHECK_EQ_INT(counts[1], n - n / 10); /* bin 1 holds exactly the zeros */
    mx = 0;
    for (uint32_t b = 2; b < m[0].n_bins; b++) mx = counts[b] > mx ? counts[b] : mx;
    CHECK(mx <= 2 * (n / 10) / 31 + 2);
    gv_bin_mappers_free(m, 1);

    /* 90% zeros between negatives and positives: both sides get bins, the zero bin nearly pure */
    for (size_t i = 0; i < n; i++) {
        float x = 0.0f;
        if (i % 20 == 3) x = -1.0f - (float)(lcg(&seed) % 100000);
        if (i % 20 == 7) x = 1.0f + (float)(lcg(&seed) % 100000);
        set(d, 0, i, x);
    }
    CHECK_OK(gv_bin_mappers_build(d, 32, 0, 3, 1, &m));
    CHECK(cuts_increasing(&m[0]));
    uint32_t b0 = gv_bin_value(&m[0], 0.0f);
    CHECK(b0 >= 8);
    CHECK(m[0].n_bins - 1 - b0 >= 8);
    bin_counts(d, &m[0], counts);
    CHECK_EQ_INT(counts[b0], n - n / 10); /* the zero bin holds only the zeros */
    size_t n_ok = 0;
    for (size_t i = 0; i < n; i++) n_ok += bin_contract_ok(&m[0], gv_value(d, 0, i));
    CHECK_EQ_INT(n_ok, n);
    gv_bin_mappers_free(m, 1);
    free(counts);
    grove_dataset_free(d);
}

static int mappers_equal(const gv_bin_mapper *a, const gv_bin_mapper *b, size_t F)
{
    for (size_t f = 0; f < F; f++) {
        if (a[f].is_categorical != b[f].is_categorical || a[f].n_bins != b[f].n_bins ||
            a[f].n_cuts != b[f].n_cuts)
            return 0;
        if (a[f].n_cuts && memcmp(a[f].cuts, b[f].cuts, a[f].n_cuts * sizeof(float)) != 0) return 0;
    }
    return 1;
}

static void test_sample_and_threads(void)
{
    uint64_t seed = 5;
    size_t n = 20000, F = 6;
    grove_dataset *d = make_data(n, 5, 1, 300);
    for (size_t f = 0; f < 5; f++)
        for (size_t i = 0; i < n; i++)
            set(d, f, i, lcg(&seed) % 17 == 0 ? NAN : (float)((double)(lcg(&seed) % 100000) * (f + 1) / 3.0));
    for (size_t i = 0; i < n; i++) set(d, 5, i, (float)(lcg(&seed) % 300));

    gv_bin_mapper *m1 = NULL, *m2 = NULL, *m3 = NULL, *m4 = NULL;
    CHECK_OK(gv_bin_mappers_build(d, 255, 1000, 42, 1, &m1));
    CHECK_OK(gv_bin_mappers_build(d, 255, 1000, 42, 2, &m2));
    CHECK_OK(gv_bin_mappers_build(d, 255, 1000, 42, 4, &m3));
    CHECK_OK(gv_bin_mappers_build(d, 255, 1000, 43, 1, &m4));
    CHECK(mappers_equal(m1, m2, F));
    CHECK(mappers_equal(m1, m3, F));
    CHECK(!mappers_equal(m1, m4, F)); /* another seed, another sample */
    for (size_t f = 0; f < 5; f++) {
        CHECK(cuts_increasing(&m1[f]));
        CHECK(m1[f].n_bins <= 256);
    }
    CHECK_EQ_INT(m1[5].n_bins, 301);

    gv_binned *b1 = NULL, *b2 = NULL;
    CHECK_OK(gv_binned_build(d, m1, 1, &b1));
    CHECK_OK(gv_binned_build(d, m1, 3, &b2));
    CHECK_EQ_INT(b1->wide, 1); /* the 300-category feature needs 16 bits */
    CHECK(memcmp(b1->bins16, b2->bins16, n * F * sizeof(uint16_t)) == 0);
    int ok = 1;
    for (size_t f = 0; f < F; f++)
        for (size_t i = 0; i < n; i++) {
            ok &= gv_bin_at(b1, f, i) == gv_bin_value(&m1[f], gv_value(d, f, i));
            if (f < 5) ok &= bin_contract_ok(&m1[f], gv_value(d, f, i));
        }
    CHECK(ok);
    gv_binned_free(b1);
    gv_binned_free(b2);
    gv_bin_mappers_free(m1, F);
    gv_bin_mappers_free(m2, F);
    gv_bin_mappers_free(m3, F);
    gv_bin_mappers_free(m4, F);
    grove_dataset_free(d);
}

/* The bulk 8-bit binning (bin.c's bin_values8: vector comparisons with AVX2) gives the bins of
 * gv_bin_value for every value -- the cuts themselves, their float neighbours, signed zeros,
 * infinities, NaN, tiny and huge values -- for features of 1 to 254 cuts (blocks of 16 partly
 * filled, one block, none). */
static void test_bulk_bins(void)
{
    uint64_t seed = 11;
    const size_t n = 3000, F = 8;
    const uint32_t n_cuts[8] = {0, 1, 2, 15, 16, 17, 200, 254};
    grove_dataset *d = make_data(n, F, 0, 0);
    gv_bin_mapper *m = calloc(F, sizeof *m);
    CHECK(d && m);
    if (!d || !m) return;
    const float special[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, FLT_MIN, -FLT_MIN,
                             FLT_MAX, -FLT_MAX, 1e-45f, -1e-45f};
    for (size_t f = 0; f < F; f++) {
        m[f].n_cuts = n_cuts[f];
        m[f].n_bins = n_cuts[f] + 2;
        m[f].cuts = n_cuts[f] ? malloc(n_cuts[f] * sizeof(float)) : NULL;
        float c = -FLT_MAX;
        for (uint32_t j = 0; j < n_cuts[f]; j++) {
            /* increasing: -FLT_MAX, then steps of one float up to large ones */
            m[f].cuts[j] = c;
            c = j % 3 == 0 ? nextafterf(c < -1e30f ? -100.0f : c, INFINITY)
                           : c + (float)(lcg(&seed) % 1000) / 64.0f + 0.5f;
            if (j == n_cuts[f] / 2 && c < 0.0f) c = 0.0f;
        }
        for (size_t i = 0; i < n; i++) {
            const uint64_t r = lcg(&seed) % 8;
            float x;
            if (r < 3 && n_cuts[f])
                x = m[f].cuts[lcg(&seed) % n_cuts[f]];
            else if (r == 3 && n_cuts[f])
                x = nextafterf(m[f].cuts[lcg(&seed) % n_cuts[f]], lcg(&seed) & 1 ? INFINITY : -INFINITY);
            else if (r == 4)
                x = special[lcg(&seed) % (sizeof special / sizeof *special)];
            else
                x = (float)((double)(lcg(&seed) % 200000) - 100000.0) / 16.0f;
            set(d, f, i, x);
        }
    }
    gv_binned *b = NULL;
    CHECK_OK(gv_binned_build(d, m, 2, &b));
    int ok = b && !b->wide;
    for (size_t f = 0; ok && f < F; f++)
        for (size_t i = 0; i < n; i++) {
            ok &= gv_bin_at(b, f, i) == gv_bin_value(&m[f], gv_value(d, f, i));
            ok &= bin_contract_ok(&m[f], gv_value(d, f, i));
        }
    CHECK(ok);
    gv_binned_free(b);
    for (size_t f = 0; f < F; f++) free(m[f].cuts);
    free(m);
    grove_dataset_free(d);
}

static void test_wide(void)
{
    uint64_t seed = 9;
    size_t n = 20000;
    grove_dataset *d = make_data(n, 2, 0, 0);
    for (size_t i = 0; i < n; i++) {
        set(d, 0, i, i % 50 == 0 ? NAN : (float)(lcg(&seed) % 5000));
        set(d, 1, i, (float)(i % 700));
    }
    gv_bin_mapper *m = NULL;
    CHECK_OK(gv_bin_mappers_build(d, 1000, 0, 1, 2, &m));
    CHECK(m[0].n_bins > 256 && m[0].n_bins <= 1001);
    CHECK(m[0].n_bins >= 950);
    CHECK_EQ_INT(m[1].n_bins, 701); /* 700 distinct values: one bin each */
    CHECK(cuts_increasing(&m[0]));
    gv_binned *b = NULL;
    CHECK_OK(gv_binned_build(d, m, 2, &b));
    CHECK_EQ_INT(b->wide, 1);
    CHECK(b->bins16 != NULL && b->bins8 == NULL);
    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        ok &= gv_bin_at(b, 0, i) == gv_bin_value(&m[0], gv_value(d, 0, i));
        ok &= bin_contract_ok(&m[0], gv_value(d, 0, i));
        ok &= gv_bin_at(b, 1, i) == i % 700 + 1;
    }
    CHECK(ok);
    gv_binned_free(b);
    gv_bin_mappers_free(m, 2);

    /* 256 bins still fit in 8 bits (255 value bins + missing) */
    CHECK_OK(gv_bin_mappers_build(d, 255, 0, 1, 1, &m));
    CHECK(m[0].n_bins <= 256);
    CHECK_OK(gv_binned_build(d, m, 1, &b));
    CHECK_EQ_INT(b->wide, 0);
    gv_binned_free(b);
    gv_bin_mappers_free(m, 2);
    grove_dataset_free(d);
}

/* Integer-valued columns (bin.c's counting pass and bin lookup table) bin as the sort and the
 * search do: each column beside a twin 1.5 x + 0.25 (not integers: the sorting way; the same
 * groups of equal values in the same order, so the same bins), over the regimes of find_cuts
 * (one bin per value, merged rarest neighbours, quantiles), with -0, NaN and a range too wide
 * for the counting pass. */
static void test_small_integers(void)
{
    uint64_t seed = 11;
    size_t n = 20000, K = 5;
    grove_dataset *d = make_data(n, 2 * K, 0, 0);
    CHECK(d != NULL);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = lcg(&seed);
        float x[5];
        x[0] = r % 3 ? 0.0f : (float)(lcg(&seed) % 256);            /* pixels: 256 values */
        x[1] = (float)((int)(lcg(&seed) % 3001) - 1500);            /* quantiles */
        x[2] = r % 7 == 0 ? -0.0f : (float)(lcg(&seed) % 4);         /* -0 beside +0 */
        x[3] = (float)((int)(lcg(&seed) % 9000) - 4500);            /* range > 4096 */
        x[4] = i == 77 ? NAN : (float)(lcg(&seed) % 40);            /* a NaN */
        for (size_t k = 0; k < K; k++) {
            set(d, k, i, x[k]);
            set(d, K + k, i, isnan(x[k]) ? NAN : 1.5f * x[k] + 0.25f);
        }
    }
    gv_bin_mapper *m = NULL;
    CHECK_OK(gv_bin_mappers_build(d, 255, 0, 1, 2, &m));
    gv_binned *b = NULL;
    if (m) CHECK_OK(gv_binned_build(d, m, 2, &b));
    if (m && b) {
        for (size_t k = 0; k < K; k++) {
            CHECK_EQ_INT(m[k].n_cuts, m[K + k].n_cuts);
            CHECK(cuts_increasing(&m[k]));
            size_t same = 0, exact = 0;
            for (size_t i = 0; i < n; i++) {
                same += gv_bin_at(b, k, i) == gv_bin_at(b, K + k, i);
                exact += gv_bin_at(b, k, i) == gv_bin_value(&m[k], d->values[k * n + i]);
            }
            CHECK_EQ_INT(same, n);
            CHECK_EQ_INT(exact, n);
        }
        CHECK_EQ_INT(m[0].n_cuts, 254);  /* 256 values, the rarest pair merged */
        CHECK_EQ_INT(m[2].n_cuts, 3);    /* -0 and +0 are one value */
        CHECK_EQ_INT(gv_bin_at(b, 4, 77), 0);
    }
    gv_binned_free(b);
    gv_bin_mappers_free(m, 2 * K);
    grove_dataset_free(d);
}

static void test_errors(void)
{
    grove_dataset *d = make_data(3, 1, 1, 65536);
    CHECK(d != NULL);
    gv_free(d->schema->feature_names[1]);
    d->schema->feature_names[1] = gv_strdup("zipcode");
    gv_bin_mapper *m = (gv_bin_mapper *)1;
    CHECK_STATUS(gv_bin_mappers_build(d, 255, 0, 1, 1, &m), GROVE_ERR_DATA);
    CHECK(m == NULL);
    CHECK_CONTAINS(grove_last_error(), "zipcode");
    CHECK_CONTAINS(grove_last_error(), "65536");
    CHECK_STATUS(gv_bin_mappers_build(d, 1, 0, 1, 1, &m), GROVE_ERR_ARG);
    CHECK_STATUS(gv_bin_mappers_build(NULL, 255, 0, 1, 1, &m), GROVE_ERR_ARG);
    CHECK_STATUS(gv_bin_mappers_build(d, 255, 0, 1, 1, NULL), GROVE_ERR_ARG);
    gv_binned *b = (gv_binned *)1;
    CHECK_STATUS(gv_binned_build(d, NULL, 1, &b), GROVE_ERR_ARG);
    CHECK(b == NULL);
    grove_dataset_free(d);
    gv_bin_mappers_free(NULL, 3);
    gv_binned_free(NULL);

    /* 65535 categories are fine and make 65536 bins */
    d = make_data(2, 0, 1, 65535);
    set(d, 0, 0, 65534.0f);
    CHECK_OK(gv_bin_mappers_build(d, 255, 0, 1, 1, &m));
    CHECK_EQ_INT(m[0].n_bins, 65536);
    CHECK_OK(gv_binned_build(d, m, 1, &b));
    CHECK_EQ_INT(gv_bin_at(b, 0, 0), 65535);
    CHECK_EQ_INT(gv_bin_at(b, 0, 1), 0);
    gv_binned_free(b);
    gv_bin_mappers_free(m, 1);
    grove_dataset_free(d);
}

static void test_out_of_memory(void)
{
    uint64_t seed = 3;
    size_t n = 500;
    grove_dataset *d = make_data(n, 3, 1, 5);
    for (size_t f = 0; f < 3; f++)
        for (size_t i = 0; i < n; i++) set(d, f, i, (float)(lcg(&seed) % 1000));
    for (size_t i = 0; i < n; i++) set(d, 3, i, (float)(i % 5));
    int done = 0;
    for (long k = 1; k < 200 && !done; k++) {
        gv_bin_mapper *m = (gv_bin_mapper *)1;
        gv_binned *b = (gv_binned *)1;
        gv_alloc_fail_after(k);
        grove_status st = gv_bin_mappers_build(d, 64, 100, 1, 1, &m);
        if (st == GROVE_OK) {
            st = gv_binned_build(d, m, 1, &b);
            if (st == GROVE_OK) {
                done = 1;
                gv_binned_free(b);
            } else {
                CHECK_EQ_INT(st, GROVE_ERR_NOMEM);
                CHECK(b == NULL);
            }
            gv_bin_mappers_free(m, 4);
        } else {
            CHECK_EQ_INT(st, GROVE_ERR_NOMEM);
            CHECK(m == NULL);
        }
        gv_alloc_fail_after(0);
    }
    CHECK(done);
    grove_dataset_free(d);
}

int main(void)
{
    test_exact_semantics();
    test_edge_values();
    test_one_bin_per_value();
    test_quantiles();
    test_sample_and_threads();
    test_bulk_bins();
    test_wide();
    test_small_integers();
    test_errors();
    test_out_of_memory();
    TEST_MAIN_END();
}
