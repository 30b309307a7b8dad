/*
 * check.h -- the test harness: checks that print the expression and both values, stay on under
 * NDEBUG, count failures, and make main() return non-zero if any check failed.
 *
 *   CHECK(cond)              CHECK_EQ_INT(a, b)    CHECK_EQ_DBL(a, b)   CHECK_NEAR(a, b, tol)
 *   CHECK_STR(a, b)          CHECK_CONTAINS(haystack, needle)           CHECK_OK(status_expr)
 *   TEST_MAIN_END()  -- at the end of main: prints a summary, returns the exit status.
 */
#ifndef GROVE_TEST_CHECK_H
#define GROVE_TEST_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grove.h"

static int check_failures_;
static int check_count_;

#define CHECK_FAIL_(...)                                                                           \
    do {                                                                                           \
        check_failures_++;                                                                         \
        fprintf(stderr, "%s:%d: check failed: ", __FILE__, __LINE__);                             \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
    } while (0)

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        check_count_++;                                                                            \
        if (!(cond)) CHECK_FAIL_("%s", #cond);                                                     \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                         \
    do {                                                                                           \
        long long a_ = (long long)(a), b_ = (long long)(b);                                        \
        check_count_++;                                                                            \
        if (a_ != b_) CHECK_FAIL_("%s == %s (%lld vs %lld)", #a, #b, a_, b_);                      \
    } while (0)

#define CHECK_EQ_DBL(a, b)                                                                         \
    do {                                                                                           \
        double a_ = (double)(a), b_ = (double)(b);                                                 \
        check_count_++;                                                                            \
        if (!(a_ == b_ || (isnan(a_) && isnan(b_))))                                               \
            CHECK_FAIL_("%s == %s (%.17g vs %.17g)", #a, #b, a_, b_);                              \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                                      \
    do {                                                                                           \
        double a_ = (double)(a), b_ = (double)(b), t_ = (double)(tol);                             \
        check_count_++;                                                                            \
        if (!(fabs(a_ - b_) <= t_))                                                                \
            CHECK_FAIL_("%s ~= %s (%.17g vs %.17g, tol %g)", #a, #b, a_, b_, t_);                  \
    } while (0)

#define CHECK_STR(a, b)                                                                            \
    do {                                                                                           \
        const char *a_ = (a), *b_ = (b);                                                           \
        check_count_++;                                                                            \
        if (!a_ || !b_ || strcmp(a_, b_) != 0)                                                     \
            CHECK_FAIL_("%s == %s (\"%s\" vs \"%s\")", #a, #b, a_ ? a_ : "(null)",                 \
                        b_ ? b_ : "(null)");                                                       \
    } while (0)

#define CHECK_CONTAINS(h, n)                                                                       \
    do {                                                                                           \
        const char *h_ = (h), *n_ = (n);                                                           \
        check_count_++;                                                                            \
        if (!h_ || !n_ || !strstr(h_, n_))                                                         \
            CHECK_FAIL_("%s contains %s (\"%s\" does not contain \"%s\")", #h, #n,                 \
                        h_ ? h_ : "(null)", n_ ? n_ : "(null)");                                   \
    } while (0)

#define CHECK_OK(expr)                                                                             \
    do {                                                                                           \
        grove_status s_ = (expr);                                                                  \
        check_count_++;                                                                            \
        if (s_ != GROVE_OK)                                                                        \
            CHECK_FAIL_("%s returned %d (%s): %s", #expr, (int)s_, grove_status_str(s_),           \
                        grove_last_error());                                                       \
    } while (0)

#define CHECK_STATUS(expr, want)                                                                   \
    do {                                                                                           \
        grove_status s_ = (expr);                                                                  \
        check_count_++;                                                                            \
        if (s_ != (want))                                                                          \
            CHECK_FAIL_("%s returned %d (%s), wanted %d: %s", #expr, (int)s_,                      \
                        grove_status_str(s_), (int)(want), grove_last_error());                    \
    } while (0)

#define TEST_MAIN_END()                                                                            \
    do {                                                                                           \
        fprintf(stderr, "%s: %d checks, %d failed\n", __FILE__, check_count_, check_failures_);   \
        return check_failures_ ? 1 : 0;                                                            \
    } while (0)

/* A path under the source tree (tests run with the source root as working directory). */
static inline const char *test_src_path(const char *rel, char *buf, size_t size)
{
    const char *root = getenv("GROVE_SRC");
    snprintf(buf, size, "%s/%s", root ? root : ".", rel);
    return buf;
}

#endif
