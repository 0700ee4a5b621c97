/*
 * skitgubbe core: the public C API.
 *
 * Plain C99, no Python, no global mutable state.  Everything a game needs lives
 * in one fixed-size struct (sg_state) that can be copied with memcpy; search
 * code copies it millions of times a second.
 *
 * Cards are bits of a uint64_t: bit = suit * 16 + rank, where suit is
 * 0 clubs, 1 diamonds, 2 hearts, 3 spades and rank is 0 (two) .. 12 (ace).
 * The rules implemented are those of docs/rules.md; the numbers in comments
 * ("§3.6") point into that file.
 *
 * In this header, in order: the rules (one table of fields, SG_RULE_FIELDS,
 * which says how to add a field), random numbers, moves, the state, events,
 * the game (deal, legal moves, why a move is illegal, apply), what a seat
 * sees (sg_observation) and how a game ended (sg_result), hidden information
 * and search, whole games.  What the core's own files share is in internal.h.
 *
 * Conventions: enum constants are SG_<ENUM TYPE>_<VALUE> (enum sg_phase:
 * SG_PHASE_SHEDDING); public structs have no hidden padding (spare bytes are
 * named `reserved` and kept zero), which SG_STATIC_ASSERT checks; the caller
 * owns every buffer.
 */
#ifndef SKITGUBBE_H
#define SKITGUBBE_H

#include <stddef.h>
#include <stdint.h>

/* The API of rollout policies: the core's public headers live in src/_core/include/ (the
 * wheel ships a copy inside the package, skitgubbe.get_include(), for users' policies). */
#include "include/skitgubbe_policy.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bump when the API or the layout of a public struct changes. */
#define SG_API_VERSION 4
/* Bump when the shuffle changes: the same seed must give the same deck for
 * every version that keeps this number (docs/rules.md §2). */
#define SG_RNG_VERSION 1

#define SG_MAX_PLAYERS 4
#define SG_NCARDS 52
#define SG_NO_SEAT 0xFF
#define SG_NO_CARD 0xFF
#define SG_NO_SUIT 4
/* Upper bound on legal moves in any position of any variant (runs, multi-card
 * plays and sloughs included). */
#define SG_MAX_MOVES 512
/* Upper bound on the events one move (or the deal) can produce. */
#define SG_MAX_EVENTS 192

#define SG_ALL_CARDS UINT64_C(0x1FFF1FFF1FFF1FFF)
#define SG_SUIT_MASK(s) (UINT64_C(0x1FFF) << (16 * (s)))
#define SG_CARD_BIT(c) (UINT64_C(1) << (c))
#define SG_CARD(suit, rank) ((uint8_t)((suit) * 16 + (rank)))
#define SG_SUIT_OF(c) ((c) >> 4)
#define SG_RANK_OF(c) ((c) & 15)

/* A compile-time check that C99 and MSVC both accept: an array of negative
 * size when `cond` is false.  `name` says what is checked. */
#define SG_STATIC_ASSERT(cond, name) typedef char sg_static_assert_##name[(cond) ? 1 : -1]

/* Size of a struct member, usable in constant expressions. */
#define SG_MEMBER_SIZE(type, member) sizeof(((type *)0)->member)

/* ---- rules (docs/rules.md §9) ----------------------------------------- */

/* The values of each enumerated rule field, as V(constant, number, name):
 * `name` is the value's lower-case name in Python and in game records.  The
 * numbers are part of the API (saved games and bindings use them): never
 * renumber a value, only add new ones after the last. */
#define SG_TRICK_MODE_VALUES(V)                                                                    \
    V(SG_TRICK_MODE_DUEL, 0, "duel")                                                               \
    V(SG_TRICK_MODE_ALL, 1, "all")
#define SG_DUEL_TIE_VALUES(V)                                                                      \
    V(SG_DUEL_TIE_REPLAY, 0, "replay")                                                             \
    V(SG_DUEL_TIE_BOUNCE, 1, "bounce")
#define SG_ALL_TIE_VALUES(V)                                                                       \
    V(SG_ALL_TIE_POT, 0, "pot")                                                                    \
    V(SG_ALL_TIE_LOWER_OUT, 1, "lower_out")
#define SG_DRAW_VALUES(V)                                                                          \
    V(SG_DRAW_AFTER_PLAY, 0, "after_play")                                                         \
    V(SG_DRAW_AFTER_TRICK, 1, "after_trick")
#define SG_LAST_CARD_VALUES(V)                                                                     \
    V(SG_LAST_CARD_HIDDEN, 0, "hidden")                                                            \
    V(SG_LAST_CARD_REVEAL, 1, "reveal")
#define SG_TRUMP_RULE_VALUES(V)                                                                    \
    V(SG_TRUMP_RULE_LAST_CARD, 0, "last_card")                                                     \
    V(SG_TRUMP_RULE_NONE, 1, "none")                                                               \
    V(SG_TRUMP_RULE_UPCARD, 2, "upcard")
#define SG_PICKUP_VALUES(V)                                                                        \
    V(SG_PICKUP_TOP, 0, "top")                                                                     \
    V(SG_PICKUP_TOP_RUN, 1, "top_run")                                                             \
    V(SG_PICKUP_PILE, 2, "pile")
#define SG_TRICK_END_VALUES(V)                                                                     \
    V(SG_TRICK_END_COUNT, 0, "count")                                                              \
    V(SG_TRICK_END_ROTATION, 1, "rotation")
/* The value list of a field that is not an enum. */
#define SG_NO_VALUES(V)

#define SG_ENUM_CONSTANT(constant, number, name) constant = number,
enum sg_trick_mode { SG_TRICK_MODE_VALUES(SG_ENUM_CONSTANT) };
enum sg_duel_tie { SG_DUEL_TIE_VALUES(SG_ENUM_CONSTANT) };
enum sg_all_tie { SG_ALL_TIE_VALUES(SG_ENUM_CONSTANT) };
enum sg_draw { SG_DRAW_VALUES(SG_ENUM_CONSTANT) };
enum sg_last_card { SG_LAST_CARD_VALUES(SG_ENUM_CONSTANT) };
enum sg_trump_rule { SG_TRUMP_RULE_VALUES(SG_ENUM_CONSTANT) };
enum sg_pickup { SG_PICKUP_VALUES(SG_ENUM_CONSTANT) };
enum sg_trick_end { SG_TRICK_END_VALUES(SG_ENUM_CONSTANT) };

/* What values a rule field takes. */
enum sg_rule_kind {
    SG_RULE_KIND_INT = 0,         /* an integer min..max, in steps of `step` from min */
    SG_RULE_KIND_BOOL = 1,        /* 0 (false) or 1 (true) */
    SG_RULE_KIND_ENUM = 2,        /* 0..max, value v named values[v] */
    SG_RULE_KIND_OPTIONAL_INT = 3 /* 0 = off (Python: None), else an integer min..max */
};

/* THE TABLE OF RULE FIELDS: every field of sg_rules, declared once.  The
 * struct below, the descriptors of sg_rule_fields(), sg_rules_get/set, the
 * classic preset and sg_rules_check are all generated from it; bindings read
 * it through sg_rule_fields(), so that Python's Rules (fields, validation,
 * to_dict/from_dict) and the CLI's choices derive from it too.
 *
 *   X(name, storage, kind, min, max, step, classic, values, doc)
 *
 * name     the field (in sg_rules, Python's Rules, records and the CLI)
 * storage  U8 or U32: its C type in sg_rules
 * kind     INT, BOOL, ENUM or OPTIONAL_INT (enum sg_rule_kind)
 * min, max, step   the allowed values (see enum sg_rule_kind); an ENUM has
 *          min 0 and max its last constant
 * classic  the classic default (docs/rules.md §9), used by sg_rules_classic
 * values   an ENUM's value list (above), else SG_NO_VALUES
 * doc      one line, as in Python's Rules
 *
 * Adding a rule field:
 *   1. a line here, where the field belongs in Rules' field order (indices
 *      are table positions, stable within one build only: bindings go by
 *      name) and, for an enum, its SG_<NAME>_VALUES list and enum above;
 *   2. the rule itself: the move generator and the legality check
 *      (sg_why_illegal) of the phase it changes, and apply -- collecting.c or
 *      shedding.c; sg_rules_modern (rules.c) if the modern preset sets it, and
 *      sg_rules_check if it conflicts with another field;
 *   3. the docs: docs/rules.md (§9 and the rule the field changes);
 *   4. the tests: the Python model (tests/model/) and tests/rules_gen.py must
 *      know the rule, and scenario tests show it.  tests/c/core_check.c covers
 *      the field's values, get/set and check by itself and draws its random
 *      rules (for the invariant and legality tests) from this table.
 * The layout of sg_rules adapts itself (see `reserved`); bump SG_API_VERSION. */
#define SG_RULE_FIELDS(X)                                                                          \
    X(players, U8, INT, 2, SG_MAX_PLAYERS, 1, 3, SG_NO_VALUES,                                     \
      "Number of players: 2, 3 or 4.")                                                             \
    X(hand_size, U8, INT, 3, 5, 2, 3, SG_NO_VALUES, "Cards in a phase-1 hand: 3 or 5.")            \
    X(trick_mode, U8, ENUM, 0, SG_TRICK_MODE_ALL, 1, SG_TRICK_MODE_DUEL, SG_TRICK_MODE_VALUES,     \
      "Phase-1 tricks between two players (``DUEL``) or everyone (``ALL``).")                      \
    X(duel_tie, U8, ENUM, 0, SG_DUEL_TIE_BOUNCE, 1, SG_DUEL_TIE_REPLAY, SG_DUEL_TIE_VALUES,        \
      "Ties under ``DUEL``: replay (``REPLAY``) or out of play (``BOUNCE``).")                     \
    X(all_tie, U8, ENUM, 0, SG_ALL_TIE_LOWER_OUT, 1, SG_ALL_TIE_POT, SG_ALL_TIE_VALUES,            \
      "Ties under ``ALL``: all cards stay (``POT``) or the others' go out.")                       \
    X(multi_card_plays, U8, BOOL, 0, 1, 1, 0, SG_NO_VALUES,                                        \
      "Under ``ALL``, several hand cards of one rank may be played as one.")                       \
    X(slough, U8, BOOL, 0, 1, 1, 1, SG_NO_VALUES,                                                  \
      "Under ``ALL``, cards of ranks in the trick may be thrown after it.")                        \
    X(try_your_luck, U8, BOOL, 0, 1, 1, 1, SG_NO_VALUES,                                           \
      "A player may turn and play the top stock card instead of a hand card.")                     \
    X(draw, U8, ENUM, 0, SG_DRAW_AFTER_TRICK, 1, SG_DRAW_AFTER_PLAY, SG_DRAW_VALUES,               \
      "Refill after each play (``AFTER_PLAY``) or after each trick.")                              \
    X(last_card, U8, ENUM, 0, SG_LAST_CARD_REVEAL, 1, SG_LAST_CARD_HIDDEN, SG_LAST_CARD_VALUES,    \
      "The last stock card lies hidden (``HIDDEN``) or is shown (``REVEAL``).")                    \
    X(trump, U8, ENUM, 0, SG_TRUMP_RULE_UPCARD, 1, SG_TRUMP_RULE_LAST_CARD,                        \
      SG_TRUMP_RULE_VALUES,                                                                        \
      "How trump is chosen: last stock card, none, or an up-card at the deal.")                    \
    X(low_card_threshold, U8, OPTIONAL_INT, 1, 13, 1, 0, SG_NO_VALUES,                             \
      "``None`` (off), or k: a player with fewer than k cards in phase 2 gets low cards.")         \
    X(runs, U8, BOOL, 0, 1, 1, 0, SG_NO_VALUES,                                                    \
      "Phase 2: a run of consecutive cards of one suit may be played as one.")                     \
    X(pickup, U8, ENUM, 0, SG_PICKUP_PILE, 1, SG_PICKUP_TOP, SG_PICKUP_VALUES,                     \
      "Phase 2: what a pick-up takes from the table.")                                             \
    X(trick_end, U8, ENUM, 0, SG_TRICK_END_ROTATION, 1, SG_TRICK_END_COUNT,                        \
      SG_TRICK_END_VALUES, "Phase 2: when a trick is complete.")                                   \
    X(max_moves, U32, INT, 1, UINT32_MAX, 1, 10000, SG_NO_VALUES,                                  \
      "Move cap after which a game ends truncated, with no loser.")

