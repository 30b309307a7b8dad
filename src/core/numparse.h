/*
 * numparse.h -- decimal numbers and missing-value tokens, independent of the locale (numparse.c).
 *
 * Pipeline position: core/ (the loaders in data/ and the model reader's packed arrays use them).
 */
#ifndef GV_NUMPARSE_H
#define GV_NUMPARSE_H

#include <stddef.h>

enum { GV_NUM_OK = 0, GV_NUM_BAD = -1, GV_NUM_RANGE = -2, GV_NUM_NOMEM = -3 };
/* Parses exactly s[0..len) as a decimal number: [+-] digits [. digits] [(e|E) [+-] digits]
 * (digits on at least one side of the point; no blanks, no hex, no "inf"/"nan").  The result is
 * bit-identical to strtod().  GV_NUM_RANGE when the magnitude overflows a double; GV_NUM_NOMEM
 * when a literal of 128 or more characters needs a copy and memory is out. */
int gv_parse_decimal(const char *s, size_t len, double *out);
/* The fast path alone, for tokenizers: when a decimal literal starts at s (within [s, e)) and
 * Clinger's fast path applies to it, sets *out (the same double gv_parse_decimal gives for that
 * literal; the extended path of gv_parse_decimal counts too) and returns the literal's end; else NULL (the caller falls back to finding the
 * field's end and calling gv_parse_decimal). */
const char *gv_scan_decimal(const char *s, const char *e, double *out);
/* A JSON number (RFC 8259: -? (0 | [1-9] digits) [. digits] [(e|E) [+-] digits]) starting at s
 * and ending at e or at a space, of at most 19 significant digits and a value the fast or the
 * extended path gives: sets *out (gv_parse_decimal's double) and returns its end.  NULL
 * otherwise (not such a number, or one for strtod): the caller takes its general path. */
const char *gv_scan_json_number(const char *s, const char *e, double *out);
/* 1 when s[0..len) is a missing-value token: empty, NA, ?, NaN, and the infinities inf, +inf,
 * -inf, infinity, +infinity, -infinity (ASCII case-insensitive). */
int gv_is_missing_token(const char *s, size_t len);

#endif /* GV_NUMPARSE_H */
