/*
 * cascade.c -- `grove cascade train|info|eval|convert`: training Viola-Jones cascades, their
 * per-stage record, their detection rate and false positives per million windows, and
 * conversion between grove's cascade file and OpenCV's XML.
 */
#include "cli.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_POSITIVES, OPT_NEGATIVES, OPT_OUTPUT, OPT_OPENCV, OPT_SCALE, OPT_THREADS };
static const cli_option cascade_train_options[] = {
    {OPT_POSITIVES, "--positives", NULL, "P",
     "a folder of object crops (PGM/PNG/JPEG, any size; each is resized to\n"
     "the window) or a CSV image,x,y,w,h of boxes (header first)", NULL},
    {OPT_NEGATIVES, "--negatives", NULL, "DIR",
     "a folder of images without the object (hard negatives are mined\n"
     "from them at every stage)", NULL},
    {OPT_OUTPUT, "--output", "-o", "FILE", "grove's cascade file (JSON; `grove detect` reads it)",
     NULL},
    {OPT_OPENCV, "--opencv", NULL, "FILE.xml",
     "also write OpenCV's XML (cv2.CascadeClassifier runs it)", NULL},
    {CLI_PARAM, "--window", NULL, "WxH", "base window (default 24x24)", "cascade.window"},
    {CLI_PARAM, "--features", NULL, "basic|all",
     "the five upright Haar families, or also the 45-degree ones", "cascade.features"},
    {CLI_PARAM, "--stages", NULL, "N", "most stages (default 20)", "cascade.stages"},
    {CLI_PARAM, "--max-fp", NULL, "f",
     "a stage's largest false-positive rate on validation (default 0.5)", "cascade.max_fp"},
    {CLI_PARAM, "--min-detect", NULL, "d",
     "a stage's smallest detection rate on validation (default 0.995)", "cascade.min_detect"},
    {CLI_PARAM, "--target-fp", NULL, "F", "stop when the product of the f_i reaches F (default 1e-6)",
     "cascade.target_fp"},
    {CLI_PARAM, "--max-weak", NULL, "N", "most features per stage (default 200)",
     "cascade.max_weak"},
    {CLI_PARAM, "--negatives-per-stage", NULL, "N",
     "training negatives per stage (default: 2 x positives)", "cascade.negatives"},
    {CLI_PARAM, "--augment", NULL, "none|mirror|mirror-shift",
     "copies of each positive (default mirror-shift)", "cascade.augment"},
    {CLI_PARAM, "--valid-fraction", NULL, "x",
     "positive sources held out for stage thresholds (default 0.2)", "cascade.valid_fraction"},
    {CLI_PARAM, "--memory-mb", NULL, "N", "memory for the binned feature values (default 2048)",
     "cascade.memory_mb"},
    {CLI_PARAM, "--max-windows", NULL, "N",
     "most windows scanned per stage to mine negatives (default 2e8)", "cascade.max_windows"},
    {CLI_PARAM, "--seed", NULL, "N", "random seed", "seed"},
    {CLI_PARAM, "--threads", "-j", "N", "threads (0 = all cores)", "threads"},
    {CLI_SET, "--set", "-s", "cascade.KEY=VALUE", "any cascade parameter (`grove help params`)",
     NULL},
    {CLI_QUIET, "--quiet", "-q", NULL, "no progress and no training time", NULL},
    {0}};
static const cli_command cascade_train_command = {
    "cascade train",
    "usage: grove cascade train --positives P --negatives DIR --output CASCADE [options]\n"
    "       grove cascade info CASCADE\n"
    "       grove cascade eval CASCADE [--positives DIR] [--negatives DIR] [--scale-factor F]\n"
    "                              [--threads N]\n"
    "       grove cascade convert CASCADE OUT.xml|OUT.json\n"
    "\n"
    "train: an attentional cascade of boosted Haar-feature stumps (Viola & Jones 2004).\n",
    cascade_train_options,
    "  Prints the per-stage table: features, f_i, d_i, cumulative F and D, negatives mined,\n"
    "  windows scanned for them, seconds.\n"
    "\n"
    "info: the stages of a cascade (and the training record of a grove-trained one).\n"
    "eval: detection rate on a folder of crops (each resized to the window, one window) and\n"
    "  false positives per million windows scanned over a folder of negative images (the\n"
    "  detector's pyramid, raw windows before grouping).  Works for OpenCV's cascades too.\n"
    "  Its options: grove cascade eval --help.\n"
    "convert: write a cascade as OpenCV XML (.xml) or grove's file (.json).\n",
    28};

static const cli_option cascade_eval_options[] = {
    {OPT_POSITIVES, "--positives", NULL, "DIR", "object crops: the detection rate", NULL},
    {OPT_NEGATIVES, "--negatives", NULL, "DIR",
     "images without the object: false positives per million windows", NULL},
    {OPT_SCALE, "--scale-factor", NULL, "F", "pyramid step, > 1 (default 1.1, as OpenCV)", NULL},
    {OPT_THREADS, "--threads", "-j", "N", "threads (0 = all cores)", NULL},
    {0}};
