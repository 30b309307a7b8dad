/*
 * test_shap.c -- per-feature contributions (model/shap.c) against their definition.
 *
 *  - exact Shapley values: on small ensembles (gbdt binary and softmax, a CART tree with
 *    categorical partitions, an id3 tree with multiway splits, a regression forest, each on
 *    data with missing values and a categorical feature), every row's contributions equal
 *    phi_i = sum_S |S|! (M - |S| - 1)! / M! [f_x(S u {i}) - f_x(S)] enumerated over all
 *    feature subsets, f_x(S) the path-dependent expectation walked here from the trees' covers;
 *    the interaction values equal the Shapley interaction index enumerated the same way;
 *  - local accuracy: contributions sum to grove_model_predict_margin within 1e-9 for every
 *    kind (gbdt logistic, softmax, squared, exponential; tree; id3; stump; forest; extra-trees;
 *    bagging with hard and soft votes; adaboost, adaboost.m1, samme, samme.r, adaboost.m2),
 *    and the margin is the prediction's score (sigmoid, softmax, the prediction itself);
 *  - interaction rows sum to the contributions, the matrices are symmetric;
 *  - the same values for 1 and 3 threads; models without contributions are refused by name.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixtures.h"
#include "ensemble/ensemble.h"
#include "model/model.h"
#include "data/dataset.h"

#define N_ROWS 300
#define N_FEAT 5

/* Features: 0..2 numeric (1 with missing values), 3 categorical (4 categories, some missing),
 * 4 numeric noise; labels by `task`: 0 binary, 1 three classes, 2 regression. */
static grove_dataset *make_data(int task, uint64_t seed)
{
    float x[N_ROWS * N_FEAT];
    double y[N_ROWS];
    uint64_t s = seed;
    for (size_t i = 0; i < N_ROWS; i++) {
        float *r = x + i * N_FEAT;
        for (size_t f = 0; f < N_FEAT; f++) r[f] = (float)fx_unif(&s);
        if (fx_unif(&s) < 0.15) r[1] = NAN;
        r[3] = fx_unif(&s) < 0.1 ? NAN : (float)(int)(4 * fx_unif(&s));
        double c = isnan(r[3]) ? 0.5 : r[3] == 2 ? 1 : r[3] == 0 ? -0.5 : 0;
        double v = 2 * r[0] - (isnan(r[1]) ? 0.7 : r[1]) + c + 0.8 * r[0] * r[2] +
                   0.3 * fx_unif(&s);
        y[i] = task == 2 ? v : task == 0 ? (v > 0.9) : (v < 0.5 ? 0 : v < 1.3 ? 1 : 2);
    }
    grove_params *p = fx_params((const char *const[]){
        task == 2 ? "task=regression" : "task=classification", NULL});
    grove_dataset *d = NULL;
    CHECK_OK(grove_dataset_from_array(x, GROVE_FLOAT32, N_ROWS, N_FEAT, y, NULL, NULL, p, NULL,
                                      &d));
    const char *cats[] = {"a", "b", "c", "d"};
    if (d) CHECK_OK(grove_dataset_set_feature(d, 3, "cat", cats, 4));
    grove_params_free(p);
    return d;
}

/* ---- the reference: f_x(S) walked from the tree, and the Shapley sums ---- */

/* The distinct children of split node k (a multiway split's child map may repeat one). */
static size_t children(const gv_tree *t, size_t k, size_t *kids)
{
    const gv_tree_node *n = &t->nodes[k];
    size_t m = 0;
    if (n->type == GV_NODE_CAT_MULTI) {
        for (uint32_t c = 0; c <= n->cat_len; c++) {
            uint32_t ch = c < n->cat_len ? t->cat_data[n->cat_begin + c] : (uint32_t)n->right;
            if (ch == UINT32_MAX) continue;
            int seen = 0;
            for (size_t j = 0; j < m; j++) seen |= kids[j] == ch;
            if (!seen) kids[m++] = ch;
        }
        return m;
    }
    kids[0] = (size_t)n->left;
    kids[1] = (size_t)n->right;
    return 2;
}

