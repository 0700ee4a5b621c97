"""The endgame solver (skitgubbe.analysis.solve over src/_core/solve.c).

Three brute forces check it. Here, a plain minimax in Python over the binding's
positions (every line, no pruning, no table; a position repeated on the path is a
draw, the same position meaning the same raw fields of the state) solves a few
hundred small positions of every variant, and the solver must agree on each
position's outcome and on every legal move's (the fast tier). Also here, a
retrograde analysis of every position reachable from a root (Graph: no search path,
no rule for repetitions) gives the value of each of tens of thousands of positions,
of the kinds where positions repeat most and where a repetition test that ignored
who moves or the trick's target would go wrong (the test counts both and asserts
they occur); the solver must agree on each, with a fresh table, a tiny one and one
carried from position to position; and every child of a solved root, solved again
with the root's table and with a fresh one, must agree with the root. In the slow tier,
tests/c/solve_check.c, a brute force in C, checks thousands more, cycles, inherited
trick targets and move caps included, and tests/test_sanitizers.py runs it under
the sanitizers. The rest: what the API takes and refuses, the budget, and that the
solver's moves, played by both sides, end the game as it said.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import skitgubbe as sg
from skitgubbe import _core
from skitgubbe.analysis import Outcome, Solution, solve
from skitgubbe.errors import ArgumentError, ArgumentTypeError

ROOT = Path(__file__).resolve().parent.parent
LAYOUT = {name: (offset, size * count) for name, offset, size, count in _core.state_layout()[0]}
DRAW, NO_ANSWER = 0, None


def field(snapshot: bytes, name: str) -> bytes:
    offset, size = LAYOUT[name]
    return snapshot[offset : offset + size]


def position_key(core: _core.Core, rotation: bool) -> tuple[object, ...]:
    """The raw fields the future of a phase-2 position may read."""
    snapshot = core.snapshot()
    length = field(snapshot, "table_len")[0]
    return (
        core.hands,
        core.to_move,
        field(snapshot, "table")[:length],
        field(snapshot, "table_seat")[:length],
        field(snapshot, "table_play")[:length],
        core.trick_target,
        field(snapshot, "trick_turns") if rotation else b"",
    )


class Brute:
    """Minimax over every line; a repetition on the path is a draw."""

    def __init__(self, budget: int) -> None:
        self.budget = budget

    def value(self, core: _core.Core, path: list[tuple[object, ...]]) -> int | None:
        """The value for the player to move (-1, 0, 1), or None past the budget."""
        self.budget -= 1
        if self.budget < 0:
            return NO_ANSWER
        rotation = core.rules[_RULE_INDEX["trick_end"]] == _ROTATION
        key = position_key(core, rotation)
        if key in path:
            return DRAW
        path.append(key)
        best = -2
        for code in core.legal_codes():
            value = self.after(core, code, path)
            if value is NO_ANSWER:
                return NO_ANSWER
            best = max(best, value)
        path.pop()
        return best

    def after(self, core: _core.Core, code: int, path: list[tuple[object, ...]]) -> int | None:
        """The value for core's player to move after move ``code``."""
        child = core.copy()
        child.apply(code)
        if child.phase == int(sg.Phase.OVER):
            if child.loser == _core.NO_SEAT:
                return DRAW
            return -1 if child.loser == core.to_move else 1
        value = self.value(child, path)
        if value is NO_ANSWER or child.to_move == core.to_move:
            return value
        return -value


_RULE_INDEX = {f.name: i for i, f in enumerate(sg.Rules.fields())}
_ROTATION = int(sg.TrickEnd.ROTATION)
_VALUES = {1: Outcome.WIN, 0: Outcome.DRAW, -1: Outcome.LOSS}


def holders(game: sg.Game) -> int:
    return sum(1 for hand in game.hands if hand)


