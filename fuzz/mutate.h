/*
 * mutate.h -- a libFuzzer custom mutator for model files and parameter lines: besides
 * libFuzzer's own mutations (LLVMFuzzerMutate, five times in eight), it makes the two kinds of
 * input that byte mutations and a dictionary seldom reach:
 *   - finite extremes: one number of a text input (a JSON value, a "key=value" value) replaced
 *     by 1e308, -1e308, 1.7976931348623157e308, 5e-324, ... (a leaf value, an alpha, a weight,
 *     a threshold), or every number of one key's value wherever the key occurs (every tree's
 *     "values", every "alpha": the sums that overflow need many at once), or, in a binary model
 *     (.gvb), 8 bytes of the payload overwritten by one of these doubles;
 *   - deep and long parameter keys: "base." repeated n times (n from 2 to 20,000: past the
 *     nesting bound of 8, and deep enough to overflow a stack that recurses per level) inserted
 *     before a key (after a '"' or at the start of a line), or a run of 200 letters.
 * The model targets recompute the checksums after mutation (checksum.h), so these reach the
 * loader's checks and what follows them.  Define FUZZ_CUSTOM_MUTATOR before including it.
 */
#ifndef GROVE_FUZZ_MUTATE_H
#define GROVE_FUZZ_MUTATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

static const char *const fz_extreme_text[] = {
    "1e308", "-1e308", "1.7976931348623157e308", "-1.7976931348623157e308", "5e-324",
    "-5e-324", "2.2250738585072014e-308", "1e300", "-1e300", "9007199254740993"};
static const double fz_extreme_value[] = {1e308, -1e308, 1.7976931348623157e308,
                                          -1.7976931348623157e308, 5e-324, 2.2250738585072014e-308,
                                          1e300, -1e300};
static const size_t fz_depths[] = {2, 8, 9, 60, 61, 200, 1000, 20000};

