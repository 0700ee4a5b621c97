r"""The engine's process: start it, contain it, limit it, end it (POSIX).

This is the process management of the referee side of the engine protocol
(:class:`~skitgubbe.engine.EnginePlayer` speaks the protocol over it): an
:class:`EngineProcess` is one engine program with non-blocking pipes, a
bounded line buffer and the tail of its standard error; :class:`Limits` caps
its memory, CPU time and open files (``setrlimit`` in the child, before the
engine's program starts). On Linux each engine runs under a keeper
(:mod:`skitgubbe.engine.keeper`, a child subreaper, started as a script by its
path) that kills all the engine started, daemons included, when it ends
(:data:`KEEPER`); elsewhere the engine's process group is killed.
:func:`kill_child` ends an engine from another process (the arena's parent,
when it stops a worker), given the referee's child
(:attr:`EnginePlayer.child_pid <skitgubbe.engine.EnginePlayer.child_pid>`).

>>> import sys
>>> from skitgubbe.engine.process import EngineProcess
>>> echo = [sys.executable, "-c", "import sys; print(sys.stdin.readline().upper(), end='')"]
>>> process = EngineProcess(echo, cwd=None, env=None, limits=None, max_line=1024)
>>> import time
>>> process.write(b"hello\n", time.monotonic() + 5)
True
>>> process.line(time.monotonic() + 5)
b'HELLO\n'
>>> process.close(b"")
0
"""

from __future__ import annotations

import contextlib
import math
import os
import select
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, cast

import attrs

from ..errors import ArgumentError, ArgumentTypeError

try:
    import resource
except ImportError:  # pragma: no cover - not POSIX
    resource = None  # type: ignore[assignment]

__all__ = [
    "KEEPER",
    "STDERR_TAIL",
    "EndOfOutputError",
    "EngineProcess",
    "Limits",
    "OversizedError",
    "kill_child",
    "reap_quietly",
    "signal_name",
    "tail_text",
]

STDERR_TAIL: Final = 4096
"""How many bytes of an engine's standard error are kept to report a fault."""

_QUIT_WAIT: Final = 1.0  # seconds an engine has to exit after quit
_READ_SIZE: Final = 1 << 16


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

    def rlimits(self) -> list[tuple[int, int, int]]:
        """``(resource, soft, hard)`` for each limit given, checked against the hard
        limits of this process (which the child inherits): what the child sets with
        ``resource.setrlimit`` before the engine's program starts. A limit above this
        process's own hard limit, or no :mod:`resource` module, is an
        :class:`~skitgubbe.ArgumentError`.

        >>> import resource
        >>> from skitgubbe.engine import Limits
        >>> Limits(cpu_time=2.5).rlimits() == [(resource.RLIMIT_CPU, 3, 4)]
        True
        >>> Limits().rlimits()
        []
        """
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

_KEEPER_PATH: Final = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keeper.py")
_KEEPER_WAIT: Final = 5.0  # seconds a keeper has to end its engine before it is killed


def _keeper_available() -> bool:
    """Whether engines run under a keeper (:mod:`skitgubbe.engine.keeper`): on Linux, with
    ``prctl`` and ``pidfd_open`` (Linux 5.3), and the keeper's file at hand."""
    return _prctl() is not None and hasattr(os, "pidfd_open") and os.path.isfile(_KEEPER_PATH)


KEEPER: Final = _keeper_available()
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


class EndOfOutputError(Exception):
    """The engine closed its standard output (raised by :meth:`EngineProcess.line`).

    >>> from skitgubbe.engine.process import EndOfOutputError
    >>> issubclass(EndOfOutputError, Exception)
    True
    """


class OversizedError(Exception):
    """The engine wrote a line longer than the limit (raised by :meth:`EngineProcess.line`).

    >>> import sys, time
    >>> from skitgubbe.engine.process import EngineProcess, OversizedError
    >>> long = [sys.executable, "-c", "print('x' * 100)"]
    >>> process = EngineProcess(long, cwd=None, env=None, limits=None, max_line=10)
    >>> try:
    ...     process.line(time.monotonic() + 5)
    ... except OversizedError:
    ...     print("too long")
    too long
    >>> process.wait_exit(10), process.reap()
    (True, 0)
    """


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


