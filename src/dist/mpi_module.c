/*
 * mpi_module.c -- libgrove-mpi.so: the collectives of dist.c over MPI (the only file that
 * includes mpi.h).  Loaded by dist.c with dlopen when the process was started by an MPI
 * launcher; see dist_module.h for the interface and the timeout.
 *
 * Waiting with a timeout: a nonblocking collective (MPI-3) polled with MPI_Test, spinning for
 * the first ~50 microseconds (the small all-reduces of a split search complete in that time),
 * then sleeping 10 us, doubling up to 1 ms between tests, so that a rank waiting for a slow one
 * costs little CPU and a collective's latency grows by at most ~1 ms.
 */
#include "dist_module.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double g_timeout; /* seconds; 0: blocking collectives */
static int g_rank;
static int g_joined;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Completes *req within g_timeout seconds, or ends the job naming the collective. */
static void wait_for(MPI_Request *req, const char *what)
{
    double start = now();
    long pause_ns = 0;
    for (;;) {
        int done = 0;
        MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (done) return;
        double t = now() - start;
        if (t > g_timeout) {
            fprintf(stderr,
                    "grove: rank %d: %s waited %.0f s for the other ranks (GROVE_DIST_TIMEOUT=%g): "
                    "a rank is stopped, lost or far behind; ending the job\n",
                    g_rank, what, t, g_timeout);
            fflush(stderr);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        if (t < 50e-6) continue;
        pause_ns = pause_ns ? (pause_ns < 1000000 ? 2 * pause_ns : 1000000) : 10000;
        struct timespec ts = {0, pause_ns};
        nanosleep(&ts, NULL);
    }
}

static int init(double timeout_s, int *rank, int *size, char *err, size_t n_err)
{
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited) {
        int provided = 0;
        if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
            snprintf(err, n_err, "MPI_Init failed");
            return -1;
        }
    }
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    g_rank = *rank;
    g_timeout = timeout_s > 0 ? timeout_s : 0;
    g_joined = 1;
    return 0;
}

static void finalize(void)
{
    if (!g_joined) return;
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin) MPI_Finalize();
    g_joined = 0;
}

static void allreduce(void *x, int n, MPI_Datatype type, MPI_Op op, const char *what)
{
    if (g_timeout <= 0) {
        MPI_Allreduce(MPI_IN_PLACE, x, n, type, op, MPI_COMM_WORLD);
        return;
    }
    MPI_Request req;
    MPI_Iallreduce(MPI_IN_PLACE, x, n, type, op, MPI_COMM_WORLD, &req);
    wait_for(&req, what);
}

static void sum_f64(double *x, int n) { allreduce(x, n, MPI_DOUBLE, MPI_SUM, "a sum"); }
static void sum_i64(int64_t *x, int n) { allreduce(x, n, MPI_INT64_T, MPI_SUM, "a sum"); }
static void max_i64(int64_t *x, int n) { allreduce(x, n, MPI_INT64_T, MPI_MAX, "a maximum"); }

static void bcast(void *buf, int n, int root)
{
    if (g_timeout <= 0) {
        MPI_Bcast(buf, n, MPI_BYTE, root, MPI_COMM_WORLD);
        return;
    }
    MPI_Request req;
    MPI_Ibcast(buf, n, MPI_BYTE, root, MPI_COMM_WORLD, &req);
    wait_for(&req, "a broadcast");
}

static void allgather(const void *in, void *out, int n)
{
    if (g_timeout <= 0) {
        MPI_Allgather(in, n, MPI_BYTE, out, n, MPI_BYTE, MPI_COMM_WORLD);
        return;
    }
    MPI_Request req;
    MPI_Iallgather(in, n, MPI_BYTE, out, n, MPI_BYTE, MPI_COMM_WORLD, &req);
    wait_for(&req, "an all-gather");
}

static void allgatherv(const void *in, int n, void *out, const int *cnt, const int *disp)
{
    if (g_timeout <= 0) {
        MPI_Allgatherv(in, n, MPI_BYTE, out, cnt, disp, MPI_BYTE, MPI_COMM_WORLD);
        return;
    }
    MPI_Request req;
    MPI_Iallgatherv(in, n, MPI_BYTE, out, cnt, disp, MPI_BYTE, MPI_COMM_WORLD, &req);
    wait_for(&req, "an all-gather");
}

static int64_t exscan_i64(int64_t x)
{
    int64_t before = 0;
    if (g_timeout <= 0) {
        MPI_Exscan(&x, &before, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    } else {
        MPI_Request req;
        MPI_Iexscan(&x, &before, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD, &req);
        wait_for(&req, "a prefix sum");
    }
    return g_rank == 0 ? 0 : before; /* MPI_Exscan leaves rank 0's result undefined */
}

static void abort_job(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

static const struct gv_dist_module g_module = {
    GV_DIST_MODULE_ABI, init,   finalize,   sum_f64,    sum_i64, max_i64,
    bcast,              allgather, allgatherv, exscan_i64, abort_job,
};

/* The module's one entry point (dist_module.h). */
__attribute__((visibility("default"))) const struct gv_dist_module *gv_dist_module(void);
const struct gv_dist_module *gv_dist_module(void) { return &g_module; }
