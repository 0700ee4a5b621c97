/* Phase 1, collecting: two-card duels or everyone playing to each trick
 * (docs/rules.md §3, §4, with the decisions taken there for the variants). */
#include "internal.h"

static int stock_count(const sg_state *st)
{
    return st->stock_len - st->stock_top;
}

static uint8_t all_seats(const sg_state *st)
{
    return (uint8_t)((1u << st->rules.players) - 1);
}

/* The first seat of `seats` (bits) clockwise from `from`, `from` included. */
static uint8_t first_from(const sg_state *st, uint8_t seats, uint8_t from)
{
    for (int k = 0; k < st->rules.players; k++) {
        const uint8_t p = (uint8_t)((from + k) % st->rules.players);
        if (seats & (1u << p))
            return p;
    }
    return SG_NO_SEAT;
}

/* Lays `cards` (ascending) on the table as one new play of `seat`. */
static void push_play(sg_state *st, uint64_t cards, uint8_t seat)
{
    const uint8_t play = st->table_len ? (uint8_t)(st->table_play[st->table_len - 1] + 1) : 0;
    for (; cards; cards &= cards - 1) {
        const uint8_t i = st->table_len++;
        st->table[i] = (uint8_t)sg_lowest(cards);
        st->table_seat[i] = seat;
        st->table_play[i] = play;
    }
}

/* The last stock card has been drawn by `seat` (§3.7, §3.8, §5.1). */
static void drew_last(sg_state *st, uint8_t seat, uint8_t card, sg_events *ev)
{
    const uint64_t bit = SG_CARD_BIT(card);
    st->last_drawer = seat;
    if (card == st->upcard) {
        /* The up-card is public: its drawer takes it into his hand in view of all. */
        st->hand[seat] |= bit;
        st->known[seat] |= bit;
        sg_emit(ev, SG_EVENT_KIND_TAKE_UPCARD, seat, 0, bit);
        if (st->rules.last_card == SG_LAST_CARD_REVEAL)
            st->end_pending = 1;
        return;
    }
    if (st->rules.trump == SG_TRUMP_RULE_LAST_CARD)
        st->trump = (uint8_t)SG_SUIT_OF(card);
    if (st->rules.last_card == SG_LAST_CARD_HIDDEN) {
        st->hidden_card = card;
        st->hidden_holder = seat;
        sg_emit(ev, SG_EVENT_KIND_DRAW_HIDDEN, seat, 0, 0);
        return;
    }
    st->hand[seat] |= bit;
    st->known[seat] |= bit;
    sg_emit(ev, SG_EVENT_KIND_REVEAL, seat, 0, bit);
    st->trump_public = 1;
    sg_emit(ev, SG_EVENT_KIND_TRUMP, SG_NO_SEAT, st->trump, 0);
    st->end_pending = 1;
}

/* Draws up to `count` cards for `seat` (§3.4). */
static void draw(sg_state *st, uint8_t seat, int count, sg_events *ev)
{
    uint64_t drawn = 0;
    for (; count > 0 && stock_count(st) > 0; count--) {
        const uint8_t card = st->stock[st->stock_top++];
        if (stock_count(st) == 0) {
            if (drawn) {
                st->hand[seat] |= drawn;
                sg_emit(ev, SG_EVENT_KIND_DRAW, seat, 0, drawn);
            }
            drew_last(st, seat, card, ev);
            return;
        }
        drawn |= SG_CARD_BIT(card);
    }
    if (drawn) {
        st->hand[seat] |= drawn;
        sg_emit(ev, SG_EVENT_KIND_DRAW, seat, 0, drawn);
    }
}

static void refill(sg_state *st, uint8_t seat, sg_events *ev)
{
    const int missing = st->rules.hand_size - sg_popcount(st->hand[seat]);
    if (missing > 0 && !st->end_pending)
        draw(st, seat, missing, ev);
}

