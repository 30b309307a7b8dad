/*
 * numparse.c -- decimal numbers and missing-value tokens for the loaders.
 *
 * Pipeline position: core/, under the loaders (data/csv.c, libsvm.c, labels.c) and the packed
 * arrays of model files (core/json.c).
 *
 * Numbers are the bulk of every data file, so gv_parse_decimal() has a fast path (Clinger 1990,
 * "How to read floating point numbers accurately", the "fast path" of section 3): when the
 * significant digits form an integer m <= 2^53 and the decimal exponent e has |e| <= 22, both m
 * and 10^|e| are exact doubles, so the single IEEE multiplication m * 10^e (or division
 * m / 10^-e) is correctly rounded -- the same double strtod() returns.  Everything else (more
 * than 19 significant digits, large exponents, m > 2^53) goes to strtod() on a NUL-terminated
 * copy -- but on x86 m of up to 19 digits with |e| <= 27 (the 17 digits of a model file's
 * reals) first takes the extended path (ext_value: the x87 format's 64-bit significand, its
 * rare ambiguous cases left to strtod).  The grammar is checked here first, so strtod never
 * sees hex floats, "inf" or "nan", and the host's locale cannot change what a number is (the slow path hands strtod the
 * locale's radix character in place of '.').
 * Invariant: the result is bit-identical to strtod() for every accepted string (tested against
 * random strings in tests/test_data.c).  Requires FLT_EVAL_METHOD 0 (SSE2 and every 64-bit
 * target grove builds on), checked below.
 */
#include "numparse.h"
#include "core.h"

#include <errno.h>
#include <float.h>
#include <langinfo.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0
#error "gv_parse_decimal's fast path needs FLT_EVAL_METHOD == 0 (no excess precision)"
#endif

/* 10^0 .. 10^22: every one is exactly representable as a double. */
static const double exact_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* The slow path: strtod on a NUL-terminated copy (the grammar is already checked).  strtod
 * reads the locale's radix character, which a host program may have made "," (grove never calls
 * setlocale): the copy has that radix in place of the literal's '.' (as jansson does). */
static int parse_slow(const char *s, size_t len, double *out)
{
    const char *radix = nl_langinfo(RADIXCHAR); /* thread-safe, unlike localeconv() */
    if (!radix || !*radix || !strcmp(radix, ".")) radix = NULL; /* the "C" locale's */
    size_t radix_len = radix ? strlen(radix) : 1;
    char small[128];
    char *tmp = small;
    size_t cap = len + radix_len; /* one '.' at most becomes radix_len bytes, plus the NUL */
    if (cap > sizeof small) {
        tmp = gv_malloc(cap);
        if (!tmp) return GV_NUM_NOMEM; /* only literals of ~128+ characters get here */
    }
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '.' && radix) {
            memcpy(tmp + n, radix, radix_len);
            n += radix_len;
        } else {
            tmp[n++] = s[i];
        }
    }
    tmp[n] = '\0';
    char *end;
    errno = 0;
    double v = strtod(tmp, &end);
    int ok = end == tmp + n;
    int range = errno == ERANGE && isinf(v); /* underflow to 0 or a subnormal is fine */
    if (tmp != small) gv_free(tmp);
    if (!ok) return GV_NUM_BAD;
    if (range) return GV_NUM_RANGE;
    *out = v;
    return GV_NUM_OK;
}

/* A decimal literal as read: value = (-1)^negative * mantissa * 10^exp10, exactly, unless
 * `long_mantissa` (more than 19 significant digits: the mantissa holds only the first 19). */
typedef struct decimal {
    uint64_t mantissa;
    long exp10;
    int negative, long_mantissa;
} decimal;

/* Reads the longest prefix of [p, e) that is a decimal literal (grammar in dataset.h) and
 * returns its end, or NULL when there is none (no digit before an optional exponent).  An 'e'
 * not followed by exponent digits is not part of the literal. */
