/*
 * dist.c -- the collectives of dist.h: MPI when built with GROVE_HAVE_MPI and started by an MPI
 * launcher, through the MPI module libgrove-mpi.so (dist_module.h) that gv_dist_init loads with
 * dlopen then; otherwise one process (rank 0 of 1, every collective the identity) that never
 * maps libmpi.
 *
 * Where the module is looked for: $GROVE_MPI_MODULE (a path) when set; else beside the object
 * holding this code (the grove executable, libgrove.so, a program linked with libgrove.a); else
 * in the install's library folder (GROVE_MPI_MODULE_DIR, compiled in); else by the dynamic
 * loader's search (LD_LIBRARY_PATH, the program's run path).
 *
 * Byte count per call: payload bytes x ceil(log2 size) (0 in one process), the volume a
 * recursive-doubling or binomial-tree schedule sends from one rank; all-gather counts the
 * (size - 1) foreign blocks a rank receives.
 */
/* dladdr (the folder of the object that holds this code) is a GNU extension */
#ifdef GROVE_HAVE_MPI
#define _GNU_SOURCE
#endif
#include "dist.h"

#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef GROVE_HAVE_MPI
#include "dist_module.h"

#include <dlfcn.h>
#endif

static int g_rank = 0, g_size = 1;
static uint64_t g_bytes = 0;

int gv_dist_have_mpi(void)
{
#ifdef GROVE_HAVE_MPI
    return 1;
#else
    return 0;
#endif
}

#ifdef GROVE_HAVE_MPI
static int g_joined = 0; /* this process joined the MPI job through the module */
static const struct gv_dist_module *g_mpi; /* the module's table while joined */

/* Started by a launcher (Open MPI's mpirun sets OMPI_COMM_WORLD_SIZE; PMIx/PMI launchers theirs). */
static int under_launcher(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK") ||
           getenv("PMI_SIZE");
}

#ifndef GROVE_MPI_MODULE_DIR
#define GROVE_MPI_MODULE_DIR "/usr/local/lib"
#endif

/* dlopen of the module at `path` (NULL: none); the loader's last message into why[]. */
static void *open_module(const char *path, char *why, size_t n_why)
{
    /* RTLD_GLOBAL: Open MPI's own plugins resolve libmpi's symbols through the global scope */
    void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, n_why, "%.900s", e ? e : path);
    }
    return h;
}

static void *find_module(char *why, size_t n_why)
{
    const char *env = getenv("GROVE_MPI_MODULE");
    if (env && *env) return open_module(env, why, n_why);
    char path[4096];
    Dl_info info;
    void *h = NULL;
    if (dladdr((void *)&gv_dist_init, &info) && info.dli_fname) {
        const char *slash = strrchr(info.dli_fname, '/');
        if (slash && (size_t)(slash - info.dli_fname) + sizeof GV_DIST_MODULE_FILE + 1 < sizeof path) {
            snprintf(path, sizeof path, "%.*s/%s", (int)(slash - info.dli_fname), info.dli_fname,
                     GV_DIST_MODULE_FILE);
            if ((h = open_module(path, why, n_why))) return h;
        }
    }
    snprintf(path, sizeof path, "%s/%s", GROVE_MPI_MODULE_DIR, GV_DIST_MODULE_FILE);
    if ((h = open_module(path, why, n_why))) return h;
    return open_module(GV_DIST_MODULE_FILE, why, n_why);
}

/* GROVE_DIST_TIMEOUT: seconds a collective may wait (dist_module.h); 0 or unset: no limit. */
static grove_status read_timeout(double *t)
{
    const char *s = getenv("GROVE_DIST_TIMEOUT");
    *t = 0;
    if (!s || !*s) return GROVE_OK;
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= 0) || v > 1e9)
        return gv_err(GROVE_ERR_PARAM, "GROVE_DIST_TIMEOUT: expected seconds in [0, 1e9], found \"%s\"",
                      s);
    *t = v;
    return GROVE_OK;
}
#endif

