"""The keeper of one engine process (Linux): nothing the engine starts outlives it.

:class:`skitgubbe.engine.EnginePlayer` runs ``python -I -S keeper.py CONTROL STATUS
PARENT UID GID GROUPS LIMITS -- ENGINE...`` in a session of its own, with the
engine's three pipes as its standard streams. The keeper

- makes itself a child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``): a process
  the engine starts that then daemonizes (``fork``, ``setsid``, ``fork``) is
  reparented to the keeper, not to init, so the keeper can still find it;
- forks the engine in a process group of its own, with the pipes passed straight
  through (the keeper holds no copy of them afterwards, so it adds nothing to a
  move's round trip), the resource limits, user and groups it is given, and the
  referee's environment as the keeper received it; it then writes ``ok PID`` (or
  ``err ERRNO`` when the engine cannot be executed) on STATUS;
- waits for one of: the engine's exit (a pidfd), a byte or the end of file on
  CONTROL (the referee's "end it now", or the referee gone), SIGTERM (sent by the
  kernel when the referee's thread dies, ``PR_SET_PDEATHSIG``, or by anyone);
- then kills every descendant with SIGKILL (its process group first, then every
  child of the keeper, again and again as orphans are reparented to it, until it
  has no child left), reaps them all, and exits as the engine did: the same exit
  code, or killed by the same signal, so that the referee reports the engine's
  own status.

It runs with ``-I -S``, imports nothing of skitgubbe and as little else as it can.
It is started by its path (:mod:`skitgubbe.engine.process`), never imported by
skitgubbe: an implementation detail of :mod:`skitgubbe.engine`, without public names.
"""

from __future__ import annotations

import ctypes
import os
import select
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds to import: for the type checker only
    import signal
    from collections.abc import Callable, Mapping, Sequence
    from types import FrameType
    from typing import NoReturn
else:
    try:  # the signal module's C core: signal itself imports enum (milliseconds)
        import _signal as signal
    except ImportError:  # pragma: no cover - another Python
        import signal

_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4
_PR_SET_CHILD_SUBREAPER = 36


def _terminated(signum: int, frame: FrameType | None) -> None:
    """SIGTERM: nothing here. The signal's byte on the wakeup pipe ends the wait, however
    early it came; raising here could cut the keeper short anywhere, before its sweep."""


def _quietly(function: Callable[..., object], *args: int) -> None:
    """``function(*args)``, whatever it raises (a process gone already, say)."""
    try:
        function(*args)
    except (OSError, ValueError):
        return


def _numbers(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part]


def _children(me: int) -> list[int]:
    """The keeper's children, from /proc (``/proc/PID/task/*/children`` may be absent)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == me:
            found.append(int(entry))
    return found


def _sweep(engine: int, status: int | None) -> int | None:
    """Kill and reap every descendant; the engine's wait status (``status`` if reaped)."""
    if status is None:  # not reaped: its group id is still its own
        _quietly(os.killpg, engine, signal.SIGKILL)
        _quietly(os.kill, engine, signal.SIGKILL)  # in case it left its group
        status = os.waitpid(engine, 0)[1]
    me = os.getpid()
    while True:
        try:
            pid, code = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return status  # no child left: every descendant is gone
        if pid:
            if pid == engine:
                status = code
            continue
        # Children left, none exited yet: kill them all (orphans come to the keeper,
        # its subreaper, as their parents die), then wait for one.
        children = _children(me)
        for child in children:
            _quietly(os.kill, child, signal.SIGKILL)
        if not children:  # one just being reparented: look again in a moment
            time.sleep(0.001)
            continue
        pid, code = os.waitpid(-1, 0)
        if pid == engine:
            status = code


