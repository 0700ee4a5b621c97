/* Equivalent moves (docs/bots.md "Equivalent moves"): in phase 2, plays of
 * cards of one suit with no card still in play between them.
 *
 * Take the mover's cards a < b of one suit with every card strictly between
 * them out of play.  Every card still in play compares with a exactly as with
 * b (no card in play lies between), so the swap of a and b maps the position
 * after playing a onto the position after playing b, every later move onto a
 * move, until a and b themselves meet: the mover, still holding b, must beat
 * his own a (or a picked-up a comes back against him).  There the position
 * after a is the better one for the mover (he keeps the higher card), so the
 * lowest card of each such class stands for the class.  Under runs=True and
 * pickup=TOP_RUN the rank next to a card matters too (a run, a run picked
 * up): a class is then a block of consecutive ranks whose neighbours on both
 * sides are out of play, and only its two ends are equivalent (playing the
 * top end keeps the same shape of run as playing the bottom end; a middle card
 * splits it), and so are the runs from its bottom and to its top of one
 * length.  Phase 1 has no such classes: a card won there is played in phase 2,
 * where its suit counts. */
#include "internal.h"

/* Bits of ranks lo+1 .. hi-1 in a suit's 13-bit lane. */
static uint32_t between(int lo, int hi)
{
    return ((1u << hi) - 1u) & ~((2u << lo) - 1u);
}

int sg_merge_moves(const sg_state *st, sg_move moves[SG_MAX_MOVES], int n)
{
    if (st->phase != SG_PHASE_SHEDDING || st->to_move >= st->rules.players || n <= 1)
        return n;
    const uint64_t hand = st->hand[st->to_move];
    const uint64_t live = SG_ALL_CARDS & ~st->out;
    const int adjacent = st->rules.runs || st->rules.pickup == SG_PICKUP_TOP_RUN;
    /* For each card in hand: the lowest and highest rank of its class, and
     * whether the class's outer neighbours are out of play. */
    int8_t lo_of[SG_NCARDS], hi_of[SG_NCARDS];
    uint8_t apart[SG_NCARDS];
    for (int s = 0; s < 4; s++) {
        const uint32_t h = (uint32_t)(hand >> (16 * s)) & 0x1FFFu;
        const uint32_t l = (uint32_t)(live >> (16 * s)) & 0x1FFFu;
        int r = 0;
        while (r < 13) {
            if (!(h >> r & 1)) {
                r++;
                continue;
            }
            int hi = r;
            for (int next = r + 1; next < 13; next++) {
                if (!(h >> next & 1))
                    continue;
                if (adjacent ? next != hi + 1 : (l & between(hi, next)) != 0)
                    break;
                hi = next;
            }
            const int below = r > 0 && (l >> (r - 1) & 1);
            const int above = hi < 12 && (l >> (hi + 1) & 1);
            for (int k = r; k <= hi; k++) {
                const int card = SG_CARD(s, k);
                lo_of[card] = (int8_t)r;
                hi_of[card] = (int8_t)hi;
                apart[card] = (uint8_t)(!below && !above);
            }
            r = hi + 1;
        }
    }
    int kept = 0;
    for (int i = 0; i < n; i++) {
        const sg_move m = moves[i];
        const uint64_t cards = SG_MOVE_CARDS(m);
        int drop = 0;
        if (SG_MOVE_KIND_OF(m) == SG_MOVE_KIND_PLAY && cards && !(cards & ~hand)) {
            const int bottom = sg_lowest(cards);
            int top = bottom;
            for (uint64_t c = cards; c; c &= c - 1)
                top = sg_lowest(c);
            const int lo = lo_of[bottom], hi = hi_of[bottom];
            if (!adjacent)
                drop = cards == SG_CARD_BIT(bottom) && SG_RANK_OF(bottom) != lo;
            else
                drop = apart[bottom] && lo != hi && SG_RANK_OF(top) == hi &&
                       SG_RANK_OF(bottom) != lo;
        }
        if (!drop)
            moves[kept++] = m;
    }
    return kept;
}