static inline const char *read_decimal(const char *p, const char *e, decimal *d)
{
    d->negative = 0;
    if (p < e && (*p == '+' || *p == '-')) d->negative = *p++ == '-';
    uint64_t mantissa = 0;
    int n_significant = 0, n_digits = 0, long_mantissa = 0;
    long exp10 = 0;
    for (; p < e && (unsigned)(*p - '0') < 10; p++, n_digits++) {
        unsigned digit = (unsigned)(*p - '0');
        if (mantissa == 0 && digit == 0) continue; /* leading zeros */
        if (n_significant < 19) {
            mantissa = mantissa * 10 + digit;
            n_significant++;
        } else {
            long_mantissa = 1;
        }
    }
    if (p < e && *p == '.') {
        for (p++; p < e && (unsigned)(*p - '0') < 10; p++, n_digits++) {
            unsigned digit = (unsigned)(*p - '0');
            if (mantissa == 0 && digit == 0) {
                exp10--;
                continue;
            }
            if (n_significant < 19) {
                mantissa = mantissa * 10 + digit;
                n_significant++;
                exp10--;
            } else {
                long_mantissa = 1;
            }
        }
    }
    if (n_digits == 0) return NULL;
    if (p < e && (*p == 'e' || *p == 'E')) {
        const char *q = p + 1;
        int exp_negative = 0;
        if (q < e && (*q == '+' || *q == '-')) exp_negative = *q++ == '-';
        if (q < e && (unsigned)(*q - '0') < 10) {
            long x = 0;
            for (; q < e && (unsigned)(*q - '0') < 10; q++)
                if (x < 100000) x = x * 10 + (*q - '0'); /* saturates; strtod decides then */
            exp10 += exp_negative ? -x : x;
            p = q;
        }
    }
    d->mantissa = mantissa;
    d->exp10 = exp10;
    d->long_mantissa = long_mantissa;
    return p;
}

/* Clinger's fast path: 1 and *out set when it applies, else 0. */
static inline int fast_value(const decimal *d, double *out)
{
    if (d->long_mantissa) return 0;
    if (d->mantissa == 0) {
        *out = d->negative ? -0.0 : 0.0;
        return 1;
    }
    if (d->mantissa > (UINT64_C(1) << 53) || d->exp10 < -22 || d->exp10 > 22) return 0;
    double v = (double)d->mantissa;
    v = d->exp10 < 0 ? v / exact_pow10[-d->exp10] : v * exact_pow10[d->exp10];
    *out = d->negative ? -v : v;
    return 1;
}

#if (defined(__x86_64__) || defined(__i386__)) && LDBL_MANT_DIG == 64
#define GV_EXT_PATH 1
/* 10^0 .. 10^27: exact in the x87 format (5^27 < 2^63). */
static const long double exact_pow10l[28] = {
    1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
    1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
    1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};

/* The extended path, for what Clinger's misses by a little: m up to 19 digits (m > 2^53: the
 * 17 significant digits of every real a model file holds) and |e| <= 27.  m and 10^|e| are
 * exact in the 64-bit significand of the x87 format, so m * 10^e (or m / 10^-e) there is
 * within half an extended ulp of the true value; rounding that to double gives the true value's
 * double unless the extended result lies within one extended ulp of a double's rounding
 * boundary (its low 11 significand bits 0x3FF..0x401), which is left to strtod.  1 and *out
 * set when it applies. */
static inline int ext_value(const decimal *d, double *out)
{
    if (d->long_mantissa || d->exp10 < -27 || d->exp10 > 27) return 0;
    long double v = (long double)d->mantissa;
    v = d->exp10 < 0 ? v / exact_pow10l[-d->exp10] : v * exact_pow10l[d->exp10];
    uint64_t sig;
    memcpy(&sig, &v, sizeof sig); /* the x87 format's first 8 bytes: the significand */
    if ((sig & 0x7FF) - 0x3FF <= 2) return 0;
    double x = (double)v;
    *out = d->negative ? -x : x;
    return 1;
}
#endif

int gv_parse_decimal(const char *s, size_t len, double *out)
{
    decimal d;
    if (read_decimal(s, s + len, &d) != s + len) return GV_NUM_BAD;
    if (fast_value(&d, out)) return GV_NUM_OK;
#ifdef GV_EXT_PATH
    if (ext_value(&d, out)) return GV_NUM_OK;
#endif
    return parse_slow(s, len, out);
}

/* Clinger's fast path, or the extended one. */
static inline int quick_value(const decimal *d, double *out)
{
#ifdef GV_EXT_PATH
    return fast_value(d, out) || ext_value(d, out);
#else
    return fast_value(d, out);
#endif
}