class EngineProcess:
    """One engine process: non-blocking pipes, a bounded line buffer, the tail of its
    standard error. It never refers to its player, so a finalizer can hold it.

    ``argv`` starts in a process group of its own (on Linux under a keeper,
    :data:`KEEPER`), in ``cwd`` with ``env``, under ``limits``, as ``user`` and
    ``group``; lines longer than ``max_line`` bytes are refused. An engine that
    cannot run is an :class:`OSError` (within ``start_time`` seconds, under a
    keeper). :attr:`pid` is the referee's child (the keeper, or the engine),
    :attr:`engine_pid` the engine's own.

    >>> import sys, time
    >>> from skitgubbe.engine.process import EngineProcess
    >>> code = "import sys; sys.stderr.write('bye'); sys.exit(3)"
    >>> process = EngineProcess([sys.executable, "-c", code], cwd=None, env=None,
    ...                         limits=None, max_line=1024)
    >>> process.wait_exit(10), process.reap(), process.stderr_tail()
    (True, 3, 'bye')
    """

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
        settings = limits.rlimits() if limits is not None else []
        # The parent-death signal follows the thread that forks: only the main thread
        # lives as long as the process (a worker thread may end before its engine).
        main = threading.current_thread() is threading.main_thread()
        self.control: int | None = None  # the keeper's "end it now" pipe
        if KEEPER:
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
        """Start the engine under a keeper (:mod:`skitgubbe.engine.keeper`); the keeper's
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

        EndOfOutputError when the engine closed its output, OversizedError when a
        line is longer than ``max_line`` bytes (the buffer never holds much more).
        """
        buffer = self.buffer
        while True:
            end = buffer.find(b"\n", self.scanned)
            if end >= 0:
                if end + 1 > self.max_line:
                    raise OversizedError
                line = bytes(buffer[: end + 1])
                del buffer[: end + 1]
                self.scanned = 0
                return line
            self.scanned = len(buffer)
            if len(buffer) >= self.max_line:
                raise OversizedError
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
                raise EndOfOutputError from error
            if not chunk:
                raise EndOfOutputError
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


def reap_quietly(process: EngineProcess) -> None:
    """The guard of a player that was never closed: kill and reap its engine, whatever
    fails (it may run at the interpreter's exit).

    >>> import sys
    >>> from skitgubbe.engine.process import EngineProcess, reap_quietly
    >>> sleeper = [sys.executable, "-c", "import time; time.sleep(60)"]
    >>> process = EngineProcess(sleeper, cwd=None, env=None, limits=None, max_line=1024)
    >>> reap_quietly(process)
    >>> process.reaped
    True
    """
    with contextlib.suppress(Exception):  # best effort, maybe at exit
        process.reap()


# -- helpers


def signal_name(number: int) -> str:
    """The name of signal ``number``, or the number as text when it has none.

    >>> from skitgubbe.engine.process import signal_name
    >>> signal_name(9), signal_name(999)
    ('SIGKILL', '999')
    """
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


def tail_text(tail: str, limit: int = 600) -> str:
    """The tail of an engine's standard error as a fault message shows it: its last
    ``limit`` characters, quoted, or ``(empty)``.

    >>> from skitgubbe.engine.process import tail_text
    >>> tail_text("MemoryError"), tail_text(" "), tail_text("abcdef", 3)
    ("'MemoryError'", '(empty)', "'...def'")
    """
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
    return f"exit code {code}" if code >= 0 else f"signal {signal_name(-code)}"


def kill_child(pid: int) -> None:
    """End the engine whose referee's child is ``pid``
    (:attr:`EnginePlayer.child_pid <skitgubbe.engine.EnginePlayer.child_pid>`) from
    another process (the arena's parent, when it stops a worker): its keeper is told
    with SIGTERM to kill it and all it started, else its process group is killed. A
    process already gone is no error.

    >>> import sys
    >>> from skitgubbe.engine import EnginePlayer, kill_child
    >>> engine = EnginePlayer([sys.executable, "-m", "skitgubbe", "engine", "greedy"])
    >>> kill_child(engine.child_pid)
    >>> engine.close()
    """
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if KEEPER:
            os.kill(pid, signal.SIGTERM)
        else:
            os.killpg(pid, signal.SIGKILL)
