"""Every numbered check of ``sg_state_check`` refuses what it is about, on its own.

``sg_state_check`` (src/_core/check.c) is what stands between a state from
outside the process (an unpickled game) and the engine. Each case below takes
a valid whole state of a real game, changes the fewest fields that make exactly
one check fail, and asserts that the check refuses the state with its number
and the field at fault, and that :func:`skitgubbe._core.from_snapshot` raises a
:class:`~skitgubbe.StateError` naming both. A check that stopped firing lets
its state pass or fail a later check, and its case fails: this is the fast
tier's guard for each check (the sanitizer run of tests/c/core_check.c tampers
at random, in the slow tier). A last test reads check.c so that every
``FAIL(check, "field")`` it has is one of the cases here.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

import skitgubbe as sg
from skitgubbe import _core

NO_SEAT = NO_CARD = 0xFF
UNKNOWN_CARD = 0xFE
NO_SUIT = 4
INVALID_CARD = 13  # suit 0, rank 13: no card
CHECK_C = Path(__file__).resolve().parents[1] / "src" / "_core" / "check.c"

MEMBERS, SIZE = _core.state_layout()
LAYOUT = {name: (offset, size, count) for name, offset, size, count in MEMBERS}


class State:
    """A whole state's bytes, read and written member by member (sg_state's layout)."""

    def __init__(self, snapshot: bytes) -> None:
        assert len(snapshot) == SIZE
        self.raw = bytearray(snapshot)

    def _at(self, name: str, index: int) -> tuple[int, int]:
        offset, size, count = LAYOUT[name]
        assert 0 <= index < count, (name, index)
        return offset + index * size, size

    def __getitem__(self, key: str | tuple[str, int]) -> int:
        name, index = (key, 0) if isinstance(key, str) else key
        at, size = self._at(name, index)
        return int.from_bytes(self.raw[at : at + size], sys.byteorder)

    def __setitem__(self, key: str | tuple[str, int], value: int) -> None:
        name, index = (key, 0) if isinstance(key, str) else key
        at, size = self._at(name, index)
        self.raw[at : at + size] = value.to_bytes(size, sys.byteorder)

    def cards(self, name: str, seat: int) -> list[int]:
        """The card codes in the bit set ``name[seat]`` (hand, coll, known)."""
        mask = self[name, seat]
        return [code for code in range(64) if mask >> code & 1]

    def take(self, name: str, seat: int) -> int:
        """Takes the lowest card out of ``name[seat]`` (and ``known[seat]``); returns its code."""
        card = self.cards(name, seat)[0]
        self[name, seat] &= ~(1 << card)
        self["known", seat] &= ~(1 << card)
        return card

    def move_out_card(self) -> int:
        """Takes a card out of play (``out``) and returns its code."""
        card = next(code for code in range(64) if self["out"] >> code & 1)
        self["out"] &= ~(1 << card)
        return card

    def check(self) -> tuple[int, str | None]:
        return _core.state_check(bytes(self.raw))


# ---- the states to tamper with ----------------------------------------------------


def _played_until(rules: sg.Rules, seed: int, done: Callable[[State], bool]) -> bytes:
    game = sg.Game.new(rules, seed=seed)
    while not done(State(game._core.snapshot())):
        assert game.to_move is not None, "the game ended before the position was reached"
        game.play(game.legal_moves[0])
    return bytes(game._core.snapshot())


def _shedding(rules: sg.Rules | None, plays: int) -> bytes:
    game = sg.Game.from_shedding(rules, ["9D QD 2S", "JD AD", "4C 5C"], trump="S", leader=0)
    for _ in range(plays):
        game.play(game.legal_moves[0])
    return bytes(game._core.snapshot())


def _to_the_end(rules: sg.Rules, seed: int) -> bytes:
    game = sg.Game.new(rules, seed=seed)
    while game.to_move is not None:
        game.play(game.legal_moves[0])
    return bytes(game._core.snapshot())


BASES: dict[str, Callable[[], bytes]] = {
    # phase 1 under DUEL (classic, 3 players): a card on the table, the stock not empty
    "duel": lambda: _played_until(
        sg.Rules.classic(), 3, lambda s: s["table_len"] > 0 and s["coll", 1] != 0
    ),
    # phase 1 under DUEL, the stock drawn: its last card lies hidden with the last drawer
    "hidden": lambda: _played_until(
        sg.Rules.classic(),
        0,
        lambda s: s["hidden_card"] != NO_CARD and s["table_len"] > 0,
    ),
    # phase 1 under ALL (modern): a round going on, no slough window
    "all": lambda: _played_until(
        sg.Rules.modern(),
        2,
        lambda s: s["table_len"] >= 2 and s["round_pending"] != 0 and s["window"] == 0,
    ),
    # phase 1 under ALL with a slough window open
    "window": lambda: _played_until(sg.Rules.modern(), 0, lambda s: s["window"] != 0),
    # phase 1 under trump=UPCARD: the up-card at the bottom of the stock
    "upcard": lambda: _played_until(
        sg.Rules.classic(2, trump="upcard", last_card="reveal"), 6, lambda s: True
    ),
    # phase 2, trick_end=COUNT: a card on the table, and with the table empty
    "count": lambda: _shedding(None, 1),
    "count-empty": lambda: _shedding(None, 0),
    # phase 2, trick_end=ROTATION: a card on the table
    "rotation": lambda: _shedding(sg.Rules.modern(), 1),
    # a game over, with a loser; and one truncated at the move cap
    "over": lambda: _to_the_end(sg.Rules.classic(), 1),
    "truncated": lambda: _to_the_end(sg.Rules.classic(max_moves=20), 1),
}


@cache
def _base(name: str) -> bytes:
    return BASES[name]()


@cache
def _slough_byte() -> int:
    """The offset of the rules' slough flag: the one byte two games' rules differ in."""
    on = sg.Game.new(sg.Rules.modern(), seed=0)._core.snapshot()
    off = sg.Game.new(sg.Rules.modern(slough=False), seed=0)._core.snapshot()
    offset, _, count = LAYOUT["rules"]
    differ = [i for i in range(offset, offset + count) if on[i] != off[i]]
    assert len(differ) == 1
    return differ[0]


def test_the_states_to_tamper_with_are_whole_states_of_what_they_say() -> None:
    phases = {
        "duel": 0, "hidden": 0, "all": 0, "window": 0, "upcard": 0,
        "count": 1, "count-empty": 1, "rotation": 1, "over": 2, "truncated": 2,
    }  # fmt: skip
    assert phases.keys() == BASES.keys()
    for name, phase in phases.items():
        state = State(_base(name))
        assert state.check() == (0, None), name
        assert state["phase"] == phase, name
    assert State(_base("count"))["table_len"] == 1 == State(_base("rotation"))["table_len"]
    assert State(_base("count-empty"))["table_len"] == 0
    assert State(_base("truncated"))["truncated"] == 1 and State(_base("over"))["loser"] != NO_SEAT


# ---- the tamperings ----------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    check: int
    field: str
    base: str
    tamper: Callable[[State], object]
    why: str


def _set(**values: int) -> Callable[[State], None]:
    def tamper(state: State) -> None:
        for name, value in values.items():
            state[name] = value

    return tamper


def _set_at(name: str, index: int, value: int) -> Callable[[State], None]:
    def tamper(state: State) -> None:
        state[name, index] = value

    return tamper


def _bad_rules(state: State) -> None:
    offset, _, _ = LAYOUT["rules"]
    state.raw[offset : offset + 20] = b"\xff" * 20  # 255 players, and so on


def _no_slough(state: State) -> None:
    state.raw[_slough_byte()] = 0


def _rules_spare_byte(state: State) -> None:
    offset, _, count = LAYOUT["rules"]
    state.raw[offset + count - 1] = 1  # rules.reserved ends the rules


def _finished_twice(state: State) -> None:
    state["finished", 1] = state["finished", 0]


def _n_finished_in_phase_1(state: State) -> None:
    state["n_finished"], state["finished", 0] = 1, 0


def _holder_finished(state: State) -> None:
    state["n_finished"], state["finished", 0] = 1, state["to_move"]


def _one_holder_in_phase_2(state: State) -> None:
    # seats 1 and 2 put their cards out and are listed as finished: one seat holds cards
    for seat in (1, 2):
        state["out"] |= state["hand", seat]
        state["hand", seat] = 0
    state["n_finished"], state["finished", 0], state["finished", 1] = 2, 1, 2


def _hand_card_also(name: str, index: int = 0) -> Callable[[State], None]:
    """``name[index]`` set to a card of seat 0's hand (placed twice)."""

    def tamper(state: State) -> None:
        card = state.cards("hand", 0)[0]
        if LAYOUT[name][1] == 8:
            state[name, index] |= 1 << card
        else:
            state[name, index] = card

    return tamper


