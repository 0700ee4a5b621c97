/* Creating games, dispatching moves to the phase that owns them, the move cap,
 * and what an observer can know. */
#include <string.h>

#include "internal.h"

static void init_state(sg_state *st, const sg_rules *rules, uint8_t dealer)
{
    memset(st, 0, sizeof *st);
    st->rules = *rules;
    memset(st->rules.reserved, 0, sizeof st->rules.reserved);
    st->dealer = dealer;
    st->trump = SG_NO_SUIT;
    st->hidden_card = SG_NO_CARD;
    st->upcard = SG_NO_CARD;
    st->winner = SG_NO_SEAT;
    st->hidden_holder = SG_NO_SEAT;
    st->last_drawer = SG_NO_SEAT;
    st->loser = SG_NO_SEAT;
    st->to_move = SG_NO_SEAT;
    st->leader = SG_NO_SEAT;
    st->follower = SG_NO_SEAT;
}

int sg_new(sg_state *st, const sg_rules *rules, const uint8_t deck[SG_NCARDS],
           uint8_t dealer, sg_events *ev)
{
    if (sg_rules_check(rules, NULL) != SG_RULES_ERROR_NONE)
        return SG_ERROR_RULES;
    if (dealer >= rules->players)
        return SG_ERROR_SEAT;
    uint64_t seen = 0;
    for (int i = 0; i < SG_NCARDS; i++) {
        const uint8_t c = deck[i];
        if (c >= 64 || !(SG_CARD_BIT(c) & SG_ALL_CARDS) || (seen & SG_CARD_BIT(c)))
            return SG_ERROR_DECK;
        seen |= SG_CARD_BIT(c);
    }

    init_state(st, rules, dealer);
    const int n = rules->players;
    int next = 0;
    for (int round = 0; round < rules->hand_size; round++)
        for (int k = 1; k <= n; k++)
            st->hand[(dealer + k) % n] |= SG_CARD_BIT(deck[next++]);
    for (int k = 1; k <= n; k++) {
        const uint8_t seat = (uint8_t)((dealer + k) % n);
        sg_emit(ev, SG_EVENT_KIND_DEAL, seat, 0, st->hand[seat]);
    }
    st->stock_len = (uint8_t)(SG_NCARDS - next);
    if (rules->trump == SG_TRUMP_RULE_UPCARD) {
        /* The next card is turned up and goes to the bottom of the stock (§2). */
        st->upcard = deck[next];
        memcpy(st->stock, deck + next + 1, (size_t)st->stock_len - 1);
        st->stock[st->stock_len - 1] = st->upcard;
        st->trump = (uint8_t)SG_SUIT_OF(st->upcard);
        st->trump_public = 1;
        sg_emit(ev, SG_EVENT_KIND_UPCARD, SG_NO_SEAT, st->trump, SG_CARD_BIT(st->upcard));
        sg_emit(ev, SG_EVENT_KIND_TRUMP, SG_NO_SEAT, st->trump, 0);
    } else {
        memcpy(st->stock, deck + next, st->stock_len);
    }

    st->phase = SG_PHASE_COLLECTING;
    sg_collecting_begin(st, ev);
    return SG_ERROR_NONE;
}

int sg_new_shedding(sg_state *st, const sg_rules *rules,
                    const uint64_t hands[SG_MAX_PLAYERS], uint8_t trump,
                    uint8_t leader, sg_events *ev)
{
    if (sg_rules_check(rules, NULL) != SG_RULES_ERROR_NONE)
        return SG_ERROR_RULES;
    const int n = rules->players;
    if (leader >= n)
        return SG_ERROR_SEAT;
    if (trump > SG_NO_SUIT)
        return SG_ERROR_POSITION;
    uint64_t seen = 0;
    for (int p = 0; p < SG_MAX_PLAYERS; p++) {
        if ((hands[p] & ~SG_ALL_CARDS) || (hands[p] & seen) || (p >= n && hands[p]))
            return SG_ERROR_POSITION;
        seen |= hands[p];
    }

    init_state(st, rules, (uint8_t)((leader + n - 1) % n));
    for (int p = 0; p < n; p++)
        st->hand[p] = hands[p];
    st->out = SG_ALL_CARDS & ~seen;
    st->trump = trump;
    st->trump_public = 1;
    sg_emit(ev, SG_EVENT_KIND_TRUMP, SG_NO_SEAT, trump, 0);
    sg_shedding_start(st, leader, leader, 0, ev);
    return SG_ERROR_NONE;
}

