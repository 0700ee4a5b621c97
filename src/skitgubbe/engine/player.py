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
each engine runs under a keeper (``skitgubbe._keeper``, a child subreaper)
that kills all the engine started, daemons included, when it ends; elsewhere
the engine's process group is killed. :class:`AsyncEnginePlayer` is the
same seat for :func:`~skitgubbe.play_game_async`, and :class:`Limits` caps an
engine's memory, CPU time and open files (POSIX).

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

import asyncio
import contextlib
import itertools
import math
import os
import select
import selectors
import shlex
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, NoReturn, cast

import attrs

from . import __version__, protocol
from .errors import ArgumentError, ArgumentTypeError, EngineError, EngineTimeoutError
from .events import Event
from .game import GameResult
from .moves import Move
from .observation import History, Observation

try:
    import resource
except ImportError:  # pragma: no cover - not POSIX
    resource = None  # type: ignore[assignment]

__all__ = ["AsyncEnginePlayer", "EngineId", "EnginePlayer", "Limits"]

STDERR_TAIL: Final = 4096
"""How many bytes of an engine's standard error are kept to report a fault."""

LOG_LINES: Final = 64
"""How many ``log`` messages of an engine are kept (the last ones)."""

_QUIT_WAIT: Final = 1.0  # seconds an engine has to exit after quit
_READ_SIZE: Final = 1 << 16
_OPTION_TYPES: Final[dict[str, type | tuple[type, ...]]] = {
    "int": int,
    "float": (int, float),
    "bool": bool,
    "string": str,
    "choice": str,
}


# -- limits ------------------------------------------------------------------------------


