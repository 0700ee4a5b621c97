"""The browser's rules help (``/rules``, static/rules.html): served, linked from the lobby, with
the anchors the table page links to, and the words it uses for moves the library's own (the
words the table's move buttons show, :func:`skitgubbe.engine.protocol.move_text`), so that the
page cannot drift from the game."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import pytest
from server_support import serve

from skitgubbe import Move, MoveKind
from skitgubbe.engine import protocol

ANCHORS = ("phase1", "phase2", "flip", "pick-up", "skitgubbe", "presets")


class _Page(HTMLParser):
    """The ids, the links, the move words (``<code class="move">``) and the text of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.moves: list[str] = []
        self.stylesheets: list[str] = []
        self.text: list[str] = []
        self._in_move = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.add(str(found["id"]))
        if tag == "a" and found.get("href"):
            self.links.append(str(found["href"]))
        if tag == "link" and found.get("rel") == "stylesheet":
            self.stylesheets.append(str(found["href"]))
        if tag == "code" and "move" in (found.get("class") or "").split():
            self._in_move = True
            self.moves.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "code":
            self._in_move = False

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._in_move:
            self.moves[-1] += data


def parse(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    return page


def fetch(*paths: str) -> list[tuple[int, str, str]]:
    """Each path's status, content type and text, from the server's application."""
    answers: list[tuple[int, str, str]] = []

    async def run(client: Any) -> None:
        for path in paths:
            response = await client.get(path)
            answers.append((response.status, response.content_type, await response.text()))

    serve(run)
    return answers


@pytest.fixture(scope="module")
def served() -> dict[str, tuple[int, str, str]]:
    paths = ("/rules", "/", "/static/lobby.css", "/static/rules.html")
    return dict(zip(paths, fetch(*paths), strict=True))


def test_the_rules_page_is_served_with_its_styles(served: dict[str, tuple[int, str, str]]) -> None:
    status, kind, html = served["/rules"]
    assert (status, kind) == (200, "text/html")
    page = parse(html)
    assert page.stylesheets == ["/static/style.css", "/static/lobby.css"]
    assert served["/static/lobby.css"][:2] == (200, "text/css")
    assert "/" in page.links  # back to the lobby
    assert served["/static/rules.html"][0] == 404  # a page, not one of the static files


def test_the_lobby_links_the_rules_and_its_styles(served: dict[str, tuple[int, str, str]]) -> None:
    page = parse(served["/"][2])
    assert "/rules" in page.links and "/rules#presets" in page.links
    assert page.stylesheets == ["/static/style.css", "/static/lobby.css"]


def test_the_rules_page_has_the_anchors_the_table_links_to(
    served: dict[str, tuple[int, str, str]],
) -> None:
    page = parse(served["/rules"][2])
    missing = [anchor for anchor in ANCHORS if anchor not in page.ids]
    assert not missing, missing
    for link in page.links:  # every link on the page to an anchor of its own lands
        if link.startswith("#"):
            assert link[1:] in page.ids, link


def test_the_move_words_are_the_librarys(served: dict[str, tuple[int, str, str]]) -> None:
    """Each move the page writes out is one the library reads and writes the same way, and the
    page explains the words the table shows for trying your luck and picking up."""
    page = parse(served["/rules"][2])
    assert page.moves, "the page names no move"
    for text in page.moves:
        assert protocol.move_text(Move.parse(text)) == text, text
    kinds = {Move.parse(text).kind for text in page.moves}
    assert {MoveKind.FLIP, MoveKind.PICK_UP, MoveKind.PLAY} <= kinds
    flip, pick = protocol.move_text(Move.flip()), protocol.move_text(Move.pick_up())
    headings = re.findall(r"<h2[^>]*>(.*?)</h2>", served["/rules"][2], flags=re.S)
    assert any(f'<code class="move">{flip}</code>' in h for h in headings), headings
    assert any(f'<code class="move">{pick}</code>' in h for h in headings), headings


def test_the_rules_page_says_what_the_rules_say(served: dict[str, tuple[int, str, str]]) -> None:
    """The few facts a player needs, in the page's words, against the library's rules."""
    import skitgubbe as sg

    text = " ".join(" ".join(parse(served["/rules"][2]).text).split())
    classic, modern = sg.Rules.classic(players=3), sg.Rules.modern(players=3)
    assert classic.try_your_luck and not modern.try_your_luck
    assert "there is no flip" in text  # the modern rules
    assert (
        f"Everyone holds {['no', 'one', 'two', 'three', 'four', 'five'][classic.hand_size]}"
        " cards" in text
    )
    assert "The higher rank wins; suits do not count." in text
    assert "that player is the skitgubbe and loses" in text
    assert "docs/rules.md §1, §3, §5, §6 and §9" in text
    assert "/work/" not in served["/rules"][2]  # no path of a machine