/* Helpers that turn table lines into code (X-macro callbacks). */
#define SG_RULE_SIZE_U8 1
#define SG_RULE_SIZE_U32 4
#define SG_RULE_TYPE_U8 uint8_t
#define SG_RULE_TYPE_U32 uint32_t
#define SG_RULE_IF_U8_U8(code) code
#define SG_RULE_IF_U8_U32(code)
#define SG_RULE_IF_U32_U8(code)
#define SG_RULE_IF_U32_U32(code) code
#define SG_RULE_MEMBER_U8(name, storage, kind, min, max, step, classic, values, doc)               \
    SG_RULE_IF_U8_##storage(uint8_t name;)
#define SG_RULE_MEMBER_U32(name, storage, kind, min, max, step, classic, values, doc)              \
    SG_RULE_IF_U32_##storage(uint32_t name;)
#define SG_RULE_PLUS_SIZE(name, storage, kind, min, max, step, classic, values, doc)               \
    +SG_RULE_SIZE_##storage
#define SG_RULE_PLUS_ONE(name, storage, kind, min, max, step, classic, values, doc) +1

/* Number of rule fields. */
#define SG_RULE_COUNT (0 SG_RULE_FIELDS(SG_RULE_PLUS_ONE))
/* Bytes the rule fields take in sg_rules. */
#define SG_RULE_BYTES (0 SG_RULE_FIELDS(SG_RULE_PLUS_SIZE))

/* The rules of one game: the fields of the table above, the 32-bit ones
 * first, then the 8-bit ones, then `reserved` up to a multiple of 8 bytes (no
 * hidden padding, and sg_state's next member stays aligned). */
typedef struct sg_rules {
    SG_RULE_FIELDS(SG_RULE_MEMBER_U32)
    SG_RULE_FIELDS(SG_RULE_MEMBER_U8)
    uint8_t reserved[8 - SG_RULE_BYTES % 8]; /* always zero */
} sg_rules;

SG_STATIC_ASSERT(sizeof(sg_rules) == SG_RULE_BYTES + SG_MEMBER_SIZE(sg_rules, reserved),
                 sg_rules_has_no_hidden_padding);
SG_STATIC_ASSERT(sizeof(sg_rules) % 8 == 0, sg_rules_size_is_a_multiple_of_8);

/* A rule field as data: what sg_rule_fields() lists, in table order. */
typedef struct sg_rule_field {
    uint32_t min;
    uint32_t max;
    uint32_t step;
    uint32_t classic;           /* the classic default */
    uint32_t kind;              /* enum sg_rule_kind */
    uint32_t n_values;          /* ENUM: number of values (max + 1); else 0 */
    const char *name;           /* "trick_mode" */
    const char *doc;            /* one line */
    const char *const *values;  /* ENUM: values[v] names value v ("duel"); NULL-terminated
                                   (an empty list for other kinds) */
} sg_rule_field;

SG_STATIC_ASSERT(sizeof(sg_rule_field) == 6 * sizeof(uint32_t) + 3 * sizeof(const char *),
                 sg_rule_field_has_no_hidden_padding);

/* The rule fields in table order; *count (if not NULL) receives their number,
 * SG_RULE_COUNT.  A static table: never freed, never changed. */
const sg_rule_field *sg_rule_fields(int *count);

/* The index of the field called `name`, or -1. */
int sg_rule_index(const char *name);

/* Field `index` of r (as uint32_t whatever its storage); 0 for an index out of
 * range. */
uint32_t sg_rules_get(const sg_rules *r, int index);

enum sg_rules_error {
    SG_RULES_ERROR_NONE = 0,
    SG_RULES_ERROR_BAD_VALUE = 1, /* a field is outside its range */
    SG_RULES_ERROR_CONFLICT = 2,  /* trump=UPCARD with multi_card_plays */
    SG_RULES_ERROR_NO_FIELD = 3   /* sg_rules_set: no field has this index */
};

/* Sets field `index` of r to `value` if the field allows that value (its
 * range only: combinations are sg_rules_check's); returns
 * SG_RULES_ERROR_NONE, or SG_RULES_ERROR_BAD_VALUE / SG_RULES_ERROR_NO_FIELD
 * with r untouched. */
int sg_rules_set(sg_rules *r, int index, uint32_t value);

/* Fills r with the classic rules (every default of docs/rules.md §9: the table's
 * `classic` column) for `players` players. */
void sg_rules_classic(sg_rules *r, uint8_t players);

/* Fills r with the modern (French/Dutch) rules of docs/rules.md §9: with 3 or 4
 * players trick_mode=ALL, all_tie=LOWER_OUT, slough, no try_your_luck,
 * draw=AFTER_TRICK, last_card=REVEAL, runs, pickup=TOP_RUN,
 * trick_end=ROTATION; with 2 players the same but trick_mode=DUEL and
 * duel_tie=BOUNCE.  Other fields are classic. */
void sg_rules_modern(sg_rules *r, uint8_t players);

/* Checks every field's range and the one refused combination (trump=UPCARD
 * with multi_card_plays).  Returns SG_RULES_ERROR_NONE, or an error with
 * *field (if not NULL) set to the offending field's name (a static string;
 * "trump" for the conflict).  `reserved` is not checked. */
int sg_rules_check(const sg_rules *r, const char **field);

/* ---- random numbers (docs/rules.md §2) --------------------------------- */

/* xoshiro256** seeded by splitmix64. */
typedef struct sg_rng {
    uint64_t s[4];
} sg_rng;

SG_STATIC_ASSERT(sizeof(sg_rng) == 32, sg_rng_size);

void sg_rng_seed(sg_rng *rng, uint64_t seed);
uint64_t sg_rng_next(sg_rng *rng);
/* Unbiased draw in [0, bound), bound >= 1 (Lemire's multiply-and-reject on
 * the high 32 bits of each output). */
uint32_t sg_rng_below(sg_rng *rng, uint32_t bound);
/* Writes a shuffled deck: Fisher-Yates from card order (clubs two .. spades
 * ace), for i = 51 .. 1 swapping deck[i] with deck[sg_rng_below(rng, i + 1)]. */
void sg_shuffle(sg_rng *rng, uint8_t deck[SG_NCARDS]);
/* The deck a game created from `seed` uses: sg_rng_seed then sg_shuffle. */
void sg_deck_from_seed(uint64_t seed, uint8_t deck[SG_NCARDS]);
/* Seed of game `index` of a batch started from `seed` (simulate, arenas):
 * independent of how the batch is split over threads. */
uint64_t sg_game_seed(uint64_t seed, uint64_t index);

/* ---- moves ---------------------------------------------------------------- */

/* A move is a uint64_t: the cards it plays in the card bits, the kind in the
 * top three bits (which no card uses). */
typedef uint64_t sg_move;

enum sg_move_kind {
    SG_MOVE_KIND_PLAY = 0,    /* one hand card; a run or equal cards where allowed */
    SG_MOVE_KIND_FLIP = 1,    /* try your luck: turn the top stock card and play it */
    SG_MOVE_KIND_PICK_UP = 2, /* phase 2: take cards from the table */
    SG_MOVE_KIND_SLOUGH = 3,  /* slough window: throw cards of ranks in the trick */
    SG_MOVE_KIND_PASS = 4     /* slough window: throw nothing */
};

#define SG_MOVE_KIND_OF(m) ((unsigned)((m) >> 61))
#define SG_MOVE_CARDS(m) ((m) & SG_ALL_CARDS)
#define SG_MAKE_MOVE(kind, cards) ((((sg_move)(kind)) << 61) | ((cards) & SG_ALL_CARDS))

/* ---- state ------------------------------------------------------------- */

enum sg_phase { SG_PHASE_COLLECTING = 0, SG_PHASE_SHEDDING = 1, SG_PHASE_OVER = 2 };

/* The whole game.  Fixed size, no pointers: copy = memcpy.  The layout has room
 * for every variant of docs/rules.md §9 (4 players, 5-card hands, multi-card plays,
 * runs, the slough window, both trick ends).  No hidden padding (the
 * assertion below): equal states are equal bytes, and `reserved` is zero. */
typedef struct sg_state {
    sg_rules rules;
    uint64_t hand[SG_MAX_PLAYERS];  /* phase 1 hand; phase 2 all cards held */
    uint64_t coll[SG_MAX_PLAYERS];  /* phase 1 collection (face down, public) */
    uint64_t known[SG_MAX_PLAYERS]; /* cards every player can place with seat */
    uint64_t out;                   /* out of play */

    uint8_t stock[SG_NCARDS];       /* stock[stock_top .. stock_len) */
    uint8_t table[SG_NCARDS];       /* the table, bottom first */
    uint8_t table_seat[SG_NCARDS];  /* who put each table card there */
    uint8_t table_play[SG_NCARDS];  /* play number (0-based) of each card */

    uint8_t stock_top;
    uint8_t stock_len;
    uint8_t table_len;
    uint8_t phase;         /* enum sg_phase */
    uint8_t dealer;
    uint8_t to_move;       /* SG_NO_SEAT when the game is over */
    uint8_t leader;        /* who led the current trick */
    uint8_t follower;      /* phase 1 DUEL: who answers */
    uint8_t trump;         /* suit 0..3, or SG_NO_SUIT */
    uint8_t trump_public;  /* 1 once every player knows the trump */
    uint8_t upcard;        /* trump=UPCARD: the card turned at the deal, else SG_NO_CARD */
    uint8_t hidden_card;   /* the face-down last stock card, or SG_NO_CARD */
    uint8_t hidden_holder; /* who holds it, or SG_NO_SEAT */
    uint8_t last_drawer;   /* who drew the last stock card, or SG_NO_SEAT */
    uint8_t end_pending;   /* last_card=REVEAL: phase 1 ends after this step */
    /* phase 1, trick_mode=ALL: the round of plays in progress */
    uint8_t round_first;   /* who played first in this round */
    uint8_t round_start;   /* table index of this round's first card */
    uint8_t round_pending; /* seats (bits) still to play in this round */
    /* phase 1, the slough window */
    uint8_t winner;        /* the trick's winner while the window is open */
    uint8_t window;        /* seats (bits) still to answer; 0 = no window */
    /* phase 2 */
    uint8_t trick_target;  /* plays (COUNT) or turns (ROTATION) that end the trick */
    uint8_t trick_turns;   /* ROTATION: turns taken in this trick */
    uint8_t n_finished;
    uint8_t finished[SG_MAX_PLAYERS]; /* seats in the order they went out */
    uint8_t loser;         /* SG_NO_SEAT: none (yet) */
    uint8_t truncated;
    /* a view (sg_view): how many cards of each hand are not named in it */
    uint8_t unseen[SG_MAX_PLAYERS];
    uint8_t reserved[3];   /* always zero */
    uint32_t moves;        /* moves played so far (the cap counts these) */
} sg_state;