def _optional_positive(kind: type | tuple[type, ...]) -> Callable[[Any, Any, Any], None]:
    def check(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
        if value is None:
            return
        if isinstance(value, bool) or not isinstance(value, kind):
            raise ArgumentTypeError(
                f"Limits.{attribute.name} must be a positive number or None, not {value!r}"
            )
        number = float(cast(float, value))
        if not (number > 0 and math.isfinite(number)):
            raise ArgumentError(
                f"Limits.{attribute.name} must be a positive number or None, not {value!r}"
            )

    return check


@attrs.frozen
class Limits:
    """Resource limits for an engine process: ``memory`` (bytes of address space),
    ``cpu_time`` (seconds of CPU, rounded up to whole seconds) and ``open_files``
    (the most file descriptors); ``None``: no limit.

    They are set in the child before the engine's program starts
    (``resource.setrlimit``: ``RLIMIT_AS``, ``RLIMIT_CPU``, ``RLIMIT_NOFILE``,
    soft and hard, so the engine cannot raise them again). An engine over its
    memory limit sees its allocations fail (a Python engine raises
    ``MemoryError`` and exits), one over its CPU time is killed by the kernel
    (``SIGXCPU``, then ``SIGKILL``); either is reported as an ``"exit"``
    :class:`~skitgubbe.EngineError` with the exit code and the standard error.
    Limits need POSIX (the :mod:`resource` module): elsewhere an
    :class:`EnginePlayer` given limits refuses to start
    (:class:`~skitgubbe.ArgumentError`) rather than run the engine unlimited.

    >>> from skitgubbe.engine import Limits
    >>> Limits(memory=200 * 2**20, cpu_time=30)
    Limits(memory=209715200, cpu_time=30, open_files=None)
    >>> Limits(memory=-1)
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: Limits.memory must be a positive number or None, not -1
    """

    memory: int | None = attrs.field(default=None, validator=_optional_positive(int))
    cpu_time: float | None = attrs.field(default=None, validator=_optional_positive((int, float)))
    open_files: int | None = attrs.field(default=None, validator=_optional_positive(int))

    def _settings(self) -> list[tuple[int, int, int]]:
        """``(resource, soft, hard)`` for each limit given, checked against the hard
        limits of this process (which the child inherits)."""
        if resource is None:  # pragma: no cover - not POSIX
            raise ArgumentError("engine Limits need the resource module (POSIX)")
        wanted = [
            (resource.RLIMIT_AS, "memory", self.memory, 0),
            (
                resource.RLIMIT_CPU,
                "cpu_time",
                None if self.cpu_time is None else math.ceil(self.cpu_time),
                1,
            ),
            (resource.RLIMIT_NOFILE, "open_files", self.open_files, 0),
        ]
        settings = []
        for which, name, value, margin in wanted:
            if value is None:
                continue
            _, hard = resource.getrlimit(which)
            if hard != resource.RLIM_INFINITY and value > hard:
                raise ArgumentError(f"Limits.{name} {value} is above this process's limit {hard}")
            top = value + margin
            settings.append(
                (which, value, top if hard == resource.RLIM_INFINITY else min(top, hard))
            )
        return settings


def _prctl() -> Callable[..., int] | None:
    """Linux's ``prctl``, looked up in the parent (the child between fork and exec
    should call, not load), or None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        function: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # pragma: no cover - a libc without prctl
        return None
    return function


_PR_SET_PDEATHSIG: Final = 1

_KEEPER_PATH: Final = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_keeper.py")
_KEEPER_WAIT: Final = 5.0  # seconds a keeper has to end its engine before it is killed


def _keeper_available() -> bool:
    """Whether engines run under a keeper (:mod:`skitgubbe._keeper`): on Linux, with
    ``prctl`` and ``pidfd_open`` (Linux 5.3), and the keeper's file at hand."""
    return _prctl() is not None and hasattr(os, "pidfd_open") and os.path.isfile(_KEEPER_PATH)


_KEEPER: Final = _keeper_available()
"""Whether this platform runs each engine under a keeper process that kills every
descendant of the engine when it ends — those that daemonized included (Linux, with
``PR_SET_CHILD_SUBREAPER`` and ``pidfd_open``). Elsewhere the referee kills the
engine's process group, which a process that left the group (``setsid``) escapes."""


def _child_setup(
    settings: list[tuple[int, int, int]], parent: int | None
) -> Callable[[], None] | None:
    """What the child runs between fork and exec: the limits, and (``parent`` given,
    on Linux) a SIGKILL when the thread that started it dies, so that an engine
    never outlives a referee that was killed before it could clean up."""
    prctl = _prctl() if parent is not None else None
    if not settings and prctl is None:
        return None

    def apply() -> None:  # runs in the child, between fork and exec
        if prctl is not None:
            prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            if os.getppid() != parent:  # the referee died before the line above
                os._exit(1)
        for which, soft, hard in settings:
            resource.setrlimit(which, (soft, hard))

    return apply


# -- the process -------------------------------------------------------------------------


class _EndOfOutputError(Exception):
    """The engine closed its standard output."""


class _OversizedError(Exception):
    """The engine wrote a line longer than the limit."""


class _Ready:
    """Waits for one pipe to be readable (or writable): with ``select.poll`` where there
    is one (a decision's wait without the selectors' bookkeeping), else a selector."""

    def __init__(self, fd: int, *, write: bool) -> None:
        self.poll: Any = None
        self.selector: selectors.BaseSelector | None = None
        if hasattr(select, "poll"):
            self.poll = select.poll()
            self.poll.register(fd, select.POLLOUT if write else select.POLLIN)
        else:  # pragma: no cover - no poll(2)
            self.selector = selectors.DefaultSelector()
            self.selector.register(fd, selectors.EVENT_WRITE if write else selectors.EVENT_READ)

    def wait(self, timeout: float | None = None) -> bool:
        """Whether the pipe became ready (or hung up) within ``timeout`` seconds."""
        if self.poll is not None:
            return bool(self.poll.poll(None if timeout is None else math.ceil(timeout * 1e3)))
        assert self.selector is not None
        return bool(self.selector.select(timeout))

    def close(self) -> None:
        if self.selector is not None:
            self.selector.close()


class _Process:
    """One engine process: non-blocking pipes, a bounded line buffer, the tail of its
    standard error. It never refers to its player, so a finalizer can hold it."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: str | os.PathLike[str] | None,
        env: Mapping[str, str] | None,
        limits: Limits | None,
        max_line: int,
        user: str | int | None = None,
        group: str | int | None = None,
        start_time: float = 10.0,
    ) -> None:
        settings = limits._settings() if limits is not None else []
        # The parent-death signal follows the thread that forks: only the main thread
        # lives as long as the process (a worker thread may end before its engine).
        main = threading.current_thread() is threading.main_thread()
        self.control: int | None = None  # the keeper's "end it now" pipe
        if _KEEPER:
            self.popen, self.engine_pid = self._keep(
                argv, cwd, env, settings, os.getpid() if main else 0, user, group, start_time
            )
        else:
            self.popen = subprocess.Popen(
                list(argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                cwd=cwd,
                env=env,
                start_new_session=True,  # its own process group: killed as one
                preexec_fn=_child_setup(settings, os.getpid() if main else None),
                user=user,
                group=group,
                extra_groups=[] if user is not None or group is not None else None,
            )
            self.engine_pid = self.popen.pid
        assert self.popen.stdin and self.popen.stdout and self.popen.stderr
        self.pid = self.popen.pid
        self.max_line = max_line
        self.stdin = self.popen.stdin.fileno()
        self.stdout = self.popen.stdout.fileno()
        os.set_blocking(self.stdin, False)
        os.set_blocking(self.stdout, False)
        self.reading = _Ready(self.stdout, write=False)
        self.writing = _Ready(self.stdin, write=True)
        self.buffer = bytearray()
        self.scanned = 0  # bytes of the buffer known to hold no newline
        self.tail = bytearray()
        self.tail_lock = threading.Lock()
        self.reaped = False
        self.killed = False
        self.lock = threading.Lock()  # reaping and closing
        self.drain = threading.Thread(
            target=self._drain, name=f"skitgubbe-engine-{self.pid}-stderr", daemon=True
        )
        self.drain.start()

    def _keep(
        self,
        argv: Sequence[str],
        cwd: str | os.PathLike[str] | None,
        env: Mapping[str, str] | None,
        settings: list[tuple[int, int, int]],
        parent: int,
        user: str | int | None,
        group: str | int | None,
        start_time: float,
    ) -> tuple[subprocess.Popen[bytes], int]:
        """Start the engine under a keeper (:mod:`skitgubbe._keeper`); the keeper's
        Popen and the engine's process id. OSError when the engine cannot run."""
        uid, gid = _user_id(user), _group_id(group)
        groups = "" if user is not None or group is not None else "-"
        limits = ";".join(f"{which}:{soft}:{hard}" for which, soft, hard in settings)
        control, self.control = os.pipe()
        os.set_blocking(self.control, False)
        status, status_w = os.pipe()
        keeper = [sys.executable, "-I", "-S", _KEEPER_PATH, str(control), str(status_w)]
        keeper += [str(parent), _text(uid), _text(gid), groups, limits, "--", *argv]
        try:
            popen = subprocess.Popen(
                keeper,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                cwd=cwd,
                env=env,
                start_new_session=True,  # the keeper's session; the engine has a group of its own
                pass_fds=(control, status_w),
            )
        except BaseException:
            os.close(self.control)
            raise
        finally:
            os.close(control)
            os.close(status_w)
        try:
            answer = _read_status(status, time.monotonic() + start_time)
        finally:
            os.close(status)
        if answer.startswith(b"ok "):
            return popen, int(answer[3:])
        for pipe in (popen.stdin, popen.stdout, popen.stderr):
            if pipe is not None:
                pipe.close()
        with contextlib.suppress(OSError):
            os.write(self.control, b"k")
        try:
            code = popen.wait(_KEEPER_WAIT)
        except subprocess.TimeoutExpired:
            os.killpg(popen.pid, signal.SIGKILL)
            code = popen.wait()
        os.close(self.control)
        if answer.startswith(b"err ") and answer[4:].strip().isdigit():
            number = int(answer[4:])
            raise OSError(number, os.strerror(number), argv[0])
        raise OSError(f"the engine's keeper failed ({_exit_words(code)})")

    def _drain(self) -> None:
        stderr = self.popen.stderr
        assert stderr is not None
        fd = stderr.fileno()
        try:
            while chunk := os.read(fd, 4096):
                with self.tail_lock:
                    self.tail += chunk
                    if len(self.tail) > STDERR_TAIL:
                        del self.tail[:-STDERR_TAIL]
        except OSError:
            pass
        finally:
            stderr.close()

    # -- writing and reading

    def write(self, data: bytes, deadline: float) -> bool:
        """Write all of ``data`` by ``deadline``; False when the engine did not read it
        in time. BrokenPipeError when the engine closed its input."""
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self.stdin, view) :]
                continue
            except BlockingIOError:
                pass
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self.writing.wait(left)
        return True

    def line(self, deadline: float | None) -> bytes | None:
        """The next line (newline included), or None when ``deadline`` passed first.

        _EndOfOutputError when the engine closed its output, _OversizedError when a
        line is longer than ``max_line`` bytes (the buffer never holds much more).
        """
        buffer = self.buffer
        while True:
            end = buffer.find(b"\n", self.scanned)
            if end >= 0:
                if end + 1 > self.max_line:
                    raise _OversizedError
                line = bytes(buffer[: end + 1])
                del buffer[: end + 1]
                self.scanned = 0
                return line
            self.scanned = len(buffer)
            if len(buffer) >= self.max_line:
                raise _OversizedError
            if deadline is None:
                self.reading.wait()
            elif not self.reading.wait(max(0.0, deadline - time.monotonic())):
                if time.monotonic() >= deadline:  # a deadline passed still has a look
                    return None
                continue
            try:
                chunk = os.read(self.stdout, min(_READ_SIZE, self.max_line + 1 - len(buffer)))
            except BlockingIOError:
                continue
            except OSError as error:  # a closed pipe reads as an end of output
                raise _EndOfOutputError from error
            if not chunk:
                raise _EndOfOutputError
            buffer += chunk

    # -- the end

    def exited(self) -> bool:
        """Whether the engine's main process (on Linux: its keeper) has exited, without
        reaping it, so that its process id stays its own until we have killed it."""
        if self.reaped:
            return True
        waitid = getattr(os, "waitid", None)
        if waitid is None:  # pragma: no cover - not Linux
            return self.popen.poll() is not None
        try:
            return waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        except ChildProcessError:
            return True

    def wait_exit(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for the main process to exit on its own."""
        deadline = time.monotonic() + seconds
        pause = 0.0005
        while not self.exited():
            if time.monotonic() >= deadline:
                return False
            time.sleep(pause)
            pause = min(pause * 2, 0.02)
        return True

    def kill(self) -> None:
        """Kill the engine and all it started: its keeper does (and then exits), else
        SIGKILL to the whole process group. Safe from any thread, any number of times."""
        with self.lock:
            if self.reaped:
                return
            self.killed = True  # dying: never to be used again, even before it has exited
            if self.control is not None:
                with contextlib.suppress(OSError):  # a full pipe has been told already
                    os.write(self.control, b"k")
                return
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)

    def reap(self) -> int:
        """Kill the engine, reap the process and release the pipes; its exit status."""
        self.kill()
        with self.lock:  # a kill from another thread never meets a reaped (reusable) pid
            try:
                returncode = self.popen.wait(None if self.control is None else _KEEPER_WAIT)
            except subprocess.TimeoutExpired:  # pragma: no cover - a keeper never hangs
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.pid, signal.SIGKILL)
                returncode = self.popen.wait()
            if not self.reaped:
                self.reaped = True
                if self.control is not None:
                    os.close(self.control)
                for closing in (self.reading, self.writing):
                    closing.close()
                for pipe in (self.popen.stdin, self.popen.stdout):
                    if pipe is not None:
                        with contextlib.suppress(OSError):
                            pipe.close()
        return returncode

    def stderr_tail(self, wait: float = 0.5) -> str:
        """The last bytes of standard error, as text (waiting a moment for the rest)."""
        self.drain.join(wait)
        with self.tail_lock:
            return self.tail.decode("utf-8", errors="replace")

    def close(self, farewell: bytes) -> int:
        """Say ``farewell`` (quit), close stdin, give the engine a moment to exit, then
        kill what is left of it and reap it."""
        if not self.reaped:
            with contextlib.suppress(OSError):
                self.write(farewell, time.monotonic() + 0.1)
            if self.popen.stdin is not None:
                with contextlib.suppress(OSError):
                    self.popen.stdin.close()
            self.wait_exit(_QUIT_WAIT)
        return self.reap()


def _finalize(process: _Process) -> None:
    """The guard of a player that was never closed: kill and reap its engine."""
    with contextlib.suppress(Exception):  # best effort, maybe at exit
        process.reap()


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

    _process: _Process | None
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
        self.move_time = _seconds(move_time, "move_time")
        self.game_time = _seconds(game_time, "game_time")
        self.increment = _seconds(increment, "increment", zero=True) or 0.0
        self.grace = _seconds(grace, "grace", zero=True) or 0.0
        self.handshake_time: float = _seconds(handshake_time, "handshake_time") or 10.0
        if type(max_line) is not int or max_line < 2:
            raise ArgumentError(f"max_line must be an int of at least 2 bytes, not {max_line!r}")
        self.max_line = max_line
        self.limits = limits
        if limits is not None:
            limits._settings()  # refuses limits this platform cannot apply, now
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
    def _child_pid(self) -> int | None:
        """The referee's own child: the engine's keeper (see :func:`_kill_child`), or the
        engine itself where there is no keeper."""
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
            return protocol._parse_move(text)
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
            process = _Process(
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
        self._finalizer = weakref.finalize(self, _finalize, process)
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
        except _OversizedError:
            self._fault("oversized", f"wrote a line longer than {self.max_line} bytes")
        except _EndOfOutputError:
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
            ending = f"exit code {returncode} (signal {_signal_name(-returncode)})"
        else:
            ending = f"exit code {returncode}"
        shown = _tail_text(tail)
        message = f"engine {self.name!r} ({kind}): {detail}; {ending}; stderr: {shown}"
        if kind == "timeout":
            assert limit is not None
            raise EngineTimeoutError(message, limit, returncode, tail)
        raise EngineError(message, kind, returncode, tail)


class AsyncEnginePlayer:
    """An :class:`EnginePlayer` as an :class:`~skitgubbe.AsyncPlayer`, for
    :func:`~skitgubbe.play_game_async`: each call runs in a worker thread
    (:func:`asyncio.to_thread`), so the event loop never waits on the engine.
    Calls never overlap. Cancelling ``choose`` (the runner's own timeout, or the
    task's cancellation) kills the engine; the next game starts a fresh one.
    An :class:`~skitgubbe.EngineTimeoutError` counts as the seat's timeout
    (``on_timeout="bot"`` lets the stand-in move). The arguments are
    :class:`EnginePlayer`'s; the engine starts in :meth:`start` (or the first
    call, or ``async with``).

    >>> import asyncio, sys
    >>> import skitgubbe as sg
    >>> from skitgubbe.engine import AsyncEnginePlayer
    >>> async def main() -> sg.GameResult:
    ...     command = [sys.executable, "-m", "skitgubbe", "engine", "greedy"]
    ...     async with AsyncEnginePlayer(command, move_time=5) as engine:
    ...         return await sg.play_game_async([engine, sg.bots.GreedyBot()], seed=4)
    >>> asyncio.run(main()) == sg.play_game([sg.bots.GreedyBot()] * 2, seed=4)
    True
    """

    def __init__(self, command: str | Sequence[str], **options: Any) -> None:
        self._command = command
        self._options = options
        self._player: EnginePlayer | None = None
        self._lock = threading.Lock()

    @property
    def player(self) -> EnginePlayer | None:
        """The :class:`EnginePlayer` once started, else ``None``.

        >>> from skitgubbe.engine import AsyncEnginePlayer
        >>> AsyncEnginePlayer("skitgubbe engine greedy").player is None
        True
        """
        return self._player

    def _call(self, method: str, *args: Any) -> Any:
        with self._lock:
            if self._player is None:
                self._player = EnginePlayer(self._command, **self._options)
            if method == "start":
                return None
            return getattr(self._player, method)(*args)

    async def start(self) -> None:
        """Start the engine and do the handshake (in a worker thread).

        >>> import asyncio, sys
        >>> from skitgubbe.engine import AsyncEnginePlayer
        >>> engine = AsyncEnginePlayer([sys.executable, "-m", "skitgubbe", "engine", "greedy"])
        >>> async def main() -> str | None:
        ...     await engine.start()
        ...     await engine.aclose()
        ...     return engine.player.id.name if engine.player and engine.player.id else None
        >>> asyncio.run(main())
        'greedy'
        """
        await asyncio.to_thread(self._call, "start")

    async def game_started(self, observation: Observation) -> None:
        """:meth:`EnginePlayer.game_started`, in a worker thread.

        >>> import asyncio, sys
        >>> import skitgubbe as sg
        >>> from skitgubbe.engine import AsyncEnginePlayer
        >>> greedy = [sys.executable, "-m", "skitgubbe", "engine", "greedy"]
        >>> async def main() -> bool:
        ...     async with AsyncEnginePlayer(greedy) as e:
        ...         await e.game_started(sg.Game.new(seed=1).observation(0))
        ...         return e.player is not None and e.player.running
        >>> asyncio.run(main())
        True
        """
        await asyncio.to_thread(self._call, "game_started", observation)

    async def choose(self, observation: Observation) -> Move:
        """:meth:`EnginePlayer.choose`, in a worker thread; cancelled, it kills the engine.

        >>> import asyncio, sys
        >>> import skitgubbe as sg
        >>> from skitgubbe.engine import AsyncEnginePlayer
        >>> game = sg.Game.new(seed=2)
        >>> greedy = [sys.executable, "-m", "skitgubbe", "engine", "greedy"]
        >>> async def main() -> sg.Move:
        ...     async with AsyncEnginePlayer(greedy) as e:
        ...         return await e.choose(game.observation(0))
        >>> print(asyncio.run(main()))
        4♥
        """
        work = asyncio.ensure_future(asyncio.to_thread(self._call, "choose", observation))
        try:
            return await asyncio.shield(work)
        except asyncio.CancelledError:
            if self._player is not None:
                self._player.kill()  # the thread's read ends at once
            await asyncio.wait({work})
            if not work.cancelled():
                work.exception()  # retrieved: the kill's EngineError, expected
            raise

    async def game_ended(self, observation: Observation, result: GameResult) -> None:
        """:meth:`EnginePlayer.game_ended`, in a worker thread.

        >>> import asyncio, sys
        >>> import skitgubbe as sg
        >>> from skitgubbe.engine import AsyncEnginePlayer
        >>> greedy = [sys.executable, "-m", "skitgubbe", "engine", "greedy"]
        >>> async def main() -> sg.GameResult:
        ...     async with AsyncEnginePlayer(greedy) as e:
        ...         return await sg.play_game_async([e, e], seed=5)
        >>> asyncio.run(main()).loser in (0, 1, None)
        True
        """
        await asyncio.to_thread(self._call, "game_ended", observation, result)

    async def aclose(self) -> None:
        """Close the engine (:meth:`EnginePlayer.close`), in a worker thread. Idempotent.

        >>> import asyncio, sys
        >>> from skitgubbe.engine import AsyncEnginePlayer
        >>> engine = AsyncEnginePlayer([sys.executable, "-m", "skitgubbe", "engine", "greedy"])
        >>> asyncio.run(engine.aclose())
        """
        player = self._player
        if player is not None:
            if self._lock.locked():  # a call is blocked on the engine: end it now
                player.kill()
            await asyncio.to_thread(self._close)

    def _close(self) -> None:
        with self._lock:
            if self._player is not None:
                self._player.close()

    async def __aenter__(self) -> AsyncEnginePlayer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"AsyncEnginePlayer({self._command!r})"


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


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


def _tail_text(tail: str, limit: int = 600) -> str:
    if not tail.strip():
        return "(empty)"
    text = tail if len(tail) <= limit else "..." + tail[-limit:]
    return repr(text)


def _text(number: int | None) -> str:
    return "-" if number is None else str(number)


def _user_id(user: str | int | None) -> int | None:
    """The user id of ``user`` (a name or a number), as :class:`subprocess.Popen` reads it."""
    if user is None or isinstance(user, int):
        return user
    import pwd

    try:
        return pwd.getpwnam(user).pw_uid
    except KeyError:
        raise OSError(f"no user {user!r}") from None


def _group_id(group: str | int | None) -> int | None:
    """The group id of ``group`` (a name or a number)."""
    if group is None or isinstance(group, int):
        return group
    import grp

    try:
        return grp.getgrnam(group).gr_gid
    except KeyError:
        raise OSError(f"no group {group!r}") from None


def _read_status(fd: int, deadline: float) -> bytes:
    """The keeper's line on ``fd`` (``ok PID`` or ``err ERRNO``), or what came by ``deadline``."""
    data = b""
    ready = select.poll()
    ready.register(fd, select.POLLIN)
    while not data.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or not ready.poll(math.ceil(left * 1e3)):
            break
        chunk = os.read(fd, 64)
        if not chunk:
            break
        data += chunk
    return data


def _exit_words(code: int) -> str:
    return f"exit code {code}" if code >= 0 else f"signal {_signal_name(-code)}"


def _kill_child(pid: int) -> None:
    """End the engine whose referee's child (:attr:`EnginePlayer._child_pid`) is ``pid``
    from another process (the arena's parent, when it stops a worker): its keeper is
    told with SIGTERM to kill it and all it started, else its process group is killed."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if _KEEPER:
            os.kill(pid, signal.SIGTERM)
        else:
            os.killpg(pid, signal.SIGKILL)
