/*
 * hist_int.h -- private to the tree engine's histogram builders (hist.c, hist_sparse.c,
 * hist_roots.c): the vector types of the gradient records, a position's (g, h) read, the
 * row-major blocks' bounds, and the builds compiled twice (AVX2 and baseline).
 */
#ifndef GV_HIST_INT_H
#define GV_HIST_INT_H

#include "tree_int.h"

/* Nodes smaller than this many row-feature visits are built by the calling thread alone: about
 * 10 us of additions, against a parallel region's microsecond while libgomp's threads spin
 * (split.c's SPLIT_PAR_MIN_WORK).  From 65,536: best-first growth, 2 threads, 2-5 % faster
 * (100k x 50 and x 10, 7 classes); depth 6 and forests unchanged. */
#define PARALLEL_MIN_WORK 16384

/* GRAD statistics: a bin record is (count, g, h), three doubles (24 bytes: a fourth, padding
 * double made each addition one 256-bit vector operation but every pass over the histograms --
 * zeroing, subtraction, the split scan -- a third longer); adding a row to a bin is a scalar
 * addition of 1 and one 128-bit addition of (g, h).  The vector type aliases the doubles. */
typedef double gv_v2d __attribute__((vector_size(16), aligned(8), may_alias));
typedef float gv_v2f __attribute__((vector_size(8), aligned(4), may_alias));
#define V2D_AT(p) (*(gv_v2d *)(p))
/* Position i's (g, h) as doubles: from gv_gh floats (f32, gv_ns_f32) or from doubles; f32 a
 * constant in each caller (F32: each builder's own loops). */
static inline __attribute__((always_inline)) gv_v2d ns_row(const double *ns, const int f32,
                                                          size_t i)
{
    if (f32) {
        const gv_gh *p = (const gv_gh *)(const void *)ns + i;
        return __builtin_convertvector(*(const gv_v2f *)(const void *)p, gv_v2d);
    }
    return (gv_v2d){ns[2 * i], ns[2 * i + 1]};
}

/* Row-major GRAD (gv_tree_input.row_bins): the features feats[k0, k1) of each row are one
 * contiguous read, and each row adds its (1, g, h, 0) to every feature's histogram in turn
 * (unrolled by four: independent additions in flight; measured 1.2x over the plain loop); the
 * block's histograms stay in cache (GRAD_BLOCK_BYTES).  Each feature is still summed in row
 * order, by one thread, whatever the blocks are: the same sums for any number of threads. */
enum { GRAD_BLOCK_MAX = 64, GRAD_PREFETCH = 16, GRAD_PREFETCH_FAR = 48 };

/* Built twice, for AVX2 (one 256-bit addition per row and feature) and for the baseline; the
 * loader picks by the CPU.  Both add the same doubles in the same order. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(GROVE_NO_CLONES)
#define GV_TARGET_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define GV_TARGET_CLONES
#endif

typedef double gv_v4d __attribute__((vector_size(32), aligned(32), may_alias));

#endif /* GV_HIST_INT_H */