#define SG_STATE_MEMBER_BYTES(m) SG_MEMBER_SIZE(sg_state, m)
SG_STATIC_ASSERT(sizeof(sg_state) ==
                     SG_STATE_MEMBER_BYTES(rules) + SG_STATE_MEMBER_BYTES(hand) +
                         SG_STATE_MEMBER_BYTES(coll) + SG_STATE_MEMBER_BYTES(known) +
                         SG_STATE_MEMBER_BYTES(out) + SG_STATE_MEMBER_BYTES(stock) +
                         SG_STATE_MEMBER_BYTES(table) + SG_STATE_MEMBER_BYTES(table_seat) +
                         SG_STATE_MEMBER_BYTES(table_play) + 23 /* stock_top .. n_finished */ +
                         SG_STATE_MEMBER_BYTES(finished) + 2 /* loser, truncated */ +
                         SG_STATE_MEMBER_BYTES(unseen) + SG_STATE_MEMBER_BYTES(reserved) +
                         SG_STATE_MEMBER_BYTES(moves),
                 sg_state_has_no_hidden_padding);
SG_STATIC_ASSERT(offsetof(sg_state, stock_top) + 23 == offsetof(sg_state, finished),
                 sg_state_byte_members_are_counted);

/* ---- events ------------------------------------------------------------ */

enum sg_event_kind {
    SG_EVENT_KIND_DEAL = 0,         /* seat was dealt `cards` (private to seat) */
    SG_EVENT_KIND_PLAY = 1,         /* seat played `cards` from his hand */
    SG_EVENT_KIND_FLIP = 2,         /* seat turned `cards` from the stock and played it */
    SG_EVENT_KIND_DRAW = 3,         /* seat drew `cards` (private to seat) */
    SG_EVENT_KIND_DRAW_HIDDEN = 4,  /* seat drew the last stock card face down */
    SG_EVENT_KIND_TIE = 5,          /* tie: arg = tied seats (bits), `cards` = the tied cards */
    SG_EVENT_KIND_BOUNCE = 6,       /* tied `cards` go out of play */
    SG_EVENT_KIND_TRICK_WON = 7,    /* seat collects `cards` (phase 1) */
    SG_EVENT_KIND_TAKE_BACK = 8,    /* seat takes his `cards` back from the table */
    SG_EVENT_KIND_REVEAL = 9,       /* seat's hidden card `cards` is turned up */
    SG_EVENT_KIND_TRUMP = 10,       /* arg = trump suit (SG_NO_SUIT: no trump) */
    SG_EVENT_KIND_SHEDDING = 11,    /* phase 2 begins; seat leads */
    SG_EVENT_KIND_PICK_UP = 12,     /* seat took `cards` from the table */
    /* trick complete: `cards` go out of play; seat made the last play */
    SG_EVENT_KIND_DISCARD = 13,
    SG_EVENT_KIND_OUT = 14,         /* seat has no cards left: out and safe */
    SG_EVENT_KIND_GAME_OVER = 15,   /* seat is the skitgubbe (SG_NO_SEAT: nobody) */
    SG_EVENT_KIND_TRUNCATED = 16,   /* the move cap ended the game */
    SG_EVENT_KIND_SLOUGH = 17,      /* seat threw `cards` in the slough window */
    SG_EVENT_KIND_PASS = 18,        /* seat passed in the slough window */
    SG_EVENT_KIND_GIVE = 19,        /* low cards: seat gives `cards` to seat `arg` */
    SG_EVENT_KIND_UPCARD = 20,      /* `cards` turned up at the deal, arg = its suit */
    /* tie replayed: `cards` of the players not tied go out of play */
    SG_EVENT_KIND_LOWER_OUT = 21,
    /* seat draws the up-card `cards` into his hand, in view of all */
    SG_EVENT_KIND_TAKE_UPCARD = 22
};

typedef struct sg_event {
    uint8_t kind;        /* enum sg_event_kind */
    uint8_t seat;
    uint8_t arg;
    uint8_t reserved[5]; /* always zero */
    uint64_t cards;
} sg_event;

SG_STATIC_ASSERT(sizeof(sg_event) == 16 && offsetof(sg_event, cards) == 8, sg_event_layout);

/* Where a caller wants events; NULL buffer = don't record. */
typedef struct sg_events {
    sg_event *buf;
    int32_t cap;
    int32_t len;
} sg_events;

SG_STATIC_ASSERT(sizeof(sg_events) == sizeof(sg_event *) + 8, sg_events_has_no_hidden_padding);

/* ---- the game ---------------------------------------------------------- */

enum sg_error {
    SG_ERROR_NONE = 0,
    SG_ERROR_RULES = -1,
    SG_ERROR_DECK = -2,      /* not a permutation of the 52 cards */
    SG_ERROR_SEAT = -3,      /* seat out of range */
    SG_ERROR_ILLEGAL = -4,   /* move not legal here */
    SG_ERROR_OVER = -5,      /* the game is over */
    SG_ERROR_POSITION = -6,  /* a phase-2 position that cannot be played */
    SG_ERROR_NOT_OVER = -7,  /* sg_game_result: the game is not over */
    SG_ERROR_POLICY = -8     /* a policy of the caller's own failed (sg_vec_set_policy) */
};

/* Deals a new game from a deck (deck[0] = top) with the given dealer. */
int sg_new(sg_state *st, const sg_rules *rules, const uint8_t deck[SG_NCARDS],
           uint8_t dealer, sg_events *ev);

/* Sets up a phase-2 position: hands[i] the cards seat i holds, `trump` a
 * suit or SG_NO_SUIT, `leader` who leads; every other card is out of play.
 * Players with no cards are out (in seat order from the leader). */
int sg_new_shedding(sg_state *st, const sg_rules *rules,
                    const uint64_t hands[SG_MAX_PLAYERS], uint8_t trump,
                    uint8_t leader, sg_events *ev);

/* Writes the legal moves for the player to move; returns how many (0 when
 * the game is over).  Order: plays by ascending card mask, then flip, then
 * pick up (and pass). */
int sg_legal_moves(const sg_state *st, sg_move moves[SG_MAX_MOVES]);

/* Why a move is not legal for the player to move, as V(constant, number,
 * name), with what sg_why_illegal writes to *detail:
 *   NONE           the move is legal                                   0
 *   GAME_OVER      the game is over: no move is legal                  0
 *   MALFORMED      not a move: an unknown kind, bits outside the       the offending bits
 *                  card bits, cards on a flip / pick-up / pass         (0 for a play or
 *                                                                      slough without cards)
 *   WINDOW_OPEN    a slough window is open: only slough or pass        the cards the seat
 *                                                                      may throw
 *   NO_WINDOW      a slough or pass with no slough window open         0
 *   FLIP_PHASE     trying one's luck outside phase 1                   0
 *   FLIP_RULES     the rules do not allow trying one's luck            0
 *   FLIP_STOCK     trying one's luck needs two stock cards or more     the stock's size
 *   PICK_UP_PHASE  picking up in phase 1                               0
 *   PICK_UP_EMPTY  nothing on the table to pick up                     0
 *   NOT_HELD       the seat does not hold all these cards              the cards not held
 *   SLOUGH_RANK    slough cards not of a rank lying in the trick       those cards
 *   ONE_CARD_COLLECTING  several cards in phase 1, where the rules     the cards
 *                  allow one (several equal cards need trick_mode=ALL
 *                  and multi_card_plays)
 *   ONE_CARD_SHEDDING    several cards in phase 2 without runs         the cards
 *   MIXED_RANKS    phase 1: cards played together of different ranks   the cards
 *   NOT_A_RUN      phase 2: cards that are not consecutive cards of    the cards
 *                  one suit
 *   DOES_NOT_BEAT  phase 2: the (lowest) card does not beat the top    the top card's bit
 *                  card of the table (higher in its suit, or a trump
 *                  on a card that is not)
 * The numbers are stable; new reasons are added at the end. */
#define SG_ILLEGAL_VALUES(V)                                                                       \
    V(SG_ILLEGAL_NONE, 0, "none")                                                                  \
    V(SG_ILLEGAL_GAME_OVER, 1, "game_over")                                                        \
    V(SG_ILLEGAL_MALFORMED, 2, "malformed")                                                        \
    V(SG_ILLEGAL_WINDOW_OPEN, 3, "window_open")                                                    \
    V(SG_ILLEGAL_NO_WINDOW, 4, "no_window")                                                        \
    V(SG_ILLEGAL_FLIP_PHASE, 5, "flip_phase")                                                      \
    V(SG_ILLEGAL_FLIP_RULES, 6, "flip_rules")                                                      \
    V(SG_ILLEGAL_FLIP_STOCK, 7, "flip_stock")                                                      \
    V(SG_ILLEGAL_PICK_UP_PHASE, 8, "pick_up_phase")                                                \
    V(SG_ILLEGAL_PICK_UP_EMPTY, 9, "pick_up_empty")                                                \
    V(SG_ILLEGAL_NOT_HELD, 10, "not_held")                                                         \
    V(SG_ILLEGAL_SLOUGH_RANK, 11, "slough_rank")                                                   \
    V(SG_ILLEGAL_ONE_CARD_COLLECTING, 12, "one_card_collecting")                                   \
    V(SG_ILLEGAL_ONE_CARD_SHEDDING, 13, "one_card_shedding")                                       \
    V(SG_ILLEGAL_MIXED_RANKS, 14, "mixed_ranks")                                                   \
    V(SG_ILLEGAL_NOT_A_RUN, 15, "not_a_run")                                                       \
    V(SG_ILLEGAL_DOES_NOT_BEAT, 16, "does_not_beat")

enum sg_illegal { SG_ILLEGAL_VALUES(SG_ENUM_CONSTANT) };

/* Whether `move` is legal for the player to move and, if not, why: returns
 * SG_ILLEGAL_NONE exactly when the move is one of sg_legal_moves, else the
 * first reason that applies, and writes its detail (above) to *detail when
 * detail is not NULL.  Any 64-bit value may be asked about. */
int sg_why_illegal(const sg_state *st, sg_move move, uint64_t *detail);

/* The lower-case name of a reason ("not_held"), or NULL past the last one:
 * a binding can list every reason it must explain. */
const char *sg_illegal_name(int reason);

/* Applies a move after checking it is legal (with sg_why_illegal); the state
 * is untouched when it is not.  Returns SG_ERROR_NONE, SG_ERROR_OVER when the
 * game is over, or SG_ERROR_ILLEGAL. */
