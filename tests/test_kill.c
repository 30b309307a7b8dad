/*
 * test_kill.c -- crash safety of a model save: `grove train DATA -o MODEL` is killed
 * with SIGKILL at many points while it writes MODEL, and run with the file size limited
 * (RLIMIT_FSIZE, a full disk as the process sees it); afterwards MODEL must hold exactly the old
 * file or exactly the complete new one, never a torn one.
 *
 * Why it holds: core/output.c writes a temporary file beside MODEL (.grove-tmp-XXXXXX), fsyncs
 * it and renames it over MODEL (rename(2) replaces a name atomically).  A killed process cannot
 * clean up, so its temporary file may stay; a process that sees a write fail (EFBIG) removes it.
 *
 * Kill points: (1) the temporary file reaching k/8 of the final size, k = 0..8 (polled with
 * stat in a tight loop; the process may write a little more before the signal lands); (2) the
 * temporary file gone (renamed: the process is syncing the folder or exiting); (3) k/8 of a
 * whole run's wall time, k = 1..7 (training, then the save).  Plain and gzip'd MODEL.
 * File size limits: 0, 4096 bytes, half the model and one byte short of it, with SIGXFSZ ignored
 * (grove must report "File too large", exit non-zero and leave no temporary file) and with its
 * default action (the kernel kills the process at the write that crosses the limit).
 * The new model is the same bytes in every run (same seed, one thread), so "complete new file"
 * is a byte comparison with a reference run.
 */
#include "check.h"
#include "fixtures.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[256], grove[600], data[300];

static char *read_all(const char *path, size_t *len)
{
    *len = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (size_t r; buf && (r = fread(buf + n, 1, cap - n, fp)) > 0;) {
        n += r;
        if (n == cap) buf = realloc(buf, cap *= 2);
    }
    fclose(fp);
    *len = n;
    return buf;
}

static void write_all(const char *path, const char *bytes, size_t len)
{
    FILE *fp = fopen(path, "wb");
    CHECK(fp != NULL);
    if (!fp) return;
    CHECK(fwrite(bytes, 1, len, fp) == len);
    fclose(fp);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Size of the first temporary file in `dir`, -1 when there is none. */
static long tmp_size(void)
{
    DIR *d = opendir(dir);
    long size = -1;
    if (!d) return -1;
    for (struct dirent *e; size < 0 && (e = readdir(d)) != NULL;) {
        if (strncmp(e->d_name, ".grove-tmp-", 11) != 0) continue;
        char path[600];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) == 0) size = (long)st.st_size;
    }
    closedir(d);
    return size;
}

/* Removes the temporary files in `dir`; returns how many there were. */
static int remove_tmp(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d) return 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strncmp(e->d_name, ".grove-tmp-", 11) != 0) continue;
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (unlink(path) == 0) n++;
    }
    closedir(d);
    return n;
}

/* Starts `grove train DATA -o model`, its stdout to /dev/null and its stderr to the pipe `err`
 * (NULL: /dev/null too); `fsize` > -1 limits the file size, `xfsz_ignored` sets SIGXFSZ to
 * SIG_IGN. */
static pid_t start(const char *model, long fsize, int xfsz_ignored, const int *err)
{
    fflush(stdout); /* else the child's stdio would repeat what is buffered */
    pid_t pid = fork();
    if (pid != 0) return pid;
    int null = open("/dev/null", O_WRONLY);
    if (null < 0 || dup2(null, 1) < 0 || dup2(err ? err[1] : null, 2) < 0) _exit(126);
    if (err) close(err[0]);
    if (fsize >= 0) {
        struct rlimit rl = {(rlim_t)fsize, (rlim_t)fsize};
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(126);
    }
    if (xfsz_ignored) signal(SIGXFSZ, SIG_IGN);
    execl(grove, grove, "train", data, "-o", model, "--algo", "forest", "--rounds", "15",
          "--threads", "1", "--seed", "7", "-q", (char *)NULL);
    _exit(127);
}

static int wait_status(pid_t pid)
{
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
    }
    return ws;
}

typedef struct {
    const char *model;
    const char *old, *new_;
    size_t old_len, new_len;
    int n_old, n_new, n_torn, n_tmp_left;
} outcome;

/* MODEL after a run must be the old bytes or the new ones; counts which, restores the old. */
static void judge(outcome *o, const char *what, double point)
{
    size_t len;
    char *got = read_all(o->model, &len);
    if (got && len == o->new_len && memcmp(got, o->new_, len) == 0)
        o->n_new++;
    else if (got && len == o->old_len && memcmp(got, o->old, len) == 0)
        o->n_old++;
    else {
        o->n_torn++;
        CHECK_FAIL_("%s %s at %g: MODEL is torn (%zu bytes; old %zu, new %zu)", o->model, what,
                    point, len, o->old_len, o->new_len);
    }
    free(got);
    o->n_tmp_left += remove_tmp();
    write_all(o->model, o->old, o->old_len);
}

