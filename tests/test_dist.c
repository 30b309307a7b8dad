/*
 * test_dist.c -- the collectives of src/dist/ against closed forms.  Run alone it is rank 0 of 1
 * (every collective the identity); ctest also runs it under mpirun with 2 and 3 ranks (label
 * "mpi", built with -DGROVE_MPI=ON), where rank r contributes values built from r so that every
 * result has a closed form: sum_r (r + 1) k = k N (N + 1) / 2, max_r ..., the gathered blocks
 * are the ranks' own, and a failure on some ranks becomes the lowest failing rank's on all;
 * the variable all-gather and the exact weighted medians of 4 groups.
 */
#include "check.h"
#include "dist/dist.h"

#include <stdint.h>
#include <string.h>

int main(void)
{
    CHECK_OK(grove_dist_init());
    int r = gv_dist_rank(), N = gv_dist_size();
    CHECK(N >= 1 && r >= 0 && r < N);

    /* sums: x_k = (r + 1) k + 0.5 -> sum = k N (N + 1) / 2 + N / 2, exact in double */
    double x[1000];
    int64_t y[1000];
    for (int k = 0; k < 1000; k++) {
        x[k] = (double)(r + 1) * k + 0.5;
        y[k] = (int64_t)(r + 1) * ((int64_t)1 << 40) + k;
    }
    gv_dist_bytes_reset();
    gv_dist_sum_f64(x, 1000);
    gv_dist_sum_i64(y, 1000);
    int bad = 0;
    for (int k = 0; k < 1000; k++) {
        bad += x[k] != (double)k * N * (N + 1) / 2 + 0.5 * N;
        bad += y[k] != ((int64_t)1 << 40) * N * (N + 1) / 2 + (int64_t)k * N;
    }
    CHECK_EQ_INT(bad, 0);
    /* bytes: 16000 payload bytes x ceil(log2 N) */
    int rounds = 0;
    while ((1 << rounds) < N) rounds++;
    CHECK_EQ_INT(gv_dist_bytes_sent(), 16000ull * (unsigned)rounds);

    /* max */
    int64_t m[2] = {r, -r};
    gv_dist_max_i64(m, 2);
    CHECK_EQ_INT(m[0], N - 1);
    CHECK_EQ_INT(m[1], 0);

    /* broadcast from the last rank */
    char buf[32];
    snprintf(buf, sizeof buf, "from rank %d", r);
    gv_dist_bcast(buf, sizeof buf, N - 1);
    char want[32];
    snprintf(want, sizeof want, "from rank %d", N - 1);
    CHECK_STR(buf, want);

    /* all-gather: block q holds q's record */
    int32_t mine[2] = {r, 10 * r}, all[2 * 8];
    CHECK(N <= 8);
    if (N <= 8) {
        gv_dist_allgather(mine, all, sizeof mine);
        for (int q = 0; q < N; q++) {
            CHECK_EQ_INT(all[2 * q], q);
            CHECK_EQ_INT(all[2 * q + 1], 10 * q);
        }
    }

    /* allgatherv: rank q contributes q + 1 bytes of value q */
    {
        unsigned char bytes[16];
        CHECK(N <= 15);
        for (int k = 0; k <= r; k++) bytes[k] = (unsigned char)r;
        void *got = NULL;
        size_t n = 0;
        CHECK_OK(gv_dist_allgatherv(bytes, (size_t)r + 1, &got, &n));
        CHECK_EQ_INT(n, (size_t)N * (N + 1) / 2);
        const unsigned char *a = got;
        for (int q = 0, at = 0; q < N; q++)
            for (int k = 0; k <= q; k++, at++) CHECK_EQ_INT(a[at], q);
        gv_free(got);
    }

    /* exact weighted medians of 4 groups: 0: rank q holds q, q + N, q + 2N (weight 1 each):
     * the values 0 .. 3N-1, lower median ceil(3N / 2) - 1; 1: empty everywhere (stays 42);
     * 2: only rank 0, -2.5, -0 (-> +0), 7 with weights 1, 1, 5: 7; 3: rank q holds -(q + 1)
     * with weight q + 1: the smallest -m with 2 (sum of q + 1 over q >= m - 1) >= N (N + 1) / 2 */
    {
        double v[8]; /* rank 0: 3 + 3 + 1 values */
        int64_t cw[8];
        size_t off[5], n = 0;
        off[0] = 0;
        for (int k = 0; k < 3; k++, n++) {
            v[n] = r + k * N;
            cw[n] = k + 1;
        }
        off[1] = off[2] = n;
        if (r == 0) {
            v[n] = -2.5, cw[n++] = 1;
            v[n] = -0.0, cw[n++] = 2;
            v[n] = 7, cw[n++] = 7;
        }
        off[3] = n;
        v[n] = -(r + 1), cw[n++] = r + 1;
        off[4] = n;
        double med[4] = {-1, 42, -1, -1};
        gv_dist_median_exact(v, cw, off, 4, med);
        CHECK(med[0] == (3 * N + 1) / 2 - 1);
        CHECK(med[1] == 42);
        CHECK(med[2] == 7);
        int64_t W = (int64_t)N * (N + 1) / 2, above = 0;
        int expect = 0;
        for (int j = N; j >= 1; j--) { /* values -N .. -1 ascending: W(<= -m) = sum_{q >= m-1} */
            above += j;
            if (2 * above >= W) {
                expect = -j;
                break;
            }
        }
        CHECK(med[3] == expect);
    }

    /* exact sums of subnormals: the grid stops at 2^-1074 (every double a whole multiple of it),
     * so the sum is exact and finite: N ranks of {3, -1, 5} x 2^-1074 -> 7 N x 2^-1074 */
    {
        const double t = 0x1p-1074;
        double s[3] = {3 * t, -t, 5 * t};
        CHECK(gv_dist_grid(s, 3, 1) == t);
        CHECK(gv_dist_sum_exact(s, 3) == 7.0 * N * t);
        double u[2] = {1e-320, 1e-315}; /* a subnormal maximum: the grid below it is 2^-1074 too */
        CHECK(gv_dist_sum_exact(u, 2) == (1e-320 + 1e-315) * N);
    }

    /* the (g, h) pairs snapped together equal each column snapped on its own grid */
    {
        enum { P = 1000 };
        static float a[2 * P], b[2 * P];
        for (int i = 0; i < P; i++) {
            a[2 * i] = b[2 * i] = (float)((i * 7919 % 2003) - 1001) / 37.0f;
            a[2 * i + 1] = b[2 * i + 1] = (float)(i % 13) * 0.0625f + 1e-3f * (float)r;
        }
        gv_dist_snap_f32(a, P, 2, gv_dist_grid_f32(a, P, 2, 1), 1);
        gv_dist_snap_f32(a + 1, P, 2, gv_dist_grid_f32(a + 1, P, 2, 1), 1);
        gv_dist_snap_pairs_f32(b, P, 1);
        CHECK(memcmp(a, b, sizeof a) == 0);
    }

    /* agree: all OK -> OK */
    CHECK_OK(gv_dist_agree(GROVE_OK));
    /* ranks >= N/2 fail with their own status and message; all end with the lowest failing
     * rank's (rank N/2), named when N > 1 */
    grove_status st = GROVE_OK;
    if (r >= N / 2) st = gv_err(r == N / 2 ? GROVE_ERR_PARSE : GROVE_ERR_IO, "shard %d: line %d", r, 7 + r);
    st = gv_dist_agree(st);
    CHECK_EQ_INT(st, GROVE_ERR_PARSE);
    char msg[64];
    if (N > 1)
        snprintf(msg, sizeof msg, "rank %d: shard %d: line %d", N / 2, N / 2, 7 + N / 2);
    else
        snprintf(msg, sizeof msg, "shard 0: line 7");
    CHECK_STR(grove_last_error(), msg);

    grove_dist_finalize();
    TEST_MAIN_END();
}
