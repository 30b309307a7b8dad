/*
 * rng.c -- deterministic random streams: xoshiro256** (Blackman & Vigna, 2018) seeded from
 * (seed, component, index) through splitmix64, so that every random choice in grove is a
 * function of the user's seed and of *which* object draws it, never of thread scheduling.
 */
#include "core.h"

#ifdef _OPENMP
#include <omp.h>
#endif

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void gv_rng_seed(gv_rng *rng, uint64_t seed, uint64_t component, uint64_t index)
{
    uint64_t x = seed;
    uint64_t mix = splitmix64(&x) ^ (component * 0xD1B54A32D192ED03ull);
    x = mix;
    mix = splitmix64(&x) ^ (index * 0xABC98388FB8FAC03ull);
    x = mix;
    for (int i = 0; i < 4; i++) rng->s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t gv_rng_next(gv_rng *rng)
{
    uint64_t *s = rng->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double gv_rng_uniform(gv_rng *rng) { return (double)(gv_rng_next(rng) >> 11) * 0x1.0p-53; }

/* Lemire's multiply-shift with rejection: unbiased in [0, n). */
uint64_t gv_rng_below(gv_rng *rng, uint64_t n)
{
    uint64_t x = gv_rng_next(rng);
    __uint128_t m = (__uint128_t)x * n;
    uint64_t low = (uint64_t)m;
    if (low < n) {
        uint64_t threshold = -n % n;
        while (low < threshold) {
            x = gv_rng_next(rng);
            m = (__uint128_t)x * n;
            low = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

void gv_rng_shuffle(gv_rng *rng, size_t *a, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)gv_rng_below(rng, i);
        size_t t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

int gv_threads(int requested)
{
#ifdef _OPENMP
    if (requested > 0) return requested;
    int n = omp_get_num_procs();
    return n > 0 ? n : 1;
#else
    (void)requested;
    return 1;
#endif
}