static const cli_command cascade_eval_command = {
    "cascade eval",
    "usage: grove cascade eval CASCADE [--positives DIR] [--negatives DIR] [--scale-factor F]\n"
    "                              [--threads N]\n"
    "\n"
    "The detection rate on a folder of crops (each resized to the window, one window) and the\n"
    "false positives per million windows scanned over a folder of negative images (the\n"
    "detector's pyramid, raw windows before grouping).  Works for OpenCV's cascades too.\n"
    "\n",
    cascade_eval_options, NULL, 24};

static int print_table(FILE *fp, const grove_cascade *c)
{
    int w, h, n_stages, n_weak;
    grove_cascade_describe(c, &w, &h, &n_stages, &n_weak);
    fprintf(fp, "window %dx%d, %d stages, %d weak classifiers\n", w, h, n_stages, n_weak);
    double f, d, F, D, windows, seconds, total = 0;
    int nw;
    size_t neg;
    if (grove_cascade_stage_stats(c, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) != GROVE_OK)
        return 0;
    fprintf(fp, "stage,features,f_i,d_i,F,D,negatives,windows_scanned,seconds\n");
    for (int s = 0; s < n_stages; s++) {
        grove_cascade_stage_stats(c, s, &f, &d, &F, &D, &nw, &neg, &windows, &seconds);
        total += seconds;
        fprintf(fp, "%d,%d,%.4f,%.4f,%.3e,%.4f,%zu,%.0f,%.1f\n", s + 1, nw, f, d, F, D, neg,
                windows, seconds);
    }
    fprintf(fp, "total seconds: %.1f\n", total);
    return 0;
}

static int cmd_train_cascade(int argc, char **argv)
{
    const char *pos = NULL, *neg = NULL, *output = NULL, *opencv = NULL;
    int quiet = 0;
    grove_params *params = NULL;
    if (grove_params_create(&params)) return cli_fail(GROVE_ERR_NOMEM, NULL);
    int rc = EXIT_OK;
    cli_args a = {.cmd = &cascade_train_command, .argc = argc, .argv = argv, .i = 1,
                  .params = params};
    for (int o; rc == EXIT_OK && (o = cli_next(&a)) != CLI_END;) {
        switch (o) {
        case CLI_EXIT:
            grove_params_free(params);
            return a.rc;
        case CLI_POSITIONAL:
            cli_error("cascade train: unexpected argument '%s'", a.value);
            rc = EXIT_USAGE;
            break;
        case OPT_POSITIVES:
            pos = a.value;
            break;
        case OPT_NEGATIVES:
            neg = a.value;
            break;
        case OPT_OUTPUT:
            output = a.value;
            break;
        case OPT_OPENCV:
            opencv = a.value;
            break;
        }
    }
    quiet = a.quiet;
    if (rc == EXIT_OK && (!pos || !neg || !output)) {
        cli_error("cascade train: --positives, --negatives and --output are required");
        rc = EXIT_USAGE;
    }
    if (rc != EXIT_OK) {
        grove_params_free(params);
        return rc;
    }
    cli_enable_progress(params, quiet);
    grove_cascade *c = NULL;
    double t0 = cli_now();
    grove_status st = grove_cascade_train(pos, neg, params, &c);
    cli_progress_done();
    grove_params_free(params);
    if (st) return cli_fail(st, "cascade train");
    if (!quiet) fprintf(stderr, "grove: trained in %.1f s\n", cli_now() - t0);
    st = grove_cascade_save(c, output);
    if (!st && opencv) st = grove_cascade_save_opencv(c, opencv);
    if (st) {
        grove_cascade_free(c);
        return cli_fail(st, NULL);
    }
    print_table(stdout, c);
    grove_cascade_free(c);
    return EXIT_OK;
}

static int is_image(const char *n)
{
    const char *dot = strrchr(n, '.');
    return dot && (!strcmp(dot, ".pgm") || !strcmp(dot, ".png") || !strcmp(dot, ".jpg") ||
                   !strcmp(dot, ".jpeg") || !strcmp(dot, ".PGM") || !strcmp(dot, ".PNG") ||
                   !strcmp(dot, ".JPG"));
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The image files of a folder, sorted (new array of new strings; NULL on error, printed). */
static char **folder_images(const char *dir, size_t *n)
{
    DIR *d = opendir(dir);
    *n = 0;
    if (!d) {
        cli_error("%s: cannot open folder", dir);
        return NULL;
    }
    char **v = NULL;
    size_t cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || !is_image(e->d_name)) continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            char **q = realloc(v, cap * sizeof *q);
            if (!q) break;
            v = q;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        v[*n] = malloc(len);
        if (!v[*n]) break;
        snprintf(v[*n], len, "%s/%s", dir, e->d_name);
        (*n)++;
    }
    closedir(d);
    if (*n) qsort(v, *n, sizeof *v, cmp_names);
    return v ? v : calloc(1, sizeof *v);
}

