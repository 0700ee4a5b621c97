"""What a seat's history proves about the hidden cards: the exact worlds (docs/rules.md §8).

A search samples *worlds*: the cards a seat cannot place dealt into the unknown slots
(each other seat's unseen cards, the stock, the face-down last card). Under the classic
rules every arrangement is equally likely, but two variants make public facts of what a
player does *not* hold (docs/rules.md §8): a player skipped in a slough window holds no
card of the trick's ranks (§4.4), one who passed in it holds at least one, and after the
low-card rule the players who were not short hold no 2–5 (§5.4). These facts concern the
cards a player held *then*; he may have drawn and played since, so one cannot simply
strike cards from his hand.

:func:`belief` reads a seat's history and describes every way the other seats' unseen
cards may lie, exactly: each unseen card sits in a *slot* (a card that player was dealt
or drew), each slot carries the ranks it cannot hold (every window it was in hand for
and skipped), and a *need* says that one of some slots holds a card of some ranks (a
pass). Which slot a played card left is hidden, so a history branches into *cases*,
each weighted by the number of ways it came about; a need is then made slot by slot
(the first of its slots that holds one of the ranks is slot j, for each j: disjoint
cases). Dealing the unknown cards uniformly
over the slots of a case drawn with its weight, among the deals that respect the case,
gives each arrangement its exact probability: every deal consistent with the public
facts is equally likely (the players' choices are taken to say nothing more than that
they were legal). The C core samples from a belief by rejection (``sg_sample_belief``).

>>> import skitgubbe as sg
>>> game = sg.Game.new(sg.Rules.classic(), seed=4)
>>> belief(game.observation(0)) is None  # classic rules: uniform worlds are exact
True
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Final, TypeAlias

import attrs

from .. import _core
from .events import Event, EventKind
from .rules import LastCard, Rules, TrickMode

if TYPE_CHECKING:
    from .observation import HistoryNode, Observation

__all__ = ["MAX_CASES", "MAX_NEEDS", "MAX_SLOTS", "Belief", "Beliefs", "Case", "belief"]

MAX_SLOTS: Final = 5
"""The most unseen cards a seat holds (a phase-1 hand: ``hand_size`` at most)."""
MAX_NEEDS: Final = 8
"""The most needs of one case the core reads (:func:`belief` makes its needs slot by
slot, so its cases have none)."""
MAX_CASES: Final = 128
"""The most cases of one seat the core reads (the least likely are merged into one that
allows every deal any of them allows: a wider world, never a narrower one)."""

_LOW_RANKS: Final = 0b1111  # ranks 2..5 (docs/rules.md §5.4)
_RANK_BITS: Final = 0x1FFF

# A slot: (ranks it cannot hold, ids of the needs it belongs to).
_Slot: TypeAlias = "tuple[int, tuple[int, ...]]"
_Key: TypeAlias = "tuple[_Slot, ...]"


def _ranks(mask: int) -> int:
    """The ranks (bit r for rank r, 0 = two) of the cards of a card mask."""
    return (mask | mask >> 16 | mask >> 32 | mask >> 48) & _RANK_BITS


@attrs.frozen
class Case:
    """One way a seat's unseen cards may lie: its slots and needs, with a weight.

    ``forbid[j]`` holds the ranks (bit r for rank r, 0 the two) slot ``j`` cannot hold;
    each need ``(ranks, slots)`` says that at least one of the slots in the bit mask
    ``slots`` holds a card of ``ranks``. ``weight`` is relative to the seat's other cases.

    >>> Case(weight=1.0, forbid=(0b1111, 0), needs=())
    Case(weight=1.0, forbid=(15, 0), needs=())
    """

    weight: float
    forbid: tuple[int, ...]
    needs: tuple[tuple[int, int], ...]


@attrs.frozen
class Belief:
    """What ``seat``'s history proves about every other seat's unseen cards.

    ``cases[p]`` lists seat ``p``'s cases (empty for ``seat`` itself and for seats
    about which nothing is known beyond their count: uniform).

    >>> Belief(seat=0, cases=((), (Case(1.0, (1,), ()),), ())).constrained
    (1,)
    """

    seat: int
    cases: tuple[tuple[Case, ...], ...]

    @property
    def constrained(self) -> tuple[int, ...]:
        """The seats whose unseen cards some fact constrains."""
        return tuple(p for p, cases in enumerate(self.cases) if cases)

    def core(self) -> _core.Belief:
        """This belief as the C core's searches read it (``sg_belief``).

        >>> Belief(seat=0, cases=((), (Case(1.0, (1,), ()),), ())).core()  # doctest: +ELLIPSIS
        <skitgubbe._core.Belief object at ...>
        """
        return _core.Belief(
            tuple((c.weight, c.forbid, c.needs) for c in cases) for cases in self.cases
        )


class _Seat:
    """One other seat's cases while a history is read."""

    __slots__ = ("cases",)

    def __init__(self) -> None:
        self.cases: dict[_Key, int] = {(): 1}

    def add(self, n: int) -> None:
        """The seat took ``n`` cards nobody else saw (a deal or a draw)."""
        free: _Key = ((0, ()),) * n
        self.cases = {tuple(sorted(key + free)): w for key, w in self.cases.items()}

    def forbid(self, ranks: int, needs: dict[int, int]) -> None:
        """Every card the seat holds now is of none of ``ranks``."""
        cases: dict[_Key, int] = {}
        for key, w in self.cases.items():
            new = tuple(sorted((f | ranks, ids) for f, ids in key))
            if _feasible(new, needs):
                cases[new] = cases.get(new, 0) + w
        self.cases = cases

    def need(self, need_id: int, needs: dict[int, int]) -> None:
        """At least one card the seat holds now is of the need's ranks."""
        cases: dict[_Key, int] = {}
        for key, w in self.cases.items():
            new = tuple(sorted((f, (*ids, need_id)) for f, ids in key))
            if _feasible(new, needs):
                cases[new] = cases.get(new, 0) + w
        self.cases = cases

    def reveal(self, card: int, needs: dict[int, int]) -> None:
        """The seat played ``card`` from one of its unseen slots (which one is hidden)."""
        rank = 1 << (card & 15)
        cases: dict[_Key, int] = {}
        for key, w in self.cases.items():
            for j, slot in enumerate(key):
                forbid, ids = slot
                if forbid & rank or (j and key[j - 1] == slot):
                    continue  # this slot cannot have held it, or an equal slot was taken
                same = key.count(slot)
                met = tuple(i for i in ids if needs[i] & rank)
                rest = key[:j] + key[j + 1 :]
                if met:
                    rest = tuple((f, tuple(i for i in s if i not in met)) for f, s in rest)
                new = tuple(sorted(rest))
                if _feasible(new, needs, (i for i in ids if i not in met)):
                    cases[new] = cases.get(new, 0) + w * same
        self.cases = cases


