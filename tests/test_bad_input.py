"""Bad input gets the specific error, and nothing is lost.

An illegal move raises :class:`IllegalMoveError` naming the move and the legal
moves and leaves the game exactly as it was; bad text raises
:class:`ParseError` naming it; bad rules raise :class:`RulesError` naming the
field; a tampered record raises :class:`RecordError` naming the first bad move;
a misbehaving player in :func:`play_game` raises :class:`PlayerError` with its
seat and leaves the game at that player's turn.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from nesting import nested

from skitgubbe import (
    ArgumentError,
    Card,
    CardSet,
    Game,
    IllegalMoveError,
    Move,
    MoveKind,
    Observation,
    ParseError,
    Phase,
    PlayerError,
    RecordError,
    Rules,
    RulesError,
    SkitgubbeError,
    TrumpRule,
    play_game,
)
from skitgubbe.game.cards import ALL_CARDS

# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def deck(top: str) -> list[str]:
    """52 cards, top first: ``top`` then every other card in code order."""
    first = [str(Card.parse(token)) for token in top.split()]
    return first + [str(card) for card in ALL_CARDS if str(card) not in first]


# Three players, dealer seat 2: seat 0 gets 9♥ 2♠ 3♠, seat 1 2♣ K♦ A♦, seat 2
# 4♠ 5♠ 6♠ (docs/rules.md §2); the stock starts K♠ 4♥ 8♣.
OPENING = deck("9H 2C 4S 2S KD 5S 3S AD 6S KS 4H 8C")


def opening() -> Game:
    return Game.new(Rules.classic(), deck=OPENING)


def state(game: Game) -> tuple[Any, ...]:
    """Everything that must not change when a bad move is refused."""
    return (
        game._core.snapshot(),
        tuple(game.observation(seat) for seat in range(game.players)),
        game.moves,
        game.history,
        game.legal_moves,
        game.to_move,
        game.phase,
    )


def refuse(game: Game, move: object) -> IllegalMoveError:
    """Play ``move``, expect IllegalMoveError, check it and that nothing changed."""
    before = state(game)
    legal = game.legal_moves
    with pytest.raises(IllegalMoveError) as info:
        game.play(move)  # type: ignore[arg-type]
    error = info.value
    message = str(error)
    assert error.legal_moves == legal
    assert error.legal_moves == game.legal_moves
    for legal_move in legal:
        assert str(legal_move) in message
    assert state(game) == before
    return error


def burn_to_one_stock_card(game: Game) -> None:
    """Try your luck until one stock card is left (hands never change, §3.3)."""
    while len(game.stock) > 1:
        game.play(Move.flip())


def shedding() -> Game:
    """Phase 2, trump spades: seat 0 led 9♦; seat 1 holds 2♦ 8♦ 10♦ 3♣."""
    game = Game.from_shedding(
        Rules.classic(), ["9D 4C", "2D 8D 10D 3C", "5C 6C"], trump="S", leader=0
    )
    game.play("9D")
    return game


def finished() -> Game:
    game = Game.from_shedding(Rules.classic(2), ["9D", "JD 2C"], trump="S", leader=0)
    game.play("9D")
    assert game.phase is Phase.OVER
    return game


# ---------------------------------------------------------------------------
# Illegal moves
# ---------------------------------------------------------------------------


def test_a_card_not_in_hand_is_refused() -> None:
    game = opening()
    error = refuse(game, Move.parse("KD"))  # seat 1's card
    assert error.move == Move.parse("KD")
    assert "K♦" in str(error)
    assert set(error.legal_moves) == {Move.parse(m) for m in ("9H", "2S", "3S", "flip")}


def test_a_card_not_in_hand_given_as_text_is_refused() -> None:
    game = opening()
    error = refuse(game, "AC")
    assert error.move == Move.parse("AC")
    assert "A♣" in str(error)


def test_a_card_not_in_hand_is_refused_mid_game() -> None:
    game = opening()
    game.play("9H")
    game.play("2C")  # seat 0 wins and leads again
    error = refuse(game, Move.parse("9H"))  # already played
    assert "9♥" in str(error)


def test_flip_with_one_stock_card_is_refused() -> None:
    game = opening()
    burn_to_one_stock_card(game)
    assert len(game.stock) == 1
    error = refuse(game, Move.flip())
    assert error.move == Move.flip()
    assert "flip" in str(error)
    assert Move.flip() not in error.legal_moves


def test_pick_up_in_phase_1_is_refused() -> None:
    game = opening()
    game.play("9H")  # a card lies on the table, still no pick up
    error = refuse(game, Move.pick_up())
    assert error.move == Move.pick_up()
    assert "pick" in str(error)


def test_a_card_that_does_not_beat_is_refused() -> None:
    game = shedding()
    for text, shown in (("8D", "8♦"), ("2D", "2♦"), ("3C", "3♣")):
        error = refuse(game, Move.parse(text))
        assert shown in str(error)
        assert set(error.legal_moves) == {Move.parse("10D"), Move.pick_up()}


def test_two_cards_at_once_are_refused() -> None:
    game = shedding()
    error = refuse(game, Move.parse("10D 8D"))
    assert "10♦" in str(error)


def test_pick_up_on_an_empty_table_is_refused() -> None:
    game = Game.from_shedding(Rules.classic(), ["9D 4C", "2D", "5C"], trump="S", leader=0)
    refuse(game, Move.pick_up())


def test_any_move_after_the_game_is_over_is_refused() -> None:
    game = finished()
    for move in (Move.parse("2C"), Move.pick_up(), Move.flip(), Move.parse("JD")):
        error = refuse(game, move)
        assert error.legal_moves == ()
        assert str(move) in str(error)


@pytest.mark.parametrize(
    "thing",
    [42, None, Card.parse("9H"), CardSet.parse("9H"), 9.5],
    ids=["int", "None", "Card", "CardSet", "float"],
)
def test_a_non_move_object_is_refused(thing: object) -> None:
    game = opening()
    error = refuse(game, thing)
    assert error.move is thing
    assert repr(thing) in str(error)


def test_a_refused_move_leaves_undo_and_copies_working() -> None:
    game = opening()
    game.play("9H")
    twin = game.copy()
    refuse(game, Move.parse("9H"))
    assert game.undo() == Move.parse("9H")
    assert twin.moves == (Move.parse("9H"),)


# ---------------------------------------------------------------------------
# Bad text
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["ZZ", "1H", "11S", "7X", "", "flop"])
def test_bad_move_text_in_play_is_a_parse_error(text: str) -> None:
    game = opening()
    before = state(game)
    with pytest.raises(ParseError) as info:
        game.play(text)
    assert info.value.text == text
    assert repr(text) in str(info.value)
    assert state(game) == before


@pytest.mark.parametrize("text", ["ZZ", "7H ZZ", "jump", "10", "H7"])
def test_move_parse_names_the_text(text: str) -> None:
    with pytest.raises(ParseError) as info:
        Move.parse(text)
    assert info.value.text == text
    assert repr(text) in str(info.value)


@pytest.mark.parametrize(("text", "bad"), [("7H ZZ 9C", "ZZ"), ("1H", "1H"), ("7H,QX", "QX")])
def test_cardset_parse_names_the_bad_card(text: str, bad: str) -> None:
    with pytest.raises(ParseError) as info:
        CardSet.parse(text)
    assert info.value.text == text
    assert repr(bad) in str(info.value)


def test_a_deck_of_51_cards_is_a_parse_error() -> None:
    short = OPENING[:-1]
    with pytest.raises(ParseError) as info:
        Game.new(Rules.classic(), deck=short)
    message = str(info.value)
    assert "51" in message
    assert OPENING[-1] in message  # the missing card is named


def test_a_deck_with_a_repeated_card_is_a_parse_error() -> None:
    repeated = [*OPENING[:-1], OPENING[0]]  # 9♥ twice, the last card missing
    with pytest.raises(ParseError) as info:
        Game.new(Rules.classic(), deck=repeated)
    message = str(info.value)
    assert "9♥" in message
    assert OPENING[-1] in message


def test_a_deck_with_bad_card_text_is_a_parse_error() -> None:
    bad = ["ZZ", *OPENING[1:]]
    with pytest.raises(ParseError) as info:
        Game.new(Rules.classic(), deck=bad)
    assert info.value.text == "ZZ"


def test_a_deck_given_as_one_string_is_a_parse_error() -> None:
    with pytest.raises(ParseError):
        Game.new(Rules.classic(), deck=" ".join(OPENING))


# ---------------------------------------------------------------------------
# Bad rules
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("players", 1),
        ("players", 5),
        ("hand_size", 4),
        ("hand_size", 0),
        ("trick_mode", "triple"),
        ("duel_tie", 7),
        ("draw", "never"),
        ("pickup", "all"),
        ("trump", "hearts"),
        ("try_your_luck", 1),
        ("low_card_threshold", 14),
        ("max_moves", 0),
        ("max_moves", -1),
    ],
)
def test_bad_rules_values_name_the_field(field: str, value: object) -> None:
    changes: dict[str, Any] = {field: value}
    with pytest.raises(RulesError) as info:
        Rules.classic(**changes)
    assert info.value.field == field
    assert field in str(info.value)


def test_an_unknown_rules_field_is_named() -> None:
    with pytest.raises(RulesError) as info:
        Rules.classic(jokers=True)
    assert info.value.field == "jokers"
    assert "jokers" in str(info.value)


def test_rules_that_are_not_rules_are_refused() -> None:
    with pytest.raises(TypeError, match="rules must be a Rules"):
        Game.new({"players": 3}, seed=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="rules must be a Rules"):
        Game.from_shedding({"players": 2}, ["7H", "8H"], trump=None, leader=0)  # type: ignore[arg-type]


VARIANTS = [
    ("trick_mode", "all"),
    ("duel_tie", "bounce"),
    ("all_tie", "lower_out"),
    ("multi_card_plays", True),
    ("slough", False),
    ("try_your_luck", False),
    ("draw", "after_trick"),
    ("last_card", "reveal"),
    ("trump", "none"),
    ("trump", "upcard"),
    ("low_card_threshold", 5),
    ("runs", True),
    ("pickup", "top_run"),
    ("pickup", "pile"),
    ("trick_end", "rotation"),
]


@pytest.mark.parametrize(("field", "value"), VARIANTS)
def test_every_variant_is_accepted_by_the_engine(field: str, value: object) -> None:
    changes: dict[str, Any] = {field: value}
    rules = Rules.classic(**changes)
    game = Game.new(rules, seed=1)
    while game.result is None:
        game.play(game.legal_moves[0])
    assert game.rules == rules
    trump = None if rules.trump is TrumpRule.NONE else "S"  # docs/rules.md §5.1
    shedding = Game.from_shedding(rules, ["9D", "JD", "4C"], trump=trump, leader=0)
    assert shedding.legal_moves


def test_the_one_refused_combination_names_the_field() -> None:
    with pytest.raises(RulesError) as info:
        Rules.classic(trump="upcard", multi_card_plays=True)
    assert info.value.field == "trump"


# ---------------------------------------------------------------------------
# Bad seeds, dealers, seats
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [-1, 2**64, "7", 1.0, True, [1]])
def test_bad_seeds_are_refused(seed: object) -> None:
    with pytest.raises(SkitgubbeError) as info:
        Game.new(Rules.classic(), seed=seed)  # type: ignore[arg-type]
    assert repr(seed) in str(info.value)


@pytest.mark.parametrize("dealer", [-1, 3, "0", 1.0, True])
def test_bad_dealers_are_refused(dealer: object) -> None:
    with pytest.raises(SkitgubbeError) as info:
        Game.new(Rules.classic(), seed=1, dealer=dealer)  # type: ignore[arg-type]
    assert repr(dealer) in str(info.value)


def test_a_game_is_made_by_its_constructors_only() -> None:
    with pytest.raises(TypeError, match=r"Game\.new"):
        Game()
    hollow = Game.__new__(Game)  # no position: its members say so instead of crashing
    for read in (
        lambda: hollow.to_move,
        lambda: hollow.legal_actions,
        lambda: hollow.play_action(0),
    ):
        with pytest.raises(TypeError, match="holds no game"):
            read()


def test_a_seed_and_a_deck_together_are_refused() -> None:
    with pytest.raises(SkitgubbeError):
        Game.new(Rules.classic(), seed=1, deck=OPENING)


@pytest.mark.parametrize("leader", [-1, 3, "0"])
def test_bad_phase_2_leaders_are_refused(leader: object) -> None:
    with pytest.raises(SkitgubbeError):
        Game.from_shedding(Rules.classic(), ["9D", "JD", "4C"], trump="S", leader=leader)  # type: ignore[arg-type]


def test_bad_phase_2_hands_are_refused() -> None:
    with pytest.raises(SkitgubbeError):  # a card in two hands
        Game.from_shedding(Rules.classic(), ["9D", "9D", "4C"], trump="S", leader=0)
    with pytest.raises(SkitgubbeError):  # two hands for three players
        Game.from_shedding(Rules.classic(), ["9D", "JD"], trump="S", leader=0)
    with pytest.raises(ParseError):
        Game.from_shedding(Rules.classic(), ["9D", "JD", "4C"], trump="X", leader=0)


@pytest.mark.parametrize("suit", ["C", "hearts", "\u2660"])
def test_a_trump_suit_under_rules_without_trump_is_refused(suit: str) -> None:
    # docs/rules.md §5.1: trump='none' has no trump, so J♣ must not beat 10♥.
    rules = Rules.classic(players=2, trump="none")
    with pytest.raises(ArgumentError, match=r"these rules have no trump \(trump='none'.*not '"):
        Game.from_shedding(rules, ["JC JS JH", "TH 2D"], trump=suit, leader=1)
    game = Game.from_shedding(rules, ["JC JS JH", "TH 2D"], trump=None, leader=1)
    assert game.trump is None
    game.play("TH")
    assert [str(m) for m in game.legal_moves] == ["J♥", "pick"]
    # A record that names a trump under such rules is refused the same way.
    record = game.record()
    record["start"]["trump"] = "clubs"
    with pytest.raises(RecordError, match="these rules have no trump"):
        Game.from_record(record)


@pytest.mark.parametrize("seat", [-1, 3, "1"])
def test_bad_observation_seats_are_refused(seat: object) -> None:
    with pytest.raises(SkitgubbeError):
        opening().observation(seat)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# Tampered records
# ---------------------------------------------------------------------------


def partial_record() -> dict[str, Any]:
    """A seeded game, 12 moves into phase 1 (hand-card plays only)."""
    game = Game.new(Rules.classic(), seed=77)
    for _ in range(12):
        plays = [m for m in game.legal_moves if m != Move.flip()]
        game.play(plays[0])
    record = game.record()
    assert Game.from_record(copy.deepcopy(record)).moves == game.moves
    return record


def finished_record() -> dict[str, Any]:
    game = Game.from_shedding(Rules.classic(), ["9D 2C", "JD 5H", "KD"], trump="S", leader=0)
    while game.result is None:
        game.play(game.legal_moves[0])
    record = game.record()
    assert record["result"] is not None
    assert Game.from_record(copy.deepcopy(record)).result == game.result
    return record


def refuse_record(record: dict[str, Any], index: int | None) -> RecordError:
    with pytest.raises(RecordError) as info:
        Game.from_record(record)
    assert info.value.move_index == index
    if index is not None:
        assert f"move {index}" in str(info.value)
    return info.value


def test_a_changed_move_is_named_by_its_index() -> None:
    record = partial_record()
    # Replace move 5 with a card played earlier (move 0): nobody holds it now.
    record["moves"][5] = record["moves"][0]
    refuse_record(record, 5)


def test_a_changed_move_to_bad_text_is_named_by_its_index() -> None:
    record = partial_record()
    record["moves"][3] = "ZZ"
    error = refuse_record(record, 3)
    assert "ZZ" in str(error)


def test_an_inserted_move_is_named_by_its_index() -> None:
    record = partial_record()
    # Repeat move 6 right after it: that card has just left its player's hand.
    record["moves"].insert(7, record["moves"][6])
    refuse_record(record, 7)


def test_a_pick_up_inserted_in_phase_1_is_named() -> None:
    record = partial_record()
    record["moves"].insert(2, "pick")
    refuse_record(record, 2)


def test_a_changed_deck_card_of_a_seeded_record_is_refused() -> None:
    record = partial_record()
    deck_ = record["start"]["deck"]
    deck_[-1], deck_[-2] = deck_[-2], deck_[-1]  # the bottom of the stock: no move uses it
    error = refuse_record(record, None)
    assert "seed" in str(error)


def test_a_changed_deck_card_of_a_deck_record_names_the_first_bad_move() -> None:
    record = partial_record()
    del record["seed"]
    deck_ = record["start"]["deck"]
    first = record["moves"][0]  # seat 0's first card, dealt to him
    position = [str(Card.parse(c)) for c in deck_].index(str(Card.parse(first)))
    deck_[position], deck_[-1] = deck_[-1], deck_[position]
    refuse_record(record, 0)


def test_a_deck_with_a_repeated_card_in_a_record_is_refused() -> None:
    record = partial_record()
    del record["seed"]
    record["start"]["deck"][-1] = record["start"]["deck"][0]
    refuse_record(record, None)


def test_a_wrong_result_is_refused() -> None:
    record = finished_record()
    result = record["result"]
    result["loser"] = (result["loser"] + 1) % 3
    refuse_record(record, None)


def test_a_wrong_move_count_in_the_result_is_refused() -> None:
    record = finished_record()
    record["result"]["moves"] += 1
    refuse_record(record, None)


def test_a_result_for_an_unfinished_game_is_refused() -> None:
    record = partial_record()
    record["result"] = {"loser": 0, "finish_order": [1, 2, 0], "truncated": False, "moves": 12}
    refuse_record(record, None)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("format", "chess-record"),
        ("format", None),
        ("version", 2),
        ("version", "1"),
        ("rules", {"players": 7}),
        ("rules", {"draw": "sideways"}),
        ("moves", "9H 2C"),
        ("start", None),
    ],
)
def test_a_wrong_header_field_is_refused(field: str, value: object) -> None:
    record = partial_record()
    record[field] = value
    refuse_record(record, None)


@pytest.mark.parametrize("field", ["format", "version", "rules", "start", "moves", "result"])
@pytest.mark.parametrize("make", [partial_record, finished_record])
def test_a_missing_field_is_refused(make: Callable[[], dict[str, Any]], field: str) -> None:
    # Game.record() always writes these fields; a record without one is damaged.
    record = make()
    del record[field]
    refuse_record(record, None)


@pytest.mark.parametrize("field", ["deck", "dealer"])
def test_a_missing_start_field_is_refused(field: str) -> None:
    record = partial_record()
    del record["start"][field]
    refuse_record(record, None)


@pytest.mark.parametrize("field", ["hands", "trump", "leader"])
def test_a_missing_phase_2_start_field_is_refused(field: str) -> None:
    record = finished_record()
    del record["start"][field]
    refuse_record(record, None)


def test_a_record_that_is_not_a_mapping_is_refused() -> None:
    with pytest.raises(RecordError):
        Game.from_record([1, 2, 3])  # type: ignore[arg-type]


@pytest.mark.parametrize("make", [partial_record, finished_record])
def test_changing_a_returned_record_leaves_the_game_alone(
    make: Callable[[], dict[str, Any]],
) -> None:
    # Issue 9, point 5: record() handed out the game's own start lists.
    record = make()
    game = Game.from_record(record)
    twin = game.copy()
    before = copy.deepcopy(game.record())
    changed = game.record()
    for value in changed["start"].values():
        if isinstance(value, list):
            value.reverse()
            value.append("junk")
    changed["moves"].clear()
    changed["rules"]["players"] = 9
    if changed["result"] is not None:
        changed["result"]["finish_order"].clear()
    assert game.record() == before
    assert twin.record() == before
    assert Game.from_record(game.record()).moves == game.moves


# Issue 9, point 9: every field of a record is checked by type and range.
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("seed", float("nan")),
        ("seed", 77.5),
        ("seed", 77.0),
        ("seed", None),
        ("seed", True),
        ("seed", -1),
        ("seed", 2**64),
        ("seed", "77"),
        ("version", True),
        ("version", 1.0),
        ("rng_version", -1),
        ("rng_version", "1"),
        ("rng_version", None),
        ("format", nested(100_000)),
        ("rules", nested(100_000)),
        ("rules", {"players": nested(100_000)}),
        ("moves", [nested(100_000)]),
        ("result", nested(100_000)),
    ],
)
def test_a_bad_record_field_is_a_record_error(field: str, value: object) -> None:
    record = partial_record()
    record[field] = value
    refuse_record(record, 0 if field == "moves" else None)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("dealer", None),
        ("dealer", 2.0),
        ("dealer", True),
        ("dealer", -1),
        ("dealer", 3),
        ("dealer", nested(100_000)),
        ("deck", "7H 8H"),
        ("deck", {"7H": 1}),
        ("deck", nested(100_000)),
        ("deck", None),
    ],
)
def test_a_bad_start_field_is_a_record_error(field: str, value: object) -> None:
    record = partial_record()
    record["start"][field] = value
    error = refuse_record(record, None)
    assert repr(field) in str(error)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("leader", None),
        ("leader", 0.0),
        ("leader", 5),
        ("hands", "9D 2C"),
        ("hands", [["9D"], ["JD"], ["KD"]]),
        ("hands", ["9D 2C", "JD 5H"]),
        ("trump", 3),
        ("trump", "\u017fpades"),
        ("trump", nested(100_000)),
    ],
)
def test_a_bad_phase_2_start_field_is_a_record_error(field: str, value: object) -> None:
    record = finished_record()
    record["start"][field] = value
    refuse_record(record, None)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("loser", True),  # the loser is seat 1, and True == 1
        ("loser", 1.0),
        ("moves", 11.0),
        ("truncated", 0),
        ("finish_order", [2.0, 0, 1]),
        ("finish_order", None),
    ],
)
def test_a_result_that_only_compares_equal_is_refused(key: str, value: object) -> None:
    record = finished_record()
    assert record["result"] == {
        "loser": 1,
        "finish_order": [2, 0, 1],
        "truncated": False,
        "moves": 11,
    }
    record["result"][key] = value
    refuse_record(record, None)


def test_a_seed_on_a_phase_2_record_is_refused() -> None:
    record = finished_record()
    record["seed"] = 1
    refuse_record(record, None)


def test_a_record_written_back_holds_only_checked_values() -> None:
    record = partial_record()
    again = Game.from_record(record).record()
    assert again == record
    assert type(again["seed"]) is int and type(again["start"]["dealer"]) is int


def test_from_shedding_with_rules_as_a_dict_is_a_type_error() -> None:
    from skitgubbe import ArgumentTypeError

    with pytest.raises(ArgumentTypeError):
        Game.from_shedding({"players": 3}, ["9D", "JD", "KD"], trump="S", leader=0)  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError):
        Game.from_shedding(None, 3, trump="S", leader=0)  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError):
        Game.from_shedding(None, ["9D", 4, "KD"], trump="S", leader=0)  # type: ignore[list-item]
    with pytest.raises(ParseError):
        Game.from_shedding(None, ["9D", "JD", "KD"], trump="\u017fpades", leader=0)


@pytest.mark.parametrize("seat", [-1, -3, 3, 4, 99])
def test_holding_refuses_a_seat_out_of_range(seat: int) -> None:
    # Issue 9, point 9: holding(-1) answered (for the last seat, by negative indexing).
    view = Game.new(Rules.classic(), seed=5).observation(0)
    with pytest.raises(ArgumentError):
        view.holding(seat)


@pytest.mark.parametrize("seat", [1.0, True, "1", None])
def test_holding_refuses_a_seat_that_is_not_an_int(seat: object) -> None:
    from skitgubbe import ArgumentTypeError

    view = Game.new(Rules.classic(), seed=5).observation(0)
    with pytest.raises(ArgumentTypeError):
        view.holding(seat)  # type: ignore[arg-type]
    assert [view.holding(s) for s in range(3)] == [3, 3, 3]


# ---------------------------------------------------------------------------
# Misbehaving players
# ---------------------------------------------------------------------------


class First:
    """Plays the first legal move."""

    def choose(self, observation: Observation) -> Move:
        return observation.legal_moves[0]


class Faulty:
    """Plays the first legal move until its ``turn``-th call, then misbehaves
    with ``action`` after noting the game's state (the test shares the game)."""

    def __init__(self, game: Game, turn: int, action: Callable[[Observation], object]) -> None:
        self.game = game
        self.turn = turn
        self.action = action
        self.calls = 0
        self.before: tuple[Any, ...] | None = None

    def choose(self, observation: Observation) -> Move:
        self.calls += 1
        if self.calls < self.turn:
            return observation.legal_moves[0]
        self.before = state(self.game)
        return self.action(observation)  # type: ignore[return-value]


