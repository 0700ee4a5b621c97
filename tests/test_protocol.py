"""The engine protocol's messages (skitgubbe.engine.protocol): they round-trip, they match the
JSON Schema in docs/protocol.schema.json, and bad ones are refused by name."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import jsonschema
import pytest

import skitgubbe as sg
from skitgubbe.engine import protocol
from skitgubbe.engine.host import run_engine
from skitgubbe.engine.protocol import Clock, ProtocolError
from tests.rules_gen import random_rules

SCHEMA = json.loads((Path(__file__).parents[1] / "docs" / "protocol.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def games(count: int, seed: int) -> Iterator[sg.Game]:
    """Random games (random rules, random moves) played to their end, one by one: the
    caller sees each position as it is played (the generator plays on when resumed)."""
    rng = random.Random(seed)
    for index in range(count):
        rules = random_rules(rng) if index % 2 else sg.Rules.classic(2 + index % 3)
        game = sg.Game.new(rules, seed=seed * 1000 + index)
        while game.result is None:
            yield game
            game.play(rng.choice(game.legal_moves))
        yield game


def referee_messages(count: int, seed: int) -> Iterator[dict[str, Any]]:
    """Every message a referee sends to each seat over ``count`` random games."""
    yield protocol.hello("tests")
    yield {"type": "set_option", "name": "worlds", "value": 8}
    yield {"type": "isready", "seq": 0}
    sent: dict[int, int] = {}
    seq = 0
    for game in games(count, seed):
        if game.moves_played == 0:
            sent = {}
            for seat in range(game.players):
                yield protocol.new_game(f"g{seed}", seat, game.rules, move_time=1.0)
        seat = game.to_move
        for viewer in range(game.players):
            view = game.observation(viewer)
            yield protocol.events(view.history.since(sent.get(viewer, 0)))
            sent[viewer] = len(view.history)
            if game.result is not None:
                yield protocol.game_over(game.result, view=view)
            elif viewer == seat:
                seq += 1
                yield protocol.go(seq, view, Clock(move_time=1.0, remaining=30.0, increment=0.1))
    yield protocol.game_over(None, reason="stopped by the referee")
    yield {"type": "quit"}


@pytest.mark.slow
def test_every_referee_message_of_random_games_matches_the_schema() -> None:
    kinds = set()
    for message in referee_messages(12, seed=1):
        line = protocol.encode(message)
        assert line.endswith(b"\n") and b"\n" not in line[:-1]
        decoded = protocol.decode(line)
        VALIDATOR.validate(decoded)
        kinds.add(decoded["type"])
    assert kinds == {
        "hello", "set_option", "isready", "new_game", "events", "go", "game_over", "quit"
    }  # fmt: skip


def test_every_engine_message_matches_the_schema() -> None:
    script = b"".join(map(protocol.encode, referee_messages(3, seed=2)))
    # A seat to move is asked for its move; serve answers as that seat's greedy bot.
    out = _serve_bytes(script, sg.bots.GreedyBot)
    answers = [protocol.decode(line) for line in out.splitlines()]
    assert {answer["type"] for answer in answers} >= {"id", "readyok", "move", "log"}
    for answer in answers:
        VALIDATOR.validate(answer)


def test_the_schema_refuses_what_the_protocol_forbids() -> None:
    view = sg.Game.new(seed=2).observation(0)
    good = protocol.go(1, view, Clock())
    VALIDATOR.validate(good)
    bad_card = json.loads(json.dumps(good))
    bad_card["observation"]["hand"][0] = "1H"
    missing = json.loads(json.dumps(good))
    del missing["observation"]["unknown"]
    for message in (bad_card, missing, {"type": "move", "seq": 1}, {"seq": 1}):
        assert not VALIDATOR.is_valid(message), message
    # Unknown types and keys are allowed: later versions add them.
    assert VALIDATOR.is_valid({"type": "newer_message", "anything": [1]})
    assert VALIDATOR.is_valid({**good, "newer_key": True})


@pytest.mark.slow
def test_observations_and_events_read_back_equal() -> None:
    checked = 0
    for game in games(10, seed=3):
        for seat in range(game.players):
            view = game.observation(seat)
            message = protocol.decode(protocol.encode(protocol.go(1, view, Clock())))
            events = [protocol.event_from_json(e) for e in protocol.events(view.history)["events"]]
            assert events == list(view.history)
            again = protocol.observation_from_json(
                message["observation"], game.rules, events, message["legal_moves"]
            )
            assert again == view
            assert again.legal_moves == view.legal_moves
            checked += 1
    assert checked > 1000


@pytest.mark.slow
def test_the_one_pass_reading_agrees_with_the_field_by_field_one() -> None:
    """observation_from_json and event_from_json read a message as this module writes
    it in one pass, and fall back to reading field by field (which names a bad field) at
    any doubt: both readings agree, also on other card spellings and extra keys."""
    checked = 0
    for game in games(6, seed=5):
        view = game.observation(game.to_move if game.to_move is not None else 0)
        data = protocol.decode(protocol.encode(protocol.go(1, view, Clock())))
        legal, o = data["legal_moves"], data["observation"]
        history = view.history
        fast = protocol.observation_from_json(o, game.rules, history, legal)
        assert fast == view
        assert protocol._observation_checked(o, game.rules, history, legal) == fast
        spelled = {**o, "hand": [str(card) for card in view.hand], "newer_key": 1}
        assert protocol.observation_from_json(spelled, game.rules, history, legal) == view
        for event in protocol.events(history)["events"]:
            assert protocol.event_from_json(event) == protocol._event_checked(event)
            lower = {**event, "cards": [text.lower() for text in event["cards"]]}
            assert protocol.event_from_json(lower) == protocol._event_checked(event)
        checked += 1
    assert checked > 300


def _outcome(read: Any, *args: Any) -> object:
    try:
        return read(*args)
    except ProtocolError as error:
        return ("refused", error.field)


def test_both_readings_agree_on_spoilt_messages() -> None:
    """Spoilt fields (wrong types, other spellings, missing keys): the one-pass reading
    accepts what the field-by-field one accepts, and refuses the rest naming the same
    field, never with another error."""
    rng = random.Random(10)
    scalars = [None, True, 0, -1, 2**70, 1.5, "", "AS", "10d", "H", "shedding", "AAAA", "!"]
    spoilers = [*scalars, [], [1], ["AS"], ["ZZ"], [[]], {}, {"seat": 0, "cards": ["AS"]}]
    for game in games(2, seed=11):
        view = game.observation(game.to_move if game.to_move is not None else 0)
        data = json.loads(protocol.encode_go(1, view, Clock()))
        for _ in range(5):
            o = dict(data["observation"])
            for key in rng.sample(sorted(o), 2):
                if rng.random() < 0.2:
                    del o[key]
                else:
                    o[key] = json.loads(json.dumps(rng.choice(spoilers)))
            legal = data["legal_moves"] if rng.random() < 0.8 else [rng.choice(spoilers)]
            args = (o, game.rules, view.history, legal)
            assert _outcome(protocol.observation_from_json, *args) == _outcome(
                protocol._observation_checked, *args
            )
        for event in protocol.events(view.history.since(len(view.history) - 1))["events"]:
            event[rng.choice(sorted(event))] = rng.choice(spoilers)
            assert _outcome(protocol.event_from_json, event) == _outcome(
                protocol._event_checked, event
            )


def test_an_engine_sees_the_observations_the_referee_sent() -> None:
    """serve keeps the history the events messages told (one node per message) and each
    go's observation reads back equal to the referee's, history included."""
    game = sg.Game.new(sg.Rules.classic(3), seed=9)
    views, lines, sent, seq = [], [protocol.hello("tests")], 0, 0
    lines.append(protocol.new_game("g1", 1, game.rules))
    while game.result is None:
        view = game.observation(1)
        if game.to_move == 1:
            lines.append(protocol.events(view.history.since(sent)))
            sent = len(view.history)
            seq += 1
            lines.append(protocol.go(seq, view, Clock()))
            views.append(view)
        game.play(sg.bots.GreedyBot().choose(game.observation(game.to_move)))  # type: ignore[arg-type]
    seen: list[sg.Observation] = []

    class Recorder:
        def choose(self, view: sg.Observation) -> sg.Move:
            seen.append(view)
            return view.legal_moves[0]

    script = b"".join(map(protocol.encode, lines))
    out = _serve_bytes(script, Recorder)
    assert [json.loads(line)["type"] for line in out.splitlines()] == ["id"] + ["move"] * seq
    assert seen == views
    assert [list(view.history) for view in seen] == [list(view.history) for view in views]


@pytest.mark.slow
def test_the_referees_lines_are_its_messages_encoded() -> None:
    """encode_go and encode_events write, byte for byte, what encode writes of go and
    events (EnginePlayer sends the former): every position of random games, every seat,
    clocks of every kind."""
    clocks = [
        Clock(),
        Clock(move_time=1.0),
        Clock(move_time=0.25, remaining=59.123456789, increment=0.1),
        Clock(move_time=2, remaining=0.0, increment=1),  # ints as the caller gave them
        Clock(move_time=float("inf"), remaining=1e-7),
    ]
    checked = 0
    for game in games(10, seed=6):
        for seat in range(game.players):
            view = game.observation(seat)
            clock = clocks[checked % len(clocks)]
            assert protocol.encode_go(checked, view, clock) == protocol.encode(
                protocol.go(checked, view, clock)
            )
            for seen in (view.history, view.history.since(max(0, len(view.history) - 7))):
                assert protocol.encode_events(seen) == protocol.encode(protocol.events(seen))
            checked += 1
    assert protocol.encode_events([]) == protocol.encode(protocol.events([]))
    assert checked > 1000


def test_card_sets_are_read_in_c_as_cards_json_writes_them() -> None:
    """The binding reads card lists as cards_json writes them, on random sets, and
    nothing else (all else: None, for the field-by-field reading to judge)."""
    from skitgubbe import _core
    from skitgubbe.game.cards import ALL_CARDS

    rng = random.Random(8)
    for size in [0, 1, 52, *(rng.randrange(53) for _ in range(2000))]:
        cards = sg.CardSet.of(*rng.sample(ALL_CARDS, size))
        assert _core.protocol_card_mask(protocol.cards_json(cards)) == cards.mask
    assert _core.protocol_card_mask(["AS", "AS"]) == sg.CardSet.parse("AS").mask
    bad_texts = [["10d"], ["1C"], ["11C"], ["AX"], ["A"], [""], ["AS "], ["10♦"], [7]]
    for bad in [*bad_texts, ("AS",), "AS"]:
        assert _core.protocol_card_mask(bad) is None, bad


def test_the_lines_write_any_int_and_refuse_what_is_not_one() -> None:
    view = sg.Game.new(seed=2).observation(0)
    for value in (-1, 2**63 - 1, -(2**63), 2**70, -(2**70)):
        odd = attrs.evolve(view, stock_size=value)
        assert protocol.encode_go(1, odd, Clock()) == protocol.encode(protocol.go(1, odd, Clock()))
    with pytest.raises(TypeError, match="an int, not str"):
        protocol.encode_go(1, attrs.evolve(view, seat="0"), Clock())
    with pytest.raises(AttributeError):
        protocol.encode_events([object()])


def test_the_move_texts_kept_are_bounded() -> None:
    """Moves read are kept by their text for the next time, but not a long text (an
    engine padding its moves must not make the referee keep megabytes)."""
    padded = "6H" + " " * 10_000
    assert protocol.parse_move(padded) == sg.Move.parse("6H")
    assert padded not in protocol._MOVE_OF_TEXT
    assert protocol.parse_move("6H 6S") is protocol._MOVE_OF_TEXT["6H 6S"]


def test_moves_are_ascii_text_that_parses_back() -> None:
    seen = set()
    for game in games(10, seed=4):
        for move in game.legal_moves:
            text = protocol.move_text(move)
            assert text.isascii()
            assert sg.Move.parse(text) == move
            seen.add(move.kind)
    assert {sg.MoveKind.PLAY, sg.MoveKind.FLIP, sg.MoveKind.PICK_UP} <= seen


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        (b"bestmove e2e4\n", "not JSON"),
        (b"\xff\xfe\n", "not JSON"),
        (b"[1, 2]\n", "not a JSON object"),
        (b'{"seq": 1}\n', "without a string type"),
        (b'{"type": 7}\n', "without a string type"),
        (b"[" * 100_000 + b"\n", "not JSON"),
    ],
)
def test_a_line_that_is_not_a_message_is_refused_by_name(line: bytes, needle: str) -> None:
    with pytest.raises(ProtocolError, match=needle):
        protocol.decode(line)


def _observation_with(field: str, value: object) -> dict[str, Any]:
    data = protocol.observation_json(sg.Game.new(seed=2).observation(0))
    data[field] = value
    return data


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("hand", ["1H"]),
        ("hand", "4H 6H"),
        ("seat", "0"),
        ("seat", True),
        ("phase", "bidding"),
        ("trump", "X"),
        ("hand_sizes", [3, 3]),
        ("known", [[], []]),
        ("core_view", "not base64!"),
        ("upcard", 7),
        ("table", [{"seat": 0}]),
    ],
)
def test_a_bad_observation_field_is_named(field: str, value: object) -> None:
    rules = sg.Rules.classic(3)
    with pytest.raises(ProtocolError) as info:
        protocol.observation_from_json(_observation_with(field, value), rules, [], ["flip"])
    assert info.value.field == field


def test_a_tampered_core_view_is_refused() -> None:
    data = _observation_with("core_view", "AAAA")
    with pytest.raises(ProtocolError, match="core_view"):
        protocol.observation_from_json(data, sg.Rules.classic(3), [], [])


@pytest.mark.parametrize(
    "event",
    [
        {"kind": "teleport", "seat": 0},
        {"kind": "play", "seat": "0"},
        {"kind": "play", "seat": 0, "cards": ["ZZ"]},
        {"kind": "tie", "seats": "01"},
        {"kind": "trump", "suit": "hearts"},
        ["play"],
    ],
)
def test_a_bad_event_is_refused(event: object) -> None:
    with pytest.raises(ProtocolError):
        protocol.event_from_json(event)


def test_a_bad_event_field_is_named() -> None:
    for field in ("seat", "other", "count", "seats", "suit", "cards"):
        with pytest.raises(ProtocolError) as info:
            protocol.event_from_json({"kind": "give", field: "7"})
        assert info.value.field == field


def test_errors_pickle_with_their_field() -> None:
    import pickle

    error = pickle.loads(pickle.dumps(ProtocolError("bad seat", "seat")))
    assert (str(error), error.field) == ("bad seat", "seat")


def _serve_bytes(script: bytes, factory: Any) -> bytes:
    import io

    out = io.BytesIO()
    assert run_engine(factory, name="test", stdin=io.BytesIO(script), stdout=out) == 0
    return out.getvalue()


# -- one source for the wire format (skitgubbe.engine.wire) -------------------------------------


def test_the_committed_schema_is_the_one_the_table_makes() -> None:
    """docs/protocol.schema.json is generated (python tools/protocol_schema.py)."""
    from skitgubbe.engine import wire

    committed = (Path(__file__).parents[1] / "docs" / "protocol.schema.json").read_text()
    assert committed == wire.schema_text()
    assert json.loads(committed) == wire.schema()


def _lines_digest(count: int, seed: int) -> tuple[int, str, str]:
    import hashlib

    clocks = [Clock(), Clock(move_time=0.25, remaining=59.123456789, increment=0.1)]
    fast, slow = hashlib.sha256(), hashlib.sha256()
    checked = 0
    for game in games(count, seed):
        for seat in range(game.players):
            view = game.observation(seat)
            clock = clocks[checked % len(clocks)]
            fast.update(protocol.encode_go(checked, view, clock))
            fast.update(protocol.encode_events(view.history))
            slow.update(protocol.encode(protocol.go(checked, view, clock)))
            slow.update(protocol.encode(protocol.events(view.history)))
            slow.update(protocol.encode(protocol.game_over(None, "stopped", view)))
            checked += 1
    return checked, fast.hexdigest()[:16], slow.hexdigest()[:16]


def test_the_lines_are_byte_for_byte_those_written_before_the_table() -> None:
    """The C writer and the Python encoder, both driven by skitgubbe.engine.wire, write what the
    hand-written writers wrote (digests taken before the table replaced them)."""
    assert _lines_digest(2, seed=11) == GOLDEN_LINES


# (games, the C lines' digest, the Python messages' digest) of _lines_digest(2, seed=11),
# taken with the hand-written writers that skitgubbe.engine.wire replaced.
GOLDEN_LINES = (1066, "a15f2c028eafa3c8", "a2f8dc7ac380c34c")


def test_every_message_holds_the_fields_of_its_table() -> None:
    """What the referee and the engine side write has each message's required fields
    and no field the table does not list (the schema alone allows unknown keys)."""
    from skitgubbe.engine import wire

    tables = {message.type: message for message in wire.MESSAGES}
    script = b"".join(map(protocol.encode, referee_messages(2, seed=4)))
    answers = [
        protocol.decode(line) for line in _serve_bytes(script, sg.bots.GreedyBot).splitlines()
    ]
    seen = set()
    for message in [*referee_messages(2, seed=4), *answers]:
        table = tables[message["type"]]
        names = {"type"} | {field.name for field in table.fields}
        required = {"type"} | {field.name for field in table.fields if field.required}
        assert required <= message.keys() <= names, message["type"]
        seen.add(message["type"])
    assert seen == set(tables)
