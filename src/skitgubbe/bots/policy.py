"""Your heuristics inside the C search: rollout policies and evaluations for PIMC and ISMCTS.

The search bots (:class:`~skitgubbe.bots.PIMCBot`, :class:`~skitgubbe.bots.ISMCTSBot`)
play hundreds of thousands of rollouts a second in C. Their ``rollout`` (which move
to play in a position of a sampled world) and ``evaluation`` (the per-seat value of
a position, which ends a rollout early) can be:

- a built-in policy by name: ``"greedy"``, ``"random"``, ``"mixed"``;
- a **C function** of yours, compiled with cffi against ``skitgubbe_policy.h``
  (in :func:`get_include`) and called by the C search directly, without the GIL:
  :func:`compile_c`, or a path ``"mypolicy.c"`` / ``"mypolicy.c:function"``;
- a **Python callable** (slow: for trying an idea), called with a
  :class:`Position`; or ``"module:function"``.

A policy sees only the sampled world the search is in, never the real game. A C
policy that answers out of range, or a Python one that raises, ends the search
with a :class:`~skitgubbe.PolicyError` naming it.

>>> import skitgubbe as sg
>>> from skitgubbe.bots import policy
>>> lowest = policy.compile_c('''
... #include "skitgubbe_policy.h"
... int32_t lowest(const sg_position *pos, void *ctx) {
...     (void)ctx;
...     int32_t best = 0, best_rank = 99;
...     for (int32_t i = 0; i < sg_n_moves(pos); i++) {
...         int32_t rank = sg_lowest_rank(sg_move_cards(pos, i));
...         if (rank && rank < best_rank) { best = i; best_rank = rank; }
...     }
...     return best;
... }
... ''', "lowest")
>>> bot = sg.bots.ISMCTSBot(iterations=300, rollout=lowest, seed=1)
>>> game = sg.Game.new(seed=4)
>>> bot.choose(game.observation(game.to_move)) in game.legal_moves
True
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.machinery
import importlib.util
import os
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, Final, Literal, TypeAlias

import attrs

from .. import _core
from ..errors import ArgumentError, ArgumentTypeError, PolicyError

__all__ = [
    "BUILTIN",
    "POLICY_ABI",
    "CFunction",
    "Position",
    "Rollout",
    "compile_c",
    "get_include",
    "resolve",
]

POLICY_ABI: Final[int] = _core.POLICY_ABI
"""The version of ``skitgubbe_policy.h``'s table of accessors (``SG_POLICY_ABI``)."""

BUILTIN: Final = {"random": 0, "greedy": 1, "mixed": 2}
"""The built-in rollout policies by name (``mixed``: greedy, a random move one time in four)."""

Position = _core.Position
"""What a Python policy or evaluation is called with: the accessors of
``skitgubbe_policy.h`` as properties and methods (``players``, ``to_move``, ``phase``,
``trump``, ``hand(seat)``, ``collection(seat)``, ``stock_size``, ``table``,
``top_play``, ``top_seat``, ``out_of_play``, ``is_out(seat)``, ``n_moves``,
``move_kind(i)``, ``move_cards(i)``, ``moves()``, ``greedy``); card sets are masks
(bit ``16 * suit + rank - 2``). It can be read only during the call."""

Kind: TypeAlias = Literal["policy", "evaluation"]

_SIGNATURES: Final[dict[str, str]] = {
    "policy": "int32_t {name}(const sg_position *pos, void *ctx);",
    "evaluation": "int32_t {name}(const sg_position *pos, void *ctx, double value[4]);",
}
_ALLOWED: Final = {
    "policy": "rollout must be one of random, greedy, mixed, a C policy, file.c[:function], "
    "module:function or a callable",
    "evaluation": "evaluation must be a C evaluation, file.c[:function], module:function "
    "or a callable",
}
_ERRORS: Final = {
    1: "returned {detail}, a failure",
    2: "returned move index {detail}, past the position's legal moves",
    3: "returned {detail}, a failure",
    4: "returned {detail}; an evaluation returns 1 (values written), 0 (go on) or < 0",
    5: "wrote a value for seat {detail} that is not a chance in [0, 1]",
}


