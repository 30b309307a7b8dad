/*
 * dist.h -- the collectives that data-parallel training needs, over MPI or within one process.
 *
 * Pipeline position: dist/, right above core/ (so every later layer may reduce).
 * One communicator for the whole program: gv_dist_init() joins it when the process was started
 * by mpirun (Open MPI's OMPI_COMM_WORLD_SIZE, or PMI_SIZE / PMIX_RANK in the environment) and the
 * build has MPI (-DGROVE_MPI=ON); otherwise the program is rank 0 of 1 and every collective is
 * the identity (sum over one rank = the input; broadcast and gather = a copy).
 * Every collective must be called by all ranks in the same order with the same sizes.
 * Sums: gv_dist_sum_f64 adds the ranks' arrays element by element; the order of the additions is
 * MPI's (Open MPI's reduction tree), so for more than 2 ranks a double sum may depend on the
 * rank count by rounding -- callers that need exact sums reduce int64 (gv_dist_sum_i64) or gather
 * the parts (gv_dist_allgather) and add them in rank order themselves.
 * Bytes: every collective adds the bytes this rank sends to a counter (gv_dist_bytes_sent),
 * counted as the payload size times ceil(log2 size) (a tree/recursive-doubling schedule), so the
 * count is the cost model's communication term (docs/distributed.md), not a wire measurement.
 */
#ifndef GV_DIST_H
#define GV_DIST_H

#include "../core/core.h"

#include <stddef.h>
#include <stdint.h>

/* Joins the communicator when started by mpirun (idempotent); GROVE_ERR_INTERNAL if MPI fails. */
grove_status gv_dist_init(void);
/* Leaves it (MPI_Finalize); harmless when not joined. */
void gv_dist_finalize(void);
/* This process's rank (0-based) and the number of ranks (1 without MPI). */
int gv_dist_rank(void);
int gv_dist_size(void);
/* Whether the build has MPI at all; whether this process joined an MPI job (started by
 * mpirun, any number of ranks): training then takes the data-parallel path, whose sums are
 * exact (below), so that 1, 2, 3 ... ranks give byte-identical models. */
int gv_dist_have_mpi(void);
int gv_dist_active(void);

/* x[0..n) = the sum over ranks of each rank's x[0..n). */
void gv_dist_sum_f64(double *x, size_t n);
void gv_dist_sum_i64(int64_t *x, size_t n);
/* x[0..n) = the maximum over ranks. */
void gv_dist_max_i64(int64_t *x, size_t n);
/* buf[0..n) of rank `root` copied to every rank. */
void gv_dist_bcast(void *buf, size_t n, int root);
/* out[r * n .. (r + 1) * n) = rank r's in[0..n), on every rank (out holds size * n bytes). */
void gv_dist_allgather(const void *in, void *out, size_t n);

/* Exact sums (collective).  gv_dist_grid returns the grid q of v[0..n) over all ranks: the
 * smallest power of two with (total n over the ranks) x (largest |v_i| over the ranks) < 2^52 q
 * (1 when every v_i is 0).  Values rounded to multiples of q (gv_dist_snap: v = rint(v / q) q,
 * an error of at most q/2 ~ max|v| N 2^-53 each) have sums that are exact doubles in any order
 * and grouping, so totals do not depend on how the rows are split over ranks or threads.
 * gv_dist_sum_exact: the sum over all ranks of the snapped v[0..n).  A value that is not
 * finite on any rank makes the grid inf on every rank, gv_dist_snap leave v as it is and
 * gv_dist_sum_exact NaN (never an inf converted to an integer).  nt: threads for the pass over
 * v (the grid is a maximum and each value is rounded on its own: the same for any nt). */
