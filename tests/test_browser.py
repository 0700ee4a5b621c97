"""The browser table in a real browser: Debian's Chromium, headless, driven by Playwright.

Playwright's own browser download cannot work on a machine without the internet, so the
browser is the system's (``apt-get install chromium``, which ``.ci/run`` does), given to
Playwright by its ``executable_path``. A machine without it skips, except in CI (the CI
variable is set), where that is a failure. The server is a real ``skitgubbe serve`` on
127.0.0.1; every loop is bounded in count and time.

With ``SKITGUBBE_SCREENSHOT=FOLDER``, the tests also save the pictures of docs/server.md
there: ``table-desktop.png`` (1366x768), ``table-phone.png`` (390x844) and ``review.png``.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_support import free_port, start_server

sync_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SCREENSHOT = os.environ.get("SKITGUBBE_SCREENSHOT")  # a folder: save the docs' pictures there
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 768}
CLOCK = re.compile(r"^(\d+) s left$")


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


def new_page(browser: Any, viewport: dict[str, int]) -> tuple[Any, list[str]]:
    """A page in a context of its own (its own storage, its own icon requests), and the list
    its failures go to: every response of 400 or more, every error in its console."""
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    failures: list[str] = []
    page.on("response", lambda r: r.status >= 400 and failures.append(f"{r.status} {r.url}"))
    page.on(
        "console",
        lambda m: m.type == "error" and failures.append(f"console: {m.text} {m.location}"),
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
) -> str:
    page.goto(url + "/")
    page.select_option("#players", str(players))
    page.select_option("select[name=others]", others)
    page.fill("#bot-delay", str(bot_delay))
    page.fill("#max-moves", str(MAX_MOVES))
    page.fill("#name", name)
    if hints:
        page.check("#hints")
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


def click_moves(page: Any, count: int) -> None:
    """Play ``count`` moves, each the first legal one, once it is this seat's turn."""
    for _ in range(count):
        page.wait_for_selector("#moves button", timeout=30_000)
        with contextlib.suppress(sync_api.Error):  # re-rendered under the pointer: again
            page.click("#moves button", timeout=2_000)
        page.wait_for_timeout(50)
    page.wait_for_selector("#moves button", timeout=30_000)


def check_result(page: Any, url: str, table: str) -> None:
    """The page says what the game's record says: who lost, or that the move limit ended it;
    and so does the log's last line (which once said "you end the game")."""
    record = page.request.get(f"{url}/api/tables/{table}/record").json()
    names = page.request.get(f"{url}/api/tables/{table}").json()["names"]
    assert len(record["moves"]) <= MAX_MOVES
    shown = page.inner_text("#result")
    last = page.query_selector_all("#log div")[-1].inner_text()
    if record["result"]["truncated"]:
        assert "move limit" in shown, shown
        assert last == "the move limit is reached: the game ends with no loser", last
    elif record["result"]["loser"] == 0:
        assert shown == "you are the skitgubbe", shown
        assert last == "game over: you are the skitgubbe", last
    else:
        loser = names[record["result"]["loser"]]
        assert re.fullmatch(r"easy [12]", loser), names
        assert shown == f"{loser} is the skitgubbe", shown
        assert last == f"game over: {loser} is the skitgubbe", last
    assert page.inner_text("#turn-text") == shown


def check_turn_and_clock(page: Any) -> None:
    """It is this seat's turn, said in words, and the clock counts down each second."""
    page.wait_for_function(
        "document.getElementById('turn-text').textContent === 'your turn'", timeout=30_000
    )
    page.wait_for_function(
        "/^\\d+ s left$/.test(document.getElementById('clock').textContent)", timeout=5_000
    )
    before = page.inner_text("#clock")
    page.wait_for_timeout(1_500)
    after = page.inner_text("#clock")
    first, then = CLOCK.match(before), CLOCK.match(after)
    assert first and then, (before, after)
    assert 0 < int(first[1]) - int(then[1]) <= 3, (before, after)  # it ticks, every second
    assert int(first[1]) <= 60
    assert page.inner_text("#turn-text") == "your turn"


def screenshot(page: Any, name: str) -> None:
    """Save the page as it shows in its window into the SKITGUBBE_SCREENSHOT folder, if set."""
    if SCREENSHOT:
        folder = Path(SCREENSHOT)
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / name))
        assert (folder / name).stat().st_size < 150_000, name


@pytest.mark.slow
def test_one_person_plays_a_whole_game_against_bots_by_clicking_and_reviews_it(
    browser: Any, server: str, tmp_path: Path
) -> None:
    page, failures = new_page(browser, DESKTOP)
    table = create_and_sit(page, server, players=3, others="easy", name="Ann")
    page.wait_for_selector("#hand img.card", timeout=10_000)
    assert page.inner_text("#title").endswith("you are Ann")
    seats = page.inner_text("#seats")
    assert "easy 1" in seats and "easy 2" in seats  # two bots of one kind, told apart
    check_turn_and_clock(page)
    click_moves(page, 8)  # into the game, for the picture
    shot = tmp_path / "table.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
    check_turn_and_clock(page)
    screenshot(page, "table-desktop.png")
    log = page.inner_text("#log")
    assert "easy 1" in log and "easy 2" in log
    clicks = play_until_over(page)
    assert clicks > 5
    check_result(page, server, table)
    assert page.inner_text("#clock") == ""  # nobody is to move
    # The review of the finished game, from the link at the end.
    link = page.wait_for_selector("#review-link:not([hidden])", timeout=5_000)
    assert link.get_attribute("href") == f"/tables/{table}/review?seat=0"
    link.click()
    page.wait_for_url(f"**/tables/{table}/review?seat=0", timeout=10_000)
    page.wait_for_selector("#report:not([hidden])", timeout=180_000)
    record = page.request.get(f"{server}/api/tables/{table}/record").json()
    assert len(page.query_selector_all("#moves tr")) == len(record["moves"])
    page.wait_for_function("document.getElementById('graph').naturalWidth > 0", timeout=10_000)
    review = page.request.get(f"{server}/api/tables/{table}/review?seat=0").json()
    assert len(page.query_selector_all("#moves tr.costly")) == len(review["costliest"])
    assert len(page.query_selector_all("#costliest li")) == max(1, len(review["costliest"]))
    assert "Ann" in page.inner_text("#heading")
    screenshot(page, "review.png")
    assert not failures, failures
    page.context.close()


