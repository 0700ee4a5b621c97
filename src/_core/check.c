/* Checking states that come from outside the process: sg_view_check (a seat's
 * view, or a whole state) and sg_state_check (a whole state only, every field
 * and the relations between them).  Both run the same checks in the same
 * order; a whole state has no unknown slots and a few more relations (checks
 * 21 and up).  Each failure names the field at fault. */
#include "internal.h"

static int valid_card(uint8_t c)
{
    return SG_SUIT_OF(c) < 4 && SG_RANK_OF(c) < 13;
}

static int seat_or_none(uint8_t seat, int players)
{
    return seat < players || seat == SG_NO_SEAT;
}

/* Whether `seat` holds a card, named in the view or not. */
static int holds(const sg_state *view, int seat)
{
    return (view->hand[seat] | view->coll[seat]) != 0 || view->unseen[seat] != 0;
}

/* Records the field at fault (when asked) and returns the check's number. */
static int fail(const char **field, int check, const char *name)
{
    if (field)
        *field = name;
    return check;
}

#define FAIL(check, name) return fail(field, (check), (name))

/* Checks 1 .. 10: every field's range and every card's place. */
static int ranges(const sg_state *st, int whole, const char **field)
{
    const int players = st->rules.players;
    if (sg_rules_check(&st->rules, NULL) != SG_RULES_ERROR_NONE)
        FAIL(1, "rules");
    if (st->phase > SG_PHASE_OVER)
        FAIL(2, "phase");
    if (st->phase == SG_PHASE_OVER ? st->to_move != SG_NO_SEAT : st->to_move >= players)
        FAIL(2, "to_move");
    if (st->stock_len > SG_NCARDS)
        FAIL(3, "stock_len");
    if (st->stock_top > st->stock_len)
        FAIL(3, "stock_top");
    if (st->table_len > SG_NCARDS)
        FAIL(3, "table_len");
    if (st->round_start > SG_NCARDS)
        FAIL(3, "round_start");
    if (st->dealer >= players)
        FAIL(4, "dealer");
    if (!seat_or_none(st->leader, players))
        FAIL(4, "leader");
    if (!seat_or_none(st->follower, players))
        FAIL(4, "follower");
    if (!seat_or_none(st->winner, players))
        FAIL(4, "winner");
    if (!seat_or_none(st->round_first, players))
        FAIL(4, "round_first");
    if (!seat_or_none(st->last_drawer, players))
        FAIL(4, "last_drawer");
    if (!seat_or_none(st->hidden_holder, players))
        FAIL(4, "hidden_holder");
    if (!seat_or_none(st->loser, players))
        FAIL(4, "loser");
    if (st->n_finished > players)
        FAIL(5, "n_finished");
    if (st->trump > SG_NO_SUIT)
        FAIL(5, "trump");
    if (st->window >> players)
        FAIL(5, "window");
    if (st->round_pending >> players)
        FAIL(5, "round_pending");
    for (int i = 0; i < st->n_finished; i++)
        if (st->finished[i] >= players)
            FAIL(5, "finished");
    if (!(st->upcard == SG_NO_CARD || valid_card(st->upcard)))
        FAIL(6, "upcard");
    if (!(st->hidden_card == SG_NO_CARD || (!whole && st->hidden_card == SG_UNKNOWN_CARD) ||
          valid_card(st->hidden_card)))
        FAIL(6, "hidden_card");

    /* Every placed card in one place only; the unknown slots exactly the rest. */
    uint64_t placed = st->out;
    int slots = 0;
    if (st->out & ~SG_ALL_CARDS)
        FAIL(7, "out");
    for (int p = 0; p < SG_MAX_PLAYERS; p++) {
        if ((st->hand[p] & ~SG_ALL_CARDS) || (st->hand[p] & placed) ||
            (p >= players && st->hand[p]))
            FAIL(7, "hand");
        placed |= st->hand[p];
    }
    for (int p = 0; p < SG_MAX_PLAYERS; p++) {
        if ((st->coll[p] & ~SG_ALL_CARDS) || (st->coll[p] & placed) ||
            (p >= players && st->coll[p]))
            FAIL(7, "coll");
        placed |= st->coll[p];
    }
    for (int p = 0; p < SG_MAX_PLAYERS; p++) {
        if (st->known[p] & ~SG_ALL_CARDS)
            FAIL(7, "known");
        if ((whole || p >= players) && st->unseen[p])
            FAIL(7, "unseen");
        slots += st->unseen[p];
    }
    for (int i = 0; i < st->table_len; i++) {
        if (!valid_card(st->table[i]) || (placed & SG_CARD_BIT(st->table[i])))
            FAIL(8, "table");
        if (st->table_seat[i] >= players)
            FAIL(8, "table_seat");
        placed |= SG_CARD_BIT(st->table[i]);
    }
    for (int i = st->stock_top; i < st->stock_len; i++) {
        const uint8_t c = st->stock[i];
        if (c == SG_UNKNOWN_CARD && !whole) {
            slots++;
            continue;
        }
        if (!valid_card(c) || (placed & SG_CARD_BIT(c)))
            FAIL(9, "stock");
        placed |= SG_CARD_BIT(c);
    }
    if (st->hidden_card == SG_UNKNOWN_CARD) {
        slots++;
    } else if (st->hidden_card != SG_NO_CARD) {
        if (placed & SG_CARD_BIT(st->hidden_card))
            FAIL(9, "hidden_card");
        placed |= SG_CARD_BIT(st->hidden_card);
    }
    /* In a whole state there are no slots: every card lies somewhere. */
    if (slots != sg_popcount(SG_ALL_CARDS & ~placed))
        FAIL(10, whole ? "cards" : "unseen");
    return 0;
}

