/*
 * text.c -- numbers as text, independent of the locale.
 *
 * grove never calls setlocale(), but a host program may have (a comma as the decimal point
 * would make "0.1" unreadable and write "0,1" into model files), so the parsers run strtod in
 * the "C" numeric locale, switched for the calling thread only (POSIX uselocale).  Doubles are written by gv_format_double (dtoa.c), which needs no locale.
 */
#include "core.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static locale_t c_numeric;
static pthread_once_t c_numeric_once = PTHREAD_ONCE_INIT;

static void c_numeric_init(void) { c_numeric = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0); }

/* Switches the calling thread to the "C" numeric locale; returns what to restore (0 when the
 * switch could not be made: then the global locale applies, as before). */
static locale_t c_numeric_begin(void)
{
    pthread_once(&c_numeric_once, c_numeric_init);
    return c_numeric ? uselocale(c_numeric) : (locale_t)0;
}

static void c_numeric_end(locale_t old)
{
    if (old) uselocale(old);
}

int gv_parse_double(const char *s, size_t len, double *out)
{
    char tmp[128];
    if (len == 0 || len >= sizeof tmp) return -1;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    if (tmp[0] == ' ' || tmp[0] == '\t') return -1;
    char *end;
    locale_t old = c_numeric_begin();
    errno = 0;
    double v = strtod(tmp, &end);
    int err = errno;
    c_numeric_end(old);
    errno = err;
    if (end != tmp + len) return -1;
    /* strtod accepts hex floats and "infinity"; ERANGE on underflow is fine (denormal/0). */
    if (errno == ERANGE && isinf(v)) return -1;
    *out = v;
    return 0;
}

int gv_parse_int64(const char *s, size_t len, int64_t *out)
{
    char tmp[32];
    if (len == 0 || len >= sizeof tmp) return -1;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    if (tmp[0] == ' ' || tmp[0] == '\t') return -1;
    char *end;
    errno = 0;
    long long v = strtoll(tmp, &end, 10);
    if (end != tmp + len || errno == ERANGE) return -1;
    *out = (int64_t)v;
    return 0;
}

/* ---- "did you mean" ---- */

/* Optimal string alignment distance (Levenshtein with adjacent transpositions) between a[0..n)
 * and b[0..m), or `cap` + 1 when it exceeds cap (names are short: rows of at most 64). */
static size_t osa_distance(const char *a, size_t n, const char *b, size_t m, size_t cap)
{
    enum { MAXLEN = 64 };
    if (n > MAXLEN || m > MAXLEN) return cap + 1;
    size_t d[MAXLEN + 1][MAXLEN + 1];
    for (size_t i = 0; i <= n; i++) d[i][0] = i;
    for (size_t j = 0; j <= m; j++) d[0][j] = j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t v = d[i - 1][j - 1] + cost;
            if (d[i - 1][j] + 1 < v) v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[n][m] > cap ? cap + 1 : d[n][m];
}

const char *gv_suggest(const char *word, size_t len, const char *const *candidates, size_t n)
{
    /* at most one edit in 3 characters (at least 1, at most 3): a typo, not another word */
    size_t cap = len / 3 < 1 ? 1 : len / 3 > 3 ? 3 : len / 3;
    const char *best = NULL;
    size_t best_d = cap + 1;
    for (size_t i = 0; i < n; i++) {
        if (!candidates[i]) continue;
        size_t d = osa_distance(word, len, candidates[i], strlen(candidates[i]), cap);
        if (d < best_d && d > 0) {
            best = candidates[i];
            best_d = d;
        }
    }
    return best;
}

const char *grove_suggest(const char *word, const char *const *candidates, size_t n)
{
    if (!word || (!candidates && n)) return NULL;
    return gv_suggest(word, strlen(word), candidates, n);
}