def random_position(rng: random.Random, most: int) -> sg.Game | None:
    """A phase-2 game with two seats holding 1..most cards between them at most
    ``2 * most``, under random rules; None when the game ended first."""
    players = rng.choice((2, 3, 4))
    preset = rng.choice((sg.Rules.classic, sg.Rules.modern))
    rules = preset(
        players=players,
        runs=rng.random() < 0.5,
        pickup=rng.choice(list(sg.Pickup)),
        trick_end=rng.choice(list(sg.TrickEnd)),
        max_moves=rng.choice((10_000, 10_000, 10_000, rng.randint(4, 20))),
    )
    suits = rng.choice(("CDHS", "CDHS", "H", "HS"))  # one suit: runs, pick-ups, repetitions
    deck = [f"{rank}{suit}" for suit in suits for rank in "23456789TJQKA"]
    rng.shuffle(deck)
    sizes = [0] * players
    first, second = rng.sample(range(players), 2)
    for seat in range(players):
        sizes[seat] = rng.randint(1, most) if seat in (first, second) else rng.randint(0, 1)
    if sum(sizes) > len(deck):
        return None
    hands, taken = [], 0
    for size in sizes:
        hands.append(" ".join(deck[taken : taken + size]))
        taken += size
    trump = rng.choice(("C", "D", "H", "S", None))
    game = sg.Game.from_shedding(rules, hands, trump=trump, leader=rng.randrange(players))
    extra = rng.randint(0, 3)
    while game.phase is sg.Phase.SHEDDING and (holders(game) > 2 or extra > 0):
        game.play(rng.choice(game.legal_moves))
        extra -= 1
    return game if game.phase is sg.Phase.SHEDDING and holders(game) == 2 else None


def test_the_solver_agrees_with_a_brute_force_on_every_small_position() -> None:
    rng = random.Random(3303)
    checked = moves_checked = 0
    outcomes: dict[Outcome, int] = {}
    while checked < 300:
        game = random_position(rng, 3)
        if game is None:
            continue
        core = game._core
        truth = Brute(200_000).value(core, [])
        if truth is NO_ANSWER:
            continue
        solution = solve(game)
        assert solution.outcome is _VALUES[truth], (game.hands, game.table, game.rules)
        assert solution.exact and solution.seat == game.to_move
        assert [m.move for m in solution.moves] == list(game.legal_moves)
        for solved in solution.moves:
            value = Brute(200_000).after(core, solved.move.code, [])
            assert value is not NO_ANSWER
            assert solved.outcome is _VALUES[value], (solved, game.hands, game.table, game.rules)
            moves_checked += 1
        # The best move achieves the outcome; the loser is the right seat.
        assert solution.best is not None
        assert solution.move(solution.best).outcome is solution.outcome
        if solution.outcome is Outcome.DRAW:
            assert solution.loser is None and solution.length is None
        else:
            other = next(s for s, hand in enumerate(game.hands) if hand and s != game.to_move)
            expected = game.to_move if solution.outcome is Outcome.LOSS else other
            assert solution.loser == expected and solution.length is not None
        # Without the moves, the same outcome.
        assert solve(game, moves=False).outcome is solution.outcome
        outcomes[solution.outcome] = outcomes.get(solution.outcome, 0) + 1
        checked += 1
    assert moves_checked > checked
    assert outcomes.get(Outcome.WIN, 0) > 20 and outcomes.get(Outcome.LOSS, 0) > 20, outcomes


def test_best_play_from_both_sides_ends_as_solved() -> None:
    rng = random.Random(7)
    played = 0
    while played < 40:
        game = random_position(rng, 5)
        if game is None:
            continue
        first = solve(game, moves=False)
        if first.outcome not in (Outcome.WIN, Outcome.LOSS):
            continue
        assert first.loser is not None and first.length is not None
        moves = 0
        while game.result is None:
            step = solve(game, moves=False)
            assert step.outcome is not Outcome.UNKNOWN and step.best is not None
            assert step.loser == first.loser  # best play keeps the outcome
            game.play(step.best)
            moves += 1
        assert game.result.loser == first.loser
        played += 1


def test_observations_that_place_every_card_and_records_solve_as_the_game() -> None:
    rng = random.Random(11)
    seen = 0
    while seen < 30:
        game = random_position(rng, 4)
        if game is None or game.players != 2:
            continue
        truth = solve(game)
        for seat in range(game.players):
            assert solve(game.observation(seat)) == truth
        if game.record().get("start"):
            assert solve(game.record()) == truth
        seen += 1


