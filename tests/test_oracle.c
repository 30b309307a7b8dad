/*
 * test_oracle.c -- the example oracle of boosting by filtering (data/oracle.h) and filter-boost
 * drawing from it.
 *
 *  - the warp is geometry: no deformation is the identity, an integer translation moves every
 *    pixel by exactly that much (the background entering at the edge), a quarter turn of a
 *    square image is the transpose-and-flip of its pixels, a half turn reverses rows and columns;
 *  - random deformations (8x8 digits, 28x28 images; shifts, rotations, scalings, elastic
 *    fields) keep the image's shape and its intensity range [min, max], and are not copies;
 *  - the same seed gives the same draws, another seed other draws; a filter-boost model with
 *    the deform oracle is byte-identical for 1 and 2 threads;
 *  - the filter really draws fresh examples: where one network is perfect on every training
 *    digit, the data oracle's filter finds no mistake and stops with an error, while the deform
 *    oracle finds them among fresh deformations and trains the committee;
 *  - a filter that keeps rejecting stops after filter.budget draws with an error naming it;
 *  - parameters that do not describe the rows as images, and deformations outside their ranges,
 *    are refused, naming the parameter (and the range).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/params.h"
#include "data/oracle.h"

static grove_params *params(const char *const *kv)
{
    grove_params *p = NULL;
    CHECK_OK(grove_params_create(&p));
    for (; kv && *kv; kv++) CHECK_OK(grove_params_set_pair(p, *kv));
    return p;
}

static void test_warp_geometry(void)
{
    grove_params *p = params((const char *const[]){"image.width=5", "image.height=5", NULL});
    gv_deform d;
    CHECK_OK(gv_deform_init(&d, p, 25));
    float src[25], dst[25];
    for (int i = 0; i < 25; i++) src[i] = (float)(1 + (i * 7) % 11); /* min 1: the background */
    gv_deform_warp(&d, src, dst, 0, 1, 0, 0, NULL, NULL);
    CHECK(memcmp(src, dst, sizeof src) == 0);
    /* translation by (1, -2): dst(x, y) = src(x - 1, y + 2), background 1 outside */
    gv_deform_warp(&d, src, dst, 0, 1, 1, -2, NULL, NULL);
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 5; x++) {
            int sx = x - 1, sy = y + 2;
            float want = sx >= 0 && sy < 5 ? src[sy * 5 + sx] : 1.0f;
            CHECK_EQ_DBL(dst[y * 5 + x], want);
        }
    /* a quarter turn about the centre: dst(x, y) = src(col y, row 4 - x) */
    gv_deform_warp(&d, src, dst, 3.14159265358979323846 / 2, 1, 0, 0, NULL, NULL);
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 5; x++) CHECK_NEAR(dst[y * 5 + x], src[(4 - x) * 5 + y], 1e-4);
    /* a half turn: dst(x, y) = src(4 - x, 4 - y), every pixel inside the image */
    gv_deform_warp(&d, src, dst, 3.14159265358979323846, 1, 0, 0, NULL, NULL);
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 5; x++) CHECK_NEAR(dst[y * 5 + x], src[(4 - y) * 5 + (4 - x)], 1e-4);
    gv_deform_free(&d);
    grove_params_free(p);
}

/* Random deformations keep shape and range, and change the image. */
static void test_deform_range(size_t side, float top)
{
    char w[32], h[32];
    snprintf(w, sizeof w, "image.width=%zu", side);
    snprintf(h, sizeof h, "image.height=%zu", side);
    grove_params *p = params((const char *const[]){w, h, "deform.shift=2", "deform.rotation=20",
                                                   "deform.scale=0.2", "deform.elastic_alpha=8",
                                                   "deform.elastic_sigma=2", NULL});
    const size_t n = side * side;
    gv_deform d;
    CHECK_OK(gv_deform_init(&d, p, n));
    CHECK_EQ_INT(d.width, side);
    float *src = malloc(n * sizeof *src), *dst = malloc(n * sizeof *dst);
    double *scratch = malloc(3 * n * sizeof *scratch);
    gv_rng rng;
    gv_rng_seed(&rng, 5, 1, 0);
    int changed = 0, in_range = 1;
    for (int t = 0; t < 200; t++) {
        /* a bright blob on a background that is not always 0 */
        float base = (t % 3) * top / 8, lo = INFINITY, hi = -INFINITY;
        for (size_t i = 0; i < n; i++) {
            double r = hypot((double)(i % side) - side / 2.0, (double)(i / side) - side / 2.0);
            src[i] = r < side / 3.0 ? base + (float)((top - base) * gv_rng_uniform(&rng)) : base;
            lo = fminf(lo, src[i]);
            hi = fmaxf(hi, src[i]);
        }
        gv_deform_image(&d, src, dst, &rng, scratch);
        for (size_t i = 0; i < n; i++) in_range &= isfinite(dst[i]) && dst[i] >= lo && dst[i] <= hi;
        changed += memcmp(src, dst, n * sizeof *src) != 0;
    }
    CHECK(in_range);
    CHECK_EQ_INT(changed, 200);
    free(src);
    free(dst);
    free(scratch);
    gv_deform_free(&d);
    grove_params_free(p);
}

