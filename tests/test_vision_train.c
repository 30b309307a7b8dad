/*
 * test_vision_train.c -- cascade training on a small problem (40 LFW faces, two photos as
 * negatives, a 12 x 12 window): the AdaBoost step's properties, the cascade's bookkeeping
 * (F = prod f_i, D = prod d_i, the stage targets met on validation), thread-count
 * independence, and the file round trip.
 */
#include "check.h"
#include "ensemble/ensemble.h"
#include "vision/vision.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_adaboost_step(void)
{
    /* four equal weights, one mistake: eps = 1/4, alpha = ln(3)/2, and after the update the
     * mistakes carry half the weight (the defining property of AdaBoost's reweighting) */
    double D[4] = {0.25, 0.25, 0.25, 0.25};
    uint8_t ok[4] = {1, 1, 1, 0};
    double a = gv_adaboost_alpha(0.25, 1.0);
    CHECK_NEAR(a, 0.5 * log(3.0), 1e-15);
    double z = gv_adaboost_reweight(D, ok, 4, a);
    CHECK_NEAR(z, 2 * sqrt(0.25 * 0.75), 1e-12);
    CHECK_NEAR(D[3], 0.5, 1e-12);
    CHECK_NEAR(D[0] + D[1] + D[2], 0.5, 1e-12);
}

static grove_cascade *train(int threads, grove_status *st)
{
    grove_params *p = NULL;
    grove_params_create(&p);
    char buf[16];
    snprintf(buf, sizeof buf, "%d", threads);
    grove_params_set(p, "threads", buf);
    grove_params_set(p, "cascade.window", "12x12");
    grove_params_set(p, "cascade.stages", "3");
    grove_params_set(p, "cascade.max_fp", "0.5");
    grove_params_set(p, "cascade.min_detect", "0.98");
    grove_params_set(p, "cascade.max_weak", "30");
    grove_params_set(p, "cascade.negatives", "300");
    grove_params_set(p, "seed", "7");
    grove_cascade *c = NULL;
    /* negatives: the folder's photos (astronaut excluded by taking a folder of two) */
    *st = grove_cascade_train("tests/data/vision/lfw", "tests/data/vision/negatives_small", p, &c);
    grove_params_free(p);
    return c;
}

static void test_training(void)
{
    grove_status st;
    grove_cascade *c1 = train(1, &st);
    CHECK_OK(st);
    if (!c1) return;
    int w, h, ns, nw;
    CHECK_OK(grove_cascade_describe(c1, &w, &h, &ns, &nw));
    CHECK_EQ_INT(w, 12);
    CHECK(ns >= 2 && ns <= 3);
    double F = 1, D = 1;
    for (int s = 0; s < ns; s++) {
        double f, d, Fs, Ds, windows, secs;
        int k;
        size_t neg;
        CHECK_OK(grove_cascade_stage_stats(c1, s, &f, &d, &Fs, &Ds, &k, &neg, &windows, &secs));
        F *= f;
        D *= d;
        CHECK_NEAR(Fs, F, 1e-12);
        CHECK_NEAR(Ds, D, 1e-12);
        /* the stage targets: at least d of the validation faces, at most f of the negatives
         * (unless the stage ran out of weak classifiers) */
        CHECK(d >= 0.98);
        CHECK(f <= 0.5 || k == 30);
        CHECK(k >= 1);
        CHECK_EQ_INT(neg, 300);
        CHECK(windows >= 600);
    }
    /* the same cascade with two threads */
    grove_cascade *c2 = train(2, &st);
    CHECK_OK(st);
    char p1[] = "/tmp/grove_t1_XXXXXX", p2[] = "/tmp/grove_t2_XXXXXX";
    close(mkstemp(p1));
    close(mkstemp(p2));
    if (c2) {
        struct grove_cascade *a = c1, *b = c2;
        CHECK_EQ_INT(a->n_trees, b->n_trees);
        CHECK(a->n_nodes == b->n_nodes && !memcmp(a->nodes, b->nodes, (size_t)a->n_nodes * sizeof *a->nodes));
        CHECK(a->n_leaves == b->n_leaves &&
              !memcmp(a->leaves, b->leaves, (size_t)a->n_leaves * sizeof *a->leaves));
    }
    /* save, load: the same windows accepted */
    CHECK_OK(grove_cascade_save(c1, p1));
    grove_cascade *c3 = NULL;
    CHECK_OK(grove_cascade_load(p1, &c3));
    CHECK_OK(grove_cascade_save_opencv(c1, p2));
    grove_cascade *c4 = NULL;
    CHECK_OK(grove_cascade_load(p2, &c4));
    /* training faces are mostly accepted; the loaded copies agree on every face */
    int agree = 1, accepted = 0;
    for (int i = 0; i < 40; i++) {
        char path[64];
        snprintf(path, sizeof path, "tests/data/vision/lfw/%03d.pgm", i);
        grove_image *img = NULL;
        if (grove_image_load(path, &img)) continue;
        int a1 = 0, a3 = 0, a4 = 0;
        grove_cascade_classify(c1, img, &a1, NULL);
        if (c3) grove_cascade_classify(c3, img, &a3, NULL);
        if (c4) grove_cascade_classify(c4, img, &a4, NULL);
        agree &= a1 == a3 && a1 == a4;
        accepted += a1;
        grove_image_free(img);
    }
    CHECK(agree);
    CHECK(accepted >= 30);
    remove(p1);
    remove(p2);
    grove_cascade_free(c1);
    grove_cascade_free(c2);
    grove_cascade_free(c3);
    grove_cascade_free(c4);
    /* errors name the input */
    grove_cascade *bad = NULL;
    CHECK_EQ_INT(grove_cascade_train("tests/data/vision/nothing", "tests/data/vision/lfw", NULL, &bad),
                 GROVE_ERR_IO);
    CHECK_CONTAINS(grove_last_error(), "tests/data/vision/nothing");
    grove_params *p = NULL;
    grove_params_create(&p);
    CHECK_EQ_INT(grove_params_set(p, "cascade.window", "4x4"), GROVE_OK);
    CHECK_EQ_INT(grove_cascade_train("tests/data/vision/lfw", "tests/data/vision/lfw", p, &bad),
                 GROVE_ERR_PARAM);
    CHECK_CONTAINS(grove_last_error(), "cascade.window");
    CHECK(bad == NULL);
    grove_params_free(p);
}

int main(void)
{
    test_adaboost_step();
    test_training();
    TEST_MAIN_END();
}
