/*
 * test_model_hostile.c -- model files and inputs built to break the reader or the trainer, each
 * one a regression test of a crash or a silent wrong answer once found from outside.
 *
 * Files are edited as JSON with the checksum recomputed the way the writer computes it
 * (model_json.c), so that the reader's checks, not the checksum, meet them.  Checked:
 * parameter keys deeper or longer than GROVE_PARAM_MAX_NESTING / GROVE_PARAM_KEY_MAX are
 * refused without recursion (a 100,000-level key once overflowed the stack), and every key
 * within the bounds survives save -> load in both formats (a 60-level key once loaded and
 * then saved as a file its own reader refused); models read from a FIFO, text, gzip and
 * binary (once a hang, or "empty file" from a pipe); a file rewritten in place while it is
 * loaded, over and over, gives a model or an error and never a signal (mapped files once died
 * of SIGBUS); a binary string with a NUL byte inside ("demo\0rat": once cut short silently);
 * finite weights and leaves whose sums overflow (alphas of 1e308, leaves of 1e308: once NaN or
 * +-inf predictions), refused at load or predicted as numbers.
 */
#include "check.h"

#include "model/model.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdint.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define CANONICAL (JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17))

static char tmpdir[256];

static const char *tmp_path(const char *name)
{
    static char buf[8][512];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, 512, "%s/%s", tmpdir, name);
    return p;
}

/* The model file at `path`, parsed (a new reference). */
static json_t *load_doc(const char *path)
{
    json_error_t e;
    json_t *doc = json_load_file(path, 0, &e);
    if (!doc) fprintf(stderr, "%s: %s\n", path, e.text);
    return doc;
}

/* Writes doc to path with its "crc32" recomputed. */
static void save_doc(json_t *doc, const char *path)
{
    json_object_del(doc, "crc32");
    char *canon = json_dumps(doc, CANONICAL);
    char hex[9];
    snprintf(hex, sizeof hex, "%08lx", crc32(0L, (const Bytef *)canon, (uInt)strlen(canon)));
    free(canon);
    json_object_set_new(doc, "crc32", json_string(hex));
    CHECK(json_dump_file(doc, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER |
                                        JSON_REAL_PRECISION(17)) == 0);
}

/* A small model trained on examples/data/`data` (`algo`, extra "key=value" settings), saved. */
static void train_data_to(const char *algo, const char *extra, const char *data, const char *path)
{
    grove_params *p = NULL;
    grove_dataset *d = NULL;
    grove_model *m = NULL;
    char kv[256];
    CHECK_OK(grove_params_create(&p));
    snprintf(kv, sizeof kv, "algo=%s", algo);
    CHECK_OK(grove_params_set_pair(p, kv));
    CHECK_OK(grove_params_set(p, "rounds", "5"));
    if (extra) CHECK_OK(grove_params_set_pair(p, extra));
    char file[256];
    snprintf(file, sizeof file, "examples/data/%s", data);
    CHECK_OK(grove_dataset_load(file, p, NULL, &d));
    CHECK_OK(grove_train(d, NULL, p, &m));
    CHECK_OK(grove_model_save(m, path));
    grove_model_free(m);
    grove_dataset_free(d);
    grove_params_free(p);
}

/* The same on the house votes (classification). */
static void train_to(const char *algo, const char *extra, const char *path)
{
    train_data_to(algo, extra, "house_votes84_train.csv", path);
}

/* "base." n times, then `name` (new, free with free()). */
static char *nested_key(size_t n, const char *name)
{
    char *k = malloc(n * 5 + strlen(name) + 1);
    for (size_t i = 0; i < n; i++) memcpy(k + 5 * i, "base.", 5);
    strcpy(k + 5 * n, name);
    return k;
}

/* Loading `path` fails with GROVE_ERR_MODEL and a message holding `want`. */
static void expect_refused(const char *path, const char *want)
{
    grove_model *m = NULL;
    CHECK_STATUS(grove_model_load(path, &m), GROVE_ERR_MODEL);
    CHECK(m == NULL);
    CHECK_CONTAINS(grove_last_error(), want);
    grove_model_free(m);
}

