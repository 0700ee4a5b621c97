"""A table's configuration and its checks: the rules, who sits where, the clocks.

:class:`TableConfig` is what the lobby is asked for (JSON from a request) and what the store
keeps; :meth:`TableConfig.from_json` checks every field, each size before anything is built
from it, against the server's bounds (the constants below).

>>> from skitgubbe.server.config import TableConfig
>>> TableConfig.from_json({"players": 2}).seats
(None, 'greedy')
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import Any, Final

import attrs

from .. import bots
from ..bots.levels import LevelBot
from ..bots.net import NetBot
from ..bots.search import ISMCTSBot, PIMCBot
from ..errors import SkitgubbeError
from ..game.rules import Rules
from ..play.players import Player
from .errors import TableError, shorten

__all__ = [
    "BOT_PREFIX",
    "CHEAP_BOTS",
    "ENGINE_PREFIX",
    "MAX_BOT_ITERATIONS",
    "MAX_BOT_SECONDS",
    "MAX_DECISION_SECONDS",
    "MAX_MOVES",
    "MAX_PLAYERS",
    "MAX_SPEC",
    "MIN_PLAYERS",
    "OPERATOR_ONLY",
    "TableConfig",
    "bot_cost",
    "decision_seconds",
]

MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 4
"""A table seats 2 to 4 players (the rules allow no other number)."""
MAX_MOVES: Final = 10_000
"""The largest ``max_moves`` a table's rules may set (a game stops there, a draw)."""
MAX_BOT_ITERATIONS: Final = 20_000
"""The default bound on a searching bot's work per move (see :class:`TableConfig`)."""
MAX_BOT_SECONDS: Final = 10.0
"""The longest time budget per move a searching bot may be given, in seconds of work
(``ismcts:time=S``, times its ``threads``: each thread searches ``S`` seconds)."""
MAX_DECISION_SECONDS: Final = 0.5
"""The most CPU-seconds of work a seat's bot may cost a decision (:func:`decision_seconds`,
its price in the worst positions measured). Chosen to admit the levels and the default
searches with room (``expert`` is priced 0.28 s, ``pimc`` 0.20 s, ``hard`` and ``ismcts``
0.13 s; a fresh bot of each took at most 0.21, 0.02 and 0.08 s a decision in the positions
of benchmarks/test_bot_cost.py) and to refuse what issue 40 found taking a server down: a
search rolling out with the network (``"ismcts:iterations=20000,rollout=net"``, priced
48 s), PIMC with thousands of worlds, long time budgets (``"ismcts:time=10"``). It admits up to
16,600 iterations of the default ISMCTS, or a time budget of 0.44 s of work on one thread."""

# -- the cost model: CPU-seconds of work on one core, from benchmarks/test_bot_cost.py --
#
# Each constant is the largest value benchmarks/test_bot_cost.py measured (CPU time,
# time.process_time, one core of an AMD EPYC of 2026) over its positions, rounded up by
# about a quarter to a half: the start, 20 and 60 moves into games of the slowest rule set
# found (benchmarks/test_core.py: runs, whole-pile pick-ups, 5-card hands, no trump,
# everyone to each trick; 3 and 4 players) and classic games of 3 and 4 players. The
# slowest rules cost two to three times as much an iteration as a typical classic position,
# so a price is an upper estimate for the worst position of the worst rules, not a typical
# one. ``python -m pytest benchmarks/test_bot_cost.py`` measures them again and fails when
# one is above its constant.

