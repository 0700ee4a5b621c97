"""Self-play games played by the C search, as training data for the network.

Every decision of every seat is searched by ISMCTS (guided by a network when one
is given); each becomes one sample: the mover's observation tensor (what it
knew, nothing more), its legal moves, the share of the search's visits each got
(the policy target) and, once the game is over, whether each seat escaped
being the skitgubbe (the value target, by seat relative to the mover). The
games run in C apart from a few Python calls per decision; ``skitgubbe train``
plays several batches at once in worker processes (:mod:`skitgubbe.learn.train`).

>>> import skitgubbe as sg
>>> data = play_games([sg.Rules.classic(3)], games=1, seed=1, iterations=20)
>>> data.size > 30, data.features.shape[1] == sg.game.tensors.TENSOR_SIZE
(True, True)
>>> bool(abs(data.policy[data.move_start[0]:data.move_start[1]].sum() - 1) < 1e-5)
True
"""

from __future__ import annotations

import math
import os
import random
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any, Final

import attrs

from .. import _core
from .._files import open_regular
from .._text import brief
from ..errors import RecordError, SkitgubbeError
from ..game.rules import Rules
from ..game.tensors import TENSOR_SIZE, import_numpy

if TYPE_CHECKING:
    from ..bots.net import Network

__all__ = ["MAX_LEGAL_MOVES", "Samples", "max_file_size", "play_games"]

_MIXED = 2  # the C core's SG_POLICY_MIXED rollouts

MAX_LEGAL_MOVES: Final = 512
"""The most legal moves a position has (the C core's ``SG_MAX_MOVES``): a sample's most."""

_SAMPLE_BYTES: Final = 2 * TENSOR_SIZE + 8 + 4 * 4 * 2 + 1 + MAX_LEGAL_MOVES * (8 + 4)
"""The most bytes one sample takes in a samples file: its float16 features, its
``move_start`` entry, its values and their mask, its player count, and the codes and
visit shares of at most :data:`MAX_LEGAL_MOVES` legal moves."""

_FILE_OVERHEAD: Final = 1 << 20
"""Bytes a samples file may hold beyond its arrays' (the zip's and the arrays' headers)."""


def max_file_size(samples: int) -> int:
    """The size in bytes of the largest samples file of at most ``samples`` samples
    (:meth:`Samples.check_file` refuses a larger one before reading it).

    >>> max_file_size(24 * 10_000) // 2**20  # a part: 24 games of 10,000 moves at most, in MB
    2038
    """
    return _FILE_OVERHEAD + samples * _SAMPLE_BYTES