grove_status gv_dist_init(void)
{
#ifdef GROVE_HAVE_MPI
    if (g_joined || !under_launcher()) return GROVE_OK;
    double timeout;
    grove_status st = read_timeout(&timeout);
    if (st != GROVE_OK) return st;
    char why[1024] = "";
    void *h = find_module(why, sizeof why);
    if (!h)
        return gv_err(GROVE_ERR_INTERNAL,
                      "started by an MPI launcher, but the MPI module %s cannot be loaded: %s "
                      "(GROVE_MPI_MODULE=PATH names it)", GV_DIST_MODULE_FILE, why);
    gv_dist_module_fn fn;
    void *sym = dlsym(h, GV_DIST_MODULE_SYMBOL);
    memcpy(&fn, &sym, sizeof fn); /* a data pointer to a function pointer, as POSIX allows */
    const struct gv_dist_module *m = sym ? fn() : NULL;
    if (!m || m->abi != GV_DIST_MODULE_ABI)
        return gv_err(GROVE_ERR_INTERNAL, "the MPI module %s is of another grove version (interface %d, "
                      "expected %d)", GV_DIST_MODULE_FILE, m ? m->abi : -1, GV_DIST_MODULE_ABI);
    if (m->init(timeout, &g_rank, &g_size, why, sizeof why) != 0)
        return gv_err(GROVE_ERR_INTERNAL, "%s", why);
    g_mpi = m;
    g_joined = 1;
#endif
    return GROVE_OK;
}

void gv_dist_finalize(void)
{
#ifdef GROVE_HAVE_MPI
    if (!g_joined) return;
    g_mpi->finalize();
    g_joined = 0;
    g_rank = 0;
    g_size = 1;
#endif
}

#ifdef GROVE_HAVE_MPI
int gv_dist_active(void) { return g_joined; }
#else
int gv_dist_active(void) { return 0; }
#endif
int gv_dist_rank(void) { return g_rank; }
int gv_dist_size(void) { return g_size; }
uint64_t gv_dist_bytes_sent(void) { return g_bytes; }
void gv_dist_bytes_reset(void) { g_bytes = 0; }

static void count(size_t bytes)
{
    uint64_t rounds = 0;
    while (((uint64_t)1 << rounds) < (uint64_t)g_size) rounds++;
    g_bytes += (uint64_t)bytes * rounds;
}

#ifdef GROVE_HAVE_MPI
/* MPI counts are int: large arrays go in chunks. */
#define CHUNK ((size_t)1 << 26)
#endif

void gv_dist_sum_f64(double *x, size_t n)
{
    if (g_size <= 1 || n == 0) return;
    count(n * sizeof *x);
#ifdef GROVE_HAVE_MPI
    for (size_t o = 0; o < n; o += CHUNK) {
        size_t k = n - o < CHUNK ? n - o : CHUNK;
        g_mpi->sum_f64(x + o, (int)k);
    }
#endif
}

void gv_dist_sum_i64(int64_t *x, size_t n)
{
    if (g_size <= 1 || n == 0) return;
    count(n * sizeof *x);
#ifdef GROVE_HAVE_MPI
    for (size_t o = 0; o < n; o += CHUNK) {
        size_t k = n - o < CHUNK ? n - o : CHUNK;
        g_mpi->sum_i64(x + o, (int)k);
    }
#endif
}

void gv_dist_max_i64(int64_t *x, size_t n)
{
    if (g_size <= 1 || n == 0) return;
    count(n * sizeof *x);
#ifdef GROVE_HAVE_MPI
    for (size_t o = 0; o < n; o += CHUNK) {
        size_t k = n - o < CHUNK ? n - o : CHUNK;
        g_mpi->max_i64(x + o, (int)k);
    }
#endif
}

void gv_dist_bcast(void *buf, size_t n, int root)
{
    if (g_size <= 1 || n == 0) return;
    count(n);
#ifdef GROVE_HAVE_MPI
    for (size_t o = 0; o < n; o += CHUNK) {
        size_t k = n - o < CHUNK ? n - o : CHUNK;
        g_mpi->bcast((char *)buf + o, (int)k, root);
    }
#else
    (void)buf;
    (void)root;
#endif
}

void gv_dist_allgather(const void *in, void *out, size_t n)
{
    if (n == 0) return;
    if (g_size <= 1) {
        memmove(out, in, n);
        return;
    }
    g_bytes += (uint64_t)n * (uint64_t)(g_size - 1);
#ifdef GROVE_HAVE_MPI
    /* one block per rank: n must fit an int (callers gather small records) */
    g_mpi->allgather(in, out, (int)n);
#endif
}