def test_what_the_solver_refuses() -> None:
    with pytest.raises(ArgumentError, match="phase 2 only, not phase 1"):
        solve(sg.Game.new(seed=1))
    over = sg.Game.from_shedding(None, ["9D", "JD QD"], trump="S", leader=0)
    over.play("9D")  # seat 0 goes out: seat 1 is the skitgubbe
    assert over.result is not None
    with pytest.raises(ArgumentError, match="game is over"):
        solve(over)
    three = sg.Game.from_shedding(None, ["9D QD", "JD", "AD"], trump="S", leader=0)
    with pytest.raises(ArgumentError, match="two players holding cards, not 3"):
        solve(three)
    with pytest.raises(ArgumentError, match="phase 2 only"):
        solve(sg.Game.new(seed=1).observation(0))
    # Seat 2 goes out; its view cannot place the others' cards between them.
    game = sg.Game.from_shedding(None, ["9D QD 3C", "JD AD 4C", "5D"], trump="S", leader=2)
    game.play("5D")
    assert holders(game) == 2
    with pytest.raises(ArgumentError, match="cannot place every card"):
        solve(game.observation(2))
    assert solve(game.observation(0)) == solve(game)
    for bad in (None, "9D", 3, game.observation(0).core_view):
        with pytest.raises(ArgumentTypeError, match="Game, an Observation or a game record"):
            solve(bad)  # type: ignore[arg-type]
    with pytest.raises(ArgumentError, match="budget must be an int from 0"):
        solve(game, budget=-1)
    with pytest.raises(ArgumentTypeError, match="budget must be an int"):
        solve(game, budget=1.5)  # type: ignore[arg-type]
    with pytest.raises(ArgumentError, match="table_entries must be an int from 2 to 16777216"):
        solve(game, table_entries=1)
    with pytest.raises(ArgumentTypeError, match="moves must be true or false"):
        solve(game, moves=1)  # type: ignore[arg-type]


def test_a_budget_too_small_says_so_and_never_answers_wrong() -> None:
    rng = random.Random(5)
    tried = 0
    while tried < 30:
        game = random_position(rng, 6)
        if game is None:
            continue
        truth = solve(game, moves=False)
        assert truth.exact
        for budget in (0, 1, 3, 10, 30, 100):
            partial = solve(game, budget=budget)
            assert partial.nodes <= budget
            if partial.exact:
                assert partial.outcome is truth.outcome
            else:
                assert partial.stopped == "budget" and partial.loser is None
                assert partial.best is None and partial.length is None
            for solved in partial.moves:
                if solved.outcome is not Outcome.UNKNOWN:
                    assert solved.outcome is solve(game).move(solved.move).outcome
        tried += 1
    assert game is not None
    nothing = solve(game, budget=0)
    assert not nothing.exact and "the search stopped (budget)" in str(nothing)


def test_a_solution_is_data() -> None:
    game = sg.Game.from_shedding(None, ["9D QD 5C", "JD AD 4C"], trump="S", leader=0)
    solution = solve(game)
    assert isinstance(solution, Solution)
    data = solution.to_dict()
    assert data["outcome"] == solution.outcome.value and len(data["moves"]) == 3
    assert str(solution).startswith("seat 0 to move ")
    assert solution == solve(game)  # seconds aside, the same search gives the same answer


# -- an exhaustive search of every position reached, where positions repeat ------------------