/* Phase 1 is over: an unfinished trick goes back to the hands that played
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
            sg_emit(ev, SG_EVENT_KIND_TAKE_BACK, (uint8_t)p, 0, back);
        }
    }
    st->table_len = 0;
    st->window = 0;
    st->round_pending = 0;
    st->end_pending = 0;

    if (st->hidden_card != SG_NO_CARD) {
        const uint64_t bit = SG_CARD_BIT(st->hidden_card);
        st->coll[st->hidden_holder] |= bit;
        st->known[st->hidden_holder] |= bit;
        sg_emit(ev, SG_EVENT_KIND_REVEAL, st->hidden_holder, 0, bit);
        st->hidden_card = SG_NO_CARD;
    }
    if (!st->trump_public) {
        st->trump_public = 1;
        sg_emit(ev, SG_EVENT_KIND_TRUMP, SG_NO_SEAT, st->trump, 0);
    }
    for (int p = 0; p < n; p++) {
        st->hand[p] |= st->coll[p];
        st->coll[p] = 0;
    }
    sg_shedding_start(st, st->last_drawer, sg_left_of(st, st->dealer), 1, ev);
}

/* `seat` must play: refill an empty hand first (§3.10), or end phase 1. */
static void turn(sg_state *st, uint8_t seat, sg_events *ev)
{
    if (!st->hand[seat] && stock_count(st) > 0)
        refill(st, seat, ev);
    if (!st->hand[seat] || st->end_pending) {
        end_collecting(st, ev);
        return;
    }
    st->to_move = seat;
}

static void start_trick(sg_state *st, uint8_t leader, sg_events *ev)
{
    st->leader = leader;
    st->follower = sg_left_of(st, leader);
    st->round_first = leader;
    st->round_start = 0;
    st->round_pending = st->rules.trick_mode == SG_TRICK_MODE_ALL ? all_seats(st) : 0;
    turn(st, leader, ev);
}

/* A trick was won or bounced: refill after the trick, then the next one. */
static void trick_decided(sg_state *st, uint8_t next_leader, sg_events *ev)
{
    if (st->rules.draw == SG_DRAW_AFTER_TRICK)
        for (int k = 0; k < st->rules.players && !st->end_pending; k++)
            refill(st, (uint8_t)((next_leader + k) % st->rules.players), ev);
    if (st->end_pending) {
        end_collecting(st, ev);
        return;
    }
    start_trick(st, next_leader, ev);
}

static void collect(sg_state *st, uint8_t winner, sg_events *ev)
{
    const uint64_t won = sg_table_mask(st);
    st->coll[winner] |= won;
    st->known[winner] |= won;
    st->table_len = 0;
    st->window = 0;
    sg_emit(ev, SG_EVENT_KIND_TRICK_WON, winner, 0, won);
    trick_decided(st, winner, ev);
}

/* Which of two phase-1 cards is stronger, `best` being the lead or a card
 * that beat it (§3.5, §5.1 for trump=UPCARD): 1 if `card` beats `best`,
 * 0 if not, -1 on a tie. */
static int beats(const sg_state *st, uint8_t card, uint8_t best)
{
    if (st->rules.trump == SG_TRUMP_RULE_UPCARD) {
        if (SG_SUIT_OF(card) == SG_SUIT_OF(best))
            return SG_RANK_OF(card) > SG_RANK_OF(best);
        return SG_SUIT_OF(card) == st->trump;
    }
    if (SG_RANK_OF(card) == SG_RANK_OF(best))
        return -1;
    return SG_RANK_OF(card) > SG_RANK_OF(best);
}

/* Seats whose hand holds a card of a rank lying on the table (§4.4). */
static uint64_t slough_cards(const sg_state *st)
{
    uint32_t ranks = 0;
    for (int i = 0; i < st->table_len; i++)
        ranks |= 1u << SG_RANK_OF(st->table[i]);
    return SG_RANK_CARDS(ranks);
}

