"""The package's layers hold: nothing imports upward, no module imports another's
private names, and no two modules import each other in a cycle.

The layers, from the bottom (docs/design.md draws them): the foundation (the C
core's binding ``_core``, the errors and the private helpers), the game, the
engine protocol (a seat played by another process, and the engine side), the
bots (which include engines as bots), playing (the referee, sessions, the
asyncio runner with its stand-in bots), then evaluation (``arena``) and learning
(``learn``) side by side, the server, and the apps on top. A module may import
from its own layer and the layers below; imports made only for type checkers
(under ``if TYPE_CHECKING:``) are not imports at run time and may point anywhere.
The package root ``skitgubbe/__init__.py`` is the facade over every layer and is
not itself in one.

The imports are read from the source with :mod:`ast`, so the test needs no
build and sees imports inside functions as well as at the top of a module. An
import by a name in a string counts as an import too: ``importlib.import_module``,
``__import__``, ``importlib.util.find_spec``, ``importlib.resources.files`` and
``runpy.run_module`` called with a name the source spells out (a constant, a
module-level constant, a sum or an f-string with a constant head), and the
submodules a package's ``__getattr__`` loads through
:func:`skitgubbe._lazy.lazy_attributes` (its tables read from the source). A
dynamic import whose name the source does not spell out is allowed only in the
modules :data:`UNREAD_BY_DESIGN` lists, each with its reason.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "skitgubbe"

LAYERS: tuple[tuple[str, ...], ...] = (
    ("_core", "_files", "_lazy", "_limits", "_moved", "_progress", "_text", "_version", "errors"),
    ("game",),
    ("engine",),
    ("bots",),
    ("play",),
    ("arena", "learn", "analysis"),
    ("server",),
    ("apps", "__main__"),
)
"""Each layer's top-level modules and packages, from the bottom up."""

if not PACKAGE.is_dir():  # the wheel tests (.ci/wheels) run against an installed package
    pytest.skip("the layers are read from the source tree, not here", allow_module_level=True)

RANK: dict[str, int] = {name: rank for rank, names in enumerate(LAYERS) for name in names}


@dataclass(frozen=True)
class Import:
    """One ``import``/``from … import`` of a skitgubbe module, as the source says it."""

    importer: str  # dotted module name
    module: str  # the module imported from (absolute)
    names: tuple[str, ...]  # the names imported from it ("" for ``import module``)
    line: int
    typing_only: bool  # under ``if TYPE_CHECKING:``
    deferred: bool  # inside a function: made when called, not when the module loads
    how: str = "import"  # or the call that imports by name ("importlib.import_module", …)


@dataclass(frozen=True)
class Unread:
    """A dynamic import whose module name the source does not spell out."""

    importer: str
    line: int
    how: str


DYNAMIC_IMPORTS: frozenset[str] = frozenset(
    (
        "builtins.__import__",
        "importlib.__import__",
        "importlib.import_module",
        "importlib.util.find_spec",
        "importlib.resources.files",
        "runpy.run_module",
    )
)
"""The calls that import the module named by their first argument."""

LAZY_ATTRIBUTES = "skitgubbe._lazy.lazy_attributes"
"""``lazy_attributes(package, names, modules, unlisted)``: loads ``package.<submodule>``."""