def _feasible(key: _Key, needs: dict[int, int], gone: Iterable[int] = ()) -> bool:
    """Whether every need still has a slot that may hold one of its ranks."""
    wanted = {i for _, ids in key for i in ids} | set(gone)
    return all(any(i in ids and needs[i] & ~f for f, ids in key) for i in wanted)


class _Reader:
    """Reads one seat's history, event by event (see :func:`belief`)."""

    def __init__(self, observation: Observation) -> None:
        rules = observation.rules
        self.rules = rules
        self.me = observation.seat
        self.players = rules.players
        self.windows = rules.trick_mode is TrickMode.ALL and rules.slough
        self.reveal_ends = rules.last_card is LastCard.REVEAL
        self.threshold = rules.low_card_threshold
        self.seats = [_Seat() for _ in range(self.players)]
        self.known = [0] * self.players  # cards every player can place in a seat's hand
        self.won = [0] * self.players  # and in its phase-1 collection (its hand in phase 2)
        self.held = [0] * self.players  # cards a seat holds (hand and collection)
        self.needs: dict[int, int] = {}  # need id -> its ranks
        self.constrained = False
        self.phase2 = False
        self.low_seats: tuple[int, ...] | None = None
        self.table: list[tuple[int, int]] = []  # (seat, cards) of phase-1 plays
        self.end_pending = False
        self.acts: list[tuple[int, bool]] = []  # the window's (seat, passed)
        self.open_ranks = 0
        self.open_pending = False
        self.read_so_far = 0  # events read
        self.facts: list[tuple[int, int, bool, int]] = []  # (events read, seat, holds, ranks)

    def fork(self) -> _Reader:
        """A copy that reads on without changing this one."""
        other = copy.copy(self)
        other.seats = [copy.copy(seat) for seat in self.seats]  # each replaces its cases
        other.needs = dict(self.needs)
        other.facts = list(self.facts)
        other.known, other.won, other.held = list(self.known), list(self.won), list(self.held)
        other.table, other.acts = list(self.table), list(self.acts)
        return other

    # -- the facts -------------------------------------------------------------------

    def leave(self, seat: int, cards: int) -> None:
        """``seat`` gave ``cards`` up in view of all: known ones, or from his slots."""
        self.held[seat] -= cards.bit_count()
        if seat == self.me:
            return
        from_slots = cards & ~(self.known[seat] | self.won[seat])
        self.known[seat] &= ~cards
        self.won[seat] &= ~cards
        while from_slots:
            low = from_slots & -from_slots
            self.seats[seat].reveal(low.bit_length() - 1, self.needs)
            from_slots ^= low

    def fact(self, seat: int, holds: bool, ranks: int) -> None:
        """What every player saw: ``seat`` holds a card of ``ranks`` (``holds``) or none."""
        self.facts.append((self.read_so_far, seat, holds, ranks))
        self.constrained = True
        if holds:
            need = len(self.needs)
            self.needs[need] = ranks
            self.seats[seat].need(need, self.needs)
        else:
            self.seats[seat].forbid(ranks, self.needs)

    def window_facts(self, winner: int, ranks: int, upto: int | None) -> None:
        """The facts of ``winner``'s slough window (§4.4), from its first seat to
        ``upto`` (None: round to the winner): each seat that did not answer in it was
        skipped and holds none of ``ranks``; each that passed holds one at least."""
        acts = iter(self.acts)
        act = next(acts, None)
        for k in range(1, self.players + 1):
            seat = (winner + k) % self.players
            if act is not None and act[0] == seat:
                if act[1] and seat != self.me and not self.known[seat] & _rank_cards(ranks):
                    self.fact(seat, True, ranks)
                act = next(acts, None)
            elif seat != self.me:
                self.fact(seat, False, ranks)
            if seat == upto:
                return

    def low_cards(self) -> None:
        """Who is short when the low-card rule is applied (§5.4), before any gift."""
        if self.low_seats is not None or not self.threshold:
            return
        k = self.threshold
        short = any(0 < h < k for h in self.held)
        self.low_seats = tuple(p for p, h in enumerate(self.held) if short and h >= k)

    # -- the events ------------------------------------------------------------------

    def read(self, events: Iterable[Event]) -> None:
        for event in events:
            self.event(event)
            self.read_so_far += 1

    def event(self, event: Event) -> None:
        kind, seat, cards = event.kind, event.seat, event.cards.mask
        if kind in (EventKind.DEAL, EventKind.DRAW):
            assert seat is not None
            self.held[seat] += event.count
            if seat != self.me:
                self.seats[seat].add(event.count)
        elif kind in (EventKind.PLAY, EventKind.FLIP):
            assert seat is not None
            if kind is EventKind.PLAY:
                self.leave(seat, cards)
            if not self.phase2:
                self.table.append((seat, cards))
                self.acts = []
        elif kind in (EventKind.SLOUGH, EventKind.PASS):
            assert seat is not None
            if not self.acts:
                self.open_ranks = _ranks(sum(c for _, c in self.table))
                self.open_pending = self.end_pending
            self.acts.append((seat, kind is EventKind.PASS))
            if cards:
                self.leave(seat, cards)
                self.table.append((seat, cards))
        elif kind is EventKind.TRICK_WON:
            assert seat is not None
            if self.windows and not self.phase2:
                if not self.acts:
                    self.open_ranks = _ranks(sum(c for _, c in self.table))
                    self.open_pending = self.end_pending
                if not self.open_pending:
                    # A slough that drew the last card (§3.8) closed the window at once.
                    cut = self.end_pending and self.acts
                    self.window_facts(seat, self.open_ranks, self.acts[-1][0] if cut else None)
            self.held[seat] += cards.bit_count()
            self.won[seat] |= cards
            self.table = []
            self.acts = []
        elif kind is EventKind.LOWER_OUT:
            self.table = [(s, c & ~cards) for s, c in self.table if c & ~cards]
        elif kind is EventKind.BOUNCE:
            self.table = []
        elif kind is EventKind.TAKE_BACK:
            assert seat is not None
            self.held[seat] += cards.bit_count()
            self.known[seat] |= cards
            self.table = [(s, c) for s, c in self.table if s != seat]
        elif kind in (EventKind.REVEAL, EventKind.TAKE_UPCARD):
            assert seat is not None
            self.held[seat] += 1
            self.known[seat] |= cards
            if self.reveal_ends and not self.phase2:
                self.end_pending = True
        elif kind is EventKind.PICK_UP:
            assert seat is not None
            self.held[seat] += cards.bit_count()
            self.known[seat] |= cards
        elif kind is EventKind.GIVE:
            assert seat is not None and event.other is not None
            self.low_cards()
            self.leave(seat, cards)
            self.held[event.other] += cards.bit_count()
            self.known[event.other] |= cards
        elif kind is EventKind.SHEDDING:
            self.low_cards()
            self.phase2 = True
            self.end_pending = False
            self.table = []
            for p in self.low_seats or ():
                if p != self.me:
                    self.fact(p, False, _LOW_RANKS)

    def finish(self, observation: Observation) -> None:
        """The facts of a slough window still open: the seats before the one to move were
        skipped or answered, and the seat to move holds a card of the trick's ranks."""
        winner, to_move = observation.slough_winner, observation.to_move
        if winner is None or to_move is None or not self.windows:
            return
        ranks = _ranks(sum(play.cards.mask for play in observation.table))
        if to_move != (winner + 1) % self.players:
            self.window_facts(winner, ranks, (to_move - 1) % self.players)
        if to_move != self.me and not self.known[to_move] & _rank_cards(ranks):
            self.fact(to_move, True, ranks)


