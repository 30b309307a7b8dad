/*
 * test_vision.c -- images, integral images, Haar features, cascades and detection against
 * brute force and against themselves (file round trips, thread counts).  The comparison with
 * OpenCV itself is tests/py_opencv_detect.py.
 */
#include "check.h"
#include "vision/vision.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *FACE_XML = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml";
static const char *EYE_XML = "/usr/share/opencv4/haarcascades/haarcascade_eye_tree_eyeglasses.xml";

static gv_image *random_image(int w, int h, uint64_t seed)
{
    gv_image *img = gv_image_new(w, h);
    gv_rng rng;
    gv_rng_seed(&rng, seed, 1, 2);
    for (int i = 0; i < w * h; i++) img->pix[i] = (uint8_t)(gv_rng_next(&rng) >> 56);
    return img;
}

static double brute_rect(const gv_image *img, int ox, int oy, const gv_haar_rect *r)
{
    double s = 0;
    for (int y = r->y; y < r->y + r->h; y++)
        for (int x = r->x; x < r->x + r->w; x++) s += img->pix[(oy + y) * img->width + ox + x];
    return s;
}

/* 1 if pixel (x, y) is in the upward cone of table corner (X, Y) (the tilted table's
 * definition), with |x - X + 1| <= Y - 1 - y and y < Y. */
static int in_cone(int x, int y, int X, int Y) { return y < Y && abs(x - X + 1) <= Y - 1 - y; }

/* The brute-force sum of a tilted rectangle: the pixels of cone(p3) - cone(p1) - cone(p2) +
 * cone(p0); *count gets how many pixels, and each membership must be 0 or 1. */
static double brute_tilted(const gv_image *img, int ox, int oy, const gv_haar_rect *r, int *count,
                           int *bad)
{
    double s = 0;
    *count = 0;
    for (int y = 0; y < img->height - oy; y++)
        for (int x = 0; x < img->width - ox; x++) {
            int m = in_cone(x, y, r->x + r->w - r->h, r->y + r->w + r->h) -
                    in_cone(x, y, r->x - r->h, r->y + r->h) - in_cone(x, y, r->x + r->w, r->y + r->w) +
                    in_cone(x, y, r->x, r->y);
            if (m != 0 && m != 1) *bad = 1;
            if (m == 1) {
                s += img->pix[(oy + y) * img->width + ox + x];
                (*count)++;
            }
        }
    return s;
}

static void test_integral(void)
{
    gv_image *img = random_image(37, 29, 5);
    int stride = 41;
    int32_t *sum = calloc((size_t)stride * 30, sizeof *sum), *tilt = calloc((size_t)stride * 30, 4);
    uint32_t *sq = calloc((size_t)stride * 30, sizeof *sq);
    gv_integral(img->pix, 37, 29, 37, sum, sq, tilt, stride);
    int bad = 0;
    for (int Y = 0; Y <= 29; Y++)
        for (int X = 0; X <= 37; X++) {
            int64_t s = 0, q = 0, t = 0;
            for (int y = 0; y < 29; y++)
                for (int x = 0; x < 37; x++) {
                    int v = img->pix[y * 37 + x];
                    if (y < Y && x < X) s += v, q += v * v;
                    if (in_cone(x, y, X, Y)) t += v;
                }
            if (sum[Y * stride + X] != s || sq[Y * stride + X] != (uint32_t)q ||
                tilt[Y * stride + X] != t)
                bad++;
        }
    CHECK_EQ_INT(bad, 0);
    free(sum);
    free(sq);
    free(tilt);
    gv_image_free(img);
}