def get_include() -> str:
    """The folder of ``skitgubbe_policy.h``, for compiling policies (as numpy's).

    An installed package carries the header in its own ``include`` folder (copied
    there at build time); a source checkout has it where the core keeps its public
    headers, ``src/_core/include``.

    >>> from pathlib import Path
    >>> from skitgubbe.bots.policy import get_include
    >>> (Path(get_include()) / "skitgubbe_policy.h").is_file()
    True
    """
    package = Path(__file__).resolve().parents[1]  # skitgubbe/, above bots/
    shipped = package / "include"
    if (shipped / "skitgubbe_policy.h").is_file():
        return str(shipped)
    return str(package.parent / "_core" / "include")


@attrs.frozen
class CFunction:
    """A C policy or evaluation compiled by :func:`compile_c`: its ``name``, ``kind``, the
    ``address`` the C search calls, and the loaded module that holds it (kept alive).

    >>> from skitgubbe.bots.policy import compile_c
    >>> first = compile_c("int32_t first(const sg_position *p, void *c) { return 0; }", "first")
    >>> first.name, first.kind, first.address > 0
    ('first', 'policy', True)
    """

    name: str
    kind: Kind
    address: int
    source: str = attrs.field(repr=False)
    module: ModuleType = attrs.field(repr=False, eq=False)


_SUFFIX: Final = importlib.machinery.EXTENSION_SUFFIXES[0]
"""The file name ending of a cached build (the platform's extension modules')."""
_SIDECAR: Final = ".sha256"
"""The ending of the file beside each cached build that holds the build's SHA-256."""
_BUILD_FORMAT: Final = "2"
"""Part of the cache key: a build made by an earlier form of the generated C is not used."""
_TEXT: Final = "<source>"
"""What the compiler's messages call a source given as text."""


def _cache_dir() -> Path:
    given = os.environ.get("SKITGUBBE_CACHE")
    if given:
        return Path(given) / "policies"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "skitgubbe" / "policies"


@contextlib.contextmanager
def _captured_output() -> Iterator[list[str]]:
    """Standard output and error of this process and its children (the compiler), kept."""
    captured: list[str] = []
    with tempfile.TemporaryFile() as sink:
        sys.stdout.flush()
        sys.stderr.flush()
        saved = [os.dup(1), os.dup(2)]
        try:
            os.dup2(sink.fileno(), 1)
            os.dup2(sink.fileno(), 2)
            yield captured
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)
            sink.seek(0)
            captured.append(sink.read().decode("utf-8", errors="replace"))


def _line_name(origin: str) -> str:
    """``origin`` as the file name of a ``#line`` directive (a C string literal)."""
    text = "".join(ch if ch.isprintable() else "?" for ch in origin)
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _glue(name: str) -> str:
    """What the compiler's messages call the glue after the user's source."""
    return f"<skitgubbe's check of {name}>"


def _generated(text: str, name: str, kind: Kind, origin: str) -> str:
    """The C that cffi compiles: the header, the user's ``text`` (its lines numbered as in
    ``origin``, so the compiler's messages point there) and the glue, which checks that
    ``name`` is a function of the kind's signature and reports the ABI."""
    pointer = _SIGNATURES[kind].format(name="(*check)").removesuffix(";")
    return (
        '#include "skitgubbe_policy.h"\n'
        f"#line 1 {_line_name(origin)}\n"
        f"{text}\n"
        f"#line 1 {_line_name(_glue(name))}\n"
        "#if defined(__GNUC__)\n"
        '#pragma GCC diagnostic error "-Wincompatible-pointer-types"\n'
        "#endif\n"
        "int32_t skitgubbe_policy_abi(void)\n"
        "{\n"
        f"    {pointer} = {name};\n"
        "    (void)check;\n"
        "    return SG_POLICY_ABI;\n"
        "}\n"
    )


