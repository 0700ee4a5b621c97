/* Phase 2, shedding: beat the top card or pick up (RULES.md §5, §6). */
#include "engine.h"

static uint8_t next_holding(const sg_state *st, uint8_t seat)
{
    const int n = st->rules.players;
    for (int k = 1; k <= n; k++) {
        const uint8_t p = (uint8_t)((seat + k) % n);
        if (st->hand[p])
            return p;
    }
    return SG_NO_SEAT;
}

static void go_out(sg_state *st, uint8_t seat, sg_events *ev)
{
    st->finished[st->n_finished++] = seat;
    sg_emit(ev, SG_EV_OUT, seat, 0, 0);
}

/* Ends the game when at most one player holds cards (§6.7); returns 1 then. */
static int check_over(sg_state *st, sg_events *ev)
{
    uint8_t holder = SG_NO_SEAT;
    for (int p = 0; p < st->rules.players; p++) {
        if (!st->hand[p])
            continue;
        if (holder != SG_NO_SEAT)
            return 0;
        holder = (uint8_t)p;
    }
    st->phase = SG_OVER;
    st->to_move = SG_NO_SEAT;
    st->loser = holder;
    sg_emit(ev, SG_EV_GAME_OVER, holder, 0, 0);
    return 1;
}

static void lead_by(sg_state *st, uint8_t seat)
{
    st->leader = seat;
    st->to_move = seat;
    st->trick_target = 0;
}

void sg_shedding_start(sg_state *st, uint8_t leader, uint8_t first_out, sg_events *ev)
{
    const int n = st->rules.players;
    st->phase = SG_SHEDDING;
    for (int k = 0; k < n; k++) {
        const uint8_t p = (uint8_t)((first_out + k) % n);
        if (!st->hand[p])
            go_out(st, p, ev);
    }
    if (check_over(st, ev))
        return;
    if (!st->hand[leader])
        leader = next_holding(st, leader);
    lead_by(st, leader);
    sg_emit(ev, SG_EV_SHEDDING, leader, 0, 0);
}

int sg_shedding_moves(const sg_state *st, sg_move *moves)
{
    const uint64_t hand = st->hand[st->to_move];
    uint64_t plays = hand;
    if (st->table_len) {
        const uint8_t top = st->table[st->table_len - 1];
        plays = hand & sg_above(top);
        if (st->trump != SG_NO_SUIT && SG_SUIT_OF(top) != st->trump)
            plays |= hand & SG_SUIT_MASK(st->trump);
    }
    int n = 0;
    for (; plays; plays &= plays - 1)
        moves[n++] = SG_MAKE_MOVE(SG_MOVE_PLAY, plays & (~plays + 1));
    if (st->table_len)
        moves[n++] = SG_MAKE_MOVE(SG_MOVE_PICK_UP, 0);
    return n;
}

static void play(sg_state *st, uint8_t seat, uint64_t cards, sg_events *ev)
{
    if (!st->table_len)
        st->trick_target = (uint8_t)sg_holding_count(st); /* the leader counts (§6.5) */
    const uint8_t play_no = st->table_len ? (uint8_t)(st->table_play[st->table_len - 1] + 1) : 0;
    for (uint64_t c = cards; c; c &= c - 1) {
        const uint8_t i = st->table_len++;
        st->table[i] = (uint8_t)sg_lowest(c);
        st->table_seat[i] = seat;
        st->table_play[i] = play_no;
    }
    st->hand[seat] &= ~cards;
    st->known[seat] &= ~cards;
    sg_emit(ev, SG_EV_PLAY, seat, 0, cards);
    if (!st->hand[seat])
        go_out(st, seat, ev);
    if (check_over(st, ev))
        return;
    if (play_no + 1 >= st->trick_target) {
        const uint64_t done = sg_table_mask(st);
        st->out |= done;
        st->table_len = 0;
        sg_emit(ev, SG_EV_DISCARD, seat, 0, done);
        lead_by(st, st->hand[seat] ? seat : next_holding(st, seat));
        return;
    }
    st->to_move = next_holding(st, seat);
}

static void pick_up(sg_state *st, uint8_t seat, sg_events *ev)
{
    const uint8_t card = st->table[--st->table_len];
    const uint64_t bit = SG_CARD_BIT(card);
    st->hand[seat] |= bit;
    st->known[seat] |= bit;
    sg_emit(ev, SG_EV_PICK_UP, seat, 0, bit);
    if (!st->table_len)
        lead_by(st, next_holding(st, seat));
    else
        st->to_move = next_holding(st, seat);
}

void sg_shedding_apply(sg_state *st, sg_move move, sg_events *ev)
{
    const uint8_t seat = st->to_move;
    if (SG_MOVE_KIND(move) == SG_MOVE_PICK_UP)
        pick_up(st, seat, ev);
    else
        play(st, seat, SG_MOVE_CARDS(move), ev);
}
