"""A real PostgreSQL server for the store tests, on 127.0.0.1: ``initdb`` in a temporary
folder, ``pg_ctl`` to start and stop it, and a fresh database for each test
(:meth:`Postgres.new_database`) on one shared server.

``initdb`` and the server refuse to run as root: when the tests run as root (CI does), every
PostgreSQL command runs as the ``postgres`` system user (``runuser -u postgres --``), which
owns the temporary folder. Debian's package (``apt-get install postgresql``) makes that user
and puts the programs in /usr/lib/postgresql/VERSION/bin."""

from __future__ import annotations

import contextlib
import os
import pwd
import re
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from server_support import free_port

INSTALL_HINT = "apt-get install postgresql"
"""How to get the server's programs on Debian (CI's machine)."""

SERVICE_USER = "postgres"
"""The system user PostgreSQL runs as under root, and the database superuser ``initdb``
makes (``initdb -U``) whoever runs it: the user of every DSN here."""

PROGRAMS = ("initdb", "pg_ctl", "postgres", "createdb", "dropdb")
"""The programs a :class:`Postgres` runs, all in one folder (:func:`find_bindir`)."""

_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}\Z")  # a database name that needs no quoting
_SOCKET_PATH_MAX = 100  # sockaddr_un holds 107 bytes; the socket is FOLDER/.s.PGSQL.PORT


def _version(bindir: Path) -> tuple[int, ...]:
    """/usr/lib/postgresql/15/bin -> (15,): the newest sorts last."""
    try:
        return tuple(int(part) for part in bindir.parent.name.split("."))
    except ValueError:
        return (-1,)


def find_bindir() -> Path | None:
    """The folder of PostgreSQL's server programs (:data:`PROGRAMS`), or None: the one
    ``pg_config --bindir`` names, else the newest /usr/lib/postgresql/*/bin (Debian's
    layout), else the one of ``initdb`` on the PATH."""
    candidates: list[Path] = []
    pg_config = shutil.which("pg_config")
    if pg_config is not None:
        try:
            answer = subprocess.run(
                [pg_config, "--bindir"], capture_output=True, text=True, timeout=30, check=False
            )
        except (OSError, subprocess.SubprocessError):
            pass
        else:
            if answer.returncode == 0 and answer.stdout.strip():
                candidates.append(Path(answer.stdout.strip()))
    candidates += sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=_version, reverse=True)
    initdb = shutil.which("initdb")
    if initdb is not None:
        candidates.append(Path(initdb).resolve().parent)
    for folder in candidates:
        if all(os.access(folder / program, os.X_OK) for program in PROGRAMS):
            return folder
    return None


def available() -> bool:
    """Whether PostgreSQL's server programs are on this machine (:func:`find_bindir`)."""
    return find_bindir() is not None