static void test_haar_count_and_values(void)
{
    gv_haar_feature *f;
    size_t n;
    CHECK_OK(gv_haar_enumerate(24, 24, GV_HAAR_BASIC, &f, &n));
    CHECK_EQ_INT(n, 162336); /* Viola-Jones' five families in a 24 x 24 window */
    size_t fam[5] = {0};
    for (size_t i = 0; i < n; i++) {
        int idx = f[i].n_rects == 3 ? 4 : f[i].r[1].weight == 3.f ? 2 : 0;
        if (f[i].n_rects == 2 && f[i].r[0].w == f[i].r[1].w) idx++; /* split along h */
        fam[idx]++;
    }
    CHECK_EQ_INT(fam[0], 43200);
    CHECK_EQ_INT(fam[1], 43200);
    CHECK_EQ_INT(fam[2], 27600);
    CHECK_EQ_INT(fam[3], 27600);
    CHECK_EQ_INT(fam[4], 20736);
    gv_free(f);

    /* every feature of every family (tilted too) in a 12 x 10 window, at two offsets of a random
     * image, against brute-force rectangle sums */
    CHECK_OK(gv_haar_enumerate(12, 10, GV_HAAR_ALL, &f, &n));
    gv_image *img = random_image(20, 17, 9);
    int stride = 21;
    int32_t *sum = calloc((size_t)stride * 18, 4), *tilt = calloc((size_t)stride * 18, 4);
    uint32_t *sq = calloc((size_t)stride * 18, 4);
    gv_integral(img->pix, 20, 17, 20, sum, sq, tilt, stride);
    size_t mismatches = 0, n_tilted = 0, bad_shape = 0;
    for (size_t i = 0; i < n; i++) {
        gv_haar_compiled c;
        gv_haar_compile(&f[i], stride, &c);
        for (int off = 0; off < 2; off++) {
            int ox = off ? 7 : 0, oy = off ? 5 : 0;
            double want = 0;
            for (int k = 0; k < f[i].n_rects; k++) {
                double s;
                if (f[i].tilted) {
                    int cnt, badm = 0;
                    s = brute_tilted(img, ox, oy, &f[i].r[k], &cnt, &badm);
                    if (badm || cnt != 2 * f[i].r[k].w * f[i].r[k].h) bad_shape++;
                } else {
                    s = brute_rect(img, ox, oy, &f[i].r[k]);
                }
                want += f[i].r[k].weight * s;
            }
            const int32_t *p = sum + oy * stride + ox, *t = tilt + oy * stride + ox;
            if ((double)gv_haar_raw(&c, p, t) != want) mismatches++;
        }
        n_tilted += f[i].tilted;
        /* zero-sum weights: a flat window gives 0 (area-weighted, tilted areas are 2wh) */
        double z = 0;
        for (int k = 0; k < f[i].n_rects; k++)
            z += f[i].r[k].weight * f[i].r[k].w * f[i].r[k].h;
        if (z != 0) bad_shape++;
    }
    CHECK(n_tilted > 0);
    CHECK_EQ_INT(mismatches, 0);
    CHECK_EQ_INT(bad_shape, 0);
    /* the window normalization against the variance computed directly */
    float norm;
    const int32_t *p = sum + 2 * stride + 3;
    const uint32_t *q = sq + 2 * stride + 3;
    int ok = gv_window_norm(p, q, 12, 10, stride, &norm);
    double s = 0, s2 = 0, A = 10 * 8;
    for (int y = 1; y < 9; y++)
        for (int x = 1; x < 11; x++) {
            double v = img->pix[(2 + y) * 20 + 3 + x];
            s += v;
            s2 += v * v;
        }
    double sigma = sqrt(s2 / A - (s / A) * (s / A));
    CHECK_EQ_INT(ok, sigma > 10);
    CHECK_NEAR(norm, 1.0 / (A * sigma), 1e-6 / (A * sigma));
    free(sum);
    free(sq);
    free(tilt);
    gv_free(f);
    gv_image_free(img);
}

