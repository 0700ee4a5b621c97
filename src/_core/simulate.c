/* Whole games with uniformly random legal moves, played entirely in C. */
#include "skitgubbe.h"

/* One game with uniformly random legal moves from `seed` (deck and moves both
 * come from sg_rng_seed(seed)); dealer = players - 1.  Adds to *out. */
static void sg_play_random(const sg_rules *rules, uint64_t seed, sg_sim_result *out)
{
    sg_rng rng;
    uint8_t deck[SG_NCARDS];
    sg_state st;
    sg_move moves[SG_MAX_MOVES];

    sg_rng_seed(&rng, seed);
    sg_shuffle(&rng, deck);
    if (sg_new(&st, rules, deck, (uint8_t)(rules->players - 1), NULL) != SG_ERROR_NONE)
        return;
    while (st.phase != SG_PHASE_OVER) {
        const int n = sg_legal_moves(&st, moves);
        sg_apply_unchecked(&st, moves[sg_rng_below(&rng, (uint32_t)n)], NULL);
    }
    out->games++;
    out->moves += st.moves;
    if (st.truncated)
        out->truncated++;
    else if (st.loser == SG_NO_SEAT)
        out->no_loser++;
    else
        out->losses[st.loser]++;
}

void sg_simulate(const sg_rules *rules, uint64_t seed, uint64_t first,
                 uint64_t count, sg_sim_result *out)
{
    for (uint64_t i = first; i < first + count; i++)
        sg_play_random(rules, sg_game_seed(seed, i), out);
}