double gv_dist_grid(const double *v, size_t n, int nt);
void gv_dist_snap(double *v, size_t n, double q, int nt);
double gv_dist_sum_exact(const double *v, size_t n);
/* The same grid and rounding for floats at v[0], v[stride], ... v[(n - 1) stride] (one
 * process's (g, h) pairs, gbdt.c): a float rounded to a grid q of floats stays a float (below
 * 2^24 q it is an integer of at most 24 bits times q; above, its own spacing is a multiple of
 * q), so snapped floats and the same values snapped as doubles are equal. */
double gv_dist_grid_f32(const float *v, size_t n, size_t stride, int nt);
void gv_dist_snap_f32(float *v, size_t n, size_t stride, double q, int nt);
/* The (g, h) pairs gh[2 i], gh[2 i + 1], i < n, each column on its own grid: what
 * gv_dist_snap_f32 of each column on its gv_dist_grid_f32 does (the same grids, collectives and
 * values), with one pass for both largest values and one for both roundings. */
void gv_dist_snap_pairs_f32(float *gh, size_t n, int nt);
/* Every rank's in[0..n) (n may differ by rank) concatenated in rank order, into *out (a new
 * gv_malloc'd buffer of *n_out bytes, freed with gv_free) on every rank (collective).  The
 * total must fit an int (MPI's counts): GROVE_ERR_DATA on every rank otherwise; out of
 * memory on any rank fails every rank (gv_dist_agree). */
grove_status gv_dist_allgatherv(const void *in, size_t n, void **out, size_t *n_out);

/* Exact weighted lower medians over the ranks, of K groups at once (collective).  Group k's
 * values on this rank are v[off[k] .. off[k + 1]), sorted ascending (no NaN), with cumulative
 * integer weights cw (cw[j] = the weights, >= 0, of v[off[k] .. j] summed).  med[k] becomes
 * the smallest value x of group k over all ranks with 2 W(<= x) >= W, W the group's total
 * weight over all ranks and W(<= x) that of its values <= x -- the value one process finds
 * walking the whole group in order until the running weight reaches half the total -- and
 * stays as it was when the group weighs 0 on every rank (a -0 comes back as +0).  A bisection
 * over the values' order-preserving 64-bit keys: at most 64 all-reduces of K int64 (plus 2),
 * each a binary search per group on every rank; the integer sums make it exact. */
void gv_dist_median_exact(const double *v, const int64_t *cw, const size_t *off, size_t K,
                          double *med);
/* The same for the weighted q-quantile, q in [0, 1]: the smallest x with W(<= x) >= q W (the
 * integer sums compared as doubles, exactly as one process compares its running weight with
 * q times the total); q = 1/2 is gv_dist_median_exact. */
void gv_dist_quantile_exact(const double *v, const int64_t *cw, const size_t *off, size_t K,
                            double q, double *med);

/* This rank's first row in the global order (the rows of lower ranks) and the total rows. */
void gv_dist_offsets(size_t n_local, size_t *first, size_t *total);

/* Agrees on failure: every rank passes its own status (its message in the thread's error
 * record).  Returns GROVE_OK on every rank if all passed GROVE_OK; otherwise every rank returns
 * the status of the lowest failing rank with its message, prefixed "rank R" when size > 1. */
grove_status gv_dist_agree(grove_status st);

/* The start of training round `round` (1-based; gbdt, boosting, each tree of a forest), where
 * the ranks agree (collective in a data-parallel run): GROVE_OK, or every rank returns the
 * lowest failing rank's status.  Test hook (docs/distributed.md): the environment variable
 * GROVE_DIST_FAIL=R:T makes rank R fail at round T with GROVE_ERR_DATA ("round T: failure
 * injected ..."), GROVE_DIST_FAIL=R:T:kill makes it die there by SIGKILL, GROVE_DIST_FAIL=R:T:stop
 * stops it there by SIGSTOP (the others then wait in the next collective: GROVE_DIST_TIMEOUT,
 * dist_module.h). */
grove_status gv_dist_round(size_t round);

/* Bytes this rank has sent through the collectives (see the header), and a reset. */
uint64_t gv_dist_bytes_sent(void);
void gv_dist_bytes_reset(void);

#endif
