/* Checks the endgame solver (src/_core/solve.c) against a brute force: plain
 * minimax over every line, without pruning or a transposition table, with
 * the same rule for cycles (a position repeated on the path is a draw) and
 * its own test of "the same position" (the raw fields of the state, not the
 * solver's key).  Both give the game's value at the root, so they must agree
 * on every position.
 *
 * The positions: small phase-2 positions (1 to 6 cards a hand) under random
 * rules (2, 3 or 4 seats, every pick-up and trick end, runs or not, any
 * trump, a low move cap now and then), played on with random moves until
 * exactly two seats hold cards, so that tables, trick targets inherited from
 * three or four players, and move counts near the cap all occur.  Each is
 * solved by a fresh solver, by one shared across positions (its table
 * carried over or cleared with the context) and by one of two entries; with
 * a small budget a known answer must still be right; each legal move's value
 * is checked; a best move must achieve the value; a WIN or LOSS must be
 * forced within its length (a depth-limited brute force).
 *
 * usage: solve_check [positions] [seed] [kind] [cards]: `kind` 0-3 makes
 * only positions of that kind (see random_position; -1, the default, all),
 * `cards` is the most cards in hands (default 10).  Prints "solve_check: ok,
 * ..." and exits 0, or names the first disagreement and exits 1.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skitgubbe.h"

#define BRUTE_DEPTH 200
#define NO_ANSWER 99

static int popcount(uint64_t x)
{
    int n = 0;
    for (; x; x &= x - 1)
        n++;
    return n;
}

/* The same position for the brute force: every field the future may read,
 * compared raw (finer than the solver's key, which is fine: any cycle still
 * repeats a raw position, the fields being bounded). */
static int same_position(const sg_state *x, const sg_state *y)
{
    if (x->to_move != y->to_move || x->table_len != y->table_len ||
        x->trick_target != y->trick_target)
        return 0;
    if (x->rules.trick_end == SG_TRICK_END_ROTATION && x->trick_turns != y->trick_turns)
        return 0;
    for (int p = 0; p < SG_MAX_PLAYERS; p++)
        if (x->hand[p] != y->hand[p])
            return 0;
    for (int i = 0; i < x->table_len; i++)
        if (x->table[i] != y->table[i] || x->table_play[i] != y->table_play[i] ||
            x->table_seat[i] != y->table_seat[i])
            return 0;
    return 1;
}

typedef struct brute_ctx {
    sg_state path[BRUTE_DEPTH + 2];
    long budget;
    int repeats;   /* repetitions met */
    int truncated; /* lines that reached the cap */
} brute_ctx;

/* The value of path[d] for its player to move (-1, 0, 1), or NO_ANSWER when
 * the budget or the depth ran out. */
static int brute(brute_ctx *c, int d)
{
    const sg_state *st = &c->path[d];
    if (--c->budget < 0)
        return NO_ANSWER;
    for (int k = 0; k < d; k++)
        if (same_position(&c->path[k], st)) {
            c->repeats++;
            return 0;
        }
    if (d >= BRUTE_DEPTH)
        return NO_ANSWER;
    sg_move moves[SG_MAX_MOVES];
    const int n = sg_legal_moves(st, moves);
    int best = -2;
    for (int i = 0; i < n; i++) {
        sg_state *child = &c->path[d + 1];
        *child = *st;
        sg_apply_unchecked(child, moves[i], NULL);
        int v;
        if (child->phase == SG_PHASE_OVER) {
            c->truncated += child->truncated;
            v = child->loser == SG_NO_SEAT ? 0 : child->loser == st->to_move ? -1 : 1;
        } else {
            const int cv = brute(c, d + 1);
            if (cv == NO_ANSWER)
                return NO_ANSWER;
            v = child->to_move == st->to_move ? cv : -cv;
        }
        if (v > best)
            best = v;
    }
    return best;
}

static int brute_value(brute_ctx *c, const sg_state *st, long budget)
{
    c->path[0] = *st;
    c->budget = budget;
    return brute(c, 0);
}