class OopsError(Exception):
    pass


def run_faulty(action: Callable[[Observation], object]) -> tuple[PlayerError, Game, Faulty]:
    game = Game.new(Rules.classic(), seed=5)
    faulty = Faulty(game, turn=3, action=action)
    with pytest.raises(PlayerError) as info:
        play_game([First(), faulty, First()], game=game)
    assert faulty.before is not None
    assert faulty.calls == 3
    error = info.value
    assert error.seat == 1
    assert game.to_move == 1
    assert state(game) == faulty.before  # the game is where seat 1 was to move
    assert game.moves_played > 0
    # The game goes on from there.
    played = game.moves_played
    game.play(game.legal_moves[0])
    assert game.moves_played == played + 1
    return error, game, faulty


def test_a_player_that_raises_is_reported_with_seat_and_cause() -> None:
    raised = OopsError("my bot broke")

    def action(_: Observation) -> object:
        raise raised

    error, _, _ = run_faulty(action)
    assert error.cause is raised
    assert "my bot broke" in str(error)
    assert "seat 1" in str(error)


def test_a_player_answering_an_illegal_move_is_reported_with_the_answer() -> None:
    error, _, _ = run_faulty(lambda _: Move.pick_up())  # never legal in phase 1
    assert error.answer == Move.pick_up()
    assert error.cause is None
    assert "pick" in str(error)


