/* Observation tensors for learners: what one seat knows (sg_observe), its
 * slough being chosen and the last public moves, as floats (see "tensors" in
 * skitgubbe.h for the layout). */
#include <math.h>
#include <string.h>

#include "internal.h"

/* Scalars before the rule fields (see the header's table). */
#define SCALARS 64

/* Floats that encode the rule fields: ENUM one per value, OPTIONAL_INT two
 * (set, value), BOOL and INT one. */
static int rule_floats(void)
{
    int count = 0, n = 0;
    const sg_rule_field *fields = sg_rule_fields(&count);
    for (int i = 0; i < count; i++) {
        if (fields[i].kind == SG_RULE_KIND_ENUM)
            n += (int)fields[i].n_values;
        else if (fields[i].kind == SG_RULE_KIND_OPTIONAL_INT)
            n += 2;
        else
            n += 1;
    }
    return n;
}

int sg_tensor_size(void)
{
    return SG_TENSOR_PLANES * SG_NCARDS + SG_TENSOR_RECENT * SG_TENSOR_RECENT_FLOATS + SCALARS +
           rule_floats();
}

int sg_state_tensor_size(void)
{
    return sg_tensor_size() + SG_STATE_TENSOR_PLANES * SG_NCARDS;
}

static float scaled(uint32_t value, const sg_rule_field *f)
{
    if (f->max <= 255)
        return (float)value / (float)f->max;
    /* A wide range (the move cap): its logarithm. */
    return (float)(log2((double)value + 1.0) / log2((double)f->max + 1.0));
}

static float *rules_part(float *out, const sg_rules *rules)
{
    int count = 0;
    const sg_rule_field *fields = sg_rule_fields(&count);
    for (int i = 0; i < count; i++) {
        const sg_rule_field *f = &fields[i];
        const uint32_t v = sg_rules_get(rules, i);
        switch (f->kind) {
        case SG_RULE_KIND_ENUM:
            if (v < f->n_values)
                out[v] = 1.0f;
            out += f->n_values;
            break;
        case SG_RULE_KIND_OPTIONAL_INT:
            out[0] = v != 0;
            out[1] = v != 0 ? scaled(v, f) : 0.0f;
            out += 2;
            break;
        case SG_RULE_KIND_BOOL:
            *out++ = v != 0;
            break;
        default:
            *out++ = scaled(v, f);
            break;
        }
    }
    return out;
}

static int relative(uint8_t p, uint8_t seat, uint8_t players)
{
    return (p + players - seat) % players;
}

/* One-hot of the relative seat of p (nothing for SG_NO_SEAT). */
static void seat_hot(float *out, uint8_t p, uint8_t seat, uint8_t players)
{
    if (p < players)
        out[relative(p, seat, players)] = 1.0f;
}

int sg_tensor_rules(const sg_rules *rules, float *out)
{
    const int n = rule_floats();
    memset(out, 0, (size_t)n * sizeof *out);
    rules_part(out, rules);
    return n;
}

int sg_observation_tensor(const sg_state *st, uint8_t seat, uint64_t pending,
                          const sg_public_move *recent, int n_recent, float *out)
{
    float rules[SG_TENSOR_MAX_RULE_FLOATS];
    const int n_rules = sg_tensor_rules(&st->rules, rules);
    return sg_tensor_fill(st, seat, pending, recent, n_recent, rules, n_rules, out);
}

