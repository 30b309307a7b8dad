/*
 * dtoa.c -- a double as the shortest decimal text that reads back to it (every CSV writer,
 * training logs, label text; the model file's reals keep their %.17g bytes, see core/json.c).
 *
 * Algorithm: Schubfach, R. Giulietti, "The Schubfach way to render doubles" (2020; the
 * algorithm behind Java 19's Double.toString).  A finite v > 0 is c * 2^q with an integer
 * significand c.  Every real in its rounding interval
 *     R_v = [ cbl * 2^(q-2), cbr * 2^(q-2) ],   cb = 4c, cbr = cb + 2,
 *     cbl = cb - 2 (or cb - 1 when c = 2^52 is the smallest significand of a binade above the
 *     subnormals: the gap below is half the gap above),
 * closed when c is even (round-half-even reads it back to v), open when c is odd, reads back to
 * v, so the answer is the decimal d * 10^e in R_v with the fewest digits, the closest to v among
 * those, the even one on a tie.  With
 *     k = floor(log10(2^q))   (floor(log10(3/4 * 2^q)) in the asymmetric case),
 * R_v is narrower than 10^(k+1) yet at least 10^k wide, so it holds at most one multiple of
 * 10^(k+1) (a candidate one digit shorter) and at least one of s*10^k, (s+1)*10^k with
 * s = floor(v / 10^k); the answer is among these four (Giulietti, sections 8-9).
 *
 * Scaling by 10^-k exactly enough: g = floor(10^-k * 2^r) + 1 with r chosen so that
 * 2^125 <= g < 2^126 (the table below, built once from exact big integers: no printed
 * constants), and
 *     rop(x) = floor(g * x / 2^127) with its lowest bit OR-ed with "inexact" (round to odd),
 * applied to x = cb << h, h = q + floor(-k * log2(10)) + 2, gives vb with vb / 4 ~ v * 10^-k.
 * Round-to-odd keeps every comparison of vb, vbl, vbr with 4*s, 4*(s+1), ... exact (section
 * 10).  One case needs care: for 1 <= k <= 23 the table's g is inexact while x * 2^q * 10^-k
 * can still be an integer N (5^k divides x); round-to-odd then gives N + 1, which reads as
 * "above N", so a bound landing exactly on a candidate would be misjudged (found by the random
 * test: 76807129089116592 + 8 = 76807129089116600 is the open upper bound).  Those N are
 * detected exactly (x mod 5^k) and corrected.  The three floor-of-log integer
 * formulas (multiply and shift) are checked exactly over the whole exponent range in
 * tests/test_dtoa.c.
 *
 * Layout (the text printf's "%.{n}g" gives for the n shortest digits): integers below 10^15
 * in plain decimal ("150", "-0"); otherwise plain notation when the decimal exponent X of the
 * first digit is in [-4, n), else d.ddde+XX (at least two exponent digits); "nan", "inf",
 * "-inf".  The result never depends on the locale.
 */
#include "core.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#define Q_MIN (-1074)   /* the exponent q of the subnormals: v = c * 2^-1074 */
#define C_MIN (1ULL << 52)
#define E_LOW (-292)    /* the table holds g for 10^e, e = -k in [E_LOW, E_HIGH] */
#define E_HIGH 324
#define N_G (E_HIGH - E_LOW + 1)

typedef struct {
    uint64_t hi, lo; /* g = hi * 2^64 + lo, 2^125 <= g < 2^126 */
} g128;

static g128 g_table[N_G];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

/* floor(a / 2^s) for s >= 0 on the integer a (the C operator rounds toward zero, or is
 * implementation-defined, for negative a). */
static int floor_shift(int64_t a, int s) { return (int)(a >= 0 ? a >> s : -((-a + ((1LL << s) - 1)) >> s)); }

