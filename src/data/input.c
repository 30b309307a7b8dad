/*
 * input.c -- reading a data file into memory, and the small helpers every loader's error
 * messages use (line numbers, quoted excerpts of what was found).
 *
 * Pipeline position: data/, under csv.c and libsvm.c (and their one parallel row pass,
 * gv_parse_rows).
 * The loaders work on the whole file in one NUL-terminated buffer: it makes record splitting a
 * memchr() scan, lets rows be parsed in parallel, and lets an error's line number be computed
 * only when an error happens (by counting newlines before it) instead of tracked per row.
 * gzip files are recognised by their magic bytes (1f 8b), whatever their name, and inflated
 * through zlib's gzread().  A large regular file is read by several threads at once (pread()
 * of disjoint chunks): filling a fresh buffer costs page faults and a copy that would
 * otherwise be the largest serial part of loading a big CSV.
 *
 * A regular file of at least 64 MiB (gv_read_set_map_min) is mapped instead, read-only: the
 * loaders then hand back the pages of the text they are done with (gv_text_release, each pass
 * behind itself), so the text is never all resident at once -- a 2.3 GB CSV of 10M rows was
 * 2/3 of the loader's peak memory when read into a buffer.  A released page that is touched
 * again (a message's line number, the category pass) is mapped back from the page cache.  The
 * mapping is one page longer than the file and that page is anonymous, so the text still ends
 * with a NUL (the bytes after the end of file in its last page read as zero too).  The one cost:
 * a file truncated by another process while it is being read faults (SIGBUS) instead of
 * failing with a message, so smaller files, where memory does not matter, are still read.
 */
#define _DEFAULT_SOURCE /* madvise() and MAP_ANONYMOUS, beside the POSIX level CMake sets */
#include "dataset.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* strerror() may use a static buffer; this is the thread-safe XSI form. */
static const char *reason(int errnum, char *buf, size_t size)
{
    if (strerror_r(errnum, buf, size) != 0) snprintf(buf, size, "error %d", errnum);
    return buf;
}

/* Grows *data (capacity *cap) so that at least `need` more bytes fit after *len. */
static int grow(char **data, size_t *cap, size_t len, size_t need)
{
    if (len + need + 1 <= *cap) return 0;
    size_t c = *cap ? *cap : 65536;
    while (c < len + need + 1) {
        if (c > SIZE_MAX / 2) return -1;
        c *= 2;
    }
    char *d = gv_realloc(*data, c);
    if (!d) return -1;
    *data = d;
    *cap = c;
    return 0;
}

/* Reads a gzip file (or, for "-", standard input, gzip'd or not: zlib passes plain bytes
 * through). */
static grove_status read_gzip(const char *path, size_t size_hint, char **data, size_t *len)
{
    char why[128];
    int is_stdin = !strcmp(path, "-");
    int fd = is_stdin ? dup(STDIN_FILENO) : -1;
    gzFile gz = is_stdin ? (fd >= 0 ? gzdopen(fd, "rb") : NULL) : gzopen(path, "rb");
    if (!gz) {
        int e = errno;
        if (fd >= 0) close(fd);
        if (is_stdin) path = "stdin";
        return gv_err(GROVE_ERR_IO, "%s: cannot open: %s", path, reason(e, why, sizeof why));
    }
    if (is_stdin) path = "stdin";
    gzbuffer(gz, 1 << 18);
    char *buf = NULL;
    size_t n = 0, cap = 0;
    grove_status st = GROVE_OK;
    if (size_hint < SIZE_MAX / 8 && grow(&buf, &cap, 0, size_hint * 4) != 0) {
        st = gv_err_nomem("the decompressed file");
        goto done;
    }
    for (;;) {
        if (grow(&buf, &cap, n, 1 << 20) != 0) {
            st = gv_err_nomem("the decompressed file");
            goto done;
        }
        size_t room = cap - n - 1;
        unsigned chunk = room > (1u << 30) ? (1u << 30) : (unsigned)room;
        int got = gzread(gz, buf + n, chunk);
        if (got < 0) break;
        n += (size_t)got;
        if (got == 0) break;
    }
    int errnum = Z_OK;
    const char *msg = gzerror(gz, &errnum);
    if (errnum != Z_OK) {
        if (errnum == Z_ERRNO)
            st = gv_err(GROVE_ERR_IO, "%s: cannot read: %s", path, reason(errno, why, sizeof why));
        else
            st = gv_err(GROVE_ERR_IO, "%s: cannot decompress: %s", path, msg);
        goto done;
    }
    buf[n] = '\0';
done:
    gzclose(gz);
    if (st != GROVE_OK) {
        gv_free(buf);
        return st;
    }
    *data = buf;
    *len = n;
    return GROVE_OK;
}