/* Can `winner` make the other seat the skitgubbe within `moves` moves? */
static int forced_within(const sg_state *st, uint8_t winner, uint32_t moves, long *budget)
{
    if (st->phase == SG_PHASE_OVER)
        return st->loser != SG_NO_SEAT && st->loser != winner;
    if (moves == 0 || --*budget < 0)
        return 0;
    sg_move list[SG_MAX_MOVES];
    const int n = sg_legal_moves(st, list);
    const int mine = st->to_move == winner;
    for (int i = 0; i < n; i++) {
        sg_state child = *st;
        sg_apply_unchecked(&child, list[i], NULL);
        const int yes = forced_within(&child, winner, moves - 1, budget);
        if (mine && yes)
            return 1;
        if (!mine && !yes)
            return 0;
    }
    return !mine;
}

static int seats_holding(const sg_state *st)
{
    int n = 0;
    for (int p = 0; p < st->rules.players; p++)
        n += st->hand[p] != 0;
    return n;
}

/* A random position, of one of three kinds (`kind` % 4):
 *   0    cycles: one suit, no trump, runs, the top pick-up, COUNT: cards go
 *        back and forth and positions repeat most;
 *   1    inherited tricks: three or four seats, the others holding one card
 *        each, the first of them to lead: he goes out at once, and the trick
 *        keeps a target of three or four with two seats holding cards;
 *   2, 3 anything: 2-4 seats, any pick-up, trick end, runs and trump, the
 *        other seats with 0-2 cards, a few random moves played on.
 * Each has a low move cap one time in five (not kind 1).  Two seats hold
 * 1..max_hand cards.  Returns 0 when the game ended before two seats held
 * cards, or the cards ran out. */
static int random_position(sg_rng *rng, sg_state *st, int kind, int max_hand)
{
    kind %= 4;
    sg_rules rules;
    const uint8_t players = (uint8_t)(kind == 1 ? 3 + sg_rng_below(rng, 2) : 2 + sg_rng_below(rng, 3));
    if (sg_rng_below(rng, 2))
        sg_rules_classic(&rules, players);
    else
        sg_rules_modern(&rules, players);
    rules.runs = (uint8_t)(kind == 0 ? 1 : sg_rng_below(rng, 2));
    rules.pickup = (uint8_t)(kind == 0 ? SG_PICKUP_TOP : sg_rng_below(rng, 3));
    rules.trick_end = (uint8_t)(kind <= 1 ? SG_TRICK_END_COUNT : sg_rng_below(rng, 2));
    if (kind != 1 && sg_rng_below(rng, 5) == 0)
        rules.max_moves = 4 + sg_rng_below(rng, 24); /* the cap within reach */
    uint8_t trump = (uint8_t)sg_rng_below(rng, 5);
    uint8_t deck[SG_NCARDS];
    sg_shuffle(rng, deck);
    int cards = SG_NCARDS;
    if (kind == 0) {
        trump = SG_NO_SUIT;
        cards = 0;
        for (int i = 0; i < SG_NCARDS; i++)
            if (SG_SUIT_OF(deck[i]) == 0)
                deck[cards++] = deck[i];
    }
    uint64_t hands[SG_MAX_PLAYERS] = {0, 0, 0, 0};
    int next = 0;
    const uint8_t first = (uint8_t)sg_rng_below(rng, players);
    const uint8_t second = (uint8_t)((first + 1 + sg_rng_below(rng, players - 1u)) % players);
    uint8_t leader = (uint8_t)sg_rng_below(rng, players);
    for (uint8_t p = 0; p < players; p++) {
        const int mine = p == first || p == second;
        const int k = mine ? 1 + (int)sg_rng_below(rng, (uint32_t)max_hand)
                      : kind == 1 ? 1
                                  : (int)sg_rng_below(rng, 3);
        for (int j = 0; j < k && next < cards; j++)
            hands[p] |= SG_CARD_BIT(deck[next++]);
        if (kind == 1 && !mine)
            leader = p;
    }
    if (sg_new_shedding(st, &rules, hands, trump, leader, NULL) != SG_ERROR_NONE)
        return 0;
    const int extra = kind == 1 ? 0 : (int)sg_rng_below(rng, 6);
    int played = 0;
    while (st->phase == SG_PHASE_SHEDDING && (seats_holding(st) > 2 || played < extra)) {
        sg_move moves[SG_MAX_MOVES];
        const int n = sg_legal_moves(st, moves);
        sg_apply_unchecked(st, moves[sg_rng_below(rng, (uint32_t)n)], NULL);
        played++;
    }
    return st->phase == SG_PHASE_SHEDDING && seats_holding(st) == 2;
}

