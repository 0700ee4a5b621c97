"""Weight files (``.sgnet``) for the network of :mod:`skitgubbe.bots.net`, written from numpy.

The layout (docs/strength.md and "the network" in ``src/_core/skitgubbe.h``):
48 header bytes — the magic ``SGNET\\0\\0``, the format byte, then little-endian
uint32 inputs, hidden1, hidden2, action, the number of floats, the FNV-1a
checksum of the weight bytes, world1, world2 and 8 reserved zero bytes — then
every weight as a little-endian float32, in the order of :data:`LAYOUT`: the
policy and the seat's own value (``w*``, ``b*``, ``v*``), then the world value
(``u*``, ``c*``), which also reads the hidden cards of the world it is given.

>>> from skitgubbe.bots.net import Network
>>> data = encode(random_weights(hidden1=16, hidden2=8, action=4, world1=12, world2=6, seed=1))
>>> Network(data).shape[1:]
(16, 8, 4, 12, 6)
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from typing import Any, Final

from .. import _core
from ..errors import ArgumentError
from ..game.tensors import TENSOR_SIZE, import_numpy

__all__ = ["LAYOUT", "encode", "random_weights", "shapes"]

LAYOUT: Final = (
    "w1", "b1", "w2", "b2", "wv", "bv", "wp", "bp", "wc", "wk", "wn", "vp",
    "u1", "c1", "u2", "c2", "uv", "cv",
)  # fmt: skip
"""The weight arrays in file order (net.c names them so)."""

_MAGIC: Final = b"SGNET\0\0"
_KINDS: Final = 5  # play, flip, pick up, slough, pass


WORLD_SIZE: Final = _core.WORLD_SIZE
"""The world value's inputs: the mover's tensor, then five planes of hidden cards."""


def shapes(
    hidden1: int, hidden2: int, action: int, world1: int, world2: int
) -> dict[str, tuple[int, ...]]:
    """The shape of each array for these layer sizes.

    >>> shapes(256, 128, 64, 256, 64)["w1"] == (TENSOR_SIZE, 256)
    True
    """
    return {
        "w1": (TENSOR_SIZE, hidden1),
        "b1": (hidden1,),
        "w2": (hidden1, hidden2),
        "b2": (hidden2,),
        "wv": (hidden2, 4),
        "bv": (4,),
        "wp": (hidden2, action),
        "bp": (action,),
        "wc": (52, action),
        "wk": (_KINDS, action),
        "wn": (action,),
        "vp": (action,),
        "u1": (WORLD_SIZE, world1),
        "c1": (world1,),
        "u2": (world1, world2),
        "c2": (world2,),
        "uv": (world2, 4),
        "cv": (4,),
    }


def encode(arrays: Mapping[str, Any]) -> bytes:
    """The weight file of ``arrays`` (name → array of the shape :func:`shapes` gives).

    >>> arrays = random_weights(8, 4, 2, 8, 4, seed=1)
    >>> data = encode(arrays)
    >>> data[:5], len(data) == 48 + 4 * sum(a.size for a in arrays.values())
    (b'SGNET', True)
    """
    numpy = import_numpy()
    hidden1 = int(arrays["b1"].shape[0])
    hidden2 = int(arrays["b2"].shape[0])
    action = int(arrays["bp"].shape[0])
    world1 = int(arrays["c1"].shape[0])
    world2 = int(arrays["c2"].shape[0])
    expected = shapes(hidden1, hidden2, action, world1, world2)
    parts = []
    for name in LAYOUT:
        array = numpy.asarray(arrays[name], dtype="<f4")
        if array.shape != expected[name]:
            raise ArgumentError(f"weights {name!r} have shape {array.shape}, not {expected[name]}")
        parts.append(array.tobytes())
    body = b"".join(parts)
    count = len(body) // 4
    header = _MAGIC + bytes([_core.NET_FORMAT])
    header += struct.pack("<8I", TENSOR_SIZE, hidden1, hidden2, action, count,
                          _core.net_checksum(body), world1, world2)  # fmt: skip
    return header + bytes(8) + body


def random_weights(
    hidden1: int, hidden2: int, action: int, world1: int, world2: int, seed: int
) -> dict[str, Any]:
    """Small random weights of these sizes (for tests).

    >>> random_weights(8, 4, 2, 8, 4, seed=1)["w2"].shape
    (8, 4)
    """
    numpy = import_numpy()
    rng = numpy.random.default_rng(seed)
    out = {}
    for name, shape in shapes(hidden1, hidden2, action, world1, world2).items():
        fan_in = shape[0]
        scale = 0.0 if name[0] in "bc" else 1.0 / fan_in**0.5
        out[name] = (rng.standard_normal(shape) * scale).astype("<f4")
    return out