SEARCH_DECISION_SECONDS: Final = 0.0005
"""A search's fixed cost a decision (its view, the C call, the root's moves; measured
0.04–0.07 ms), and a root solve's clearing of its table."""
BELIEF_SECONDS: Final = 0.05
"""What ``sampling="exact"`` (the default) costs a decision at most: the worlds' constraints
read from the history (:mod:`skitgubbe.game.worlds`), by a bot that reads it whole (a fresh
one, after a restart). Measured at most 35 ms over 1,134 positions of 43 rule sets, 15 ms at
the 99th percentile; a bot at a table reads on from its last decision, so usually far less."""
ISMCTS_ITERATION_SECONDS: Final = 3e-6
"""One ISMCTS iteration without its rollout: a world sampled, the tree descended, a node
added (measured at most 1.9 µs with exact worlds, 1.4 µs with uniform ones, with
``rollout_cap=1``)."""
ROLLOUT_MOVE_SECONDS: Final[Mapping[str, float]] = {
    "random": 0.08e-6,
    "greedy": 0.12e-6,
    "mixed": 0.12e-6,
    "mast": 0.3e-6,
    "nast": 0.3e-6,
    "net": 12e-6,
}
"""One move of a rollout by its policy (``rollout``), or by the playout that draws its
random moves (``playout=mast`` or ``nast``), when the rollout runs to its cap (measured at
most 0.06, 0.09, 0.10, 0.22, 0.19 and 11 µs a move: the built-in policies in C, ``net`` a
forward pass of the network a move)."""
ROLLOUT_MOVES: Final[Mapping[str, int]] = {
    "random": 500,
    "greedy": 300,
    "mixed": 300,
    "mast": 500,
    "nast": 500,
    "net": MAX_MOVES,
}
"""The longest a rollout runs when its cap does not stop it: a built-in policy ends the game
within about 470 moves (random) and 250 (greedy, mixed) on average in the slowest positions
measured (its cost stops growing with the cap there); the network's best move can go round
in circles until the rules' ``max_moves`` (at most :data:`MAX_MOVES`: a rollout of 10,000
moves cost 36 ms), so its cap is priced in full (capped at 2,000 moves, the benchmark's
rollouts with the network ran about 400 on average: a fifth of the price)."""
PIMC_ROLLOUT_SECONDS: Final = 1e-6
"""A PIMC rollout's cost besides its moves: its move applied to a copy of the world
(measured at most 0.4 µs with ``rollout_cap=1``)."""
PIMC_WORLD_SECONDS: Final = 8e-6
"""A world PIMC samples (measured at most 4 µs, exact)."""
NET_EVAL_SECONDS: Final[Mapping[str, float]] = {"values": 16e-6, "prior": 22e-6}
"""One evaluation of the network by a search: its values alone (a PIMC move's world with
``net=true``, an ISMCTS leaf with ``prior=false``; measured at most 13.8 and 5.5 µs), or the
priors of a new node with them (``net=true``; measured at most 17 µs besides the iteration)."""
SOLVER_LEAF_SECONDS: Final = 8e-6
"""What ``solver`` adds to an ISMCTS iteration in an endgame (leaves solved, at most 2,000
positions each, one table for the search; measured at most 5 µs)."""
SOLVE_POSITION_SECONDS: Final = 0.4e-6
"""One position of a root solve (``solver``: within 10 positions an iteration of the budget,
or a million a second of ``time``; measured 0.16–0.18 µs)."""
ROOT_SOLVE_POSITIONS: Final = (10, 1_000_000)
"""A root solve's budget (``solver``): positions an iteration, and a second of ``time``, as
:class:`~skitgubbe.bots.ISMCTSBot` gives it."""
THREAD_SECONDS: Final = 0.0002
"""Starting and joining one more thread of a decision (``threads``; measured 0.1 ms)."""
NET_DECISION_SECONDS: Final = 0.0002
"""The ``net`` bot's decision, one forward pass (measured 0.04 ms)."""
PIMC_LEGAL_MOVES: Final = 64
"""The legal moves PIMC is priced for (it plays ``worlds × rollouts`` games after each):
a measured 99.9th percentile, 61, of 75,626 decisions with two or more moves in games of
400 random rule sets, rounded up (the median is 4, the 99th percentile 33; the most seen
was 127, in 2-player rules with runs; the core allows 512)."""
MAX_SPEC: Final = 200
"""The longest bot spec, in characters."""
CHEAP_BOTS: Final = frozenset({"random", "greedy"})
"""The bots that move in the event loop itself (no search), and may stand in for a seat."""
ENGINE_PREFIX: Final = "engine:"
"""A seat spec ``"engine:NAME"`` sits one of the server's named engines."""
BOT_PREFIX: Final = "bot:"
"""A seat spec ``"bot:NAME"`` sits one of the bots the server's operator named."""
OPERATOR_ONLY: Final = (
    "a table's seats name built-in bots and levels with plain options only; a bot that "
    "needs a file, a module, a C policy or a program is named by the server's operator "
    "(skitgubbe serve --bot NAME=SPEC or --engine NAME=SPEC) and seated as 'bot:NAME' or "
    "'engine:NAME'"
)
"""Where the bots a client may not name are configured (said with every refusal)."""


def _number(value: object, name: str, low: float, high: float, default: float | None) -> Any:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise TableError(f"{name} must be a number {low:g} … {high:g}, not {shorten(value)}")
    return value


