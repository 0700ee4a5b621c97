/* Integer actions: one fixed numbering of every move under every rule variant
 * (see "integer actions" in skitgubbe.h for the table). */
#include <string.h>

#include "internal.h"

/* The 11 sets of two or more suits, as 4-bit masks in ascending order. */
static const uint8_t GROUP_SUITS[SG_ACTION_GROUPS_PER_RANK] = {3, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15};

/* Runs of one suit, by start rank then length: runs starting below `start`. */
static int runs_before(int start)
{
    /* A run starting at rank t has lengths 2 .. 13 - t: 12 - t of them. */
    return start * 12 - start * (start - 1) / 2;
}

static uint8_t card_of_index(int k)
{
    return SG_CARD(k / 13, k % 13);
}

static int index_of_card(int card)
{
    return SG_SUIT_OF(card) * 13 + SG_RANK_OF(card);
}

sg_move sg_action_move(int action)
{
    if (action < 0 || action >= SG_NUM_ACTIONS)
        return SG_NO_MOVE;
    if (action < SG_ACTION_GROUP) {
        return SG_MAKE_MOVE(SG_MOVE_KIND_PLAY, SG_CARD_BIT(card_of_index(action)));
    }
    if (action < SG_ACTION_RUN) {
        const int rank = (action - SG_ACTION_GROUP) / SG_ACTION_GROUPS_PER_RANK;
        const int suits = GROUP_SUITS[(action - SG_ACTION_GROUP) % SG_ACTION_GROUPS_PER_RANK];
        uint64_t cards = 0;
        for (int s = 0; s < 4; s++)
            if (suits & (1 << s))
                cards |= SG_CARD_BIT(SG_CARD(s, rank));
        return SG_MAKE_MOVE(SG_MOVE_KIND_PLAY, cards);
    }
    if (action < SG_ACTION_FLIP) {
        const int suit = (action - SG_ACTION_RUN) / SG_ACTION_RUNS_PER_SUIT;
        const int i = (action - SG_ACTION_RUN) % SG_ACTION_RUNS_PER_SUIT;
        int start = 0;
        while (runs_before(start + 1) <= i)
            start++;
        const int length = 2 + i - runs_before(start);
        uint64_t cards = 0;
        for (int r = start; r < start + length; r++)
            cards |= SG_CARD_BIT(SG_CARD(suit, r));
        return SG_MAKE_MOVE(SG_MOVE_KIND_PLAY, cards);
    }
    switch (action) {
    case SG_ACTION_FLIP:
        return SG_MAKE_MOVE(SG_MOVE_KIND_FLIP, 0);
    case SG_ACTION_PICK_UP:
        return SG_MAKE_MOVE(SG_MOVE_KIND_PICK_UP, 0);
    case SG_ACTION_PASS:
        return SG_MAKE_MOVE(SG_MOVE_KIND_PASS, 0);
    default:
        return SG_NO_MOVE; /* a slough step */
    }
}

/* The action of a play of `cards` (one card, equal cards, or a run), or -1. */
static int play_action(uint64_t cards)
{
    const int low = sg_lowest(cards);
    if ((cards & (cards - 1)) == 0)
        return index_of_card(low);
    const int n = sg_popcount(cards);
    const int rank = SG_RANK_OF(low);
    if ((cards & SG_RANK_CARDS(1u << rank)) == cards) {
        int suits = 0;
        for (uint64_t c = cards; c; c &= c - 1)
            suits |= 1 << SG_SUIT_OF(sg_lowest(c));
        for (int i = 0; i < SG_ACTION_GROUPS_PER_RANK; i++)
            if (GROUP_SUITS[i] == suits)
                return SG_ACTION_GROUP + rank * SG_ACTION_GROUPS_PER_RANK + i;
        return -1;
    }
    /* A run: n consecutive ranks of one suit from the lowest card up. */
    if (rank + n > 13)
        return -1;
    const uint64_t run = ((UINT64_C(1) << n) - 1) << low;
    if (run != cards)
        return -1;
    return SG_ACTION_RUN + SG_SUIT_OF(low) * SG_ACTION_RUNS_PER_SUIT + runs_before(rank) + n - 2;
}

int sg_move_actions(sg_move move, uint16_t actions[SG_MAX_ACTION_PATH])
{
    const uint64_t cards = SG_MOVE_CARDS(move);
    if ((move & ~(SG_ALL_CARDS | (UINT64_C(7) << 61))) != 0)
        return 0;
    switch (SG_MOVE_KIND_OF(move)) {
    case SG_MOVE_KIND_PLAY: {
        const int action = cards ? play_action(cards) : -1;
        if (action < 0)
            return 0;
        actions[0] = (uint16_t)action;
        return 1;
    }
    case SG_MOVE_KIND_FLIP:
        actions[0] = SG_ACTION_FLIP;
        return cards ? 0 : 1;
    case SG_MOVE_KIND_PICK_UP:
        actions[0] = SG_ACTION_PICK_UP;
        return cards ? 0 : 1;
    case SG_MOVE_KIND_PASS:
        actions[0] = SG_ACTION_PASS;
        return cards ? 0 : 1;
    case SG_MOVE_KIND_SLOUGH: {
        int n = 0;
        if (!cards)
            return 0;
        for (uint64_t c = cards; c; c &= c - 1)
            actions[n++] = (uint16_t)(SG_ACTION_SLOUGH_CARD + index_of_card(sg_lowest(c)));
        actions[n++] = SG_ACTION_SLOUGH_DONE;
        return n;
    }
    default:
        return 0;
    }
}

