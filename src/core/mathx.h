/*
 * mathx.h -- the small numeric helpers several layers share: argmax, the logistic sigmoid, a
 * scaled softmax, and the weighted median (mathx.c).
 *
 * Pipeline position: core/.  Each is written once here so that, e.g., every ensemble breaks an
 * argmax tie the same way (the first largest) and a prediction's probabilities come out of the
 * same formula wherever they are computed.
 */
#ifndef GV_MATHX_H
#define GV_MATHX_H

#include <float.h>
#include <math.h>
#include <stddef.h>

/* The index of the largest of v[0..k) (k >= 1); ties go to the first. */
/* x within [-DBL_MAX, DBL_MAX]: an overflowed regression value (+-inf) as the largest double. */
static inline double gv_clamp_finite(double x)
{
    return x > DBL_MAX ? DBL_MAX : x < -DBL_MAX ? -DBL_MAX : x;
}

static inline size_t gv_argmax(const double *v, size_t k)
{
    size_t best = 0;
    for (size_t c = 1; c < k; c++)
        if (v[c] > v[best]) best = c;
    return best;
}

/* sigma(t) = 1 / (1 + e^-t), stably (sigma(+inf) = 1, sigma(-inf) = 0, sigma(NaN) = 1/2): e^t / (1 + e^t) for
 * t < 0, so no exp overflows. */
static inline double gv_sigmoid(double t)
{
    if (t != t) return 0.5; /* a NaN score (inf - inf) says nothing either way */
    if (t >= 0) return 1 / (1 + exp(-t));
    double e = exp(t);
    return e / (1 + e);
}

/* out = softmax(scale * s) over k classes: exp(scale s_c - max) / sum, so no exp overflows.
 * Safe for every input, so that no model, however extreme its weights, predicts NaN: scores
 * that are (or scale to) +inf share the whole probability equally; a NaN score counts as -inf;
 * when no score is above -inf the classes are equally likely.  out may be s (in place). */
static inline void gv_softmax_scaled(const double *s, size_t k, double scale, double *out)
{
    double mx = -INFINITY;
    for (size_t c = 0; c < k; c++) {
        double t = scale * s[c];
        out[c] = t == t ? t : -INFINITY;
        if (out[c] > mx) mx = out[c];
    }
    if (mx == INFINITY || mx == -INFINITY) {
        size_t n_top = 0;
        for (size_t c = 0; c < k; c++) n_top += out[c] == mx;
        for (size_t c = 0; c < k; c++) out[c] = out[c] == mx ? 1.0 / (double)n_top : 0.0;
        return;
    }
    double z = 0;
    for (size_t c = 0; c < k; c++) z += out[c] = exp(out[c] - mx);
    for (size_t c = 0; c < k; c++) out[c] /= z;
}

/* A value and its weight. */
typedef struct gv_wv {
    double v, w;
} gv_wv;
/* Weighted median (Drucker 1997): sorts a[0..n) by value (n >= 1) and returns the smallest
 * value y_(j) whose cumulative weight reaches half the total. */
double gv_weighted_median(gv_wv *a, size_t n);
/* The weighted (lower) q-quantile, q in [0, 1]: sorts a[0..n) by value (n >= 1) and returns the
 * smallest value y_(j) whose cumulative weight reaches q times the total (the weights summed
 * in sorted order).  q = 1/2 is gv_weighted_median. */
double gv_weighted_quantile(gv_wv *a, size_t n, double q);

#endif /* GV_MATHX_H */
