/* The versioned random number generator of docs/rules.md §2.  Changing anything
 * here changes every seeded deck: bump SG_RNG_VERSION if you must. */
#include "internal.h"

#define GOLDEN UINT64_C(0x9E3779B97F4A7C15)

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

void sg_rng_seed(sg_rng *rng, uint64_t seed)
{
    uint64_t state = seed;
    for (int i = 0; i < 4; i++) {
        state += GOLDEN;
        rng->s[i] = mix64(state);
    }
}

/* xoshiro256**; the body is in internal.h (sg_rng_next_inline), for the search. */
uint64_t sg_rng_next(sg_rng *rng)
{
    return sg_rng_next_inline(rng);
}

/* Lemire's bounded draw; the body is in internal.h (sg_rng_below_inline). */
uint32_t sg_rng_below(sg_rng *rng, uint32_t bound)
{
    return sg_rng_below_inline(rng, bound);
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