int sg_apply(sg_state *st, sg_move move, sg_events *ev);

/* Applies a move known to be legal (from sg_legal_moves). */
void sg_apply_unchecked(sg_state *st, sg_move move, sg_events *ev);

/* ---- what a seat sees, and how a game ended --------------------------------- */

/* The cards `seat` cannot place (docs/rules.md §8) and, in slots[], how many of
 * them each seat holds (slots[seat] = 0), then the stock (slots[4]) and the
 * hidden card (slots[5]).  Returns the unknown mask. */
uint64_t sg_unknown(const sg_state *st, uint8_t seat, uint8_t slots[SG_MAX_PLAYERS + 2]);

/* Everything one seat may see of a game (docs/rules.md §8), by name: what crosses
 * to Python's Observation.  Fixed size, no pointers.  Arrays indexed by seat
 * hold zeros beyond `players`; unused table entries are zero.  The seat's
 * legal moves are not in it: ask sg_legal_moves when it is to move. */
typedef struct sg_observation {
    uint64_t hand;                      /* the seat's hand (phase 2: every card it holds) */
    uint64_t collection;                /* the seat's phase-1 collection */
    uint64_t out_of_play;               /* cards removed from the game */
    uint64_t unknown;                   /* the cards the seat cannot place */
    uint64_t known[SG_MAX_PLAYERS];     /* per seat, the cards the seat can place with it
                                           (its own: hand | collection) */
    uint64_t table_cards[SG_NCARDS];    /* the plays on the table, bottom first */
    uint32_t moves_played;              /* moves played so far */
    uint8_t seat;                       /* whose observation this is */
    uint8_t players;
    uint8_t phase;                      /* enum sg_phase */
    uint8_t to_move;                    /* SG_NO_SEAT when the game is over */
    uint8_t dealer;
    uint8_t trump;                      /* once every player knows it, else SG_NO_SUIT */
    uint8_t upcard;                     /* trump=UPCARD: the up-card while it lies in the
                                           stock, else SG_NO_CARD */
    uint8_t slough_winner;              /* the trick's winner while a slough window is
                                           open, else SG_NO_SEAT */
    uint8_t hidden_holder;              /* beside whom the face-down last card lies, while
                                           it does, else SG_NO_SEAT */
    uint8_t stock_size;                 /* cards left in the stock */
    uint8_t stock_slots;                /* unknown cards in the stock */
    uint8_t hidden_slots;               /* 1 while the face-down last card is unknown */
    uint8_t n_table_plays;              /* entries of table_cards / table_seat */
    uint8_t n_finished;                 /* entries of finished */
    uint8_t hand_sizes[SG_MAX_PLAYERS];
    uint8_t collection_sizes[SG_MAX_PLAYERS];
    uint8_t unknown_slots[SG_MAX_PLAYERS]; /* per seat, its cards unknown to this seat
                                              (0 for itself) */
    uint8_t finished[SG_MAX_PLAYERS];   /* seats that are out, in the order they went out */
    uint8_t table_seat[SG_NCARDS];      /* who made each play of table_cards */
    uint8_t reserved[2];                /* zero */
} sg_observation;

#define SG_OBSERVATION_BYTES(m) SG_MEMBER_SIZE(sg_observation, m)
SG_STATIC_ASSERT(sizeof(sg_observation) ==
                     8 * 4 + SG_OBSERVATION_BYTES(known) + SG_OBSERVATION_BYTES(table_cards) +
                         4 + 14 + 4 * SG_MAX_PLAYERS + SG_OBSERVATION_BYTES(table_seat) +
                         SG_OBSERVATION_BYTES(reserved),
                 sg_observation_has_no_hidden_padding);
SG_STATIC_ASSERT(offsetof(sg_observation, seat) + 14 == offsetof(sg_observation, hand_sizes),
                 sg_observation_byte_members_are_counted);

/* Fills *obs with what `seat` sees, from the state or from seat's view of it
 * (sg_view): both give the same.  Returns SG_ERROR_NONE, or SG_ERROR_SEAT
 * (obs untouched) when seat is not a seat of the game. */
int sg_observe(const sg_state *st, uint8_t seat, sg_observation *obs);

/* How a game ended. */
typedef struct sg_result {
    uint32_t moves;                     /* moves played */
    uint8_t loser;                      /* the skitgubbe; SG_NO_SEAT when the game was
                                           truncated or nobody was left holding cards */
    uint8_t truncated;                  /* 1 when the move cap ended the game */
    uint8_t n_finish;                   /* entries of finish_order */
    uint8_t finish_order[SG_MAX_PLAYERS]; /* the seats that went out, in order, then
                                             the loser if there is one */
    uint8_t reserved[1];                /* zero */
} sg_result;

SG_STATIC_ASSERT(sizeof(sg_result) == 4 + 3 + SG_MAX_PLAYERS + 1, sg_result_has_no_hidden_padding);

/* Fills *result once the game is over and returns SG_ERROR_NONE; before,
 * returns SG_ERROR_NOT_OVER with result untouched. */
int sg_game_result(const sg_state *st, sg_result *result);

/* ---- hidden information and search ------------------------------------------ */

/* In a view: a face-down card the viewer cannot name. */
#define SG_UNKNOWN_CARD 0xFE

/* What `seat` knows, as a state (docs/rules.md §8): other hands keep only the cards
 * every player can place with them (view->unseen[p] counts the rest), the
 * stock keeps only a face-up up-card, the hidden card and a trump not yet
 * public are blanked.  Equal for any two states `seat` cannot tell apart. */
void sg_view(const sg_state *st, uint8_t seat, sg_state *view);

/* Whether `view` is a view as sg_view makes them (of a game going on, or over),
 * or a whole state: returns 0, or the number of the first check that fails.
 * A view from outside the process (a pickled or tampered observation) must
 * pass it, and have a player to move, before sg_sample_world, sg_greedy_move,
 * sg_pimc or sg_ismcts see it; a whole state from outside (a pickled game)
 * must pass the stricter sg_state_check below.  Each check names the field at
 * fault in sg_state_check.  The checks, in order:
 *   1  the rules pass sg_rules_check
 *   2  phase is a phase; to_move is a seat, or SG_NO_SEAT once the game is over
 *   3  stock_top <= stock_len <= 52, table_len and round_start <= 52
 *   4  dealer is a seat; leader, follower, winner, round_first, last_drawer,
 *      hidden_holder and loser are seats or SG_NO_SEAT
 *   5  n_finished <= players and finished[] are seats; trump <= SG_NO_SUIT;
 *      window and round_pending name seats only
 *   6  upcard and hidden_card are cards or SG_NO_CARD (hidden_card also
 *      SG_UNKNOWN_CARD)
 *   7  hands, collections, `out` and `known` hold cards only, none twice;
 *      seats beyond `players` hold nothing and have nothing unseen
 *   8  the table: cards not placed elsewhere, played by seats
 *   9  the stock (stock_top .. stock_len) and the hidden card: cards not placed
 *      elsewhere, or SG_UNKNOWN_CARD
 *   10 the unknown slots (unseen[], unknown stock cards, an unknown hidden
 *      card) are exactly as many as the cards placed nowhere
 * then the relations between fields that play relies on (a seat "holds" a
 * card when its hand or collection has one or unseen[seat] > 0; checks 14 to
 * 20 concern a game going on only):
 *   11 trump_public, end_pending and truncated are 0 or 1; a game going on has
 *      moves < rules.max_moves (so that every game ends)
 *   12 a game going on has no loser and is not truncated; a truncated game has
 *      no loser
 *   13 finished[] are distinct seats, none the loser; phase 1 has none; in
 *      phase 2 they are exactly the seats that hold no card, and two seats or
 *      more hold cards
 *   14 the player to move has a hand card, named or unseen; leader is a seat
 *   15 known[p] is within p's hand and collection; in phase 1 each hand
 *      (named and unseen cards) within rules.hand_size, in phase 2 no
 *      collections
 *   16 an up-card only under trump=UPCARD, where it is the public trump and
 *      lies at the bottom of the stock while the stock lasts
 *   17 phase 2: the stock is empty; no hidden card, pending end, round or
 *      slough window; the trump is public
 *   18 phase 2, the trick: table_play[] counts plays from 0 in steps of 0 or
 *      1; with the table empty trick_target and trick_turns are 0, else
 *      2 <= trick_target <= players and the trick is not yet complete (no play
 *      number + 1 (COUNT) or trick_turns (ROTATION) has reached the target)
 *   19 phase 1, the stock: last_drawer is a seat exactly when the stock is
 *      empty; end_pending is 0; a hidden card only under last_card=HIDDEN,
 *      with the stock empty and hidden_holder = last_drawer; an up-card
 *      exactly under trump=UPCARD
 *   20 phase 1, the trick.  DUEL: no round and no window, follower is the
 *      leader's left neighbour, and to_move is the follower when the table
 *      holds an odd number of cards, else the leader.  ALL: round_start <=
 *      table_len; with a slough window open (slough rule only) no round is
 *      pending, winner is a seat and to_move is in the window; else to_move
 *      is in round_pending.  (Phase-1 play numbers only tell plays apart.)
 * A state that passes, played on with legal moves, keeps passing, and neither
 * the moves, the search nor the sampling read out of bounds on it (the fuzz
 * harness tests/fuzz/fuzz_core.c checks both).  The numbers are stable; new
 * checks are added at the end. */
int sg_view_check(const sg_state *view);

/* Whether `st` is a whole state of a game as the engine makes them (no
 * unknown slots): returns 0, or the number of the first check that fails,
 * with *field (if not NULL) set to the name of the sg_state member at fault
 * (a static string: "table_len", "follower", "hand" ...; "rules" for the
 * rules or their spare bytes, "cards" when a card lies nowhere), or NULL when
 * the state passes.  A state from outside the process (an unpickled game)
 * must pass it before anything else reads it.  It runs the checks of
 * sg_view_check in order, with these differences: a whole state names every
 * card (6: hidden_card is never SG_UNKNOWN_CARD; 7: unseen[] is all zero; 9:
 * no stock card is SG_UNKNOWN_CARD; so 10 means every card of the deck lies
 * in exactly one place), then:
 *   21 the spare bytes (rules.reserved, reserved) are zero
 *   22 known[p] is within p's hand and collection, and holds the whole
 *      collection (it is public), in every phase; seats beyond `players`
 *      know nothing; moves <= rules.max_moves
 *   23 phase 1, the trump: public exactly under trump=UPCARD; otherwise
 *      SG_NO_SUIT, or under trump=LAST_CARD the hidden card's suit once it
 *      is drawn; under last_card=HIDDEN an empty stock has left a hidden
 *      card (unless the last card was the up-card); hidden_holder is
 *      SG_NO_SEAT while there is no hidden card
 *   24 phase 1: trick_target and trick_turns are 0; round_first is a seat;
 *      follower is the leader's left neighbour; under DUEL the table's cards
 *      were laid by the leader and the follower in turn
 *   25 a game over and not truncated: at most one seat holds cards, and it
 *      is the loser (SG_NO_SEAT: none); the others are all in finished[]; no
 *      stock, hidden card, round, slough window or pending end is left
 *   26 a truncated game has reached the move cap
 * A state that passes, played on with legal moves, keeps passing, and no
 * function of this header reads or writes out of bounds on it
 * (tests/c/core_check.c tampers with every byte of real states under the
 * sanitizers to check this).  The numbers are stable; new checks are added
 * at the end. */
