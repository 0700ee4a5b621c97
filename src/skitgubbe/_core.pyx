# cython: language_level=3
"""Thin binding of the C core (src/_core/skitgubbe.h) for CPython.

Everything here speaks the core's own numbers: cards are bit indices
(suit * 16 + rank), card sets are 64-bit masks, moves are the core's 64-bit
codes, events are (kind, seat, arg, cards) tuples.  The typed API in
skitgubbe.game.state turns them into Card, CardSet, Move and Event objects.
"""
cimport cython
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t, uintptr_t
from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.ref cimport Py_INCREF, Py_REFCNT
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from cpython.unicode cimport PyUnicode_AsUTF8AndSize
from libc.stdlib cimport free, realloc
from libc.string cimport memcmp, memcpy, memmove, memset, strlen

from skitgubbe._core cimport *
from skitgubbe.errors import StateError

# The binding by concern, in this order (each file says what it holds).
include "_binding/constants.pxi"
include "_binding/rules.pxi"
include "_binding/rng.pxi"
include "_binding/views.pxi"
include "_binding/actions.pxi"
include "_binding/tensors.pxi"
include "_binding/vector.pxi"
include "_binding/net.pxi"
include "_binding/search.pxi"
include "_binding/solve.pxi"
include "_binding/moves.pxi"
include "_binding/snapshots.pxi"
include "_binding/events.pxi"
include "_binding/core.pxi"
include "_binding/game.pxi"
include "_binding/protocol.pxi"