static void free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
}

static int cmd_eval_cascade(int argc, char **argv)
{
    const char *path = NULL, *pos = NULL, *neg = NULL;
    double sf = 1.1;
    long threads = 0;
    cli_args a = {.cmd = &cascade_eval_command, .argc = argc, .argv = argv, .i = 1};
    for (int o; (o = cli_next(&a)) != CLI_END;) {
        const char *v = a.value;
        char *end;
        switch (o) {
        case CLI_EXIT:
            return a.rc;
        case CLI_POSITIONAL:
            if (path) {
                cli_error("cascade eval: one cascade only");
                return EXIT_USAGE;
            }
            path = v;
            break;
        case OPT_POSITIVES:
            pos = v;
            break;
        case OPT_NEGATIVES:
            neg = v;
            break;
        case OPT_SCALE:
            sf = strtod(v, &end);
            if (end == v || *end || !(sf > 1) || sf > 100) {
                cli_error("--scale-factor: must be a number in (1, 100], got '%s'", v);
                return EXIT_USAGE;
            }
            break;
        case OPT_THREADS:
            if (cli_int_arg("--threads", v, 0, 4096, &threads)) return EXIT_USAGE;
            break;
        }
    }
    if (!path || (!pos && !neg)) {
        cli_help(stderr, &cascade_eval_command);
        return EXIT_USAGE;
    }
    grove_cascade *c = NULL;
    grove_status st = grove_cascade_load(path, &c);
    if (st) return cli_fail(st, NULL);
    int rc = EXIT_OK;
    printf("cascade,%s\n", path);
    if (pos) {
        size_t n = 0, hit = 0, flat = 0;
        char **files = folder_images(pos, &n);
        for (size_t i = 0; files && i < n && rc == EXIT_OK; i++) {
            grove_image *img = NULL;
            int acc = 0, passed = 0;
            if ((st = grove_image_load(files[i], &img)) ||
                (st = grove_cascade_classify(c, img, &acc, &passed)))
                rc = cli_fail(st, NULL);
            hit += acc;
            flat += passed < 0;
            grove_image_free(img);
        }
        if (files && rc == EXIT_OK)
            printf("positives,%zu\ndetected,%zu\ndetection_rate,%.4f\ntoo_flat,%zu\n", n, hit,
                   n ? (double)hit / (double)n : 0.0, flat);
        if (!files) rc = EXIT_INPUT;
        free_list(files, n);
    }
    if (neg && rc == EXIT_OK) {
        size_t n = 0;
        double windows = 0, fps = 0;
        char **files = folder_images(neg, &n);
        for (size_t i = 0; files && i < n && rc == EXIT_OK; i++) {
            grove_image *img = NULL;
            int *boxes = NULL;
            size_t nb = 0;
            double w = 0;
            if ((st = grove_image_load(files[i], &img)) ||
                (st = grove_cascade_detect(c, img, sf, 0, NULL, NULL, 0, (int)threads, &boxes, &nb,
                                           &w)))
                rc = cli_fail(st, NULL);
            windows += w;
            fps += (double)nb;
            grove_boxes_free(boxes);
            grove_image_free(img);
        }
        if (files && rc == EXIT_OK)
            printf("negative_images,%zu\nwindows,%.0f\nfalse_positives,%.0f\n"
                   "false_positives_per_million_windows,%.3f\n",
                   n, windows, fps, windows > 0 ? 1e6 * fps / windows : 0.0);
        if (!files) rc = EXIT_INPUT;
        free_list(files, n);
    }
    grove_cascade_free(c);
    return rc;
}

int cmd_cascade(int argc, char **argv)
{
    if (argc < 2 || cli_is_help(argv[1])) {
        cli_help(argc < 2 ? stderr : stdout, &cascade_train_command);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    if (!strcmp(argv[1], "train")) return cmd_train_cascade(argc, argv);
    if (!strcmp(argv[1], "eval")) return cmd_eval_cascade(argc, argv);
    if (!strcmp(argv[1], "info") || !strcmp(argv[1], "convert")) {
        int conv = !strcmp(argv[1], "convert");
        if (argc != (conv ? 4 : 3)) {
            cli_help(stderr, &cascade_train_command);
            return EXIT_USAGE;
        }
        grove_cascade *c = NULL;
        grove_status st = grove_cascade_load(argv[2], &c);
        if (st) return cli_fail(st, NULL);
        if (conv) {
            const char *out = argv[3], *dot = strrchr(out, '.');
            st = dot && !strcmp(dot, ".xml") ? grove_cascade_save_opencv(c, out)
                                            : grove_cascade_save(c, out);
        } else {
            print_table(stdout, c);
        }
        grove_cascade_free(c);
        return st ? cli_fail(st, NULL) : EXIT_OK;
    }
    cli_error("cascade: unknown subcommand '%s' (train, info, eval, convert)", argv[1]);
    return EXIT_USAGE;
}