def _exit_as(status: int | None, prctl: Callable[..., int]) -> NoReturn:
    """Exit as the engine did (its code, or its signal)."""
    if status is None:
        status = signal.SIGKILL  # a wait status: killed by SIGKILL
    if os.WIFEXITED(status):
        os._exit(os.WEXITSTATUS(status))
    number = os.WTERMSIG(status)
    prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)  # no core file of the keeper's own
    _quietly(signal.signal, number, signal.SIG_DFL)  # SIGKILL has no handler to reset
    _quietly(os.kill, os.getpid(), number)
    os._exit(128 + number)


def _engine_child(
    argv: list[str],
    env: Mapping[bytes, bytes],
    control: int,
    status: int,
    uid: int | None,
    gid: int | None,
    groups: list[int] | None,
    limits: list[tuple[int, ...]],
    errors: int,
) -> NoReturn:
    """In the forked child: become the engine (never returns)."""
    try:
        os.close(control)
        os.close(status)
        os.setpgid(0, 0)
        for number in (signal.SIGTERM, signal.SIGPIPE, signal.SIGXFSZ):
            signal.signal(number, signal.SIG_DFL)
        if limits:
            import resource

            for which, soft, hard in limits:
                resource.setrlimit(which, (soft, hard))
        if groups is not None:
            os.setgroups(groups)
        if gid is not None:
            os.setregid(gid, gid)
        if uid is not None:
            os.setreuid(uid, uid)
        os.execvpe(argv[0], argv, env)
    except OSError as error:
        os.write(errors, str(error.errno or 0).encode())
    except BaseException:
        pass
    os._exit(127)


def _environment() -> Mapping[bytes, bytes]:
    """The environment the referee gave (Python may have changed os.environ since:
    locale coercion adds LC_CTYPE)."""
    try:
        with open("/proc/self/environ", "rb") as source:
            data = source.read()
    except OSError:
        return os.environb
    env: dict[bytes, bytes] = {}
    for item in data.split(b"\0"):
        key, equals, value = item.partition(b"=")
        if equals:
            env[key] = value
    return env


def main(args: Sequence[str]) -> NoReturn:
    control, status = int(args[0]), int(args[1])
    parent = int(args[2])
    uid = None if args[3] == "-" else int(args[3])
    gid = None if args[4] == "-" else int(args[4])
    groups = None if args[5] == "-" else _numbers(args[5])
    limits = [tuple(_numbers(item.replace(":", ","))) for item in args[6].split(";") if item]
    argv = list(args[8:])
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    engine = 0
    waited = None
    try:
        woken, wakeup = os.pipe()  # close-on-exec, as the engine's end of "errors"
        os.set_blocking(wakeup, False)
        signal.set_wakeup_fd(wakeup)
        signal.signal(signal.SIGTERM, _terminated)
        if parent:
            prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
            if os.getppid() != parent:  # the referee died before the line above
                os._exit(1)
        if prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            os.write(status, b"err %d\n" % ctypes.get_errno())
            os._exit(127)
        env = _environment()
        errors, errors_w = os.pipe()  # close-on-exec: end of file once the engine runs
        engine = os.fork()
        if engine == 0:
            _engine_child(argv, env, control, status, uid, gid, groups, limits, errors_w)
        os.close(errors_w)
        # The keeper keeps no end of the engine's pipes: they are the engine's alone.
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.close(null)
        failed = b""
        while chunk := os.read(errors, 64):
            failed += chunk
        os.close(errors)
        if failed:
            waited = os.waitpid(engine, 0)[1]
            os.write(status, b"err " + failed + b"\n")
            os._exit(127)
        os.write(status, b"ok %d\n" % engine)
        os.close(status)
        poll = select.poll()
        poll.register(woken, select.POLLIN)
        poll.register(control, select.POLLIN)
        pidfd = os.pidfd_open(engine)
        poll.register(pidfd, select.POLLIN)
        for fd, _ in poll.poll():
            if fd == pidfd:
                waited = os.waitpid(engine, 0)[1]
                break
    except OSError:  # the referee is gone
        pass
    if engine <= 0:
        os._exit(1)
    _exit_as(_sweep(engine, waited), prctl)


if __name__ == "__main__":
    main(sys.argv[1:])