/* Whether `c` may be added to the slough `pending`: some legal slough holds
 * pending, c, and no card between pending's highest and c (the one path to
 * each slough adds its cards in ascending order). */
static int slough_step_ok(const sg_move *moves, int n, uint64_t pending, int c)
{
    const uint64_t bit = SG_CARD_BIT(c);
    if (pending && (uint64_t)sg_highest(pending) >= (uint64_t)c)
        return 0;
    for (int i = 0; i < n; i++) {
        if (SG_MOVE_KIND_OF(moves[i]) != SG_MOVE_KIND_SLOUGH)
            continue;
        const uint64_t m = SG_MOVE_CARDS(moves[i]);
        if ((m & pending) == pending && (m & bit) && sg_lowest(m & ~pending) == c)
            return 1;
    }
    return 0;
}

/* The first action of a move (the only one but for sloughs), or -1. */
static int first_action(sg_move move)
{
    if (SG_MOVE_KIND_OF(move) == SG_MOVE_KIND_SLOUGH) {
        const uint64_t cards = SG_MOVE_CARDS(move);
        return cards ? SG_ACTION_SLOUGH_CARD + index_of_card(sg_lowest(cards)) : -1;
    }
    uint16_t path[SG_MAX_ACTION_PATH];
    return sg_move_actions(move, path) == 1 ? path[0] : -1;
}

void sg_action_mask(const sg_state *st, uint64_t pending, uint8_t mask[SG_NUM_ACTIONS])
{
    sg_move moves[SG_MAX_MOVES];
    memset(mask, 0, SG_NUM_ACTIONS);
    if (pending & ~SG_ALL_CARDS)
        return;
    const int n = sg_legal_moves(st, moves);
    if (pending) {
        for (int k = 0; k < SG_NCARDS; k++)
            if (slough_step_ok(moves, n, pending, card_of_index(k)))
                mask[SG_ACTION_SLOUGH_CARD + k] = 1;
        if (sg_why_illegal(st, SG_MAKE_MOVE(SG_MOVE_KIND_SLOUGH, pending), NULL) ==
            SG_ILLEGAL_NONE)
            mask[SG_ACTION_SLOUGH_DONE] = 1;
        return;
    }
    for (int i = 0; i < n; i++) {
        const int action = first_action(moves[i]);
        if (action >= 0)
            mask[action] = 1;
    }
}

int sg_legal_actions(const sg_state *st, uint64_t pending, uint16_t actions[SG_NUM_ACTIONS])
{
    int count = 0;
    if (pending) {
        uint8_t mask[SG_NUM_ACTIONS];
        sg_action_mask(st, pending, mask);
        for (int a = 0; a < SG_NUM_ACTIONS; a++)
            if (mask[a])
                actions[count++] = (uint16_t)a;
        return count;
    }
    /* The first action of each legal move (sloughs share their first cards),
     * gathered in a bit set and read out in ascending order. */
    uint64_t seen[(SG_NUM_ACTIONS + 63) / 64] = {0};
    sg_move moves[SG_MAX_MOVES];
    const int n = sg_legal_moves(st, moves);
    for (int i = 0; i < n; i++) {
        const int action = first_action(moves[i]);
        if (action >= 0)
            seen[action >> 6] |= UINT64_C(1) << (action & 63);
    }
    for (int w = 0; w < (SG_NUM_ACTIONS + 63) / 64; w++)
        for (uint64_t bits = seen[w]; bits; bits &= bits - 1)
            actions[count++] = (uint16_t)(w * 64 + sg_lowest(bits));
    return count;
}

int sg_apply_action(sg_state *st, uint64_t *pending, int action, sg_events *ev)
{
    if (st->phase == SG_PHASE_OVER)
        return SG_ERROR_OVER;
    if (action < 0 || action >= SG_NUM_ACTIONS || (*pending & ~SG_ALL_CARDS))
        return SG_ERROR_ILLEGAL;
    if (action >= SG_ACTION_SLOUGH_CARD && action < SG_ACTION_SLOUGH_DONE) {
        sg_move moves[SG_MAX_MOVES];
        const int n = sg_legal_moves(st, moves);
        const int c = card_of_index(action - SG_ACTION_SLOUGH_CARD);
        if (!slough_step_ok(moves, n, *pending, c))
            return SG_ERROR_ILLEGAL;
        *pending |= SG_CARD_BIT(c);
        return SG_ERROR_NONE;
    }
    if (action == SG_ACTION_SLOUGH_DONE) {
        if (!*pending)
            return SG_ERROR_ILLEGAL;
        const int result = sg_apply(st, SG_MAKE_MOVE(SG_MOVE_KIND_SLOUGH, *pending), ev);
        if (result == SG_ERROR_NONE)
            *pending = 0;
        return result;
    }
    if (*pending)
        return SG_ERROR_ILLEGAL; /* a slough is being chosen: only its steps */
    return sg_apply(st, sg_action_move(action), ev);
}