int sg_state_check(const sg_state *st, const char **field);

/* A state consistent with a view: the cards the view does not place are dealt
 * uniformly at random into its unknown slots (the unseen cards of each hand,
 * the stock, the hidden card).  A state without unknowns is copied as is. */
void sg_sample_world(const sg_state *view, sg_rng *rng, sg_state *world);

/* ---- exact worlds (docs/rules.md §8, docs/bots.md "Sampled worlds") ---------- */

/* What a seat's history proves about another seat's unseen cards, beyond their
 * number: under the slough window (§4.4) and the low-card rule (§5.4) some
 * public facts show that a player held no card of some ranks, or at least one.
 * Each unseen card sits in a slot (a card its holder was dealt or drew, which
 * the viewer did not see); a slot may be barred from ranks, and a need says
 * that one of some slots holds a card of some ranks.  Which slot a played card
 * left is hidden, so a seat's unseen cards may lie in one of several cases,
 * each weighted by the number of ways the history leads to it.  The Python
 * package reads these from a seat's history (skitgubbe.game.worlds). */
#define SG_BELIEF_SLOTS 5   /* a seat's unseen cards: at most a phase-1 hand */
#define SG_BELIEF_NEEDS 8   /* needs of one case */
#define SG_BELIEF_CASES 128 /* cases of one seat */

typedef struct sg_belief_case {
    double weight;                        /* > 0, relative to the seat's other cases */
    uint16_t forbid[SG_BELIEF_SLOTS];     /* bit r: slot j holds no card of rank r */
    uint16_t need_ranks[SG_BELIEF_NEEDS]; /* need k: a slot of need_slots[k] holds */
    uint8_t need_slots[SG_BELIEF_NEEDS];  /*   a card of need_ranks[k] (bit j: slot j) */
    uint8_t n_slots;                      /* the seat's unseen cards (view->unseen) */
    uint8_t n_needs;
    uint8_t reserved[4];                  /* zero */
} sg_belief_case;

SG_STATIC_ASSERT(sizeof(sg_belief_case) == 48, sg_belief_case_has_no_hidden_padding);

/* Per seat, its cases; a seat with none is dealt uniformly (as sg_sample_world). */
typedef struct sg_belief {
    uint16_t n_cases[SG_MAX_PLAYERS];
    uint8_t reserved[8]; /* zero */
    sg_belief_case cases[SG_MAX_PLAYERS][SG_BELIEF_CASES];
} sg_belief;

SG_STATIC_ASSERT(sizeof(sg_belief) == 16 + SG_MAX_PLAYERS * SG_BELIEF_CASES * 48,
                 sg_belief_has_no_hidden_padding);

/* Whether `belief` fits `view` (a view that passes sg_view_check): 0, or the
 * number of the first check that fails:
 *   1  n_cases[p] <= SG_BELIEF_CASES for each seat, 0 beyond the players
 *   2  each case of seat p has n_slots == view->unseen[p] (> 0),
 *      n_needs <= SG_BELIEF_NEEDS, need slots among its n_slots slots, forbid
 *      and need ranks within the 13 ranks, and a finite weight > 0
 *   3  some case of every seat with cases can be dealt from the cards the
 *      view does not place (its slots' allowed cards suffice, counting the
 *      slots that earlier seats must fill from them) */
int sg_belief_check(const sg_state *view, const sg_belief *belief);

/* Outcomes of sg_sample_belief. */
enum sg_sample {
    SG_SAMPLE_EXACT = 0,    /* drawn from the exact distribution */
    SG_SAMPLE_FALLBACK = 1, /* consistent with the belief, but the rejection
                               sampler gave up (SG_SAMPLE_TRIES proposals):
                               the last proposal that respects every fact */
    SG_SAMPLE_UNIFORM = 2   /* no proposal respected the facts (or the belief
                               does not fit the view): sg_sample_world's world */
};
#define SG_SAMPLE_TRIES 256

/* A world consistent with `view` and `belief` (NULL: sg_sample_world), drawn
 * from the exact distribution: every deal of the unknown cards that respects
 * the belief's slots and needs is equally likely, weighted by its case's
 * weight.  Rejection sampling: each seat's case is drawn in proportion to its
 * weight times a bound on the ways to fill its slots, the slots are dealt
 * from their allowed cards, tightest first, and the proposal is kept with
 * probability (the ways it had) / (the bound); the stock, the hidden card and
 * seats without cases take the rest uniformly.  Returns enum sg_sample. */
int sg_sample_belief(const sg_state *view, const sg_belief *belief, sg_rng *rng,
                     sg_state *world);

/* A sensible rule-based move for the player to move, using only what he
 * knows (his hand and public information): GreedyBot, and rollouts. */
sg_move sg_greedy_move(const sg_state *st);

enum sg_policy { SG_POLICY_RANDOM = 0, SG_POLICY_GREEDY = 1, SG_POLICY_MIXED = 2 };

/* ---- policies and evaluations of the caller's own (skitgubbe_policy.h) ---- */

/* What a search rolls out with: the built-in policy `builtin` (enum sg_policy),
 * or `choose` when it is not NULL; and, when `evaluate` is not NULL, that
 * evaluation before each rollout move (skitgubbe_policy.h says what both
 * return).  The search writes `error` (enum sg_policy_error) and `detail`
 * (the value returned) when one of them fails, and stops at once. */
typedef struct sg_net sg_net; /* a learned policy and value: see "the network" below */

/* What a search rolls out with (continued): when `net` is not NULL, ISMCTS
 * chooses in its tree by PUCT with the network's move probabilities as priors
 * (sg_ismcts_with says how), and when `net_leaf` is not 0 and there is no
 * `choose` nor `evaluate`, it scores each new leaf with the network's values
 * instead of a rollout.  PIMC ignores both (give it sg_net_evaluate). */
typedef struct sg_search_policy {
    int32_t builtin;
    int32_t error;
    sg_policy_fn choose;
    void *choose_ctx;
    sg_evaluate_fn evaluate;
    void *evaluate_ctx;
    int64_t detail;
    const sg_net *net;
    int32_t net_leaf;
    int32_t reserved; /* zero */
} sg_search_policy;

enum sg_policy_error {
    SG_POLICY_ERROR_NONE = 0,
    SG_POLICY_ERROR_FAILED = 1,         /* the policy returned a negative number */
    SG_POLICY_ERROR_OUT_OF_RANGE = 2,   /* the policy returned an index >= the number of moves */
    SG_POLICY_ERROR_EVAL_FAILED = 3,    /* the evaluation returned a negative number */
    SG_POLICY_ERROR_EVAL_RETURN = 4,    /* the evaluation returned something but 0, 1 or < 0 */
    SG_POLICY_ERROR_EVAL_VALUE = 5      /* a value not in [0, 1] (detail: the seat) */
};

/* The table of accessors a policy reads its position through. */
const sg_policy_api *sg_policy_api_table(void);

/* Plays `st` on with `policy` (MIXED: greedy, a random move one time in
 * four) for at most `cap` moves (0: to the end) and writes each seat's
 * reward: 1 for a seat that is not the skitgubbe, 0 for the skitgubbe; when
 * the game does not end within the cap, 0 for the seats holding the most
 * cards and 1 for the others. */
void sg_rollout(sg_state *st, int policy, uint32_t cap, sg_rng *rng,
                double reward[SG_MAX_PLAYERS]);

/* sg_rollout with `policy` (sg_search_policy); returns SG_POLICY_ERROR_NONE, or the
 * error it also writes into policy->error (the rewards are then all 0). */
int sg_rollout_with(sg_state *st, sg_search_policy *policy, uint32_t cap, sg_rng *rng,
                    double reward[SG_MAX_PLAYERS]);

/* Perfect-information Monte Carlo: for each legal move of the player to move
 * in `view`, the mean reward of that player over `worlds` sampled worlds and
 * `rollouts` rollouts each.  Writes the moves and their scores; returns how
 * many.  Any parameter value is safe: with `worlds` or `rollouts` 0 or
 * negative nothing is sampled and every score is 0; a `policy` that is not
 * an enum sg_policy value plays random rollouts. */
int sg_pimc(const sg_state *view, int worlds, int rollouts, int policy, uint32_t cap,
            uint64_t seed, sg_move moves[SG_MAX_MOVES], double scores[SG_MAX_MOVES]);

/* sg_pimc rolling out with `policy`; returns -1 when the policy or the
 * evaluation failed (policy->error says how). */
int sg_pimc_with(const sg_state *view, int worlds, int rollouts, sg_search_policy *policy,
                 uint32_t cap, uint64_t seed, sg_move moves[SG_MAX_MOVES],
                 double scores[SG_MAX_MOVES]);

typedef struct sg_ismcts_params {
    double seconds;       /* stop after this many seconds of wall time (0: no limit) */
    double exploration;   /* UCB constant, >= 0 */
    uint64_t seed;
    uint32_t iterations;  /* stop after this many (0: no limit) */
    uint32_t rollout_cap; /* rollout length cap (0: none) */
    int32_t policy;       /* rollout policy, enum sg_policy */
    uint32_t solver;      /* solve leaves of at most this many cards in hands (0: never) */
    uint32_t flags;       /* SG_ISMCTS_* bits; others are ignored (keep them zero) */
    uint32_t reserved;    /* zero */
} sg_ismcts_params;

/* Flags of sg_ismcts_params: play equivalent moves as one (sg_merge_moves), in
 * the tree and in the rollouts' random moves. */
#define SG_ISMCTS_MERGE 1u

SG_STATIC_ASSERT(sizeof(sg_ismcts_params) == 48, sg_ismcts_params_has_no_hidden_padding);

typedef struct sg_ismcts_stats {
    uint32_t iterations;
    uint32_t nodes;
    double seconds;
} sg_ismcts_stats;

SG_STATIC_ASSERT(sizeof(sg_ismcts_stats) == 16, sg_ismcts_stats_has_no_hidden_padding);

/* Single-observer information-set MCTS from the point of view of the player
 * to move in `view`, with per-player rewards; returns the most visited move
 * (0 with no legal move; SG_ERROR_* never).  Writes the root's moves and their
 * visit counts when `moves`/`visits` are not NULL, and returns their number in
 * *n_moves.
 *
 * The search stops at whichever budget it reaches first: `iterations`, or
 * `seconds` measured on a monotonic wall clock (clock_gettime(CLOCK_MONOTONIC);
 * QueryPerformanceCounter on Windows; clock() where neither exists), so a
 * search takes its budget in real time whatever other threads do, and
 * stats->seconds is the time it actually took.  With one legal move, or no
 * budget, it does not search and returns the first legal move.
 *
 * Any parameter value is safe (reads nothing out of bounds, and returns
 * unless a finite budget is too large to reach): an `exploration` that is
 * negative or NaN is taken as 0; +infinity is allowed (a tie or a NaN score
 * goes to the first child available); a `seconds` that is not both
 * positive and finite (0, negative, NaN, +infinity) sets no time limit, so
 * with `iterations` 0 too there is no budget; a `policy` that is not an enum
 * sg_policy value plays random rollouts; unknown `flags` bits are ignored.  The
 * tree stops growing when
 * memory (or its 32-bit node ids) runs out and the search goes on with
 * rollouts from its leaves.
 *
 * With `solver` > 0, a leaf whose world is phase 2 with two players holding
 * cards, at most `solver` cards between them, is solved (sg_solve, at most
 * SG_ISMCTS_SOLVE_BUDGET positions, one table for the whole search) instead
 * of rolled out: its rewards are exact, 0 for the seat that ends as the
 * skitgubbe with best play and 1 for the others (1 for all in a draw, which
 * the move cap ends with no loser); when the budget runs out first, or the
 * solver's memory cannot be had, the leaf is rolled out, and for the rest of
 * the search only leaves with fewer cards than that one are solved (so a
 * bound set too high costs one budget, not one a leaf).  A network's leaf
 * values give way to the solver too. */
