/*
 * text.c -- numbers as text, independent of the locale.
 *
 * grove never calls setlocale(), so printf/strtod use the "C" locale of the library's callers
 * unless a host program changed it; model files and reports are written by gv_format_double,
 * which tries increasing precision until the text reads back to the same double (shortest
 * round-trip form, at most 17 significant digits).
 */
#include "core.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gv_format_double(double x, char *buf)
{
    if (isnan(x)) {
        strcpy(buf, "nan");
        return;
    }
    if (isinf(x)) {
        strcpy(buf, x > 0 ? "inf" : "-inf");
        return;
    }
    /* integers print as integers ("10", not "1e+01") while they are exact in a double */
    if (x == floor(x) && fabs(x) < 1e15) {
        snprintf(buf, 32, "%.0f", x);
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, 32, "%.*g", prec, x);
        if (strtod(buf, NULL) == x) return;
    }
}

int gv_parse_double(const char *s, size_t len, double *out)
{
    char tmp[128];
    if (len == 0 || len >= sizeof tmp) return -1;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    if (tmp[0] == ' ' || tmp[0] == '\t') return -1;
    char *end;
    errno = 0;
    double v = strtod(tmp, &end);
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
