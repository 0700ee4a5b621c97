/* skitgubbe_policy.h: the C API for rollout policies and evaluations that the
 * skitgubbe search (PIMC, ISMCTS) calls, compiled by skitgubbe.bots.policy with cffi.
 *
 * A policy is a function
 *
 *     int32_t NAME(const sg_position *pos, void *ctx);
 *
 * that returns the index (0 .. sg_n_moves(pos) - 1) of the move to play in
 * `pos`, a position of a sampled world (a determinisation: the cards a seat
 * cannot see are dealt at random, never the real ones). An evaluation is
 *
 *     int32_t NAME(const sg_position *pos, void *ctx, double value[4]);
 *
 * called before each move of a rollout: it returns 1 after writing, for each
 * seat, the chance in [0, 1] that the seat is not the skitgubbe (the rollout
 * stops there and scores these values), 0 to let the rollout go on, or a
 * negative number for an error. A negative return from a policy is an error
 * too; either ends the search with an error naming the function.
 *
 * The position is read only through the accessors below, never through the
 * core's own structures, so a policy compiled against this header keeps
 * working when the core changes; SG_POLICY_ABI says which version of this
 * table it was compiled against, and a policy of another version is refused
 * (or compiled again) when it is loaded. Nothing here may be kept after the
 * call returns. The functions are called without Python's GIL, possibly from
 * several threads at once for several searches: keep no global mutable state.
 *
 * Cards are bits of a uint64_t: bit 16 * suit + (rank - 2), suits clubs 0,
 * diamonds 1, hearts 2, spades 3, ranks 2 .. 14 (ace); SG_CARD_OF(suit, rank).
 */
#ifndef SKITGUBBE_POLICY_H
#define SKITGUBBE_POLICY_H

#include <stdint.h>

#define SG_POLICY_ABI 1

#define SG_CARD_OF(suit, rank) ((uint64_t)1 << (16 * (suit) + (rank) - 2))
#define SG_SUIT_CARDS(suit) ((uint64_t)0x1FFF << (16 * (suit)))

/* Move kinds (sg_move_kind). */
#define SG_PLAY 0   /* cards from the hand */
#define SG_FLIP 1   /* try your luck: turn the top stock card and play it */
#define SG_PICK 2   /* phase 2: pick up from the table */
#define SG_SLOUGH 3 /* slough window: throw cards of the trick's ranks */
#define SG_PASS 4   /* slough window: throw nothing */

/* Phases (sg_phase). */
#define SG_COLLECTING 0
#define SG_SHEDDING 1
#define SG_OVER 2

typedef struct sg_position sg_position;

typedef struct sg_policy_api {
    uint32_t abi;  /* SG_POLICY_ABI of the core that calls */
    uint32_t size; /* sizeof(sg_policy_api) of that core: later versions only add members */
    int32_t (*players)(const sg_position *pos);
    int32_t (*to_move)(const sg_position *pos);  /* the seat to move */
    int32_t (*phase)(const sg_position *pos);    /* SG_COLLECTING, SG_SHEDDING */
    int32_t (*trump)(const sg_position *pos);    /* suit 0..3, or -1 (none, or not yet known) */
    uint64_t (*hand)(const sg_position *pos, int32_t seat);       /* phase 2: all cards held */
    uint64_t (*collection)(const sg_position *pos, int32_t seat); /* phase 1 tricks won */
    int32_t (*stock_size)(const sg_position *pos);
    uint64_t (*table)(const sg_position *pos);   /* every card on the table */
    uint64_t (*top_play)(const sg_position *pos); /* the cards of the last play on it, or 0 */
    int32_t (*top_seat)(const sg_position *pos);  /* who made it, or -1 */
    uint64_t (*out_of_play)(const sg_position *pos);
    int32_t (*out)(const sg_position *pos, int32_t seat); /* 1 when the seat is out */
    int32_t (*n_moves)(const sg_position *pos);  /* legal moves, 1 or more */
    int32_t (*move_kind)(const sg_position *pos, int32_t i);   /* SG_PLAY ... SG_PASS */
    uint64_t (*move_cards)(const sg_position *pos, int32_t i); /* its cards (0 for flip...) */
    int32_t (*greedy)(const sg_position *pos); /* the built-in greedy policy's move index */
} sg_policy_api;

struct sg_position {
    const sg_policy_api *api;
    const void *impl; /* the core's: opaque */
};

typedef int32_t (*sg_policy_fn)(const sg_position *pos, void *ctx);
typedef int32_t (*sg_evaluate_fn)(const sg_position *pos, void *ctx, double value[4]);

/* Shorthands: sg_hand(pos, seat) is pos->api->hand(pos, seat), and so on. */
#define sg_players(pos) ((pos)->api->players(pos))
#define sg_to_move(pos) ((pos)->api->to_move(pos))
#define sg_phase(pos) ((pos)->api->phase(pos))
#define sg_trump(pos) ((pos)->api->trump(pos))
#define sg_hand(pos, seat) ((pos)->api->hand((pos), (seat)))
#define sg_collection(pos, seat) ((pos)->api->collection((pos), (seat)))
#define sg_stock_size(pos) ((pos)->api->stock_size(pos))
#define sg_table(pos) ((pos)->api->table(pos))
#define sg_top_play(pos) ((pos)->api->top_play(pos))
#define sg_top_seat(pos) ((pos)->api->top_seat(pos))
#define sg_out_of_play(pos) ((pos)->api->out_of_play(pos))
#define sg_is_out(pos, seat) ((pos)->api->out((pos), (seat)))
#define sg_n_moves(pos) ((pos)->api->n_moves(pos))
#define sg_move_kind(pos, i) ((pos)->api->move_kind((pos), (i)))
#define sg_move_cards(pos, i) ((pos)->api->move_cards((pos), (i)))
#define sg_greedy(pos) ((pos)->api->greedy(pos))

/* The lowest rank (2 .. 14) among `cards`, or 0 for none. */
static inline int32_t sg_lowest_rank(uint64_t cards)
{
    int32_t best = 0;
    for (int32_t suit = 0; suit < 4; suit++) {
        const uint64_t bits = (cards >> (16 * suit)) & 0x1FFF;
        if (bits) {
            int32_t rank = 2;
            while (!((bits >> (rank - 2)) & 1))
                rank++;
            if (!best || rank < best)
                best = rank;
        }
    }
    return best;
}

/* How many cards `cards` holds. */
static inline int32_t sg_count(uint64_t cards)
{
    int32_t n = 0;
    for (; cards; cards &= cards - 1)
        n++;
    return n;
}

#endif