def _rank_cards(ranks: int) -> int:
    return ranks * 0x0001000100010001


def _proves_anything(rules: Rules) -> bool:
    """Whether a history under ``rules`` can prove a fact: a slough window or low cards."""
    return (rules.trick_mode is TrickMode.ALL and rules.slough) or bool(rules.low_card_threshold)


def belief(observation: Observation) -> Belief | None:
    """What ``observation``'s history proves about the other seats' unseen cards, or
    ``None`` when it proves nothing beyond their counts (uniform worlds are then exact).

    Under the modern rules seat 0 wins a trick of J♣ 9♦ 2♦, and the slough window skips
    seats 1 and 2 on the way to him: neither holds a two, a nine or a jack (ranks 0, 7 and
    9, ``641``) in either of the two cards left in his hand.

    >>> import skitgubbe as sg
    >>> game = sg.Game.new(sg.Rules.modern(players=3), seed=1)
    >>> for move in ("JC", "9D", "2D"):
    ...     _ = game.play(move)
    >>> facts = belief(game.observation(0))
    >>> game.observation(0).slough_winner, facts.constrained
    (0, (1, 2))
    >>> facts.cases[1]
    (Case(weight=1.0, forbid=(641, 641), needs=()),)

    A history that does not account for the view's unseen cards (one cut short, say)
    proves nothing the view can use: ``None``, and the worlds are dealt uniformly.
    :class:`Beliefs` reads a seat's successive observations on from one another.
    """
    if not _proves_anything(observation.rules):
        return None
    reader = _Reader(observation)
    try:
        reader.read(observation.history)
    except (AssertionError, IndexError, KeyError, TypeError):
        return None  # not a whole game's history (an event the view's game never had)
    return _conclude(reader, observation)