/* floor(q * log10(2)) for |q| <= 2^12 (661971961083 / 2^41 approximates log10(2)) */
static int flog10pow2(int q) { return floor_shift((int64_t)q * 661971961083LL, 41); }
/* floor(log10(3/4 * 2^q)) for |q| <= 2^12 */
static int flog10threequarterspow2(int q) { return floor_shift((int64_t)q * 661971961083LL - 274743187321LL, 41); }
/* floor(e * log2(10)) for |e| <= 2^10 */
static int flog2pow10(int e) { return floor_shift((int64_t)e * 913124641741LL, 38); }

/* ---- building the table: big integers as 32-bit limbs, least significant first ---- */
#define LIMBS 40 /* 1280 bits: 10^324 < 2^1077, 2^1100 */

/* bits [s, s + 128) of the big integer b (bits below 0 read as 0): floor(b / 2^s) mod 2^128 */
static g128 big_bits(const uint32_t *b, int s)
{
    uint32_t w[4];
    for (int i = 0; i < 4; i++) {
        int pos = s + 32 * i; /* the lowest bit of word i */
        uint64_t v = 0;
        for (int j = 0; j < 2; j++) { /* two limbs cover any 32-bit window */
            int limb = (int)floor((double)pos / 32) + j;
            if (limb < 0 || limb >= LIMBS) continue;
            int off = limb * 32 - pos; /* where the limb's bit 0 lands in the window */
            uint64_t x = b[limb];
            v |= off >= 0 ? x << off : x >> -off;
        }
        w[i] = (uint32_t)v;
    }
    g128 g = {((uint64_t)w[3] << 32) | w[2], ((uint64_t)w[1] << 32) | w[0]};
    return g;
}

static void g_table_build(void)
{
    uint32_t b[LIMBS];
    /* e >= 0: b = 10^e exactly; g = ceil(10^e * 2^(125 - floor(e log2 10))), exact while the
     * bits shifted out are zero (e <= 55): an exact g keeps exact ties and bounds exact */
    memset(b, 0, sizeof b);
    b[0] = 1;
    for (int e = 0; e <= E_HIGH; e++) {
        int shift = flog2pow10(e) - 125;
        g128 g = big_bits(b, shift);
        int inexact = 0;
        for (int i = 0; i < shift; i++) inexact |= (b[i / 32] >> (i % 32)) & 1;
        if (inexact && !++g.lo) g.hi++;
        g_table[e - E_LOW] = g;
        uint64_t carry = 0;
        for (int i = 0; i < LIMBS; i++) {
            uint64_t x = (uint64_t)b[i] * 10 + carry;
            b[i] = (uint32_t)x;
            carry = x >> 32;
        }
    }
    /* e < 0: b = floor(2^1100 / 10^-e) (exact floors compose); g = floor(b / 2^(1100 - s)) + 1
     * with s = 125 - floor(e log2 10): never exact (5^-e does not divide a power of 2) */
    memset(b, 0, sizeof b);
    b[1100 / 32] = 1u << (1100 % 32);
    for (int e = -1; e >= E_LOW; e--) {
        uint64_t rem = 0;
        for (int i = LIMBS - 1; i >= 0; i--) {
            uint64_t x = (rem << 32) | b[i];
            b[i] = (uint32_t)(x / 10);
            rem = x % 10;
        }
        g128 g = big_bits(b, 1100 - (125 - flog2pow10(e)));
        g.lo++;
        if (!g.lo) g.hi++;
        g_table[e - E_LOW] = g;
    }
}

/* ---- the algorithm ---- */

/* (hi, lo) = a * b */
static inline void mul64(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
#ifdef __SIZEOF_INT128__
    unsigned __int128 p = (unsigned __int128)a * b;
    *hi = (uint64_t)(p >> 64);
    *lo = (uint64_t)p;
#else
    uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    *lo = (mid << 32) | (uint32_t)p00;
#endif
}