/* Parallel reads use chunks of this many bytes, for files of at least 4 chunks. */
static size_t chunk_bytes = (size_t)16 << 20;

void gv_read_set_chunk(size_t bytes) { chunk_bytes = bytes ? bytes : (size_t)16 << 20; }

/* Reads exactly `size` bytes of fd into buf with n_threads threads; 0 ok, else an errno value
 * (EIO when the file turned out shorter). */
static int read_parallel(int fd, char *buf, size_t size, int n_threads)
{
    const size_t chunk = chunk_bytes;
    size_t n_chunks = (size + chunk - 1) / chunk;
    int error = 0;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(n_threads) reduction(max : error)
#else
    (void)n_threads;
#endif
    for (size_t k = 0; k < n_chunks; k++) {
        size_t off = k * chunk, end = off + chunk < size ? off + chunk : size;
        int chunk_error = 0;
        while (off < end && !chunk_error) {
            ssize_t got = pread(fd, buf + off, end - off, (off_t)off);
            if (got > 0)
                off += (size_t)got;
            else if (got == 0)
                chunk_error = EIO;
            else if (errno != EINTR)
                chunk_error = errno ? errno : EIO;
        }
        if (chunk_error > error) error = chunk_error;
    }
    return error;
}

/* Regular files of at least this many bytes are mapped (see the header). */
static size_t map_min = (size_t)64 << 20;

void gv_read_set_map_min(size_t bytes) { map_min = bytes ? bytes : (size_t)64 << 20; }

size_t gv_text_release_step(void) { return map_min / 2 > 1 ? map_min / 2 : 1; }

/* Maps `size` bytes of fd read-only followed by one anonymous page of zeros; returns the
 * mapping's length (0: the file could not be mapped, read it instead). */
static size_t map_text(int fd, size_t size, char **data)
{
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0 || size > SIZE_MAX - 2 * (size_t)page) return 0;
    size_t total = (size + 2 * (size_t)page - 1) / (size_t)page * (size_t)page;
    char *base = mmap(NULL, total, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) return 0;
    if (mmap(base, size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
        munmap(base, total);
        return 0;
    }
    *data = base;
    return total;
}

void gv_text_release(const char *lo, const char *hi)
{
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0 || hi <= lo) return;
    uintptr_t a = ((uintptr_t)lo + (uintptr_t)page - 1) / (uintptr_t)page * (uintptr_t)page;
    uintptr_t b = (uintptr_t)hi / (uintptr_t)page * (uintptr_t)page;
    if (b > a) madvise((void *)a, b - a, MADV_DONTNEED); /* a hint: failure changes nothing */
}

void gv_text_free(char *data, size_t mapped)
{
    if (mapped)
        munmap(data, mapped);
    else
        gv_free(data);
}