const char *gv_scan_decimal(const char *s, const char *e, double *out)
{
    decimal d;
    const char *end = read_decimal(s, e, &d);
    return end && quick_value(&d, out) ? end : NULL;
}

/* Whether the 8 bytes at p are all ASCII digits; then their value in *v (p[0] the highest
 * digit).  Little-endian word tricks (as in simdjson / fast_float). */
static inline int eight_digits(const char *p, uint64_t *v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t x;
    memcpy(&x, p, 8);
    if ((((x & 0xF0F0F0F0F0F0F0F0ull) | (((x + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) !=
         0x3333333333333333ull))
        return 0;
    x -= 0x3030303030303030ull;
    x = x * 10 + (x >> 8); /* pairs of digits in every other byte */
    x = (((x & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
         (((x >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >> 32;
    *v = x;
    return 1;
#else
    (void)p, (void)v;
    return 0;
#endif
}

const char *gv_scan_json_number(const char *s, const char *e, double *out)
{
    const char *p = s;
    decimal d = {0, 0, 0, 0};
    if (p < e && *p == '-') {
        d.negative = 1;
        p++;
    }
    if (p == e) return NULL;
    uint64_t m = 0;
    int n_significant = 0;
    long exp10 = 0;
    if (*p == '0') {
        p++;
    } else if ((unsigned)(*p - '1') < 9) {
        uint64_t v8;
        if (e - p >= 8 && eight_digits(p, &v8)) { /* the first eight digits at once */
            m = v8;
            n_significant = 8;
            p += 8;
        }
        for (; p < e && (unsigned)(*p - '0') < 10; p++) {
            if (n_significant == 19) return NULL;
            m = m * 10 + (unsigned)(*p - '0');
            n_significant++;
        }
    } else {
        return NULL;
    }
    if (p < e && *p == '.') {
        if (++p == e || (unsigned)(*p - '0') >= 10) return NULL;
        uint64_t v8;
        /* eight digits at once while they fit in 19 (leading zeros counted: only more numbers
         * go to the general path) */
        while (e - p >= 8 && n_significant <= 11 && eight_digits(p, &v8)) {
            m = m * 100000000u + v8;
            n_significant += 8;
            exp10 -= 8;
            p += 8;
        }
        for (; p < e && (unsigned)(*p - '0') < 10; p++) {
            unsigned digit = (unsigned)(*p - '0');
            exp10--;
            if (m == 0 && digit == 0) continue; /* leading zeros */
            if (n_significant == 19) return NULL;
            m = m * 10 + digit;
            n_significant++;
        }
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        int exp_negative = 0;
        if (++p < e && (*p == '+' || *p == '-')) exp_negative = *p++ == '-';
        if (p == e || (unsigned)(*p - '0') >= 10) return NULL;
        long x = 0;
        for (; p < e && (unsigned)(*p - '0') < 10; p++)
            if (x < 100000) x = x * 10 + (*p - '0');
        exp10 += exp_negative ? -x : x;
    }
    if (p < e && *p != ' ') return NULL;
    d.mantissa = m;
    d.exp10 = exp10;
    return quick_value(&d, out) ? p : NULL;
}

/* 1 when s[0..len) is `word` in ASCII, any case. */
static int same_word(const char *s, size_t len, const char *word)
{
    if (strlen(word) != len) return 0;
    for (size_t i = 0; i < len; i++)
        if ((s[i] | 0x20) != word[i]) return 0;
    return 1;
}

int gv_is_missing_token(const char *s, size_t len)
{
    switch (len) {
    case 0:
        return 1;
    case 1:
        return s[0] == '?';
    case 2:
        return (s[0] | 0x20) == 'n' && (s[1] | 0x20) == 'a';
    case 3:
        return same_word(s, len, "nan") || same_word(s, len, "inf");
    default:
        /* infinities are missing values too (docs/cli.md): a float feature cannot hold one
         * usefully (bins, linear models), and the CSV and LIBSVM readers, training and
         * prediction, all read them the same way */
        if (s[0] == '+' || s[0] == '-') {
            s++;
            len--;
        }
        return same_word(s, len, "inf") || same_word(s, len, "infinity");
    }
}
