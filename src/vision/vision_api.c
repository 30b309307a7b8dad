/*
 * vision_api.c -- the public entry points of the vision section of grove.h: images, cascades,
 * detection, drawing.  Arguments are checked here (NULL handles and out-pointers rejected with
 * GROVE_ERR_ARG, out-parameters cleared), then the work is done in vision/.
 *
 * Pipeline position: the api layer of vision/ (it lives beside the module it fronts, like
 * src/api/ does for the tabular pipeline).
 */
#include "vision.h"

#include <stdio.h>
#include <string.h>

#define REQUIRE(cond, fn, what)                                                                    \
    do {                                                                                           \
        if (!(cond)) return gv_err(GROVE_ERR_ARG, "%s: %s", fn, what);                            \
    } while (0)

grove_status grove_image_load(const char *path, grove_image **out)
{
    gv_err_clear();
    REQUIRE(out, "grove_image_load", "out is NULL");
    *out = NULL;
    REQUIRE(path, "grove_image_load", "path is NULL");
    return gv_image_load(path, out);
}

grove_status grove_image_from_gray(const uint8_t *pixels, int width, int height, size_t stride,
                                   grove_image **out)
{
    gv_err_clear();
    REQUIRE(out, "grove_image_from_gray", "out is NULL");
    *out = NULL;
    REQUIRE(pixels, "grove_image_from_gray", "pixels is NULL");
    if (gv_image_size_check("grove_image_from_gray", width, height)) return GROVE_ERR_ARG;
    if (stride < (size_t)width)
        return gv_err(GROVE_ERR_ARG, "grove_image_from_gray: stride %zu is less than width %d",
                      stride, width);
    gv_image *img = gv_image_new(width, height);
    if (!img) return gv_err_nomem("image");
    for (int y = 0; y < height; y++)
        memcpy(img->pix + (size_t)y * width, pixels + (size_t)y * stride, (size_t)width);
    *out = img;
    return GROVE_OK;
}

void grove_image_free(grove_image *image) { gv_image_free(image); }
int grove_image_width(const grove_image *image) { return image ? image->width : 0; }
int grove_image_height(const grove_image *image) { return image ? image->height : 0; }
const uint8_t *grove_image_pixels(const grove_image *image) { return image ? image->pix : NULL; }

static void draw_box(uint8_t *rgb, int w, int h, const int *b, const uint8_t *col, int th)
{
    for (int t = 0; t < th; t++) {
        int x0 = b[0] + t, y0 = b[1] + t, x1 = b[0] + b[2] - 1 - t, y1 = b[1] + b[3] - 1 - t;
        if (x1 < x0 || y1 < y0) break;
        for (int x = x0; x <= x1; x++)
            for (int k = 0; k < 2; k++) {
                int y = k ? y1 : y0;
                if (x >= 0 && x < w && y >= 0 && y < h) memcpy(rgb + 3 * ((size_t)y * w + x), col, 3);
            }
        for (int y = y0; y <= y1; y++)
            for (int k = 0; k < 2; k++) {
                int x = k ? x1 : x0;
                if (x >= 0 && x < w && y >= 0 && y < h) memcpy(rgb + 3 * ((size_t)y * w + x), col, 3);
            }
    }
}