def _card_lost(state: State) -> None:
    state.take("hand", 0)  # the card lies nowhere now


def _to_move_without_hand(state: State) -> None:
    seat = state["to_move"]
    state["coll", seat] |= state["hand", seat]  # still held, in the collection
    state["known", seat] |= state["hand", seat]
    state["hand", seat] = 0


def _knows_anothers_card(state: State) -> None:
    state["known", 0] |= 1 << state.cards("hand", 1)[0]


def _hand_too_big(state: State) -> None:
    state["stock_len"] -= 1  # the stock's bottom card, into seat 0's hand
    state["hand", 0] |= 1 << state["stock", state["stock_len"]]


def _collection_in_phase_2(state: State) -> None:
    card = state.take("hand", 1)
    state["coll", 1] |= 1 << card
    state["known", 1] |= 1 << card


def _upcard_not_upcard_rules(state: State) -> None:
    state["upcard"] = state["stock", state["stock_len"] - 1]  # under trump=LAST_CARD


def _upcard_off_trump(state: State) -> None:
    # another card of the stock as the up-card: not the trump's suit, not the bottom card
    bottom = state["stock", state["stock_len"] - 1]
    state["upcard"] = next(
        state["stock", i]
        for i in range(state["stock_top"], state["stock_len"])
        if state["stock", i] >> 4 != bottom >> 4
    )


