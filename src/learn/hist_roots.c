/*
 * hist_roots.c -- the root histograms of K gradient trees in one pass over the rows (gbdt's
 * classes of a round): h_c,f[b] = sum over all rows r with bin(r, f) = b of (g_c,r, h_c,r),
 * for every class c at once.
 *
 * Pipeline position: learn/, the tree engine's builders (tree.h declares the entry points).
 */
#include "hist_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* ---- the root histograms of K gradient trees in one pass (gbdt's classes of a round) ----
 *
 * Each tree's root build (build_rows_grad on every row, in order) reads all of row_bins for
 * its one (g, h) a row; K classes read it K times, and each row adds to a feature's bin one
 * 128-bit (g, h).  Here a row's K pairs lie side by side (gh, 2K doubles padded to whole
 * vectors of four) and a block of features keeps, per bin, the K classes' pairs side by side
 * too: one read of the row's bytes, and per feature ceil(K / 2) 256-bit additions.  Each class's
 * bin is still the sum of its rows' g (h) in row order from 0 -- the very additions of the
 * tree's own root build -- and the counts are root_count, as there: the same doubles. */
#define ROOTS_BLOCK_BYTES ((size_t)512 << 10)
enum { ROOTS_BLOCK_MAX = 64 };

size_t gv_hist_len_grad(const gv_binned *X)
{
    size_t len = 0;
    for (size_t f = 0; f < X->n_features; f++) len += 3 * (size_t)X->mappers[f].n_bins;
    return len;
}

int gv_hist_roots_ok(const gv_binned *X, const uint8_t *row_bins, size_t K)
{
    return gv_plan_forced()->shared_roots != 0 && X && row_bins && X->bins8 && !X->wide && !X->csr_ptr && X->root_count && K >= 1 &&
           K <= 64 && X->n_rows > 0 && X->n_features > 0 &&
           X->n_features <= 1024 * (size_t)GRAD_BLOCK_MAX;
}

/* Rows [0, n) of features [f0, f1) into acc (V vectors a bin, bins of feature k from
 * acc + boff[k]); VV: V as a constant when it is one (unrolled), else V. */
#define ROOTS_LOOP(VV)                                                                             \
    for (size_t i = 0; i < n; i++) {                                                               \
        if (i + GRAD_PREFETCH < n) {                                                               \
            const uint8_t *pf_ = row_bins + (i + GRAD_PREFETCH) * F + f0;                          \
            __builtin_prefetch(pf_);                                                               \
            __builtin_prefetch(pf_ + (nk - 1));                                                    \
        }                                                                                          \
        const uint8_t *row = row_bins + i * F + f0;                                                \
        const gv_v4d *v = gh + i * (VV);                                                           \
        gv_v4d vr[8];                                                                              \
        _Pragma("GCC unroll 8") for (size_t j = 0; j < (VV); j++) vr[j] = v[j];                    \
        for (size_t k = 0; k < nk; k++) {                                                          \
            gv_v4d *a = acc + boff[k] + (size_t)row[k] * (VV);                                     \
            _Pragma("GCC unroll 8") for (size_t j = 0; j < (VV); j++) a[j] += vr[j];               \
        }                                                                                          \
    }

#define ROOTS_LOOP_ANY                                                                             \
    for (size_t i = 0; i < n; i++) {                                                               \
        const uint8_t *row = row_bins + i * F + f0;                                                \
        const gv_v4d *v = gh + i * V;                                                              \
        for (size_t k = 0; k < nk; k++) {                                                          \
            gv_v4d *a = acc + boff[k] + (size_t)row[k] * V;                                        \
            for (size_t j = 0; j < V; j++) a[j] += v[j];                                           \
        }                                                                                          \
    }

