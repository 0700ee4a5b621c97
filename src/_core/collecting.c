/* Phase 1, collecting: two-card tricks (RULES.md §3). */
#include "engine.h"

static int stock_count(const sg_state *st)
{
    return st->stock_len - st->stock_top;
}

static void push_table(sg_state *st, uint8_t card, uint8_t seat)
{
    const uint8_t i = st->table_len++;
    st->table[i] = card;
    st->table_seat[i] = seat;
    st->table_play[i] = i;
}

/* Draws up to `count` cards for `seat` (§3.4, §3.7). */
static void draw(sg_state *st, uint8_t seat, int count, sg_events *ev)
{
    uint64_t drawn = 0;
    for (; count > 0 && stock_count(st) > 0; count--) {
        const uint8_t card = st->stock[st->stock_top++];
        if (stock_count(st) > 0) {
            drawn |= SG_CARD_BIT(card);
            continue;
        }
        /* The last stock card lies face down beside its drawer (§3.7). */
        st->last_drawer = seat;
        st->hidden_card = card;
        st->hidden_holder = seat;
        st->trump = (uint8_t)SG_SUIT_OF(card);
        if (drawn)
            sg_emit(ev, SG_EV_DRAW, seat, 0, drawn);
        st->hand[seat] |= drawn;
        sg_emit(ev, SG_EV_DRAW_HIDDEN, seat, 0, 0);
        return;
    }
    if (drawn) {
        st->hand[seat] |= drawn;
        sg_emit(ev, SG_EV_DRAW, seat, 0, drawn);
    }
}

static void refill(sg_state *st, uint8_t seat, sg_events *ev)
{
    const int missing = st->rules.hand_size - sg_popcount(st->hand[seat]);
    if (missing > 0)
        draw(st, seat, missing, ev);
}

/* Phase 1 is over: the unfinished trick goes back to the hands that played
 * it, the hidden card is turned up, collections join hands (§3.8, §5). */
static void end_collecting(sg_state *st, sg_events *ev)
{
    const int n = st->rules.players;
    for (int p = 0; p < n; p++) {
        uint64_t back = 0;
        for (int i = 0; i < st->table_len; i++)
            if (st->table_seat[i] == p)
                back |= SG_CARD_BIT(st->table[i]);
        if (back) {
            st->hand[p] |= back;
            st->known[p] |= back;
            sg_emit(ev, SG_EV_TAKE_BACK, (uint8_t)p, 0, back);
        }
    }
    st->table_len = 0;

    if (st->hidden_card != SG_NO_CARD) {
        const uint64_t bit = SG_CARD_BIT(st->hidden_card);
        st->coll[st->hidden_holder] |= bit;
        st->known[st->hidden_holder] |= bit;
        sg_emit(ev, SG_EV_REVEAL, st->hidden_holder, 0, bit);
        st->hidden_card = SG_NO_CARD;
    }
    st->trump_public = 1;
    sg_emit(ev, SG_EV_TRUMP, SG_NO_SEAT, st->trump, 0);

    for (int p = 0; p < n; p++) {
        st->hand[p] |= st->coll[p];
        st->coll[p] = 0;
    }
    sg_shedding_start(st, st->last_drawer, sg_left_of(st, st->dealer), ev);
}

void sg_collecting_turn(sg_state *st, uint8_t seat, sg_events *ev)
{
    if (!st->hand[seat] && stock_count(st) > 0)
        refill(st, seat, ev);
    if (!st->hand[seat]) {
        end_collecting(st, ev);
        return;
    }
    st->to_move = seat;
}

int sg_collecting_moves(const sg_state *st, sg_move *moves)
{
    int n = 0;
    for (uint64_t h = st->hand[st->to_move]; h; h &= h - 1)
        moves[n++] = SG_MAKE_MOVE(SG_MOVE_PLAY, h & (~h + 1));
    if (st->rules.try_your_luck && stock_count(st) >= 2)
        moves[n++] = SG_MAKE_MOVE(SG_MOVE_FLIP, 0);
    return n;
}

/* Both cards of a pair are down: decide it (§3.5, §3.6). */
static void resolve_pair(sg_state *st, sg_events *ev)
{
    const uint8_t lead = st->table[st->table_len - 2];
    const uint8_t answer = st->table[st->table_len - 1];
    if (SG_RANK_OF(lead) == SG_RANK_OF(answer)) {
        sg_emit(ev, SG_EV_TIE, st->leader, st->follower,
                SG_CARD_BIT(lead) | SG_CARD_BIT(answer));
        sg_collecting_turn(st, st->leader, ev);
        return;
    }
    const uint8_t winner = SG_RANK_OF(lead) > SG_RANK_OF(answer) ? st->leader : st->follower;
    const uint64_t won = sg_table_mask(st);
    st->coll[winner] |= won;
    st->known[winner] |= won;
    st->table_len = 0;
    sg_emit(ev, SG_EV_TRICK_WON, winner, 0, won);
    st->leader = winner;
    st->follower = sg_left_of(st, winner);
    sg_collecting_turn(st, winner, ev);
}

void sg_collecting_apply(sg_state *st, sg_move move, sg_events *ev)
{
    const uint8_t seat = st->to_move;
    if (SG_MOVE_KIND(move) == SG_MOVE_FLIP) {
        const uint8_t card = st->stock[st->stock_top++];
        push_table(st, card, seat);
        sg_emit(ev, SG_EV_FLIP, seat, 0, SG_CARD_BIT(card));
    } else {
        const uint64_t cards = SG_MOVE_CARDS(move);
        st->hand[seat] &= ~cards;
        st->known[seat] &= ~cards;
        push_table(st, (uint8_t)sg_lowest(cards), seat);
        sg_emit(ev, SG_EV_PLAY, seat, 0, cards);
        refill(st, seat, ev);
    }
    if (st->table_len % 2)
        sg_collecting_turn(st, st->follower, ev);
    else
        resolve_pair(st, ev);
}
