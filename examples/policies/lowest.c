/* A rollout policy for skitgubbe's search: play the lowest card, sparing trumps and
 * shedding several equal cards at once; flip or pick up only when nothing else is
 * legal. Compile-free: skitgubbe compiles it with cffi the first time a bot uses it,
 *
 *     skitgubbe arena "ismcts:rollout=examples/policies/lowest.c:lowest" ismcts greedy
 *
 * (skitgubbe_policy.h, in skitgubbe.get_include(), is included for you.) */
#include "skitgubbe_policy.h"

int32_t lowest(const sg_position *pos, void *ctx)
{
    (void)ctx;
    const int32_t trump = sg_trump(pos);
    int32_t best = -1, best_key = 1 << 20;
    for (int32_t i = 0; i < sg_n_moves(pos); i++) {
        const uint64_t cards = sg_move_cards(pos, i);
        if (sg_move_kind(pos, i) != SG_PLAY || !cards)
            continue;
        int32_t key = sg_lowest_rank(cards) * 8 - sg_count(cards);
        if (trump >= 0 && (cards & SG_SUIT_CARDS(trump)))
            key += 200; /* a trump only when nothing else will do */
        if (key < best_key) {
            best = i;
            best_key = key;
        }
    }
    return best >= 0 ? best : 0; /* no card to play: the first move (flip, pick, pass) */
}
