/*
 * detect.c -- `grove detect CASCADE IMAGE...`: multi-scale detection with a Haar cascade
 * (OpenCV XML or grove's own file), boxes printed as CSV, optionally drawn into PNG pictures.
 */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { OPT_SCALE, OPT_NEIGHBORS, OPT_MIN_SIZE, OPT_MAX_SIZE, OPT_STEP, OPT_THREADS, OPT_DRAW,
       OPT_OUTPUT, OPT_STATS };
static const cli_option detect_options[] = {
    {OPT_SCALE, "--scale-factor", NULL, "F", "pyramid step, > 1 (default 1.1, as OpenCV)", NULL},
    {OPT_NEIGHBORS, "--min-neighbors", "--min-neighbours", "N",
     "a box needs more than N overlapping raw hits (default 3; 0 prints\n"
     "every raw window, ungrouped); also spelt --min-neighbours", NULL},
    {OPT_MIN_SIZE, "--min-size", NULL, "WxH",
     "smallest box (or N for NxN; default: the cascade's window)", NULL},
    {OPT_MAX_SIZE, "--max-size", NULL, "WxH", "largest box (default: the image)", NULL},
    {OPT_STEP, "--step", NULL, "N",
     "window step in pixels (default: 2 below scale 2, then 1, as OpenCV)", NULL},
    {OPT_THREADS, "--threads", "-j", "N",
     "threads (default: all cores; the boxes do not depend on it)", NULL},
    {OPT_DRAW, "--draw", NULL, "PATH",
     "draw the boxes into a PNG: a file for one image, a folder for\n"
     "several (PATH/NAME.png)", NULL},
    {OPT_OUTPUT, "--output", "-o", "FILE", "write the CSV to FILE instead of standard output",
     NULL},
    {OPT_STATS, "--stats", NULL, NULL,
     "print per image the windows evaluated and the seconds to stderr", NULL},
    {0}};
static const cli_command detect_command = {
    "detect",
    "usage: grove detect CASCADE IMAGE... [options]\n"
    "\n"
    "Finds objects with a boosted Haar cascade (Viola & Jones 2004) the way OpenCV's\n"
    "CascadeClassifier.detectMultiScale does, and prints one CSV row per box:\n"
    "  image,x,y,w,h,neighbours\n"
    "CASCADE is OpenCV's cascade XML (e.g. /usr/share/opencv4/haarcascades/\n"
    "haarcascade_frontalface_default.xml) or a cascade trained by `grove cascade train`.\n"
    "IMAGE is a PGM, PNG or JPEG file (colour is converted to grey like OpenCV's cvtColor).\n"
    "\n"
    "options:\n",
    detect_options, NULL, 25};

