/*
 * alloc.c -- the one allocation path, a failing-allocator hook for tests, overflow-checked
 * sizes, and a growable byte buffer.
 *
 * The hook: gv_alloc_fail_after(n) counts allocations down from n; the n-th and all later ones
 * return NULL until it is reset with 0.  The counter is process-wide and atomic, so tests that
 * use it run single-threaded code paths or accept any failing thread.
 */
#define _DEFAULT_SOURCE /* madvise(), beside the POSIX level CMake sets */
#include "core.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

static atomic_long fail_countdown; /* 0 = off; else allocations left before failing, plus 1 */
static _Thread_local unsigned long n_failed; /* allocations that returned NULL in this thread */

unsigned long gv_alloc_failures(void) { return n_failed; }

grove_status gv_nomem_if_failed(grove_status st, unsigned long before, const char *what)
{
    if (st == GROVE_OK || st == GROVE_ERR_NOMEM || n_failed == before) return st;
    return gv_err(GROVE_ERR_NOMEM, "%s: out of memory", what);
}

static void *counted(void *p)
{
    if (!p) n_failed++;
    return p;
}

void gv_alloc_fail_after(long n) { atomic_store(&fail_countdown, n > 0 ? n : 0); }

static int should_fail(void)
{
    long c = atomic_load(&fail_countdown);
    if (c == 0) return 0;
    if (c == 1) return 1; /* stays failing until reset */
    atomic_fetch_sub(&fail_countdown, 1);
    return 0;
}

void *gv_malloc(size_t size)
{
    if (should_fail()) return counted(NULL);
    return counted(malloc(size ? size : 1));
}

void *gv_malloc_huge(size_t size)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const size_t page = (size_t)2 << 20;
    if (size >= 2 * page) {
        if (should_fail()) return counted(NULL);
        void *p = NULL;
        if (posix_memalign(&p, page, size) != 0) return counted(NULL);
        (void)madvise(p, size / page * page, MADV_HUGEPAGE); /* advice: failure is harmless */
        return p;
    }
#endif
    return gv_malloc(size);
}

void *gv_malloc_huge_array(size_t count, size_t size)
{
    size_t n;
    if (gv_mul_size(count, size, &n) != 0) return counted(NULL);
    return gv_malloc_huge(n);
}

void *gv_calloc(size_t count, size_t size)
{
    if (should_fail()) return counted(NULL);
    if (count == 0 || size == 0) return counted(calloc(1, 1));
    return counted(calloc(count, size));
}

void *gv_realloc(void *p, size_t size)
{
    if (should_fail()) return counted(NULL);
    return counted(realloc(p, size ? size : 1));
}

int gv_mul_size(size_t a, size_t b, size_t *out)
{
    if (b != 0 && a > SIZE_MAX / b) return -1;
    *out = a * b;
    return 0;
}

void *gv_malloc_array(size_t count, size_t size)
{
    size_t n;
    if (gv_mul_size(count, size, &n) != 0) return counted(NULL);
    return gv_malloc(n);
}

void *gv_realloc_array(void *p, size_t count, size_t size)
{
    size_t n;
    if (gv_mul_size(count, size, &n) != 0) return counted(NULL);
    return gv_realloc(p, n);
}

void gv_free(void *p) { free(p); }

char *gv_strndup(const char *s, size_t n)
{
    char *d = gv_malloc(n + 1);
    if (!d) return NULL;
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *gv_strdup(const char *s) { return gv_strndup(s, strlen(s)); }

void grove_string_free(char *s) { gv_free(s); }

int gv_buf_reserve(gv_buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) {
        if (cap > SIZE_MAX / 2) return -1;
        cap *= 2;
    }
    char *d = gv_realloc(b->data, cap);
    if (!d) return -1;
    b->data = d;
    b->cap = cap;
    return 0;
}

int gv_buf_append(gv_buf *b, const void *p, size_t n)
{
    if (gv_buf_reserve(b, n) != 0) return -1;
    memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

/* Formats into the buffer's spare room (at least 256 bytes made free first): one vsnprintf when
 * the text fits, as it does for the short lines of exported C, dumps and logs; else a second
 * one once the room for all of it is reserved. */
int gv_buf_vprintf(gv_buf *b, const char *fmt, va_list ap)
{
    if (gv_buf_reserve(b, 256) != 0) return -1;
    va_list ap2;
    va_copy(ap2, ap);
    size_t room = b->cap - b->len;
    int n = vsnprintf(b->data + b->len, room, fmt, ap);
    if (n >= 0 && (size_t)n >= room) {
        if (gv_buf_reserve(b, (size_t)n) != 0)
            n = -1;
        else
            vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
    }
    va_end(ap2);
    if (n < 0) {
        b->data[b->len] = '\0';
        return -1;
    }
    b->len += (size_t)n;
    return 0;
}

int gv_buf_printf(gv_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = gv_buf_vprintf(b, fmt, ap);
    va_end(ap);
    return r;
}

void gv_buf_free(gv_buf *b)
{
    gv_free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}