#define SG_ISMCTS_SOLVE_BUDGET 2000
sg_move sg_ismcts(const sg_state *view, const sg_ismcts_params *params, sg_ismcts_stats *stats,
                  sg_move moves[SG_MAX_MOVES], uint32_t visits[SG_MAX_MOVES], int *n_moves);

/* sg_ismcts rolling out with `policy` instead of params->policy (NULL: that
 * one).  When the policy or the evaluation fails the search stops at once and
 * returns 0, with policy->error saying how. */
sg_move sg_ismcts_with(const sg_state *view, const sg_ismcts_params *params,
                       sg_search_policy *policy, sg_ismcts_stats *stats,
                       sg_move moves[SG_MAX_MOVES], uint32_t visits[SG_MAX_MOVES], int *n_moves);

/* sg_ismcts_with that also writes, when `rewards` is not NULL, each root move's
 * total reward for the player to move over its visits (0 for a move never
 * expanded): rewards[i] / visits[i] is the search's estimate of that player's
 * chance of not being the loser after moves[i] (what an analysis reads). */
sg_move sg_ismcts_rewards(const sg_state *view, const sg_ismcts_params *params,
                          sg_search_policy *policy, sg_ismcts_stats *stats,
                          sg_move moves[SG_MAX_MOVES], uint32_t visits[SG_MAX_MOVES],
                          double rewards[SG_MAX_MOVES], int *n_moves);

/* ---- the endgame solver (solve.c) ------------------------------------------------ */

/* An exact solver for phase 2 with two players holding cards and every card
 * known (a real state or a sampled world): who ends as the skitgubbe when
 * both play their best.  With two players phase 2 is a game of complete
 * information (docs/rules.md §8), so its value for the player to move is
 * WIN (the other player can be made the skitgubbe), LOSS, or DRAW: neither
 * can force the other to lose, and play goes on until the move cap ends the
 * game with no loser (docs/rules.md §6.8).
 *
 * The search: null-window (boolean) alpha-beta proofs, "can the player to
 * move win?" then "can he avoid losing?", with moves ordered by the
 * table's best move, then a move that goes out, the greedy policy's move and
 * the cheapest plays; a transposition table keyed exactly by the position
 * (each hand, the table's cards with who laid each (ROTATION) or where each
 * play starts (COUNT), the player to move, the trick's target and turns),
 * its cards named by their rank among the cards still in play (the order of
 * ranks is all that matters, and with runs whether two are consecutive).
 *
 * Cycles: pick-ups put cards back into hands, so positions can repeat.  A
 * position repeated on the search path counts as a draw.  A WIN or LOSS so
 * proved never rests on a repetition, and the root's value equals the game's
 * (a winner's fastest strategy never repeats a position); a draw or a bound
 * that rests on the repetition of a position above the node is path-dependent
 * and never stored.  The move cap is exact: a WIN or LOSS is stored with the
 * number of moves it needs and used only where that many moves remain.
 *
 * Memory: a solver lives in one buffer of the caller's (no allocation, no
 * global state), its transposition table kept between calls while the rules,
 * the trump and the two seats stay the same (cleared when they change).  One
 * thread at a time per solver; do not move or copy the buffer. */
#define SG_SOLVE_MAX_DEPTH 400

enum sg_solve_value {
    SG_SOLVE_VALUE_LOSS = -1,   /* the player to move ends as the skitgubbe */
    SG_SOLVE_VALUE_DRAW = 0,    /* nobody can be made to lose: the move cap ends the game */
    SG_SOLVE_VALUE_WIN = 1,     /* the other player ends as the skitgubbe */
    SG_SOLVE_VALUE_UNKNOWN = 2  /* the search stopped first (`stop` says why) */
};

enum sg_solve_stop {
    SG_SOLVE_STOP_NONE = 0,
    SG_SOLVE_STOP_BUDGET = 1,  /* the node budget ran out */
    SG_SOLVE_STOP_DEPTH = 2,   /* a line longer than SG_SOLVE_MAX_DEPTH moves */
    SG_SOLVE_STOP_MEMORY = 3   /* the solver's room for moves on the search path ran out */
};

typedef struct sg_solve_result {
    uint64_t nodes;  /* positions searched */
    sg_move best;    /* a move that achieves `value` (LOSS: the one that loses last found);
                        0 when the value is unknown */
    uint32_t length; /* WIN or LOSS: the game ends within this many moves when the
                        winner plays the solver's line (an upper bound, not always the
                        fastest), else 0 */
    int8_t value;    /* enum sg_solve_value, for the player to move */
    uint8_t to_move;
    uint8_t loser;   /* WIN or LOSS: the seat that ends as the skitgubbe, else SG_NO_SEAT */
    uint8_t stop;    /* enum sg_solve_stop */
} sg_solve_result;

SG_STATIC_ASSERT(sizeof(sg_solve_result) == 24, sg_solve_result_has_no_hidden_padding);

typedef struct sg_solver sg_solver;

/* The bytes a solver with a table of `entries` entries (at least 2, rounded
 * down to a power of two) needs: 64 bytes an entry and a workspace of about
 * 250 kB (the search path), the whole of the memory it uses. */
size_t sg_solver_size(uint32_t entries);

/* Makes a solver in buffer[0 .. bytes) (any alignment), with a table of as
 * many entries as fit (a power of two); NULL when they are fewer than 2. */
sg_solver *sg_solver_init(void *buffer, size_t bytes);

/* Entries in the solver's table. */
uint32_t sg_solver_entries(const sg_solver *solver);

/* Forgets every entry of the table. */
void sg_solver_clear(sg_solver *solver);

/* Whether the solver can take `st`: SG_ERROR_NONE for a phase-2 state with
 * exactly two seats holding cards, no hidden card (sg_view_check passes and
 * no hand holds unseen cards) and a table laid by the rules (each card beats
 * the one below it, plays numbered from 0); SG_ERROR_OVER for a game over;
 * SG_ERROR_POSITION otherwise. */
int sg_solvable(const sg_state *st);

/* Solves `st` for the player to move, searching at most `budget` positions
 * (the value is UNKNOWN past it).  Returns sg_solvable's error (and leaves
 * *result zeroed but `value` UNKNOWN) or SG_ERROR_NONE. */
int sg_solve(sg_solver *solver, const sg_state *st, uint64_t budget, sg_solve_result *result);

/* sg_solve and the value of every legal move: moves[i], values[i] (enum
 * sg_solve_value for the player to move) and lengths[i] (as result->length,
 * counting the move), in sg_legal_moves' order, *n_moves of them.  Each move
 * is solved as a position of its own; the budget is shared, so once it runs
 * out the remaining moves are UNKNOWN.  `result` is the best of them: WIN
 * with the fewest moves, else DRAW, else LOSS with the most. */
int sg_solve_moves(sg_solver *solver, const sg_state *st, uint64_t budget,
                   sg_solve_result *result, sg_move moves[SG_MAX_MOVES],
                   int8_t values[SG_MAX_MOVES], uint32_t lengths[SG_MAX_MOVES], int *n_moves);

/* ---- playouts ------------------------------------------------------------------ */

/* How ISMCTS plays its built-in rollouts (sg_ismcts_search): */
enum sg_playout_kind {
    SG_PLAYOUT_KIND_PLAIN = 0, /* the policy's own moves */
    SG_PLAYOUT_KIND_MAST = 1,  /* the moves not the greedy one drawn by MAST (below) */
    SG_PLAYOUT_KIND_NAST = 2   /* ... by NAST: MAST over pairs of consecutive moves */
};

/* The default Gibbs temperature of MAST and NAST (tuned: docs/strength.md). */
#define SG_PLAYOUT_TEMPERATURE 0.1

/* The settings of a search's playouts, beyond its policy.
 *
 * random_fraction: under SG_POLICY_MIXED, the chance that a rollout move is
 *   not the greedy one (0.25: one time in four, the default; 0 plays greedy
 *   rollouts, 1 random ones).  The draw is the one sg_rollout makes, so 0.25
 *   plays exactly sg_rollout's moves for a seed.  Other policies ignore it.
 * kind (enum sg_playout_kind): with MAST (the move-average sampling technique,
 *   Finnsson and Bjornsson 2008), the search keeps for each move key (the
 *   phase, the kind of move, a play of several cards apart, and its card of
 *   highest rank) the mean reward of the player who made it over every move
 *   of every iteration so far, in the tree and in the rollouts; a rollout
 *   move that is not the greedy one (a random one, under SG_POLICY_RANDOM
 *   every move) is drawn with probability proportional to
 *   exp(mean / temperature) instead of uniformly (a key never seen yet gets
 *   the mean 1 - 1 / players).  NAST (Powley, Whitehouse and Cowling 2013)
 *   keeps the means of pairs of consecutive moves too and uses a pair's once
 *   it was seen SG_NAST_MIN_VISITS times, the move's own before.  The
 *   tables live in the search and die with it.
 * temperature: of the draw above, > 0; 0 (or NaN, or negative) always takes
 *   the best mean (the first such), +infinity draws uniformly.
 * blend: PUCT with the network's leaf values (sg_search_policy.net_leaf)
 *   scores a new leaf blend * the network's values + (1 - blend) * a
 *   rollout's rewards; 1 (the default) is the network alone, without a
 *   rollout.  Outside [0, 1] it is clamped (NaN: 1).
 * reserved: zero.
 * Any value is safe: a random_fraction below 0 (or NaN) is 0 and above 1 is 1;
 * a kind that is not an enum sg_playout_kind value is SG_PLAYOUT_KIND_PLAIN.  A
 * search that cannot get the memory of its MAST or NAST tables plays plain
 * rollouts.  A search with a policy of the caller's own (choose, evaluate)
 * rolls out with it and reads only blend. */
typedef struct sg_playout {
    double random_fraction;
    double temperature;
    double blend;
    int32_t kind;
    uint32_t reserved;
} sg_playout;

SG_STATIC_ASSERT(sizeof(sg_playout) == 32, sg_playout_has_no_hidden_padding);

/* The pair visits from which NAST uses a pair's mean rather than the move's. */
#define SG_NAST_MIN_VISITS 4

/* Writes the default settings (plain mixed rollouts as sg_rollout plays them). */
void sg_playout_defaults(sg_playout *playout);