def _rules(data: object, players: int, stored: bool) -> Rules:
    """A table's rules from its JSON (a preset name, or fields over a preset)."""
    try:
        if isinstance(data, str):
            rules = Rules.preset(data, players=players)
        elif isinstance(data, Mapping):
            fields = {k: v for k, v in data.items() if k not in ("preset", "players")}
            preset = data.get("preset", "classic")
            if not isinstance(preset, str):
                raise TableError(f"rules.preset must be a preset name, not {shorten(preset)}")
            named = data.get("players", players)
            if named != players:  # the seats decide it: a different number is a mistake
                raise TableError(
                    f"rules.players is {shorten(named)}, but the table has {players} seats "
                    "(leave it out: the seats decide it)"
                )
            base = Rules.preset(preset, players).to_dict()
            rules = Rules.from_dict({**base, **fields})
        else:
            raise TableError("rules must be a preset name or a JSON object of rules")
    except TableError:
        raise
    except SkitgubbeError as error:
        raise TableError(f"rules: {error}") from None
    if rules.max_moves > MAX_MOVES and not stored:
        raise TableError(f"rules.max_moves must be at most {MAX_MOVES}, not {rules.max_moves}")
    return rules


def bot_cost(bot: Player) -> tuple[int | None, float | None]:
    """A searching bot's budget per move: ``(iterations, seconds)``, either ``None`` when
    it sets none (``(None, None)``: the bot does not search, or the server cannot tell).

    ISMCTS counts its ``iterations`` (the total over its ``threads``, which share them)
    and its ``time`` times its ``threads`` (each thread searches that long: the seconds
    are seconds of work, not of waiting); PIMC plays ``worlds × rollouts`` games per legal
    move, counted as that many iterations.

    >>> from skitgubbe import bots
    >>> from skitgubbe.server.config import bot_cost
    >>> bot_cost(bots.make("ismcts:iterations=400")), bot_cost(bots.make("greedy"))
    ((400, None), (None, None))
    >>> bot_cost(bots.make("ismcts:iterations=400,threads=2"))
    (400, None)
    >>> bot_cost(bots.make("ismcts:time=0.5,threads=2"))
    (None, 1.0)
    >>> bot_cost(bots.make("pimc:worlds=8,rollouts=4"))
    (32, None)
    >>> bot_cost(bots.make("expert"))  # a strength level costs what its bot does
    (100000, 0.19)
    """
    if isinstance(bot, LevelBot):  # a strength level: the bot it plays
        return bot_cost(bot.bot)
    if isinstance(bot, ISMCTSBot):
        return bot.iterations, None if bot.time is None else bot.time * bot.threads
    if isinstance(bot, PIMCBot):
        return bot.worlds * bot.rollouts, None
    return None, None


def _rollout_seconds(rollout: str, playout: str, cap: int) -> float:
    """One rollout's moves: capped at ``cap``, at most what its policy runs on its own."""
    kind = rollout if playout == "plain" else playout
    move = max(ROLLOUT_MOVE_SECONDS[kind], ROLLOUT_MOVE_SECONDS.get(rollout, 0.0))
    return min(cap, ROLLOUT_MOVES[kind]) * move


def _ismcts_seconds(bot: ISMCTSBot) -> float:
    """The price of one ISMCTS decision (see :func:`decision_seconds`)."""
    net = bot.net is not False
    iteration = ISMCTS_ITERATION_SECONDS
    if net and (bot.prior or bot.leaf == "net"):
        iteration += NET_EVAL_SECONDS["prior" if bot.prior else "values"]
    if not (net and bot.leaf == "net") or bot.blend is not None:  # a rollout at each leaf
        iteration += _rollout_seconds(bot.rollout, bot.playout, bot.rollout_cap)
    solve = 0.0
    if bot.solver:
        iteration += SOLVER_LEAF_SECONDS
        budgets: list[float] = []
        if bot.iterations is not None:
            budgets.append(ROOT_SOLVE_POSITIONS[0] * bot.iterations)
        if bot.time is not None:
            budgets.append(ROOT_SOLVE_POSITIONS[1] * bot.time)
        solve = min(budgets) * SOLVE_POSITION_SECONDS  # the root's, before the search
    search = math.inf if bot.iterations is None else bot.iterations * iteration
    if bot.time is not None:  # each thread searches that long, and ends its iteration
        search = min(search, bot.threads * (bot.time + iteration))
    beliefs = BELIEF_SECONDS if bot.sampling == "exact" else 0.0
    threads = (bot.threads - 1) * THREAD_SECONDS
    return SEARCH_DECISION_SECONDS + beliefs + threads + solve + search