class Graph:
    """Every position reachable from a root, each with its value by retrograde analysis.

    Independent of the solver and of :class:`Brute`: no search path and no rule for
    repetitions. A position is its raw fields (:func:`position_key`); a value is WIN (1)
    when a move leads to a position the mover wins, LOSS (-1) when every move leads to
    one he loses, both found by iterating to a fixed point from the game's ends, and a
    draw (0) for the rest: play that never ends, the move cap aside. The cap: while at
    least as many moves remain as there are positions, no win needs more (a win's
    distance is at most the number of positions), so the cap changes nothing; else each
    position also carries its move count, and the graph has no cycles. ``nodes`` is
    None when the root reaches more than ``most`` positions.
    """

    def __init__(self, root: _core.Core, most: int) -> None:
        self.rotation = root.rules[_RULE_INDEX["trick_end"]] == _ROTATION
        self.nodes: int | None = None
        self.cores: list[_core.Core] = []
        self.index: dict[tuple[object, ...], int] = {}
        # Per position, each move's (child index or -1 for an end, sign or end value).
        self.edges: list[list[tuple[int, int]]] = []
        self.value: list[int] = []
        self.by_moves = False
        for by_moves in (False, True):
            if self._explore(root, by_moves, most):
                return

    def key(self, core: _core.Core) -> tuple[object, ...]:
        extra = (core.moves,) if self.by_moves else ()
        return (*position_key(core, self.rotation), *extra)

    def _explore(self, root: _core.Core, by_moves: bool, most: int) -> bool:
        self.by_moves = by_moves
        self.cores, self.index, self.edges = [root], {self.key(root): 0}, []
        capped = False
        for core in self.cores:  # grows as it goes: breadth first
            out = []
            for code in core.legal_codes():
                child = core.copy()
                child.apply(code)
                if child.phase == int(sg.Phase.OVER):
                    capped |= child.loser == _core.NO_SEAT
                    out.append(
                        (
                            -1,
                            0
                            if child.loser == _core.NO_SEAT
                            else -1
                            if child.loser == core.to_move
                            else 1,
                        )
                    )
                    continue
                found = self.index.setdefault(self.key(child), len(self.cores))
                if found == len(self.cores):
                    if found >= most:
                        return False
                    self.cores.append(child)
                out.append((found, 1 if child.to_move == core.to_move else -1))
            self.edges.append(out)
        left = root.rules[_RULE_INDEX["max_moves"]] - root.moves
        if not by_moves and (capped or left < len(self.cores) + 2):
            return False
        value: list[int | None] = [None] * len(self.cores)
        changed = True
        while changed:
            changed = False
            for i, out in enumerate(self.edges):
                if value[i] is not None:
                    continue
                seen = [v if j < 0 else None if value[j] is None else value[j] * v for j, v in out]
                if 1 in seen or all(v == -1 for v in seen):
                    value[i] = 1 if 1 in seen else -1
                    changed = True
        self.value = [0 if v is None else v for v in value]
        self.nodes = len(self.cores)
        return True

    def components(self) -> list[int]:
        """Each position's strongly connected component, numbered so that positions
        that can repeat, and only they, share theirs with others (Kosaraju's two
        passes, without recursion)."""
        links = [[j for j, _ in out if j >= 0] for out in self.edges]
        back: list[list[int]] = [[] for _ in links]
        for i, out in enumerate(links):
            for j in out:
                back[j].append(i)
        order: list[int] = []
        seen = [False] * len(links)
        for start in range(len(links)):
            if seen[start]:
                continue
            seen[start] = True
            stack = [(start, 0)]
            while stack:
                i, k = stack.pop()
                if k < len(links[i]):
                    stack.append((i, k + 1))
                    j = links[i][k]
                    if not seen[j]:
                        seen[j] = True
                        stack.append((j, 0))
                else:
                    order.append(i)
        component = [-1] * len(links)
        sizes: list[int] = []
        for start in reversed(order):
            if component[start] >= 0:
                continue
            component[start] = len(sizes)
            members, todo = 1, [start]
            while todo:
                for j in back[todo.pop()]:
                    if component[j] < 0:
                        component[j] = len(sizes)
                        members += 1
                        todo.append(j)
            sizes.append(members)
        return component

    def fooling(self, component: list[int]) -> tuple[int, int]:
        """Positions whose value a repetition test that ignored who moves (first count)
        or the trick's target (second) would decide wrongly: the position and one it
        reaches and that reaches it back (``component``: the same component) have the
        same hands and the same table, are told apart only by who moves (by the target),
        and have different losers; for the target, one reaches the other (a target of
        three or four never comes back). A search that took the second for a repetition of the
        first would score it a draw."""
        groups: dict[tuple[object, ...], list[int]] = {}
        for i, core in enumerate(self.cores):
            snapshot = core.snapshot()
            length = field(snapshot, "table_len")[0]
            plays = field(snapshot, "table_play")[:length]
            starts = bytes(plays[k] != plays[k - 1] for k in range(1, length))
            seats = field(snapshot, "table_seat")[:length] if self.rotation else b""
            table = field(snapshot, "table")[:length]
            groups.setdefault((core.hands, table, starts, seats), []).append(i)
        found = [0, 0]
        links: list[list[int]] = []
        for members in groups.values():
            for i in members:
                a = self.cores[i]
                for j in members:
                    b = self.cores[j]
                    by_mover, by_target = a.to_move != b.to_move, a.trick_target != b.trick_target
                    if by_mover == by_target or self.loser(i) == self.loser(j):
                        continue
                    if by_mover:
                        found[0] += component[i] == component[j]
                    else:  # a trick's target of 3 or 4 never comes back: one way only
                        links = links or [[k for k, _ in out if k >= 0] for out in self.edges]
                        found[1] += j in self.reach(i, links)
        return found[0], found[1]

    @staticmethod
    def reach(i: int, links: list[list[int]]) -> set[int]:
        """The positions reachable from ``i`` along ``links``, ``i`` included."""
        seen, todo = {i}, [i]
        while todo:
            for j in links[todo.pop()]:
                if j not in seen:
                    seen.add(j)
                    todo.append(j)
        return seen

    def loser(self, i: int) -> int | None:
        core, value = self.cores[i], self.value[i]
        if value == 0:
            return None
        other = next(s for s, hand in enumerate(core.hands) if hand and s != core.to_move)
        return core.to_move if value < 0 else other


