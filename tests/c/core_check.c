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

static void play_one(const sg_rules *rules, uint64_t seed, uint64_t game)
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
        const int n = sg_legal_moves(&st, moves);
        EXPECT(n > 0 && n <= SG_MAX_MOVES, "game %" PRIu64 ": %d legal moves", game, n);
        check_sampling(&st, st.to_move, &rng, game);
        check_sampling(&st, (uint8_t)((st.to_move + 1) % rules->players), &rng, game);
        EXPECT(st.to_move < rules->players, "game %" PRIu64 ": bad seat to move", game);
        /* An illegal move changes nothing. */
        before = st;
        const sg_move bogus = SG_MAKE_MOVE(SG_MOVE_KIND_PLAY, SG_ALL_CARDS & ~st.hand[st.to_move]);
        EXPECT(sg_apply(&st, bogus, NULL) == SG_ERROR_ILLEGAL, "bogus move accepted");
        EXPECT(memcmp(&st, &before, sizeof st) == 0, "illegal move changed the state");
        ev.len = 0;
        EXPECT(sg_apply(&st, moves[sg_rng_below(&rng, (uint32_t)n)], &ev) == SG_ERROR_NONE,
               "legal move refused");
        EXPECT(ev.len <= ev.cap, "event overflow: %d", ev.len);
        EXPECT(st.moves <= rules->max_moves, "cap exceeded");
    }
    check_cards(&st, game);
    int holding = 0;
    for (int p = 0; p < rules->players; p++)
        holding += (st.hand[p] | st.coll[p]) != 0;
    if (st.truncated)
        EXPECT(st.loser == SG_NO_SEAT, "truncated game with a loser");
    else
        EXPECT(holding <= 1 && (holding == 1) == (st.loser != SG_NO_SEAT),
               "game %" PRIu64 ": over with %d holders", game, holding);
}

/* Rules with every field drawn at random (the one refused combination excepted). */
static void random_rules(sg_rng *rng, sg_rules *r)
{
    sg_rules_classic(r, (uint8_t)(2 + sg_rng_below(rng, 3)));
    r->hand_size = sg_rng_below(rng, 2) ? 5 : 3;
    r->trick_mode = (uint8_t)sg_rng_below(rng, 2);
    r->duel_tie = (uint8_t)sg_rng_below(rng, 2);
    r->all_tie = (uint8_t)sg_rng_below(rng, 2);
    r->multi_card_plays = (uint8_t)sg_rng_below(rng, 2);
    r->slough = (uint8_t)sg_rng_below(rng, 2);
    r->try_your_luck = (uint8_t)sg_rng_below(rng, 2);
    r->draw = (uint8_t)sg_rng_below(rng, 2);
    r->last_card = (uint8_t)sg_rng_below(rng, 2);
    r->trump = (uint8_t)sg_rng_below(rng, 3);
    if (r->trump == SG_TRUMP_RULE_UPCARD)
        r->multi_card_plays = 0;
    r->low_card_threshold = sg_rng_below(rng, 2) ? (uint8_t)sg_rng_below(rng, 14) : 0;
    r->runs = (uint8_t)sg_rng_below(rng, 2);
    r->pickup = (uint8_t)sg_rng_below(rng, 3);
    r->trick_end = (uint8_t)sg_rng_below(rng, 2);
    r->max_moves = 2000;
}

int main(int argc, char **argv)
{
    const uint64_t games = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000;
    const uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    uint64_t total_moves = 0;
    for (uint8_t players = 2; players <= SG_MAX_PLAYERS; players++) {
        for (uint8_t hand_size = 3; hand_size <= 5; hand_size += 2) {
            sg_rules rules;
            sg_rules_classic(&rules, players);
            rules.hand_size = hand_size;
            rules.max_moves = 400; /* exercise truncation too */
            for (uint64_t g = 0; g < games; g++) {
                play_one(&rules, sg_game_seed(seed + players * 10u + hand_size, g), g);
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
        play_one(&rules, sg_game_seed(seed ^ UINT64_C(0xABCDEF), g), g);
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
        sg_ismcts_params params = {300, 0.0, 0.7, SG_POLICY_MIXED, 200, g};
        sg_ismcts_stats stats;
        sg_move root[SG_MAX_MOVES];
        uint32_t visits[SG_MAX_MOVES];
        int n_root = 0;
        const sg_move best = sg_ismcts(&view, &params, &stats, root, visits, &n_root);
        uint32_t total = 0;
        for (int i = 0; i < n_root; i++)
            total += visits[i];
        if (sg_apply(&st, best, NULL) != SG_ERROR_NONE ||
            (n_root > 1 && total != stats.iterations)) {
            fprintf(stderr, "core_check: ismcts answered badly\n");
            return 1;
        }
        double scores[SG_MAX_MOVES];
        sg_view(&st, st.to_move == SG_NO_SEAT ? 0 : st.to_move, &view);
        if (st.phase != SG_PHASE_OVER)
            sg_pimc(&view, 4, 2, SG_POLICY_GREEDY, 300, g, root, scores);
    }
    printf("core_check: ok, %" PRIu64 " simulated moves\n", total_moves);
    return 0;
}