grove_status grove_image_save_png_boxes(const grove_image *image, const int *boxes,
                                        size_t n_boxes, const uint8_t *colors, int thickness,
                                        const char *path)
{
    gv_err_clear();
    REQUIRE(image && path, "grove_image_save_png_boxes", "image or path is NULL");
    REQUIRE(boxes || n_boxes == 0, "grove_image_save_png_boxes", "boxes is NULL");
    if (thickness < 1 || thickness > 100)
        return gv_err(GROVE_ERR_ARG, "grove_image_save_png_boxes: thickness must be in [1, 100], "
                      "got %d", thickness);
    size_t n = (size_t)image->width * image->height;
    uint8_t *rgb = gv_malloc_array(n, 3);
    if (!rgb) return gv_err_nomem("picture");
    for (size_t i = 0; i < n; i++) rgb[3 * i] = rgb[3 * i + 1] = rgb[3 * i + 2] = image->pix[i];
    static const uint8_t green[3] = {0, 255, 0};
    for (size_t b = 0; b < n_boxes; b++)
        draw_box(rgb, image->width, image->height, boxes + 5 * b, colors ? colors + 3 * b : green,
                 thickness);
    /* grove_output: a device or FIFO written through, a regular file replaced atomically */
    grove_output *out = NULL;
    grove_status st = grove_output_open(path, NULL, &out);
    if (st == GROVE_OK) {
        st = gv_png_write_rgb(grove_output_stream(out), path, image->width, image->height, rgb);
        if (st == GROVE_OK)
            st = grove_output_commit(out);
        else
            grove_output_abort(out);
    }
    gv_free(rgb);
    return st;
}

grove_status grove_cascade_load(const char *path, grove_cascade **out)
{
    gv_err_clear();
    REQUIRE(out, "grove_cascade_load", "out is NULL");
    *out = NULL;
    REQUIRE(path, "grove_cascade_load", "path is NULL");
    FILE *fp = fopen(path, "rb");
    if (!fp) return gv_err(GROVE_ERR_IO, "%s: cannot open", path);
    int ch;
    do ch = fgetc(fp);
    while (ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t' || ch == 0xEF || ch == 0xBB ||
           ch == 0xBF);
    fclose(fp);
    unsigned long failed = gv_alloc_failures();
    if (ch == '{') return gv_nomem_if_failed(gv_cascade_load_json(path, out), failed, path);
    if (ch == '<') return gv_nomem_if_failed(gv_cascade_read_xml(path, out), failed, path);
    return gv_err(GROVE_ERR_MODEL, "%s: neither a grove cascade (JSON) nor an OpenCV cascade (XML)",
                  path);
}

grove_status grove_cascade_save(const grove_cascade *cascade, const char *path)
{
    gv_err_clear();
    REQUIRE(cascade && path, "grove_cascade_save", "cascade or path is NULL");
    return gv_cascade_save_json(cascade, path);
}

grove_status grove_cascade_save_opencv(const grove_cascade *cascade, const char *path)
{
    gv_err_clear();
    REQUIRE(cascade && path, "grove_cascade_save_opencv", "cascade or path is NULL");
    return gv_cascade_write_xml(cascade, path);
}

void grove_cascade_free(grove_cascade *cascade) { gv_cascade_free(cascade); }

grove_status grove_cascade_describe(const grove_cascade *c, int *width, int *height,
                                    int *n_stages, int *n_weak)
{
    gv_err_clear();
    REQUIRE(c, "grove_cascade_describe", "cascade is NULL");
    if (width) *width = c->width;
    if (height) *height = c->height;
    if (n_stages) *n_stages = c->n_stages;
    if (n_weak) *n_weak = c->n_trees;
    return GROVE_OK;
}

grove_status grove_cascade_stage_stats(const grove_cascade *c, int stage, double *f, double *d,
                                       double *F, double *D, int *n_weak, size_t *negatives,
                                       double *windows, double *seconds)
{
    gv_err_clear();
    REQUIRE(c, "grove_cascade_stage_stats", "cascade is NULL");
    if (!c->stats) return gv_err(GROVE_ERR_ARG, "grove_cascade_stage_stats: the cascade has no "
                                 "training record");
    if (stage < 0 || stage >= c->n_stages)
        return gv_err(GROVE_ERR_ARG, "grove_cascade_stage_stats: stage %d out of range [0, %d)",
                      stage, c->n_stages);
    const gv_stage_stats *s = &c->stats[stage];
    if (f) *f = s->f;
    if (d) *d = s->d;
    if (F) *F = s->F;
    if (D) *D = s->D;
    if (n_weak) *n_weak = c->stages[stage].n_trees;
    if (negatives) *negatives = s->negatives;
    if (windows) *windows = s->windows;
    if (seconds) *seconds = s->seconds;
    return GROVE_OK;
}

