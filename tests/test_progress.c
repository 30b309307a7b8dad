/*
 * test_progress.c -- the round callback (grove_params_set_round_callback): one call per logged
 * round of gbdt and of the AdaBoost family, with the values the model's log keeps, and
 * cancellation by its return value (training then fails with "cancelled", no model).
 */
#include "check.h"

#include <stdlib.h>

enum { N = 400, F = 4 };

typedef struct calls {
    size_t n, cancel_after, last_round, total;
    char metric[32];
    double train[256], valid[256];
} calls;

static int on_round(void *ctx, size_t round, size_t total, const char *metric, double train,
                    double valid)
{
    calls *c = ctx;
    if (c->n < 256) {
        c->train[c->n] = train;
        c->valid[c->n] = valid;
    }
    c->n++;
    c->last_round = round;
    c->total = total;
    snprintf(c->metric, sizeof c->metric, "%s", metric);
    return c->cancel_after && c->n >= c->cancel_after;
}

static grove_dataset *data(const grove_params *p, const grove_schema *s, unsigned seed)
{
    static double x[N * F], y[N];
    srand(seed);
    for (size_t i = 0; i < N; i++) {
        double sum = 0;
        for (size_t f = 0; f < F; f++) sum += x[i * F + f] = rand() / (double)RAND_MAX - 0.5;
        y[i] = sum + 0.3 * (rand() / (double)RAND_MAX - 0.5) > 0;
    }
    grove_dataset *d = NULL;
    CHECK_OK(grove_dataset_from_array(x, GROVE_FLOAT64, N, F, y, NULL, NULL, p, s, &d));
    return d;
}

/* The n-th number of the log's column `col` (1-based row). */
static double log_value(const char *csv, size_t row, size_t col)
{
    const char *q = csv;
    for (size_t r = 0; r < row && q; r++) q = strchr(q, '\n') ? strchr(q, '\n') + 1 : NULL;
    for (size_t c = 0; c < col && q; c++) q = strchr(q, ',') ? strchr(q, ',') + 1 : NULL;
    return q ? strtod(q, NULL) : NAN;
}

static void run(const char *algo, const char *metric, int with_train)
{
    grove_params *p = NULL;
    CHECK_OK(grove_params_create(&p));
    CHECK_OK(grove_params_set(p, "algo", algo));
    CHECK_OK(grove_params_set(p, "rounds", "12"));
    CHECK_OK(grove_params_set(p, "task", "classification"));
    grove_dataset *tr = data(p, NULL, 1);
    grove_dataset *va = tr ? data(p, grove_dataset_schema(tr), 2) : NULL;
    calls c = {0};
    CHECK_OK(grove_params_set_round_callback(p, on_round, &c));
    grove_model *m = NULL;
    CHECK_OK(grove_train(tr, va, p, &m));
    CHECK_EQ_INT(c.n, grove_model_n_rounds(m));
    CHECK_EQ_INT(c.last_round, c.n);
    CHECK_EQ_INT(c.total, 12);
    CHECK_STR(c.metric, metric);
    char *log = NULL;
    if (m) CHECK_OK(grove_model_log_csv(m, &log));
    for (size_t t = 0; log && t < c.n; t++) {
        /* gbdt's log: t,valid_M; boosting's: t,epsilon,gamma,alpha,Z,train_error,...,valid_error */
        CHECK(with_train ? c.train[t] == log_value(log, t + 1, 5) : isnan(c.train[t]));
        CHECK(c.valid[t] == log_value(log, t + 1, with_train ? 8 : 1));
    }
    grove_string_free(log);
    grove_model_free(m);
    /* cancelled after the third round */
    calls k = {0};
    k.cancel_after = 3;
    CHECK_OK(grove_params_set_round_callback(p, on_round, &k));
    m = NULL;
    CHECK_STATUS(grove_train(tr, va, p, &m), GROVE_ERR_ARG);
    CHECK(m == NULL);
    CHECK_CONTAINS(grove_last_error(), "cancelled");
    CHECK_EQ_INT(k.n, 3);
    grove_dataset_free(va);
    grove_dataset_free(tr);
    grove_params_free(p);
}

int main(void)
{
    run("gbdt", "logloss", 0);
    run("adaboost", "error", 1);
    TEST_MAIN_END();
}
