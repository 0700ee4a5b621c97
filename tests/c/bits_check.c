/* Checks src/_core/bits.h against bit-by-bit references: every single bit,
 * every pair of bits, and a million pseudo-random words of every density.
 * Built twice by tests/test_portability.py: with the compiler's builtins and
 * with -DSG_PORTABLE_BITS (the plain C that compilers without them get). */
#include <stdint.h>
#include <stdio.h>

#include "bits.h"

static int ref_popcount(uint64_t x)
{
    int n = 0;
    for (int i = 0; i < 64; i++)
        n += (int)((x >> i) & 1);
    return n;
}

static int ref_lowest(uint64_t x)
{
    for (int i = 0; i < 64; i++)
        if ((x >> i) & 1)
            return i;
    return -1;
}

static int ref_highest(uint64_t x)
{
    for (int i = 63; i >= 0; i--)
        if ((x >> i) & 1)
            return i;
    return -1;
}

static long failures = 0;

static void check(uint64_t x)
{
    if (sg_popcount(x) != ref_popcount(x) || (x && sg_lowest(x) != ref_lowest(x)) ||
        (x && sg_highest(x) != ref_highest(x))) {
        if (failures++ < 5)
            printf("bits_check: wrong for 0x%016llx\n", (unsigned long long)x);
    }
}

int main(void)
{
    uint64_t state = UINT64_C(0x9e3779b97f4a7c15);
    check(0);
    check(~UINT64_C(0));
    for (int i = 0; i < 64; i++)
        for (int j = 0; j < 64; j++)
            check((UINT64_C(1) << i) | (UINT64_C(1) << j));
    for (long n = 0; n < 1000000; n++) {
        /* xorshift64; an AND or OR of two words makes sparse and dense sets. */
        uint64_t a, b;
        state ^= state << 13, state ^= state >> 7, state ^= state << 17, a = state;
        state ^= state << 13, state ^= state >> 7, state ^= state << 17, b = state;
        check(n % 3 == 0 ? a : n % 3 == 1 ? a & b : a | b);
    }
    if (failures) {
        printf("bits_check: %ld failures\n", failures);
        return 1;
    }
    printf("bits_check: ok\n");
    return 0;
}