/* The params of a saved model with `key` added; is the file refused, naming `want`? */
static void check_key_refused(const char *good, const char *key, const char *want)
{
    json_t *doc = load_doc(good);
    json_object_set_new(json_object_get(doc, "params"), key, json_string("3"));
    const char *bad = tmp_path("deep.json");
    save_doc(doc, bad);
    json_decref(doc);
    expect_refused(bad, want);
}

static void test_param_keys(void)
{
    /* the bounds, set directly: refused with the key and the limit, nothing changed */
    grove_params *p = NULL;
    CHECK_OK(grove_params_create(&p));
    char *k = nested_key(GROVE_PARAM_MAX_NESTING + 1, "max_depth");
    CHECK_STATUS(grove_params_set(p, k, "3"), GROVE_ERR_PARAM);
    CHECK_CONTAINS(grove_last_error(), "levels of 'base.', at most 8");
    free(k);
    k = nested_key(100000, "max_depth");
    CHECK_STATUS(grove_params_set(p, k, "3"), GROVE_ERR_PARAM);
    CHECK_CONTAINS(grove_last_error(), "longer than 127 bytes");
    free(k);
    char buf[32];
    CHECK_OK(grove_params_get(p, "base.max_depth", buf, sizeof buf));
    CHECK_STR(buf, "0");
    k = nested_key(GROVE_PARAM_MAX_NESTING, "max_depth");
    CHECK_OK(grove_params_set(p, k, "4"));
    CHECK_OK(grove_params_get(p, k, buf, sizeof buf));
    CHECK_STR(buf, "4");
    /* a bad value at depth names every level, and creates none */
    grove_params *q = NULL;
    CHECK_OK(grove_params_create(&q));
    CHECK_STATUS(grove_params_set(q, "base.base.max_depth", "x"), GROVE_ERR_PARAM);
    CHECK_CONTAINS(grove_last_error(), "base: base: max_depth");
    grove_params_free(q);
    free(k);
    grove_params_free(p);

    /* model files: the 100,000-level key of a 524 KB file, a 60-level and a 9-level one */
    const char *good = tmp_path("good.json");
    train_to("adaboost", "base=tree", good);
    k = nested_key(100000, "max_depth");
    check_key_refused(good, k, "longer than 127 bytes");
    free(k);
    k = nested_key(60, "max_depth");
    check_key_refused(good, k, "longer than 127 bytes");
    free(k);
    k = nested_key(GROVE_PARAM_MAX_NESTING + 1, "seed");
    check_key_refused(good, k, "at most 8");
    free(k);

    /* within the bounds: what is written reads back, text and binary, and keeps the key */
    k = nested_key(GROVE_PARAM_MAX_NESTING, "max_depth");
    json_t *doc = load_doc(good);
    json_object_set_new(json_object_get(doc, "params"), k, json_string("3"));
    const char *deep = tmp_path("deep8.json");
    save_doc(doc, deep);
    json_decref(doc);
    grove_model *m = NULL, *back = NULL;
    CHECK_OK(grove_model_load(deep, &m));
    const char *outs[] = {tmp_path("again.json"), tmp_path("again.gvb")};
    for (int i = 0; i < 2 && m; i++) {
        CHECK_OK(grove_model_save(m, outs[i]));
        CHECK_OK(grove_model_load(outs[i], &back));
        grove_model_free(back);
        back = NULL;
    }
    grove_model_free(m);
    doc = load_doc(outs[0]);
    const json_t *v = json_object_get(json_object_get(doc, "params"), k);
    CHECK(json_is_string(v) && !strcmp(json_string_value(v), "3"));
    json_decref(doc);
    free(k);
}

/* The bytes of a file (new, free with free()). */
static unsigned char *read_bytes(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *b = NULL;
    *len = 0;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    b = malloc((size_t)n + 1);
    *len = fread(b, 1, (size_t)n, f);
    fclose(f);
    return b;
}