UNREAD_BY_DESIGN: dict[str, str] = {
    "skitgubbe": "the facade, in no layer: its old module names (_OLD_MODULES) are computed "
    "from skitgubbe._moved.MOVED_MODULES",
    "skitgubbe._lazy": "lazy_attributes imports what its callers' tables name; the tables "
    "are read where it is called",
    "skitgubbe._moved": "the import hook of the old module paths (MOVED_MODULES): for one "
    "release it loads the module an old path now is, in any layer",
    "skitgubbe.bots.policy": "a rollout policy the user names as module:function",
    "skitgubbe.bots.hosting": "an engine module the user names on the command line",
}
"""The modules allowed a dynamic import of a name the source does not spell out, and why."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return ast.unparse(test) in {"TYPE_CHECKING", "typing.TYPE_CHECKING"}


class NotSpeltOutError(Exception):
    """A value the source does not spell out; ``head`` is its constant start, if any."""

    def __init__(self, head: str = "") -> None:
        super().__init__(head)
        self.head = head


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


def _static(node: ast.expr, env: dict[str, Any]) -> Any:
    """The value of ``node`` as far as the source spells it out (else :class:`NotSpeltOutError`)."""
    try:
        return _evaluate(node, env)
    except (TypeError, ValueError):  # values the source spells out, but that do not go together
        raise NotSpeltOutError from None


def _evaluate(node: ast.expr, env: dict[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in env:
            return env[node.id]
        raise NotSpeltOutError
    if isinstance(node, ast.JoinedStr):
        text = ""
        for part in node.values:
            if isinstance(part, ast.Constant):
                text += str(part.value)
                continue
            try:
                if not isinstance(part, ast.FormattedValue) or part.format_spec:
                    raise NotSpeltOutError
                text += str(_static(part.value, env))
            except NotSpeltOutError:
                raise NotSpeltOutError(text) from None
        return text
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = _static(node.left, env)
        try:
            return left + _static(node.right, env)
        except NotSpeltOutError as unknown:
            raise NotSpeltOutError(left + unknown.head if isinstance(left, str) else "") from None
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [_static(item, env) for item in node.elts]
    if isinstance(node, ast.Dict):
        found: dict[Any, Any] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                found.update(_static(value, env))
            else:
                found[_static(key, env)] = _static(value, env)
        return found
    if isinstance(node, ast.Call) and not node.keywords:
        function = _dotted(node.func)
        args = [_static(arg, env) for arg in node.args]
        if function == "dict.fromkeys":
            return dict.fromkeys(*args)
        if function in ("frozenset", "set", "tuple", "list", "dict"):
            return {"frozenset": frozenset, "set": set, "tuple": tuple, "list": list,
                    "dict": dict}[function](*args)  # fmt: skip
    raise NotSpeltOutError


def _bindings(tree: ast.Module, package: str) -> dict[str, str]:
    """The names the module's imports bind, each to the dotted name it stands for."""
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:
                    top = alias.name.partition(".")[0]
                    bound[top] = top
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(node, package)
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{module}.{alias.name}"
    return bound


