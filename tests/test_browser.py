"""The browser table in a real browser: Debian's Chromium, headless, driven by Playwright.

Playwright's own browser download cannot work on a machine without the internet, so the
browser is the system's (``apt-get install chromium``, which ``.ci/run`` does), given to
Playwright by its ``executable_path``. A machine without it skips, except in CI (the CI
variable is set), where that is a failure. The server is a real ``skitgubbe serve`` on
127.0.0.1; every loop is bounded in count and time.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_support import free_port, start_server

sync_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SCREENSHOT = os.environ.get("SKITGUBBE_SCREENSHOT")  # also save the table's picture there


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("no chromium: CI must run the browser tests (apt-get install chromium)")
        pytest.skip("no chromium on this machine")
    with sync_api.sync_playwright() as playwright:
        # --no-sandbox: CI runs as root, where Chromium's sandbox cannot start.
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox"]
        )
        yield launched
        launched.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    process = start_server(tmp_path / "server.db", port)
    yield f"http://127.0.0.1:{port}"
    process.terminate()
    try:
        process.wait(15)
    finally:
        process.kill()


# The games end within this many moves: clicking the first legal move, as these tests do, can
# go round in circles until the rules' own limit (10,000 moves), which made them flaky.
MAX_MOVES = 300


def create_and_sit(page: Any, url: str, *, players: int, others: str, name: str) -> str:
    page.goto(url + "/")
    page.select_option("#players", str(players))
    page.select_option("select[name=others]", others)
    page.fill("#bot-delay", "0")
    page.fill("#max-moves", str(MAX_MOVES))
    page.fill("#name", name)
    page.click("#create-button")
    page.wait_for_url("**/table?id=*", timeout=10_000)
    return str(page.url.split("id=")[1])


def play_until_over(page: Any, seconds: float = 300) -> int:
    """Click the first legal move whenever there is one, until the result shows."""
    clicks = 0
    deadline = time.monotonic() + seconds
    for _ in range(5000):
        if time.monotonic() > deadline:
            break
        page.wait_for_selector("#moves button, #result:not(:empty)", timeout=30_000)
        if page.inner_text("#result"):
            return clicks
        button = page.query_selector("#moves button")
        if button is not None:
            try:
                button.click(timeout=2_000)
                clicks += 1
            except sync_api.Error:
                pass  # re-rendered under the pointer: look again
        page.wait_for_timeout(5)
    raise AssertionError(f"the game did not end ({clicks} moves clicked)")


def check_result(page: Any, url: str, table: str) -> None:
    """The page says what the game's record says: who lost, or that the move limit ended it."""
    record = page.request.get(f"{url}/api/tables/{table}/record").json()
    assert len(record["moves"]) <= MAX_MOVES
    shown = page.inner_text("#result")
    if record["result"]["truncated"]:
        assert "move limit" in shown, shown
    elif record["result"]["loser"] == 0:
        assert shown == "you are the skitgubbe", shown
    else:
        assert shown == "easy is the skitgubbe", shown


@pytest.mark.slow
def test_one_person_plays_a_whole_game_against_bots_by_clicking(
    browser: Any, server: str, tmp_path: Path
) -> None:
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    table = create_and_sit(page, server, players=3, others="easy", name="Ann")
    page.wait_for_selector("#hand img.card", timeout=10_000)
    assert page.inner_text("#title").endswith("seat 0")
    shot = tmp_path / "table.png"
    page.screenshot(path=str(shot), full_page=True)
    if SCREENSHOT:
        page.screenshot(path=SCREENSHOT, full_page=True)
    assert shot.stat().st_size > 10_000
    clicks = play_until_over(page)
    assert clicks > 5
    check_result(page, server, table)
    page.close()


@pytest.mark.slow
def test_two_people_in_two_browsers_play_each_other(browser: Any, server: str) -> None:
    first, second = browser.new_context(), browser.new_context()  # two people, two storages
    ann, bo = first.new_page(), second.new_page()
    table = create_and_sit(ann, server, players=2, others="open", name="Ann")
    bo.goto(server + "/")
    bo.fill("#name", "Bo")
    bo.click(f"tr[data-table='{table}'] button.sit", timeout=10_000)
    bo.wait_for_url("**/table?id=*", timeout=10_000)
    for _ in range(2000):
        for page in (ann, bo):
            button = page.query_selector("#moves button")
            if button is not None:
                with contextlib.suppress(sync_api.Error):  # re-rendered: next round
                    button.click(timeout=2_000)
        if ann.inner_text("#result") and bo.inner_text("#result"):
            break
        ann.wait_for_timeout(20)
    assert ann.inner_text("#result") and bo.inner_text("#result")
    assert "Bo" in ann.inner_text("#seats") and "Ann" in bo.inner_text("#seats")
    first.close()
    second.close()


@pytest.mark.slow
def test_a_reload_mid_game_resumes_the_seat(browser: Any, server: str) -> None:
    page = browser.new_page()
    table = create_and_sit(page, server, players=3, others="easy", name="Ann")
    for _ in range(3):
        page.wait_for_selector("#moves button", timeout=30_000)
        page.click("#moves button")
    page.wait_for_selector("#moves button", timeout=30_000)
    hand = sorted(img.get_attribute("data-card") for img in page.query_selector_all("#hand img"))
    legal = [b.get_attribute("data-move") for b in page.query_selector_all("#moves button")]
    page.reload()
    page.wait_for_selector("#moves button", timeout=30_000)
    assert page.inner_text("#title").endswith("seat 0")
    again = sorted(img.get_attribute("data-card") for img in page.query_selector_all("#hand img"))
    assert again == hand
    assert [b.get_attribute("data-move") for b in page.query_selector_all("#moves button")] == legal
    assert play_until_over(page) > 0
    check_result(page, server, table)
    page.close()