def _pimc_seconds(bot: PIMCBot) -> float:
    """The price of one PIMC decision (see :func:`decision_seconds`)."""
    if bot.net is not False:  # each move's world scored by the network, not rolled out
        game = PIMC_ROLLOUT_SECONDS + NET_EVAL_SECONDS["values"]
        games = bot.worlds * PIMC_LEGAL_MOVES
    else:
        game = PIMC_ROLLOUT_SECONDS + _rollout_seconds(bot.rollout, "plain", bot.rollout_cap)
        games = bot.worlds * bot.rollouts * PIMC_LEGAL_MOVES
    beliefs = BELIEF_SECONDS if bot.sampling == "exact" else 0.0
    worlds = bot.worlds * PIMC_WORLD_SECONDS
    return SEARCH_DECISION_SECONDS + beliefs + worlds + games * game


def decision_seconds(bot: Player) -> float:
    """What one decision of ``bot`` (the bot of a plain spec) costs the server: an upper
    estimate, in CPU-seconds on one core, for the worst positions measured (the slowest
    rule set found, see the constants above; a typical classic position costs a half to a
    third of it), from the constants measured by ``benchmarks/test_bot_cost.py``.

    ISMCTS: its ``iterations`` times one iteration's price (the tree's work, the network's
    evaluation with ``net=true``, a rollout of ``min(rollout_cap, what the policy runs)``
    moves at the policy's price a move unless the network scores the leaf, the solver's
    leaves), or with ``time`` that many seconds on each of its ``threads`` when that is less;
    plus a root solve's budget with ``solver``, the exact worlds' beliefs and the threads'
    start. PIMC: ``worlds × rollouts`` rollouts after each of
    :data:`PIMC_LEGAL_MOVES` legal moves (with ``net=true``, ``worlds`` evaluations of the
    network a move instead). A level costs what its bot costs; ``random`` and ``greedy`` cost
    0, ``net`` a forward pass. A bot that is no plain spec's (an operator's, a program) is not
    priced here: 0.

    >>> from skitgubbe import bots
    >>> from skitgubbe.server.config import decision_seconds
    >>> round(decision_seconds(bots.make("ismcts")), 2)  # 3,000 iterations, mixed rollouts
    0.13
    >>> round(decision_seconds(bots.make("ismcts:iterations=20000,rollout=net")))
    48
    >>> round(decision_seconds(bots.make("ismcts:iterations=20000")), 2)  # the same, mixed
    0.59
    >>> decision_seconds(bots.make("ismcts:time=10")) > 10  # ten seconds and an iteration
    True
    >>> [round(decision_seconds(bots.make(spec)), 2) for spec in ("expert", "pimc", "hard")]
    [0.28, 0.2, 0.13]
    >>> decision_seconds(bots.make("greedy")), decision_seconds(bots.make("easy"))
    (0.0, 0.0)
    """
    if isinstance(bot, LevelBot):  # a strength level: the bot it plays, or its fallback
        fallback = 0.0 if bot.fallback is None else decision_seconds(bot.fallback)
        return max(decision_seconds(bot.bot), fallback)
    if isinstance(bot, ISMCTSBot):
        return _ismcts_seconds(bot)
    if isinstance(bot, PIMCBot):
        return _pimc_seconds(bot)
    if isinstance(bot, NetBot):
        return NET_DECISION_SECONDS
    return 0.0  # random and greedy cost next to nothing; any other bot is not priced here


def _seconds(value: float) -> str:
    """Seconds as a price is told: two figures, whole seconds from 10 on."""
    return f"{value:,.0f}" if value >= 10 else f"{value:.2g}"


def _check_plain(
    seat: int, spec: str, stored: bool, max_iterations: int, max_seconds: float
) -> None:
    """Refuse ``spec`` unless it is plain (and, when not ``stored``, within the bounds
    of cost): it is only parsed and checked, and the bot it names made, which reads no
    file, imports and compiles nothing."""
    try:
        bots.check_plain_spec(spec)
        bot = bots.make(spec, seed=0)
    except SkitgubbeError as error:
        raise TableError(f"seat {seat}: {error}; {OPERATOR_ONLY}") from None
    if not stored:
        price = decision_seconds(bot)
        if price > max_seconds:
            raise TableError(
                f"seat {seat}: {spec!r} costs about {_seconds(price)} s of work a decision; "
                f"this server allows {_seconds(max_seconds)} s"
            )
        _check_cost(seat, spec, bot, max_iterations)


