/*
 * plan.c -- the one place that chooses a tree's code paths (plan.h).
 *
 * Pipeline position: learn/, private to the tree engine.  gv_tree_fit calls gv_plan_choose once
 * a tree's layouts are known (records, quantization, the rows the caller hands in); every other
 * file of the engine reads the choice from gv_engine.plan and decides nothing of its own but what
 * a node's rows and features allow (a subset of features, a node too small for threads).
 * Each rule below is about the data's shape and the machine, never a particular dataset: the
 * paths a plan chooses between give the same trees, so the rules only have to be fast.
 */
#include "tree_int.h"

#include <stdio.h>
#include <string.h>

/* Row-major GRAD builds add into 32-byte records (one 256-bit read-modify-write a row and
 * feature instead of the 24-byte record's two) unless rows often land in the same bin: then
 * consecutive rows chain each read-modify-write on the previous one's store, and the wide
 * records' chains are the slower.  The rule is on the data's chance that two rows share a bin
 * (gv_binned.bin_collision).  Measured (1 thread, depth 6, 2 MiB L2): evenly spread values
 * (collision ~1/255) 7-16 % faster with 32-byte records at 50-1,000 columns, histograms from 0.4
 * to 8 MB; pixel-like columns, half zeros (collision ~1/4), 22-27 % slower at 60-784 columns.
 * The size bound keeps the wide records off histograms larger than any measured. */
#define REC32_MAX_BYTES ((size_t)8 << 20)
#define REC32_MAX_COLLISION (1.0 / 16)

static gv_plan_force forced = GV_PLAN_FORCE_NONE;

void gv_plan_force_set(const gv_plan_force *force)
{
    static const gv_plan_force none = GV_PLAN_FORCE_NONE;
    forced = force ? *force : none;
}

const gv_plan_force *gv_plan_forced(void) { return &forced; }

/* a forced choice (0 or 1) where a test set one, else the rule */
static int pick(int force, int rule) { return force >= 0 ? force != 0 : rule != 0; }

/* The rules, on what a fit's shape gives (the fields of p before "the choices"), the rows'
 * layouts it has (pack: packed quantized words; row_nz: sparse rows; bundles: bundled rows) and
 * the forcing in effect; collision: the data's chance that two rows share a bin (gv_binned). */
static void plan_rules(gv_plan *p, int pack, int row_nz, int bundles, double collision)
{
    int avx2 = 0;
#if defined(__x86_64__) && defined(__GNUC__) && !defined(GROVE_NO_CLONES)
    avx2 = __builtin_cpu_supports("avx2") != 0;
#endif
    p->split_simd = avx2 && forced.split_simd != 0;
    p->rec32 = pick(forced.rec32, p->hist_bytes / 24 * 32 <= REC32_MAX_BYTES &&
                                      collision < REC32_MAX_COLLISION);
    p->pack = pack && p->row_major && forced.pack != 0;
    p->row_nz = p->quant && row_nz && forced.row_nz != 0;
    p->bundles = bundles && forced.bundles != 0;
    p->leaf_in_place = forced.leaf_in_place != 0;
    p->root_fuse = forced.root_fuse != 0;
}

void gv_plan_choose(gv_engine *e)
{
    const gv_tree_input *in = e->in;
    gv_plan *p = &e->plan;
    p->row_major = in->row_bins != NULL;
    p->quant = e->quant;
    p->threads = e->nt;
    p->hist_bytes = e->hist_len * sizeof(double);
    plan_rules(p, e->qpk != NULL, in->row_nz != NULL, in->bundles && in->row_bund,
               e->X->bin_collision);
}

void gv_plan_for_shape(size_t n_bins, int bins8, int quantized, int threads, gv_plan *p)
{
    memset(p, 0, sizeof *p);
    p->row_major = bins8;
    p->quant = quantized && bins8 ? 8 : 0;
    p->threads = threads;
    p->hist_bytes = 3 * n_bins * sizeof(double);
    plan_rules(p, 0, 0, 0, 0); /* (the data's bins unknown: as for evenly spread values) */
}

size_t gv_plan_describe(const gv_plan *p, char *buf, size_t n)
{
    int len = snprintf(buf, n,
                       "%s histograms (%s records, %.0f KiB a node), %d thread%s; split_simd=%d "
                       "rec32=%d pack=%d row_nz=%d bundles=%d leaf_in_place=%d root_fuse=%d",
                       p->row_major ? "row-major" : "column-wise",
                       p->quant == 8 ? "8-bit quantized" : p->quant == 16 ? "16-bit quantized"
                                                                          : "double",
                       (double)p->hist_bytes / 1024.0, p->threads, p->threads == 1 ? "" : "s",
                       p->split_simd, p->rec32, p->pack, p->row_nz, p->bundles, p->leaf_in_place,
                       p->root_fuse);
    return len < 0 ? 0 : (size_t)len;
}
