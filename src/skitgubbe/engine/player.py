"""The referee side of the engine protocol: a seat played by a child process.

An :class:`EnginePlayer` is a :class:`~skitgubbe.Player` that starts an engine
command (any program speaking ``docs/protocol.md``: ``skitgubbe engine SPEC``,
a C or JavaScript engine, a bot you did not write), does the handshake and asks
it for each move over its standard input and output. Whatever the engine does,
the referee stays in charge: every answer has a deadline (``move_time``,
``game_time`` with ``increment``, plus a small ``grace``), lines are read with
a bounded buffer, and a fault (a timeout, an exit, a closed output, garbage,
an oversized line, a bad ``seq``) kills the engine with every process it
started and raises a precise :class:`~skitgubbe.EngineError` with the exit
code and the tail of its standard error. The next game starts a fresh
process. No engine process outlives its player, nor the interpreter: on Linux
each engine runs under a keeper (:mod:`skitgubbe.engine.keeper`, a child subreaper)
that kills all the engine started, daemons included, when it ends; elsewhere
the engine's process group is killed. :class:`~skitgubbe.engine.AsyncEnginePlayer`
(:mod:`skitgubbe.engine.async_player`) is the same seat for
:func:`~skitgubbe.play_game_async`, and :class:`~skitgubbe.engine.Limits`
caps an engine's memory, CPU time and open files (POSIX); the process itself
is :mod:`skitgubbe.engine.process`'s.

>>> import sys
>>> import skitgubbe as sg
>>> from skitgubbe.engine import EnginePlayer
>>> greedy = [sys.executable, "-m", "skitgubbe", "engine", "greedy"]
>>> with EnginePlayer(greedy, move_time=5) as engine:
...     table = [engine, sg.bots.GreedyBot(), sg.bots.GreedyBot()]
...     result = sg.play_game(table, seed=3)
>>> result == sg.play_game([sg.bots.GreedyBot()] * 3, seed=3)  # the same bot, in process
True
>>> engine.running
False
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import shlex
import signal
import subprocess
import sys
import time
import weakref
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any, Final, NoReturn

import attrs

from .._limits import check_move_time
from .._version import __version__
from ..errors import ArgumentError, ArgumentTypeError, EngineError, EngineTimeoutError
from ..game.events import Event
from ..game.moves import Move
from ..game.observation import History, Observation
from ..game.state import GameResult
from . import protocol
from .process import (
    EndOfOutputError,
    EngineProcess,
    Limits,
    OversizedError,
    reap_quietly,
    signal_name,
    tail_text,
)

__all__ = ["LOG_LINES", "EngineId", "EnginePlayer"]

LOG_LINES: Final = 64
"""How many ``log`` messages of an engine are kept (the last ones)."""

_OPTION_TYPES: Final[dict[str, type | tuple[type, ...]]] = {
    "int": int,
    "float": (int, float),
    "bool": bool,
    "string": str,
    "choice": str,
}


# -- the player ----------------------------------------------------------------------------


@attrs.frozen
class EngineId:
    """What an engine said about itself in its ``id`` message.

    ``options`` are the options it declared, as it declared them (``name``,
    ``type``, ``default``, and ``min``, ``max``, ``choices`` when given).

    >>> from skitgubbe.engine import EngineId
    >>> EngineId("lowbot", "A. Coder", "1.0", ({"name": "depth", "type": "int"},)).name
    'lowbot'
    """

    name: str
    author: str = ""
    version: str = ""
    options: tuple[Mapping[str, Any], ...] = ()

    def option(self, name: str) -> Mapping[str, Any] | None:
        """The declared option ``name``, or ``None``.

        >>> from skitgubbe.engine import EngineId
        >>> EngineId("x", options=({"name": "depth", "type": "int"},)).option("depth")
        {'name': 'depth', 'type': 'int'}
        """
        for declared in self.options:
            if declared.get("name") == name:
                return declared
        return None


@attrs.define
class _Table:
    """The game an engine is playing."""

    game_id: str
    seat: int
    sent: int = 0  # events of the seat's history sent so far
    remaining: float | None = None
    told: bool = False  # new_game sent to the current process
    node: object = None  # the history's last node when it was sent (its identity)
    events: list[Event] = attrs.Factory(list)  # the events sent, for a history rebuilt

    def forget(self) -> None:
        """Nothing of the game is sent yet (a new process, or the game told again)."""
        self.sent = 0
        self.node = None
        self.events.clear()

    def sending(self, history: History) -> tuple[Event, ...]:
        """The events of ``history`` the engine has not heard, now counted as sent."""
        new = history.since(self.sent)
        self.events.extend(new)
        self.sent = len(history)
        self.node = history._node
        return new

    def continues(self, history: History) -> bool:
        """Whether ``history`` goes on from what the engine heard (not an undo, nor
        another game): the same node where the last send ended, or the same events."""
        if len(history) < self.sent:
            return False
        node = history._node
        while node is not None and node.length > self.sent:
            node = node.parent
        if node is self.node:
            return True
        return history[: self.sent] == tuple(self.events)


class EnginePlayer:
    """A seat played by an engine process, a :class:`~skitgubbe.Player`.

    ``command`` is the engine's command line (a str is split with
    :func:`shlex.split`). The process starts at once, in a process group of its
    own (on Linux under a keeper, see the module), with pipes for its standard
    streams, and answers the handshake
    (``hello``/``id``, then a ``set_option`` for each of ``options``, then
    ``isready``/``readyok``) within ``handshake_time`` seconds. An option the
    engine did not declare, or a value not of its declared type (or out of its
    range or choices), is an :class:`~skitgubbe.ArgumentError` naming it.
    :attr:`id` is what the engine said about itself.

    Each game is a ``new_game`` (with the clock totals) and the seat's events,
    then for each move the new events and a ``go``, whose answer must arrive
    within ``min(move_time, remaining) + grace`` seconds of writing it
    (``remaining`` starts at ``game_time``, loses the time each move took and
    gains ``increment``; ``None``: no limit). ``log`` messages are kept in
    :attr:`logs`; answers to earlier requests and unknown messages are
    dropped. A line longer than ``max_line`` bytes (the newline included), the
    end of the engine's output, and an answer with a ``seq`` that is not an int,
    of a request not yet sent, or of the wrong type are faults at once.

    On any fault the engine and all it started are killed and reaped and an
    :class:`~skitgubbe.EngineError` (``kind``, ``returncode``, ``stderr``) is
    raised from the call: :class:`~skitgubbe.EngineTimeoutError` for a missed
    deadline, which the referee reports as the seat's
    :class:`~skitgubbe.PlayerTimeoutError`. The next game (or the next
    ``choose``) starts a fresh process and tells it the game so far. Whether
    the move is legal is the referee's check. :meth:`close` (or ``with``) ends
    the engine; a player dropped unclosed, or the interpreter's exit, kills it.

    ``limits`` caps the engine's resources (:class:`Limits`), ``cwd`` and
    ``env`` are the process's working directory and environment, ``name``
    names the engine in messages (by default its ``id`` name). ``user`` and
    ``group`` (names or ids; POSIX, and the referee must be allowed to switch:
    root) run the engine as another user, with no supplementary groups: a
    process of the referee's own user could read the referee's memory
    (``/proc``, ``ptrace``), one of another user cannot.

    Engines need POSIX (Linux, macOS, BSD): on Windows, where process groups
    and pollable pipes are missing, this raises :class:`~skitgubbe.ArgumentError`
    (the rest of the library works there; run a referee under WSL).

    >>> import sys
    >>> import skitgubbe as sg
    >>> from skitgubbe.engine import EnginePlayer
    >>> engine = EnginePlayer(
    ...     [sys.executable, "-m", "skitgubbe", "engine", "pimc"], options={"worlds": 4}
    ... )
    >>> engine.id.name, [option["name"] for option in engine.id.options][:2]
    ('pimc', ['worlds', 'rollouts'])
    >>> engine.close()
    >>> EnginePlayer([sys.executable, "-m", "skitgubbe", "engine", "greedy"], options={"depth": 3})
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: engine 'greedy' has no option 'depth'; its options: ['seed']
    """

    _process: EngineProcess | None
    _table: _Table | None

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        options: Mapping[str, object] | None = None,
        move_time: float | None = None,
        game_time: float | None = None,
        increment: float = 0.0,
        grace: float = 0.05,
        handshake_time: float = 10.0,
        limits: Limits | None = None,
        max_line: int = protocol.MAX_LINE,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        name: str | None = None,
        user: str | int | None = None,
        group: str | int | None = None,
    ) -> None:
        if isinstance(command, str):
            argv = shlex.split(command)
        elif isinstance(command, Sequence) and all(isinstance(arg, str) for arg in command):
            argv = list(command)
        else:
            raise ArgumentTypeError(
                f"an engine command is a str or a sequence of str, not {command!r}"
            )
        if not argv:
            raise ArgumentError("an engine command cannot be empty")
        if not hasattr(os, "killpg"):  # pragma: no cover - Windows
            raise ArgumentError(
                "engines need POSIX processes (process groups, pollable pipes); "
                f"on {sys.platform} run the referee under WSL or in a container"
            )
        self._argv: tuple[str, ...] = tuple(argv)
        self._options = dict(options or {})
        for key in self._options:
            if not isinstance(key, str):
                raise ArgumentTypeError(f"option names are str, not {key!r}")
        move_time = check_move_time(move_time, "move_time")
        self.move_time = None if move_time is None else float(move_time)
        self.game_time = _seconds(game_time, "game_time")
        self.increment = _seconds(increment, "increment", zero=True) or 0.0
        self.grace = _seconds(grace, "grace", zero=True) or 0.0
        self.handshake_time: float = _seconds(handshake_time, "handshake_time") or 10.0
        if type(max_line) is not int or max_line < 2:
            raise ArgumentError(f"max_line must be an int of at least 2 bytes, not {max_line!r}")
        self.max_line = max_line
        self.limits = limits
        if limits is not None:
            limits.rlimits()  # refuses limits this platform cannot apply, now
        self._cwd = cwd
        for what, given in (("user", user), ("group", group)):
            if given is not None and (isinstance(given, bool) or not isinstance(given, str | int)):
                raise ArgumentTypeError(f"{what} is a name or a number, not {given!r}")
        self._user, self._group = user, group
        self._env = None if env is None else dict(env)
        self._name = name
        self.id: EngineId | None = None
        self.logs: deque[str] = deque(maxlen=LOG_LINES)
        self._seq = itertools.count(1)
        self._asked = 0  # the last seq sent
        self._games = itertools.count(1)
        self._process = None
        self._finalizer: weakref.finalize[Any, Any] | None = None
        self._table = None
        self._closed = False
        self._start()

    # -- public

    @property
    def name(self) -> str:
        """The engine's name in messages: the ``name`` given, else its ``id`` name, else
        its command.

        >>> import sys
        >>> from skitgubbe.engine import EnginePlayer
        >>> with EnginePlayer([sys.executable, "-m", "skitgubbe", "engine", "greedy"]) as e:
        ...     print(e.name)
        greedy
        """
        if self._name is not None:
            return self._name
        if self.id is not None:
            return self.id.name
        text = shlex.join(self._argv)
        return text if len(text) <= 60 else text[:57] + "..."

    @property
    def running(self) -> bool:
        """Whether an engine process is running for this player (not after a fault
        until the next game, nor after :meth:`close`).

        >>> import sys
        >>> from skitgubbe.engine import EnginePlayer
        >>> engine = EnginePlayer([sys.executable, "-m", "skitgubbe", "engine", "greedy"])
        >>> engine.running, engine.close(), engine.running
        (True, None, False)
        """
        return self._process is not None

    @property
    def pid(self) -> int | None:
        """The engine process's id (also its process group's), or ``None`` when none runs.
        On Linux the engine is the child of a keeper process, the referee's own child,
        which kills all the engine started when it ends (see the module).

        >>> import sys
        >>> from skitgubbe.engine import EnginePlayer
        >>> with EnginePlayer([sys.executable, "-m", "skitgubbe", "engine", "greedy"]) as e:
        ...     e.pid > 0
        True
        """
        return None if self._process is None else self._process.engine_pid

    @property
    def child_pid(self) -> int | None:
        """The referee's own child process: the engine's keeper on Linux, or the engine
        itself where there is no keeper (then it is :attr:`pid`); ``None`` when none
        runs. Another process ends the engine with
        :func:`~skitgubbe.engine.kill_child` given this id (the arena's parent, when
        it stops a worker).

        >>> import sys
        >>> from skitgubbe.engine import EnginePlayer
        >>> with EnginePlayer([sys.executable, "-m", "skitgubbe", "engine", "greedy"]) as e:
        ...     e.child_pid > 0
        True
        >>> e.child_pid is None
        True
        """
        return None if self._process is None else self._process.pid

    def start(self) -> None:
        """Start an engine process and do the handshake, unless one is running (after a
        fault, or an exit between games, the next game starts one anyway: this does it
        now, outside any clock).

        >>> import sys
        >>> from skitgubbe.engine import EnginePlayer
        >>> with EnginePlayer([sys.executable, "-m", "skitgubbe", "engine", "greedy"]) as e:
        ...     first = e.pid
        ...     e.start()  # running: nothing to do
        ...     e.pid == first
        True
        """
        self._check_open()
        process = self._process
        if process is not None and (process.killed or process.exited()):  # ended between games
            self._process = None
            if self._finalizer is not None:
                self._finalizer.detach()
                self._finalizer = None
            process.reap()
        if self._process is None:
            self._start()

    def set_option(self, name: str, value: object) -> None:
        """Set the engine's option ``name`` to ``value`` for the games that follow (a game
        in progress is abandoned first, :meth:`abandon`). The value is
        checked against what the engine declared, sent at once, and sent again to every
        process started after a fault. A referee that deals many games to one engine
        sets ``seed`` this way before each game, where the engine declares one.

        >>> import sys
        >>> from skitgubbe.engine import EnginePlayer
        >>> with EnginePlayer([sys.executable, "-m", "skitgubbe", "engine", "random"]) as e:
        ...     e.set_option("seed", 7)
        ...     e.set_option("seed", "seven")
        Traceback (most recent call last):
            ...
        skitgubbe.errors.ArgumentError: engine 'random' option 'seed' takes an int, not 'seven'
        """
        self._check_open()
        if not isinstance(name, str):
            raise ArgumentTypeError(f"option names are str, not {name!r}")
        assert self.id is not None  # the handshake of __init__ succeeded
        self._check_option(name, value)
        self._options[name] = value
        self.abandon(f"option {name} set")
        if self._process is not None:
            self._write(protocol.encode({"type": "set_option", "name": name, "value": value}), None)

    def game_started(self, observation: Observation) -> None:
        """A game starts: send ``new_game`` (with the clock totals) and the events the
        seat has seen so far; start a fresh engine first if a fault ended the last one.

        >>> import sys
        >>> import skitgubbe as sg
        >>> from skitgubbe.engine import EnginePlayer
        >>> game = sg.Game.new(seed=2)
        >>> with EnginePlayer([sys.executable, "-m", "skitgubbe", "engine", "greedy"]) as e:
        ...     e.game_started(game.observation(0))
        ...     print(e.choose(game.observation(0)))
        4♥
        """
        self._check_open()
        remaining = self.game_time
        self._table = _Table(f"g{next(self._games)}", observation.seat, remaining=remaining)
        if self._process is None:
            self._start()
        self._tell_game(observation)

    def choose(self, observation: Observation) -> Move:
        """Send the new events and a ``go``; return the engine's move, parsed (not
        checked: the referee checks legality).

        Raises :class:`~skitgubbe.EngineTimeoutError` when no answer comes in time
        and :class:`~skitgubbe.EngineError` on any other fault, after killing the
        engine. A ``choose`` after a fault (with the asyncio runner's stand-in, say)
        starts a fresh engine and tells it the game so far.

        >>> import sys
        >>> import skitgubbe as sg
        >>> from skitgubbe.engine import EnginePlayer
        >>> game = sg.Game.new(seed=2)
        >>> with EnginePlayer([sys.executable, "-m", "skitgubbe", "engine", "greedy"]) as e:
        ...     move = e.choose(game.observation(0))  # no game_started: one is begun
        >>> move == sg.bots.GreedyBot().choose(game.observation(0))
        True
        """
        self._check_open()
        table = self._table
        history = observation.history
        if table is None or table.seat != observation.seat or not table.continues(history):
            # No game yet, another seat's, or a game taken back past what the engine
            # was told (an undo): the engine hears it as a new game.
            table = self._table = _Table(
                f"g{next(self._games)}", observation.seat, remaining=self.game_time
            )
        if self._process is None:
            self._start()
        if not table.told:
            self._tell_game(observation)
        process = self._process
        assert process is not None
        new = table.sending(history)
        budget = _least(self.move_time, table.remaining)
        seq = next(self._seq)
        clock = protocol.Clock(self.move_time, table.remaining, self.increment)
        data = protocol.encode_go(seq, observation, clock)
        if new:
            data = protocol.encode_events(new) + data
        self._before(seq, "go")
        started = time.monotonic()
        deadline = None if budget is None else started + budget + self.grace
        self._write(data, deadline)
        self._asked = seq
        while not self._answers(
            answer := self._read(deadline, f"move for go {seq}", budget), seq, "move"
        ):
            pass
        if table.remaining is not None:
            spent = time.monotonic() - started
            table.remaining = max(0.0, table.remaining - spent) + self.increment
        text = answer.get("move")
        if not isinstance(text, str):
            self._fault("protocol", f"answered go {seq} with move {text!r}, not move text")
        try:
            return protocol.parse_move(text)
        except ValueError as error:
            self._fault("protocol", f"answered go {seq} with {text!r}, not a move: {error}")

    def game_ended(self, observation: Observation, result: GameResult) -> None:
        """The game ended: send the last events and ``game_over`` (with the seat's last
        observation). Nothing is sent when a fault ended the engine during the game.

        >>> import sys
        >>> import skitgubbe as sg
        >>> from skitgubbe.engine import EnginePlayer
        >>> with EnginePlayer([sys.executable, "-m", "skitgubbe", "engine", "greedy"]) as e:
        ...     result = sg.play_game([e, sg.bots.RandomBot(seed=1)], seed=1)
        ...     e.running
        True
        """
        table, self._table = self._table, None
        if self._closed or self._process is None or table is None or not table.told:
            return
        history = observation.history
        data = protocol.encode(protocol.game_over(result, view=observation))
        if len(history) > table.sent:
            data = protocol.encode_events(history.since(table.sent)) + data
        self._write(data, None)

    def ping(self) -> float:
        """Send ``isready`` and wait for its ``readyok`` (within the handshake time): the
        engine has then dealt with everything sent before, options included. Returns
        the round trip in seconds. Between games only (a game in progress is kept).

        >>> import sys
        >>> from skitgubbe.engine import EnginePlayer
        >>> with EnginePlayer([sys.executable, "-m", "skitgubbe", "engine", "greedy"]) as e:
        ...     e.ping() < 10
        True
        """
        self.start()
        started = time.monotonic()
        self._ready(b"", started + self.handshake_time, self.handshake_time)
        return time.monotonic() - started

    def abandon(self, reason: str) -> None:
        """The referee stopped the game before its end (another seat failed, say): send
        ``game_over`` with no result and ``reason``, so that the engine waits for the
        next ``new_game``. Nothing is sent when no game is open; an engine that breaks
        down meanwhile is killed (the next game starts a fresh one), never raised.

        >>> import sys
        >>> import skitgubbe as sg
        >>> from skitgubbe.engine import EnginePlayer
        >>> game = sg.Game.new(seed=2)
        >>> with EnginePlayer([sys.executable, "-m", "skitgubbe", "engine", "greedy"]) as e:
        ...     e.game_started(game.observation(0))
        ...     e.abandon("seat 1 failed")
        ...     e.running
        True
        """
        table, self._table = self._table, None
        if self._closed or self._process is None or table is None or not table.told:
            return
        message = protocol.game_over(None, reason if isinstance(reason, str) else repr(reason))
        with contextlib.suppress(EngineError):
            self._write(protocol.encode(message), None)

    def close(self) -> None:
        """Send ``quit``, close the engine's input, give it a second to exit, then kill
        it with all it started and reap it. Idempotent.

        >>> import sys
        >>> from skitgubbe.engine import EnginePlayer
        >>> engine = EnginePlayer([sys.executable, "-m", "skitgubbe", "engine", "greedy"])
        >>> engine.close(), engine.close(), engine.running
        (None, None, False)
        """
        self._closed = True
        self._table = None
        process, self._process = self._process, None
        if process is not None:
            process.close(protocol.encode({"type": "quit"}))
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None

    def kill(self) -> None:
        """Kill the engine and all it started now, from any thread (a call blocked on the
        engine then fails with an ``"exit"`` :class:`~skitgubbe.EngineError`). The
        next game starts a fresh engine.

        >>> import sys
        >>> from skitgubbe.engine import EnginePlayer
        >>> with EnginePlayer([sys.executable, "-m", "skitgubbe", "engine", "greedy"]) as e:
        ...     e.kill()
        """
        process = self._process
        if process is not None:
            process.kill()

    def __enter__(self) -> EnginePlayer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "running" if self._process is not None else "closed" if self._closed else "idle"
        return f"<EnginePlayer {self.name!r} ({state})>"

    # -- the process

    def _check_open(self) -> None:
        if self._closed:
            raise ArgumentError(f"engine {self.name!r} is closed")

    def _start(self) -> None:
        try:
            process = EngineProcess(
                self._argv,
                cwd=self._cwd,
                env=self._env,
                limits=self.limits,
                max_line=self.max_line,
                user=self._user,
                group=self._group,
                start_time=self.handshake_time,
            )
        except (OSError, subprocess.SubprocessError) as error:
            raise EngineError(
                f"engine {self.name!r} (start): cannot run {shlex.join(self._argv)}: {error}",
                "start",
            ) from error
        self._process = process
        self._finalizer = weakref.finalize(self, reap_quietly, process)
        if self._table is not None:
            self._table.told = False
            self._table.forget()
        self._handshake()

    def _handshake(self) -> None:
        deadline = time.monotonic() + self.handshake_time
        limit = self.handshake_time
        hello = protocol.encode(protocol.hello(f"skitgubbe {__version__}"))
        self._write(hello, deadline, "handshake")
        while True:
            message = self._read(deadline, "id (the answer to hello)", limit, kind="handshake")
            if message["type"] == "id":
                break
            if message["type"] == "log":
                self._log(message)
        version = message.get("protocol")
        if version != protocol.PROTOCOL_VERSION:
            self._fault(
                "handshake",
                f"speaks protocol {version!r}; this referee speaks {protocol.PROTOCOL_VERSION}",
            )
        name = message.get("name")
        declared = message.get("options", [])
        if not isinstance(name, str) or not name:
            self._fault("handshake", f"id without a name: {name!r}")
        if not isinstance(declared, list) or not all(
            isinstance(option, dict) and isinstance(option.get("name"), str) for option in declared
        ):
            self._fault("handshake", f"id with bad options: {declared!r}"[:200])
        author, version_text = message.get("author", ""), message.get("version", "")
        self.id = EngineId(
            name,
            author if isinstance(author, str) else "",
            version_text if isinstance(version_text, str) else "",
            tuple(declared),
        )
        try:
            for key, value in self._options.items():
                self._check_option(key, value)
        except ArgumentError:
            self.close()
            raise
        data = b"".join(
            protocol.encode({"type": "set_option", "name": key, "value": value})
            for key, value in self._options.items()
        )
        self._ready(data, deadline, limit)

    def _ready(self, data: bytes, deadline: float, limit: float) -> None:
        """Write ``data`` and an ``isready``; wait for its ``readyok`` by ``deadline``."""
        seq = next(self._seq)
        self._before(seq, "isready")
        self._write(data + protocol.encode({"type": "isready", "seq": seq}), deadline, "handshake")
        self._asked = seq
        while not self._answers(
            self._read(deadline, f"readyok {seq}", limit, kind="handshake"), seq, "readyok"
        ):
            pass

    def _answers(self, message: dict[str, Any], seq: int, kind: str) -> bool:
        """Whether ``message`` is the awaited answer ``kind`` to request ``seq``. A log is
        kept; an answer to an earlier request (late) is dropped; an answer whose ``seq``
        is not an int, names a request not yet sent, or is of the wrong type for
        ``seq`` is a ``"protocol"`` fault."""
        got = message["type"]
        if got not in ("move", "readyok"):
            if got == "log":
                self._log(message)
            return False
        number = message.get("seq")
        request = f"{'go' if kind == 'move' else 'isready'} {seq}"
        if type(number) is not int:
            shown = "no seq" if "seq" not in message else f"seq {number!r}"
            self._fault(
                "protocol", f"sent {got} with {shown} (awaiting {request}): a seq is an int"
            )
        if number > self._asked:
            self._fault(
                "protocol", f"sent {got} {number} before its request was sent (awaiting {request})"
            )
        if number != seq:
            return False  # a late answer to an earlier request
        if got != kind:
            self._fault("protocol", f"answered {request} with {got}, not {kind}")
        return True

    def _before(self, seq: int, request: str) -> None:
        """Read what the engine sent before request ``seq`` is written: an answer to it
        (or to a later one) sent ahead of it is a fault, as is any bad ``seq``."""
        while (message := self._peek(f"{request} {seq} to be sent")) is not None:
            self._answers(message, seq, "move" if request == "go" else "readyok")

    def _check_option(self, key: str, value: object) -> None:
        assert self.id is not None
        option = self.id.option(key)
        if option is None:
            names = sorted(str(o.get("name")) for o in self.id.options)
            raise ArgumentError(f"engine {self.name!r} has no option {key!r}; its options: {names}")
        kind = option.get("type")
        types = _OPTION_TYPES.get(kind) if isinstance(kind, str) else None
        if types is None:
            raise ArgumentError(f"engine {self.name!r} declares option {key!r} of type {kind!r}")
        if value is None and option.get("default") is None:
            return
        if isinstance(value, bool) != (kind == "bool") or not isinstance(value, types):
            raise ArgumentError(
                f"engine {self.name!r} option {key!r} takes {_article(str(kind))} {kind}, "
                f"not {value!r}"
            )
        low, high = option.get("min"), option.get("max")
        if isinstance(low, int | float) and value < low:  # type: ignore[operator]
            raise ArgumentError(
                f"engine {self.name!r} option {key!r} must be at least {low}, not {value!r}"
            )
        if isinstance(high, int | float) and value > high:  # type: ignore[operator]
            raise ArgumentError(
                f"engine {self.name!r} option {key!r} must be at most {high}, not {value!r}"
            )
        choices = option.get("choices")
        if kind == "choice" and isinstance(choices, list) and value not in choices:
            raise ArgumentError(
                f"engine {self.name!r} option {key!r} is one of {choices}, not {value!r}"
            )

    def _tell_game(self, observation: Observation) -> None:
        table = self._table
        assert table is not None
        history = observation.history
        message = protocol.new_game(
            table.game_id,
            observation.seat,
            observation.rules,
            move_time=self.move_time,
            game_time=self.game_time,
            increment=self.increment,
        )
        data = protocol.encode(message)
        table.forget()
        if history:
            data += protocol.encode_events(table.sending(history))
        self._write(data, None)
        table.told = True

    def _log(self, message: Mapping[str, Any]) -> None:
        text = message.get("text")
        self.logs.append(text[:1000] if isinstance(text, str) else repr(text)[:1000])

    def _write(self, data: bytes, deadline: float | None, kind: str = "timeout") -> None:
        """Write ``data`` by ``deadline`` (by default within the handshake time); an
        engine that does not read its input in time is a ``kind`` fault."""
        process = self._process
        assert process is not None
        if deadline is None:
            deadline = time.monotonic() + self.handshake_time
        try:
            done = process.write(data, deadline)
        except OSError:  # BrokenPipeError: the engine closed its input (or exited)
            self._ended("closed its input")
        if not done:
            limit = max(0.0, deadline - time.monotonic())
            self._fault(kind, "did not read its input in time", limit or self.handshake_time)

    def _read(
        self, deadline: float | None, awaited: str, limit: float | None, kind: str = "timeout"
    ) -> dict[str, Any]:
        """The next message by ``deadline``; past it, a ``kind`` fault (``limit`` seconds)."""
        while True:
            line = self._line(deadline, awaited)
            if line is None:
                grace = f" (+{self.grace} s grace)" if kind == "timeout" else ""
                self._fault(kind, f"no {awaited} within {limit} s{grace}", limit)
            if line.strip():
                return self._decode(line)

    def _peek(self, awaited: str) -> dict[str, Any] | None:
        """The next message already sent, without waiting; None if there is none."""
        while (line := self._line(0.0, awaited)) is not None:
            if line.strip():
                return self._decode(line)
        return None

    def _line(self, deadline: float | None, awaited: str) -> bytes | None:
        process = self._process
        assert process is not None
        try:
            return process.line(deadline)
        except OversizedError:
            self._fault("oversized", f"wrote a line longer than {self.max_line} bytes")
        except EndOfOutputError:
            self._ended(f"closed its output while the referee awaited {awaited}")

    def _decode(self, line: bytes) -> dict[str, Any]:
        try:
            return protocol.decode(line)
        except protocol.ProtocolError as error:
            self._fault("garbage", f"wrote {error}")

    def _ended(self, what: str) -> NoReturn:
        """The engine closed its output (or its input): a fault at once. An engine that
        exited keeps its own exit status (the kill does not change it); one that still
        runs is killed."""
        self._fault("exit", what)

    def _fault(self, kind: str, detail: str, limit: float | None = None) -> NoReturn:
        process, self._process = self._process, None
        assert process is not None
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None
        if self._table is not None:
            self._table.told = False
        alive = not process.exited()
        returncode = process.reap()
        tail = process.stderr_tail()
        if alive and returncode == -signal.SIGKILL:
            ending = f"killed by the referee (exit code {returncode})"
        elif returncode < 0:
            ending = f"exit code {returncode} (signal {signal_name(-returncode)})"
        else:
            ending = f"exit code {returncode}"
        shown = tail_text(tail)
        message = f"engine {self.name!r} ({kind}): {detail}; {ending}; stderr: {shown}"
        if kind == "timeout":
            assert limit is not None
            raise EngineTimeoutError(message, limit, returncode, tail)
        raise EngineError(message, kind, returncode, tail)


# -- helpers -------------------------------------------------------------------------------


def _seconds(value: object, name: str, *, zero: bool = False) -> float | None:
    if value is None:
        if zero:
            raise ArgumentTypeError(f"{name} must be a number of seconds, not None")
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ArgumentTypeError(f"{name} must be a number of seconds, not {value!r}")
    if not math.isfinite(value) or value < 0 or (value == 0 and not zero):
        what = "non-negative" if zero else "positive"
        raise ArgumentError(f"{name} must be a {what} number of seconds, not {value!r}")
    return float(value)


def _article(word: str) -> str:
    return "an" if word[:1] in ("a", "e", "i", "o", "u") else "a"


def _least(a: float | None, b: float | None) -> float | None:
    if a is None:
        return b
    return a if b is None else min(a, b)
