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