/* The grid of a largest magnitude m (NaN: a value not finite) and this rank's count n. */
static double grid_of(double m, size_t n)
{
    /* e_max: max|v| < 2^e_max; k: total n < 2^k; q = 2^(e_max + k - 52) */
    int64_t a[2] = {INT32_MIN, (int64_t)n};
    if (!(m == m) || isinf(m)) {
        a[0] = INT32_MAX; /* no grid: every rank learns it from the same max */
    } else if (m > 0) {
        int e;
        frexp(m, &e);
        a[0] = e;
    }
    int64_t total = a[1];
    gv_dist_max_i64(a, 1);
    gv_dist_sum_i64(&total, 1);
    if (a[0] == INT32_MIN) return 1.0;
    if (a[0] == INT32_MAX) return INFINITY;
    int k = 0;
    while (k < 62 && ((int64_t)1 << k) <= total) k++;
    /* no finer than the least subnormal, 2^-1074: a grid of 0 would make every v / q infinite,
     * and every double is a whole multiple of that one */
    int e = (int)a[0] + k - 52;
    return ldexp(1.0, e > DBL_MIN_EXP - DBL_MANT_DIG ? e : DBL_MIN_EXP - DBL_MANT_DIG);
}

/* Threads for the elementwise passes below (max is exact in any order; each value is its own). */
#define DIST_PAR_MIN 65536
#define DIST_THREADS(n, nt) ((n) >= DIST_PAR_MIN && (nt) > 1 ? (nt) : 1)

/* The largest |v_i| as the bits of a double with the sign cleared: those order as the values
 * do, and inf and NaN lie above DBL_MAX's (an integer maximum, which vectorizes, instead of a
 * comparison of doubles and a test for values that are not finite).  Then the grid of it
 * (frexp is monotone in |v|, so the largest value has the largest exponent). */
double gv_dist_grid(const double *v, size_t n, int nt)
{
    uint64_t m = 0;
    const long N = (long)n;
    (void)nt;
#ifdef _OPENMP
#pragma omp parallel for num_threads(DIST_THREADS(n, nt)) schedule(static) reduction(max : m)
#endif
    for (long i = 0; i < N; i++) {
        uint64_t u;
        memcpy(&u, v + i, sizeof u);
        u &= ~(UINT64_C(1) << 63);
        m = u > m ? u : m;
    }
    const double dmax = DBL_MAX;
    uint64_t top;
    memcpy(&top, &dmax, sizeof top);
    double a;
    memcpy(&a, &m, sizeof a);
    return grid_of(m > top ? NAN : a, n);
}

double gv_dist_grid_f32(const float *v, size_t n, size_t stride, int nt)
{
    uint32_t m = 0;
    const long N = (long)n;
    (void)nt;
#ifdef _OPENMP
#pragma omp parallel for num_threads(DIST_THREADS(n, nt)) schedule(static) reduction(max : m)
#endif
    for (long i = 0; i < N; i++) {
        uint32_t u;
        memcpy(&u, v + (size_t)i * stride, sizeof u);
        u &= ~(UINT32_C(1) << 31);
        m = u > m ? u : m;
    }
    const float fmax = FLT_MAX;
    uint32_t top;
    memcpy(&top, &fmax, sizeof top);
    float a;
    memcpy(&a, &m, sizeof a);
    return grid_of(m > top ? NAN : (double)a, n);
}

/* rint(x) for |x| < 2^51, the grids' bound (|v| / q < 2^(52 - k), k >= 1): adding and taking
 * away 1.5 x 2^52 rounds to an integer in the current mode (to nearest, ties to even, as rint),
 * without a libm call on CPUs before SSE4.1's roundsd */
static inline double rint51(double x)
{
    const double c = 0x1.8p52; /* (C's floating point is not reassociated: x + c - c stays) */
    return (x + c) - c;
}

/* v / q as v * (1 / q) when 1 / q is a normal double (q a power of two: the same correctly
 * rounded quotient, without a division) */
