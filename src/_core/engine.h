/* Internal interface between the core's source files (not part of the API). */
#ifndef SKITGUBBE_ENGINE_H
#define SKITGUBBE_ENGINE_H

#include "bits.h"

/* Records an event when the caller asked for them.  len counts every event,
 * so a caller can tell when its buffer was too small. */
static inline void sg_emit(sg_events *ev, uint8_t kind, uint8_t seat, uint8_t arg,
                           uint64_t cards)
{
    if (!ev)
        return;
    if (ev->buf && ev->len < ev->cap) {
        sg_event *e = &ev->buf[ev->len];
        e->kind = kind;
        e->seat = seat;
        e->arg = arg;
        for (int i = 0; i < 5; i++)
            e->reserved[i] = 0;
        e->cards = cards;
    }
    ev->len++;
}

static inline uint8_t sg_left_of(const sg_state *st, uint8_t seat)
{
    return (uint8_t)((seat + 1) % st->rules.players);
}

/* Table cards as a mask. */
uint64_t sg_table_mask(const sg_state *st);

/* Phase 1 (collecting.c). */
int sg_collecting_moves(const sg_state *st, sg_move *moves);
void sg_collecting_apply(sg_state *st, sg_move move, sg_events *ev);
/* Starts phase 1 after the deal: the dealer's left neighbour leads. */
void sg_collecting_begin(sg_state *st, sg_events *ev);

/* Phase 2 (shedding.c). */
int sg_shedding_moves(const sg_state *st, sg_move *moves);
void sg_shedding_apply(sg_state *st, sg_move move, sg_events *ev);
/* Puts out every player without cards (in seat order from `first_out`),
 * applies the low-card rule when `low_cards` is set, and starts phase 2 led
 * by `leader` (or his next player), unless the game is already decided. */
void sg_shedding_start(sg_state *st, uint8_t leader, uint8_t first_out, int low_cards,
                       sg_events *ev);

#endif