/* Writes b[0..len) to path in small pieces (a FIFO's reader sees several reads). */
static void write_slowly(const char *path, const unsigned char *b, size_t len)
{
    int fd = open(path, O_WRONLY);
    if (fd < 0) _exit(1);
    for (size_t done = 0; done < len;) {
        size_t n = len - done < 4096 ? len - done : 4096;
        ssize_t w = write(fd, b + done, n);
        if (w <= 0) _exit(1);
        done += (size_t)w;
    }
    close(fd);
    _exit(0);
}

static void test_fifo(void)
{
    const char *saved[] = {tmp_path("f.json"), tmp_path("f.json.gz"), tmp_path("f.gvb")};
    train_to("forest", NULL, saved[0]);
    grove_model *ref = NULL;
    CHECK_OK(grove_model_load(saved[0], &ref));
    CHECK_OK(grove_model_save(ref, saved[1]));
    CHECK_OK(grove_model_save(ref, saved[2]));
    const char *fifo = tmp_path("fifo");
    CHECK(mkfifo(fifo, 0600) == 0);
    for (int i = 0; i < 3; i++) {
        size_t len;
        unsigned char *b = read_bytes(saved[i], &len);
        pid_t pid = fork();
        if (pid == 0) write_slowly(fifo, b, len);
        grove_model *m = NULL;
        CHECK_OK(grove_model_load(fifo, &m));
        CHECK(m && grove_model_n_outputs(m) == grove_model_n_outputs(ref));
        grove_model_free(m);
        int ws = 0;
        waitpid(pid, &ws, 0);
        CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
        free(b);
    }
    grove_model_free(ref);
}

/* A child rewrites the file in place (truncate, then write: what cp and cat > do) with two
 * models of different sizes in turn, while this process loads it again and again. */
static void test_rewritten_underneath(void)
{
    const char *a = tmp_path("ra.json"), *b = tmp_path("rb.json");
    train_to("forest", NULL, a);
    train_to("adaboost", NULL, b);
    const char *exts[] = {"json", "gvb"};
    for (int e = 0; e < 2; e++) {
        char pa[600], pb[600], target[600];
        snprintf(pa, sizeof pa, "%s/x.%s", tmpdir, exts[e]);
        snprintf(pb, sizeof pb, "%s/y.%s", tmpdir, exts[e]);
        snprintf(target, sizeof target, "%s/live.%s", tmpdir, exts[e]);
        grove_model *m = NULL;
        CHECK_OK(grove_model_load(a, &m));
        CHECK_OK(grove_model_save(m, pa));
        grove_model_free(m);
        CHECK_OK(grove_model_load(b, &m));
        CHECK_OK(grove_model_save(m, pb));
        grove_model_free(m);
        size_t la, lb;
        unsigned char *ba = read_bytes(pa, &la), *bb = read_bytes(pb, &lb);
        FILE *f0 = fopen(target, "wb");
        fwrite(ba, 1, la, f0);
        fclose(f0);
        pid_t pid = fork();
        if (pid == 0) {
            for (int k = 0;; k++) {
                int fd = open(target, O_WRONLY | O_TRUNC);
                if (fd < 0) _exit(1);
                const unsigned char *src = k % 2 ? ba : bb;
                size_t len = k % 2 ? la : lb;
                for (size_t done = 0; done < len;) {
                    size_t n = len - done < 1024 ? len - done : 1024;
                    ssize_t w = write(fd, src + done, n);
                    if (w <= 0) _exit(1);
                    done += (size_t)w;
                }
                close(fd);
                nanosleep(&(struct timespec){0, 500000}, NULL); /* complete files too, at times */
            }
        }
        int ok = 0, refused = 0, other = 0;
        for (int i = 0; i < 300; i++) {
            grove_model *x = NULL;
            grove_status st = grove_model_load(target, &x);
            if (st == GROVE_OK)
                ok++;
            else if (st == GROVE_ERR_MODEL)
                refused++;
            else
                other++;
            grove_model_free(x);
        }
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        printf("rewritten .%s: %d loaded, %d refused, %d other\n", exts[e], ok, refused, other);
        CHECK_EQ_INT(ok + refused, 300);
        free(ba);
        free(bb);
    }
}

