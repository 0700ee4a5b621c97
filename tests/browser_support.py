"""What the browser tests share: Debian's Chromium driven by Playwright, a real server, pages
that collect their failures, and axe-core's accessibility check.

Playwright's own browser download cannot work on a machine without the internet, so the
browser is the system's (``apt-get install chromium``, which ``.ci/run`` does), given to
Playwright by its ``executable_path``. A machine without it skips, except in CI (the CI
variable is set), where that is a failure. The server is a real ``skitgubbe serve`` on
127.0.0.1; every loop is bounded in count and time.

With ``SKITGUBBE_SCREENSHOT=FOLDER``, the tests also save the pictures of docs/server.md
there (each test names its own).

The fixtures ``browser`` and ``server`` are in tests/conftest.py.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

sync_api = pytest.importorskip("playwright.sync_api")

SCREENSHOT = os.environ.get("SKITGUBBE_SCREENSHOT")  # a folder: save the docs' pictures there
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 768}
SIZES = {"desktop": DESKTOP, "phone": PHONE}

# The games end within this many moves: clicking the first legal move, as these tests do, can
# go round in circles until the rules' own limit (10,000 moves), which made them flaky.
MAX_MOVES = 300

# WCAG 2.0 and 2.1, levels A and AA: the rules axe-core checks (its best practices are not
# asked for).
WCAG_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def new_page(browser: Any, viewport: dict[str, int]) -> tuple[Any, list[str]]:
    """A page in a context of its own (its own storage, its own icon requests), and the list
    its failures go to: every response of 400 or more, every error in its console or
    uncaught in its scripts, every request that failed."""
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    failures: list[str] = []
    page.on("response", lambda r: r.status >= 400 and failures.append(f"{r.status} {r.url}"))
    page.on(
        "console",
        lambda m: m.type == "error" and failures.append(f"console: {m.text} {m.location}"),
    )
    page.on("pageerror", lambda error: failures.append(f"page error: {error}"))
    page.on(  # (not a request that leaving the page cut short)
        "requestfailed",
        lambda r: r.failure != "net::ERR_ABORTED" and failures.append(f"failed: {r.url}"),
    )
    return page, failures


def create_and_sit(
    page: Any,
    url: str,
    *,
    players: int,
    others: str,
    name: str,
    hints: bool = False,
    bot_delay: float = 0,
    max_moves: int | None = MAX_MOVES,
) -> str:
    """Create a table from the lobby's form and sit at seat 0; returns the table's id."""
    page.goto(url + "/")
    page.select_option("#players", str(players))
    page.select_option("select[name=others]", others)
    page.fill("#bot-delay", str(bot_delay))
    if max_moves is not None:
        page.fill("#max-moves", str(max_moves))
    page.fill("#name", name)
    if hints:
        page.check("#hints")
    page.click("#create-button")
    page.wait_for_url("**/table?id=*", timeout=10_000)
    return str(page.url.split("id=")[1])


_AXE: str | None = None


def axe_violations(page: Any, rules: list[str] = WCAG_AA) -> list[str]:
    """axe-core's violations of ``rules`` on the page as it is now, one line each (the rule,
    its impact, the first elements it names). axe-core comes from the axe-playwright-python
    package, which ships it (its script is injected; its Python wrapper is not used)."""
    global _AXE
    if _AXE is None:
        import axe_playwright_python

        folder = Path(axe_playwright_python.__file__).parent
        _AXE = (folder / "axe.min.js").read_text(encoding="utf-8")
    page.evaluate(_AXE)
    found = page.evaluate(
        "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})"
        ".then(r => r.violations.map(v => v.id + ' (' + v.impact + '): ' +"
        " v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')))",
        rules,
    )
    return [str(line) for line in found]


def in_viewport(page: Any, selector: str) -> list[str]:
    """The elements matching ``selector`` that are not wholly inside the window as it scrolls
    now (by their bounding boxes), as ``selector[index]``: an empty list when all are seen."""
    outside = page.evaluate(
        """selector => [...document.querySelectorAll(selector)].flatMap((node, index) => {
            const box = node.getBoundingClientRect();
            const seen = box.width > 0 && box.height > 0 && box.top >= 0 && box.left >= 0
              && box.bottom <= window.innerHeight + 0.5 && box.right <= window.innerWidth + 0.5;
            return seen ? [] : [selector + '[' + index + ']'];
        })""",
        selector,
    )
    return [str(x) for x in outside]


def screenshot(page: Any, name: str) -> None:
    """Save the page as it shows in its window into the SKITGUBBE_SCREENSHOT folder, if set."""
    if SCREENSHOT:
        folder = Path(SCREENSHOT)
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / name))
        assert (folder / name).stat().st_size < 200_000, name


def staged_table(
    db: Path,
    rules: Any,
    seats: list[str | None],
    seed: int,
    *,
    until: Any,
    name: str = "Ann",
    move_time: float | None = 60,
) -> tuple[str, str, list[str]]:
    """A running table in the store at ``db`` (for a server started on it afterwards): dealt
    from ``seed``, its bots (``greedy`` for every seat, the person's too) played until
    ``until(game)`` says stop, seat 0 claimed by ``name``. Returns the table's id, seat 0's
    token (for the browser's localStorage) and the moves. The server resumes it as after a
    restart: a position chosen ahead, such as seat 0 with 27 cards in phase 2."""
    import secrets
    import time

    import skitgubbe as sg
    from skitgubbe import bots
    from skitgubbe.server import SQLiteStore, StoredSeat, StoredTable, hash_token
    from skitgubbe.server.config import TableConfig

    game = sg.Game.new(rules, seed=seed)
    players = [bots.make("greedy", seed=seat) for seat in range(rules.players)]
    moves: list[str] = []
    while not until(game):
        assert game.result is None and len(moves) < 2000, "the game ended first"
        move = players[game.to_move].choose(game.observation(game.to_move))
        moves.append(str(move))
        game.play(move)
    token = secrets.token_urlsafe(32)
    config = TableConfig.from_json(
        {"seats": seats, "rules": rules.to_dict(), "move_time": move_time}
    ).to_json()
    claimed: list[StoredSeat | None] = [StoredSeat(hash_token(token), name)]
    claimed += [None] * (len(seats) - 1)
    table = StoredTable(secrets.token_hex(8), config, seed, claimed, created=time.time())
    store = SQLiteStore(str(db))
    store.create(table)
    store.start(table.id)
    for index, move in enumerate(moves):
        store.append_move(table.id, index, move, None)
    store.flush()
    store.close()
    return table.id, token, moves