def _compile_failure(message: str, name: str, kind: Kind, origin: str) -> str:
    """The text of the error for a source that did not compile (``message``, the
    compiler's): a line of its own when only the glue's check of ``name`` failed."""
    errors = [line for line in message.splitlines() if ": error: " in line]
    if errors and all(line.startswith(_glue(name) + ":") for line in errors):
        reason = errors[0].partition(": error: ")[2]
        signature = _SIGNATURES[kind].format(name=name).removesuffix(";")
        return f"{origin} defines no {kind} function {signature} ({reason})"
    where = "" if origin == _TEXT else f" of {origin}"
    first = (errors or [line for line in message.splitlines() if line.strip()] or [""])[0]
    return f"cannot compile {kind} {name!r}{where}: {first.strip()}\n{message}"


def _unreadable(folder: Path, name: str, error: OSError) -> PolicyError:
    return PolicyError(
        f"cannot read the policy cache {folder}: {error.strerror or error} "
        "(set SKITGUBBE_CACHE to a folder you can read and write)",
        name,
    )


def _unwritable(folder: Path, name: str, error: OSError) -> PolicyError:
    return PolicyError(
        f"cannot write the policy cache {folder}: {error.strerror or error} "
        "(set SKITGUBBE_CACHE to a folder you can write)",
        name,
    )


def _cached(module_name: str, folder: Path, name: str) -> ModuleType | None:
    """The cached build of ``module_name`` in ``folder``, or None when there is none that
    verifies: the library's SHA-256 must be the one its sidecar recorded when it was
    built (checked before the library is loaded, so a damaged file is never mapped),
    and it must load and be built for this :data:`POLICY_ABI`."""
    library = folder / (module_name + _SUFFIX)
    try:
        recorded = (folder / (module_name + _SIDECAR)).read_bytes().strip()
        digest = hashlib.sha256(library.read_bytes()).hexdigest()
    except (FileNotFoundError, NotADirectoryError):
        return None  # not built yet (or no folder): build it
    except OSError as error:
        raise _unreadable(folder, name, error) from None
    if digest.encode() != recorded:
        return None  # damaged or tampered with: build again
    try:
        module = _load(module_name, library)
    except ImportError:
        return None
    if module.lib.skitgubbe_policy_abi() != POLICY_ABI or not hasattr(module.lib, name):
        return None  # stale: build it again
    return module


def _build(
    module_name: str, text: str, name: str, kind: Kind, folder: Path, origin: str
) -> ModuleType:
    """Compile ``text`` into the module ``module_name``, load and check it, and only then
    put it in the cache ``folder`` with the sidecar recording its SHA-256; the module."""
    import cffi  # type: ignore[import-untyped]  # only when a policy is compiled

    ffi = cffi.FFI()
    ffi.cdef(
        "typedef struct sg_position sg_position;\n"
        + _SIGNATURES[kind].format(name=name)
        + "\nint32_t skitgubbe_policy_abi(void);"
    )
    flags = [] if sys.platform == "win32" else ["-std=c99", "-O2"]
    ffi.set_source(
        module_name,
        _generated(text, name, kind, origin),
        include_dirs=[get_include()],
        extra_compile_args=flags,
    )
    try:
        folder.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix="build-", dir=folder))
    except OSError as error:
        raise _unwritable(folder, name, error) from None
    try:
        with _captured_output() as output:
            try:
                built = Path(ffi.compile(tmpdir=str(work), verbose=False))
            except Exception as error:  # cffi.VerificationError, distutils' CompileError
                failure: Exception | None = error
            else:
                failure = None
        if failure is not None:
            message = _compile_failure(output[0].strip() or str(failure), name, kind, origin)
            raise PolicyError(message, name) from None
        try:
            module = _load(module_name, built)
        except ImportError as error:  # e.g. a function declared but defined nowhere
            text_of = str(error)
            reason = (
                f"{origin} does not define {text_of.rpartition(': undefined symbol: ')[2]}, "
                "which it declares or calls"
                if ": undefined symbol: " in text_of
                else text_of
            )
            raise PolicyError(f"cannot load {kind} {name!r}: {reason}", name) from None
        abi = module.lib.skitgubbe_policy_abi()
        if abi != POLICY_ABI:
            raise PolicyError(
                f"{kind} {name!r} was built for policy ABI {abi}, not {POLICY_ABI}", name
            )
        digest = hashlib.sha256(built.read_bytes()).hexdigest()
        sidecar = work / (module_name + _SIDECAR)
        try:
            sidecar.write_text(digest + "\n", encoding="ascii")
            # The library first, then its sidecar, each atomically: a process reading at
            # any moment sees either no sidecar, or one that matches, or a mismatch (two
            # processes building at once), which only means building once more.
            os.replace(built, folder / (module_name + _SUFFIX))
            os.replace(sidecar, folder / (module_name + _SIDECAR))
        except OSError as error:
            raise _unwritable(folder, name, error) from None
        return module
    finally:
        with contextlib.suppress(OSError):
            for leftover in sorted(work.rglob("*"), reverse=True):
                leftover.unlink() if leftover.is_file() else leftover.rmdir()
            work.rmdir()


