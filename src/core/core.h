/*
 * core.h -- what every module of grove shares: the error record, the one allocation path,
 * overflow-checked sizes, the deterministic random stream and the parameter table.
 *
 * Pipeline position: the bottom; core includes nothing of grove but grove.h.
 * Invariants: the error record is per thread; gv_err() always returns the status it records,
 * so failure paths read `return gv_err(GROVE_ERR_PARSE, "%s:%zu:%zu: ...", ...)`.
 */
#ifndef GV_CORE_H
#define GV_CORE_H

#include "grove.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define GV_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define GV_PRINTF(a, b)
#endif

/* ---- errors (error.c) ---- */

/* Records a formatted message for `status` on this thread and returns `status`. */
grove_status gv_err(grove_status status, const char *fmt, ...) GV_PRINTF(2, 3);
/* Prefixes the current message with "<prefix>: " (adds context on the way out). */
void gv_err_prefix(const char *fmt, ...) GV_PRINTF(1, 2);
/* Clears the message (called at the start of every public entry point). */
void gv_err_clear(void);
/* Out of memory: records "out of memory" with what was being allocated. */
grove_status gv_err_nomem(const char *what);

/* ---- memory (alloc.c) ----
 * All allocations go through here.  gv_alloc_fail_after(n) makes the n-th following allocation
 * (n >= 1) and all later ones fail, for out-of-memory tests; n = 0 turns it off. */
void *gv_malloc(size_t size);
/* gv_malloc for big arrays read at random places (row-major bins, histograms): on Linux, from
 * 4 MiB up, aligned to 2 MiB and advised to be backed by huge pages (madvise MADV_HUGEPAGE: far
 * fewer TLB misses).  Freed with gv_free. */
void *gv_malloc_huge(size_t size);
void *gv_malloc_huge_array(size_t count, size_t size);
void *gv_calloc(size_t count, size_t size);
void *gv_realloc(void *p, size_t size);
/* gv_malloc(count * size) with the product overflow-checked; NULL on overflow. */
void *gv_malloc_array(size_t count, size_t size);
void *gv_realloc_array(void *p, size_t count, size_t size);
void gv_free(void *p);
char *gv_strdup(const char *s);
char *gv_strndup(const char *s, size_t n);
void gv_alloc_fail_after(long n);
/* How many allocations have failed in this thread (through gv_malloc and friends, and through
 * the libraries routed to them).  A reader whose libraries misreport a failed allocation as bad
 * input (jansson's lexer, libxml2's node accessors) compares it before and after. */
unsigned long gv_alloc_failures(void);
/* `st`, or GROVE_ERR_NOMEM with "<what>: out of memory" when `st` is another error and an
 * allocation failed in this thread since gv_alloc_failures() returned `before`. */
grove_status gv_nomem_if_failed(grove_status st, unsigned long before, const char *what);
/* The most classes a classification label may hold (docs/limits.md): a model's outputs, one per
 * class, are read back up to this many, so training refuses more. */
#define GV_MAX_CLASSES 65536
/* *out = a * b; returns 0 on success, -1 on overflow. */
int gv_mul_size(size_t a, size_t b, size_t *out);

/* The descriptor under an output's stream (grove_output_stream may be a stream of our own,
 * on which fileno() gives -1), for a second writer on the same file; -1 when none. */
int gv_output_fd(grove_output *o);

/* A growable byte buffer (for building strings and files). */
typedef struct gv_buf {
    char *data;
    size_t len, cap;
} gv_buf;
int gv_buf_reserve(gv_buf *b, size_t extra);                     /* 0 ok, -1 no memory */
int gv_buf_append(gv_buf *b, const void *p, size_t n);           /* keeps data NUL-terminated */
int gv_buf_printf(gv_buf *b, const char *fmt, ...) GV_PRINTF(2, 3);
/* gv_buf_printf with a va_list (consumed). */
int gv_buf_vprintf(gv_buf *b, const char *fmt, va_list ap);
void gv_buf_free(gv_buf *b);

/* ---- deterministic random numbers (rng.c) ----
 * xoshiro256** seeded through splitmix64.  A stream is identified by (seed, component, index):
 * e.g. (user seed, "tree" stream id, tree number), so results never depend on thread timing. */
typedef struct gv_rng {
    uint64_t s[4];
} gv_rng;
void gv_rng_seed(gv_rng *rng, uint64_t seed, uint64_t component, uint64_t index);
uint64_t gv_rng_next(gv_rng *rng);
double gv_rng_uniform(gv_rng *rng);             /* in [0, 1), 53 random bits */
uint64_t gv_rng_below(gv_rng *rng, uint64_t n); /* uniform in [0, n), unbiased; n > 0 */
/* Fisher-Yates shuffle of an index array. */
void gv_rng_shuffle(gv_rng *rng, size_t *a, size_t n);

/* ---- text (text.c) ----
 * Locale-independent number formatting and parsing. */
/* "Did you mean": the candidate closest to word[0..len) by edit distance (insertions,
 * deletions, substitutions, adjacent transpositions), within one edit per three characters (1
 * to 3), or NULL; ties go to the first.  An exact match is not a suggestion.  Borrowed from
 * candidates (NULL entries skipped).  grove_suggest is the public face. */
const char *gv_suggest(const char *word, size_t len, const char *const *candidates, size_t n);
/* ---- dtoa.c: shortest round-trip text of a double (Schubfach) ----
 * The shortest text that strtod() reads back to exactly `x` ("0.1", "1e-300", "150", "nan",
 * "inf"), NUL-terminated, at most 24 characters; buf must hold at least 25 bytes (callers use
 * 32).  _len returns the length. */
void gv_format_double(double x, char *buf);
size_t gv_format_double_len(double x, char *buf);
/* %.17g of x as glibc's printf writes it, with '.' as the radix, for finite 1e-5 <= |x| < 1e16
 * (the model file's reals; exact 128-bit arithmetic); 0 outside that range (use printf).  buf
 * holds at least 32 bytes; returns the length (not NUL-terminated). */
size_t gv_format_17g(double x, char *buf);
/* The three floor-of-log formulas dtoa.c relies on (which = 0: floor(x log10 2), 1:
 * floor(log10(3/4 2^x)), 2: floor(x log2 10)), for their test. */
int gv_dtoa_flog(int which, int x);
/* Parses a whole string as a finite or infinite double (C syntax, no trailing garbage, no
 * leading/trailing blanks); 0 ok, -1 not a number. */
int gv_parse_double(const char *s, size_t len, double *out);
/* Parses a whole string as a signed 64-bit integer; 0 ok, -1 not an integer or out of range. */
int gv_parse_int64(const char *s, size_t len, int64_t *out);

/* ---- threads ---- */
/* The number of threads to use for `requested` (0 = all cores); 1 without OpenMP. */
int gv_threads(int requested);

#endif /* GV_CORE_H */
