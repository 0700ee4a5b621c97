/* Drives the C core through many random games and checks its invariants after
 * every move.  Built with -fsanitize=address,undefined by tests/test_sanitizers.py
 * so that any memory error or undefined behaviour fails the test suite.
 *
 * usage: core_check [games_per_player_count] [seed]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skitgubbe.h"
/* sg_playout_rollout against sg_rollout (check_playouts). */
#include "internal.h"

static int failures = 0;

#define EXPECT(cond, ...)                                                      \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "core_check: " __VA_ARGS__);                      \
            fprintf(stderr, " (%s:%d)\n", __FILE__, __LINE__);                 \
            failures++;                                                        \
            return;                                                            \
        }                                                                      \
    } while (0)

static int popcount(uint64_t x)
{
    int n = 0;
    for (; x; x &= x - 1)
        n++;
    return n;
}

/* The lowest card of a non-empty set. */
static uint8_t lowest(uint64_t x)
{
    uint8_t n = 0;
    for (; !(x & 1); x >>= 1)
        n++;
    return n;
}

/* Every card lies in exactly one place. */
static void check_cards(const sg_state *st, uint64_t game)
{
    uint64_t seen = 0;
    int total = 0;
    uint64_t places[4 * SG_MAX_PLAYERS + 1];
    int np = 0;
    for (int p = 0; p < SG_MAX_PLAYERS; p++) {
        places[np++] = st->hand[p];
        places[np++] = st->coll[p];
    }
    places[np++] = st->out;
    for (int i = 0; i < np; i++) {
        EXPECT(!(seen & places[i]), "game %" PRIu64 ": a card lies in two places", game);
        seen |= places[i];
        total += popcount(places[i]);
    }
    for (int i = st->stock_top; i < st->stock_len; i++) {
        const uint64_t bit = SG_CARD_BIT(st->stock[i]);
        EXPECT(!(seen & bit), "game %" PRIu64 ": stock card elsewhere too", game);
        seen |= bit;
        total++;
    }
    for (int i = 0; i < st->table_len; i++) {
        const uint64_t bit = SG_CARD_BIT(st->table[i]);
        EXPECT(!(seen & bit), "game %" PRIu64 ": table card elsewhere too", game);
        seen |= bit;
        total++;
    }
    if (st->hidden_card != SG_NO_CARD) {
        EXPECT(!(seen & SG_CARD_BIT(st->hidden_card)), "game %" PRIu64 ": hidden card twice", game);
        seen |= SG_CARD_BIT(st->hidden_card);
        total++;
    }
    EXPECT(seen == SG_ALL_CARDS && total == SG_NCARDS,
           "game %" PRIu64 ": %d cards instead of 52", game, total);
}

static void check_knowledge(const sg_state *st, uint64_t game)
{
    for (uint8_t seat = 0; seat < st->rules.players; seat++) {
        EXPECT(!(st->known[seat] & ~(st->hand[seat] | st->coll[seat])),
               "game %" PRIu64 ": seat %u known cards it does not hold", game, seat);
        uint8_t slots[SG_MAX_PLAYERS + 2];
        const uint64_t unknown = sg_unknown(st, seat, slots);
        int sum = 0;
        for (int i = 0; i < SG_MAX_PLAYERS + 2; i++)
            sum += slots[i];
        EXPECT(sum == popcount(unknown), "game %" PRIu64 ": slots %d != unknown %d", game,
               sum, popcount(unknown));
        EXPECT(!(unknown & (st->hand[seat] | st->coll[seat])),
               "game %" PRIu64 ": seat %u does not know its own cards", game, seat);
    }
}

/* An observation says what sg_unknown and the state say, and nothing else. */
static void check_observation(const sg_state *st, uint8_t seat, uint64_t game)
{
    sg_observation obs;
    memset(&obs, 0xAB, sizeof obs);
    EXPECT(sg_observe(st, seat, &obs) == SG_ERROR_NONE, "sg_observe refused seat %u", seat);
    uint8_t slots[SG_MAX_PLAYERS + 2];
    const uint64_t unknown = sg_unknown(st, seat, slots);
    const int n = st->rules.players;
    EXPECT(obs.seat == seat && obs.players == n && obs.phase == st->phase &&
               obs.to_move == st->to_move && obs.dealer == st->dealer &&
               obs.moves_played == st->moves,
           "game %" PRIu64 ": observation header", game);
    EXPECT(obs.hand == st->hand[seat] && obs.collection == st->coll[seat] &&
               obs.out_of_play == st->out && obs.unknown == unknown,
           "game %" PRIu64 ": observed cards", game);
    EXPECT(obs.trump == (st->trump_public ? st->trump : SG_NO_SUIT), "observed trump");
    int sum = obs.stock_slots + obs.hidden_slots;
    for (int p = 0; p < SG_MAX_PLAYERS; p++) {
        sum += obs.unknown_slots[p];
        if (p >= n) {
            EXPECT(!obs.known[p] && !obs.hand_sizes[p] && !obs.collection_sizes[p] &&
                       !obs.unknown_slots[p],
                   "observation of a seat beyond the players");
            continue;
        }
        EXPECT(obs.known[p] == (p == seat ? st->hand[p] | st->coll[p] : st->known[p]),
               "observed known cards of seat %d", p);
        EXPECT(obs.hand_sizes[p] == popcount(st->hand[p]) &&
                   obs.collection_sizes[p] == popcount(st->coll[p]),
               "observed sizes of seat %d", p);
        EXPECT(obs.unknown_slots[p] == slots[p], "observed slots of seat %d", p);
    }
    EXPECT(obs.unknown_slots[seat] == 0, "own unknown slots");
    EXPECT(obs.stock_slots == slots[SG_MAX_PLAYERS] &&
               obs.hidden_slots == slots[SG_MAX_PLAYERS + 1],
           "observed stock and hidden slots");
    EXPECT(sum == popcount(unknown), "game %" PRIu64 ": slots %d != unknown %d", game, sum,
           popcount(unknown));
    EXPECT(obs.stock_size == st->stock_len - st->stock_top, "observed stock size");
    EXPECT(obs.upcard == (obs.stock_size ? st->upcard : SG_NO_CARD), "observed up-card");
    EXPECT(obs.slough_winner == (st->window ? st->winner : SG_NO_SEAT), "observed window");
    EXPECT(obs.hidden_holder == (st->hidden_card != SG_NO_CARD ? st->hidden_holder : SG_NO_SEAT),
           "observed hidden holder");
    EXPECT(obs.n_finished == st->n_finished &&
               memcmp(obs.finished, st->finished, st->n_finished) == 0,
           "observed finished seats");
    for (int i = st->n_finished; i < SG_MAX_PLAYERS; i++)
        EXPECT(obs.finished[i] == 0, "unused finished entry");
    /* The plays rebuild the table: bottom first, one seat each, no card twice. */
    uint64_t table = 0;
    int cards = 0;
    EXPECT(obs.n_table_plays <= st->table_len, "more plays than table cards");
    for (int i = 0; i < obs.n_table_plays; i++) {
        EXPECT(obs.table_cards[i] && !(obs.table_cards[i] & table), "observed play %d", i);
        EXPECT(obs.table_seat[i] < n, "observed play %d by seat %u", i, obs.table_seat[i]);
        table |= obs.table_cards[i];
        for (uint64_t c = obs.table_cards[i]; c; c &= c - 1, cards++)
            EXPECT(st->table[cards] == lowest(c) &&
                       st->table_seat[cards] == obs.table_seat[i],
                   "observed play %d: card %d", i, cards);
    }
    EXPECT(cards == st->table_len, "observed %d table cards of %u", cards, st->table_len);
    for (int i = obs.n_table_plays; i < SG_NCARDS; i++)
        EXPECT(!obs.table_cards[i] && !obs.table_seat[i], "unused table entry");
    EXPECT(obs.reserved[0] == 0 && obs.reserved[1] == 0, "observation reserved bytes");
}

/* A seat's view observes as the state does, and gives the same tensor, every
 * float in [0, 1]. */
static void check_view_tensor(const sg_state *st, uint8_t seat, uint64_t game)
{
    sg_state view;
    sg_view(st, seat, &view);
    sg_observation from_state, from_view;
    sg_observe(st, seat, &from_state);
    sg_observe(&view, seat, &from_view);
    EXPECT(memcmp(&from_state, &from_view, sizeof from_state) == 0,
           "game %" PRIu64 ": the view observes differently", game);
    static const sg_public_move recent[2] = {{UINT64_C(1) << 3, SG_MOVE_KIND_PLAY, 1, {0}},
                                             {0, SG_MOVE_KIND_PICK_UP, 0, {0}}};
    const int size = sg_tensor_size();
    float *of_state = malloc((size_t)size * sizeof *of_state);
    float *of_view = malloc((size_t)size * sizeof *of_view);
    EXPECT(of_state && of_view, "out of memory");
    sg_observation_tensor(st, seat, 0, recent, 2, of_state);
    sg_observation_tensor(&view, seat, 0, recent, 2, of_view);
    int same = memcmp(of_state, of_view, (size_t)size * sizeof *of_state) == 0, in_range = 1;
    for (int i = 0; i < size; i++)
        in_range &= of_state[i] >= 0.0f && of_state[i] <= 1.0f;
    free(of_state);
    free(of_view);
    EXPECT(same, "game %" PRIu64 ": the view's tensor differs", game);
    EXPECT(in_range, "game %" PRIu64 ": a tensor value outside [0, 1]", game);
}

/* A view and worlds sampled from it agree with everything the seat knows. */
static void check_sampling(const sg_state *st, uint8_t seat, sg_rng *rng, uint64_t game)
{
    sg_state view, world;
    sg_view(st, seat, &view);
    sg_sample_world(&view, rng, &world);
    check_cards(&world, game);
    EXPECT(world.hand[seat] == st->hand[seat], "game %" PRIu64 ": sampled own hand differs", game);
    for (int p = 0; p < st->rules.players; p++) {
        EXPECT(popcount(world.hand[p]) == popcount(st->hand[p]),
               "game %" PRIu64 ": sampled hand size differs", game);
        EXPECT((st->known[p] & ~world.coll[p] & ~world.hand[p]) == 0,
               "game %" PRIu64 ": sampled world drops a known card", game);
        EXPECT(world.coll[p] == st->coll[p], "game %" PRIu64 ": collections differ", game);
    }
    EXPECT(world.stock_len - world.stock_top == st->stock_len - st->stock_top, "stock size");
    /* The seat cannot tell the world from the game: it observes the same. */
    sg_observation seen, seen_in_world;
    EXPECT(sg_observe(st, seat, &seen) == SG_ERROR_NONE &&
               sg_observe(&world, seat, &seen_in_world) == SG_ERROR_NONE &&
               memcmp(&seen, &seen_in_world, sizeof seen) == 0,
           "game %" PRIu64 ": seat %u observes a sampled world differently", game, seat);
    EXPECT((world.hidden_card == SG_NO_CARD) == (st->hidden_card == SG_NO_CARD), "hidden card");
    if (st->to_move == seat) {
        sg_move a[SG_MAX_MOVES], b[SG_MAX_MOVES];
        const int na = sg_legal_moves(st, a), nb = sg_legal_moves(&world, b);
        EXPECT(na == nb && memcmp(a, b, (size_t)na * sizeof a[0]) == 0,
               "game %" PRIu64 ": the seat's legal moves differ in a sampled world", game);
        const sg_move greedy = sg_greedy_move(&view);
        EXPECT(greedy == sg_greedy_move(st), "greedy uses more than the seat knows");
        int legal = 0;
        for (int i = 0; i < na; i++)
            legal |= a[i] == greedy;
        EXPECT(legal, "game %" PRIu64 ": greedy move is not legal", game);
    }
}

/* ---- legality and its reasons ---------------------------------------------- */

static int compare_moves(const void *a, const void *b)
{
    const sg_move x = *(const sg_move *)a, y = *(const sg_move *)b;
    return (x > y) - (x < y);
}

/* The cards of the ranks lying on the table, in all suits. */
static uint64_t trick_rank_cards(const sg_state *st)
{
    uint64_t cards = 0;
    for (int i = 0; i < st->table_len; i++)
        for (int suit = 0; suit < 4; suit++)
            cards |= SG_CARD_BIT(SG_CARD(suit, SG_RANK_OF(st->table[i])));
    return cards;
}

/* One candidate: sg_why_illegal says NONE exactly when the move is in the
 * (sorted) legal list, exactly when sg_apply accepts it; a refused move leaves
 * the state as it was; the detail is what the header promises. */
