/*
 * output.c -- the one way grove writes a file: model saves and every output of the CLI.
 *
 * Pipeline position: core (needs only the error record and the allocator).
 * What sits at the path decides how it is written:
 *  - "-", /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N: the open descriptor itself
 *    (a duplicate of it), so a shell's `>>` or a pipe behind /dev/stdout keeps working;
 *  - a character device, a FIFO or a socket (/dev/null, a named pipe): opened and written
 *    straight through, never created, replaced or truncated by rename;
 *  - a regular file, or nothing yet: a temporary file made with mkstemp() in the target's folder,
 *    flushed, fsync()ed and rename()d over the target at commit; the folder is synced too.  On
 *    any failure (or abort) the temporary file is removed and the old file is intact.
 *  - a symbolic link is followed (to any depth, dangling or not) and its final target is
 *    replaced atomically; the link itself stays.
 * Mode: a new file gets 0666 minus the umask (what open(O_CREAT) would give); a replaced file
 * keeps its permission bits, as shell redirection does.
 * Safety: an output that is the same file (device and inode) as one of the caller's inputs is
 * refused before anything is written.
 * Errors: stdio keeps only a flag for a failed write, not its errno, so where glibc offers it
 * the stream is ours (fopencookie) over write(2), and the first failing write's errno is kept:
 * a full disk is reported as "No space left on device", not "Input/output error".
 */
#define _GNU_SOURCE /* fopencookie(), beside the POSIX level CMake sets */
#include "core.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct grove_output {
    FILE *fp;
    char *path;   /* as given, for messages */
    char *target; /* the regular file renamed over at commit; NULL when written straight through */
    char *tmp;    /* the temporary file beside target */
    int own_fp;   /* fp is ours to close (not stdout) */
    int fd;       /* under fp when it is a cookie stream (stream_open), else -1 */
    int err;      /* errno of the first failed write or close of fd, 0 while none */
};

#ifdef __GLIBC__
static ssize_t cookie_write(void *c, const char *buf, size_t size)
{
    grove_output *o = c;
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(o->fd, buf + done, size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (!o->err) o->err = n < 0 ? errno : EIO;
            /* glibc: a short count is an error; what was written is not written again */
            return done ? (ssize_t)done : -1;
        }
        done += (size_t)n;
    }
    return (ssize_t)done;
}

static int cookie_close(void *c)
{
    grove_output *o = c;
    int rc = close(o->fd);
    if (rc != 0 && !o->err) o->err = errno;
    o->fd = -1;
    return rc;
}
#endif

/* A write stream over descriptor d, taken over (closed with the stream, or here on failure);
 * NULL with errno set. */
static FILE *stream_open(grove_output *o, int d)
{
#ifdef __GLIBC__
    cookie_io_functions_t io = {NULL, cookie_write, NULL, cookie_close};
    o->fd = d;
    FILE *f = fopencookie(o, "w", io);
    if (!f) {
        int e = errno;
        close(d);
        o->fd = -1;
        errno = e;
    }
    return f;
#else
    FILE *f = fdopen(d, "w");
    if (!f) {
        int e = errno;
        close(d);
        errno = e;
    }
    return f;
#endif
}

static const char *errno_text(int e, char *buf, size_t size)
{
    /* _GNU_SOURCE gives the GNU strerror_r: it returns the text, maybe not in buf */
    const char *t = strerror_r(e, buf, size);
    if (t != buf) snprintf(buf, size, "%s", t ? t : "unknown error");
    return buf;
}

/* The process umask without changing it (umask() would, racing with other threads): read from
 * /proc on Linux, else the common 022. */
static mode_t current_umask(void)
{
    mode_t mask = 022;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return mask;
    char line[256];
    unsigned int v;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Umask: %o", &v) == 1) {
            mask = (mode_t)(v & 0777);
            break;
        }
    fclose(f);
    return mask;
}