def _absolute(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    base = package.split(".")[: len(package.split(".")) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _module_env(tree: ast.Module, name: str, package: str) -> dict[str, Any]:
    """The module-level names whose values the source spells out (tables, constants)."""
    env: dict[str, Any] = {"__name__": name, "__package__": package}
    for node in tree.body:
        target: ast.expr | None = None
        value: ast.expr | None = None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        if isinstance(target, ast.Name) and value is not None:
            try:
                env[target.id] = _static(value, env)
            except NotSpeltOutError:
                env.pop(target.id, None)
    return env


def _argument(call: ast.Call, position: int, keyword: str) -> ast.expr | None:
    if len(call.args) > position and not any(
        isinstance(arg, ast.Starred) for arg in call.args[: position + 1]
    ):
        return call.args[position]
    return next((k.value for k in call.keywords if k.arg == keyword), None)


def _resolve(name: str, package: str, level: int = 0) -> str:
    """``name`` made absolute: relative (``.x``, or ``level`` dots) to ``package``."""
    if name.startswith(".") or level:
        dots = level or len(name) - len(name.lstrip("."))
        base = package.split(".")[: len(package.split(".")) - dots + 1]
        return ".".join(base + ([name.lstrip(".")] if name.lstrip(".") else []))
    return name


def _ours(name: str) -> bool:
    return name.split(".")[0] == "skitgubbe"


FIRST_ARGUMENT: dict[str, str] = {
    "runpy.run_module": "mod_name",
    "importlib.resources.files": "anchor",
}
"""The keyword of the module name where a call of :data:`DYNAMIC_IMPORTS` does not call it name."""


def dynamic_imports(
    importer: str, call: ast.Call, how: str, env: dict[str, Any], package: str
) -> Iterator[Import | Unread]:
    """What ``call`` (of ``how``: one of :data:`DYNAMIC_IMPORTS`, or :data:`LAZY_ATTRIBUTES`)
    imports: an :class:`Import` for each skitgubbe module it names, and an :class:`Unread`
    when it may import one the source does not spell out."""
    line = call.lineno
    if how == LAZY_ATTRIBUTES:
        yield from _lazy_imports(importer, call, env)
        return
    first = _argument(call, 0, FIRST_ARGUMENT.get(how, "name"))
    try:
        if first is None:
            raise NotSpeltOutError
        name = _static(first, env)
        level, anchor = 0, package
        if how in ("importlib.import_module", "importlib.util.find_spec"):
            given = _argument(call, 1, "package")
            anchor = package if given is None else _static(given, env)
        elif how.endswith("__import__"):
            given = _argument(call, 4, "level")
            level = 0 if given is None else _static(given, env)
        if not isinstance(name, str) or not isinstance(anchor, str) or type(level) is not int:
            raise NotSpeltOutError
        module = _resolve(name, anchor, level)
    except NotSpeltOutError as unknown:
        # A name whose constant head settles its package is read as far as that.
        head = _resolve(unknown.head, package) if unknown.head.startswith(".") else unknown.head
        known, dot, _ = head.rpartition(".")
        if dot and _ours(known) and layer_of(known) is not None:
            yield Import(importer, known, ("",), line, False, False, how)
        elif _ours(head) or "skitgubbe".startswith(head):  # "" too: any name at all
            yield Unread(importer, line, how)
        return
    if _ours(module) and module != "skitgubbe":  # the root: loaded before any of its modules
        yield Import(importer, module, ("",), line, False, False, how)


def _lazy_imports(importer: str, call: ast.Call, env: dict[str, Any]) -> Iterator[Import | Unread]:
    """``lazy_attributes(package, names, modules, unlisted)``: ``package.<m>`` for each
    submodule ``m`` its tables name, imported when the attribute is first read."""
    base_node = _argument(call, 0, "package")
    try:
        base = None if base_node is None else _static(base_node, env)
    except NotSpeltOutError:
        base = None
    submodules: set[str] = set()
    unread = not isinstance(base, str)
    for index, keyword in enumerate(("names", "modules", "unlisted")):
        table = _argument(call, index + 1, keyword)
        if table is None:
            continue
        try:
            value = _static(table, env)
        except NotSpeltOutError:
            unread = True  # what the readable tables name still counts (the root's _LAZY)
            continue
        value = list(value.values()) if isinstance(value, dict) else list(value)
        unread |= not all(isinstance(item, str) for item in value)
        submodules |= {item for item in value if isinstance(item, str)}
    if unread:
        yield Unread(importer, call.lineno, LAZY_ATTRIBUTES)
    if isinstance(base, str):
        for submodule in sorted(submodules):
            if _ours(f"{base}.{submodule}"):
                yield Import(importer, f"{base}.{submodule}", ("",), call.lineno, False, True,
                             LAZY_ATTRIBUTES)  # fmt: skip


def imports_in(name: str, source: str, is_package: bool) -> Iterator[Import | Unread]:
    """The skitgubbe imports of module ``name`` whose source is ``source``: its import
    statements, its imports by name (:data:`DYNAMIC_IMPORTS`, :data:`LAZY_ATTRIBUTES`),
    and an :class:`Unread` for each dynamic import of a name it does not spell out."""
    package = name if is_package else name.rpartition(".")[0]
    tree = ast.parse(source)
    bound = _bindings(tree, package)
    env = _module_env(tree, name, package)

    def qualified(function: ast.expr) -> str | None:
        dotted = _dotted(function)
        if dotted is None:
            return None
        head, dot, rest = dotted.partition(".")
        if head in bound:
            return bound[head] + dot + rest
        return f"builtins.{dotted}" if dotted == "__import__" else dotted

    def visit(node: ast.AST, typing_only: bool, deferred: bool) -> Iterator[Import | Unread]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for item in child.body:
                    yield from visit_one(item, True, deferred)
                for item in child.orelse:
                    yield from visit_one(item, typing_only, deferred)
                continue
            yield from visit_one(child, typing_only, deferred)

    def visit_one(node: ast.AST, typing_only: bool, deferred: bool) -> Iterator[Import | Unread]:
        if isinstance(node, ast.ImportFrom):
            module = _absolute(node, package)
            if module.split(".")[0] == "skitgubbe":
                names = tuple(alias.name for alias in node.names)
                yield Import(name, module, names, node.lineno, typing_only, deferred)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "skitgubbe":
                    yield Import(name, alias.name, ("",), node.lineno, typing_only, deferred)
        else:
            if isinstance(node, ast.Call):
                how = qualified(node.func)
                if how in DYNAMIC_IMPORTS or how == LAZY_ATTRIBUTES:
                    for found in dynamic_imports(name, node, how, env, package):
                        if isinstance(found, Import):
                            later = deferred or found.deferred
                            found = Import(found.importer, found.module, found.names,
                                           found.line, typing_only, later, found.how)  # fmt: skip
                        yield found
            inner = deferred or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            yield from visit(node, typing_only, inner)

    yield from visit(tree, False, False)


@cache
def _scan() -> tuple[Import | Unread, ...]:
    """Every module's imports and unread dynamic imports, read once for the tests."""
    return tuple(
        found
        for name, path in modules().items()
        for found in imports_in(name, path.read_text(encoding="utf-8"), path.name == "__init__.py")
    )


def unread_imports() -> list[Unread]:
    return [found for found in _scan() if isinstance(found, Unread)]


def all_imports() -> list[Import]:
    return [found for found in _scan() if isinstance(found, Import)]


def targets(item: Import, known: dict[str, Path]) -> Iterator[str]:
    """The modules an import loads: ``from pkg import mod`` loads ``pkg.mod``."""
    for name in item.names:
        submodule = f"{item.module}.{name}"
        if name and (submodule in known or submodule == "skitgubbe._core"):
            yield submodule
        else:
            yield item.module


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def test_every_top_level_module_has_a_layer() -> None:
    tops = {path.relative_to(PACKAGE).parts[0].removesuffix(".py") for path in modules().values()}
    tops |= {path.name.split(".")[0] for path in PACKAGE.glob("*.pyx")}
    tops.discard("__init__")
    assert tops - RANK.keys() == set(), "add the new module to a layer in LAYERS"


def upward(imports: list[Import], known: dict[str, Path]) -> list[str]:
    """The imports (statements or by name) of a layer above the importer's."""
    found = []
    for item in imports:
        source = layer_of(item.importer)
        if source is None or item.typing_only:
            continue  # the root is the facade; type-only imports do not run
        for target in targets(item, known):
            aim = layer_of(target)
            if aim is not None and RANK[aim] > RANK[source]:
                found.append(f"{item.importer}:{item.line} imports {target} ({item.how})")
    return found


def test_nothing_imports_upward() -> None:
    assert upward(all_imports(), modules()) == []


def test_every_dynamic_import_is_read_or_explained() -> None:
    # An import by a name the source does not spell out could load any layer: only
    # the modules listed, for their reasons, make one (and each listed still does).
    unread = unread_imports()
    assert [item for item in unread if item.importer not in UNREAD_BY_DESIGN] == []
    assert UNREAD_BY_DESIGN.keys() - {item.importer for item in unread} == set()


def test_the_lazy_attributes_and_named_imports_are_seen() -> None:
    # The scan reads the real lazy tables: what the packages load on first use is
    # among the imports checked (the bots' hosting, the engine's process, the arena).
    found = {(item.importer, item.module, item.how) for item in all_imports()}
    lazy = {(importer, module) for importer, module, how in found if how == LAZY_ATTRIBUTES}
    assert {
        ("skitgubbe.bots", "skitgubbe.bots.hosting"),
        ("skitgubbe.bots", "skitgubbe.bots.policy"),
        ("skitgubbe.engine", "skitgubbe.engine.process"),
        ("skitgubbe.engine", "skitgubbe.engine.wire"),
        ("skitgubbe", "skitgubbe.arena"),
        ("skitgubbe", "skitgubbe.play.aio"),
    } <= lazy
    assert ("skitgubbe.server.app", "skitgubbe.server", "importlib.resources.files") in found


PLANTED = {
    "import_module": "import importlib\nimportlib.import_module('skitgubbe.server')",
    "alias": "from importlib import import_module as load\ndef f():\n    load('skitgubbe.server')",
    "builtin": "__import__('skitgubbe.server.app')",
    "builtin relative": "__import__('server', globals(), None, ['app'], 2)",
    "find_spec": "import importlib.util\nimportlib.util.find_spec('skitgubbe.server.app')",
    "resources": "from importlib import resources\nresources.files('skitgubbe.server')",
    "relative": "import importlib\nimportlib.import_module('..server', __package__)",
    "constant": "import importlib as il\nWHERE = 'skitgubbe.' + 'server'\nil.import_module(WHERE)",
    "f-string head": "import importlib\n"
    "def f(x):\n    importlib.import_module(f'skitgubbe.server.{x}')",
    "lazy": "from .._lazy import lazy_attributes\n"
    "__getattr__, __dir__ = lazy_attributes('skitgubbe.server', {'x': 'app'}, ())",
    "lazy tables": "from skitgubbe._lazy import lazy_attributes\nLAZY = {'x': 'app'}\n"
    "MODULES = frozenset(('tables',))\n"
    "__getattr__, __dir__ = lazy_attributes('skitgubbe.' + 'server', LAZY, MODULES)",
}
"""Dynamic imports of the server, as a module of the game layer could plant them."""


@pytest.mark.parametrize("how", sorted(PLANTED))
def test_a_planted_dynamic_import_upward_is_found(how: str) -> None:
    found = list(imports_in("skitgubbe.game.cards", PLANTED[how], False))
    imports = [item for item in found if isinstance(item, Import)]
    assert [item for item in found if isinstance(item, Unread)] == []
    assert upward(imports, modules()), found


@pytest.mark.parametrize(
    "source",
    [
        "import importlib\ndef f(name):\n    importlib.import_module(name)",
        "import importlib\ndef f(x):\n    importlib.import_module(f'skitgubbe.{x}')",
        "import importlib\ndef f(x):\n    importlib.import_module('skitgubbe' + x)",
        "from skitgubbe._lazy import lazy_attributes\ndef f(t):\n"
        "    return lazy_attributes(__name__, t, ())",
    ],
)
def test_a_dynamic_import_of_an_unspelt_name_is_unread(source: str) -> None:
    found = list(imports_in("skitgubbe.game.cards", source, False))
    assert len([item for item in found if isinstance(item, Unread)]) == 1, found


def test_names_outside_the_package_are_not_imports_of_it() -> None:
    source = (
        "import importlib, importlib.util\n"
        "importlib.util.find_spec('matplotlib')\nimportlib.import_module(f'numpy.{1}')"
    )
    assert list(imports_in("skitgubbe.game.cards", source, False)) == []


def test_no_module_imports_another_modules_private_names() -> None:
    known = modules()
    found = []
    for item in all_imports():
        for name in item.names:
            private = name.startswith("_") and not name.startswith("__")
            if private and f"{item.module}.{name}" not in known and name != "_core":
                found.append(f"{item.importer}:{item.line} imports {item.module}.{name}")
    assert found == []


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(edges[node]):
            if other not in index:
                connect(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                component.append(other)
                if other == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            connect(node)
    return found


def _edges(*, deferred: bool) -> dict[str, set[str]]:
    known = modules()
    edges: dict[str, set[str]] = defaultdict(set)
    for item in all_imports():
        if item.typing_only or (item.deferred and not deferred):
            continue
        for target in targets(item, known):
            if target != item.importer:
                edges[item.importer].add(target)
    return edges


def test_no_import_cycle_when_modules_load() -> None:
    assert _cycles(_edges(deferred=False)) == []


def test_a_call_time_import_closes_a_cycle_only_within_its_package() -> None:
    # A function may import a module of its own package that imports its module
    # back (an observation samples a Game, which makes observations); a cycle
    # that spans packages is a layering fault.
    known = modules()

    def package(module: str) -> str:
        is_package = module in known and known[module].name == "__init__.py"
        return module if is_package else module.rpartition(".")[0]

    spanning = [
        component
        for component in _cycles(_edges(deferred=True))
        if len({package(module) for module in component}) > 1
    ]
    assert spanning == []


@pytest.mark.parametrize("fault", ["upward", "cycle"])
def test_the_checks_can_fail(fault: str) -> None:
    # The checks above see what they claim to: a made-up upward import and a
    # made-up cycle are found.
    if fault == "upward":
        item = Import("skitgubbe.game.cards", "skitgubbe.server.app", ("x",), 1, False, False)
        assert RANK[layer_of(item.module) or ""] > RANK[layer_of(item.importer) or ""]
    else:
        assert _cycles(defaultdict(set, {"a": {"b"}, "b": {"a"}})) == [["a", "b"]]


LONG_FILES: dict[str, str] = {
    "src/_core/skitgubbe.h": "the C core's one public header: every type, constant and function "
    "of the API, with the rule table",
    "src/skitgubbe/game/state.py": "one concept, the Game: its moves, undo, records, replays and "
    "pickles share the position chain",
    "src/skitgubbe/learn/train.py": "one concept, a training run: its loop, its checkpoints and "
    "every file it reads back, each checked before a byte is read (issue 40)",
}
"""Source files allowed over :data:`MAX_LINES`, each with the reason it is one concept."""

MAX_LINES = 900


def test_source_files_are_short_unless_one_concept() -> None:
    root = PACKAGE.parents[1]
    sources = [
        path
        for pattern in ("src/**/*.py", "src/**/*.pyx", "src/**/*.pxi", "src/_core/**/*.[ch]")
        for path in root.glob(pattern)
    ]
    long = {
        str(path.relative_to(root)): sum(1 for _ in path.open(encoding="utf-8")) for path in sources
    }
    long = {name: lines for name, lines in long.items() if lines > MAX_LINES}
    assert sorted(long) == sorted(LONG_FILES), long
