/*
 * plan.h -- the tree engine's code paths, chosen once per tree (plan.c), and the one hook
 * through which tests force them.
 *
 * Pipeline position: learn/, private to the tree engine (tree.c, hist.c, split.c read a fit's
 * plan from gv_engine.plan) and to the tests that run every path.  Every path a plan can choose
 * gives the same tree: the alternatives sum the same numbers (exactly, or in the same order), so
 * the choice is a matter of speed only, and tests/test_tree.c and test_gbdt.c compare each
 * forced path with the default one byte for byte.
 */
#ifndef GV_PLAN_H
#define GV_PLAN_H

#include <stddef.h>

/* A tree's code paths (1: taken where the data allows; each field says what else it needs). */
typedef struct gv_plan {
    /* what the data and the fit give (recorded here so that the plan names everything a fit's
     * speed depends on; plan.c takes them as they are) */
    int row_major;     /* the bins row-major (gv_tree_input.row_bins): histograms read whole rows
                          in blocks of columns, else column by column */
    int quant;         /* histogram records of 8- or 16-bit quantized (g, h) sums, 0: doubles */
    int threads;       /* the fit's threads */
    size_t hist_bytes; /* one node's histogram */
    /* the choices */
    int split_simd;    /* the split search's AVX2 scans (the CPU has AVX2) */
    int rec32;         /* row-major GRAD builds add into 32-byte (count, g, h, 0) records while
                          building, else straight into the 24-byte histogram records */
    int pack;          /* quant 16 histograms summed in packed words (gv_engine.qpk) */
    int row_nz;        /* quantized builds of every feature read the sparse rows (row_nz) */
    int bundles;       /* row-major builds of every feature read the bundled rows (row_bund) */
    int leaf_in_place; /* a GRAD split whose children are leaves leaves its rows in place */
    int root_fuse;     /* a GRAD root's totals and row list are summed inside its build */
} gv_plan;

/* What tests force: each field -1 (the rule of plan.c, the default), 0 (never) or 1 (always,
 * where the data allows).  shared_roots: gbdt's softmax trees share one pass of root
 * histograms (gv_hist_roots_ok), 0 makes each tree build its own. */
typedef struct gv_plan_force {
    int split_simd, rec32, pack, row_nz, bundles, leaf_in_place, root_fuse, shared_roots;
} gv_plan_force;

/* Nothing forced: every field -1. */
#define GV_PLAN_FORCE_NONE {-1, -1, -1, -1, -1, -1, -1, -1}

/* Sets what later fits force (copied; NULL: every choice back to its rule).  Tests only: not
 * thread-safe against fits running at the same time. */
void gv_plan_force_set(const gv_plan_force *force);
/* The forcing in effect (all -1 unless a test set one). */
const gv_plan_force *gv_plan_forced(void);
/* The plan a fit would choose on dense rows of n_bins bins in all (each feature's bins plus its
 * missing bin), row-major where bins8 (every feature at most 256 bins), with quantized gradients
 * or not, on this CPU: what `grove info` shows for a model (quant then reads 8, the narrower of
 * the two record sizes a fit may take). */
void gv_plan_for_shape(size_t n_bins, int bins8, int quantized, int threads, gv_plan *p);
/* One line naming the plan's choices ("split_simd=1 rec32=0 ..."), into buf of n bytes (always
 * terminated); returns the length it needed, as snprintf. */
size_t gv_plan_describe(const gv_plan *plan, char *buf, size_t n);

#endif /* GV_PLAN_H */