static inline uint32_t fz_next(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static inline int fz_num_start(const uint8_t *d, size_t size, size_t i)
{
    int digit = d[i] >= '0' && d[i] <= '9';
    int minus = d[i] == '-' && i + 1 < size && d[i + 1] >= '0' && d[i + 1] <= '9';
    if (!digit && !minus) return 0;
    if (i == 0) return 1;
    uint8_t p = d[i - 1];
    return p == ' ' || p == ':' || p == '[' || p == ',' || p == '=' || p == '\n' || p == '"';
}

/* Replaces `len` bytes at `at` by `rep` (rlen bytes); the new size, or 0 when it does not fit. */
static inline size_t fz_splice(uint8_t *d, size_t size, size_t max, size_t at, size_t len,
                               const void *rep, size_t rlen)
{
    if (size - len + rlen > max) return 0;
    memmove(d + at + rlen, d + at + len, size - at - len);
    memcpy(d + at, rep, rlen);
    return size - len + rlen;
}

/* One number of a text input replaced by an extreme; 0 when there is none. */
static inline size_t fz_extreme_number(uint8_t *d, size_t size, size_t max, uint32_t *s)
{
    size_t n = 0;
    for (size_t i = 0; i < size; i++) n += fz_num_start(d, size, i);
    if (n == 0) return 0;
    size_t pick = fz_next(s) % n;
    for (size_t i = 0; i < size; i++)
        if (fz_num_start(d, size, i) && pick-- == 0) {
            size_t e = i + 1;
            while (e < size && ((d[e] >= '0' && d[e] <= '9') || d[e] == '.' || d[e] == 'e' ||
                                d[e] == 'E' || d[e] == '+' || d[e] == '-'))
                e++;
            const char *x = fz_extreme_text[fz_next(s) % (sizeof fz_extreme_text / sizeof *fz_extreme_text)];
            return fz_splice(d, size, max, i, e - i, x, strlen(x));
        }
    return 0;
}

/* Every number of the value of one key, wherever the key occurs (a JSON key: every tree's
 * "values", every "alpha", every "base"), replaced by the same extreme: the sums over trees and
 * members that overflow need many extreme numbers at once.  0 when nothing was replaced. */
static inline size_t fz_extreme_field(uint8_t *d, size_t size, size_t max, uint32_t *s)
{
    size_t n = 0;
    for (size_t i = 0; i + 1 < size; i++) n += d[i] == '"' && d[i + 1] == ':';
    if (n == 0) return 0;
    size_t pick = fz_next(s) % n, kend = 0;
    for (size_t i = 0; i + 1 < size; i++)
        if (d[i] == '"' && d[i + 1] == ':' && pick-- == 0) kend = i;
    size_t kbeg = kend;
    while (kbeg > 0 && d[kbeg - 1] != '"') kbeg--;
    if (kbeg == 0) return 0;
    kbeg--; /* the key with its quotes: d[kbeg .. kend] */
    const size_t klen = kend + 1 - kbeg;
    const char *x = fz_extreme_text[fz_next(s) % (sizeof fz_extreme_text / sizeof *fz_extreme_text)];
    const size_t xlen = strlen(x);
    uint8_t *out = malloc(max);
    if (!out) return 0;
    uint8_t key[128];
    if (klen > sizeof key) {
        free(out);
        return 0;
    }
    memcpy(key, d + kbeg, klen);
    size_t o = 0, i = 0, replaced = 0;
    while (i < size) {
        if (i + klen < size && memcmp(d + i, key, klen) == 0 && d[i + klen] == ':') {
            /* the value: a string, an array (to its first ']') or one number */
            size_t v = i + klen + 1;
            while (v < size && d[v] == ' ') v++;
            size_t end = v;
            if (v < size && d[v] == '"') {
                end = v + 1;
                while (end < size && d[end] != '"') end++;
            } else if (v < size && d[v] == '[') {
                while (end < size && d[end] != ']') end++;
            } else {
                while (end < size && d[end] != ',' && d[end] != '}' && d[end] != '\n') end++;
            }
            for (size_t j = i; j < end;) {
                if (j >= v && fz_num_start(d, size, j)) {
                    size_t e = j + 1;
                    while (e < size && ((d[e] >= '0' && d[e] <= '9') || d[e] == '.' || d[e] == 'e' ||
                                        d[e] == 'E' || d[e] == '+' || d[e] == '-'))
                        e++;
                    if (o + xlen > max) goto full;
                    memcpy(out + o, x, xlen);
                    o += xlen;
                    j = e;
                    replaced++;
                } else {
                    if (o + 1 > max) goto full;
                    out[o++] = d[j++];
                }
            }
            i = end;
            continue;
        }
        if (o + 1 > max) goto full;
        out[o++] = d[i++];
    }
    if (replaced) memcpy(d, out, o);
    free(out);
    return replaced ? o : 0;
full:
    free(out);
    return 0;
}

/* "base." x n, or 200 letters, inserted where a key starts; 0 when nothing fits. */
static inline size_t fz_deep_key(uint8_t *d, size_t size, size_t max, uint32_t *s)
{
    size_t n = 0;
    for (size_t i = 0; i < size; i++)
        n += (d[i] == '"' || (d[i] == '\n' && i + 1 < size)) && i + 1 < size && d[i + 1] >= 'a' &&
             d[i + 1] <= 'z';
    size_t at = 0; /* the start of the input when no key was seen */
    if (n) {
        size_t pick = fz_next(s) % n;
        for (size_t i = 0; i < size; i++)
            if ((d[i] == '"' || d[i] == '\n') && i + 1 < size && d[i + 1] >= 'a' &&
                d[i + 1] <= 'z' && pick-- == 0) {
                at = i + 1;
                break;
            }
    }
    size_t levels = fz_depths[fz_next(s) % (sizeof fz_depths / sizeof *fz_depths)];
    int letters = fz_next(s) % 5 == 0;
    size_t add = letters ? 200 : 5 * levels;
    while (add && size + add > max) add = letters ? 0 : (levels /= 2, 5 * levels);
    if (!add) return 0;
    memmove(d + at + add, d + at, size - at);
    for (size_t k = 0; k < add; k++) d[at + k] = letters ? (uint8_t)('a' + k % 26) : (uint8_t)"base."[k % 5];
    return size + add;
}

#ifdef FUZZ_CUSTOM_MUTATOR
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    uint32_t s = seed * 2654435761u + 1u;
    size_t r = 0;
    switch (fz_next(&s) % 8) {
    case 0:
        if (size > 48 && memcmp(data, "GROVEBIN", 8) == 0) { /* a double into the payload */
            size_t at = 24 + fz_next(&s) % (size - 48);
            double v = fz_extreme_value[fz_next(&s) % (sizeof fz_extreme_value / sizeof *fz_extreme_value)];
            memcpy(data + at, &v, sizeof v);
            return size;
        }
        r = fz_extreme_number(data, size, max_size, &s);
        break;
    case 1:
        r = fz_deep_key(data, size, max_size, &s);
        break;
    case 2:
        r = fz_extreme_field(data, size, max_size, &s);
        break;
    }
    return r ? r : LLVMFuzzerMutate(data, size, max_size);
}
#endif

#endif