static grove_dataset *load(const char *path)
{
    grove_dataset *d = NULL;
    CHECK_OK(grove_dataset_load(path, NULL, NULL, &d));
    return d;
}

/* The first n rows of d (a view copied through the public API's subset). */
static grove_dataset *head(const grove_dataset *d, size_t n)
{
    size_t *rows = malloc(n * sizeof *rows);
    for (size_t i = 0; i < n; i++) rows[i] = i;
    grove_dataset *s = NULL;
    CHECK_OK(grove_dataset_subset(d, rows, n, &s));
    free(rows);
    return s;
}

static void test_oracle_draws(const grove_dataset *digits)
{
    grove_params *p = params((const char *const[]){"filter.oracle=deform", "deform.shift=1",
                                                   "deform.rotation=10", NULL});
    const size_t n = digits->n_rows, nf = digits->schema->n_features, draws = 300;
    gv_oracle a, b, c;
    CHECK_OK(gv_oracle_init(&a, digits, digits->labels, NULL, p, 11));
    CHECK_OK(gv_oracle_init(&b, digits, digits->labels, NULL, p, 11));
    CHECK_OK(gv_oracle_init(&c, digits, digits->labels, NULL, p, 12));
    float *xa = malloc(draws * nf * sizeof *xa), *xb = malloc(nf * sizeof *xb);
    float *xc = malloc(nf * sizeof *xc);
    int same_seed = 1, other_seed = 0, copies = 0, labels_kept = 1;
    for (size_t j = 0; j < draws; j++) {
        double ya, yb, yc;
        size_t row;
        gv_oracle_draw(&a, xa + j * nf, &ya, &row);
        gv_oracle_draw(&b, xb, &yb, NULL);
        gv_oracle_draw(&c, xc, &yc, NULL);
        same_seed &= memcmp(xa + j * nf, xb, nf * sizeof *xb) == 0 && ya == yb;
        other_seed += memcmp(xa + j * nf, xc, nf * sizeof *xc) != 0;
        labels_kept &= ya == digits->labels[row];
        /* a fresh example is no training row */
        for (size_t i = 0; i < n; i++) {
            size_t f = 0;
            while (f < nf && xa[j * nf + f] == digits->values[f * n + i]) f++;
            copies += f == nf;
        }
    }
    CHECK(same_seed);
    CHECK(labels_kept);
    CHECK_EQ_INT(other_seed, draws);
    CHECK_EQ_INT(copies, 0);
    CHECK_EQ_INT(a.n_draws, draws);
    free(xa);
    free(xb);
    free(xc);
    gv_oracle_free(&a);
    gv_oracle_free(&b);
    gv_oracle_free(&c);
    grove_params_free(p);
}

static char *model_bytes(const grove_dataset *d, const char *const *kv, size_t *len)
{
    grove_params *p = params(kv);
    grove_model *m = NULL;
    CHECK_OK(grove_train(d, NULL, p, &m));
    char *buf = NULL;
    *len = 0;
    if (m) CHECK_OK(grove_model_to_buffer(m, &buf, len));
    grove_model_free(m);
    grove_params_free(p);
    return buf;
}

/* A network (here an unpruned tree, which is exact on its rows) perfect on 60 digits: the data
 * oracle has no mistake to filter; the deform oracle draws new digits and finds them. */
