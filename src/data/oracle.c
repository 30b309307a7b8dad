/*
 * oracle.c -- the example oracle of boosting by filtering and its image deformations
 * (formulas and invariants in oracle.h).
 *
 * Pipeline position: data/.  References: Schapire 1990 (the oracle EX); Drucker, Schapire &
 * Simard 1993 (deformed digits as the oracle that never runs dry); Simard, Steinkraus & Platt
 * 2003, sec. 2 (elastic distortions).
 */
#include "oracle.h"

#include <math.h>
#include <string.h>

#define PI 3.14159265358979323846

grove_status gv_deform_init(gv_deform *d, const grove_params *params, size_t n_features)
{
    memset(d, 0, sizeof *d);
    size_t w = (size_t)gv_param_int(params, GV_P_IMAGE_WIDTH);
    size_t h = (size_t)gv_param_int(params, GV_P_IMAGE_HEIGHT);
    if (w == 0 && h == 0) {
        w = h = (size_t)llround(sqrt((double)n_features));
        if (w * h != n_features)
            return gv_err(GROVE_ERR_PARAM,
                          "image.width, image.height: 0 and 0 mean square images, but %zu features "
                          "are not a square; set image.width and image.height",
                          n_features);
    } else if (w == 0 || h == 0) {
        size_t given = w ? w : h;
        if (n_features % given != 0)
            return gv_err(GROVE_ERR_PARAM, "%s: %zu does not divide the %zu features",
                          w ? "image.width" : "image.height", given, n_features);
        if (w == 0) w = n_features / given;
        else h = n_features / given;
    }
    if (w * h != n_features)
        return gv_err(GROVE_ERR_PARAM,
                      "image.width x image.height: %zu x %zu = %zu pixels, but the rows have %zu "
                      "features",
                      w, h, w * h, n_features);
    d->width = w;
    d->height = h;
    d->shift = gv_param_double(params, GV_P_DEFORM_SHIFT);
    d->rotation = gv_param_double(params, GV_P_DEFORM_ROTATION) * PI / 180.0;
    d->scale = gv_param_double(params, GV_P_DEFORM_SCALE);
    d->alpha = gv_param_double(params, GV_P_DEFORM_ELASTIC_ALPHA);
    d->sigma = gv_param_double(params, GV_P_DEFORM_ELASTIC_SIGMA);
    if (d->alpha > 0) {
        d->radius = (size_t)ceil(3 * d->sigma);
        size_t side = w > h ? w : h;
        if (d->radius > side) d->radius = side; /* beyond the image the field is zero anyway */
        d->kernel = gv_malloc_array(2 * d->radius + 1, sizeof *d->kernel);
        if (!d->kernel) return gv_err_nomem("the elastic distortion's kernel");
        double sum = 0;
        for (size_t k = 0; k <= 2 * d->radius; k++) {
            double t = ((double)k - (double)d->radius) / d->sigma;
            sum += d->kernel[k] = exp(-0.5 * t * t);
        }
        for (size_t k = 0; k <= 2 * d->radius; k++) d->kernel[k] /= sum;
    }
    return GROVE_OK;
}

void gv_deform_free(gv_deform *d)
{
    if (!d) return;
    gv_free(d->kernel);
    d->kernel = NULL;
}

static double uniform_pm(gv_rng *rng) { return 2 * gv_rng_uniform(rng) - 1; }

/* One axis of the separable Gaussian: out = kernel * in along x (dx = 1) or y (dx = width),
 * zero outside the image. */
static void smooth(const gv_deform *d, const double *in, double *out, int along_x)
{
    const size_t w = d->width, h = d->height, r = d->radius;
    for (size_t y = 0; y < h; y++)
        for (size_t x = 0; x < w; x++) {
            double s = 0;
            for (size_t k = 0; k <= 2 * r; k++) {
                /* neighbour at offset k - r along the axis */
                size_t pos = along_x ? x : y, lim = along_x ? w : h;
                if (pos + k < r || pos + k - r >= lim) continue;
                size_t q = pos + k - r;
                s += d->kernel[k] * (along_x ? in[y * w + q] : in[q * w + x]);
            }
            out[y * w + x] = s;
        }
}

/* The elastic field along one axis into field[w h] (tmp: w h scratch):
 * alpha * (G_sigma * U), U uniform in [-1, 1] per pixel. */
static void elastic_field(const gv_deform *d, gv_rng *rng, double *field, double *tmp)
{
    const size_t n = d->width * d->height;
    for (size_t i = 0; i < n; i++) field[i] = uniform_pm(rng);
    smooth(d, field, tmp, 1);
    smooth(d, tmp, field, 0);
    for (size_t i = 0; i < n; i++) field[i] *= d->alpha;
}