def _conclude(reader: _Reader, observation: Observation) -> Belief | None:
    """The belief of a reader that has read ``observation``'s history."""
    if observation.slough_winner is not None:
        reader = reader.fork()  # the open window's facts are this moment's only
        try:
            reader.finish(observation)
        except (AssertionError, IndexError, KeyError, TypeError):
            return None
    if not reader.constrained:
        return None
    cases: list[tuple[Case, ...]] = []
    for p, seat in enumerate(reader.seats):
        if p == observation.seat or not seat.cases:
            cases.append(())
            continue
        if any(len(key) != observation.unknown_slots[p] for key in seat.cases):
            return None  # the history and the view disagree: nothing to rely on
        cases.append(_cases(seat.cases, reader.needs, observation.unknown_slots[p]))
    if not any(cases):
        return None
    return Belief(observation.seat, tuple(cases))


def _extends(node: HistoryNode | None, before: HistoryNode | None) -> bool:
    """Whether the history ending at ``node`` continues the one ending at ``before``."""
    if before is None:
        return True
    while node is not None and node.length > before.length:
        node = node.parent
    return node is before


class Beliefs:
    """:func:`belief` for one seat's successive observations of a game, each history read
    on from where the last one ended (the search bots keep one): a move costs its own
    events, not the whole history's. Another seat, other rules or a history that does not
    continue the last one is read from its start. Safe to call from several threads.

    >>> import skitgubbe as sg
    >>> game = sg.Game.new(sg.Rules.modern(players=3), seed=1)
    >>> beliefs = Beliefs()
    >>> for move in ("JC", "9D", "2D"):
    ...     _ = game.play(move)
    ...     assert beliefs(game.observation(0)) == belief(game.observation(0))
    """

    __slots__ = ("_lock", "_state")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._state: tuple[_Reader, HistoryNode | None, int] | None = None

    def __reduce__(self) -> tuple[type[Beliefs], tuple[()]]:
        """A copy or a pickle starts empty: what is kept is a cache (the next call reads
        the history from its start), and a lock cannot be copied."""
        return (Beliefs, ())

    def __call__(self, observation: Observation) -> Belief | None:
        if not _proves_anything(observation.rules):
            return None
        history = observation.history
        node = history._node
        with self._lock:
            state = self._state
            if (
                state is None
                or state[0].me != observation.seat
                or state[0].rules != observation.rules
                or not _extends(node, state[1])
            ):
                reader, events = _Reader(observation), history.since(0)
            else:
                reader, events = state[0], history.since(state[2])
            self._state = None  # the reader changes below: no stale state if it fails
            try:
                reader.read(events)
            except (AssertionError, IndexError, KeyError, TypeError):
                return None
            self._state = (reader, node, len(history))
            return _conclude(reader, observation)


