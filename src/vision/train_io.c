/*
 * train_io.c -- grove_cascade_train: reads the training material (a folder of positive crops or
 * a CSV of boxes on images; a folder of negative images), makes the augmented copies of every
 * positive (mirror image, crops shifted by one pixel), holds out whole positive sources for
 * validation, reads the cascade.* parameters, and calls the trainer (train.c).
 *
 * Pipeline position: vision/, the public entry of training.
 * Every positive source region becomes window-sized windows through the detector's own resize:
 *   none:          the region
 *   mirror:        the region and its mirror image
 *   mirror-shift:  also the four regions one pixel smaller, anchored at each corner (shifts of
 *                  one pixel), and their mirrors: 10 windows per source.
 * Sources (not windows) are split into training and validation, so no face is on both sides.
 */
#include "vision.h"

#include "../core/params.h"
#include "../core/streams.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct img_list {
    gv_image **v;
    size_t n, cap;
} img_list;

static int list_add(img_list *l, gv_image *img)
{
    if (l->n == l->cap) {
        size_t nc = l->cap ? 2 * l->cap : 64;
        gv_image **q = gv_realloc_array(l->v, nc, sizeof *q);
        if (!q) return -1;
        l->v = q;
        l->cap = nc;
    }
    l->v[l->n++] = img;
    return 0;
}

static void list_free(img_list *l)
{
    for (size_t i = 0; i < l->n; i++) gv_image_free(l->v[i]);
    gv_free(l->v);
    memset(l, 0, sizeof *l);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int is_image_name(const char *n)
{
    const char *dot = strrchr(n, '.');
    if (!dot) return 0;
    const char *ext[] = {".pgm", ".PGM", ".png", ".PNG", ".jpg", ".JPG", ".jpeg", ".JPEG"};
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
        if (!strcmp(dot, ext[i])) return 1;
    return 0;
}

/* The image files of a folder, sorted by name (new array of new strings in *out). */
static grove_status list_folder(const char *dir, char ***out, size_t *n)
{
    *out = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) return gv_err(GROVE_ERR_IO, "%s: cannot open folder: %s", dir, strerror(errno));
    char **names = NULL;
    size_t cap = 0, k = 0;
    struct dirent *e;
    grove_status st = GROVE_OK;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || !is_image_name(e->d_name)) continue;
        if (k == cap) {
            size_t nc = cap ? 2 * cap : 64;
            char **q = gv_realloc_array(names, nc, sizeof *q);
            if (!q) {
                st = gv_err_nomem("file list");
                break;
            }
            names = q;
            cap = nc;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        names[k] = gv_malloc(len);
        if (!names[k]) {
            st = gv_err_nomem("file list");
            break;
        }
        snprintf(names[k], len, "%s/%s", dir, e->d_name);
        k++;
    }
    closedir(d);
    if (st) {
        for (size_t i = 0; i < k; i++) gv_free(names[i]);
        gv_free(names);
        return st;
    }
    if (k) qsort(names, k, sizeof *names, cmp_str);
    *out = names;
    *n = k;
    return GROVE_OK;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++) gv_free(names[i]);
    gv_free(names);
}

/* A window-sized copy of region (x, y, w, h) of img, optionally mirrored. */
static gv_image *crop_resize(const gv_image *img, int x, int y, int w, int h, int W, int H,
                             int mirror)
{
    uint8_t *reg = gv_malloc_array((size_t)w, (size_t)h);
    gv_image *out = gv_image_new(W, H);
    if (!reg || !out) {
        gv_free(reg);
        gv_image_free(out);
        return NULL;
    }
    for (int r = 0; r < h; r++) {
        const uint8_t *s = img->pix + (size_t)(y + r) * img->width + x;
        uint8_t *d = reg + (size_t)r * w;
        if (mirror)
            for (int q = 0; q < w; q++) d[q] = s[w - 1 - q];
        else
            memcpy(d, s, (size_t)w);
    }
    gv_image_resize_linear(reg, w, h, out->pix, W, H);
    gv_free(reg);
    return out;
}

/* Appends the augmented windows of one source region to `l`. */
static grove_status augment(const gv_image *img, int x, int y, int w, int h, int W, int H,
                            int mode, img_list *l)
{
    int n_shift = mode == 2 && w > 2 && h > 2 ? 4 : 0;
    for (int m = 0; m < (mode >= 1 ? 2 : 1); m++)
        for (int s = -1; s < n_shift; s++) {
            int rx = x, ry = y, rw = w, rh = h;
            if (s >= 0) {
                rw = w - 1;
                rh = h - 1;
                rx = x + (s & 1);
                ry = y + (s >> 1);
            }
            gv_image *win = crop_resize(img, rx, ry, rw, rh, W, H, m);
            if (!win || list_add(l, win)) {
                gv_image_free(win);
                return gv_err_nomem("positive windows");
            }
        }
    return GROVE_OK;
}