static void test_image_io(void)
{
    gv_image *img = NULL, *back = NULL;
    CHECK_OK(gv_image_load("tests/data/vision/astronaut.pgm", &img));
    CHECK_EQ_INT(img->width, 512);
    CHECK_EQ_INT(img->height, 512);
    char path[] = "/tmp/grove_vision_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    CHECK_OK(gv_pgm_write(path, img));
    CHECK_OK(gv_image_load(path, &back));
    CHECK(back && !memcmp(back->pix, img->pix, 512 * 512));
    gv_image_free(back);
    back = NULL;
    /* a PNG written with the boxes API reads back grey where nothing was drawn */
    int box[5] = {10, 10, 20, 20, 1};
    CHECK_OK(grove_image_save_png_boxes(img, box, 1, NULL, 1, path));
    CHECK_OK(gv_image_load(path, &back));
    if (back) {
        CHECK_EQ_INT(back->pix[100 * 512 + 100], img->pix[100 * 512 + 100]);
        CHECK(back->pix[10 * 512 + 15] != img->pix[10 * 512 + 15] ||
              img->pix[10 * 512 + 15] == (uint8_t)((255 * 19235 + 16384) >> 15));
    }
    gv_image_free(back);
    back = NULL;
    CHECK_OK(gv_image_load("tests/data/vision/negatives_small/chelsea.png", &back));
    CHECK(back && back->width == 451 && back->height == 300);
    gv_image_free(back);
    back = NULL;
    CHECK_OK(gv_image_load("tests/data/vision/rocket.jpg", &back));
    CHECK(back && back->width == 640 && back->height == 427);
    gv_image_free(back);
    remove(path);
    /* the bad corpus */
    gv_image *x = NULL;
    CHECK_EQ_INT(gv_image_load("tests/data/bad/vision/truncated.pgm", &x), GROVE_ERR_PARSE);
    CHECK_CONTAINS(grove_last_error(), "truncated.pgm: truncated PGM data");
    CHECK_EQ_INT(gv_image_load("tests/data/bad/vision/maxval16.pgm", &x), GROVE_ERR_PARSE);
    CHECK_CONTAINS(grove_last_error(), "maxval 65535");
    CHECK_EQ_INT(gv_image_load("tests/data/vision/boxes.csv", &x), GROVE_ERR_PARSE);
    CHECK_CONTAINS(grove_last_error(), "not a PGM");
    CHECK_EQ_INT(gv_image_load("tests/data/vision/none.png", &x), GROVE_ERR_IO);
    /* headers that declare pictures past the limit are refused before anything is allocated
     * (huge_frame.jpg: fuzz_image's 353-byte JPEG asking for 4.25 GB; docs/limits.md) */
    CHECK_EQ_INT(gv_image_load("tests/data/bad/vision/huge_frame.jpg", &x), GROVE_ERR_PARSE);
    CHECK_CONTAINS(grove_last_error(), "huge_frame.jpg: image size ");
    CHECK_CONTAINS(grove_last_error(), "out of range");
    CHECK_EQ_INT(gv_image_load("tests/data/bad/vision/huge.png", &x), GROVE_ERR_PARSE);
    CHECK_CONTAINS(grove_last_error(), "huge.png: image size 20000x20000 is out of range");
    /* an interlaced colour PNG whose compressed data stops short: libpng fails inside
     * png_read_image; the sanitizer build's leak check sees the buffers freed */
    CHECK_EQ_INT(gv_image_load("tests/data/bad/vision/cut_interlaced.png", &x), GROVE_ERR_PARSE);
    CHECK_CONTAINS(grove_last_error(), "cut_interlaced.png: bad PNG: ");
    CHECK_EQ_INT(gv_image_load("tests/data/bad/vision/huge.pgm", &x), GROVE_ERR_PARSE);
    CHECK_CONTAINS(grove_last_error(), "huge.pgm: image size 20000x20000 is out of range");
    CHECK(x == NULL);
    static const uint8_t px[4] = {0};
    grove_image *gi = NULL;
    CHECK_EQ_INT(grove_image_from_gray(px, 20000, 20000, 20000, &gi), GROVE_ERR_ARG);
    CHECK_CONTAINS(grove_last_error(), "grove_image_from_gray: image size 20000x20000");
    CHECK_EQ_INT(grove_image_from_gray(px, 2, 2, 1, &gi), GROVE_ERR_ARG);
    CHECK_CONTAINS(grove_last_error(), "stride 1 is less than width 2");
    CHECK(gi == NULL);
    gv_image_free(img);
}

static void test_resize_halving_and_copy(void)
{
    gv_image *img = random_image(16, 12, 3);
    uint8_t out[8 * 6], same[16 * 12];
    gv_image_resize_linear(img->pix, 16, 12, out, 8, 6);
    int bad = 0;
    for (int y = 0; y < 6; y++)
        for (int x = 0; x < 8; x++) {
            const uint8_t *a = img->pix + 2 * y * 16 + 2 * x;
            if (out[y * 8 + x] != (a[0] + a[1] + a[16] + a[17] + 2) / 4) bad++;
        }
    CHECK_EQ_INT(bad, 0);
    gv_image_resize_linear(img->pix, 16, 12, same, 16, 12);
    CHECK(!memcmp(same, img->pix, sizeof same));
    /* a constant image stays constant at any size */
    memset(img->pix, 77, 16 * 12);
    uint8_t odd[11 * 7];
    gv_image_resize_linear(img->pix, 16, 12, odd, 11, 7);
    bad = 0;
    for (int i = 0; i < 77; i++) bad += odd[i] != 77;
    CHECK_EQ_INT(bad, 0);
    gv_image_free(img);
}

