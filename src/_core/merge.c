/* Equivalent moves (docs/bots.md "Equivalent moves"): in phase 2, plays of
 * cards of one suit with no card still in play between them.
 *
 * Take the mover's cards a < b of one suit with every card strictly between
 * them out of play.  Every card still in play compares with a exactly as with
 * b (no card in play lies between), so the swap of a and b maps the position
 * after playing a onto the position after playing b, every later move onto a
 * move, until a and b themselves meet: the mover, still holding b, must beat
 * his own a (or a picked-up a comes back against him).  There the mover who
 * played a keeps every option the one who played b has, and more (the higher
 * card beats all the lower one beats), so the lowest card of each such class
 * stands for the class: the merge is exact but for that case, where it keeps
 * the play that is the better one as a rule, not provably in every game.  Under runs=True and
 * pickup=TOP_RUN the rank next to a card matters too (a run, a run picked
 * up): a class is then a block of consecutive ranks whose neighbours on both
 * sides are out of play, and only its two ends are equivalent (playing the
 * top end keeps the same shape of run as playing the bottom end; a middle card
 * splits it), and so are the runs from its bottom and to its top of one
 * length.  Phase 1 has no such classes: a card won there is played in phase 2,
 * where its suit counts. */
#include "internal.h"

/* The lowest rank of the block of consecutive ranks of `hand` (one suit's lane)
 * that holds rank r. */
static int block_bottom(uint32_t hand, int r)
{
    while (r > 0 && (hand >> (r - 1) & 1))
        r--;
    return r;
}

/* What the merge of one position needs: the mover's hand, the cards in play,
 * whether adjacent ranks matter; `active` is 0 where nothing merges. */
typedef struct merge_view {
    uint64_t hand;
    uint64_t live;
    int adjacent;
    int active;
} merge_view;

static merge_view merge_view_of(const sg_state *st)
{
    merge_view v = {0, 0, 0, 0};
    if (st->phase != SG_PHASE_SHEDDING || st->to_move >= st->rules.players)
        return v;
    v.hand = st->hand[st->to_move];
    v.live = SG_ALL_CARDS & ~st->out;
    v.adjacent = st->rules.runs || st->rules.pickup == SG_PICKUP_TOP_RUN;
    v.active = 1;
    return v;
}

/* Whether `m` goes behind another move of its class (an active view). */
static int merged_away(const merge_view *v, sg_move m)
{
    const uint64_t cards = SG_MOVE_CARDS(m);
    if (SG_MOVE_KIND_OF(m) != SG_MOVE_KIND_PLAY || !cards || (cards & ~v->hand))
        return 0;
    const int bottom = sg_lowest(cards);
    const int suit = SG_SUIT_OF(bottom);
    if (!v->adjacent) {
        /* A single card goes behind the next lower card in play of its suit
         * when that card is the mover's too. */
        const uint64_t below = v->live & SG_SUIT_MASK(suit) & (SG_CARD_BIT(bottom) - 1);
        return cards == SG_CARD_BIT(bottom) && below && (v->hand >> sg_highest(below) & 1);
    }
    /* The top end of a block of the mover's consecutive ranks whose outer
     * neighbours are out of play, and the runs up to it (not from its
     * bottom), go behind the bottom end and the runs from it. */
    const uint32_t h = (uint32_t)(v->hand >> (16 * suit)) & 0x1FFFu;
    const uint32_t l = (uint32_t)(v->live >> (16 * suit)) & 0x1FFFu;
    const int top = SG_RANK_OF(sg_highest(cards));
    const int lo = block_bottom(h, SG_RANK_OF(bottom));
    return !(h >> (top + 1) & 1) && !(l >> (top + 1) & 1) && !(lo > 0 && (l >> (lo - 1) & 1)) &&
           SG_RANK_OF(bottom) != lo;
}

int sg_merge_moves(const sg_state *st, sg_move moves[SG_MAX_MOVES], int n)
{
    const merge_view v = merge_view_of(st);
    if (!v.active || n <= 1)
        return n;
    int kept = 0;
    for (int i = 0; i < n; i++)
        if (!merged_away(&v, moves[i]))
            moves[kept++] = moves[i];
    return kept;
}

/* Tries of the rejection draw before it merges the whole list. */
#define MERGE_DRAW_TRIES 16

sg_move sg_merge_draw(const sg_state *st, sg_move moves[SG_MAX_MOVES], int n, sg_rng *rng)
{
    const merge_view v = merge_view_of(st);
    if (v.active && n > 1) {
        /* A uniform draw among all n, kept when it is its class's move: uniform
         * among the kept ones, at the cost of one move's test a try (a quarter of
         * the moves or so go behind others, so about 1.3 tries). */
        for (int t = 0; t < MERGE_DRAW_TRIES; t++) {
            const sg_move m = moves[sg_rng_below_inline(rng, (uint32_t)n)];
            if (!merged_away(&v, m))
                return m;
        }
        n = sg_merge_moves(st, moves, n); /* rare: the same distribution */
    }
    return moves[sg_rng_below_inline(rng, (uint32_t)n)];
}