void gv_dist_snap(double *v, size_t n, double q, int nt)
{
    if (!isfinite(q)) return; /* values that are not finite have no grid: left as they are */
    const double r = 1 / q;
    const int mul = isnormal(r) && isnormal(q);
    const long N = (long)n;
    (void)nt;
#ifdef _OPENMP
#pragma omp parallel for num_threads(DIST_THREADS(n, nt)) schedule(static)
#endif
    for (long i = 0; i < N; i++) v[i] = rint51(mul ? v[i] * r : v[i] / q) * q;
}

void gv_dist_snap_f32(float *v, size_t n, size_t stride, double q, int nt)
{
    if (!isfinite(q)) return;
    const double r = 1 / q;
    const int mul = isnormal(r) && isnormal(q);
    const long N = (long)n;
    (void)nt;
#ifdef _OPENMP
#pragma omp parallel for num_threads(DIST_THREADS(n, nt)) schedule(static)
#endif
    for (long i = 0; i < N; i++) {
        double x = (double)v[(size_t)i * stride];
        v[(size_t)i * stride] = (float)(rint51(mul ? x * r : x / q) * q);
    }
}

void gv_dist_snap_pairs_f32(float *gh, size_t n, int nt)
{
    uint32_t m0 = 0, m1 = 0;
    const long N = (long)n;
    (void)nt;
#ifdef _OPENMP
#pragma omp parallel for num_threads(DIST_THREADS(n, nt)) schedule(static) reduction(max : m0, m1)
#endif
    for (long i = 0; i < N; i++) {
        uint32_t u[2];
        memcpy(u, gh + 2 * (size_t)i, sizeof u);
        u[0] &= ~(UINT32_C(1) << 31);
        u[1] &= ~(UINT32_C(1) << 31);
        m0 = u[0] > m0 ? u[0] : m0;
        m1 = u[1] > m1 ? u[1] : m1;
    }
    const float fmax = FLT_MAX;
    uint32_t top;
    memcpy(&top, &fmax, sizeof top);
    float a0, a1;
    memcpy(&a0, &m0, sizeof a0);
    memcpy(&a1, &m1, sizeof a1);
    /* the two grids in gv_dist_grid_f32's order: the g column's, then the h column's */
    const double q0 = grid_of(m0 > top ? NAN : (double)a0, n);
    const double q1 = grid_of(m1 > top ? NAN : (double)a1, n);
    const double r0 = 1 / q0, r1 = 1 / q1;
    if (!(isfinite(q0) && isnormal(r0) && isnormal(q0) && isfinite(q1) && isnormal(r1) &&
          isnormal(q1))) {
        gv_dist_snap_f32(gh, n, 2, q0, nt);
        gv_dist_snap_f32(gh + 1, n, 2, q1, nt);
        return;
    }
#ifdef _OPENMP
#pragma omp parallel for num_threads(DIST_THREADS(n, nt)) schedule(static)
#endif
    for (long i = 0; i < N; i++) {
        float *p = gh + 2 * (size_t)i;
        p[0] = (float)(rint51((double)p[0] * r0) * q0);
        p[1] = (float)(rint51((double)p[1] * r1) * q1);
    }
}

/* Each v_i / q is an integer below 2^(52 - k) in magnitude (the grid's bound), so all n of them
 * and every partial sum are integers below 2^52: exact as doubles, in any order.  Four partial
 * sums (independent additions; the same total), one int64 for the ranks. */
double gv_dist_sum_exact(const double *v, size_t n)
{
    double q = gv_dist_grid(v, n, 1);
    int64_t s = 0;
    /* a value that is not finite (on any rank: q is then inf on all) has no integer: converting
     * inf to int64 is undefined.  The sum is then NaN on every rank (the same collectives run). */
    if (isfinite(q)) {
        const double r = 1 / q; /* v / q as v * r when both are normal (gv_dist_snap) */
        const int mul = isnormal(r) && isnormal(q);
        double p[4] = {0, 0, 0, 0};
        size_t i = 0;
        if (mul)
            for (; i + 4 <= n; i += 4)
                for (int j = 0; j < 4; j++) p[j] += rint51(v[i + j] * r);
        for (; i < n; i++) p[0] += rint51(mul ? v[i] * r : v[i] / q);
        s = (int64_t)((p[0] + p[1]) + (p[2] + p[3]));
    }
    gv_dist_sum_i64(&s, 1);
    return isfinite(q) ? (double)s * q : NAN;
}