def _load(module_name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path} is not a loadable module")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_LOADED: dict[tuple[str, str, str], CFunction] = {}


def compile_c(
    source: str | os.PathLike[str],
    name: str,
    *,
    kind: Kind = "policy",
    cache_dir: str | os.PathLike[str] | None = None,
) -> CFunction:
    """Compile the C function ``name`` of ``source`` (its text, or a ``.c`` file's path)
    as a rollout ``policy`` or an ``evaluation`` (``skitgubbe_policy.h`` says what each
    takes and returns; the header is included for you).

    The build is cached by the hash of the source, the function, its kind and
    :data:`POLICY_ABI` (in ``$SKITGUBBE_CACHE``, else the user's cache folder), so it
    compiles once; a cached build made for another ABI, or whose SHA-256 is not the one
    recorded when it was built (a damaged or truncated file), is compiled again. A
    source that does not compile raises :class:`~skitgubbe.PolicyError` with the
    compiler's message, its lines numbered as in the source; so does one that does not
    define ``name``, and a cache folder that cannot be read or written.

    >>> from skitgubbe.bots.policy import compile_c
    >>> compile_c("int32_t broken(const sg_position *p, void *c) { return nope; }", "broken")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    skitgubbe.errors.PolicyError: cannot compile policy 'broken': <source>:1:...nope...
    ...
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise ArgumentError(f"a C function's name is an identifier, not {name!r}")
    if kind not in _SIGNATURES:
        raise ArgumentError(f"kind is 'policy' or 'evaluation', not {kind!r}")
    if isinstance(source, os.PathLike) or (isinstance(source, str) and source.endswith(".c")):
        path = Path(source)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            reason = getattr(error, "strerror", None) or error
            raise PolicyError(f"cannot read {path}: {reason}", name) from None
        origin = str(path)
    elif isinstance(source, str):
        text, origin = source, _TEXT
    else:
        raise ArgumentTypeError(f"source is C text or a .c file's path, not {source!r}")
    key = hashlib.sha256(
        "\0".join(
            (text, name, kind, str(POLICY_ABI), sys.implementation.cache_tag, _BUILD_FORMAT)
        ).encode()
    ).hexdigest()[:20]
    found = _LOADED.get((key, name, kind))
    if found is not None:
        return found
    module_name = f"_skitgubbe_policy_{key}"
    folder = Path(cache_dir) if cache_dir is not None else _cache_dir()
    module = _cached(module_name, folder, name)
    if module is None:
        module = _build(module_name, text, name, kind, folder, origin)
    ffi = module.ffi
    address = int(ffi.cast("uintptr_t", ffi.addressof(module.lib, name)))
    function = CFunction(name, kind, address, text, module)
    _LOADED[key, name, kind] = function
    return function


@attrs.frozen
class Rollout:
    """What a search rolls out with, resolved by :func:`resolve`: the built-in policy
    (``builtin``), or ``choose``; and ``evaluate``, or None. ``name`` names it in errors.

    >>> from skitgubbe.bots.policy import resolve
    >>> resolve("greedy")
    Rollout(name='greedy', builtin=1, choose=None, evaluate=None)
    """

    name: str
    builtin: int = 1
    choose: CFunction | Callable[[Any], int] | None = None
    evaluate: CFunction | Callable[[Any], Sequence[float] | None] | None = None

    def arguments(self) -> tuple[int, int | Callable[..., Any] | None, Any]:
        """(builtin, choose, evaluate) as the engine's search functions take them."""
        choose = self.choose.address if isinstance(self.choose, CFunction) else self.choose
        evaluate = self.evaluate.address if isinstance(self.evaluate, CFunction) else self.evaluate
        return self.builtin, choose, evaluate

    def failure(self, failure: _core.SearchPolicyError) -> PolicyError:
        """The :class:`~skitgubbe.PolicyError` for a search this rollout stopped."""
        evaluation = failure.error >= 3
        what = "evaluation" if evaluation else "policy"
        who = _label(self.evaluate if evaluation else self.choose)
        cause = failure.__cause__
        if cause is not None:
            text = f"{what} {who} raised {type(cause).__name__}: {cause}"
        else:
            text = f"{what} {who} " + _ERRORS.get(failure.error, "failed ({detail})").format(
                detail=failure.detail
            )
        return PolicyError(text + "; the search stopped", who)