/* A .gvb file whose class name "democrat" holds a NUL byte, its CRC recomputed: refused. */
static void test_bin_nul(void)
{
    const char *json = tmp_path("n.json"), *gvb = tmp_path("n.gvb");
    train_to("tree", NULL, json);
    grove_model *m = NULL;
    CHECK_OK(grove_model_load(json, &m));
    CHECK_OK(grove_model_save(m, gvb));
    grove_model_free(m);
    size_t len;
    unsigned char *b = read_bytes(gvb, &len);
    unsigned char *at = NULL;
    for (size_t i = 24; b && i + 8 <= len; i++)
        if (!memcmp(b + i, "democrat", 8)) at = b + i;
    CHECK(at != NULL);
    if (!at) {
        free(b);
        return;
    }
    at[4] = 0;
    /* trailer: u64 payload length, u32 CRC-32 of the payload, "GVBE" */
    size_t n = len - 24 - 16;
    uint32_t crc = (uint32_t)crc32(0L, b + 24, (uInt)n);
    for (int k = 0; k < 4; k++) b[len - 8 + k] = (unsigned char)(crc >> (8 * k));
    FILE *f = fopen(gvb, "wb");
    fwrite(b, 1, len, f);
    fclose(f);
    free(b);
    expect_refused(gvb, "a string holds a NUL byte");
}

/* Every probability of the model at `path` on the examples' test rows is finite, in [0, 1],
 * and each row's sum to 1. */
static void check_finite_predictions(const char *path, const char *test)
{
    grove_model *m = NULL;
    CHECK_OK(grove_model_load(path, &m));
    if (!m) return;
    grove_dataset *d = NULL;
    CHECK_OK(grove_dataset_load(test, NULL, grove_model_schema(m), &d));
    size_t n = grove_dataset_n_rows(d), k = grove_model_n_outputs(m);
    double *p = malloc(n * k * sizeof *p);
    CHECK_OK(grove_model_predict(m, d, 1, p, n * k));
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        double sum = 0;
        for (size_t c = 0; c < k; c++) {
            double v = p[i * k + c];
            if (!(v >= 0 && v <= 1)) bad++;
            sum += v;
        }
        if (!(fabs(sum - 1) < 1e-9)) bad++;
    }
    CHECK_EQ_INT(bad, 0);
    free(p);
    grove_dataset_free(d);
    grove_model_free(m);
}

/* Every number of the array at doc's "model"."alpha" set to v. */
static void set_alphas(const char *from, const char *to, double v)
{
    json_t *doc = load_doc(from);
    json_t *alpha = json_object_get(json_object_get(doc, "model"), "alpha");
    CHECK(json_is_array(alpha));
    for (size_t t = 0; t < json_array_size(alpha); t++) json_array_set_new(alpha, t, json_real(v));
    save_doc(doc, to);
    json_decref(doc);
}

/* Every predicted value of the regression model at `path` on the examples' diabetes test rows
 * is finite. */
static void check_finite_values(const char *path)
{
    grove_model *m = NULL;
    CHECK_OK(grove_model_load(path, &m));
    if (!m) return;
    grove_dataset *d = NULL;
    CHECK_OK(grove_dataset_load("examples/data/diabetes_test.csv", NULL, grove_model_schema(m), &d));
    size_t n = grove_dataset_n_rows(d);
    double *p = malloc(n * sizeof *p);
    CHECK_OK(grove_model_predict(m, d, 1, p, n));
    int bad = 0;
    for (size_t i = 0; i < n; i++) bad += !isfinite(p[i]);
    CHECK_EQ_INT(bad, 0);
    free(p);
    grove_dataset_free(d);
    grove_model_free(m);
}

/* The file `from` with the values of trees [first, first + count) of its model's array `field`
 * ("trees" of a gbdt, "members" of a forest) all set to v, saved at `to` with its checksum. */
