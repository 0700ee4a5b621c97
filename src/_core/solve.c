/* The endgame solver: phase 2 with two players holding cards, every card
 * known, solved exactly (docs/rules.md §6, §8).  skitgubbe.h says what it
 * answers; this file's comments say why the answers are exact.
 *
 * Values are those of the player to move: WIN (+1), DRAW (0), LOSS (-1).  The
 * search answers one boolean question at a time, "is the value >= t?" for t =
 * WIN or DRAW (a null window), which is true when one move makes it so: a
 * move after which the same player moves again and the question holds, or
 * after which the other player moves and his value is at most -t, i.e. his
 * answer to "is the value >= 1 - t?" is false.  In this game a player may
 * move twice in a row (he leads again after completing a trick).
 *
 * Soundness with cycles.  Pick-ups put cards back into hands, so positions
 * repeat; the real game ends them at the move cap with no loser.  A position
 * repeated on the current search path counts as a draw.  Why the root's
 * value is then the game's: let P be won for the mover, and take his
 * strategy that moves to a position won in fewer moves at each turn (it
 * exists in a finite game graph, and never needs more moves than the cap
 * leaves); along it the number of moves to the win strictly falls, so it
 * never repeats a position, and the search, which tries every move, finds it.
 * The same holds for the other player's wins, so a value the search proves
 * WIN or LOSS is the game's, and the other positions are the game's draws:
 * each player has a strategy that never enters a position the other wins,
 * and so avoids losing whether play ends at a repetition or at the cap.
 *
 * Which results go into the transposition table.  A proof of WIN or LOSS
 * rests only on moves and terminal positions, never on a repetition (a
 * repetition is a draw, which proves neither), so it holds on any path and
 * is stored.  A draw, or a bound "at least DRAW" / "at most DRAW", may rest
 * on a repetition: each result carries the shallowest depth of the path
 * whose repetition it used.  If that is the node itself or deeper, the
 * result is the value of the game played from this node alone (the same
 * argument, with this node as root), true on any path, and is stored; if it
 * is an ancestor, the result holds only under this path and is not stored.
 *
 * The move cap.  The table's WIN and LOSS carry the number of moves their
 * proof needs (length), and are used only where at least that many moves
 * remain before the cap.  A line that reaches the cap ends truncated, a draw
 * that depends on the move count: its results are never stored (depth -1).
 * Every stored fact is so a fact of the uncapped game that also holds under
 * the cap where it is used: a player who can avoid losing forever avoids it
 * until the cap, and one who cannot force a win without a cap cannot with
 * one.  So the solver is exact for any move count, the cap's included.
 *
 * The key.  In phase 2 the future of the game depends on each hand, the
 * table (its cards in order, where each play starts under trick_end=COUNT,
 * who laid each card under ROTATION), the player to move, the trick's target
 * and (ROTATION) its turns, the rules and the trump.  The table's order
 * follows from its cards: every card beats the one below it, so the table is
 * the cards of one suit ascending then the trumps ascending (sg_solvable
 * checks a root's table is such a chain; play keeps it so).  Who laid a card
 * matters only through who leads after a discard: that seat, or the next one
 * holding cards when he is out, one of the two players.  The rules, the
 * trump and the two seats are the table's context, the same for all its
 * entries.  Every entry stores its whole key, compared on every probe.
 * The key (and the move an entry keeps) names cards by their rank among the
 * cards still in play of their suit (squeeze, below): positions that differ
 * only in which cards went out of play are then one entry, which cuts the
 * classic rules' searches about tenfold. */
#include <string.h>

#include "internal.h"

#define WIN 1
#define DRAW 0
#define NO_DEP 0x7FFFFFFF /* a result that rests on no repetition above it */
#define CAP_DEP (-1)      /* a result that rests on the move cap */
#define VALID 0x80000000u /* an entry in use */
#define ARENA_MOVES (24 * SG_SOLVE_MAX_DEPTH + SG_MAX_MOVES)
#define ALIGN 64