GV_TARGET_CLONES
static void roots_block(const gv_binned *X, const uint8_t *row_bins, const gv_v4d *gh, size_t V,
                        size_t K, size_t f0, size_t f1, gv_v4d *acc, double *const *out)
{
    const size_t F = X->n_features, n = X->n_rows, nk = f1 - f0;
    size_t boff[ROOTS_BLOCK_MAX], total = 0;
    for (size_t k = 0; k < nk; k++) {
        boff[k] = total;
        total += (size_t)X->mappers[f0 + k].n_bins * V;
    }
    memset(acc, 0, total * sizeof *acc);
    switch (V) {
    case 1: ROOTS_LOOP(1) break;
    case 2: ROOTS_LOOP(2) break;
    case 3: ROOTS_LOOP(3) break;
    case 4: ROOTS_LOOP(4) break;
    case 5: ROOTS_LOOP(5) break;
    case 6: ROOTS_LOOP(6) break;
    case 7: ROOTS_LOOP(7) break;
    case 8: ROOTS_LOOP(8) break;
    default: ROOTS_LOOP_ANY break;
    }
    /* out: class c's records (count, g, h) of feature f at its histogram offset */
    size_t off = 0;
    for (size_t f = 0; f < f0; f++) off += 3 * (size_t)X->mappers[f].n_bins;
    for (size_t k = 0; k < nk; k++) {
        const size_t f = f0 + k, nb = (size_t)X->mappers[f].n_bins;
        const double *cnt = X->root_count + X->root_count_off[f];
        const double *src = (const double *)(const void *)(acc + boff[k]);
        for (size_t c = 0; c < K; c++) {
            double *d = out[c] + off;
            for (size_t b = 0; b < nb; b++) {
                d[3 * b] = cnt[b];
                d[3 * b + 1] = src[4 * V * b + 2 * c];
                d[3 * b + 2] = src[4 * V * b + 2 * c + 1];
            }
        }
        off += 3 * nb;
    }
}
#undef ROOTS_LOOP
#undef ROOTS_LOOP_ANY

grove_status gv_hist_roots_grad(const gv_binned *X, const uint8_t *row_bins, const double *grad,
                                const double *hess, size_t K, int n_threads,
                                gv_tree_scratch *ws, double *const *out)
{
    if (!gv_hist_roots_ok(X, row_bins, K))
        return gv_err(GROVE_ERR_ARG, "gv_hist_roots_grad: not a dense 8-bit matrix with root counts");
    const size_t n = X->n_rows, F = X->n_features, V = (2 * K + 3) / 4;
    const int nt = n_threads > 1 ? n_threads : 1;
    /* feature blocks: each within ROOTS_BLOCK_BYTES (one feature at least) and
     * ROOTS_BLOCK_MAX features */
    size_t *bounds = gv_malloc_array(F + 1, sizeof *bounds);
    if (!bounds) return gv_err_nomem("root histograms");
    size_t nbk = 0, widest = 0;
    for (size_t f = 0; f < F;) {
        size_t bytes = 0, f1 = f;
        while (f1 < F && f1 - f < ROOTS_BLOCK_MAX) {
            size_t b = (size_t)X->mappers[f1].n_bins * V * sizeof(gv_v4d);
            if (f1 > f && bytes + b > ROOTS_BLOCK_BYTES) break;
            bytes += b;
            f1++;
        }
        if (bytes > widest) widest = bytes;
        bounds[nbk++] = f;
        f = f1;
    }
    bounds[nbk] = F;
    /* the work memory: gh [n V] and each thread's block [acc_len] (vectors), kept in ws */
    const size_t acc_len = widest / sizeof(gv_v4d) + 1, need = n * V + (size_t)nt * acc_len + 1;
    void *mem = ws ? ws->roots_mem : NULL;
    if (!ws || ws->cap_roots < need) {
        if (ws) {
            gv_free(ws->roots_mem);
            ws->roots_mem = NULL;
            ws->cap_roots = 0;
        }
        mem = gv_malloc_huge_array(need, sizeof(gv_v4d));
        if (!mem) {
            gv_free(bounds);
            return gv_err_nomem("root histograms");
        }
        if (ws) {
            ws->roots_mem = mem;
            ws->cap_roots = need;
        }
    }
    gv_v4d *gh = (gv_v4d *)(((uintptr_t)mem + 31) & ~(uintptr_t)31);
    /* the rows' (g, h) of every class side by side */
    const long nl = (long)n;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && n >= PARALLEL_MIN_WORK / 8)
#endif
    for (long il = 0; il < nl; il++) {
        const size_t i = (size_t)il;
        double *d = (double *)(void *)(gh + i * V);
        for (size_t c = 0; c < K; c++) {
            d[2 * c] = grad[c * n + i];
            d[2 * c + 1] = hess[c * n + i];
        }
        for (size_t j = 2 * K; j < 4 * V; j++) d[j] = 0.0;
    }
    const long nbl = (long)nbk;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1 && nbk > 1)
#endif
    for (long b = 0; b < nbl; b++) {
#ifdef _OPENMP
        const size_t tid = (size_t)omp_get_thread_num();
#else
        const size_t tid = 0;
#endif
        roots_block(X, row_bins, gh, V, K, bounds[b], bounds[b + 1], gh + n * V + tid * acc_len,
                    out);
    }
    gv_free(bounds);
    if (!ws) gv_free(mem);
    return GROVE_OK;
}