/* The relations between fields that play relies on (checks 11 .. 20, see
 * skitgubbe.h); the fields' ranges and the cards' places are checked already. */
static int relations(const sg_state *view, const char **field)
{
    const int players = view->rules.players;
    const int phase = view->phase;
    const int stock_empty = view->stock_top == view->stock_len;

    /* 11: the one-bit flags, and the move cap not yet reached in a game going on. */
    if (view->trump_public > 1)
        FAIL(11, "trump_public");
    if (view->end_pending > 1)
        FAIL(11, "end_pending");
    if (view->truncated > 1)
        FAIL(11, "truncated");
    if (phase != SG_PHASE_OVER && view->moves >= view->rules.max_moves)
        FAIL(11, "moves");

    /* 12: a game going on has neither a loser nor a truncation; a truncated one no loser. */
    if (view->loser != SG_NO_SEAT && (phase != SG_PHASE_OVER || view->truncated))
        FAIL(12, "loser");
    if (phase != SG_PHASE_OVER && view->truncated)
        FAIL(12, "truncated");

    /* 13: the finish order: distinct seats, not the loser; none in phase 1; in
     * phase 2 exactly the seats without cards, and two seats or more hold cards. */
    uint8_t out = 0;
    for (int i = 0; i < view->n_finished; i++) {
        const uint8_t bit = (uint8_t)(1u << view->finished[i]);
        if ((out & bit) || view->finished[i] == view->loser)
            FAIL(13, "finished");
        out |= bit;
    }
    if (phase == SG_PHASE_COLLECTING && view->n_finished)
        FAIL(13, "n_finished");
    if (phase == SG_PHASE_SHEDDING) {
        int holding = 0;
        for (int p = 0; p < players; p++) {
            if (holds(view, p) == !!(out & (1u << p)))
                FAIL(13, "finished");
            holding += holds(view, p);
        }
        if (holding < 2)
            FAIL(13, "hand");
    }
    if (phase == SG_PHASE_OVER)
        return 0;

    /* 14: the player to move has a card in his hand; a trick has a leader. */
    if (!view->hand[view->to_move] && !view->unseen[view->to_move])
        FAIL(14, "to_move");
    if (view->leader == SG_NO_SEAT)
        FAIL(14, "leader");

    /* 15: known cards are held; phase 1 hands within hand_size, phase 2 without
     * collections. */
    for (int p = 0; p < players; p++) {
        if (view->known[p] & ~(view->hand[p] | view->coll[p]))
            FAIL(15, "known");
        if (phase == SG_PHASE_COLLECTING &&
            sg_popcount(view->hand[p]) + view->unseen[p] > view->rules.hand_size)
            FAIL(15, "hand");
        if (phase == SG_PHASE_SHEDDING && view->coll[p])
            FAIL(15, "coll");
    }

    /* 16: the up-card: under trump=UPCARD only, it sets the public trump, and
     * lies at the bottom of the stock while the stock lasts. */
    if (view->upcard != SG_NO_CARD &&
        (view->rules.trump != SG_TRUMP_RULE_UPCARD || !view->trump_public ||
         view->trump != SG_SUIT_OF(view->upcard) ||
         (!stock_empty && view->stock[view->stock_len - 1] != view->upcard)))
        FAIL(16, "upcard");

    if (phase == SG_PHASE_SHEDDING) {
        /* 17: phase 2 has no stock, hidden card, pending end, round or window,
         * and a public trump. */
        if (!stock_empty)
            FAIL(17, "stock_len");
        if (view->hidden_card != SG_NO_CARD)
            FAIL(17, "hidden_card");
        if (view->end_pending)
            FAIL(17, "end_pending");
        if (view->round_pending)
            FAIL(17, "round_pending");
        if (view->window)
            FAIL(17, "window");
        if (!view->trump_public)
            FAIL(17, "trump_public");
        /* 18: the trick: plays numbered from 0 in steps of 0 or 1; counters reset
         * between tricks; during one, a target of two seats or more that no
         * play (COUNT) or turn (ROTATION) has reached. */
        for (int i = 0; i < view->table_len; i++) {
            const int step = view->table_play[i] - (i ? view->table_play[i - 1] : 0);
            if (step < 0 || step > 1)
                FAIL(18, "table_play");
        }
        if (!view->table_len) {
            if (view->trick_target)
                FAIL(18, "trick_target");
            if (view->trick_turns)
                FAIL(18, "trick_turns");
            return 0;
        }
        if (view->trick_target < 2 || view->trick_target > players)
            FAIL(18, "trick_target");
        if (view->rules.trick_end == SG_TRICK_END_COUNT
                ? view->table_play[view->table_len - 1] + 1 >= view->trick_target
                : view->trick_turns >= view->trick_target)
            FAIL(18, view->rules.trick_end == SG_TRICK_END_COUNT ? "table_play" : "trick_turns");
        return 0;
    }

    /* 19: phase 1, the stock: someone drew its last card exactly when it is
     * empty, and phase 1 would have ended had that card been revealed; the
     * hidden card lies with him, under last_card=HIDDEN; under trump=UPCARD
     * the up-card is known. */
    if (stock_empty != (view->last_drawer != SG_NO_SEAT))
        FAIL(19, "last_drawer");
    if (view->end_pending)
        FAIL(19, "end_pending");
    if (view->hidden_card != SG_NO_CARD &&
        (!stock_empty || view->rules.last_card != SG_LAST_CARD_HIDDEN))
        FAIL(19, "hidden_card");
    if (view->hidden_card != SG_NO_CARD && view->hidden_holder != view->last_drawer)
        FAIL(19, "hidden_holder");
    if ((view->rules.trump == SG_TRUMP_RULE_UPCARD) != (view->upcard != SG_NO_CARD))
        FAIL(19, "upcard");

    /* 20: phase 1, the trick.  DUEL: no round and no window; the follower is
     * the leader's left neighbour and answers when the table holds an odd
     * number of cards.  ALL: this round's cards are on the table; an open
     * window (slough rule) ends the round, names the winner and waits for the
     * player to move; otherwise he is still to play in this round. */
    if (view->rules.trick_mode == SG_TRICK_MODE_DUEL) {
        if (view->round_pending)
            FAIL(20, "round_pending");
        if (view->window)
            FAIL(20, "window");
        if (view->follower != (view->leader + 1) % players)
            FAIL(20, "follower");
        if (view->to_move != (view->table_len % 2 ? view->follower : view->leader))
            FAIL(20, "to_move");
        return 0;
    }
    if (view->round_start > view->table_len)
        FAIL(20, "round_start");
    if (view->window) {
        if (!view->rules.slough)
            FAIL(20, "window");
        if (view->round_pending)
            FAIL(20, "round_pending");
        if (view->winner == SG_NO_SEAT)
            FAIL(20, "winner");
        if (!(view->window & (1u << view->to_move)))
            FAIL(20, "to_move");
    } else if (!(view->round_pending & (1u << view->to_move))) {
        FAIL(20, "to_move");
    }
    return 0;
}