/* sg_ismcts_rewards with the playout settings `playout` (NULL: the defaults,
 * which sg_ismcts_rewards uses), sampling its worlds with sg_sample_belief
 * from `belief` (NULL: sg_sample_world, as sg_ismcts_rewards; a belief that
 * fails sg_belief_check is ignored the same way).  With SG_ISMCTS_MERGE in
 * params->flags, only one move of each class of equivalent moves is searched
 * (sg_merge_moves), in the tree and among the rollouts' random moves: the
 * others keep 0 visits at the root. */
sg_move sg_ismcts_search(const sg_state *view, const sg_belief *belief,
                         const sg_ismcts_params *params, sg_search_policy *policy,
                         const sg_playout *playout, sg_ismcts_stats *stats,
                         sg_move moves[SG_MAX_MOVES], uint32_t visits[SG_MAX_MOVES],
                         double rewards[SG_MAX_MOVES], int *n_moves);

/* sg_pimc_with sampling its worlds from `belief` as sg_ismcts_search does. */
int sg_pimc_search(const sg_state *view, const sg_belief *belief, int worlds, int rollouts,
                   sg_search_policy *policy, uint32_t cap, uint64_t seed,
                   sg_move moves[SG_MAX_MOVES], double scores[SG_MAX_MOVES]);

/* Reduces the legal moves `moves[0 .. n)` of `st` (as sg_legal_moves writes
 * them) to one move of each class of equivalent moves, in place and in order,
 * and returns how many are left.  In phase 2, single-card plays of one suit
 * with no card in play (not out of play) between them form a class, and its
 * lowest card stands for it; under runs=True or pickup=TOP_RUN, where the rank
 * next to a card matters, a class is a block of consecutive ranks held by the
 * mover whose outer neighbours are out of play, and only its top end (and the
 * runs up to its top end) give way to its bottom end (and the runs from it).
 * Phase 1, pick-ups and other moves are kept.  The classes are equivalent
 * but for one case: when the played card later meets the one kept, where
 * playing the lowest card leaves the mover every option and more (docs/bots.md
 * "Equivalent moves"). */
int sg_merge_moves(const sg_state *st, sg_move moves[SG_MAX_MOVES], int n);

/* ---- integer actions ---------------------------------------------------------- */

/* One fixed numbering of every move under every rule variant, for learners:
 * SG_NUM_ACTIONS ids, the same for 2-4 players.  A card's index is
 * suit * 13 + rank (clubs two = 0 .. spades ace = 51).
 *
 *   [0, 52)      play one card, by card index
 *   [52, 195)    play two or more equal cards: 52 + rank * 11 + i, where i
 *                numbers the sets of suits {C,D}, {C,H}, {D,H}, {C,D,H}, {C,S},
 *                {D,S}, {C,D,S}, {H,S}, {C,H,S}, {D,H,S}, {C,D,H,S} (ascending
 *                as 4-bit masks, clubs the lowest bit)
 *   [195, 507)   play a run: 195 + suit * 78 + (runs of that suit starting at a
 *                lower rank) + length - 2; a run from rank r has lengths 2 ..
 *                13 - r, so 12 - r of them
 *   507          flip (try your luck)
 *   508          pick up
 *   509          pass (the slough window)
 *   [510, 562)   add one card, by card index, to the slough being chosen
 *   562          throw the slough chosen
 *
 * A slough (any number of cards, of several ranks) takes several actions:
 * its cards added one at a time in ascending card index, then 562; so each
 * slough has exactly one path.  The cards chosen so far (`pending`, a card
 * mask, 0 when none) belong with the state: while a slough is being chosen
 * only its steps are legal. */
#define SG_NUM_ACTIONS 563
#define SG_ACTION_GROUP 52
#define SG_ACTION_GROUPS_PER_RANK 11
#define SG_ACTION_RUN 195
#define SG_ACTION_RUNS_PER_SUIT 78
#define SG_ACTION_FLIP 507
#define SG_ACTION_PICK_UP 508
#define SG_ACTION_PASS 509
#define SG_ACTION_SLOUGH_CARD 510
#define SG_ACTION_SLOUGH_DONE 562
/* The longest path of one move: a slough of every card, then 562. */
#define SG_MAX_ACTION_PATH (SG_NCARDS + 1)
/* Not a move (an action that is a slough step, or out of range). */
#define SG_NO_MOVE UINT64_MAX

/* The move an action plays on its own, or SG_NO_MOVE for the slough steps
 * and ids out of range. */
sg_move sg_action_move(int action);

/* The actions that play `move`, in order: one for most moves, the cards then
 * SG_ACTION_SLOUGH_DONE for a slough.  Returns how many; 0 for a value that
 * is no move of any variant (no action plays it). */
int sg_move_actions(sg_move move, uint16_t actions[SG_MAX_ACTION_PATH]);

/* The legal actions of the player to move with the slough cards `pending`
 * chosen so far, ascending; returns how many (0 when the game is over). */
int sg_legal_actions(const sg_state *st, uint64_t pending, uint16_t actions[SG_NUM_ACTIONS]);

/* The same as a mask: mask[a] = 1 for each legal action a, else 0. */
void sg_action_mask(const sg_state *st, uint64_t pending, uint8_t mask[SG_NUM_ACTIONS]);

/* Takes `action` for the player to move: a slough step changes only
 * *pending; the last step and every other action play their move (with
 * events, as sg_apply).  Returns SG_ERROR_NONE, SG_ERROR_OVER, or
 * SG_ERROR_ILLEGAL with the state and *pending untouched. */
int sg_apply_action(sg_state *st, uint64_t *pending, int action, sg_events *ev);

/* ---- tensors ------------------------------------------------------------------- */

/* What one seat knows as sg_tensor_size() floats, for learners: built from
 * sg_observe only (so it changes with nothing the seat cannot know), the
 * seat's slough being chosen, and the last public moves.  The same size for
 * 2-4 players and every variant.  Seats are relative: r = (p - seat) mod
 * players, 0 the observer.  Cards by index, suit * 13 + rank.
 *
 * 15 card planes of 52 floats (1 where the card is):
 *   0 own hand, 1 own collection, 2-4 the cards the observer can place with
 *   seats r = 1, 2, 3, 5 the cards it cannot place, 6 out of play, 7 every
 *   card on the table, 8 the top play, 9-12 table cards laid by seats r =
 *   0..3, 13 the slough being chosen, 14 the up-card while it is in the stock.
 * SG_TENSOR_RECENT recent moves (sg_public_move), most recent first, 61
 *   floats each (zeros past the start): 52 cards, 4 the mover's r, 5 the
 *   move kind.
 * 64 scalars (counts / 52): 0-2 phase, 3-6 r to move, 7-10 r of the dealer,
 *   11-14 trump suit and 15 trump known, 16-19 seats present, 20-23 hand
 *   sizes, 24-27 collection sizes, 28-31 unknown cards per seat, 32-35 out
 *   (safe), 36-39 place of going out / 4, 40-43 r beside whom the face-down
 *   card lies, 44-47 r of the slough window's winner, 48 window open, 49
 *   stock size, 50 unknown stock cards, 51 face-down card unknown, 52 moves
 *   played / max_moves, 53 (players - 2) / 2, 54 cards in the top play / 13,
 *   55 plays on the table / 52, 56 a slough being chosen, 57-63 zero.
 * The rule fields in table order: an ENUM one float per value (one-hot), an
 *   OPTIONAL_INT two (set, value / max), a BOOL or INT one (value / max; a
 *   range above 255 by log2(value + 1) / log2(max + 1)). */
/* A move as every player saw it: its kind, its mover and the cards it
 * moved (a pick-up: the cards taken; pass: none); the first event of the
 * move (PLAY, FLIP, PICK_UP, SLOUGH or PASS) holds all three. */
typedef struct sg_public_move {
    uint64_t cards;
    uint8_t kind; /* enum sg_move_kind */
    uint8_t seat;
    uint8_t reserved[6]; /* zero */
} sg_public_move;

SG_STATIC_ASSERT(sizeof(sg_public_move) == 16, sg_public_move_has_no_hidden_padding);

#define SG_TENSOR_PLANES 15
#define SG_TENSOR_RECENT 8
#define SG_TENSOR_RECENT_FLOATS (SG_NCARDS + SG_MAX_PLAYERS + 5)
/* The state tensor adds 10 planes: 0-3 each seat's hand, 4-7 collections
 * (absolute seats), 8 the stock, 9 the face-down last card. */
#define SG_STATE_TENSOR_PLANES 10

int sg_tensor_size(void);
int sg_state_tensor_size(void);

/* Writes `seat`'s tensor to out[0 .. sg_tensor_size()), from the state or
 * from seat's view of it (the same).  `pending` is the slough being chosen
 * (ignored unless seat is to move); recent[0 .. n_recent) the last moves,
 * most recent first.  Returns SG_ERROR_NONE, or SG_ERROR_SEAT. */
int sg_observation_tensor(const sg_state *st, uint8_t seat, uint64_t pending,
                          const sg_public_move *recent, int n_recent, float *out);

/* The whole state, for centralised critics only (never a player's input):
 * seat 0's tensor, then SG_STATE_TENSOR_PLANES planes of hidden cards, to
 * out[0 .. sg_state_tensor_size()). */
int sg_state_tensor(const sg_state *st, const sg_public_move *recent, int n_recent, float *out);

/* The public move in a move's events (their first PLAY, FLIP, PICK_UP,
 * SLOUGH or PASS event): returns 1 and fills *move, or 0 when there is none. */
int sg_public_move_of(const sg_event *events, int n, sg_public_move *move);

/* ---- a vector environment ------------------------------------------------------ */

/* Many games stepped by one call, for learners.  Each seat is a learner
 * (SG_VEC_LEARNER: it acts through the actions given to sg_vec_step) or a
 * built-in player (SG_POLICY_RANDOM: uniformly random legal moves;
 * SG_POLICY_GREEDY: sg_greedy_move) that moves inside the step.  Every seat
 * a learner is self-play.  After each step a game's learner to move is
 * given its tensor and action mask; a game that ends reports every seat's
 * reward (the skitgubbe pays each other player 1: -(players - 1) for him, 1
 * for the others; 0 for all when the move cap ends the game or nobody is
 * left holding cards) and is dealt again at once, in the same step: the
 * outputs are then the new game's.  Slot i's e-th deal (a game over before
 * any learner moved is dealt again and counts) is game number
 * e * n_games + i, with the seed sg_game_seed(seed, number), its deck
 * sg_deck_from_seed of it and dealer players - 1, as Game.new(rules,
 * seed=...) deals it; the built-in players draw from a generator seeded by
 * the game's seed.  The environment owns its games (one allocation); the
 * caller owns every output array.  One call at a time: no two threads may
 * be inside calls on the same environment at once (the Python binding
 * refuses the second). */
#define SG_VEC_LEARNER (-1)

typedef struct sg_vec sg_vec;