def _label(function: object) -> str:
    if isinstance(function, CFunction):
        return repr(f"{function.name} (C)")
    name = getattr(function, "__qualname__", None) or repr(function)
    return repr(name)


def _python(spec: str) -> Callable[..., Any]:
    module_name, _, attribute = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ArgumentError(f"cannot import {module_name!r} for {spec!r}: {error}") from None
    found = getattr(module, attribute, None)
    if not callable(found):
        raise ArgumentError(f"{module_name} has no function {attribute!r} ({spec!r})")
    return found  # type: ignore[no-any-return]


def _function(given: object, kind: Kind) -> CFunction | Callable[..., Any]:
    if isinstance(given, CFunction):
        if given.kind != kind:
            raise ArgumentError(f"{given.name!r} was compiled as a {given.kind}, not a {kind}")
        return given
    if isinstance(given, str):
        path, _, name = given.partition(".c:")
        if given.endswith(".c") or name:
            file = given if given.endswith(".c") else path + ".c"
            default = "choose" if kind == "policy" else "evaluate"
            return compile_c(Path(file), name or default, kind=kind)
        if ":" in given:
            return _python(given)
        raise ArgumentError(f"{_ALLOWED[kind]}, not {given!r}")
    if callable(given):
        return given
    raise ArgumentTypeError(f"{_ALLOWED[kind]}, not {given!r}")


def resolve(rollout: object = "greedy", evaluation: object = None) -> Rollout:
    """The :class:`Rollout` of a ``rollout`` policy and an ``evaluation``, each given as
    described in the module (a name, a :class:`CFunction`, ``"file.c[:function]"``,
    ``"module:function"``, or a callable; ``evaluation`` may be None). A C file is
    compiled here (or found in the cache); the default function is ``choose`` for a
    policy and ``evaluate`` for an evaluation.

    >>> from skitgubbe.bots.policy import resolve
    >>> resolve("random").builtin
    0
    >>> resolve("fast")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: rollout must be one of random, greedy, mixed, ... not 'fast'
    """
    evaluate = None if evaluation is None else _function(evaluation, "evaluation")
    if isinstance(rollout, str) and rollout in BUILTIN:
        name = rollout
        return Rollout(name, BUILTIN[rollout], None, evaluate)
    choose = _function(rollout, "policy")
    return Rollout(_label(choose).strip("'"), 1, choose, evaluate)