typedef struct key {
    uint64_t ha, hb, table, aux; /* aux: ROTATION, the table cards whose play leads to b;
                                    COUNT, the table cards that start a play (but the first);
                                    all four squeezed (see squeeze) */
    uint64_t play;               /* the cards in play (hands and table), not squeezed */
    uint32_t misc;               /* bit 0 b to move, 8-15 the trick's target, 16-23 its
                                    turns (ROTATION); VALID */
    uint32_t total;              /* cards in hands and on the table */
} key;

typedef struct entry {
    uint64_t ha, hb, table, aux;
    sg_move best;
    uint32_t misc;
    uint32_t work;               /* positions its last search took (its worth to keep) */
    uint32_t lb_len, ub_len;     /* lb = WIN: won within lb_len moves; ub = LOSS: likewise */
    int8_t lb, ub;               /* the value lies in [lb, ub] */
    uint8_t reserved[6];
} entry;

SG_STATIC_ASSERT(sizeof(entry) == 64, solver_entries_are_one_cache_line);

struct sg_solver {
    entry *table;
    sg_state *states; /* the search path: states[d] at depth d */
    key *keys;
    sg_move *arena;   /* the moves of the positions on the path */
    uint32_t entries;
    /* The context of the table's entries. */
    uint8_t known;    /* 1 once a context is set */
    uint8_t trump, a, b;
    sg_rules rules;
};

/* One call's search. */
typedef struct run {
    sg_solver *s;
    uint64_t nodes, budget;
    uint32_t arena_top;
    int stop;                 /* enum sg_solve_stop */
    int rotation;
    int gapped;               /* the rules read whether ranks are consecutive (see squeeze) */
    uint8_t a, b;
    uint8_t lead[SG_MAX_PLAYERS]; /* who leads after a discard of a card laid by seat p */
} run;

static size_t round_up(size_t n)
{
    return (n + ALIGN - 1) / ALIGN * ALIGN;
}

static size_t workspace(void)
{
    return round_up(sizeof(sg_solver)) + round_up(sizeof(sg_state) * (SG_SOLVE_MAX_DEPTH + 2)) +
           round_up(sizeof(key) * (SG_SOLVE_MAX_DEPTH + 2)) +
           round_up(sizeof(sg_move) * ARENA_MOVES);
}

size_t sg_solver_size(uint32_t entries)
{
    uint32_t n = 2;
    while (n <= entries / 2)
        n *= 2;
    return ALIGN + workspace() + (size_t)n * sizeof(entry);
}

sg_solver *sg_solver_init(void *buffer, size_t bytes)
{
    if (buffer == NULL)
        return NULL;
    const uintptr_t start = (uintptr_t)buffer;
    const size_t skip = (size_t)((ALIGN - start % ALIGN) % ALIGN);
    if (bytes < skip + workspace() + 2 * sizeof(entry))
        return NULL;
    unsigned char *base = (unsigned char *)buffer + skip;
    const size_t room = (bytes - skip - workspace()) / sizeof(entry);
    uint32_t n = 2;
    while (n <= UINT32_MAX / 2 && (size_t)n * 2 <= room)
        n *= 2;
    sg_solver *s = (sg_solver *)(void *)base;
    size_t at = round_up(sizeof(sg_solver));
    s->states = (sg_state *)(void *)(base + at);
    at += round_up(sizeof(sg_state) * (SG_SOLVE_MAX_DEPTH + 2));
    s->keys = (key *)(void *)(base + at);
    at += round_up(sizeof(key) * (SG_SOLVE_MAX_DEPTH + 2));
    s->arena = (sg_move *)(void *)(base + at);
    at += round_up(sizeof(sg_move) * ARENA_MOVES);
    s->table = (entry *)(void *)(base + at);
    s->entries = n;
    sg_solver_clear(s);
    return s;
}

uint32_t sg_solver_entries(const sg_solver *solver)
{
    return solver->entries;
}

void sg_solver_clear(sg_solver *solver)
{
    memset(solver->table, 0, (size_t)solver->entries * sizeof(entry));
    solver->known = 0;
}

