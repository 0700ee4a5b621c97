/* Phase 2, shedding: beat the top card or pick up (docs/rules.md §5, §6, with
 * the decisions taken there for the variants). */
#include "internal.h"

/* Cards of rank 2..5 in every suit (§5.4). */
#define LOW_CARDS UINT64_C(0x000F000F000F000F)

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
    sg_emit(ev, SG_EVENT_KIND_OUT, seat, 0, 0);
}

/* Puts out, in seat order from `first`, every player who has no cards and is
 * not out yet. */
static void outs_from(sg_state *st, uint8_t first, sg_events *ev)
{
    const int n = st->rules.players;
    for (int k = 0; k < n; k++) {
        const uint8_t p = (uint8_t)((first + k) % n);
        int gone = 0;
        for (int i = 0; i < st->n_finished; i++)
            gone |= st->finished[i] == p;
        if (!st->hand[p] && !gone)
            go_out(st, p, ev);
    }
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
    st->phase = SG_PHASE_OVER;
    st->to_move = SG_NO_SEAT;
    st->loser = holder;
    sg_emit(ev, SG_EVENT_KIND_GAME_OVER, holder, 0, 0);
    return 1;
}

static void lead_by(sg_state *st, uint8_t seat)
{
    st->leader = seat;
    st->to_move = seat;
    st->trick_target = 0;
    st->trick_turns = 0;
}

/* The low-card house rule (§5.4): short players get the others' low cards. */
static void give_low_cards(sg_state *st, sg_events *ev)
{
    const int n = st->rules.players;
    const int k = st->rules.low_card_threshold;
    uint8_t shorts[SG_MAX_PLAYERS];
    int n_short = 0;
    uint64_t pool = 0;
    for (int i = 1; i <= n; i++) {
        const uint8_t p = (uint8_t)((st->dealer + i) % n);
        const int held = sg_popcount(st->hand[p]);
        if (held > 0 && held < k)
            shorts[n_short++] = p;
        else if (held >= k)
            pool |= st->hand[p] & LOW_CARDS;
    }
    if (!n_short || !pool)
        return;
    int next = 0;
    for (int rank = 0; rank < 4; rank++) {
        for (int suit = 0; suit < 4; suit++) {
            const uint64_t bit = SG_CARD_BIT(SG_CARD(suit, rank));
            if (!(pool & bit))
                continue;
            uint8_t from = 0;
            while (!(st->hand[from] & bit))
                from++;
            const uint8_t to = shorts[next++ % n_short];
            st->hand[from] &= ~bit;
            st->known[from] &= ~bit;
            st->hand[to] |= bit;
            st->known[to] |= bit;
            sg_emit(ev, SG_EVENT_KIND_GIVE, from, to, bit);
        }
    }
}

void sg_shedding_start(sg_state *st, uint8_t leader, uint8_t first_out, int low_cards,
                       sg_events *ev)
{
    st->phase = SG_PHASE_SHEDDING;
    outs_from(st, first_out, ev);
    if (check_over(st, ev))
        return;
    if (low_cards && st->rules.low_card_threshold) {
        give_low_cards(st, ev);
        outs_from(st, first_out, ev);
        if (check_over(st, ev))
            return;
    }
    if (!st->hand[leader])
        leader = next_holding(st, leader);
    lead_by(st, leader);
    sg_emit(ev, SG_EVENT_KIND_SHEDDING, leader, 0, 0);
}

int sg_shedding_moves(const sg_state *st, sg_move *moves)
{
    const uint64_t hand = st->hand[st->to_move];
    const int leading = st->table_len == 0;
    const uint8_t top = leading ? 0 : st->table[st->table_len - 1];
    uint64_t singles = hand;
    if (!leading) {
        singles = hand & sg_above(top);
        if (st->trump != SG_NO_SUIT && SG_SUIT_OF(top) != st->trump)
            singles |= hand & SG_SUIT_MASK(st->trump);
    }
    int n = 0;
    if (!st->rules.runs) {
        for (; singles; singles &= singles - 1)
            moves[n++] = SG_MAKE_MOVE(SG_MOVE_KIND_PLAY, singles & (~singles + 1));
    } else {
        /* A run is legal when its lowest card is: the cards that can top one
         * are those reached upwards from a legal card through held cards (a
         * shift never crosses suits: each suit's lane has three spare bits).
         * By ascending mask: a run's highest card decides its place, then the
         * longer runs below it. */
        uint64_t reach = singles;
        for (uint64_t step = singles; (step = (step << 1) & hand);)
            reach |= step;
        for (; reach; reach &= reach - 1) {
            uint64_t run = reach & (~reach + 1);
            uint8_t low = (uint8_t)sg_lowest(run);
            for (;;) {
                if (singles & SG_CARD_BIT(low))
                    moves[n++] = SG_MAKE_MOVE(SG_MOVE_KIND_PLAY, run);
                if (SG_RANK_OF(low) == 0 || !(hand & SG_CARD_BIT(low - 1)))
                    break;
                low--;
                run |= SG_CARD_BIT(low);
            }
        }
    }
    if (!leading)
        moves[n++] = SG_MAKE_MOVE(SG_MOVE_KIND_PICK_UP, 0);
    return n;
}

