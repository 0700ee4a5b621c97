"""The learned network and the bot that plays with it alone.

A :class:`Network` is a small multilayer perceptron over the mover's observation
tensor (what that seat knows, nothing more) with two heads: a probability for
each legal move (the policy) and, for each seat, the chance that it escapes
being the skitgubbe (the value). A second, smaller one, the *world value*,
scores the worlds a search samples: it reads that world's hidden cards too, as
a rollout would, and so is used only inside the search, on sampled worlds. It
runs in C, microseconds per evaluation, with no numpy and no training library
at play time. The package ships trained
weights (:func:`default_network`); ``skitgubbe train`` makes new ones
(docs/strength.md says how they were trained and how strong they are).

:class:`NetBot` plays the policy's best move: one forward pass per decision.
The search bots take a network too (``ismcts:net=true``), as prior and leaf value.

>>> import skitgubbe as sg
>>> game = sg.Game.new(seed=4)
>>> NetBot().choose(game.observation(game.to_move)) in game.legal_moves
True
"""

from __future__ import annotations

import functools
import hashlib
import importlib.resources
import math
import os
import random
import stat
from typing import Final

from .. import _core
from .._files import OPEN_FLAGS, not_regular
from .._text import brief
from ..errors import ArgumentError, ArgumentTypeError, RecordError
from ..game.moves import Move
from ..game.observation import Observation
from ..game.rules import Rules
from .registry import check_turn

__all__ = ["DEFAULT_WEIGHTS", "MAX_FILE_SIZE", "NetBot", "Network", "covers", "default_network"]

DEFAULT_WEIGHTS: Final = "skitgubbe-net-1.sgnet"
"""The file name of the shipped weights, in the package's ``weights`` folder; its
number is the weights' version (a new training run that replaces them takes the next)."""


MAX_FILE_SIZE: Final = _core.NET_MAX_SIZE
"""The size in bytes of the largest valid weight file: every layer at the format's
widest (1,024 units, ``SG_NET_MAX_WIDTH``) for this core's observation tensor.
:meth:`Network.from_file` refuses a larger file without reading it.

>>> shipped = importlib.resources.files("skitgubbe") / "weights" / DEFAULT_WEIGHTS
>>> len(shipped.read_bytes()) < MAX_FILE_SIZE < 2**25
True
"""


def _shown(name: str) -> str:
    """``name`` as an error message shows it: as it is when short and printable, else
    quoted and cut (:func:`~skitgubbe._text.brief`)."""
    if name and len(name) <= 100 and name.isprintable() and name.strip() == name:
        return name
    return brief(name)


def _read_weight_file(name: str, shown: str) -> bytes:
    """The bytes of the regular file ``name``, at most :data:`MAX_FILE_SIZE` of them,
    or a :class:`~skitgubbe.errors.RecordError` naming ``shown`` and what is wrong."""
    limit = MAX_FILE_SIZE

    def check(info: os.stat_result) -> None:
        if not stat.S_ISREG(info.st_mode):
            raise RecordError(f"{shown}: it is {not_regular(info.st_mode)}, not a weight file")
        if info.st_size > limit:
            raise RecordError(
                f"{shown}: it is {info.st_size:,} bytes, larger than any weight file "
                f"(at most {limit:,} bytes)"
            )

    def unreadable(exc: Exception) -> RecordError:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return RecordError(f"{shown}: cannot read the weight file: {reason}")

    try:
        before = os.stat(name)
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        raise unreadable(exc) from None
    check(before)  # a device is never opened (opening some does something)
    try:
        descriptor = os.open(name, OPEN_FLAGS)
    except OSError as exc:
        raise unreadable(exc) from None
    try:
        try:
            opened = os.fstat(descriptor)
        except OSError as exc:
            raise unreadable(exc) from None
        check(opened)  # what was opened, whatever the path names now
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0:
            try:
                chunk = os.read(descriptor, min(left, 1 << 20))
            except OSError as exc:
                raise unreadable(exc) from None
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(descriptor)
    if left <= 0:
        raise RecordError(
            f"{shown}: it grew as it was read, larger than any weight file "
            f"(at most {limit:,} bytes)"
        )
    return b"".join(chunks)