static void set_leaves(const char *from, const char *to, const char *field, size_t first,
                       size_t count, double v)
{
    json_t *doc = load_doc(from);
    json_t *trees = json_object_get(json_object_get(doc, "model"), field);
    CHECK(json_array_size(trees) >= first + count);
    for (size_t t = first; t < first + count && t < json_array_size(trees); t++) {
        json_t *tr = json_array_get(trees, t);
        size_t n = (size_t)json_integer_value(json_object_get(tr, "n_nodes")) *
                   (size_t)json_integer_value(json_object_get(tr, "n_outputs"));
        char *text = malloc(n * 32 + 1), *at = text;
        for (size_t k = 0; k < n; k++) at += sprintf(at, k ? " %.17g" : "%.17g", v);
        *at = '\0';
        CHECK(json_is_string(json_object_get(tr, "values")));
        json_object_set_new(tr, "values", json_string(text));
        free(text);
    }
    save_doc(doc, to);
    json_decref(doc);
}

/* Finite leaves whose sum overflows: a regression gbdt or forest with leaves of +-1e308 once
 * predicted +-inf, or NaN from inf - inf, for every row.  A model whose scores can overflow --
 * |base| plus the largest |value| of every tree summed, or a forest's sum before its mean --
 * is refused, naming the tree; one leaf of 1e308 alone still loads and predicts finite values.
 * A log-link gbdt (poisson) predicts e^F, which stays the largest double past F = 709.78. */
static void test_huge_leaves(void)
{
    const char *gbdt = tmp_path("gbdt.json"), *forest = tmp_path("forest.json");
    const char *poisson = tmp_path("poisson.json"), *big = tmp_path("big.json");
    train_data_to("gbdt", "label=label", "diabetes_train.csv", gbdt);
    train_data_to("forest", "label=label", "diabetes_train.csv", forest);
    train_data_to("gbdt", "objective=poisson", "diabetes_train.csv", poisson);
    set_leaves(gbdt, big, "trees", 0, 5, 1e308);
    expect_refused(big, "the scores can overflow");
    expect_refused(big, "trees[1]");
    set_leaves(gbdt, big, "trees", 2, 3, -1.7976931348623157e308);
    expect_refused(big, "trees[3]");
    set_leaves(gbdt, big, "trees", 4, 1, 1e308);
    check_finite_values(big);
    set_leaves(forest, big, "members", 0, 5, 1e308);
    expect_refused(big, "the mean can overflow");
    expect_refused(big, "members[1]");
    set_leaves(forest, big, "members", 3, 1, -1e308);
    check_finite_values(big);
    set_leaves(poisson, big, "trees", 0, 5, 800);
    check_finite_values(big);
}

static void test_extreme_weights(void)
{
    const char *variants[] = {"adaboost", "samme", "adaboost.m1"};
    const char *data[] = {"house_votes84", "iris", "iris"};
    for (int i = 0; i < 3; i++) {
        char train[256], test[256], kv[64];
        snprintf(train, sizeof train, "examples/data/%s_train.csv", data[i]);
        snprintf(test, sizeof test, "examples/data/%s_test.csv", data[i]);
        const char *path = tmp_path("w.json"), *big = tmp_path("big.json");
        grove_params *p = NULL;
        grove_dataset *d = NULL;
        grove_model *m = NULL;
        CHECK_OK(grove_params_create(&p));
        snprintf(kv, sizeof kv, "algo=%s", variants[i]);
        CHECK_OK(grove_params_set_pair(p, kv));
        CHECK_OK(grove_params_set(p, "rounds", "5"));
        CHECK_OK(grove_dataset_load(train, p, NULL, &d));
        CHECK_OK(grove_train(d, NULL, p, &m));
        CHECK_OK(grove_model_save(m, path));
        grove_model_free(m);
        grove_dataset_free(d);
        grove_params_free(p);
        /* alphas whose sum is finite but whose scaled scores overflow (adaboost: 2 x 1.7e308) */
        set_alphas(path, big, 1.7e308 / 5);
        check_finite_predictions(big, test);
        /* alphas whose sum overflows are refused, naming the member where it does */
        set_alphas(path, big, 1e308);
        expect_refused(big, "alpha[1]: the sum of alpha up to this member is not finite");
    }
}