def _service_account() -> pwd.struct_passwd | None:
    """The ``postgres`` user's entry when this process runs as root, else None (the
    commands then run as this process's user)."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam(SERVICE_USER)
    except KeyError:
        raise RuntimeError(
            f"the tests run as root, where PostgreSQL must run as the {SERVICE_USER!r} system "
            f"user, and there is none ({INSTALL_HINT} makes it)"
        ) from None


def _run_as(account: pwd.struct_passwd | None) -> list[str]:
    """The prefix that runs a command as ``account`` (none for this process's user)."""
    if account is None:
        return []
    runuser = shutil.which("runuser") or shutil.which("runuser", path="/usr/sbin:/sbin")
    if runuser is not None:
        return [runuser, "-u", account.pw_name, "--"]
    setpriv = shutil.which("setpriv") or shutil.which("setpriv", path="/usr/bin:/bin")
    if setpriv is not None:
        uid, gid = str(account.pw_uid), str(account.pw_gid)
        return [setpriv, f"--reuid={uid}", f"--regid={gid}", "--init-groups", "--"]
    raise RuntimeError("running as root and neither runuser nor setpriv (util-linux) is here")


def _reachable(folder: Path) -> bool:
    """Whether any user can pass through ``folder`` and each folder above it."""
    return all(
        path.stat().st_mode & stat.S_IXOTH for path in [folder.resolve(), *folder.resolve().parents]
    )


def _make_folder(account: pwd.struct_passwd | None) -> Path:
    """A new temporary folder (mode 0700) for the cluster, owned by ``account``: under the
    usual temporary folder, or /tmp when ``account`` could not reach it or the socket's
    path would be too long there."""
    parent = Path(tempfile.gettempdir())
    too_long = len(str(parent)) + 50 > _SOCKET_PATH_MAX
    if too_long or (account is not None and not _reachable(parent)):
        parent = Path("/tmp")
    folder = Path(tempfile.mkdtemp(prefix="skitgubbe-pg-", dir=parent))
    if account is not None:
        for path in [folder, *folder.rglob("*")]:
            os.chown(path, account.pw_uid, account.pw_gid)
    return folder


def _state(pid: int) -> str | None:
    """A process's state letter from /proc (``Z`` for a zombie), or None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rpartition(")")[2].split()[0]


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (a postmaster's backends and helpers)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


class Postgres:
    """One PostgreSQL server (a cluster of its own) on 127.0.0.1, for tests.

    ``initdb`` runs at the first :meth:`start`, in a new temporary folder that holds the data
    (``data/``), the Unix socket and the server's log (:attr:`log_path`). The port is chosen
    once (:func:`server_support.free_port`, unless given): :meth:`restart`, and a
    :meth:`start` after :meth:`stop` or :meth:`kill`, keep it and the data. :meth:`close`
    stops the server and removes the folder.

    The server runs with ``fsync=off``: fast and crash-unsafe, for tests only
    (``fsync=True``: PostgreSQL's default, every commit waits for the disk; the benchmarks'
    setting).
    """

    def __init__(
        self, port: int | None = None, *, bindir: Path | None = None, fsync: bool = False
    ) -> None:
        found = bindir if bindir is not None else find_bindir()
        if found is None:
            raise RuntimeError(
                "no PostgreSQL server programs (initdb, pg_ctl) on this machine: "
                f"{INSTALL_HINT} (Debian), or put pg_config or initdb on the PATH"
            )
        self.bindir: Path = found
        """The folder of the programs run (:func:`find_bindir`)."""
        self.port: int = free_port() if port is None else port
        """The TCP port on 127.0.0.1, the same across restarts."""
        self.user: str = SERVICE_USER
        """The database superuser (trust authentication: no password)."""
        self.folder: Path | None = None
        """The temporary folder (data, socket, log), made by the first :meth:`start`."""
        self.fsync: bool = fsync
        """Whether commits wait for the disk (PostgreSQL's default; off for tests)."""
        self._account = _service_account()
        self._prefix = _run_as(self._account)

    # -- addresses -----------------------------------------------------------------------

    @property
    def dsn(self) -> str:
        """The DSN of the server's ``postgres`` database:
        ``postgresql://postgres@127.0.0.1:PORT/postgres``."""
        return self.database_dsn("postgres")

    def database_dsn(self, name: str) -> str:
        """The DSN of the database ``name`` on this server."""
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{name}"

    @property
    def log_path(self) -> Path:
        """The server's log file (``pg_ctl -l``)."""
        return self._folder() / "postgres.log"

    def log_tail(self, lines: int = 30) -> str:
        """The last ``lines`` lines of the server's log ("" when there is none yet)."""
        if self.folder is None:
            return ""
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    # -- the server's life ---------------------------------------------------------------

    def start(self) -> None:
        """Start the server (after ``initdb``, the first time) and return once it accepts
        connections; nothing when it runs already. A RuntimeError, with the log's last
        lines, when it does not start."""
        if self.folder is None:
            self._initdb()
        elif self.running:
            return
        folder = self._folder()
        # fsync=off: tests only. Nothing here must survive a crash of the machine, and
        # every commit would otherwise wait for the disk.
        options = (
            f"-p {self.port} -k {folder} -c listen_addresses=127.0.0.1"
            f" -c fsync={'on' if self.fsync else 'off'} -c max_connections=200"
        )
        data, log = str(folder / "data"), str(self.log_path)
        started = self._run(
            "pg_ctl", ["-D", data, "-l", log, "-o", options, "-w", "-t", "60", "start"], timeout=90
        )
        if started.returncode != 0:
            # pg_ctl gives up waiting but may leave a server behind: not on this port later.
            self._run("pg_ctl", ["-D", str(folder / "data"), "-m", "immediate", "-w", "stop"])
            raise RuntimeError(
                f"PostgreSQL did not start on 127.0.0.1:{self.port} (pg_ctl: "
                f"{_output(started)})\nlast lines of {self.log_path}:\n{self.log_tail()}"
            )

    def stop(self) -> None:
        """Stop the server (``pg_ctl -m fast -w stop``: sessions are ended, the data kept);
        nothing when it is not running."""
        if self.folder is None or not self.running:
            return
        stopped = self._run(
            "pg_ctl", ["-D", str(self._folder() / "data"), "-m", "fast", "-w", "-t", "60", "stop"]
        )
        if stopped.returncode != 0:
            raise RuntimeError(
                f"PostgreSQL on port {self.port} did not stop (pg_ctl: {_output(stopped)})\n"
                f"{self.log_tail()}"
            )

    def restart(self) -> None:
        """:meth:`stop` (fast), then :meth:`start` on the same port and data."""
        self.stop()
        self.start()

    def kill(self) -> None:
        """SIGKILL the postmaster, as a crash would, and its processes (backends and
        helpers, which would end on their own soon after); return once they are gone. The
        next :meth:`start` recovers the data from the WAL."""
        pid = self.postmaster_pid()
        if pid is None:
            return
        children = _children(pid)
        for victim in [pid, *children]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(victim, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while any(_state(victim) not in (None, "Z") for victim in [pid, *children]):
            if time.monotonic() > deadline:
                raise RuntimeError(f"PostgreSQL's processes outlived SIGKILL ({pid}, {children})")
            time.sleep(0.02)
        # The lock files name a dead postmaster now. Where nobody reaps an orphan (no init
        # as process 1: containers), its zombie would pass for a running server that holds
        # them, and the next start would refuse.
        folder = self._folder()
        locks = [folder / "data" / "postmaster.pid", folder / f".s.PGSQL.{self.port}.lock"]
        self._run("rm", ["-f", *map(str, locks)])

    @property
    def running(self) -> bool:
        """Whether the server runs (``pg_ctl status``)."""
        return self.postmaster_pid() is not None

    def postmaster_pid(self) -> int | None:
        """The postmaster's process id, or None when the server is not running."""
        if self.folder is None:
            return None
        status = self._run("pg_ctl", ["-D", str(self._folder() / "data"), "status"])
        found = re.search(r"PID: (\d+)", status.stdout)
        if status.returncode != 0 or found is None:
            return None
        return int(found.group(1))

    def close(self) -> None:
        """Stop the server (:meth:`kill` if it does not stop) and remove its folder."""
        if self.folder is None:
            return
        try:
            self.stop()
        except RuntimeError:
            self.kill()
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder = None

    # -- databases -------------------------------------------------------------------------

    def new_database(self, name: str) -> str:
        """Create the empty database ``name`` (lower case letters, digits and ``_``, at most
        63) on the running server, and return its DSN."""
        if not _NAME.match(name):
            raise ValueError(f"not a plain database name: {name!r}")
        made = self._client("createdb", ["--template=template0", name])
        if made.returncode != 0:
            raise RuntimeError(f"createdb {name}: {_output(made)}")
        return self.database_dsn(name)

    def drop_database(self, name: str) -> None:
        """Drop the database ``name``, ending its sessions first (``dropdb --force``)."""
        if not _NAME.match(name):
            raise ValueError(f"not a plain database name: {name!r}")
        dropped = self._client("dropdb", ["--force", "--if-exists", name])
        if dropped.returncode != 0:
            raise RuntimeError(f"dropdb {name}: {_output(dropped)}")

    # -- running the programs ------------------------------------------------------------

    def _folder(self) -> Path:
        if self.folder is None:
            raise RuntimeError("the server was never started (no folder yet)")
        return self.folder

    def _initdb(self) -> None:
        """A new folder, and a cluster in its ``data/``."""
        self.folder = _make_folder(self._account)
        data = str(self.folder / "data")
        # --no-sync: tests only, like fsync=off (initdb would wait for the disk).
        options = ["-A", "trust", "-E", "UTF8", "--no-locale", "-U", self.user, "--no-sync"]
        made = self._run("initdb", ["-D", data, *options], timeout=120)
        if made.returncode != 0:
            raise RuntimeError(f"initdb failed in {self.folder}: {_output(made)}")

    def _client(self, program: str, args: Sequence[str]) -> subprocess.CompletedProcess[str]:
        """``program`` (createdb, dropdb) against this server over TCP."""
        where = ["-h", "127.0.0.1", "-p", str(self.port), "-U", self.user]
        return self._run(program, [*where, *args])

    def _run(
        self, program: str, args: Sequence[str], timeout: float = 60
    ) -> subprocess.CompletedProcess[str]:
        """Run one of the programs (as the ``postgres`` user under root), in the folder,
        without the caller's PG* variables (PGDATA, PGHOST...), its output captured."""
        executable = program if program == "rm" else str(self.bindir / program)
        env = {key: value for key, value in os.environ.items() if not key.startswith("PG")}
        try:
            return subprocess.run(
                [*self._prefix, executable, *args],
                cwd=self.folder or "/",
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise RuntimeError(
                f"{program} took over {timeout} s\nlast lines of the log:\n{self.log_tail()}"
            ) from None


def _output(result: subprocess.CompletedProcess[str]) -> str:
    """What a program wrote, on one string, and how it ended."""
    text = (result.stdout + result.stderr).strip()
    return (
        f"exit status {result.returncode}: {text}" if text else f"exit status {result.returncode}"
    )


@contextlib.contextmanager
def started() -> Iterator[Postgres]:
    """A started :class:`Postgres`, closed (stopped and removed) on leaving."""
    server = Postgres()
    try:
        server.start()
        yield server
    finally:
        server.close()