@pytest.mark.slow
def test_on_a_phone_the_turn_the_clock_and_a_hint_show_and_nothing_is_missing(
    browser: Any, server: str
) -> None:
    page, failures = new_page(browser, PHONE)
    create_and_sit(page, server, players=3, others="easy", name="Ann", hints=True, bot_delay=0.8)
    page.wait_for_selector("#hand img.card", timeout=10_000)
    check_turn_and_clock(page)
    page.click("#moves button")  # the bots pause: whose turn it is shows meanwhile
    page.wait_for_function(
        "/^waiting for easy [12]$/.test(document.getElementById('turn-text').textContent)",
        timeout=10_000,
    )
    assert page.inner_text("#clock") == ""  # a bot has no clock
    click_moves(page, 5)
    check_turn_and_clock(page)
    page.click("#hint-button")
    page.wait_for_selector("#hint .hint-row", timeout=30_000)
    screenshot(page, "table-phone.png")
    assert not failures, failures  # the icon too: no 404 on a phone
    page.context.close()


@pytest.mark.slow
def test_a_hint_where_the_table_allows_it_and_a_clear_refusal_where_not(
    browser: Any, server: str
) -> None:
    page, failures = new_page(browser, DESKTOP)
    create_and_sit(page, server, players=3, others="easy", name="Ann", hints=True)
    for _ in range(3):  # a hint at three turns
        click_moves(page, 2)
        assert page.inner_text("#hint-button") == "hint"
        page.click("#hint-button")
        page.wait_for_selector("#hint .hint-row", timeout=30_000)
        buttons = page.query_selector_all("#moves button")
        legal = sorted(b.get_attribute("data-move") for b in buttons)
        rows = page.query_selector_all("#hint .hint-row")
        assert sorted(r.get_attribute("data-move") for r in rows) == legal
        best = page.query_selector("#hint .hint-row.best").get_attribute("data-move")
        assert page.query_selector("#moves button.hinted").get_attribute("data-move") == best
        assert re.search(r"\d+ %", page.inner_text("#hint"))
    page.context.close()
    page, refused = new_page(browser, DESKTOP)
    create_and_sit(page, server, players=3, others="easy", name="Bo")
    page.wait_for_selector("#moves button", timeout=30_000)
    assert page.inner_text("#hint-button") == "hint (off at this table)"
    page.click("#hint-button")  # asked all the same: the server says why not
    page.wait_for_selector("#hint .hint-refused", timeout=10_000)
    assert "this table gives no hints" in page.inner_text("#hint")
    assert page.inner_text("#hint-button") == "no hints at this table"
    assert page.is_disabled("#hint-button")
    assert not page.query_selector_all("#hint .hint-row")
    click_moves(page, 1)  # the table plays on
    assert not failures and not refused, failures + refused
    page.context.close()


@pytest.mark.slow
def test_two_people_in_two_browsers_play_each_other(browser: Any, server: str) -> None:
    first, second = browser.new_context(), browser.new_context()  # two people, two storages
    ann, bo = first.new_page(), second.new_page()
    table = create_and_sit(ann, server, players=2, others="open", name="Ann")
    bo.goto(server + "/")
    bo.fill("#name", "Bo")
    bo.click(f"tr[data-table='{table}'] button.sit", timeout=10_000)
    bo.wait_for_url("**/table?id=*", timeout=10_000)
    waiting_seen = False
    for _ in range(2000):
        for page, other in ((ann, "Bo"), (bo, "Ann")):
            waiting_seen |= page.inner_text("#turn-text") == f"waiting for {other}"
            button = page.query_selector("#moves button")
            if button is not None:
                with contextlib.suppress(sync_api.Error):  # re-rendered: next round
                    button.click(timeout=2_000)
        if ann.inner_text("#result") and bo.inner_text("#result"):
            break
        ann.wait_for_timeout(20)
    assert ann.inner_text("#result") and bo.inner_text("#result")
    assert "Bo" in ann.inner_text("#seats") and "Ann" in bo.inner_text("#seats")
    assert waiting_seen
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
    assert page.inner_text("#title").endswith("you are Ann")
    again = sorted(img.get_attribute("data-card") for img in page.query_selector_all("#hand img"))
    assert again == hand
    assert [b.get_attribute("data-move") for b in page.query_selector_all("#moves button")] == legal
    check_turn_and_clock(page)  # the clock goes on from what the server says is left
    assert play_until_over(page) > 0
    check_result(page, server, table)
    page.close()
