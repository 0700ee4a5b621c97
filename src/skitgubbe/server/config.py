"""A table's configuration and its checks: the rules, who sits where, the clocks.

:class:`TableConfig` is what the lobby is asked for (JSON from a request) and what the store
keeps; :meth:`TableConfig.from_json` checks every field, each size before anything is built
from it, against the server's bounds (the constants below).

>>> from skitgubbe.server.config import TableConfig
>>> TableConfig.from_json({"players": 2}).seats
(None, 'greedy')
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, Final

import attrs

from .. import bots
from ..bots.levels import LevelBot
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
    "MAX_MOVES",
    "MAX_PLAYERS",
    "MAX_SPEC",
    "MIN_PLAYERS",
    "OPERATOR_ONLY",
    "TableConfig",
    "bot_cost",
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


def _check_plain(seat: int, spec: str, stored: bool, max_iterations: int) -> None:
    """Refuse ``spec`` unless it is plain (and, when not ``stored``, within the bounds
    of cost): it is only parsed and checked, and the bot it names made, which reads no
    file, imports and compiles nothing."""
    try:
        bots.check_plain_spec(spec)
        bot = bots.make(spec, seed=0)
    except SkitgubbeError as error:
        raise TableError(f"seat {seat}: {error}; {OPERATOR_ONLY}") from None
    if not stored:
        _check_cost(seat, spec, bot, max_iterations)


def _check_cost(seat: int, spec: str, bot: Player, max_iterations: int) -> None:
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
        stored: bool = False,
    ) -> TableConfig:
        """A configuration from JSON (a lobby request, or the store), checked field by field,
        each size before anything is built from it; ``engines`` are the names an
        ``"engine:NAME"`` seat may use and ``named_bots`` those a ``"bot:NAME"`` seat may
        use (the operator's), any other seat is a plain spec
        (:func:`~skitgubbe.bots.check_plain_spec`: built-in bots, numbers and words, never a
        file, a module or code, stored or not), ``max_bot_iterations`` bounds a searching bot's
        work per move (:func:`bot_cost`). A ``stored`` configuration was accepted once: the
        server's bounds on cost (``max_moves``, the bots' work) are not applied again, so
        that lowering them never keeps a game from resuming."""
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
                _check_plain(seat, spec, stored, max_bot_iterations)
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
            not isinstance(after, str) or not 1 <= len(after) <= 32 or not after.isalnum()
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
