/*
 * test_dtoa.c -- core/dtoa.c against the truth it promises: strtod reads every text back to
 * the same bits, and no shorter text exists.  The reference for "shortest" is the C library:
 * the smallest p for which printf's correctly rounded "%.{p}g" reads back (a brute force over
 * p = 1..17); where that p equals our digit count, the whole text must equal printf's.
 * Cases: zeros, subnormals (the first 20000 exhaustively), DBL_MIN/DBL_MAX, every power of 2
 * and of 10, the neighbours of every power of 2 (where the rounding interval is lopsided),
 * integers, and 10^6 random bit patterns (a sample of them against the brute force).
 * The floor-of-log formulas are checked over their whole range against long double logs.
 */
#include "check.h"
#include "core/core.h"

#include <float.h>
#include <stdint.h>

static uint64_t bits_of(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static double from_bits(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static int n_digits(const char *s) /* significant digits of a finite formatted value */
{
    int n = 0, started = 0, trailing = 0;
    for (; *s && *s != 'e'; s++) {
        if (*s < '0' || *s > '9') continue;
        if (*s != '0') started = 1;
        if (!started) continue;
        n++;
        trailing = *s == '0' ? trailing + 1 : 0;
    }
    return n ? n - trailing : 1; /* "0" has one digit; an integer's trailing zeros are not digits */
}

static long n_shorter, n_checked;

/* x round-trips; with brute: no %.{p}g shorter than ours reads back, and equal length gives
 * printf's text. */
static int check_one(double x, int brute)
{
    char buf[GROVE_DOUBLE_TEXT], ref[64];
    size_t len = grove_format_double(x, buf);
    if (len != strlen(buf) || len > 24) {
        CHECK_FAIL_("%a: length %zu, text '%s'", x, len, buf);
        return 0;
    }
    double back = strtod(buf, NULL);
    if (bits_of(back) != bits_of(x)) {
        CHECK_FAIL_("%a: '%s' reads back as %a", x, buf, back);
        return 0;
    }
    if (!brute) return 1;
    n_checked++;
    double a = fabs(x);
    if (a < 1e15 && a == floor(a)) {
        snprintf(ref, sizeof ref, "%.0f", x);
        if (strcmp(ref, buf) != 0) {
            CHECK_FAIL_("%a: integer '%s', printf '%s'", x, buf, ref);
            return 0;
        }
        return 1;
    }
    int p = 1;
    for (; p <= 17; p++) {
        snprintf(ref, sizeof ref, "%.*g", p, x);
        if (strtod(ref, NULL) == x) break;
    }
    int n = n_digits(buf);
    if (n > p) {
        CHECK_FAIL_("%a: '%s' has %d digits, printf's '%s' %d", x, buf, n, ref, p);
        return 0;
    }
    if (n < p) {
        n_shorter++; /* printf's correctly rounded p-digit value left the lopsided interval */
        return 1;
    }
    if (strcmp(ref, buf) != 0) {
        CHECK_FAIL_("%a: '%s', printf '%s'", x, buf, ref);
        return 0;
    }
    return 1;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;
static uint64_t next_u64(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

int main(void)
{
    /* the floor-of-log formulas over the exponents dtoa.c meets (and beyond) */
    for (int q = -1100; q <= 1100; q++) {
        long double a = (long double)q * log10l(2.0L), b = log10l(3.0L) + (long double)(q - 2) * log10l(2.0L);
        CHECK_EQ_INT(gv_dtoa_flog(0, q), (long long)floorl(a));
        CHECK_EQ_INT(gv_dtoa_flog(1, q), (long long)floorl(b));
    }
    for (int e = -340; e <= 340; e++)
        CHECK_EQ_INT(gv_dtoa_flog(2, e), (long long)floorl((long double)e * log2l(10.0L)));

    /* fixed texts */
    struct {
        double x;
        const char *text;
    } fixed[] = {
        {0.0, "0"}, {-0.0, "-0"}, {1.0, "1"}, {-1.0, "-1"}, {0.1, "0.1"}, {0.3, "0.3"},
        {1.0 / 3, "0.3333333333333333"}, {2.0 / 3, "0.6666666666666666"}, {1e-300, "1e-300"},
        {5e-324, "5e-324"}, {-5e-324, "-5e-324"}, {1e-323, "1e-323"}, {DBL_MIN, "2.2250738585072014e-308"},
        {DBL_MAX, "1.7976931348623157e+308"}, {1e15, "1e+15"}, {1e16, "1e+16"},
        {123456789012345.0, "123456789012345"}, {1234567890123456.0, "1234567890123456"},
        {123456789012345680.0, "1.2345678901234568e+17"}, {0.0001, "0.0001"}, {0.00001, "1e-05"},
        {1.5, "1.5"}, {-2.5e-7, "-2.5e-07"}, {1e100, "1e+100"}, {9007199254740993.0, "9007199254740992"},
        {0.1 + 0.2, "0.30000000000000004"}, {150.0, "150"}, {1e23, "1e+23"}, {NAN, "nan"},
        {INFINITY, "inf"}, {-INFINITY, "-inf"},
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        char buf[GROVE_DOUBLE_TEXT];
        size_t len = grove_format_double(fixed[i].x, buf);
        CHECK_STR(buf, fixed[i].text);
        CHECK_EQ_INT(len, strlen(fixed[i].text));
    }

    /* subnormals: the first 20000, and the largest ones */
    for (uint64_t u = 1; u <= 20000; u++) check_one(from_bits(u), u % 7 == 0);
    for (uint64_t u = (1ULL << 52) - 2000; u < (1ULL << 52) + 2000; u++) check_one(from_bits(u), 1);
    /* every power of 2 and its neighbours (the lopsided intervals), both signs */
    for (int e = -1074; e <= 1023; e++) {
        double x = ldexp(1.0, e);
        for (int d = -2; d <= 2; d++) {
            double y = from_bits(bits_of(x) + (uint64_t)(int64_t)d);
            if (!isfinite(y) || y <= 0) continue;
            check_one(y, 1);
            check_one(-y, 0);
        }
    }
    /* every power of 10 the type holds, and its neighbours */
    for (int e = -323; e <= 308; e++) {
        char t[16];
        snprintf(t, sizeof t, "1e%d", e);
        double x = strtod(t, NULL);
        check_one(x, 1);
        check_one(nextafter(x, 0), 1);
        check_one(nextafter(x, INFINITY), 1);
    }
    /* integers around the 10^15 switch and 2^53 */
    for (int64_t i = -1000; i <= 1000; i++) {
        check_one((double)i, 1);
        check_one(1e15 + (double)i, 1);
        check_one(9007199254740992.0 + 2.0 * (double)i, 1);
    }
    /* random bit patterns over every exponent, and random values in [0, 1) (a probability's
     * range); each 8th against the brute force */
    for (long i = 0; i < 1000000; i++) {
        uint64_t u = next_u64();
        double x = from_bits(u);
        if (isnan(x)) continue;
        check_one(x, i % 8 == 0);
        if (check_failures_ > 20) break;
    }
    for (long i = 0; i < 200000; i++) {
        double x = (double)(next_u64() >> 11) * 0x1p-53;
        check_one(x, i % 4 == 0);
        if (check_failures_ > 20) break;
    }
    /* integers 2^54 .. 2^80, where bounds can land exactly on a candidate (odd c) */
    for (long i = 0; i < 200000; i++) {
        double x = ldexp((double)((next_u64() >> 11) | (1ULL << 52)), 2 + (int)(next_u64() % 27));
        check_one(x, i % 4 == 0);
        if (check_failures_ > 20) break;
    }
    /* shorter than printf only in the rare lopsided cases */
    printf("brute-force compared: %ld, shorter than printf's: %ld\n", n_checked, n_shorter);
    CHECK(n_shorter * 1000 < n_checked);
    TEST_MAIN_END();
}