static const char *value_name(int v)
{
    switch (v) {
    case SG_SOLVE_VALUE_WIN:
        return "win";
    case SG_SOLVE_VALUE_LOSS:
        return "loss";
    case SG_SOLVE_VALUE_DRAW:
        return "draw";
    default:
        return "unknown";
    }
}

static void describe(const sg_state *st)
{
    fprintf(stderr, "  players %d runs %d pickup %d trick_end %d trump %d max_moves %" PRIu32
                    " moves %" PRIu32 " to_move %d target %d turns %d\n",
            st->rules.players, st->rules.runs, st->rules.pickup, st->rules.trick_end, st->trump,
            st->rules.max_moves, st->moves, st->to_move, st->trick_target, st->trick_turns);
    for (int p = 0; p < st->rules.players; p++)
        fprintf(stderr, "  hand %d: %#" PRIx64 "\n", p, st->hand[p]);
    for (int i = 0; i < st->table_len; i++)
        fprintf(stderr, "  table %d: card %d seat %d play %d\n", i, st->table[i],
                st->table_seat[i], st->table_play[i]);
}

static void *make_solver(uint32_t entries, sg_solver **solver)
{
    const size_t size = sg_solver_size(entries);
    void *buffer = malloc(size + 7);
    /* An odd address: the solver aligns itself. */
    *solver = buffer ? sg_solver_init((unsigned char *)buffer + 3, size + 4) : NULL;
    if (!*solver || sg_solver_entries(*solver) < entries) {
        fprintf(stderr, "solve_check: no solver of %" PRIu32 " entries\n", entries);
        exit(1);
    }
    return buffer;
}

