/*
 * dist_module.h -- the interface between dist.c and the MPI module, libgrove-mpi.so.
 *
 * Pipeline position: dist/ (needs nothing but the C library).
 * The MPI module is built when GROVE_MPI is on, as its own shared object linked with libmpi;
 * the library and the CLI are not.  dist.c loads the module with dlopen only when the process
 * was started by an MPI launcher, so a process outside `mpirun` never maps libmpi and its
 * libraries.  The module exports one function, gv_dist_module (GV_DIST_MODULE_SYMBOL), that
 * returns a table of the collectives with MPI's int counts; dist.c does the chunking, the byte
 * count and everything that is not a call into MPI.  GV_DIST_MODULE_ABI changes whenever the
 * table does: dist.c refuses a module of another version.
 *
 * Collectives wait for the other ranks.  With a timeout (GROVE_DIST_TIMEOUT, seconds; init's
 * argument), each one is started nonblocking and polled; when it has not completed after that
 * many seconds (a rank stopped, or far slower than the rest) the module prints which
 * collective, on which rank, and aborts the whole job (MPI_Abort): a collective cannot be
 * taken back, and the other ranks would wait in it forever.  Without one (0) it blocks.
 */
#ifndef GV_DIST_MODULE_H
#define GV_DIST_MODULE_H

#include <stddef.h>
#include <stdint.h>

#define GV_DIST_MODULE_ABI 1
#define GV_DIST_MODULE_SYMBOL "gv_dist_module"
#define GV_DIST_MODULE_FILE "libgrove-mpi.so"

struct gv_dist_module {
    int abi; /* GV_DIST_MODULE_ABI */
    /* MPI_Init_thread (funneled) unless already initialized; this rank and the size.  0 on
     * success, else -1 with a message in err[0..n_err).  timeout_s: see above (0: none). */
    int (*init)(double timeout_s, int *rank, int *size, char *err, size_t n_err);
    void (*finalize)(void);
    /* in place, over all ranks: the sum or maximum of each element */
    void (*sum_f64)(double *x, int n);
    void (*sum_i64)(int64_t *x, int n);
    void (*max_i64)(int64_t *x, int n);
    void (*bcast)(void *buf, int n, int root);
    /* bytes: every rank's in[0..n) into out[r n ..) */
    void (*allgather)(const void *in, void *out, int n);
    /* bytes: rank r's in[0..cnt[r]) into out[disp[r] ..) */
    void (*allgatherv)(const void *in, int n, void *out, const int *cnt, const int *disp);
    /* the sum of x over the lower ranks (0 on rank 0) */
    int64_t (*exscan_i64)(int64_t x);
    /* ends every rank of the job with this exit code */
    void (*abort_job)(int code);
};

typedef const struct gv_dist_module *(*gv_dist_module_fn)(void);

#endif