/* ---- positions ----------------------------------------------------------------- */

/* Whether `card` may lie on `below` (it beats it, §6.2). */
static int beats(uint8_t card, uint8_t below, uint8_t trump)
{
    if (SG_CARD_BIT(card) & sg_above(below))
        return 1;
    return trump != SG_NO_SUIT && SG_SUIT_OF(below) != trump && SG_SUIT_OF(card) == trump;
}

int sg_solvable(const sg_state *st)
{
    if (sg_view_check(st) != 0)
        return SG_ERROR_POSITION;
    if (st->phase == SG_PHASE_OVER)
        return SG_ERROR_OVER;
    if (st->phase != SG_PHASE_SHEDDING)
        return SG_ERROR_POSITION;
    int holding = 0;
    for (int p = 0; p < st->rules.players; p++) {
        if (st->unseen[p] || st->coll[p])
            return SG_ERROR_POSITION;
        holding += st->hand[p] != 0;
    }
    if (holding != 2)
        return SG_ERROR_POSITION;
    if (st->table_len && st->table_play[0] != 0)
        return SG_ERROR_POSITION;
    for (int i = 1; i < st->table_len; i++)
        if (!beats(st->table[i], st->table[i - 1], st->trump))
            return SG_ERROR_POSITION;
    return SG_ERROR_NONE;
}

/* Relative ranks.  The game reads a card's rank only to compare it with
 * another card of its suit (does it beat it?) and, with runs or the run
 * pick-up, to ask whether two ranks are consecutive.  Cards out of play never
 * come back, so two positions whose cards in play (hands and table) lie in
 * the same order in each suit, with the same owners, table and trick, are the
 * same game when they also agree on which cards in play are consecutive.
 * squeeze renumbers the cards in play of each suit from 0 up, in order, and
 * where the rules read consecutive ranks (r->gapped) leaves one empty rank
 * wherever cards out of play lie between two cards in play; keys and the
 * table's moves are written so.  `cards` lies within `play`. */
static uint64_t squeeze(const run *r, uint64_t play, uint64_t cards)
{
    uint64_t out = 0;
    for (int suit = 0; suit < 4; suit++) {
        int next = 16 * suit, last = -2;
        for (uint64_t c = play & SG_SUIT_MASK(suit); c; c &= c - 1) {
            const int card = sg_lowest(c);
            if (r->gapped && last >= 0 && card > last + 1)
                next++;
            if (cards & SG_CARD_BIT(card))
                out |= UINT64_C(1) << next;
            next++;
            last = card;
        }
    }
    return out;
}

/* The inverse: the cards of `play` whose places `squeezed` names. */
static uint64_t unsqueeze(const run *r, uint64_t play, uint64_t squeezed)
{
    uint64_t out = 0;
    for (int suit = 0; suit < 4; suit++) {
        int next = 16 * suit, last = -2;
        for (uint64_t c = play & SG_SUIT_MASK(suit); c; c &= c - 1) {
            const int card = sg_lowest(c);
            if (r->gapped && last >= 0 && card > last + 1)
                next++;
            if (squeezed & (UINT64_C(1) << next))
                out |= SG_CARD_BIT(card);
            next++;
            last = card;
        }
    }
    return out;
}

/* A move as the table keeps it, and back. */
static sg_move move_to_table(const run *r, const key *k, sg_move m)
{
    if (SG_MOVE_KIND_OF(m) != SG_MOVE_KIND_PLAY)
        return m;
    return SG_MAKE_MOVE(SG_MOVE_KIND_PLAY, squeeze(r, k->play, SG_MOVE_CARDS(m)));
}

static sg_move move_from_table(const run *r, const key *k, sg_move m)
{
    if (SG_MOVE_KIND_OF(m) != SG_MOVE_KIND_PLAY)
        return m;
    return SG_MAKE_MOVE(SG_MOVE_KIND_PLAY, unsqueeze(r, k->play, SG_MOVE_CARDS(m)));
}

