/*
 * vexp.h -- e^x for doubles, one at a time (gv_exp) or four a vector (gv_exp4), with the same
 * doubles on every build: only IEEE +, -, *, / (round to nearest) and exact bit operations, no
 * libm, no fused multiply-add.  Error <= 1 ulp (tests/test_exp.c measures 0.78 at most).
 *
 * Pipeline position: core/.  gbdt's logistic gradients (loss/objective.c) use it: four rows a
 * vector in the fused pass, one at a time in the general one, so that both give the same p.
 * (Predictions keep libm's exp, loss.h's gv_loss_sigmoid: the exported C code calls exp.)
 *
 * The mathematics (written for grove from the textbook argument reduction):
 *   1. k = round(x / ln2) (adding and subtracting 1.5 * 2^52 rounds to the nearest integer),
 *      r = x - k ln2 with |r| <= ln2 / 2, computed as hi - lo where hi = x - k LN2_HI is exact
 *      (LN2_HI has 42 significant bits and |k| <= 1077 has 11; Sterbenz for the subtraction)
 *      and lo = k LN2_LO carries the rest of ln2.
 *   2. e^r from R(r^2) = r (e^r + 1) / (e^r - 1) = r coth(r / 2) = 2 + sum_{n >= 1}
 *      2 B_2n r^2n / (2n)!  (B: Bernoulli numbers), an even series: with c = r - (R - 2),
 *      e^r = 1 + 2 r / (2 - c) = 1 + r + r c / (2 - c).  The series to n = 6 (C1..C6 below,
 *      the exact coefficients rounded to double); the first term left out, 2.7e-11 r^14,
 *      is under 1e-17 for |r| <= ln2 / 2.  Evaluated as (1 + hi) + (r c / (2 - c) - lo) with
 *      1 + hi split exactly into s + s_err (Fast2Sum, |hi| < 1): the rounding errors of
 *      r = hi - lo and of the small part r c / (2 - c) - lo (|.| < 0.07) stay near 1/4 ulp
 *      of the result (at |r| = ln2 / 2), so the error is under 0.76 ulp with the last
 *      rounding's 0.5 (0.78 in the subnormal range, where the result is rounded twice).
 *   3. e^x = e^r 2^k, the factor 2^k as two powers of two built from exponent bits
 *      (2^k1 2^k2, k1 + k2 = k, both normal): e^r 2^k1 is exact, the second product rounds
 *      once, so results in the subnormal range and the overflow to +inf round correctly.
 * x is first clamped to [-746, 710] (e^-746 rounds to 0, e^710 overflows to +inf, so every
 * finite or infinite x gets its correctly rounded extreme); a NaN stays NaN.
 *
 * Determinism: contraction to FMA would change the doubles, so it must be off: GCC's default
 * for -std=c11 (the project's CMAKE_C_EXTENSIONS OFF) is -ffp-contract=off, and clang is told
 * by the pragma below.  The AVX2 and baseline builds of gv_exp4 and gv_exp do the same
 * operations in the same order (tests/test_exp.c checks them bit for bit).
 */
#ifndef GV_VEXP_H
#define GV_VEXP_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

typedef double gv_exp_v4d __attribute__((vector_size(32), may_alias, aligned(8)));
typedef unsigned long long gv_exp_v4u __attribute__((vector_size(32), may_alias, aligned(8)));
typedef long long gv_exp_v4l __attribute__((vector_size(32), may_alias, aligned(8)));

#define GV_EXP_LO (-746.0)
#define GV_EXP_HI 710.0
#define GV_EXP_SHIFT 0x1.8p52                /* 1.5 * 2^52: x + SHIFT - SHIFT rounds x */
#define GV_EXP_INV_LN2 0x1.71547652b82fep+0  /* 1 / ln2 */
#define GV_EXP_LN2_HI 0x1.62e42fefa3800p-1   /* ln2 rounded to a multiple of 2^-42 */
#define GV_EXP_LN2_LO 0x1.ef35793c76730p-45  /* ln2 - LN2_HI */
#define GV_EXP_C1 0x1.5555555555555p-3       /* 2 B_2 / 2!  =  1 / 6 */
#define GV_EXP_C2 -0x1.6c16c16c16c17p-9      /* 2 B_4 / 4!  = -1 / 360 */
#define GV_EXP_C3 0x1.1566abc011567p-14      /* 2 B_6 / 6!  =  1 / 15120 */
#define GV_EXP_C4 -0x1.bbd779334ef0bp-20     /* 2 B_8 / 8!  = -1 / 604800 */
#define GV_EXP_C5 0x1.66a8f2bf70ebep-25      /* 2 B_10 / 10! = 1 / 23950080 */
#define GV_EXP_C6 -0x1.22805d644267fp-30     /* 2 B_12 / 12! = -691 / 653837184000 */