static void check_candidate(const sg_state *st, sg_move move, const sg_move *legal, int n,
                            uint64_t game)
{
    uint64_t detail = UINT64_C(0xDEADBEEF);
    const int why = sg_why_illegal(st, move, &detail);
    const int listed = bsearch(&move, legal, (size_t)n, sizeof move, compare_moves) != NULL;
    EXPECT((why == SG_ILLEGAL_NONE) == listed,
           "game %" PRIu64 ": move %016" PRIx64 " is %s but sg_why_illegal says %s", game,
           move, listed ? "legal" : "not legal", sg_illegal_name(why));
    EXPECT(sg_illegal_name(why) != NULL, "reason %d has no name", why);
    EXPECT(sg_why_illegal(st, move, NULL) == why, "the reason depends on detail");

    const uint64_t cards = SG_MOVE_CARDS(move);
    const unsigned kind = SG_MOVE_KIND_OF(move);
    const uint64_t hand = st->to_move < SG_MAX_PLAYERS ? st->hand[st->to_move] : 0;
    switch (why) {
    case SG_ILLEGAL_NONE:
    case SG_ILLEGAL_GAME_OVER:
    case SG_ILLEGAL_NO_WINDOW:
    case SG_ILLEGAL_FLIP_PHASE:
    case SG_ILLEGAL_FLIP_RULES:
    case SG_ILLEGAL_PICK_UP_PHASE:
    case SG_ILLEGAL_PICK_UP_EMPTY:
        EXPECT(detail == 0, "%s with detail %" PRIx64, sg_illegal_name(why), detail);
        break;
    case SG_ILLEGAL_MALFORMED:
        EXPECT((detail == 0) == ((kind == SG_MOVE_KIND_PLAY || kind == SG_MOVE_KIND_SLOUGH) &&
                                 move == SG_MAKE_MOVE(kind, 0)) &&
                   !(detail & ~move),
               "malformed detail %" PRIx64 " of %" PRIx64, detail, move);
        break;
    case SG_ILLEGAL_WINDOW_OPEN:
        EXPECT(st->window && detail == (hand & trick_rank_cards(st)) && detail,
               "window detail");
        break;
    case SG_ILLEGAL_FLIP_STOCK:
        EXPECT(detail == (uint64_t)(st->stock_len - st->stock_top) && detail < 2,
               "flip detail");
        break;
    case SG_ILLEGAL_NOT_HELD:
        EXPECT(detail && detail == (cards & ~hand), "not-held detail");
        break;
    case SG_ILLEGAL_SLOUGH_RANK:
        EXPECT(detail && detail == (cards & ~trick_rank_cards(st)) && !(cards & ~hand),
               "slough detail");
        break;
    case SG_ILLEGAL_ONE_CARD_COLLECTING:
    case SG_ILLEGAL_ONE_CARD_SHEDDING:
    case SG_ILLEGAL_MIXED_RANKS:
    case SG_ILLEGAL_NOT_A_RUN:
        EXPECT(detail == cards && popcount(cards) > 1 && !(cards & ~hand), "%s detail",
               sg_illegal_name(why));
        EXPECT((why == SG_ILLEGAL_ONE_CARD_COLLECTING || why == SG_ILLEGAL_MIXED_RANKS) ==
                   (st->phase == SG_PHASE_COLLECTING),
               "%s in phase %u", sg_illegal_name(why), st->phase);
        break;
    case SG_ILLEGAL_DOES_NOT_BEAT:
        EXPECT(st->phase == SG_PHASE_SHEDDING && st->table_len &&
                   detail == SG_CARD_BIT(st->table[st->table_len - 1]),
               "does-not-beat detail");
        break;
    default:
        EXPECT(0, "unknown reason %d", why);
    }

    sg_state after = *st;
    const int code = sg_apply(&after, move, NULL);
    if (!listed) {
        EXPECT(code == (st->phase == SG_PHASE_OVER ? SG_ERROR_OVER : SG_ERROR_ILLEGAL),
               "sg_apply answered %d to an illegal move", code);
        EXPECT(memcmp(&after, st, sizeof after) == 0, "an illegal move changed the state");
        return;
    }
    EXPECT(code == SG_ERROR_NONE, "sg_apply refused a legal move");
    sg_state expected = *st;
    sg_apply_unchecked(&expected, move, NULL);
    EXPECT(memcmp(&after, &expected, sizeof after) == 0, "sg_apply differs from unchecked");
}

/* Every kind of candidate move in one position (see check_candidate). */
static void check_legality(const sg_state *st, uint64_t game)
{
    sg_rng own, *rng = &own; /* apart from the game's: checking does not change it */
    sg_rng_seed(rng, game * 1000003u + st->moves);
    sg_move legal[SG_MAX_MOVES];
    const int n = sg_legal_moves(st, legal);
    qsort(legal, (size_t)n, sizeof legal[0], compare_moves);
    for (int i = 0; i < n; i++) {
        check_candidate(st, legal[i], legal, n, game);
        if (failures)
            return;
    }
    const unsigned kinds[] = {SG_MOVE_KIND_PLAY, SG_MOVE_KIND_SLOUGH};
    const uint64_t hand = st->to_move < SG_MAX_PLAYERS ? st->hand[st->to_move] : 0;
    uint64_t held[SG_NCARDS];
    int n_held = 0;
    for (uint64_t h = hand; h; h &= h - 1)
        held[n_held++] = h & (~h + 1);

#define TRY(move)                                                                            \
    do {                                                                                     \
        check_candidate(st, (move), legal, n, game);                                         \
        if (failures)                                                                        \
            return;                                                                          \
    } while (0)
    for (int k = 0; k < 2; k++) {
        const unsigned kind = kinds[k];
        for (int suit = 0; suit < 4; suit++) {
            for (int rank = 0; rank < 13; rank++) {
                /* every card, and the runs up from it */
                uint64_t run = SG_CARD_BIT(SG_CARD(suit, rank));
                TRY(SG_MAKE_MOVE(kind, run));
                for (int top = rank + 1; top < 13 && top < rank + 6; top++) {
                    run |= SG_CARD_BIT(SG_CARD(suit, top));
                    TRY(SG_MAKE_MOVE(kind, run));
                }
            }
        }
        /* every set of equal cards */
        for (int rank = 0; rank < 13; rank++)
            for (uint32_t suits = 1; suits < 16; suits++) {
                uint64_t set = 0;
                for (int suit = 0; suit < 4; suit++)
                    if (suits & (1u << suit))
                        set |= SG_CARD_BIT(SG_CARD(suit, rank));
                TRY(SG_MAKE_MOVE(kind, set));
            }
        /* pairs and triples of held cards, some with a card not held */
        for (int a = 0; a < n_held; a++)
            for (int b = a + 1; b < n_held; b++) {
                TRY(SG_MAKE_MOVE(kind, held[a] | held[b]));
                if (n_held <= 10)
                    for (int c = b + 1; c < n_held; c++)
                        TRY(SG_MAKE_MOVE(kind, held[a] | held[b] | held[c]));
            }
        for (int i = 0; i < 24 && n_held >= 3; i++) {
            const uint64_t some = held[sg_rng_below(rng, (uint32_t)n_held)] |
                                  held[sg_rng_below(rng, (uint32_t)n_held)] |
                                  held[sg_rng_below(rng, (uint32_t)n_held)];
            const uint64_t other =
                SG_CARD_BIT(SG_CARD(sg_rng_below(rng, 4), sg_rng_below(rng, 13)));
            TRY(SG_MAKE_MOVE(kind, some));
            TRY(SG_MAKE_MOVE(kind, some | other));
            TRY(SG_MAKE_MOVE(kind, hand & sg_rng_next(rng)));
        }
        /* every selection of the held cards of the trick's ranks */
        const uint64_t throwable = hand & trick_rank_cards(st);
        for (uint64_t sub = throwable; sub; sub = (sub - 1) & throwable)
            TRY(SG_MAKE_MOVE(kind, sub));
        TRY(SG_MAKE_MOVE(kind, hand));
        TRY(SG_MAKE_MOVE(kind, SG_ALL_CARDS));
    }
    /* moves without cards, and junk */
    for (unsigned kind = 0; kind < 8; kind++) {
        TRY(SG_MAKE_MOVE(kind, 0));
        TRY(SG_MAKE_MOVE(kind, hand & (~hand + 1)));
        TRY(SG_MAKE_MOVE(kind, UINT64_C(1) << 20));
        TRY(((sg_move)kind << 61) | (UINT64_C(1) << (13 + 16 * (kind % 4))) |
            (hand & (~hand + 1)));
    }
    for (int i = 0; i < 16; i++)
        TRY(sg_rng_next(rng));
#undef TRY
}

/* Plays one random game, checking the invariants after every move and, when
 * `check_moves` is set, every kind of candidate move in every position. */
/* Integer actions: every legal move has one path of legal actions, which
 * plays it exactly; every complete path plays a legal move; illegal actions
 * change nothing. */
static int count_paths(const sg_state *st, uint64_t pending, const sg_move *legal, int n,
                       uint64_t *seen, uint64_t game)
{
    uint16_t actions[SG_NUM_ACTIONS];
    const int k = sg_legal_actions(st, pending, actions);
    int paths = 0;
    for (int i = 0; i < k; i++) {
        if (i && actions[i] <= actions[i - 1]) {
            fprintf(stderr, "core_check: game %" PRIu64 ": actions not ascending\n", game);
            failures++;
            return -1;
        }
        sg_state next = *st;
        uint64_t p = pending;
        if (sg_apply_action(&next, &p, actions[i], NULL) != SG_ERROR_NONE) {
            fprintf(stderr, "core_check: game %" PRIu64 ": legal action %d refused\n", game,
                    actions[i]);
            failures++;
            return -1;
        }
        if (p) {
            const int more = count_paths(&next, p, legal, n, seen, game);
            if (more < 0)
                return -1;
            paths += more;
            continue;
        }
        /* A whole move: it is one of the legal moves, played once. */
        int found = -1;
        for (int j = 0; j < n; j++) {
            sg_state played = *st;
            if (sg_apply(&played, legal[j], NULL) == SG_ERROR_NONE &&
                memcmp(&played, &next, sizeof next) == 0 && !(seen[j / 64] >> (j % 64) & 1)) {
                found = j;
                break;
            }
        }
        if (found < 0) {
            fprintf(stderr, "core_check: game %" PRIu64 ": action %d played no new legal move\n",
                    game, actions[i]);
            failures++;
            return -1;
        }
        seen[found / 64] |= UINT64_C(1) << (found % 64);
        paths++;
    }
    return paths;
}

static void check_actions(const sg_state *st, sg_rng *rng, uint64_t game)
{
    sg_move legal[SG_MAX_MOVES];
    const int n = sg_legal_moves(st, legal);
    uint64_t seen[SG_MAX_MOVES / 64] = {0};
    const int paths = count_paths(st, 0, legal, n, seen, game);
    if (paths < 0)
        return;
    EXPECT(paths == n, "game %" PRIu64 ": %d action paths for %d legal moves", game, paths, n);
    for (int j = 0; j < n; j++) {
        uint16_t path[SG_MAX_ACTION_PATH];
        const int len = sg_move_actions(legal[j], path);
        EXPECT(len >= 1, "game %" PRIu64 ": legal move without actions", game);
        sg_state next = *st, played = *st;
        uint64_t pending = 0;
        for (int i = 0; i < len; i++)
            EXPECT(sg_apply_action(&next, &pending, path[i], NULL) == SG_ERROR_NONE,
                   "game %" PRIu64 ": a move's action refused", game);
        sg_apply(&played, legal[j], NULL);
        EXPECT(pending == 0 && memcmp(&next, &played, sizeof next) == 0,
               "game %" PRIu64 ": a move's actions play another move", game);
        if (len == 1)
            EXPECT(sg_action_move(path[0]) == legal[j], "action's move differs");
    }
    /* An action that is not legal changes neither the state nor the pending cards. */
    uint16_t actions[SG_NUM_ACTIONS];
    const int k = sg_legal_actions(st, 0, actions);
    const int bogus = (int)sg_rng_below(rng, SG_NUM_ACTIONS);
    int is_legal = 0;
    for (int i = 0; i < k; i++)
        is_legal |= actions[i] == bogus;
    if (!is_legal) {
        sg_state next = *st;
        uint64_t pending = 0;
        EXPECT(sg_apply_action(&next, &pending, bogus, NULL) == SG_ERROR_ILLEGAL &&
                   pending == 0 && memcmp(&next, st, sizeof next) == 0,
               "game %" PRIu64 ": illegal action %d changed something", game, bogus);
    }
}

/* The numbering: every id that plays a move alone maps back to itself. */
static void check_action_table(void)
{
    uint16_t path[SG_MAX_ACTION_PATH];
    for (int a = 0; a < SG_NUM_ACTIONS; a++) {
        const sg_move m = sg_action_move(a);
        if (a >= SG_ACTION_SLOUGH_CARD) {
            EXPECT(m == SG_NO_MOVE, "slough step %d has a move", a);
            continue;
        }
        EXPECT(m != SG_NO_MOVE && sg_move_actions(m, path) == 1 && path[0] == a,
               "action %d does not map back", a);
    }
    EXPECT(sg_action_move(-1) == SG_NO_MOVE && sg_action_move(SG_NUM_ACTIONS) == SG_NO_MOVE,
           "ids out of range have moves");
    EXPECT(sg_move_actions(SG_MAKE_MOVE(SG_MOVE_KIND_SLOUGH, UINT64_C(0x5)), path) == 3 &&
               path[0] == SG_ACTION_SLOUGH_CARD && path[1] == SG_ACTION_SLOUGH_CARD + 2 &&
               path[2] == SG_ACTION_SLOUGH_DONE,
           "a slough's path");
    /* Plays that are neither equal cards nor runs have no action. */
    EXPECT(sg_move_actions(SG_MAKE_MOVE(SG_MOVE_KIND_PLAY, UINT64_C(0x5)), path) == 0 &&
               sg_move_actions(SG_MAKE_MOVE(SG_MOVE_KIND_PLAY, 0), path) == 0 &&
               sg_move_actions(SG_MAKE_MOVE(5, 0), path) == 0 &&
               sg_move_actions(SG_MAKE_MOVE(SG_MOVE_KIND_FLIP, 1), path) == 0,
           "a move of no variant has actions");
}