static void test_grouping(void)
{
    /* three near-identical boxes and a lone one: min_neighbors 2 keeps the mean of the three */
    gv_rect r[4] = {{10, 10, 20, 20, 1}, {11, 10, 20, 20, 1}, {10, 12, 21, 21, 1}, {100, 100, 20, 20, 1}};
    size_t n = 4;
    CHECK_OK(gv_group_rects(r, &n, 2, 0.2, 200, 200));
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(r[0].x, 10);  /* 31/3 = 10.33 */
    CHECK_EQ_INT(r[0].y, 11);  /* 32/3 = 10.67 */
    CHECK_EQ_INT(r[0].w, 20);  /* 61/3 = 20.33 */
    CHECK_EQ_INT(r[0].neighbors, 3);
    /* no grouping: every box kept with one neighbour, clipped to the image */
    gv_rect s[2] = {{-5, 190, 20, 20, 7}, {300, 300, 5, 5, 1}};
    n = 2;
    CHECK_OK(gv_group_rects(s, &n, 0, 0.2, 200, 200));
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(s[0].x, 0);
    CHECK_EQ_INT(s[0].w, 15);
    CHECK_EQ_INT(s[0].h, 10);
    CHECK_EQ_INT(s[0].neighbors, 1);
}

static void test_cascade_files_and_detection(void)
{
    if (access(FACE_XML, R_OK) != 0) {
        fprintf(stderr, "test_vision: %s missing (install opencv-data); failing\n", FACE_XML);
        CHECK(0);
        return;
    }
    struct grove_cascade *c = NULL, *j = NULL, *x = NULL;
    CHECK_OK(gv_cascade_read_xml(FACE_XML, &c));
    if (!c) return;
    CHECK_EQ_INT(c->n_stages, 25);
    CHECK_EQ_INT(c->n_trees, 2913);
    CHECK_EQ_INT(c->width, 24);
    CHECK(c->stumps_only);
    gv_image *img = NULL;
    CHECK_OK(gv_image_load("tests/data/vision/astronaut.pgm", &img));
    gv_detect_opts o = {1.1, 3, 0, 0, 0, 0, 0, 1, 0.2};
    gv_rect *r1 = NULL, *r2 = NULL, *r3 = NULL;
    size_t n1 = 0, n2 = 0, n3 = 0;
    double windows = 0;
    CHECK_OK(gv_detect(c, img, &o, &r1, &n1, &windows));
    CHECK_EQ_INT(n1, 1);
    CHECK(windows > 300000);
    if (n1 == 1) { /* the true box of tests/data/vision/boxes.csv: 177,66,95,95 */
        CHECK(abs(r1[0].x - 177) <= 3 && abs(r1[0].y - 66) <= 3 && abs(r1[0].w - 95) <= 4);
    }
    o.n_threads = 2;
    CHECK_OK(gv_detect(c, img, &o, &r2, &n2, NULL));
    CHECK_EQ_INT(n2, n1);
    CHECK(n1 == n2 && !memcmp(r1, r2, n1 * sizeof *r1));
    /* grove's file and OpenCV's XML written by grove give the same cascade */
    char pj[] = "/tmp/grove_casc_XXXXXX", px[] = "/tmp/grove_cascx_XXXXXX";
    close(mkstemp(pj));
    close(mkstemp(px));
    CHECK_OK(gv_cascade_save_json(c, pj));
    CHECK_OK(gv_cascade_load_json(pj, &j));
    CHECK_OK(gv_cascade_write_xml(c, px));
    CHECK_OK(gv_cascade_read_xml(px, &x));
    struct grove_cascade *both[2] = {j, x};
    for (int k = 0; k < 2; k++) {
        struct grove_cascade *d = both[k];
        if (!d) continue;
        CHECK_EQ_INT(d->n_stages, c->n_stages);
        CHECK_EQ_INT(d->n_trees, c->n_trees);
        CHECK(!memcmp(d->nodes, c->nodes, (size_t)c->n_nodes * sizeof *c->nodes));
        CHECK(!memcmp(d->leaves, c->leaves, (size_t)c->n_leaves * sizeof *c->leaves));
        CHECK(!memcmp(d->features, c->features, (size_t)c->n_features * sizeof *c->features));
        int same = 1;
        for (int s = 0; s < c->n_stages; s++) same &= d->stages[s].threshold == c->stages[s].threshold;
        CHECK(same);
    }
    CHECK_OK(gv_detect(j, img, &o, &r3, &n3, NULL));
    CHECK(n3 == n1 && !memcmp(r3, r1, n1 * sizeof *r1));
    remove(pj);
    remove(px);
    gv_free(r1);
    gv_free(r2);
    gv_free(r3);
    /* a tree cascade with tilted features loads and runs */
    struct grove_cascade *e = NULL;
    CHECK_OK(gv_cascade_read_xml(EYE_XML, &e));
    if (e) {
        CHECK(e->has_tilted);
        CHECK(!e->stumps_only);
        gv_rect *re = NULL;
        size_t ne = 0;
        CHECK_OK(gv_detect(e, img, &o, &re, &ne, NULL));
        CHECK(ne >= 1);
        gv_free(re);
    }
    gv_cascade_free(e);
    /* the bad corpus */
    struct grove_cascade *bad = NULL;
    CHECK_EQ_INT(gv_cascade_read_xml("tests/data/bad/vision/lbp.xml", &bad), GROVE_ERR_MODEL);
    CHECK_CONTAINS(grove_last_error(), "lbp.xml: featureType is not HAAR");
    CHECK_EQ_INT(gv_cascade_read_xml("tests/data/bad/vision/cut.xml", &bad), GROVE_ERR_MODEL);
    CHECK_CONTAINS(grove_last_error(), "cut.xml:");
    CHECK_EQ_INT(gv_cascade_read_xml("tests/data/bad/vision/bad_feature_index.xml", &bad),
                 GROVE_ERR_MODEL);
    CHECK_CONTAINS(grove_last_error(), "feature 7 out of range");
    CHECK_EQ_INT(gv_cascade_read_xml("tests/data/bad/vision/rect_outside.xml", &bad),
                 GROVE_ERR_MODEL);
    CHECK_CONTAINS(grove_last_error(), "is not inside the 24x24 window");
    /* found by fuzz_cascade: a negative count of negatives was cast to size_t */
    CHECK_EQ_INT(gv_cascade_load_json("tests/data/bad/vision/negative_count.json", &bad),
                 GROVE_ERR_MODEL);
    CHECK_CONTAINS(grove_last_error(), "training stage 1: negatives -40 is not a whole number");
    CHECK(bad == NULL);
    gv_cascade_free(c);
    gv_cascade_free(j);
    gv_cascade_free(x);
    gv_image_free(img);
}