/* The leaf values a tree adds to the score: val(leaf)[g] for the G groups. */
typedef struct ref_tree {
    const gv_tree *t;
    double *val; /* [n_nodes * G] */
} ref_tree;

static double expect(const ref_tree *r, size_t G, size_t g, size_t k, const float *x,
                     unsigned set)
{
    const gv_tree *t = r->t;
    const gv_tree_node *n = &t->nodes[k];
    if (n->type == GV_NODE_LEAF) return r->val[k * G + g];
    if (set >> n->feature & 1u) return expect(r, G, g, gv_tree_child(t, k, x[n->feature]), x, set);
    size_t kids[64], m = children(t, k, kids);
    double s = 0;
    for (size_t j = 0; j < m; j++) {
        const gv_tree_node *c = &t->nodes[kids[j]];
        double z = n->weight > 0 ? c->weight / n->weight
                 : n->count > 0  ? c->count / n->count
                                 : 1.0 / (double)m;
        s += z * expect(r, G, g, kids[j], x, set);
    }
    return s;
}

/* The ensemble's trees with their leaf values in score space, and the bias (G groups). */
static size_t ref_trees(const grove_model *m, ref_tree *out, double *bias, size_t *G)
{
    gv_gbdt_view gb;
    gv_bagging_view bg;
    size_t n = 0;
    if (gv_gbdt_view_of(&m->root, &gb)) {
        *G = gb.n_groups;
        for (size_t g = 0; g < *G; g++) bias[g] = gb.base[g];
        for (size_t k = 0; k < gb.n_rounds * gb.n_groups; k++) {
            const gv_tree *t = gb.trees[k];
            out[n].t = t;
            out[n].val = calloc(t->n_nodes * *G, sizeof(double));
            for (size_t l = 0; l < t->n_nodes; l++) out[n].val[l * *G + k % *G] = t->values[l];
            n++;
        }
        return n;
    }
    if (gv_bagging_view_of(&m->root, &bg)) {
        *G = bg.n_classes ? (size_t)bg.n_classes : 1;
        for (size_t g = 0; g < *G; g++) bias[g] = 0;
        for (size_t k = 0; k < bg.n_members; k++) {
            const gv_tree *t = bg.members[k].impl;
            out[n].t = t;
            out[n].val = calloc(t->n_nodes * *G, sizeof(double));
            for (size_t l = 0; l < t->n_nodes * *G; l++)
                out[n].val[l] = t->values[l] / (double)bg.n_members;
            n++;
        }
        return n;
    }
    const gv_tree *t = m->root.impl; /* a lone tree */
    *G = (size_t)t->n_outputs;
    for (size_t g = 0; g < *G; g++) bias[g] = 0;
    out[0].t = t;
    out[0].val = calloc(t->n_nodes * *G, sizeof(double));
    memcpy(out[0].val, t->values, t->n_nodes * *G * sizeof(double));
    return 1;
}

static double fact(int k)
{
    double f = 1;
    for (int i = 2; i <= k; i++) f *= i;
    return f;
}