def _split(key: _Key, needs: dict[int, int]) -> list[tuple[int, ...]]:
    """The slots' barred ranks of ``key`` with its needs made slot by slot: a need of
    slots S is met by a first slot of S holding one of its ranks, so the deals of the case
    are those of the disjoint cases "slot j is the first" (j in S: slot j holds one of
    the ranks, the slots of S before it none), one need after another."""
    cases: list[tuple[int, ...]] = [tuple(f for f, _ in key)]
    for i in sorted({i for _, ids in key for i in ids}):
        ranks = needs[i]
        members = [j for j, (_, ids) in enumerate(key) if i in ids]
        split = []
        for forbid in cases:
            for k, j in enumerate(members):
                new = list(forbid)
                for before in members[:k]:
                    new[before] |= ranks
                new[j] |= _RANK_BITS & ~ranks
                if all(f != _RANK_BITS for f in new):
                    split.append(tuple(new))
        cases = split
    return cases


def _cases(keys: dict[_Key, int], needs: dict[int, int], slots: int) -> tuple[Case, ...]:
    """A seat's cases as the core reads them (needs made slot by slot: :func:`_split`);
    () when they constrain nothing."""
    if all(f == 0 and not ids for key in keys for f, ids in key):
        return ()
    total = sum(keys.values())
    weights: dict[tuple[int, ...], int] = {}
    for key, w in keys.items():
        for split in _split(key, needs):
            if _RANK_BITS in split:
                continue  # a slot that can hold nothing: the case is impossible
            forbid = tuple(sorted(split))  # slots are interchangeable: one order
            weights[forbid] = weights.get(forbid, 0) + w
    ranked = sorted(weights.items(), key=lambda kv: (-kv[1], kv[0]))
    if len(ranked) > MAX_CASES:
        # The rest as one case that allows all they allow: each slot barred only from the
        # ranks every one of them bars at that place (a wider world, never a narrower).
        rest = ranked[MAX_CASES - 1 :]
        wide = [_RANK_BITS] * slots
        for barred, _ in rest:
            wide = [f & g for f, g in zip(wide, barred, strict=True)]
        ranked = [*ranked[: MAX_CASES - 1], (tuple(wide), sum(w for _, w in rest))]
    return tuple(Case(weight=w / total, forbid=barred, needs=()) for barred, w in ranked)