def _check_cost(seat: int, spec: str, bot: Player, max_iterations: int) -> None:
    """The bound on iterations of before the price (:func:`bot_cost`), kept for operators
    who lower it."""
    iterations, seconds = bot_cost(bot)
    if iterations is None and seconds is None:
        return
    if iterations is not None and iterations <= max_iterations:
        return  # with a time budget too, it stops at whichever comes first
    if seconds is not None and seconds <= MAX_BOT_SECONDS:
        return
    raise TableError(
        f"seat {seat}: {spec!r} searches too much for this server: at most "
        f"{max_iterations} iterations (pimc: worlds × rollouts) or {MAX_BOT_SECONDS:g} s "
        "per move (ismcts: time × threads)"
    )


@attrs.define(frozen=True)
class TableConfig:
    """How a table plays: its rules, who sits where, its clocks.

    ``seats`` has one entry per seat: ``None`` for a person (claimed in the
    lobby), a plain bot spec (:func:`skitgubbe.bots.check_plain_spec`: a built-in
    bot or level with numbers, true/false and built-in words as options, such as
    ``"greedy"``, ``"expert"`` or ``"ismcts:iterations=500"``), ``"bot:NAME"`` for
    one of the bots the server's operator named (any bot spec, a weight file or a C
    policy of its own), or ``"engine:NAME"`` for one of the engines the server was
    started with (a program in a process of its own). What a client sends is data:
    no seat it names makes the server read a file, import a module or compile code.
    ``move_time`` bounds a person's answer in seconds (``None``: no limit); a person
    who runs out of it gets a stand-in (``stand_in``, a bot spec) for that move, as with
    :func:`~skitgubbe.play_game_async`'s ``on_timeout="bot"``. Spectators see
    the table ``spectator_delay`` seconds late; bots wait ``bot_delay`` seconds
    before they move, so that people can follow. ``hints`` lets the seat to move ask the
    server for a hint (its candidate moves with their estimated chances of losing, worked
    out from that seat's own observation only); off by default. ``dealer`` is the dealer's
    seat (``None``: the last seat, as :meth:`Game.new <skitgubbe.Game.new>` has it);
    ``after`` is the id of the table this one is a rematch of (set by
    :meth:`Lobby.rematch <skitgubbe.server.Lobby.rematch>`: the tables of one session).

    >>> from skitgubbe.server.config import TableConfig
    >>> config = TableConfig.from_json({"seats": [None, "greedy", "random"]})
    >>> config.rules.players, config.move_time, config.hints
    (3, 30.0, False)
    >>> TableConfig.from_json({"seats": [None, "greedy"], "hints": True}).to_json()["hints"]
    True
    >>> TableConfig.from_json({"seats": [None, "greedy"], "hints": "yes"})
    Traceback (most recent call last):
        ...
    skitgubbe.server.errors.TableError: hints must be true or false, not 'yes'
    >>> TableConfig.from_json({"seats": [None, "nobot"]})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    skitgubbe.server.errors.TableError: seat 1: bot spec 'nobot': 'nobot' is not a built-in ...
    >>> TableConfig.from_json({"seats": [None, "ismcts:net=my.sgnet"]})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    skitgubbe.server.errors.TableError: seat 1: bot spec 'ismcts:net=my.sgnet': option net ...
    """

    rules: Rules
    seats: tuple[str | None, ...]
    move_time: float | None = 30.0
    spectator_delay: float = 0.0
    bot_delay: float = 0.0
    stand_in: str = "greedy"
    hints: bool = False
    dealer: int | None = None
    after: str | None = None

    @classmethod
    def from_json(
        cls,
        data: object,
        *,
        engines: Collection[str] = (),
        named_bots: Collection[str] = (),
        max_bot_iterations: int = MAX_BOT_ITERATIONS,
        max_decision_seconds: float = MAX_DECISION_SECONDS,
        stored: bool = False,
    ) -> TableConfig:
        """A configuration from JSON (a lobby request, or the store), checked field by field,
        each size before anything is built from it; ``engines`` are the names an
        ``"engine:NAME"`` seat may use and ``named_bots`` those a ``"bot:NAME"`` seat may
        use (the operator's), any other seat is a plain spec
        (:func:`~skitgubbe.bots.check_plain_spec`: built-in bots, numbers and words, never a
        file, a module or code, stored or not). ``max_decision_seconds`` bounds what a seat's
        bot costs a decision, in CPU-seconds (:func:`decision_seconds`, its price);
        ``max_bot_iterations`` bounds a searching bot's iterations too (:func:`bot_cost`:
        ISMCTS's ``iterations``, PIMC's ``worlds × rollouts``, unless a time budget of at
        most :data:`MAX_BOT_SECONDS` of work stops it first), for an operator who lowers it.
        A ``stored`` configuration was accepted once: the server's bounds on cost
        (``max_moves``, the bots' work) are not applied again, so that lowering them never
        keeps a game from resuming.

        >>> TableConfig.from_json({"seats": [None, "ismcts:iterations=20000,rollout=net"]})
        Traceback (most recent call last):
            ...
        skitgubbe.server.errors.TableError: seat 1: 'ismcts:iterations=20000,rollout=net' \
costs about 48 s of work a decision; this server allows 0.5 s
        >>> TableConfig.from_json({"seats": [None, "expert", "ismcts"]}).seats
        (None, 'expert', 'ismcts')
        """
        if not isinstance(data, Mapping):
            raise TableError("a table's configuration is a JSON object")
        seats = data.get("seats")
        players = data.get("players")
        if players is not None and (
            type(players) is not int or not MIN_PLAYERS <= players <= MAX_PLAYERS
        ):
            raise TableError(
                f"players must be an int {MIN_PLAYERS} … {MAX_PLAYERS}, not {shorten(players)}"
            )
        if seats is None:
            seats = [None] + ["greedy"] * ((players or 3) - 1)
        if not isinstance(seats, list) or not MIN_PLAYERS <= len(seats) <= MAX_PLAYERS:
            raise TableError(f"seats must be a list of {MIN_PLAYERS} … {MAX_PLAYERS} entries")
        if players is not None and players != len(seats):
            raise TableError(f"players is {players}, but seats lists {len(seats)}")
        for seat, spec in enumerate(seats):
            if spec is None:
                continue
            if not isinstance(spec, str) or len(spec) > MAX_SPEC:
                raise TableError(
                    f"seat {seat} must be null (a person) or a bot spec string "
                    f"(at most {MAX_SPEC} characters)"
                )
            for prefix, names in ((ENGINE_PREFIX, engines), (BOT_PREFIX, named_bots)):
                if spec.startswith(prefix):
                    name = spec[len(prefix) :]
                    if name not in names:
                        known = ", ".join(sorted(names)) or "none"
                        what = prefix[:-1]
                        raise TableError(
                            f"seat {seat}: no {what} named {shorten(name)}; {what}s: {known}"
                        )
                    break
            else:
                _check_plain(seat, spec, stored, max_bot_iterations, max_decision_seconds)
        rules = _rules(data.get("rules", "classic"), len(seats), stored)
        stand_in = data.get("stand_in", "greedy")
        if not isinstance(stand_in, str) or stand_in not in CHEAP_BOTS:
            raise TableError(
                f"stand_in must be one of {sorted(CHEAP_BOTS)}, not {shorten(stand_in)}"
            )
        hints = data.get("hints")
        hints = False if hints is None else hints  # null: the default, as for the others
        if type(hints) is not bool:
            raise TableError(f"hints must be true or false, not {shorten(hints)}")
        dealer = data.get("dealer")
        if dealer is not None and (type(dealer) is not int or not 0 <= dealer < len(seats)):
            raise TableError(
                f"dealer must be a seat 0 … {len(seats) - 1} or null, not {shorten(dealer)}"
            )
        after = data.get("after")
        if after is not None and not stored:
            raise TableError("after is the server's to set (a rematch), not a request's")
        if after is not None and (
            not isinstance(after, str)
            or not 1 <= len(after) <= 40
            or not after.replace("-", "").isalnum()
        ):
            raise TableError(f"after must be a table's id or null, not {shorten(after)}")
        return cls(
            rules,
            tuple(seats),
            _number(data.get("move_time", 30.0), "move_time", 0.05, 3600, None),
            _number(data.get("spectator_delay"), "spectator_delay", 0, 3600, 0.0),
            _number(data.get("bot_delay"), "bot_delay", 0, 60, 0.0),
            stand_in,
            hints,
            dealer,
            after,
        )

    def to_json(self) -> dict[str, Any]:
        """The configuration as :meth:`from_json` reads it."""
        return {
            "rules": self.rules.to_dict(),
            "seats": list(self.seats),
            "move_time": self.move_time,
            "spectator_delay": self.spectator_delay,
            "bot_delay": self.bot_delay,
            "stand_in": self.stand_in,
            "hints": self.hints,
            "dealer": self.dealer,
            "after": self.after,
        }
