/*
 * test_rank.c -- loss/rank.c: the ranking objectives' gradients and the metrics NDCG@k, MAP@k.
 *
 * rank:pairwise against central finite differences of its loss, sum over pairs y_i > y_j of
 * log(1 + e^{-(F_i - F_j)}) (the gradient is exact; the hessian is the diagonal of the
 * Gauss-Newton form, checked on one pair where it is exact); lambdarank's lambdas point the
 * right way (a more relevant row gets a negative gradient) and vanish for a query of equal
 * grades; both give the same bits on 1 and 4 threads; NDCG@k and MAP@k on hand-worked queries.
 */
#include "check.h"
#include "loss/loss.h"

#include <math.h>
#include <string.h>

static double pairwise_loss(const double *y, const double *F, size_t m)
{
    double l = 0;
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < m; j++)
            if (y[i] > y[j]) l += log1p(exp(-(F[i] - F[j])));
    return l;
}

static void test_pairwise_gradient(void)
{
    const double y[6] = {2, 0, 1, 1, 0, 3};
    double F[6] = {0.3, -0.2, 0.8, 0.1, 0.5, -0.4};
    const size_t ptr[2] = {0, 6};
    gv_loss_params lp;
    memset(&lp, 0, sizeof lp);
    double g[6], h[6];
    CHECK(gv_rank_gradients(GV_OBJ_RANK_PAIRWISE, y, NULL, F, 6, ptr, 1, &lp, 1, g, h));
    for (size_t i = 0; i < 6; i++) {
        const double e = 1e-6, f0 = F[i];
        F[i] = f0 + e;
        double lp1 = pairwise_loss(y, F, 6);
        F[i] = f0 - e;
        double lm1 = pairwise_loss(y, F, 6);
        F[i] = f0;
        CHECK_NEAR(g[i], (lp1 - lm1) / (2 * e), 1e-5); /* (g is rounded to float) */
        CHECK(h[i] > 0);
    }
    /* one pair: h is the exact second derivative p (1 - p) */
    const double y2[2] = {1, 0}, F2[2] = {0.4, 0.1};
    const size_t p2[2] = {0, 2};
    CHECK(gv_rank_gradients(GV_OBJ_RANK_PAIRWISE, y2, NULL, F2, 2, p2, 1, &lp, 1, g, h));
    const double p = 1 / (1 + exp(0.3));
    CHECK_NEAR(g[0], -p, 1e-7);
    CHECK_NEAR(g[1], p, 1e-7);
    CHECK_NEAR(h[0], p * (1 - p), 1e-7);
}

static void test_lambdarank(void)
{
    enum { N = 3000 };
    static double y[N], F[N], g1[N], h1[N], g4[N], h4[N];
    static size_t ptr[N + 1];
    size_t nq = 0;
    uint64_t s = 12345;
    for (size_t i = 0; i < N; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        y[i] = (double)((s >> 33) % 5);
        F[i] = (double)((s >> 20) % 1000) / 500.0 - 1;
        if (i % 37 == 0) ptr[nq++] = i;
    }
    ptr[nq] = N;
    gv_loss_params lp;
    memset(&lp, 0, sizeof lp);
    lp.lambdarank_truncation = 30;
    for (int obj = GV_OBJ_LAMBDARANK; obj <= GV_OBJ_RANK_PAIRWISE; obj++) {
        CHECK(gv_rank_gradients(obj, y, NULL, F, N, ptr, nq, &lp, 1, g1, h1));
        CHECK(gv_rank_gradients(obj, y, NULL, F, N, ptr, nq, &lp, 4, g4, h4));
        CHECK(!memcmp(g1, g4, sizeof g1) && !memcmp(h1, h4, sizeof h1));
    }
    /* two rows, the relevant one below: it is pushed up, the other down */
    const double y2[2] = {0, 2}, F2[2] = {1, 0};
    const size_t p2[2] = {0, 2};
    double g[3], h[3];
    CHECK(gv_rank_gradients(GV_OBJ_LAMBDARANK, y2, NULL, F2, 2, p2, 1, &lp, 1, g, h));
    CHECK(g[1] < 0 && g[0] > 0);
    CHECK_NEAR(g[0], -g[1], 0);
    /* equal grades: nothing to learn */
    const double y3[3] = {1, 1, 1}, F3[3] = {0.1, 0.2, 0.3};
    const size_t p3[2] = {0, 3};
    CHECK(gv_rank_gradients(GV_OBJ_LAMBDARANK, y3, NULL, F3, 3, p3, 1, &lp, 1, g, h));
    CHECK_EQ_DBL(g[0], 0);
    CHECK_EQ_DBL(g[2], 0);
}

static void test_metrics(void)
{
    /* scores order rows 2, 0, 1; grades 1, 0, 2 in that order */
    const double s[3] = {0.5, 0.1, 0.9}, y[3] = {0, 2, 1};
    const double dcg = 1.0 / log2(2) + 0 + 3.0 / log2(4);
    const double idcg = 3.0 / log2(2) + 1.0 / log2(3);
    CHECK_NEAR(gv_rank_query_metric(GV_MET_NDCG, s, y, 3, 10), dcg / idcg, 1e-15);
    CHECK_NEAR(gv_rank_query_metric(GV_MET_NDCG, s, y, 3, 1), 1.0 / 3.0, 1e-15);
    /* relevant at positions 1 and 3: AP = (1/1 + 2/3) / 2; at k = 2 only the first counts */
    CHECK_NEAR(gv_rank_query_metric(GV_MET_MAP, s, y, 3, 10), (1 + 2.0 / 3) / 2, 1e-15);
    CHECK_NEAR(gv_rank_query_metric(GV_MET_MAP, s, y, 3, 2), 0.5, 1e-15);
    const double z[3] = {0, 0, 0};
    CHECK_EQ_DBL(gv_rank_query_metric(GV_MET_NDCG, s, z, 3, 10), 1);
    CHECK_EQ_DBL(gv_rank_query_metric(GV_MET_MAP, s, z, 3, 10), 1);
}

int main(void)
{
    test_pairwise_gradient();
    test_lambdarank();
    test_metrics();
    TEST_MAIN_END();
}