def _stock_in_phase_2(state: State) -> None:
    state["stock", 0] = state.move_out_card()
    state["stock_top"], state["stock_len"] = 0, 1


def _hidden_card_from_out(state: State) -> None:
    state["hidden_card"] = state.move_out_card()


def _hidden_card_with_stock(state: State) -> None:
    state["stock_len"] -= 1  # the stock's bottom card, hidden while the stock lasts
    state["hidden_card"] = state["stock", state["stock_len"]]
    state["hidden_holder"] = state["last_drawer"] = NO_SEAT


def _trick_complete_count(state: State) -> None:
    state["table_play", 0], state["trick_target"] = 1, 2  # the trick's 2 plays are made


def _trick_complete_rotation(state: State) -> None:
    state["trick_turns"] = state["trick_target"]


def _to_move_done_in_round(state: State) -> None:
    state["round_pending"] &= ~(1 << state["to_move"])


def _window_without_to_move(state: State) -> None:
    state["window"] = 0b111 & ~(1 << state["to_move"])


def _left_neighbour_wrong(state: State) -> None:
    state["follower"] = (state["leader"] + 2) % 3


def _table_seat_not_alternating(state: State) -> None:
    # a seat of the game (passes check 8), not the one whose turn it was on the table
    state["table_seat", 0] = (state["leader"] + 2) % 3


def _hidden_card_gone(state: State) -> None:
    # the hidden card taken into its holder's hand: the stock is empty under
    # last_card=HIDDEN, and no card lies hidden
    state["hand", state["hidden_holder"]] |= 1 << state["hidden_card"]
    state["hidden_card"], state["hidden_holder"], state["trump"] = NO_CARD, NO_SEAT, NO_SUIT