/* The vector environment: in self-play, each game is the game Game.new would
 * deal from its seed, played by the same actions, with the same tensors and
 * masks; with built-in players, rewards sum to zero and illegal batches
 * change nothing. Every game's number names its seed, and sg_vec_sample draws
 * legal actions only (and none before a reset). */
static void check_vec(const sg_rules *rules, uint64_t seed, int self_play)
{
    enum { GAMES = 6, STEPS = 400 };
    int32_t policies[SG_MAX_PLAYERS] = {SG_VEC_LEARNER, SG_VEC_LEARNER, SG_VEC_LEARNER,
                                        SG_VEC_LEARNER};
    if (!self_play)
        for (int p = 1; p < rules->players; p++)
            policies[p] = p % 2 ? SG_POLICY_RANDOM : SG_POLICY_GREEDY;
    sg_vec *env = sg_vec_new(rules, GAMES, seed, policies);
    EXPECT(env != NULL, "sg_vec_new failed");
    const int size = sg_tensor_size();
    float *obs = malloc((size_t)GAMES * (size_t)size * sizeof *obs);
    float *mine = malloc((size_t)size * sizeof *mine);
    uint8_t masks[GAMES * SG_NUM_ACTIONS], mask[SG_NUM_ACTIONS];
    float rewards[GAMES * SG_MAX_PLAYERS];
    uint8_t terminated[GAMES], truncated[GAMES];
    int32_t seats[GAMES], actions[GAMES], bad = -1;
    uint64_t seeds[GAMES], numbers[GAMES];
    int32_t sampled[GAMES];
    sg_vec_out out = {obs, masks, rewards, terminated, truncated, seats, seeds, numbers};
    /* Our own copy of each game, replayed from its seed. */
    sg_state mirror[GAMES];
    uint64_t pending[GAMES];
    sg_public_move recent[GAMES][SG_TENSOR_RECENT];
    int n_recent[GAMES];
    sg_rng rng;
    sg_rng_seed(&rng, seed);
    int failed = obs == NULL || mine == NULL;
    failed |= sg_vec_sample(env, sampled, &bad) != SG_ERROR_POSITION; /* nothing dealt yet */
    sg_vec_reset(env, &out);
    for (int i = 0; i < GAMES && !failed; i++) {
        uint8_t deck[SG_NCARDS];
        sg_deck_from_seed(seeds[i], deck);
        sg_new(&mirror[i], rules, deck, (uint8_t)(rules->players - 1), NULL);
        pending[i] = 0;
        n_recent[i] = 0;
    }
    for (int step = 0; step < STEPS && !failed; step++) {
        for (int i = 0; i < GAMES && !failed; i++) {
            uint16_t legal[SG_NUM_ACTIONS];
            uint64_t env_pending = 0;
            const sg_state *st = sg_vec_state(env, i, &env_pending);
            const int n = sg_legal_actions(st, env_pending, legal);
            if (self_play)
                failed |= env_pending != pending[i];
            failed |= n < 1 || seats[i] != st->to_move || policies[seats[i]] != SG_VEC_LEARNER;
            for (int a = 0; a < SG_NUM_ACTIONS && !failed; a++)
                failed |= masks[i * SG_NUM_ACTIONS + a] != 0 && masks[i * SG_NUM_ACTIONS + a] != 1;
            if (self_play && !failed) {
                failed |= memcmp(st, &mirror[i], sizeof *st) != 0;
                sg_action_mask(&mirror[i], pending[i], mask);
                failed |= memcmp(mask, &masks[i * SG_NUM_ACTIONS], SG_NUM_ACTIONS) != 0;
                sg_observation_tensor(&mirror[i], mirror[i].to_move, pending[i], recent[i],
                                      n_recent[i], mine);
                failed |= memcmp(mine, obs + (size_t)i * (size_t)size,
                                 (size_t)size * sizeof *mine) != 0;
            }
            actions[i] = n > 0 ? legal[sg_rng_below(&rng, (uint32_t)n)] : 0;
            failed |= seeds[i] != sg_game_seed(seed, numbers[i]) ||
                      numbers[i] % GAMES != (uint64_t)i;
        }
        failed |= sg_vec_sample(env, sampled, &bad) != SG_ERROR_NONE;
        for (int i = 0; i < GAMES && !failed; i++)
            failed |= sampled[i] < 0 || sampled[i] >= SG_NUM_ACTIONS ||
                      masks[i * SG_NUM_ACTIONS + sampled[i]] != 1;
        if (step % 2) /* every other step plays the sampled actions */
            memcpy(actions, sampled, sizeof actions);
        if (failed)
            break;
        if (step % 50 == 7) { /* an illegal action anywhere refuses the whole batch */
            const int32_t keep = actions[GAMES - 1];
            sg_state before = *sg_vec_state(env, 0, NULL);
            actions[GAMES - 1] = -1;
            failed |= sg_vec_step(env, actions, &out, &bad) != SG_ERROR_ILLEGAL ||
                      bad != GAMES - 1 ||
                      memcmp(&before, sg_vec_state(env, 0, NULL), sizeof before) != 0;
            actions[GAMES - 1] = keep;
        }
        for (int i = 0; i < GAMES && self_play; i++) {
            const sg_state before = mirror[i];
            sg_event buf[SG_MAX_EVENTS];
            sg_events ev = {buf, SG_MAX_EVENTS, 0};
            sg_apply_action(&mirror[i], &pending[i], actions[i], &ev);
            if (mirror[i].moves != before.moves) {
                sg_public_move seen;
                sg_public_move_of(buf, ev.len, &seen);
                memmove(&recent[i][1], &recent[i][0], (SG_TENSOR_RECENT - 1) * sizeof seen);
                recent[i][0] = seen;
                if (n_recent[i] < SG_TENSOR_RECENT)
                    n_recent[i]++;
            }
        }
        failed |= sg_vec_step(env, actions, &out, &bad) != SG_ERROR_NONE;
        for (int i = 0; i < GAMES && !failed; i++) {
            float sum = 0.0f;
            for (int p = 0; p < SG_MAX_PLAYERS; p++)
                sum += rewards[i * SG_MAX_PLAYERS + p];
            failed |= sum != 0.0f || (terminated[i] && truncated[i]);
            if (self_play && mirror[i].phase == SG_PHASE_OVER) {
                float expect = 0.0f;
                if (!mirror[i].truncated && mirror[i].loser != SG_NO_SEAT)
                    expect = (float)(1 - rules->players);
                failed |= !(terminated[i] || truncated[i]) ||
                          (mirror[i].loser != SG_NO_SEAT &&
                           rewards[i * SG_MAX_PLAYERS + mirror[i].loser] != expect);
                uint8_t deck[SG_NCARDS];
                sg_deck_from_seed(seeds[i], deck);
                sg_new(&mirror[i], rules, deck, (uint8_t)(rules->players - 1), NULL);
                pending[i] = 0;
                n_recent[i] = 0;
            } else if (self_play) {
                failed |= terminated[i] || truncated[i];
            }
        }
    }
    free(obs);
    free(mine);
    sg_vec_free(env);
    EXPECT(!failed, "vector environment (self-play %d, seed %" PRIu64 ")", self_play, seed);
}

/* ---- the endgame solver ------------------------------------------------------- */

/* One small solver for the whole run (freed at the end of main). */
static void *solver_buffer = NULL;
static sg_solver *solver = NULL;

/* Solves `st` with a small budget when the solver takes it, and checks the
 * answer's shape: the same refusal from sg_solve and sg_solve_moves as from
 * sg_solvable, values in range, a legal best move when known, the budget
 * kept.  Any state sg_state_check passes is safe to give it.  1 on failure. */
static int check_solve(const sg_state *st, const char *what)
{
    if (!solver) {
        const size_t size = sg_solver_size(256);
        solver_buffer = malloc(size);
        solver = solver_buffer ? sg_solver_init(solver_buffer, size) : NULL;
        if (!solver) {
            fprintf(stderr, "core_check: no solver\n");
            return 1;
        }
    }
    const uint64_t budget = 200;
    const int code = sg_solvable(st);
    sg_solve_result res;
    sg_move moves[SG_MAX_MOVES];
    int8_t values[SG_MAX_MOVES];
    uint32_t lengths[SG_MAX_MOVES];
    int n = -1;
    for (int per_move = 0; per_move < 2; per_move++) {
        const int got = per_move ? sg_solve_moves(solver, st, budget, &res, moves, values,
                                                  lengths, &n)
                                 : sg_solve(solver, st, budget, &res);
        if (got != code || (code != SG_ERROR_NONE && res.value != SG_SOLVE_VALUE_UNKNOWN)) {
            fprintf(stderr, "core_check: %s: the solver answers %d, sg_solvable %d\n", what, got,
                    code);
            return 1;
        }
        if (code != SG_ERROR_NONE)
            continue;
        if (res.value < SG_SOLVE_VALUE_LOSS || res.value > SG_SOLVE_VALUE_UNKNOWN ||
            res.nodes > budget) {
            fprintf(stderr, "core_check: %s: solver value %d after %" PRIu64 " nodes\n", what,
                    res.value, res.nodes);
            return 1;
        }
        if (res.value != SG_SOLVE_VALUE_UNKNOWN) {
            sg_state after = *st;
            if (sg_apply(&after, res.best, NULL) != SG_ERROR_NONE ||
                (res.value != SG_SOLVE_VALUE_DRAW) != (res.loser != SG_NO_SEAT)) {
                fprintf(stderr, "core_check: %s: the solver's best move or loser\n", what);
                return 1;
            }
        }
        if (per_move) {
            sg_move legal[SG_MAX_MOVES];
            if (n != sg_legal_moves(st, legal)) {
                fprintf(stderr, "core_check: %s: the solver's moves\n", what);
                return 1;
            }
            for (int i = 0; i < n; i++)
                if (moves[i] != legal[i] || values[i] < SG_SOLVE_VALUE_LOSS ||
                    values[i] > SG_SOLVE_VALUE_UNKNOWN) {
                    fprintf(stderr, "core_check: %s: the solver's move %d\n", what, i);
                    return 1;
                }
        }
    }
    return 0;
}

static void play_one(const sg_rules *rules, uint64_t seed, uint64_t game, int check_moves)
{
    sg_rng rng;
    uint8_t deck[SG_NCARDS];
    sg_state st, before;
    sg_move moves[SG_MAX_MOVES];
    sg_event buf[SG_MAX_EVENTS];
    sg_events ev = {buf, SG_MAX_EVENTS, 0};

    sg_rng_seed(&rng, seed);
    sg_shuffle(&rng, deck);
    const uint8_t dealer = (uint8_t)sg_rng_below(&rng, rules->players);
    EXPECT(sg_new(&st, rules, deck, dealer, &ev) == SG_ERROR_NONE, "sg_new failed");
    EXPECT(ev.len <= ev.cap, "deal events overflow");
    while (st.phase != SG_PHASE_OVER) {
        check_cards(&st, game);
        check_knowledge(&st, game);
        check_observation(&st, (uint8_t)(st.moves % rules->players), game);
        sg_observation obs;
        sg_result result;
        EXPECT(sg_observe(&st, rules->players, &obs) == SG_ERROR_SEAT &&
                   sg_observe(&st, SG_NO_SEAT, &obs) == SG_ERROR_SEAT,
               "sg_observe accepted a seat out of range");
        EXPECT(sg_game_result(&st, &result) == SG_ERROR_NOT_OVER, "a result before the end");
        if (check_moves) {
            check_legality(&st, game);
            check_actions(&st, &rng, game);
            for (uint8_t seat = 0; seat < rules->players; seat++)
                check_view_tensor(&st, seat, game);
        }
        const int n = sg_legal_moves(&st, moves);
        EXPECT(n > 0 && n <= SG_MAX_MOVES, "game %" PRIu64 ": %d legal moves", game, n);
        if (check_moves && st.phase == SG_PHASE_SHEDDING)
            EXPECT(!check_solve(&st, "a game"), "game %" PRIu64 ": the solver", game);
        check_sampling(&st, st.to_move, &rng, game);
        check_sampling(&st, (uint8_t)((st.to_move + 1) % rules->players), &rng, game);
        EXPECT(st.to_move < rules->players, "game %" PRIu64 ": bad seat to move", game);
        /* An illegal move changes nothing. */
        before = st;
        const sg_move bogus = SG_MAKE_MOVE(SG_MOVE_KIND_PLAY, SG_ALL_CARDS & ~st.hand[st.to_move]);
        EXPECT(sg_apply(&st, bogus, NULL) == SG_ERROR_ILLEGAL, "bogus move accepted");
        EXPECT(memcmp(&st, &before, sizeof st) == 0, "illegal move changed the state");
        ev.len = 0;
        const sg_move chosen = moves[sg_rng_below(&rng, (uint32_t)n)];
        const uint8_t mover = st.to_move;
        EXPECT(sg_apply(&st, chosen, &ev) == SG_ERROR_NONE, "legal move refused");
        /* The move as everybody saw it: its first event. */
        sg_public_move seen;
        EXPECT(sg_public_move_of(buf, ev.len, &seen) == 1 && seen.seat == mover &&
                   seen.kind == SG_MOVE_KIND_OF(chosen) &&
                   (seen.kind == SG_MOVE_KIND_PICK_UP || seen.kind == SG_MOVE_KIND_FLIP ||
                    seen.cards == SG_MOVE_CARDS(chosen)),
               "game %" PRIu64 ": the public move of a move", game);
        EXPECT(ev.len <= ev.cap, "event overflow: %d", ev.len);
        EXPECT(st.moves <= rules->max_moves, "cap exceeded");
    }
    check_cards(&st, game);
    for (uint8_t seat = 0; seat < rules->players; seat++)
        check_observation(&st, seat, game);
    if (check_moves)
        check_legality(&st, game);
    sg_result result;
    memset(&result, 0xAB, sizeof result);
    EXPECT(sg_game_result(&st, &result) == SG_ERROR_NONE, "no result at the end");
    EXPECT(result.moves == st.moves && result.loser == st.loser &&
               result.truncated == st.truncated,
           "game %" PRIu64 ": result", game);
    EXPECT(result.n_finish == st.n_finished + (st.loser != SG_NO_SEAT) &&
               memcmp(result.finish_order, st.finished, st.n_finished) == 0 &&
               (st.loser == SG_NO_SEAT || result.finish_order[st.n_finished] == st.loser),
           "game %" PRIu64 ": finish order", game);
    for (int i = result.n_finish; i < SG_MAX_PLAYERS; i++)
        EXPECT(result.finish_order[i] == 0, "unused finish order entry");
    EXPECT(result.reserved[0] == 0, "result reserved byte");
    int holding = 0;
    for (int p = 0; p < rules->players; p++)
        holding += (st.hand[p] | st.coll[p]) != 0;
    if (st.truncated)
        EXPECT(st.loser == SG_NO_SEAT, "truncated game with a loser");
    else
        EXPECT(holding <= 1 && (holding == 1) == (st.loser != SG_NO_SEAT),
               "game %" PRIu64 ": over with %d holders", game, holding);
}