/* floor(g * x / 2^127), rounded to odd: g * x < 2^190, so the result is below 2^63 */
static inline uint64_t rop(const g128 *g, uint64_t x)
{
    uint64_t h1, l1, h0, l0;
    mul64(g->hi, x, &h1, &l1); /* g.hi * x = h1:l1, times 2^64 */
    mul64(g->lo, x, &h0, &l0); /* g.lo * x = h0:l0 */
    /* g*x = (h1:l1 + h0) * 2^64 + l0; mid = h1:l1 + h0 */
    uint64_t mid_lo = l1 + h0, mid_hi = h1 + (mid_lo < l1);
    uint64_t q = (mid_hi << 1) | (mid_lo >> 63); /* mid / 2^63 */
    uint64_t inexact = ((mid_lo & 0x7fffffffffffffffULL) | l0) != 0;
    return q | inexact;
}

static const uint64_t pow5[24] = {1ULL, 5ULL, 25ULL, 125ULL, 625ULL, 3125ULL, 15625ULL, 78125ULL,
                                  390625ULL, 1953125ULL, 9765625ULL, 48828125ULL, 244140625ULL,
                                  1220703125ULL, 6103515625ULL, 30517578125ULL, 152587890625ULL,
                                  762939453125ULL, 3814697265625ULL, 19073486328125ULL,
                                  95367431640625ULL, 476837158203125ULL, 2384185791015625ULL,
                                  11920928955078125ULL};

/* The shortest decimal f * 10^e10 in v's rounding interval, v = c * 2^q > 0 (f may end in
 * zeros). */
static void shortest(int q, uint64_t c, uint64_t *f, int *e10)
{
    uint64_t out = c & 1; /* odd: the interval is open */
    uint64_t cb = c << 2, cbr = cb + 2, cbl;
    int k;
    if (c != C_MIN || q == Q_MIN) {
        cbl = cb - 2;
        k = flog10pow2(q);
    } else {
        cbl = cb - 1;
        k = flog10threequarterspow2(q);
    }
    int h = q + flog2pow10(-k) + 2;
    const g128 *g = &g_table[-k - E_LOW];
    uint64_t vb = rop(g, cb << h), vbl = rop(g, cbl << h), vbr = rop(g, cbr << h);
    if (k >= 1 && k <= 23) {
        /* g is inexact here (10^-k is not dyadic), so an exact value x * 2^q * 10^-k that is an
         * integer N (iff 5^k divides x; always even as q > k) comes out as N | 1 = N + 1 and
         * would look like a value above N: a bound landing exactly on a candidate.  Undo it. */
        uint64_t p5 = pow5[k];
        vb -= cb % p5 == 0;
        vbl -= cbl % p5 == 0;
        vbr -= cbr % p5 == 0;
    }
    uint64_t s = vb >> 2;
    {
        /* one digit shorter: the multiples of 10 around s (sp10 = 0 is never inside) */
        uint64_t sp10 = s / 10 * 10, tp10 = sp10 + 10;
        int upin = vbl + out <= sp10 << 2, wpin = (tp10 << 2) + out <= vbr;
        if (upin != wpin) {
            *f = upin ? sp10 : tp10;
            *e10 = k;
            return;
        }
    }
    uint64_t t = s + 1;
    int uin = vbl + out <= s << 2, win = (t << 2) + out <= vbr;
    if (uin != win) {
        *f = uin ? s : t;
        *e10 = k;
        return;
    }
    /* both in: the closer to v (vb / 4 against the midpoint (s + t) / 2), even on a tie */
    uint64_t mid = (s + t) << 1;
    *f = vb < mid || (vb == mid && !(s & 1)) ? s : t;
    *e10 = k;
}

static const char digit_pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                     "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                     "8081828384858687888990919293949596979899";