static void test_filter_fresh(const grove_dataset *digits)
{
    grove_dataset *small = head(digits, 60);
    const char *common[] = {"algo=filter-boost", "base=tree", "boost.sample_size=600",
                            "filter.budget=3000", "seed=3"};
    grove_params *p = params(NULL);
    grove_model *m = NULL;
    for (size_t i = 0; i < 5; i++) CHECK_OK(grove_params_set_pair(p, common[i]));
    CHECK_STATUS(grove_train(small, NULL, p, &m), GROVE_ERR_DATA);
    CHECK(m == NULL);
    CHECK_CONTAINS(grove_last_error(), "perfect");
    CHECK_CONTAINS(grove_last_error(), "3000 draws (filter.budget)");
    CHECK_CONTAINS(grove_last_error(), "filter.oracle=deform");
    CHECK_OK(grove_params_set_pair(p, "filter.oracle=deform"));
    CHECK_OK(grove_train(small, NULL, p, &m));
    grove_model_free(m);
    /* no deformation at all: the deform oracle is the data oracle, and the filter gives up
     * after filter.budget draws instead of looping */
    for (const char *const *kv = (const char *const[]){"deform.shift=0", "deform.rotation=0",
                                                       NULL};
         *kv; kv++)
        CHECK_OK(grove_params_set_pair(p, *kv));
    m = NULL;
    CHECK_STATUS(grove_train(small, NULL, p, &m), GROVE_ERR_DATA);
    CHECK(m == NULL);
    CHECK_CONTAINS(grove_last_error(), "3000 draws (filter.budget)");
    grove_params_free(p);
    grove_dataset_free(small);
}

static void test_filter_threads(const grove_dataset *digits)
{
    grove_dataset *small = head(digits, 300);
    const char *kv1[] = {"algo=filter-boost", "base=mlp", "base.mlp.hidden=8",
                         "base.mlp.epochs=20", "filter.oracle=deform", "deform.elastic_alpha=2",
                         "deform.elastic_sigma=1", "seed=9", "threads=1", NULL};
    const char *kv2[] = {"algo=filter-boost", "base=mlp", "base.mlp.hidden=8",
                         "base.mlp.epochs=20", "filter.oracle=deform", "deform.elastic_alpha=2",
                         "deform.elastic_sigma=1", "seed=9", "threads=2", NULL};
    size_t n1, n2;
    char *b1 = model_bytes(small, kv1, &n1), *b2 = model_bytes(small, kv2, &n2);
    CHECK(b1 && b2 && n1 == n2 && memcmp(b1, b2, n1) == 0);
    grove_string_free(b1);
    grove_string_free(b2);
    grove_dataset_free(small);
}

static void test_bad_params(const grove_dataset *digits)
{
    const char *cases[][2] = {
        {"image.width=7", "image.width: 7 does not divide the 64 features"},
        {"image.height=3", "image.height: 3 does not divide the 64 features"},
    };
    for (size_t c = 0; c < 2; c++) {
        grove_params *p = params((const char *const[]){"algo=filter-boost", "filter.oracle=deform",
                                                       cases[c][0], NULL});
        grove_model *m = NULL;
        CHECK_STATUS(grove_train(digits, NULL, p, &m), GROVE_ERR_PARAM);
        CHECK_CONTAINS(grove_last_error(), cases[c][1]);
        grove_params_free(p);
    }
    grove_params *p = params((const char *const[]){"image.width=16", "image.height=8", NULL});
    gv_deform d;
    CHECK_STATUS(gv_deform_init(&d, p, 64), GROVE_ERR_PARAM);
    CHECK_CONTAINS(grove_last_error(), "16 x 8 = 128 pixels, but the rows have 64 features");
    grove_params_free(p);
    p = NULL;
    CHECK_STATUS(gv_deform_init(&d, NULL, 60), GROVE_ERR_PARAM);
    CHECK_CONTAINS(grove_last_error(), "60 features are not a square");
    /* each deformation outside its range is refused, naming the parameter and the range */
    const char *ranges[][2] = {
        {"deform.shift=-1", "deform.shift: must be a number in [0, 1000], got '-1'"},
        {"deform.rotation=181", "deform.rotation: must be a number in [0, 180], got '181'"},
        {"deform.scale=0.95", "deform.scale: must be a number in [0, 0.9], got '0.95'"},
        {"deform.elastic_alpha=nan", "deform.elastic_alpha: must be a number in [0, 10000]"},
        {"deform.elastic_sigma=0", "deform.elastic_sigma: must be a number in [0.1, 1000], got '0'"},
        {"filter.oracle=mnist", "filter.oracle"},
    };
    p = params(NULL);
    for (size_t c = 0; c < sizeof ranges / sizeof *ranges; c++) {
        CHECK_STATUS(grove_params_set_pair(p, ranges[c][0]), GROVE_ERR_PARAM);
        CHECK_CONTAINS(grove_last_error(), ranges[c][1]);
    }
    grove_params_free(p);
}

int main(void)
{
    test_warp_geometry();
    test_deform_range(8, 16);
    test_deform_range(28, 255);
    grove_dataset *digits = load("examples/data/digits_train.csv");
    if (digits) {
        test_oracle_draws(digits);
        test_filter_fresh(digits);
        test_filter_threads(digits);
        test_bad_params(digits);
    }
    grove_dataset_free(digits);
    TEST_MAIN_END();
}
