"""HAProxy in front of test servers, for the cluster tests: a real ``haproxy`` process
(Debian's package: ``apt-get install haproxy``) with a configuration the test writes, in
the foreground (``-db``), listening on a port of 127.0.0.1 that the test chooses."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import IO

INSTALL_HINT = "apt-get install haproxy"
"""How to get HAProxy on Debian (CI's machine)."""


def find_binary() -> str | None:
    """The ``haproxy`` program: on the PATH, else /usr/sbin/haproxy (Debian's, which a
    user's PATH may lack); None when there is none."""
    found = shutil.which("haproxy")
    if found is not None:
        return found
    return shutil.which("haproxy", path="/usr/sbin:/usr/local/sbin")


def available() -> bool:
    """Whether HAProxy is on this machine (:func:`find_binary`)."""
    return find_binary() is not None


def _answers(host: str, port: int) -> bool:
    """Whether something accepts TCP connections on ``host:port``."""
    try:
        with socket.create_connection((host, port), timeout=0.2):
            return True
    except OSError:
        return False


class HAProxy:
    """One ``haproxy`` process with the configuration ``config`` (the text of a
    haproxy.cfg), whose frontend binds ``host:port``.

    The constructor writes the configuration to a temporary folder and checks it
    (``haproxy -c``: a RuntimeError with HAProxy's words when it is invalid); nothing runs
    until :meth:`start`. :meth:`stop` and :meth:`kill` end the process; :meth:`start` runs
    it again with the same configuration and port. Its output goes to a log file
    (:meth:`log`). :meth:`close` stops it and removes the folder.
    """

    def __init__(
        self, config: str, port: int, *, host: str = "127.0.0.1", binary: str | None = None
    ) -> None:
        found = binary if binary is not None else find_binary()
        if found is None:
            raise RuntimeError(f"no haproxy on this machine: {INSTALL_HINT}")
        self.binary: str = found
        """The ``haproxy`` program run."""
        self.host: str = host
        """Where the frontend listens (the address :meth:`start` waits on)."""
        self.port: int = port
        """The frontend's port."""
        self.folder: Path = Path(tempfile.mkdtemp(prefix="skitgubbe-haproxy-"))
        """The temporary folder of the configuration and the log."""
        self.config_path: Path = self.folder / "haproxy.cfg"
        """The configuration file."""
        self.log_path: Path = self.folder / "haproxy.log"
        """HAProxy's output, of every run."""
        self.config_path.write_text(config if config.endswith("\n") else config + "\n")
        self._process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        checked = subprocess.run(
            [self.binary, "-c", "-f", str(self.config_path)],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        if checked.returncode != 0:
            shutil.rmtree(self.folder, ignore_errors=True)
            raise RuntimeError(
                f"haproxy -c finds the configuration invalid (exit status "
                f"{checked.returncode}):\n{(checked.stdout + checked.stderr).strip()}\n"
                f"--- the configuration:\n{config}"
            )

    @property
    def pid(self) -> int | None:
        """The running process's id, or None."""
        return self._process.pid if self.running and self._process is not None else None

    @property
    def running(self) -> bool:
        """Whether the haproxy process runs."""
        return self._process is not None and self._process.poll() is None

    def log(self) -> str:
        """What HAProxy wrote, over all its runs."""
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def start(self, timeout: float = 30) -> None:
        """Run ``haproxy -db -f CONFIG`` and return once ``host:port`` accepts connections
        (at most ``timeout`` seconds); nothing when it runs already. A RuntimeError, with
        its log, when the port is taken or HAProxy ends or does not listen in time."""
        if self.running:
            return
        if _answers(self.host, self.port):
            raise RuntimeError(f"{self.host}:{self.port} is taken before HAProxy starts")
        self._log = self.log_path.open("ab")
        self._process = subprocess.Popen(
            [self.binary, "-db", "-f", str(self.config_path)],
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout
        while not _answers(self.host, self.port):
            if self._process.poll() is not None:
                self._reap()
                raise RuntimeError(f"haproxy ended before it listened:\n{self.log()}")
            if time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(
                    f"haproxy did not listen on {self.host}:{self.port} in {timeout} s:\n"
                    f"{self.log()}"
                )
            time.sleep(0.02)

    def stop(self) -> None:
        """End HAProxy: SIGTERM (it stops at once, closing its connections), then SIGKILL
        if it still runs 10 s later. Nothing when it does not run."""
        if self._process is None:
            return
        self._process.terminate()
        try:
            self._process.wait(10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait(10)
        self._reap()

    def kill(self) -> None:
        """SIGKILL HAProxy, as a crash would. Nothing when it does not run."""
        if self._process is None:
            return
        self._process.kill()
        self._process.wait(10)
        self._reap()

    def close(self) -> None:
        """:meth:`stop`, and remove the folder."""
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def _reap(self) -> None:
        """Forget the ended process, close its log."""
        if self._process is not None:
            self._process.wait(10)
        self._process = None
        if self._log is not None:
            self._log.close()
            self._log = None