grove_status gv_read_file(const char *path, int n_threads, char **data, size_t *len,
                          size_t *mapped)
{
    *data = NULL;
    *len = 0;
    *mapped = 0;
    char why[128];
    if (!strcmp(path, "-")) return read_gzip(path, 0, data, len); /* standard input */
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return gv_err(GROVE_ERR_IO, "%s: cannot open: %s", path, reason(errno, why, sizeof why));
    size_t size_hint = 0;
    struct stat sb;
    if (fstat(fileno(fp), &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0 &&
        (uintmax_t)sb.st_size < SIZE_MAX - 1)
        size_hint = (size_t)sb.st_size;

    unsigned char magic[2];
    size_t m = fread(magic, 1, 2, fp);
    if (m == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
        fclose(fp);
        return read_gzip(path, size_hint, data, len);
    }
    if (size_hint >= map_min && (*mapped = map_text(fileno(fp), size_hint, data)) != 0) {
        fclose(fp); /* the mapping stays valid */
        *len = size_hint;
        return GROVE_OK;
    }

    char *buf = NULL;
    size_t n = 0, cap = 0;
    grove_status st = GROVE_OK;
    if (grow(&buf, &cap, 0, size_hint > m ? size_hint : m) != 0) {
        st = gv_err_nomem("the file contents");
        goto done;
    }
    if (n_threads > 1 && size_hint / 4 >= chunk_bytes &&
        (uintmax_t)size_hint <= (uintmax_t)INT64_MAX) {
        /* pread() leaves the stream where it is (after the magic bytes), so on a short read
         * (the file shrank) the ordinary loop below simply starts over from there */
        int error = read_parallel(fileno(fp), buf, size_hint, n_threads);
        if (error == 0 && fseeko(fp, (off_t)size_hint, SEEK_SET) == 0) {
            n = size_hint; /* and the loop below reads what the file may have grown by */
        } else if (error != 0 && error != EIO) {
            st = gv_err(GROVE_ERR_IO, "%s: cannot read: %s", path, reason(error, why, sizeof why));
            goto done;
        }
    }
    if (n == 0) {
        memcpy(buf, magic, m);
        n = m;
    }
    while (!ferror(fp) && !feof(fp)) {
        if (grow(&buf, &cap, n, 1 << 16) != 0) {
            st = gv_err_nomem("the file contents");
            goto done;
        }
        n += fread(buf + n, 1, cap - n - 1, fp);
    }
    if (ferror(fp)) {
        st = gv_err(GROVE_ERR_IO, "%s: cannot read: %s", path, reason(errno, why, sizeof why));
        goto done;
    }
    buf[n] = '\0';
done:
    fclose(fp);
    if (st != GROVE_OK) {
        gv_free(buf);
        return st;
    }
    *data = buf;
    *len = n;
    return GROVE_OK;
}

size_t gv_line_of(const char *text, const char *at)
{
    size_t line = 1;
    for (const char *p = text; p < at; p++) {
        p = memchr(p, '\n', (size_t)(at - p));
        if (!p) break;
        line++;
    }
    return line;
}

void gv_excerpt(const char *s, size_t len, char *buf, size_t size)
{
    static const char hex[] = "0123456789abcdef";
    const size_t max_shown = 48;
    size_t o = 0;
    if (size < 16) {
        if (size) buf[0] = '\0';
        return;
    }
    buf[o++] = '"';
    size_t i = 0;
    for (; i < len && i < max_shown && o + 10 < size; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\') {
            buf[o++] = '\\';
            buf[o++] = (char)ch;
        } else if (ch < 0x20 || ch == 0x7f) {
            buf[o++] = '\\';
            buf[o++] = 'x';
            buf[o++] = hex[ch >> 4];
            buf[o++] = hex[ch & 15];
        } else {
            buf[o++] = (char)ch;
        }
    }
    buf[o++] = '"';
    if (i < len) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = '\0';
}

void gv_row_error_init(gv_row_error *e)
{
    e->status = GROVE_OK;
    e->row = SIZE_MAX;
    e->at = NULL;
    e->column = 0;
    e->msg[0] = '\0';
}

void gv_row_fail(gv_row_error *e, grove_status st, size_t row, const char *at, size_t column,
                 const char *fmt, ...)
{
    if (row >= e->row) return;
    e->status = st;
    e->row = row;
    e->at = at;
    e->column = column;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
}

grove_status gv_row_error_report(const gv_row_error *e, const char *path, const char *text)
{
    return gv_err(e->status, "%s:%zu:%zu: %s", path, gv_line_of(text, e->at), e->column, e->msg);
}

/* ---- the parallel row pass ---- */

int gv_row_threads(size_t n_rows, int n_threads)
{
    size_t n_blocks = (n_rows + GV_ROWS_PER_BLOCK - 1) / GV_ROWS_PER_BLOCK;
    if (n_threads < 1) n_threads = 1;
    if ((size_t)n_threads > n_blocks) n_threads = n_blocks ? (int)n_blocks : 1;
    return n_threads;
}

static void lower_stop_row(atomic_size_t *stop, size_t row)
{
    size_t cur = atomic_load(stop);
    while (row < cur && !atomic_compare_exchange_weak(stop, &cur, row)) {
    }
}

void gv_parse_rows(size_t n_rows, int n_threads, void *workers, size_t worker_size,
                   int (*parse_row)(void *ctx, void *worker, size_t row), void *ctx)
{
    size_t n_blocks = (n_rows + GV_ROWS_PER_BLOCK - 1) / GV_ROWS_PER_BLOCK;
    atomic_size_t stop_row; /* the lowest row with an error so far */
    atomic_init(&stop_row, SIZE_MAX);
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(n_threads)
#else
    (void)n_threads;
#endif
    for (size_t b = 0; b < n_blocks; b++) {
#ifdef _OPENMP
        void *w = (char *)workers + (size_t)omp_get_thread_num() * worker_size;
#else
        void *w = workers;
#endif
        size_t lo = b * GV_ROWS_PER_BLOCK, hi = lo + GV_ROWS_PER_BLOCK;
        if (hi > n_rows) hi = n_rows;
        if (lo > atomic_load(&stop_row)) continue; /* an earlier row already failed */
        for (size_t i = lo; i < hi; i++) {
            if (parse_row(ctx, w, i) != 0) {
                lower_stop_row(&stop_row, i);
                break;
            }
        }
    }
}