/* The descriptor a path names directly ("-" and the /dev/std* family), or -1. */
static int named_fd(const char *path)
{
    if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout")) return 1;
    if (!strcmp(path, "/dev/stderr")) return 2;
    const char *num = NULL;
    if (!strncmp(path, "/dev/fd/", 8))
        num = path + 8;
    else if (!strncmp(path, "/proc/self/fd/", 14))
        num = path + 14;
    if (!num || !*num) return -1;
    char *end;
    long n = strtol(num, &end, 10);
    return *end || n < 0 || n > INT_MAX ? -1 : (int)n;
}

/* The final target of a chain of symbolic links starting at `path` (path itself when it is not
 * a link), as a new string; NULL with errno set (ELOOP after 40 links). */
static char *follow_links(const char *path)
{
    char *cur = gv_strdup(path);
    for (int depth = 0; cur; depth++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) return cur;
        if (depth == 40) {
            gv_free(cur);
            errno = ELOOP;
            return NULL;
        }
        char link[PATH_MAX];
        ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n < 0) {
            gv_free(cur);
            return NULL;
        }
        link[n] = '\0';
        const char *slash = strrchr(cur, '/');
        size_t dir_len = link[0] != '/' && slash ? (size_t)(slash - cur) + 1 : 0;
        char *next = gv_malloc(dir_len + (size_t)n + 1);
        if (next) {
            memcpy(next, cur, dir_len);
            memcpy(next + dir_len, link, (size_t)n + 1);
        } else {
            errno = ENOMEM;
        }
        gv_free(cur);
        cur = next;
    }
    errno = ENOMEM;
    return NULL;
}

void grove_output_abort(grove_output *o)
{
    if (!o) return;
    if (o->fp && o->own_fp) fclose(o->fp);
    if (o->tmp) unlink(o->tmp);
    gv_free(o->tmp);
    gv_free(o->target);
    gv_free(o->path);
    gv_free(o);
}

grove_status grove_output_open(const char *path, const char *const *inputs, grove_output **out)
{
    gv_err_clear();
    if (out) *out = NULL;
    if (!path || !out) return gv_err(GROVE_ERR_ARG, "grove_output_open: NULL argument");
    if (!*path) return gv_err(GROVE_ERR_ARG, "grove_output_open: empty path");
    char msg[128];
    grove_output *o = gv_malloc(sizeof *o);
    if (!o) return gv_err_nomem("an output");
    memset(o, 0, sizeof *o);
    o->fd = -1;
    if (!(o->path = gv_strdup(path))) {
        grove_output_abort(o);
        return gv_err_nomem("an output");
    }

    int fd = named_fd(path);
    if (fd == 1) {
        o->fp = stdout;
        *out = o;
        return GROVE_OK;
    }
    if (fd >= 0) {
        /* stdio's own stream: callers may ask for its descriptor (fileno) */
        int d = dup(fd);
        if (d < 0 || !(o->fp = fdopen(d, "w"))) {
            int e = errno;
            if (d >= 0) close(d);
            grove_output_abort(o);
            return gv_err(GROVE_ERR_IO, "%s: %s", path, errno_text(e, msg, sizeof msg));
        }
        o->own_fp = 1;
        *out = o;
        return GROVE_OK;
    }

    struct stat st;
    int exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        grove_output_abort(o);
        return gv_err(GROVE_ERR_IO, "%s: is a folder, not a file", path);
    }
    if (exists && S_ISREG(st.st_mode) && inputs) {
        for (size_t k = 0; inputs[k]; k++) {
            struct stat in;
            if (strcmp(inputs[k], "-") != 0 && stat(inputs[k], &in) == 0 &&
                in.st_dev == st.st_dev && in.st_ino == st.st_ino) {
                grove_output_abort(o);
                return gv_err(GROVE_ERR_IO,
                              "%s: is also an input (%s); refusing to overwrite it, choose "
                              "another output file",
                              path, inputs[k]);
            }
        }
    }
    if (exists && !S_ISREG(st.st_mode)) {
        /* a device, FIFO or socket: written straight through (a FIFO waits for its reader) */
        int d = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (d < 0 || !(o->fp = stream_open(o, d))) {
            int e = errno;
            grove_output_abort(o);
            return gv_err(GROVE_ERR_IO, "%s: cannot open: %s", path, errno_text(e, msg, sizeof msg));
        }
        o->own_fp = 1;
        *out = o;
        return GROVE_OK;
    }

    /* a regular file or nothing: a temporary file beside the link chain's final target */
    if (!(o->target = follow_links(path))) {
        int e = errno;
        grove_output_abort(o);
        if (e == ENOMEM) return gv_err_nomem("a file name");
        return gv_err(GROVE_ERR_IO, "%s: %s", path, errno_text(e, msg, sizeof msg));
    }
    static const char pattern[] = ".grove-tmp-XXXXXX";
    const char *slash = strrchr(o->target, '/');
    size_t dir_len = slash ? (size_t)(slash - o->target) + 1 : 0;
    if (!(o->tmp = gv_malloc(dir_len + sizeof pattern))) {
        grove_output_abort(o);
        return gv_err_nomem("a file name");
    }
    memcpy(o->tmp, o->target, dir_len);
    memcpy(o->tmp + dir_len, pattern, sizeof pattern);
    mode_t mode = exists ? (st.st_mode & 07777) : (0666 & ~current_umask());
    int d = mkstemp(o->tmp);
    if (d < 0) {
        int e = errno;
        gv_free(o->tmp);
        o->tmp = NULL;
        grove_output_abort(o);
        return gv_err(GROVE_ERR_IO, "%s: cannot create a temporary file in its folder: %s", path,
                      errno_text(e, msg, sizeof msg));
    }
    /* mkstemp creates the file 0600; a failing fchmod leaves a private but complete file */
    (void)fchmod(d, mode);
    if (!(o->fp = stream_open(o, d))) {
        int e = errno;
        grove_output_abort(o);
        return gv_err(GROVE_ERR_IO, "%s: %s", path, errno_text(e, msg, sizeof msg));
    }
    o->own_fp = 1;
    *out = o;
    return GROVE_OK;
}

