/* Bit scans on 64-bit card sets, for every compiler the core is built with.
 *
 * GCC and Clang have builtins; MSVC (the Windows wheels) has intrinsics; any
 * other C99 compiler gets plain C.  SG_PORTABLE_BITS forces the plain C, so
 * that tests can check it against the others (tests/c/bits_check.c).  No
 * function is called with x == 0 where it says x != 0. */
#ifndef SKITGUBBE_BITS_H
#define SKITGUBBE_BITS_H

#include <stdint.h>

#if (defined(__GNUC__) || defined(__clang__)) && !defined(SG_PORTABLE_BITS)

static inline int sg_popcount(uint64_t x) { return __builtin_popcountll(x); }
/* The index of the lowest set bit; x != 0. */
static inline int sg_lowest(uint64_t x) { return __builtin_ctzll(x); }
/* The index of the highest set bit; x != 0. */
static inline int sg_highest(uint64_t x) { return 63 - __builtin_clzll(x); }

#else

/* Counting without a POPCNT instruction, which not every x86-64 processor
 * has (MSVC's __popcnt64 would need it). */
static inline int sg_popcount(uint64_t x)
{
    x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
    return (int)((x * UINT64_C(0x0101010101010101)) >> 56);
}

#if defined(_MSC_VER) && (defined(_M_X64) || defined(_M_ARM64)) && !defined(SG_PORTABLE_BITS)
#include <intrin.h>
static inline int sg_lowest(uint64_t x)
{
    unsigned long index;
    _BitScanForward64(&index, x);
    return (int)index;
}
static inline int sg_highest(uint64_t x)
{
    unsigned long index;
    _BitScanReverse64(&index, x);
    return (int)index;
}
#else
static inline int sg_lowest(uint64_t x)
{
    int n = 0;
    if (!(x & UINT64_C(0xffffffff))) { n += 32; x >>= 32; }
    if (!(x & UINT64_C(0xffff))) { n += 16; x >>= 16; }
    if (!(x & UINT64_C(0xff))) { n += 8; x >>= 8; }
    if (!(x & UINT64_C(0xf))) { n += 4; x >>= 4; }
    if (!(x & UINT64_C(0x3))) { n += 2; x >>= 2; }
    if (!(x & UINT64_C(0x1))) { n += 1; }
    return n;
}
static inline int sg_highest(uint64_t x)
{
    int n = 0;
    if (x >> 32) { n += 32; x >>= 32; }
    if (x >> 16) { n += 16; x >>= 16; }
    if (x >> 8) { n += 8; x >>= 8; }
    if (x >> 4) { n += 4; x >>= 4; }
    if (x >> 2) { n += 2; x >>= 2; }
    if (x >> 1) { n += 1; }
    return n;
}
#endif

#endif

#endif