static void make_key(const run *r, const sg_state *st, key *k)
{
    uint64_t table = 0, aux = 0;
    for (int i = 0; i < st->table_len; i++) {
        const uint64_t bit = SG_CARD_BIT(st->table[i]);
        table |= bit;
        if (r->rotation ? r->lead[st->table_seat[i]] == r->b
                        : i && st->table_play[i] != st->table_play[i - 1])
            aux |= bit;
    }
    const uint64_t ha = st->hand[r->a], hb = st->hand[r->b];
    k->play = ha | hb | table;
    /* squeeze, for the four sets at once */
    uint64_t sa = 0, sb = 0, st_ = 0, sx = 0;
    for (int suit = 0; suit < 4; suit++) {
        int next = 16 * suit, last = -2;
        for (uint64_t c = k->play & SG_SUIT_MASK(suit); c; c &= c - 1) {
            const int card = sg_lowest(c);
            if (r->gapped && last >= 0 && card > last + 1)
                next++;
            const uint64_t from = SG_CARD_BIT(card), to = UINT64_C(1) << next;
            sa |= ha & from ? to : 0;
            sb |= hb & from ? to : 0;
            st_ |= table & from ? to : 0;
            sx |= aux & from ? to : 0;
            next++;
            last = card;
        }
    }
    k->ha = sa;
    k->hb = sb;
    k->table = st_;
    k->aux = sx;
    uint32_t misc = VALID | (st->to_move == r->b);
    if (st->table_len) {
        misc |= (uint32_t)st->trick_target << 8;
        if (r->rotation)
            misc |= (uint32_t)st->trick_turns << 16;
    }
    k->misc = misc;
    k->total = (uint32_t)sg_popcount(k->play);
}

static int same_key(const key *x, const key *y)
{
    return x->ha == y->ha && x->hb == y->hb && x->table == y->table && x->aux == y->aux &&
           x->misc == y->misc;
}

static int entry_is(const entry *e, const key *k)
{
    return e->misc == k->misc && e->ha == k->ha && e->hb == k->hb && e->table == k->table &&
           e->aux == k->aux;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= UINT64_C(0xBF58476D1CE4E5B9);
    x ^= x >> 27;
    x *= UINT64_C(0x94D049BB133111EB);
    return x ^ (x >> 31);
}

/* The first of the two slots where `k` may lie. */
static entry *bucket(const run *r, const key *k)
{
    const uint64_t h = mix(k->ha ^ mix(k->hb ^ mix(k->table ^ mix(k->aux ^ k->misc))));
    return &r->s->table[h & (r->s->entries - 1) & ~(uint64_t)1];
}

static const entry *probe(const run *r, const key *k)
{
    const entry *slot = bucket(r, k);
    if (entry_is(&slot[0], k))
        return &slot[0];
    if (entry_is(&slot[1], k))
        return &slot[1];
    return NULL;
}

/* Adds the fact "value >= t" (holds) or "value < t" (not) to k's entry; a
 * new key takes the first slot if its search was the longer (the first
 * slot's entry then moves to the second), else the second. */
static void store(const run *r, const key *k, int t, int holds, uint32_t length, sg_move best,
                  uint64_t work)
{
    entry *slot = bucket(r, k);
    entry *e = entry_is(&slot[0], k) ? &slot[0] : entry_is(&slot[1], k) ? &slot[1] : NULL;
    const uint32_t worth = work > UINT32_MAX ? UINT32_MAX : (uint32_t)work;
    if (e == NULL) {
        if (!(slot[0].misc & VALID) || worth >= slot[0].work) {
            slot[1] = slot[0];
            e = &slot[0];
        } else {
            e = &slot[1];
        }
        memset(e, 0, sizeof *e);
        e->ha = k->ha;
        e->hb = k->hb;
        e->table = k->table;
        e->aux = k->aux;
        e->misc = k->misc;
        e->lb = -1;
        e->ub = 1;
    }
    if (worth > e->work)
        e->work = worth;
    if (best)
        e->best = move_to_table(r, k, best);
    if (t == WIN && holds) {
        if (e->lb < 1 || length < e->lb_len) {
            e->lb = 1;
            e->lb_len = length;
        }
    } else if (t == WIN) {
        if (e->ub > 0)
            e->ub = 0;
    } else if (holds) {
        if (e->lb < 0)
            e->lb = 0;
    } else if (e->ub > -1 || length < e->ub_len) {
        e->ub = -1;
        e->ub_len = length;
    }
}