/* Rules with every field of the table drawn at random among its allowed
 * values (the one refused combination excepted), and a short move cap. */
/* ---- policies of the caller's own (skitgubbe_policy.h) ---------------------- */

/* Reads every accessor (out-of-range arguments too), checks what it reads, then
 * answers the greedy move; *ctx counts the calls. */
static int32_t reading_policy(const sg_position *pos, void *ctx)
{
    int *calls = (int *)ctx;
    ++*calls;
    const int32_t players = sg_players(pos), n = sg_n_moves(pos);
    uint64_t seen = sg_table(pos) | sg_out_of_play(pos);
    for (int32_t seat = -1; seat <= players; seat++) {
        const int inside = seat >= 0 && seat < players;
        const uint64_t hand = sg_hand(pos, seat), coll = sg_collection(pos, seat);
        if (!inside && (hand || coll))
            return -100; /* a seat out of range must read as no cards */
        if ((hand & seen) || (coll & seen) || (hand & coll))
            return -101; /* a card in two places */
        seen |= hand | coll;
        (void)sg_is_out(pos, seat);
    }
    if ((sg_top_play(pos) & ~sg_table(pos)) || n < 1 || sg_to_move(pos) < 0)
        return -102;
    for (int32_t i = -1; i <= n; i++) {
        const int32_t kind = sg_move_kind(pos, i);
        if ((i < 0 || i >= n) != (kind == -1) || ((i < 0 || i >= n) && sg_move_cards(pos, i)))
            return -103;
    }
    (void)sg_trump(pos);
    (void)sg_phase(pos);
    (void)sg_stock_size(pos);
    (void)sg_top_seat(pos);
    return sg_greedy(pos);
}

static int32_t past_the_end(const sg_position *pos, void *ctx)
{
    (void)ctx;
    return sg_n_moves(pos);
}

static int32_t halves(const sg_position *pos, void *ctx, double value[4])
{
    int *calls = (int *)ctx;
    if (++*calls % 3)
        return 0;
    for (int32_t seat = 0; seat < sg_players(pos); seat++)
        value[seat] = 0.5;
    return 1;
}

/* Fails its third call, then plays greedy. */
static int32_t third_fails(const sg_position *pos, void *ctx)
{
    int *calls = (int *)ctx;
    return ++*calls == 3 ? -1 : sg_greedy(pos);
}

/* A vector environment whose opponents play policies of the caller's own: they read
 * sampled worlds, and a failing one leaves every game as it was. */
static int check_vec_policies(void)
{
    enum { GAMES = 4 };
    sg_rules rules;
    sg_rules_classic(&rules, 3);
    const int32_t policies[SG_MAX_PLAYERS] = {SG_VEC_LEARNER, SG_POLICY_GREEDY,
                                              SG_POLICY_GREEDY, SG_VEC_LEARNER};
    sg_vec *env = sg_vec_new(&rules, GAMES, 77, policies);
    int calls = 0, fails = 0;
    sg_search_policy reading = {SG_POLICY_GREEDY, 0, reading_policy, &calls, NULL, NULL, 0, NULL, 0, 0};
    sg_search_policy failing = {SG_POLICY_GREEDY, 0, third_fails, &fails, NULL, NULL, 0, NULL, 0, 0};
    if (!env || sg_vec_set_policy(env, 0, &reading) != SG_ERROR_SEAT ||
        sg_vec_set_policy(env, 1, &reading) != SG_ERROR_NONE ||
        sg_vec_set_policy(env, 2, &failing) != SG_ERROR_NONE) {
        fprintf(stderr, "core_check: sg_vec_set_policy answered badly\n");
        return 1;
    }
    uint8_t masks[GAMES * SG_NUM_ACTIONS];
    int32_t actions[GAMES], bad = -1;
    sg_vec_out out = {NULL, masks, NULL, NULL, NULL, NULL, NULL, NULL};
    int result = sg_vec_reset(env, &out), refused = 0;
    for (int step = 0; step < 200 && result == SG_ERROR_NONE; step++) {
        for (int i = 0; i < GAMES; i++) {
            int a = 0;
            while (!masks[i * SG_NUM_ACTIONS + a])
                a++;
            actions[i] = a;
        }
        sg_state before[GAMES];
        for (int i = 0; i < GAMES; i++)
            before[i] = *sg_vec_state(env, i, NULL);
        result = sg_vec_step(env, actions, &out, &bad);
        if (result == SG_ERROR_POLICY) {
            refused = 1;
            for (int i = 0; i < GAMES; i++)
                if (memcmp(&before[i], sg_vec_state(env, i, NULL), sizeof before[i]) != 0) {
                    fprintf(stderr, "core_check: a failed policy changed game %d\n", i);
                    return 1;
                }
            if (failing.error != SG_POLICY_ERROR_FAILED || reading.error) {
                fprintf(stderr, "core_check: the failing policy was not named\n");
                return 1;
            }
            failing.error = 0;
            result = sg_vec_step(env, actions, &out, &bad); /* its later calls play */
        }
    }
    sg_vec_free(env);
    if (result != SG_ERROR_NONE || !refused || calls == 0) {
        fprintf(stderr, "core_check: vector policies: %d, refused %d, calls %d\n", result,
                refused, calls);
        return 1;
    }
    return 0;
}

static int check_policies(void)
{
    sg_rules rules;
    sg_rules_classic(&rules, 3);
    for (uint64_t g = 0; g < 20; g++) {
        sg_state st, view;
        uint8_t deck[SG_NCARDS];
        sg_rng rng;
        sg_rng_seed(&rng, g + 500);
        sg_shuffle(&rng, deck);
        sg_new(&st, &rules, deck, 0, NULL);
        for (uint64_t k = 0; k < g * 5 && st.phase != SG_PHASE_OVER; k++)
            sg_apply_unchecked(&st, sg_greedy_move(&st), NULL);
        if (st.phase == SG_PHASE_OVER)
            continue;
        sg_view(&st, st.to_move, &view);
        int calls = 0, evals = 0;
        sg_search_policy mine = {SG_POLICY_GREEDY, 0, reading_policy, &calls, NULL, NULL, 0, NULL, 0, 0};
        sg_search_policy builtin = {SG_POLICY_GREEDY, 0, NULL, NULL, NULL, NULL, 0, NULL, 0, 0};
        sg_move a[SG_MAX_MOVES], b[SG_MAX_MOVES];
        double sa[SG_MAX_MOVES], sb[SG_MAX_MOVES];
        const int na = sg_pimc_with(&view, 3, 2, &mine, 300, g, a, sa);
        const int nb = sg_pimc_with(&view, 3, 2, &builtin, 300, g, b, sb);
        if (mine.error || na != nb || memcmp(sa, sb, sizeof(double) * (size_t)na) != 0) {
            fprintf(stderr, "core_check: a policy answering greedy scored otherwise (%d, %lld)\n",
                    mine.error, (long long)mine.detail);
            return 1;
        }
        if (na > 1 && calls == 0) {
            fprintf(stderr, "core_check: the policy was never called\n");
            return 1;
        }
        sg_search_policy bad = {SG_POLICY_GREEDY, 0, past_the_end, NULL, NULL, NULL, 0, NULL, 0, 0};
        sg_ismcts_params params;
        memset(&params, 0, sizeof params);
        params.iterations = 50;
        params.exploration = 0.7;
        params.rollout_cap = 200;
        params.seed = g;
        if (na > 1 && (sg_ismcts_with(&view, &params, &bad, NULL, NULL, NULL, NULL) != 0 ||
                       bad.error != SG_POLICY_ERROR_OUT_OF_RANGE)) {
            fprintf(stderr, "core_check: a policy past the end was not refused\n");
            return 1;
        }
        sg_search_policy cut = {SG_POLICY_GREEDY, 0, NULL, NULL, halves, &evals, 0, NULL, 0, 0};
        if (sg_pimc_with(&view, 2, 2, &cut, 300, g, a, sa) != na || cut.error) {
            fprintf(stderr, "core_check: an evaluation failed the search\n");
            return 1;
        }
    }
    return 0;
}

static void random_rules(sg_rng *rng, sg_rules *r)
{
    int count;
    const sg_rule_field *fields = sg_rule_fields(&count);
    sg_rules_classic(r, 3);
    for (int i = 0; i < count; i++) {
        const sg_rule_field *f = &fields[i];
        uint32_t value = f->min + f->step * sg_rng_below(rng, (f->max - f->min) / f->step + 1);
        if (f->kind == SG_RULE_KIND_OPTIONAL_INT && sg_rng_below(rng, 2))
            value = 0;
        if (sg_rules_set(r, i, value) != SG_RULES_ERROR_NONE)
            fprintf(stderr, "core_check: random value %u of %s refused\n", value, f->name);
    }
    if (r->trump == SG_TRUMP_RULE_UPCARD)
        r->multi_card_plays = 0;
    r->max_moves = 2000;
}


/* ---- exact worlds and equivalent moves ------------------------------------- */

/* Whether `cards` (a seat's unseen cards) can fill the case's slots: one card a
 * slot, none of a rank the slot is barred from, every need met. */
static int case_allows(const sg_belief_case *k, uint64_t cards)
{
    uint8_t c[SG_BELIEF_SLOTS];
    int n = 0;
    for (; cards && n < SG_BELIEF_SLOTS; cards &= cards - 1)
        c[n++] = lowest(cards);
    if (cards || n != k->n_slots)
        return 0;
    /* Every order of the cards over the slots (Heap's algorithm would do; n <= 5). */
    int perm[SG_BELIEF_SLOTS] = {0, 1, 2, 3, 4};
    for (;;) {
        int ok = 1;
        for (int j = 0; j < n && ok; j++)
            ok = !(k->forbid[j] >> (c[perm[j]] & 15) & 1);
        for (int i = 0; i < k->n_needs && ok; i++) {
            int met = 0;
            for (int j = 0; j < n; j++)
                met |= (k->need_slots[i] >> j & 1) && (k->need_ranks[i] >> (c[perm[j]] & 15) & 1);
            ok = met;
        }
        if (ok)
            return 1;
        /* The next permutation in lexicographic order. */
        int i = n - 2;
        while (i >= 0 && perm[i] > perm[i + 1])
            i--;
        if (i < 0)
            return 0;
        int j = n - 1;
        while (perm[j] < perm[i])
            j--;
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
        for (int a = i + 1, b = n - 1; a < b; a++, b--) {
            t = perm[a];
            perm[a] = perm[b];
            perm[b] = t;
        }
    }
}

/* A belief the real game satisfies: for each seat but `seat` with unseen cards in
 * its view, a few cases barring each slot from random ranks, the first case (and
 * only it) allowing the real cards; with `needs`, needs the real cards meet. */
