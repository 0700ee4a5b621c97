"""The engine side of the engine protocol: run a Python :class:`Player` as an engine.

An engine reads the referee's messages on stdin and answers on stdout
(``docs/protocol.md``). ``skitgubbe engine SPEC`` runs
:func:`skitgubbe.bots.run_engine_spec` on it — any built-in bot (``greedy``,
``"pimc:worlds=32"``) or your own class (``mybots:Lowest``,
``path/to/bot.py:Lowest``) becomes an engine any referee can start as a child
process. To make a script an engine, call
:func:`run_engine` with your bot's class::

    from skitgubbe.engine import run_engine

    class Lowest:
        def choose(self, view):
            return view.legal_moves[0]

    if __name__ == "__main__":
        raise SystemExit(run_engine(Lowest, name="lowest", author="me"))

The keyword parameters of the class (or factory) with defaults become the
engine's options (``int``, ``float``, ``bool`` or ``string`` by their default),
which a referee sets with ``set_option``. This module is also the reference
implementation of the protocol's engine side. (Until 0.1.0 this module was
``skitgubbe.serve``, with ``serve`` and ``serve_spec``: that path now imports
:mod:`skitgubbe.bots.hosting`, where those names stay, deprecated, for one release.)

>>> import io, json
>>> import skitgubbe as sg
>>> from skitgubbe.engine import protocol
>>> from skitgubbe.engine.host import run_engine
>>> game = sg.Game.new(seed=2)
>>> view = game.observation(0)
>>> lines = [
...     protocol.hello("doctest"),
...     protocol.new_game("g1", 0, game.rules),
...     protocol.events(view.history),
...     protocol.go(1, view, protocol.Clock()),
...     {"type": "quit"},
... ]
>>> out = io.BytesIO()
>>> script = io.BytesIO(b"".join(map(protocol.encode, lines)))
>>> run_engine(sg.bots.GreedyBot, name="greedy", stdin=script, stdout=out)
0
>>> [json.loads(line)["type"] for line in out.getvalue().splitlines()]
['id', 'move']
"""

from __future__ import annotations

import inspect
import sys
import traceback
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, BinaryIO, Final, Literal, TypeAlias

import attrs

from ..errors import ArgumentError, SkitgubbeError
from ..game.events import Event
from ..game.observation import History, HistoryNode
from ..game.rules import Rules
from . import protocol
from .protocol import ProtocolError

if TYPE_CHECKING:
    from ..play.players import Player

__all__ = [
    "Option",
    "PlayerFactory",
    "options_of",
    "run_engine",
]

PlayerFactory: TypeAlias = "Callable[..., Player]"
"""Makes the engine's player from the options' values, as keyword arguments."""

OptionType = Literal["int", "float", "bool", "string", "choice"]
_TYPES: Final[dict[type, OptionType]] = {bool: "bool", int: "int", float: "float", str: "string"}