/* ---- the search ------------------------------------------------------------------ */

/* Orders moves best first: the table's move, a move that goes out (it wins),
 * the greedy policy's, then plays from the cheapest, and picking up last. */
static void order(const sg_state *st, sg_move *moves, int n, sg_move hint)
{
    int32_t score[SG_MAX_MOVES];
    const uint64_t hand = st->hand[st->to_move];
    const sg_move greedy = sg_greedy_choice(st, moves, n);
    for (int i = 0; i < n; i++) {
        const sg_move m = moves[i];
        if (m == hint)
            score[i] = 1 << 30;
        else if (SG_MOVE_KIND_OF(m) == SG_MOVE_KIND_PLAY && SG_MOVE_CARDS(m) == hand)
            score[i] = 1 << 29;
        else if (m == greedy)
            score[i] = 1 << 28;
        else if (SG_MOVE_KIND_OF(m) == SG_MOVE_KIND_PLAY)
            score[i] = (1 << 20) - sg_play_cost(st, SG_MOVE_CARDS(m));
        else
            score[i] = 0;
    }
    for (int i = 1; i < n; i++) { /* insertion sort: stable, and n is small */
        const sg_move m = moves[i];
        const int32_t v = score[i];
        int j = i;
        for (; j > 0 && score[j - 1] < v; j--) {
            moves[j] = moves[j - 1];
            score[j] = score[j - 1];
        }
        moves[j] = m;
        score[j] = v;
    }
}

/* Is the value of states[d] for its player to move >= t?  1 yes, 0 no, -1
 * the search stopped (r->stop says why).  *length: for a WIN proved (t = WIN,
 * yes) or a LOSS (t = DRAW, no), within how many moves the game ends.  *dep:
 * the shallowest path depth whose repetition the answer rests on (NO_DEP:
 * none; CAP_DEP: the move cap).  *best: the move that makes it so (yes), or
 * for a LOSS the one whose loss is the furthest; else 0. */