static inline uint64_t gv_exp_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}
static inline double gv_exp_double(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* e^x, <= 1 ulp from the exact value; e^-inf = 0, e^+inf = +inf, NaN -> NaN. */
static inline double gv_exp(double x)
{
    double xc = x < GV_EXP_LO ? GV_EXP_LO : x; /* (a NaN passes both) */
    xc = xc > GV_EXP_HI ? GV_EXP_HI : xc;
    const double t = xc * GV_EXP_INV_LN2 + GV_EXP_SHIFT;
    const double kd = t - GV_EXP_SHIFT;
    const uint64_t k = gv_exp_bits(t) - gv_exp_bits(GV_EXP_SHIFT); /* (mod 2^64) */
    const double hi = xc - kd * GV_EXP_LN2_HI, lo = kd * GV_EXP_LN2_LO;
    const double r = hi - lo, z = r * r;
    const double q =
        z * (GV_EXP_C1 +
             z * (GV_EXP_C2 + z * (GV_EXP_C3 + z * (GV_EXP_C4 + z * (GV_EXP_C5 + z * GV_EXP_C6)))));
    const double c = r - q;
    const double s = 1.0 + hi, s_err = hi - (s - 1.0); /* s + s_err = 1 + hi exactly */
    const double y = s + (s_err + ((r * c) / (2.0 - c) - lo));
    /* k1 = floor(k / 2) (k + 2048 >= 0 shifts logically), k2 = k - k1 */
    const uint64_t k1 = ((k + 2048) >> 1) - 1024, k2 = k - k1;
    return (y * gv_exp_double((k1 + 1023) << 52)) * gv_exp_double((k2 + 1023) << 52);
}

/* y[j] = gv_exp(x[j]) for j < 4; full 0: for |x[j]| <= GV_EXP_MID only (no clamping, 2^k in
 * one factor: for such x the same doubles, since there e^r 2^k is exact and normal), and the
 * lanes outside that range (NaN too) are or-ed into *wide. */
#define GV_EXP_MID 708.0
static inline __attribute__((always_inline)) void gv_exp4_body(const double *xp, double *yp,
                                                               const int full, gv_exp_v4l *wide)
{
#define GV_EXP_V(c) ((gv_exp_v4d){c, c, c, c})
#define GV_EXP_U(c) ((gv_exp_v4u){c, c, c, c})
    const gv_exp_v4d x = *(const gv_exp_v4d *)xp;
    gv_exp_v4d xc = x;
    if (full) {
        const gv_exp_v4u below = (gv_exp_v4u)(x < GV_EXP_V(GV_EXP_LO));
        xc = (gv_exp_v4d)((below & (gv_exp_v4u)GV_EXP_V(GV_EXP_LO)) | (~below & (gv_exp_v4u)x));
        const gv_exp_v4u above = (gv_exp_v4u)(xc > GV_EXP_V(GV_EXP_HI));
        xc = (gv_exp_v4d)((above & (gv_exp_v4u)GV_EXP_V(GV_EXP_HI)) | (~above & (gv_exp_v4u)xc));
    } else {
        const gv_exp_v4d ax = (gv_exp_v4d)((gv_exp_v4u)x & GV_EXP_U(0x7fffffffffffffffull));
        *wide |= ~(ax <= GV_EXP_V(GV_EXP_MID));
    }
    const gv_exp_v4d t = xc * GV_EXP_V(GV_EXP_INV_LN2) + GV_EXP_V(GV_EXP_SHIFT);
    const gv_exp_v4d kd = t - GV_EXP_V(GV_EXP_SHIFT);
    const gv_exp_v4u k = (gv_exp_v4u)t - (gv_exp_v4u)GV_EXP_V(GV_EXP_SHIFT);
    const gv_exp_v4d hi = xc - kd * GV_EXP_V(GV_EXP_LN2_HI), lo = kd * GV_EXP_V(GV_EXP_LN2_LO);
    const gv_exp_v4d r = hi - lo, z = r * r;
    const gv_exp_v4d q =
        z * (GV_EXP_V(GV_EXP_C1) +
             z * (GV_EXP_V(GV_EXP_C2) +
                  z * (GV_EXP_V(GV_EXP_C3) +
                       z * (GV_EXP_V(GV_EXP_C4) +
                            z * (GV_EXP_V(GV_EXP_C5) + z * GV_EXP_V(GV_EXP_C6))))));
    const gv_exp_v4d c = r - q;
    const gv_exp_v4d s = GV_EXP_V(1.0) + hi, s_err = hi - (s - GV_EXP_V(1.0));
    const gv_exp_v4d y = s + (s_err + ((r * c) / (GV_EXP_V(2.0) - c) - lo));
    if (full) {
        const gv_exp_v4u k1 = ((k + GV_EXP_U(2048)) >> 1) - GV_EXP_U(1024), k2 = k - k1;
        *(gv_exp_v4d *)yp = (y * (gv_exp_v4d)((k1 + GV_EXP_U(1023)) << 52)) *
                            (gv_exp_v4d)((k2 + GV_EXP_U(1023)) << 52);
    } else {
        *(gv_exp_v4d *)yp = y * (gv_exp_v4d)((k + GV_EXP_U(1023)) << 52);
    }
#undef GV_EXP_U
#undef GV_EXP_V
}

/* y[j] = gv_exp(x[j]) for j < 4 (the same operations, so the same doubles); y may be x. */
static inline __attribute__((always_inline)) void gv_exp4(const double *x, double *y)
{
    gv_exp4_body(x, y, 1, NULL);
}

/* gv_exp4 where every |x[j]| <= GV_EXP_MID (708: e^x normal), faster; where one is not (or is
 * NaN), y[j] is garbage and *wide gets a lane of ones: redo the four with gv_exp4. */
static inline __attribute__((always_inline)) void gv_exp4_mid(const double *x, double *y,
                                                              gv_exp_v4l *wide)
{
    gv_exp4_body(x, y, 0, wide);
}

#endif