@attrs.frozen(eq=False)
class Samples:
    """Training samples: ``size`` decisions, with numpy arrays.

    ``features[i]`` is the mover's observation tensor (float16); its legal
    moves are ``move_codes[move_start[i]:move_start[i + 1]]`` (the core's move
    codes) with the search's visit shares ``policy[...]`` over the same slice;
    ``values[i, r]`` is 1 when the seat ``r`` places to the mover's left was not
    the skitgubbe, 0 when it was; ``value_mask[i, r]`` is 0 for seats beyond
    the players and for games the move cap ended. ``players[i]`` is the number
    of players.

    >>> import skitgubbe as sg
    >>> data = play_games([sg.Rules.classic(2)], games=1, seed=3, iterations=10)
    >>> Samples.join([data, data]).size == 2 * data.size
    True
    """

    features: Any
    move_codes: Any
    move_start: Any
    policy: Any
    values: Any
    value_mask: Any
    players: Any

    @property
    def size(self) -> int:
        """The number of samples.

        >>> import skitgubbe as sg
        >>> play_games([sg.Rules.classic(2)], games=1, seed=3, iterations=10).size > 0
        True
        """
        return int(self.features.shape[0])

    @classmethod
    def join(cls, parts: Sequence[Samples]) -> Samples:
        """The samples of ``parts`` one after the other."""
        numpy = import_numpy()
        starts = []
        offset = 0
        for part in parts:
            starts.append(part.move_start[:-1] + offset)
            offset += int(part.move_start[-1])
        starts.append(numpy.array([offset], dtype=numpy.int64))
        return cls(
            features=numpy.concatenate([p.features for p in parts]),
            move_codes=numpy.concatenate([p.move_codes for p in parts]),
            move_start=numpy.concatenate(starts),
            policy=numpy.concatenate([p.policy for p in parts]),
            values=numpy.concatenate([p.values for p in parts]),
            value_mask=numpy.concatenate([p.value_mask for p in parts]),
            players=numpy.concatenate([p.players for p in parts]),
        )

    def save(self, path: str | os.PathLike[str] | IO[bytes]) -> None:
        """Write the arrays to ``path``, a path or a binary file (numpy's ``.npz``)."""
        numpy = import_numpy()
        numpy.savez(path, **{f.name: getattr(self, f.name) for f in attrs.fields(Samples)})

    @classmethod
    def check_file(cls, path: str | os.PathLike[str], max_size: int | None = None) -> int:
        """The number of samples in the file at ``path``, once it is checked without
        reading its big arrays: a regular file (a FIFO is never waited on, a device
        never read), of at most :func:`max_file_size` bytes when ``max_size`` is
        given, checked before it is read; a ``.npz`` that holds every array
        :meth:`save` writes, each of its dtype and of a shape that fits the others
        (``features`` is ``size`` rows of the observation tensor, ``move_start``
        runs from 0 up to the number of moves, at most :data:`MAX_LEGAL_MOVES` a
        sample), and at most ``max_size`` samples when that is given. Anything else
        is a :class:`~skitgubbe.errors.RecordError` naming the file and the array.

        >>> import os, tempfile
        >>> import skitgubbe as sg
        >>> data = play_games([sg.Rules.classic(2)], games=1, seed=3, iterations=10)
        >>> path = os.path.join(tempfile.mkdtemp(), "part.npz")
        >>> data.save(path)
        >>> Samples.check_file(path) == data.size
        True
        >>> import numpy
        >>> numpy.savez(path, features=data.features)
        >>> Samples.check_file(path)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        skitgubbe.errors.RecordError: ...part.npz lacks the array 'move_codes'
        >>> os.remove(path)
        >>> os.mkfifo(path)
        >>> Samples.check_file(path)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        skitgubbe.errors.RecordError: ...part.npz is a FIFO (named pipe), not a samples file
        """
        with cls._open(path, max_size) as file:
            return cls._check(file, os.fspath(path), max_size)

    @staticmethod
    def _open(path: str | os.PathLike[str], max_size: int | None) -> Any:
        """The samples file at ``path`` open to read, checked as :func:`open_regular` checks."""
        limit = None if max_size is None else max_file_size(max_size)
        try:
            return open_regular(path, "samples file", limit)
        except RecordError:
            raise
        except SkitgubbeError as exc:
            reason = _reason(exc.__cause__) if exc.__cause__ is not None else str(exc)
            raise RecordError(f"{os.fspath(path)} cannot be read: {reason}") from None

    @classmethod
    def _check(cls, file: Any, name: str, max_size: int | None) -> int:
        """:meth:`check_file` of the open file ``file``, named ``name``."""
        import zipfile

        numpy = import_numpy()
        try:
            archive = zipfile.ZipFile(file)
        except Exception as exc:  # any reason it cannot be read: a refusal, not a traceback
            raise RecordError(f"{name} is not a samples file: {_reason(exc)}") from None
        sizes: dict[str, int] = {}
        with archive:
            for field in attrs.fields(cls):
                dtype, dims = _ARRAYS[field.name]
                try:
                    info = archive.getinfo(field.name + ".npy")
                except KeyError:
                    raise RecordError(f"{name} lacks the array {field.name!r}") from None
                where = f"{name}: the array {field.name!r}"
                try:
                    with archive.open(info) as stream:
                        shape, found, offset = _npy_header(stream)
                except Exception as exc:
                    raise RecordError(f"{where} cannot be read: {_reason(exc)}") from None
                if found != numpy.dtype(dtype):
                    raise RecordError(f"{where} is {found}, not {numpy.dtype(dtype)}")
                if dims[0] in ("n", "m"):  # the first array of each size sets it
                    sizes.setdefault(str(dims[0]), shape[0] if shape else 0)
                want = tuple(
                    (sizes["n"] + 1 if d == "n+1" else sizes[d]) if isinstance(d, str) else d
                    for d in dims
                )
                if shape != want:
                    raise RecordError(f"{where} has shape {brief(shape)}, not {want}")
                if info.file_size != offset + math.prod(shape) * found.itemsize:
                    raise RecordError(f"{where} is cut short (or too long) for its shape")
            if max_size is not None and sizes["n"] > max_size:
                raise RecordError(f"{name} holds {sizes['n']} samples, more than {max_size}")
            if sizes["m"] > sizes["n"] * MAX_LEGAL_MOVES:
                raise RecordError(
                    f"{name} holds {sizes['m']} moves, more than {MAX_LEGAL_MOVES} for each "
                    f"of its {sizes['n']} samples"
                )
            try:
                with archive.open("move_start.npy") as stream:
                    starts = numpy.lib.format.read_array(stream, allow_pickle=False)
            except Exception as exc:
                raise RecordError(
                    f"{name}: the array 'move_start' cannot be read: {_reason(exc)}"
                ) from None
        if starts[0] != 0 or starts[-1] != sizes["m"] or (numpy.diff(starts) < 0).any():
            raise RecordError(
                f"{name}: the array 'move_start' does not run from 0 up to the "
                f"{sizes['m']} moves of 'move_codes'"
            )
        return sizes["n"]

    @classmethod
    def load(cls, path: str | os.PathLike[str], max_size: int | None = None) -> Samples:
        """Read samples written by :meth:`save`, checked as :meth:`check_file` checks them
        (a :class:`~skitgubbe.errors.RecordError` naming the file and the array), from
        the file opened once: what is read is what was checked.

        >>> import os, tempfile
        >>> import skitgubbe as sg
        >>> data = play_games([sg.Rules.classic(2)], games=1, seed=3, iterations=10)
        >>> path = os.path.join(tempfile.mkdtemp(), "part.npz")
        >>> data.save(path)
        >>> Samples.load(path).size == data.size
        True
        >>> Samples.load(path, max_size=3)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        skitgubbe.errors.RecordError: ...part.npz ... more than 3...
        """
        numpy = import_numpy()
        name = os.fspath(path)
        with cls._open(path, max_size) as file:
            cls._check(file, name, max_size)
            try:
                file.seek(0)
                with numpy.load(file, allow_pickle=False) as data:
                    return cls(**{f.name: data[f.name] for f in attrs.fields(Samples)})
            except Exception as exc:  # damaged after its headers (a bad CRC, a short stream)
                raise RecordError(f"{name} cannot be read: {_reason(exc)}") from None


