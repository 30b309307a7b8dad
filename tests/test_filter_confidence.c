/*
 * test_filter_confidence.c -- boosting by filtering and boosting the confidence.
 *
 *  - Schapire's lemma: the majority of h1 (on D), h2 (on D2, where h1 is right half the time)
 *    and h3 (on D3, where h1 and h2 disagree) has error at most g(p) = 3p^2 - 2p^3 under D,
 *    p = the largest of the three errors measured on their own distributions; on a diagonal
 *    concept with stumps (p about 1/3) the combined training error must respect it (with a
 *    sampling slack of 0.01) and beat h1; deeper recursion keeps improving;
 *  - the committee is the paper's (Drucker, Schapire & Simard 1993): h1 and h2's class when they
 *    agree, otherwise h3's -- also when all three differ (K > 2: on the ten digits, depth-3 trees
 *    differ three ways on over a tenth of the rows), with probabilities 1/4, 1/4, 1/2 there and vote fractions elsewhere;
 *  - the filter that finds nothing names the step and says the learner has no edge;
 *  - confidence-boost: k = ceil(log2(2/delta)), m = ceil((9/eps^2) ln(4k/delta)), the chosen run
 *    has the least selection error, too little data is an error stating the rows required;
 *  - both round-trip through model files bit for bit.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ensemble/ensemble.h"
#include "fixtures.h"
#include "model/model.h"

static double error_of(const grove_model *m, const grove_dataset *d)
{
    grove_eval *e = NULL;
    double v = NAN;
    CHECK_OK(grove_model_evaluate(m, d, 0, &e));
    if (e) grove_eval_get(e, "error", &v);
    grove_eval_free(e);
    return v;
}

/* A number from the model's info JSON: "key": value (first occurrence after `after`). */
static double info_number(const grove_model *m, const char *after, const char *key, int index)
{
    char *info = NULL;
    CHECK_OK(grove_model_info_json(m, &info));
    double v = NAN;
    const char *s = info ? strstr(info, after) : NULL;
    if (s) s = strstr(s, key);
    if (s) {
        s = strchr(s, ':') + 1;
        if (*s == '[') s++;
        for (int i = 0; i < index && s; i++) s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL;
        if (s) v = strtod(s, NULL);
    }
    grove_string_free(info);
    return v;
}

static grove_dataset *diagonal(size_t n, uint64_t seed)
{
    double *x = malloc(2 * n * sizeof *x), *y = malloc(n * sizeof *y);
    for (size_t i = 0; i < n; i++) {
        for (int j = 0; j < 2; j++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            x[2 * i + j] = (double)(seed >> 11) * 0x1.0p-53;
        }
        y[i] = x[2 * i] + x[2 * i + 1] > 1;
    }
    grove_dataset *d = NULL;
    CHECK_OK(grove_dataset_from_array(x, GROVE_FLOAT64, n, 2, y, NULL, NULL, NULL, NULL, &d));
    free(x);
    free(y);
    return d;
}

static void roundtrip(const grove_model *m, const grove_dataset *d)
{
    char path[] = "/tmp/grove_fc_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    CHECK_OK(grove_model_save(m, path));
    grove_model *back = NULL;
    CHECK_OK(grove_model_load(path, &back));
    size_t n = grove_dataset_n_rows(d), k = grove_model_n_outputs(m);
    double *a = malloc(n * k * sizeof *a), *b = malloc(n * k * sizeof *b);
    CHECK_OK(grove_model_predict(m, d, 0, a, n * k));
    if (back) CHECK_OK(grove_model_predict(back, d, 0, b, n * k));
    CHECK(back && memcmp(a, b, n * k * sizeof *a) == 0);
    free(a);
    free(b);
    grove_model_free(back);
    unlink(path);
}

static void test_filter(void)
{
    grove_dataset *d = diagonal(20000, 7);
    for (int seed = 1; seed <= 3; seed++) {
        char s[32];
        snprintf(s, sizeof s, "seed=%d", seed);
        grove_model *m = fx_train(d, NULL, (const char *const[]){"algo=filter-boost", s, NULL});
        double e[3];
        for (int j = 0; j < 3; j++) e[j] = info_number(m, "\"model\"", "\"errors\"", j);
        double p = fmax(e[0], fmax(e[1], e[2]));
        double g = 3 * p * p - 2 * p * p * p;
        double combined = error_of(m, d);
        fprintf(stderr, "filter-boost seed %d: errors %.4f %.4f %.4f, p %.4f, g(p) %.4f, "
                        "combined %.4f\n", seed, e[0], e[1], e[2], p, g, combined);
        CHECK(e[0] > 0.15 && e[0] < 0.4); /* a weak learner indeed */
        CHECK(fabs(e[1] - 0.5) > 0.05);   /* h2 learned something on D2 */
        CHECK(combined <= g + 0.01);
        CHECK(combined < e[0]);
        if (seed == 1) roundtrip(m, d);
        grove_model_free(m);
    }
    grove_model *m2 =
        fx_train(d, NULL, (const char *const[]){"algo=filter-boost", "filter.depth=2", NULL});
    grove_model *m1 =
        fx_train(d, NULL, (const char *const[]){"algo=filter-boost", "filter.depth=1", NULL});
    CHECK(error_of(m2, d) < error_of(m1, d));
    grove_model_free(m1);
    grove_model_free(m2);

    /* a concept one stump gets right: h1 is perfect, the filter for h2 finds no mistake */
    double x[200], y[200];
    for (int i = 0; i < 200; i++) {
        x[i] = i;
        y[i] = i >= 100;
    }
    grove_dataset *easy = NULL;
    CHECK_OK(grove_dataset_from_array(x, GROVE_FLOAT64, 200, 1, y, NULL, NULL, NULL, NULL, &easy));
    grove_params *p =
        fx_params((const char *const[]){"algo=filter-boost", "filter.budget=500", NULL});
    grove_model *m = NULL;
    CHECK_STATUS(grove_train(easy, NULL, p, &m), GROVE_ERR_DATA);
    CHECK(m == NULL);
    CHECK_CONTAINS(grove_last_error(), "after 1 base learners");
    CHECK_CONTAINS(grove_last_error(), "500 draws");
    CHECK_CONTAINS(grove_last_error(), "perfect");
    grove_params_free(p);
    grove_dataset_free(easy);
    grove_dataset_free(d);
}

