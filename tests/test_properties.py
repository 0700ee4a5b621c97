"""Properties of every parser and loader: any input gets a value or the library's error.

For arbitrary input (text, and JSON-like values nested to any depth) each of
``Card.parse``, ``CardSet.parse``, ``Move.parse``, ``Rules.from_dict``,
``Game.from_record``, ``Session.resume`` and ``MatchResult.from_dict`` either
returns a valid value or raises a :class:`SkitgubbeError` that is also a
``ValueError`` or ``TypeError``: never another exception (issue 9). Valid values
round-trip: ``str`` through ``parse``, ``to_dict`` through ``from_dict`` and
``record`` through ``from_record``.

Loaders are also fed valid records with one part replaced, removed or added, so
that most inputs get past the first checks and reach the deep ones.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rules_gen import random_rules

import skitgubbe as sg
from skitgubbe.errors import SkitgubbeError
from skitgubbe.game.cards import ALL_CARDS

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
LOADER_SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


# Characters near the documented spellings: ASCII, suit symbols, variation selectors,
# and letters whose Unicode case mapping lands on ASCII (long s, dotless i, Kelvin sign,
# ligatures), fullwidth and other digits.
TRICKY = "\u017f\u0131\u0130\u212a\u00df\ufb05\ufb06\uff17\uff28\u00b2\u0663\ufe0f\ufe0e\u3000"
card_chars = st.sampled_from(
    "0123456789TJQKAtjqkaCDHScdhs ,♣♦♥♠♧♢♡♤" + TRICKY + "flippcku_asslough"
)
card_text = st.text(card_chars, max_size=24) | st.text(max_size=24)

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.sampled_from([64, 5000]).map(lambda bits: 10**bits)
    | st.just(-(2**64))
    | st.floats()
    | st.text(max_size=12)
    | card_text
)
json_like = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=12,
) | st.sampled_from([100, 5_000, 100_000]).map(nested)


def refuses_properly(call: Callable[[], object]) -> object | None:
    """``call()``'s value, or None when it raised the library's documented error."""
    try:
        return call()
    except SkitgubbeError as error:
        if not isinstance(error, ValueError | TypeError):
            raise AssertionError(f"{error!r} is neither a ValueError nor a TypeError") from error
        return None


# -- cards and moves ---------------------------------------------------------------------


@SETTINGS
@given(st.one_of(card_text, json_like))
def test_card_parse_returns_a_card_or_a_parse_error(text: object) -> None:
    card = refuses_properly(lambda: sg.Card.parse(text))  # type: ignore[arg-type]
    if card is not None:
        assert isinstance(card, sg.Card)
        assert sg.Card.parse(str(card)) is card
        # Only ASCII, the suit symbols and variation selectors spell a card.
        assert isinstance(text, str)
        assert all(c.isascii() or c in "♣♦♥♠♧♢♡♤\ufe0f\ufe0e" for c in text.strip())


@SETTINGS
@given(st.one_of(card_text, json_like))
def test_cardset_parse_returns_a_set_or_a_parse_error(text: object) -> None:
    cards = refuses_properly(lambda: sg.CardSet.parse(text))  # type: ignore[arg-type]
    if cards is not None:
        assert isinstance(cards, sg.CardSet)
        assert sg.CardSet.parse(str(cards)) == cards


@SETTINGS
@given(st.one_of(card_text, json_like))
def test_move_parse_returns_a_move_or_a_parse_error(text: object) -> None:
    move = refuses_properly(lambda: sg.Move.parse(text))  # type: ignore[arg-type]
    if move is not None:
        assert isinstance(move, sg.Move)
        assert sg.Move.parse(str(move)) == move
        # What Move.parse accepts, Move.play accepts too (no repeated card).
        if move.kind is sg.MoveKind.PLAY:
            assert sg.Move.play(*move.cards) == move


@SETTINGS
@given(st.lists(st.sampled_from(ALL_CARDS), max_size=52, unique=True))
def test_card_and_set_text_round_trips(cards: list[sg.Card]) -> None:
    for card in cards:
        assert sg.Card.parse(str(card)) is card
    cards_set = sg.CardSet.of(*cards)
    assert sg.CardSet.parse(str(cards_set)) == cards_set
    if cards:
        for move in (sg.Move.play(*cards), sg.Move.slough(*cards)):
            assert sg.Move.parse(str(move)) == move
            assert sg.Move.parse(str(move).lower()) == move


@SETTINGS
@given(st.lists(st.sampled_from(ALL_CARDS), min_size=1, max_size=6), st.data())
def test_ascii_spellings_parse_and_others_do_not(cards: list[sg.Card], data: st.DataObject) -> None:
    card = cards[0]
    letters = card.rank.label + card.suit.letter
    assert sg.Card.parse(letters.lower()) is card
    # Replace one character with a non-ASCII look-alike: never the same card.
    odd = data.draw(st.sampled_from(TRICKY[:7]))
    assert refuses_properly(lambda: sg.Card.parse(letters[:-1] + odd)) is None


# -- rules --------------------------------------------------------------------------------


field_names = st.sampled_from([field.name for field in sg.Rules.fields()])
rules_like = st.dictionaries(field_names | st.text(max_size=8), json_like, max_size=4) | json_like


@pytest.mark.slow
@SETTINGS
@given(rules_like)
def test_rules_from_dict_returns_rules_or_a_rules_error(data: object) -> None:
    rules = refuses_properly(lambda: sg.Rules.from_dict(data))  # type: ignore[arg-type]
    if rules is not None:
        assert isinstance(rules, sg.Rules)
        assert sg.Rules.from_dict(json.loads(json.dumps(rules.to_dict()))) == rules


@SETTINGS
@given(st.randoms(use_true_random=False))
def test_rules_round_trip_through_to_dict(rng: random.Random) -> None:
    rules = random_rules(rng)
    assert sg.Rules.from_dict(json.loads(json.dumps(rules.to_dict()))) == rules


# -- mutating valid records -------------------------------------------------------------------


@st.composite
def mutated(draw: st.DrawFn, value: Any) -> Any:
    """``value`` (JSON data) with one part replaced, removed or added."""
    value = copy.deepcopy(value)
    holder: Any = None
    key: Any = None
    node = value
    # Walk down a random path.
    while isinstance(node, dict | list) and node and draw(st.integers(0, 3)) > 0:
        holder = node
        key = draw(st.sampled_from(sorted(node) if isinstance(node, dict) else range(len(node))))
        node = node[key]
    if holder is None:
        return draw(json_like) if draw(st.booleans()) else value
    action = draw(st.sampled_from(["replace", "replace", "remove", "add"]))
    if action == "replace":
        holder[key] = draw(json_like)
    elif action == "remove":
        del holder[key]
    elif isinstance(holder, dict):
        holder[draw(st.text(max_size=8))] = draw(json_like)
    else:
        holder.append(draw(json_like))
    return value


def play_some(game: sg.Game, moves: int, rng: random.Random) -> sg.Game:
    while game.result is None and moves > 0:
        game.play(rng.choice(game.legal_moves))
        moves -= 1
    return game


@cache
def sample_records() -> tuple[dict[str, Any], ...]:
    rng = random.Random(9)
    records = []
    for players in (2, 3, 4):
        rules = sg.Rules.classic(players=players)
        records.append(play_some(sg.Game.new(rules, seed=players), 30, rng).record())
        records.append(play_some(sg.Game.new(rules, seed=players), 10_000, rng).record())
    shedding = sg.Game.from_shedding(None, ["9D 2C", "JD 5H", "KD"], trump="S", leader=0)
    records.append(play_some(shedding, 10_000, rng).record())
    return tuple(json.loads(json.dumps(record)) for record in records)


@LOADER_SETTINGS
@given(st.data())
def test_from_record_returns_a_game_or_a_record_error(data: st.DataObject) -> None:
    record = data.draw(st.sampled_from(sample_records()))
    changed = data.draw(mutated(record))
    game = refuses_properly(lambda: sg.Game.from_record(changed))
    if game is not None:
        assert isinstance(game, sg.Game)
        again = game.record()
        assert sg.Game.from_record(again).record() == again
        assert json.loads(json.dumps(again)) == again


@LOADER_SETTINGS
@given(json_like)
def test_from_record_of_anything_is_a_record_error(value: object) -> None:
    assert refuses_properly(lambda: sg.Game.from_record(value)) is None  # type: ignore[arg-type]


@LOADER_SETTINGS
@given(st.integers(2, 4), st.integers(0, 2**64 - 1), st.integers(0, 300), st.randoms())
def test_records_round_trip(players: int, seed: int, moves: int, rng: random.Random) -> None:
    game = play_some(sg.Game.new(sg.Rules.classic(players=players), seed=seed), moves, rng)
    record = json.loads(json.dumps(game.record()))
    assert record == game.record()
    replayed = sg.Game.from_record(record)
    assert replayed.record() == record
    assert replayed.moves == game.moves and replayed.result == game.result


# -- sessions -------------------------------------------------------------------------------


def lineup() -> list[sg.bots.RandomBot]:
    return [sg.bots.RandomBot(seed=seat) for seat in range(3)]


@cache
def session_record() -> dict[str, Any]:
    session = sg.Session(lineup(), seed=40, pot=True)
    session.play(2)
    return json.loads(json.dumps(session.record()))  # type: ignore[no-any-return]


@LOADER_SETTINGS
@given(st.data())
def test_session_resume_returns_a_session_or_a_record_error(data: st.DataObject) -> None:
    changed = data.draw(mutated(session_record()))
    session = refuses_properly(lambda: sg.Session.resume(changed, lineup()))
    if session is not None:
        assert isinstance(session, sg.Session)
        again = json.loads(json.dumps(session.record()))
        assert sg.Session.resume(again, lineup()).record() == again


@LOADER_SETTINGS
@given(json_like)
def test_session_resume_of_anything_is_a_record_error(value: object) -> None:
    result = refuses_properly(lambda: sg.Session.resume(value, lineup()))  # type: ignore[arg-type]
    assert result is None


def test_a_session_record_round_trips() -> None:
    record = session_record()
    assert sg.Session.resume(record, lineup()).record() == record


# -- match results --------------------------------------------------------------------------


@cache
def match_record() -> dict[str, Any]:
    result = sg.run_match(["random", "greedy", "random"], deals=2, seed=3)
    return json.loads(result.to_json())  # type: ignore[no-any-return]


@LOADER_SETTINGS
@given(st.data())
def test_match_from_dict_returns_a_result_or_a_record_error(data: st.DataObject) -> None:
    changed = data.draw(mutated(match_record()))
    result = refuses_properly(lambda: sg.MatchResult.from_dict(changed))
    if result is not None:
        assert isinstance(result, sg.MatchResult)
        # The figures of a loaded match are computed without error, and it round-trips.
        assert len(result.stats) == len(set(result.entrants))
        assert sg.MatchResult.from_dict(json.loads(result.to_json())) == result


@LOADER_SETTINGS
@given(json_like)
def test_match_from_dict_of_anything_is_a_record_error(value: object) -> None:
    assert refuses_properly(lambda: sg.MatchResult.from_dict(value)) is None  # type: ignore[arg-type]


def test_a_match_round_trips() -> None:
    data = match_record()
    result = sg.MatchResult.from_dict(data)
    assert json.loads(result.to_json()) == data
