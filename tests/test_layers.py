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
build and sees imports inside functions as well as at the top of a module.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

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


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return ast.unparse(test) in {"TYPE_CHECKING", "typing.TYPE_CHECKING"}


def imports_of(name: str, path: Path) -> Iterator[Import]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def visit(node: ast.AST, typing_only: bool, deferred: bool) -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for item in child.body:
                    yield from visit_one(item, True, deferred)
                for item in child.orelse:
                    yield from visit_one(item, typing_only, deferred)
                continue
            yield from visit_one(child, typing_only, deferred)

    def visit_one(node: ast.AST, typing_only: bool, deferred: bool) -> Iterator[Import]:
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.split(".")[0] == "skitgubbe":
                names = tuple(alias.name for alias in node.names)
                yield Import(name, module, names, node.lineno, typing_only, deferred)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "skitgubbe":
                    yield Import(name, alias.name, ("",), node.lineno, typing_only, deferred)
        else:
            inner = deferred or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            yield from visit(node, typing_only, inner)

    yield from visit(ast.parse(path.read_text(encoding="utf-8")), False, False)


def all_imports() -> list[Import]:
    return [item for name, path in modules().items() for item in imports_of(name, path)]


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


def test_nothing_imports_upward() -> None:
    known = modules()
    upward = []
    for item in all_imports():
        source = layer_of(item.importer)
        if source is None or item.typing_only:
            continue  # the root is the facade; type-only imports do not run
        for target in targets(item, known):
            aim = layer_of(target)
            if aim is not None and RANK[aim] > RANK[source]:
                upward.append(f"{item.importer}:{item.line} imports {target}")
    assert upward == []


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