int sg_shedding_why_illegal(const sg_state *st, unsigned kind, uint64_t cards,
                            uint64_t *detail)
{
    const uint64_t hand = st->hand[st->to_move];
    const int leading = st->table_len == 0;
    switch (kind) {
    case SG_MOVE_KIND_SLOUGH:
    case SG_MOVE_KIND_PASS:
        return SG_ILLEGAL_NO_WINDOW;
    case SG_MOVE_KIND_FLIP:
        return SG_ILLEGAL_FLIP_PHASE;
    case SG_MOVE_KIND_PICK_UP:
        return leading ? SG_ILLEGAL_PICK_UP_EMPTY : SG_ILLEGAL_NONE;
    default:
        break;
    }
    /* A play: one hand card or (with runs) a run of them, whose lowest card
     * beats the top card unless the player leads. */
    if (cards & ~hand) {
        *detail = cards & ~hand;
        return SG_ILLEGAL_NOT_HELD;
    }
    if (cards & (cards - 1)) {
        *detail = cards;
        if (!st->rules.runs)
            return SG_ILLEGAL_ONE_CARD_SHEDDING;
        /* Consecutive bits; the spare bits between suits keep them in one. */
        const uint64_t shifted = cards >> sg_lowest(cards);
        if (shifted & (shifted + 1))
            return SG_ILLEGAL_NOT_A_RUN;
        *detail = 0;
    }
    if (!leading) {
        const uint8_t top = st->table[st->table_len - 1];
        uint64_t beats = sg_above(top);
        if (st->trump != SG_NO_SUIT && SG_SUIT_OF(top) != st->trump)
            beats |= SG_SUIT_MASK(st->trump);
        if (!(cards & (~cards + 1) & beats)) {
            *detail = SG_CARD_BIT(top);
            return SG_ILLEGAL_DOES_NOT_BEAT;
        }
    }
    return SG_ILLEGAL_NONE;
}

/* The trick is over: its cards go out of play and `seat` (or his next
 * player, if he is out) leads the next one. */
static void discard(sg_state *st, uint8_t seat, sg_events *ev)
{
    const uint64_t done = sg_table_mask(st);
    st->out |= done;
    st->table_len = 0;
    sg_emit(ev, SG_EVENT_KIND_DISCARD, seat, 0, done);
    lead_by(st, st->hand[seat] ? seat : next_holding(st, seat));
}

static void play(sg_state *st, uint8_t seat, uint64_t cards, sg_events *ev)
{
    if (!st->table_len)
        st->trick_target = (uint8_t)sg_holding_count(st); /* the leader counts (§6.5) */
    st->trick_turns++;
    const uint8_t play_no = st->table_len ? (uint8_t)(st->table_play[st->table_len - 1] + 1) : 0;
    for (uint64_t c = cards; c; c &= c - 1) {
        const uint8_t i = st->table_len++;
        st->table[i] = (uint8_t)sg_lowest(c);
        st->table_seat[i] = seat;
        st->table_play[i] = play_no;
    }
    st->hand[seat] &= ~cards;
    st->known[seat] &= ~cards;
    sg_emit(ev, SG_EVENT_KIND_PLAY, seat, 0, cards);
    if (!st->hand[seat])
        go_out(st, seat, ev);
    if (check_over(st, ev))
        return;
    const int done = st->rules.trick_end == SG_TRICK_END_COUNT ? play_no + 1 >= st->trick_target
                                                     : st->trick_turns >= st->trick_target;
    if (done)
        discard(st, seat, ev);
    else
        st->to_move = next_holding(st, seat);
}

static void pick_up(sg_state *st, uint8_t seat, sg_events *ev)
{
    uint64_t taken = 0;
    uint8_t card = st->table[--st->table_len];
    taken |= SG_CARD_BIT(card);
    if (st->rules.pickup == SG_PICKUP_PILE) {
        taken |= sg_table_mask(st);
        st->table_len = 0;
    } else if (st->rules.pickup == SG_PICKUP_TOP_RUN) {
        while (st->table_len && SG_RANK_OF(card) > 0 &&
               st->table[st->table_len - 1] == card - 1) {
            card = st->table[--st->table_len];
            taken |= SG_CARD_BIT(card);
        }
    }
    st->hand[seat] |= taken;
    st->known[seat] |= taken;
    st->trick_turns++;
    sg_emit(ev, SG_EVENT_KIND_PICK_UP, seat, 0, taken);
    if (!st->table_len) {
        lead_by(st, next_holding(st, seat)); /* §6.6 */
        return;
    }
    if (st->rules.trick_end == SG_TRICK_END_ROTATION && st->trick_turns >= st->trick_target) {
        discard(st, st->table_seat[st->table_len - 1], ev);
        return;
    }
    st->to_move = next_holding(st, seat);
}

void sg_shedding_apply(sg_state *st, sg_move move, sg_events *ev)
{
    const uint8_t seat = st->to_move;
    if (SG_MOVE_KIND_OF(move) == SG_MOVE_KIND_PICK_UP)
        pick_up(st, seat, ev);
    else
        play(st, seat, SG_MOVE_CARDS(move), ev);
}