static void true_belief(const sg_state *st, const sg_state *view, uint8_t seat, sg_rng *rng,
                        int needs, sg_belief *b)
{
    memset(b, 0, sizeof *b);
    for (int p = 0; p < st->rules.players; p++) {
        if (p == seat || !view->unseen[p])
            continue;
        const uint64_t hidden = st->hand[p] & ~view->hand[p];
        const int cases = 1 + (int)sg_rng_below(rng, 4);
        b->n_cases[p] = (uint16_t)cases;
        for (int c = 0; c < cases; c++) {
            sg_belief_case *k = &b->cases[p][c];
            k->weight = 0.25 + (double)sg_rng_below(rng, 100);
            k->n_slots = view->unseen[p];
            int j = 0;
            for (uint64_t h = hidden; h; h &= h - 1, j++) {
                const int rank = lowest(h) & 15;
                k->forbid[j] = (uint16_t)(sg_rng_next(rng) & sg_rng_next(rng) & 0x1FFF);
                if (c == 0)
                    k->forbid[j] &= (uint16_t) ~(1u << rank);
            }
            if (needs && c == 0) {
                k->n_needs = 1;
                k->need_ranks[0] = (uint16_t)(1u << (lowest(hidden) & 15));
                k->need_slots[0] = 1;
            }
        }
    }
}

static void check_worlds(uint64_t seed)
{
    sg_rng rng;
    sg_rng_seed(&rng, seed ^ UINT64_C(0x5EED));
    sg_belief *b = malloc(sizeof *b);
    EXPECT(b != NULL, "no memory for a belief");
    long exact = 0, others = 0;
    for (uint64_t game = 0; game < 60 && !failures; game++) {
        sg_rules rules;
        random_rules(&rng, &rules);
        rules.max_moves = 600;
        uint8_t deck[SG_NCARDS];
        sg_deck_from_seed(seed + game, deck);
        sg_state st;
        sg_new(&st, &rules, deck, (uint8_t)(game % rules.players), NULL);
        for (int step = 0; st.phase != SG_PHASE_OVER && !failures; step++) {
            const uint8_t seat = st.to_move;
            sg_state view, world;
            sg_view(&st, seat, &view);
            true_belief(&st, &view, seat, &rng, step % 2, b);
            if (step % 3 == 0) {
                EXPECT(sg_belief_check(&view, b) == 0, "game %" PRIu64 ": a true belief refused",
                       game);
                for (int k = 0; k < 4; k++) {
                    const int outcome = sg_sample_belief(&view, b, &rng, &world);
                    exact += outcome == SG_SAMPLE_EXACT;
                    others += outcome != SG_SAMPLE_EXACT;
                    EXPECT(outcome >= SG_SAMPLE_EXACT && outcome <= SG_SAMPLE_UNIFORM, "outcome");
                    const char *field = NULL;
                    EXPECT(sg_state_check(&world, &field) == 0, "game %" PRIu64 ": a world from a "
                           "belief fails sg_state_check (%s)", game, field ? field : "-");
                    sg_observation a, o;
                    sg_observe(&st, seat, &a);
                    sg_observe(&world, seat, &o);
                    EXPECT(memcmp(&a, &o, sizeof a) == 0, "game %" PRIu64 ": a world from a "
                           "belief looks different to its seat", game);
                    for (int p = 0; p < rules.players && outcome != SG_SAMPLE_UNIFORM; p++) {
                        if (!b->n_cases[p])
                            continue;
                        const uint64_t hidden = world.hand[p] & ~view.hand[p];
                        int allowed = 0;
                        for (int c = 0; c < b->n_cases[p] && !allowed; c++)
                            allowed = case_allows(&b->cases[p][c], hidden);
                        EXPECT(allowed, "game %" PRIu64 ": seat %d's cards in a world break "
                               "every case", game, p);
                    }
                }
                /* Merged moves: a subset of the legal moves, in order, the same in phase 1,
                 * and every move dropped stands behind a lower play of its suit. */
                sg_move legal[SG_MAX_MOVES], merged[SG_MAX_MOVES];
                const int n = sg_legal_moves(&st, legal);
                memcpy(merged, legal, (size_t)n * sizeof legal[0]);
                const int m = sg_merge_moves(&st, merged, n);
                EXPECT(m >= 1 && m <= n, "merge kept %d of %d moves", m, n);
                EXPECT(st.phase == SG_PHASE_SHEDDING || m == n, "merge in phase 1");
                for (int i = 0, j = 0; i < n; i++) {
                    if (j < m && merged[j] == legal[i]) {
                        j++;
                        continue;
                    }
                    const uint64_t cards = SG_MOVE_CARDS(legal[i]);
                    EXPECT(SG_MOVE_KIND_OF(legal[i]) == SG_MOVE_KIND_PLAY, "merge dropped a %u",
                           SG_MOVE_KIND_OF(legal[i]));
                    int behind = 0;
                    for (int k = 0; k < m; k++)
                        behind |= SG_MOVE_KIND_OF(merged[k]) == SG_MOVE_KIND_PLAY &&
                                  SG_SUIT_OF(lowest(SG_MOVE_CARDS(merged[k]))) ==
                                      SG_SUIT_OF(lowest(cards)) &&
                                  lowest(SG_MOVE_CARDS(merged[k])) < lowest(cards) &&
                                  popcount(SG_MOVE_CARDS(merged[k])) == popcount(cards);
                    EXPECT(behind, "game %" PRIu64 ": a merged move has no lower play left",
                           game);
                }
                EXPECT(sg_merge_moves(&st, merged, 0) == 0 && sg_merge_moves(&st, merged, 1) == 1,
                       "merge of no move or one");
                /* The rollouts' rejection draw: always a kept move, and every kept one
                 * comes up (24 draws a kept move, enough for up to a few kept). */
                if (n > 0) {
                    memcpy(merged, legal, (size_t)n * sizeof legal[0]);
                    const int kept = sg_merge_moves(&st, merged, n);
                    sg_rng draws;
                    sg_rng_seed(&draws, game * 131u + (uint64_t)step);
                    int hits[SG_MAX_MOVES] = {0};
                    for (int d = 0; d < 24 * kept; d++) {
                        sg_move list[SG_MAX_MOVES];
                        memcpy(list, legal, (size_t)n * sizeof legal[0]);
                        const sg_move drawn = sg_merge_draw(&st, list, n, &draws);
                        int at = -1;
                        for (int k = 0; k < kept; k++)
                            if (merged[k] == drawn)
                                at = k;
                        EXPECT(at >= 0, "game %" PRIu64 ": the merged draw gave a move merged away",
                               game);
                        if (at >= 0)
                            hits[at]++;
                    }
                    for (int k = 0; k < kept && kept <= 4; k++)
                        EXPECT(hits[k] > 0, "game %" PRIu64 ": the merged draw never gave kept "
                               "move %d of %d", game, k, kept);
                }
            }
            if (step % 11 == 5 && st.phase != SG_PHASE_OVER) {
                /* The searches with a belief, and merged moves, answer legal moves; a
                 * belief that does not fit is ignored. */
                sg_ismcts_params params;
                memset(&params, 0, sizeof params);
                params.iterations = 60;
                params.exploration = 0.7;
                params.policy = (int32_t)(step % 3);
                params.rollout_cap = 100;
                params.seed = game;
                params.flags = step % 2 ? SG_ISMCTS_MERGE : 0;
                if (step % 4 == 1)
                    b->cases[seat == 0 ? 1 : 0][0].weight = -1.0; /* a bad belief */
                sg_ismcts_stats stats;
                sg_move root[SG_MAX_MOVES];
                uint32_t visits[SG_MAX_MOVES];
                double rewards[SG_MAX_MOVES];
                int n_root = 0;
                const sg_move best = sg_ismcts_search(&view, b, &params, NULL, NULL, &stats, root,
                                                      visits, rewards, &n_root);
                uint32_t total = 0;
                for (int i = 0; i < n_root; i++)
                    total += visits[i];
                sg_state after = st;
                EXPECT(sg_apply(&after, best, NULL) == SG_ERROR_NONE &&
                           (n_root <= 1 || total == stats.iterations),
                       "game %" PRIu64 ": ismcts with a belief answered badly", game);
                double scores[SG_MAX_MOVES];
                sg_search_policy builtin = {SG_POLICY_GREEDY, 0, NULL, NULL, NULL, NULL, 0, NULL,
                                            0, 0};
                EXPECT(sg_pimc_search(&view, b, 2, 1, &builtin, 100, game, root, scores) ==
                           sg_legal_moves(&st, root),
                       "pimc with a belief");
            }
            sg_move moves[SG_MAX_MOVES];
            const int n = sg_legal_moves(&st, moves);
            sg_apply_unchecked(&st, moves[sg_rng_below(&rng, (uint32_t)n)], NULL);
        }
    }
    EXPECT(exact > 1000 && others * 100 < exact, "worlds: %ld exact, %ld fallbacks", exact,
           others);
    /* Beliefs that do not fit: refused by number, and sampled uniformly (in bounds). */
    {
        sg_rules rules;
        sg_rules_classic(&rules, 4);
        uint8_t deck[SG_NCARDS];
        sg_deck_from_seed(seed, deck);
        sg_state st, view, world;
        sg_new(&st, &rules, deck, 3, NULL);
        sg_view(&st, 0, &view);
        for (int k = 0; k < 400; k++) {
            uint8_t *bytes = (uint8_t *)b;
            for (size_t i = 0; i < sizeof *b; i++)
                bytes[i] = (uint8_t)sg_rng_next(&rng);
            if (k % 2)
                for (int p = 0; p < SG_MAX_PLAYERS; p++)
                    b->n_cases[p] = (uint16_t)(b->n_cases[p] % 3);
            const int failed = sg_belief_check(&view, b);
            EXPECT(failed >= 0 && failed <= 3, "belief check %d", failed);
            const int outcome = sg_sample_belief(&view, b, &rng, &world);
            EXPECT(failed == 0 || outcome == SG_SAMPLE_UNIFORM, "a bad belief sampled");
            const char *field = NULL;
            EXPECT(sg_state_check(&world, &field) == 0, "a world from a bad belief (%s)",
                   field ? field : "-");
        }
    }
    free(b);
}

/* ---- states from outside: sg_state_check ------------------------------------ */

/* Everything a binding does with a position, on a state that passed
 * sg_state_check: it must keep passing as it is played on (for at most
 * `steps` moves), and nothing may read or write out of bounds (the
 * sanitizers watch).  Returns 0, or 1 after printing what went wrong. */
static int play_checked(const sg_state *start, sg_rng *rng, int steps, const char *what)
{
    sg_state st = *start;
    const int size = sg_state_tensor_size();
    float *tensor = malloc((size_t)size * sizeof *tensor);
    if (!tensor)
        return 1;
    int bad = 0;
    for (int step = 0; !bad; step++) {
        const char *field = "unset";
        const int failed = sg_state_check(&st, &field);
        if (failed || field) {
            fprintf(stderr, "core_check: %s: after %d moves sg_state_check fails (%d, %s)\n",
                    what, step, failed, field ? field : "no field");
            bad = 1;
            break;
        }
        /* The solver takes any state that passes (a tampered one as it is). */
        if (step == 0 && check_solve(&st, what)) {
            bad = 1;
            break;
        }
        static const sg_public_move recent[1] = {{UINT64_C(1) << 5, SG_MOVE_KIND_PLAY, 0, {0}}};
        sg_state_tensor(&st, recent, 1, tensor);
        /* What each seat sees: at the start, after the first move, and at the end. */
        const int seats = step < 2 || step >= steps || st.phase == SG_PHASE_OVER;
        for (uint8_t seat = 0; seats && seat < st.rules.players; seat++) {
            sg_observation obs;
            sg_state view, world;
            sg_observe(&st, seat, &obs);
            sg_observation_tensor(&st, seat, 0, recent, 1, tensor);
            sg_view(&st, seat, &view);
            if (sg_view_check(&view) != 0) {
                fprintf(stderr, "core_check: %s: a view fails sg_view_check (%d)\n", what,
                        sg_view_check(&view));
                bad = 1;
                break;
            }
            sg_sample_world(&view, rng, &world);
            if (sg_state_check(&world, &field) != 0) {
                fprintf(stderr, "core_check: %s: a sampled world fails sg_state_check (%s)\n",
                        what, field);
                bad = 1;
                break;
            }
        }
        if (bad || st.phase == SG_PHASE_OVER) {
            sg_result result;
            if (!bad && sg_game_result(&st, &result) != SG_ERROR_NONE) {
                fprintf(stderr, "core_check: %s: a game over has no result\n", what);
                bad = 1;
            }
            break;
        }
        if (step >= steps)
            break;
        sg_move moves[SG_MAX_MOVES];
        const int n = sg_legal_moves(&st, moves);
        if (n <= 0) {
            fprintf(stderr, "core_check: %s: a game going on without a legal move\n", what);
            bad = 1;
            break;
        }
        uint16_t actions[SG_NUM_ACTIONS];
        sg_legal_actions(&st, 0, actions);
        (void)sg_greedy_move(&st);
        sg_event buf[SG_MAX_EVENTS];
        sg_events ev = {buf, SG_MAX_EVENTS, 0};
        if (sg_apply(&st, moves[sg_rng_below(rng, (uint32_t)n)], &ev) != SG_ERROR_NONE ||
            ev.len > SG_MAX_EVENTS) {
            fprintf(stderr, "core_check: %s: a legal move does not apply\n", what);
            bad = 1;
        }
    }
    free(tensor);
    return bad;
}