/* "24x30" or "24" into w, h. */
static int parse_size(const char *opt, const char *s, int *wh)
{
    char *end;
    errno = 0;
    long w = strtol(s, &end, 10), h = w;
    if (end != s && *end == 'x') {
        const char *hs = end + 1;
        h = strtol(hs, &end, 10);
        if (end == hs) end = (char *)s;
    }
    if (end == s || *end || errno || w < 0 || h < 0 || w > 100000 || h > 100000) {
        cli_error("%s: expected WIDTHxHEIGHT or N, got '%s'", opt, s);
        return -1;
    }
    wh[0] = (int)w;
    wh[1] = (int)h;
    return 0;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

int cmd_detect(int argc, char **argv)
{
    const char *cascade_path = NULL, *draw = NULL, *output = NULL;
    const char **images = calloc((size_t)argc, sizeof *images);
    int n_images = 0, stats = 0;
    double scale_factor = 1.1;
    long min_neighbors = 3, step = 0, threads = 0;
    int min_size[2] = {0, 0}, max_size[2] = {0, 0};
    if (!images) {
        cli_error("out of memory");
        return EXIT_INTERNAL;
    }
    int rc = EXIT_OK;
    cli_args a = {.cmd = &detect_command, .argc = argc, .argv = argv};
    for (int o; rc == EXIT_OK && (o = cli_next(&a)) != CLI_END;) {
        const char *v = a.value;
        char *end;
        switch (o) {
        case CLI_EXIT:
            free(images);
            return a.rc;
        case CLI_POSITIONAL:
            if (!cascade_path)
                cascade_path = v;
            else
                images[n_images++] = v;
            break;
        case OPT_SCALE:
            scale_factor = strtod(v, &end);
            if (end == v || *end || !(scale_factor > 1.0) || scale_factor > 100) {
                cli_error("--scale-factor: must be a number in (1, 100], got '%s'", v);
                rc = EXIT_USAGE;
            }
            break;
        case OPT_NEIGHBORS:
            if (cli_int_arg("--min-neighbors", v, 0, 100000, &min_neighbors)) rc = EXIT_USAGE;
            break;
        case OPT_STEP:
            if (cli_int_arg("--step", v, 0, 1000, &step)) rc = EXIT_USAGE;
            break;
        case OPT_THREADS:
            if (cli_int_arg("--threads", v, 0, 4096, &threads)) rc = EXIT_USAGE;
            break;
        case OPT_MIN_SIZE:
            if (parse_size("--min-size", v, min_size)) rc = EXIT_USAGE;
            break;
        case OPT_MAX_SIZE:
            if (parse_size("--max-size", v, max_size)) rc = EXIT_USAGE;
            break;
        case OPT_DRAW:
            draw = v;
            break;
        case OPT_OUTPUT:
            output = v;
            break;
        case OPT_STATS:
            stats = 1;
            break;
        }
    }
    if (rc == EXIT_OK && (!cascade_path || n_images == 0)) {
        cli_help(stderr, &detect_command);
        rc = EXIT_USAGE;
    }
    struct stat sb;
    int draw_dir = draw && n_images > 1;
    if (rc == EXIT_OK && draw_dir && (stat(draw, &sb) != 0 || !S_ISDIR(sb.st_mode))) {
        cli_error("--draw: with several images, '%s' must be an existing folder", draw);
        rc = EXIT_USAGE;
    }
    if (rc != EXIT_OK) {
        free(images);
        return rc;
    }
    grove_cascade *cascade = NULL;
    grove_status st = grove_cascade_load(cascade_path, &cascade);
    if (st) {
        free(images);
        return cli_fail(st, NULL);
    }
    cli_out out;
    if (cli_out_open(&out, output)) {
        grove_cascade_free(cascade);
        free(images);
        return EXIT_INPUT;
    }
    fprintf(out.fp, "image,x,y,w,h,neighbours\n");
    for (int k = 0; k < n_images && rc == EXIT_OK; k++) {
        grove_image *img = NULL;
        st = grove_image_load(images[k], &img);
        if (st) {
            rc = cli_fail(st, NULL);
            break;
        }
        int *boxes = NULL;
        size_t n = 0;
        double windows = 0, t0 = cli_now();
        st = grove_cascade_detect(cascade, img, scale_factor, (int)min_neighbors, min_size,
                                  max_size, (int)step, (int)threads, &boxes, &n, &windows);
        if (st) {
            rc = cli_fail(st, images[k]);
            grove_image_free(img);
            break;
        }
        if (stats)
            fprintf(stderr, "grove: %s: %.0f windows, %zu boxes, %.4f s\n", images[k], windows, n,
                    cli_now() - t0);
        for (size_t b = 0; b < n; b++) {
            cli_csv_field(out.fp, images[k]);
            fprintf(out.fp, ",%d,%d,%d,%d,%d\n", boxes[5 * b], boxes[5 * b + 1], boxes[5 * b + 2],
                    boxes[5 * b + 3], boxes[5 * b + 4]);
        }
        if (draw) {
            char *pic = NULL;
            if (draw_dir) {
                const char *bn = base_name(images[k]);
                size_t len = strlen(draw) + strlen(bn) + 6;
                pic = malloc(len);
                if (pic) {
                    snprintf(pic, len, "%s/%s", draw, bn);
                    char *dot = strrchr(pic + strlen(draw) + 1, '.');
                    if (dot) *dot = 0;
                    strcat(pic, ".png");
                }
            }
            st = grove_image_save_png_boxes(img, boxes, n, NULL, 2, pic ? pic : draw);
            free(pic);
            if (st) rc = cli_fail(st, "--draw");
        }
        grove_boxes_free(boxes);
        grove_image_free(img);
    }
    if (rc == EXIT_OK) {
        if (cli_out_commit(&out)) rc = EXIT_INPUT;
    } else {
        cli_out_abort(&out);
    }
    grove_cascade_free(cascade);
    free(images);
    return rc;
}