void gv_deform_warp(const gv_deform *d, const float *src, float *dst, double theta, double k,
                    double tx, double ty, const double *fx, const double *fy)
{
    const size_t w = d->width, h = d->height, n = w * h;
    float lo = src[0], hi = src[0];
    for (size_t i = 1; i < n; i++) {
        if (src[i] < lo) lo = src[i];
        if (src[i] > hi) hi = src[i];
    }
    const double c = cos(theta), s = sin(theta);
    const double cx = 0.5 * (double)(w - 1), cy = 0.5 * (double)(h - 1);
    for (size_t y = 0; y < h; y++)
        for (size_t x = 0; x < w; x++) {
            /* s(p) = c + R(-theta) (p - c - t) / k + field(p) */
            double u = ((double)x - cx - tx) / k, v = ((double)y - cy - ty) / k;
            double sx = cx + c * u + s * v, sy = cy - s * u + c * v;
            if (fx) {
                sx += fx[y * w + x];
                sy += fy[y * w + x];
            }
            /* bilinear: the four neighbours' weights sum to 1; outside reads the background lo */
            double fx0 = floor(sx), fy0 = floor(sy);
            double ax = sx - fx0, ay = sy - fy0;
            double val = 0;
            for (int j = 0; j < 2; j++)
                for (int i = 0; i < 2; i++) {
                    double px = fx0 + i, py = fy0 + j;
                    double wt = (i ? ax : 1 - ax) * (j ? ay : 1 - ay);
                    if (wt == 0) continue;
                    float pv = lo;
                    if (px >= 0 && py >= 0 && px < (double)w && py < (double)h)
                        pv = src[(size_t)py * w + (size_t)px];
                    val += wt * pv;
                }
            float out = (float)val;
            dst[y * w + x] = out < lo ? lo : out > hi ? hi : out;
        }
}

void gv_deform_image(const gv_deform *d, const float *src, float *dst, gv_rng *rng,
                     double *scratch)
{
    const size_t n = d->width * d->height;
    /* the draws, in a fixed order: angle, scale, tx, ty, then the two fields */
    double theta = d->rotation * uniform_pm(rng);
    double k = 1 + d->scale * uniform_pm(rng);
    double tx = d->shift * uniform_pm(rng), ty = d->shift * uniform_pm(rng);
    double *fx = NULL, *fy = NULL;
    if (d->alpha > 0) {
        fx = scratch;
        fy = scratch + n;
        elastic_field(d, rng, fx, scratch + 2 * n);
        elastic_field(d, rng, fy, scratch + 2 * n);
    }
    gv_deform_warp(d, src, dst, theta, k, tx, ty, fx, fy);
}

grove_status gv_oracle_init(gv_oracle *o, const grove_dataset *data, const double *y,
                            const double *weight, const grove_params *params, uint64_t seed)
{
    memset(o, 0, sizeof *o);
    const size_t n = data->n_rows, nf = data->schema->n_features;
    if (n == 0) return gv_err(GROVE_ERR_DATA, "example oracle: no training rows");
    o->data = data;
    o->y = y;
    o->seed = seed;
    o->kind = (int)gv_param_int(params, GV_P_FILTER_ORACLE);
    o->cum = gv_malloc_array(n, sizeof *o->cum);
    if (!o->cum) return gv_err_nomem("the example oracle");
    double acc = 0;
    for (size_t i = 0; i < n; i++) o->cum[i] = acc += weight ? weight[i] : 1.0;
    grove_status st = GROVE_OK;
    if (!(acc > 0)) {
        st = gv_err(GROVE_ERR_DATA, "example oracle: the sample weights sum to zero");
        goto fail;
    }
    if (o->kind != GV_ORACLE_DEFORM) return GROVE_OK;
    if ((st = gv_deform_init(&o->deform, params, nf)) != GROVE_OK) goto fail;
    for (size_t f = 0; f < nf; f++)
        if (data->schema->is_categorical[f]) {
            st = gv_err(GROVE_ERR_PARAM,
                        "filter.oracle: deform needs numeric pixels, but feature '%s' is "
                        "categorical",
                        data->schema->feature_names[f]);
            goto fail;
        }
    for (size_t f = 0; f < nf; f++)
        for (size_t i = 0; i < n; i++)
            if (!isfinite(gv_value(data, f, i))) {
                st = gv_err(GROVE_ERR_DATA,
                            "filter.oracle: deform needs complete images, but row %zu feature '%s' "
                            "is missing or not finite",
                            i + 1, data->schema->feature_names[f]);
                goto fail;
            }
    o->row = gv_malloc_array(nf, sizeof *o->row);
    o->scratch = gv_malloc_array(nf, 3 * sizeof *o->scratch);
    if (!o->row || !o->scratch) {
        st = gv_err_nomem("the example oracle");
        goto fail;
    }
    return GROVE_OK;
fail:
    gv_oracle_free(o);
    return st;
}

void gv_oracle_free(gv_oracle *o)
{
    if (!o) return;
    gv_free(o->cum);
    gv_free(o->row);
    gv_free(o->scratch);
    gv_deform_free(&o->deform);
    memset(o, 0, sizeof *o);
}

size_t gv_oracle_row(const gv_oracle *o, gv_rng *rng)
{
    size_t n = o->data->n_rows;
    double u = gv_rng_uniform(rng) * o->cum[n - 1];
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (o->cum[mid] > u) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

void gv_oracle_draw(gv_oracle *o, float *x, double *y, size_t *row)
{
    gv_rng rng;
    gv_rng_seed(&rng, o->seed, GV_STREAM_ORACLE, o->n_draws++);
    size_t r = gv_oracle_row(o, &rng);
    const size_t nf = o->data->schema->n_features;
    for (size_t f = 0; f < nf; f++) o->row[f] = gv_value(o->data, f, r);
    gv_deform_image(&o->deform, o->row, x, &rng, o->scratch);
    *y = o->y[r];
    if (row) *row = r;
}
