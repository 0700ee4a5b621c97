"""A Griffe extension for the documentation site: the package's docstrings as Markdown.

The docstrings are written for ``doctest`` and read like reStructuredText: ``code``,
Sphinx roles (:class:`Game`, :meth:`~skitgubbe.Game.play`) and doctest examples
(``>>>`` lines). mkdocstrings renders Markdown, where ``>>>`` starts a block quote and
a role is plain text. mkdocs.yml loads this extension, which rewrites every docstring
of the package before it is rendered (the source files are not touched, and doctest
still runs the same examples):

- a doctest example (a ``>>>`` line, its ``...`` lines and its output, up to a blank
  line) becomes a fenced ``pycon`` block, without its ``# doctest:`` flags;
- a role becomes a cross-reference to the object's entry in the API reference, by the
  object's canonical path (``skitgubbe.Game`` is ``skitgubbe.game.Game``), or plain
  code for a private object (which has no entry) or a name from outside the package
  (a builtin, the standard library, a dependency); a name that resolves nowhere is
  logged as a warning, which fails ``mkdocs build --strict``;
- a list right after a line of text gets the blank line Markdown needs before it.
"""

from __future__ import annotations

import builtins
import importlib.util
import logging
import re
import sys
from typing import Any

import griffe

_log = logging.getLogger("mkdocs.plugins.skitgubbe_docstrings")

_ROLE = re.compile(
    r":(?P<role>class|meth|func|attr|mod|data|exc|obj):"
    r"`(?P<tilde>~?)(?P<text>[^`<]+?)(?:\s*<(?P<target>[^`>]+)>)?`"
)
_DOCTEST_FLAGS = re.compile(r"\s*#\s*doctest:.*$")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+\.)\s")
_CALLABLE_ROLES = ("meth", "func")


class MarkdownDocstrings(griffe.Extension):
    """Rewrites the docstrings of every loaded package into Markdown."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        for obj in _walk(pkg):
            if obj.docstring is not None:
                obj.docstring.value = _markdown(obj, obj.docstring.value, loader)


def _walk(obj: griffe.Object) -> list[griffe.Object]:
    found = [obj]
    for member in obj.members.values():
        if not member.is_alias:
            found.extend(_walk(member))  # type: ignore[arg-type]
    return found


def _markdown(obj: griffe.Object, text: str, loader: griffe.GriffeLoader) -> str:
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    in_fence = False
    while i < len(lines):
        line = lines[i]
        stripped = line.lstrip()
        if stripped.startswith("```"):
            in_fence = not in_fence
        if not in_fence and stripped.startswith(">>>"):
            indent = line[: len(line) - len(stripped)]
            block: list[str] = []
            while i < len(lines) and lines[i].strip():
                block.append(_DOCTEST_FLAGS.sub("", lines[i].removeprefix(indent)))
                i += 1
            if out and out[-1].strip():
                out.append("")
            out += [f"{indent}```pycon", *(f"{indent}{b}" for b in block), f"{indent}```"]
            continue
        if not in_fence:
            if _LIST_ITEM.match(line) and out and _is_text(out[-1]):
                out.append("")  # Markdown needs a blank line between text and a list
            line = _ROLE.sub(lambda m: _reference(obj, m, loader), line)
        out.append(line)
        i += 1
    return "\n".join(out)


def _is_text(line: str) -> bool:
    """A line of a paragraph: not blank, not indented, not a list item."""
    return bool(line.strip()) and not line[0].isspace() and not _LIST_ITEM.match(line)


def _reference(obj: griffe.Object, match: re.Match[str], loader: griffe.GriffeLoader) -> str:
    text = match["text"].strip()
    target = (match["target"] or text).strip()
    if match["target"]:
        shown = text
    elif match["tilde"]:
        shown = target.rsplit(".", 1)[-1]
    else:
        shown = target
    if match["role"] in _CALLABLE_ROLES and not match["target"]:
        shown += "()"
    path = _canonical(obj, target, loader)
    if path is None:
        head = target.partition(".")[0]
        if head in loader.modules_collection.members or not _is_external(head):
            _log.warning("%s: %s does not name anything in the package", obj.path, match[0])
        return f"`{shown}`"
    if path.partition(".")[0] not in loader.modules_collection.members:
        return f"`{shown}`"  # outside the documented packages (the standard library)
    if any(part.startswith("_") and not part.startswith("__") for part in path.split(".")):
        return f"`{shown}`"  # private: no entry in the API reference
    return f"[`{shown}`][{path}]"


def _is_external(name: str) -> bool:
    """A builtin (``EOFError``) or a module outside the package (``random``, ``rich``)."""
    if hasattr(builtins, name) or name in sys.stdlib_module_names:
        return True
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _canonical(obj: griffe.Object, target: str, loader: griffe.GriffeLoader) -> str | None:
    collection = loader.modules_collection
    head, _, rest = target.partition(".")
    candidates = [target]
    try:
        resolved = obj.resolve(head)
    except griffe.NameResolutionError:
        pass
    else:
        candidates.insert(0, f"{resolved}.{rest}" if rest else resolved)
    for candidate in candidates:
        if candidate.partition(".")[0] not in collection.members:
            if candidate != target:
                return candidate  # resolved to an import from elsewhere (random.Random)
            continue
        try:
            return collection[candidate].canonical_path  # type: ignore[no-any-return]
        except (KeyError, griffe.AliasResolutionError, griffe.CyclicAliasError):
            continue
    return None