static size_t argmax_of(const double *p, size_t k)
{
    size_t best = 0;
    for (size_t j = 1; j < k; j++)
        if (p[j] > p[best]) best = j;
    return best;
}

/* The committee's class: h1 and h2's when they agree, else h3's; checked row by row against the
 * three networks' own predictions, on a set where all three sometimes differ. */
static void test_committee_rule(void)
{
    grove_dataset *d = fx_load("examples/data/digits_train.csv", NULL, NULL);
    size_t three_way = 0, disagree = 0;
    for (int seed = 1; seed <= 4; seed++) {
        char s[32];
        snprintf(s, sizeof s, "seed=%d", seed);
        grove_model *m = fx_train(d, NULL, (const char *const[]){"algo=filter-boost", "base=tree",
                                                                 "base.max_depth=3", s, NULL});
        gv_majority3_view v;
        CHECK(m && gv_majority3_view_of(&m->root, &v));
        if (!m) continue;
        const size_t n = grove_dataset_n_rows(d), k = (size_t)v.n_classes;
        double *out = malloc(n * k * sizeof *out), h[3][16];
        CHECK_OK(grove_model_predict(m, d, 0, out, n * k));
        for (size_t i = 0; i < n; i++) {
            size_t c[3];
            for (int j = 0; j < 3; j++) {
                v.children[j].vt->predict_row(v.children[j].impl, d, i, h[j]);
                c[j] = argmax_of(h[j], k);
            }
            size_t want = c[0] == c[1] ? c[0] : c[2], got = argmax_of(out + i * k, k);
            CHECK(got == want);
            disagree += c[0] != c[1];
            if (c[0] != c[1] && c[0] != c[2] && c[1] != c[2]) {
                three_way++;
                CHECK_EQ_DBL(out[i * k + c[2]], 0.5);
                CHECK_EQ_DBL(out[i * k + c[0]], 0.25);
                CHECK_EQ_DBL(out[i * k + c[1]], 0.25);
            } else {
                CHECK(fabs(out[i * k + got] - (c[0] == c[1] && c[1] == c[2] ? 1.0 : 2.0 / 3.0))
                      < 1e-12);
            }
        }
        free(out);
        grove_model_free(m);
    }
    fprintf(stderr, "committee rule: %zu rows where h1 and h2 disagree, %zu three-way\n",
            disagree, three_way);
    CHECK(three_way > 0);
    grove_dataset_free(d);
}

static void test_confidence(void)
{
    grove_dataset *d = diagonal(3000, 11);
    grove_model *m = fx_train(
        d, NULL,
        (const char *const[]){"algo=confidence-boost", "confidence.epsilon=0.3",
                              "confidence.delta=0.05", "base=tree", "base.max_depth=2", NULL});
    /* k = ceil(log2(2 / 0.05)) = ceil(5.32) = 6; m = ceil(100 ln(24 / 0.05)) = ceil(617.2) */
    double k = info_number(m, "\"model\"", "\"k\"", 0);
    double mm = info_number(m, "\"model\"", "\"m\"", 0);
    CHECK_EQ_DBL(k, 6);
    CHECK_EQ_DBL(mm, ceil(100.0 * log(24.0 / 0.05)));
    double chosen = info_number(m, "\"model\"", "\"chosen_index\"", 0);
    double best = INFINITY;
    for (int j = 0; j < 6; j++) best = fmin(best, info_number(m, "\"model\"", "\"errors\"", j));
    CHECK_EQ_DBL(info_number(m, "\"model\"", "\"errors\"", (int)chosen), best);
    roundtrip(m, d);
    grove_model_free(m);
    /* too little data: the error says how many rows epsilon and delta need */
    grove_params *p = fx_params((const char *const[]){"algo=confidence-boost", NULL});
    CHECK_STATUS(grove_train(d, NULL, p, &m), GROVE_ERR_DATA);
    CHECK_CONTAINS(grove_last_error(), "m = 5557 examples, at least 5563 rows");
    CHECK_CONTAINS(grove_last_error(), "the data has 3000");
    grove_params_free(p);
    grove_dataset_free(d);
}

int main(void)
{
    test_filter();
    test_committee_rule();
    test_confidence();
    TEST_MAIN_END();
}