def inherited_position(rng: random.Random, most: int, ranks: int = 13) -> sg.Game | None:
    """The kind where a repetition test is easiest to fool: three or four seats, the
    others holding one card each and the first of them to lead, one suit of ``ranks``
    cards from the two up, no trump; played on at random until two seats hold cards.
    The trick keeps its target of three or four, so one table can come back with the
    other seat to move or, once a pick-up has emptied it, under a target of two. With
    a short suit (``ranks`` < 13): four seats, runs, the top pick-up and tricks ended
    by count, where the cards go back and forth most (a run is picked up card by card),
    the two holding ``most`` cards each, and the same positions come back from many
    deals."""
    short = ranks < 13
    players = 4 if short else rng.choice((3, 4, 4))
    preset = rng.choice((sg.Rules.classic, sg.Rules.modern))
    rules = preset(
        players=players,
        runs=short or rng.random() < 0.5,
        pickup=sg.Pickup.TOP if short else rng.choice((*sg.Pickup, sg.Pickup.TOP)),
        trick_end=sg.TrickEnd.COUNT if short else rng.choice(list(sg.TrickEnd)),
    )
    deck = [f"{rank}H" for rank in "23456789TJQKA"[:ranks]]
    rng.shuffle(deck)
    first, second = rng.sample(range(players), 2)
    low = most if short else 1  # a short suit: the two hold ``most`` cards each
    sizes = [rng.randint(low, most) if seat in (first, second) else 1 for seat in range(players)]
    if sum(sizes) > len(deck):
        return None
    hands = [" ".join(deck[sum(sizes[:seat]) : sum(sizes[: seat + 1])]) for seat in range(players)]
    leader = next(seat for seat in range(players) if seat not in (first, second))
    game = sg.Game.from_shedding(rules, hands, trump=None, leader=leader)
    while game.phase is sg.Phase.SHEDDING and holders(game) > 2:
        game.play(rng.choice(game.legal_moves))
    return game if game.phase is sg.Phase.SHEDDING and holders(game) == 2 else None


def where(game: sg.Game, core: _core.Core) -> tuple[object, ...]:
    """A position, as a failing assertion names it."""
    shown = sg.Game._from_world(game.rules, core.copy())
    return game.rules, shown.hands, shown.table, shown.to_move, core.trick_target


def as_seen_by(mover: int, child: _core.Core, value: int) -> int:
    """A child position's value (for its player to move) as ``mover`` sees it."""
    return value if child.to_move == mover else -value