/* writes the decimal digits of u (u > 0 or "0") ending just before `end`; returns the start */
static char *write_digits(char *end, uint64_t u)
{
    while (u >= 100) {
        unsigned r = (unsigned)(u % 100);
        u /= 100;
        end -= 2;
        memcpy(end, digit_pairs + 2 * r, 2);
    }
    if (u >= 10) {
        end -= 2;
        memcpy(end, digit_pairs + 2 * u, 2);
    } else {
        *--end = (char)('0' + u);
    }
    return end;
}

/* %.17g of v as printf writes it (with '.' as the radix), for finite v with 1e-5 <= |v| < 1e16,
 * without printf's multi-precision arithmetic: v = m * 2^e (m < 2^53) times 10^k (k <= 22) is an
 * exact integer of 128 bits, whose quotient by 2^-e holds the 17 digits and whose remainder
 * rounds them (to nearest, ties to even, as glibc does).  Tested against glibc's snprintf on
 * 31 million doubles (random bits, log-uniform, powers of ten and their neighbours, ties,
 * ratios): no difference.  Writes out (at least 32 bytes) and returns the length, or 0 when v
 * is outside that range (left to printf).  (The model file's reals: core/json.c.) */
static unsigned __int128 pow10_u128(int k) /* 0 <= k <= 22 */
{
    static const uint64_t p[20] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
                                   10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
                                   100000000000ull, 1000000000000ull, 10000000000000ull,
                                   100000000000000ull, 1000000000000000ull,
                                   10000000000000000ull, 100000000000000000ull,
                                   1000000000000000000ull, 10000000000000000000ull};
    return k < 20 ? p[k] : (unsigned __int128)p[19] * p[k - 19];
}

size_t gv_format_17g(double v, char *out)
{
    double a = fabs(v);
    if (!(a >= 1e-5 && a < 1e16)) return 0;
    static const uint64_t P16 = 10000000000000000ull, P17 = 100000000000000000ull;
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int be = (int)((bits >> 52) & 0x7ff);
    uint64_t m = (bits & ((1ull << 52) - 1)) | (1ull << 52); /* normal: a >= 1e-5 */
    int e = be - 1075;                                       /* a = m * 2^e */
    int d = flog10pow2(e + 52);  /* floor(log10 a) or one less (a >= 2^(e+52)): fixed below */
    int k = 16 - d;
    uint64_t q = 0;
    int round_up = 0;
    for (int tries = 0; tries < 4; tries++) {
        if (k < 0 || k > 22) return 0;
        unsigned __int128 n = (unsigned __int128)m * pow10_u128(k);
        unsigned __int128 qq;
        round_up = 0;
        if (e >= 0) {
            qq = n << e;
        } else {
            int s = -e;
            if (s >= 127) return 0;
            qq = n >> s;
            unsigned __int128 r = n & (((unsigned __int128)1 << s) - 1);
            unsigned __int128 half = (unsigned __int128)1 << (s - 1);
            round_up = r > half || (r == half && (qq & 1));
        }
        if (qq >= P17) {
            k--;
            continue;
        }
        if (qq < P16) {
            k++;
            continue;
        }
        q = (uint64_t)qq;
        goto found;
    }
    return 0;
found:
    q += (uint64_t)round_up;
    if (q == P17) {
        q = P16;
        k--;
    }
    int x = 16 - k; /* the decimal exponent of the first digit */
    char dig[17];
    write_digits(dig + 17, q); /* exactly 17 digits: 10^16 <= q < 10^17 */
    int nd = 17;
    while (nd > 1 && dig[nd - 1] == '0') nd--; /* %g drops trailing zeros */
    size_t len = 0;
    if (v < 0) out[len++] = '-';
    if (x >= -4 && x < 17) {
        if (x >= 0) {
            for (int i = 0; i <= x; i++) out[len++] = dig[i]; /* nd <= 17, x <= 16 */
            if (nd > x + 1) {
                out[len++] = '.';
                for (int i = x + 1; i < nd; i++) out[len++] = dig[i];
            }
        } else {
            out[len++] = '0';
            out[len++] = '.';
            for (int i = 0; i < -x - 1; i++) out[len++] = '0';
            for (int i = 0; i < nd; i++) out[len++] = dig[i];
        }
    } else {
        out[len++] = dig[0];
        if (nd > 1) {
            out[len++] = '.';
            for (int i = 1; i < nd; i++) out[len++] = dig[i];
        }
        out[len++] = 'e';
        out[len++] = x < 0 ? '-' : '+';
        int ax = x < 0 ? -x : x;
        if (ax >= 100) out[len++] = (char)('0' + ax / 100);
        out[len++] = (char)('0' + ax / 10 % 10);
        out[len++] = (char)('0' + ax % 10);
    }
    return len;
}