int sg_tensor_fill(const sg_state *st, uint8_t seat, uint64_t pending,
                   const sg_public_move *recent, int n_recent, const float *rules, int n_rules,
                   float *out)
{
    sg_observation o;
    if (sg_observe(st, seat, &o) != SG_ERROR_NONE)
        return SG_ERROR_SEAT;
    const uint8_t n = o.players;
    const int base = SG_TENSOR_PLANES * SG_NCARDS + SG_TENSOR_RECENT * SG_TENSOR_RECENT_FLOATS +
                     SCALARS;
    for (int i = 0; i < base; i++)
        out[i] = 0.0f;

    /* Card planes. */
    float *p = out;
    sg_card_plane(p + SG_NCARDS * 0, o.hand);
    sg_card_plane(p + SG_NCARDS * 1, o.collection);
    for (uint8_t s = 0; s < n; s++)
        if (s != seat)
            sg_card_plane(p + SG_NCARDS * (1 + relative(s, seat, n)), o.known[s]);
    sg_card_plane(p + SG_NCARDS * 5, o.unknown);
    sg_card_plane(p + SG_NCARDS * 6, o.out_of_play);
    for (int i = 0; i < o.n_table_plays; i++) {
        sg_card_plane(p + SG_NCARDS * 7, o.table_cards[i]);
        if (o.table_seat[i] < n)
            sg_card_plane(p + SG_NCARDS * (9 + relative(o.table_seat[i], seat, n)), o.table_cards[i]);
    }
    if (o.n_table_plays)
        sg_card_plane(p + SG_NCARDS * 8, o.table_cards[o.n_table_plays - 1]);
    if (o.to_move == seat)
        sg_card_plane(p + SG_NCARDS * 13, pending & o.hand);
    if (o.upcard != SG_NO_CARD)
        sg_card_plane(p + SG_NCARDS * 14, SG_CARD_BIT(o.upcard));
    p += SG_TENSOR_PLANES * SG_NCARDS;

    /* The last public moves, most recent first. */
    for (int i = 0; i < SG_TENSOR_RECENT; i++, p += SG_TENSOR_RECENT_FLOATS) {
        if (i >= n_recent || recent[i].seat >= n)
            continue;
        sg_card_plane(p, recent[i].cards);
        seat_hot(p + SG_NCARDS, recent[i].seat, seat, n);
        if (recent[i].kind <= SG_MOVE_KIND_PASS)
            p[SG_NCARDS + SG_MAX_PLAYERS + recent[i].kind] = 1.0f;
    }

    /* Scalars: see the header's table; counts are divided by 52. */
    float *q = p;
    q[o.phase <= SG_PHASE_OVER ? o.phase : 0] = 1.0f;                 /* 0..2 */
    seat_hot(q + 3, o.to_move, seat, n);                              /* 3..6 */
    seat_hot(q + 7, o.dealer, seat, n);                               /* 7..10 */
    if (o.trump < 4) {                                                /* 11..15 */
        q[11 + o.trump] = 1.0f;
        q[15] = 1.0f;
    }
    for (uint8_t s = 0; s < n; s++) {
        const int r = relative(s, seat, n);
        q[16 + r] = 1.0f;                                             /* 16..19 seated */
        q[20 + r] = (float)o.hand_sizes[s] / SG_NCARDS;               /* 20..23 */
        q[24 + r] = (float)o.collection_sizes[s] / SG_NCARDS;         /* 24..27 */
        q[28 + r] = (float)o.unknown_slots[s] / SG_NCARDS;            /* 28..31 */
    }
    for (int i = 0; i < o.n_finished; i++) {
        if (o.finished[i] < n) {
            q[32 + relative(o.finished[i], seat, n)] = 1.0f;          /* 32..35 out */
            q[36 + relative(o.finished[i], seat, n)] = (float)(i + 1) / SG_MAX_PLAYERS;
        }
    }
    seat_hot(q + 40, o.hidden_holder, seat, n);                       /* 40..43 */
    seat_hot(q + 44, o.slough_winner, seat, n);                       /* 44..47 */
    q[48] = o.slough_winner != SG_NO_SEAT;
    q[49] = (float)o.stock_size / SG_NCARDS;
    q[50] = (float)o.stock_slots / SG_NCARDS;
    q[51] = (float)o.hidden_slots;
    q[52] = st->rules.max_moves ? (float)o.moves_played / (float)st->rules.max_moves : 0.0f;
    q[53] = (float)(n - 2) / 2.0f;
    q[54] = o.n_table_plays ? (float)sg_popcount(o.table_cards[o.n_table_plays - 1]) / 13.0f
                            : 0.0f;
    q[55] = (float)o.n_table_plays / SG_NCARDS;
    q[56] = o.to_move == seat && pending != 0;
    /* 57..63 reserved: zero */
    memcpy(q + SCALARS, rules, (size_t)n_rules * sizeof *rules);
    return SG_ERROR_NONE;
}

int sg_state_tensor(const sg_state *st, const sg_public_move *recent, int n_recent, float *out)
{
    const int base = sg_tensor_size();
    /* What seat 0 knows, then every hidden card where it lies. */
    sg_observation_tensor(st, 0, 0, recent, n_recent, out);
    float *p = out + base;
    memset(p, 0, (size_t)SG_STATE_TENSOR_PLANES * SG_NCARDS * sizeof *p);
    for (int s = 0; s < st->rules.players && s < SG_MAX_PLAYERS; s++) {
        sg_card_plane(p + SG_NCARDS * s, st->hand[s]);
        sg_card_plane(p + SG_NCARDS * (4 + s), st->coll[s]);
    }
    for (int i = st->stock_top; i < st->stock_len && i < SG_NCARDS; i++)
        if (st->stock[i] < 64)
            sg_card_plane(p + SG_NCARDS * 8, SG_CARD_BIT(st->stock[i]));
    if (st->hidden_card < 64)
        sg_card_plane(p + SG_NCARDS * 9, SG_CARD_BIT(st->hidden_card));
    return SG_ERROR_NONE;
}

int sg_public_move_of(const sg_event *events, int n, sg_public_move *move)
{
    for (int i = 0; i < n; i++) {
        int kind;
        switch (events[i].kind) {
        case SG_EVENT_KIND_PLAY:
            kind = SG_MOVE_KIND_PLAY;
            break;
        case SG_EVENT_KIND_FLIP:
            kind = SG_MOVE_KIND_FLIP;
            break;
        case SG_EVENT_KIND_PICK_UP:
            kind = SG_MOVE_KIND_PICK_UP;
            break;
        case SG_EVENT_KIND_SLOUGH:
            kind = SG_MOVE_KIND_SLOUGH;
            break;
        case SG_EVENT_KIND_PASS:
            kind = SG_MOVE_KIND_PASS;
            break;
        default:
            continue;
        }
        memset(move, 0, sizeof *move);
        move->cards = events[i].cards & SG_ALL_CARDS;
        move->kind = (uint8_t)kind;
        move->seat = events[i].seat;
        return 1;
    }
    return 0;
}