def test_the_solver_agrees_with_an_exhaustive_search_where_positions_repeat() -> None:
    # Every position reachable from each root, solved alone (a fresh table of 64
    # entries, so that entries are replaced all the time) and by one solver whose table
    # lives on from position to position, against the graph's values; every fourth with
    # each legal move's value. The kinds: tricks that keep a target of three or four
    # with two seats holding cards, and any position (random_position).
    rng = random.Random(4040)
    shared = _core.Solver(2**12)
    done: set[tuple[object, ...]] = set()
    roots_seen: set[tuple[object, ...]] = set()
    roots = solved = moves_checked = cycles = 0
    fooled = [0, 0]
    for attempt in range(400):
        kind = attempt % 4
        if kind == 0:
            game = random_position(rng, 3)
        else:
            game = inherited_position(rng, 2, ranks=6) if kind < 3 else inherited_position(rng, 4)
        if game is None or (game.rules, *position_key(game._core, True)) in roots_seen:
            continue  # a root met before: its graph was solved with it
        graph = Graph(game._core, 5_000)
        if graph.nodes is None:
            continue
        roots += 1
        if game.rules.max_moves == 10_000:  # far beyond any graph's size: no move counts
            roots_seen.update((game.rules, *position_key(core, True)) for core in graph.cores)
        component = graph.components()
        cycles += len(component) - len(set(component))
        for count, kind in enumerate(graph.fooling(component)):
            fooled[count] += kind
        for i, core in enumerate(graph.cores):
            key = (game.rules, *graph.key(core))
            if key in done:
                continue
            done.add(key)
            per_move = solved % 4 == 0
            answer = _core.solve(core.snapshot(), 10**7, 64, per_move)
            again = shared.solve(core.snapshot(), 10**7, False)
            assert answer[0] == graph.value[i] == again[0], where(game, core)
            for code, value, _ in answer[7]:
                child = core.copy()
                child.apply(code)
                if child.phase != int(sg.Phase.OVER):
                    j = graph.index[graph.key(child)]
                    assert value == as_seen_by(core.to_move, child, graph.value[j]), where(
                        game, core
                    )
                    moves_checked += 1
            solved += 1
    # The checks have power only where positions repeat: such positions must occur, and
    # so must positions whose value a repetition test that ignored who moves, or the
    # trick's target, would decide wrongly. (Draws by a cycle, where both players can
    # avoid losing for ever, do not occur here, nor anywhere else we looked: every
    # position of these kinds has a loser, so a repetition decides values only inside
    # a search, where a wrong repetition test or table entry shows as a wrong value.)
    assert solved > 50_000 and moves_checked > 20_000, (solved, moves_checked)
    assert cycles > 20_000, cycles
    assert fooled[0] > 2_000 and fooled[1] > 100, fooled


def test_solving_every_child_of_a_solved_root_again_agrees_with_the_root() -> None:
    # The root's value is the best of its children's as its mover sees them, each
    # child solved again with the table the root's search left and with a fresh one;
    # and every move's value (sg_solve_moves, the same table) is its child's.
    rng = random.Random(4041)
    checked = 0
    while checked < 1_000:
        game = inherited_position(rng, 3) if checked % 2 else random_position(rng, 4)
        if game is None:
            continue
        core = game._core
        same = _core.Solver(2**10)
        root = same.solve(core.snapshot(), 10**7, False)[0]
        per_move = {code: value for code, value, _ in same.solve(core.snapshot(), 10**7, True)[7]}
        best = -2
        for code in core.legal_codes():
            child = core.copy()
            child.apply(code)
            if child.phase == int(sg.Phase.OVER):
                value = (
                    0 if child.loser == _core.NO_SEAT else -1 if child.loser == core.to_move else 1
                )
            else:
                again = same.solve(child.snapshot(), 10**7, False)[0]
                fresh = _core.solve(child.snapshot(), 10**7, 2**10, False)[0]
                assert again == fresh, (game.rules, game.hands, game.table, code)
                value = as_seen_by(core.to_move, child, again)
            assert per_move[code] == value, (game.rules, game.hands, game.table, code)
            best = max(best, value)
        assert best == root, (game.rules, game.hands, game.table)
        checked += 1


def compiler() -> str:
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        if os.environ.get("CI"):
            pytest.fail("no C compiler: CI must run the solver's brute force")
        pytest.skip("no C compiler on this machine")
    return cc