_ARRAYS: Final[dict[str, tuple[str, tuple[int | str, ...]]]] = {
    "features": ("=f2", ("n", TENSOR_SIZE)),
    "move_codes": ("=u8", ("m",)),
    "move_start": ("=i8", ("n+1",)),
    "policy": ("=f4", ("m",)),
    "values": ("=f4", ("n", 4)),
    "value_mask": ("=f4", ("n", 4)),
    "players": ("=i1", ("n",)),
}
"""Each array of a samples file: its dtype and its shape (``n`` samples, ``m`` moves)."""


def _npy_header(stream: Any) -> tuple[tuple[int, ...], Any, int]:
    """(shape, dtype, bytes before the data) of the ``.npy`` file ``stream`` starts."""
    numpy = import_numpy()
    version = numpy.lib.format.read_magic(stream)
    if version == (1, 0):
        shape, _, dtype = numpy.lib.format.read_array_header_1_0(stream)
    elif version == (2, 0):
        shape, _, dtype = numpy.lib.format.read_array_header_2_0(stream)
    else:
        raise ValueError(f"npy format version {version} is not read here")
    return tuple(shape), dtype, int(stream.tell())


def _reason(exc: BaseException) -> str:
    """The first line of ``exc``'s message, cut short, for a one-line refusal."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    lines = str(exc).strip().splitlines()
    text = lines[0] if lines else type(exc).__name__
    return text if len(text) <= 80 else text[:77] + "..."


def _outcome(core: Any, players: int) -> tuple[list[float], bool]:
    """(1.0 for each seat not the skitgubbe, 0.0 for him; True when the cap ended it)."""
    result = core.result()
    if result["truncated"]:
        return [0.0] * players, True
    return [0.0 if seat == result["loser"] else 1.0 for seat in range(players)], False


def play_games(
    rules: Sequence[Rules],
    games: int,
    seed: int,
    iterations: int,
    network: Network | None = None,
    exploration: float | None = None,
    sample_moves: int = 8,
) -> Samples:
    """Play ``games`` self-play games, each under ``rules[i % len(rules)]``, and
    return their samples.

    Game ``i`` is dealt from ``seed + i``; each decision is an ISMCTS search of
    ``iterations`` iterations (with ``network`` as prior and leaf value when one
    is given, else with rollouts); the first ``sample_moves`` moves of each seat
    are drawn in proportion to the visits, the rest are the most visited.

    >>> import skitgubbe as sg
    >>> data = play_games([sg.Rules.modern(4)], games=1, seed=2, iterations=10)
    >>> data.values.shape[1], int(data.players[0])
    (4, 4)
    """
    numpy = import_numpy()
    net = None if network is None else network.core
    use = 0 if net is None else _core.NET_PRIOR | _core.NET_LEAF
    if exploration is None:
        exploration = 0.7 if net is None else 1.5
    rng = random.Random(seed)
    features: list[Any] = []
    codes: list[int] = []
    starts = [0]
    policy: list[float] = []
    values: list[list[float]] = []
    masks: list[list[float]] = []
    players_of: list[int] = []
    buffer = numpy.zeros(TENSOR_SIZE, dtype=numpy.float32)
    for number in range(games):
        game_rules = rules[number % len(rules)]
        players = game_rules.players
        core = _core.Core.deal(
            game_rules._core_values(), _core.deck_from_seed(seed + number), players - 1
        )
        movers: list[int] = []
        moves_made = [0] * players
        while core.result() is None:
            seat = core.to_move
            view = core.view(seat)
            legal = core.legal_codes()
            if len(legal) == 1:
                core.apply(legal[0])
                continue
            _, root, _, _, _ = _core.ismcts(
                view, iterations, 0.0, exploration, _MIXED, 200, rng.getrandbits(64),
                net=net, net_use=use,
            )  # fmt: skip
            visits = dict(root)
            total = sum(visits.values()) or 1
            _core.observation_tensor(view, seat, 0, (), buffer)
            features.append(buffer.astype(numpy.float16))
            for code in legal:
                codes.append(code)
                policy.append(visits.get(code, 0) / total)
            starts.append(len(codes))
            movers.append(seat)
            if moves_made[seat] < sample_moves:
                move = rng.choices(legal, weights=[visits.get(c, 0) + 1e-9 for c in legal])[0]
            else:
                move = max(legal, key=lambda c: visits.get(c, 0))
            moves_made[seat] += 1
            core.apply(move)
        outcome, truncated = _outcome(core, players)
        for seat in movers:
            row = [0.0] * 4
            mask = [0.0] * 4
            for r in range(players):
                row[r] = outcome[(seat + r) % players]
                mask[r] = 0.0 if truncated else 1.0
            values.append(row)
            masks.append(mask)
            players_of.append(players)
    return Samples(
        features=numpy.array(features, dtype=numpy.float16).reshape(-1, TENSOR_SIZE),
        move_codes=numpy.array(codes, dtype=numpy.uint64),
        move_start=numpy.array(starts, dtype=numpy.int64),
        policy=numpy.array(policy, dtype=numpy.float32),
        values=numpy.array(values, dtype=numpy.float32).reshape(-1, 4),
        value_mask=numpy.array(masks, dtype=numpy.float32).reshape(-1, 4),
        players=numpy.array(players_of, dtype=numpy.int8),
    )
