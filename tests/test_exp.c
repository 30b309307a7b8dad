/*
 * test_exp.c -- core/vexp.h's gv_exp and gv_exp4 against the truth they promise: at most 1 ulp
 * from e^x, the correctly rounded extremes (0, the smallest subnormal, DBL_MAX, +inf), and the
 * same bits from the one-at-a-time form, the baseline vector build and the AVX2 vector build
 * (gv_exp4, and gv_exp4_mid where it applies, its out-of-range flags too).
 *
 * Reference: the C library's long double expl (x87 extended, 64-bit significand, itself within
 * about 1 ulp of 2^-63): the error is |gv_exp(x) - expl(x)| in units of the double ulp of
 * expl(x)'s binade (2^-1074 below DBL_MIN), known to about 2^-10 ulp -- finer than comparing
 * with the correctly rounded double, whose own error can be up to 0.5 ulp.  Where long double
 * is no wider than double the error part is skipped (the bit-for-bit part still runs).
 * Values: GV_EXP_TEST_N (default 12M) spread as 6/12 uniform over [-745.13, 709.78] (the whole
 * finite, non-zero range), 5/12 uniform over [-40, 40] (where gbdt's scores live), 1/12
 * log-uniform tiny |x| in [2^-60, 1]; then the special values.  A hash of all the results,
 * checked against the one every build gave, catches a build whose doubles differ.  Last, the
 * logistic gradients of loss/objective.c by its fused pass and by its general one, bit for bit.
 */
#include "check.h"
#include "core/core.h"
#include "core/vexp.h"
#include "loss/loss.h"

#include <float.h>
#include <stdint.h>

/* the values: the library's generator (core.h), one fixed stream */
static gv_rng rng;
static uint64_t next_u64(void) { return gv_rng_next(&rng); }
static double uniform(double a, double b) { return a + (b - a) * gv_rng_uniform(&rng); }

/* the vector forms in the baseline build and (x86, where the CPU has it) the AVX2 build;
 * mid: gv_exp4_mid, *wide its flags */
static __attribute__((noinline)) void exp4_base(const double *x, double *y, double *ym, long long *wide)
{
    gv_exp4(x, y);
    gv_exp_v4l w = {0, 0, 0, 0};
    gv_exp4_mid(x, ym, &w);
    for (int j = 0; j < 4; j++) wide[j] = w[j];
}
#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_AVX2_BUILD 1
static __attribute__((noinline, target("avx2"))) void exp4_avx2(const double *x, double *y,
                                                                double *ym, long long *wide)
{
    gv_exp4(x, y);
    gv_exp_v4l w = {0, 0, 0, 0};
    gv_exp4_mid(x, ym, &w);
    for (int j = 0; j < 4; j++) wide[j] = w[j];
}
#endif
static int use_avx2;

static double max_ulp, max_ulp_x, max_ulp_normal; /* (normal: results >= DBL_MIN) */
static long n_checked, n_mismatch;
static uint64_t hash = 14695981039346656037u; /* FNV-1a of every result: compare builds */

/* error of y = e^x in ulps of the reference's binade */
static long double ulp_error(double x, double y)
{
    const long double ref = expl((long double)x);
    if (isinf(y)) /* an overflow: correct from DBL_MAX + ulp / 2 on; below it, as if to 2^1024 */
        return ref >= ldexpl(1.0L, 1024) - ldexpl(1.0L, 970)
                   ? 0.0L
                   : (ldexpl(1.0L, 1024) - ref) / ldexpl(1.0L, 971);
    int e;
    (void)frexpl(ref, &e); /* ref = m 2^e, m in [0.5, 1) */
    const long double ulp = ref < (long double)DBL_MIN ? ldexpl(1.0L, -1074) : ldexpl(1.0L, e - 53);
    return fabsl((long double)y - ref) / ulp;
}

/* checks four values: the five forms bit for bit (the mid ones where |x| <= GV_EXP_MID, and
 * their flags), and the error */