/* The next seat of the window after `seat` that can throw something; the
 * window closes (and the winner collects) when there is none. */
static void window_next(sg_state *st, uint8_t seat, sg_events *ev)
{
    const uint64_t cards = slough_cards(st);
    for (int k = 1; k <= st->rules.players; k++) {
        const uint8_t p = (uint8_t)((seat + k) % st->rules.players);
        if (!(st->window & (1u << p)))
            continue;
        if (st->hand[p] & cards) {
            st->to_move = p;
            return;
        }
        st->window &= (uint8_t)~(1u << p);
    }
    collect(st, st->winner, ev);
}

static void won_by(sg_state *st, uint8_t winner, sg_events *ev)
{
    if (st->rules.trick_mode == SG_TRICK_MODE_ALL && st->rules.slough && !st->end_pending) {
        st->winner = winner;
        st->window = all_seats(st);
        window_next(st, winner, ev); /* starts with the winner's left neighbour */
        return;
    }
    collect(st, winner, ev);
}

/* Both cards of a duel are down: decide it (§3.5, §3.6). */
static void resolve_duel(sg_state *st, sg_events *ev)
{
    const uint8_t lead = st->table[st->table_len - 2];
    const uint8_t answer = st->table[st->table_len - 1];
    const int result = beats(st, answer, lead);
    if (result >= 0) {
        won_by(st, result ? st->follower : st->leader, ev);
        return;
    }
    const uint64_t tied = SG_CARD_BIT(lead) | SG_CARD_BIT(answer);
    const uint8_t seats = (uint8_t)((1u << st->leader) | (1u << st->follower));
    sg_emit(ev, SG_EVENT_KIND_TIE, st->leader, seats, tied);
    if (st->rules.duel_tie == SG_DUEL_TIE_REPLAY) {
        turn(st, st->leader, ev);
        return;
    }
    st->out |= tied;
    st->table_len = 0;
    sg_emit(ev, SG_EVENT_KIND_BOUNCE, SG_NO_SEAT, 0, tied);
    trick_decided(st, st->follower, ev);
}

/* Every player due in this round has played (§4.3). */
static void resolve_round(sg_state *st, sg_events *ev)
{
    uint8_t best = st->table[st->round_start];
    uint8_t best_seat = st->table_seat[st->round_start];
    uint8_t tied = (uint8_t)(1u << best_seat);
    for (int i = st->round_start + 1; i < st->table_len; i++) {
        const int result = beats(st, st->table[i], best);
        if (result > 0) {
            best = st->table[i];
            best_seat = st->table_seat[i];
            tied = (uint8_t)(1u << best_seat);
        } else if (result < 0) {
            tied |= (uint8_t)(1u << st->table_seat[i]);
        }
    }
    if (!(tied & (tied - 1))) {
        won_by(st, best_seat, ev);
        return;
    }
    uint64_t tied_cards = 0;
    for (int i = st->round_start; i < st->table_len; i++)
        if ((tied & (1u << st->table_seat[i])) && SG_RANK_OF(st->table[i]) == SG_RANK_OF(best))
            tied_cards |= SG_CARD_BIT(st->table[i]);
    const uint8_t first = first_from(st, tied, st->round_first);
    sg_emit(ev, SG_EVENT_KIND_TIE, first, tied, tied_cards);
    if (st->end_pending) {
        end_collecting(st, ev); /* no replay begins: everything is taken back */
        return;
    }
    if (st->rules.all_tie == SG_ALL_TIE_LOWER_OUT) {
        uint64_t gone = 0;
        int kept = 0;
        for (int i = 0; i < st->table_len; i++) {
            if (tied & (1u << st->table_seat[i])) {
                st->table[kept] = st->table[i];
                st->table_seat[kept] = st->table_seat[i];
                st->table_play[kept] = st->table_play[i];
                kept++;
            } else {
                gone |= SG_CARD_BIT(st->table[i]);
            }
        }
        st->table_len = (uint8_t)kept;
        if (gone) {
            st->out |= gone;
            sg_emit(ev, SG_EVENT_KIND_LOWER_OUT, SG_NO_SEAT, 0, gone);
        }
    }
    st->round_first = first;
    st->round_start = st->table_len;
    st->round_pending = tied;
    turn(st, first, ev);
}

