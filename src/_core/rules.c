/* Rules: the classic preset and validation (RULES.md §9). */
#include <string.h>

#include "skitgubbe.h"

void sg_rules_classic(sg_rules *r, uint8_t players)
{
    memset(r, 0, sizeof *r);
    r->players = players;
    r->hand_size = 3;
    r->slough = 1;
    r->try_your_luck = 1;
    r->max_moves = 10000;
}

#define CHECK(cond, name)                                                      \
    do {                                                                       \
        if (!(cond)) {                                                         \
            if (field)                                                         \
                *field = (name);                                               \
            return SG_RULES_ERROR_BAD_VALUE;                                         \
        }                                                                      \
    } while (0)

int sg_rules_check(const sg_rules *r, const char **field)
{
    CHECK(r->players >= 2 && r->players <= SG_MAX_PLAYERS, "players");
    CHECK(r->hand_size == 3 || r->hand_size == 5, "hand_size");
    CHECK(r->trick_mode <= SG_TRICK_MODE_ALL, "trick_mode");
    CHECK(r->duel_tie <= SG_DUEL_TIE_BOUNCE, "duel_tie");
    CHECK(r->all_tie <= SG_ALL_TIE_LOWER_OUT, "all_tie");
    CHECK(r->multi_card_plays <= 1, "multi_card_plays");
    CHECK(r->slough <= 1, "slough");
    CHECK(r->try_your_luck <= 1, "try_your_luck");
    CHECK(r->draw <= SG_DRAW_AFTER_TRICK, "draw");
    CHECK(r->last_card <= SG_LAST_CARD_REVEAL, "last_card");
    CHECK(r->trump <= SG_TRUMP_RULE_UPCARD, "trump");
    CHECK(r->low_card_threshold <= 13, "low_card_threshold");
    CHECK(r->runs <= 1, "runs");
    CHECK(r->pickup <= SG_PICKUP_PILE, "pickup");
    CHECK(r->trick_end <= SG_TRICK_END_ROTATION, "trick_end");
    CHECK(r->max_moves > 0, "max_moves");
    if (r->trump == SG_TRUMP_RULE_UPCARD && r->multi_card_plays) {
        if (field)
            *field = "trump";
        return SG_RULES_ERROR_CONFLICT;
    }
    return SG_RULES_ERROR_NONE;
}
