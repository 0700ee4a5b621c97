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

/* The highest card of a non-empty set. */
static int highest(uint64_t cards)
{
    int top = 0;
    for (; cards; cards &= cards - 1)
        top = sg_lowest(cards);
    return top;
}

/* The lowest rank of the block of consecutive ranks of `hand` (one suit's lane)
 * that holds rank r. */
static int block_bottom(uint32_t hand, int r)
{
    while (r > 0 && (hand >> (r - 1) & 1))
        r--;
    return r;
}

int sg_merge_moves(const sg_state *st, sg_move moves[SG_MAX_MOVES], int n)
{
    if (st->phase != SG_PHASE_SHEDDING || st->to_move >= st->rules.players || n <= 1)
        return n;
    const uint64_t hand = st->hand[st->to_move];
    const uint64_t live = SG_ALL_CARDS & ~st->out;
    const int adjacent = st->rules.runs || st->rules.pickup == SG_PICKUP_TOP_RUN;
    int kept = 0;
    for (int i = 0; i < n; i++) {
        const sg_move m = moves[i];
        const uint64_t cards = SG_MOVE_CARDS(m);
        int drop = 0;
        if (SG_MOVE_KIND_OF(m) == SG_MOVE_KIND_PLAY && cards && !(cards & ~hand)) {
            const int bottom = sg_lowest(cards);
            const int suit = SG_SUIT_OF(bottom);
            if (!adjacent) {
                /* A single card goes behind the next lower card in play of its suit
                 * when that card is the mover's too. */
                const uint64_t below = live & SG_SUIT_MASK(suit) & (SG_CARD_BIT(bottom) - 1);
                drop = cards == SG_CARD_BIT(bottom) && below && (hand >> highest(below) & 1);
            } else {
                /* The top end of a block of the mover's consecutive ranks whose outer
                 * neighbours are out of play, and the runs up to it (not from its
                 * bottom), go behind the bottom end and the runs from it. */
                const uint32_t h = (uint32_t)(hand >> (16 * suit)) & 0x1FFFu;
                const uint32_t l = (uint32_t)(live >> (16 * suit)) & 0x1FFFu;
                const int top = SG_RANK_OF(highest(cards));
                const int lo = block_bottom(h, SG_RANK_OF(bottom));
                drop = !(h >> (top + 1) & 1) && !(l >> (top + 1) & 1) &&
                       !(lo > 0 && (l >> (lo - 1) & 1)) && SG_RANK_OF(bottom) != lo;
            }
        }
        if (!drop)
            moves[kept++] = m;
    }
    return kept;
}