static int search(run *r, int d, int t, uint32_t *length, int *dep, sg_move *best)
{
    const sg_state *st = &r->s->states[d];
    key *k = &r->s->keys[d];
    *length = 0;
    *dep = NO_DEP;
    *best = 0;
    if (r->nodes >= r->budget) {
        r->stop = SG_SOLVE_STOP_BUDGET;
        return -1;
    }
    r->nodes++;
    const uint64_t start = r->nodes;
    make_key(r, st, k);
    const uint32_t left = st->rules.max_moves - st->moves;
    sg_move hint = 0;
    const entry *e = probe(r, k);
    if (e) {
        if (t == WIN) {
            if (e->lb == 1 && e->lb_len <= left) {
                *length = e->lb_len;
                *best = move_from_table(r, k, e->best);
                return 1;
            }
            if (e->ub <= 0)
                return 0;
        } else {
            if (e->lb >= 0) {
                *best = move_from_table(r, k, e->best);
                return 1;
            }
            if (e->ub == -1 && e->ub_len <= left) {
                *length = e->ub_len;
                *best = move_from_table(r, k, e->best);
                return 0;
            }
        }
        hint = move_from_table(r, k, e->best);
    }
    /* Only positions since the last discard can repeat: it takes cards away for good. */
    for (int i = d - 1; i >= 0 && r->s->keys[i].total == k->total; i--) {
        if (same_key(&r->s->keys[i], k)) {
            *dep = i;
            return t == DRAW;
        }
    }
    if (d >= SG_SOLVE_MAX_DEPTH) {
        r->stop = SG_SOLVE_STOP_DEPTH;
        return -1;
    }
    if (r->arena_top + SG_MAX_MOVES > ARENA_MOVES) {
        r->stop = SG_SOLVE_STOP_MEMORY;
        return -1;
    }
    sg_move *moves = r->s->arena + r->arena_top;
    const int n = sg_shedding_moves(st, moves);
    r->arena_top += (uint32_t)n;
    order(st, moves, n, hint);

    const uint8_t me = st->to_move;
    int holds = 0, lowest = NO_DEP;
    uint32_t longest = 0;
    sg_move slowest = 0;
    for (int i = 0; i < n; i++) {
        sg_state *child = &r->s->states[d + 1];
        *child = *st;
        sg_apply_unchecked(child, moves[i], NULL);
        int yes;
        uint32_t len = 0;
        int cdep = NO_DEP;
        if (child->phase == SG_PHASE_OVER) {
            const int v = child->loser == SG_NO_SEAT ? 0 : child->loser == me ? -1 : 1;
            if (child->truncated)
                cdep = CAP_DEP;
            yes = v >= t;
        } else {
            sg_move unused;
            const int same = child->to_move == me;
            const int got = search(r, d + 1, same ? t : 1 - t, &len, &cdep, &unused);
            if (got < 0) {
                r->arena_top -= (uint32_t)n;
                return -1;
            }
            yes = same ? got : !got;
        }
        len++;
        if (yes) {
            holds = 1;
            *best = moves[i];
            *dep = cdep;
            *length = t == WIN ? len : 0;
            break;
        }
        if (cdep < lowest)
            lowest = cdep;
        if (len > longest || !slowest) {
            longest = len;
            slowest = moves[i];
        }
    }
    r->arena_top -= (uint32_t)n;
    if (!holds) {
        *dep = lowest;
        *length = t == DRAW ? longest : 0;
        *best = t == DRAW ? slowest : 0;
    }
    if (*dep >= d) {
        store(r, k, t, holds, *length, holds || t == DRAW ? *best : 0, r->nodes - start + 1);
        *dep = NO_DEP;
    }
    return holds;
}

/* ---- the calls ------------------------------------------------------------------ */

static void begin(run *r, sg_solver *s, const sg_state *st, uint64_t budget)
{
    memset(r, 0, sizeof *r);
    r->s = s;
    r->budget = budget;
    r->rotation = st->rules.trick_end == SG_TRICK_END_ROTATION;
    r->gapped = st->rules.runs || st->rules.pickup == SG_PICKUP_TOP_RUN;
    const int n = st->rules.players;
    uint8_t seats[2] = {0, 0};
    int k = 0;
    for (int p = 0; p < n; p++)
        if (st->hand[p])
            seats[k++] = (uint8_t)p;
    r->a = seats[0];
    r->b = seats[1];
    for (int p = 0; p < n; p++) {
        uint8_t q = (uint8_t)p;
        while (q != r->a && q != r->b)
            q = (uint8_t)((q + 1) % n);
        r->lead[p] = q;
    }
    if (!s->known || s->trump != st->trump || s->a != r->a || s->b != r->b ||
        memcmp(&s->rules, &st->rules, sizeof s->rules) != 0) {
        sg_solver_clear(s);
        s->known = 1;
        s->trump = st->trump;
        s->a = r->a;
        s->b = r->b;
        s->rules = st->rules;
    }
}

static void unknown(sg_solve_result *result, const sg_state *st)
{
    memset(result, 0, sizeof *result);
    result->value = SG_SOLVE_VALUE_UNKNOWN;
    result->to_move = st->to_move;
    result->loser = SG_NO_SEAT;
}

static uint8_t other(const run *r, uint8_t seat)
{
    return seat == r->a ? r->b : r->a;
}

/* The value of states[0] for its player to move: two questions. */
static int8_t root_value(run *r, uint32_t *length, sg_move *best)
{
    int dep;
    const int win = search(r, 0, WIN, length, &dep, best);
    if (win != 0)
        return win > 0 ? SG_SOLVE_VALUE_WIN : SG_SOLVE_VALUE_UNKNOWN;
    const int draw = search(r, 0, DRAW, length, &dep, best);
    if (draw < 0)
        return SG_SOLVE_VALUE_UNKNOWN;
    return draw ? SG_SOLVE_VALUE_DRAW : SG_SOLVE_VALUE_LOSS;
}