int main(int argc, char **argv)
{
    const long wanted = argc > 1 ? strtol(argv[1], NULL, 10) : 500;
    const uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    const long only = argc > 3 ? strtol(argv[3], NULL, 10) : -1;
    const int most = argc > 4 ? (int)strtol(argv[4], NULL, 10) : 10;
    sg_rng rng;
    sg_rng_seed(&rng, seed);
    sg_solver *shared, *tiny, *fresh;
    void *shared_buffer = make_solver(1 << 12, &shared);
    void *tiny_buffer = make_solver(2, &tiny);
    void *fresh_buffer = make_solver(1 << 10, &fresh);
    static brute_ctx ctx;
    long checked = 0, attempts = 0, skipped = 0, moves_checked = 0, lengths_checked = 0;
    long line_positions = 0;
    long counts[3] = {0, 0, 0}, with_repeats = 0, with_cap = 0, cycle_draws = 0, partial = 0;
    if (sg_solver_init(shared_buffer, 100) != NULL) {
        fprintf(stderr, "solve_check: a solver in 100 bytes\n");
        return 1;
    }
    while (checked < wanted) {
        if (++attempts > 50 * (wanted + 10)) {
            fprintf(stderr, "solve_check: too few positions found\n");
            return 1;
        }
        sg_state st;
        const int kind = only >= 0 ? (int)only : (int)(attempts % 4);
        if (!random_position(&rng, &st, kind, 2 + (int)(attempts / 4 % 5)))
            continue;
        if (popcount(st.hand[0] | st.hand[1] | st.hand[2] | st.hand[3]) > most)
            continue;
        ctx.repeats = 0;
        ctx.truncated = 0;
        const int truth = brute_value(&ctx, &st, 3000000);
        if (truth == NO_ANSWER) {
            skipped++;
            continue;
        }
        const int repeats = ctx.repeats, truncated = ctx.truncated;
        sg_solve_result res;
        sg_solver_clear(fresh);
        sg_solver *const solvers[3] = {fresh, shared, tiny};
        for (int k = 0; k < 3; k++) {
            if (sg_solve(solvers[k], &st, UINT64_MAX, &res) != SG_ERROR_NONE ||
                res.value != truth) {
                fprintf(stderr,
                        "solve_check: position %ld: solver %d says %s, brute force %s\n",
                        checked, k, value_name(res.value), value_name(truth));
                describe(&st);
                return 1;
            }
        }
        /* The best move achieves the value. */
        {
            sg_state after = st;
            if (sg_apply(&after, res.best, NULL) != SG_ERROR_NONE) {
                fprintf(stderr, "solve_check: position %ld: best move illegal\n", checked);
                describe(&st);
                return 1;
            }
            int v;
            if (after.phase == SG_PHASE_OVER) {
                v = after.loser == SG_NO_SEAT ? 0 : after.loser == st.to_move ? -1 : 1;
            } else {
                const int cv = brute_value(&ctx, &after, 3000000);
                v = cv == NO_ANSWER ? NO_ANSWER : after.to_move == st.to_move ? cv : -cv;
            }
            if (v != NO_ANSWER && v != truth) {
                fprintf(stderr, "solve_check: position %ld: best move gives %s, value %s\n",
                        checked, value_name(v), value_name(truth));
                describe(&st);
                return 1;
            }
            const uint8_t other = res.loser == st.to_move ? SG_NO_SEAT : res.loser;
            if ((truth != 0) != (res.loser != SG_NO_SEAT) ||
                (truth == 1 && other == SG_NO_SEAT) || (truth == -1 && res.loser != st.to_move)) {
                fprintf(stderr, "solve_check: position %ld: loser %d for %s\n", checked,
                        res.loser, value_name(truth));
                return 1;
            }
        }
        /* A WIN or LOSS is forced within its length. */
        if (truth != 0 && res.length <= 14) {
            long budget = 2000000;
            uint8_t winner = SG_NO_SEAT;
            for (uint8_t p = 0; p < st.rules.players; p++)
                if (st.hand[p] && p != res.loser)
                    winner = p;
            const int forced = forced_within(&st, winner, res.length, &budget);
            if (budget >= 0) {
                lengths_checked++;
                if (!forced) {
                    fprintf(stderr, "solve_check: position %ld: %s not forced within %" PRIu32
                                    " moves\n",
                            checked, value_name(truth), res.length);
                    describe(&st);
                    return 1;
                }
            }
        }
        /* Small budgets: unknown, or right. */
        for (uint64_t budget = 1; budget < 200; budget = budget * 3 + 1) {
            sg_solver_clear(fresh);
            sg_solve(fresh, &st, budget, &res);
            if (res.value != SG_SOLVE_VALUE_UNKNOWN && res.value != truth) {
                fprintf(stderr, "solve_check: position %ld: budget %" PRIu64 " says %s\n",
                        checked, budget, value_name(res.value));
                describe(&st);
                return 1;
            }
            if (res.value == SG_SOLVE_VALUE_UNKNOWN &&
                (res.stop != SG_SOLVE_STOP_BUDGET || res.nodes > budget)) {
                fprintf(stderr, "solve_check: position %ld: unknown, stop %d, %" PRIu64
                                " nodes of %" PRIu64 "\n",
                        checked, res.stop, res.nodes, budget);
                return 1;
            }
            partial += res.value == SG_SOLVE_VALUE_UNKNOWN;
        }
        /* Every legal move's value. */
        {
            sg_move moves[SG_MAX_MOVES];
            int8_t values[SG_MAX_MOVES];
            uint32_t lengths[SG_MAX_MOVES];
            int n = 0;
            sg_solver *solver = checked % 2 ? shared : tiny;
            if (sg_solve_moves(solver, &st, UINT64_MAX, &res, moves, values, lengths, &n) !=
                    SG_ERROR_NONE ||
                res.value != truth) {
                fprintf(stderr, "solve_check: position %ld: sg_solve_moves says %s, not %s\n",
                        checked, value_name(res.value), value_name(truth));
                describe(&st);
                return 1;
            }
            for (int i = 0; i < n; i++) {
                sg_state after = st;
                sg_apply_unchecked(&after, moves[i], NULL);
                int v;
                if (after.phase == SG_PHASE_OVER) {
                    v = after.loser == SG_NO_SEAT ? 0 : after.loser == st.to_move ? -1 : 1;
                } else {
                    const int cv = brute_value(&ctx, &after, 3000000);
                    if (cv == NO_ANSWER)
                        continue;
                    v = after.to_move == st.to_move ? cv : -cv;
                }
                moves_checked++;
                if (v != values[i]) {
                    fprintf(stderr, "solve_check: position %ld, move %d: %s, brute force %s\n",
                            checked, i, value_name(values[i]), value_name(v));
                    describe(&st);
                    return 1;
                }
            }
        }
        /* Down a random line of play, one solver for all its positions: its table
         * holds the earlier positions' results (relative ranks make many of them
         * the same game), and each answer must still be the brute force's. */
        {
            sg_state line = st;
            sg_solver *const solver = checked % 2 ? shared : tiny;
            while (line.phase == SG_PHASE_SHEDDING) {
                sg_move moves[SG_MAX_MOVES];
                const int n = sg_legal_moves(&line, moves);
                sg_apply_unchecked(&line, moves[sg_rng_below(&rng, (uint32_t)n)], NULL);
                if (line.phase != SG_PHASE_SHEDDING)
                    break;
                const int v = brute_value(&ctx, &line, 3000000);
                if (v == NO_ANSWER)
                    continue;
                sg_state after = line;
                if (sg_solve(solver, &line, UINT64_MAX, &res) != SG_ERROR_NONE ||
                    res.value != v || sg_apply(&after, res.best, NULL) != SG_ERROR_NONE) {
                    fprintf(stderr, "solve_check: position %ld, down the line: %s, not %s\n",
                            checked, value_name(res.value), value_name(v));
                    describe(&line);
                    return 1;
                }
                line_positions++;
            }
        }
        counts[truth + 1]++;
        with_repeats += repeats > 0;
        with_cap += truncated > 0;
        cycle_draws += truth == 0 && truncated == 0;
        checked++;
    }
    /* Refusals: a position before phase 2, a game over, three seats holding cards. */
    {
        sg_rules rules;
        sg_rules_classic(&rules, 3);
        uint8_t deck[SG_NCARDS];
        sg_deck_from_seed(seed, deck);
        sg_state st;
        sg_solve_result res;
        sg_new(&st, &rules, deck, 2, NULL);
        if (sg_solve(shared, &st, 100, &res) != SG_ERROR_POSITION ||
            res.value != SG_SOLVE_VALUE_UNKNOWN) {
            fprintf(stderr, "solve_check: phase 1 not refused\n");
            return 1;
        }
        const uint64_t hands[SG_MAX_PLAYERS] = {0x3, 0x30, 0x300, 0};
        sg_new_shedding(&st, &rules, hands, 0, 0, NULL);
        if (sg_solve(shared, &st, 100, &res) != SG_ERROR_POSITION) {
            fprintf(stderr, "solve_check: three holders not refused\n");
            return 1;
        }
        const uint64_t over[SG_MAX_PLAYERS] = {0x3, 0, 0, 0};
        sg_new_shedding(&st, &rules, over, 0, 0, NULL);
        if (sg_solve(shared, &st, 100, &res) != SG_ERROR_OVER) {
            fprintf(stderr, "solve_check: a game over not refused\n");
            return 1;
        }
    }
    free(shared_buffer);
    free(tiny_buffer);
    free(fresh_buffer);
    printf("solve_check: ok, %ld positions agree with the brute force (%ld wins, %ld draws, "
           "%ld losses; %ld with repetitions, %ld reaching the move cap, %ld draws by a cycle "
           "alone), %ld moves' values, %ld positions down lines of play, "
           "%ld lengths forced, %ld budgets too small; %ld skipped as too large\n",
           checked, counts[2], counts[1], counts[0], with_repeats, with_cap, cycle_draws, moves_checked,
           line_positions,
           lengths_checked, partial, skipped);
    return 0;
}