def _knows_the_losers_card(state: State) -> None:
    # check 15's relation, in a game over (which check 15 does not read)
    loser = state["loser"]
    state["known", (loser + 1) % 3] |= 1 << state.cards("hand", loser)[0]


def _two_holders(state: State) -> None:
    loser = state["loser"]
    state["hand", (loser + 1) % 3] |= 1 << state.take("hand", loser)


def _loser_card(name: str) -> Callable[[State], None]:
    def tamper(state: State) -> None:
        card = state.take("hand", state["loser"])
        if name == "stock":
            state["stock", 0], state["stock_top"], state["stock_len"] = card, 0, 1
        else:
            state[name] = card

    return tamper


CASES: tuple[Case, ...] = (
    Case(1, "rules", "duel", _bad_rules, "rules that sg_rules_check refuses"),
    Case(2, "phase", "duel", _set(phase=3), "no such phase"),
    Case(2, "to_move", "duel", _set(to_move=3), "a seat beyond the players"),
    Case(2, "to_move", "over", _set(to_move=0), "a player to move in a game over"),
    Case(3, "stock_len", "duel", _set(stock_len=53), "a stock longer than the deck"),
    Case(3, "stock_top", "duel", _set(stock_top=44), "the stock's top past its end"),
    Case(3, "table_len", "duel", _set(table_len=53), "a table longer than the deck"),
    Case(3, "round_start", "all", _set(round_start=53), "a round starting past the deck"),
    Case(4, "dealer", "duel", _set(dealer=3), "a dealer beyond the players"),
    Case(4, "leader", "duel", _set(leader=3), "a leader beyond the players"),
    Case(4, "follower", "duel", _set(follower=3), "a follower beyond the players"),
    Case(4, "winner", "duel", _set(winner=3), "a winner beyond the players"),
    Case(4, "round_first", "duel", _set(round_first=3), "round_first beyond the players"),
    Case(4, "last_drawer", "duel", _set(last_drawer=3), "last_drawer beyond the players"),
    Case(4, "hidden_holder", "duel", _set(hidden_holder=3), "hidden_holder beyond the players"),
    Case(4, "loser", "duel", _set(loser=3), "a loser beyond the players"),
    Case(5, "n_finished", "duel", _set(n_finished=4), "more finished than players"),
    Case(5, "trump", "duel", _set(trump=5), "no such suit"),
    Case(5, "window", "window", _set(window=8), "a window naming seat 3 of 3"),
    Case(5, "round_pending", "all", _set(round_pending=8), "a round naming seat 3 of 3"),
    Case(5, "finished", "duel", _set(n_finished=1, finished=3), "seat 3 of 3 finished"),
    Case(6, "upcard", "duel", _set(upcard=INVALID_CARD), "an up-card that is no card"),
    Case(6, "hidden_card", "hidden", _set(hidden_card=UNKNOWN_CARD), "an unknown card, whole"),
    Case(7, "out", "duel", _set(out=1 << INVALID_CARD), "out of play: no card"),
    Case(7, "hand", "duel", _set_at("hand", 3, 1), "seat 3 of 3 holds a card"),
    Case(7, "coll", "duel", _hand_card_also("coll"), "a hand card in a collection too"),
    Case(7, "known", "duel", _set_at("known", 0, 1 << INVALID_CARD), "known: no card"),
    Case(7, "unseen", "duel", _set_at("unseen", 0, 1), "unseen cards in a whole state"),
    Case(8, "table", "duel", _hand_card_also("table"), "a hand card on the table too"),
    Case(8, "table_seat", "duel", _set_at("table_seat", 0, 3), "a table card by seat 3 of 3"),
    Case(9, "stock", "duel", _hand_card_also("stock", 42), "a hand card in the stock too"),
    Case(9, "hidden_card", "duel", _hand_card_also("hidden_card"), "a hand card hidden too"),
    Case(10, "cards", "duel", _card_lost, "a card that lies nowhere"),
    Case(11, "trump_public", "duel", _set(trump_public=2), "a flag of 2"),
    Case(11, "end_pending", "duel", _set(end_pending=2), "a flag of 2"),
    Case(11, "truncated", "duel", _set(truncated=2), "a flag of 2"),
    Case(11, "moves", "duel", _set(moves=10_000), "a game going on at the move cap"),
    Case(12, "loser", "duel", _set(loser=0), "a loser in a game going on"),
    Case(12, "truncated", "duel", _set(truncated=1), "a game going on, truncated"),
    Case(13, "finished", "over", _finished_twice, "a seat finished twice"),
    Case(13, "n_finished", "duel", _n_finished_in_phase_1, "a seat finished in phase 1"),
    Case(13, "finished", "count", _holder_finished, "a seat holding cards finished"),
    Case(13, "hand", "count", _one_holder_in_phase_2, "one seat holding cards in phase 2"),
    Case(14, "to_move", "duel", _to_move_without_hand, "the player to move without a hand"),
    Case(14, "leader", "duel", _set(leader=NO_SEAT), "a trick without a leader"),
    Case(15, "known", "duel", _knows_anothers_card, "seat 0 'knows' seat 1's card"),
    Case(15, "hand", "duel", _hand_too_big, "a phase-1 hand over hand_size"),
    Case(15, "coll", "count", _collection_in_phase_2, "a collection in phase 2"),
    Case(16, "upcard", "duel", _upcard_not_upcard_rules, "an up-card under trump=LAST_CARD"),
    Case(16, "upcard", "upcard", _upcard_off_trump, "an up-card not the trump's suit"),
    Case(17, "stock_len", "count", _stock_in_phase_2, "a stock in phase 2"),
    Case(17, "hidden_card", "count", _hidden_card_from_out, "a hidden card in phase 2"),
    Case(17, "end_pending", "count", _set(end_pending=1), "a pending end in phase 2"),
    Case(17, "round_pending", "count", _set(round_pending=1), "a round in phase 2"),
    Case(17, "window", "count", _set(window=1), "a slough window in phase 2"),
    Case(17, "trump_public", "count", _set(trump_public=0), "a secret trump in phase 2"),
    Case(18, "table_play", "rotation", _set(table_play=2), "plays numbered from 2"),
    Case(18, "trick_target", "count-empty", _set(trick_target=2), "a target, empty table"),
    Case(18, "trick_turns", "count-empty", _set(trick_turns=1), "turns, empty table"),
    Case(18, "trick_target", "count", _set(trick_target=1), "a trick of one seat"),
    Case(18, "trick_target", "count", _set(trick_target=4), "a target over the players"),
    Case(18, "table_play", "count", _trick_complete_count, "a complete trick (COUNT)"),
    Case(18, "trick_turns", "rotation", _trick_complete_rotation, "a complete trick (ROTATION)"),
    Case(19, "last_drawer", "duel", _set(last_drawer=0), "a last drawer, the stock not empty"),
    Case(19, "end_pending", "duel", _set(end_pending=1), "a pending end in phase 1"),
    Case(19, "hidden_card", "duel", _hidden_card_with_stock, "hidden while the stock lasts"),
    Case(19, "hidden_holder", "hidden", _set(hidden_holder=0), "hidden with the wrong seat"),
    Case(19, "upcard", "upcard", _set(upcard=NO_CARD), "no up-card under trump=UPCARD"),
    Case(20, "round_pending", "duel", _set(round_pending=1), "a round under DUEL"),
    Case(20, "window", "duel", _set(window=1), "a slough window under DUEL"),
    Case(20, "follower", "duel", _left_neighbour_wrong, "a follower not left of the leader"),
    Case(20, "to_move", "duel", _set(to_move=1), "the wrong player to move under DUEL"),
    Case(20, "round_start", "all", _set(round_start=4), "a round starting past the table"),
    Case(20, "window", "window", _no_slough, "a slough window with slough off"),
    Case(20, "round_pending", "window", _set(round_pending=1), "a window during a round"),
    Case(20, "winner", "window", _set(winner=NO_SEAT), "a window without a winner"),
    Case(20, "to_move", "window", _window_without_to_move, "a window not waiting for to_move"),
    Case(20, "to_move", "all", _to_move_done_in_round, "to_move done in the round"),
    Case(21, "rules", "duel", _rules_spare_byte, "the rules' spare byte set"),
    Case(21, "reserved", "duel", _set_at("reserved", 2, 1), "the state's spare byte set"),
    Case(22, "known", "over", _knows_the_losers_card, "a finished seat 'knows' a card"),
    Case(22, "known", "duel", _set_at("known", 1, 0), "a collection unknown to all"),
    Case(22, "known", "duel", _set_at("known", 3, 1), "seat 3 of 3 knows a card"),
    Case(22, "moves", "over", _set(moves=10_001), "moves past the cap"),
    Case(23, "trump_public", "duel", _set(trump_public=1), "a public trump before it is"),
    Case(23, "trump", "duel", _set(trump=0), "a trump before the last card is drawn"),
    Case(23, "hidden_card", "hidden", _hidden_card_gone, "no hidden card, the stock drawn"),
    Case(23, "hidden_holder", "duel", _set(hidden_holder=0), "a holder of no hidden card"),
    Case(24, "trick_target", "duel", _set(trick_target=2), "a phase-2 target in phase 1"),
    Case(24, "trick_turns", "duel", _set(trick_turns=1), "phase-2 turns in phase 1"),
    Case(24, "round_first", "duel", _set(round_first=NO_SEAT), "no round_first in phase 1"),
    Case(24, "follower", "all", _left_neighbour_wrong, "a follower not left of the leader"),
    Case(24, "table_seat", "duel", _table_seat_not_alternating, "a duel's cards out of turn"),
    Case(25, "hand", "over", _two_holders, "two seats holding cards"),
    Case(25, "loser", "over", _set(loser=NO_SEAT), "no loser, and a seat holds cards"),
    Case(25, "n_finished", "over", _set(n_finished=1), "a seat neither finished nor loser"),
    Case(25, "stock_len", "over", _loser_card("stock"), "a stock left"),
    Case(25, "hidden_card", "over", _loser_card("hidden_card"), "a hidden card left"),
    Case(25, "round_pending", "over", _set(round_pending=1), "a round left"),
    Case(25, "window", "over", _set(window=1), "a slough window left"),
    Case(25, "end_pending", "over", _set(end_pending=1), "a pending end left"),
    Case(26, "truncated", "truncated", _set(moves=19), "truncated before the move cap"),
)


