/* Bit helpers shared by the core's source files (not part of the API). */
#ifndef SKITGUBBE_BITS_H
#define SKITGUBBE_BITS_H

#include "skitgubbe.h"

#if defined(__GNUC__) || defined(__clang__)
static inline int sg_popcount(uint64_t x) { return __builtin_popcountll(x); }
static inline int sg_lowest(uint64_t x) { return __builtin_ctzll(x); }
#else
static inline int sg_popcount(uint64_t x)
{
    int n = 0;
    while (x) {
        x &= x - 1;
        n++;
    }
    return n;
}
static inline int sg_lowest(uint64_t x)
{
    int n = 0;
    while (!(x & 1)) {
        x >>= 1;
        n++;
    }
    return n;
}
#endif

/* Cards of the same suit as `card` with a higher rank. */
static inline uint64_t sg_above(uint8_t card)
{
    return SG_SUIT_MASK(SG_SUIT_OF(card)) & ~((SG_CARD_BIT(card) << 1) - 1);
}

#endif
