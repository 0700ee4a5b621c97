/* The physical reference for benchmarks/test_core.py: random classic games
 * played in the plainest possible loop over the core's public API, with no
 * Python anywhere.  skitgubbe.simulate is compared against its ns per move.
 *
 * Each game: shuffle a deck with the game's own generator, deal, then pick a
 * uniformly random legal move until the game is over -- the same work per game
 * as sg_play_random (src/_core/simulate.c), written out by hand.
 *
 * usage: tight_loop [games] [players] [seed]      (defaults 20000 3 1)
 * prints one line: games=<n> moves=<n> ns=<elapsed> losses=<n> truncated=<n>
 *
 * Build (from the checkout): cc -std=c99 -O3 -I src/_core <every src/_core .c file>
 *     benchmarks/c/tight_loop.c -o tight_loop
 */
#define _POSIX_C_SOURCE 199309L

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "skitgubbe.h"

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

static uint64_t parse_arg(const char *text, const char *what)
{
    char *end = NULL;
    const unsigned long long value = strtoull(text, &end, 10);
    if (end == text || *end != '\0') {
        fprintf(stderr, "tight_loop: %s must be a non-negative integer, not '%s'\n", what,
                text);
        exit(2);
    }
    return (uint64_t)value;
}

int main(int argc, char **argv)
{
    const uint64_t games = argc > 1 ? parse_arg(argv[1], "games") : 20000;
    const uint64_t players = argc > 2 ? parse_arg(argv[2], "players") : 3;
    const uint64_t seed = argc > 3 ? parse_arg(argv[3], "seed") : 1;
    sg_rules rules;
    sg_state st;
    sg_rng rng;
    uint8_t deck[SG_NCARDS];
    sg_move moves[SG_MAX_MOVES];
    uint64_t total_moves = 0, losses = 0, truncated = 0;

    if (players < 2 || players > SG_MAX_PLAYERS) {
        fprintf(stderr, "tight_loop: players must be 2..%d\n", SG_MAX_PLAYERS);
        return 2;
    }
    sg_rules_classic(&rules, (uint8_t)players);
    sg_rng_seed(&rng, seed);

    const uint64_t start = now_ns();
    for (uint64_t g = 0; g < games; g++) {
        sg_shuffle(&rng, deck);
        if (sg_new(&st, &rules, deck, (uint8_t)(players - 1), NULL) != SG_ERROR_NONE) {
            fprintf(stderr, "tight_loop: sg_new failed\n");
            return 1;
        }
        while (st.phase != SG_PHASE_OVER) {
            const int n = sg_legal_moves(&st, moves);
            sg_apply_unchecked(&st, moves[sg_rng_below(&rng, (uint32_t)n)], NULL);
        }
        total_moves += st.moves;
        /* Using the outcome keeps the compiler from dropping any of the work. */
        truncated += st.truncated;
        losses += st.loser != SG_NO_SEAT;
    }
    const uint64_t elapsed = now_ns() - start;

    printf("games=%" PRIu64 " moves=%" PRIu64 " ns=%" PRIu64 " losses=%" PRIu64
           " truncated=%" PRIu64 "\n",
           games, total_moves, elapsed, losses, truncated);
    return 0;
}
