/*
 * test_concurrency.c -- trained models are immutable, so many threads may predict with one
 * model at once (STYLE.md, grove.h): a stress test, run under ThreadSanitizer by
 * scripts/test.sh (cmake -DGROVE_TSAN=ON builds the library with -fsanitize=thread and
 * registers only this test, label "tsan") and as an ordinary unit test everywhere else.
 *
 * 8 threads predict with one shared forest and one shared gbdt (probabilities and labels, each
 * call single-threaded) while 3 threads load models (from a buffer, from a file, from a gzip
 * file), predict with them and free them, and 1 thread feeds malformed buffers and checks that
 * the error message it reads is its own (errors are per thread).  Every prediction must equal,
 * bit for bit, the one made before the threads started.
 */
#include "check.h"
#include "fixtures.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define N_PREDICTORS 8
#define N_ROUNDS 30

static grove_dataset *data;
static grove_model *models[2];
static double *reference[2], *reference_label[2];
static size_t n_out[2];
static char *buffers[2];
static size_t buffer_len[2];
static char paths[2][400];
static atomic_int n_mismatch, n_errors;

static int same(const double *a, const double *b, size_t n)
{
    return memcmp(a, b, n * sizeof *a) == 0;
}

static void *predictor(void *arg)
{
    int k = (int)(size_t)arg % 2;
    size_t n_rows = grove_dataset_n_rows(data);
    double *out = malloc(n_out[k] * sizeof *out);
    for (int r = 0; out && r < N_ROUNDS; r++) {
        if (grove_model_predict(models[k], data, 1, out, n_out[k]) != GROVE_OK) n_errors++;
        else if (!same(out, reference[k], n_out[k])) n_mismatch++;
        if (grove_model_predict_label(models[k], data, 1, out, n_rows) != GROVE_OK) n_errors++;
        else if (!same(out, reference_label[k], n_rows)) n_mismatch++;
    }
    free(out);
    return NULL;
}

/* Loads model k (way 0: buffer, 1: file, 2: gzip file), predicts, frees; N_ROUNDS / 3 times. */
static void *loader(void *arg)
{
    int way = (int)(size_t)arg;
    for (int r = 0; r < N_ROUNDS / 3; r++) {
        int k = r % 2;
        grove_model *m = NULL;
        grove_status st;
        if (way == 0) {
            st = grove_model_from_buffer(buffers[k], buffer_len[k], &m);
        } else {
            char path[820];
            snprintf(path, sizeof path, "%s%s", paths[k], way == 2 ? ".gz" : "");
            st = grove_model_load(path, &m);
        }
        double *out = malloc(n_out[k] * sizeof *out);
        if (st != GROVE_OK || !out || grove_model_predict(m, data, 1, out, n_out[k]) != GROVE_OK)
            n_errors++;
        else if (!same(out, reference[k], n_out[k]))
            n_mismatch++;
        free(out);
        grove_model_free(m);
    }
    return NULL;
}

/* Malformed buffers: the last error this thread reads must be about its own input. */
static void *bad_loader(void *arg)
{
    (void)arg;
    for (int r = 0; r < N_ROUNDS; r++) {
        char text[64];
        snprintf(text, sizeof text, "{\"format\": \"grove-model\", \"round%d\": [", r);
        grove_model *m = NULL;
        if (grove_model_from_buffer(text, strlen(text), &m) == GROVE_OK || m) n_errors++;
        const char *e = grove_last_error();
        if (!strstr(e, "<buffer>")) n_mismatch++;
    }
    return NULL;
}

static grove_model *train(const char *algo)
{
    grove_params *p = NULL;
    grove_model *m = NULL;
    CHECK_OK(grove_params_create(&p));
    CHECK_OK(grove_params_set(p, "algo", algo));
    CHECK_OK(grove_params_set(p, "rounds", "20"));
    CHECK_OK(grove_params_set(p, "max_depth", "6"));
    CHECK_OK(grove_train(data, NULL, p, &m));
    grove_params_free(p);
    return m;
}

int main(void)
{
    /* 400 rows, 6 features, 3 classes from two of them */
    enum { N = 400, F = 6 };
    static double x[N * F], y[N];
    uint64_t s = 42;
    for (int i = 0; i < N; i++) {
        for (int f = 0; f < F; f++) x[i * F + f] = fx_unif(&s);
        y[i] = (double)((x[i * F] + x[i * F + 1] > 1.0) + (x[i * F + 2] > 0.7));
    }
    CHECK_OK(grove_dataset_from_array(x, GROVE_FLOAT64, N, F, y, NULL, NULL, NULL, NULL, &data));
    if (!data) TEST_MAIN_END();
    models[0] = train("forest");
    models[1] = train("gbdt");
    if (!models[0] || !models[1]) TEST_MAIN_END();

    char dir[256];
    snprintf(dir, sizeof dir, "/tmp/grove_test_concurrency_%ld", (long)getpid());
    CHECK(mkdir(dir, 0700) == 0);
    for (int k = 0; k < 2; k++) {
        n_out[k] = N * grove_model_n_outputs(models[k]);
        reference[k] = malloc(n_out[k] * sizeof *reference[k]);
        reference_label[k] = malloc(N * sizeof *reference_label[k]);
        if (!reference[k] || !reference_label[k]) TEST_MAIN_END();
        CHECK_OK(grove_model_predict(models[k], data, 1, reference[k], n_out[k]));
        CHECK_OK(grove_model_predict_label(models[k], data, 1, reference_label[k], N));
        CHECK_OK(grove_model_to_buffer(models[k], &buffers[k], &buffer_len[k]));
        snprintf(paths[k], sizeof paths[k], "%s/model%d.json", dir, k);
        CHECK_OK(grove_model_save(models[k], paths[k]));
        char gz[820];
        snprintf(gz, sizeof gz, "%s.gz", paths[k]);
        CHECK_OK(grove_model_save(models[k], gz));
    }

    pthread_t th[N_PREDICTORS + 4];
    int n_th = 0;
    for (size_t i = 0; i < N_PREDICTORS; i++)
        CHECK(pthread_create(&th[n_th++], NULL, predictor, (void *)i) == 0);
    for (size_t way = 0; way < 3; way++)
        CHECK(pthread_create(&th[n_th++], NULL, loader, (void *)way) == 0);
    CHECK(pthread_create(&th[n_th++], NULL, bad_loader, NULL) == 0);
    for (int i = 0; i < n_th; i++) pthread_join(th[i], NULL);
    CHECK_EQ_INT(atomic_load(&n_errors), 0);
    CHECK_EQ_INT(atomic_load(&n_mismatch), 0);
    printf("concurrency: %d predicting threads x %d rounds, 3 loading, 1 failing: %d "
           "mismatches, %d errors\n", N_PREDICTORS, N_ROUNDS, atomic_load(&n_mismatch),
           atomic_load(&n_errors));

    for (int k = 0; k < 2; k++) {
        free(reference[k]);
        free(reference_label[k]);
        grove_string_free(buffers[k]);
        grove_model_free(models[k]);
    }
    grove_dataset_free(data);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    TEST_MAIN_END();
}