/* The directory part of a path ("." when none), as a new string. */
static char *dir_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? gv_strndup(path, (size_t)(s - path)) : gv_strdup(".");
}

typedef struct source {
    char *image; /* path, owned */
    int x, y, w, h; /* w < 0: the whole image */
} source;

/* Reads positives: a folder (each image is one source) or a CSV "image,x,y,w,h" (header
 * first; image paths relative to the CSV's folder). */
static grove_status read_sources(const char *path, source **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    struct stat sb;
    if (stat(path, &sb) != 0) return gv_err(GROVE_ERR_IO, "%s: %s", path, strerror(errno));
    if (S_ISDIR(sb.st_mode)) {
        char **names;
        size_t k;
        grove_status st = list_folder(path, &names, &k);
        if (st) return st;
        source *s = gv_calloc(k + 1, sizeof *s);
        if (!s) {
            free_names(names, k);
            return gv_err_nomem("sources");
        }
        for (size_t i = 0; i < k; i++) {
            s[i].image = names[i];
            s[i].w = -1;
        }
        gv_free(names);
        *out = s;
        *n = k;
        return GROVE_OK;
    }
    FILE *fp = fopen(path, "r");
    if (!fp) return gv_err(GROVE_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    char line[4096];
    size_t cap = 0, k = 0, lineno = 0;
    source *s = NULL;
    char *dir = dir_of(path);
    grove_status st = dir ? GROVE_OK : gv_err_nomem("path");
    while (!st && fgets(line, sizeof line, fp)) {
        lineno++;
        size_t len = strlen(line);
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
        if (lineno == 1 || len == 0) continue; /* the header */
        char *c1 = strchr(line, ',');
        long v[4];
        char *p = c1, *end;
        int ok = c1 != NULL;
        for (int j = 0; j < 4 && ok; j++) {
            if (*p != ',') {
                ok = 0;
                break;
            }
            errno = 0;
            v[j] = strtol(p + 1, &end, 10);
            ok = end != p + 1 && !errno && v[j] >= 0 && v[j] < 1000000;
            p = end;
        }
        if (!ok || *p) {
            st = gv_err(GROVE_ERR_PARSE, "%s:%zu: expected image,x,y,w,h with non-negative "
                        "integers", path, lineno);
            break;
        }
        if (v[2] < 2 || v[3] < 2) {
            st = gv_err(GROVE_ERR_PARSE, "%s:%zu: box %ldx%ld is too small", path, lineno, v[2], v[3]);
            break;
        }
        *c1 = 0;
        if (k == cap) {
            size_t nc = cap ? 2 * cap : 64;
            source *q = gv_realloc_array(s, nc, sizeof *q);
            if (!q) {
                st = gv_err_nomem("sources");
                break;
            }
            s = q;
            cap = nc;
        }
        size_t plen = strlen(dir) + strlen(line) + 2;
        s[k].image = gv_malloc(plen);
        if (!s[k].image) {
            st = gv_err_nomem("sources");
            break;
        }
        if (line[0] == '/')
            snprintf(s[k].image, plen, "%s", line);
        else
            snprintf(s[k].image, plen, "%s/%s", dir, line);
        s[k].x = (int)v[0];
        s[k].y = (int)v[1];
        s[k].w = (int)v[2];
        s[k].h = (int)v[3];
        k++;
    }
    fclose(fp);
    gv_free(dir);
    if (!st && k == 0) st = gv_err(GROVE_ERR_DATA, "%s: no boxes", path);
    if (st) {
        for (size_t i = 0; i < k; i++) gv_free(s[i].image);
        gv_free(s);
        return st;
    }
    *out = s;
    *n = k;
    return GROVE_OK;
}

static grove_status parse_window(const char *s, int *w, int *h)
{
    char *end;
    long a = strtol(s, &end, 10), b = a;
    if (*end == 'x') {
        const char *t = end + 1;
        b = strtol(t, &end, 10);
        if (end == t) end = (char *)s;
    }
    if (end == s || *end || a < 8 || b < 8 || a > 64 || b > 64)
        return gv_err(GROVE_ERR_PARAM, "cascade.window: expected WIDTHxHEIGHT with 8 to 64 each, "
                      "got '%s'", s);
    *w = (int)a;
    *h = (int)b;
    return GROVE_OK;
}

grove_status grove_cascade_train(const char *positives, const char *negatives,
                                 const grove_params *params, grove_cascade **out)
{
    gv_err_clear();
    if (!out) return gv_err(GROVE_ERR_ARG, "grove_cascade_train: out is NULL");
    *out = NULL;
    if (!positives || !negatives)
        return gv_err(GROVE_ERR_ARG, "grove_cascade_train: positives or negatives is NULL");
    grove_params *own = NULL;
    if (!params) {
        grove_status s0 = grove_params_create(&own);
        if (s0) return s0;
        params = own;
    }
    gv_train_opts o;
    memset(&o, 0, sizeof o);
    grove_status st = parse_window(gv_param_str(params, GV_P_CASCADE_WINDOW), &o.width, &o.height);
    o.types = gv_param_int(params, GV_P_CASCADE_FEATURES) == 1 ? GV_HAAR_ALL : GV_HAAR_BASIC;
    o.max_stages = (int)gv_param_int(params, GV_P_CASCADE_STAGES);
    o.max_weak = (int)gv_param_int(params, GV_P_CASCADE_MAX_WEAK);
    o.max_fp = gv_param_double(params, GV_P_CASCADE_MAX_FP);
    o.min_detect = gv_param_double(params, GV_P_CASCADE_MIN_DETECT);
    o.target_fp = gv_param_double(params, GV_P_CASCADE_TARGET_FP);
    o.max_windows = gv_param_double(params, GV_P_CASCADE_MAX_WINDOWS);
    o.negatives = (size_t)gv_param_int(params, GV_P_CASCADE_NEGATIVES);
    o.memory_bytes = (size_t)gv_param_int(params, GV_P_CASCADE_MEMORY_MB) << 20;
    o.seed = (uint64_t)gv_param_int(params, GV_P_SEED);
    o.n_threads = (int)gv_param_int(params, GV_P_THREADS);
    int aug = (int)gv_param_int(params, GV_P_CASCADE_AUGMENT);
    double vfrac = gv_param_double(params, GV_P_CASCADE_VALID_FRACTION);
    source *src = NULL;
    size_t n_src = 0, n_neg_files = 0;
    char **neg_files = NULL;
    img_list tr = {0}, va = {0}, neg = {0};
    size_t *order = NULL;
    if (!st) st = read_sources(positives, &src, &n_src);
    if (!st && n_src == 0) st = gv_err(GROVE_ERR_DATA, "%s: no positive images", positives);
    if (!st) st = list_folder(negatives, &neg_files, &n_neg_files);
    if (!st && n_neg_files == 0) st = gv_err(GROVE_ERR_DATA, "%s: no negative images", negatives);
    /* sources to validation: the first round(fraction n) of a seeded shuffle */
    if (!st) {
        order = gv_malloc_array(n_src, sizeof *order);
        if (!order) st = gv_err_nomem("sources");
    }
    if (!st) {
        for (size_t i = 0; i < n_src; i++) order[i] = i;
        gv_rng rng;
        gv_rng_seed(&rng, o.seed, GV_STREAM_CASCADE_VALID, 0);
        gv_rng_shuffle(&rng, order, n_src);
        size_t n_val = (size_t)lrint(vfrac * (double)n_src);
        if (vfrac > 0 && n_val == 0 && n_src >= 2) n_val = 1;
        uint8_t *is_val = gv_calloc(n_src, 1);
        if (!is_val) st = gv_err_nomem("sources");
        for (size_t i = 0; i < n_val && !st; i++) is_val[order[i]] = 1;
        /* in file order, so the windows do not depend on the shuffle beyond the split */
        gv_image *img = NULL;
        const char *loaded = NULL;
        for (size_t i = 0; i < n_src && !st; i++) {
            if (!loaded || strcmp(loaded, src[i].image)) {
                gv_image_free(img);
                img = NULL;
                if ((st = gv_image_load(src[i].image, &img))) break;
                loaded = src[i].image;
            }
            int x = src[i].x, y = src[i].y, w = src[i].w, h = src[i].h;
            if (w < 0) {
                x = y = 0;
                w = img->width;
                h = img->height;
            }
            if (x + w > img->width || y + h > img->height) {
                st = gv_err(GROVE_ERR_DATA, "%s: box %d,%d,%d,%d is outside the %dx%d image",
                            src[i].image, x, y, w, h, img->width, img->height);
                break;
            }
            st = augment(img, x, y, w, h, o.width, o.height, aug, is_val[i] ? &va : &tr);
        }
        gv_image_free(img);
        gv_free(is_val);
    }
    for (size_t i = 0; i < n_neg_files && !st; i++) {
        gv_image *img = NULL;
        if ((st = gv_image_load(neg_files[i], &img))) break;
        if (list_add(&neg, img)) {
            gv_image_free(img);
            st = gv_err_nomem("negative images");
        }
    }
    if (!st)
        st = gv_cascade_train_sets((const gv_image *const *)tr.v, tr.n,
                                   (const gv_image *const *)va.v, va.n,
                                   (const gv_image *const *)neg.v, neg.n, &o, params, out);
    for (size_t i = 0; i < n_src; i++) gv_free(src[i].image);
    gv_free(src);
    free_names(neg_files, n_neg_files);
    gv_free(order);
    list_free(&tr);
    list_free(&va);
    list_free(&neg);
    grove_params_free(own);
    return st;
}
