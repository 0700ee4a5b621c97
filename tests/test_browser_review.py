"""The review page in a real browser, after a game played by clicking (tests/browser_support.py:
Debian's Chromium, driven by Playwright, against a real ``skitgubbe serve``).

A hint during the game and the review after it agree on the engine's choice at the same
position; the review shows the seat's own view at its costliest move, a graph with move
numbers and a legend, every chance with its ± error, and the move the search preferred on a
phone too; the page has no console error, no failed request and no axe violation (WCAG 2.1
A and AA), at 1366x768 and 390x844.

With ``SKITGUBBE_SCREENSHOT=FOLDER``, the tests also save the pictures of docs/server.md
there: ``review-desktop.png`` and ``review-phone.png`` (a review at its costliest move).
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from typing import Any

import pytest
from browser_support import (
    DESKTOP,
    PHONE,
    axe_violations,
    create_and_sit,
    new_page,
    screenshot,
    sync_api,
)

MOVE = "#hand [data-move]:not([disabled]), #moves [data-move]:not([disabled])"
"""The seat's legal moves on the table page: its cards that make a move, and the moves
without a card (or of the cards chosen)."""
SELECTABLE = "#hand .selectable:not([disabled]):not(.selected)"
"""A card to choose for a move of several cards (or one with more than one move)."""
HINTS = 3
"""The turns with a choice at which a hint is asked."""
PERCENT = re.compile(r"\d+\.\d\s%")
WITH_ERROR = re.compile(r"\d+\.\d\s%\s±\s\d+\.\d")


def watch_hints(page: Any) -> list[dict[str, Any]]:
    """The hint frames the page's websocket receives from now on (what the server answered)."""
    hints: list[dict[str, Any]] = []

    def frame(payload: str | bytes) -> None:
        with contextlib.suppress(ValueError, TypeError):
            message = json.loads(payload)
            if isinstance(message, dict) and message.get("type") == "hint":
                hints.append(message)

    page.on("websocket", lambda ws: ws.on("framereceived", frame))
    return hints


def status(page: Any, url: str, table: str) -> str:
    return str(page.request.get(f"{url}/api/tables/{table}").json()["status"])


def ask_a_hint(page: Any, hints: list[dict[str, Any]]) -> dict[str, Any]:
    """Click the hint button at this turn; the hint the server sent, once the page shows it,
    checked against what the page shows as best."""
    asked = len(hints)
    page.click("#hint-button")
    page.wait_for_selector("#hint .hint-row.best", timeout=30_000)
    deadline = time.monotonic() + 10
    while len(hints) == asked and time.monotonic() < deadline:
        page.wait_for_timeout(20)
    assert len(hints) > asked, "no hint frame came"
    advice = hints[-1]
    shown = page.get_attribute("#hint .hint-row.best", "data-move")
    assert shown == advice["best"], (shown, advice["best"])
    return advice


def play_with_hints(page: Any, url: str, table: str, hints: list[dict[str, Any]]) -> list[Any]:
    """Play the game to its end by clicking the first legal move, asking a hint at the first
    :data:`HINTS` turns that have a choice; the hints."""
    asked: list[dict[str, Any]] = []
    deadline = time.monotonic() + 300
    for step in range(3000):
        assert time.monotonic() < deadline, "the game did not end"
        if step % 10 == 0 and status(page, url, table) == "over":
            return asked
        with contextlib.suppress(sync_api.Error):
            page.wait_for_selector(MOVE, timeout=1_000)
        moves = page.query_selector_all(MOVE)
        if not moves:
            card = page.query_selector(SELECTABLE)
            if card is not None:  # choose it: its moves show as buttons
                with contextlib.suppress(sync_api.Error):
                    card.click(timeout=2_000)
            continue
        if len(asked) < HINTS and len(moves) > 1:
            asked.append(ask_a_hint(page, hints))
            moves = page.query_selector_all(MOVE)
            if not moves:
                continue
        with contextlib.suppress(sync_api.Error):  # re-rendered under the pointer: again
            moves[0].click(timeout=2_000)
        page.wait_for_timeout(5)
    raise AssertionError("the game did not end")


def the_review(page: Any, url: str, table: str) -> dict[str, Any]:
    """The review of seat 0, from the API, once worked out."""
    for _ in range(600):
        response = page.request.get(f"{url}/api/tables/{table}/review?seat=0")
        if response.status == 200:
            return dict(response.json())
        assert response.status == 202, response.text()
        page.wait_for_timeout(200)
    raise AssertionError("the review did not come")