int sg_collecting_moves(const sg_state *st, sg_move *moves)
{
    const uint64_t hand = st->hand[st->to_move];
    int n = 0;
    if (st->window) {
        /* Every non-empty selection of the cards that may be thrown: mapping
         * the bits of i onto those cards keeps the masks ascending. */
        const uint64_t cards = hand & slough_cards(st);
        uint64_t card_bits[SG_NCARDS];
        int count = 0;
        for (uint64_t c = cards; c; c &= c - 1)
            card_bits[count++] = c & (~c + 1);
        for (uint32_t i = 1; i < (1u << count); i++) {
            uint64_t mask = 0;
            for (int b = 0; b < count; b++)
                if (i & (1u << b))
                    mask |= card_bits[b];
            moves[n++] = SG_MAKE_MOVE(SG_MOVE_KIND_SLOUGH, mask);
        }
        moves[n++] = SG_MAKE_MOVE(SG_MOVE_KIND_PASS, 0);
        return n;
    }
    if (st->rules.trick_mode == SG_TRICK_MODE_ALL && st->rules.multi_card_plays) {
        /* Singles and every set of two or more equal cards, by ascending mask:
         * a set's highest card decides its place, then the lower cards. */
        for (uint64_t h = hand; h; h &= h - 1) {
            const uint64_t top = h & (~h + 1);
            const uint64_t same_rank = SG_RANK_CARDS(1u << SG_RANK_OF(sg_lowest(top)));
            const uint64_t below = hand & (top - 1) & same_rank;
            uint64_t lower[3];
            int count = 0;
            for (uint64_t c = below; c; c &= c - 1)
                lower[count++] = c & (~c + 1);
            for (uint32_t i = 0; i < (1u << count); i++) {
                uint64_t mask = top;
                for (int b = 0; b < count; b++)
                    if (i & (1u << b))
                        mask |= lower[b];
                moves[n++] = SG_MAKE_MOVE(SG_MOVE_KIND_PLAY, mask);
            }
        }
    } else {
        for (uint64_t h = hand; h; h &= h - 1)
            moves[n++] = SG_MAKE_MOVE(SG_MOVE_KIND_PLAY, h & (~h + 1));
    }
    if (st->rules.try_your_luck && stock_count(st) >= 2)
        moves[n++] = SG_MAKE_MOVE(SG_MOVE_KIND_FLIP, 0);
    return n;
}

