/*
 * test_alloc.c -- the allocation-failure sweep: every operation a user runs is
 * repeated with the n-th allocation failing (and every later one, core/alloc.c's hook), for
 * n = 1, 2, ... until the operation succeeds.  At every failure point the operation must return
 * GROVE_ERR_NOMEM with a message naming what was being allocated, clear its out-parameter, and
 * leave no partial output file; the ASan run of the suite checks that nothing leaks and nothing
 * crashes.  The number of failure points of each operation is printed.
 *
 * Allocations that go through the hook: grove's own (gv_malloc and friends), libxml2's (OpenCV
 * cascades; xmlMemSetup) and jansson's while a model is saved or written to a buffer
 * (json_set_alloc_funcs).  jansson's parser is not swept: jansson 2.14 aborts on an assertion
 * (load.c, lex_unget_unsave: c == d) when an allocation fails inside a string token, so loading
 * model and cascade files sweeps grove's allocations only.  zlib's gzip streams, libpng and
 * libjpeg allocate on their own and are not swept.
 *
 * Operations: loading CSV (plain and gzip), LIBSVM (sparse layout), dense and CSR arrays;
 * training every algorithm family on a small dataset (one thread, a few rounds); saving a model
 * (new file, replacing a file, gzip), loading it (file, gzip, buffer), predicting, evaluating;
 * loading images (PGM, PNG, JPEG) and cascades (OpenCV XML, grove JSON) and detecting.
 */
#include "check.h"
#include "core/core.h"

#include <jansson.h>
#include <libxml/xmlmemory.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

static const char *tmp(const char *name)
{
    static char buf[8][512];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static void write_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "wb");
    CHECK(fp != NULL);
    if (!fp) return;
    fputs(text, fp);
    fclose(fp);
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Files in `dir` (a failed save must leave no temporary file behind). */
static int n_files(void)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) n++;
    closedir(d);
    return n;
}

/* One operation: returns its status; `ctx` is what it works on.  `cleanup` (may be NULL) frees
 * what a successful run made; `after_fail` (may be NULL) checks the state after a failure. */
typedef grove_status (*op_fn)(void *ctx);
typedef void (*cleanup_fn)(void *ctx);

static long total_points;

static long sweep(const char *name, op_fn op, cleanup_fn cleanup, cleanup_fn after_fail,
                  void *ctx)
{
    long points = 0;
    int files_before = n_files();
    for (long n = 1;; n++) {
        gv_alloc_fail_after(n);
        grove_status st = op(ctx);
        gv_alloc_fail_after(0);
        if (st == GROVE_OK) {
            if (cleanup) cleanup(ctx);
            break;
        }
        points++;
        if (st != GROVE_ERR_NOMEM) {
            CHECK_FAIL_("%s: allocation %ld failing gave status %d (%s), not GROVE_ERR_NOMEM",
                        name, n, (int)st, grove_last_error());
            break;
        }
        CHECK_CONTAINS(grove_last_error(), "out of memory");
        if (after_fail) after_fail(ctx);
        int files_now = n_files();
        if (files_now != files_before) {
            CHECK_FAIL_("%s: allocation %ld failing left %d files, %d before", name, n, files_now,
                        files_before);
            break;
        }
        if (n > 2000000) {
            CHECK_FAIL_("%s: still failing after %ld allocations", name, n);
            break;
        }
    }
    printf("alloc sweep: %-28s %6ld failure points\n", name, points);
    total_points += points;
    return points;
}

/* ---- datasets ---- */

typedef struct {
    const char *path;
    grove_params *params;
    const grove_schema *schema;
    grove_dataset *out;
} load_ctx;

static grove_status op_load(void *c)
{
    load_ctx *x = c;
    x->out = (grove_dataset *)1; /* must be cleared on failure */
    grove_status st = grove_dataset_load(x->path, x->params, x->schema, &x->out);
    if (st != GROVE_OK) CHECK(x->out == NULL);
    return st;
}
static void free_load(void *c)
{
    load_ctx *x = c;
    grove_dataset_free(x->out);
    x->out = NULL;
}

static const double array_x[] = {1, 2, NAN, 4, 5, 6, 7, 8, 9, 10, 11, 12};
static const double array_y[] = {0, 1, 0, 1, 1, 0};
static const int64_t csr_indptr[] = {0, 1, 3, 3, 4, 5, 6};
static const int64_t csr_indices[] = {0, 1, 3, 2, 4, 0};
static const double csr_values[] = {1.5, -2, 3, 4, NAN, 6};