def inside_the_window(page: Any, selector: str) -> None:
    """Every element of ``selector`` shows, and none reaches past the window's width."""
    boxes = page.eval_on_selector_all(
        selector,
        "nodes => nodes.map(n => { const b = n.getBoundingClientRect();"
        " return [b.left, b.right, b.width, getComputedStyle(n).display]; })",
    )
    width = page.viewport_size["width"]
    assert boxes, selector
    for left, right, box_width, display in boxes:
        assert display != "none" and box_width > 0, (selector, display)
        assert left >= 0 and right <= width + 0.5, (selector, left, right, width)


@pytest.mark.slow
@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_hint_and_the_review_agree_and_the_review_shows_the_costliest_move(
    browser: Any, server: str, size: str
) -> None:
    viewport = DESKTOP if size == "desktop" else PHONE
    page, failures = new_page(browser, viewport)
    hints = watch_hints(page)
    table = create_and_sit(page, server, players=3, others="easy", name="Ann", hints=True)
    asked = play_with_hints(page, server, table, hints)
    assert len(asked) == HINTS
    review = the_review(page, server, table)
    record = page.request.get(f"{server}/api/tables/{table}/record").json()
    assert len(review["moves"]) == len(record["moves"])

    # The same position, the same verdict: the hint's choice is the review's.
    for advice in asked:
        entry = review["moves"][advice["n"]]
        assert entry["seat"] == 0 and entry["label"] != "forced", entry
        assert entry["best_move"] == advice["best"], (advice["n"], entry, advice["best"])
        assert advice["engine"] == review["engine"], (advice["engine"], review["engine"])
        chosen = next(m for m in advice["moves"] if m["move"] == advice["best"])
        assert (chosen["loss"], chosen["error"]) == (entry["best_loss"], entry["best_error"])

    page.goto(f"{server}/tables/{table}/review?seat=0")
    page.wait_for_selector("#report:not([hidden])", timeout=180_000)
    page.wait_for_function("document.getElementById('graph').naturalWidth > 0", timeout=10_000)
    assert len(page.query_selector_all("#moves tr")) == len(record["moves"])
    text = page.inner_text("#report")
    # Every chance shown has its error.
    assert PERCENT.search(text)
    assert len(PERCENT.findall(text)) == len(WITH_ERROR.findall(text)), [
        line for line in text.splitlines() if len(PERCENT.findall(line)) > line.count("±")
    ]
    assert review["engine"] in page.inner_text("#engine")
    # The graph: move numbers along the bottom, a legend of its colours.
    graph = review["svg"]
    ticks = [int(n) for n in re.findall(r"<g class='tick'>.*?>(\d+)</text></g>", graph)]
    assert ticks and ticks[0] == 1 and ticks == sorted(ticks)
    assert all(f">{name}</text>" in graph for name in ("best", "good", "inaccuracy", "mistake"))
    # The preferred move, in every row that has one, inside the window (a phone too).
    preferred = [m for m in review["moves"] if m.get("label") not in (None, "best", "forced")]
    if preferred:
        inside_the_window(page, "#moves tr.mine td:nth-child(6)")
        first = page.inner_text(f"#move-{preferred[0]['index']} td:nth-child(6)")
        assert first.startswith(preferred[0]["best"]), first
    inside_the_window(page, ".review-moves th:nth-child(6)")
    # Why, where the search's choice has the higher estimate.
    for move in review["moves"]:
        if move.get("why"):
            shown = page.text_content(f"#move-{move['index']} details.why span")
            assert shown == move["why"]
    # At the costliest move: the seat's own view before it.
    if review["costliest"]:
        costliest = review["costliest"][0]
        view = f"#costly-{costliest} .costly-view svg[role=img]"
        page.wait_for_selector(view, timeout=5_000)
        drawn = page.eval_on_selector_all(f"{view} [data-card]", "n => n.map(c => c.dataset.card)")
        assert drawn and all(f"data-card='{card}'" in review["moves"][costliest]["view"]
                             for card in drawn)  # fmt: skip
        assert f"before move {costliest + 1}" in page.get_attribute(view, "aria-label")
        inside_the_window(page, view)
        page.eval_on_selector(  # the picture: its heading, the move, the view
            f"#costly-{costliest}", "n => { n.scrollIntoView({block: 'start'}); scrollBy(0, -90); }"
        )
    else:  # no move cost anything: the page says so
        assert "none" in page.inner_text("#costliest")
    screenshot(page, f"review-{size}.png")
    assert axe_violations(page) == []
    assert not failures, failures
    page.context.close()