/* Tampering with states: every byte of real states (all phases, random
 * rules) set to boundary and random values, and a few bytes at once.
 * sg_state_check either refuses the state, naming a field, or the state is
 * one the whole API handles (play_checked).  Returns the number of failures. */
static int check_tampering(uint64_t seed, int positions, long *refused, long *passed)
{
    static const uint8_t values[] = {0,    1,    2,    3,    4,    5,    12,   13,  15,
                                     16,   17,   51,   52,   53,   0x3F, 0x40, 0x7F, 0x80,
                                     0xFD, 0xFE, 0xFF};
    sg_rng rng;
    sg_rng_seed(&rng, seed);
    int bad = 0;
    for (int k = 0; k < positions && !bad; k++) {
        sg_rules rules;
        random_rules(&rng, &rules);
        rules.max_moves = k % 5 == 4 ? 30 : 2000; /* truncated games too */
        uint8_t deck[SG_NCARDS];
        sg_deck_from_seed(seed + (uint64_t)k, deck);
        sg_state st;
        sg_new(&st, &rules, deck, (uint8_t)(k % rules.players), NULL);
        /* A position at a random point of the game (the end included). */
        const uint32_t stop = sg_rng_below(&rng, 120);
        for (uint32_t i = 0; i < stop && st.phase != SG_PHASE_OVER; i++) {
            sg_move moves[SG_MAX_MOVES];
            const int n = sg_legal_moves(&st, moves);
            sg_apply_unchecked(&st, moves[sg_rng_below(&rng, (uint32_t)n)], NULL);
        }
        if (k % 7 == 6)
            while (st.phase != SG_PHASE_OVER) {
                sg_move moves[SG_MAX_MOVES];
                const int n = sg_legal_moves(&st, moves);
                sg_apply_unchecked(&st, moves[sg_rng_below(&rng, (uint32_t)n)], NULL);
            }
        char what[96];
        snprintf(what, sizeof what, "position %d", k);
        if (play_checked(&st, &rng, 0, what))
            return 1;
        for (size_t byte = 0; byte < sizeof st && !bad; byte++) {
            const uint8_t original = ((const uint8_t *)&st)[byte];
            for (size_t v = 0; v < sizeof values + 3 && !bad; v++) {
                const uint8_t value = v < sizeof values ? values[v]
                                      : v == sizeof values ? (uint8_t)(original + 1)
                                      : v == sizeof values + 1 ? (uint8_t)(original - 1)
                                                               : (uint8_t)sg_rng_below(&rng, 256);
                if (value == original)
                    continue;
                sg_state tampered = st;
                ((uint8_t *)&tampered)[byte] = value;
                /* Now and then, a second byte too: relations between fields. */
                if (v == sizeof values + 2)
                    ((uint8_t *)&tampered)[sg_rng_below(&rng, sizeof st)] =
                        (uint8_t)sg_rng_below(&rng, 256);
                const char *field = NULL;
                if (sg_state_check(&tampered, &field) != 0) {
                    if (!field) {
                        fprintf(stderr, "core_check: a refused state names no field\n");
                        bad = 1;
                    }
                    (*refused)++;
                    continue;
                }
                (*passed)++;
                snprintf(what, sizeof what, "position %d, byte %zu = %u", k, byte, value);
                bad = play_checked(&tampered, &rng, 12, what);
            }
        }
    }
    return bad;
}

/* ---- the table of rule fields ----------------------------------------------- */

/* What the table must say, written out independently: each field's name, kind,
 * classic default and, for enums, the value names (those of Python's Rules). */
static const struct {
    const char *name;
    uint32_t kind;
    uint32_t classic;
    const char *values[4];
} expected_fields[] = {
    {"players", SG_RULE_KIND_INT, 3, {NULL}},
    {"hand_size", SG_RULE_KIND_INT, 3, {NULL}},
    {"trick_mode", SG_RULE_KIND_ENUM, 0, {"duel", "all", NULL}},
    {"duel_tie", SG_RULE_KIND_ENUM, 0, {"replay", "bounce", NULL}},
    {"all_tie", SG_RULE_KIND_ENUM, 0, {"pot", "lower_out", NULL}},
    {"multi_card_plays", SG_RULE_KIND_BOOL, 0, {NULL}},
    {"slough", SG_RULE_KIND_BOOL, 1, {NULL}},
    {"try_your_luck", SG_RULE_KIND_BOOL, 1, {NULL}},
    {"draw", SG_RULE_KIND_ENUM, 0, {"after_play", "after_trick", NULL}},
    {"last_card", SG_RULE_KIND_ENUM, 0, {"hidden", "reveal", NULL}},
    {"trump", SG_RULE_KIND_ENUM, 0, {"last_card", "none", "upcard", NULL}},
    {"low_card_threshold", SG_RULE_KIND_OPTIONAL_INT, 0, {NULL}},
    {"runs", SG_RULE_KIND_BOOL, 0, {NULL}},
    {"pickup", SG_RULE_KIND_ENUM, 0, {"top", "top_run", "pile", NULL}},
    {"trick_end", SG_RULE_KIND_ENUM, 0, {"count", "rotation", NULL}},
    {"max_moves", SG_RULE_KIND_INT, 10000, {NULL}},
};

/* Whether field f allows `value`, by the definition of its kind. */
static int field_allows(const sg_rule_field *f, uint32_t value)
{
    switch (f->kind) {
    case SG_RULE_KIND_BOOL:
        return value <= 1;
    case SG_RULE_KIND_ENUM:
        return value < f->n_values;
    case SG_RULE_KIND_OPTIONAL_INT:
        if (value == 0)
            return 1;
        /* fall through */
    default:
        return value >= f->min && value <= f->max && (value - f->min) % f->step == 0;
    }
}

static uint32_t get_by_name(const sg_rules *r, const char *name)
{
    return sg_rules_get(r, sg_rule_index(name));
}

/* Writes `value` into field `index` directly, bypassing sg_rules_set's checks
 * (with the table itself, so that every field is covered). */