/* Kill points for one MODEL path (plain or gzip'd). */
static void kill_sweep(outcome *o, double run_time)
{
    /* (1) the temporary file at k/8 of the final size */
    for (int k = 0; k <= 8; k++) {
        long at = (long)((double)o->new_len * k / 8.0);
        pid_t pid = start(o->model, -1, 0, NULL);
        double t0 = now();
        for (;;) {
            long sz = tmp_size();
            if (sz >= at && sz >= 0) break;
            if (waitpid(pid, NULL, WNOHANG) == pid) {
                pid = -1; /* finished before the point */
                break;
            }
            if (now() - t0 > 60) break;
        }
        if (pid > 0) {
            kill(pid, SIGKILL);
            wait_status(pid);
        }
        judge(o, "killed with the temporary file at byte", (double)at);
    }
    /* (2) right after the rename */
    pid_t pid = start(o->model, -1, 0, NULL);
    int seen = 0;
    double t0 = now();
    for (;;) {
        long sz = tmp_size();
        if (sz >= 0) seen = 1;
        if (seen && sz < 0) break;
        if (waitpid(pid, NULL, WNOHANG) == pid) {
            pid = -1;
            break;
        }
        if (now() - t0 > 60) break;
    }
    if (pid > 0) {
        kill(pid, SIGKILL);
        wait_status(pid);
    }
    judge(o, "killed after the rename", 0);
    /* (3) k/8 of a run's time */
    for (int k = 1; k <= 7; k++) {
        double at = run_time * k / 8.0;
        pid = start(o->model, -1, 0, NULL);
        struct timespec d = {(time_t)at, (long)((at - (double)(time_t)at) * 1e9)};
        nanosleep(&d, NULL);
        kill(pid, SIGKILL);
        wait_status(pid);
        judge(o, "killed at second", at);
    }
}

/* File size limits, with SIGXFSZ ignored (a clean error) and not (killed by the kernel). */
static void fsize_sweep(outcome *o)
{
    long limits[] = {0, 4096, (long)o->new_len / 2, (long)o->new_len - 1};
    for (int ignored = 0; ignored <= 1; ignored++)
        for (size_t i = 0; i < sizeof limits / sizeof *limits; i++) {
            int err[2];
            CHECK(pipe(err) == 0);
            pid_t pid = start(o->model, limits[i], ignored, err);
            close(err[1]);
            char msg[4096];
            size_t n = 0;
            for (ssize_t r; n < sizeof msg - 1 && (r = read(err[0], msg + n, sizeof msg - 1 - n)) > 0;)
                n += (size_t)r;
            msg[n] = '\0';
            close(err[0]);
            int ws = wait_status(pid);
            if (ignored) {
                CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) != 0);
                CHECK_CONTAINS(msg, "File too large");
                CHECK_EQ_INT(tmp_size(), -1); /* removed by grove itself */
            } else {
                CHECK(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGXFSZ);
            }
            int n_old = o->n_old;
            judge(o, ignored ? "with SIGXFSZ ignored, file size limit" : "file size limit",
                  (double)limits[i]);
            CHECK_EQ_INT(o->n_old, n_old + 1);
        }
}

static void run_case(const char *name, const char *old_bytes, size_t old_len)
{
    char model[600], ref[600];
    snprintf(model, sizeof model, "%s/%s", dir, name);
    snprintf(ref, sizeof ref, "%s/ref-%s", dir, name);
    /* the reference new file, and a whole run's time */
    double t0 = now();
    int ws = wait_status(start(ref, -1, 0, NULL));
    double run_time = now() - t0;
    CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    outcome o = {model, old_bytes, NULL, old_len, 0, 0, 0, 0, 0};
    char *new_bytes = read_all(ref, &o.new_len);
    o.new_ = new_bytes;
    CHECK(new_bytes != NULL && o.new_len > 100000);
    if (!new_bytes) return;
    /* a second run writes the same bytes (else "old or new" could not be judged) */
    write_all(model, old_bytes, old_len);
    ws = wait_status(start(model, -1, 0, NULL));
    CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    judge(&o, "uninterrupted", 0);
    CHECK_EQ_INT(o.n_new, 1);
    kill_sweep(&o, run_time);
    fsize_sweep(&o);
    printf("kill test: %-12s %zu bytes, run %.3f s: %d runs, %d left the old file, %d the new "
           "one, %d torn; %d temporary files left by killed runs\n",
           name, o.new_len, run_time, o.n_old + o.n_new + o.n_torn, o.n_old, o.n_new, o.n_torn,
           o.n_tmp_left);
    CHECK_EQ_INT(o.n_torn, 0);
    CHECK(o.n_old > 0 && o.n_new > 1); /* the kill points span both sides of the rename */
    remove(ref);
    free(new_bytes);
}

int main(void)
{
    const char *bin = getenv("GROVE_BIN");
    snprintf(grove, sizeof grove, "%s/grove", bin ? bin : "build");
    snprintf(dir, sizeof dir, "/tmp/grove_test_kill_%ld", (long)getpid());
    CHECK(mkdir(dir, 0700) == 0);
    snprintf(data, sizeof data, "%s/train.csv", dir);
    /* 3000 rows, 8 uniform features, y = [x0 + x1 x2 > 0.8] */
    FILE *fp = fopen(data, "w");
    CHECK(fp != NULL);
    if (!fp) TEST_MAIN_END();
    uint64_t s = 16;
    fprintf(fp, "y,x0,x1,x2,x3,x4,x5,x6,x7\n");
    for (int i = 0; i < 3000; i++) {
        double x[8];
        for (int j = 0; j < 8; j++) x[j] = fx_unif(&s);
        fprintf(fp, "%d", x[0] + x[1] * x[2] > 0.8);
        for (int j = 0; j < 8; j++) fprintf(fp, ",%.4f", x[j]);
        fprintf(fp, "\n");
    }
    fclose(fp);

    static const char old_text[] = "{\"an old model\": true}\n";
    run_case("model.json", old_text, sizeof old_text - 1);
    /* an old gzip'd file: a few bytes that are not the new ones */
    static const char old_gz[] = "\x1f\x8b\x08\x00old";
    run_case("model.json.gz", old_gz, sizeof old_gz - 1);

    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    TEST_MAIN_END();
}