/* Checks contributions and interaction values of every row of d against the enumeration. */
static void check_exact(const char *what, const grove_model *m, const grove_dataset *d)
{
    ref_tree trees[512];
    double bias[8];
    size_t G = 0, nt = ref_trees(m, trees, bias, &G);
    const size_t M = N_FEAT, F1 = M + 1, n = grove_dataset_n_rows(d);
    size_t g_api = 0;
    CHECK_OK(grove_model_contrib_groups(m, &g_api));
    CHECK_EQ_INT(g_api, G);
    double *phi = malloc(n * G * F1 * sizeof *phi);
    double *inter = malloc(n * G * F1 * F1 * sizeof *inter);
    CHECK_OK(grove_model_predict_contrib(m, d, 0, 2, phi, n * G * F1));
    CHECK_OK(grove_model_predict_contrib(m, d, 1, 2, inter, n * G * F1 * F1));
    double worst = 0, worst_i = 0;
    for (size_t i = 0; i < n; i += 7) {
        float x[N_FEAT];
        for (size_t f = 0; f < M; f++) x[f] = gv_value(d, f, i);
        for (size_t g = 0; g < G; g++) {
            double fs[1 << N_FEAT];
            for (unsigned S = 0; S < 1u << M; S++) {
                fs[S] = bias[g];
                for (size_t k = 0; k < nt; k++) fs[S] += expect(&trees[k], G, g, 0, x, S);
            }
            const double *ph = phi + (i * G + g) * F1;
            double e = fabs(ph[M] - fs[0]);
            if (e > worst) worst = e;
            for (size_t a = 0; a < M; a++) {
                double want = 0;
                for (unsigned S = 0; S < 1u << M; S++) {
                    if (S >> a & 1u) continue;
                    int s = __builtin_popcount(S);
                    want += fact(s) * fact((int)M - s - 1) / fact((int)M) * (fs[S | 1u << a] - fs[S]);
                }
                e = fabs(ph[a] - want);
                if (e > worst) worst = e;
                for (size_t b = 0; b < M; b++) {
                    if (b == a) continue;
                    double wij = 0;
                    for (unsigned S = 0; S < 1u << M; S++) {
                        if ((S >> a & 1u) || (S >> b & 1u)) continue;
                        int s = __builtin_popcount(S);
                        wij += fact(s) * fact((int)M - s - 2) / (2 * fact((int)M - 1)) *
                               (fs[S | 1u << a | 1u << b] - fs[S | 1u << a] - fs[S | 1u << b] + fs[S]);
                    }
                    e = fabs(inter[((i * G + g) * F1 + a) * F1 + b] - wij);
                    if (e > worst_i) worst_i = e;
                }
            }
        }
    }
    fprintf(stderr, "%s: %zu trees, largest error %.3g (contributions), %.3g (interactions)\n",
            what, nt, worst, worst_i);
    CHECK(worst < 1e-12);
    CHECK(worst_i < 1e-12);
    for (size_t k = 0; k < nt; k++) free(trees[k].val);
    free(phi);
    free(inter);
}

/* ---- local accuracy, interactions' sums, threads ---- */

static void link_check(const char *what, const grove_model *m, const grove_dataset *d,
                       const double *margin, size_t G)
{
    const size_t n = grove_dataset_n_rows(d), K = grove_model_n_outputs(m);
    double *p = malloc(n * K * sizeof *p);
    CHECK_OK(grove_model_predict(m, d, 1, p, n * K));
    const char *algo = grove_model_algo(m);
    double worst = 0;
    char obj[64] = "";
    gv_boost_view bv;
    if (strcmp(algo, "gbdt") == 0) {
        gv_gbdt_view v;
        gv_gbdt_view_of(&m->root, &v);
        snprintf(obj, sizeof obj, "%s", v.objective);
    }
    for (size_t i = 0; i < n; i++) {
        const double *s = margin + i * G, *pi = p + i * K;
        double q[8];
        if (strcmp(algo, "gbdt") == 0) {
            if (G == 1 && K == 2) {
                double f = strcmp(obj, "exponential") == 0 ? 2 * s[0] : s[0];
                q[1] = 1 / (1 + exp(-f));
                q[0] = 1 - q[1];
            } else if (G > 1) {
                double z = 0, mx = s[0];
                for (size_t c = 1; c < G; c++) mx = fmax(mx, s[c]);
                for (size_t c = 0; c < G; c++) z += q[c] = exp(s[c] - mx);
                for (size_t c = 0; c < G; c++) q[c] /= z;
            } else {
                q[0] = s[0];
            }
        } else if (gv_boost_view_of(&m->root, &bv)) {
            /* boost.c: softmax of the scores times the variant's scale */
            double kk = (double)K, scale = 2, mx = -INFINITY, z = 0;
            if (strcmp(algo, "adaboost.m1") == 0 || strcmp(algo, "samme") == 0)
                scale = kk / ((kk - 1) * (kk - 1));
            else if (strcmp(algo, "samme.r") == 0)
                scale = 1 / (kk - 1);
            else if (strcmp(algo, "adaboost.m2") == 0) {
                double za = 0;
                for (size_t t = 0; t < bv.n_members; t++) za += fabs(bv.alpha[t]);
                scale = 1 / za;
            }
            for (size_t c = 0; c < K; c++) mx = fmax(mx, scale * s[c]);
            for (size_t c = 0; c < K; c++) z += q[c] = exp(scale * s[c] - mx);
            for (size_t c = 0; c < K; c++) q[c] /= z;
        } else {
            for (size_t c = 0; c < K; c++) q[c] = s[c];
        }
        for (size_t c = 0; c < K; c++) {
            double e = fabs(q[c] - pi[c]);
            if (!(e <= worst)) worst = e;
        }
    }
    fprintf(stderr, "%s: score -> prediction, largest error %.3g\n", what, worst);
    CHECK(worst < 1e-12);
    free(p);
}