def test_a_player_answering_a_card_it_does_not_hold_is_reported() -> None:
    def action(observation: Observation) -> object:
        missing = next(card for card in ALL_CARDS if card not in observation.hand)
        return Move.play(missing)

    error, game, _ = run_faulty(action)
    assert isinstance(error.answer, Move)
    assert error.answer.kind is MoveKind.PLAY
    assert error.answer.cards.isdisjoint(game.hands[1])
    assert str(error.answer) in str(error)


@pytest.mark.parametrize("answer", [None, 42, "flip", Card.parse("9H")])
def test_a_player_answering_a_non_move_is_reported_with_the_answer(answer: object) -> None:
    error, _, _ = run_faulty(lambda _: answer)
    assert error.answer is answer
    assert error.cause is None
    assert repr(answer) in str(error)


def test_the_wrong_number_of_players_is_refused() -> None:
    game = Game.new(Rules.classic(), seed=5)
    before = state(game)
    with pytest.raises(ArgumentError) as info:
        play_game([First(), First()], game=game)
    assert str(info.value) == "3 players are needed, 2 were given"
    assert state(game) == before
    with pytest.raises(RulesError):  # no classic rules for five
        play_game([First()] * 5, seed=1)
    with pytest.raises(ValueError, match="3 players are needed, 2 were given"):
        play_game([First()] * 2, Rules.classic(3), seed=1)


def test_rules_or_seed_with_a_game_are_refused() -> None:
    game = Game.new(Rules.classic(), seed=5)
    with pytest.raises(ArgumentError, match="not both"):
        play_game([First()] * 3, Rules.classic(), game=game)
    with pytest.raises(ArgumentError, match="not both"):
        play_game([First()] * 3, seed=1, game=game)
    assert game.moves_played == 0