int sg_legal_moves(const sg_state *st, sg_move moves[SG_MAX_MOVES])
{
    switch (st->phase) {
    case SG_PHASE_COLLECTING:
        return sg_collecting_moves(st, moves);
    case SG_PHASE_SHEDDING:
        return sg_shedding_moves(st, moves);
    default:
        return 0;
    }
}

void sg_apply_unchecked(sg_state *st, sg_move move, sg_events *ev)
{
    if (st->phase == SG_PHASE_COLLECTING)
        sg_collecting_apply(st, move, ev);
    else
        sg_shedding_apply(st, move, ev);
    st->moves++;
    if (st->phase != SG_PHASE_OVER && st->moves >= st->rules.max_moves) {
        st->phase = SG_PHASE_OVER;
        st->truncated = 1;
        st->to_move = SG_NO_SEAT;
        sg_emit(ev, SG_EVENT_KIND_TRUNCATED, SG_NO_SEAT, 0, 0);
    }
}

#define KIND_BITS (UINT64_C(7) << 61)

int sg_why_illegal(const sg_state *st, sg_move move, uint64_t *detail)
{
    uint64_t unused;
    if (!detail)
        detail = &unused;
    *detail = 0;
    if (st->phase != SG_PHASE_COLLECTING && st->phase != SG_PHASE_SHEDDING)
        return SG_ILLEGAL_GAME_OVER;
    const unsigned kind = SG_MOVE_KIND_OF(move);
    const uint64_t cards = SG_MOVE_CARDS(move);
    const uint64_t stray = move & ~SG_ALL_CARDS & ~KIND_BITS;
    if (kind > SG_MOVE_KIND_PASS || stray) {
        *detail = kind > SG_MOVE_KIND_PASS ? move & KIND_BITS : stray;
        return SG_ILLEGAL_MALFORMED;
    }
    const int takes_cards = kind == SG_MOVE_KIND_PLAY || kind == SG_MOVE_KIND_SLOUGH;
    if (takes_cards != (cards != 0)) {
        *detail = cards;
        return SG_ILLEGAL_MALFORMED;
    }
    if (st->phase == SG_PHASE_COLLECTING)
        return sg_collecting_why_illegal(st, kind, cards, detail);
    return sg_shedding_why_illegal(st, kind, cards, detail);
}

#define ILLEGAL_NAME(constant, number, name) [constant] = name,
#define PLUS_ONE(constant, number, name) +1
static const char *const illegal_names[] = {SG_ILLEGAL_VALUES(ILLEGAL_NAME)};
SG_STATIC_ASSERT(sizeof illegal_names / sizeof illegal_names[0] == 0 SG_ILLEGAL_VALUES(PLUS_ONE),
                 every_reason_has_a_name);

const char *sg_illegal_name(int reason)
{
    const int count = (int)(sizeof illegal_names / sizeof illegal_names[0]);
    return reason >= 0 && reason < count ? illegal_names[reason] : NULL;
}

int sg_apply(sg_state *st, sg_move move, sg_events *ev)
{
    switch (sg_why_illegal(st, move, NULL)) {
    case SG_ILLEGAL_NONE:
        sg_apply_unchecked(st, move, ev);
        return SG_ERROR_NONE;
    case SG_ILLEGAL_GAME_OVER:
        return SG_ERROR_OVER;
    default:
        return SG_ERROR_ILLEGAL;
    }
}