/* The seats that hold a card (hand or collection), as bits. */
static uint8_t holders(const sg_state *st)
{
    uint8_t seats = 0;
    for (int p = 0; p < st->rules.players; p++)
        if (st->hand[p] | st->coll[p])
            seats |= (uint8_t)(1u << p);
    return seats;
}

/* Checks 21 .. 26: what a whole state adds to a view's checks. */
static int whole_relations(const sg_state *st, const char **field)
{
    const int players = st->rules.players;
    const int phase = st->phase;
    const int stock_empty = st->stock_top == st->stock_len;

    /* 21: the spare bytes are zero. */
    for (size_t i = 0; i < sizeof st->rules.reserved; i++)
        if (st->rules.reserved[i])
            FAIL(21, "rules");
    for (size_t i = 0; i < sizeof st->reserved; i++)
        if (st->reserved[i])
            FAIL(21, "reserved");

    /* 22: every seat's known cards are its own, and its collection is known
     * to all; the move count within the cap. */
    for (int p = 0; p < players; p++) {
        if (st->known[p] & ~(st->hand[p] | st->coll[p]))
            FAIL(22, "known");
        if (st->coll[p] & ~st->known[p])
            FAIL(22, "known");
    }
    for (int p = players; p < SG_MAX_PLAYERS; p++)
        if (st->known[p])
            FAIL(22, "known");
    if (st->moves > st->rules.max_moves)
        FAIL(22, "moves");

    /* 23: phase 1, the trump: public only under trump=UPCARD (the up-card's
     * suit), else none until the last card is drawn, then (trump=LAST_CARD)
     * the suit of the hidden card. */
    if (phase == SG_PHASE_COLLECTING) {
        const int upcard = st->rules.trump == SG_TRUMP_RULE_UPCARD;
        if (st->trump_public != upcard)
            FAIL(23, "trump_public");
        if (!upcard && st->trump != (st->rules.trump == SG_TRUMP_RULE_LAST_CARD &&
                                             st->hidden_card != SG_NO_CARD
                                         ? SG_SUIT_OF(st->hidden_card)
                                         : SG_NO_SUIT))
            FAIL(23, "trump");
        /* The last card lies hidden under last_card=HIDDEN once drawn, unless
         * it was the up-card (taken into the hand in view of all). */
        if (stock_empty && st->rules.last_card == SG_LAST_CARD_HIDDEN && !upcard &&
            st->hidden_card == SG_NO_CARD)
            FAIL(23, "hidden_card");
        if (st->hidden_card == SG_NO_CARD && st->hidden_holder != SG_NO_SEAT)
            FAIL(23, "hidden_holder");
    }

    /* 24: phase 1, the counters of phase 2 are zero; round_first is a seat;
     * the follower is the leader's left neighbour; under DUEL the leader and
     * the follower alternate on the table. */
    if (phase == SG_PHASE_COLLECTING) {
        if (st->trick_target)
            FAIL(24, "trick_target");
        if (st->trick_turns)
            FAIL(24, "trick_turns");
        if (st->round_first >= players)
            FAIL(24, "round_first");
        if (st->follower != (st->leader + 1) % players)
            FAIL(24, "follower");
        if (st->rules.trick_mode == SG_TRICK_MODE_DUEL)
            for (int i = 0; i < st->table_len; i++)
                if (st->table_seat[i] != (i % 2 ? st->follower : st->leader))
                    FAIL(24, "table_seat");
    }

    /* 25: a game over and not truncated: at most one seat holds cards, the
     * loser; every other seat is in the finish order; no stock, hidden card,
     * round, window or pending end is left. */
    if (phase == SG_PHASE_OVER && !st->truncated) {
        const uint8_t held = holders(st);
        if (held & (held - 1))
            FAIL(25, "hand");
        if (st->loser == SG_NO_SEAT ? held != 0 : held != (1u << st->loser))
            FAIL(25, "loser");
        if (st->n_finished != players - (st->loser != SG_NO_SEAT))
            FAIL(25, "n_finished");
        if (!stock_empty)
            FAIL(25, "stock_len");
        if (st->hidden_card != SG_NO_CARD)
            FAIL(25, "hidden_card");
        if (st->round_pending)
            FAIL(25, "round_pending");
        if (st->window)
            FAIL(25, "window");
        if (st->end_pending)
            FAIL(25, "end_pending");
    }

    /* 26: a truncated game: the move cap reached. */
    if (st->truncated && st->moves < st->rules.max_moves)
        FAIL(26, "truncated");
    return 0;
}

int sg_view_check(const sg_state *view)
{
    const int failed = ranges(view, 0, NULL);
    return failed ? failed : relations(view, NULL);
}

int sg_state_check(const sg_state *st, const char **field)
{
    int failed = ranges(st, 1, field);
    if (!failed)
        failed = relations(st, field);
    if (!failed)
        failed = whole_relations(st, field);
    if (!failed && field)
        *field = NULL;
    return failed;
}