/* Where a step writes, per game i; any pointer may be NULL (not written). */
typedef struct sg_vec_out {
    float *obs;          /* [i * sg_tensor_size() ...]: the learner to move's tensor */
    uint8_t *masks;      /* [i * SG_NUM_ACTIONS ...]: its legal actions */
    float *rewards;      /* [i * SG_MAX_PLAYERS + seat]: this step's rewards */
    uint8_t *terminated; /* [i]: the game ended with a loser or nobody holding cards */
    uint8_t *truncated;  /* [i]: the move cap ended the game */
    int32_t *seat;       /* [i]: the learner seat to move now */
    uint64_t *seeds;     /* [i]: the seed of the game now in slot i (it deals every hand) */
    uint64_t *games;     /* [i]: the number of the game now in slot i: its seed is
                            sg_game_seed(seed, number); without the environment's seed
                            it tells nothing of the deal */
} sg_vec_out;

/* A new environment of n_games games, or NULL for bad rules, n_games < 1, a
 * policy that is neither SG_VEC_LEARNER nor RANDOM/GREEDY, no learner seat,
 * or no memory.  policies[p] for each seat p < rules->players. */
sg_vec *sg_vec_new(const sg_rules *rules, int32_t n_games, uint64_t seed,
                   const int32_t policies[SG_MAX_PLAYERS]);
void sg_vec_free(sg_vec *env);
int32_t sg_vec_games(const sg_vec *env);

/* Makes the built-in player of `seat` play with `policy->choose` (a policy
 * of skitgubbe_policy.h; NULL: its built-in policy again).  The policy is
 * given a world sampled from that seat's own view (sg_view, then
 * sg_sample_world with the game's generator), never the real state, and its
 * move is played in the game.  The caller keeps `policy` alive and does not
 * share it between threads.  SG_ERROR_SEAT for a learner's seat or one out of
 * range, else SG_ERROR_NONE. */
int sg_vec_set_policy(sg_vec *env, int32_t seat, sg_search_policy *policy);

/* Deals every game afresh (episode 0), seeds every slot's sampler
 * (sg_vec_sample) and writes the outputs (rewards and
 * flags zero).  SG_ERROR_POLICY when a policy of the caller's own failed
 * (its sg_search_policy says how; reset again before stepping), else
 * SG_ERROR_NONE. */
int sg_vec_reset(sg_vec *env, const sg_vec_out *out);

/* Takes actions[i] in game i for its learner to move, lets the built-in
 * players move, deals finished games again, and writes the outputs.  If an
 * action is illegal nothing changes: returns SG_ERROR_ILLEGAL and *bad = the
 * first such game.  If a policy of the caller's own fails, nothing changes
 * either: returns SG_ERROR_POLICY and *bad = that game (its sg_search_policy
 * says how); else SG_ERROR_NONE. */
int sg_vec_step(sg_vec *env, const int32_t *actions, const sg_vec_out *out, int32_t *bad);

/* Writes actions[i], a legal action of game i's learner to move drawn
 * uniformly from its legal actions (its action mask), for every game; nothing
 * else changes.  Slot i draws from a generator of its own, seeded at each
 * reset from the environment's seed and i (apart from the deals), so the
 * draws are the same for the same seed and calls.  SG_ERROR_POSITION (and
 * *bad = a game) before a reset that went through, else SG_ERROR_NONE. */
int sg_vec_sample(sg_vec *env, int32_t *actions, int32_t *bad);

/* Game i's state and (if pending is not NULL) its slough being chosen; NULL
 * for i out of range.  For tests and inspection: the whole state. */
const sg_state *sg_vec_state(const sg_vec *env, int32_t i, uint64_t *pending);

/* ---- the network ------------------------------------------------------------- */

/* A learned policy and value (net.c): a small multilayer perceptron over the
 * mover's observation tensor (sg_observation_tensor with no recent moves and
 * nothing pending), so it reads only what the seat to move knows.  Loaded
 * from a weight file: 48 header bytes (the magic "SGNET\0\0" and
 * SG_NET_FORMAT, then little-endian uint32 inputs, hidden1, hidden2,
 * action, the number of floats, their FNV-1a checksum (sg_net_checksum of
 * the bytes after the header), world1, world2 and 8 reserved bytes, which
 * must be zero), then the weights as little-endian IEEE 754 floats in
 * net.c's order.  A network is read only once loaded: many searches on many
 * threads may share one.
 *
 * Bounds a loader checks, so that what it reads and what it computes stay
 * finite: inputs is sg_tensor_size() (at most SG_NET_MAX_INPUTS); hidden1,
 * hidden2, action, world1 and world2 are 1 .. SG_NET_MAX_WIDTH, so no valid
 * file is longer than sg_net_max_size() bytes (a reader need never read
 * more); every weight is finite; and the weights keep every evaluation
 * finite: every input the network reads (the tensor's floats, the world
 * planes, a move's cards and its card count / 13) lies in
 * [0, SG_NET_INPUT_MAX], and the loader bounds each layer's outputs from
 * that range by absolute sums in double (|bias| + sum of |weight| x the
 * bound of its input), refusing weights for which a bound, the logits'
 * included, exceeds SG_NET_MAX_BOUND (half of FLT_MAX, the rest covering
 * float rounding). */
#define SG_NET_FORMAT 1
#define SG_NET_MAX_WIDTH 1024 /* the largest hidden, action or world layer */
#define SG_NET_MAX_INPUTS 1536 /* the largest tensor a network may read */
/* The largest value of a network input: the tensor's one-hot planes and
 * counts / 52 lie in [0, 1] and its top play's cards / 13, like a move's,
 * in [0, 52 / 13] (tensor.c). */
#define SG_NET_INPUT_MAX 4.0
/* The largest bound of a layer's output a loaded network may have (FLT_MAX / 2). */
#define SG_NET_MAX_BOUND 1.7014117331926443e38
/* The world value's inputs beyond the tensor: the hidden cards (net.c). */
#define SG_NET_WORLD_PLANES 5

enum sg_net_error {
    SG_NET_ERROR_NONE = 0,
    SG_NET_ERROR_SIZE = 1,     /* shorter or longer than its header says */
    SG_NET_ERROR_MAGIC = 2,    /* not a weight file */
    SG_NET_ERROR_FORMAT = 3,   /* a weight file of another format */
    SG_NET_ERROR_INPUTS = 4,   /* made for another tensor size (another core version) */
    SG_NET_ERROR_SHAPE = 5,    /* layer sizes out of range or not matching the count */
    SG_NET_ERROR_CHECKSUM = 6, /* the weights are not the ones written */
    SG_NET_ERROR_VALUE = 7,    /* a weight that is not finite */
    SG_NET_ERROR_MEMORY = 8,
    SG_NET_ERROR_RESERVED = 9, /* a reserved header byte that is not zero */
    SG_NET_ERROR_RANGE = 10    /* weights so large that an evaluation could overflow */
};

/* The size in bytes of the largest valid weight file: every layer
 * SG_NET_MAX_WIDTH wide, for this core's tensor (sg_tensor_size()). */
uint64_t sg_net_max_size(void);

/* Loads a weight file's bytes (copied: the caller may free them); writes the
 * network to *net (NULL on error) and returns SG_NET_ERROR_*. */
int sg_net_load(const uint8_t *bytes, size_t size, sg_net **net);
void sg_net_free(sg_net *net);
/* inputs, hidden1, hidden2, action, world1, world2. */
void sg_net_shape(const sg_net *net, uint32_t shape[6]);
/* FNV-1a, 32 bits. */
uint32_t sg_net_checksum(const uint8_t *bytes, size_t size);

/* Evaluates the network for the player to move in `st` (a view or a world):
 * logits[i] for moves[0 .. n) when `logits` is not NULL, and value[seat],
 * the chance that each seat is not the skitgubbe (1 for a seat that is out,
 * and for seats beyond the players), when `value` is not NULL.  Returns
 * SG_ERROR_SEAT when nobody is to move, else SG_ERROR_NONE. */
int sg_net_run(const sg_net *net, const sg_state *st, const sg_move *moves, int n,
               float *logits, double value[SG_MAX_PLAYERS]);
/* The world value: each seat's chance of not being the skitgubbe in the
 * world `st` (a sampled world: it reads the cards the mover cannot see),
 * as value[seat]; SG_ERROR_SEAT when nobody is to move. */
int sg_net_world_value(const sg_net *net, const sg_state *st, double value[SG_MAX_PLAYERS]);
/* Its inputs: sg_observation_tensor of the mover, then SG_NET_WORLD_PLANES
 * planes of 52 (each other seat's unknown hand cards, r = 1..3 places to the
 * mover's left; the stock; the face-down last card), to out[0 ..
 * sg_tensor_size() + SG_NET_WORLD_PLANES * 52). */
int sg_net_world_features(const sg_state *st, float *out);
/* The index of the largest logit (the first such). */
int sg_net_best(const float *logits, int n);
/* Turns logits into probabilities in place: softmax(logits / temperature). */
void sg_net_softmax(float *logits, int n, double temperature);

/* The network as a policy (its best move) and as an evaluation (its world
 * values, always returned: a rollout stops at once) of skitgubbe_policy.h,
 * with the sg_net as `ctx`; for positions of this core only (-1 otherwise). */
int32_t sg_net_choose(const sg_position *pos, void *net);
int32_t sg_net_evaluate(const sg_position *pos, void *net, double value[4]);

/* Training data for the network's value: plays games first .. first+games-1
 * of the batch `seed` (deck sg_deck_from_seed(sg_game_seed(seed, i)), dealer
 * players - 1) with the built-in `policy` (enum sg_policy) and keeps up to
 * `per_game` (1 .. 64) positions of each, drawn uniformly among those with a
 * choice to make.  For each position it writes the world value's inputs
 * (sg_net_world_features, which begin with the mover's tensor) to
 * features[k * (sg_tensor_size() + SG_NET_WORLD_PLANES * 52) ...], and for each
 * seat r places to the mover's left values[k * 4 + r] = 1 when that seat was
 * not the skitgubbe (0 when it was) and masks[k * 4 + r] = 1, or 0 for seats
 * beyond the players and games the move cap ended.  With `rollouts` > 0
 * (at most 1,024) the values are instead each seat's mean reward over that
 * many rollouts of `policy` from the position (sg_rollout's rewards, the move
 * cap's too), masked only beyond the players.  The arrays hold
 * games * per_game rows.  Returns the rows written, or -1 for bad rules or
 * arguments. */
int32_t sg_outcome_samples(const sg_rules *rules, uint64_t seed, uint64_t first, int32_t games,
                           int32_t per_game, int32_t policy, int32_t rollouts, float *features,
                           float *values, float *masks);

/* ---- whole games in C ------------------------------------------------------ */

typedef struct sg_sim_result {
    uint64_t games;
    uint64_t moves;
    uint64_t losses[SG_MAX_PLAYERS];
    uint64_t no_loser;   /* games over with nobody left holding cards */
    uint64_t truncated;
} sg_sim_result;

SG_STATIC_ASSERT(sizeof(sg_sim_result) == 8 * 8, sg_sim_result_has_no_hidden_padding);

/* Plays games first .. first+count-1 of the batch `seed` with uniformly
 * random legal moves and adds the totals to *out.  Game i uses
 * sg_game_seed(seed, i) as its own seed: its deck and moves both come from
 * sg_rng_seed of it, and its dealer is players - 1. */
void sg_simulate(const sg_rules *rules, uint64_t seed, uint64_t first,
                 uint64_t count, sg_sim_result *out);

#ifdef __cplusplus
}
#endif

#endif /* SKITGUBBE_H */