static void finish(const run *r, const sg_state *st, int8_t value, uint32_t length, sg_move best,
                   sg_solve_result *result)
{
    result->nodes = r->nodes;
    result->value = value;
    result->to_move = st->to_move;
    result->stop = (uint8_t)(value == SG_SOLVE_VALUE_UNKNOWN ? r->stop : SG_SOLVE_STOP_NONE);
    result->loser = value == SG_SOLVE_VALUE_WIN    ? other(r, st->to_move)
                    : value == SG_SOLVE_VALUE_LOSS ? st->to_move
                                                   : SG_NO_SEAT;
    const int decisive = value == SG_SOLVE_VALUE_WIN || value == SG_SOLVE_VALUE_LOSS;
    result->length = decisive ? length : 0;
    result->best = value == SG_SOLVE_VALUE_UNKNOWN ? 0 : best;
}

int sg_solve(sg_solver *solver, const sg_state *st, uint64_t budget, sg_solve_result *result)
{
    unknown(result, st);
    const int error = sg_solvable(st);
    if (error != SG_ERROR_NONE)
        return error;
    run r;
    begin(&r, solver, st, budget);
    solver->states[0] = *st;
    uint32_t length = 0;
    sg_move best = 0;
    const int8_t value = root_value(&r, &length, &best);
    finish(&r, st, value, length, best, result);
    return SG_ERROR_NONE;
}

int sg_solve_moves(sg_solver *solver, const sg_state *st, uint64_t budget,
                   sg_solve_result *result, sg_move moves[SG_MAX_MOVES],
                   int8_t values[SG_MAX_MOVES], uint32_t lengths[SG_MAX_MOVES], int *n_moves)
{
    unknown(result, st);
    *n_moves = 0;
    const int error = sg_solvable(st);
    if (error != SG_ERROR_NONE)
        return error;
    run r;
    begin(&r, solver, st, budget);
    const int n = sg_legal_moves(st, moves);
    const uint8_t me = st->to_move;
    int best = -1, stopped = 0;
    for (int i = 0; i < n; i++) {
        values[i] = SG_SOLVE_VALUE_UNKNOWN;
        lengths[i] = 0;
        if (stopped)
            continue;
        sg_state *child = &solver->states[0];
        *child = *st;
        sg_apply_unchecked(child, moves[i], NULL);
        int8_t v;
        uint32_t len = 0;
        if (child->phase == SG_PHASE_OVER) {
            v = child->loser == SG_NO_SEAT ? SG_SOLVE_VALUE_DRAW
                : child->loser == me       ? SG_SOLVE_VALUE_LOSS
                                           : SG_SOLVE_VALUE_WIN;
        } else {
            /* The position after the move, solved as a root of its own: its value
             * is the game's, whatever led to it. */
            sg_move unused;
            v = root_value(&r, &len, &unused);
            if (v == SG_SOLVE_VALUE_UNKNOWN) {
                stopped = 1;
                continue;
            }
            if (child->to_move != me)
                v = (int8_t)-v;
        }
        values[i] = v;
        lengths[i] = v == SG_SOLVE_VALUE_DRAW ? 0 : len + 1;
        if (best < 0 || v > values[best] ||
            (v == values[best] && v == SG_SOLVE_VALUE_WIN && lengths[i] < lengths[best]) ||
            (v == values[best] && v == SG_SOLVE_VALUE_LOSS && lengths[i] > lengths[best]))
            best = i;
    }
    *n_moves = n;
    /* Known when a move wins, or when every move is known. */
    int8_t value = SG_SOLVE_VALUE_UNKNOWN;
    if (best >= 0 && (!stopped || values[best] == SG_SOLVE_VALUE_WIN))
        value = values[best];
    finish(&r, st, value, best >= 0 ? lengths[best] : 0, best >= 0 ? moves[best] : 0, result);
    return SG_ERROR_NONE;
}