@pytest.mark.parametrize(
    "case", CASES, ids=[f"{c.check}-{c.field}-{c.base}-{i}" for i, c in enumerate(CASES)]
)
def test_each_check_refuses_its_tampered_state_naming_check_and_field(case: Case) -> None:
    state = State(_base(case.base))
    assert state.check() == (0, None)
    case.tamper(state)
    assert state.check() == (case.check, case.field), case.why
    with pytest.raises(sg.StateError) as caught:
        _core.from_snapshot(bytes(state.raw))
    assert caught.value.field == case.field
    assert f"its {case.field!r} is wrong" in str(caught.value)
    assert f"(check {case.check} of sg_state_check: " in str(caught.value)


def test_the_cases_cover_every_check_and_field_of_check_c() -> None:
    # Every FAIL(check, "field") in check.c has a case (a check added without one
    # fails here); check 10's "unseen" is a view's alone (a whole state has no slots).
    if not CHECK_C.is_file():
        pytest.skip("check.c is read from the source tree")
    text = CHECK_C.read_text(encoding="utf-8")
    sites = {
        (int(check), field)
        for check, call in re.findall(r"FAIL\((\d+),([^;]*)\);", text)
        for field in re.findall(r'"(\w+)"', call)
    }
    assert len(sites) > 80  # the pattern reads the file
    assert sites - {(10, "unseen")} == {(c.check, c.field) for c in CASES}