static void check_additive(const char *what, const char *const *kv, int task)
{
    grove_dataset *d = make_data(task, 7);
    grove_model *m = fx_train(d, NULL, kv);
    if (!m) {
        grove_dataset_free(d);
        return;
    }
    const size_t n = grove_dataset_n_rows(d), F1 = N_FEAT + 1;
    size_t G = 0;
    CHECK_OK(grove_model_contrib_groups(m, &G));
    double *phi = malloc(n * G * F1 * sizeof *phi), *phi3 = malloc(n * G * F1 * sizeof *phi);
    double *inter = malloc(n * G * F1 * F1 * sizeof *inter), *margin = malloc(n * G * sizeof *margin);
    CHECK_OK(grove_model_predict_contrib(m, d, 0, 1, phi, n * G * F1));
    CHECK_OK(grove_model_predict_contrib(m, d, 0, 3, phi3, n * G * F1));
    CHECK(memcmp(phi, phi3, n * G * F1 * sizeof *phi) == 0);
    CHECK_OK(grove_model_predict_contrib(m, d, 1, 3, inter, n * G * F1 * F1));
    CHECK_OK(grove_model_predict_margin(m, d, 2, margin, n * G));
    double worst = 0, worst_row = 0, worst_sym = 0, scale = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t g = 0; g < G; g++) {
            const double *ph = phi + (i * G + g) * F1;
            double s = 0;
            for (size_t j = 0; j < F1; j++) s += ph[j];
            if (!(fabs(s - margin[i * G + g]) <= worst)) worst = fabs(s - margin[i * G + g]);
            scale = fmax(scale, fabs(margin[i * G + g]));
            for (size_t a = 0; a < F1; a++) {
                const double *row = inter + ((i * G + g) * F1 + a) * F1;
                double r = 0;
                for (size_t b = 0; b < F1; b++) {
                    r += row[b];
                    double e = fabs(row[b] - inter[((i * G + g) * F1 + b) * F1 + a]);
                    if (!(e <= worst_sym)) worst_sym = e;
                }
                if (!(fabs(r - ph[a]) <= worst_row)) worst_row = fabs(r - ph[a]);
            }
        }
    fprintf(stderr, "%s: G %zu, |score| <= %.3g, sum - score %.3g, interaction rows - phi %.3g, "
            "asymmetry %.3g\n", what, G, scale, worst, worst_row, worst_sym);
    CHECK(worst < 1e-9);
    CHECK(worst_row < 1e-9);
    CHECK(worst_sym < 1e-9);
    link_check(what, m, d, margin, G);
    free(phi);
    free(phi3);
    free(inter);
    free(margin);
    grove_model_free(m);
    grove_dataset_free(d);
}

static void exact(const char *what, const char *const *kv, int task)
{
    grove_dataset *d = make_data(task, 11);
    grove_model *m = fx_train(d, NULL, kv);
    if (m) check_exact(what, m, d);
    grove_model_free(m);
    grove_dataset_free(d);
}