class Network:
    """A network loaded from a weight file (``.sgnet``), checked as it is loaded.

    The file's header names its format, layer sizes and a checksum of its
    weights; a file of another format, made for another observation tensor,
    damaged or not a weight file at all raises
    :class:`~skitgubbe.errors.RecordError` naming what is wrong:

    >>> Network(b"not weights")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    skitgubbe.errors.RecordError: weights: its size is not what its header says ...

    So do reserved header bytes that are not zero, a weight that is not a finite
    number, and weights so large that an evaluation could overflow a float32 (the
    core bounds every layer's outputs from the range of its inputs, and the logits
    too), so that every evaluation of a loaded network is finite:

    >>> import importlib.resources
    >>> shipped = importlib.resources.files("skitgubbe") / "weights" / DEFAULT_WEIGHTS
    >>> data = bytearray(shipped.read_bytes())
    >>> data[40] = 1
    >>> Network(bytes(data), name="net.sgnet")
    Traceback (most recent call last):
        ...
    skitgubbe.errors.RecordError: net.sgnet: its header's reserved bytes are not zero

    One network may serve any number of bots and searches at once (it is read only).
    """

    def __init__(self, data: bytes, name: str = "weights") -> None:
        if not isinstance(data, bytes):
            raise ArgumentTypeError(
                f"a weight file's contents are bytes, not {type(data).__name__}"
            )
        if not isinstance(name, str):
            raise ArgumentTypeError(f"a network's name is a str, not {type(name).__name__}")
        try:
            self.core = _core.Net(data)
        except _core.NetLoadError as exc:
            raise RecordError(f"{_shown(name)}: {exc}") from None
        self.name = name
        self.sha256 = hashlib.sha256(data).hexdigest()

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> Network:
        """Load the weight file at ``path``: a regular file of at most
        :data:`MAX_FILE_SIZE` bytes, checked as :class:`Network` checks its bytes.

        Anything else raises :class:`~skitgubbe.errors.RecordError` naming the file,
        before reading it: a folder, a FIFO or a device (never waited on, nor read
        endlessly), a larger file, one that cannot be opened:

        >>> import tempfile
        >>> Network.from_file("/nonexistent/net.sgnet")
        Traceback (most recent call last):
            ...
        skitgubbe.errors.RecordError: /nonexistent/net.sgnet: cannot read the weight file: No such file or directory
        >>> Network.from_file(tempfile.gettempdir())  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        skitgubbe.errors.RecordError: ...: it is a folder, not a weight file
        """  # noqa: E501
        name = os.fspath(path)
        if not isinstance(name, str):
            raise ArgumentTypeError(f"a weight file's path is a str, not {type(name).__name__}")
        return cls(_read_weight_file(name, _shown(name)), name=name)

    @property
    def shape(self) -> tuple[int, int, int, int, int, int]:
        """(inputs, hidden1, hidden2, action, world1, world2): the layer sizes.

        >>> from skitgubbe.game.tensors import TENSOR_SIZE
        >>> default_network().shape[0] == TENSOR_SIZE
        True
        """
        inputs, hidden1, hidden2, action, world1, world2 = self.core.shape
        return (inputs, hidden1, hidden2, action, world1, world2)

    def evaluate(self, observation: Observation) -> tuple[dict[Move, float], tuple[float, ...]]:
        """(each legal move's probability, each seat's chance of not being the skitgubbe)
        for the seat to move, from its observation.

        >>> import skitgubbe as sg
        >>> game = sg.Game.new(seed=4)
        >>> probs, values = default_network().evaluate(game.observation(game.to_move))
        >>> round(sum(probs.values()), 6), len(values)
        (1.0, 3)
        """
        check_turn(observation)
        logits, values = self.core.run(observation.core_view)
        top = max(logit for _, logit in logits)
        weights = [math.exp(logit - top) for _, logit in logits]
        total = sum(weights)
        probs = {
            Move.from_code(code): w / total for (code, _), w in zip(logits, weights, strict=True)
        }
        return probs, tuple(values)

    def __repr__(self) -> str:
        return f"Network({self.name!r}, shape={self.shape})"


@functools.lru_cache(maxsize=1)
def default_network() -> Network:
    """The network shipped with the package (loaded once, then shared).

    >>> default_network() is default_network()
    True
    """
    resource = importlib.resources.files("skitgubbe") / "weights" / DEFAULT_WEIGHTS
    return Network(resource.read_bytes(), name=DEFAULT_WEIGHTS)


def covers(rules: Rules) -> bool:
    """Whether the shipped network was trained for ``rules``: the classic and modern
    presets for 2, 3 and 4 players. Elsewhere the bots that use it fall back to
    the plain search (``expert``), or play it anyway (``net``, asked for by name).

    >>> import skitgubbe as sg
    >>> covers(sg.Rules.classic(4)), covers(sg.Rules.classic(3, max_moves=500))
    (True, False)
    """
    return any(rules == Rules.preset(name, rules.players) for name in ("classic", "modern"))


class NetBot:
    """Plays the network's policy: its most probable move, or with ``temperature`` > 0 a
    move drawn in proportion to ``probability ** (1 / temperature)``.

    One forward pass per decision, in C (tens of microseconds). ``weights`` is a
    path to a weight file, or None for the shipped one; it is loaded by
    :meth:`Network.from_file`, so a path that is not a good weight file raises
    :class:`~skitgubbe.errors.RecordError` naming it.

    >>> import skitgubbe as sg
    >>> game = sg.Game.new(seed=4)
    >>> NetBot(temperature=1.0, seed=2).choose(game.observation(game.to_move)) in game.legal_moves
    True
    >>> NetBot(temperature=-1)
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: temperature must be a finite number >= 0, not -1
    """

    def __init__(
        self, temperature: float = 0.0, weights: str | None = None, seed: int | None = None
    ) -> None:
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)):
            raise ArgumentTypeError(
                f"temperature must be a finite number >= 0, not {temperature!r}"
            )
        if not (math.isfinite(temperature) and temperature >= 0):
            raise ArgumentError(f"temperature must be a finite number >= 0, not {temperature!r}")
        self.temperature = float(temperature)
        self.weights = weights
        self.network = default_network() if weights is None else Network.from_file(weights)
        self.seed = seed
        self._rng = random.Random(seed)

    def choose(self, observation: Observation) -> Move:
        """The policy's move for the seat to move."""
        check_turn(observation)
        logits, _ = self.network.core.run(observation.core_view)
        if not logits:
            raise ArgumentError(
                f"seat {observation.seat} is asked to move, but the view has no legal move"
            )
        if self.temperature == 0.0:
            code = max(logits, key=lambda pair: pair[1])[0]
        else:
            top = max(logit for _, logit in logits)
            weights = [math.exp((logit - top) / self.temperature) for _, logit in logits]
            code = self._rng.choices([c for c, _ in logits], weights=weights)[0]
        return Move.from_code(code)

    def __repr__(self) -> str:
        return f"NetBot(temperature={self.temperature}, seed={self.seed!r})"