@attrs.frozen
class Option:
    """One option an engine declares in its ``id`` message.

    >>> from skitgubbe.engine.host import Option
    >>> Option("worlds", "int", 32, min=1).to_json()
    {'name': 'worlds', 'type': 'int', 'default': 32, 'min': 1}
    """

    name: str
    type: OptionType
    default: Any
    min: float | None = None
    max: float | None = None
    choices: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The option as ``id`` lists it.

        >>> from skitgubbe.engine.host import Option
        >>> Option("style", "choice", "low", choices=("low", "high")).to_json()["choices"]
        ['low', 'high']
        """
        data: dict[str, Any] = {"name": self.name, "type": self.type, "default": self.default}
        if self.min is not None:
            data["min"] = self.min
        if self.max is not None:
            data["max"] = self.max
        if self.choices:
            data["choices"] = list(self.choices)
        return data

    def convert(self, value: object) -> Any:
        """``value`` as this option's type; :class:`ArgumentError` if it is not one.

        >>> from skitgubbe.engine.host import Option
        >>> Option("worlds", "int", 32, min=1).convert(8)
        8
        >>> Option("worlds", "int", 32, min=1).convert(0)
        Traceback (most recent call last):
            ...
        skitgubbe.errors.ArgumentError: option worlds must be at least 1, not 0
        >>> Option("seed", "int", None).convert(None) is None  # None when that is the default
        True
        """
        if value is None and self.default is None:
            return None
        kind: dict[str, type | tuple[type, ...]] = {
            "int": int,
            "float": (int, float),
            "bool": bool,
            "string": str,
            "choice": str,
        }
        ok = isinstance(value, kind[self.type]) and (
            self.type == "bool" or not isinstance(value, bool)
        )
        if not ok:
            raise ArgumentError(f"option {self.name} takes a {self.type}, not {value!r}")
        if self.type == "float":
            value = float(value)  # type: ignore[arg-type]
        if self.min is not None and value < self.min:  # type: ignore[operator]
            raise ArgumentError(f"option {self.name} must be at least {self.min}, not {value!r}")
        if self.max is not None and value > self.max:  # type: ignore[operator]
            raise ArgumentError(f"option {self.name} must be at most {self.max}, not {value!r}")
        if self.type == "choice" and value not in self.choices:
            raise ArgumentError(f"option {self.name} is one of {list(self.choices)}, not {value!r}")
        return value


def options_of(factory: Callable[..., object]) -> tuple[Option, ...]:
    """The options a factory takes: its keyword parameters whose defaults are an int,
    a float, a bool or a str, and ``seed`` (an int; by default ``None``, unseeded).
    Other ``None`` defaults are skipped: their type is unknown.

    >>> import skitgubbe as sg
    >>> from skitgubbe.engine.host import options_of
    >>> [option.name for option in options_of(sg.bots.PIMCBot)]
    ['worlds', 'rollouts', 'rollout', 'rollout_cap', 'seed', 'net', 'sampling']
    """
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return ()
    options = []
    for parameter in parameters:
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        if parameter.name == "seed" and parameter.default is None:
            options.append(Option("seed", "int", None))  # bots' seeds: None is unseeded
            continue
        kind = _TYPES.get(type(parameter.default))
        if kind is not None:
            options.append(Option(parameter.name, kind, parameter.default))
    return tuple(options)


@attrs.define
class _Table:
    """One game as the engine follows it: the history grows by one shared node per
    ``events`` message, so that each ``go``'s observation takes it as it stands."""

    seat: int
    rules: Rules
    node: HistoryNode | None = None
    started: bool = False

    @property
    def history(self) -> History:
        return History(self.node)

    def extend(self, events: tuple[Event, ...]) -> None:
        if events:
            self.node = HistoryNode(self.node, events)