FILE *grove_output_stream(grove_output *o) { return o ? o->fp : NULL; }

int gv_output_fd(grove_output *o)
{
    if (!o || !o->fp) return -1;
    return o->fd >= 0 ? o->fd : fileno(o->fp);
}

const char *grove_output_path(const grove_output *o) { return o ? o->path : NULL; }

const char *grove_output_temp_path(const grove_output *o) { return o ? o->tmp : NULL; }

grove_status grove_output_commit(grove_output *o)
{
    gv_err_clear();
    if (!o) return gv_err(GROVE_ERR_ARG, "grove_output_commit: NULL argument");
    char msg[128];
    int bad = ferror(o->fp) != 0;
    int e = bad ? (o->err ? o->err : EIO) : 0;
    if (fflush(o->fp) != 0 && !e) {
        bad = 1;
        e = o->err ? o->err : errno;
    }
    /* only a file about to be renamed needs its bytes on disk first */
    if (!bad && o->target && fsync(o->fd >= 0 ? o->fd : fileno(o->fp)) != 0) {
        bad = 1;
        e = errno;
    }
    if (o->own_fp) {
        int rc = fclose(o->fp);
        if (rc != 0 && !bad) {
            bad = 1;
            e = o->err ? o->err : errno;
        }
        o->fp = NULL;
    }
    if (!bad && o->target && rename(o->tmp, o->target) != 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        grove_status st = gv_err(GROVE_ERR_IO, "%s: cannot write: %s%s", o->path,
                                 errno_text(e, msg, sizeof msg),
                                 o->target ? " (the old file, if any, is unchanged)" : "");
        grove_output_abort(o);
        return st;
    }
    if (o->target) {
        gv_free(o->tmp);
        o->tmp = NULL;
        /* Make the rename itself durable; folders that cannot be synced are not an error. */
        char *slash = strrchr(o->target, '/');
        if (slash) slash[slash == o->target ? 1 : 0] = '\0';
        int dfd = open(slash ? o->target : ".", O_RDONLY | O_CLOEXEC);
        if (dfd >= 0) {
            (void)fsync(dfd);
            close(dfd);
        }
    }
    grove_output_abort(o);
    return GROVE_OK;
}