static grove_status op_from_array(void *c)
{
    grove_dataset **out = c;
    *out = (grove_dataset *)1;
    grove_status st = grove_dataset_from_array(array_x, GROVE_FLOAT64, 6, 2, array_y, NULL, NULL,
                                               NULL, NULL, out);
    if (st != GROVE_OK) CHECK(*out == NULL);
    return st;
}
static grove_status op_from_csr(void *c)
{
    grove_dataset **out = c;
    *out = (grove_dataset *)1;
    grove_status st = grove_dataset_from_csr(csr_values, GROVE_FLOAT64, csr_indptr, csr_indices,
                                             6, 5, array_y, NULL, NULL, NULL, out);
    if (st != GROVE_OK) CHECK(*out == NULL);
    return st;
}
static void free_dataset_ptr(void *c)
{
    grove_dataset **out = c;
    grove_dataset_free(*out);
    *out = NULL;
}

/* ---- training ---- */

typedef struct {
    const grove_dataset *data;
    grove_params *params;
    grove_model *out;
} train_ctx;

static grove_status op_train(void *c)
{
    train_ctx *x = c;
    x->out = (grove_model *)1;
    grove_status st = grove_train(x->data, NULL, x->params, &x->out);
    if (st != GROVE_OK) CHECK(x->out == NULL);
    return st;
}
static void free_train(void *c)
{
    train_ctx *x = c;
    grove_model_free(x->out);
    x->out = NULL;
}

/* Sweeps training `algo` (with extra "key=value" settings, NULL-terminated) on `data`. */
static void sweep_train(const char *algo, const grove_dataset *data, const char *const *extra)
{
    train_ctx x = {data, NULL, NULL};
    CHECK_OK(grove_params_create(&x.params));
    CHECK_OK(grove_params_set(x.params, "algo", algo));
    CHECK_OK(grove_params_set(x.params, "threads", "1"));
    CHECK_OK(grove_params_set(x.params, "rounds", "3"));
    for (size_t i = 0; extra && extra[i]; i++) CHECK_OK(grove_params_set_pair(x.params, extra[i]));
    char name[64];
    snprintf(name, sizeof name, "train %s", algo);
    sweep(name, op_train, free_train, NULL, &x);
    grove_params_free(x.params);
}

/* ---- model files ---- */

typedef struct {
    const grove_model *model;
    const char *path;
    const char *old; /* the file's contents before the save, or NULL when it did not exist */
} save_ctx;

static grove_status op_save(void *c)
{
    save_ctx *x = c;
    return grove_model_save(x->model, x->path);
}
static void check_save_failed(void *c)
{
    save_ctx *x = c;
    if (!x->old) {
        CHECK(!file_exists(x->path));
        return;
    }
    FILE *fp = fopen(x->path, "rb");
    char buf[256] = "";
    size_t n = fp ? fread(buf, 1, sizeof buf - 1, fp) : 0;
    if (fp) fclose(fp);
    buf[n] = '\0';
    CHECK_STR(buf, x->old);
}
static void remove_saved(void *c)
{
    save_ctx *x = c;
    if (!x->old) remove(x->path);
}

typedef struct {
    const char *path;
    const char *buf;
    size_t len;
    grove_model *out;
} model_load_ctx;

static grove_status op_model_load(void *c)
{
    model_load_ctx *x = c;
    x->out = (grove_model *)1;
    grove_status st = x->path ? grove_model_load(x->path, &x->out)
                              : grove_model_from_buffer(x->buf, x->len, &x->out);
    if (st != GROVE_OK) CHECK(x->out == NULL);
    return st;
}
static void free_model_load(void *c)
{
    model_load_ctx *x = c;
    grove_model_free(x->out);
    x->out = NULL;
}

typedef struct {
    const grove_model *model;
    char *buf;
    size_t len;
} buffer_ctx;

static grove_status op_to_buffer(void *c)
{
    buffer_ctx *x = c;
    x->buf = (char *)1;
    grove_status st = grove_model_to_buffer(x->model, &x->buf, &x->len);
    if (st != GROVE_OK) CHECK(x->buf == NULL);
    return st;
}
static void free_buffer(void *c)
{
    buffer_ctx *x = c;
    grove_string_free(x->buf);
    x->buf = NULL;
}

/* ---- prediction ---- */

typedef struct {
    const grove_model *model;
    const grove_dataset *data;
    double out[4096];
    grove_eval *eval;
} predict_ctx;