static void check4(const double *x)
{
    double ys[4], yb[4], ya[4], ybm[4], yam[4];
    long long wb[4], wa[4];
    for (int j = 0; j < 4; j++) ys[j] = gv_exp(x[j]);
    exp4_base(x, yb, ybm, wb);
    if (use_avx2) {
#ifdef HAVE_AVX2_BUILD
        exp4_avx2(x, ya, yam, wa);
#endif
    } else {
        memcpy(ya, yb, sizeof ya);
        memcpy(yam, ybm, sizeof yam);
        memcpy(wa, wb, sizeof wa);
    }
    for (int j = 0; j < 4; j++) {
        n_checked++;
        uint64_t u;
        memcpy(&u, &ys[j], 8);
        hash = (hash ^ u) * 1099511628211u;
        const int mid = fabs(x[j]) <= GV_EXP_MID;
        if (memcmp(&ys[j], &yb[j], 8) || memcmp(&ys[j], &ya[j], 8) || wb[j] != (mid ? 0 : -1) ||
            wa[j] != wb[j] || (mid && (memcmp(&ys[j], &ybm[j], 8) || memcmp(&ys[j], &yam[j], 8)))) {
            if (n_mismatch++ < 10)
                fprintf(stderr, "x = %a: scalar %a, vector %a, avx2 %a, mid %a %a (%lld %lld)\n",
                        x[j], ys[j], yb[j], ya[j], ybm[j], yam[j], wb[j], wa[j]);
        }
        if (LDBL_MANT_DIG >= 64) {
            const double err = (double)ulp_error(x[j], ys[j]);
            if (ys[j] >= DBL_MIN && !(err <= max_ulp_normal)) {
                max_ulp_normal = err;
                if (getenv("GV_EXP_TEST_V")) fprintf(stderr, "normal max %.4f at %.17g\n", err, x[j]);
            }
            if (!(err <= max_ulp)) {
                max_ulp = err;
                max_ulp_x = x[j];
            }
        }
    }
}

/* e^x of a special value: exactly want, in all three forms */
static void check_special(double x, double want)
{
    const double xs[4] = {x, x, x, x};
    double y[4], ym[4];
    long long w[4];
    exp4_base(xs, y, ym, w);
    CHECK_EQ_DBL(gv_exp(x), want);
    CHECK_EQ_DBL(y[0], want);
    CHECK(signbit(gv_exp(x)) == 0 || isnan(want));
#ifdef HAVE_AVX2_BUILD
    if (use_avx2) {
        exp4_avx2(xs, y, ym, w);
        CHECK_EQ_DBL(y[0], want);
    }
#endif
}

/* gbdt's logistic gradients: the fused pass (gh: logistic_rows, gv_exp4_mid / gv_exp4 four
 * rows a vector) and the general one (grad, hess: gv_exp a row) give the same doubles, the
 * owed score update included, also with scores past +-708 in some chunks (the redo by
 * gv_exp4), +-inf, NaN and rows past the last multiple of 4. */
static void check_logistic_paths(void)
{
    enum { N = 1031, L = 7 };
    double *F1 = malloc(N * sizeof *F1), *F2 = malloc(N * sizeof *F2), *y = malloc(N * sizeof *y);
    double *w = malloc(N * sizeof *w);
    float *gh = malloc(2 * N * sizeof *gh); /* (the pairs as floats, as the tree engine takes them) */
    double *g = malloc(N * sizeof *g), *h = malloc(N * sizeof *h);
    uint32_t *leaf = malloc(N * sizeof *leaf);
    const double val[L] = {0.25, -0.5, 3.0, -710.0, 1e-3, 0.0, -2.0};
    CHECK(F1 && F2 && y && w && gh && g && h && leaf);
    if (!(F1 && F2 && y && w && gh && g && h && leaf)) goto done;
    for (int pass = 0; pass < 4; pass++) { /* leaf or not, weights or not */
        for (size_t i = 0; i < N; i++) {
            double f = uniform(-30.0, 30.0);
            if (i >= 512 && i < 768 && i % 17 == 0) f = (i & 1 ? 1.0 : -1.0) * uniform(700.0, 1e308);
            if (i == 600) f = INFINITY;
            if (i == 601) f = -INFINITY;
            if (i == 1030) f = NAN;
            if (i == 1029) f = -800.0;
            F1[i] = F2[i] = f;
            y[i] = (double)(next_u64() & 1);
            w[i] = uniform(0.5, 2.0);
            leaf[i] = (uint32_t)(next_u64() % L);
        }
        const double *wp = pass & 1 ? w : NULL;
        const uint32_t *lp = pass & 2 ? leaf : NULL;
        const gv_loss_params lpar = {.huber_delta = 1.0};
        gv_loss_gradients_upd(GV_OBJ_LOGISTIC, y, wp, F1, N, 1, &lpar, 1, NULL, NULL, lp, lp ? val : NULL, gh);
        gv_loss_gradients_upd(GV_OBJ_LOGISTIC, y, wp, F2, N, 1, &lpar, 1, g, h, lp, lp ? val : NULL, NULL);
        size_t diff = 0;
        for (size_t i = 0; i < N; i++) {
            const double gi = gh[2 * i], hi = gh[2 * i + 1]; /* (grad, hess: the same floats) */
            diff += memcmp(&F1[i], &F2[i], 8) != 0 || memcmp(&gi, &g[i], 8) != 0 ||
                    memcmp(&hi, &h[i], 8) != 0;
        }
        CHECK_EQ_INT(diff, 0);
    }
done:
    free(F1), free(F2), free(y), free(w), free(gh), free(g), free(h), free(leaf);
}