size_t gv_format_double_len(double x, char *buf)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int neg = (int)(bits >> 63);
    unsigned bexp = (unsigned)(bits >> 52) & 0x7ff;
    uint64_t frac = bits & (C_MIN - 1);
    char *p = buf;
    if (bexp == 0x7ff) {
        const char *w = frac ? "nan" : neg ? "-inf" : "inf";
        size_t n = strlen(w);
        memcpy(buf, w, n + 1);
        return n;
    }
    if (neg) *p++ = '-';
    double a = fabs(x);
    if (a < 1e15 && a == (double)(int64_t)a) { /* integers: exactly their digits */
        char tmp[24];
        char *s = write_digits(tmp + sizeof tmp, (uint64_t)a);
        size_t n = (size_t)(tmp + sizeof tmp - s);
        memcpy(p, s, n);
        p[n] = '\0';
        return (size_t)(p + n - buf);
    }
    pthread_once(&g_once, g_table_build);
    uint64_t f;
    int e10;
    if (bexp == 0) {
        shortest(Q_MIN, frac, &f, &e10); /* subnormal: c = frac */
    } else {
        shortest((int)bexp - 1075, frac | C_MIN, &f, &e10);
    }
    while (f % 10 == 0) { /* f > 0: v > 0 lies in its interval, 0 does not */
        f /= 10;
        e10++;
    }
    char tmp[24];
    char *d = write_digits(tmp + sizeof tmp, f);
    int n = (int)(tmp + sizeof tmp - d);
    int X = e10 + n - 1; /* v = d.ddd * 10^X */
    if (X >= -4 && X < n) {
        if (X >= 0) { /* ddd.ddd */
            memcpy(p, d, (size_t)X + 1);
            p += X + 1;
            if (n > X + 1) {
                *p++ = '.';
                memcpy(p, d + X + 1, (size_t)(n - X - 1));
                p += n - X - 1;
            }
        } else { /* 0.000ddd */
            *p++ = '0';
            *p++ = '.';
            for (int i = 0; i < -X - 1; i++) *p++ = '0';
            memcpy(p, d, (size_t)n);
            p += n;
        }
    } else { /* d.ddde+XX */
        *p++ = d[0];
        if (n > 1) {
            *p++ = '.';
            memcpy(p, d + 1, (size_t)n - 1);
            p += n - 1;
        }
        *p++ = 'e';
        *p++ = X < 0 ? '-' : '+';
        unsigned ax = (unsigned)(X < 0 ? -X : X);
        if (ax >= 100) *p++ = (char)('0' + ax / 100);
        memcpy(p, digit_pairs + 2 * (ax % 100), 2);
        p += 2;
    }
    *p = '\0';
    return (size_t)(p - buf);
}

void gv_format_double(double x, char *buf) { (void)gv_format_double_len(x, buf); }

/* The three floor-of-log formulas, for tests/test_dtoa.c's exact check over their range. */
int gv_dtoa_flog(int which, int x)
{
    return which == 0 ? flog10pow2(x) : which == 1 ? flog10threequarterspow2(x) : flog2pow10(x);
}

size_t grove_format_double(double x, char *buf) { return buf ? gv_format_double_len(x, buf) : 0; }