int main(void)
{
    exact("gbdt binary", (const char *const[]){"algo=gbdt", "rounds=12", "max_depth=4", NULL}, 0);
    exact("gbdt softmax", (const char *const[]){"algo=gbdt", "rounds=6", "max_depth=3", NULL}, 1);
    exact("gbdt squared", (const char *const[]){"algo=gbdt", "rounds=8", "max_depth=5",
                                                "subsample=0.7", "seed=3", NULL}, 2);
    exact("tree", (const char *const[]){"algo=tree", "max_depth=6", NULL}, 1);
    exact("id3", (const char *const[]){"algo=id3", "max_depth=4", NULL}, 0);
    exact("forest regression", (const char *const[]){"algo=forest", "rounds=5", "max_depth=6", NULL}, 2);

    check_additive("gbdt logistic", (const char *const[]){"algo=gbdt", "rounds=30", "max_depth=6", NULL}, 0);
    check_additive("gbdt softmax", (const char *const[]){"algo=gbdt", "rounds=10", NULL}, 1);
    check_additive("gbdt squared", (const char *const[]){"algo=gbdt", "rounds=20", NULL}, 2);
    check_additive("gbdt exponential", (const char *const[]){"algo=gbdt", "rounds=10", "objective=exponential", NULL}, 0);
    check_additive("tree", (const char *const[]){"algo=tree", NULL}, 1);
    check_additive("tree regression", (const char *const[]){"algo=tree", NULL}, 2);
    check_additive("id3", (const char *const[]){"algo=id3", NULL}, 1);
    check_additive("stump", (const char *const[]){"algo=stump", NULL}, 0);
    check_additive("forest", (const char *const[]){"algo=forest", "rounds=20", NULL}, 1);
    check_additive("forest regression", (const char *const[]){"algo=forest", "rounds=20", NULL}, 2);
    check_additive("extra-trees", (const char *const[]){"algo=extra-trees", "rounds=20", NULL}, 0);
    check_additive("bagging hard", (const char *const[]){"algo=bagging", "rounds=15", "base=tree", "bagging.vote=hard", NULL}, 1);
    check_additive("bagging soft", (const char *const[]){"algo=bagging", "rounds=15", "base=tree", "bagging.vote=soft", NULL}, 0);
    check_additive("adaboost", (const char *const[]){"algo=adaboost", "rounds=20", NULL}, 0);
    check_additive("adaboost.m1", (const char *const[]){"algo=adaboost.m1", "rounds=20", "base=tree", "base.max_depth=2", NULL}, 1);
    check_additive("samme", (const char *const[]){"algo=samme", "rounds=20", NULL}, 1);
    check_additive("samme.r", (const char *const[]){"algo=samme.r", "rounds=20", "base=tree", "base.max_depth=2", NULL}, 1);
    check_additive("adaboost.m2", (const char *const[]){"algo=adaboost.m2", "rounds=20", "base=tree", "base.max_depth=2", NULL}, 1);

    /* refused: no sum over trees */
    grove_dataset *d = make_data(2, 5);
    grove_model *m = fx_train(d, NULL, (const char *const[]){"algo=adaboost.r2", "rounds=5", NULL});
    size_t G = 9;
    double out[N_ROWS * (N_FEAT + 1)];
    if (m) {
        CHECK_STATUS(grove_model_contrib_groups(m, &G), GROVE_ERR_ARG);
        CHECK_EQ_INT(G, 0);
        CHECK_CONTAINS(grove_last_error(), "adaboost.r2");
        CHECK_STATUS(grove_model_predict_contrib(m, d, 0, 1, out, N_ROWS * (N_FEAT + 1)), GROVE_ERR_ARG);
    }
    grove_model_free(m);
    m = fx_train(d, NULL, (const char *const[]){"algo=gbdt", "rounds=3", NULL});
    if (m) {
        CHECK_STATUS(grove_model_predict_contrib(m, d, 0, 1, out, N_ROWS * (N_FEAT + 1) - 1), GROVE_ERR_ARG);
        CHECK_CONTAINS(grove_last_error(), "out holds");
        CHECK_STATUS(grove_model_predict_contrib(NULL, d, 0, 1, out, 1), GROVE_ERR_ARG);
    }
    grove_model_free(m);
    grove_dataset_free(d);
    TEST_MAIN_END();
}