uint64_t sg_unknown(const sg_state *st, uint8_t seat, uint8_t slots[SG_MAX_PLAYERS + 2])
{
    uint64_t placed = st->hand[seat] | st->coll[seat] | st->out | sg_table_mask(st);
    for (int p = 0; p < SG_MAX_PLAYERS; p++) {
        slots[p] = 0;
        if (p == seat || p >= st->rules.players)
            continue;
        placed |= st->known[p];
        /* In a view, unseen[p] counts the cards of p's hand it does not name. */
        slots[p] = (uint8_t)(sg_popcount(st->hand[p] | st->coll[p]) - sg_popcount(st->known[p]) +
                             st->unseen[p]);
    }
    int stock = st->stock_len - st->stock_top;
    if (stock && st->upcard != SG_NO_CARD) {
        placed |= SG_CARD_BIT(st->upcard); /* face up at the bottom of the stock */
        stock--;
    }
    slots[SG_MAX_PLAYERS] = (uint8_t)stock;
    slots[SG_MAX_PLAYERS + 1] = st->hidden_card != SG_NO_CARD;
    return SG_ALL_CARDS & ~placed;
}

int sg_observe(const sg_state *st, uint8_t seat, sg_observation *obs)
{
    const int n = st->rules.players;
    if (seat >= n)
        return SG_ERROR_SEAT;
    memset(obs, 0, sizeof *obs);
    uint8_t slots[SG_MAX_PLAYERS + 2];
    obs->unknown = sg_unknown(st, seat, slots);
    obs->hand = st->hand[seat];
    obs->collection = st->coll[seat];
    obs->out_of_play = st->out;
    for (int p = 0; p < n; p++) {
        obs->known[p] = p == seat ? st->hand[p] | st->coll[p] : st->known[p];
        obs->hand_sizes[p] = (uint8_t)(sg_popcount(st->hand[p]) + st->unseen[p]);
        obs->collection_sizes[p] = (uint8_t)sg_popcount(st->coll[p]);
        obs->unknown_slots[p] = slots[p];
    }
    /* One entry per play: its cards share a play number. */
    int plays = 0;
    for (int i = 0; i < st->table_len; i++) {
        if (i && st->table_play[i] != st->table_play[i - 1])
            plays++;
        obs->table_cards[plays] |= SG_CARD_BIT(st->table[i]);
        obs->table_seat[plays] = st->table_seat[i];
    }
    obs->n_table_plays = (uint8_t)(st->table_len ? plays + 1 : 0);
    obs->moves_played = st->moves;
    obs->seat = seat;
    obs->players = st->rules.players;
    obs->phase = st->phase;
    obs->to_move = st->to_move;
    obs->dealer = st->dealer;
    obs->trump = st->trump_public ? st->trump : SG_NO_SUIT;
    const int stock = st->stock_len - st->stock_top;
    obs->upcard = stock ? st->upcard : SG_NO_CARD;
    obs->slough_winner = st->window ? st->winner : SG_NO_SEAT;
    obs->hidden_holder = st->hidden_card != SG_NO_CARD ? st->hidden_holder : SG_NO_SEAT;
    obs->stock_size = (uint8_t)stock;
    obs->stock_slots = slots[SG_MAX_PLAYERS];
    obs->hidden_slots = slots[SG_MAX_PLAYERS + 1];
    obs->n_finished = st->n_finished;
    for (int i = 0; i < st->n_finished; i++)
        obs->finished[i] = st->finished[i];
    return SG_ERROR_NONE;
}

int sg_game_result(const sg_state *st, sg_result *result)
{
    if (st->phase != SG_PHASE_OVER)
        return SG_ERROR_NOT_OVER;
    memset(result, 0, sizeof *result);
    result->moves = st->moves;
    result->loser = st->loser;
    result->truncated = st->truncated;
    int n = 0;
    for (; n < st->n_finished; n++)
        result->finish_order[n] = st->finished[n];
    if (st->loser != SG_NO_SEAT)
        result->finish_order[n++] = st->loser;
    result->n_finish = (uint8_t)n;
    return SG_ERROR_NONE;
}
