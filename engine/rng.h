/*
 * rng.h — a small, fast, seedable random number generator owned by its user.
 *
 * tessera has no global RNG: every bot, playout and match owns an eng_rng,
 * so the same seed always gives the same game. The generator is
 * xoshiro256** (Blackman & Vigna), seeded through splitmix64 so that any
 * 64-bit seed, including 0, gives a well-mixed state. Bounded integers use
 * Lemire's multiply-shift with rejection, which is exact (no modulo bias).
 */
#ifndef TESSERA_ENGINE_RNG_H
#define TESSERA_ENGINE_RNG_H

#include <stdint.h>

typedef struct eng_rng {
    uint64_t s[4]; /* private: generator state, never all zero */
} eng_rng;

static inline uint64_t eng_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Seed the generator; every seed value is valid. */
static inline void eng_rng_seed(eng_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = eng_splitmix64(&x);
}

static inline uint64_t eng_rng_next(eng_rng *r)
{
    uint64_t *s = r->s;
    uint64_t x = s[1] * 5;
    uint64_t result = ((x << 7) | (x >> 57)) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return result;
}

/* Uniform integer in [0, n); n must be > 0. */
static inline uint32_t eng_rng_below(eng_rng *r, uint32_t n)
{
    uint64_t m = (uint64_t)(uint32_t)(eng_rng_next(r) >> 32) * n;
    uint32_t lo = (uint32_t)m;
    if (lo < n) {
        uint32_t threshold = (uint32_t)(-n) % n;
        while (lo < threshold) {
            m = (uint64_t)(uint32_t)(eng_rng_next(r) >> 32) * n;
            lo = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

/* Uniform double in [0, 1). */
static inline double eng_rng_double(eng_rng *r)
{
    return (double)(eng_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Derive an independent generator for stream `k` of a seed (e.g. per game
 * of a match, per worker thread). */
static inline void eng_rng_seed_stream(eng_rng *r, uint64_t seed, uint64_t k)
{
    uint64_t x = seed ^ (0xd1b54a32d192ed03ULL * (k + 1));
    eng_rng_seed(r, eng_splitmix64(&x));
}

#endif
