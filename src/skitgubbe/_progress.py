"""A one-line progress bar on stderr, for long work run from the command line
(``skitgubbe analyse`` and ``replay --analyse``, ``skitgubbe train``).

>>> import io
>>> out = io.StringIO()
>>> bar = ProgressBar("analysing seat 0", out, width=10, unit="decisions")
>>> bar(0, 4)
>>> bar(4, 4)
>>> print(out.getvalue().split("\\r")[-1].rstrip())
analysing seat 0 [##########] 4/4 decisions, 0 s
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["ProgressBar"]


class ProgressBar:
    """A one-line progress bar on a stream (stderr), redrawn at most twice a second,
    with the time taken and an estimate of the time left; the last call (``done ==
    total``) ends the line. Called as ``progress(done, total)`` (the callback of
    :func:`skitgubbe.analysis.analyse`), with an optional ``note`` after the counts.
    A bar that is not ``enabled`` draws nothing.

    >>> import io
    >>> out = io.StringIO()
    >>> bar = ProgressBar("training", out, width=4)
    >>> bar(4, 4, "epoch 2")
    >>> out.getvalue().split("\\r")[-1].rstrip()
    'training [####] 4/4, 0 s, epoch 2'
    """

    def __init__(
        self,
        label: str,
        stream: TextIO | None = None,
        *,
        width: int = 30,
        unit: str = "",
        enabled: bool = True,
    ) -> None:
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.unit = f" {unit}" if unit else ""
        self.enabled = enabled
        self.start = time.monotonic()
        self.shown: float | None = None
        self.open = False  # a line is drawn and not ended yet

    def __call__(self, done: int, total: int, note: str = "") -> None:
        now = time.monotonic()
        if not self.enabled or (done < total and self.shown is not None and now - self.shown < 0.5):
            return
        self.shown = now
        filled = self.width * done // max(total, 1) if total else self.width
        seconds = now - self.start
        line = (
            f"\r{self.label} [{'#' * filled}{'.' * (self.width - filled)}] "
            f"{done}/{total}{self.unit}, {seconds:.0f} s"
        )
        if 0 < done < total:
            line += f", about {seconds * (total - done) / done:.0f} s left"
        if note:
            line += f", {note}"
        self.stream.write(line + " ")
        self.open = done < total
        if not self.open:
            self.stream.write("\n")
        self.stream.flush()

    def close(self) -> None:
        """End a line left open (the run was interrupted), so what follows starts afresh.

        >>> import io
        >>> out = io.StringIO()
        >>> bar = ProgressBar("x", out)
        >>> bar(1, 3)
        >>> bar.close()
        >>> out.getvalue().endswith("\\n")
        True
        """
        if self.open:
            self.stream.write("\n")
            self.stream.flush()
            self.open = False
