/* The versioned random number generator of docs/rules.md §2.  Changing anything
 * here changes every seeded deck: bump SG_RNG_VERSION if you must. */
#include "skitgubbe.h"

#define GOLDEN UINT64_C(0x9E3779B97F4A7C15)

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

void sg_rng_seed(sg_rng *rng, uint64_t seed)
{
    uint64_t state = seed;
    for (int i = 0; i < 4; i++) {
        state += GOLDEN;
        rng->s[i] = mix64(state);
    }
}

uint64_t sg_rng_next(sg_rng *rng)
{
    uint64_t *s = rng->s;
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint32_t sg_rng_below(sg_rng *rng, uint32_t bound)
{
    uint32_t x = (uint32_t)(sg_rng_next(rng) >> 32);
    uint64_t m = (uint64_t)x * bound;
    uint32_t low = (uint32_t)m;
    if (low < bound) {
        /* 2^32 mod bound: the number of low values that would bias the draw. */
        const uint32_t threshold = (uint32_t)(0u - bound) % bound;
        while (low < threshold) {
            x = (uint32_t)(sg_rng_next(rng) >> 32);
            m = (uint64_t)x * bound;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

void sg_shuffle(sg_rng *rng, uint8_t deck[SG_NCARDS])
{
    int n = 0;
    for (int suit = 0; suit < 4; suit++)
        for (int rank = 0; rank < 13; rank++)
            deck[n++] = SG_CARD(suit, rank);
    for (uint32_t i = SG_NCARDS - 1; i > 0; i--) {
        const uint32_t j = sg_rng_below(rng, i + 1);
        const uint8_t tmp = deck[i];
        deck[i] = deck[j];
        deck[j] = tmp;
    }
}

void sg_deck_from_seed(uint64_t seed, uint8_t deck[SG_NCARDS])
{
    sg_rng rng;
    sg_rng_seed(&rng, seed);
    sg_shuffle(&rng, deck);
}

uint64_t sg_game_seed(uint64_t seed, uint64_t index)
{
    return mix64(seed + (index + 1) * GOLDEN);
}