@pytest.mark.slow
def test_the_solver_agrees_with_the_c_brute_force_on_thousands_of_positions(
    tmp_path: Path,
) -> None:
    core = ROOT / "src" / "_core"
    exe = tmp_path / "solve_check"
    build = subprocess.run(
        [compiler(), "-std=c99", "-O2", f"-I{core}", *sorted(map(str, core.glob("*.c"))),
         str(ROOT / "tests" / "c" / "solve_check.c"), "-o", str(exe), "-lm"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr
    # Every kind of position, then the kind where positions repeat most.
    for args, least in ((["3000", "33"], 3000), (["1000", "34", "0", "12"], 1000)):
        done = subprocess.run(
            [str(exe), *args], capture_output=True, text=True, check=False, timeout=1800
        )
        assert done.returncode == 0, done.stdout + done.stderr
        found = re.search(r"ok, (\d+) positions agree.*?(\d+) with repetitions", done.stdout)
        assert found and int(found[1]) == least and int(found[2]) > 0, done.stdout


# -- the solver in the search: ISMCTSBot(solver=N) --------------------------------------------


def test_ismcts_with_the_solver_picks_winning_moves_where_some_moves_lose() -> None:
    rng = random.Random(2)
    deck = [f"{rank}{suit}" for suit in "CDHS" for rank in "23456789TJQKA"]
    found = 0
    while found < 15:
        rng.shuffle(deck)
        hands = [" ".join(deck[:6]), " ".join(deck[6:12])]
        game = sg.Game.from_shedding(
            sg.Rules.classic(players=2), hands, trump=deck[12][-1], leader=0
        )
        solution = solve(game)
        if solution.outcome is not Outcome.WIN or all(
            m.outcome is Outcome.WIN for m in solution.moves
        ):
            continue
        bot = sg.bots.ISMCTSBot(iterations=3000, solver=12, seed=found)  # the root solved
        assert solution.move(bot.choose(game.observation(0))).outcome is Outcome.WIN
        found += 1


def test_the_solver_option_is_checked_where_the_bot_is_made() -> None:
    assert sg.bots.ISMCTSBot(solver=0).solver == 0
    assert "solver=12" in repr(sg.bots.ISMCTSBot(solver=12))
    assert "solver" not in repr(sg.bots.ISMCTSBot())
    for bad in (-1, 53, 2**32):
        with pytest.raises(ArgumentError, match="solver must be an int from 0"):
            sg.bots.ISMCTSBot(solver=bad)
    for wrong in (1.5, True, "12", None):
        with pytest.raises(ArgumentTypeError, match="solver must be an int from 0"):
            sg.bots.ISMCTSBot(solver=wrong)  # type: ignore[arg-type]
    assert sg.bots.check_plain_spec("ismcts:time=0.01,solver=12") == (
        "ismcts",
        {"time": 0.01, "solver": 12},
    )
    with pytest.raises(ArgumentError, match="option solver must be a whole number"):
        sg.bots.check_plain_spec("ismcts:solver=all")
    assert isinstance(sg.bots.make("ismcts:iterations=50,solver=10"), sg.bots.ISMCTSBot)


def test_a_search_with_the_solver_answers_legal_moves_in_every_phase() -> None:
    rng = random.Random(9)
    for seed in range(6):
        game = sg.Game.new(sg.Rules.classic(players=rng.choice((2, 3))), seed=seed)
        bot = sg.bots.ISMCTSBot(iterations=100, solver=14, seed=seed)
        while (seat := game.to_move) is not None:
            game.play(bot.choose(game.observation(seat)))
        assert game.result is not None


def test_choose_solves_the_root_when_it_can_and_searches_when_it_cannot() -> None:
    game = sg.Game.from_shedding(None, ["QS JC KH JD", "4C AH 8D KC"], trump="S", leader=0)
    solution = solve(game)
    assert solution.outcome is Outcome.WIN
    bot = sg.bots.ISMCTSBot(iterations=300, solver=12, seed=1)
    assert solution.move(bot.choose(game.observation(0))).outcome is Outcome.WIN
    assert bot.last_search[0] == 0 and bot.last_search[1] > 0  # solved, not searched
    small = sg.bots.ISMCTSBot(iterations=300, solver=7, seed=1)  # 8 cards: too many
    small.choose(game.observation(0))
    assert small.last_search[0] == 300
    starved = sg.bots.ISMCTSBot(iterations=1, solver=12, seed=1)  # a budget of 10 positions
    starved.choose(game.observation(0))
    assert starved.last_search[0] == 1
    three = sg.Game.from_shedding(None, ["9D QD", "JD 3C", "AD 4S"], trump="S", leader=0)
    searched = sg.bots.ISMCTSBot(iterations=200, solver=12, seed=1)
    searched.choose(three.observation(0))
    assert searched.last_search[0] == 200
