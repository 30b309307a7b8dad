/*
 * dist.c -- the collectives of dist.h: MPI when built with GROVE_HAVE_MPI and started by mpirun,
 * otherwise one process (rank 0 of 1, every collective the identity).
 *
 * Byte count per call: payload bytes x ceil(log2 size) (0 in one process), the volume a
 * recursive-doubling or binomial-tree schedule sends from one rank; all-gather counts the
 * (size - 1) foreign blocks a rank receives.
 */
#include "dist.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef GROVE_HAVE_MPI
#include <mpi.h>
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
static int g_joined = 0; /* this process called MPI_Init (or found it called) */

/* Started by a launcher (Open MPI's mpirun sets OMPI_COMM_WORLD_SIZE; PMIx/PMI launchers theirs). */
static int under_launcher(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_SIZE");
}
#endif

grove_status gv_dist_init(void)
{
#ifdef GROVE_HAVE_MPI
    if (g_joined || !under_launcher()) return GROVE_OK;
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited) {
        int provided = 0;
        if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
            return gv_err(GROVE_ERR_INTERNAL, "MPI_Init failed");
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    g_joined = 1;
#endif
    return GROVE_OK;
}

void gv_dist_finalize(void)
{
#ifdef GROVE_HAVE_MPI
    if (!g_joined) return;
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin) MPI_Finalize();
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
        MPI_Allreduce(MPI_IN_PLACE, x + o, (int)k, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
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
        MPI_Allreduce(MPI_IN_PLACE, x + o, (int)k, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
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
        MPI_Allreduce(MPI_IN_PLACE, x + o, (int)k, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
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
        MPI_Bcast((char *)buf + o, (int)k, MPI_BYTE, root, MPI_COMM_WORLD);
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
    MPI_Allgather(in, (int)n, MPI_BYTE, out, (int)n, MPI_BYTE, MPI_COMM_WORLD);
#endif
}

double gv_dist_grid(const double *v, size_t n)
{
    /* e_max: max|v| < 2^e_max; k: total n < 2^k; q = 2^(e_max + k - 52) */
    int64_t a[2] = {INT32_MIN, (int64_t)n};
    for (size_t i = 0; i < n; i++) {
        if (v[i] == 0 || !isfinite(v[i])) continue;
        int e;
        frexp(v[i], &e);
        if (e > a[0]) a[0] = e;
    }
    int64_t total = a[1];
    gv_dist_max_i64(a, 1);
    gv_dist_sum_i64(&total, 1);
    if (a[0] == INT32_MIN) return 1.0;
    int k = 0;
    while (k < 62 && ((int64_t)1 << k) <= total) k++;
    return ldexp(1.0, (int)a[0] + k - 52);
}

void gv_dist_snap(double *v, size_t n, double q)
{
    for (size_t i = 0; i < n; i++) v[i] = rint(v[i] / q) * q;
}

double gv_dist_sum_exact(const double *v, size_t n)
{
    double q = gv_dist_grid(v, n);
    int64_t s = 0;
    for (size_t i = 0; i < n; i++) s += (int64_t)rint(v[i] / q);
    gv_dist_sum_i64(&s, 1);
    return (double)s * q;
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
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        int *disp = cnt + g_size, at = 0;
        for (int r = 0; r < g_size; r++) {
            cnt[r] = (int)sizes[r];
            disp[r] = at;
            at += cnt[r];
        }
        MPI_Allgatherv(in, (int)n, MPI_BYTE, buf, cnt, disp, MPI_BYTE, MPI_COMM_WORLD);
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
        MPI_Exscan(&mine, &before, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(&mine, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
#endif
        if (g_rank == 0) before = 0; /* MPI_Exscan leaves rank 0's result undefined */
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