static void test_overflowing_sums(void)
{
    const char *csv = tmp_path("big.csv"), *wcsv = tmp_path("bigw.csv");
    FILE *f = fopen(csv, "w");
    fputs("y,x\n1,0\n1e308,1\n-1e308,2\n3,3\n4,4\n", f);
    fclose(f);
    f = fopen(wcsv, "w");
    fputs("y,w,x\na,1e308,0\nb,1e308,1\na,1,2\nb,1,3\n", f);
    fclose(f);
    const char *algos[] = {"tree", "stump", "forest", "extra-trees", "bagging", "adaboost.r2",
                           "gbdt", "linear", "mlp"};
    for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
        grove_params *p = NULL;
        grove_dataset *d = NULL;
        grove_model *m = NULL;
        CHECK_OK(grove_params_create(&p));
        CHECK_OK(grove_params_set(p, "task", "regression"));
        CHECK_OK(grove_params_set(p, "rounds", "3"));
        if (grove_params_set(p, "algo", algos[a]) != GROVE_OK) { /* not in this build */
            grove_params_free(p);
            continue;
        }
        CHECK_OK(grove_dataset_load(csv, p, NULL, &d));
        CHECK_STATUS(grove_train(d, NULL, p, &m), GROVE_ERR_DATA);
        CHECK_CONTAINS(grove_last_error(), "row 1: label 1e+308: the sum of the weighted squared "
                                           "labels");
        CHECK(m == NULL);
        grove_dataset_free(d);
        grove_params_free(p);
    }
    grove_params *p = NULL;
    grove_dataset *d = NULL;
    grove_model *m = NULL;
    CHECK_OK(grove_params_create(&p));
    CHECK_OK(grove_params_set(p, "weight", "w"));
    CHECK_OK(grove_params_set(p, "algo", "adaboost"));
    CHECK_OK(grove_dataset_load(wcsv, p, NULL, &d));
    CHECK_STATUS(grove_train(d, NULL, p, &m), GROVE_ERR_DATA);
    CHECK_CONTAINS(grove_last_error(), "row 1: weight 1e+308: the sum of the weights");
    grove_dataset_free(d);
    grove_params_free(p);
}

static int stop_after_3(void *ctx, const char *stage, size_t done, size_t total)
{
    (void)ctx;
    (void)total;
    return !strcmp(stage, "round") && done >= 3;
}

/* rounds = 1e8, a valid value: the AdaBoost family allocates as rounds run, so training starts
 * (here cancelled after three rounds) instead of failing at once for the memory of 1e8. */
static void test_many_rounds(void)
{
    const char *algos[] = {"adaboost", "adaboost.r2"};
    const char *data[] = {"examples/data/house_votes84_train.csv",
                          "examples/data/boston_housing_train.csv"};
    for (int a = 0; a < 2; a++) {
        grove_params *p = NULL;
        grove_dataset *d = NULL;
        grove_model *m = NULL;
        CHECK_OK(grove_params_create(&p));
        CHECK_OK(grove_params_set(p, "algo", algos[a]));
        CHECK_OK(grove_params_set(p, "rounds", "100000000"));
        CHECK_OK(grove_params_set_progress(p, stop_after_3, NULL));
        CHECK_OK(grove_dataset_load(data[a], p, NULL, &d));
        CHECK_STATUS(grove_train(d, NULL, p, &m), GROVE_ERR_ARG);
        CHECK_CONTAINS(grove_last_error(), "cancelled");
        grove_dataset_free(d);
        grove_params_free(p);
    }
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/grove-test-hostile-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_param_keys();
    test_fifo();
    test_rewritten_underneath();
    test_bin_nul();
    test_extreme_weights();
    test_huge_leaves();
    test_overflowing_sums();
    test_many_rounds();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", tmpdir);
    TEST_MAIN_END();
}