static grove_status op_predict(void *c)
{
    predict_ctx *x = c;
    size_t n = grove_dataset_n_rows(x->data) * grove_model_n_outputs(x->model);
    return grove_model_predict(x->model, x->data, 1, x->out, n);
}
static grove_status op_predict_label(void *c)
{
    predict_ctx *x = c;
    return grove_model_predict_label(x->model, x->data, 1, x->out, grove_dataset_n_rows(x->data));
}
static grove_status op_evaluate(void *c)
{
    predict_ctx *x = c;
    x->eval = (grove_eval *)1;
    grove_status st = grove_model_evaluate(x->model, x->data, 1, &x->eval);
    if (st != GROVE_OK) CHECK(x->eval == NULL);
    return st;
}
static void free_eval(void *c)
{
    predict_ctx *x = c;
    grove_eval_free(x->eval);
    x->eval = NULL;
}

/* ---- vision ---- */

typedef struct {
    const char *path;
    grove_image *image;
    grove_cascade *cascade;
    int *boxes;
} vision_ctx;

static grove_status op_image_load(void *c)
{
    vision_ctx *x = c;
    x->image = (grove_image *)1;
    grove_status st = grove_image_load(x->path, &x->image);
    if (st != GROVE_OK) CHECK(x->image == NULL);
    return st;
}
static void free_image(void *c)
{
    vision_ctx *x = c;
    grove_image_free(x->image);
    x->image = NULL;
}
static grove_status op_cascade_load(void *c)
{
    vision_ctx *x = c;
    x->cascade = (grove_cascade *)1;
    grove_status st = grove_cascade_load(x->path, &x->cascade);
    if (st != GROVE_OK) CHECK(x->cascade == NULL);
    return st;
}
static void free_cascade(void *c)
{
    vision_ctx *x = c;
    grove_cascade_free(x->cascade);
    x->cascade = NULL;
}
static grove_status op_detect(void *c)
{
    vision_ctx *x = c;
    size_t n = 0;
    x->boxes = (int *)1;
    grove_status st =
        grove_cascade_detect(x->cascade, x->image, 1.2, 1, NULL, NULL, 0, 1, &x->boxes, &n, NULL);
    if (st != GROVE_OK) CHECK(x->boxes == NULL);
    return st;
}
static void free_boxes(void *c)
{
    vision_ctx *x = c;
    grove_boxes_free(x->boxes);
    x->boxes = NULL;
}

/* A classification CSV: numeric, categorical and missing values, 3 classes, 30 rows. */
static void make_csv(const char *path, int regression)
{
    char text[4096];
    size_t len = (size_t)snprintf(text, sizeof text, "y,x1,x2,color\n");
    static const char *colors[] = {"red", "green", "blue", "NA"};
    unsigned s = 12345;
    for (int i = 0; i < 30; i++) {
        s = s * 1103515245u + 12345u;
        double x1 = (double)(s >> 16 & 1023) / 100.0;
        s = s * 1103515245u + 12345u;
        double x2 = (double)(s >> 16 & 1023) / 50.0 - 10.0;
        const char *col = colors[(s >> 8) & 3];
        if (regression)
            len += (size_t)snprintf(text + len, sizeof text - len, "%.3f,%.2f,%.2f,%s\n",
                                    x1 * 2 - x2 / 3, x1, i % 7 == 0 ? NAN : x2, col);
        else if (i % 7 == 0)
            len += (size_t)snprintf(text + len, sizeof text - len, "%d,%.2f,,%s\n",
                                    (int)(x1 / 3.5) % 3, x1, col);
        else
            len += (size_t)snprintf(text + len, sizeof text - len, "%d,%.2f,%.2f,%s\n",
                                    (int)(x1 / 3.5) % 3, x1, x2, col);
    }
    write_file(path, text);
}

static void sweep_vision(void)
{
    const char *src = getenv("GROVE_SRC") ? getenv("GROVE_SRC") : ".";
    char path[3][600];
    snprintf(path[0], sizeof path[0], "%s/fuzz/corpus/image/p5_48.pgm", src);
    snprintf(path[1], sizeof path[1], "%s/fuzz/corpus/image/gray32.png", src);
    snprintf(path[2], sizeof path[2], "%s/fuzz/corpus/image/color24.jpg", src);
    static const char *names[] = {"load image PGM", "load image PNG", "load image JPEG"};
    vision_ctx v = {0};
    for (int k = 0; k < 3; k++) {
        v.path = path[k];
        sweep(names[k], op_image_load, free_image, NULL, &v);
    }
    CHECK_OK(grove_image_load(path[0], &v.image));
    char cpath[2][600];
    snprintf(cpath[0], sizeof cpath[0], "%s/fuzz/corpus/cascade/tiny_opencv.xml", src);
    snprintf(cpath[1], sizeof cpath[1], "%s/fuzz/corpus/cascade/tiny.json", src);
    v.path = cpath[0];
    sweep("load cascade OpenCV XML", op_cascade_load, free_cascade, NULL, &v);
    v.path = cpath[1];
    sweep("load cascade grove JSON", op_cascade_load, free_cascade, NULL, &v);
    CHECK_OK(grove_cascade_load(cpath[1], &v.cascade));
    if (v.cascade && v.image) sweep("detect", op_detect, free_boxes, NULL, &v);
    grove_cascade_free(v.cascade);
    grove_image_free(v.image);
}