static void poke(sg_rules *r, int index, uint32_t value)
{
    int i = 0;
#define POKE(name, storage, kind, lo, hi, step, classic, values, doc)                        \
    if (i++ == index)                                                                        \
        r->name = (SG_RULE_TYPE_##storage)value;
    SG_RULE_FIELDS(POKE)
#undef POKE
}

static void check_rule_table(void)
{
    int count = -1;
    const sg_rule_field *fields = sg_rule_fields(&count);
    const int n_expected = (int)(sizeof expected_fields / sizeof expected_fields[0]);
    EXPECT(count == SG_RULE_COUNT && count == n_expected, "%d rule fields", count);
    EXPECT(sg_rule_fields(NULL) == fields, "one table");
    EXPECT(sg_rule_index("colour") == -1 && sg_rule_index(NULL) == -1, "unknown field found");
    EXPECT(sg_rules_get(&(sg_rules){0}, -1) == 0 && sg_rules_get(&(sg_rules){0}, count) == 0,
           "get out of range");

    for (int i = 0; i < count; i++) {
        const sg_rule_field *f = &fields[i];
        EXPECT(f->name && strcmp(f->name, expected_fields[i].name) == 0, "field %d: %s", i,
               f->name);
        EXPECT(sg_rule_index(f->name) == i, "index of %s", f->name);
        EXPECT(f->doc && strlen(f->doc) > 10 && !strchr(f->doc, '\n'), "doc of %s", f->name);
        EXPECT(f->kind == expected_fields[i].kind, "kind of %s", f->name);
        EXPECT(f->classic == expected_fields[i].classic, "classic %s", f->name);
        EXPECT(f->min <= f->max && f->step >= 1 && field_allows(f, f->classic), "range of %s",
               f->name);
        EXPECT(f->values != NULL, "values of %s", f->name);
        uint32_t n = 0;
        while (f->values[n]) {
            EXPECT(expected_fields[i].values[n] &&
                       strcmp(f->values[n], expected_fields[i].values[n]) == 0,
                   "value %u of %s: %s", n, f->name, f->values[n]);
            n++;
        }
        EXPECT(expected_fields[i].values[n] == NULL && n == f->n_values, "values of %s",
               f->name);
        if (f->kind == SG_RULE_KIND_ENUM)
            EXPECT(f->min == 0 && f->max + 1 == n && f->step == 1, "enum range of %s", f->name);
        else
            EXPECT(n == 0, "%s names values", f->name);
        if (f->kind == SG_RULE_KIND_BOOL)
            EXPECT(f->min == 0 && f->max == 1 && f->step == 1, "bool range of %s", f->name);

        /* Every value around the range, and the extremes of wide ranges. */
        uint32_t candidates[80];
        int nc = 0;
        for (uint32_t v = 0; v < 64 && v <= f->max + 2; v++)
            candidates[nc++] = v;
        const uint32_t wide[] = {f->min - 1, f->min, f->max - 1, f->max, f->max + 1,
                                 UINT32_MAX, UINT32_MAX - 1, 255, 256, 10000};
        for (size_t k = 0; k < sizeof wide / sizeof wide[0]; k++)
            candidates[nc++] = wide[k];
        for (int k = 0; k < nc; k++) {
            const uint32_t v = candidates[k];
            sg_rules r, before;
            sg_rules_classic(&r, 3);
            before = r;
            const int code = sg_rules_set(&r, i, v);
            if (!field_allows(f, v)) {
                EXPECT(code == SG_RULES_ERROR_BAD_VALUE, "%s=%u accepted", f->name, v);
                EXPECT(memcmp(&r, &before, sizeof r) == 0, "refused %s=%u changed r", f->name, v);
                continue;
            }
            EXPECT(code == SG_RULES_ERROR_NONE, "%s=%u refused", f->name, v);
            EXPECT(sg_rules_get(&r, i) == v, "%s=%u reads back %u", f->name, v,
                   sg_rules_get(&r, i));
            for (int j = 0; j < count; j++)
                if (j != i)
                    EXPECT(sg_rules_get(&r, j) == sg_rules_get(&before, j),
                           "setting %s changed %s", f->name, fields[j].name);
            for (size_t b = 0; b < sizeof r.reserved; b++)
                EXPECT(r.reserved[b] == 0, "setting %s wrote a reserved byte", f->name);
            EXPECT(sg_rules_check(&r, NULL) == SG_RULES_ERROR_NONE, "%s=%u fails the check",
                   f->name, v);
        }
        EXPECT(sg_rules_set(&(sg_rules){0}, -1, 0) == SG_RULES_ERROR_NO_FIELD &&
                   sg_rules_set(&(sg_rules){0}, count, 0) == SG_RULES_ERROR_NO_FIELD,
               "set out of range");

        /* sg_rules_check names a field holding a value out of its range. */
        const uint32_t bad =
            f->kind != SG_RULE_KIND_OPTIONAL_INT && f->min > 0 ? f->min - 1 : f->max + 1;
        sg_rules r;
        sg_rules_classic(&r, 3);
        poke(&r, i, bad);
        EXPECT(sg_rules_get(&r, i) == bad, "poke %s", f->name);
        const char *named = NULL;
        EXPECT(sg_rules_check(&r, &named) == SG_RULES_ERROR_BAD_VALUE && named &&
                   strcmp(named, f->name) == 0,
               "%s=%u passes the check (or another field is named)", f->name, bad);
    }

    /* Steps, the conflict, the presets. */
    sg_rules r;
    const char *named = NULL;
    sg_rules_classic(&r, 3);
    r.hand_size = 4;
    EXPECT(sg_rules_check(&r, &named) == SG_RULES_ERROR_BAD_VALUE &&
               strcmp(named, "hand_size") == 0,
           "hand_size=4 passes");
    sg_rules_classic(&r, 3);
    r.trump = SG_TRUMP_RULE_UPCARD;
    EXPECT(sg_rules_check(&r, NULL) == SG_RULES_ERROR_NONE, "upcard refused");
    r.multi_card_plays = 1;
    named = NULL;
    EXPECT(sg_rules_check(&r, &named) == SG_RULES_ERROR_CONFLICT && strcmp(named, "trump") == 0,
           "upcard with multi-card plays passes");
    for (uint8_t players = 2; players <= SG_MAX_PLAYERS; players++) {
        sg_rules_classic(&r, players);
        EXPECT(sg_rules_check(&r, NULL) == SG_RULES_ERROR_NONE, "classic refused");
        for (int i = 0; i < count; i++)
            EXPECT(sg_rules_get(&r, i) == (i == 0 ? players : fields[i].classic),
                   "classic %s", fields[i].name);
        sg_rules_modern(&r, players);
        EXPECT(sg_rules_check(&r, NULL) == SG_RULES_ERROR_NONE, "modern refused");
        /* Python's _modern_preset, field by field. */
        const int two = players == 2;
        const struct {
            const char *name;
            uint32_t value;
        } modern[] = {
            {"players", players},
            {"hand_size", 3},
            {"trick_mode", two ? SG_TRICK_MODE_DUEL : SG_TRICK_MODE_ALL},
            {"duel_tie", two ? SG_DUEL_TIE_BOUNCE : SG_DUEL_TIE_REPLAY},
            {"all_tie", SG_ALL_TIE_LOWER_OUT},
            {"multi_card_plays", 0},
            {"slough", 1},
            {"try_your_luck", 0},
            {"draw", SG_DRAW_AFTER_TRICK},
            {"last_card", SG_LAST_CARD_REVEAL},
            {"trump", SG_TRUMP_RULE_LAST_CARD},
            {"low_card_threshold", 0},
            {"runs", 1},
            {"pickup", SG_PICKUP_TOP_RUN},
            {"trick_end", SG_TRICK_END_ROTATION},
            {"max_moves", 10000},
        };
        EXPECT((int)(sizeof modern / sizeof modern[0]) == count, "modern lists every field");
        for (int k = 0; k < count; k++)
            EXPECT(get_by_name(&r, modern[k].name) == modern[k].value, "modern(%u) %s = %u",
                   players, modern[k].name, get_by_name(&r, modern[k].name));
        for (size_t b = 0; b < sizeof r.reserved; b++)
            EXPECT(r.reserved[b] == 0, "a preset wrote a reserved byte");
    }
}

/* The network (net.c) under the sanitizers: a weight file made here with small
 * random weights, every refusal of a bad one, the forward passes, ISMCTS guided
 * by it with every use, PIMC with the world value, and the value samples. */
static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void check_net(uint64_t seed)
{
    const uint32_t in = (uint32_t)sg_tensor_size(), h1 = 12, h2 = 8, a = 4, w1 = 10, w2 = 6;
    const uint32_t world_in = in + SG_NET_WORLD_PLANES * SG_NCARDS;
    const uint32_t count = in * h1 + h1 + h1 * h2 + h2 + h2 * 4 + 4 + h2 * a + a + 52 * a +
                           5 * a + a + a + world_in * w1 + w1 + w1 * w2 + w2 + w2 * 4 + 4;
    const size_t size = 48 + 4 * (size_t)count;
    uint8_t *blob = calloc(size, 1);
    EXPECT(blob != NULL, "no memory for a weight file");
    memcpy(blob, "SGNET\0\0", 7);
    blob[7] = SG_NET_FORMAT;
    put_u32(blob + 8, in);
    put_u32(blob + 12, h1);
    put_u32(blob + 16, h2);
    put_u32(blob + 20, a);
    put_u32(blob + 24, count);
    put_u32(blob + 32, w1);
    put_u32(blob + 36, w2);
    sg_rng rng;
    sg_rng_seed(&rng, seed);
    for (uint32_t i = 0; i < count; i++) {
        const float w = ((float)sg_rng_below(&rng, 2001) - 1000.0f) / 4000.0f;
        uint32_t bits;
        memcpy(&bits, &w, 4);
        put_u32(blob + 48 + 4 * (size_t)i, bits);
    }
    put_u32(blob + 28, sg_net_checksum(blob + 48, size - 48));
    sg_net *net = NULL;
    const int loaded = sg_net_load(blob, size, &net);
    /* Every way a file is refused, and nothing read out of bounds on the way. */
    uint8_t *bad = malloc(size);
    int refusals = 0;
    const int expected[] = {SG_NET_ERROR_SIZE,     SG_NET_ERROR_MAGIC,    SG_NET_ERROR_FORMAT,
                            SG_NET_ERROR_INPUTS,   SG_NET_ERROR_SHAPE,    SG_NET_ERROR_CHECKSUM,
                            SG_NET_ERROR_RESERVED, SG_NET_ERROR_RESERVED, SG_NET_ERROR_VALUE,
                            SG_NET_ERROR_RANGE,    SG_NET_ERROR_RANGE,    SG_NET_ERROR_RANGE};
    const int n_bad = (int)(sizeof expected / sizeof expected[0]);
    for (int k = 0; k < n_bad && bad; k++) {
        memcpy(bad, blob, size);
        size_t n = size;
        const uint32_t nan_bits = 0x7fc00000u, huge_bits = 0x7f7fffffu; /* NaN, FLT_MAX */
        if (k == 0) n = 47;
        if (k == 1) bad[0] = 'X';
        if (k == 2) bad[7] = 9;
        if (k == 3) put_u32(bad + 8, in + 1);
        if (k == 4) put_u32(bad + 12, 100000);
        if (k == 5) bad[size - 1] ^= 1;
        if (k == 6) bad[40] = 1; /* the reserved bytes */
        if (k == 7) bad[47] = 0x80;
        if (k == 8) put_u32(bad + 48 + 4 * (size_t)(in * h1 + 3), nan_bits); /* b1[3] */
        if (k == 9) /* every weight FLT_MAX: finite, but no evaluation would be */
            for (uint32_t i = 0; i < count; i++)
                put_u32(bad + 48 + 4 * (size_t)i, huge_bits);
        if (k == 10) /* one bias of the world value's first layer, huge */
            put_u32(bad + size - 4 * (size_t)(4 + w2 * 4 + w2 + w1 * w2 + w1), huge_bits);
        if (k == 11) /* the logits' weights vp at FLT_MAX / 8: each unit finite, the logit not */
            for (uint32_t j = 0; j < a; j++) {
                const float w = 3.4028234663852886e38f / 8.0f;
                uint32_t bits;
                memcpy(&bits, &w, 4);
                put_u32(bad + 48 + 4 * (size_t)(count - (world_in * w1 + w1 + w1 * w2 + w2 +
                                                         w2 * 4 + 4) - a + j),
                        bits);
            }
        if (k >= 8)
            put_u32(bad + 28, sg_net_checksum(bad + 48, size - 48));
        sg_net *other = NULL;
        const int got = sg_net_load(bad, n, &other);
        refusals += got == expected[k] && other == NULL;
        if (got == SG_NET_ERROR_NONE)
            sg_net_free(other);
    }
    free(bad);
    free(blob);
    EXPECT(loaded == SG_NET_ERROR_NONE && net != NULL, "a good weight file was refused");
    EXPECT(refusals == n_bad, "a bad weight file was loaded, or refused for another reason");
    const uint64_t widest = SG_NET_MAX_WIDTH, widest_in = in + SG_NET_WORLD_PLANES * SG_NCARDS;
    EXPECT(sg_net_max_size() ==
               48 + 4 * (in * widest + widest + widest * widest + widest + widest * 4 + 4 +
                         widest * widest + widest + 52 * widest + 5 * widest + widest + widest +
                         widest_in * widest + widest + widest * widest + widest + widest * 4 + 4),
           "sg_net_max_size is not the size of the widest network");
    EXPECT(SG_NET_MAX_BOUND * 2.0 <= 3.4028234663852886e38, "SG_NET_MAX_BOUND above FLT_MAX / 2");

    sg_rules rules;
    sg_rules_classic(&rules, 3);
    for (uint64_t g = 0; g < 12 && !failures; g++) {
        sg_state st;
        uint8_t deck[SG_NCARDS];
        sg_deck_from_seed(sg_game_seed(seed, g), deck);
        rules.players = (uint8_t)(2 + g % 3);
        sg_new(&st, &rules, deck, 0, NULL);
        for (uint64_t k = 0; k < g * 9 && st.phase != SG_PHASE_OVER; k++)
            sg_apply_unchecked(&st, sg_greedy_move(&st), NULL);
        if (st.phase == SG_PHASE_OVER)
            continue;
        sg_move moves[SG_MAX_MOVES];
        float logits[SG_MAX_MOVES];
        double value[SG_MAX_PLAYERS], world[SG_MAX_PLAYERS];
        const int n = sg_legal_moves(&st, moves);
        EXPECT(sg_net_run(net, &st, moves, n, logits, value) == SG_ERROR_NONE &&
                   sg_net_world_value(net, &st, world) == SG_ERROR_NONE,
               "the network did not run");
        for (int p = 0; p < SG_MAX_PLAYERS; p++)
            EXPECT(value[p] >= 0 && value[p] <= 1 && world[p] >= 0 && world[p] <= 1,
                   "a value out of [0, 1]");
        sg_state view;
        sg_view(&st, st.to_move, &view);
        for (int32_t use = 0; use < 6; use++) {
            sg_search_policy policy;
            memset(&policy, 0, sizeof policy);
            policy.builtin = SG_POLICY_MIXED;
            policy.net = use & 1 ? net : NULL;
            policy.net_leaf = use & 1 ? ((use >> 1) & 1) || use == 5 : 0;
            if (use == 2) {
                policy.evaluate = sg_net_evaluate;
                policy.evaluate_ctx = net;
            }
            /* 4, 5: MAST rollouts; 5 blends them with the network's leaf values. */
            sg_playout playout;
            sg_playout_defaults(&playout);
            if (use >= 4) {
                playout.kind = SG_PLAYOUT_KIND_MAST;
                playout.blend = use == 5 ? 0.5 : 1.0;
            }
            sg_ismcts_params params;
            memset(&params, 0, sizeof params);
            params.iterations = 120;
            params.exploration = 1.5;
            params.policy = SG_POLICY_MIXED;
            params.rollout_cap = 200;
            params.seed = g;
            sg_move root[SG_MAX_MOVES];
            uint32_t visits[SG_MAX_MOVES];
            int n_root = 0;
            const sg_move best = sg_ismcts_search(&view, NULL, &params, &policy, &playout, NULL, root,
                                                   visits, NULL, &n_root);
            EXPECT(policy.error == SG_POLICY_ERROR_NONE && n_root == n, "a net search failed");
            int legal = 0;
            for (int i = 0; i < n; i++)
                legal |= moves[i] == best;
            EXPECT(legal, "a net search answered an illegal move");
        }
        sg_search_policy leaf;
        memset(&leaf, 0, sizeof leaf);
        leaf.builtin = SG_POLICY_GREEDY;
        leaf.evaluate = sg_net_evaluate;
        leaf.evaluate_ctx = net;
        leaf.choose = sg_net_choose;
        leaf.choose_ctx = net;
        double scores[SG_MAX_MOVES];
        EXPECT(sg_pimc_with(&view, 3, 1, &leaf, 300, g, moves, scores) == n,
               "PIMC with the world value failed");
    }
    const int32_t rows = 6 * 3;
    float *features = malloc((size_t)rows * world_in * sizeof(float));
    float values[6 * 3 * 4], masks[6 * 3 * 4];
    if (features) {
        for (int32_t rollouts = 0; rollouts < 3; rollouts += 2) {
            const int32_t got = sg_outcome_samples(&rules, seed, 0, 6, 3, SG_POLICY_MIXED,
                                                   rollouts, features, values, masks);
            EXPECT(got > 0 && got <= rows, "no value samples");
        }
        EXPECT(sg_outcome_samples(&rules, seed, 0, 6, 0, SG_POLICY_MIXED, 0, features, values,
                                  masks) == -1,
               "value samples with no position per game");
    }
    free(features);
    sg_net_free(net);
}

/* ---- playouts: the mixed fraction, MAST and NAST ---------------------------- */

/* The search's playouts: plain ones at the default fraction play sg_rollout's
 * moves exactly; every setting, odd values too, answers a legal move with every
 * iteration counted, and the same seed gives the same search. */
static int check_playouts(uint64_t seed)
{
    const double nan = strtod("nan", NULL), inf = strtod("inf", NULL);
    const double fractions[] = {0.25, 0.0, 1.0, 0.1, -1.0, nan, 2.0, 0.5};
    const double temperatures[] = {SG_PLAYOUT_TEMPERATURE, 0.0, -1.0, nan, inf, 1e-300, 5.0};
    const double blends[] = {1.0, 0.5, 0.0, nan, -1.0, 2.0};
    const int32_t kinds[] = {SG_PLAYOUT_KIND_PLAIN, SG_PLAYOUT_KIND_MAST, SG_PLAYOUT_KIND_NAST, 7, -1};
    const int32_t policies[] = {SG_POLICY_MIXED, SG_POLICY_RANDOM, SG_POLICY_GREEDY, 9};
    sg_rng pick;
    sg_rng_seed(&pick, seed ^ UINT64_C(0x5EED));
    for (uint64_t g = 0; g < 60; g++) {
        sg_rules rules;
        random_rules(&pick, &rules);
        sg_state st;
        uint8_t deck[SG_NCARDS];
        sg_deck_from_seed(sg_game_seed(seed, g), deck);
        sg_new(&st, &rules, deck, 0, NULL);
        const uint32_t plies = sg_rng_below(&pick, 80);
        for (uint32_t k = 0; k < plies && st.phase != SG_PHASE_OVER; k++)
            sg_apply_unchecked(&st, sg_greedy_move(&st), NULL);
        if (st.phase == SG_PHASE_OVER)
            continue;
        sg_state view;
        sg_view(&st, st.to_move, &view);

        /* The default playout is sg_rollout, move for move and draw for draw. */
        sg_playout_run run;
        sg_playout_start(&run, NULL, SG_POLICY_MIXED, rules.players);
        for (uint64_t r = 0; r < 4; r++) {
            sg_rng one, two;
            sg_rng_seed(&one, g * 4 + r);
            sg_rng_seed(&two, g * 4 + r);
            sg_state a, b;
            sg_sample_world(&view, &one, &a);
            sg_sample_world(&view, &two, &b);
            double ra[SG_MAX_PLAYERS], rb[SG_MAX_PLAYERS];
            const uint32_t cap = r == 3 ? 0 : 200;
            sg_rollout(&a, SG_POLICY_MIXED, cap, &one, ra);
            sg_playout_begin(&run);
            sg_playout_rollout(&run, &b, cap, &two, rb);
            if (memcmp(&a, &b, sizeof a) != 0 || memcmp(ra, rb, sizeof ra) != 0 ||
                sg_rng_next(&one) != sg_rng_next(&two)) {
                fprintf(stderr, "core_check: the default playout is not sg_rollout\n");
                sg_playout_end(&run);
                return 1;
            }
        }
        sg_playout_end(&run);

        /* Every setting, odd values too. */
        sg_playout playout;
        sg_playout_defaults(&playout);
        playout.random_fraction = fractions[g % (sizeof fractions / sizeof fractions[0])];
        playout.temperature = temperatures[g % (sizeof temperatures / sizeof temperatures[0])];
        playout.blend = blends[g % (sizeof blends / sizeof blends[0])];
        playout.kind = kinds[g % (sizeof kinds / sizeof kinds[0])];
        playout.reserved = (uint32_t)g; /* ignored */
        sg_ismcts_params params;
        memset(&params, 0, sizeof params);
        params.iterations = 150;
        params.exploration = 0.7;
        params.policy = policies[(g / 5) % (sizeof policies / sizeof policies[0])];
        params.rollout_cap = g % 3 ? 200 : 0;
        params.seed = g;
        sg_move moves[SG_MAX_MOVES], root[SG_MAX_MOVES], again[SG_MAX_MOVES];
        uint32_t visits[SG_MAX_MOVES], visits2[SG_MAX_MOVES];
        double rewards[SG_MAX_MOVES], rewards2[SG_MAX_MOVES];
        int n_root = 0, n_again = 0;
        sg_ismcts_stats stats;
        const int n = sg_legal_moves(&view, moves);
        const sg_move best = sg_ismcts_search(&view, NULL, &params, NULL, &playout, &stats, root,
                                               visits, rewards, &n_root);
        const sg_move best2 = sg_ismcts_search(&view, NULL, &params, NULL, &playout, NULL, again,
                                                visits2, rewards2, &n_again);
        uint32_t total = 0;
        int ok = n_root == n && best == best2 && n_again == n_root;
        for (int i = 0; i < n_root && ok; i++) {
            total += visits[i];
            ok = again[i] == root[i] && visits2[i] == visits[i] && rewards2[i] == rewards[i] &&
                 rewards[i] >= 0.0 && rewards[i] <= (double)visits[i];
        }
        sg_state after = st;
        if (!ok || (n > 1 && total != stats.iterations) || (n > 1 && stats.iterations != 150) ||
            sg_apply(&after, best, NULL) != SG_ERROR_NONE) {
            fprintf(stderr,
                    "core_check: game %" PRIu64 ": a search with playout kind %d, fraction "
                    "%g, temperature %g, blend %g answered badly\n",
                    g, (int)playout.kind, playout.random_fraction, playout.temperature,
                    playout.blend);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    const uint64_t games = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000;
    const uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    check_rule_table();
    check_action_table();
    check_net(seed);
    {
        sg_rng pick_vec;
        sg_rng_seed(&pick_vec, seed + 1);
        for (uint64_t k = 0; k < 24 && !failures; k++) {
            sg_rules rules;
            random_rules(&pick_vec, &rules);
            rules.max_moves = k % 3 ? rules.max_moves : 40; /* truncation too */
            check_vec(&rules, k, (int)(k % 2));
        }
        int32_t none[SG_MAX_PLAYERS] = {SG_POLICY_RANDOM, SG_POLICY_RANDOM, SG_POLICY_RANDOM,
                                        SG_POLICY_RANDOM};
        sg_rules classic;
        sg_rules_classic(&classic, 3);
        if (sg_vec_new(&classic, 4, 0, none) != NULL || sg_vec_new(&classic, 0, 0, none) != NULL) {
            fprintf(stderr, "core_check: sg_vec_new accepted no learner or no games\n");
            failures++;
        }
    }
    if (failures)
        return 1;
    uint64_t total_moves = 0;
    for (uint8_t players = 2; players <= SG_MAX_PLAYERS; players++) {
        for (uint8_t hand_size = 3; hand_size <= 5; hand_size += 2) {
            sg_rules rules;
            sg_rules_classic(&rules, players);
            rules.hand_size = hand_size;
            rules.max_moves = 400; /* exercise truncation too */
            for (uint64_t g = 0; g < games; g++) {
                play_one(&rules, sg_game_seed(seed + players * 10u + hand_size, g), g,
                         g % 128 == 0);
                if (failures)
                    return 1;
            }
            sg_sim_result res;
            memset(&res, 0, sizeof res);
            rules.max_moves = 10000;
            sg_simulate(&rules, seed, 0, games, &res);
            total_moves += res.moves;
            if (res.games != games) {
                fprintf(stderr, "core_check: simulate played %" PRIu64 " games\n", res.games);
                return 1;
            }
        }
    }
    sg_rng pick;
    sg_rng_seed(&pick, seed);
    for (uint64_t g = 0; g < 3 * games; g++) {
        sg_rules rules;
        random_rules(&pick, &rules);
        if (sg_rules_check(&rules, NULL) != SG_RULES_ERROR_NONE) {
            fprintf(stderr, "core_check: random rules refused\n");
            return 1;
        }
        play_one(&rules, sg_game_seed(seed ^ UINT64_C(0xABCDEF), g), g, g % 32 == 0);
        if (failures)
            return 1;
        sg_sim_result res;
        memset(&res, 0, sizeof res);
        sg_simulate(&rules, seed, g, 1, &res);
        total_moves += res.moves;
    }
    /* Searches run and answer legal moves. */
    for (uint64_t g = 0; g < 20; g++) {
        sg_rules rules;
        random_rules(&pick, &rules);
        sg_state st;
        uint8_t deck[SG_NCARDS];
        sg_rng rng;
        sg_rng_seed(&rng, g);
        sg_shuffle(&rng, deck);
        sg_new(&st, &rules, deck, 0, NULL);
        for (int k = 0; k < 30 && st.phase != SG_PHASE_OVER; k++)
            sg_apply_unchecked(&st, sg_greedy_move(&st), NULL);
        if (st.phase == SG_PHASE_OVER)
            continue;
        sg_state view;
        sg_view(&st, st.to_move, &view);
        sg_ismcts_params params;
        memset(&params, 0, sizeof params);
        params.iterations = 300;
        params.exploration = 0.7;
        params.policy = SG_POLICY_MIXED;
        params.rollout_cap = 200;
        params.seed = g;
        params.solver = g % 2 ? 16 : 0; /* endgame leaves solved, in every other search */
        sg_ismcts_stats stats;
        sg_move root[SG_MAX_MOVES];
        uint32_t visits[SG_MAX_MOVES];
        int n_root = 0;
        double rewards[SG_MAX_MOVES];
        const sg_move best =
            sg_ismcts_rewards(&view, &params, NULL, &stats, root, visits, rewards, &n_root);
        uint32_t total = 0;
        int rewards_ok = 1;
        for (int i = 0; i < n_root; i++) {
            total += visits[i];
            rewards_ok &= rewards[i] >= 0.0 && rewards[i] <= (double)visits[i];
        }
        if (sg_apply(&st, best, NULL) != SG_ERROR_NONE ||
            (n_root > 1 && total != stats.iterations) || !rewards_ok) {
            fprintf(stderr, "core_check: ismcts answered badly\n");
            return 1;
        }
        double scores[SG_MAX_MOVES];
        sg_view(&st, st.to_move == SG_NO_SEAT ? 0 : st.to_move, &view);
        if (st.phase != SG_PHASE_OVER)
            sg_pimc(&view, 4, 2, SG_POLICY_GREEDY, 300, g, root, scores);
    }
    /* Searches with parameters outside their domain stay in bounds and answer
     * legal moves (an exploration below every score once read nodes[UINT32_MAX]). */
    {
        const double odd[] = {-1.0, -strtod("inf", NULL), strtod("nan", NULL),
                              strtod("inf", NULL), 1e300, 0.0};
        sg_rules rules;
        sg_rules_classic(&rules, 3);
        sg_state st;
        uint8_t deck[SG_NCARDS];
        sg_rng rng;
        sg_rng_seed(&rng, seed);
        sg_shuffle(&rng, deck);
        sg_new(&st, &rules, deck, 0, NULL);
        for (int k = 0; k < 12 && st.phase != SG_PHASE_OVER; k++)
            sg_apply_unchecked(&st, sg_greedy_move(&st), NULL);
        sg_state view;
        sg_view(&st, st.to_move, &view);
        for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
            sg_ismcts_params params;
            memset(&params, 0, sizeof params);
            params.iterations = 200;
            params.exploration = odd[i];
            params.seconds = odd[(i + 1) % (sizeof odd / sizeof odd[0])]; /* never a limit here */
            params.policy = (int32_t)i * 7 - 9; /* outside enum sg_policy but one */
            params.rollout_cap = (uint32_t)i * 40;
            params.seed = i;
            sg_ismcts_stats stats;
            sg_move root[SG_MAX_MOVES];
            uint32_t visits[SG_MAX_MOVES];
            int n_root = 0;
            const sg_move best = sg_ismcts(&view, &params, &stats, root, visits, &n_root);
            sg_state after = st;
            if (st.phase != SG_PHASE_OVER &&
                (sg_apply(&after, best, NULL) != SG_ERROR_NONE ||
                 (n_root > 1 && stats.iterations != 200))) {
                fprintf(stderr, "core_check: ismcts with exploration %g answered badly\n", odd[i]);
                return 1;
            }
            /* No iteration limit and no usable time limit: no search at all. */
            params.iterations = 0;
            params.seconds = odd[i] > 0 ? strtod("inf", NULL) : odd[i];
            sg_ismcts(&view, &params, &stats, NULL, NULL, NULL);
            if (stats.iterations != 0) {
                fprintf(stderr, "core_check: ismcts searched without a budget\n");
                return 1;
            }
            double scores[SG_MAX_MOVES];
            sg_pimc(&view, (int)i % 3 - 1, i % 2 ? 1 : -1, (int)i * 5 - 4, 300, i, root, scores);
        }
    }
    /* The views sg_view makes always pass sg_view_check, under any rules and
     * at any point of a game. */
    {
        sg_rng rng;
        sg_rng_seed(&rng, 99);
        for (uint64_t game = 0; game < 400; game++) {
            sg_rules rules;
            random_rules(&rng, &rules);
            uint8_t deck[SG_NCARDS];
            sg_deck_from_seed(game, deck);
            sg_state st;
            if (game % 4 == 3) {
                /* A phase-2 position: each card to a seat or out of play. */
                uint64_t hands[SG_MAX_PLAYERS] = {0, 0, 0, 0};
                for (int c = 0; c < SG_NCARDS; c++) {
                    const uint32_t owner = sg_rng_below(&rng, rules.players + 1u);
                    if (owner < rules.players)
                        hands[owner] |= SG_CARD_BIT(deck[c]);
                }
                sg_new_shedding(&st, &rules, hands, (uint8_t)sg_rng_below(&rng, 5),
                                (uint8_t)(game % rules.players), NULL);
            } else {
                sg_new(&st, &rules, deck, (uint8_t)(game % rules.players), NULL);
            }
            while (1) {
                const char *field = "unset";
                if (sg_state_check(&st, &field) != 0 || field != NULL) {
                    fprintf(stderr, "core_check: game %" PRIu64 ": sg_state_check refuses "
                                    "a state of the game (%d, %s)\n",
                            game, sg_state_check(&st, &field), field ? field : "no field");
                    return 1;
                }
                if (sg_view_check(&st) != 0) {
                    fprintf(stderr, "core_check: game %" PRIu64 ": sg_view_check refuses "
                                    "a state of the game (%d)\n",
                            game, sg_view_check(&st));
                    return 1;
                }
                for (uint8_t seat = 0; seat < rules.players; seat++) {
                    sg_state view;
                    sg_view(&st, seat, &view);
                    if (sg_view_check(&view) != 0) {
                        fprintf(stderr, "core_check: game %" PRIu64 ": sg_view made a view "
                                        "that sg_view_check refuses (%d)\n",
                                game, sg_view_check(&view));
                        return 1;
                    }
                }
                if (st.phase == SG_PHASE_OVER)
                    break;
                sg_move moves[SG_MAX_MOVES];
                const int n = sg_legal_moves(&st, moves);
                sg_apply_unchecked(&st, moves[sg_rng_below(&rng, (uint32_t)n)], NULL);
            }
        }
    }
    long refused = 0, passed = 0;
    if (check_tampering(seed, 40, &refused, &passed))
        return 1;
    if (check_policies() || check_vec_policies() || check_playouts(seed))
        return 1;
    check_worlds(seed);
    free(solver_buffer);
    if (failures)
        return 1;
    printf("core_check: ok, %" PRIu64 " simulated moves; %ld tampered states refused, %ld passed "
           "and played\n",
           total_moves, refused, passed);
    return 0;
}
