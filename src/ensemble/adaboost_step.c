/*
 * adaboost_step.c -- the discrete AdaBoost round as two small functions, so that every user of
 * it (the generic AdaBoost of boost.c, the Viola-Jones stage trainer of vision/train.c) computes
 * alpha and the weight update by the same formulas (Freund & Schapire 1997):
 *   alpha_t = nu/2 ln((1 - eps_t)/eps_t),
 *   D_{t+1}(i) = D_t(i) exp(-alpha_t y_i h_t(x_i)) / Z_t,  Z_t = sum_i D_t(i) exp(-alpha_t y_i h_t(x_i)).
 * Pipeline position: ensemble/.
 */
#include "ensemble.h"

#include <math.h>

double gv_adaboost_alpha(double eps, double nu) { return nu * 0.5 * log((1 - eps) / eps); }

double gv_adaboost_reweight(double *D, const uint8_t *correct, size_t n, double alpha)
{
    const double down = exp(-alpha), up = exp(alpha);
    double z = 0;
    for (size_t i = 0; i < n; i++) z += D[i] *= correct[i] ? down : up;
    if (z > 0)
        for (size_t i = 0; i < n; i++) D[i] /= z;
    return z;
}