int main(void)
{
    /* jansson and libxml2 allocate through the hook too */
    xmlMemSetup(gv_free, gv_malloc, gv_realloc, gv_strdup);
    snprintf(dir, sizeof dir, "/tmp/grove_test_alloc_%ld", (long)getpid());
    CHECK(mkdir(dir, 0700) == 0);

    /* loading: CSV, gzip'd CSV, LIBSVM (sparse), arrays */
    const char *csv = tmp("train.csv"), *reg_csv = tmp("reg.csv"), *svm = tmp("train.svm");
    make_csv(csv, 0);
    make_csv(reg_csv, 1);
    write_file(svm, "0 1:0.5 3:1\n1 2:2 40:1\n2 1:0.7 7:-1\n0 2:1 5:2\n1 3:4 40:2\n2 1:1\n"
                    "0 1:0.4 3:1.5\n1 2:2.5 40:1\n2 1:0.9 7:-2\n0 2:1.2 5:2\n");
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "gzip -c '%s' > '%s.gz'", csv, csv);
    CHECK(system(cmd) == 0);
    load_ctx lc = {csv, NULL, NULL, NULL};
    sweep("load CSV", op_load, free_load, NULL, &lc);
    char gz[600];
    snprintf(gz, sizeof gz, "%s.gz", csv);
    lc.path = gz;
    sweep("load CSV gzip", op_load, free_load, NULL, &lc);
    lc.path = svm;
    sweep("load LIBSVM", op_load, free_load, NULL, &lc);
    grove_dataset *arr = NULL;
    sweep("dataset from array", op_from_array, free_dataset_ptr, NULL, &arr);
    sweep("dataset from CSR", op_from_csr, free_dataset_ptr, NULL, &arr);

    grove_dataset *cls = NULL, *bin = NULL, *reg = NULL, *sparse = NULL;
    CHECK_OK(grove_dataset_load(csv, NULL, NULL, &cls));
    CHECK_OK(grove_dataset_load(reg_csv, NULL, NULL, &reg));
    CHECK_OK(grove_dataset_load(svm, NULL, NULL, &sparse));
    CHECK_OK(grove_dataset_from_array(array_x, GROVE_FLOAT64, 6, 2, array_y, NULL, NULL, NULL,
                                      NULL, &bin));
    if (!cls || !reg || !sparse || !bin) TEST_MAIN_END();
    CHECK_EQ_INT(grove_schema_task(grove_dataset_schema(cls)), GROVE_CLASSIFICATION);
    CHECK_EQ_INT(grove_schema_n_classes(grove_dataset_schema(cls)), 3);
    CHECK_EQ_INT(grove_schema_task(grove_dataset_schema(reg)), GROVE_REGRESSION);

    /* training: every family on small data */
    static const char *const small_mlp[] = {"mlp.hidden=3", "mlp.epochs=2", NULL};
    static const char *const tree_base[] = {"base=tree", "base.max_depth=2", NULL};
    static const char *const stack[] = {"stack.learners=stump,logistic", "stack.folds=2", NULL};
    static const char *const voting[] = {"voting.learners=stump,perceptron", NULL};
    static const char *const filter[] = {"filter.budget=200", NULL};
    const char *cls_algos[] = {"stump", "tree", "id3", "samme", "samme.r", "adaboost.m1",
                               "adaboost.m2", "forest", "bagging", "gbdt", "perceptron",
                               "logistic", "mlp"};
    for (size_t i = 0; i < sizeof cls_algos / sizeof *cls_algos; i++)
        sweep_train(cls_algos[i], cls, !strcmp(cls_algos[i], "mlp") ? small_mlp : NULL);
    sweep_train("adaboost", bin, tree_base);
    sweep_train("filter-boost", bin, filter);
    sweep_train("stacking", cls, stack);
    sweep_train("voting", cls, voting);
    sweep_train("adaboost.r2", reg, NULL);
    sweep_train("gbdt", reg, NULL);
    sweep_train("forest", reg, NULL);
    sweep_train("forest", sparse, NULL);

    /* a model to save, load and predict with: a forest on the classification CSV */
    grove_params *p = NULL;
    grove_model *model = NULL;
    CHECK_OK(grove_params_create(&p));
    CHECK_OK(grove_params_set(p, "algo", "forest"));
    CHECK_OK(grove_params_set(p, "rounds", "3"));
    CHECK_OK(grove_params_set(p, "threads", "1"));
    CHECK_OK(grove_train(cls, NULL, p, &model));
    grove_params_free(p);
    if (!model) TEST_MAIN_END();

    json_set_alloc_funcs(gv_malloc, gv_free); /* see the top of the file */
    save_ctx sc = {model, tmp("new.json"), NULL};
    sweep("save new file", op_save, remove_saved, check_save_failed, &sc);
    sc.path = tmp("old.json");
    sc.old = "old contents\n";
    write_file(sc.path, sc.old);
    sweep("save over old file", op_save, NULL, check_save_failed, &sc);
    sc.path = tmp("new.json.gz");
    sc.old = NULL;
    sweep("save gzip", op_save, NULL, check_save_failed, &sc);
    sc.path = tmp("new.gvb");
    sweep("save binary", op_save, NULL, check_save_failed, &sc);
    /* the other forms of a tree in a binary file (tree_component.c, the compact form): a
     * best-first tree stores its children, a gbdt its values and weights */
    grove_model *bestfirst = NULL, *gbdt = NULL;
    json_set_alloc_funcs(malloc, free);
    CHECK_OK(grove_params_create(&p));
    CHECK_OK(grove_params_set(p, "algo", "tree"));
    CHECK_OK(grove_params_set(p, "growth", "bestfirst"));
    CHECK_OK(grove_params_set(p, "max_leaves", "6"));
    CHECK_OK(grove_train(cls, NULL, p, &bestfirst));
    grove_params_free(p);
    CHECK_OK(grove_params_create(&p));
    CHECK_OK(grove_params_set(p, "algo", "gbdt"));
    CHECK_OK(grove_params_set(p, "rounds", "3"));
    CHECK_OK(grove_train(reg, NULL, p, &gbdt));
    grove_params_free(p);
    if (!bestfirst || !gbdt) TEST_MAIN_END();
    json_set_alloc_funcs(gv_malloc, gv_free);
    save_ctx sb = {bestfirst, tmp("bestfirst.gvb"), NULL}, sg = {gbdt, tmp("gbdt.gvb"), NULL};
    sweep("save binary best-first tree", op_save, NULL, check_save_failed, &sb);
    sweep("save binary gbdt", op_save, NULL, check_save_failed, &sg);

    json_set_alloc_funcs(malloc, free);
    model_load_ctx ml = {tmp("old.json"), NULL, 0, NULL};
    sweep("load model", op_model_load, free_model_load, NULL, &ml);
    ml.path = tmp("new.json.gz");
    sweep("load model gzip", op_model_load, free_model_load, NULL, &ml);
    ml.path = tmp("new.gvb");
    sweep("load model binary", op_model_load, free_model_load, NULL, &ml);
    ml.path = tmp("bestfirst.gvb");
    sweep("load model binary best-first tree", op_model_load, free_model_load, NULL, &ml);
    ml.path = tmp("gbdt.gvb");
    sweep("load model binary gbdt", op_model_load, free_model_load, NULL, &ml);
    grove_model_free(bestfirst);
    grove_model_free(gbdt);
    buffer_ctx bc = {model, NULL, 0};
    json_set_alloc_funcs(gv_malloc, gv_free);
    sweep("model to buffer", op_to_buffer, NULL, NULL, &bc);
    json_set_alloc_funcs(malloc, free);
    ml.path = NULL;
    ml.buf = bc.buf;
    ml.len = bc.len;
    sweep("model from buffer", op_model_load, free_model_load, NULL, &ml);
    free_buffer(&bc);

    predict_ctx *pc = calloc(1, sizeof *pc);
    pc->model = model;
    pc->data = cls;
    sweep("predict", op_predict, NULL, NULL, pc);
    sweep("predict label", op_predict_label, NULL, NULL, pc);
    sweep("evaluate", op_evaluate, free_eval, NULL, pc);
    free(pc);

    sweep_vision();

    printf("alloc sweep: %ld failure points in all\n", total_points);
    grove_model_free(model);
    grove_dataset_free(cls);
    grove_dataset_free(bin);
    grove_dataset_free(reg);
    grove_dataset_free(sparse);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    TEST_MAIN_END();
}