class _Engine:
    """The state of one engine session: its player, options and current game."""

    def __init__(
        self,
        factory: PlayerFactory,
        options: Sequence[Option],
        out: BinaryIO,
        identity: dict[str, Any],
    ) -> None:
        self.factory = factory
        self.identity = identity
        self.options = {option.name: option for option in options}
        self.values: dict[str, Any] = {}
        self.out = out
        self.player: Player | None = None
        self.table: _Table | None = None

    def send(self, message: Mapping[str, Any]) -> None:
        self.out.write(protocol.encode(message))
        self.out.flush()

    def log(self, text: str) -> None:
        self.send({"type": "log", "text": text})

    def handle(self, message: dict[str, Any]) -> bool:
        """Act on one message; False when the engine should stop."""
        kind = message["type"]
        handler = getattr(self, f"on_{kind}", None)
        if handler is None:  # unknown messages are ignored (forward compatibility)
            return True
        return handler(message) is not False

    def on_hello(self, message: dict[str, Any]) -> None:
        self.send(self.identity)

    def on_set_option(self, message: dict[str, Any]) -> None:
        name = message.get("name")
        option = self.options.get(name) if isinstance(name, str) else None
        if option is None:
            self.log(f"no option {name!r}; options: {sorted(self.options)}")
            return
        try:
            self.values[option.name] = option.convert(message.get("value"))
        except ArgumentError as error:
            self.log(str(error))
            return
        self.player = None  # made again with the new value

    def on_isready(self, message: dict[str, Any]) -> None:
        if self.player is None:
            self.player = self.factory(**self.values)
        self.send({"type": "readyok", "seq": message.get("seq")})

    def on_new_game(self, message: dict[str, Any]) -> None:
        seat, rules = message.get("seat"), message.get("rules")
        if type(seat) is not int or not isinstance(rules, dict):
            raise ProtocolError("new_game needs an int seat and the rules", "new_game")
        if self.player is None:
            self.player = self.factory(**self.values)
        self.table = _Table(seat, Rules.from_dict(rules))

    def on_events(self, message: dict[str, Any]) -> None:
        table = self._table("events")
        seen = message.get("events")
        if not isinstance(seen, list):
            raise ProtocolError("events needs a list of events", "events")
        table.extend(tuple([protocol.event_from_json(event) for event in seen]))

    def on_go(self, message: dict[str, Any]) -> None:
        table = self._table("go")
        legal = message.get("legal_moves")
        if not isinstance(legal, list):
            raise ProtocolError("go needs a list of legal moves", "legal_moves")
        view = protocol.observation_from_json(
            message.get("observation"), table.rules, table.history, legal
        )
        player = self.player
        assert player is not None  # made by new_game
        if not table.started:
            table.started = True
            started = getattr(player, "game_started", None)
            if started is not None:
                started(view)
        text, seq = protocol.move_text(player.choose(view)), message.get("seq")
        if type(seq) is int:  # the line encode writes, without building it: ASCII move text
            self.out.write(b'{"type":"move","seq":%d,"move":"%s"}\n' % (seq, text.encode()))
            self.out.flush()
        else:
            self.send({"type": "move", "seq": seq, "move": text})

    def on_game_over(self, message: dict[str, Any]) -> None:
        table, self.table = self.table, None
        ended = getattr(self.player, "game_ended", None)
        data, result = message.get("observation"), message.get("result")
        if table is None or ended is None or data is None or not isinstance(result, dict):
            return
        view = protocol.observation_from_json(data, table.rules, table.history, [])
        ended(view, protocol.result_from_json(result))

    def on_quit(self, message: dict[str, Any]) -> bool:
        return False

    def _table(self, what: str) -> _Table:
        if self.table is None:
            raise ProtocolError(f"{what} outside a game (no new_game before it)", what)
        return self.table


def run_engine(
    factory: PlayerFactory,
    *,
    name: str,
    author: str = "",
    version: str = "",
    options: Sequence[Option] | None = None,
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
) -> int:
    """Play as an engine on ``stdin`` and ``stdout`` (by default the process's own)
    until ``quit`` or the end of input; returns the exit status for ``sys.exit``.

    ``factory`` makes the player, from the options' values as keyword
    arguments; it is called again when an option changes. ``options`` are
    declared in ``id`` (by default :func:`options_of` the factory). A line that
    is not a message, or a message that breaks the protocol, is reported in a
    ``log`` message and on stderr and otherwise ignored; an exception from the
    player is printed to stderr and ends the engine with status 1, which the
    referee reports with that text.

    >>> import io
    >>> import skitgubbe as sg
    >>> from skitgubbe.engine import protocol
    >>> out = io.BytesIO()
    >>> lines = b"".join(map(protocol.encode, [protocol.hello("doctest"), {"type": "quit"}]))
    >>> run_engine(sg.bots.RandomBot, name="random", stdin=io.BytesIO(lines), stdout=out)
    0
    >>> protocol.decode(out.getvalue())["options"]
    [{'name': 'seed', 'type': 'int', 'default': None}]
    """
    inp = stdin if stdin is not None else sys.stdin.buffer
    out = stdout if stdout is not None else sys.stdout.buffer
    declared = options_of(factory) if options is None else tuple(options)
    identity = {
        "type": "id",
        "protocol": protocol.PROTOCOL_VERSION,
        "name": name,
        "author": author,
        "version": version,
        "options": [option.to_json() for option in declared],
    }
    engine = _Engine(factory, declared, out, identity)
    for line in inp:
        if not line.strip():
            continue
        try:
            if not engine.handle(protocol.decode(line)):
                return 0
        except (ProtocolError, SkitgubbeError) as error:
            engine.log(f"ignored: {error}")
            print(f"skitgubbe engine: ignored: {error}", file=sys.stderr, flush=True)
        except Exception:
            traceback.print_exc(file=sys.stderr)
            sys.stderr.flush()
            return 1
    return 0