/* The eight-window path (gv_cascade_batch8, AVX2) against gv_cascade_eval on every window of
 * the astronaut at steps 1, 2 (contiguous and strided loads) and 3 (gathers): the same answer
 * for every window, and it is really taken (batch8 available) when the CPU has AVX2. */
static void test_batch8_equals_scalar(void)
{
    struct grove_cascade *c = NULL;
    gv_image *img = NULL;
    CHECK_OK(gv_cascade_read_xml(FACE_XML, &c));
    CHECK_OK(gv_image_load("tests/data/vision/astronaut.pgm", &img));
    if (!c || !img) return;
    int w = img->width, h = img->height, stride = w + 1;
    size_t cells = (size_t)stride * (size_t)(h + 1) + 16;
    int32_t *sum = calloc(cells, sizeof *sum);
    uint32_t *sq = calloc(cells, sizeof *sq);
    gv_integral(img->pix, w, h, w, sum, sq, NULL, stride);
    gv_cascade_run run;
    CHECK_OK(gv_cascade_run_init(&run, c, stride));
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("avx2")) CHECK(run.batch8);
#endif
    long compared = 0, differ = 0, passed = 0;
    for (int step = 1; step <= 3; step++)
        for (int y = 0; y + c->height <= h; y += step)
            for (int x = 0; x + 7 * step + c->width <= w; x += 8 * step) {
                int res[8];
                if (!gv_cascade_batch8(&run, sum + y * stride + x, sq + y * stride + x, step, res))
                    continue;
                for (int j = 0; j < 8; j++) {
                    int want = gv_cascade_eval(&run, sum + y * stride + x + j * step,
                                               sq + y * stride + x + j * step, NULL, 0, NULL);
                    differ += res[j] != want;
                    passed += want == 1;
                    compared++;
                }
            }
    if (run.batch8) {
        CHECK(compared > 200000);
        CHECK(passed > 0); /* the face's windows go through every stage */
    }
    CHECK_EQ_INT(differ, 0);
    gv_cascade_run_free(&run);
    free(sum);
    free(sq);
    gv_cascade_free(c);
    gv_image_free(img);
}

int main(void)
{
    test_integral();
    test_haar_count_and_values();
    test_image_io();
    test_resize_halving_and_copy();
    test_grouping();
    test_cascade_files_and_detection();
    test_batch8_equals_scalar();
    TEST_MAIN_END();
}
