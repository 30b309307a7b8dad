/*
 * integral.c -- summed-area tables: the integral image (Viola & Jones 2001, sec. 2.1), its
 * squared counterpart for the window variance, and Lienhart & Maydt's (2002) rotated table.
 *
 * Pipeline position: vision/, under the features and the detector.
 *   sum[y][x]    = sum_{y' < y, x' < x} I(x', y')             (row recurrence: s = s_up + row)
 *   sq[y][x]     = the same over I^2, modulo 2^32
 *   tilted[Y][X] = sum_{y < Y, |x - X + 1| <= Y - 1 - y} I(x, y)   (an upward 45-degree cone)
 * The tilted table follows T(X,Y) = T(X-1,Y-1) + T(X+1,Y-1) - T(X,Y-2) + I(X-1,Y-1) + I(X-1,Y-2):
 * the two cones one row up cover the cone except the pixel below their overlap, and the overlap
 * is the cone two rows up.  Cones of X outside [0, w] still hold pixels of the image, so the
 * recurrence runs on rows padded by h + 1 columns each side (beyond that a cone is empty).
 */
#include "vision.h"

#include <string.h>

void gv_integral(const uint8_t *pix, int w, int h, int pstride, int32_t *sum, uint32_t *sq,
                 int32_t *tilted, int stride)
{
    memset(sum, 0, (size_t)(w + 1) * sizeof *sum);
    if (sq) memset(sq, 0, (size_t)(w + 1) * sizeof *sq);
    for (int y = 0; y < h; y++) {
        const uint8_t *row = pix + (size_t)y * pstride;
        const int32_t *su = sum + (size_t)y * stride;
        int32_t *sd = sum + (size_t)(y + 1) * stride;
        int32_t acc = 0;
        sd[0] = 0;
        if (sq) {
            const uint32_t *qu = sq + (size_t)y * stride;
            uint32_t *qd = sq + (size_t)(y + 1) * stride;
            uint32_t qacc = 0;
            qd[0] = 0;
            for (int x = 0; x < w; x++) {
                acc += row[x];
                qacc += (uint32_t)row[x] * row[x];
                sd[x + 1] = su[x + 1] + acc;
                qd[x + 1] = qu[x + 1] + qacc;
            }
        } else {
            for (int x = 0; x < w; x++) {
                acc += row[x];
                sd[x + 1] = su[x + 1] + acc;
            }
        }
    }
    if (!tilted) return;
    /* padded rows: X in [-(h+1), w+h+1]; three rolling rows (Y-2, Y-1, Y) */
    int pad = h + 1, pw = w + 2 * pad + 1;
    int32_t *buf = gv_calloc((size_t)pw * 3, sizeof *buf);
    if (!buf) { /* no memory: the slow definition, row by row, never fails */
        for (int Y = 0; Y <= h; Y++)
            for (int X = 0; X <= w; X++) {
                int32_t s = 0;
                for (int y = 0; y < Y; y++) {
                    int r = Y - 1 - y, lo = X - 1 - r, hi = X - 1 + r;
                    if (lo < 0) lo = 0;
                    if (hi > w - 1) hi = w - 1;
                    for (int x = lo; x <= hi; x++) s += pix[(size_t)y * pstride + x];
                }
                tilted[(size_t)Y * stride + X] = s;
            }
        return;
    }
    int32_t *rows[3] = {buf, buf + pw, buf + 2 * pw}; /* T(., Y-2), T(., Y-1), T(., Y) */
    memset(tilted, 0, (size_t)(w + 1) * sizeof *tilted);
    for (int Y = 1; Y <= h; Y++) {
        int32_t *t2 = rows[0], *t1 = rows[1], *t0 = rows[2];
        const uint8_t *i1 = pix + (size_t)(Y - 1) * pstride;
        const uint8_t *i2 = Y >= 2 ? pix + (size_t)(Y - 2) * pstride : NULL;
        for (int k = 0; k < pw; k++) {
            int X = k - pad;
            int32_t v = (k > 0 ? t1[k - 1] : 0) + (k + 1 < pw ? t1[k + 1] : 0) - (Y >= 2 ? t2[k] : 0);
            if (X >= 1 && X <= w) {
                v += i1[X - 1];
                if (i2) v += i2[X - 1];
            }
            t0[k] = v;
        }
        memcpy(tilted + (size_t)Y * stride, t0 + pad, (size_t)(w + 1) * sizeof *tilted);
        rows[0] = t1;
        rows[1] = t0;
        rows[2] = t2;
    }
    gv_free(buf);
}