grove_status gv_dist_allgatherv(const void *in, size_t n, void **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    int64_t *sizes = gv_malloc_array((size_t)g_size, sizeof *sizes);
    int64_t mine = (int64_t)n;
    grove_status st = sizes ? GROVE_OK : gv_err_nomem("an all-gather");
    if ((st = gv_dist_agree(st)) != GROVE_OK) {
        gv_free(sizes);
        return st;
    }
    gv_dist_allgather(&mine, sizes, sizeof mine);
    int64_t total = 0;
    for (int r = 0; r < g_size; r++) total += sizes[r];
    if (total > INT32_MAX) {
        gv_free(sizes);
        return gv_err(GROVE_ERR_DATA, "an all-gather of %lld bytes: more than MPI's int counts",
                      (long long)total);
    }
    char *buf = gv_malloc(total ? (size_t)total : 1);
    st = gv_dist_agree(buf ? GROVE_OK : gv_err_nomem("an all-gather"));
    if (st != GROVE_OK) {
        gv_free(buf);
        gv_free(sizes);
        return st;
    }
    if (g_size <= 1) {
        if (n) memcpy(buf, in, n);
    } else {
        g_bytes += (uint64_t)(total - mine);
#ifdef GROVE_HAVE_MPI
        int *cnt = gv_malloc_array((size_t)g_size, 2 * sizeof *cnt);
        if (!cnt) { /* 8 bytes a rank: treated as fatal, as MPI itself would be */
            fprintf(stderr, "grove: out of memory in an all-gather\n");
            g_mpi->abort_job(1);
        }
        int *disp = cnt + g_size, at = 0;
        for (int r = 0; r < g_size; r++) {
            cnt[r] = (int)sizes[r];
            disp[r] = at;
            at += cnt[r];
        }
        g_mpi->allgatherv(in, (int)n, buf, cnt, disp);
        gv_free(cnt);
#endif
    }
    gv_free(sizes);
    *out = buf;
    *n_out = (size_t)total;
    return GROVE_OK;
}

/* A double as an int64 in the same order (-0 as +0): the sign bit flipped for positives,
 * the other bits for negatives, read as signed. */
static int64_t order_key(double x)
{
    uint64_t u;
    if (x == 0) x = 0.0;
    memcpy(&u, &x, sizeof u);
    u = u >> 63 ? ~u : u | (uint64_t)1 << 63;
    return (int64_t)(u ^ (uint64_t)1 << 63);
}