int sg_collecting_why_illegal(const sg_state *st, unsigned kind, uint64_t cards,
                              uint64_t *detail)
{
    const uint64_t hand = st->hand[st->to_move];
    if (st->window) {
        /* Any non-empty selection of the cards that may be thrown, or a pass. */
        const uint64_t throwable = slough_cards(st);
        if (kind == SG_MOVE_KIND_PASS)
            return SG_ILLEGAL_NONE;
        if (kind != SG_MOVE_KIND_SLOUGH) {
            *detail = hand & throwable;
            return SG_ILLEGAL_WINDOW_OPEN;
        }
        if (cards & ~hand) {
            *detail = cards & ~hand;
            return SG_ILLEGAL_NOT_HELD;
        }
        if (cards & ~throwable) {
            *detail = cards & ~throwable;
            return SG_ILLEGAL_SLOUGH_RANK;
        }
        return SG_ILLEGAL_NONE;
    }
    switch (kind) {
    case SG_MOVE_KIND_SLOUGH:
    case SG_MOVE_KIND_PASS:
        return SG_ILLEGAL_NO_WINDOW;
    case SG_MOVE_KIND_FLIP:
        if (!st->rules.try_your_luck)
            return SG_ILLEGAL_FLIP_RULES;
        if (stock_count(st) < 2) {
            *detail = (uint64_t)stock_count(st);
            return SG_ILLEGAL_FLIP_STOCK;
        }
        return SG_ILLEGAL_NONE;
    case SG_MOVE_KIND_PICK_UP:
        return SG_ILLEGAL_PICK_UP_PHASE;
    default:
        break;
    }
    /* A play: any one hand card, or (ALL with multi-card plays) any set of
     * equal hand cards. */
    if (cards & ~hand) {
        *detail = cards & ~hand;
        return SG_ILLEGAL_NOT_HELD;
    }
    if (cards & (cards - 1)) {
        *detail = cards;
        if (st->rules.trick_mode != SG_TRICK_MODE_ALL || !st->rules.multi_card_plays)
            return SG_ILLEGAL_ONE_CARD_COLLECTING;
        if (cards & ~SG_RANK_CARDS(1u << SG_RANK_OF(sg_lowest(cards))))
            return SG_ILLEGAL_MIXED_RANKS;
        *detail = 0;
    }
    return SG_ILLEGAL_NONE;
}

/* `seat` lays hand cards on the table (a play or a slough) and, drawing
 * after each play, refills (§3.4, §4.5). */
static void lay(sg_state *st, uint8_t seat, uint64_t cards, uint8_t event, sg_events *ev)
{
    st->hand[seat] &= ~cards;
    st->known[seat] &= ~cards;
    push_play(st, cards, seat);
    sg_emit(ev, event, seat, 0, cards);
    if (st->rules.draw == SG_DRAW_AFTER_PLAY)
        refill(st, seat, ev);
}

static void apply_slough(sg_state *st, uint8_t seat, sg_move move, sg_events *ev)
{
    st->window &= (uint8_t)~(1u << seat);
    if (SG_MOVE_KIND_OF(move) == SG_MOVE_KIND_PASS) {
        sg_emit(ev, SG_EVENT_KIND_PASS, seat, 0, 0);
    } else {
        lay(st, seat, SG_MOVE_CARDS(move), SG_EVENT_KIND_SLOUGH, ev);
        if (st->end_pending) {
            /* The trick is decided: the winner collects before phase 1 ends. */
            collect(st, st->winner, ev);
            return;
        }
    }
    window_next(st, seat, ev);
}

void sg_collecting_apply(sg_state *st, sg_move move, sg_events *ev)
{
    const uint8_t seat = st->to_move;
    if (st->window) {
        apply_slough(st, seat, move, ev);
        return;
    }
    if (SG_MOVE_KIND_OF(move) == SG_MOVE_KIND_FLIP) {
        const uint8_t card = st->stock[st->stock_top++];
        push_play(st, SG_CARD_BIT(card), seat);
        sg_emit(ev, SG_EVENT_KIND_FLIP, seat, 0, SG_CARD_BIT(card));
    } else {
        lay(st, seat, SG_MOVE_CARDS(move), SG_EVENT_KIND_PLAY, ev);
    }
    /* A revealed last card (end_pending) ends phase 1 once this play has
     * settled what it decides: a complete duel or round is won or bounced,
     * anything else is taken back (every path below checks end_pending). */
    if (st->rules.trick_mode == SG_TRICK_MODE_DUEL) {
        if (st->table_len % 2)
            turn(st, st->follower, ev);
        else
            resolve_duel(st, ev);
        return;
    }
    st->round_pending &= (uint8_t)~(1u << seat);
    if (st->round_pending)
        turn(st, first_from(st, st->round_pending, seat), ev);
    else
        resolve_round(st, ev);
}

void sg_collecting_begin(sg_state *st, sg_events *ev)
{
    start_trick(st, sg_left_of(st, st->dealer), ev);
}
