"""Weight files (``.sgnet``) for the network of :mod:`skitgubbe.bots.net`, written from numpy.

The layout (docs/strength.md and "the network" in ``src/_core/skitgubbe.h``):
48 header bytes — the magic ``SGNET\\0\\0``, the format byte, then little-endian
uint32 inputs, hidden1, hidden2, action, the number of floats, the FNV-1a
checksum of the weight bytes and 16 reserved zero bytes — then every weight as
a little-endian float32, in the order of :data:`LAYOUT`.

>>> from skitgubbe.bots.net import Network
>>> data = encode(random_weights(hidden1=16, hidden2=8, action=4, seed=1))
>>> Network(data).shape[1:]
(16, 8, 4)
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from typing import Any, Final

from .. import _core
from ..errors import ArgumentError
from ..game.tensors import TENSOR_SIZE, import_numpy

__all__ = ["LAYOUT", "encode", "random_weights", "shapes"]

LAYOUT: Final = ("w1", "b1", "w2", "b2", "wv", "bv", "wp", "bp", "wc", "wk", "wn", "vp")
"""The weight arrays in file order (net.c names them so)."""

_MAGIC: Final = b"SGNET\0\0"
_KINDS: Final = 5  # play, flip, pick up, slough, pass


def shapes(hidden1: int, hidden2: int, action: int) -> dict[str, tuple[int, ...]]:
    """The shape of each array for these layer sizes.

    >>> shapes(256, 128, 64)["w1"] == (TENSOR_SIZE, 256)
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
    }


def encode(arrays: Mapping[str, Any]) -> bytes:
    """The weight file of ``arrays`` (name → array of the shape :func:`shapes` gives)."""
    numpy = import_numpy()
    hidden1 = int(arrays["b1"].shape[0])
    hidden2 = int(arrays["b2"].shape[0])
    action = int(arrays["bp"].shape[0])
    expected = shapes(hidden1, hidden2, action)
    parts = []
    for name in LAYOUT:
        array = numpy.asarray(arrays[name], dtype="<f4")
        if array.shape != expected[name]:
            raise ArgumentError(f"weights {name!r} have shape {array.shape}, not {expected[name]}")
        parts.append(array.tobytes())
    body = b"".join(parts)
    count = len(body) // 4
    header = _MAGIC + bytes([_core.NET_FORMAT])
    header += struct.pack("<6I", TENSOR_SIZE, hidden1, hidden2, action, count,
                          _core.net_checksum(body))  # fmt: skip
    return header + bytes(16) + body


def random_weights(hidden1: int, hidden2: int, action: int, seed: int) -> dict[str, Any]:
    """Small random weights of these sizes (for tests, and the start of training)."""
    numpy = import_numpy()
    rng = numpy.random.default_rng(seed)
    out = {}
    for name, shape in shapes(hidden1, hidden2, action).items():
        fan_in = shape[0]
        scale = 0.0 if name.startswith("b") else 1.0 / fan_in**0.5
        out[name] = (rng.standard_normal(shape) * scale).astype("<f4")
    return out