static double key_value(int64_t k)
{
    uint64_t u = (uint64_t)k ^ (uint64_t)1 << 63;
    u = u >> 63 ? u & ~((uint64_t)1 << 63) : ~u;
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

void gv_dist_median_exact(const double *v, const int64_t *cw, const size_t *off, size_t K,
                          double *med)
{
    gv_dist_quantile_exact(v, cw, off, K, 0.5, med);
}

void gv_dist_quantile_exact(const double *v, const int64_t *cw, const size_t *off, size_t K,
                            double q, double *med)
{
    if (K == 0) return;
    /* per group: lo, hi (keys), W; then the counts of a round */
    int64_t *a = gv_malloc_array(K, 4 * sizeof *a);
    if (!a) { /* K words: fatal, as MPI itself would be */
        fprintf(stderr, "grove: out of memory in a distributed median\n");
        abort();
    }
    int64_t *lo = a, *hi = a + K, *W = a + 2 * K, *c = a + 3 * K;
    for (size_t k = 0; k < K; k++) {
        size_t b = off[k], e = off[k + 1];
        lo[k] = b < e ? ~order_key(v[b]) : INT64_MIN; /* max of ~key = ~(min key) */
        hi[k] = b < e ? order_key(v[e - 1]) : INT64_MIN;
        W[k] = b < e ? cw[e - 1] : 0;
    }
    gv_dist_max_i64(a, 2 * K);
    gv_dist_sum_i64(W, K);
    for (size_t k = 0; k < K; k++) {
        lo[k] = ~lo[k];
        if (W[k] <= 0) lo[k] = hi[k] = 0; /* nothing to find */
    }
    for (;;) {
        int open = 0;
        for (size_t k = 0; k < K; k++) {
            c[k] = 0;
            if (lo[k] >= hi[k]) continue;
            open = 1;
            /* mid without overflow: floor((lo + hi) / 2) */
            int64_t mid = (lo[k] >> 1) + (hi[k] >> 1) + (lo[k] & hi[k] & 1);
            size_t b = off[k], e = off[k + 1];
            while (b < e) { /* the first value with key > mid */
                size_t m = b + (e - b) / 2;
                if (order_key(v[m]) <= mid) b = m + 1;
                else e = m;
            }
            c[k] = b > off[k] ? cw[b - 1] : 0;
        }
        if (!open) break; /* the same on every rank: lo and hi are */
        gv_dist_sum_i64(c, K);
        for (size_t k = 0; k < K; k++) {
            if (lo[k] >= hi[k]) continue;
            int64_t mid = (lo[k] >> 1) + (hi[k] >> 1) + (lo[k] & hi[k] & 1);
            if ((double)c[k] >= q * (double)W[k]) hi[k] = mid; /* W(<= mid) >= q W */
            else lo[k] = mid + 1;
        }
    }
    for (size_t k = 0; k < K; k++)
        if (W[k] > 0) med[k] = key_value(lo[k]);
    gv_free(a);
}

void gv_dist_offsets(size_t n_local, size_t *first, size_t *total)
{
    int64_t mine = (int64_t)n_local, before = 0, all = mine;
    if (g_size > 1) {
        count(2 * sizeof mine);
#ifdef GROVE_HAVE_MPI
        before = g_mpi->exscan_i64(mine);
        g_mpi->sum_i64(&all, 1);
#endif
    }
    *first = (size_t)before;
    *total = (size_t)all;
}

/* 1 while this rank's error record holds an agreed message ("rank R: ..."): agreeing on it
 * again (a caller up the stack) passes it on without a second prefix. */
static int g_agreed;

grove_status gv_dist_agree(grove_status st)
{
    if (g_size <= 1) return st;
    if (st == GROVE_OK) g_agreed = 0;
    /* the lowest failing rank (size if none) */
    int64_t who = st != GROVE_OK ? g_rank : g_size;
    int64_t neg = -who;
    gv_dist_max_i64(&neg, 1);
    who = -neg;
    if (who == g_size) return GROVE_OK;
    struct {
        int32_t status, agreed;
        char msg[1000];
    } rec;
    memset(&rec, 0, sizeof rec);
    if (g_rank == who) {
        rec.status = (int32_t)st;
        rec.agreed = g_agreed;
        snprintf(rec.msg, sizeof rec.msg, "%s", grove_last_error());
    }
    gv_dist_bcast(&rec, sizeof rec, (int)who);
    rec.msg[sizeof rec.msg - 1] = '\0';
    g_agreed = 1;
    if (rec.agreed) return gv_err((grove_status)rec.status, "%s", rec.msg);
    return gv_err((grove_status)rec.status, "rank %d: %s", (int)who, rec.msg);
}

grove_status gv_dist_round(size_t round)
{
    grove_status st = GROVE_OK;
    const char *hook = getenv("GROVE_DIST_FAIL");
    unsigned long r, t;
    char how[8] = "";
    if (hook && sscanf(hook, "%lu:%lu:%7s", &r, &t, how) >= 2 && r == (unsigned long)g_rank &&
        t == (unsigned long)round) {
        if (!strcmp(how, "kill")) raise(SIGKILL);
        if (!strcmp(how, "stop")) raise(SIGSTOP); /* until SIGCONT: the others wait (timeout) */
        st = gv_err(GROVE_ERR_DATA, "round %zu: failure injected by GROVE_DIST_FAIL=%s (a test hook)",
                    round, hook);
    }
    return gv_dist_active() ? gv_dist_agree(st) : st;
}

/* ---- the public entry points (grove.h) ---- */

grove_status grove_dist_init(void)
{
    gv_err_clear();
    return gv_dist_init();
}
void grove_dist_finalize(void) { gv_dist_finalize(); }
int grove_dist_rank(void) { return gv_dist_rank(); }
int grove_dist_size(void) { return gv_dist_size(); }
unsigned long long grove_dist_bytes_sent(void) { return (unsigned long long)gv_dist_bytes_sent(); }