grove_status grove_cascade_detect(const grove_cascade *cascade, const grove_image *image,
                                  double scale_factor, int min_neighbors, const int *min_size,
                                  const int *max_size, int step, int n_threads, int **boxes,
                                  size_t *n_boxes, double *windows)
{
    gv_err_clear();
    REQUIRE(boxes && n_boxes, "grove_cascade_detect", "boxes or n_boxes is NULL");
    *boxes = NULL;
    *n_boxes = 0;
    if (windows) *windows = 0;
    REQUIRE(cascade && image, "grove_cascade_detect", "cascade or image is NULL");
    if (min_neighbors < 0 || min_neighbors > 100000)
        return gv_err(GROVE_ERR_PARAM, "min_neighbors: must be in [0, 100000], got %d",
                      min_neighbors);
    if ((min_size && (min_size[0] < 0 || min_size[1] < 0)) ||
        (max_size && (max_size[0] < 0 || max_size[1] < 0)))
        return gv_err(GROVE_ERR_PARAM, "min_size / max_size: must not be negative");
    gv_detect_opts o = {scale_factor, min_neighbors, min_size ? min_size[0] : 0,
                        min_size ? min_size[1] : 0, max_size ? max_size[0] : 0,
                        max_size ? max_size[1] : 0, step, n_threads, 0.2};
    gv_rect *r;
    size_t n;
    grove_status st = gv_detect(cascade, image, &o, &r, &n, windows);
    if (st) return st;
    int *b = gv_malloc_array(n * 5 + 1, sizeof *b);
    if (!b) {
        gv_free(r);
        return gv_err_nomem("boxes");
    }
    for (size_t i = 0; i < n; i++) {
        b[5 * i] = r[i].x;
        b[5 * i + 1] = r[i].y;
        b[5 * i + 2] = r[i].w;
        b[5 * i + 3] = r[i].h;
        b[5 * i + 4] = r[i].neighbors;
    }
    gv_free(r);
    *boxes = b;
    *n_boxes = n;
    return GROVE_OK;
}

void grove_boxes_free(int *boxes) { gv_free(boxes); }

grove_status grove_cascade_classify(const grove_cascade *c, const grove_image *image,
                                    int *accepted, int *stages_passed)
{
    gv_err_clear();
    REQUIRE(accepted, "grove_cascade_classify", "accepted is NULL");
    *accepted = 0;
    if (stages_passed) *stages_passed = 0;
    REQUIRE(c && image, "grove_cascade_classify", "cascade or image is NULL");
    int W = c->width, H = c->height, cells = (W + 1) * (H + 1);
    uint8_t *win = gv_malloc_array((size_t)W, (size_t)H);
    int32_t *sum = gv_malloc_array((size_t)cells, sizeof *sum);
    int32_t *tilt = gv_malloc_array((size_t)cells, sizeof *tilt);
    uint32_t *sq = gv_malloc_array((size_t)cells, sizeof *sq);
    gv_cascade_run run = {0};
    grove_status st = !win || !sum || !tilt || !sq ? gv_err_nomem("window") : GROVE_OK;
    if (!st) st = gv_cascade_run_init(&run, c, W + 1);
    if (!st) {
        gv_image_resize_linear(image->pix, image->width, image->height, win, W, H);
        gv_integral(win, W, H, W, sum, sq, c->has_tilted ? tilt : NULL, W + 1);
        int r = gv_cascade_eval(&run, sum, sq, tilt, 0, NULL);
        *accepted = r == 1;
        if (stages_passed) *stages_passed = r == 1 ? c->n_stages : r == GV_CASCADE_FLAT ? -1 : -r;
    }
    gv_cascade_run_free(&run);
    gv_free(win);
    gv_free(sum);
    gv_free(tilt);
    gv_free(sq);
    return st;
}