int main(void)
{
    gv_rng_seed(&rng, 1, 0, 0);
#ifdef HAVE_AVX2_BUILD
    __builtin_cpu_init();
    use_avx2 = __builtin_cpu_supports("avx2");
#endif
    const char *env = getenv("GV_EXP_TEST_N");
    const long n = env ? atol(env) : 12000000L;
    double x[4];
    for (long i = 0; i < n; i += 4) {
        for (int j = 0; j < 4; j++) {
            const long part = (i + j) % 12;
            if (part < 6)
                x[j] = uniform(-745.13, 709.78);
            else if (part < 11)
                x[j] = uniform(-40.0, 40.0);
            else
                x[j] = (next_u64() & 1 ? -1.0 : 1.0) * exp2(uniform(-60.0, 0.0));
        }
        check4(x);
    }
    /* the neighbours of the ends of the range, and of points where k changes */
    for (int s = 0; s < 2000; s++) {
        const double base[] = {709.782712893384, -708.3964185322641, -745.1332191019411, 708.0, -708.0,
                               0.34657359027997264, -0.34657359027997264, 1.0397207708399179,
                               -1.0397207708399179, 0.0};
        for (size_t b = 0; b < sizeof base / sizeof base[0]; b++) {
            x[0] = base[b];
            x[1] = nextafter(base[b], s * 1.0);
            x[2] = base[b] + (s - 1000) * 1e-13;
            x[3] = base[b] + (s - 1000) * 0x1p-52;
            check4(x);
        }
    }
    printf("gv_exp: %ld values, max error %.4f ulp (at x = %.17g; %.4f ulp where e^x >= DBL_MIN), "
           "%ld scalar/vector/avx2%s mismatches; results' hash %016llx\n",
           n_checked, max_ulp, max_ulp_x, max_ulp_normal, n_mismatch,
           use_avx2 ? "" : " (no AVX2 here)", (unsigned long long)hash);
    fflush(stdout);
    if (LDBL_MANT_DIG >= 64) CHECK(max_ulp <= 1.0);
    /* the same doubles as the GCC and clang builds of x86-64 and every other IEEE build gave
     * (a build that contracts to FMA, e.g. -std=gnu11 -ffp-contract=fast with -mfma, does not) */
    if (!env) CHECK(hash == 0x18a7343f4c35204du);
    CHECK_EQ_INT(n_mismatch, 0);

    check_special(0.0, 1.0);
    check_special(-0.0, 1.0);
    check_special(DBL_MIN, 1.0);
    check_special(-DBL_MIN, 1.0);
    check_special(0x1p-1074, 1.0);
    check_special(709.782712893384, 0x1.fffffffffff2ap+1023); /* the largest finite result */
    check_special(nextafter(709.782712893384, 1e3), INFINITY);  /* the next double overflows */
    check_special(710.0, INFINITY);
    check_special(1e300, INFINITY);
    check_special(DBL_MAX, INFINITY);
    check_special(INFINITY, INFINITY);
    check_special(-745.1332191019411, 0x1p-1074); /* the smallest subnormal */
    check_special(nextafter(-745.1332191019411, -1e3), 0.0); /* e^x < 2^-1075: 0 */
    check_special(-746.0, 0.0);
    check_special(-1e300, 0.0);
    check_special(-DBL_MAX, 0.0);
    check_special(-INFINITY, 0.0);
    check_special(NAN, NAN);
    check_special(-NAN, NAN);
    /* what the logistic gradient needs of e = e^-F at the ends: p = 1 / (1 + e) is 0 and 1 */
    CHECK_EQ_DBL(1.0 / (1.0 + gv_exp(-(-1e308))), 0.0);
    CHECK_EQ_DBL(1.0 / (1.0 + gv_exp(-1e308)), 1.0);
    /* exact powers of two: e^(k ln2) rounds to 2^k within the error bound */
    for (int k = -1000; k <= 1000; k += 37) {
        const double y = gv_exp(k * 0.6931471805599453);
        CHECK(fabs(y / ldexp(1.0, k) - 1.0) < 1e-13);
    }
    check_logistic_paths();
    TEST_MAIN_END();
}
